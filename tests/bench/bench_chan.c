/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_chan.c — net channels at scale: the per-flow ring pool
 * grown to plan.perflow_rings live rings (100,000 outside --smoke), the
 * shared memory each ring costs, what making them cost on the slow path,
 * and the cost of delivering to per-flow rings against one shared channel,
 * measured side by side in one run (rounds alternate, medians kept).
 *
 * Delivery is the datapath's own (dp_deliver_burst(): grouping per
 * channel, one chan_enqueue_burst() per group) plus the primary's
 * consumer pass (chan_consume_all(): the shared channel drained, or the
 * per-flow rings that got packets, found by their ready bits). A burst of
 * 32 packets goes to 32 flows drawn at random among the live ones (per-flow:
 * 32 rings, 32 enqueues; shared: one enqueue of 32), which is the worst
 * case for per-flow delivery: a burst whose packets share flows groups them.
 * The same among PF_HOT of the rings tells what is code and what is memory:
 * a random ring among 100,000 (270 MB) costs its lines' cache misses on
 * both sides (slot, descriptor, ring header, slots).
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "bench.h"
#include "channel.h"
#include "datapath.h"
#include "gufc.h"

#define PF_BURST 32u
#define PF_ROUNDS 9u
#define PF_HOT 1000u /* rings of the hot case: they and their lines stay in cache */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One round: @p bursts bursts of PF_BURST packets; cycles per packet. */
static double
pf_round(struct bench_env *env, struct dp_ctx *dp, const uint32_t *ids, uint32_t n_ids,
	uint32_t shared, bool per_flow, unsigned int bursts, struct bench_rng *rng)
{
	struct gufc_app *app = env->app;
	struct rte_mbuf *m[PF_BURST];
	uint32_t dest[PF_BURST];
	uint64_t t0, cyc = 0, pkts = 0;

	for (unsigned int b = 0; b < bursts; b++) {
		if (rte_pktmbuf_alloc_bulk(app->pool, m, PF_BURST) != 0)
			break;
		for (unsigned int i = 0; i < PF_BURST; i++) {
			m[i]->data_len = 64;
			m[i]->pkt_len = 64;
			dest[i] = per_flow ? ids[bench_rng_below(rng, n_ids)] : shared;
		}
		t0 = rte_rdtsc();
		dp_deliver_burst(dp, m, dest, PF_BURST);
		/* The consumer pass every 4 bursts, as a main lcore between its duties. */
		if ((b & 3) == 3)
			chan_consume_all(app->chans, 64, 256);
		cyc += rte_rdtsc() - t0;
		pkts += PF_BURST;
	}
	t0 = rte_rdtsc();
	while (chan_consume_all(app->chans, 64, 256) != 0)
		;
	cyc += rte_rdtsc() - t0;
	return pkts != 0 ? (double)cyc / (double)pkts : 0;
}

int
bench_perflow(struct bench_env *env, struct bench_results *res)
{
	struct bench_perflow *r = &res->perflow;
	struct gufc_app *app = env->app;
	struct chan_params cp = {.name = "pf", .kind = CHAN_CONS_DISCARD, .ring_size = 4096};
	double shared_c[PF_ROUNDS], flow_c[PF_ROUNDS], hot_c[PF_ROUNDS];
	uint32_t want = res->plan.perflow_rings;
	struct chan_flow_pool fp;
	struct bench_rng rng;
	struct dp_ctx *dp;
	uint32_t *ids;
	uint64_t t0;
	int parent, id, rc = 0;
	uint32_t n = 0;

	memset(r, 0, sizeof(*r));
	if (want == 0)
		return 0;
	ids = calloc(want, sizeof(*ids));
	/* A delivery context of its own: the channel table, producer 0, not lossless. */
	dp = rte_zmalloc("bench_pf_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
	if (ids == NULL || dp == NULL) {
		free(ids);
		rte_free(dp);
		return -ENOMEM;
	}
	dp->chans = app->chans;
	dp->producer_id = 0;
	parent = chan_create(app->chans, &cp);
	if (parent < 0) {
		free(ids);
		rte_free(dp);
		return parent;
	}
	/* Make the rings as flows would: one at a time, the pool growing on demand. */
	t0 = rte_rdtsc();
	while (n < want) {
		id = chan_flow_alloc(app->chans, (uint16_t)parent);
		if (id < 0) {
			bench_note(res, "perflow", "the pool refused ring %u: %s", n, strerror(-id));
			break;
		}
		ids[n++] = (uint32_t)id;
	}
	r->alloc_ns = n != 0 ? (double)(rte_rdtsc() - t0) * 1e9 / res->tsc_hz / n : 0;
	chan_flow_pool_get(app->chans, &fp);
	r->rings = fp.in_use;
	r->chunks = fp.chunks;
	r->ring_size = fp.ring_size;
	r->bytes_per_ring = fp.bytes_per_ring;
	if (n < want) {
		rc = -ENOMEM;
		goto out;
	}

	/* Side by side: rounds alternate, medians kept (the host is shared). */
	bench_rng_seed(&rng, 99);
	for (unsigned int k = 0; k < PF_ROUNDS; k++) {
		unsigned int bursts = res->plan.mode == BENCH_MODE_SMOKE ? 64 : 4096;

		shared_c[k] = pf_round(env, dp, ids, n, (uint32_t)parent, false, bursts, &rng);
		flow_c[k] = pf_round(env, dp, ids, n, (uint32_t)parent, true, bursts, &rng);
		hot_c[k] = pf_round(env, dp, ids, RTE_MIN(n, PF_HOT), (uint32_t)parent, true, bursts,
			&rng);
	}
	qsort(shared_c, PF_ROUNDS, sizeof(double), cmp_double);
	qsort(flow_c, PF_ROUNDS, sizeof(double), cmp_double);
	qsort(hot_c, PF_ROUNDS, sizeof(double), cmp_double);
	r->hot_cpp = hot_c[PF_ROUNDS / 2];
	r->shared_cpp = shared_c[PF_ROUNDS / 2];
	r->perflow_cpp = flow_c[PF_ROUNDS / 2];
	r->ratio = r->shared_cpp > 0 ? r->perflow_cpp / r->shared_cpp : 0;
	r->measured = r->shared_cpp > 0 && r->perflow_cpp > 0;
	bench_note(res, "method_perflow",
		"perflow: %u per-flow rings of %u slots live at once (the pool grown a chunk of "
		"%u at a time on demand); delivery = dp_deliver_burst() + chan_consume_all(), "
		"bursts of %u packets each to %u flows drawn at random (per-flow: %u rings) or "
		"all to one shared channel; hot: the same among %u of the rings; median of %u "
		"alternating rounds",
		r->rings, r->ring_size, CHAN_FLOW_CHUNK, PF_BURST, PF_BURST, PF_BURST, PF_HOT,
		PF_ROUNDS);
out:
	/* Back to the pool (the table keeps the chunks), then the parent goes. */
	for (uint32_t i = 0; i < n; i++)
		chan_flow_free(app->chans, ids[i]);
	chan_delete(app->chans, (uint32_t)parent);
	free(ids);
	rte_free(dp);
	return rc;
}
