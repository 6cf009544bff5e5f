/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_pktact.c — packet programs (lib/engine's
 * engine_pktact.h) carried out on a packet: LOG and NFLOG records onto the
 * context's log ring (a copy of the packet with the rule's options, for
 * the application to write out), and the rewrites of TOS/DSCP, TTL, hop
 * limit, CHECKSUM and TCPMSS with their checksums (a chained packet, a
 * jumbo datagram, with its headers pulled up into its first segment, the
 * payload summed where it lies). Called by the fast path
 * for entries with FC_ACT_F_PKTACT only (other hits never come here) and
 * by the slow path for its decisions' programs. A record that finds no
 * room is counted (log_dropped, and per rule), never the packet's loss.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "datapath.h"
#include "dp_l3.h"
#include "dp_pktact.h"

/* A checksum at @p at after the 16-bit word at @p w changed from @p old. */
static inline void
csum_fix(uint8_t *at, uint16_t old, const uint8_t *w)
{
	uint16_t nw, c;

	memcpy(&nw, w, 2);
	memcpy(&c, at, 2);
	c = dp_csum_update16(c, old, nw);
	memcpy(at, &c, 2);
}

/* TOS (IPv4) or traffic class (IPv6) = (v & ~and_not) ^ x. */
static int
rw_tos(uint8_t *l3, uint32_t len, bool v4, uint8_t and_not, uint8_t x)
{
	uint16_t old;
	uint8_t tos, nt;

	if (len < (v4 ? 20u : 40u))
		return -EINVAL;
	if (v4) {
		tos = l3[1];
		nt = (uint8_t)((tos & ~and_not) ^ x);
		if (nt == tos)
			return 0;
		memcpy(&old, l3, 2);
		l3[1] = nt;
		csum_fix(l3 + 10, old, l3);
		return 1;
	}
	tos = (uint8_t)((l3[0] & 0x0f) << 4 | l3[1] >> 4);
	nt = (uint8_t)((tos & ~and_not) ^ x);
	if (nt == tos)
		return 0;
	l3[0] = (uint8_t)((l3[0] & 0xf0) | nt >> 4);
	l3[1] = (uint8_t)((l3[1] & 0x0f) | (nt & 0x0f) << 4);
	return 1;
}

/*
 * ECN target (IPv4): the ECN field as @p op says, then a TCP header's ECE
 * and CWR, each with its checksum; only what differs is written.
 */
static int
rw_ecn(uint8_t *l3, uint32_t len, const struct fc_pkt *pkt, uint32_t l4,
	const struct rule_pktop *op)
{
	int rc = 0;

	if (op->ref & 4) {
		rc = rw_tos(l3, len, true, 0x03, (uint8_t)(op->ref & 3));
		if (rc < 0)
			return rc;
	}
	if (op->a != 0 && fc_key_proto(&pkt->key) == IPPROTO_TCP && l4 != 0) {
		uint8_t *tcp = l3 + l4, nf;
		uint16_t old;

		if (l4 + 20 > len)
			return -EINVAL;
		nf = (uint8_t)((tcp[13] & ~op->a) | op->b);
		if (nf != tcp[13]) {
			memcpy(&old, tcp + 12, 2);
			tcp[13] = nf;
			csum_fix(tcp + 16, old, tcp + 12);
			rc = 1;
		}
	}
	return rc;
}

/* @p t set (0), minus (1), plus (2) @p v, within 0..255. */
static inline unsigned int
ttl_op(unsigned int t, uint8_t mode, uint8_t v)
{
	return mode == 0 ? v : mode == 1 ? (t > v ? t - v : 0) : (t + v > 255 ? 255 : t + v);
}

uint8_t
dp_pkt_ttl_early(const struct rule_pktprog *p, unsigned int list, bool v4, uint8_t ttl)
{
	unsigned int t = ttl;

	for (unsigned int i = 0; i < p->n[list]; i++) {
		const struct rule_pktop *op = &p->op[list][i];

		if (op->kind == (v4 ? RULE_PKTOP_TTL : RULE_PKTOP_HL) && op->late == 0)
			t = ttl_op(t, op->a, op->b);
	}
	return (uint8_t)t;
}

/* TTL or hop limit: set (0), minus (1), plus (2) @p v, within 0..255. */
static int
rw_ttl(uint8_t *l3, uint32_t len, bool v4, uint8_t mode, uint8_t v)
{
	unsigned int at = v4 ? 8 : 7;
	unsigned int t, nt;
	uint16_t old;

	if (len < (v4 ? 20u : 40u))
		return -EINVAL;
	t = l3[at];
	nt = ttl_op(t, mode, v);
	if (nt == t)
		return 0;
	if (!v4) {
		l3[at] = (uint8_t)nt;
		return 1;
	}
	memcpy(&old, l3 + 8, 2);
	l3[at] = (uint8_t)nt;
	csum_fix(l3 + 10, old, l3 + 8);
	return 1;
}

/*
 * The L4 checksum of a whole TCP or UDP datagram, written in. @p m NULL:
 * the datagram is in @p l3's @p len bytes; else @p l3 is @p m's from
 * @p l3_off, its headers in the first segment (dp_mbuf_pullup()) and the
 * rest summed where it lies in the chain (no copy).
 */
static int
rw_checksum(uint8_t *l3, uint32_t len, const struct fc_pkt *pkt, uint32_t l4,
	const struct rte_mbuf *m, uint32_t l3_off)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	uint8_t proto = v4 ? pkt->key.v4.proto : pkt->key.v6.proto;
	uint32_t end = pkt->ip_len, l4len, sum, len_whole;
	unsigned int at;
	uint16_t c, old;

	if (pkt->frag != FC_FRAG_NONE || (proto != IPPROTO_TCP && proto != IPPROTO_UDP))
		return -EINVAL;
	at = proto == IPPROTO_TCP ? 16 : 6;
	if (m != NULL && rte_pktmbuf_pkt_len(m) >= l3_off)
		len_whole = rte_pktmbuf_pkt_len(m) - l3_off;
	else
		len_whole = len;
	if (end > len_whole || l4 + at + 2 > end || l4 + at + 2 > len)
		return -EINVAL;
	l4len = end - l4;
	memcpy(&old, l3 + l4 + at, 2);
	memset(l3 + l4 + at, 0, 2);
	if (v4) {
		uint8_t ph[12];

		memcpy(ph, l3 + 12, 8);
		ph[8] = 0;
		ph[9] = proto;
		ph[10] = (uint8_t)(l4len >> 8);
		ph[11] = (uint8_t)l4len;
		sum = rte_raw_cksum(ph, sizeof(ph));
	} else {
		uint8_t ph[40];

		memcpy(ph, l3 + 8, 32);
		ph[32] = (uint8_t)(l4len >> 24);
		ph[33] = (uint8_t)(l4len >> 16);
		ph[34] = (uint8_t)(l4len >> 8);
		ph[35] = (uint8_t)l4len;
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = proto;
		sum = rte_raw_cksum(ph, sizeof(ph));
	}
	if (m == NULL || end <= len) {
		sum += rte_raw_cksum(l3 + l4, l4len);
	} else {
		uint16_t part;

		if (rte_raw_cksum_mbuf(m, l3_off + l4, l4len, &part) != 0) {
			memcpy(l3 + l4 + at, &old, 2);
			return -EINVAL;
		}
		sum += part;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	/* Summed in memory order (rte_raw_cksum()): stored as it is. */
	c = (uint16_t)~sum;
	if (proto == IPPROTO_UDP && c == 0)
		c = 0xffff;
	memcpy(l3 + l4 + at, &c, 2);
	return c != old ? 1 : 0;
}

/*
 * TCP SYN with header @p hl bytes long and nothing after it: an MSS option
 * of @p mss as the first option, the header 4 bytes longer (the options
 * after it moved up), the IP length and both checksums updated. @return 2
 * (grown), 0 no room (a full header, or @p cap short).
 */
static int
tcpmss_insert(uint8_t *l3, uint32_t cap, bool v4, uint32_t l4, uint32_t hl, uint16_t mss)
{
	uint8_t *tcp = l3 + l4;
	uint16_t old, w, l_old, l_new;

	if (hl + 4 > 60 || l4 + hl + 4 > cap)
		return 0;
	memmove(tcp + 24, tcp + 20, hl - 20);
	tcp[20] = 2;
	tcp[21] = 4;
	tcp[22] = (uint8_t)(mss >> 8);
	tcp[23] = (uint8_t)mss;
	/* Moved words keep their sum; the two new ones join it (from zero). */
	memcpy(&old, tcp + 16, 2);
	w = 0;
	old = dp_csum_update16(old, w, *(const unaligned_uint16_t *)(tcp + 20));
	old = dp_csum_update16(old, w, *(const unaligned_uint16_t *)(tcp + 22));
	memcpy(tcp + 16, &old, 2);
	/* Data offset one word more. */
	memcpy(&old, tcp + 12, 2);
	tcp[12] = (uint8_t)(tcp[12] + 0x10);
	csum_fix(tcp + 16, old, tcp + 12);
	/* The pseudo-header's TCP length (its low 16 bits, both families). */
	l_old = rte_cpu_to_be_16((uint16_t)hl);
	l_new = rte_cpu_to_be_16((uint16_t)(hl + 4));
	memcpy(&old, tcp + 16, 2);
	old = dp_csum_update16(old, l_old, l_new);
	memcpy(tcp + 16, &old, 2);
	/* The IP length: IPv4 total length (header checksum), IPv6 payload length. */
	if (v4) {
		memcpy(&old, l3 + 2, 2);
		w = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(old) + 4));
		memcpy(l3 + 2, &w, 2);
		csum_fix(l3 + 10, old, l3 + 2);
	} else {
		memcpy(&old, l3 + 4, 2);
		w = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(old) + 4));
		memcpy(l3 + 4, &w, 2);
	}
	return 2;
}

/*
 * TCP SYN: lower the MSS option to @p mss (0: the MTU less the headers);
 * without one, and without data after the header, add one (at most 536 for
 * IPv4, 1220 for IPv6: what the peer assumes without it), as Linux does.
 */
static int
rw_tcpmss(uint8_t *l3, uint32_t len, uint32_t cap, const struct fc_pkt *pkt, uint32_t l4,
	uint32_t mss, uint16_t mtu)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	uint8_t proto = v4 ? pkt->key.v4.proto : pkt->key.v6.proto;
	uint32_t hl, i;

	if (proto != IPPROTO_TCP || !(pkt->tcp_flags & 0x02) || pkt->frag != FC_FRAG_NONE)
		return 0;
	if (l4 + 20 > len)
		return -EINVAL;
	hl = (uint32_t)(l3[l4 + 12] >> 4) * 4;
	if (hl < 20 || l4 + hl > len)
		return -EINVAL;
	if (mss == 0) {
		uint32_t m = mtu != 0 ? mtu : 1500, h = v4 ? 40 : 60;

		mss = m > h ? m - h : 0;
	}
	for (i = 20; i + 1 < hl;) {
		uint8_t kind = l3[l4 + i], olen;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		olen = l3[l4 + i + 1];
		if (olen < 2 || i + olen > hl)
			break;
		if (kind == 2 && olen == 4) {
			uint8_t *tcp = l3 + l4, old[6];
			uint32_t cur = (uint32_t)tcp[i + 2] << 8 | tcp[i + 3];
			/* The 16-bit words (from the TCP header's start) the value touches. */
			uint32_t ws = (i + 2) & ~1u, we = (i + 5) & ~1u;

			if (cur <= mss)
				return 0;
			memcpy(old, tcp + ws, we - ws);
			tcp[i + 2] = (uint8_t)(mss >> 8);
			tcp[i + 3] = (uint8_t)mss;
			for (uint32_t w = ws; w < we; w += 2) {
				uint16_t ow;

				memcpy(&ow, old + (w - ws), 2);
				csum_fix(tcp + 16, ow, tcp + w);
			}
			return 1;
		}
		i += olen;
	}
	/* No MSS option: only a SYN without data, whole in @p len, gets one. */
	if (pkt->ip_len != l4 + hl || pkt->ip_len > len)
		return 0;
	if (mss > (v4 ? 536u : 1220u))
		mss = v4 ? 536u : 1220u;
	return tcpmss_insert(l3, cap, v4, l4, hl, (uint16_t)mss);
}

/* dp_pktop_apply() on @p l3, @p m's bytes from @p l3_off (NULL: flat, all in @p len). */
static int
pktop_apply(const struct rule_pktop *op, uint8_t *l3, uint32_t len, uint32_t cap,
	const struct fc_pkt *pkt, uint32_t l3_off, uint16_t mtu, const struct rte_mbuf *m)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	uint32_t l4 = pkt->l4_off > l3_off ? pkt->l4_off - l3_off : 0;

	switch (op->kind) {
	case RULE_PKTOP_TOS:
		return rw_tos(l3, len, v4, op->a, op->b);
	case RULE_PKTOP_TTL:
		return v4 ? rw_ttl(l3, len, true, op->a, op->b) : 0;
	case RULE_PKTOP_HL:
		return v4 ? 0 : rw_ttl(l3, len, false, op->a, op->b);
	case RULE_PKTOP_CHECKSUM:
		return l4 == 0 ? -EINVAL : rw_checksum(l3, len, pkt, l4, m, l3_off);
	case RULE_PKTOP_TCPMSS:
		return l4 == 0 ? 0 : rw_tcpmss(l3, len, cap > len ? cap : len, pkt, l4, op->ref, mtu);
	case RULE_PKTOP_ECN:
		return v4 ? rw_ecn(l3, len, pkt, l4, op) : 0;
	default:
		return 0;
	}
}

int
dp_pktop_apply(const struct rule_pktop *op, uint8_t *l3, uint32_t len, uint32_t cap,
	const struct fc_pkt *pkt, uint32_t l3_off, uint16_t mtu)
{
	return pktop_apply(op, l3, len, cap, pkt, l3_off, mtu, NULL);
}

/* Word @p w of a header (2 bytes at @p at) back to @p orig, checksum @p ck (NULL: none) fixed. */
static void
word_back(uint8_t *at, const uint8_t *orig, uint8_t *ck)
{
	uint16_t old;

	memcpy(&old, at, 2);
	memcpy(at, orig, 2);
	if (ck != NULL)
		csum_fix(ck, old, at);
}

/*
 * Log copy @p cp of a packet of a translated flow, for a rule after the
 * destination NAT: rewrite slot @p slot applied, then the source (address;
 * port or echo identifier) put back as it came, checksums right. A copy
 * the rewrite cannot apply to (cut short by the snap length, SCTP) is
 * left as it came.
 */
static void
log_dnat_view(const struct dp_ctx *c, struct rte_mbuf *cp, const struct fc_pkt *pkt,
	uint32_t slot)
{
	uint32_t len = rte_pktmbuf_data_len(cp) > pkt->l3_off ?
		rte_pktmbuf_data_len(cp) - pkt->l3_off : 0;

	dp_dnat_view(c, rte_pktmbuf_mtod_offset(cp, uint8_t *, pkt->l3_off), len, pkt, slot);
}

void
dp_dnat_view(const struct dp_ctx *c, uint8_t *l3, uint32_t len, const struct fc_pkt *pkt,
	uint32_t slot)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	uint8_t proto = v4 ? pkt->key.v4.proto : pkt->key.v6.proto;
	uint32_t so = v4 ? 12 : 8, al = v4 ? 4 : 16, l4 = pkt->l4_off - pkt->l3_off;
	uint8_t *ck = NULL;
	uint8_t src[16], port[2] = {0, 0};
	uint32_t po = UINT32_MAX;
	bool l4_ok;

	if (c->nat == NULL || proto == IPPROTO_SCTP || len < so + al)
		return;
	l4_ok = pkt->frag != FC_FRAG_LATER && pkt->l4_off > pkt->l3_off;
	if (l4_ok &&
		(proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
			proto == IPPROTO_DCCP) &&
		l4 + 8 <= len) {
		po = l4;
		ck = l3 + l4 + (proto == IPPROTO_TCP ? 16 : 6);
		if (proto == IPPROTO_TCP && l4 + 18 > len)
			return;
		if (proto == IPPROTO_UDP && ck[0] == 0 && ck[1] == 0)
			ck = NULL; /* no checksum: stays none */
	} else if (l4_ok && (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) && l4 + 8 <= len) {
		ck = l3 + l4 + 2;
		if (proto == (v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6) &&
			fc_icmp_nat_id(pkt->key.family, pkt->icmp_type))
			po = l4 + 4;
	}
	memcpy(src, l3 + so, al);
	if (po != UINT32_MAX)
		memcpy(port, l3 + po, 2);
	if (mod_nat_apply(c->nat, slot, l3, len, pkt) != 0)
		return;
	if (memcmp(l3 + so, src, al) == 0)
		return; /* only the destination changed: what the rule sees */
	for (uint32_t w = 0; w < al; w += 2) {
		uint16_t before;

		memcpy(&before, l3 + so + w, 2);
		word_back(l3 + so + w, src + w, v4 ? l3 + 10 : NULL);
		/* The pseudo-header (not ICMPv4's): the L4 checksum too. */
		if (ck != NULL && proto != IPPROTO_ICMP)
			csum_fix(ck, before, l3 + so + w);
	}
	if (po != UINT32_MAX)
		word_back(l3 + po, port, ck);
}

/*
 * The TTL (hop limit) the walk had when LOG operation @p i of list @p list
 * ran, from the received @p ttl: the TTL and HL rewrites before it in the
 * walk and, for a rule at FORWARD or POSTROUTING (rule_pktop::late) of a
 * forwarded packet in router mode (not from this host, not to it: output
 * port @p out_port), the router's decrement between them, as
 * Linux's ip_forward() takes one off before FORWARD. @return the TTL, or
 * -1 when the packet expired at that decrement: Linux never gets to the
 * rule (time exceeded), so it logs nothing.
 */
static int
log_ttl(const struct dp_ctx *c, const struct fc_pkt *pkt, const struct rule_pktprog *p,
	unsigned int list, unsigned int i, uint16_t out_port, uint8_t ttl)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	bool routed = c->router && p->op[list][i].late && out_port != RULE_PORT_LOCAL &&
		      !(fc_key_flags(&pkt->key) & FC_KEY_F_SRC_LOCAL);
	unsigned int t = ttl;

	for (unsigned int j = 0; j < i; j++) {
		const struct rule_pktop *op = &p->op[list][j];

		if (op->kind == (v4 ? RULE_PKTOP_TTL : RULE_PKTOP_HL) && (!routed || !op->late))
			t = ttl_op(t, op->a, op->b);
	}
	if (!routed)
		return (int)t;
	if (t <= 1)
		return -1;
	t--;
	for (unsigned int j = 0; j < i; j++) {
		const struct rule_pktop *op = &p->op[list][j];

		if (op->kind == (v4 ? RULE_PKTOP_TTL : RULE_PKTOP_HL) && op->late)
			t = ttl_op(t, op->a, op->b);
	}
	return (int)t;
}

void
dp_pkt_log(struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct rule_pktprog *p, unsigned int list, uint16_t in_port, uint16_t out_port,
	uint32_t nat_slot)
{
	bool v4 = pkt->key.family == FC_AF_INET4;
	uint32_t hl = v4 ? 20 : 40;
	uint8_t ttl = 0;

	if (rte_pktmbuf_data_len(m) >= pkt->l3_off + hl)
		ttl = rte_pktmbuf_mtod_offset(m, const uint8_t *, pkt->l3_off)[v4 ? 8 : 7];
	else
		hl = 0; /* no whole IP header: the copy stays as it came */
	for (unsigned int i = 0; i < p->n[list]; i++) {
		const struct rule_pktop *op = &p->op[list][i];
		const struct rule_logspec *spec;
		struct rte_mbuf *cp = NULL;
		struct dp_logrec *rec;
		int t;

		if (op->kind != RULE_PKTOP_LOG && op->kind != RULE_PKTOP_NFLOG)
			continue;
		t = hl != 0 ? log_ttl(c, pkt, p, list, i, out_port, ttl) : ttl;
		if (t < 0)
			continue; /* expired before the rule's hook */
		spec = rule_engine_logspec(c->eng, op->ref);
		if (likely(c->log_ring != NULL && c->log_pool != NULL))
			cp = rte_pktmbuf_copy(m, c->log_pool, 0,
				spec->snaplen != 0 ? spec->snaplen : UINT32_MAX);
		if (unlikely(cp == NULL)) {
			c->st.log_dropped++;
			rule_engine_logspec_drop(c->eng, op->ref);
			continue;
		}
		if (op->a != 0 && nat_slot != RULE_NAT_NONE)
			log_dnat_view(c, cp, pkt, nat_slot);
		/* The TTL the rule saw (checksum fixed), where the copy holds the header. */
		if (t != ttl && rte_pktmbuf_data_len(cp) >= pkt->l3_off + hl)
			(void)rw_ttl(rte_pktmbuf_mtod_offset(cp, uint8_t *, pkt->l3_off), hl, v4, 0,
				(uint8_t)t);
		rec = dp_logrec(cp);
		rec->spec = *spec;
		rec->tsc = rte_rdtsc();
		rec->wire_len = m->pkt_len;
		rec->in_port = in_port;
		rec->out_port = out_port;
		rec->l3_off = pkt->l3_off;
		rec->key_flags = fc_key_flags(&pkt->key);
		rec->mark = op->mark;
		if (unlikely(rte_ring_mp_enqueue(c->log_ring, cp) != 0)) {
			rte_pktmbuf_free(cp);
			c->st.log_dropped++;
			rule_engine_logspec_drop(c->eng, op->ref);
			continue;
		}
		c->st.log_queued++;
	}
}

/*
 * A chained @p m's headers the rewrites read and write, up into its first
 * segment (dp_mbuf_pullup(): no allocation, the payload stays chained): an
 * IP header with its options, an IPv6 one, and a whole TCP header with
 * options (TCPMSS; 60 bytes at most), at most the packet. A first segment
 * without room for them (not what a device's RX gives: it fills the first
 * segment first) makes do with linearizing a packet that fits one
 * segment. @return 0, or -ENOSPC: counted rewrite_skipped by the caller.
 */
static int
rw_headers_up(struct rte_mbuf *m, const struct fc_pkt *pkt)
{
	uint32_t end = RTE_MAX((uint32_t)pkt->l3_off + 60u,
		(uint32_t)(pkt->l4_off > pkt->l3_off ? pkt->l4_off : pkt->l3_off) + 60u);

	end = RTE_MIN(end, rte_pktmbuf_pkt_len(m));
	if (dp_mbuf_pullup(m, end) == 0 || rte_pktmbuf_linearize(m) == 0)
		return 0;
	return -ENOSPC;
}

bool
dp_pkt_rewrite(struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct rule_pktprog *p, unsigned int list, uint16_t mtu, enum dp_rw_phase phase,
	bool counted)
{
	struct fc_pkt grown;
	bool changed = false;

	for (unsigned int i = 0; i < p->n[list]; i++) {
		const struct rule_pktop *op = &p->op[list][i];
		uint32_t len, cap;
		int rc;

		if (op->kind < RULE_PKTOP_TOS)
			continue;
		if (phase != DP_RW_ALL && (op->late != 0) != (phase == DP_RW_LATE))
			continue;
		if (unlikely(m->nb_segs > 1) && rw_headers_up(m, pkt) != 0) {
			c->st.rewrite_skipped++;
			continue;
		}
		len = rte_pktmbuf_data_len(m) > pkt->l3_off ? rte_pktmbuf_data_len(m) - pkt->l3_off : 0;
		cap = len + rte_pktmbuf_tailroom(m);
		rc = pktop_apply(op, rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off), len, cap,
			pkt, pkt->l3_off, mtu, m->nb_segs > 1 ? m : NULL);
		if (rc == 2) {
			/* The datagram grew by 4 bytes (TCPMSS added an option): the
			 * frame ends with it now (no Ethernet padding after it, in
			 * this segment or chained ones), and the later operations
			 * see its new length. (A SYN without data: all of it in the
			 * first segment, or tcpmss_insert() would not have grown it.) */
			if (m->next != NULL) {
				rte_pktmbuf_free(m->next);
				m->next = NULL;
				m->nb_segs = 1;
			}
			m->data_len = (uint16_t)(pkt->l3_off + pkt->ip_len + 4);
			m->pkt_len = m->data_len;
			grown = *pkt;
			grown.ip_len = (uint16_t)(grown.ip_len + 4);
			pkt = &grown;
		}
		if (rc < 0)
			c->st.rewrite_skipped++;
		else if (rc > 0)
			changed = true;
	}
	if (changed && !(phase == DP_RW_LATE && counted))
		c->st.rewritten++;
	return changed;
}
