/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/reply/reply.c — ICMP/ICMPv6 errors and TCP resets about a packet,
 * written on flat buffers (reply.h).
 */
#include <errno.h>
#include <string.h>

#include "fc_wire.h"
#include "reply.h"

#define IP4_HLEN 20
#define IP6_HLEN 40
#define ICMP_HLEN 8
#define TCP_HLEN 20
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define PROTO_ICMP 1
#define PROTO_TCP 6
#define PROTO_ICMPV6 58
/** Quoted bytes: the error within 576 bytes (IPv4), 1280 (IPv6). */
#define QUOTE_V4 (576 - IP4_HLEN - ICMP_HLEN)
#define QUOTE_V6 (1280 - IP6_HLEN - ICMP_HLEN)

/* Checksum of an L4 segment @p l4 (@p len bytes) under @p ip's pseudo header. */
static uint16_t
l4_csum(const uint8_t *ip, bool v4, uint8_t proto, const uint8_t *l4, uint32_t len)
{
	return fc_csum_fold(fc_csum_add(fc_csum_pseudo(ip, v4, proto, len), l4, len));
}

static bool
bad_src4(const uint8_t *a)
{
	/* 0/8, 127/8, multicast, class E and the limited broadcast. */
	return a[0] == 0 || a[0] == 127 || a[0] >= 224;
}

static bool
zero16(const uint8_t *a)
{
	for (unsigned int i = 0; i < 16; i++)
		if (a[i] != 0)
			return false;
	return true;
}

bool
reply_allowed(const uint8_t *frame, uint32_t len, const struct fc_pkt *p, unsigned int kind)
{
	bool v4;
	const uint8_t *ip;
	uint8_t proto;

	if (frame == NULL || p == NULL || (kind != REPLY_ICMP && kind != REPLY_TCP_RST))
		return false;
	v4 = p->key.family == FC_AF_INET4;
	if (!v4 && p->key.family != FC_AF_INET6)
		return false;
	if (p->frag == FC_FRAG_LATER || p->frag_off != 0)
		return false;
	if ((uint32_t)p->l3_off + (v4 ? IP4_HLEN : IP6_HLEN) > len)
		return false;
	ip = frame + p->l3_off;
	if (v4) {
		proto = p->key.v4.proto;
		if (bad_src4(ip + 12) || ip[16] >= 224)
			return false;
	} else {
		static const uint8_t loop[16] = { [15] = 1 };

		proto = p->key.v6.proto;
		if (ip[8] == 0xff || ip[24] == 0xff || zero16(ip + 8) ||
			memcmp(ip + 8, loop, 16) == 0)
			return false;
	}
	if (kind == REPLY_TCP_RST)
		return proto == PROTO_TCP && p->l4_off != 0 &&
			(uint32_t)p->l4_off + TCP_HLEN <= len && !(frame[p->l4_off + 13] & TCP_RST);
	/* No error about an error: ICMP 3, 4, 5, 11, 12; ICMPv6 below 128. */
	if (v4 && proto == PROTO_ICMP) {
		uint8_t t = p->icmp_type;

		return !(t == 3 || t == 4 || t == 5 || t == 11 || t == 12);
	}
	if (!v4 && proto == PROTO_ICMPV6)
		return p->icmp_type >= 128;
	return true;
}

/* Ethernet header (and VLAN tags) of the reply: back to the sender. */
static void
l2_back(uint8_t *out, const uint8_t *frame, const struct fc_pkt *p, const struct reply_spec *s)
{
	memcpy(out, frame + 6, 6);
	memcpy(out + 6, s->eth_src != NULL ? s->eth_src : frame, 6);
	memcpy(out + 12, frame + 12, (size_t)p->l3_off - 12);
}

/* IP header of the reply, @p l4len bytes of @p proto after it. */
static void
ip_hdr(uint8_t *ip, const uint8_t *oip, bool v4, uint8_t proto, uint32_t l4len,
	const uint8_t *src, bool rst)
{
	if (v4) {
		memset(ip, 0, IP4_HLEN);
		ip[0] = 0x45;
		/* An error keeps the original's TOS bits, at internetwork-control precedence. */
		ip[1] = rst ? 0 : (uint8_t)((oip[1] & 0x1e) | 0xc0);
		fc_wr16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
		if (rst)
			fc_wr16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, src, 4);
		memcpy(ip + 16, oip + 12, 4);
		fc_wr16(ip + 10, fc_csum_fold(fc_csum_add(0, ip, IP4_HLEN)));
		return;
	}
	memset(ip, 0, IP6_HLEN);
	ip[0] = 0x60;
	fc_wr16(ip + 4, (uint16_t)l4len);
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, oip + 8, 16);
}

int
reply_build(uint8_t *out, uint32_t room, const uint8_t *frame, uint32_t len,
	const struct fc_pkt *p, const struct reply_spec *s)
{
	bool v4, rst;
	uint32_t hlen, l4len, quote = 0, total;
	const uint8_t *oip;
	uint8_t *ip, *l4;

	if (out == NULL || s == NULL || !reply_allowed(frame, len, p, s->kind))
		return -EINVAL;
	v4 = p->key.family == FC_AF_INET4;
	rst = s->kind == REPLY_TCP_RST;
	hlen = v4 ? IP4_HLEN : IP6_HLEN;
	oip = frame + p->l3_off;
	if (rst) {
		l4len = TCP_HLEN;
	} else {
		quote = len - p->l3_off;
		if (quote > p->ip_len)
			quote = p->ip_len;
		if (quote > (v4 ? QUOTE_V4 : QUOTE_V6))
			quote = v4 ? QUOTE_V4 : QUOTE_V6;
		l4len = ICMP_HLEN + quote;
	}
	total = (uint32_t)p->l3_off + hlen + l4len;
	if (total > room)
		return -ENOSPC;
	l2_back(out, frame, p, s);
	ip = out + p->l3_off;
	l4 = ip + hlen;
	/* The source: the given address, or the packet's destination. */
	ip_hdr(ip, oip, v4, rst ? PROTO_TCP : (v4 ? PROTO_ICMP : PROTO_ICMPV6), l4len,
		(!rst && s->src != NULL) ? s->src : oip + (v4 ? 16 : 24), rst);
	if (rst) {
		const uint8_t *oth = frame + p->l4_off;
		uint8_t flags = oth[13];

		memset(l4, 0, TCP_HLEN);
		memcpy(l4, oth + 2, 2);
		memcpy(l4 + 2, oth, 2);
		l4[12] = 5 << 4;
		if (flags & TCP_ACK) {
			memcpy(l4 + 4, oth + 8, 4);
			l4[13] = TCP_RST;
		} else {
			uint32_t doff = (uint32_t)(oth[12] >> 4) * 4;
			uint32_t l4_in = (uint32_t)p->ip_len - (uint32_t)(p->l4_off - p->l3_off);
			uint32_t payload = l4_in > doff ? l4_in - doff : 0;

			fc_wr32(l4 + 8, fc_rd32(oth + 4) + payload + !!(flags & TCP_SYN) +
				!!(flags & TCP_FIN));
			l4[13] = TCP_RST | TCP_ACK;
		}
		fc_wr16(l4 + 16, l4_csum(ip, v4, PROTO_TCP, l4, TCP_HLEN));
		return (int)total;
	}
	l4[0] = s->type;
	l4[1] = s->code;
	l4[2] = 0;
	l4[3] = 0;
	fc_wr32(l4 + 4, s->info);
	memcpy(l4 + ICMP_HLEN, oip, quote);
	if (v4)
		fc_wr16(l4 + 2, fc_csum_fold(fc_csum_add(0, l4, l4len)));
	else
		fc_wr16(l4 + 2, l4_csum(ip, false, PROTO_ICMPV6, l4, l4len));
	return (int)total;
}
