/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/reply — the packets gufc sends back about a packet it will not
 * forward (prefix reply_): ICMP and ICMPv6 errors (a router's time
 * exceeded, fragmentation needed, packet too big; a filter's
 * "destination unreachable" of iptables' REJECT) and TCP resets (REJECT
 * --reject-with tcp-reset). Pure C on flat buffers (no EAL, no mbufs):
 * the caller hands the offending frame as it arrived, parsed by
 * fc_parse(), and gets the reply frame written into its buffer, Ethernet
 * header (VLAN tags of the original kept) to checksums.
 *
 * What the replies look like follows Linux (icmp_send(), icmpv6_send(),
 * nf_send_reset()):
 *  - ICMP errors go to the packet's source, quote its IP header and as
 *    much of the datagram as keeps the error within 576 bytes (IPv4) or
 *    1280 bytes (IPv6), TTL / hop limit 64, IPv4 TOS 0xc0 with the
 *    original's TOS bits, DF clear;
 *  - a TCP reset goes from the packet's destination to its source, ports
 *    swapped, no options, window 0: with the ACK bit of the original, its
 *    sequence number is the original's acknowledgement number; without,
 *    sequence 0 and ACK set, acknowledging the original's sequence number
 *    plus its payload, SYN and FIN; IPv4 id 0 and DF set, TTL / hop limit
 *    64.
 * reply_allowed() says whether a reply may be sent at all: never about a
 * non-first fragment, to or from a multicast, broadcast, loopback or
 * unspecified address, an ICMP error about an ICMP(v6) error, a reset to a
 * reset (RFC 1122 3.2.2, RFC 1812 4.3.2.7, RFC 4443 2.4, RFC 793).
 *
 * Used by lib/datapath (router mode's ICMP errors; REJECT's replies).
 * Context: any; pure code.
 */
#ifndef GUFC_REPLY_H
#define GUFC_REPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "flowcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of reply (struct reply_spec::kind). */
enum reply_kind {
	REPLY_ICMP,    /**< an ICMP (IPv4) or ICMPv6 (IPv6) error */
	REPLY_TCP_RST, /**< a TCP reset (TCP packets only) */
};

/** ICMP types and codes gufc sends (RFC 792, RFC 1191, RFC 1812). */
#define REPLY_ICMP_UNREACH 3
#define REPLY_ICMP_UNREACH_NET 0
#define REPLY_ICMP_UNREACH_HOST 1
#define REPLY_ICMP_UNREACH_PROTO 2
#define REPLY_ICMP_UNREACH_PORT 3
#define REPLY_ICMP_UNREACH_NEEDFRAG 4
#define REPLY_ICMP_UNREACH_NET_PROHIB 9
#define REPLY_ICMP_UNREACH_HOST_PROHIB 10
#define REPLY_ICMP_UNREACH_ADMIN_PROHIB 13
#define REPLY_ICMP_TIME_EXCEEDED 11
/** ICMPv6 types and codes (RFC 4443). */
#define REPLY_ICMP6_UNREACH 1
#define REPLY_ICMP6_UNREACH_NOROUTE 0
#define REPLY_ICMP6_UNREACH_ADMIN 1
#define REPLY_ICMP6_UNREACH_ADDR 3
#define REPLY_ICMP6_UNREACH_PORT 4
#define REPLY_ICMP6_TOO_BIG 2
#define REPLY_ICMP6_TIME_EXCEEDED 3

/** Most bytes a reply frame takes (Ethernet, two VLAN tags, IPv6, ICMPv6, quote). */
#define REPLY_FRAME_MAX (14 + 4 * FC_PARSE_MAX_VLAN + 1280)

/** What to answer. */
struct reply_spec {
	uint8_t kind;            /**< enum reply_kind */
	uint8_t type;            /**< ICMP: type (REPLY_ICMP_*, REPLY_ICMP6_*) */
	uint8_t code;            /**< ICMP: code */
	uint32_t info;           /**< ICMP: the header's second word (the next-hop MTU of
				      fragmentation needed in its low half, the MTU of
				      packet too big), host order */
	const uint8_t *src;      /**< ICMP: the source address (4 or 16 bytes); NULL: the
				      packet's destination (a packet to this host).
				      Unused by a reset (always from the destination) */
	const uint8_t *eth_src;  /**< the reply's Ethernet source; NULL: the packet's
				      Ethernet destination */
};

/**
 * May a reply of @p kind be sent about this packet (see the header's
 * comment)?
 * @param frame  the frame as it arrived, from its Ethernet header
 * @param len    bytes at @p frame (at least up to the end of the L4 header)
 * @param p      fc_parse()'s result for it (FC_PARSE_OK or a fragment)
 * @param kind   enum reply_kind
 * @return true if a reply is allowed.
 * Context: any; pure code.
 */
bool reply_allowed(const uint8_t *frame, uint32_t len, const struct fc_pkt *p, unsigned int kind);

/**
 * Write the reply to a packet into @p out.
 * @param out    receives the frame, at least REPLY_FRAME_MAX bytes (or @p room)
 * @param room   bytes at @p out
 * @param frame  the frame as it arrived, from its Ethernet header
 * @param len    bytes at @p frame: the quote is what of the datagram is
 *               there (give the whole frame, or at least 1280 bytes of it)
 * @param p      fc_parse()'s result for it
 * @param s      what to answer
 * @return the frame's length; -EINVAL (bad argument, a reset to a packet
 *   that is not TCP, an address of the wrong family, reply_allowed() says
 *   no), -ENOSPC (@p room too small).
 * Context: any; pure code.
 */
int reply_build(uint8_t *out, uint32_t room, const uint8_t *frame, uint32_t len,
	const struct fc_pkt *p, const struct reply_spec *s);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_REPLY_H */
