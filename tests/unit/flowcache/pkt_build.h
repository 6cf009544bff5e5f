/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/flowcache/pkt_build.h — a small packet builder: Ethernet,
 * 802.1Q/802.1ad tags, IPv4 (options, fragments), IPv6 (extension headers,
 * fragment header), TCP, UDP, SCTP, ICMP, ICMPv6 and raw payloads, plus
 * fragmenters that cut a built IPv4/IPv6 packet into real fragments.
 *
 * Used by the parser tests and the fuzz corpus generator; written to be
 * reused by a traffic generator, so it is pure C (no EAL, no DPDK headers,
 * no allocation) and computes correct lengths and checksums.
 *
 * Usage: pb_init() on a caller buffer, push layers outermost first (each one
 * writes its type into the previous layer's type field: ethertype, IPv4
 * protocol or IPv6 next header), then pb_finish() fixes the length fields and
 * checksums of the packet as built. pb_pad() may add Ethernet padding after
 * that. Errors are sticky: once a call fails (no room, bad argument) the
 * others do nothing and pb_finish() returns the error. Integers given to the
 * builder (addresses as uint32_t, ports, ids) are in host byte order.
 */
#ifndef GUFC_PKT_BUILD_H
#define GUFC_PKT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wire numbers, for callers that do not want <netinet/in.h>. */
#define PB_ETH_IPV4    0x0800
#define PB_ETH_IPV6    0x86dd
#define PB_ETH_ARP     0x0806
#define PB_TPID_8021Q  0x8100
#define PB_TPID_8021AD 0x88a8
#define PB_TPID_9100   0x9100

#define PB_PROTO_HOPOPTS  0
#define PB_PROTO_ICMP	  1
#define PB_PROTO_TCP	  6
#define PB_PROTO_UDP	  17
#define PB_PROTO_ROUTING  43
#define PB_PROTO_FRAGMENT 44
#define PB_PROTO_GRE	  47
#define PB_PROTO_ICMPV6	  58
#define PB_PROTO_NONE	  59
#define PB_PROTO_DSTOPTS  60
#define PB_PROTO_SCTP	  132

#define PB_TCP_FIN 0x01
#define PB_TCP_SYN 0x02
#define PB_TCP_RST 0x04
#define PB_TCP_PSH 0x08
#define PB_TCP_ACK 0x10

/** Builder state over a caller's buffer. Fields are read-only for users. */
struct pb {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;	    /**< bytes built so far */
	int err;	    /**< 0, or the first error (-ENOSPC, -EINVAL) */
	uint32_t link_off;  /**< where the previous layer's type field is */
	uint8_t link;	    /**< PB_LINK_*: kind of that field */
	uint8_t l3_family;  /**< 4 or 6 once an IP header is pushed, else 0 */
	uint8_t l4_proto;   /**< protocol of the L4 header pushed, 0 if none */
	uint8_t frag_later; /**< IP header says non-first fragment: no L4 checksum */
	uint32_t l3_off;    /**< offset of the (first) IP header */
	uint32_t l4_off;    /**< offset of the L4 header, 0 if none */
	uint32_t end;	    /**< pb_finish() length (before pb_pad()) */
};

/** IPv4 header parameters. Zero-initialize and fill what matters. */
struct pb_ipv4 {
	uint32_t src, dst; /**< host order, e.g. 0xc0000201 = 192.0.2.1 */
	uint16_t id;
	uint16_t frag_off; /**< fragment offset in bytes (multiple of 8) */
	bool mf;	   /**< more fragments */
	bool df;	   /**< don't fragment */
	uint8_t tos;
	uint8_t ttl;	     /**< 0 means 64 */
	const uint8_t *opts; /**< options bytes, or NULL */
	uint8_t opts_len;    /**< multiple of 4, at most 40 */
};

/** IPv6 header parameters. */
struct pb_ipv6 {
	uint8_t src[16], dst[16];
	uint8_t tclass;
	uint32_t flow; /**< 20 bits */
	uint8_t hlim;  /**< 0 means 64 */
};

/**
 * Start building into @p buf of @p cap bytes.
 */
void pb_init(struct pb *b, uint8_t *buf, uint32_t cap);

/** Ethernet header; NULL addresses give fixed locally administered ones. */
void pb_eth(struct pb *b, const uint8_t *dst, const uint8_t *src);

/** A VLAN tag with TPID @p tpid (0x8100, 0x88a8, 0x9100, ...) and TCI. */
void pb_vlan(struct pb *b, uint16_t tpid, uint16_t tci);

/** Close the L2 chain with a non-IP ethertype (e.g. ARP), data follows. */
void pb_ethertype(struct pb *b, uint16_t type);

/** IPv4 header (with options); pb_finish() sets length and checksum. */
void pb_ipv4(struct pb *b, const struct pb_ipv4 *ip);

/** IPv6 header; pb_finish() sets the payload length. */
void pb_ipv6(struct pb *b, const struct pb_ipv6 *ip);

/**
 * IPv6 hop-by-hop, routing or destination-options header of @p len bytes
 * (multiple of 8, 8..2048). Options headers are filled with PadN; a routing
 * header is type 0 with no segments left.
 */
void pb_ipv6_ext(struct pb *b, uint8_t type, uint32_t len);

/** IPv6 fragment header: @p off in bytes (multiple of 8), M flag, id. */
void pb_ipv6_frag(struct pb *b, uint16_t off, bool more, uint32_t id);

/** TCP header with @p opts_len bytes of NOP options (multiple of 4, <= 40). */
void pb_tcp(struct pb *b, uint16_t sport, uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
	uint8_t opts_len);

/**
 * Overwrite the first @p len option bytes of the TCP header just pushed
 * (the rest stay NOPs); @p len must fit in the header's option space.
 */
void pb_tcp_opts(struct pb *b, const uint8_t *opts, uint8_t len);

/** Set the window field of the TCP header just pushed (pb_tcp() writes 65535). */
void pb_tcp_win(struct pb *b, uint16_t win);

/** UDP header; pb_finish() sets the length. */
void pb_udp(struct pb *b, uint16_t sport, uint16_t dport);

/** SCTP common header with verification tag @p vtag. */
void pb_sctp(struct pb *b, uint16_t sport, uint16_t dport, uint32_t vtag);

/** ICMP header: type, code, then identifier and sequence (the "rest"). */
void pb_icmp(struct pb *b, uint8_t type, uint8_t code, uint16_t id, uint16_t seq);

/** ICMPv6 header, as pb_icmp(). */
void pb_icmp6(struct pb *b, uint8_t type, uint8_t code, uint16_t id, uint16_t seq);

/**
 * Start a header of another IP protocol (e.g. GRE) with @p len bytes of
 * @p data (zeros if NULL): only the protocol number is linked.
 */
void pb_l4_raw(struct pb *b, uint8_t proto, const void *data, uint32_t len);

/** Append @p len payload bytes: @p data, or a byte pattern if NULL. */
void pb_payload(struct pb *b, const void *data, uint32_t len);

/**
 * Fix IPv4 total length, IHL and header checksum, IPv6 payload length, UDP
 * length, and the TCP/UDP/ICMP/ICMPv6 checksum and SCTP CRC32c (not for a
 * non-first fragment, whose L4 header is elsewhere).
 * @return the packet length, or the sticky error (-ENOSPC, -EINVAL).
 */
int pb_finish(struct pb *b);

/** After pb_finish(): append zero bytes up to @p min_len (e.g. 60). */
int pb_pad(struct pb *b, uint32_t min_len);

/**
 * Cut a fragment out of the IPv4 packet @p frame (Ethernet included) whose
 * IPv4 header is at @p l3_off: the fragment carrying IP payload bytes
 * [@p off, @p off + @p len), with MF set unless it reaches the end.
 * Non-first fragments keep only options with the copied flag.
 * @p off must be a multiple of 8, and @p len too unless it is the last.
 * @return the fragment's length in @p out, or -EINVAL, -ENOSPC.
 */
int pb_ipv4_fragment(const uint8_t *frame, uint32_t flen, uint32_t l3_off, uint32_t off,
	uint32_t len, uint8_t *out, uint32_t cap);

/**
 * As pb_ipv4_fragment() for IPv6: the unfragmentable part (header, hop-by-hop,
 * routing and destination options before routing) is repeated and a
 * fragment header with identification @p id inserted after it.
 * @return the fragment's length in @p out, or -EINVAL, -ENOSPC.
 */
int pb_ipv6_fragment(const uint8_t *frame, uint32_t flen, uint32_t l3_off, uint32_t off,
	uint32_t len, uint32_t id, uint8_t *out, uint32_t cap);

/** CRC32c (Castagnoli) as SCTP uses it, over @p len bytes. */
uint32_t pb_crc32c(const uint8_t *p, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_PKT_BUILD_H */
