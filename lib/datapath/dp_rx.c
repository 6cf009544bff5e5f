/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_rx.c — the fast path, dp_rx_burst(): steps 0-4 of
 * datapath.h as a list of early exits per burst (step 0, the NIC-marked
 * packets, is dp_marked.c's; in router mode with the checks and rewrite
 * of dp_l3.h around NAT, and ARP/ND frames sent to the neighbour module);
 * delivery, which every path shares, is dp_deliver.c's. A hit's
 * step 3 (dp_hit()) also decides, on the slow path, a packet that went up
 * behind its connection's upcall once its entry exists (dp_hit_behind()).
 *
 * Hot loop rules: no locks, allocation, syscalls or stdio; the burst's
 * outcomes are collected in a struct dp_burst on the stack and handed on in
 * bulk at the end (delivery, one upcall ring enqueue, one free).
 */

#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "datapath.h"
#include "dp_l3.h"
#include "dp_pktact.h"
#include "dp_priv.h"

static inline void
dp_drop(struct dp_burst *b, uint64_t *ctr, struct rte_mbuf *m)
{
	(*ctr)++;
	dp_free_later(b, m);
}

static inline void
dp_upcall(struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *pkt, uint8_t res,
	uint8_t why)
{
	struct dp_meta *meta = dp_meta(m);

	meta->pkt = *pkt;
	meta->res = res;
	meta->why = why;
	meta->pend = 0;
	meta->behind = 0;
	b->up[b->nu++] = m;
}

/*
 * Room on the upcall ring for this burst's upcalls: read once, at its
 * first upcall (a burst of hits never reads the ring's lines, which the
 * rules lcore writes). A lossless context holds what does not fit, so it
 * has room for the whole burst. The rules lcore only makes room, so an
 * upcall refused here found the ring full when the burst's upcalls began
 * (what it frees meanwhile goes to the next burst).
 */
static inline unsigned int
dp_upcall_room(struct dp_ctx *c, struct dp_burst *b)
{
	if (b->room == DP_ROOM_UNREAD) {
		if (c->lossless) {
			b->room = DP_BURST_MAX;
		} else if (dp_batching(c)) {
			/* What the last read left is enough unless the ring is
			 * nearly full: then it is read again. */
			struct dp_upstash *u = &c->ups;

			if (u->free < (uint32_t)u->n + DP_BURST_MAX)
				u->free = rte_ring_free_count(c->upcall);
			b->room = u->free > u->n ? u->free - u->n : 0;
		} else {
			b->room = rte_ring_free_count(c->upcall);
		}
	}
	return b->room > b->nu ? b->room - b->nu : 0;
}

/*
 * Upcall a parsed packet of connection @p conn (0: not hashed yet) and
 * count it pending, so the connection's next packets follow it. With no
 * room on the upcall ring it is dropped (upcall_full) at once: no meta
 * data written, nothing counted pending and taken back.
 */
static inline void
dp_upcall_conn(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *pkt,
	uint8_t why, uint64_t conn)
{
	struct dp_meta *meta;

	if (unlikely(dp_upcall_room(c, b) == 0)) {
		dp_drop(b, &c->st.drops[DP_DROP_UPCALL_FULL], m);
		return;
	}
	dp_upcall(b, m, pkt, FC_PARSE_OK, why);
	if (c->pend == NULL)
		return;
	if (conn == 0)
		conn = dp_conn_hash(&pkt->key);
	if (dp_pending_add(c->pend, conn, &pkt->key)) {
		meta = dp_meta(m);
		meta->conn = conn;
		meta->pend = 1;
	} else {
		c->st.upcall_uncounted++;
	}
}

/*
 * Upcall packet @p m of connection @p conn behind an upcall of its
 * connection in flight (counted upcall_pending), marked so: the slow path
 * may find its entry made by then (struct dp_ctx::up_fast).
 */
static inline void
dp_upcall_behind(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m,
	const struct fc_pkt *pkt, uint64_t conn)
{
	unsigned int nu = b->nu;

	c->st.upcall_pending++;
	dp_upcall_conn(c, b, m, pkt, RULE_UPCALL_MISS, conn);
	if (b->nu != nu)
		dp_meta(m)->behind = 1;
}

/*
 * Does packet @p m of connection @p conn wait behind its connection (an
 * upcall in flight, or packets already waiting)? Then it waits in the
 * connection's queue, or, with no room, goes up behind the upcall (when
 * nothing of it waits yet: the ring keeps the order) or is dropped as
 * pending_full. A packet of an established flow (@p est: it hit an entry
 * not FC_ACT_F_EARLY) may take the pool's reserve, new flows' may not.
 * While dp_done_poll() runs a connection's packets again, only an upcall
 * of this run holds the rest back: they go up behind it.
 * @return true when the packet was taken care of.
 */
static bool
dp_behind(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *m, const struct fc_pkt *pkt,
	uint64_t conn, bool est)
{
	struct dp_pending *p = c->pend;
	struct dp_pending_slot *s = dp_pending_find(p, conn);
	struct dp_stats *st = &c->st;

	if (s == NULL)
		return false;
	if (unlikely(p->reinject)) {
		/* A run of waiting packets: behind an upcall of the run itself
		 * (its entry did not help: refused, uncached), the rest goes up
		 * behind it rather than one round trip each. */
		if (s->count == 0)
			return false;
		dp_upcall_behind(c, b, m, pkt, conn);
		return true;
	}
	if (s->count == 0 && s->nwait == 0)
		return false;
	if (likely(c->pend_wait && (est || p->wait_free > p->wait_reserve) &&
		    dp_pending_wait(p, s, m, b->in_port))) {
		/* Its parse and connection kept for its second pass, in its
		 * meta data (unused while it waits): dp_rx_prep_again(). */
		struct dp_meta *meta = dp_meta(m);

		meta->pkt = *pkt;
		meta->conn = conn;
		st->waited++;
		st->waiting++;
		return true;
	}
	if (s->nwait == 0) {
		dp_upcall_behind(c, b, m, pkt, conn);
		return true;
	}
	dp_drop(b, &st->drops[DP_DROP_PENDING_FULL], m);
	return true;
}

/*
 * Router mode, after NAT: the delivery dp_l3_way() chose. An echo request
 * to us becomes its reply, in place, back out of its input port. @p late:
 * a program with late rewrites in list @p list (rule_pktop::late), applied
 * after the TTL decrement (@p rewritten: the early ones changed the packet).
 */
static inline void
dp_l3_fast_out(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *mb,
	const struct fc_pkt *pkt, uint32_t ch, enum dp_l3_way way,
	const struct mod_neigh_adj *adj, const struct rule_pktprog *late, unsigned int list,
	bool rewritten)
{
	if (likely(way == DP_L3_OUT)) {
		dp_l3_forward(mb, pkt, adj);
		if (unlikely(late != NULL))
			dp_pkt_rewrite(c, mb, pkt, late, list, adj->mtu, DP_RW_LATE, rewritten);
		dp_out(b, mb, dp_dest(c, ch, adj->port, b->in_port));
		return;
	}
	/* (dp_l3_way() checked that the reply can be made in place) */
	if (way == DP_L3_ECHO && ch == CHAN_ID_DEFAULT &&
		dp_l3_echo_reply(mb, pkt, NULL) == 0) {
		c->st.echo_replies++;
		dp_out(b, mb, dp_dest(c, CHAN_ID_DEFAULT, b->in_port, b->in_port));
		return;
	}
	c->st.local_in++;
	dp_out(b, mb, ch != CHAN_ID_DEFAULT ? ch : c->local_chan);
}

/* Router mode: an ICMPv6 neighbour discovery message, for the neighbour module? */
static inline bool
dp_is_nd(const struct dp_ctx *c, const struct fc_pkt *p)
{
	return c->router && p->key.v6.proto == IPPROTO_ICMPV6 && p->icmp_type >= 133 &&
		p->icmp_type <= 137 && p->n_vlan == 0;
}

/* Router mode: an untagged ARP frame? */
static inline bool
dp_is_arp(const struct dp_ctx *c, const struct rte_mbuf *m)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);

	return c->router && rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN && e[12] == 0x08 &&
		e[13] == 0x06;
}

/*
 * A UDP-Lite datagram of an entry with FC_INTEREST_UDPLITE whose header
 * conntrack would find invalid (fc_udplite_ok()). A header outside the
 * first segment fails too: the slow path reads it. Out of line: rare.
 */
static __rte_noinline bool
dp_udplite_bad(const struct rte_mbuf *mb, const struct fc_pkt *pkt)
{
	const uint32_t l4 = pkt->l4_off, end = (uint32_t)pkt->l3_off + pkt->ip_len;

	if (fc_key_proto(&pkt->key) != IPPROTO_UDPLITE || l4 == 0 || pkt->frag == FC_FRAG_LATER)
		return false;
	if (l4 + 8 > rte_pktmbuf_data_len(mb) || l4 + 8 > end)
		return true;
	return !fc_udplite_ok(rte_pktmbuf_mtod_offset(mb, const uint8_t *, l4), end - l4,
		pkt->frag == FC_FRAG_NONE);
}

/*
 * An SCTP packet of an entry with FC_INTEREST_SCTP that the conntrack
 * module's check (mod_ct_sctp_fast_check(): the association's tag, its CRC32c, chunks
 * that move nothing) cannot vouch for. A fragment, or a datagram beyond
 * the first segment, fails too: the slow path reads it. Out of line: not
 * every hit is SCTP's.
 */
static __rte_noinline bool
dp_sctp_bad(const struct dp_ctx *c, const struct fc_action *a, const struct rte_mbuf *mb,
	const struct fc_pkt *pkt)
{
	const uint32_t l4 = pkt->l4_off, end = (uint32_t)pkt->l3_off + pkt->ip_len;

	if (fc_key_proto(&pkt->key) != IPPROTO_SCTP || l4 == 0 || pkt->frag != FC_FRAG_NONE ||
		end > rte_pktmbuf_data_len(mb) || l4 > end)
		return true;
	return !mod_ct_sctp_fast_check(c->ct_fast,
		a, rte_pktmbuf_mtod_offset(mb, const uint8_t *, l4), end - l4);
}

/*
 * A SYN of a window-checked entry that wants no SYN as such: a new
 * connection's reply entry whose line is armed for the SYN/ACK (the
 * conntrack module's interest for it). Conntrack takes the handshake's
 * second step on line @p ctl (mod_ct_fast_synack(), which searches
 * options beyond a timestamp for SACK blocks in the first segment, or
 * takes only plain ones) and the SYN/ACK passes with the entry's verdict,
 * counted; or it goes up. Out of line: once per connection. @return true
 * (MOD_CT_FAST_PASS: it renews the idle time) if taken.
 */
static __rte_noinline bool
dp_ct_synack(struct dp_ctx *c, const struct fc_action *a, const struct rte_mbuf *mb,
	const struct fc_pkt *pkt, struct mod_ct_fast_line *ctl)
{
	const uint8_t *frame = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(mb);

	if (ctl == NULL || !(a->flags & FC_ACT_F_REPLY))
		return false;
	if ((uint32_t)pkt->l4_off + pkt->tcp_hlen > len)
		frame = NULL;
	if (!mod_ct_fast_synack(ctl, pkt, frame, len))
		return false;
	c->st.ct_synack_fast++;
	return true;
}

/* What a hit's modules say of it (dp_hit_wants()). */
enum dp_hit {
	DP_HIT_TAKE = 0,      /* the entry decides it */
	DP_HIT_UP = 1,        /* the slow path's */
	DP_HIT_KEEP_IDLE = 2, /* the entry decides it, its idle time not renewed */
	DP_HIT_UNASKED = 3,   /* (dp_apply_general()'s caller) not asked yet */
};

/*
 * Does a hit go to the slow path for a module's interest: the entry's
 * interest mask selects it (rule_engine_wants()), the conntrack module's
 * window check on connection line @p ctl (the prefetch pass's; a SYN/ACK
 * its step, dp_ct_synack()) or SCTP check cannot vouch for it, or its
 * UDP-Lite header fails? @return DP_HIT_UP if so; DP_HIT_KEEP_IDLE for a
 * segment the window check passes as ignored (MOD_CT_FAST_IGNORED: Linux
 * refreshes no timer for it); else DP_HIT_TAKE.
 */
static __rte_always_inline unsigned int
dp_hit_wants(struct dp_ctx *c, const struct fc_action *a, const struct rte_mbuf *mb,
	const struct fc_pkt *pkt, struct mod_ct_fast_line *ctl)
{
	unsigned int ct = MOD_CT_FAST_PASS;

	if (likely(a->interest == 0))
		return DP_HIT_TAKE;
	if (rule_engine_wants(a, pkt) ||
		((a->interest & FC_INTEREST_TCP_WIN) &&
			(ct = unlikely(pkt->tcp_flags & 0x02)
					? dp_ct_synack(c, a, mb, pkt, ctl)
					: mod_ct_fast_check_line(ctl, a, pkt)) == MOD_CT_FAST_SLOW) ||
		((a->interest & FC_INTEREST_UDPLITE) && dp_udplite_bad(mb, pkt)) ||
		((a->interest & FC_INTEREST_SCTP) && dp_sctp_bad(c, a, mb, pkt)))
		return DP_HIT_UP;
	return unlikely(ct == MOD_CT_FAST_IGNORED) ? DP_HIT_KEEP_IDLE : DP_HIT_TAKE;
}

/*
 * What a hit's general path (dp_apply_general()) looks at beyond interest,
 * the verdict, the channel, the output port and NAT: meters, packet
 * programs, counted limits, header classes, per-flow channels. An action
 * with none of them, in bridge mode, takes the plain path, tested for all
 * of them at once; NAT is the same rewrite on both paths (dp_nat_hit()).
 */
#define DP_ACT_F_GENERAL  (FC_ACT_F_PKTACT | FC_ACT_F_COUNT)
#define DP_ACT_M0_GENERAL (RULE_ACT_M0_CLASSED | RULE_ACT_M0_CHAN_FLOW)

/*
 * A packet mod_nat_apply() refused (error @p rc). A chained mbuf whose
 * headers pass its first segment gets them pulled up into it (a copy into
 * the segment's tailroom, no allocation) and is rewritten here; one that
 * still cannot be, or an SCTP port change of a fragment, goes to the slow
 * path (it linearizes and retries; an upcall of a cached flow gets the
 * cached decision); anything else is dropped as nat_error. @return true when
 * rewritten after all. Out of line: the hits' loop keeps its registers.
 */
static __rte_noinline bool
dp_nat_refused(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *mb,
	const struct fc_pkt *pkt, const struct fc_action *a, uint64_t conn, int rc)
{
	if (rc != -ENOTSUP && mb->nb_segs > 1 &&
		dp_mbuf_pullup(mb, dp_nat_hdr_end(mb, pkt)) == 0 &&
		mod_nat_apply(c->nat, a->nat_id, rte_pktmbuf_mtod_offset(mb, uint8_t *, pkt->l3_off),
			rte_pktmbuf_data_len(mb) - pkt->l3_off, pkt) == 0)
		return true;
	if (rc == -ENOTSUP || mb->nb_segs > 1)
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
	else
		dp_drop(b, &c->st.rule_drops[RULE_DROP_NAT_ERROR], mb);
	return false;
}

/*
 * A translated flow's accepted packet: its rewrite (mod_nat_apply(): the
 * slot's stores and one add per checksum), in line. @return true when
 * rewritten; false when refused (dp_nat_refused() took the packet).
 */
static __rte_always_inline bool
dp_nat_hit(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *mb, const struct fc_pkt *pkt,
	const struct fc_action *a, uint64_t conn)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(mb, uint8_t *, pkt->l3_off);
	int rc = mod_nat_apply(c->nat, a->nat_id, l3, rte_pktmbuf_data_len(mb) - pkt->l3_off, pkt);

	if (likely(rc == 0))
		return true;
	return dp_nat_refused(c, b, mb, pkt, a, conn, rc);
}

/* dp_apply_general()'s count of a hit; one conntrack ignored (@p hw), not its connection's. */
static __rte_always_inline void
dp_touch(struct dp_ctx *c, struct fc_table *t, unsigned int fam, uint32_t idx, uint32_t len,
	uint32_t now, unsigned int hw)
{
	fc_table_touch(t, idx, len, now);
	if (unlikely(hw == DP_HIT_KEEP_IDLE))
		(void)rule_engine_ct_ignored(c->eng, fam, idx, len);
}

static inline bool
dp_act_plain(const struct fc_action *a)
{
	return ((a->flags & DP_ACT_F_GENERAL) | (a->mod[0] & DP_ACT_M0_GENERAL)) == 0;
}

/*
 * A hit's general path, after the checks every hit takes (dp_apply_family()):
 * header classes, interest, counted limits, router mode's checks and
 * rewrite, meters and packet programs, per-flow channels, NAT. @p hw is
 * what dp_hit_wants() said of it when the plain path asked (DP_HIT_TAKE or
 * DP_HIT_KEEP_IDLE), else DP_HIT_UNASKED. Out of line: the plain hits'
 * loop keeps its registers.
 */
static __rte_noinline void
dp_apply_general(struct dp_ctx *c, struct dp_burst *b, struct fc_table *t, unsigned int fam,
	uint32_t idx, struct rte_mbuf *mb, struct fc_pkt *pkt, const struct fc_action *a,
	uint64_t conn, struct mod_neigh_adj *adj, struct mod_ct_fast_line *ctl, unsigned int hw)
{
	struct dp_stats *st = &c->st;
	const bool router = c->router;
	const struct rule_pktprog *prog = NULL;
	unsigned int list = 0;
	enum dp_l3_way way = DP_L3_OUT;
	bool rewritten;
	uint8_t verdict;
	uint32_t ch, now;

	/* Cached for a class of header fields: a packet of another is decided on its own. */
	if (unlikely(a->mod[0] & RULE_ACT_M0_CLASSED) &&
		!rule_engine_class_ok(c->eng, a, pkt, rte_pktmbuf_mtod(mb, const uint8_t *),
			rte_pktmbuf_data_len(mb), mb->nb_segs == 1)) {
		st->upcall_class++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_INTEREST, conn);
		return;
	}
	if (hw == DP_HIT_UNASKED)
		hw = dp_hit_wants(c, a, mb, pkt, ctl);
	/* A segment conntrack ignores leaves the connection's counts as they are
	 * (connbytes): its entry's verdict holds for it. */
	if (hw == DP_HIT_UP ||
		(hw == DP_HIT_TAKE && (a->flags & FC_ACT_F_COUNT) &&
			rule_engine_count_due(c->eng, t, fam, idx, mb->pkt_len))) {
		st->upcall_interest++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_INTEREST, conn);
		return;
	}
	/* A segment conntrack ignores is counted (its connection's counters
	 * leave it out: dp_touch()) and renews no idle time. */
	now = b->now;
	if (unlikely(hw == DP_HIT_KEEP_IDLE)) {
		now = fc_table_last_seen(t, idx);
		st->ct_ignored_fast++;
	}
	/* Router mode: an expired packet of a dropped forwarded flow never met its rule. */
	if (unlikely(router) && a->verdict == FC_VERDICT_DROP && a->out_port != RULE_PORT_LOCAL &&
		dp_l3_expired(mb, pkt)) {
		st->l3_slow++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
		return;
	}
	/*
	 * An entry with a packet program (LOG, rewrites, a meter) runs it: its
	 * meter, if any, picks the list (and may flip the verdict); the
	 * records go out whatever the verdict.
	 */
	if (likely(!(a->flags & FC_ACT_F_PKTACT))) {
		verdict = a->verdict;
	} else {
		prog = rule_engine_pktprog(c->eng, a->pkt_class);
		if (likely(prog->pred == 0)) {
			verdict = rule_engine_pktprog_take(c->eng, a, prog, 0, pkt->ip_len, &list);
		} else if (!dp_pred_take(c, mb, pkt, a, &prog, &verdict, &list)) {
			st->upcall_interest++;
			dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_INTEREST, conn);
			return;
		}
		if (prog != NULL)
			dp_pkt_log(c, mb, pkt, prog, list, b->in_port, a->out_port,
				(a->flags & FC_ACT_F_NAT) ? a->nat_id : RULE_NAT_NONE);
	}
	if (verdict != FC_VERDICT_ACCEPT) {
		dp_touch(c, t, fam, idx, pkt->ip_len, now, hw);
		dp_drop(b, &st->rule_drops[rule_engine_drop_of(a)], mb);
		return;
	}
	/* Its channel; a per-flow channel a moment too new to be published
	 * is the slow path's to deliver (it follows the insert). */
	ch = rule_engine_channel(c->eng, a, fam, idx);
	if (unlikely(ch == RULE_CHAN_NONE)) {
		st->upcall_stale++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
		return;
	}
	if (router) {
		/* Before any rewrite: can it leave by its adjacency? */
		way = dp_l3_way(c, mb, pkt, a->out_port, a->adj, adj);
		/* A PREROUTING TTL/HL rule comes before the expiry check. */
		if (unlikely(prog != NULL) && way == DP_L3_OUT && (prog->rewrite & (1u << list)) &&
			dp_pkt_ttl_early(prog, list, fam == 0,
				rte_pktmbuf_mtod_offset(
					mb, const uint8_t *, pkt->l3_off)[fam == 0 ? 8 : 7]) <= 1)
			way = DP_L3_SLOW;
		if (unlikely(way == DP_L3_SLOW)) {
			st->l3_slow++;
			dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
			return;
		}
		if (unlikely(way == DP_L3_NO_ROUTE)) {
			dp_touch(c, t, fam, idx, pkt->ip_len, now, hw);
			dp_l3_no_route(c, b, mb, pkt, a->out_port, b->in_port);
			return;
		}
	}
	if ((a->flags & FC_ACT_F_NAT) && !dp_nat_hit(c, b, mb, pkt, a, conn))
		return;
	rewritten = false;
	if (unlikely(prog != NULL) && (prog->rewrite & (1u << list)))
		rewritten = dp_pkt_rewrite(c, mb, pkt, prog, list,
			router && way == DP_L3_OUT ? adj->mtu
						   : dp_pkt_mtu(c, a->out_port, b->in_port),
			router && way == DP_L3_OUT ? DP_RW_EARLY : DP_RW_ALL, false);
	dp_touch(c, t, fam, idx, pkt->ip_len, now, hw);
	if (router) {
		/* TTL, HL at FORWARD, POSTROUTING: after the decrement, as Linux. */
		dp_l3_fast_out(c, b, mb, pkt, ch, way, adj,
			unlikely(prog != NULL) && (prog->late & (1u << list)) ? prog : NULL, list,
			rewritten);
		return;
	}
	dp_out(b, mb, dp_dest(c, ch, a->out_port, b->in_port));
}

/*
 * Step 3 for one hit (entry @p idx of table @p t, family @p fam; action
 * @p a a consistent copy; @p ctl its connection's line, if any; @p router
 * c->router, read once per burst): the checks every hit takes, then the
 * plain path or dp_apply_general(). The packet is delivered, dropped or
 * upcalled through @p b. The RX loop's, and dp_hit_behind()'s on the slow
 * path: one code for a hit wherever it is decided.
 */
static __rte_always_inline void
dp_hit(struct dp_ctx *c, struct dp_burst *b, bool router, struct fc_table *t, unsigned int fam,
	uint32_t idx, struct rte_mbuf *mb, struct fc_pkt *pkt, const struct fc_action *a,
	uint64_t conn, struct mod_neigh_adj *adj, struct mod_ct_fast_line *ctl)
{
	struct dp_stats *st = &c->st;

	if (unlikely(a->verdict == FC_VERDICT_SLOW)) {
		st->upcall_per_packet++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
		return;
	}
	if (unlikely(rule_engine_stale(c->eng, a, &pkt->key))) {
		st->upcall_stale++;
		dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_STALE, conn);
		return;
	}
	/*
	 * The plain hit (bridge mode, nothing of DP_ACT_*_GENERAL but NAT):
	 * what dp_apply_general() does for it, in its order, without its
	 * tests (the verdict is the cached one, the channel the action's);
	 * a translated flow's rewrite is the slot's stores and checksum adds.
	 */
	if (likely(!router && dp_act_plain(a))) {
		unsigned int hw = dp_hit_wants(c, a, mb, pkt, ctl);

		if (unlikely(hw != DP_HIT_TAKE)) {
			if (hw == DP_HIT_UP) {
				st->upcall_interest++;
				dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_INTEREST, conn);
				return;
			}
			/* Ignored by conntrack: the general path keeps the idle time. */
			dp_apply_general(c, b, t, fam, idx, mb, pkt, a, conn, adj, NULL, hw);
			return;
		}
		if (a->verdict != FC_VERDICT_ACCEPT) {
			fc_table_touch(t, idx, pkt->ip_len, b->now);
			dp_drop(b, &st->rule_drops[rule_engine_drop_of(a)], mb);
			return;
		}
		if ((a->flags & FC_ACT_F_NAT) && unlikely(!dp_nat_hit(c, b, mb, pkt, a, conn)))
			return;
		fc_table_touch(t, idx, pkt->ip_len, b->now);
		dp_out(b, mb, dp_dest(c, a->channel, a->out_port, b->in_port));
		return;
	}
	dp_apply_general(c, b, t, fam, idx, mb, pkt, a, conn, adj, ctl, DP_HIT_UNASKED);
}

/* Step 2 and 3 for one family's keys (hashed in step 1): lookup, then the cached actions. */
static void
dp_apply_family(struct dp_ctx *c, struct dp_burst *b, struct fc_table *t,
	const struct dp_rxfam *f, struct rte_mbuf **m, struct fc_pkt *pkts)
{
	struct dp_stats *st = &c->st;
	struct fc_action acts[DP_BURST_MAX];
	struct mod_ct_fast_line *ctl[DP_BURST_MAX];
	uint32_t idx[DP_BURST_MAX];
	uint64_t hit_mask = 0, miss;
	unsigned int nk = f->n;
	unsigned int fam = t == c->tab6;
	const bool router = c->router;
	struct mod_neigh_adj adj = { .seq = 0 };

	if (nk == 0)
		return;
	fc_table_lookup_bulk(t, c->reader_id, f->keys, f->sigs, nk, &hit_mask, acts, idx);
	/* The misses that will go up: their meta data lines (written at the
	 * upcall, last read by the rules lcore), fetched for writing for the
	 * burst at once rather than one miss after the other. */
	miss = ~hit_mask & (nk == 64 ? UINT64_MAX : (UINT64_C(1) << nk) - 1);
	if (unlikely(miss != 0)) {
		for (unsigned int room = dp_upcall_room(c, b); miss != 0 && room != 0; room--) {
			uint8_t *mt = (uint8_t *)dp_meta(m[f->sel[__builtin_ctzll(miss)]]);

			__builtin_prefetch(mt, 1, 3);
			__builtin_prefetch(mt + RTE_CACHE_LINE_SIZE, 1, 3);
			miss &= miss - 1;
		}
	}
	/* The window-checked connections' lines (kept for the check) and the
	 * translated flows' rewrite slots, fetched for the whole burst at once
	 * (none without conntrack: no window lines, no NAT). */
	if (c->ct_fast != NULL || c->nat != NULL)
		for (unsigned int j = 0; j < nk; j++) {
			if (!((hit_mask >> j) & 1))
				continue;
			if (acts[j].interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP))
				ctl[j] = mod_ct_fast_prefetch(c->ct_fast, &acts[j]);
			if (acts[j].flags & FC_ACT_F_NAT)
				mod_nat_prefetch(c->nat, acts[j].nat_id);
		}

	for (unsigned int j = 0; j < nk; j++) {
		unsigned int i = f->sel[j];
		struct rte_mbuf *mb = m[i];
		struct fc_pkt *pkt = &pkts[i];
		const struct fc_action *a = &acts[j];
		uint64_t conn = 0;

		/* Behind an upcall of its connection still in flight: wait for it
		 * (the filter's clear bit spares the others the exact check). A
		 * packet that waited has its connection from its first pass. */
		if (c->pend != NULL && c->pend->n != 0) {
			if (unlikely(c->pend->reinject))
				conn = dp_meta(mb)->conn;
			else if (dp_pending_maybe(c->pend, &pkt->key))
				conn = dp_conn_hash(&pkt->key);
			if (conn != 0 &&
			    dp_behind(c, b, mb, pkt, conn,
				    ((hit_mask >> j) & 1) && !(a->flags & FC_ACT_F_EARLY)))
				continue;
		}
		if (!(hit_mask & (UINT64_C(1) << j))) {
			st->misses++;
			dp_upcall_conn(c, b, mb, pkt, RULE_UPCALL_MISS, conn);
			continue;
		}
		st->hits++;
		dp_hit(c, b, router, t, fam, idx[j], mb, pkt, a, conn, &adj,
			c->ct_fast != NULL ? ctl[j] : NULL);
	}
}

/*
 * The slow path's try of a packet behind its connection's upcall
 * (dp_priv.h): the writer's lookup, then dp_hit() as the RX loop runs it.
 * The entry's counters and the connection's line are written as an RX
 * lcore writes them (relaxed stores, conntrack's fast step): while the
 * packet's upcall is not completed its RX context sends the connection's
 * packets up, so no RX lcore serves them meanwhile.
 */
bool
dp_hit_behind(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf *mb, struct fc_pkt *pkt)
{
	struct dp_stats *st = &c->st;
	struct fc_table *t = pkt->key.family == FC_AF_INET4 ? c->tab4 : c->tab6;
	const uint64_t interest = st->upcall_interest, class = st->upcall_class;
	const uint64_t stale = st->upcall_stale, per_packet = st->upcall_per_packet;
	const uint64_t l3_slow = st->l3_slow;
	struct mod_neigh_adj adj = { .seq = 0 };
	struct mod_ct_fast_line *ctl = NULL;
	const struct fc_entry *e;
	struct fc_action a;
	unsigned int nu = b->nu;
	int idx;

	if (t == NULL)
		return false;
	/* The writer's own lookup: no other thread changes the entry meanwhile. */
	idx = fc_table_lookup(t, &pkt->key.v4, fc_table_hash(t, &pkt->key.v4));
	if (idx < 0 || (e = fc_table_entry(t, (uint32_t)idx)) == NULL)
		return false;
	a = e->act;
	if (a.interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP))
		ctl = mod_ct_fast_line_of(c->ct_fast, &a);
	b->in_port = fc_key_in_port(&pkt->key);
	dp_hit(c, b, c->router, t, t == c->tab6, (uint32_t)idx, mb, pkt, &a, 0, &adj, ctl);
	if (likely(b->nu == nu)) {
		st->upcall_fast++;
		return true;
	}
	/* The fast path would have sent it up: the engine's, counted once
	 * (upcall_pending, by its RX context) and in its place. */
	b->nu = nu;
	st->upcall_interest = interest;
	st->upcall_class = class;
	st->upcall_stale = stale;
	st->upcall_per_packet = per_packet;
	st->l3_slow = l3_slow;
	return false;
}

/*
 * Step 1 of burst @p p (its m, n, in_port and now set): parse, the input
 * port (part of the key, and the local bits read it: a local source is
 * this host's on a host port only), the local bits, each family's keys
 * hashed and, @p ahead (kept for the next poll), their first buckets
 * fetched; the packets of neither family marked in p->other. Nothing of a
 * packet's fate is decided here: a kept burst is decided when applied.
 */
static __rte_always_inline void
dp_rx_prep(struct dp_ctx *c, struct dp_rxprep *p, bool fresh, bool ahead)
{
	struct rte_mbuf **m = p->m;
	struct dp_rxfam *f4 = &p->fam[0], *f6 = &p->fam[1];
	struct fc_pkt *pkts = p->pkts;
	const unsigned int n = p->n;
	uint64_t rx_bytes = 0, other = 0;
	unsigned int i;

	fc_parse_burst(m, n, pkts, p->res);
	for (i = 0; i < n; i++)
		fc_key_set_in_port(&pkts[i].key, p->in_port);
	fc_locals_mark_burst(c->locals, pkts, n);
	f4->n = 0;
	f6->n = 0;
	for (i = 0; i < n; i++) {
		if (fresh)
			rx_bytes += m[i]->pkt_len;
		/* The common packet first. */
		if (likely(p->res[i] == FC_PARSE_OK && pkts[i].key.family == FC_AF_INET4)) {
			f4->sel[f4->n] = i;
			f4->keys[f4->n++] = &pkts[i].key.v4;
		} else if (p->res[i] == FC_PARSE_OK && likely(!dp_is_nd(c, &pkts[i]))) {
			f6->sel[f6->n] = i;
			f6->keys[f6->n++] = &pkts[i].key.v6;
		} else {
			other |= UINT64_C(1) << i;
		}
	}
	p->other = other;
	p->raw = 0;
	if (fresh)
		c->st.rx_bytes += rx_bytes;
	if (f4->n != 0) {
		fc_table_hash_bulk(c->tab4, f4->keys, f4->sigs, f4->n);
		if (ahead)
			fc_table_prefetch_buckets(c->tab4, f4->sigs, f4->n);
	}
	if (f6->n != 0) {
		fc_table_hash_bulk(c->tab6, f6->keys, f6->sigs, f6->n);
		if (ahead)
			fc_table_prefetch_buckets(c->tab6, f6->sigs, f6->n);
	}
}

/*
 * Step 1 for packets that waited behind their connection's upcall
 * (dp_rx_reinject(), from one input port): their parse is the first
 * pass's, kept in their meta data when they began to wait (dp_behind():
 * parsed whole, of either family and no ND message, input port and local
 * bits set: the local bits as they were then), so only the keys are
 * hashed again. Saves the parse, the port and local bits, and the
 * connection hash (dp_apply_family()) a packet.
 */
static __rte_always_inline void
dp_rx_prep_again(struct dp_ctx *c, struct dp_rxprep *p)
{
	struct rte_mbuf **m = p->m;
	struct dp_rxfam *f4 = &p->fam[0], *f6 = &p->fam[1];
	struct fc_pkt *pkts = p->pkts;
	const unsigned int n = p->n;

	f4->n = 0;
	f6->n = 0;
	for (unsigned int i = 0; i < n; i++) {
		pkts[i] = dp_meta(m[i])->pkt;
		RTE_ASSERT(fc_key_in_port(&pkts[i].key) == p->in_port);
		if (likely(pkts[i].key.family == FC_AF_INET4)) {
			f4->sel[f4->n] = i;
			f4->keys[f4->n++] = &pkts[i].key.v4;
		} else {
			f6->sel[f6->n] = i;
			f6->keys[f6->n++] = &pkts[i].key.v6;
		}
	}
	p->other = 0;
	p->raw = 0;
	if (f4->n != 0)
		fc_table_hash_bulk(c->tab4, f4->keys, f4->sigs, f4->n);
	if (f6->n != 0)
		fc_table_hash_bulk(c->tab6, f6->keys, f6->sigs, f6->n);
}

/*
 * Steps 2-4 of burst @p p (and first, when raw, steps 0 and 1): the
 * packets of neither family, then each family's lookups and actions,
 * then delivery, upcalls and frees. @return packets handed to channels.
 */
static __rte_always_inline unsigned int
dp_rx_apply(struct dp_ctx *c, struct dp_rxprep *p, bool fresh)
{
	struct dp_stats *st = &c->st;
	struct rte_mbuf **m = p->m;
	struct fc_pkt *pkts = p->pkts;
	struct dp_burst b;

	RTE_ASSERT(p->n <= DP_BURST_MAX && dp_held(c) == 0);
	b.in_port = p->in_port;
	b.now = p->now;
	b.no = b.nu = b.nd = 0;
	b.room = DP_ROOM_UNREAD;
	if (p->raw) {
		if (c->marks != NULL && fresh)
			p->n = dp_marked(c, &b, m, p->n);
		if (likely(p->n != 0)) {
			dp_rx_prep(c, p, fresh, false);
		} else {
			/* Every packet marked and taken: nothing to parse or look up. */
			p->other = 0;
			p->raw = 0;
			p->fam[0].n = 0;
			p->fam[1].n = 0;
		}
	}
	for (uint64_t o = p->other; o != 0; o &= o - 1) {
		unsigned int i = (unsigned int)__builtin_ctzll(o);

		switch (p->res[i]) {
		case FC_PARSE_OK: /* (of neither family: an ND message) */
			dp_upcall(&b, m[i], &pkts[i], p->res[i], DP_UPCALL_NEIGH);
			break;
		case FC_PARSE_FRAG_FIRST:
		case FC_PARSE_FRAG_LATER:
			if (c->frag_mode == DP_FRAG_DROP)
				dp_drop(&b, &st->drops[DP_DROP_FRAGMENT], m[i]);
			else
				dp_upcall(&b, m[i], &pkts[i], p->res[i], RULE_UPCALL_MISS);
			break;
		case FC_PARSE_NOT_IP:
			if (dp_is_arp(c, m[i])) {
				dp_upcall(&b, m[i], &pkts[i], p->res[i], DP_UPCALL_NEIGH);
			} else if (c->non_ip_mode == DP_NONIP_DROP) {
				dp_drop(&b, &st->drops[DP_DROP_NON_IP], m[i]);
			} else {
				st->non_ip_pass++;
				dp_out(&b, m[i], c->def_chan[p->in_port & (DP_MAX_PORTS - 1)]);
			}
			break;
		default:
			dp_drop(&b, &st->parse_drops[p->res[i]], m[i]);
			break;
		}
	}

	/* Asked here, not in the callee: an empty family costs no call. */
	if (p->fam[0].n != 0)
		dp_apply_family(c, &b, c->tab4, &p->fam[0], m, pkts);
	if (p->fam[1].n != 0)
		dp_apply_family(c, &b, c->tab6, &p->fam[1], m, pkts);

	dp_deliver_burst(c, b.out, b.dest, b.no);
	dp_upcall_put(c, b.up, b.nu);
	dp_burst_free(&b);
	if (unlikely(c->lossless))
		c->st.ll_held = dp_held(c);
	return b.no;
}

/* The kept burst, applied (by the next burst's call, or flushed). */
static unsigned int
dp_rx_apply_kept(struct dp_ctx *c)
{
	struct dp_rxprep *p = &c->keep[c->keep_i];
	unsigned int done;

	done = dp_rx_apply(c, p, true);
	p->n = 0;
	c->st.kept = 0;
	return done;
}

/* dp_rx_burst(), and dp_rx_reinject() with @p fresh false: not counted as received again. */
/*
 * Always inlined: dp_rx_burst() and dp_rx_reinject() get a copy each, with
 * @p fresh a constant (no test per packet), and the received bytes are
 * summed in a register, stored once per burst.
 */
static __rte_always_inline unsigned int
dp_rx_common(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m, unsigned int n,
	uint32_t now, bool fresh)
{
	struct dp_rxprep p;

	RTE_ASSERT(n <= DP_BURST_MAX && dp_held(c) == 0);
	if (fresh) {
		c->st.rx += n;
		/* A burst kept a poll came before this one. */
		if (unlikely(dp_rx_kept(c) != 0))
			dp_rx_apply_kept(c);
	}
	p.m = m;
	p.n = n;
	p.in_port = in_port;
	p.now = now;
	if (!fresh)
		dp_rx_prep_again(c, &p);
	else if (c->marks != NULL)
		p.raw = 1;
	else
		dp_rx_prep(c, &p, true, false);
	return dp_rx_apply(c, &p, fresh);
}

unsigned int
dp_rx_burst_ahead(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m, unsigned int n,
	uint32_t now)
{
	struct dp_rxprep *kept = &c->keep[c->keep_i];
	struct dp_rxprep *p = &c->keep[c->keep_i ^ 1];
	unsigned int done = 0, i;

	if (!c->rx_ahead)
		return dp_rx_burst(c, in_port, m, n, now);
	if (n == 0)
		return dp_rx_flush(c);
	RTE_ASSERT(n <= DP_BURST_MAX && dp_held(c) == 0 && p->n == 0);
	c->st.rx += n;
	for (i = 0; i < n; i++) {
		p->mst[i] = m[i];
		rte_prefetch0(m[i]);
	}
	p->m = p->mst;
	p->n = n;
	p->in_port = in_port;
	p->now = now;
	/* Marked packets among it: their lines fetched, step 0 when applied. */
	if (c->marks != NULL && dp_marked_prefetch(c, p->m, n))
		p->raw = 1;
	else
		dp_rx_prep(c, p, true, true);
	if (kept->n != 0)
		done = dp_rx_apply_kept(c);
	c->keep_i ^= 1;
	c->st.kept = n;
	return done;
}

unsigned int
dp_rx_flush(struct dp_ctx *c)
{
	if (dp_rx_kept(c) == 0)
		return 0;
	c->st.kept_idle++;
	return dp_rx_apply_kept(c);
}

unsigned int
dp_rx_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m, unsigned int n, uint32_t now)
{
	return dp_rx_common(c, in_port, m, n, now, true);
}

void
dp_rx_reinject(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m, unsigned int n,
	uint32_t now)
{
	(void)dp_rx_common(c, in_port, m, n, now, false);
}
