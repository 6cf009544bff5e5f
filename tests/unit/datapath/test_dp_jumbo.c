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
 * read such a datagram whole (a string match past its first segment).
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
		cmocka_unit_test_teardown(test_walk_reads_whole, teardown),
		cmocka_unit_test(test_pullup_limits),
	};

	return DP_WORLD_MAIN("dp_jumbo", tests, NULL, NULL);
}
