/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel private definitions: the shared directory that primary and
 * secondary processes both map, the primary's process-local table, the pcap
 * sink and the counter helpers. Not installed; only the .c files of lib/channel include it.
 */
#ifndef GUFC_CHAN_PRIV_H
#define GUFC_CHAN_PRIV_H

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "channel.h"

extern int chan_logtype;
#define CHAN_LOG(level, fmt, ...)                                                                  \
	rte_log(RTE_LOG_##level, chan_logtype, "channel: " fmt "\n", ##__VA_ARGS__)

/** Burst size of internal dequeues (drain, flush). */
#define CHAN_BURST 32u

/** Written last by the table constructor; secondaries check it. */
#define CHAN_DIR_MAGIC 0x67636831u /* "gch1" */

static_assert(sizeof(CHAN_RING_PREFIX) - 1 + CHAN_NAME_MAX < RTE_RING_NAMESIZE,
	"named channel ring names must fit an rte_ring name");
static_assert(sizeof(CHAN_FLOW_MZ_PREFIX) - 1 + 7 < RTE_MEMZONE_NAMESIZE,
	"pool chunk names must fit a memzone name");
static_assert(CHAN_NAME_MAX + 1 + 20 < CHAN_NAMESIZE, "per-flow names must fit");
static_assert((uint64_t)CHAN_MAX_CHANNELS + CHAN_FLOW_POOL_MAX < UINT32_MAX, "ids are 32-bit");
static_assert(CHAN_FLOW_POOL_MAX % CHAN_FLOW_CHUNK == 0, "whole chunks");
static_assert(sizeof(CHAN_DIR_MZ_NAME) <= RTE_MEMZONE_NAMESIZE, "memzone name");

/** Descriptor states. */
#define CHAN_DESC_FREE 0u
#define CHAN_DESC_LIVE 1u

/** chan_desc::chunk of a named channel (its ring is found by name). */
#define CHAN_CHUNK_NONE UINT32_MAX

/**
 * Counters of one producer on one channel. On a named channel written only
 * by the thread that uses this producer id (relaxed load + store); on a
 * per-flow channel one set shared by every producer (atomic adds: a flow
 * has one or two producers, and a per-flow descriptor stays small). Read by
 * anyone. One cache line each, so producers never share a line.
 */
struct chan_prod_ctr {
	uint64_t enqueued;
	uint64_t bytes;
	uint64_t drop_full;
	uint64_t direct_consumed; /**< transmitted by the producer itself (direct TX) */
	uint64_t direct_bytes;
	uint64_t tx_sent;	  /**< direct TX: sent */
	uint64_t tx_full;	  /**< direct TX: refused by the queue */
} __rte_cache_aligned;

/**
 * The common part of a channel slot's descriptor, in shared memory: named
 * channels' in the directory memzone (struct chan_named_desc), per-flow
 * channels' in their pool chunk's memzone (struct chan_flow_desc).
 *
 * Owner: the table (the memzones live until chan_table_free()). Control
 * fields (first lines) are written by the primary under the directory
 * lock when a channel is created or deleted, and @c attached / @c owner_pid
 * by whoever attaches or detaches, also under the lock; anyone reads them
 * under the lock. Consumer counters are written by the channel's one
 * consumer of the moment (the primary's drain, dequeue or flush under the
 * slot's consumer lock, or the attached consumer); producer counters by their
 * producers. Counters are relaxed 64-bit atomics: readers in any process see
 * whole values.
 */
struct chan_desc {
	uint32_t state; /**< CHAN_DESC_FREE or CHAN_DESC_LIVE */
	uint32_t id;
	uint16_t parent; /**< per-flow: parent's id; named: own id */
	uint8_t kind;	 /**< enum chan_cons_kind */
	uint8_t per_flow;
	uint16_t tx_port;
	uint16_t tx_queue;
	uint16_t tx_vlan; /**< CHAN_CONS_TX: VLAN id pushed (0: none) */
	uint32_t ring_size;
	uint32_t attached; /**< 0 or 1: the ring is single-consumer */
	int32_t owner_pid; /**< process of the attached consumer */
	/** Per-flow: the chunk whose memzone (CHAN_FLOW_MZ_PREFIX "<chunk>") holds the ring. */
	uint32_t chunk;
	uint32_t ring_off; /**< per-flow: the ring's offset in that memzone */
	char ring_name[RTE_RING_NAMESIZE]; /**< named: the rte_ring's name */
	char name[CHAN_NAMESIZE];

	/* Consumer counters. */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t consumed;
	uint64_t consumed_bytes;
	uint64_t flushed;
	uint64_t tx_sent; /**< TX consumer: sent */
	uint64_t tx_full; /**< TX consumer: refused by the queue */
} __rte_cache_aligned;

/** A named channel's descriptor: a counter line per producer. */
struct chan_named_desc {
	struct chan_desc d;
	struct chan_prod_ctr prod[CHAN_MAX_PRODUCERS];
} __rte_cache_aligned;

/** A per-flow channel's descriptor: one counter line, shared by its producers. */
struct chan_flow_desc {
	struct chan_desc d;
	struct chan_prod_ctr prod;
} __rte_cache_aligned;

/** Producer counter lines of descriptor @p d: CHAN_MAX_PRODUCERS, or 1 (per-flow). */
static inline struct chan_prod_ctr *
chan_desc_prod(struct chan_desc *d, unsigned int producer_id)
{
	if (d->per_flow)
		return &container_of(d, struct chan_flow_desc, d)->prod;
	return &container_of(d, struct chan_named_desc, d)->prod[producer_id];
}

/** How many producer counter lines descriptor @p d has. */
static inline unsigned int
chan_desc_n_prod(const struct chan_desc *d)
{
	return d->per_flow ? 1u : CHAN_MAX_PRODUCERS;
}

/**
 * The shared directory: one memzone (CHAN_DIR_MZ_NAME) per process group,
 * reserved and freed by the primary's table, holding the named channels'
 * descriptors and where the per-flow pool's chunks are. @c lock (a
 * process-shared spinlock: it is only a word in shared memory) serializes
 * control-field changes between the primary and attaching processes.
 * @c n_chunks grows (release store, after the chunk's memzone is ready);
 * chunk k holds @c flow_chunk rings (ids n_desc + k * flow_chunk ...) but
 * the last, which holds what the cap leaves.
 */
struct chan_dir {
	uint32_t magic; /**< CHAN_DIR_MAGIC once ready; 0 while being freed */
	uint32_t n_desc; /**< named descriptors (ids 0..n_desc-1) */
	rte_spinlock_t lock;
	uint32_t flow_chunk; /**< rings per pool chunk */
	uint32_t flow_max;   /**< the pool's cap (rings) */
	uint32_t n_chunks;   /**< pool chunks made so far */
	alignas(RTE_CACHE_LINE_SIZE) struct chan_named_desc desc[];
};

struct chan_pcap;

/**
 * The primary's view of a channel slot (process-local). The first fields are
 * read by producers on every burst; @c live is published last (release) on
 * create and cleared first on delete. @c cons_lock is held by whoever
 * consumes the ring in this process (drain, TX dequeue, flush, delete), so
 * there is only ever one consumer. It sits on a line of its own: a consumer
 * polling on another lcore takes it on every pass, and on the producers'
 * line each take would steal that line from every producer's next burst.
 */
struct chan_slot {
	struct rte_ring *ring;	/**< named: own ring, NULL when free; pool: always set */
	struct chan_desc *desc; /**< this slot's descriptor */
	uint8_t live;
	uint8_t kind;
	uint8_t per_flow;
	uint16_t tx_port;	/**< CHAN_CONS_TX: the port (direct TX looks it up) */
	uint16_t tx_queue;	/**< CHAN_CONS_TX: the consumer's queue */
	uint16_t tx_vlan;	/**< CHAN_CONS_TX: VLAN id the producers tag with (0: none) */
	uint16_t parent;
	uint32_t children;	/**< per-flow channels allocated from this one */
	uint32_t next_free;	/**< per-flow, free: the next free pool index, or UINT32_MAX */
	uint64_t flow_seq;	/**< allocations made from this one (names) */
	struct chan_pcap *pcap; /**< PCAP: own sink (named) or the parent's (per-flow) */
	alignas(RTE_CACHE_LINE_SIZE) rte_spinlock_t cons_lock;
} __rte_cache_aligned;

/**
 * One chunk of the per-flow pool (process-local): its memzone holds
 * @c n descriptors (struct chan_flow_desc) and then @c n rings of
 * chan_table::flow_ring_mem bytes each, initialized in place
 * (rte_ring_init: no memzone per ring).
 */
struct chan_chunk {
	const struct rte_memzone *mz;
	struct chan_slot *slots; /**< n slots */
	uint32_t n;
};

/** Counters of deleted channels, folded into the totals. */
struct chan_retired {
	uint64_t enqueued;
	uint64_t enq_bytes;
	uint64_t drop_full;
	uint64_t consumed;
	uint64_t consumed_bytes;
	uint64_t flushed;
	uint64_t tx_sent;
	uint64_t tx_full;
};

/**
 * A producer's own TX queues (direct TX), indexed by port; -1: none.
 * Written by the control thread while the producer does not run, read by
 * the producer on every burst to a TX channel. One cache line.
 */
struct chan_producer {
	int16_t txq[CHAN_MAX_TX_PORTS];
} __rte_cache_aligned;

/**
 * The channel table: primary process only, in rte_malloc memory. Control
 * functions serialize on @c ctl_lock; the fast path reads @c slots, the
 * chunks' slots and @c flow_ready only.
 *
 * Per-flow pool: pool index p (channel id n_named + p) lives in chunk
 * p / flow_chunk. Chunks are added under ctl_lock (chan_flow_alloc() when
 * the free list is empty and the cap allows) and never freed before the
 * table; a chunk pointer is published (release) before any id in it is
 * handed out. @c flow_ready has a bit per pool index, set by producers
 * after they enqueued into a per-flow ring and taken by the primary's
 * consumers (chan_consume_all(), chan_drain_all()), so a pass visits the
 * rings that got packets, not the whole pool.
 */
struct chan_table {
	struct chan_slot *slots; /**< n_named slots */
	struct chan_dir *dir;
	const struct rte_memzone *mz;
	uint32_t n_named;
	/**
	 * One past the highest live named slot: the consumers' passes
	 * (chan_consume_all(), chan_drain_all()) look at slots below it only.
	 * Written under ctl_lock (release, after the slot's @c live), read
	 * with acquire.
	 */
	uint32_t named_end;
	uint32_t n_flow;	/**< pool rings made so far (all chunks) */
	uint32_t flow_max;	/**< the pool's cap */
	uint32_t flow_chunk;	/**< rings per chunk */
	uint32_t flow_ring_size;
	uint32_t flow_ring_mem; /**< bytes of one pool ring (cache-line multiple) */
	int socket_id;
	rte_spinlock_t ctl_lock;

	struct chan_chunk **chunks; /**< flow_max / flow_chunk (rounded up) pointers */
	uint32_t n_chunks;
	uint64_t *flow_ready;	    /**< a bit per pool index (producers: atomic or) */

	uint32_t flow_free_head; /**< first free pool index, or UINT32_MAX */
	uint32_t n_flow_free;

	uint64_t drop_invalid;	     /**< atomic add: rare, any producer */
	struct chan_retired retired; /**< under ctl_lock */
	uint64_t flow_alloc;
	uint64_t flow_free_count;
	uint64_t flow_alloc_cap;   /**< refused: the pool is at its cap, every ring in use */
	uint64_t flow_alloc_nomem; /**< refused: the pool could not grow (memory) */
	struct chan_producer prod[CHAN_MAX_PRODUCERS]; /**< direct TX queues */
};

/** Slot of channel @p id, or NULL when @p id names no slot (yet). */
static inline struct chan_slot *
chan_slot_of(const struct chan_table *t, uint32_t id)
{
	const struct chan_chunk *ck;
	uint32_t p;

	if (likely(id < t->n_named))
		return &t->slots[id];
	p = id - t->n_named;
	if (p >= t->flow_max)
		return NULL;
	ck = __atomic_load_n(&t->chunks[p / t->flow_chunk], __ATOMIC_ACQUIRE);
	if (ck == NULL || p % t->flow_chunk >= ck->n)
		return NULL;
	return &ck->slots[p % t->flow_chunk];
}

/* Counters: single writer, any reader. */
static inline void
chan_ctr_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline uint64_t
chan_ctr_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static inline bool
chan_slot_live(const struct chan_slot *s)
{
	return __atomic_load_n(&s->live, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Add to a producer counter: a plain store on a named channel's own line,
 * an atomic add on a per-flow channel's shared one.
 */
static inline void
chan_pc_add(const struct chan_slot *s, uint64_t *c, uint64_t v)
{
	if (s->per_flow)
		__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
	else
		chan_ctr_add(c, v);
}

/* Pool index of per-flow slot @p id (id >= n_named). */
static inline uint32_t
chan_pool_index(const struct chan_table *t, uint32_t id)
{
	return id - t->n_named;
}

/*
 * A producer enqueued into per-flow channel @p id: flag it for the
 * primary's consumers (release: the enqueue is visible to whoever takes
 * the flag).
 */
static inline void
chan_flow_ready_set(struct chan_table *t, uint32_t id)
{
	uint32_t p = chan_pool_index(t, id);
	uint64_t bit = UINT64_C(1) << (p & 63);
	uint64_t *w = &t->flow_ready[p >> 6];

	if ((__atomic_load_n(w, __ATOMIC_RELAXED) & bit) == 0)
		__atomic_fetch_or(w, bit, __ATOMIC_RELEASE);
}

/* table.c */
/** Fold a dead channel's counters into the totals (caller holds ctl_lock). */
void chan_retire_counters(struct chan_table *t, struct chan_desc *d);
/**
 * Take the descriptor away from attaching consumers before a channel ends.
 * @return 0, or -EBUSY if a live consumer is attached (unless @p force).
 */
int chan_desc_close(struct chan_table *t, struct chan_desc *d, bool force);
/** End a closed channel: producers stop seeing it, its ring is emptied, counters retired. */
void chan_slot_finish(struct chan_table *t, struct chan_slot *s);

/* pool.c */
/** Bytes of one pool ring of @p size slots, cache-line rounded. */
uint32_t chan_pool_ring_mem(uint32_t size);
/**
 * Set up the pool (chunk pointers, ready bitmap) and make chunks until
 * @p prealloc rings exist. @return 0, or a positive errno.
 */
int chan_pool_init(struct chan_table *t, uint32_t prealloc);
/** Add a chunk (caller holds ctl_lock, or owns @p t). @return 0, -ENOSPC (cap), -ENOMEM. */
int chan_pool_grow(struct chan_table *t);
/** Empty every pool ring and free the chunks (chan_table_free()). */
void chan_pool_free(struct chan_table *t);
/** Name of chunk @p k's memzone. */
void chan_pool_mz_name(char *buf, size_t len, uint32_t k);
/**
 * The primary's consumers of the per-flow rings flagged ready: TX ones
 * (when @p max_tx is not 0) as chan_tx_poll(), DISCARD and PCAP ones as
 * chan_drain(). A ring left non-empty stays flagged. @return packets consumed.
 */
unsigned int chan_pool_consume(struct chan_table *t, unsigned int max_tx, unsigned int max_drain);

/* pcap.c */
/**
 * Open a pcap sink (Ethernet link type). @return the sink, or NULL with
 * *err set to a positive errno (ENOTSUP without libpcap).
 */
struct chan_pcap *chan_pcap_open(const char *path, uint32_t snaplen, int *err);
/** Write a burst (thread-safe: the sink has its own lock). */
void chan_pcap_write(struct chan_pcap *s, struct rte_mbuf **m, unsigned int n);
/** Path the sink writes to. */
const char *chan_pcap_path(const struct chan_pcap *s);
/** Flush, close and free; NULL accepted. */
void chan_pcap_close(struct chan_pcap *s);

/* io.c */
/**
 * Consume up to @p max packets of a slot through its DISCARD/PCAP consumer.
 * Caller holds the slot's cons_lock.
 */
unsigned int chan_slot_consume(struct chan_slot *s, unsigned int max);
/** Free everything in the slot's ring, counted flushed. Caller is the consumer. */
unsigned int chan_slot_flush(struct chan_slot *s);

/* consumer.c */
/** Whether process @p pid exists. */
bool chan_pid_alive(int32_t pid);

#endif /* GUFC_CHAN_PRIV_H */
