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
#include "dp_pktact.h"
#include "reply.h"

/** The most fragments one datagram becomes. */
#define DP_FRAGS_MAX 64

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

/*
 * Write the reply @p rs about @p m (lib/reply) and queue it on @p in_port's
 * TX channel. @return 0, or -1 when none was sent (not allowed, no
 * channel, no mbuf). The original stays the caller's.
 */
static int
reply_send(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t in_port, const struct reply_spec *rs)
{
	uint8_t flat[REPLY_FRAME_MAX], *o;
	uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)sizeof(flat));
	const uint8_t *frame = rte_pktmbuf_read(m, 0, len, flat);
	uint16_t ch = c->port_chan[in_port & (DP_MAX_PORTS - 1)];
	struct rte_mbuf *e;
	int n;

	if (frame == NULL || ch == DP_CHAN_NONE || !reply_allowed(frame, len, p, rs->kind))
		return -1;
	e = rte_pktmbuf_alloc(m->pool);
	o = e != NULL ? (uint8_t *)rte_pktmbuf_append(e, REPLY_FRAME_MAX) : NULL;
	n = o != NULL ? reply_build(o, REPLY_FRAME_MAX, frame, len, p, rs) : -ENOMEM;
	if (n < 0) {
		rte_pktmbuf_free(e);
		return -1;
	}
	rte_pktmbuf_trim(e, (uint16_t)(REPLY_FRAME_MAX - n));
	c->st.originated++;
	dp_out(b, e, ch);
	return 0;
}

/* The packet's source address (IPv4 or IPv6) in its frame, contiguous up to L4. */
static const uint8_t *
pkt_src(const struct rte_mbuf *m, const struct fc_pkt *p)
{
	return rte_pktmbuf_mtod_offset(m, const uint8_t *,
		p->l3_off + (p->key.family == FC_AF_INET4 ? 12 : 8));
}

/*
 * Send an ICMP(v6) error of @p type / @p code (@p info: the MTU of "too
 * big") about @p m back where it came from, from the input port's address
 * and MAC. The original stays the caller's (it is dropped).
 */
static void
icmp_error(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t in_port, uint8_t type, uint8_t code, uint32_t info)
{
	const struct mod_neigh_port_info *pi = mod_neigh_port(c->neigh, in_port);
	struct reply_spec rs = { .kind = REPLY_ICMP, .type = type, .code = code, .info = info };
	uint8_t src[16];

	if (pi == NULL || !pi->on ||
		mod_neigh_port_source(c->neigh, in_port, p->key.family, pkt_src(m, p), src) != 0 ||
		!icmp_allowed(&c->icmp, b->now)) {
		c->st.icmp_suppressed++;
		return;
	}
	rs.src = src;
	rs.eth_src = pi->mac;
	if (reply_send(c, b, m, p, in_port, &rs) != 0) {
		c->st.icmp_suppressed++;
		return;
	}
	c->st.icmp_errors++;
}

/* A destination a router never forwards: multicast, broadcast, IPv6 link-local. */
static bool
not_forwarded(const struct rte_mbuf *m, const struct fc_pkt *p)
{
	const uint8_t *d;

	if (p->key.family == FC_AF_INET4) {
		d = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off + 16);
		return (d[0] & 0xf0) == 0xe0 || (d[0] == 0xff && d[1] == 0xff && d[2] == 0xff &&
			d[3] == 0xff);
	}
	d = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off + 24);
	return d[0] == 0xff || (d[0] == 0xfe && (d[1] & 0xc0) == 0x80);
}

void
dp_l3_no_route(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t out_port, uint16_t in_port)
{
	bool v4 = p->key.family == FC_AF_INET4;

	if ((uint32_t)p->l3_off + dp_l3_hdr_min(p) > rte_pktmbuf_data_len(m)) {
		l3_drop(c, b, m, DP_DROP_NO_ROUTE);
		return;
	}
	if (not_forwarded(m, p)) {
		l3_drop(c, b, m, DP_DROP_NOT_FORWARDED);
		return;
	}
	if (out_port == RULE_PORT_PAIRED)
		icmp_error(c, b, m, p, in_port, v4 ? REPLY_ICMP_UNREACH : REPLY_ICMP6_UNREACH,
			v4 ? REPLY_ICMP_UNREACH_NET : REPLY_ICMP6_UNREACH_NOROUTE, 0);
	else
		icmp_error(c, b, m, p, in_port, v4 ? REPLY_ICMP_UNREACH : REPLY_ICMP6_UNREACH,
			v4 ? REPLY_ICMP_UNREACH_HOST : REPLY_ICMP6_UNREACH_ADDR, 0);
	l3_drop(c, b, m, DP_DROP_NO_ROUTE);
}

void
dp_l3_held_failed(struct dp_ctx *c, struct rte_mbuf *m, uint32_t now)
{
	struct dp_burst b;
	struct fc_pkt p;

	b.no = b.nu = b.nd = 0;
	b.now = now;
	b.in_port = m->port;
	if (c->router && fc_parse_mbuf(m, &p) == FC_PARSE_OK &&
		(uint32_t)p.l3_off + dp_l3_hdr_min(&p) <= rte_pktmbuf_data_len(m) &&
		!fc_locals_match(c->locals, p.key.family, pkt_src(m, &p))) {
		bool v4 = p.key.family == FC_AF_INET4;

		icmp_error(c, &b, m, &p, m->port, v4 ? REPLY_ICMP_UNREACH : REPLY_ICMP6_UNREACH,
			v4 ? REPLY_ICMP_UNREACH_HOST : REPLY_ICMP6_UNREACH_ADDR, 0);
	}
	rte_pktmbuf_free(m);
	if (b.no != 0)
		dp_deliver_burst(c, b.out, b.dest, b.no);
}

/* REJECT --reject-with: the ICMP type and code of each kind, of its family. */
static const struct {
	uint8_t family; /**< FC_AF_*; 0: either (tcp-reset) */
	uint8_t type;
	uint8_t code;
} reject_with[RULE_REJECT__COUNT] = {
	[RULE_REJECT_ICMP_NET_UNREACHABLE] = { FC_AF_INET4, 3, 0 },
	[RULE_REJECT_ICMP_HOST_UNREACHABLE] = { FC_AF_INET4, 3, 1 },
	[RULE_REJECT_ICMP_PORT_UNREACHABLE] = { FC_AF_INET4, 3, 3 },
	[RULE_REJECT_ICMP_PROTO_UNREACHABLE] = { FC_AF_INET4, 3, 2 },
	[RULE_REJECT_ICMP_NET_PROHIBITED] = { FC_AF_INET4, 3, 9 },
	[RULE_REJECT_ICMP_HOST_PROHIBITED] = { FC_AF_INET4, 3, 10 },
	[RULE_REJECT_ICMP_ADMIN_PROHIBITED] = { FC_AF_INET4, 3, 13 },
	[RULE_REJECT_ICMP6_NO_ROUTE] = { FC_AF_INET6, 1, 0 },
	[RULE_REJECT_ICMP6_ADM_PROHIBITED] = { FC_AF_INET6, 1, 1 },
	[RULE_REJECT_ICMP6_ADDR_UNREACHABLE] = { FC_AF_INET6, 1, 3 },
	[RULE_REJECT_ICMP6_PORT_UNREACHABLE] = { FC_AF_INET6, 1, 4 },
	[RULE_REJECT_ICMP6_POLICY_FAIL] = { FC_AF_INET6, 1, 5 },
	[RULE_REJECT_ICMP6_REJECT_ROUTE] = { FC_AF_INET6, 1, 6 },
};

void
dp_reject(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *p,
	uint16_t in_port, unsigned int with)
{
	struct reply_spec rs = { .kind = REPLY_ICMP };
	const struct mod_neigh_port_info *pi =
		c->router ? mod_neigh_port(c->neigh, in_port) : NULL;
	bool to_us = (fc_key_flags(&p->key) & FC_KEY_F_DST_LOCAL) != 0;
	uint8_t src[16];

	if (with == RULE_REJECT_TCP_RESET) {
		rs.kind = REPLY_TCP_RST;
	} else if (with < RULE_REJECT__COUNT && reject_with[with].family == p->key.family) {
		rs.type = reject_with[with].type;
		rs.code = reject_with[with].code;
		/* Rate-limited as the kernel limits ICMP; resets are not. */
		if (!icmp_allowed(&c->icmp, b->now)) {
			c->st.reject_suppressed++;
			return;
		}
		/*
		 * From the router's address on the input port, unless the
		 * packet was for this host (its destination) or gufc is a
		 * bridge (transparent: the destination too).
		 */
		if (pi != NULL && pi->on && !to_us &&
			mod_neigh_port_source(c->neigh, in_port, p->key.family, pkt_src(m, p),
				src) == 0)
			rs.src = src;
	} else {
		c->st.reject_suppressed++; /* a kind of the other family */
		return;
	}
	if (pi != NULL && pi->on)
		rs.eth_src = pi->mac;
	if (reply_send(c, b, m, p, in_port, &rs) != 0) {
		c->st.reject_suppressed++;
		return;
	}
	c->st.reject_replies++;
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
	uint16_t adj_idx, uint32_t ch)
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
	const struct mod_neigh_adj *adj, uint16_t adj_idx, uint32_t ch)
{
	struct rte_mbuf *f[DP_FRAGS_MAX];
	uint32_t dest[DP_FRAGS_MAX];
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

		/* A jumbo echo's headers in its first segment; its data stays chained. */
		if (dp_mbuf_pullup(m, (uint32_t)p->l4_off + 8) == 0 && ch != DP_CHAN_NONE &&
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
	const struct rule_decision *d, const struct rule_pktprog *prog, uint16_t in_port)
{
	unsigned int list = d->pkt_list;
	struct mod_neigh_adj adj;
	bool frag = false, rewritten = false;
	const uint8_t *l3;
	uint32_t ch;
	uint8_t ttl;

	if (prog != NULL && (prog->rewrite & (1u << list)))
		rewritten = dp_pkt_rewrite(c, m, p, prog, list, dp_pkt_mtu(c, d->out_port, in_port),
			DP_RW_EARLY, false);
	if (d->out_port == RULE_PORT_LOCAL) {
		l3_local(c, b, m, p, d, in_port);
		return;
	}
	if (d->adj == 0 || !mod_neigh_adj_read(c->neigh, d->adj, &adj)) {
		/*
		 * Routed (a cached drop holds no adjacency) but expired: time
		 * exceeded, as Linux checks the TTL after the route, before
		 * FORWARD and the neighbour.
		 */
		if (d->out_port != RULE_PORT_PAIRED &&
			(uint32_t)p->l3_off + dp_l3_hdr_min(p) <= rte_pktmbuf_data_len(m) &&
			dp_l3_expired(m, p) && !not_forwarded(m, p)) {
			icmp_error(c, b, m, p, in_port, p->key.family == FC_AF_INET4 ? 11 : 3, 0, 0);
			l3_drop(c, b, m, DP_DROP_TTL_EXCEEDED);
			return;
		}
		dp_l3_no_route(c, b, m, p, d->out_port, in_port);
		return;
	}
	if (dp_mbuf_pullup(m, (uint32_t)p->l3_off + dp_l3_hdr_min(p)) != 0) {
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
	if (prog != NULL && (prog->late & (1u << list)))
		dp_pkt_rewrite(c, m, p, prog, list, adj.mtu, DP_RW_LATE, rewritten);
	ch = dp_dest(c, d->channel, adj.port, in_port);
	if (frag) {
		if (l3_fragment(c, b, m, p, &adj, d->adj, ch) != 0)
			l3_drop(c, b, m, DP_DROP_L3_ERROR);
		return;
	}
	l3_out(c, b, m, &adj, d->adj, ch);
}
