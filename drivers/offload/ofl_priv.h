/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_priv.h — private to drivers/offload: backend
 * constructors and the swnic statistics hook used by ofl_port.c.
 */
#ifndef GUFC_OFL_PRIV_H
#define GUFC_OFL_PRIV_H

#include <stdint.h>

#include <rte_log.h>

#include "offload.h"

extern int ofl_logtype;
#define OFL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ofl_logtype, "gufc.offload: " fmt "\n", ##__VA_ARGS__)

/** rteflow backend state. */
struct ofl_rteflow {
	uint16_t port_id;
};

/** @return the rteflow state for @p port_id, or NULL (rte_errno ENOMEM). */
void *ofl_rteflow_init(uint16_t port_id);

/**
 * Create the software NIC for @p port_id: a table of @p size rules and an
 * RX callback on every RX queue. @return the state, or NULL with rte_errno.
 */
void *ofl_swnic_init(uint16_t port_id, uint32_t size, int socket_id);

/** Add the swnic's counters (hw_*, capacity) to @p st. */
void ofl_swnic_stats(const void *be, struct ofl_port_stats *st);

#endif /* GUFC_OFL_PRIV_H */
