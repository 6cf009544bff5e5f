/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_slow.c — the rules lcore: the slow path and the consumers.
 *
 * Each pass: apply control messages (gufc_ctl_serve(), gufc_ctl.c), drain
 * every RX lcore's upcall ring in bursts (fragments are reassembled with
 * rte_ip_frag first, so port rules see every fragment's datagram), hand
 * them to lib/datapath's dp_upcall_burst (the rules engine decides; NAT
 * rewrite, channel or named drop applied as on the fast path; in router
 * mode ARP/ND frames to the neighbour module), do bounded background work
 * (rule_engine_step: aging, revalidation; mod_neigh_step: the neighbours'
 * timers) and ask for a classifier rebuild when the engine wants one
 * (gufc_ctl_cls_request()).
 *
 * Channel consumers also run here (gufc_consume: lib/channel's
 * chan_consume_all): TX channels are dequeued and sent on their port/queue
 * (RX lcores with TX queues of their own send directly, see
 * chan_producer_txq_set(); on ports without such queues, RX lcores that do
 * not hold the rules role consume the TX channels as well,
 * gufc_consume_tx(), so that a storm's slow path does not hold up
 * established flows' packets); pcap and discard channels are drained. APP
 * channels belong to their secondary process.
 *
 * Per-flow channels: the engine asks (gufc_chan_flow_alloc) when a flow is
 * accepted into a channel; for one declared "perflow" the flow gets a ring
 * of its own from the pool, "<parent>.<n>", with the parent's consumer. The
 * engine gives it back (gufc_chan_flow_free) once both entries of the flow
 * are gone and no RX lcore can still enqueue to it; whatever is left in the
 * ring is drained by the consumer (pcap, discard: delivered) or flushed
 * (tx, app: counted as the "flushed" drop through the channel totals).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gufc_ctl.h"

#define FRAG_BUCKETS 1024
#define FRAG_BUCKET_ENTRIES 16
#define FRAG_MAX_ENTRIES 4096
/*
 * Upcall bursts taken from each RX lcore's ring per pass, at most: enough to
 * spread the pass's fixed costs (control ring, background step, offload
 * policy) over many upcalls in a storm; the channel consumers run after
 * each burst, so what the slow path delivers never outruns them (a TX
 * channel takes CHAN_TX_BURST_MAX packets a pass) and the TX channels of
 * RX lcores without a TX queue of their own are served in between.
 */
#define UPCALL_BURSTS 8

/** Rules-lcore state. Owner: the rules lcore (created and freed by main). */
struct gufc_slow {
	struct rte_ip_frag_tbl *frag;
	struct rte_ip_frag_death_row dr;
	uint64_t next_expire_tsc;
	uint64_t next_step_tsc;
	struct gufc_lcore *step_lc; /**< running the neighbour module's step (unreach_fn) */
	uint32_t step_now;
};

int
gufc_slow_init(struct gufc_app *app)
{
	struct gufc_slow *s;

	s = rte_zmalloc("gufc_slow", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	if (app->cfg.set.fragments == GUFC_FRAG_REASSEMBLE) {
		uint64_t cycles = app->hz / 1000 * app->cfg.set.frag_timeout;

		s->frag = rte_ip_frag_table_create(FRAG_BUCKETS, FRAG_BUCKET_ENTRIES,
			FRAG_MAX_ENTRIES, cycles, (int)rte_socket_id());
		if (s->frag == NULL) {
			GUFC_LOG(ERR, "fragment table: %s", rte_strerror(rte_errno));
			rte_free(s);
			return -ENOMEM;
		}
	}
	app->slow = s;
	return 0;
}

void
gufc_slow_fini(struct gufc_app *app)
{
	struct gufc_slow *s = app->slow;

	if (s == NULL)
		return;
	if (s->frag != NULL)
		rte_ip_frag_table_destroy(s->frag);
	rte_free(s);
	app->slow = NULL;
}

/* Free the death row, counting each fragment on it as a failed one. */
static void
death_row_free(struct gufc_slow *s, struct gufc_stats *st)
{
	if (s->dr.cnt == 0)
		return;
	st->drops[GUFC_DROP_FRAG_FAILED] += s->dr.cnt;
	st->frag_dropped += s->dr.cnt;
	rte_ip_frag_free_death_row(&s->dr, 0);
}

void
gufc_slow_flush(struct gufc_app *app, struct gufc_lcore *lc)
{
	struct gufc_slow *s = app->slow;
	uint32_t freed;

	/* Packets still waiting for a next hop that did not answer (neigh_failed). */
	mod_neigh_flush(app->neigh);
	/* App channels nobody drains any more: free what is left (flushed;
	 * a channel with a consumer attached keeps its packets). */
	(void)chan_flush_app(app->chans);
	if (s == NULL || s->frag == NULL)
		return;
	do {
		rte_ip_frag_table_del_expired_entries(s->frag, &s->dr, UINT64_MAX);
		freed = s->dr.cnt;
		death_row_free(s, &lc->st);
	} while (freed != 0);
}

/*
 * Give a fragment to reassembly. @return the datagram when this fragment
 * completed one (parsed again into its meta), else NULL (held, or dropped
 * and counted).
 */
static struct rte_mbuf *
reassemble(struct gufc_app *app, struct gufc_lcore *lc, struct rte_mbuf *m, uint64_t tsc)
{
	struct gufc_slow *s = app->slow;
	struct gufc_stats *st = &lc->st;
	struct dp_meta *meta = dp_meta(m);
	struct fc_pkt *p = &meta->pkt;
	uint16_t in_port = fc_key_in_port(&p->key);
	struct rte_mbuf *d;
	enum fc_parse_result r;

	st->frag_in++;
	m->l2_len = p->l3_off;
	if (p->key.family == FC_AF_INET4) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, p->l3_off);

		m->l3_len = rte_ipv4_hdr_len(ip);
		d = rte_ipv4_frag_reassemble_packet(s->frag, &s->dr, m, tsc, ip);
	} else {
		struct rte_ipv6_hdr *ip6 =
			rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, p->l3_off);
		struct rte_ipv6_fragment_ext *fh = rte_ipv6_frag_get_ipv6_fragment_header(ip6);

		if (fh == NULL) {
			/* Extension headers before the fragment header: not supported. */
			st->drops[GUFC_DROP_FRAG_FAILED]++;
			st->frag_dropped++;
			rte_pktmbuf_free(m);
			return NULL;
		}
		m->l3_len = sizeof(*ip6) + sizeof(*fh);
		d = rte_ipv6_frag_reassemble_packet(s->frag, &s->dr, m, tsc, ip6, fh);
	}
	death_row_free(s, st);
	if (d == NULL)
		return NULL;
	st->frag_out++;
	if (p->key.family == FC_AF_INET4) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(d, struct rte_ipv4_hdr *, d->l2_len);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	meta = dp_meta(d);
	r = fc_parse_mbuf(d, &meta->pkt);
	if (r != FC_PARSE_OK) {
		st->drops[r >= FC_PARSE_ERR_BASE ? GUFC_DROP_PARSE_RES(r) : GUFC_DROP_FRAG_FAILED]++;
		rte_pktmbuf_free(d);
		return NULL;
	}
	/* The datagram's key gets the port of the fragment that completed it (its
	 * local bits read it: a local source is this host's on a host port only). */
	fc_key_set_in_port(&meta->pkt.key, in_port);
	fc_locals_mark_burst(app->locals, &meta->pkt, 1);
	meta->res = FC_PARSE_OK;
	meta->why = RULE_UPCALL_MISS;
	return d;
}

/*
 * Decide a burst from RX lcore @p rx's upcall ring, then tell the RX lcore
 * how many of its counted upcalls are done (its FIFO knows their
 * connections: their next packets may use the entries again, see struct
 * dp_pending), once their decisions are delivered (lossless: a full
 * channel's hold first, dp_upcall_done()). The ring's upcalls are decided in the order taken, each
 * burst before the next is taken, so a count is always of the oldest.
 */
static unsigned int
slow_upcalls(struct gufc_app *app, struct gufc_lcore *lc, struct gufc_lcore *rx, uint32_t now,
	uint64_t tsc)
{
	struct rte_mbuf *m[GUFC_BURST_MAX];
	struct rte_mbuf *batch[GUFC_BURST_MAX];
	unsigned int n, nb = 0, nt = 0;

	n = rte_ring_sc_dequeue_burst(rx->upcall, (void **)m, app->cfg.set.burst, NULL);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t res = dp_meta(m[i])->res;

		nt = dp_done_collect(m[i], nt);
		if (res == FC_PARSE_FRAG_FIRST || res == FC_PARSE_FRAG_LATER) {
			struct rte_mbuf *d = reassemble(app, lc, m[i], tsc);

			if (d != NULL)
				batch[nb++] = d;
		} else {
			batch[nb++] = m[i];
		}
	}
	dp_upcall_burst(&lc->slow_dp, batch, nb, now);
	dp_upcall_done(&lc->slow_dp, rx->rx_dp.done, nt);
	return n;
}

/* One background step of @p budget table slots (aging, revalidation, modules). */
static __rte_noinline void
slow_step(struct gufc_app *app, struct gufc_lcore *lc, uint32_t now, unsigned int budget)
{
	struct gufc_slow *s = app->slow;

	rule_engine_step(app->eng, now, budget);
	/* Router mode: neighbours' retries, probes, aging, announcements. */
	if (app->cfg.set.mode == GUFC_MODE_ROUTER) {
		s->step_lc = lc;
		s->step_now = now;
		mod_neigh_step(app->neigh, now, budget);
		s->step_lc = NULL;
	}
}

unsigned int
gufc_slow_poll(struct gufc_app *app, struct gufc_lcore *lc, uint32_t now)
{
	struct gufc_slow *s = app->slow;
	uint64_t tsc = rte_get_tsc_cycles();
	unsigned int work = 0;

	gufc_ctl_serve(app);
	/* Lossless: decisions a full channel held back go first, and no new
	 * upcall is taken while some wait (the RX lcores wait in turn). */
	if (dp_held(&lc->slow_dp) == 0 || dp_hold_retry(&lc->slow_dp) == 0)
		for (unsigned int i = 0; i < app->n_rx && dp_held(&lc->slow_dp) == 0; i++)
			for (unsigned int k = 0; k < UPCALL_BURSTS && dp_held(&lc->slow_dp) == 0; k++) {
				unsigned int n = slow_upcalls(app, lc, app->rx[i], now, tsc);

				work += n;
				if (n < app->cfg.set.burst)
					break;
				/* The consumers keep pace with what the slow path delivers
				 * (TX channels take CHAN_TX_BURST_MAX a call). */
				gufc_consume(app, lc);
			}
	if (s->frag != NULL && tsc >= s->next_expire_tsc) {
		s->next_expire_tsc = tsc + app->hz / 100;
		rte_ip_frag_table_del_expired_entries(s->frag, &s->dr, tsc);
		death_row_free(s, &lc->st);
	}
	/*
	 * Background work (aging, revalidation, modules' steps): a step of
	 * GUFC_STEP_BUDGET slots about every millisecond whatever the load, and
	 * a smaller one on every idle pass in between (no upcall taken). Where
	 * the rules role shares its lcore with RX, "idle" is every poll between
	 * two RX bursts, so the idle step's budget is what a revalidation pass
	 * takes from the fast path per burst (README, "Latest figures").
	 */
	if (tsc >= s->next_step_tsc) {
		s->next_step_tsc = tsc + app->hz / 1000;
		slow_step(app, lc, now, GUFC_STEP_BUDGET);
	} else if (work == 0) {
		/* (Calls of their own, not inlined: profiles tell the two steps apart.) */
		slow_step(app, lc, now,
			app->idle_step_budget != 0 ? app->idle_step_budget : GUFC_IDLE_STEP_BUDGET);
	}
	gufc_offload_poll(app, now); /* heavy hitters to hardware, about every ms */
	gufc_ctl_cls_request(app, tsc);
	return work;
}

unsigned int
gufc_consume(struct gufc_app *app, struct gufc_lcore *lc)
{
	RTE_SET_USED(lc);
	return chan_consume_all(app->chans, GUFC_BURST_MAX, 256);
}

unsigned int
gufc_consume_tx(struct gufc_app *app, struct gufc_lcore *lc)
{
	unsigned int n = 0;

	RTE_SET_USED(lc);
	for (unsigned int i = 0; i < app->n_ring_tx; i++)
		n += chan_tx_poll(app->chans, app->ring_tx[i], CHAN_TX_BURST_MAX);
	return n;
}

bool
gufc_slow_busy(struct gufc_app *app)
{
	bool stopping = __atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) != GUFC_PHASE_RUN;
	uint64_t now = rte_get_tsc_cycles();
	struct chan_backlog bl;

	for (unsigned int i = 0; i < app->n_rx; i++)
		if (rte_ring_count(app->rx[i]->upcall) != 0 ||
			__atomic_load_n(&app->rx[i]->rx_dp.st.ll_held, __ATOMIC_RELAXED) != 0 ||
			__atomic_load_n(&app->rx[i]->rx_dp.st.up_stashed, __ATOMIC_RELAXED) != 0 ||
			__atomic_load_n(&app->rx[i]->rx_dp.st.kept, __ATOMIC_RELAXED) != 0 ||
			__atomic_load_n(&app->rx[i]->rx_dp.st.waiting, __ATOMIC_RELAXED) != 0)
			return true;
	if (app->rules_lc != NULL &&
		__atomic_load_n(&app->rules_lc->slow_dp.st.ll_held, __ATOMIC_RELAXED) != 0)
		return true;
	/* One pass over the rings (per-flow ones included), no lock per channel. */
	if (chan_backlog_get(app->chans, &bl) != 0)
		return false;
	if (bl.primary != 0)
		return true;
	/* Another process drains app channels: only worth waiting for when
	 * stopping, with a consumer attached, and not forever. */
	if (!stopping || bl.app_attached == 0)
		return false;
	if (app->app_grace_tsc == 0)
		app->app_grace_tsc = now + app->hz / 1000 * GUFC_APP_GRACE_MS;
	return now < app->app_grace_tsc;
}

bool
gufc_slow_app_pending(struct gufc_app *app)
{
	struct chan_backlog bl;

	return chan_backlog_get(app->chans, &bl) == 0 && bl.app_attached + bl.app_detached != 0;
}

int
gufc_chan_flow_alloc(void *arg, uint16_t channel)
{
	struct gufc_app *app = arg;

	if (channel >= RTE_DIM(app->chan_perflow) || !app->chan_perflow[channel])
		return -ENOTSUP;
	return chan_flow_alloc(app->chans, channel);
}

int
gufc_chan_flow_free(void *arg, uint32_t id)
{
	struct gufc_app *app = arg;

	return chan_flow_free(app->chans, id);
}

void
gufc_slow_neigh_unreach(void *arg, struct rte_mbuf *m)
{
	struct gufc_app *app = arg;
	struct gufc_slow *s = app->slow;

	if (s == NULL || s->step_lc == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	dp_l3_held_failed(&s->step_lc->slow_dp, m, s->step_now);
}
