/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_nat.c — the NAT table (lib/modules/nat/nat_*.c
 * and mod_nat_apply() in nat.h), pure: no EAL.
 *
 * Real frames are built with pkt_build and parsed with fc_parse(). Every
 * rewritten frame is checked twice: byte for byte against the frame built
 * from scratch with the translated tuple (pkt_build computes canonical
 * checksums), and every checksum against this file's own full recompute.
 * Replies built for the reply key must translate back to exactly the
 * original endpoints. A seeded random sweep covers 10k packets and targets,
 * with the 0x0000/0xffff checksum corners forced. The port allocator is
 * checked for unique reply tuples, port keeping, exhaustion and reuse.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csum_ref.h"
#include "pkt_build.h"
#include "nat_test.h"

#define FRAME_MAX   2048
#define PAYLOAD_MAX 256

/* ------------------------------------------------------------------------ */
/* Packets                                                                   */
/* ------------------------------------------------------------------------ */

/* What to build. Addresses network order, ports host order. */
struct spec {
	uint8_t family;
	uint8_t proto; /* P_TCP, P_UDP, P_SCTP, P_ICMP/P_ICMPV6 (echo), P_GRE */
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport; /* echo: the identifier */
	uint16_t dport;
	bool reply;	   /* echo reply rather than request */
	uint8_t icmp_type; /* non-zero: this ICMP type (not echo), code 0 */
	bool nocsum;	   /* UDP over IPv4 without checksum */
	uint16_t cov;	   /* UDP-Lite checksum coverage (0: all) */
	bool opts;	   /* IPv4 options / IPv6 destination-options header */
	bool vlan;
	uint16_t ip_id;
	uint32_t plen;
	uint8_t payload[PAYLOAD_MAX];
};

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The UDP-Lite checksum of a built frame (RFC 3828): the pseudo-header with
 * the datagram's length, then the covered bytes (the coverage field, 0:
 * all). Computed here in full, independently of mod_nat.
 */
static void
udplite_csum(uint8_t *buf, uint32_t len)
{
	uint32_t n, cov;
	uint8_t *l4;
	struct fc_pkt p;
	uint16_t c;

	assert_int_equal(fc_parse(buf, len, &p), FC_PARSE_OK);
	l4 = buf + p.l4_off;
	n = p.l3_off + p.ip_len - p.l4_off;
	cov = (uint32_t)l4[4] << 8 | l4[5];
	if (cov == 0 || cov > n)
		cov = n;
	l4[6] = l4[7] = 0;
	c = (uint16_t)~csum_ref_fold(
		csum_ref_add(csum_ref_pseudo(buf + p.l3_off, P_UDPLITE, n), l4, cov));
	if (c == 0)
		c = 0xffff;
	l4[6] = (uint8_t)(c >> 8);
	l4[7] = (uint8_t)c;
}

/*
 * The DCCP checksum of a built frame (RFC 4340 9.1): the pseudo-header,
 * then the whole packet (coverage 0). Computed here in full.
 */
static void
dccp_csum(uint8_t *buf, uint32_t len)
{
	uint32_t n;
	uint8_t *l4;
	struct fc_pkt p;
	uint16_t c;

	assert_int_equal(fc_parse(buf, len, &p), FC_PARSE_OK);
	l4 = buf + p.l4_off;
	n = p.l3_off + p.ip_len - p.l4_off;
	l4[6] = l4[7] = 0;
	c = (uint16_t)~csum_ref_fold(
		csum_ref_add(csum_ref_pseudo(buf + p.l3_off, P_DCCP, n), l4, n));
	l4[6] = (uint8_t)(c >> 8);
	l4[7] = (uint8_t)c;
}

static int
build(const struct spec *s, uint8_t *buf, uint32_t cap)
{
	static const uint8_t opts[8] = {1, 1, 1, 1, 1, 1, 1, 0};
	struct pb b;
	int len;

	pb_init(&b, buf, cap);
	pb_eth(&b, NULL, NULL);
	if (s->vlan)
		pb_vlan(&b, PB_TPID_8021Q, 42);
	if (s->family == FC_AF_INET4) {
		struct pb_ipv4 ip = {
			.src = be32(s->src),
			.dst = be32(s->dst),
			.id = s->ip_id,
			.ttl = 61,
			.opts = s->opts ? opts : NULL,
			.opts_len = s->opts ? sizeof(opts) : 0,
		};
		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip = {.tclass = 3, .flow = 0x12345, .hlim = 60};

		memcpy(ip.src, s->src, 16);
		memcpy(ip.dst, s->dst, 16);
		pb_ipv6(&b, &ip);
		if (s->opts)
			pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	}
	switch (s->proto) {
	case P_TCP:
		pb_tcp(&b, s->sport, s->dport, PB_TCP_ACK, 1000, 2000, 4);
		break;
	case P_UDP:
		pb_udp(&b, s->sport, s->dport);
		break;
	case P_SCTP:
		pb_sctp(&b, s->sport, s->dport, 0xdeadbeef);
		break;
	case P_UDPLITE: {
		uint8_t h[8] = {(uint8_t)(s->sport >> 8), (uint8_t)s->sport, (uint8_t)(s->dport >> 8),
			(uint8_t)s->dport, (uint8_t)(s->cov >> 8), (uint8_t)s->cov, 0, 0};

		pb_l4_raw(&b, P_UDPLITE, h, sizeof(h));
		break;
	}
	case P_DCCP: {
		/* A DCCP-Data packet, 48-bit sequence numbers: data offset 4, X=1. */
		uint8_t h[16] = {(uint8_t)(s->sport >> 8), (uint8_t)s->sport,
			(uint8_t)(s->dport >> 8), (uint8_t)s->dport, 4, 0, 0, 0, 2 << 1 | 1, 0, 0, 0,
			0, 0, 0x12, 0x34};

		pb_l4_raw(&b, P_DCCP, h, sizeof(h));
		break;
	}
	case P_ICMP:
		/* a timestamp, information or address mask query's reply is the next type */
		pb_icmp(&b,
			s->icmp_type ? (uint8_t)(s->icmp_type + (s->reply && s->icmp_type >= 13 &&
								 s->icmp_type <= 17 && (s->icmp_type & 1))) :
			s->reply     ? 0 :
				       8,
			0, s->sport, 7);
		break;
	case P_ICMPV6:
		pb_icmp6(&b, s->icmp_type ? s->icmp_type : s->reply ? 129 : 128, 0, s->sport, 7);
		break;
	default:
		pb_l4_raw(&b, s->proto, NULL, 0);
		break;
	}
	pb_payload(&b, s->payload, s->plen);
	len = pb_finish(&b);
	assert_true(len > 0);
	if (s->nocsum) {
		buf[b.l4_off + 6] = 0;
		buf[b.l4_off + 7] = 0;
	}
	if (s->proto == P_UDPLITE)
		udplite_csum(buf, (uint32_t)len);
	if (s->proto == P_DCCP)
		dccp_csum(buf, (uint32_t)len);
	return len;
}

/* @p tmpl with the addresses and ports of key @p k. */
static void
spec_from_key(const struct spec *tmpl, const struct fc_key *k, bool reply, struct spec *out)
{
	*out = *tmpl;
	out->reply = reply;
	if (k->family == FC_AF_INET4) {
		memcpy(out->src, &k->v4.src, 4);
		memcpy(out->dst, &k->v4.dst, 4);
		out->sport = ntohs(k->v4.sport);
		out->dport = ntohs(k->v4.dport);
	} else {
		memcpy(out->src, k->v6.src, 16);
		memcpy(out->dst, k->v6.dst, 16);
		out->sport = ntohs(k->v6.sport);
		out->dport = ntohs(k->v6.dport);
	}
}

static void
parse_ok(const uint8_t *buf, uint32_t len, struct fc_pkt *pkt)
{
	enum fc_parse_result r = fc_parse(buf, len, pkt);

	assert_true(r == FC_PARSE_OK || r == FC_PARSE_FRAG_FIRST || r == FC_PARSE_FRAG_LATER);
}

/* Keys equal field by field (padding aside). */
static void
assert_key_equal(const struct fc_key *a, const struct fc_key *b)
{
	char ta[FC_KEY_STRLEN], tb[FC_KEY_STRLEN];

	assert_true(fc_key_format(a, ta, sizeof(ta)) > 0);
	assert_true(fc_key_format(b, tb, sizeof(tb)) > 0);
	assert_string_equal(ta, tb);
	assert_memory_equal(&a->v6, &b->v6, a->family == FC_AF_INET4 ? 12 : 44);
}

/* Rewrite a whole frame with slot @p slot. */
static int
apply_frame(const struct mod_nat *nat, uint32_t slot, uint8_t *buf, uint32_t len)
{
	struct fc_pkt pkt;

	parse_ok(buf, len, &pkt);
	return mod_nat_apply(nat, slot, buf + pkt.l3_off, len - pkt.l3_off, &pkt);
}

/* ------------------------------------------------------------------------ */
/* Reference checksums (common/csum_ref.c, independent of mod_nat)           */
/* ------------------------------------------------------------------------ */

static unsigned long ref_checks;

/* Checksum of @p len bytes at @p p with the 16-bit field at @p off taken as 0. */
static uint16_t
ref_csum(uint32_t sum, const uint8_t *p, uint32_t len, uint32_t off)
{
	sum = csum_ref_add(sum, p, off);
	sum = csum_ref_add(sum, p + off + 2, len - off - 2);
	return (uint16_t)~csum_ref_fold(sum);
}

static uint32_t
ref_crc32c(const uint8_t *p, uint32_t len)
{
	uint32_t crc = ~0u, i, k;

	for (i = 0; i < len; i++) {
		uint8_t byte = (i >= 8 && i < 12) ? 0 : p[i];

		for (k = 0; k < 8; k++) {
			uint32_t bit = (crc ^ (byte >> k)) & 1;

			crc = (crc >> 1) ^ (bit ? 0x82f63b78u : 0);
		}
	}
	return ~crc;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Check every checksum of a frame against a full recompute. A UDP/IPv4
 * checksum of 0 is accepted only with @p nocsum. Returns the L4 checksum
 * field (or 0) for corner-case accounting.
 */
static uint16_t
check_csums(const uint8_t *buf, uint32_t len, bool nocsum)
{
	const uint8_t *l3, *l4;
	struct fc_pkt pkt;
	uint32_t l4len, pseudo, ihl;
	uint8_t proto;
	uint16_t exp, got;

	parse_ok(buf, len, &pkt);
	l3 = buf + pkt.l3_off;
	if (pkt.key.family == FC_AF_INET4) {
		ihl = (uint32_t)(l3[0] & 0x0f) * 4;
		assert_int_equal(get16(l3 + 10), ref_csum(0, l3, ihl, 10));
		ref_checks++;
		proto = pkt.key.v4.proto;
		pseudo = csum_ref_add(0, l3 + 12, 8);
	} else {
		proto = pkt.key.v6.proto;
		pseudo = csum_ref_add(0, l3 + 8, 32);
	}
	if (pkt.frag != FC_FRAG_NONE || pkt.l4_off == 0)
		return 0; /* the L4 checksum covers the whole datagram */
	l4 = buf + pkt.l4_off;
	l4len = pkt.l3_off + pkt.ip_len - pkt.l4_off;
	pseudo += proto + l4len;
	switch (proto) {
	case P_TCP:
		exp = ref_csum(pseudo, l4, l4len, 16);
		got = get16(l4 + 16);
		break;
	case P_UDP:
		got = get16(l4 + 6);
		if (got == 0 && pkt.key.family == FC_AF_INET4) {
			assert_true(nocsum);
			return 0;
		}
		assert_false(nocsum);
		exp = ref_csum(pseudo, l4, l4len, 6);
		if (exp == 0)
			exp = 0xffff;
		break;
	case P_DCCP:
		exp = ref_csum(pseudo, l4, l4len, 6);
		got = get16(l4 + 6);
		break;
	case P_UDPLITE: {
		uint32_t cov = get16(l4 + 4);

		got = get16(l4 + 6);
		assert_int_not_equal(got, 0); /* mandatory */
		exp = ref_csum(pseudo, l4, cov == 0 ? l4len : cov, 6);
		if (exp == 0)
			exp = 0xffff;
		break;
	}
	case P_ICMP:
		if (pkt.key.family != FC_AF_INET4)
			return 0;
		exp = ref_csum(0, l4, l4len, 2);
		got = get16(l4 + 2);
		break;
	case P_ICMPV6:
		exp = ref_csum(pseudo, l4, l4len, 2);
		got = get16(l4 + 2);
		break;
	case P_SCTP: {
		uint32_t crc = ref_crc32c(l4, l4len);

		assert_int_equal(l4[8] | l4[9] << 8 | l4[10] << 16 | (uint32_t)l4[11] << 24, crc);
		ref_checks++;
		return 0;
	}
	default:
		return 0;
	}
	assert_int_equal(got, exp);
	ref_checks++;
	return got;
}

/* ------------------------------------------------------------------------ */
/* Table helpers                                                             */
/* ------------------------------------------------------------------------ */

static void
spec_init(struct spec *s, uint8_t family, uint8_t proto, const char *src, uint16_t sport,
	const char *dst, uint16_t dport)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	s->proto = proto;
	addr_parse(family, src, s->src);
	addr_parse(family, dst, s->dst);
	s->sport = sport;
	s->dport = (proto == P_ICMP || proto == P_ICMPV6) ? sport : dport;
	s->ip_id = 0x4242;
	s->plen = 37;
	for (uint32_t i = 0; i < s->plen; i++)
		s->payload[i] = (uint8_t)(i * 7 + 3);
}

static struct fc_key
spec_key(const struct spec *s)
{
	uint8_t buf[FRAME_MAX];
	struct fc_pkt pkt;
	int len = build(s, buf, sizeof(buf));

	parse_ok(buf, (uint32_t)len, &pkt);
	return pkt.key;
}

static int
bind_spec(struct mod_nat *nat, const struct spec *s, const struct rule_nat *dnat,
	const struct rule_nat *snat, const uint8_t *masq, struct mod_nat_binding_result *res)
{
	struct fc_key k = spec_key(s);

	return mod_nat_bind(nat, &k, dnat, snat, masq, res);
}

/*
 * The full check of one binding: the packet of @p s rewritten with the
 * forward slot equals the packet built for the translated key, checksums
 * agree with the reference; a reply built for the reply key comes back as
 * the exact reverse of the original. Returns the forward L4 checksum.
 */
static uint16_t
roundtrip(const struct mod_nat *nat, const struct spec *s, const struct mod_nat_binding_result *res)
{
	uint8_t pkt[FRAME_MAX], exp[FRAME_MAX];
	struct spec t, r;
	struct fc_key rev;
	struct fc_pkt p;
	int len, elen;
	uint16_t c;

	len = build(s, pkt, sizeof(pkt));
	check_csums(pkt, (uint32_t)len, s->nocsum);
	parse_ok(pkt, (uint32_t)len, &p);
	assert_key_equal(&p.key, &res->orig);

	/* forward */
	assert_int_equal(apply_frame(nat, res->fwd_slot, pkt, (uint32_t)len), 0);
	c = check_csums(pkt, (uint32_t)len, s->nocsum);
	spec_from_key(s, &res->fwd, s->reply, &t);
	elen = build(&t, exp, sizeof(exp));
	assert_int_equal(len, elen);
	assert_memory_equal(pkt, exp, (size_t)len);
	parse_ok(pkt, (uint32_t)len, &p);
	assert_key_equal(&p.key, &res->fwd);

	/* reply: built for the reply key, other payload, translated back */
	spec_from_key(s, &res->reply, !s->reply, &r);
	for (uint32_t i = 0; i < r.plen; i++)
		r.payload[i] ^= 0x5a;
	r.ip_id ^= 0x1111;
	len = build(&r, pkt, sizeof(pkt));
	parse_ok(pkt, (uint32_t)len, &p);
	assert_key_equal(&p.key, &res->reply);
	assert_int_equal(apply_frame(nat, res->reply_slot, pkt, (uint32_t)len), 0);
	check_csums(pkt, (uint32_t)len, s->nocsum);
	fc_key_reverse(&res->orig, &rev);
	spec_from_key(&r, &rev, r.reply, &t);
	elen = build(&t, exp, sizeof(exp));
	assert_int_equal(len, elen);
	assert_memory_equal(pkt, exp, (size_t)len);
	parse_ok(pkt, (uint32_t)len, &p);
	assert_key_equal(&p.key, &rev);
	return c;
}

static bool
addr_in(const uint8_t *a, const struct rule_nat *t, uint32_t alen)
{
	return memcmp(a, t->addr_min, alen) >= 0 && memcmp(a, t->addr_max, alen) <= 0;
}

/* ------------------------------------------------------------------------ */
/* Round trips, table driven                                                 */
/* ------------------------------------------------------------------------ */

struct rt_case {
	const char *name;
	uint8_t family;
	uint8_t proto;
	bool nocsum, opts, vlan;
	const char *src, *dst;
	uint16_t sport, dport;
	const char *dnat_lo, *dnat_hi;
	uint16_t dnat_pmin, dnat_pmax;
	const char *snat_lo, *snat_hi; /* snat_lo NULL: ports only (with masq) */
	uint16_t snat_pmin, snat_pmax;
	const char *masq;
	/* expected translated forward tuple; NULL / -1: not checked */
	const char *exp_src, *exp_dst;
	int exp_sport, exp_dport;
};

static const struct rt_case rt_cases[] = {
	{"tcp4 dnat", 4, P_TCP, false, false, false, "198.51.100.7", "192.0.2.1", 40000, 80,
		"10.0.0.5", NULL, 8080, 8080, NULL, NULL, 0, 0, NULL, "198.51.100.7", "10.0.0.5",
		40000, 8080},
	{"tcp4 snat", 4, P_TCP, false, true, true, "10.0.0.2", "198.51.100.7", 40000, 443, NULL,
		NULL, 0, 0, "192.0.2.1", NULL, 0, 0, NULL, "192.0.2.1", "198.51.100.7", 40000, 443},
	{"tcp4 snat port range", 4, P_TCP, false, false, false, "10.0.0.2", "198.51.100.7", 40000,
		443, NULL, NULL, 0, 0, "192.0.2.1", NULL, 2000, 2099, NULL, "192.0.2.1",
		"198.51.100.7", -1, 443},
	{"tcp4 snat port kept in range", 4, P_TCP, false, false, false, "10.0.0.2", "198.51.100.7",
		2050, 443, NULL, NULL, 0, 0, "192.0.2.1", NULL, 2000, 2099, NULL, "192.0.2.1",
		"198.51.100.7", 2050, 443},
	{"tcp4 dnat+snat", 4, P_TCP, false, false, false, "198.51.100.7", "192.0.2.1", 5555, 443,
		"10.0.0.9", NULL, 0, 0, "10.0.0.1", NULL, 0, 0, NULL, "10.0.0.1", "10.0.0.9", 5555,
		443},
	{"udp4 snat", 4, P_UDP, false, false, false, "10.1.2.3", "8.8.8.8", 5353, 53, NULL, NULL, 0,
		0, "203.0.113.9", NULL, 0, 0, NULL, "203.0.113.9", "8.8.8.8", 5353, 53},
	{"udp4 snat port range", 4, P_UDP, false, false, true, "10.1.2.3", "8.8.8.8", 5353, 53,
		NULL, NULL, 0, 0, "203.0.113.9", "203.0.113.9", 61000, 61010, NULL, "203.0.113.9",
		"8.8.8.8", -1, 53},
	{"udp4 no checksum", 4, P_UDP, true, false, false, "10.1.2.3", "8.8.8.8", 5353, 53, NULL,
		NULL, 0, 0, "203.0.113.9", NULL, 7000, 7000, NULL, "203.0.113.9", "8.8.8.8", 7000,
		53},
	{"udp4 dnat no checksum", 4, P_UDP, true, true, false, "198.51.100.1", "192.0.2.1", 999, 53,
		"10.0.0.53", NULL, 0, 0, NULL, NULL, 0, 0, NULL, "198.51.100.1", "10.0.0.53", 999,
		53},
	{"icmp4 echo snat", 4, P_ICMP, false, false, false, "10.0.0.2", "198.51.100.7", 0x1234, 0,
		NULL, NULL, 0, 0, "192.0.2.1", NULL, 0, 0, NULL, "192.0.2.1", "198.51.100.7",
		0x1234, 0x0800}, /* an echo request: the identifier, type 8 code 0 */
	{"icmp4 echo dnat", 4, P_ICMP, false, false, false, "198.51.100.7", "192.0.2.1", 0x0, 0,
		"10.0.0.5", NULL, 0, 0, NULL, NULL, 0, 0, NULL, "198.51.100.7", "10.0.0.5", 0, 0x0800},
	{"icmp4 echo masquerade", 4, P_ICMP, false, false, false, "10.0.0.2", "198.51.100.7",
		0xffff, 0, NULL, NULL, 0, 0, NULL, NULL, 0, 0, "192.0.2.77", "192.0.2.77",
		"198.51.100.7", 0xffff, 0x0800},
	{"tcp4 masquerade", 4, P_TCP, false, false, false, "10.0.0.2", "198.51.100.7", 33000, 22,
		NULL, NULL, 0, 0, NULL, NULL, 0, 0, "192.0.2.77", "192.0.2.77", "198.51.100.7",
		33000, 22},
	{"tcp4 masquerade ports", 4, P_TCP, false, false, false, "10.0.0.2", "198.51.100.7", 33000,
		22, NULL, NULL, 0, 0, NULL, NULL, 10000, 10000, "192.0.2.77", "192.0.2.77",
		"198.51.100.7", 10000, 22},
	{"sctp4 snat ports (crc)", 4, P_SCTP, false, false, false, "10.0.0.2", "198.51.100.7", 3868,
		3868, NULL, NULL, 0, 0, "192.0.2.1", NULL, 40000, 40000, NULL, "192.0.2.1",
		"198.51.100.7", 40000, 3868},
	{"sctp4 dnat address only", 4, P_SCTP, false, false, false, "198.51.100.7", "192.0.2.1",
		3868, 3868, "10.0.0.5", NULL, 0, 0, NULL, NULL, 0, 0, NULL, "198.51.100.7",
		"10.0.0.5", 3868, 3868},
	{"gre4 snat", 4, P_GRE, false, false, false, "10.0.0.2", "198.51.100.7", 0, 0, NULL, NULL,
		0, 0, "192.0.2.1", NULL, 0, 0, NULL, "192.0.2.1", "198.51.100.7", 0, 0},
	{"tcp6 dnat", 6, P_TCP, false, true, false, "2001:db8:1::7", "2001:db8::1", 40000, 80,
		"fd00::5", NULL, 8080, 8090, NULL, NULL, 0, 0, NULL, "2001:db8:1::7", "fd00::5",
		40000, -1},
	{"tcp6 snat", 6, P_TCP, false, false, true, "fd00::2", "2001:db8:1::7", 40000, 443, NULL,
		NULL, 0, 0, "2001:db8::1", NULL, 0, 0, NULL, "2001:db8::1", "2001:db8:1::7", 40000,
		443},
	{"udp6 snat port range", 6, P_UDP, false, false, false, "fd00::2", "2001:db8:1::53", 12345,
		53, NULL, NULL, 0, 0, "2001:db8::1", "2001:db8::4", 1024, 1100, NULL, NULL,
		"2001:db8:1::53", -1, 53},
	{"icmp6 echo snat", 6, P_ICMPV6, false, false, false, "fd00::2", "2001:db8:1::7", 0xbeef, 0,
		NULL, NULL, 0, 0, "2001:db8::1", NULL, 0, 0, NULL, "2001:db8::1", "2001:db8:1::7",
		0xbeef, 0x8000},
	{"icmp6 echo dnat", 6, P_ICMPV6, false, true, false, "2001:db8:1::7", "2001:db8::1", 77, 0,
		"fd00::5", NULL, 0, 0, NULL, NULL, 0, 0, NULL, "2001:db8:1::7", "fd00::5", 77, 0x8000},
	{"sctp6 masquerade ports", 6, P_SCTP, false, false, false, "fd00::2", "2001:db8:1::7", 5000,
		5001, NULL, NULL, 0, 0, NULL, NULL, 6000, 6000, "2001:db8::99", "2001:db8::99",
		"2001:db8:1::7", 6000, 5001},
};

static void
test_roundtrip_table(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < sizeof(rt_cases) / sizeof(rt_cases[0]); i++) {
		const struct rt_case *c = &rt_cases[i];
		struct mod_nat *nat = nat_new(16);
		struct rule_nat dn, sn;
		struct mod_nat_binding_result res;
		uint8_t masq[16];
		struct spec s;

		print_message("case %s\n", c->name);
		spec_init(&s, c->family, c->proto, c->src, c->sport, c->dst, c->dport);
		s.nocsum = c->nocsum;
		s.opts = c->opts;
		s.vlan = c->vlan;
		dn = target(c->family, c->dnat_lo, c->dnat_hi, c->dnat_pmin, c->dnat_pmax);
		sn = target(c->family, c->snat_lo, c->snat_hi, c->snat_pmin, c->snat_pmax);
		if (c->masq != NULL)
			addr_parse(c->family, c->masq, masq);
		assert_int_equal(bind_spec(nat, &s, c->dnat_lo ? &dn : NULL,
					 (c->snat_lo || c->snat_pmin) ? &sn : NULL,
					 c->masq ? masq : NULL, &res),
			0);
		assert_int_equal(res.fwd_slot, MOD_NAT_SLOT_FWD(res.binding));
		assert_int_equal(res.reply_slot, MOD_NAT_SLOT_REPLY(res.binding));
		if (c->exp_src != NULL)
			assert_addr(key_src(&res.fwd), c->family, c->exp_src);
		else
			assert_true(addr_in(key_src(&res.fwd), &sn, c->family == 4 ? 4 : 16));
		assert_addr(key_dst(&res.fwd), c->family, c->exp_dst);
		if (c->exp_sport >= 0)
			assert_int_equal(key_sport(&res.fwd), c->exp_sport);
		else
			assert_in_range(key_sport(&res.fwd), c->snat_pmin, c->snat_pmax);
		if (c->exp_dport >= 0)
			assert_int_equal(key_dport(&res.fwd), c->exp_dport);
		else
			assert_in_range(key_dport(&res.fwd), c->dnat_pmin, c->dnat_pmax);
		assert_int_equal(!!(res.flags & MOD_NAT_F_DNAT), c->dnat_lo != NULL);
		assert_int_equal(!!(res.flags & MOD_NAT_F_MASQ), c->masq != NULL);
		assert_int_equal(!!(res.flags & MOD_NAT_F_SNAT), c->masq == NULL && c->snat_lo);
		roundtrip(nat, &s, &res);
		mod_nat_free(nat);
	}
}

/*
 * ICMP other than echo: addresses only. ICMPv6 checksums cover the
 * pseudo-header, ICMPv4 ones do not; the rest of the message is untouched.
 */
static void
test_icmp_other(void **state)
{
	static const struct {
		uint8_t family, type;
		const char *src, *dst, *to;
	} cases[] = {
		{4, 3, "10.0.0.2", "198.51.100.7", "192.0.2.1"},
		{4, 11, "10.0.0.2", "198.51.100.7", "192.0.2.1"},
		{6, 1, "fd00::2", "2001:db8:1::7", "2001:db8::1"},
		{6, 2, "fd00::2", "2001:db8:1::7", "2001:db8::1"},
		{6, 135, "fd00::2", "2001:db8:1::7", "2001:db8::1"},
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mod_nat *nat = nat_new(4);
		struct rule_nat sn = target(cases[i].family, cases[i].to, NULL, 0, 0);
		struct mod_nat_binding_result res;
		uint8_t pkt[FRAME_MAX], exp[FRAME_MAX];
		struct spec s, t;
		int len;

		spec_init(&s, cases[i].family, cases[i].family == 4 ? P_ICMP : P_ICMPV6,
			cases[i].src, 0x0102, cases[i].dst, 0);
		s.icmp_type = cases[i].type;
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
		/* As Linux's ICMP tuple: no identifier, the type and code. */
		assert_int_equal(key_sport(&res.fwd), 0);
		assert_int_equal(key_dport(&res.fwd), cases[i].type << 8);
		len = build(&s, pkt, sizeof(pkt));
		assert_int_equal(apply_frame(nat, res.fwd_slot, pkt, (uint32_t)len), 0);
		check_csums(pkt, (uint32_t)len, false);
		t = s;
		addr_parse(cases[i].family, cases[i].to, t.src);
		assert_int_equal(build(&t, exp, sizeof(exp)), len);
		assert_memory_equal(pkt, exp, (size_t)len);
		mod_nat_free(nat);
	}
}

/* ------------------------------------------------------------------------ */
/* Fragments                                                                 */
/* ------------------------------------------------------------------------ */

static void
frag_case(uint8_t family)
{
	struct mod_nat *nat = nat_new(4);
	struct mod_nat_binding_result res;
	struct rule_nat sn =
		target(family, family == 4 ? "192.0.2.1" : "2001:db8::1", NULL, 30000, 30000);
	uint8_t full[FRAME_MAX], xfull[FRAME_MAX], f1[FRAME_MAX], f2[FRAME_MAX], f2orig[FRAME_MAX];
	struct fc_pkt p1, p2, px;
	struct spec s, t;
	int len, xlen, l1, l2;
	uint32_t hdr, l3_off = 14, data, cut = 48;

	spec_init(&s, family, P_TCP, family == 4 ? "10.0.0.2" : "fd00::2", 40000,
		family == 4 ? "198.51.100.7" : "2001:db8:1::7", 80);
	s.plen = 64;
	len = build(&s, full, sizeof(full));
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
	assert_int_equal(key_sport(&res.fwd), 30000);

	hdr = family == 4 ? 20 : 40;
	data = (uint32_t)len - l3_off - hdr;
	if (family == 4) {
		l1 = pb_ipv4_fragment(full, (uint32_t)len, l3_off, 0, cut, f1, sizeof(f1));
		l2 = pb_ipv4_fragment(full, (uint32_t)len, l3_off, cut, data - cut, f2, sizeof(f2));
	} else {
		l1 = pb_ipv6_fragment(full, (uint32_t)len, l3_off, 0, cut, 9, f1, sizeof(f1));
		l2 = pb_ipv6_fragment(
			full, (uint32_t)len, l3_off, cut, data - cut, 9, f2, sizeof(f2));
	}
	assert_true(l1 > 0 && l2 > 0);
	assert_int_equal(fc_parse(f1, (uint32_t)l1, &p1), FC_PARSE_FRAG_FIRST);
	assert_int_equal(fc_parse(f2, (uint32_t)l2, &p2), FC_PARSE_FRAG_LATER);
	memcpy(f2orig, f2, (size_t)l2);

	/* the engine applies the flow's slot to both fragments */
	assert_int_equal(
		mod_nat_apply(nat, res.fwd_slot, f1 + p1.l3_off, (uint32_t)l1 - p1.l3_off, &p1), 0);
	assert_int_equal(
		mod_nat_apply(nat, res.fwd_slot, f2 + p2.l3_off, (uint32_t)l2 - p2.l3_off, &p2), 0);
	check_csums(f1, (uint32_t)l1, false);
	check_csums(f2, (uint32_t)l2, false);

	/* the later fragment: addresses only, payload untouched */
	assert_memory_equal(
		f2 + p2.l3_off + (family == 4 ? 12 : 8), key_src(&res.fwd), family == 4 ? 4 : 16);
	assert_memory_equal(
		f2 + (uint32_t)l2 - (data - cut), f2orig + (uint32_t)l2 - (data - cut), data - cut);

	/* reassembled, the datagram is the translated one, checksum included */
	spec_from_key(&s, &res.fwd, false, &t);
	xlen = build(&t, xfull, sizeof(xfull));
	assert_int_equal(xlen, len);
	parse_ok(xfull, (uint32_t)xlen, &px);
	assert_memory_equal(f1 + (uint32_t)l1 - cut, xfull + px.l4_off, cut);
	assert_memory_equal(f2 + (uint32_t)l2 - (data - cut), xfull + px.l4_off + cut, data - cut);
	mod_nat_free(nat);
}

static void
test_fragments(void **state)
{
	(void)state;
	frag_case(FC_AF_INET4);
	frag_case(FC_AF_INET6);
}

/* ------------------------------------------------------------------------ */
/* Randomized sweep                                                          */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint32_t
rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t
rnd_below(uint32_t n)
{
	return rnd() % n;
}

static void
rnd_addr(uint8_t family, uint8_t *a)
{
	memset(a, 0, 16);
	for (unsigned int i = 0; i < (family == FC_AF_INET4 ? 4u : 16u); i++)
		a[i] = (uint8_t)rnd();
	/* corner words: all ones / all zeros halves */
	switch (rnd_below(8)) {
	case 0:
		a[0] = 0xff;
		a[1] = 0xff;
		break;
	case 1:
		a[2] = 0;
		a[3] = 0;
		break;
	default:
		break;
	}
}

/* A random target around @p family: 1..4 addresses, maybe a port range. */
static struct rule_nat
rnd_target(uint8_t family, bool want_addr)
{
	struct rule_nat t;
	uint32_t alen = family == FC_AF_INET4 ? 4 : 16;

	memset(&t, 0, sizeof(t));
	if (want_addr) {
		t.family = family;
		rnd_addr(family, t.addr_min);
		t.addr_min[alen - 1] &= 0xf0;
		memcpy(t.addr_max, t.addr_min, alen);
		t.addr_max[alen - 1] = (uint8_t)(t.addr_min[alen - 1] + rnd_below(4));
	}
	if (rnd_below(2)) {
		t.port_min = (uint16_t)(1 + rnd_below(65000));
		t.port_max = (uint16_t)(t.port_min + rnd_below(64));
	}
	return t;
}

/* Corner cases forced in the sweep. */
enum corner {
	CORNER_NONE,
	CORNER_FWD_ZERO,  /* translated checksum: TCP/ICMP 0x0000, UDP 0xffff (computed 0) */
	CORNER_ORIG_ZERO, /* original checksum likewise */
	CORNER_IP_ZERO,	  /* translated IPv4 header checksum 0x0000 */
	CORNER__COUNT
};

static unsigned long corner_hits[CORNER__COUNT];

/* The L4 checksum field of a frame, big-endian. */
static uint16_t
l4_csum_field(const uint8_t *buf, uint32_t len, uint8_t proto)
{
	struct fc_pkt p;

	parse_ok(buf, len, &p);
	return get16(buf + p.l4_off + (proto == P_TCP ? 16 : proto == P_UDP ? 6 : 2));
}

static void
test_random(void **state)
{
	static const uint8_t protos[] = {
		P_TCP, P_TCP, P_UDP, P_UDP, 0 /* icmp echo */, P_SCTP, P_GRE};
	struct mod_nat *nat = nat_new(64);
	uint32_t live[32], n_live = 0;
	unsigned long n_ok = 0;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	ref_checks = 0;
	memset(corner_hits, 0, sizeof(corner_hits));
	for (unsigned int it = 0; it < 10000; it++) {
		struct mod_nat_binding_result res;
		struct rule_nat dn, sn;
		uint8_t masq[16], buf[FRAME_MAX];
		uint8_t family = rnd_below(2) ? FC_AF_INET4 : FC_AF_INET6;
		uint8_t proto = protos[rnd_below(sizeof(protos))];
		uint32_t alen = family == FC_AF_INET4 ? 4 : 16, mode = rnd_below(5);
		enum corner corner = (enum corner)rnd_below(CORNER__COUNT);
		bool use_dnat = mode == 0 || mode == 3 || mode == 4;
		bool use_snat = mode == 1 || mode == 3, use_masq = mode == 2 || mode == 4;
		bool pass_sn = use_snat || (use_masq && rnd_below(2));
		struct spec s, t;
		struct fc_key k;
		int ret;

		memset(&s, 0, sizeof(s));
		s.family = family;
		s.proto = proto != 0 ? proto : (family == FC_AF_INET4 ? P_ICMP : P_ICMPV6);
		rnd_addr(family, s.src);
		rnd_addr(family, s.dst);
		s.sport = (uint16_t)rnd();
		s.dport = (uint16_t)rnd();
		if (s.proto == P_ICMP || s.proto == P_ICMPV6) {
			s.dport = s.sport;
			s.reply = rnd_below(4) == 0;
		}
		if (s.proto == P_GRE)
			s.sport = s.dport = 0;
		s.nocsum = s.proto == P_UDP && family == FC_AF_INET4 && rnd_below(4) == 0;
		s.opts = rnd_below(4) == 0;
		s.vlan = rnd_below(4) == 0;
		s.ip_id = (uint16_t)rnd();
		s.plen = rnd_below(4) == 0 ? rnd_below(4) : 2 + rnd_below(PAYLOAD_MAX - 2);
		for (uint32_t i = 0; i < s.plen; i++)
			s.payload[i] = (uint8_t)rnd();
		dn = rnd_target(family, true);
		sn = rnd_target(family, !use_masq);
		rnd_addr(family, masq);

		k = spec_key(&s);
		ret = mod_nat_bind(nat, &k, use_dnat ? &dn : NULL, pass_sn ? &sn : NULL,
			use_masq ? masq : NULL, &res);
		assert_int_equal(ret, 0);

		/* where the translation landed */
		if (use_dnat)
			assert_true(addr_in(key_dst(&res.fwd), &dn, alen));
		else
			assert_memory_equal(key_dst(&res.fwd), key_dst(&k), alen);
		if (use_masq)
			assert_memory_equal(key_src(&res.fwd), masq, alen);
		else if (use_snat)
			assert_true(addr_in(key_src(&res.fwd), &sn, alen));
		if ((s.proto == P_TCP || s.proto == P_UDP || s.proto == P_SCTP)) {
			if (use_dnat && dn.port_min != 0)
				assert_in_range(key_dport(&res.fwd), dn.port_min, dn.port_max);
			if (pass_sn && sn.port_min != 0)
				assert_in_range(key_sport(&res.fwd), sn.port_min, sn.port_max);
		}
		if (!(res.flags & MOD_NAT_F_REMAPPED))
			assert_int_equal(key_sport(&res.fwd), key_sport(&k));

		/* force a checksum corner by choosing the first payload word / IP id */
		if (corner == CORNER_IP_ZERO && family == FC_AF_INET4) {
			spec_from_key(&s, &res.fwd, s.reply, &t);
			t.ip_id = 0;
			build(&t, buf, sizeof(buf));
			s.ip_id = get16(buf + (s.vlan ? 18 : 14) + 10);
		} else if ((corner == CORNER_FWD_ZERO || corner == CORNER_ORIG_ZERO) &&
			   s.plen >= 2 && !s.nocsum && s.proto != P_SCTP && s.proto != P_GRE) {
			uint32_t l;

			if (corner == CORNER_FWD_ZERO)
				spec_from_key(&s, &res.fwd, s.reply, &t);
			else
				t = s;
			t.payload[0] = t.payload[1] = 0;
			l = (uint32_t)build(&t, buf, sizeof(buf));
			/* with the word equal to the checksum of the word-0 packet, the sum is
			 * 0xffff */
			{
				uint16_t c0 = l4_csum_field(buf, l, s.proto);

				if (s.proto == P_UDP && c0 == 0xffff)
					c0 = 0;
				s.payload[0] = (uint8_t)(c0 >> 8);
				s.payload[1] = (uint8_t)c0;
			}
		} else {
			corner = CORNER_NONE;
		}

		{
			uint32_t len = (uint32_t)build(&s, buf, sizeof(buf));
			uint16_t zero = s.proto == P_UDP ? 0xffff : 0;

			if (corner == CORNER_ORIG_ZERO) {
				assert_int_equal(l4_csum_field(buf, len, s.proto), zero);
				corner_hits[corner]++;
			}
			if (corner == CORNER_FWD_ZERO) {
				assert_int_equal(apply_frame(nat, res.fwd_slot, buf, len), 0);
				assert_int_equal(l4_csum_field(buf, len, s.proto), zero);
				corner_hits[corner]++;
			}
			if (corner == CORNER_IP_ZERO) {
				assert_int_equal(apply_frame(nat, res.fwd_slot, buf, len), 0);
				assert_int_equal(get16(buf + (s.vlan ? 18 : 14) + 10), 0);
				corner_hits[corner]++;
			}
		}
		roundtrip(nat, &s, &res);
		n_ok++;

		/* keep up to 32 bindings alive: the allocator sees company */
		if (n_live == 32) {
			assert_int_equal(mod_nat_unbind(nat, live[0]), 0);
			assert_int_equal(mod_nat_release(nat, live[0]), 0);
			memmove(live, live + 1, sizeof(live[0]) * 31);
			n_live--;
		}
		live[n_live++] = res.binding;
	}
	print_message("random: %lu bindings, %lu reference checksums, corners fwd %lu orig %lu ip "
		      "%lu\n",
		n_ok, ref_checks, corner_hits[CORNER_FWD_ZERO], corner_hits[CORNER_ORIG_ZERO],
		corner_hits[CORNER_IP_ZERO]);
	assert_int_equal(n_ok, 10000);
	assert_true(corner_hits[CORNER_FWD_ZERO] > 100);
	assert_true(corner_hits[CORNER_ORIG_ZERO] > 100);
	assert_true(corner_hits[CORNER_IP_ZERO] > 100);
	mod_nat_free(nat);
}

/*
 * mod_nat_apply()'s straight line (TCP, UDP, UDP-Lite: the slot's stores
 * and checksum adds) against mod_nat_apply_rest(), the general rewrite:
 * the same bytes for random frames, bindings and options, every checksum
 * right after it; and each refusal of the straight line's checks leaves
 * the frame as it came.
 */
static void
test_apply_fast(void **state)
{
	static const uint8_t protos[] = {P_TCP, P_UDP, P_UDPLITE};
	struct mod_nat *nat = nat_new(4096);
	unsigned long n_fast = 0;

	(void)state;
	rng_state = 0x2545f4914f6cdd1dull;
	for (unsigned int it = 0; it < 4000; it++) {
		struct mod_nat_binding_result res;
		uint8_t family = rnd_below(2) ? FC_AF_INET4 : FC_AF_INET6;
		struct rule_nat dn = rnd_target(family, true), sn = rnd_target(family, true);
		uint32_t mode = rnd_below(3), len, cut;
		uint8_t a[FRAME_MAX], b[FRAME_MAX], c[FRAME_MAX];
		struct fc_pkt pkt;
		struct spec s;

		memset(&s, 0, sizeof(s));
		s.family = family;
		s.proto = protos[rnd_below(sizeof(protos))];
		rnd_addr(family, s.src);
		rnd_addr(family, s.dst);
		s.sport = (uint16_t)rnd();
		s.dport = (uint16_t)rnd();
		s.nocsum = s.proto == P_UDP && family == FC_AF_INET4 && rnd_below(4) == 0;
		s.opts = rnd_below(4) == 0;
		s.vlan = rnd_below(4) == 0;
		s.ip_id = (uint16_t)rnd();
		s.plen = rnd_below(PAYLOAD_MAX);
		for (uint32_t i = 0; i < s.plen; i++)
			s.payload[i] = (uint8_t)rnd();
		if (bind_spec(nat, &s, mode != 1 ? &dn : NULL, mode != 0 ? &sn : NULL, NULL, &res) !=
			0)
			continue;
		len = (uint32_t)build(&s, a, sizeof(a));
		memcpy(b, a, len);
		memcpy(c, a, len);
		parse_ok(a, len, &pkt);
		/* both directions' slots: the reply slot on the translated frame */
		assert_int_equal(mod_nat_apply(nat, res.fwd_slot, a + pkt.l3_off, len - pkt.l3_off,
					 &pkt), 0);
		assert_int_equal(mod_nat_apply_rest(nat, res.fwd_slot, b + pkt.l3_off,
					 len - pkt.l3_off, &pkt), 0);
		assert_memory_equal(a, b, len);
		check_csums(a, len, s.nocsum);
		parse_ok(a, len, &pkt);
		{
			struct fc_pkt back = pkt;
			struct fc_key rk;

			/* the reply's frame: the translated one reversed */
			fc_key_reverse(&res.fwd, &rk);
			spec_from_key(&s, &rk, false, &s);
			len = (uint32_t)build(&s, a, sizeof(a));
			memcpy(b, a, len);
			parse_ok(a, len, &back);
			assert_int_equal(mod_nat_apply(nat, res.reply_slot, a + back.l3_off,
						 len - back.l3_off, &back), 0);
			assert_int_equal(mod_nat_apply_rest(nat, res.reply_slot, b + back.l3_off,
						 len - back.l3_off, &back), 0);
			assert_memory_equal(a, b, len);
			check_csums(a, len, s.nocsum);
		}
		/* cut short of the L4 bytes the rewrite touches: refused, untouched */
		len = (uint32_t)build(&s, c, sizeof(c));
		parse_ok(c, len, &pkt);
		memcpy(b, c, len);
		cut = pkt.l4_off - pkt.l3_off + (s.proto == P_TCP ? 20u : 8u) - 1 - rnd_below(4);
		assert_int_equal(mod_nat_apply(nat, res.reply_slot, c + pkt.l3_off, cut, &pkt),
			-EINVAL);
		assert_memory_equal(b, c, len);
		assert_int_equal(mod_nat_unbind(nat, res.binding), 0);
		assert_int_equal(mod_nat_release(nat, res.binding), 0);
		n_fast++;
	}
	assert_true(n_fast > 3000);
	mod_nat_free(nat);
}

/* The checksum adjust itself, exhaustively against RFC 1071 arithmetic. */
static void
test_csum_adjust(void **state)
{
	(void)state;
	rng_state = 12345;
	for (unsigned int it = 0; it < 200000; it++) {
		/* a "header" of 4 words; change word 1 and 3 */
		uint16_t w[4], n1 = (uint16_t)rnd(), n3 = (uint16_t)rnd();
		uint32_t sum = 0, delta;
		uint16_t c, full;

		for (int i = 0; i < 4; i++)
			w[i] = (uint16_t)rnd();
		if (it % 7 == 0) {
			w[1] = 0xffff;
			n1 = 0;
		}
		if (it % 11 == 0) {
			w[3] = 0;
			n3 = 0xffff;
		}
		for (int i = 0; i < 4; i++)
			sum += w[i];
		if (csum_ref_fold(sum) == 0 || csum_ref_fold((uint32_t)w[0] + n1 + w[2] + n3) == 0)
			continue; /* all-zero data has no canonical checksum */
		c = (uint16_t)~csum_ref_fold(sum);
		delta = (uint16_t)~w[1] + (uint32_t)n1 + (uint16_t)~w[3] + (uint32_t)n3;
		delta = csum_ref_fold(delta);
		if (delta == 0)
			delta = 0xffff;
		c = mod_nat_csum_adjust(c, (uint16_t)delta);
		full = (uint16_t)~csum_ref_fold((uint32_t)w[0] + n1 + w[2] + n3);
		assert_int_equal(c, full);
	}
}

/* ------------------------------------------------------------------------ */
/* Port allocation                                                           */
/* ------------------------------------------------------------------------ */

static int
tuple_cmp(const void *a, const void *b)
{
	return memcmp(a, b, offsetof(struct fc_key, family) + 1);
}

static void
test_ports_unique(void **state)
{
	enum { N = 3000 };
	struct mod_nat *nat = nat_new(N);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result res;
	struct mod_nat_stats st;
	struct fc_key *keys = calloc(N, sizeof(*keys));
	char src[32];
	struct spec s;

	(void)state;
	assert_non_null(keys);
	for (unsigned int i = 0; i < N; i++) {
		snprintf(src, sizeof(src), "10.%u.%u.%u", i >> 16, (i >> 8) & 0xff, i & 0xff);
		spec_init(&s, 4, P_UDP, src, 40000, "198.51.100.7", 53);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
		if (i == 0)
			assert_int_equal(key_sport(&res.fwd), 40000); /* kept while free */
		else
			assert_true(res.flags & MOD_NAT_F_REMAPPED);
		assert_in_range(key_sport(&res.fwd), 1024, 65535);
		keys[i] = res.reply;
		if (i % 500 == 0)
			roundtrip(nat, &s, &res);
	}
	qsort(keys, N, sizeof(*keys), tuple_cmp);
	for (unsigned int i = 1; i < N; i++)
		assert_int_not_equal(tuple_cmp(&keys[i - 1], &keys[i]), 0);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.active, N);
	assert_int_equal(st.allocated, N);
	assert_int_equal(st.remapped, N - 1);
	assert_int_equal(st.exhausted, 0);
	free(keys);
	mod_nat_free(nat);
}

/*
 * The input port: a binding's keys carry the original's, and the reply
 * tuple is unique whatever the ports (a tuple is one connection's on every
 * port): the same original tuple seen on two ports gets two reply tuples.
 */
static void
test_ports_in_port(void **state)
{
	struct mod_nat *nat = nat_new(8);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct spec s;
	struct fc_key k;

	(void)state;
	spec_init(&s, 4, P_UDP, "10.0.0.1", 40000, "198.51.100.7", 53);
	k = spec_key(&s);
	fc_key_set_in_port(&k, 3);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &a), 0);
	assert_int_equal(fc_key_in_port(&a.orig), 3);
	assert_int_equal(fc_key_in_port(&a.fwd), 3);
	assert_int_equal(fc_key_in_port(&a.reply), 3);
	assert_int_equal(key_sport(&a.fwd), 40000);

	fc_key_set_in_port(&k, 7);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &b), 0);
	assert_int_equal(fc_key_in_port(&b.fwd), 7);
	assert_true(b.flags & MOD_NAT_F_REMAPPED);
	assert_int_not_equal(key_sport(&b.fwd), 40000);
	mod_nat_free(nat);
}

/* Different remote endpoints share external ports; privileged ports stay privileged. */
static void
test_ports_per_endpoint(void **state)
{
	struct mod_nat *nat = nat_new(64);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result res;
	char dst[32];
	struct spec s;

	(void)state;
	for (unsigned int i = 0; i < 10; i++) {
		snprintf(dst, sizeof(dst), "198.51.100.%u", i + 1);
		spec_init(&s, 4, P_TCP, i & 1 ? "10.0.0.3" : "10.0.0.2", 40000, dst, 443);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
		assert_int_equal(key_sport(&res.fwd), 40000);
		assert_false(res.flags & MOD_NAT_F_REMAPPED);
	}
	/* a clash on a privileged port is remapped within 1..1023 */
	spec_init(&s, 4, P_TCP, "10.0.0.2", 22, "198.51.100.1", 22);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
	assert_int_equal(key_sport(&res.fwd), 22);
	spec_init(&s, 4, P_TCP, "10.0.0.3", 22, "198.51.100.1", 22);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
	assert_in_range(key_sport(&res.fwd), 1, 1023);
	assert_int_not_equal(key_sport(&res.fwd), 22);
	roundtrip(nat, &s, &res);
	mod_nat_free(nat);
}

static void
test_ports_exhaustion(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 5000, 5003);
	struct mod_nat_binding_result res[6];
	struct mod_nat_target_stats ts;
	struct mod_nat_stats st;
	bool seen[4] = {false};
	char src[32];
	struct spec s;

	(void)state;
	/* the first client's port is in range: kept */
	spec_init(&s, 4, P_TCP, "10.0.0.1", 5001, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res[0]), 0);
	assert_int_equal(key_sport(&res[0].fwd), 5001);
	seen[1] = true;
	for (unsigned int i = 1; i < 4; i++) {
		snprintf(src, sizeof(src), "10.0.0.%u", i + 1);
		spec_init(&s, 4, P_TCP, src, 5001, "198.51.100.7", 80);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res[i]), 0);
		assert_in_range(key_sport(&res[i].fwd), 5000, 5003);
		assert_false(seen[key_sport(&res[i].fwd) - 5000]);
		seen[key_sport(&res[i].fwd) - 5000] = true;
	}
	spec_init(&s, 4, P_TCP, "10.0.0.99", 5001, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res[4]), -ENOSPC);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.exhausted, 1);
	assert_int_equal(st.active, 4);
	assert_int_equal(mod_nat_target_stats_get(nat, 0, &ts), 0);
	assert_int_equal(ts.action, RULE_ACT_SNAT);
	assert_int_equal(ts.active, 4);
	assert_int_equal(ts.allocated, 4);
	assert_int_equal(ts.exhausted, 1);
	assert_int_equal(mod_nat_target_stats_get(nat, 1, &ts), -ENOENT);

	/* another remote endpoint still has all four */
	spec_init(&s, 4, P_TCP, "10.0.0.99", 5001, "198.51.100.8", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res[5]), 0);
	assert_int_equal(key_sport(&res[5].fwd), 5001);

	/* unbinding frees the port at once (the slots wait for release) */
	assert_int_equal(mod_nat_unbind(nat, res[2].binding), 0);
	spec_init(&s, 4, P_TCP, "10.0.0.99", 5001, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res[4]), 0);
	assert_int_equal(key_sport(&res[4].fwd), key_sport(&res[2].fwd));
	assert_int_not_equal(res[4].binding, res[2].binding);
	roundtrip(nat, &s, &res[4]);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.active, 5);
	assert_int_equal(st.retired, 1);
	assert_int_equal(st.exhausted, 1);
	mod_nat_free(nat);
}

/* Address ranges: more addresses, more tuples; portless protocols need one each. */
static void
test_addr_exhaustion(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat sn = target(4, "192.0.2.1", "192.0.2.2", 7000, 7000);
	struct rule_nat one = target(4, "192.0.2.9", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct spec s;

	(void)state;
	spec_init(&s, 4, P_UDP, "10.0.0.1", 1234, "198.51.100.7", 53);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), 0);
	spec_init(&s, 4, P_UDP, "10.0.0.1", 1235, "198.51.100.7", 53);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &b), 0);
	assert_memory_not_equal(key_src(&a.fwd), key_src(&b.fwd), 4);
	assert_int_equal(key_sport(&a.fwd), 7000);
	assert_int_equal(key_sport(&b.fwd), 7000);
	spec_init(&s, 4, P_UDP, "10.0.0.1", 1236, "198.51.100.7", 53);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), -ENOSPC);

	/* GRE: one connection per (external address, remote) */
	spec_init(&s, 4, P_GRE, "10.0.0.1", 0, "198.51.100.7", 0);
	assert_int_equal(bind_spec(nat, &s, NULL, &one, NULL, &a), 0);
	roundtrip(nat, &s, &a);
	spec_init(&s, 4, P_GRE, "10.0.0.2", 0, "198.51.100.7", 0);
	assert_int_equal(bind_spec(nat, &s, NULL, &one, NULL, &b), -ENOSPC);
	spec_init(&s, 4, P_GRE, "10.0.0.2", 0, "198.51.100.8", 0);
	assert_int_equal(bind_spec(nat, &s, NULL, &one, NULL, &b), 0);
	mod_nat_free(nat);
}

/* ICMP echo identifiers are allocated like ports. */
static void
test_echo_ids(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct spec s;

	(void)state;
	spec_init(&s, 4, P_ICMP, "10.0.0.1", 1, "198.51.100.7", 0);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), 0);
	assert_int_equal(key_sport(&a.fwd), 1);
	spec_init(&s, 4, P_ICMP, "10.0.0.2", 1, "198.51.100.7", 0);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &b), 0);
	assert_int_not_equal(key_sport(&b.fwd), 1);
	assert_int_equal(key_dport(&b.fwd), 0x0800); /* the type and code stay */
	assert_true(b.flags & MOD_NAT_F_REMAPPED);
	roundtrip(nat, &s, &b);
	mod_nat_free(nat);
}

/*
 * ICMP timestamp, information and address mask queries: their identifier is
 * remapped as echo's (Linux tracks them alike), the reply translated back.
 */
static void
test_icmp_query_ids(void **state)
{
	static const uint8_t types[] = {13, 15, 17};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(types); i++) {
		struct mod_nat *nat = nat_new(16);
		struct mod_nat_binding_result a, b;
		uint8_t masq[16];
		struct spec s;

		print_message("type %u\n", types[i]);
		addr_parse(4, "192.0.2.1", masq);
		spec_init(&s, 4, P_ICMP, "10.0.0.1", 0x77, "198.51.100.7", 0);
		s.icmp_type = types[i];
		assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &a), 0);
		assert_int_equal(key_sport(&a.fwd), 0x77);
		roundtrip(nat, &s, &a);
		/* Another inside host, the same identifier: remapped, not exhausted. */
		spec_init(&s, 4, P_ICMP, "10.0.0.2", 0x77, "198.51.100.7", 0);
		s.icmp_type = types[i];
		assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &b), 0);
		assert_int_not_equal(key_sport(&b.fwd), 0x77);
		assert_int_equal(key_dport(&b.fwd), types[i] << 8);
		assert_true(b.flags & MOD_NAT_F_REMAPPED);
		roundtrip(nat, &s, &b);
		mod_nat_free(nat);
	}
}

/* UDP-Lite: ports as UDP, the checksum over the covered part (pseudo-header always). */
static void
test_udplite(void **state)
{
	static const struct {
		uint8_t family;
		uint16_t cov;
		bool masq;
	} cases[] = {
		{4, 0, false}, {4, 8, false}, {4, 20, true}, {6, 0, true}, {6, 8, false}, {6, 45, false},
	};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		bool v4 = cases[i].family == 4;
		struct rule_nat sn = target(cases[i].family, v4 ? "192.0.2.1" : "2001:db8::1", NULL,
			0, 0);
		struct rule_nat dn = target(cases[i].family, v4 ? "10.0.0.5" : "fd00::5", NULL,
			6000, 6000);
		struct mod_nat *nat = nat_new(16);
		struct mod_nat_binding_result a, b;
		uint8_t masq[16];
		struct spec s;

		print_message("family %u coverage %u\n", cases[i].family, cases[i].cov);
		addr_parse(cases[i].family, v4 ? "192.0.2.9" : "2001:db8::9", masq);
		spec_init(&s, cases[i].family, P_UDPLITE, v4 ? "10.0.0.1" : "fd00::1", 5000,
			v4 ? "198.51.100.7" : "2001:db8:1::7", 5001);
		s.cov = cases[i].cov;
		if (cases[i].masq)
			assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &a), 0);
		else
			assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), 0);
		assert_int_equal(key_sport(&a.fwd), 5000);
		roundtrip(nat, &s, &a);
		/* another inside host, the same source port: the port is remapped */
		spec_init(&s, cases[i].family, P_UDPLITE, v4 ? "10.0.0.2" : "fd00::2", 5000,
			v4 ? "198.51.100.7" : "2001:db8:1::7", 5001);
		s.cov = cases[i].cov;
		if (cases[i].masq)
			assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &b), 0);
		else
			assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &b), 0);
		assert_int_not_equal(key_sport(&b.fwd), 5000);
		roundtrip(nat, &s, &b);
		/* a destination port rewrite */
		spec_init(&s, cases[i].family, P_UDPLITE, v4 ? "198.51.100.7" : "2001:db8:1::7",
			7000, v4 ? "192.0.2.1" : "2001:db8::1", 53);
		s.cov = cases[i].cov;
		assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &a), 0);
		assert_int_equal(key_dport(&a.fwd), 6000);
		roundtrip(nat, &s, &a);
		mod_nat_free(nat);
	}
}

/*
 * DCCP, as Linux's DCCP NAT translates it: ports, and the checksum (over
 * the pseudo-header and the whole packet) updated with them; a second
 * inside host's source port remapped; a destination port rewrite.
 */
static void
test_dccp(void **state)
{
	static const uint8_t fams[] = {4, 6};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(fams); i++) {
		bool v4 = fams[i] == 4;
		struct rule_nat sn = target(fams[i], v4 ? "192.0.2.1" : "2001:db8::1", NULL, 0, 0);
		struct rule_nat dn = target(fams[i], v4 ? "10.0.0.5" : "fd00::5", NULL, 6000, 6000);
		struct mod_nat *nat = nat_new(16);
		struct mod_nat_binding_result a, b;
		uint8_t masq[16];
		struct spec s;

		print_message("family %u\n", fams[i]);
		addr_parse(fams[i], v4 ? "192.0.2.9" : "2001:db8::9", masq);
		spec_init(&s, fams[i], P_DCCP, v4 ? "10.0.0.1" : "fd00::1", 5000,
			v4 ? "198.51.100.7" : "2001:db8:1::7", 5001);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), 0);
		assert_int_equal(key_sport(&a.fwd), 5000);
		roundtrip(nat, &s, &a);
		spec_init(&s, fams[i], P_DCCP, v4 ? "10.0.0.2" : "fd00::2", 5000,
			v4 ? "198.51.100.7" : "2001:db8:1::7", 5001);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &b), 0);
		assert_int_not_equal(key_sport(&b.fwd), 5000);
		roundtrip(nat, &s, &b);
		spec_init(&s, fams[i], P_DCCP, v4 ? "10.0.0.3" : "fd00::3", 5002,
			v4 ? "198.51.100.7" : "2001:db8:1::7", 5001);
		assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &b), 0);
		roundtrip(nat, &s, &b);
		spec_init(&s, fams[i], P_DCCP, v4 ? "198.51.100.7" : "2001:db8:1::7", 7000,
			v4 ? "192.0.2.1" : "2001:db8::1", 53);
		assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &a), 0);
		assert_int_equal(key_dport(&a.fwd), 6000);
		roundtrip(nat, &s, &a);
		mod_nat_free(nat);
	}
}

/* DNAT alone keeps the source unless two connections would share a reply tuple. */
static void
test_dnat_clash(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat dn = target(4, "10.0.0.5", NULL, 8080, 8080);
	struct mod_nat_binding_result a, b;
	struct spec s;

	(void)state;
	spec_init(&s, 4, P_TCP, "198.51.100.7", 40000, "192.0.2.1", 80);
	assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &a), 0);
	assert_int_equal(key_sport(&a.fwd), 40000);
	assert_false(a.flags & MOD_NAT_F_REMAPPED);
	spec_init(&s, 4, P_TCP, "198.51.100.7", 40000, "192.0.2.2", 80);
	assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &b), 0);
	assert_addr(key_src(&b.fwd), 4, "198.51.100.7");
	assert_int_not_equal(key_sport(&b.fwd), 40000);
	assert_in_range(key_sport(&b.fwd), 1024, 65535);
	assert_true(b.flags & MOD_NAT_F_REMAPPED);
	assert_int_not_equal(tuple_cmp(&a.reply, &b.reply), 0);
	roundtrip(nat, &s, &b);

	/* portless: no way out */
	spec_init(&s, 4, P_GRE, "198.51.100.7", 0, "192.0.2.1", 0);
	assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &a), 0);
	spec_init(&s, 4, P_GRE, "198.51.100.7", 0, "192.0.2.2", 0);
	assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &b), -ENOSPC);
	mod_nat_free(nat);
}

/* A reply tuple may not be another binding's original tuple (port forward vs masquerade). */
static void
test_reply_vs_orig(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat fwd = target(4, "10.0.0.5", NULL, 80, 80);
	struct mod_nat_binding_result y, x;
	uint8_t masq[16];
	struct spec s;

	(void)state;
	addr_parse(4, "192.0.2.1", masq);
	/* remote 198.51.100.7:5000 connects to the router's port 8080, forwarded inside */
	spec_init(&s, 4, P_TCP, "198.51.100.7", 5000, "192.0.2.1", 8080);
	assert_int_equal(bind_spec(nat, &s, &fwd, NULL, NULL, &y), 0);
	/* an inside host from port 8080 to that remote endpoint, masqueraded */
	spec_init(&s, 4, P_TCP, "10.0.0.9", 8080, "198.51.100.7", 5000);
	assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &x), 0);
	assert_int_not_equal(key_sport(&x.fwd), 8080);
	assert_int_not_equal(tuple_cmp(&x.reply, &y.orig), 0);
	roundtrip(nat, &s, &x);
	mod_nat_free(nat);
}

/* ------------------------------------------------------------------------ */
/* Address choice, callbacks                                                 */
/* ------------------------------------------------------------------------ */

static void
test_dnat_range(void **state)
{
	struct mod_nat *nat = nat_new(512);
	struct rule_nat dn = target(4, "10.0.0.1", "10.0.0.8", 0, 0);
	struct rule_nat dn6 = target(6, "fd00::", "fd00::ffff:ffff:ffff:ffff", 1000, 1009);
	struct rule_nat all6 = target(6, "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 0, 0);
	struct mod_nat_binding_result res, again;
	unsigned int used[8] = {0}, n_used = 0;
	char src[32];
	struct spec s;

	(void)state;
	for (unsigned int i = 0; i < 200; i++) {
		snprintf(src, sizeof(src), "198.51.%u.%u", i / 250, i % 250 + 1);
		spec_init(&s, 4, P_TCP, src, (uint16_t)(30000 + i), "192.0.2.1", 80);
		assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &res), 0);
		assert_true(addr_in(key_dst(&res.fwd), &dn, 4));
		used[key_dst(&res.fwd)[3] - 1]++;
		/* deterministic: the same connection again gets the same server */
		assert_int_equal(mod_nat_unbind(nat, res.binding), 0);
		assert_int_equal(mod_nat_release(nat, res.binding), 0);
		assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &again), 0);
		assert_memory_equal(key_dst(&again.fwd), key_dst(&res.fwd), 4);
		/* the same client to the same service: same server, other source port */
		s.sport++;
		assert_int_equal(bind_spec(nat, &s, &dn, NULL, NULL, &again), 0);
		assert_memory_equal(key_dst(&again.fwd), key_dst(&res.fwd), 4);
	}
	for (unsigned int i = 0; i < 8; i++)
		n_used += used[i] != 0;
	assert_true(n_used >= 6);

	/* IPv6: a 2^64 range, a port range, and the whole space */
	spec_init(&s, 6, P_UDP, "2001:db8::7", 5000, "2001:db8::1", 53);
	assert_int_equal(bind_spec(nat, &s, &dn6, NULL, NULL, &res), 0);
	assert_true(addr_in(key_dst(&res.fwd), &dn6, 16));
	assert_in_range(key_dport(&res.fwd), 1000, 1009);
	roundtrip(nat, &s, &res);
	spec_init(&s, 6, P_UDP, "2001:db8::7", 5001, "2001:db8::1", 1005);
	assert_int_equal(bind_spec(nat, &s, &dn6, NULL, NULL, &res), 0);
	assert_int_equal(key_dport(&res.fwd), 1005); /* in range: kept */
	spec_init(&s, 6, P_TCP, "2001:db8::7", 5002, "2001:db8::1", 22);
	assert_int_equal(bind_spec(nat, &s, &all6, NULL, NULL, &res), 0);
	roundtrip(nat, &s, &res);
	mod_nat_free(nat);
}

static const uint8_t local_v4[4] = {10, 0, 0, 5};

static bool
cb_is_local(void *arg, uint8_t family, const uint8_t *addr)
{
	(void)arg;
	return family == FC_AF_INET4 && memcmp(addr, local_v4, 4) == 0;
}

static struct fc_key busy_key;
static unsigned int busy_calls;

static bool
cb_busy(void *arg, const struct fc_key *k)
{
	(void)arg;
	busy_calls++;
	return tuple_cmp(k, &busy_key) == 0;
}

static void
test_callbacks(void **state)
{
	struct mod_nat_params p = {
		.max_bindings = 8, .seed = 1, .is_local = cb_is_local, .busy = cb_busy};
	struct mod_nat *nat = mod_nat_create(&p);
	struct rule_nat dn = target(4, "10.0.0.5", NULL, 0, 0);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result res;
	struct fc_key k;
	struct spec s;

	(void)state;
	assert_non_null(nat);
	/* DNAT to a local address: the translated key is INPUT, the reply OUTPUT */
	spec_init(&s, 4, P_TCP, "198.51.100.7", 40000, "192.0.2.1", 22);
	k = spec_key(&s);
	k.v4.flags = FC_KEY_F_DST_LOCAL; /* the router's public address */
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &res), 0);
	assert_int_equal(res.fwd.v4.flags, FC_KEY_F_DST_LOCAL);
	assert_int_equal(res.reply.v4.flags, FC_KEY_F_SRC_LOCAL);
	/* DNAT away from a local address clears the bit */
	k.v4.flags = FC_KEY_F_DST_LOCAL;
	k.v4.sport = htons(40001);
	dn = target(4, "10.0.0.6", NULL, 0, 0);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &res), 0);
	assert_int_equal(res.fwd.v4.flags, 0);
	assert_int_equal(res.reply.v4.flags, 0);

	/* the flow table says the natural tuple is taken: another port */
	spec_init(&s, 4, P_UDP, "10.0.0.2", 6000, "198.51.100.7", 53);
	k = spec_key(&s);
	memset(&busy_key, 0, sizeof(busy_key));
	busy_key.family = FC_AF_INET4;
	memcpy(&busy_key.v4.src, key_dst(&k), 4);
	{
		uint8_t a[16];

		addr_parse(4, "192.0.2.1", a);
		memcpy(&busy_key.v4.dst, a, 4);
	}
	busy_key.v4.sport = htons(53);
	busy_key.v4.dport = htons(6000);
	busy_key.v4.proto = P_UDP;
	busy_calls = 0;
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &res), 0);
	assert_true(busy_calls >= 2);
	assert_int_not_equal(key_sport(&res.fwd), 6000);
	mod_nat_free(nat);
}

/* max_probes bounds the search; the bound counts as exhaustion. */
static void
test_probe_budget(void **state)
{
	struct mod_nat_params p = {.max_bindings = 8, .max_probes = 1};
	struct mod_nat *nat = mod_nat_create(&p);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result res;
	struct mod_nat_stats st;
	struct spec s;

	(void)state;
	assert_non_null(nat);
	spec_init(&s, 4, P_TCP, "10.0.0.1", 40000, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
	spec_init(&s, 4, P_TCP, "10.0.0.2", 40000, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), -ENOSPC);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.exhausted, 1);
	mod_nat_free(nat);
}

/* ------------------------------------------------------------------------ */
/* Lifecycle, bad arguments                                                  */
/* ------------------------------------------------------------------------ */

static void
test_lifecycle(void **state)
{
	struct mod_nat *nat = nat_new(2);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 0, 0);
	struct mod_nat_binding_result a, b, c, got;
	struct mod_nat_stats st;
	struct spec s;

	(void)state;
	spec_init(&s, 4, P_TCP, "10.0.0.1", 1111, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &a), 0);
	spec_init(&s, 4, P_TCP, "10.0.0.2", 1111, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &b), 0);
	spec_init(&s, 4, P_TCP, "10.0.0.3", 1111, "198.51.100.7", 80);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &c), -ENOBUFS);

	assert_int_equal(mod_nat_binding_get(nat, a.binding, &got), 0);
	assert_key_equal(&got.orig, &a.orig);
	assert_key_equal(&got.fwd, &a.fwd);
	assert_key_equal(&got.reply, &a.reply);

	/* two steps: unbound slots are not reused before release */
	assert_int_equal(mod_nat_release(nat, a.binding), -EBUSY);
	assert_int_equal(mod_nat_unbind(nat, a.binding), 0);
	assert_int_equal(mod_nat_unbind(nat, a.binding), -ENOENT);
	assert_int_equal(mod_nat_binding_get(nat, a.binding, &got), -ENOENT);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &c), -ENOBUFS);
	/* a reader still holding the old slot id still rewrites correctly */
	{
		struct spec o;

		spec_init(&o, 4, P_TCP, "10.0.0.1", 1111, "198.51.100.7", 80);
		roundtrip(nat, &o, &a);
	}
	assert_int_equal(mod_nat_release(nat, a.binding), 0);
	assert_int_equal(mod_nat_release(nat, a.binding), -ENOENT);
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &c), 0);
	assert_int_equal(c.binding, a.binding);
	roundtrip(nat, &s, &c);

	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.allocated, 3);
	assert_int_equal(st.active, 2);
	assert_int_equal(st.retired, 0);
	assert_int_equal(st.table_full, 2);
	assert_int_equal(st.capacity, 2);

	assert_int_equal(mod_nat_unbind(nat, 2), -EINVAL);
	assert_int_equal(mod_nat_release(nat, 2), -EINVAL);
	assert_int_equal(mod_nat_unbind(NULL, 0), -EINVAL);
	assert_int_equal(mod_nat_release(NULL, 0), -EINVAL);
	assert_int_equal(mod_nat_binding_get(nat, 7, &got), -EINVAL);
	mod_nat_free(nat);
	mod_nat_free(NULL);
}

static void
test_create_bad(void **state)
{
	struct mod_nat_params bad[] = {
		{.max_bindings = 0},
		{.max_bindings = MOD_NAT_BINDINGS_MAX + 1},
		{.max_bindings = 4, .max_targets = 1000000},
	};

	(void)state;
	errno = 0;
	assert_null(mod_nat_create(NULL));
	assert_int_equal(errno, EINVAL);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(mod_nat_create(&bad[i]));
		assert_int_equal(errno, EINVAL);
	}
}

static void
test_bind_bad(void **state)
{
	struct mod_nat *nat = nat_new(4);
	struct rule_nat v4 = target(4, "192.0.2.1", NULL, 0, 0);
	struct rule_nat v6 = target(6, "2001:db8::1", NULL, 0, 0);
	struct rule_nat rev = target(4, "192.0.2.9", "192.0.2.1", 0, 0);
	struct rule_nat ports_rev = target(4, "192.0.2.1", NULL, 2000, 1000);
	struct rule_nat portonly = target(4, NULL, NULL, 1000, 2000);
	struct rule_nat portonly_rev = target(4, NULL, NULL, 2000, 1000);
	struct mod_nat_binding_result res;
	struct mod_nat_stats st;
	uint8_t masq[16];
	struct fc_key k, none;
	struct spec s;
	const struct {
		const char *name;
		const struct fc_key *k;
		const struct rule_nat *dn, *sn;
		const uint8_t *masq;
		int ret;
	} cases[] = {
		{"nothing to do", &k, NULL, NULL, NULL, -EINVAL},
		{"no family", &none, &v4, NULL, NULL, -EINVAL},
		{"dnat nat64", &k, &v6, NULL, NULL, -EINVAL},
		{"snat nat64", &k, NULL, &v6, NULL, -EINVAL},
		{"snat without address", &k, NULL, &portonly, NULL, -EINVAL},
		{"dnat min > max", &k, &rev, NULL, NULL, -EINVAL},
		{"snat min > max", &k, NULL, &rev, NULL, -EINVAL},
		{"ports min > max", &k, NULL, &ports_rev, NULL, -EINVAL},
		{"masq ports min > max", &k, NULL, &portonly_rev, masq, -EINVAL},
		{"masq with v6 target", &k, NULL, &v6, masq, -EINVAL},
	};

	(void)state;
	addr_parse(4, "192.0.2.50", masq);
	spec_init(&s, 4, P_TCP, "10.0.0.1", 1, "198.51.100.7", 80);
	k = spec_key(&s);
	memset(&none, 0, sizeof(none));
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %s\n", cases[i].name);
		assert_int_equal(mod_nat_bind(nat, cases[i].k, cases[i].dn, cases[i].sn,
					 cases[i].masq, &res),
			cases[i].ret);
	}
	assert_int_equal(mod_nat_bind(NULL, &k, &v4, NULL, NULL, &res), -EINVAL);
	assert_int_equal(mod_nat_bind(nat, NULL, &v4, NULL, NULL, &res), -EINVAL);
	assert_int_equal(mod_nat_bind(nat, &k, &v4, NULL, NULL, NULL), -EINVAL);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.active, 0);
	assert_int_equal(st.allocated, 0);
	assert_int_equal(st.exhausted, 0);
	/* masquerade with a port-only target is fine */
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &portonly, masq, &res), 0);
	assert_in_range(key_sport(&res.fwd), 1000, 2000);
	mod_nat_free(nat);
}

/* mod_nat_apply() refuses what it cannot do and then leaves the packet alone. */
static void
test_apply_refusals(void **state)
{
	struct mod_nat *nat = nat_new(4);
	struct rule_nat sn = target(4, "192.0.2.1", NULL, 40000, 40000);
	struct rule_nat sn6 = target(6, "2001:db8::1", NULL, 0, 0);
	struct mod_nat_binding_result res, res6;
	uint8_t buf[FRAME_MAX], copy[FRAME_MAX];
	struct fc_pkt p;
	struct spec s, s6;
	int len;

	(void)state;
	spec_init(&s, 4, P_SCTP, "10.0.0.1", 5000, "198.51.100.7", 5000);
	s.plen = 100;
	assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
	len = build(&s, buf, sizeof(buf));
	memcpy(copy, buf, (size_t)len);
	parse_ok(buf, (uint32_t)len, &p);
	/* SCTP's CRC needs the header and the packet's length, not its chunks
	 * (a chained datagram's later segments): the same bytes as on the whole. */
	assert_int_equal(mod_nat_apply(nat, res.fwd_slot, buf + p.l3_off, 60, &p), 0);
	assert_int_equal(apply_frame(nat, res.fwd_slot, copy, (uint32_t)len), 0);
	assert_memory_equal(buf, copy, (size_t)len);
	check_csums(buf, (uint32_t)len, false);
	/* a first fragment: its length is not the packet's */
	len = build(&s, buf, sizeof(buf));
	memcpy(copy, buf, (size_t)len);
	p.frag = FC_FRAG_FIRST;
	assert_int_equal(mod_nat_apply(nat, res.fwd_slot, buf + p.l3_off, 60, &p), -ENOTSUP);
	p.frag = FC_FRAG_NONE;
	assert_memory_equal(buf, copy, (size_t)len);
	/* headers cut short */
	assert_int_equal(mod_nat_apply(nat, res.fwd_slot, buf + p.l3_off, 19, &p), -EINVAL);
	assert_int_equal(mod_nat_apply(nat, res.fwd_slot, buf + p.l3_off, 30, &p), -EINVAL);
	assert_memory_equal(buf, copy, (size_t)len);

	/* a slot of the other family */
	spec_init(&s6, 6, P_TCP, "fd00::1", 1, "2001:db8:1::7", 80);
	assert_int_equal(bind_spec(nat, &s6, NULL, &sn6, NULL, &res6), 0);
	assert_int_equal(
		mod_nat_apply(nat, res6.fwd_slot, buf + p.l3_off, (uint32_t)len - p.l3_off, &p),
		-EINVAL);
	/* a slot never bound */
	assert_int_equal(mod_nat_apply(nat, MOD_NAT_SLOT_FWD(3), buf + p.l3_off,
				 (uint32_t)len - p.l3_off, &p),
		-EINVAL);
	assert_memory_equal(buf, copy, (size_t)len);
	/* and the whole thing works */
	assert_int_equal(apply_frame(nat, res.fwd_slot, buf, (uint32_t)len), 0);
	check_csums(buf, (uint32_t)len, false);
	mod_nat_free(nat);
}

/*
 * A port change on an SCTP packet whose CRC32c arrived wrong keeps it
 * wrong by the same error (the receiver drops it, as without NAT) rather
 * than writing a valid CRC over corrupted bytes; right ones stay right.
 * Lengths from the header alone to a few hundred bytes, both families.
 */
static void
test_sctp_crc_error_kept(void **state)
{
	struct mod_nat *nat = nat_new(8);
	uint8_t buf[FRAME_MAX];
	uint32_t lens[] = {0, 1, 4, 16, 100, 250};

	(void)state;
	for (unsigned int f = 0; f < 2; f++) {
		struct rule_nat sn = f == 0 ? target(4, "192.0.2.1", NULL, 40000, 40000)
					    : target(6, "2001:db8::1", NULL, 40000, 40000);
		struct mod_nat_binding_result res;
		struct spec s;

		spec_init(&s, f == 0 ? 4 : 6, P_SCTP, f == 0 ? "10.0.0.1" : "fd00::1", 5000,
			f == 0 ? "198.51.100.7" : "2001:db8:1::7", 36412);
		assert_int_equal(bind_spec(nat, &s, NULL, &sn, NULL, &res), 0);
		for (unsigned int i = 0; i < RTE_DIM(lens); i++)
			for (uint32_t err = 0; err < 3; err++) {
				uint32_t flip = err == 0 ? 0 : err == 1 ? 0x1u : 0x80402010u;
				struct fc_pkt p;
				uint8_t *l4;
				uint32_t l4len, got;
				int len;

				s.plen = lens[i];
				len = build(&s, buf, sizeof(buf));
				parse_ok(buf, (uint32_t)len, &p);
				l4 = buf + p.l4_off;
				l4len = p.l3_off + p.ip_len - p.l4_off;
				/* the error: bits of the stored CRC flipped */
				for (unsigned int k = 0; k < 4; k++)
					l4[8 + k] ^= (uint8_t)(flip >> (8 * k));
				assert_int_equal(apply_frame(nat, res.fwd_slot, buf, (uint32_t)len), 0);
				assert_int_equal(l4[0] << 8 | l4[1], 40000);
				got = l4[8] | l4[9] << 8 | l4[10] << 16 | (uint32_t)l4[11] << 24;
				assert_int_equal(got ^ ref_crc32c(l4, l4len), flip);
			}
	}
	mod_nat_free(nat);
}

/* ------------------------------------------------------------------------ */
/* Counters and dump                                                         */
/* ------------------------------------------------------------------------ */

static void
test_stats_dump(void **state)
{
	struct mod_nat_params p = {.max_bindings = 8, .max_targets = 2};
	struct mod_nat *nat = mod_nat_create(&p);
	struct rule_nat t1 = target(4, "192.0.2.1", "192.0.2.4", 1024, 2047);
	struct rule_nat t2 = target(4, "10.0.0.5", NULL, 0, 0);
	struct rule_nat t3 = target(4, "192.0.2.100", NULL, 0, 0);
	struct mod_nat_binding_result a, b, c;
	struct mod_nat_target_stats ts;
	struct mod_nat_stats st;
	uint8_t masq[16];
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	struct spec s;

	(void)state;
	assert_non_null(nat);
	spec_init(&s, 4, P_TCP, "10.0.0.2", 1500, "198.51.100.7", 443);
	assert_int_equal(bind_spec(nat, &s, NULL, &t1, NULL, &a), 0);
	spec_init(&s, 4, P_UDP, "198.51.100.7", 999, "192.0.2.1", 53);
	assert_int_equal(bind_spec(nat, &s, &t2, NULL, NULL, &b), 0);

	f = open_memstream(&text, &size);
	assert_non_null(f);
	assert_int_equal(mod_nat_dump(nat, f), 2);
	fclose(f);
	print_message("%s", text);
	assert_non_null(strstr(text, "nat: active 2 retired 0 capacity 8 allocated 2"));
	assert_non_null(strstr(text, "target snat 192.0.2.1-192.0.2.4 ports 1024-2047: active 1"));
	assert_non_null(strstr(text, "target dnat 10.0.0.5: active 1 allocated 1 exhausted 0"));
	assert_non_null(strstr(text, "binding 0: tcp 10.0.0.2:1500 -> 198.51.100.7:443"));
	assert_non_null(
		strstr(text, ":1500 -> 198.51.100.7:443 src_local=0 dst_local=0 in_port=0 [snat]"));
	assert_non_null(strstr(text, "=> udp 198.51.100.7:999 -> 10.0.0.5:53"));
	assert_non_null(strstr(text, "[dnat]"));
	free(text);

	/* the target table is full and busy: a third target works, uncounted */
	addr_parse(4, "192.0.2.100", masq);
	spec_init(&s, 4, P_TCP, "10.0.0.3", 1500, "198.51.100.7", 443);
	assert_int_equal(bind_spec(nat, &s, NULL, NULL, masq, &c), 0);
	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.targets, 2);
	/* once idle, the least recently used entry is recycled */
	assert_int_equal(mod_nat_unbind(nat, a.binding), 0);
	assert_int_equal(mod_nat_release(nat, a.binding), 0);
	spec_init(&s, 4, P_TCP, "10.0.0.4", 1500, "198.51.100.7", 443);
	assert_int_equal(bind_spec(nat, &s, NULL, &t3, NULL, &c), 0);
	assert_int_equal(mod_nat_target_stats_get(nat, 0, &ts), 0);
	assert_int_equal(ts.action, RULE_ACT_SNAT);
	assert_memory_equal(ts.nat.addr_min, t3.addr_min, 4);
	assert_int_equal(ts.active, 1);
	assert_int_equal(ts.allocated, 1);
	assert_int_equal(mod_nat_target_stats_get(nat, 1, &ts), 0);
	assert_int_equal(ts.action, RULE_ACT_DNAT);
	assert_int_equal(mod_nat_target_stats_get(nat, 2, &ts), -ENOENT);
	assert_int_equal(mod_nat_target_stats_get(NULL, 0, &ts), -EINVAL);
	assert_int_equal(mod_nat_dump(NULL, stdout), -EINVAL);
	mod_nat_free(nat);
}

/*
 * mod_nat_icmp_error() on hostile bytes: random datagrams shaped enough to
 * reach every parse step (versions, protocols, error types, quoted
 * headers), in buffers of their exact length so the sanitizers catch any
 * read or write past them; and a refused datagram is never changed.
 */
static void
test_icmp_error_random(void **state)
{
	struct mod_nat *nat = nat_new(4);
	struct mod_nat_binding_result r4, r6;
	struct spec s4, s6;
	uint8_t snat6[16];
	struct rule_nat t4 = target(FC_AF_INET4, "203.0.113.1", NULL, 0, 0);
	struct rule_nat t6;
	unsigned int ok = 0;

	(void)state;
	addr_parse(FC_AF_INET6, "2001:db8:ffff::1", snat6);
	t6 = target(FC_AF_INET6, "2001:db8:ffff::1", NULL, 0, 0);
	spec_init(&s4, FC_AF_INET4, P_TCP, "10.0.0.1", 4000, "198.51.100.1", 80);
	spec_init(&s6, FC_AF_INET6, P_UDP, "2001:db8::1", 5000, "2001:db8:1::1", 53);
	assert_int_equal(bind_spec(nat, &s4, NULL, &t4, NULL, &r4), 0);
	assert_int_equal(bind_spec(nat, &s6, NULL, &t6, NULL, &r6), 0);
	for (unsigned int i = 0; i < 200000; i++) {
		bool v6 = rnd() & 1;
		uint32_t len = rnd_below(v6 ? 140 : 100);
		uint8_t *b = malloc(len ? len : 1), *copy = malloc(len ? len : 1);
		uint32_t icmp, in, slot;
		int rc;

		assert_non_null(b);
		assert_non_null(copy);
		for (uint32_t j = 0; j < len; j++)
			b[j] = (uint8_t)rnd();
		icmp = v6 ? 40 : 20;
		in = icmp + 8;
		if (len > 0)
			b[0] = (uint8_t)((rnd_below(8) ? (v6 ? 0x60 : 0x45) : rnd()));
		if (!v6 && len > 9 && rnd_below(8))
			b[9] = 1;
		if (!v6 && len > 7 && rnd_below(4)) {
			b[6] = 0;
			b[7] = 0;
		}
		if (!v6 && len > 3 && rnd_below(2)) {
			b[2] = 0;
			b[3] = (uint8_t)(len + rnd_below(3) - 1);
		}
		if (v6 && len > 6 && rnd_below(8))
			b[6] = 58;
		if (v6 && len > 5 && rnd_below(2)) {
			b[4] = 0;
			b[5] = (uint8_t)(len - 40 + rnd_below(3) - 1);
		}
		if (len > icmp && rnd_below(8))
			b[icmp] = v6 ? (uint8_t)(1 + rnd_below(4)) : (uint8_t)(rnd_below(2) ? 3 : 11);
		if (len > in && rnd_below(8))
			b[in] = v6 ? 0x60 : (uint8_t)(0x45 + rnd_below(2));
		if (!v6 && len > in + 9 && rnd_below(2))
			b[in + 9] = (uint8_t)(rnd_below(2) ? P_TCP : P_ICMP);
		if (v6 && len > in + 6 && rnd_below(2))
			b[in + 6] = (uint8_t)(rnd_below(2) ? P_UDP : P_ICMPV6);
		memcpy(copy, b, len);
		slot = v6 ? (rnd_below(2) ? r6.fwd_slot : r6.reply_slot) :
			    (rnd_below(2) ? r4.fwd_slot : r4.reply_slot);
		if (rnd_below(16) == 0)
			slot = v6 ? r4.fwd_slot : r6.fwd_slot; /* family mismatch */
		rc = mod_nat_icmp_error(nat, slot, b, len);
		assert_true(rc == 0 || rc == -EINVAL || rc == -ENOTSUP);
		if (rc != 0 && len > 0)
			assert_memory_equal(b, copy, len);
		ok += rc == 0;
		free(b);
		free(copy);
	}
	assert_true(ok > 100); /* the shaping reaches the rewrite */
	assert_int_equal(mod_nat_icmp_error(nat, 1000, NULL, 0), -EINVAL);
	mod_nat_free(nat);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad),
		cmocka_unit_test(test_bind_bad),
		cmocka_unit_test(test_csum_adjust),
		cmocka_unit_test(test_roundtrip_table),
		cmocka_unit_test(test_icmp_other),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_apply_refusals),
		cmocka_unit_test(test_sctp_crc_error_kept),
		cmocka_unit_test(test_apply_fast),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_ports_unique),
		cmocka_unit_test(test_ports_in_port),
		cmocka_unit_test(test_ports_per_endpoint),
		cmocka_unit_test(test_ports_exhaustion),
		cmocka_unit_test(test_addr_exhaustion),
		cmocka_unit_test(test_echo_ids),
		cmocka_unit_test(test_icmp_query_ids),
		cmocka_unit_test(test_udplite),
		cmocka_unit_test(test_dccp),
		cmocka_unit_test(test_dnat_clash),
		cmocka_unit_test(test_reply_vs_orig),
		cmocka_unit_test(test_dnat_range),
		cmocka_unit_test(test_callbacks),
		cmocka_unit_test(test_probe_budget),
		cmocka_unit_test(test_lifecycle),
		cmocka_unit_test(test_stats_dump),
		cmocka_unit_test(test_icmp_error_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
