/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/flowcache/pkt_build.c — the packet builder behind pkt_build.h:
 * layers pushed outermost first into a caller buffer, lengths and checksums
 * fixed at the end, and IPv4/IPv6 fragmenters. Pure C, no EAL, no DPDK.
 */

#include <errno.h>
#include <string.h>

#include "csum_ref.h"
#include "pkt_build.h"

enum {
	PB_LINK_NONE,
	PB_LINK_ETH, /* 2-byte ethertype at link_off */
	PB_LINK_IP,  /* 1-byte protocol / next header at link_off */
};

static const uint8_t pb_mac_dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t pb_mac_src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Reserve @p n zeroed bytes; NULL (and a sticky error) if they do not fit. */
static uint8_t *
pb_push(struct pb *b, uint32_t n)
{
	uint8_t *p;

	if (b->err != 0)
		return NULL;
	if (n > b->cap - b->len) {
		b->err = -ENOSPC;
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

/* Write @p type into the previous layer's type field. */
static void
pb_link(struct pb *b, int kind, uint16_t type)
{
	if (b->err != 0)
		return;
	if (b->link != kind) {
		b->err = -EINVAL;
		return;
	}
	if (kind == PB_LINK_ETH)
		put16(b->buf + b->link_off, type);
	else
		b->buf[b->link_off] = (uint8_t)type;
}

void
pb_init(struct pb *b, uint8_t *buf, uint32_t cap)
{
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap;
}

void
pb_eth(struct pb *b, const uint8_t *dst, const uint8_t *src)
{
	uint8_t *p = pb_push(b, 14);

	if (p == NULL)
		return;
	memcpy(p, dst != NULL ? dst : pb_mac_dst, 6);
	memcpy(p + 6, src != NULL ? src : pb_mac_src, 6);
	b->link = PB_LINK_ETH;
	b->link_off = b->len - 2;
}

void
pb_vlan(struct pb *b, uint16_t tpid, uint16_t tci)
{
	uint8_t *p;

	pb_link(b, PB_LINK_ETH, tpid);
	p = pb_push(b, 4);
	if (p == NULL)
		return;
	put16(p, tci);
	b->link_off = b->len - 2;
}

void
pb_ethertype(struct pb *b, uint16_t type)
{
	pb_link(b, PB_LINK_ETH, type);
	b->link = PB_LINK_NONE;
}

void
pb_ipv4(struct pb *b, const struct pb_ipv4 *ip)
{
	uint16_t fl;
	uint8_t *p;

	if (b->err == 0 && (ip->opts_len % 4 != 0 || ip->opts_len > 40 || b->l3_family != 0 ||
				   ip->frag_off % 8 != 0))
		b->err = -EINVAL;
	pb_link(b, PB_LINK_ETH, PB_ETH_IPV4);
	p = pb_push(b, 20u + ip->opts_len);
	if (p == NULL)
		return;
	p[0] = (uint8_t)(0x40 | ((20 + ip->opts_len) >> 2));
	p[1] = ip->tos;
	put16(p + 4, ip->id);
	fl = (uint16_t)(ip->frag_off >> 3);
	if (ip->mf)
		fl |= 0x2000;
	if (ip->df)
		fl |= 0x4000;
	put16(p + 6, fl);
	p[8] = ip->ttl != 0 ? ip->ttl : 64;
	put32(p + 12, ip->src);
	put32(p + 16, ip->dst);
	if (ip->opts_len != 0 && ip->opts != NULL)
		memcpy(p + 20, ip->opts, ip->opts_len);
	b->l3_family = 4;
	b->l3_off = (uint32_t)(p - b->buf);
	b->frag_later = ip->frag_off != 0;
	b->link = PB_LINK_IP;
	b->link_off = b->l3_off + 9;
}

void
pb_ipv6(struct pb *b, const struct pb_ipv6 *ip)
{
	uint8_t *p;

	if (b->err == 0 && b->l3_family != 0)
		b->err = -EINVAL;
	pb_link(b, PB_LINK_ETH, PB_ETH_IPV6);
	p = pb_push(b, 40);
	if (p == NULL)
		return;
	put32(p, 0x60000000u | (uint32_t)ip->tclass << 20 | (ip->flow & 0xfffff));
	p[7] = ip->hlim != 0 ? ip->hlim : 64;
	memcpy(p + 8, ip->src, 16);
	memcpy(p + 24, ip->dst, 16);
	b->l3_family = 6;
	b->l3_off = (uint32_t)(p - b->buf);
	b->link = PB_LINK_IP;
	b->link_off = b->l3_off + 6;
}

/* Fill @p n bytes of an options header with Pad1/PadN options. */
static void
pb_padn(uint8_t *p, uint32_t n)
{
	uint32_t k;

	while (n > 0) {
		if (n == 1) {
			p[0] = 0; /* Pad1 */
			return;
		}
		k = n - 2 > 255 ? 255 : n - 2;
		p[0] = 1;
		p[1] = (uint8_t)k;
		memset(p + 2, 0, k);
		p += 2 + k;
		n -= 2 + k;
	}
}

void
pb_ipv6_ext(struct pb *b, uint8_t type, uint32_t len)
{
	uint8_t *p;

	if (b->err == 0 && (len < 8 || len > 2048 || len % 8 != 0 || b->l3_family != 6))
		b->err = -EINVAL;
	pb_link(b, PB_LINK_IP, type);
	p = pb_push(b, len);
	if (p == NULL)
		return;
	p[1] = (uint8_t)(len / 8 - 1);
	if (type == PB_PROTO_ROUTING) {
		p[2] = 0; /* routing type 0, segments left 0: ignored */
		p[3] = 0;
	} else {
		pb_padn(p + 2, len - 2);
	}
	b->link_off = (uint32_t)(p - b->buf);
}

void
pb_ipv6_frag(struct pb *b, uint16_t off, bool more, uint32_t id)
{
	uint8_t *p;

	if (b->err == 0 && (off % 8 != 0 || b->l3_family != 6))
		b->err = -EINVAL;
	pb_link(b, PB_LINK_IP, PB_PROTO_FRAGMENT);
	p = pb_push(b, 8);
	if (p == NULL)
		return;
	put16(p + 2, (uint16_t)(off | (more ? 1 : 0)));
	put32(p + 4, id);
	if (off != 0)
		b->frag_later = 1;
	b->link_off = (uint32_t)(p - b->buf);
}

/* Link an L4 header of @p n bytes and remember where it is. */
static uint8_t *
pb_l4(struct pb *b, uint8_t proto, uint32_t n)
{
	uint8_t *p;

	pb_link(b, PB_LINK_IP, proto);
	p = pb_push(b, n);
	if (p == NULL)
		return NULL;
	b->l4_proto = proto;
	b->l4_off = (uint32_t)(p - b->buf);
	b->link = PB_LINK_NONE;
	return p;
}

void
pb_tcp(struct pb *b, uint16_t sport, uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
	uint8_t opts_len)
{
	uint8_t *p;

	if (b->err == 0 && (opts_len % 4 != 0 || opts_len > 40))
		b->err = -EINVAL;
	p = pb_l4(b, PB_PROTO_TCP, 20u + opts_len);
	if (p == NULL)
		return;
	put16(p, sport);
	put16(p + 2, dport);
	put32(p + 4, seq);
	put32(p + 8, ack);
	p[12] = (uint8_t)(((20 + opts_len) / 4) << 4);
	p[13] = flags;
	put16(p + 14, 65535);
	memset(p + 20, 1, opts_len); /* NOP */
}

void
pb_tcp_opts(struct pb *b, const uint8_t *opts, uint8_t len)
{
	uint8_t *p;

	if (b->err != 0)
		return;
	if (b->l4_proto != PB_PROTO_TCP || b->l4_off + 20u + len > b->len ||
		20u + len > (uint32_t)(b->buf[b->l4_off + 12] >> 4) * 4) {
		b->err = -EINVAL;
		return;
	}
	p = b->buf + b->l4_off + 20;
	memcpy(p, opts, len);
}

void
pb_tcp_win(struct pb *b, uint16_t win)
{
	if (b->err != 0)
		return;
	if (b->l4_proto != PB_PROTO_TCP) {
		b->err = -EINVAL;
		return;
	}
	put16(b->buf + b->l4_off + 14, win);
}

void
pb_udp(struct pb *b, uint16_t sport, uint16_t dport)
{
	uint8_t *p = pb_l4(b, PB_PROTO_UDP, 8);

	if (p == NULL)
		return;
	put16(p, sport);
	put16(p + 2, dport);
}

void
pb_sctp(struct pb *b, uint16_t sport, uint16_t dport, uint32_t vtag)
{
	uint8_t *p = pb_l4(b, PB_PROTO_SCTP, 12);

	if (p == NULL)
		return;
	put16(p, sport);
	put16(p + 2, dport);
	put32(p + 4, vtag);
}

static void
pb_icmp_any(struct pb *b, uint8_t proto, uint8_t type, uint8_t code, uint16_t id, uint16_t seq)
{
	uint8_t *p = pb_l4(b, proto, 8);

	if (p == NULL)
		return;
	p[0] = type;
	p[1] = code;
	put16(p + 4, id);
	put16(p + 6, seq);
}

void
pb_icmp(struct pb *b, uint8_t type, uint8_t code, uint16_t id, uint16_t seq)
{
	pb_icmp_any(b, PB_PROTO_ICMP, type, code, id, seq);
}

void
pb_icmp6(struct pb *b, uint8_t type, uint8_t code, uint16_t id, uint16_t seq)
{
	pb_icmp_any(b, PB_PROTO_ICMPV6, type, code, id, seq);
}

void
pb_l4_raw(struct pb *b, uint8_t proto, const void *data, uint32_t len)
{
	uint8_t *p;

	pb_link(b, PB_LINK_IP, proto);
	p = pb_push(b, len);
	if (p == NULL)
		return;
	if (data != NULL)
		memcpy(p, data, len);
	b->link = PB_LINK_NONE;
}

void
pb_payload(struct pb *b, const void *data, uint32_t len)
{
	uint8_t *p = pb_push(b, len);
	uint32_t i;

	if (p == NULL)
		return;
	if (data != NULL) {
		memcpy(p, data, len);
		return;
	}
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(0xa5 ^ i);
}

/* Internet checksum (RFC 1071) of @p len bytes after @p sum, folded, not inverted. */
static uint16_t
pb_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	return csum_ref_fold(csum_ref_add(sum, p, len));
}

uint32_t
pb_crc32c(const uint8_t *p, uint32_t len)
{
	uint32_t crc = 0xffffffff;
	uint32_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & (0u - (crc & 1)));
	}
	return ~crc;
}

/* Pseudo-header sum for an L4 checksum over @p l4len bytes. */
static uint32_t
pb_pseudo(const struct pb *b, uint8_t proto, uint32_t l4len)
{
	return csum_ref_pseudo(b->buf + b->l3_off, proto, l4len);
}

static void
pb_l4_csum(struct pb *b)
{
	uint8_t *l4 = b->buf + b->l4_off;
	uint32_t l4len = b->len - b->l4_off;
	uint16_t c;
	uint32_t crc;

	switch (b->l4_proto) {
	case PB_PROTO_TCP:
		put16(l4 + 16, 0);
		c = (uint16_t)~pb_csum_add(pb_pseudo(b, PB_PROTO_TCP, l4len), l4, l4len);
		put16(l4 + 16, c);
		break;
	case PB_PROTO_UDP:
		put16(l4 + 4, (uint16_t)l4len);
		put16(l4 + 6, 0);
		c = (uint16_t)~pb_csum_add(pb_pseudo(b, PB_PROTO_UDP, l4len), l4, l4len);
		put16(l4 + 6, c != 0 ? c : 0xffff);
		break;
	case PB_PROTO_ICMP:
		put16(l4 + 2, 0);
		put16(l4 + 2, (uint16_t)~pb_csum_add(0, l4, l4len));
		break;
	case PB_PROTO_ICMPV6:
		put16(l4 + 2, 0);
		c = (uint16_t)~pb_csum_add(pb_pseudo(b, PB_PROTO_ICMPV6, l4len), l4, l4len);
		put16(l4 + 2, c);
		break;
	case PB_PROTO_SCTP:
		memset(l4 + 8, 0, 4);
		crc = pb_crc32c(l4, l4len);
		/* stored least significant byte first (RFC 4960 appendix B) */
		l4[8] = (uint8_t)crc;
		l4[9] = (uint8_t)(crc >> 8);
		l4[10] = (uint8_t)(crc >> 16);
		l4[11] = (uint8_t)(crc >> 24);
		break;
	default:
		break;
	}
}

static void
ipv4_fix(uint8_t *ip, uint16_t tot)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0x0f) << 2;

	put16(ip + 2, tot);
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~pb_csum_add(0, ip, ihl));
}

int
pb_finish(struct pb *b)
{
	uint8_t *ip = b->buf + b->l3_off;

	if (b->err != 0)
		return b->err;
	if (b->l3_family == 4 && b->len - b->l3_off > 65535)
		return b->err = -EINVAL;
	if (b->l3_family == 6 && b->len - b->l3_off - 40 > 65535)
		return b->err = -EINVAL;
	if (b->l3_family == 6)
		put16(ip + 4, (uint16_t)(b->len - b->l3_off - 40));
	/* L4 before the IPv4 header checksum: neither depends on the other. */
	if (b->l4_proto != 0 && !b->frag_later)
		pb_l4_csum(b);
	if (b->l3_family == 4)
		ipv4_fix(ip, (uint16_t)(b->len - b->l3_off));
	b->end = b->len;
	return (int)b->len;
}

int
pb_pad(struct pb *b, uint32_t min_len)
{
	if (b->err != 0)
		return b->err;
	if (b->len < min_len && pb_push(b, min_len - b->len) == NULL)
		return b->err;
	return (int)b->len;
}

int
pb_ipv4_fragment(const uint8_t *frame, uint32_t flen, uint32_t l3_off, uint32_t off, uint32_t len,
	uint8_t *out, uint32_t cap)
{
	const uint8_t *ip = frame + l3_off;
	uint32_t ihl, tot, plen, nihl, o, olen;
	uint16_t fl, base;
	bool last;

	if (l3_off + 20 > flen)
		return -EINVAL;
	ihl = (uint32_t)(ip[0] & 0x0f) << 2;
	tot = get16(ip + 2);
	if (ihl < 20 || tot < ihl || l3_off + tot > flen)
		return -EINVAL;
	plen = tot - ihl;
	last = off + len == plen;
	if (len == 0 || off % 8 != 0 || off + len > plen || (!last && len % 8 != 0))
		return -EINVAL;
	if (l3_off + ihl + len > cap)
		return -ENOSPC;

	memcpy(out, frame, l3_off + 20);
	nihl = 20;
	if (off == 0) {
		memcpy(out + l3_off + 20, ip + 20, ihl - 20);
		nihl = ihl;
	} else {
		/* copied-flag options only; EOL ends, NOP is one byte */
		for (o = 20; o < ihl && ip[o] != 0; o += olen) {
			olen = ip[o] == 1 ? 1 : (o + 1 < ihl ? ip[o + 1] : 0);
			if (olen < (ip[o] == 1 ? 1u : 2u) || o + olen > ihl)
				return -EINVAL;
			if (ip[o] & 0x80) {
				memcpy(out + l3_off + nihl, ip + o, olen);
				nihl += olen;
			}
		}
		while (nihl % 4 != 0)
			out[l3_off + nihl++] = 0;
	}
	out[l3_off] = (uint8_t)(0x40 | nihl >> 2);
	fl = get16(ip + 6);
	base = (uint16_t)((fl & 0x1fff) << 3);
	fl = (uint16_t)((fl & 0x4000) | ((base + off) >> 3));
	if (!last || (get16(ip + 6) & 0x2000))
		fl |= 0x2000;
	put16(out + l3_off + 6, fl);
	memcpy(out + l3_off + nihl, ip + ihl + off, len);
	ipv4_fix(out + l3_off, (uint16_t)(nihl + len));
	return (int)(l3_off + nihl + len);
}

int
pb_ipv6_fragment(const uint8_t *frame, uint32_t flen, uint32_t l3_off, uint32_t off, uint32_t len,
	uint32_t id, uint8_t *out, uint32_t cap)
{
	const uint8_t *ip = frame + l3_off;
	uint32_t end, pos, nh_at, hlen, plen, unfrag;
	uint8_t nh, *fh;
	bool last;

	if (l3_off + 40 > flen)
		return -EINVAL;
	end = l3_off + 40 + get16(ip + 4);
	if (end > flen)
		return -EINVAL;
	pos = l3_off + 40;
	nh_at = l3_off + 6;
	nh = ip[6];
	/* unfragmentable: hop-by-hop, routing, destination options before routing */
	for (;;) {
		if (pos + 8 > end)
			break;
		hlen = ((uint32_t)frame[pos + 1] + 1) * 8;
		if (nh != PB_PROTO_HOPOPTS && nh != PB_PROTO_ROUTING &&
			!(nh == PB_PROTO_DSTOPTS && frame[pos] == PB_PROTO_ROUTING))
			break;
		if (pos + hlen > end)
			return -EINVAL;
		nh_at = pos;
		nh = frame[pos];
		pos += hlen;
	}
	plen = end - pos;
	last = off + len == plen;
	if (len == 0 || off % 8 != 0 || off + len > plen || (!last && len % 8 != 0))
		return -EINVAL;
	unfrag = pos - l3_off - 40;
	if (pos + 8 + len > cap)
		return -ENOSPC;
	memcpy(out, frame, pos);
	out[nh_at] = PB_PROTO_FRAGMENT;
	fh = out + pos;
	fh[0] = nh;
	fh[1] = 0;
	put16(fh + 2, (uint16_t)(off | (last ? 0 : 1)));
	put32(fh + 4, id);
	memcpy(fh + 8, frame + pos + off, len);
	put16(out + l3_off + 4, (uint16_t)(unfrag + 8 + len));
	return (int)(pos + 8 + len);
}
