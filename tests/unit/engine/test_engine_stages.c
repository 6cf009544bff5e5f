/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the rules engine's rule stages on the app's module stack
 * (tests/unit/common/eng_stack.c): a decision that depends on per-packet
 * fields (TCP flags) is not cached as is (an accept gets entries decided
 * per packet, a drop gets none), marks set in mangle are matched in filter,
 * input and output ports by name (the paired port when no route says
 * otherwise), marks and connection marks kept with flows and connections,
 * -m limit meters the fast path asks, ctstate DNAT after the nat module translated, and NETMAP through the nat
 * module.
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

#include "csum_ref.h"
#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10

static struct rule_upcall
up4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t tcp_flags, uint16_t in_port)
{
	struct rule_upcall u = eng_stack_up4(proto, src, sport, dst, dport, in_port);

	u.pkt.tcp_flags = tcp_flags;
	return u;
}

static struct rule_engine *
mk_engine(bool ct, uint32_t nat)
{
	struct eng_stack_params p;

	eng_stack_test_params(&p, 256, 64, ct, nat);
	p.eng.port_pair_fn = eng_stack_pair01;
	return eng_stack_test_create(&p, "ts");
}

/* Commit a native set whose ports are named p0 and p1. */
static void
load(struct rule_engine *eng, const char *text)
{
	eng_stack_load(eng, text, true);
}

/* The mark the rules' walk gives a flow's packets (the engine keeps it per slot). */
static uint32_t
mark_of(struct rule_engine *eng, const struct fc_key *k)
{
	struct rule_flow_info info;

	assert_int_equal(rule_engine_flow_lookup(eng, k, &info), 0);
	assert_int_equal(info.act.ext, 0); /* not in the action: the fast path never reads it */
	return info.mark;
}

static void
test_per_packet(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall syn = up4(6, "10.0.0.1", 1234, "10.0.0.2", 80, TCP_SYN, 0);
	struct rule_upcall ack = up4(6, "10.0.0.1", 1234, "10.0.0.2", 80, TCP_ACK, 0);
	struct rule_upcall fin = up4(6, "10.0.0.1", 1234, "10.0.0.2", 80, TCP_FIN | TCP_ACK, 0);
	const struct fc_entry *e;
	struct rule_decision d;

	(void)state;
	load(eng, "drop proto tcp dport 80 tcp_flags fin fin\n"
		  "drop proto tcp dport 81 tcp_flags syn,ack syn\n");
	/*
	 * Accepted by a walk that looked at the flags alone: cached for the
	 * flags' class (the first segment's: a guess), not per packet.
	 */
	d = eng_stack_decide(eng, syn, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &syn.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	/* The fast path: the SYN's class (the rule at port 81 tells SYN from ACK). */
	assert_true(rule_engine_class_ok(eng, &e->act, &syn.pkt, syn.frame, syn.frame_len, true));
	assert_false(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	/* The first ACK takes the guessed class over. */
	d = eng_stack_decide(eng, ack, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id,
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD));
	e = eng_stack_entry(eng, &syn.pkt.key);
	assert_non_null(e);
	/* ACK and PSH|ACK are one class; FIN|ACK is not. */
	assert_true(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	ack.pkt.tcp_flags = TCP_ACK | 0x08;
	assert_true(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	ack.pkt.tcp_flags = TCP_ACK;
	assert_false(rule_engine_class_ok(eng, &e->act, &fin.pkt, fin.frame, fin.frame_len, true));
	/* The odd packet goes up alone: decided on its own, the entry kept. */
	d = eng_stack_decide(eng, fin, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	assert_int_equal(d.rule_id, 1);
	e = eng_stack_entry(eng, &syn.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	assert_false(rule_engine_class_ok(eng, &e->act, &fin.pkt, fin.frame, fin.frame_len, true));
	d = eng_stack_decide(eng, ack, 4);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng, fin, 5);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* A drop that depended on the flags gets no entry. */
	syn = up4(6, "10.0.0.1", 1235, "10.0.0.2", 81, TCP_SYN, 0);
	d = eng_stack_decide(eng, syn, 6);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 2);
	assert_null(eng_stack_entry(eng, &syn.pkt.key));
	/* A commit with other flags tests: the old class fails until taken anew. */
	load(eng, "drop proto tcp dport 80 tcp_flags rst rst\n"
		  "drop proto tcp dport 81 tcp_flags syn,ack syn\n");
	e = eng_stack_entry(eng, &ack.pkt.key);
	if (e != NULL)
		assert_false(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	d = eng_stack_decide(eng, ack, 9);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &ack.pkt.key);
	assert_non_null(e);
	assert_true(rule_engine_class_ok(eng, &e->act, &ack.pkt, ack.frame, ack.frame_len, true));
	eng_stack_free(eng);
}

static void
test_marks_and_ports(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_decision d;

	(void)state;
	load(eng, "drop mark 0x5\n"
		  "drop proto udp in p1 dport 9\n"
		  "drop proto udp out p0 dport 10\n"
		  "table mangle\n"
		  "chain P hook prerouting\n"
		  "mark set_mark 0x5 proto udp dport 53\n");
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 1);
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1000, "10.0.0.2", 54, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	/* Input port by name. */
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1001, "10.0.0.2", 9, 0, 1), 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 2);
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1002, "10.0.0.2", 9, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	/* No route: the paired port is the output port (0 <-> 1). */
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1003, "10.0.0.2", 10, 0, 1), 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 3);
	d = eng_stack_decide(eng, up4(17, "10.0.0.1", 1004, "10.0.0.2", 10, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	eng_stack_free(eng);
}

/* What the RX lcore does: a hit neither stale nor wanted is decided by its entry. */
static struct rule_decision
rx(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	return eng_stack_rx(eng, u, now, NULL);
}

/*
 * Marks kept with flows and connections: a flow whose filter rule matches
 * the mark mangle sets is cached (the walk gives its packets the same
 * mark, kept per slot by the engine); a connection mark saved by the first packet (a rule for
 * NEW only) is restored for the connection's later packets in both
 * directions, cached verdicts included, and survives revalidation.
 */
static void
test_marks_kept(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall q = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.0.0.2", 53, "10.0.0.1", 1000, 0, 1);
	struct rule_upcall o = up4(17, "10.0.0.1", 1001, "10.0.0.2", 54, 0, 0);
	const struct fc_entry *e;
	struct rule_decision d;
	struct rule_set *s;

	(void)state;
	load(eng, "drop connmark 0x7 ctstate established\n"
		  "accept mark 0x5\n"
		  "drop mark 0x6\n"
		  "table mangle\n"
		  "chain P hook prerouting\n"
		  "connmark restore_mark\n"
		  "mark set_mark 0x5 proto udp dport 54\n"
		  "mark set_mark 0x7 ctstate new proto udp dport 53\n"
		  "connmark save_mark\n");
	/* -m mark on a cached flow: the mark is the flow's, no per-packet decision. */
	d = eng_stack_decide(eng, o, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 2);
	e = eng_stack_entry(eng, &o.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(mark_of(eng, &o.pkt.key), 0x5);
	/* The query is NEW: marked 7, saved to the connection; not dropped. */
	d = eng_stack_decide(eng, q, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &q.pkt.key);
	assert_non_null(e);
	assert_int_equal(mark_of(eng, &q.pkt.key), 0x7);
	/* The reply is ESTABLISHED: the rule for NEW does not run, the connection's mark does. */
	d = rx(eng, r, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 1);
	/* Later packets of both directions: their cached verdicts say the same. */
	d = rx(eng, q, 4);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 1);
	d = rx(eng, r, 5);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* Revalidation after a commit keeps the connection's mark. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	{
		struct rule rl;
		struct rule_error err;

		assert_int_equal(rule_parse("accept proto udp dport 53", &rl, &err), 0);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN,
					 RULE_POS_END, &rl, NULL),
			0);
	}
	assert_int_equal(rule_engine_commit(eng, s), 0);
	{
		struct rule_engine_stats st;

		eng_stack_settle(eng, 6);
		rule_engine_stats_get(eng, &st);
		assert_true(st.revalidated > 0);
	}
	d = rx(eng, q, 7);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 1);
	eng_stack_free(eng);
}

/* The mark mangle gives flow @p i of test_marks_many (sport 1000 + i). */
static uint32_t
many_mark(unsigned int i)
{
	if (i % 3 == 0)
		return 0;
	return i < 50 ? 0x9 : 0x5;
}

static struct rule_upcall
many_flow(unsigned int i)
{
	return up4(17, "10.0.0.1", (uint16_t)(1000 + i), "10.0.0.2", i % 3 == 0 ? 54 : 53, 0, 0);
}

/*
 * Marks are side records of the few slots that have one: many marked
 * flows among unmarked ones keep theirs while others come and go (aged
 * out in between, their slots reused by unmarked flows), and a flush
 * leaves no mark to the next flows.
 */
static void
test_marks_many(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	const unsigned int n = 240;

	(void)state;
	load(eng, "accept\n"
		  "table mangle\n"
		  "chain P hook prerouting\n"
		  "mark set_mark 0x5 proto udp dport 53\n"
		  "mark set_mark 0x9 proto udp dport 53 sport 1000-1049\n");
	/* Even flows at 1 s, odd ones at 20 s: the even ones age out first. */
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(eng_stack_decide(eng, many_flow(i), i % 2 ? 20000 : 1000).verdict,
			FC_VERDICT_ACCEPT);
	for (unsigned int i = 0; i < n; i++) {
		struct rule_upcall u = many_flow(i);

		assert_int_equal(mark_of(eng, &u.pkt.key), many_mark(i));
	}
	for (unsigned int k = 0; k < 64; k++)
		rule_engine_step(eng, 40000, 64);
	for (unsigned int i = 0; i < n; i++) {
		struct rule_upcall u = many_flow(i);
		struct rule_flow_info info;

		if (i % 2 == 0) {
			assert_int_equal(rule_engine_flow_lookup(eng, &u.pkt.key, &info), -ENOENT);
			continue;
		}
		assert_int_equal(mark_of(eng, &u.pkt.key), many_mark(i));
	}
	/* Unmarked flows take the freed slots: none inherits a mark. */
	for (unsigned int i = 0; i < n / 2; i++) {
		struct rule_upcall u = up4(17, "10.0.0.3", (uint16_t)(2000 + i), "10.0.0.2", 54, 0, 0);

		assert_int_equal(eng_stack_decide(eng, u, 40001).verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(mark_of(eng, &u.pkt.key), 0);
	}
	for (unsigned int i = 1; i < n; i += 2) {
		struct rule_upcall u = many_flow(i);

		assert_int_equal(mark_of(eng, &u.pkt.key), many_mark(i));
	}
	rule_engine_flush(eng);
	load(eng, "accept\n");
	for (unsigned int i = 0; i < n; i++) {
		struct rule_upcall u = many_flow(i);

		assert_int_equal(eng_stack_decide(eng, u, 50000).verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(mark_of(eng, &u.pkt.key), 0);
	}
	eng_stack_free(eng);
}

/*
 * -m statistic --mode nth counts the packets that reach it, as netfilter
 * does: the first packet of a new flow steps the rule's counter and the
 * flow is decided per packet (an accepted one gets an entry decided on the
 * slow path, whose packets step it too); the counter is the rule's,
 * whatever the flow. Revalidation after a commit does not step it; a set
 * numbered anew (a reload) starts it over.
 */
static void
test_nth(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall b = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	/* Packets reaching the rule: a a a b a b | commit | a a | reload | a b */
	static const uint8_t want[] = {FC_VERDICT_ACCEPT, FC_VERDICT_DROP, FC_VERDICT_ACCEPT,
		FC_VERDICT_ACCEPT, FC_VERDICT_DROP, FC_VERDICT_ACCEPT};
	const struct rule_upcall *seq[] = {&a, &a, &a, &b, &a, &b};
	const char *text = "drop proto udp statistic_mode nth statistic_every 3 statistic_packet 1\n";
	const struct fc_entry *e;
	struct rule_set *s;
	struct rule rl;
	struct rule_error err;

	(void)state;
	load(eng, text);
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(rx(eng, *seq[i], 1 + i).verdict, want[i]);
	e = eng_stack_entry(eng, &a.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_SLOW);
	/* A commit of a descendant: the cached flows are decided again, the count goes on. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_parse("accept proto tcp", &rl, &err), 0);
	assert_int_equal(
		rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POS_END, &rl, NULL), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 10);
	assert_int_equal(rx(eng, a, 11).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, a, 12).verdict, FC_VERDICT_DROP);
	/* A reload numbers the rules anew: the count starts over. */
	load(eng, text);
	eng_stack_settle(eng, 13);
	assert_int_equal(rx(eng, a, 14).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, b, 15).verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

/*
 * -m recent: a flow whose walk reaches a list is decided per packet (the
 * list changes with every packet that reaches it): b is accepted until a
 * sets its source, then b's next packet (same flow) is dropped; a reload
 * keeps the lists, as netfilter keeps a list while a rule names it.
 */
static void
test_recent(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall b = up4(17, "10.0.0.1", 1001, "10.0.0.2", 54, 0, 0);
	const char *text = "drop proto udp dport 54 recent_rcheck recent_seconds 600 recent_name S\n"
			   "accept proto udp dport 53 recent_set recent_name S\n";
	const struct fc_entry *e;

	(void)state;
	load(eng, text);
	assert_int_equal(rx(eng, b, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, b, 2).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &b.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_int_equal(rx(eng, a, 3).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, b, 4).verdict, FC_VERDICT_DROP);
	load(eng, text);
	eng_stack_settle(eng, 5);
	assert_int_equal(rx(eng, b, 6).verdict, FC_VERDICT_DROP);
	{
		struct rule_recent_info li;
		struct rule_recent_entry re;
		struct rule_engine_stats st;

		assert_int_equal(rule_recent_info(rule_engine_recent(eng), 0, &li), 0);
		assert_string_equal(li.name, "S");
		assert_int_equal(li.entries, 1);
		assert_int_equal(rule_recent_entry(rule_engine_recent(eng), 0, 0, &re), 0);
		assert_int_equal(re.family, FC_AF_INET4);
		assert_memory_equal(re.addr, &a.pkt.key.v4.src, 4);
		/* A set that names no list: the list goes, as Linux frees it with its last rule. */
		load(eng, "accept proto udp\n");
		assert_int_equal(rule_recent_info(rule_engine_recent(eng), 0, &li), -ENOENT);
		rule_engine_stats_get(eng, &st);
		assert_int_equal(st.recent_dropped, 1);
		/* Named again: an empty list, b is accepted. */
		load(eng, text);
		eng_stack_settle(eng, 7);
		assert_int_equal(rx(eng, b, 8).verdict, FC_VERDICT_ACCEPT);
	}
	eng_stack_free(eng);
}

/* Commit native @p text with ipsets @p sets (shared: the engine changes them). */
static void
load_sets(struct rule_engine *eng, const char *text, struct rule_ipsets *sets)
{
	struct rule_set *s = eng_stack_rules(text, true);

	rule_set_ipsets(s, sets);
	assert_int_equal(rule_engine_commit(eng, s), 0);
}

/*
 * -j SET: a packet that reaches --add-set adds its source to the loaded
 * set, one that reaches --del-set deletes it, and the "-m set" flows see
 * it from their next packet (decided per packet, as every set match):
 * b is accepted until a adds its source, dropped after, accepted again
 * once c deletes it. A re-add of a live member without --exist changes
 * nothing; a hash:ip,port target takes both dimensions; a -m set after
 * the SET in the same walk sees the change; a reload that
 * keeps the ipsets keeps what -j SET changed.
 */
static void
test_set_target(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall b = up4(17, "10.0.0.1", 1001, "10.0.0.2", 54, 0, 0);
	struct rule_upcall c = up4(17, "10.0.0.1", 1002, "10.0.0.2", 55, 0, 0);
	struct rule_upcall d = up4(17, "10.0.0.9", 1003, "10.0.0.2", 56, 0, 0);
	struct rule_upcall e = up4(17, "10.0.0.9", 1004, "10.0.0.2", 57, 0, 0);
	const char *text = "set proto udp dport 58 add_set S src\n"
			   "drop proto udp dport 58 match_set S src\n"
			   "set proto udp dport 53 add_set S src\n"
			   "set proto udp dport 55 del_set S src\n"
			   "set proto udp dport 56 add_set P src,dst\n"
			   "drop proto udp dport 54 match_set S src\n"
			   "drop proto udp dport 57 match_set P src,dst\n"
			   "accept proto udp\n";
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(
		"create S hash:ip family inet\ncreate P hash:ip,port family inet\n", "sets", 0, &err);
	struct rule_engine_stats st;
	const struct fc_entry *ent;

	(void)state;
	assert_non_null(sets);
	load_sets(eng, text, sets);
	assert_int_equal(rx(eng, b, 1).verdict, FC_VERDICT_ACCEPT);
	ent = eng_stack_entry(eng, &b.pkt.key);
	assert_non_null(ent);
	assert_int_equal(ent->act.verdict, FC_VERDICT_SLOW);
	assert_int_equal(rx(eng, a, 2).verdict, FC_VERDICT_ACCEPT);
	/* a's flow runs the target per packet too (each packet changes the set in Linux). */
	ent = eng_stack_entry(eng, &a.pkt.key);
	assert_non_null(ent);
	assert_int_equal(ent->act.verdict, FC_VERDICT_SLOW);
	assert_int_equal(rx(eng, b, 3).verdict, FC_VERDICT_DROP);
	assert_int_equal(rx(eng, a, 4).verdict, FC_VERDICT_ACCEPT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.set_added, 1); /* the second add found it live */
	assert_int_equal(rx(eng, c, 5).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, b, 6).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, c, 7).verdict, FC_VERDICT_ACCEPT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.set_deleted, 1);
	assert_int_equal(st.set_failed, 0);
	/* hash:ip,port: d adds 10.0.0.9,udp:56; e (port 57) does not match it, ... */
	assert_int_equal(rx(eng, e, 8).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, d, 9).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, e, 10).verdict, FC_VERDICT_ACCEPT);
	{
		/* ... the member is its source and destination port. */
		struct rule_pkt q;
		struct rule_x_set ref = {.name = "P", .ndims = 2, .dirs = 2};

		rule_pkt_init(&q, &d.pkt.key, 0, 0);
		assert_int_equal(rule_ipsets_test(sets, &ref, &q, NULL), 1);
		ref.dirs = 0;
		assert_int_equal(rule_ipsets_test(sets, &ref, &q, NULL), 0);
	}
	/* The match after the SET in the same walk sees the change (as Linux): f is dropped. */
	{
		struct rule_upcall f = up4(17, "10.0.0.7", 1005, "10.0.0.2", 58, 0, 0);
		struct rule_upcall g = up4(17, "10.0.0.7", 1006, "10.0.0.2", 54, 0, 0);

		assert_int_equal(rx(eng, g, 10).verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(rx(eng, f, 10).verdict, FC_VERDICT_DROP);
		assert_int_equal(rx(eng, g, 10).verdict, FC_VERDICT_DROP);
	}
	/* A reload sharing the ipsets keeps a's member. */
	assert_int_equal(rx(eng, a, 11).verdict, FC_VERDICT_ACCEPT);
	load_sets(eng, text, sets);
	eng_stack_settle(eng, 12);
	assert_int_equal(rx(eng, b, 13).verdict, FC_VERDICT_DROP);
	rule_ipsets_free(sets);
	eng_stack_free(eng);
}

/*
 * -m hashlimit: a bucket per source; a flow whose walk reaches one is
 * decided per packet on the slow path (Linux's answers, tokens per packet):
 * a gets 2 packets of burst 2, then drops; c's source has its own bucket.
 */
static void
test_hashlimit(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall a2 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	struct rule_upcall c = up4(17, "10.0.0.3", 1000, "10.0.0.2", 53, 0, 0);
	const char *text = "accept proto udp hashlimit_upto 1/hour hashlimit_burst 2 "
			   "hashlimit_mode srcip hashlimit_name H\n"
			   "drop proto udp\n";
	struct rule_hashlimit_info hi;
	const struct fc_entry *e;

	(void)state;
	load(eng, text);
	/* The table is made at the commit, with its rule's settings. */
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), 0);
	assert_string_equal(hi.name, "H");
	assert_int_equal(hi.buckets, 0);
	assert_int_equal(hi.cfg.burst, 2);
	assert_int_equal(rx(eng, a, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &a.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_int_equal(rx(eng, a, 2).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, a2, 3).verdict, FC_VERDICT_DROP);
	assert_int_equal(rx(eng, a, 4).verdict, FC_VERDICT_DROP);
	assert_int_equal(rx(eng, c, 5).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), 0);
	assert_int_equal(hi.buckets, 2);
	eng_stack_free(eng);
}

/*
 * -m hashlimit with an expire no shorter than a bucket's refill (here 1/hour,
 * burst 2, expire 3 hours): each bucket is a meter, as -m limit's, and a
 * flow whose verdict one bucket decides is cached with it: the fast path
 * takes its tokens and drops once the bucket is empty, without an upcall.
 * Another flow of the same source shares the bucket (found empty);
 * --hashlimit-above answers the other way round; another source has its
 * own bucket. --hashlimit-htable-max 2: a third source finds the table
 * full and is dropped (netfilter's hotdrop).
 */
static void
test_hashlimit_meter(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall a2 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	struct rule_upcall c = up4(17, "10.0.0.3", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall x = up4(17, "10.0.0.5", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall b = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54, 0, 0);
	const char *text = "accept proto udp dport 53 hashlimit_upto 1/hour hashlimit_burst 2 "
			   "hashlimit_mode srcip hashlimit_name H hashlimit_htable_expire 10800000 "
			   "hashlimit_htable_max 2\n"
			   "drop proto udp dport 53\n"
			   "drop proto udp dport 54 hashlimit_above 1/hour hashlimit_burst 1 "
			   "hashlimit_mode srcip hashlimit_name A hashlimit_htable_expire 10800000\n";
	const struct fc_entry *e;
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	load(eng, text);
	d = eng_stack_decide(eng, a, 1); /* token 1 */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &a.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	d = rx(eng, a, 2); /* token 2, on the fast path */
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, a, 3);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* The same source's other flow: the same bucket, empty. */
	assert_int_equal(rx(eng, a2, 4).verdict, FC_VERDICT_DROP);
	/* Another source: its own. */
	assert_int_equal(rx(eng, c, 5).verdict, FC_VERDICT_ACCEPT);
	/* The table holds 2 buckets at most: a third source is dropped. */
	assert_int_equal(rx(eng, x, 6).verdict, FC_VERDICT_DROP);
	/* --hashlimit-above: the first packet is under (not dropped), the second over. */
	assert_int_equal(rx(eng, b, 7).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &b.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	d = rx(eng, b, 8);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.hashlimit_meters, 3);
	eng_stack_free(eng);
}

/* A UDP/ICMP/GRE packet of @p ip_len IP bytes (what byte meters charge). */
static struct rule_upcall
sized(struct rule_upcall u, uint16_t ip_len)
{
	u.pkt.ip_len = ip_len;
	u.len = ip_len;
	return u;
}

/*
 * -m hashlimit with byte rates (Linux's byte mode) as meters: a packet
 * costs its IP length in 16-byte chunks ((len / 16) + 1), a bucket holds a
 * second's credit (48b/s: 4 chunks), a packet costs at most the whole
 * credit, the burst is a count of whole refills. The first packet of a flow
 * makes the bucket's meter; the later ones are decided on the fast path
 * (cached, no upcall) with their own lengths. The same packets as the
 * netfilter oracle's hlbytes.pkts (each bucket's packets well under a
 * second apart). Then, with the time given: a drained bucket is full again
 * a second later, its refills come back only once it was idle for
 * --hashlimit-htable-expire (60 s with a burst), as Linux forgets an idle
 * bucket and makes a new one.
 */
static void
test_hashlimit_bytes_meter(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall u1 = sized(up4(17, "10.1.0.2", 4001, "10.9.0.2", 53, 0, 0), 44);
	struct rule_upcall u2 = sized(up4(17, "10.1.0.2", 4002, "10.9.0.2", 53, 0, 0), 44);
	struct rule_upcall t1 = sized(up4(6, "10.1.0.2", 3001, "10.9.0.2", 80, TCP_ACK, 0), 48);
	struct rule_upcall t1s = sized(t1, 20); /* a header alone: 2 chunks */
	struct rule_upcall ic = sized(up4(1, "10.1.0.2", 7, "10.9.0.2", 0, 0, 0), 1500);
	struct rule_upcall gr = sized(up4(47, "10.1.0.2", 0, "10.9.0.2", 0, 0, 0), 36);
	const char *text = "accept proto udp hashlimit_upto 48b/s hashlimit_mode srcip,srcport "
			   "hashlimit_name B48\n"
			   "drop proto udp\n"
			   "accept proto tcp hashlimit_upto 48b/s hashlimit_mode srcip,srcport "
			   "hashlimit_name T48\n"
			   "drop proto tcp\n"
			   "accept proto icmp hashlimit_upto 16b/s hashlimit_burst 32b "
			   "hashlimit_name BURST\n"
			   "drop proto icmp\n"
			   "drop proto 47 hashlimit_above 16b/s hashlimit_name ABOVE\n";
	const struct rule_engine_view *v;
	const struct fc_entry *e;
	struct rule_engine_stats st0, st;
	struct rule_decision d;
	uint64_t hz = rte_get_tsc_hz(), now, n_up = 0;
	uint16_t burst_meter;

	(void)state;
	load(eng, text);
	rule_engine_stats_get(eng, &st0);
	/* 44 bytes: 3 of 4 chunks; the first packet makes the meter. */
	assert_int_equal(eng_stack_decide(eng, u1, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &u1.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	/* 1 chunk left: 44 bytes are refused on the fast path, 15 pass. */
	d = rx(eng, u1, 2);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	d = rx(eng, sized(u1, 15), 3);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, sized(u1, 1), 4);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* Another source port: a bucket of its own. */
	assert_int_equal(rx(eng, u2, 5).verdict, FC_VERDICT_ACCEPT);
	/* 48 bytes: the 4 chunks the credit holds; then not even 2. */
	assert_int_equal(rx(eng, t1, 6).verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, t1s, 7);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* 1500 bytes cost the whole credit (16b/s), then each of 2 refills, then none. */
	assert_int_equal(rx(eng, ic, 8).verdict, FC_VERDICT_ACCEPT);
	for (uint32_t i = 0; i < 2; i++) {
		d = rx(eng, ic, 9 + i);
		assert_int_equal(d.flags, RULE_DEC_F_CACHED);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	}
	d = rx(eng, ic, 11);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* --hashlimit-above: under the rate (not dropped), then over (dropped). */
	assert_int_equal(rx(eng, gr, 12).verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, gr, 13);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* One upcall per flow: the later packets did not go up. */
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.hashlimit_meters, 5);
	for (unsigned int r = 0; r < RULE_UPCALL__COUNT; r++)
		n_up += st.upcalls[r] - st0.upcalls[r];
	assert_int_equal(n_up, 5);

	/* The BURST bucket, with the time given: a second refills the credit, not the refills. */
	e = eng_stack_entry(eng, &ic.pkt.key);
	assert_non_null(e);
	burst_meter = (uint16_t)(e->act.pkt_class - 1);
	v = (const struct rule_engine_view *)(const void *)eng;
	now = rte_rdtsc() + hz;
	assert_true(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_false(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_int_equal(v->meters[burst_meter].refills, 0);
	/* Idle 30 s: the credit is back, the refills are not. */
	now += 30 * hz;
	assert_true(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_false(rule_engine_meter_take(eng, burst_meter, now, 1500));
	/* Idle 60 s (its expire): a new bucket, the refills back. */
	now += 60 * hz;
	assert_true(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_int_equal(v->meters[burst_meter].refills, 2);
	assert_true(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_true(rule_engine_meter_take(eng, burst_meter, now, 1500));
	assert_false(rule_engine_meter_take(eng, burst_meter, now, 1500));
	eng_stack_free(eng);
}

/*
 * A packet from this host to one of its own addresses (both local bits)
 * comes back in as through Linux's lo: raw and mangle PREROUTING see it
 * after OUTPUT and mangle POSTROUTING, so their drops decide it; one to
 * elsewhere from this host never comes back in.
 */
static void
test_loopback_way(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall self53 = up4(17, "10.0.0.1", 1000, "10.0.0.1", 53, 0, 0);
	struct rule_upcall self22 = up4(6, "10.0.0.1", 1001, "10.0.0.1", 22, TCP_SYN, 0);
	struct rule_upcall self54 = up4(17, "10.0.0.1", 1002, "10.0.0.1", 54, 0, 0);
	struct rule_upcall out53 = up4(17, "10.0.0.1", 1003, "10.9.0.2", 53, 0, 0);
	struct rule_decision d;

	(void)state;
	fc_key_set_flags(&self53.pkt.key, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	fc_key_set_flags(&self22.pkt.key, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	fc_key_set_flags(&self54.pkt.key, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	fc_key_set_flags(&out53.pkt.key, FC_KEY_F_SRC_LOCAL);
	load(eng, "table raw\n"
		  "chain R hook prerouting\n"
		  "drop proto udp dport 53\n"
		  "table mangle\n"
		  "chain M hook prerouting\n"
		  "drop proto tcp dport 22\n");
	d = eng_stack_decide(eng, self53, 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	assert_int_equal(eng_stack_decide(eng, self22, 2).verdict, FC_VERDICT_DROP);
	assert_int_equal(eng_stack_decide(eng, self54, 3).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, out53, 4).verdict, FC_VERDICT_ACCEPT);
	eng_stack_free(eng);
}

/*
 * The ports of a packet from this host to itself are Linux's lo's: out
 * through lo at OUTPUT and POSTROUTING (-o lo), in through it at
 * PREROUTING and INPUT (-i lo); any other packet never has lo (answers
 * of a Linux host with the same rules: IN= OUT=lo, then IN=lo OUT=).
 */
static void
test_loopback_ports(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	static const uint16_t dports[] = {53, 54, 55, 56, 57, 59};
	/* Per dport: to itself, from outside to this host, from this host out, forwarded. */
	static const uint8_t want[][4] = {
		{FC_VERDICT_DROP, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
		{FC_VERDICT_DROP, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
		{FC_VERDICT_DROP, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
		{FC_VERDICT_ACCEPT, FC_VERDICT_DROP, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
		{FC_VERDICT_DROP, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
		{FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT, FC_VERDICT_ACCEPT},
	};
	static const uint8_t lbits[4] = {FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL,
		FC_KEY_F_DST_LOCAL, FC_KEY_F_SRC_LOCAL, 0};
	static const char *const src[4] = {"10.0.0.1", "10.9.0.2", "10.0.0.1", "10.9.0.2"};
	static const char *const dst[4] = {"10.0.0.1", "10.0.0.1", "10.9.0.3", "10.9.0.3"};
	uint16_t sport = 1000;

	(void)state;
	load(eng, "table raw\n"
		  "chain R hook prerouting\n"
		  "drop proto udp in lo dport 53\n"
		  "table mangle\n"
		  "chain O hook output\n"
		  "drop proto udp out lo dport 54\n"
		  "chain Q hook postrouting\n"
		  "drop proto udp out l+ dport 55\n"
		  "table filter\n"
		  "policy accept\n"
		  "chain I hook input policy accept\n"
		  "drop proto udp in !lo dport 56\n"
		  "drop proto udp in lo dport 57\n"
		  "drop proto udp out lo dport 59\n"
		  "chain F hook forward policy accept\n"
		  "drop proto udp in lo dport 59\n"
		  "drop proto udp out lo dport 59\n");
	for (unsigned int i = 0; i < RTE_DIM(dports); i++)
		for (unsigned int w = 0; w < 4; w++) {
			struct rule_upcall u = up4(17, src[w], sport++, dst[w], dports[i], 0, 0);
			struct rule_decision d;

			fc_key_set_flags(&u.pkt.key, lbits[w]);
			d = eng_stack_decide(eng, u, 1 + sport);
			if (d.verdict != want[i][w])
				fail_msg("dport %u, way %u: verdict %u, want %u", dports[i], w,
					d.verdict, want[i][w]);
		}
	eng_stack_free(eng);
}

/*
 * A reload that numbers the rules anew (a new file, a rule inserted before)
 * keeps the buckets: a limit's meter goes with the rule of the same chain
 * and content (empty stays empty), a hashlimit bucket kept as a meter with
 * its table; a rule whose limit changed gets a new, full meter.
 */
static void
test_meters_reload(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall q = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall q2 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	struct rule_upcall h = up4(17, "10.0.0.1", 1000, "10.0.0.2", 55, 0, 0);
	struct rule_upcall h2 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 55, 0, 0);
	struct rule_upcall w = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54, 0, 0);
	static const char lim[] = "accept proto udp dport 53 limit 1/hour limit_burst 2\n"
				  "drop proto udp dport 53\n"
				  "accept proto udp dport 55 hashlimit_upto 1/hour hashlimit_burst 1 "
				  "hashlimit_mode srcip hashlimit_name H "
				  "hashlimit_htable_expire 10800000\n"
				  "drop proto udp dport 55\n";
	char text[1024];
	struct rule_engine_stats st;

	(void)state;
	snprintf(text, sizeof(text), "%saccept proto udp dport 54 limit 1/hour limit_burst 1\n"
				     "drop proto udp dport 54\n", lim);
	load(eng, text);
	assert_int_equal(eng_stack_decide(eng, q, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, q, 2).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, q, 3).verdict, FC_VERDICT_DROP);
	assert_int_equal(eng_stack_decide(eng, h, 4).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, h, 5).verdict, FC_VERDICT_DROP);
	assert_int_equal(eng_stack_decide(eng, w, 6).verdict, FC_VERDICT_ACCEPT);
	/* The same rules behind a new first one, dport 54's limit changed: ids anew. */
	snprintf(text, sizeof(text), "drop proto tcp dport 22\n%s"
				     "accept proto udp dport 54 limit 1/hour limit_burst 2\n"
				     "drop proto udp dport 54\n", lim);
	load(eng, text);
	eng_stack_settle(eng, 7);
	/* The limit's meter is still empty; so is the hashlimit bucket. */
	assert_int_equal(eng_stack_decide(eng, q2, 8).verdict, FC_VERDICT_DROP);
	assert_int_equal(eng_stack_decide(eng, h2, 9).verdict, FC_VERDICT_DROP);
	assert_int_equal(rx(eng, q, 10).verdict, FC_VERDICT_DROP);
	/* dport 54's rule is another: a full meter of its own. */
	assert_int_equal(rx(eng, w, 11).verdict, FC_VERDICT_ACCEPT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.hashlimit_meters, 1);
	eng_stack_free(eng);
}

/*
 * -m connlimit: connections per source /24, counted from the engine's live
 * connections that reached the rule (nf_conncount): the third connection of
 * a /24 is dropped; a dropped one is no connection; the verdict is the
 * connection's (cached, later packets on the fast path); once the flows
 * are gone (flushed) the source may connect again. A new set (ids
 * numbered anew) starts the counts over.
 */
static void
test_connlimit(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall c1 = up4(6, "10.0.0.1", 1000, "10.0.0.2", 80, TCP_SYN, 0);
	struct rule_upcall c2 = up4(6, "10.0.0.7", 1001, "10.0.0.2", 80, TCP_SYN, 0);
	struct rule_upcall c3 = up4(6, "10.0.0.1", 1002, "10.0.0.2", 80, TCP_SYN, 0);
	struct rule_upcall c4 = up4(6, "10.0.1.1", 1003, "10.0.0.2", 80, TCP_SYN, 0);
	const char *text = "drop proto tcp dport 80 connlimit_above 2 connlimit_mask 24\n"
			   "accept proto tcp\n";
	const struct fc_entry *e;
	struct rule_engine_stats st;

	(void)state;
	load(eng, text);
	assert_int_equal(rx(eng, c1, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, c2, 2).verdict, FC_VERDICT_ACCEPT);
	/* Cached with its verdict: not decided per packet. */
	e = eng_stack_entry(eng, &c1.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, c3, 3).verdict, FC_VERDICT_DROP);
	/* Refused: no entry, its next packet (a retransmitted SYN) is asked again. */
	assert_null(eng_stack_entry(eng, &c3.pkt.key));
	assert_int_equal(rx(eng, c3, 4).verdict, FC_VERDICT_DROP);
	/* Another /24. */
	assert_int_equal(rx(eng, c4, 5).verdict, FC_VERDICT_ACCEPT);
	/* Held: c1, c2, c3 (refused: forgotten when its group is counted next), c4. */
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.connlimit_conns, 4);
	/* The connections go: c3 (a new flow again) is the first of its /24. */
	rule_engine_flush(eng);
	assert_int_equal(rx(eng, c3, 6).verdict, FC_VERDICT_ACCEPT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.connlimit_conns, 2); /* c3, and c4 until its /24 is counted */
	/* A set numbered anew: counts start over (as iptables-restore). */
	load(eng, "accept proto tcp dport 81\n");
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.connlimit_conns, 0);
	eng_stack_free(eng);
}

/*
 * -m limit: a flow whose verdict one meter decides is cached with it; the
 * fast path takes the tokens and gets the other verdict once the bucket is
 * empty, without an upcall. The meter is the rule's: another flow's first
 * packet finds it empty. Revalidation keeps it. A walk that may reach two
 * meters is decided per packet. (1/hour: no token comes back in a test.)
 */
static void
test_meters(void **state)
{
	struct rule_engine *eng = mk_engine(false, 0);
	struct rule_upcall q = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall q2 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	struct rule_upcall w = up4(17, "10.0.0.1", 1002, "10.0.0.2", 54, 0, 0);
	struct rule_engine_stats st;
	const struct fc_entry *e;
	struct rule_decision d;
	struct rule_set *s;
	struct rule rl;
	struct rule_error err;
	uint64_t upcalls;

	(void)state;
	load(eng, "accept proto udp dport 53 limit 1/hour limit_burst 3\n"
		  "drop proto udp dport 53\n"
		  "accept proto udp dport 54 limit 1/hour\n"
		  "accept proto udp dport 54 limit 2/hour\n"
		  "drop proto udp dport 54\n");
	d = eng_stack_decide(eng, q, 1); /* token 1 */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 1);
	e = eng_stack_entry(eng, &q.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	assert_int_not_equal(e->act.pkt_class, 0);
	rule_engine_stats_get(eng, &st);
	upcalls = st.upcalls[RULE_UPCALL_MISS] + st.upcalls[RULE_UPCALL_INTEREST] +
		  st.upcalls[RULE_UPCALL_STALE];
	/* Tokens 2 and 3 on the fast path, then the bucket is empty: dropped there. */
	for (int i = 0; i < 2; i++) {
		d = rx(eng, q, 2);
		assert_int_equal(d.flags, RULE_DEC_F_CACHED);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	}
	d = rx(eng, q, 3);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.upcalls[RULE_UPCALL_MISS] + st.upcalls[RULE_UPCALL_INTEREST] +
				 st.upcalls[RULE_UPCALL_STALE],
		upcalls);
	/* The meter is the rule's: a new flow's first packet finds it empty (no entry). */
	d = eng_stack_decide(eng, q2, 4);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 2);
	assert_null(eng_stack_entry(eng, &q2.pkt.key));
	/* Revalidation after a commit that touches the flow keeps the meter and its state. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_parse("accept proto udp dport 53 src 192.0.2.0/24", &rl, &err), 0);
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POS_END,
				 &rl, NULL),
		0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 5);
	e = eng_stack_entry(eng, &q.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	d = rx(eng, q, 6);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* Two meters on the way: per packet. */
	d = eng_stack_decide(eng, w, 7);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &w.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_SLOW);
	eng_stack_free(eng);
}

/* NOTRACK in raw: conntrack leaves the flow alone; later tables see UNTRACKED. */
static void
test_notrack(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall u = up4(17, "10.0.0.1", 1000, "10.0.0.2", 5353, 0, 0);
	struct rule_upcall ur = up4(17, "10.0.0.2", 5353, "10.0.0.1", 1000, 0, 1);
	struct rule_upcall t = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53, 0, 0);
	struct rule_upcall tr = up4(17, "10.0.0.2", 53, "10.0.0.1", 1001, 0, 1);
	struct mod_ct_module_stats st;
	const struct fc_entry *e;
	struct rule_decision d;

	(void)state;
	load(eng, "accept ctstate untracked proto udp dport 5353\n"
		  "accept ctstate new proto udp dport 53\n"
		  "policy drop\n"
		  "table raw\n"
		  "chain R hook prerouting\n"
		  "notrack proto udp dport 5353\n");
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 1);
	e = eng_stack_entry(eng, &u.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.ct_state, 0); /* no connection */
	assert_null(eng_stack_entry(eng, &ur.pkt.key));
	/* A tracked flow beside it: NEW, with its reply entry. */
	d = eng_stack_decide(eng, t, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 2);
	assert_non_null(eng_stack_entry(eng, &tr.pkt.key));
	mod_ct_module_stats_get(eng_stack_ct(eng), &st);
	assert_int_equal(st.notrack, 1);
	eng_stack_free(eng);
}

/*
 * -m conntrack --ctstatus sees the connection's status (SEEN_REPLY once a
 * reply came), --ctexpire its seconds left.
 */
static void
test_ctstatus(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	struct rule_upcall q = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.0.0.2", 53, "10.0.0.1", 1000, 0, 1);
	struct rule_decision d;

	(void)state;
	load(eng, "drop proto udp ctstatus seen_reply\n"
		  "drop proto udp dport 54 ctexpire 0:10\n"
		  "accept\n");
	d = eng_stack_decide(eng, q, 1); /* its connection is not even confirmed yet */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, q, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, r, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.rule_id, 1);
	d = rx(eng, q, 4);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* --ctexpire: a UDP connection without reply has 30 s (its whole timeout) left. */
	q = up4(17, "10.0.0.1", 1001, "10.0.0.2", 54, 0, 0);
	assert_int_equal(eng_stack_decide(eng, q, 5).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, q, 6).verdict, FC_VERDICT_ACCEPT);
	eng_stack_free(eng);
}

static void
test_nat_stages(void **state)
{
	struct rule_engine *eng = mk_engine(true, 64);
	struct rule_upcall u = up4(17, "192.0.2.1", 4000, "10.8.0.7", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.9.0.7", 53, "192.0.2.1", 4000, 0, 1);
	struct rule_decision d;

	(void)state;
	load(eng, "policy drop\n"
		  "accept ctstate established\n"
		  "accept ctstate dnat proto udp\n"
		  "netmap to 10.9.0.0/24 dst 10.8.0.0/24\n");
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 2);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	/* The reply comes from the mapped address: it is the flow's reply entry. */
	assert_non_null(eng_stack_entry(eng, &r.pkt.key));
	/* Without the translation, ctstate dnat does not match. */
	d = eng_stack_decide(eng, up4(17, "192.0.2.1", 4001, "10.7.0.7", 53, 0, 0), 2);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

/*
 * A nat chain's DROP policy (iptables: ":PREROUTING DROP"): a new flow no
 * nat rule takes is dropped (cached as a new flow's drop, counted on the
 * chain's policy); one a rule takes is translated and accepted, and its
 * replies (established: they never walk nat) pass.
 */
static void
test_nat_drop_policy(void **state)
{
	static const char *const ports[] = {"p0", "p1"};
	struct rule_engine *eng = mk_engine(true, 64);
	struct rule_upcall u = up4(17, "192.0.2.1", 4000, "10.8.0.7", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.9.0.7", 53, "192.0.2.1", 4000, 0, 1);
	struct rule_upcall x = up4(17, "192.0.2.1", 4001, "10.8.0.7", 54, 0, 0);
	struct rule_error err;
	struct rule_decision d;
	struct rule_set *s = rule_set_parse_iptables(
		"*nat\n:PREROUTING DROP [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		":POSTROUTING ACCEPT [0:0]\n"
		"-A PREROUTING -p udp -m udp --dport 53 -j DNAT --to-destination 10.9.0.7\n"
		"COMMIT\n*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
		":OUTPUT ACCEPT [0:0]\nCOMMIT\n",
		"t", &err);

	(void)state;
	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	assert_int_equal(rule_set_ports(s, 2, ports), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_int_equal(eng_stack_decide(eng, r, 2).verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng, x, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	assert_int_equal(d.rule_id, /* the nat chain's policy, counted on it */
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT, RULE_HOOK_PREROUTING));
	/* Cached: the next packet is dropped on the fast path. */
	d = rx(eng, x, 4);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* Each packet once (a new connection each time, as Linux sees them). */
	{
		uint64_t p, b;

		assert_int_equal(rule_engine_rule_counters(eng,
					 RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT,
						 RULE_HOOK_PREROUTING),
					 &p, &b),
			0);
		assert_int_equal(p, 2);
	}
	eng_stack_free(eng);
}

/* An Ethernet + IPv4 + UDP frame 10.0.0.1:1000 -> 10.0.0.2:@p dport with TTL @p ttl. */
static uint32_t
udp_frame(uint8_t *f, uint16_t dport, uint8_t ttl)
{
	static const uint8_t ip[20] = {0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1,
		10, 0, 0, 2};
	uint32_t sum = 0;

	memset(f, 0, 42);
	f[0] = 0x02;
	f[6] = 0x02;
	f[11] = 1;
	f[12] = 0x08;
	memcpy(f + 14, ip, sizeof(ip));
	f[14 + 8] = ttl;
	sum = (uint16_t)~csum_ref_fold(csum_ref_add(0, f + 14, 20));
	f[14 + 10] = (uint8_t)(sum >> 8);
	f[14 + 11] = (uint8_t)sum;
	f[34] = 0x03;
	f[35] = 0xe8;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[39] = 8;
	return 42;
}

/*
 * The fields a class reads from a frame (rule_engine_pkt_fields(), the fast
 * path's) are the walk's (rule_pkt_parse()): TTL, TOS, length, and the MSS
 * option of random option bytes, data offsets and frame lengths.
 */
static void
test_field_read(void **state)
{
	uint32_t seed = 12345;

	(void)state;
	for (unsigned int it = 0; it < 20000; it++) {
		uint8_t f[14 + 20 + 60 + 8];
		unsigned int doff, len;
		struct fc_pkt pkt;
		struct rule_pkt p;
		struct rule_pktfields pf;

		for (unsigned int i = 0; i < sizeof(f); i++) {
			seed = seed * 1103515245u + 12345u;
			f[i] = (uint8_t)(seed >> 16);
		}
		/* Options mostly MSS, NOP, EOL and short lengths: the parser's edges. */
		for (unsigned int i = 54; i < sizeof(f); i++)
			if (f[i] < 0xc0)
				f[i] = (uint8_t)(f[i] % 6);
		doff = 5 + (f[0] % 11);
		len = 54 + (unsigned int)(f[1] % (sizeof(f) - 54 + 1));
		memset(f, 0, 12);
		f[12] = 0x08;
		f[13] = 0x00;
		f[14] = 0x45;
		f[16] = (uint8_t)((len - 14) >> 8);
		f[17] = (uint8_t)(len - 14);
		f[20] = 0x40;
		f[21] = 0;
		f[23] = 6;
		f[46] = (uint8_t)(doff << 4);
		if (fc_parse(f, len, &pkt) != FC_PARSE_OK)
			continue;
		rule_pkt_init(&p, &pkt.key, 0, 0);
		p.l3_len = pkt.ip_len;
		assert_int_equal(rule_pkt_parse(&p, f, len, pkt.l3_off, pkt.l4_off), 0);
		assert_true(rule_engine_pkt_fields(&pkt, f, len, true, true, &pf));
		assert_int_equal(pf.ttl, p.ttl);
		assert_int_equal(pf.tos, p.tos);
		assert_int_equal(pf.len, p.l3_len);
		assert_int_equal(pf.mss_st == 2, (p.flags & RULE_PKT_F_MSS) != 0);
		if (pf.mss_st == 2)
			assert_int_equal(pf.mss, p.tcp_mss);
	}
}

/*
 * A walk that read the TTL is cached for the TTL's class, not per packet:
 * the fast path reads the TTL of the frame; a packet of another class
 * goes up alone, decided on its own, the entry kept. With a rewrite before
 * the test (a packet program), the class is the received TTL's, kept in
 * the program.
 */
static void
test_field_class(void **state)
{
	static const char *const sets[] = {
		"drop proto udp ttl_lt 10\n",
		"table mangle\nchain P hook prerouting\nttl ttl_dec 5\ndrop ttl_lt 10\n",
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_engine *eng = mk_engine(true, 0);
		uint8_t f64[64], f62[64], low[64], edge[64];
		uint32_t len = udp_frame(f64, 9, 64);
		struct rule_upcall u64 = eng_stack_frame_upcall(f64, len);
		struct rule_upcall u62, ul, ue;
		const struct fc_entry *e;
		struct rule_decision d;

		(void)udp_frame(f62, 9, 62);
		(void)udp_frame(low, 9, i == 0 ? 9 : 14);
		(void)udp_frame(edge, 9, i == 0 ? 10 : 15);
		u62 = eng_stack_frame_upcall(f62, len);
		ul = eng_stack_frame_upcall(low, len);
		ue = eng_stack_frame_upcall(edge, len);
		load(eng, sets[i]);
		d = eng_stack_decide(eng, u64, 1);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		e = eng_stack_entry(eng, &u64.pkt.key);
		assert_non_null(e);
		/* The rewrite's program names the class (pkt_class names the program). */
		assert_int_equal((e->act.flags & FC_ACT_F_PKTACT) != 0, i == 1);
		assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
		assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
		assert_true(rule_engine_class_ok(eng, &e->act, &u64.pkt, f64, len, true));
		assert_true(rule_engine_class_ok(eng, &e->act, &u62.pkt, f62, len, true));
		assert_true(rule_engine_class_ok(eng, &e->act, &ue.pkt, edge, len, true));
		assert_false(rule_engine_class_ok(eng, &e->act, &ul.pkt, low, len, true));
		/* No frame: only a class of the flags alone holds. */
		assert_false(rule_engine_class_ok(eng, &e->act, &u64.pkt, NULL, 0, true));
		/* The low TTL goes up alone: dropped, the entry kept. */
		d = eng_stack_decide(eng, ul, 2);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		e = eng_stack_entry(eng, &u64.pkt.key);
		assert_non_null(e);
		assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
		assert_true(rule_engine_class_ok(eng, &e->act, &u64.pkt, f64, len, true));
		d = eng_stack_decide(eng, ue, 3);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		eng_stack_free(eng);
	}
}

/*
 * The packet context is built only for what the set reads: with the
 * classifier current, a rule on the frame's TTL still sees it, and a set
 * that reads no frame field decides the same without it.
 */
static void
test_lazy_context(void **state)
{
	static const struct {
		const char *rules;
		uint8_t ttl;
		bool drop;
	} c[] = {
		{"drop proto udp ttl_lt 10\n", 5, true},
		{"drop proto udp ttl_lt 10\n", 64, false},
		{"drop proto udp ttl_gt 10\n", 64, true},
		{"drop proto udp dport 9\n", 5, true},
		{"table mangle\nchain P hook prerouting\nmark set_mark 0x1 ttl_lt 10\n"
		 "table filter\ndrop mark 0x1\n", 5, true},
		{"table mangle\nchain P hook prerouting\nmark set_mark 0x1 ttl_lt 10\n"
		 "table filter\ndrop mark 0x1\n", 64, false},
	};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		for (unsigned int with_cls = 0; with_cls < 2; with_cls++) {
			struct rule_engine *eng = mk_engine(true, 0);
			uint8_t f[64];
			uint32_t len = udp_frame(f, 9, c[i].ttl);
			struct rule_decision d;

			load(eng, c[i].rules);
			if (with_cls)
				assert_int_equal(eng_stack_cls_catch_up(eng), 0);
			d = eng_stack_decide(eng, eng_stack_frame_upcall(f, len), 1000);
			if ((d.verdict != FC_VERDICT_ACCEPT) != c[i].drop)
				fail_msg("case %zu (%s): verdict %u", i, with_cls ? "classifier" : "reference",
					d.verdict);
			eng_stack_free(eng);
		}
	}
}

/*
 * Router mode: a forwarded packet's FORWARD walk sees its TTL one less
 * than received, one of TTL 1 or less never gets there (no rule decides
 * it: the router's time exceeded); the TTL classes separate what the
 * decremented tests tell apart. Bridge mode sees the TTL as received.
 */
static void
test_router_ttl(void **state)
{
	static const struct {
		uint8_t ttl;
		bool drop_router, drop_bridge;
	} c[] = {
		{65, false, false}, {64, true, false}, {63, false, true}, {3, false, false},
		{2, true, false},   {1, false, true},  {0, false, true},
	};

	(void)state;
	for (unsigned int router = 0; router < 2; router++) {
		struct rule_engine *eng = mk_engine(true, 0);
		uint8_t f65[64], f3[64], f64[64], f1[64];
		uint32_t len = udp_frame(f65, 9, 65);
		struct rule_upcall u65 = eng_stack_frame_upcall(f65, len);
		const struct fc_entry *e;

		assert_int_equal(rule_engine_router_set(eng, router != 0), 0);
		load(eng, "drop proto udp ttl_lt 2\ndrop proto udp ttl_eq 63\n");
		for (size_t i = 0; i < RTE_DIM(c); i++) {
			uint8_t f[64];
			struct rule_upcall u;
			struct rule_decision d;

			(void)udp_frame(f, (uint16_t)(100 + i), c[i].ttl);
			u = eng_stack_frame_upcall(f, len);
			d = eng_stack_decide(eng, u, (uint32_t)(1 + i));
			if ((d.verdict != FC_VERDICT_ACCEPT) != (router ? c[i].drop_router : c[i].drop_bridge))
				fail_msg("%s, TTL %u: verdict %u", router ? "router" : "bridge", c[i].ttl,
					d.verdict);
		}
		/* A flow cached for its TTL class: 3 walks as 65, 64 and 1 do not. */
		(void)udp_frame(f3, 9, 3);
		(void)udp_frame(f64, 9, 64);
		(void)udp_frame(f1, 9, 1);
		assert_int_equal(eng_stack_decide(eng, u65, 20).verdict, FC_VERDICT_ACCEPT);
		e = eng_stack_entry(eng, &u65.pkt.key);
		assert_non_null(e);
		assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
		assert_true(rule_engine_class_ok(eng, &e->act, &u65.pkt, f3, len, true));
		assert_int_equal(rule_engine_class_ok(eng, &e->act, &u65.pkt, f64, len, true), !router);
		assert_false(rule_engine_class_ok(eng, &e->act, &u65.pkt, f1, len, true));
		/* The expired packet goes up alone: not dropped by a rule in router mode. */
		assert_int_equal(eng_stack_decide(eng, eng_stack_frame_upcall(f1, len), 21).verdict,
			router ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP);
		e = eng_stack_entry(eng, &u65.pkt.key);
		assert_non_null(e);
		assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
		eng_stack_free(eng);
	}
}

/*
 * Router mode: a u32 (string, bpf) match at FORWARD reads the header with
 * the TTL one less and the IPv4 checksum fixed, as Linux's (a Linux router
 * matched u32 "5&0xFF=16" at FORWARD and POSTROUTING for a packet sent
 * with TTL 17, "5&0xFF=17" only at PREROUTING); bridge mode reads it as
 * received. The header checksum the rule reads is the decremented one's.
 */
static void
test_router_u32_view(void **state)
{
	static const struct {
		uint8_t ttl;
		bool drop_router, drop_bridge;
	} c[] = {{64, true, false}, {63, false, true}, {65, false, false}};

	(void)state;
	for (unsigned int router = 0; router < 2; router++) {
		struct rule_engine *eng = mk_engine(true, 0);

		assert_int_equal(rule_engine_router_set(eng, router != 0), 0);
		load(eng, "drop proto udp u32 \"5&0xFF=63\"\n"
			  "table mangle\nchain P hook prerouting\n"
			  "drop proto udp u32 \"5&0xFF=62\"\n");
		for (size_t i = 0; i < RTE_DIM(c); i++) {
			uint8_t f[64];
			uint32_t len = udp_frame(f, (uint16_t)(100 + i), c[i].ttl);
			struct rule_decision d = eng_stack_decide(
				eng, eng_stack_frame_upcall(f, len), (uint32_t)(1 + i));

			if ((d.verdict != FC_VERDICT_ACCEPT) !=
				(router ? c[i].drop_router : c[i].drop_bridge))
				fail_msg("%s, TTL %u: verdict %u", router ? "router" : "bridge",
					c[i].ttl, d.verdict);
		}
		eng_stack_free(eng);
	}
}

/*
 * A walk that reads the TTL and reaches a meter: cached for the TTL's class
 * with the meter in its program (the class kept in the program), not
 * decided per packet; the fast path's meter takes the tokens, a packet of
 * another class goes up alone.
 */
static void
test_class_meter(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	uint8_t f64[64], f5[64];
	uint32_t len = udp_frame(f64, 9, 64);
	struct rule_upcall u64 = eng_stack_frame_upcall(f64, len);
	const struct rule_pktprog *prog;
	const struct fc_entry *e;
	unsigned int list;
	uint8_t v[3];

	(void)state;
	(void)udp_frame(f5, 9, 5);
	load(eng, "accept proto udp ttl_gt 10 limit 1/hour limit_burst 3\ndrop proto udp\n");
	assert_int_equal(eng_stack_decide(eng, u64, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	prog = rule_engine_pktprog(eng, e->act.pkt_class);
	assert_int_not_equal(prog->meter, 0);
	assert_true(rule_engine_class_ok(eng, &e->act, &u64.pkt, f64, len, true));
	assert_false(rule_engine_class_ok(eng, &e->act, &u64.pkt, f5, len, true));
	/* The fast path: two tokens left, then the meter's other verdict. */
	for (unsigned int i = 0; i < 3; i++)
		v[i] = rule_engine_pktprog_take(eng, &e->act, prog, 0, 28, &list);
	assert_int_equal(v[0], FC_VERDICT_ACCEPT);
	assert_int_equal(v[1], FC_VERDICT_ACCEPT);
	assert_int_equal(v[2], FC_VERDICT_DROP);
	/* Another class goes up alone: dropped by the rule after the meter's. */
	assert_int_equal(
		eng_stack_decide(eng, eng_stack_frame_upcall(f5, len), 2).verdict, FC_VERDICT_DROP);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	eng_stack_free(eng);
}

/*
 * A TTL test and a u32 match on one walk: the entry is cached for the TTL
 * class with the predicate (the fast path checks the class, then runs the
 * tests), not decided per packet; a packet of another class goes up alone.
 */
static void
test_class_pred(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	uint8_t f64[64], f5[64], fid[64];
	uint32_t len = udp_frame(f64, 9, 64);
	struct rule_upcall u64 = eng_stack_frame_upcall(f64, len);
	const struct rule_pktprog *prog;
	const struct rule_pred_leaf *lf;
	const struct fc_entry *e;
	unsigned int leaf;

	(void)state;
	(void)udp_frame(f5, 9, 5);
	memcpy(fid, f64, len);
	fid[14 + 5] = 7; /* IP identification 7: the u32 test holds */
	load(eng, "drop proto udp ttl_lt 10\ndrop proto udp u32 \"4>>16=7\"\naccept proto udp\n");
	assert_int_equal(eng_stack_decide(eng, u64, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	prog = rule_engine_pktprog(eng, e->act.pkt_class);
	assert_int_not_equal(prog->pred, 0);
	assert_true(rule_engine_class_ok(eng, &e->act, &u64.pkt, f64, len, true));
	assert_false(rule_engine_class_ok(eng, &e->act, &u64.pkt, f5, len, true));
	/* The class's packets: the tree's outcome, the tests true or not. */
	lf = rule_engine_pred_leaf(eng, prog->pred, f64 + 14, 28, f64 + 14, 28, &leaf);
	assert_int_equal(lf->verdict, FC_VERDICT_ACCEPT);
	lf = rule_engine_pred_leaf(eng, prog->pred, fid + 14, 28, fid + 14, 28, &leaf);
	assert_int_equal(lf->verdict, FC_VERDICT_DROP);
	/* Another class goes up alone: dropped by the TTL rule, the entry kept. */
	assert_int_equal(
		eng_stack_decide(eng, eng_stack_frame_upcall(f5, len), 2).verdict, FC_VERDICT_DROP);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	eng_stack_free(eng);
}

/*
 * More joint classes than 256 (21 TTL classes times 25 length classes):
 * the entry is still cached for its class (RULE_PC_IDS ids), not decided
 * per packet.
 */
static void
test_class_wide(void **state)
{
	struct rule_engine *eng = mk_engine(true, 0);
	uint8_t f64[64], f5[64];
	uint32_t len = udp_frame(f64, 9, 64);
	struct rule_upcall u64 = eng_stack_frame_upcall(f64, len);
	const struct fc_entry *e;
	char text[2048];
	size_t n = 0;

	(void)state;
	(void)udp_frame(f5, 9, 5);
	for (unsigned int i = 1; i <= 20; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "drop proto udp ttl_eq %u\n", i);
	for (unsigned int i = 0; i < 12; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "drop proto udp length %u:%u\n",
			100 + 10 * i, 104 + 10 * i);
	snprintf(text + n, sizeof(text) - n, "accept proto udp\n");
	load(eng, text);
	assert_int_equal(eng_stack_decide(eng, u64, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	assert_true(rule_engine_class_ok(eng, &e->act, &u64.pkt, f64, len, true));
	assert_false(rule_engine_class_ok(eng, &e->act, &u64.pkt, f5, len, true));
	/* Another class goes up alone: dropped by its TTL rule, the entry kept. */
	assert_int_equal(
		eng_stack_decide(eng, eng_stack_frame_upcall(f5, len), 2).verdict, FC_VERDICT_DROP);
	e = eng_stack_entry(eng, &u64.pkt.key);
	assert_non_null(e);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_packet),
		cmocka_unit_test(test_field_class),
		cmocka_unit_test(test_router_ttl),
		cmocka_unit_test(test_class_meter),
		cmocka_unit_test(test_class_pred),
		cmocka_unit_test(test_class_wide),
		cmocka_unit_test(test_field_read),
		cmocka_unit_test(test_marks_and_ports),
		cmocka_unit_test(test_marks_kept),
		cmocka_unit_test(test_marks_many),
		cmocka_unit_test(test_nth),
		cmocka_unit_test(test_recent),
		cmocka_unit_test(test_set_target),
		cmocka_unit_test(test_hashlimit),
		cmocka_unit_test(test_hashlimit_meter),
		cmocka_unit_test(test_hashlimit_bytes_meter),
		cmocka_unit_test(test_loopback_way),
		cmocka_unit_test(test_loopback_ports),
		cmocka_unit_test(test_router_u32_view),
		cmocka_unit_test(test_meters_reload),
		cmocka_unit_test(test_nat_drop_policy),
		cmocka_unit_test(test_connlimit),
		cmocka_unit_test(test_meters),
		cmocka_unit_test(test_notrack),
		cmocka_unit_test(test_ctstatus),
		cmocka_unit_test(test_nat_stages),
		cmocka_unit_test(test_lazy_context),
	};

	if (gufc_test_eal_init("engine_stages", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
