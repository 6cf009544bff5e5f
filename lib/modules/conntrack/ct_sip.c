/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_sip.c — the SIP helper's pure part: what Linux's
 * nf_conntrack_sip reads of a SIP message (RFC 3261) carried over UDP: the
 * start line (a request's method, a response's status code), the CSeq
 * header (its number and method), and in the messages that carry a
 * session description (RFC 4566: INVITE, UPDATE, ACK, PRACK and the
 * provisional and success answers to INVITE, UPDATE, PRACK) the media
 * streams it announces: type, port and connection address.
 *
 * Pure and stateless; what the helper makes of it is the module's
 * (ct_helper.c). See conntrack_helper.h.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "ct_priv.h"

static const struct {
	const char *name;
	unsigned int len;
} methods[] = {
	[MOD_CT_SIP_INVITE] = {"INVITE", 6},   [MOD_CT_SIP_ACK] = {"ACK", 3},
	[MOD_CT_SIP_BYE] = {"BYE", 3},         [MOD_CT_SIP_CANCEL] = {"CANCEL", 6},
	[MOD_CT_SIP_REGISTER] = {"REGISTER", 8}, [MOD_CT_SIP_UPDATE] = {"UPDATE", 6},
	[MOD_CT_SIP_PRACK] = {"PRACK", 5},     [MOD_CT_SIP_OPTIONS] = {"OPTIONS", 7},
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

/* The method named at @p s (followed by @p term; 0: a space then a letter). */
static unsigned int
method_at(const uint8_t *s, uint32_t len, bool request)
{
	for (unsigned int m = 1; m < MOD_CT_SIP_METHODS; m++) {
		uint32_t l = methods[m].len;

		if (len < l + (request ? 2 : 0) || strncasecmp((const char *)s, methods[m].name, l))
			continue;
		if (request && (s[l] != ' ' || !is_alpha(s[l + 1])))
			continue;
		return m;
	}
	return MOD_CT_SIP_OTHER;
}

/* Decimal digits at @p s (at most 10): their value, *n their count. */
static uint32_t
digits(const uint8_t *s, uint32_t len, uint32_t *n)
{
	uint64_t v = 0;
	uint32_t i = 0;

	while (i < len && i < 10 && is_digit(s[i]))
		v = v * 10 + (uint32_t)(s[i++] - '0');
	*n = i;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * The start of the line after the one containing @p off (CR LF, LF or CR
 * end a line), or @p len if none.
 */
static uint32_t
next_line(const uint8_t *s, uint32_t len, uint32_t off)
{
	while (off < len && s[off] != '\r' && s[off] != '\n')
		off++;
	if (off >= len)
		return len;
	if (s[off] == '\r' && off + 1 < len && s[off + 1] == '\n')
		off++;
	return off + 1;
}

/*
 * The CSeq header's value: the offset of its number in @p s, or -1. As
 * Linux: at a line start (not a continuation), "CSeq", blanks, ':', blanks.
 */
static int64_t
cseq_at(const uint8_t *s, uint32_t len)
{
	for (uint32_t o = next_line(s, len, 0); o < len; o = next_line(s, len, o)) {
		uint32_t p = o + 4;

		if (s[o] == '\r' || s[o] == '\n')
			return -1; /* the blank line: the headers ended */
		if (len - o < 4 || strncasecmp((const char *)s + o, "CSeq", 4) != 0)
			continue;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		if (p >= len || s[p] != ':')
			continue;
		p++;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		return p;
	}
	return -1;
}

/*
 * An address of @p family at @p s (up to the first character no address
 * has): its length, 0 if none.
 */
static uint32_t
addr_at(const uint8_t *s, uint32_t len, uint8_t family, uint8_t *addr)
{
	char buf[48];
	uint32_t n = 0;

	while (n < len && n < sizeof(buf) - 1 &&
		(is_digit(s[n]) || s[n] == '.' ||
			(family == FC_AF_INET6 && (s[n] == ':' || (s[n] >= 'a' && s[n] <= 'f') ||
							  (s[n] >= 'A' && s[n] <= 'F')))))
		n++;
	if (n == 0 || n == sizeof(buf) - 1)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return inet_pton(family == FC_AF_INET6 ? AF_INET6 : AF_INET, buf, addr) == 1 ? n : 0;
}

/*
 * The first "c=" line of an SDP section, lines from @p off up to the next
 * "m=" line: its address of @p family ("IN IP4 " / "IN IP6 " on that line),
 * where its text is (*aoff, *alen).
 * @return 1 found, 0 none (or not parsable: as Linux, then none).
 */
static int
sdp_conn(const uint8_t *s, uint32_t len, uint32_t off, uint8_t family, uint8_t *addr,
	uint16_t *aoff, uint16_t *alen)
{
	const char *tag = family == FC_AF_INET6 ? "IN IP6 " : "IN IP4 ";

	for (uint32_t o = next_line(s, len, off); o < len; o = next_line(s, len, o)) {
		uint32_t p;

		if (len - o >= 2 && strncasecmp((const char *)s + o, "m=", 2) == 0)
			return 0;
		if (len - o < 2 || strncasecmp((const char *)s + o, "c=", 2) != 0)
			continue;
		for (p = o + 2; p + 7 <= len && s[p] != '\r' && s[p] != '\n'; p++) {
			uint32_t n;

			if (memcmp(s + p, tag, 7) != 0)
				continue;
			n = addr_at(s + p + 7, len - p - 7, family, addr);
			*aoff = (uint16_t)(p + 7);
			*alen = (uint16_t)n;
			return n != 0 ? 1 : 0;
		}
		return 0;
	}
	return 0;
}

/* The SDP body's media streams (Linux's process_sdp). @return 0 or -EBADMSG. */
static int
sdp_media(const uint8_t *s, uint32_t len, uint8_t family, struct mod_ct_sip_msg *m)
{
	static const char *const types[] = {NULL, "audio ", "video ", "image "};
	uint8_t caddr[16];
	uint16_t coff, clen;
	bool have_c;
	uint32_t v;

	/* The session description starts at a "v=" line. */
	for (v = next_line(s, len, 0); v < len; v = next_line(s, len, v))
		if (len - v >= 2 && strncasecmp((const char *)s + v, "v=", 2) == 0)
			break;
	if (v >= len)
		return 0;
	m->sdp = true;
	m->sdp_off = (uint16_t)(v + 2);
	have_c = sdp_conn(s, len, v, family, caddr, &coff, &clen) == 1;
	for (uint32_t o = next_line(s, len, v); o < len && m->n_media < MOD_CT_SIP_MEDIA_MAX;
		o = next_line(s, len, o)) {
		struct mod_ct_sip_media *md = &m->media[m->n_media];
		unsigned int t;
		uint32_t port, n;

		if (len - o < 2 || strncasecmp((const char *)s + o, "m=", 2) != 0)
			continue;
		for (t = 1; t < RTE_DIM(types); t++)
			if (len - o - 2 >= 6 && memcmp(s + o + 2, types[t], 6) == 0)
				break;
		if (t == RTE_DIM(types))
			continue; /* another media type: not expected */
		port = digits(s + o + 8, len - o - 8, &n);
		if (port == 0)
			continue; /* an inactive stream */
		if (port < 1024 || port > 65535)
			return -EBADMSG;
		/* The stream's own c= line, else the session's. */
		memset(md, 0, sizeof(*md));
		if (sdp_conn(s, len, o, family, md->addr, &md->c_off, &md->c_len) != 1) {
			if (!have_c)
				return -EBADMSG;
			memcpy(md->addr, caddr, sizeof(caddr));
			md->c_off = md->c_len = 0;
		}
		md->type = (uint8_t)t;
		md->port = (uint16_t)port;
		md->port_off = (uint16_t)(o + 8);
		md->port_len = (uint16_t)n;
		m->n_media++;
	}
	return 0;
}

int
mod_ct_sip_parse(const uint8_t *data, uint32_t len, uint8_t family, struct mod_ct_sip_msg *m)
{
	uint32_t n, code;
	int64_t c;
	bool sdp;

	if ((data == NULL && len != 0) || m == NULL ||
		(family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (len >= 8 && strncasecmp((const char *)data, "SIP/2.0 ", 8) == 0) {
		m->response = true;
		code = digits(data + 8, len - 8, &n);
		if (code == 0 || code > 999)
			return -EBADMSG;
		m->status = (uint16_t)code;
	} else {
		m->method = (uint8_t)method_at(data, len, true);
		if (m->method == MOD_CT_SIP_OTHER)
			return 0;
	}
	c = cseq_at(data, len);
	if (c < 0)
		return -EBADMSG;
	m->cseq = digits(data + c, len - (uint32_t)c, &n);
	if (n == 0)
		return -EBADMSG;
	if (m->response) {
		/* The answered method: after the number and one character. */
		uint32_t at = (uint32_t)c + n + 1;

		m->method = at < len ? (uint8_t)method_at(data + at, len - at, false) :
				       (uint8_t)MOD_CT_SIP_OTHER;
		sdp = m->status >= 100 && m->status <= 299 &&
		      (m->method == MOD_CT_SIP_INVITE || m->method == MOD_CT_SIP_UPDATE ||
			      m->method == MOD_CT_SIP_PRACK);
	} else {
		sdp = m->method == MOD_CT_SIP_INVITE || m->method == MOD_CT_SIP_UPDATE ||
		      m->method == MOD_CT_SIP_ACK || m->method == MOD_CT_SIP_PRACK;
	}
	if (sdp && sdp_media(data, len, family, m) < 0)
		return -EBADMSG;
	return 1;
}
