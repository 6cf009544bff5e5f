/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared set-up for unit tests that need EAL: no hugepages, no PCI probing,
 * a file prefix unique to the test process so tests run in parallel.
 */
#ifndef GUFC_TEST_EAL_H
#define GUFC_TEST_EAL_H

#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

/*
 * Start EAL for a test. @p lcores is an EAL core list such as "0" or "0-1".
 * Returns 0, or -1 after printing why.
 */
static inline int
gufc_test_eal_init(const char *name, const char *lcores)
{
	char prefix[64];
	char *argv[16];
	int argc = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=gufc-%s-%d", name, (int)getpid());
	argv[argc++] = (char *)"gufc-test";
	argv[argc++] = (char *)"-l";
	argv[argc++] = (char *)lcores;
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"512";
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"--log-level=*:warning";
	argv[argc++] = prefix;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", name, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

#endif /* GUFC_TEST_EAL_H */
