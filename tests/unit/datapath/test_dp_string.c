/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m string" on the fast path (engine_strpred.h, dp_pred.c),
 * with mbufs through dp_rx_burst() and dp_upcall_burst() and a real
 * engine: a flow is cached with both outcomes and its hits are searched
 * on the RX lcore (no upcall), each counted for the rule of its own
 * outcome; a first packet the match drops caches nothing (its next packet
 * is a new flow again, as in Linux); negation and --icase, the --from /
 * --to window, several string rules in a row (one predicate, a tree of
 * searches), and a walk reaching a search and a meter decided per packet
 * on the slow path (counted). The payload of pkt4() is its tag (4 bytes, big
 * endian) then 1 2 3 4, at offset 28 of the IPv4 datagram.
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

#include "dp_world.h"

#define BAD DP_BAD /* "BAD!" */
#define BAD_LOWER 0x62616421u /* "bad!" */

/* Hits searched on the RX lcore: matching ones dropped, the others delivered. */
static void
test_fast_path(void **state)
{
	static const uint32_t tags[] = {1, BAD, 2, BAD, BAD, 3};
	struct rte_mbuf *m[6], *o[8];
	const struct fc_entry *e;
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	load("drop string \"BAD!\" string_algo bm\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 7);
	k = key_of(m[0]);
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
	/* Each rule counts its own outcome's packets (36-byte datagrams). */
	check_rule_counters(1, 3, 3 * 36);
	check_rule_counters(2, 4, 4 * 36);
	/* Another set: the stale entry goes up once, is decided again, hits search again. */
	load("accept string \"BAD!\" string_algo kmp\ndrop\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD);
	m[1] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 4);
	rx(m, 2);
	slow();
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 5);
	m[1] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD);
	assert_int_equal(rx(m, 2), 1);
	assert_int_equal(take(W.out, o, 8), 2); /* BAD! from the slow path, then the fast one */
	assert_int_equal(tag_of(o[0]), BAD);
	assert_int_equal(tag_of(o[1]), BAD);
	rte_pktmbuf_free_bulk(o, 2);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_equal(W.rx.st.upcall_stale, 2); /* the stale burst's two, then hits */
	assert_int_equal(W.rx.st.upcalls, 3);
	check_rule_counters(1, 2, 0);
	check_rule_counters(2, 2, 0);
	check_accounting();
}

/* A first packet the match drops: no entry, the next packet is new again. */
static void
test_first_dropped(void **state)
{
	struct rte_mbuf *m;
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	load("drop string \"BAD!\" string_algo kmp\naccept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD);
	k = key_of(m);
	rx1(m);
	assert_int_equal(slow(), 0);
	assert_null(entry_of(&k, NULL));
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1));
	assert_int_equal(W.rx.st.misses, 2);
	assert_int_equal(slow(), 1);
	assert_non_null(entry_of(&k, NULL));
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD)), 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	check_rule_counters(1, 2, 0);
	check_rule_counters(2, 1, 0);
	rte_pktmbuf_free(take1(W.out));
	check_accounting();
}

/* Negation and --icase; the window's end at --to. */
static void
test_neg_icase_window(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	/* Accept what does not hold "bad!" in any case, within bytes 28..31 only. */
	load("accept string !\"bad!\" string_algo kmp string_icase string_from 28 string_to 32\n"
	     "drop\n");
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1));
	assert_int_equal(slow(), 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD)), 0);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD_LOWER)), 0);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 2)), 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	/* One byte short of the pattern's end: never found, every packet accepted. */
	load("accept string !\"BAD!\" string_algo kmp string_from 28 string_to 31\ndrop\n");
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1));
	assert_int_equal(slow(), 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, BAD)), 1);
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/* Several string rules in a row: one predicate (a tree of searches) on the fast path. */
static void
test_two_searches(void **state)
{
	static const uint32_t tags[] = {0x4556494cu /* "EVIL" */, BAD, 2, 0x45564942u};
	const struct fc_entry *e;
	struct rte_mbuf *m[4], *o[8];

	(void)state;
	world_up(false, 64);
	load("drop string \"BAD!\" string_algo bm\ndrop string \"EVIL\" string_algo kmp\n"
	     "drop string \"EVIB\" string_algo kmp string_from 40\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1);
	e = first_packet(m[0], 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.2", 53, tags[i]);
	/* EVIL, BAD! dropped; 2 and EVIB (before --from 40) delivered: no upcall. */
	assert_int_equal(rx(m, 4), 2);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	check_rule_counters(1, 1, 0);
	check_rule_counters(2, 1, 0);
	check_rule_counters(3, 0, 0);
	check_rule_counters(4, 3, 0);
	assert_int_equal(take(W.out, o, 8), 3);
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
}

/* A search and a meter on one walk: decided per packet on the slow path, counted. */
static void
test_search_and_meter(void **state)
{
	(void)state;
	check_pred_and_meter("drop string \"BAD!\" string_algo bm\n"
			     "accept limit 1/hour limit_burst 100\ndrop\n");
}

/* With conntrack: the reply direction gets its predicate at the first reply. */
static void
test_replies(void **state)
{
	struct rte_mbuf *o[8];
	const struct fc_entry *e;
	struct rte_mbuf *m;
	struct fc_key rk;

	(void)state;
	world_up(true, 64);
	load("drop string \"BAD!\" string_algo bm\naccept\n");
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1));
	assert_int_equal(slow(), 1);
	m = udp4("10.9.0.2", 53, "10.0.0.1", 1111, 2); /* the first reply */
	rk = key_of(m);
	rx1(m);
	slow();
	e = entry_of(&rk, NULL);
	assert_non_null(e);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(rx1(udp4("10.9.0.2", 53, "10.0.0.1", 1111, BAD)), 0);
	assert_int_equal(rx1(udp4("10.9.0.2", 53, "10.0.0.1", 1111, 3)), 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, BAD)), 0);
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	check_rule_counters(1, 2, 0);
	check_rule_counters(2, 3, 0);
	assert_int_equal(take(W.out, o, 8), 3);
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
}

/* IPv6: offsets from the IPv6 header (UDP data at 48). */
static void
test_ipv6(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	load("drop string \"BAD!\" string_algo bm string_from 48 string_to 52\naccept\n");
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
		cmocka_unit_test_teardown(test_fast_path, teardown),
		cmocka_unit_test_teardown(test_first_dropped, teardown),
		cmocka_unit_test_teardown(test_neg_icase_window, teardown),
		cmocka_unit_test_teardown(test_two_searches, teardown),
		cmocka_unit_test_teardown(test_search_and_meter, teardown),
		cmocka_unit_test_teardown(test_ipv6, teardown),
		cmocka_unit_test_teardown(test_replies, teardown),
	};

	return DP_WORLD_MAIN("dp_string", tests, NULL, NULL);
}
