/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: pending connections, part of datapath.h's manual (included
 * where this section stood): the table that keeps a connection's packets
 * in order while one of them is on the slow path, its "maybe pending"
 * filter, and the connection hash (dp_pending.c).
 */
#ifndef GUFC_DP_PENDING_H
#define GUFC_DP_PENDING_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "flowcache.h"

/* ------------------------------------------------------------------------ */
/* Pending connections: per-connection order across the slow path            */
/* ------------------------------------------------------------------------ */

/*
 * A packet the fast path upcalls may change what its connection's entries
 * say (the first packet creates them; a SYN/ACK or a FIN moves conntrack
 * on). Had the next packets of the connection used the entries before the
 * slow path was done, they would overtake it: a verdict from before the
 * change, and an order that depends on timing. So an RX context counts the
 * upcalls in flight per connection (struct dp_pending, keyed by
 * dp_conn_hash(): both directions, any input port), and while a connection
 * has some, its next packets wait on the RX context, in order, in a bounded
 * per-connection queue (hits included: a hit of another connection never
 * waits). The slow path finishes the upcalls of one RX context in the
 * order they were put on its upcall ring (an SP/SC FIFO, taken in bursts,
 * each burst decided before the next is taken) and says how many counted
 * ones it has finished by a counter on a cache line of its own (struct
 * dp_done, dp_done_post()); the RX context keeps the connections of its
 * counted upcalls in a FIFO of its own, in ring order, so a move of the
 * counter by k ends the k oldest (dp_done_poll()): no token crosses the
 * cores, one line does. When the last upcall of a connection is done,
 * dp_done_poll() runs its waiting packets through the fast path again, in
 * order (with the parse and connection hash of their first pass, kept in
 * their struct dp_meta), now with the entries the slow path made: one upcall per new flow,
 * not one per packet. What cannot wait (the
 * queue pool is full) goes up behind the upcall instead when nothing of its
 * connection waits yet (the FIFO ring keeps the order), else it is dropped
 * as pending_full; a lossless context pulls no burst while the pool has no
 * room for one (dp_wait_room()). While no connection has upcalls in
 * flight, a packet pays one load (the table's count of connections);
 * while some have, one cheap hash of its addresses and ports and one bit
 * (dp_pending_maybe()) before it pays the connection hash and the table
 * probe, which only a packet whose bit is set does.
 */

/** "No wait-queue entry". */
#define DP_WAIT_NONE UINT32_MAX
/** 1 / this of the wait-queue entries are kept for established flows (dp_pending::wait_reserve). */
#define DP_WAIT_RESERVE_DIV 8u

/**
 * The upcalls in flight and waiting packets per connection of one RX
 * context: open addressing (linear probing) over @c mask + 1 slots, a pool
 * of wait-queue entries (per-connection singly linked lists) and the
 * queue of connections whose packets may go again. Owner: the
 * application, which sizes and places it (dp_pending_memsize(),
 * dp_pending_init()); written by the context's thread only.
 */
struct dp_pending {
	uint32_t mask;	     /**< slots - 1 */
	uint32_t n;	     /**< connections with upcalls in flight or packets waiting */
	uint32_t wait_cap;   /**< wait-queue entries */
	uint32_t wait_free;  /**< of them free */
	/**
	 * Of them, the last ones only packets of established flows (a hit on
	 * an entry not FC_ACT_F_EARLY) take: wait_cap / DP_WAIT_RESERVE_DIV,
	 * so a storm of new flows cannot leave an established connection's
	 * packets behind its upcall without room (pending_full).
	 */
	uint32_t wait_reserve;
	uint32_t free_head;  /**< free list */
	uint32_t ready_head; /**< ready queue (ring of ready_cap) */
	uint32_t ready_n;
	uint32_t ready_cap;
	bool reinject;	     /**< dp_done_poll() is running a connection's packets */
	uint32_t hint_shift; /**< 64 - log2(hint buckets): dp_pending_hint() */
	uint64_t full;	     /**< upcalls not counted: no free slot or FIFO entry (never expected) */
	/**
	 * The connections of the counted upcalls (a struct dp_meta with
	 * @c pend) in the order they went on the upcall ring (held ones,
	 * lossless, last: nothing goes before them): entries fifo_head to
	 * fifo_tail - 1 (free-running, @c fifo_mask + 1 of them). The oldest
	 * done_n - done_seen of them are done.
	 */
	uint64_t *fifo;
	uint32_t fifo_mask;
	uint32_t fifo_head;
	uint32_t fifo_tail;
	uint64_t done_seen;  /**< struct dp_done::n when last read */
	struct dp_pending_slot {
		uint64_t conn;	/**< dp_conn_hash(), 0: free */
		uint32_t count; /**< upcalls in flight */
		uint32_t nwait; /**< packets waiting */
		uint32_t head;	/**< first waiting (a pool index), DP_WAIT_NONE */
		uint32_t tail;	/**< last waiting */
		uint32_t hint;	/**< its dp_pending_hint() bucket */
	} *slot;
	/**
	 * The "maybe pending" filter: one bit per hint bucket, set while some
	 * slot of that bucket is in use, and the slots per bucket (a bucket's
	 * bit is clear only when no connection of it has a slot).
	 */
	uint64_t *hint_bits;
	uint32_t *hint_count;
	struct rte_mbuf **wm; /**< pool: the waiting packets */
	uint32_t *wnext;      /**< pool: next in the list */
	uint16_t *wport;      /**< pool: input port */
	uint64_t *ready;      /**< connections whose packets may go again */
};

/**
 * The completion counter of one RX context: how many of its counted
 * upcalls the slow path has finished since start. A cache line of its
 * own. Owner: the application, which allocates it beside the context's
 * struct dp_pending (zeroed) and frees it after both have stopped;
 * written by the slow path's thread only (dp_done_post(), a release
 * store after the burst's entries are in the table and its decisions
 * handed to their channels: dp_upcall_done()), read by the RX
 * context's (dp_done_poll(), an acquire load).
 */
struct dp_done {
	uint64_t n; /**< counted upcalls finished, ever */
} __rte_cache_aligned;

/**
 * The port of a key's destination end in the connection hashes: its
 * dport, but an ICMP or ICMPv6 key's sport (a query's identifier, 0 for
 * other types). An ICMP key's dport is its type and code, which differ
 * between a request and its reply (fc_key_reverse()), and both directions
 * must hash alike. Two compares and a mask, no branch.
 * @param proto  the key's protocol
 * @param sport  its sport
 * @param dport  its dport
 * Context: any.
 */
static inline uint16_t
dp_conn_dport(uint8_t proto, uint16_t sport, uint16_t dport)
{
	/* ICMPv4 in IPv6 (or v6 in v4) parses with ports 0: sport is dport */
	uint16_t icmp = (uint16_t)-(uint16_t)((proto == IPPROTO_ICMP) | (proto == IPPROTO_ICMPV6));

	return (uint16_t)((sport & icmp) | (dport & ~icmp));
}

/**
 * The filter bucket of a parsed key: a cheap hash of protocol and the two
 * (address, port) ends in either order (both directions of a connection
 * share it, as they share dp_conn_hash(); ICMP: dp_conn_dport()), a few
 * instructions where dp_conn_hash() costs some fifty.
 * @param p  the table
 * @param k  a parsed key
 * @return the bucket, below 2^(64 - p->hint_shift).
 * Context: any.
 */
static inline uint32_t
dp_pending_hint(const struct dp_pending *p, const struct fc_key *k)
{
	uint64_t a, b, lo, hi;

	if (likely(k->family == FC_AF_INET4)) {
		a = (uint64_t)k->v4.src << 16 | k->v4.sport;
		b = (uint64_t)k->v4.dst << 16 |
		    dp_conn_dport(k->v4.proto, k->v4.sport, k->v4.dport);
		hi = (uint64_t)k->v4.proto << 56;
	} else {
		uint64_t w[4];

		memcpy(w, k->v6.src, 16);
		memcpy(w + 2, k->v6.dst, 16);
		a = (w[0] * UINT64_C(0x9e3779b97f4a7c15) ^ w[1]) + k->v6.sport;
		b = (w[2] * UINT64_C(0x9e3779b97f4a7c15) ^ w[3]) +
		    dp_conn_dport(k->v6.proto, k->v6.sport, k->v6.dport);
		hi = (uint64_t)k->v6.proto << 56;
	}
	lo = a < b ? a : b;
	hi ^= a < b ? b : a;
	return (uint32_t)(((lo * UINT64_C(0xff51afd7ed558ccd)) ^ hi) *
		UINT64_C(0xc4ceb9fe1a85ec53) >> p->hint_shift);
}

/**
 * May the connection of a parsed key have upcalls in flight or packets
 * waiting? false is certain (no slot of its connection exists); true
 * needs dp_conn_hash() and the table to tell (another connection may
 * share the bucket).
 * @param p  the table
 * @param k  a parsed key
 * @return false when its connection is surely not pending.
 * Context: the context's thread.
 */
static inline bool
dp_pending_maybe(const struct dp_pending *p, const struct fc_key *k)
{
	uint32_t h = dp_pending_hint(p, k);

	return (p->hint_bits[h >> 6] >> (h & 63)) & 1;
}

/**
 * Bytes a struct dp_pending needs.
 * @param max_inflight  most upcalls in flight at once (ring sizes and holds,
 *                      the slow path's batch and completions not read yet):
 *                      the FIFO has as many entries and a burst more,
 *                      rounded up to a power of 2; a counted upcall beyond
 *                      them goes up uncounted (@c full)
 * @param wait_cap      packets that can wait at once
 * @return the size.
 * Context: any.
 */
size_t dp_pending_memsize(uint32_t max_inflight, uint32_t wait_cap);

/**
 * Set up a pending table in @p mem (dp_pending_memsize() bytes, zeroed or
 * not).
 * @param mem           the memory, cache-line aligned
 * @param max_inflight  as given to dp_pending_memsize()
 * @param wait_cap      as given to dp_pending_memsize()
 * @return the table (= @p mem).
 * Context: any, before the context runs.
 */
struct dp_pending *dp_pending_init(void *mem, uint32_t max_inflight, uint32_t wait_cap);

/**
 * The connection of a parsed packet: a hash of family, protocol and the
 * two (address, port) ends in either order (ICMP: the identifier at both
 * ends, dp_conn_dport()), never 0. Both directions of a
 * connection share it (through NAT they do not: the reply's addresses are
 * the translated ones), the input port is left out.
 * @param k  a parsed key
 * @return the connection hash.
 * Context: any.
 */
uint64_t dp_conn_hash(const struct fc_key *k);

#endif /* GUFC_DP_PENDING_H */
