/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m connbytes" on the rules engine with the app's module
 * stack (tests/unit/common/eng_stack.c): the evaluators see the
 * connection's counters in the direction asked (this packet included, as
 * Linux's accounting counts it before the filter), and a flow whose
 * decision read them is cached up to the count where it may change: the
 * fast path (emulated here as lib/datapath does it) sends that one packet
 * up, not every packet. Each case checks the exact packet where the verdict
 * flips and how few packets went up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

/* A UDP packet of @p ip_len IP bytes (what the datapath counts: rule_upcall::len). */
static struct rule_upcall
udp(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint16_t in_port,
	uint16_t ip_len)
{
	struct rule_upcall u = eng_stack_up4(17, src, sport, dst, dport, in_port);

	u.pkt.ip_len = ip_len;
	u.len = ip_len;
	return u;
}

static struct rule_upcall
orig(uint16_t ip_len)
{
	return udp("10.0.0.1", 1000, "10.0.0.2", 53, 0, ip_len);
}

static struct rule_upcall
repl(uint16_t ip_len)
{
	return udp("10.0.0.2", 53, "10.0.0.1", 1000, 1, ip_len);
}

static struct rule_engine *
mk_engine(const char *text)
{
	struct eng_stack_params p;
	struct rule_engine *eng;

	eng_stack_test_params(&p, 256, 64, true, 0);
	p.eng.port_pair_fn = eng_stack_pair01;
	eng = eng_stack_test_create(&p, "cb");
	eng_stack_load(eng, text, true);
	return eng;
}

static unsigned int n_up; /* packets that went up */

/* One packet as lib/datapath treats it (eng_stack_rx() at time 1): the cached verdict, or up. */
static uint8_t
rx(struct rule_engine *eng, struct rule_upcall u)
{
	bool slow;
	uint8_t v = eng_stack_rx(eng, u, 1, &slow).verdict;

	n_up += slow;
	return v;
}

#define A FC_VERDICT_ACCEPT
#define D FC_VERDICT_DROP

/* Packets mode, the original direction, both ends of 3:5; replies follow the original count. */
static void
test_packets_original(void **state)
{
	struct rule_engine *eng =
		mk_engine("drop proto udp connbytes 3:5 connbytes_dir original connbytes_mode packets\n");

	(void)state;
	n_up = 0;
	assert_int_equal(rx(eng, orig(86)), A); /* 1 */
	assert_int_equal(rx(eng, repl(86)), A); /* original count 1 */
	assert_int_equal(rx(eng, orig(86)), A); /* 2 */
	assert_int_equal(rx(eng, repl(86)), A);
	assert_int_equal(rx(eng, orig(86)), D); /* 3 */
	assert_int_equal(rx(eng, repl(86)), D); /* original count 3 */
	assert_int_equal(rx(eng, orig(86)), D); /* 4 */
	assert_int_equal(rx(eng, orig(86)), D); /* 5 */
	assert_int_equal(rx(eng, repl(86)), D);
	assert_int_equal(rx(eng, orig(86)), A); /* 6 */
	assert_int_equal(rx(eng, repl(86)), A);
	for (unsigned int i = 0; i < 50; i++)
		assert_int_equal(rx(eng, orig(86)), A);
	/*
	 * Up: the first packet, the first reply (conntrack sees it), the
	 * third (drop from now), the sixth (accept for good).
	 */
	assert_int_equal(n_up, 4);
	eng_stack_free(eng);
}

/*
 * Before the filter: conntrack (and Linux's accounting) runs before mangle
 * PREROUTING, so a connection's first packet is counted there too: 1:1
 * drops it in mangle (no entry: it starts over as a first packet); 2:2 in
 * mangle lets the first through and drops the second.
 */
static void
test_prerouting_first(void **state)
{
	struct rule_engine *eng =
		mk_engine("table mangle\n"
			  "chain P hook prerouting\n"
			  "drop proto udp dport 53 connbytes 1:1 connbytes_dir original "
			  "connbytes_mode packets\n"
			  "drop proto udp dport 54 connbytes 2:2 connbytes_dir original "
			  "connbytes_mode packets\n");
	struct rule_upcall b1 = udp("10.0.0.1", 1001, "10.0.0.2", 54, 0, 86);

	(void)state;
	assert_int_equal(rx(eng, orig(86)), D);
	assert_int_equal(rx(eng, orig(86)), D);
	assert_int_equal(rx(eng, b1), A); /* 1 */
	assert_int_equal(rx(eng, b1), D); /* 2 */
	assert_int_equal(rx(eng, b1), A); /* 3 */
	eng_stack_free(eng);
}

/* "--connbytes 11:" (QoS: from the 11th packet): 10 accepted, then drops, two packets up. */
static void
test_packets_open(void **state)
{
	struct rule_engine *eng =
		mk_engine("drop proto udp connbytes 11: connbytes_dir original connbytes_mode packets\n");
	struct rule_engine_stats st;

	(void)state;
	n_up = 0;
	for (unsigned int i = 1; i <= 100; i++)
		assert_int_equal(rx(eng, orig(86)), i <= 10 ? A : D);
	assert_int_equal(n_up, 2);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.count_redecided, 1);
	eng_stack_free(eng);
}

/* Reply direction: the reply count alone decides, in both directions' packets. */
static void
test_packets_reply(void **state)
{
	struct rule_engine *eng =
		mk_engine("drop proto udp connbytes 2:2 connbytes_dir reply connbytes_mode packets\n");

	(void)state;
	n_up = 0;
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(rx(eng, orig(86)), A);
	assert_int_equal(rx(eng, repl(86)), A); /* reply 1 */
	assert_int_equal(rx(eng, repl(86)), D); /* reply 2 */
	assert_int_equal(rx(eng, orig(86)), D); /* reply count 2 */
	assert_int_equal(rx(eng, repl(86)), A); /* reply 3 */
	assert_int_equal(rx(eng, orig(86)), A);
	for (unsigned int i = 0; i < 20; i++)
		assert_int_equal(rx(eng, i & 1 ? orig(86) : repl(86)), A);
	assert_int_equal(n_up, 4); /* first, reply's first, reply 2, reply 3 */
	eng_stack_free(eng);
}

/*
 * Bytes, both directions: 86 IP bytes a packet, 1000 reached at the 12th
 * packet (1032).
 */
static void
test_bytes_both(void **state)
{
	struct rule_engine *eng =
		mk_engine("drop proto udp connbytes 1000: connbytes_dir both connbytes_mode bytes\n");

	(void)state;
	n_up = 0;
	for (unsigned int i = 1; i <= 40; i++)
		assert_int_equal(rx(eng, i & 1 ? orig(86) : repl(86)), i < 12 ? A : D);
	assert_true(n_up <= 8);
	eng_stack_free(eng);
}

/* Average packet size (integer), the original direction: it goes up and down. */
static void
test_avgpkt(void **state)
{
	struct rule_engine *eng =
		mk_engine("drop proto udp connbytes 500: connbytes_dir original connbytes_mode avgpkt\n");
	static const struct {
		uint16_t len;
		uint8_t v;
	} c[] = {
		{100, A}, {100, A}, {1400, D}, /* 1600 / 3 = 533 */
		{100, A},                      /* 1700 / 4 = 425 */
		{1100, D},                     /* 2800 / 5 = 560 */
		{200, D},                      /* 3000 / 6 = 500: from 500 */
		{100, A},                      /* 3100 / 7 = 442 */
	};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(c); i++)
		if (rx(eng, orig(c[i].len)) != c[i].v)
			fail_msg("packet %zu: not %u", i + 1, c[i].v);
	eng_stack_free(eng);
}

/*
 * A walk that also reads a per-packet field (the length) is decided per
 * packet on the slow path: the connection's counters still count every
 * packet, and the rules count each packet once, as its own walk says.
 */
static void
test_per_packet(void **state)
{
	struct rule_engine *eng = mk_engine("drop proto udp length 1000:2000\n"
		"drop proto udp connbytes 3:4 connbytes_dir original connbytes_mode packets\n");
	static const uint8_t v[] = {A, A, D, D, A, A, A};
	uint64_t pk, by;
	uint32_t pol = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD);

	(void)state;
	n_up = 0;
	for (size_t i = 0; i < RTE_DIM(v); i++)
		if (rx(eng, orig(86)) != v[i])
			fail_msg("packet %zu: not %u", i + 1, v[i]);
	assert_int_equal(n_up, RTE_DIM(v));
	assert_int_equal(rule_engine_rule_counters(eng, 2, &pk, &by), 0);
	assert_int_equal(pk, 2);
	assert_int_equal(by, 2 * 86); /* IP bytes, as iptables counts */
	assert_int_equal(rule_engine_rule_counters(eng, pol, &pk, &by), 0);
	assert_int_equal(pk, 5);
	assert_int_equal(rule_engine_rule_counters(eng, 1, &pk, &by), 0);
	assert_int_equal(pk, 0);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packets_original),
		cmocka_unit_test(test_packets_open),
		cmocka_unit_test(test_prerouting_first),
		cmocka_unit_test(test_packets_reply),
		cmocka_unit_test(test_bytes_both),
		cmocka_unit_test(test_avgpkt),
		cmocka_unit_test(test_per_packet),
	};

	if (gufc_test_eal_init("connbytes", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
