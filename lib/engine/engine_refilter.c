/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine/engine_refilter.c — walking a cached entry's flow again
 * (eng_refilter(), eng_refilter_as(), eng_refilter_memo()): after its
 * connection moved on (ctstate, connection mark), a commit, or at a SYN
 * for the first reply's `established` walk (the memo: the classification
 * cache's whole walks, engine_clscache.c). The entry's action, rule,
 * program, marks, trace and channel come out as a new flow's walk would
 * make them; the caller stores it (eng_entry_set()).
 */
#include <errno.h>
#include <string.h>

#include "engine_priv.h"

static int refilter(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_key *k, struct fc_action *a, const struct rule_pktfields *pf,
	unsigned int unknown, bool guess, bool memo);

int
eng_refilter(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a)
{
	return eng_refilter_as(eng, ti, idx, k, a, NULL);
}

int
eng_refilter_as(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a, const struct rule_pktfields *pf)
{
	bool guess = false;
	unsigned int unknown = 0;
	int rc;

	if (pf != NULL)
		eng->synth = *pf;
	else
		unknown = eng_pktclass_rep(eng, k, a, &eng->synth, &guess);
	/* Its walk sees these header fields: its class is theirs. */
	rc = refilter(eng, ti, idx, k, a, &eng->synth, unknown, guess, false);
	memset(&eng->synth, 0, sizeof(eng->synth));
	return rc;
}

int
eng_refilter_memo(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a)
{
	bool guess = false;
	unsigned int unknown = eng_pktclass_rep(eng, k, a, &eng->synth, &guess);
	int rc = refilter(eng, ti, idx, k, a, &eng->synth, unknown, guess, true);

	memset(&eng->synth, 0, sizeof(eng->synth));
	return rc;
}

/* The channel a refilter's walk names (@p name), the marks and trace: the entry's now. */
static int
refilter_end(struct rule_engine *eng, unsigned int ti, uint32_t idx, struct fc_action *a,
	uint32_t mark, uint32_t ctmark, uint32_t trace, const char *name)
{
	uint16_t ch;
	int rc;

	/* Without memory for its marks the flow is not cached with them (the caller). */
	rc = eng_side_marks_set(eng, ti, idx, mark, ctmark);
	if (rc < 0)
		return rc;
	/* The rules it passed without deciding count its packets from now on. */
	eng_trace_switch(eng, ti, idx, trace);
	/* A rule that names another channel now: the flow leaves its own ring
	 * (still owned: it goes back when the flow goes). */
	ch = eng_channel(eng, name);
	if (ch != a->channel)
		a->mod[0] &= (uint8_t)~ENG_M0_CHAN_FLOW;
	a->channel = ch;
	a->gen = eng->gen;
	return 0;
}

static int
refilter(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a, const struct rule_pktfields *pf, unsigned int unknown, bool guess,
	bool memo)
{
	struct rule_eval ev[RULE_STAGE__COUNT];
	struct eng_marks mk = {.ctmark = eng_side_ctmark(eng, ti, idx)};
	unsigned int d, cs = eng_entry_ctstate(eng, a);
	uint32_t deps, pd;
	struct eng_pv pv;
	struct fc_key fk;
	uint32_t str_trace = 0, ctmark0 = mk.ctmark, trace;
	struct eng_walkm_probe pr = {.slot = UINT32_MAX};
	struct eng_walk_in win;
	const struct eng_walk_out *wo;
	struct eng_walk_out *wout;
	bool str_prog = false;
	int rc;

	eng_filter_key(eng, k, a, &fk);
	/* Only a connbytes match reads the connection's counts: without one they stay 0. */
	if (!eng_cb_none(eng))
		eng_conn_counts(eng, ti, idx, a, NULL, &mk);
	/* The same walk kept whole (a SYN's `established` walk): what it made, the entry's own kept. */
	if (memo && eng_walkm_on(eng)) {
		eng_pkt_verdict_in(eng, k, &fk, a, cs, &mk, &win);
		win.unknown = unknown;
		win.guess = guess;
		if (eng_walkm_find(eng, &win, &wo, &pr)) {
			uint32_t nat_id = a->nat_id, ext = a->ext;

			*a = wo->a;
			a->nat_id = nat_id;
			a->ext = ext;
			return refilter_end(eng, ti, idx, a, wo->mark, ctmark0, wo->trace,
				wo->channel);
		}
	}
	eng_pv_init(&pv, eng, ENG_PV_CONFORM);
	rc = eng_pkt_verdict(eng, NULL, k, &fk, a, cs, ev, &d, &deps, &mk, &pv);
	if (rc < 0)
		return rc;
	eng_pktclass_clear(a);
	if (a->flags & FC_ACT_F_PKTACT) {
		a->flags &= (uint8_t)~FC_ACT_F_PKTACT;
		a->pkt_class = 0;
	}
	a->verdict = ev[d].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	a->rule_id = eng_dec_id(&ev[d], k->family);
	eng_act_prog(a, eng_prog_of_walk(eng, ev, eng_walked(ev, d)));
	pd = ENG_DEPS_PER_PACKET(deps);
	/* The counters alone: cached up to the counts where it may change (connbytes). */
	a->flags &= (uint8_t)~FC_ACT_F_COUNT;
	if (pd == RULE_DEP_CONNBYTES && eng_cb_ready(eng, ti)) {
		a->flags |= FC_ACT_F_COUNT;
		pd = 0;
	}
	/* Meters, one deciding at most: the verdict while it conforms, the fast path asks it. */
	if (eng_pv_meters(&pv, deps) && !(pd & ~(RULE_DEP_METER | ENG_PC_DEPS)) &&
		eng_meter_decide(eng, NULL, k, &fk, a, cs, eng_side_ctmark(eng, ti, idx)) >= 0)
		pd &= ENG_PC_DEPS; /* a class: below, in the meter's program */
	/* String searches decided: every outcome in a predicate, the fast path searches. */
	if (eng_pv_strs(&pv, deps) && !(pd & ~(RULE_DEP_PAYLOAD | ENG_PC_DEPS))) {
		uint32_t pcd = 0;

		rc = eng_str_decide(eng, NULL, k, &fk, a, cs, eng_side_ctmark(eng, ti, idx),
			&str_trace, &pcd);
		if (rc >= 0) {
			pd = pcd; /* a class of header fields: below, in the tree's program */
			str_prog = rc == 1;
		}
	}
	if (pd & RULE_DEP_PAYLOAD)
		eng->st.pred_per_packet++;
	/* Header fields alone: cached for their class (engine_pktclass.c). */
	if (pd != 0)
		pd = eng_pktclass_take(eng, k, a, pd, pf, unknown, guess);
	/* Per-packet fields: each packet on its own. */
	if (pd != 0)
		a->verdict = FC_VERDICT_SLOW;
	if (mk.ctmark != eng_side_ctmark(eng, ti, idx)) {
		uint32_t peer = eng_peer(eng, ti, idx);

		/* Kept on both entries; a peer refiltering right now sees it too. */
		if (peer != FC_INDEX_NONE && eng_side_marks_set(eng, ti, peer,
			eng_side_fmark(eng, ti, peer), mk.ctmark) < 0)
			return -ENOMEM;
	}
	trace = str_prog ? str_trace : eng_trace_of_walk(eng, ev, d, k->family);
	/*
	 * Kept whole for the next such walk only when nothing in it is the
	 * packet's own or the moment's: no per-packet dependency, no program
	 * (its id is the engine's for now), the connection's mark as it was.
	 */
	if (pr.slot != UINT32_MAX && ENG_DEPS_PER_PACKET(deps) == 0 && !str_prog &&
		!(a->flags & (FC_ACT_F_PKTACT | FC_ACT_F_COUNT)) &&
		a->verdict != FC_VERDICT_SLOW && mk.ctmark == ctmark0 &&
		(wout = eng_walkm_slot(eng, &pr, &win)) != NULL) {
		wout->a = *a;
		wout->mark = mk.mark;
		wout->ctmark = mk.ctmark;
		wout->trace = trace;
		memcpy(wout->channel, ev[RULE_STAGE_FILTER].channel, sizeof(wout->channel));
	}
	return refilter_end(eng, ti, idx, a, mk.mark, mk.ctmark, trace,
		ev[RULE_STAGE_FILTER].channel);
}
