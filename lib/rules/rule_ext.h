/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — extension matches and target options of the rule model.
 *
 * Part of rules.h (which includes it; include rules.h, not this file): the
 * kinds of extensions a rule may carry (struct rule::xm, the matches beyond
 * the 7-tuple: addrtype, TCP flags, ICMP types, marks, sets, meters, IPv6
 * extension headers, ...; struct rule::tgt, the options of the extension
 * targets: REJECT, LOG, MARK, NAT flags, ...), their option values, and
 * struct rule_x, which holds one of them as a plain value. Which options
 * each kind has, in both rule languages, is the option table of
 * rule_x.c (names through rule_x_opt_name()); what each match means is
 * rule_eval.h's and doc/iptables.md's.
 */
#ifndef GUFC_RULE_EXT_H
#define GUFC_RULE_EXT_H

#include <stdint.h>

#include "flowcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An address prefix; the family is struct rule::family. */
struct rule_prefix {
	uint8_t addr[16]; /**< network order; IPv4 in bytes 0..3; bits past @c len zero */
	uint8_t len;      /**< prefix length, 0..32 or 0..128 */
};

/**
 * Extension kinds: matches (RULE_XM_*, in struct rule::xm) and target
 * options (RULE_XT_*, in struct rule::tgt). X(NAME, "iptables name").
 * Their options, values and meaning are documented in doc/iptables.md
 * and doc/rules.md; rule_eval.h says what each match looks at.
 */
#define RULE_XM_KINDS(X) \
	X(ADDRTYPE, "addrtype") X(TCP, "tcp") X(SCTP, "sctp") X(ICMP, "icmp") X(ICMP6, "icmp6") \
	X(IPRANGE, "iprange") X(MAC, "mac") X(MARK, "mark") X(CONNMARK, "connmark") \
	X(CONNTRACK, "conntrack") X(SET, "set") X(STATISTIC, "statistic") X(RECENT, "recent") \
	X(CONNLIMIT, "connlimit") X(LIMIT, "limit") X(HASHLIMIT, "hashlimit") X(TCPMSS, "tcpmss") \
	X(LENGTH, "length") X(TTL, "ttl") X(HL, "hl") X(FRAGMENT, "fragment") X(RT, "rt") \
	X(FRAG, "frag") X(IPV6HEADER, "ipv6header") X(HBH, "hbh") X(DST, "dst") X(ESP, "esp") \
	X(AH, "ah") X(MH, "mh") X(EUI64, "eui64") X(PKTTYPE, "pkttype") X(TIME, "time") \
	X(DSCP, "dscp") X(CONNBYTES, "connbytes") X(HELPER, "helper") X(RPFILTER, "rpfilter") \
	X(STRING, "string") X(TOS, "tos") X(ECN, "ecn") \
	X(IPCOMP, "ipcomp") X(U32, "u32") X(BPF, "bpf") X(QUOTA, "quota")
#define RULE_XT_KINDS(X) \
	X(DNAT, "DNAT") X(SNAT, "SNAT") X(MASQUERADE, "MASQUERADE") X(REDIRECT, "REDIRECT") \
	X(NETMAP, "NETMAP") X(REJECT, "REJECT") X(LOG, "LOG") X(NFLOG, "NFLOG") X(MARK, "MARK") \
	X(CONNMARK, "CONNMARK") X(TCPMSS, "TCPMSS") X(CT, "CT") X(CHECKSUM, "CHECKSUM") \
	X(DSCP, "DSCP") X(TOS, "TOS") X(CLASSIFY, "CLASSIFY") X(TTL, "TTL") X(HL, "HL") \
	X(SYNPROXY, "SYNPROXY") X(SET, "SET") X(ECN, "ECN")

/** Extension kinds: 0 is none, then the matches, then the targets. */
enum rule_x_kind {
	RULE_X_NONE,
#define RULE_XM_ENUM(name, ipt) RULE_XM_##name,
	RULE_XM_KINDS(RULE_XM_ENUM)
#undef RULE_XM_ENUM
	RULE_XM__END,
	RULE_XT__START = RULE_XM__END - 1,
#define RULE_XT_ENUM(name, ipt) RULE_XT_##name,
	RULE_XT_KINDS(RULE_XT_ENUM)
#undef RULE_XT_ENUM
	RULE_X__COUNT
};

/* Values of extension options (see struct rule_x). */

/** Address types (addrtype --src-type/--dst-type), as bits. */
#define RULE_ADDRTYPE_UNSPEC 0x0001
#define RULE_ADDRTYPE_UNICAST 0x0002
#define RULE_ADDRTYPE_LOCAL 0x0004
#define RULE_ADDRTYPE_BROADCAST 0x0008
#define RULE_ADDRTYPE_ANYCAST 0x0010
#define RULE_ADDRTYPE_MULTICAST 0x0020
#define RULE_ADDRTYPE_BLACKHOLE 0x0040
#define RULE_ADDRTYPE_UNREACHABLE 0x0080
#define RULE_ADDRTYPE_PROHIBIT 0x0100
#define RULE_ADDRTYPE_THROW 0x0200
#define RULE_ADDRTYPE_NAT 0x0400
#define RULE_ADDRTYPE_XRESOLVE 0x0800

/** TCP flags (tcp --tcp-flags, the packet's flags byte). */
#define RULE_TCP_FIN 0x01
#define RULE_TCP_SYN 0x02
#define RULE_TCP_RST 0x04
#define RULE_TCP_PSH 0x08
#define RULE_TCP_ACK 0x10
#define RULE_TCP_URG 0x20
#define RULE_TCP_ECE 0x40
#define RULE_TCP_CWR 0x80

/** Conntrack status bits (conntrack --ctstatus; struct rule_pkt::ctstatus). */
#define RULE_CTS_EXPECTED 0x01
#define RULE_CTS_SEEN_REPLY 0x02
#define RULE_CTS_ASSURED 0x04
#define RULE_CTS_CONFIRMED 0x08

/** Directions (conntrack --ctdir, connbytes --connbytes-dir; struct rule_pkt::ctdir). */
#define RULE_CTDIR_ORIGINAL 0
#define RULE_CTDIR_REPLY 1
#define RULE_CTDIR_BOTH 2

/** statistic --mode. */
#define RULE_STAT_RANDOM 0
#define RULE_STAT_NTH 1

/** Rate units (limit, hashlimit: N per unit). */
#define RULE_RATE_SEC 0
#define RULE_RATE_MIN 1
#define RULE_RATE_HOUR 2
#define RULE_RATE_DAY 3
#define RULE_RATE_BYTES 4 /**< hashlimit: bytes per second (netfilter's byte mode) */

/** hashlimit --hashlimit-mode bits. */
#define RULE_HL_SRCIP 0x01
#define RULE_HL_SRCPORT 0x02
#define RULE_HL_DSTIP 0x04
#define RULE_HL_DSTPORT 0x08

/** IPv6 extension headers (ipv6header --header; struct rule_pkt::ip6_hdrs). */
#define RULE_IP6H_HOP 0x80
#define RULE_IP6H_DST 0x40
#define RULE_IP6H_ROUTE 0x20
#define RULE_IP6H_FRAG 0x10
#define RULE_IP6H_AH 0x08
#define RULE_IP6H_ESP 0x04
#define RULE_IP6H_NONE 0x02
#define RULE_IP6H_PROTO 0x01

/** Link-layer packet types (pkttype; struct rule_pkt::pkttype). */
#define RULE_PKTTYPE_UNICAST 0
#define RULE_PKTTYPE_BROADCAST 1
#define RULE_PKTTYPE_MULTICAST 2

/** connbytes --connbytes-mode. */
#define RULE_CB_PACKETS 0
#define RULE_CB_BYTES 1
#define RULE_CB_AVGPKT 2

/** string --algo (both find every occurrence; kept for the round trip). */
#define RULE_STR_BM 0
#define RULE_STR_KMP 1
/** Longest string pattern (--string, --hex-string), as iptables'. */
#define RULE_STR_MAX 128

/** sctp --chunk-types modes. */
#define RULE_SCTP_ALL 0
#define RULE_SCTP_ANY 1
#define RULE_SCTP_ONLY 2

/** REJECT --reject-with kinds. */
#define RULE_REJECT_KINDS(X) \
	X(ICMP_NET_UNREACHABLE, "icmp-net-unreachable") \
	X(ICMP_HOST_UNREACHABLE, "icmp-host-unreachable") \
	X(ICMP_PORT_UNREACHABLE, "icmp-port-unreachable") \
	X(ICMP_PROTO_UNREACHABLE, "icmp-proto-unreachable") \
	X(ICMP_NET_PROHIBITED, "icmp-net-prohibited") \
	X(ICMP_HOST_PROHIBITED, "icmp-host-prohibited") \
	X(ICMP_ADMIN_PROHIBITED, "icmp-admin-prohibited") \
	X(TCP_RESET, "tcp-reset") \
	X(ICMP6_NO_ROUTE, "icmp6-no-route") \
	X(ICMP6_ADM_PROHIBITED, "icmp6-adm-prohibited") \
	X(ICMP6_ADDR_UNREACHABLE, "icmp6-addr-unreachable") \
	X(ICMP6_PORT_UNREACHABLE, "icmp6-port-unreachable") \
	X(ICMP6_POLICY_FAIL, "icmp6-policy-fail") \
	X(ICMP6_REJECT_ROUTE, "icmp6-reject-route")
enum rule_reject {
	RULE_REJECT_NONE, /**< not a reject (or the family's default: port unreachable) */
#define RULE_REJECT_ENUM(name, text) RULE_REJECT_##name,
	RULE_REJECT_KINDS(RULE_REJECT_ENUM)
#undef RULE_REJECT_ENUM
	RULE_REJECT__COUNT
};

/*
 * The option values of each extension kind (struct rule_x::u). A field is
 * meaningful when its option's bit is in struct rule_x::given; which bit is
 * which option is the option table's order (rule_x_opt_name()).
 */
struct rule_x_addrtype { uint16_t src, dst; };            /**< RULE_ADDRTYPE_* sets */
struct rule_x_tcp { uint8_t mask, cmp, option; };           /**< flags & mask == cmp */
struct rule_x_sctp { uint8_t mode; uint8_t chunks[32]; };  /**< chunk-type bitmap */
struct rule_x_icmp { uint8_t type, code_min, code_max, any; };
struct rule_x_iprange { uint8_t src_min[16], src_max[16], dst_min[16], dst_max[16]; };
struct rule_x_mac { uint8_t src[6]; };
struct rule_x_mark { uint32_t value, mask; };              /**< (mark & mask) == value */
struct rule_x_conntrack {
	uint8_t proto, status, dir, pad;
	struct rule_prefix orig_src, orig_dst, repl_src, repl_dst;
	uint16_t orig_sport[2], orig_dport[2], repl_sport[2], repl_dport[2];
	uint32_t expire[2];
};
/** A reference to an ipset: its name and which packet fields it is looked up with. */
struct rule_x_set {
	char name[RULE_XNAME_MAX];
	uint8_t dirs;  /**< bit i: dimension i is the destination (else the source) */
	uint8_t ndims; /**< dimensions given, 1..3 */
};
struct rule_x_statistic { uint8_t mode; uint32_t prob; uint32_t every, packet; };
struct rule_x_recent {
	char name[RULE_XNAME_MAX];
	uint32_t seconds, hitcount;
	uint8_t mask[16]; /**< address mask, network order */
};
struct rule_x_connlimit { uint32_t limit; uint8_t mask; };
struct rule_x_limit { uint32_t rate; uint8_t unit; uint32_t burst; };
/** quota: the bytes (IP lengths) the rule matches, all flows together, before it stops. */
struct rule_x_quota { uint64_t bytes; };
/**
 * hashlimit: @c rate per @c unit; with RULE_RATE_BYTES bytes per second
 * and @c burst in bytes (0: none). @c burst_bytes: the burst was written
 * with a byte unit, only while reading (rule_x_finish() clears it).
 */
struct rule_x_hashlimit {
	uint32_t rate;
	uint8_t unit, mode, srcmask, dstmask;
	uint32_t burst, size, max, gcinterval, expire;
	char name[RULE_XNAME_MAX];
	uint8_t burst_bytes;
};
struct rule_x_range { uint32_t lo, hi; };                   /**< length, tcpmss, SPIs, mh */
struct rule_x_ttl { uint8_t value; };
struct rule_x_rt { uint8_t type; uint32_t segsleft[2]; uint32_t len; };
struct rule_x_frag { uint32_t id[2]; uint32_t len; };
struct rule_x_ipv6header { uint8_t headers; };              /**< RULE_IP6H_* */
struct rule_x_optlen { uint32_t len; };                     /**< hbh, dst */
struct rule_x_pkttype { uint8_t type; };
/** time: seconds of the day, day bits, and the dates (UTC seconds since the epoch, inclusive). */
struct rule_x_time {
	uint32_t start, stop, monthdays;
	uint8_t weekdays;
	uint32_t date_start, date_stop;
};
struct rule_x_dscp { uint8_t dscp; };
struct rule_x_ecn { uint8_t ect; };                         /**< the IP header's ECN field, 0..3 */
struct rule_x_connbytes { uint64_t lo, hi; uint8_t mode, dir; };
struct rule_x_name { char name[RULE_XNAME_MAX]; };          /**< helper */
/**
 * string: @c len bytes of @c pat searched between offsets @c from and
 * @c to of the IP header (a match lies wholly within [from, to)); @c to
 * is 65535 unless given (rule_x_finish()).
 */
struct rule_x_string {
	uint16_t from, to;
	uint8_t algo;  /**< RULE_STR_BM or RULE_STR_KMP */
	uint8_t len;   /**< 1..RULE_STR_MAX */
	uint8_t pat[RULE_STR_MAX];
};
/** Bytes of a u32 match's encoded tests kept in the extension (struct rule_x_u32). */
#define RULE_U32_CODE_MAX 135
/** Most bytes of encoded u32 tests: 10 tests of 10 numbers and 10 ranges, 5-byte varints. */
#define RULE_U32_ENC_MAX (1 + 10 * (1 + 10 * 5 + 10 * 2 * 5))
/** u32: most tests ("&&"), location numbers per test, value ranges per test (iptables'). */
#define RULE_U32_MAX 10
/** u32 location operators, as xt_u32 numbers them. */
#define RULE_U32_AND 0
#define RULE_U32_SHL 1
#define RULE_U32_SHR 2
#define RULE_U32_AT 3
/**
 * u32: the tests, encoded (rule_u32.c): a byte of tests, then per test a
 * byte (numbers << 4 | value ranges), each location number as a LEB128
 * varint of (number << 2 | operator before it), each range as two varints
 * (min, max). One spelling per set of tests (numbers are read into values
 * first), unused bytes zero: compared with memcmp as every extension is.
 * An encoding longer than @c code is held out of line (rule_xblob.c):
 * @c len is then 0xff and @c code starts with its reference (digest and
 * length), the same for the same tests.
 */
struct rule_x_u32 {
	uint8_t len; /**< bytes of @c code used */
	uint8_t code[RULE_U32_CODE_MAX];
};
/** Most instructions of a bpf match's program (xt_bpf's XT_BPF_MAX_NUM_INSTR). */
#define RULE_BPF_MAX 64
/** Bytes of a bpf match's encoded program kept in the extension (struct rule_x_bpf). */
#define RULE_BPF_CODE_MAX 135
/** Most bytes of an encoded program: the count, 64 instructions of 3 bytes and a 5-byte k. */
#define RULE_BPF_ENC_MAX (1 + RULE_BPF_MAX * 8)
/**
 * bpf: a classic BPF program, checked and encoded (rule_bpf.c): a byte of
 * instructions, then per instruction its code, jt and jf bytes and k as a
 * LEB128 varint. Unused bytes zero. A longer encoding is held out of line
 * as a u32 match's (struct rule_x_u32).
 */
struct rule_x_bpf {
	uint8_t len; /**< bytes of @c code used */
	uint8_t code[RULE_BPF_CODE_MAX];
};
struct rule_x_log { uint8_t level; char prefix[30]; };
struct rule_x_nflog { uint16_t group, threshold; uint32_t range; char prefix[64]; };
struct rule_x_reject { uint8_t with; };                     /**< enum rule_reject */
struct rule_x_connmark_t { uint32_t value, mask, nfmask, ctmask; };
struct rule_x_tcpmss_t { uint16_t mss; };
/** ECN target: TCP ECE and CWR set to @c ece, @c cwr (0 or 1), the IPv4 ECN field to @c ect. */
struct rule_x_ecn_t { uint8_t ece, cwr, ect; };
struct rule_x_ct { char helper[16]; uint16_t zone; };
struct rule_x_tos { uint8_t value, mask; };                /**< tos: (tos & mask) == value */
struct rule_x_classify { uint32_t cls; };                   /**< major << 16 | minor */
struct rule_x_synproxy { uint16_t mss; uint8_t wscale; };
struct rule_x_set_t { struct rule_x_set add, del; uint32_t timeout; };

/**
 * One extension: a match (RULE_XM_*) or the options of a target (RULE_XT_*).
 * A plain value: compared with memcmp (unused bytes zero), copied freely.
 */
struct rule_x {
	uint8_t kind;   /**< enum rule_x_kind; RULE_X_NONE for no extension */
	uint8_t pad;
	uint16_t given; /**< options given: bit i is the kind's i-th option */
	uint16_t neg;   /**< options negated (a subset of @c given) */
	uint16_t pad2;
	union {
		struct rule_x_addrtype addrtype;
		struct rule_x_tcp tcp;
		struct rule_x_sctp sctp;
		struct rule_x_icmp icmp;
		struct rule_x_iprange iprange;
		struct rule_x_mac mac;
		struct rule_x_mark mark;
		struct rule_x_conntrack ct;
		struct rule_x_set set;
		struct rule_x_statistic stat;
		struct rule_x_recent recent;
		struct rule_x_connlimit connlimit;
		struct rule_x_limit limit;
		struct rule_x_quota quota;
		struct rule_x_hashlimit hashlimit;
		struct rule_x_range range;
		struct rule_x_ttl ttl;
		struct rule_x_rt rt;
		struct rule_x_frag frag;
		struct rule_x_ipv6header ip6h;
		struct rule_x_optlen optlen;
		struct rule_x_pkttype pkttype;
		struct rule_x_time time;
		struct rule_x_dscp dscp;
		struct rule_x_ecn ecn;
		struct rule_x_connbytes connbytes;
		struct rule_x_name helper;
		struct rule_x_log log;
		struct rule_x_nflog nflog;
		struct rule_x_reject reject;
		struct rule_x_connmark_t connmark;
		struct rule_x_tcpmss_t tcpmss;
		struct rule_x_ecn_t ecn_t;
		struct rule_x_ct ct_t;
		struct rule_x_tos tos;
		struct rule_x_classify classify;
		struct rule_x_synproxy synproxy;
		struct rule_x_set_t set_t;
		struct rule_x_string str;
		struct rule_x_u32 u32;
		struct rule_x_bpf bpf;
		uint8_t raw[136];
	} u;
};


/**
 * Name of option @p i of extension kind @p kind, as iptables writes it
 * ("--hl-eq"); the bit of struct rule_x::given is 1 << @p i.
 * @param kind  enum rule_x_kind
 * @param i     option index
 * @return the name, or NULL if the kind has no such option.
 * Context: any.
 */
const char *rule_x_opt_name(unsigned int kind, unsigned int i);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_EXT_H */
