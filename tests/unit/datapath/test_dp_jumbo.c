/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of jumbo datagrams (8,000 bytes, as an MTU of 9000 carries)
 * in chained mbufs through NAT: the headers cut anywhere across the
 * segments (the IPv4 header, the UDP/TCP header), on the slow path (the
 * flow's first packet) and the fast path (its cached ones). Each output
 * is read flat and checked against a reference: the translated address,
 * the IPv4 header checksum and the TCP/UDP checksum computed over the
 * whole datagram, the payload unchanged; the datagram stays chained (it
 * does not fit one segment: nothing is linearized); the slow path's walks
 * read such a datagram whole (a string match past its first segment); the
 * other rewrites (DSCP, TTL, CHECKSUM, TCPMSS) apply to such a datagram
 * too, the same pull-up bringing its headers into its first segment.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "csum_ref.h"
#include "dp_pktact.h"
#include "dp_world.h"

#define PAYLOAD 8000u
#define FRAME_MAX 9100u
#define SEG 1800u /* the segments after the first */

/* An Ethernet + IPv4 + UDP or TCP frame of PAYLOAD bytes from 10.0.0.1:@p sport. */
static uint32_t
frame4(uint8_t *f, uint8_t proto, uint16_t sport)
{
	struct pb_ipv4 ip = { .src = 0x0a000001, .dst = 0x0a090002, .df = true };
	static uint8_t data[PAYLOAD];
	struct pb b;
	int n;

	for (uint32_t i = 0; i < PAYLOAD; i++)
		data[i] = (uint8_t)(i * 7 + sport);
	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	if (proto == PB_PROTO_UDP)
		pb_udp(&b, sport, 53);
	else
		pb_tcp(&b, sport, 80, PB_TCP_ACK, 1000, 2000, 0);
	pb_payload(&b, data, PAYLOAD);
	n = pb_finish(&b);
	assert_true(n > 0);
	return (uint32_t)n;
}

/* @p f as a chain: @p first bytes in the first segment, then SEG-byte ones. */
static struct rte_mbuf *
chain_of(const uint8_t *f, uint32_t len, uint32_t first)
{
	struct rte_mbuf *head = NULL;

	for (uint32_t off = 0; off < len;) {
		uint32_t n = RTE_MIN(off == 0 ? first : SEG, len - off);
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		char *d;

		assert_non_null(s);
		d = rte_pktmbuf_append(s, (uint16_t)n);
		assert_non_null(d);
		memcpy(d, f + off, n);
		if (head == NULL)
			head = s;
		else
			assert_int_equal(rte_pktmbuf_chain(head, s), 0);
		off += n;
	}
	head->port = IN_PORT;
	return head;
}

/*
 * @p m is @p orig translated to source 203.0.113.1 (port kept): read flat,
 * checksums as a receiver checks them (the IPv4 header's, the L4 one over
 * the pseudo-header and the whole datagram), payload and ports unchanged.
 */
static void
check_snat(const struct rte_mbuf *m, const uint8_t *orig, uint32_t len)
{
	static uint8_t flat[FRAME_MAX];
	const uint8_t *f, *l3, *l4;
	uint8_t pseudo[12];
	uint32_t l4len;

	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_true(m->nb_segs > 1);
	f = rte_pktmbuf_read(m, 0, len, flat);
	assert_non_null(f);
	l3 = f + 14;
	l4 = l3 + 20;
	assert_int_equal(csum_ref_fold(csum_ref_add(0, l3, 20)), 0xffff);
	assert_memory_equal(l3 + 12, "\xcb\x00\x71\x01", 4);
	assert_memory_equal(l3 + 16, orig + 14 + 16, 4);
	l4len = len - 34;
	memcpy(pseudo, l3 + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = l3[9];
	pseudo[10] = (uint8_t)(l4len >> 8);
	pseudo[11] = (uint8_t)l4len;
	assert_int_equal(csum_ref_fold(csum_ref_add(csum_ref_add(0, pseudo, 12), l4, l4len)), 0xffff);
	/* Ports (the source kept: free), the rest of the datagram as sent. */
	assert_memory_equal(l4, orig + 34, 4);
	assert_memory_equal(l4 + 20, orig + 54, len - 54);
}

/*
 * UDP and TCP, each a flow of five 8,000-byte datagrams cut at frame byte
 * 20 (inside the IPv4 header), 40 (inside the L4 header), 36, 2000 (all
 * headers in the first segment) and 14 (the IP header wholly in the
 * second): the first decided and translated on the slow path, the others
 * on the fast path (no upcall), every one right.
 */
static void
test_snat_chained(void **state)
{
	static const uint32_t cuts[] = {20, 40, 36, 2000, 14};
	static const uint8_t protos[] = {PB_PROTO_UDP, PB_PROTO_TCP};
	static uint8_t f[FRAME_MAX];

	(void)state;
	world_up(false, 64);
	load("snat to 203.0.113.1 proto udp\nsnat to 203.0.113.1 proto tcp\naccept\n");
	for (unsigned int p = 0; p < RTE_DIM(protos); p++) {
		uint32_t len = frame4(f, protos[p], (uint16_t)(4000 + p));

		for (unsigned int i = 0; i < RTE_DIM(cuts); i++) {
			struct rte_mbuf *o;

			assert_int_equal(rx1(chain_of(f, len, cuts[i])), i == 0 ? 0 : 1);
			if (i == 0)
				assert_int_equal(slow(), 1);
			o = take1(W.out);
			check_snat(o, f, len);
			rte_pktmbuf_free(o);
		}
		assert_int_equal(W.rx.st.upcalls, p + 1);
	}
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_NAT_ERROR], 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_NAT_ERROR], 0);
	check_accounting();
}

/* An SCTP INIT of 20 + PAYLOAD bytes (its parameters the payload) from 10.0.0.1:@p sport. */
static uint32_t
sctp_init4(uint8_t *f, uint16_t sport)
{
	struct pb_ipv4 ip = { .src = 0x0a000001, .dst = 0x0a090002, .df = true };
	static uint8_t ch[20 + PAYLOAD];
	uint32_t clen = sizeof(ch);
	struct pb b;
	int n;

	for (uint32_t i = 0; i < clen; i++)
		ch[i] = (uint8_t)(i * 13 + sport);
	memcpy(ch, "\x01\x00", 2);
	ch[2] = (uint8_t)(clen >> 8);
	ch[3] = (uint8_t)clen;
	memcpy(ch + 4, "\x00\x00\x12\x34", 4); /* Initiate Tag */
	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_sctp(&b, sport, 36412, 0);
	pb_payload(&b, ch, clen);
	n = pb_finish(&b);
	assert_true(n > 0);
	return (uint32_t)n;
}

/* CRC32c bit by bit (RFC 9260 appendix A), its field taken as 0. */
static uint32_t
sctp_crc_ref(const uint8_t *p, uint32_t len)
{
	uint32_t crc = 0xffffffffu;

	for (uint32_t i = 0; i < len; i++) {
		crc ^= i >= 8 && i < 12 ? 0 : p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

/*
 * SCTP through SNAT with a port change, datagrams of 8,000 bytes that
 * stay chained: the CRC32c updated from the header alone (the ports'
 * difference and the length), so the translated INIT leaves with the
 * source 203.0.113.1:40000 and a CRC right over the whole packet, its
 * chunks untouched, whatever the cut (inside the IPv4 header, the SCTP
 * header, after it); one that arrived with a wrong CRC is INVALID to
 * conntrack (its flat copy checked whole) and dropped. It was nat_error
 * on the old tree (the CRC needed the datagram in one segment).
 */
static void
test_sctp_nat_chained(void **state)
{
	static const uint32_t cuts[] = {20, 40, 2000};
	static uint8_t flat[DP_BURST_MAX * DP_FLAT_MAX];
	static uint8_t f[FRAME_MAX], out[FRAME_MAX];
	uint32_t len, crc;
	const uint8_t *o8;
	struct rte_mbuf *o;

	(void)state;
	world_up(true, 64);
	W.slow.flat = flat;
	load("drop ctstate invalid\nsnat to 203.0.113.1:40000 proto sctp\naccept\n");
	len = sctp_init4(f, 5000);
	for (unsigned int i = 0; i < RTE_DIM(cuts); i++) {
		print_message("  cut at %u\n", cuts[i]);
		rx1(chain_of(f, len, cuts[i]));
		slow();
		o = take1(W.out);
		assert_int_equal(rte_pktmbuf_pkt_len(o), len);
		assert_true(o->nb_segs > 1);
		o8 = rte_pktmbuf_read(o, 0, len, out);
		assert_non_null(o8);
		assert_memory_equal(o8 + 26, "\xcb\x00\x71\x01", 4);
		assert_int_equal(csum_ref_fold(csum_ref_add(0, o8 + 14, 20)), 0xffff);
		assert_memory_equal(o8 + 34, "\x9c\x40\x8e\x3c", 4); /* 40000 -> 36412 */
		crc = sctp_crc_ref(o8 + 34, len - 34);
		assert_int_equal(o8[42] | o8[43] << 8 | o8[44] << 16 | (uint32_t)o8[45] << 24, crc);
		assert_memory_equal(o8 + 46, f + 46, len - 46);
		rte_pktmbuf_free(o);
	}
	/* A wrong CRC: INVALID, dropped. */
	f[len - 1] ^= 0x20;
	rx1(chain_of(f, len, 2000));
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_NAT_ERROR], 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_NAT_ERROR], 0);
	check_accounting();
}

/*
 * The slow path's walks read a chained datagram whole (struct dp_ctx::flat):
 * a string 5,000 bytes into an 8,000-byte datagram, in its third segment,
 * drops the flow's first packet as Linux's xt_string drops it; the same
 * datagram without it passes.
 */
static void
test_walk_reads_whole(void **state)
{
	static uint8_t flat[DP_BURST_MAX * DP_FLAT_MAX];
	static uint8_t f[FRAME_MAX];
	uint32_t len;
	struct rte_mbuf *o;

	(void)state;
	world_up(false, 64);
	W.slow.flat = flat;
	load("drop string \"EVIL\" string_algo bm\naccept\n");
	len = frame4(f, PB_PROTO_UDP, 4200);
	memcpy(f + 42 + 5000, "EVIL", 4);
	/* (the UDP checksum is not checked on the way: the string is what counts) */
	assert_int_equal(rx1(chain_of(f, len, 2000)), 0);
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	len = frame4(f, PB_PROTO_UDP, 4201);
	assert_int_equal(rx1(chain_of(f, len, 2000)), 0);
	assert_int_equal(slow(), 1);
	o = take1(W.out);
	assert_int_equal(rte_pktmbuf_pkt_len(o), len);
	rte_pktmbuf_free(o);
	check_accounting();
}

/* A flat copy of chained @p m (@p len bytes, still chained), parsed into @p pk. */
static const uint8_t *
read_chained(const struct rte_mbuf *m, uint32_t len, struct fc_pkt *pk)
{
	static uint8_t flat[FRAME_MAX];
	const uint8_t *f;

	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_true(m->nb_segs > 1);
	assert_int_equal(rte_mbuf_check(m, 1, NULL), 0);
	f = rte_pktmbuf_read(m, 0, len, flat);
	assert_non_null(f);
	if (pk != NULL)
		assert_int_equal(fc_parse(f, len, pk), FC_PARSE_OK);
	return f;
}

/*
 * The other rewrites than NAT on an 8,000-byte datagram in a chain, its
 * headers cut anywhere (inside the IPv4 header, inside the UDP header, the
 * IPv4 header wholly in the second segment): DSCP, TTL and CHECKSUM
 * (the UDP checksum spoilt on the way in) all applied as Linux applies
 * them, both checksums right over the whole datagram, the payload as sent,
 * the datagram still chained (nothing linearized: it fits no segment),
 * nothing skipped. Without the header pull-up every one was skipped
 * (rewrite_skipped) and the packet left as it came.
 */
static void
test_rewrites_chained(void **state)
{
	static const uint32_t cuts[] = {20, 40, 14, 2000};
	static uint8_t f[FRAME_MAX];
	struct rule_pktprog prog;
	struct fc_pkt pk;
	uint32_t len;

	(void)state;
	world_up(false, 64);
	memset(&prog, 0, sizeof(prog));
	prog.n[0] = 3;
	prog.rewrite = 1;
	/* DSCP 0x2e (EF): TOS = (tos & 0x03) ^ 0xb8; TTL set 33; CHECKSUM fill. */
	prog.op[0][0] = (struct rule_pktop){.kind = RULE_PKTOP_TOS, .a = 0xfc, .b = 0xb8};
	prog.op[0][1] = (struct rule_pktop){.kind = RULE_PKTOP_TTL, .a = 0, .b = 33};
	prog.op[0][2] = (struct rule_pktop){.kind = RULE_PKTOP_CHECKSUM};
	len = frame4(f, PB_PROTO_UDP, 4300);
	f[14 + 20 + 6] ^= 0x5a; /* the UDP checksum wrong: CHECKSUM fills it in */
	for (unsigned int i = 0; i < RTE_DIM(cuts); i++) {
		struct rte_mbuf *m = chain_of(f, len, cuts[i]);
		const uint8_t *o;

		assert_int_equal(fc_parse(f, len, &pk), FC_PARSE_OK);
		assert_true(dp_pkt_rewrite(&W.rx, m, &pk, &prog, 0, 9000, DP_RW_ALL, false));
		o = read_chained(m, len, NULL);
		assert_int_equal(o[14 + 1], 0xb8);
		assert_int_equal(o[14 + 8], 33);
		assert_true(csum_ref_ip4_ok(o + 14));
		assert_true(csum_ref_l4_ok(o + 14));
		assert_memory_equal(o + 42, f + 42, len - 42);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(W.rx.st.rewritten, RTE_DIM(cuts));
	assert_int_equal(W.rx.st.rewrite_skipped, 0);
	assert_int_equal(pool_in_use(), 0);
}

/*
 * A mangle rule's DSCP on a flow of 8,000-byte chained datagrams: the
 * first rewritten on the slow path, the others on the fast path (no
 * upcall), each still chained, its IPv4 checksum right, none skipped.
 */
static void
test_dscp_flow_chained(void **state)
{
	static const uint32_t cuts[] = {2000, 20, 14};
	static uint8_t f[FRAME_MAX];
	uint32_t len;

	(void)state;
	world_up(false, 64);
	load("table mangle\nchain P hook prerouting\ndscp set_dscp 0x2e proto udp\n"
	     "table filter\naccept\n");
	len = frame4(f, PB_PROTO_UDP, 4600);
	for (unsigned int i = 0; i < RTE_DIM(cuts); i++) {
		struct rte_mbuf *o;
		const uint8_t *r;

		assert_int_equal(rx1(chain_of(f, len, cuts[i])), i == 0 ? 0 : 1);
		if (i == 0)
			assert_int_equal(slow(), 1);
		o = take1(W.out);
		r = read_chained(o, len, NULL);
		assert_int_equal(r[14 + 1] >> 2, 0x2e);
		assert_true(csum_ref_ip4_ok(r + 14));
		assert_true(csum_ref_l4_ok(r + 14));
		assert_memory_equal(r + 34, f + 34, len - 34);
		rte_pktmbuf_free(o);
	}
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.slow.st.rewritten + W.rx.st.rewritten, RTE_DIM(cuts));
	assert_int_equal(W.slow.st.rewrite_skipped + W.rx.st.rewrite_skipped, 0);
	check_accounting();
}

/*
 * TCPMSS on a chained TCP SYN carrying 8,000 bytes (a Fast Open SYN at MTU
 * 9000), its header cut inside the MSS option: the MSS 8960 lowered to
 * 1400 (--set-mss) and to the route's MTU less 40 (--clamp-mss-to-pmtu),
 * the TCP checksum right over the whole datagram, the data as sent.
 */
static void
test_tcpmss_chained(void **state)
{
	static const uint8_t mss[4] = {2, 4, 0x23, 0x00}; /* 8960 */
	static const uint32_t cuts[] = {14 + 20 + 22, 14 + 10};
	static const uint32_t want[] = {1400, 1460};
	static uint8_t f[FRAME_MAX], data[PAYLOAD];
	struct pb_ipv4 ip = { .src = 0x0a000001, .dst = 0x0a090002, .df = true };
	struct rule_pktprog prog;
	struct fc_pkt pk;
	struct pb b;
	uint32_t len;
	int n;

	(void)state;
	world_up(false, 64);
	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, 4400, 80, PB_TCP_SYN, 1000, 0, 4);
	pb_tcp_opts(&b, mss, sizeof(mss));
	for (uint32_t i = 0; i < PAYLOAD; i++)
		data[i] = (uint8_t)(i * 3);
	pb_payload(&b, data, PAYLOAD);
	n = pb_finish(&b);
	assert_true(n > 0);
	len = (uint32_t)n;
	for (unsigned int i = 0; i < RTE_DIM(cuts); i++) {
		struct rte_mbuf *m = chain_of(f, len, cuts[i]);
		const uint8_t *o;

		memset(&prog, 0, sizeof(prog));
		prog.n[0] = 1;
		prog.rewrite = 1;
		/* --set-mss 1400, then --clamp-mss-to-pmtu (ref 0) with MTU 1500. */
		prog.op[0][0] = (struct rule_pktop){.kind = RULE_PKTOP_TCPMSS,
			.ref = i == 0 ? 1400 : 0};
		assert_int_equal(fc_parse(f, len, &pk), FC_PARSE_OK);
		assert_true(dp_pkt_rewrite(&W.rx, m, &pk, &prog, 0, 1500, DP_RW_ALL, false));
		o = read_chained(m, len, NULL);
		assert_int_equal((uint32_t)o[14 + 20 + 22] << 8 | o[14 + 20 + 23], want[i]);
		assert_true(csum_ref_ip4_ok(o + 14));
		assert_true(csum_ref_l4_ok(o + 14));
		assert_memory_equal(o + 14 + 20 + 24, f + 14 + 20 + 24, len - (14 + 20 + 24));
		rte_pktmbuf_free(m);
	}
	assert_int_equal(W.rx.st.rewritten, RTE_DIM(cuts));
	assert_int_equal(W.rx.st.rewrite_skipped, 0);
	assert_int_equal(pool_in_use(), 0);
}

/*
 * A chained datagram whose first segment has no room for the headers (not
 * what a device's RX makes; and too long for one segment): not silently
 * left, counted rewrite_skipped, the packet as it came.
 */
static void
test_rewrite_no_room(void **state)
{
	static uint8_t f[FRAME_MAX];
	struct rule_pktprog prog;
	struct rte_mbuf *m;
	struct fc_pkt pk;
	uint32_t len;

	(void)state;
	world_up(false, 64);
	memset(&prog, 0, sizeof(prog));
	prog.n[0] = 1;
	prog.rewrite = 1;
	prog.op[0][0] = (struct rule_pktop){.kind = RULE_PKTOP_TTL, .a = 0, .b = 33};
	len = frame4(f, PB_PROTO_UDP, 4500);
	m = chain_of(f, len, 20);
	/* The first segment's room taken: only its 20 bytes are data. */
	m->data_off = (uint16_t)(m->buf_len - 20);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), f, 20);
	assert_int_equal(rte_pktmbuf_tailroom(m), 0);
	assert_int_equal(fc_parse(f, len, &pk), FC_PARSE_OK);
	assert_false(dp_pkt_rewrite(&W.rx, m, &pk, &prog, 0, 9000, DP_RW_ALL, false));
	assert_int_equal(W.rx.st.rewrite_skipped, 1);
	assert_int_equal(W.rx.st.rewritten, 0);
	assert_memory_equal(read_chained(m, len, NULL), f, len);
	rte_pktmbuf_free(m);
}

/* dp_mbuf_pullup() is tested through the NAT above; its refusals here. */
static void
test_pullup_limits(void **state)
{
	static uint8_t f[FRAME_MAX];
	uint32_t len;
	struct rte_mbuf *m;

	(void)state;
	len = frame4(f, PB_PROTO_UDP, 4100);
	m = chain_of(f, len, 20);
	/* More than the packet: refused, nothing moved. */
	assert_int_equal(dp_mbuf_pullup(m, len + 1), -EINVAL);
	assert_int_equal(rte_pktmbuf_data_len(m), 20);
	/* A first segment with no tailroom: refused. */
	assert_int_equal(dp_mbuf_pullup(m, 20 + rte_pktmbuf_tailroom(m) + 1), -ENOSPC);
	assert_int_equal(rte_pktmbuf_data_len(m), 20);
	/* The whole second segment and part of the third: one segment fewer. */
	assert_int_equal(dp_mbuf_pullup(m, 20 + SEG + 100), 0);
	assert_int_equal(rte_pktmbuf_data_len(m), 20 + SEG + 100);
	assert_int_equal(m->nb_segs, (len - 20 + SEG - 1) / SEG);
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_int_equal(rte_mbuf_check(m, 1, NULL), 0);
	{
		static uint8_t flat[FRAME_MAX];

		assert_memory_equal(rte_pktmbuf_read(m, 0, len, flat), f, len);
	}
	rte_pktmbuf_free(m);
	assert_int_equal(pool_in_use(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_snat_chained, teardown),
		cmocka_unit_test_teardown(test_sctp_nat_chained, teardown),
		cmocka_unit_test_teardown(test_walk_reads_whole, teardown),
		cmocka_unit_test(test_pullup_limits),
		cmocka_unit_test_teardown(test_rewrites_chained, teardown),
		cmocka_unit_test_teardown(test_dscp_flow_chained, teardown),
		cmocka_unit_test_teardown(test_tcpmss_chained, teardown),
		cmocka_unit_test_teardown(test_rewrite_no_room, teardown),
	};

	return DP_WORLD_MAIN("dp_jumbo", tests, NULL, NULL);
}
