/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_hook.c — where the interactive shell plugs in. These are
 * weak defaults for a build without the shell: a shell source file that
 * defines gufc_shell_start/poll/stop/exec replaces them at link time.
 *
 * The contract (main lcore only):
 *  - gufc_shell_start() runs after ports, lcores and the rule set are up;
 *    it runs --script FILE line by line through gufc_shell_exec(), then
 *    opens the prompt if -i was given;
 *  - gufc_shell_poll() is called from the main lcore's loop about every
 *    millisecond and must not block (cmdline_poll()); a negative return
 *    (the user typed quit, or EOF) stops gufc like SIGINT;
 *  - commands parse, then call the control API of gufc.h
 *    (gufc_ctl_commit, gufc_ctl_route, gufc_stats_*...).
 */

#include <errno.h>

#include "gufc.h"

__rte_weak int
gufc_shell_start(struct gufc_app *app, const char *script, bool interactive)
{
	RTE_SET_USED(app);
	RTE_SET_USED(script);
	RTE_SET_USED(interactive);
	return -ENOTSUP;
}

__rte_weak int
gufc_shell_poll(struct gufc_app *app)
{
	RTE_SET_USED(app);
	return 0;
}

__rte_weak void
gufc_shell_stop(struct gufc_app *app)
{
	RTE_SET_USED(app);
}

__rte_weak int
gufc_shell_exec(struct gufc_app *app, const char *line, FILE *out)
{
	RTE_SET_USED(app);
	RTE_SET_USED(line);
	RTE_SET_USED(out);
	return -ENOTSUP;
}
