/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: a packet context's per-packet fields from the frame's headers
 * (rule_pkt_parse()). Bounded reads only: whatever lies past the bytes
 * given stays zero.
 */
#include <errno.h>
#include <string.h>

#include "fc_wire.h"
#include "rules.h"

static void
set_bit(uint8_t *map, unsigned int i)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
}

static void
link_fields(struct rule_pkt *p, const uint8_t *f)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	memcpy(p->mac_src, f + 6, 6);
	p->flags |= RULE_PKT_F_MAC;
	if (memcmp(f, bcast, 6) == 0)
		p->pkttype = RULE_PKTTYPE_BROADCAST;
	else if (f[0] & 1)
		p->pkttype = RULE_PKTTYPE_MULTICAST;
	else
		p->pkttype = RULE_PKTTYPE_UNICAST;
}

/* TCP flags and options (bit per kind present; MSS kept). */
static void
tcp_fields(struct rule_pkt *p, const uint8_t *t, uint32_t n)
{
	uint32_t hlen, i;

	if (n < 20)
		return;
	p->tcp_flags = t[13];
	hlen = (uint32_t)(t[12] >> 4) * 4;
	if (hlen > n)
		hlen = n;
	for (i = 20; i < hlen;) {
		uint8_t kind = t[i];

		if (kind == 0)
			break;
		set_bit(p->tcp_opts, kind);
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen || t[i + 1] < 2 || i + t[i + 1] > hlen)
			break;
		if (kind == 2 && t[i + 1] == 4) {
			p->tcp_mss = fc_rd16(t + i + 2);
			p->flags |= RULE_PKT_F_MSS;
		}
		i += t[i + 1];
	}
}

static void
sctp_fields(struct rule_pkt *p, const uint8_t *s, uint32_t n)
{
	for (uint32_t i = 12; i + 4 <= n;) {
		uint32_t clen = fc_rd16(s + i + 2);

		set_bit(p->sctp_chunks, s[i]);
		if (clen < 4)
			break;
		i += (clen + 3) & ~3u;
	}
}

static void
l4_fields(struct rule_pkt *p, unsigned int proto, const uint8_t *l4, uint32_t n)
{
	switch (proto) {
	case 6:
		tcp_fields(p, l4, n);
		break;
	case 1:
	case 58:
		if (n >= 2) {
			p->icmp_type = l4[0];
			p->icmp_code = l4[1];
		}
		break;
	case 132:
		sctp_fields(p, l4, n);
		break;
	case 50:
		if (n >= 4) {
			p->spi = fc_rd32(l4);
			p->flags |= RULE_PKT_F_SPI;
		}
		break;
	case 51:
		if (n >= 8) {
			p->spi = fc_rd32(l4 + 4);
			p->flags |= RULE_PKT_F_SPI;
		}
		break;
	case 108:
		/* IPComp: the 16-bit CPI stands in for an SPI (-m ipcomp). */
		if (n >= 4) {
			p->spi = fc_rd16(l4 + 2);
			p->flags |= RULE_PKT_F_SPI;
		}
		break;
	case 135:
		if (n >= 3)
			p->mh_type = l4[2];
		break;
	default:
		break;
	}
}

/*
 * IPv6 extension headers from @p off (after the fixed header) with next
 * header @p nh: what is present, and the fields of those rules look at.
 */
static void
ip6_walk(struct rule_pkt *p, const uint8_t *f, uint32_t len, uint32_t off, unsigned int nh)
{
	for (unsigned int hops = 0; hops < 16; hops++) {
		const uint8_t *h = f + off;
		uint32_t hl;

		switch (nh) {
		case 59:
			p->ip6_hdrs |= RULE_IP6H_NONE;
			return;
		case 50:
			p->ip6_hdrs |= RULE_IP6H_ESP;
			if (off + 4 <= len) {
				p->spi = fc_rd32(h);
				p->flags |= RULE_PKT_F_SPI;
			}
			return;
		case 0:
		case 43:
		case 44:
		case 51:
		case 60:
			break;
		default:
			p->ip6_hdrs |= RULE_IP6H_PROTO;
			return;
		}
		if (off + 8 > len)
			return;
		if (nh == 44) {
			uint16_t fo = fc_rd16(h + 2);

			hl = 8;
			p->ip6_hdrs |= RULE_IP6H_FRAG;
			p->flags |= RULE_PKT_F_FRAGHDR;
			p->frag_hdrlen = h[1];
			p->frag_id = fc_rd32(h + 4);
			if (h[1] != 0 || (fo & 6))
				p->frag_flags |= RULE_FRAG_F_RES;
			if ((fo >> 3) == 0)
				p->frag_flags |= RULE_FRAG_F_FIRST;
			if (fo & 1)
				p->frag_flags |= RULE_FRAG_F_MORE;
		} else if (nh == 51) {
			hl = ((uint32_t)h[1] + 2) * 4;
			p->ip6_hdrs |= RULE_IP6H_AH;
			p->spi = fc_rd32(h + 4);
			p->flags |= RULE_PKT_F_SPI;
		} else {
			hl = ((uint32_t)h[1] + 1) * 8;
			if (nh == 0) {
				p->ip6_hdrs |= RULE_IP6H_HOP;
				p->hbh_len = (uint16_t)hl;
			} else if (nh == 60) {
				p->ip6_hdrs |= RULE_IP6H_DST;
				p->dst_len = (uint16_t)hl;
			} else {
				p->ip6_hdrs |= RULE_IP6H_ROUTE;
				p->rt_type = h[2];
				p->rt_segsleft = h[3];
				p->rt_len = (uint16_t)hl;
			}
		}
		nh = h[0];
		off += hl;
	}
}

int
rule_pkt_parse(struct rule_pkt *p, const uint8_t *frame, uint32_t len, unsigned int l3_off,
	unsigned int l4_off)
{
	const uint8_t *ip;
	unsigned int proto;

	if (p == NULL || frame == NULL)
		return -EINVAL;
	if (l3_off >= 14 && l3_off <= len)
		link_fields(p, frame);
	ip = frame + l3_off;
	if ((uint64_t)l3_off + 20 > len)
		return -EINVAL;
	if ((ip[0] >> 4) == 4) {
		p->tos = ip[1];
		p->l3_len = fc_rd16(ip + 2);
		p->ttl = ip[8];
		if (fc_rd16(ip + 6) & 0x1fff)
			p->flags |= RULE_PKT_F_NOPORTS;
		proto = ip[9];
	} else if ((ip[0] >> 4) == 6) {
		if ((uint64_t)l3_off + 40 > len)
			return -EINVAL;
		p->tos = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		p->l3_len = (uint16_t)(40 + fc_rd16(ip + 4));
		p->ttl = ip[7];
		ip6_walk(p, frame, len, l3_off + 40, ip[6]);
		proto = fc_key_proto(&p->key);
	} else {
		return -EINVAL;
	}
	/* The datagram's bytes (not the frame's padding), as far as they are here. */
	p->l3 = ip;
	p->l3_cap = len - l3_off < p->l3_len ? len - l3_off : p->l3_len;
	if (l4_off == 0 || l4_off < l3_off || l4_off >= len || (p->flags & RULE_PKT_F_NOPORTS))
		return 0;
	l4_fields(p, proto, frame + l4_off, len - l4_off);
	return 0;
}
