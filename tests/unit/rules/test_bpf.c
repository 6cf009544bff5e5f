/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m bpf --bytecode": the program read as iptables reads it
 * and written back as iptables-save writes it (through both rule
 * languages), the checks Linux makes before it runs a classic program
 * (each refusal with its reason), --object-pinned refused, and programs
 * run on a UDP packet through the reference evaluator: loads, LDX MSH,
 * indexed loads, scratch memory, ALU operations, jumps, RET A, a load past
 * the datagram and a division by a zero X ending the program with 0;
 * programs past a rule's own bytes (up to xt_bpf's 64 instructions) held
 * out of line by their rule set, one more refused.
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

static void
test_options(void **state)
{
	static const struct rule_rt_case cases[] = {
		{"-m bpf --bytecode \"4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0\" -j DROP",
			"-m bpf --bytecode \"4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0\" -j DROP"},
		/* blanks, '+', a trailing ',' and text after an instruction's numbers: as iptables */
		{"-m bpf --bytecode \"2, 48  0 0 +9 x,6 0 0 4294967295,\" -j DROP",
			"-m bpf --bytecode \"2,48 0 0 9,6 0 0 4294967295\" -j DROP"},
	};

	(void)state;
	rule_roundtrips(cases, sizeof(cases) / sizeof(cases[0]));
}

static void
test_refused(void **state)
{
	static const struct {
		const char *prog, *msg;
	} cases[] = {
		{"x", "bpf: error parsing program length"},
		{"2 48 0 0 9", "bpf: error parsing program length"},
		{"0,6 0 0 1", "bpf: illegal zero length program"},
		{"65,6 0 0 1", "bpf: number of instructions exceeds maximum (64)"},
		{"1,6 0 0 1,6 0 0 1", "bpf: real program length exceeds the encoded length parameter"},
		{"2,6 0 0 1", "bpf: parsed program length is less than the encoded length parameter"},
		{"1,6 0 0", "bpf: error in an instruction (CODE JT JF K)"},
		{"1,6 256 0 1", "bpf: error in an instruction (CODE JT JF K)"},
		{"1,255 0 0 1", "bpf: unknown instruction code"},
		{"1,48 0 0 9", "bpf: the program does not end with a return"},
		{"2,52 0 0 0,6 0 0 1", "bpf: division by a constant 0"},
		{"2,148 0 0 0,6 0 0 1", "bpf: division by a constant 0"},
		{"2,100 0 0 32,6 0 0 1", "bpf: shift by a constant of 32 or more"},
		{"2,2 0 0 16,6 0 0 1", "bpf: scratch memory has 16 words"},
		{"2,5 0 0 1,6 0 0 1", "bpf: a jump past the end"},
		{"2,21 1 0 0,6 0 0 1", "bpf: a jump past the end"},
		{"2,96 0 0 3,22 0 0 0", "bpf: scratch memory read before it is written"},
		/* stored on one path only */
		{"5,21 0 1 0,2 0 0 3,96 0 0 3,22 0 0 0,6 0 0 0", "bpf: scratch memory read before it is written"},
		{"2,48 0 0 4294963200,22 0 0 0", "bpf: ancillary or negative-offset loads (SKF_*) are not supported"},
		{"2,32 0 0 4292870144,22 0 0 0", "bpf: ancillary or negative-offset loads (SKF_*) are not supported"},
	};
	struct rule_error err_any;
	struct rule_set *s_any;
	char rule[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rule_error err;
		struct rule_set *s;

		snprintf(rule, sizeof(rule), "-m bpf --bytecode \"%s\" -j DROP", cases[i].prog);
		s = load(rule, &err);
		if (s != NULL)
			fail_msg("case %zu: '%s' loaded", i, cases[i].prog);
		if (strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("case %zu: '%s': %s, want %s", i, cases[i].prog, err.msg, cases[i].msg);
		assert_int_equal(err.line, 5);
	}
	assert_null(load("-m bpf --object-pinned /sys/fs/bpf/p -j DROP", &err_any));
	assert_string_equal(err_any.msg, "bpf --object-pinned: eBPF lives in the kernel; gufc runs "
					 "--bytecode only");
	assert_null(load("-m bpf -j DROP", &err_any));
	assert_string_equal(err_any.msg, "bpf: missing --bytecode parameter");
	assert_null(load("-m bpf ! --bytecode \"1,6 0 0 1\" -j DROP", &err_any));
	/* Scratch memory stored on both paths: fine. */
	assert_non_null(s_any = load("-m bpf --bytecode \"6,21 0 2 0,2 0 0 3,5 0 0 1,2 0 0 3,96 0 0 3,22 0 0 0\" -j DROP", &err_any));
	rule_set_free(s_any);
}

/* Whole rules on a UDP packet's bytes: the reference evaluator. */
static void
test_eval(void **state)
{
	static const struct {
		const char *prog;
		bool drop;
	} cases[] = {
		{"4,48 0 0 9,21 0 1 17,6 0 0 1,6 0 0 0", true},                     /* UDP */
		{"4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0", false},                     /* TCP */
		{"7,48 0 0 9,21 0 4 17,177 0 0 0,72 0 0 2,21 0 1 200,6 0 0 1,6 0 0 0", true}, /* dport */
		{"5,177 0 0 0,80 0 0 8,21 0 1 19,6 0 0 1,6 0 0 0", true},          /* the first data byte */
		{"2,128 0 0 0,22 0 0 0", true},                                    /* RET A: the length */
		{"4,128 0 0 0,21 0 1 48,6 0 0 1,6 0 0 0", true},
		{"2,32 0 0 44,6 0 0 1", true},                                     /* the last word */
		{"2,32 0 0 45,6 0 0 1", false},                                    /* past the end */
		{"3,177 0 0 0,80 0 0 28,6 0 0 1", false},                          /* X+28 = 48: past */
		{"4,1 0 0 0,0 0 0 5,60 0 0 0,6 0 0 1", false},                     /* A / X, X = 0 */
		{"4,1 0 0 0,0 0 0 5,156 0 0 0,6 0 0 1", false},                    /* A % X, X = 0 */
		{"6,1 0 0 3,0 0 0 7,60 0 0 0,21 0 1 2,6 0 0 1,6 0 0 0", true},
		{"6,0 0 0 1,132 0 0 0,21 0 1 4294967295,6 0 0 1,6 0 0 0,6 0 0 0", true}, /* NEG */
		{"5,0 0 0 1,1 0 0 33,108 0 0 0,22 0 0 0,6 0 0 0", true},          /* A << (X & 31) = 2 */
		{"3,5 0 0 1,6 0 0 0,6 0 0 1", true},                               /* JA */
		{"8,0 0 0 10,2 0 0 5,0 0 0 0,97 0 0 5,135 0 0 0,21 0 1 10,6 0 0 1,6 0 0 0", true}, /* ST, LDX MEM, TXA */
		{"4,32 0 0 0,69 0 1 4026531840,6 0 0 1,6 0 0 0", true},            /* JSET 0xf0000000 */
		{"5,0 0 0 7,7 0 0 0,29 0 1 0,6 0 0 1,6 0 0 0", true},              /* TAX, JEQ X */
	};
	char what[32], m[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %zu", i);
		snprintf(m, sizeof(m), "-m bpf --bytecode \"%s\"", cases[i].prog);
		if (payload_drops(m, what) != cases[i].drop)
			fail_msg("case %zu '%s': %s", i, cases[i].prog, cases[i].drop ? "accept" : "drop");
	}
}

/* A program of @p n instructions (n >= 4): A = the protocol, filler, A == 17? 1 : 0. */
static void
long_prog(char *out, size_t len, unsigned int n)
{
	size_t o = (size_t)snprintf(out, len, "%u,48 0 0 9", n);

	for (unsigned int i = 0; i < n - 4; i++)
		o += (size_t)snprintf(out + o, len - o, ",1 0 0 %u", 4000000000u + i);
	snprintf(out + o, len - o, ",21 0 1 17,6 0 0 1,6 0 0 0");
}

/* xt_bpf's 64 instructions: held out of line by the set, written back, run. */
static void
test_long(void **state)
{
	char prog[2048], rule[2304], *nat, *nat2;
	struct rule_error err;
	struct rule_set *s, *c;
	struct rule r;
	unsigned int base = rule_xblob_count();

	(void)state;
	long_prog(prog, sizeof(prog), 64);
	snprintf(rule, sizeof(rule), "-m bpf --bytecode \"%s\" -j DROP", prog);
	/* Both languages read it back; the same program is held once. */
	s = rule_roundtrip(rule, rule, (int)base + 1, "64 instructions");
	assert_int_equal(rule_xblob_count(), base + 1);
	/* A clone keeps it after the set it came from is freed. */
	nat = dump(s, false);
	c = rule_set_clone(s);
	assert_non_null(c);
	rule_set_free(s);
	nat2 = dump(c, false);
	assert_string_equal(nat, nat2);
	free(nat2);
	rule_set_free(c);
	assert_int_equal(rule_xblob_count(), base);
	free(nat);

	/* One more instruction: refused as iptables refuses it. */
	long_prog(prog, sizeof(prog), 65);
	snprintf(rule, sizeof(rule), "-m bpf --bytecode \"%s\" -j DROP", prog);
	assert_null(load(rule, &err));
	assert_string_equal(err.msg, "bpf: number of instructions exceeds maximum (64)");

	/* A rule on its own has no set to hold it; one parsed for a set does. */
	long_prog(prog, sizeof(prog), 64);
	snprintf(rule, sizeof(rule), "drop bpf_bytecode \"%s\"", prog);
	assert_int_equal(rule_parse(rule, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "bpf: a program past a rule's 135 bytes needs a rule set to hold it");
	s = rule_set_create();
	assert_non_null(s);
	assert_int_equal(rule_parse_set(rule, s, &r, &err), 0);
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL), 0);
	assert_int_equal(rule_xblob_count(), base + 1);
	rule_set_free(s);
	assert_int_equal(rule_xblob_count(), base);
}

/* The 64-instruction program decides as the short one does (reference evaluator). */
static void
test_long_eval(void **state)
{
	static const uint8_t protos[] = {17, 6};
	char prog[2048], text[2560];
	uint8_t frame[14 + 48];
	struct fc_key k;

	(void)state;
	long_prog(prog, sizeof(prog), 64);
	snprintf(text, sizeof(text), HEAD "-A FORWARD -m bpf --bytecode \"%s\" -j DROP\nCOMMIT\n",
		prog);
	for (size_t i = 0; i < sizeof(protos); i++) {
		struct rule_ipt_opts o = {.family = FC_AF_INET4};
		struct rule_error err;
		struct rule_set *s;
		struct rule_eval ev;
		struct rule_pkt p;

		memset(frame, 0, sizeof(frame));
		frame[12] = 0x08;
		frame[14] = 0x45;
		frame[14 + 3] = 48;
		frame[14 + 8] = 64;
		frame[14 + 9] = protos[i];
		memcpy(frame + 14 + 12, "\xc0\x00\x02\x01\xc6\x33\x64\x01", 8);
		assert_int_equal(fc_key_parse(protos[i] == 17 ? "udp 192.0.2.1:100 -> 198.51.100.1:200"
							      : "tcp 192.0.2.1:100 -> 198.51.100.1:200",
					 &k, NULL),
			0);
		s = rule_set_parse_iptables_opts(text, "t", &o, &err);
		if (s == NULL)
			fail_msg("%s '%s'", err.msg, err.token);
		rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
		assert_int_equal(rule_pkt_parse(&p, frame, sizeof(frame), 14, 34), 0);
		assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
		assert_int_equal(ev.verdict == RULE_VERDICT_DROP, protos[i] == 17);
		rule_set_free(s);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_long_eval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
