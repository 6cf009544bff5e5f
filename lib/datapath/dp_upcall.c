/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_upcall.c — the slow path's half of the datapath:
 * dp_upcall_burst() has the rules engine decide a burst of upcalled packets
 * and applies the decisions exactly as the fast path applies cached ones
 * (named drop, NAT rewrite, delivery through dp_deliver_burst()), plus what
 * only the slow path does: ICMP errors of translated connections
 * (mod_nat_icmp_error()), a conntrack helper's rewrite behind NAT
 * (mod_ct_module_mangle()) and, for a rewrite, pulling a chained packet's
 * headers up into its first segment (dp_mbuf_pullup(): a jumbo datagram
 * stays chained) or linearizing one the rewrite needs whole.
 * In router mode ARP/ND frames go to the neighbour module first, and
 * accepted decisions to dp_l3_slow() (dp_l3.c).
 * Also dp_stats_add(), for readers of the counters.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "datapath.h"
#include "dp_l3.h"
#include "dp_pktact.h"
#include "dp_priv.h"

int
dp_mbuf_pullup(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *prev = m, *s;
	uint32_t need;

	if (len <= rte_pktmbuf_data_len(m))
		return 0;
	if (len > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	need = len - rte_pktmbuf_data_len(m);
	if (need > rte_pktmbuf_tailroom(m))
		return -ENOSPC;
	while (need != 0 && (s = prev->next) != NULL) {
		uint16_t n = (uint16_t)RTE_MIN(need, (uint32_t)s->data_len);

		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
			rte_pktmbuf_mtod(s, const uint8_t *), n);
		m->data_len = (uint16_t)(m->data_len + n);
		s->data_off = (uint16_t)(s->data_off + n);
		s->data_len = (uint16_t)(s->data_len - n);
		need -= n;
		if (s->data_len == 0) {
			/* Emptied: out of the chain. */
			prev->next = s->next;
			s->next = NULL;
			m->nb_segs--;
			rte_pktmbuf_free_seg(s);
		} else {
			prev = s;
		}
	}
	if (m->next == NULL)
		m->nb_segs = 1;
	return 0;
}

/* NAT rewrite in the slow path: the headers pulled up, or the packet made one segment. */
int
dp_slow_nat(const struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt, uint32_t slot,
	bool icmp_err)
{
	int rc;

	if (m->nb_segs > 1 && !icmp_err)
		(void)dp_mbuf_pullup(m, dp_nat_hdr_end(m, pkt));
	for (int tries = 0; tries < 2; tries++) {
		uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off);
		uint32_t len = rte_pktmbuf_data_len(m) - pkt->l3_off;

		rc = icmp_err ? mod_nat_icmp_error(c->nat, slot, l3, len) :
				mod_nat_apply(c->nat, slot, l3, len, pkt);
		if (rc == 0 || m->nb_segs == 1 || rte_pktmbuf_linearize(m) != 0)
			break;
	}
	/* A conntrack helper behind NAT: the announced address, the shifted numbers. */
	if (rc == 0 && !icmp_err && c->ct != NULL)
		rc = mod_ct_module_mangle(c->ct, m, pkt);
	return rc;
}

/* The counter of an engine drop; a drop without a reason is the filter's. */
static inline uint64_t *
dp_rule_drop_ctr(struct dp_stats *st, unsigned int drop)
{
	if (drop == RULE_DROP_NONE)
		drop = RULE_DROP_FILTER;
	else if (unlikely(drop >= RULE_DROP__COUNT))
		drop = RULE_DROP_ERROR;
	return &st->rule_drops[drop];
}

/*
 * Router mode: the frames for the neighbour module leave the burst (it
 * consumes them); the rest stay in order. @return packets left in @p m.
 */
static unsigned int
dp_neigh_frames(struct dp_ctx *c, struct rte_mbuf **m, unsigned int n, uint32_t now)
{
	unsigned int left = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct dp_meta *meta = dp_meta(m[i]);

		if (meta->why != DP_UPCALL_NEIGH) {
			m[left++] = m[i];
			continue;
		}
		c->st.neigh_in++;
		mod_neigh_input(c->neigh, m[i], fc_key_in_port(&meta->pkt.key), now);
	}
	return left;
}

/*
 * The engine decides @p n upcalled packets (rule_engine_upcall_burst()) and
 * their decisions are applied through @p b, in order.
 */
static void
dp_engine_burst(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf **m, unsigned int n,
	uint32_t now)
{
	struct rule_upcall up[DP_BURST_MAX];
	struct rule_decision dec[DP_BURST_MAX];
	struct dp_stats *st = &c->st;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct dp_meta *meta = dp_meta(m[i]);

		up[i].pkt = meta->pkt;
		up[i].frame = rte_pktmbuf_mtod(m[i], const uint8_t *);
		up[i].frame_len = rte_pktmbuf_data_len(m[i]);
		/* A chained packet (a jumbo frame) flat for the walks. */
		if (m[i]->nb_segs > 1 && c->flat != NULL && m[i]->pkt_len <= DP_FLAT_MAX) {
			up[i].frame = rte_pktmbuf_read(m[i], 0, m[i]->pkt_len,
				c->flat + (size_t)i * DP_FLAT_MAX);
			up[i].frame_len = m[i]->pkt_len;
		}
		/* byte counters count the IP datagram, as iptables does */
		up[i].len = meta->pkt.ip_len != 0 ? meta->pkt.ip_len : m[i]->pkt_len;
		up[i].in_port = fc_key_in_port(&meta->pkt.key);
		up[i].reason = meta->why;
	}
	rule_engine_upcall_burst(c->eng, up, n, dec, now);
	for (i = 0; i < n; i++) {
		const struct rule_decision *d = &dec[i];
		const struct rule_pktprog *prog = NULL;

		/* The walk's LOG/NFLOG records go out whatever the verdict. */
		if (d->pkt_prog != 0) {
			prog = rule_engine_pktprog(c->eng, d->pkt_prog);
			dp_pkt_log(c, m[i], &up[i].pkt, prog, d->pkt_list, up[i].in_port,
				d->out_port, (d->flags & RULE_DEC_F_ICMP_ERR) ? RULE_NAT_NONE :
				d->nat_slot);
		}
		if (d->verdict != FC_VERDICT_ACCEPT) {
			(*dp_rule_drop_ctr(st, d->drop))++;
			if (d->reject != RULE_REJECT_NONE)
				dp_reject(c, b, m[i], &up[i].pkt, up[i].in_port, d->reject);
			dp_free_later(b, m[i]);
			continue;
		}
		/* Router mode: dp_l3_slow() rewrites around the router's TTL decrement. */
		if (c->router) {
			dp_l3_slow(c, b, m[i], &up[i].pkt, d, prog, up[i].in_port);
			continue;
		}
		if (d->nat_slot != RULE_NAT_NONE &&
			dp_slow_nat(c, m[i], &up[i].pkt, d->nat_slot,
				(d->flags & RULE_DEC_F_ICMP_ERR) != 0) != 0) {
			st->rule_drops[RULE_DROP_NAT_ERROR]++;
			dp_free_later(b, m[i]);
			continue;
		}
		if (prog != NULL && (prog->rewrite & (1u << d->pkt_list)))
			dp_pkt_rewrite(c, m[i], &up[i].pkt, prog, d->pkt_list,
				dp_pkt_mtu(c, d->out_port, up[i].in_port), DP_RW_ALL, false);
		dp_out(b, m[i], dp_dest(c, d->channel, d->out_port, up[i].in_port));
	}
}

unsigned int
dp_upcall_burst(struct dp_ctx *c, struct rte_mbuf **m, unsigned int n, uint32_t now)
{
	struct dp_burst b;
	unsigned int i, from = 0;

	RTE_ASSERT(n <= DP_BURST_MAX && dp_held(c) == 0);
	if (c->router)
		n = dp_neigh_frames(c, m, n, now);
	if (n == 0)
		return 0;
	b.now = now;
	b.no = b.nu = b.nd = 0;
	/* Nothing goes on an upcall ring from here (dp_hit_behind() takes back
	 * what the fast path's code would upcall): the ring is never read. */
	b.room = DP_BURST_MAX;
	b.in_port = 0;
	c->st.slow_pkts += n;
	/*
	 * up_fast: each packet behind its connection's upcall is tried on the
	 * fast path's code once everything before it is decided (the engine's
	 * packets before it first): their decisions are applied in ring order,
	 * and delivered in it below.
	 */
	for (i = 0; c->up_fast && i < n; i++) {
		struct dp_meta *meta = dp_meta(m[i]);
		struct fc_pkt pkt;

		if (!meta->behind || meta->res != FC_PARSE_OK)
			continue;
		if (i > from)
			dp_engine_burst(c, &b, m + from, i - from, now);
		pkt = meta->pkt;
		from = dp_hit_behind(c, &b, m[i], &pkt) ? i + 1 : i;
	}
	if (n > from)
		dp_engine_burst(c, &b, m + from, n - from, now);
	dp_deliver_burst(c, b.out, b.dest, b.no);
	dp_burst_free(&b);
	if (unlikely(c->lossless))
		c->st.ll_held = dp_held(c);
	return b.no;
}

void
dp_stats_add(struct dp_stats *sum, const struct dp_stats *s)
{
	sum->rx += s->rx;
	sum->rx_bytes += s->rx_bytes;
	for (unsigned int p = 0; p < DP_MAX_PORTS; p++) {
		sum->vlan_rx[p] += s->vlan_rx[p];
		sum->vlan_unknown[p] += s->vlan_unknown[p];
	}
	sum->hits += s->hits;
	sum->misses += s->misses;
	sum->upcalls += s->upcalls;
	sum->upcall_stale += s->upcall_stale;
	sum->upcall_interest += s->upcall_interest;
	sum->upcall_per_packet += s->upcall_per_packet;
	sum->upcall_class += s->upcall_class;
	sum->ct_synack_fast += s->ct_synack_fast;
	sum->ct_ignored_fast += s->ct_ignored_fast;
	sum->upcall_pending += s->upcall_pending;
	sum->upcall_uncounted += s->upcall_uncounted;
	sum->waited += s->waited;
	sum->waiting += s->waiting;
	sum->slow_pkts += s->slow_pkts;
	sum->upcall_fast += s->upcall_fast;
	sum->fwd_pkts += s->fwd_pkts;
	sum->non_ip_pass += s->non_ip_pass;
	sum->hw_classified += s->hw_classified;
	sum->hw_fallback += s->hw_fallback;
	sum->neigh_in += s->neigh_in;
	sum->l3_slow += s->l3_slow;
	sum->held += s->held;
	sum->echo_replies += s->echo_replies;
	sum->local_in += s->local_in;
	sum->icmp_errors += s->icmp_errors;
	sum->icmp_suppressed += s->icmp_suppressed;
	sum->frag_datagrams += s->frag_datagrams;
	sum->frag_made += s->frag_made;
	sum->reject_replies += s->reject_replies;
	sum->reject_suppressed += s->reject_suppressed;
	sum->originated += s->originated;
	sum->log_queued += s->log_queued;
	sum->log_dropped += s->log_dropped;
	sum->rewritten += s->rewritten;
	sum->rewrite_skipped += s->rewrite_skipped;
	for (unsigned int d = 0; d < DP_DROP__COUNT; d++)
		sum->drops[d] += s->drops[d];
	for (unsigned int d = 0; d < RULE_DROP__COUNT; d++)
		sum->rule_drops[d] += s->rule_drops[d];
	for (unsigned int d = 0; d < FC_PARSE__COUNT; d++)
		sum->parse_drops[d] += s->parse_drops[d];
	sum->ll_held += s->ll_held;
	sum->ll_bursts += s->ll_bursts;
	sum->up_rings += s->up_rings;
	sum->up_stashed += s->up_stashed;
	sum->kept += s->kept;
	sum->kept_idle += s->kept_idle;
}
