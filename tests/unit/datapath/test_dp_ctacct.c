/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the connection's counters against its entries' counters:
 * a TCP segment conntrack accepts but ignores (old data below the windows,
 * taken by the fast path's window check; a SYN in ESTABLISHED, the slow
 * path's) counts on its entry, for its rule, but not for its connection,
 * as Linux's accounting (nf_conntrack_acct, read by connbytes) leaves it
 * out. The flow listing shows both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "dp_world.h"

static const char *cli = "10.0.0.1", *srv = "10.9.0.3";

/* The client's entry: packets counted, of them ignored. */
static void
counts(const struct fc_key *k, uint64_t packets, uint64_t ignored)
{
	struct rule_flow_info fi;

	assert_int_equal(rule_engine_flow_lookup(W.eng, k, &fi), 0);
	assert_int_equal(fi.packets, packets);
	assert_int_equal(fi.ign_packets, ignored);
}

/*
 * connbytes 0:4 on the client's packets: the three ignored segments leave
 * the connection at 3 packets, the fourth counted one is accepted (7 on
 * the entry), the fifth is not. The accept rule counts every accepted one.
 */
static void
test_ignored_not_conn(void **state)
{
	struct rte_mbuf *m, *o[16];
	struct fc_key k;
	uint64_t up;
	uint32_t rid;

	(void)state;
	world_up(true, 64);
	load("policy drop\n"
	     "accept connbytes 0:4 connbytes_dir original connbytes_mode packets\n");
	tcp_numbers(100, 0);
	m = tcp4(cli, 40000, srv, 80, PB_TCP_SYN, 1);
	k = key_of(m);
	rx1(m);
	assert_int_equal(slow(), 1);
	tcp_numbers(500, 109);
	rx1(tcp4(srv, 80, cli, 40000, PB_TCP_SYN | PB_TCP_ACK, 2));
	slow();
	tcp_numbers(109, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 3));
	slow();
	counts(&k, 2, 0);
	assert_non_null(entry_of(&k, NULL));
	assert_true(entry_of(&k, NULL)->act.interest & FC_INTEREST_TCP_WIN);
	rid = entry_of(&k, NULL)->act.rule_id;

	/* The connection's third packet, then old data twice: the fast path's, ignored. */
	tcp_numbers(117, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4));
	slow();
	up = W.rx.st.upcalls;
	tcp_numbers(117 - 1000000, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 5));
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 6));
	assert_int_equal(W.rx.st.upcalls, up);
	assert_int_equal(W.rx.st.ct_ignored_fast, 2);
	counts(&k, 5, 2);

	/* A SYN in ESTABLISHED: ignored on the slow path. */
	tcp_numbers(70000, 0);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_SYN, 7));
	assert_int_equal(slow(), 1);
	counts(&k, 6, 3);

	/* The connection's fourth packet: in the range (the entry's seventh). */
	tcp_numbers(117, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 8));
	slow();
	counts(&k, 7, 3);
	/* The fifth: past it, dropped. */
	tcp_numbers(125, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 9));
	slow();
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER] +
				 W.slow.st.rule_drops[RULE_DROP_FILTER],
		1);
	/* Delivered: all but the last, the ignored ones included. */
	assert_int_equal(take(W.out, o, 16), 8);
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(tag_of(o[i]), i + 1);
	rte_pktmbuf_free_bulk(o, 8);
	/* The rule counts the ignored segments its entries took (both directions). */
	check_rule_counters(rid, 8, 0);
	tcp_numbers(1000, 2000);
	check_accounting();
}

/*
 * The listing: the entry's counters, and the connection's when they differ
 * (the set reads the connection's counters: a connbytes rule the walk
 * passes). @p connbytes false: a set without one keeps no counts apart
 * (16 bytes a slot), the connection's counters are the entry's.
 */
static void
ignored_listing(bool connbytes)
{
	struct rule_flow_info fi;
	struct rte_mbuf *o[8];
	struct fc_key k;
	char text[512];

	world_up(true, 64);
	load(connbytes ? "drop connbytes 1000000: connbytes_dir both connbytes_mode packets\n"
			 "accept\n"
		       : "accept\n");
	k = handshake4(cli, 40001, srv, 80);
	assert_int_equal(rule_engine_flow_lookup(W.eng, &k, &fi), 0);
	assert_true(rule_engine_flow_format(W.eng, &fi, text, sizeof(text)) > 0);
	assert_null(strstr(text, "ignored="));
	tcp_numbers(117 - 1000000, 509);
	rx1(tcp4(cli, 40001, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4));
	assert_int_equal(rule_engine_flow_lookup(W.eng, &k, &fi), 0);
	assert_int_equal(fi.packets, 3);
	assert_true(rule_engine_flow_format(W.eng, &fi, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, " packets=3 "));
	if (connbytes) {
		assert_int_equal(fi.ign_packets, 1);
		assert_int_equal(fi.ign_bytes, fi.bytes / 3); /* three segments of one size */
		assert_non_null(strstr(text, " ct_packets=2 "));
		assert_non_null(strstr(text, " ignored=1"));
	} else {
		assert_null(((const struct rule_engine_view *)(const void *)W.eng)->ct_ignored[0]);
		assert_int_equal(fi.ign_packets, 0);
		assert_null(strstr(text, "ignored="));
	}
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	tcp_numbers(1000, 2000);
	check_accounting();
}

static void
test_ignored_listing(void **state)
{
	(void)state;
	ignored_listing(true);
}

static void
test_ignored_no_connbytes(void **state)
{
	(void)state;
	ignored_listing(false);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ignored_not_conn, teardown),
		cmocka_unit_test_teardown(test_ignored_listing, teardown),
		cmocka_unit_test_teardown(test_ignored_no_connbytes, teardown),
	};

	return DP_WORLD_MAIN("dp_ctacct", tests, NULL, NULL);
}
