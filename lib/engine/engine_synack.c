/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: a new TCP connection's first reply on the fast path. When
 * conntrack could let the fast path take the SYN/ACK (struct
 * rule_flow::synack), the engine walks the new connection's original
 * direction a second time at its SYN, as `established` (what the first
 * reply makes of it), and, when that walk's action is a plain one, stores
 * it in the original entry ahead of the connection's record
 * (FC_ACT_F_AHEAD) and lets conntrack arm the line (on_synack). The
 * SYN/ACK then passes on the fast path and the connection costs one
 * upcall, not two.
 *
 * What holds the counts and the decisions right:
 * - The SYN counts on its own (`new`) rule and trace: the entry counted it
 *   under the `new` action, and switching the action to the `established`
 *   one folds that count into the old rule and trace (eng_entry_set(),
 *   eng_trace_switch()), as the first reply's refilter does.
 * - The entry's ctstate is `established` (eng_entry_ctstate()), so a
 *   refilter (a commit's revalidation, a class taken over) walks it as the
 *   action it holds; a packet of it that goes up before the reply (a
 *   retransmitted SYN) gets its own ctstate from conntrack, `new`, which
 *   differs, and is decided on its own (old_flow()).
 * - The bit goes at the engine's next store after the reply
 *   (run_packet()), when the record says the same, or when aging finds
 *   the reply taken (eng_synack_settle()), which also makes both entries
 *   established for the eviction order (not FC_ACT_F_EARLY): until then a
 *   full table may evict them with the handshakes.
 * - A SYN/ACK the fast path takes while the rules lcore decides another
 *   packet of the connection is not lost: conntrack holds the line first
 *   (mod_ct_fast_hold()).
 */
#include "engine_priv.h"

/*
 * May an action decided for the `established` direction be stored ahead
 * of the record? Only one the fast path serves as it is for every packet:
 * not per packet, no packet program (a meter, a log, a string
 * predicate), no counted limit, not cached for a class of header fields.
 */
static bool
ahead_plain(const struct fc_action *a)
{
	return a->verdict != FC_VERDICT_SLOW &&
		!(a->flags & (FC_ACT_F_PKTACT | FC_ACT_F_COUNT)) &&
		!(a->mod[0] & ENG_M0_CLASSED);
}

void
eng_synack_ahead(struct rule_engine *eng, unsigned int ti, struct eng_flow *ef, uint32_t idx,
	uint32_t ridx, struct fc_action *a0, struct fc_action *a1)
{
	struct rule_flow *f = &ef->f;
	struct fc_action a = *a0;
	bool ok;

	a.flags |= FC_ACT_F_AHEAD;
	/* The walk keeps the marks and the connection mark the first one left. */
	ok = eng_refilter_memo(eng, ti, idx, &f->key, &a) == 0 && ahead_plain(&a) &&
		eng_side_fmark(eng, ti, idx) == ef->mark[0] &&
		eng_side_ctmark(eng, ti, idx) == ef->ctmark;
	if (ok) {
		f->act[RULE_DIR_ORIG] = a;
		f->act[RULE_DIR_REPLY] = *a1;
		ok = false;
		for (unsigned int d = 0; d < 2; d++)
			f->interest_kept[d] = ef->kept[d];
		for (unsigned int i = 0; i < eng->n_mods; i++) {
			const struct rule_module *m = &eng->mods[i].m;

			if (m->on_synack != NULL) {
				ok = m->on_synack(m->priv, f) == 0;
				break;
			}
		}
	}
	if (!ok) {
		/* The entries as the first walk made them. */
		(void)eng_side_marks_set(eng, ti, idx, ef->mark[0], ef->ctmark);
		if (eng_side_ctmark(eng, ti, ridx) != ef->ctmark)
			(void)eng_side_marks_set(eng, ti, ridx, ef->mark[1], ef->ctmark);
		eng_trace_switch(eng, ti, idx, ef->trace[0]);
		eng->st.synack_plain_not++;
		return;
	}
	a1->interest = f->act[RULE_DIR_REPLY].interest;
	a1->flags = f->act[RULE_DIR_REPLY].flags;
	a.interest = f->act[RULE_DIR_ORIG].interest;
	a.flags = f->act[RULE_DIR_ORIG].flags | FC_ACT_F_AHEAD;
	/* The line is armed: the entries that name it for the check after. */
	eng_entry_set(eng, ti, ridx, a1, f->timeout);
	eng_entry_set(eng, ti, idx, &a, f->timeout);
	*a0 = a;
	eng->st.synack_ahead++;
}

void
eng_synack_settle(struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx), *pe;
	uint32_t peer = eng_peer(eng, ti, idx);
	struct fc_action a;

	if (e == NULL || !(eng_entry_ctstatus(eng, &e->act) & RULE_CTS_SEEN_REPLY))
		return;
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	if (pe != NULL && eng_peer(eng, ti, peer) == idx && (pe->act.flags & FC_ACT_F_EARLY)) {
		a = pe->act;
		a.flags &= (uint8_t)~FC_ACT_F_EARLY;
		eng_entry_set(eng, ti, peer, &a, eng_timeout(eng, ti, peer));
	}
	a = e->act;
	a.flags &= (uint8_t)~(FC_ACT_F_AHEAD | FC_ACT_F_EARLY);
	eng_entry_set(eng, ti, idx, &a, eng_timeout(eng, ti, idx));
	eng->st.synack_settled++;
}
