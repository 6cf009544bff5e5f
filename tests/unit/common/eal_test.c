/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/common/eal_test.c — starting and ending EAL for the unit tests
 * (eal_test.h). The end is the application's: gufc_eal_end() in
 * app/gufc_eal.h, which also removes the runtime directory that EAL leaves
 * (config, fbarray_*, mp_socket: several MB a test run on tmpfs). A test
 * ended by SIGTERM (meson's timeout), SIGINT or SIGALRM removes that
 * directory in its signal handler (gufc_eal_rundir_remove()) and then dies
 * of the signal as it would have. Also the main() of tests that need an
 * mbuf pool.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "eal_test.h"
#include "gufc_eal.h"

static bool eal_up;
/* The runtime directory, for the signal handler (empty: nothing to remove). */
static char eal_rundir[PATH_MAX];
static const int eal_end_signals[] = {SIGTERM, SIGINT, SIGALRM};

/* Ended by a signal: remove the runtime directory, then die of the signal. */
static void
eal_end_on_signal(int sig)
{
	gufc_eal_rundir_remove(eal_rundir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
eal_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < RTE_DIM(eal_end_signals); i++)
		sigaddset(&sa.sa_mask, eal_end_signals[i]);
	sa.sa_flags = SA_RESETHAND;
	for (unsigned int i = 0; i < RTE_DIM(eal_end_signals); i++)
		(void)sigaction(eal_end_signals[i], &sa, NULL);
}

int
gufc_test_eal_end(int rc)
{
	if (eal_up) {
		eal_up = false;
		eal_signals(SIG_DFL);
		gufc_eal_end();
		eal_rundir[0] = '\0';
	}
	return rc;
}

/* The backstop for a main() that returns early or calls exit(). */
static void
eal_end_at_exit(void)
{
	(void)gufc_test_eal_end(0);
}

int
gufc_test_eal_init_mem(const char *name, const char *lcores, unsigned int mem_mb)
{
	char prefix[64], mem[16];
	char *argv[16];
	int argc = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=gufc-%s-%d", name, (int)getpid());
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	argv[argc++] = (char *)"gufc-test";
	argv[argc++] = (char *)"-l";
	argv[argc++] = (char *)lcores;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"-m";
	argv[argc++] = mem;
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"--log-level=*:warning";
	argv[argc++] = prefix;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", name, rte_strerror(rte_errno));
		return -1;
	}
	eal_up = true;
	gufc_eal_rundir_save(eal_rundir, sizeof(eal_rundir));
	eal_signals(eal_end_on_signal);
	if (atexit(eal_end_at_exit) != 0) {
		fprintf(stderr, "%s: atexit failed\n", name);
		return gufc_test_eal_end(-1);
	}
	return 0;
}

int
gufc_test_eal_init(const char *name, const char *lcores)
{
	return gufc_test_eal_init_mem(name, lcores, 512);
}

int
gufc_test_pool_main(const char *name, const char *lcores, struct rte_mempool **pool,
	unsigned int n_mbufs, uint16_t priv_size, const struct CMUnitTest *tests, size_t n_tests,
	int (*group_setup)(void **), int (*group_teardown)(void **))
{
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	int ret;

	if (gufc_test_eal_init(name, lcores) != 0)
		return 1;
	snprintf(pool_name, sizeof(pool_name), "%s_pool", name);
	*pool = rte_pktmbuf_pool_create(
		pool_name, n_mbufs, 0, priv_size, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (*pool == NULL) {
		fprintf(stderr, "%s: mempool: %s\n", name, rte_strerror(rte_errno));
		return gufc_test_eal_end(1);
	}
	ret = _cmocka_run_group_tests(name, tests, n_tests, group_setup, group_teardown);
	rte_mempool_free(*pool);
	*pool = NULL;
	return gufc_test_eal_end(ret);
}
