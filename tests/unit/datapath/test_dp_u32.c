/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m u32" on the fast path (engine_strpred.h, dp_pred.c),
 * as test_dp_string.c does for "-m string": a flow cached with both
 * outcomes of its u32 match, its hits tested on the RX lcore (no upcall)
 * and counted for their own outcome's rule; negation and a read past the
 * datagram; u32 and string matches in a row (one predicate); a u32 match
 * and a meter decided per packet on the slow path; IPv6; a bpf program
 * as a predicate too, mixed with u32 in one tree; chained mbufs whose
 * datagram goes past the first segment where a u32 test or a string
 * window reads (made one segment, tested on the fast path). The payload of
 * udp4() is its tag (4 bytes, big endian) then 1 2 3 4, at offset 28 of
 * the IPv4 datagram.
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

#define BAD DP_BAD /* "BAD!" */

/* Hits tested on the RX lcore: those that pass dropped, the others delivered. */
static void
test_fast_path(void **state)
{
	static const uint32_t tags[] = {1, BAD, 2, BAD, BAD, 3};
	struct rule_engine_stats st;
	struct rte_mbuf *m[6], *o[8];
	const struct fc_entry *e;

	(void)state;
	world_up(false, 64);
	/* The tag: the word 8 bytes past the IP header (its IHL read). */
	load("drop u32 \"0>>22&0x3C@8=0x42414421\"\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 7);
	e = first_packet(m[0], 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_not_equal(rule_engine_pktprog(W.eng, e->act.pkt_class)->pred, 0);
	for (unsigned int i = 0; i < 6; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, tags[i]);
	assert_int_equal(rx(m, 6), 3);
	assert_int_equal(W.rx.st.hits, 6);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 3);
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_rule_counters(1, 3, 3 * 36);
	check_rule_counters(2, 4, 4 * 36);
	rule_engine_stats_get(W.eng, &st);
	assert_int_equal(st.u32_preds, 1);
	assert_int_equal(st.pred_per_packet, 0);
	check_accounting();
}

/*
 * After a PREROUTING DNAT, FORWARD's u32 matches read the destination as
 * translated (address, port, checksums), as Linux's (a Linux router's
 * FORWARD matched u32 "16=0x0a420202" and the port 9000 of its DNAT's
 * target, not the address and port the packet was sent to); PREROUTING's
 * the packet as it came. The first packet (slow path) and the cached ones
 * (fast path: no upcall) alike.
 */
static void
test_dnat_view(void **state)
{
	static const uint32_t tags[] = {1, BAD, 2, BAD};
	struct rte_mbuf *m[4], *o[8];

	(void)state;
	world_up(false, 64);
	load("dnat to 10.9.0.7:5353 proto udp dport 53\n"
	     "drop proto udp u32 \"16=0x0a090003\"\n"
	     "drop proto udp u32 \"0>>22&0x3C@0&0xFFFF=53\"\n"
	     "drop proto udp u32 \"16=0x0a090007&&0>>22&0x3C@0&0xFFFF=5353&&0>>22&0x3C@8=0x42414421\"\n"
	     "accept\n"
	     "table mangle\nchain P hook prerouting\n"
	     "drop proto udp u32 \"16=0x0a090007\"\n");
	/* A first packet the translated test drops, on the slow path. */
	assert_int_equal(rx1(udp4("10.0.0.1", 2222, "10.9.0.3", 53, BAD)), 0);
	assert_int_equal(slow(), 0);
	/* A flow whose first packet passes: cached, its BAD packets dropped on the fast path. */
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 7)), 0);
	assert_int_equal(slow(), 1);
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, tags[i]);
	assert_int_equal(rx(m, 4), 2);
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	assert_int_equal(take(W.out, o, 8), 3);
	for (unsigned int i = 0; i < 3; i++)
		expect_tuple(o[i], "10.0.0.1", 1111, "10.9.0.7", 5353);
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
}

/* A udp4() packet with TTL @p ttl (header checksum right). */
static struct rte_mbuf *
udp4_ttl(uint16_t sport, uint8_t ttl, uint32_t tag)
{
	struct rte_mbuf *m = udp4("10.0.0.1", sport, "10.9.0.2", 53, tag);
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	uint16_t s;

	ip[8] = ttl;
	ip[10] = ip[11] = 0;
	s = (uint16_t)~csum_ref_fold(csum_ref_add(0, ip, 20));
	ip[10] = (uint8_t)(s >> 8);
	ip[11] = (uint8_t)s;
	return m;
}

/*
 * A router's forwarded packet: FORWARD's u32 reads the TTL one less (a
 * Linux router matched "5&0xFF=16" at FORWARD for a packet sent with 17),
 * on the slow path (its walk) and the fast path (the entry's predicate on
 * the header view) alike.
 */
static void
test_router_view(void **state)
{
	static const struct {
		uint8_t ttl, drop;
	} c[] = {{64, 1}, {63, 0}, {65, 0}, {10, 0}};
	const struct rule_pktprog *prog;
	const struct fc_entry *e;
	struct rte_mbuf *m, *o[2];
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	assert_int_equal(rule_engine_router_set(W.eng, true), 0);
	load("drop proto udp u32 \"5&0xFF=63\"\naccept\n");
	/* The slow path's walk: 64 is 63 at FORWARD. */
	assert_int_equal(rx1(udp4_ttl(3333, 64, 1)), 0);
	assert_int_equal(slow(), 0);
	m = udp4_ttl(1111, 10, 1);
	k = key_of(m);
	assert_int_equal(rx1(m), 0);
	assert_int_equal(slow(), 1);
	assert_int_equal(take(W.out, o, 2), 1);
	rte_pktmbuf_free(o[0]);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	prog = rule_engine_pktprog(W.eng, e->act.pkt_class);
	assert_int_not_equal(prog->pred, 0);
	/* The fast path's predicate, as a router's RX lcore runs it (a bridge: engine_stages). */
	for (unsigned int router = 1; router < 2; router++) {
		W.rx.router = (uint8_t)router;
		for (unsigned int i = 0; i < RTE_DIM(c); i++) {
			const struct rule_pktprog *p = prog;
			struct fc_pkt pkt;
			unsigned int list;
			uint8_t res, verdict;

			m = udp4_ttl(1111, c[i].ttl, 2);
			assert_int_equal(fc_parse_burst(&m, 1, &pkt, &res), 1);
			fc_key_set_in_port(&pkt.key, IN_PORT);
			assert_true(dp_pred_take(&W.rx, m, &pkt, &e->act, &p, &verdict, &list));
			if ((verdict != FC_VERDICT_ACCEPT) != (router && c[i].drop))
				fail_msg("%s, TTL %u: verdict %u", router ? "router" : "bridge",
					c[i].ttl, verdict);
			rte_pktmbuf_free(m);
		}
	}
	W.rx.router = 0;
	check_accounting();
}

/* "!" and a word past the datagram (the test fails). */
static void
test_neg_past_end(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	/* A 36-byte datagram's last word is at 32: at 33 it is past the end. */
	load("drop u32 \"33=0:0xffffffff\"\naccept u32 !\"28=0x42414421\" u32 \"32=0x01020304\"\n"
	     "drop\n");
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1));
	assert_int_equal(slow(), 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD)), 0);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 2)), 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	check_rule_counters(1, 0, 0);
	check_rule_counters(2, 2, 0);
	check_rule_counters(3, 1, 0);
	assert_int_equal(take(W.out, o, 8), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/* u32 and string matches in a row: one predicate on the fast path. */
static void
test_mixed(void **state)
{
	static const uint32_t tags[] = {0x4556494cu /* "EVIL" */, BAD, 2, 0x45564942u};
	const struct fc_entry *e;
	struct rte_mbuf *m[4], *o[8];

	(void)state;
	world_up(false, 64);
	load("drop u32 \"28=0x42414421\"\ndrop string \"EVIL\" string_algo kmp\n"
	     "drop u32 \"28>>8=0x455649\" u32 \"28&0xff=0x41:0x43\"\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1);
	e = first_packet(m[0], 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, tags[i]);
	/* EVIL, BAD! and EVIB dropped; 2 delivered: no upcall. */
	assert_int_equal(rx(m, 4), 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 3);
	check_rule_counters(1, 1, 0);
	check_rule_counters(2, 1, 0);
	check_rule_counters(3, 1, 0);
	check_rule_counters(4, 2, 0);
	assert_int_equal(take(W.out, o, 8), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/* A u32 match and a meter on one walk: decided per packet on the slow path, counted. */
static void
test_u32_and_meter(void **state)
{
	(void)state;
	check_pred_and_meter("drop u32 \"28=0x42414421\"\naccept limit 1/hour limit_burst 100\n"
			     "drop\n");
}

/* A bpf program on the fast path: its hits run on the RX lcore, beside a u32 match. */
static void
test_bpf(void **state)
{
	static const uint32_t tags[] = {1, BAD, 0x42000000u, 3, BAD};
	struct rule_engine_stats st;
	struct rte_mbuf *m[5], *o[8];
	const struct fc_entry *e;

	(void)state;
	world_up(false, 64);
	/* bpf: the tag's first byte through LDX MSH and an indexed load is 'B'; then u32: all of it. */
	load("accept u32 \"28=0x42414421\"\n"
	     "drop bpf_bytecode \"5,177 0 0 0,80 0 0 8,21 0 1 66,6 0 0 1,6 0 0 0\"\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 7);
	e = first_packet(m[0], 1);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	for (unsigned int i = 0; i < 5; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, tags[i]);
	/* BAD! accepted by the u32 rule, 0x42000000 dropped by the program. */
	assert_int_equal(rx(m, 5), 4);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	check_rule_counters(1, 2, 0);
	check_rule_counters(2, 1, 0);
	check_rule_counters(3, 3, 0);
	rule_engine_stats_get(W.eng, &st);
	assert_int_equal(st.bpf_preds, 1);
	assert_int_equal(st.u32_preds, 1);
	assert_int_equal(take(W.out, o, 8), 5);
	rte_pktmbuf_free_bulk(o, 5);
	check_accounting();
}

/* @p m cut into two segments at frame byte @p at. */
static struct rte_mbuf *
chained(struct rte_mbuf *m, uint16_t at)
{
	struct rte_mbuf *t = rte_pktmbuf_alloc(pool);
	uint16_t tail = (uint16_t)(m->data_len - at);
	char *d;

	assert_non_null(t);
	d = rte_pktmbuf_append(t, tail);
	assert_non_null(d);
	memcpy(d, rte_pktmbuf_mtod_offset(m, const char *, at), tail);
	assert_int_equal(rte_pktmbuf_trim(m, tail), 0);
	assert_int_equal(rte_pktmbuf_chain(m, t), 0);
	return m;
}

/* A datagram past the first segment: one segment made, tested on the fast path. */
static void
test_chained(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	/* The tag is frame bytes 42..45: cut at 44, its word straddles the segments. */
	load("drop u32 \"28=0x42414421\"\ndrop string \"EVIL\" string_algo bm string_from 28\n"
	     "accept\n");
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1));
	assert_int_equal(slow(), 1);
	assert_int_equal(rx1(chained(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD), 44)), 0);
	assert_int_equal(rx1(chained(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 0x4556494cu), 43)), 0);
	assert_int_equal(rx1(chained(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 2), 44)), 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	check_rule_counters(1, 1, 36);
	check_rule_counters(2, 1, 36);
	check_rule_counters(3, 2, 0);
	assert_int_equal(take(W.out, o, 8), 2);
	assert_int_equal(o[1]->nb_segs, 1);
	assert_int_equal(tag_of(o[1]), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/* IPv6: offsets from the IPv6 header (UDP data at 48). */
static void
test_ipv6(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	load("drop u32 \"4>>8&0xff=17 && 48=0x42414421\"\naccept\n");
	rx1(pkt6(PB_PROTO_UDP, "2001:db8::1", 1111, "2001:db8:9::2", 53, 0, 1));
	assert_int_equal(slow(), 1);
	assert_int_equal(rx1(pkt6(PB_PROTO_UDP, "2001:db8::1", 1111, "2001:db8:9::2", 53, 0, BAD)),
		0);
	assert_int_equal(rx1(pkt6(PB_PROTO_UDP, "2001:db8::1", 1111, "2001:db8:9::2", 53, 0, 2)),
		1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	check_rule_counters(1, 1, 56);
	assert_int_equal(take(W.out, o, 8), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_dnat_view, teardown),
		cmocka_unit_test_teardown(test_router_view, teardown),
		cmocka_unit_test_teardown(test_fast_path, teardown),
		cmocka_unit_test_teardown(test_neg_past_end, teardown),
		cmocka_unit_test_teardown(test_mixed, teardown),
		cmocka_unit_test_teardown(test_u32_and_meter, teardown),
		cmocka_unit_test_teardown(test_ipv6, teardown),
		cmocka_unit_test_teardown(test_bpf, teardown),
		cmocka_unit_test_teardown(test_chained, teardown),
	};

	return DP_WORLD_MAIN("dp_u32", tests, NULL, NULL);
}
