/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the fast path's string search (engine_strpred.h): the
 * Boyer-Moore-Horspool search the RX lcore runs must answer as the
 * reference search (rule_str_find()) does, on random patterns, packets and
 * windows from a small alphabet (so that matches, near matches, repeats and
 * case folds are frequent), with and without --icase; then the corner
 * cases named: a match at offset 0, ending at --to, straddling it, a
 * pattern longer than the packet, 128-byte patterns. Pure (no EAL).
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_corners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
