/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — evaluating rule sets: the packet context, the providers of
 * stateful matches, the results, and the reference evaluator.
 *
 * Part of rules.h (which includes it at its end; include rules.h). This is
 * the contract between whoever decides packets (lib/classifier compiles a
 * set and must give exactly these answers; lib/engine calls either) and
 * the rule model:
 *
 *  - struct rule_pkt: everything a rule may look at beyond the 7-tuple —
 *    ports, conntrack state and status, marks, TCP flags, ICMP type, L3
 *    length, TTL, MAC source, fragment and IPv6 extension headers, ... The
 *    caller fills what it knows; zero means "absent" for every field.
 *    Evaluation updates it as netfilter would (MARK, CONNMARK, NOTRACK,
 *    TOS/DSCP/TTL rewrites are seen by the rules after them);
 *  - struct rule_providers: the run-time state of stateful matches
 *    (statistic, recent, connlimit, limit, hashlimit, set, rpfilter) is the
 *    caller's; without a provider the evaluator answers as the state right
 *    after loading would (rule_x_fresh()); the state itself (recent
 *    lists, hashlimit tables, ipsets at run time) is rule_state.h's;
 *  - struct rule_eval: the verdict with the deciding rule, the NAT
 *    decision, the non-terminal actions that ran (LOG, MARK, ...) in order,
 *    and which per-packet fields the decision depended on (RULE_DEP_*), so
 *    a cached decision can be kept valid by an interest in exactly those;
 *  - stages: netfilter's hooks in netfilter's order for a packet, by its
 *    local bits (RULE_STAGE_RAW, _DST, _FILTER, _SRC);
 *  - the reference evaluator: linear, obviously right, the oracle.
 */
#ifndef GUFC_RULE_EVAL_H
#define GUFC_RULE_EVAL_H

#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Packet context                                                            */
/* ------------------------------------------------------------------------ */

/** struct rule_pkt::flags. */
#define RULE_PKT_F_NOPORTS RULE_KEY_F_NOPORTS /**< a non-first fragment: no L4 header (-f) */
#define RULE_PKT_F_MAC 0x02     /**< @c mac_src is valid (arrived on an Ethernet port) */
#define RULE_PKT_F_MSS 0x04     /**< @c tcp_mss is valid: the TCP header has an MSS option */
#define RULE_PKT_F_SPI 0x08     /**< @c spi is valid (an ESP, AH or IPComp header) */
#define RULE_PKT_F_FRAGHDR 0x10 /**< an IPv6 fragment header: @c frag_* are valid */
/**
 * Router mode, a forwarded packet past the router's decrement (FORWARD,
 * POSTROUTING; rule_pkt_route_dec()): @c ttl is one less than the TTL
 * (hop limit) the walk had before, as Linux's later hooks see it.
 */
#define RULE_PKT_F_ROUTED 0x20
/**
 * Router mode, a forwarded packet whose TTL (hop limit) was 1 or less at
 * the router's decrement (rule_pkt_route_dec()): the router drops it with
 * a time exceeded error before FORWARD, so no later hook sees it.
 */
#define RULE_PKT_F_EXPIRED 0x40
/**
 * @c l3 is the header view of the hooks after PREROUTING (the router's
 * TTL decrement, the destination NAT written in), not the bytes as
 * received: the engine's providers tell the two apart.
 */
#define RULE_PKT_F_L3VIEW 0x80

/** struct rule_pkt::frag_flags (IPv6 fragment header). */
#define RULE_FRAG_F_RES 0x01   /**< reserved bits set */
#define RULE_FRAG_F_FIRST 0x02 /**< offset 0 */
#define RULE_FRAG_F_MORE 0x04  /**< more fragments follow */

/**
 * A packet as the evaluators see it. Owned by the caller; the evaluators
 * update the fields rules change (see the top of this file). Fill it with
 * rule_pkt_init(), then set what is known.
 */
struct rule_pkt {
	struct fc_key key;    /**< as the table sees it (after DNAT for filter), local bits set */
	uint16_t in_port;     /**< input port; RULE_IF_NONE for locally generated packets */
	uint16_t out_port;    /**< output port (the route's); RULE_IF_NONE: to this host, or
				   not known yet (PREROUTING) */
	uint8_t ctstate;      /**< RULE_CT_*: one state (0: untracked) | SNAT | DNAT; or
				   RULE_CT_IGNORE: every ctstate match is taken as met */
	uint8_t ctstatus;     /**< RULE_CTS_* */
	uint8_t ctdir;        /**< RULE_CTDIR_ORIGINAL or _REPLY */
	uint8_t flags;        /**< RULE_PKT_F_* */
	uint8_t tcp_flags;    /**< RULE_TCP_* of a TCP packet */
	uint8_t icmp_type;    /**< ICMP or ICMPv6 type */
	uint8_t icmp_code;
	uint8_t ttl;          /**< IPv4 TTL or IPv6 hop limit */
	uint8_t tos;          /**< IPv4 TOS or IPv6 traffic class (DSCP in its top 6 bits) */
	uint8_t pkttype;      /**< RULE_PKTTYPE_* of the link-layer destination */
	uint16_t l3_len;      /**< IP length: IPv4 total length, IPv6 40 + payload length */
	uint16_t tcp_mss;     /**< with RULE_PKT_F_MSS */
	uint32_t mark;        /**< packet mark (0 for a packet off the wire) */
	uint32_t ctmark;      /**< its connection's mark */
	uint8_t mac_src[6];   /**< with RULE_PKT_F_MAC */
	uint8_t ip6_hdrs;     /**< RULE_IP6H_* headers present (IPv6) */
	uint8_t rt_type;      /**< routing header (RULE_IP6H_ROUTE): type, */
	uint8_t rt_segsleft;  /**< segments left */
	uint8_t mh_type;      /**< mobility header type (protocol 135) */
	uint8_t frag_flags;   /**< RULE_FRAG_F_* (RULE_PKT_F_FRAGHDR) */
	uint8_t frag_hdrlen;  /**< the fragment header's second byte */
	uint16_t rt_len;      /**< routing header length in bytes */
	uint16_t hbh_len;     /**< hop-by-hop options header length in bytes (RULE_IP6H_HOP) */
	uint16_t dst_len;     /**< destination options header length in bytes (RULE_IP6H_DST) */
	uint32_t frag_id;     /**< fragment identification (RULE_PKT_F_FRAGHDR) */
	uint32_t spi;         /**< ESP/AH SPI, IPComp CPI (RULE_PKT_F_SPI) */
	uint32_t ct_expire;   /**< seconds the connection has left */
	struct fc_key ct_orig; /**< the connection's original tuple; family 0: no connection */
	struct fc_key ct_repl; /**< its reply tuple */
	uint64_t ct_packets[2]; /**< the connection's packets per direction (RULE_CTDIR_*) */
	uint64_t ct_bytes[2];
	char ct_helper[16];   /**< the connection's helper ("" none) */
	uint8_t tcp_opts[32]; /**< TCP options present, bit n of byte n / 8 */
	uint8_t sctp_chunks[32]; /**< SCTP chunk types present, same bitmap */
	uint32_t rand;        /**< a random number (statistic --mode random) */
	uint64_t time_s;      /**< wall clock, UTC seconds (time match) */
	/**
	 * The packet's bytes from its IP header (rule_pkt_parse()), @c l3_cap of
	 * them (the IP datagram, or what of it is contiguous), for the string
	 * match; NULL: none (a string match finds nothing).
	 */
	const uint8_t *l3;
	uint32_t l3_cap;
};

/**
 * The router's TTL (hop limit) decrement, between a forwarded packet's
 * PREROUTING and FORWARD hooks, as Linux's ip_forward() and ip6_forward()
 * do it: a TTL of 1 or less (after PREROUTING's rewrites) has expired
 * (RULE_PKT_F_EXPIRED: the router answers time exceeded, FORWARD and
 * POSTROUTING never see it); any other is one less from FORWARD on
 * (RULE_PKT_F_ROUTED). Once per walk: a context already past it is left
 * alone. Bridge mode, and a packet to or from this host, never pass it:
 * the caller (who knows the mode and the route) calls it before the first
 * forwarded stage it walks.
 * @param p  the packet context
 * @return true if the packet expired (walk none of its later hooks).
 * Context: any.
 */
static inline bool
rule_pkt_route_dec(struct rule_pkt *p)
{
	if (p->flags & (RULE_PKT_F_ROUTED | RULE_PKT_F_EXPIRED))
		return (p->flags & RULE_PKT_F_EXPIRED) != 0;
	if (p->ttl <= 1) {
		p->flags |= RULE_PKT_F_EXPIRED;
		return true;
	}
	p->ttl--;
	p->flags |= RULE_PKT_F_ROUTED;
	return false;
}

/**
 * The ports a packet from this host to one of its own addresses (both
 * local bits of @c key) has at @p hook, as Linux's loopback gives them:
 * none in, RULE_IF_LO out at OUTPUT and POSTROUTING; RULE_IF_LO in, none
 * out at PREROUTING and INPUT (back in through lo). Any other packet's
 * ports are the caller's (its input port, its route's output port) and
 * are left alone. The evaluators call it before each hook they walk and
 * put the caller's ports back after the walk.
 * @param p     the packet context
 * @param hook  enum rule_hook
 * Context: any.
 */
static inline void
rule_pkt_lo_ports(struct rule_pkt *p, unsigned int hook)
{
	const uint8_t both = FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL;
	bool back_in = hook == RULE_HOOK_PREROUTING || hook == RULE_HOOK_INPUT;

	if ((fc_key_flags(&p->key) & both) != both)
		return;
	p->in_port = back_in ? RULE_IF_LO : RULE_IF_NONE;
	p->out_port = back_in ? RULE_IF_NONE : RULE_IF_LO;
}

/**
 * What a packet context must hold for a set's rules (rule_set_pkt_needs()):
 * a context without one of these is enough for a set that needs none of
 * them. Without RULE_PKT_NEED_FRAME the context's TCP flags, ICMP type and
 * code and IP length come from the parsed packet (struct fc_pkt), which
 * the extension matches that need no more read.
 */
#define RULE_PKT_NEED_FRAME 1u /**< the frame's fields (rule_pkt_parse()) */
#define RULE_PKT_NEED_RAND 2u  /**< rand (statistic --mode random) */
#define RULE_PKT_NEED_TIME 4u  /**< time_s (the time match, ipset timeouts) */
#define RULE_PKT_NEED_ALL (RULE_PKT_NEED_FRAME | RULE_PKT_NEED_RAND | RULE_PKT_NEED_TIME)

/**
 * The RULE_PKT_NEED_* the extension matches of @p r read.
 * @param r  the rule
 * @return RULE_PKT_NEED_* bits (0 for a rule without extension matches).
 * Context: any.
 */
uint32_t rule_pkt_needs(const struct rule *r);

/**
 * The RULE_PKT_NEED_* of every rule of @p s (O(rules)).
 * @param s  the set, or NULL (RULE_PKT_NEED_ALL)
 * @return RULE_PKT_NEED_* bits.
 * Context: any thread holding @p s read-only.
 */
uint32_t rule_set_pkt_needs(const struct rule_set *s);

/**
 * Which addresses and ports of a packet the rules of a set may read
 * (rule_set_key_reads()), so that the classifier can tell which packet
 * contexts must get the same evaluation (rule_cls_key_project()).
 * Conservative: a rule with an extension match not known to leave the
 * key's addresses and ports alone counts as reading all of them.
 */
#define RULE_READS_SRC 1u   /**< the source address (-s) */
#define RULE_READS_SPORT 2u /**< the source port (--sport) */
#define RULE_READS_EXT 4u   /**< an extension match may read any address or port, and
			       the connection's tuples (ct_orig, ct_repl) */
#define RULE_READS_ALL (RULE_READS_SRC | RULE_READS_SPORT | RULE_READS_EXT)

/**
 * The RULE_READS_* of rule @p r: -s reads the source address, --sport the
 * source port, an extension match of a kind that may look at addresses or
 * ports (addrtype, iprange, conntrack, set, recent, connlimit, hashlimit,
 * eui64, rpfilter, and any kind not known to leave them alone) all of
 * them (RULE_READS_ALL).
 * @param r  the rule
 * @return RULE_READS_* bits.
 * Context: any.
 */
uint32_t rule_key_reads(const struct rule *r);

/**
 * The RULE_READS_* of every rule of @p s (O(rules)).
 * @param s  the set, or NULL (RULE_READS_ALL)
 * @return RULE_READS_* bits.
 * Context: any thread holding @p s read-only.
 */
uint32_t rule_set_key_reads(const struct rule_set *s);

/**
 * A context for key @p k: the key, no ports known (RULE_IF_NONE both),
 * @p ctstate, @p kflags as flags, the ICMP type and code of an ICMP key
 * of its family (dport: type << 8 | code, as fc_parse() keys them; not
 * with RULE_KEY_F_NOPORTS), every other field zero. An ICMP match on
 * such a key depends on no per-packet field (RULE_DEP_ICMP is for the
 * other keys).
 * @param p        the context
 * @param k        the key
 * @param ctstate  RULE_CT_* bits
 * @param kflags   RULE_KEY_F_*
 * Context: any.
 */
void rule_pkt_init(struct rule_pkt *p, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags);

/**
 * Fill the per-packet fields of @p p from a frame's headers: TTL, TOS,
 * IP length, MAC source and link-layer packet type (when @p l3_off leaves
 * room for an Ethernet header), IPv4 fragment offset (RULE_PKT_F_NOPORTS),
 * IPv6 extension headers (hop-by-hop, routing, fragment, destination
 * options, AH, ESP, none), TCP flags and options (MSS), ICMP type and
 * code, SCTP chunk types, ESP/AH SPI, mobility header type. Reads only
 * [frame, frame + len); a header cut short leaves its fields zero.
 * @param p       a context from rule_pkt_init(); its key is not changed
 * @param frame   the frame's first byte
 * @param len     bytes at @p frame
 * @param l3_off  offset of the IP header
 * @param l4_off  offset of the transport header, 0 if none (a non-first fragment)
 * @return 0, or -EINVAL if the IP header is not within @p len.
 * Context: any.
 */
int rule_pkt_parse(struct rule_pkt *p, const uint8_t *frame, uint32_t len, unsigned int l3_off,
	unsigned int l4_off);

#include "rule_payload.h"

/* ------------------------------------------------------------------------ */
/* Providers of stateful matches                                             */
/* ------------------------------------------------------------------------ */

/**
 * The run-time state of stateful matches is the caller's. For an extension
 * match of kind statistic, recent, connlimit, limit, hashlimit, set or
 * rpfilter, the evaluators call @c match with the rule and the index of
 * the match in r->xm, after the rule's other fields matched (and the
 * extension matches before it):
 *
 *  - statistic: random: true with probability prob / 2^31 (the default
 *    answer uses p->rand); nth: one of every @c every packets that reach
 *    the match, counting from @c packet (per rule and match; see
 *    rule_x_nth_step());
 *  - recent: the list @c name of source (or --rdest destination) addresses
 *    under @c mask: --set adds the address (and matches), --rcheck and
 *    --update test it (within --seconds, with at least --hitcount hits,
 *    --rttl: same TTL), --update also refreshes it, --remove deletes it;
 *  - connlimit: the number of connections (this one included) from the
 *    source (--connlimit-saddr, default) or to the destination under
 *    /mask: --connlimit-above N matches above N, --connlimit-upto N up to N;
 *  - limit: a token bucket per rule (rate per unit, burst): matches while a
 *    token is left, takes one;
 *  - hashlimit: a token bucket per --hashlimit-mode key (addresses under
 *    srcmask/dstmask, ports): --hashlimit-upto matches while under the
 *    rate, --hashlimit-above while over it;
 *  - set: the ipset (rule_x_set::name) holds the packet's fields named by
 *    dirs/ndims (src/dst address, port);
 *  - rpfilter: the source address would be routed back through in_port.
 *
 * Return 1 (match) or 0 after the option negations, a negative errno to
 * fail the evaluation, or -ENOTSUP to take rule_x_fresh()'s answer. The
 * provider may update its state: it is called once per evaluated match, in
 * netfilter's order (a match is not reached when an earlier one failed).
 */
struct rule_providers {
	void *arg; /**< first argument of the callbacks */
	int (*match)(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p);
	/**
	 * Optional: carry out the "-j SET" of matching rule @p r for @p p, at
	 * once, so that the rest of the walk sees the sets changed (as in
	 * Linux); NULL: the walk only records it. Its result is not used.
	 */
	void (*act)(void *arg, const struct rule *r, const struct rule_pkt *p);
};

/**
 * Is extension kind @p kind answered by a provider?
 * @param kind  enum rule_x_kind
 * @return true for statistic, recent, connlimit, limit, hashlimit, set, rpfilter.
 * Context: any.
 */
bool rule_x_stateful(unsigned int kind);

/**
 * The answer of stateful match @p xi of @p r without a provider: the state
 * right after loading. statistic random: p->rand & 0x7fffffff < prob; nth:
 * the first packet to reach it, matches if @c packet is 0; recent: --set matches, --rcheck,
 * --update and --remove do not (empty list); connlimit: one connection;
 * limit and hashlimit-upto: match (full bucket); hashlimit-above: no match;
 * set: a lookup in @p sets; rpfilter: passes.
 * Negations applied.
 * @param sets  the ipsets set matches look in (rule_set_ipsets_get()), or NULL
 * @param ifn   the port names hash:net,iface members match (rule_set_ifnames()), or NULL
 * @param r     the rule
 * @param xi    index in r->xm
 * @param p     the packet
 * @return 1, 0.
 * Context: any.
 */
int rule_x_fresh(const struct rule_ipsets *sets, const struct rule_ifnames *ifn,
	const struct rule *r, unsigned int xi, const struct rule_pkt *p);

/**
 * One packet reaches "-m statistic --mode nth" match @p x, as netfilter
 * counts them: of every @c every packets that reach the match, the one
 * numbered @c packet (from 0) matches; the first packet after loading is
 * number 0.
 * @param x      the match (kind RULE_XM_STATISTIC, mode RULE_STAT_NTH)
 * @param count  its state: packets that reached it so far, modulo @c every
 *   (0 after loading); advanced by one
 * @return 1 (match) or 0, negation applied.
 * Context: any (the caller owns @p count).
 */
int rule_x_nth_step(const struct rule_x *x, uint32_t *count);

#include "rule_state.h"

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

/** Filter verdicts. */
enum rule_verdict {
	RULE_VERDICT_ACCEPT,
	RULE_VERDICT_DROP,
};

/**
 * Per-packet fields a decision depended on (struct rule_eval::deps), X(NAME,
 * "name"): a cached decision holds for the flow's later packets as long as
 * these are the same. The key's fields, the ctstate (cached per entry) and
 * the input and output ports (the key's, the route's) are not listed.
 */
#define RULE_DEPS(X) \
	X(TCPFLAGS, "tcp-flags") X(ICMP, "icmp") X(LENGTH, "length") X(TTL, "ttl") \
	X(TOS, "tos") X(MARK, "mark") X(CTMARK, "ctmark") X(CT, "conntrack") \
	X(CTSNAT, "ct-nat") X(CONNBYTES, "connbytes") X(FRAG, "fragment") X(MSS, "tcpmss") \
	X(MAC, "mac") X(IP6HDR, "ip6-headers") X(SPI, "spi") X(PKTTYPE, "pkttype") \
	X(TCPOPT, "tcp-option") X(SCTP, "sctp-chunks") X(METER, "meter") X(SET, "set") \
	X(TIME, "time") X(ROUTE, "route") X(PAYLOAD, "payload")
enum {
#define RULE_DEP_BIT(name, text) RULE_DEP_BIT_##name,
	RULE_DEPS(RULE_DEP_BIT)
#undef RULE_DEP_BIT
	RULE_DEP__COUNT
};
#define RULE_DEP_TCPFLAGS (1u << RULE_DEP_BIT_TCPFLAGS)
#define RULE_DEP_ICMP (1u << RULE_DEP_BIT_ICMP)
#define RULE_DEP_LENGTH (1u << RULE_DEP_BIT_LENGTH)
#define RULE_DEP_TTL (1u << RULE_DEP_BIT_TTL)
#define RULE_DEP_TOS (1u << RULE_DEP_BIT_TOS)
#define RULE_DEP_MARK (1u << RULE_DEP_BIT_MARK)
#define RULE_DEP_CTMARK (1u << RULE_DEP_BIT_CTMARK)
#define RULE_DEP_CT (1u << RULE_DEP_BIT_CT)
#define RULE_DEP_CTSNAT (1u << RULE_DEP_BIT_CTSNAT)
#define RULE_DEP_CONNBYTES (1u << RULE_DEP_BIT_CONNBYTES)
#define RULE_DEP_FRAG (1u << RULE_DEP_BIT_FRAG)
#define RULE_DEP_MSS (1u << RULE_DEP_BIT_MSS)
#define RULE_DEP_MAC (1u << RULE_DEP_BIT_MAC)
#define RULE_DEP_IP6HDR (1u << RULE_DEP_BIT_IP6HDR)
#define RULE_DEP_SPI (1u << RULE_DEP_BIT_SPI)
#define RULE_DEP_PKTTYPE (1u << RULE_DEP_BIT_PKTTYPE)
#define RULE_DEP_TCPOPT (1u << RULE_DEP_BIT_TCPOPT)
#define RULE_DEP_SCTP (1u << RULE_DEP_BIT_SCTP)
#define RULE_DEP_METER (1u << RULE_DEP_BIT_METER)
#define RULE_DEP_SET (1u << RULE_DEP_BIT_SET)
#define RULE_DEP_TIME (1u << RULE_DEP_BIT_TIME)
#define RULE_DEP_ROUTE (1u << RULE_DEP_BIT_ROUTE)
#define RULE_DEP_PAYLOAD (1u << RULE_DEP_BIT_PAYLOAD)

/** Name of dependency bit number @p bit ("tcp-flags", ...); "?" out of range. Context: any. */
const char *rule_dep_name(unsigned int bit);

/** Non-terminal actions one evaluation records at most (the rest are counted as lost). */
#define RULE_ACTS_MAX 16

/**
 * What a walk passed that iptables counts but that neither decided nor
 * acted: a jump or goto it took (the rule), a RETURN it took, the accept
 * (a rule, or the end of a base chain: its RULE_ID_CHAIN_POLICY()) of a
 * table that is not the stage's own, and a decision a later table's
 * replaced (filter OUTPUT's accept, then INPUT's). Both evaluators note
 * the same, in walk order: they are counted as the rules that act are.
 */
struct rule_note {
	uint32_t id;   /**< rule id or RULE_ID_CHAIN_POLICY() */
	uint8_t table; /**< enum rule_table walked (nat: a connection's first packet only) */
};

/** Notes one evaluation records at most (the rest are counted as lost). */
#define RULE_NOTES_MAX 32

/**
 * A non-terminal action that ran: LOG, NFLOG, MARK, CONNMARK, TCPMSS, CT,
 * NOTRACK, CHECKSUM, DSCP, TOS, CLASSIFY, TTL, HL, SET or COUNT. MARK,
 * CONNMARK, NOTRACK (ctstate), DSCP, TOS, TTL and HL have already been
 * applied to the packet context; the rest are the caller's to carry out.
 */
struct rule_act {
	uint32_t rule_id;
	uint8_t action;           /**< enum rule_action */
	uint8_t table;            /**< enum rule_table */
	uint8_t hook;             /**< enum rule_hook */
	uint32_t mark;            /**< the packet's mark when it ran (after it, for MARK):
				       what a LOG line shows as MARK= */
	const struct rule_x *tgt; /**< its options (kind RULE_XT_*); valid as long as
				       the set or classifier that evaluated */
};

/**
 * What an evaluation decided. The verdict is the first DROP (drop, reject,
 * synproxy, a DROP policy) of any table walked, else the accept of the
 * stage's own table (filter for RULE_STAGE_FILTER, raw, nat): its rule or
 * RULE_ID_POLICY, or RULE_ID_NONE when no chain of that table was entered.
 */
struct rule_eval {
	uint8_t verdict;          /**< enum rule_verdict */
	uint8_t action;           /**< the deciding rule's action (accept, drop, reject, synproxy);
				       the policy's accept or drop */
	uint8_t reject;           /**< enum rule_reject of a REJECT (the family's default filled in) */
	uint8_t table;            /**< table that decided */
	uint8_t hook;             /**< hook that decided */
	uint8_t nat_action;       /**< RULE_ACT_DNAT, _SNAT, _MASQUERADE, _REDIRECT, _NETMAP, or
				       _ACCEPT: no translation */
	uint8_t nat_hook;         /**< hook of the nat decision */
	uint8_t n_acts;           /**< entries in @c acts */
	uint32_t rule_id;         /**< the deciding rule, RULE_ID_POLICY or RULE_ID_NONE */
	uint32_t nat_rule_id;     /**< the nat rule, RULE_ID_POLICY, RULE_ID_NONE (no nat chain) */
	uint32_t deps;            /**< RULE_DEP_* */
	uint32_t acts_lost;       /**< actions that did not fit in @c acts */
	const struct rule_x *tgt; /**< the deciding rule's target options (REJECT, SYNPROXY), or NULL */
	struct rule_nat nat;      /**< the nat target */
	char channel[RULE_NAME_MAX]; /**< accept: channel name, "" = default */
	uint8_t n_notes;          /**< entries in @c notes */
	uint32_t notes_lost;      /**< notes that did not fit in @c notes */
	struct rule_note notes[RULE_NOTES_MAX]; /**< what the walk passed (counters) */
	struct rule_act acts[RULE_ACTS_MAX];
};

/** What the filter table decided for a packet (rule_ref_filter()). */
struct rule_result {
	uint8_t verdict;  /**< enum rule_verdict (a reject is a drop) */
	uint8_t hook;     /**< enum rule_hook whose chain decided */
	uint8_t reject;   /**< enum rule_reject when a REJECT decided */
	uint32_t rule_id; /**< the deciding rule, or RULE_ID_POLICY */
	char channel[RULE_NAME_MAX]; /**< accept: channel name, "" = default */
};

/** What a nat hook decided for a packet (rule_ref_nat()). */
struct rule_nat_result {
	uint8_t action;   /**< RULE_ACT_DNAT, _SNAT, _MASQUERADE, _REDIRECT, _NETMAP, or
			       _ACCEPT (no translation) */
	uint8_t hook;     /**< enum rule_hook evaluated */
	uint32_t rule_id; /**< the deciding rule; RULE_ID_POLICY at the end of the
			       chain; RULE_ID_NONE if the hook enters no chain */
	struct rule_nat nat; /**< the target */
};

/* ------------------------------------------------------------------------ */
/* Stages                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Where a packet is on its way, and so which (table, hook) pairs run, in
 * netfilter's order. By the key's local bits (src_local: locally
 * generated; dst_local: to this host):
 *
 *  - RAW: raw PREROUTING (raw OUTPUT if src_local), before conntrack;
 *  - DST: mangle PREROUTING, nat PREROUTING (src_local: mangle OUTPUT,
 *    nat OUTPUT), before routing: the destination NAT;
 *  - FILTER: to this host: mangle INPUT, filter INPUT, security INPUT;
 *    forwarded: mangle FORWARD, filter FORWARD, security FORWARD;
 *    src_local: filter OUTPUT, security OUTPUT, and for a local address
 *    (both bits) then mangle POSTROUTING and, back in through lo, raw
 *    PREROUTING, mangle PREROUTING (with the connection's ctstate:
 *    conntrack saw it at OUTPUT), mangle INPUT, filter INPUT, security
 *    INPUT;
 *  - SRC: to this host from elsewhere: nat INPUT; else mangle POSTROUTING
 *    (not for a local address: see FILTER), nat POSTROUTING: the source
 *    NAT.
 *
 * Walking stops at the first drop. Nat tables see the first packet of a
 * connection only: they are left out for a ctstate ESTABLISHED, INVALID
 * or UNTRACKED (a caller without a tracker passes 0: every packet is a
 * first one; RELATED is the first packet of an expected connection).
 */
enum rule_stage {
	RULE_STAGE_RAW,
	RULE_STAGE_DST,
	RULE_STAGE_FILTER,
	RULE_STAGE_SRC,
	RULE_STAGE__COUNT
};

/** One step of a stage: a table at a hook. */
struct rule_step {
	uint8_t table; /**< enum rule_table */
	uint8_t hook;  /**< enum rule_hook */
};

/** Most steps a stage takes. */
#define RULE_STEPS_MAX 8

/**
 * The steps of @p stage for a packet with local bits @p lbits.
 * @param stage    enum rule_stage
 * @param lbits    the key's FC_KEY_F_* local bits
 * @param ctstate  the packet's RULE_CT_* (nat steps: see enum rule_stage)
 * @param steps    receives the steps (RULE_STEPS_MAX)
 * @return the number of steps, or -EINVAL.
 * Context: any.
 */
int rule_stage_steps(unsigned int stage, unsigned int lbits, unsigned int ctstate,
	struct rule_step steps[]);

/** The table whose accept a stage reports (filter, raw, nat). Context: any. */
unsigned int rule_stage_table(unsigned int stage);

/* ------------------------------------------------------------------------ */
/* Reference evaluator (the oracle)                                          */
/* ------------------------------------------------------------------------ */

/**
 * Does rule @p r match packet @p p? Every field: the 7-tuple, ctstate,
 * interfaces (by the set's port names), then the extension matches in
 * order (stateful ones through @p pv). Actions are not looked at.
 * @param s     the set (port names, ipsets)
 * @param r     the rule
 * @param p     the packet
 * @param pv    providers, or NULL
 * @param deps  OR'ed with the RULE_DEP_* of the fields looked at (may be NULL)
 * @return 1, 0, or a negative errno (a provider's).
 * Context: any thread holding @p s read-only.
 */
int rule_match_pkt(const struct rule_set *s, const struct rule *r, const struct rule_pkt *p,
	const struct rule_providers *pv, uint32_t *deps);

/**
 * The extension matches of @p r only (what the compiled classifier checks
 * after its trie found the rule), and ctstate SNAT/DNAT.
 * @param sets  the ipsets of the rule's set (rule_set_ipsets_get()), or NULL
 * @param ifn   the set's port names (rule_set_ifnames()), or NULL
 * @param r     the rule
 * @param p     the packet
 * @param pv    providers, or NULL
 * @param deps  OR'ed with the RULE_DEP_* looked at (may be NULL)
 * @return as rule_match_pkt().
 * Context: any.
 */
int rule_match_ext(const struct rule_ipsets *sets, const struct rule_ifnames *ifn,
	const struct rule *r, const struct rule_pkt *p, const struct rule_providers *pv,
	uint32_t *deps);

/**
 * Does the rule have matches beyond the 7-tuple, ctstate and interfaces
 * (extension matches, ctstate SNAT/DNAT): what rule_match_ext() checks?
 * @param r  the rule
 * @return true if so.
 * Context: any.
 */
bool rule_has_ext(const struct rule *r);

/**
 * Clear a result: accept, nothing decided (RULE_ID_NONE), no translation, no
 * actions, no notes (notes[] and acts[], valid up to n_notes and n_acts, are
 * not cleared).
 * @param res  the result
 * Context: any.
 */
void rule_eval_init(struct rule_eval *res);

/**
 * Note that the walk passed counter @p id (struct rule_note) in @p table;
 * past RULE_NOTES_MAX, notes_lost counts it.
 * @param res    the result
 * @param id     a rule id or RULE_ID_CHAIN_POLICY()
 * @param table  enum rule_table walked
 * Context: any.
 */
void rule_eval_note(struct rule_eval *res, uint32_t id, unsigned int table);

/** A terminal rule as rule_eval_merge() takes it (the classifier keeps these, not rules). */
struct rule_term {
	uint32_t rule_id;
	uint8_t action;           /**< enum rule_action */
	char channel[RULE_NAME_MAX];
	struct rule_nat nat;
	const struct rule_x *tgt; /**< target options, or NULL */
};

/**
 * The terminal-rule view of @p r.
 * @param r  the rule
 * @param t  receives it (t->tgt points into @p r)
 * Context: any.
 */
void rule_term_of(const struct rule *r, struct rule_term *t);

/**
 * Merge what one table decided at one hook into a stage's result: a NAT
 * decision (nat table), a drop (any other table: the walk stops), or the
 * accept of the stage's own table @p primary (rule_stage_table()).
 * @param res      the result
 * @param primary  the stage's table
 * @param table    the table walked
 * @param hook     the hook
 * @param family   the packet's family (the default REJECT type)
 * @param entered  a base chain was entered (else nothing is merged)
 * @param t        the deciding rule, or NULL for the end of the base chain
 * @param policy   the base chain's enum rule_policy for the packet's family
 * @return 1 if the decision is a drop (stop the stage), 0 otherwise.
 * Context: any.
 */
int rule_eval_merge(struct rule_eval *res, unsigned int primary, unsigned int table,
	unsigned int hook, unsigned int family, bool entered, const struct rule_term *t,
	unsigned int policy);

/**
 * Run the action of matching rule @p r at (@p table, @p hook): a
 * non-terminal action is applied to @p p and recorded; a terminal one is
 * written to @p res. The compiled classifier shares it.
 * @param r      the rule (its action is not a jump, goto or return)
 * @param table  enum rule_table
 * @param hook   enum rule_hook
 * @param p      the packet, updated
 * @param res    the result, updated
 * @return 1 if the walk of the table ends (terminal), 0 to go on.
 * Context: any.
 */
int rule_apply(const struct rule *r, unsigned int table, unsigned int hook, struct rule_pkt *p,
	struct rule_eval *res);

/**
 * Walk one table at one hook, first match wins, with netfilter's
 * semantics: JUMP pushes, RETURN pops, GOTO replaces the current chain,
 * the end of a user chain returns, RETURN or the end in the base chain
 * applies its policy (nat: accept). Non-terminal actions run on the way.
 * The decision is merged into @p res as a stage would (rule_ref_eval()).
 * @param s      the set
 * @param table  enum rule_table
 * @param hook   one of the table's hooks
 * @param p      the packet, updated
 * @param pv     providers, or NULL
 * @param res    the result, updated
 * @return 1 if the table decided a drop, 0 otherwise; -EINVAL (bad
 *   arguments, a set that did not come through this API), -ELOOP (nesting
 *   deeper than RULE_DEPTH_MAX), or a provider's error.
 * Context: any thread holding @p s read-only.
 */
int rule_ref_eval_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	struct rule_pkt *p, const struct rule_providers *pv, struct rule_eval *res);

/**
 * Evaluate a stage (see enum rule_stage) for @p p.
 * @param s      the set
 * @param stage  enum rule_stage
 * @param p      the packet (key with local bits), updated
 * @param pv     providers, or NULL
 * @param res    receives the result (cleared first)
 * @return 0; -EINVAL, -ELOOP, or a provider's error.
 * Context: any thread holding @p s read-only.
 */
int rule_ref_eval(const struct rule_set *s, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res);

/**
 * Walk one hook of one table for a key (a context from rule_pkt_init(),
 * no providers): the deciding terminal rule or the policy.
 *
 * @param table    table
 * @param hook     one of the table's hooks
 * @param k        key
 * @param ctstate  as rule_match_key()
 * @param kflags   as rule_match_key()
 * @param rule     receives the deciding rule, or NULL for a policy / no chain
 * @param chain    receives the base chain entered (NULL if none)
 * @return 0; -EINVAL, -ELOOP.
 * Context: any thread holding @p s read-only.
 */
int rule_ref_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	const struct fc_key *k, unsigned int ctstate, unsigned int kflags, const struct rule **rule,
	const struct rule_chain **chain);

/**
 * Filter-table verdict for a key (a context from rule_pkt_init(), no
 * providers). The hook follows from the local bits: dst_local only ->
 * INPUT, src_local only -> OUTPUT, neither -> FORWARD, both -> OUTPUT,
 * then INPUT if OUTPUT accepted (the result is INPUT's; its channel, or
 * OUTPUT's if INPUT named none). Only the filter table: rule_ref_eval()
 * walks the others.
 *
 * @param res  receives the verdict, deciding rule or RULE_ID_POLICY, hook, channel
 * @return 0, -EINVAL, -ELOOP.
 * Context: any thread holding @p s read-only.
 */
int rule_ref_filter(const struct rule_set *s, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res);

/** NAT stages of rule_ref_nat(). */
enum rule_nat_stage {
	RULE_NAT_DST, /**< before filtering: PREROUTING, or OUTPUT for src_local keys */
	RULE_NAT_SRC, /**< after filtering: POSTROUTING, or INPUT for keys that are
			   dst_local and not src_local */
};

/**
 * NAT-table decision of one stage for a key (a context from
 * rule_pkt_init(), no providers).
 *
 * @param stage  RULE_NAT_DST or RULE_NAT_SRC
 * @param res    receives the action (ACCEPT = no translation), rule and target
 * @return 0, -EINVAL, -ELOOP.
 * Context: any thread holding @p s read-only.
 */
int rule_ref_nat(const struct rule_set *s, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_EVAL_H */
