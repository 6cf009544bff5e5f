/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_marked.c — step 0 of the fast path, dp_marked(): the
 * packets a NIC marked with their flow entry's slot (drivers/offload) are
 * decided from that entry alone, without a parse or a lookup; what the
 * entry cannot vouch for is left, in order, to the software path of
 * dp_rx.c. The frame's few fields a marked packet needs (datagram length,
 * the TCP header for the window check) are read at their fixed places.
 *
 * Hot loop rules as dp_rx.c's: no locks, allocation, syscalls or stdio.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "datapath.h"
#include "dp_priv.h"

/* Big-endian 16- and 32-bit fields of a frame, at any alignment (one load each). */
static inline uint32_t
dp_be16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline uint32_t
dp_be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

/*
 * Would the entry's interest mask select this packet (rule_engine_wants()),
 * or the conntrack module's window check send it to the slow path? Without
 * a parse the TCP header is read at its fixed place: the NIC matched an
 * untagged Ethernet frame with an IPv4 header (any IHL, not a fragment) or
 * an IPv6 header without extension header. Anything that does not look
 * like that counts as wanted: the software path decides. @p ip_len is
 * dp_marked_ip_len()'s (not 0): asked first, so that a frame it refuses
 * never reaches the window check, which records what it passes. A segment
 * the check passes as ignored (MOD_CT_FAST_IGNORED: it records nothing)
 * counts as wanted too: the software path passes it again without
 * renewing the entry's idle time. @p ctl: the connection's line the window
 * check reads, as the prefetch pass found it (mod_ct_fast_prefetch()).
 */
static inline bool
dp_marked_wants(const struct dp_ctx *c, const struct fc_action *a, const struct rte_mbuf *mb,
	uint32_t ip_len, struct mod_ct_fast_line *ctl)
{
	const uint8_t *p = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(mb);
	uint32_t l4, end, hlen, et;
	uint8_t proto;
	struct fc_pkt pk;

	if (likely(a->interest == 0 && !(a->mod[0] & RULE_ACT_M0_CLASSED)))
		return false;
	if (a->interest & FC_INTEREST_ALL || len < RTE_ETHER_HDR_LEN + 40)
		return true;
	et = dp_be16_at(p + 12);
	if (et == RTE_ETHER_TYPE_IPV4) {
		l4 = RTE_ETHER_HDR_LEN + (uint32_t)(p[14] & 0x0f) * 4;
		proto = p[RTE_ETHER_HDR_LEN + 9];
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		l4 = RTE_ETHER_HDR_LEN + 40;
		proto = p[RTE_ETHER_HDR_LEN + 6];
	} else {
		return true;
	}
	/* Untagged: the datagram's length is the header's (dp_marked_ip_len()). */
	end = RTE_ETHER_HDR_LEN + ip_len;
	pk.tcp_flags = 0;
	pk.tcp_dlen = 0;
	if (proto == IPPROTO_TCP) {
		if (len < l4 + 20)
			return true;
		pk.tcp_flags = p[l4 + 13];
		/* A helper's connection (FC_INTEREST_TCP_DATA) wants segments
		 * with payload: its length as the parser gives it. */
		if (a->interest & FC_INTEREST_TCP_DATA) {
			hlen = (uint32_t)(p[l4 + 12] >> 4) * 4;
			if (hlen < 20 || end > len || end < l4 + hlen)
				return true;
			pk.tcp_dlen = (uint16_t)(end - l4 - hlen);
		}
	}
	if (rule_engine_wants(a, &pk))
		return true;
	/* Cached for a class of header fields: another class is the slow path's. */
	if (a->mod[0] & RULE_ACT_M0_CLASSED) {
		/* What the parser gives the class (no extension headers: those go up). */
		pk.key.family = et == RTE_ETHER_TYPE_IPV4 ? FC_AF_INET4 : FC_AF_INET6;
		fc_key_set_proto(&pk.key, proto);
		pk.l3_off = RTE_ETHER_HDR_LEN;
		pk.l4_off = (uint16_t)l4;
		pk.ip_len = (uint16_t)(end - RTE_ETHER_HDR_LEN);
		pk.frag = FC_FRAG_NONE;
		if (pk.key.family == FC_AF_INET4 && ((p[20] & 0x1f) | p[21]) != 0) {
			pk.frag = FC_FRAG_LATER;
			pk.l4_off = 0;
			pk.tcp_flags = 0;
		}
		if (pk.key.family == FC_AF_INET6 && proto != IPPROTO_TCP && proto != IPPROTO_UDP &&
			proto != IPPROTO_ICMPV6)
			return true;
		if (!rule_engine_class_ok(c->eng, a, &pk, p, len, mb->nb_segs == 1))
			return true;
	}
	/* A UDP-Lite datagram whose header conntrack would find invalid. */
	if ((a->interest & FC_INTEREST_UDPLITE) && proto == IPPROTO_UDPLITE &&
		(end > len || l4 + 8 > end || !fc_udplite_ok(p + l4, end - l4, true)))
		return true;
	/* An SCTP packet the association's check cannot vouch for. */
	if ((a->interest & FC_INTEREST_SCTP) &&
		(proto != IPPROTO_SCTP || end > len || l4 > end ||
			!mod_ct_sctp_fast_check(c->ct_fast, a, p + l4, end - l4)))
		return true;
	if (!(a->interest & FC_INTEREST_TCP_WIN))
		return false;
	/* A window-checked segment: the numbers the check needs, as the parser
	 * gives them (payload up to the datagram's end, options plain or not).
	 * A SYN (a SYN/ACK a reply entry leaves to the line: its options need
	 * the parser) goes up: a flow is marked long after its handshake. */
	hlen = (uint32_t)(p[l4 + 12] >> 4) * 4;
	if (proto != IPPROTO_TCP || hlen < 20 || end > len || end < l4 + hlen ||
		(pk.tcp_flags & 0x02))
		return true;
	pk.tcp_seq = dp_be32_at(p + l4 + 4);
	pk.tcp_ack = dp_be32_at(p + l4 + 8);
	pk.tcp_win = (uint16_t)dp_be16_at(p + l4 + 14);
	pk.tcp_dlen = (uint16_t)(end - l4 - hlen);
	/* Plain: no options, or only a timestamp (NOP, NOP, kind 8 length 10). */
	pk.tcp_opt = (hlen == 20 || (hlen == 32 && dp_be32_at(p + l4 + 20) == 0x0101080au)) ?
		FC_TCP_OPT_PLAIN : 0;
	/* Passed as ignored (no idle time renewed): the software path's. */
	return mod_ct_fast_check_line(ctl, a, &pk) != MOD_CT_FAST_PASS;
}

/*
 * The IP datagram length of a marked packet: what rule and flow counters
 * count, as the software path's parse gives it (IPv4 total length, IPv6
 * 40 + payload length), read where the header sits behind the Ethernet
 * header and up to FC_PARSE_MAX_VLAN VLAN tags; a short frame's padding
 * and the tags are not the datagram's. 0 for a frame that does not hold
 * what its header says (or not in its first segment): the software path
 * decides such a packet, as it would any other odd one.
 */
static inline uint32_t
dp_marked_ip_len(const struct rte_mbuf *mb)
{
	const uint8_t *p = rte_pktmbuf_mtod(mb, const uint8_t *);
	uint32_t cap = rte_pktmbuf_data_len(mb);
	uint32_t off = RTE_ETHER_HDR_LEN, ip, et;

	/* Shorter than an untagged IPv4 header: nothing to read. */
	if (unlikely(cap < RTE_ETHER_HDR_LEN + 20))
		return 0;
	et = dp_be16_at(p + 12);
	for (unsigned int i = 0; unlikely(et != RTE_ETHER_TYPE_IPV4 && et != RTE_ETHER_TYPE_IPV6);
		i++) {
		if ((et != RTE_ETHER_TYPE_VLAN && et != RTE_ETHER_TYPE_QINQ &&
			    et != RTE_ETHER_TYPE_QINQ1) ||
			i == FC_PARSE_MAX_VLAN || off + 4 > cap)
			return 0;
		et = dp_be16_at(p + off + 2);
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (off + 20 > cap)
			return 0;
		ip = dp_be16_at(p + off + 2);
		if (ip < 20)
			return 0;
	} else {
		if (off + 40 > cap)
			return 0;
		ip = 40 + dp_be16_at(p + off + 4);
		if (ip > UINT16_MAX)
			return 0;
	}
	return ip <= mb->pkt_len - off ? ip : 0;
}

bool
dp_marked_prefetch(const struct dp_ctx *c, struct rte_mbuf *const *m, unsigned int n)
{
	const struct dp_marks *mk = c->marks;
	const struct fc_entry *base[2];
	uint32_t lim[2];
	bool any = false;

	for (unsigned int f = 0; f < 2; f++) {
		base[f] = fc_table_slots(f ? c->tab6 : c->tab4, &lim[f]);
		lim[f] = RTE_MIN(lim[f], mk->cap[f]);
	}
	for (unsigned int i = 0; i < n; i++) {
		uint32_t mark, ix;
		unsigned int f;

		if (!dp_mbuf_mark(m[i], &mark))
			continue;
		any = true;
		dp_mark_split(mark, &f, &ix);
		if (likely(ix < lim[f] && dp_mark_tag(mark) != 0)) {
			rte_prefetch0(base[f] + ix);
			rte_prefetch0(rte_pktmbuf_mtod(m[i], const void *));
		}
	}
	return any;
}

/*
 * Step 0 (offload): take the marked packets whose entry decides them alone
 * (see dp_mark_check() for why a live mark is enough: no key compare);
 * compact the others in @p m, in order, for the software path. The burst
 * structure of the software path, without its bucket and key lines: (1)
 * the marked packets' entry lines (the mark's check and the action are in
 * the same line) and frames fetched for the burst at once; (2) per packet
 * the mark's check and the seqlocked copy of the action, and the window-
 * checked connections' lines fetched; (3) per packet the checks, the
 * counters and the channel. A marked packet reads its mbuf, its frame's
 * first line, its entry's line and, for a window-checked TCP segment, its
 * connection's line: no other.
 * @return packets left in @p m.
 */
unsigned int
dp_marked(struct dp_ctx *c, struct dp_burst *b, struct rte_mbuf **m, unsigned int n)
{
	const struct dp_marks *mk = c->marks;
	struct dp_stats *st = &c->st;
	const struct fc_entry *ents[DP_BURST_MAX];
	struct mod_ct_fast_line *ctl[DP_BURST_MAX];
	struct fc_action acts[DP_BURST_MAX];
	uint32_t marks[DP_BURST_MAX];
	const struct fc_entry *base[2];
	uint32_t lim[2];
	uint64_t marked = 0, live = 0, taken = 0, bytes = 0;
	unsigned int left = 0;
	uint32_t gen;
	unsigned int i;

	/* Each table's slots once for the burst: an index is in range when
	 * below both the policy's capacity and the table's slot count. */
	for (unsigned int f = 0; f < 2; f++) {
		base[f] = fc_table_slots(f ? c->tab6 : c->tab4, &lim[f]);
		lim[f] = RTE_MIN(lim[f], mk->cap[f]);
	}
	for (i = 0; i < n; i++) {
		const struct fc_entry *e = NULL;
		uint32_t mark, ix;
		unsigned int f;

		if (!dp_mbuf_mark(m[i], &mark))
			continue;
		marked |= UINT64_C(1) << i;
		marks[i] = mark;
		dp_mark_split(mark, &f, &ix);
		/* Tag 0 is never made: such a mark names no slot. */
		if (likely(ix < lim[f] && dp_mark_tag(mark) != 0)) {
			e = base[f] + ix;
			rte_prefetch0(e);
			rte_prefetch0(rte_pktmbuf_mtod(m[i], const void *));
		}
		ents[i] = e;
	}
	if (marked == 0)
		return n;
	/* Lossless replays keep per-connection order strictly: while upcalls
	 * are in flight, marked packets take the software path (which knows
	 * their connection) too. */
	if (c->lossless && c->pend != NULL && c->pend->n != 0)
		return n;
	/* A router's packets need their parse (TTL, rewrite): the software path. */
	for (uint64_t todo = likely(!c->router) ? marked : 0; todo != 0; todo &= todo - 1) {
		i = (unsigned int)__builtin_ctzll(todo);
		/* The mark names this slot now (its tag is the one the slot keeps),
		 * and the action copied consistently: one load of the slot's word. */
		if (ents[i] == NULL || !fc_entry_read_tagged(ents[i], dp_mark_tag(marks[i]), &acts[i]))
			continue;
		live |= UINT64_C(1) << i;
		/* The connection's line, fetched now and handed to the check. */
		ctl[i] = (acts[i].interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP)) ?
			mod_ct_fast_prefetch(c->ct_fast, &acts[i]) : NULL;
	}

	gen = rule_engine_generation(c->eng);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *mb = m[i];
		const struct fc_action *a = &acts[i];
		unsigned int fam;
		uint32_t idx, ip_len = 0;
		uint32_t ch = CHAN_ID_DEFAULT;

		if (!(marked & (UINT64_C(1) << i))) {
			m[left++] = mb;
			continue;
		}
		if (unlikely(!(live & (UINT64_C(1) << i)) || a->gen != gen ||
			    a->verdict != FC_VERDICT_ACCEPT ||
			    (a->flags & (FC_ACT_F_NAT | FC_ACT_F_PKTACT | FC_ACT_F_COUNT)))) {
			st->hw_fallback++;
			m[left++] = mb;
			continue;
		}
		dp_mark_split(marks[i], &fam, &idx);
		if (unlikely((ip_len = dp_marked_ip_len(mb)) == 0 || dp_marked_wants(c, a, mb, ip_len, ctl[i]) ||
			    (ch = rule_engine_channel(c->eng, a, fam, idx)) == RULE_CHAN_NONE)) {
			st->hw_fallback++;
			m[left++] = mb;
			continue;
		}
		taken++;
		bytes += mb->pkt_len;
		/* Rule and flow counters count IP datagrams, as iptables does,
		 * the same for a marked packet as for a parsed one; on the slot
		 * step 1 found (const there: it only read it). */
		fc_table_touch_slot(fam ? c->tab6 : c->tab4, (struct fc_entry *)ents[i], idx, ip_len,
			b->now);
		dp_out(b, mb, dp_dest(c, ch, a->out_port, b->in_port));
	}
	st->hw_classified += taken;
	st->rx_bytes += bytes;
	return left;
}
