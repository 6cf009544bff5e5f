/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_deliver.c — delivery, which every path shares: a
 * burst's packets handed to their net channels, one chan_enqueue_burst()
 * per channel in order of first appearance (dp_deliver_burst()), and a
 * lossless context's hold offered again (dp_hold_retry()): what a channel
 * or the upcall ring did not take waits there, in order, and goes first;
 * the slow path's completions wait for its held decisions to be delivered
 * (dp_upcall_done()).
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "datapath.h"
#include "dp_priv.h"

/*
 * One hand-over to channel @p ch. Lossless: what the channel did not take
 * joins the context's hold, in order (it is offered first next time).
 */
static inline unsigned int
dp_deliver_group(struct dp_ctx *c, uint32_t ch, struct rte_mbuf **m, unsigned int n)
{
	struct dp_hold *h = &c->hold;
	unsigned int took;

	if (likely(!c->lossless)) {
		c->st.fwd_pkts += n;
		return chan_enqueue_burst(c->chans, ch, c->producer_id, m, n);
	}
	took = chan_enqueue_burst_hold(c->chans, ch, c->producer_id, m, n);
	c->st.fwd_pkts += took;
	if (unlikely(took < n)) {
		c->st.ll_bursts++;
		for (unsigned int i = took; i < n; i++) {
			h->out[h->n_out] = m[i];
			h->dest[h->n_out++] = ch;
		}
	}
	return took;
}

unsigned int
dp_deliver_burst(struct dp_ctx *c, struct rte_mbuf **m, const uint32_t *dest, unsigned int n)
{
	struct rte_mbuf *grp[DP_BURST_MAX];
	unsigned int done = 0;
	uint64_t left;
	unsigned int i;

	if (n == 0)
		return 0;
	/* Common case: the whole burst goes to one channel. */
	for (i = 1; i < n && dest[i] == dest[0]; i++)
		;
	if (i == n)
		return dp_deliver_group(c, dest[0], m, n);
	/* Otherwise one hand-over per distinct channel, in order of first appearance. */
	left = (n == 64) ? UINT64_MAX : ((UINT64_C(1) << n) - 1);
	while (left != 0) {
		unsigned int first = (unsigned int)__builtin_ctzll(left);
		uint32_t ch = dest[first];
		unsigned int k = 0;

		for (unsigned int j = first; j < n; j++) {
			if ((left & (UINT64_C(1) << j)) && dest[j] == ch) {
				grp[k++] = m[j];
				left &= ~(UINT64_C(1) << j);
			}
		}
		done += dp_deliver_group(c, ch, grp, k);
	}
	return done;
}

unsigned int
dp_hold_retry(struct dp_ctx *c)
{
	struct dp_hold *h = &c->hold;
	struct rte_mbuf *m[DP_BURST_MAX];
	uint32_t dest[DP_BURST_MAX];
	uint64_t events = c->st.ll_bursts; /* counted when first held, not per try */
	unsigned int n;

	/* Delivery first: an upcall held behind a packet of its connection
	 * must not reach the slow path, and its channel, before it. */
	if (h->n_out != 0) {
		n = h->n_out;
		memcpy(m, h->out, n * sizeof(m[0]));
		memcpy(dest, h->dest, n * sizeof(dest[0]));
		h->n_out = 0;
		dp_deliver_burst(c, m, dest, n);
	}
	if (h->n_up != 0 && h->n_out == 0) {
		n = h->n_up;
		memcpy(m, h->up, n * sizeof(m[0]));
		h->n_up = 0;
		dp_upcall_put(c, m, n);
	}
	c->st.ll_bursts = events;
	c->st.ll_held = dp_held(c);
	if (dp_held(c) == 0 && c->owed != 0) {
		/* The held decisions are out: their connections may go fast. */
		dp_done_post(c->owed_to, c->owed);
		c->owed = 0;
	}
	return dp_held(c);
}

void
dp_upcall_done(struct dp_ctx *c, struct dp_done *done, unsigned int n)
{
	if (n == 0)
		return;
	if (likely(dp_held(c) == 0)) {
		dp_done_post(done, n);
		return;
	}
	/* One context owed at a time: no burst is taken while held. */
	RTE_ASSERT(c->owed == 0 || c->owed_to == done);
	if (unlikely(c->owed != 0 && c->owed_to != done)) {
		dp_done_post(c->owed_to, c->owed);
		c->owed = 0;
	}
	c->owed_to = done;
	c->owed += n;
}

