/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_sip_nat.c — the SIP helper's rewrite behind NAT,
 * pure: what Linux's nf_nat_sip changes in a SIP message (the Request-URI,
 * the topmost Via and its parameters, Contact, From, To) and in its session
 * description (m= ports, c= and o= addresses, Content-Length), as a list of
 * edits (struct mod_ct_edit) on the message as it arrived. The header walk
 * reads as nf_conntrack_sip's does: headers at a line start (full or compact
 * name, blanks and continuation lines, ':'), the URI after "sip:" (user
 * part skipped), an address with an optional port.
 *
 * Also the edit list's application (mod_ct_edit_apply()). The module
 * (ct_helper.c) decides the media ports and applies the edits to packets.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ct_priv.h"

#define SIP_PORT 5060

/* Headers the helper reads (Linux's names, compact forms, and what their value holds). */
#define H_FROM		 CT_SIP_H_FROM
#define H_TO		 CT_SIP_H_TO
#define H_CONTACT	 CT_SIP_H_CONTACT
#define H_VIA_UDP	 CT_SIP_H_VIA_UDP
#define H_VIA_TCP	 CT_SIP_H_VIA_TCP
#define H_CONTENT_LENGTH CT_SIP_H_CONTENT_LENGTH
#define H_EXPIRES	 CT_SIP_H_EXPIRES

static const struct {
	const char *name, *cname, *search;
	uint8_t kind; /* 0 digits, 1 address (user part skipped), 2 address */
} hdrs[] = {
	[H_FROM] = {"From", "f", "sip:", 1},
	[H_TO] = {"To", "t", "sip:", 1},
	[H_CONTACT] = {"Contact", "m", "sip:", 1},
	[H_VIA_UDP] = {"Via", "v", "UDP ", 2},
	[H_VIA_TCP] = {"Via", "v", "TCP ", 2},
	[H_CONTENT_LENGTH] = {"Content-Length", "l", NULL, 0},
	[H_EXPIRES] = {"Expires", NULL, NULL, 0},
};

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool
is_alpha(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_hex(uint8_t c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
eol(uint8_t c)
{
	return c == '\r' || c == '\n';
}

/*
 * An IPv4 address at @p s as Linux's in4_pton reads it: four decimal parts
 * of at most 255, dots between, ended by a character that is neither a
 * digit, a dot nor a hexadecimal letter (or by the end). @return its length, 0.
 */
static uint32_t
in4_at(const uint8_t *s, uint32_t len, uint8_t *addr)
{
	uint32_t i = 0, part = 0, v = 0;
	bool digit = false;

	for (;; i++) {
		uint8_t c = i < len ? s[i] : 0;

		if (is_digit(c)) {
			v = v * 10 + (uint32_t)(c - '0');
			if (v > 255)
				return 0;
			digit = true;
			continue;
		}
		if (is_hex(c) || !digit)
			return 0;
		addr[part++] = (uint8_t)v;
		v = 0;
		digit = false;
		if (c != '.')
			return part == 4 ? i : 0;
		if (part == 4)
			return 0;
	}
}

/* An IPv6 address's characters at @p s, parsed: its length, 0. */
static uint32_t
in6_at(const uint8_t *s, uint32_t len, uint8_t *addr)
{
	char buf[48];
	uint32_t n = 0;

	while (n < len && n < sizeof(buf) - 1 && (is_hex(s[n]) || s[n] == ':' || s[n] == '.'))
		n++;
	if (n == 0 || n == sizeof(buf) - 1)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return inet_pton(AF_INET6, buf, addr) == 1 ? n : 0;
}

/*
 * An address of @p family at @p s (Linux's sip_parse_addr): IPv6 in
 * brackets when @p delim. @return its length (brackets included), 0.
 */
static uint32_t
addr_at(const uint8_t *s, uint32_t len, uint8_t family, bool delim, uint8_t *addr)
{
	uint32_t n, b = 0;

	memset(addr, 0, 16);
	if (family == FC_AF_INET4)
		return in4_at(s, len, addr);
	if (len > 0 && s[0] == '[')
		b = 1;
	else if (delim)
		return 0;
	n = in6_at(s + b, len - b, addr);
	if (n == 0)
		return 0;
	n += b;
	if (n < len && s[n] == ']')
		return n + 1;
	return delim ? 0 : n;
}

static uint32_t
digits_len(const uint8_t *s, uint32_t len)
{
	uint32_t n = 0;

	while (n < len && is_digit(s[n]))
		n++;
	return n;
}

/* Decimal value of the digits at @p s (saturating). */
static uint32_t
dec(const uint8_t *s, uint32_t len, uint32_t *n)
{
	uint64_t v = 0;

	*n = digits_len(s, len);
	for (uint32_t i = 0; i < *n; i++)
		if ((v = v * 10 + (uint32_t)(s[i] - '0')) > UINT32_MAX)
			v = UINT32_MAX;
	return (uint32_t)v;
}

/* An address with an optional ":digits": its length (Linux's epaddr_len). */
static uint32_t
epaddr_len(const uint8_t *s, uint32_t len, uint8_t family)
{
	uint8_t a[16];
	uint32_t n = addr_at(s, len, family, true, a);

	if (n == 0)
		return 0;
	if (n < len && s[n] == ':')
		n += 1 + digits_len(s + n + 1, len - n - 1);
	return n;
}

/* The same after the user part ("user@"), if the line has one: *shift its length. */
static uint32_t
skp_epaddr_len(const uint8_t *s, uint32_t len, uint8_t family, uint32_t *shift)
{
	uint32_t i = 0;

	while (i < len && s[i] != '@' && !eol(s[i]))
		i++;
	*shift = i < len && s[i] == '@' ? i + 1 : 0;
	return epaddr_len(s + *shift, len - *shift, family);
}

/*
 * After a line end at @p o: the first non-blank of a continuation line, or
 * -1 (the header ended).
 */
static int64_t
follow_continuation(const uint8_t *s, uint32_t len, uint32_t o)
{
	if (++o >= len)
		return -1;
	if (s[o - 1] == '\r' && s[o] == '\n' && ++o >= len)
		return -1;
	if (s[o] != ' ' && s[o] != '\t')
		return -1;
	while (o < len && (s[o] == ' ' || s[o] == '\t'))
		o++;
	return o;
}

static int64_t
skip_ws(const uint8_t *s, uint32_t len, uint32_t o)
{
	while (o < len) {
		int64_t c;

		if (s[o] == ' ') {
			o++;
			continue;
		}
		if (!eol(s[o]))
			break;
		c = follow_continuation(s, len, o);
		if (c < 0)
			return -1;
		o = (uint32_t)c;
	}
	return o;
}

/* @p needle (case-insensitive) in a header's value from @p o, across continuations: its offset, -1.
 */
static int64_t
hdr_search(const uint8_t *s, uint32_t len, uint32_t o, const char *needle)
{
	uint32_t nl = (uint32_t)strlen(needle);

	if (len < nl)
		return -1;
	while (o < len - nl) {
		if (eol(s[o])) {
			int64_t c = follow_continuation(s, len - nl, o);

			if (c < 0)
				return -1;
			o = (uint32_t)c;
			continue;
		}
		if (strncasecmp((const char *)s + o, needle, nl) == 0)
			return o;
		o++;
	}
	return -1;
}

/* The value's match at @p o: length of what the header's kind holds. */
static uint32_t
match_len(unsigned int type, const uint8_t *s, uint32_t len, uint32_t o, uint8_t family,
	uint32_t *shift)
{
	*shift = 0;
	if (hdrs[type].kind == 0)
		return digits_len(s + o, len - o);
	if (hdrs[type].kind == 1)
		return skp_epaddr_len(s + o, len - o, family, shift);
	return epaddr_len(s + o, len - o, family);
}

/*
 * The next header of @p type after offset @p from (Linux's
 * ct_sip_get_header): *moff, *mlen its match. @return 1, 0 (none), -1 (a
 * header without a parsable value: *moff where to go on).
 */
static int
hdr_get(const uint8_t *s, uint32_t len, uint32_t from, unsigned int type, uint8_t family,
	uint32_t *moff, uint32_t *mlen)
{
	const char *name = hdrs[type].name, *cname = hdrs[type].cname;
	uint32_t nl = (uint32_t)strlen(name), cl = cname ? (uint32_t)strlen(cname) : 0;

	for (uint32_t o = from; o < len; o++) {
		uint32_t shift;
		int64_t p;

		if (!eol(s[o]))
			continue;
		if (++o >= len)
			break;
		if (s[o - 1] == '\r' && s[o] == '\n' && ++o >= len)
			break;
		if (s[o] == ' ' || s[o] == '\t')
			continue;
		if (len - o >= nl && strncasecmp((const char *)s + o, name, nl) == 0)
			p = o + nl;
		else if (cname && len - o >= cl + 1 &&
			 strncasecmp((const char *)s + o, cname, cl) == 0 && !is_alpha(s[o + cl]))
			p = o + cl;
		else
			continue;
		p = skip_ws(s, len, (uint32_t)p);
		if (p < 0 || p >= len || s[p] != ':' || ++p >= len)
			break;
		p = skip_ws(s, len, (uint32_t)p);
		if (p < 0)
			break;
		*moff = (uint32_t)p;
		if (hdrs[type].search) {
			p = hdr_search(s, len, (uint32_t)p, hdrs[type].search);
			if (p < 0)
				return -1;
			p += (int64_t)strlen(hdrs[type].search);
		}
		*mlen = match_len(type, s, len, (uint32_t)p, family, &shift);
		if (*mlen == 0) {
			*moff = (uint32_t)p;
			return -1;
		}
		*moff = (uint32_t)p + shift;
		return 1;
	}
	return 0;
}

/* The next value of the same header after ',' (Linux's ct_sip_next_header). */
static int
hdr_next(const uint8_t *s, uint32_t len, uint32_t from, unsigned int type, uint8_t family,
	uint32_t *moff, uint32_t *mlen)
{
	uint32_t shift;
	int64_t p = hdr_search(s, len, from, ",");

	if (p < 0)
		return 0;
	p = hdr_search(s, len, (uint32_t)p, hdrs[type].search);
	if (p < 0)
		return 0;
	p += (int64_t)strlen(hdrs[type].search);
	*mlen = match_len(type, s, len, (uint32_t)p, family, &shift);
	*moff = (uint32_t)p + shift;
	return *mlen == 0 ? -1 : 1;
}

/*
 * The next parsable header of @p type from *from (and, with @p in_hdr set,
 * first the next value of the header in hand): its address and port (5060
 * if none), *from moved past it. @return 1, 0 none, -1 a bad port.
 */
int
ct_sip_header_uri(const uint8_t *s, uint32_t len, uint32_t *from, unsigned int type, uint8_t family,
	bool *in_hdr, uint32_t *moff, uint32_t *mlen, uint8_t *addr, uint16_t *port)
{
	uint32_t at = *from, n, v;
	int r = 0;

	if (in_hdr != NULL && *in_hdr) {
		while ((r = hdr_next(s, len, at, type, family, moff, mlen)) < 0)
			at = *moff;
		if (r == 0)
			*in_hdr = false;
	}
	if (r == 0) {
		while ((r = hdr_get(s, len, at, type, family, moff, mlen)) < 0)
			at = *moff;
		if (r == 0)
			return 0;
		if (in_hdr != NULL)
			*in_hdr = true;
	}
	n = addr_at(s + *moff, len - *moff, family, true, addr);
	if (n == 0)
		return -1;
	at = *moff + n;
	*port = SIP_PORT;
	if (at < len && s[at] == ':') {
		v = dec(s + at + 1, len - at - 1, &n);
		if (v < 1024 || v > 65535)
			return -1;
		*port = (uint16_t)v;
		at += 1 + n;
	}
	*from = at;
	*mlen = at - *moff;
	return 1;
}

/* A header's numeric value (Content-Length, Expires): 1 and *v, 0 none. */
int
ct_sip_header_num(const uint8_t *s, uint32_t len, unsigned int type, uint32_t *moff, uint32_t *mlen,
	uint32_t *v)
{
	uint32_t at = 0, n;
	int r;

	while ((r = hdr_get(s, len, at, type, FC_AF_INET4, moff, mlen)) < 0)
		at = *moff;
	if (r == 0)
		return 0;
	*v = dec(s + *moff, len - *moff, &n);
	return 1;
}

/*
 * The Request-URI's address (Linux's ct_sip_parse_request): after the
 * method and one character, "sip:" on the first line, the user part
 * skipped. @return 1, 0 none, -1 a bad port or address.
 */
static int
request_uri(const uint8_t *s, uint32_t len, uint8_t family, uint32_t *moff, uint32_t *mlen,
	uint8_t *addr, uint16_t *port)
{
	uint32_t o = 0, shift, n, v;

	while (o < len && is_alpha(s[o]))
		o++;
	if (o == 0 || ++o >= len)
		return 0;
	for (; o + 4 < len; o++) {
		if (eol(s[o]))
			return -1;
		if (strncasecmp((const char *)s + o, "sip:", 4) == 0) {
			o += 4;
			break;
		}
	}
	if (skp_epaddr_len(s + o, len - o, family, &shift) == 0)
		return 0;
	o += shift;
	n = addr_at(s + o, len - o, family, true, addr);
	if (n == 0)
		return -1;
	*moff = o;
	*port = SIP_PORT;
	o += n;
	if (o < len && s[o] == ':') {
		v = dec(s + o + 1, len - o - 1, &n);
		if (v < 1024 || v > 65535)
			return -1;
		*port = (uint16_t)v;
		o += 1 + n;
	}
	*mlen = o - *moff;
	return 1;
}

/*
 * A parameter "name" of the header value from @p from up to its next ','
 * (Linux's ct_sip_parse_param): where its value starts. @return -1 none.
 */
static int64_t
param_at(const uint8_t *s, uint32_t len, uint32_t from, const char *name, uint32_t *limit)
{
	int64_t l = hdr_search(s, len, from, ",");
	int64_t p;

	*limit = l < 0 ? len : (uint32_t)l;
	p = hdr_search(s, *limit, from, name);
	return p < 0 ? -1 : p + (int64_t)strlen(name);
}

/* Linux's simple_strtoul(..., 0): hexadecimal after "0x", octal after "0". */
static uint32_t
num_base0(const uint8_t *s, uint32_t len, uint32_t *n)
{
	unsigned int base = 10;
	uint64_t v = 0;
	uint32_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && len > 2 && is_hex(s[2])) {
		base = 16;
		i = 2;
	} else if (len >= 1 && s[0] == '0') {
		base = 8;
	}
	for (; i < len; i++) {
		unsigned int d;

		if (is_digit(s[i]))
			d = (unsigned int)(s[i] - '0');
		else if (base == 16 && is_hex(s[i]))
			d = (unsigned int)((s[i] | 0x20) - 'a' + 10);
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
		if (v > UINT32_MAX)
			v = UINT32_MAX;
	}
	*n = i;
	return (uint32_t)v;
}

int
ct_sip_param_num(const uint8_t *s, uint32_t len, uint32_t from, const char *name, uint32_t *v)
{
	uint32_t limit, n;
	int64_t p = param_at(s, len, from, name, &limit);
	uint32_t x;

	if (p < 0)
		return 0;
	x = num_base0(s + p, limit - (uint32_t)p, &n);
	if (n == 0)
		return 0;
	*v = x;
	return 1;
}

int
ct_sip_param_transport(const uint8_t *s, uint32_t len, uint32_t from, uint8_t dflt, uint8_t *proto)
{
	uint32_t limit;
	int64_t p = param_at(s, len, from, "transport=", &limit);

	*proto = dflt;
	if (p < 0)
		return 1;
	if (limit - (uint32_t)p >= 3 && strncasecmp((const char *)s + p, "TCP", 3) == 0)
		*proto = 6;
	else if (limit - (uint32_t)p >= 3 && strncasecmp((const char *)s + p, "UDP", 3) == 0)
		*proto = 17;
	else
		return 0;
	return *proto == dflt;
}

/* Add an edit in order; one overlapping an edit already there is left out. */
int
ct_sip_edit_add(struct mod_ct_edit *e, unsigned int *n, unsigned int max, uint32_t off,
	uint32_t len_old, const char *text, uint32_t len_new)
{
	unsigned int i;

	if (len_new > sizeof(e[0].text) || off > UINT16_MAX || len_old > UINT16_MAX)
		return -ENOSPC;
	for (i = 0; i < *n; i++) {
		if (off + len_old <= e[i].off)
			break; /* it goes before this one */
		if (off < (uint32_t)e[i].off + e[i].len_old)
			return 0; /* overlaps */
	}
	if (*n >= max)
		return -ENOSPC;
	memmove(&e[i + 1], &e[i], (*n - i) * sizeof(e[0]));
	e[i].off = (uint16_t)off;
	e[i].len_old = (uint16_t)len_old;
	e[i].len_new = (uint8_t)len_new;
	memcpy(e[i].text, text, len_new);
	(*n)++;
	return 0;
}

static int
fmt_addr(uint8_t family, const uint8_t *addr, bool brackets, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	if (inet_ntop(family == FC_AF_INET6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)) == NULL)
		return -EINVAL;
	return snprintf(buf, size, family == FC_AF_INET6 && brackets ? "[%s]" : "%s", a);
}

int
ct_sip_fmt_addr_port(uint8_t family, const uint8_t *addr, uint16_t port, char *buf, size_t size)
{
	int n = fmt_addr(family, addr, true, buf, size);

	return n < 0 ? n : n + snprintf(buf + n, size - (size_t)n, ":%u", port);
}

/*
 * Linux's map_addr: @p addr:@p port as this direction's source becomes the
 * other's destination, as its destination the other's source; an edit of
 * the match if the text changes.
 */
static int
map_addr(const struct mod_ct_sip_conn *c, const uint8_t *addr, uint16_t port, uint32_t moff,
	uint32_t mlen, struct mod_ct_edit *e, unsigned int *n, unsigned int max)
{
	unsigned int alen = fc_af_addr_len(c->family);
	const uint8_t *na;
	uint16_t np;
	char buf[64];
	int k;

	if (memcmp(addr, c->src, alen) == 0 && port == c->sport) {
		na = c->odst;
		np = c->odport;
	} else if (memcmp(addr, c->dst, alen) == 0 && port == c->dport) {
		na = c->osrc;
		np = c->forced_dport != 0 ? c->forced_dport : c->osport;
	} else {
		return 0;
	}
	if (memcmp(na, addr, alen) == 0 && np == port)
		return 0;
	k = ct_sip_fmt_addr_port(c->family, na, np, buf, sizeof(buf));
	if (k < 0)
		return k;
	return ct_sip_edit_add(e, n, max, moff, mlen, buf, (uint32_t)k);
}

/* The topmost Via's maddr=, received= and rport= (from @p from, the end of its address). */
static int
via_params(const uint8_t *s, uint32_t len, uint32_t from, const struct mod_ct_sip_conn *c,
	struct mod_ct_edit *e, unsigned int *n, unsigned int max)
{
	unsigned int alen = fc_af_addr_len(c->family);
	uint8_t a[16];
	uint32_t limit, k;
	int64_t p;
	char buf[64];
	int r, w;

	/* maddr= naming this side: the address the other side knows it by. */
	p = param_at(s, len, from, "maddr=", &limit);
	if (p >= 0 && (k = addr_at(s + p, limit - (uint32_t)p, c->family, true, a)) != 0 &&
		memcmp(a, c->src, alen) == 0 && memcmp(a, c->odst, alen) != 0) {
		w = fmt_addr(c->family, c->odst, true, buf, sizeof(buf));
		if (w < 0 || (r = ct_sip_edit_add(e, n, max, (uint32_t)p, k, buf, (uint32_t)w)) < 0)
			return w < 0 ? w : r;
	}
	/* received= naming the destination: the other side's source. */
	p = param_at(s, len, from, "received=", &limit);
	if (p >= 0 && (k = addr_at(s + p, limit - (uint32_t)p, c->family, false, a)) != 0 &&
		memcmp(a, c->dst, alen) == 0 && memcmp(a, c->osrc, alen) != 0) {
		w = fmt_addr(c->family, c->osrc, false, buf, sizeof(buf));
		if (w < 0 || (r = ct_sip_edit_add(e, n, max, (uint32_t)p, k, buf, (uint32_t)w)) < 0)
			return w < 0 ? w : r;
	}
	/* rport= of the destination's port: the other side's source port. */
	p = param_at(s, len, from, "rport=", &limit);
	if (p >= 0) {
		uint32_t v = dec(s + p, limit - (uint32_t)p, &k);

		if (k != 0 && (uint16_t)v == c->dport && (uint16_t)v != c->osport) {
			w = snprintf(buf, sizeof(buf), "%u", c->osport);
			r = ct_sip_edit_add(e, n, max, (uint32_t)p, k, buf, (uint32_t)w);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int
mod_ct_sip_nat_headers(const uint8_t *s, uint32_t len, const struct mod_ct_sip_conn *c,
	struct mod_ct_edit *e, unsigned int n, unsigned int max)
{
	unsigned int alen;
	uint32_t moff, mlen, at;
	uint8_t addr[16];
	uint16_t port;
	bool request, in_hdr;
	int r;

	if ((s == NULL && len != 0) || c == NULL || e == NULL || n > max ||
		(c->family != FC_AF_INET4 && c->family != FC_AF_INET6))
		return -EINVAL;
	alen = fc_af_addr_len(c->family);
	request = len < 7 || strncasecmp((const char *)s, "SIP/2.0", 7) != 0;
	if (request && request_uri(s, len, c->family, &moff, &mlen, addr, &port) > 0 &&
		(r = map_addr(c, addr, port, moff, mlen, e, &n, max)) < 0)
		return r;
	/* The topmost Via of the transport, if it names this side. */
	at = 0;
	if (ct_sip_header_uri(s, len, &at, c->proto == 6 ? H_VIA_TCP : H_VIA_UDP, c->family, NULL,
		    &moff, &mlen, addr, &port) > 0 &&
		memcmp(addr, request ? c->src : c->dst, alen) == 0 &&
		port == (request ? c->sport : c->dport)) {
		if ((r = map_addr(c, addr, port, moff, mlen, e, &n, max)) < 0 ||
			(r = via_params(s, len, moff + mlen, c, e, &n, max)) < 0)
			return r;
	}
	/* Every Contact. */
	at = 0;
	in_hdr = false;
	while (ct_sip_header_uri(
		       s, len, &at, H_CONTACT, c->family, &in_hdr, &moff, &mlen, addr, &port) > 0)
		if ((r = map_addr(c, addr, port, moff, mlen, e, &n, max)) < 0)
			return r;
	for (unsigned int t = H_FROM; t <= H_TO; t++) {
		at = 0;
		if (ct_sip_header_uri(s, len, &at, t, c->family, NULL, &moff, &mlen, addr, &port) >
				0 &&
			(r = map_addr(c, addr, port, moff, mlen, e, &n, max)) < 0)
			return r;
	}
	return (int)n;
}

/*
 * The first SDP line @p type ("o=" / "c=") from the line after @p from, up
 * to the next "m=": the address after "IN IP4 " / "IN IP6 " on it.
 * @return 1, 0 none, -1 a line without a parsable address.
 */
static int
sdp_line_addr(const uint8_t *s, uint32_t len, uint32_t from, const char *type, uint8_t family,
	uint32_t *moff, uint32_t *mlen)
{
	const char *tag = family == FC_AF_INET6 ? "IN IP6 " : "IN IP4 ";
	uint8_t a[16];

	for (uint32_t o = from; o < len; o++) {
		uint32_t p;

		if (!eol(s[o]))
			continue;
		if (++o >= len)
			break;
		if (s[o - 1] == '\r' && s[o] == '\n' && ++o >= len)
			break;
		if (len - o >= 2 && strncasecmp((const char *)s + o, "m=", 2) == 0)
			break;
		if (len - o < 2 || strncasecmp((const char *)s + o, type, 2) != 0)
			continue;
		for (p = o + 2; p + 7 < len && !eol(s[p]); p++)
			if (memcmp(s + p, tag, 7) == 0)
				break;
		if (p + 7 >= len || eol(s[p]))
			return -1;
		*moff = p + 7;
		*mlen = addr_at(s + p + 7, len - p - 7, family, false, a);
		return *mlen == 0 ? -1 : 1;
	}
	return 0;
}

int
mod_ct_sip_nat_sdp(const uint8_t *s, uint32_t len, uint8_t family, const struct mod_ct_sip_msg *m,
	const struct mod_ct_sip_media_nat *mn, struct mod_ct_edit *e, unsigned int n,
	unsigned int max)
{
	const struct mod_ct_sip_media_nat *last = NULL;
	uint32_t moff, mlen, cl, k;
	int32_t delta = 0;
	unsigned int before;
	char buf[64];
	int r, w;

	if ((s == NULL && len != 0) || m == NULL || (m->n_media != 0 && mn == NULL) || e == NULL ||
		n > max || (family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	if (!m->sdp)
		return (int)n;
	before = n;
	for (unsigned int i = 0; i < m->n_media; i++) {
		const struct mod_ct_sip_media *md = &m->media[i];

		if (mn[i].new_port) {
			w = snprintf(buf, sizeof(buf), "%u", mn[i].port);
			if ((r = ct_sip_edit_add(
				     e, &n, max, md->port_off, md->port_len, buf, (uint32_t)w)) < 0)
				return r;
		}
		if (md->c_len != 0) {
			w = fmt_addr(family, mn[i].addr, false, buf, sizeof(buf));
			if (w < 0 || (r = ct_sip_edit_add(e, &n, max, md->c_off, md->c_len, buf,
					      (uint32_t)w)) < 0)
				return w < 0 ? w : r;
		}
		last = &mn[i];
	}
	/* The session's owner (required) and connection addresses. */
	if (last != NULL) {
		w = fmt_addr(family, last->addr, false, buf, sizeof(buf));
		if (w < 0)
			return w;
		if (sdp_line_addr(s, len, m->sdp_off, "o=", family, &moff, &mlen) != 1)
			return -EBADMSG;
		if ((r = ct_sip_edit_add(e, &n, max, moff, mlen, buf, (uint32_t)w)) < 0)
			return r;
		r = sdp_line_addr(s, len, m->sdp_off, "c=", family, &moff, &mlen);
		if (r < 0)
			return -EBADMSG;
		if (r == 1 && (r = ct_sip_edit_add(e, &n, max, moff, mlen, buf, (uint32_t)w)) < 0)
			return r;
	}
	if (n == before)
		return (int)n;
	/* Content-Length: the description's length once rewritten. */
	for (unsigned int i = 0; i < n; i++)
		if (e[i].off >= m->sdp_off)
			delta += (int32_t)e[i].len_new - (int32_t)e[i].len_old;
	if (ct_sip_header_num(s, len, H_CONTENT_LENGTH, &moff, &mlen, &k) != 1)
		return -EBADMSG;
	cl = (uint32_t)((int32_t)(len - m->sdp_off + 2) + delta);
	w = snprintf(buf, sizeof(buf), "%u", cl);
	if ((r = ct_sip_edit_add(e, &n, max, moff, mlen, buf, (uint32_t)w)) < 0)
		return r;
	return (int)n;
}

int
mod_ct_edit_apply(const uint8_t *data, uint32_t len, const struct mod_ct_edit *e, unsigned int n,
	uint8_t *out, uint32_t size)
{
	uint32_t at = 0, w = 0;

	if ((data == NULL && len != 0) || (e == NULL && n != 0) || out == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (e[i].off < at || (uint32_t)e[i].off + e[i].len_old > len)
			return -EINVAL;
		if (w + (e[i].off - at) + e[i].len_new > size)
			return -ENOSPC;
		memcpy(out + w, data + at, e[i].off - at);
		w += e[i].off - at;
		memcpy(out + w, e[i].text, e[i].len_new);
		w += e[i].len_new;
		at = (uint32_t)e[i].off + e[i].len_old;
	}
	if (w + (len - at) > size)
		return -ENOSPC;
	memcpy(out + w, data + at, len - at);
	return (int)(w + len - at);
}
