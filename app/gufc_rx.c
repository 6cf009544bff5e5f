/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_rx.c — the RX lcore's fast path, a list of early exits per burst:
 *
 *   1. rte_eth_rx_burst; fc_parse_burst (prefetching); fc_locals_mark_burst;
 *      hash the keys of each family;
 *   2. fc_table_lookup_bulk on the IPv4 and IPv6 tables;
 *   3. per hit: stale (rule set changed underneath)? interesting to a module
 *      (conntrack wants SYN/FIN/RST)? -> upcall; else the cached verdict, the
 *      NAT rewrite, fc_table_touch and the counters;
 *   4. group by channel, one chan_enqueue_burst per channel.
 *
 * With --offload, step 0 comes first: a packet the NIC (or the software NIC
 * model) marked names its flow entry, and when the mark is live and the
 * entry's action current, plain ACCEPT and not interested in this packet,
 * the packet skips parse, hash and lookup (marked_burst()).
 *
 * Misses, stale or interesting hits and fragments go to the rules lcore on
 * this lcore's SPSC upcall ring, the parse result riding in the mbuf's
 * private area (struct gufc_meta). Parse errors are dropped under the
 * parser's own reason. No locks, allocation, syscalls or stdio; one
 * quiescent report per table per loop.
 */

#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "gufc.h"

/*
 * Hand one group of packets to channel @p ch. An RX lcore with a TX queue
 * of its own on the channel's port transmits a TX channel itself (no ring
 * hop, no second core); everything else goes through the channel's ring.
 */
static inline void
deliver_group(struct gufc_app *app, struct gufc_stats *st, uint16_t producer, uint16_t ch,
	struct rte_mbuf **m, unsigned int n)
{
	const struct gufc_lcore *lc = producer < app->n_rx ? app->rx[producer] : NULL;
	uint16_t port;
	uint64_t bytes = 0;
	unsigned int sent = 0;
	int16_t q;

	if (lc == NULL || !lc->direct_tx ||
		(port = __atomic_load_n(&app->chan_txport[ch], __ATOMIC_RELAXED)) == UINT16_MAX ||
		(q = lc->direct_txq[port & (GUFC_MAX_PORTS - 1)]) < 0) {
		chan_enqueue_burst(app->chans, ch, producer, m, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	for (int tries = 0; tries < 4 && sent < n; tries++)
		sent += rte_eth_tx_burst(port, (uint16_t)q, &m[sent], (uint16_t)(n - sent));
	chan_inline_account(app->chans, ch, producer, n, bytes);
	st->tx_pkts += sent;
	if (unlikely(sent < n)) {
		st->drops[GUFC_DROP_TX_FULL] += n - sent;
		rte_pktmbuf_free_bulk(&m[sent], n - sent);
	}
}

void
gufc_deliver(struct gufc_app *app, struct gufc_stats *st, uint16_t producer, struct rte_mbuf **m,
	const uint16_t *dest, unsigned int n)
{
	struct rte_mbuf *grp[GUFC_BURST_MAX];
	unsigned int i;
	unsigned int j;

	if (n == 0)
		return;
	st->fwd_pkts += n;
	/* Common case: the whole burst goes to one channel. */
	for (i = 1; i < n && dest[i] == dest[0]; i++)
		;
	if (i == n) {
		deliver_group(app, st, producer, dest[0], m, n);
		return;
	}
	/* Otherwise one hand-over per distinct channel, in order of first appearance. */
	{
		uint64_t left = (n == 64) ? UINT64_MAX : ((1ull << n) - 1);

		while (left != 0) {
			unsigned int first = (unsigned int)__builtin_ctzll(left);
			uint16_t ch = dest[first];
			unsigned int k = 0;

			for (j = first; j < n; j++) {
				if ((left & (1ull << j)) && dest[j] == ch) {
					grp[k++] = m[j];
					left &= ~(1ull << j);
				}
			}
			deliver_group(app, st, producer, ch, grp, k);
		}
	}
}

static inline void
drop_one(struct gufc_stats *st, struct rte_mbuf **dropped, unsigned int *nd, struct rte_mbuf *m,
	unsigned int reason)
{
	st->drops[reason]++;
	dropped[(*nd)++] = m;
}

static inline void
upcall_one(struct rte_mbuf **up, unsigned int *nu, struct rte_mbuf *m, const struct fc_pkt *pkt,
	uint8_t res, uint8_t why)
{
	struct gufc_meta *meta = gufc_meta(m);

	meta->pkt = *pkt;
	meta->res = res;
	meta->why = why;
	up[(*nu)++] = m;
}

/* Step 2 and 3 for one family's keys: lookup, then the cached actions. */
static void
apply_family(struct gufc_lcore *lc, struct fc_table *t, uint16_t in_port, struct rte_mbuf **m,
	struct fc_pkt *pkts, const unsigned int *sel, const void *const *keys, unsigned int nk,
	uint32_t now, struct rte_mbuf **out, uint16_t *dest, unsigned int *no, struct rte_mbuf **up,
	unsigned int *nu, struct rte_mbuf **dropped, unsigned int *nd)
{
	struct gufc_app *app = lc->app;
	struct gufc_stats *st = &lc->st;
	struct fc_action acts[GUFC_BURST_MAX];
	uint32_t sigs[GUFC_BURST_MAX];
	uint32_t idx[GUFC_BURST_MAX];
	uint64_t hit_mask = 0;
	unsigned int j;

	if (nk == 0)
		return;
	fc_table_hash_bulk(t, keys, sigs, nk);
	fc_table_lookup_bulk(t, lc->rx_index, keys, sigs, nk, &hit_mask, acts, idx);

	for (j = 0; j < nk; j++) {
		unsigned int i = sel[j];
		struct rte_mbuf *mb = m[i];
		struct fc_pkt *pkt = &pkts[i];
		const struct fc_action *a = &acts[j];

		if (!(hit_mask & (1ull << j))) {
			st->misses++;
			upcall_one(up, nu, mb, pkt, FC_PARSE_OK, RULE_UPCALL_MISS);
			continue;
		}
		st->hits++;
		if (unlikely(a->verdict == FC_VERDICT_SLOW)) {
			upcall_one(up, nu, mb, pkt, FC_PARSE_OK, RULE_UPCALL_MISS);
			continue;
		}
		if (unlikely(rule_engine_stale(app->eng, a, &pkt->key))) {
			st->upcall_stale++;
			upcall_one(up, nu, mb, pkt, FC_PARSE_OK, RULE_UPCALL_STALE);
			continue;
		}
		if (rule_engine_wants(a, pkt)) {
			st->upcall_interest++;
			upcall_one(up, nu, mb, pkt, FC_PARSE_OK, RULE_UPCALL_INTEREST);
			continue;
		}
		if (a->verdict != FC_VERDICT_ACCEPT) {
			fc_table_touch(t, idx[j], mb->pkt_len, now);
			drop_one(st, dropped, nd, mb, GUFC_DROP_FILTER);
			continue;
		}
		if (a->flags & FC_ACT_F_NAT) {
			uint8_t *l3 = rte_pktmbuf_mtod_offset(mb, uint8_t *, pkt->l3_off);
			uint32_t l3_len = rte_pktmbuf_data_len(mb) - pkt->l3_off;
			int rc = mod_nat_apply(app->nat, a->nat_id, l3, l3_len, pkt);

			if (unlikely(rc != 0)) {
				/* Chained or SCTP: the rules lcore linearizes and retries
				 * (an upcall of a cached flow gets the cached decision). */
				if (rc == -ENOTSUP || mb->nb_segs > 1)
					upcall_one(up, nu, mb, pkt, FC_PARSE_OK, RULE_UPCALL_MISS);
				else
					drop_one(st, dropped, nd, mb, GUFC_DROP_NAT_ERROR);
				continue;
			}
		}
		fc_table_touch(t, idx[j], mb->pkt_len, now);
		out[*no] = mb;
		dest[(*no)++] = gufc_dest(app, a->channel, a->out_port, in_port);
	}
}

/*
 * Would the entry's interest mask select this packet (rule_engine_wants())?
 * Without a parse the TCP flags are peeked at their fixed place: the NIC
 * matched an untagged Ethernet frame with an IPv4 header (any IHL, not a
 * fragment) or an IPv6 header without extension header. Anything that does
 * not look like that counts as wanted: the software path decides.
 */
static inline bool
marked_wants(const struct fc_action *a, const struct rte_mbuf *mb)
{
	const uint8_t *p = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(mb);
	uint32_t l4;
	uint8_t proto;
	struct fc_pkt pk;

	if (likely(a->interest == 0))
		return false;
	if (a->interest & FC_INTEREST_ALL || len < RTE_ETHER_HDR_LEN + 40)
		return true;
	if (p[12] == 0x08 && p[13] == 0x00) {
		l4 = RTE_ETHER_HDR_LEN + (uint32_t)(p[14] & 0x0f) * 4;
		proto = p[RTE_ETHER_HDR_LEN + 9];
	} else if (p[12] == 0x86 && p[13] == 0xdd) {
		l4 = RTE_ETHER_HDR_LEN + 40;
		proto = p[RTE_ETHER_HDR_LEN + 6];
	} else {
		return true;
	}
	pk.tcp_flags = 0;
	if (proto == IPPROTO_TCP) {
		if (len < l4 + 14)
			return true;
		pk.tcp_flags = p[l4 + 13];
	}
	return rule_engine_wants(a, &pk);
}

/*
 * Step 0 (offload): take the marked packets whose entry decides them alone
 * (see ofl_mark_check() for why a live mark is enough: no key compare);
 * compact the others in @p m, in order, for the software path. Two passes,
 * so the burst's live[] words and entry lines are fetched all at once
 * rather than one miss after the other.
 * @return packets left in @p m.
 */
static unsigned int
marked_burst(struct gufc_lcore *lc, const struct ofl_marks *mk, uint16_t in_port,
	struct rte_mbuf **m, unsigned int n, uint32_t now, struct rte_mbuf **out, uint16_t *dest,
	unsigned int *no)
{
	struct gufc_app *app = lc->app;
	struct gufc_stats *st = &lc->st;
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)app->eng;
	uint32_t gen = __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE);
	uint32_t marks[GUFC_BURST_MAX];
	uint64_t marked = 0;
	unsigned int left = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t mark, ix;
		unsigned int f;

		if (!ofl_mbuf_mark(m[i], &mark))
			continue;
		marks[i] = mark;
		marked |= UINT64_C(1) << i;
		ofl_mark_split(mark, &f, &ix);
		if (ix < mk->cap[f]) {
			const struct fc_entry *e = fc_table_slot(f ? app->tab6 : app->tab4, ix);

			rte_prefetch0(&mk->live[f][ix]);
			if (e != NULL)
				rte_prefetch0(e);
		}
	}
	if (marked == 0)
		return n;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *mb = m[i];
		struct fc_table *t;
		struct fc_action a;
		unsigned int fam;
		uint32_t idx;

		if (!(marked & (UINT64_C(1) << i))) {
			m[left++] = mb;
			continue;
		}
		if (unlikely(!ofl_mark_check(mk, marks[i], &fam, &idx))) {
			st->hw_fallback++;
			m[left++] = mb;
			continue;
		}
		t = fam ? app->tab6 : app->tab4;
		if (unlikely(!ofl_entry_read(t, idx, &a) || a.gen != gen ||
			    a.verdict != FC_VERDICT_ACCEPT || (a.flags & FC_ACT_F_NAT) ||
			    marked_wants(&a, mb))) {
			st->hw_fallback++;
			m[left++] = mb;
			continue;
		}
		st->hw_classified++;
		st->rx_bytes += mb->pkt_len;
		fc_table_touch(t, idx, mb->pkt_len, now);
		out[*no] = mb;
		dest[(*no)++] = gufc_dest(app, a.channel, a.out_port, in_port);
	}
	return left;
}

static void
rx_burst_process(struct gufc_lcore *lc, uint16_t port, struct rte_mbuf **m, unsigned int n,
	uint32_t now)
{
	struct gufc_app *app = lc->app;
	struct gufc_stats *st = &lc->st;
	struct fc_pkt pkts[GUFC_BURST_MAX];
	uint8_t res[GUFC_BURST_MAX];
	const void *k4[GUFC_BURST_MAX];
	const void *k6[GUFC_BURST_MAX];
	unsigned int s4[GUFC_BURST_MAX];
	unsigned int s6[GUFC_BURST_MAX];
	struct rte_mbuf *out[GUFC_BURST_MAX];
	uint16_t dest[GUFC_BURST_MAX];
	struct rte_mbuf *up[GUFC_BURST_MAX];
	struct rte_mbuf *dropped[GUFC_BURST_MAX];
	unsigned int n4 = 0, n6 = 0, no = 0, nu = 0, nd = 0;
	unsigned int i;

	if (app->ofl_marks != NULL)
		n = marked_burst(lc, app->ofl_marks, port, m, n, now, out, dest, &no);
	fc_parse_burst(m, n, pkts, res);
	fc_locals_mark_burst(app->locals, pkts, n);

	for (i = 0; i < n; i++) {
		st->rx_bytes += m[i]->pkt_len;
		switch (res[i]) {
		case FC_PARSE_OK:
			if (pkts[i].key.family == FC_AF_INET4) {
				s4[n4] = i;
				k4[n4++] = &pkts[i].key.v4;
			} else {
				s6[n6] = i;
				k6[n6++] = &pkts[i].key.v6;
			}
			break;
		case FC_PARSE_FRAG_FIRST:
		case FC_PARSE_FRAG_LATER:
			if (app->cfg.set.fragments == GUFC_FRAG_DROP)
				drop_one(st, dropped, &nd, m[i], GUFC_DROP_FRAGMENT);
			else
				upcall_one(up, &nu, m[i], &pkts[i], res[i], RULE_UPCALL_MISS);
			break;
		case FC_PARSE_NOT_IP:
			if (app->cfg.set.non_ip == GUFC_NONIP_DROP) {
				drop_one(st, dropped, &nd, m[i], GUFC_DROP_NON_IP);
			} else {
				st->non_ip_pass++;
				out[no] = m[i];
				dest[no++] = app->def_chan[port & (GUFC_MAX_PORTS - 1)];
			}
			break;
		default:
			drop_one(st, dropped, &nd, m[i], GUFC_DROP_PARSE_RES(res[i]));
			break;
		}
	}

	apply_family(lc, app->tab4, port, m, pkts, s4, k4, n4, now, out, dest, &no, up, &nu,
		dropped, &nd);
	apply_family(lc, app->tab6, port, m, pkts, s6, k6, n6, now, out, dest, &no, up, &nu,
		dropped, &nd);

	gufc_deliver(app, st, (uint16_t)lc->rx_index, out, dest, no);
	if (nu != 0) {
		unsigned int sent = rte_ring_sp_enqueue_burst(lc->upcall, (void **)up, nu, NULL);

		st->upcalls += sent;
		if (unlikely(sent < nu)) {
			st->drops[GUFC_DROP_UPCALL_FULL] += nu - sent;
			rte_pktmbuf_free_bulk(&up[sent], nu - sent);
		}
	}
	if (nd != 0)
		rte_pktmbuf_free_bulk(dropped, nd);
}

unsigned int
gufc_rx_poll(struct gufc_lcore *lc, uint32_t now)
{
	struct gufc_app *app = lc->app;
	struct rte_mbuf *m[GUFC_BURST_MAX];
	uint16_t burst = (uint16_t)app->cfg.set.burst;
	unsigned int total = 0;

	for (unsigned int q = 0; q < lc->n_rxq; q++) {
		const struct gufc_rxq *rq = &lc->rxq[q];
		uint16_t n = rte_eth_rx_burst(rq->port, rq->queue, m, burst);

		if (n == 0)
			continue;
		lc->st.rx += n;
		total += n;
		rx_burst_process(lc, rq->port, m, n, now);
	}
	if (total != 0)
		lc->st.last_rx_tsc = rte_get_tsc_cycles();
	rule_engine_quiescent(app->eng, lc->rx_index);
	return total;
}
