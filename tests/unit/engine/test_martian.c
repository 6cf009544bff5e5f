/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of martian packets on the app's module stack
 * (tests/unit/common/eng_stack.c), as Linux's input path drops them from
 * outside: IPv4 by the input route, after PREROUTING's tables (their
 * rules count the packet, no INPUT or FORWARD rule does), on the
 * destination after nat PREROUTING (a DNAT to 127.0.0.1); IPv6 on
 * reception, before any table. The drop is named (RULE_DROP_MARTIAN),
 * cached as a new flow's drop (the entry keeps the reason: its later
 * packets are counted under it too), and packets of this host (a local
 * source) are not martians; a forged local source (from a port that does
 * not carry this host's packets) is an IPv4 martian, IPv6's own flow.
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

static struct rule_upcall
up4(const char *src, const char *dst, uint16_t dport, uint8_t flags)
{
	struct rule_upcall u = eng_stack_up4(17, src, 4000, dst, dport, 0);

	u.pkt.key.v4.flags = flags;
	return u;
}

static struct rule_upcall
up6(const char *src, const char *dst, uint8_t flags)
{
	struct rule_upcall u;

	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET6;
	inet_pton(AF_INET6, src, u.pkt.key.v6.src);
	inet_pton(AF_INET6, dst, u.pkt.key.v6.dst);
	u.pkt.key.v6.sport = htons(4000);
	u.pkt.key.v6.dport = htons(53);
	u.pkt.key.v6.proto = 17;
	u.pkt.key.v6.flags = flags;
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	return u;
}

static struct rule_engine *
mk_engine(void)
{
	struct eng_stack_params p;

	eng_stack_test_params(&p, 256, 64, true, 64);
	p.eng.port_pair_fn = eng_stack_pair01;
	return eng_stack_test_create(&p, "mt");
}

static void
load_ipt(struct rule_engine *eng, const char *text, unsigned int family)
{
	static const char *const ports[] = {"p0", "p1"};
	struct rule_error err;
	struct rule_set *s = rule_set_parse_iptables_af(text, "t", family, &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	assert_int_equal(rule_set_ports(s, 2, ports), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
}

static uint64_t
pkts(struct rule_engine *eng, uint32_t id)
{
	uint64_t p, b;

	assert_int_equal(rule_engine_rule_counters(eng, id, &p, &b), 0);
	return p;
}

/* Rules 1 (raw PREROUTING), 2 (nat PREROUTING DNAT), 3 (filter INPUT), 4 (filter FORWARD). */
static const char ruleset[] =
	"*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A PREROUTING -p udp\n"
	"COMMIT\n"
	"*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	":POSTROUTING ACCEPT [0:0]\n"
	"-A PREROUTING -p udp -m udp --dport 5353 -j DNAT --to-destination 127.0.0.1\n"
	"COMMIT\n"
	"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A INPUT -p udp\n"
	"-A FORWARD -p udp\n"
	"COMMIT\n";

static void
expect_martian(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	struct rule_decision d = eng_stack_decide(eng, u, now);
	const struct fc_entry *e;

	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_MARTIAN);
	/* Cached: the fast path counts its packets under the same reason. */
	e = eng_stack_entry(eng, &u.pkt.key);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_DROP);
	assert_int_equal(rule_engine_drop_of(&e->act), RULE_DROP_MARTIAN);
}

static void
test_martian4(void **state)
{
	struct rule_engine *eng = mk_engine();
	uint64_t raw0, in0, fw0;
	struct rule_decision d;
	const struct fc_entry *e;
	struct rule_upcall ok = up4("192.0.2.1", "10.0.0.2", 53, FC_KEY_F_DST_LOCAL), reply;

	(void)state;
	load_ipt(eng, ruleset, FC_AF_INET4);
	expect_martian(eng, up4("192.0.2.1", "0.0.0.0", 53, 0), 1);
	expect_martian(eng, up4("192.0.2.1", "127.1.2.3", 53, 0), 2);
	expect_martian(eng, up4("192.0.2.1", "127.0.0.1", 53, FC_KEY_F_DST_LOCAL), 3);
	expect_martian(eng, up4("0.0.0.0", "10.0.0.2", 53, FC_KEY_F_DST_LOCAL), 4);
	expect_martian(eng, up4("224.0.0.9", "10.0.0.2", 53, FC_KEY_F_DST_LOCAL), 5);
	expect_martian(eng, up4("255.255.255.255", "10.0.0.2", 53, FC_KEY_F_DST_LOCAL), 6);
	expect_martian(eng, up4("224.0.0.9", "255.255.255.255", 53, 0), 7);
	/* A 127/8 source from outside (no local bits: not this host's), both ways. */
	expect_martian(eng, up4("127.0.0.1", "10.0.0.2", 53, FC_KEY_F_DST_LOCAL), 7);
	expect_martian(eng, up4("127.9.8.7", "198.51.100.9", 53, 0), 7);
	/* PREROUTING saw all nine (raw's rule), neither INPUT nor FORWARD did. */
	assert_int_equal(pkts(eng, 1), 9);
	assert_int_equal(pkts(eng, 3), 0);
	assert_int_equal(pkts(eng, 4), 0);
	/* Limited broadcast, from 0.0.0.0 too (DHCP), multicast destinations and 0.0.0.0/8 but 0.0.0.0 pass. */
	raw0 = pkts(eng, 1);
	in0 = pkts(eng, 3);
	fw0 = pkts(eng, 4);
	assert_int_equal(eng_stack_decide(eng, up4("0.0.0.0", "255.255.255.255", 67, 0), 8).verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(
		eng_stack_decide(eng, up4("192.0.2.1", "255.255.255.255", 67, 0), 9).verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, up4("0.0.0.0", "224.0.0.22", 67, 0), 10).verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, ok, 11).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_decide(eng, up4("192.0.2.1", "0.1.2.3", 53, 0), 14).verdict,
		FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 1), raw0 + 5);
	assert_int_equal(pkts(eng, 3) + pkts(eng, 4), in0 + fw0 + 5);
	/* A DNAT to 127.0.0.1 from outside: counted by nat PREROUTING's rule, then martian. */
	in0 = pkts(eng, 3);
	fw0 = pkts(eng, 4);
	d = eng_stack_decide(eng, up4("192.0.2.1", "10.0.0.2", 5353, FC_KEY_F_DST_LOCAL), 12);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.drop, RULE_DROP_MARTIAN);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 3), in0);
	assert_int_equal(pkts(eng, 4), fw0);
	/* No connection was made: the reply direction has no entry. */
	reply = up4("127.0.0.1", "192.0.2.1", 4000, 0);
	reply.pkt.key.v4.sport = htons(5353);
	e = eng_stack_entry(eng, &reply.pkt.key);
	assert_null(e);
	/* From this host (a local source), to itself through lo: not a martian. */
	d = eng_stack_decide(eng,
		up4("127.0.0.1", "127.0.0.1", 53, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL), 13);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	eng_stack_free(eng);
}

static void
test_martian6(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_decision d;

	(void)state;
	load_ipt(eng, "*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "-A PREROUTING -p udp\n"
		      "COMMIT\n",
		FC_AF_INET6);
	expect_martian(eng, up6("2001:db8::1", "::1", FC_KEY_F_DST_LOCAL), 1);
	expect_martian(eng, up6("::1", "2001:db8::2", FC_KEY_F_DST_LOCAL), 2);
	expect_martian(eng, up6("ff02::1", "2001:db8::2", FC_KEY_F_DST_LOCAL), 3);
	expect_martian(eng, up6("ff0e::1", "2001:db8::2", 0), 4);
	expect_martian(eng, up6("2001:db8::1", "ff01::1", 0), 5);
	expect_martian(eng, up6("2001:db8::1", "ff10::1", 0), 6);
	/* Dropped on reception: no table saw them (raw's rule counts nothing). */
	assert_int_equal(pkts(eng, 1), 0);
	d = eng_stack_decide(eng, up6("2001:db8::1", "ff02::1", 0), 7);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng, up6("::", "ff02::1:ff00:1", 0), 8);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	/* An IPv4-mapped source: the kernel delivers it. */
	d = eng_stack_decide(eng, up6("::ffff:192.0.2.1", "2001:db8::2", FC_KEY_F_DST_LOCAL), 10);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng, up6("::1", "::1", FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL), 9);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 1), 4);
	eng_stack_free(eng);
}

/*
 * Forged local sources (FC_KEY_F_SRC_FORGED: one of this host's addresses
 * on a port that does not carry its packets). Rules: raw PREROUTING (1),
 * raw OUTPUT (2), nat PREROUTING DNAT of dport 99 (3), filter INPUT
 * addrtype LOCAL source (4), INPUT (5), FORWARD (6), OUTPUT (7).
 */
#define FORGED_RULES(to)                                                                           \
	"*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"                                   \
	"-A PREROUTING -p udp\n"                                                                   \
	"-A OUTPUT -p udp\n"                                                                       \
	"COMMIT\n"                                                                                 \
	"*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"              \
	":POSTROUTING ACCEPT [0:0]\n"                                                              \
	"-A PREROUTING -p udp -m udp --dport 99 -j DNAT --to-destination " to "\n"                 \
	"COMMIT\n"                                                                                 \
	"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"              \
	"-A INPUT -m addrtype --src-type LOCAL\n"                                                  \
	"-A INPUT -p udp\n"                                                                        \
	"-A FORWARD -p udp\n"                                                                      \
	"-A OUTPUT -p udp\n"                                                                       \
	"COMMIT\n"

static const char forged4_rules[] = FORGED_RULES("198.51.100.7");
static const char forged6_rules[] = FORGED_RULES("[2001:db8:9::7]");

/*
 * IPv4: the input route refuses a source of this host's from outside
 * (Linux's accept_local off): PREROUTING's tables count it, then a
 * martian, to this host, forwarded or DNATed alike, 127.0.0.1 (a local
 * prefix here) too; never OUTPUT. The same source from a host port is
 * this host's own packet (OUTPUT).
 */
static void
test_forged4(void **state)
{
	const uint8_t fg = FC_KEY_F_SRC_FORGED;
	struct rule_engine *eng = mk_engine();
	struct rule_decision d;
	struct rule_upcall u;

	(void)state;
	load_ipt(eng, forged4_rules, FC_AF_INET4);
	expect_martian(eng, up4("192.0.2.1", "10.0.0.2", 53, fg | FC_KEY_F_DST_LOCAL), 1);
	expect_martian(eng, up4("192.0.2.1", "198.51.100.9", 53, fg), 2);
	expect_martian(eng, up4("192.0.2.1", "192.0.2.1", 53, fg | FC_KEY_F_DST_LOCAL), 3);
	expect_martian(eng, up4("127.0.0.1", "10.0.0.2", 53, fg | FC_KEY_F_DST_LOCAL), 4);
	/* A DNAT to elsewhere changes nothing: the source is checked. */
	expect_martian(eng, up4("192.0.2.1", "10.0.0.2", 99, fg | FC_KEY_F_DST_LOCAL), 5);
	assert_int_equal(pkts(eng, 3), 1);
	/* On the input port the key holds: another port's forged flow is its own drop. */
	u = up4("192.0.2.1", "198.51.100.9", 53, fg);
	u.pkt.key.v4.in_port = 1;
	expect_martian(eng, u, 6);
	assert_int_equal(pkts(eng, 1), 6);
	assert_int_equal(pkts(eng, 2), 0);
	for (uint32_t id = 4; id <= 7; id++)
		assert_int_equal(pkts(eng, id), 0);
	/* Its later packets: the cached drop, no walk counts them again. */
	d = eng_stack_decide(eng, up4("192.0.2.1", "198.51.100.9", 53, fg), 7);
	assert_int_equal(d.drop, RULE_DROP_MARTIAN);
	assert_int_equal(pkts(eng, 1), 7); /* raw PREROUTING sees every packet, as Linux's */
	assert_int_equal(pkts(eng, 5) + pkts(eng, 6), 0);
	/* From a host port (no forged bit): this host's own, OUTPUT's. */
	d = eng_stack_decide(eng, up4("192.0.2.1", "198.51.100.9", 54, FC_KEY_F_SRC_LOCAL), 8);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 2), 1);
	assert_int_equal(pkts(eng, 7), 1);
	assert_int_equal(pkts(eng, 1), 7);
	eng_stack_free(eng);
}

/*
 * IPv6 has no such check (Linux delivers or forwards it): a forged local
 * source walks PREROUTING, then INPUT or FORWARD as a packet from outside,
 * never OUTPUT; addrtype calls its source LOCAL all the same. A forged ::1
 * is still a martian on reception.
 */
static void
test_forged6(void **state)
{
	const uint8_t fg = FC_KEY_F_SRC_FORGED;
	struct rule_engine *eng = mk_engine();
	struct rule_decision d;

	(void)state;
	load_ipt(eng, forged6_rules, FC_AF_INET6);
	d = eng_stack_decide(eng, up6("2001:db8::1", "2001:db8::2", fg | FC_KEY_F_DST_LOCAL), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 1), 1);
	assert_int_equal(pkts(eng, 4), 1);
	assert_int_equal(pkts(eng, 5), 1);
	d = eng_stack_decide(eng, up6("2001:db8::1", "2001:db8:9::7", fg), 2);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 6), 1);
	assert_int_equal(pkts(eng, 2), 0);
	assert_int_equal(pkts(eng, 7), 0);
	expect_martian(eng, up6("::1", "2001:db8::2", fg | FC_KEY_F_DST_LOCAL), 3);
	assert_int_equal(pkts(eng, 1), 2);
	/* A source that is not this host's: addrtype LOCAL does not match. */
	d = eng_stack_decide(eng, up6("2001:db8::5", "2001:db8::2", FC_KEY_F_DST_LOCAL), 4);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 4), 1);
	assert_int_equal(pkts(eng, 5), 2);
	eng_stack_free(eng);
}

/*
 * IPv6 forwarding refuses a link-local or unspecified source (Linux's
 * ip6_forward(), before the FORWARD hook): PREROUTING's tables count the
 * packet, FORWARD's do not; also where a DNAT makes it forwarded. To this
 * host, or a global source, it passes.
 */
static void
test_unforwardable6(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_decision d;

	(void)state;
	load_ipt(eng, forged6_rules, FC_AF_INET6);
	expect_martian(eng, up6("fe80::1", "2001:db8:9::7", 0), 1);
	expect_martian(eng, up6("::", "2001:db8:9::8", 0), 2);
	/* (A DNAT that makes it forwarded: corpus_diff's dnat-range.v6; this
	 * engine has no local-address table for NAT to ask.) */
	assert_int_equal(pkts(eng, 1), 2);
	assert_int_equal(pkts(eng, 6), 0);
	d = eng_stack_decide(eng, up6("fe80::1", "2001:db8::2", FC_KEY_F_DST_LOCAL), 4);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 5), 1);
	d = eng_stack_decide(eng, up6("2001:db8:5::1", "2001:db8:9::7", 0), 5);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(pkts(eng, 6), 1);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_martian4),
		cmocka_unit_test(test_martian6),
		cmocka_unit_test(test_forged4),
		cmocka_unit_test(test_forged6),
		cmocka_unit_test(test_unforwardable6),
	};

	if (gufc_test_eal_init("martian", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
