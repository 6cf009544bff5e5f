/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the reference evaluator (the oracle) and rule_match_key():
 * first match, every field with negations, ranges, lists, prefixes of all
 * lengths, local bits, ctstate sets, hooks chosen by the local bits,
 * JUMP/RETURN/GOTO and policies, packets without ports, and the nat hooks.
 * A randomized check compares against an independent naive matcher.
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

#include "rule_lang.h"
#include "rules.h"

#define SL  FC_KEY_F_SRC_LOCAL
#define DL  FC_KEY_F_DST_LOCAL
#define NOP RULE_KEY_F_NOPORTS
#define EST RULE_CT_ESTABLISHED

static struct fc_key
k4(const char *src, const char *dst, uint8_t proto, uint16_t sport, uint16_t dport, uint8_t flags)
{
	struct fc_key k;

	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	assert_int_equal(inet_pton(AF_INET, src, &k.v4.src), 1);
	assert_int_equal(inet_pton(AF_INET, dst, &k.v4.dst), 1);
	k.v4.proto = proto;
	k.v4.sport = htons(sport);
	k.v4.dport = htons(dport);
	k.v4.flags = flags;
	return k;
}

static struct fc_key
k6(const char *src, const char *dst, uint8_t proto, uint16_t sport, uint16_t dport, uint8_t flags)
{
	struct fc_key k;

	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, src, k.v6.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, k.v6.dst), 1);
	k.v6.proto = proto;
	k.v6.sport = htons(sport);
	k.v6.dport = htons(dport);
	k.v6.flags = flags;
	return k;
}

static struct rule_set *
set_of(const char *text)
{
	struct rule_error err;
	struct rule_set *s = rule_set_parse(text, "test", &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	return s;
}

/* Filter result for key @k: the rule id (RULE_ID_POLICY for a policy). */
static struct rule_result
filt(const struct rule_set *s, struct fc_key k, unsigned int ct, unsigned int kflags)
{
	struct rule_result r;

	assert_int_equal(rule_ref_filter(s, &k, ct, kflags, &r), 0);
	return r;
}

/*
 * Does the single rule @text match? Answer through rule_match_key() and
 * through the evaluator (a set "policy drop" + the rule as accept); both
 * must agree.
 */
static bool
m(const char *text, struct fc_key k, unsigned int ct, unsigned int kflags)
{
	char buf[512];
	struct rule r;
	struct rule_set *s;
	struct rule_result res;
	bool direct;

	if (rule_parse(text, &r, NULL) != 0)
		fail_msg("bad rule '%s'", text);
	direct = rule_match_key(&r, &k, ct, kflags);
	snprintf(buf, sizeof(buf), "policy drop\n%s", text);
	s = set_of(buf);
	/* Every filter hook enters main, whatever the local bits. */
	res = filt(s, k, ct, kflags);
	rule_set_free(s);
	assert_int_equal(res.verdict == RULE_VERDICT_ACCEPT, direct);
	assert_int_equal(res.rule_id, direct ? 1 : RULE_ID_POLICY);
	return direct;
}

#define TCP(s, d, sp, dp) k4(s, d, 6, sp, dp, 0)
#define UDP(s, d, sp, dp) k4(s, d, 17, sp, dp, 0)
#define A		  "1.1.1.1"

/* ------------------------------------------------------------------------ */
/* Fields                                                                    */
/* ------------------------------------------------------------------------ */

static void
test_first_match(void **state)
{
	struct rule_set *s;
	struct rule_result r;

	(void)state;
	s = set_of("accept proto tcp\ndrop proto tcp\ndrop proto udp\naccept proto udp");
	r = filt(s, TCP(A, A, 1, 2), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, 1);
	assert_int_equal(r.hook, RULE_HOOK_FORWARD);
	r = filt(s, UDP(A, A, 1, 2), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, 3);
	r = filt(s, k4(A, A, 1, 0, 0, 0), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	rule_set_free(s);

	s = set_of("policy drop");
	r = filt(s, TCP(A, A, 1, 2), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	rule_set_free(s);

	/* Default policy is accept. */
	s = set_of("");
	r = filt(s, k6("::1", "::2", 6, 1, 2, DL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	rule_set_free(s);
}

static void
test_prefix_v4(void **state)
{
	(void)state;
	assert_true(m("accept src 0.0.0.0/0", TCP("255.255.255.255", A, 1, 1), 0, 0));
	assert_true(m("accept src 0.0.0.0/0", TCP("0.0.0.0", A, 1, 1), 0, 0));
	assert_false(m("accept src 0.0.0.0/0", k6("::", "::", 6, 1, 1, 0), 0, 0));
	assert_true(m("accept src 10.1.2.3", TCP("10.1.2.3", A, 1, 1), 0, 0));
	assert_false(m("accept src 10.1.2.3/32", TCP("10.1.2.4", A, 1, 1), 0, 0));
	assert_false(m("accept src 10.1.2.3", TCP(A, "10.1.2.3", 1, 1), 0, 0));
	assert_true(m("accept src 10.0.0.0/8", TCP("10.255.255.255", A, 1, 1), 0, 0));
	assert_false(m("accept src 10.0.0.0/8", TCP("11.0.0.0", A, 1, 1), 0, 0));
	assert_false(m("accept src 10.0.0.0/8", TCP("9.255.255.255", A, 1, 1), 0, 0));
	assert_true(m("accept dst 172.16.0.0/12", TCP(A, "172.31.255.255", 1, 1), 0, 0));
	assert_true(m("accept dst 172.16.0.0/12", TCP(A, "172.16.0.0", 1, 1), 0, 0));
	assert_false(m("accept dst 172.16.0.0/12", TCP(A, "172.32.0.0", 1, 1), 0, 0));
	assert_false(m("accept dst 172.16.0.0/12", TCP(A, "172.15.255.255", 1, 1), 0, 0));
	assert_true(m("accept dst 192.0.2.4/31", TCP(A, "192.0.2.5", 1, 1), 0, 0));
	assert_false(m("accept dst 192.0.2.4/31", TCP(A, "192.0.2.6", 1, 1), 0, 0));
	assert_false(m("accept dst 192.0.2.4/31", TCP(A, "192.0.2.3", 1, 1), 0, 0));
	assert_true(m("accept src 128.0.0.0/1", TCP("200.1.1.1", A, 1, 1), 0, 0));
	assert_false(m("accept src 128.0.0.0/1", TCP("127.255.255.255", A, 1, 1), 0, 0));
	/* Negation. */
	assert_true(m("accept dst !192.168.0.0/16", TCP(A, "10.0.0.1", 1, 1), 0, 0));
	assert_false(m("accept dst !192.168.0.0/16", TCP(A, "192.168.1.1", 1, 1), 0, 0));
	assert_false(m("accept dst !0.0.0.0/0", TCP(A, "10.0.0.1", 1, 1), 0, 0));
	/* A negated address still restricts the rule to its family. */
	assert_false(m("accept dst !192.168.0.0/16", k6("::1", "::2", 6, 1, 1, 0), 0, 0));
	/* Both addresses must match. */
	assert_true(
		m("accept src 10.0.0.0/8 dst !10.0.0.0/8", TCP("10.0.0.1", "8.8.8.8", 1, 1), 0, 0));
	assert_false(m(
		"accept src 10.0.0.0/8 dst !10.0.0.0/8", TCP("10.0.0.1", "10.8.8.8", 1, 1), 0, 0));
}

static void
test_prefix_v6(void **state)
{
	(void)state;
	assert_true(m("accept src ::/0", k6("ffff::1", "::", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept src ::/0", TCP(A, A, 1, 1), 0, 0));
	assert_true(m("accept dst 2001:db8::1", k6("::", "2001:db8::1", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept dst 2001:db8::1/128", k6("::", "2001:db8::2", 6, 1, 1, 0), 0, 0));
	assert_false(
		m("accept dst 2001:db8::1/128", k6("::", "2001:db8::1:0:0:1", 6, 1, 1, 0), 0, 0));
	assert_true(m(
		"accept src 2001:db8:0:8::/61", k6("2001:db8:0:f:ffff::", "::", 6, 1, 1, 0), 0, 0));
	assert_false(
		m("accept src 2001:db8:0:8::/61", k6("2001:db8:0:10::", "::", 6, 1, 1, 0), 0, 0));
	assert_false(
		m("accept src 2001:db8:0:8::/61", k6("2001:db8:0:7::", "::", 6, 1, 1, 0), 0, 0));
	assert_true(m("accept src 2001:db8::/33", k6("2001:db8:7fff::", "::", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept src 2001:db8::/33", k6("2001:db8:8000::", "::", 6, 1, 1, 0), 0, 0));
	assert_true(m("accept src !2001:db8::/32", k6("2001:db9::", "::", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept src !2001:db8::/32", k6("2001:db8:1::", "::", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept src !2001:db8::/32", TCP(A, A, 1, 1), 0, 0));
	assert_true(m("accept dst ::ffff:0:0/96", k6("::", "::ffff:10.0.0.1", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept dst ::ffff:0:0/96", TCP(A, "10.0.0.1", 1, 1), 0, 0));
}

static void
test_family(void **state)
{
	(void)state;
	assert_true(m("accept ipv4", TCP(A, A, 1, 1), 0, 0));
	assert_false(m("accept ipv4", k6("::1", "::2", 6, 1, 1, 0), 0, 0));
	assert_true(m("accept ipv6", k6("::1", "::2", 6, 1, 1, 0), 0, 0));
	assert_false(m("accept ipv6 proto tcp", TCP(A, A, 1, 1), 0, 0));
	assert_true(m("accept", k6("::1", "::2", 6, 1, 1, 0), 0, 0));
	assert_true(m("accept", TCP(A, A, 1, 1), 0, 0));
}

static void
test_proto(void **state)
{
	(void)state;
	assert_true(m("accept proto tcp", TCP(A, A, 1, 1), 0, 0));
	assert_false(m("accept proto tcp", UDP(A, A, 1, 1), 0, 0));
	assert_true(m("accept proto !tcp", UDP(A, A, 1, 1), 0, 0));
	assert_false(m("accept proto !tcp", TCP(A, A, 1, 1), 0, 0));
	assert_true(m("accept proto gre", k4(A, A, 47, 0, 0, 0), 0, 0));
	assert_true(m("accept proto 0", k4(A, A, 0, 0, 0, 0), 0, 0));
	/* Numbers, whatever the family. */
	assert_true(m("accept proto icmp", k6("::1", "::2", 1, 0, 0, 0), 0, 0));
	assert_true(m("accept proto icmpv6", k4(A, A, 58, 0, 0, 0), 0, 0));
	assert_false(m("accept proto icmpv6", k6("::1", "::2", 1, 0, 0, 0), 0, 0));
}

static void
test_ports(void **state)
{
	const char *list = "accept proto tcp dport 22,80,8000-8080";

	(void)state;
	assert_true(m(list, TCP(A, A, 1, 22), 0, 0));
	assert_true(m(list, TCP(A, A, 1, 80), 0, 0));
	assert_true(m(list, TCP(A, A, 1, 8000), 0, 0));
	assert_true(m(list, TCP(A, A, 1, 8050), 0, 0));
	assert_true(m(list, TCP(A, A, 1, 8080), 0, 0));
	assert_false(m(list, TCP(A, A, 1, 23), 0, 0));
	assert_false(m(list, TCP(A, A, 1, 7999), 0, 0));
	assert_false(m(list, TCP(A, A, 1, 8081), 0, 0));
	assert_false(m(list, TCP(A, A, 22, 1), 0, 0));
	assert_false(m(list, UDP(A, A, 1, 22), 0, 0));
	assert_true(m("accept proto tcp dport !22,80", TCP(A, A, 1, 443), 0, 0));
	assert_false(m("accept proto tcp dport !22,80", TCP(A, A, 1, 80), 0, 0));
	assert_false(m("accept proto udp sport 1024-65535", UDP(A, A, 1023, 53), 0, 0));
	assert_true(m("accept proto udp sport 1024-65535", UDP(A, A, 1024, 53), 0, 0));
	assert_true(m("accept proto udp sport 1024-65535", UDP(A, A, 65535, 53), 0, 0));
	assert_true(m("accept proto udp sport 0", UDP(A, A, 0, 53), 0, 0));
	assert_true(m("accept proto sctp sport 5 dport 6", k4(A, A, 132, 5, 6, 0), 0, 0));
	assert_false(m("accept proto sctp sport 5 dport 6", k4(A, A, 132, 5, 7, 0), 0, 0));
	assert_false(m("accept proto sctp sport 5 dport 6", k4(A, A, 132, 4, 6, 0), 0, 0));
	/* ICMP keys carry stand-in ports; port rules never see them (proto differs). */
	assert_false(m("accept proto tcp dport 22", k4(A, A, 1, 22, 22, 0), 0, 0));
	assert_false(m("accept proto tcp dport !22", k4(A, A, 1, 7, 7, 0), 0, 0));
	assert_true(m("accept proto icmp", k4(A, A, 1, 22, 22, 0), 0, 0));
}

static void
test_noports(void **state)
{
	(void)state;
	/* A non-first fragment: no port match matches, negated or not. */
	assert_false(m("accept proto tcp dport 22", TCP(A, A, 0, 22), 0, NOP));
	assert_false(m("accept proto tcp dport !22", TCP(A, A, 0, 0), 0, NOP));
	assert_false(m("accept proto udp sport 0-65535", UDP(A, A, 0, 0), 0, NOP));
	assert_false(m("accept proto udp sport !53", UDP(A, A, 0, 0), 0, NOP));
	/* Rules without ports still match it. */
	assert_true(m("accept proto tcp", TCP(A, A, 0, 0), 0, NOP));
	assert_true(m("accept src 1.1.1.1 ctstate established", TCP(A, A, 0, 0), EST, NOP));
	/* Without the flag, the same key (ports 0) matches the negated rule. */
	assert_true(m("accept proto tcp dport !22", TCP(A, A, 0, 0), 0, 0));
}

static void
test_local(void **state)
{
	static const uint8_t combos[4] = {0, SL, DL, SL | DL};

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		uint8_t f = combos[i];
		struct fc_key k = k4(A, A, 6, 1, 1, f);

		assert_int_equal(m("accept src_local yes", k, 0, 0), (f & SL) != 0);
		assert_int_equal(m("accept src_local no", k, 0, 0), (f & SL) == 0);
		assert_int_equal(m("accept dst_local yes", k, 0, 0), (f & DL) != 0);
		assert_int_equal(m("accept dst_local no", k, 0, 0), (f & DL) == 0);
		assert_int_equal(m("accept src_local no dst_local yes", k, 0, 0), f == DL);
		assert_true(m("accept src_local any dst_local any", k, 0, 0));
		k = k6("::1", "::1", 6, 1, 1, f);
		assert_int_equal(m("accept dst_local yes", k, 0, 0), (f & DL) != 0);
	}
}

static void
test_ctstate(void **state)
{
	const char *pos = "accept ctstate new,established";
	const char *neg = "accept ctstate !new,established";
	struct fc_key k = TCP(A, A, 1, 1);
	struct rule r;

	(void)state;
	assert_true(m(pos, k, RULE_CT_NEW, 0));
	assert_true(m(pos, k, RULE_CT_ESTABLISHED, 0));
	assert_false(m(pos, k, RULE_CT_RELATED, 0));
	assert_false(m(pos, k, RULE_CT_INVALID, 0));
	assert_false(m(pos, k, 0, 0));
	assert_true(m(neg, k, RULE_CT_RELATED, 0));
	assert_true(m(neg, k, RULE_CT_INVALID, 0));
	assert_true(m(neg, k, 0, 0));
	assert_false(m(neg, k, RULE_CT_NEW, 0));
	assert_false(m(neg, k, RULE_CT_ESTABLISHED, 0));
	assert_true(m("accept ctstate invalid", k, RULE_CT_INVALID, 0));
	assert_true(m("accept", k, 0, 0));

	/* RULE_CT_IGNORE: "could this rule match this tuple at all". */
	assert_int_equal(rule_parse(pos, &r, NULL), 0);
	assert_true(rule_match_key(&r, &k, RULE_CT_IGNORE, 0));
	assert_int_equal(
		rule_parse("accept ctstate !new,established,related,invalid proto udp", &r, NULL),
		0);
	assert_true(rule_match_key(
		&r, &(struct fc_key){.family = FC_AF_INET4, .v4.proto = 17}, RULE_CT_IGNORE, 0));
	assert_false(rule_match_key(
		&r, &(struct fc_key){.family = FC_AF_INET4, .v4.proto = 6}, RULE_CT_IGNORE, 0));
	/* A key of no family matches nothing. */
	assert_int_equal(rule_parse("accept", &r, NULL), 0);
	assert_false(rule_match_key(&r, &(struct fc_key){.family = FC_AF_NONE}, 0, 0));
}

static void
test_channel(void **state)
{
	struct rule_set *s = set_of("accept channel web proto tcp dport 80\naccept");
	struct rule_result r;

	(void)state;
	r = filt(s, TCP(A, A, 1, 80), 0, 0);
	assert_int_equal(r.rule_id, 1);
	assert_string_equal(r.channel, "web");
	r = filt(s, TCP(A, A, 1, 81), 0, 0);
	assert_int_equal(r.rule_id, 2);
	assert_string_equal(r.channel, "");
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */
/* Hooks and chains                                                          */
/* ------------------------------------------------------------------------ */

static void
test_hooks(void **state)
{
	struct rule_set *s;
	struct rule_result r;

	(void)state;
	s = set_of("chain IN hook input policy drop\n"
		   "accept proto tcp dport 22\n" /* 1 */
		   "chain FWD hook forward\n"
		   "drop proto tcp dport 22\n" /* 2 */
		   "chain OUT hook output policy drop\n"
		   "accept proto udp\n"		   /* 3 */
		   "accept channel lo proto tcp\n" /* 4 */
		   "table filter\n"
		   "drop\n"); /* 5: main, entered by no hook */

	r = filt(s, k4(A, A, 6, 1, 22, DL), 0, 0);
	assert_int_equal(r.rule_id, 1);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	r = filt(s, k4(A, A, 6, 1, 23, DL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);

	r = filt(s, k4(A, A, 6, 1, 22, 0), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, 2);
	assert_int_equal(r.hook, RULE_HOOK_FORWARD);
	r = filt(s, k4(A, A, 6, 1, 23, 0), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);

	r = filt(s, k4(A, A, 17, 1, 22, SL), 0, 0);
	assert_int_equal(r.rule_id, 3);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);
	r = filt(s, k4(A, A, 6, 1, 22, SL), 0, 0);
	assert_int_equal(r.rule_id, 4);
	assert_string_equal(r.channel, "lo");
	r = filt(s, k4(A, A, 1, 0, 0, SL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);

	/* Local to local: OUTPUT then INPUT; INPUT's result, OUTPUT's channel. */
	r = filt(s, k4(A, A, 6, 1, 22, SL | DL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, 1);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	assert_string_equal(r.channel, "lo");
	r = filt(s, k4(A, A, 6, 1, 23, SL | DL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	r = filt(s, k4(A, A, 1, 0, 0, SL | DL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);
	rule_set_free(s);

	/* By default every filter hook enters main. */
	s = set_of("drop proto udp");
	for (unsigned int h = RULE_HOOK_INPUT; h <= RULE_HOOK_OUTPUT; h++)
		assert_string_equal(rule_set_hook_chain(s, RULE_TABLE_FILTER, h)->name, "main");
	assert_null(rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_PREROUTING));
	r = filt(s, k4(A, A, 17, 1, 1, SL | DL), 0, 0);
	assert_int_equal(r.rule_id, 1);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);
	rule_set_free(s);
}

static void
test_jump_return_goto(void **state)
{
	struct rule_set *s;
	struct rule_result r;

	(void)state;
	s = set_of("chain IN hook input policy drop\n"
		   "jump A proto tcp\n"		   /* 1 */
		   "accept proto udp\n"		   /* 2 */
		   "accept proto tcp dport 1000\n" /* 3 */
		   "chain A\n"
		   "goto B proto tcp dport 80,1000\n" /* 4 */
		   "accept proto tcp dport 1000\n"    /* 5: goto never comes back here */
		   "return proto tcp dport 22\n"      /* 6 */
		   "drop proto tcp dport 23\n"	      /* 7 */
		   "jump C proto tcp dport 24,25\n"   /* 8 */
		   "accept proto tcp dport 26\n"      /* 9 */
		   "accept proto tcp dport 24\n"      /* 10: after C returns */
		   "chain B\n"
		   "accept src 10.0.0.0/8\n" /* 11 */
		   "chain C\n"
		   "return proto tcp dport 24\n" /* 12 */
		   "drop\n");			 /* 13 */

	assert_int_equal(filt(s, k4("10.1.1.1", A, 6, 1, 80, DL), 0, 0).rule_id, 11);
	r = filt(s, k4("11.1.1.1", A, 6, 1, 80, DL), 0, 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	/* End of B returns past the JUMP in IN, not into A. */
	assert_int_equal(filt(s, k4("11.1.1.1", A, 6, 1, 1000, DL), 0, 0).rule_id, 3);
	/* RETURN in A goes back to IN after rule 1. */
	assert_int_equal(filt(s, k4(A, A, 6, 1, 22, DL), 0, 0).rule_id, RULE_ID_POLICY);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 23, DL), 0, 0).rule_id, 7);
	/* RETURN in C goes back into A, after rule 8. */
	assert_int_equal(filt(s, k4(A, A, 6, 1, 24, DL), 0, 0).rule_id, 10);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 25, DL), 0, 0).rule_id, 13);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 26, DL), 0, 0).rule_id, 9);
	/* End of A returns to IN. */
	assert_int_equal(filt(s, k4(A, A, 6, 1, 30, DL), 0, 0).rule_id, RULE_ID_POLICY);
	assert_int_equal(filt(s, k4(A, A, 17, 1, 1, DL), 0, 0).rule_id, 2);
	rule_set_free(s);

	/* RETURN in a base chain, and GOTO from one: the policy decides. */
	s = set_of("chain OUT hook output policy drop\n"
		   "return proto udp\n" /* 1 */
		   "accept\n"		/* 2 */
		   "chain FWD hook forward policy drop\n"
		   "goto D proto tcp\n" /* 3 */
		   "accept\n"		/* 4 */
		   "chain D\n"
		   "accept dport 1 proto tcp\n"); /* 5 */
	r = filt(s, k4(A, A, 17, 1, 1, SL), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 1, SL), 0, 0).rule_id, 2);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 1, 0), 0, 0).rule_id, 5);
	r = filt(s, k4(A, A, 6, 1, 2, 0), 0, 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(filt(s, k4(A, A, 17, 1, 2, 0), 0, 0).rule_id, 4);
	rule_set_free(s);

	/* Nested jumps, each returning one level. */
	s = set_of("jump X1\naccept proto udp\ndrop\n"
		   "chain X1\njump X2\nreturn proto udp\naccept proto tcp\n"
		   "chain X2\njump X3\ndrop dport 9 proto tcp\n"
		   "chain X3\nreturn\n");
	assert_int_equal(filt(s, k4(A, A, 6, 1, 1, 0), 0, 0).rule_id, 6);
	assert_int_equal(filt(s, k4(A, A, 6, 1, 9, 0), 0, 0).rule_id, 8);
	assert_int_equal(filt(s, k4(A, A, 17, 1, 9, 0), 0, 0).rule_id, 2);
	assert_int_equal(filt(s, k4(A, A, 1, 1, 9, 0), 0, 0).rule_id, 3);
	rule_set_free(s);
}

static void
test_ref_hook_api(void **state)
{
	struct rule_set *s = set_of("accept proto tcp\nchain X\n");
	struct fc_key k = TCP(A, A, 1, 1);
	const struct rule_chain *c;
	const struct rule *r;

	(void)state;
	assert_int_equal(
		rule_ref_hook(s, RULE_TABLE_FILTER, RULE_HOOK_FORWARD, &k, 0, 0, &r, &c), 0);
	assert_non_null(r);
	assert_int_equal(r->id, 1);
	assert_string_equal(c->name, "main");
	assert_int_equal(
		rule_ref_hook(s, RULE_TABLE_FILTER, RULE_HOOK_PREROUTING, &k, 0, 0, &r, &c),
		-EINVAL);
	assert_int_equal(
		rule_ref_hook(s, RULE_TABLE_NAT, RULE_HOOK_FORWARD, &k, 0, 0, &r, &c), -EINVAL);
	assert_int_equal(rule_ref_hook(s, RULE_TABLE_NAT, RULE_HOOK_INPUT, &k, 0, 0, &r, &c), 0);
	assert_null(c);
	assert_null(r);
	k.family = 0;
	assert_int_equal(
		rule_ref_hook(s, RULE_TABLE_FILTER, RULE_HOOK_INPUT, &k, 0, 0, &r, &c), -EINVAL);
	assert_int_equal(rule_ref_filter(s, &k, 0, 0, &(struct rule_result){0}), -EINVAL);
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */
/* NAT                                                                       */
/* ------------------------------------------------------------------------ */

static struct rule_nat_result
nat(const struct rule_set *s, enum rule_nat_stage st, struct fc_key k)
{
	struct rule_nat_result r;

	assert_int_equal(rule_ref_nat(s, st, &k, RULE_CT_NEW, 0, &r), 0);
	return r;
}

static void
test_nat(void **state)
{
	struct rule_set *s;
	struct rule_nat_result r;

	(void)state;
	s = set_of("table nat\n"
		   "chain dnat\n"
		   "accept src 192.0.2.0/24\n" /* 1 */
		   "jump PF proto udp\n"       /* 2 */
		   "chain PF\n"
		   "dnat to 10.0.0.7 proto udp dport 53\n" /* 3 */
		   "table filter\n"
		   "accept\n"								     /* 4 */
		   "dnat to 10.0.0.5:8080 proto tcp dst_local yes dport 80\n"		     /* 5 */
		   "dnat to [2001:db8::5] proto tcp dport 443 dst_local yes\n"		     /* 6 */
		   "snat to 203.0.113.1-203.0.113.4:20000-30000 proto udp src 10.1.0.0/16\n" /* 7 */
		   "masquerade src 10.0.0.0/8 dst !10.0.0.0/8\n");			     /* 8 */

	r = nat(s, RULE_NAT_DST, k4("198.51.100.1", "203.0.113.9", 6, 999, 80, DL));
	assert_int_equal(r.action, RULE_ACT_DNAT);
	assert_int_equal(r.rule_id, 5);
	assert_int_equal(r.hook, RULE_HOOK_PREROUTING);
	assert_int_equal(r.nat.family, FC_AF_INET4);
	assert_int_equal(r.nat.addr_min[3], 5);
	assert_int_equal(r.nat.port_min, 8080);
	assert_int_equal(r.nat.port_max, 8080);

	/* The exception comes first. */
	r = nat(s, RULE_NAT_DST, k4("192.0.2.1", "203.0.113.9", 6, 999, 80, DL));
	assert_int_equal(r.action, RULE_ACT_ACCEPT);
	assert_int_equal(r.rule_id, 1);

	r = nat(s, RULE_NAT_DST, k4(A, "203.0.113.9", 17, 999, 53, DL));
	assert_int_equal(r.action, RULE_ACT_DNAT);
	assert_int_equal(r.rule_id, 3);
	assert_int_equal(r.nat.addr_min[3], 7);
	assert_int_equal(r.nat.port_min, 0);

	r = nat(s, RULE_NAT_DST, k4(A, "203.0.113.9", 17, 999, 54, DL));
	assert_int_equal(r.action, RULE_ACT_ACCEPT);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);

	r = nat(s, RULE_NAT_DST, k6("2001:db8::9", "2001:db8::1", 6, 9, 443, DL));
	assert_int_equal(r.rule_id, 6);
	assert_int_equal(r.nat.family, FC_AF_INET6);
	assert_int_equal(r.nat.addr_min[15], 5);
	r = nat(s, RULE_NAT_DST, k4(A, "203.0.113.9", 6, 9, 443, DL));
	assert_int_equal(r.rule_id, RULE_ID_POLICY);

	/* Locally generated: nat OUTPUT, which enters no chain by default. */
	r = nat(s, RULE_NAT_DST, k4(A, "203.0.113.9", 6, 999, 80, SL | DL));
	assert_int_equal(r.action, RULE_ACT_ACCEPT);
	assert_int_equal(r.rule_id, RULE_ID_NONE);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);

	r = nat(s, RULE_NAT_SRC, k4("10.1.2.3", "8.8.8.8", 17, 5000, 53, 0));
	assert_int_equal(r.action, RULE_ACT_SNAT);
	assert_int_equal(r.rule_id, 7);
	assert_int_equal(r.hook, RULE_HOOK_POSTROUTING);
	assert_int_equal(r.nat.addr_min[3], 1);
	assert_int_equal(r.nat.addr_max[3], 4);
	assert_int_equal(r.nat.port_min, 20000);
	assert_int_equal(r.nat.port_max, 30000);
	r = nat(s, RULE_NAT_SRC, k4("10.1.2.3", "8.8.8.8", 6, 5000, 53, 0));
	assert_int_equal(r.action, RULE_ACT_MASQUERADE);
	assert_int_equal(r.rule_id, 8);
	r = nat(s, RULE_NAT_SRC, k4("10.1.2.3", "10.2.2.2", 6, 5000, 53, 0));
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	/* To this host: nat INPUT (no chain); local to local: POSTROUTING. */
	r = nat(s, RULE_NAT_SRC, k4("10.1.2.3", "8.8.8.8", 17, 5000, 53, DL));
	assert_int_equal(r.rule_id, RULE_ID_NONE);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	r = nat(s, RULE_NAT_SRC, k4("10.1.2.3", "8.8.8.8", 17, 5000, 53, SL | DL));
	assert_int_equal(r.rule_id, 7);
	assert_int_equal(r.hook, RULE_HOOK_POSTROUTING);
	/* The filter table is not affected by nat rules. */
	assert_int_equal(filt(s, k4(A, A, 6, 1, 80, DL), 0, 0).rule_id, 4);
	rule_set_free(s);

	/* User chains claiming nat OUTPUT and INPUT. */
	s = set_of("table nat\n"
		   "chain LOCAL hook output\ndnat to 127.0.0.1 proto tcp dport 80\n"
		   "chain SIN hook input\nsnat to 10.9.9.9 src !10.0.0.0/8\n");
	r = nat(s, RULE_NAT_DST, k4(A, A, 6, 1, 80, SL));
	assert_int_equal(r.action, RULE_ACT_DNAT);
	assert_int_equal(r.hook, RULE_HOOK_OUTPUT);
	r = nat(s, RULE_NAT_DST, k4(A, A, 6, 1, 80, 0));
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.hook, RULE_HOOK_PREROUTING);
	r = nat(s, RULE_NAT_SRC, k4(A, A, 6, 1, 80, DL));
	assert_int_equal(r.action, RULE_ACT_SNAT);
	assert_int_equal(r.rule_id, 2);
	assert_int_equal(rule_ref_nat(s, 7, &(struct fc_key){.family = 4}, 0, 0,
				 &(struct rule_nat_result){0}),
		-EINVAL);
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */
/* Randomized check against an independent naive matcher (IPv4)             */
/* ------------------------------------------------------------------------ */

static uint64_t rng = 88172645463325252ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct nkey {
	uint32_t src, dst; /* host order */
	uint16_t sport, dport;
	uint8_t proto, flags, ct, kflags;
};

static bool
naive_in_prefix(uint32_t a, const struct rule_prefix *p)
{
	uint64_t mask = ((1ull << p->len) - 1) << (32 - p->len);

	return (a & (uint32_t)mask) == be32_at(p->addr);
}

static bool
naive_in_ports(uint16_t port, const struct rule_ports *p)
{
	bool in = false;

	for (unsigned int i = 0; i < p->n; i++)
		in = in || (p->r[i].lo <= port && port <= p->r[i].hi);
	return in;
}

static bool
naive_match(const struct rule *r, const struct nkey *k)
{
	bool neg;

	if (r->family == FC_AF_INET6)
		return false;
	if (r->src_local == RULE_LOCAL_YES && !(k->flags & SL))
		return false;
	if (r->src_local == RULE_LOCAL_NO && (k->flags & SL))
		return false;
	if (r->dst_local == RULE_LOCAL_YES && !(k->flags & DL))
		return false;
	if (r->dst_local == RULE_LOCAL_NO && (k->flags & DL))
		return false;
	neg = (r->neg & RULE_M_SRC) != 0;
	if ((r->match & RULE_M_SRC) && naive_in_prefix(k->src, &r->src) == neg)
		return false;
	neg = (r->neg & RULE_M_DST) != 0;
	if ((r->match & RULE_M_DST) && naive_in_prefix(k->dst, &r->dst) == neg)
		return false;
	neg = (r->neg & RULE_M_PROTO) != 0;
	if ((r->match & RULE_M_PROTO) && (k->proto == r->proto) == neg)
		return false;
	if ((r->match & (RULE_M_SPORT | RULE_M_DPORT)) && (k->kflags & NOP))
		return false;
	neg = (r->neg & RULE_M_SPORT) != 0;
	if ((r->match & RULE_M_SPORT) && naive_in_ports(k->sport, &r->sport) == neg)
		return false;
	neg = (r->neg & RULE_M_DPORT) != 0;
	if ((r->match & RULE_M_DPORT) && naive_in_ports(k->dport, &r->dport) == neg)
		return false;
	neg = (r->neg & RULE_M_CTSTATE) != 0;
	if ((r->match & RULE_M_CTSTATE) && ((r->ctstate & k->ct) != 0) == neg)
		return false;
	return true;
}

/* A random rule line over a small value space, so that rules and keys meet. */
static void
random_line(char *buf, size_t len)
{
	static const char *const nets[] = {"10.0.0.0/8", "10.0.0.0/24", "10.0.0.1", "10.0.0.0/31",
		"0.0.0.0/0", "10.0.0.2/31", "10.0.0.0/30", "10.0.0.0/7"};
	static const char *const protos[] = {"tcp", "udp", "icmp"};
	static const char *const lists[] = {"1", "2", "1-3", "0,3", "2-4,6", "0-65535"};
	static const char *const cts[] = {"new", "established", "new,related", "invalid,new"};
	static const char *const locs[] = {"yes", "no", "any"};
	int n = snprintf(buf, len, "%s", rnd(2) ? "accept" : "drop");
	int proto = -1;

	if (rnd(3) == 0)
		n += snprintf(buf + n, len - (size_t)n, " ipv%d", rnd(4) ? 4 : 6);
	else {
		if (rnd(2))
			n += snprintf(buf + n, len - (size_t)n, " src %s%s", rnd(3) ? "" : "!",
				nets[rnd(8)]);
		if (rnd(2))
			n += snprintf(buf + n, len - (size_t)n, " dst %s%s", rnd(3) ? "" : "!",
				nets[rnd(8)]);
	}
	if (rnd(3) == 0)
		n += snprintf(buf + n, len - (size_t)n, " src_local %s", locs[rnd(3)]);
	if (rnd(3) == 0)
		n += snprintf(buf + n, len - (size_t)n, " dst_local %s", locs[rnd(3)]);
	if (rnd(3)) {
		bool neg = rnd(4) == 0;

		proto = (int)rnd(3);
		n += snprintf(
			buf + n, len - (size_t)n, " proto %s%s", neg ? "!" : "", protos[proto]);
		if (neg)
			proto = -1;
	}
	if (proto == 0 || proto == 1) {
		if (rnd(2))
			n += snprintf(buf + n, len - (size_t)n, " sport %s%s", rnd(3) ? "" : "!",
				lists[rnd(6)]);
		if (rnd(2))
			n += snprintf(buf + n, len - (size_t)n, " dport %s%s", rnd(3) ? "" : "!",
				lists[rnd(6)]);
	}
	if (rnd(3) == 0)
		snprintf(buf + n, len - (size_t)n, " ctstate %s%s", rnd(3) ? "" : "!", cts[rnd(4)]);
}

static void
test_random_vs_naive(void **state)
{
	static const uint8_t protos[] = {6, 17, 1};
	unsigned int matched = 0, policies = 0;

	(void)state;
	for (unsigned int round = 0; round < 300; round++) {
		char text[1 << 14], line[256];
		struct rule_set *s;
		const struct rule_chain *c;
		size_t n = 0;
		unsigned int nrules = 1 + rnd(12);
		bool drop = rnd(2);

		n += (size_t)snprintf(text, sizeof(text), "policy %s\n", drop ? "drop" : "accept");
		for (unsigned int i = 0; i < nrules; i++) {
			random_line(line, sizeof(line));
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s\n", line);
		}
		s = set_of(text);
		c = rule_set_chain_find(s, RULE_TABLE_FILTER, "main");
		assert_int_equal(c->n_rules, nrules);
		for (unsigned int j = 0; j < 200; j++) {
			struct nkey nk = {
				.src = 0x0a000000u + rnd(5),
				.dst = 0x0a000000u + rnd(5),
				.sport = (uint16_t)rnd(7),
				.dport = (uint16_t)rnd(7),
				.proto = protos[rnd(3)],
				.flags = (uint8_t)rnd(4),
				.ct = (uint8_t)(rnd(5) ? 1u << rnd(4) : 0),
				.kflags = (uint8_t)rnd(2),
			};
			struct fc_key k;
			struct rule_result res;
			uint32_t want = RULE_ID_POLICY;
			unsigned int verdict = drop ? RULE_VERDICT_DROP : RULE_VERDICT_ACCEPT;

			if (rnd(4) == 0)
				nk.src = 0x0b000000u + rnd(3);
			memset(&k, 0, sizeof(k));
			k.family = FC_AF_INET4;
			k.v4.src = htonl(nk.src);
			k.v4.dst = htonl(nk.dst);
			k.v4.sport = htons(nk.sport);
			k.v4.dport = htons(nk.dport);
			k.v4.proto = nk.proto;
			k.v4.flags = nk.flags;
			for (uint32_t i = 0; i < c->n_rules; i++)
				if (naive_match(&c->rules[i], &nk)) {
					want = c->rules[i].id;
					verdict = c->rules[i].action == RULE_ACT_DROP
							  ? RULE_VERDICT_DROP
							  : RULE_VERDICT_ACCEPT;
					break;
				}
			if ((nk.flags & (SL | DL)) == (SL | DL))
				continue; /* two passes: covered by test_hooks */
			assert_int_equal(rule_ref_filter(s, &k, nk.ct, nk.kflags, &res), 0);
			if (res.rule_id != want || res.verdict != verdict)
				fail_msg("round %u key %u: got %u, want %u\n%s", round, j,
					res.rule_id, want, text);
			if (want == RULE_ID_POLICY)
				policies++;
			else
				matched++;
		}
		rule_set_free(s);
	}
	/* The space is small enough that both outcomes are common. */
	assert_true(matched > 1000);
	assert_true(policies > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_match),
		cmocka_unit_test(test_prefix_v4),
		cmocka_unit_test(test_prefix_v6),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_proto),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_noports),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_ctstate),
		cmocka_unit_test(test_channel),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_jump_return_goto),
		cmocka_unit_test(test_ref_hook_api),
		cmocka_unit_test(test_nat),
		cmocka_unit_test(test_random_vs_naive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
