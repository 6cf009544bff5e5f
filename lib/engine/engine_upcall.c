/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the rules engine's upcall processing — one decision per
 * packet the RX lcores could not decide. Each key is looked up again (an
 * earlier packet may have created the flow); a new flow goes through the
 * modules' on_insert and gets its entries; a cached one that hit an
 * interest bit or was stale goes through on_packet / revalidation.
 * Non-first fragments (no ports: never cached, never tracked) and packets
 * of a family without a table skip the lookup; they, and whatever a module
 * marks nocache (conntrack: INVALID packets and ICMP errors), go through
 * the same modules and are decided without an entry.
 *
 * Insert clash: a new flow whose reply key is already another flow's entry
 * on any input port (e.g. a client talking to a DNAT'd server's real
 * address while a translated connection holds that tuple as its reply)
 * cannot get a connection of its own. Linux drops such a packet
 * (nf_conntrack insert clash); so does the engine, as RULE_DROP_CT_CLASH,
 * rather than serving the flow uncached through the slow path for ever.
 *
 * Input ports: a key no entry has may still be a tracked connection's on
 * another port (engine_port.c: the reply entry moves there, or the packet
 * is decided as the connection's without an entry); a new connection's
 * reply key gets the port its replies are expected on.
 *
 * Caching choices: a NEW (or untracked) flow the filter drops is cached as
 * DROP (no reply entry, no connection) so later packets die on the fast
 * path; a revalidation deletes such an entry rather than refiltering it,
 * since its NAT and conntrack decisions were never made. Entries are
 * touched (fc_table_touch()) for the packets decided here, so that their
 * counters and idle time include them; a hit on the same flow on an RX
 * lcore at the same instant may lose one count (plain stores).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "engine_priv.h"

static void
dec_from_act(struct rule_decision *d, const struct fc_action *a, unsigned int ctstate)
{
	d->rule_id = a->rule_id;
	d->nat_slot = (a->flags & FC_ACT_F_NAT) ? a->nat_id : RULE_NAT_NONE;
	d->channel = a->channel;
	d->out_port = a->out_port;
	d->adj = a->adj;
	d->verdict = a->verdict == FC_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	d->drop = d->verdict == FC_VERDICT_ACCEPT ? RULE_DROP_NONE : rule_engine_drop_of(a);
	d->ctstate = (uint8_t)ctstate;
	d->flags = RULE_DEC_F_CACHED;
	d->reject = RULE_REJECT_NONE;
	d->pkt_prog = 0;
	d->pkt_list = 0;
}

/*
 * A packet decided from an entry's string predicate @p pred: the outcome
 * its bytes give (the verdict, rule and program); with @p counted (the
 * entry counts it) an outcome but 0 counts on the predicate too.
 */
static void
dec_pred(struct rule_engine *eng, struct rule_decision *d, uint16_t pred,
	const struct rule_upcall *up, const struct fc_action *a, bool counted)
{
	const struct rule_pred_leaf *lf;
	const uint8_t *l3 = NULL, *v = NULL;
	unsigned int leaf;
	uint32_t cap = 0, vlen = 0;

	if (up->frame != NULL && up->pkt.l3_off < up->frame_len) {
		l3 = up->frame + up->pkt.l3_off;
		cap = up->frame_len - up->pkt.l3_off;
		if (up->pkt.ip_len != 0 && up->pkt.ip_len < cap)
			cap = up->pkt.ip_len;
	}
	/* Its nodes of the later hooks read the header as Linux has it there. */
	if (l3 != NULL && eng->view.preds[pred - 1].views) {
		struct fc_key fk;

		eng_filter_key(eng, &up->pkt.key, a, &fk);
		v = eng_l3_view(eng, up, &up->pkt.key, &fk, &vlen);
	}
	if (v == NULL) {
		v = l3;
		vlen = cap;
	}
	lf = rule_engine_pred_leaf(eng, pred, l3, cap, v, vlen, &leaf);
	d->pkt_prog = lf->prog;
	d->pkt_list = 0;
	d->rule_id = lf->rule;
	d->verdict = lf->verdict;
	d->drop = lf->verdict == FC_VERDICT_ACCEPT ? RULE_DROP_NONE : RULE_DROP_FILTER;
	if (lf->verdict != FC_VERDICT_ACCEPT)
		d->nat_slot = RULE_NAT_NONE;
	if (counted && leaf != 0)
		rule_engine_pred_count(eng, pred, leaf, up->len);
}

/*
 * A packet decided from entry action @p a on the slow path: its program
 * runs as on the fast path (a meter takes a token and picks the list, a
 * string predicate searches packet @p up's bytes, and with the program's
 * flip the verdict). A predicate's list also names the deciding rule, as
 * does an exceeded meter's; where the entry counts the packet (@p counted)
 * the predicate or program counts it apart for that rule.
 */
static void
dec_prog(struct rule_engine *eng, struct rule_decision *d, const struct fc_action *a,
	const struct rule_upcall *up, bool counted)
{
	const struct rule_pktprog *p;
	unsigned int list;
	uint8_t v;

	if (!(a->flags & FC_ACT_F_PKTACT) || a->verdict == FC_VERDICT_SLOW)
		return;
	p = rule_engine_pktprog(eng, a->pkt_class);
	if (p->pred != 0) {
		dec_pred(eng, d, p->pred, up, a, counted);
		return;
	}
	v = rule_engine_pktprog_ask(eng, a, p, 0, up->pkt.ip_len, &list);
	d->pkt_prog = a->pkt_class;
	d->pkt_list = (uint8_t)list;
	/* A packet the meter turned: the exceeded walk's rule and trace count it. */
	if (list != 0 && counted)
		rule_engine_prog_turned(eng, a->pkt_class, up->len);
	else if (list != 0 && p->rule[1] != RULE_ID_NONE)
		d->rule_id = p->rule[1];
	if (v == d->verdict || !p->flip)
		return;
	d->verdict = v;
	d->drop = v == FC_VERDICT_ACCEPT ? RULE_DROP_NONE : RULE_DROP_FILTER;
	if (v != FC_VERDICT_ACCEPT)
		d->nat_slot = RULE_NAT_NONE;
}

/* The channel of live entry @p idx's accepted packets (its per-flow channel, if any). */
static uint32_t
dec_channel(const struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_action *a)
{
	uint32_t c = rule_engine_channel(eng, a, ti, idx);

	return c != RULE_CHAN_NONE ? c : a->channel;
}

static void
dec_drop(struct rule_decision *d, unsigned int reason)
{
	memset(d, 0, sizeof(*d));
	d->rule_id = RULE_ID_NONE;
	d->nat_slot = RULE_NAT_NONE;
	d->out_port = RULE_PORT_PAIRED;
	d->verdict = FC_VERDICT_DROP;
	d->drop = (uint8_t)reason;
}

/* A packet decided without an entry: count it on its rule. */
static void
uncached(struct rule_engine *eng, const struct rule_upcall *up, struct rule_decision *d)
{
	d->flags &= (uint8_t)~RULE_DEC_F_CACHED;
	eng->st.uncached++;
	eng_rule_count(eng, d->rule_id, 1, up->len);
}

static void
flow_init(struct rule_engine *eng, struct eng_flow *ef, const struct rule_upcall *up)
{
	struct rule_flow *f = &ef->f;

	/* The stages' context and results are valid per ef->stages: not cleared. */
	memset(ef, 0, offsetof(struct eng_flow, pkt));
	f->eng = eng;
	f->up = up;
	f->key = up->pkt.key;
	f->xkey = f->key;
	fc_key_reverse(&f->key, &f->reply_key);
	for (unsigned int d = 0; d < 2; d++) {
		f->act[d].gen = eng->gen;
		f->act[d].rule_id = RULE_ID_NONE;
		f->act[d].channel = eng->p.default_channel;
		f->act[d].out_port = RULE_PORT_PAIRED;
		f->act[d].verdict = FC_VERDICT_ACCEPT;
		f->act[d].flags = d == RULE_DIR_REPLY ? FC_ACT_F_REPLY : 0;
		f->idx[d] = FC_INDEX_NONE;
	}
	f->timeout = eng->p.untracked_timeout;
	f->kflags = up->pkt.frag == FC_FRAG_LATER ? RULE_KEY_F_NOPORTS : 0;
	ef->chan_flow = -1;
	ef->ctmark = 0;
	ef->mark[0] = ef->mark[1] = 0;
	eng_pv_init(&ef->pv, eng, ENG_PV_TAKE);
}

/*
 * Run every module's on_insert until one drops the flow; the interest asked
 * by modules without RULE_MOD_F_OWN_INTEREST is kept apart (ef->kept, then
 * the entries' mod[1..2], eng_set_extra_interest()).
 */
static void
run_inserts(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	uint16_t *kept = ef->kept;

	for (unsigned int i = 0; i < eng->n_mods && f->drop == RULE_DROP_NONE; i++) {
		const struct rule_module *m = &eng->mods[i].m;
		uint16_t save[2] = {f->act[0].interest, f->act[1].interest};

		if (m->on_insert == NULL)
			continue;
		ef->n_ran = i + 1;
		f->act[0].interest = 0;
		f->act[1].interest = 0;
		if (m->on_insert(m->priv, f) < 0)
			f->drop = RULE_DROP_ERROR;
		for (unsigned int d = 0; d < 2; d++) {
			if (!(m->flags & RULE_MOD_F_OWN_INTEREST))
				kept[d] |= f->act[d].interest;
			f->act[d].interest |= save[d];
		}
	}
}

/* Insert with one retry when a new flow's cached drop holds the key. */
static int
insert_entry(struct rule_engine *eng, unsigned int ti, const struct fc_key *k,
	const struct fc_action *a, uint32_t timeout, uint32_t now)
{
	struct fc_table *t = eng->t[ti];
	uint32_t sig = fc_table_hash(t, &k->v4);
	int rc = fc_table_insert(t, &k->v4, sig, a, timeout, now);

	if (rc == -EEXIST) {
		int old = fc_table_lookup(t, &k->v4, sig);
		const struct fc_entry *e = old >= 0 ? fc_table_entry(t, (uint32_t)old) : NULL;

		if (e == NULL || !(e->act.mod[0] & ENG_M0_NEWDROP))
			return -EEXIST;
		eng_flow_delete(eng, ti, (uint32_t)old);
		rc = fc_table_insert(t, &k->v4, sig, a, timeout, now);
	}
	if (rc >= 0) {
		/* A new entry counts from 0 for its rule; its marks come after. */
		eng_side_drop(eng, ti, (uint32_t)rc);
		eng_ign_reset(eng, ti, (uint32_t)rc);
		if (unlikely(a->interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP)))
			(void)eng_ign_ready(eng, ti);
		eng_port_note(eng, fc_key_in_port(k));
	}
	return rc;
}

static void
insert_failed(struct rule_engine *eng, struct eng_flow *ef, int rc, const struct rule_upcall *up,
	struct rule_decision *d)
{
	eng_abort(eng, ef);
	/* Its walk's non-deciding rules count it, as its rule does. */
	eng_trace_count(eng, ef->trace[0], 1, up->len);
	if (rc == -EEXIST && ef->f.want_reply && d->verdict == FC_VERDICT_ACCEPT) {
		/* Insert clash: the tuple belongs to another connection. */
		uint32_t rule = d->rule_id;
		uint16_t prog = d->pkt_prog;

		dec_drop(d, RULE_DROP_CT_CLASH);
		d->rule_id = rule;
		d->pkt_prog = prog; /* its walk's actions ran (conntrack's clash comes after) */
		d->ctstate = ef->f.ctstate;
		uncached(eng, up, d);
		return;
	}
	d->nat_slot = RULE_NAT_NONE;
	d->channel = ef->f.act[0].channel;
	if (rc == -ENOSPC)
		eng->st.table_full++;
	uncached(eng, up, d);
}

/*
 * A flow a module dropped before the filter stage walked it (nat_dst: a
 * NAT failure at nat PREROUTING or OUTPUT): as Linux's packet, it passed
 * the stages walked so far, through the first that dropped it, and none
 * after. Their rules and chain policies count it (the nat table's
 * counted as it was walked, nat_count()), their actions run.
 */
static void
walk_cut(struct rule_engine *eng, struct eng_flow *ef)
{
	unsigned int n = 0;
	int prog;

	while (n < RULE_STAGE__COUNT && (ef->stages & (1u << n))) {
		n++;
		if (ef->ev[n - 1].verdict != RULE_VERDICT_ACCEPT)
			break;
	}
	ef->trace[0] = eng_trace_of_stages(eng, ef->ev, n, ef->f.key.family);
	prog = n != 0 ? eng_prog_of_walk(eng, ef->ev, n) : 0;
	ef->prog_first = (uint16_t)(prog > 0 ? prog : 0);
}

/*
 * A packet no entry knows: the modules decide it; it gets its entries, or
 * none (@p nocache: a non-first fragment or a family without a table; or
 * a module said so).
 */
static void
new_flow(struct rule_engine *eng, int ti, const struct rule_upcall *up, bool nocache,
	const struct eng_tuple *others, struct rule_decision *d, uint32_t now)
{
	struct fc_table *t = ti >= 0 ? eng->t[ti] : NULL;
	struct eng_flow ef;
	struct rule_flow *f = &ef.f;
	struct fc_action a0, a1;
	int idx, ridx = -1;

	flow_init(eng, &ef, up);
	f->nocache = nocache;
	/* An IPv6 martian dies on reception, before any hook (IPv4's: filter_on_insert()). */
	if (rule_engine_martian(&f->key, false)) {
		f->act[0].verdict = FC_VERDICT_DROP;
		f->drop = RULE_DROP_MARTIAN;
	}
	run_inserts(eng, &ef);
	if (f->drop != RULE_DROP_NONE) {
		if (!ef.walked)
			walk_cut(eng, &ef);
		/* A martian's PREROUTING actions may flip with a meter: not cached then. */
		bool cache = (f->drop == RULE_DROP_FILTER ||
				     (f->drop == RULE_DROP_MARTIAN &&
					     (ef.prog_first == 0 ||
						     !rule_engine_pktprog(eng, ef.prog_first)->flip))) &&
			     !f->nocache &&
			     (f->ctstate == RULE_CT_NEW || f->ctstate == 0 ||
			      f->ctstate == RULE_CT_UNTRACKED);
		bool xdst = f->xdst;

		eng_abort(eng, &ef);
		dec_drop(d, f->drop);
		d->pkt_prog = ef.prog_first;
		d->reject = f->reject;
		d->rule_id = f->act[0].rule_id;
		d->ctstate = f->ctstate;
		if (!cache) {
			eng_trace_count(eng, ef.trace[0], 1, up->len);
			uncached(eng, up, d);
			return;
		}
		a0 = f->act[0];
		a0.verdict = FC_VERDICT_DROP;
		a0.ct_state = 0;
		a0.interest = 0;
		a0.flags &= FC_ACT_F_PKTACT; /* its packets still run the walk's actions */
		/* Never established: a full table evicts it before established flows. */
		a0.flags |= FC_ACT_F_EARLY;
		/* The expectations it was decided under (rule_engine_drop_expected()). */
		a0.nat_id = eng->view.exp_epoch;
		a0.adj = 0; /* a drop never leaves: no adjacency (on_abort gave it back) */
		memset(a0.mod, 0, sizeof(a0.mod));
		a0.mod[0] = ENG_M0_NEWDROP | (xdst ? ENG_M0_FK_UNKNOWN : 0);
		a0.mod[1] = f->drop == RULE_DROP_FILTER ? 0 : (uint8_t)f->drop;
		idx = insert_entry(eng, (unsigned int)ti, &f->key, &a0, eng->p.untracked_timeout,
			now);
		if (idx < 0) {
			insert_failed(eng, &ef, idx, up, d);
			return;
		}
		eng->st.cached_drops++;
		eng_trace_switch(eng, (unsigned int)ti, (uint32_t)idx, ef.trace[0]);
		d->flags = RULE_DEC_F_CACHED;
		fc_table_touch(t, (uint32_t)idx, up->len, now);
		return;
	}
	dec_from_act(d, &f->act[0], f->ctstate);
	d->pkt_prog = ef.prog_first;
	/* An entry decided per packet (FC_VERDICT_SLOW): this packet was accepted. */
	d->verdict = FC_VERDICT_ACCEPT;
	d->drop = RULE_DROP_NONE;
	if (f->nocache) {
		/*
		 * Only a connection's rewrite slot outlives the flow (an ICMP
		 * error's, RULE_DEC_F_ICMP_ERR); one the flow made is released.
		 */
		eng_abort(eng, &ef);
		d->channel = f->act[0].channel;
		d->flags |= f->dec_flags;
		if (!(d->flags & RULE_DEC_F_ICMP_ERR))
			d->nat_slot = RULE_NAT_NONE;
		eng_trace_count(eng, ef.trace[0], 1, up->len);
		uncached(eng, up, d);
		return;
	}
	/* Marks are side records: room for both entries' before either goes in. */
	if ((ef.ctmark != 0 || ef.mark[0] != 0 || ef.mark[1] != 0 || ef.trace[0] != 0 ||
		    ef.trace[1] != 0) &&
		eng_side_reserve(eng, (unsigned int)ti, 2) < 0) {
		insert_failed(eng, &ef, -ENOMEM, up, d);
		return;
	}
	a0 = f->act[0];
	a1 = f->act[1];
	eng_set_extra_interest(&a0, ef.kept[RULE_DIR_ORIG]);
	eng_set_extra_interest(&a1, ef.kept[RULE_DIR_REPLY]);
	if (!f->want_reply) {
		idx = insert_entry(eng, (unsigned int)ti, &f->key, &a0, f->timeout, now);
		if (idx < 0) {
			insert_failed(eng, &ef, idx, up, d);
			return;
		}
	} else {
		/* Replies arrive on the port the forward flow leaves by, or where
		 * earlier connections' first replies came instead; never on the
		 * forward key itself (a tuple that is its own reverse). */
		uint16_t in = fc_key_in_port(&f->key);
		uint16_t want = rule_engine_out_port(eng, a0.out_port, in);
		uint16_t port = eng_reply_port(eng, in, want);

		fc_key_set_in_port(&f->reply_key, port);
		if (port != want && memcmp(fc_key_raw(&f->reply_key), fc_key_raw(&f->key),
					    fc_table_key_size(t)) == 0) {
			port = want;
			fc_key_set_in_port(&f->reply_key, want);
		}
		if (eng_conn_claim(eng, (unsigned int)ti, others, &f->reply_key) < 0) {
			insert_failed(eng, &ef, -EEXIST, up, d);
			return;
		}
		ridx = insert_entry(eng, (unsigned int)ti, &f->reply_key, &a1, f->timeout, now);
		if (ridx < 0) {
			insert_failed(eng, &ef, ridx, up, d);
			return;
		}
		idx = insert_entry(eng, (unsigned int)ti, &f->key, &a0, f->timeout, now);
		if (idx < 0) {
			fc_table_delete(t, (uint32_t)ridx);
			insert_failed(eng, &ef, idx, up, d);
			return;
		}
		eng_link(eng, (unsigned int)ti, (uint32_t)idx, (uint32_t)ridx);
		/* Reserved above (deletions since only shrink to a table with room). */
		(void)eng_side_marks_set(eng, (unsigned int)ti, (uint32_t)ridx, ef.mark[1],
			ef.ctmark);
		eng_trace_switch(eng, (unsigned int)ti, (uint32_t)ridx, ef.trace[1]);
		eng_flow_chan_publish(eng, (unsigned int)ti, &ef, &a1, (uint32_t)ridx);
		eng->st.replies++;
		if (port != want)
			eng->st.reply_guessed++;
	}
	(void)eng_side_marks_set(eng, (unsigned int)ti, (uint32_t)idx, ef.mark[0], ef.ctmark);
	eng_trace_switch(eng, (unsigned int)ti, (uint32_t)idx, ef.trace[0]);
	eng_flow_chan_publish(eng, (unsigned int)ti, &ef, &a0, (uint32_t)idx);
	if (ef.chan_flow >= 0 && (a0.mod[0] & ENG_M0_CHAN_FLOW))
		d->channel = (uint32_t)ef.chan_flow;
	eng->st.flows++;
	/* connbytes: the entries' limits, this packet counted. */
	if ((a0.flags | a1.flags) & FC_ACT_F_COUNT)
		eng_cb_arm(eng, (unsigned int)ti, (uint32_t)idx, up);
	fc_table_touch(t, (uint32_t)idx, up->len, now);
	/* Its first reply left to the fast path (counted as `new` above). */
	if (f->synack && ridx >= 0)
		eng_synack_ahead(eng, (unsigned int)ti, &ef, (uint32_t)idx, (uint32_t)ridx, &a0, &a1);
	/* A string predicate's entry: the first packet's outcome counts on the predicate. */
	if (ef.first_leaf != 0)
		rule_engine_pred_count(eng, ef.first_pred, ef.first_leaf, up->len);
	/* A metered entry's: the first packet, turned, counts on the program too. */
	if (ef.first_turned != 0)
		rule_engine_prog_turned(eng, ef.first_turned, up->len);
}

/* The key of live entry @idx. */
static bool
entry_key(const struct rule_engine *eng, unsigned int ti, uint32_t idx, struct fc_key *k)
{
	const void *raw = fc_table_key(eng->t[ti], idx);

	if (raw == NULL)
		return false;
	memset(k, 0, sizeof(*k));
	k->family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&k->v4, raw, fc_table_key_size(eng->t[ti]));
	return true;
}

/*
 * Would refiltering direction @p d of @p f give its entry's action back as
 * it is? A cached entry's walk reads its key, its ctstate, the
 * connection's mark and, with the set, its ports: with none of these moved
 * since it was made (@p cs0 and @p cm0: the ctstate and mark before this
 * packet), it would take the same path through the same rules and come to
 * the same verdict, deciding rule, actions, marks, trace and channel. A
 * per-packet or metered entry, a stale one, one whose set is not
 * classified whole by the classifier (changes in the overlay) and every
 * entry of a set that reads ports (a reply entry may just have moved to
 * the port its first reply came on) are refiltered.
 */
static bool
refilter_same(const struct rule_engine *eng, unsigned int ti, const struct rule_flow *f,
	unsigned int d, unsigned int cs0, uint32_t cm0, unsigned int cs)
{
	const struct fc_action *a = &f->act[d];

	if (a->gen != eng->gen || eng->cls == NULL || eng->cls_gen != eng->gen ||
		rule_cls_reads_ports(eng->cls))
		return false;
	if (a->verdict == FC_VERDICT_SLOW || (a->flags & FC_ACT_F_PKTACT) ||
		(a->mod[0] & ENG_M0_NEWDROP))
		return false;
	return cs == cs0 && eng_side_ctmark(eng, ti, f->idx[d]) == cm0;
}

/*
 * Modules' on_packet for a packet of a cached flow (entry @p idx, key
 * @p ek); stores what changed. When a module asks for both entries to be
 * refiltered (a ctstate changed), those whose walk would come out the same
 * (refilter_same()) keep their action: on a connection's first reply
 * that is the reply entry, whose ctstate stays `established`. @p ecs
 * receives the entry's ctstate after them (eng_entry_ctstate() of @p a);
 * @p renew false when a module asked that the packet renew no idle time;
 * a module's drop of the packet (-EPERM): @p drop, @p reject its ICMP error.
 */
static int
run_packet(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *ek,
	const struct rule_upcall *up, struct fc_action *a, unsigned int *ctstate,
	unsigned int *ecs, unsigned int *drop, uint8_t *reject, bool *renew)
{
	struct fc_table *t = eng->t[ti];
	struct eng_flow ef;
	struct rule_flow *f = &ef.f;
	unsigned int dir = (a->flags & FC_ACT_F_REPLY) ? RULE_DIR_REPLY : RULE_DIR_ORIG;
	const struct fc_entry *pe;
	struct fc_key pk;
	unsigned int cs0[2] = {0, 0};
	uint32_t cm0[2] = {0, 0};
	uint32_t peer;
	unsigned int ahead = 0;

	flow_init(eng, &ef, up);
	f->dir = (uint8_t)dir;
	f->act[dir] = *a;
	f->idx[dir] = idx;
	f->act[dir ^ 1] = *a;
	f->act[dir ^ 1].flags ^= FC_ACT_F_REPLY;
	peer = eng_peer(eng, ti, idx);
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	if (pe != NULL && eng_peer(eng, ti, peer) == idx) {
		f->act[dir ^ 1] = pe->act;
		f->idx[dir ^ 1] = peer;
	}
	f->timeout = eng_timeout(eng, ti, idx);
	f->ctstate = (uint8_t)*ctstate;
	for (unsigned int d = 0; d < 2; d++) {
		f->interest_kept[d] = eng_extra_interest(&f->act[d]);
		if (f->idx[d] == FC_INDEX_NONE)
			continue;
		/* What its walk read, before the modules move the connection. */
		cs0[d] = eng_entry_ctstate(eng, &f->act[d]);
		cm0[d] = eng_side_ctmark(eng, ti, f->idx[d]);
	}
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->on_packet != NULL && m->on_packet(m->priv, f) < 0)
			return -EINVAL;
	}
	/* Accepted and ignored (no renewal, yet not invalid): as Linux's
	 * accounting, the connection's counters leave it out, the walks of
	 * this packet included (connbytes). */
	if (f->no_renew && !(f->ctstate & RULE_CT_INVALID))
		eng->cb_pend.ignored = true;
	if (f->remove) {
		eng_flow_delete(eng, ti, idx);
		/* Decided ahead of its record: the packet is decided alone, as it is. */
		if (a->flags & FC_ACT_F_AHEAD)
			*ctstate = f->ctstate;
		return f->reopen ? -EAGAIN : -ENOENT;
	}
	/* Decided ahead of its record for the first reply, which came: as any other now. */
	for (unsigned int d = 0; d < 2; d++)
		if (f->idx[d] != FC_INDEX_NONE && unlikely(f->act[d].flags & FC_ACT_F_AHEAD) &&
			eng_conn_ctstate(eng, &f->act[d]) != RULE_CT_NEW) {
			f->act[d].flags &= (uint8_t)~FC_ACT_F_AHEAD;
			ahead |= 1u << d;
		}

	for (unsigned int d = 0; d < 2; d++) {
		/* A refilter keeps the entry's connection: its ctstate is known here. */
		unsigned int cs = f->refilter && f->idx[d] != FC_INDEX_NONE ?
			eng_entry_ctstate(eng, &f->act[d]) : 0;

		if (f->idx[d] == FC_INDEX_NONE)
			continue;
		if (d == dir && f->refilter)
			*ecs = cs;
		if (f->refilter && refilter_same(eng, ti, f, d, cs0[d], cm0[d], cs)) {
			eng->st.refilter_kept++;
		} else if (f->refilter) {
			const struct fc_key *k = ek;

			if (d != dir) {
				if (!entry_key(eng, ti, f->idx[d], &pk))
					continue;
				k = &pk;
			}
			if (eng_refilter(eng, ti, f->idx[d], k, &f->act[d]) < 0)
				f->act[d].verdict = FC_VERDICT_SLOW;
		}
		if (f->refilter || f->store || ((ahead >> d) & 1))
			eng_entry_set(eng, ti, f->idx[d], &f->act[d], f->timeout);
	}
	*a = f->act[dir];
	*ctstate = f->ctstate;
	*renew = !f->no_renew;
	if (!f->refilter)
		*ecs = eng_entry_ctstate(eng, a);
	/* A module dropped this packet (a helper's): the flow stays. */
	if (f->drop != RULE_DROP_NONE) {
		*drop = f->drop;
		*reject = f->reject;
		return -EPERM;
	}
	return 0;
}

/*
 * Seconds entry @p idx's connection has left (-m conntrack --ctexpire): as
 * in Linux, where conntrack refreshes the timer before the filter tables
 * see the packet, its whole idle timeout (for its state now), rounded up;
 * 0 without one.
 */
static uint32_t
ct_expire_s(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	uint32_t to = eng_timeout(eng, ti, idx);

	return to == 0 ? 0 : (to + 999) / 1000;
}

/*
 * A packet of a cached flow decided on its own (every stage, on its own key);
 * @p trace receives the trace of its walk (the rules it passed without
 * deciding: the caller counts them with the deciding rule).
 * @return false on an error (@p d says so).
 */
static bool
pkt_decide(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct rule_upcall *up,
	const struct fc_action *a, unsigned int cs, struct rule_decision *d, uint32_t *trace)
{
	struct rule_eval ev[RULE_STAGE__COUNT];
	struct eng_marks mk = {
		.ctmark = eng_side_ctmark(eng, ti, idx), .ct_expire = ct_expire_s(eng, ti, idx)};
	struct eng_pv pv;
	unsigned int i;
	uint32_t deps;
	struct fc_key fk;
	int prog;

	/* An invalid packet has no connection in Linux: the rules see it as it came. */
	if (cs == RULE_CT_INVALID)
		fk = up->pkt.key;
	else
		eng_filter_key(eng, &up->pkt.key, a, &fk);
	eng_conn_counts(eng, ti, idx, a, up, &mk);
	eng_pv_init(&pv, eng, ENG_PV_TAKE); /* a packet: its meters take tokens */
	if (eng_pkt_verdict(eng, up, &up->pkt.key, &fk, a, cs, ev, &i, &deps, &mk, &pv) < 0) {
		dec_drop(d, RULE_DROP_ERROR);
		return false;
	}
	/* A CONNMARK of this packet's walk is the connection's from now on. */
	eng_ctmark_store(eng, ti, idx, mk.ctmark);
	dec_from_act(d, a, cs);
	d->rule_id = eng_dec_id(&ev[i], up->pkt.key.family);
	d->channel = eng_channel_keep(eng, ti, idx, a, ev[RULE_STAGE_FILTER].channel);
	d->verdict = ev[i].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	d->drop = d->verdict == FC_VERDICT_ACCEPT ? RULE_DROP_NONE : RULE_DROP_FILTER;
	/*
	 * An invalid packet of a translated connection (a wrong SCTP tag, a
	 * TCP segment out of the window) that a rule accepts goes as it came:
	 * in Linux it has no connection, so no NAT either.
	 */
	if (d->verdict != FC_VERDICT_ACCEPT || cs == RULE_CT_INVALID)
		d->nat_slot = RULE_NAT_NONE;
	d->reject = d->verdict != FC_VERDICT_ACCEPT && ev[i].action == RULE_ACT_REJECT ?
		ev[i].reject : RULE_REJECT_NONE;
	d->flags = 0;
	/* This packet's own actions (its walk took the meters' tokens). */
	prog = eng_prog_of_walk(eng, ev, eng_walked(ev, i));
	d->pkt_prog = (uint16_t)(prog > 0 ? prog : 0);
	*trace = eng_trace_of_walk(eng, ev, i, up->pkt.key.family);
	return true;
}

/*
 * Router mode: does a forwarded flow's packet arrive with its TTL (hop
 * limit) expired? Its walk stops before FORWARD (rule_pkt_route_dec()),
 * so its entry's verdict is not its own: it is decided alone.
 */
static bool
fwd_expired(const struct rule_engine *eng, const struct fc_key *k, const struct fc_action *a,
	const struct rule_upcall *up)
{
	uint8_t ttl;

	return eng->router && a->out_port != RULE_PORT_LOCAL &&
	       !(fc_key_flags(k) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) &&
	       eng_up_ttl(up, &ttl) && ttl <= 1;
}

/* The upcalled packet's header fields for the class checks, read when first needed. */
static const struct rule_pktfields *
up_fields(const struct rule_upcall *up, struct rule_pktfields *pf, bool *read)
{
	if (!*read) {
		eng_pktclass_of_up(up, pf);
		*read = true;
	}
	return pf;
}

/* Entry @p e's last hit: a touch with it counts the packet and renews nothing. */
static uint32_t
last_seen(const struct fc_entry *e)
{
	return __atomic_load_n(&e->last_seen, __ATOMIC_RELAXED);
}

/* The entry counts the packet (its rule's counters); one conntrack ignored, not its connection. */
static void
hit_touch(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t len, uint32_t when)
{
	fc_table_touch(eng->t[ti], idx, len, when);
	if (eng->cb_pend.ignored)
		eng_ign_count(eng, ti, idx, len);
}

/*
 * A packet of a cached flow: entry @p idx, key @p ek (the packet's own, or
 * with @p mismatch the connection's entry on another port: the packet is
 * then decided on its own key and never from the entry alone).
 * @return false if the flow went and the packet is a new flow's.
 */
static bool
old_flow(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *ek,
	const struct rule_upcall *up, struct rule_decision *d, uint32_t now, bool mismatch)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);
	const struct fc_key *k = ek;
	struct fc_action a;
	struct rule_pktfields pf;
	bool pf_read = false;
	unsigned int cs, ecs, drop = RULE_DROP_NONE;
	uint8_t reject = RULE_REJECT_NONE;
	uint32_t trace = 0;
	bool renew = true, due = false;
	int rc;

	if (e == NULL)
		return false;
	a = e->act;
	/* A new flow's cached drop older than an expectation of its slot: a new flow again. */
	if ((a.mod[0] & ENG_M0_NEWDROP) && rule_engine_drop_expected(eng, &a, k)) {
		eng->st.drops_expected++;
		eng_flow_delete(eng, ti, idx);
		return false;
	}
	if (a.gen != eng->gen && eng_entry_stale(eng, eng->pending, &a, k)) {
		eng->st.revalidated++;
		if (a.mod[0] & ENG_M0_NEWDROP) {
			eng_flow_delete(eng, ti, idx);
			return false;
		}
		if (eng_refilter(eng, ti, idx, k, &a) < 0)
			a.verdict = FC_VERDICT_SLOW;
		eng_entry_set(eng, ti, idx, &a, eng_timeout(eng, ti, idx));
	}
	/* Classed under a flag table replaced since: its class is taken anew. */
	if ((a.mod[0] & ENG_M0_CLASSED) && !eng_pktclass_current(eng, &a)) {
		if (eng_refilter(eng, ti, idx, k, &a) < 0)
			a.verdict = FC_VERDICT_SLOW;
		eng_entry_set(eng, ti, idx, &a, eng_timeout(eng, ti, idx));
	}
	/* Its first ordinary segment of another class than a guessed one takes the entry over. */
	if (!mismatch && (a.mod[0] & ENG_M0_CLASS_GUESS) &&
		(fc_key_proto(k) != IPPROTO_TCP || eng_pktclass_ordinary(up->pkt.tcp_flags)) &&
		eng_pktclass_known(eng, &a, up_fields(up, &pf, &pf_read)) &&
		!eng_pktclass_holds(eng, &a, &pf)) {
		eng->st.class_taken++;
		if (eng_refilter_as(eng, ti, idx, k, &a, &pf) < 0)
			a.verdict = FC_VERDICT_SLOW;
		eng_entry_set(eng, ti, idx, &a, eng_timeout(eng, ti, idx));
	}
	/*
	 * Its counters reached the counts where its verdict may change
	 * (connbytes). A packet conntrack checks first may be one it ignores,
	 * which the connection does not count: decided again after the check,
	 * unless ignored (the verdict of the counts before holds).
	 */
	if (!mismatch && (a.flags & FC_ACT_F_COUNT) &&
		rule_engine_count_due(eng, t, ti, idx, up->len)) {
		if (a.interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP)) {
			due = true;
		} else {
			eng_cb_redecide(eng, ti, idx, k, up);
			a = e->act;
		}
	}
	cs = eng_entry_ctstate(eng, &a);
	ecs = cs;
	/*
	 * A segment of a window-checked entry here is one the fast path could
	 * not vouch for; a UDP-Lite datagram of a checked entry, conntrack
	 * checks again (one whose header fails is invalid), and so an SCTP
	 * packet of a checked association (its tag, its chunks).
	 */
	if (rule_engine_wants(&a, &up->pkt) || a.verdict == FC_VERDICT_SLOW ||
		(a.interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_UDPLITE | FC_INTEREST_SCTP))) {
		rc = run_packet(eng, ti, idx, ek, up, &a, &cs, &ecs, &drop, &reject, &renew);
		if (rc == -EAGAIN)
			return false;
		if (rc == -EINVAL || rc == -EPERM) {
			dec_drop(d, rc == -EPERM ? drop : RULE_DROP_ERROR);
			d->reject = rc == -EPERM ? reject : RULE_REJECT_NONE;
			uncached(eng, up, d);
			return true;
		}
		if (rc == -ENOENT) {
			/* Removed without a new connection: decide from what it was
			 * (an entry decided ahead of its record: as the packet is). */
			if (a.verdict == FC_VERDICT_SLOW || (a.flags & FC_ACT_F_AHEAD)) {
				if (pkt_decide(eng, ti, idx, up, &a, cs, d, &trace)) {
					eng_rule_count(eng, d->rule_id, 1, up->len);
					eng_trace_count(eng, trace, 1, up->len);
				}
			} else {
				dec_from_act(d, &a, cs);
				dec_prog(eng, d, &a, up, false);
				uncached(eng, up, d);
			}
			return true;
		}
	}
	if (due && !eng->cb_pend.ignored) {
		eng_cb_redecide(eng, ti, idx, k, up);
		a = e->act;
	}
	/* A classed entry decides the packets of its class only. */
	if (!mismatch && a.verdict != FC_VERDICT_SLOW && cs == ecs &&
		(!(a.mod[0] & ENG_M0_CLASSED) ||
			eng_pktclass_holds(eng, &a, up_fields(up, &pf, &pf_read))) &&
		!fwd_expired(eng, k, &a, up)) {
		dec_from_act(d, &a, cs);
		d->channel = dec_channel(eng, ti, idx, &a);
		/* The entry counts it (below): a predicate's outcome but 0 on the predicate too. */
		dec_prog(eng, d, &a, up, true);
	} else {
		/*
		 * Decided per packet, or the packet's own ctstate (e.g. INVALID)
		 * differs from the entry's, or it came on a port the
		 * connection's entries lack.
		 */
		if (!pkt_decide(eng, ti, idx, up, &a, cs, d, &trace))
			return true;
		/* The connection's packet on another port keeps it alive, as a hit would. */
		if (mismatch && d->verdict == FC_VERDICT_ACCEPT && d->rule_id == a.rule_id) {
			hit_touch(eng, ti, idx, up->len, renew ? now : last_seen(e));
		} else {
			eng_rule_count(eng, d->rule_id, 1, up->len);
			eng_trace_count(eng, trace, 1, up->len);
			/* connbytes: the connection counts it all the same, unless
			 * INVALID (no connection: Linux neither counts it nor
			 * refreshes the timer) or ignored (Linux's accounting leaves
			 * it out, and refreshes nothing). */
			if (!mismatch && !(cs & RULE_CT_INVALID) && !eng->cb_pend.ignored)
				eng_cb_count_alone(
					eng, ti, idx, up->len, renew ? now : last_seen(e));
		}
		return true;
	}
	hit_touch(eng, ti, idx, up->len, renew ? now : last_seen(e));
	return true;
}

bool
eng_old_flow(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *ek,
	const struct rule_upcall *up, struct rule_decision *d, uint32_t now, bool mismatch)
{
	bool r;

	/* Its entry counts it next: the connection's counters include it (connbytes). */
	eng->cb_pend.on = !mismatch;
	eng->cb_pend.ti = (uint8_t)ti;
	eng->cb_pend.idx = idx;
	eng->cb_pend.ip_len = up->pkt.ip_len;
	eng->cb_pend.len = up->len;
	eng->cb_pend.ignored = false;
	r = old_flow(eng, ti, idx, ek, up, d, now, mismatch);
	eng->cb_pend.on = false;
	eng->cb_pend.ignored = false;
	return r;
}

static void
upcall_one(struct rule_engine *eng, const struct rule_upcall *up, struct rule_decision *d,
	uint32_t now)
{
	const struct fc_pkt *pkt = &up->pkt;
	int ti = eng_tbl(pkt->key.family);
	struct eng_tuple others;

	if (ti < 0) {
		dec_drop(d, RULE_DROP_BAD_PACKET);
		uncached(eng, up, d);
		return;
	}
	if (eng->t[ti] == NULL || pkt->frag == FC_FRAG_LATER) {
		/* Non-first fragments carry no ports: never cached, never tracked. */
		new_flow(eng, ti, up, true, NULL, d, now);
		return;
	}
	for (unsigned int attempt = 0; attempt < 2; attempt++) {
		struct fc_table *t = eng->t[ti];
		int idx = fc_table_lookup(t, &pkt->key.v4, fc_table_hash(t, &pkt->key.v4));

		if (idx < 0)
			break;
		if (eng_old_flow(eng, (unsigned int)ti, (uint32_t)idx, &pkt->key, up, d, now, false))
			return;
	}
	/* No entry of its own: a tracked connection's on another port? */
	eng_tuple_find(eng, (unsigned int)ti, &pkt->key, &others);
	if (eng_port_other(eng, (unsigned int)ti, up, &others, d, now))
		return;
	new_flow(eng, ti, up, false, &others, d, now);
}

unsigned int
rule_engine_upcall_burst(struct rule_engine *eng, const struct rule_upcall up[], unsigned int n,
	struct rule_decision dec[], uint32_t now)
{
	if (eng == NULL || up == NULL || dec == NULL)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		if (up[i].reason < RULE_UPCALL__COUNT)
			eng->st.upcalls[up[i].reason]++;
		upcall_one(eng, &up[i], &dec[i], now);
	}
	return n;
}
