/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_report.c — gufc-bench's output: the table on stdout, the
 * summary (each figure from its named point, or the closest measured one,
 * with a note saying so), the JSON file and the check that re-reads it.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *const summary_keys[] = {
#define BENCH_KEY_NAME(k) #k,
	BENCH_SUMMARY_KEYS(BENCH_KEY_NAME)
#undef BENCH_KEY_NAME
};
#define N_SUMMARY (sizeof(summary_keys) / sizeof(summary_keys[0]))

void
bench_note(struct bench_results *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->n_notes == BENCH_MAX_NOTES)
		return;
	snprintf(r->note_key[r->n_notes], sizeof(r->note_key[0]), "%s", key);
	va_start(ap, fmt);
	vsnprintf(r->note[r->n_notes], BENCH_NOTE_LEN, fmt, ap);
	va_end(ap);
	r->n_notes++;
}

static const char *
mode_name(enum bench_mode m)
{
	return m == BENCH_MODE_QUICK ? "quick" : m == BENCH_MODE_SMOKE ? "smoke" : "full";
}

static void
count_fmt(char *buf, size_t len, uint32_t v)
{
	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(buf, len, "%uM", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%uK", v >> 10);
	else
		snprintf(buf, len, "%u", v);
}

/* The gufc path with the window check over without it (tcp_established). */
static double
win_ratio(const struct bench_point *p, unsigned int d)
{
	return p->win_cpp[d][1] > 0 ? p->win_cpp[d][0] / p->win_cpp[d][1] : 0;
}

void
bench_table_print(const struct bench_results *r, FILE *f)
{
	char a[16], b[16];

	fprintf(f,
		"\ngufc-bench (%s): cycles per packet, median of %u passes; TSC %.2f GHz; %s\n",
		mode_name(r->plan.mode), r->plan.repeats, r->tsc_hz / 1e9,
		r->plan.huge ? "hugepages" : "4 KiB pages");
	fprintf(f, "%6s %6s %8s | %8s %8s %9s %9s %8s | %8s %8s %9s %9s %8s\n", "rules",
		"flows", "entries", "floor", "gufc", "linear", "pipeline", "marked", "floor", "gufc",
		"linear", "pipeline", "marked");
	fprintf(f, "%6s %6s %8s | %-46s | %-46s\n", "", "", "", "uniform", "zipf");
	for (unsigned int i = 0; i < r->n_points; i++) {
		const struct bench_point *p = &r->pt[i];

		count_fmt(a, sizeof(a), p->rules);
		if (p->ext)
			strncat(a, "x", sizeof(a) - strlen(a) - 1);
		count_fmt(b, sizeof(b), p->flows_target);
		if (!p->measured) {
			fprintf(f, "%6s %6s %8s | skipped\n", a, b, "-");
			continue;
		}
		fprintf(f, "%6s %6s %8u |", a, b, p->flows);
		for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++) {
			fprintf(f, " %8.1f %8.1f %9.1f %9.1f %8.1f |", p->cpp[d][BENCH_FLOOR],
				p->cpp[d][BENCH_GUFC], p->cpp[d][BENCH_LINEAR],
				p->cpp[d][BENCH_PIPELINE], p->cpp[d][BENCH_MARKED]);
		}
		fprintf(f, " setup %.0f flows/s\n", p->setup_flows_per_s);
	}
	for (unsigned int i = 0; i < r->n_points; i++) {
		const struct bench_point *p = &r->pt[i];
		const double *st = p->stages;

		if (!p->measured || !p->staged)
			continue;
		if (i == 0 || !r->pt[i - 1].staged)
			fprintf(f, "stages of the gufc path (uniform, cycles per packet): "
				   "rx, parse, local bits, port+hash, lookup, the rest; floor beside it\n");
		count_fmt(a, sizeof(a), p->rules);
		if (p->ext)
			strncat(a, "x", sizeof(a) - strlen(a) - 1);
		count_fmt(b, sizeof(b), p->flows_target);
		fprintf(f, "%6s %6s: rx %.1f parse %.1f locals %.1f hash %.1f lookup %.1f rest %.1f "
			   "= %.1f | floor %.1f\n", a, b, st[BENCH_ST_RX],
			st[BENCH_ST_PARSE] - st[BENCH_ST_RX], st[BENCH_ST_LOCALS] - st[BENCH_ST_PARSE],
			st[BENCH_ST_HASH] - st[BENCH_ST_LOCALS], st[BENCH_ST_LOOKUP] - st[BENCH_ST_HASH],
			st[BENCH_ST_FULL] - st[BENCH_ST_LOOKUP], st[BENCH_ST_FULL], st[BENCH_ST_FLOOR]);
	}
	for (unsigned int i = 0; i < 2; i++)
		if (r->setup_fps[i] > 0 && (i == 0 || r->setup_rules[1] != r->setup_rules[0]))
			fprintf(f, "setup: %.0f new flows/s at %u rules (%u flows inserted)\n",
				r->setup_fps[i], r->setup_rules[i], r->setup_flows[i]);
	if (r->commit.measured)
		fprintf(f,
			"commit: %u rules, %u flows: p50 %.2f us, p99 %.2f us, max %.2f us "
			"(prepare p50 %.1f us, revalidation pass p50 %.1f ms)\n"
			"revalidation: %.1f -> %.1f cycles/packet (one lcore, both roles): "
			"fraction %.3f; RX role alone %.1f -> %.1f: %.3f\n",
			r->commit.rules, r->commit.flows, r->commit.p50_us, r->commit.p99_us,
			r->commit.max_us, r->commit.prepare_p50_us, r->commit.reval_pass_p50_ms,
			r->commit.steady_cpp, r->commit.reval_cpp, r->commit.fraction,
			r->commit.steady_rx_cpp, r->commit.reval_rx_cpp, r->commit.rx_fraction);
	for (unsigned int i = 0; r->plan.tcp_established && i < r->n_points; i++) {
		const struct bench_point *p = &r->pt[i];

		if (!p->measured)
			continue;
		count_fmt(a, sizeof(a), p->rules);
		count_fmt(b, sizeof(b), p->flows_target);
		fprintf(f, "window check: %s rules, %s flows: gufc %.1f with, %.1f without (%.3f) "
			"uniform; %.1f with, %.1f without (%.3f) zipf; %" PRIu64 " upcalls\n", a, b,
			p->win_cpp[BENCH_UNIFORM][0], p->win_cpp[BENCH_UNIFORM][1],
			win_ratio(p, BENCH_UNIFORM), p->win_cpp[BENCH_ZIPF][0],
			p->win_cpp[BENCH_ZIPF][1], win_ratio(p, BENCH_ZIPF), p->win_upcalls);
	}
	if (r->mem.measured)
		fprintf(f, "memory: %.1f bytes/flow IPv4, %.1f bytes/flow IPv6 (capacity %u); of "
			   "them TCP window records %.1f, %.1f (%" PRIu64 ", %" PRIu64
			   " connections, %u bytes each)\n",
			r->mem.bytes_per_flow[0], r->mem.bytes_per_flow[1], r->mem.capacity,
			r->mem.tcp_records[0], r->mem.tcp_records[1], r->mem.tcp_conns[0],
			r->mem.tcp_conns[1], r->mem.tcp_record_size);
	if (r->perflow.measured)
		fprintf(f, "per-flow channels: %u rings of %u slots live (%u memzones), %u bytes "
			"per ring, %.0f ns to make and give one; delivery %.1f cycles/packet per-flow "
			"(%.1f among 1,000 hot rings), %.1f shared (%.2fx)\n",
			r->perflow.rings, r->perflow.ring_size, r->perflow.chunks,
			r->perflow.bytes_per_ring, r->perflow.alloc_ns, r->perflow.perflow_cpp,
			r->perflow.hot_cpp, r->perflow.shared_cpp, r->perflow.ratio);
}

/* The measured point closest to (rules, flows): flows first, then rules; plain or extended. */
static const struct bench_point *
point_find_kind(const struct bench_results *r, uint32_t rules, uint32_t flows, bool ext)
{
	const struct bench_point *best = NULL;
	double bd = 0;

	for (unsigned int i = 0; i < r->n_points; i++) {
		const struct bench_point *p = &r->pt[i];
		double d;

		if (!p->measured || p->ext != ext)
			continue;
		d = fabs(log((double)p->flows_target / flows)) * 100 +
			fabs(log((double)p->rules / rules));
		if (best == NULL || d < bd) {
			best = p;
			bd = d;
		}
	}
	return best;
}

static const struct bench_point *
point_find(const struct bench_results *r, uint32_t rules, uint32_t flows)
{
	return point_find_kind(r, rules, flows, false);
}

static double
ratio(struct bench_results *r, const char *key, uint32_t rules, uint32_t flows,
	enum bench_path num, enum bench_path den)
{
	const struct bench_point *p = point_find(r, rules, flows);

	if (p == NULL)
		return 0;
	if (p->rules != rules || p->flows_target != flows)
		bench_note(r, key, "not measured in this mode: taken at %u rules, %u flows", p->rules,
			p->flows_target);
	return p->cpp[BENCH_UNIFORM][den] > 0 ?
		p->cpp[BENCH_UNIFORM][num] / p->cpp[BENCH_UNIFORM][den] : 0;
}

void
bench_summary(struct bench_results *r, double out[])
{
	const uint32_t m1 = 1u << 20;
	const struct bench_point *a, *b;
	unsigned int i = 0;

	out[i++] = ratio(r, "gufc_over_floor_1m_flows", 1000, m1, BENCH_GUFC, BENCH_FLOOR);
	out[i++] = ratio(r, "linear_over_gufc_1k_rules", 1000, m1, BENCH_LINEAR, BENCH_GUFC);
	out[i++] = ratio(r, "linear_over_gufc_10k_rules", 10000, m1, BENCH_LINEAR, BENCH_GUFC);
	out[i++] = ratio(r, "pipeline_over_gufc_1k_rules", 1000, m1, BENCH_PIPELINE, BENCH_GUFC);
	out[i++] = ratio(r, "pipeline_over_gufc_10k_rules", 10000, m1, BENCH_PIPELINE,
		BENCH_GUFC);
	a = point_find(r, 10000, m1);
	b = point_find(r, 10, m1);
	out[i] = 0;
	if (a != NULL && b != NULL && b->cpp[BENCH_UNIFORM][BENCH_GUFC] > 0) {
		out[i] = a->cpp[BENCH_UNIFORM][BENCH_GUFC] / b->cpp[BENCH_UNIFORM][BENCH_GUFC];
		if (a->rules != 10000 || a->flows_target != m1 || b->rules != 10 ||
			b->flows_target != m1)
			bench_note(r, "gufc_10k_over_10_rules",
				"not measured in this mode: %u rules, %u flows over %u rules, %u flows",
				a->rules, a->flows_target, b->rules, b->flows_target);
		/* The two points are measured apart: the floor beside each shows the drift. */
		if (a->cpp[BENCH_UNIFORM][BENCH_FLOOR] > 0 && b->cpp[BENCH_UNIFORM][BENCH_FLOOR] > 0)
			bench_note(r, "gufc_10k_over_10_rules_by_floor",
				"%.3f: each point's gufc over the floor measured beside it (the floor "
				"does not depend on rules: this cancels drift between the points); "
				"accepted %.0f%% of packets at %u rules, %.0f%% at %u (a drop frees its "
				"mbuf inside the timed path, a delivery leaves it to the consumer)",
				(a->cpp[BENCH_UNIFORM][BENCH_GUFC] / a->cpp[BENCH_UNIFORM][BENCH_FLOOR]) /
					(b->cpp[BENCH_UNIFORM][BENCH_GUFC] /
						b->cpp[BENCH_UNIFORM][BENCH_FLOOR]),
				100.0 * a->accept_frac, a->rules, 100.0 * b->accept_frac, b->rules);
	}
	i++;
	out[i++] = r->setup_fps[0];
	if (r->setup_rules[0] != 1000)
		bench_note(r, "setup_flows_per_s_1k_rules", "not measured in this mode: at %u rules",
			r->setup_rules[0]);
	out[i++] = r->commit.p99_us;
	if (r->commit.rules != 10000 || r->commit.flows != m1)
		bench_note(r, "commit_p99_us_10k_rules_1m_flows",
			"not measured in this mode: at %u rules, %u flows", r->commit.rules,
			r->commit.flows);
	out[i++] = r->commit.fraction;
	out[i++] = r->mem.bytes_per_flow[0];
	out[i++] = ratio(r, "marked_over_software", 1000, m1, BENCH_MARKED, BENCH_GUFC);
	/* Interfaces, marks and a meter: each point's gufc over its own floor (drift cancels). */
	a = point_find_kind(r, 1000, m1, true);
	b = a != NULL ? point_find(r, a->rules, a->flows_target) : NULL;
	out[i] = 0;
	if (a != NULL && b != NULL && a->cpp[BENCH_UNIFORM][BENCH_FLOOR] > 0 &&
		b->cpp[BENCH_UNIFORM][BENCH_FLOOR] > 0 && b->cpp[BENCH_UNIFORM][BENCH_GUFC] > 0) {
		out[i] = (a->cpp[BENCH_UNIFORM][BENCH_GUFC] / a->cpp[BENCH_UNIFORM][BENCH_FLOOR]) /
			 (b->cpp[BENCH_UNIFORM][BENCH_GUFC] / b->cpp[BENCH_UNIFORM][BENCH_FLOOR]);
		if (a->rules != 1000 || a->flows_target != m1)
			bench_note(r, "gufc_ext_over_plain_1k_rules",
				"not measured in this mode: at %u rules, %u flows", a->rules,
				a->flows_target);
		bench_note(r, "method_ext",
			"gufc_ext_over_plain_1k_rules: the gufc path's cycles/packet over the floor "
			"measured beside it, on the 1000-rule set with rules naming the input port, a "
			"mangle chain marking flows with filter rules matching the marks, and a "
			"-m limit rule about 10%% of the flows reach (their entries take a token per "
			"packet), over the same on the plain set; uniform traffic; the extended point "
			"is the row marked x");
	}
	i++;
	out[i++] = r->perflow.ratio;
	bench_note(r, "method_marked",
		"marked: the gufc path with every accepted flow's packets marked as a MARK rule "
		"(swnic model or NIC) marks them, and the dropped flows' packets kept in the NIC "
		"(DROP rules): dp_rx_burst()'s step 0 (mark check, entry read, TCP-flag peek) instead "
		"of parse, hash and lookup, per packet gufc received; marked_over_software is its "
		"median cycles/packet over the gufc path's, uniform traffic, 1M flows, 1000 rules");

	a = point_find(r, 1000, m1);
	if (r->plan.tcp_established && a != NULL)
		bench_note(r, "window_check",
			"%.3f: at %u rules, %u flows, uniform traffic, the gufc path's median "
			"cycles/packet with the fast path's TCP window check over the same without it "
			"(FC_INTEREST_TCP_WIN cleared on the entries), passes taking turns (zipf: "
			"%.3f); %" PRIu64 " upcalls with the check",
			win_ratio(a, BENCH_UNIFORM), a->rules, a->flows_target, win_ratio(a, BENCH_ZIPF),
			a->win_upcalls);
	bench_note(r, "method_stages",
		"stages_cycles_per_packet (1000-rule points): cumulative prefixes of the gufc path "
		"run on the same packets through the datapath's public functions, taking turns "
		"with the floor: rx = rte_eth_rx_burst; parse = + fc_parse_burst; "
		"locals = + fc_locals_mark_burst; hash = + input port and fc_table_hash_bulk; lookup = + "
		"fc_table_lookup_bulk (bucket, key and entry lines, action copy); full = the gufc "
		"path. A stage's cost is the difference of consecutive prefixes");
	bench_note(r, "method_ratios",
		"X_over_Y: median cycles/packet of X over Y, uniform traffic, at 1M flows; "
		"gufc_over_floor at 1000 rules");
	bench_note(r, "method_setup",
		"new connections per second through rule_engine_upcall_burst (classifier, module "
		"callbacks, forward and reply entries inserted), while filling the 1M-flow table");
	bench_note(r, "method_commit",
		"rule_engine_commit() of a set with one random rule replaced (the clone and edit "
		"are the main lcore's, reported as prepare); full revalidation between commits");
	bench_note(r, "method_revalidation",
		"one lcore running both roles as the app does on 1-2 cores (gufc_rx_poll then "
		"gufc_slow_poll per burst): packets per cycle while a commit inserting a top rule "
		"that matches 1/16 of the flows is revalidated, over the same in steady state. "
		"The RX role alone (rules lcore elsewhere) is commit.rx_throughput_fraction; "
		"upcalled packets count there at their RX cost only");
	bench_note(r, "method_memory",
		"heap bytes (rte_malloc and libc) of an engine whose table is full, minus those of "
		"an engine with 64-entry tables, per table entry (conntrack: a connection is a "
		"forward and a reply entry). Everything is counted: the table, the engine's side "
		"records (marks: none in this fill), and conntrack's TCP window tracking, a record "
		"per TCP connection that is also its fast-path line (tcp_record_bytes), which the traffic's "
		"share of TCP flows puts in the figure (tcp_records_per_flow_ipv4: the part of "
		"bytes_per_flow_ipv4 that is theirs, computed from the connections tracked; "
		"chunked allocation may add a little)");
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Numbers: JSON has no NaN or infinity; those are written as null. */
static void
json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

static void
json_list(FILE *f, const uint32_t *v, unsigned int n)
{
	fputc('[', f);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", v[i]);
	fputc(']', f);
}

int
bench_json_write(const struct bench_results *r, const double summary[], const char *path)
{
	const struct bench_plan *pl = &r->plan;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"gufc-bench\",\n  \"mode\": \"%s\",\n", mode_name(pl->mode));
	fprintf(f, "  \"pages\": \"%s\",\n", pl->huge ? "hugepages" : "4k");
	fprintf(f, "  \"seed\": %u,\n  \"tsc_hz\": %.0f,\n  \"elapsed_s\": %.1f,\n", pl->seed,
		r->tsc_hz, r->elapsed_s);
	fprintf(f, "  \"summary\": {\n");
	for (unsigned int i = 0; i < N_SUMMARY; i++) {
		fprintf(f, "    \"%s\": ", summary_keys[i]);
		json_num(f, summary[i]);
		fprintf(f, "%s\n", i + 1 < N_SUMMARY ? "," : "");
	}
	fprintf(f, "  },\n  \"notes\": {\n");
	for (unsigned int i = 0; i < r->n_notes; i++) {
		fprintf(f, "    ");
		json_str(f, r->note_key[i]);
		fprintf(f, ": ");
		json_str(f, r->note[i]);
		fprintf(f, "%s\n", i + 1 < r->n_notes ? "," : "");
	}
	fprintf(f, "  },\n  \"plan\": {\n    \"rules\": ");
	json_list(f, pl->rules, pl->n_rules);
	fprintf(f, ",\n    \"flows\": ");
	json_list(f, pl->flows, pl->n_flows);
	fprintf(f,
		",\n    \"repeats\": %u,\n    \"packets_per_pass\": %u,\n"
		"    \"pass_budget_cycles\": %" PRIu64 ",\n    \"zipf_s\": %.3f,\n"
		"    \"burst\": %u\n  },\n",
		pl->repeats, pl->packets, pl->pass_budget, pl->zipf_s, BENCH_BURST);
	fprintf(f,
		"  \"paths\": {\n"
		"    \"floor\": \"rte_hash_lookup_bulk_data on pre-built keys, flow-table geometry, "
		"same keys\",\n"
		"    \"gufc\": \"gufc_rx_poll() of app/gufc_rx.c and dp_rx_burst(): rx burst, parse, local bits, "
		"lookup, stale/interest, actions, touch, channel enqueue; the port's RX ring kept a "
		"burst ahead of the poll, as a NIC's is\",\n"
		"    \"linear\": \"rx burst, parse, local bits; per packet rte_hash conntrack "
		"lookup, rule_ref_filter first match, rte_lpm route; channel enqueue\",\n"
		"    \"pipeline\": \"rx burst, parse, local bits; rte_hash bulk conntrack lookup, "
		"rule_cls (rte_acl) bulk classify, rte_lpm bulk route; channel enqueue\"\n"
		"  },\n");
	fprintf(f, "  \"points\": [\n");
	for (unsigned int i = 0; i < r->n_points; i++) {
		const struct bench_point *p = &r->pt[i];

		fprintf(f,
			"    {\"rules\": %u, \"ext\": %s, \"flows\": %u, \"measured\": %s, "
			"\"entries\": %u, \"connections\": %u, \"setup_flows_per_s\": ",
			p->rules, p->ext ? "true" : "false", p->flows_target,
			p->measured ? "true" : "false", p->flows, p->conns);
		json_num(f, p->setup_flows_per_s);
		fprintf(f, ", \"accept_frac\": %.4f, \"matched_frac\": %.4f, "
			   "\"unexpected_upcalls\": %" PRIu64 ", \"trimmed_bursts\": %" PRIu64
			   ",\n      \"cycles_per_packet\": {",
			p->accept_frac, p->matched_frac, p->unexpected_upcalls, p->trimmed_bursts);
		for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++) {
			fprintf(f, "%s\"%s\": {", d ? ", " : "", bench_dist_name(d));
			for (unsigned int k = 0; k < BENCH_PATH__COUNT; k++) {
				fprintf(f, "%s\"%s\": ", k ? ", " : "", bench_path_name(k));
				json_num(f, p->measured ? p->cpp[d][k] : NAN);
			}
			fputc('}', f);
		}
		fputc('}', f);
		if (pl->tcp_established) {
			fprintf(f, ",\n      \"window_check\": {");
			for (unsigned int d = 0; d < BENCH_DIST__COUNT; d++) {
				fprintf(f, "\"%s\": {\"with\": ", bench_dist_name(d));
				json_num(f, p->measured ? p->win_cpp[d][0] : NAN);
				fprintf(f, ", \"without\": ");
				json_num(f, p->measured ? p->win_cpp[d][1] : NAN);
				fprintf(f, "}, ");
			}
			fprintf(f, "\"upcalls\": %" PRIu64 "}", p->win_upcalls);
		}
		if (p->measured && p->staged) {
			/* Cumulative prefixes of the gufc path (bench_stages.c). */
			fprintf(f, ",\n      \"stages_cycles_per_packet\": {");
			for (unsigned int k = 0; k < BENCH_ST__COUNT; k++) {
				fprintf(f, "%s\"%s\": ", k ? ", " : "", bench_stage_name(k));
				json_num(f, p->stages[k]);
			}
			fputc('}', f);
		}
		fprintf(f, "}%s\n", i + 1 < r->n_points ? "," : "");
	}
	fprintf(f, "  ],\n  \"setup\": [");
	for (unsigned int i = 0; i < 2; i++) {
		fprintf(f, "%s\n    {\"rules\": %u, \"flows_inserted\": %u, \"flows_per_s\": ",
			i ? "," : "", r->setup_rules[i], r->setup_flows[i]);
		json_num(f, r->setup_fps[i]);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"commit\": {\"rules\": %u, \"flows\": %u, \"commits\": %u, ",
		r->commit.rules, r->commit.flows, r->commit.n);
	fprintf(f, "\"p50_us\": ");
	json_num(f, r->commit.p50_us);
	fprintf(f, ", \"p99_us\": ");
	json_num(f, r->commit.p99_us);
	fprintf(f, ", \"max_us\": ");
	json_num(f, r->commit.max_us);
	fprintf(f, ", \"prepare_p50_us\": ");
	json_num(f, r->commit.prepare_p50_us);
	fprintf(f, ", \"revalidation_pass_p50_ms\": ");
	json_num(f, r->commit.reval_pass_p50_ms);
	fprintf(f, ",\n    \"steady_cycles_per_packet\": ");
	json_num(f, r->commit.steady_cpp);
	fprintf(f, ", \"revalidation_cycles_per_packet\": ");
	json_num(f, r->commit.reval_cpp);
	fprintf(f, ", \"throughput_fraction\": ");
	json_num(f, r->commit.fraction);
	fprintf(f, ",\n    \"rx_steady_cycles_per_packet\": ");
	json_num(f, r->commit.steady_rx_cpp);
	fprintf(f, ", \"rx_revalidation_cycles_per_packet\": ");
	json_num(f, r->commit.reval_rx_cpp);
	fprintf(f, ", \"rx_throughput_fraction\": ");
	json_num(f, r->commit.rx_fraction);
	fprintf(f,
		",\n    \"revalidation_packets\": %" PRIu64 ", \"stale_upcalls\": %" PRIu64
		", \"entries_revalidated\": %" PRIu64 "},\n",
		r->commit.reval_packets, r->commit.stale_upcalls, r->commit.revalidated);
	fprintf(f, "  \"memory\": {\"capacity\": %u, \"occupancy_ipv4\": %u, "
		   "\"occupancy_ipv6\": %u, \"bytes_per_flow_ipv4\": ",
		r->mem.capacity, r->mem.occupancy[0], r->mem.occupancy[1]);
	json_num(f, r->mem.bytes_per_flow[0]);
	fprintf(f, ", \"bytes_per_flow_ipv6\": ");
	json_num(f, r->mem.bytes_per_flow[1]);
	fprintf(f, ",\n    \"tcp_records_per_flow_ipv4\": ");
	json_num(f, r->mem.tcp_records[0]);
	fprintf(f, ", \"tcp_records_per_flow_ipv6\": ");
	json_num(f, r->mem.tcp_records[1]);
	fprintf(f, ", \"tcp_conns_ipv4\": %" PRIu64 ", \"tcp_conns_ipv6\": %" PRIu64
		   ", \"tcp_record_bytes\": %u},\n",
		r->mem.tcp_conns[0], r->mem.tcp_conns[1], r->mem.tcp_record_size);
	fprintf(f, "  \"perflow\": {\"rings\": %u, \"chunks\": %u, \"ring_size\": %u, "
		   "\"bytes_per_ring\": %u, \"alloc_ns\": ",
		r->perflow.rings, r->perflow.chunks, r->perflow.ring_size, r->perflow.bytes_per_ring);
	json_num(f, r->perflow.alloc_ns);
	fprintf(f, ", \"shared_cycles_per_packet\": ");
	json_num(f, r->perflow.shared_cpp);
	fprintf(f, ", \"perflow_cycles_per_packet\": ");
	json_num(f, r->perflow.perflow_cpp);
	fprintf(f, ", \"perflow_hot_cycles_per_packet\": ");
	json_num(f, r->perflow.hot_cpp);
	fprintf(f, "}\n}\n");
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

int
bench_json_check(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, *sum, *end;
	long len;
	int bad = 0;

	if (f == NULL) {
		fprintf(stderr, "gufc-bench: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto fail;
	text = calloc(1, (size_t)len + 1);
	if (text == NULL || fread(text, 1, (size_t)len, f) != (size_t)len)
		goto fail;
	sum = strstr(text, "\"summary\"");
	end = sum != NULL ? strchr(sum, '}') : NULL;
	if (sum == NULL || end == NULL) {
		fprintf(stderr, "gufc-bench: %s: no summary object\n", path);
		goto fail;
	}
	*end = '\0';
	for (unsigned int i = 0; i < N_SUMMARY; i++) {
		char pat[96];
		char *p, *q;
		double v;

		snprintf(pat, sizeof(pat), "\"%s\":", summary_keys[i]);
		p = strstr(sum, pat);
		if (p == NULL) {
			fprintf(stderr, "gufc-bench: summary key %s missing\n", summary_keys[i]);
			bad++;
			continue;
		}
		v = strtod(p + strlen(pat), &q);
		if (q == p + strlen(pat) || !isfinite(v) || v <= 0) {
			fprintf(stderr, "gufc-bench: summary key %s is not a finite positive number\n",
				summary_keys[i]);
			bad++;
		}
	}
	free(text);
	fclose(f);
	return bad ? -1 : 0;
fail:
	free(text);
	fclose(f);
	return -1;
}
