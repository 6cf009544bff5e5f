/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_priv.h — what the shell files (gufc_shell.c: cmdline glue,
 * --script and the command dispatcher; gufc_shell_cmd.c: commands that
 * change things; gufc_shell_show.c: "show ...") and the telemetry commands
 * (gufc_telemetry.c) share: the command-line tokenizer, error reporting that
 * names the bad token, and the collectors that read rules and flows on the
 * rules lcore so that the shell and telemetry print the same numbers.
 *
 * Everything here runs on the main lcore.
 */
#ifndef GUFC_SHELL_PRIV_H
#define GUFC_SHELL_PRIV_H

#include <stdio.h>

#include "gufc.h"

extern int gufc_shell_logtype;

/** Most words on one command line. */
#define SH_MAX_TOKENS 64
/** Longest command line. */
#define SH_LINE_MAX 4096

/** A tokenized command line: words separated by blanks, "..." quoting. */
struct sh_line {
	const char *text;              /**< the whole line (not copied) */
	unsigned int n;                /**< words */
	char *tok[SH_MAX_TOKENS];      /**< words, unquoted, NUL-terminated */
	unsigned int off[SH_MAX_TOKENS]; /**< where word i starts in @c text */
	char buf[SH_LINE_MAX];
	char copy[SH_LINE_MAX];        /**< the line, trailing blanks and newline cut */
};

/** Where output and errors go for one command. */
struct sh_ctx {
	struct gufc_app *app;
	FILE *out;
	const char *where; /**< "" or "FILE:LINE: " (scripts) */
	const struct sh_line *l;
};

/** Print "WHERE error: MSG: 'TOKEN'" (token may be NULL). @return @p rc. */
int sh_err(const struct sh_ctx *c, int rc, const char *token, const char *fmt, ...)
	__rte_format_printf(4, 5);

/** The rest of the line from word @p i on (raw text, quotes kept); "" past the end. */
const char *sh_rest(const struct sh_line *l, unsigned int i);

/** Parse an unsigned number (decimal or 0x). @return 0 or -EINVAL. */
int sh_u32(const char *s, uint32_t *v);

/* gufc_shell_cmd.c */
int sh_cmd_rule(struct sh_ctx *c);
int sh_cmd_commit(struct sh_ctx *c);
int sh_cmd_rollback(struct sh_ctx *c);
int sh_cmd_channel(struct sh_ctx *c);
int sh_cmd_local(struct sh_ctx *c);
int sh_cmd_route(struct sh_ctx *c);
int sh_cmd_flush(struct sh_ctx *c);
int sh_cmd_log(struct sh_ctx *c);
/** Uncommitted edits (NULL: none). */
const struct rule_set *sh_pending(void);
/** Free the uncommitted edits. */
void sh_pending_free(void);

/* gufc_shell_show.c */
int sh_cmd_show(struct sh_ctx *c);

/** One rule with its counters, as "show rules" and /gufc/rules give it. */
struct sh_rule_row {
	uint32_t id;
	uint8_t table;
	uint32_t pos; /**< 1-based position in its chain */
	char chain[RULE_NAME_MAX];
	uint64_t packets;
	uint64_t bytes;
	char text[512];
};

/**
 * Read the committed rules and their counters on the rules lcore.
 * @param rows  receives a malloc'ed array (the caller frees it)
 * @param n     receives the number of rows
 * @param max   most rows
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int sh_rules_collect(struct gufc_app *app, struct sh_rule_row **rows, unsigned int *n,
	unsigned int max);

/** One flow, as "show flows" and /gufc/flows give it. */
struct sh_flow_row {
	struct rule_flow_info info;
	char key[FC_KEY_STRLEN];
	char text[512]; /**< rule_engine_flow_format() */
};

/**
 * Read up to @p max flows on the rules lcore.
 * @param match  only flows this rule's matches accept (NULL: all)
 * @param exact  only the flow of this key (NULL: any)
 * @param rows   receives a malloc'ed array (the caller frees it)
 * @param n      receives the number of rows
 * @param total  receives the number of flows that matched (>= @p n)
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int sh_flows_collect(struct gufc_app *app, const struct rule *match, const struct fc_key *exact,
	unsigned int max, struct sh_flow_row **rows, unsigned int *n, uint64_t *total);

#endif /* GUFC_SHELL_PRIV_H */
