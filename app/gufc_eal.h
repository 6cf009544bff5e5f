/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_eal.h — ending the EAL without leaving its runtime directory
 * behind. A primary process's EAL keeps its shared configuration and memory
 * tables (config, fbarray_*, mp_socket) in <runtime dir>/<file prefix> so
 * that secondary processes can attach, and leaves them there at exit: a
 * --no-huge run's memory table alone is 3-100 MB, and every distinct
 * --file-prefix adds a directory (on tmpfs: memory). Once the primary has
 * ended, nothing can attach to them, so gufc and gufc-bench remove them.
 */
#ifndef GUFC_EAL_H
#define GUFC_EAL_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

/**
 * rte_eal_cleanup(), then, in a primary process, remove the files of its
 * runtime directory and the directory. Context: main thread, after every
 * other lcore has stopped; call at most once, at exit.
 */
static inline void
gufc_eal_end(void)
{
	char dir[PATH_MAX], path[PATH_MAX];
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (!primary || dir[0] == '\0' || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
			(void)unlink(path);
	}
	closedir(d);
	(void)rmdir(dir); /* left when something else put a directory there */
}

#endif
