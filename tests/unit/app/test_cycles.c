/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of app/gufc_cycles.h (pure): busy and idle cycles counted per
 * pass, summed over roles, shares overall and between two readings, role
 * names, the "show lcores" row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gufc_cycles.h"

static void
test_count(void **state)
{
	struct gufc_cycles c = {0, 0};

	(void)state;
	assert_true(gufc_cycles_share(&c) == 0.0); /* nothing counted: 0, not NaN */
	gufc_cycles_add(&c, 300, true);
	gufc_cycles_add(&c, 700, false);
	gufc_cycles_add(&c, 0, true);
	assert_int_equal(c.busy, 300);
	assert_int_equal(c.idle, 700);
	assert_int_equal(gufc_cycles_total(&c), 1000);
	assert_true(gufc_cycles_share(&c) == 0.3);
	gufc_cycles_add(&c, UINT32_MAX, true);
	assert_int_equal(c.busy, 300 + (uint64_t)UINT32_MAX);
}

static void
test_sum_and_delta(void **state)
{
	struct gufc_cycles rx = {100, 100}, rules = {50, 150}, all = {0, 0};
	struct gufc_cycles before, after;

	(void)state;
	gufc_cycles_acc(&all, &rx);
	gufc_cycles_acc(&all, &rules);
	assert_int_equal(all.busy, 150);
	assert_int_equal(all.idle, 250);
	assert_true(gufc_cycles_share(&all) == 150.0 / 400.0);
	/* A window: what happened between two readings, not since start. */
	before = all;
	gufc_cycles_add(&all, 900, true);
	gufc_cycles_add(&all, 100, false);
	after = all;
	assert_true(gufc_cycles_share_delta(&before, &after) == 0.9);
	assert_true(gufc_cycles_share_delta(&after, &after) == 0.0);
}

static void
test_names_and_format(void **state)
{
	struct gufc_cycles c = {1, 3};
	char buf[128];
	int n;

	(void)state;
	assert_string_equal(gufc_cyc_role_name(GUFC_CYC_RX), "rx");
	assert_string_equal(gufc_cyc_role_name(GUFC_CYC_RULES), "rules");
	assert_string_equal(gufc_cyc_role_name(GUFC_CYC_MAIN), "main");
	assert_string_equal(gufc_cyc_role_name(GUFC_CYC__COUNT), "?");
	n = gufc_cycles_format(buf, sizeof(buf), GUFC_CYC_RULES, &c);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_string_equal(buf, "rules                     1                    3   25.00%");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_sum_and_delta),
		cmocka_unit_test(test_names_and_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
