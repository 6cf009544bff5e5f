/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the extension option tables — for each extension kind
 * (rule_ext.h), its options in both languages, value types and places, the
 * names their values take. A whole extension's checks and defaults are
 * rule_xcheck.c's; the values are read and written by rule_xval.c; what
 * the matches mean is rule_xeval.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "rule_x_priv.h"

#define XOFF(f) ((uint16_t)offsetof(struct rule_x, u.f))
#define XSZ(f) ((uint8_t)sizeof(((struct rule_x *)NULL)->u.f))
#define B(i) ((uint16_t)(1u << (i)))
#define T(t) ((uint16_t)(1u << (t)))

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const struct rule_xname xn_addrtype[] = {
	{"UNSPEC", RULE_ADDRTYPE_UNSPEC}, {"UNICAST", RULE_ADDRTYPE_UNICAST},
	{"LOCAL", RULE_ADDRTYPE_LOCAL}, {"BROADCAST", RULE_ADDRTYPE_BROADCAST},
	{"ANYCAST", RULE_ADDRTYPE_ANYCAST}, {"MULTICAST", RULE_ADDRTYPE_MULTICAST},
	{"BLACKHOLE", RULE_ADDRTYPE_BLACKHOLE}, {"UNREACHABLE", RULE_ADDRTYPE_UNREACHABLE},
	{"PROHIBIT", RULE_ADDRTYPE_PROHIBIT}, {"THROW", RULE_ADDRTYPE_THROW},
	{"NAT", RULE_ADDRTYPE_NAT}, {"XRESOLVE", RULE_ADDRTYPE_XRESOLVE}, XNAMES_END,
};

static const struct rule_xname xn_ctstatus[] = {
	{"NONE", 0}, {"EXPECTED", RULE_CTS_EXPECTED}, {"SEEN_REPLY", RULE_CTS_SEEN_REPLY},
	{"ASSURED", RULE_CTS_ASSURED}, {"CONFIRMED", RULE_CTS_CONFIRMED}, XNAMES_END,
};

static const struct rule_xname xn_ctdir[] = {
	{"ORIGINAL", RULE_CTDIR_ORIGINAL}, {"REPLY", RULE_CTDIR_REPLY}, XNAMES_END,
};

static const struct rule_xname xn_statmode[] = {
	{"random", RULE_STAT_RANDOM}, {"nth", RULE_STAT_NTH}, XNAMES_END,
};

static const struct rule_xname xn_hlmode[] = {
	{"srcip", RULE_HL_SRCIP}, {"srcport", RULE_HL_SRCPORT}, {"dstip", RULE_HL_DSTIP},
	{"dstport", RULE_HL_DSTPORT}, XNAMES_END,
};

static const struct rule_xname xn_ip6h[] = {
	{"hop-by-hop", RULE_IP6H_HOP}, {"hop", RULE_IP6H_HOP}, {"ipv6-opts", RULE_IP6H_DST},
	{"dst", RULE_IP6H_DST}, {"ipv6-route", RULE_IP6H_ROUTE}, {"route", RULE_IP6H_ROUTE},
	{"ipv6-frag", RULE_IP6H_FRAG}, {"frag", RULE_IP6H_FRAG}, {"ah", RULE_IP6H_AH},
	{"esp", RULE_IP6H_ESP}, {"ipv6-nonxt", RULE_IP6H_NONE}, {"none", RULE_IP6H_NONE},
	{"protocol", RULE_IP6H_PROTO}, {"prot", RULE_IP6H_PROTO}, XNAMES_END,
};

static const struct rule_xname xn_pkttype[] = {
	{"unicast", RULE_PKTTYPE_UNICAST}, {"broadcast", RULE_PKTTYPE_BROADCAST},
	{"multicast", RULE_PKTTYPE_MULTICAST}, {"host", RULE_PKTTYPE_UNICAST}, XNAMES_END,
};

static const struct rule_xname xn_weekdays[] = {
	{"Mon", 0x02}, {"Tue", 0x04}, {"Wed", 0x08}, {"Thu", 0x10}, {"Fri", 0x20},
	{"Sat", 0x40}, {"Sun", 0x80}, {"1", 0x02}, {"2", 0x04}, {"3", 0x08}, {"4", 0x10},
	{"5", 0x20}, {"6", 0x40}, {"7", 0x80}, XNAMES_END,
};

static const struct rule_xname xn_monthdays[] = {
	/* clang-format off */
	{"1", 1u << 1}, {"2", 1u << 2}, {"3", 1u << 3}, {"4", 1u << 4}, {"5", 1u << 5},
	{"6", 1u << 6}, {"7", 1u << 7}, {"8", 1u << 8}, {"9", 1u << 9}, {"10", 1u << 10},
	{"11", 1u << 11}, {"12", 1u << 12}, {"13", 1u << 13}, {"14", 1u << 14},
	{"15", 1u << 15}, {"16", 1u << 16}, {"17", 1u << 17}, {"18", 1u << 18},
	{"19", 1u << 19}, {"20", 1u << 20}, {"21", 1u << 21}, {"22", 1u << 22},
	{"23", 1u << 23}, {"24", 1u << 24}, {"25", 1u << 25}, {"26", 1u << 26},
	{"27", 1u << 27}, {"28", 1u << 28}, {"29", 1u << 29}, {"30", 1u << 30},
	{"31", 1u << 31}, XNAMES_END,
	/* clang-format on */
};

static const struct rule_xname xn_dscp_class[] = {
	{"CS0", 0x00}, {"CS1", 0x08}, {"CS2", 0x10}, {"CS3", 0x18}, {"CS4", 0x20},
	{"CS5", 0x28}, {"CS6", 0x30}, {"CS7", 0x38}, {"BE", 0x00}, {"AF11", 0x0a},
	{"AF12", 0x0c}, {"AF13", 0x0e}, {"AF21", 0x12}, {"AF22", 0x14}, {"AF23", 0x16},
	{"AF31", 0x1a}, {"AF32", 0x1c}, {"AF33", 0x1e}, {"AF41", 0x22}, {"AF42", 0x24},
	{"AF43", 0x26}, {"EF", 0x2e}, XNAMES_END,
};

static const struct rule_xname xn_cbdir[] = {
	{"original", RULE_CTDIR_ORIGINAL}, {"reply", RULE_CTDIR_REPLY},
	{"both", RULE_CTDIR_BOTH}, XNAMES_END,
};

static const struct rule_xname xn_cbmode[] = {
	{"packets", RULE_CB_PACKETS}, {"bytes", RULE_CB_BYTES}, {"avgpkt", RULE_CB_AVGPKT},
	XNAMES_END,
};

const struct rule_xname rule_xn_reject[] = {
#define XN_REJECT(name, text) {text, RULE_REJECT_##name},
	RULE_REJECT_KINDS(XN_REJECT)
#undef XN_REJECT
	/* iptables' other spellings */
	{"net-unreach", RULE_REJECT_ICMP_NET_UNREACHABLE},
	{"host-unreach", RULE_REJECT_ICMP_HOST_UNREACHABLE},
	{"port-unreach", RULE_REJECT_ICMP_PORT_UNREACHABLE},
	{"proto-unreach", RULE_REJECT_ICMP_PROTO_UNREACHABLE},
	{"net-prohib", RULE_REJECT_ICMP_NET_PROHIBITED},
	{"host-prohib", RULE_REJECT_ICMP_HOST_PROHIBITED},
	{"admin-prohib", RULE_REJECT_ICMP_ADMIN_PROHIBITED},
	{"tcp-rst", RULE_REJECT_TCP_RESET},
	{"no-route", RULE_REJECT_ICMP6_NO_ROUTE},
	{"adm-prohibited", RULE_REJECT_ICMP6_ADM_PROHIBITED},
	{"addr-unreach", RULE_REJECT_ICMP6_ADDR_UNREACHABLE},
	{"port-unreach", RULE_REJECT_ICMP6_PORT_UNREACHABLE},
	{"policy-fail", RULE_REJECT_ICMP6_POLICY_FAIL},
	{"reject-route", RULE_REJECT_ICMP6_REJECT_ROUTE},
	XNAMES_END,
};

static const struct rule_xname xn_loglevel[] = {
	{"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}, {"4", 4}, {"5", 5}, {"6", 6}, {"7", 7},
	{"emerg", 0}, {"alert", 1}, {"crit", 2}, {"error", 3}, {"err", 3}, {"warning", 4},
	{"warn", 4}, {"notice", 5}, {"info", 6}, {"debug", 7}, XNAMES_END,
};

static const struct rule_xname xn_mh[] = {
	{"binding-refresh-request", 0}, {"brr", 0}, {"home-test-init", 1}, {"hoti", 1},
	{"careof-test-init", 2}, {"coti", 2}, {"home-test", 3}, {"hot", 3},
	{"careof-test", 4}, {"cot", 4}, {"binding-update", 5}, {"bu", 5},
	{"binding-acknowledgement", 6}, {"ba", 6}, {"binding-error", 7}, {"be", 7},
	XNAMES_END,
};

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

/* clang-format off */
static const struct rule_xopt xo_addrtype[] = {
	{"--src-type", NULL, "src_type", VT_NAMES, XO_NEG, 0, 2, XOFF(addrtype.src), 0, 0, xn_addrtype},
	{"--dst-type", NULL, "dst_type", VT_NAMES, XO_NEG, 0, 2, XOFF(addrtype.dst), 0, 0, xn_addrtype},
	{"--limit-iface-in", NULL, "limit_iface_in", VT_FLAG, 0, 0, 0, 0, B(3), 0, NULL},
	{"--limit-iface-out", NULL, "limit_iface_out", VT_FLAG, 0, 0, 0, 0, B(2), 0, NULL},
};

static const struct rule_xopt xo_tcp[] = {
	{"--tcp-flags", NULL, "tcp_flags", VT_TCPFLAGS, XO_NEG, 0, 2, XOFF(tcp.mask), 0, 0, NULL},
	{"--syn", NULL, "syn", VT_SYN, XO_NEG | XO_PARSE, 0, 2, XOFF(tcp.mask), 0, 0, NULL},
	{"--tcp-option", NULL, "tcp_option", VT_UINT, XO_NEG, 0, 1, XOFF(tcp.option), 0, 255, NULL},
};

static const struct rule_xopt xo_sctp[] = {
	{"--chunk-types", NULL, "chunk_types", VT_CHUNKS, XO_NEG, 0, 33, XOFF(sctp), 0, 0, NULL},
};

static const struct rule_xopt xo_icmp[] = {
	{"--icmp-type", NULL, "icmp_type", VT_ICMP, XO_NEG, 0, 4, XOFF(icmp), 0, 4, NULL},
};

static const struct rule_xopt xo_icmp6[] = {
	{"--icmpv6-type", NULL, "icmpv6_type", VT_ICMP, XO_NEG, 0, 4, XOFF(icmp), 0, 6, NULL},
};

static const struct rule_xopt xo_iprange[] = {
	{"--src-range", NULL, "src_range", VT_ARANGE, XO_NEG, 0, 32, XOFF(iprange.src_min), 0, 0, NULL},
	{"--dst-range", NULL, "dst_range", VT_ARANGE, XO_NEG, 0, 32, XOFF(iprange.dst_min), 0, 0, NULL},
};

static const struct rule_xopt xo_mac[] = {
	{"--mac-source", NULL, "mac_source", VT_MAC, XO_NEG, 0, 6, XOFF(mac.src), 0, 0, NULL},
};

static const struct rule_xopt xo_mark[] = {
	{"--mark", NULL, "mark", VT_MARK, XO_NEG, 0, 8, XOFF(mark), 0, 0, NULL},
};

static const struct rule_xopt xo_connmark[] = {
	{"--mark", NULL, "connmark", VT_MARK, XO_NEG, 0, 8, XOFF(mark), 0, 0, NULL},
};

static const struct rule_xopt xo_conntrack[] = {
	{"--ctproto", NULL, "ctproto", VT_PROTO, XO_NEG, 0, 1, XOFF(ct.proto), 0, 0, NULL},
	{"--ctorigsrc", NULL, "ctorigsrc", VT_PREFIX, XO_NEG, 0, 17, XOFF(ct.orig_src), 0, 0, NULL},
	{"--ctorigdst", NULL, "ctorigdst", VT_PREFIX, XO_NEG, 0, 17, XOFF(ct.orig_dst), 0, 0, NULL},
	{"--ctreplsrc", NULL, "ctreplsrc", VT_PREFIX, XO_NEG, 0, 17, XOFF(ct.repl_src), 0, 0, NULL},
	{"--ctrepldst", NULL, "ctrepldst", VT_PREFIX, XO_NEG, 0, 17, XOFF(ct.repl_dst), 0, 0, NULL},
	{"--ctorigsrcport", NULL, "ctorigsrcport", VT_RANGE, XO_NEG, 0, 2, XOFF(ct.orig_sport), 0, 0, NULL},
	{"--ctorigdstport", NULL, "ctorigdstport", VT_RANGE, XO_NEG, 0, 2, XOFF(ct.orig_dport), 0, 0, NULL},
	{"--ctreplsrcport", NULL, "ctreplsrcport", VT_RANGE, XO_NEG, 0, 2, XOFF(ct.repl_sport), 0, 0, NULL},
	{"--ctrepldstport", NULL, "ctrepldstport", VT_RANGE, XO_NEG, 0, 2, XOFF(ct.repl_dport), 0, 0, NULL},
	{"--ctstatus", NULL, "ctstatus", VT_NAMES, XO_NEG, 0, 1, XOFF(ct.status), 0, 0, xn_ctstatus},
	{"--ctexpire", NULL, "ctexpire", VT_RANGE, XO_NEG, 0, 4, XOFF(ct.expire), 0, 0, NULL},
	{"--ctdir", NULL, "ctdir", VT_NAME, 0, 0, 1, XOFF(ct.dir), 0, 0, xn_ctdir},
};

static const struct rule_xopt xo_set[] = {
	{"--match-set", NULL, "match_set", VT_SETREF, XO_NEG, 0, 0, XOFF(set), 0, 0, NULL},
	{"--return-nomatch", NULL, "set_return_nomatch", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_statistic[] = {
	{"--mode", NULL, "statistic_mode", VT_NAME, XO_LOWER, 0, 1, XOFF(stat.mode), 0, 0, xn_statmode},
	{"--probability", NULL, "statistic_probability", VT_PROB, XO_NEG, 0, 4, XOFF(stat.prob), B(2) | B(3), 0, NULL},
	{"--every", NULL, "statistic_every", VT_UINT, XO_NEG, 0, 4, XOFF(stat.every), B(1), 0, NULL},
	{"--packet", NULL, "statistic_packet", VT_UINT, 0, 0, 4, XOFF(stat.packet), B(1), 0, NULL},
};

static const struct rule_xopt xo_recent[] = {
	{"--set", NULL, "recent_set", VT_FLAG, XO_NEG, 0, 0, 0, B(1) | B(2) | B(3), 0, NULL},
	{"--rcheck", NULL, "recent_rcheck", VT_FLAG, XO_NEG, 0, 0, 0, B(0) | B(2) | B(3), 0, NULL},
	{"--update", NULL, "recent_update", VT_FLAG, XO_NEG, 0, 0, 0, B(0) | B(1) | B(3), 0, NULL},
	{"--remove", NULL, "recent_remove", VT_FLAG, XO_NEG, 0, 0, 0, B(0) | B(1) | B(2), 0, NULL},
	{"--seconds", NULL, "recent_seconds", VT_UINT, 0, 0, 4, XOFF(recent.seconds), 0, 0, NULL},
	{"--reap", NULL, "recent_reap", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--hitcount", NULL, "recent_hitcount", VT_UINT, 0, 0, 4, XOFF(recent.hitcount), 0, 0, NULL},
	{"--rttl", NULL, "recent_rttl", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--name", NULL, "recent_name", VT_STR, 0, 0, RULE_XNAME_MAX, XOFF(recent.name), 0, 0, NULL},
	{"--mask", NULL, "recent_mask", VT_ADDR, 0, 0, 16, XOFF(recent.mask), 0, 0, NULL},
	{"--rsource", NULL, "recent_rsource", VT_FLAG, 0, 0, 0, 0, B(11), 0, NULL},
	{"--rdest", NULL, "recent_rdest", VT_FLAG, 0, 0, 0, 0, B(10), 0, NULL},
};

static const struct rule_xopt xo_connlimit[] = {
	{"--connlimit-upto", NULL, "connlimit_upto", VT_UINT, 0, 0, 4, XOFF(connlimit.limit), B(1), 0, NULL},
	{"--connlimit-above", NULL, "connlimit_above", VT_UINT, 0, 0, 4, XOFF(connlimit.limit), B(0), 0, NULL},
	{"--connlimit-mask", NULL, "connlimit_mask", VT_UINT, 0, 0, 1, XOFF(connlimit.mask), 0, 128, NULL},
	{"--connlimit-saddr", NULL, "connlimit_saddr", VT_FLAG, 0, 0, 0, 0, B(4), 0, NULL},
	{"--connlimit-daddr", NULL, "connlimit_daddr", VT_FLAG, 0, 0, 0, 0, B(3), 0, NULL},
};

static const struct rule_xopt xo_limit[] = {
	{"--limit", NULL, "limit", VT_RATE, 0, 0, 5, XOFF(limit.rate), 0, 0, NULL},
	{"--limit-burst", NULL, "limit_burst", VT_UINT, 0, 0, 4, XOFF(limit.burst), 0, 10000, NULL},
};

static const struct rule_xopt xo_quota[] = {
	{"--quota", NULL, "quota", VT_UINT, XO_NEG, 0, 8, XOFF(quota.bytes), 0, 0, NULL},
};

static const struct rule_xopt xo_hashlimit[] = {
	{"--hashlimit-upto", "--hashlimit", "hashlimit_upto", VT_RATE, 0, 0, 5, XOFF(hashlimit.rate), B(1), 1, NULL},
	{"--hashlimit-above", NULL, "hashlimit_above", VT_RATE, 0, 0, 5, XOFF(hashlimit.rate), B(0), 1, NULL},
	{"--hashlimit-burst", NULL, "hashlimit_burst", VT_HLBURST, 0, 0, 4, XOFF(hashlimit.burst), 0, 0, NULL},
	{"--hashlimit-mode", NULL, "hashlimit_mode", VT_NAMES, XO_LOWER, 0, 1, XOFF(hashlimit.mode), 0, 0, xn_hlmode},
	{"--hashlimit-srcmask", NULL, "hashlimit_srcmask", VT_UINT, 0, 0, 1, XOFF(hashlimit.srcmask), 0, 128, NULL},
	{"--hashlimit-dstmask", NULL, "hashlimit_dstmask", VT_UINT, 0, 0, 1, XOFF(hashlimit.dstmask), 0, 128, NULL},
	{"--hashlimit-name", NULL, "hashlimit_name", VT_STR, 0, 0, RULE_XNAME_MAX, XOFF(hashlimit.name), 0, 0, NULL},
	{"--hashlimit-htable-size", NULL, "hashlimit_htable_size", VT_UINT, 0, 0, 4, XOFF(hashlimit.size), 0, 0, NULL},
	{"--hashlimit-htable-max", NULL, "hashlimit_htable_max", VT_UINT, 0, 0, 4, XOFF(hashlimit.max), 0, 0, NULL},
	{"--hashlimit-htable-gcinterval", NULL, "hashlimit_htable_gcinterval", VT_UINT, 0, 0, 4, XOFF(hashlimit.gcinterval), 0, 0, NULL},
	{"--hashlimit-htable-expire", NULL, "hashlimit_htable_expire", VT_UINT, 0, 0, 4, XOFF(hashlimit.expire), 0, 0, NULL},
};

static const struct rule_xopt xo_tcpmss[] = {
	{"--mss", NULL, "tcpmss", VT_RANGE, XO_NEG, 0, 4, XOFF(range), 0, 0, NULL},
};

static const struct rule_xopt xo_length[] = {
	{"--length", NULL, "length", VT_RANGE, XO_NEG, 0, 4, XOFF(range), 0, 0xffff, NULL},
};

static const struct rule_xopt xo_ttl[] = {
	{"--ttl-eq", NULL, "ttl_eq", VT_UINT, XO_NEG, 0, 1, XOFF(ttl.value), B(1) | B(2), 255, NULL},
	{"--ttl-lt", NULL, "ttl_lt", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(2), 255, NULL},
	{"--ttl-gt", NULL, "ttl_gt", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(1), 255, NULL},
};

static const struct rule_xopt xo_hl[] = {
	{"--hl-eq", NULL, "hl_eq", VT_UINT, XO_NEG, 0, 1, XOFF(ttl.value), B(1) | B(2), 255, NULL},
	{"--hl-lt", NULL, "hl_lt", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(2), 255, NULL},
	{"--hl-gt", NULL, "hl_gt", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(1), 255, NULL},
};

static const struct rule_xopt xo_fragment[] = {
	{"-f", "--fragment", "fragment", VT_FLAG, XO_NEG, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_rt[] = {
	{"--rt-type", NULL, "rt_type", VT_UINT, XO_NEG, 0, 1, XOFF(rt.type), 0, 255, NULL},
	{"--rt-segsleft", NULL, "rt_segsleft", VT_RANGE, XO_NEG, 0, 4, XOFF(rt.segsleft), 0, 0, NULL},
	{"--rt-len", NULL, "rt_len", VT_UINT, XO_NEG, 0, 4, XOFF(rt.len), 0, 0, NULL},
	{NULL, NULL, "rt", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_frag[] = {
	{"--fragid", NULL, "fragid", VT_RANGE, XO_NEG, 0, 4, XOFF(frag.id), 0, 0, NULL},
	{"--fraglen", NULL, "fraglen", VT_UINT, XO_NEG, 0, 4, XOFF(frag.len), 0, 0, NULL},
	{"--fragres", NULL, "fragres", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--fragfirst", NULL, "fragfirst", VT_FLAG, 0, 0, 0, 0, B(5), 0, NULL},
	{"--fragmore", NULL, "fragmore", VT_FLAG, 0, 0, 0, 0, B(5), 0, NULL},
	{"--fraglast", NULL, "fraglast", VT_FLAG, 0, 0, 0, 0, B(3) | B(4), 0, NULL},
	{NULL, NULL, "frag", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_ipv6header[] = {
	{"--header", NULL, "ipv6_header", VT_NAMES, XO_NEG | XO_LOWER, 0, 1, XOFF(ip6h.headers), 0, 0, xn_ip6h},
	{"--soft", NULL, "ipv6_header_soft", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_hbh[] = {
	{"--hbh-len", NULL, "hbh_len", VT_UINT, XO_NEG, 0, 4, XOFF(optlen.len), 0, 0, NULL},
	{NULL, NULL, "hbh", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_dst[] = {
	{"--dst-len", NULL, "dst_len", VT_UINT, XO_NEG, 0, 4, XOFF(optlen.len), 0, 0, NULL},
	{NULL, NULL, "dstopts", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_esp[] = {
	{"--espspi", NULL, "espspi", VT_RANGE, XO_NEG, 0, 4, XOFF(range), 0, 0, NULL},
	{NULL, NULL, "esp", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_ah[] = {
	{"--ahspi", NULL, "ahspi", VT_RANGE, XO_NEG, 0, 4, XOFF(range), 0, 0, NULL},
	{NULL, NULL, "ah", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_mh[] = {
	{"--mh-type", NULL, "mh_type", VT_NAME, XO_NEG | XO_LOWER, 0, 1, XOFF(ttl.value), 0, 1, xn_mh},
	{NULL, NULL, "mh", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_eui64[] = {
	{NULL, NULL, "eui64", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_pkttype[] = {
	{"--pkt-type", NULL, "pkt_type", VT_NAME, XO_NEG | XO_LOWER, 0, 1, XOFF(pkttype.type), 0, 0, xn_pkttype},
};

static const struct rule_xopt xo_time[] = {
	{"--timestart", NULL, "timestart", VT_TOD, 0, 0, 4, XOFF(time.start), 0, 0, NULL},
	{"--timestop", NULL, "timestop", VT_TOD, 0, 0, 4, XOFF(time.stop), 0, 0, NULL},
	{"--weekdays", "--days", "weekdays", VT_NAMES, XO_NEG, 0, 1, XOFF(time.weekdays), 0, 0, xn_weekdays},
	{"--monthdays", NULL, "monthdays", VT_NAMES, XO_NEG, 0, 4, XOFF(time.monthdays), 0, 0, xn_monthdays},
	{"--kerneltz", NULL, "kerneltz", VT_FLAG, 0, 0, 0, 0, B(5), 0, NULL},
	{"--utc", NULL, "utc", VT_FLAG, 0, 0, 0, 0, B(4), 0, NULL},
	{"--contiguous", NULL, "contiguous", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--datestart", NULL, "datestart", VT_DATE, 0, 0, 4, XOFF(time.date_start), 0, 0, NULL},
	{"--datestop", NULL, "datestop", VT_DATE, 0, 0, 4, XOFF(time.date_stop), 0, 0, NULL},
};

static const struct rule_xopt xo_dscp[] = {
	{"--dscp", NULL, "dscp", VT_HEX, XO_NEG, 0, 1, XOFF(dscp.dscp), B(1), 63, NULL},
	{"--dscp-class", NULL, "dscp_class", VT_NAME, XO_NEG | XO_PARSE, 0, 1, XOFF(dscp.dscp), B(0), 0, xn_dscp_class},
};

static const struct rule_xopt xo_connbytes[] = {
	{"--connbytes", NULL, "connbytes", VT_RANGE, XO_NEG, 0, 8, XOFF(connbytes.lo), 0, 1, NULL},
	{"--connbytes-dir", NULL, "connbytes_dir", VT_NAME, XO_LOWER, 0, 1, XOFF(connbytes.dir), 0, 0, xn_cbdir},
	{"--connbytes-mode", NULL, "connbytes_mode", VT_NAME, XO_LOWER, 0, 1, XOFF(connbytes.mode), 0, 0, xn_cbmode},
};

static const struct rule_xopt xo_helper[] = {
	{"--helper", NULL, "helper", VT_STR, XO_NEG, 0, RULE_XNAME_MAX, XOFF(helper.name), 0, 0, NULL},
};

static const struct rule_xopt xo_rpfilter[] = {
	{"--loose", NULL, "rpfilter_loose", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--validmark", NULL, "rpfilter_validmark", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--accept-local", NULL, "rpfilter_accept_local", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--invert", NULL, "rpfilter_invert", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{NULL, NULL, "rpfilter", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

/* u32: its tests, one quoted word (rule_u32.c). */
static const struct rule_xopt xo_u32[] = {
	{"--u32", NULL, "u32", VT_U32, XO_NEG, 0, 0, XOFF(u32), 0, 0, NULL},
};

/* bpf: a classic program (rule_bpf.c); --object-pinned (eBPF) refused. */
static const struct rule_xopt xo_bpf[] = {
	{"--bytecode", NULL, "bpf_bytecode", VT_BPF, 0, 0, 0, XOFF(bpf), B(1), 0, NULL},
	{"--object-pinned", NULL, "bpf_object_pinned", VT_BPF, 0, 0, 0, XOFF(bpf), B(0), 1, NULL},
};

static const struct rule_xname xn_stralgo[] = {
	{"bm", RULE_STR_BM}, {"kmp", RULE_STR_KMP}, XNAMES_END,
};

/* --hex-string is read into the same pattern and written as whichever spelling fits it. */
static const struct rule_xopt xo_string[] = {
	{"--string", NULL, "string", VT_STRPAT, XO_NEG, 0, RULE_STR_MAX, XOFF(str), 0, 0, NULL},
	{"--hex-string", NULL, "hex_string", VT_STRPAT, XO_NEG | XO_PARSE, 0, RULE_STR_MAX, XOFF(str), 0, 1, NULL},
	{"--algo", NULL, "string_algo", VT_NAME, 0, 0, 1, XOFF(str.algo), 0, 0, xn_stralgo},
	{"--from", NULL, "string_from", VT_UINT, 0, 0, 2, XOFF(str.from), 0, 0, NULL},
	{"--to", NULL, "string_to", VT_UINT, 0, 0, 2, XOFF(str.to), 0, 0, NULL},
	{"--icase", NULL, "string_icase", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

/* -m tos: VALUE[/MASK] (mask 0xff) or a name (mask 0x3f), as iptables reads them. */
static const struct rule_xopt xo_tos[] = {
	{"--tos", NULL, "tos", VT_TOS, XO_NEG, 0, 2, XOFF(tos), 0, XM_XSET, NULL},
};

/* -m ecn: the TCP header's ECE and CWR flags (-p tcp only), the IP header's ECN field. */
static const struct rule_xopt xo_ecn[] = {
	{"--ecn-tcp-ece", NULL, "ecn_tcp_ece", VT_FLAG, XO_NEG, 0, 0, 0, 0, 0, NULL},
	{"--ecn-tcp-cwr", NULL, "ecn_tcp_cwr", VT_FLAG, XO_NEG, 0, 0, 0, 0, 0, NULL},
	{"--ecn-ip-ect", NULL, "ecn_ip_ect", VT_UINT, XO_NEG, 0, 1, XOFF(ecn.ect), 0, 3, NULL},
};

/* -m ipcomp: the IPComp header's CPI (a 16-bit SPI), as esp/ah's SPIs. */
static const struct rule_xopt xo_ipcomp[] = {
	{"--ipcompspi", NULL, "ipcompspi", VT_RANGE, XO_NEG, 0, 4, XOFF(range), 0, 0, NULL},
	{NULL, NULL, "ipcomp", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

/* Targets */

static const struct rule_xopt xo_dnat[] = {
	{"--to-destination", NULL, "to", VT_NAT_TO, XO_NAT, 0, 0, 0, 0, 0, NULL},
	{"--random", NULL, "random", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM, NULL},
	{"--persistent", NULL, "persistent", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_PERSISTENT, NULL},
};

static const struct rule_xopt xo_snat[] = {
	{"--to-source", NULL, "to", VT_NAT_TO, XO_NAT, 0, 0, 0, 0, 0, NULL},
	{"--random", NULL, "random", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM, NULL},
	{"--random-fully", NULL, "random_fully", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM_FULLY, NULL},
	{"--persistent", NULL, "persistent", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_PERSISTENT, NULL},
};

static const struct rule_xopt xo_masq[] = {
	{"--to-ports", NULL, "ports", VT_NAT_PORTS, XO_NAT, 0, 0, 0, 0, 0, NULL},
	{"--random", NULL, "random", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM, NULL},
	{"--random-fully", NULL, "random_fully", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM_FULLY, NULL},
};

static const struct rule_xopt xo_redirect[] = {
	{"--to-ports", NULL, "ports", VT_NAT_PORTS, XO_NAT, 0, 0, 0, 0, 0, NULL},
	{"--random", NULL, "random", VT_NATFLAG, XO_NAT, 0, 0, 0, 0, RULE_NAT_F_RANDOM, NULL},
};

static const struct rule_xopt xo_netmap[] = {
	{"--to", NULL, "to", VT_NETMAP, XO_NAT, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_reject[] = {
	{"--reject-with", NULL, "with", VT_NAME, XO_LOWER, 0, 1, XOFF(reject.with), 0, 0, rule_xn_reject},
};

static const struct rule_xopt xo_log[] = {
	{"--log-level", NULL, "log_level", VT_NAME, 0, 0, 1, XOFF(log.level), 0, 0, xn_loglevel},
	{"--log-prefix", NULL, "log_prefix", VT_STR, XO_TRUNC, 0, 30, XOFF(log.prefix), 0, 0, NULL},
	{"--log-tcp-sequence", NULL, "log_tcp_sequence", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--log-tcp-options", NULL, "log_tcp_options", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--log-ip-options", NULL, "log_ip_options", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--log-uid", NULL, "log_uid", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--log-macdecode", NULL, "log_macdecode", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_nflog[] = {
	{"--nflog-group", NULL, "nflog_group", VT_UINT, 0, 0, 2, XOFF(nflog.group), 0, 0, NULL},
	{"--nflog-prefix", NULL, "nflog_prefix", VT_STR, 0, 0, 64, XOFF(nflog.prefix), 0, 0, NULL},
	{"--nflog-range", NULL, "nflog_range", VT_UINT, 0, 0, 4, XOFF(nflog.range), B(3), 0, NULL},
	{"--nflog-size", NULL, "nflog_size", VT_UINT, XO_PARSE, 2, 4, XOFF(nflog.range), B(2), 0, NULL},
	{"--nflog-threshold", NULL, "nflog_threshold", VT_UINT, 0, 0, 2, XOFF(nflog.threshold), 0, 0, NULL},
};

static const struct rule_xopt xo_mark_t[] = {
	{"--set-xmark", NULL, "set_xmark", VT_XMARK, 0, 0, 8, XOFF(mark), 0, XM_XSET, NULL},
	{"--set-mark", NULL, "set_mark", VT_XMARK, XO_PARSE, 0, 8, XOFF(mark), 0, XM_SET, NULL},
	{"--and-mark", NULL, "and_mark", VT_XMARK, XO_PARSE, 0, 8, XOFF(mark), 0, XM_AND, NULL},
	{"--or-mark", NULL, "or_mark", VT_XMARK, XO_PARSE, 0, 8, XOFF(mark), 0, XM_OR, NULL},
	{"--xor-mark", NULL, "xor_mark", VT_XMARK, XO_PARSE, 0, 8, XOFF(mark), 0, XM_XOR, NULL},
};

static const struct rule_xopt xo_connmark_t[] = {
	{"--set-xmark", NULL, "ct_set_xmark", VT_XMARK, 0, 0, 8, XOFF(connmark.value), B(1) | B(2), XM_XSET, NULL},
	{"--save-mark", NULL, "save_mark", VT_FLAG, 0, 0, 0, 0, B(0) | B(2), 0, NULL},
	{"--restore-mark", NULL, "restore_mark", VT_FLAG, 0, 0, 0, 0, B(0) | B(1), 0, NULL},
	{"--nfmask", NULL, "nfmask", VT_HEX, 0, 0, 4, XOFF(connmark.nfmask), B(0), 0, NULL},
	{"--ctmask", NULL, "ctmask", VT_HEX, 0, 0, 4, XOFF(connmark.ctmask), B(0), 0, NULL},
	{"--set-mark", NULL, "ct_set_mark", VT_XMARK, XO_PARSE, 0, 8, XOFF(connmark.value), B(1) | B(2), XM_SET, NULL},
};

static const struct rule_xopt xo_tcpmss_t[] = {
	{"--set-mss", NULL, "set_mss", VT_UINT, 0, 0, 2, XOFF(tcpmss.mss), B(1), 65535, NULL},
	{"--clamp-mss-to-pmtu", NULL, "clamp_mss_to_pmtu", VT_FLAG, 0, 0, 0, 0, B(0), 0, NULL},
};

static const struct rule_xopt xo_ct_t[] = {
	{"--notrack", NULL, "notrack", VT_FLAG, 0, 0, 0, 0, B(1) | B(2), 0, NULL},
	{"--helper", NULL, "ct_helper", VT_STR, 0, 0, 16, XOFF(ct_t.helper), B(0), 0, NULL},
	{"--zone", NULL, "ct_zone", VT_UINT, 0, 0, 2, XOFF(ct_t.zone), B(0), 0, NULL},
};

static const struct rule_xopt xo_checksum[] = {
	{"--checksum-fill", NULL, "checksum_fill", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_dscp_t[] = {
	{"--set-dscp", NULL, "set_dscp", VT_HEX, 0, 0, 1, XOFF(dscp.dscp), B(1), 63, NULL},
	{"--set-dscp-class", NULL, "set_dscp_class", VT_NAME, XO_PARSE, 0, 1, XOFF(dscp.dscp), B(0), 0, xn_dscp_class},
};

static const struct rule_xopt xo_tos_t[] = {
	{"--set-tos", NULL, "set_tos", VT_TOS, 0, 0, 2, XOFF(tos), 0, XM_XSET, NULL},
	{"--and-tos", NULL, "and_tos", VT_TOS, XO_PARSE, 0, 2, XOFF(tos), 0, XM_AND, NULL},
	{"--or-tos", NULL, "or_tos", VT_TOS, XO_PARSE, 0, 2, XOFF(tos), 0, XM_OR, NULL},
	{"--xor-tos", NULL, "xor_tos", VT_TOS, XO_PARSE, 0, 2, XOFF(tos), 0, XM_XOR, NULL},
};

static const struct rule_xopt xo_classify[] = {
	{"--set-class", NULL, "set_class", VT_CLASS, 0, 0, 4, XOFF(classify.cls), 0, 0, NULL},
};

/*
 * ECN target: --ecn-tcp-remove is ECE and CWR set to 0, written so when
 * that is all (as iptables-save writes it; rule_x_finish()).
 */
static const struct rule_xopt xo_ecn_t[] = {
	{"--ecn-tcp-remove", NULL, "ecn_remove", VT_FLAG, 0, 0, 0, 0, B(1) | B(2), 0, NULL},
	{"--ecn-tcp-ece", NULL, "ecn_set_ece", VT_UINT, 0, 0, 1, XOFF(ecn_t.ece), B(0), 1, NULL},
	{"--ecn-tcp-cwr", NULL, "ecn_set_cwr", VT_UINT, 0, 0, 1, XOFF(ecn_t.cwr), B(0), 1, NULL},
	{"--ecn-ip-ect", NULL, "ecn_set_ect", VT_UINT, 0, 0, 1, XOFF(ecn_t.ect), 0, 3, NULL},
};

static const struct rule_xopt xo_ttl_t[] = {
	{"--ttl-set", NULL, "ttl_set", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(1) | B(2), 255, NULL},
	{"--ttl-dec", NULL, "ttl_dec", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(2), 255, NULL},
	{"--ttl-inc", NULL, "ttl_inc", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(1), 255, NULL},
};

static const struct rule_xopt xo_hl_t[] = {
	{"--hl-set", NULL, "hl_set", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(1) | B(2), 255, NULL},
	{"--hl-dec", NULL, "hl_dec", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(2), 255, NULL},
	{"--hl-inc", NULL, "hl_inc", VT_UINT, 0, 0, 1, XOFF(ttl.value), B(0) | B(1), 255, NULL},
};

static const struct rule_xopt xo_synproxy[] = {
	{"--mss", NULL, "synproxy_mss", VT_UINT, 0, 0, 2, XOFF(synproxy.mss), 0, 65535, NULL},
	{"--wscale", NULL, "synproxy_wscale", VT_UINT, 0, 0, 1, XOFF(synproxy.wscale), 0, 14, NULL},
	{"--sack-perm", NULL, "synproxy_sack_perm", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--timestamp", NULL, "synproxy_timestamp", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
	{"--ecn", NULL, "synproxy_ecn", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct rule_xopt xo_set_t[] = {
	{"--add-set", NULL, "add_set", VT_SETREF, 0, 0, 0, XOFF(set_t.add), 0, 0, NULL},
	{"--del-set", NULL, "del_set", VT_SETREF, 0, 0, 0, XOFF(set_t.del), 0, 0, NULL},
	{"--timeout", NULL, "set_timeout", VT_UINT, 0, 0, 4, XOFF(set_t.timeout), 0, 0, NULL},
	{"--exist", NULL, "set_exist", VT_FLAG, 0, 0, 0, 0, 0, 0, NULL},
};
/* clang-format on */

#define K(name, fam, proto, opts, need, msg) \
	{name, fam, proto, (uint8_t)RTE_DIM(opts), 0, need, 0, 0, msg, opts}
#define KT(name, fam, proto, opts, act, need, tables, hooks, msg) \
	{name, fam, proto, (uint8_t)RTE_DIM(opts), act, need, tables, hooks, msg, opts}

#define ALL_TABLES (T(RULE_TABLE_FILTER) | T(RULE_TABLE_NAT) | T(RULE_TABLE_MANGLE) | \
	T(RULE_TABLE_RAW) | T(RULE_TABLE_SECURITY))
#define NOT_NAT (ALL_TABLES & ~T(RULE_TABLE_NAT))
#define H(h) RULE_HOOK_F(RULE_HOOK_##h)

/* clang-format off */
const struct rule_xkind rule_xkinds[RULE_X__COUNT] = {
	[RULE_XM_ADDRTYPE] = K("addrtype", 0, 0, xo_addrtype, B(0) | B(1), "addrtype needs --src-type or --dst-type"),
	[RULE_XM_TCP] = K("tcp", 0, RULE_PROTO_TCP, xo_tcp, 0, NULL),
	[RULE_XM_SCTP] = K("sctp", 0, RULE_PROTO_SCTP, xo_sctp, 0, NULL),
	[RULE_XM_ICMP] = K("icmp", FC_AF_INET4, 1, xo_icmp, B(0), "icmp needs --icmp-type"),
	[RULE_XM_ICMP6] = K("icmp6", FC_AF_INET6, 58, xo_icmp6, B(0), "icmp6 needs --icmpv6-type"),
	[RULE_XM_IPRANGE] = K("iprange", 0, 0, xo_iprange, B(0) | B(1), "iprange needs --src-range or --dst-range"),
	[RULE_XM_MAC] = K("mac", 0, 0, xo_mac, B(0), "mac needs --mac-source"),
	[RULE_XM_MARK] = K("mark", 0, 0, xo_mark, B(0), "mark needs --mark"),
	[RULE_XM_CONNMARK] = K("connmark", 0, 0, xo_connmark, B(0), "connmark needs --mark"),
	[RULE_XM_CONNTRACK] = K("conntrack", 0, 0, xo_conntrack, 0, NULL),
	[RULE_XM_SET] = K("set", 0, 0, xo_set, B(0), "set needs --match-set"),
	[RULE_XM_STATISTIC] = K("statistic", 0, 0, xo_statistic, B(0), "statistic needs --mode"),
	[RULE_XM_RECENT] = K("recent", 0, 0, xo_recent, B(0) | B(1) | B(2) | B(3), "recent needs --set, --rcheck, --update or --remove"),
	[RULE_XM_CONNLIMIT] = K("connlimit", 0, 0, xo_connlimit, B(0) | B(1), "connlimit needs --connlimit-upto or --connlimit-above"),
	[RULE_XM_LIMIT] = K("limit", 0, 0, xo_limit, 0, NULL),
	[RULE_XM_QUOTA] = K("quota", 0, 0, xo_quota, B(0), "quota needs --quota"),
	[RULE_XM_HASHLIMIT] = K("hashlimit", 0, 0, xo_hashlimit, B(0) | B(1), "hashlimit needs --hashlimit-upto or --hashlimit-above"),
	[RULE_XM_TCPMSS] = K("tcpmss", 0, RULE_PROTO_TCP, xo_tcpmss, B(0), "tcpmss needs --mss"),
	[RULE_XM_LENGTH] = K("length", 0, 0, xo_length, B(0), "length needs --length"),
	[RULE_XM_TTL] = K("ttl", FC_AF_INET4, 0, xo_ttl, B(0) | B(1) | B(2), "ttl needs --ttl-eq, --ttl-lt or --ttl-gt"),
	[RULE_XM_HL] = K("hl", FC_AF_INET6, 0, xo_hl, B(0) | B(1) | B(2), "hl needs --hl-eq, --hl-lt or --hl-gt"),
	[RULE_XM_FRAGMENT] = K("fragment", FC_AF_INET4, 0, xo_fragment, B(0), "missing -f"),
	[RULE_XM_RT] = K("rt", FC_AF_INET6, 0, xo_rt, 0, NULL),
	[RULE_XM_FRAG] = K("frag", FC_AF_INET6, 0, xo_frag, 0, NULL),
	[RULE_XM_IPV6HEADER] = K("ipv6header", FC_AF_INET6, 0, xo_ipv6header, B(0), "ipv6header needs --header"),
	[RULE_XM_HBH] = K("hbh", FC_AF_INET6, 0, xo_hbh, 0, NULL),
	[RULE_XM_DST] = K("dst", FC_AF_INET6, 0, xo_dst, 0, NULL),
	[RULE_XM_ESP] = K("esp", 0, 50, xo_esp, 0, NULL),
	[RULE_XM_AH] = K("ah", 0, 0, xo_ah, 0, NULL),
	[RULE_XM_MH] = K("mh", FC_AF_INET6, 135, xo_mh, 0, NULL),
	[RULE_XM_EUI64] = K("eui64", FC_AF_INET6, 0, xo_eui64, 0, NULL),
	[RULE_XM_PKTTYPE] = K("pkttype", 0, 0, xo_pkttype, B(0), "pkttype needs --pkt-type"),
	[RULE_XM_TIME] = K("time", 0, 0, xo_time, 0, NULL),
	[RULE_XM_DSCP] = K("dscp", 0, 0, xo_dscp, B(0), "dscp needs --dscp or --dscp-class"),
	[RULE_XM_CONNBYTES] = K("connbytes", 0, 0, xo_connbytes, B(0), "connbytes needs --connbytes, --connbytes-dir and --connbytes-mode"),
	[RULE_XM_HELPER] = K("helper", 0, 0, xo_helper, B(0), "helper needs --helper"),
	[RULE_XM_RPFILTER] = K("rpfilter", 0, 0, xo_rpfilter, 0, NULL),
	[RULE_XM_STRING] = K("string", 0, 0, xo_string, B(0), "string needs --string or --hex-string"),
	[RULE_XM_TOS] = K("tos", 0, 0, xo_tos, B(0), "tos needs --tos"),
	[RULE_XM_IPCOMP] = K("ipcomp", 0, 108, xo_ipcomp, 0, NULL),
	[RULE_XM_U32] = K("u32", 0, 0, xo_u32, B(0), "u32 needs --u32"),
	[RULE_XM_BPF] = K("bpf", 0, 0, xo_bpf, B(0) | B(1), "bpf: missing --bytecode parameter"),
	[RULE_XM_ECN] = K("ecn", 0, 0, xo_ecn, B(0) | B(1) | B(2), "ecn needs --ecn-tcp-ece, --ecn-tcp-cwr or --ecn-ip-ect"),
	[RULE_XT_DNAT] = KT("DNAT", 0, 0, xo_dnat, RULE_ACT_DNAT, 0, T(RULE_TABLE_NAT), H(PREROUTING) | H(OUTPUT), NULL),
	[RULE_XT_SNAT] = KT("SNAT", 0, 0, xo_snat, RULE_ACT_SNAT, 0, T(RULE_TABLE_NAT), H(POSTROUTING) | H(INPUT), NULL),
	[RULE_XT_MASQUERADE] = KT("MASQUERADE", 0, 0, xo_masq, RULE_ACT_MASQUERADE, 0, T(RULE_TABLE_NAT), H(POSTROUTING), NULL),
	[RULE_XT_REDIRECT] = KT("REDIRECT", 0, 0, xo_redirect, RULE_ACT_REDIRECT, 0, T(RULE_TABLE_NAT), H(PREROUTING) | H(OUTPUT), NULL),
	[RULE_XT_NETMAP] = KT("NETMAP", 0, 0, xo_netmap, RULE_ACT_NETMAP, B(0), T(RULE_TABLE_NAT), 0, "NETMAP needs --to"),
	[RULE_XT_REJECT] = KT("REJECT", 0, 0, xo_reject, RULE_ACT_REJECT, 0, NOT_NAT, RULE_HOOKS_FILTER, NULL),
	[RULE_XT_LOG] = KT("LOG", 0, 0, xo_log, RULE_ACT_LOG, 0, ALL_TABLES, 0, NULL),
	[RULE_XT_NFLOG] = KT("NFLOG", 0, 0, xo_nflog, RULE_ACT_NFLOG, 0, ALL_TABLES, 0, NULL),
	[RULE_XT_MARK] = KT("MARK", 0, 0, xo_mark_t, RULE_ACT_MARK, B(0), ALL_TABLES, 0, "MARK needs --set-xmark, --set-mark, --and-mark, --or-mark or --xor-mark"),
	[RULE_XT_CONNMARK] = KT("CONNMARK", 0, 0, xo_connmark_t, RULE_ACT_CONNMARK, B(0) | B(1) | B(2), ALL_TABLES, 0, "CONNMARK needs --set-xmark, --save-mark or --restore-mark"),
	[RULE_XT_TCPMSS] = KT("TCPMSS", 0, RULE_PROTO_TCP, xo_tcpmss_t, RULE_ACT_TCPMSS, B(0) | B(1), ALL_TABLES, H(FORWARD) | H(OUTPUT) | H(POSTROUTING), "TCPMSS needs --set-mss or --clamp-mss-to-pmtu"),
	[RULE_XT_CT] = KT("CT", 0, 0, xo_ct_t, RULE_ACT_CT, 0, T(RULE_TABLE_RAW), 0, NULL),
	[RULE_XT_CHECKSUM] = KT("CHECKSUM", 0, 0, xo_checksum, RULE_ACT_CHECKSUM, B(0), T(RULE_TABLE_MANGLE), 0, "CHECKSUM needs --checksum-fill"),
	[RULE_XT_DSCP] = KT("DSCP", 0, 0, xo_dscp_t, RULE_ACT_DSCP, B(0), T(RULE_TABLE_MANGLE), 0, "DSCP needs --set-dscp or --set-dscp-class"),
	[RULE_XT_TOS] = KT("TOS", 0, 0, xo_tos_t, RULE_ACT_TOS, B(0), T(RULE_TABLE_MANGLE), 0, "TOS needs --set-tos, --and-tos, --or-tos or --xor-tos"),
	[RULE_XT_CLASSIFY] = KT("CLASSIFY", 0, 0, xo_classify, RULE_ACT_CLASSIFY, B(0), ALL_TABLES, H(FORWARD) | H(OUTPUT) | H(POSTROUTING), "CLASSIFY needs --set-class"),
	[RULE_XT_TTL] = KT("TTL", FC_AF_INET4, 0, xo_ttl_t, RULE_ACT_TTL, B(0) | B(1) | B(2), T(RULE_TABLE_MANGLE), 0, "TTL needs --ttl-set, --ttl-dec or --ttl-inc"),
	[RULE_XT_HL] = KT("HL", FC_AF_INET6, 0, xo_hl_t, RULE_ACT_HL, B(0) | B(1) | B(2), T(RULE_TABLE_MANGLE), 0, "HL needs --hl-set, --hl-dec or --hl-inc"),
	[RULE_XT_SYNPROXY] = KT("SYNPROXY", 0, RULE_PROTO_TCP, xo_synproxy, RULE_ACT_SYNPROXY, 0, NOT_NAT, H(INPUT) | H(FORWARD), NULL),
	[RULE_XT_SET] = KT("SET", 0, 0, xo_set_t, RULE_ACT_SET, B(0) | B(1), ALL_TABLES, 0, "SET needs --add-set or --del-set"),
	[RULE_XT_ECN] = KT("ECN", FC_AF_INET4, 0, xo_ecn_t, RULE_ACT_ECN, B(0) | B(1) | B(2) | B(3), T(RULE_TABLE_MANGLE), 0, "ECN needs --ecn-tcp-remove, --ecn-tcp-ece, --ecn-tcp-cwr or --ecn-ip-ect"),
};
/* clang-format on */

/* ------------------------------------------------------------------------ */
/* Lookups                                                                   */
/* ------------------------------------------------------------------------ */

const char *
rule_x_kind_name(unsigned int kind)
{
	return kind > RULE_X_NONE && kind < RULE_X__COUNT && rule_xkinds[kind].ipt != NULL
		       ? rule_xkinds[kind].ipt
		       : "?";
}

const char *
rule_x_opt_name(unsigned int kind, unsigned int i)
{
	if (kind == RULE_X_NONE || kind >= RULE_X__COUNT || rule_xkinds[kind].o == NULL ||
		i >= rule_xkinds[kind].n)
		return NULL;
	return rule_xkinds[kind].o[i].ipt != NULL ? rule_xkinds[kind].o[i].ipt
						  : rule_xkinds[kind].o[i].nat;
}

unsigned int
rule_x_kind_of_match(const char *name)
{
	/* ip6tables takes "-m icmpv6" for its icmp6 match too. */
	if (strcmp(name, "icmpv6") == 0)
		name = "icmp6";
	for (unsigned int k = RULE_X_NONE + 1; k < RULE_XM__END; k++)
		if (rule_xkinds[k].ipt != NULL && strcmp(rule_xkinds[k].ipt, name) == 0)
			return k;
	return RULE_X_NONE;
}

unsigned int
rule_x_kind_of_target(const char *name)
{
	for (unsigned int k = RULE_XM__END; k < RULE_X__COUNT; k++)
		if (rule_xkinds[k].ipt != NULL && strcmp(rule_xkinds[k].ipt, name) == 0)
			return k;
	return RULE_X_NONE;
}

unsigned int
rule_x_kind_of_action(unsigned int action)
{
	for (unsigned int k = RULE_XM__END; k < RULE_X__COUNT; k++)
		if (rule_xkinds[k].o != NULL && rule_xkinds[k].action == action)
			return k;
	return RULE_X_NONE;
}

int
rule_x_opt_find(unsigned int kind, const char *word, bool native)
{
	const struct rule_xkind *k;

	if (kind == RULE_X_NONE || kind >= RULE_X__COUNT)
		return -1;
	k = &rule_xkinds[kind];
	for (unsigned int i = 0; i < k->n; i++) {
		const struct rule_xopt *o = &k->o[i];

		if (native ? strcmp(o->nat, word) == 0
			   : ((o->ipt != NULL && strcmp(o->ipt, word) == 0) ||
				     (o->ipt2 != NULL && strcmp(o->ipt2, word) == 0)))
			return (int)i;
	}
	return -1;
}

int
rule_x_opt_prefix(unsigned int kind, const char *word)
{
	const struct rule_xkind *k;
	size_t n = strlen(word);
	int found = -1;

	if (kind == RULE_X_NONE || kind >= RULE_X__COUNT || n < 3 || strncmp(word, "--", 2) != 0)
		return -1;
	k = &rule_xkinds[kind];
	for (unsigned int i = 0; i < k->n; i++) {
		const struct rule_xopt *o = &k->o[i];

		if ((o->ipt != NULL && strncmp(o->ipt, word, n) == 0) ||
			(o->ipt2 != NULL && strncmp(o->ipt2, word, n) == 0)) {
			if (found >= 0 && found != (int)i)
				return -2;
			found = (int)i;
		}
	}
	return found;
}

int
rule_x_native_match(const char *word, unsigned int *kind)
{
	for (unsigned int k = RULE_X_NONE + 1; k < RULE_XM__END; k++) {
		int i = rule_x_opt_find(k, word, true);

		if (i >= 0) {
			*kind = k;
			return i;
		}
	}
	return -1;
}

unsigned int
rule_x_opt_words(const struct rule_xopt *o)
{
	switch (o->vt) {
	case VT_FLAG:
	case VT_SYN:
	case VT_NATFLAG:
		return 0;
	case VT_TCPFLAGS:
	case VT_SETREF:
	case VT_CHUNKS:
		return 2;
	default:
		return 1;
	}
}
