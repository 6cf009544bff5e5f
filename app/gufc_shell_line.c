/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_line.c — a shell command line: its words (the shell's
 * syntax for the lexical toolkit: blanks, "..." parts joined with their
 * word, '#' comments), the raw rest of a line, numbers, and the error line
 * that names the bad token. The bottom of the shell files: the dispatcher
 * (gufc_shell.c) and the commands (gufc_shell_cmd.c, gufc_shell_show.c)
 * build on it. Context: main lcore.
 */

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "gufc_shell_priv.h"

int
sh_err(const struct sh_ctx *c, int rc, const char *token, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->out, "%serror: ", c->where);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	if (token != NULL)
		fprintf(c->out, ": '%s'", token);
	fputc('\n', c->out);
	return rc < 0 ? rc : -EINVAL;
}

const char *
sh_rest(const struct sh_line *l, unsigned int i)
{
	return i < l->n ? l->text + l->w[i].col - 1 : "";
}

int
sh_u32(const char *s, uint32_t *v)
{
	if (s == NULL)
		return -EINVAL;
	return lex_u32(s, strlen(s), UINT32_MAX, LEX_NUM_C, v, NULL);
}

/** The shell's words. */
static const struct lex_syntax sh_syntax = {
	.blanks = " \t\r\n",
	.quote = LEX_QUOTE_JOIN,
	.escape = LEX_ESC_NONE,
	.comment = LEX_COMMENT_WORD,
	.max_words = SH_MAX_TOKENS,
};

int
sh_tokenize(const char *text, struct sh_line *l, unsigned int *bad)
{
	struct lex_fault f;

	l->text = text;
	if (lex_split(&sh_syntax, text, l->buf, l->w, &l->n, &f) != 0) {
		*bad = (unsigned int)f.at;
		return f.code == LEX_E_TOO_MANY ? -E2BIG : -EINVAL;
	}
	for (unsigned int i = 0; i < l->n; i++)
		l->tok[i] = l->w[i].s;
	return 0;
}
