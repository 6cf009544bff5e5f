/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/parse.c — the packet parser: Ethernet frame -> struct fc_pkt
 * (normalized 7-tuple key with local bits 0, offsets, fragment facts).
 *
 * The RX lcores call fc_parse_burst() on every received burst, so this is the
 * per-packet fast path: a list of early exits, one bounds check per header,
 * unaligned-safe loads straight into the key (network byte order, no swaps
 * except for the few length fields), unlikely() on the error exits only.
 *
 * One core, parse_frame(), sees two limits: @c cap, the bytes it may read,
 * and @c wire, the frame's real length. fc_parse() passes the same value
 * twice. fc_parse_mbuf() first parses a chained mbuf in place with @c cap set
 * to the first segment; a header that lies within the frame but beyond @c cap
 * yields ERR_HDR_TOO_LONG, and only then are up to FC_PARSE_MAX_HDR bytes
 * gathered and parsed again. Length fields are always checked against the
 * wire (or the IP datagram), never against the bytes at hand, so the two
 * passes agree. Pure code: no EAL needed (fuzzers, sanitizers).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "flowcache.h"

/* Wire constants, compared in network byte order. */
#define ETH_HLEN	 14
#define ETH_TYPE_OFF	 12
#define VLAN_HLEN	 4
#define ETHTYPE_IPV4	 RTE_BE16(0x0800)
#define ETHTYPE_IPV6	 RTE_BE16(0x86dd)
#define ETHTYPE_VLAN	 RTE_BE16(0x8100) /* 802.1Q C-tag */
#define ETHTYPE_QINQ	 RTE_BE16(0x88a8) /* 802.1ad S-tag */
#define ETHTYPE_QINQ_OLD RTE_BE16(0x9100) /* pre-802.1ad S-tag */

#define IPV4_HLEN      20
#define IPV4_MAX_LEN   65535
#define IPV4_F_MF      RTE_BE16(0x2000)
#define IPV4_FRAG_MASK RTE_BE16(0x3fff) /* MF + offset */
#define IPV4_OFF_MASK  0x1fff

#define IPV6_HLEN	   40
#define IPV6_MAX_PAYLOAD   65535
#define IPV6_EXT_MIN	   8
#define IPV6_FRAG_HLEN	   8
#define IPV6_FRAG_OFF_MASK 0xfff8
#define IPV6_FRAG_M	   0x0001

#define PROTO_HOPOPTS  0
#define PROTO_ICMP     1
#define PROTO_TCP      6
#define PROTO_UDP      17
#define PROTO_ROUTING  43
#define PROTO_FRAGMENT 44
#define PROTO_ICMPV6   58
#define PROTO_DSTOPTS  60
#define PROTO_DCCP     33
#define PROTO_SCTP     132
#define PROTO_UDPLITE  136

/* IPv6 extension headers walked by the parser, as a bit mask below 64. */
#define IPV6_EXT_MASK                                                                              \
	((1ULL << PROTO_HOPOPTS) | (1ULL << PROTO_ROUTING) | (1ULL << PROTO_FRAGMENT) |            \
		(1ULL << PROTO_DSTOPTS))

#define TCP_HLEN  20
#define TCP_OPT_MAX 40 /* option bytes after the fixed header: data offset 15 */
#define UDP_HLEN  8
#define SCTP_HLEN 12
#define DCCP_HLEN 12 /* the generic header (RFC 4340 5.1), short sequence numbers */
#define ICMP_HLEN 8 /* type, code, checksum, 4 bytes (identifier, sequence) */

/* TCP flags and options. */
#define TCP_F_SYN	      0x02
#define TCPOPT_EOL	      0
#define TCPOPT_NOP	      1
#define TCPOPT_WINDOW	      3
#define TCPOPT_SACK_PERM      4
#define TCPOPT_SACK	      5
#define TCPOLEN_WINDOW	      3
#define TCPOLEN_SACK_PERM     2
#define TCPOLEN_SACK_BASE     2
#define TCPOLEN_SACK_BLOCK    8
#define TCPOLEN_TS_ALIGNED    12
/* NOP, NOP, timestamp kind 8, length 10: the one option layout of most segments. */
#define TCP_TS_ALIGNED_WORD RTE_BE32(0x0101080a)

/* Packets of a burst whose data is prefetched ahead of the one parsed. */
#define PARSE_PREFETCH_AHEAD 4

/* Unaligned-safe loads: the compiler emits plain (unaligned) moves. */
struct una16 {
	uint16_t v;
} __attribute__((packed, may_alias));

struct una32 {
	uint32_t v;
} __attribute__((packed, may_alias));

struct una64 {
	uint64_t v;
} __attribute__((packed, may_alias));

static __rte_always_inline uint16_t
ld16(const uint8_t *p)
{
	return ((const struct una16 *)p)->v;
}

static __rte_always_inline uint32_t
ld32(const uint8_t *p)
{
	return ((const struct una32 *)p)->v;
}

static __rte_always_inline void
copy16(uint8_t *dst, const uint8_t *src)
{
	((struct una64 *)dst)[0].v = ((const struct una64 *)src)[0].v;
	((struct una64 *)dst)[1].v = ((const struct una64 *)src)[1].v;
}

static __rte_always_inline uint16_t
be16(const uint8_t *p)
{
	return rte_be_to_cpu_16(ld16(p));
}

/*
 * Zero @p pkt. Sixteen-byte stores, the last one overlapping: what memset()
 * of its 84 bytes became, a rep stos, cost ten counted instructions a
 * packet and a string instruction's start-up on a core.
 */
static __rte_always_inline void
pkt_clear(struct fc_pkt *pkt)
{
#ifdef __SSE2__
	uint8_t *d = (uint8_t *)pkt;
	const __m128i z = _mm_setzero_si128();

	static_assert(sizeof(*pkt) >= 16 && sizeof(*pkt) <= 96, "six stores at most");
	_mm_storeu_si128((__m128i *)(void *)d, z);
	if (sizeof(*pkt) > 32)
		_mm_storeu_si128((__m128i *)(void *)(d + 16), z);
	if (sizeof(*pkt) > 48)
		_mm_storeu_si128((__m128i *)(void *)(d + 32), z);
	if (sizeof(*pkt) > 64)
		_mm_storeu_si128((__m128i *)(void *)(d + 48), z);
	if (sizeof(*pkt) > 80)
		_mm_storeu_si128((__m128i *)(void *)(d + 64), z);
	_mm_storeu_si128((__m128i *)(void *)(d + sizeof(*pkt) - 16), z);
#else
	memset(pkt, 0, sizeof(*pkt));
#endif
}

static __rte_always_inline bool
is_vlan_tpid(uint16_t et)
{
	return et == ETHTYPE_VLAN || et == ETHTYPE_QINQ || et == ETHTYPE_QINQ_OLD;
}

static __rte_always_inline bool
is_ipv6_ext(uint8_t nh)
{
	return nh < 64 && ((1ULL << nh) & IPV6_EXT_MASK) != 0;
}

/*
 * A header ending at @p need did not fit in the bytes at hand. If it also
 * overruns @p bound (the frame or the IP datagram) the packet is malformed
 * and the answer is @p err; otherwise it was only beyond the readable part
 * of a chained mbuf (see fc_parse_mbuf()). Error path only.
 */
static inline enum fc_parse_result
short_hdr(uint32_t need, uint32_t bound, enum fc_parse_result err)
{
	return need > bound ? err : FC_PARSE_ERR_HDR_TOO_LONG;
}

/*
 * The options of a SYN segment that connection tracking keeps: window
 * scale and SACK permitted. Bounded by @p n (at most TCP_OPT_MAX): stops
 * at the end-of-list option, a length below 2 or one past the end. Out of
 * line: SYNs are rare and the common segment stays short.
 */
static __rte_noinline void
parse_tcp_syn_opts(const uint8_t *o, uint32_t n, struct fc_pkt *pkt)
{
	uint32_t i = 0, sz;

	while (i < n) {
		if (o[i] == TCPOPT_EOL)
			return;
		if (o[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (n - i < 2)
			return;
		sz = o[i + 1];
		if (sz < 2 || sz > n - i)
			return;
		if (o[i] == TCPOPT_SACK_PERM && sz == TCPOLEN_SACK_PERM) {
			pkt->tcp_opt |= FC_TCP_OPT_SACK_PERM;
		} else if (o[i] == TCPOPT_WINDOW && sz == TCPOLEN_WINDOW) {
			pkt->tcp_wscale = RTE_MIN(o[i + 2], (uint8_t)FC_TCP_MAX_WSCALE);
			pkt->tcp_opt |= FC_TCP_OPT_WSCALE;
		}
		i += sz;
	}
}

/*
 * The TCP fields of a header at @p off, @p hlen bytes long (checked to lie
 * within the datagram, which ends at @p end): sequence and acknowledgment
 * numbers, window, payload length, and what the options are.
 */
static __rte_always_inline void
parse_tcp_fields(const uint8_t *p, uint32_t off, uint32_t hlen, uint32_t end, struct fc_pkt *pkt)
{
	pkt->tcp_flags = p[off + 13];
	pkt->tcp_seq = rte_be_to_cpu_32(ld32(p + off + 4));
	pkt->tcp_ack = rte_be_to_cpu_32(ld32(p + off + 8));
	pkt->tcp_win = be16(p + off + 14);
	pkt->tcp_hlen = (uint8_t)hlen;
	pkt->tcp_dlen = (uint16_t)(end - off - hlen);
	if (hlen == TCP_HLEN ||
		(hlen == TCP_HLEN + TCPOLEN_TS_ALIGNED && ld32(p + off + TCP_HLEN) == TCP_TS_ALIGNED_WORD))
		pkt->tcp_opt = FC_TCP_OPT_PLAIN;
	if (unlikely(pkt->tcp_flags & TCP_F_SYN) && hlen > TCP_HLEN)
		parse_tcp_syn_opts(p + off + TCP_HLEN, hlen - TCP_HLEN, pkt);
}

/*
 * ICMP and ICMPv6, keyed as Linux conntrack's ICMP tuple: type << 8 | code
 * (the first two bytes) in dport, a query's identifier (echo and the like)
 * in sport, 0 there for other types.
 */
static __rte_always_inline enum fc_parse_result
parse_icmp(const uint8_t *p, uint32_t off, uint32_t end, uint32_t lim, uint8_t family,
	enum fc_parse_result err, struct fc_pkt *pkt, uint16_t *sport, uint16_t *dport)
{
	uint8_t type;

	if (unlikely(off + ICMP_HLEN > lim))
		return short_hdr(off + ICMP_HLEN, end, err);
	type = p[off];
	pkt->icmp_type = type;
	pkt->icmp_code = p[off + 1];
	/* type << 8 | code in network order is the first two bytes */
	*dport = ld16(p + off);
	*sport = fc_icmp_has_id(family, type) ? ld16(p + off + 4) : 0;
	return FC_PARSE_OK;
}

/*
 * The L4 header at @p off of protocol @p proto. @p end is the end of the IP
 * datagram (L4 never reaches past it, whatever padding follows), @p lim is
 * min(end, cap). In a first fragment the UDP length describes the whole
 * datagram, so it is only checked for its minimum.
 */
static __rte_always_inline enum fc_parse_result
parse_l4(const uint8_t *p, uint32_t off, uint32_t end, uint32_t lim, uint8_t proto, uint8_t family,
	bool first_frag, struct fc_pkt *pkt, uint16_t *sport, uint16_t *dport)
{
	uint32_t doff, ulen;

	pkt->l4_off = off;
	switch (proto) {
	case PROTO_TCP:
		if (unlikely(off + TCP_HLEN > lim))
			return short_hdr(off + TCP_HLEN, end, FC_PARSE_ERR_TRUNC_TCP);
		doff = (uint32_t)(p[off + 12] >> 4) << 2;
		if (unlikely(doff < TCP_HLEN))
			return FC_PARSE_ERR_TCP_DOFF;
		if (unlikely(off + doff > lim))
			return short_hdr(off + doff, end, FC_PARSE_ERR_TCP_DOFF);
		*sport = ld16(p + off);
		*dport = ld16(p + off + 2);
		parse_tcp_fields(p, off, doff, end, pkt);
		return FC_PARSE_OK;
	case PROTO_UDP:
		if (unlikely(off + UDP_HLEN > lim))
			return short_hdr(off + UDP_HLEN, end, FC_PARSE_ERR_TRUNC_UDP);
		ulen = be16(p + off + 4);
		if (unlikely(ulen < UDP_HLEN || (!first_frag && ulen > end - off)))
			return FC_PARSE_ERR_UDP_LEN;
		*sport = ld16(p + off);
		*dport = ld16(p + off + 2);
		return FC_PARSE_OK;
	case PROTO_UDPLITE:
		/* Its length field is the checksum coverage: conntrack judges it. */
		if (unlikely(off + UDP_HLEN > lim))
			return short_hdr(off + UDP_HLEN, end, FC_PARSE_ERR_TRUNC_UDP);
		*sport = ld16(p + off);
		*dport = ld16(p + off + 2);
		return FC_PARSE_OK;
	case PROTO_SCTP:
		if (unlikely(off + SCTP_HLEN > lim))
			return short_hdr(off + SCTP_HLEN, end, FC_PARSE_ERR_TRUNC_SCTP);
		*sport = ld16(p + off);
		*dport = ld16(p + off + 2);
		return FC_PARSE_OK;
	case PROTO_DCCP:
		/* Ports as Linux's DCCP tracker keys them (xt_dccp reads them so too). */
		if (unlikely(off + DCCP_HLEN > lim))
			return short_hdr(off + DCCP_HLEN, end, FC_PARSE_ERR_TRUNC_DCCP);
		*sport = ld16(p + off);
		*dport = ld16(p + off + 2);
		return FC_PARSE_OK;
	case PROTO_ICMP:
		if (family != FC_AF_INET4)
			break; /* ICMPv4 inside IPv6 is just another protocol */
		return parse_icmp(
			p, off, end, lim, FC_AF_INET4, FC_PARSE_ERR_TRUNC_ICMP, pkt, sport, dport);
	case PROTO_ICMPV6:
		if (family != FC_AF_INET6)
			break;
		return parse_icmp(
			p, off, end, lim, FC_AF_INET6, FC_PARSE_ERR_TRUNC_ICMP6, pkt, sport, dport);
	default:
		break;
	}
	/* Other protocols (GRE, ESP, no-next-header, ...): ports 0. */
	return FC_PARSE_OK;
}

static __rte_always_inline enum fc_parse_result
parse_ipv4(const uint8_t *p, uint32_t off, uint32_t cap, uint32_t wire, struct fc_pkt *pkt)
{
	struct fc_key_v4 *k = &pkt->key.v4;
	enum fc_parse_result res;
	uint32_t ihl, tot, end, fo, plen;
	uint16_t fl;
	uint8_t vihl;

	pkt->key.family = FC_AF_INET4;
	pkt->l3_off = off;
	if (unlikely(off + IPV4_HLEN > cap))
		return short_hdr(off + IPV4_HLEN, wire, FC_PARSE_ERR_TRUNC_IPV4);
	vihl = p[off];
	if (unlikely((vihl & 0xf0) != 0x40))
		return FC_PARSE_ERR_IPV4_VERSION;
	ihl = (uint32_t)(vihl & 0x0f) << 2;
	if (unlikely(ihl < IPV4_HLEN))
		return FC_PARSE_ERR_IPV4_IHL;
	if (unlikely(off + ihl > cap))
		return short_hdr(off + ihl, wire, FC_PARSE_ERR_IPV4_OPTIONS);
	tot = be16(p + off + 2);
	if (unlikely(tot < ihl || tot > wire - off))
		return FC_PARSE_ERR_IPV4_TOTLEN;
	pkt->ip_len = tot;
	end = off + tot;
	k->src = ld32(p + off + 12);
	k->dst = ld32(p + off + 16);
	k->proto = p[off + 9];
	fl = ld16(p + off + 6);
	if (likely((fl & IPV4_FRAG_MASK) == 0))
		return parse_l4(p, off + ihl, end, RTE_MIN(end, cap), k->proto, FC_AF_INET4, false,
			pkt, &k->sport, &k->dport);

	/* A fragment: MF set or offset > 0. */
	fo = (uint32_t)(rte_be_to_cpu_16(fl) & IPV4_OFF_MASK) << 3;
	plen = tot - ihl;
	if (unlikely(plen == 0 || ihl + fo + plen > IPV4_MAX_LEN ||
		     ((fl & IPV4_F_MF) && (plen & 7))))
		return FC_PARSE_ERR_IPV4_FRAG;
	pkt->frag_id = be16(p + off + 4);
	pkt->frag_off = fo;
	if (fo != 0) {
		/* No L4 header here: ports stay 0, l4_off stays 0. */
		pkt->frag = FC_FRAG_LATER;
		return FC_PARSE_FRAG_LATER;
	}
	pkt->frag = FC_FRAG_FIRST;
	res = parse_l4(p, off + ihl, end, RTE_MIN(end, cap), k->proto, FC_AF_INET4, true, pkt,
		&k->sport, &k->dport);
	return res == FC_PARSE_OK ? FC_PARSE_FRAG_FIRST : res;
}

static __rte_always_inline enum fc_parse_result
parse_ipv6(const uint8_t *p, uint32_t off, uint32_t cap, uint32_t wire, struct fc_pkt *pkt)
{
	struct fc_key_v6 *k = &pkt->key.v6;
	enum fc_parse_result res;
	uint32_t plen, end, lim, l3, hlen, fo, flen;
	unsigned int n_ext;
	bool seen_frag;
	uint16_t fl;
	uint8_t nh;

	pkt->key.family = FC_AF_INET6;
	pkt->l3_off = off;
	if (unlikely(off + IPV6_HLEN > cap))
		return short_hdr(off + IPV6_HLEN, wire, FC_PARSE_ERR_TRUNC_IPV6);
	if (unlikely((p[off] & 0xf0) != 0x60))
		return FC_PARSE_ERR_IPV6_VERSION;
	plen = be16(p + off + 4);
	/* ip_len is 16 bits: 40 + payload must fit as well as the frame. */
	if (unlikely(plen > wire - off - IPV6_HLEN || plen > UINT16_MAX - IPV6_HLEN))
		return FC_PARSE_ERR_IPV6_PAYLEN;
	pkt->ip_len = IPV6_HLEN + plen;
	l3 = off;
	end = off + IPV6_HLEN + plen;
	lim = RTE_MIN(end, cap);
	copy16(k->src, p + off + 8);
	copy16(k->dst, p + off + 24);
	nh = p[off + 6];
	off += IPV6_HLEN;

	if (likely(!is_ipv6_ext(nh))) {
		k->proto = nh;
		return parse_l4(
			p, off, end, lim, nh, FC_AF_INET6, false, pkt, &k->sport, &k->dport);
	}

	/* Extension chain: each header is at least 8 bytes, so it ends. */
	seen_frag = false;
	for (n_ext = 0; is_ipv6_ext(nh); n_ext++) {
		if (unlikely(n_ext == FC_PARSE_MAX_EXT))
			return FC_PARSE_ERR_IPV6_EXT_CHAIN;
		if (unlikely(nh == PROTO_HOPOPTS && n_ext != 0))
			return FC_PARSE_ERR_IPV6_EXT_ORDER;
		if (unlikely(off + IPV6_EXT_MIN > lim))
			return short_hdr(off + IPV6_EXT_MIN, end, FC_PARSE_ERR_IPV6_EXT_TRUNC);
		if (nh != PROTO_FRAGMENT) {
			hlen = ((uint32_t)p[off + 1] + 1) << 3;
			if (unlikely(off + hlen > lim))
				return short_hdr(off + hlen, end, FC_PARSE_ERR_IPV6_EXT_TRUNC);
			nh = p[off];
			off += hlen;
			continue;
		}
		if (unlikely(seen_frag))
			return FC_PARSE_ERR_IPV6_FRAG;
		seen_frag = true;
		nh = p[off];
		fl = be16(p + off + 2);
		fo = fl & IPV6_FRAG_OFF_MASK;
		if (fo == 0 && !(fl & IPV6_FRAG_M)) {
			/* Atomic fragment (RFC 6946): a whole packet. */
			off += IPV6_FRAG_HLEN;
			continue;
		}
		/*
		 * Fragmentable part of this fragment: not empty, a multiple of 8
		 * unless last, and the reassembled payload (unfragmentable
		 * headers + offset + this part) within 65535 (RFC 8200 4.5).
		 */
		flen = end - off - IPV6_FRAG_HLEN;
		if (unlikely(flen == 0 || ((fl & IPV6_FRAG_M) && (flen & 7)) ||
			     (off - l3 - IPV6_HLEN) + fo + flen > IPV6_MAX_PAYLOAD))
			return FC_PARSE_ERR_IPV6_FRAG;
		pkt->frag_id = rte_be_to_cpu_32(ld32(p + off + 4));
		pkt->frag_off = fo;
		if (fo != 0) {
			k->proto = nh;
			pkt->frag = FC_FRAG_LATER;
			return FC_PARSE_FRAG_LATER;
		}
		pkt->frag = FC_FRAG_FIRST;
		off += IPV6_FRAG_HLEN;
	}
	k->proto = nh;
	res = parse_l4(p, off, end, lim, nh, FC_AF_INET6, pkt->frag == FC_FRAG_FIRST, pkt,
		&k->sport, &k->dport);
	if (pkt->frag == FC_FRAG_FIRST && res == FC_PARSE_OK)
		return FC_PARSE_FRAG_FIRST;
	return res;
}

/*
 * Parse a frame of @p wire bytes of which the first @p cap (<= @p wire) may
 * be read. With cap == wire this is fc_parse(). Inlined into the in-place
 * parse of fc_parse_mbuf() (the RX path); parse_frame_outl() serves the rest.
 */
static __rte_always_inline enum fc_parse_result
parse_frame(const uint8_t *p, uint32_t cap, uint32_t wire, struct fc_pkt *pkt)
{
	uint32_t off = ETH_HLEN;
	uint16_t et;
	unsigned int i;

	/* Zeroes the key (normalized, local bits 0) and every field. */
	pkt_clear(pkt);
	if (unlikely(cap < ETH_HLEN))
		return short_hdr(ETH_HLEN, wire, FC_PARSE_ERR_TRUNC_ETH);
	et = ld16(p + ETH_TYPE_OFF);
	for (i = 0; is_vlan_tpid(et); i++) {
		if (unlikely(i == FC_PARSE_MAX_VLAN))
			return FC_PARSE_ERR_VLAN_DEPTH;
		if (unlikely(off + VLAN_HLEN > cap))
			return short_hdr(off + VLAN_HLEN, wire, FC_PARSE_ERR_TRUNC_VLAN);
		et = ld16(p + off + 2);
		off += VLAN_HLEN;
		pkt->n_vlan = i + 1;
	}
	if (likely(et == ETHTYPE_IPV4))
		return parse_ipv4(p, off, cap, wire, pkt);
	if (likely(et == ETHTYPE_IPV6))
		return parse_ipv6(p, off, cap, wire, pkt);
	return FC_PARSE_NOT_IP;
}

static __rte_noinline enum fc_parse_result
parse_frame_outl(const uint8_t *p, uint32_t cap, uint32_t wire, struct fc_pkt *pkt)
{
	return parse_frame(p, cap, wire, pkt);
}

enum fc_parse_result
fc_parse(const uint8_t *data, uint32_t len, struct fc_pkt *pkt)
{
	return parse_frame_outl(data, len, len, pkt);
}

/*
 * The common frame in one test each: untagged Ethernet, IPv4 without
 * options, not a fragment, TCP or UDP, all headers in @p cap. Fills @p pkt
 * exactly as parse_frame() would and returns true; returns false (pkt
 * untouched) for anything else, which parse_frame() then sorts out. The
 * fuzzer holds the two to the same results (fc_parse() never takes this).
 */
static __rte_always_inline bool
parse_fast_v4(const uint8_t *p, uint32_t cap, uint32_t wire, struct fc_pkt *pkt)
{
	const uint32_t l4 = ETH_HLEN + IPV4_HLEN;
	uint32_t tot, lim, hl;
	uint8_t proto;

	if (unlikely(cap < l4 + TCP_HLEN) || ld16(p + ETH_TYPE_OFF) != ETHTYPE_IPV4 ||
		p[ETH_HLEN] != 0x45 || (ld16(p + ETH_HLEN + 6) & IPV4_FRAG_MASK) != 0)
		return false;
	tot = be16(p + ETH_HLEN + 2);
	if (tot < IPV4_HLEN || tot > wire - ETH_HLEN)
		return false;
	lim = RTE_MIN(ETH_HLEN + tot, cap);
	proto = p[ETH_HLEN + 9];
	if (proto == PROTO_TCP) {
		hl = (uint32_t)(p[l4 + 12] >> 4) << 2;
		if (hl < TCP_HLEN || l4 + hl > lim)
			return false;
	} else if (proto == PROTO_UDP) {
		hl = be16(p + l4 + 4); /* the UDP length */
		if (l4 + UDP_HLEN > lim || hl < UDP_HLEN || hl > tot - IPV4_HLEN)
			return false;
	} else {
		return false;
	}
	pkt_clear(pkt);
	pkt->key.family = FC_AF_INET4;
	pkt->key.v4.src = ld32(p + ETH_HLEN + 12);
	pkt->key.v4.dst = ld32(p + ETH_HLEN + 16);
	pkt->key.v4.sport = ld16(p + l4);
	pkt->key.v4.dport = ld16(p + l4 + 2);
	pkt->key.v4.proto = proto;
	pkt->l3_off = ETH_HLEN;
	pkt->l4_off = l4;
	pkt->ip_len = (uint16_t)tot;
	if (proto == PROTO_TCP)
		parse_tcp_fields(p, l4, hl, ETH_HLEN + tot, pkt);
	return true;
}

/* parse_fast_v4() on an mbuf's first segment. */
static __rte_always_inline bool
parse_mbuf_fast(const struct rte_mbuf *m, struct fc_pkt *pkt)
{
	uint32_t wire = rte_pktmbuf_pkt_len(m);

	return parse_fast_v4(rte_pktmbuf_mtod(m, const uint8_t *),
		RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), wire), wire, pkt);
}

/* Everything but the shortcut: in place, else the headers gathered. */
static __rte_noinline enum fc_parse_result
parse_mbuf_full(const struct rte_mbuf *m, struct fc_pkt *pkt)
{
	uint8_t buf[FC_PARSE_MAX_HDR];
	uint32_t wire = rte_pktmbuf_pkt_len(m);
	uint32_t seg = RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), wire);
	enum fc_parse_result res;
	const uint8_t *p;
	uint32_t n;

	/* In place: all of a single segment, or the headers in the first. */
	res = parse_frame(rte_pktmbuf_mtod(m, const uint8_t *), seg, wire, pkt);
	if (likely(res != FC_PARSE_ERR_HDR_TOO_LONG))
		return res;
	n = RTE_MIN(wire, (uint32_t)FC_PARSE_MAX_HDR);
	if (n <= seg)
		return res; /* gathering would not give more bytes */
	p = rte_pktmbuf_read(m, 0, n, buf);
	if (unlikely(p == NULL))
		return FC_PARSE_ERR_HDR_TOO_LONG; /* chain shorter than pkt_len */
	return parse_frame_outl(p, n, wire, pkt);
}

enum fc_parse_result
fc_parse_mbuf(const struct rte_mbuf *m, struct fc_pkt *pkt)
{
	if (likely(parse_mbuf_fast(m, pkt)))
		return FC_PARSE_OK;
	return parse_mbuf_full(m, pkt);
}

/* The common frame without a call; the shortcut is tried once. */
static __rte_always_inline enum fc_parse_result
parse_one(const struct rte_mbuf *m, struct fc_pkt *pkt)
{
	return likely(parse_mbuf_fast(m, pkt)) ? FC_PARSE_OK : parse_mbuf_full(m, pkt);
}

unsigned int
fc_parse_burst(struct rte_mbuf *const *mbufs, unsigned int n, struct fc_pkt *pkts, uint8_t *res)
{
	unsigned int i, ok = 0;
	enum fc_parse_result r;

	/* Every mbuf's header first (their addresses are at hand: a burst's
	 * lines in flight at once), then each frame's first line
	 * PARSE_PREFETCH_AHEAD packets ahead (its address is in the header). */
	for (i = 0; i < n; i++)
		rte_prefetch0(mbufs[i]);
	for (i = 0; i < n && i < PARSE_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(mbufs[i], void *));
	/* The burst but its last packets: the prefetch without a bound check. */
	for (i = 0; i + PARSE_PREFETCH_AHEAD < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(mbufs[i + PARSE_PREFETCH_AHEAD], void *));
		r = parse_one(mbufs[i], &pkts[i]);
		res[i] = (uint8_t)r;
		ok += r == FC_PARSE_OK;
	}
	for (; i < n; i++) {
		r = parse_one(mbufs[i], &pkts[i]);
		res[i] = (uint8_t)r;
		ok += r == FC_PARSE_OK;
	}
	return ok;
}

bool
fc_tcp_sack_edge(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt, uint32_t *edge)
{
	const uint8_t *o;
	uint32_t n, i, sz, j, e;

	if (frame == NULL || pkt == NULL || edge == NULL || pkt->tcp_hlen <= TCP_HLEN ||
		pkt->l4_off == 0 || (uint32_t)pkt->l4_off + pkt->tcp_hlen > len)
		return false;
	o = frame + pkt->l4_off + TCP_HLEN;
	n = RTE_MIN((uint32_t)pkt->tcp_hlen - TCP_HLEN, (uint32_t)TCP_OPT_MAX);
	if (n == TCPOLEN_TS_ALIGNED && ld32(o) == TCP_TS_ALIGNED_WORD)
		return false;
	for (i = 0; i < n;) {
		if (o[i] == TCPOPT_EOL)
			return false;
		if (o[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (n - i < 2)
			return false;
		sz = o[i + 1];
		if (sz < 2 || sz > n - i)
			return false;
		if (o[i] == TCPOPT_SACK && sz >= TCPOLEN_SACK_BASE + TCPOLEN_SACK_BLOCK &&
			(sz - TCPOLEN_SACK_BASE) % TCPOLEN_SACK_BLOCK == 0) {
			for (j = i + TCPOLEN_SACK_BASE; j < i + sz; j += TCPOLEN_SACK_BLOCK) {
				e = rte_be_to_cpu_32(ld32(o + j + 4)); /* the block's right edge */
				if ((int32_t)(e - *edge) > 0)
					*edge = e;
			}
			return true;
		}
		i += sz;
	}
	return false;
}

/* Result names and identifiers, from the one X-macro list. */

static const char *const parse_result_names[FC_PARSE__COUNT] = {
#define FC_PARSE_NAME(name, text) [FC_PARSE_##name] = text,
	FC_PARSE_RESULTS(FC_PARSE_NAME)
#undef FC_PARSE_NAME
};

static const char *const parse_result_upper[FC_PARSE__COUNT] = {
#define FC_PARSE_UPPER(name, text) [FC_PARSE_##name] = #name,
	FC_PARSE_RESULTS(FC_PARSE_UPPER)
#undef FC_PARSE_UPPER
};

/* The longest enum name sizes the identifier table. */
union parse_result_id_size {
#define FC_PARSE_SIZE(name, text) char name[sizeof(#name)];
	FC_PARSE_RESULTS(FC_PARSE_SIZE)
#undef FC_PARSE_SIZE
};

/* Lower-case identifiers, written once before main() and read-only after. */
static char parse_result_ids[FC_PARSE__COUNT][sizeof(union parse_result_id_size)];

RTE_INIT(parse_result_ids_init)
{
	unsigned int i, j;
	char c;

	for (i = 0; i < FC_PARSE__COUNT; i++) {
		for (j = 0; (c = parse_result_upper[i][j]) != '\0'; j++)
			parse_result_ids[i][j] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
		parse_result_ids[i][j] = '\0';
	}
}

const char *
fc_parse_result_name(unsigned int res)
{
	if (res >= FC_PARSE__COUNT)
		return "unknown";
	return parse_result_names[res];
}

const char *
fc_parse_result_id(unsigned int res)
{
	if (res >= FC_PARSE__COUNT)
		return "unknown";
	return parse_result_ids[res];
}
