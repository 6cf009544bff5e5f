/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared set-up for unit tests that need EAL (common/eal_test.c, linked into
 * every EAL test): no hugepages, no PCI probing, a file prefix unique to the
 * test process so tests run in parallel, and an end that leaves no runtime
 * directory behind (the application's gufc_eal_end()).
 */
#ifndef GUFC_TEST_EAL_H
#define GUFC_TEST_EAL_H

/* What the EAL tests use beside: rte_errno and its text, getpid(). */
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

/**
 * Start EAL for test @p name with 512 MB of memory. @p lcores is an EAL core
 * list such as "0" or "0-1". The file prefix is gufc-<name>-<pid>. Once EAL
 * is up, the process ends it at exit even where main() never calls
 * gufc_test_eal_end() (an early return or exit()).
 * @return 0, or -1 after printing why.
 */
int gufc_test_eal_init(const char *name, const char *lcores);

/** gufc_test_eal_init() with @p mem_mb MB of memory. */
int gufc_test_eal_init_mem(const char *name, const char *lcores, unsigned int mem_mb);

/**
 * End EAL and remove its runtime directory (/run/dpdk/gufc-<name>-<pid>);
 * a second call, or a call without EAL up, does nothing. Call from main()
 * after every other lcore and thread has stopped, once the test's own
 * DPDK objects are freed.
 * @return @p rc, so that main() can end with `return gufc_test_eal_end(rc);`.
 */
int gufc_test_eal_end(int rc);

#endif /* GUFC_TEST_EAL_H */
