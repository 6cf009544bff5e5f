/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A new flow's walks through the walk memo (engine_clscache.c,
 * filter_on_insert() and reply_verdict() in engine_mods.c): a connection
 * whose original direction (from the filter stage on) or reply direction
 * starts as an earlier connection's did takes that walk's outcome whole.
 * Each test runs the same connections through two engines: one with the
 * compiled classifier (the classification cache and its memo) and one
 * with the reference evaluator alone (it never memoizes). Every packet
 * gets the same verdict, rule, NAT and program in both; every entry the
 * same action, rule, marks, channel and reply key; every rule counts the
 * same packets and bytes; the first engine reuses walks where the rule
 * set allows it and none where a match is the packet's own (statistic,
 * connlimit).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
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
#include "engine_priv.h"
#include "rule_lang.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10

#define CLIENT 0x0a000001u /* 10.0.0.1 */
#define CLIENT2 0x0a000101u /* 10.0.1.1 */
#define SERVER 0xc0000209u /* 192.0.2.9 */

/* [0]: the compiled classifier and its memo; [1]: the reference evaluator alone. */
static struct rule_engine *E[2];

/* With it non-zero, each packet meets a stack the one before left otherwise (scribble()). */
static unsigned int scribbles;

static int
teardown(void **state)
{
	(void)state;
	scribbles = 0;
	for (unsigned int i = 0; i < 2; i++) {
		eng_stack_free(E[i]);
		E[i] = NULL;
	}
	return 0;
}

static struct rule_engine_stats
stats(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st;
}

static void
engines(const char *rules)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct eng_stack_params sp;

		eng_stack_test_params(&sp, 4096, 64, true, 256);
		E[i] = eng_stack_test_create(&sp, "wmemo");
		eng_stack_load(E[i], rules, false);
	}
	assert_int_equal(eng_stack_cls_catch_up(E[0]), 0);
}

/*
 * Leave the stack below the caller's frame filled with @p b: the frames
 * the engine builds there next start from other bytes than the last
 * packet's. A memo key with a byte its builder leaves as it found it
 * (struct eng_walk_in) then differs from packet to packet: the walks'
 * lookups miss.
 */
static __attribute__((noinline)) void
scribble(uint8_t b)
{
	uint8_t buf[32768];

	memset(buf, b, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
}

/* The same decision in both engines. */
static void
both(struct rule_upcall u, uint32_t now)
{
	struct rule_decision d[2];

	for (unsigned int i = 0; i < 2; i++) {
		if (scribbles != 0)
			scribble((uint8_t)(++scribbles * 37u));
		d[i] = eng_stack_rx(E[i], u, now, NULL);
	}
	assert_int_equal(d[0].verdict, d[1].verdict);
	assert_int_equal(d[0].drop, d[1].drop);
	assert_int_equal(d[0].rule_id, d[1].rule_id);
	assert_int_equal(d[0].channel, d[1].channel);
	assert_int_equal(d[0].out_port, d[1].out_port);
	assert_int_equal(d[0].pkt_prog != 0, d[1].pkt_prog != 0);
	assert_int_equal(d[0].nat_slot != RULE_NAT_NONE, d[1].nat_slot != RULE_NAT_NONE);
}

/* An entry as both engines have it: the same action, marks, channel. */
static void
same_entry(const struct rule_flow_info *a, const struct rule_flow_info *b)
{
	assert_int_equal(a->act.verdict, b->act.verdict);
	assert_int_equal(a->act.rule_id, b->act.rule_id);
	assert_int_equal(a->act.flags, b->act.flags);
	assert_int_equal(a->act.interest, b->act.interest);
	assert_int_equal(a->act.out_port, b->act.out_port);
	assert_int_equal(a->act.pkt_class != 0, b->act.pkt_class != 0);
	assert_int_equal(a->mark, b->mark);
	assert_int_equal(a->ctmark, b->ctmark);
	assert_int_equal(a->channel, b->channel);
}

/*
 * The connection of @p syn in both engines: both entries alike, the reply
 * entry keyed alike (what NAT made of it). @return the reply's upcall
 * (flags @p tf), or one with family 0 when the SYN made no entry.
 */
static struct rule_upcall
same_conn(const struct rule_upcall *syn, uint8_t tf)
{
	struct rule_flow_info f[2], r[2];
	struct rule_upcall u = eng_stack_seg4(0, 0, 0, 0, tf, 5000, 1001, 0);
	int rc[2];

	for (unsigned int i = 0; i < 2; i++)
		rc[i] = rule_engine_flow_lookup(E[i], &syn->pkt.key, &f[i]);
	assert_int_equal(rc[0], rc[1]);
	if (rc[0] != 0) {
		u.pkt.key.family = 0;
		return u;
	}
	same_entry(&f[0], &f[1]);
	assert_int_equal(f[0].peer != FC_INDEX_NONE, f[1].peer != FC_INDEX_NONE);
	if (f[0].peer == FC_INDEX_NONE) {
		u.pkt.key.family = 0;
		return u;
	}
	for (unsigned int i = 0; i < 2; i++)
		assert_int_equal(rule_engine_flow_get(E[i], FC_AF_INET4, f[i].peer, &r[i]), 0);
	same_entry(&r[0], &r[1]);
	assert_int_equal(memcmp(&r[0].key, &r[1].key, sizeof(r[0].key)), 0);
	u.pkt.key = r[0].key;
	return u;
}

/* Every rule counts the same packets and bytes in both engines; @return how many counted. */
static unsigned int
same_counts(void)
{
	unsigned int n = 0;

	for (uint32_t id = 1; id < 64; id++) {
		uint64_t pk[2], by[2];
		int rc0 = rule_engine_rule_counters(E[0], id, &pk[0], &by[0]);
		int rc1 = rule_engine_rule_counters(E[1], id, &pk[1], &by[1]);

		assert_int_equal(rc0, rc1);
		if (rc0 != 0)
			continue;
		assert_int_equal(pk[0], pk[1]);
		assert_int_equal(by[0], by[1]);
		n += pk[0] != 0;
	}
	return n;
}

/*
 * @p n connections across the rules' intervals, back and forth (a kept
 * walk is met again): client ports 1024 up, server ports 80, 81, 8080;
 * with RUN_TWO_SRV every other one to the server's neighbour address,
 * with RUN_TWO_CLI every fourth from the other client; each a SYN, the
 * reply's SYN/ACK, the ACK and data both ways. @return the first
 * engine's new flows' walks reused.
 */
#define RUN_TWO_SRV 1u
#define RUN_TWO_CLI 2u

static uint64_t
run(unsigned int n, unsigned int two)
{
	uint64_t hits;

	for (unsigned int i = 0; i < n; i++) {
		uint16_t cp = (uint16_t)(1024 + (i * 7) % 48);
		uint16_t sp = (uint16_t)(i % 3 == 0 ? 81 : i % 5 == 0 ? 8080 : 80);
		uint32_t srv = (two & RUN_TWO_SRV) && (i & 1) ? SERVER + 1 : SERVER;
		uint32_t cli = (two & RUN_TWO_CLI) && (i % 4) == 1 ? CLIENT2 : CLIENT;
		struct rule_upcall syn = eng_stack_seg4(cli, cp, srv, sp, TCP_SYN, 1000, 0, 0);
		struct rule_upcall rep;
		uint32_t t = 10 * i + 1;

		both(syn, t);
		rep = same_conn(&syn, TCP_SYN | TCP_ACK);
		if (rep.pkt.key.family == 0)
			continue;
		both(rep, t + 1);
		both(eng_stack_seg4(cli, cp, srv, sp, TCP_ACK, 1001, 5001, 0), t + 2);
		both(eng_stack_seg4(cli, cp, srv, sp, TCP_ACK, 1001, 5001, 10), t + 3);
		rep.pkt.tcp_flags = TCP_ACK;
		both(rep, t + 4);
		(void)same_conn(&syn, TCP_ACK);
	}
	assert_true(same_counts() >= 1);
	assert_int_equal(stats(E[1]).clsc_new_hits, 0);
	assert_int_equal(stats(E[1]).classify_cls, 0);
	hits = stats(E[0]).clsc_new_hits;
	return hits;
}

/*
 * The filter's rules, by source-port and destination intervals, marks and
 * connection marks (the second client's connections to port 80 get one
 * whose replies are dropped).
 */
#define FILTER_RULES \
	"drop ctstate established connmark 0x3 proto tcp sport 80\n" \
	"drop ctstate new proto tcp sport 1030-1035\n" \
	"accept ctstate established,related\n" \
	"drop mark 0x5 proto tcp sport 1040-1044\n" \
	"accept ctstate new proto tcp dport 80-81\n" \
	"accept ctstate new proto tcp dst 192.168.0.10 dport 8080\n" \
	"policy drop\n" \
	"table mangle\n" \
	"chain P hook prerouting\n" \
	"mark set_mark 0x5 proto tcp dport 81\n" \
	"connmark save_mark proto tcp dport 81\n" \
	"mark set_mark 0x3 src 10.0.1.0/24 proto tcp dport 80\n" \
	"connmark save_mark src 10.0.1.0/24 proto tcp dport 80\n" \
	"chain F hook forward\n" \
	"mark set_mark 0x6 proto tcp sport 80 connmark 0x5\n" \
	"chain O hook postrouting\n" \
	"mark set_mark 0x7 proto tcp sport 1024-1027\n"

/* Plain connections: reused in both directions, marks and all. */
static void
test_walkmemo_plain(void **state)
{
	(void)state;
	engines(FILTER_RULES);
	/* Each of 40 connections two walks; a few intervals' first ones walk. */
	assert_true(run(40, 0) >= 40);
}

/*
 * The walks' keys are their builders' alone: with the stack under the
 * engine left otherwise before each packet, the walks are reused as
 * often (a key with a byte no builder clears would miss every time).
 */
static void
test_walkmemo_keys_whole(void **state)
{
	uint64_t walks;

	(void)state;
	scribbles = 1;
	engines(FILTER_RULES);
	assert_true(run(40, 0) >= 40);
	/* The SYNs' `established` walks (eng_synack_ahead()) as well. */
	walks = stats(E[0]).clsc_walk_hits;
	assert_true(walks >= 20);
}

/*
 * Exact ports and an address named by drop rules: the client ports in
 * none of them (the seven gaps between and around 1026, 1030, 1037-1038,
 * 1046, 1054, 1062) are one class of the projection, so their connections share walks across the
 * gaps; those the rules name are decided apart (a class shared wrongly
 * would hand an accept to a port that is dropped, or the reverse).
 */
static void
test_walkmemo_gaps(void **state)
{
	uint64_t hits;

	(void)state;
	engines("drop ctstate new proto tcp sport 1026\n"
		"drop ctstate new proto tcp sport 1030\n"
		"drop ctstate new proto tcp sport 1037-1038\n"
		"drop ctstate new proto tcp sport 1046\n"
		"drop ctstate new proto tcp sport 1054\n"
		"drop ctstate new proto tcp sport 1062\n"
		"drop ctstate new proto tcp dst 192.0.2.10 dport 81\n"
		"accept ctstate established,related\n"
		"accept ctstate new proto tcp\n"
		"policy drop\n");
	hits = run(48, RUN_TWO_SRV);
	/* 69 here; 45 with each interval a class of its own. */
	assert_true(hits >= 60);
}

/*
 * bench-peers' storm set in small: exact five-tuple drop rules (36, on
 * 36 server addresses and 3 ports, from client addresses and ports of
 * their own; one connection blocked both ways) and a negated source with
 * a port. Per field, each server address and port the rules name is a
 * class of its own; a connection whose source address or port no rule
 * names fails every five-tuple rule whatever its destination, and shares
 * its walks with the other such connections to any server: only the
 * negated rule's fields stay its own (its source, from 10.0.0.0/24 or
 * not, and whether its port is 8080). The connections the rules name are
 * decided apart: the blocked one, those matching a rule in all fields
 * but one, those a rule drops, and port 8080 from outside 10.0.0.0/24
 * (a walk shared across the negated rule's fields would let it through).
 */
#define TUPLE_RULES_N 36

static void
test_walkmemo_tuples(void **state)
{
	static const uint16_t dports[3] = {22, 80, 443};
	static const uint16_t sports[4] = {22, 80, 443, 8080};
	char rules[8192];
	size_t o = 0;
	uint64_t hits;

	(void)state;
	o += (size_t)snprintf(rules + o, sizeof(rules) - o,
		"accept ctstate established,related\n"
		"drop ctstate new proto tcp src !10.0.0.0/24 dport 8080\n"
		"drop proto tcp src 10.0.0.1 dst 192.0.2.12 sport 1030 dport 80\n"
		"drop proto tcp src 192.0.2.12 dst 10.0.0.1 sport 80 dport 1030\n");
	for (unsigned int j = 0; j < TUPLE_RULES_N; j++)
		o += (size_t)snprintf(rules + o, sizeof(rules) - o,
			"drop proto tcp src 10.0.2.%u dst 192.0.2.%u sport %u dport %u\n",
			100 + j, 10 + j, 2000 + j, dports[j % 3]);
	snprintf(rules + o, sizeof(rules) - o, "accept ctstate new proto tcp\npolicy drop\n");
	engines(rules);
	for (unsigned int i = 0; i < 144; i++) {
		unsigned int j = i % TUPLE_RULES_N;
		uint32_t cli = i % 4 == 3 ? 0x0a000101u + i % 5 : CLIENT + i % 7;
		uint32_t srv = SERVER + 1 + (i * 5) % TUPLE_RULES_N;
		uint16_t cp = (uint16_t)(1024 + (i * 7) % 48), sp = sports[(i / 2) % 4];
		struct rule_upcall syn, rep;
		uint32_t t = 10 * i + 1;

		if (i % 16 == 0) {
			/* The blocked connection. */
			cli = CLIENT;
			cp = 1030;
			srv = SERVER + 3;
			sp = 80;
		} else if (i % 6 == 5 || i % 6 == 2) {
			/* A rule's connection; at 2, all but the server's port. */
			cli = 0x0a000264u + j;
			cp = (uint16_t)(2000 + j);
			srv = SERVER + 1 + j;
			sp = i % 6 == 5 ? dports[j % 3] : dports[(j + 1) % 3];
		}
		syn = eng_stack_seg4(cli, cp, srv, sp, TCP_SYN, 1000, 0, 0);
		both(syn, t);
		rep = same_conn(&syn, TCP_SYN | TCP_ACK);
		if (rep.pkt.key.family == 0)
			continue;
		both(rep, t + 1);
		both(eng_stack_seg4(cli, cp, srv, sp, TCP_ACK, 1001, 5001, 0), t + 2);
		both(eng_stack_seg4(cli, cp, srv, sp, TCP_ACK, 1001, 5001, 10), t + 3);
		rep.pkt.tcp_flags = TCP_ACK;
		both(rep, t + 4);
		(void)same_conn(&syn, TCP_ACK);
	}
	assert_true(same_counts() >= 4);
	assert_int_equal(stats(E[1]).clsc_new_hits, 0);
	hits = stats(E[0]).clsc_new_hits;
	print_message("tuples: %" PRIu64 " new flows' walks reused\n", hits);
	/* 159 here; each field's class alone: 100. */
	assert_true(hits >= 140);
}

/*
 * SNAT'd: the src stage's decision comes with the kept walk (NAT's
 * on_insert reads it). Two clients translated to one address: their
 * replies' contexts are alike but for the connection's mark, which the
 * original direction set by the client's address and a reply's rule reads.
 */
static void
test_walkmemo_snat(void **state)
{
	(void)state;
	engines(FILTER_RULES "table nat\n"
		"snat to 203.0.113.1 proto tcp src 10.0.0.0/8 dport 80\n"
		"snat to 203.0.113.2 proto tcp dport 8080\n");
	assert_true(run(40, RUN_TWO_CLI) >= 32);
}

/* DNAT'd: the filter sees the translated destination (the key has it). */
static void
test_walkmemo_dnat(void **state)
{
	(void)state;
	engines(FILTER_RULES "table nat\n"
			     "dnat to 192.168.0.10 proto tcp dport 8080\n"
			     "dnat to 192.168.0.11 proto tcp dport 81\n");
	assert_true(run(40, 0) >= 32);
}

/*
 * NETMAP'd: two servers whose addresses share an interval before the
 * translation and not after (the filter names 192.168.0.10).
 */
static void
test_walkmemo_netmap(void **state)
{
	(void)state;
	engines(FILTER_RULES "table nat\nnetmap to 192.168.0.0/24 dst 192.0.2.0/24\n");
	/* 192.0.2.9 -> 192.168.0.9 and 192.0.2.10 -> 192.168.0.10. */
	assert_true(run(40, RUN_TWO_SRV) >= 32);
}

/*
 * A statistic match: every walk that reaches it is the packet's own; none
 * is reused wrongly, in the filter stage or before it (mangle
 * PREROUTING, walked before the memo is asked: the walk is not kept).
 */
static void
test_walkmemo_statistic(void **state)
{
	(void)state;
	engines("drop proto tcp dport 81 statistic_mode nth statistic_every 3 statistic_packet 1\n"
		FILTER_RULES);
	(void)run(40, 0);
	teardown(state);
	engines("drop mark 0x9\n"
		"accept ctstate established,related\n"
		"accept ctstate new proto tcp\n"
		"policy drop\n"
		"table mangle\n"
		"chain P hook prerouting\n"
		"mark set_mark 0x9 proto tcp dport 80 statistic_mode nth statistic_every 3 "
		"statistic_packet 1\n");
	(void)run(40, 0);
}

/* connlimit: the connections counted, each walk asks; reused only where it is not reached. */
static void
test_walkmemo_connlimit(void **state)
{
	(void)state;
	engines("drop proto tcp dport 80 connlimit_above 3 connlimit_mask 24\n" FILTER_RULES);
	(void)run(40, 0);
}

/*
 * The memo's comparison: a key kept, then the same key with one byte
 * changed, byte by byte, everywhere but where the projection rewrites
 * (the context's key and connection tuples, where its bytes are, the
 * filter's key): every one misses, the unchanged key hits. Also a
 * filter's key that is the context's but for its input port (hashed as
 * that port alone) and one that differs in more. A comparison that
 * skips a part of the key (a wrong shared walk) fails here.
 */
static bool
skipped(size_t off)
{
	static const struct {
		size_t at, len;
	} proj[] = {
		{offsetof(struct eng_walk_in, p.key), sizeof(struct fc_key)},
		{offsetof(struct eng_walk_in, p.ct_orig), sizeof(struct fc_key)},
		{offsetof(struct eng_walk_in, p.ct_repl), sizeof(struct fc_key)},
		{offsetof(struct eng_walk_in, p.l3), sizeof(const uint8_t *)},
		{offsetof(struct eng_walk_in, p.l3_cap), sizeof(uint32_t)},
		{offsetof(struct eng_walk_in, fk), sizeof(struct fc_key)},
	};

	for (size_t i = 0; i < sizeof(proj) / sizeof(proj[0]); i++)
		if (off >= proj[i].at && off < proj[i].at + proj[i].len)
			return true;
	return false;
}

static bool
memo_find(const struct eng_walk_in *k, struct eng_walkm_probe *pr)
{
	struct eng_walk_in in = *k;
	const struct eng_walk_out *wo;

	return eng_walkm_find(E[0], &in, &wo, pr);
}

static void
test_walkmemo_key_bytes(void **state)
{
	struct eng_walk_in base, k;
	const struct eng_walk_out *wo;
	struct eng_walkm_probe pr;
	unsigned int n = 0;

	(void)state;
	engines(FILTER_RULES);
	assert_true(eng_walkm_on(E[0]));
	for (unsigned int kind = ENG_WALK_REFILTER; kind <= ENG_WALK_NEW_ORIG; kind++) {
		memset(&base, 0, sizeof(base));
		base.p.key.family = FC_AF_INET4;
		fc_key_set_proto(&base.p.key, 6);
		fc_key_set_ports(&base.p.key, htons(1029), htons(80));
		fc_key_set_in_port(&base.p.key, 1);
		base.p.ctstate = RULE_CT_ESTABLISHED;
		base.p.ct_orig.family = FC_AF_INET4;
		base.p.ct_repl.family = FC_AF_INET4;
		base.fk = base.p.key;
		fc_key_set_in_port(&base.fk, 2);
		base.a.verdict = FC_VERDICT_ACCEPT;
		base.out = 2;
		base.kind = (uint8_t)kind;
		/* Kept as the walk keeps it: the key projected by the lookup that missed. */
		k = base;
		assert_false(eng_walkm_find(E[0], &k, &wo, &pr));
		assert_non_null(eng_walkm_slot(E[0], &pr, &k));
		assert_true(memo_find(&base, &pr));
		for (size_t off = 0; off < sizeof(base); off++) {
			if (skipped(off))
				continue;
			k = base;
			((uint8_t *)&k)[off] ^= 0x5a;
			if (memo_find(&k, &pr))
				fail_msg("kind %u: byte %zu of the key changed, the memo hit",
					kind, off);
			n++;
		}
		/* The filter's key: another input port; another protocol as well. */
		k = base;
		fc_key_set_in_port(&k.fk, 3);
		assert_false(memo_find(&k, &pr));
		fc_key_set_proto(&k.fk, 17);
		assert_false(memo_find(&k, &pr));
		k = base;
		fc_key_set_proto(&k.fk, 17);
		assert_false(memo_find(&k, &pr));
		assert_true(memo_find(&base, &pr));
	}
	assert_true(n > 2 * (sizeof(base) - 5 * sizeof(struct fc_key)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_walkmemo_plain, teardown),
		cmocka_unit_test_teardown(test_walkmemo_keys_whole, teardown),
		cmocka_unit_test_teardown(test_walkmemo_gaps, teardown),
		cmocka_unit_test_teardown(test_walkmemo_tuples, teardown),
		cmocka_unit_test_teardown(test_walkmemo_snat, teardown),
		cmocka_unit_test_teardown(test_walkmemo_dnat, teardown),
		cmocka_unit_test_teardown(test_walkmemo_netmap, teardown),
		cmocka_unit_test_teardown(test_walkmemo_statistic, teardown),
		cmocka_unit_test_teardown(test_walkmemo_connlimit, teardown),
		cmocka_unit_test_teardown(test_walkmemo_key_bytes, teardown),
	};
	int ret;

	if (gufc_test_eal_init("engine_walkmemo", "0") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
