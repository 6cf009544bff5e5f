/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel — gufc's net channels.
 *
 * A channel is an rte_ring (multi-producer, single-consumer) plus a consumer.
 * The data path (RX lcores; the rules lcore for slow-path packets) enqueues
 * the mbufs of a flow into the flow's channel in bursts; a consumer takes
 * them out: discard-with-count, a pcap file sink, an ethdev TX port/queue,
 * or an application in a DPDK secondary process that attaches by channel
 * name (the net channel to user space).
 *
 * This header is the manual for:
 *
 *  - the channel table (struct chan_table): one per DPDK process group,
 *    created by the primary process. Channels are addressed by a small id
 *    (what a flow entry caches, struct fc_action::channel) and by a name.
 *    Id 0 is always the default channel, created with the table and never
 *    deleted, so a zeroed flow action points at a channel that exists;
 *  - named channels (create, delete, lookup, iterate) and per-flow channels
 *    taken from a pool of rings that grows in chunks up to a cap (rings are
 *    made on the slow path when a flow asks for one and the pool has no free
 *    ring, and reused after the flow ends; never created or freed on the
 *    fast path);
 *  - the fast path: chan_enqueue_burst(), lock-free, no allocation;
 *  - consumers in the primary: chan_drain() (discard, pcap), chan_tx_poll()
 *    (TX: dequeue and rte_eth_tx_burst) and chan_consume_all() (every one of
 *    them in one pass), or chan_dequeue_burst() for a caller that transmits;
 *  - the direct TX mode of TX channels: a producer with a TX queue of its
 *    own on the channel's port (chan_producer_txq_set()) transmits in
 *    chan_enqueue_burst() itself, no ring hop, counted as enqueued and
 *    consumed at once;
 *  - the consumer API for a secondary process: chan_attach(),
 *    chan_recv_burst(), chan_detach();
 *  - counters, the accounting totals, the drop reasons (CHAN_DROP_REASONS)
 *    and the shell formatting helpers.
 *
 * Shared memory: the table publishes one memzone, CHAN_DIR_MZ_NAME, holding a
 * descriptor per channel slot (name, consumer kind, ring name and size,
 * attached consumer, producer and consumer counters). A secondary process
 * finds a channel by looking up that memzone and the channel's ring by name;
 * nothing in shared memory is a process-local pointer.
 *
 * Rings of named channels are rte_rings named CHAN_RING_PREFIX "<name>".
 * The per-flow pool is made of chunks of CHAN_FLOW_CHUNK rings: one memzone
 * each, CHAN_FLOW_MZ_PREFIX "<chunk>", holding the chunk's descriptors and
 * its rings (initialized in place, so a pool of 100,000 rings costs about
 * 100 memzones, not 100,000). A per-flow channel's descriptor says which
 * chunk and where in it its ring is; chan_attach() and chan_attach_id()
 * find it from there.
 *
 * Ids: named channels 0..max_channels-1, per-flow channels max_channels and
 * up (the pool index plus max_channels): a per-flow channel's id is the
 * flow id an application attaches by (chan_attach_id()).
 *
 * Accounting: every mbuf handed to chan_enqueue_burst() is, exactly once,
 * enqueued or dropped (drop_full: the ring was full; drop_invalid: bad
 * channel or producer id). Every enqueued mbuf is, exactly once, consumed
 * (by a consumer), flushed (freed without a consumer, see chan_flush()) or
 * still in its ring. Of the packets a TX consumer took (the ring's or a
 * direct producer's), tx_sent went out and tx_full did not (the queue
 * refused them 4 times; freed). chan_totals_get() reports these for all
 * channels, including deleted ones, so at shutdown an application can check
 * rx == delivered + drops with delivered = consumed - tx_full.
 */
#ifndef GUFC_CHANNEL_H
#define GUFC_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/* ------------------------------------------------------------------------ */
/* Limits and names                                                          */
/* ------------------------------------------------------------------------ */

/** Longest user-given channel name, in characters. */
#define CHAN_NAME_MAX 16
/**
 * Size of a buffer that holds any channel name with its NUL, including the
 * names of per-flow channels, "<parent>.<n>" with a 64-bit n.
 */
#define CHAN_NAMESIZE 40
/** Most producer ids (0..CHAN_MAX_PRODUCERS-1); the caller assigns them. */
#define CHAN_MAX_PRODUCERS 32
/** Ports 0..CHAN_MAX_TX_PORTS-1 can have producers' own TX queues (direct TX). */
#define CHAN_MAX_TX_PORTS 32
/** Burst of chan_tx_poll() per channel and call, at most. */
#define CHAN_TX_BURST_MAX 64
/** Most named channels in a table, the default channel included. */
#define CHAN_MAX_CHANNELS 1024
/** Most rings in the per-flow pool (the cap's upper bound). */
#define CHAN_FLOW_POOL_MAX (1u << 22)
/** Rings added to the per-flow pool at a time (one memzone). */
#define CHAN_FLOW_CHUNK 1024u
/** Smallest and largest ring size (slots; a power of two). */
#define CHAN_RING_SIZE_MIN 2u
#define CHAN_RING_SIZE_MAX (1u << 24)
/** Defaults used when a size parameter is 0. */
#define CHAN_DEFAULT_MAX_CHANNELS   64
#define CHAN_DEFAULT_RING_SIZE	    1024u
#define CHAN_DEFAULT_FLOW_RING_SIZE 256u
/** Default pcap snap length. */
#define CHAN_PCAP_SNAPLEN_DEFAULT 65535u
/** The default channel: id and name. */
#define CHAN_ID_DEFAULT	  0
#define CHAN_DEFAULT_NAME "default"

/** Memzone holding the shared channel directory (one per process group). */
#define CHAN_DIR_MZ_NAME "gufc.chan"
/** rte_ring name prefix of named channels: "gufc.ch.<name>". */
#define CHAN_RING_PREFIX "gufc.ch."
/** Memzone name prefix of the per-flow pool's chunks: "gufc.chf.<chunk>". */
#define CHAN_FLOW_MZ_PREFIX "gufc.chf."
/** No channel (a per-flow channel id not given). */
#define CHAN_ID_NONE UINT32_MAX

/**
 * The channels' drop reasons, X(NAME, "id", "text"): the channel library's
 * part of an application's drop registry (stable ids for counters and
 * JSON). Counted per channel and producer; chan_totals_get() sums them
 * into struct chan_totals::drops, indexed by enum chan_drop.
 */
#define CHAN_DROP_REASONS(X) \
	X(CHANNEL_FULL, "channel_full", "channel ring full") \
	X(CHANNEL_INVALID, "channel_invalid", "channel id not live") \
	X(FLUSHED, "flushed", "left in a channel without consumer at shutdown") \
	X(TX_FULL, "tx_full", "TX queue did not take the packet")

/** Drop reasons (see CHAN_DROP_REASONS). */
enum chan_drop {
#define CHAN_DROP_ENUM(name, id, text) CHAN_DROP_##name,
	CHAN_DROP_REASONS(CHAN_DROP_ENUM)
#undef CHAN_DROP_ENUM
	CHAN_DROP__COUNT
};

/* ------------------------------------------------------------------------ */
/* Table and channels                                                        */
/* ------------------------------------------------------------------------ */

/** Consumer kinds, fixed when a channel is created. */
enum chan_cons_kind {
	CHAN_CONS_DISCARD = 0, /**< chan_drain() frees and counts */
	CHAN_CONS_PCAP,	       /**< chan_drain() writes to a pcap file, then frees */
	CHAN_CONS_TX,	       /**< chan_tx_poll() transmits on its port/queue, or a direct producer */
	CHAN_CONS_APP,	       /**< a (secondary-process) application attaches */
	CHAN_CONS__COUNT
};

/** Parameters of a named channel (and of the default channel). */
struct chan_params {
	/**
	 * Name: 1..CHAN_NAME_MAX characters from [A-Za-z0-9_.-]. Names that end
	 * in '.' followed by digits are reserved for per-flow channels.
	 */
	const char *name;
	enum chan_cons_kind kind;
	/**
	 * Ring slots, a power of two in [CHAN_RING_SIZE_MIN, CHAN_RING_SIZE_MAX];
	 * the ring holds ring_size - 1 packets (rte_ring semantics). 0 means
	 * CHAN_DEFAULT_RING_SIZE.
	 */
	uint32_t ring_size;
	const char *pcap_path; /**< CHAN_CONS_PCAP: file to create (truncated) */
	uint32_t pcap_snaplen; /**< CHAN_CONS_PCAP: 0 means CHAN_PCAP_SNAPLEN_DEFAULT */
	uint16_t tx_port;      /**< CHAN_CONS_TX: port id chan_tx_poll() transmits on */
	uint16_t tx_queue;     /**< CHAN_CONS_TX: queue id chan_tx_poll() transmits on */
	/**
	 * CHAN_CONS_TX: 802.1Q VLAN id 1..4094 every packet leaves with (a
	 * VLAN sub-interface on port tx_port), or 0: frames leave as given.
	 * chan_enqueue_burst() tags each packet as it takes it: an outer
	 * 802.1Q tag is given this id, else a tag is pushed.
	 */
	uint16_t tx_vlan;
};

/** Table creation parameters. */
struct chan_table_params {
	/** Named channel slots, default channel included; 0 means CHAN_DEFAULT_MAX_CHANNELS. */
	uint16_t max_channels;
	/**
	 * Rings of the per-flow pool made with the table, 0..CHAN_FLOW_POOL_MAX
	 * (rounded up to whole chunks of CHAN_FLOW_CHUNK, within the cap).
	 */
	uint32_t flow_pool_size;
	/**
	 * The pool's cap: it grows (a chunk at a time, in chan_flow_alloc()) up
	 * to this many rings; 0 means flow_pool_size (no growth). At most
	 * CHAN_FLOW_POOL_MAX, at least flow_pool_size.
	 */
	uint32_t flow_pool_max;
	/** Slots of each per-flow ring (power of two); 0 means CHAN_DEFAULT_FLOW_RING_SIZE. */
	uint32_t flow_ring_size;
	/** NUMA socket of rings and memory, or SOCKET_ID_ANY. */
	int socket_id;
	/** The default channel (id 0); a NULL name means CHAN_DEFAULT_NAME. */
	struct chan_params def;
};

struct chan_table;

/**
 * Create the channel table: the shared directory memzone, the default
 * channel (id 0) and the per-flow ring pool.
 *
 * Ids: named channels get ids 0..max_channels-1 (0 is the default channel);
 * per-flow channels get ids max_channels..max_channels+flow_pool_max-1.
 *
 * @param p  parameters
 * @return the table, or NULL with rte_errno set: EINVAL (bad parameter),
 *   E_RTE_SECONDARY (not the primary process), EEXIST (a table already exists
 *   in this process group), ENOMEM/ENOSPC (no memory or memzone), ENOTSUP
 *   (pcap default channel without libpcap), or an errno from opening the
 *   default channel's pcap file.
 * Context: main lcore, primary process.
 */
struct chan_table *chan_table_create(const struct chan_table_params *p);

/**
 * Free the table. Every mbuf still in a ring is freed first: channels with a
 * DISCARD or PCAP consumer are drained by it one last time (counted consumed,
 * pcap files get the packets); mbufs left in TX or APP channels are counted
 * flushed. Pcap files are flushed and closed, rings and the directory memzone
 * freed. Secondary processes must have detached (their handles dangle
 * afterwards). NULL is accepted.
 *
 * @param t  the table, or NULL
 * Context: main lcore, primary process; no producer or consumer running.
 */
void chan_table_free(struct chan_table *t);

/**
 * Create a named channel and its ring.
 *
 * @param t  the table
 * @param p  channel parameters
 * @return the channel id (> 0), or -EINVAL (bad name, kind, ring size, pcap
 *   path missing), -EEXIST (name in use, or its ring name taken in the process
 *   group), -ENOSPC (no free named slot), -ENOMEM (ring allocation failed),
 *   -ENOTSUP (pcap without libpcap), or -errno from opening the pcap file.
 * Context: control thread (any lcore; control functions serialize on a table lock).
 */
int chan_create(struct chan_table *t, const struct chan_params *p);

/**
 * Delete a named channel. Whatever is still in its ring is drained by the
 * consumer (DISCARD, PCAP) or flushed (TX, APP); its counters are folded into
 * the table totals; a pcap file is flushed and closed; the ring is freed.
 * The caller must make sure no producer uses the id any more (flow entries
 * moved elsewhere and an RCU grace period passed).
 *
 * @param t   the table
 * @param id  channel id
 * @return 0, or -EINVAL (id out of range or a per-flow channel: use
 *   chan_flow_free()), -ENOENT (no such channel), -EPERM (the default
 *   channel), -EBUSY (per-flow channels of it are allocated, or a consumer is
 *   attached).
 * Context: control thread.
 */
int chan_delete(struct chan_table *t, uint32_t id);

/**
 * Find a channel (named or per-flow) by name.
 *
 * @param t     the table
 * @param name  channel name
 * @return the id, or -EINVAL (NULL name), -ENOENT.
 * Context: control thread.
 */
int chan_lookup(struct chan_table *t, const char *name);

/**
 * Iterate over live channels in id order:
 * `for (id = chan_next(t, 0); id >= 0; id = chan_next(t, id + 1))`.
 * Named channels come first, then per-flow ones (the walk over the pool is
 * O(rings made); chan_next_named() stops after the named ones).
 *
 * @param t     the table
 * @param from  first id to consider
 * @return the smallest live id >= @p from, or -ENOENT when there is none.
 * Context: any thread (a concurrent create/delete may or may not be seen).
 */
int chan_next(const struct chan_table *t, unsigned int from);

/**
 * chan_next() over the named channels only.
 *
 * @param t     the table
 * @param from  first id to consider
 * @return the smallest live named id >= @p from, or -ENOENT.
 * Context: as chan_next().
 */
int chan_next_named(const struct chan_table *t, unsigned int from);

/** What a channel is, for the shell and for applications. */
struct chan_info {
	char name[CHAN_NAMESIZE];
	uint32_t id;
	uint16_t parent; /**< per-flow channels: the parent's id; else id */
	bool per_flow;
	enum chan_cons_kind kind;
	uint32_t ring_size;	/**< slots; holds ring_size - 1 packets */
	uint16_t tx_port;	/**< CHAN_CONS_TX */
	uint16_t tx_queue;	/**< CHAN_CONS_TX */
	uint16_t tx_vlan;	/**< CHAN_CONS_TX: VLAN id packets are tagged with, 0: none */
	uint32_t flow_children; /**< per-flow channels allocated from this one */
};

/**
 * Describe a channel.
 *
 * @param t     the table
 * @param id    channel id
 * @param info  receives the description
 * @return 0, or -EINVAL (NULL argument, id out of range), -ENOENT.
 * Context: control thread.
 */
int chan_info_get(struct chan_table *t, uint32_t id, struct chan_info *info);

/**
 * Consumer kind as text.
 * @param kind  a consumer kind
 * @return "discard", "pcap", "tx", "app", or "?" for an unknown value.
 * Context: any.
 */
const char *chan_kind_name(enum chan_cons_kind kind);

/**
 * Parse a consumer kind name (as written by chan_kind_name()).
 * @param s  text
 * @return the kind, or -EINVAL.
 * Context: any.
 */
int chan_kind_parse(const char *s);

/* ------------------------------------------------------------------------ */
/* Per-flow channels                                                         */
/* ------------------------------------------------------------------------ */

/**
 * Give a flow a channel of its own from the pool. The channel is named
 * "<parent name>.<n>" (n counts the parent's allocations) and inherits the
 * parent's consumer: DISCARD drains and counts, PCAP writes into the parent's
 * file, TX has the parent's port and queue, APP consumers attach by the new
 * name. The parent cannot be deleted while it has per-flow channels.
 *
 * @param t          the table
 * @param parent_id  a named channel
 * A free ring of the pool is reused; without one the pool grows by a chunk
 * (a memzone of CHAN_FLOW_CHUNK rings, or what the cap leaves), unless it
 * is at its cap.
 *
 * @param t          the table
 * @param parent_id  a named channel
 * @return the new channel's id (the flow id), or -EINVAL (parent id out of
 *   range or itself per-flow), -ENOENT (no such parent), -ENOSPC (every
 *   ring in use and the pool at its cap: counted in
 *   chan_flow_pool::refused_cap), -ENOMEM (the pool could not grow: no
 *   memory or memzone; counted in chan_flow_pool::refused_nomem).
 * Context: control thread (e.g. the rules lcore): growing reserves a
 *   memzone, never on the fast path.
 */
int chan_flow_alloc(struct chan_table *t, uint16_t parent_id);

/**
 * Return a per-flow channel to the pool: drain and free. Whatever is still in
 * its ring is drained by the consumer (DISCARD, PCAP) or flushed (TX, APP),
 * then its counters are folded into the table totals. The caller must make
 * sure no producer uses the id any more.
 *
 * @param t   the table
 * @param id  a per-flow channel id
 * @return 0, or -EINVAL (not a per-flow id), -ENOENT (not allocated),
 *   -EBUSY (a consumer is attached).
 * Context: control thread.
 */
int chan_flow_free(struct chan_table *t, uint32_t id);

/** The per-flow pool's figures (chan_flow_pool_get()). */
struct chan_flow_pool {
	uint32_t rings;		/**< rings made so far */
	uint32_t in_use;	/**< given to flows now */
	uint32_t free;		/**< made and free (reused first) */
	uint32_t max;		/**< the cap */
	uint32_t chunks;	/**< memzones of the pool */
	uint32_t ring_size;	/**< slots of each ring */
	uint32_t bytes_per_ring; /**< shared memory per ring: ring and descriptor */
	uint64_t alloc;		/**< rings given */
	uint64_t freed;		/**< rings returned */
	uint64_t refused_cap;	/**< refused: every ring in use, at the cap */
	uint64_t refused_nomem; /**< refused: the pool could not grow */
};

/**
 * Read the per-flow pool's figures.
 *
 * @param t   the table
 * @param fp  receives them
 * @return 0, or -EINVAL.
 * Context: any thread of the primary process (takes the control lock).
 */
int chan_flow_pool_get(struct chan_table *t, struct chan_flow_pool *fp);

/* ------------------------------------------------------------------------ */
/* Fast path and consumers in the primary process                            */
/* ------------------------------------------------------------------------ */

/**
 * Enqueue a burst into a channel: one rte_ring_enqueue_burst(). The mbufs
 * that do not fit are freed and counted as drop_full; with a bad channel id
 * (not live) or producer id every mbuf is freed and counted as drop_invalid
 * in the table. Either way the caller no longer owns any of the @p n mbufs.
 * No locks, no allocation.
 *
 * Direct TX: on a TX channel whose port has a queue of @p producer_id's own
 * (chan_producer_txq_set()), the burst is transmitted on that queue at once
 * instead (rte_eth_tx_burst, up to 4 tries): all @p n count as enqueued and
 * consumed by this producer, those sent as tx_sent, the rest as tx_full
 * (freed). Packets already in the channel's ring (other producers') may
 * leave after them.
 *
 * @param t            the table
 * @param id           channel id
 * @param producer_id  0..CHAN_MAX_PRODUCERS-1; one thread per id at a time
 * @param mbufs        the packets
 * @param n            how many
 * @return the number enqueued (the first ones of @p mbufs); in direct TX,
 *   the number the queue took.
 * Context: any lcore of the primary process (lock-free).
 */
unsigned int chan_enqueue_burst(struct chan_table *t, uint32_t id, uint16_t producer_id,
	struct rte_mbuf **mbufs, unsigned int n);

/**
 * chan_enqueue_burst() for a producer that applies backpressure (lossless
 * replay): the mbufs the ring (or, in direct TX, the queue after 4 tries)
 * did not take are not dropped but left to the caller, uncounted, to be
 * offered again later in the same order. Exception: an APP channel with no
 * consumer attached drops them as chan_enqueue_burst() does (drop_full),
 * since nobody would ever make room. A bad channel or producer id drops
 * every mbuf (drop_invalid) as chan_enqueue_burst() does.
 *
 * @param t            the table
 * @param id           channel id
 * @param producer_id  0..CHAN_MAX_PRODUCERS-1; one thread per id at a time
 * @param mbufs        the packets
 * @param n            how many
 * @return how many of the first mbufs the channel took (enqueued, sent, or
 *   dropped as above); mbufs[ret..n-1] still belong to the caller.
 * Context: any lcore of the primary process (lock-free).
 */
unsigned int chan_enqueue_burst_hold(struct chan_table *t, uint32_t id, uint16_t producer_id,
	struct rte_mbuf **mbufs, unsigned int n);

/**
 * Give a producer a TX queue of its own on a port, or take it back: the
 * direct TX mode of chan_enqueue_burst(). The queue must be set up and used
 * by no other thread; the producer's thread is the only one that transmits
 * on it.
 *
 * @param t            the table
 * @param producer_id  0..CHAN_MAX_PRODUCERS-1
 * @param port         0..CHAN_MAX_TX_PORTS-1
 * @param queue        the TX queue, or -1: no own queue (the ring path)
 * @return 0, or -EINVAL (NULL table, producer, port or queue out of range).
 * Context: control thread, while the producer does not run.
 */
int chan_producer_txq_set(struct chan_table *t, uint16_t producer_id, uint16_t port, int queue);

/**
 * Run the consumer of a DISCARD or PCAP channel: take up to @p max packets
 * out of the ring, write them to the pcap file (PCAP), free them and count
 * them consumed. Returns 0 for TX and APP channels, for ids that are not
 * live, and when another thread is consuming this channel at the moment.
 *
 * @param t    the table
 * @param id   channel id
 * @param max  most packets to take
 * @return the number of packets consumed.
 * Context: any lcore of the primary process (one consumer per channel is
 *   enforced with a try-lock).
 */
unsigned int chan_drain(struct chan_table *t, uint32_t id, unsigned int max);

/**
 * chan_drain() every live channel, at most @p max_per_chan packets each
 * (per-flow channels: those that got packets since the last pass).
 * @param t             the table
 * @param max_per_chan  most packets per channel
 * @return the number of packets consumed in all.
 * Context: as chan_drain().
 */
unsigned int chan_drain_all(struct chan_table *t, unsigned int max_per_chan);

/**
 * Run the consumer of a TX channel: dequeue up to @p max packets and send
 * them with rte_eth_tx_burst() on the channel's port and queue (up to 4
 * tries); counted consumed, and tx_sent or tx_full (what the queue did not
 * take is freed). Returns 0 for other kinds, ids that are not live, and when
 * another thread is consuming this channel at the moment.
 *
 * @param t    the table
 * @param id   channel id
 * @param max  most packets (at most CHAN_TX_BURST_MAX are taken)
 * @return the number of packets consumed (sent or not).
 * Context: any lcore of the primary process (one consumer per channel, a
 *   try-lock); the only thread transmitting on the channel's port/queue.
 */
unsigned int chan_tx_poll(struct chan_table *t, uint32_t id, unsigned int max);

/**
 * Every consumer of the primary process in one pass over the live
 * channels, in id order: TX channels as chan_tx_poll() (at most @p max_tx
 * packets each), DISCARD and PCAP ones as chan_drain() (at most
 * @p max_drain each). APP channels belong to their process. Per-flow
 * channels are visited when they got packets since they were last
 * emptied (a bit per ring that producers set), so a pass costs the named
 * channels plus the busy flows, not the whole pool.
 *
 * @param t          the table
 * @param max_tx     most packets per TX channel
 * @param max_drain  most packets per DISCARD or PCAP channel
 * @return the number of packets consumed in all.
 * Context: as chan_tx_poll().
 */
unsigned int chan_consume_all(struct chan_table *t, unsigned int max_tx, unsigned int max_drain);

/**
 * Dequeue from a TX channel for a caller that transmits the packets itself
 * (and frees what it cannot send; the tx_sent and tx_full counters are then
 * its to keep). They are counted consumed.
 *
 * @param t      the table
 * @param id     a TX channel
 * @param mbufs  receives the packets
 * @param n      most packets
 * @return the number dequeued; 0 for other kinds and ids that are not live.
 * Context: any lcore of the primary process (one consumer per channel).
 */
unsigned int chan_dequeue_burst(
	struct chan_table *t, uint32_t id, struct rte_mbuf **mbufs, unsigned int n);

/**
 * Free whatever is in a channel's ring without a consumer, counting it
 * flushed (a shutdown or administrative drop).
 *
 * @param t   the table
 * @param id  channel id
 * @return the number of packets freed (>= 0), or -EINVAL (id out of range),
 *   -ENOENT (not live), -EBUSY (an APP channel with a consumer attached). A
 *   drain or TX dequeue running in another thread is waited for.
 * Context: control thread.
 */
int chan_flush(struct chan_table *t, uint32_t id);

/** Packets in the rings, by who takes them out (chan_backlog_get()). */
struct chan_backlog {
	uint64_t primary;      /**< in DISCARD, PCAP and TX channels */
	uint64_t app_attached; /**< in APP channels with a live consumer attached */
	uint64_t app_detached; /**< in APP channels nobody consumes now */
};

/**
 * Count what waits in the live channels' rings (one pass, no per-channel
 * lock: a moving snapshot).
 *
 * @param t  the table
 * @param b  receives the counts
 * @return 0, or -EINVAL.
 * Context: any thread of the primary process.
 */
int chan_backlog_get(struct chan_table *t, struct chan_backlog *b);

/**
 * Free what waits in every APP channel that has no live consumer
 * attached, counted flushed (shutdown).
 *
 * @param t  the table
 * @return the number of packets freed.
 * Context: control thread.
 */
uint64_t chan_flush_app(struct chan_table *t);

/* ------------------------------------------------------------------------ */
/* Consumer API (secondary or primary process)                               */
/* ------------------------------------------------------------------------ */

struct chan_consumer;

/**
 * Attach to an APP channel by name, as its (single) consumer: looks up the
 * shared directory and the channel's ring by name. A channel has at most one
 * attached consumer, because its ring is single-consumer; an attachment left
 * by a process that has died is taken over.
 *
 * @param name  channel name (named or per-flow)
 * @return a handle, or NULL with rte_errno set: EINVAL (NULL name), ENOENT (no
 *   such channel, or no table), EPERM (not an APP channel), EBUSY (another live
 *   consumer is attached), ENOMEM.
 * Context: any thread of a primary or secondary process (control path).
 */
struct chan_consumer *chan_attach(const char *name);

/**
 * Attach by id: for a per-flow channel, its flow id (what `show flow`,
 * `show channels` and the telemetry give), found in O(1) rather than by a
 * walk over the names. Otherwise as chan_attach().
 *
 * @param id  channel id
 * @return a handle, or NULL with rte_errno set as chan_attach() does.
 * Context: as chan_attach().
 */
struct chan_consumer *chan_attach_id(uint32_t id);

/**
 * Receive a burst from an attached channel; counts the packets consumed.
 * The caller owns (and must free) the packets it gets.
 *
 * @param c      consumer handle
 * @param mbufs  receives the packets
 * @param n      most packets
 * @return the number received.
 * Context: the attached thread (one at a time per handle); lock-free.
 */
unsigned int chan_recv_burst(struct chan_consumer *c, struct rte_mbuf **mbufs, unsigned int n);

/**
 * Channel name of an attached handle.
 * @param c  consumer handle
 * @return the name.
 * Context: any.
 */
const char *chan_consumer_name(const struct chan_consumer *c);

/**
 * Detach and free the handle; packets still in the ring stay there. NULL is
 * accepted.
 * @param c  consumer handle, or NULL
 * Context: the attached thread.
 */
void chan_detach(struct chan_consumer *c);

/* ------------------------------------------------------------------------ */
/* Counters                                                                  */
/* ------------------------------------------------------------------------ */

/** Counters of one channel, producers summed. */
struct chan_stats {
	uint64_t enqueued;	 /**< packets enqueued */
	uint64_t enq_bytes;	 /**< bytes enqueued */
	uint64_t drop_full;	 /**< packets dropped: ring full */
	uint64_t consumed;	 /**< packets taken by a consumer */
	uint64_t consumed_bytes; /**< bytes taken by a consumer */
	uint64_t flushed;	 /**< packets freed without a consumer */
	uint64_t tx_sent;	 /**< TX: consumed packets the queue took */
	uint64_t tx_full;	 /**< TX: consumed packets the queue refused (freed) */
	uint32_t in_ring;	 /**< packets in the ring now */
	uint32_t ring_size;	 /**< slots */
	uint32_t attached;	 /**< attached consumers (0 or 1) */
};

/**
 * Read a channel's counters (producers summed). Counters of a busy channel
 * move while they are read; each is read atomically. Takes the table's
 * control lock (a channel is not deleted under the reader).
 *
 * @param t      the table
 * @param id     channel id
 * @param stats  receives the counters
 * @return 0, or -EINVAL (NULL argument, id out of range), -ENOENT.
 * Context: any thread of the primary process.
 */
int chan_stats_get(struct chan_table *t, uint32_t id, struct chan_stats *stats);

/**
 * Read one producer's counters on a channel.
 *
 * @param t            the table
 * @param id           channel id
 * @param producer_id  0..CHAN_MAX_PRODUCERS-1 (a per-flow channel's
 *                     producers share one set: any id reads it)
 * @param enqueued     receives packets enqueued (may be NULL)
 * @param bytes        receives bytes enqueued (may be NULL)
 * @param drop_full    receives packets dropped because full (may be NULL)
 * @return 0, or -EINVAL, -ENOENT.
 * Context: any thread of the primary process.
 */
int chan_producer_stats_get(const struct chan_table *t, uint32_t id, uint16_t producer_id,
	uint64_t *enqueued, uint64_t *bytes, uint64_t *drop_full);

/**
 * Totals over every channel, live or deleted, since the table was created.
 * When nothing is running: enqueued == consumed + flushed + in_ring, and the
 * packets offered to chan_enqueue_burst() == enqueued + drop_full + drop_invalid;
 * tx_sent + tx_full of them are consumed by TX consumers.
 */
struct chan_totals {
	uint64_t enqueued;
	uint64_t enq_bytes;
	uint64_t drop_full;
	uint64_t drop_invalid; /**< bad channel or producer id */
	uint64_t consumed;
	uint64_t consumed_bytes;
	uint64_t flushed;
	uint64_t tx_sent;	  /**< consumed and sent by a TX consumer */
	uint64_t tx_full;	  /**< consumed by a TX consumer, refused by the queue */
	uint64_t drops[CHAN_DROP__COUNT]; /**< the drops above by reason (enum chan_drop) */
	uint64_t in_ring;	  /**< packets in live channels' rings now */
	uint64_t flow_alloc;	  /**< successful chan_flow_alloc() */
	uint64_t flow_free;	  /**< successful chan_flow_free() */
	uint64_t flow_alloc_fail; /**< chan_flow_alloc() refused (cap or memory) */
	uint32_t channels;	  /**< live named channels, default included */
	uint32_t flow_channels;	  /**< live per-flow channels */
	uint32_t flow_pool_size;  /**< per-flow rings made so far */
};

/**
 * Sum the counters of all channels, plus those of deleted ones.
 *
 * @param t    the table
 * @param tot  receives the totals
 * @return 0, or -EINVAL.
 * Context: control thread.
 */
int chan_totals_get(struct chan_table *t, struct chan_totals *tot);

/** A buffer of this size always holds a line of chan_format(). */
#define CHAN_FORMAT_LEN 256

/**
 * Format one channel as a line (no newline) with the columns of
 * chan_dump(): name, id, kind, consumer, ring size, used, enqueued, consumed,
 * drops (ring full), flushed.
 *
 * @param t    the table
 * @param id   channel id
 * @param buf  destination
 * @param len  size of @p buf
 * @return characters written (excluding NUL), or -EINVAL, -ENOENT,
 *   -ENOSPC (truncated).
 * Context: control thread.
 */
int chan_format(struct chan_table *t, uint32_t id, char *buf, size_t len);

/**
 * Write a header line, one line per live named channel, at most
 * @p max_flow lines of live per-flow channels (lowest ids first), the
 * per-flow pool's line (rings in use, free, cap, memory per ring) and a
 * totals line.
 *
 * @param t         the table
 * @param f         output stream
 * @param max_flow  per-flow channels listed at most (UINT32_MAX: all)
 * @return 0, or -EINVAL, -EIO (write error).
 * Context: control thread.
 */
int chan_dump(struct chan_table *t, FILE *f, uint32_t max_flow);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_CHANNEL_H */
