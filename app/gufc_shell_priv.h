/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_priv.h — what the shell files share (gufc_shell_line.c: the
 * tokenized command line and errors naming the bad token; gufc_shell_cmd.c:
 * commands that change things; gufc_shell_show.c: "show ..."; gufc_shell.c:
 * cmdline glue, --script and the dispatcher). Order: shell -> show -> cmd
 * -> line. Commands parse, then call the control layer (gufc_ctl.h).
 *
 * Everything here runs on the main lcore.
 */
#ifndef GUFC_SHELL_PRIV_H
#define GUFC_SHELL_PRIV_H

#include <stdio.h>

#include "gufc_ctl.h"

extern int gufc_shell_logtype;

/** Most words on one command line. */
#define SH_MAX_TOKENS 64
/** Longest command line. */
#define SH_LINE_MAX 4096

/**
 * A tokenized command line (the shell's struct lex_syntax): words separated
 * by blanks, "..." quoted parts joined with the rest of their word, '#' at
 * the start of a word begins a comment.
 */
struct sh_line {
	const char *text;              /**< the whole line (@c copy) */
	unsigned int n;                /**< words */
	char *tok[SH_MAX_TOKENS];      /**< words, unquoted, NUL-terminated (@c w[i].s) */
	struct lex_tok w[SH_MAX_TOKENS]; /**< the words with their columns in @c text */
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

/* gufc_shell_line.c */
/**
 * Split @p text into the words of @p l (@p text stays as @c l->text).
 * @return 0, or -EINVAL (unterminated quote) / -E2BIG (too many words)
 *   with *bad the offset of the quote or the word.
 */
int sh_tokenize(const char *text, struct sh_line *l, unsigned int *bad);

/** Print "WHERE error: MSG: 'TOKEN'" (token may be NULL). @return @p rc. */
int sh_err(const struct sh_ctx *c, int rc, const char *token, const char *fmt, ...)
	__rte_format_printf(4, 5);

/** The rest of the line from word @p i on (raw text, quotes kept); "" past the end. */
const char *sh_rest(const struct sh_line *l, unsigned int i);

/** Parse an unsigned number (decimal, 0x hexadecimal, 0 octal: lex_u32()). @return 0 or -EINVAL. */
int sh_u32(const char *s, uint32_t *v);

/* gufc_shell_cmd.c */
int sh_cmd_rule(struct sh_ctx *c);
int sh_cmd_commit(struct sh_ctx *c);
int sh_cmd_rollback(struct sh_ctx *c);
int sh_cmd_channel(struct sh_ctx *c);
int sh_cmd_local(struct sh_ctx *c);
int sh_cmd_route(struct sh_ctx *c);
int sh_cmd_prule(struct sh_ctx *c);
/** The set edits go to: the pending one, made from the committed set on first use. @return 0 or -errno (message printed). */
int sh_working_set(struct sh_ctx *c, struct rule_set **s);
/* gufc_shell_port.c */
int sh_cmd_port(struct sh_ctx *c);
int sh_cmd_set(struct sh_ctx *c);
int sh_cmd_flush(struct sh_ctx *c);
int sh_cmd_log(struct sh_ctx *c);
/** Uncommitted edits (NULL: none). */
const struct rule_set *sh_pending(void);
/** Free the uncommitted edits. */
void sh_pending_free(void);

/* gufc_shell_show.c */
int sh_cmd_show(struct sh_ctx *c);

#endif /* GUFC_SHELL_PRIV_H */
