/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath private: router mode's per-packet L3 work (datapath.h,
 * "Router mode"), shared by the fast path (dp_rx.c: inline, on a hit) and
 * the slow path (dp_l3.c: the exceptions, on a decision). Not installed.
 *
 * The order for an accepted packet: dp_l3_way() decides, before anything
 * is rewritten, whether it can leave by its adjacency (valid, TTL above 1,
 * within the MTU) or needs the slow path; then NAT; then dp_l3_forward()
 * (TTL or hop limit minus one, the Ethernet addresses of the adjacency).
 */
#ifndef GUFC_DP_L3_H
#define GUFC_DP_L3_H

#include <netinet/in.h>
#include <string.h>

#include <rte_mbuf.h>

#include "datapath.h"
#include "dp_priv.h"

/** Where a router's accepted packet goes (dp_l3_way()). */
enum dp_l3_way {
	DP_L3_OUT,      /**< by its adjacency: dp_l3_forward() after NAT */
	DP_L3_SLOW,     /**< the slow path decides (hold, ICMP error, fragments) */
	DP_L3_NO_ROUTE, /**< no adjacency: dropped */
	DP_L3_LOCAL,    /**< to the router itself: the local channel */
	DP_L3_ECHO,     /**< an echo request to the router: answered in place */
};

/** Fixed IP header bytes of a family. */
static inline uint32_t
dp_l3_hdr_min(const struct fc_pkt *p)
{
	return p->key.family == FC_AF_INET4 ? 20u : 40u;
}

/** Is the packet an ICMP or ICMPv6 echo request? */
static inline bool
dp_l3_echo_request(const struct fc_pkt *p)
{
	if (p->key.family == FC_AF_INET4)
		return p->key.v4.proto == IPPROTO_ICMP && p->icmp_type == 8;
	return p->key.v6.proto == IPPROTO_ICMPV6 && p->icmp_type == 128;
}

/**
 * Router mode: has a packet to forward a TTL (hop limit) of 1 or less, as
 * received (the router answers time exceeded before FORWARD)? A header
 * beyond the first segment counts as expired (the slow path decides).
 */
static inline bool
dp_l3_expired(const struct rte_mbuf *m, const struct fc_pkt *p)
{
	if (unlikely((uint32_t)p->l3_off + dp_l3_hdr_min(p) > rte_pktmbuf_data_len(m)))
		return true;
	return rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off)[
		       p->key.family == FC_AF_INET4 ? 8 : 7] <= 1;
}

/**
 * Router mode: where an accepted packet of an entry with @p out_port and
 * adjacency @p adj_idx goes; with DP_L3_OUT, @p adj holds the adjacency.
 * Reads the TTL (hop limit) only; changes nothing.
 */
static inline enum dp_l3_way
dp_l3_way(const struct dp_ctx *c, const struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t out_port, uint16_t adj_idx, struct mod_neigh_adj *adj)
{
	const uint8_t *l3;
	uint8_t ttl;

	if (out_port == RULE_PORT_LOCAL) {
		if (!dp_l3_echo_request(p))
			return DP_L3_LOCAL;
		/* The reply is made in place: its headers in the first segment, the
		 * request to our unicast MAC (its source for the reply). */
		if (unlikely((uint32_t)p->l4_off + 8 > rte_pktmbuf_data_len(m) ||
			    (rte_pktmbuf_mtod(m, const uint8_t *)[0] & 1)))
			return DP_L3_SLOW;
		return DP_L3_ECHO;
	}
	if (unlikely(adj_idx == 0))
		return DP_L3_NO_ROUTE;
	if (unlikely(!mod_neigh_adj_read(c->neigh, adj_idx, adj) || !adj->valid))
		return DP_L3_SLOW;
	if (unlikely((uint32_t)p->l3_off + dp_l3_hdr_min(p) > rte_pktmbuf_data_len(m)))
		return DP_L3_SLOW;
	l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off);
	ttl = p->key.family == FC_AF_INET4 ? l3[8] : l3[7];
	if (unlikely(ttl <= 1 || p->ip_len > adj->mtu))
		return DP_L3_SLOW;
	return DP_L3_OUT;
}

/**
 * A checksum field after one 16-bit word it covers changed from @p old to
 * @p nw (both as loaded from memory: RFC 1624 eqn. 3, byte-order neutral).
 */
static inline uint16_t
dp_csum_update16(uint16_t csum, uint16_t old, uint16_t nw)
{
	uint32_t d = (uint32_t)(uint16_t)~old + nw;

	d = (d & 0xffff) + (d >> 16);
	return mod_nat_csum_adjust(csum, d != 0 ? (uint16_t)d : 0xffff);
}

/**
 * Leave by adjacency @p adj: TTL (hop limit) minus one, the IPv4 header
 * checksum updated, the next hop's and the port's MAC written. The headers
 * were checked by dp_l3_way().
 */
static inline void
dp_l3_forward(struct rte_mbuf *m, const struct fc_pkt *p, const struct mod_neigh_adj *adj)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + p->l3_off;

	if (p->key.family == FC_AF_INET4) {
		uint16_t old, nw, c;

		memcpy(&old, l3 + 8, 2);
		l3[8]--;
		memcpy(&nw, l3 + 8, 2);
		memcpy(&c, l3 + 10, 2);
		c = dp_csum_update16(c, old, nw);
		memcpy(l3 + 10, &c, 2);
	} else {
		l3[7]--;
	}
	memcpy(eth, adj->dst, 6);
	memcpy(eth + 6, adj->src, 6);
}

/**
 * Turn an echo request to the router into its reply, in place: addresses
 * and MAC addresses swapped, TTL (hop limit) 64, type 0 (129), checksums
 * updated. A request to a group MAC address is left to the slow path.
 * @param m    the request
 * @param p    its parse
 * @param src  the MAC the reply leaves from, or NULL: the request's destination
 * @return 0, or -EINVAL (headers beyond the first segment, or a group MAC
 *   without @p src): nothing was changed.
 */
static inline int
dp_l3_echo_reply(struct rte_mbuf *m, const struct fc_pkt *p, const uint8_t *src)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + p->l3_off, *l4 = eth + p->l4_off;
	uint8_t mac[6], a[16];
	uint16_t old, nw, c;

	if (unlikely((uint32_t)p->l4_off + 8 > rte_pktmbuf_data_len(m) || p->l4_off == 0 ||
		    (src == NULL && (eth[0] & 1))))
		return -EINVAL;
	memcpy(mac, eth + 6, 6);
	memcpy(eth + 6, src != NULL ? src : eth, 6);
	memcpy(eth, mac, 6);
	if (p->key.family == FC_AF_INET4) {
		memcpy(a, l3 + 12, 4);
		memcpy(l3 + 12, l3 + 16, 4);
		memcpy(l3 + 16, a, 4);
		memcpy(&old, l3 + 8, 2);
		l3[8] = 64;
		memcpy(&nw, l3 + 8, 2);
		memcpy(&c, l3 + 10, 2);
		c = dp_csum_update16(c, old, nw);
		memcpy(l3 + 10, &c, 2);
	} else {
		memcpy(a, l3 + 8, 16);
		memcpy(l3 + 8, l3 + 24, 16);
		memcpy(l3 + 24, a, 16);
		l3[7] = 64;
	}
	memcpy(&old, l4, 2);
	l4[0] = p->key.family == FC_AF_INET4 ? 0 : 129;
	memcpy(&nw, l4, 2);
	memcpy(&c, l4 + 2, 2);
	c = dp_csum_update16(c, old, nw);
	memcpy(l4 + 2, &c, 2);
	return 0;
}

/* dp_l3.c: the slow path's part. */

/**
 * Router mode, the slow path: apply an accepted decision @p d to @p m
 * (parse @p p, from @p in_port): local delivery or echo reply, hold for a
 * resolving next hop, ICMP time exceeded or too big, NAT, fragmentation,
 * the rewrite; output queued in @p b (fragments are delivered at once,
 * after what @p b holds), drops counted. The rewrites of @p prog (NULL:
 * none; the list is d->pkt_list) come first, before the TTL check, but
 * for the late ones (TTL, HL at FORWARD or POSTROUTING): those right after
 * the TTL (hop limit) decrement, as in Linux.
 */
void dp_l3_slow(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	const struct rule_decision *d, const struct rule_pktprog *prog, uint16_t in_port);

/**
 * Router mode: a packet with nowhere to go (no adjacency: @p out_port is
 * RULE_PORT_PAIRED when no route holds its destination). Multicast,
 * broadcast and IPv6 link-local destinations are dropped silently
 * (not_forwarded), as a router does not forward them; the others get an
 * ICMP destination unreachable (no route: net unreachable / ICMPv6 no
 * route; a route but no neighbour entry: host / address unreachable) from
 * the input port's address, within the ICMP budget, and count no_route.
 * The packet is freed with the burst.
 */
void dp_l3_no_route(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m,
	const struct fc_pkt *p, uint16_t out_port, uint16_t in_port);

/**
 * Answer a packet a REJECT rule dropped (either mode): the ICMP/ICMPv6
 * error or TCP reset of kind @p with (enum rule_reject), written by
 * lib/reply as Linux writes it, out of the input port's TX channel; ICMP
 * rate-limited with the router's ICMP errors (struct dp_ctx::icmp). The
 * packet stays the caller's (it is dropped). Counted reject_replies or
 * reject_suppressed.
 */
void dp_reject(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t in_port, unsigned int with);

#endif /* GUFC_DP_L3_H */
