/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache — the public face of gufc's flow cache.
 *
 * Everything a packet's fate depends on is keyed by its 7-tuple (src, dst,
 * src_local, dst_local, proto, sport, dport) and the port it arrived on.
 * This header is the manual for:
 *
 *  - the keys (IPv4: exactly 16 bytes, IPv6: 48), their normalization and
 *    their text form;
 *  - the packet parser (raw buffer, mbuf, burst) and its named results;
 *  - the local-address table that fills the two local bits (and the forged
 *    bit: a local source on a port that does not carry this host's packets);
 *  - the flow table: a cuckoo hash of its own with lock-free readers, RCU
 *    reclamation and preallocated key and entry arrays indexed by key slot
 *    (flowcache_table.h, included at the end of this header).
 *
 * Sections below are independent; each says which lcore may call what.
 * Byte order: addresses and ports in keys are in network byte order, so the
 * fast path never swaps. Text forms are for the slow path only.
 */
#ifndef GUFC_FLOWCACHE_H
#define GUFC_FLOWCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/* ------------------------------------------------------------------------ */
/* Keys                                                                      */
/* ------------------------------------------------------------------------ */

/** Address families, as stored in struct fc_pkt and tables. */
#define FC_AF_NONE 0
#define FC_AF_INET4 4
#define FC_AF_INET6 6

/** Key flag: the source address is one of this host's (OUTPUT). */
#define FC_KEY_F_SRC_LOCAL 0x01
/** Key flag: the destination address is one of this host's (INPUT). */
#define FC_KEY_F_DST_LOCAL 0x02
/**
 * Key flag: the source address is one of this host's, but the packet
 * arrived on a port that does not carry this host's own packets
 * (fc_locals_host_ports_set()): a forged local source from outside, never
 * locally generated, so FC_KEY_F_SRC_LOCAL is clear. Linux's IPv4 input
 * route drops such a packet as a martian (accept_local off); IPv6 takes
 * it as any packet from outside.
 */
#define FC_KEY_F_SRC_FORGED 0x04

/**
 * IPv4 flow key: exactly 16 bytes so the IPv4 hot path never pays for IPv6.
 * Addresses and ports in network byte order; @c in_port, the port the
 * packet arrived on, in host order (a port id, not a header field: a flow
 * seen on two ports is two flows). No padding is left, so memcmp() and
 * hashing are exact once every field is set.
 */
struct fc_key_v4 {
	uint32_t src;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t flags;    /**< FC_KEY_F_* local bits */
	uint16_t in_port; /**< input port id, host order */
};

/**
 * IPv6 flow key, padded to 48 bytes (the table compares six 64-bit words);
 * fields as in struct fc_key_v4, @c pad always zero (fc_key_v6_normalize()).
 */
struct fc_key_v6 {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t flags;    /**< FC_KEY_F_* local bits */
	uint16_t in_port; /**< input port id, host order */
	uint8_t pad[8];
};

/** Either key, tagged with its family. Slow-path currency (shell, rules). */
struct fc_key {
	union {
		struct fc_key_v4 v4;
		struct fc_key_v6 v6;
	};
	uint8_t family; /**< FC_AF_INET4 or FC_AF_INET6 */
};

/**
 * Longest text produced by fc_key_format(), including the NUL (the worst
 * case, "proto 255" with two 8-group IPv6 addresses, in_port=65535 and
 * src_forged=1, needs 160).
 */
#define FC_KEY_STRLEN 176

/**
 * Normalize an IPv4 key. The IPv4 key has no padding left (in_port took
 * it): every field must be set, and this does nothing. Kept so that code
 * building keys of either family reads the same.
 * Context: any lcore.
 */
static inline void
fc_key_v4_normalize(struct fc_key_v4 *k)
{
	RTE_SET_USED(k);
}

/** Zero the padding of an IPv6 key. Context: any lcore. */
static inline void
fc_key_v6_normalize(struct fc_key_v6 *k)
{
	for (unsigned int i = 0; i < sizeof(k->pad); i++)
		k->pad[i] = 0;
}

/*
 * Family accessors: the one place that knows where a field sits in each
 * family's key. Everything outside the fast path's per-family loops reads
 * and writes struct fc_key through these. Context: any lcore.
 */

/** Address bytes of @p family: 4, 16, or 0 for anything else. */
static inline unsigned int
fc_af_addr_len(unsigned int family)
{
	return family == FC_AF_INET4 ? 4u : family == FC_AF_INET6 ? 16u : 0u;
}

/** Longest prefix of @p family: 32, 128, or 0 for anything else. */
static inline unsigned int
fc_af_max_depth(unsigned int family)
{
	return fc_af_addr_len(family) * 8u;
}

/** Per-family table index: 0 for IPv4, 1 for IPv6, -1 for anything else. */
static inline int
fc_af_index(unsigned int family)
{
	return family == FC_AF_INET4 ? 0 : family == FC_AF_INET6 ? 1 : -1;
}

/** The key as a flow table stores it (16 or 48 bytes at the same address). */
static inline const void *
fc_key_raw(const struct fc_key *k)
{
	return &k->v4;
}

/** Source address, fc_af_addr_len(k->family) bytes, network order. */
static inline const uint8_t *
fc_key_src(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (const uint8_t *)&k->v4.src : k->v6.src;
}

/** Destination address, fc_af_addr_len(k->family) bytes, network order. */
static inline const uint8_t *
fc_key_dst(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (const uint8_t *)&k->v4.dst : k->v6.dst;
}

/** Writable source address (see fc_key_src()). */
static inline uint8_t *
fc_key_src_w(struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (uint8_t *)&k->v4.src : k->v6.src;
}

/** Writable destination address (see fc_key_dst()). */
static inline uint8_t *
fc_key_dst_w(struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (uint8_t *)&k->v4.dst : k->v6.dst;
}

/** Source port (or stand-in), network order. */
static inline uint16_t
fc_key_sport(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.sport : k->v6.sport;
}

/** Destination port (or stand-in), network order. */
static inline uint16_t
fc_key_dport(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.dport : k->v6.dport;
}

/** Set both ports (network order). */
static inline void
fc_key_set_ports(struct fc_key *k, uint16_t sport, uint16_t dport)
{
	if (k->family == FC_AF_INET4) {
		k->v4.sport = sport;
		k->v4.dport = dport;
	} else {
		k->v6.sport = sport;
		k->v6.dport = dport;
	}
}

/** IP protocol number. */
static inline uint8_t
fc_key_proto(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.proto : k->v6.proto;
}

/** Set the IP protocol number. */
static inline void
fc_key_set_proto(struct fc_key *k, uint8_t proto)
{
	if (k->family == FC_AF_INET4)
		k->v4.proto = proto;
	else
		k->v6.proto = proto;
}

/** FC_KEY_F_* local bits. */
static inline uint8_t
fc_key_flags(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.flags : k->v6.flags;
}

/** Set the FC_KEY_F_* local bits. */
static inline void
fc_key_set_flags(struct fc_key *k, uint8_t flags)
{
	if (k->family == FC_AF_INET4)
		k->v4.flags = flags;
	else
		k->v6.flags = flags;
}

/** Input port id (host order). */
static inline uint16_t
fc_key_in_port(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.in_port : k->v6.in_port;
}

/** Set the input port id (host order). */
static inline void
fc_key_set_in_port(struct fc_key *k, uint16_t port)
{
	if (k->family == FC_AF_INET4)
		k->v4.in_port = port;
	else
		k->v6.in_port = port;
}

/**
 * Build the key of the reply direction: addresses, ports and local bits
 * swapped. ICMP and ICMPv6 keys (of their own family) keep their ports in
 * place instead: a query's (fc_key_icmp_query()) keeps its identifier in
 * sport and gets the reply's type in dport (fc_icmp_reply_type(), the code
 * kept), so the reverse of an echo request's key is its echo reply's key,
 * not the key of a request from the other side; any other ICMP key's
 * sport becomes sport ^ dport (for a parsed packet's key, sport = 0: the
 * type and code in both ports, a key no packet has, since these types have
 * no reply). Reversing twice gives @p k back.
 * The input port is copied as it is: the port replies arrive on is
 * the forward flow's output port, which only the caller knows
 * (fc_key_set_in_port()).
 *
 * @param k    the forward key (family set)
 * @param out  receives the reverse key, normalized; may not alias @p k
 * Context: any lcore.
 */
void fc_key_reverse(const struct fc_key *k, struct fc_key *out);

/**
 * Format a key as text, e.g.
 * "tcp 192.0.2.1:1234 -> 198.51.100.7:80 src_local=0 dst_local=1 in_port=0" or
 * "udp [2001:db8::1]:53 -> [2001:db8::2]:5353 src_local=0 dst_local=0 in_port=1".
 * Protocols without a name print as "proto 47"; ICMP keys print their
 * ports like any other: the identifier (sport), type << 8 | code (dport).
 * A key with FC_KEY_F_SRC_FORGED ends in " src_forged=1".
 *
 * @param k    key to format
 * @param buf  destination
 * @param len  size of @p buf; FC_KEY_STRLEN always suffices
 * @return number of characters written (excluding NUL), or -ENOSPC if
 *   truncated, -EINVAL for an unknown family.
 * Context: any lcore (slow path).
 */
int fc_key_format(const struct fc_key *k, char *buf, size_t len);

/**
 * Parse the text form written by fc_key_format() (round-trips exactly).
 * Accepts protocol names (tcp, udp, sctp, icmp, icmpv6) or "proto N",
 * IPv4 "a.b.c.d:port" and IPv6 "[addr]:port"; both addresses must be of
 * the same family. The fields src_local=B, dst_local=B, src_forged=B and
 * in_port=N (0..65535) are optional (default 0), each at most once, in any order: the
 * text of keys from before the input port was part of them reads as
 * port 0.
 *
 * @param s       NUL-terminated text
 * @param k       receives the normalized key
 * @param errpos  if not NULL, receives the offset in @p s of the offending
 *   token on error
 * @return 0, or -EINVAL on malformed text.
 * Context: any lcore (slow path).
 */
int fc_key_parse(const char *s, struct fc_key *k, size_t *errpos);

/* ------------------------------------------------------------------------ */
/* Packet parser                                                             */
/* ------------------------------------------------------------------------ */

/**
 * Parser results: one X-macro makes the enum and the names. Non-negative
 * values below FC_PARSE_ERR_BASE are successes; the rest are named errors.
 * X(NAME, "short text")
 */
#define FC_PARSE_RESULTS(X) \
	X(OK, "ok") \
	X(FRAG_FIRST, "first fragment") \
	X(FRAG_LATER, "non-first fragment") \
	X(NOT_IP, "not ip") \
	X(ERR_TRUNC_ETH, "truncated ethernet header") \
	X(ERR_TRUNC_VLAN, "truncated vlan tag") \
	X(ERR_VLAN_DEPTH, "too many vlan tags") \
	X(ERR_TRUNC_IPV4, "truncated ipv4 header") \
	X(ERR_IPV4_VERSION, "bad ipv4 version") \
	X(ERR_IPV4_IHL, "ipv4 ihl below 5") \
	X(ERR_IPV4_OPTIONS, "ipv4 options beyond frame") \
	X(ERR_IPV4_TOTLEN, "bad ipv4 total length") \
	X(ERR_IPV4_FRAG, "bad ipv4 fragment") \
	X(ERR_TRUNC_IPV6, "truncated ipv6 header") \
	X(ERR_IPV6_VERSION, "bad ipv6 version") \
	X(ERR_IPV6_PAYLEN, "bad ipv6 payload length") \
	X(ERR_IPV6_EXT_TRUNC, "truncated ipv6 extension header") \
	X(ERR_IPV6_EXT_CHAIN, "ipv6 extension chain too long") \
	X(ERR_IPV6_EXT_ORDER, "ipv6 hop-by-hop not first") \
	X(ERR_IPV6_FRAG, "bad ipv6 fragment header") \
	X(ERR_TRUNC_TCP, "truncated tcp header") \
	X(ERR_TCP_DOFF, "bad tcp data offset") \
	X(ERR_TRUNC_UDP, "truncated udp header") \
	X(ERR_UDP_LEN, "bad udp length") \
	X(ERR_TRUNC_SCTP, "truncated sctp header") \
	X(ERR_TRUNC_DCCP, "truncated dccp header") \
	X(ERR_TRUNC_ICMP, "truncated icmp header") \
	X(ERR_TRUNC_ICMP6, "truncated icmpv6 header") \
	X(ERR_HDR_TOO_LONG, "headers too long")

/** Parser results (see FC_PARSE_RESULTS). */
enum fc_parse_result {
#define FC_PARSE_ENUM(name, text) FC_PARSE_##name,
	FC_PARSE_RESULTS(FC_PARSE_ENUM)
#undef FC_PARSE_ENUM
	FC_PARSE__COUNT
};

/** First error result: res >= FC_PARSE_ERR_BASE means malformed. */
#define FC_PARSE_ERR_BASE FC_PARSE_ERR_TRUNC_ETH

/** Fragment kinds in struct fc_pkt::frag. */
#define FC_FRAG_NONE 0
#define FC_FRAG_FIRST 1 /**< offset 0, more fragments: has L4 ports */
#define FC_FRAG_LATER 2 /**< offset > 0: no L4 header, ports are 0 */

/** Most VLAN tags accepted (802.1Q, QinQ). */
#define FC_PARSE_MAX_VLAN 2
/** Most IPv6 extension headers walked before ERR_IPV6_EXT_CHAIN. */
#define FC_PARSE_MAX_EXT 8
/** Most header bytes fc_parse_mbuf() gathers from a chained mbuf. */
#define FC_PARSE_MAX_HDR 512

/**
 * struct fc_pkt::tcp_opt: the TCP options are none, or exactly the aligned
 * timestamp option (NOP, NOP, TS), so the segment carries no SACK block.
 * The fast path checks such segments against a connection's windows; any
 * other option layout goes to the slow path.
 */
#define FC_TCP_OPT_PLAIN 0x01
/** struct fc_pkt::tcp_opt: a SYN segment with a window-scale option (tcp_wscale). */
#define FC_TCP_OPT_WSCALE 0x02
/** struct fc_pkt::tcp_opt: a SYN segment with the SACK-permitted option. */
#define FC_TCP_OPT_SACK_PERM 0x04
/** Largest window-scale shift (RFC 7323); larger values are read as this. */
#define FC_TCP_MAX_WSCALE 14

/**
 * What the parser learned about one packet. Filled on success; on error
 * only @c family and the offsets reached so far are meaningful. The TCP
 * fields are 0 for other protocols and for non-first fragments; the
 * options of a SYN are walked (at most the 40 option bytes, stopping at
 * the end-of-list option or a malformed length), those of other segments
 * only classified (FC_TCP_OPT_PLAIN).
 */
struct fc_pkt {
	struct fc_key key;  /**< normalized; local bits and input port 0 (the
			         caller sets them: fc_locals_mark_burst(), fc_key_set_in_port()) */
	uint16_t l3_off;    /**< offset of the IP header */
	uint16_t l4_off;    /**< offset of the L4 header; 0 if none (FRAG_LATER) */
	uint16_t ip_len;    /**< IP datagram length from the header (v4 total, v6 40+payload) */
	uint16_t frag_off;  /**< fragment offset in bytes */
	uint32_t frag_id;   /**< IPv4 id or IPv6 fragment identification */
	uint32_t tcp_seq;   /**< TCP sequence number, host order */
	uint32_t tcp_ack;   /**< TCP acknowledgment number, host order */
	uint16_t tcp_win;   /**< TCP window field, host order, unscaled */
	uint16_t tcp_dlen;  /**< TCP payload bytes: the datagram's end minus the TCP header's */
	uint8_t tcp_hlen;   /**< TCP header length in bytes (data offset * 4) */
	uint8_t tcp_opt;    /**< FC_TCP_OPT_* */
	uint8_t tcp_wscale; /**< with FC_TCP_OPT_WSCALE: the shift, at most FC_TCP_MAX_WSCALE */
	uint8_t frag;       /**< FC_FRAG_* */
	uint8_t n_vlan;     /**< VLAN tags seen */
	uint8_t tcp_flags;  /**< TCP flags byte, 0 for other protocols */
	uint8_t icmp_type;  /**< ICMP/ICMPv6 type, 0 otherwise */
	uint8_t icmp_code;  /**< ICMP/ICMPv6 code, 0 otherwise */
};

/**
 * Does an ICMP (@p family FC_AF_INET4) or ICMPv6 (FC_AF_INET6) message of
 * @p type carry a query identifier that keys it, as Linux conntrack tracks
 * it: echo request/reply, for ICMPv4 also timestamp (13/14), information
 * (15/16) and address mask (17/18) requests and replies, for ICMPv6 node
 * information queries and replies (139/140, RFC 4620: their Qtype is in
 * the identifier's place, as Linux's tuple reads it). Their identifier
 * (bytes 4-5) is the key's sport (fc_parse()).
 */
static inline bool
fc_icmp_has_id(uint8_t family, uint8_t type)
{
	if (family == FC_AF_INET4)
		return type == 0 || type == 8 || (type >= 13 && type <= 18);
	return type == 128 || type == 129 || type == 139 || type == 140;
}

/**
 * Does NAT rewrite the identifier of an ICMP (ICMPv6) message of @p type,
 * as Linux's ICMP NAT does: every ICMPv4 type fc_icmp_has_id() accepts,
 * ICMPv6 echo only. A node information message (139/140) is keyed by its
 * Qtype but never rewritten: NAT keeps it as a protocol without ports.
 * Context: any lcore; pure code.
 */
static inline bool
fc_icmp_nat_id(uint8_t family, uint8_t type)
{
	if (family == FC_AF_INET4)
		return fc_icmp_has_id(family, type);
	return type == 128 || type == 129;
}

/**
 * The type that answers query (or reply) @p type, as Linux conntrack
 * pairs them (its invmap): ICMPv4 8 <-> 0, 13 <-> 14, 15 <-> 16,
 * 17 <-> 18; ICMPv6 128 <-> 129, 139 <-> 140. Only for types fc_icmp_has_id() accepts;
 * others come back unchanged.
 * Context: any lcore; pure code.
 */
static inline uint8_t
fc_icmp_reply_type(uint8_t family, uint8_t type)
{
	if (!fc_icmp_has_id(family, type))
		return type;
	if (family == FC_AF_INET4) {
		if (type == 0 || type == 8)
			return (uint8_t)(type ^ 8);
		return (uint8_t)(type & 1 ? type + 1 : type - 1);
	}
	if (type == 139 || type == 140)
		return (uint8_t)(139 + 140 - type);
	return (uint8_t)(type ^ 1);
}

/**
 * Does a UDP-Lite header pass the checks Linux's conntrack makes of every
 * UDP-Lite packet (udplite_error()): a checksum coverage (the header's
 * length field) of 0 (the whole datagram) or 8 up to the datagram's
 * length, and a checksum (UDP-Lite makes it mandatory: 0 fails). The
 * checksum's value is not verified.
 * @param hdr     the 8-byte UDP-Lite header
 * @param l4_len  bytes from the header to the datagram's end
 * @param whole   false for a first fragment: its coverage may reach into
 *                later fragments
 * @return true when the header passes.
 * Context: any lcore; pure code.
 */
static inline bool
fc_udplite_ok(const uint8_t *hdr, uint32_t l4_len, bool whole)
{
	const uint32_t cov = (uint32_t)hdr[4] << 8 | hdr[5];

	if (cov != 0 && (cov < 8 || (whole && cov > l4_len)))
		return false;
	return (hdr[6] | hdr[7]) != 0;
}

/**
 * Is @p k the key of an ICMP query or reply of its family (an ICMP key
 * whose dport holds a type fc_icmp_has_id() accepts)? Such keys hold the
 * identifier in sport and type << 8 | code in dport, as Linux's ICMP
 * tuple holds id, type and code (fc_parse()).
 * Context: any lcore.
 */
static inline bool
fc_key_icmp_query(const struct fc_key *k)
{
	uint8_t proto = k->family == FC_AF_INET4 ? k->v4.proto : k->v6.proto;
	uint16_t dport = k->family == FC_AF_INET4 ? k->v4.dport : k->v6.dport;

	if (!((k->family == FC_AF_INET4 && proto == 1) || (k->family == FC_AF_INET6 && proto == 58)))
		return false;
	/* dport is in network order: its first byte is the type */
	return fc_icmp_has_id(k->family, ((const uint8_t *)&dport)[0]);
}

/**
 * Parse one frame held in a flat buffer. Never reads outside
 * [data, data + len). Ethernet, up to FC_PARSE_MAX_VLAN 802.1Q/802.1ad tags,
 * IPv4 with options, IPv6 with hop-by-hop, routing, destination-options and
 * fragment headers, then TCP, UDP, UDP-Lite, SCTP, DCCP, ICMP, ICMPv6. Other IP protocols
 * parse with ports 0.
 *
 * Ports: TCP/UDP/UDP-Lite/SCTP/DCCP ports. ICMP/ICMPv6, as Linux conntrack's
 * ICMP tuple (id, type, code): dport = type << 8 | code (the message's
 * first two bytes) for every type; sport = the identifier for queries and
 * their replies (fc_icmp_has_id(): echo; ICMPv4 timestamp, information,
 * address mask), 0 for other types. So an echo request and a timestamp
 * request with one identifier are two flows, a request and a reply in the
 * same direction are two flows, and fc_key_reverse() of a request's key
 * is its reply's key.
 *
 * @param data  first byte of the Ethernet header
 * @param len   bytes available
 * @param pkt   receives the result
 * @return FC_PARSE_OK, FC_PARSE_FRAG_FIRST, FC_PARSE_FRAG_LATER,
 *   FC_PARSE_NOT_IP (an ethertype other than IPv4/IPv6), or an error
 *   (>= FC_PARSE_ERR_BASE).
 * Context: any lcore; pure code (no EAL needed).
 */
enum fc_parse_result fc_parse(const uint8_t *data, uint32_t len, struct fc_pkt *pkt);

/**
 * Parse an mbuf, which may be chained: headers contiguous in the first
 * segment are parsed in place; otherwise up to FC_PARSE_MAX_HDR bytes are
 * gathered first (ERR_HDR_TOO_LONG if the headers need more).
 * @return as fc_parse().
 * Context: any lcore.
 */
enum fc_parse_result fc_parse_mbuf(const struct rte_mbuf *m, struct fc_pkt *pkt);

/**
 * Parse a burst of mbufs, prefetching ahead.
 * @param mbufs  packets
 * @param n      number of packets
 * @param pkts   receives one struct fc_pkt per packet
 * @param res    receives one result per packet
 * @return number of packets whose result is FC_PARSE_OK.
 * Context: any lcore.
 */
unsigned int fc_parse_burst(struct rte_mbuf *const *mbufs, unsigned int n, struct fc_pkt *pkts,
	uint8_t *res);

/**
 * Name of a parser result ("ok", "truncated tcp header", ...).
 * @return a static string; "unknown" for out-of-range values.
 * Context: any lcore.
 */
const char *fc_parse_result_name(unsigned int res);

/**
 * Identifier of a parser result as in the enum, lower case without the
 * FC_PARSE_ prefix ("err_trunc_tcp"): stable names for counters and JSON.
 * Context: any lcore.
 */
const char *fc_parse_result_id(unsigned int res);

/**
 * The highest right edge of a TCP segment's SACK blocks (RFC 2018), which
 * connection tracking checks against what the other side sent. Walks the
 * options of the TCP header at @p pkt->l4_off (at most its data offset,
 * never past @p len; the aligned timestamp layout is skipped at once) and
 * stops at the first well-formed SACK option, the end-of-list option or a
 * malformed length.
 * @param frame  the frame @p pkt was parsed from
 * @param len    bytes in @p frame
 * @param pkt    its fc_parse() result, a TCP segment (tcp_hlen set)
 * @param edge   in: the value to beat (the ACK number); out: raised to any
 *   right edge after it (modulo 2^32)
 * @return true if a SACK option was found; false otherwise (also for NULL
 *   arguments or a header that does not fit in @p len).
 * Context: any lcore; pure code.
 */
bool fc_tcp_sack_edge(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt,
	uint32_t *edge);

/* ------------------------------------------------------------------------ */
/* Local-address table                                                       */
/* ------------------------------------------------------------------------ */

struct fc_locals;

/**
 * Create a local-address table (IPv4 and IPv6 prefixes, rte_lpm/rte_lpm6).
 * @param name    unique name, 1..16 characters (memzone names derive from it)
 * @param max_v4  most IPv4 prefixes
 * @param max_v6  most IPv6 prefixes
 * @param socket  NUMA socket or SOCKET_ID_ANY
 * @return the table, or NULL with rte_errno set (EINVAL, ENOMEM, EEXIST).
 * Context: main lcore.
 */
struct fc_locals *fc_locals_create(const char *name, uint32_t max_v4, uint32_t max_v6, int socket);

/** Free a table; NULL is accepted. Context: main lcore, readers gone. */
void fc_locals_free(struct fc_locals *l);

/**
 * Add a local prefix.
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order; bits past @p depth are ignored
 * @param depth   prefix length (1..32 or 1..128)
 * @return 0, -EINVAL (bad family/depth), -EEXIST (already there), -ENOSPC.
 * Context: control (one writer at a time); readers may run concurrently.
 */
int fc_locals_add(struct fc_locals *l, int family, const uint8_t *addr, uint8_t depth);

/**
 * Remove a local prefix. @return 0, -EINVAL, -ENOENT.
 * Context: control (one writer at a time); readers may run concurrently.
 */
int fc_locals_del(struct fc_locals *l, int family, const uint8_t *addr, uint8_t depth);

/** True if @p addr (4 or 16 bytes, network order) is local. Context: any. */
bool fc_locals_match(const struct fc_locals *l, int family, const uint8_t *addr);

/**
 * Say which input ports carry this host's own packets (the side of its
 * stack: what the host sends arrives there). A local source on one of them
 * is locally generated (FC_KEY_F_SRC_LOCAL: OUTPUT); on any other port it
 * is forged (FC_KEY_F_SRC_FORGED). A new table takes every port as the
 * host's (the library knows no ports); an application sets the ones it has.
 * @param mask  bit N: port N (ports past 63 never carry the host's packets
 *              unless @p mask is UINT64_MAX, which means every port)
 * Context: control (one writer at a time); readers may run concurrently
 * (a packet read during the change gets the old or the new answer).
 */
void fc_locals_host_ports_set(struct fc_locals *l, uint64_t mask);

/** The mask fc_locals_host_ports_set() set (UINT64_MAX: every port). Context: any. */
uint64_t fc_locals_host_ports(const struct fc_locals *l);

/**
 * Set FC_KEY_F_SRC_LOCAL / FC_KEY_F_DST_LOCAL (and FC_KEY_F_SRC_FORGED: a
 * local source on a port that does not carry this host's packets) on a
 * burst of parsed packets (both families; entries with family FC_AF_NONE
 * are skipped).
 * @param pkts  parsed packets; their keys are updated in place
 * @param n     count
 * Context: any lcore (lock-free reader).
 */
void fc_locals_mark_burst(const struct fc_locals *l, struct fc_pkt *pkts, unsigned int n);

/**
 * Write the prefixes, one per line ("10.0.0.0/8"), to @p f.
 * @return number of prefixes written, or -errno.
 * Context: control.
 */
int fc_locals_dump(const struct fc_locals *l, FILE *f);

/** Number of prefixes per family. Context: any. */
unsigned int fc_locals_count(const struct fc_locals *l, int family);

/* The flow table: flowcache_table.h, part of this manual. */

#ifdef __cplusplus
}
#endif

#include "flowcache_table.h"

#endif /* GUFC_FLOWCACHE_H */
