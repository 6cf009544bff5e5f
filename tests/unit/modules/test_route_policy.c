/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Policy routing (lib/modules/route, route_policy.c): several tables and
 * the rules that pick one, as Linux's `ip rule` — order by pref with the
 * implicit main rule at 32766, fall-through of a table without a route,
 * fwmark V/M, from/to/iif/ipproto/sport/dport selectors and `not`, blackhole, unreachable
 * and prohibit; then on the engine (tests/unit/common/eng_stack.c): the
 * mark a mangle PREROUTING rule sets picks the table of a new flow, a
 * reply's restored connmark picks its own, a rule's drop is a named drop
 * reason with its ICMP error (a reply's too, by its restored mark), and
 * the walk after a route change routes a marked flow by its mark; a rule
 * of main's pref comes after main's rule.
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

#define TCP_SYN 0x02

static uint8_t *
a4(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(AF_INET, s, out), 1);
	return out;
}

static struct rule_engine *
mk(const char *rules)
{
	struct eng_stack_params p;
	struct rule_engine *eng;

	eng_stack_test_params(&p, 256, 64, true, 16);
	eng = eng_stack_test_create(&p, "rp");
	eng_stack_load(eng, rules, false);
	return eng;
}

/* A route of @p table: @p pfx / @p len to port @p port. */
static void
route(struct mod_route *rt, uint32_t table, const char *pfx, uint8_t len, uint16_t port)
{
	struct mod_route_nh nh = { .port = port };
	uint8_t a[16];

	assert_int_equal(mod_route_table_add(rt, table, FC_AF_INET4, a4(pfx, a), len, &nh, 0), 0);
}

static struct mod_route_rule
rule_table(uint32_t pref, uint32_t table)
{
	struct mod_route_rule r;

	memset(&r, 0, sizeof(r));
	r.pref = pref;
	r.iif = MOD_ROUTE_IIF_ANY;
	r.action = MOD_ROUTE_ACT_TABLE;
	r.table = table;
	return r;
}

static struct mod_route_rule
rule_mark(uint32_t pref, uint32_t mark, uint32_t mask, uint32_t table)
{
	struct mod_route_rule r = rule_table(pref, table);

	r.mark_set = true;
	r.mark = mark;
	r.mask = mask;
	return r;
}

/* The policy lookup of @p src -> @p dst with @p mark from @p iif: the port, or -result. */
static int
look(const struct mod_route *rt, const char *src, const char *dst, uint32_t mark, uint16_t iif)
{
	uint8_t s[16], d[16];
	struct mod_route_sel sel = {
		.family = FC_AF_INET4, .src = a4(src, s), .dst = a4(dst, d), .mark = mark,
		.iif = iif};
	struct mod_route_nh nh;
	int res = mod_route_resolve(rt, &sel, &nh);

	return res == MOD_ROUTE_RES_NH ? nh.port : -res;
}

/* ------------------------------------------------------------------------ */

/*
 * Rules in pref order, the implicit main rule at 32766; a table without a
 * route for the destination falls through to the next rule; fwmark V/M.
 */
static void
test_order_fallthrough(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule r;

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 1);
	route(rt, 100, "10.0.0.0", 8, 2);
	route(rt, 200, "0.0.0.0", 0, 3);
	/* No rules: main alone. */
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 1, 0), 1);
	r = rule_mark(100, 0x1, 0xffffffff, 100);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	r = rule_mark(200, 0x1, 0xffffffff, 200);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 1, 0), 2);
	/* Table 100 has no route to 8.8.8.8: on to 200. */
	assert_int_equal(look(rt, "192.168.0.1", "8.8.8.8", 1, 0), 3);
	/* Unmarked: main. */
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0, 0), 1);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 3, 0), 1);

	/* A rule after main only sees what main does not route. */
	r = rule_table(40000, 100);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0, 0), 1);
	{
		uint8_t z[16];

		assert_int_equal(mod_route_del(rt, FC_AF_INET4, a4("0.0.0.0", z), 0), 0);
	}
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0, 0), 2);
	assert_int_equal(look(rt, "192.168.0.1", "8.8.8.8", 0, 0), -MOD_ROUTE_RES_NONE);

	/* Masks: 0x10/0xf0 holds 0x13, not 0x23; bits outside the mask never match. */
	r = rule_mark(50, 0x10, 0xf0, 200);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0x13, 0), 3);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0x23, 0), 2); /* pref 40000 */
	r = rule_mark(51, 0x11, 0xf0, 200);
	assert_int_equal(mod_route_rule_add(rt, &r, true), -EINVAL);
	eng_stack_free(eng);
}

/* from, to, iif and `not`; blackhole, unreachable, prohibit. */
static void
test_selectors_actions(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule r;
	uint8_t a[16];

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 1);
	route(rt, 7, "0.0.0.0", 0, 7);
	r = rule_table(10, 7);
	r.family = FC_AF_INET4;
	r.from_set = true;
	r.from_len = 24;
	memcpy(r.from, a4("192.168.5.0", a), 4);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.5.9", "1.1.1.1", 0, 0), 7);
	assert_int_equal(look(rt, "192.168.6.9", "1.1.1.1", 0, 0), 1);
	/* Host bits in a prefix: refused. */
	r.pref = 11;
	r.from_len = 16;
	memcpy(r.from, a4("192.168.5.0", a), 4);
	assert_int_equal(mod_route_rule_add(rt, &r, true), -EINVAL);

	/* to 203.0.113.0/24 blackhole; not to 198.51.100.0/24 from iif 4: unreachable. */
	r = rule_table(5, 0);
	r.action = MOD_ROUTE_ACT_BLACKHOLE;
	r.family = FC_AF_INET4;
	r.to_set = true;
	r.to_len = 24;
	memcpy(r.to, a4("203.0.113.0", a), 4);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.6.9", "203.0.113.1", 0, 0), -MOD_ROUTE_RES_BLACKHOLE);
	r = rule_table(6, 0);
	r.action = MOD_ROUTE_ACT_UNREACHABLE;
	r.family = FC_AF_INET4;
	r.invert = true;
	r.to_set = true;
	r.to_len = 24;
	memcpy(r.to, a4("198.51.100.0", a), 4);
	r.iif = 4;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	/* not (to X and iif 4): from port 4 to elsewhere is unreachable, to X passes. */
	assert_int_equal(look(rt, "192.168.6.9", "1.1.1.1", 0, 4), -MOD_ROUTE_RES_UNREACHABLE);
	assert_int_equal(look(rt, "192.168.6.9", "198.51.100.7", 0, 4), 1);
	assert_int_equal(look(rt, "192.168.6.9", "1.1.1.1", 0, 3), -MOD_ROUTE_RES_UNREACHABLE);
	/* Same rule again: refused (as `ip rule add`); deleted: gone. */
	assert_int_equal(mod_route_rule_add(rt, &r, true), -EEXIST);
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	assert_int_equal(mod_route_rule_del(rt, &r), -ENOENT);
	assert_int_equal(look(rt, "192.168.6.9", "1.1.1.1", 0, 3), 1);
	r = rule_table(4, 0);
	r.action = MOD_ROUTE_ACT_PROHIBIT;
	r.iif = 3;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.6.9", "1.1.1.1", 0, 3), -MOD_ROUTE_RES_PROHIBIT);
	/* Tables 0, 253, 255: refused. */
	r = rule_table(9, 255);
	assert_int_equal(mod_route_rule_add(rt, &r, true), -EINVAL);

	/* IPv6: a rule of prefixes of its own family; an IPv4 rule never matches it. */
	{
		struct mod_route_nh nh6 = { .port = 6 };
		uint8_t p6[16] = {0x20, 0x01, 0x0d, 0xb8}, s6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 5};
		uint8_t d6[16] = {0x20, 0x01, 0x0d, 0xb9, [15] = 1}, z6[16] = {0};
		struct mod_route_sel sel = {
			.family = FC_AF_INET6, .src = s6, .dst = d6, .iif = 3};
		struct mod_route_nh got;

		assert_int_equal(mod_route_table_add(rt, 8, FC_AF_INET6, z6, 0, &nh6, 0), 0);
		r = rule_table(2, 8);
		r.family = FC_AF_INET6;
		r.from_set = true;
		r.from_len = 32;
		memcpy(r.from, p6, 16);
		assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
		/* (the prohibit rule at pref 4, iif 3, has no prefix: both families) */
		assert_int_equal(mod_route_resolve(rt, &sel, &got), MOD_ROUTE_RES_NH);
		assert_int_equal(got.port, 6);
		s6[1] = 0x02;
		assert_int_equal(mod_route_resolve(rt, &sel, &got), MOD_ROUTE_RES_PROHIBIT);
		sel.iif = 1;
		assert_int_equal(mod_route_resolve(rt, &sel, &got), MOD_ROUTE_RES_NONE);
	}
	eng_stack_free(eng);
}

/* Listing: pref order, main's rule in its place; a rule without pref gets Linux's. */
static void
test_listing(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule r = rule_mark(0, 0x2, 0xff, 0);
	struct mod_route_rule_info ri;
	uint32_t id = 0, it = 0, prefs[4];
	char buf[128];
	unsigned int n = 0;

	(void)state;
	assert_int_equal(mod_route_table_named(rt, "wan2", false, &id), -ENOENT);
	assert_int_equal(mod_route_table_named(rt, "wan2", true, &id), 0);
	assert_int_equal(id, MOD_ROUTE_TABLE_NAMED_BASE);
	assert_int_equal(mod_route_table_named(rt, "123", true, &id), -EINVAL);
	assert_int_equal(mod_route_table_named(rt, "main", false, &id), 0);
	assert_int_equal(id, MOD_ROUTE_TABLE_MAIN);
	r.table = MOD_ROUTE_TABLE_NAMED_BASE;
	assert_int_equal(mod_route_rule_add(rt, &r, false), 0);
	r = rule_table(40000, 9);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	r = rule_table(0, 9);
	assert_int_equal(mod_route_rule_add(rt, &r, false), 0); /* 32764 */
	while (mod_route_rule_next(rt, &it, &ri) == 0 && n < 4)
		prefs[n++] = ri.r.pref;
	assert_int_equal(n, 4);
	assert_int_equal(prefs[0], 32764);
	assert_int_equal(prefs[1], 32765);
	assert_int_equal(prefs[2], MOD_ROUTE_PREF_MAIN);
	assert_int_equal(prefs[3], 40000);
	it = 1;
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(mod_route_rule_format(rt, &ri.r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "from all fwmark 0x2/0xff lookup wan2");
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(ri.implicit);
	assert_true(mod_route_rule_format(rt, &ri.r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "from all lookup main");
	eng_stack_free(eng);
}

/*
 * On the engine: mangle PREROUTING marks port 80's connections 0x1 and
 * port 443's 0x2 (saved in the connmark, restored on the replies); fwmark
 * rules send them out by the ports of tables 1 and 2; an unmarked flow
 * takes main. The reply of a connection from outside (port 8080, marked
 * 0x2 on its way in) goes back by table 2's port: its restored mark
 * picks it (each table has the LAN's route, as a multi-WAN gateway's
 * do). The hits count per rule. A route change reaches the marked flow
 * by its mark.
 */
static void
test_engine_fwmark(void **state)
{
	struct rule_engine *eng = mk("accept\n"
				     "table mangle\n"
				     "chain P hook prerouting\n"
				     "connmark restore_mark\n"
				     "mark set_mark 0x1 ctstate new proto tcp dport 80\n"
				     "mark set_mark 0x2 ctstate new proto tcp dport 443\n"
				     "mark set_mark 0x2 ctstate new proto tcp dport 8080\n"
				     "connmark save_mark\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct rule_upcall web = eng_stack_up4(6, "192.168.1.5", 1000, "1.2.3.4", 80, 0);
	struct rule_upcall tls = eng_stack_up4(6, "192.168.1.5", 1001, "1.2.3.4", 443, 0);
	struct rule_upcall ssh = eng_stack_up4(6, "192.168.1.5", 1002, "1.2.3.4", 22, 0);
	struct rule_upcall in = eng_stack_up4(6, "5.6.7.8", 3000, "192.168.1.9", 8080, 3);
	struct mod_route_rule r;
	struct mod_route_rule_info ri;
	struct rule_flow_info fi;
	uint32_t it = 0;

	(void)state;
	web.pkt.tcp_flags = TCP_SYN;
	tls.pkt.tcp_flags = TCP_SYN;
	ssh.pkt.tcp_flags = TCP_SYN;
	in.pkt.tcp_flags = TCP_SYN;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	route(rt, MOD_ROUTE_TABLE_MAIN, "192.168.1.0", 24, 0);
	route(rt, 1, "0.0.0.0", 0, 2);
	route(rt, 1, "192.168.1.0", 24, 0);
	route(rt, 2, "0.0.0.0", 0, 3);
	route(rt, 2, "192.168.1.0", 24, 0);
	r = rule_mark(100, 0x1, 0xffffffff, 1);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	r = rule_mark(101, 0x2, 0xffffffff, 2);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(eng_stack_decide(eng, web, 1).out_port, 2);
	assert_int_equal(eng_stack_decide(eng, tls, 1).out_port, 3);
	assert_int_equal(eng_stack_decide(eng, ssh, 1).out_port, 2);
	/* From outside on port 3, to the LAN by main; its reply by table 2 (port 3). */
	assert_int_equal(eng_stack_decide(eng, in, 1).out_port, 0);
	{
		struct fc_key rk;

		fc_key_reverse(&in.pkt.key, &rk);
		fc_key_set_in_port(&rk, 0);
		assert_int_equal(rule_engine_flow_lookup(eng, &rk, &fi), 0);
		assert_int_equal(fi.act.out_port, 3);
		assert_int_equal(fi.mark, 0x2);
	}
	/* Hits, both directions: rule 100 web's; 101 tls's and in's; main ssh's. */
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_int_equal(ri.hits, 2);
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_int_equal(ri.hits, 4);
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(ri.implicit);
	assert_int_equal(ri.hits, 2);

	/* Table 1's default moves to port 4: the marked web flow follows, ssh does not. */
	route(rt, 1, "0.0.0.0", 0, 4);
	eng_stack_settle(eng, 2);
	assert_int_equal(rule_engine_flow_lookup(eng, &web.pkt.key, &fi), 0);
	assert_int_equal(fi.act.out_port, 4);
	assert_int_equal(rule_engine_flow_lookup(eng, &ssh.pkt.key, &fi), 0);
	assert_int_equal(fi.act.out_port, 2);
	assert_int_equal(rule_engine_flow_lookup(eng, &tls.pkt.key, &fi), 0);
	assert_int_equal(fi.act.out_port, 3);
	eng_stack_free(eng);
}

/* A rule's blackhole / unreachable / prohibit: named drop reasons, the ICMP error's kind. */
static void
test_engine_drops(void **state)
{
	struct rule_engine *eng = mk("accept\n"
				     "table mangle\n"
				     "chain P hook prerouting\n"
				     "mark set_mark 0x7 proto udp dport 53\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct rule_upcall u = eng_stack_up4(17, "192.168.1.5", 1000, "1.2.3.4", 53, 0);
	struct rule_upcall v = eng_stack_up4(17, "192.168.1.5", 1000, "1.2.3.4", 54, 0);
	struct mod_route_rule r = rule_mark(10, 0x7, 0xffffffff, 0);
	struct rule_decision d;

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	r.action = MOD_ROUTE_ACT_BLACKHOLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_ROUTE_BLACKHOLE);
	assert_int_equal(d.reject, RULE_REJECT_NONE);
	assert_int_equal(eng_stack_decide(eng, v, 1).out_port, 2);
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	r.action = MOD_ROUTE_ACT_UNREACHABLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	d = eng_stack_decide(eng, u, 2);
	assert_int_equal(d.drop, RULE_DROP_ROUTE_UNREACHABLE);
	assert_int_equal(d.reject, RULE_REJECT_ICMP_NET_UNREACHABLE);
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	r.action = MOD_ROUTE_ACT_PROHIBIT;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	d = eng_stack_decide(eng, u, 3);
	assert_int_equal(d.drop, RULE_DROP_ROUTE_PROHIBIT);
	assert_int_equal(d.reject, RULE_REJECT_ICMP_ADMIN_PROHIBITED);
	/* No entry: each packet is decided (and answered). */
	assert_int_equal(rule_engine_flow_lookup(eng, &u.pkt.key, NULL), -ENOENT);
	eng_stack_free(eng);
}

/*
 * A reply whose own (restored) mark selects a drop: the connection from
 * outside (port 3) to the LAN is marked 0x2; a rule for mark 0x2 arriving
 * on the LAN's port 0 prohibits, so the original goes (its iif is 3) but
 * each reply is dropped on the slow path with the rule's reason and ICMP
 * error, as Linux routes it (the mark-0 route does not take it). The rule
 * gone, the walk gives the reply its way and it goes.
 */
static void
test_engine_reply_drop(void **state)
{
	struct rule_engine *eng = mk("accept\n"
				     "table mangle\n"
				     "chain P hook prerouting\n"
				     "connmark restore_mark\n"
				     "mark set_mark 0x2 ctstate new proto udp dport 8080\n"
				     "connmark save_mark\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct rule_upcall in = eng_stack_up4(17, "5.6.7.8", 3000, "192.168.1.9", 8080, 3);
	struct rule_upcall back = eng_stack_up4(17, "192.168.1.9", 8080, "5.6.7.8", 3000, 0);
	struct mod_route_rule r = rule_mark(100, 0x2, 0xffffffff, 0);
	struct mod_route_rule_info ri;
	struct rule_decision d;
	uint32_t it = 0;
	bool slow;

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	route(rt, MOD_ROUTE_TABLE_MAIN, "192.168.1.0", 24, 0);
	r.iif = 0;
	r.action = MOD_ROUTE_ACT_PROHIBIT;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	d = eng_stack_decide(eng, in, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 0);
	for (uint32_t now = 2; now < 4; now++) {
		d = eng_stack_rx(eng, back, now, &slow);
		assert_true(slow);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		assert_int_equal(d.drop, RULE_DROP_ROUTE_PROHIBIT);
		assert_int_equal(d.reject, RULE_REJECT_ICMP_ADMIN_PROHIBITED);
	}
	/* The original still goes; the rule decided the reply once (its flow's). */
	d = eng_stack_rx(eng, in, 4, NULL);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 0);
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_int_equal(ri.r.pref, 100);
	assert_int_equal(ri.hits, 1);
	/* Unreachable instead: its own reason and error. */
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	r.action = MOD_ROUTE_ACT_UNREACHABLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	eng_stack_settle(eng, 5);
	d = eng_stack_rx(eng, back, 6, NULL);
	assert_int_equal(d.drop, RULE_DROP_ROUTE_UNREACHABLE);
	assert_int_equal(d.reject, RULE_REJECT_ICMP_NET_UNREACHABLE);
	/* No rule: the walk gives the reply main's way, and it goes. */
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	eng_stack_settle(eng, 7);
	d = eng_stack_rx(eng, back, 8, NULL);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 2);
	eng_stack_free(eng);
}

/*
 * A rule added while a flow is cached makes its route a drop: the walk
 * gives its entries the rule's drop (each packet to the slow path, dropped
 * with the rule's reason and ICMP error), as for a new flow, not "no
 * route"; a TCP connection's packets stay so through conntrack's own
 * interest. The rule gone, the walk gives the flows their way back.
 */
static void
test_engine_walk_drop(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct rule_upcall u = eng_stack_up4(17, "192.168.1.5", 1000, "1.2.3.4", 53, 0);
	struct rule_upcall ur = eng_stack_up4(17, "1.2.3.4", 53, "192.168.1.5", 1000, 2);
	struct rule_upcall syn = eng_stack_up4(6, "192.168.1.5", 1001, "1.2.3.4", 80, 0);
	struct rule_upcall sa = eng_stack_up4(6, "1.2.3.4", 80, "192.168.1.5", 1001, 2);
	struct rule_upcall ack = syn;
	struct mod_route_rule r = rule_table(10, 0);
	struct rule_decision d;
	uint8_t a[16];
	bool slow;

	(void)state;
	syn.pkt.tcp_flags = TCP_SYN;
	sa.pkt.tcp_flags = TCP_SYN | 0x10;
	ack.pkt.tcp_flags = 0x10;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	route(rt, MOD_ROUTE_TABLE_MAIN, "192.168.1.0", 24, 0);
	assert_int_equal(eng_stack_decide(eng, u, 1).out_port, 2);
	assert_int_equal(eng_stack_decide(eng, ur, 1).out_port, 0);
	assert_int_equal(eng_stack_decide(eng, syn, 1).out_port, 2);
	assert_int_equal(eng_stack_rx(eng, sa, 1, NULL).out_port, 0);
	assert_int_equal(eng_stack_rx(eng, ack, 1, NULL).out_port, 2);
	r.to_set = true;
	r.family = FC_AF_INET4;
	memcpy(r.to, a4("1.2.3.0", a), 16);
	r.to_len = 24;
	r.action = MOD_ROUTE_ACT_PROHIBIT;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	eng_stack_settle(eng, 2);
	for (uint32_t now = 3; now < 5; now++) {
		d = eng_stack_rx(eng, u, now, &slow);
		assert_true(slow);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		assert_int_equal(d.drop, RULE_DROP_ROUTE_PROHIBIT);
		assert_int_equal(d.reject, RULE_REJECT_ICMP_ADMIN_PROHIBITED);
		d = eng_stack_rx(eng, ack, now, &slow);
		assert_true(slow);
		assert_int_equal(d.drop, RULE_DROP_ROUTE_PROHIBIT);
	}
	/* The replies (to the LAN) still go. */
	d = eng_stack_rx(eng, ur, 5, NULL);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 0);
	/* Blackhole instead: silent. */
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	r.action = MOD_ROUTE_ACT_BLACKHOLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	eng_stack_settle(eng, 6);
	d = eng_stack_rx(eng, u, 7, NULL);
	assert_int_equal(d.drop, RULE_DROP_ROUTE_BLACKHOLE);
	assert_int_equal(d.reject, RULE_REJECT_NONE);
	/* No rule: main's way again. */
	assert_int_equal(mod_route_rule_del(rt, &r), 0);
	eng_stack_settle(eng, 8);
	d = eng_stack_rx(eng, u, 9, NULL);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 2);
	d = eng_stack_rx(eng, ack, 9, NULL);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, 2);
	eng_stack_free(eng);
}

/* The policy lookup of a packet of @p proto from port @p sp to port @p dp: the port, or -result. */
static int
look_l4(const struct mod_route *rt, uint8_t proto, uint16_t sp, uint16_t dp)
{
	uint8_t s[16], d[16];
	struct mod_route_sel sel = {
		.family = FC_AF_INET4, .src = a4("192.168.1.5", s), .dst = a4("1.2.3.4", d),
		.iif = 0, .proto = proto, .sport = sp, .dport = dp};
	struct mod_route_nh nh;
	int res = mod_route_resolve(rt, &sel, &nh);

	return res == MOD_ROUTE_RES_NH ? nh.port : -res;
}

/*
 * ipproto, sport and dport (ranges, both ends in): a protocol without
 * ports has ports 0 (Linux's flow dissection); the listing's words; equal rules
 * (a range's ends) are one; a reversed range is refused. On the engine: a
 * TCP flow to port 443 takes the dport rule's table, its reply (from 443)
 * the sport rule's.
 */
static void
test_l4_selectors(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule r = rule_table(10, 1), q;
	struct mod_route_rule_info ri;
	struct rule_flow_info fi;
	struct rule_upcall u = eng_stack_up4(6, "192.168.1.5", 1000, "1.2.3.4", 443, 0);
	char line[200];
	uint32_t it = 0;

	(void)state;
	u.pkt.tcp_flags = TCP_SYN;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	route(rt, MOD_ROUTE_TABLE_MAIN, "192.168.1.0", 24, 0);
	route(rt, 1, "0.0.0.0", 0, 3);
	route(rt, 2, "192.168.1.0", 24, 4);
	r.ipproto = 6;
	r.dport_set = true;
	r.dport[0] = 443;
	r.dport[1] = 450;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	q = rule_table(20, 2);
	q.sport_set = true;
	q.sport[0] = q.sport[1] = 443;
	assert_int_equal(mod_route_rule_add(rt, &q, true), 0);
	assert_int_equal(look_l4(rt, 6, 1000, 443), 3);
	assert_int_equal(look_l4(rt, 6, 1000, 450), 3);
	assert_int_equal(look_l4(rt, 6, 1000, 451), 2);
	assert_int_equal(look_l4(rt, 6, 1000, 442), 2);
	assert_int_equal(look_l4(rt, 17, 1000, 443), 2); /* not tcp */
	/* (to 1.2.3.4: table 2 has no route there, main's) */
	assert_int_equal(look_l4(rt, 17, 443, 1000), 2);
	/* ICMP's ports are 0 (as Linux's): sport 0-443 takes it, whatever its key holds. */
	q.sport[0] = 0;
	assert_int_equal(mod_route_rule_del(rt, &q), -ENOENT); /* another range: another rule */
	assert_int_equal(mod_route_rule_add(rt, &q, true), 0);
	route(rt, 2, "0.0.0.0", 0, 4);
	assert_int_equal(look_l4(rt, 1, 0, 0), 4);
	assert_int_equal(look_l4(rt, 1, 800, 0), 4);
	assert_int_equal(look_l4(rt, 17, 0, 53), 4);
	assert_int_equal(look_l4(rt, 17, 800, 53), 2);
	assert_int_equal(mod_route_rule_del(rt, &q), 0);
	assert_int_equal(mod_route_table_del(rt, 2, FC_AF_INET4, (uint8_t[16]){0}, 0), 0);
	/* Reversed: refused. */
	q.sport[0] = 500;
	q.sport[1] = 400;
	assert_int_equal(mod_route_rule_add(rt, &q, true), -EINVAL);
	/* Listing. */
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(mod_route_rule_format(rt, &ri.r, line, sizeof(line)) > 0);
	assert_string_equal(line, "from all ipproto tcp dport 443-450 lookup 1");
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(mod_route_rule_format(rt, &ri.r, line, sizeof(line)) > 0);
	assert_string_equal(line, "from all sport 443 lookup 2");
	/* On the engine: the flow by table 1 (port 3), its reply from 443 by table 2. */
	assert_int_equal(eng_stack_decide(eng, u, 1).out_port, 3);
	assert_int_equal(rule_engine_flow_lookup(eng, &u.pkt.key, &fi), 0);
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, fi.peer, &fi), 0);
	assert_int_equal(fc_key_sport(&fi.key), htons(443));
	assert_int_equal(fi.act.out_port, 4);
	eng_stack_free(eng);
}

/*
 * goto P: a matching rule goes on at the rules of pref P (skipping those
 * between, and main's when past 32766); none of pref P: unresolved,
 * skipped, and listed so; a goto to an earlier pref is refused.
 */
static void
test_goto(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule g = rule_mark(10, 0x1, 0xffffffff, 0), r;
	struct mod_route_rule_info ri;
	char line[200];
	uint32_t it = 0;

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "0.0.0.0", 0, 2);
	route(rt, 1, "0.0.0.0", 0, 3);
	route(rt, 2, "0.0.0.0", 0, 4);
	g.action = MOD_ROUTE_ACT_GOTO;
	g.table = 30;
	assert_int_equal(mod_route_rule_add(rt, &g, true), 0);
	r = rule_table(20, 1);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	/* Unresolved (no rule of pref 30): skipped, mark 1 takes table 1 too. */
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 1, 0), 3);
	assert_int_equal(mod_route_rule_next(rt, &it, &ri), 0);
	assert_true(mod_route_rule_format(rt, &ri.r, line, sizeof(line)) > 0);
	assert_string_equal(line, "from all fwmark 0x1 goto 30 [unresolved]");
	r = rule_table(30, 2);
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 1, 0), 4); /* past pref 20 */
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 0, 0), 3);
	assert_true(mod_route_rule_format(rt, &g, line, sizeof(line)) > 0);
	assert_string_equal(line, "from all fwmark 0x1 goto 30");
	/* Past main: main skipped, the rule at 40000 decides (nothing there: no route). */
	g.table = 40000;
	g.pref = 11;
	assert_int_equal(mod_route_rule_add(rt, &g, true), 0);
	assert_int_equal(mod_route_rule_del(rt, &r), 0); /* pref 30 gone: the first goto unresolved */
	r = rule_table(40000, 5);
	r.action = MOD_ROUTE_ACT_BLACKHOLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 1, 0), -MOD_ROUTE_RES_BLACKHOLE);
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 0, 0), 3);
	/* To main's pref: main decides. */
	assert_int_equal(mod_route_rule_del(rt, &g), 0);
	g.table = MOD_ROUTE_PREF_MAIN;
	assert_int_equal(mod_route_rule_add(rt, &g, true), 0);
	assert_int_equal(look(rt, "10.0.0.1", "1.1.1.1", 1, 0), 2);
	/* Backwards or to itself: refused. */
	g.table = 11;
	assert_int_equal(mod_route_rule_add(rt, &g, true), -EINVAL);
	g.table = 5;
	assert_int_equal(mod_route_rule_add(rt, &g, true), -EINVAL);
	eng_stack_free(eng);
}

/*
 * A rule of main's pref 32766 comes after main's rule, as Linux adds a
 * rule after those of its pref and main's is there from boot: main routes
 * first, the rule sees what main does not route; listed after main; a
 * goto to 32766 goes on at main.
 */
static void
test_main_pref(void **state)
{
	struct rule_engine *eng = mk("accept\n");
	struct mod_route *rt = eng_stack_route(eng);
	struct mod_route_rule r = rule_table(MOD_ROUTE_PREF_MAIN, 0), g;
	struct mod_route_rule_info ri;
	uint32_t it = 0, n = 0;
	char buf[128];

	(void)state;
	route(rt, MOD_ROUTE_TABLE_MAIN, "10.0.0.0", 8, 1);
	r.action = MOD_ROUTE_ACT_PROHIBIT;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 0, 0), 1);
	assert_int_equal(look(rt, "192.168.0.1", "8.8.8.8", 0, 0), -MOD_ROUTE_RES_PROHIBIT);
	/* Listed after main, both at 32766. */
	while (mod_route_rule_next(rt, &it, &ri) == 0) {
		assert_int_equal(ri.r.pref, MOD_ROUTE_PREF_MAIN);
		assert_true(mod_route_rule_format(rt, &ri.r, buf, sizeof(buf)) > 0);
		assert_string_equal(buf, n == 0 ? "from all lookup main" : "from all prohibit");
		assert_true(ri.implicit == (n == 0));
		n++;
	}
	assert_int_equal(n, 2);
	/* At 32765: before main. */
	r = rule_mark(MOD_ROUTE_PREF_MAIN - 1, 0x2, 0xff, 0);
	r.action = MOD_ROUTE_ACT_BLACKHOLE;
	assert_int_equal(mod_route_rule_add(rt, &r, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 2, 0), -MOD_ROUTE_RES_BLACKHOLE);
	/* goto 32766 from 10 (over 32765's blackhole): main, then the prohibit rule. */
	g = rule_mark(10, 0x2, 0xff, 0);
	g.action = MOD_ROUTE_ACT_GOTO;
	g.table = MOD_ROUTE_PREF_MAIN;
	assert_int_equal(mod_route_rule_add(rt, &g, true), 0);
	assert_int_equal(look(rt, "192.168.0.1", "10.1.1.1", 2, 0), 1);
	assert_int_equal(look(rt, "192.168.0.1", "8.8.8.8", 2, 0), -MOD_ROUTE_RES_PROHIBIT);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_fallthrough),
		cmocka_unit_test(test_selectors_actions),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_engine_fwmark),
		cmocka_unit_test(test_engine_drops),
		cmocka_unit_test(test_engine_reply_drop),
		cmocka_unit_test(test_engine_walk_drop),
		cmocka_unit_test(test_l4_selectors),
		cmocka_unit_test(test_goto),
		cmocka_unit_test(test_main_pref),
	};

	if (gufc_test_eal_init("route_policy", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
