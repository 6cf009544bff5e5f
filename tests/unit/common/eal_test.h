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
#include <stddef.h>
#include <stdint.h>
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

struct CMUnitTest;
struct rte_mempool;

/**
 * The main() of a test that needs mbufs: EAL for test @p name on @p lcores,
 * a packet mbuf pool of @p n_mbufs (no per-lcore cache, @p priv_size private
 * bytes, default data room) put in @p *pool, the @p n_tests @p tests run
 * as one group between @p group_setup and @p group_teardown (either NULL),
 * then the pool freed (*pool NULL again) and EAL ended.
 * @return main()'s exit status: 0 when every test passed.
 */
int gufc_test_pool_main(const char *name, const char *lcores, struct rte_mempool **pool,
	unsigned int n_mbufs, uint16_t priv_size, const struct CMUnitTest *tests, size_t n_tests,
	int (*group_setup)(void **), int (*group_teardown)(void **));
/** gufc_test_pool_main() of the array @p tests, without group fixtures. */
#define GUFC_TEST_POOL_MAIN(name, lcores, pool, n_mbufs, priv_size, tests)                         \
	gufc_test_pool_main(name, lcores, pool, n_mbufs, priv_size, tests,                         \
		sizeof(tests) / sizeof((tests)[0]), NULL, NULL)

#endif /* GUFC_TEST_EAL_H */
