/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_show.c — "show ..." and the collectors that the shell and
 * the telemetry commands share (committed rules with their counters, flows),
 * which run on the rules lcore through gufc_ctl_call() because only it may
 * walk the flow tables and the committed rule set.
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
/* Collectors (rules lcore)                                                  */
/* ------------------------------------------------------------------------ */

struct rules_arg {
	struct sh_rule_row *rows;
	unsigned int n;
	unsigned int max;
};

static int
rules_fn(struct gufc_app *app, void *arg)
{
	struct rules_arg *a = arg;
	const struct rule_set *s = rule_engine_rules(app->eng);
	unsigned int count = s != NULL ? rule_set_rule_count(s) : 0;
	struct rule_counters_snap *snap;

	a->max = RTE_MIN(a->max, count);
	a->rows = calloc(a->max ? a->max : 1, sizeof(*a->rows));
	if (a->rows == NULL)
		return -ENOMEM;
	/* One walk of the flows for all rules, not one per rule. */
	snap = rule_engine_counters_snap(app->eng);
	if (snap == NULL) {
		free(a->rows);
		a->rows = NULL;
		return -ENOMEM;
	}
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++)
		for (unsigned int ch = 0; ch < rule_set_chain_count(s, t); ch++) {
			const struct rule_chain *chain = rule_set_chain_at(s, t, ch);

			for (uint32_t i = 0; i < chain->n_rules && a->n < a->max; i++) {
				struct sh_rule_row *r = &a->rows[a->n++];

				r->id = chain->rules[i].id;
				r->table = (uint8_t)t;
				r->pos = i + 1;
				snprintf(r->chain, sizeof(r->chain), "%s", chain->name);
				r->packets = 0;
				r->bytes = 0;
				rule_counters_snap_get(snap, r->id, &r->packets, &r->bytes);
				if (rule_format(&chain->rules[i], r->text, sizeof(r->text)) < 0)
					snprintf(r->text, sizeof(r->text), "?");
			}
		}
	rule_counters_snap_free(snap);
	return 0;
}

int
sh_rules_collect(struct gufc_app *app, struct sh_rule_row **rows, unsigned int *n,
	unsigned int max)
{
	struct rules_arg a = { .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	rc = gufc_ctl_call(app, rules_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}

struct flows_arg {
	const struct rule *match;
	const struct fc_key *exact;
	struct sh_flow_row *rows;
	unsigned int n;
	unsigned int max;
	uint64_t total;
};

/* Same flow, local bits aside (the TUPLE text need not give them). */
static bool
key_same(const struct fc_key *a, const struct fc_key *b)
{
	struct fc_key x = *a, y = *b;

	if (x.family != y.family)
		return false;
	if (x.family == FC_AF_INET4) {
		x.v4.flags = y.v4.flags = 0;
		return memcmp(&x.v4, &y.v4, sizeof(x.v4)) == 0;
	}
	x.v6.flags = y.v6.flags = 0;
	return memcmp(&x.v6, &y.v6, sizeof(x.v6)) == 0;
}

static int
flows_fn(struct gufc_app *app, void *arg)
{
	struct flows_arg *a = arg;
	struct rule_flow_info fi;
	uint64_t it = 0;

	while (rule_engine_flow_next(app->eng, &it, a->match, &fi) == 0) {
		struct sh_flow_row *r;

		if (a->exact != NULL && !key_same(a->exact, &fi.key))
			continue;
		a->total++;
		if (a->n == a->max)
			continue;
		r = &a->rows[a->n++];
		r->info = fi;
		if (fc_key_format(&fi.key, r->key, sizeof(r->key)) < 0)
			snprintf(r->key, sizeof(r->key), "?");
		if (rule_engine_flow_format(app->eng, &fi, r->text, sizeof(r->text)) < 0)
			snprintf(r->text, sizeof(r->text), "%s", r->key);
	}
	return 0;
}

int
sh_flows_collect(struct gufc_app *app, const struct rule *match, const struct fc_key *exact,
	unsigned int max, struct sh_flow_row **rows, unsigned int *n, uint64_t *total)
{
	struct flows_arg a = { .match = match, .exact = exact, .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	*total = 0;
	a.rows = calloc(max ? max : 1, sizeof(*a.rows));
	if (a.rows == NULL)
		return -ENOMEM;
	rc = gufc_ctl_call(app, flows_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	*total = a.total;
	return 0;
}

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
	const struct gufc_stats *s = &t.sum;
	FILE *f = c->out;

	gufc_stats_sum(c->app, &t);
	fprintf(f, "%-20s %" PRIu64 " (%" PRIu64 " bytes)\n", "rx", s->rx, s->rx_bytes);
	fprintf(f, "%-20s %" PRIu64 "\n", "delivered", t.delivered);
	fprintf(f, "%-20s %" PRIu64 "\n", "drops", t.drops_total);
	fprintf(f, "%-20s %" PRIu64 "\n", "in rings", t.ct.in_ring);
	fprintf(f, "%-20s %" PRIu64 " hits %" PRIu64 " misses\n", "cache", s->hits, s->misses);
	fprintf(f, "%-20s %" PRIu64 " (stale %" PRIu64 ", interest %" PRIu64 ")\n", "upcalls",
		s->upcalls, s->upcall_stale, s->upcall_interest);
	fprintf(f, "%-20s %" PRIu64 " (classifier %" PRIu64 ", reference %" PRIu64 ")\n",
		"slow-path packets", s->slow_pkts, t.es.classify_cls, t.es.classify_ref);
	fprintf(f, "%-20s %u active (v4 %u, v6 %u), %" PRIu64 " created, %" PRIu64
		" removed\n", "flows", t.t4.occupancy + t.t6.occupancy, t.t4.occupancy,
		t.t6.occupancy, t.es.flows, t.es.removed);
	fprintf(f, "%-20s %" PRIu64 " (generation %u, classifier %u, pending %u)\n", "commits",
		t.es.commits, t.es.gen, t.es.cls_gen, t.es.pending);
	fprintf(f, "%-20s %" PRIu64 " revalidated, %" PRIu64 " refreshed\n", "after commits",
		t.es.revalidated, t.es.refreshed);
	fprintf(f, "%-20s %" PRIu64 " related, %" PRIu64 " of them translated\n", "icmp errors",
		t.cts.related, t.nats.related_nat);
	fprintf(f, "%-20s %" PRIu64 " rerouted, %" PRIu64 " walks%s\n", "route changes",
		t.rts.rerouted, t.rts.route_walks, t.rts.rerouting ? " (walking)" : "");
	fprintf(f, "%-20s %" PRIu64 " in, %" PRIu64 " datagrams, %" PRIu64 " failed\n",
		"fragments", s->frag_in, s->frag_out, s->frag_dropped);
	fprintf(f, "%-20s %" PRIu64 "\n", "transmitted", s->tx_pkts);
	fprintf(f, "%-20s %" PRIu64 "\n", "non-ip passed", s->non_ip_pass);
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
show_ports(struct sh_ctx *c)
{
	fprintf(c->out, "%4s %-24s %3s %3s %4s %-17s %-5s %12s %12s %10s %10s\n", "port", "name",
		"rxq", "txq", "pair", "mac", "link", "ipackets", "opackets", "imissed", "errors");
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		const struct gufc_port *gp = &c->app->ports[p];
		struct rte_eth_stats es;
		struct rte_eth_link link;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!gp->used)
			continue;
		memset(&es, 0, sizeof(es));
		memset(&link, 0, sizeof(link));
		rte_eth_stats_get(p, &es);
		rte_eth_link_get_nowait(p, &link);
		rte_ether_format_addr(mac, sizeof(mac), &gp->mac);
		fprintf(c->out, "%4u %-24s %3u %3u %4u %-17s %-5s %12" PRIu64 " %12" PRIu64
			" %10" PRIu64 " %10" PRIu64 "\n", p, gp->name, gp->n_rxq, gp->n_txq,
			gp->pair, mac, link.link_status ? "up" : "down", es.ipackets, es.opackets,
			es.imissed, es.ierrors + es.oerrors + es.rx_nombuf);
	}
	return no_more(c, 2);
}

static int
show_rules(struct sh_ctx *c)
{
	struct sh_rule_row *rows;
	unsigned int n;
	int rc;

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
	rc = sh_rules_collect(c->app, &rows, &n, UINT32_MAX);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	fprintf(c->out, "%6s %-6s %-12s %4s %12s %14s  %s\n", "id", "table", "chain", "pos",
		"packets", "bytes", "rule");
	for (unsigned int i = 0; i < n; i++)
		fprintf(c->out, "%6u %-6s %-12s %4u %12" PRIu64 " %14" PRIu64 "  %s\n", rows[i].id,
			rule_table_name(rows[i].table), rows[i].chain, rows[i].pos,
			rows[i].packets, rows[i].bytes, rows[i].text);
	fprintf(c->out, "%u rules, generation %u%s\n", n, rule_engine_generation(c->app->eng),
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
print_flows(struct sh_ctx *c, const struct sh_flow_row *rows, unsigned int n, uint64_t total)
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
	struct sh_flow_row *rows;
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
	rc = sh_flows_collect(c->app, mp, NULL, limit, &rows, &n, &total);
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
	struct sh_flow_row *rows;
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
	rc = sh_flows_collect(c->app, NULL, &k, 8, &rows, &n, &total);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	if (n == 0)
		fprintf(c->out, "no such flow\n");
	else
		print_flows(c, rows, n, total);
	free(rows);
	return 0;
}

static int
routes_fn(struct gufc_app *app, void *arg)
{
	int rc = mod_route_dump(app->route, arg);

	return rc < 0 ? rc : 0;
}

int
sh_cmd_show(struct sh_ctx *c)
{
	const char *what = c->l->n > 1 ? c->l->tok[1] : NULL;
	int rc;

	if (what == NULL)
		return sh_err(c, -EINVAL, c->l->tok[0],
			"show what? stats, ports, flows, flow, rules, channels, drops, locals, "
			"routes, pending, offload");
	if (strcmp(what, "stats") == 0)
		return show_stats(c);
	if (strcmp(what, "drops") == 0)
		return show_drops(c);
	if (strcmp(what, "ports") == 0)
		return show_ports(c);
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
		if (rc == 0 && chan_dump(c->app->chans, c->out) != 0)
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
	if (strcmp(what, "routes") == 0) {
		rc = no_more(c, 2);
		if (rc != 0)
			return rc;
		fflush(c->out);
		rc = gufc_ctl_call(c->app, routes_fn, c->out);
		if (rc != 0)
			return sh_err(c, rc, NULL, "%s", strerror(-rc));
		return 0;
	}
	return sh_err(c, -EINVAL, what,
		"show what? stats, ports, flows, flow, rules, channels, drops, locals, routes, "
		"pending, offload");
}
