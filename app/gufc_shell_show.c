/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_show.c — "show ...": parses its words, reads through the
 * control layer's collectors (gufc_collect_*: committed rules with their
 * counters, flows, routes — the rows telemetry prints too), the counters
 * (gufc_stats_sum()) and the libraries' dumps, and prints.
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "gufc_shell_priv.h"

#define SH_FLOWS_DEFAULT 32

/* ------------------------------------------------------------------------ */
/* show                                                                      */
/* ------------------------------------------------------------------------ */

static int
no_more(struct sh_ctx *c, unsigned int i)
{
	if (c->l->n > i)
		return sh_err(c, -EINVAL, c->l->tok[i], "unexpected word");
	return 0;
}

static int
show_stats(struct sh_ctx *c)
{
	struct gufc_totals t;
	const struct gufc_sum *s = &t.sum;
	FILE *f = c->out;

	gufc_stats_sum(c->app, &t);
	fprintf(f, "%-20s %s\n", "mode", gufc_mode_name(c->app));
	fprintf(f, "%-20s %" PRIu64 " (%" PRIu64 " bytes)\n", "rx", s->rx, s->rx_bytes);
	fprintf(f, "%-20s %" PRIu64 "\n", "delivered", t.delivered);
	fprintf(f, "%-20s %" PRIu64 "\n", "drops", t.drops_total);
	fprintf(f, "%-20s %" PRIu64 "\n", "in rings", t.ct.in_ring);
	fprintf(f, "%-20s %" PRIu64 " now, %" PRIu64 " in all\n", "waiting", s->waiting, s->waited);
	fprintf(f, "%-20s %" PRIu64 " now, %" PRIu64 " times (%s)\n", "held back", s->ll_held,
		s->ll_bursts, c->app->lossless ? "lossless" : "lossless off");
	fprintf(f, "%-20s %" PRIu64 " enqueues, %" PRIu64 " upcalls kept for the next now\n",
		"upcall ring", s->up_rings, s->up_kept);
	fprintf(f, "%-20s %" PRIu64 " packets kept for the next poll now, %" PRIu64
		" bursts applied by an idle poll\n", "rx-ahead", s->rx_kept, s->rx_kept_idle);
	fprintf(f, "%-20s %" PRIu64 " hits %" PRIu64 " misses\n", "cache", s->hits, s->misses);
	fprintf(f, "%-20s %" PRIu64 " (not established %" PRIu64 ", established %" PRIu64
		", out of order %" PRIu64 ")\n", "evictions", t.t4.evictions + t.t6.evictions,
		t.t4.evict_early + t.t6.evict_early,
		t.t4.evictions + t.t6.evictions - t.t4.evict_early - t.t6.evict_early,
		t.t4.evict_est_early + t.t6.evict_est_early);
	fprintf(f, "%-20s %" PRIu64 " (stale %" PRIu64 ", interest %" PRIu64 ", per packet %" PRIu64
		", flag class %" PRIu64 ", pending %" PRIu64 ", uncounted %" PRIu64 ")\n", "upcalls",
		s->upcalls, s->upcall_stale, s->upcall_interest, s->upcall_per_packet,
		s->upcall_class, s->upcall_pending, s->upcall_uncounted);
	fprintf(f, "%-20s %" PRIu64 " (classifier %" PRIu64 ", reference %" PRIu64
		", behind their connection's on the fast path's code %" PRIu64 ")\n",
		"slow-path packets", s->slow_pkts, t.es.classify_cls, t.es.classify_ref,
		s->upcall_fast);
	fprintf(f, "%-20s %" PRIu64 " reused, %" PRIu64 " kept, %" PRIu64 " per packet, %" PRIu64
		" around, %" PRIu64 " flushes, %" PRIu64 " whole walks, %" PRIu64
		" new flows' whole walks\n", "classifier cache",
		t.es.clsc_hits, t.es.clsc_misses, t.es.clsc_uncacheable, t.es.clsc_skipped,
		t.es.clsc_flushes, t.es.clsc_walk_hits, t.es.clsc_new_hits);
	fprintf(f, "%-20s %" PRIu64 " (ctstate changed, walk would not)\n", "refilters saved",
		t.es.refilter_kept);
	fprintf(f, "%-20s %" PRIu64 " taken on the fast path, %" PRIu64 " armed, %" PRIu64
		" decided ahead (%" PRIu64 " settled by aging), %" PRIu64 " walk not plain\n",
		"first replies", s->ct_synack_fast, t.cts.synack_armed, t.es.synack_ahead,
		t.es.synack_settled, t.es.synack_plain_not);
	fprintf(f,
		"%-20s %" PRIu64 " port mismatch, %" PRIu64 " reply entries moved, %" PRIu64
		" keyed where earlier replies came\n",
		"input ports", t.es.port_mismatch, t.es.reply_moved, t.es.reply_guessed);
	fprintf(f, "%-20s %" PRIu64 " (no memory: non-deciding rules miss their packets)\n",
		"rule traces lost", t.es.trace_lost);
	fprintf(f, "%-20s %u active (v4 %u, v6 %u), %" PRIu64 " created, %" PRIu64
		" removed\n", "flows", t.t4.occupancy + t.t6.occupancy, t.t4.occupancy,
		t.t6.occupancy, t.es.flows, t.es.removed);
	fprintf(f, "%-20s %" PRIu64 " (generation %u, classifier %u, pending %u)\n", "commits",
		t.es.commits, t.es.gen, t.es.cls_gen, t.es.pending);
	fprintf(f, "%-20s %" PRIu64 " revalidated, %" PRIu64 " refreshed\n", "after commits",
		t.es.revalidated, t.es.refreshed);
	fprintf(f, "%-20s %" PRIu64 " decided again (connbytes)\n", "counts reached",
		t.es.count_redecided);
	fprintf(f, "%-20s %" PRIu64 " new flows, %" PRIu64 " taken back for an expectation\n",
		"cached drops", t.es.cached_drops, t.es.drops_expected);
	fprintf(f, "%-20s %" PRIu64 " related, %" PRIu64 " of them translated\n", "icmp errors",
		t.cts.related, t.nats.related_nat);
	fprintf(f, "%-20s %" PRIu64 " tcp connections (refused %" PRIu64 "), ignored %" PRIu64
		" (fast path %" PRIu64 "), reopened %" PRIu64 ", removed by rst %" PRIu64
		", %" PRIu64 " sctp associations\n",
		"conntrack", t.cts.tcp_conns, t.cts.tcp_full, t.cts.ignored, s->ct_ignored_fast,
		t.cts.reopened, t.cts.removed, t.cts.sctp_conns);
	fprintf(f, "%-20s", "conntrack invalid");
	for (unsigned int w = 1; w < MOD_CT_WHY__COUNT; w++)
		fprintf(f, " %s %" PRIu64 "%s", mod_ct_why_name(w), t.cts.invalid[w],
			w + 1 < MOD_CT_WHY__COUNT ? "," : "\n");
	fprintf(f, "%-20s %" PRIu64 " new flows untracked by the raw table\n", "notrack",
		t.cts.notrack);
	fprintf(f, "%-20s %" PRIu64 " connections, %" PRIu64 " segments read, %" PRIu64
		" commands (%" PRIu64 " foreign), %" PRIu64 " dropped, %" PRIu64 " nat rewrites (%" PRIu64
		" failed), %" PRIu64 " related\n", "helpers", t.cth.conns, t.cth.segments,
		t.cth.commands, t.cth.foreign, t.cth.dropped, t.cth.nat_rewrites, t.cth.nat_failed,
		t.cth.related);
	fprintf(f, "%-20s %u held (of %u), %" PRIu64 " created, %" PRIu64 " matched, %" PRIu64
		" expired, %" PRIu64 " evicted, %" PRIu64 " removed, %" PRIu64 " full\n", "expectations",
		t.cth.exp.active, t.cth.exp.capacity, t.cth.exp.created, t.cth.exp.matched,
		t.cth.exp.expired, t.cth.exp.evicted, t.cth.exp.removed, t.cth.exp.full);
	fprintf(f, "%-20s %" PRIu64 " rerouted, %" PRIu64 " walks%s\n", "route changes",
		t.rts.rerouted, t.rts.route_walks, t.rts.rerouting ? " (walking)" : "");
	fprintf(f, "%-20s %" PRIu64 " in, %" PRIu64 " datagrams, %" PRIu64 " failed\n",
		"fragments", s->frag_in, s->frag_out, s->frag_dropped);
	fprintf(f, "%-20s %" PRIu64 "\n", "transmitted", s->tx_pkts);
	fprintf(f, "%-20s %" PRIu64 "\n", "non-ip passed", s->non_ip_pass);
	fprintf(f, "%-20s %" PRIu64 " sent, %" PRIu64 " suppressed\n", "reject replies",
		s->reject_replies, s->reject_suppressed);
	{
		struct gufc_log_stats ls;

		gufc_log_stats_get(c->app, s->log_queued, s->log_dropped, &ls);
		fprintf(f, "%-20s %" PRIu64 " logged, %" PRIu64 " log_dropped, %" PRIu64
			" lines (%" PRIu64 " suppressed), %" PRIu64 " to log channels\n", "log",
			ls.queued, ls.dropped, ls.lines, ls.suppressed, ls.written);
	}
	fprintf(f, "%-20s %" PRIu64 " packets, %" PRIu64 " skipped\n", "rewrites", s->rewritten,
		s->rewrite_skipped);
	fprintf(f, "%-20s %" PRIu64 " ok, %" PRIu64 " failed", "reloads (SIGHUP)", t.reload.ok,
		t.reload.failed);
	if (t.reload.ok != 0)
		fprintf(f, " (last: %u rules, generation %u, %" PRIu64 " us)", t.reload.last_rules,
			t.reload.last_gen, t.reload.last_us);
	fputc('\n', f);
	if (c->app->neigh != NULL)
		gufc_router_stats_text(&t, f, 20);
	if (t.ipfix.on)
		fprintf(f, "%-20s %" PRIu64 " records, %" PRIu64 " messages, %" PRIu64
			" templates, %" PRIu64 " messages dropped\n", "ipfix", t.ipfix.st.records,
			t.ipfix.st.messages, t.ipfix.st.templates, t.ipfix.st.send_failed);
	gufc_lcores_dump(c->app, f, false);
	return no_more(c, 2);
}

static int
show_drops(struct sh_ctx *c)
{
	struct gufc_totals t;

	gufc_stats_sum(c->app, &t);
	for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++)
		if (gufc_drop_valid(d))
			fprintf(c->out, "%-26s %14" PRIu64 "  %s\n", gufc_drop_id(d),
				t.sum.drops[d], gufc_drop_text(d));
	fprintf(c->out, "%-26s %14" PRIu64 "\n", "total", t.drops_total);
	return no_more(c, 2);
}

static int
show_rules(struct sh_ctx *c)
{
	struct gufc_rule_row *rows;
	unsigned int n, i, n_rules;
	int rc;

	if (c->l->n > 2 && (strcmp(c->l->tok[2], "iptables") == 0 ||
				   strcmp(c->l->tok[2], "ip6tables") == 0)) {
		char *text;

		rc = no_more(c, 3);
		if (rc != 0)
			return rc;
		rc = gufc_collect_iptables(c->app,
			c->l->tok[2][2] == '6' ? FC_AF_INET6 : FC_AF_INET4, &text);
		if (rc != 0)
			return sh_err(c, rc, NULL, "%s", strerror(-rc));
		fputs(text, c->out);
		free(text);
		return 0;
	}
	if (c->l->n > 2 && strcmp(c->l->tok[2], "pending") == 0) {
		if (sh_pending() == NULL) {
			fprintf(c->out, "nothing pending\n");
			return no_more(c, 3);
		}
		rule_set_dump(sh_pending(), c->out);
		return no_more(c, 3);
	}
	rc = no_more(c, 2);
	if (rc != 0)
		return rc;
	rc = gufc_collect_rules(c->app, &rows, &n, UINT32_MAX);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	fprintf(c->out, "%6s %-6s %-12s %4s %12s %14s  %s\n", "id", "table", "chain", "pos",
		"packets", "bytes", "rule");
	for (i = 0; i < n && rows[i].hook == RULE_HOOK__COUNT; i++)
		fprintf(c->out, "%6u %-6s %-12s %4u %12" PRIu64 " %14" PRIu64 "  %s\n", rows[i].id,
			rule_table_name(rows[i].table), rows[i].chain, rows[i].pos,
			rows[i].packets, rows[i].bytes, rows[i].text);
	n_rules = i;
	/* The base chains' policies: the packets that left each by its end. */
	for (; i < n; i++)
		fprintf(c->out, "%6s %-6s %-12s %4s %12" PRIu64 " %14" PRIu64 "  policy %s %s: %s\n",
			"-", rule_table_name(rows[i].table), rows[i].chain, "-", rows[i].packets,
			rows[i].bytes, rows[i].family == FC_AF_INET6 ? "ipv6" : "ipv4",
			rule_hook_name(rows[i].hook), rows[i].text);
	fprintf(c->out, "%u rules, generation %u%s\n", n_rules,
		rule_engine_generation(c->app->eng),
		sh_pending() ? "; uncommitted changes pending ('show pending', 'commit')" : "");
	free(rows);
	return 0;
}

static int
show_pending(struct sh_ctx *c)
{
	if (sh_pending() == NULL)
		fprintf(c->out, "nothing pending\n");
	else
		rule_set_dump(sh_pending(), c->out);
	return no_more(c, 2);
}

static void
print_flows(struct sh_ctx *c, const struct gufc_flow_row *rows, unsigned int n, uint64_t total)
{
	for (unsigned int i = 0; i < n; i++)
		fprintf(c->out, "%s\n", rows[i].text);
	fprintf(c->out, "%u of %" PRIu64 " matching flow entries shown\n", n, total);
}

/* show flows [limit N] [filter] [MATCH...] — MATCH: the match words of a rule. */
static int
show_flows(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_flow_row *rows;
	struct rule match, *mp = NULL;
	uint32_t limit = SH_FLOWS_DEFAULT;
	unsigned int i = 2, n;
	uint64_t total;
	int rc;

	while (i < l->n) {
		if (strcmp(l->tok[i], "limit") == 0) {
			if (i + 1 >= l->n)
				return sh_err(c, -EINVAL, l->tok[i], "missing number");
			if (sh_u32(l->tok[i + 1], &limit) != 0 || limit == 0 || limit > 1u << 20)
				return sh_err(c, -EINVAL, l->tok[i + 1], "limit: 1..1048576");
			i += 2;
		} else if (strcmp(l->tok[i], "filter") == 0) {
			i++;
		} else {
			break;
		}
	}
	if (i < l->n) {
		char text[SH_LINE_MAX + 16];
		struct rule_error err;
		const char *rest = sh_rest(l, i);
		const char *lim = strstr(rest, " limit ");

		/* A trailing "limit N" after the match words. */
		if (lim != NULL && l->n >= 2 && strcmp(l->tok[l->n - 2], "limit") == 0) {
			if (sh_u32(l->tok[l->n - 1], &limit) != 0 || limit == 0 || limit > 1u << 20)
				return sh_err(c, -EINVAL, l->tok[l->n - 1], "limit: 1..1048576");
			snprintf(text, sizeof(text), "accept %.*s", (int)(lim - rest), rest);
		} else {
			snprintf(text, sizeof(text), "accept %s", rest);
		}
		memset(&err, 0, sizeof(err));
		if (rule_parse(text, &match, &err) != 0)
			return sh_err(c, -EINVAL, err.token[0] ? err.token : NULL, "filter: %s",
				err.msg);
		if (match.match == 0 && match.src_local == RULE_LOCAL_ANY &&
			match.dst_local == RULE_LOCAL_ANY && match.family == 0)
			return sh_err(c, -EINVAL, l->tok[i], "filter: no match words");
		mp = &match;
	}
	rc = gufc_collect_flows(c->app, mp, NULL, limit, &rows, &n, &total);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	print_flows(c, rows, n, total);
	free(rows);
	return 0;
}

/* show flow TUPLE — the text form of fc_key_format(). */
static int
show_flow(struct sh_ctx *c)
{
	const char *text = sh_rest(c->l, 2);
	struct gufc_flow_row *rows;
	struct fc_key k;
	size_t pos = 0;
	unsigned int n;
	uint64_t total;
	int rc;

	if (*text == '\0')
		return sh_err(c, -EINVAL, c->l->tok[1],
			"missing tuple (e.g. udp 10.0.0.1:1234 -> 192.0.2.1:53)");
	if (fc_key_parse(text, &k, &pos) != 0) {
		char tok[64];
		size_t len = strcspn(text + pos, " \t");

		snprintf(tok, sizeof(tok), "%.*s", (int)RTE_MIN(len, sizeof(tok) - 1), text + pos);
		return sh_err(c, -EINVAL, tok[0] ? tok : text, "bad tuple");
	}
	rc = gufc_collect_flows(c->app, NULL, &k, 8, &rows, &n, &total);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	if (n == 0)
		fprintf(c->out, "no such flow\n");
	else
		print_flows(c, rows, n, total);
	free(rows);
	return 0;
}

int
sh_cmd_show(struct sh_ctx *c)
{
	const char *what = c->l->n > 1 ? c->l->tok[1] : NULL;
	int rc;

	if (what == NULL)
		return sh_err(c, -EINVAL, c->l->tok[0],
			"show what? stats, ports, neighbours, flows, flow, rules, channels, drops, "
			"locals, routes, route-rules, pending, offload, lcores, ipfix, log, recent");
	if (strcmp(what, "stats") == 0)
		return show_stats(c);
	if (strcmp(what, "drops") == 0)
		return show_drops(c);
	if (strcmp(what, "route-rules") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			rc = gufc_show_route_rules(c->app, c->out);
		return rc != 0 ? sh_err(c, rc, NULL, "%s", strerror(-rc)) : 0;
	}
	if (strcmp(what, "routes") == 0 && c->l->n > 2) {
		if (strcmp(c->l->tok[2], "table") != 0 || c->l->n < 4)
			return sh_err(c, -EINVAL, c->l->tok[2], "expected 'table T'");
		rc = no_more(c, 4);
		if (rc == 0)
			rc = gufc_show_route_tables(c->app, c->l->tok[3], c->out);
		if (rc == -ENOENT || rc == -EINVAL)
			return sh_err(c, rc, c->l->tok[3], rc == -EINVAL ? "bad table" : "no such table");
		return rc != 0 ? sh_err(c, rc, NULL, "%s", strerror(-rc)) : 0;
	}
	if (strcmp(what, "routes") == 0) {
		rc = gufc_show_routes(c->app, c->out);
		if (rc == 0)
			rc = gufc_show_route_tables(c->app, NULL, c->out);
		return rc != 0 ? sh_err(c, rc, NULL, "%s", strerror(-rc)) : 0;
	}
	if (strcmp(what, "ports") == 0 || strcmp(what, "neighbours") == 0 ||
		strcmp(what, "neighbors") == 0) {
		rc = no_more(c, 2);
		if (rc != 0)
			return rc;
		rc = what[0] == 'p' ? gufc_show_ports(c->app, c->out) :
				      gufc_show_neighbours(c->app, c->out);
		if (rc != 0)
			return sh_err(c, rc, NULL, "%s", strerror(-rc));
		return 0;
	}
	if (strcmp(what, "rules") == 0)
		return show_rules(c);
	if (strcmp(what, "pending") == 0)
		return show_pending(c);
	if (strcmp(what, "flows") == 0)
		return show_flows(c);
	if (strcmp(what, "flow") == 0)
		return show_flow(c);
	if (strcmp(what, "channels") == 0) {
		rc = no_more(c, 2);
		/* Named channels, the first per-flow ones, the pool's line. */
		if (rc == 0 && chan_dump(c->app->chans, c->out, 32) != 0)
			rc = sh_err(c, -EIO, NULL, "cannot list the channels");
		return rc;
	}
	if (strcmp(what, "locals") == 0) {
		rc = no_more(c, 2);
		if (rc == 0 && fc_locals_dump(c->app->locals, c->out) == 0)
			fprintf(c->out, "no local prefixes\n");
		return rc;
	}
	if (strcmp(what, "offload") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			gufc_offload_dump(c->app, c->out);
		return rc;
	}
	if (strcmp(what, "lcores") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			gufc_lcores_dump(c->app, c->out, true);
		return rc;
	}
	if (strcmp(what, "ipfix") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			gufc_ipfix_dump(c->app, c->out);
		return rc;
	}
	if (strcmp(what, "log") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			gufc_log_dump(c->app, c->out);
		return rc;
	}
	if (strcmp(what, "recent") == 0) {
		rc = no_more(c, 2);
		if (rc == 0)
			rc = gufc_show_recent(c->app, c->out);
		if (rc < 0)
			return sh_err(c, rc, NULL, "%s", strerror(-rc));
		return rc;
	}
	return sh_err(c, -EINVAL, what,
		"show what? stats, ports, neighbours, flows, flow, rules, channels, drops, "
		"locals, routes, route-rules, pending, offload, lcores, ipfix, log, recent");
}
