/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_rules.c — rule sets as the app loads them: a native file, or an
 * iptables file and an ip6tables file (each deciding its own family, as on
 * a Linux host), the ipsets their "-m set" rules name (one "ipset save"
 * file, loaded at start and by SIGHUP), and the port names their -i/-o
 * match ("port N name NAME", default the PMD's name). A pattern no port has
 * loads with a warning (netfilter does the same: it never matches); so do
 * actions whose run-time side gufc does not carry out yet (warn_pending()).
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gufc.h"

void
gufc_port_names_init(struct gufc_app *app)
{
	for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++) {
		struct gufc_port *gp = &app->ports[p];

		snprintf(gp->ifname, sizeof(gp->ifname), "%s",
			app->cfg.port[p].name[0] != '\0' ? app->cfg.port[p].name : gp->name);
	}
	/* A VLAN sub-interface without a name: its parent's and the VLAN id, as
	 * Linux names them ("eth0.100"). */
	for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++) {
		struct gufc_port *gp = &app->ports[p];

		char b[sizeof(gp->ifname) + 8];

		if (!gp->vlan || app->cfg.port[p].name[0] != '\0')
			continue;
		snprintf(b, sizeof(b), "%s.%u", app->ports[gp->dev].ifname, gp->vid);
		b[sizeof(gp->ifname) - 1] = '\0';
		memcpy(gp->ifname, b, sizeof(gp->ifname));
	}
}

/*
 * What a loaded set asks that gufc does not carry out yet: actions whose
 * effect beyond the verdict (a log line, a rewrite) is not made.
 * The verdicts and the rule walk are netfilter's either way.
 */
static const char *
pending_action(unsigned int a)
{
	switch (a) {
	case RULE_ACT_TCPMSS:
		return "lowers an MSS option a SYN has; it adds none to a SYN without one (Linux does)";
	case RULE_ACT_CLASSIFY:
		return "gufc has no traffic control: the class is not used";
	default:
		return NULL;
	}
}

/* One warning per action kind: how many rules, the first one. */
static void
warn_pending(const struct rule_set *s, FILE *warn)
{
	uint32_t n_act[RULE_ACT__COUNT] = {0}, first_act[RULE_ACT__COUNT] = {0};

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < rule_set_chain_count(s, (enum rule_table)t); i++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, i);

			for (uint32_t j = 0; j < c->n_rules; j++) {
				const struct rule *r = &c->rules[j];

				if (pending_action(r->action) != NULL && n_act[r->action]++ == 0)
					first_act[r->action] = r->id;
			}
		}
	for (unsigned int a = 0; a < RULE_ACT__COUNT; a++)
		if (n_act[a] != 0)
			fprintf(warn, "gufc: warning: %s (%u rule%s, first: rule %u) %s\n",
				rule_action_name(a), n_act[a], n_act[a] > 1 ? "s" : "",
				first_act[a], pending_action(a));
}

/*
 * OUTPUT's rules see only the host's own packets, and a packet is the
 * host's own only on a `host` port: with none, say so once (the rules load,
 * as a name that is no port does, and never match).
 */
static void
warn_output_no_host(const struct gufc_app *app, const struct rule_set *s, FILE *warn)
{
	unsigned int rules = 0;

	for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++)
		if (app->ports[p].used && app->cfg.port[p].host)
			return;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		unsigned int n = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int i = 0; i < n; i++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, i);

			if (c->hooks & RULE_HOOK_F(RULE_HOOK_OUTPUT))
				rules += c->n_rules;
		}
	}
	if (rules > 0)
		fprintf(warn, "gufc: warning: %u rule%s in OUTPUT chains never match: no port "
			      "carries this host's own packets (mark it `port N host` in the config)\n",
			rules, rules > 1 ? "s" : "");
}

int
gufc_rules_ports(const struct gufc_app *app, struct rule_set *s, FILE *warn)
{
	const char *names[GUFC_MAX_PORTS];
	char said[32][RULE_IFNAME_MAX];
	unsigned int n = 0, n_said = 0;
	uint64_t it = 0;
	const char *pat;
	uint32_t id;
	int rc;

	for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++) {
		names[p] = app->ports[p].used ? app->ports[p].ifname : "";
		if (app->ports[p].used)
			n = p + 1;
	}
	rc = rule_set_ports(s, n, names);
	if (rc != 0)
		return rc;
	if (warn != NULL) {
		warn_pending(s, warn);
		warn_output_no_host(app, s, warn);
	}
	/* One warning per pattern: its first rule and how many name it. */
	while (warn != NULL && (pat = rule_set_unknown_if(s, &it, &id)) != NULL) {
		uint64_t it2 = 0;
		unsigned int count = 0, k;
		const char *q;
		uint32_t id2;

		for (k = 0; k < n_said && strcmp(said[k], pat) != 0; k++)
			;
		if (k < n_said)
			continue;
		if (n_said < RTE_DIM(said))
			snprintf(said[n_said++], sizeof(said[0]), "%s", pat);
		while ((q = rule_set_unknown_if(s, &it2, &id2)) != NULL)
			count += strcmp(q, pat) == 0;
		fprintf(warn, "gufc: warning: interface '%s' matches no port: %u rule%s naming it "
			      "(first: rule %u) never match%s until a port has that name\n",
			pat, count, count > 1 ? "s" : "", id, count > 1 ? "" : "es");
	}
	return 0;
}

int
gufc_ipsets_load(struct gufc_app *app, struct rule_error *err)
{
	struct rule_ipsets *sets;

	if (app->cfg.ipset_file[0] == '\0')
		return 0;
	sets = rule_ipsets_load(app->cfg.ipset_file, (uint64_t)time(NULL), err);
	if (sets == NULL)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	rule_ipsets_free(app->ipsets);
	app->ipsets = sets;
	return 0;
}

/* An error about a whole file (no position). */
static void
file_err(struct rule_error *err, const char *file, const char *token, const char *msg)
{
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", file);
	snprintf(err->token, sizeof(err->token), "%s", token != NULL ? token : "");
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

/* An iptables file of @p family with the app's ipsets; its warnings on @p warn. */
static struct rule_set *
ipt_load(const struct gufc_app *app, const char *path, unsigned int family,
	struct rule_error *err, FILE *warn)
{
	struct rule_ipt_warn wn;
	struct rule_ipt_opts o = { .family = family, .sets = app->ipsets, .warn = &wn };
	struct rule_set *s;
	char msg[512];

	memset(&wn, 0, sizeof(wn));
	s = rule_set_load_iptables_opts(path, &o, err);
	if (s != NULL && warn != NULL && wn.count != 0) {
		rule_error_format(&wn.first, msg, sizeof(msg));
		if (wn.count > 1)
			fprintf(warn, "gufc: warning: %s (and %u more lines)\n", msg, wn.count - 1);
		else
			fprintf(warn, "gufc: warning: %s\n", msg);
	}
	return s;
}

struct rule_set *
gufc_rules_load(const struct gufc_app *app, const char *native, const char *ipt4,
	const char *ipt6, struct rule_error *err, FILE *warn)
{
	struct rule_set *s, *s6;
	const char *missing;
	uint32_t id;
	int rc;

	if (native != NULL) {
		s = rule_set_load(native, err);
		if (s == NULL)
			return NULL;
		/* A native set names ipsets too: iptables-restore would refuse one not loaded. */
		rule_set_ipsets(s, app->ipsets);
		missing = rule_set_ipset_missing(s, &id);
		if (missing != NULL) {
			char msg[96];

			snprintf(msg, sizeof(msg), "rule %u names an ipset that is not loaded (--ipset)",
				id);
			file_err(err, native, missing, msg);
			rule_set_free(s);
			return NULL;
		}
		return s;
	}
	if (ipt4 == NULL && ipt6 != NULL)
		return ipt_load(app, ipt6, FC_AF_INET6, err, warn);
	if (ipt4 == NULL) {
		/* No file: an empty set that the shell's rules may fill, with the ipsets. */
		s = rule_set_create();
		if (s != NULL)
			rule_set_ipsets(s, app->ipsets);
		return s;
	}
	s = ipt_load(app, ipt4, FC_AF_INET4, err, warn);
	if (s == NULL || ipt6 == NULL)
		return s;
	s6 = ipt_load(app, ipt6, FC_AF_INET6, err, warn);
	if (s6 == NULL) {
		rule_set_free(s);
		return NULL;
	}
	rc = rule_set_merge(s, s6, FC_AF_INET6);
	rule_set_free(s6);
	if (rc != 0) {
		file_err(err, ipt6, ipt4,
			rc == -EINVAL ? "cannot be loaded with the IPv4 file (a chain differs)"
				      : "cannot be loaded with the IPv4 file (no memory)");
		rule_set_free(s);
		return NULL;
	}
	return s;
}
