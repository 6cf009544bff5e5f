/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the datapath's packet rewrites (dp_pktop_apply(): TOS,
 * DSCP, TTL, hop limit, CHECKSUM, TCPMSS, ECN) on frames the packet builder
 * makes: each field as netfilter's targets set it, and a property check
 * over random frames and operations that every rewritten packet's
 * checksums (IPv4 header, TCP, UDP, ICMP) still verify, computed whole.
 * Pure functions: no EAL.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csum_ref.h"
#include "datapath.h"
#include "dp_pktact.h"
#include "pkt_build.h"

static uint8_t frame[2048];
static uint32_t flen;
static struct fc_pkt pk;

/* Do the frame's IPv4 header and L4 checksums verify? */
static bool
csums_ok(void)
{
	const uint8_t *l3 = frame + pk.l3_off, *l4 = frame + pk.l4_off;
	bool v4 = pk.key.family == FC_AF_INET4;
	uint8_t proto = v4 ? pk.key.v4.proto : pk.key.v6.proto;
	uint32_t end = pk.l3_off + pk.ip_len, l4len = end - pk.l4_off;

	if (v4 && !csum_ref_ip4_ok(l3))
		return false;
	if (proto == 1)
		return csum_ref_fold(csum_ref_add(0, l4, l4len)) == 0xffff;
	if (proto != 6 && proto != 17 && proto != 58)
		return true;
	if (proto == 17 && v4 && l4[6] == 0 && l4[7] == 0)
		return true;
	return csum_ref_fold(csum_ref_add(csum_ref_pseudo(l3, proto, l4len), l4, l4len)) == 0xffff;
}

static void
parse(void)
{
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
}

static void
build4(uint8_t proto, uint8_t tos, uint8_t ttl, uint8_t opts_len, uint32_t payload)
{
	struct pb b;
	struct pb_ipv4 ip = {.src = 0x0a000002, .dst = 0xc0000201, .tos = tos, .ttl = ttl, .df = true};
	static const uint8_t ra[4] = {0x94, 0x04, 0, 0};

	if (opts_len != 0) {
		ip.opts = ra;
		ip.opts_len = 4;
	}
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	if (proto == 6)
		pb_tcp(&b, 40000, 22, PB_TCP_ACK, 100, 200, opts_len);
	else if (proto == 17)
		pb_udp(&b, 1234, 53);
	else
		pb_icmp(&b, 8, 0, 1, 2);
	pb_payload(&b, NULL, payload);
	flen = (uint32_t)pb_finish(&b);
	parse();
}

static void
build6(uint8_t proto, uint8_t tc, uint8_t hl, uint32_t payload)
{
	struct pb b;
	struct pb_ipv6 ip = {.src = {0x20, 0x01, 0x0d, 0xb8, [15] = 1},
		.dst = {0x20, 0x01, 0x0d, 0xb8, [15] = 2}, .tclass = tc, .hlim = hl, .flow = 0x12345};

	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv6(&b, &ip);
	if (proto == 6)
		pb_tcp(&b, 40000, 22, PB_TCP_ACK, 100, 200, 0);
	else if (proto == 17)
		pb_udp(&b, 1234, 53);
	else
		pb_icmp6(&b, 128, 0, 1, 2);
	pb_payload(&b, NULL, payload);
	flen = (uint32_t)pb_finish(&b);
	parse();
}

static int
apply(uint8_t kind, uint8_t a, uint8_t bb, uint32_t ref, uint16_t mtu)
{
	struct rule_pktop op = {.kind = kind, .a = a, .b = bb, .ref = ref};
	int rc;

	rc = dp_pktop_apply(&op, frame + pk.l3_off, flen - pk.l3_off,
		(uint32_t)sizeof(frame) - pk.l3_off, &pk, pk.l3_off, mtu);
	if (rc == 2) {
		/* Grown by an MSS option: the frame ends with the datagram. */
		flen = pk.l3_off + pk.ip_len + 4;
		parse();
	}
	return rc;
}

static void
test_tos(void **state)
{
	(void)state;
	/* DSCP EF (46): the top six bits, ECN kept. */
	build4(6, 0x03, 64, 0, 10);
	assert_int_equal(apply(RULE_PKTOP_TOS, 0xfc, 46 << 2, 0, 0), 1);
	assert_int_equal(frame[pk.l3_off + 1], 0xbb);
	assert_true(csums_ok());
	/* Already so: nothing changes. */
	assert_int_equal(apply(RULE_PKTOP_TOS, 0xfc, 46 << 2, 0, 0), 0);
	/* --and-tos 0x0f: (tos & ~0xf0) ^ 0. */
	assert_int_equal(apply(RULE_PKTOP_TOS, 0xf0, 0, 0, 0), 1);
	assert_int_equal(frame[pk.l3_off + 1], 0x0b);
	assert_true(csums_ok());
	/* IPv6 traffic class across the first two bytes; the flow label stays. */
	build6(17, 0x00, 64, 7);
	assert_int_equal(apply(RULE_PKTOP_TOS, 0xff, 0xa5, 0, 0), 1);
	assert_int_equal(frame[pk.l3_off] & 0x0f, 0x0a);
	assert_int_equal(frame[pk.l3_off + 1] >> 4, 0x05);
	assert_int_equal((frame[pk.l3_off + 1] & 0x0f) << 16 | frame[pk.l3_off + 2] << 8 |
				 frame[pk.l3_off + 3], 0x12345);
	assert_int_equal(frame[pk.l3_off] >> 4, 6);
	assert_true(csums_ok());
}

static void
test_ttl(void **state)
{
	(void)state;
	build4(17, 0, 64, 0, 5);
	assert_int_equal(apply(RULE_PKTOP_TTL, 0, 10, 0, 0), 1);
	assert_int_equal(frame[pk.l3_off + 8], 10);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_TTL, 1, 20, 0, 0), 1); /* floor 0 */
	assert_int_equal(frame[pk.l3_off + 8], 0);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_TTL, 2, 255, 0, 0), 1); /* ceiling 255 */
	assert_int_equal(frame[pk.l3_off + 8], 255);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_HL, 0, 1, 0, 0), 0); /* HL: IPv6 only */
	build6(6, 0, 64, 3);
	assert_int_equal(apply(RULE_PKTOP_HL, 1, 1, 0, 0), 1);
	assert_int_equal(frame[pk.l3_off + 7], 63);
	assert_int_equal(apply(RULE_PKTOP_TTL, 0, 1, 0, 0), 0);
	assert_true(csums_ok());
}

static void
test_checksum(void **state)
{
	(void)state;
	build4(17, 0, 64, 0, 33);
	frame[pk.l4_off + 6] ^= 0x5a; /* a wrong (partial) checksum */
	assert_false(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_CHECKSUM, 0, 0, 0, 0), 1);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_CHECKSUM, 0, 0, 0, 0), 0);
	build6(6, 0, 64, 101);
	memset(frame + pk.l4_off + 16, 0, 2);
	assert_int_equal(apply(RULE_PKTOP_CHECKSUM, 0, 0, 0, 0), 1);
	assert_true(csums_ok());
	build4(1, 0, 64, 0, 8);
	assert_int_equal(apply(RULE_PKTOP_CHECKSUM, 0, 0, 0, 0), -EINVAL); /* not TCP/UDP */
}

static void
syn(const uint8_t *opts, uint8_t len, uint8_t opts_len)
{
	struct pb b;
	struct pb_ipv4 ip = {.src = 0x0a000002, .dst = 0xc0000201};

	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, 40000, 80, PB_TCP_SYN, 1, 0, opts_len);
	if (len != 0)
		pb_tcp_opts(&b, opts, len);
	flen = (uint32_t)pb_finish(&b);
	parse();
}

/* An IPv6 TCP SYN with options @p opts (@p len bytes, @p opts_len with padding) and @p data bytes. */
static void
syn6(const uint8_t *opts, uint8_t len, uint8_t opts_len, uint32_t data)
{
	struct pb b;
	struct pb_ipv6 ip = {.src = {0x20, 0x01, 0x0d, 0xb8, [15] = 1},
		.dst = {0x20, 0x01, 0x0d, 0xb8, [15] = 2}, .hlim = 64};

	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv6(&b, &ip);
	pb_tcp(&b, 40000, 80, PB_TCP_SYN, 1, 0, opts_len);
	if (len != 0)
		pb_tcp_opts(&b, opts, len);
	pb_payload(&b, NULL, data);
	flen = (uint32_t)pb_finish(&b);
	parse();
}

static uint16_t
mss_at(unsigned int i)
{
	return (uint16_t)(frame[pk.l4_off + 20 + i] << 8 | frame[pk.l4_off + 21 + i]);
}

static void
test_tcpmss(void **state)
{
	static const uint8_t even[] = {2, 4, 0x05, 0xb4};
	static const uint8_t odd[] = {1, 2, 4, 0x05, 0xb4, 1, 1, 1};

	(void)state;
	syn(even, sizeof(even), 4);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 1);
	assert_int_equal(mss_at(2), 1400);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1452, 0), 0); /* only lowered */
	/* --clamp-mss-to-pmtu: MTU 1280 less 40. */
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 0, 1280), 1);
	assert_int_equal(mss_at(2), 1240);
	assert_true(csums_ok());
	/* The option at an odd offset: the checksum over the words it straddles. */
	syn(odd, sizeof(odd), 8);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 536, 0), 1);
	assert_int_equal(mss_at(3), 536);
	assert_true(csums_ok());
	/* Not a SYN: left alone. */
	build4(6, 0, 64, 4, 0);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 536, 0), 0);
}

/* A SYN without an MSS option gets one, as Linux adds it. */
static void
test_tcpmss_insert(void **state)
{
	static const uint8_t nops[] = {1, 1, 4, 2}; /* NOP NOP SACK-permitted */
	static const uint8_t full[40] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};

	(void)state;
	/* IPv4, no options: --set-mss 1400 adds 536 (RFC 879's default, at most). */
	syn(NULL, 0, 0);
	assert_int_equal(pk.ip_len, 40);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 2);
	assert_int_equal(pk.ip_len, 44);
	assert_int_equal(frame[pk.l4_off + 12] >> 4, 6);
	assert_int_equal(frame[pk.l4_off + 20], 2);
	assert_int_equal(frame[pk.l4_off + 21], 4);
	assert_int_equal(mss_at(2), 536);
	assert_true(csums_ok());
	/* Now it has one: only lowered. */
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 0);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 500, 0), 1);
	assert_int_equal(mss_at(2), 500);
	assert_true(csums_ok());
	/* A value under the default is the one added; the other options follow it. */
	syn(nops, sizeof(nops), 4);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 400, 0), 2);
	assert_int_equal(mss_at(2), 400);
	assert_memory_equal(frame + pk.l4_off + 24, nops, sizeof(nops));
	assert_true(csums_ok());
	/* --clamp-mss-to-pmtu: 1500 less 40, then at most 536. */
	syn(NULL, 0, 0);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 0, 1500), 2);
	assert_int_equal(mss_at(2), 536);
	assert_true(csums_ok());
	/* IPv6: at most 1220; the payload length grows. */
	syn6(NULL, 0, 0, 0);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 2);
	assert_int_equal(pk.ip_len, 40 + 24);
	assert_int_equal(mss_at(2), 1220);
	assert_true(csums_ok());
	syn6(nops, sizeof(nops), 4, 0);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 0, 1280), 2);
	assert_int_equal(mss_at(2), 1220);
	assert_true(csums_ok());
	/* Data after the header, a full header, no room: left alone. */
	syn6(NULL, 0, 0, 10);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 0);
	syn(full, sizeof(full), 40);
	assert_int_equal(apply(RULE_PKTOP_TCPMSS, 0, 0, 1400, 0), 0);
	syn(NULL, 0, 0);
	{
		struct rule_pktop op = {.kind = RULE_PKTOP_TCPMSS, .ref = 1400};

		assert_int_equal(dp_pktop_apply(&op, frame + pk.l3_off, flen - pk.l3_off,
					 flen - pk.l3_off + 3, &pk, pk.l3_off, 0), 0);
	}
}

/* ECN: TCP ECE and CWR, the IPv4 ECN field; only what differs is written. */
static void
test_ecn(void **state)
{
	uint8_t *ip, *tcp;

	(void)state;
	build4(6, 0x03, 64, 0, 10);
	ip = frame + pk.l3_off;
	tcp = frame + pk.l4_off;
	assert_int_equal(tcp[13], PB_TCP_ACK);
	/* --ecn-tcp-remove on a segment without ECE/CWR: nothing to do. */
	assert_int_equal(apply(RULE_PKTOP_ECN, RULE_TCP_ECE | RULE_TCP_CWR, 0, 0, 0), 0);
	/* --ecn-tcp-ece 1 --ecn-tcp-cwr 1: both set, checksum kept right. */
	assert_int_equal(apply(RULE_PKTOP_ECN, RULE_TCP_ECE | RULE_TCP_CWR,
				 RULE_TCP_ECE | RULE_TCP_CWR, 0, 0), 1);
	assert_int_equal(tcp[13], PB_TCP_ACK | RULE_TCP_ECE | RULE_TCP_CWR);
	assert_true(csums_ok());
	/* --ecn-tcp-remove: both cleared. */
	assert_int_equal(apply(RULE_PKTOP_ECN, RULE_TCP_ECE | RULE_TCP_CWR, 0, 0, 0), 1);
	assert_int_equal(tcp[13], PB_TCP_ACK);
	assert_true(csums_ok());
	/* --ecn-ip-ect 1: the ECN field, the rest of the TOS kept, header checksum right. */
	assert_int_equal(apply(RULE_PKTOP_ECN, 0, 0, 4 | 1, 0), 1);
	assert_int_equal(ip[1], 0x01);
	assert_true(csums_ok());
	assert_int_equal(apply(RULE_PKTOP_ECN, 0, 0, 4 | 1, 0), 0);
	/* UDP: the TCP part does not apply, the IP part does. */
	build4(17, 0xfe, 64, 0, 10);
	assert_int_equal(apply(RULE_PKTOP_ECN, RULE_TCP_ECE | RULE_TCP_CWR, 0, 4 | 0, 0), 1);
	assert_int_equal(frame[pk.l3_off + 1], 0xfc);
	assert_true(csums_ok());
	/* IPv6 (no ECN target in ip6tables): left alone. */
	build6(6, 0x03, 64, 0);
	assert_int_equal(apply(RULE_PKTOP_ECN, RULE_TCP_ECE | RULE_TCP_CWR, 0, 4, 0), 0);
}

/* Random frames, random operations: every checksum still verifies. */
static void
test_property(void **state)
{
	(void)state;
	srand(11);
	for (unsigned int it = 0; it < 20000; it++) {
		unsigned int r = (unsigned int)rand();
		uint8_t protos[] = {6, 17, 1};
		uint8_t proto = protos[r % 3];
		uint8_t kind = (uint8_t)((r >> 2) % 5 == 4 ? RULE_PKTOP_ECN : RULE_PKTOP_TOS + (r >> 2) % 5);
		int rc;

		if ((r >> 8) & 1)
			build4(proto, (uint8_t)rand(), (uint8_t)rand(), (r >> 9) & 1 ? 4 : 0,
				(uint32_t)rand() % 200);
		else
			build6(proto, (uint8_t)rand(), (uint8_t)rand(), (uint32_t)rand() % 200);
		rc = apply(kind, (uint8_t)rand(), (uint8_t)rand(),
			kind == RULE_PKTOP_ECN ? (uint32_t)rand() % 8 : 0, 0);
		assert_true(rc >= -EINVAL && rc <= 2);
		assert_true(csums_ok());
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tos),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_tcpmss_insert),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_tcpmss),
		cmocka_unit_test(test_ecn),
		cmocka_unit_test(test_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
