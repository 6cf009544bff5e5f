/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache — the flow table's slot accessors: the inline readers of an
 * entry's line and cold words (counters, peer, timeout, insertion time, mark
 * tag, a consistent action snapshot) that the fast path and control share.
 * Part of flowcache_table.h, which includes this header where these belong:
 * include flowcache.h.
 */
#ifndef GUFC_FLOWCACHE_SLOT_H
#define GUFC_FLOWCACHE_SLOT_H

#ifndef GUFC_FLOWCACHE_TABLE_H
#error "include flowcache.h, not flowcache_slot.h"
#endif

/**
 * The first members of every struct fc_table, read-only, for the inline
 * fast-path helpers below (the rest of the table stays private).
 */
struct fc_table_view {
	const void *priv;         /**< not for users */
	struct fc_entry *entries; /**< n_slots entries, indexed by position */
	uint32_t n_slots;         /**< positions */
	uint32_t cold_shift;      /**< log2 of the bytes from one slot's cold words to the next */
	const uint32_t *created;  /**< n_slots insertion times (fc_table_created()) */
	uint8_t *cold;            /**< slot 0's cold words (struct fc_entry_cold) */
};

/**
 * The entry slot at @p idx, live or not, or NULL if @p idx is out of range.
 * Readers copy from it under the seq contract of struct fc_entry (an RX
 * lcore holding an index from a NIC mark, say); prefetching it is free.
 * @param t    the table
 * @param idx  entry index
 * @return the slot, or NULL (index out of range)
 * Context: any lcore.
 */
static inline const struct fc_entry *
fc_table_slot(const struct fc_table *t, uint32_t idx)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	return idx < v->n_slots ? &v->entries[idx] : NULL;
}

/**
 * The cold words of slot @p idx (in range, live or not): an array of their
 * own in an IPv4 table, the entry line's tail in an IPv6 one.
 * @param t    the table
 * @param idx  entry index, below the slot count
 * @return the slot's cold words.
 * Context: any lcore (fields as struct fc_entry_cold says).
 */
static inline struct fc_entry_cold *
fc_table_cold(const struct fc_table *t, uint32_t idx)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	return (struct fc_entry_cold *)(void *)(v->cold + ((size_t)idx << v->cold_shift));
}

/**
 * A counter whose low word is @p lo (the entry's line) and whose doubled
 * high word is @p hi (its cold words), read consistently: the high word
 * before and after the low one, again while a carry is being written (a
 * few stores on the counting lcore).
 * Context: any lcore.
 */
static inline uint64_t
fc_entry_ctr_read(const uint32_t *lo, const uint32_t *hi)
{
	uint32_t h1, h2, l;

	for (;;) {
		h1 = __atomic_load_n(hi, __ATOMIC_ACQUIRE);
		l = __atomic_load_n(lo, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		h2 = __atomic_load_n(hi, __ATOMIC_RELAXED);
		if (likely(h1 == h2 && !(h1 & 1u)))
			return (uint64_t)(h1 >> 1) << 32 | l;
		rte_pause();
	}
}

/**
 * Packets and bytes counted on slot @p idx (fc_table_touch(); a slot's
 * counters are zeroed when it is filled, fc_table_move() carries them),
 * each 64-bit value read consistently from its two halves.
 * @param t        the table
 * @param idx      entry index
 * @param packets  receives the packets (0: @p t NULL or @p idx out of range)
 * @param bytes    receives the bytes (likewise)
 * Context: any lcore; for a live entry, the writer or control for display
 * (values may be a hit behind).
 */
static inline void
fc_table_counters(const struct fc_table *t, uint32_t idx, uint64_t *packets, uint64_t *bytes)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;
	const struct fc_entry_cold *c;
	const struct fc_entry *e;

	if (unlikely(t == NULL || idx >= v->n_slots)) {
		*packets = 0;
		*bytes = 0;
		return;
	}
	e = &v->entries[idx];
	c = fc_table_cold(t, idx);
	*packets = fc_entry_ctr_read(&e->packets_lo, &c->packets_hi);
	*bytes = fc_entry_ctr_read(&e->bytes_lo, &c->bytes_hi);
}

/**
 * The packets counted on slot @p idx (fc_table_counters()'s first).
 * Context: as fc_table_counters().
 */
static inline uint64_t
fc_table_packets(const struct fc_table *t, uint32_t idx)
{
	uint64_t p, b;

	fc_table_counters(t, idx, &p, &b);
	return p;
}

/**
 * The entry index of live entry @p idx's other direction (the table's
 * owner links them, fc_table_peer_set()).
 * @param t    the table
 * @param idx  entry index
 * @return the index, or FC_INDEX_NONE (none linked; @p t NULL, @p idx free
 *   or out of range).
 * Context: the writer; control for display (may change underneath).
 */
static inline uint32_t
fc_table_peer(const struct fc_table *t, uint32_t idx)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	if (unlikely(t == NULL || idx >= v->n_slots) ||
		__atomic_load_n(&v->entries[idx].seq, __ATOMIC_ACQUIRE) == 0)
		return FC_INDEX_NONE;
	return __atomic_load_n(&fc_table_cold(t, idx)->peer, __ATOMIC_RELAXED);
}

/**
 * Link live entry @p idx to its other direction @p peer (FC_INDEX_NONE:
 * none). Insert sets none; fc_table_move() carries it.
 * @param t     the table
 * @param idx   entry index
 * @param peer  the other direction's index, or FC_INDEX_NONE
 * @return 0; -ENOENT if @p t is NULL, @p idx free or out of range.
 * Context: writer only.
 */
static inline int
fc_table_peer_set(struct fc_table *t, uint32_t idx, uint32_t peer)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	if (unlikely(t == NULL || idx >= v->n_slots) || v->entries[idx].seq == 0)
		return -ENOENT;
	__atomic_store_n(&fc_table_cold(t, idx)->peer, peer, __ATOMIC_RELAXED);
	return 0;
}

/**
 * Idle timeout of live entry @p idx (the @p timeout of fc_table_insert()
 * or the latest fc_table_update(), as fc_timeout_stored() keeps it).
 * @param t    the table
 * @param idx  entry index
 * @return the timeout, or 0 (never, or @p t NULL, @p idx free or out of range).
 * Context: the writer; control for display (may change underneath).
 */
static inline uint32_t
fc_table_timeout(const struct fc_table *t, uint32_t idx)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	if (unlikely(t == NULL || idx >= v->n_slots) ||
		__atomic_load_n(&v->entries[idx].seq, __ATOMIC_ACQUIRE) == 0)
		return 0;
	return fc_timeout_decode(
		__atomic_load_n(&fc_table_cold(t, idx)->timeout, __ATOMIC_RELAXED));
}

/**
 * Insertion time of live entry @p idx (the @p now of fc_table_insert()).
 * @param t    the table
 * @param idx  entry index
 * @return the time, or 0 if @p t is NULL, @p idx free or out of range.
 * Context: the writer; control for display.
 */
static inline uint32_t
fc_table_created(const struct fc_table *t, uint32_t idx)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	if (unlikely(t == NULL || idx >= v->n_slots) ||
		__atomic_load_n(&v->entries[idx].seq, __ATOMIC_ACQUIRE) == 0)
		return 0;
	return v->created[idx];
}

/**
 * The tag of the NIC mark that names slot @p idx while its flow is
 * offloaded (the top byte of struct fc_entry::seq), live entry or not:
 * one acquire load of the entry's own line, which the marked packet then
 * reads its action from. The mark's other bits (slot, family) are which
 * entry of which table this reads.
 * @param t    the table
 * @param idx  entry index
 * @return the tag, or 0 (none, or @p idx out of range).
 * Context: any lcore; an RX lcore between two quiescent reports (the slot
 * is not reused under it: a reused slot starts with tag 0).
 */
static inline uint8_t
fc_table_mark_tag(const struct fc_table *t, uint32_t idx)
{
	const struct fc_entry *e = fc_table_slot(t, idx);

	return likely(e != NULL) ? (uint8_t)(__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) >>
					     FC_ENTRY_TAG_SHIFT)
				 : 0;
}

/**
 * Publish (or, with 0, withdraw) the tag of the NIC mark naming live slot
 * @p idx (release store of the whole word, its sequence count kept: only
 * the table's writer thread may call it, as it is the count's only
 * writer). Withdrawing works on any slot in range; the table also
 * withdraws it when the entry goes (the whole word goes to 0 after the
 * remove callback).
 * @param t    the table
 * @param idx  entry index
 * @param tag  the mark's tag, or 0
 * @return 0; -ENOENT if @p t is NULL, @p idx out of range, or (a tag
 *   other than 0) the slot free.
 * Context: the table's writer thread.
 */
static inline int
fc_table_mark_tag_set(struct fc_table *t, uint32_t idx, uint8_t tag)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;
	struct fc_entry *e;

	if (unlikely(t == NULL || idx >= v->n_slots) || (tag != 0 && v->entries[idx].seq == 0))
		return -ENOENT;
	e = &v->entries[idx];
	__atomic_store_n(&e->seq,
		(e->seq & FC_ENTRY_SEQ_MASK) | ((uint32_t)tag << FC_ENTRY_TAG_SHIFT),
		__ATOMIC_RELEASE);
	return 0;
}

/**
 * Copy entry @p idx's action consistently, following struct
 * fc_entry::seq's contract (its count even: stable, odd: being written,
 * the word 0: free).
 * @return false if the entry is free or being written (take the software path).
 * Context: registered reader, between quiescent reports.
 */
static inline bool
fc_table_entry_read(const struct fc_table *t, uint32_t idx, struct fc_action *a)
{
	const struct fc_entry *e = fc_table_slot(t, idx);
	uint32_t s1, s2;

	if (unlikely(e == NULL))
		return false;
	s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	if (unlikely(s1 == 0 || (s1 & 1)))
		return false;
	*a = e->act;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	return likely(((s1 ^ s2) & FC_ENTRY_SEQ_MASK) == 0);
}

/**
 * The slot array of @p t and its length, for a burst that turns many
 * indexes into slots (fc_table_slot() each, without its per-index loads).
 * @param t  the table; NULL: no slots
 * @param n  receives the slot count (0 for NULL)
 * @return slot 0, or NULL for NULL.
 * Context: any lcore.
 */
static inline const struct fc_entry *
fc_table_slots(const struct fc_table *t, uint32_t *n)
{
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;

	*n = t != NULL ? v->n_slots : 0;
	return t != NULL ? v->entries : NULL;
}

/**
 * fc_table_entry_read() of slot @p e for the holder of a NIC mark with
 * tag @p tag: the one load of the entry's word checks the tag (the slot
 * is the one the mark names: fc_table_mark_tag_set()) and the sequence
 * count (even: stable; a word with a tag is never a free slot's 0).
 * @param e    the slot (fc_table_slots()), in range
 * @param tag  the mark's tag, not 0
 * @param a    receives the action
 * @return false if the tag differs or the entry is being written (take
 *   the software path).
 * Context: registered reader, between quiescent reports.
 */
static inline bool
fc_entry_read_tagged(const struct fc_entry *e, uint8_t tag, struct fc_action *a)
{
	uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE), s2;

	if (unlikely((s1 >> FC_ENTRY_TAG_SHIFT) != tag || (s1 & 1)))
		return false;
	*a = e->act;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	return likely(((s1 ^ s2) & FC_ENTRY_SEQ_MASK) == 0);
}

#endif /* GUFC_FLOWCACHE_SLOT_H */
