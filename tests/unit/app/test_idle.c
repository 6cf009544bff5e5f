/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of app/gufc_idle.h (pure): an RX poll counts as having found
 * its queues empty (--idle-exit) only when it read every one of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#include "gufc_idle.h"

static void
test_empty_poll(void **state)
{
	(void)state;
	/* Every queue read, nothing came: idle. */
	assert_true(gufc_idle_polled_empty(1, 1, 0));
	assert_true(gufc_idle_polled_empty(4, 4, 0));
	/* Something came: not idle, however many queues were read. */
	assert_false(gufc_idle_polled_empty(1, 1, 32));
	assert_false(gufc_idle_polled_empty(2, 4, 1));
}

static void
test_stopped_poll(void **state)
{
	(void)state;
	/* A lossless poll whose wait queue had no room for a burst read no
	 * queue (a file not at its end among them): it did not look, so it
	 * did not find them empty. */
	assert_false(gufc_idle_polled_empty(0, 1, 0));
	/* Stopped after the first of two queues came back empty. */
	assert_false(gufc_idle_polled_empty(1, 2, 0));
	/* An lcore without queues has nothing to read. */
	assert_true(gufc_idle_polled_empty(0, 0, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_poll),
		cmocka_unit_test(test_stopped_poll),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
