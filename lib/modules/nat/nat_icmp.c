/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat/nat_icmp.c — ICMP and ICMPv6 errors about translated
 * connections (see mod_nat_icmp_error() in nat.h). Slow path only: an
 * error is never cached, every one comes through the rules lcore. Pure C.
 *
 * The quoted packet is one the connection sent, as it left gufc; the error
 * travels the other way. The engine finds the entry whose key is the
 * quoted packet reversed and hands over that entry's rewrite slot: the
 * slot turns a packet of the error's direction from how it arrives into
 * how its receiver must see it. The outer addresses that are the entry's
 * get exactly that rewrite; the quoted header gets its mirror image
 * (source and destination swapped), so the receiver finds in the error the
 * packet it sent itself, as Linux's NAT does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ip.h>

#include "nat_priv.h"

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* IPv4 header checksum, recomputed in place (options included). */
static void
ipv4_csum(uint8_t *ip)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)(void *)ip;

	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
}

/*
 * Incremental update (RFC 1624, mod_nat's own) of the checksum at @p csum
 * for @p len bytes changing from @p old to @p new. A UDP checksum of 0
 * (none) stays 0, and a computed 0 is sent as 0xffff.
 */
static void
csum_update(uint8_t *csum, const uint8_t *old, const uint8_t *new, uint32_t len, bool udp)
{
	uint16_t c;

	memcpy(&c, csum, sizeof(c));
	if (udp && c == 0)
		return;
	c = mod_nat_csum_adjust(c, mod_nat_csum_delta(old, new, len));
	if (udp && c == 0)
		c = 0xffff;
	memcpy(csum, &c, sizeof(c));
}

int
mod_nat_icmp_error(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len)
{
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)nat;
	const struct mod_nat_rewrite *rw;
	uint32_t end, icmp, in, in_l4, in_end, alen, in_ihl, so;
	uint8_t *osrc, *odst, *isrc, *idst, in_proto, type;
	uint8_t old[36], new[36];
	bool v4, ports, echo;

	if (nat == NULL || l3 == NULL || slot >= v->n_slots)
		return -EINVAL;
	rw = &v->slots[slot];

	/* The outer header and the ICMP header: every check before any write. */
	if (l3_len < 20)
		return -EINVAL;
	v4 = (l3[0] >> 4) == 4;
	if (v4 != (rw->family == FC_AF_INET4) || (!v4 && (l3[0] >> 4) != 6))
		return -EINVAL;
	if (v4) {
		uint32_t ihl = (uint32_t)(l3[0] & 0x0f) * 4;

		end = get16(l3 + 2);
		if (ihl < 20 || end < ihl || l3[9] != PROTO_ICMP ||
			(get16(l3 + 6) & 0x3fff) != 0)
			return -EINVAL; /* fragments are reassembled before they get here */
		icmp = ihl;
		alen = 4;
		osrc = l3 + 12;
		odst = l3 + 16;
	} else {
		if (l3_len < 40 || l3[6] != PROTO_ICMPV6)
			return -EINVAL; /* extension headers: not translated */
		end = 40u + get16(l3 + 4);
		icmp = 40;
		alen = 16;
		osrc = l3 + 8;
		odst = l3 + 24;
	}
	if (end > l3_len)
		return -ENOTSUP; /* the checksum covers it all: linearize first */
	if (icmp + 8 > end)
		return -EINVAL;
	type = l3[icmp];
	/* The errors conntrack finds related (conntrack.c): unreachable,
	 * source quench, redirect, time exceeded, parameter problem; ICMPv6 1-4. */
	if (v4 ? !(type == 3 || type == 4 || type == 5 || type == 11 || type == 12) :
		 !(type >= 1 && type <= 4))
		return -EINVAL;

	/* The quoted header. */
	in = icmp + 8;
	if (v4) {
		if (in + 20 > end || (l3[in] >> 4) != 4)
			return -EINVAL;
		in_ihl = (uint32_t)(l3[in] & 0x0f) * 4;
		if (in_ihl < 20 || in + in_ihl > end)
			return -EINVAL;
		in_proto = l3[in + 9];
		isrc = l3 + in + 12;
		idst = l3 + in + 16;
		/* a non-first fragment quotes no L4 header */
		ports = (get16(l3 + in + 6) & 0x1fff) == 0;
	} else {
		if (in + 40 > end || (l3[in] >> 4) != 6)
			return -EINVAL;
		in_ihl = 40;
		in_proto = l3[in + 6];
		isrc = l3 + in + 8;
		idst = l3 + in + 24;
		ports = true;
	}
	in_l4 = in + in_ihl;
	in_end = end;
	echo = (in_proto == PROTO_ICMP && v4) || (in_proto == PROTO_ICMPV6 && !v4);
	if (echo && in_l4 + 8 <= in_end) {
		uint8_t t = l3[in_l4];

		echo = fc_icmp_nat_id(v4 ? FC_AF_INET4 : FC_AF_INET6, t);
	} else {
		echo = false;
	}
	ports = ports && (in_proto == PROTO_TCP || in_proto == PROTO_UDP ||
				 in_proto == PROTO_UDPLITE || in_proto == PROTO_SCTP ||
				 in_proto == PROTO_DCCP) &&
		in_l4 + 4 <= in_end;

	/*
	 * Outer: the addresses that are the entry's (the quoted packet's,
	 * swapped) take the slot's rewrite. The outer IPv4 checksum is
	 * recomputed below; an ICMPv6 checksum covers them in its pseudo-header
	 * and is recomputed as a whole too.
	 */
	if (memcmp(osrc, idst, alen) == 0)
		memcpy(osrc, rw->src, alen);
	if (memcmp(odst, isrc, alen) == 0)
		memcpy(odst, rw->dst, alen);

	/* Quoted: the mirror image; its L4 checksum follows when quoted. */
	memcpy(old, isrc, alen);
	memcpy(old + alen, idst, alen);
	memcpy(new, rw->dst, alen);
	memcpy(new + alen, rw->src, alen);
	so = 2 * alen;
	if (ports) {
		memcpy(old + so, l3 + in_l4, 4);
		memcpy(new + so, &rw->dport, 2);
		memcpy(new + so + 2, &rw->sport, 2);
		memcpy(l3 + in_l4, new + so, 4);
		if (in_proto == PROTO_TCP && in_l4 + 18 <= in_end)
			csum_update(l3 + in_l4 + 16, old, new, so + 4, false);
		else if (in_proto == PROTO_UDP && in_l4 + 8 <= in_end)
			csum_update(l3 + in_l4 + 6, old, new, so + 4, v4);
		else if ((in_proto == PROTO_UDPLITE || in_proto == PROTO_DCCP) &&
			 in_l4 + 8 <= in_end)
			csum_update(l3 + in_l4 + 6, old, new, so + 4, false);
		/* SCTP: its CRC covers the whole quoted packet, which is cut. */
	} else if (echo) {
		/* The echo's identifier: what its sender used, one field both ways
		 * (the slot's sport; its dport is the type and code). */
		memcpy(old + so, l3 + in_l4 + 4, 2);
		memcpy(new + so, &rw->sport, 2);
		memcpy(l3 + in_l4 + 4, new + so, 2);
		if (v4) /* ICMPv4: no pseudo-header, only the identifier */
			csum_update(l3 + in_l4 + 2, old + so, new + so, 2, false);
		else
			csum_update(l3 + in_l4 + 2, old, new, so + 2, false);
	}
	memcpy(isrc, new, alen);
	memcpy(idst, new + alen, alen);
	if (v4)
		ipv4_csum(l3 + in);

	/* The ICMP checksum over the whole message as it now is. */
	memset(l3 + icmp + 2, 0, 2);
	if (v4) {
		uint16_t c = (uint16_t)~rte_raw_cksum(l3 + icmp, end - icmp);

		memcpy(l3 + icmp + 2, &c, sizeof(c));
		ipv4_csum(l3);
	} else {
		/* ICMPv6 right after the header: its length is the payload length. */
		uint16_t c = rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(const void *)l3,
			l3 + icmp);

		memcpy(l3 + icmp + 2, &c, sizeof(c));
	}
	return 0;
}
