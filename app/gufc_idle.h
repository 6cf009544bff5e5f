/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_idle.h — what --idle-exit counts as an RX lcore having looked
 * and found nothing. An RX poll that stopped before it read every queue
 * (a lossless hold not gone yet, a wait queue without room for a burst,
 * stopping) did not look: its input, a file not read to its end included,
 * may still hold packets, and the poll must not tell the main role the
 * lcore is idle (struct gufc_stats::last_empty_tsc).
 *
 * Pure (no EAL), unit-tested alone (tests/unit/app).
 */
#ifndef GUFC_IDLE_H
#define GUFC_IDLE_H

#include <stdbool.h>

/**
 * Did an RX poll find its queues empty?
 * @param polled  queues it read (rte_eth_rx_burst() called), in order
 * @param n_rxq   queues the lcore has
 * @param got     packets the reads returned
 * @return true only when every queue was read and none returned a packet.
 */
static inline bool
gufc_idle_polled_empty(unsigned int polled, unsigned int n_rxq, unsigned int got)
{
	return got == 0 && polled == n_rxq;
}

#endif /* GUFC_IDLE_H */
