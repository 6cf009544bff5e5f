/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_reload.c — "kill -HUP": reload the rule set from its file (the
 * --rules/--iptables option, else the config's "rules"/"iptables" line),
 * as daemons do. The signal handler (gufc_main.c) only sets a flag; the
 * main lcore calls gufc_reload() from its loop.
 *
 * All or nothing: the file is loaded whole into a new rule set (any error
 * names FILE:LINE:COL and the set is not used), which is then committed
 * through the shell's path (gufc_chan_commit(): the channels it names, then
 * the control ring to the rules lcore, which swaps it in for the very next
 * packet). A refused reload leaves the running rules as they were. Shell
 * edits pending at that moment stay pending (a later "commit" would commit
 * them, made on the rules they were copied from).
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "gufc_ctl.h"

int
gufc_reload(struct gufc_app *app)
{
	const struct gufc_config *cfg = &app->cfg;
	bool ipt = cfg->rules_file[0] == '\0' && cfg->ipt_file[0] != '\0';
	const char *file = ipt ? cfg->ipt_file : cfg->rules_file;
	uint64_t t0 = rte_get_tsc_cycles(), us;
	struct rule_error err;
	struct rule_set *set;
	unsigned int n;
	char msg[512];
	int rc;

	if (file[0] == '\0') {
		app->reload.failed++;
		GUFC_LOG(ERR,
			"reload (SIGHUP): no rules file to reload (neither --rules, "
			"--iptables nor a config 'rules'/'iptables' line); generation %u stays",
			rule_engine_generation(app->eng));
		return -ENOENT;
	}
	memset(&err, 0, sizeof(err));
	set = ipt ? rule_set_load_iptables(file, &err) : rule_set_load(file, &err);
	if (set == NULL) {
		app->reload.failed++;
		rule_error_format(&err, msg, sizeof(msg));
		GUFC_LOG(ERR, "reload (SIGHUP) failed: %s; the running rules stay (generation %u)",
			msg, rule_engine_generation(app->eng));
		return -EINVAL;
	}
	n = rule_set_rule_count(set);
	rc = gufc_chan_commit(app, set); /* takes the set, whatever the result */
	us = (uint64_t)gufc_cyc_us(app, rte_get_tsc_cycles() - t0);
	if (rc != 0) {
		app->reload.failed++;
		GUFC_LOG(ERR,
			"reload (SIGHUP) of %s: commit failed: %s; the running rules stay "
			"(generation %u)",
			file, strerror(-rc), rule_engine_generation(app->eng));
		return rc;
	}
	app->reload.ok++;
	app->reload.last_rules = n;
	app->reload.last_gen = rule_engine_generation(app->eng);
	app->reload.last_us = us;
	GUFC_LOG(NOTICE,
		"reload (SIGHUP): %u rules from %s (%s) committed: generation %u, "
		"load and commit %" PRIu64 " us",
		n, file, ipt ? "iptables" : "native", app->reload.last_gen, us);
	return 0;
}
