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

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gufc_ctl.h"

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

struct rules_arg {
	struct gufc_rule_row *rows;
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
				struct gufc_rule_row *r = &a->rows[a->n++];

				r->id = chain->rules[i].id;
				r->table = (uint8_t)t;
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
