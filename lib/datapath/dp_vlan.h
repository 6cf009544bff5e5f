/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: VLAN sub-interfaces on RX, part of datapath.h's manual
 * (included at its end): a port's 802.1Q VLANs as ports of their own
 * (dp_vlan.c). The TX side, the tag pushed, is a TX channel's
 * (struct chan_params::tx_vlan).
 */
#ifndef GUFC_DP_VLAN_H
#define GUFC_DP_VLAN_H

#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif


/** Largest 802.1Q VLAN id a sub-interface may have (4095 is reserved). */
#define DP_VLAN_MAX 4094

/**
 * The VLAN sub-interfaces of one port: per VLAN id, the sub-interface's
 * port id + 1, or 0 (no sub-interface: such tagged frames are dropped).
 * Written before the RX lcores run; read-only after.
 */
struct dp_vlan_map {
	uint16_t port[DP_VLAN_MAX + 2];
};

/**
 * dp_rx_burst_ahead() for a port with VLAN sub-interfaces: each frame whose
 * outer tag is 802.1Q with a VLAN id of @p map is its sub-interface's, the
 * tag stripped; the burst goes on as one burst per input port (in order
 * of first appearance, order kept within; counted vlan_rx). Untagged,
 * 802.1ad and priority-tagged (VLAN 0) frames stay @p in_port's, as
 * received. A tag of a VLAN without sub-interface: counted rx and dropped
 * (DP_DROP_VLAN_UNKNOWN, and vlan_unknown[in_port]).
 * Not for lossless contexts: a burst held back part way would hold the
 * other ports' packets behind it.
 * @return the number of packets handed to channels.
 * Context: as dp_rx_burst().
 */
unsigned int dp_vlan_rx(struct dp_ctx *c, const struct dp_vlan_map *map, uint16_t in_port,
	struct rte_mbuf **m, unsigned int n, uint32_t now);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_DP_VLAN_H */
