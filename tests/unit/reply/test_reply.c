/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/reply (pure): TCP resets as Linux's REJECT writes them
 * (with and without the original's ACK: sequence and acknowledgement
 * numbers, SYN/FIN/payload counted, IPv4 id 0 and DF, TTL 64), ICMP and
 * ICMPv6 errors (type, code, the second word, the quote cut at 576 / 1280
 * bytes, TOS, hop limit, the Ethernet header turned around with its VLAN
 * tag, every checksum verified), and the packets that get no reply.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "csum_ref.h"
#include "flowcache.h"
#include "pkt_build.h"
#include "reply.h"

static const uint8_t MAC_H[6] = { 0x02, 0, 0, 0, 0, 0x02 }; /* the sender */
static const uint8_t MAC_R[6] = { 0x02, 0, 0, 0, 0, 0x01 }; /* the router port */
static const uint8_t MAC_X[6] = { 0x02, 0, 0, 0, 0, 0x77 }; /* another source */
static const uint8_t ROUTER4[4] = { 10, 0, 1, 1 };
static const uint8_t ROUTER6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
static const uint8_t H6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
static const uint8_t S6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2 };

static uint8_t frame[2048], out[REPLY_FRAME_MAX];
static uint32_t flen;
static struct fc_pkt pk;

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

/* Does the L4 checksum of the IP packet at @p ip verify (pseudo header)? */
static bool
l4_ok(const uint8_t *ip, bool v4, uint8_t proto, const uint8_t *l4, uint32_t len)
{
	uint32_t s = v4 && proto == 1 ? 0 : csum_ref_pseudo(ip, proto, len);

	return csum_ref_fold(csum_ref_add(s, l4, len)) == 0xffff;
}

static void
v4_tcp(uint8_t flags, uint32_t seq, uint32_t ack, uint32_t payload)
{
	struct pb b;
	struct pb_ipv4 ip = { .src = 0x0a000102, .dst = 0x0a000202, .tos = 0x12 };
	uint8_t data[256] = { 0 };

	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, 40000, 80, flags, seq, ack, 0);
	if (payload != 0)
		pb_payload(&b, data, payload);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
}

static void
test_rst_v4(void **state)
{
	int n;
	const uint8_t *ip, *th;

	(void)state;
	/* A SYN (no ACK): seq 0, ACK of its sequence + 1. */
	v4_tcp(PB_TCP_SYN, 1000, 0, 0);
	n = reply_build(out, sizeof(out), frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST });
	assert_int_equal(n, 14 + 20 + 20);
	assert_memory_equal(out, MAC_H, 6);
	assert_memory_equal(out + 6, MAC_R, 6); /* from the packet's destination MAC */
	ip = out + 14;
	th = ip + 20;
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1], 0);
	assert_int_equal(rd16(ip + 2), 40);
	assert_int_equal(rd16(ip + 4), 0);      /* id 0 */
	assert_int_equal(rd16(ip + 6), 0x4000); /* DF */
	assert_int_equal(ip[8], 64);
	assert_int_equal(ip[9], 6);
	assert_true(csum_ref_ip4_ok(ip));
	assert_memory_equal(ip + 12, frame + 14 + 16, 4); /* from the destination */
	assert_memory_equal(ip + 16, frame + 14 + 12, 4);
	assert_int_equal(rd16(th), 80);
	assert_int_equal(rd16(th + 2), 40000);
	assert_int_equal(rd32(th + 4), 0);
	assert_int_equal(rd32(th + 8), 1001);
	assert_int_equal(th[12], 5 << 4);
	assert_int_equal(th[13], 0x14); /* RST ACK */
	assert_int_equal(rd16(th + 14), 0);
	assert_true(l4_ok(ip, true, 6, th, 20));

	/* Data with ACK: seq = its acknowledgement number, RST alone. */
	v4_tcp(PB_TCP_ACK | PB_TCP_PSH, 5000, 7000, 100);
	n = reply_build(out, sizeof(out), frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST, .eth_src = MAC_X });
	assert_int_equal(n, 54);
	assert_memory_equal(out + 6, MAC_X, 6);
	assert_int_equal(rd32(out + 34 + 4), 7000);
	assert_int_equal(rd32(out + 34 + 8), 0);
	assert_int_equal(out[34 + 13], 0x04);
	assert_true(l4_ok(out + 14, true, 6, out + 34, 20));

	/* Data and FIN without ACK: acknowledges payload + FIN. */
	v4_tcp(PB_TCP_FIN, 100, 0, 10);
	assert_int_equal(reply_build(out, sizeof(out), frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST }), 54);
	assert_int_equal(rd32(out + 34 + 8), 111);

	/* No reset to a reset; none about UDP; not in too small a buffer. */
	v4_tcp(PB_TCP_RST | PB_TCP_ACK, 1, 2, 0);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_TCP_RST));
	assert_int_equal(reply_build(out, sizeof(out), frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST }), -EINVAL);
	v4_tcp(PB_TCP_SYN, 1, 0, 0);
	assert_int_equal(reply_build(out, 53, frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST }), -ENOSPC);
}

static void
test_rst_v6(void **state)
{
	struct pb b;
	struct pb_ipv6 ip = { .hlim = 5 };
	uint8_t data[40] = { 0 };
	int n;

	(void)state;
	memcpy(ip.src, H6, 16);
	memcpy(ip.dst, S6, 16);
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv6(&b, &ip);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_tcp(&b, 5555, 443, PB_TCP_SYN, 0xfffffff0, 0, 0);
	pb_payload(&b, data, sizeof(data));
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	n = reply_build(out, sizeof(out), frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_TCP_RST });
	assert_int_equal(n, 14 + 40 + 20);
	assert_int_equal(out[14] >> 4, 6);
	assert_int_equal(rd16(out + 14 + 4), 20);
	assert_int_equal(out[14 + 6], 6);
	assert_int_equal(out[14 + 7], 64);
	assert_memory_equal(out + 14 + 8, S6, 16);
	assert_memory_equal(out + 14 + 24, H6, 16);
	/* Sequence + payload (40) + SYN, wrapping. */
	assert_int_equal(rd32(out + 54 + 8), (uint32_t)(0xfffffff0u + 41));
	assert_true(l4_ok(out + 14, false, 6, out + 54, 20));
}

static void
test_icmp_v4(void **state)
{
	struct pb b;
	struct pb_ipv4 ip = { .src = 0x0a000102, .dst = 0x0a000202, .tos = 0x12, .df = true };
	uint8_t data[1000];
	const uint8_t *o;
	int n;

	(void)state;
	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_vlan(&b, PB_TPID_8021Q, 42);
	pb_ipv4(&b, &ip);
	pb_udp(&b, 1234, 53);
	pb_payload(&b, data, sizeof(data));
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_TCP_RST));
	n = reply_build(out, sizeof(out), frame, flen, &pk, &(struct reply_spec){
		.kind = REPLY_ICMP, .type = REPLY_ICMP_UNREACH, .code = REPLY_ICMP_UNREACH_NEEDFRAG,
		.info = 1400, .src = ROUTER4, .eth_src = MAC_R });
	/* Within 576 bytes: 548 quoted. */
	assert_int_equal(n, 18 + 576);
	assert_memory_equal(out, MAC_H, 6);
	assert_memory_equal(out + 6, MAC_R, 6);
	assert_memory_equal(out + 12, frame + 12, 6); /* the VLAN tag and ethertype */
	o = out + 18;
	assert_int_equal(o[0], 0x45);
	assert_int_equal(o[1], 0xc0 | 0x12);
	assert_int_equal(rd16(o + 2), 576);
	assert_int_equal(rd16(o + 6), 0); /* DF clear */
	assert_int_equal(o[8], 64);
	assert_int_equal(o[9], 1);
	assert_memory_equal(o + 12, ROUTER4, 4);
	assert_memory_equal(o + 16, frame + 18 + 12, 4);
	assert_true(csum_ref_ip4_ok(o));
	assert_int_equal(o[20], 3);
	assert_int_equal(o[21], 4);
	assert_int_equal(rd16(o + 24), 0);
	assert_int_equal(rd16(o + 26), 1400);
	assert_memory_equal(o + 28, frame + 18, 548);
	assert_true(l4_ok(o, true, 1, o + 20, 556));

	/* Without a source address: from the packet's destination (a packet to us). */
	n = reply_build(out, sizeof(out), frame, flen, &pk, &(struct reply_spec){
		.kind = REPLY_ICMP, .type = 3, .code = 3 });
	assert_true(n > 0);
	assert_memory_equal(out + 18 + 12, frame + 18 + 16, 4);
	assert_memory_equal(out + 6, MAC_R, 6);
}

static void
test_icmp_v6(void **state)
{
	struct pb b;
	struct pb_ipv6 ip = { 0 };
	uint8_t data[1400] = { 0 };
	const uint8_t *o;
	int n;

	(void)state;
	memcpy(ip.src, H6, 16);
	memcpy(ip.dst, S6, 16);
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv6(&b, &ip);
	pb_udp(&b, 1234, 53);
	pb_payload(&b, data, sizeof(data));
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	n = reply_build(out, sizeof(out), frame, flen, &pk, &(struct reply_spec){
		.kind = REPLY_ICMP, .type = REPLY_ICMP6_TOO_BIG, .info = 1280, .src = ROUTER6 });
	assert_int_equal(n, 14 + 1280);
	o = out + 14;
	assert_int_equal(rd16(o + 4), 1240);
	assert_int_equal(o[6], 58);
	assert_int_equal(o[7], 64);
	assert_memory_equal(o + 8, ROUTER6, 16);
	assert_memory_equal(o + 24, H6, 16);
	assert_int_equal(o[40], 2);
	assert_int_equal(rd32(o + 44), 1280);
	assert_memory_equal(o + 48, frame + 14, 1232);
	assert_true(l4_ok(o, false, 58, o + 40, 1240));
	/* A short packet is quoted whole. */
	flen = 14 + 40 + 8 + 10;
	frame[14 + 4] = 0;
	frame[14 + 5] = 18;
	frame[54 + 4] = 0; /* the UDP length */
	frame[54 + 5] = 18;
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	n = reply_build(out, sizeof(out), frame, flen, &pk, &(struct reply_spec){
		.kind = REPLY_ICMP, .type = 1, .code = 4, .src = ROUTER6 });
	assert_int_equal(n, 14 + 40 + 8 + 58);
	assert_memory_equal(out + 14 + 48, frame + 14, 58);
}

static void
test_no_reply(void **state)
{
	struct pb b;
	struct pb_ipv4 ip = { .src = 0x0a000102, .dst = 0x0a000202 };
	struct pb_ipv6 ip6 = { 0 };

	(void)state;
	/* An ICMP error is about no ICMP error; an echo request may get one. */
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv4(&b, &ip);
	pb_icmp(&b, 3, 1, 0, 0);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv4(&b, &ip);
	pb_icmp(&b, 8, 0, 1, 1);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_true(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	/* To a multicast group, from 0.0.0.0, from loopback. */
	ip.dst = 0xe0000001;
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv4(&b, &ip);
	pb_udp(&b, 1, 2);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	ip.dst = 0x0a000202;
	for (unsigned int k = 0; k < 2; k++) {
		ip.src = k == 0 ? 0 : 0x7f000001;
		pb_init(&b, frame, sizeof(frame));
		pb_eth(&b, MAC_R, MAC_H);
		pb_ipv4(&b, &ip);
		pb_udp(&b, 1, 2);
		flen = (uint32_t)pb_finish(&b);
		assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
		assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	}
	/* A non-first fragment. */
	ip.src = 0x0a000102;
	ip.frag_off = 8;
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv4(&b, &ip);
	pb_payload(&b, "12345678", 8);
	flen = (uint32_t)pb_finish(&b);
	fc_parse(frame, flen, &pk);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	/* IPv6: from ::, an ICMPv6 error, to a multicast group. */
	memcpy(ip6.dst, S6, 16);
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv6(&b, &ip6);
	pb_udp(&b, 1, 2);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	memcpy(ip6.src, H6, 16);
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv6(&b, &ip6);
	pb_icmp6(&b, 1, 0, 0, 0);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	ip6.dst[0] = 0xff;
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, MAC_R, MAC_H);
	pb_ipv6(&b, &ip6);
	pb_udp(&b, 1, 2);
	flen = (uint32_t)pb_finish(&b);
	assert_int_equal(fc_parse(frame, flen, &pk), FC_PARSE_OK);
	assert_false(reply_allowed(frame, flen, &pk, REPLY_ICMP));
	/* Bad arguments. */
	assert_false(reply_allowed(NULL, flen, &pk, REPLY_ICMP));
	assert_false(reply_allowed(frame, flen, &pk, 7));
	assert_int_equal(reply_build(NULL, 100, frame, flen, &pk,
		&(struct reply_spec){ .kind = REPLY_ICMP }), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rst_v4),
		cmocka_unit_test(test_rst_v6),
		cmocka_unit_test(test_icmp_v4),
		cmocka_unit_test(test_icmp_v6),
		cmocka_unit_test(test_no_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
