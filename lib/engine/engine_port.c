/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine/engine_port.c — input ports in the rules engine (engine.h,
 * "Input ports"): a key holds the port its packets arrive on, yet a
 * connection stays one per tuple, as in Linux. Here: the port an entry's
 * packets leave by (the app's pairing), the list of ports entries have
 * had, port-agnostic lookups over it, the reply entry that moves to the
 * port its first reply came on, the packet of a connection on a port its
 * entries lack (decided as the connection's, uncached), and the claim a
 * new connection lays on its two tuples on every port.
 *
 * Port-agnostic lookups try the key with every other port in the list, in
 * one bulk hash lookup, on the slow path only: a miss looks for its key's
 * tuple, a new connection for its reply's. The list only grows (an entry's
 * port is noted when it is inserted or moved), up to ENG_PORTS_MAX ports;
 * entries on ports past that are exact-match only.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>

#include "engine_priv.h"

uint16_t
rule_engine_out_port(const struct rule_engine *eng, uint16_t out_port, uint16_t in_port)
{
	int pair;

	if (out_port == RULE_PORT_LOCAL)
		return in_port;
	if (eng == NULL || eng->p.port_pair_fn == NULL)
		return out_port == RULE_PORT_PAIRED ? in_port : out_port;
	/* A route to a port that is none leaves by the input port's pair (as the datapath sends it). */
	if (out_port != RULE_PORT_PAIRED && eng->p.port_pair_fn(eng->p.cb_arg, out_port) >= 0)
		return out_port;
	pair = eng->p.port_pair_fn(eng->p.cb_arg, in_port);
	return pair >= 0 && pair <= UINT16_MAX ? (uint16_t)pair : in_port;
}

/*
 * -m rpfilter as ip(6)t_rpfilter: the source must be routed back through
 * the input port (--loose: routed at all), a source of this host fails
 * unless --accept-local; a packet of this host's own (no input port), one
 * back in through lo (as Linux's loopback check) and an unspecified source
 * (DHCP, DAD; IPv4's to the limited broadcast or 224.0.0.0/24 only) pass,
 * and an IPv6 link-local source (Linux looks it up on the input
 * interface, where fe80::/64 is on-link: routed back the way it came).
 * Without a route the way back is
 * the input port (gufc sends such packets to the pair: replies come back
 * the way the packet came). --validmark: one routing table, marks select
 * none. @return 1 or 0 after --invert; -ENOTSUP: no routes to ask.
 */
/*
 * IPv4's unspecified source passes to the limited broadcast or a local
 * multicast group (224.0.0.0/24: DHCP, IGMP) only; to anything else its
 * way back (to 0.0.0.0) is asked as any source's.
 */
static bool
zero_src_ok4(uint32_t dst_be)
{
	uint32_t d = rte_be_to_cpu_32(dst_be);

	return d == UINT32_MAX || (d >> 8) == 0xe00000;
}

int
eng_rpfilter_match(const struct rule_engine *eng, const struct rule_x *x,
	const struct rule_pkt *p)
{
	static const uint8_t zero[16];
	const struct fc_key *k = &p->key;
	bool loose = x->given & 1, accept_local = (x->given >> 2) & 1;
	bool invert = (x->given >> 3) & 1, ok;
	uint16_t port;

	if (eng->p.route_fn == NULL)
		return -ENOTSUP;
	if (p->in_port == RULE_IF_NONE || p->in_port == RULE_IF_LO ||
		(memcmp(fc_key_src(k), zero, fc_af_addr_len(k->family)) == 0 &&
			(k->family != FC_AF_INET4 || zero_src_ok4(k->v4.dst)))) {
		ok = true;
	} else if (fc_key_flags(k) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED)) {
		/* A source of this host's from outside: forged (its own packets never get here). */
		ok = accept_local;
	} else if (k->family == FC_AF_INET6 && k->v6.src[0] == 0xfe &&
		   (k->v6.src[1] & 0xc0) == 0x80) {
		/* Link-local: asked on the input port, where fe80::/64 is on-link. */
		ok = true;
	} else {
		port = eng->p.route_fn(eng->p.cb_arg, k->family, fc_key_src(k));
		ok = loose || port == RULE_PORT_PAIRED || port == p->in_port;
	}
	return ok != invert;
}

void
eng_port_note(struct rule_engine *eng, uint16_t port)
{
	for (uint32_t i = 0; i < eng->n_ports; i++)
		if (eng->ports[i] == port)
			return;
	if (eng->n_ports == ENG_PORTS_MAX) {
		/* Its entries stay exact-match only: a flow per port, no more. */
		ENG_LOG(DEBUG, "%s: port %u not listed (%u ports already)", eng->name, port,
			ENG_PORTS_MAX);
		return;
	}
	eng->ports[eng->n_ports++] = port;
}

/* Live entry @p idx of table @p ti and its peer make a connection (cached drops never do). */
static bool
is_conn(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	const struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);
	uint32_t peer;

	if (e == NULL || (e->act.mod[0] & ENG_M0_NEWDROP))
		return false;
	peer = eng_peer(eng, ti, idx);
	return peer != FC_INDEX_NONE && eng_peer(eng, ti, peer) == idx;
}

/*
 * The entries of @p k's tuple on the listed ports other than @p k's own:
 * one bulk lookup of the key with each of those ports.
 */
void
eng_tuple_find(const struct rule_engine *eng, unsigned int ti, const struct fc_key *k,
	struct eng_tuple *out)
{
	const struct fc_table *t = eng->t[ti];
	uint16_t own = fc_key_in_port(k);
	/* Raw keys (only the table's key size is copied), the port written in place. */
	uint8_t cand[ENG_PORTS_MAX][sizeof(struct fc_key_v6)];
	const size_t ks = fc_table_key_size(t);
	const size_t po = k->family == FC_AF_INET4 ? offsetof(struct fc_key_v4, in_port) :
						     offsetof(struct fc_key_v6, in_port);
	const void *keys[ENG_PORTS_MAX];
	uint16_t ports[ENG_PORTS_MAX];
	uint32_t sigs[ENG_PORTS_MAX];
	int32_t idx[ENG_PORTS_MAX];
	unsigned int n = 0;

	out->n = 0;
	for (uint32_t i = 0; i < eng->n_ports; i++) {
		uint16_t port = eng->ports[i];

		if (port == own)
			continue;
		memcpy(cand[n], fc_key_raw(k), ks);
		memcpy(cand[n] + po, &port, sizeof(port));
		keys[n] = cand[n];
		ports[n++] = port;
	}
	if (n == 0)
		return;
	fc_table_hash_bulk(t, keys, sigs, n);
	if (fc_table_find_bulk(t, keys, sigs, n, idx) == 0)
		return;
	for (unsigned int i = 0; i < n; i++) {
		if (idx[i] < 0)
			continue;
		out->idx[out->n] = (uint32_t)idx[i];
		out->port[out->n++] = ports[i];
	}
}

int
rule_engine_flow_lookup_any(const struct rule_engine *eng, const struct fc_key *k,
	struct rule_flow_info *info)
{
	struct eng_tuple o;
	int ti, rc;

	rc = rule_engine_flow_lookup(eng, k, info);
	if (rc != -ENOENT)
		return rc;
	ti = eng_tbl(k->family);
	if (ti < 0 || eng->t[ti] == NULL)
		return -ENOENT;
	eng_tuple_find(eng, (unsigned int)ti, k, &o);
	if (o.n == 0)
		return -ENOENT;
	return info != NULL ? rule_engine_flow_get(eng, k->family, o.idx[0], info) : 0;
}

/*
 * A new connection's claim on its tuples: the reply tuple held by any
 * entry on another port (a cached drop aside) is a clash (-EEXIST, nothing
 * changed); otherwise cached drops of either tuple on other ports go (the
 * connection decides those packets now, as it would with one port). The
 * exact reply key is the insert's to check; @p fwd is what
 * eng_tuple_find() found of the forward key.
 */
int
eng_conn_claim(struct rule_engine *eng, unsigned int ti, const struct eng_tuple *fwd,
	const struct fc_key *reply)
{
	const struct eng_tuple *both[2] = {NULL, fwd};
	struct eng_tuple rep;

	eng_tuple_find(eng, ti, reply, &rep);
	both[0] = &rep;
	for (uint32_t i = 0; i < rep.n; i++) {
		const struct fc_entry *e = fc_table_entry(eng->t[ti], rep.idx[i]);

		if (e != NULL && !(e->act.mod[0] & ENG_M0_NEWDROP))
			return -EEXIST;
	}
	for (unsigned int b = 0; b < 2; b++) {
		for (uint32_t i = 0; i < both[b]->n; i++) {
			const struct fc_entry *e = fc_table_entry(eng->t[ti], both[b]->idx[i]);

			if (e != NULL && (e->act.mod[0] & ENG_M0_NEWDROP))
				eng_flow_delete(eng, ti, both[b]->idx[i]);
		}
	}
	return 0;
}

/* Tell the modules that entry @p old_idx is @p idx now. */
static void
moved(struct rule_engine *eng, const struct fc_key *old_key, const struct fc_key *key,
	uint32_t old_idx, uint32_t idx)
{
	struct rule_flow_moved mv;

	mv.old_key = *old_key;
	mv.key = *key;
	mv.old_idx = old_idx;
	mv.idx = idx;
	for (unsigned int i = 0; i < eng->n_mods; i++)
		if (eng->mods[i].m.on_move != NULL)
			eng->mods[i].m.on_move(eng->mods[i].m.priv, &mv);
}

/*
 * Move live entry @p idx to input port @p port (a cached drop holding the
 * new key goes first; @p absent: the caller just found no entry has it);
 * the peer is relinked, the modules told.
 * @return the new index, or -errno (-EEXIST: another flow holds the key;
 *   -ENOSPC: no free slot; nothing changed).
 */
int
eng_entry_move(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint16_t port, bool absent)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx), *pe;
	const void *raw = fc_table_key(t, idx);
	struct fc_key ok, nk;
	uint32_t peer, sig;
	int old, nidx;

	if (e == NULL || raw == NULL)
		return -ENOENT;
	memset(&ok, 0, sizeof(ok));
	ok.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&ok.v4, raw, fc_table_key_size(t));
	if (fc_key_in_port(&ok) == port)
		return (int)idx;
	nk = ok;
	fc_key_set_in_port(&nk, port);
	sig = fc_table_hash(t, fc_key_raw(&nk));
	old = absent ? -ENOENT : fc_table_lookup(t, fc_key_raw(&nk), sig);
	if (old >= 0) {
		const struct fc_entry *oe = fc_table_entry(t, (uint32_t)old);

		if (oe == NULL || !(oe->act.mod[0] & ENG_M0_NEWDROP))
			return -EEXIST;
		eng_flow_delete(eng, ti, (uint32_t)old);
	}
	peer = eng_peer(eng, ti, idx);
	nidx = fc_table_move(t, idx, fc_key_raw(&nk), sig);
	if (nidx < 0)
		return nidx;
	/* The counters moved with the entry (its rule's count is unchanged); so do its marks. */
	eng_side_move(eng, ti, idx, (uint32_t)nidx);
	eng_ign_move(eng, ti, idx, (uint32_t)nidx);
	/* And its per-flow channel (a reader of the new slot before this upcalls). */
	eng_flow_chan_set(eng, ti, (uint32_t)nidx, eng_flow_chan(eng, ti, idx));
	eng_flow_chan_set(eng, ti, idx, RULE_CHAN_NONE);
	eng_port_note(eng, port);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	if (pe != NULL && eng_peer(eng, ti, peer) == idx)
		eng_link(eng, ti, (uint32_t)nidx, peer);
	/* connbytes: the limits are per slot. */
	e = fc_table_entry(t, (uint32_t)nidx);
	if (e != NULL && (e->act.flags & FC_ACT_F_COUNT))
		eng_cb_arm(eng, ti, (uint32_t)nidx, NULL);
	moved(eng, &ok, &nk, idx, (uint32_t)nidx);
	return nidx;
}

/*
 * Where replies of connections from input port @p in, expected on @p want,
 * should be awaited: @p want, unless the last ENG_RHINT_TRUST (or more)
 * such connections' first replies all came on one other port (a capture
 * replayed on one port, a router whose replies come back another way):
 * then that port (the caller counts reply_guessed). A wrong guess costs what a wrong
 * expectation always cost: the first reply moves the entry
 * (eng_port_other()), which also ends the guessing until the run is
 * rebuilt.
 */
uint16_t
eng_reply_port(const struct rule_engine *eng, uint16_t in, uint16_t want)
{
	for (unsigned int i = 0; i < ENG_RHINT_MAX; i++) {
		const struct eng_rhint *h = &eng->rhint[i];

		if (h->run != 0 && h->in == in && h->want == want) {
			return h->run < ENG_RHINT_TRUST ? want : h->got;
		}
	}
	return want;
}

/*
 * The first reply of a connection from port @p in, expected on @p want,
 * came on @p got (its reply entry moved there): the run of such replies
 * on one port grows, or starts again on @p got. A new pair of ports takes
 * a free hint or the one with the shortest run.
 */
static void
rhint_note(struct rule_engine *eng, uint16_t in, uint16_t want, uint16_t got)
{
	struct eng_rhint *h = NULL;

	for (unsigned int i = 0; i < ENG_RHINT_MAX; i++) {
		struct eng_rhint *c = &eng->rhint[i];

		if (c->run != 0 && c->in == in && c->want == want) {
			h = c;
			break;
		}
		if (h == NULL || c->run < h->run)
			h = c;
	}
	if (h->run != 0 && h->in == in && h->want == want && h->got == got) {
		if (h->run != UINT16_MAX)
			h->run++;
		return;
	}
	h->in = in;
	h->want = want;
	h->got = got;
	h->run = 1;
}

/* The input port of live entry @p idx's key. */
static bool
entry_port(const struct rule_engine *eng, unsigned int ti, uint32_t idx, uint16_t *port)
{
	const void *raw = fc_table_key(eng->t[ti], idx);
	struct fc_key k;

	if (raw == NULL)
		return false;
	memset(&k, 0, sizeof(k));
	k.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&k.v4, raw, fc_table_key_size(eng->t[ti]));
	*port = fc_key_in_port(&k);
	return true;
}

/*
 * A packet whose key no entry has: is it a tracked connection's on another
 * port (@p others: eng_tuple_find() of its key)? Its first reply moves the
 * reply entry to the packet's port; any other is decided as the
 * connection's packet without an entry. When that removed the connection
 * (a reopen), @p others is found again for the new flow.
 * @return true when decided; false: a new flow.
 */
bool
eng_port_other(struct rule_engine *eng, unsigned int ti, const struct rule_upcall *up,
	struct eng_tuple *others, struct rule_decision *d, uint32_t now)
{
	const struct fc_key *k = &up->pkt.key;
	const struct fc_entry *e;
	struct fc_key ek;
	uint32_t i, idx;
	int nidx;

	for (i = 0; i < others->n; i++)
		if (is_conn(eng, ti, others->idx[i]))
			break;
	if (i == others->n)
		return false;
	idx = others->idx[i];
	e = fc_table_entry(eng->t[ti], idx);
	if ((e->act.flags & FC_ACT_F_REPLY) &&
		fc_table_packets(eng->t[ti], idx) == 0) {
		/* upcall_one() found no entry with the packet's key. */
		uint32_t peer = eng_peer(eng, ti, idx);
		const struct fc_entry *fe =
			peer != FC_INDEX_NONE ? fc_table_entry(eng->t[ti], peer) : NULL;
		uint16_t fport;

		if (fe != NULL && entry_port(eng, ti, peer, &fport))
			rhint_note(eng, fport, rule_engine_out_port(eng, fe->act.out_port, fport),
				fc_key_in_port(k));
		nidx = eng_entry_move(eng, ti, idx, fc_key_in_port(k), true);
		if (nidx >= 0) {
			eng->st.reply_moved++;
			if (eng_old_flow(eng, ti, (uint32_t)nidx, k, up, d, now, false))
				return true;
			eng_tuple_find(eng, ti, k, others);
			return false;
		}
	}
	eng->st.port_mismatch++;
	ek = *k;
	fc_key_set_in_port(&ek, others->port[i]);
	if (eng_old_flow(eng, ti, idx, &ek, up, d, now, true))
		return true;
	eng_tuple_find(eng, ti, k, others);
	return false;
}

/*
 * Forward entry @p idx changed its action from @p old to @p a: if its
 * output port now resolves to another port, a reply entry that has had no
 * packet yet moves to where the replies are now expected.
 */
void
eng_reply_follow(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *old, const struct fc_action *a)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e, *pe;
	const void *raw, *praw;
	struct fc_key k, pk;
	uint32_t peer;
	uint16_t want;

	if ((a->flags & FC_ACT_F_REPLY) || old->out_port == a->out_port)
		return;
	e = fc_table_entry(t, idx);
	raw = fc_table_key(t, idx);
	if (e == NULL || raw == NULL)
		return;
	peer = eng_peer(eng, ti, idx);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	praw = fc_table_key(t, peer);
	if (pe == NULL || praw == NULL || eng_peer(eng, ti, peer) != idx ||
		fc_table_packets(t, peer) != 0)
		return;
	memset(&k, 0, sizeof(k));
	k.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	pk = k;
	memcpy(&k.v4, raw, fc_table_key_size(t));
	memcpy(&pk.v4, praw, fc_table_key_size(t));
	want = rule_engine_out_port(eng, a->out_port, fc_key_in_port(&k));
	if (fc_key_in_port(&pk) != want && eng_entry_move(eng, ti, peer, want, false) < 0)
		ENG_LOG(DEBUG, "%s: reply entry %u stays on port %u", eng->name, peer,
			fc_key_in_port(&pk));
}
