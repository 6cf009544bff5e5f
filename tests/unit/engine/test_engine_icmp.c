/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of ICMP queries through the rules engine with the app's
 * modules (common/eng_stack.c): frames built here and keyed by fc_parse(),
 * as the RX lcore keys them, then looked up in the flow table (the fast
 * path) or handed to the slow path. Linux conntrack's ICMP tuple holds the
 * identifier, the type and the code, and its reply tuple the reply's type;
 * so must gufc's keys:
 *  - an echo request and a timestamp request with one identifier between
 *    the same two hosts are two connections;
 *  - A pinging B and B pinging A with one identifier are two connections,
 *    the second's request is NEW, not the first's reply;
 *  - an echo reply without its request is INVALID, also in the direction
 *    of a request with that identifier;
 *  - an ICMP error quoting an echo request is RELATED to its connection;
 *  - SNAT keeps one identifier for two query kinds (two reply tuples) and
 *    translates each reply back; an error about a remapped echo request
 *    is translated back to the inside host's request.
 * IPv4 and IPv6 (echo, and node information queries, RFC 4620).
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

#define A4 "10.0.0.1"
#define B4 "198.51.100.2"
#define R4 "192.0.2.254"
#define A6 "2001:db8::1"
#define B6 "2001:db8:1::2"

/* ------------------------------------------------------------------------ */
/* Frames                                                                    */
/* ------------------------------------------------------------------------ */

/* The Internet checksum of @p len bytes at @p p after @p sum (common/csum_ref.c). */
static uint16_t
csum(uint32_t sum, const uint8_t *p, uint32_t len)
{
	return (uint16_t)~csum_ref_fold(csum_ref_add(sum, p, len));
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* An IPv4 header at @p ip for @p plen bytes of protocol @p proto. */
static void
ip4_hdr(uint8_t *ip, const char *src, const char *dst, uint8_t proto, uint32_t plen)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(20 + plen));
	ip[8] = 64;
	ip[9] = proto;
	assert_int_equal(inet_pton(AF_INET, src, ip + 12), 1);
	assert_int_equal(inet_pton(AF_INET, dst, ip + 16), 1);
	wr16(ip + 10, csum(0, ip, 20));
}

/* An ICMP message: type, code, identifier, sequence, 8 bytes of data. */
static void
icmp_msg(uint8_t *m, uint8_t type, uint8_t code, uint16_t id, uint16_t seq)
{
	memset(m, 0, 16);
	m[0] = type;
	m[1] = code;
	wr16(m + 4, id);
	wr16(m + 6, seq);
	memcpy(m + 8, "gufcicmp", 8);
}

/* An Ethernet + IPv4 + ICMP query frame into @p f; returns its length. */
static uint32_t
icmp4(uint8_t *f, const char *src, const char *dst, uint8_t type, uint16_t id, uint16_t seq)
{
	uint8_t *ip = f + 14, *m = ip + 20;

	memset(f, 0, 14);
	f[12] = 0x08;
	ip4_hdr(ip, src, dst, 1, 16);
	icmp_msg(m, type, 0, id, seq);
	wr16(m + 2, csum(0, m, 16));
	return 14 + 20 + 16;
}

/* An Ethernet + IPv6 + ICMPv6 query frame into @p f; returns its length. */
static uint32_t
icmp6(uint8_t *f, const char *src, const char *dst, uint8_t type, uint16_t id, uint16_t seq)
{
	uint8_t *ip = f + 14, *m = ip + 40;

	memset(f, 0, 14 + 40);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	wr16(ip + 4, 16);
	ip[6] = 58;
	ip[7] = 64;
	assert_int_equal(inet_pton(AF_INET6, src, ip + 8), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, ip + 24), 1);
	icmp_msg(m, type, 0, id, seq);
	wr16(m + 2, csum(csum_ref_pseudo(ip, 58, 16), m, 16));
	return 14 + 40 + 16;
}

/*
 * An ICMP host unreachable from @p rtr to @p to quoting the IPv4 echo
 * request @p qsrc -> @p qdst with identifier @p id.
 */
static uint32_t
icmp4_unreach(uint8_t *f, const char *rtr, const char *to, const char *qsrc, const char *qdst,
	uint16_t id)
{
	uint8_t *ip = f + 14, *m = ip + 20, *in = m + 8, *q = in + 20;

	memset(f, 0, 14);
	f[12] = 0x08;
	ip4_hdr(in, qsrc, qdst, 1, 16);
	icmp_msg(q, 8, 0, id, 1);
	wr16(q + 2, csum(0, q, 16));
	memset(m, 0, 8);
	m[0] = 3;
	m[1] = 1;
	wr16(m + 2, csum(0, m, 8 + 20 + 16));
	ip4_hdr(ip, rtr, to, 1, 8 + 20 + 16);
	return 14 + 20 + 8 + 20 + 16;
}

/* ------------------------------------------------------------------------ */
/* Engine                                                                    */
/* ------------------------------------------------------------------------ */

static struct rule_engine *
mk_engine(uint32_t nat)
{
	return eng_stack_test_engine("tei", 256, 256, true, nat);
}

static void
load(struct rule_engine *eng, const char *text)
{
	eng_stack_load(eng, text, false);
}

/*
 * What the RX lcore does with frame @p f (eng_stack_rx()): a hit's cached
 * action (*slow false), or the slow path.
 */
static struct rule_decision
rx(struct rule_engine *eng, const uint8_t *f, uint32_t len, uint32_t now, bool *slow)
{
	return eng_stack_rx(eng, eng_stack_frame_upcall(f, len), now, slow);
}

/* The frame's key, as fc_parse() makes it. */
static struct fc_key
key_of(const uint8_t *f, uint32_t len)
{
	struct fc_pkt p;

	assert_int_equal(fc_parse(f, len, &p), FC_PARSE_OK);
	return p.key;
}

/* A frame of family @p v6 (A/B addresses of that family swapped with @p back). */
static uint32_t
query(uint8_t *f, bool v6, bool back, uint8_t type, uint16_t id, uint16_t seq)
{
	if (v6)
		return icmp6(f, back ? B6 : A6, back ? A6 : B6, type, id, seq);
	return icmp4(f, back ? B4 : A4, back ? A4 : B4, type, id, seq);
}

/* Not checked, in rx_is() and query_is(). */
#define ANY (-1)
#define ACCEPT FC_VERDICT_ACCEPT
#define DROP FC_VERDICT_DROP

/*
 * rx() of frame @p f at @p now, checked: whether it went up (@p up), its
 * verdict and its conntrack state, each ANY where the test does not care.
 */
static struct rule_decision
rx_is(struct rule_engine *eng, const uint8_t *f, uint32_t len, uint32_t now, int up, int verdict,
	int ct)
{
	bool slow;
	struct rule_decision d = rx(eng, f, len, now, &slow);

	if (up != ANY)
		assert_int_equal(slow, up);
	if (verdict != ANY)
		assert_int_equal(d.verdict, verdict);
	if (ct != ANY)
		assert_int_equal(d.ctstate, ct);
	return d;
}

/* rx_is() of the query() frame of these arguments, into @p f. */
static struct rule_decision
query_is(struct rule_engine *eng, uint8_t *f, bool v6, bool back, uint8_t type, uint16_t id,
	uint16_t seq, uint32_t now, int up, int verdict, int ct)
{
	return rx_is(eng, f, query(f, v6, back, type, id, seq), now, up, verdict, ct);
}

/*
 * Echo requests NEW (any source), established traffic, nothing else: what
 * a stateful firewall that lets ping through looks like.
 */
static const char *ping_rules = "accept ctstate established,related\n"
				"accept proto icmp icmp_type echo-request ctstate new\n"
				"accept proto icmpv6 icmpv6_type echo-request ctstate new\n"
				"policy drop\n";

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * An echo request and a timestamp request (v6: an echo reply sent ahead
 * of any request) with the identifier of an established echo connection:
 * Linux's tuple has the type, so the timestamp request is a connection of
 * its own, NEW, and the policy drops it, on the fast path too. gufc's
 * keys without the type made it the echo connection's (ESTABLISHED,
 * accepted from the cache).
 */
static void
test_query_kinds(void **state)
{
	uint8_t f[128], g[128];
	struct rule_decision d;
	struct fc_key k, rk, gk;
	uint32_t n, m;
	bool slow;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct rule_engine *eng = mk_engine(0);
		uint8_t req = v6 ? 128 : 8, rep = v6 ? 129 : 0;

		load(eng, ping_rules);
		n = query(f, v6, false, req, 7, 1);
		rx_is(eng, f, n, 1, true, ACCEPT, RULE_CT_NEW);
		/* The reply entry is the echo reply's key: the request's, reversed. */
		k = key_of(f, n);
		m = query(g, v6, true, rep, 7, 1);
		fc_key_reverse(&k, &rk);
		gk = key_of(g, m);
		assert_memory_equal(&rk, &gk, sizeof(rk));
		assert_non_null(eng_stack_entry(eng, &rk));
		rx_is(eng, g, m, 2, ANY, ACCEPT, RULE_CT_ESTABLISHED);
		/* The next request and reply: the fast path. */
		query_is(eng, f, v6, false, req, 7, 2, 3, false, ACCEPT, ANY);
		query_is(eng, g, v6, true, rep, 7, 2, 3, false, ACCEPT, ANY);

		if (!v6) {
			/* Timestamp request, same hosts, same identifier: NEW, dropped. */
			n = icmp4(f, A4, B4, 13, 7, 1);
			gk = key_of(f, n);
			assert_null(eng_stack_entry(eng, &gk));
			for (uint32_t t = 4; t < 6; t++) {
				d = rx(eng, f, n, t, &slow);
				assert_int_equal(d.verdict, DROP);
				if (slow)
					assert_int_equal(d.ctstate, RULE_CT_NEW);
			}
			/* Its reply (no request passed): INVALID, dropped. */
			rx_is(eng, f, icmp4(f, B4, A4, 14, 7, 1), 6, true, DROP, RULE_CT_INVALID);
		}
		/* An echo reply the way the requests go: not the connection's, INVALID. */
		query_is(eng, f, v6, false, rep, 7, 3, 7, true, DROP, RULE_CT_INVALID);
		/* The echo connection is unharmed. */
		query_is(eng, f, v6, false, req, 7, 4, 8, false, ACCEPT, ANY);
		eng_stack_free(eng);
	}
}

/*
 * Rules that read the ICMP type of every packet (no ctstate: each
 * direction's type accepted by its own rule): the key holds the type and
 * code (dport), so the match is decided once per flow and both entries
 * decide their later packets on the fast path. Before, the walk's ICMP
 * dependency made each entry per packet (FC_VERDICT_SLOW): every request
 * and reply went up.
 */
static void
test_icmp_type_per_flow(void **state)
{
	static const char *rules = "accept proto icmp icmp_type echo-request\n"
				   "accept proto icmp icmp_type echo-reply\n"
				   "accept proto icmpv6 icmpv6_type echo-request\n"
				   "accept proto icmpv6 icmpv6_type echo-reply\n"
				   "policy drop\n";
	uint8_t f[128], g[128];
	const struct fc_entry *e;
	struct fc_key k, rk;
	uint32_t n;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct rule_engine *eng = mk_engine(0);
		uint8_t req = v6 ? 128 : 8, rep = v6 ? 129 : 0;

		load(eng, rules);
		n = query(f, v6, false, req, 7, 1);
		rx_is(eng, f, n, 1, true, ACCEPT, ANY);
		k = key_of(f, n);
		fc_key_reverse(&k, &rk);
		e = eng_stack_entry(eng, &k);
		assert_non_null(e);
		assert_int_equal(e->act.verdict, ACCEPT);
		e = eng_stack_entry(eng, &rk);
		assert_non_null(e);
		assert_int_equal(e->act.verdict, ACCEPT);
		/* The first reply: conntrack sees it (the connection becomes established). */
		query_is(eng, g, v6, true, rep, 7, 1, 2, ANY, ACCEPT, RULE_CT_ESTABLISHED);
		/* Later requests and replies: the fast path, the entries' verdicts. */
		for (uint16_t seq = 2; seq < 5; seq++) {
			query_is(eng, g, v6, true, rep, 7, seq, 2 + seq, false, ACCEPT, ANY);
			query_is(eng, f, v6, false, req, 7, (uint16_t)(seq + 1), 2 + seq, false, ACCEPT,
				ANY);
		}
		/* Another type between the same hosts: its own flow, the policy's drop. */
		query_is(eng, f, v6, false, v6 ? 139 : 13, 9, 1, 9, true, DROP, ANY);
		eng_stack_free(eng);
	}
}

/*
 * ICMPv6 node information (RFC 4620) as Linux's conntrack tracks it: a
 * query (139) starts a connection keyed by its Qtype (in the identifier's
 * place), its code and type; the reply (140) of that Qtype is its reply
 * direction, ESTABLISHED; a reply of another Qtype is INVALID, a query of
 * another Qtype a connection of its own. Before, the key held no Qtype and
 * no reply type: every reply was INVALID. Through SNAT the Qtype is kept
 * (Linux rewrites an echo's identifier only).
 */
static void
test_node_info(void **state)
{
	static const char *rules = "accept ctstate established,related\n"
				   "accept proto icmpv6 icmpv6_type 139 ctstate new\n"
				   "policy drop\n";
	struct mod_nat_binding_result nb;
	struct rule_engine *eng;
	uint8_t f[128], g[128];
	struct rule_decision d;
	struct fc_key k, rk;
	uint32_t n, m;

	(void)state;
	eng = mk_engine(0);
	load(eng, rules);
	n = icmp6(f, A6, B6, 139, 2, 1);
	rx_is(eng, f, n, 1, ANY, ACCEPT, RULE_CT_NEW);
	k = key_of(f, n);
	assert_int_equal(ntohs(k.v6.sport), 2);
	assert_int_equal(ntohs(k.v6.dport), 139 << 8);
	/* The reply of that Qtype: the connection's reply direction. */
	m = icmp6(g, B6, A6, 140, 2, 1);
	fc_key_reverse(&k, &rk);
	k = key_of(g, m);
	assert_memory_equal(&rk, &k, sizeof(k));
	rx_is(eng, g, m, 2, ANY, ACCEPT, RULE_CT_ESTABLISHED);
	/* The next query and reply: the fast path. */
	rx_is(eng, f, icmp6(f, A6, B6, 139, 2, 2), 3, false, ACCEPT, ANY);
	rx_is(eng, g, m, 3, false, ACCEPT, ANY);
	/* A reply of another Qtype: no query asked it, INVALID. */
	rx_is(eng, g, icmp6(g, B6, A6, 140, 3, 1), 4, ANY, DROP, RULE_CT_INVALID);
	/* A query of another Qtype: a connection of its own. */
	rx_is(eng, f, icmp6(f, A6, B6, 139, 3, 1), 5, true, ACCEPT, RULE_CT_NEW);
	eng_stack_free(eng);

	/* SNAT: the address translated, the Qtype kept, the reply translated back. */
	eng = mk_engine(16);
	load(eng, "snat to 2001:db8:ff::1 src 2001:db8::/64\naccept\n");
	n = icmp6(f, A6, B6, 139, 2, 1);
	d = rx_is(eng, f, n, 1, ANY, ACCEPT, ANY);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	assert_int_equal(ntohs(nb.fwd.v6.sport), 2);
	assert_int_equal(ntohs(nb.fwd.v6.dport), 139 << 8);
	m = icmp6(g, B6, "2001:db8:ff::1", 140, 2, 1);
	k = key_of(g, m);
	assert_memory_equal(&k, &nb.reply, sizeof(k));
	d = rx_is(eng, g, m, 2, ANY, ACCEPT, ANY);
	assert_int_equal(d.nat_slot, nb.reply_slot);
	eng_stack_free(eng);
}

/*
 * A pings B and B pings A with the same identifier: two connections, as
 * in Linux. B's request is NEW (gufc's keys made it the reply direction of
 * A's connection: INVALID), and each reply is ESTABLISHED in its own.
 */
static void
test_crossed_pings(void **state)
{
	uint8_t f[128];

	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct rule_engine *eng = mk_engine(0);
		uint8_t req = v6 ? 128 : 8, rep = v6 ? 129 : 0;

		load(eng, ping_rules);
		/* A -> B request, B -> A request, A -> B reply to B's, B -> A reply to A's. */
		query_is(eng, f, v6, false, req, 9, 1, 1, ANY, ACCEPT, RULE_CT_NEW);
		query_is(eng, f, v6, true, req, 9, 1, 2, true, ACCEPT, RULE_CT_NEW);
		query_is(eng, f, v6, false, rep, 9, 1, 3, ANY, ACCEPT, RULE_CT_ESTABLISHED);
		query_is(eng, f, v6, true, rep, 9, 1, 4, ANY, ACCEPT, RULE_CT_ESTABLISHED);
		/* Both connections go on, from the cache. */
		for (int back = 0; back < 2; back++) {
			query_is(eng, f, v6, back, req, 9, 2, 5, false, ACCEPT, ANY);
			query_is(eng, f, v6, back, rep, 9, 2, 5, false, ACCEPT, ANY);
		}
		eng_stack_free(eng);
	}
}

/* An unreachable quoting an echo request is RELATED to the echo connection, not another's. */
static void
test_error_related(void **state)
{
	struct rule_engine *eng = mk_engine(0);
	uint8_t f[160];

	(void)state;
	load(eng, ping_rules);
	rx_is(eng, f, icmp4(f, A4, B4, 8, 21, 1), 1, ANY, ANY, RULE_CT_NEW);
	rx_is(eng, f, icmp4_unreach(f, R4, A4, A4, B4, 21), 2, ANY, ACCEPT, RULE_CT_RELATED);
	/* Another identifier: no connection, INVALID. */
	rx_is(eng, f, icmp4_unreach(f, R4, A4, A4, B4, 22), 3, ANY, DROP, RULE_CT_INVALID);
	eng_stack_free(eng);
}

/*
 * SNAT of an echo and a timestamp request with one identifier: two
 * bindings, each keeps the identifier (their reply tuples differ by
 * type, as in Linux), and each reply finds its own way back.
 */
static void
test_snat_query_kinds(void **state)
{
	struct rule_engine *eng = mk_engine(16);
	static const uint8_t req[2] = {8, 13}, rep[2] = {0, 14};
	struct mod_nat_binding_result nb[2];
	uint8_t f[128];
	struct rule_decision d;
	struct fc_key k;
	uint32_t n;

	(void)state;
	load(eng, "snat to 203.0.113.1 src 10.0.0.0/8\naccept\n");
	for (int i = 0; i < 2; i++) {
		n = icmp4(f, A4, B4, req[i], 33, 1);
		d = rx_is(eng, f, n, 1, ANY, ACCEPT, ANY);
		assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
		assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng),
					 MOD_NAT_SLOT_BINDING(d.nat_slot), &nb[i]),
			0);
		assert_int_equal(nb[i].fwd.v4.src, inet_addr("203.0.113.1"));
		assert_int_equal(ntohs(nb[i].fwd.v4.sport), 33);
		assert_int_equal(ntohs(nb[i].fwd.v4.dport), req[i] << 8);
	}
	assert_int_not_equal(MOD_NAT_SLOT_BINDING(nb[0].fwd_slot),
		MOD_NAT_SLOT_BINDING(nb[1].fwd_slot));
	for (int i = 0; i < 2; i++) {
		/* The reply to the translated request: its binding's reply entry. */
		n = icmp4(f, B4, "203.0.113.1", rep[i], 33, 1);
		k = key_of(f, n);
		assert_memory_equal(&k, &nb[i].reply, sizeof(k));
		d = rx_is(eng, f, n, 2, ANY, ACCEPT, ANY);
		assert_int_equal(d.nat_slot, nb[i].reply_slot);
	}
	eng_stack_free(eng);
}

/*
 * An unreachable about a translated echo request whose identifier SNAT
 * remapped (a second inside host, the same identifier): RELATED to that
 * binding, and translated back to the inside host's request, identifier
 * and checksums included.
 */
static void
test_error_snat_echo(void **state)
{
	struct rule_engine *eng = mk_engine(16);
	struct mod_nat_binding_result nb;
	uint8_t f[160], *ip = f + 14, *m = ip + 20, *in = m + 8, *q = in + 20;
	struct rule_decision d;
	uint16_t x;
	uint32_t n;

	(void)state;
	load(eng, "snat to 203.0.113.1 src 10.0.0.0/8\naccept\n");
	n = icmp4(f, A4, B4, 8, 33, 1);
	d = rx(eng, f, n, 1, NULL);
	assert_int_not_equal(d.nat_slot, RULE_NAT_NONE);
	n = icmp4(f, "10.0.0.2", B4, 8, 33, 1);
	d = rx(eng, f, n, 1, NULL);
	assert_int_equal(mod_nat_binding_get(eng_stack_nat(eng), MOD_NAT_SLOT_BINDING(d.nat_slot),
				 &nb),
		0);
	x = ntohs(nb.fwd.v4.sport);
	assert_int_not_equal(x, 33); /* remapped: 203.0.113.1 -> B with 33 is taken */

	/* From beyond, about the request as it left: 203.0.113.1 -> B, identifier x. */
	n = icmp4_unreach(f, R4, "203.0.113.1", "203.0.113.1", B4, x);
	d = rx_is(eng, f, n, 2, ANY, ACCEPT, RULE_CT_RELATED);
	assert_true(d.flags & RULE_DEC_F_ICMP_ERR);
	assert_int_equal(d.nat_slot, nb.reply_slot);
	assert_int_equal(mod_nat_icmp_error(eng_stack_nat(eng), d.nat_slot, ip, n - 14), 0);
	assert_int_equal(memcmp(ip + 16, &(uint32_t){inet_addr("10.0.0.2")}, 4), 0);
	assert_int_equal(memcmp(in + 12, &(uint32_t){inet_addr("10.0.0.2")}, 4), 0);
	assert_int_equal(memcmp(in + 16, &(uint32_t){inet_addr(B4)}, 4), 0);
	assert_int_equal(q[0], 8);
	assert_int_equal(q[4] << 8 | q[5], 33);
	assert_int_equal(csum(0, ip, 20), 0);
	assert_int_equal(csum(0, m, 8 + 20 + 16), 0);
	assert_int_equal(csum(0, in, 20), 0);
	assert_int_equal(csum(0, q, 16), 0);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_kinds),
		cmocka_unit_test(test_icmp_type_per_flow),
		cmocka_unit_test(test_node_info),
		cmocka_unit_test(test_crossed_pings),
		cmocka_unit_test(test_error_related),
		cmocka_unit_test(test_snat_query_kinds),
		cmocka_unit_test(test_error_snat_echo),
	};

	if (gufc_test_eal_init("engine_icmp", "0") < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
