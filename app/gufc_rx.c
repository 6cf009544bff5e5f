/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_rx.c — the RX lcore: rte_eth_rx_burst on each of its queues,
 * every burst handed to lib/datapath's fast path (dp_rx_burst: parse,
 * lookup, cached actions, delivery, upcalls), and one quiescent report per
 * loop. Lossless (--lossless): a burst a full ring held back is offered
 * again before the queues are polled again. With rx-ahead, on live ports
 * each burst is kept one poll (dp_rx_burst_ahead(): applied after the next
 * burst's parse, or at the next poll that receives nothing). A device with
 * VLAN sub-interfaces gives its tagged frames to them (dp_vlan_rx()). Also sets up every
 * lcore's datapath contexts (gufc_dp_init).
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gufc.h"
#include "gufc_idle.h"

/*
 * Microseconds an RX lcore lets pass between two reads of its completion
 * counter while no packet waits for a completion (struct dp_ctx::done_gap):
 * in a storm of new flows the rules lcore moves it a burst at a time, and
 * each read after a move brings its line over from the other core; reading
 * every 10 us brings it once for all the completions of that time. A
 * packet that finds its connection still pending waits, and then the
 * counter is read at once: nothing waits on the gap.
 */
#define GUFC_DONE_GAP_US 10

/*
 * Upcalls an RX lcore on a live port keeps for one ring enqueue (struct
 * dp_ctx::up_batch): in a storm of new flows among established ones each
 * burst has a few, and every enqueue moves the ring's two lines between
 * this core and the rules lcore's. They go on the ring at this many, after
 * DP_UPSTASH_BURSTS bursts, or at the first poll that receives nothing.
 */
#define GUFC_UP_BATCH 16

/* What every context of the app shares. */
static void
dp_ctx_base(struct gufc_app *app, struct dp_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->eng = app->eng;
	c->tab4 = app->tab4;
	c->tab6 = app->tab6;
	c->nat = app->nat;
	c->ct_fast = mod_ct_module_fast(app->ctm);
	c->ct = app->ctm;
	c->locals = app->locals;
	c->chans = app->chans;
	c->def_chan = app->def_chan;
	c->port_chan = app->port_chan;
	c->frag_mode = app->cfg.set.fragments == GUFC_FRAG_DROP ? DP_FRAG_DROP : DP_FRAG_UPCALL;
	c->non_ip_mode = app->cfg.set.non_ip == GUFC_NONIP_DROP ? DP_NONIP_DROP : DP_NONIP_PASS;
}

/*
 * May packets behind their connection's upcall wait on RX lcore @p lc
 * (struct dp_ctx::pend_wait)? On live ports, yes: they go on through the
 * fast path when the upcall completes, one upcall a connection, in order
 * within the connection (what a NIC keeps). A port whose read may block (a
 * FIFO, a character device: gufc_port.c) would keep them waiting for its
 * next packet: there they go up behind the upcall. Regular files (setting
 * file-wait): auto lets them wait where another lcore decides the upcalls,
 * the file's read never blocking; where this lcore is the rules lcore too,
 * the upcall is decided in the same loop, before the next read, and going
 * up behind it keeps the file's order across connections (what replays
 * compared frame by frame rely on). on: wait there too; off: never wait on
 * a file.
 */
static bool
rx_wait(const struct gufc_app *app, const struct gufc_lcore *lc)
{
	unsigned int fw = app->cfg.set.file_wait;

	for (unsigned int q = 0; q < lc->n_rxq; q++) {
		const struct gufc_port *p = &app->ports[lc->rxq[q].port];

		if (p->rx_src != GUFC_RX_FILE)
			continue;
		if (p->rx_block || fw == GUFC_OFF ||
			(fw == GUFC_AUTO && (lc->roles & GUFC_ROLE_RULES)))
			return false;
	}
	return true;
}

/* Does RX lcore @p lc poll no file-backed port? */
static bool
rx_live(const struct gufc_app *app, const struct gufc_lcore *lc)
{
	for (unsigned int q = 0; q < lc->n_rxq; q++)
		if (app->ports[lc->rxq[q].port].rx_src == GUFC_RX_FILE)
			return false;
	return true;
}

void
gufc_dp_init(struct gufc_app *app)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		struct gufc_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		dp_ctx_base(app, &lc->rx_dp);
		lc->rx_dp.marks = app->dp_marks;
		lc->rx_dp.upcall = lc->upcall;
		lc->rx_dp.reader_id = (uint16_t)lc->rx_index;
		lc->rx_dp.producer_id = (uint16_t)lc->rx_index;
		lc->rx_dp.lossless = app->lossless;
		lc->rx_dp.pend = lc->pend;
		lc->rx_dp.done = lc->done;
		lc->rx_dp.done_gap = app->hz * GUFC_DONE_GAP_US / 1000000;
		lc->rx_dp.pend_wait = rx_wait(app, lc);
		/* A file's upcalls go at once. */
		lc->rx_dp.up_batch = rx_live(app, lc) ? GUFC_UP_BATCH : 0;
		/* rx-ahead: each burst kept a poll (applied after the next
		 * one's parse), where no read may block and nothing is held
		 * for room. */
		lc->rx_dp.rx_ahead = app->cfg.set.rx_ahead && rx_live(app, lc) && !app->lossless;
		dp_ctx_base(app, &lc->slow_dp);
		lc->slow_dp.producer_id = (uint16_t)app->rules_producer;
		lc->slow_dp.lossless = app->lossless;
		lc->slow_dp.flat = lc->flat;
		/* Packets behind their connection's upcall: the fast path's code. */
		lc->slow_dp.up_fast = app->cfg.set.pending_fast != 0;
	}
}

bool
gufc_rx_idle(struct gufc_lcore *lc, uint32_t now)
{
	dp_rx_flush(&lc->rx_dp);
	dp_upcall_flush(&lc->rx_dp);
	dp_done_poll(&lc->rx_dp, now);
	/* dp_done_poll() may have sent waiting packets up again (kept for one
	 * enqueue): on the ring now, or the lcore would stop with them kept
	 * and the rules lcore wait for them (gufc_slow_busy()) for ever. */
	dp_upcall_flush(&lc->rx_dp);
	if (dp_held(&lc->rx_dp) != 0 && dp_hold_retry(&lc->rx_dp) != 0)
		return false;
	return lc->rx_dp.st.waiting == 0 && lc->rx_dp.st.up_stashed == 0;
}

/* A TSC read where @p tm asks for times (a constant NULL in gufc_rx_poll(): none). */
static __rte_always_inline uint64_t
rx_tsc(const struct gufc_rx_times *tm)
{
	return tm != NULL ? rte_rdtsc() : 0;
}

static __rte_always_inline unsigned int
rx_poll(struct gufc_lcore *lc, uint32_t now, struct gufc_rx_times *tm)
{
	struct gufc_app *app = lc->app;
	struct rte_mbuf *m[GUFC_BURST_MAX];
	uint16_t burst = (uint16_t)app->cfg.set.burst;
	unsigned int total = 0, q = 0;
	uint64_t t0 = rx_tsc(tm), t1;

	if (tm != NULL)
		memset(tm, 0, sizeof(*tm));
	/* Connections whose upcalls the slow path finished: their waiting
	 * packets go on first. */
	dp_done_poll(&lc->rx_dp, now);
	if (tm != NULL)
		tm->done = rx_tsc(tm) - t0;
	/* Lossless: packets a full ring held back go first; until they are
	 * gone, nothing more is pulled (the queue, or the file, waits). Once
	 * stopping, nothing more is pulled either. */
	if (dp_held(&lc->rx_dp) != 0 && dp_hold_retry(&lc->rx_dp) != 0)
		goto out;
	if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) != GUFC_PHASE_RUN)
		goto out;
	for (; q < lc->n_rxq; q++) {
		const struct gufc_rxq *rq = &lc->rxq[q];
		uint16_t n;

		/* Lossless: pull only what could wait behind its connection. */
		if (lc->rx_dp.lossless && dp_wait_room(&lc->rx_dp) < burst)
			break;
		t0 = rx_tsc(tm);
		n = rte_eth_rx_burst(rq->port, rq->queue, m, burst);
		if (tm != NULL)
			tm->rx += rx_tsc(tm) - t0;

		if (n == 0)
			continue;
		t0 = rx_tsc(tm);
		/* A file's read may have blocked: completions since count too
		 * (nothing waits on such an lcore, so nothing runs again here). */
		if (!lc->rx_dp.pend_wait)
			dp_done_poll(&lc->rx_dp, now);
		total += n;
		if (unlikely(app->ports[rq->port].l2_conv))
			gufc_l2_rx(app, rq, m, n);
		/* A device with VLAN sub-interfaces: its tagged frames are theirs. */
		if (unlikely(app->ports[rq->port].vmap != NULL))
			dp_vlan_rx(&lc->rx_dp, app->ports[rq->port].vmap, rq->port, m, n, now);
		else
			dp_rx_burst_ahead(&lc->rx_dp, rq->port, m, n, now);
		if (tm != NULL)
			tm->dp += rx_tsc(tm) - t0;
		if (dp_held(&lc->rx_dp) != 0)
			break;
	}
	/* Idle (--idle-exit) only where every queue was read: a poll the wait
	 * queue's room stopped read nothing, a file's rest included. */
	if (gufc_idle_polled_empty(q, lc->n_rxq, total))
		__atomic_store_n(&lc->st.last_empty_tsc, rte_get_tsc_cycles(), __ATOMIC_RELAXED);
out:
	/* Nothing came (or nothing may be pulled): the burst kept since the
	 * last poll is applied, and what is kept for the upcall ring goes up. */
	if (total == 0) {
		dp_rx_flush(&lc->rx_dp);
		dp_upcall_flush(&lc->rx_dp);
	}
	if (total != 0)
		lc->st.last_rx_tsc = rte_get_tsc_cycles();
	t0 = rx_tsc(tm);
	rule_engine_quiescent(app->eng, lc->rx_index);
	if (tm != NULL) {
		t1 = rx_tsc(tm);
		tm->quiescent = t1 - t0;
	}
	return total;
}

unsigned int
gufc_rx_poll(struct gufc_lcore *lc, uint32_t now)
{
	return rx_poll(lc, now, NULL);
}

unsigned int
gufc_rx_poll_timed(struct gufc_lcore *lc, uint32_t now, struct gufc_rx_times *tm)
{
	return rx_poll(lc, now, tm);
}
