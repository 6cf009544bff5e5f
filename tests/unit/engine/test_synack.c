/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A new TCP connection's first reply on the fast path (engine_synack.c,
 * conntrack's mod_ct_fast_synack()): at the SYN the engine decides the
 * original entry as `established` and conntrack arms the line, so the
 * SYN/ACK, the handshake's ACK and the data pass on the fast path and the
 * connection costs one upcall. Each test runs one script of segments
 * through two engines as the RX lcore takes them (eng_stack_rx()): one
 * that may take the SYN/ACK on the line, and one whose tracker is liberal
 * (tcp_be_liberal: never armed for it, the first reply goes up, as
 * before); every packet gets the same verdict and rule in both, the rules
 * count the same packets (what `show rules` lists) and the first engine
 * sends up what the test says.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10

#define CLIENT 0x0a000001u /* 10.0.0.1 */
#define SERVER 0xc0000209u /* 192.0.2.9 */
#define NAT_IP 0xcb007101u /* 203.0.113.1 */
#define REAL_SERVER 0xc0a8000au /* 192.168.0.10 */

#define RULES "accept ctstate established,related\n" \
	      "accept ctstate new proto tcp dport 80\n" \
	      "policy drop\n"

/* The two engines and what went up. */
struct pair {
	struct rule_engine *eng[2]; /* [0] takes the SYN/ACK on the line, [1] does not */
	unsigned int slow[2];
};

static void
pair_init(struct pair *p, const char *rules, uint32_t nat)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct eng_stack_params sp;

		eng_stack_test_params(&sp, 1024, 64, true, nat);
		sp.ct.tcp_be_liberal = i == 1;
		p->eng[i] = eng_stack_test_create(&sp, "synack");
		eng_stack_load(p->eng[i], rules, false);
		p->slow[i] = 0;
	}
}

static void
pair_free(struct pair *p)
{
	for (unsigned int i = 0; i < 2; i++) {
		eng_stack_free(p->eng[i]);
		p->eng[i] = NULL;
	}
}

/* The pair of the test running (freed after it, whatever its outcome). */
static struct pair P;

static int
teardown(void **state)
{
	(void)state;
	pair_free(&P);
	return 0;
}

/*
 * Segment @p u into both engines at @p now: the same verdict and rule;
 * @return whether the first engine sent it up.
 */
static bool
both(struct pair *p, struct rule_upcall u, uint32_t now)
{
	struct rule_decision d[2];
	bool slow[2];

	for (unsigned int i = 0; i < 2; i++) {
		d[i] = eng_stack_rx(p->eng[i], u, now, &slow[i]);
		p->slow[i] += slow[i];
	}
	assert_int_equal(d[0].verdict, d[1].verdict);
	assert_int_equal(d[0].rule_id, d[1].rule_id);
	assert_int_equal(d[0].nat_slot != RULE_NAT_NONE, d[1].nat_slot != RULE_NAT_NONE);
	return slow[0];
}

/* Every rule counts the same packets and bytes in both engines. */
static void
same_counts(const struct pair *p)
{
	unsigned int n = 0;

	for (uint32_t id = 1; id < 16; id++) {
		uint64_t pk[2], by[2];
		int rc0 = rule_engine_rule_counters(p->eng[0], id, &pk[0], &by[0]);
		int rc1 = rule_engine_rule_counters(p->eng[1], id, &pk[1], &by[1]);

		assert_int_equal(rc0, rc1);
		if (rc0 != 0)
			continue;
		assert_int_equal(pk[0], pk[1]);
		assert_int_equal(by[0], by[1]);
		n += pk[0] != 0;
	}
	assert_true(n >= 1);
}

/*
 * The reply key of the connection whose original key is @p k in engine
 * @p eng (its reply entry's: a translated connection's replies come there).
 */
static struct rule_upcall
reply_of(struct rule_engine *eng, const struct rule_upcall *o, uint8_t tf, uint32_t seq,
	uint32_t ack, uint16_t dlen)
{
	struct fc_table *t = rule_engine_table(eng, FC_AF_INET4);
	struct rule_upcall u = eng_stack_seg4(0, 0, 0, 0, tf, seq, ack, dlen);
	uint32_t idx, peer;

	assert_non_null(eng_stack_entry_idx(eng, &o->pkt.key, &idx));
	peer = fc_table_peer(t, idx);
	assert_int_not_equal(peer, FC_INDEX_NONE);
	memcpy(&u.pkt.key.v4, fc_table_key(t, peer), sizeof(u.pkt.key.v4));
	return u;
}

static struct rule_engine_stats
stats(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st;
}

/*
 * The storm's connections: SYN, SYN/ACK, the handshake's ACK, data both
 * ways, half of them a close (FIN, FIN, ACK). The first engine sends up
 * the SYN only, the second the SYN/ACK too; the original entry leaves
 * `established` and not early once aging saw the reply taken.
 */
static void
test_synack_storm(void **state)
{
	const unsigned int n = 50;
	struct pair *pp = &P;

	(void)state;
	pair_init(pp, RULES, 0);
	for (unsigned int i = 0; i < n; i++) {
		uint16_t cp = (uint16_t)(1024 + i);

		assert_true(both(pp, eng_stack_seg4(CLIENT, cp, SERVER, 80, TCP_SYN, 1000, 0, 0), 1));
		assert_false(both(pp,
			eng_stack_seg4(SERVER, 80, CLIENT, cp, TCP_SYN | TCP_ACK, 5000, 1001, 0),
			2));
		assert_false(both(pp, eng_stack_seg4(CLIENT, cp, SERVER, 80, TCP_ACK, 1001, 5001, 0), 3));
		assert_false(both(pp, eng_stack_seg4(CLIENT, cp, SERVER, 80, TCP_ACK, 1001, 5001, 10), 4));
		assert_false(both(pp, eng_stack_seg4(SERVER, 80, CLIENT, cp, TCP_ACK, 5001, 1011, 0), 5));
		if (!(i & 1))
			continue;
		/* Half of them close: the FINs are the line's too. */
		assert_false(both(pp,
			eng_stack_seg4(CLIENT, cp, SERVER, 80, TCP_FIN | TCP_ACK, 1011, 5001, 0),
			6));
		assert_false(both(pp,
			eng_stack_seg4(SERVER, 80, CLIENT, cp, TCP_FIN | TCP_ACK, 5001, 1012, 0),
			7));
		assert_false(both(pp, eng_stack_seg4(CLIENT, cp, SERVER, 80, TCP_ACK, 1012, 5002, 0), 8));
	}
	assert_int_equal(pp->slow[0], n);
	/* The liberal one sends the SYN/ACK up, and more (it moves no state on
	 * the line: the handshake's ACK, the close). */
	assert_true(pp->slow[1] >= 2 * n);
	assert_int_equal(stats(pp->eng[0]).synack_ahead, n);
	assert_int_equal(stats(pp->eng[1]).synack_ahead, 0);
	same_counts(pp);
	/* Aging finds the replies taken: both entries established, the bit gone. */
	eng_stack_settle(pp->eng[0], 200);
	for (unsigned int k = 0; k < 8; k++)
		(void)rule_engine_step(pp->eng[0], 200 + 200 * k, 4096);
	assert_int_equal(stats(pp->eng[0]).synack_settled, n);
	for (unsigned int i = 0; i < n; i++) {
		struct rule_upcall o = eng_stack_seg4(CLIENT, (uint16_t)(1024 + i), SERVER, 80, 0, 0, 0, 0);
		struct rule_upcall r = eng_stack_seg4(SERVER, 80, CLIENT, (uint16_t)(1024 + i), 0, 0, 0, 0);
		const struct fc_entry *e = eng_stack_entry(pp->eng[0], &o.pkt.key);

		assert_non_null(e);
		assert_false(e->act.flags & (FC_ACT_F_AHEAD | FC_ACT_F_EARLY));
		e = eng_stack_entry(pp->eng[0], &r.pkt.key);
		assert_non_null(e);
		assert_false(e->act.flags & FC_ACT_F_EARLY);
	}
	/* And the connections go on as before. */
	assert_false(both(pp, eng_stack_seg4(CLIENT, 1024, SERVER, 80, TCP_ACK, 1011, 5001, 10), 2000));
	same_counts(pp);
	pair_free(pp);
}

/*
 * A SYN sent again before the SYN/ACK goes up and is decided on its own, as
 * `new` (the entry's action is the `established` one); the SYN/ACK then
 * goes up too (conntrack disarmed the line), and nothing is counted twice
 * or on the wrong rule. Sent again after the fast path took the SYN/ACK,
 * it is decided on the connection as folded (SYN_RECV, replied).
 */
static void
test_synack_retransmit(void **state)
{
	struct pair *pp = &P;

	(void)state;
	pair_init(pp, RULES, 0);
	/* Before the reply. */
	assert_true(both(pp, eng_stack_seg4(CLIENT, 2000, SERVER, 80, TCP_SYN, 1000, 0, 0), 1));
	assert_true(both(pp, eng_stack_seg4(CLIENT, 2000, SERVER, 80, TCP_SYN, 1000, 0, 0), 2));
	assert_true(both(pp, eng_stack_seg4(CLIENT, 2001, SERVER, 80, TCP_SYN, 7000, 0, 0), 2));
	assert_true(both(
		pp, eng_stack_seg4(SERVER, 80, CLIENT, 2000, TCP_SYN | TCP_ACK, 5000, 1001, 0), 3));
	assert_false(both(pp, eng_stack_seg4(CLIENT, 2000, SERVER, 80, TCP_ACK, 1001, 5001, 0), 4));
	assert_false(both(pp, eng_stack_seg4(SERVER, 80, CLIENT, 2000, TCP_ACK, 5001, 1001, 10), 5));
	/* After it. */
	assert_false(both(
		pp, eng_stack_seg4(SERVER, 80, CLIENT, 2001, TCP_SYN | TCP_ACK, 9000, 7001, 0), 6));
	assert_true(both(pp, eng_stack_seg4(CLIENT, 2001, SERVER, 80, TCP_SYN, 7000, 0, 0), 7));
	/* (The tracker remembers an ignored SYN: the next segments go up, both engines.) */
	(void)both(pp, eng_stack_seg4(CLIENT, 2001, SERVER, 80, TCP_ACK, 7001, 9001, 0), 8);
	(void)both(pp, eng_stack_seg4(SERVER, 80, CLIENT, 2001, TCP_ACK, 9001, 7001, 10), 9);
	assert_int_equal(stats(pp->eng[0]).synack_ahead, 2);
	same_counts(pp);
	pair_free(pp);
}

/*
 * A RST of the opener before the reply removes the connection: the packet
 * is decided as it is (`new`), not from the entry decided ahead (the
 * netfilter oracle's rst_from_client_unreplied).
 */
static void
test_synack_rst(void **state)
{
	struct pair *pp = &P;

	(void)state;
	pair_init(pp, RULES, 0);
	assert_true(both(pp, eng_stack_seg4(CLIENT, 5000, SERVER, 80, TCP_SYN, 1000, 0, 0), 1));
	assert_true(both(pp, eng_stack_seg4(CLIENT, 5000, SERVER, 80, 0x04, 1001, 0, 0), 2));
	(void)both(pp, eng_stack_seg4(SERVER, 80, CLIENT, 5000, TCP_SYN | TCP_ACK, 5000, 1001, 0), 3);
	same_counts(pp);
	pair_free(pp);
}

/*
 * A commit between the SYN and the SYN/ACK that drops established segments
 * of port 80: revalidation walks the entry decided ahead as `established`
 * (never as `new`, which would accept them), so the SYN/ACK's conntrack
 * step is taken and the SYN/ACK dropped on the fast path, and the
 * handshake's ACK dropped, as where the SYN/ACK goes up.
 */
static void
test_synack_commit(void **state)
{
	struct pair *pp = &P;
	struct rule r;
	struct rule_error err;

	(void)state;
	pair_init(pp, RULES, 0);
	assert_true(both(pp, eng_stack_seg4(CLIENT, 3000, SERVER, 80, TCP_SYN, 1000, 0, 0), 1));
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_set *s = rule_set_clone(rule_engine_rules(pp->eng[i]));

		assert_non_null(s);
		assert_int_equal(rule_parse("drop ctstate established proto tcp sport 80", &r, &err), 0);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL), 0);
		assert_int_equal(rule_parse("drop ctstate established proto tcp dport 80", &r, &err), 0);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL), 0);
		assert_int_equal(rule_engine_commit(pp->eng[i], s), 0);
		eng_stack_settle(pp->eng[i], 2);
	}
	assert_false(both(
		pp, eng_stack_seg4(SERVER, 80, CLIENT, 3000, TCP_SYN | TCP_ACK, 5000, 1001, 0), 3));
	assert_false(both(pp, eng_stack_seg4(CLIENT, 3000, SERVER, 80, TCP_ACK, 1001, 5001, 0), 4));
	assert_int_equal(
		eng_stack_rx(pp->eng[0],
			eng_stack_seg4(CLIENT, 3000, SERVER, 80, TCP_ACK, 1001, 5001, 0), 5, NULL)
			.verdict,
		FC_VERDICT_DROP);
	(void)eng_stack_rx(pp->eng[1],
		eng_stack_seg4(CLIENT, 3000, SERVER, 80, TCP_ACK, 1001, 5001, 0), 5, NULL);
	same_counts(pp);
	pair_free(pp);
}

/* One translated connection's handshake and data: @p up upcalls in the first engine. */
static void
nat_conn(const char *rules, uint32_t dst, unsigned int up)
{
	struct pair *pp = &P;
	struct rule_upcall syn = eng_stack_seg4(CLIENT, 4000, dst, 80, TCP_SYN, 1000, 0, 0);
	struct rule_upcall sa, sb;

	pair_init(pp, rules, 64);
	assert_true(both(pp, syn, 1));
	sa = reply_of(pp->eng[0], &syn, TCP_SYN | TCP_ACK, 5000, 1001, 0);
	sb = reply_of(pp->eng[1], &syn, 0, 0, 0, 0);
	assert_int_equal(memcmp(&sa.pkt.key.v4, &sb.pkt.key.v4, sizeof(sa.pkt.key.v4)), 0);
	/* The reply comes to the translated address. */
	assert_true(sa.pkt.key.v4.dst != htonl(CLIENT) || sa.pkt.key.v4.src != htonl(dst));
	(void)both(pp, sa, 2);
	(void)both(pp, eng_stack_seg4(CLIENT, 4000, dst, 80, TCP_ACK, 1001, 5001, 0), 3);
	(void)both(pp, eng_stack_seg4(CLIENT, 4000, dst, 80, TCP_ACK, 1001, 5001, 10), 4);
	(void)both(pp, reply_of(pp->eng[0], &syn, TCP_ACK, 5001, 1011, 0), 5);
	assert_int_equal(pp->slow[0], up);
	assert_int_equal(pp->slow[1], 3);
	same_counts(pp);
	pair_free(pp);
}

/* SNAT and DNAT'd connections take the first reply on the fast path too. */
static void
test_synack_nat(void **state)
{
	(void)state;
	nat_conn(RULES "table nat\nsnat to 203.0.113.1 src 10.0.0.0/8\n", SERVER, 1);
	nat_conn(RULES "table nat\ndnat to 192.168.0.10 proto tcp dport 80\n", SERVER, 1);
}

/*
 * With the compiled classifier, the SYN's `established` walk comes from
 * the classification cache's walk memo when an earlier connection's
 * started the same (engine_clscache.c): connections whose walks differ
 * only in what no rule tells apart share it, and those whose source port
 * interval or destination port differ each walk their own. Every verdict,
 * rule and per-rule count as in the engine that never arms.
 */
/*
 * Connections through the memo's engine pair: @p rules, NAT slots @p nat;
 * with @p two, every other one to the server's neighbour address.
 */
static void
memo_run(const char *rules, uint32_t nat, bool two)
{
	const unsigned int n = 40;
	struct pair *pp = &P;

	pair_init(pp, rules, nat);
	for (unsigned int i = 0; i < 2; i++)
		assert_int_equal(eng_stack_cls_catch_up(pp->eng[i]), 0);
	for (unsigned int i = 0; i < n; i++) {
		/* Across the intervals, back and forth: a kept walk is met again. */
		uint16_t cp = (uint16_t)(1024 + (i * 7) % n);
		uint16_t sp = (uint16_t)(i % 3 == 0 ? 81 : 80);
		uint32_t srv = two && (i & 1) ? SERVER + 1 : SERVER;
		struct rule_upcall syn = eng_stack_seg4(CLIENT, cp, srv, sp, TCP_SYN, 1000, 0, 0);
		uint32_t t = 10 * i;

		assert_true(both(pp, syn, t + 1));
		(void)both(pp, reply_of(pp->eng[0], &syn, TCP_SYN | TCP_ACK, 5000, 1001, 0), t + 2);
		(void)both(pp, eng_stack_seg4(CLIENT, cp, srv, sp, TCP_ACK, 1001, 5001, 0), t + 3);
		(void)both(pp, eng_stack_seg4(CLIENT, cp, srv, sp, TCP_ACK, 1001, 5001, 10), t + 4);
		(void)both(pp, reply_of(pp->eng[0], &syn, TCP_ACK, 5001, 1011, 0), t + 5);
	}
	same_counts(pp);
	assert_int_equal(stats(pp->eng[0]).synack_ahead, n);
	assert_true(stats(pp->eng[0]).clsc_walk_hits >= n - (two ? 16 : 8));
	assert_int_equal(stats(pp->eng[1]).clsc_walk_hits, 0);
	pair_free(pp);
}

#define MEMO_RULES "accept ctstate new proto tcp dport 80-81\n" \
		   "drop ctstate established proto tcp sport 1030-1039\n" \
		   "accept ctstate established proto tcp dport 81\n" \
		   "accept ctstate established proto tcp sport 1024-1029\n" \
		   "drop ctstate established proto tcp dst 192.168.0.10 sport 1040-1045\n" \
		   "accept ctstate established,related\n" \
		   "policy drop\n"

/*
 * With the compiled classifier, the SYN's `established` walk comes from
 * the classification cache's walk memo when an earlier connection's
 * started the same (engine_clscache.c): connections whose walks differ
 * only in what no rule tells apart share it, and those whose source port
 * interval, destination port or translated destination differ each walk
 * their own. Every verdict, rule and per-rule count as in the engine
 * that never arms; plain and DNAT'd connections (the filter's key then
 * differs from the entry's), and NETMAP'd ones whose destinations share
 * an interval before the translation and not after.
 */
static void
test_synack_memo(void **state)
{
	(void)state;
	memo_run(MEMO_RULES, 0, false);
	memo_run(MEMO_RULES "table nat\ndnat to 192.168.0.10 proto tcp dport 80\n", 64, false);
	memo_run(MEMO_RULES "table nat\nnetmap to 192.168.0.0/24 dst 192.0.2.0/24\n", 64, true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_synack_storm, teardown),
		cmocka_unit_test_teardown(test_synack_retransmit, teardown),
		cmocka_unit_test_teardown(test_synack_rst, teardown),
		cmocka_unit_test_teardown(test_synack_commit, teardown),
		cmocka_unit_test_teardown(test_synack_nat, teardown),
		cmocka_unit_test_teardown(test_synack_memo, teardown),
	};

	int ret;

	if (gufc_test_eal_init("engine_synack", "0") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
