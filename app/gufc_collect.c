/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_collect.c — the collectors of the control layer (gufc_ctl.h):
 * the committed rules with their counters (also as iptables-save -c text),
 * flows (routes, neighbours and ports: gufc_router.c). They read on the
 * rules lcore through gufc_ctl_call(), because only it may walk the flow
 * tables and the committed rule set, and hand rows to the shell's "show"
 * and to the telemetry commands, which print the same numbers from them.
 *
 * Context: main lcore (the callers); the *_fn functions run on the rules lcore.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "gufc_ctl.h"

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

struct rules_arg {
	struct gufc_rule_row *rows;
	unsigned int n;
	unsigned int max;
};

/*
 * The row of the @p family policy of table @p t's base chain at hook @p h,
 * if the hook has one: its imported counters (a chain that stands for that
 * hook alone, as an import's built-in chain: as the export adds them)
 * plus what it counted.
 */
static void
policy_row(const struct rule_set *s, const struct rule_counters_snap *snap, unsigned int family,
	unsigned int t, unsigned int h, struct gufc_rule_row *rows, unsigned int *n)
{
	const struct rule_chain *c;
	struct gufc_rule_row *r;
	unsigned int p;

	if (!(rule_table_hooks(t) & RULE_HOOK_F(h)))
		return;
	c = rule_set_hook_chain(s, t, h);
	if (c == NULL)
		return;
	r = &rows[(*n)++];
	memset(r, 0, sizeof(*r));
	r->id = RULE_ID_CHAIN_POLICY(family, t, h);
	r->table = (uint8_t)t;
	r->hook = (uint8_t)h;
	r->family = (uint8_t)family;
	snprintf(r->chain, sizeof(r->chain), "%s", c->name);
	rule_counters_snap_get(snap, r->id, &r->packets, &r->bytes);
	if (!c->builtin && c->hooks == RULE_HOOK_F(h)) {
		r->packets += family == FC_AF_INET6 ? c->pkts6 : c->pkts;
		r->bytes += family == FC_AF_INET6 ? c->bytes6 : c->bytes;
	}
	/* nat chains have no drop policy: no translation. */
	p = t == RULE_TABLE_NAT ? RULE_POLICY_ACCEPT : rule_chain_policy(c, family);
	snprintf(r->text, sizeof(r->text), "%s", p == RULE_POLICY_DROP ? "drop" : "accept");
}

static int
rules_fn(struct gufc_app *app, void *arg)
{
	struct rules_arg *a = arg;
	const struct rule_set *s = rule_engine_rules(app->eng);
	unsigned int count = s != NULL ? rule_set_rule_count(s) : 0;
	struct rule_counters_snap *snap;

	a->max = RTE_MIN(a->max, count);
	a->rows = calloc(a->max + 2 * RULE_TABLE__COUNT * RULE_HOOK__COUNT, sizeof(*a->rows));
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
				struct gufc_rule_row *r = &a->rows[a->n++];

				r->id = chain->rules[i].id;
				r->table = (uint8_t)t;
				r->hook = RULE_HOOK__COUNT;
				r->pos = i + 1;
				snprintf(r->chain, sizeof(r->chain), "%s", chain->name);
				r->packets = 0;
				r->bytes = 0;
				rule_counters_snap_get(snap, r->id, &r->packets, &r->bytes);
				/* Plus the rule's own (an import's [pkts:bytes]), as iptables -L -v. */
				r->packets += chain->rules[i].pkts;
				r->bytes += chain->rules[i].bytes;
				if (rule_format(&chain->rules[i], r->text, sizeof(r->text)) < 0)
					snprintf(r->text, sizeof(r->text), "?");
			}
		}
	for (unsigned int f = 0; s != NULL && f < 2; f++)
		for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
			for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++)
				policy_row(s, snap, f == 0 ? FC_AF_INET4 : FC_AF_INET6, t, h, a->rows,
					&a->n);
	rule_counters_snap_free(snap);
	return 0;
}

int
gufc_collect_rules(struct gufc_app *app, struct gufc_rule_row **rows, unsigned int *n,
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

struct ipt_arg {
	unsigned int family;
	char *text;
	size_t len;
};

static void
snap_counters(void *arg, uint32_t id, uint64_t *pkts, uint64_t *bytes)
{
	rule_counters_snap_get(arg, id, pkts, bytes);
}

static int
ipt_fn(struct gufc_app *app, void *arg)
{
	struct ipt_arg *a = arg;
	const struct rule_set *s = rule_engine_rules(app->eng);
	struct rule_counters_snap *snap;
	FILE *f;
	int rc;

	if (s == NULL)
		return -ENOENT;
	snap = rule_engine_counters_snap(app->eng);
	if (snap == NULL)
		return -ENOMEM;
	f = open_memstream(&a->text, &a->len);
	if (f == NULL) {
		rule_counters_snap_free(snap);
		return -ENOMEM;
	}
	rc = rule_set_dump_iptables_ctr(s, a->family, snap_counters, snap, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -ENOMEM;
	rule_counters_snap_free(snap);
	return rc;
}

int
gufc_collect_iptables(struct gufc_app *app, unsigned int family, char **text)
{
	struct ipt_arg a = { .family = family };
	int rc;

	*text = NULL;
	rc = gufc_ctl_call(app, ipt_fn, &a);
	if (rc != 0) {
		free(a.text);
		return rc;
	}
	*text = a.text;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Flows                                                                     */
/* ------------------------------------------------------------------------ */

struct flows_arg {
	const struct rule *match;
	const struct fc_key *exact;
	struct gufc_flow_row *rows;
	unsigned int n;
	unsigned int max;
	uint64_t total;
};

/*
 * Same flow, local bits and input port aside (the TUPLE text need not give
 * them: a tuple's entries on every port are listed).
 */
static bool
key_same(const struct fc_key *a, const struct fc_key *b)
{
	struct fc_key x = *a, y = *b;

	if (x.family != y.family || fc_af_index(x.family) < 0)
		return false;
	fc_key_set_flags(&x, 0);
	fc_key_set_flags(&y, 0);
	fc_key_set_in_port(&x, 0);
	fc_key_set_in_port(&y, 0);
	return memcmp(fc_key_raw(&x), fc_key_raw(&y),
		       x.family == FC_AF_INET4 ? sizeof(x.v4) : sizeof(x.v6)) == 0;
}

static int
flows_fn(struct gufc_app *app, void *arg)
{
	struct flows_arg *a = arg;
	struct rule_flow_info fi;
	uint64_t it = 0;

	while (rule_engine_flow_next(app->eng, &it, a->match, &fi) == 0) {
		struct gufc_flow_row *r;

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
gufc_collect_flows(struct gufc_app *app, const struct rule *match, const struct fc_key *exact,
	unsigned int max, struct gufc_flow_row **rows, unsigned int *n, uint64_t *total)
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
/* Recent lists, hashlimit tables                                            */
/* ------------------------------------------------------------------------ */

struct recent_arg {
	unsigned int max, n, total;
	struct gufc_recent_row *rows;
};

static uint64_t
ms_ago(uint64_t now, uint64_t then, uint64_t hz)
{
	return now > then && hz != 0 ? (now - then) * 1000 / hz : 0;
}

/* An address of a recent row as text. */
static void
recent_addr(const struct rule_recent_entry *e, char *buf, size_t len)
{
	if (inet_ntop(e->family == FC_AF_INET6 ? AF_INET6 : AF_INET, e->addr, buf,
		    (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

static int
recent_fn(struct gufc_app *app, void *arg)
{
	struct recent_arg *a = arg;
	const struct rule_recent *rr = rule_engine_recent(app->eng);
	struct rule_recent_info li;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();

	a->rows = calloc(a->max ? a->max : 1, sizeof(*a->rows));
	if (a->rows == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; rule_recent_info(rr, i, &li) == 0; i++) {
		unsigned int j = 0;

		do {
			struct gufc_recent_row *r;

			a->total++;
			if (a->n == a->max)
				continue;
			r = &a->rows[a->n];
			memset(r, 0, sizeof(*r));
			memcpy(r->name, li.name, sizeof(r->name));
			r->entries = li.entries;
			if (li.entries != 0 && rule_recent_entry(rr, i, j, &r->e) == 0) {
				r->has = 1;
				recent_addr(&r->e, r->addr, sizeof(r->addr));
				r->last_ms = ms_ago(now, r->e.last, hz);
				r->first_ms = ms_ago(now, r->e.first, hz);
			}
			a->n++;
		} while (++j < li.entries);
	}
	return 0;
}

int
gufc_collect_recent(struct gufc_app *app, unsigned int max, struct gufc_recent_row **rows,
	unsigned int *n, unsigned int *total)
{
	struct recent_arg a = { .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	*total = 0;
	rc = gufc_ctl_call(app, recent_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	*total = a.total;
	return 0;
}

struct hl_arg {
	unsigned int n;
	struct rule_hashlimit_info *rows;
};

static int
hashlimit_fn(struct gufc_app *app, void *arg)
{
	struct hl_arg *a = arg;
	const struct rule_hashlimit *h = rule_engine_hashlimit(app->eng);
	struct rule_hashlimit_info info;
	unsigned int n = 0;

	while (rule_hashlimit_info(h, n, &info) == 0)
		n++;
	if (n == 0)
		return 0;
	a->rows = calloc(n, sizeof(*a->rows));
	if (a->rows == NULL)
		return -ENOMEM;
	for (a->n = 0; a->n < n; a->n++)
		(void)rule_hashlimit_info(h, a->n, &a->rows[a->n]);
	return 0;
}

int
gufc_collect_hashlimit(struct gufc_app *app, struct rule_hashlimit_info **rows, unsigned int *n)
{
	struct hl_arg a = { 0 };
	int rc;

	*rows = NULL;
	*n = 0;
	rc = gufc_ctl_call(app, hashlimit_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}

struct quota_arg {
	unsigned int n;
	struct rule_quota_info *rows;
};

static int
quota_fn(struct gufc_app *app, void *arg)
{
	struct quota_arg *a = arg;
	struct rule_quota_info qi;
	unsigned int n = 0;

	while (rule_engine_quota_info(app->eng, n, &qi) == 0)
		n++;
	if (n == 0)
		return 0;
	a->rows = calloc(n, sizeof(*a->rows));
	if (a->rows == NULL)
		return -ENOMEM;
	for (a->n = 0; a->n < n; a->n++)
		(void)rule_engine_quota_info(app->eng, a->n, &a->rows[a->n]);
	return 0;
}

int
gufc_collect_quota(struct gufc_app *app, struct rule_quota_info **rows, unsigned int *n)
{
	struct quota_arg a = { 0 };
	int rc;

	*rows = NULL;
	*n = 0;
	rc = gufc_ctl_call(app, quota_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}

int
gufc_show_recent(struct gufc_app *app, FILE *f)
{
	struct gufc_recent_row *rows;
	struct rule_hashlimit_info *hl;
	unsigned int n, total, nh;
	int rc;

	rc = gufc_collect_recent(app, GUFC_RECENT_ROWS_MAX, &rows, &n, &total);
	if (rc != 0)
		return rc;
	if (n == 0)
		fprintf(f, "no recent lists\n");
	for (unsigned int i = 0; i < n; i++) {
		const struct gufc_recent_row *r = &rows[i];

		if (i == 0 || strcmp(r->name, rows[i - 1].name) != 0)
			fprintf(f, "recent %s: %u addresses\n", r->name, r->entries);
		if (!r->has)
			continue;
		fprintf(f, "  %s ttl %u hits %u last %" PRIu64 " ms ago first %" PRIu64 " ms ago\n",
			r->addr, r->e.ttl, r->e.hits, r->last_ms, r->first_ms);
	}
	if (total > n)
		fprintf(f, "(%u of %u rows)\n", n, total);
	free(rows);
	rc = gufc_collect_hashlimit(app, &hl, &nh);
	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < nh; i++)
		/* A byte rate's burst counts refills of a second's credit (netfilter's). */
		fprintf(f, "hashlimit %s (%s): %u buckets of at most %u, rate %u%s burst %u%s, "
			   "expire %u ms, gc every %u ms\n", hl[i].name,
			hl[i].family == FC_AF_INET6 ? "ipv6" : "ipv4", hl[i].buckets, hl[i].cfg.max,
			hl[i].cfg.rate, hl[i].cfg.unit == RULE_RATE_MIN ? "/min" :
				hl[i].cfg.unit == RULE_RATE_HOUR ? "/hour" :
				hl[i].cfg.unit == RULE_RATE_DAY ? "/day" :
				hl[i].cfg.unit == RULE_RATE_BYTES ? "b/s" : "/sec",
			hl[i].cfg.burst, hl[i].cfg.unit == RULE_RATE_BYTES ? " refills" : "",
			hl[i].cfg.expire, hl[i].cfg.gcinterval);
	free(hl);
	{
		struct rule_quota_info *q;
		unsigned int nq;

		rc = gufc_collect_quota(app, &q, &nq);
		if (rc != 0)
			return rc;
		for (unsigned int i = 0; i < nq; i++)
			fprintf(f, "quota rule %u match %u: %" PRIu64 " bytes, %" PRIu64 " left\n",
				q[i].rule_id, q[i].xi + 1u, q[i].bytes, q[i].left);
		free(q);
	}
	{
		struct rule_engine_stats st;

		rule_engine_stats_get(app->eng, &st);
		fprintf(f, "dropped by rule loads (no rule names them): %" PRIu64 " recent lists, %"
			   PRIu64 " hashlimit tables\n", st.recent_dropped, st.hashlimit_dropped);
		fprintf(f, "hashlimit buckets kept as meters (fast path): %u\n", st.hashlimit_meters);
		fprintf(f, "connlimit: %u connections held, %" PRIu64 " counts asked\n",
			st.connlimit_conns, st.connlimit_checks);
		fprintf(f, "string searches on the fast path: %u, u32 matches: %u, bpf programs: %u; "
			   "flow walks left per packet (a search and a meter, or more than a tree "
			   "holds): %" PRIu64 "\n",
			st.str_preds, st.u32_preds, st.bpf_preds, st.pred_per_packet);
		fprintf(f, "ipsets changed by -j SET: %" PRIu64 " added, %" PRIu64 " deleted, %" PRIu64
			   " failed\n", st.set_added, st.set_deleted, st.set_failed);
	}
	return 0;
}

void
gufc_recent_json(const struct gufc_app *app, const struct gufc_totals *t, FILE *f)
{
	const struct rule_recent *rr = app->eng ? rule_engine_recent(app->eng) : NULL;
	const struct rule_hashlimit *h = app->eng ? rule_engine_hashlimit(app->eng) : NULL;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
	struct rule_recent_info li;
	struct rule_hashlimit_info hi;
	struct rule_quota_info qi;

	fprintf(f, "\"recent\": {\"dropped\": %" PRIu64 ", \"lists\": [", t->es.recent_dropped);
	for (unsigned int i = 0; rule_recent_info(rr, i, &li) == 0; i++) {
		fprintf(f, "%s{\"name\": \"%s\", \"entries\": %u, \"addresses\": [", i ? ", " : "",
			li.name, li.entries);
		for (unsigned int j = 0; j < li.entries; j++) {
			struct rule_recent_entry e;
			char a[INET6_ADDRSTRLEN];

			if (rule_recent_entry(rr, i, j, &e) != 0)
				break;
			recent_addr(&e, a, sizeof(a));
			fprintf(f, "%s{\"addr\": \"%s\", \"ttl\": %u, \"hits\": %u"
				   ", \"last_ms_ago\": %" PRIu64 ", \"first_ms_ago\": %" PRIu64 "}",
				j ? ", " : "", a, e.ttl, e.hits, ms_ago(now, e.last, hz),
				ms_ago(now, e.first, hz));
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]},\n  \"hashlimit\": {\"dropped\": %" PRIu64 ", \"meters\": %u, \"tables\": [",
		t->es.hashlimit_dropped, t->es.hashlimit_meters);
	for (unsigned int i = 0; rule_hashlimit_info(h, i, &hi) == 0; i++)
		fprintf(f, "%s{\"name\": \"%s\", \"family\": \"%s\", \"buckets\": %u, \"max\": %u"
			   ", \"size\": %u, \"rate\": %u, \"unit\": %u, \"burst\": %u"
			   ", \"expire_ms\": %u, \"gcinterval_ms\": %u}", i ? ", " : "", hi.name,
			hi.family == FC_AF_INET6 ? "ipv6" : "ipv4", hi.buckets, hi.cfg.max, hi.cfg.size,
			hi.cfg.rate, hi.cfg.unit, hi.cfg.burst, hi.cfg.expire, hi.cfg.gcinterval);
	fprintf(f, "]},\n  \"quota\": [");
	for (unsigned int i = 0; app->eng != NULL && rule_engine_quota_info(app->eng, i, &qi) == 0;
		i++)
		fprintf(f, "%s{\"rule\": %u, \"match\": %u, \"bytes\": %" PRIu64
			   ", \"left\": %" PRIu64 "}", i ? ", " : "", qi.rule_id, qi.xi + 1u, qi.bytes,
			qi.left);
	fprintf(f, "],\n  \"connlimit\": {\"conns\": %u, \"checks\": %" PRIu64 "}",
		t->es.connlimit_conns, t->es.connlimit_checks);
	fprintf(f, ",\n  \"string\": {\"searches\": %u, \"u32\": %u, \"bpf\": %u, \"per_packet\": %" PRIu64
		   "}",
		t->es.str_preds, t->es.u32_preds, t->es.bpf_preds, t->es.pred_per_packet);
	fprintf(f, ",\n  \"ipset_target\": {\"added\": %" PRIu64 ", \"deleted\": %" PRIu64
		   ", \"failed\": %" PRIu64 "}",
		t->es.set_added, t->es.set_deleted, t->es.set_failed);
}
