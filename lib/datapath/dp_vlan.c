/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_vlan.c — VLAN sub-interfaces on RX: a burst of a port
 * that has sub-interfaces (struct dp_vlan_map) is split by each frame's
 * outer 802.1Q tag into the sub-interfaces' bursts, the tag stripped (a
 * sub-interface's packets look untagged to everything after, as a Linux
 * VLAN device's do), each burst given to the fast path with the
 * sub-interface's port as its input port. Untagged frames (and 802.1ad,
 * and priority-tagged VLAN 0) stay the port's own; a tag of a VLAN no
 * sub-interface has is dropped (DP_DROP_VLAN_UNKNOWN), as Linux drops a
 * frame for a VLAN it has no device for. The TX side (the tag pushed) is
 * the sub-interface's TX channel's (struct chan_params::tx_vlan).
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "datapath.h"

/* The port frame @p m belongs to: its sub-interface's + 1 (tag stripped), 0 the
 * parent's, DP_VLAN_DROP none. */
#define DP_VLAN_DROP UINT16_MAX

static inline uint16_t
vlan_of(const struct dp_vlan_map *map, struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t vid, to;

	if (m->data_len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN || p[12] != 0x81 || p[13] != 0x00)
		return 0;
	vid = (uint16_t)((p[14] & 0x0f) << 8 | p[15]);
	if (vid == 0)
		return 0; /* priority tag: the port's own */
	to = map->port[vid];
	if (to == 0)
		return DP_VLAN_DROP;
	/* Strip: the MAC addresses move 4 bytes on. */
	memmove(p + RTE_VLAN_HLEN, p, 2 * RTE_ETHER_ADDR_LEN);
	rte_pktmbuf_adj(m, RTE_VLAN_HLEN);
	return to;
}

unsigned int
dp_vlan_rx(struct dp_ctx *c, const struct dp_vlan_map *map, uint16_t in_port,
	struct rte_mbuf **m, unsigned int n, uint32_t now)
{
	uint16_t to[DP_BURST_MAX];
	struct rte_mbuf *g[DP_BURST_MAX];
	unsigned int done = 0;

	while (n > 0) {
		unsigned int k = RTE_MIN(n, (unsigned int)DP_BURST_MAX);
		unsigned int left = 0;

		for (unsigned int i = 0; i < k; i++) {
			to[i] = vlan_of(map, m[i]);
			if (unlikely(to[i] == DP_VLAN_DROP)) {
				c->st.rx++;
				c->st.rx_bytes += m[i]->pkt_len;
				c->st.drops[DP_DROP_VLAN_UNKNOWN]++;
				c->st.vlan_unknown[in_port & (DP_MAX_PORTS - 1)]++;
				rte_pktmbuf_free(m[i]);
				continue;
			}
			m[left] = m[i];
			to[left++] = to[i];
		}
		/* One burst per port, in order of first appearance; order kept within. */
		while (left > 0) {
			uint16_t first = to[0];
			unsigned int ng = 0, rest = 0;
			uint16_t port = first == 0 ? in_port : (uint16_t)(first - 1);

			for (unsigned int i = 0; i < left; i++) {
				if (to[i] == first) {
					g[ng++] = m[i];
				} else {
					m[rest] = m[i];
					to[rest++] = to[i];
				}
			}
			if (first != 0)
				c->st.vlan_rx[port & (DP_MAX_PORTS - 1)] += ng;
			done += dp_rx_burst_ahead(c, port, g, ng, now);
			left = rest;
		}
		m += k;
		n -= k;
	}
	return done;
}
