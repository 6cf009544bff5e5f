/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the module registry's calls that are not per upcall step
 * (on_abort, the entries' ctstate) and the two built-in stages, what a rule
 * set means: filter (order RULE_MOD_ORDER_FILTER: the packet's ctstate ->
 * verdict, rule, channel name, for both directions, on the key as the
 * filter sees it: the original source, the destination as translated) and
 * channel (RULE_MOD_ORDER_CHANNEL: names -> ids through the application's
 * callback; a flow accepted into a per-flow channel gets a ring of its
 * own, which both directions share when they name the same channel).
 * Conntrack, NAT and route are modules of their own (lib/modules), and
 * reach the flow only through struct rule_flow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine_priv.h"

/* ------------------------------------------------------------------------ */
/* Registry                                                                  */
/* ------------------------------------------------------------------------ */

unsigned int
eng_entry_ctstate(const struct rule_engine *eng, const struct fc_action *a)
{
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;
		unsigned int cs;

		if (m->entry_ctstate != NULL && (cs = m->entry_ctstate(m->priv, a)) != 0)
			return cs;
	}
	return 0;
}

/* The flow gets no entry: the modules that saw it release what they took. */
void
eng_abort(struct rule_engine *eng, struct eng_flow *ef)
{
	for (unsigned int i = 0; i < ef->n_ran && i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->on_abort != NULL)
			m->on_abort(m->priv, &ef->f);
	}
	ef->n_ran = 0;
	eng_chan_flow_undo(eng, ef);
}

/* ------------------------------------------------------------------------ */
/* Filter                                                                    */
/* ------------------------------------------------------------------------ */

static int
filter_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct rule_result res;
	int rc;

	/* What the filter sees: the original source, the translated destination. */
	f->fkey[RULE_DIR_ORIG] = f->xkey;
	if (f->xkey.family == FC_AF_INET4) {
		f->fkey[0].v4.src = f->key.v4.src;
		f->fkey[0].v4.sport = f->key.v4.sport;
		f->fkey[0].v4.flags = (uint8_t)((f->xkey.v4.flags & FC_KEY_F_DST_LOCAL) |
						(f->key.v4.flags & FC_KEY_F_SRC_LOCAL));
	} else {
		memcpy(f->fkey[0].v6.src, f->key.v6.src, 16);
		f->fkey[0].v6.sport = f->key.v6.sport;
		f->fkey[0].v6.flags = (uint8_t)((f->xkey.v6.flags & FC_KEY_F_DST_LOCAL) |
						(f->key.v6.flags & FC_KEY_F_SRC_LOCAL));
	}
	/* Ports: the packet's own; the reply's, where the replies will arrive. */
	fc_key_set_in_port(&f->fkey[0], fc_key_in_port(&f->key));
	fc_key_reverse(&f->fkey[0], &f->fkey[1]);
	fc_key_set_in_port(&f->fkey[1],
		rule_engine_out_port(eng, f->act[RULE_DIR_ORIG].out_port, fc_key_in_port(&f->key)));

	rc = rule_engine_classify_filter(eng, &f->fkey[0], f->ctstate, f->kflags, &res);
	if (rc < 0)
		return rc;
	f->act[0].rule_id = res.rule_id;
	snprintf(f->chan[0], sizeof(f->chan[0]), "%s", res.channel);
	if (res.verdict != RULE_VERDICT_ACCEPT) {
		f->act[0].verdict = FC_VERDICT_DROP;
		f->drop = RULE_DROP_FILTER;
		return 0;
	}
	if (!f->want_reply)
		return 0;
	/* The reply entry's cached verdict: with its packets' ctstate (a tracker's). */
	rc = rule_engine_classify_filter(eng, &f->fkey[1], f->reply_ctstate, f->kflags, &res);
	if (rc < 0)
		return rc;
	f->act[1].rule_id = res.rule_id;
	f->act[1].verdict = res.verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT
							       : FC_VERDICT_DROP;
	snprintf(f->chan[1], sizeof(f->chan[1]), "%s", res.channel);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Channel                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A per-flow channel for a flow accepted into one marked per-flow: the
 * forward entry owns it (returns it when the flow goes, flow_gone()); the
 * reply entry shares it when its rule names the same channel. Pool empty:
 * the flow stays on the parent, counted.
 */
static void
chan_flow_give(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	uint16_t parent = f->act[RULE_DIR_ORIG].channel;
	int id;

	if (eng->p.chan_flow_alloc_fn == NULL || f->nocache ||
		f->act[RULE_DIR_ORIG].verdict != FC_VERDICT_ACCEPT)
		return;
	id = eng->p.chan_flow_alloc_fn(eng->p.cb_arg, parent);
	if (id == -ENOTSUP)
		return;
	if (id < 0 || id > UINT16_MAX) {
		eng->st.chan_flow_fallback++;
		return;
	}
	if (eng_chan_parent_set(eng, (uint16_t)id, parent) < 0) {
		/* Cannot remember its parent: keep the flow on the parent. */
		(void)eng_retire_chan(eng, (uint16_t)id);
		eng->st.chan_flow_fallback++;
		return;
	}
	eng->st.chan_flows++;
	ef->chan_flow = id;
	ef->chan_parent = parent;
	for (unsigned int d = 0; d < 2; d++) {
		struct fc_action *a = &f->act[d];

		if (d == RULE_DIR_REPLY && (!f->want_reply || a->channel != parent))
			continue;
		a->channel = (uint16_t)id;
		a->mod[0] |= ENG_M0_CHAN_FLOW; /* its parent: eng_chan_parent() */
	}
	f->act[RULE_DIR_ORIG].mod[0] |= ENG_M0_CHAN_OWN;
}

/* Take back the per-flow channel of a flow that got no entry (the decision goes to the parent). */
void
eng_chan_flow_undo(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	int rc;

	if (ef->chan_flow < 0)
		return;
	for (unsigned int d = 0; d < 2; d++) {
		struct fc_action *a = &f->act[d];

		if (!(a->mod[0] & ENG_M0_CHAN_FLOW) || a->channel != (uint16_t)ef->chan_flow)
			continue;
		a->channel = ef->chan_parent;
		a->mod[0] &= (uint8_t)~(ENG_M0_CHAN_FLOW | ENG_M0_CHAN_OWN);
	}
	/* A reply entry inserted before the forward one failed was visible: grace period. */
	rc = eng_retire_chan(eng, (uint16_t)ef->chan_flow);
	if (rc < 0)
		eng->st.chan_flow_free_fail++;
	ef->chan_flow = -1;
}

static int
channel_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;

	for (unsigned int d = 0; d < 2; d++)
		f->act[d].channel = eng_channel(eng, f->chan[d]);
	chan_flow_give(eng, eng_flow_of(f));
	/* The local bits of the keys the filter saw, for the stale check (eng_filter_key()). */
	if (f->act[0].flags & FC_ACT_F_NAT)
		for (unsigned int d = 0; d < 2; d++)
			f->act[d].mod[0] |= fc_key_flags(&f->fkey[d]) &
					    (ENG_M0_FK_SRC_LOCAL | ENG_M0_FK_DST_LOCAL);
	return 0;
}

int
eng_mods_register(struct rule_engine *eng)
{
	static const struct rule_module builtin[] = {
		{.name = "filter", .order = RULE_MOD_ORDER_FILTER, .on_insert = filter_on_insert},
		{.name = "channel", .order = RULE_MOD_ORDER_CHANNEL,
			.on_insert = channel_on_insert},
	};

	for (unsigned int i = 0; i < RTE_DIM(builtin); i++) {
		struct rule_module m = builtin[i];
		int rc;

		m.priv = eng;
		rc = rule_engine_module_register(eng, &m);
		if (rc < 0)
			return rc;
	}
	return 0;
}
