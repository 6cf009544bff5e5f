/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the EAL runtime directory's removal by a signal
 * (app/gufc_eal.h, tests/unit/common/eal_test.c): gufc_eal_rundir_remove()
 * empties and removes a directory of many files; a test process with EAL
 * up that is ended by SIGTERM, SIGINT or SIGALRM (a child that starts EAL and raises
 * it) leaves no runtime directory and dies of that signal (fails without the handler).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "eal_test.h"
#include "gufc_eal.h"

static bool
dir_exists(const char *d)
{
	struct stat st;

	return stat(d, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Many files (more than one getdents64 buffer of names), removed with the directory. */
static void
test_rundir_remove(void **state)
{
	char dir[] = "/tmp/gufc-eal-signal.XXXXXX";
	char path[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (unsigned int i = 0; i < 300; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/fbarray_memseg-1048576k-0-%u.with-a-long-name", dir,
			i);
		f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	gufc_eal_rundir_remove(dir);
	assert_false(dir_exists(dir));
	/* Nothing to do: an empty path, a directory that is gone. */
	gufc_eal_rundir_remove("");
	gufc_eal_rundir_remove(dir);
}

/*
 * A child process starts EAL (as every EAL unit test does), tells its
 * runtime directory through a pipe and raises @p sig: it must die of
 * @p sig and leave no directory.
 */
static void
signal_case(int sig)
{
	char dir[PATH_MAX], name[32];
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		snprintf(name, sizeof(name), "eal_signal%d", sig);
		if (gufc_test_eal_init(name, "0") != 0)
			_exit(2);
		snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
		if (write(fds[1], dir, strlen(dir) + 1) < 0)
			_exit(3);
		raise(sig);
		_exit(0); /* not reached: the handler re-raises with the default action */
	}
	close(fds[1]);
	n = read(fds[0], dir, sizeof(dir) - 1);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(n > 1);
	dir[n] = '\0';
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), sig);
	assert_false(dir_exists(dir));
}

static void
test_sigterm(void **state)
{
	(void)state;
	signal_case(SIGTERM);
}

static void
test_sigint(void **state)
{
	(void)state;
	signal_case(SIGINT);
}

static void
test_sigalrm(void **state)
{
	(void)state;
	signal_case(SIGALRM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rundir_remove),
		cmocka_unit_test(test_sigterm),
		cmocka_unit_test(test_sigint),
		cmocka_unit_test(test_sigalrm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
