/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath private definitions: the work area of one burst, shared by
 * the fast path (dp_rx.c, dp_marked.c) and the slow path's decisions
 * (dp_upcall.c).
 * Not installed; only lib/datapath's .c files include it.
 */
#ifndef GUFC_DP_PRIV_H
#define GUFC_DP_PRIV_H

#include <rte_mbuf.h>

#include "datapath.h"

/**
 * Where a burst's packets go: delivery (with their channels), the upcall
 * ring, or the free list. On the stack of one dp_*_burst() call.
 */
struct dp_burst {
	uint16_t in_port;
	uint32_t now;
	unsigned int no; /**< packets in out[] / dest[] */
	unsigned int nu; /**< packets in up[] */
	unsigned int nd; /**< packets in drop[] */
	/**
	 * dp_rx.c: upcalls this burst may put on the upcall ring (read at its
	 * first upcall, dp_upcall_room()); DP_ROOM_UNREAD until then.
	 */
	unsigned int room;
	struct rte_mbuf *out[DP_BURST_MAX];
	uint32_t dest[DP_BURST_MAX];
	struct rte_mbuf *up[DP_BURST_MAX];
	struct rte_mbuf *drop[DP_BURST_MAX];
};

/** struct dp_burst::room not read yet. */
#define DP_ROOM_UNREAD UINT32_MAX

/* Queue @p m for delivery to channel @p ch. */
static inline void
dp_out(struct dp_burst *b, struct rte_mbuf *m, uint32_t ch)
{
	b->out[b->no] = m;
	b->dest[b->no++] = ch;
}

/* Queue @p m to be freed; the caller counted its reason. */
static inline void
dp_free_later(struct dp_burst *b, struct rte_mbuf *m)
{
	b->drop[b->nd++] = m;
}

/* Free what a burst dropped (its reasons are counted). */
static inline void
dp_burst_free(struct dp_burst *b)
{
	if (b->nd != 0)
		rte_pktmbuf_free_bulk(b->drop, b->nd);
}

/*
 * Step 0 (dp_marked.c): decide the NIC-marked packets of @p m whose entry
 * vouches for them alone (delivered through @p b); the others, in order,
 * are compacted in @p m for the software path. @return packets left in @p m.
 */
unsigned int dp_marked(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf **m, unsigned int n);
/*
 * For step 0 a poll later (dp_rx_burst_ahead()): the entry lines and frames
 * of the marked packets of @p m fetched. @return whether any is marked.
 */
bool dp_marked_prefetch(const struct dp_ctx *c, struct rte_mbuf *const *m, unsigned int n);

/*
 * The slow path (dp_upcall.c), a packet that went up behind its
 * connection's upcall (struct dp_meta::behind) and @p pkt its parse: when
 * its flow has an entry now, the fast path's code for a hit (dp_rx.c)
 * decides it through @p b (delivered or dropped, counted upcall_fast) and
 * it returns true; false when there is no entry or that code would send
 * the packet up (nothing of it counted then; the packet's meta data
 * written as for an upcall, with the fast path's reason): the engine's.
 * Context: the engine's writer (its lookup is the writer's).
 */
bool dp_hit_behind(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *mb, struct fc_pkt *pkt);

/* Pending connections (dp_pending.c). */

/* The slot of @p conn, or NULL. */
struct dp_pending_slot *dp_pending_find(struct dp_pending *p, uint64_t conn);
/*
 * One more upcall in flight for @p conn, the connection of key @p k, at
 * the tail of the FIFO: the caller puts it on the upcall ring after every
 * upcall counted before it. @return false: no room (not counted).
 */
bool dp_pending_add(struct dp_pending *p, uint64_t conn, const struct fc_key *k);
/*
 * Take back the last dp_pending_add() (@p conn): its upcall never went on
 * the ring. Take them back newest first.
 */
void dp_pending_unadd(struct dp_pending *p, uint64_t conn);
/* One upcall of @p conn done: the last one frees the slot or readies its packets. */
void dp_pending_sub(struct dp_pending *p, uint64_t conn);
/* Queue @p m behind @p s's upcalls. @return false: no room. */
bool dp_pending_wait(struct dp_pending *p, struct dp_pending_slot *s, struct rte_mbuf *m,
	uint16_t port);
/* dp_rx_burst() for packets that waited: not counted as received again (dp_rx.c). */
void dp_rx_reinject(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m, unsigned int n,
	uint32_t now);
/*
 * NAT rewrite in the slow path (dp_upcall.c): a chained packet whose
 * headers pass its first segment has them pulled up into it (the rest
 * stays where it is: a jumbo datagram need not fit one segment); one the
 * rewrite needs whole (SCTP's CRC, an ICMP error's checksum) is made one
 * segment if it fits one. @return 0, or the rewrite's -errno.
 */
/*
 * The bytes of @p pkt's frame a NAT rewrite reads and writes: the IP header
 * (an IPv6 one whole) and the L4 header's first 20 bytes (TCP's checksum
 * ends at byte 18; UDP's and ICMP's headers are 8), at most the packet.
 */
static inline uint32_t
dp_nat_hdr_end(const struct rte_mbuf *m, const struct fc_pkt *pkt)
{
	uint32_t end = RTE_MAX((uint32_t)pkt->l3_off + 40u, (uint32_t)pkt->l4_off + 20u);

	return RTE_MIN(end, rte_pktmbuf_pkt_len(m));
}
int dp_slow_nat(const struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	uint32_t slot, bool icmp_err);

/* Does the context keep its upcalls for a later enqueue (struct dp_ctx::up_batch)? */
static inline bool
dp_batching(const struct dp_ctx *c)
{
	return c->up_batch > 1 && !c->lossless;
}

/*
 * A burst's upcalls, @p n of them: on the ring now, or (up_batch) kept
 * behind those kept already (dp_upring.c).
 */
void dp_upcall_put(struct dp_ctx *c, struct rte_mbuf **up, unsigned int n);

#endif /* GUFC_DP_PRIV_H */
