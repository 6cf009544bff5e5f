/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_paths.c — the four per-packet paths gufc-bench puts side
 * by side, and the harness that times them.
 *
 * Per burst of 32, the harness first does what a NIC would (untimed): take
 * mbufs from the pool, write the frames of the next trace packets into them
 * and put them on the net_ring port's RX ring, as a real NIC's ring is a
 * burst ahead of the poll (bench_ring_ahead(): the burst polled next
 * already waits behind the one polled now; the poll asks for exactly its
 * burst). Then it times one burst of the path with rte_rdtsc, then
 * (untimed) drains the default channel, which frees the delivered mbufs
 * back to the pool as a consumer would. What is fed ahead at a pass's end
 * is polled, untimed, before the next path's pass (bench_ring_drain()).
 *
 *  - floor:    rte_hash_lookup_bulk_data() alone on the trace's keys, copied
 *              beforehand into a hot array (as the mbuf paths' frames are
 *              written shortly before their poll); the table has the flow
 *              table's geometry and holds the same keys. No mbufs.
 *  - gufc:     gufc_rx_poll() of app/gufc_rx.c: RX burst, then lib/datapath's
 *              dp_rx_burst (parse, local bits, hash, fc_table_lookup_bulk,
 *              stale/interest checks, cached verdict, NAT, fc_table_touch,
 *              grouped chan_enqueue_burst), the quiescent report.
 *  - linear:   a design that decides every packet: RX burst, parse, local
 *              bits, then per packet a conntrack rte_hash lookup, the
 *              reference evaluator's first-match walk (rule_ref_filter) and
 *              an rte_lpm route lookup, then the same delivery.
 *  - pipeline: the same with the best bulk tools: rte_hash bulk lookup,
 *              rule_cls (rte_acl) bulk classification, rte_lpm bulk lookup.
 *
 * A pass takes the next pass_len packets of the trace; slow paths stop a
 * pass early once it spent pass_budget cycles (at least 8 bursts). The
 * paths take turns, pass by pass; the first round warms up and is not
 * counted; a figure is the median cycles per packet of the other rounds.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "bench.h"

#define MIN_BURSTS 8
#define MAX_PASS_BURSTS 16384
#define TRIM_FACTOR 16

static volatile uint64_t sink;

const char *
bench_path_name(unsigned int p)
{
	static const char *const names[BENCH_PATH__COUNT] = {"floor", "gufc", "linear",
		"pipeline", "marked"};

	return p < BENCH_PATH__COUNT ? names[p] : "?";
}

const char *
bench_dist_name(unsigned int d)
{
	return d == BENCH_UNIFORM ? "uniform" : d == BENCH_ZIPF ? "zipf" : "?";
}

struct rte_hash *
bench_ct_build(struct bench_env *env, const char *name)
{
	struct fc_table *t = env->app->tab4;
	struct rte_hash_parameters hp;
	struct fc_table_stats st;
	struct rte_hash *h;
	const void *key;
	uint32_t next = 0, idx;

	fc_table_stats_get(t, &st);
	memset(&hp, 0, sizeof(hp));
	hp.name = name;
	/* fc_table geometry: capacity plus max(capacity / 8, 64) headroom slots. */
	hp.entries = st.capacity + RTE_MAX(st.capacity / 8, 64u);
	hp.key_len = sizeof(struct fc_key_v4);
	hp.hash_func = rte_hash_crc;
	hp.hash_func_init_val = (uint32_t)rte_rand();
	hp.socket_id = (int)rte_socket_id();
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	h = rte_hash_create(&hp);
	if (h == NULL)
		return NULL;
	while (fc_table_iterate(t, &next, &key, &idx) == 0) {
		const struct fc_entry *e = fc_table_entry(t, idx);
		uintptr_t ctstate = (e != NULL && (e->act.flags & FC_ACT_F_REPLY)) ?
			RULE_CT_ESTABLISHED : RULE_CT_NEW;

		if (rte_hash_add_key_data(h, key, (void *)ctstate) != 0) {
			rte_hash_free(h);
			return NULL;
		}
	}
	return h;
}

/* The frame of key @p ki (a TCP ACK|PSH segment for TCP keys) into @p m. */
static void
mbuf_write(struct bench_ctx *ctx, struct rte_mbuf *m, uint32_t ki)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = bench_frame_write(d, rte_pktmbuf_tailroom(m), &ctx->keys[ki], 0x18);

	if (ctx->seq != NULL && fc_key_proto(&ctx->keys[ki]) == 6) {
		/* The next segment of the established connection: in sequence. */
		bool v4 = ctx->keys[ki].family == FC_AF_INET4;
		uint8_t *ip = d + 14, *l4 = ip + (v4 ? 20 : 40);
		uint32_t seq = ctx->seq[ki], dlen;

		l4[4] = (uint8_t)(seq >> 24);
		l4[5] = (uint8_t)(seq >> 16);
		l4[6] = (uint8_t)(seq >> 8);
		l4[7] = (uint8_t)seq;
		dlen = v4 ? ((uint32_t)ip[2] << 8 | ip[3]) - 40 : ((uint32_t)ip[4] << 8 | ip[5]) - 20;
		ctx->seq[ki] = seq + dlen;
	}

	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->port = ctx->env->port;
}

int
bench_mbufs_fill(struct bench_ctx *ctx, struct rte_mbuf **m, uint32_t from, unsigned int n)
{
	if (rte_pktmbuf_alloc_bulk(ctx->env->app->pool, m, n) != 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		mbuf_write(ctx, m[i], ctx->trace[from + i]);
	return 0;
}

/* NIC side of a burst: fresh mbufs with the frames, on the port's RX ring. */
int
bench_nic_rx(struct bench_ctx *ctx, uint32_t from, unsigned int n)
{
	struct rte_mbuf *m[BENCH_BURST];

	if (bench_mbufs_fill(ctx, m, from, n) != 0)
		return -ENOMEM;
	if (rte_ring_sp_enqueue_bulk(ctx->env->rx_ring, (void **)m, n, NULL) != n) {
		rte_pktmbuf_free_bulk(m, n);
		return -ENOBUFS;
	}
	return 0;
}

/* Consumer side: the default channel's DISCARD consumer frees what arrived. */
static void
consume(struct bench_ctx *ctx)
{
	struct bench_env *env = ctx->env;

	chan_drain(env->app->chans, CHAN_ID_DEFAULT, UINT32_MAX);
	dp_upcall_flush(&env->lc->rx_dp);
	if (rte_ring_count(env->lc->upcall) != 0)
		gufc_slow_poll(env->app, env->lc, ctx->now);
}

static int marks_build(struct bench_ctx *ctx);

/* key_mark[] of a flow whose packets a hardware DROP rule keeps off the CPU. */
#define MARK_HW_DROP UINT32_MAX

/*
 * The marked path's NIC side of trace[from..from+n): the DROP flows'
 * packets stay in the NIC, the others go on the ring marked as a MARK
 * rule marks them; *got: how many.
 */
static int
nic_rx_marked(struct bench_ctx *ctx, uint32_t from, unsigned int n, unsigned int *got)
{
	struct bench_env *env = ctx->env;
	struct rte_mbuf *m[BENCH_BURST];
	uint32_t ki[BENCH_BURST];
	unsigned int k = 0;

	*got = 0;
	if (!ctx->marks_built && marks_build(ctx) != 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		if (ctx->key_mark[ctx->trace[from + i]] != MARK_HW_DROP)
			ki[k++] = ctx->trace[from + i];
	if (k == 0)
		return 0;
	if (rte_pktmbuf_alloc_bulk(env->app->pool, m, k) != 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < k; i++) {
		uint32_t mark = ctx->key_mark[ki[i]];

		mbuf_write(ctx, m[i], ki[i]);
		if (mark == 0)
			continue;
		m[i]->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
		m[i]->hash.fdir.hi = mark;
	}
	if (rte_ring_sp_enqueue_bulk(env->rx_ring, (void **)m, k, NULL) != k) {
		rte_pktmbuf_free_bulk(m, k);
		return -ENOBUFS;
	}
	*got = k;
	return 0;
}

static int
nic_feed(struct bench_ctx *ctx, uint32_t from, unsigned int n, bool marked, unsigned int *got)
{
	int rc;

	if (marked)
		return nic_rx_marked(ctx, from, n, got);
	rc = bench_nic_rx(ctx, from, n);
	*got = rc == 0 ? n : 0;
	return rc;
}

void
bench_ring_drain(struct bench_ctx *ctx)
{
	struct bench_env *env = ctx->env;

	if (!ctx->ahead)
		return;
	ctx->ahead = false;
	if (ctx->ahead_marked)
		env->lc->rx_dp.marks = &ctx->marks;
	while (rte_ring_count(env->rx_ring) != 0 && gufc_rx_poll(env->lc, ctx->now) != 0)
		;
	/* The burst the last poll kept (dp_rx_burst_ahead()): a poll that
	 * receives nothing applies it. */
	gufc_rx_poll(env->lc, ctx->now);
	env->lc->rx_dp.marks = NULL;
	consume(ctx);
}

int
bench_ring_ahead(struct bench_ctx *ctx, uint32_t from, unsigned int *np, bool marked)
{
	unsigned int n = *np, next_n;
	uint32_t next = from + n;
	int rc;

	/* What waits is another burst (a new pass, another path): polled first. */
	if (ctx->ahead &&
		(ctx->ahead_from != from || ctx->ahead_req != n || ctx->ahead_marked != marked))
		bench_ring_drain(ctx);
	if (ctx->ahead) {
		*np = ctx->ahead_n;
		ctx->ahead = false;
	} else if ((rc = nic_feed(ctx, from, n, marked, np)) != 0) {
		*np = 0;
		return rc;
	}
	next_n = next < ctx->trace_len ? RTE_MIN((uint32_t)BENCH_BURST, ctx->trace_len - next) : 0;
	if (next_n != 0 && nic_feed(ctx, next, next_n, marked, &ctx->ahead_n) == 0) {
		ctx->ahead = true;
		ctx->ahead_marked = marked;
		ctx->ahead_from = next;
		ctx->ahead_req = next_n;
	}
	return 0;
}

/*
 * gufc_rx_poll() asking for exactly @p n packets (the burst fed for it,
 * not the one behind it), timed.
 */
static uint64_t
poll_timed(struct bench_ctx *ctx, unsigned int n)
{
	struct gufc_app *app = ctx->env->app;
	uint32_t burst = app->cfg.set.burst;
	uint64_t t0, t1;

	app->cfg.set.burst = n;
	t0 = rte_rdtsc();
	gufc_rx_poll(ctx->env->lc, ctx->now);
	t1 = rte_rdtsc();
	app->cfg.set.burst = burst;
	return t1 - t0;
}

uint64_t
bench_burst_floor(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	unsigned int n = *np;
	struct fc_key_v4 kbuf[BENCH_BURST];
	const void *kp[BENCH_BURST];
	void *data[BENCH_BURST];
	uint64_t hit = 0, t0, t1;

	for (unsigned int i = 0; i < n; i++) {
		kbuf[i] = ctx->keys[ctx->trace[from + i]].v4;
		kp[i] = &kbuf[i];
	}
	t0 = rte_rdtsc();
	rte_hash_lookup_bulk_data(ctx->ct, kp, n, &hit, data);
	t1 = rte_rdtsc();
	sink += hit;
	return t1 - t0;
}

uint64_t
bench_burst_gufc(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	uint64_t cyc;

	if (bench_ring_ahead(ctx, from, np, false) != 0 || *np == 0)
		return 0;
	cyc = poll_timed(ctx, *np);
	consume(ctx);
	return cyc;
}

/*
 * The marks a policy would have made live: one per ACCEPT (no NAT) entry of
 * the IPv4 table, as if every accepted flow of the trace had a MARK rule.
 * DROP flows have hardware DROP rules (the policy's full offload): their
 * packets never reach gufc.
 */
static int
marks_build(struct bench_ctx *ctx)
{
	struct fc_table *t = ctx->env->app->tab4;
	struct fc_table_stats ts;

	fc_table_stats_get(t, &ts);
	ctx->marks.cap[0] = ts.capacity + ts.capacity / 4 + 256;
	ctx->marks.cap[1] = 0;
	ctx->marks.tab[0] = t;
	ctx->marks.tab[1] = NULL;
	ctx->key_mark = calloc(ctx->n_keys + 1, sizeof(uint32_t));
	if (ctx->key_mark == NULL) {
		bench_marks_free(ctx);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < ctx->n_keys; i++) {
		const struct fc_key_v4 *k = &ctx->keys[i].v4;
		int idx = fc_table_lookup(t, k, fc_table_hash(t, k));
		const struct fc_entry *e;

		if (idx < 0 || (uint32_t)idx >= ctx->marks.cap[0])
			continue;
		e = fc_table_entry(t, (uint32_t)idx);
		if (e == NULL || (e->act.flags & FC_ACT_F_NAT))
			continue;
		if (e->act.verdict == FC_VERDICT_DROP) {
			ctx->key_mark[i] = MARK_HW_DROP;
			continue;
		}
		if (e->act.verdict != FC_VERDICT_ACCEPT)
			continue;
		ctx->key_mark[i] = dp_mark_make(0, (uint32_t)idx, 1);
		fc_table_mark_tag_set(t, (uint32_t)idx, dp_mark_tag(ctx->key_mark[i]));
	}
	ctx->marks_built = true;
	return 0;
}

void
bench_marks_free(struct bench_ctx *ctx)
{
	/* Withdraw the marks from the entries (as a policy's removal would). */
	for (uint32_t i = 0; ctx->key_mark != NULL && i < ctx->n_keys; i++) {
		uint32_t mk = ctx->key_mark[i];

		if (mk != 0 && mk != MARK_HW_DROP &&
			fc_table_mark_tag(ctx->env->app->tab4, mk & DP_MARK_IDX_MASK) ==
				dp_mark_tag(mk))
			fc_table_mark_tag_set(ctx->env->app->tab4, mk & DP_MARK_IDX_MASK, 0);
	}
	free(ctx->key_mark);
	memset(&ctx->marks, 0, sizeof(ctx->marks));
	ctx->key_mark = NULL;
	ctx->marks_built = false;
}

/*
 * The gufc path with the NIC's help: the same frames, marked as the swnic
 * model or a NIC with MARK rules would mark them, through gufc_rx_poll()
 * with the RX context's marks view set (step 0 of dp_rx_burst()). Packets of DROP
 * flows stay in the NIC: *np becomes the packets gufc received, so the
 * figure is gufc's cycles per packet it handled.
 */
uint64_t
bench_burst_marked(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	struct bench_env *env = ctx->env;
	uint64_t cyc;

	if (bench_ring_ahead(ctx, from, np, true) != 0 || *np == 0)
		return 0;
	env->lc->rx_dp.marks = &ctx->marks;
	cyc = poll_timed(ctx, *np);
	env->lc->rx_dp.marks = NULL;
	consume(ctx);
	return cyc;
}

/* Delivery shared by linear and pipeline: the datapath's own grouping and enqueue. */
static void
deliver(struct bench_ctx *ctx, struct dp_ctx *dp, struct rte_mbuf **out, uint32_t *dest,
	unsigned int no, struct rte_mbuf **dropped, unsigned int nd)
{
	RTE_SET_USED(ctx);
	dp_deliver_burst(dp, out, dest, no);
	if (nd != 0)
		rte_pktmbuf_free_bulk(dropped, nd);
}

static uint64_t
burst_linear(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	unsigned int n = *np;
	struct bench_env *env = ctx->env;
	struct gufc_app *app = env->app;
	struct dp_ctx *dp = &env->lc->rx_dp;
	struct rte_mbuf *m[BENCH_BURST], *out[BENCH_BURST], *dropped[BENCH_BURST];
	struct fc_pkt pkts[BENCH_BURST];
	uint8_t res[BENCH_BURST];
	uint32_t dest[BENCH_BURST];
	unsigned int no = 0, nd = 0, nr;
	uint64_t t0, t1;

	if (bench_ring_ahead(ctx, from, &n, false) != 0 || n == 0)
		return 0;
	t0 = rte_rdtsc();
	nr = rte_eth_rx_burst(env->port, 0, m, (uint16_t)n);
	fc_parse_burst(m, nr, pkts, res);
	fc_locals_mark_burst(app->locals, pkts, nr);
	for (unsigned int i = 0; i < nr; i++) {
		struct rule_result rr;
		void *data;
		uint32_t hop;
		unsigned int ctstate;

		if (res[i] != FC_PARSE_OK || pkts[i].key.family != FC_AF_INET4) {
			dropped[nd++] = m[i];
			continue;
		}
		ctstate = rte_hash_lookup_data(ctx->ct, &pkts[i].key.v4, &data) >= 0 ?
			(unsigned int)(uintptr_t)data : RULE_CT_NEW;
		if (rule_ref_filter(ctx->set, &pkts[i].key, ctstate, 0, &rr) != 0 ||
			rr.verdict != RULE_VERDICT_ACCEPT) {
			dropped[nd++] = m[i];
			continue;
		}
		if (rte_lpm_lookup(env->lpm, rte_be_to_cpu_32(pkts[i].key.v4.dst), &hop) != 0)
			hop = RULE_PORT_PAIRED;
		out[no] = m[i];
		dest[no++] = dp_dest(dp, CHAN_ID_DEFAULT, (uint16_t)hop, env->port);
	}
	deliver(ctx, dp, out, dest, no, dropped, nd);
	t1 = rte_rdtsc();
	consume(ctx);
	return t1 - t0;
}

static uint64_t
burst_pipeline(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	unsigned int n = *np;
	struct bench_env *env = ctx->env;
	struct gufc_app *app = env->app;
	struct dp_ctx *dp = &env->lc->rx_dp;
	struct rte_mbuf *m[BENCH_BURST], *out[BENCH_BURST], *dropped[BENCH_BURST];
	struct rte_mbuf *sel[BENCH_BURST];
	struct fc_pkt pkts[BENCH_BURST];
	const struct fc_key *keys[BENCH_BURST];
	const void *kp[BENCH_BURST];
	void *data[BENCH_BURST];
	struct rule_result rr[BENCH_BURST];
	uint8_t res[BENCH_BURST], ctstate[BENCH_BURST];
	uint32_t ips[BENCH_BURST], hops[BENCH_BURST];
	uint32_t dest[BENCH_BURST];
	unsigned int no = 0, nd = 0, nk = 0, nr;
	uint64_t hit = 0, t0, t1;

	if (bench_ring_ahead(ctx, from, &n, false) != 0 || n == 0)
		return 0;
	t0 = rte_rdtsc();
	nr = rte_eth_rx_burst(env->port, 0, m, (uint16_t)n);
	fc_parse_burst(m, nr, pkts, res);
	fc_locals_mark_burst(app->locals, pkts, nr);
	for (unsigned int i = 0; i < nr; i++) {
		if (res[i] != FC_PARSE_OK || pkts[i].key.family != FC_AF_INET4) {
			dropped[nd++] = m[i];
			continue;
		}
		sel[nk] = m[i];
		keys[nk] = &pkts[i].key;
		kp[nk] = &pkts[i].key.v4;
		ips[nk] = rte_be_to_cpu_32(pkts[i].key.v4.dst);
		nk++;
	}
	if (nk != 0) {
		rte_hash_lookup_bulk_data(ctx->ct, kp, nk, &hit, data);
		for (unsigned int j = 0; j < nk; j++)
			ctstate[j] = (hit >> j) & 1 ? (uint8_t)(uintptr_t)data[j] : RULE_CT_NEW;
		rule_cls_filter_bulk(ctx->cls, keys, ctstate, NULL, nk, rr);
		rte_lpm_lookup_bulk(env->lpm, ips, hops, nk);
	}
	for (unsigned int j = 0; j < nk; j++) {
		uint16_t hop = (hops[j] & RTE_LPM_LOOKUP_SUCCESS) ? (uint16_t)hops[j] :
			RULE_PORT_PAIRED;

		if (rr[j].verdict != RULE_VERDICT_ACCEPT) {
			dropped[nd++] = sel[j];
			continue;
		}
		out[no] = sel[j];
		dest[no++] = dp_dest(dp, CHAN_ID_DEFAULT, hop, env->port);
	}
	deliver(ctx, dp, out, dest, no, dropped, nd);
	t1 = rte_rdtsc();
	consume(ctx);
	return t1 - t0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One pass over the next pass_len packets of the trace: cycles per packet
 * over the bursts it ran. Passes never replay packets (until the trace
 * wraps), so a uniform trace over many flows does not find last pass's
 * flows in the cache, as real traffic would not. Bursts that took over
 * TRIM_FACTOR times the pass's median burst were preempted (2 shared
 * cores): they are left out, and counted in ctx->trimmed.
 */
double
bench_pass_run(struct bench_ctx *ctx, bench_burst_fn fn)
{
	static uint64_t cyc[MAX_PASS_BURSTS], sorted[MAX_PASS_BURSTS];
	static unsigned int npk[MAX_PASS_BURSTS];
	uint64_t cycles = 0, pkts = 0, limit;
	unsigned int bursts = 0;
	uint32_t start, end;

	if (ctx->cursor + ctx->pass_len > ctx->trace_len)
		ctx->cursor = 0;
	start = ctx->cursor;
	end = RTE_MIN(start + ctx->pass_len, ctx->trace_len);
	ctx->cursor = end;
	for (uint32_t from = start; from < end && bursts < MAX_PASS_BURSTS;
		from += BENCH_BURST) {
		unsigned int n = RTE_MIN((uint32_t)BENCH_BURST, end - from);

		cyc[bursts] = fn(ctx, from, &n);
		npk[bursts] = n;
		cycles += cyc[bursts];
		if (++bursts >= MIN_BURSTS && cycles > ctx->pass_budget)
			break;
	}
	bench_ring_drain(ctx);
	if (bursts == 0)
		return 0;
	memcpy(sorted, cyc, bursts * sizeof(cyc[0]));
	qsort(sorted, bursts, sizeof(sorted[0]), cmp_u64);
	limit = sorted[bursts / 2] * TRIM_FACTOR;
	cycles = 0;
	for (unsigned int b = 0; b < bursts; b++) {
		if (cyc[b] > limit) {
			ctx->trimmed++;
			continue;
		}
		cycles += cyc[b];
		pkts += npk[b];
	}
	return pkts == 0 ? 0 : (double)cycles / (double)pkts;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
bench_measure(struct bench_ctx *ctx, double cpp[BENCH_PATH__COUNT], uint64_t *upcalls)
{
	static const bench_burst_fn fns[BENCH_PATH__COUNT] = {bench_burst_floor,
		bench_burst_gufc, burst_linear, burst_pipeline, bench_burst_marked};
	double v[BENCH_PATH__COUNT][64];
	unsigned int reps = RTE_MIN(ctx->repeats, 64u);
	uint64_t up0;

	for (unsigned int k = 0; k < BENCH_PATH__COUNT; k++)
		bench_pass_run(ctx, fns[k]); /* warm-up */
	up0 = ctx->env->lc->rx_dp.st.upcalls;
	/* Round robin: a noisy moment hits every path, not one. */
	for (unsigned int r = 0; r < reps; r++)
		for (unsigned int k = 0; k < BENCH_PATH__COUNT; k++)
			v[k][r] = bench_pass_run(ctx, fns[k]);
	*upcalls = ctx->env->lc->rx_dp.st.upcalls - up0;
	for (unsigned int k = 0; k < BENCH_PATH__COUNT; k++) {
		qsort(v[k], reps, sizeof(v[k][0]), cmp_double);
		cpp[k] = reps == 0 ? 0 :
			(reps & 1) ? v[k][reps / 2] : (v[k][reps / 2 - 1] + v[k][reps / 2]) / 2;
	}
}

/*
 * Set (@p on) or clear FC_INTEREST_TCP_WIN on the IPv4 entries that had it
 * when first walked. Every call walks the whole table the same way, so a
 * pass with the check and one without start from the same cache state.
 */
static int
win_walk(struct bench_ctx *ctx, bool on)
{
	struct fc_table *t = ctx->env->app->tab4;
	struct fc_table_stats st;
	const void *key;
	uint32_t next = 0, idx;

	if (ctx->win_armed == NULL) {
		fc_table_stats_get(t, &st);
		ctx->win_cap = st.capacity + RTE_MAX(st.capacity / 8, 64u);
		ctx->win_armed = calloc(ctx->win_cap, 1);
		if (ctx->win_armed == NULL)
			return -ENOMEM;
		while (fc_table_iterate(t, &next, &key, &idx) == 0) {
			const struct fc_entry *e = fc_table_entry(t, idx);

			if (idx < ctx->win_cap && e != NULL && (e->act.interest & FC_INTEREST_TCP_WIN))
				ctx->win_armed[idx] = 1;
		}
		next = 0;
	}
	while (fc_table_iterate(t, &next, &key, &idx) == 0) {
		const struct fc_entry *e = fc_table_entry(t, idx);
		struct fc_action a;

		if (idx >= ctx->win_cap || e == NULL)
			continue;
		a = e->act;
		if (ctx->win_armed[idx] && on == !(a.interest & FC_INTEREST_TCP_WIN)) {
			a.interest ^= FC_INTEREST_TCP_WIN;
			fc_table_update(t, idx, &a, fc_table_timeout(t, idx));
		}
	}
	return 0;
}

int
bench_measure_win(struct bench_ctx *ctx, double cpp[2], uint64_t *upcalls)
{
	double v[2][64];
	unsigned int reps = RTE_MIN(ctx->repeats, 64u);
	uint64_t up = 0, up0;

	/* Warm-up, one pass each. */
	for (unsigned int k = 0; k < 2; k++) {
		if (win_walk(ctx, k == 0) != 0)
			return -ENOMEM;
		bench_pass_run(ctx, bench_burst_gufc);
	}
	for (unsigned int r = 0; r < reps; r++) {
		for (unsigned int k = 0; k < 2; k++) {
			win_walk(ctx, k == 0);
			up0 = ctx->env->lc->rx_dp.st.upcalls;
			v[k][r] = bench_pass_run(ctx, bench_burst_gufc);
			if (k == 0)
				up += ctx->env->lc->rx_dp.st.upcalls - up0;
		}
	}
	win_walk(ctx, true);
	*upcalls = up;
	for (unsigned int k = 0; k < 2; k++) {
		qsort(v[k], reps, sizeof(v[k][0]), cmp_double);
		cpp[k] = reps == 0 ? 0 :
			(reps & 1) ? v[k][reps / 2] : (v[k][reps / 2 - 1] + v[k][reps / 2]) / 2;
	}
	return 0;
}

void
bench_trace_verdicts(struct bench_ctx *ctx, double *accept, double *matched)
{
	uint32_t n = RTE_MIN(ctx->trace_len, 8192u), acc = 0, mat = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct rule_result rr;
		const struct fc_key *k = &ctx->keys[ctx->trace[i]];

		if (rule_cls_filter(ctx->cls, k, RULE_CT_NEW, 0, &rr) != 0)
			continue;
		acc += rr.verdict == RULE_VERDICT_ACCEPT;
		mat += rr.rule_id != RULE_ID_POLICY;
	}
	*accept = n ? (double)acc / n : 0;
	*matched = n ? (double)mat / n : 0;
}

uint64_t
bench_roles_burst(struct bench_ctx *ctx, uint32_t from, uint64_t *rx_cycles)
{
	struct bench_env *env = ctx->env;
	uint64_t t0, t1, t2;

	if (bench_nic_rx(ctx, from, BENCH_BURST) != 0)
		return 0;
	t0 = rte_rdtsc();
	gufc_rx_poll(env->lc, ctx->now);
	t1 = rte_rdtsc();
	gufc_slow_poll(env->app, env->lc, ctx->now);
	t2 = rte_rdtsc();
	chan_drain(env->app->chans, CHAN_ID_DEFAULT, UINT32_MAX);
	*rx_cycles += t1 - t0;
	return t2 - t0;
}
