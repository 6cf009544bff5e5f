/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/consumer.c — the consumer API for applications, typically in a
 * DPDK secondary process: attach to an APP channel by name, receive bursts,
 * detach.
 *
 * Everything is found by name: the shared directory memzone
 * (CHAN_DIR_MZ_NAME), the per-flow pool's chunk memzones
 * (CHAN_FLOW_MZ_PREFIX "<chunk>") and a named channel's rte_ring (its name
 * is in the descriptor; a per-flow ring is at an offset in its chunk). The handle is process-local memory holding pointers that are
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

/* The directory, or NULL with rte_errno set. */
static struct chan_dir *
chan_dir_find(void)
{
	const struct rte_memzone *mz = rte_memzone_lookup(CHAN_DIR_MZ_NAME);
	struct chan_dir *dir;

	if (mz == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	dir = mz->addr;
	if (__atomic_load_n(&dir->magic, __ATOMIC_ACQUIRE) != CHAN_DIR_MAGIC) {
		rte_errno = ENOENT;
		return NULL;
	}
	return dir;
}

/* Descriptors of pool chunk @p k and their count, or NULL. */
static struct chan_flow_desc *
chan_dir_chunk(const struct chan_dir *dir, uint32_t k, uint32_t *n)
{
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	uint32_t first = k * dir->flow_chunk;

	if (k >= __atomic_load_n(&dir->n_chunks, __ATOMIC_ACQUIRE) || first >= dir->flow_max)
		return NULL;
	chan_pool_mz_name(mz_name, sizeof(mz_name), k);
	mz = rte_memzone_lookup(mz_name);
	if (mz == NULL)
		return NULL;
	*n = RTE_MIN(dir->flow_chunk, dir->flow_max - first);
	return mz->addr;
}

/* Descriptor of channel @p id (live or not), or NULL. */
static struct chan_desc *
chan_dir_desc_id(struct chan_dir *dir, uint32_t id)
{
	struct chan_flow_desc *fd;
	uint32_t p, n;

	if (id < dir->n_desc)
		return &dir->desc[id].d;
	if (dir->flow_chunk == 0)
		return NULL;
	p = id - dir->n_desc;
	fd = chan_dir_chunk(dir, p / dir->flow_chunk, &n);
	if (fd == NULL || p % dir->flow_chunk >= n)
		return NULL;
	return &fd[p % dir->flow_chunk].d;
}

/* Live descriptor called @p name, or NULL. Caller holds the directory lock. */
static struct chan_desc *
chan_dir_desc_name(struct chan_dir *dir, const char *name)
{
	uint32_t k, i, n;

	for (i = 0; i < dir->n_desc; i++)
		if (dir->desc[i].d.state == CHAN_DESC_LIVE && strcmp(dir->desc[i].d.name, name) == 0)
			return &dir->desc[i].d;
	for (k = 0; dir->flow_chunk != 0; k++) {
		struct chan_flow_desc *fd = chan_dir_chunk(dir, k, &n);

		if (fd == NULL)
			break;
		for (i = 0; i < n; i++)
			if (fd[i].d.state == CHAN_DESC_LIVE && strcmp(fd[i].d.name, name) == 0)
				return &fd[i].d;
	}
	return NULL;
}

/* The ring of descriptor @p d (claimed by us), or NULL. */
static struct rte_ring *
chan_desc_ring(const struct chan_desc *d, const char *ring_name)
{
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	if (d->chunk == CHAN_CHUNK_NONE)
		return rte_ring_lookup(ring_name);
	chan_pool_mz_name(mz_name, sizeof(mz_name), d->chunk);
	mz = rte_memzone_lookup(mz_name);
	if (mz == NULL || (size_t)d->ring_off >= mz->len)
		return NULL;
	return RTE_PTR_ADD(mz->addr, d->ring_off);
}

/* Claim descriptor @p d (found by @p by_name or by @p id) and make a handle. */
static struct chan_consumer *
chan_attach_desc(struct chan_dir *dir, const char *by_name, uint32_t id)
{
	char ring_name[RTE_RING_NAMESIZE];
	struct chan_desc *d;
	struct chan_consumer *c;
	int err = 0;

	rte_spinlock_lock(&dir->lock);
	if (by_name != NULL) {
		d = chan_dir_desc_name(dir, by_name);
	} else {
		d = chan_dir_desc_id(dir, id);
		if (d != NULL && d->state != CHAN_DESC_LIVE)
			d = NULL;
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
	/* The primary does not free the ring (or reuse a pool ring) while we are attached. */
	c->ring = chan_desc_ring(d, ring_name);
	if (c->ring == NULL) {
		err = ENOENT;
		goto fail;
	}
	c->desc = d;
	c->dir = dir;
	snprintf(c->name, sizeof(c->name), "%s", d->name);
	return c;

fail:
	free(c);
	chan_unclaim(dir, d);
	rte_errno = err;
	return NULL;
}

struct chan_consumer *
chan_attach(const char *name)
{
	struct chan_dir *dir;

	if (name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (strnlen(name, CHAN_NAMESIZE) >= CHAN_NAMESIZE) {
		rte_errno = ENOENT;
		return NULL;
	}
	dir = chan_dir_find();
	if (dir == NULL)
		return NULL;
	return chan_attach_desc(dir, name, 0);
}

struct chan_consumer *
chan_attach_id(uint32_t id)
{
	struct chan_dir *dir = chan_dir_find();

	if (dir == NULL)
		return NULL;
	return chan_attach_desc(dir, NULL, id);
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
