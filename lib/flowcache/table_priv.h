/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache private: the flow table's layout and the helpers its two
 * files share, table.c (creation, lookups, the writer's per-flow
 * operations) and table_remove.c (how entries leave: removal, the grace
 * periods before their slots return to the hash, aging, flush, walks and
 * counters) and table_bkt.c (the buckets: where each key's slot index
 * is found, cuckoo displacement, the readers' bulk lookup). Not
 * installed; see table.c and table_bkt.c for the concurrency design.
 */
#ifndef GUFC_FC_TABLE_PRIV_H
#define GUFC_FC_TABLE_PRIV_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "flowcache.h"

extern int fc_table_logtype;
#define FC_TABLE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, fc_table_logtype, "flowcache: " fmt "\n", ##__VA_ARGS__)

/** Memzone name prefix; the memzone holds struct fc_table and makes the name unique. */
#define FC_TABLE_MZ_PREFIX "fct_"
/** Longest table name accepted (the memzone name must fit). */
#define FC_TABLE_NAME_MAX (RTE_MEMZONE_NAMESIZE - sizeof(FC_TABLE_MZ_PREFIX))
/** Largest capacity accepted (capacity + headroom key slots, 32-bit bucket indexes). */
#define FC_TABLE_CAPACITY_MAX (1u << 28)
/**
 * Fewest spare key slots for deleted entries waiting out their grace
 * period. A full table under a storm of new flows evicts once per insert,
 * a million a second, while an RX lcore reports quiescence once per loop
 * (longer when its host deschedules it): with 64 spare slots a table of
 * 2,048 refused 12-19 % of a storm's inserts (bench-e2e's new-flow trace,
 * a loaded 2-core VM), with 1,024 0.3-0.5 % (9.6 % once).
 */
#define FC_TABLE_HEADROOM_MIN 1024u
/** Spare key slots per live entry: 1 / FC_TABLE_HEADROOM_DIV of the capacity. */
#define FC_TABLE_HEADROOM_DIV 64u
/** Default entries examined by an eviction. */
#define FC_TABLE_EVICT_SCAN_DEFAULT 1024u
/**
 * Victims one eviction scan of established entries chooses: the best goes
 * at once, the others, best first, serve the next evictions of established
 * entries while they are as the scan saw them
 * (a full table under churn evicts once per insert: one scan for this many).
 */
#define FC_TABLE_EVICT_BATCH 16u
/**
 * Not-established entries an eviction compares from the oldest end of
 * their list (fc_table::early_head): the one idle the longest goes, so an
 * early entry that still gets packets outlives a flood's one-packet ones.
 */
#define FC_TABLE_EVICT_EARLY_LOOK 8u
/**
 * Entries an eviction walks from the head of the not-established list at
 * most, those it sends to the end for a second chance (still getting
 * packets) included.
 */
#define FC_TABLE_EVICT_EARLY_STEPS 32u

/**
 * Links of a live FC_ACT_F_EARLY entry in the list of those, oldest
 * insert first (fc_table::early): FC_INDEX_NONE ends it. Writer-owned.
 */
struct fc_early_link {
	uint32_t prev;
	uint32_t next;
};

/** A victim an eviction scan chose (struct fc_table::victims). */
struct fc_table_victim {
	uint32_t idx;
	uint32_t last_seen; /**< as the scan saw them: changed, the entry is skipped */
	uint32_t created;
	uint32_t idle;      /**< at the scan */
};
/** Slots waiting for a grace period that make an insert try to reclaim. */
#define FC_TABLE_DQ_TRIGGER 8u
/** Most slots reclaimed in one go. */
#define FC_TABLE_DQ_RECLAIM_MAX 64u
/** Slots in the open batch before it joins the ring. */
#define FC_TABLE_DQ_BATCH 8u
/** Batches the ring holds; while it is full the open batch grows unbounded. */
#define FC_TABLE_DQ_BATCHES 64u
/** 32-bit words of the widest key (IPv6, 48 bytes): NH keys of the hash. */
#define FC_TABLE_HASH_WORDS 12
/** Evict-and-retry rounds after a cuckoo insert failure (EVICT_IDLE). */
#define FC_TABLE_ADD_RETRIES 4u
/**
 * Bytes from one slot's key to the next in fc_table::keys, either size: a
 * 16-byte key is in its entry's line (struct fc_entry::tail), a 48-byte
 * one alone in a line of its own (packed, half of them would straddle
 * two lines, two misses for one compare).
 */
#define FC_KEY_STRIDE(key_size) 64u
/** log2 of the bytes between two slots' cold words in an IPv4 table's array of them. */
#define FC_COLD_SHIFT_V4 4u
/** ... in an IPv6 table, where they are the entry line's tail. */
#define FC_COLD_SHIFT_V6 6u
/** Slots per bucket (struct fc_bucket). */
#define FC_BKT_ENTRIES 8u
/** Most buckets a cuckoo insert's breadth-first search for a free slot visits. */
#define FC_BKT_SEARCH_MAX 512u
/** Most keys in one fc_table_lookup_bulk() or fc_table_find_bulk() call. */
#define FC_TABLE_BULK_MAX 64u

/**
 * One bucket, one cache line: 8 slots, each a 16-bit tag (the upper half
 * of the key's fc_table_hash()) and the key's slot index plus one (0: the
 * slot is empty). A key lives in one of its two buckets (table_bkt.c).
 * Owner: the table. Written by the writer only (tags plain, indexes with
 * release stores); read by lock-free readers, who check every candidate's
 * key and re-check fc_table::bkt_chg after a miss.
 */
struct fc_bucket {
	uint16_t tag[FC_BKT_ENTRIES];
	uint32_t idx[FC_BKT_ENTRIES];
	uint32_t spare[4];
} __rte_cache_aligned;

/**
 * Per-reader counters. Owner: the table. Written only by reader `i` (plain
 * increments, relaxed stores); read by fc_table_stats_get() on any lcore.
 * One cache line per reader so readers never share a line.
 */
struct fc_reader_stats {
	uint64_t lookups;
	uint64_t hits;
	uint64_t misses;
} __rte_cache_aligned;

/**
 * Deleted slots waiting for one grace period: a chain through the dead
 * slots' insertion-time records (fc_table::created), from @c head to @c tail.
 * Writer-owned.
 */
struct fc_defer_batch {
	uint64_t token; /**< rte_rcu_qsbr_start() after the last deletion */
	uint32_t head;
	uint32_t tail;
	uint32_t n;
};

/**
 * The flow table. Lives in a memzone named after the table (so names are
 * unique); freed by fc_table_free() once no reader is left.
 *
 * The first cache line is read-only after creation and shared by readers and
 * the writer. The second belongs to the writer: only the writer writes it;
 * other lcores read its counters (relaxed) for statistics.
 */
struct fc_table {
	/* Read-mostly, shared with readers. */
	/* The first six are struct fc_table_view (flowcache_table.h). */
	struct fc_bucket *bkt;		/**< n_bkt buckets */
	struct fc_entry *entries;	/**< n_slots entries, indexed by key slot */
	uint32_t n_slots;		/**< key slots: capacity + headroom */
	uint32_t cold_shift;		/**< FC_COLD_SHIFT_V4 or FC_COLD_SHIFT_V6 */
	uint32_t *created;		/**< n_slots insertion times; a dead slot's links its batch,
					     a free slot's the free list (writer's) */
	uint8_t *cold;			/**< slot 0's cold words: cold_arr (IPv4) or slot 0's
					     entry tail (IPv6) */
	struct rte_rcu_qsbr *qsv;	/**< RCU variable, one thread id per reader */
	struct fc_reader_stats *rstats; /**< max_readers counter lines */
	uint32_t key_size;		/**< 16 or 48 */
	uint32_t seed;			/**< what the hash secret was drawn from (fc_table_params) */
	uint8_t *keys;			/**< n_slots keys, FC_KEY_STRIDE(key_size) bytes apart:
					     IPv4 slot 0's entry tail, or key_arr (IPv6) */
	void *key_arr;			/**< IPv6: the keys' own lines; NULL for IPv4 */
	struct fc_entry_cold *cold_arr;	/**< IPv4: n_slots cold words; NULL for IPv6 */
	uint32_t n_bkt;			/**< buckets (bkt_count_for(): any number from 2) */
	uint32_t max_readers;
	uint8_t family;
	/** The hash's secret (table.c, "Hashing"): NH word keys, then the finalizer's. */
	alignas(RTE_CACHE_LINE_SIZE) uint32_t hk[FC_TABLE_HASH_WORDS];
	uint64_t hk_fin;
	/**
	 * Bumped (release) by the writer after each cuckoo move, before the
	 * moved key's old bucket slot changes: a reader whose lookup missed
	 * while it changed looks again (table_bkt.c). A line of its own: the
	 * writer's other stores never disturb the readers' copy.
	 */
	alignas(RTE_CACHE_LINE_SIZE) uint32_t bkt_chg;

	/* Writer-owned. */
	alignas(RTE_CACHE_LINE_SIZE) uint32_t capacity;
	uint32_t count;	       /**< live entries */
	uint32_t n_early;      /**< live entries with FC_ACT_F_EARLY ... */
	uint32_t early_head;   /**< ... listed, the oldest insert first ... */
	uint32_t early_tail;   /**< ... the latest last */
	struct fc_early_link *early; /**< n_slots links, meaningful for those entries */
	uint32_t last_insert;  /**< the latest insert's index: never evicted (table_evict) */
	uint32_t evict_scan;   /**< live entries examined per eviction */
	uint32_t evict_cursor; /**< next slot the eviction scan looks at */
	uint32_t n_victims;    /**< victims the last scan chose ... */
	uint32_t victim_next;  /**< ... and the next one to take */
	struct fc_table_victim victims[FC_TABLE_EVICT_BATCH]; /**< best first */
	uint32_t age_cursor;   /**< next slot aging looks at */
	enum fc_full_policy full_policy;
	fc_remove_cb remove_cb;
	void *remove_arg;
	uint64_t inserts;
	uint64_t deletes;
	uint64_t evictions;
	uint64_t evict_early;	  /**< of evictions: not-established (FC_ACT_F_EARLY) victims */
	uint64_t evict_est_early; /**< of evictions: established victims while others remained */
	uint64_t refused;
	uint64_t refused_grace; /**< of refused: every spare key slot waited for a grace period */
	uint64_t aged;
	uint64_t moves;		/**< cuckoo displacements (table_bkt.c) */
	uint32_t free_head;	/**< the free key slots (not live, not waiting), a stack linked
				     through their fc_table::created: FC_INDEX_NONE ends it */
	uint32_t n_free;

	/* Deleted slots waiting for a grace period (writer-owned). */
	struct fc_defer_batch dq[FC_TABLE_DQ_BATCHES]; /**< ring, oldest at dq_first */
	uint32_t dq_first;
	uint32_t dq_n;
	struct fc_defer_batch dq_open; /**< the batch deletions join now */
	uint32_t n_deferred;	       /**< slots in dq[] and dq_open */

	/* Lifetime. */
	const struct rte_memzone *mz;
	char name[RTE_MEMZONE_NAMESIZE];
};

static_assert(offsetof(struct fc_table, entries) == offsetof(struct fc_table_view, entries),
	"struct fc_table_view must mirror struct fc_table");
static_assert(offsetof(struct fc_table, n_slots) == offsetof(struct fc_table_view, n_slots),
	"struct fc_table_view must mirror struct fc_table");
static_assert(offsetof(struct fc_table, created) == offsetof(struct fc_table_view, created),
	"struct fc_table_view must mirror struct fc_table");
static_assert(offsetof(struct fc_table, cold_shift) == offsetof(struct fc_table_view, cold_shift),
	"struct fc_table_view must mirror struct fc_table");
static_assert(offsetof(struct fc_table, cold) == offsetof(struct fc_table_view, cold),
	"struct fc_table_view must mirror struct fc_table");

/* Writer-side counter bump: single writer, relaxed store for concurrent readers. */
static inline void
wr_add64(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static inline void
wr_set32(uint32_t *c, uint32_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/*
 * The seq word after @p s: the next even, non-zero count (within
 * FC_ENTRY_SEQ_MASK), the mark tag kept.
 */
static inline uint32_t
seq_next_even(uint32_t s)
{
	uint32_t n = ((s | 1u) + 1u) & FC_ENTRY_SEQ_MASK;

	return (s & ~FC_ENTRY_SEQ_MASK) | (n == 0 ? 2u : n);
}

/* Wrap-safe idle time: how long before @p now @p last was; 0 if it is in the future. */
static inline uint32_t
idle_time(uint32_t now, uint32_t last)
{
	int32_t d = (int32_t)(now - last);

	return d > 0 ? (uint32_t)d : 0;
}

static inline bool
slot_live(const struct fc_table *t, uint32_t idx)
{
	return __atomic_load_n(&t->entries[idx].seq, __ATOMIC_ACQUIRE) != 0;
}

/* The key of position @p idx (meaningful while it is live). */
static inline const void *
slot_key(const struct fc_table *t, uint32_t idx)
{
	return t->keys + (size_t)idx * FC_KEY_STRIDE(t->key_size);
}

/* The live entry @p idx became FC_ACT_F_EARLY: it joins the list after @p after (FC_INDEX_NONE: at the end). */
static inline void
early_link(struct fc_table *t, uint32_t idx, uint32_t after)
{
	struct fc_early_link *l = &t->early[idx];

	if (after == FC_INDEX_NONE)
		after = t->early_tail;
	l->prev = after;
	if (after == FC_INDEX_NONE) {
		l->next = t->early_head;
		t->early_head = idx;
	} else {
		l->next = t->early[after].next;
		t->early[after].next = idx;
	}
	if (l->next == FC_INDEX_NONE)
		t->early_tail = idx;
	else
		t->early[l->next].prev = idx;
	t->n_early++;
}

/* The live entry @p idx is no longer FC_ACT_F_EARLY (or leaves): out of the list. */
static inline void
early_unlink(struct fc_table *t, uint32_t idx)
{
	const struct fc_early_link *l = &t->early[idx];

	if (l->prev == FC_INDEX_NONE)
		t->early_head = l->next;
	else
		t->early[l->prev].next = l->next;
	if (l->next == FC_INDEX_NONE)
		t->early_tail = l->prev;
	else
		t->early[l->next].prev = l->prev;
	t->n_early--;
}

/* table_remove.c */
int table_remove(struct fc_table *t, uint32_t idx, bool call_cb);
void dq_defer(struct fc_table *t, uint32_t pos);
unsigned int dq_reclaim(struct fc_table *t, unsigned int max);

/* table_bkt.c (the writer's side; the readers' is fc_table_lookup_bulk()) */
int32_t bkt_find(const struct fc_table *t, const void *key, uint32_t sig);
int bkt_add(struct fc_table *t, uint32_t sig, uint32_t pos);
void bkt_del(struct fc_table *t, uint32_t sig, uint32_t pos);
uint32_t bkt_count_for(uint32_t capacity);

#endif /* GUFC_FC_TABLE_PRIV_H */
