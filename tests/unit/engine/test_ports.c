/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of input ports in the rules engine (engine.h "Input ports"),
 * on the engine with the app's modules (tests/unit/common/eng_stack.c):
 * the reply entry's key has the port its replies are expected on (paired,
 * routed, local); the first reply on another port moves it there, peers
 * relinked and modules told (on_move); later packets of the connection on
 * a port its entries lack are decided as the connection's, uncached and
 * counted; a flow seen on two ports without a connection is two flows; a
 * new connection clashes with its reply tuple held on another port and
 * replaces the cached drops of its tuples on other ports; ICMP errors find
 * the connection they quote on any port; the port-agnostic lookup; the
 * first reply refilters the entries whose walk it changes, and only those.
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

#define TCP_SYN 0x02
#define TCP_ACK 0x10

/* Ports 0<->1, 2<->3 are pairs; 4 is alone (its own pair); others do not exist. */
static int
pair_fn(void *arg, uint16_t port)
{
	(void)arg;
	if (port > 4)
		return -ENOENT;
	return port == 4 ? 4 : port ^ 1;
}

/* Routes for -m rpfilter: 10.1/16 on port 0, 10.2/16 and 0.0.0.0 on port 1, nothing else. */
static uint16_t
route_fn(void *arg, uint8_t family, const uint8_t *addr)
{
	(void)arg;
	if (family == FC_AF_INET4 && (addr[0] | addr[1] | addr[2] | addr[3]) == 0)
		return 1;
	if (family != FC_AF_INET4 || addr[0] != 10 || addr[1] < 1 || addr[1] > 2)
		return RULE_PORT_PAIRED;
	return addr[1] - 1;
}

static bool with_routes;

/* on_move calls, as a module sees them. */
static struct rule_flow_moved moves[8];
static unsigned int n_moves;

static void
count_move(void *priv, const struct rule_flow_moved *mv)
{
	(void)priv;
	if (n_moves < 8)
		moves[n_moves] = *mv;
	n_moves++;
}

static struct rule_engine *
mk_engine_ct(const char *rules, bool ct)
{
	static const struct rule_module watcher = {
		.name = "watcher", .order = 900, .on_move = count_move};
	struct eng_stack_params p;
	struct rule_engine *eng;

	eng_stack_test_params(&p, 256, 64, ct, 16);
	p.eng.port_pair_fn = pair_fn;
	p.eng.route_fn = with_routes ? route_fn : NULL;
	eng = eng_stack_test_create(&p, "tp");
	assert_int_equal(rule_engine_module_register(eng, &watcher), 0);
	n_moves = 0;
	eng_stack_load(eng, rules, false);
	return eng;
}

static struct rule_engine *
mk_engine(const char *rules)
{
	return mk_engine_ct(rules, true);
}

static struct rule_upcall
pkt4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t tcp_flags, uint16_t port)
{
	struct rule_upcall u = eng_stack_up4(proto, src, sport, dst, dport, port);

	u.pkt.tcp_flags = tcp_flags;
	return u;
}

static struct rule_upcall
tcp4(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint8_t tf, uint16_t port)
{
	return pkt4(6, src, sport, dst, dport, tf, port);
}

/* The entry index of @p u's key with input port @p port, or -1. */
static int
idx_on(struct rule_engine *eng, const struct rule_upcall *u, uint16_t port)
{
	struct fc_table *t = rule_engine_table(eng, FC_AF_INET4);
	struct fc_key k = u->pkt.key;

	fc_key_set_in_port(&k, port);
	return fc_table_lookup(t, &k.v4, fc_table_hash(t, &k.v4));
}

/* Is @p u a hit the RX lcore decides alone (cached, not interesting)? */
static bool
fast(struct rule_engine *eng, const struct rule_upcall *u)
{
	struct fc_table *t = rule_engine_table(eng, FC_AF_INET4);
	int i = fc_table_lookup(t, &u->pkt.key.v4, fc_table_hash(t, &u->pkt.key.v4));
	const struct fc_entry *e = i >= 0 ? fc_table_entry(t, (uint32_t)i) : NULL;

	return e != NULL && !rule_engine_wants(&e->act, &u->pkt) &&
	       !rule_engine_stale(eng, &e->act, &u->pkt.key) && e->act.verdict != FC_VERDICT_SLOW;
}

static const char *stateful = "accept ctstate established,related\n"
			      "accept proto tcp dport 80 ctstate new\n"
			      "accept proto udp dport 53 ctstate new\n"
			      "policy drop\n";

/* ------------------------------------------------------------------------ */

/*
 * The port a connection's replies are expected on: paired, routed, local;
 * a route to a port that is none leaves, like the datapath sends it, by the
 * input port's pair.
 */
static void
test_reply_port(void **state)
{
	struct rule_engine *eng = mk_engine(stateful);
	struct rule_upcall a = tcp4("10.0.0.1", 1000, "10.9.0.1", 80, TCP_SYN, 2);
	struct rule_upcall b = tcp4("10.0.0.1", 1001, "10.9.0.1", 80, TCP_SYN, 4);
	struct rule_upcall c = tcp4("10.0.0.1", 1002, "10.8.0.1", 80, TCP_SYN, 0);
	struct rule_upcall e = tcp4("10.0.0.1", 1003, "10.7.0.1", 80, TCP_SYN, 2);
	struct rule_upcall ra = tcp4("10.9.0.1", 80, "10.0.0.1", 1000, TCP_SYN | TCP_ACK, 0);
	struct rule_upcall rb = tcp4("10.9.0.1", 80, "10.0.0.1", 1001, TCP_SYN | TCP_ACK, 0);
	struct rule_upcall rc = tcp4("10.8.0.1", 80, "10.0.0.1", 1002, TCP_SYN | TCP_ACK, 0);
	struct rule_upcall re = tcp4("10.7.0.1", 80, "10.0.0.1", 1003, TCP_SYN | TCP_ACK, 0);
	uint8_t net[4] = {10, 8, 0, 0}, none[4] = {10, 7, 0, 0};
	struct rule_flow_info fi;

	(void)state;
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, net, 16, 4), 0);
	assert_int_equal(mod_route_add(eng_stack_route(eng), FC_AF_INET4, none, 16, 7), 0);
	assert_int_equal(eng_stack_decide(eng, a, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, b, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, c, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, e, 1).out_port, 7);
	assert_true(idx_on(eng, &a, 2) >= 0);
	assert_true(idx_on(eng, &ra, 3) >= 0); /* 2's pair */
	assert_true(idx_on(eng, &rb, 4) >= 0); /* 4 is its own pair */
	assert_true(idx_on(eng, &rc, 4) >= 0); /* the route's port */
	assert_true(idx_on(eng, &re, 3) >= 0); /* no port 7: 2's pair */
	assert_true(idx_on(eng, &ra, 2) < 0);
	assert_true(idx_on(eng, &rb, 5) < 0);

	assert_int_equal(rule_engine_out_port(eng, RULE_PORT_PAIRED, 0), 1);
	assert_int_equal(rule_engine_out_port(eng, RULE_PORT_PAIRED, 9), 9); /* no such port */
	assert_int_equal(rule_engine_out_port(eng, RULE_PORT_LOCAL, 3), 3);
	assert_int_equal(rule_engine_out_port(eng, 4, 0), 4);
	assert_int_equal(rule_engine_out_port(eng, 12, 3), 2); /* no such port */

	/* The port-agnostic lookup finds the tuple on its port, the port of the key first. */
	assert_int_equal(rule_engine_flow_lookup(eng, &ra.pkt.key, &fi), -ENOENT);
	assert_int_equal(rule_engine_flow_lookup_any(eng, &ra.pkt.key, &fi), 0);
	assert_int_equal(fc_key_in_port(&fi.key), 3);
	assert_true(fi.act.flags & FC_ACT_F_REPLY);
	assert_int_equal(fi.peer, (uint32_t)idx_on(eng, &a, 2));
	assert_int_equal(rule_engine_flow_lookup_any(eng, &a.pkt.key, NULL), 0);
	a.pkt.key.v4.dport = htons(81);
	assert_int_equal(rule_engine_flow_lookup_any(eng, &a.pkt.key, NULL), -ENOENT);
	eng_stack_free(eng);
}

/*
 * Both directions replayed on one port (a capture), forwarding to another:
 * the first reply moves the reply entry to the port it came on, once; the
 * connection goes on from the cache.
 */
static void
test_reply_moves(void **state)
{
	struct rule_engine *eng = mk_engine(stateful);
	struct rule_upcall syn = tcp4("10.0.0.1", 1000, "10.9.0.1", 80, TCP_SYN, 0);
	struct rule_upcall sa = tcp4("10.9.0.1", 80, "10.0.0.1", 1000, TCP_SYN | TCP_ACK, 0);
	struct rule_upcall ack = tcp4("10.0.0.1", 1000, "10.9.0.1", 80, TCP_ACK, 0);
	struct rule_upcall data = tcp4("10.9.0.1", 80, "10.0.0.1", 1000, TCP_ACK, 0);
	struct rule_engine_stats st;
	struct rule_flow_info fi;
	struct rule_decision d;
	int fwd, old, rep;

	(void)state;
	d = eng_stack_decide(eng, syn, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.out_port, RULE_PORT_PAIRED);
	fwd = idx_on(eng, &syn, 0);
	old = idx_on(eng, &sa, 1);
	assert_true(fwd >= 0 && old >= 0);
	assert_true(idx_on(eng, &sa, 0) < 0);

	d = eng_stack_decide(eng, sa, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	assert_true(d.flags & RULE_DEC_F_CACHED);
	rep = idx_on(eng, &sa, 0);
	assert_true(rep >= 0);
	assert_true(idx_on(eng, &sa, 1) < 0);
	/* Linked both ways; the reply entry kept its action and counted the packet. */
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)fwd, &fi), 0);
	assert_int_equal(fi.peer, (uint32_t)rep);
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)rep, &fi), 0);
	assert_int_equal(fi.peer, (uint32_t)fwd);
	assert_true(fi.act.flags & FC_ACT_F_REPLY);
	assert_int_equal(fi.packets, 1);
	/* Modules were told, not told it went. */
	assert_int_equal(n_moves, 1);
	assert_int_equal(moves[0].old_idx, (uint32_t)old);
	assert_int_equal(moves[0].idx, (uint32_t)rep);
	assert_int_equal(fc_key_in_port(&moves[0].old_key), 1);
	assert_int_equal(fc_key_in_port(&moves[0].key), 0);

	assert_int_equal(eng_stack_decide(eng, ack, 3).verdict, FC_VERDICT_ACCEPT);
	assert_true(fast(eng, &ack));
	assert_true(fast(eng, &data));
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.reply_moved, 1);
	assert_int_equal(st.port_mismatch, 0);
	assert_int_equal(st.flows, 1);
	assert_int_equal(st.replies, 1);
	eng_stack_free(eng);
}

/*
 * Replies replayed on the forward port, connection after connection: once
 * 16 first replies in a row (ENG_RHINT_TRUST) came there instead of the
 * pair, new connections' reply entries are keyed there from the start
 * (reply_guessed) and their first replies move nothing; another input
 * port learns nothing from it; a first reply on the pair after all moves
 * its entry there and ends the guessing.
 */
static void
test_reply_guess(void **state)
{
	struct rule_engine *eng = mk_engine(stateful);
	struct rule_engine_stats st;
	struct rule_decision d;
	uint16_t sport;

	(void)state;
	for (sport = 1000; sport < 1016; sport++) {
		struct rule_upcall syn = tcp4("10.0.0.1", sport, "10.9.0.1", 80, TCP_SYN, 0);
		struct rule_upcall sa =
			tcp4("10.9.0.1", 80, "10.0.0.1", sport, TCP_SYN | TCP_ACK, 0);

		assert_int_equal(eng_stack_decide(eng, syn, 1).verdict, FC_VERDICT_ACCEPT);
		assert_true(idx_on(eng, &sa, 1) >= 0);
		assert_true(idx_on(eng, &sa, 0) < 0);
		assert_int_equal(eng_stack_decide(eng, sa, 2).ctstate, RULE_CT_ESTABLISHED);
		assert_true(idx_on(eng, &sa, 0) >= 0);
	}
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.reply_moved, 16);
	assert_int_equal(st.reply_guessed, 0);

	/* The next connection's reply entry is on port 0 at once. */
	struct rule_upcall syn = tcp4("10.0.0.1", 1016, "10.9.0.1", 80, TCP_SYN, 0);
	struct rule_upcall sa = tcp4("10.9.0.1", 80, "10.0.0.1", 1016, TCP_SYN | TCP_ACK, 0);
	struct rule_upcall ack = tcp4("10.0.0.1", 1016, "10.9.0.1", 80, TCP_ACK, 0);

	assert_int_equal(eng_stack_decide(eng, syn, 3).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &sa, 0) >= 0);
	assert_true(idx_on(eng, &sa, 1) < 0);
	d = eng_stack_decide(eng, sa, 4);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	assert_true(d.flags & RULE_DEC_F_CACHED);
	assert_int_equal(eng_stack_decide(eng, ack, 5).verdict, FC_VERDICT_ACCEPT);
	assert_true(fast(eng, &ack));
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.reply_moved, 16);
	assert_int_equal(st.reply_guessed, 1);
	assert_int_equal(n_moves, 16);

	/* A tuple that is its own reverse keeps its reply entry off its forward key. */
	struct rule_upcall self = tcp4("10.0.0.3", 80, "10.0.0.3", 80, TCP_SYN, 0);

	d = eng_stack_decide(eng, self, 5);
	assert_int_equal(d.drop, 0);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &self, 0) >= 0);
	assert_true(idx_on(eng, &self, 1) >= 0);

	/* Port 2's connections still expect their replies on its pair. */
	struct rule_upcall syn2 = tcp4("10.0.0.2", 2000, "10.9.0.1", 80, TCP_SYN, 2);
	struct rule_upcall sa2 = tcp4("10.9.0.1", 80, "10.0.0.2", 2000, TCP_SYN | TCP_ACK, 2);

	assert_int_equal(eng_stack_decide(eng, syn2, 6).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &sa2, 3) >= 0);
	assert_true(idx_on(eng, &sa2, 2) < 0);

	/* A first reply on the pair after all: its entry moves there; no more guesses. */
	syn = tcp4("10.0.0.1", 1017, "10.9.0.1", 80, TCP_SYN, 0);
	sa = tcp4("10.9.0.1", 80, "10.0.0.1", 1017, TCP_SYN | TCP_ACK, 1);
	assert_int_equal(eng_stack_decide(eng, syn, 7).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &sa, 0) >= 0);
	assert_int_equal(eng_stack_decide(eng, sa, 8).ctstate, RULE_CT_ESTABLISHED);
	assert_true(idx_on(eng, &sa, 1) >= 0);
	assert_true(idx_on(eng, &sa, 0) < 0);
	syn = tcp4("10.0.0.1", 1018, "10.9.0.1", 80, TCP_SYN, 0);
	sa = tcp4("10.9.0.1", 80, "10.0.0.1", 1018, TCP_SYN | TCP_ACK, 0);
	assert_int_equal(eng_stack_decide(eng, syn, 9).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &sa, 1) >= 0);
	assert_true(idx_on(eng, &sa, 0) < 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.reply_moved, 17);
	assert_int_equal(st.reply_guessed, 2);
	assert_int_equal(st.port_mismatch, 0);
	eng_stack_free(eng);
}

/*
 * Packets of a connection on a port its entries lack, once the reply entry
 * has had a reply: decided as the connection's (ESTABLISHED, its NAT),
 * uncached, counted; no entry, no clash.
 */
static void
test_port_mismatch(void **state)
{
	struct rule_engine *eng =
		mk_engine("dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\n"
			  "accept ctstate established,related\n"
			  "accept proto tcp dport 8080 ctstate new\n"
			  "policy drop\n");
	struct rule_upcall syn = tcp4("10.0.0.1", 1000, "198.51.100.1", 80, TCP_SYN, 0);
	struct rule_upcall sa = tcp4("192.168.0.10", 8080, "10.0.0.1", 1000, TCP_SYN | TCP_ACK, 1);
	struct rule_upcall ack = tcp4("10.0.0.1", 1000, "198.51.100.1", 80, TCP_ACK, 2);
	struct rule_upcall data = tcp4("192.168.0.10", 8080, "10.0.0.1", 1000, TCP_ACK, 3);
	struct rule_engine_stats st;
	struct rule_decision d, d0;

	(void)state;
	d0 = eng_stack_decide(eng, syn, 1);
	assert_int_equal(d0.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d0.nat_slot, RULE_NAT_NONE);
	/* The reply on the port expected (0's pair): no move. */
	d = eng_stack_decide(eng, sa, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_true(d.flags & RULE_DEC_F_CACHED);

	/* A forward packet on port 2: the connection's, translated, not cached. */
	for (int i = 0; i < 2; i++) {
		d = eng_stack_decide(eng, ack, 3);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
		assert_int_equal(d.nat_slot, d0.nat_slot);
		assert_false(d.flags & RULE_DEC_F_CACHED);
		assert_true(idx_on(eng, &ack, 2) < 0);
	}
	/* A reply on port 3 once a reply came: the same. */
	d = eng_stack_decide(eng, data, 4);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_false(d.flags & RULE_DEC_F_CACHED);
	assert_true(idx_on(eng, &data, 3) < 0);
	assert_true(idx_on(eng, &data, 1) >= 0);

	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.port_mismatch, 3);
	assert_int_equal(st.reply_moved, 0);
	assert_int_equal(st.flows, 1);
	assert_int_equal(n_moves, 0);
	eng_stack_free(eng);
}

/* Without a connection (no tracker: no reply entry) a flow on two ports is two flows. */
static void
test_two_flows(void **state)
{
	struct rule_engine *eng = mk_engine_ct("accept\n", false);
	struct rule_upcall g0 = pkt4(47, "10.0.0.1", 0, "10.0.0.2", 0, 0, 0);
	struct rule_upcall g1 = pkt4(47, "10.0.0.1", 0, "10.0.0.2", 0, 0, 1);
	struct rule_engine_stats st;

	(void)state;
	assert_int_equal(eng_stack_decide(eng, g0, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, g1, 1).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &g0, 0) >= 0);
	assert_true(idx_on(eng, &g1, 1) >= 0);
	assert_true(fast(eng, &g0) && fast(eng, &g1));
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.flows, 2);
	assert_int_equal(st.port_mismatch, 0);
	eng_stack_free(eng);
}

/*
 * A new connection's claim on its tuples on every port: its reply tuple
 * held on another port is taken (conntrack tuples have no interface): NAT
 * remaps its source port, or, with no port to change (GRE), it is a clash
 * (Linux's insert clash); cached drops of its tuples on other ports go.
 */
static void
test_claim(void **state)
{
	struct rule_engine *eng =
		mk_engine("dnat to 192.168.0.10:8080 proto tcp dst 198.51.100.1 dport 80\n"
			  "dnat to 192.168.0.10 proto gre dst 198.51.100.1\n"
			  "accept ctstate established,related\n"
			  "accept proto tcp ctstate new\n"
			  "accept proto gre ctstate new\n"
			  "accept proto udp dport 53 ctstate new\n"
			  "policy drop\n");
	struct rule_upcall syn = tcp4("10.0.0.1", 4000, "198.51.100.1", 80, TCP_SYN, 0);
	struct rule_upcall direct = tcp4("10.0.0.1", 4000, "192.168.0.10", 8080, TCP_SYN, 2);
	struct rule_upcall gre = pkt4(47, "10.0.0.1", 0, "198.51.100.1", 0, 0, 0);
	struct rule_upcall gre_direct = pkt4(47, "10.0.0.1", 0, "192.168.0.10", 0, 0, 2);
	struct rule_upcall stray = pkt4(17, "10.0.0.9", 53, "10.0.0.8", 5000, 0, 2);
	struct rule_upcall query = pkt4(17, "10.0.0.8", 5000, "10.0.0.9", 53, 0, 0);
	struct rule_engine_stats st;
	struct rule_decision d;

	(void)state;
	assert_int_equal(eng_stack_decide(eng, syn, 1).verdict, FC_VERDICT_ACCEPT);
	/* Straight to the real server on another port: the reply tuple is taken ... */
	d = eng_stack_decide(eng, direct, 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE); /* ... its source port remapped */
	assert_true(idx_on(eng, &direct, 2) >= 0);
	/* GRE: nothing to remap, a clash. */
	assert_int_equal(eng_stack_decide(eng, gre, 20).verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng, gre_direct, 21);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_CT_CLASH);
	assert_true(idx_on(eng, &gre_direct, 2) < 0);

	/* A stray answer on port 2, dropped and cached as a new flow's drop ... */
	d = eng_stack_decide(eng, stray, 3);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_true(d.flags & RULE_DEC_F_CACHED);
	assert_true(idx_on(eng, &stray, 2) >= 0);
	/* ... goes when the query makes the connection (its reply expected on port 1) ... */
	assert_int_equal(eng_stack_decide(eng, query, 4).verdict, FC_VERDICT_ACCEPT);
	assert_true(idx_on(eng, &stray, 2) < 0);
	assert_true(idx_on(eng, &stray, 1) >= 0);
	/* ... and the answer on port 2 is the connection's: its reply entry moves there. */
	d = eng_stack_decide(eng, stray, 5);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	assert_true(idx_on(eng, &stray, 2) >= 0);
	assert_true(idx_on(eng, &stray, 1) < 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.reply_moved, 1);
	assert_int_equal(st.flows, 4);
	eng_stack_free(eng);
}

/* A connection's SYN and first reply (port @p rport) through @p eng; its entries' actions after. */
static void
first_reply(struct rule_engine *eng, uint16_t rport, struct fc_action *fwd_before,
	struct fc_action *fwd, struct fc_action *rep_before, struct fc_action *rep)
{
	struct rule_upcall syn = tcp4("10.0.0.1", 1000, "10.9.0.1", 80, TCP_SYN, 0);
	struct rule_upcall sa = tcp4("10.9.0.1", 80, "10.0.0.1", 1000, TCP_SYN | TCP_ACK, rport);
	struct rule_flow_info fi;

	assert_int_equal(eng_stack_decide(eng, syn, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)idx_on(eng, &syn, 0), &fi),
		0);
	*fwd_before = fi.act;
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)idx_on(eng, &sa, 1), &fi),
		0);
	*rep_before = fi.act;
	(void)eng_stack_decide(eng, sa, 2);
	assert_int_equal(rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)idx_on(eng, &syn, 0), &fi),
		0);
	*fwd = fi.act;
	assert_true(idx_on(eng, &sa, rport) >= 0);
	assert_int_equal(
		rule_engine_flow_get(eng, FC_AF_INET4, (uint32_t)idx_on(eng, &sa, rport), &fi), 0);
	*rep = fi.act;
}

static uint64_t
kept(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st.refilter_kept;
}

/*
 * The first reply turns the original direction's ctstate `established`:
 * its entry, decided so at the SYN already (engine_synack.c), keeps its
 * action where its walk reads nothing that moved, and so does the reply entry, whose ctstate stays `established` and whose
 * walk reads nothing else that moved, keeps its action (refilter_kept) —
 * the same action a refilter gives it in the same set with a rule that
 * reads ports (which refilters both, the reply entry having moved), on the
 * port replies were expected on and on the one they came on. Without a
 * classifier (the reference evaluator: the set is not known whole) both
 * are refiltered.
 */
static void
test_first_reply_refilter(void **state)
{
	static const char *ported = "accept ctstate established,related\n"
				    "accept proto tcp dport 80 ctstate new\n"
				    "drop proto udp in p3 dport 7\n"
				    "policy drop\n";
	struct fc_action f0, f1, r0, r1, pf0, pf1, pr0, pr1;

	(void)state;
	for (uint16_t rport = 0; rport < 2; rport++) {
		struct rule_engine *eng = mk_engine(stateful);
		struct rule_engine *ref = mk_engine(ported);

		assert_int_equal(eng_stack_cls_catch_up(eng), 0);
		assert_int_equal(eng_stack_cls_catch_up(ref), 0);
		first_reply(eng, rport, &f0, &f1, &r0, &r1);
		first_reply(ref, rport, &pf0, &pf1, &pr0, &pr1);
		/* The forward entry was decided `established` at the SYN already
		 * (FC_ACT_F_AHEAD, for a first reply the fast path takes): kept too. */
		assert_int_equal(kept(eng), 2);
		assert_int_equal(kept(ref), 0);
		assert_true(f0.flags & FC_ACT_F_AHEAD);
		assert_false(f1.flags & FC_ACT_F_AHEAD);
		assert_int_equal(f0.rule_id, 1);
		assert_int_equal(f1.rule_id, 1);
		assert_int_equal(pf1.rule_id, 1);
		/* The reply entry: as it was, as the refiltered one. */
		assert_int_equal(r1.rule_id, 1);
		assert_int_equal(r1.verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(r1.rule_id, r0.rule_id);
		assert_int_equal(r1.verdict, r0.verdict);
		assert_int_equal(r1.channel, r0.channel);
		assert_int_equal(r1.out_port, r0.out_port);
		assert_int_equal(r1.gen, r0.gen);
		assert_int_equal(pr1.rule_id, r1.rule_id);
		assert_int_equal(pr1.verdict, r1.verdict);
		assert_int_equal(pr1.channel, r1.channel);
		assert_int_equal(pr1.out_port, r1.out_port);
		eng_stack_free(eng);
		eng_stack_free(ref);
	}
	{
		struct rule_engine *eng = mk_engine(stateful);

		first_reply(eng, 0, &f0, &f1, &r0, &r1);
		assert_int_equal(kept(eng), 0);
		assert_int_equal(r1.rule_id, 1);
		eng_stack_free(eng);
	}
}

/*
 * The original direction's new walk sets the connection's mark, which the
 * reply direction's rules read: the reply entry is refiltered too, and
 * the reply direction is dropped from then on.
 */
static void
test_first_reply_ctmark(void **state)
{
	struct rule_engine *eng = mk_engine("drop connmark 0x9 proto tcp sport 80\n"
					    "accept ctstate established,related\n"
					    "accept proto tcp dport 80 ctstate new\n"
					    "policy drop\n"
					    "table mangle\n"
					    "chain P hook prerouting\n"
					    "mark set_mark 0x9 ctstate established proto tcp dport 80\n"
					    "connmark save_mark proto tcp dport 80\n");
	struct fc_action f0, f1, r0, r1;

	(void)state;
	assert_int_equal(eng_stack_cls_catch_up(eng), 0);
	first_reply(eng, 1, &f0, &f1, &r0, &r1);
	assert_int_equal(kept(eng), 0);
	assert_int_equal(r0.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(r1.verdict, FC_VERDICT_DROP);
	assert_int_equal(r1.rule_id, 1);
	assert_int_equal(f1.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(f1.rule_id, 2);
	eng_stack_free(eng);
}

/*
 * -m rpfilter asks the routes: a source must be routed back through its
 * input port (--loose: routed at all); a source without a route passes
 * (its way back is the input port); one of this host's fails unless
 * --accept-local. Without routes to ask, every source passes.
 */
static void
test_rpfilter(void **state)
{
	static const char rules[] = "table mangle\n"
				    "chain P hook prerouting\n"
				    "drop rpfilter rpfilter_invert proto tcp\n"
				    "drop rpfilter rpfilter_loose rpfilter_invert proto udp\n";
	struct rule_engine *eng;

	(void)state;
	with_routes = true;
	eng = mk_engine_ct(rules, false);
	assert_int_equal(eng_stack_cls_catch_up(eng), 0);
	assert_int_equal(
		eng_stack_decide(eng, tcp4("10.1.0.5", 1000, "198.51.100.1", 80, TCP_SYN, 0), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(
		eng_stack_decide(eng, tcp4("10.1.0.5", 1001, "198.51.100.1", 80, TCP_SYN, 1), 1)
			.verdict,
		FC_VERDICT_DROP);
	assert_int_equal(
		eng_stack_decide(eng, tcp4("10.2.0.5", 1002, "198.51.100.1", 80, TCP_SYN, 0), 1)
			.verdict,
		FC_VERDICT_DROP);
	assert_int_equal(
		eng_stack_decide(eng, tcp4("192.0.2.1", 1003, "198.51.100.1", 80, TCP_SYN, 1), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(
		eng_stack_decide(eng, pkt4(17, "10.1.0.5", 1004, "198.51.100.1", 53, 0, 1), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	/*
	 * 0.0.0.0 passes to the limited broadcast; to anything else its way
	 * back is asked (Linux's): the rule drops it, before the input
	 * route would as a martian.
	 */
	assert_int_equal(
		eng_stack_decide(eng, tcp4("0.0.0.0", 1005, "255.255.255.255", 80, TCP_SYN, 0), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	{
		struct rule_decision d = eng_stack_decide(
			eng, tcp4("0.0.0.0", 1006, "198.51.100.1", 80, TCP_SYN, 0), 1);

		assert_int_equal(d.verdict, FC_VERDICT_DROP);
		assert_int_equal(d.drop, RULE_DROP_FILTER);
	}
	eng_stack_free(eng);
	/* No routes to ask: the check passes, as before routes were asked. */
	with_routes = false;
	eng = mk_engine_ct(rules, false);
	assert_int_equal(eng_stack_cls_catch_up(eng), 0);
	assert_int_equal(
		eng_stack_decide(eng, tcp4("10.1.0.5", 1001, "198.51.100.1", 80, TCP_SYN, 1), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	eng_stack_free(eng);
}

/*
 * -m rpfilter and a forged local source (one of this host's addresses from
 * outside, FC_KEY_F_SRC_FORGED): its way back is this host, which fails
 * the check unless --accept-local (Linux's RTN_LOCAL answer), though a
 * route would send it back the way it came.
 */
static void
test_rpfilter_forged(void **state)
{
	static const char rules[] =
		"table mangle\n"
		"chain P hook prerouting\n"
		"drop rpfilter rpfilter_invert proto tcp dport 80\n"
		"drop rpfilter rpfilter_accept_local rpfilter_invert proto tcp dport 81\n";
	struct rule_engine *eng;
	struct rule_upcall u;
	struct rule_decision d;

	(void)state;
	with_routes = true;
	eng = mk_engine_ct(rules, false);
	assert_int_equal(eng_stack_cls_catch_up(eng), 0);
	/* Not forged, routed back the way it came: passes; forged: fails, the rule drops it. */
	assert_int_equal(
		eng_stack_decide(eng, tcp4("192.0.2.1", 1000, "198.51.100.1", 80, TCP_SYN, 1), 1)
			.verdict,
		FC_VERDICT_ACCEPT);
	u = tcp4("192.0.2.1", 1001, "198.51.100.1", 80, TCP_SYN, 1);
	u.pkt.key.v4.flags = FC_KEY_F_SRC_FORGED;
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_FILTER);
	/* --accept-local passes it: the input route then drops it as a martian. */
	u = tcp4("192.0.2.1", 1002, "198.51.100.1", 81, TCP_SYN, 1);
	u.pkt.key.v4.flags = FC_KEY_F_SRC_FORGED;
	d = eng_stack_decide(eng, u, 1);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_MARTIAN);
	eng_stack_free(eng);
	with_routes = false;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_port),
		cmocka_unit_test(test_reply_moves),
		cmocka_unit_test(test_reply_guess),
		cmocka_unit_test(test_port_mismatch),
		cmocka_unit_test(test_two_flows),
		cmocka_unit_test(test_claim),
		cmocka_unit_test(test_first_reply_refilter),
		cmocka_unit_test(test_first_reply_ctmark),
		cmocka_unit_test(test_rpfilter),
		cmocka_unit_test(test_rpfilter_forged),
	};

	if (gufc_test_eal_init("ports", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
