/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the values of extension options, read the same way by both
 * rule languages (written back by rule_xfmt.c): numbers, ranges, marks,
 * name lists, rates, ICMP types, TCP flags, addresses, set references,
 * NAT targets. What each
 * option is and where its value lives is rule_x.c's table
 * (rule_x_priv.h); errors name the word at fault.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rule_x_priv.h"

/* ------------------------------------------------------------------------ */
/* Small readers                                                             */
/* ------------------------------------------------------------------------ */

static int
bad(struct rule_xerr *e, unsigned int word, const char *msg)
{
	e->msg = msg;
	e->word = word;
	return -EINVAL;
}

/* An unsigned number in [s, s+len): decimal or 0x hex, at most @max. */
static bool
num(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	char buf[32], *end;
	unsigned long long x;

	if (len == 0 || len >= sizeof(buf) || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	x = strtoull(buf, &end, 0);
	if (errno != 0 || *end != '\0' || x > max)
		return false;
	*v = x;
	return true;
}

/* A name of @t (any case) in [s, s+len), or -1. */
/*
 * A date as iptables' time match reads it: YYYY[-MM[-DD[Thh[:mm[:ss]]]]],
 * each field's digits (none: 0), year 1970..2038, month up to 12, day up
 * to 31, then hours, minutes and seconds; out-of-range days and a month 0
 * carry over as mktime() carries them (2021-02-31 is 2021-03-03). Taken
 * as UTC. @return seconds since the epoch, or -1.
 */
static int64_t
date_parse(const char *s)
{
	static const char seps[6] = {'-', '-', 'T', ':', ':', '\0'};
	static const unsigned int max[6] = {2038, 12, 31, 23, 59, 59};
	unsigned int f[6] = {0, 1, 1, 0, 0, 0};
	int64_t y, m, days, t;

	for (unsigned int i = 0; i < 6; i++) {
		uint64_t v = 0;

		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (v > 99999)
				return -1;
		}
		if ((*s != seps[i] && *s != '\0') || v > max[i] || (i == 0 && v < 1970))
			return -1;
		f[i] = (unsigned int)v;
		if (*s++ == '\0')
			break;
	}
	y = f[0];
	m = f[1];
	if (m == 0) {
		y--;
		m = 12;
	}
	/* Days from the civil date, proleptic Gregorian (Howard Hinnant's method). */
	y -= m <= 2;
	{
		int64_t era = (y >= 0 ? y : y - 399) / 400;
		int64_t yoe = y - era * 400;
		int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5;
		int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		days = era * 146097 + doe - 719468;
	}
	t = (days + (int64_t)f[2] - 1) * 86400 + (int64_t)f[3] * 3600 + (int64_t)f[4] * 60 + f[5];
	return t < 0 || t > (int64_t)UINT32_MAX ? -1 : t;
}

static int64_t
name_of(const struct rule_xname *t, const char *s, size_t len)
{
	for (unsigned int i = 0; t[i].name != NULL; i++)
		if (strlen(t[i].name) == len && strncasecmp(t[i].name, s, len) == 0)
			return t[i].value;
	return -1;
}

/* Comma-separated names of @t, OR'ed. */
static bool
names_of(const struct rule_xname *t, const char *s, uint32_t *v)
{
	*v = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		int64_t x = name_of(t, s, len);

		if (x < 0)
			return false;
		*v |= (uint32_t)x;
		if (s[len] == '\0')
			return true;
		s += len + 1;
	}
}

static bool
family_set(struct rule *r, uint8_t family)
{
	if (r->family != 0 && r->family != family)
		return false;
	r->family = family;
	return true;
}

/* ------------------------------------------------------------------------ */
/* NAT targets                                                               */
/* ------------------------------------------------------------------------ */

/* NAT ports "P[-Q]" into @p n's port range. @return false if malformed. */
static bool
nat_ports(struct rule_nat *n, const char *ports)
{
	struct lex_port_range pr;
	unsigned int cnt;

	if (lex_ports(&lex_ports_nat, ports, strlen(ports), &pr, &cnt, NULL) != 0)
		return false;
	n->port_min = pr.lo;
	n->port_max = pr.hi;
	return true;
}

/*
 * A NAT target in either language: IPv4 A[-B][:P[-Q]]; IPv6 bare A[-B]
 * (no ports), [A]:P[-Q], [A-B]:P[-Q] (iptables) or [A]-[B][:P[-Q]] (native);
 * either family :P[-Q], the port alone (family 0: the address is kept).
 * @return NULL, or why not.
 */
static const char *
nat_target(const char *s, struct rule_nat *n)
{
	char a1[64], a2[64];
	const char *ports = NULL, *p;
	size_t l1, l2 = 0;
	uint8_t f1, f2;

	memset(n->addr_min, 0, sizeof(n->addr_min));
	memset(n->addr_max, 0, sizeof(n->addr_max));
	n->port_min = n->port_max = 0;
	a2[0] = '\0';
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		const char *dash;

		if (end == NULL)
			return "bad nat target";
		dash = memchr(s + 1, '-', (size_t)(end - s - 1));
		l1 = (size_t)((dash != NULL ? dash : end) - (s + 1));
		if (l1 >= sizeof(a1))
			return "bad nat target";
		memcpy(a1, s + 1, l1);
		a1[l1] = '\0';
		if (dash != NULL) {
			l2 = (size_t)(end - dash - 1);
			if (l2 >= sizeof(a2))
				return "bad nat target";
			memcpy(a2, dash + 1, l2);
			a2[l2] = '\0';
		}
		p = end + 1;
		if (dash == NULL && p[0] == '-' && p[1] == '[') {
			end = strchr(p + 2, ']');
			if (end == NULL)
				return "bad nat target";
			l2 = (size_t)(end - p - 2);
			if (l2 >= sizeof(a2))
				return "bad nat target";
			memcpy(a2, p + 2, l2);
			a2[l2] = '\0';
			p = end + 1;
		}
		if (*p == ':')
			ports = p + 1;
		else if (*p != '\0')
			return "bad nat target";
	} else {
		const char *colon = strchr(s, ':');
		const char *dash;
		size_t alen;

		if (colon != NULL && strchr(colon + 1, ':') != NULL)
			colon = NULL; /* a bare IPv6 address: no ports */
		alen = colon != NULL ? (size_t)(colon - s) : strlen(s);
		if (colon != NULL)
			ports = colon + 1;
		dash = memchr(s, '-', alen);
		l1 = dash != NULL ? (size_t)(dash - s) : alen;
		if (l1 >= sizeof(a1))
			return "bad nat target";
		memcpy(a1, s, l1);
		a1[l1] = '\0';
		if (dash != NULL) {
			l2 = alen - l1 - 1;
			if (l2 >= sizeof(a2))
				return "bad nat target";
			memcpy(a2, dash + 1, l2);
			a2[l2] = '\0';
		}
	}
	if (a1[0] == '\0' && a2[0] == '\0' && l2 == 0 && ports != NULL &&
		(s[0] == ':' || strncmp(s, "[]:", 3) == 0)) {
		/* ":P[-Q]" ("[]:P[-Q]" in ip6tables): the port alone, the address kept. */
		if (!nat_ports(n, ports))
			return "bad nat target";
		n->family = 0;
		return NULL;
	}
	if (lex_addr(a1, strlen(a1), &f1, n->addr_min, NULL) != 0)
		return "bad nat target";
	memcpy(n->addr_max, n->addr_min, sizeof(n->addr_max));
	if (a2[0] != '\0') {
		if (lex_addr(a2, strlen(a2), &f2, n->addr_max, NULL) != 0 || f2 != f1)
			return "bad nat target";
		if (memcmp(n->addr_min, n->addr_max, sizeof(n->addr_min)) > 0)
			return "bad nat address range";
	} else if (l2 != 0) {
		return "bad nat target";
	}
	if (ports != NULL && !nat_ports(n, ports))
		return "bad nat target";
	n->family = f1;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */
/* ------------------------------------------------------------------------ */

static int
p_range(const struct rule_xopt *o, const char *s, void *at, struct rule_xerr *e)
{
	/* @c arg 0: "a" is that one value, "a:b" a range. @c arg 1
	 * (connbytes): "a" is a lower bound, "a:" the same and ":b" from 0.
	 * Any other @c arg (length: 65535) caps the values and lets either
	 * end be left open, the open top standing for @c arg; "a" is still
	 * one value, as iptables reads "--length 100". */
	const char *colon = strchr(s, ':');
	uint64_t max = o->arg > 1 ? o->arg : rx_width_max(o->size), lo, hi;

	if (colon == NULL) {
		if (!num(s, strlen(s), max, &lo))
			return bad(e, 0, "bad number");
		hi = o->arg == 1 ? max : lo;
	} else {
		if (colon == s) {
			if (o->arg == 0)
				return bad(e, 0, "bad range");
			lo = 0;
		} else if (!num(s, (size_t)(colon - s), max, &lo)) {
			return bad(e, 0, "bad range");
		}
		if (colon[1] == '\0') {
			if (o->arg == 0)
				return bad(e, 0, "bad range");
			hi = max;
		} else if (!num(colon + 1, strlen(colon + 1), max, &hi)) {
			return bad(e, 0, "bad range");
		}
	}
	if (lo > hi)
		return bad(e, 0, "bad range");
	rx_put(at, o->size, lo);
	rx_put((uint8_t *)at + o->size, o->size, hi);
	return 0;
}

static int
p_icmp(const struct rule_xopt *o, const char *s, struct rule_x_icmp *ic, struct rule_xerr *e)
{
	const struct rx_icmp_name *t = o->arg == 6 ? rx_icmp6_names : rx_icmp4_names;
	const char *slash = strchr(s, '/');
	uint64_t type, code;

	memset(ic, 0, sizeof(*ic));
	if (strcasecmp(s, "any") == 0) {
		ic->any = 1;
		ic->type = 0xff;
		ic->code_max = 0xff;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		if (!num(s, slash != NULL ? (size_t)(slash - s) : strlen(s), 255, &type))
			return bad(e, 0, "bad ICMP type");
		ic->type = (uint8_t)type;
		ic->code_max = 0xff;
		if (slash != NULL) {
			if (!num(slash + 1, strlen(slash + 1), 255, &code))
				return bad(e, 0, "bad ICMP code");
			ic->code_min = ic->code_max = (uint8_t)code;
		}
		return 0;
	}
	for (unsigned int i = 0; t[i].name != NULL; i++)
		if (strcasecmp(t[i].name, s) == 0) {
			ic->type = t[i].type;
			ic->code_min = t[i].code_min;
			ic->code_max = t[i].code_max;
			return 0;
		}
	return bad(e, 0, "unknown ICMP type");
}

/*
 * A byte count N, NK, NM or NG (K = 1024) followed by @p tail ("b/s" of a
 * rate, "b" of a burst), as iptables' hashlimit reads them. @return false
 * when @p s is not of that form; *v is 0 when the count is out of range.
 */
static bool
bytes_of(const char *s, const char *tail, uint64_t *v)
{
	size_t len = strlen(s), tl = strlen(tail), digits = 0;
	uint64_t n, mult = 1;

	while (digits < len && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (digits == 0 || len < digits + tl || strcmp(s + len - tl, tail) != 0)
		return false;
	if (len == digits + tl + 1) {
		switch (s[digits]) {
		case 'k': case 'K': mult = 1ull << 10; break;
		case 'm': case 'M': mult = 1ull << 20; break;
		case 'g': case 'G': mult = 1ull << 30; break;
		default: return false;
		}
	} else if (len != digits + tl) {
		return false;
	}
	*v = 0;
	if (num(s, digits, UINT32_MAX, &n) && n * mult <= UINT32_MAX)
		*v = n * mult;
	return true;
}

static int
p_rate(const char *s, void *at, bool bytes, struct rule_xerr *e)
{
	const char *slash = strchr(s, '/');
	uint64_t n;
	uint8_t unit = RULE_RATE_SEC;

	if (bytes && bytes_of(s, "b/s", &n)) {
		if (n == 0)
			return bad(e, 0, "bad byte rate (1b/s to 4294967295b/s)");
		rx_put(at, 4, n);
		rx_put((uint8_t *)at + 4, 1, RULE_RATE_BYTES);
		return 0;
	}
	if (!num(s, slash != NULL ? (size_t)(slash - s) : strlen(s), UINT32_MAX, &n) || n == 0) {
		if (slash != NULL && strpbrk(s, "bB") != NULL)
			return bad(e, 0, bytes ? "bad byte rate (Nb/s, Nkb/s, Nmb/s, Ngb/s)"
					       : "byte rates are hashlimit's only");
		return bad(e, 0, "bad rate");
	}
	if (slash != NULL) {
		size_t len = strlen(slash + 1);
		unsigned int u;

		for (u = 0; u < RTE_DIM(rx_rate_words); u++)
			if (len > 0 && strncasecmp(rx_rate_words[u], slash + 1, len) == 0 &&
				len <= strlen(rx_rate_words[u]))
				break;
		if (u == RTE_DIM(rx_rate_words))
			return bad(e, 0, "bad rate unit");
		unit = (uint8_t)u;
	}
	rx_put(at, 4, n);
	rx_put((uint8_t *)at + 4, 1, unit);
	return 0;
}

static int
p_setref(const char *const v[], struct rule_x_set *sr, struct rule_xerr *e)
{
	const char *d = v[1];

	memset(sr, 0, sizeof(*sr));
	if (strlen(v[0]) == 0 || strlen(v[0]) >= sizeof(sr->name))
		return bad(e, 0, "bad set name");
	for (const char *c = v[0]; *c != '\0'; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return bad(e, 0, "bad set name");
	memcpy(sr->name, v[0], strlen(v[0]) + 1);
	for (;;) {
		size_t len = strcspn(d, ",");

		if (sr->ndims == 3)
			return bad(e, 1, "too many set dimensions");
		if (len == 3 && strncmp(d, "src", 3) == 0)
			;
		else if (len == 3 && strncmp(d, "dst", 3) == 0)
			sr->dirs |= (uint8_t)(1u << sr->ndims);
		else
			return bad(e, 1, "expected src or dst");
		sr->ndims++;
		if (d[len] == '\0')
			return 0;
		d += len + 1;
	}
}

static int
p_chunks(const char *const v[], struct rule_x_sctp *c, struct rule_xerr *e)
{
	int64_t mode = name_of(rx_xn_chunkmode, v[0], strlen(v[0]));
	const char *s = v[1];

	memset(c, 0, sizeof(*c));
	if (mode < 0)
		return bad(e, 0, "expected all, any or only");
	c->mode = (uint8_t)mode;
	if (strcasecmp(s, "NONE") == 0)
		return 0;
	if (strcasecmp(s, "ALL") == 0) {
		for (unsigned int i = 0; rx_xn_chunks[i].name != NULL; i++)
			c->chunks[rx_xn_chunks[i].value / 8] |= (uint8_t)(1u << (rx_xn_chunks[i].value % 8));
		return 0;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		int64_t x;

		if (memchr(s, ':', len) != NULL)
			return bad(e, 1, "SCTP chunk flags are not supported");
		x = name_of(rx_xn_chunks, s, len);
		if (x < 0)
			return bad(e, 1, "unknown SCTP chunk type");
		c->chunks[x / 8] |= (uint8_t)(1u << (x % 8));
		if (s[len] == '\0')
			return 0;
		s += len + 1;
	}
}

static int
p_xmark(const struct rule_xopt *o, const char *s, unsigned int bits, void *at,
	struct rule_xerr *e)
{
	const char *slash = strchr(s, '/');
	uint64_t all = rx_width_max(bits / 8), v, m = all;

	if (o->vt == VT_TOS && (s[0] < '0' || s[0] > '9')) {
		int64_t t = name_of(rx_xn_tos, s, strlen(s));

		if (t < 0 || o->arg != XM_XSET)
			return bad(e, 0, "bad TOS value");
		rx_put(at, 1, (uint64_t)t);
		rx_put((uint8_t *)at + 1, 1, 0x3f);
		return 0;
	}
	if (!num(s, slash != NULL ? (size_t)(slash - s) : strlen(s), all, &v))
		return bad(e, 0, "bad value");
	if (slash != NULL) {
		if (o->arg != XM_XSET && o->arg != XM_SET)
			return bad(e, 0, "bad value");
		if (!num(slash + 1, strlen(slash + 1), all, &m))
			return bad(e, 0, "bad mask");
	}
	switch (o->arg) {
	case XM_SET:
		m |= v;
		break;
	case XM_AND:
		m = ~v & all;
		v = 0;
		break;
	case XM_OR:
		m = v;
		break;
	case XM_XOR:
		m = 0;
		break;
	default:
		break;
	}
	rx_put(at, bits / 8, v);
	rx_put((uint8_t *)at + bits / 8, bits / 8, m);
	return 0;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A --hex-string as iptables reads it: '|' opens a block of hex byte pairs
 * (blanks right after the '|' and one after each pair skipped) and closes
 * it; outside a block, '\\' takes the next byte as it is and any other
 * byte stands for itself. A '|' or '\\' right after a closing '|' is a byte.
 * iptables refuses a 128th byte followed by anything (even the closing
 * '|' its own iptables-save writes); gufc takes 128 bytes however written.
 */
static int
p_hexpat(const char *s, struct rule_x_string *st, struct rule_xerr *e)
{
	size_t n = strlen(s), i = 0;
	unsigned int len = 0;
	bool hex = false;

	while (i < n) {
		bool bar = false;
		int hi, lo;

		if (s[i] == '\\' && hex)
			return bad(e, 0, "a \\ literal inside a hex block");
		if (s[i] == '|') {
			hex = !hex;
			if (hex)
				while (i + 1 < n && s[i + 1] == ' ')
					i++;
			if (++i >= n)
				break;
			bar = true;
		}
		if (len == RULE_STR_MAX)
			return bad(e, 0, "pattern longer than 128 bytes");
		/* Right after a '|', iptables takes a '\\' as a byte. */
		if (!hex && !bar && s[i] == '\\') {
			if (i + 1 >= n)
				return bad(e, 0, "a \\ at the end with no byte after it");
			st->pat[len++] = (uint8_t)s[i + 1];
			i += 2;
		} else if (hex) {
			if (i + 1 >= n)
				return bad(e, 0, "odd number of hex digits");
			if (i + 2 >= n)
				return bad(e, 0, "hex block not closed with '|'");
			hi = hex_digit(s[i]);
			lo = hex_digit(s[i + 1]);
			if (hi < 0 || lo < 0)
				return bad(e, 0, "bad hex digit");
			st->pat[len++] = (uint8_t)(hi << 4 | lo);
			i += s[i + 2] == ' ' ? 3 : 2;
		} else {
			st->pat[len++] = (uint8_t)s[i++];
		}
	}
	st->len = (uint8_t)len;
	return len == 0 ? bad(e, 0, "empty pattern") : 0;
}

/* A string match's pattern (VT_STRPAT). */
static int
p_strpat(const struct rule_xopt *o, const char *s, void *at, struct rule_xerr *e)
{
	struct rule_x_string *st = at;
	size_t n = strlen(s);

	memset(st->pat, 0, sizeof(st->pat));
	st->len = 0;
	if (o->arg == 1)
		return p_hexpat(s, st, e);
	if (n == 0)
		return bad(e, 0, "empty pattern");
	if (n > RULE_STR_MAX)
		return bad(e, 0, "pattern longer than 128 bytes");
	memcpy(st->pat, s, n);
	st->len = (uint8_t)n;
	return 0;
}

int
rule_xval_parse(const struct rule_xopt *o, const char *const v[], struct rule *r,
	struct rule_x *x, struct rule_xerr *e)
{
	uint8_t *at = (uint8_t *)x + o->off;
	struct lex_prefix lp;
	uint64_t n;
	uint32_t set;
	uint8_t fam;

	switch (o->vt) {
	case VT_FLAG:
		return 0;
	case VT_NATFLAG:
		r->nat.flags |= (uint8_t)o->arg;
		return 0;
	case VT_UINT:
	case VT_HEX:
		if (!num(v[0], strlen(v[0]), o->arg != 0 ? o->arg : rx_width_max(o->size), &n))
			return bad(e, 0, "bad number");
		rx_put(at, o->size, n);
		return 0;
	case VT_MARK: {
		const char *slash = strchr(v[0], '/');
		uint64_t m = UINT32_MAX;

		if (!num(v[0], slash != NULL ? (size_t)(slash - v[0]) : strlen(v[0]), UINT32_MAX,
			    &n) ||
			(slash != NULL && !num(slash + 1, strlen(slash + 1), UINT32_MAX, &m)))
			return bad(e, 0, "bad mark");
		rx_put(at, 4, n);
		rx_put(at + 4, 4, m);
		return 0;
	}
	case VT_XMARK:
		return p_xmark(o, v[0], 32, at, e);
	case VT_TOS:
		return p_xmark(o, v[0], 8, at, e);
	case VT_RANGE:
		return p_range(o, v[0], at, e);
	case VT_NAMES:
		if (!names_of(o->names, v[0], &set))
			return bad(e, 0, "unknown name");
		rx_put(at, o->size, set);
		return 0;
	case VT_NAME: {
		int64_t val = name_of(o->names, v[0], strlen(v[0]));

		if (val < 0 && o->arg == 1 && num(v[0], strlen(v[0]), rx_width_max(o->size), &n))
			val = (int64_t)n;
		if (val < 0)
			return bad(e, 0, "unknown name");
		rx_put(at, o->size, (uint64_t)val);
		return 0;
	}
	case VT_STR: {
		size_t len = strlen(v[0]);

		if (len >= o->size)
			return bad(e, 0, "too long");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)v[0][i] < 0x20 || v[0][i] == 0x7f)
				return bad(e, 0, "control character");
		memset(at, 0, o->size);
		memcpy(at, v[0], len);
		return 0;
	}
	case VT_STRPAT:
		return p_strpat(o, v[0], at, e);
	case VT_U32: {
		const char *msg = NULL;

		if (rule_u32_parse(v[0], (struct rule_x_u32 *)(void *)at, &msg) < 0)
			return bad(e, 0, msg);
		return 0;
	}
	case VT_BPF: {
		const char *msg = NULL;

		if (o->arg == 1)
			return bad(e, 0, "bpf --object-pinned: eBPF lives in the kernel; gufc runs "
					 "--bytecode only");
		if (rule_bpf_parse(v[0], (struct rule_x_bpf *)(void *)at, &msg) < 0)
			return bad(e, 0, msg);
		return 0;
	}
	case VT_PREFIX: {
		struct rule_prefix *pf = (struct rule_prefix *)(void *)at;

		if (lex_prefix(v[0], strlen(v[0]),
			    LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK | LEX_PFX_NO_LEAD_ZERO, &lp, NULL) != 0)
			return bad(e, 0, "bad address");
		if (!family_set(r, lp.family))
			return bad(e, 0, "address family mismatch");
		memcpy(pf->addr, lp.addr, sizeof(pf->addr));
		pf->len = lp.len;
		return 0;
	}
	case VT_ADDR:
		if (lex_addr(v[0], strlen(v[0]), &fam, at, NULL) != 0)
			return bad(e, 0, "bad address");
		if (!family_set(r, fam))
			return bad(e, 0, "address family mismatch");
		return 0;
	case VT_ARANGE: {
		const char *dash = strchr(v[0], '-');
		uint8_t f2;

		if (dash == NULL || lex_addr(v[0], (size_t)(dash - v[0]), &fam, at, NULL) != 0 ||
			lex_addr(dash + 1, strlen(dash + 1), &f2, at + 16, NULL) != 0 || f2 != fam ||
			memcmp(at, at + 16, 16) > 0)
			return bad(e, 0, "bad address range");
		if (!family_set(r, fam))
			return bad(e, 0, "address family mismatch");
		return 0;
	}
	case VT_MAC: {
		unsigned int b[6];
		char tail;

		if (strlen(v[0]) != 17 ||
			sscanf(v[0], "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
				&b[5], &tail) != 6)
			return bad(e, 0, "bad MAC address");
		for (unsigned int i = 0; i < 6; i++)
			at[i] = (uint8_t)b[i];
		return 0;
	}
	case VT_RATE:
		return p_rate(v[0], at, o->arg == 1, e);
	case VT_HLBURST:
		/* Bytes for a byte rate (checked with the rate: rule_x.c). */
		if (bytes_of(v[0], "b", &n)) {
			if (n == 0)
				return bad(e, 0, "bad burst (bytes up to 4294967295b)");
			rx_put(at, 4, n);
			x->u.hashlimit.burst_bytes = 1;
			return 0;
		}
		if (!num(v[0], strlen(v[0]), UINT32_MAX, &n))
			return bad(e, 0, "bad number");
		rx_put(at, 4, n);
		return 0;
	case VT_PROB: {
		char *end;
		double p = strtod(v[0], &end);

		if (*end != '\0' || end == v[0] || !(p >= 0.0 && p <= 1.0))
			return bad(e, 0, "bad probability");
		rx_put(at, 4, (uint64_t)(p * 2147483648.0 + 0.5)); /* lround() */
		return 0;
	}
	case VT_ICMP:
		return p_icmp(o, v[0], (struct rule_x_icmp *)(void *)at, e);
	case VT_TCPFLAGS: {
		uint32_t m, c;

		if (!names_of(rx_xn_tcpflags, v[0], &m))
			return bad(e, 0, "unknown TCP flag");
		if (!names_of(rx_xn_tcpflags, v[1], &c))
			return bad(e, 1, "unknown TCP flag");
		at[0] = (uint8_t)m;
		at[1] = (uint8_t)c;
		return 0;
	}
	case VT_SYN:
		at[0] = RULE_TCP_FIN | RULE_TCP_SYN | RULE_TCP_RST | RULE_TCP_ACK;
		at[1] = RULE_TCP_SYN;
		return 0;
	case VT_SETREF:
		return p_setref(v, (struct rule_x_set *)(void *)at, e);
	case VT_CHUNKS:
		return p_chunks(v, (struct rule_x_sctp *)(void *)at, e);
	case VT_TOD: {
		unsigned int h, m, sec = 0;
		int used = 0;

		if ((sscanf(v[0], "%2u:%2u:%2u%n", &h, &m, &sec, &used) != 3 &&
			    sscanf(v[0], "%2u:%2u%n", &h, &m, &used) != 2) ||
			(size_t)used != strlen(v[0]) || h > 23 || m > 59 || sec > 59)
			return bad(e, 0, "bad time of day");
		rx_put(at, 4, h * 3600 + m * 60 + sec);
		return 0;
	}
	case VT_DATE: {
		int64_t t = date_parse(v[0]);

		if (t < 0)
			return bad(e, 0, "bad date (YYYY[-MM[-DD[Thh[:mm[:ss]]]]], 1970 to 2038)");
		rx_put(at, 4, (uint64_t)t);
		return 0;
	}
	case VT_CLASS: {
		unsigned int maj, min;
		int used = 0;

		if (sscanf(v[0], "%4x:%4x%n", &maj, &min, &used) != 2 || (size_t)used != strlen(v[0]))
			return bad(e, 0, "bad class");
		rx_put(at, 4, (uint64_t)maj << 16 | min);
		return 0;
	}
	case VT_PROTO: {
		int pn = rule_proto_lookup(v[0]);

		if (pn <= 0)
			return bad(e, 0, "unknown protocol");
		at[0] = (uint8_t)pn;
		return 0;
	}
	case VT_NAT_TO: {
		uint8_t flags = r->nat.flags;
		const char *why = nat_target(v[0], &r->nat);

		if (why != NULL)
			return bad(e, 0, why);
		r->nat.flags = flags;
		if (r->nat.family != 0 && !family_set(r, r->nat.family))
			return bad(e, 0, "address family mismatch");
		return 0;
	}
	case VT_NAT_PORTS: {
		struct lex_port_range pr;
		unsigned int cnt;

		if (lex_ports(&lex_ports_nat, v[0], strlen(v[0]), &pr, &cnt, NULL) != 0)
			return bad(e, 0, "bad nat port range");
		r->nat.port_min = pr.lo;
		r->nat.port_max = pr.hi;
		return 0;
	}
	case VT_NETMAP: {
		unsigned int nb;

		if (lex_prefix(v[0], strlen(v[0]), LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, &lp, NULL) !=
			0)
			return bad(e, 0, "bad netmap prefix");
		if (!family_set(r, lp.family))
			return bad(e, 0, "address family mismatch");
		nb = fc_af_addr_len(lp.family);
		r->nat.family = lp.family;
		r->nat.flags |= RULE_NAT_F_NETMAP;
		memcpy(r->nat.addr_min, lp.addr, 16);
		memcpy(r->nat.addr_max, lp.addr, 16);
		for (unsigned int i = lp.len; i < nb * 8; i++)
			r->nat.addr_max[i / 8] |= (uint8_t)(0x80 >> (i % 8));
		return 0;
	}
	default:
		return bad(e, 0, "bad option");
	}
}
