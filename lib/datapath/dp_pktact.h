/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath private: running a packet program (engine_pktact.h) on a
 * packet, shared by the fast path (dp_rx.c: entries with FC_ACT_F_PKTACT)
 * and the slow path (dp_upcall.c: a decision's program). dp_pktact.c.
 * Not installed.
 */
#ifndef GUFC_DP_PKTACT_H
#define GUFC_DP_PKTACT_H

#include <rte_mbuf.h>

#include "datapath.h"

/*
 * Make the first @p len bytes of chained @p m contiguous in its first
 * segment, moving them from the next segments into its tailroom (no
 * allocation; emptied segments are freed; pkt_len unchanged). Any lcore
 * (dp_upcall.c: the slow path's rewrites; dp_rx.c: the RX lcore's NAT of
 * such a packet). @return 0, or -ENOSPC (the first segment has no room:
 * @p m unchanged), -EINVAL (@p m is shorter than @p len: unchanged).
 */
int dp_mbuf_pullup(struct rte_mbuf *m, uint32_t len);

/*
 * The destination NAT of rewrite slot @p slot in @p len bytes @p l3 (a
 * copy of packet @p pkt from its IP header): the destination (address;
 * port or echo identifier) translated, the source as it came, checksums
 * right, as Linux's rules after a PREROUTING DNAT see the packet. A copy
 * the rewrite cannot apply to (cut short, SCTP) is left as it came.
 */
void dp_dnat_view(const struct dp_ctx *c, uint8_t *l3, uint32_t len, const struct fc_pkt *pkt,
	uint32_t slot);

/*
 * Queue a record for each LOG/NFLOG operation of list @p list of @p p: a
 * copy of @p m (up to the spec's snap length) on the context's log ring;
 * for a rule that ran after the destination NAT (rule_pktop::a), the copy
 * has the destination NAT rewrite slot @p nat_slot (RULE_NAT_NONE: none)
 * would give it, the source as it came (a source NAT comes after every
 * rule, as in Linux). No room (ring, mbufs): counted log_dropped and on
 * the rule's spec.
 */
void dp_pkt_log(struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct rule_pktprog *p, unsigned int list, uint16_t in_port, uint16_t out_port,
	uint32_t nat_slot);

/*
 * The TTL (@p v4; else the hop limit) that the early operations of list
 * @p list of @p p (TTL or HL not late: PREROUTING's) leave of @p ttl: what
 * a router's expiry check sees, after them, as in Linux.
 */
uint8_t dp_pkt_ttl_early(const struct rule_pktprog *p, unsigned int list, bool v4, uint8_t ttl);

/* Which rewrites of a list dp_pkt_rewrite() applies (rule_pktop::late). */
enum dp_rw_phase {
	DP_RW_ALL,   /**< all of them, in order: no TTL decrement comes between */
	DP_RW_EARLY, /**< a router's, before its TTL decrement: all but the late ones */
	DP_RW_LATE,  /**< a router's, after its TTL decrement: the late ones */
};

/*
 * Apply the rewrites of list @p list of @p p to @p m that @p phase
 * selects; @p mtu for TCPMSS's clamp. A chained mbuf (a jumbo datagram)
 * has its headers pulled up into its first segment (dp_mbuf_pullup(): no
 * allocation; CHECKSUM sums the rest where it lies), as NAT does.
 * Counted rewritten (the packet changed; a DP_RW_LATE call only when
 * @p counted is false: the DP_RW_EARLY one did not count it) and
 * rewrite_skipped (an operation could not apply: headers cut short, or
 * a chained packet whose first segment has no room for its headers).
 * @return true if the packet changed.
 */
bool dp_pkt_rewrite(struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct rule_pktprog *p, unsigned int list, uint16_t mtu, enum dp_rw_phase phase,
	bool counted);

/*
 * For a hit on an entry whose program *@p p has a predicate (string
 * searches, u32 tests, bpf programs): test @p m's IP datagram as the
 * predicate asks, set the verdict, *@p p to the outcome's program (NULL:
 * none) and the list to run (0), and count an outcome but 0 on the
 * predicate (dp_pred.c). A chained mbuf whose datagram goes past its first
 * segment where the predicate may read is made one segment first
 * (rte_pktmbuf_linearize(), as a rewrite does).
 * @return false when the fast path cannot test it (a chained mbuf that
 *   does not fit one segment): send it to the slow path.
 */
bool dp_pred_take(const struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct fc_action *a, const struct rule_pktprog **p, uint8_t *verdict,
	unsigned int *list);

/* The egress MTU TCPMSS clamps to: the output port's, else the input port's, else 1500. */
static inline uint16_t
dp_pkt_mtu(const struct dp_ctx *c, uint16_t out_port, uint16_t in_port)
{
	if (out_port < DP_MAX_PORTS && c->port_mtu[out_port] != 0)
		return c->port_mtu[out_port];
	if (in_port < DP_MAX_PORTS && c->port_mtu[in_port] != 0)
		return c->port_mtu[in_port];
	return 1500;
}

/**
 * Apply one rewrite operation of a packet program (TOS, TTL, HL,
 * CHECKSUM, TCPMSS; others are no-ops) to contiguous headers, checksums
 * updated incrementally (CHECKSUM: computed whole). TCPMSS lowers the MSS
 * option of a TCP SYN; a SYN without one and without data gets one (as
 * Linux: the value at most 536 for IPv4, 1220 for IPv6, the defaults a
 * peer assumes; inserted first, the header 4 bytes longer, the IP length
 * and checksums updated) when its header has room (under 60 bytes) and
 * @p cap does.
 * @param op    the operation
 * @param l3    the IP header
 * @param len   bytes at @p l3 (through the end of the datagram for CHECKSUM
 *   and an MSS option's insertion)
 * @param cap   bytes writable at @p l3 (@p len and the room after it)
 * @param pkt   the packet's parse (family, l4 offset relative to the frame,
 *   protocol, TCP flags, fragment)
 * @param l3_off  offset of @p l3 in the frame (to place the L4 header)
 * @param mtu   egress MTU for TCPMSS --clamp-mss-to-pmtu
 * @return 1 changed, 2 changed and the datagram 4 bytes longer (an MSS
 *   option added: it ends at @p l3 + pkt->ip_len + 4 now), 0 nothing to
 *   change, -EINVAL (headers cut short, a fragment, not TCP/UDP for CHECKSUM).
 * Context: any.
 */
int dp_pktop_apply(const struct rule_pktop *op, uint8_t *l3, uint32_t len, uint32_t cap,
	const struct fc_pkt *pkt, uint32_t l3_off, uint16_t mtu);

#endif /* GUFC_DP_PKTACT_H */
