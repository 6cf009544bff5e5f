/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_reload.c — "kill -HUP": reload the rule set from its files (the
 * command line's --rules, or --iptables and/or --ip6tables, else the
 * config's "rules"/"iptables"/"ip6tables" lines) and the ipsets they name
 * (--ipset, else the config's "ipset"), as daemons do. The signal handler
 * (gufc_main.c) only sets a flag; the main lcore calls gufc_reload() from
 * its loop.
 *
 * All or nothing: the ipset file and the rule files are loaded whole into
 * new objects (any error names FILE:LINE:COL and nothing is used), the
 * ports' names given to the set, which is then committed through the
 * shell's path (gufc_chan_commit(): the channels it names, then the control
 * ring to the rules lcore, which swaps it in for the very next packet). A
 * refused reload leaves the running rules and ipsets as they were. Shell
 * edits pending at that moment stay pending (a later "commit" would commit
 * them, made on the rules they were copied from).
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "gufc_ctl.h"

/* The files reloaded, for the log: "a.rules (native)", "a (iptables) + b (ip6tables)", ipsets. */
static void
files_text(const struct gufc_config *cfg, char *buf, size_t len)
{
	int n;

	if (cfg->rules_file[0] != '\0')
		n = snprintf(buf, len, "%s (native)", cfg->rules_file);
	else if (cfg->ipt_file[0] != '\0' && cfg->ipt6_file[0] != '\0')
		n = snprintf(buf, len, "%s (iptables) + %s (ip6tables)", cfg->ipt_file,
			cfg->ipt6_file);
	else if (cfg->ipt_file[0] != '\0')
		n = snprintf(buf, len, "%s (iptables)", cfg->ipt_file);
	else
		n = snprintf(buf, len, "%s (ip6tables)", cfg->ipt6_file);
	if (n >= 0 && (size_t)n < len && cfg->ipset_file[0] != '\0')
		snprintf(buf + n, len - (size_t)n, " with the ipsets of %s", cfg->ipset_file);
}

int
gufc_reload(struct gufc_app *app)
{
	const struct gufc_config *cfg = &app->cfg;
	bool native = cfg->rules_file[0] != '\0';
	uint64_t t0 = rte_get_tsc_cycles(), us;
	struct rule_ipsets *old_sets = app->ipsets, *sets = NULL;
	struct rule_error err;
	struct rule_set *set;
	unsigned int n;
	char msg[512], files[3 * GUFC_PATH_MAX + 32];
	int rc;

	if (!native && cfg->ipt_file[0] == '\0' && cfg->ipt6_file[0] == '\0') {
		app->reload.failed++;
		GUFC_LOG(ERR,
			"reload (SIGHUP): no rules file to reload (neither --rules, --iptables, "
			"--ip6tables nor a config 'rules'/'iptables'/'ip6tables' line); "
			"generation %u stays",
			rule_engine_generation(app->eng));
		return -ENOENT;
	}
	files_text(cfg, files, sizeof(files));
	memset(&err, 0, sizeof(err));
	/* The ipsets first: the rules are checked against the new ones. */
	if (cfg->ipset_file[0] != '\0') {
		sets = rule_ipsets_load(cfg->ipset_file, (uint64_t)time(NULL), &err);
		if (sets == NULL) {
			rc = -EINVAL;
			goto refused;
		}
		app->ipsets = sets;
	}
	set = gufc_rules_load(app, native ? cfg->rules_file : NULL,
		!native && cfg->ipt_file[0] != '\0' ? cfg->ipt_file : NULL,
		!native && cfg->ipt6_file[0] != '\0' ? cfg->ipt6_file : NULL, &err, stderr);
	if (set == NULL) {
		rc = -EINVAL;
		goto refused;
	}
	rc = gufc_rules_ports(app, set, stderr);
	if (rc != 0) {
		rule_set_free(set);
		snprintf(msg, sizeof(msg), "port names: %s", strerror(-rc));
		goto failed;
	}
	n = rule_set_rule_count(set);
	rc = gufc_chan_commit(app, set); /* takes the set, whatever the result */
	us = (uint64_t)gufc_cyc_us(app, rte_get_tsc_cycles() - t0);
	if (rc != 0) {
		snprintf(msg, sizeof(msg), "commit failed: %s", strerror(-rc));
		goto failed;
	}
	/* The running set holds its own reference to the ipsets it names. */
	if (sets != NULL)
		rule_ipsets_free(old_sets);
	app->reload.ok++;
	app->reload.last_rules = n;
	app->reload.last_gen = rule_engine_generation(app->eng);
	app->reload.last_us = us;
	GUFC_LOG(NOTICE,
		"reload (SIGHUP): %u rules from %s committed: generation %u, "
		"load and commit %" PRIu64 " us",
		n, files, app->reload.last_gen, us);
	return 0;

refused:
	rule_error_format(&err, msg, sizeof(msg));
	GUFC_LOG(ERR, "reload (SIGHUP) failed: %s; the running rules stay (generation %u)", msg,
		rule_engine_generation(app->eng));
	goto undo;
failed:
	GUFC_LOG(ERR, "reload (SIGHUP) of %s: %s; the running rules stay (generation %u)", files,
		msg, rule_engine_generation(app->eng));
undo:
	app->reload.failed++;
	if (sets != NULL) {
		app->ipsets = old_sets;
		rule_ipsets_free(sets);
	}
	return rc;
}
