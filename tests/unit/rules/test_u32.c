/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m u32": the tests read as iptables reads them (blanks,
 * decimal, hex and octal numbers, ranges, "!"), written back as
 * iptables-save writes them (numbers in hex), round trips through both
 * rule languages, iptables' limits (10 tests of 10 numbers and 10
 * ranges, held out of line by the set past a rule's bytes; one more
 * refused), and whole rules on a UDP packet through the reference evaluator (offsets from the IP
 * header, "@" jumps, a read past the datagram failing the match).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipt_rule_test.h"

/* ------------------------------------------------------------------------ */
/* Reading and writing                                                       */
/* ------------------------------------------------------------------------ */

static void
test_options(void **state)
{
	/* The rule as read, as iptables-save writes it. */
	static const struct rule_rt_case cases[] = {
		{"-m u32 --u32 \"0>>22&0x3C@12>>26&0x3F=0\" -j DROP",
			"-m u32 --u32 \"0x0>>0x16&0x3c@0xc>>0x1a&0x3f=0x0\" -j DROP"},
		{"-m u32 --u32 \"6&0xFF=17 && 4&0x3FFF=0\" -j DROP",
			"-m u32 --u32 \"0x6&0xff=0x11&&0x4&0x3fff=0x0\" -j DROP"},
		{"-m u32 ! --u32 \" 0 >> 22 & 0x3C @ 4 = 0x2a \" -j ACCEPT",
			"-m u32 ! --u32 \"0x0>>0x16&0x3c@0x4=0x2a\" -j ACCEPT"},
		{"-m u32 --u32 \"0>>22&0x3C@8=1:5,010,0x20:0x10\" -j DROP",
			"-m u32 --u32 \"0x0>>0x16&0x3c@0x8=0x1:0x5,0x8,0x20:0x10\" -j DROP"},
		{"-m u32 --u32 0<<4=+4294967295 -j DROP",
			"-m u32 --u32 \"0x0<<0x4=0xffffffff\" -j DROP"},
		{"-m u32 --u32 \"0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0\" -j DROP",
			"-m u32 --u32 \"0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0&&0x0=0x0\" -j DROP"},
		{"-m u32 --u32 \"0&1&2&3&4&5&6&7&8&9=0,1,2,3,4,5,6,7,8,9\" -j DROP",
			"-m u32 --u32 \"0x0&0x1&0x2&0x3&0x4&0x5&0x6&0x7&0x8&0x9=0x0,0x1,0x2,0x3,0x4,0x5,0x6,0x7,0x8,0x9\" -j DROP"},
		{"-p udp -m u32 --u32 \"0>>22&0x3C@8=0xffffffff\" -m u32 --u32 \"6&0xff=17\" -j DROP",
			"-p udp -m u32 --u32 \"0x0>>0x16&0x3c@0x8=0xffffffff\" -m u32 --u32 \"0x6&0xff=0x11\" -j DROP"},
	};

	(void)state;
	rule_roundtrips(cases, sizeof(cases) / sizeof(cases[0]));
}

static void
test_native_syntax(void **state)
{
	struct rule_error err;
	struct rule_set *s;
	char *t;

	(void)state;
	s = rule_set_parse("drop u32 \"6 & 0xff = 17\"\ndrop u32 !\"0=1\"\n", "n", &err);
	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	t = dump(s, false);
	assert_non_null(strstr(t, "u32 \"0x6&0xff=0x11\""));
	assert_non_null(strstr(t, "u32 !\"0x0=0x1\""));
	free(t);
	rule_set_free(s);
	assert_null(rule_set_parse("drop u32 \"6&0xff\"\n", "n", &err));
	assert_string_equal(err.msg, "u32: abrupt end of input after a location");
	/* Linux refuses shifts of 32 or more when it loads the rule. */
	assert_null(rule_set_parse("drop u32 \"0<<32=0\"\n", "n", &err));
	assert_string_equal(err.msg, "u32: a shift of 32 or more (Linux refuses it)");
	assert_null(rule_set_parse("drop u32 \"0>>31>>0x20=0\"\n", "n", &err));
	assert_string_equal(err.msg, "u32: a shift of 32 or more (Linux refuses it)");
}

/* @p nt tests of @p nn big numbers and @p nv big ranges, into @p rule. */
static void
big_tests(char *rule, size_t len, unsigned int nt, unsigned int nn, unsigned int nv)
{
	size_t n = (size_t)snprintf(rule, len, "-m u32 --u32 \"");

	for (unsigned int t = 0; t < nt; t++) {
		n += (size_t)snprintf(rule + n, len - n, "%s0xffff%04x", t ? "&&" : "", t);
		for (unsigned int j = 1; j < nn; j++)
			n += (size_t)snprintf(rule + n, len - n, "&0xfffffff%x", j);
		n += (size_t)snprintf(rule + n, len - n, "=0x0");
		for (unsigned int j = 1; j < nv; j++)
			n += (size_t)snprintf(rule + n, len - n, ",0xfffffff%x:0xffffffff", j);
	}
	snprintf(rule + n, len - n, "\" -j DROP");
}

/* iptables' limits (10 tests, 10 numbers, 10 ranges) exactly: past a rule's bytes, held by the set. */
static void
test_limits(void **state)
{
	char rule[4096];
	struct rule_error err;
	struct rule_set *s;
	unsigned int base = rule_xblob_count();

	(void)state;
	big_tests(rule, sizeof(rule), 10, 10, 10);
	s = rule_roundtrip(rule, rule, (int)base + 1, "10 tests of 10 numbers and 10 ranges");
	assert_int_equal(rule_xblob_count(), base + 1);
	rule_set_free(s);
	assert_int_equal(rule_xblob_count(), base);
	/* One more of each: refused as iptables refuses it. */
	big_tests(rule, sizeof(rule), 11, 1, 1);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "u32: too many \"&&\"s (at most 10 tests)");
	big_tests(rule, sizeof(rule), 1, 11, 1);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "u32: too many operators (at most 10 numbers in a location)");
	big_tests(rule, sizeof(rule), 1, 1, 11);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "u32: too many ','s (at most 10 ranges in a value)");
	assert_int_equal(rule_xblob_count(), base);
}

/* Whole rules on a UDP packet's bytes: the reference evaluator. */
static void
test_eval(void **state)
{
	static const struct {
		const char *matches;
		bool drop;
	} cases[] = {
		{"-m u32 --u32 \"6&0xFF=17\"", true},
		{"-m u32 --u32 \"6&0xFF=6\"", false},
		{"-m u32 ! --u32 \"6&0xFF=6\"", true},
		{"-m u32 --u32 \"6&0xFF=17 && 4&0x3FFF=0\"", true},
		{"-m u32 --u32 \"0>>22&0x3C@0>>16=100\"", true},         /* source port */
		{"-m u32 --u32 \"0>>22&0x3C@0&0xFFFF=200\"", true},      /* destination port */
		{"-m u32 --u32 \"0>>22&0x3C@8>>24=0x13\"", true},        /* first payload byte */
		{"-m u32 --u32 \"0>>22&0x3C@8=0x13426974\"", true},
		{"-m u32 --u32 \"44=0:0xffffffff\"", true},               /* the last word */
		{"-m u32 --u32 \"45=0:0xffffffff\"", false},              /* past the datagram */
		{"-m u32 ! --u32 \"45=0:0xffffffff\"", true},
		{"-m u32 --u32 \"0>>22&0x3C@24=0:0xffffffff\"", true},
		{"-m u32 --u32 \"0>>22&0x3C@25=0:0xffffffff\"", false},
		{"-m u32 --u32 \"0>>22&0x3C@8>>24=0x12,0x14\"", false},
		{"-m u32 --u32 \"0>>22&0x3C@8>>24=0x12,0x13:0x13\"", true},
	};
	char what[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %zu", i);
		if (payload_drops(cases[i].matches, what) != cases[i].drop)
			fail_msg("case %zu '%s': %s", i, cases[i].matches, cases[i].drop ? "accept" : "drop");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_native_syntax),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_eval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
