/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pktlog/plog_line.c — the LOG target's line for a packet, field by
 * field as Linux writes it (net/netfilter's syslog logger): the prefix,
 * the interfaces, the MAC header, then IPv4 (addresses, length, TOS and
 * precedence, TTL, id, flags, fragment offset, options) or IPv6
 * (addresses, length, traffic class, hop limit, flow label, extension
 * headers), then TCP, UDP, ICMP, ICMPv6, AH, ESP or the protocol number,
 * and the mark. Every field ends with a space. Reads only the bytes given.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pktlog.h"

/* An output buffer that never overflows (writes past its end are cut). */
struct out {
	char *b;
	size_t size;
	size_t n;
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->n + 1 >= o->size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->b + o->n, o->size - o->n, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	o->n += (size_t)k;
	if (o->n >= o->size)
		o->n = o->size - 1;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put_ip4(struct out *o, const uint8_t *a)
{
	put(o, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/* IPv6 as Linux's %pI6 prints it: eight groups of four hex digits. */
static void
put_ip6(struct out *o, const uint8_t *a)
{
	for (unsigned int i = 0; i < 16; i += 2)
		put(o, "%s%02x%02x", i ? ":" : "", a[i], a[i + 1]);
}

static void
put_mac(struct out *o, const uint8_t *m)
{
	put(o, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* The bytes from @p off to the end, for "INCOMPLETE [N bytes]". */
static unsigned int
left(const struct plog_pkt *p, uint32_t off)
{
	return off < p->len ? p->len - off : 0;
}

/* TCP at @p off. @return false when the line ends here. */
static bool
tcp_part(struct out *o, const struct plog_pkt *p, uint32_t off, bool frag, unsigned int flags)
{
	const uint8_t *t = p->frame + off;
	static const char *const names[] = {"CWR", "ECE", "URG", "ACK", "PSH", "RST", "SYN", "FIN"};
	unsigned int hl;

	put(o, "PROTO=TCP ");
	if (frag)
		return true;
	if (left(p, off) < 20) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return false;
	}
	put(o, "SPT=%u DPT=%u ", be16(t), be16(t + 2));
	if (flags & PLOG_F_TCPSEQ)
		put(o, "SEQ=%u ACK=%u ", be32(t + 4), be32(t + 8));
	put(o, "WINDOW=%u ", be16(t + 14));
	/* The reserved bits (byte 12's 0x0e) in the flag word's bits 22..24; AE on its own. */
	put(o, "RES=0x%02x ", (unsigned int)(t[12] & 0x0e) << 2);
	if (t[12] & 0x01)
		put(o, "AE ");
	for (unsigned int i = 0; i < 8; i++)
		if (t[13] & (0x80 >> i))
			put(o, "%s ", names[i]);
	put(o, "URGP=%u ", be16(t + 18));
	hl = (unsigned int)(t[12] >> 4) * 4;
	if ((flags & PLOG_F_TCPOPT) && hl > 20) {
		if (left(p, off) < hl) {
			put(o, "OPT (TRUNCATED)");
			return false;
		}
		put(o, "OPT (");
		for (unsigned int i = 20; i < hl; i++)
			put(o, "%02X", t[i]);
		put(o, ") ");
	}
	return true;
}

/* UDP (or UDP-Lite) at @p off. */
static bool
udp_part(struct out *o, const struct plog_pkt *p, uint32_t off, bool frag, uint8_t proto)
{
	const uint8_t *u = p->frame + off;

	put(o, proto == 17 ? "PROTO=UDP " : "PROTO=UDPLITE ");
	if (frag)
		return true;
	if (left(p, off) < 8) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return false;
	}
	put(o, "SPT=%u DPT=%u LEN=%u ", be16(u), be16(u + 2), be16(u + 4));
	return true;
}

static void ip4_part(struct out *o, const struct plog_pkt *p, uint32_t off, unsigned int flags,
	bool inner);

/* Bytes an ICMP type needs past the IP header to be logged whole (0: no check). */
static unsigned int
icmp_need(uint8_t type)
{
	switch (type) {
	case 0: case 8:
		return 4;
	case 3: case 4: case 5: case 11: case 12:
		return 8 + 20;
	case 13: case 14:
		return 20;
	case 17: case 18:
		return 12;
	default:
		return 0;
	}
}

static void
icmp_part(struct out *o, const struct plog_pkt *p, uint32_t off, bool frag, unsigned int flags,
	bool inner)
{
	const uint8_t *c = p->frame + off;
	unsigned int need;

	put(o, "PROTO=ICMP ");
	if (frag)
		return;
	if (left(p, off) < 8) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return;
	}
	put(o, "TYPE=%u CODE=%u ", c[0], c[1]);
	need = icmp_need(c[0]);
	if (need != 0 && left(p, off) < need) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return;
	}
	switch (c[0]) {
	case 0:
	case 8:
		put(o, "ID=%u SEQ=%u ", be16(c + 4), be16(c + 6));
		break;
	case 12:
		put(o, "PARAMETER=%u ", c[4]);
		break;
	case 5:
		put(o, "GATEWAY=");
		put_ip4(o, c + 4);
		put(o, " ");
		/* fall through */
	case 3:
	case 4:
	case 11:
		if (!inner) {
			put(o, "[");
			ip4_part(o, p, off + 8, flags, true);
			put(o, "] ");
		}
		if (c[0] == 3 && c[1] == 4)
			put(o, "MTU=%u ", be16(c + 6));
		break;
	default:
		break;
	}
}

/* AH or ESP: the SPI. */
static void
spi_part(struct out *o, const struct plog_pkt *p, uint32_t off, bool frag, uint8_t proto)
{
	uint32_t at = proto == 51 ? 4 : 0, need = proto == 51 ? 12 : 8;

	if (proto == 50)
		put(o, "PROTO=ESP ");
	if (frag)
		return;
	if (proto == 51)
		put(o, "PROTO=AH ");
	if (left(p, off) < need) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return;
	}
	put(o, "SPI=0x%x ", be32(p->frame + off + at));
}

static void
ip4_part(struct out *o, const struct plog_pkt *p, uint32_t off, unsigned int flags, bool inner)
{
	const uint8_t *h = p->frame + off;
	unsigned int ihl, fo;
	bool frag;

	if (left(p, off) < 20) {
		put(o, "TRUNCATED");
		return;
	}
	ihl = (unsigned int)(h[0] & 0x0f) * 4;
	fo = be16(h + 6);
	put(o, "SRC=");
	put_ip4(o, h + 12);
	put(o, " DST=");
	put_ip4(o, h + 16);
	put(o, " LEN=%u TOS=0x%02X PREC=0x%02X TTL=%u ID=%u ", be16(h + 2), h[1] & 0x1e,
		h[1] & 0xe0, h[8], be16(h + 4));
	if (fo & 0x8000)
		put(o, "CE ");
	if (fo & 0x4000)
		put(o, "DF ");
	if (fo & 0x2000)
		put(o, "MF ");
	if (fo & 0x1fff)
		put(o, "FRAG:%u ", fo & 0x1fff);
	frag = (fo & 0x1fff) != 0;
	if ((flags & PLOG_F_IPOPT) && ihl > 20) {
		if (left(p, off) < ihl) {
			put(o, "TRUNCATED");
			return;
		}
		put(o, "OPT (");
		for (unsigned int i = 20; i < ihl; i++)
			put(o, "%02X", h[i]);
		put(o, ") ");
	}
	switch (h[9]) {
	case 6:
		if (!tcp_part(o, p, off + ihl, frag, flags))
			return;
		break;
	case 17:
	case 136:
		if (!udp_part(o, p, off + ihl, frag, h[9]))
			return;
		break;
	case 1:
		icmp_part(o, p, off + ihl, frag, flags, inner);
		break;
	case 50:
	case 51:
		spi_part(o, p, off + ihl, frag, h[9]);
		break;
	default:
		put(o, "PROTO=%u ", h[9]);
		break;
	}
	if (!inner && p->mark != 0)
		put(o, "MARK=0x%x ", p->mark);
}

static void ip6_part(struct out *o, const struct plog_pkt *p, uint32_t off, unsigned int flags,
	bool outer);

static void
icmp6_part(struct out *o, const struct plog_pkt *p, uint32_t off, bool frag, unsigned int flags,
	bool outer)
{
	const uint8_t *c = p->frame + off;

	put(o, "PROTO=ICMPv6 ");
	if (frag)
		return;
	if (left(p, off) < 8) {
		put(o, "INCOMPLETE [%u bytes] ", left(p, off));
		return;
	}
	put(o, "TYPE=%u CODE=%u ", c[0], c[1]);
	switch (c[0]) {
	case 128:
	case 129:
		put(o, "ID=%u SEQ=%u ", be16(c + 4), be16(c + 6));
		break;
	case 4:
		put(o, "POINTER=%08x ", be32(c + 4));
		/* fall through */
	case 1:
	case 2:
	case 3:
		if (outer) {
			put(o, "[");
			ip6_part(o, p, off + 8, flags, false);
			put(o, "] ");
		}
		if (c[0] == 2)
			put(o, "MTU=%u ", be32(c + 4));
		break;
	default:
		break;
	}
}

static void
ip6_part(struct out *o, const struct plog_pkt *p, uint32_t off, unsigned int flags, bool outer)
{
	const uint8_t *h = p->frame + off;
	bool opt = (flags & PLOG_F_IPOPT) != 0, frag = false;
	uint32_t at = off + 40, w;
	uint8_t nh;

	if (left(p, off) < 40) {
		put(o, "TRUNCATED");
		return;
	}
	w = be32(h);
	put(o, "SRC=");
	put_ip6(o, h + 8);
	put(o, " DST=");
	put_ip6(o, h + 24);
	put(o, " LEN=%u TC=%u HOPLIMIT=%u FLOWLBL=%u ", be16(h + 4) + 40u, (w >> 20) & 0xff,
		h[7], w & 0xfffff);
	nh = h[6];
	/* Extension headers: hop-by-hop, routing, fragment, destination options, AH, ESP. */
	while (nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 51 || nh == 50) {
		uint32_t hl = 0;

		if (left(p, at) < 8) {
			put(o, "TRUNCATED");
			return;
		}
		if (opt)
			put(o, "OPT ( ");
		if (nh == 44) {
			uint16_t fo = be16(p->frame + at + 2);

			put(o, "FRAG:%u ", fo & 0xfff8);
			if (fo & 1)
				put(o, "INCOMPLETE ");
			put(o, "ID:%08x ", be32(p->frame + at + 4));
			frag = (fo & 0xfff8) != 0;
			hl = 8;
		} else if (nh == 0 || nh == 43 || nh == 60) {
			if (frag) {
				if (opt)
					put(o, ")");
				return;
			}
			hl = ((uint32_t)p->frame[at + 1] + 1) * 8;
		} else if (nh == 51) {
			if (opt) {
				put(o, "AH ");
				if (frag) {
					put(o, ")");
					return;
				}
				if (left(p, at) < 12) {
					put(o, "INCOMPLETE [%u bytes] )", left(p, at));
					return;
				}
				put(o, "SPI=0x%x ", be32(p->frame + at + 4));
			}
			hl = ((uint32_t)p->frame[at + 1] + 2) * 4;
		} else {
			if (opt) {
				put(o, "ESP ");
				if (frag) {
					put(o, ")");
					return;
				}
				put(o, "SPI=0x%x )", be32(p->frame + at));
			}
			return;
		}
		if (opt)
			put(o, ") ");
		nh = p->frame[at];
		at += hl;
	}
	switch (nh) {
	case 6:
		if (!tcp_part(o, p, at, frag, flags))
			return;
		break;
	case 17:
	case 136:
		if (!udp_part(o, p, at, frag, nh))
			return;
		break;
	case 58:
		icmp6_part(o, p, at, frag, flags, outer);
		break;
	default:
		put(o, "PROTO=%u ", nh);
		break;
	}
	if (outer && p->mark != 0)
		put(o, "MARK=0x%x ", p->mark);
}

/* The MAC header: MAC=dst:src:type, or decoded. VLAN tags are skipped (Linux's are offloaded). */
static void
mac_part(struct out *o, const struct plog_pkt *p, unsigned int flags)
{
	const uint8_t *e = p->frame;
	uint32_t t = 12;

	if (p->l3_off < 14 || p->len < p->l3_off) {
		put(o, "MAC= ");
		return;
	}
	while (t + 4 <= p->l3_off - 2 && (be16(e + t) == 0x8100 || be16(e + t) == 0x88a8))
		t += 4;
	if (flags & PLOG_F_MACDECODE) {
		put(o, "MACSRC=");
		put_mac(o, e + 6);
		put(o, " MACDST=");
		put_mac(o, e);
		put(o, " ");
		if (t > 12)
			put(o, "VPROTO=%04x VID=%u ", be16(e + 12), be16(e + 14) & 0x0fff);
		put(o, "MACPROTO=%04x ", be16(e + t));
		return;
	}
	put(o, "MAC=");
	for (unsigned int i = 0; i < 12; i++)
		put(o, "%s%02x", i ? ":" : "", e[i]);
	put(o, ":%02x:%02x ", e[t], e[t + 1]);
}

int
plog_line(char *buf, size_t size, const char *prefix, unsigned int flags,
	const struct plog_pkt *p)
{
	struct out o = {.b = buf, .size = size, .n = 0};

	if (buf == NULL || size == 0 || p == NULL || p->frame == NULL)
		return -EINVAL;
	buf[0] = '\0';
	put(&o, "%sIN=%s OUT=%s ", prefix != NULL ? prefix : "", p->in != NULL ? p->in : "",
		p->out != NULL ? p->out : "");
	if (p->in != NULL)
		mac_part(&o, p, flags);
	if (p->l3_off >= p->len) {
		put(&o, "TRUNCATED");
		return (int)o.n;
	}
	if ((p->frame[p->l3_off] >> 4) == 4)
		ip4_part(&o, p, p->l3_off, flags, false);
	else if ((p->frame[p->l3_off] >> 4) == 6)
		ip6_part(&o, p, p->l3_off, flags, true);
	else
		put(&o, "TRUNCATED");
	return (int)o.n;
}
