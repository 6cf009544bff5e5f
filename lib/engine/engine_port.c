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
 * Port-agnostic lookups try the key with every port in the list: one hash
 * lookup per other port, on the slow path only (misses, new connections).
 * The list only grows (ports are few; an entry's port is noted when it is
 * inserted or moved).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

uint16_t
rule_engine_out_port(const struct rule_engine *eng, uint16_t out_port, uint16_t in_port)
{
	int pair;

	if (out_port == RULE_PORT_LOCAL)
		return in_port;
	if (out_port != RULE_PORT_PAIRED)
		return out_port;
	if (eng == NULL || eng->p.port_pair_fn == NULL)
		return in_port;
	pair = eng->p.port_pair_fn(eng->p.cb_arg, in_port);
	return pair >= 0 && pair <= UINT16_MAX ? (uint16_t)pair : in_port;
}

void
eng_port_note(struct rule_engine *eng, uint16_t port)
{
	uint16_t *p;
	uint32_t cap;

	for (uint32_t i = 0; i < eng->n_ports; i++)
		if (eng->ports[i] == port)
			return;
	if (eng->n_ports == eng->cap_ports) {
		cap = eng->cap_ports != 0 ? eng->cap_ports * 2 : 8;
		p = realloc(eng->ports, cap * sizeof(*p));
		if (p == NULL) {
			/* Its entries stay exact-match only: a flow per port, no more. */
			ENG_LOG(DEBUG, "%s: port %u not listed (no memory)", eng->name, port);
			return;
		}
		eng->ports = p;
		eng->cap_ports = cap;
	}
	eng->ports[eng->n_ports++] = port;
}

/* Live entry @p idx of table @p ti and its peer make a connection (cached drops never do). */
static bool
is_conn(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	const struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx), *pe;
	uint32_t peer;

	if (e == NULL || (e->act.mod[0] & ENG_M0_NEWDROP))
		return false;
	peer = eng_peer(eng, ti, idx, e);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	return pe != NULL && eng_peer(eng, ti, peer, pe) == idx;
}

/*
 * The next entry of @p k's tuple on a port other than @p k's own, from
 * port list position *@p pos on; @p cand receives its key.
 * @return its index, or -ENOENT when the list is done.
 */
static int
other_port_next(const struct rule_engine *eng, unsigned int ti, const struct fc_key *k,
	uint32_t *pos, struct fc_key *cand)
{
	const struct fc_table *t = eng->t[ti];
	uint16_t own = fc_key_in_port(k);

	*cand = *k;
	while (*pos < eng->n_ports) {
		uint16_t port = eng->ports[(*pos)++];
		int idx;

		if (port == own)
			continue;
		fc_key_set_in_port(cand, port);
		idx = fc_table_lookup(t, fc_key_raw(cand), fc_table_hash(t, fc_key_raw(cand)));
		if (idx >= 0)
			return idx;
	}
	return -ENOENT;
}

int
rule_engine_flow_lookup_any(const struct rule_engine *eng, const struct fc_key *k,
	struct rule_flow_info *info)
{
	struct fc_key cand;
	uint32_t pos = 0;
	int ti, idx, rc;

	rc = rule_engine_flow_lookup(eng, k, info);
	if (rc != -ENOENT)
		return rc;
	ti = eng_tbl(k->family);
	if (ti < 0 || eng->t[ti] == NULL)
		return -ENOENT;
	idx = other_port_next(eng, (unsigned int)ti, k, &pos, &cand);
	if (idx < 0)
		return -ENOENT;
	return info != NULL ? rule_engine_flow_get(eng, k->family, (uint32_t)idx, info) : 0;
}

/*
 * A new connection's claim on its tuples: the reply tuple held by any
 * entry on another port (a cached drop aside) is a clash (-EEXIST); cached
 * drops of either tuple on other ports go (the connection decides those
 * packets now, as it would with one port). The exact reply key is the
 * insert's to check.
 */
int
eng_conn_claim(struct rule_engine *eng, unsigned int ti, const struct fc_key *fwd,
	const struct fc_key *reply)
{
	const struct fc_key *keys[2] = {reply, fwd};
	struct fc_key cand;

	for (unsigned int i = 0; i < 2; i++) {
		uint32_t pos = 0;
		int idx;

		while ((idx = other_port_next(eng, ti, keys[i], &pos, &cand)) >= 0) {
			const struct fc_entry *e = fc_table_entry(eng->t[ti], (uint32_t)idx);

			if (e != NULL && (e->act.mod[0] & ENG_M0_NEWDROP))
				eng_flow_delete(eng, ti, (uint32_t)idx);
			else if (i == 0)
				return -EEXIST;
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
 * new key goes first); the peer is relinked, the modules told.
 * @return the new index, or -errno (-EEXIST: another flow holds the key;
 *   -ENOSPC: no free slot; nothing changed).
 */
int
eng_entry_move(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint16_t port)
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
	old = fc_table_lookup(t, fc_key_raw(&nk), sig);
	if (old >= 0) {
		const struct fc_entry *oe = fc_table_entry(t, (uint32_t)old);

		if (oe == NULL || !(oe->act.mod[0] & ENG_M0_NEWDROP))
			return -EEXIST;
		eng_flow_delete(eng, ti, (uint32_t)old);
	}
	peer = eng_peer(eng, ti, idx, e);
	nidx = fc_table_move(t, idx, fc_key_raw(&nk), sig);
	if (nidx < 0)
		return nidx;
	eng_port_note(eng, port);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	if (pe != NULL && eng_peer(eng, ti, peer, pe) == idx) {
		struct fc_action pa = pe->act;

		pa.peer = (uint32_t)nidx;
		fc_table_update(t, peer, &pa, pe->timeout);
	}
	moved(eng, &ok, &nk, idx, (uint32_t)nidx);
	return nidx;
}

/*
 * A packet whose key no entry has: is it a tracked connection's on another
 * port? Its first reply moves the reply entry to the packet's port; any
 * other is decided as the connection's packet without an entry.
 * @return true when decided; false: a new flow.
 */
bool
eng_port_other(struct rule_engine *eng, unsigned int ti, const struct rule_upcall *up,
	struct rule_decision *d, uint32_t now)
{
	const struct fc_key *k = &up->pkt.key;
	const struct fc_entry *e;
	struct fc_key ek;
	uint32_t pos = 0;
	int idx;

	if (eng->n_ports < 2 && (eng->n_ports == 0 || eng->ports[0] == fc_key_in_port(k)))
		return false;
	while ((idx = other_port_next(eng, ti, k, &pos, &ek)) >= 0)
		if (is_conn(eng, ti, (uint32_t)idx))
			break;
	if (idx < 0)
		return false;
	e = fc_table_entry(eng->t[ti], (uint32_t)idx);
	if ((e->act.flags & FC_ACT_F_REPLY) &&
		__atomic_load_n(&e->packets, __ATOMIC_RELAXED) == 0) {
		int nidx = eng_entry_move(eng, ti, (uint32_t)idx, fc_key_in_port(k));

		if (nidx >= 0) {
			eng->st.reply_moved++;
			return eng_old_flow(eng, ti, (uint32_t)nidx, k, up, d, now, false);
		}
	}
	eng->st.port_mismatch++;
	return eng_old_flow(eng, ti, (uint32_t)idx, &ek, up, d, now, true);
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
	peer = eng_peer(eng, ti, idx, e);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	praw = fc_table_key(t, peer);
	if (pe == NULL || praw == NULL || eng_peer(eng, ti, peer, pe) != idx ||
		__atomic_load_n(&pe->packets, __ATOMIC_RELAXED) != 0)
		return;
	memset(&k, 0, sizeof(k));
	k.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	pk = k;
	memcpy(&k.v4, raw, fc_table_key_size(t));
	memcpy(&pk.v4, praw, fc_table_key_size(t));
	want = rule_engine_out_port(eng, a->out_port, fc_key_in_port(&k));
	if (fc_key_in_port(&pk) != want && eng_entry_move(eng, ti, peer, want) < 0)
		ENG_LOG(DEBUG, "%s: reply entry %u stays on port %u", eng->name, peer,
			fc_key_in_port(&pk));
}
