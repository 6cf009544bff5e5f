/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/lex: errors and text — the named reasons, struct lex_error and its
 * "FILE:LINE:COL: MSG: 'TOKEN'" form, reading a whole file, and the line
 * reader that counts lines for the errors of the languages above it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

static const char *const lex_texts[] = {
#define LEX_CODE_TEXT(name, text) [LEX_E_##name] = text,
	LEX_CODES(LEX_CODE_TEXT)
#undef LEX_CODE_TEXT
};

const char *
lex_code_text(unsigned int code)
{
	return code < LEX_E__COUNT ? lex_texts[code] : "unknown error";
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Append to buf[*n..len), keeping it NUL-terminated; false once truncated. */
static bool
append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len)
		return false;
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *n) {
		*n = len;
		return false;
	}
	*n += (size_t)w;
	return true;
}

int
lex_error_format(const struct lex_error *e, char *buf, size_t len)
{
	size_t n = 0;
	bool ok = true;

	if (e == NULL || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (e->file[0] != '\0')
		ok = ok && append(buf, len, &n, "%s:", e->file);
	if (e->line != 0)
		ok = ok && append(buf, len, &n, "%u:", e->line);
	if (e->col != 0)
		ok = ok && append(buf, len, &n, "%u:", e->col);
	if (n != 0)
		ok = ok && append(buf, len, &n, " ");
	ok = ok && append(buf, len, &n, "%s", e->msg);
	if (e->token[0] != '\0')
		ok = ok && append(buf, len, &n, ": '%s'", e->token);
	return ok ? (int)n : -ENOSPC;
}

int
lex_fail(const struct lex_where *w, unsigned int col, const char *tok, size_t len,
	const char *msg)
{
	struct lex_error *e = w != NULL ? w->err : NULL;

	if (e == NULL)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	snprintf(e->file, sizeof(e->file), "%s", w->file != NULL ? w->file : "");
	e->line = w->line;
	e->col = col;
	if (tok == NULL)
		len = 0;
	if (len >= sizeof(e->token))
		len = sizeof(e->token) - 1;
	if (len != 0)
		memcpy(e->token, tok, len);
	snprintf(e->msg, sizeof(e->msg), "%s", msg != NULL ? msg : "");
	return -EINVAL;
}

int
lex_fail_fault(const struct lex_where *w, unsigned int col, const char *text,
	const struct lex_fault *f, const char *msg)
{
	return lex_fail(w, col + (unsigned int)f->at, text + f->tok, f->len,
		msg != NULL ? msg : lex_code_text(f->code));
}

/* ------------------------------------------------------------------------ */
/* Files                                                                     */
/* ------------------------------------------------------------------------ */

char *
lex_file_read(const char *path, struct lex_error *err)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *fp = NULL;
	int e = 0;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (path == NULL) {
		errno = EINVAL;
		return NULL;
	}
	fp = fopen(path, "r");
	if (fp == NULL) {
		e = errno;
		goto fail;
	}
	errno = 0;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *t = realloc(text, cap + 65536);

			if (t == NULL) {
				e = ENOMEM;
				goto fail;
			}
			text = t;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		e = errno != 0 ? errno : EIO;
		goto fail;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		struct lex_where w = { .file = path, .line = 1, .err = err };
		size_t nul = strlen(text), bol = 0;

		for (size_t i = 0; i < nul; i++)
			if (text[i] == '\n') {
				w.line++;
				bol = i + 1;
			}
		lex_fail(&w, (unsigned int)(nul - bol) + 1, NULL, 0, lex_code_text(LEX_E_NUL));
		e = EINVAL;
		goto fail;
	}
	fclose(fp);
	return text;
fail:
	if (fp != NULL)
		fclose(fp);
	free(text);
	if (err != NULL && err->msg[0] == '\0') {
		snprintf(err->file, sizeof(err->file), "%s", path);
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(e));
	}
	errno = e;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                     */
/* ------------------------------------------------------------------------ */

void
lex_reader_init(struct lex_reader *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	r->next = text != NULL && *text != '\0' ? text : NULL;
}

int
lex_reader_next(struct lex_reader *r, char **line, size_t *len)
{
	const char *cur = r->next;
	size_t n;

	if (cur == NULL)
		return 0;
	n = strcspn(cur, "\n");
	if (n + 1 > r->cap) {
		char *b = realloc(r->buf, n + 1);

		if (b == NULL)
			return -ENOMEM;
		r->buf = b;
		r->cap = n + 1;
	}
	memcpy(r->buf, cur, n);
	r->buf[n] = '\0';
	r->next = cur[n] == '\n' && cur[n + 1] != '\0' ? cur + n + 1 : NULL;
	r->line++;
	if (n > 0 && r->buf[n - 1] == '\r')
		r->buf[--n] = '\0';
	*line = r->buf;
	if (len != NULL)
		*len = n;
	return 1;
}

void
lex_reader_fini(struct lex_reader *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
	r->next = NULL;
}
