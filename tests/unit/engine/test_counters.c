/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the per-rule counters (engine_info.h,
 * rule_engine_rule_counters()): a rule counts the packets it decides from
 * the moment it decides them, not a cached flow's whole history; the
 * counts stay with a rule across revalidation and removal; a set that is
 * no descendant of the one before (a reload, whose ids start at 1 again)
 * starts every counter over, as iptables-restore does; nat-table rules
 * count the connections they translate. Fast-path hits are simulated with
 * fc_table_touch() on the flow's entry, as an RX lcore makes them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

#define LEN 100

static struct rule_upcall
up4(const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct rule_upcall u = eng_stack_up4(17, src, sport, dst, dport, 0);

	u.len = LEN;
	return u;
}

static struct rule_engine *
mk_engine(uint32_t nat)
{
	return eng_stack_test_engine("tc", 256, 0, false, nat);
}

static struct rule_set *
parse(const char *text)
{
	return eng_stack_rules(text, false);
}

/* @p n fast-path hits on the entry of @p k. */
static void
hits(struct rule_engine *eng, const struct fc_key *k, unsigned int n, uint32_t now)
{
	struct fc_table *t = rule_engine_table(eng, k->family);
	int idx = fc_table_lookup(t, &k->v4, fc_table_hash(t, &k->v4));

	assert_true(idx >= 0);
	for (unsigned int i = 0; i < n; i++)
		fc_table_touch(t, (uint32_t)idx, LEN, now);
}

static uint64_t
pkts(struct rule_engine *eng, uint32_t rule_id)
{
	uint64_t p, b;
	struct rule_counters_snap *s;
	uint64_t sp, sb;

	assert_int_equal(rule_engine_rule_counters(eng, rule_id, &p, &b), 0);
	assert_int_equal(b, p * LEN);
	/* The snapshot says the same. */
	s = rule_engine_counters_snap(eng);
	assert_non_null(s);
	assert_int_equal(rule_counters_snap_get(s, rule_id, &sp, &sb), 0);
	rule_counters_snap_free(s);
	assert_int_equal(sp, p);
	assert_int_equal(sb, b);
	return p;
}

/* A rule added in front counts from its commit on, not the flow's history. */
static void
test_added_rule(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_set *s;
	struct rule r;
	struct rule_error err;
	struct rule_decision d;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n")), 0);
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 1);
	hits(eng, &u.pkt.key, 99, 2);
	assert_int_equal(pkts(eng, 1), 100);

	/* rule add pos 1 drop proto udp dport 53; commit. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_parse("drop proto udp dport 53", &r, &err), 0);
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	/* Right after the commit, and after revalidation: nothing decided yet. */
	assert_int_equal(pkts(eng, 2), 0);
	eng_stack_settle(eng, 3);
	assert_int_equal(pkts(eng, 2), 0);
	assert_int_equal(pkts(eng, 1), 100);
	/* From now on the flow's packets are the new rule's. */
	hits(eng, &u.pkt.key, 7, 4);
	assert_int_equal(pkts(eng, 2), 7);
	assert_int_equal(pkts(eng, 1), 100);
	/* Deleting the new rule hands the flow back: each keeps what it counted. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_int_equal(rule_set_rule_del_id(s, 2), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 5);
	hits(eng, &u.pkt.key, 3, 6);
	assert_int_equal(pkts(eng, 1), 103);
	assert_int_equal(pkts(eng, 2), 7);
	/* The flow goes: its counts stay with the rules. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, 1), 103);
	eng_stack_free(eng);
}

/* A reload (ids from 1 again) starts the counters over, as iptables-restore does. */
static void
test_reload(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp dport 53\n"
						       "accept proto udp\n")),
		0);
	eng_stack_decide(eng, u, 1);
	hits(eng, &u.pkt.key, 9, 2);
	eng_stack_decide(eng, v, 2);
	assert_int_equal(pkts(eng, 1), 10);
	assert_int_equal(pkts(eng, 2), 1);
	/* The new file's rule 1 is another rule: dport 54 (the flow v). */
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp dport 54\n"
						       "accept proto udp\n")),
		0);
	assert_int_equal(pkts(eng, 1), 0);
	assert_int_equal(pkts(eng, 2), 0);
	eng_stack_settle(eng, 3);
	assert_int_equal(pkts(eng, 1), 0);
	assert_int_equal(pkts(eng, 2), 0);
	hits(eng, &u.pkt.key, 4, 4);
	hits(eng, &v.pkt.key, 2, 4);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 2), 4);
	/* Entries that go after the reload credit what they counted since. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 2), 4);
	eng_stack_free(eng);
}

/* A stale hit goes to the slow path before revalidation reached the entry: same counts. */
static void
test_stale_hit(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_set *s;
	struct rule r;
	struct rule_error err;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n")), 0);
	eng_stack_decide(eng, u, 1);
	hits(eng, &u.pkt.key, 49, 2);
	s = rule_set_clone(rule_engine_rules(eng));
	assert_int_equal(rule_parse("drop proto udp", &r, &err), 0);
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	u.reason = RULE_UPCALL_STALE;
	assert_int_equal(eng_stack_decide(eng, u, 3).verdict, FC_VERDICT_DROP);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 1), 50);
	eng_stack_free(eng);
}

/* A nat rule counts the connections it translates; the filter rule their packets. */
static void
test_nat_connections(void **state)
{
	struct rule_engine *eng = mk_engine(64);

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n"
						       "table nat\n"
						       "snat to 203.0.113.1 src 10.0.0.0/8\n")),
		0);
	for (uint16_t i = 0; i < 3; i++) {
		struct rule_upcall u = up4("10.0.0.1", (uint16_t)(2000 + i), "192.0.2.9", 53);
		struct rule_decision d = eng_stack_decide(eng, u, 1);

		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
		hits(eng, &u.pkt.key, 4, 2);
	}
	/* Not translated: counted on no nat rule. */
	eng_stack_decide(eng, up4("192.0.2.7", 3000, "192.0.2.9", 53), 3);
	assert_int_equal(pkts(eng, 2), 3);
	assert_int_equal(pkts(eng, 1), 16);
	eng_stack_free(eng);
}

/*
 * Rules that do not decide (LOG in filter, MARK in mangle) count every
 * packet that passes them, cached flows' hits included, as iptables does;
 * the deciding rule counts its own. Revalidation to a walk without the
 * LOG rule leaves it what it counted; a flow that goes leaves its counts;
 * a reload starts them over.
 */
static void
test_non_deciding(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);
	const char *text = "log log_prefix \"dns: \" proto udp dport 53\n"
			   "accept proto udp\n"
			   "drop\n"
			   "table mangle\n"
			   "chain P hook prerouting\n"
			   "mark set_mark 0x5 proto udp\n";
	struct rule_set *s;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse(text)), 0);
	assert_int_equal(eng_stack_decide(eng, u, 1).rule_id, 2);
	hits(eng, &u.pkt.key, 9, 2);
	assert_int_equal(eng_stack_decide(eng, v, 2).rule_id, 2);
	hits(eng, &v.pkt.key, 4, 2);
	assert_int_equal(pkts(eng, 1), 10); /* LOG: the dport 53 flow */
	assert_int_equal(pkts(eng, 2), 15); /* accept: both */
	assert_int_equal(pkts(eng, 3), 0);
	assert_int_equal(pkts(eng, 4), 15); /* MARK: both */

	/* The LOG rule goes: it keeps what it counted, the others go on. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_set_rule_del_id(s, 1), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 3);
	hits(eng, &u.pkt.key, 3, 4);
	assert_int_equal(pkts(eng, 1), 10);
	assert_int_equal(pkts(eng, 2), 18);
	assert_int_equal(pkts(eng, 4), 18);

	/* An unrelated commit (a rule added at the end) changes nothing. */
	s = rule_set_clone(rule_engine_rules(eng));
	{
		struct rule r;
		struct rule_error err;

		assert_int_equal(rule_parse("drop proto tcp", &r, &err), 0);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r,
					 NULL),
			0);
	}
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 5);
	hits(eng, &v.pkt.key, 2, 6);
	assert_int_equal(pkts(eng, 2), 20);
	assert_int_equal(pkts(eng, 4), 20);

	/* The flows go: their counts stay with the rules. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, 1), 10);
	assert_int_equal(pkts(eng, 2), 20);
	assert_int_equal(pkts(eng, 4), 20);

	/* A reload starts them over; a new flow counts from its first packet. */
	assert_int_equal(rule_engine_commit(eng, parse(text)), 0);
	assert_int_equal(pkts(eng, 1), 0);
	assert_int_equal(pkts(eng, 4), 0);
	eng_stack_decide(eng, u, 7);
	hits(eng, &u.pkt.key, 1, 8);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 2), 2);
	assert_int_equal(pkts(eng, 4), 2);
	eng_stack_free(eng);
}

/*
 * A flow decided per packet (a length match): each packet's own walk
 * counts its non-deciding rules, as it counts the deciding one.
 */
static void
test_non_deciding_per_packet(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("log proto udp length 0:150\n"
						       "accept proto udp\n")),
		0);
	for (unsigned int i = 0; i < 5; i++) {
		u.len = i < 3 ? LEN : 200;
		u.pkt.ip_len = (uint16_t)u.len;
		eng_stack_decide(eng, u, 1 + i);
	}
	/* The entry's own packets are 100 bytes long, the later ones 200. */
	{
		uint64_t p, b;

		assert_int_equal(rule_engine_rule_counters(eng, 1, &p, &b), 0);
		assert_int_equal(p, 3);
		assert_int_equal(b, 3 * LEN);
		assert_int_equal(rule_engine_rule_counters(eng, 2, &p, &b), 0);
		assert_int_equal(p, 5);
		assert_int_equal(b, 3 * LEN + 2 * 200);
	}
	eng_stack_free(eng);
}

static void
snap_fn(void *arg, uint32_t id, uint64_t *p, uint64_t *b)
{
	rule_counters_snap_get(arg, id, p, b);
}

/*
 * A built-in chain's policy counts the packets it decides, per chain, and
 * the iptables export (iptables-save -c) adds them to the imported
 * ":CHAIN POLICY [p:b]" counters; rules that pass the packet on before it
 * count too.
 */
static void
test_policy(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);
	const uint32_t fwd = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD);
	struct rule_counters_snap *snap;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("policy drop\n"
						       "log proto udp\n"
						       "accept proto udp dport 53\n"
						       "table mangle\n"
						       "chain P hook prerouting\n"
						       "mark set_mark 0x5 proto udp\n")),
		0);
	assert_int_equal(eng_stack_decide(eng, u, 1).verdict, FC_VERDICT_ACCEPT);
	hits(eng, &u.pkt.key, 4, 2);
	/* The entry keeps the chain's policy as its rule: nothing more per flow. */
	assert_int_equal(eng_stack_decide(eng, v, 2).rule_id, fwd);
	hits(eng, &v.pkt.key, 2, 3);
	assert_int_equal(pkts(eng, 1), 8);  /* LOG: both flows */
	assert_int_equal(pkts(eng, 2), 5);  /* accept: dport 53 */
	assert_int_equal(pkts(eng, fwd), 3); /* filter FORWARD's policy: dport 54 */
	assert_int_equal(pkts(eng, 3), 8);  /* MARK */
	assert_int_equal(
		pkts(eng, RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_INPUT)), 0);

	snap = rule_engine_counters_snap(eng);
	assert_non_null(snap);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(rule_set_dump_iptables_ctr(rule_engine_rules(eng), FC_AF_INET4, snap_fn,
				 snap, f),
		0);
	fclose(f);
	rule_counters_snap_free(snap);
	assert_non_null(strstr(text, ":FORWARD DROP [3:300]\n"));
	assert_non_null(strstr(text, ":INPUT DROP [0:0]\n"));
	assert_non_null(strstr(text, "[5:500] -A gufc-main -p udp -m udp --dport 53 -j ACCEPT\n"));
	assert_non_null(strstr(text, "[8:800] -A gufc-main -p udp -j LOG\n"));
	free(text);

	/* The flows go: the policies keep their counts; a reload starts over. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, fwd), 3);
	assert_int_equal(rule_engine_commit(eng, parse("policy drop\n")), 0);
	assert_int_equal(pkts(eng, fwd), 0);
	eng_stack_free(eng);
}

/*
 * As iptables -L -v counts them: a jump counts every packet that takes it
 * (the classifier inlines the chain, its walk notes the jump), a RETURN
 * every packet it sends back, a rule without a target every packet that
 * passes it, and the policy of every built-in chain a packet leaves by its
 * end, mangle's ACCEPT one included; cached flows' hits counted when
 * read. A commit that keeps the rule ids keeps the counts going.
 */
static void
test_traversal(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);
	struct rule_upcall w = up4("10.0.0.1", 1002, "10.0.0.2", 55);
	const uint32_t fwd = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD);
	const uint32_t mpre = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_MANGLE, RULE_HOOK_PREROUTING);
	struct rule_set *s;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("jump web proto udp\n"         /* 1 */
						       "accept proto udp dport 54\n"  /* 2 */
						       "chain web\n"
						       "count proto udp\n"            /* 3 */
						       "return proto udp dport 53\n"  /* 4 */
						       "drop proto udp dport 55\n"    /* 5 */
						       "table mangle\n"
						       "chain P hook prerouting\n"
						       "mark set_mark 0x5 proto udp\n")), /* 6 */
		0);
	/* u: jump, count, return, then off the end of FORWARD: its policy. */
	assert_int_equal(eng_stack_decide(eng, u, 1).rule_id, fwd);
	hits(eng, &u.pkt.key, 9, 2);
	/* v: jump, count, off the end of web, back: rule 2. */
	assert_int_equal(eng_stack_decide(eng, v, 2).rule_id, 2);
	hits(eng, &v.pkt.key, 4, 2);
	/* w: jump, count, rule 5 drops it. */
	assert_int_equal(eng_stack_decide(eng, w, 3).rule_id, 5);
	hits(eng, &w.pkt.key, 2, 3);
	assert_int_equal(pkts(eng, 1), 18);
	assert_int_equal(pkts(eng, 3), 18);
	assert_int_equal(pkts(eng, 4), 10);
	assert_int_equal(pkts(eng, 5), 3);
	assert_int_equal(pkts(eng, 2), 5);
	assert_int_equal(pkts(eng, fwd), 10);
	assert_int_equal(pkts(eng, 6), 18);
	assert_int_equal(pkts(eng, mpre), 18); /* mangle PREROUTING's ACCEPT policy */

	/* A rule added at the end of web: the walks change, the counts go on. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	{
		struct rule r;
		struct rule_error err;

		assert_int_equal(rule_parse("count proto udp dport 54", &r, &err), 0);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, "web", RULE_POS_END, &r,
					 NULL),
			0);
	}
	assert_int_equal(rule_engine_commit(eng, s), 0);
	eng_stack_settle(eng, 4);
	hits(eng, &v.pkt.key, 1, 5);
	hits(eng, &u.pkt.key, 1, 5);
	assert_int_equal(pkts(eng, 1), 20);
	assert_int_equal(pkts(eng, 4), 11);
	assert_int_equal(pkts(eng, 7), 1); /* the new count rule: v's hit since */
	assert_int_equal(pkts(eng, fwd), 11);
	assert_int_equal(pkts(eng, 2), 6);
	assert_int_equal(pkts(eng, mpre), 20);

	/* The flows go: every counter keeps what it counted. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, 1), 20);
	assert_int_equal(pkts(eng, 4), 11);
	assert_int_equal(pkts(eng, fwd), 11);
	assert_int_equal(pkts(eng, mpre), 20);
	eng_stack_free(eng);
}

/*
 * Chains with no rule that accept, which the engine does not walk: every
 * packet leaves them by their end, so their policies count it (raw and
 * mangle: every packet; nat's built-in chains: a connection's first).
 */
static void
test_empty_chains(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);
	const uint32_t raw = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_RAW, RULE_HOOK_PREROUTING);
	const uint32_t mpre =
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_MANGLE, RULE_HOOK_PREROUTING);
	const uint32_t npre = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT, RULE_HOOK_PREROUTING);
	const uint32_t npost =
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT, RULE_HOOK_POSTROUTING);
	const uint32_t mpre6 =
		RULE_ID_CHAIN_POLICY(FC_AF_INET6, RULE_TABLE_MANGLE, RULE_HOOK_PREROUTING);

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n"
						       "table raw\n"
						       "chain R hook prerouting\n"
						       "table mangle\n"
						       "chain P hook prerouting\n")),
		0);
	assert_int_equal(eng_stack_decide(eng, u, 1).rule_id, 1);
	hits(eng, &u.pkt.key, 4, 2);
	assert_int_equal(eng_stack_decide(eng, v, 2).rule_id, 1);
	hits(eng, &v.pkt.key, 2, 2);
	assert_int_equal(pkts(eng, 1), 8);
	assert_int_equal(pkts(eng, raw), 8);
	assert_int_equal(pkts(eng, mpre), 8);
	assert_int_equal(pkts(eng, npre), 2);  /* the connections */
	assert_int_equal(pkts(eng, npost), 2);
	assert_int_equal(pkts(eng, mpre6), 0); /* IPv6's are apart */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, mpre), 8);
	eng_stack_free(eng);
}

/*
 * The nat table's rules count a connection's first packet only, as Linux's
 * nat chains see no other: a jump into a nat chain, the snat rule there,
 * and snat's policy for the connection that no rule translates.
 */
static void
test_nat_traversal(void **state)
{
	struct rule_engine *eng = mk_engine(64);
	const uint32_t npost =
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT, RULE_HOOK_POSTROUTING);

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n"       /* 1 */
						       "table nat\n"
						       "chain snat\n"
						       "jump S src 10.0.0.0/8\n"   /* 2 */
						       "chain S\n"
						       "snat to 203.0.113.1\n")), /* 3 */
		0);
	for (uint16_t i = 0; i < 3; i++) {
		struct rule_upcall u = up4("10.0.0.1", (uint16_t)(2000 + i), "192.0.2.9", 53);

		assert_int_not_equal(eng_stack_decide(eng, u, 1).nat_slot, RULE_NAT_NONE);
		hits(eng, &u.pkt.key, 4, 2);
	}
	eng_stack_decide(eng, up4("192.0.2.7", 3000, "192.0.2.9", 53), 3);
	assert_int_equal(pkts(eng, 1), 16);
	assert_int_equal(pkts(eng, 2), 3);
	assert_int_equal(pkts(eng, 3), 3);
	assert_int_equal(pkts(eng, npost), 1);
	eng_stack_free(eng);
}

/*
 * A connection the nat table cannot translate is dropped at nat
 * PREROUTING (no binding left): Linux's packet passed raw and mangle
 * PREROUTING, whose rules and policies count it (and whose log ran), and the dnat rule, which
 * counts it before its target fails; nothing after (FORWARD, POSTROUTING).
 */
static void
test_nat_drop_walk(void **state)
{
	struct rule_engine *eng = mk_engine(1);
	struct rule_upcall u = up4("10.0.0.1", 1000, "192.0.2.9", 53);
	struct rule_upcall v = up4("10.0.0.2", 1000, "192.0.2.9", 53);
	const uint32_t raw = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_RAW, RULE_HOOK_PREROUTING);
	const uint32_t mpre =
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_MANGLE, RULE_HOOK_PREROUTING);
	const uint32_t mfwd = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_MANGLE, RULE_HOOK_FORWARD);
	const uint32_t fwd = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD);
	const uint32_t npost =
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_NAT, RULE_HOOK_POSTROUTING);
	struct rule_decision d;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("count proto udp\n"            /* 1 */
						       "table raw\n"
						       "chain R hook prerouting\n"
						       "log log_prefix \"pre: \" proto udp\n" /* 2 */
						       "table mangle\n"
						       "chain P hook prerouting\n"
						       "mark set_mark 0x5 proto udp\n" /* 3 */
						       "chain F hook forward\n"
						       "count proto udp\n"            /* 4 */
						       "table nat\n"
						       "chain dnat\n"
						       "dnat to 192.168.0.10 proto udp\n")), /* 5 */
		0);
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	hits(eng, &u.pkt.key, 2, 2);
	/* The only binding is u's. */
	d = eng_stack_decide(eng, v, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_NAT_EXHAUSTED);
	assert_int_not_equal(d.pkt_prog, 0); /* raw's log ran */
	assert_int_equal(pkts(eng, 2), 4);
	assert_int_equal(pkts(eng, raw), 4);
	assert_int_equal(pkts(eng, 3), 4);
	assert_int_equal(pkts(eng, mpre), 4);
	assert_int_equal(pkts(eng, 5), 2); /* both connections' first packets */
	assert_int_equal(pkts(eng, 4), 3); /* u's alone from here on */
	assert_int_equal(pkts(eng, mfwd), 3);
	assert_int_equal(pkts(eng, 1), 3);
	assert_int_equal(pkts(eng, fwd), 3);
	assert_int_equal(pkts(eng, npost), 1);
	/* Another dropped the same way counts the same way. */
	d = eng_stack_decide(eng, up4("10.0.0.3", 1000, "192.0.2.9", 53), 4);
	assert_int_equal(d.drop, RULE_DROP_NAT_EXHAUSTED);
	assert_int_equal(pkts(eng, raw), 5);
	assert_int_equal(pkts(eng, 3), 5);
	assert_int_equal(pkts(eng, fwd), 3);
	eng_stack_free(eng);
}

/*
 * A packet raw PREROUTING drops never reaches nat PREROUTING: no binding
 * is tried for it (none is left here: it would fail), its drop is raw's
 * rule's, and the dnat rule does not count it.
 */
static void
test_raw_drop_before_nat(void **state)
{
	struct rule_engine *eng = mk_engine(1);
	const uint32_t raw = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_RAW, RULE_HOOK_PREROUTING);
	struct rule_decision d;

	(void)state;
	assert_int_equal(rule_engine_commit(eng, parse("accept proto udp\n"               /* 1 */
						       "table raw\n"
						       "chain R hook prerouting\n"
						       "drop proto udp src 10.0.0.2\n" /* 2 */
						       "table nat\n"
						       "chain dnat\n"
						       "dnat to 192.168.0.10 proto udp\n")), /* 3 */
		0);
	d = eng_stack_decide(eng, up4("10.0.0.1", 1000, "192.0.2.9", 53), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	d = eng_stack_decide(eng, up4("10.0.0.2", 1000, "192.0.2.9", 53), 2);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	assert_int_equal(d.rule_id, 2);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, raw), 1);
	assert_int_equal(pkts(eng, 3), 1);
	assert_int_equal(pkts(eng, 1), 1);
	eng_stack_free(eng);
}

/* @p n packets of flow @p u as the fast path takes them (meters asked, hits counted). */
static void
rx_n(struct rule_engine *eng, struct rule_upcall u, unsigned int n, uint32_t now)
{
	bool slow = true;

	for (unsigned int i = 0; i < n; i++) {
		(void)eng_stack_rx(eng, u, now, &slow);
		assert_false(slow);
	}
}

/*
 * Metered flows count as Linux's walks do: a packet the meter turned is
 * the rules' its own walk passed, not the conforming walk's. A limit
 * that flips the verdict (the drop rule counts the turned packets, the
 * accept none of them); a LOG rule's limit that picks the actions only
 * (the LOG rule counts the logged packets alone, the accepting rule all;
 * a flow whose first packet found it exceeded too); a quota whose packets
 * go on to another accepting rule; a chain policy deciding them.
 */
static void
test_metered(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	struct rule_upcall u = up4("10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall v = up4("10.0.0.1", 1001, "10.0.0.2", 54);
	struct rule_upcall w = up4("10.0.0.1", 1002, "10.0.0.2", 54);
	struct rule_upcall q = up4("10.0.0.1", 1003, "10.0.0.2", 55);
	const uint32_t fwd = RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD);
	const char *text = "accept proto udp dport 53 limit 1/hour limit_burst 2\n"
			   "log proto udp dport 54 limit 1/hour limit_burst 1\n"
			   "drop proto udp dport 53\n"
			   "accept proto udp dport 55 quota 250\n"
			   "accept proto udp dport 54-55\n";

	(void)state;
	/* What the meters charge is the length the entries count. */
	u.pkt.ip_len = v.pkt.ip_len = w.pkt.ip_len = q.pkt.ip_len = LEN;
	assert_int_equal(rule_engine_commit(eng, parse(text)), 0);
	/* Two tokens, then 3 packets the limit turns: the drop rule's. */
	assert_int_equal(eng_stack_decide(eng, u, 1).rule_id, 1);
	rx_n(eng, u, 4, 2);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 3), 3);
	/* One logged packet, 3 not: LOG counts 1, the accept rule all 4. */
	assert_int_equal(eng_stack_decide(eng, v, 3).rule_id, 5);
	rx_n(eng, v, 3, 4);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 5), 4);
	/* A flow whose first packet finds the LOG rule's bucket empty: none logged. */
	assert_int_equal(eng_stack_decide(eng, w, 5).rule_id, 5);
	rx_n(eng, w, 2, 6);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 5), 7);
	/* 250 bytes: two packets of 100, then the quota is empty and rule 5 accepts. */
	assert_int_equal(eng_stack_decide(eng, q, 7).rule_id, 4);
	rx_n(eng, q, 3, 8);
	assert_int_equal(pkts(eng, 4), 2);
	assert_int_equal(pkts(eng, 5), 9);
	/* The flows go: what they counted stays where it was credited. */
	rule_engine_flush(eng);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 3), 3);
	assert_int_equal(pkts(eng, 4), 2);
	assert_int_equal(pkts(eng, 5), 9);

	/* A chain policy decides what the meter turns; a LOG rule before counts all. */
	assert_int_equal(rule_engine_commit(eng, parse("policy drop\n"
						       "log proto udp\n"
						       "accept proto udp limit 1/hour limit_burst 1\n")),
		0);
	assert_int_equal(eng_stack_decide(eng, u, 9).rule_id, 2);
	rx_n(eng, u, 3, 10);
	assert_int_equal(pkts(eng, 1), 4);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, fwd), 3);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_added_rule),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_stale_hit),
		cmocka_unit_test(test_nat_connections),
		cmocka_unit_test(test_non_deciding),
		cmocka_unit_test(test_non_deciding_per_packet),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_traversal),
		cmocka_unit_test(test_empty_chains),
		cmocka_unit_test(test_nat_traversal),
		cmocka_unit_test(test_nat_drop_walk),
		cmocka_unit_test(test_raw_drop_before_nat),
		cmocka_unit_test(test_metered),
	};

	if (gufc_test_eal_init("counters", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
