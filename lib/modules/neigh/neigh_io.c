/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh/neigh_io.c — frames in and out of the neighbour
 * module: mod_neigh_input() answers ARP requests and neighbour
 * solicitations for the port's addresses and learns from every message
 * (neigh_nb.c); requests, probes and announcements are built by the frame
 * codec (neigh_frame.c) into mbufs of the module's pool and handed to the
 * application's send callback, as are held packets once their next hop
 * answers (their Ethernet addresses written here).
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "neigh_priv.h"

static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_zero[6];
static const uint8_t mac_all_nodes[6] = { 0x33, 0x33, 0, 0, 0, 1 };
static const uint8_t ip6_all_nodes[16] = { 0xff, 0x02, [15] = 1 };

void
nb_send_frame(struct mod_neigh *n, uint16_t port, const uint8_t *frame, unsigned int len,
	uint64_t *ctr)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(n->p.pool);
	char *d;

	if (m == NULL) {
		n->st.nombuf++;
		return;
	}
	d = rte_pktmbuf_append(m, (uint16_t)len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		n->st.nombuf++;
		return;
	}
	memcpy(d, frame, len);
	(*ctr)++;
	n->st.originated++;
	n->p.send_fn(n->p.send_arg, port, &m, 1);
}

bool
nb_solicit(struct mod_neigh *n, const struct nb_ent *e, bool unicast)
{
	const struct mod_neigh_port_info *pi = &n->ports[e->port];
	uint8_t frame[MOD_NEIGH_FRAME_MAX], src[16];
	unsigned int len;

	/* Without an address of the family the port cannot ask (it fails in time). */
	if (mod_neigh_port_source(n, e->port, e->family, e->addr, src) != 0)
		return false;
	unicast = unicast && e->has_mac;
	if (e->family == FC_AF_INET4) {
		len = mod_neigh_build_arp(frame, 1, unicast ? e->mac : mac_bcast, pi->mac, src,
			mac_zero, e->addr);
		nb_send_frame(n, e->port, frame, len, &n->st.arp_req_out);
	} else {
		len = mod_neigh_build_ns(frame, pi->mac, src, e->addr, unicast ? e->mac : NULL);
		nb_send_frame(n, e->port, frame, len, &n->st.ns_out);
	}
	return true;
}

void
nb_announce(struct mod_neigh *n, uint16_t port)
{
	const struct mod_neigh_port_info *pi = &n->ports[port];
	uint8_t frame[MOD_NEIGH_FRAME_MAX];
	unsigned int len;

	for (unsigned int i = 0; i < pi->n_addr; i++) {
		const uint8_t *a = pi->addr[i].addr;

		if (pi->addr[i].family == FC_AF_INET4)
			len = mod_neigh_build_arp(frame, 1, mac_bcast, pi->mac, a, mac_zero, a);
		else
			len = mod_neigh_build_na(frame, pi->mac, mac_all_nodes, a, ip6_all_nodes,
				MOD_NEIGH_NA_ROUTER | MOD_NEIGH_NA_OVERRIDE);
		nb_send_frame(n, port, frame, len, &n->st.announce_out);
	}
}

void
nb_send_held(struct mod_neigh *n, uint16_t port, const uint8_t mac[6], const uint8_t src[6],
	struct rte_mbuf **m, unsigned int cnt)
{
	for (unsigned int i = 0; i < cnt; i++) {
		uint8_t *eth = rte_pktmbuf_mtod(m[i], uint8_t *);

		memcpy(eth, mac, 6);
		memcpy(eth + 6, src, 6);
	}
	n->p.send_fn(n->p.send_arg, port, m, cnt);
}

static void
arp_input(struct mod_neigh *n, const struct mod_neigh_msg *msg, uint16_t port, uint32_t now)
{
	const struct mod_neigh_port_info *pi = &n->ports[port];
	bool for_us = nb_port_has(n, port, FC_AF_INET4, msg->target);
	bool sender = (msg->src[0] | msg->src[1] | msg->src[2] | msg->src[3]) != 0;
	uint8_t frame[MOD_NEIGH_FRAME_MAX];
	unsigned int len;

	if (msg->kind == MOD_NEIGH_MSG_ARP_REQUEST) {
		n->st.arp_req_in++;
		if (for_us) {
			len = mod_neigh_build_arp(frame, 2, msg->lladdr, pi->mac, msg->target,
				msg->lladdr, msg->src);
			nb_send_frame(n, port, frame, len, &n->st.arp_rep_out);
		}
		/* A request for us makes its sender a neighbour; any other (a gratuitous
		 * one) updates a known one. An address probe (sender 0) teaches nothing. */
		if (sender && !nb_port_has(n, port, FC_AF_INET4, msg->src))
			nb_learn(n, port, FC_AF_INET4, msg->src, msg->lladdr, for_us, false, now);
		return;
	}
	n->st.arp_rep_in++;
	if (sender && !nb_port_has(n, port, FC_AF_INET4, msg->src))
		nb_learn(n, port, FC_AF_INET4, msg->src, msg->lladdr, false, for_us, now);
}

static bool
ip6_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static void
nd_input(struct mod_neigh *n, const struct mod_neigh_msg *msg, uint16_t port, uint32_t now)
{
	const struct mod_neigh_port_info *pi = &n->ports[port];
	uint8_t frame[MOD_NEIGH_FRAME_MAX];
	unsigned int len;

	switch (msg->kind) {
	case MOD_NEIGH_MSG_NS:
		n->st.ns_in++;
		if (!nb_port_has(n, port, FC_AF_INET6, msg->target))
			return;
		if (ip6_unspecified(msg->src)) {
			/* Duplicate address detection: defend the address to all nodes. */
			len = mod_neigh_build_na(frame, pi->mac, mac_all_nodes, msg->target,
				ip6_all_nodes, MOD_NEIGH_NA_ROUTER | MOD_NEIGH_NA_OVERRIDE);
			nb_send_frame(n, port, frame, len, &n->st.na_out);
			return;
		}
		len = mod_neigh_build_na(frame, pi->mac, msg->has_lladdr ? msg->lladdr : msg->eth_src,
			msg->target, msg->src,
			MOD_NEIGH_NA_ROUTER | MOD_NEIGH_NA_SOLICITED | MOD_NEIGH_NA_OVERRIDE);
		nb_send_frame(n, port, frame, len, &n->st.na_out);
		if (msg->has_lladdr)
			nb_learn(n, port, FC_AF_INET6, msg->src, msg->lladdr, true, false, now);
		return;
	case MOD_NEIGH_MSG_NA: {
		struct nb_ent *e;

		n->st.na_in++;
		e = nb_find(n, port, FC_AF_INET6, msg->target);
		if (e == NULL || !msg->has_lladdr)
			return;
		/* Without the override flag a known MAC stays (RFC 4861 7.2.5). */
		if (e->has_mac && !(msg->flags & MOD_NEIGH_NA_OVERRIDE) &&
			memcmp(e->mac, msg->lladdr, 6) != 0)
			return;
		nb_learn(n, port, FC_AF_INET6, msg->target, msg->lladdr, false,
			(msg->flags & MOD_NEIGH_NA_SOLICITED) != 0, now);
		return;
	}
	default:
		n->st.nd_other_in++;
		return;
	}
}

int
mod_neigh_input(struct mod_neigh *n, struct rte_mbuf *m, uint16_t port, uint32_t now)
{
	struct mod_neigh_msg msg;
	int rc;

	if (n == NULL || m == NULL) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	rc = mod_neigh_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &msg);
	rte_pktmbuf_free(m);
	if (rc != 0) {
		n->st.drops[MOD_NEIGH_DROP_NEIGH_INVALID]++;
		return -EINVAL;
	}
	n->st.consumed++;
	if (port >= MOD_NEIGH_MAX_PORTS || !n->ports[port].on)
		return 0;
	if (msg.family == FC_AF_INET4)
		arp_input(n, &msg, port, now);
	else
		nd_input(n, &msg, port, now);
	return 0;
}
