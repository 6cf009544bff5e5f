/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: the RX side of pending connections, part of datapath.h's
 * manual (included by it; include datapath.h): the slow path's
 * completions read on the RX lcore and the packets waiting behind them run
 * through the fast path again (dp_done_poll(), dp_pending.c), and the room
 * left for waiting packets (dp_wait_room()).
 */
#ifndef GUFC_DP_WAIT_H
#define GUFC_DP_WAIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Read the slow path's completion counter @p c->done (nothing while no
 * connection is pending, and, with @c done_gap, nothing until that many
 * cycles passed since the last read unless packets wait or the FIFO is
 * half full): each completion since the last read ends the oldest counted
 * upcall of the context's FIFO; then run the packets of connections with
 * no upcall in flight left through the fast path again, each connection's
 * in order, bursts gathered across connections of one input port (they
 * may go up again), as long as the context holds nothing (lossless).
 * @param c    an RX context with @c pend
 * @param now  coarse time, as for dp_rx_burst()
 * @return the number of completions taken.
 * Context: as dp_rx_burst().
 */
unsigned int dp_done_poll(struct dp_ctx *c, uint32_t now);

/**
 * Room for waiting packets (a lossless context pulls a burst only when a
 * whole burst could wait).
 * @param c  the context
 * @return free wait-queue entries; UINT32_MAX without @c pend.
 * Context: the context's thread.
 */
static inline uint32_t
dp_wait_room(const struct dp_ctx *c)
{
	if (c->pend == NULL)
		return UINT32_MAX;
	/* What any packet may take: the reserve is established flows' alone. */
	return c->pend->wait_free > c->pend->wait_reserve ?
		c->pend->wait_free - c->pend->wait_reserve : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_DP_WAIT_H */
