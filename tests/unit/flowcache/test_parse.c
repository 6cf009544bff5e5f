/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/flowcache/test_parse.c — the packet parser (fc_parse,
 * fc_parse_mbuf, fc_parse_burst, result names).
 *
 * Every layout is built with pkt_build and checked field by field; a table
 * of malformed frames checks each named error; truncation sweeps check that
 * no prefix of a valid frame parses as OK and that a frame cut at any byte
 * (with its IP length made to agree) fails at exactly the layer cut. Frames
 * are handed to the parser in exactly sized heap copies so ASan catches any
 * read past the end. mbufs are built by hand (no EAL): chains whose headers
 * straddle segments must parse exactly as the flat frame.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "flowcache.h"
#include "pkt_build.h"

#define V4_SRC 0xc0000201u /* 192.0.2.1 */
#define V4_DST 0xc6336407u /* 198.51.100.7 */
#define V4_ID  0x1234

static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0x10, [15] = 0x02};

#define FRAME_MAX 4096

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static void
l2(struct pb *b, unsigned int n_vlan)
{
	static const uint16_t tpids[3] = {PB_TPID_8021AD, PB_TPID_8021Q, PB_TPID_8021Q};
	unsigned int i;

	pb_eth(b, NULL, NULL);
	for (i = 0; i < n_vlan; i++)
		pb_vlan(b, n_vlan == 1 ? PB_TPID_8021Q : tpids[i], (uint16_t)(100 + i));
}

static void
ip4_opts(struct pb *b, uint16_t frag_off, bool mf, const uint8_t *opts, uint8_t opts_len)
{
	struct pb_ipv4 ip = {
		.src = V4_SRC,
		.dst = V4_DST,
		.id = V4_ID,
		.frag_off = frag_off,
		.mf = mf,
		.opts = opts,
		.opts_len = opts_len,
	};

	pb_ipv4(b, &ip);
}

static void
ip4(struct pb *b)
{
	ip4_opts(b, 0, false, NULL, 0);
}

static void
ip6(struct pb *b)
{
	struct pb_ipv6 ip = {.flow = 0x12345};

	memcpy(ip.src, v6_src, 16);
	memcpy(ip.dst, v6_dst, 16);
	pb_ipv6(b, &ip);
}

static uint32_t
finish(struct pb *b)
{
	int n = pb_finish(b);

	assert_true(n > 0);
	return (uint32_t)n;
}

/* fc_parse on an exactly sized heap copy, with *pkt pre-filled with junk. */
static enum fc_parse_result
parse(const uint8_t *f, uint32_t len, struct fc_pkt *pkt)
{
	uint8_t *copy = malloc(len != 0 ? len : 1);
	enum fc_parse_result r;

	assert_non_null(copy);
	if (len != 0)
		memcpy(copy, f, len);
	memset(pkt, 0xa5, sizeof(*pkt));
	r = fc_parse(copy, len, pkt);
	free(copy);
	return r;
}

static void
assert_bytes_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(b[i], 0);
}

static void
check_v4(const struct fc_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport)
{
	const uint8_t *raw = (const uint8_t *)&p->key;

	assert_int_equal(p->key.family, FC_AF_INET4);
	assert_int_equal(p->key.v4.src, htonl(V4_SRC));
	assert_int_equal(p->key.v4.dst, htonl(V4_DST));
	assert_int_equal(p->key.v4.proto, proto);
	assert_int_equal(p->key.v4.sport, htons(sport));
	assert_int_equal(p->key.v4.dport, htons(dport));
	assert_int_equal(p->key.v4.flags, 0);
	assert_int_equal(p->key.v4.in_port, 0); /* the caller's to set */
	/* the rest of the union is zero too: the whole key is normalized */
	assert_bytes_zero(raw + sizeof(struct fc_key_v4),
		sizeof(struct fc_key_v6) - sizeof(struct fc_key_v4));
}

static void
check_v6(const struct fc_pkt *p, uint8_t proto, uint16_t sport, uint16_t dport)
{
	assert_int_equal(p->key.family, FC_AF_INET6);
	assert_memory_equal(p->key.v6.src, v6_src, 16);
	assert_memory_equal(p->key.v6.dst, v6_dst, 16);
	assert_int_equal(p->key.v6.proto, proto);
	assert_int_equal(p->key.v6.sport, htons(sport));
	assert_int_equal(p->key.v6.dport, htons(dport));
	assert_int_equal(p->key.v6.flags, 0);
	assert_int_equal(p->key.v6.in_port, 0); /* the caller's to set */
	assert_bytes_zero(p->key.v6.pad, sizeof(p->key.v6.pad));
}

/* Fields that must be zero for an unfragmented non-ICMP packet. */
static void
check_plain(const struct fc_pkt *p)
{
	assert_int_equal(p->frag, FC_FRAG_NONE);
	assert_int_equal(p->frag_off, 0);
	assert_int_equal(p->frag_id, 0);
	assert_int_equal(p->icmp_type, 0);
	assert_int_equal(p->icmp_code, 0);
}

/* ------------------------------------------------------------------------ */
/* Layouts                                                                   */
/* ------------------------------------------------------------------------ */

static void
test_v4_tcp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_tcp(&b, 1234, 80, PB_TCP_SYN | PB_TCP_ACK, 1, 2, 0);
	pb_payload(&b, NULL, 10);
	len = finish(&b);
	assert_int_equal(len, 14 + 20 + 20 + 10);

	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v4(&p, PB_PROTO_TCP, 1234, 80);
	check_plain(&p);
	assert_int_equal(p.l3_off, 14);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.ip_len, 50);
	assert_int_equal(p.n_vlan, 0);
	assert_int_equal(p.tcp_flags, PB_TCP_SYN | PB_TCP_ACK);
}

static void
test_v4_udp_padded(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_udp(&b, 53, 5353);
	pb_payload(&b, NULL, 4);
	assert_int_equal(finish(&b), 46);
	assert_int_equal(pb_pad(&b, 60), 60);

	/* the padding is not part of the datagram: ip_len from the header */
	assert_int_equal(parse(f, 60, &p), FC_PARSE_OK);
	check_v4(&p, PB_PROTO_UDP, 53, 5353);
	check_plain(&p);
	assert_int_equal(p.ip_len, 32);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.tcp_flags, 0);
}

static void
test_v4_options(void **state)
{
	uint8_t f[FRAME_MAX], opts[40];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	uint8_t olen;

	(void)state;
	memset(opts, 1, sizeof(opts)); /* NOP */
	for (olen = 0; olen <= 40; olen += 4) {
		pb_init(&b, f, sizeof(f));
		l2(&b, 1);
		ip4_opts(&b, 0, false, opts, olen);
		pb_tcp(&b, 40000, 443, PB_TCP_ACK, 1, 2, 40); /* doff 15 */
		len = finish(&b);

		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v4(&p, PB_PROTO_TCP, 40000, 443);
		check_plain(&p);
		assert_int_equal(p.l3_off, 18);
		assert_int_equal(p.l4_off, 18 + 20 + olen);
		assert_int_equal(p.ip_len, 20 + olen + 60);
		assert_int_equal(p.tcp_flags, PB_TCP_ACK);
	}
}

static void
test_vlan(void **state)
{
	static const uint16_t tpids[] = {PB_TPID_8021Q, PB_TPID_8021AD, PB_TPID_9100};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(tpids); i++) {
		pb_init(&b, f, sizeof(f));
		pb_eth(&b, NULL, NULL);
		pb_vlan(&b, tpids[i], 0x0fff);
		ip4(&b);
		pb_udp(&b, 1000, 2000);
		len = finish(&b);

		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v4(&p, PB_PROTO_UDP, 1000, 2000);
		assert_int_equal(p.n_vlan, 1);
		assert_int_equal(p.l3_off, 18);
		assert_int_equal(p.l4_off, 38);
	}
}

static void
test_qinq(void **state)
{
	static const uint16_t outer[] = {PB_TPID_8021AD, PB_TPID_9100, PB_TPID_8021Q};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(outer); i++) {
		pb_init(&b, f, sizeof(f));
		pb_eth(&b, NULL, NULL);
		pb_vlan(&b, outer[i], 10);
		pb_vlan(&b, PB_TPID_8021Q, 20);
		ip4(&b);
		pb_tcp(&b, 5, 6, PB_TCP_FIN, 0, 0, 0);
		len = finish(&b);

		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v4(&p, PB_PROTO_TCP, 5, 6);
		assert_int_equal(p.n_vlan, 2);
		assert_int_equal(p.l3_off, 22);
		assert_int_equal(p.l4_off, 42);
		assert_int_equal(p.tcp_flags, PB_TCP_FIN);
	}

	/* IPv6 in QinQ */
	pb_init(&b, f, sizeof(f));
	l2(&b, 2);
	ip6(&b);
	pb_udp(&b, 7, 8);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_UDP, 7, 8);
	assert_int_equal(p.n_vlan, 2);
	assert_int_equal(p.l3_off, 22);
	assert_int_equal(p.l4_off, 62);
	assert_int_equal(p.ip_len, 48);
}

static void
test_v6_tcp_udp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_tcp(&b, 33333, 22, PB_TCP_PSH | PB_TCP_ACK, 9, 9, 12);
	pb_payload(&b, NULL, 100);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_TCP, 33333, 22);
	check_plain(&p);
	assert_int_equal(p.l3_off, 14);
	assert_int_equal(p.l4_off, 54);
	assert_int_equal(p.ip_len, 40 + 32 + 100);
	assert_int_equal(p.tcp_flags, PB_TCP_PSH | PB_TCP_ACK);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_udp(&b, 546, 547);
	len = finish(&b);
	assert_int_equal(pb_pad(&b, 100), 100);
	assert_int_equal(parse(f, 100, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_UDP, 546, 547);
	assert_int_equal(p.ip_len, 48);
	assert_int_equal(p.tcp_flags, 0);
	(void)len;
}

static void
test_v6_ext_each(void **state)
{
	static const uint8_t types[] = {PB_PROTO_HOPOPTS, PB_PROTO_ROUTING, PB_PROTO_DSTOPTS};
	static const uint32_t lens[] = {8, 24, 2048};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	unsigned int i, j;
	uint32_t len;

	(void)state;
	for (i = 0; i < RTE_DIM(types); i++) {
		for (j = 0; j < RTE_DIM(lens); j++) {
			pb_init(&b, f, sizeof(f));
			l2(&b, 0);
			ip6(&b);
			pb_ipv6_ext(&b, types[i], lens[j]);
			pb_tcp(&b, 1, 2, PB_TCP_RST, 0, 0, 0);
			len = finish(&b);

			assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
			check_v6(&p, PB_PROTO_TCP, 1, 2);
			check_plain(&p);
			assert_int_equal(p.l4_off, 54 + lens[j]);
			assert_int_equal(p.ip_len, 40 + lens[j] + 20);
			assert_int_equal(p.tcp_flags, PB_TCP_RST);
		}
	}
}

static void
test_v6_ext_chain(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	unsigned int i;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 1);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 16);
	pb_ipv6_ext(&b, PB_PROTO_ROUTING, 24);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_udp(&b, 4500, 4500);
	pb_payload(&b, NULL, 3);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_UDP, 4500, 4500);
	check_plain(&p);
	assert_int_equal(p.l3_off, 18);
	assert_int_equal(p.l4_off, 18 + 40 + 56);
	assert_int_equal(p.ip_len, 40 + 56 + 11);

	/* exactly FC_PARSE_MAX_EXT extension headers is fine */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	for (i = 1; i < FC_PARSE_MAX_EXT; i++)
		pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_sctp(&b, 9, 10, 0);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_SCTP, 9, 10);
	assert_int_equal(p.l4_off, 54 + 8 * FC_PARSE_MAX_EXT);
}

static void
test_v6_atomic_frag(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_ipv6_frag(&b, 0, false, 0xabcdef01);
	pb_tcp(&b, 11, 12, PB_TCP_SYN, 0, 0, 0);
	len = finish(&b);

	/* offset 0, M = 0: a whole packet (RFC 6946) */
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_TCP, 11, 12);
	check_plain(&p);
	assert_int_equal(p.l4_off, 54 + 8 + 8);
}

/* A full UDP datagram of @p plen payload bytes, cut into IPv4 fragments. */
static uint32_t
v4_full(uint8_t *f, uint8_t proto, uint32_t plen)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4(&b);
	if (proto == PB_PROTO_TCP)
		pb_tcp(&b, 2000, 3000, PB_TCP_ACK, 1, 1, 0);
	else
		pb_udp(&b, 2000, 3000);
	/* payload that looks like ports if misread as an L4 header */
	pb_payload(&b, NULL, plen);
	return finish(&b);
}

static void
test_v4_frag(void **state)
{
	uint8_t full[FRAME_MAX], f[FRAME_MAX];
	struct fc_pkt p;
	uint32_t flen;
	int n;

	(void)state;
	flen = v4_full(full, PB_PROTO_UDP, 100); /* IP payload 108 */

	/* first: offset 0, MF; the UDP length (108) exceeds this fragment */
	n = pb_ipv4_fragment(full, flen, 14, 0, 48, f, sizeof(f));
	assert_int_equal(n, 14 + 20 + 48);
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_FIRST);
	check_v4(&p, PB_PROTO_UDP, 2000, 3000);
	assert_int_equal(p.frag, FC_FRAG_FIRST);
	assert_int_equal(p.frag_off, 0);
	assert_int_equal(p.frag_id, V4_ID);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.ip_len, 68);

	/* middle: offset 48, MF */
	n = pb_ipv4_fragment(full, flen, 14, 48, 48, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v4(&p, PB_PROTO_UDP, 0, 0);
	assert_int_equal(p.frag, FC_FRAG_LATER);
	assert_int_equal(p.frag_off, 48);
	assert_int_equal(p.frag_id, V4_ID);
	assert_int_equal(p.l4_off, 0);
	assert_int_equal(p.ip_len, 68);

	/* last: offset 96, no MF, 12 bytes (too few for any L4 header) */
	n = pb_ipv4_fragment(full, flen, 14, 96, 12, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v4(&p, PB_PROTO_UDP, 0, 0);
	assert_int_equal(p.frag_off, 96);
	assert_int_equal(p.l4_off, 0);
	assert_int_equal(p.ip_len, 32);

	/* TCP first fragment carries the flags */
	flen = v4_full(full, PB_PROTO_TCP, 64);
	n = pb_ipv4_fragment(full, flen, 14, 0, 24, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_FIRST);
	check_v4(&p, PB_PROTO_TCP, 2000, 3000);
	assert_int_equal(p.tcp_flags, PB_TCP_ACK);
	n = pb_ipv4_fragment(full, flen, 14, 24, 60, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v4(&p, PB_PROTO_TCP, 0, 0);
	assert_int_equal(p.tcp_flags, 0);
}

static void
test_v4_frag_options(void **state)
{
	/* record route (not copied), then a copied option (type 0x94, RA) */
	static const uint8_t opts[12] = {7, 7, 4, 0, 0, 0, 0, 1, 0x94, 4, 0, 0};
	uint8_t full[FRAME_MAX], f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t flen;
	int n;

	(void)state;
	pb_init(&b, full, sizeof(full));
	l2(&b, 1);
	ip4_opts(&b, 0, false, opts, sizeof(opts));
	pb_tcp(&b, 80, 8080, PB_TCP_ACK, 0, 0, 0);
	pb_payload(&b, NULL, 40);
	flen = finish(&b);

	n = pb_ipv4_fragment(full, flen, 18, 0, 32, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_FIRST);
	check_v4(&p, PB_PROTO_TCP, 80, 8080);
	assert_int_equal(p.l4_off, 18 + 32);

	n = pb_ipv4_fragment(full, flen, 18, 32, 28, f, sizeof(f));
	assert_int_equal(n, 18 + 24 + 28); /* only the copied option is kept */
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v4(&p, PB_PROTO_TCP, 0, 0);
	assert_int_equal(p.frag_off, 32);
	assert_int_equal(p.l4_off, 0);
	assert_int_equal(p.l3_off, 18);
}

static void
test_v6_frag(void **state)
{
	uint8_t full[FRAME_MAX], f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t flen;
	int n;

	(void)state;
	pb_init(&b, full, sizeof(full));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_ROUTING, 16);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8); /* fragmentable: after routing */
	pb_tcp(&b, 6000, 7000, PB_TCP_SYN, 0, 0, 0);
	pb_payload(&b, NULL, 200);
	flen = finish(&b);

	/* first: unfragmentable part (HBH, routing), frag header, then DST + TCP */
	n = pb_ipv6_fragment(full, flen, 14, 0, 64, 0xdeadbeef, f, sizeof(f));
	assert_int_equal(n, 14 + 40 + 24 + 8 + 64);
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_FIRST);
	check_v6(&p, PB_PROTO_TCP, 6000, 7000);
	assert_int_equal(p.frag, FC_FRAG_FIRST);
	assert_int_equal(p.frag_off, 0);
	assert_int_equal(p.frag_id, 0xdeadbeef);
	assert_int_equal(p.l4_off, 14 + 40 + 24 + 8 + 8);
	assert_int_equal(p.tcp_flags, PB_TCP_SYN);

	/* later: next header of the fragmentable part, no ports */
	n = pb_ipv6_fragment(full, flen, 14, 64, 64, 0xdeadbeef, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v6(&p, PB_PROTO_DSTOPTS, 0, 0);
	assert_int_equal(p.frag, FC_FRAG_LATER);
	assert_int_equal(p.frag_off, 64);
	assert_int_equal(p.frag_id, 0xdeadbeef);
	assert_int_equal(p.l4_off, 0);
	assert_int_equal(p.tcp_flags, 0);
	assert_int_equal(p.ip_len, 40 + 24 + 8 + 64);

	/* plain UDP, fragment header right after the IPv6 header */
	pb_init(&b, full, sizeof(full));
	l2(&b, 2);
	ip6(&b);
	pb_udp(&b, 123, 456);
	pb_payload(&b, NULL, 100);
	flen = finish(&b);
	n = pb_ipv6_fragment(full, flen, 22, 0, 16, 7, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_FIRST);
	check_v6(&p, PB_PROTO_UDP, 123, 456);
	assert_int_equal(p.l4_off, 22 + 48);
	assert_int_equal(p.frag_id, 7);
	n = pb_ipv6_fragment(full, flen, 22, 96, 12, 7, f, sizeof(f));
	assert_int_equal(parse(f, (uint32_t)n, &p), FC_PARSE_FRAG_LATER);
	check_v6(&p, PB_PROTO_UDP, 0, 0);
	assert_int_equal(p.frag_off, 96);
	assert_int_equal(p.l4_off, 0);
}

static void
test_sctp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_sctp(&b, 2905, 2906, 0x01020304);
	pb_payload(&b, NULL, 16);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v4(&p, PB_PROTO_SCTP, 2905, 2906);
	check_plain(&p);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.tcp_flags, 0);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_sctp(&b, 36412, 36412, 1);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_SCTP, 36412, 36412);
	assert_int_equal(p.l4_off, 54);
}

static void
test_icmp(void **state)
{
	static const struct {
		uint8_t type, code;
		uint16_t sport, dport;
	} cases[] = {
		/* Linux's ICMP tuple: the identifier of a query, its type and code */
		{8, 0, 0x4242, 0x0800},	 /* echo request */
		{0, 0, 0x4242, 0x0000},	 /* echo reply */
		{8, 1, 0x4242, 0x0801},	 /* the code is kept */
		{3, 1, 0, 0x0301},	 /* host unreachable: no identifier */
		{11, 0, 0, 0x0b00},	 /* time exceeded */
		{13, 0, 0x4242, 0x0d00}, /* timestamp request: its identifier, as echo */
		{14, 0, 0x4242, 0x0e00}, /* timestamp reply */
		{15, 0, 0x4242, 0x0f00}, /* information request */
		{16, 0, 0x4242, 0x1000}, /* information reply */
		{17, 0, 0x4242, 0x1100}, /* address mask request */
		{18, 0, 0x4242, 0x1200}, /* address mask reply */
		{19, 0, 0, 0x1300},	 /* reserved: type and code */
		{12, 0, 0, 0x0c00},	 /* parameter problem */
	};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		pb_init(&b, f, sizeof(f));
		l2(&b, 0);
		ip4(&b);
		pb_icmp(&b, cases[i].type, cases[i].code, 0x4242, 7);
		pb_payload(&b, NULL, 28);
		len = finish(&b);
		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v4(&p, PB_PROTO_ICMP, cases[i].sport, cases[i].dport);
		assert_int_equal(p.icmp_type, cases[i].type);
		assert_int_equal(p.icmp_code, cases[i].code);
		assert_int_equal(p.l4_off, 34);
		assert_int_equal(p.frag, FC_FRAG_NONE);
		assert_int_equal(p.tcp_flags, 0);
	}
}

static void
test_icmp6(void **state)
{
	static const struct {
		uint8_t type, code;
		uint16_t sport, dport;
	} cases[] = {
		{128, 0, 0x9999, 0x8000}, /* echo request */
		{129, 0, 0x9999, 0x8100}, /* echo reply */
		{1, 4, 0, 0x0104},	  /* port unreachable */
		{2, 0, 0, 0x0200},	  /* packet too big */
		{135, 0, 0, 0x8700},	  /* neighbour solicitation */
		{8, 0, 0, 0x0800},	  /* ICMPv4's echo number means nothing here */
	};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		pb_init(&b, f, sizeof(f));
		l2(&b, 1);
		ip6(&b);
		pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
		pb_icmp6(&b, cases[i].type, cases[i].code, 0x9999, 1);
		pb_payload(&b, NULL, 16);
		len = finish(&b);
		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v6(&p, PB_PROTO_ICMPV6, cases[i].sport, cases[i].dport);
		assert_int_equal(p.icmp_type, cases[i].type);
		assert_int_equal(p.icmp_code, cases[i].code);
		assert_int_equal(p.l4_off, 18 + 40 + 8);
	}
}

static void
test_icmp_wrong_family(void **state)
{
	uint8_t f[FRAME_MAX], body[8] = {128, 0, 0, 0, 0x12, 0x34, 0, 1};
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	/* ICMPv4 (1) inside IPv6 and ICMPv6 (58) inside IPv4: plain protocols */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_ICMP, body, 4); /* too short for ICMP: no error */
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_ICMP, 0, 0);
	assert_int_equal(p.icmp_type, 0);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_l4_raw(&b, PB_PROTO_ICMPV6, body, sizeof(body));
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v4(&p, PB_PROTO_ICMPV6, 0, 0);
	assert_int_equal(p.icmp_type, 0);
}

/*
 * DCCP: ports in the key, as Linux's DCCP tracker keys them; the generic
 * header (12 bytes) must be there, whatever its type and data offset.
 */
static void
test_dccp(void **state)
{
	/* A Request: ports 1234 -> 5678, data offset 5, X=1 (type 0). */
	static const uint8_t req[20] = {0x04, 0xd2, 0x16, 0x2e, 0x05, 0x00, 0x12, 0x34, 0x00, 0x01};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_l4_raw(&b, 33, req, sizeof(req));
	pb_payload(&b, NULL, 8);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v4(&p, 33, 1234, 5678);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.tcp_flags, 0);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, 33, req, 12);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, 33, 1234, 5678);

	/* the generic header cut by the datagram's end */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_l4_raw(&b, 33, req, 11);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_ERR_TRUNC_DCCP);
}

/* UDP-Lite: ports as UDP; its length field is the coverage, never checked here. */
static void
test_udplite(void **state)
{
	static const uint8_t hdr_cov[][8] = {
		{0x04, 0xd2, 0x16, 0x2e, 0x00, 0x00, 0x12, 0x34}, /* coverage 0: all */
		{0x04, 0xd2, 0x16, 0x2e, 0x00, 0x03, 0x12, 0x34}, /* coverage 3: conntrack's to judge */
		{0x04, 0xd2, 0x16, 0x2e, 0xff, 0xff, 0x00, 0x00}, /* past the end, no checksum */
	};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(hdr_cov); i++) {
		pb_init(&b, f, sizeof(f));
		l2(&b, 0);
		ip4(&b);
		pb_l4_raw(&b, 136, hdr_cov[i], sizeof(hdr_cov[i]));
		pb_payload(&b, NULL, 12);
		len = finish(&b);
		assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
		check_v4(&p, 136, 1234, 5678);
		assert_int_equal(p.l4_off, 34);
	}

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, 136, hdr_cov[0], sizeof(hdr_cov[0]));
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, 136, 1234, 5678);

	/* a header cut by the datagram's end: truncated, as UDP */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_l4_raw(&b, 136, hdr_cov[0], 6);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_ERR_TRUNC_UDP);
}

static void
test_unknown_proto(void **state)
{
	uint8_t f[FRAME_MAX], gre[4] = {0, 0, 0x08, 0x00};
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_l4_raw(&b, PB_PROTO_GRE, gre, sizeof(gre));
	pb_payload(&b, NULL, 40);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v4(&p, PB_PROTO_GRE, 0, 0);
	check_plain(&p);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.ip_len, 64);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_l4_raw(&b, PB_PROTO_GRE, gre, sizeof(gre));
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_GRE, 0, 0);
	assert_int_equal(p.l4_off, 62);

	/* no next header, empty payload: 0 bytes of "L4" is fine */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_NONE, NULL, 0);
	len = finish(&b);
	assert_int_equal(len, 54);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	check_v6(&p, PB_PROTO_NONE, 0, 0);
	assert_int_equal(p.ip_len, 40);
}

static void
test_not_ip(void **state)
{
	static const uint16_t types[] = {PB_ETH_ARP, 0x88cc, 0x0040, 0x8847, 0x0000};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	unsigned int i, v;
	int len;

	(void)state;
	for (v = 0; v <= 2; v++) {
		for (i = 0; i < RTE_DIM(types); i++) {
			pb_init(&b, f, sizeof(f));
			l2(&b, v);
			pb_ethertype(&b, types[i]);
			pb_payload(&b, NULL, 28);
			len = pb_finish(&b);
			assert_true(len > 0);
			assert_int_equal(parse(f, (uint32_t)len, &p), FC_PARSE_NOT_IP);
			assert_int_equal(p.key.family, FC_AF_NONE);
			assert_int_equal(p.n_vlan, v);
		}
	}
	/* a bare Ethernet header is enough to know */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	pb_ethertype(&b, PB_ETH_ARP);
	assert_int_equal(pb_finish(&b), 14);
	assert_int_equal(parse(f, 14, &p), FC_PARSE_NOT_IP);
}

static void
test_key_normalized(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p, q;
	struct pb b;
	uint32_t len;

	(void)state;
	/* two parses of one frame into differently dirtied structs agree */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip4(&b);
	pb_udp(&b, 1, 2);
	len = finish(&b);
	memset(&p, 0xff, sizeof(p));
	memset(&q, 0x00, sizeof(q));
	assert_int_equal(fc_parse(f, len, &p), FC_PARSE_OK);
	assert_int_equal(fc_parse(f, len, &q), FC_PARSE_OK);
	assert_memory_equal(&p.key, &q.key, sizeof(p.key));
	check_v4(&p, PB_PROTO_UDP, 1, 2);

	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_udp(&b, 1, 2);
	len = finish(&b);
	memset(&p, 0xff, sizeof(p));
	memset(&q, 0x00, sizeof(q));
	assert_int_equal(fc_parse(f, len, &p), FC_PARSE_OK);
	assert_int_equal(fc_parse(f, len, &q), FC_PARSE_OK);
	assert_memory_equal(&p.key, &q.key, sizeof(p.key));
	check_v6(&p, PB_PROTO_UDP, 1, 2);
}

/* ------------------------------------------------------------------------ */
/* Malformed frames                                                          */
/* ------------------------------------------------------------------------ */

/* Offsets in the frames built by the mk_* helpers below. */
#define L3    14
#define L4_V4 (L3 + 20)
#define L4_V6 (L3 + 40)

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Ethernet + IPv4 + a @p proto header (TCP, UDP, SCTP, ICMP) + 16 bytes. */
static uint32_t
base_v4(uint8_t *f, uint8_t proto)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4(&b);
	switch (proto) {
	case PB_PROTO_TCP:
		pb_tcp(&b, 1, 2, 0, 0, 0, 0);
		break;
	case PB_PROTO_UDP:
		pb_udp(&b, 1, 2);
		break;
	case PB_PROTO_SCTP:
		pb_sctp(&b, 1, 2, 0);
		break;
	default:
		pb_icmp(&b, 8, 0, 1, 1);
		break;
	}
	pb_payload(&b, NULL, 16);
	return finish(&b);
}

static uint32_t
base_v6(uint8_t *f, uint8_t proto)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	if (proto == PB_PROTO_TCP)
		pb_tcp(&b, 1, 2, 0, 0, 0, 0);
	else if (proto == PB_PROTO_UDP)
		pb_udp(&b, 1, 2);
	else
		pb_icmp6(&b, 128, 0, 1, 1);
	pb_payload(&b, NULL, 16);
	return finish(&b);
}

/* Cut an IPv4 frame to @p len bytes with the total length following. */
static uint32_t
cut_v4(uint8_t *f, uint32_t l3, uint32_t len)
{
	put16(f + l3 + 2, (uint16_t)(len - l3));
	return len;
}

static uint32_t
cut_v6(uint8_t *f, uint32_t l3, uint32_t len)
{
	put16(f + l3 + 4, (uint16_t)(len - l3 - 40));
	return len;
}

#define MK(name) static uint32_t mk_##name(uint8_t *f)

MK(empty)
{
	(void)f;
	return 0;
}

MK(eth_short)
{
	base_v4(f, PB_PROTO_TCP);
	return 13;
}

MK(vlan_short)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 1);
	ip4(&b);
	pb_udp(&b, 1, 2);
	finish(&b);
	return 17;
}

MK(qinq_short)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 2);
	ip4(&b);
	pb_udp(&b, 1, 2);
	finish(&b);
	return 20;
}

MK(vlan_depth)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 3);
	ip4(&b);
	pb_udp(&b, 1, 2);
	return finish(&b);
}

MK(v4_short)
{
	base_v4(f, PB_PROTO_TCP);
	return L3 + 19;
}

MK(v4_version)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	f[L3] = 0x65; /* version 6 behind ethertype 0x0800 */
	return len;
}

MK(v4_ihl4)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	f[L3] = 0x44;
	return len;
}

MK(v4_ihl0)
{
	uint32_t len = base_v4(f, PB_PROTO_UDP);

	f[L3] = 0x40;
	return len;
}

MK(v4_opts_beyond)
{
	base_v4(f, PB_PROTO_UDP);
	f[L3] = 0x4f; /* 60-byte header, frame holds 20 + 8 + 16 */
	return L3 + 44;
}

MK(v4_totlen_below_hdr)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	put16(f + L3 + 2, 19);
	return len;
}

MK(v4_totlen_below_opts)
{
	static const uint8_t opts[8] = {1, 1, 1, 1, 1, 1, 1, 0};
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4_opts(&b, 0, false, opts, sizeof(opts));
	pb_udp(&b, 1, 2);
	finish(&b);
	put16(f + L3 + 2, 24); /* IHL says 28 */
	return b.len;
}

MK(v4_totlen_beyond)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	put16(f + L3 + 2, (uint16_t)(len - L3 + 1));
	return len;
}

MK(v4_frag_odd)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4_opts(&b, 8, true, NULL, 0);
	pb_l4_raw(&b, PB_PROTO_UDP, NULL, 13); /* not the last: must be 8k */
	return finish(&b);
}

MK(v4_frag_overflow)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4_opts(&b, 65528, false, NULL, 0);
	pb_l4_raw(&b, PB_PROTO_UDP, NULL, 16); /* 20 + 65528 + 16 > 65535 */
	return finish(&b);
}

MK(v4_frag_empty)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4_opts(&b, 8, true, NULL, 0);
	pb_l4_raw(&b, PB_PROTO_TCP, NULL, 0);
	return finish(&b);
}

MK(v4_first_frag_tiny_tcp)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4_opts(&b, 0, true, NULL, 0);
	pb_l4_raw(&b, PB_PROTO_TCP, NULL, 8); /* RFC 1858 tiny fragment */
	return finish(&b);
}

MK(v6_short)
{
	base_v6(f, PB_PROTO_TCP);
	return L3 + 39;
}

MK(v6_version)
{
	uint32_t len = base_v6(f, PB_PROTO_TCP);

	f[L3] = 0x40;
	return len;
}

MK(v6_paylen_beyond)
{
	uint32_t len = base_v6(f, PB_PROTO_UDP);

	put16(f + L3 + 4, (uint16_t)(len - L4_V6 + 1));
	return len;
}

MK(v6_paylen_zero)
{
	uint32_t len = base_v6(f, PB_PROTO_TCP);

	put16(f + L3 + 4, 0); /* TCP follows in the frame, not in the datagram */
	return len;
}

MK(v6_ext_len_beyond)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 16);
	pb_udp(&b, 1, 2);
	finish(&b);
	f[L4_V6 + 1] = 10; /* 88 bytes, the payload is 24 */
	return b.len;
}

MK(v6_ext_in_padding)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 16);
	pb_udp(&b, 1, 2);
	finish(&b);
	cut_v6(f, L3, L4_V6 + 8); /* the frame holds the header, the datagram not */
	return b.len;
}

MK(v6_ext_short)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_DSTOPTS, NULL, 4); /* under the 8-byte minimum */
	return finish(&b);
}

MK(v6_ext_chain)
{
	struct pb b;
	unsigned int i;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	for (i = 0; i < FC_PARSE_MAX_EXT; i++)
		pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_tcp(&b, 1, 2, 0, 0, 0, 0);
	return finish(&b);
}

MK(v6_ext_order)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_tcp(&b, 1, 2, 0, 0, 0, 0);
	return finish(&b);
}

MK(v6_hbh_twice)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_udp(&b, 1, 2);
	return finish(&b);
}

MK(v6_two_frag)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 0, false, 1);
	pb_ipv6_frag(&b, 0, false, 2);
	pb_udp(&b, 1, 2);
	return finish(&b);
}

MK(v6_frag_odd)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 0, true, 1);
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 4); /* 12 bytes with M set */
	return finish(&b);
}

MK(v6_frag_overflow)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 65528, false, 1);
	pb_payload(&b, NULL, 16);
	return finish(&b);
}

MK(v6_frag_empty)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 8, true, 1);
	return finish(&b);
}

MK(v6_first_frag_tiny_tcp)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 0, true, 1);
	pb_l4_raw(&b, PB_PROTO_TCP, NULL, 8);
	return finish(&b);
}

MK(tcp_short)
{
	base_v4(f, PB_PROTO_TCP);
	return cut_v4(f, L3, L4_V4 + 19);
}

MK(tcp_doff4)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	f[L4_V4 + 12] = 0x40;
	return len;
}

MK(tcp_doff0)
{
	uint32_t len = base_v6(f, PB_PROTO_TCP);

	f[L4_V6 + 12] = 0x00;
	return len;
}

MK(tcp_doff_beyond)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	f[L4_V4 + 12] = 0xf0; /* 60 bytes; the datagram has 20 + 16 */
	return len;
}

MK(tcp_doff_in_padding)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	/* the options are in the frame, but past the IP total length */
	f[L4_V4 + 12] = 0x60;
	cut_v4(f, L3, L4_V4 + 20);
	return len;
}

MK(tcp_in_padding)
{
	uint32_t len = base_v4(f, PB_PROTO_TCP);

	cut_v4(f, L3, L4_V4 + 10); /* IP says 10 bytes of TCP, frame has 36 */
	return len;
}

MK(udp_short)
{
	base_v4(f, PB_PROTO_UDP);
	return cut_v4(f, L3, L4_V4 + 7);
}

MK(udp_short_v6)
{
	base_v6(f, PB_PROTO_UDP);
	return cut_v6(f, L3, L4_V6 + 7);
}

MK(udp_len7)
{
	uint32_t len = base_v4(f, PB_PROTO_UDP);

	put16(f + L4_V4 + 4, 7);
	return len;
}

MK(udp_len0)
{
	uint32_t len = base_v6(f, PB_PROTO_UDP);

	put16(f + L4_V6 + 4, 0);
	return len;
}

MK(udp_len_beyond)
{
	uint32_t len = base_v4(f, PB_PROTO_UDP);

	put16(f + L4_V4 + 4, (uint16_t)(get16(f + L4_V4 + 4) + 1));
	return len;
}

MK(udp_len_in_padding)
{
	uint32_t len = base_v6(f, PB_PROTO_UDP);

	/* UDP length covers the frame, the IPv6 payload length stops short */
	cut_v6(f, L3, len - 4);
	return len;
}

MK(sctp_short)
{
	base_v4(f, PB_PROTO_SCTP);
	return cut_v4(f, L3, L4_V4 + 11);
}

MK(icmp_short)
{
	base_v4(f, PB_PROTO_ICMP);
	return cut_v4(f, L3, L4_V4 + 7);
}

MK(icmp6_short)
{
	base_v6(f, PB_PROTO_ICMPV6);
	return cut_v6(f, L3, L4_V6 + 7);
}

struct bad_case {
	const char *name;
	uint32_t (*mk)(uint8_t *f);
	enum fc_parse_result want;
};

/* clang-format off */
#define BAD(name, res) {#name, mk_##name, FC_PARSE_##res}
/* clang-format on */

static const struct bad_case bad_cases[] = {
	BAD(empty, ERR_TRUNC_ETH),
	BAD(eth_short, ERR_TRUNC_ETH),
	BAD(vlan_short, ERR_TRUNC_VLAN),
	BAD(qinq_short, ERR_TRUNC_VLAN),
	BAD(vlan_depth, ERR_VLAN_DEPTH),
	BAD(v4_short, ERR_TRUNC_IPV4),
	BAD(v4_version, ERR_IPV4_VERSION),
	BAD(v4_ihl4, ERR_IPV4_IHL),
	BAD(v4_ihl0, ERR_IPV4_IHL),
	BAD(v4_opts_beyond, ERR_IPV4_OPTIONS),
	BAD(v4_totlen_below_hdr, ERR_IPV4_TOTLEN),
	BAD(v4_totlen_below_opts, ERR_IPV4_TOTLEN),
	BAD(v4_totlen_beyond, ERR_IPV4_TOTLEN),
	BAD(v4_frag_odd, ERR_IPV4_FRAG),
	BAD(v4_frag_overflow, ERR_IPV4_FRAG),
	BAD(v4_frag_empty, ERR_IPV4_FRAG),
	BAD(v4_first_frag_tiny_tcp, ERR_TRUNC_TCP),
	BAD(v6_short, ERR_TRUNC_IPV6),
	BAD(v6_version, ERR_IPV6_VERSION),
	BAD(v6_paylen_beyond, ERR_IPV6_PAYLEN),
	BAD(v6_paylen_zero, ERR_TRUNC_TCP),
	BAD(v6_ext_len_beyond, ERR_IPV6_EXT_TRUNC),
	BAD(v6_ext_in_padding, ERR_IPV6_EXT_TRUNC),
	BAD(v6_ext_short, ERR_IPV6_EXT_TRUNC),
	BAD(v6_ext_chain, ERR_IPV6_EXT_CHAIN),
	BAD(v6_ext_order, ERR_IPV6_EXT_ORDER),
	BAD(v6_hbh_twice, ERR_IPV6_EXT_ORDER),
	BAD(v6_two_frag, ERR_IPV6_FRAG),
	BAD(v6_frag_odd, ERR_IPV6_FRAG),
	BAD(v6_frag_overflow, ERR_IPV6_FRAG),
	BAD(v6_frag_empty, ERR_IPV6_FRAG),
	BAD(v6_first_frag_tiny_tcp, ERR_TRUNC_TCP),
	BAD(tcp_short, ERR_TRUNC_TCP),
	BAD(tcp_doff4, ERR_TCP_DOFF),
	BAD(tcp_doff0, ERR_TCP_DOFF),
	BAD(tcp_doff_beyond, ERR_TCP_DOFF),
	BAD(tcp_doff_in_padding, ERR_TCP_DOFF),
	BAD(tcp_in_padding, ERR_TRUNC_TCP),
	BAD(udp_short, ERR_TRUNC_UDP),
	BAD(udp_short_v6, ERR_TRUNC_UDP),
	BAD(udp_len7, ERR_UDP_LEN),
	BAD(udp_len0, ERR_UDP_LEN),
	BAD(udp_len_beyond, ERR_UDP_LEN),
	BAD(udp_len_in_padding, ERR_UDP_LEN),
	BAD(sctp_short, ERR_TRUNC_SCTP),
	BAD(icmp_short, ERR_TRUNC_ICMP),
	BAD(icmp6_short, ERR_TRUNC_ICMP6),
};

static void
test_malformed(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	enum fc_parse_result r;
	unsigned int i;
	uint32_t len;

	(void)state;
	assert_true(RTE_DIM(bad_cases) >= 25);
	for (i = 0; i < RTE_DIM(bad_cases); i++) {
		memset(f, 0, sizeof(f));
		len = bad_cases[i].mk(f);
		r = parse(f, len, &p);
		if (r != bad_cases[i].want)
			print_error("case %s: got %s, want %s\n", bad_cases[i].name,
				fc_parse_result_id(r), fc_parse_result_id(bad_cases[i].want));
		assert_int_equal(r, bad_cases[i].want);
	}
	/* no data at all is read for a zero length */
	assert_int_equal(fc_parse(NULL, 0, &p), FC_PARSE_ERR_TRUNC_ETH);
}

/* Datagrams near 64 KiB: ip_len is 16 bits, so 40 + payload must fit. */
static void
test_v6_huge(void **state)
{
	const uint32_t cap = 14 + 40 + 65535;
	uint8_t *f = malloc(cap);
	struct fc_pkt p;
	struct pb b;
	uint32_t len;

	(void)state;
	assert_non_null(f);
	pb_init(&b, f, cap);
	l2(&b, 0);
	ip6(&b);
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 65535 - 40 - 8);
	len = finish(&b);
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	assert_int_equal(p.ip_len, 65535);
	check_v6(&p, PB_PROTO_UDP, 1, 2);

	pb_init(&b, f, cap);
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_GRE, NULL, 65535 - 39);
	len = finish(&b);
	assert_int_equal(len, cap - 39);
	assert_int_equal(parse(f, len, &p), FC_PARSE_ERR_IPV6_PAYLEN);

	pb_init(&b, f, cap);
	l2(&b, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_GRE, NULL, 65535);
	len = finish(&b);
	assert_int_equal(len, cap);
	assert_int_equal(parse(f, len, &p), FC_PARSE_ERR_IPV6_PAYLEN);
	free(f);
}

/* ------------------------------------------------------------------------ */
/* Truncation sweeps                                                         */
/* ------------------------------------------------------------------------ */

static uint32_t
valid_v4_qinq_tcp(uint8_t *f)
{
	static const uint8_t opts[8] = {0x94, 4, 0, 0, 1, 1, 1, 0};
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 2);
	ip4_opts(&b, 0, false, opts, sizeof(opts));
	pb_tcp(&b, 1, 2, PB_TCP_SYN, 0, 0, 8);
	pb_payload(&b, NULL, 5);
	return finish(&b);
}

static uint32_t
valid_v6_chain_udp(uint8_t *f)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 1);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 16);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 5);
	return finish(&b);
}

static uint32_t
valid_v4_icmp(uint8_t *f)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 1);
	ip4(&b);
	pb_icmp(&b, 3, 3, 0, 0);
	pb_payload(&b, NULL, 28);
	return finish(&b);
}

static uint32_t
valid_v4_sctp(uint8_t *f)
{
	struct pb b;

	pb_init(&b, f, FRAME_MAX);
	l2(&b, 0);
	ip4(&b);
	pb_sctp(&b, 1, 2, 3);
	pb_payload(&b, NULL, 4);
	return finish(&b);
}

static uint32_t
valid_v4_first_frag(uint8_t *f)
{
	uint8_t full[FRAME_MAX];
	uint32_t len = v4_full(full, PB_PROTO_UDP, 64);

	return (uint32_t)pb_ipv4_fragment(full, len, 14, 0, 32, f, FRAME_MAX);
}

static uint32_t
valid_v6_later_frag(uint8_t *f)
{
	uint8_t full[FRAME_MAX];
	struct pb b;
	uint32_t len;

	pb_init(&b, full, sizeof(full));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_icmp6(&b, 128, 0, 5, 5);
	pb_payload(&b, NULL, 64);
	len = finish(&b);
	return (uint32_t)pb_ipv6_fragment(full, len, 14, 32, 40, 99, f, FRAME_MAX);
}

static uint32_t (*const valid_frames[])(uint8_t *f) = {
	valid_v4_qinq_tcp,
	valid_v6_chain_udp,
	valid_v4_icmp,
	valid_v4_sctp,
	valid_v4_first_frag,
	valid_v6_later_frag,
};

static void
test_truncation_sweep(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	enum fc_parse_result r;
	unsigned int i;
	uint32_t len, cut;

	(void)state;
	for (i = 0; i < RTE_DIM(valid_frames); i++) {
		len = valid_frames[i](f);
		r = parse(f, len, &p);
		assert_true(r < FC_PARSE_NOT_IP);
		for (cut = 0; cut < len; cut++) {
			r = parse(f, cut, &p);
			if (r < FC_PARSE_ERR_BASE)
				print_error(
					"frame %u cut at %u: %s\n", i, cut, fc_parse_result_id(r));
			assert_true(r >= FC_PARSE_ERR_BASE);
			assert_true(r < FC_PARSE__COUNT);
		}
	}
}

/*
 * Cut at every byte with the IP length made to agree, so the parser gets as
 * far as the cut: the error must name the layer that was cut.
 */
static void
test_truncation_layers_v4(void **state)
{
	uint8_t f[FRAME_MAX], g[FRAME_MAX];
	const uint32_t l3 = 22, l4 = l3 + 28, doff = 28;
	enum fc_parse_result r, want;
	struct fc_pkt p;
	uint32_t len, cut;

	(void)state;
	len = valid_v4_qinq_tcp(f);
	assert_int_equal(len, l4 + doff + 5);
	for (cut = 0; cut < len; cut++) {
		memcpy(g, f, len);
		if (cut < 14)
			want = FC_PARSE_ERR_TRUNC_ETH;
		else if (cut < l3)
			want = FC_PARSE_ERR_TRUNC_VLAN;
		else if (cut < l3 + 20)
			want = FC_PARSE_ERR_TRUNC_IPV4;
		else if (cut < l4)
			want = FC_PARSE_ERR_IPV4_OPTIONS;
		else if (cut < l4 + 20)
			want = FC_PARSE_ERR_TRUNC_TCP;
		else if (cut < l4 + doff)
			want = FC_PARSE_ERR_TCP_DOFF;
		else
			want = FC_PARSE_OK; /* only payload was cut */
		if (cut >= l4)
			cut_v4(g, l3, cut);
		r = parse(g, cut, &p);
		if (r != want)
			print_error("cut %u: got %s want %s\n", cut, fc_parse_result_id(r),
				fc_parse_result_id(want));
		assert_int_equal(r, want);
	}
}

static void
test_truncation_layers_v6(void **state)
{
	uint8_t f[FRAME_MAX], g[FRAME_MAX];
	const uint32_t l3 = 18, l4 = l3 + 40 + 24;
	enum fc_parse_result r, want;
	struct fc_pkt p;
	uint32_t len, cut;

	(void)state;
	len = valid_v6_chain_udp(f);
	assert_int_equal(len, l4 + 8 + 5);
	for (cut = 0; cut < len; cut++) {
		memcpy(g, f, len);
		if (cut < 14)
			want = FC_PARSE_ERR_TRUNC_ETH;
		else if (cut < l3)
			want = FC_PARSE_ERR_TRUNC_VLAN;
		else if (cut < l3 + 40)
			want = FC_PARSE_ERR_TRUNC_IPV6;
		else if (cut < l4)
			want = FC_PARSE_ERR_IPV6_EXT_TRUNC;
		else if (cut < l4 + 8)
			want = FC_PARSE_ERR_TRUNC_UDP;
		else
			want = FC_PARSE_ERR_UDP_LEN; /* UDP length says 13 */
		if (cut >= l3 + 40)
			cut_v6(g, l3, cut);
		r = parse(g, cut, &p);
		if (r != want)
			print_error("cut %u: got %s want %s\n", cut, fc_parse_result_id(r),
				fc_parse_result_id(want));
		assert_int_equal(r, want);
	}
}

/* ------------------------------------------------------------------------ */
/* mbufs (built by hand: no EAL, no mempool)                                 */
/* ------------------------------------------------------------------------ */

#define MAX_SEGS 4

struct chain {
	struct rte_mbuf seg[MAX_SEGS];
	uint8_t *data[MAX_SEGS];
};

/*
 * Spread @p len bytes of @p f over segments cut at @p cuts (ascending,
 * @p n_cuts of them), each segment in its own exactly sized heap buffer.
 */
static struct rte_mbuf *
chain_build(
	struct chain *c, const uint8_t *f, uint32_t len, const uint32_t *cuts, unsigned int n_cuts)
{
	uint32_t start = 0, end;
	unsigned int i;

	assert_true(n_cuts < MAX_SEGS);
	memset(c, 0, sizeof(*c));
	for (i = 0; i <= n_cuts; i++) {
		end = i < n_cuts ? cuts[i] : len;
		assert_true(end >= start && end <= len);
		c->data[i] = malloc(end - start + 1);
		assert_non_null(c->data[i]);
		memcpy(c->data[i], f + start, end - start);
		c->seg[i].buf_addr = c->data[i];
		c->seg[i].buf_len = (uint16_t)(end - start + 1);
		c->seg[i].data_off = 0;
		c->seg[i].data_len = (uint16_t)(end - start);
		c->seg[i].pkt_len = end - start;
		c->seg[i].nb_segs = 1;
		if (i > 0)
			c->seg[i - 1].next = &c->seg[i];
		start = end;
	}
	c->seg[0].pkt_len = len;
	c->seg[0].nb_segs = (uint16_t)(n_cuts + 1);
	return &c->seg[0];
}

static void
chain_free(struct chain *c)
{
	unsigned int i;

	for (i = 0; i < MAX_SEGS; i++)
		free(c->data[i]);
}

/* fc_parse_mbuf on @p f split at @p cuts must equal fc_parse on @p f. */
static void
check_split(const uint8_t *f, uint32_t len, const uint32_t *cuts, unsigned int n_cuts)
{
	struct fc_pkt want, got;
	enum fc_parse_result rw, rg;
	struct rte_mbuf *m;
	struct chain c;

	rw = parse(f, len, &want);
	m = chain_build(&c, f, len, cuts, n_cuts);
	memset(&got, 0x5a, sizeof(got));
	rg = fc_parse_mbuf(m, &got);
	chain_free(&c);
	if (rg != rw)
		print_error("split at %u (+%u): got %s want %s\n", n_cuts ? cuts[0] : 0, n_cuts,
			fc_parse_result_id(rg), fc_parse_result_id(rw));
	assert_int_equal(rg, rw);
	if (rw < FC_PARSE_ERR_BASE)
		assert_memory_equal(&got, &want, sizeof(got));
}

static void
test_mbuf_single(void **state)
{
	uint8_t f[FRAME_MAX];
	unsigned int i;
	uint32_t len;

	(void)state;
	for (i = 0; i < RTE_DIM(valid_frames); i++) {
		len = valid_frames[i](f);
		check_split(f, len, NULL, 0);
	}
	for (i = 0; i < RTE_DIM(bad_cases); i++) {
		memset(f, 0, sizeof(f));
		len = bad_cases[i].mk(f);
		check_split(f, len, NULL, 0);
	}
}

static void
test_mbuf_two_segments(void **state)
{
	uint8_t f[FRAME_MAX];
	uint32_t len, cut;
	unsigned int i;

	(void)state;
	/* every split point of every valid frame, headers straddling or not */
	for (i = 0; i < RTE_DIM(valid_frames); i++) {
		len = valid_frames[i](f);
		for (cut = 0; cut <= len; cut++)
			check_split(f, len, &cut, 1);
	}
	/* malformed frames fail the same way when split */
	for (i = 0; i < RTE_DIM(bad_cases); i++) {
		memset(f, 0, sizeof(f));
		len = bad_cases[i].mk(f);
		for (cut = 0; cut <= len; cut++)
			check_split(f, len, &cut, 1);
	}
}

static void
test_mbuf_three_segments(void **state)
{
	uint8_t f[FRAME_MAX];
	uint32_t len, cuts[2];
	struct fc_pkt p;
	struct rte_mbuf *m;
	struct chain c;

	(void)state;
	len = valid_v6_chain_udp(f);
	for (cuts[0] = 0; cuts[0] <= len; cuts[0]++)
		for (cuts[1] = cuts[0]; cuts[1] <= len; cuts[1] += 3)
			check_split(f, len, cuts, 2);

	/* Ethernet alone in the first segment, IP header split over two more */
	len = valid_v4_qinq_tcp(f);
	cuts[0] = 14;
	cuts[1] = 30;
	m = chain_build(&c, f, len, cuts, 2);
	assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_OK);
	chain_free(&c);
	assert_int_equal(p.n_vlan, 2);
	assert_int_equal(p.l4_off, 50);
	assert_int_equal(p.key.v4.sport, htons(1));
	assert_int_equal(p.key.v4.dport, htons(2));
}

static void
test_mbuf_long_headers(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct rte_mbuf *m;
	struct chain c;
	struct pb b;
	uint32_t len, cut;

	(void)state;
	/* 54 + 520 bytes of headers before TCP: more than FC_PARSE_MAX_HDR */
	pb_init(&b, f, sizeof(f));
	l2(&b, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 520);
	pb_tcp(&b, 10, 20, PB_TCP_SYN, 0, 0, 0);
	pb_payload(&b, NULL, 100);
	len = finish(&b);

	/* flat and single segment: no limit */
	assert_int_equal(parse(f, len, &p), FC_PARSE_OK);
	assert_int_equal(p.l4_off, 574);
	m = chain_build(&c, f, len, NULL, 0);
	assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_OK);
	chain_free(&c);

	/* first segment holds all headers: parsed in place */
	cut = 600;
	m = chain_build(&c, f, len, &cut, 1);
	assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_OK);
	chain_free(&c);
	check_v6(&p, PB_PROTO_TCP, 10, 20);
	assert_int_equal(p.l4_off, 574);

	/* headers straddle the segments and exceed what is gathered */
	for (cut = 0; cut < 594; cut += 7) {
		m = chain_build(&c, f, len, &cut, 1);
		assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_ERR_HDR_TOO_LONG);
		chain_free(&c);
	}

	/* a header that would be too long but is also malformed says so */
	f[L4_V6 + 1] = 200; /* HBH of 1608 bytes, beyond the datagram */
	cut = 100;
	m = chain_build(&c, f, len, &cut, 1);
	assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_ERR_IPV6_EXT_TRUNC);
	chain_free(&c);
}

static void
test_mbuf_burst(void **state)
{
	uint8_t f[6][FRAME_MAX];
	uint32_t len[6], cut;
	struct chain c[6];
	struct rte_mbuf *m[6];
	struct fc_pkt pkts[6], want;
	uint8_t res[6];
	struct pb b;
	unsigned int i;

	(void)state;
	len[0] = valid_v4_qinq_tcp(f[0]); /* OK */
	pb_init(&b, f[1], FRAME_MAX);	  /* NOT_IP */
	l2(&b, 0);
	pb_ethertype(&b, PB_ETH_ARP);
	pb_payload(&b, NULL, 28);
	len[1] = finish(&b);
	len[2] = valid_v4_first_frag(f[2]); /* FRAG_FIRST */
	len[3] = mk_udp_len_beyond(f[3]);   /* error */
	len[4] = valid_v6_chain_udp(f[4]);  /* OK, chained */
	len[5] = valid_v6_later_frag(f[5]); /* FRAG_LATER */

	for (i = 0; i < 6; i++) {
		cut = len[i] / 2;
		m[i] = chain_build(&c[i], f[i], len[i], &cut, i == 4 ? 1 : 0);
	}
	memset(pkts, 0x77, sizeof(pkts));
	assert_int_equal(fc_parse_burst(m, 6, pkts, res), 2);
	assert_int_equal(res[0], FC_PARSE_OK);
	assert_int_equal(res[1], FC_PARSE_NOT_IP);
	assert_int_equal(res[2], FC_PARSE_FRAG_FIRST);
	assert_int_equal(res[3], FC_PARSE_ERR_UDP_LEN);
	assert_int_equal(res[4], FC_PARSE_OK);
	assert_int_equal(res[5], FC_PARSE_FRAG_LATER);
	for (i = 0; i < 6; i++) {
		if (res[i] >= FC_PARSE_ERR_BASE)
			continue;
		assert_int_equal(parse(f[i], len[i], &want), res[i]);
		assert_memory_equal(&pkts[i], &want, sizeof(want));
	}
	/* bursts long enough for the loop that prefetches without bound checks,
	 * every length up to 32, each packet as if parsed alone */
	for (unsigned int n = 7; n <= 32; n++) {
		struct rte_mbuf *mm[32];
		struct fc_pkt pp[32];
		uint8_t rr[32];
		unsigned int ok = 0;

		for (i = 0; i < n; i++)
			mm[i] = m[(i * 5 + n) % 6];
		memset(pp, 0x77, sizeof(pp));
		memset(rr, 0xee, sizeof(rr));
		for (i = 0; i < n; i++)
			ok += res[(i * 5 + n) % 6] == FC_PARSE_OK;
		assert_int_equal(fc_parse_burst(mm, n, pp, rr), ok);
		for (i = 0; i < n; i++) {
			unsigned int k = (i * 5 + n) % 6;

			assert_int_equal(rr[i], res[k]);
			if (rr[i] < FC_PARSE_ERR_BASE)
				assert_memory_equal(&pp[i], &pkts[k], sizeof(pp[i]));
		}
		if (n < 32)
			assert_int_equal(rr[n], 0xee); /* nothing written past the burst */
	}
	/* a burst of one and an empty burst */
	assert_int_equal(fc_parse_burst(m, 1, pkts, res), 1);
	assert_int_equal(fc_parse_burst(m, 0, pkts, res), 0);
	for (i = 0; i < 6; i++)
		chain_free(&c[i]);
}

/* ------------------------------------------------------------------------ */
/* Result names                                                              */
/* ------------------------------------------------------------------------ */

static void
test_result_names(void **state)
{
	static const char *const upper[] = {
#define UPPER(name, text) #name,
		FC_PARSE_RESULTS(UPPER)
#undef UPPER
	};
	static const char *const texts[] = {
#define TEXT(name, text) text,
		FC_PARSE_RESULTS(TEXT)
#undef TEXT
	};
	char lower[64];
	unsigned int i, j;

	(void)state;
	assert_int_equal(RTE_DIM(upper), FC_PARSE__COUNT);
	assert_string_equal(fc_parse_result_id(FC_PARSE_ERR_TRUNC_TCP), "err_trunc_tcp");
	assert_string_equal(fc_parse_result_id(FC_PARSE_OK), "ok");
	assert_string_equal(fc_parse_result_id(FC_PARSE_FRAG_LATER), "frag_later");
	assert_string_equal(fc_parse_result_id(FC_PARSE_ERR_IPV6_EXT_ORDER), "err_ipv6_ext_order");
	assert_string_equal(fc_parse_result_name(FC_PARSE_ERR_TRUNC_TCP), "truncated tcp header");
	assert_string_equal(fc_parse_result_name(FC_PARSE_OK), "ok");
	assert_string_equal(fc_parse_result_name(FC_PARSE__COUNT), "unknown");
	assert_string_equal(fc_parse_result_id(FC_PARSE__COUNT), "unknown");
	assert_string_equal(fc_parse_result_id(255), "unknown");
	for (i = 0; i < FC_PARSE__COUNT; i++) {
		for (j = 0; upper[i][j] != '\0'; j++)
			lower[j] = (char)tolower((unsigned char)upper[i][j]);
		lower[j] = '\0';
		assert_string_equal(fc_parse_result_id(i), lower);
		assert_string_equal(fc_parse_result_name(i), texts[i]);
		for (j = 0; j < i; j++)
			assert_string_not_equal(fc_parse_result_id(i), fc_parse_result_id(j));
	}
	/* results fit the uint8_t of fc_parse_burst() */
	assert_true(FC_PARSE__COUNT <= 256);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_tcp),
		cmocka_unit_test(test_v4_udp_padded),
		cmocka_unit_test(test_v4_options),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_v6_tcp_udp),
		cmocka_unit_test(test_v6_ext_each),
		cmocka_unit_test(test_v6_ext_chain),
		cmocka_unit_test(test_v6_atomic_frag),
		cmocka_unit_test(test_v4_frag),
		cmocka_unit_test(test_v4_frag_options),
		cmocka_unit_test(test_v6_frag),
		cmocka_unit_test(test_sctp),
		cmocka_unit_test(test_icmp),
		cmocka_unit_test(test_udplite),
		cmocka_unit_test(test_dccp),
		cmocka_unit_test(test_icmp6),
		cmocka_unit_test(test_icmp_wrong_family),
		cmocka_unit_test(test_unknown_proto),
		cmocka_unit_test(test_not_ip),
		cmocka_unit_test(test_key_normalized),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_v6_huge),
		cmocka_unit_test(test_truncation_sweep),
		cmocka_unit_test(test_truncation_layers_v4),
		cmocka_unit_test(test_truncation_layers_v6),
		cmocka_unit_test(test_mbuf_single),
		cmocka_unit_test(test_mbuf_two_segments),
		cmocka_unit_test(test_mbuf_three_segments),
		cmocka_unit_test(test_mbuf_long_headers),
		cmocka_unit_test(test_mbuf_burst),
		cmocka_unit_test(test_result_names),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
