/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: the slow path's side, part of datapath.h's manual
 * (included at its end): deciding a burst of upcalled packets on the
 * rules lcore (dp_upcall.c), a held packet whose next hop never answered
 * (dp_l3.c), and the completions an RX context's pending connections wait
 * for (dp_done_poll() reads them on the RX side).
 */
#ifndef GUFC_DP_UPCALL_H
#define GUFC_DP_UPCALL_H

#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Decide a burst of upcalled packets and apply the decisions (router mode:
 * frames with DP_UPCALL_NEIGH go to mod_neigh_input() first; the rest as
 * above, "Router mode"): the engine's
 * rule_engine_upcall_burst() on the packets' struct dp_meta (no fragments:
 * reassemble them first; the input port is the one in the meta's key, so a
 * datagram parsed again must get its port back), then per packet a named
 * drop (the engine's
 * reason), or the NAT rewrite (mod_nat_apply(), or mod_nat_icmp_error()
 * for an ICMP error of a translated connection; a chained mbuf is
 * linearized when the rewrite needs it; failure drops it as nat_error) and
 * delivery to its channel. With struct dp_ctx::up_fast, a packet that went
 * up behind its connection's upcall (struct dp_meta::behind) is first
 * looked up again and, when its entry decides it as a hit would be
 * decided, decided by the fast path's code instead (counted upcall_fast),
 * after everything before it in @p m: the decisions are applied, and
 * delivered, in the order of @p m. The datapath owns every mbuf
 * afterwards (a lossless context holds what a full channel did not take;
 * give it no burst while dp_held() is not 0).
 *
 * @param c    the context (the engine's writer)
 * @param m    the packets, with their meta data
 * @param n    how many, at most DP_BURST_MAX
 * @param now  time for the engine, ms
 * @return the number of packets handed to channels.
 * Context: the engine's writer thread (the rules lcore).
 */
unsigned int dp_upcall_burst(struct dp_ctx *c, struct rte_mbuf **m, unsigned int n,
	uint32_t now);

/**
 * Router mode: a packet that waited for a next hop that did not answer
 * (the neighbour module's unreach_fn): an ICMP host unreachable (ICMPv6
 * address unreachable) goes back to its source out of its input port
 * (@c m->port), within the ICMP budget, unless the source is one of the
 * router's local addresses (a packet gufc made, or one SNAT or masquerade
 * translated: no error is sent for those). Frees @p m.
 * @param c    the slow path's context (its ICMP budget)
 * @param m    the packet
 * @param now  milliseconds (the budget's clock)
 * Context: the lcore that runs the neighbour module's step.
 */
void dp_l3_held_failed(struct dp_ctx *c, struct rte_mbuf *m, uint32_t now);

/**
 * Count the completion an upcalled packet owes its RX context, if any (its
 * meta's @c pend): call for every packet taken off an upcall ring, before
 * dp_upcall_burst() (or a drop) consumes the mbuf, then post the count
 * with dp_upcall_done() once the burst is decided (dp_done_post() where
 * the context cannot hold: not lossless).
 * @param m  the upcalled packet
 * @param n  completions counted so far
 * @return the new count.
 * Context: the slow path's thread.
 */
static inline unsigned int
dp_done_collect(struct rte_mbuf *m, unsigned int n)
{
	struct dp_meta *meta = dp_meta(m);

	if (meta->pend) {
		meta->pend = 0;
		n++;
	}
	return n;
}

/**
 * Post completions to an RX context: its @p n oldest counted upcalls not
 * posted yet are done (their entries are in the table). The slow path
 * must decide the upcalls of one ring in the order it took them, and post
 * a burst's completions only after everything taken before it is decided.
 * @param done  the counter (struct dp_ctx::done of the RX context)
 * @param n     how many (0: the line is left alone)
 * Context: the slow path's thread (the counter's one writer).
 */
static inline void
dp_done_post(struct dp_done *done, unsigned int n)
{
	if (n == 0)
		return;
	__atomic_store_n(&done->n, __atomic_load_n(&done->n, __ATOMIC_RELAXED) + n,
		__ATOMIC_RELEASE);
}

/**
 * Post the completions of a burst dp_upcall_burst() decided (@p n, counted
 * by dp_done_collect()) once its decisions are delivered: now, unless a
 * lossless context holds some of them for a full channel; then
 * dp_hold_retry() posts them when the hold is delivered. A completion lets
 * the connection's next packets take the RX context's fast path, so one
 * posted while a decision of the connection is held would let them
 * overtake it. The caller feeds no burst while dp_held() (lossless), so
 * at most one RX context is owed at a time.
 * @param c     the slow path's context
 * @param done  the counter (struct dp_ctx::done of the RX context)
 * @param n     how many (0: nothing to post)
 * Context: the slow path's thread (the counter's one writer).
 */
void dp_upcall_done(struct dp_ctx *c, struct dp_done *done, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_DP_UPCALL_H */
