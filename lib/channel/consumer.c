/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/consumer.c — the consumer API for applications, typically in a
 * DPDK secondary process: attach to an APP channel by name, receive bursts,
 * detach.
 *
 * Everything is found by name: the shared directory memzone
 * (CHAN_DIR_MZ_NAME) and the channel's rte_ring (its name is in the
 * descriptor). The handle is process-local memory holding pointers that are
 * valid in this process only. Attaching marks the descriptor with this
 * process's pid under the directory lock; the primary refuses to delete a
 * channel while a live process is attached, and an attachment whose process
 * has died is taken over by the next chan_attach().
 */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "chan_priv.h"
#include "channel.h"

/** An attachment: process-local. */
struct chan_consumer {
	struct rte_ring *ring;
	struct chan_desc *desc;
	struct chan_dir *dir;
	char name[CHAN_NAMESIZE];
};

bool
chan_pid_alive(int32_t pid)
{
	if (pid <= 0)
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Drop this process's attachment mark from @p d. */
static void
chan_unclaim(struct chan_dir *dir, struct chan_desc *d)
{
	rte_spinlock_lock(&dir->lock);
	if (d->attached != 0 && d->owner_pid == (int32_t)getpid()) {
		d->attached = 0;
		d->owner_pid = 0;
	}
	rte_spinlock_unlock(&dir->lock);
}

struct chan_consumer *
chan_attach(const char *name)
{
	char ring_name[RTE_RING_NAMESIZE];
	const struct rte_memzone *mz;
	struct chan_desc *d = NULL;
	struct chan_consumer *c;
	struct chan_dir *dir;
	uint32_t i;
	int err = 0;

	if (name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (strnlen(name, CHAN_NAMESIZE) >= CHAN_NAMESIZE) {
		rte_errno = ENOENT;
		return NULL;
	}
	mz = rte_memzone_lookup(CHAN_DIR_MZ_NAME);
	if (mz == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	dir = mz->addr;
	if (__atomic_load_n(&dir->magic, __ATOMIC_ACQUIRE) != CHAN_DIR_MAGIC) {
		rte_errno = ENOENT;
		return NULL;
	}

	rte_spinlock_lock(&dir->lock);
	for (i = 0; i < dir->n_desc; i++) {
		if (dir->desc[i].state == CHAN_DESC_LIVE && strcmp(dir->desc[i].name, name) == 0) {
			d = &dir->desc[i];
			break;
		}
	}
	if (d == NULL) {
		err = ENOENT;
	} else if (d->kind != CHAN_CONS_APP) {
		err = EPERM;
	} else if (d->attached != 0 && chan_pid_alive(d->owner_pid)) {
		err = EBUSY;
	} else {
		d->attached = 1;
		d->owner_pid = (int32_t)getpid();
		memcpy(ring_name, d->ring_name, sizeof(ring_name));
		ring_name[sizeof(ring_name) - 1] = '\0';
	}
	rte_spinlock_unlock(&dir->lock);
	if (err != 0) {
		rte_errno = err;
		return NULL;
	}

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		err = ENOMEM;
		goto fail;
	}
	/* The primary does not free the ring while we are attached. */
	c->ring = rte_ring_lookup(ring_name);
	if (c->ring == NULL) {
		err = ENOENT;
		goto fail;
	}
	c->desc = d;
	c->dir = dir;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;

fail:
	free(c);
	chan_unclaim(dir, d);
	rte_errno = err;
	return NULL;
}

unsigned int
chan_recv_burst(struct chan_consumer *c, struct rte_mbuf **mbufs, unsigned int n)
{
	uint64_t bytes = 0;
	unsigned int got;
	unsigned int i;

	RTE_ASSERT(c != NULL);
	got = rte_ring_sc_dequeue_burst(c->ring, (void **)mbufs, n, NULL);
	if (got == 0)
		return 0;
	for (i = 0; i < got; i++)
		bytes += mbufs[i]->pkt_len;
	chan_ctr_add(&c->desc->consumed, got);
	chan_ctr_add(&c->desc->consumed_bytes, bytes);
	return got;
}

const char *
chan_consumer_name(const struct chan_consumer *c)
{
	return c->name;
}

void
chan_detach(struct chan_consumer *c)
{
	if (c == NULL)
		return;
	chan_unclaim(c->dir, c->desc);
	free(c);
}
