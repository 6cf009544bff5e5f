/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine/engine_chanflow.c — the built-in "channel" stage: a new
 * flow's entries get the ids of the channels their rules named, and a
 * flow accepted into a per-flow channel its own ring from the pool
 * (given back when the flow goes, or at once when it gets no entry).
 */
#include <errno.h>

#include "engine_priv.h"

/*
 * A per-flow channel for a flow accepted into one marked per-flow: the
 * forward entry owns it (returns it when the flow goes, flow_gone()); the
 * reply entry shares it when its rule names the same channel. The entries
 * keep the parent in fc_action::channel and a bit; the id goes to their
 * slots (view.flow_chan) once they are inserted (eng_flow_chan_publish()).
 * Pool refused (at its cap, or no memory to grow): the flow stays on the
 * parent, counted, rather than dropped: the parent is the channel its rule
 * named, so its packets still reach that channel's consumer.
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
	if (id < 0) {
		eng->st.chan_flow_fallback++;
		return;
	}
	eng->st.chan_flows++;
	ef->chan_flow = id;
	for (unsigned int d = 0; d < 2; d++) {
		struct fc_action *a = &f->act[d];

		if (d == RULE_DIR_REPLY && (!f->want_reply || a->channel != parent))
			continue;
		a->mod[0] |= ENG_M0_CHAN_FLOW; /* the id: eng_flow_chan() of its slot */
	}
	f->act[RULE_DIR_ORIG].mod[0] |= ENG_M0_CHAN_OWN;
}

void
eng_flow_chan_publish(struct rule_engine *eng, unsigned int ti, const struct eng_flow *ef,
	const struct fc_action *a, uint32_t idx)
{
	if (ef->chan_flow >= 0 && (a->mod[0] & ENG_M0_CHAN_FLOW))
		eng_flow_chan_set(eng, ti, idx, (uint32_t)ef->chan_flow);
}

/* Take back the per-flow channel of a flow that got no entry (the decision goes to the parent). */
void
eng_chan_flow_undo(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	int rc;

	if (ef->chan_flow < 0)
		return;
	for (unsigned int d = 0; d < 2; d++)
		f->act[d].mod[0] &= (uint8_t)~(ENG_M0_CHAN_FLOW | ENG_M0_CHAN_OWN);
	/* A reply entry inserted before the forward one failed was visible: grace period. */
	rc = eng_retire_chan(eng, (uint32_t)ef->chan_flow);
	if (rc < 0)
		eng->st.chan_flow_free_fail++;
	ef->chan_flow = -1;
}

int
eng_channel_on_insert(void *priv, struct rule_flow *f)
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
