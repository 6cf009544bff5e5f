/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gufc-bench-setup: the new-flow setup stage of gufc-bench alone, small
 * enough to run under an instruction counter (valgrind --tool=callgrind).
 * The same engine, modules, rule sets and flows as gufc-bench's setup
 * figure (bench_engine_start(), bench_rules_make(), bench_engine_fill()),
 * in three phases, each in a function of its own so that a counter can be
 * pointed at it (--toggle-collect=NAME):
 *
 *  - setup_phase():  F new connections set up (rule_engine_upcall_burst());
 *  - commit_phase(): one commit of one replaced rule (rule_engine_commit()),
 *    called C times, each after the last one's revalidation ran to its end
 *    (settle(), as gufc-bench's commit figure: else each commit finds more
 *    pending and costs more than the one before);
 *  - reval_phase():  one commit of a rule over a sixteenth of the sources,
 *    then the background revalidation to its end (rule_engine_step()).
 *
 * Prints the counts to divide by (flows set up, commits, entries
 * revalidated) and the cycles each phase took (noisy on a shared machine:
 * instruction counts are the figures to compare).
 *
 * usage: gufc-bench-setup [RULES [FLOWS [COMMITS [SHAPE]]]]   (default 1000 20000 8 random)
 *
 * SHAPE: "random" (every field of each connection drawn at random) or
 * "sport" (a storm: the first random connection, again and again, with
 * only the source port changed).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "bench.h"
#include "gufc_eal.h"

static uint32_t
pending(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st.pending;
}

static __rte_noinline uint32_t
setup_phase(struct bench_env *env, const struct fc_key *keys, uint32_t n, uint64_t *cyc)
{
	return bench_engine_fill(env, FC_AF_INET4, keys, n, n, cyc);
}

static __rte_noinline int
commit_phase(struct rule_engine *eng, struct rule_set *s)
{
	return rule_engine_commit(eng, s);
}

/* Revalidation to its end: reval_phase() after the wide commit, settle() after the others. */
static void
revalidate(struct rule_engine *eng)
{
	for (unsigned int i = 0; i < (1u << 24) && pending(eng) != 0; i++)
		rule_engine_step(eng, 1000, 4096);
}

static __rte_noinline void
settle(struct rule_engine *eng)
{
	revalidate(eng);
}

static __rte_noinline unsigned int
reval_phase(struct rule_engine *eng)
{
	unsigned int steps = 0;

	while (steps < (1u << 24) && pending(eng) != 0) {
		rule_engine_step(eng, 1000, 4096);
		steps++;
	}
	return steps;
}

static int
num(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	return end == s || *end != '\0' || *v == 0 ? -EINVAL : 0;
}

int
main(int argc, char **argv)
{
	unsigned long v[3] = {1000, 20000, 8};
	char prefix[64], lcore[16];
	char *eal[] = {argv[0], (char *)(uintptr_t)"-l", lcore, (char *)(uintptr_t)"--no-huge",
		(char *)(uintptr_t)"-m", (char *)(uintptr_t)"512", (char *)(uintptr_t)"--no-pci",
		(char *)(uintptr_t)"--no-telemetry", (char *)(uintptr_t)"--log-level=*:warning",
		prefix, NULL};
	struct rule_engine_stats st;
	struct bench_env env;
	struct bench_rng rng;
	struct rule_engine *eng;
	struct fc_key *keys;
	uint64_t cyc, t0, rv0;
	double build_s, hz;
	unsigned int steps;
	uint32_t done;
	bool sport_only;
	int rc;

	for (int i = 1; i < argc && i <= 4; i++)
		if (i == 4 ? strcmp(argv[i], "random") != 0 && strcmp(argv[i], "sport") != 0
			   : num(argv[i], &v[i - 1]) != 0) {
			fprintf(stderr, "usage: %s [RULES [FLOWS [COMMITS [random|sport]]]]\n",
				argv[0]);
			return 2;
		}
	sport_only = argc > 4 && strcmp(argv[4], "sport") == 0;
	snprintf(lcore, sizeof(lcore), "%d", sched_getcpu() >= 0 ? sched_getcpu() : 0);
	snprintf(prefix, sizeof(prefix), "--file-prefix=gufc-bench-setup-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	hz = (double)rte_get_tsc_hz();
	rc = bench_env_init(&env);
	if (rc == 0)
		rc = bench_engine_start(&env, (uint32_t)(v[1] + v[1] / 8), 64);
	if (rc != 0) {
		fprintf(stderr, "engine: %s\n", strerror(-rc));
		return 1;
	}
	eng = env.app->eng;
	bench_rng_seed(&rng, 1000 + v[0]);
	rc = bench_engine_rules(&env, bench_rules_make(&rng, (uint32_t)v[0]), &build_s);
	keys = calloc(v[1], sizeof(*keys));
	if (rc != 0 || keys == NULL) {
		fprintf(stderr, "rules: %s\n", strerror(rc != 0 ? -rc : ENOMEM));
		return 1;
	}
	bench_rng_seed(&rng, 7 + v[1]);
	for (unsigned long i = 0; i < v[1]; i++) {
		bench_key_random(&rng, FC_AF_INET4, &keys[i]);
		if (sport_only) {
			keys[i] = keys[0];
			keys[i].v4.sport = rte_cpu_to_be_16((uint16_t)(1024 + i % 64512));
		}
	}

	done = setup_phase(&env, keys, (uint32_t)v[1], &cyc);
	rule_engine_stats_get(eng, &st);
	printf("setup: %u new flows, %lu flows and %lu entries inserted, %.0f flows/s\n", done,
		(unsigned long)st.flows, (unsigned long)st.replies + (unsigned long)st.flows,
		cyc ? done / ((double)cyc / hz) : 0);
	printf("classifier: %lu walks asked, %lu results reused, %lu kept, %lu per packet, "
	       "%lu around the cache\n",
		(unsigned long)st.classify_cls, (unsigned long)st.clsc_hits,
		(unsigned long)st.clsc_misses, (unsigned long)st.clsc_uncacheable,
		(unsigned long)st.clsc_skipped);

	/* Each commit: the current set with one rule replaced (prepared untimed). */
	settle(eng);
	cyc = 0;
	for (unsigned long i = 0; i < v[2]; i++) {
		struct rule_set *s = bench_set_replaced(eng, &rng);

		t0 = rte_rdtsc();
		if (s == NULL || commit_phase(eng, s) != 0)
			return 1;
		cyc += rte_rdtsc() - t0;
		settle(eng);
	}
	printf("commit: %lu commits, %.1f us each\n", v[2], (double)cyc / hz * 1e6 / (double)v[2]);

	rc = bench_engine_rules(&env, rule_set_clone(rule_engine_rules(eng)), &build_s);
	if (rc != 0 || rule_engine_commit(eng, bench_set_wide(eng, 5)) != 0)
		return 1;
	rule_engine_stats_get(eng, &st);
	rv0 = st.revalidated;
	t0 = rte_rdtsc();
	steps = reval_phase(eng);
	cyc = rte_rdtsc() - t0;
	rule_engine_stats_get(eng, &st);
	printf("revalidation: %lu entries revalidated, %lu refreshed in total, %u steps, %.1f ms\n",
		(unsigned long)(st.revalidated - rv0), (unsigned long)st.refreshed, steps,
		(double)cyc / hz * 1e3);
	free(keys);
	bench_engine_stop(&env);
	bench_env_fini(&env);
	gufc_eal_end();
	return 0;
}
