/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_stages.c — where the gufc path's cycles go, stage by
 * stage, measured rather than estimated.
 *
 * Each "stage path" runs a prefix of dp_rx_burst()'s steps on the same
 * packets, through the same public functions the datapath calls, and then
 * (untimed) frees the mbufs:
 *
 *   rx      rte_eth_rx_burst() from the net_ring port
 *   parse   + fc_parse_burst()
 *   locals  + fc_locals_mark_burst() (the key's local bits)
 *   hash    + the input port in each key and fc_table_hash_bulk()
 *   lookup  + fc_table_lookup_bulk() (rte_hash's bulk lookup, the entry
 *           line's prefetch and the seqlocked copy of the cached action)
 *   full    the gufc path itself (gufc_rx_poll(): everything above, then
 *           the stale/interest checks, the verdict, NAT, the entry's
 *           counters, grouping and the channel enqueue, the quiescent
 *           report)
 *
 * They take turns with the floor pass by pass like the main paths; a
 * stage's cost is the difference between consecutive prefixes, so it
 * includes the cache misses that stage is the first to take (e.g. the
 * packet's data line in parse, rte_hash's bucket and key lines in lookup).
 */

#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "bench.h"

_Static_assert(BENCH_ST__COUNT == RTE_DIM(((struct bench_point *)0)->stages),
	"struct bench_point::stages holds one figure per stage");

const char *
bench_stage_name(unsigned int s)
{
	static const char *const names[BENCH_ST__COUNT] = {"floor", "rx", "parse", "locals",
		"hash", "lookup", "full"};

	return s < BENCH_ST__COUNT ? names[s] : "?";
}

static volatile uint64_t stage_sink;

/* Run the first @p upto stages on one burst; cycles of the timed part. */
static uint64_t
stage_burst(struct bench_ctx *ctx, uint32_t from, unsigned int *np, enum bench_stage upto)
{
	struct bench_env *env = ctx->env;
	struct dp_ctx *dp = &env->lc->rx_dp;
	struct rte_mbuf *m[BENCH_BURST];
	struct fc_pkt pkts[BENCH_BURST];
	uint8_t res[BENCH_BURST];
	const void *keys[BENCH_BURST];
	uint32_t sigs[BENCH_BURST], idx[BENCH_BURST];
	struct fc_action acts[BENCH_BURST];
	uint64_t hit = 0, t0, t1;
	unsigned int n, nk = 0;

	if (bench_ring_ahead(ctx, from, np, false) != 0 || *np == 0)
		return 0;
	t0 = rte_rdtsc();
	n = rte_eth_rx_burst(env->port, 0, m, (uint16_t)*np);
	if (upto >= BENCH_ST_PARSE)
		fc_parse_burst(m, n, pkts, res);
	if (upto >= BENCH_ST_LOCALS)
		fc_locals_mark_burst(dp->locals, pkts, n);
	if (upto >= BENCH_ST_HASH) {
		for (unsigned int i = 0; i < n; i++) {
			if (res[i] != FC_PARSE_OK || pkts[i].key.family != FC_AF_INET4)
				continue;
			pkts[i].key.v4.in_port = env->port;
			keys[nk++] = &pkts[i].key.v4;
		}
		fc_table_hash_bulk(dp->tab4, keys, sigs, nk);
	}
	if (upto >= BENCH_ST_LOOKUP && nk != 0)
		fc_table_lookup_bulk(dp->tab4, dp->reader_id, keys, sigs, nk, &hit, acts, idx);
	t1 = rte_rdtsc();
	stage_sink += hit + nk;
	rte_pktmbuf_free_bulk(m, n);
	*np = n;
	return t1 - t0;
}

static uint64_t
st_rx(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	return stage_burst(ctx, from, np, BENCH_ST_RX);
}

static uint64_t
st_parse(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	return stage_burst(ctx, from, np, BENCH_ST_PARSE);
}

static uint64_t
st_locals(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	return stage_burst(ctx, from, np, BENCH_ST_LOCALS);
}

static uint64_t
st_hash(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	return stage_burst(ctx, from, np, BENCH_ST_HASH);
}

static uint64_t
st_lookup(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	return stage_burst(ctx, from, np, BENCH_ST_LOOKUP);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
bench_stages_measure(struct bench_ctx *ctx, double cpp[BENCH_ST__COUNT])
{
	static const bench_burst_fn fns[BENCH_ST__COUNT] = {bench_burst_floor, st_rx, st_parse,
		st_locals, st_hash, st_lookup, bench_burst_gufc};
	double v[BENCH_ST__COUNT][64];
	unsigned int reps = RTE_MIN(ctx->repeats, 64u);

	for (unsigned int k = 0; k < BENCH_ST__COUNT; k++)
		bench_pass_run(ctx, fns[k]); /* warm-up */
	for (unsigned int r = 0; r < reps; r++)
		for (unsigned int k = 0; k < BENCH_ST__COUNT; k++)
			v[k][r] = bench_pass_run(ctx, fns[k]);
	for (unsigned int k = 0; k < BENCH_ST__COUNT; k++) {
		qsort(v[k], reps, sizeof(v[k][0]), cmp_d);
		cpp[k] = reps == 0 ? 0 :
			(reps & 1) ? v[k][reps / 2] : (v[k][reps / 2 - 1] + v[k][reps / 2]) / 2;
	}
}
