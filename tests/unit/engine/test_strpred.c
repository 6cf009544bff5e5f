/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the fast path's string search (engine_strpred.h): the
 * Boyer-Moore-Horspool search the RX lcore runs must answer as the
 * reference search (rule_str_find()) does, on random patterns, packets and
 * windows from a small alphabet (so that matches, near matches, repeats and
 * case folds are frequent), with and without --icase; then the corner
 * cases named: a match at offset 0, ending at --to, straddling it, a
 * pattern longer than the packet, 128-byte patterns. And the fast
 * path's u32 tests (rule_engine_u32_match(), on decoded tests) against
 * the reference (rule_u32_match(), reading the encoding), on random tests
 * (offsets near the packet's end, "@" jumps, shifts past 31, ranges) read
 * from text, whose written form reads back the same. Pure (no EAL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rule_x_priv.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static bool
both(const struct rule_x_string *st, bool icase, const uint8_t *pk, uint32_t len)
{
	struct rule_strpred sp;
	bool ref = rule_str_find(st, icase, pk, len);

	rule_strpred_init(&sp, st, icase);
	if (rule_engine_str_find(&sp, pk, len) != ref)
		fail_msg("len %u pattern %u bytes from %u to %u icase %d: reference %d", len, st->len,
			st->from, st->to, icase, ref);
	return ref;
}

static void
test_random(void **state)
{
	static const uint8_t alpha[] = {'a', 'b', 'A', 'B', 0x00, 0xe9, 0xc9, 0xdf, 0xbf, 0xf7, 0xd7};
	uint8_t pk[256];
	unsigned int found = 0;

	(void)state;
	for (unsigned int it = 0; it < 300000; it++) {
		struct rule_x_string st;
		uint32_t len = rnd(200);

		memset(&st, 0, sizeof(st));
		st.len = (uint8_t)(1 + rnd(it % 7 == 0 ? 128 : 6));
		for (unsigned int i = 0; i < st.len; i++)
			st.pat[i] = alpha[rnd(it % 3 == 0 ? 2 : sizeof(alpha))];
		for (unsigned int i = 0; i < len; i++)
			pk[i] = alpha[rnd(it % 3 == 0 ? 2 : sizeof(alpha))];
		/* Now and then the pattern itself, somewhere. */
		if (len >= st.len && rnd(2) == 0)
			memcpy(pk + rnd(len - st.len + 1), st.pat, st.len);
		st.from = (uint16_t)(rnd(4) == 0 ? rnd(len + 8) : 0);
		st.to = (uint16_t)(rnd(3) == 0 ? st.from + rnd(len + 8) : 65535);
		found += both(&st, rnd(2) == 0, pk, len);
	}
	assert_true(found > 10000);
}

static void
test_corners(void **state)
{
	const uint8_t *pk = (const uint8_t *)"abcdefghij";
	struct rule_x_string st;

	(void)state;
	memset(&st, 0, sizeof(st));
	memcpy(st.pat, "abc", 3);
	st.len = 3;
	st.to = 65535;
	assert_true(both(&st, false, pk, 10));   /* offset 0 */
	st.to = 3;
	assert_true(both(&st, false, pk, 10));   /* ends at --to */
	st.to = 2;
	assert_false(both(&st, false, pk, 10));  /* straddles --to */
	st.to = 65535;
	assert_false(both(&st, false, pk, 2));   /* longer than the packet */
	st.from = 1;
	assert_false(both(&st, false, pk, 10));  /* starts before --from */
	memcpy(st.pat, "HIJ", 3);
	st.from = 7;
	assert_false(both(&st, false, pk, 10));
	assert_true(both(&st, true, pk, 10));    /* --icase, at the end */
	/* 128 bytes, found only whole. */
	{
		uint8_t big[300];

		memset(big, 'x', sizeof(big));
		memset(&st, 0, sizeof(st));
		memset(st.pat, 'x', 128);
		st.len = 128;
		st.to = 65535;
		assert_true(both(&st, false, big, 128));
		assert_false(both(&st, false, big, 127));
		st.from = 172;
		assert_true(both(&st, false, big, 300));
		st.from = 173;
		assert_false(both(&st, false, big, 300));
	}
}

/* A random number of the u32 tests' kinds: small offsets, masks, shifts, big values. */
static uint32_t
u32_num(void)
{
	switch (rnd(6)) {
	case 0:
		return rnd(64);
	case 1:
		return rnd(8) * 4;
	case 2:
		return 0xffu >> rnd(8) << (8 * rnd(4));
	case 3:
		return rnd(40);
	case 4:
		return 0xffffffffu - rnd(8);
	default:
		return (uint32_t)rnd(0x10000) << rnd(17);
	}
}

static void
u32_text(char *t, size_t cap)
{
	static const char *const ops[] = {"&", "<<", ">>", "@"};
	unsigned int nt = 1 + rnd(rnd(4) == 0 ? 10 : 3), n = 0;

	for (unsigned int i = 0; i < nt; i++) {
		unsigned int nn = 1 + rnd(5), nv = 1 + rnd(3);

		n += (unsigned int)snprintf(t + n, cap - n, "%s%u", i ? " && " : "", rnd(3) ? rnd(48) : u32_num());
		for (unsigned int j = 1; j < nn; j++) {
			unsigned int op = rnd(4);

			/* Shifts of 32 or more are refused (a few, to see it). */
			n += (unsigned int)snprintf(t + n, cap - n, "%s%s0x%x", ops[op],
				rnd(2) ? " " : "",
				op == 1 || op == 2 ? rnd(200) == 0 ? 32 + rnd(4) : rnd(32) : u32_num());
		}
		n += (unsigned int)snprintf(t + n, cap - n, "=");
		for (unsigned int j = 0; j < nv; j++) {
			uint32_t lo = rnd(3) ? rnd(256) : u32_num();

			n += (unsigned int)snprintf(t + n, cap - n, "%s%u", j ? "," : "", lo);
			/* Wide ranges now and then, so that whole tests pass. */
			if (rnd(3) == 0)
				n += (unsigned int)snprintf(t + n, cap - n, ":0x%x", 0xffffffffu >> rnd(32));
			else if (rnd(2))
				n += (unsigned int)snprintf(t + n, cap - n, ":%u", lo + rnd(1000));
		}
	}
}

static void
test_u32_random(void **state)
{
	uint8_t pk[128];
	unsigned int pass = 0, fail = 0, runs = 0;

	(void)state;
	for (unsigned int it = 0; it < 200000; it++) {
		struct rule_x_u32 u, u2;
		struct rule_u32_prog prog;
		char text[1024], back[1024];
		struct rule_buf b = {.p = back, .cap = sizeof(back)};
		const char *msg = NULL;
		uint32_t len = rnd(sizeof(pk) + 1);
		bool ref;

		u32_text(text, sizeof(text));
		if (rule_u32_parse(text, &u, &msg) < 0) {
			/* Past a rule's bytes with no set to hold them, or a shift past 31. */
			assert_true(strstr(msg, "need a rule set") != NULL ||
				    strstr(msg, "shift") != NULL);
			continue;
		}
		runs++;
		/* Its written form reads back the same. */
		rule_u32_format(&b, &u);
		assert_false(b.full);
		back[b.len - 1] = '\0'; /* the closing quote */
		assert_int_equal(rule_u32_parse(back + 1, &u2, &msg), 0);
		assert_memory_equal(&u, &u2, sizeof(u));
		assert_null(rule_u32_check(&u));
		assert_int_equal(rule_u32_decode(&u, &prog), 0);
		/* Words that lead somewhere: small values, jumps within the packet. */
		for (unsigned int i = 0; i < len; i++)
			pk[i] = (uint8_t)(rnd(2) ? rnd(16) : rnd(256));
		ref = rule_u32_match(&u, pk, len);
		if (rule_engine_u32_match(&prog, pk, len) != ref)
			fail_msg("u32 \"%s\" on %u bytes: reference %d", text, len, ref);
		pass += ref;
		fail += !ref;
	}
	assert_true(runs > 150000);
	assert_true(pass > 1000);
	assert_true(fail > 1000);
}

/* The kernel's reading of known tests on a TCP/IPv4 packet. */
static void
test_u32_known(void **state)
{
	/* IPv4, IHL 5, total 44, proto TCP; TCP 1234 -> 80, data offset 5; 4 payload bytes. */
	static const uint8_t pk[44] = {
		0x45, 0x00, 0x00, 0x2c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
		0x2a, 0x01, 0x02, 0x03,
	};
	static const struct {
		const char *t;
		bool match;
	} cases[] = {
		{"6&0xFF=6", true},                       /* TCP */
		{"6&0xFF=17", false},
		{"6&0xFF=17 && 4&0x3FFF=0", false},
		{"6&0xFF=1:10 && 4&0x3FFF=0", true},      /* DF only: no fragment */
		{"0>>22&0x3C@0>>16=1234", true},          /* source port */
		{"0>>22&0x3C@0&0xFFFF=80", true},         /* destination port */
		{"0>>22&0x3C@12>>26&0x3C@0>>24=0x2a", true}, /* first payload byte */
		{"0>>22&0x3C@12>>26&0x3C@0=0x2a010203", true},
		{"0>>22&0x3C@12>>26&0x3C@1=0", false},    /* a word past the end */
		{"40=0x2a010203", true},
		{"41=0:0xffffffff", false},               /* past the end */
		{"0>>22&0x3C@12>>26&0x3F=0", false},
		{"0>>22&0x3C@12>>26&0x3C=20", true},      /* TCP header length */
		{"0<<31=0x80000000", false},
		{"0<<31=0", true},
		{"0>>31=0", true},
		{"3=1,2,0x2c12,4", false},
		{"2=0x2c1234", true},
	};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		struct rule_x_u32 u;
		struct rule_u32_prog prog;
		const char *msg = NULL;

		if (rule_u32_parse(cases[i].t, &u, &msg) < 0)
			fail_msg("\"%s\": %s", cases[i].t, msg);
		assert_int_equal(rule_u32_decode(&u, &prog), 0);
		if (rule_u32_match(&u, pk, sizeof(pk)) != cases[i].match ||
			rule_engine_u32_match(&prog, pk, sizeof(pk)) != cases[i].match)
			fail_msg("\"%s\": expected %d", cases[i].t, cases[i].match);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_corners),
		cmocka_unit_test(test_u32_random),
		cmocka_unit_test(test_u32_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
