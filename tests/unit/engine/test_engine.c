/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the rules engine (lib/engine) with the modules the app
 * registers (lib/modules: conntrack, nat, route; tests/unit/common/
 * eng_stack.c builds the stack): a TCP
 * handshake through conntrack (ctstates, linked forward and reply entries,
 * interest masks), Linux-like verdicts for a stateful rule set (handshake,
 * stray ACK in loose and strict mode), DNAT/SNAT slots and reply keys, NAT
 * exhaustion as a named drop, routes, channels, a full table that refuses,
 * aging of both directions with NAT release, aging that counts traffic in
 * either direction, the insert clash drop, per-flow channels (both
 * directions share one, returned after aging and a grace period, pool
 * exhaustion falls back to the parent), the module registry (order, an
 * extra module's interest) and per-rule counters (one by one and as a
 * snapshot). Drops are counted from the decisions, as the app does.
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

#include "csum_ref.h"
#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

/* Drops by reason among the decisions decide() saw (the app keeps its own the same way). */
static uint64_t drops_seen[RULE_DROP__COUNT];

/* The ids of the drop list, as the app's registry spells them. */
static const char *
drop_id(unsigned int d)
{
	static const char *const ids[RULE_DROP__COUNT] = {
		[RULE_DROP_NONE] = "none",
#define DROP_ID(name, id, text) [RULE_DROP_##name] = id,
		RULE_DROP_REASONS(DROP_ID)
#undef DROP_ID
	};

	return d < RULE_DROP__COUNT ? ids[d] : "?";
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct rule_upcall
up4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t flags, uint8_t tcp_flags)
{
	struct rule_upcall u = eng_stack_up4(proto, src, sport, dst, dport, 0);

	u.pkt.key.v4.flags = flags;
	u.pkt.tcp_flags = tcp_flags;
	return u;
}

static struct rule_upcall
tcp4(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint8_t tf)
{
	struct rule_upcall u = up4(6, src, sport, dst, dport, 0, tf);

	u.pkt.tcp_opt = FC_TCP_OPT_PLAIN;
	u.pkt.tcp_win = 1000;
	return u;
}

/* A TCP segment with its numbers. */
static struct rule_upcall
tcp4n(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint8_t tf, uint32_t seq,
	uint32_t ack)
{
	struct rule_upcall u = tcp4(src, sport, dst, dport, tf);

	u.pkt.tcp_seq = seq;
	u.pkt.tcp_ack = ack;
	return u;
}

static struct rule_engine *
mk_engine(bool ct, bool strict, uint32_t cap, enum fc_full_policy pol, uint32_t nat)
{
	struct eng_stack_params p;
	struct rule_engine *eng;

	eng_stack_test_params(&p, cap, 64, ct, nat);
	p.eng.full_policy = pol;
	p.ct.tcp_strict = strict;
	eng = eng_stack_test_create(&p, "te");
	memset(drops_seen, 0, sizeof(drops_seen));
	return eng;
}

static void
load(struct rule_engine *eng, const char *text)
{
	eng_stack_load(eng, text, false);
}

/* One upcall; returns its decision. */
static struct rule_decision
decide(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	struct rule_decision d = eng_stack_decide(eng, u, now);

	if (d.verdict != FC_VERDICT_ACCEPT && d.drop < RULE_DROP__COUNT)
		drops_seen[d.drop]++;
	return d;
}

/*
 * What the RX lcore does with a packet (eng_stack_rx()): a hit's cached
 * action, or the slow path (its drop counted as decide() counts it). *slow
 * tells which happened.
 */
static struct rule_decision
rx(struct rule_engine *eng, struct rule_upcall u, uint32_t now, bool *slow)
{
	bool up;
	struct rule_decision d = eng_stack_rx(eng, u, now, &up);

	if (up && d.verdict != FC_VERDICT_ACCEPT && d.drop < RULE_DROP__COUNT)
		drops_seen[d.drop]++;
	if (slow != NULL)
		*slow = up;
	return d;
}

static const char *stateful_rules = "accept ctstate established,related\n"
				    "accept proto tcp dport 80 ctstate new\n"
				    "accept proto udp ctstate new\n"
				    "policy drop\n";

/* ------------------------------------------------------------------------ */
/* Conntrack                                                                 */
/* ------------------------------------------------------------------------ */

static void
test_tcp_handshake(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 0);
	struct rule_upcall syn = tcp4n("10.0.0.1", 1234, "10.0.0.2", 80, TCP_SYN, 1000, 0);
	struct rule_upcall synack =
		tcp4n("10.0.0.2", 80, "10.0.0.1", 1234, TCP_SYN | TCP_ACK, 5000, 1001);
	struct rule_upcall ack = tcp4n("10.0.0.1", 1234, "10.0.0.2", 80, TCP_ACK, 1001, 5001);
	const struct fc_entry *fe, *re;
	struct rule_decision d;
	struct mod_ct_conn c;
	uint32_t fi, ri;
	bool slow;

	(void)state;
	load(eng, stateful_rules);
	d = rx(eng, syn, 1, &slow);
	assert_true(slow);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	assert_int_equal(d.rule_id, 2);
	fe = eng_stack_entry_idx(eng, &syn.pkt.key, &fi);
	re = eng_stack_entry_idx(eng, &synack.pkt.key, &ri);
	assert_non_null(fe);
	assert_non_null(re);
	/* Linked through their cold records. */
	assert_int_equal(fc_table_peer(rule_engine_table(eng, FC_AF_INET4), fi), ri);
	assert_int_equal(fc_table_peer(rule_engine_table(eng, FC_AF_INET4), ri), fi);
	assert_true(re->act.flags & FC_ACT_F_REPLY);
	assert_false(fe->act.flags & FC_ACT_F_REPLY);
	/* Conntrack wants SYN/RST of both; the line takes the first reply
	 * (the SYN/ACK): the original entry is decided ESTABLISHED already. */
	assert_false(fe->act.interest & FC_INTEREST_TCP_FIN); /* the line's, as from SYN_RECV */
	assert_true(fe->act.interest & FC_INTEREST_TCP_SYN);
	assert_true(fe->act.interest & FC_INTEREST_TCP_RST);
	assert_true(re->act.interest & FC_INTEREST_TCP_WIN);
	assert_false(re->act.interest & (FC_INTEREST_ALL | FC_INTEREST_TCP_SYN));
	assert_true(fe->act.flags & FC_ACT_F_AHEAD);
	assert_int_equal(fe->act.rule_id, 1);
	assert_int_equal(mod_ct_module_conn_get(eng_stack_ct(eng), &fe->act, &c), 0);
	assert_int_equal(c.state, MOD_CT_S_SYN_SENT);
	/* Not established: a full table evicts both before established flows. */
	assert_true(fe->act.flags & FC_ACT_F_EARLY);
	assert_true(re->act.flags & FC_ACT_F_EARLY);

	d = rx(eng, synack, 2, &slow);
	assert_false(slow); /* conntrack's step on the line */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.rule_id, 1);
	assert_int_equal(mod_ct_module_conn_get(eng_stack_ct(eng), &fe->act, &c), 0);
	assert_int_equal(c.state, MOD_CT_S_SYN_RECV);
	assert_int_equal(mod_ct_conn_ctstate(&c, MOD_CT_DIR_ORIG), RULE_CT_ESTABLISHED);
	d = rx(eng, ack, 3, &slow);
	assert_false(slow); /* SYN_RECV: the original side's ACK completes, on the fast path */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	fe = eng_stack_entry(eng, &syn.pkt.key);
	assert_int_equal(mod_ct_module_conn_get(eng_stack_ct(eng), &fe->act, &c), 0);
	assert_int_equal(mod_ct_conn_ctstate(&c, MOD_CT_DIR_ORIG), RULE_CT_ESTABLISHED);
	assert_int_equal(c.state, MOD_CT_S_ESTABLISHED);
	assert_int_equal(fe->act.rule_id, 1); /* decided as ESTABLISHED at the SYN */
	/* Aging sees the reply taken: both entries established. */
	(void)rule_engine_step(eng, 3, 4096);
	assert_false(fe->act.flags & (FC_ACT_F_EARLY | FC_ACT_F_AHEAD));
	assert_false(eng_stack_entry(eng, &synack.pkt.key)->act.flags & FC_ACT_F_EARLY);

	/* Data now takes the fast path both ways. */
	d = rx(eng, ack, 4, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, tcp4n("10.0.0.2", 80, "10.0.0.1", 1234, TCP_ACK, 5001, 1001), 4, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);

	/* A new connection the rules refuse is cached as a drop, without a reply entry. */
	d = rx(eng, tcp4("10.0.0.1", 1235, "10.0.0.2", 81, TCP_SYN), 5, &slow);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	assert_int_equal(d.rule_id,
		RULE_ID_CHAIN_POLICY(FC_AF_INET4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD));
	syn = tcp4("10.0.0.2", 81, "10.0.0.1", 1235, 0);
	assert_null(eng_stack_entry(eng, &syn.pkt.key));
	d = rx(eng, tcp4("10.0.0.1", 1235, "10.0.0.2", 81, TCP_SYN), 6, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

static void
test_stray_ack(void **state)
{
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	for (int strict = 0; strict < 2; strict++) {
		struct rule_engine *eng = mk_engine(true, strict, 1024, FC_FULL_REFUSE, 0);
		struct rule_upcall ack = tcp4("10.0.0.1", 999, "10.0.0.2", 80, TCP_ACK);

		load(eng, stateful_rules);
		d = decide(eng, ack, 1);
		if (!strict) {
			/* Loose (Linux's default): picked up, NEW, accepted by rule 2. */
			assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
			assert_int_equal(d.ctstate, RULE_CT_NEW);
			assert_non_null(eng_stack_entry(eng, &ack.pkt.key));
		} else {
			/* Strict: INVALID, the policy drops it, nothing is cached. */
			assert_int_equal(d.verdict, FC_VERDICT_DROP);
			assert_int_equal(d.ctstate, RULE_CT_INVALID);
			assert_int_equal(d.drop, RULE_DROP_FILTER);
			assert_null(eng_stack_entry(eng, &ack.pkt.key));
			rule_engine_stats_get(eng, &st);
			assert_int_equal(st.uncached, 1);
		}
		/* A SYN/ACK out of nowhere is INVALID in both modes. */
		d = decide(eng, tcp4("10.0.0.9", 80, "10.0.0.1", 5, TCP_SYN | TCP_ACK), 2);
		assert_int_equal(d.ctstate, RULE_CT_INVALID);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		eng_stack_free(eng);
	}
}

/* ------------------------------------------------------------------------ */
/* NAT                                                                       */
/* ------------------------------------------------------------------------ */

static void
test_nat(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 16);
	struct rule_upcall u = tcp4("10.0.0.1", 4000, "198.51.100.1", 80, TCP_SYN);
	struct mod_nat_binding_result nb;
	const struct fc_entry *fe, *re;
	struct fc_key rk;
	struct rule_decision d;
	char a[FC_KEY_STRLEN], b[FC_KEY_STRLEN];

	(void)state;
	load(eng, "dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\n"
		  "snat to 203.0.113.1 src 10.0.0.0/8\n"
		  "accept\n");
	d = decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_int_equal(d.nat_slot, MOD_NAT_SLOT_FWD(MOD_NAT_SLOT_BINDING(d.nat_slot)));
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	/* Both translations, one binding; the reply key is the reverse of the translated key. */
	assert_true(nb.flags & MOD_NAT_F_DNAT);
	assert_true(nb.flags & MOD_NAT_F_SNAT);
	fc_key_reverse(&nb.fwd, &rk);
	fc_key_format(&rk, a, sizeof(a));
	fc_key_format(&nb.reply, b, sizeof(b));
	assert_string_equal(a, b);
	assert_int_equal(nb.fwd.v4.dst, inet_addr("192.168.0.10"));
	assert_int_equal(nb.fwd.v4.src, inet_addr("203.0.113.1"));
	fe = eng_stack_entry(eng, &u.pkt.key);
	re = eng_stack_entry(eng, &nb.reply);
	assert_non_null(fe);
	assert_non_null(re);
	assert_true(fe->act.flags & FC_ACT_F_NAT);
	assert_true(re->act.flags & FC_ACT_F_NAT);
	assert_int_equal(re->act.nat_id, MOD_NAT_SLOT_REPLY(MOD_NAT_SLOT_BINDING(d.nat_slot)));

	/* The server's reply hits the reply entry: ESTABLISHED, translated back. */
	d = decide(eng, up4(6, "192.168.0.10", 8080, "203.0.113.1", 4000, 0, TCP_SYN | TCP_ACK), 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	assert_int_equal(d.nat_slot, re->act.nat_id);
	eng_stack_free(eng);
}

/* A port-only target (iptables' --to-destination :P): the address kept, the port mapped. */
static void
test_nat_port_only(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 16);
	struct mod_nat_binding_result nb;
	struct rule_decision d;

	(void)state;
	load(eng, "dnat to :8080 proto tcp dst 198.51.100.1 dport 80\n"
		  "snat to :5300-5301 proto udp src 10.0.0.0/8\n"
		  "accept\n");
	d = decide(eng, tcp4("10.9.0.1", 4000, "198.51.100.1", 80, TCP_SYN), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	assert_true(nb.flags & MOD_NAT_F_DNAT);
	assert_int_equal(nb.fwd.v4.dst, inet_addr("198.51.100.1"));
	assert_int_equal(nb.fwd.v4.dport, htons(8080));
	assert_int_equal(nb.fwd.v4.src, inet_addr("10.9.0.1"));

	d = decide(eng, up4(17, "10.0.0.2", 1000, "198.51.100.1", 53, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	assert_true(nb.flags & MOD_NAT_F_SNAT);
	assert_int_equal(nb.fwd.v4.src, inet_addr("10.0.0.2"));
	assert_in_range(ntohs(nb.fwd.v4.sport), 5300, 5301);
	assert_int_equal(nb.fwd.v4.dst, inet_addr("198.51.100.1"));
	eng_stack_free(eng);
}

static void
test_nat_exhausted(void **state)
{
	struct rule_engine *eng = mk_engine(false, false, 1024, FC_FULL_REFUSE, 16);
	struct rule_decision d;

	(void)state;
	/* One address, one port: one binding per remote endpoint. */
	load(eng, "snat to 203.0.113.1:5000 proto udp\naccept\n");
	d = decide(eng, up4(17, "10.0.0.1", 1000, "198.51.100.1", 53, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	d = decide(eng, up4(17, "10.0.0.2", 1000, "198.51.100.1", 53, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_NAT_EXHAUSTED);
	assert_string_equal(drop_id(d.drop), "nat_exhausted");
	assert_int_equal(drops_seen[RULE_DROP_NAT_EXHAUSTED], 1);
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Routes and channels                                                       */
/* ------------------------------------------------------------------------ */

static int
chan_fn(void *arg, const char *name)
{
	(void)arg;
	if (strcmp(name, "web") == 0)
		return 7;
	return -ENOENT;
}

static void
test_route_channel(void **state)
{
	struct eng_stack_params p;
	struct rule_engine *eng;
	struct rule_engine_stats st;
	struct rule_decision d;
	uint8_t net[4] = {10, 1, 0, 0}, host[4] = {10, 1, 2, 0}, def[4] = {0};
	char buf[512];
	FILE *f;

	(void)state;
	eng_stack_test_params(&p, 64, 0, false, 0);
	p.eng.full_policy = FC_FULL_EVICT_IDLE;
	p.eng.channel_fn = chan_fn;
	eng = eng_stack_test_create(&p, "terc");
	load(eng, "accept channel web proto tcp dport 80\naccept channel nosuch proto tcp dport 81\n"
		  "accept\n");
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 16, 3), 0);
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, host, 24, 4), 0);
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 8, 5), -EINVAL);

	d = decide(eng, tcp4("10.0.0.1", 1, "10.1.9.9", 80, TCP_SYN), 1);
	assert_int_equal(d.out_port, 3);
	assert_int_equal(d.channel, 7);
	d = decide(eng, tcp4("10.0.0.1", 1, "10.1.2.9", 81, TCP_SYN), 1);
	assert_int_equal(d.out_port, 4);
	assert_int_equal(d.channel, 1); /* unknown name: default, counted */
	d = decide(eng, tcp4("10.0.0.1", 1, "172.16.0.1", 82, TCP_SYN), 1);
	assert_int_equal(d.out_port, RULE_PORT_PAIRED);
	d = decide(eng, up4(6, "10.0.0.1", 2, "10.1.9.9", 80, FC_KEY_F_DST_LOCAL, TCP_SYN), 1);
	assert_int_equal(d.out_port, RULE_PORT_LOCAL);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.channel_unknown, 1);

	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, def, 0, 9), 0);
	d = decide(eng, tcp4("10.0.0.1", 1, "172.16.0.2", 82, TCP_SYN), 1);
	assert_int_equal(d.out_port, 9);
	assert_int_equal(mod_route_del(eng_stack_route(eng), FC_AF_INET4, host, 24), 0);
	assert_int_equal(mod_route_del(eng_stack_route(eng), FC_AF_INET4, host, 24), -ENOENT);
	assert_int_equal(mod_route_lookup(eng_stack_route(eng), FC_AF_INET4,
				 (uint8_t[]){10, 1, 2, 3}),
		3);

	f = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(mod_route_dump(eng_stack_route(eng), f), 2);
	fclose(f);
	assert_non_null(strstr(buf, "10.1.0.0/16 port 3"));
	assert_non_null(strstr(buf, "0.0.0.0/0 port 9"));
	/* Bridge mode (no adjacency callbacks): router mode cannot be turned on. */
	assert_false(mod_route_router(eng_stack_route(eng)));
	assert_int_equal(mod_route_router_set(eng_stack_route(eng), true), -ENOTSUP);
	assert_int_equal(mod_route_router_set(eng_stack_route(eng), false), 0);
	assert_int_equal(mod_route_router_set(NULL, false), -EINVAL);
	assert_false(mod_route_router(NULL));
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Table full, aging                                                         */
/* ------------------------------------------------------------------------ */

/* Step the engine until the re-route walk is over. */
static void
walk_routes(struct rule_engine *eng)
{
	struct mod_route_stats st;

	for (int i = 0; i < 1000; i++) {
		rule_engine_step(eng, 1, 64);
		mod_route_stats_get(eng_stack_route(eng), &st);
		if (!st.rerouting)
			return;
	}
	fail_msg("route walk did not finish");
}

/* The entry of key @p k with input port @p port, or NULL. */
static const struct fc_entry *
entry_on(struct rule_engine *eng, const struct fc_key *k, uint16_t port)
{
	struct fc_key c = *k;

	fc_key_set_in_port(&c, port);
	return eng_stack_entry(eng, &c);
}

/*
 * Route changes reach cached flows, both directions, NAT included. A reply
 * entry's key has the port its replies are expected on, the forward
 * entry's output port: while no reply came, it follows the route.
 */
static void
test_reroute(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 16);
	struct rule_upcall u = tcp4("10.0.0.1", 4000, "10.1.9.9", 80, TCP_SYN);
	struct rule_upcall v = tcp4("10.0.0.2", 4001, "198.51.100.1", 80, TCP_SYN);
	uint8_t net[4] = {10, 1, 0, 0}, host[4] = {10, 1, 9, 0}, def[4] = {0};
	uint8_t inside[4] = {192, 168, 0, 0}, server[4] = {192, 168, 0, 10};
	struct mod_nat_binding_result nb;
	const struct fc_entry *fu, *fv;
	struct rule_engine_stats es;
	struct mod_route_stats st;
	struct fc_key rk;
	struct rule_decision d;

	(void)state;
	load(eng, "dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\naccept\n");
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 16, 3), 0);
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, inside, 16, 5), 0);
	walk_routes(eng);

	d = decide(eng, u, 1);
	assert_int_equal(d.out_port, 3);
	d = decide(eng, v, 1);
	assert_int_equal(d.out_port, 5); /* routed after DNAT */
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	fc_key_reverse(&u.pkt.key, &rk);
	fu = eng_stack_entry(eng, &u.pkt.key);
	fv = eng_stack_entry(eng, &v.pkt.key);
	assert_non_null(fu);
	assert_non_null(fv);
	/* Replies are expected where the forward packets leave. */
	assert_null(entry_on(eng, &rk, 0));
	assert_non_null(entry_on(eng, &rk, 3));
	assert_non_null(entry_on(eng, &nb.reply, 5));
	assert_int_equal(fu->act.out_port, 3);
	assert_int_equal(entry_on(eng, &rk, 3)->act.out_port, RULE_PORT_PAIRED);
	assert_int_equal(fv->act.out_port, 5);
	assert_int_equal(entry_on(eng, &nb.reply, 5)->act.out_port, RULE_PORT_PAIRED);

	/* A more specific route: the cached forward entry follows it, its reply entry too. */
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, host, 24, 4), 0);
	walk_routes(eng);
	assert_int_equal(fu->act.out_port, 4);
	assert_null(entry_on(eng, &rk, 3));
	assert_non_null(entry_on(eng, &rk, 4));
	assert_int_equal(entry_on(eng, &rk, 4)->act.out_port, RULE_PORT_PAIRED);
	d = rx(eng, tcp4("10.0.0.1", 4000, "10.1.9.9", 80, TCP_ACK), 2, NULL);
	assert_int_equal(d.out_port, 4);

	/* A default route: the replies (to 10.0.0.x) take it. */
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, def, 0, 9), 0);
	walk_routes(eng);
	assert_int_equal(entry_on(eng, &rk, 4)->act.out_port, 9);
	assert_int_equal(entry_on(eng, &nb.reply, 5)->act.out_port, 9);

	/* The DNAT server's own route: the translated destination decides. */
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, server, 32, 6), 0);
	walk_routes(eng);
	assert_int_equal(fv->act.out_port, 6);
	assert_null(entry_on(eng, &nb.reply, 5));
	assert_int_equal(entry_on(eng, &nb.reply, 6)->act.out_port, 9);

	/* A reply came on the port expected: from now on the reply entry stays there. */
	{
		struct rule_upcall r = tcp4("10.1.9.9", 80, "10.0.0.1", 4000, TCP_SYN | TCP_ACK);

		fc_key_set_in_port(&r.pkt.key, 4);
		r.in_port = 4;
		d = rx(eng, r, 3, NULL);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(d.out_port, 9);
	}

	/* Deleting the /24 falls back to the /16; the replied reply entry stays on port 4. */
	assert_int_equal(mod_route_del(eng_stack_route(eng), FC_AF_INET4, host, 24), 0);
	walk_routes(eng);
	assert_int_equal(fu->act.out_port, 3);
	assert_non_null(entry_on(eng, &rk, 4));
	assert_null(entry_on(eng, &rk, 3));

	mod_route_stats_get(eng_stack_route(eng), &st);
	assert_int_equal(st.route_walks, 6);
	assert_int_equal(st.rerouted, 5);
	rule_engine_stats_get(eng, &es);
	assert_int_equal(es.reply_moved, 0); /* moves that follow routes are no arrivals */
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* ICMP errors of translated connections                                      */
/* ------------------------------------------------------------------------ */

/* @p sum plus @p len bytes at @p p, folded (common/csum_ref.c). */
static uint16_t
ref_sum(uint32_t sum, const uint8_t *p, uint32_t len)
{
	return csum_ref_fold(csum_ref_add(sum, p, len));
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Sum over an IPv6 pseudo-header (the addresses at @p ip6 + 8) and @p len bytes of @p l4. */
static uint16_t
sum6(const uint8_t *ip6, uint8_t proto, const uint8_t *l4, uint32_t len)
{
	return ref_sum(csum_ref_pseudo(ip6, proto, len), l4, len);
}

/* TCP checksum of a quoted 20-byte header as if it were the whole segment. */
static uint16_t
tcp_hdr_csum(const uint8_t *ip, const uint8_t *tcp)
{
	return (uint16_t)~ref_sum(csum_ref_pseudo(ip, 6, 20), tcp, 20);
}

/*
 * An ICMPv4 error frame: Ethernet, IPv4 @p osrc -> @p odst, ICMP type 3
 * code 3, quoting an IPv4+TCP header @p isrc:isport -> @p idst:idport with
 * valid checksums. Returns the frame length.
 */
static uint32_t
icmp4_error(uint8_t *f, const char *osrc, const char *odst, const char *isrc, uint16_t isport,
	const char *idst, uint16_t idport)
{
	uint8_t *ip = f + 14, *icmp = ip + 20, *in = icmp + 8, *tcp = in + 20;
	uint32_t len = 14 + 20 + 8 + 20 + 20;

	memset(f, 0, len);
	f[12] = 0x08;
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(len - 14));
	ip[8] = 64;
	ip[9] = 1;
	inet_pton(AF_INET, osrc, ip + 12);
	inet_pton(AF_INET, odst, ip + 16);
	in[0] = 0x45;
	wr16(in + 2, 60);
	in[8] = 63;
	in[9] = 6;
	inet_pton(AF_INET, isrc, in + 12);
	inet_pton(AF_INET, idst, in + 16);
	wr16(tcp, isport);
	wr16(tcp + 2, idport);
	tcp[12] = 0x50;
	tcp[13] = TCP_SYN;
	wr16(tcp + 16, tcp_hdr_csum(in, tcp));
	wr16(in + 10, (uint16_t)~ref_sum(0, in, 20));
	icmp[0] = 3;
	icmp[1] = 3;
	wr16(icmp + 2, (uint16_t)~ref_sum(0, icmp, 48));
	wr16(ip + 10, (uint16_t)~ref_sum(0, ip, 20));
	return len;
}

/* Every checksum of an icmp4_error() frame holds. */
static void
assert_icmp4_csums(const uint8_t *f)
{
	const uint8_t *ip = f + 14, *icmp = ip + 20, *in = icmp + 8, *tcp = in + 20;

	assert_int_equal(ref_sum(0, ip, 20), 0xffff);
	assert_int_equal(ref_sum(0, icmp, 48), 0xffff);
	assert_int_equal(ref_sum(0, in, 20), 0xffff);
	assert_int_equal(tcp_hdr_csum(in, tcp), 0); /* the sum over it all, field included */
}

static void
assert_ip4(const uint8_t *p, const char *text)
{
	uint8_t a[4];

	inet_pton(AF_INET, text, a);
	assert_memory_equal(p, a, 4);
}

/*
 * A port unreachable from beyond a SNAT and DNAT gateway about the
 * translated SYN reaches the client as the error of the SYN it sent, and
 * one from the client side about a reply goes out as the error of the
 * translated reply.
 */
static void
test_icmp_error_nat(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 16);
	uint8_t net[4] = {10, 0, 0, 0};
	struct mod_nat_binding_result nb;
	struct mod_nat_module_stats st;
	struct rule_decision d;
	struct rule_upcall u;
	char xsrc[INET_ADDRSTRLEN];
	uint8_t f[128], *ip = f + 14, *in = f + 42, *tcp = f + 62;
	uint16_t xport;
	uint32_t len;

	(void)state;
	load(eng, "dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\n"
		  "snat to 203.0.113.1 src 10.0.0.0/8\n"
		  "accept\n");
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 8, 2), 0);
	d = decide(eng, tcp4("10.0.0.1", 4000, "198.51.100.1", 80, TCP_SYN), 1);
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	inet_ntop(AF_INET, &nb.fwd.v4.src, xsrc, sizeof(xsrc));
	assert_string_equal(xsrc, "203.0.113.1");
	xport = ntohs(nb.fwd.v4.sport);

	/* From the server's side, about the SYN as it left: 203.0.113.1:p -> 192.168.0.10:8080. */
	len = icmp4_error(f, "192.0.2.99", "203.0.113.1", "203.0.113.1", xport, "192.168.0.10",
		8080);
	u = eng_stack_frame_upcall(f, len);
	d = decide(eng, u, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_RELATED);
	assert_true(d.flags & RULE_DEC_F_ICMP_ERR);
	assert_int_equal(d.nat_slot, nb.reply_slot);
	assert_int_equal(d.out_port, 2); /* the client's route */
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), d.nat_slot, ip, len - 14), 0);
	assert_ip4(ip + 12, "192.0.2.99"); /* the reporting router stays */
	assert_ip4(ip + 16, "10.0.0.1");
	assert_ip4(in + 12, "10.0.0.1");
	assert_ip4(in + 16, "198.51.100.1");
	assert_int_equal(tcp[0] << 8 | tcp[1], 4000);
	assert_int_equal(tcp[2] << 8 | tcp[3], 80);
	assert_icmp4_csums(f);

	/* From the client's side, about a reply as it left: 198.51.100.1:80 -> 10.0.0.1:4000. */
	len = icmp4_error(f, "10.0.0.1", "198.51.100.1", "198.51.100.1", 80, "10.0.0.1", 4000);
	u = eng_stack_frame_upcall(f, len);
	d = decide(eng, u, 3);
	assert_true(d.flags & RULE_DEC_F_ICMP_ERR);
	assert_int_equal(d.nat_slot, nb.fwd_slot);
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), d.nat_slot, ip, len - 14), 0);
	assert_ip4(ip + 12, "203.0.113.1");
	assert_ip4(ip + 16, "192.168.0.10");
	assert_ip4(in + 12, "192.168.0.10");
	assert_ip4(in + 16, "203.0.113.1");
	assert_int_equal(tcp[0] << 8 | tcp[1], 8080);
	assert_int_equal(tcp[2] << 8 | tcp[3], xport);
	assert_icmp4_csums(f);

	/* Not an error of a translated connection: untouched, no slot. */
	len = icmp4_error(f, "192.0.2.99", "10.9.9.9", "10.9.9.9", 1, "10.9.9.8", 2);
	u = eng_stack_frame_upcall(f, len);
	d = decide(eng, u, 4);
	assert_false(d.flags & RULE_DEC_F_ICMP_ERR);
	assert_int_equal(d.nat_slot, RULE_NAT_NONE);
	/* Bad input changes nothing. */
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), nb.fwd_slot, ip, 10), -EINVAL);
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), nb.fwd_slot, ip, len - 20),
		-ENOTSUP);
	f[34] = 8; /* an echo request is no error */
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), nb.fwd_slot, ip, len - 14),
		-EINVAL);
	assert_ip4(in + 12, "10.9.9.9");
	mod_nat_module_stats_get(eng_stack_natm(eng), &st);
	assert_int_equal(st.related_nat, 2);
	eng_stack_free(eng);
}

/*
 * An ICMPv6 error frame: Ethernet, IPv6 @p osrc -> @p odst, type @p type,
 * quoting an IPv6+UDP datagram @p isrc:isport -> @p idst:idport with 4
 * bytes of payload, every checksum valid. Returns the frame length.
 */
static uint32_t
icmp6_error(uint8_t *f, uint8_t type, const char *osrc, const char *odst, const char *isrc,
	uint16_t isport, const char *idst, uint16_t idport)
{
	uint8_t *ip = f + 14, *icmp = ip + 40, *in = icmp + 8, *udp = in + 40;
	uint32_t ilen = 8 + 40 + 12, len = 14 + 40 + ilen;

	memset(f, 0, len);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)ilen);
	ip[6] = 58;
	ip[7] = 64;
	inet_pton(AF_INET6, osrc, ip + 8);
	inet_pton(AF_INET6, odst, ip + 24);
	in[0] = 0x60;
	wr16(in + 4, 12);
	in[6] = 17;
	in[7] = 63;
	inet_pton(AF_INET6, isrc, in + 8);
	inet_pton(AF_INET6, idst, in + 24);
	wr16(udp, isport);
	wr16(udp + 2, idport);
	wr16(udp + 4, 12);
	memcpy(udp + 8, "ping", 4);
	wr16(udp + 6, (uint16_t)~sum6(in, 17, udp, 12));
	icmp[0] = type;
	wr16(icmp + 2, (uint16_t)~sum6(ip, 58, icmp, ilen));
	return len;
}

/* The ICMPv6 checksum (pseudo-header of the outer addresses) and the
 * quoted UDP checksum (its own addresses) of an icmp6_error() frame hold. */
static void
assert_icmp6_csums(const uint8_t *f)
{
	const uint8_t *ip = f + 14, *icmp = ip + 40, *in = icmp + 8, *udp = in + 40;

	assert_int_equal(sum6(ip, 58, icmp, 60), 0xffff);
	assert_int_equal(sum6(in, 17, udp, 12), 0xffff);
}

static void
assert_ip6(const uint8_t *p, const char *text)
{
	uint8_t a[16];

	inet_pton(AF_INET6, text, a);
	assert_memory_equal(p, a, 16);
}

/* IPv6: "packet too big" from the DNAT'd server's side reaches the client
 * as the error of the datagram it sent to the public address. */
static void
test_icmp6_error_nat(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 16);
	struct rule_decision d;
	struct rule_upcall u;
	uint8_t f[160], *ip = f + 14, *in = f + 62, *udp = f + 102;
	uint32_t len;

	(void)state;
	load(eng, "dnat to [2001:db8:1::5]:5353 proto udp dst 2001:db8::1 dport 53\naccept\n");
	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET6;
	inet_pton(AF_INET6, "2001:db8:9::7", u.pkt.key.v6.src);
	inet_pton(AF_INET6, "2001:db8::1", u.pkt.key.v6.dst);
	u.pkt.key.v6.sport = htons(40000);
	u.pkt.key.v6.dport = htons(53);
	u.pkt.key.v6.proto = 17;
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	d = decide(eng, u, 1);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);

	/* The server 2001:db8:1::5 says "packet too big" about its view of it. */
	len = icmp6_error(f, 2, "2001:db8:1::fe", "2001:db8:9::7", "2001:db8:9::7", 40000,
		"2001:db8:1::5", 5353);
	u = eng_stack_frame_upcall(f, len);
	d = decide(eng, u, 2);
	assert_int_equal(d.ctstate, RULE_CT_RELATED);
	assert_true(d.flags & RULE_DEC_F_ICMP_ERR);
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), d.nat_slot, ip, len - 14), 0);
	assert_ip6(ip + 8, "2001:db8:1::fe");
	assert_ip6(ip + 24, "2001:db8:9::7");
	assert_ip6(in + 8, "2001:db8:9::7");
	assert_ip6(in + 24, "2001:db8::1");
	assert_int_equal(udp[0] << 8 | udp[1], 40000);
	assert_int_equal(udp[2] << 8 | udp[3], 53);
	assert_icmp6_csums(f);
	eng_stack_free(eng);
}

static void
test_table_full(void **state)
{
	struct rule_engine *eng = mk_engine(false, false, 4, FC_FULL_REFUSE, 0);
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	load(eng, "drop proto udp dport 9\naccept\n");
	for (uint16_t i = 0; i < 6; i++) {
		d = decide(eng, up4(17, "10.0.0.1", 100 + i, "10.0.0.2", 53, 0, 0), 1);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(!!(d.flags & RULE_DEC_F_CACHED), i < 4);
	}
	/* Refused flows are still decided right, drops included. */
	d = decide(eng, up4(17, "10.0.0.1", 7, "10.0.0.2", 9, 0, 0), 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.flows, 4);
	assert_int_equal(st.table_full, 3);
	assert_int_equal(st.uncached, 3);
	eng_stack_free(eng);
}

static void
test_aging(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 256, FC_FULL_REFUSE, 16);
	struct fc_table_stats ts;
	struct mod_nat_stats ns;
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	load(eng, "snat to 203.0.113.1 src 10.0.0.0/8\naccept\n");
	d = decide(eng, up4(17, "10.0.0.1", 1000, "198.51.100.1", 53, 0, 0), 1000);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 2);
	/* Within the UDP timeout nothing goes. */
	rule_engine_step(eng, 1000 + 29000, 100000);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 2);
	rule_engine_step(eng, 1000 + 31000, 100000);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 0);
	mod_nat_stats_get(eng_stack_nat(eng), &ns);
	assert_int_equal(ns.active, 0);
	rule_engine_step(eng, 1000 + 32000, 16); /* the grace period is over: released */
	mod_nat_stats_get(eng_stack_nat(eng), &ns);
	assert_int_equal(ns.retired, 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.removed, 2);
	eng_stack_free(eng);
}

/*
 * Aging is bounded by table slots examined, free ones included: one step
 * never walks a large, empty stretch of a table (the rules lcore stalled
 * for hundreds of milliseconds on an empty 4M-slot table). An idle flow
 * behind a thousand free slots is not reached by one small step, only by
 * as many steps as the slots need; the old walk (free slots skipped for
 * nothing) aged it in the first step.
 */
static void
test_aging_bounded_walk(void **state)
{
	enum { N = 1000, BUDGET = 128 };
	struct rule_engine *eng = mk_engine(false, false, 65536, FC_FULL_REFUSE, 0);
	struct fc_table *t = rule_engine_table(eng, FC_AF_INET4);
	struct fc_table_stats ts;
	struct rule_engine_stats st, st0;
	struct fc_key k;
	unsigned int steps = 0;
	char src[32];

	(void)state;
	load(eng, "accept\n");
	for (unsigned int i = 0; i <= N; i++) {
		snprintf(src, sizeof(src), "10.0.%u.%u", i >> 8, i & 0xff);
		assert_int_equal(decide(eng, up4(17, src, 1000, "198.51.100.1", 53, 0, 0), 1000)
			.verdict, FC_VERDICT_ACCEPT);
	}
	/* The first N go behind the engine's back (no peers: conntrack is off). */
	for (unsigned int i = 0; i < N; i++) {
		struct rule_upcall u;
		int idx;

		snprintf(src, sizeof(src), "10.0.%u.%u", i >> 8, i & 0xff);
		u = up4(17, src, 1000, "198.51.100.1", 53, 0, 0);
		k = u.pkt.key;
		idx = fc_table_lookup(t, &k.v4, fc_table_hash(t, &k.v4));
		assert_true(idx >= 0);
		assert_int_equal(fc_table_delete(t, (uint32_t)idx), 0);
	}
	fc_table_stats_get(t, &ts);
	assert_int_equal(ts.occupancy, 1);
	rule_engine_stats_get(eng, &st0);
	/* Long idle (the untracked timeout is 30 s), but one step reaches only a few slots. */
	rule_engine_step(eng, 1000 + 31000, BUDGET);
	rule_engine_stats_get(eng, &st);
	assert_true(st.walk_slots - st0.walk_slots <= BUDGET + 3); /* budget / 4 + 1 twice, / 2 + 1 */
	fc_table_stats_get(t, &ts);
	assert_int_equal(ts.occupancy, 1);
	while (ts.occupancy != 0 && steps < 100000) {
		rule_engine_step(eng, 1000 + 31000, BUDGET);
		fc_table_stats_get(t, &ts);
		steps++;
	}
	assert_int_equal(ts.occupancy, 0);
	assert_true(steps >= N / (BUDGET / 4 + 1) - 1);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.aged, 1);
	eng_stack_free(eng);
}

/* Traffic in one direction keeps the whole connection (both entries) alive. */
static void
test_aging_either_direction(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 256, FC_FULL_REFUSE, 0);
	struct rule_upcall o = up4(17, "10.0.0.1", 1000, "198.51.100.1", 53, 0, 0);
	struct rule_upcall r = up4(17, "198.51.100.1", 53, "10.0.0.1", 1000, 0, 0);
	struct fc_table_stats ts;
	struct rule_engine_stats st;
	bool slow;

	(void)state;
	load(eng, "accept\n");
	rx(eng, o, 1000, NULL);
	rx(eng, r, 1000, &slow); /* the first reply: udp_replied (120 s) from now on */
	assert_true(slow);
	/* Only the original side talks on; the reply side stays silent. */
	rx(eng, o, 100000, &slow);
	assert_false(slow);
	rule_engine_step(eng, 1000 + 121000, 100000);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 2); /* the reply entry is idle, the connection is not */
	rule_engine_step(eng, 100000 + 119000, 100000);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 2);
	rule_engine_step(eng, 100000 + 121000, 100000);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.occupancy, 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.aged, 2);
	assert_int_equal(st.removed, 2);
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Insert clash                                                              */
/* ------------------------------------------------------------------------ */

/*
 * REJECT: the decision carries the kind (the family's default filled in),
 * and the flow gets no entry, so each of its packets is decided (and
 * answered) again; a plain drop stays cached.
 */
static void
test_reject(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 1024, FC_FULL_REFUSE, 0);
	struct rule_upcall u = tcp4("10.0.0.1", 1000, "10.0.0.2", 113, 0x02);
	struct rule_decision d;
	bool slow;

	(void)state;
	load(eng, "reject with tcp-reset proto tcp dport 113\n"
		  "reject proto udp dport 53\n"
		  "drop proto udp dport 54\n"
		  "policy accept\n");
	for (unsigned int i = 0; i < 2; i++) {
		d = rx(eng, u, 10 + i, &slow);
		assert_true(slow);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		assert_int_equal(d.drop, RULE_DROP_FILTER);
		assert_int_equal(d.reject, RULE_REJECT_TCP_RESET);
		assert_null(eng_stack_entry(eng, &u.pkt.key));
	}
	u = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53, 0, 0);
	d = decide(eng, u, 20);
	assert_int_equal(d.reject, RULE_REJECT_ICMP_PORT_UNREACHABLE);
	/* DROP: no reply, and cached. */
	u = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54, 0, 0);
	d = decide(eng, u, 30);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.reject, RULE_REJECT_NONE);
	assert_non_null(eng_stack_entry(eng, &u.pkt.key));
	/* Accepted: none. */
	u = up4(17, "10.0.0.1", 1000, "10.0.0.2", 55, 0, 0);
	d = decide(eng, u, 40);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.reject, RULE_REJECT_NONE);
	eng_stack_free(eng);
}

static void
test_ct_clash(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 256, FC_FULL_REFUSE, 16);
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	load(eng, "dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\n"
		  "dnat to 192.168.0.10 proto gre dst 198.51.100.1\naccept\n");
	d = decide(eng, tcp4("10.0.0.1", 4000, "198.51.100.1", 80, TCP_SYN), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	/*
	 * The same client port straight to the real server: its reply tuple is
	 * the translated connection's reply entry. Linux's null binding gives
	 * it another source port (NAT) and it passes, a connection of its own.
	 */
	d = decide(eng, tcp4("10.0.0.1", 4000, "192.168.0.10", 8080, TCP_SYN), 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.drop, RULE_DROP_NONE);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	/*
	 * GRE has no port to change: the clash stays one. Linux drops it
	 * (insert clash); so do we, every time, with its own reason.
	 */
	d = decide(eng, up4(47, "10.0.0.1", 0, "198.51.100.1", 0, 0, 0), 3);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	for (int i = 0; i < 2; i++) {
		d = decide(eng, up4(47, "10.0.0.1", 0, "192.168.0.10", 0, 0, 0), 4);
		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		assert_int_equal(d.drop, RULE_DROP_CT_CLASH);
		assert_int_equal(d.nat_slot, RULE_NAT_NONE);
		assert_false(d.flags & RULE_DEC_F_CACHED);
	}
	assert_string_equal(drop_id(RULE_DROP_CT_CLASH), "ct_clash");
	assert_int_equal(drops_seen[RULE_DROP_CT_CLASH], 2);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.flows, 3);
	/* The translated connection is untouched: the server's reply is ESTABLISHED. */
	d = decide(eng, tcp4("192.168.0.10", 8080, "10.0.0.1", 4000, TCP_SYN | TCP_ACK), 3);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Per-flow channels                                                         */
/* ------------------------------------------------------------------------ */

#define PF_PARENT 5
#define PF_BASE 100000 /* per-flow ids past 16 bits */
#define PF_POOL 2

/* A pool of PF_POOL per-flow ids for channel "pf" (PF_PARENT). */
struct pf_pool {
	bool used[PF_POOL];
	unsigned int allocs, frees;
	int last_freed;
};

static int
pf_chan_fn(void *arg, const char *name)
{
	(void)arg;
	if (strcmp(name, "pf") == 0)
		return PF_PARENT;
	if (strcmp(name, "shared") == 0)
		return 6;
	return -ENOENT;
}

static int
pf_alloc(void *arg, uint16_t channel)
{
	struct pf_pool *p = arg;

	if (channel != PF_PARENT)
		return -ENOTSUP;
	for (int i = 0; i < PF_POOL; i++)
		if (!p->used[i]) {
			p->used[i] = true;
			p->allocs++;
			return PF_BASE + i;
		}
	return -ENOSPC;
}

static int
pf_free(void *arg, uint32_t id)
{
	struct pf_pool *p = arg;

	assert_true(id >= PF_BASE && id < PF_BASE + PF_POOL);
	assert_true(p->used[id - PF_BASE]);
	p->used[id - PF_BASE] = false;
	p->frees++;
	p->last_freed = id;
	return 0;
}

static void
test_perflow_channels(void **state)
{
	struct eng_stack_params p;
	struct pf_pool pool;
	struct rule_engine *eng;
	struct rule_engine_stats st;
	struct rule_decision d;
	const struct fc_entry *fe, *re;
	struct rule_upcall f1 = up4(17, "10.0.0.1", 1, "10.9.0.1", 53, 0, 0);
	struct rule_upcall r1 = up4(17, "10.9.0.1", 53, "10.0.0.1", 1, 0, 0);
	struct rule_upcall t1;
	struct rule_flow_info fi;
	uint32_t fidx, ridx;
	bool slow;

	(void)state;
	memset(&pool, 0, sizeof(pool));
	eng_stack_test_params(&p, 64, 0, true, 0);
	p.eng.full_policy = FC_FULL_EVICT_IDLE;
	p.eng.channel_fn = pf_chan_fn;
	p.eng.chan_flow_alloc_fn = pf_alloc;
	p.eng.cb_arg = &pool;
	p.eng.name = "tepf";
	assert_null(eng_stack_create(&p)); /* alloc without free */
	p.eng.chan_flow_free_fn = pf_free;
	eng = eng_stack_test_create(&p, "tepf");
	load(eng, "accept channel pf proto udp\naccept channel shared proto tcp\n");

	/* Flow 1 gets a ring of its own; the reply entry shares it. */
	d = decide(eng, f1, 1000);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.channel, PF_BASE);
	fe = eng_stack_entry_idx(eng, &f1.pkt.key, &fidx);
	re = eng_stack_entry_idx(eng, &r1.pkt.key, &ridx);
	assert_non_null(fe);
	assert_non_null(re);
	/* The entries keep the parent; their slots name the ring. */
	assert_int_equal(fe->act.channel, PF_PARENT);
	assert_int_equal(re->act.channel, PF_PARENT);
	assert_int_equal(rule_engine_channel(eng, &fe->act, 0, fidx), PF_BASE);
	assert_int_equal(rule_engine_channel(eng, &re->act, 0, ridx), PF_BASE);
	assert_int_equal(rule_engine_flow_lookup(eng, &f1.pkt.key, &fi), 0);
	assert_int_equal(fi.channel, PF_BASE);
	d = rx(eng, r1, 1000, &slow);
	assert_int_equal(d.channel, PF_BASE);
	d = rx(eng, f1, 1000, &slow);
	assert_false(slow);
	assert_int_equal(d.channel, PF_BASE);
	/* A channel not marked per-flow is shared. */
	t1 = tcp4("10.0.0.1", 2, "10.9.0.1", 80, TCP_SYN);
	d = decide(eng, t1, 1000);
	assert_int_equal(d.channel, 6);
	fe = eng_stack_entry_idx(eng, &t1.pkt.key, &fidx);
	assert_non_null(fe);
	assert_int_equal(rule_engine_channel(eng, &fe->act, 0, fidx), 6);
	/* Flow 2 takes the last ring; flow 3 finds the pool empty: the parent, counted. */
	d = decide(eng, up4(17, "10.0.0.2", 1, "10.9.0.1", 53, 0, 0), 50000);
	assert_int_equal(d.channel, PF_BASE + 1);
	d = decide(eng, up4(17, "10.0.0.3", 1, "10.9.0.1", 53, 0, 0), 50000);
	assert_int_equal(d.channel, PF_PARENT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.chan_flows, 2);
	assert_int_equal(st.chan_flow_fallback, 1);

	/* A commit that keeps the rule keeps the flow on its own ring (revalidation). */
	load(eng, "accept channel pf proto udp\naccept channel shared proto tcp\naccept\n");
	d = rx(eng, up4(17, "10.0.0.2", 1, "10.9.0.1", 53, 0, 0), 50000, &slow);
	assert_int_equal(d.channel, PF_BASE + 1);
	/* A commit that names another channel moves the flow off its ring
	 * (kept until the flow goes: returned with it). */
	load(eng, "accept channel shared proto udp src 10.0.0.2\n"
		  "accept channel pf proto udp\naccept channel shared proto tcp\naccept\n");
	d = rx(eng, up4(17, "10.0.0.2", 1, "10.9.0.1", 53, 0, 0), 50000, &slow);
	assert_int_equal(d.channel, 6);
	d = rx(eng, up4(17, "10.0.0.2", 1, "10.9.0.1", 53, 0, 0), 50000, &slow);
	assert_false(slow);
	assert_int_equal(d.channel, 6);
	assert_true(pool.used[1]);

	/*
	 * Flow 1 ages out (120 s after its reply), flow 2 too (unreplied, 30 s):
	 * their rings come back, but only after a grace period.
	 */
	rule_engine_step(eng, 1000 + 121000, 100000);
	assert_null(eng_stack_entry(eng, &f1.pkt.key));
	assert_null(eng_stack_entry(eng, &r1.pkt.key));
	assert_int_equal(pool.frees, 0);
	assert_true(pool.used[0] && pool.used[1]);
	rule_engine_step(eng, 1000 + 121001, 16);
	assert_int_equal(pool.frees, 2);
	assert_false(pool.used[0] || pool.used[1]);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.chan_flow_freed, 2);
	/* The ring serves the next flow. */
	d = decide(eng, up4(17, "10.0.0.4", 1, "10.9.0.1", 53, 0, 0), 122002);
	assert_int_equal(d.channel, PF_BASE);
	/* Flush returns every ring (after the grace period). */
	rule_engine_flush(eng);
	rule_engine_step(eng, 122003, 16);
	assert_int_equal(pool.frees, pool.allocs);
	assert_false(pool.used[0] || pool.used[1]);
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Modules                                                                   */
/* ------------------------------------------------------------------------ */

struct spy {
	char log[256];
	unsigned int inserts, packets, removes;
	struct rule_flow_gone gone; /* the last on_remove */
	uint16_t port_seen;
	uint32_t rule_seen;
};

static int
spy_insert(void *priv, struct rule_flow *f)
{
	struct spy *s = priv;

	s->inserts++;
	s->port_seen = f->act[RULE_DIR_ORIG].out_port; /* route ran before */
	s->rule_seen = f->act[RULE_DIR_ORIG].rule_id;  /* filter did not yet */
	f->act[RULE_DIR_ORIG].interest |= FC_INTEREST_ALL;
	strcat(s->log, "spy ");
	return 0;
}

static int
spy_packet(void *priv, struct rule_flow *f)
{
	struct spy *s = priv;

	(void)f;
	s->packets++;
	return 0;
}

static void
spy_remove(void *priv, const struct rule_flow_gone *g)
{
	struct spy *s = priv;

	s->gone = *g;
	s->removes++;
}

static int
late_insert(void *priv, struct rule_flow *f)
{
	struct spy *s = priv;

	(void)f;
	strcat(s->log, "late ");
	return 0;
}

static void
test_modules(void **state)
{
	struct rule_engine *eng = mk_engine(false, false, 64, FC_FULL_REFUSE, 0);
	struct spy s;
	struct rule_module m = {.name = "spy", .order = RULE_MOD_ORDER_ROUTE + 50,
		.on_insert = spy_insert, .on_packet = spy_packet, .on_remove = spy_remove,
		.priv = &s};
	struct rule_module late = {.name = "late", .order = RULE_MOD_ORDER_CHANNEL + 1,
		.on_insert = late_insert, .priv = &s};
	struct rule_upcall u = up4(17, "10.0.0.1", 1, "10.0.0.2", 2, 0, 0);
	struct rule_upcall other = up4(17, "10.0.0.3", 1, "10.0.0.2", 2, 0, 0);
	uint8_t net[4] = {10, 0, 0, 0};
	struct rule_decision d;
	bool slow;

	(void)state;
	memset(&s, 0, sizeof(s));
	/* Registered in the wrong order on purpose: order numbers decide. */
	assert_int_equal(rule_engine_module_register(eng, &late), 0);
	assert_int_equal(rule_engine_module_register(eng, &m), 0);
	assert_int_equal(rule_engine_module_register(eng, &m), -EEXIST);
	assert_int_equal(rule_engine_module_register(eng, NULL), -EINVAL);
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 8, 6), 0);
	load(eng, "accept proto udp\n");

	d = rx(eng, u, 1, &slow);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_string_equal(s.log, "spy late ");
	assert_int_equal(s.port_seen, 6);
	assert_int_equal(s.rule_seen, RULE_ID_NONE);
	assert_int_equal(s.inserts, 1);
	/* Its interest: every packet of the flow comes back to the slow path. */
	for (int i = 0; i < 3; i++) {
		d = rx(eng, u, 2, &slow);
		assert_true(slow);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	}
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.inserts, 1);
	rule_engine_flush(eng);
	assert_int_equal(s.removes, 1);
	/* What on_remove is told: why, the entry's times and counters, no peer. */
	assert_int_equal(s.gone.why, RULE_GONE_FLUSHED);
	assert_int_equal(s.gone.created, 1);
	assert_int_equal(s.gone.last_seen, 2);
	assert_int_equal(s.gone.packets, 4);
	assert_int_equal(s.gone.peer_key.family, 0);
	assert_int_equal(fc_key_sport(&s.gone.key), htons(1));
	(void)other;
	eng_stack_free(eng);
}

/* A module that fills the action's reserved fields (ext is the flow's mark: the engine's). */
static int
reserved_insert(void *priv, struct rule_flow *f)
{
	(void)priv;
	for (unsigned int d = 0; d < 2; d++) {
		f->act[d].adj = (uint16_t)(90 + d);
		f->act[d].pkt_class = (uint16_t)(30 + d);
	}
	return 0;
}

static void
check_reserved(struct rule_engine *eng, const struct rule_upcall *u, unsigned int d)
{
	const struct fc_entry *e = eng_stack_entry(eng, &u->pkt.key);

	assert_non_null(e);
	assert_int_equal(e->act.ext, 0); /* no rule marks these flows */
	assert_int_equal(e->act.adj, 90 + d);
	assert_int_equal(e->act.pkt_class, 30 + d);
}

/*
 * fc_action's reserved fields (adj, pkt_class): zero unless a module
 * sets them; what it sets is cached in both entries and kept by the
 * engine's rewrites: conntrack's on_packet stores, a revalidation after a
 * commit, a route change.
 */
static void
test_reserved_fields(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 64, FC_FULL_REFUSE, 0);
	struct rule_module m = {.name = "reserved", .order = RULE_MOD_ORDER_ROUTE + 10,
		.on_insert = reserved_insert};
	struct rule_upcall plain = up4(17, "10.0.0.9", 9, "10.0.0.2", 53, 0, 0);
	struct rule_upcall u = up4(17, "10.0.0.1", 1, "10.0.0.2", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.0.0.2", 53, "10.0.0.1", 1, 0, 0);
	uint8_t net[4] = {10, 0, 0, 0};
	const struct fc_entry *e;
	struct rule_set *s;

	(void)state;
	load(eng, stateful_rules);
	rx(eng, plain, 1, NULL);
	e = eng_stack_entry(eng, &plain.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.ext, 0);
	assert_int_equal(e->act.adj, 0);
	assert_int_equal(e->act.pkt_class, 0);

	assert_int_equal(rule_engine_module_register(eng, &m), 0);
	rx(eng, u, 1, NULL);
	check_reserved(eng, &u, 0);
	check_reserved(eng, &r, 1);
	/* The first reply: conntrack stores both entries (replied). */
	assert_int_equal(rx(eng, r, 2, NULL).verdict, FC_VERDICT_ACCEPT);
	check_reserved(eng, &u, 0);
	check_reserved(eng, &r, 1);
	/* A commit that may change them: revalidated in the background. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_set_rule_del_id(s, 3), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	for (int i = 0; i < 8; i++)
		rule_engine_step(eng, 3, 64);
	assert_int_equal(eng_stack_entry(eng, &u.pkt.key)->act.gen, rule_engine_generation(eng));
	check_reserved(eng, &u, 0);
	check_reserved(eng, &r, 1);
	/* A route change rewrites the output ports. */
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 8, 6), 0);
	walk_routes(eng);
	assert_int_equal(eng_stack_entry(eng, &u.pkt.key)->act.out_port, 6);
	check_reserved(eng, &u, 0);
	check_reserved(eng, &r, 1);
	eng_stack_free(eng);
}

/* ------------------------------------------------------------------------ */
/* Counters and listing                                                      */
/* ------------------------------------------------------------------------ */

static void
test_rule_counters(void **state)
{
	struct rule_engine *eng = mk_engine(true, false, 64, FC_FULL_REFUSE, 0);
	struct rule_upcall u = up4(17, "10.0.0.1", 1, "10.0.0.2", 53, 0, 0);
	struct rule_upcall r = up4(17, "10.0.0.2", 53, "10.0.0.1", 1, 0, 0);
	struct rule_flow_info info;
	struct rule match;
	uint64_t it = 0, p, b;
	char buf[512];
	int n = 0;

	(void)state;
	load(eng, "accept ctstate established\naccept proto udp dport 53\ndrop\n");
	rx(eng, u, 1, NULL);                 /* slow: NEW, rule 2 */
	rx(eng, u, 1, NULL);                 /* fast */
	rx(eng, r, 1, NULL);                 /* slow (first reply), rule 1 */
	rx(eng, r, 1, NULL);                 /* fast */
	rx(eng, r, 1, NULL);                 /* fast */
	decide(eng, up4(6, "10.0.0.1", 1, "10.0.0.2", 22, 0, TCP_ACK | TCP_SYN), 1); /* invalid */
	assert_int_equal(rule_engine_rule_counters(eng, 2, &p, &b), 0);
	assert_int_equal(p, 2);
	assert_int_equal(b, 200);
	assert_int_equal(rule_engine_rule_counters(eng, 1, &p, &b), 0);
	assert_int_equal(p, 3);
	assert_int_equal(rule_engine_rule_counters(eng, 3, &p, &b), 0);
	assert_int_equal(p, 1);
	/* The snapshot says the same for every rule, in one walk. */
	{
		struct rule_counters_snap *snap = rule_engine_counters_snap(eng);
		uint64_t sp, sb;

		assert_non_null(snap);
		for (uint32_t id = 1; id <= 4; id++) {
			assert_int_equal(rule_engine_rule_counters(eng, id, &p, &b), 0);
			assert_int_equal(rule_counters_snap_get(snap, id, &sp, &sb), 0);
			assert_int_equal(sp, p);
			assert_int_equal(sb, b);
		}
		assert_int_equal(rule_engine_rule_counters(eng, RULE_ID_POLICY, &p, &b), 0);
		assert_int_equal(rule_counters_snap_get(snap, RULE_ID_POLICY, &sp, &sb), 0);
		assert_int_equal(sp, p);
		assert_int_equal(rule_counters_snap_get(snap, 999999, &sp, &sb), 0);
		assert_int_equal(sp, 0);
		assert_int_equal(rule_counters_snap_get(snap, RULE_ID_NONE, &sp, &sb), -EINVAL);
		rule_counters_snap_free(snap);
		assert_null(rule_engine_counters_snap(NULL));
		rule_counters_snap_free(NULL);
	}
	/* Entries gone keep counting for their rules. */
	rule_engine_flush(eng);
	assert_int_equal(rule_engine_rule_counters(eng, 1, &p, &b), 0);
	assert_int_equal(p, 3);
	assert_int_equal(rule_engine_rule_counters(eng, 2, &p, &b), 0);
	assert_int_equal(p, 2);

	/* Listing with a filter. */
	rx(eng, u, 1, NULL);
	rx(eng, up4(17, "10.0.0.5", 1, "10.0.0.2", 53, 0, 0), 1, NULL);
	rule_init(&match);
	match.family = FC_AF_INET4;
	match.match = RULE_M_SRC;
	inet_pton(AF_INET, "10.0.0.5", match.src.addr);
	match.src.len = 32;
	while (rule_engine_flow_next(eng, &it, &match, &info) == 0) {
		assert_true(rule_engine_flow_format(eng, &info, buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, "10.0.0.5:1 -> 10.0.0.2:53"));
		assert_non_null(strstr(buf, "ct=OPEN"));
		n++;
	}
	assert_int_equal(n, 1);
	it = 0;
	n = 0;
	while (rule_engine_flow_next(eng, &it, NULL, &info) == 0)
		n++;
	assert_int_equal(n, 4);
	eng_stack_free(eng);
}

static void
test_bad_args(void **state)
{
	struct rule_engine_params p;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_null(rule_engine_create(NULL));
	assert_null(rule_engine_create(&p));
	p.name = "this-name-is-far-too-long";
	p.capacity_v4 = 8;
	assert_null(rule_engine_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	p.name = "x";
	p.capacity_v4 = 0;
	assert_null(rule_engine_create(&p));
	assert_int_equal(rule_engine_commit(NULL, NULL), -EINVAL);
	assert_string_equal(drop_id(RULE_DROP_FILTER), "filter");
	assert_string_equal(drop_id(RULE_DROP_ERROR), "engine_error");
	assert_string_equal(drop_id(999), "?");
	assert_string_equal(rule_upcall_name(RULE_UPCALL_STALE), "stale");
	rule_engine_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_handshake),
		cmocka_unit_test(test_stray_ack),
		cmocka_unit_test(test_nat),
		cmocka_unit_test(test_nat_port_only),
		cmocka_unit_test(test_nat_exhausted),
		cmocka_unit_test(test_route_channel),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_icmp_error_nat),
		cmocka_unit_test(test_icmp6_error_nat),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_aging),
		cmocka_unit_test(test_aging_either_direction),
		cmocka_unit_test(test_aging_bounded_walk),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_ct_clash),
		cmocka_unit_test(test_perflow_channels),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_reserved_fields),
		cmocka_unit_test(test_rule_counters),
		cmocka_unit_test(test_bad_args),
	};

	if (gufc_test_eal_init("engine", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
