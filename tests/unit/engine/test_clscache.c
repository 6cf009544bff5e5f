/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the rules engine's classification cache
 * (lib/engine/engine_clscache.c), through rule_engine_classify() with the
 * compiled classifier current: contexts that differ only in what no rule
 * reads share a result; a commit that changes the verdict is seen at once;
 * a field a rule reads is never projected away; a walk that asked a
 * provider is not kept.
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

#include <rte_memory.h>

#include "classifier.h"
#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

static struct rule_engine *
mk_engine(void)
{
	struct eng_stack_params p;

	eng_stack_test_params(&p, 64, 64, false, 0);
	p.eng.full_policy = FC_FULL_EVICT_IDLE;
	return eng_stack_test_create(&p, "cc");
}

/* Commit a native set and compile it. */
static void
load(struct rule_engine *eng, const char *text)
{
	eng_stack_load(eng, text, true);
	assert_int_equal(eng_stack_cls_catch_up(eng), 0);
}

/* The filter stage for a forwarded TCP packet from @p src:@p sport to 10.9.0.1:@p dport. */
static struct rule_eval
filter(struct rule_engine *eng, const char *src, uint16_t sport, uint16_t dport)
{
	struct fc_key k;
	struct rule_pkt p;
	struct rule_eval ev;

	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	inet_pton(AF_INET, src, &k.v4.src);
	inet_pton(AF_INET, "10.9.0.1", &k.v4.dst);
	k.v4.sport = htons(sport);
	k.v4.dport = htons(dport);
	k.v4.proto = 6;
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.in_port = 0;
	p.out_port = 1;
	assert_int_equal(rule_engine_classify(eng, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	return ev;
}

static struct rule_engine_stats
stats(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st;
}

/* Connections that differ in the source only share one walk; others do not. */
static void
test_reuse(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_engine_stats st;
	struct rule_eval ev;

	(void)state;
	load(eng, "drop proto tcp dport 22\naccept proto tcp dport 80\n");
	ev = filter(eng, "10.0.0.1", 1000, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	st = stats(eng);
	assert_int_equal(st.clsc_misses, 1);
	assert_int_equal(st.clsc_hits, 0);
	for (uint16_t sp = 1001; sp < 1010; sp++) {
		ev = filter(eng, sp & 1 ? "10.0.0.2" : "10.0.0.1", sp, 80);
		assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
		assert_int_not_equal(ev.rule_id, RULE_ID_POLICY);
	}
	st = stats(eng);
	assert_int_equal(st.clsc_misses, 1);
	assert_int_equal(st.clsc_hits, 9);
	/* Another destination port is another result. */
	ev = filter(eng, "10.0.0.1", 1000, 22);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	st = stats(eng);
	assert_int_equal(st.clsc_misses, 2);
	assert_int_equal(st.clsc_hits, 9);
	eng_stack_free(eng);
}

/* A commit that changes the verdict is seen by the very next connection. */
static void
test_commit(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_engine_stats st0, st;
	struct rule_eval ev;

	(void)state;
	load(eng, "accept proto tcp dport 80\n");
	ev = filter(eng, "10.0.0.1", 1000, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	ev = filter(eng, "10.0.0.1", 1001, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	st0 = stats(eng);
	assert_int_equal(st0.clsc_hits, 1);
	load(eng, "drop proto tcp dport 80\n");
	ev = filter(eng, "10.0.0.1", 1002, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	st = stats(eng);
	assert_int_equal(st.clsc_hits, st0.clsc_hits);
	assert_true(st.clsc_flushes > st0.clsc_flushes);
	/* The new result is kept in turn. */
	ev = filter(eng, "10.0.0.1", 1003, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	st = stats(eng);
	assert_int_equal(st.clsc_hits, st0.clsc_hits + 1);
	eng_stack_free(eng);
}

/* A rule that reads the source port or address keeps it in the cache's key. */
static void
test_fields_read(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_eval ev;

	(void)state;
	load(eng, "drop proto tcp sport 1001\naccept\n");
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(filter(eng, "10.0.0.1", 1001, 80).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(stats(eng).clsc_hits, 1);

	load(eng, "drop src 10.0.0.9\naccept\n");
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(filter(eng, "10.0.0.9", 1000, 80).verdict, RULE_VERDICT_DROP);
	/* The source port is still nobody's: shared. */
	ev = filter(eng, "10.0.0.9", 1001, 80);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	assert_int_equal(stats(eng).clsc_hits, 2);

	/* An extension match that reads the source (iprange) keeps all of it. */
	load(eng, "drop src_range 10.0.0.5-10.0.0.6\naccept\n");
	assert_int_equal(filter(eng, "10.0.0.4", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(filter(eng, "10.0.0.5", 1000, 80).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.5", 1001, 80).verdict, RULE_VERDICT_DROP);
	assert_int_equal(stats(eng).clsc_hits, 2);
	eng_stack_free(eng);
}

/*
 * Ports and addresses that the same ranges and prefixes hold (the same
 * interval, or intervals no rule tells apart: below and above a range)
 * share a result; those some range holds and others not do not (the
 * reply direction's client port is a destination port).
 */
static void
test_intervals(void **state)
{
	struct rule_engine *eng = mk_engine();

	(void)state;
	load(eng, "drop proto tcp dport 2000-3000\ndrop src 10.0.1.0/24\naccept\n");
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 2100).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.7", 1001, 2900).verdict, RULE_VERDICT_DROP);
	assert_int_equal(stats(eng).clsc_hits, 1);
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 1999).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(stats(eng).clsc_hits, 1);
	/* Above the range as 1999 is below it: in no range either, shared. */
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 3001).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(stats(eng).clsc_hits, 2);
	assert_int_equal(filter(eng, "10.0.1.0", 1000, 80).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.1.255", 1000, 81).verdict, RULE_VERDICT_DROP);
	assert_int_equal(stats(eng).clsc_hits, 3);
	/* Above the prefix, below it: in no prefix, as 10.0.0.1 with port 1999 was. */
	assert_int_equal(filter(eng, "10.0.2.0", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(stats(eng).clsc_hits, 4);
	assert_int_equal(filter(eng, "10.0.0.255", 1000, 80).verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(stats(eng).clsc_hits, 5);
	/* Inside the range, across an inner boundary another rule makes: apart. */
	load(eng, "drop proto tcp dport 2000-3000\naccept proto tcp dport 2500\naccept\n");
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 2100).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 2500).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 2900).verdict, RULE_VERDICT_DROP);
	assert_int_equal(filter(eng, "10.0.0.1", 1000, 1999).verdict, RULE_VERDICT_ACCEPT);
	/* 2900 shares 2100's class (2000-3000 alone), 2500 is apart (both ranges). */
	assert_int_equal(stats(eng).clsc_hits, 6);
	eng_stack_free(eng);
}

/* A walk that asked a provider is the packet's own. */
/*
 * A kept walk that changed the context (a MARK) hands its changes to each
 * context that shares it; one that changed nothing leaves the caller's
 * context as it was, the mark it came with included.
 */
static void
test_context_out(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_pkt p;
	struct rule_eval ev;
	struct fc_key k;

	(void)state;
	load(eng, "mark set_mark 0x5 proto tcp dport 80\naccept proto tcp\n");
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	inet_pton(AF_INET, "10.0.0.1", &k.v4.src);
	inet_pton(AF_INET, "10.9.0.1", &k.v4.dst);
	k.v4.dport = htons(80);
	k.v4.proto = 6;
	for (uint16_t sp = 1000; sp < 1004; sp++) {
		k.v4.sport = htons(sp);
		rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
		p.in_port = 0;
		p.out_port = 1;
		assert_int_equal(rule_engine_classify(eng, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
		assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
		assert_int_equal(p.mark, 5);
		assert_int_equal(ntohs(p.key.v4.sport), sp);
	}
	assert_int_equal(stats(eng).clsc_hits, 3);
	/* Port 81: no MARK; a context that came with mark 3 keeps it, on a hit too. */
	k.v4.dport = htons(81);
	for (uint16_t sp = 1000; sp < 1004; sp++) {
		k.v4.sport = htons(sp);
		rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
		p.in_port = 0;
		p.out_port = 1;
		p.mark = sp < 1002 ? 0 : 3;
		assert_int_equal(rule_engine_classify(eng, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
		assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
		assert_int_equal(p.mark, sp < 1002 ? 0 : 3);
		assert_int_equal(ntohs(p.key.v4.sport), sp);
	}
	assert_int_equal(stats(eng).clsc_hits, 5);
	eng_stack_free(eng);
}

static void
test_stateful(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_engine_stats st;

	(void)state;
	load(eng, "drop proto tcp statistic_mode nth statistic_every 2 statistic_packet 1\n");
	for (uint16_t sp = 1000; sp < 1004; sp++)
		(void)filter(eng, "10.0.0.1", sp, 80);
	st = stats(eng);
	assert_int_equal(st.clsc_hits, 0);
	assert_int_equal(st.clsc_misses, 0);
	assert_int_equal(st.clsc_uncacheable, 4);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_fields_read),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_stateful),
		cmocka_unit_test(test_context_out),
	};

	if (gufc_test_eal_init("clscache", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
