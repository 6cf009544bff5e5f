/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat/nat_csum.c — what a NAT rewrite does to checksums: the
 * RFC 1624 deltas of changed 16-bit words, the rewrite slots a binding
 * fills for its two directions (new addresses and ports, which L4 header
 * and checksum to touch, the deltas precomputed so that mod_nat_apply() is
 * a handful of stores), and SCTP's CRC32c, which covers the whole packet:
 * updated by the port change's difference alone (the header is read, not
 * the chunks), the received CRC's error (if any) carried over. Pure C.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "fc_crc32c.h"
#include "nat_priv.h"

/* Sum of ~old + new over the 16-bit words that differ (memory order). */
static uint32_t
delta_words(uint32_t sum, const uint8_t *old, const uint8_t *new, uint32_t len)
{
	uint16_t o, n;
	uint32_t i;

	for (i = 0; i + 2 <= len; i += 2) {
		memcpy(&o, old + i, 2);
		memcpy(&n, new + i, 2);
		if (o != n)
			sum += (uint16_t)~o + (uint32_t)n;
	}
	return sum;
}

/* Fold a delta sum to 16 bits; 0 (positive zero) becomes 0xffff (see mod_nat_csum_adjust). */
static uint16_t
delta_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0 ? 0xffff : (uint16_t)sum;
}

uint16_t
mod_nat_csum_delta(const void *old, const void *new, uint32_t len)
{
	return delta_fold(delta_words(0, old, new, len));
}

/* Fill @p rw to turn packets keyed @p from into packets keyed @p to. */
void
nat_slot_fill(struct mod_nat_rewrite *rw, const struct fc_key *from, const struct fc_key *to)
{
	uint32_t alen = fc_af_addr_len(from->family);
	uint16_t fs = fc_key_sport(from), fd = fc_key_dport(from);
	uint16_t ts = fc_key_sport(to), td = fc_key_dport(to);
	uint8_t proto = fc_key_proto(from);
	uint32_t a, p;

	memset(rw, 0, sizeof(*rw));
	rw->family = from->family;
	memcpy(rw->src, fc_key_src(to), alen);
	memcpy(rw->dst, fc_key_dst(to), alen);
	if (from->family == FC_AF_INET4) {
		memcpy(rw->a4, rw->src, 4);
		memcpy(rw->a4 + 4, rw->dst, 4);
	}
	rw->sport = ts;
	rw->dport = td;
	a = delta_words(0, fc_key_src(from), fc_key_src(to), alen);
	a = delta_words(a, fc_key_dst(from), fc_key_dst(to), alen);
	rw->ip_delta = delta_fold(a);

	if (nat_key_is_echo(from)) {
		/* one identifier field, whatever both key ports say */
		p = delta_words(0, (const uint8_t *)&fs, (const uint8_t *)&ts, 2);
		rw->l4 = MOD_NAT_L4_ECHO;
		rw->csum_off = 2;
		rw->l4_min = 8;
		rw->l4_delta = delta_fold(from->family == FC_AF_INET6 ? a + p : p);
		return;
	}
	if (from->family == FC_AF_INET6 && proto == PROTO_ICMPV6) {
		rw->l4 = MOD_NAT_L4_CSUM;
		rw->csum_off = 2;
		rw->l4_min = 4;
		rw->l4_delta = delta_fold(a);
		return;
	}
	p = delta_words(0, (const uint8_t *)&fs, (const uint8_t *)&ts, 2);
	p = delta_words(p, (const uint8_t *)&fd, (const uint8_t *)&td, 2);
	switch (proto) {
	case PROTO_TCP:
		rw->l4 = MOD_NAT_L4_TCP;
		rw->csum_off = 16;
		rw->l4_min = 20;
		rw->fast = MOD_NAT_FAST_PORTS;
		break;
	case PROTO_UDP:
		rw->l4 = MOD_NAT_L4_UDP;
		rw->csum_off = 6;
		rw->l4_min = 8;
		rw->fast = MOD_NAT_FAST_UDP;
		break;
	case PROTO_UDPLITE:
		/* Ports and pseudo-header are always covered; the checksum is
		 * mandatory (conntrack finds a zero one INVALID): as TCP's. */
		rw->l4 = MOD_NAT_L4_UDPLITE;
		rw->csum_off = 6;
		rw->l4_min = 8;
		rw->fast = MOD_NAT_FAST_PORTS;
		break;
	case PROTO_DCCP:
		/* As Linux's DCCP NAT: ports, and the checksum, which covers the
		 * pseudo-header and the generic header whatever its coverage. */
		rw->l4 = MOD_NAT_L4_DCCP;
		rw->csum_off = 6;
		rw->l4_min = 12;
		rw->fast = MOD_NAT_FAST_PORTS;
		break;
	case PROTO_SCTP:
		/* CRC32c does not cover the addresses: only port changes matter */
		if (fs != ts || fd != td) {
			rw->l4 = MOD_NAT_L4_SCTP;
			rw->l4_min = 12;
		}
		return;
	default:
		return;
	}
	rw->l4_delta = delta_fold(a + p);
	if (rw->fast != MOD_NAT_FAST_NONE)
		rw->fast_family = rw->family;
}

/*
 * Everything mod_nat_apply() does not take in line: ICMP and ICMPv6 (echo
 * identifier, ICMPv6's pseudo-header), SCTP, other protocols (addresses
 * only), non-first fragments, the checks that refuse a packet.
 */
int
mod_nat_apply_rest(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len,
	const struct fc_pkt *pkt)
{
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)nat;
	const struct mod_nat_rewrite *rw;
	uint32_t l4_rel = (uint32_t)pkt->l4_off - pkt->l3_off;
	bool do_l4;
	uint8_t *l4;
	uint16_t c;

	RTE_ASSERT(slot < v->n_slots);
	rw = &v->slots[slot];
	/* Every check before the first write: no packet is half-rewritten. */
	if (rw->family != pkt->key.family)
		return -EINVAL;
	if (l3_len < (rw->family == FC_AF_INET4 ? 20u : 40u))
		return -EINVAL;
	do_l4 = rw->l4 != MOD_NAT_L4_NONE && pkt->frag != FC_FRAG_LATER;
	if (do_l4) {
		if (pkt->l4_off <= pkt->l3_off || l4_rel + rw->l4_min > l3_len)
			return -EINVAL;
		/* The CRC's update needs the packet's length, not its chunks: a
		 * chained datagram's header suffices; a fragment's length is not
		 * the packet's. */
		if (rw->l4 == MOD_NAT_L4_SCTP &&
			(pkt->frag != FC_FRAG_NONE || pkt->ip_len < l4_rel + rw->l4_min))
			return -ENOTSUP;
	}

	if (rw->family == FC_AF_INET4) {
		memcpy(l3 + 12, rw->src, 4);
		memcpy(l3 + 16, rw->dst, 4);
		memcpy(&c, l3 + 10, 2);
		c = mod_nat_csum_adjust(c, rw->ip_delta);
		memcpy(l3 + 10, &c, 2);
	} else {
		memcpy(l3 + 8, rw->src, 16);
		memcpy(l3 + 24, rw->dst, 16);
	}
	if (!do_l4)
		return 0;
	l4 = l3 + l4_rel;
	switch (rw->l4) {
	case MOD_NAT_L4_ECHO:
		memcpy(l4 + 4, &rw->sport, 2);
		break;
	case MOD_NAT_L4_CSUM:
		break;
	case MOD_NAT_L4_SCTP:
		mod_nat_sctp_ports(l4, pkt->ip_len - l4_rel, &rw->sport, &rw->dport);
		return 0;
	default: /* TCP, UDP, UDP-Lite, DCCP (a fast slot of a packet cut short: refused above) */
		memcpy(l4, &rw->sport, 2);
		memcpy(l4 + 2, &rw->dport, 2);
		break;
	}
	memcpy(&c, l4 + rw->csum_off, 2);
	if (rw->l4 == MOD_NAT_L4_UDP && c == 0)
		return 0;
	c = mod_nat_csum_adjust(c, rw->l4_delta);
	if (rw->l4 == MOD_NAT_L4_UDP && c == 0)
		c = 0xffff;
	memcpy(l4 + rw->csum_off, &c, 2);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* SCTP                                                                      */
/* ------------------------------------------------------------------------ */

void
mod_nat_sctp_csum(uint8_t *sctp, uint32_t len)
{
	uint32_t crc = fc_sctp_crc(sctp, len);

	/* RFC 9260 appendix A: the reflected CRC goes out least significant byte first */
	sctp[8] = (uint8_t)crc;
	sctp[9] = (uint8_t)(crc >> 8);
	sctp[10] = (uint8_t)(crc >> 16);
	sctp[11] = (uint8_t)(crc >> 24);
}

/*
 * The CRC32c of a packet is affine in its bits: for two packets of one
 * length, crc(a) ^ crc(b) is the CRC register run from 0 over a ^ b. A
 * port change makes a ^ b the ports' 4 bytes of difference followed by
 * len - 4 zero bytes, so the stored CRC ^ that run is the new packet's
 * CRC for a packet that arrived intact, and keeps a corrupted packet's
 * error (the receiver still drops it, as it would have without NAT). Only
 * the header is read: the rest of the packet may lie in other segments
 * of a chained mbuf (a jumbo datagram) or be absent. The zeros cost one
 * CRC32c instruction per 8 bytes where the CPU has it (fc_crc32c.h).
 */
void
mod_nat_sctp_ports(uint8_t *sctp, uint32_t len, const void *sport, const void *dport)
{
	static const uint8_t zeros[256];
	uint8_t diff[4];
	uint32_t c, stored, n;

	memcpy(diff, sport, 2);
	memcpy(diff + 2, dport, 2);
	for (unsigned int i = 0; i < 4; i++)
		diff[i] ^= sctp[i];
	c = fc_crc32c_update(0, diff, 4);
	for (n = len - 4; n > 0; n -= RTE_MIN(n, (uint32_t)sizeof(zeros)))
		c = fc_crc32c_update(c, zeros, RTE_MIN(n, (uint32_t)sizeof(zeros)));
	memcpy(sctp, sport, 2);
	memcpy(sctp + 2, dport, 2);
	stored = (uint32_t)sctp[8] | (uint32_t)sctp[9] << 8 | (uint32_t)sctp[10] << 16 |
		 (uint32_t)sctp[11] << 24;
	stored ^= c;
	/* RFC 9260 appendix A: least significant byte first */
	sctp[8] = (uint8_t)stored;
	sctp[9] = (uint8_t)(stored >> 8);
	sctp[10] = (uint8_t)(stored >> 16);
	sctp[11] = (uint8_t)(stored >> 24);
}
