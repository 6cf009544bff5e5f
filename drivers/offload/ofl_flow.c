/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_flow.c — translation of a cached flow into rte_flow
 * attr / pattern / actions arrays. The same arrays go to a real NIC
 * (ofl_rteflow.c) and to the software NIC model (ofl_swnic.c).
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "offload.h"

#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_SCTP 132

/* IPv4 flags/fragment offset: MF and the offset; DF is ignored. */
#define IPV4_FRAG_MASK 0x3fff

static void
l4_fill(struct ofl_flow_spec *o, struct rte_flow_item *it, uint8_t proto, uint16_t sport,
	uint16_t dport)
{
	/* Ports sit first in all three headers; each union member has them. */
	switch (proto) {
	case PROTO_TCP:
		it->type = RTE_FLOW_ITEM_TYPE_TCP;
		o->l4_spec.tcp.hdr.src_port = sport;
		o->l4_spec.tcp.hdr.dst_port = dport;
		o->l4_mask.tcp.hdr.src_port = RTE_BE16(0xffff);
		o->l4_mask.tcp.hdr.dst_port = RTE_BE16(0xffff);
		break;
	case PROTO_UDP:
		it->type = RTE_FLOW_ITEM_TYPE_UDP;
		o->l4_spec.udp.hdr.src_port = sport;
		o->l4_spec.udp.hdr.dst_port = dport;
		o->l4_mask.udp.hdr.src_port = RTE_BE16(0xffff);
		o->l4_mask.udp.hdr.dst_port = RTE_BE16(0xffff);
		break;
	default:
		it->type = RTE_FLOW_ITEM_TYPE_SCTP;
		o->l4_spec.sctp.hdr.src_port = sport;
		o->l4_spec.sctp.hdr.dst_port = dport;
		o->l4_mask.sctp.hdr.src_port = RTE_BE16(0xffff);
		o->l4_mask.sctp.hdr.dst_port = RTE_BE16(0xffff);
		break;
	}
	it->spec = &o->l4_spec;
	it->mask = &o->l4_mask;
}

int
ofl_flow_translate(const struct ofl_flow_req *r, struct ofl_flow_spec *o)
{
	struct rte_flow_item *it;
	struct rte_flow_action *ac;
	uint8_t proto;
	uint16_t sport, dport;

	if (r == NULL || o == NULL)
		return -EINVAL;
	if (r->key.family != FC_AF_INET4 && r->key.family != FC_AF_INET6)
		return -EINVAL;
	if (r->verdict != FC_VERDICT_ACCEPT && r->verdict != FC_VERDICT_DROP)
		return -EINVAL;
	if (r->key.family == FC_AF_INET4) {
		proto = r->key.v4.proto;
		sport = r->key.v4.sport;
		dport = r->key.v4.dport;
	} else {
		proto = r->key.v6.proto;
		sport = r->key.v6.sport;
		dport = r->key.v6.dport;
	}
	if (proto != PROTO_TCP && proto != PROTO_UDP && proto != PROTO_SCTP)
		return -ENOTSUP;

	memset(o, 0, sizeof(*o));
	o->attr.ingress = 1;

	it = o->pattern;
	it->type = RTE_FLOW_ITEM_TYPE_ETH;
	o->eth_mask.hdr.ether_type = RTE_BE16(0xffff);
	it->spec = &o->eth_spec;
	it->mask = &o->eth_mask;
	it++;
	if (r->key.family == FC_AF_INET4) {
		struct rte_ipv4_hdr *s = &o->ip_spec.v4.hdr, *m = &o->ip_mask.v4.hdr;

		o->eth_spec.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		it->type = RTE_FLOW_ITEM_TYPE_IPV4;
		s->src_addr = r->key.v4.src;
		s->dst_addr = r->key.v4.dst;
		s->next_proto_id = proto;
		s->fragment_offset = 0;
		m->src_addr = RTE_BE32(0xffffffff);
		m->dst_addr = RTE_BE32(0xffffffff);
		m->next_proto_id = 0xff;
		m->fragment_offset = RTE_BE16(IPV4_FRAG_MASK);
	} else {
		struct rte_ipv6_hdr *s = &o->ip_spec.v6.hdr, *m = &o->ip_mask.v6.hdr;

		o->eth_spec.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		it->type = RTE_FLOW_ITEM_TYPE_IPV6;
		memcpy(s->src_addr, r->key.v6.src, 16);
		memcpy(s->dst_addr, r->key.v6.dst, 16);
		s->proto = proto;
		memset(m->src_addr, 0xff, 16);
		memset(m->dst_addr, 0xff, 16);
		m->proto = 0xff;
	}
	it->spec = &o->ip_spec;
	it->mask = &o->ip_mask;
	it++;
	l4_fill(o, it, proto, sport, dport);
	it++;
	it->type = RTE_FLOW_ITEM_TYPE_END;

	ac = o->actions;
	if (r->verdict == FC_VERDICT_ACCEPT) {
		o->mark.id = r->mark;
		ac->type = RTE_FLOW_ACTION_TYPE_MARK;
		ac->conf = &o->mark;
		ac++;
		if (r->rss != NULL) {
			o->rss = *r->rss;
			ac->type = RTE_FLOW_ACTION_TYPE_RSS;
			ac->conf = &o->rss;
		} else {
			o->queue.index = r->queue;
			ac->type = RTE_FLOW_ACTION_TYPE_QUEUE;
			ac->conf = &o->queue;
		}
		ac++;
	} else {
		ac->type = RTE_FLOW_ACTION_TYPE_DROP;
		ac++;
	}
	if (r->count) {
		ac->type = RTE_FLOW_ACTION_TYPE_COUNT;
		ac->conf = &o->count;
		ac++;
	}
	if (r->age) {
		o->age.timeout = r->age_timeout & 0xffffff;
		ac->type = RTE_FLOW_ACTION_TYPE_AGE;
		ac->conf = &o->age;
		ac++;
	}
	ac->type = RTE_FLOW_ACTION_TYPE_END;
	return 0;
}
