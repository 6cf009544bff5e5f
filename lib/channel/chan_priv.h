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
static_assert(sizeof(CHAN_FLOW_RING_PREFIX) - 1 + 5 < RTE_RING_NAMESIZE,
	"pool ring names must fit an rte_ring name");
static_assert(CHAN_NAME_MAX + 1 + 20 < CHAN_NAMESIZE, "per-flow names must fit");
static_assert(CHAN_MAX_CHANNELS + CHAN_FLOW_POOL_MAX <= UINT16_MAX, "ids are 16-bit");
static_assert(sizeof(CHAN_DIR_MZ_NAME) <= RTE_MEMZONE_NAMESIZE, "memzone name");

/** Descriptor states. */
#define CHAN_DESC_FREE 0u
#define CHAN_DESC_LIVE 1u

/**
 * Counters of one producer on one channel. Written only by the thread that
 * uses this producer id (relaxed load + store), read by anyone. One cache
 * line each, so producers never share a line.
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
 * A channel slot's descriptor, in the shared directory.
 *
 * Owner: the table (the directory memzone lives until chan_table_free()).
 * Control fields (first line) are written by the primary under the directory
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
	uint16_t id;
	uint16_t parent; /**< per-flow: parent's id; named: own id */
	uint8_t kind;	 /**< enum chan_cons_kind */
	uint8_t per_flow;
	uint16_t tx_port;
	uint16_t tx_queue;
	uint32_t ring_size;
	uint32_t attached; /**< 0 or 1: the ring is single-consumer */
	int32_t owner_pid; /**< process of the attached consumer */
	char ring_name[RTE_RING_NAMESIZE];
	char name[CHAN_NAMESIZE];

	/* Consumer counters. */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t consumed;
	uint64_t consumed_bytes;
	uint64_t flushed;
	uint64_t tx_sent; /**< TX consumer: sent */
	uint64_t tx_full; /**< TX consumer: refused by the queue */

	struct chan_prod_ctr prod[CHAN_MAX_PRODUCERS];
} __rte_cache_aligned;

/**
 * The shared directory: one memzone (CHAN_DIR_MZ_NAME) per process group,
 * reserved and freed by the primary's table. @c lock (a process-shared
 * spinlock: it is only a word in shared memory) serializes control-field
 * changes between the primary and attaching processes.
 */
struct chan_dir {
	uint32_t magic; /**< CHAN_DIR_MAGIC once ready; 0 while being freed */
	uint32_t n_desc;
	rte_spinlock_t lock;
	alignas(RTE_CACHE_LINE_SIZE) struct chan_desc desc[];
};

struct chan_pcap;

/**
 * The primary's view of a channel slot (process-local). The first fields are
 * read by producers on every burst; @c live is published last (release) on
 * create and cleared first on delete. @c cons_lock is held by whoever
 * consumes the ring in this process (drain, TX dequeue, flush, delete), so
 * there is only ever one consumer.
 */
struct chan_slot {
	struct rte_ring *ring;	/**< named: own ring, NULL when free; pool: always set */
	struct chan_desc *desc; /**< this slot's descriptor */
	uint8_t live;
	uint8_t kind;
	uint8_t per_flow;
	uint16_t tx_port;	/**< CHAN_CONS_TX: the port (direct TX looks it up) */
	uint16_t tx_queue;	/**< CHAN_CONS_TX: the consumer's queue */
	uint16_t parent;
	uint32_t children;	/**< per-flow channels allocated from this one */
	uint64_t flow_seq;	/**< allocations made from this one (names) */
	struct chan_pcap *pcap; /**< PCAP: own sink (named) or the parent's (per-flow) */
	rte_spinlock_t cons_lock;
} __rte_cache_aligned;

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
 * functions serialize on @c ctl_lock; the fast path reads @c slots only.
 */
struct chan_table {
	struct chan_slot *slots; /**< n_total slots: named, then pool */
	struct chan_dir *dir;
	const struct rte_memzone *mz;
	uint32_t n_named;
	uint32_t n_flow;
	uint32_t n_total;
	uint32_t flow_ring_size;
	int socket_id;
	rte_spinlock_t ctl_lock;

	uint16_t *flow_free; /**< stack of free pool ids */
	uint32_t n_flow_free;

	uint64_t drop_invalid;	     /**< atomic add: rare, any producer */
	struct chan_retired retired; /**< under ctl_lock */
	uint64_t flow_alloc;
	uint64_t flow_free_count;
	uint64_t flow_alloc_fail;
	struct chan_producer prod[CHAN_MAX_PRODUCERS]; /**< direct TX queues */
};

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
