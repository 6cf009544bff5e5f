/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_l3.c — router mode on the slow path (datapath.h "Router
 * mode"): an accepted decision is delivered locally (echo requests to the
 * router answered in place, the rest to the local channel), or forwarded
 * by its adjacency once the exceptions the fast path leaves here are
 * handled: a TTL (hop limit) that would expire gets ICMP time exceeded, a
 * datagram over the egress MTU ICMP fragmentation needed (DF set) or
 * ICMPv6 packet too big, or is fragmented (IPv4 without DF,
 * rte_ipv4_fragment_packet()), and a packet whose next hop is still
 * resolving is held by the neighbour module. ICMP errors quote the packet
 * as it arrived (before NAT), come from the input port's address, leave on
 * the input port's TX channel to the MAC the packet came from, and are
 * rate-limited (struct dp_icmp_limit); none is sent about an ICMP error, a
 * non-first fragment, or to or from a multicast, broadcast or unspecified
 * address (RFC 1812 4.3.2.7, RFC 4443 2.4).
 */

#include <errno.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf.h>

#include "dp_l3.h"

/** The most fragments one datagram becomes. */
#define DP_FRAGS_MAX 64
/** Quoted bytes of the offending packet: within 576 bytes (IPv4), 1280 (IPv6). */
#define DP_QUOTE_V4 (576 - 20 - 8)
#define DP_QUOTE_V6 (1280 - 40 - 8)

static void
l3_drop(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, unsigned int reason)
{
	c->st.drops[reason]++;
	dp_free_later(b, m);
}

/* One error from the budget? */
static bool
icmp_allowed(struct dp_icmp_limit *l, uint32_t now)
{
	uint64_t cap = (uint64_t)l->burst * 1000;

	if (l->rate == 0)
		return false;
	if (l->last_ms == 0 && l->tokens == 0)
		l->tokens = cap;
	l->tokens += (uint64_t)(now - l->last_ms) * l->rate;
	if (l->tokens > cap)
		l->tokens = cap;
	l->last_ms = now;
	if (l->tokens < 1000)
		return false;
	l->tokens -= 1000;
	return true;
}

/* May an error be sent about this packet (RFC 1812 4.3.2.7, RFC 4443 2.4)? */
static bool
icmp_about(const struct fc_pkt *p, const uint8_t *l3)
{
	if (p->frag == FC_FRAG_LATER || p->frag_off != 0)
		return false;
	if (p->key.family == FC_AF_INET4) {
		const uint8_t *s = l3 + 12, *d = l3 + 16;
		uint8_t t = p->icmp_type;

		if (p->key.v4.proto == IPPROTO_ICMP && (t == 3 || t == 4 || t == 5 || t == 11 ||
							       t == 12))
			return false;
		if (s[0] == 0 || s[0] == 127 || s[0] >= 224 || d[0] >= 224)
			return false;
		return true;
	}
	if (p->key.v6.proto == IPPROTO_ICMPV6 && p->icmp_type < 128)
		return false;
	if (l3[8] == 0xff || l3[24] == 0xff)
		return false;
	for (unsigned int i = 0; i < 16; i++)
		if (l3[8 + i] != 0)
			return true;
	return false; /* from :: */
}

/*
 * Send an ICMP(v6) error of @p type / @p code (@p info: the MTU of "too
 * big") about @p m back where it came from. The original stays the
 * caller's (it is dropped).
 */
static void
icmp_error(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t in_port, uint8_t type, uint8_t code, uint32_t info)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *l3 = eth + p->l3_off;
	const struct mod_neigh_port_info *pi = mod_neigh_port(c->neigh, in_port);
	bool v4 = p->key.family == FC_AF_INET4;
	uint32_t hlen = v4 ? 20 : 40;
	uint32_t avail = rte_pktmbuf_pkt_len(m) - p->l3_off;
	uint32_t quote = RTE_MIN(RTE_MIN((uint32_t)p->ip_len, avail),
		(uint32_t)(v4 ? DP_QUOTE_V4 : DP_QUOTE_V6));
	uint8_t src[16], *o, *ip, *icmp;
	struct rte_mbuf *e;
	uint16_t ck;

	if (!icmp_about(p, l3) || pi == NULL || !pi->on ||
		mod_neigh_port_source(c->neigh, in_port, p->key.family, l3 + (v4 ? 12 : 8), src) != 0 ||
		c->port_chan[in_port & (DP_MAX_PORTS - 1)] == DP_CHAN_NONE ||
		!icmp_allowed(&c->icmp, b->now)) {
		c->st.icmp_suppressed++;
		return;
	}
	e = rte_pktmbuf_alloc(m->pool);
	o = e != NULL ? (uint8_t *)rte_pktmbuf_append(e,
		(uint16_t)(p->l3_off + hlen + 8 + quote)) : NULL;
	if (o == NULL) {
		rte_pktmbuf_free(e);
		c->st.icmp_suppressed++;
		return;
	}
	/* The frame's own L2 header (its VLAN tags too), back to its sender. */
	memcpy(o, eth, p->l3_off);
	memcpy(o, eth + 6, 6);
	memcpy(o + 6, pi->mac, 6);
	ip = o + p->l3_off;
	icmp = ip + hlen;
	memset(ip, 0, hlen + 8);
	{
		const void *q = rte_pktmbuf_read(m, p->l3_off, quote, icmp + 8);

		if (q != NULL && q != icmp + 8)
			memcpy(icmp + 8, q, quote);
	}
	icmp[0] = type;
	icmp[1] = code;
	if (v4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;

		h->version_ihl = 0x45;
		h->type_of_service = 0xc0;
		h->total_length = rte_cpu_to_be_16((uint16_t)(hlen + 8 + quote));
		h->time_to_live = 64;
		h->next_proto_id = IPPROTO_ICMP;
		memcpy(&h->src_addr, src, 4);
		memcpy(&h->dst_addr, l3 + 12, 4);
		h->hdr_checksum = rte_ipv4_cksum(h);
		/* Fragmentation needed: the next-hop MTU in the low half of word 2. */
		icmp[6] = (uint8_t)(info >> 8);
		icmp[7] = (uint8_t)info;
		ck = (uint16_t)~rte_raw_cksum(icmp, 8 + quote);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)ip;

		h->vtc_flow = rte_cpu_to_be_32(6u << 28);
		h->payload_len = rte_cpu_to_be_16((uint16_t)(8 + quote));
		h->proto = IPPROTO_ICMPV6;
		h->hop_limits = 64;
		memcpy(h->src_addr, src, 16);
		memcpy(h->dst_addr, l3 + 8, 16);
		icmp[4] = (uint8_t)(info >> 24);
		icmp[5] = (uint8_t)(info >> 16);
		icmp[6] = (uint8_t)(info >> 8);
		icmp[7] = (uint8_t)info;
		ck = rte_ipv6_udptcp_cksum(h, icmp);
	}
	if (v4 && ck == 0)
		ck = 0xffff;
	memcpy(icmp + 2, &ck, 2);
	c->st.icmp_errors++;
	c->st.originated++;
	dp_out(b, e, c->port_chan[in_port & (DP_MAX_PORTS - 1)]);
}

/* TTL (hop limit) minus one, the IPv4 header checksum updated (no MAC change). */
static void
ttl_dec(struct rte_mbuf *m, const struct fc_pkt *p)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, p->l3_off);

	if (p->key.family == FC_AF_INET4) {
		uint16_t old, nw, ck;

		memcpy(&old, l3 + 8, 2);
		l3[8]--;
		memcpy(&nw, l3 + 8, 2);
		memcpy(&ck, l3 + 10, 2);
		ck = dp_csum_update16(ck, old, nw);
		memcpy(l3 + 10, &ck, 2);
	} else {
		l3[7]--;
	}
}

/* Out by the adjacency (MACs written), or held until its next hop answers. */
static void
l3_out(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct mod_neigh_adj *adj,
	uint16_t adj_idx, uint16_t ch)
{
	if (adj->valid) {
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);

		memcpy(eth, adj->dst, 6);
		memcpy(eth + 6, adj->src, 6);
		dp_out(b, m, ch);
		return;
	}
	c->st.held++;
	mod_neigh_hold(c->neigh, adj_idx, m, b->now);
}

/*
 * Fragment an IPv4 datagram (TTL done, NAT done) for @p adj's MTU and send
 * the fragments, after what @p b already holds (order kept). @return 0, or
 * -errno (@p m is still the caller's).
 */
static int
l3_fragment(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	const struct mod_neigh_adj *adj, uint16_t adj_idx, uint16_t ch)
{
	struct rte_mbuf *f[DP_FRAGS_MAX];
	uint16_t dest[DP_FRAGS_MAX];
	uint8_t l2[FC_PARSE_MAX_HDR];
	uint32_t ihl, mtu;
	int32_t nf;
	unsigned int k = 0;

	if (p->l3_off > sizeof(l2) || rte_pktmbuf_pkt_len(m) < (uint32_t)p->l3_off + p->ip_len)
		return -EINVAL;
	ihl = (uint32_t)(rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off)[0] & 0xf) * 4;
	/* Fragment payloads are multiples of 8 bytes. */
	mtu = ihl + ((adj->mtu - ihl) & ~7u);
	memcpy(l2, rte_pktmbuf_mtod(m, const uint8_t *), p->l3_off);
	rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - p->l3_off - p->ip_len);
	rte_pktmbuf_adj(m, p->l3_off);
	nf = rte_ipv4_fragment_packet(m, f, DP_FRAGS_MAX, (uint16_t)mtu, m->pool, m->pool);
	if (nf <= 0) {
		rte_pktmbuf_prepend(m, p->l3_off); /* back as it was, for the caller to drop */
		return nf < 0 ? (int)nf : -EINVAL;
	}
	rte_pktmbuf_free(m); /* the fragments hold its data */
	/* What came before in this burst leaves first. */
	dp_deliver_burst(c, b->out, b->dest, b->no);
	b->no = 0;
	c->st.frag_datagrams++;
	c->st.frag_made += (uint64_t)nf;
	c->st.originated += (uint64_t)nf - 1;
	for (int32_t i = 0; i < nf; i++) {
		uint8_t *eth = (uint8_t *)rte_pktmbuf_prepend(f[i], p->l3_off);
		struct rte_ipv4_hdr *h;

		if (eth == NULL) {
			c->st.drops[DP_DROP_L3_ERROR]++;
			rte_pktmbuf_free(f[i]);
			continue;
		}
		memcpy(eth, l2, p->l3_off);
		h = (struct rte_ipv4_hdr *)(eth + p->l3_off);
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
		if (adj->valid) {
			memcpy(eth, adj->dst, 6);
			memcpy(eth + 6, adj->src, 6);
			f[k] = f[i];
			dest[k++] = ch;
		} else {
			c->st.held++;
			mod_neigh_hold(c->neigh, adj_idx, f[i], b->now);
		}
	}
	dp_deliver_burst(c, f, dest, k);
	return 0;
}

/* Local delivery: NAT, then the echo reply or the local channel. */
static void
l3_local(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	const struct rule_decision *d, uint16_t in_port)
{
	if (d->nat_slot != RULE_NAT_NONE &&
		dp_slow_nat(c, m, p, d->nat_slot, (d->flags & RULE_DEC_F_ICMP_ERR) != 0) != 0) {
		c->st.rule_drops[RULE_DROP_NAT_ERROR]++;
		dp_free_later(b, m);
		return;
	}
	if (dp_l3_echo_request(p) && d->channel == CHAN_ID_DEFAULT) {
		const struct mod_neigh_port_info *pi = mod_neigh_port(c->neigh, in_port);
		uint16_t ch = c->port_chan[in_port & (DP_MAX_PORTS - 1)];

		if ((m->nb_segs == 1 || rte_pktmbuf_linearize(m) == 0) && ch != DP_CHAN_NONE &&
			dp_l3_echo_reply(m, p, pi != NULL && pi->on ? pi->mac : NULL) == 0) {
			c->st.echo_replies++;
			dp_out(b, m, ch);
			return;
		}
		l3_drop(c, b, m, DP_DROP_L3_ERROR);
		return;
	}
	c->st.local_in++;
	dp_out(b, m, d->channel != CHAN_ID_DEFAULT ? d->channel : c->local_chan);
}

void
dp_l3_slow(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	const struct rule_decision *d, uint16_t in_port)
{
	struct mod_neigh_adj adj;
	const uint8_t *l3;
	bool frag = false;
	uint16_t ch;
	uint8_t ttl;

	if (d->out_port == RULE_PORT_LOCAL) {
		l3_local(c, b, m, p, d, in_port);
		return;
	}
	if (d->adj == 0 || !mod_neigh_adj_read(c->neigh, d->adj, &adj)) {
		l3_drop(c, b, m, DP_DROP_NO_ROUTE);
		return;
	}
	if ((uint32_t)p->l3_off + dp_l3_hdr_min(p) > rte_pktmbuf_data_len(m) &&
		(m->nb_segs == 1 || rte_pktmbuf_linearize(m) != 0)) {
		l3_drop(c, b, m, DP_DROP_L3_ERROR);
		return;
	}
	l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off);
	ttl = p->key.family == FC_AF_INET4 ? l3[8] : l3[7];
	if (ttl <= 1) {
		icmp_error(c, b, m, p, in_port, p->key.family == FC_AF_INET4 ? 11 : 3, 0, 0);
		l3_drop(c, b, m, DP_DROP_TTL_EXCEEDED);
		return;
	}
	if (p->ip_len > adj.mtu) {
		/* IPv4 with DF (bit 0x40 of byte 6), or IPv6: the sender must send less. */
		if (p->key.family == FC_AF_INET6 || (l3[6] & 0x40)) {
			icmp_error(c, b, m, p, in_port, p->key.family == FC_AF_INET4 ? 3 : 2,
				p->key.family == FC_AF_INET4 ? 4 : 0, adj.mtu);
			l3_drop(c, b, m, DP_DROP_FRAG_NEEDED);
			return;
		}
		frag = true;
	}
	if (d->nat_slot != RULE_NAT_NONE &&
		dp_slow_nat(c, m, p, d->nat_slot, (d->flags & RULE_DEC_F_ICMP_ERR) != 0) != 0) {
		c->st.rule_drops[RULE_DROP_NAT_ERROR]++;
		dp_free_later(b, m);
		return;
	}
	ttl_dec(m, p);
	ch = dp_dest(c, d->channel, adj.port, in_port);
	if (frag) {
		if (l3_fragment(c, b, m, p, &adj, d->adj, ch) != 0)
			l3_drop(c, b, m, DP_DROP_L3_ERROR);
		return;
	}
	l3_out(c, b, m, &adj, d->adj, ch);
}
