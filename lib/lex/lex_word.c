/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/lex: words — lex_split(), the one tokenizer. A struct lex_syntax says
 * what a language's lines look like (blanks, quotes, escapes, comments,
 * '!' negations, limits); the reader below applies it and names the fault
 * of a bad line with the byte it is at.
 */
#include <errno.h>
#include <string.h>

#include "lex.h"

/** State of one line being split. */
struct split {
	const struct lex_syntax *sx;
	const char *blanks;
	const char *line;
	const char *c; /**< next byte to read */
	char *o;       /**< next byte to write (never past @c c when splitting in place) */
	struct lex_fault *f;
};

static bool
is_blank(const struct split *s, char c)
{
	return c != '\0' && strchr(s->blanks, c) != NULL;
}

static bool
is_comment(const struct split *s, char c, bool word_start)
{
	if (c != '#')
		return false;
	return s->sx->comment == LEX_COMMENT_ANY ||
	       (s->sx->comment == LEX_COMMENT_WORD && word_start);
}

/* Bytes of the word at @p p: up to a blank, a comment or the end. */
static size_t
word_span(const struct split *s, const char *p)
{
	size_t n = 0;

	while (p[n] != '\0' && !is_blank(s, p[n]) && !is_comment(s, p[n], false))
		n++;
	return n;
}

static int
fault(struct split *s, unsigned int code, const char *at, const char *tok, size_t len)
{
	if (s->f != NULL) {
		s->f->code = (uint8_t)code;
		s->f->at = (size_t)(at - s->line);
		s->f->tok = (size_t)(tok - s->line);
		s->f->len = len;
	}
	return -EINVAL;
}

/* Write one decoded byte of word @p t, within the syntax's length limit. */
static int
put(struct split *s, const struct lex_tok *t, char b)
{
	if (s->sx->max_len != 0 && (size_t)(s->o - t->s) >= s->sx->max_len) {
		const char *w = s->line + t->col - 1;

		return fault(s, LEX_E_TOO_LONG, w, w, word_span(s, w));
	}
	*s->o++ = b;
	return 0;
}

/*
 * Where the quoted part opened at @p q ends: its closing quote. Escapes
 * are checked on the way, so that errors quote the text as written.
 */
static int
quote_end(struct split *s, const char *q, const char **end)
{
	for (const char *in = q + 1;; in++) {
		if (*in == '\0')
			return fault(s, LEX_E_UNTERMINATED, q, q + 1, strlen(q + 1));
		if (*in == '"') {
			*end = in;
			return 0;
		}
		if (*in != '\\')
			continue;
		if (s->sx->escape == LEX_ESC_QUOTE) {
			if (in[1] != '"' && in[1] != '\\')
				return fault(s, LEX_E_BAD_ESCAPE, in, in, in[1] != '\0' ? 2 : 1);
			in++;
		} else if (s->sx->escape == LEX_ESC_ANY && in[1] != '\0') {
			in++;
		}
	}
}

/* Copy the quoted part [q, end] (quotes excluded, escapes decoded) to the word. */
static int
quote_copy(struct split *s, const struct lex_tok *t, const char *q, const char *end)
{
	int rc;

	for (const char *in = q + 1; in < end; in++) {
		if (*in == '\\' && s->sx->escape != LEX_ESC_NONE && in + 1 < end)
			in++;
		rc = put(s, t, *in);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* One word from s->c on; s->c is left on the byte that ended it. */
static int
word(struct split *s, struct lex_tok *t)
{
	const struct lex_syntax *sx = s->sx;
	const char *end;
	int rc;

	if (sx->quote == LEX_QUOTE_WORD && *s->c == '"') {
		rc = quote_end(s, s->c, &end);
		if (rc != 0)
			return rc;
		if (end[1] != '\0' && !is_blank(s, end[1]) && !is_comment(s, end[1], false))
			return fault(s, LEX_E_JUNK, end + 1, end + 1, word_span(s, end + 1));
		t->quoted = true;
		rc = quote_copy(s, t, s->c, end);
		s->c = end + 1;
		return rc;
	}
	while (*s->c != '\0' && !is_blank(s, *s->c) && !is_comment(s, *s->c, false)) {
		if (*s->c == '"' && (sx->quote == LEX_QUOTE_JOIN || sx->quote == LEX_QUOTE_SPLIT)) {
			const char *q = s->c;

			rc = quote_end(s, q, &end);
			if (rc == 0)
				rc = quote_copy(s, t, q, end);
			if (rc != 0)
				return rc;
			t->quoted = true;
			s->c = end + 1;
			if (sx->quote == LEX_QUOTE_SPLIT)
				break;
			continue;
		}
		rc = put(s, t, *s->c);
		if (rc != 0)
			return rc;
		s->c++;
	}
	return 0;
}

int
lex_split(const struct lex_syntax *sx, const char *line, char *out, struct lex_tok *t,
	unsigned int *n, struct lex_fault *f)
{
	struct split s = {
		.sx = sx,
		.blanks = sx->blanks != NULL ? sx->blanks : " \t",
		.line = line,
		.c = line,
		.o = out,
		.f = f,
	};
	const char *neg = NULL;
	int rc;

	*n = 0;
	if (sx->refuse_ctrl)
		for (const char *x = line; *x != '\0'; x++)
			if ((unsigned char)*x < 0x20 && *x != '\t')
				return fault(&s, LEX_E_CTRL, x, x, 0);
	for (;;) {
		struct lex_tok *tk;
		char stop;

		while (is_blank(&s, *s.c))
			s.c++;
		if (*s.c == '\0' || is_comment(&s, *s.c, true))
			break;
		if (sx->negation && *s.c == '!') {
			if (neg != NULL || s.c[1] == '!')
				return fault(&s, LEX_E_DOUBLE_NEG, s.c, s.c, word_span(&s, s.c));
			neg = s.c++;
			if (*s.c == '\0' || is_blank(&s, *s.c) || is_comment(&s, *s.c, true))
				continue;
		}
		if (*n >= sx->max_words)
			return fault(&s, LEX_E_TOO_MANY, s.c, s.c, word_span(&s, s.c));
		tk = &t[*n];
		tk->s = s.o;
		tk->col = (unsigned int)(s.c - line) + 1;
		tk->neg = neg != NULL;
		tk->quoted = false;
		neg = NULL;
		rc = word(&s, tk);
		if (rc != 0)
			return rc;
		(*n)++;
		/* Past the byte that ended the word before its NUL may land there (in place). */
		stop = *s.c;
		if (is_blank(&s, stop) || is_comment(&s, stop, false))
			s.c++;
		*s.o++ = '\0';
		if (is_comment(&s, stop, false))
			break;
	}
	if (neg != NULL)
		return fault(&s, LEX_E_NEG_ALONE, neg, neg, 1);
	return 0;
}
