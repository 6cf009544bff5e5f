/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the u32 match's tests (struct rule_x_u32) — read as iptables
 * reads "--u32 TESTS", written back as iptables-save writes them, kept
 * encoded in the extension's bytes (or, past them, out of line:
 * rule_xblob.c), and evaluated by the reference
 * evaluator (rule_u32_match(), reading the encoding as it goes) or decoded
 * once for the fast path's evaluator (rule_u32_decode(); engine_strpred.h).
 *
 * Grammar (iptables'): tests := location "=" value { "&&" location "=" value },
 * location := number { ("&" | "<<" | ">>" | "@") number }, value := range
 * { "," range }, range := number [":" number]; blanks between tokens; at
 * most 10 tests, 10 numbers per location, 10 ranges per value; shifts of
 * at most 31 (Linux refuses more when the rule is loaded).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_x_priv.h"

/* ------------------------------------------------------------------------ */
/* Encoding                                                                  */
/* ------------------------------------------------------------------------ */

/* An encoding being written (RULE_U32_ENC_MAX holds every set of tests). */
struct u32_enc {
	uint8_t c[RULE_U32_ENC_MAX];
	unsigned int len;
};

static void
enc_byte(struct u32_enc *e, uint8_t b)
{
	if (e->len < sizeof(e->c))
		e->c[e->len++] = b;
}

static void
enc_varint(struct u32_enc *e, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		enc_byte(e, (uint8_t)(v != 0 ? b | 0x80 : b));
	} while (v != 0);
}

/* A varint of at most 34 bits at @p *i (< @p len). @return false if cut short or too long. */
static bool
dec_varint(const uint8_t *c, unsigned int len, unsigned int *i, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	for (;;) {
		uint8_t b;

		if (*i >= len || shift > 28)
			return false;
		b = c[(*i)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			/* One spelling per value: no trailing zero group. */
			return shift == 0 || b != 0;
		shift += 7;
	}
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */
/* ------------------------------------------------------------------------ */

/* A number as xtables_strtoui() reads it (strtoul base 0, no '-', <= UINT32_MAX). */
static bool
u32_number(const char **s, uint32_t *out)
{
	const char *p = *s;
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return false;
	errno = 0;
	v = strtoull(*s, &end, 0);
	if (end == *s || errno == ERANGE || v > UINT32_MAX)
		return false;
	*s = end;
	*out = (uint32_t)v;
	return true;
}

/* Read into the decoded form, then encoded. */
int
rule_u32_parse(const char *s, struct rule_x_u32 *u, const char **msg)
{
	struct rule_u32_prog p;
	struct rule_u32_test *t;
	struct u32_enc e;
	bool values = false;

	memset(&p, 0, sizeof(p));
	memset(u, 0, sizeof(*u));
	e.len = 0;
	t = &p.t[0];
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0') {
			if (!values) {
				*msg = "u32: abrupt end of input after a location";
				return -EINVAL;
			}
			if (t->nvals == 0) {
				*msg = "u32: a test ended with no value";
				return -EINVAL;
			}
			if (++p.ntests > RULE_U32_MAX) {
				*msg = "u32: too many \"&&\"s (at most 10 tests)";
				return -EINVAL;
			}
			break;
		}
		if (!values) {
			/* A location: a number, then operator and number pairs, until '='. */
			if (*s == '=') {
				if (t->nnums == 0) {
					*msg = "u32: location missing before '='";
					return -EINVAL;
				}
				s++;
				values = true;
				continue;
			}
			if (t->nnums != 0) {
				uint8_t op;

				if (*s == '&')
					op = RULE_U32_AND;
				else if (*s == '<' && s[1] == '<')
					op = RULE_U32_SHL;
				else if (*s == '>' && s[1] == '>')
					op = RULE_U32_SHR;
				else if (*s == '@')
					op = RULE_U32_AT;
				else {
					*msg = *s == '<' || *s == '>'
						       ? "u32: a second '<' or '>' expected"
						       : "u32: operator expected";
					return -EINVAL;
				}
				s += op == RULE_U32_SHL || op == RULE_U32_SHR ? 2 : 1;
				if (t->nnums == RULE_U32_MAX) {
					*msg = "u32: too many operators (at most 10 numbers in a "
					       "location)";
					return -EINVAL;
				}
				t->op[t->nnums] = op;
			}
			if (!u32_number(&s, &t->num[t->nnums])) {
				*msg = "u32: not a number or out of range";
				return -EINVAL;
			}
			/* Linux refuses the rule (xt_u32's check of a rule being loaded). */
			if (t->nnums != 0 &&
				(t->op[t->nnums] == RULE_U32_SHL ||
					t->op[t->nnums] == RULE_U32_SHR) &&
				t->num[t->nnums] > 31) {
				*msg = "u32: a shift of 32 or more (Linux refuses it)";
				return -EINVAL;
			}
			t->nnums++;
			continue;
		}
		/* Values: ranges separated by ',', until "&&" or the end. */
		if (*s == '&') {
			if (s[1] != '&') {
				*msg = "u32: a second '&' expected";
				return -EINVAL;
			}
			if (t->nvals == 0) {
				*msg = "u32: value missing before \"&&\"";
				return -EINVAL;
			}
			if (++p.ntests >= RULE_U32_MAX) {
				*msg = "u32: too many \"&&\"s (at most 10 tests)";
				return -EINVAL;
			}
			t = &p.t[p.ntests];
			s += 2;
			values = false;
			continue;
		}
		if (t->nvals != 0) {
			if (*s != ',') {
				*msg = "u32: ',' or \"&&\" expected";
				return -EINVAL;
			}
			s++;
		}
		if (t->nvals == RULE_U32_MAX) {
			*msg = "u32: too many ','s (at most 10 ranges in a value)";
			return -EINVAL;
		}
		if (!u32_number(&s, &t->lo[t->nvals])) {
			*msg = "u32: not a number or out of range";
			return -EINVAL;
		}
		while (isspace((unsigned char)*s))
			s++;
		t->hi[t->nvals] = t->lo[t->nvals];
		if (*s == ':') {
			s++;
			if (!u32_number(&s, &t->hi[t->nvals])) {
				*msg = "u32: not a number or out of range";
				return -EINVAL;
			}
		}
		t->nvals++;
	}
	/* Encode. */
	enc_byte(&e, p.ntests);
	for (unsigned int i = 0; i < p.ntests; i++) {
		t = &p.t[i];
		enc_byte(&e, (uint8_t)(t->nnums << 4 | t->nvals));
		for (unsigned int j = 0; j < t->nnums; j++)
			enc_varint(&e, (uint64_t)t->num[j] << 2 | (j != 0 ? t->op[j] : 0));
		for (unsigned int j = 0; j < t->nvals; j++) {
			enc_varint(&e, t->lo[j]);
			enc_varint(&e, t->hi[j]);
		}
	}
	if (e.len <= RULE_U32_CODE_MAX) {
		memcpy(u->code, e.c, e.len);
		u->len = (uint8_t)e.len;
		return 0;
	}
	/* Past the extension's bytes: out of line, held by the set being read into. */
	if (rule_xblob_put(e.c, e.len, u->code, msg) < 0) {
		if (*msg == NULL)
			*msg = "u32: tests past a rule's 135 bytes need a rule set to hold them";
		memset(u, 0, sizeof(*u));
		return -EINVAL;
	}
	u->len = RULE_X_OUTLINE;
	return 0;
}

/*
 * The encoding of @p u: its own bytes, or (out of line) a copy in @p buf.
 * @return its length (0: none).
 */
static unsigned int
enc_of(const struct rule_x_u32 *u, uint8_t *buf, const uint8_t **c)
{
	int len;

	if (u->len != RULE_X_OUTLINE) {
		*c = u->code;
		return u->len <= RULE_U32_CODE_MAX ? u->len : 0;
	}
	len = rule_xblob_copy(u->code, buf, RULE_U32_ENC_MAX);
	*c = buf;
	return len > RULE_U32_CODE_MAX ? (unsigned int)len : 0;
}

/* ------------------------------------------------------------------------ */
/* Decoding, checking, writing                                               */
/* ------------------------------------------------------------------------ */

int
rule_u32_decode(const struct rule_x_u32 *u, struct rule_u32_prog *p)
{
	uint8_t buf[RULE_U32_ENC_MAX];
	const uint8_t *c;
	unsigned int i = 0, len = enc_of(u, buf, &c);
	uint64_t v;

	memset(p, 0, sizeof(*p));
	if (len == 0)
		return -EINVAL;
	p->ntests = c[i++];
	if (p->ntests == 0 || p->ntests > RULE_U32_MAX)
		return -EINVAL;
	for (unsigned int n = 0; n < p->ntests; n++) {
		struct rule_u32_test *t = &p->t[n];
		uint8_t h;

		if (i >= len)
			return -EINVAL;
		h = c[i++];
		t->nnums = h >> 4;
		t->nvals = h & 0xf;
		if (t->nnums == 0 || t->nnums > RULE_U32_MAX || t->nvals == 0 ||
			t->nvals > RULE_U32_MAX)
			return -EINVAL;
		for (unsigned int j = 0; j < t->nnums; j++) {
			if (!dec_varint(c, len, &i, &v) || v >> 34 != 0 ||
				(j == 0 && (v & 3)))
				return -EINVAL;
			t->num[j] = (uint32_t)(v >> 2);
			t->op[j] = (uint8_t)(v & 3);
			if ((t->op[j] == RULE_U32_SHL || t->op[j] == RULE_U32_SHR) &&
				t->num[j] > 31)
				return -EINVAL;
		}
		for (unsigned int j = 0; j < t->nvals; j++) {
			if (!dec_varint(c, len, &i, &v) || v > UINT32_MAX)
				return -EINVAL;
			t->lo[j] = (uint32_t)v;
			if (!dec_varint(c, len, &i, &v) || v > UINT32_MAX)
				return -EINVAL;
			t->hi[j] = (uint32_t)v;
		}
	}
	return i == len ? 0 : -EINVAL;
}

const char *
rule_u32_check(const struct rule_x_u32 *u)
{
	struct rule_u32_prog p;

	if (rule_u32_decode(u, &p) < 0)
		return "bad u32 tests";
	for (unsigned int i = u->len == RULE_X_OUTLINE ? RULE_X_REF_BYTES : u->len;
		i < RULE_U32_CODE_MAX; i++)
		if (u->code[i] != 0)
			return "bad u32 tests";
	return NULL;
}

void
rule_u32_format(struct rule_buf *b, const struct rule_x_u32 *u)
{
	static const char *const ops[] = {"&", "<<", ">>", "@"};
	struct rule_u32_prog p;

	rule_buf_printf(b, "\"");
	if (rule_u32_decode(u, &p) == 0)
		for (unsigned int n = 0; n < p.ntests; n++) {
			const struct rule_u32_test *t = &p.t[n];

			rule_buf_printf(b, "%s0x%x", n != 0 ? "&&" : "", t->num[0]);
			for (unsigned int j = 1; j < t->nnums; j++)
				rule_buf_printf(b, "%s0x%x", ops[t->op[j] & 3], t->num[j]);
			rule_buf_printf(b, "=");
			for (unsigned int j = 0; j < t->nvals; j++) {
				rule_buf_printf(b, "%s0x%x", j != 0 ? "," : "", t->lo[j]);
				if (t->hi[j] != t->lo[j])
					rule_buf_printf(b, ":0x%x", t->hi[j]);
			}
		}
	rule_buf_printf(b, "\"");
}

/* ------------------------------------------------------------------------ */
/* The reference evaluator                                                   */
/* ------------------------------------------------------------------------ */

static uint32_t
be32_at(const uint8_t *l3, uint32_t off)
{
	return (uint32_t)l3[off] << 24 | (uint32_t)l3[off + 1] << 16 | (uint32_t)l3[off + 2] << 8 |
	       l3[off + 3];
}

bool
rule_u32_match(const struct rule_x_u32 *u, const uint8_t *l3, uint32_t len)
{
	uint8_t buf[RULE_U32_ENC_MAX];
	const uint8_t *c;
	unsigned int i = 1, ntests, clen = enc_of(u, buf, &c);
	uint64_t v;

	if (clen == 0 || l3 == NULL)
		return false;
	ntests = c[0];
	for (unsigned int n = 0; n < ntests; n++) {
		unsigned int nnums, nvals;
		uint32_t at = 0, val = 0;
		bool in = false;

		if (i >= clen)
			return false;
		nnums = c[i] >> 4;
		nvals = c[i] & 0xf;
		i++;
		for (unsigned int j = 0; j < nnums; j++) {
			uint32_t num;

			if (!dec_varint(c, clen, &i, &v))
				return false;
			num = (uint32_t)(v >> 2);
			if (j == 0) {
				if (len < 4 || num > len - 4)
					return false;
				val = be32_at(l3, num);
				continue;
			}
			switch (v & 3) {
			case RULE_U32_AND:
				val &= num;
				break;
			case RULE_U32_SHL:
				val <<= num & 31; /* at most 31 (read so) */
				break;
			case RULE_U32_SHR:
				val >>= num & 31;
				break;
			default: /* "@": move by the value, read at the number past it */
				if (at + val < at)
					return false;
				at += val;
				if (at + 4 < at || len < at + 4 || num > len - at - 4)
					return false;
				val = be32_at(l3, at + num);
				break;
			}
		}
		for (unsigned int j = 0; j < nvals; j++) {
			uint64_t lo, hi;

			if (!dec_varint(c, clen, &i, &lo) ||
				!dec_varint(c, clen, &i, &hi))
				return false;
			in |= lo <= val && val <= hi;
		}
		if (!in)
			return false;
	}
	return true;
}
