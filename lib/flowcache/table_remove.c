/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/table_remove.c — how entries leave the flow table: removal
 * (seq 0, key out of its bucket), the grace periods their slots wait out
 * before the table hands them out again, idle aging, flush; and the
 * writer's and control's views of live entries (entry, key, walk) and the
 * counters. The concurrency design is described in table.c.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "table_priv.h"

/* ------------------------------------------------------------------------ */
/* Grace periods                                                             */
/* ------------------------------------------------------------------------ */

/* Move the open batch to the ring, if it has slots and the ring has room. */
static void
dq_close(struct fc_table *t)
{
	if (t->dq_open.n == 0 || t->dq_n == FC_TABLE_DQ_BATCHES)
		return;
	t->dq[(t->dq_first + t->dq_n) % FC_TABLE_DQ_BATCHES] = t->dq_open;
	t->dq_n++;
	t->dq_open.n = 0;
}

/* Position @p pos left the hash: its slot waits for a grace period. */
void
dq_defer(struct fc_table *t, uint32_t pos)
{
	struct fc_defer_batch *o = &t->dq_open;

	t->created[pos] = FC_INDEX_NONE;
	if (o->n == 0)
		o->head = pos;
	else
		t->created[o->tail] = pos;
	o->tail = pos;
	o->n++;
	/*
	 * The batch's grace period starts after its latest removal (release:
	 * the removal is visible first), so each slot waits for at most
	 * FC_TABLE_DQ_BATCH - 1 later removals besides its own grace period.
	 */
	o->token = rte_rcu_qsbr_start(t->qsv);
	t->n_deferred++;
	if (o->n >= FC_TABLE_DQ_BATCH)
		dq_close(t);
}

/* Give back to the hash at most @p max slots whose grace period is over. */
unsigned int
dq_reclaim(struct fc_table *t, unsigned int max)
{
	unsigned int freed = 0;

	while (freed < max) {
		struct fc_defer_batch *b;

		if (t->dq_n == 0)
			dq_close(t);
		if (t->dq_n == 0)
			break;
		b = &t->dq[t->dq_first];
		if (rte_rcu_qsbr_check(t->qsv, b->token, false) != 1)
			break;
		for (; b->n > 0 && freed < max; freed++) {
			uint32_t pos = b->head;

			b->head = t->created[pos];
			b->n--;
			t->created[pos] = t->free_head;
			t->free_head = pos;
			t->n_free++;
		}
		if (b->n == 0) {
			t->dq_first = (t->dq_first + 1) % FC_TABLE_DQ_BATCHES;
			t->dq_n--;
		}
	}
	t->n_deferred -= freed;
	return freed;
}

/*
 * Remove the live entry at @p idx: remove_cb (if asked), seq 0, key out of
 * the hash (the slot goes to the RCU defer queue). Counters are the caller's.
 * Returns 0, or -ENOENT if the slot is free (or the callback removed it).
 */
int
table_remove(struct fc_table *t, uint32_t idx, bool call_cb)
{
	struct fc_entry *e = &t->entries[idx];
	const void *key;

	if (e->seq == 0)
		return -ENOENT;
	key = slot_key(t, idx);
	if (call_cb && t->remove_cb != NULL) {
		t->remove_cb(t, key, idx, e, t->remove_arg);
		if (e->seq == 0)
			return -ENOENT; /* the callback deleted it itself */
	}

	/*
	 * Invalidate first: a reader that still finds the key sees a miss. The
	 * release store that empties the bucket slot orders this store before
	 * the key disappears.
	 */
	if (e->act.flags & FC_ACT_F_EARLY)
		early_unlink(t, idx);
	/* The whole word: no mark names a free slot (the owner withdrew it in remove_cb, if any). */
	__atomic_store_n(&e->seq, 0, __ATOMIC_RELEASE);
	bkt_del(t, fc_table_hash(t, key), idx);
	dq_defer(t, idx);
	wr_set32(&t->count, t->count - 1);
	return 0;
}

const struct fc_entry *
fc_table_entry(const struct fc_table *t, uint32_t idx)
{
	if (t == NULL || idx >= t->n_slots || !slot_live(t, idx))
		return NULL;
	return &t->entries[idx];
}

const void *
fc_table_key(const struct fc_table *t, uint32_t idx)
{
	if (fc_table_entry(t, idx) == NULL)
		return NULL;
	return slot_key(t, idx);
}

/* Walks slots, not buckets, so deleting the current entry is safe. */
int
fc_table_iterate(const struct fc_table *t, uint32_t *next, const void **key, uint32_t *idx)
{
	if (t == NULL || next == NULL)
		return -ENOENT;
	while (*next < t->n_slots) {
		uint32_t i = (*next)++;
		const void *k = fc_table_key(t, i);

		if (k == NULL)
			continue;
		if (key != NULL)
			*key = k;
		if (idx != NULL)
			*idx = i;
		return 0;
	}
	return -ENOENT;
}

int
fc_table_walk(const struct fc_table *t, uint32_t *next, uint32_t *budget, const void **key,
	uint32_t *idx)
{
	uint32_t i, left, n;

	if (t == NULL || next == NULL || budget == NULL)
		return -ENOENT;
	/* Free slots cost a load each: the cursor and the budget in registers. */
	i = *next;
	left = *budget;
	n = t->n_slots;
	for (; i < n; i++) {
		if (left == 0) {
			*next = i;
			*budget = 0;
			return -EAGAIN;
		}
		left--;
		if (!slot_live(t, i))
			continue;
		*next = i + 1;
		*budget = left;
		if (key != NULL)
			*key = slot_key(t, i);
		if (idx != NULL)
			*idx = i;
		return 0;
	}
	*next = i;
	*budget = left;
	return -ENOENT;
}

/*
 * An entry is idle when (now - last_seen), taken as a signed 32-bit
 * difference, exceeds its timeout: timeouts up to 2^31 - 1 units work across
 * clock wrap, and a last_seen slightly ahead of @p now (an RX lcore read the
 * clock later) counts as fresh.
 */
unsigned int
fc_table_age(struct fc_table *t, uint32_t now, unsigned int max_work)
{
	uint32_t cur, work;
	unsigned int removed = 0;

	if (t == NULL)
		return 0;
	cur = t->age_cursor;
	work = RTE_MIN((uint32_t)max_work, t->n_slots);
	for (; work > 0; work--) {
		const struct fc_entry *e = &t->entries[cur];
		uint32_t i = cur, to;

		if (++cur == t->n_slots)
			cur = 0;
		if (e->seq == 0)
			continue;
		to = fc_table_cold(t, i)->timeout;
		if (to == 0 ||
			idle_time(now, __atomic_load_n(&e->last_seen, __ATOMIC_RELAXED)) <=
				fc_timeout_decode(to))
			continue;
		if (table_remove(t, i, true) == 0)
			removed++;
	}
	t->age_cursor = cur;
	wr_add64(&t->aged, removed);
	return removed;
}

/* Removals by flush count as deletes. */
unsigned int
fc_table_flush(struct fc_table *t)
{
	unsigned int removed = 0;
	uint32_t i;

	if (t == NULL)
		return 0;
	for (i = 0; i < t->n_slots; i++)
		if (t->entries[i].seq != 0 && table_remove(t, i, true) == 0)
			removed++;
	wr_add64(&t->deletes, removed);
	return removed;
}

void
fc_table_stats_get(const struct fc_table *t, struct fc_table_stats *s)
{
	uint32_t r;

	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	if (t == NULL)
		return;
	for (r = 0; r < t->max_readers; r++) {
		const struct fc_reader_stats *rs = &t->rstats[r];

		s->lookups += __atomic_load_n(&rs->lookups, __ATOMIC_RELAXED);
		s->hits += __atomic_load_n(&rs->hits, __ATOMIC_RELAXED);
		s->misses += __atomic_load_n(&rs->misses, __ATOMIC_RELAXED);
	}
	s->inserts = __atomic_load_n(&t->inserts, __ATOMIC_RELAXED);
	s->deletes = __atomic_load_n(&t->deletes, __ATOMIC_RELAXED);
	s->evictions = __atomic_load_n(&t->evictions, __ATOMIC_RELAXED);
	s->evict_early = __atomic_load_n(&t->evict_early, __ATOMIC_RELAXED);
	s->evict_est_early = __atomic_load_n(&t->evict_est_early, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&t->refused, __ATOMIC_RELAXED);
	s->refused_grace = __atomic_load_n(&t->refused_grace, __ATOMIC_RELAXED);
	s->aged = __atomic_load_n(&t->aged, __ATOMIC_RELAXED);
	s->moves = __atomic_load_n(&t->moves, __ATOMIC_RELAXED);
	s->occupancy = __atomic_load_n(&t->count, __ATOMIC_RELAXED);
	s->capacity = t->capacity;
}
