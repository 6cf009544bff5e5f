/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache: reading and writing header fields of a frame (network
 * byte order, any alignment) and the Internet checksum (RFC 1071) over
 * them, for the slow-path code that parses or builds packets byte by
 * byte (replies, ARP/ND frames, the rules' packet context). The fast
 * path's parser has its own loads (parse.c).
 */
#ifndef GUFC_FC_WIRE_H
#define GUFC_FC_WIRE_H

#include <stdint.h>

static inline uint16_t
fc_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
fc_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
fc_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
fc_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/** Ones' complement sum of @p len bytes (big-endian words, an odd last
 *  byte padded with zero) added to @p sum, not folded. */
static inline uint32_t
fc_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += fc_rd16(p + i);
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

/** The checksum field's value for the sum @p sum: folded, complemented. */
static inline uint16_t
fc_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/** The pseudo header's part of a TCP/UDP/ICMPv6 checksum: the addresses
 *  of the IPv4 (@p v4) or IPv6 header at @p ip, @p proto and @p len. */
static inline uint32_t
fc_csum_pseudo(const uint8_t *ip, int v4, uint8_t proto, uint32_t len)
{
	uint32_t sum = v4 ? fc_csum_add(0, ip + 12, 8) : fc_csum_add(0, ip + 8, 32);

	return sum + proto + (len & 0xffff) + (len >> 16);
}

#endif
