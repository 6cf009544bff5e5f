/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/gufc_bench.c — gufc-bench: one binary, one run, a table on
 * stdout and --json FILE.
 *
 * The plan, per flow count F (outer) and rule count R (inner): a rules
 * engine with a flow table of F + F/8 entries, the rule set of R random
 * rules committed and compiled, new connections inserted through
 * rule_engine_upcall_burst() until the IPv4 table holds F entries (the
 * "setup" figure), the floor/conntrack rte_hash built with the same keys,
 * uniform and Zipf traces over the connections, then the four paths of
 * bench_paths.c measured on both traces. At (commit_rules, commit_flows)
 * rule commits are timed and a revalidation is run under traffic. Last,
 * the bytes per cached flow of full IPv4 and IPv6 tables.
 *
 * Modes: full (default), --quick (< 3 minutes on 2 cores: fewer repeats,
 * no 4M flows) and --smoke (seconds; for the unit suite: checks that the
 * run completes and its JSON summary is complete). Figures the mode did not
 * measure come from the closest measured point, named in "notes".
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "bench.h"
#include "gufc_eal.h"

#ifdef GUFC_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif
#include "channel.h"

#define K1 1024u
#define M1 (1024u * 1024u)

struct bench_opts {
	enum bench_mode mode;
	const char *json;
	uint32_t seed;
	unsigned int repeats;
	unsigned int mem_mb;
	const char *lcores;
	bool huge;
	bool tcp_established;
	bool perflow_only;
	bool mem_only; /* --mem-only: the memory figure alone */
	bool storm_only;    /* --storm-only: the paced storm alone (two lcores) */
	unsigned long storm_secs;  /* --storm-seconds */
	unsigned long storm_load;  /* --storm-load, percent */
	long storm_up_batch;       /* --storm-up-batch; -1: the app's */
	bool storm_no_direct;      /* --storm-no-direct */
	uint32_t point_rules; /* --point: the one grid point to run (0: the mode's grid) */
	uint32_t point_flows;
	unsigned int idle_step_budget; /* --idle-step-budget: the idle background step (0: the default) */
	bool profile; /* --profile: the point's floor and gufc passes alone, for callgrind */
	bool rx_ahead; /* --rx-ahead: the RX context keeps each burst one poll (rx-ahead on) */
};

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--quick | --smoke] [--json FILE] [--seed N] [--repeats N]\n"
		"          [--mem MB] [--huge] [--lcores LIST] [--tcp-established]\n"
		"          [--perflow-only] [--mem-only] [--point RULES,FLOWS] [--idle-step-budget N] [--profile]\n"
		"          [--rx-ahead]\n"
		"          [--storm-only [--storm-seconds S] [--storm-load PCT] [--storm-up-batch N]\n"
		"          [--storm-no-direct]]\n"
		"  --quick      fewer repeats, no 4M-flow points (under 3 minutes on 2 cores)\n"
		"  --smoke      tiny sizes; checks the JSON summary (the unit suite runs this)\n"
		"  --json FILE  write the results as JSON\n"
		"  --seed N     traffic and rule seed (default 1)\n"
		"  --repeats N  measured passes per figure (median)\n"
		"  --mem MB     EAL memory (default 8192; smoke 512)\n"
		"  --huge       take EAL memory from hugepages (set up beforehand) instead\n"
		"               of anonymous 4 KiB pages (--no-huge, the default)\n"
		"  --lcores L   EAL core list (default: the first core of this process)\n"
		"  --tcp-established  TCP flows opened by handshakes (window scale 14), their\n"
		"               segments in sequence and checked against the windows by the\n"
		"               fast path (default: picked up mid-stream, one way)\n"
		"  --perflow-only  only the per-flow channel point (100,000 rings; --smoke:\n"
		"               2,148): memory per ring, per-flow against shared delivery\n"
		"  --mem-only   only the memory figure (bytes per flow at the mode's capacity,\n"
		"               conntrack's TCP records among them)\n"
		"  --point R,F  only the grid point of R rules and F flows (the mode's\n"
		"               repeats and sizes; with the commit figure when R,F is the\n"
		"               mode's commit point); no memory or per-flow figures\n"
		"  --idle-step-budget N  table slots the rules lcore's background step\n"
		"               examines on an idle pass (default the application's)\n"
		"  --rx-ahead   the app's rx-ahead setting on: each received burst kept\n"
		"               one poll, applied after the next one's parse\n"
		"  --profile    with --point: after the point's set-up, two passes each of\n"
		"               the floor and the gufc path (uniform), then of the marked\n"
		"               path (a second dump), between callgrind's\n"
		"               client requests, then exit (run under valgrind --tool=callgrind\n"
		"               --instr-atstart=no [--cache-sim=yes])\n"
		"  --storm-only the paced new-flow storm alone, on two lcores (--lcores A,B:\n"
		"               RX lcore on B with a TSC-paced generator, rules lcore on A):\n"
		"               established flows at PCT %% of the RX lcore's measured\n"
		"               capacity (default 50), new flows at twice the measured\n"
		"               setup rate; storm_hit_fraction_paced and\n"
		"               storm_delivered_fraction_paced (the RX lcore sends its hits\n"
		"               on a TX queue of its own); S seconds a phase\n"
		"               (default 3; 4 phases); --storm-up-batch N: the RX context\n"
		"               keeps up to N upcalls for one ring enqueue (0: none; default:\n"
		"               the app's); --storm-no-direct: the port has one TX queue\n"
		"               (net_pcap's layout): the RX lcore consumes its TX channel\n"
		"               beside the rules lcore, as gufc does on such ports\n",
		prog);
}

/* A decimal or 0x number in [lo, hi] for option @p name, or a message. */
static int
num_arg(const char *name, const char *text, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(text, &end, 0);
	if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || *v < lo || *v > hi) {
		fprintf(stderr, "gufc-bench: %s: '%s' is not a number in %lu..%lu\n", name, text, lo,
			hi);
		return -EINVAL;
	}
	return 0;
}

static int
opts_parse(struct bench_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{"quick", no_argument, NULL, 'q'},
		{"smoke", no_argument, NULL, 's'},
		{"json", required_argument, NULL, 'j'},
		{"seed", required_argument, NULL, 'S'},
		{"repeats", required_argument, NULL, 'r'},
		{"mem", required_argument, NULL, 'm'},
		{"lcores", required_argument, NULL, 'l'},
		{"huge", no_argument, NULL, 'H'},
		{"tcp-established", no_argument, NULL, 'T'},
		{"perflow-only", no_argument, NULL, 'P'},
		{"mem-only", no_argument, NULL, 'M'},
		{"point", required_argument, NULL, 'p'},
		{"idle-step-budget", required_argument, NULL, 'B'},
		{"profile", no_argument, NULL, 'F'},
		{"rx-ahead", no_argument, NULL, 'A'},
		{"storm-only", no_argument, NULL, 'W'},
		{"storm-seconds", required_argument, NULL, 'X'},
		{"storm-load", required_argument, NULL, 'Y'},
		{"storm-up-batch", required_argument, NULL, 'Z'},
		{"storm-no-direct", no_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->storm_secs = 3;
	o->storm_load = 50;
	o->storm_up_batch = -1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			o->mode = BENCH_MODE_QUICK;
			break;
		case 's':
			o->mode = BENCH_MODE_SMOKE;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'S':
			if (num_arg("--seed", optarg, 0, UINT32_MAX, &v) != 0)
				return -EINVAL;
			o->seed = (uint32_t)v;
			break;
		case 'r':
			if (num_arg("--repeats", optarg, 1, 64, &v) != 0)
				return -EINVAL;
			o->repeats = (unsigned int)v;
			break;
		case 'm':
			if (num_arg("--mem", optarg, 64, 1u << 20, &v) != 0)
				return -EINVAL;
			o->mem_mb = (unsigned int)v;
			break;
		case 'H':
			o->huge = true;
			break;
		case 'T':
			o->tcp_established = true;
			break;
		case 'P':
			o->perflow_only = true;
			break;
		case 'M':
			o->mem_only = true;
			break;
		case 'l':
			o->lcores = optarg;
			break;
		case 'p': {
			char *comma = strchr(optarg, ',');

			if (comma == NULL) {
				fprintf(stderr, "gufc-bench: --point: '%s' is not RULES,FLOWS\n", optarg);
				return -EINVAL;
			}
			*comma = '\0';
			if (num_arg("--point (rules)", optarg, 1, 100000, &v) != 0)
				return -EINVAL;
			o->point_rules = (uint32_t)v;
			if (num_arg("--point (flows)", comma + 1, 16, 1u << 24, &v) != 0)
				return -EINVAL;
			o->point_flows = (uint32_t)v;
			break;
		}
		case 'F':
#ifdef GUFC_HAVE_CALLGRIND
			o->profile = true;
			break;
#else
			fprintf(stderr, "gufc-bench: --profile: built without valgrind/callgrind.h\n");
			return -EINVAL;
#endif
		case 'B':
			if (num_arg("--idle-step-budget", optarg, 1, 1u << 20, &v) != 0)
				return -EINVAL;
			o->idle_step_budget = (unsigned int)v;
			break;
		case 'A':
			o->rx_ahead = true;
			break;
		case 'W':
			o->storm_only = true;
			break;
		case 'D':
			o->storm_no_direct = true;
			break;
		case 'X':
			if (num_arg("--storm-seconds", optarg, 1, 600, &o->storm_secs) != 0)
				return -EINVAL;
			break;
		case 'Y':
			if (num_arg("--storm-load", optarg, 1, 100, &o->storm_load) != 0)
				return -EINVAL;
			break;
		case 'Z': {
			unsigned long v;

			if (num_arg("--storm-up-batch", optarg, 0, DP_UPSTASH_MAX, &v) != 0)
				return -EINVAL;
			o->storm_up_batch = (long)v;
			break;
		}
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		default:
			usage(stderr, argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr, argv[0]);
		return -EINVAL;
	}
	if (o->profile && o->point_rules == 0) {
		fprintf(stderr, "gufc-bench: --profile needs --point\n");
		return -EINVAL;
	}
	return 0;
}

static void
plan_init(struct bench_plan *p, const struct bench_opts *o, double hz)
{
	static const uint32_t rules[] = {10, 100, 1000, 10000};

	memset(p, 0, sizeof(*p));
	p->mode = o->mode;
	p->huge = o->huge;
	p->tcp_established = o->tcp_established;
	p->seed = o->seed;
	p->zipf_s = 1.0;
	p->n_rules = 4;
	memcpy(p->rules, rules, sizeof(rules));
	p->commit_rules = 10000;
	p->commit_flows = M1;
	switch (o->mode) {
	case BENCH_MODE_FULL:
		p->n_flows = 4;
		p->flows[0] = K1;
		p->flows[1] = 64 * K1;
		p->flows[2] = M1;
		p->flows[3] = 4 * M1;
		p->repeats = 11;
		p->packets = 256 * K1;
		p->pass_budget = (uint64_t)(hz * 0.2);
		p->commits = 200;
		p->mem_capacity = 4 * M1;
		p->perflow_rings = 100000;
		break;
	case BENCH_MODE_QUICK:
		p->n_flows = 3;
		p->flows[0] = K1;
		p->flows[1] = 64 * K1;
		p->flows[2] = M1;
		p->repeats = 9;
		p->packets = 128 * K1;
		p->pass_budget = (uint64_t)(hz * 0.03);
		p->commits = 50;
		p->mem_capacity = M1;
		p->perflow_rings = 100000;
		break;
	case BENCH_MODE_SMOKE:
		p->n_rules = 2;
		p->n_flows = 1;
		p->flows[0] = K1;
		p->repeats = 3;
		p->packets = 2 * K1;
		p->pass_budget = (uint64_t)(hz * 0.002);
		p->commits = 8;
		p->commit_rules = 100;
		p->commit_flows = K1;
		p->mem_capacity = 4 * K1;
		p->perflow_rings = 2 * CHAN_FLOW_CHUNK + 100; /* the pool grows twice */
		break;
	}
	if (o->repeats != 0)
		p->repeats = o->repeats;
	if (o->point_rules != 0) {
		p->n_rules = 1;
		p->rules[0] = o->point_rules;
		p->n_flows = 1;
		p->flows[0] = o->point_flows;
		p->point_only = true;
		p->profile = o->profile;
	}
}

/* The runtime directory, removed by a signal that ends the bench (a test's timeout). */
static char eal_rundir[PATH_MAX];

static void
eal_end_on_signal(int sig)
{
	gufc_eal_rundir_remove(eal_rundir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
eal_start(const struct bench_opts *o, const struct bench_plan *p, const char *prog)
{
	char prefix[64], mem[16], lcores[32];
	char *argv[16];
	int argc = 0;
	unsigned int mb = o->mem_mb;

	if (mb == 0)
		mb = p->mode == BENCH_MODE_SMOKE ? 512 : 8192;
	snprintf(mem, sizeof(mem), "%u", mb);
	snprintf(prefix, sizeof(prefix), "--file-prefix=gufc-bench-%d", (int)getpid());
	if (o->lcores != NULL)
		snprintf(lcores, sizeof(lcores), "%s", o->lcores);
	else
		snprintf(lcores, sizeof(lcores), "%d", sched_getcpu() >= 0 ? sched_getcpu() : 0);
	argv[argc++] = (char *)(uintptr_t)prog;
	argv[argc++] = (char *)(uintptr_t)"-l";
	argv[argc++] = lcores;
	if (!o->huge)
		argv[argc++] = (char *)(uintptr_t)"--no-huge";
	else
		argv[argc++] = (char *)(uintptr_t)"--in-memory";
	argv[argc++] = (char *)(uintptr_t)"-m";
	argv[argc++] = mem;
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = (char *)(uintptr_t)"--no-telemetry";
	argv[argc++] = (char *)(uintptr_t)"--log-level=*:warning";
	argv[argc++] = prefix;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "gufc-bench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	gufc_eal_rundir_save(eal_rundir, sizeof(eal_rundir));
	signal(SIGTERM, eal_end_on_signal);
	signal(SIGINT, eal_end_on_signal);
	signal(SIGALRM, eal_end_on_signal);
	return 0;
}

static double
cyc_to_s(uint64_t c)
{
	return (double)c / (double)rte_get_tsc_hz();
}

static double
cyc_to_us(uint64_t c)
{
	return cyc_to_s(c) * 1e6;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile @p q (0..1) of @p n sorted values: the nearest-rank method. */
static uint64_t
pctl(const uint64_t *v, unsigned int n, double q)
{
	unsigned int i = (unsigned int)ceil(q * n);

	return n == 0 ? 0 : v[i == 0 ? 0 : i - 1];
}

/* ------------------------------------------------------------------------ */
/* Commits and revalidation                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t
engine_pending(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st.pending;
}

/* Run the background revalidation to its end (rules lcore, no traffic). */
static uint64_t
revalidate_all(struct rule_engine *eng)
{
	uint64_t t0 = rte_rdtsc();

	for (unsigned int i = 0; i < (1u << 24) && engine_pending(eng) != 0; i++)
		rule_engine_step(eng, 1000, 4096);
	return rte_rdtsc() - t0;
}

/* Both roles over the trace until the engine has nothing pending (or @p bursts). */
static void
roles_run(struct bench_ctx *ctx, bool until_clean, uint64_t bursts, uint64_t *all,
	uint64_t *rx, uint64_t *pkts)
{
	struct rule_engine *eng = ctx->env->app->eng;
	uint32_t span = ctx->trace_len - BENCH_BURST + 1;
	uint64_t b;

	*all = *rx = *pkts = 0;
	for (b = 0; b < (1ull << 26); b++) {
		if (until_clean ? (b % 16 == 0 && engine_pending(eng) == 0) : b >= bursts)
			break;
		*all += bench_roles_burst(ctx, (uint32_t)((b * BENCH_BURST) % span), rx);
		*pkts += BENCH_BURST;
	}
}

static int
commit_bench(struct bench_ctx *ctx, struct bench_results *res, uint32_t rules, uint32_t flows)
{
	struct bench_env *env = ctx->env;
	struct rule_engine *eng = env->app->eng;
	struct bench_commit *c = &res->commit;
	unsigned int n = res->plan.commits;
	uint64_t *lat = calloc(n, sizeof(*lat)), *prep = calloc(n, sizeof(*prep));
	uint64_t *pass = calloc(n, sizeof(*pass));
	uint64_t all, rx, pkts, up0, rv0, bursts;
	struct rule_engine_stats st;
	struct bench_rng rng;
	struct rule_set *s;
	double build_s;
	int rc = -ENOMEM;

	if (lat == NULL || prep == NULL || pass == NULL)
		goto out;
	bench_rng_seed(&rng, res->plan.seed + 99);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = rte_rdtsc();

		s = bench_set_replaced(eng, &rng);
		prep[i] = rte_rdtsc() - t0;
		if (s == NULL)
			goto out;
		t0 = rte_rdtsc();
		rc = rule_engine_commit(eng, s);
		lat[i] = rte_rdtsc() - t0;
		if (rc != 0)
			goto out;
		pass[i] = revalidate_all(eng);
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	qsort(prep, n, sizeof(*prep), cmp_u64);
	qsort(pass, n, sizeof(*pass), cmp_u64);
	c->rules = rules;
	c->flows = flows;
	c->n = n;
	c->p50_us = cyc_to_us(pctl(lat, n, 0.5));
	c->p99_us = cyc_to_us(pctl(lat, n, 0.99));
	c->max_us = cyc_to_us(lat[n - 1]);
	c->prepare_p50_us = cyc_to_us(pctl(prep, n, 0.5));
	c->reval_pass_p50_ms = cyc_to_us(pctl(pass, n, 0.5)) / 1000;

	/*
	 * Throughput under revalidation: the classifier catches up first (as the
	 * app's background build would have by now), then one more commit (see
	 * bench_set_wide()); both roles run on this lcore, burst by burst,
	 * until its changes are retired, each role's cycles counted apart.
	 */
	s = rule_engine_cls_wanted(eng, &(uint32_t){0});
	if (s != NULL) {
		rule_set_free(s);
		rc = bench_engine_rules(env, rule_set_clone(rule_engine_rules(eng)), &build_s);
		if (rc != 0)
			goto out;
		revalidate_all(eng);
	}
	bursts = ctx->trace_len / BENCH_BURST;
	roles_run(ctx, false, bursts, &all, &rx, &pkts); /* warm-up */
	roles_run(ctx, false, bursts, &all, &rx, &pkts);
	c->steady_cpp = (double)all / pkts;
	c->steady_rx_cpp = (double)rx / pkts;
	rule_engine_stats_get(eng, &st);
	up0 = st.upcalls[RULE_UPCALL_STALE];
	rv0 = st.revalidated;
	s = bench_set_wide(eng, bench_rng_below(&rng, 16));
	if (s == NULL || rule_engine_commit(eng, s) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	roles_run(ctx, true, 0, &all, &rx, &pkts);
	rule_engine_stats_get(eng, &st);
	c->reval_cpp = pkts ? (double)all / pkts : 0;
	c->reval_rx_cpp = pkts ? (double)rx / pkts : 0;
	c->reval_packets = pkts;
	c->stale_upcalls = st.upcalls[RULE_UPCALL_STALE] - up0;
	c->revalidated = st.revalidated - rv0;
	c->fraction = c->reval_cpp > 0 ? c->steady_cpp / c->reval_cpp : 0;
	c->rx_fraction = c->reval_rx_cpp > 0 ? c->steady_rx_cpp / c->reval_rx_cpp : 0;
	c->measured = true;
	rc = 0;
out:
	free(lat);
	free(prep);
	free(pass);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

static uint64_t
mem_in_use(void)
{
	struct rte_malloc_socket_stats s;
	struct mallinfo2 mi = mallinfo2();
	uint64_t total = mi.uordblks + mi.hblkhd;

	for (int sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &s) == 0)
			total += s.heap_allocsz_bytes;
	return total;
}

static int
mem_bench(struct bench_env *env, struct bench_results *res)
{
	const uint32_t small = 64, cap = res->plan.mem_capacity;
	struct bench_mem *m = &res->mem;
	struct bench_rng rng;
	struct fc_key *keys = malloc(sizeof(*keys) * cap);
	int rc = -ENOMEM;

	if (keys == NULL)
		return rc;
	m->capacity = cap;
	m->tcp_record_size = (uint32_t)sizeof(struct mod_ct_fast_line); /* a record is its line */
	for (unsigned int f = 0; f < 2; f++) {
		unsigned int fam = f == 0 ? FC_AF_INET4 : FC_AF_INET6;
		struct fc_table_stats st;
		uint64_t m0, m1, cyc;

		bench_rng_seed(&rng, res->plan.seed + 500 + f);
		for (uint32_t i = 0; i < cap; i++)
			bench_key_random(&rng, fam, &keys[i]);
		/* Everything but the per-flow part: an engine with tiny tables. */
		m0 = mem_in_use();
		rc = bench_engine_start(env, small, small);
		if (rc != 0)
			goto out;
		m0 = mem_in_use() - m0;
		bench_engine_stop(env);
		m1 = mem_in_use();
		rc = f == 0 ? bench_engine_start(env, cap, small) : bench_engine_start(env, small, cap);
		if (rc != 0)
			goto out;
		bench_engine_fill(env, fam, keys, cap, cap, &cyc);
		m1 = mem_in_use() - m1;
		fc_table_stats_get(f == 0 ? env->app->tab4 : env->app->tab6, &st);
		m->tcp_conns[f] = 0;
		if (env->app->ctm != NULL) {
			struct mod_ct_module_stats cs;

			mod_ct_module_stats_get(env->app->ctm, &cs);
			m->tcp_conns[f] = cs.tcp_conns;
		}
		bench_engine_stop(env);
		m->occupancy[f] = st.occupancy;
		m->bytes_per_flow[f] = st.occupancy ? (double)(m1 - m0) / st.occupancy : 0;
		m->tcp_records[f] = st.occupancy ?
			(double)m->tcp_conns[f] * m->tcp_record_size / st.occupancy : 0;
	}
	m->measured = true;
	rc = 0;
out:
	free(keys);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The grid                                                                  */
/* ------------------------------------------------------------------------ */

static bool
point_skipped(const struct bench_plan *p, uint32_t rules, uint32_t flows)
{
	return p->skip_rules_min != 0 && rules >= p->skip_rules_min && flows >= p->skip_flows_min;
}

/*
 * --profile: the floor, the gufc path and the marked path on the point's
 * uniform trace, a warm-up pass each (the simulated caches fill) and two
 * measured passes each of 16,384 packets (whole passes) between callgrind's
 * client requests, in two dumps: the first (out.1) holds the floor's and the
 * gufc path's passes, the second (out.2) the marked path's alone (its
 * gufc_rx_poll() is the same function). Instructions and simulated cache
 * misses per packet of each path (divide by the packet counts printed),
 * which unlike cycles do not depend on the machine's load.
 */
static uint64_t profile_floor_pkts;

static uint64_t
profile_floor(struct bench_ctx *ctx, uint32_t from, unsigned int *np)
{
	profile_floor_pkts += *np;
	return bench_burst_floor(ctx, from, np);
}

static void
profile_run(struct bench_ctx *ctx, uint32_t *trace)
{
	const struct dp_stats *st = &ctx->env->lc->rx_dp.st;
	uint64_t rx0, rx1, floor0, hw0;

	ctx->trace = trace;
	ctx->cursor = 0;
	/* Whole passes of a fixed length: the same packets whatever the clock says. */
	ctx->pass_len = RTE_MIN(ctx->pass_len, 16384u);
	ctx->pass_budget = UINT64_MAX;
#ifdef GUFC_HAVE_CALLGRIND
	CALLGRIND_START_INSTRUMENTATION;
#endif
	bench_pass_run(ctx, bench_burst_floor);
	bench_pass_run(ctx, bench_burst_gufc);
	bench_pass_run(ctx, bench_burst_marked);
#ifdef GUFC_HAVE_CALLGRIND
	CALLGRIND_ZERO_STATS;
#endif
	rx0 = st->rx;
	floor0 = profile_floor_pkts;
	for (unsigned int r = 0; r < 2; r++) {
		bench_pass_run(ctx, profile_floor);
		bench_pass_run(ctx, bench_burst_gufc);
	}
#ifdef GUFC_HAVE_CALLGRIND
	CALLGRIND_DUMP_STATS;
#endif
	rx1 = st->rx;
	hw0 = st->hw_classified;
	for (unsigned int r = 0; r < 2; r++)
		bench_pass_run(ctx, bench_burst_marked);
#ifdef GUFC_HAVE_CALLGRIND
	CALLGRIND_DUMP_STATS;
	CALLGRIND_STOP_INSTRUMENTATION;
#endif
	printf("profile: floor %" PRIu64 " packets (bench_burst_floor), gufc %" PRIu64
	       " packets (gufc_rx_poll); second dump: marked %" PRIu64
	       " packets (gufc_rx_poll), %" PRIu64 " of them marked and taken\n",
		profile_floor_pkts - floor0, rx1 - rx0, st->rx - rx1, st->hw_classified - hw0);
}

static int
point_run(struct bench_env *env, struct bench_results *res, struct bench_point *pt,
	struct rule_set *set, const struct rule_cls *cls, const struct fc_key *keys,
	uint32_t n_keys)
{
	const struct bench_plan *pl = &res->plan;
	struct bench_ctx ctx;
	struct bench_rng rng;
	struct fc_table_stats st;
	struct rule_set *copy = rule_set_clone(set);
	uint32_t *trace[BENCH_DIST__COUNT] = {NULL, NULL};
	char hname[32];
	uint64_t cyc, up;
	double build_s;
	int rc;

	if (copy == NULL)
		return -ENOMEM;
	memset(&ctx, 0, sizeof(ctx));
	rc = bench_engine_start(env, pt->flows_target + pt->flows_target / 8, 64);
	if (rc == 0)
		rc = bench_engine_rules(env, copy, &build_s);
	else
		rule_set_free(copy);
	if (rc != 0)
		goto out;
	pt->conns = bench_engine_fill(env, FC_AF_INET4, keys, n_keys, pt->flows_target, &cyc);
	pt->setup_flows_per_s = cyc ? pt->conns / cyc_to_s(cyc) : 0;
	fc_table_stats_get(env->app->tab4, &st);
	pt->flows = st.occupancy;

	memset(&ctx, 0, sizeof(ctx));
	snprintf(hname, sizeof(hname), "bench_ct%u", env->eng_seq);
	ctx.env = env;
	ctx.set = set;
	ctx.cls = cls;
	ctx.ct = bench_ct_build(env, hname);
	ctx.keys = keys;
	ctx.n_keys = pt->conns;
	/* Every pass of every path gets packets of its own (see bench_pass_run()). */
	ctx.pass_len = pl->packets;
	ctx.trace_len = pl->packets * (pl->repeats + 1) *
			(BENCH_PATH__COUNT + (pl->tcp_established ? 2 : 0));
	ctx.pass_budget = pl->pass_budget;
	ctx.repeats = pl->repeats;
	ctx.now = 1000;
	rc = -ENOMEM;
	if (ctx.ct == NULL)
		goto out;
	if (pl->tcp_established) {
		/* Data starts right after the SYN: sequence number 1 of every key. */
		ctx.seq = malloc(sizeof(*ctx.seq) * (pt->conns + 1));
		if (ctx.seq == NULL)
			goto out;
		for (uint32_t i = 0; i <= pt->conns; i++)
			ctx.seq[i] = 1;
	}
	bench_rng_seed(&rng, pl->seed * 31 + pt->rules + pt->flows_target);
	for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++) {
		trace[d] = bench_trace_make(&rng, d, pl->zipf_s, pt->conns, ctx.trace_len);
		if (trace[d] == NULL)
			goto out;
	}
	if (pl->profile) {
		profile_run(&ctx, trace[BENCH_UNIFORM]);
		rc = 0;
		goto out;
	}
	for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++) {
		ctx.trace = trace[d];
		ctx.cursor = 0;
		if (d == BENCH_UNIFORM)
			bench_trace_verdicts(&ctx, &pt->accept_frac, &pt->matched_frac);
		bench_measure(&ctx, pt->cpp[d], &up);
		pt->unexpected_upcalls += up;
		if (pl->tcp_established) {
			rc = bench_measure_win(&ctx, pt->win_cpp[d], &up);
			if (rc != 0)
				goto out;
			pt->win_upcalls += up;
		}
	}
	if (pt->rules == 1000 || pl->mode == BENCH_MODE_SMOKE) {
		/* Where the gufc path's cycles go (bench_stages.c). */
		ctx.trace = trace[BENCH_UNIFORM];
		ctx.cursor = 0;
		bench_stages_measure(&ctx, pt->stages);
		pt->staged = true;
	}
	pt->trimmed_bursts = ctx.trimmed;
	pt->measured = true;
	fprintf(stderr, "  %5u rules %8u flows: floor %.1f gufc %.1f linear %.1f pipeline %.1f "
		"marked %.1f (uniform); setup %.0f flows/s, classifier %.2f s\n",
		pt->rules, pt->flows_target, pt->cpp[0][BENCH_FLOOR], pt->cpp[0][BENCH_GUFC],
		pt->cpp[0][BENCH_LINEAR], pt->cpp[0][BENCH_PIPELINE], pt->cpp[0][BENCH_MARKED],
		pt->setup_flows_per_s,
		build_s);
	if (pl->tcp_established)
		fprintf(stderr, "  %5u rules %8u flows: gufc with the window check %.1f, without %.1f "
			"(uniform), ratio %.3f; %" PRIu64 " upcalls\n", pt->rules, pt->flows_target,
			pt->win_cpp[0][0], pt->win_cpp[0][1],
			pt->win_cpp[0][1] > 0 ? pt->win_cpp[0][0] / pt->win_cpp[0][1] : 0,
			pt->win_upcalls);

	if (!pt->ext && pt->rules == pl->commit_rules && pt->flows_target == pl->commit_flows) {
		ctx.trace = trace[BENCH_UNIFORM];
		ctx.cursor = 0;
		rc = commit_bench(&ctx, res, pt->rules, pt->flows_target);
		if (rc != 0)
			goto out;
	}
	rc = 0;
out:
	for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++)
		free(trace[d]);
	rte_hash_free(ctx.ct);
	bench_marks_free(&ctx);
	free(ctx.seq);
	free(ctx.win_armed);
	bench_engine_stop(env);
	return rc;
}

/* The rule count whose points get an extended twin (1000; smoke: its largest). */
static uint32_t
ext_rules(const struct bench_plan *pl)
{
	return pl->mode == BENCH_MODE_SMOKE ? pl->rules[pl->n_rules - 1] : 1000;
}

/* The point of bench_rules_ext(@p base) at @p flows, beside the plain one. */
static int
ext_point(struct bench_env *env, struct bench_results *res, const struct rule_set *base,
	const struct fc_key *keys, uint32_t flows)
{
	struct bench_point *pt = &res->pt[res->n_points++];
	struct rule_set *ext = bench_rules_ext(base, env->port);
	struct rule_cls *cls;
	int rc;

	pt->rules = rule_set_rule_count(base);
	pt->flows_target = flows;
	pt->ext = true;
	if (ext == NULL) {
		fprintf(stderr, "gufc-bench: the extended rule set could not be made\n");
		return -ENOMEM;
	}
	cls = rule_cls_build(ext, "pipe_ext", SOCKET_ID_ANY);
	if (cls == NULL) {
		rc = -rte_errno;
		rule_set_free(ext);
		return rc;
	}
	rc = point_run(env, res, pt, ext, cls, keys, flows);
	if (rc != 0)
		fprintf(stderr, "gufc-bench: extended point %u rules, %u flows: %s\n", pt->rules,
			flows, strerror(-rc));
	rule_cls_free(cls);
	rule_set_free(ext);
	return rc;
}

static int
grid_run(struct bench_env *env, struct bench_results *res)
{
	struct bench_plan *pl = &res->plan;
	struct rule_set *sets[8] = {NULL};
	struct rule_cls *cls[8] = {NULL};
	struct fc_key *keys = NULL;
	struct bench_rng rng;
	int rc = -ENOMEM;

	for (unsigned int r = 0; r < pl->n_rules; r++) {
		uint64_t t0 = rte_rdtsc();

		bench_rng_seed(&rng, pl->seed * 1000 + pl->rules[r]);
		sets[r] = bench_rules_make(&rng, pl->rules[r]);
		if (sets[r] == NULL)
			goto out;
		cls[r] = rule_cls_build(sets[r], "pipe", SOCKET_ID_ANY);
		if (cls[r] == NULL) {
			fprintf(stderr, "gufc-bench: rule_cls_build (%u rules): %s\n", pl->rules[r],
				rte_strerror(rte_errno));
			rc = -rte_errno;
			goto out;
		}
		fprintf(stderr, "gufc-bench: %u rules compiled in %.2f s\n", pl->rules[r],
			cyc_to_s(rte_rdtsc() - t0));
	}
	for (unsigned int f = 0; f < pl->n_flows; f++) {
		uint32_t flows = pl->flows[f];

		/* Enough connections for any verdict mix: at most one entry each. */
		free(keys);
		keys = malloc(sizeof(*keys) * flows);
		if (keys == NULL)
			goto out;
		bench_rng_seed(&rng, pl->seed * 7 + flows);
		for (uint32_t i = 0; i < flows; i++)
			bench_key_random(&rng, FC_AF_INET4, &keys[i]);
		for (unsigned int r = 0; r < pl->n_rules; r++) {
			struct bench_point *pt = &res->pt[res->n_points++];

			pt->rules = pl->rules[r];
			pt->flows_target = flows;
			if (point_skipped(pl, pt->rules, flows))
				continue;
			rc = point_run(env, res, pt, sets[r], cls[r], keys, flows);
			if (rc != 0) {
				fprintf(stderr, "gufc-bench: point %u rules, %u flows: %s\n",
					pt->rules, flows, strerror(-rc));
				goto out;
			}
			/* The same set with interfaces, marks and a meter beside it. */
			if (pl->rules[r] == ext_rules(pl) && !pl->point_only &&
				res->n_points < BENCH_MAX_POINTS) {
				rc = ext_point(env, res, sets[r], keys, flows);
				if (rc != 0)
					goto out;
			}
		}
	}
	rc = 0;
out:
	free(keys);
	for (unsigned int r = 0; r < pl->n_rules; r++) {
		rule_cls_free(cls[r]);
		rule_set_free(sets[r]);
	}
	return rc;
}

/*
 * Setup figures: at 1k and 10k rules, from the point closest to the commit
 * flow count (1M); without such a rule count (smoke), the largest measured.
 */
static void
setup_fill(struct bench_results *res)
{
	static const uint32_t want[2] = {1000, 10000};

	for (unsigned int i = 0; i < 2; i++) {
		const struct bench_point *best = NULL;
		double bd = 0;

		for (unsigned int j = 0; j < res->n_points; j++) {
			const struct bench_point *p = &res->pt[j];
			double d;

			if (!p->measured || p->ext)
				continue;
			d = fabs(log((double)p->rules / want[i])) * 100 +
				fabs(log((double)p->flows_target / res->plan.commit_flows));
			if (best == NULL || d < bd) {
				best = p;
				bd = d;
			}
		}
		if (best == NULL)
			continue;
		res->setup_fps[i] = best->setup_flows_per_s;
		res->setup_rules[i] = best->rules;
		res->setup_flows[i] = best->conns;
		if (i == 1 && best->rules != want[i])
			bench_note(res, "setup_10k_rules",
				"not measured in this mode: at %u rules (wanted %u)", best->rules,
				want[i]);
	}
}

int
main(int argc, char **argv)
{
	static struct bench_results res;
	struct bench_opts o;
	struct bench_env env;
	double summary[16];
	uint64_t t0;
	int rc;

	rc = opts_parse(&o, argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	plan_init(&res.plan, &o, 0);
	if (eal_start(&o, &res.plan, argv[0]) != 0)
		return 1;
	res.tsc_hz = (double)rte_get_tsc_hz();
	plan_init(&res.plan, &o, res.tsc_hz);
	t0 = rte_rdtsc();
	rc = bench_env_init(&env);
	env.tcp_established = res.plan.tcp_established;
	if (res.plan.tcp_established)
		bench_note(&res, "tcp_established",
			"TCP flows opened by handshakes (window scale 14 both ways); their data "
			"segments in sequence, checked against the windows by the fast path");
	if (rc != 0) {
		fprintf(stderr, "gufc-bench: setup: %s\n", strerror(-rc));
		goto out;
	}
	if (o.perflow_only) {
		rc = bench_perflow(&env, &res);
		if (rc == 0)
			bench_table_print(&res, stdout);
		for (unsigned int i = 0; i < res.n_notes; i++)
			printf("note: %s: %s\n", res.note_key[i], res.note[i]);
		goto out;
	}
	if (o.mem_only) {
		rc = mem_bench(&env, &res);
		if (rc == 0)
			bench_table_print(&res, stdout);
		goto out;
	}
	env.app->cfg.set.rx_ahead = o.rx_ahead;
	if (o.storm_only) {
		rc = bench_storm(&env, &res, (double)o.storm_secs, (double)o.storm_load / 100.0,
			(int)o.storm_up_batch, !o.storm_no_direct);
		if (rc == 0) {
			bench_storm_print(&res, stdout);
			if (!res.storm.measured)
				rc = -ENODEV;
		}
		for (unsigned int i = 0; i < res.n_notes; i++)
			printf("note: %s: %s\n", res.note_key[i], res.note[i]);
		if (rc == 0 && o.json != NULL)
			rc = bench_storm_json(&res, o.json);
		goto out;
	}
	if (o.idle_step_budget != 0)
		env.app->idle_step_budget = o.idle_step_budget;
	rc = grid_run(&env, &res);
	if (rc == 0 && !res.commit.measured && !res.plan.point_only) {
		bench_note(&res, "commit", "no point at %u rules, %u flows in this mode",
			res.plan.commit_rules, res.plan.commit_flows);
		rc = -ENOENT;
	}
	if (rc == 0 && !res.plan.point_only)
		rc = mem_bench(&env, &res);
	if (rc == 0 && !res.plan.point_only)
		rc = bench_perflow(&env, &res);
	if (rc != 0) {
		fprintf(stderr, "gufc-bench: %s\n", strerror(-rc));
		goto out;
	}
	if (res.plan.profile)
		goto out;
	setup_fill(&res);
	res.elapsed_s = cyc_to_s(rte_rdtsc() - t0);
	bench_summary(&res, summary);
	bench_table_print(&res, stdout);
	printf("summary:\n");
	{
		static const char *const keys[] = {
#define BENCH_KEY_NAME(k) #k,
			BENCH_SUMMARY_KEYS(BENCH_KEY_NAME)
#undef BENCH_KEY_NAME
		};

		for (unsigned int i = 0; i < RTE_DIM(keys); i++)
			printf("  %-36s %.4g\n", keys[i], summary[i]);
	}
	for (unsigned int i = 0; i < res.n_notes; i++)
		printf("note: %s: %s\n", res.note_key[i], res.note[i]);
	printf("elapsed: %.1f s\n", res.elapsed_s);
	if (o.json != NULL) {
		rc = bench_json_write(&res, summary, o.json);
		if (rc != 0) {
			fprintf(stderr, "gufc-bench: %s: %s\n", o.json, strerror(-rc));
			goto out;
		}
		if (o.mode == BENCH_MODE_SMOKE && bench_json_check(o.json) != 0)
			rc = -EINVAL;
	}
out:
	bench_env_fini(&env);
	gufc_eal_end();
	return rc == 0 ? 0 : 1;
}
