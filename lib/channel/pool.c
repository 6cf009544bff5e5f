/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/pool.c — the per-flow ring pool: chunks of CHAN_FLOW_CHUNK
 * rings, one memzone each (descriptors, then rings initialized in place),
 * made when the table is created (what the caller asks for) and when a flow
 * asks for a ring and none is free (up to the cap); a free list of pool
 * indexes (a freed ring is reused before the pool grows); the per-ring
 * "got packets" bits the primary's consumers walk instead of the whole pool.
 *
 * Everything here but the consumers runs under the table's ctl_lock on a
 * control thread (the rules lcore when a flow is set up or retired): the
 * fast path never creates, frees or looks for a ring, it only enqueues to
 * the id the flow's entry names.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "chan_priv.h"
#include "channel.h"

uint32_t
chan_pool_ring_mem(uint32_t size)
{
	ssize_t sz = rte_ring_get_memsize(size);

	if (sz < 0)
		return 0;
	return (uint32_t)RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE);
}

void
chan_pool_mz_name(char *buf, size_t len, uint32_t k)
{
	snprintf(buf, len, "%s%" PRIu32, CHAN_FLOW_MZ_PREFIX, k);
}

int
chan_pool_init(struct chan_table *t, uint32_t prealloc)
{
	uint32_t max_chunks;
	int ret;

	if (t->flow_max == 0)
		return 0;
	t->flow_ring_mem = chan_pool_ring_mem(t->flow_ring_size);
	if (t->flow_ring_mem == 0)
		return EINVAL;
	max_chunks = (t->flow_max + t->flow_chunk - 1) / t->flow_chunk;
	t->chunks = rte_zmalloc_socket(
		"chan_chunks", max_chunks * sizeof(t->chunks[0]), RTE_CACHE_LINE_SIZE, t->socket_id);
	t->flow_ready = rte_zmalloc_socket("chan_flow_ready",
		((t->flow_max + 63) / 64) * sizeof(uint64_t), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (t->chunks == NULL || t->flow_ready == NULL)
		return ENOMEM;
	while (t->n_flow < prealloc) {
		ret = chan_pool_grow(t);
		if (ret < 0)
			return -ret == ENOSPC ? EINVAL : -ret;
	}
	return 0;
}

int
chan_pool_grow(struct chan_table *t)
{
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct chan_flow_desc *descs;
	struct chan_chunk *ck;
	uint32_t k = t->n_chunks;
	uint32_t first = t->n_flow;
	uint32_t n, i;
	size_t size;

	if (t->chunks == NULL || first >= t->flow_max)
		return -ENOSPC;
	n = RTE_MIN(t->flow_chunk, t->flow_max - first);
	size = (size_t)n * sizeof(struct chan_flow_desc) + (size_t)n * t->flow_ring_mem;

	chan_pool_mz_name(mz_name, sizeof(mz_name), k);
	mz = rte_memzone_reserve_aligned(mz_name, size, t->socket_id, 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		CHAN_LOG(DEBUG, "pool chunk %s (%zu bytes): %s", mz_name, size,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	ck = rte_zmalloc_socket("chan_chunk", sizeof(*ck), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (ck != NULL)
		ck->slots = rte_zmalloc_socket(
			"chan_chunk_slots", n * sizeof(ck->slots[0]), RTE_CACHE_LINE_SIZE, t->socket_id);
	if (ck == NULL || ck->slots == NULL) {
		if (ck != NULL)
			rte_free(ck);
		rte_memzone_free(mz);
		return -ENOMEM;
	}
	ck->mz = mz;
	ck->n = n;
	descs = mz->addr;
	memset(descs, 0, (size_t)n * sizeof(*descs));
	for (i = 0; i < n; i++) {
		struct chan_desc *d = &descs[i].d;
		struct chan_slot *s = &ck->slots[i];
		uint32_t off = n * (uint32_t)sizeof(*descs) + i * t->flow_ring_mem;
		struct rte_ring *r = RTE_PTR_ADD(mz->addr, off);

		d->id = t->n_named + first + i;
		d->per_flow = 1;
		d->ring_size = t->flow_ring_size;
		d->chunk = k;
		d->ring_off = off;
		snprintf(d->ring_name, sizeof(d->ring_name), "chf.%" PRIu32, first + i);
		if (rte_ring_init(r, d->ring_name, t->flow_ring_size, RING_F_SC_DEQ) != 0) {
			rte_free(ck->slots);
			rte_free(ck);
			rte_memzone_free(mz);
			return -ENOMEM;
		}
		s->ring = r;
		s->desc = d;
		s->per_flow = 1;
		s->parent = 0;
		rte_spinlock_init(&s->cons_lock);
	}
	/* Lowest index first on the free list (the list is empty when we grow). */
	for (i = n; i-- > 0;) {
		ck->slots[i].next_free = t->flow_free_head;
		t->flow_free_head = first + i;
	}
	t->n_flow_free += n;
	__atomic_store_n(&t->chunks[k], ck, __ATOMIC_RELEASE);
	t->n_chunks = k + 1;
	__atomic_store_n(&t->n_flow, first + n, __ATOMIC_RELEASE);
	__atomic_store_n(&t->dir->n_chunks, k + 1, __ATOMIC_RELEASE);
	return 0;
}

void
chan_pool_free(struct chan_table *t)
{
	uint32_t k, i;

	for (k = 0; t->chunks != NULL && k < t->n_chunks; k++) {
		struct chan_chunk *ck = t->chunks[k];

		for (i = 0; i < ck->n; i++) {
			struct chan_slot *s = &ck->slots[i];

			if (chan_slot_live(s)) {
				chan_desc_close(t, s->desc, true);
				chan_slot_finish(t, s);
			} else {
				chan_slot_flush(s); /* anything a late producer left */
			}
		}
	}
	if (t->dir != NULL)
		__atomic_store_n(&t->dir->n_chunks, 0, __ATOMIC_RELEASE);
	for (k = 0; t->chunks != NULL && k < t->n_chunks; k++) {
		struct chan_chunk *ck = t->chunks[k];

		rte_memzone_free(ck->mz);
		rte_free(ck->slots);
		rte_free(ck);
		t->chunks[k] = NULL;
	}
	t->n_chunks = 0;
	rte_free(t->chunks);
	t->chunks = NULL;
	rte_free(t->flow_ready);
	t->flow_ready = NULL;
}

int
chan_flow_alloc(struct chan_table *t, uint16_t parent_id)
{
	struct chan_slot *parent;
	struct chan_desc *pd;
	struct chan_desc *d;
	struct chan_slot *s;
	uint32_t p;
	int ret;

	if (t == NULL || parent_id >= t->n_named)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	parent = &t->slots[parent_id];
	if (!chan_slot_live(parent)) {
		ret = -ENOENT;
		goto out;
	}
	if (t->flow_free_head == UINT32_MAX) {
		ret = chan_pool_grow(t);
		if (ret < 0) {
			if (ret == -ENOSPC)
				t->flow_alloc_cap++;
			else
				t->flow_alloc_nomem++;
			goto out;
		}
	}
	p = t->flow_free_head;
	s = chan_slot_of(t, t->n_named + p);
	RTE_ASSERT(s != NULL && !chan_slot_live(s));
	t->flow_free_head = s->next_free;
	t->n_flow_free--;
	d = s->desc;
	pd = parent->desc;

	rte_spinlock_lock(&t->dir->lock);
	snprintf(d->name, sizeof(d->name), "%.*s.%" PRIu64, CHAN_NAME_MAX, pd->name,
		parent->flow_seq);
	d->parent = parent_id;
	d->kind = pd->kind;
	d->tx_port = pd->tx_port;
	d->tx_queue = pd->tx_queue;
	d->tx_vlan = pd->tx_vlan;
	d->attached = 0;
	d->owner_pid = 0;
	d->state = CHAN_DESC_LIVE;
	rte_spinlock_unlock(&t->dir->lock);

	parent->flow_seq++;
	parent->children++;
	s->kind = parent->kind;
	s->tx_port = parent->tx_port;
	s->tx_queue = parent->tx_queue;
	s->tx_vlan = parent->tx_vlan;
	s->parent = parent_id;
	s->children = 0;
	s->pcap = parent->pcap;
	__atomic_store_n(&s->live, 1, __ATOMIC_RELEASE);
	t->flow_alloc++;
	ret = (int)(t->n_named + p);
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_flow_free(struct chan_table *t, uint32_t id)
{
	struct chan_slot *s;
	int ret;

	if (t == NULL || id < t->n_named || id - t->n_named >= t->flow_max)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	s = chan_slot_of(t, id);
	if (s == NULL || !chan_slot_live(s)) {
		ret = -ENOENT;
		goto out;
	}
	ret = chan_desc_close(t, s->desc, false);
	if (ret < 0)
		goto out;
	chan_slot_finish(t, s);
	t->slots[s->parent].children--;
	s->pcap = NULL;
	s->parent = 0;
	/* Most recently freed first: its lines are the warmest. */
	s->next_free = t->flow_free_head;
	t->flow_free_head = chan_pool_index(t, id);
	t->n_flow_free++;
	t->flow_free_count++;
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_flow_pool_get(struct chan_table *t, struct chan_flow_pool *fp)
{
	if (t == NULL || fp == NULL)
		return -EINVAL;
	memset(fp, 0, sizeof(*fp));
	rte_spinlock_lock(&t->ctl_lock);
	fp->rings = t->n_flow;
	fp->free = t->n_flow_free;
	fp->in_use = t->n_flow - t->n_flow_free;
	fp->max = t->flow_max;
	fp->chunks = t->n_chunks;
	fp->ring_size = t->flow_ring_size;
	fp->bytes_per_ring = t->flow_max == 0 ? 0 :
		t->flow_ring_mem + (uint32_t)sizeof(struct chan_flow_desc);
	fp->alloc = t->flow_alloc;
	fp->freed = t->flow_free_count;
	fp->refused_cap = t->flow_alloc_cap;
	fp->refused_nomem = t->flow_alloc_nomem;
	rte_spinlock_unlock(&t->ctl_lock);
	return 0;
}

unsigned int
chan_pool_consume(struct chan_table *t, unsigned int max_tx, unsigned int max_drain)
{
	uint32_t n_flow = __atomic_load_n(&t->n_flow, __ATOMIC_ACQUIRE);
	unsigned int total = 0;
	uint32_t w;

	for (w = 0; w < (n_flow + 63) / 64; w++) {
		uint64_t bits;

		if (__atomic_load_n(&t->flow_ready[w], __ATOMIC_RELAXED) == 0)
			continue;
		bits = __atomic_exchange_n(&t->flow_ready[w], 0, __ATOMIC_ACQ_REL);
		while (bits != 0) {
			uint32_t b = (uint32_t)__builtin_ctzll(bits);
			uint32_t id = t->n_named + w * 64 + b;
			const struct chan_slot *s = chan_slot_of(t, id);

			bits &= bits - 1;
			if (s == NULL || !chan_slot_live(s) || s->kind == CHAN_CONS_APP)
				continue;
			if (s->kind == CHAN_CONS_TX) {
				if (max_tx != 0)
					total += chan_tx_poll(t, id, max_tx);
			} else {
				total += chan_drain(t, id, max_drain);
			}
			/* Not emptied (a limit, another consumer): visit it again. */
			if (rte_ring_count(s->ring) != 0)
				chan_flow_ready_set(t, id);
		}
	}
	return total;
}
