/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m string": the options read as iptables reads them
 * (--string, --hex-string with its "|..|" blocks and literals, --algo,
 * --from, --to, --icase, negation), written back as iptables-save writes
 * them, round trips through both rule languages, the refusals with their
 * places, and the search itself (rule_str_find()) at its boundaries: a
 * pattern at offset 0, ending at --to or straddling it, longer than the
 * packet or the window, case folding; then whole rules on packet bytes
 * through the reference evaluator.
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
		{"-m string --string \"BitTorrent\" --algo bm -j DROP",
			"-m string --string \"BitTorrent\" --algo bm -j DROP"},
		{"-m string --hex-string \"|13|BitTorrent protocol\" --algo kmp -j DROP",
			"-m string --hex-string \"|13426974546f7272656e742070726f746f636f6c|\" --algo kmp -j DROP"},
		{"-m string --algo kmp --string \"GET /w00tw00t\" -j DROP",
			"-m string --string \"GET /w00tw00t\" --algo kmp -j DROP"},
		{"-m string --hex-string \"|0a 0d|ab|ff|\" --algo bm -j ACCEPT",
			"-m string --hex-string \"|0a0d6162ff|\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"|41 42|\" --algo bm -j ACCEPT",
			"-m string --string \"AB\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"| 41|\" --algo bm -j ACCEPT",
			"-m string --string \"A\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"a\\\\|b\" --algo bm -j ACCEPT",
			"-m string --string \"a|b\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"|41||42|\" --algo bm -j ACCEPT",
			"-m string --string \"A|42\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"|41|  z\" --algo bm -j ACCEPT",
			"-m string --string \"A  z\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"x\\\\y\" --algo bm -j ACCEPT",
			"-m string --string \"xy\" --algo bm -j ACCEPT"},
		{"-m string --hex-string \"\\\\\\\\\" --algo bm -j ACCEPT",
			"-m string --hex-string \"|5c|\" --algo bm -j ACCEPT"},
		{"-m string --string \"a\\\\b\" --algo bm -j ACCEPT",
			"-m string --string \"a\\\\b\" --algo bm -j ACCEPT"},
		{"-m string --string \"a\\\\\" --algo bm -j ACCEPT",
			"-m string --hex-string \"|615c|\" --algo bm -j ACCEPT"},
		{"-m string ! --string \"a|b\\\"c d\" --algo bm -j ACCEPT",
			"-m string ! --string \"a|b\\\"c d\" --algo bm -j ACCEPT"},
		{"-m string --string \"Hello\" --algo bm --from 0 --to 65535 -j ACCEPT",
			"-m string --string \"Hello\" --algo bm -j ACCEPT"},
		{"-m string --string a --algo bm --from 0x10 -j ACCEPT",
			"-m string --string \"a\" --algo bm --from 16 -j ACCEPT"},
		{"-m string --string a --algo bm --from 5 --to 5 -j ACCEPT",
			"-m string --string \"a\" --algo bm --from 5 --to 5 -j ACCEPT"},
		{"-m string --hex-string \"|13|BitTorrent protocol\" --algo kmp --from 40 --to 100 --icase -j DROP",
			"-m string --hex-string \"|13426974546f7272656e742070726f746f636f6c|\" --algo kmp --from 40 --to 100 --icase -j DROP"},
		{"-m string --string a --algo bm -m string --string b --algo kmp --to 0 -j DROP",
			"-m string --string \"a\" --algo bm -m string --string \"b\" --algo kmp --to 0 -j DROP"},
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
	s = rule_set_parse("drop string \"GET /w00tw00t\" string_algo kmp string_to 512\n"
			   "drop hex_string !\"|00|x\" string_algo bm string_icase\n",
		"n", &err);
	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	t = dump(s, false);
	assert_non_null(strstr(t, "string \"GET /w00tw00t\" string_algo kmp string_to 512"));
	assert_non_null(strstr(t, "hex_string !\"|0078|\" string_algo bm string_icase"));
	free(t);
	rule_set_free(s);
	/* No algorithm: as iptables. */
	assert_null(rule_set_parse("drop string \"x\"\n", "n", &err));
	assert_string_equal(err.msg, "string needs --algo (bm or kmp)");
}

static void
test_refused(void **state)
{
	static const struct {
		const char *rule, *token, *msg;
	} cases[] = {
		{"-m string --string x -j DROP", "string", "string needs --algo (bm or kmp)"},
		{"-m string --algo bm -j DROP", "string", "string needs --string or --hex-string"},
		{"-m string --string x --algo fsm -j DROP", "fsm", "unknown name"},
		{"-m string --string \"\" --algo bm -j DROP", "", "empty pattern"},
		{"-m string --hex-string \"|4|\" --algo bm -j DROP", "|4|", "hex block not closed with '|'"},
		{"-m string --hex-string \"|41\" --algo bm -j DROP", "|41", "hex block not closed with '|'"},
		{"-m string --hex-string \"|zz|\" --algo bm -j DROP", "|zz|", "bad hex digit"},
		{"-m string --hex-string \"||\" --algo bm -j DROP", "||", "odd number of hex digits"},
		{"-m string --hex-string \"|41\\\\42|\" --algo bm -j DROP", "|41\\42|", "a \\ literal inside a hex block"},
		{"-m string --hex-string \"x\\\\\" --algo bm -j DROP", "x\\", "a \\ at the end with no byte after it"},
		{"-m string --string x --string y --algo bm -j DROP", "--string", "option given twice"},
		{"-m string --string x --hex-string \"|41|\" --algo bm -j DROP", "--hex-string", "option given twice"},
		{"-m string --string x --algo bm --from 70000 -j DROP", "70000", "bad number"},
		{"-m string --string x --algo bm --from 20 --to 10 -j DROP", "string", "string --from is past --to"},
		{"-m string --string x --algo bm ! --icase -j DROP", "--icase", "option cannot be negated"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rule_error err;
		struct rule_set *s = load(cases[i].rule, &err);

		if (s != NULL)
			fail_msg("case %zu: '%s' loaded", i, cases[i].rule);
		if (strcmp(err.msg, cases[i].msg) != 0 || strcmp(err.token, cases[i].token) != 0)
			fail_msg("case %zu: %s '%s', want %s '%s'", i, err.msg, err.token, cases[i].msg,
				cases[i].token);
		assert_int_equal(err.line, 5);
	}
}

static void
test_long_patterns(void **state)
{
	char rule[1024], hex[300];
	struct rule_error err;
	struct rule_set *s;

	(void)state;
	/* 128 bytes: iptables' most; 129 refused. */
	memset(hex, 'x', 128);
	hex[128] = '\0';
	snprintf(rule, sizeof(rule), "-m string --string \"%s\" --algo bm -j DROP", hex);
	s = load(rule, &err);
	assert_non_null(s);
	rule_set_free(s);
	snprintf(rule, sizeof(rule), "-m string --string \"%sx\" --algo bm -j DROP", hex);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "pattern longer than 128 bytes");
	/* 128 bytes in hex (what the export writes for them) reads back. */
	hex[0] = '|';
	for (unsigned int i = 0; i < 128; i++)
		memcpy(hex + 1 + 2 * i, "01", 2);
	hex[257] = '|';
	hex[258] = '\0';
	snprintf(rule, sizeof(rule), "-m string --hex-string \"%s\" --algo bm -j DROP", hex);
	s = load(rule, &err);
	assert_non_null(s);
	rule_set_free(s);
	snprintf(rule, sizeof(rule), "-m string --hex-string \"%s01|\" --algo bm -j DROP", hex);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "pattern longer than 128 bytes");
}

/* ------------------------------------------------------------------------ */
/* The search                                                                */
/* ------------------------------------------------------------------------ */

static struct rule_x_string
pat(const char *p, uint16_t from, uint16_t to)
{
	struct rule_x_string st;

	memset(&st, 0, sizeof(st));
	st.len = (uint8_t)strlen(p);
	memcpy(st.pat, p, st.len);
	st.from = from;
	st.to = to;
	return st;
}

static void
test_search(void **state)
{
	const uint8_t *pk = (const uint8_t *)"abcdefghij"; /* 10 bytes */
	struct rule_x_string st;

	(void)state;
	st = pat("abc", 0, 65535);
	assert_true(rule_str_find(&st, false, pk, 10)); /* at offset 0 */
	st = pat("hij", 0, 65535);
	assert_true(rule_str_find(&st, false, pk, 10)); /* at the end */
	assert_false(rule_str_find(&st, false, pk, 9)); /* past the datagram */
	st = pat("def", 0, 6);
	assert_true(rule_str_find(&st, false, pk, 10)); /* ends at --to */
	st = pat("def", 0, 5);
	assert_false(rule_str_find(&st, false, pk, 10)); /* straddles --to */
	st = pat("def", 3, 65535);
	assert_true(rule_str_find(&st, false, pk, 10)); /* starts at --from */
	st = pat("def", 4, 65535);
	assert_false(rule_str_find(&st, false, pk, 10)); /* starts before --from */
	st = pat("abcdefghijk", 0, 65535);
	assert_false(rule_str_find(&st, false, pk, 10)); /* longer than the packet */
	st = pat("cd", 2, 3);
	assert_false(rule_str_find(&st, false, pk, 10)); /* longer than the window */
	st = pat("a", 10, 65535);
	assert_false(rule_str_find(&st, false, pk, 10)); /* --from past the end */
	st = pat("a", 5, 5);
	assert_false(rule_str_find(&st, false, pk, 10));
	st = pat("DeF", 0, 65535);
	assert_false(rule_str_find(&st, false, pk, 10));
	assert_true(rule_str_find(&st, true, pk, 10));
	assert_false(rule_str_find(&st, true, NULL, 0));
	/* The kernel's toupper(): Latin-1 letters fold, 0xdf onto 0xbf, 0xf7 not. */
	assert_int_equal(rule_str_fold(0xe9), 0xc9);
	assert_int_equal(rule_str_fold(0xdf), 0xbf);
	assert_int_equal(rule_str_fold(0xff), 0xdf);
	assert_int_equal(rule_str_fold(0xf7), 0xf7);
	assert_int_equal(rule_str_fold('['), '[');
	assert_int_equal(rule_str_fold('{'), '{');
}

/* Whole rules on a UDP packet's bytes: the reference evaluator. */
static void
test_eval(void **state)
{
	static const struct {
		const char *matches;
		bool drop;
	} cases[] = {
		{"-m string --string \"BitTorrent\" --algo bm", true},
		{"-m string --string \"bittorrent\" --algo kmp", false},
		{"-m string --string \"bittorrent\" --algo kmp --icase", true},
		{"-m string ! --string \"BitTorrent\" --algo bm", false},
		{"-m string ! --string \"nothere\" --algo bm", true},
		{"-m string --hex-string \"|13|BitT\" --algo bm", true},
		/* "BitTorrent" is bytes 29..38 of the datagram. */
		{"-m string --string \"BitTorrent\" --algo bm --from 30", false},
		{"-m string --string \"BitTorrent\" --algo bm --from 29 --to 39", true},
		{"-m string --string \"BitTorrent\" --algo bm --to 38", false},
		/* The IP header is offset 0: its version byte and protocol. */
		{"-m string --hex-string \"|45|\" --algo bm --to 1", true},
		{"-m string --hex-string \"|11|\" --algo bm --from 9 --to 10", true},
		{"-m string --string a --algo bm -m string --string \"Bit\" --algo bm", false},
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
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_long_patterns),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_eval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
