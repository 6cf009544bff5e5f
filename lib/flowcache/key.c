/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/key.c — the 7-tuple keys: layout checks, the reverse key and
 * the text form used by the shell, config files and logs.
 *
 * Pure code: no EAL, no allocation, so it also runs under ASan/UBSan and the
 * fuzzers. Addresses and numbers are read and written by lib/lex. Text is the slow path only; the fast path never formats or parses.
 *
 * Text grammar (whitespace between tokens is free, case-insensitive words):
 *
 *   key      := proto endpoint "->" endpoint { field }
 *   proto    := "tcp" | "udp" | "sctp" | "icmp" | "icmpv6" | "icmp6"
 *             | "proto" NUMBER                        (0..255)
 *   endpoint := IPV4 ":" PORT | "[" IPV6 "]" ":" PORT (PORT 0..65535)
 *   field    := ("src_local" | "dst_local" | "src_forged") "=" ("0" | "1")
 *             | "in_port" "=" NUMBER                  (0..65535)
 *
 * Errors report the offset of the token at fault: the protocol word, the
 * number after "proto", the endpoint (bad address, or the second endpoint
 * when families differ), the port, the place where ":" or "->" or "=" was
 * expected, a field name that is unknown or repeated, a bad field value, or
 * the first character of trailing garbage.
 */

#include <netinet/in.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>

#include "flowcache.h"
#include "lex.h"

static_assert(FC_AF_INET4 == LEX_AF_INET4 && FC_AF_INET6 == LEX_AF_INET6,
	"flowcache and lex name the families alike");

/* The layout is part of the contract: key fields first, padding last. */
static_assert(sizeof(struct fc_key_v4) == 16, "IPv4 key must be 16 bytes");
static_assert(sizeof(struct fc_key_v6) == 48, "IPv6 key must be 48 bytes");
static_assert(offsetof(struct fc_key_v4, src) == 0, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, dst) == 4, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, sport) == 8, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, dport) == 10, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, proto) == 12, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, flags) == 13, "v4 key fields first");
static_assert(offsetof(struct fc_key_v4, in_port) == 14, "v4 input port in the last two bytes");
static_assert(offsetof(struct fc_key_v6, src) == 0, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, dst) == 16, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, sport) == 32, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, dport) == 34, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, proto) == 36, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, flags) == 37, "v6 key fields first");
static_assert(offsetof(struct fc_key_v6, in_port) == 38, "v6 input port after the tuple");
static_assert(offsetof(struct fc_key_v6, pad) == 40, "v6 padding last");
static_assert(offsetof(struct fc_key, v4) == 0 && offsetof(struct fc_key, v6) == 0,
	"keys start struct fc_key");

/*
 * Longest text fc_key_format() can produce, without the NUL:
 * "proto 255" + " [" ADDR "]:65535" + " -> " + "[" ADDR "]:65535" +
 * " src_local=1 dst_local=1" + " in_port=65535", ADDR at most
 * LEX_ADDR_STRLEN - 1 characters.
 */
#define KEY_TEXT_MAX (9 + 2 * (1 + (LEX_ADDR_STRLEN - 1) + 1 + 6) + 1 + 4 + 24 + 14)
static_assert(KEY_TEXT_MAX < FC_KEY_STRLEN, "FC_KEY_STRLEN too small for the key text");

/** Named protocols; the first name of a number is the one printed. */
static const struct {
	const char *name;
	uint8_t proto;
} key_protos[] = {
	{"tcp", IPPROTO_TCP},
	{"udp", IPPROTO_UDP},
	{"sctp", IPPROTO_SCTP},
	{"icmp", IPPROTO_ICMP},
	{"icmpv6", IPPROTO_ICMPV6},
	{"icmp6", IPPROTO_ICMPV6},
};

static const char *
key_proto_name(uint8_t proto)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(key_protos); i++)
		if (key_protos[i].proto == proto)
			return key_protos[i].name;
	return NULL;
}

static uint8_t
key_flags_swapped(uint8_t flags)
{
	uint8_t out = flags & ~(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL | FC_KEY_F_SRC_FORGED);

	/* A forged local source is still this host's address: the reverse's destination. */
	if (flags & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED))
		out |= FC_KEY_F_DST_LOCAL;
	if (flags & FC_KEY_F_DST_LOCAL)
		out |= FC_KEY_F_SRC_LOCAL;
	return out;
}

/* ICMP in IPv4 or ICMPv6 in IPv6: the protocols whose keys hold id, type and code. */
static bool
key_is_icmp(const struct fc_key *k)
{
	uint8_t proto = fc_key_proto(k);

	return (k->family == FC_AF_INET4 && proto == IPPROTO_ICMP) ||
	       (k->family == FC_AF_INET6 && proto == IPPROTO_ICMPV6);
}

void
fc_key_reverse(const struct fc_key *k, struct fc_key *out)
{
	RTE_ASSERT(k != NULL && out != NULL && k != out);

	memset(out, 0, sizeof(*out));
	out->family = k->family;
	if (fc_af_index(k->family) < 0)
		return;
	memcpy(fc_key_src_w(out), fc_key_dst(k), fc_af_addr_len(k->family));
	memcpy(fc_key_dst_w(out), fc_key_src(k), fc_af_addr_len(k->family));
	fc_key_set_proto(out, fc_key_proto(k));
	if (unlikely(key_is_icmp(k))) {
		uint16_t sport = fc_key_sport(k), dport = fc_key_dport(k);
		uint8_t *tc = (uint8_t *)&dport; /* network order: type, code */

		if (fc_icmp_has_id(k->family, tc[0]))
			tc[0] = fc_icmp_reply_type(k->family, tc[0]);
		else
			sport ^= dport;
		fc_key_set_ports(out, sport, dport);
	} else {
		fc_key_set_ports(out, fc_key_dport(k), fc_key_sport(k));
	}
	fc_key_set_flags(out, key_flags_swapped(fc_key_flags(k)));
	fc_key_set_in_port(out, fc_key_in_port(k));
}

/* Write "ADDR:PORT" or "[ADDR]:PORT" into buf (at least 2 * LEX_ADDR_STRLEN). */
static int
key_format_endpoint(unsigned int family, const uint8_t *addr, uint16_t port_be, char *buf,
	size_t len)
{
	char a[LEX_ADDR_STRLEN];

	if (lex_addr_format(family, addr, a, sizeof(a)) < 0)
		return -EINVAL;
	if (family == FC_AF_INET6)
		return snprintf(buf, len, "[%s]:%u", a, rte_be_to_cpu_16(port_be));
	return snprintf(buf, len, "%s:%u", a, rte_be_to_cpu_16(port_be));
}

int
fc_key_format(const struct fc_key *k, char *buf, size_t len)
{
	char src[2 * LEX_ADDR_STRLEN], dst[2 * LEX_ADDR_STRLEN], proto[16];
	const char *pname;
	uint8_t p, flags;
	int n;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	if (k == NULL || buf == NULL || fc_af_index(k->family) < 0)
		return -EINVAL;
	p = fc_key_proto(k);
	flags = fc_key_flags(k);
	if (key_format_endpoint(k->family, fc_key_src(k), fc_key_sport(k), src, sizeof(src)) < 0 ||
		key_format_endpoint(k->family, fc_key_dst(k), fc_key_dport(k), dst, sizeof(dst)) < 0)
		return -EINVAL;

	pname = key_proto_name(p);
	if (pname != NULL)
		snprintf(proto, sizeof(proto), "%s", pname);
	else
		snprintf(proto, sizeof(proto), "proto %u", p);

	n = snprintf(buf, len, "%s %s -> %s src_local=%u dst_local=%u in_port=%u%s", proto, src,
		dst, (flags & FC_KEY_F_SRC_LOCAL) ? 1u : 0u, (flags & FC_KEY_F_DST_LOCAL) ? 1u : 0u,
		fc_key_in_port(k), (flags & FC_KEY_F_SRC_FORGED) ? " src_forged=1" : "");
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}

/* ------------------------------------------------------------------------ */
/* Parser                                                                    */
/* ------------------------------------------------------------------------ */

static size_t
skip_ws(const char *s, size_t p)
{
	while (s[p] != '\0' && isspace((unsigned char)s[p]))
		p++;
	return p;
}

/* Words: protocol names, "proto", field names. */
static bool
is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Numbers and IPv4 addresses are read as a run of these, then validated. */
static bool
is_num_char(char c)
{
	return isalnum((unsigned char)c);
}

static bool
is_v4_char(char c)
{
	return isalnum((unsigned char)c) || c == '.';
}

static size_t
span(const char *s, size_t p, bool (*ok)(char))
{
	size_t n = 0;

	while (s[p + n] != '\0' && ok(s[p + n]))
		n++;
	return n;
}

static bool
word_is(const char *s, size_t p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(s + p, w, n) == 0;
}

/*
 * Read a decimal number at *pos, no larger than max. On success *pos moves
 * past it; on error *pos is left at the number's first character.
 */
static int
parse_number(const char *s, size_t *pos, uint32_t max, uint32_t *val)
{
	size_t n = span(s, *pos, is_num_char);

	if (n == 0 || lex_u32(s + *pos, n, max, LEX_NUM_DEC, val, NULL) != 0)
		return -EINVAL;
	*pos += n;
	return 0;
}

static int
parse_proto(const char *s, size_t *pos, uint8_t *proto)
{
	size_t p = *pos, n = span(s, p, is_word_char);
	uint32_t v;
	unsigned int i;

	if (n == 0)
		return -EINVAL;
	if (word_is(s, p, n, "proto")) {
		p = skip_ws(s, p + n);
		*pos = p;
		if (parse_number(s, pos, UINT8_MAX, &v) < 0)
			return -EINVAL;
		*proto = (uint8_t)v;
		return 0;
	}
	for (i = 0; i < RTE_DIM(key_protos); i++) {
		if (word_is(s, p, n, key_protos[i].name)) {
			*proto = key_protos[i].proto;
			*pos = p + n;
			return 0;
		}
	}
	return -EINVAL;
}

/* An endpoint: the address in network order (4 or 16 bytes) and the port. */
struct key_endpoint {
	int family;
	uint8_t addr[16];
	uint16_t port;
};

/*
 * Read "a.b.c.d:port" or "[v6]:port" at *pos. On error *pos is the endpoint
 * for a bad address, the spot where ':' was expected, or the port.
 */
static int
parse_endpoint(const char *s, size_t *pos, struct key_endpoint *ep)
{
	size_t p = *pos, n;
	uint32_t port;
	uint8_t family;

	if (s[p] == '[') {
		p++;
		n = 0;
		while (s[p + n] != '\0' && s[p + n] != ']' && !isspace((unsigned char)s[p + n]))
			n++;
		if (s[p + n] != ']' || lex_addr(s + p, n, &family, ep->addr, NULL) != 0 ||
			family != FC_AF_INET6)
			return -EINVAL;
		ep->family = FC_AF_INET6;
		p += n + 1;
	} else {
		n = span(s, p, is_v4_char);
		if (n == 0 || lex_addr(s + p, n, &family, ep->addr, NULL) != 0 ||
			family != FC_AF_INET4)
			return -EINVAL;
		ep->family = FC_AF_INET4;
		p += n;
	}

	if (s[p] != ':') {
		*pos = p;
		return -EINVAL;
	}
	p++;
	*pos = p;
	if (parse_number(s, pos, UINT16_MAX, &port) < 0)
		return -EINVAL;
	ep->port = (uint16_t)port;
	return 0;
}

/* The optional fields: "src_local=B", "dst_local=B", "in_port=N", up to the end. */
struct key_fields {
	uint8_t flags;
	uint16_t in_port;
};

static int
parse_fields(const char *s, size_t *pos, struct key_fields *kf)
{
	bool seen_src = false, seen_dst = false, seen_port = false, seen_forged = false;
	size_t p = *pos, n;
	uint32_t v, max;
	uint8_t bit;

	for (;;) {
		p = skip_ws(s, p);
		*pos = p;
		if (s[p] == '\0')
			return 0;
		n = span(s, p, is_word_char);
		bit = 0;
		max = 1;
		if (word_is(s, p, n, "src_local") && !seen_src) {
			seen_src = true;
			bit = FC_KEY_F_SRC_LOCAL;
		} else if (word_is(s, p, n, "dst_local") && !seen_dst) {
			seen_dst = true;
			bit = FC_KEY_F_DST_LOCAL;
		} else if (word_is(s, p, n, "src_forged") && !seen_forged) {
			seen_forged = true;
			bit = FC_KEY_F_SRC_FORGED;
		} else if (word_is(s, p, n, "in_port") && !seen_port) {
			seen_port = true;
			max = UINT16_MAX;
		} else {
			return -EINVAL; /* unknown, repeated, or not a word at all */
		}
		p = skip_ws(s, p + n);
		if (s[p] != '=') {
			*pos = p;
			return -EINVAL;
		}
		p = skip_ws(s, p + 1);
		*pos = p;
		if (parse_number(s, pos, max, &v) < 0)
			return -EINVAL;
		p = *pos;
		if (bit == 0)
			kf->in_port = (uint16_t)v;
		else if (v)
			kf->flags |= bit;
	}
}

int
fc_key_parse(const char *s, struct fc_key *k, size_t *errpos)
{
	struct key_fields kf = {0, 0};
	struct key_endpoint src, dst;
	struct fc_key key;
	uint8_t proto = 0;
	size_t pos = 0, dst_pos;

	if (s == NULL || k == NULL)
		goto fail;

	pos = skip_ws(s, 0);
	if (parse_proto(s, &pos, &proto) < 0)
		goto fail;

	pos = skip_ws(s, pos);
	if (parse_endpoint(s, &pos, &src) < 0)
		goto fail;

	pos = skip_ws(s, pos);
	if (s[pos] != '-' || s[pos + 1] != '>')
		goto fail;
	pos = skip_ws(s, pos + 2);

	dst_pos = pos;
	if (parse_endpoint(s, &pos, &dst) < 0)
		goto fail;
	if (dst.family != src.family) {
		pos = dst_pos;
		goto fail;
	}

	if (parse_fields(s, &pos, &kf) < 0)
		goto fail;

	memset(&key, 0, sizeof(key));
	key.family = (uint8_t)src.family;
	memcpy(fc_key_src_w(&key), src.addr, fc_af_addr_len(key.family));
	memcpy(fc_key_dst_w(&key), dst.addr, fc_af_addr_len(key.family));
	fc_key_set_ports(&key, rte_cpu_to_be_16(src.port), rte_cpu_to_be_16(dst.port));
	fc_key_set_proto(&key, proto);
	fc_key_set_flags(&key, kf.flags);
	fc_key_set_in_port(&key, kf.in_port);
	*k = key;
	return 0;

fail:
	if (errpos != NULL)
		*errpos = pos;
	return -EINVAL;
}
