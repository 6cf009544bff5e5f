/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh/neigh_frame.c — the frame codec of the neighbour
 * module (neigh.h, "Frames"): ARP (RFC 826) and IPv6 neighbour discovery
 * (RFC 4861) read from and written to flat buffers, with the ICMPv6
 * checksum. Pure C: no EAL, no mbufs; the module (neigh_io.c) puts the
 * frames in mbufs. Never reads outside [frame, frame + len).
 */
#include <errno.h>
#include <string.h>

#include "fc_wire.h"
#include "flowcache.h"
#include "neigh.h"

#define ETH_HLEN 14
#define ARP_BODY 28
#define IP6_HLEN 40
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_BODY 24 /* type, code, checksum, flags/reserved, target */

/* The ICMPv6 checksum of the message at @p ip6 + 40 (@p plen bytes), the field included. */
static uint16_t
icmp6_csum(const uint8_t *ip6, uint32_t plen)
{
	return fc_csum_fold(fc_csum_add(fc_csum_pseudo(ip6, 0, 58, plen), ip6 + IP6_HLEN, plen));
}

static int
parse_arp(const uint8_t *p, uint32_t len, struct mod_neigh_msg *m)
{
	uint16_t op;

	if (len < ARP_BODY)
		return -EINVAL;
	/* Ethernet hardware, IPv4 protocol, 6 and 4 byte addresses. */
	if (fc_rd16(p) != 1 || fc_rd16(p + 2) != 0x0800 || p[4] != 6 || p[5] != 4)
		return -EINVAL;
	op = fc_rd16(p + 6);
	if (op != 1 && op != 2)
		return -EINVAL;
	m->kind = op == 1 ? MOD_NEIGH_MSG_ARP_REQUEST : MOD_NEIGH_MSG_ARP_REPLY;
	m->family = FC_AF_INET4;
	m->has_lladdr = true;
	memcpy(m->lladdr, p + 8, 6);
	memcpy(m->src, p + 14, 4);
	memcpy(m->dst, p + 24, 4);
	memcpy(m->target, p + 24, 4);
	/* A sender hardware address that is multicast (or broadcast) is a lie. */
	if (m->lladdr[0] & 1)
		return -EINVAL;
	return 0;
}

/* Walk the options; take the link-layer address of type @p want. */
static int
nd_options(const uint8_t *o, uint32_t len, uint8_t want, struct mod_neigh_msg *m)
{
	while (len > 0) {
		uint32_t olen;

		if (len < 2)
			return -EINVAL;
		olen = (uint32_t)o[1] * 8;
		if (olen == 0 || olen > len)
			return -EINVAL;
		if (o[0] == want && olen >= 8) {
			memcpy(m->lladdr, o + 2, 6);
			m->has_lladdr = true;
		}
		o += olen;
		len -= olen;
	}
	return 0;
}

static int
parse_nd(const uint8_t *ip6, uint32_t len, struct mod_neigh_msg *m)
{
	const uint8_t *icmp = ip6 + IP6_HLEN;
	uint32_t plen;
	uint8_t type;

	if (len < IP6_HLEN || (ip6[0] >> 4) != 6)
		return -EINVAL;
	if (ip6[6] != 58) /* extension headers before ND: not ND as we take it */
		return -ENOTSUP;
	plen = fc_rd16(ip6 + 4);
	if (plen < 4 || IP6_HLEN + plen > len)
		return -EINVAL;
	type = icmp[0];
	if (type < 133 || type > 137)
		return -ENOTSUP;
	/* RFC 4861 7.1.1 / 7.1.2: hop limit 255, code 0, a valid checksum. */
	if (ip6[7] != 255 || icmp[1] != 0 || icmp6_csum(ip6, plen) != 0)
		return -EINVAL;
	m->family = FC_AF_INET6;
	memcpy(m->src, ip6 + 8, 16);
	memcpy(m->dst, ip6 + 24, 16);
	if (type != ICMP6_NS && type != ICMP6_NA) {
		m->kind = MOD_NEIGH_MSG_ND_OTHER;
		return 0;
	}
	if (plen < ND_BODY)
		return -EINVAL;
	memcpy(m->target, icmp + 8, 16);
	if (m->target[0] == 0xff) /* a multicast target */
		return -EINVAL;
	if (type == ICMP6_NS) {
		m->kind = MOD_NEIGH_MSG_NS;
		return nd_options(icmp + ND_BODY, plen - ND_BODY, ND_OPT_SLLA, m);
	}
	m->kind = MOD_NEIGH_MSG_NA;
	m->flags = icmp[4] & (MOD_NEIGH_NA_ROUTER | MOD_NEIGH_NA_SOLICITED | MOD_NEIGH_NA_OVERRIDE);
	return nd_options(icmp + ND_BODY, plen - ND_BODY, ND_OPT_TLLA, m);
}

int
mod_neigh_parse(const uint8_t *frame, uint32_t len, struct mod_neigh_msg *m)
{
	uint16_t et;

	if (frame == NULL || m == NULL)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (len < ETH_HLEN)
		return -EINVAL;
	memcpy(m->eth_dst, frame, 6);
	memcpy(m->eth_src, frame + 6, 6);
	et = fc_rd16(frame + 12);
	if (et == MOD_NEIGH_ETH_ARP)
		return parse_arp(frame + ETH_HLEN, len - ETH_HLEN, m);
	if (et == MOD_NEIGH_ETH_IPV6)
		return parse_nd(frame + ETH_HLEN, len - ETH_HLEN, m);
	return -ENOTSUP;
}

static void
eth_hdr(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	fc_wr16(buf + 12, type);
}

unsigned int
mod_neigh_build_arp(uint8_t *buf, uint16_t op, const uint8_t eth_dst[6], const uint8_t sha[6],
	const uint8_t spa[4], const uint8_t tha[6], const uint8_t tpa[4])
{
	uint8_t *a = buf + ETH_HLEN;

	memset(buf, 0, MOD_NEIGH_ARP_LEN);
	eth_hdr(buf, eth_dst, sha, MOD_NEIGH_ETH_ARP);
	fc_wr16(a, 1);
	fc_wr16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	fc_wr16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	return MOD_NEIGH_ARP_LEN;
}

/* IPv6 header and the ND body with one link-layer option; checksum last. */
static unsigned int
build_nd(uint8_t *buf, const uint8_t eth_dst[6], const uint8_t eth_src[6], const uint8_t src[16],
	const uint8_t dst[16], uint8_t type, uint8_t flags, const uint8_t target[16], uint8_t opt)
{
	uint8_t *ip6 = buf + ETH_HLEN, *icmp = ip6 + IP6_HLEN;
	uint16_t plen = ND_BODY + 8, c;

	memset(buf, 0, MOD_NEIGH_ND_LEN);
	eth_hdr(buf, eth_dst, eth_src, MOD_NEIGH_ETH_IPV6);
	ip6[0] = 0x60;
	fc_wr16(ip6 + 4, plen);
	ip6[6] = 58;
	ip6[7] = 255;
	memcpy(ip6 + 8, src, 16);
	memcpy(ip6 + 24, dst, 16);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[ND_BODY] = opt;
	icmp[ND_BODY + 1] = 1;
	memcpy(icmp + ND_BODY + 2, eth_src, 6);
	c = icmp6_csum(ip6, plen);
	fc_wr16(icmp + 2, c);
	return MOD_NEIGH_ND_LEN;
}

unsigned int
mod_neigh_build_ns(uint8_t *buf, const uint8_t eth_src[6], const uint8_t src[16],
	const uint8_t target[16], const uint8_t *unicast)
{
	uint8_t dst[16], mac[6];

	if (unicast != NULL) {
		memcpy(dst, target, 16);
		memcpy(mac, unicast, 6);
	} else {
		/* Solicited-node multicast ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX. */
		static const uint8_t snm[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

		memcpy(dst, snm, 13);
		memcpy(dst + 13, target + 13, 3);
		mac[0] = 0x33;
		mac[1] = 0x33;
		memcpy(mac + 2, dst + 12, 4);
	}
	return build_nd(buf, mac, eth_src, src, dst, ICMP6_NS, 0, target, ND_OPT_SLLA);
}

unsigned int
mod_neigh_build_na(uint8_t *buf, const uint8_t eth_src[6], const uint8_t eth_dst[6],
	const uint8_t target[16], const uint8_t dst[16], uint8_t flags)
{
	return build_nd(buf, eth_dst, eth_src, target, dst, ICMP6_NA, flags, target, ND_OPT_TLLA);
}
