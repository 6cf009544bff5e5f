/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_eal.h — ending the EAL without leaving its runtime directory
 * behind. A primary process's EAL keeps its shared configuration and memory
 * tables (config, fbarray_*, mp_socket) in <runtime dir>/<file prefix> so
 * that secondary processes can attach, and leaves them there at exit: a
 * --no-huge run's memory table alone is 3-100 MB, and every distinct
 * --file-prefix adds a directory (on tmpfs: memory). Once the primary has
 * ended, nothing can attach to them, so gufc and gufc-bench remove them.
 *
 * A process ended by a signal never gets to gufc_eal_end():
 * gufc_eal_rundir_save() keeps the directory's path once EAL is up, and
 * gufc_eal_rundir_remove() removes its files and it with async-signal-safe
 * calls only (open, getdents64, unlinkat, rmdir), from a signal handler.
 */
#ifndef GUFC_EAL_H
#define GUFC_EAL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
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

/**
 * Keep the runtime directory's path in @p dir for gufc_eal_rundir_remove()
 * (empty in a secondary process: the directory is the primary's).
 * Context: main thread, after rte_eal_init().
 */
static inline void
gufc_eal_rundir_save(char *dir, size_t len)
{
	dir[0] = '\0';
	if (rte_eal_process_type() == RTE_PROC_PRIMARY &&
		(size_t)snprintf(dir, len, "%s", rte_eal_get_runtime_dir()) >= len)
		dir[0] = '\0';
}

/**
 * Remove the files of runtime directory @p dir and the directory, with
 * async-signal-safe calls only; nothing when @p dir is empty. For a signal
 * handler that then ends the process (EAL is not cleaned up: its memory
 * goes with the process).
 * Context: any, a signal handler included.
 */
static inline void
gufc_eal_rundir_remove(const char *dir)
{
	/* struct linux_dirent64 */
	struct ent {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	char buf[4096] __attribute__((aligned(8)));
	int fd;

	if (dir[0] == '\0' || (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	/* Passes until one removes nothing: unlinking while reading moves entries. */
	for (int pass = 0, gone = 1; pass < 16 && gone != 0; pass++) {
		long n;

		gone = 0;
		if (lseek(fd, 0, SEEK_SET) != 0)
			break;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				const struct ent *e = (const struct ent *)(buf + off);

				off += e->reclen;
				if (e->name[0] == '.' && (e->name[1] == '\0' ||
					(e->name[1] == '.' && e->name[2] == '\0')))
					continue;
				gone += unlinkat(fd, e->name, 0) == 0;
			}
		}
	}
	close(fd);
	(void)rmdir(dir);
}

#endif
