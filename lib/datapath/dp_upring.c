/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_upring.c — a burst's upcalls onto the upcall ring: at
 * once, or kept for one enqueue of several bursts' on live ports
 * (struct dp_ctx::up_batch); what the ring does not take is a named drop,
 * or, lossless, held in order (dp_hold_retry()), as are all of them while
 * the context holds packets for its channels.
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "datapath.h"
#include "dp_priv.h"

/*
 * Put @p n packets on the upcall ring. What does not fit is a named drop,
 * or, lossless, joins the context's hold in order; while the hold has
 * packets for channels (only a lossless context's has) they all join it.
 */
static void
dp_upcall_ring(struct dp_ctx *c, struct rte_mbuf **up, unsigned int n)
{
	struct dp_hold *h = &c->hold;
	unsigned int sent, free;

	if (n == 0)
		return;
	if (unlikely(h->n_out != 0)) {
		/* Lossless, a channel full: the burst's decided packets go
		 * first, or the slow path could deliver a packet of their
		 * connection ahead of them (dp_hold_retry()). */
		for (unsigned int i = 0; i < n; i++)
			h->up[h->n_up++] = up[i];
		return;
	}
	sent = rte_ring_sp_enqueue_burst(c->upcall, (void **)up, n, &free);
	c->ups.free = free;
	c->st.up_rings++;
	c->st.upcalls += sent;
	if (likely(sent == n))
		return;
	if (c->lossless) {
		c->st.ll_bursts++;
		for (unsigned int i = sent; i < n; i++)
			h->up[h->n_up++] = up[i];
		return;
	}
	c->st.drops[DP_DROP_UPCALL_FULL] += n - sent;
	/* The counted ones among them are the FIFO's newest: newest first. */
	for (unsigned int i = n; i-- > sent;) {
		struct dp_meta *meta = dp_meta(up[i]);

		if (meta->pend)
			dp_pending_unadd(c->pend, meta->conn);
	}
	rte_pktmbuf_free_bulk(&up[sent], n - sent);
}

void
dp_upcall_flush(struct dp_ctx *c)
{
	struct dp_upstash *u = &c->ups;
	unsigned int n = u->n;

	if (n == 0)
		return;
	u->n = 0;
	u->bursts = 0;
	c->st.up_stashed = 0;
	dp_upcall_ring(c, u->m, n);
}

/*
 * A burst's upcalls, @p n of them: on the ring now, or (up_batch) kept
 * behind those kept already, until enough are or DP_UPSTASH_BURSTS bursts
 * have passed since the oldest. Their order is kept either way: the ring's
 * order is the pending FIFO's.
 */
void
dp_upcall_put(struct dp_ctx *c, struct rte_mbuf **up, unsigned int n)
{
	struct dp_upstash *u = &c->ups;

	if (!dp_batching(c)) {
		dp_upcall_ring(c, up, n);
		return;
	}
	if (n == 0) {
		if (u->n != 0 && ++u->bursts >= DP_UPSTASH_BURSTS)
			dp_upcall_flush(c);
		return;
	}
	if (u->n + n > DP_UPSTASH_MAX)
		dp_upcall_flush(c);
	if (n > DP_UPSTASH_MAX) {
		dp_upcall_ring(c, up, n);
		return;
	}
	memcpy(&u->m[u->n], up, n * sizeof(*up));
	u->n = (uint16_t)(u->n + n);
	if (u->n >= c->up_batch || ++u->bursts >= DP_UPSTASH_BURSTS)
		dp_upcall_flush(c);
	else
		c->st.up_stashed = u->n;
}
