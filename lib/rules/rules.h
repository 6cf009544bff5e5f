/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — the public face of gufc's rule sets.
 *
 * This header is the manual for:
 *
 *  - the rule model: a rule is a 7-tuple with wildcards (prefixes, port
 *    ranges and lists, local bits, protocol, each optionally negated), a
 *    conntrack state set, input and output interfaces, up to RULE_XM_MAX
 *    extension matches (struct rule_x: addrtype, TCP flags, ICMP types,
 *    marks, sets, meters, ...), an action with its target options, a
 *    comment and initial counters, with a stable id;
 *  - rule sets: five tables (filter, nat, mangle, raw, security), each an
 *    ordered list of chains, with netfilter's hooks, per-family policies,
 *    JUMP/GOTO/RETURN, and the editing operations the shell and the config
 *    loader share; the port names and ipsets a set is evaluated with;
 *  - what the libraries above read from a set: the whole-set check and the
 *    change log a commit is computed from.
 *
 * The evaluators (the packet context, the providers of stateful matches,
 * the results, the reference evaluator) are rule_eval.h's, included at the
 * end of this header. The languages that write rule sets as text (native,
 * iptables-save import and export, ipset files) are rule_lang.h's.
 *
 * Where it sits: above lib/flowcache (keys), below everything that decides
 * packets: lib/classifier compiles a set, lib/engine commits and evaluates
 * it, the modules in lib/modules read its NAT targets. It knows none of
 * them. Everything here is pure C (no EAL), so it runs under sanitizers and
 * fuzzers.
 *
 * Ownership: a struct rule_set is owned by whoever created it. It is not
 * thread-safe; it is built and edited on the main lcore, then handed (as a
 * pointer, treated as read-only from then on) to the rules lcore, which
 * frees it when a newer set replaces it. Copy-on-write commits use
 * rule_set_clone(). Pointers returned into a set (chains, rules) stay
 * valid until the next edit of that set.
 */
#ifndef GUFC_RULES_H
#define GUFC_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flowcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

/** Longest chain or channel name, including the NUL. */
#define RULE_NAME_MAX 32
/** Longest comment, including the NUL. */
#define RULE_COMMENT_MAX 256
/** Most ranges in one port list ("22,80,8000-8080" is 3). */
#define RULE_PORTS_MAX 16
/** Deepest chain nesting (jumps in a row) a rule set may have. */
#define RULE_DEPTH_MAX 32
/** Longest interface pattern in a rule ("eth+"), including the NUL (Linux's IFNAMSIZ). */
#define RULE_IFNAME_MAX 16
/** Longest port name of a set (rule_set_ports()), including the NUL. */
#define RULE_PORTNAME_MAX 64
/** Most extension matches in one rule. */
#define RULE_XM_MAX 6
/** Longest name of an ipset, recent list, hashlimit table or helper, including the NUL. */
#define RULE_XNAME_MAX 32
/** Port number of "no interface" (a locally generated packet has no input port). */
#define RULE_IF_NONE 0xffff
/**
 * Port number of Linux's loopback device, named "lo" (RULE_IF_LO_NAME): a
 * packet from this host to one of its own addresses leaves by it (OUTPUT,
 * POSTROUTING) and comes back in through it (PREROUTING, INPUT), as in
 * Linux. The evaluators give such a packet these ports at those hooks
 * (rule_pkt_lo_ports()); no real port has this number.
 */
#define RULE_IF_LO 0xfffe
/** The name of RULE_IF_LO. */
#define RULE_IF_LO_NAME "lo"

/** No rule (ids start at 1). */
#define RULE_ID_NONE 0
/** Result marker: the verdict came from a chain policy (or chain end). */
#define RULE_ID_POLICY UINT32_MAX
/**
 * Counter ids of the built-in chains' policies, one per (family, table,
 * hook) as iptables and ip6tables keep them apart, above every rule id
 * (rule ids stay below RULE_ID_CHAIN_POLICY_BASE): what a counter callback
 * (rule_counters_fn) is asked for a ":CHAIN POLICY" line, what a cached
 * flow a policy decided keeps as its rule.
 * @p family  FC_AF_INET4 or FC_AF_INET6
 */
#define RULE_ID_CHAIN_POLICY_BASE 0xffff0000u
#define RULE_ID_CHAIN_POLICY(family, table, hook)                                      \
	(RULE_ID_CHAIN_POLICY_BASE | ((family) == FC_AF_INET6 ? 0x80u : 0u) |           \
		(uint32_t)(table) << 8 | (uint32_t)(hook))
/** Is @p id a chain policy's counter id (RULE_ID_CHAIN_POLICY())? */
#define RULE_ID_IS_CHAIN_POLICY(id) \
	((id) != RULE_ID_POLICY && ((id) & 0xffff0000u) == RULE_ID_CHAIN_POLICY_BASE)
/** The table of chain policy id @p id. */
#define RULE_ID_CHAIN_POLICY_TABLE(id) (((id) >> 8) & 0xffu)
/** The hook of chain policy id @p id. */
#define RULE_ID_CHAIN_POLICY_HOOK(id) ((id) & 0x7fu)
/** The family (FC_AF_INET4, FC_AF_INET6) of chain policy id @p id. */
#define RULE_ID_CHAIN_POLICY_FAMILY(id) (((id) & 0x80u) ? FC_AF_INET6 : FC_AF_INET4)
/** Position marker for rule_set_rule_add(): append. */
#define RULE_POS_END UINT32_MAX

/**
 * What a matching rule does. Terminal actions end the walk of a table
 * (accept, drop, reject and the NAT targets; synproxy for TCP SYN and ACK
 * packets); non-terminal ones (log ... set, count) are recorded in the
 * result and the walk goes on; jump, goto and return move between chains.
 * Extension targets keep their options in struct rule::tgt.
 */
enum rule_action {
	RULE_ACT_ACCEPT,     /**< accept, optionally into a named channel */
	RULE_ACT_DROP,       /**< drop (not in nat) */
	RULE_ACT_JUMP,       /**< evaluate chain @c chain, come back after it */
	RULE_ACT_GOTO,       /**< continue in chain @c chain, never come back */
	RULE_ACT_RETURN,     /**< back to the calling chain; in a base chain: policy */
	RULE_ACT_DNAT,       /**< destination NAT to @c nat (nat table) */
	RULE_ACT_SNAT,       /**< source NAT to @c nat (nat table) */
	RULE_ACT_MASQUERADE, /**< source NAT to the outgoing address (nat table) */
	RULE_ACT_REJECT,     /**< drop and answer (tgt RULE_XT_REJECT); INPUT, FORWARD, OUTPUT */
	RULE_ACT_REDIRECT,   /**< destination NAT to this host, ports @c nat (nat table) */
	RULE_ACT_NETMAP,     /**< prefix-to-prefix NAT, @c nat (RULE_NAT_F_NETMAP; nat table) */
	RULE_ACT_LOG,        /**< non-terminal: a log line (tgt RULE_XT_LOG) */
	RULE_ACT_NFLOG,      /**< non-terminal: to a log group (tgt RULE_XT_NFLOG) */
	RULE_ACT_MARK,       /**< non-terminal: packet mark = (mark & ~mask) ^ value */
	RULE_ACT_CONNMARK,   /**< non-terminal: connection mark set, save or restore */
	RULE_ACT_TCPMSS,     /**< non-terminal: MSS option of TCP SYNs */
	RULE_ACT_CT,         /**< non-terminal: conntrack template (notrack, helper; raw) */
	RULE_ACT_NOTRACK,    /**< non-terminal: the packet is not tracked (raw) */
	RULE_ACT_CHECKSUM,   /**< non-terminal: fill in the checksum (mangle) */
	RULE_ACT_DSCP,       /**< non-terminal: set the DSCP field (mangle) */
	RULE_ACT_TOS,        /**< non-terminal: TOS = (tos & ~mask) ^ value (mangle) */
	RULE_ACT_CLASSIFY,   /**< non-terminal: traffic-control class */
	RULE_ACT_TTL,        /**< non-terminal: set, raise or lower the IPv4 TTL (mangle) */
	RULE_ACT_HL,         /**< non-terminal: the same for the IPv6 hop limit (mangle) */
	RULE_ACT_SYNPROXY,   /**< TCP SYN and ACK: answered by the proxy (terminal); else continue */
	RULE_ACT_SET,        /**< non-terminal: add to / delete from ipsets */
	RULE_ACT_COUNT,      /**< non-terminal: no target (iptables' rule without -j): counts only */
	RULE_ACT_ECN,        /**< non-terminal: set TCP ECE/CWR, the IPv4 ECN field (mangle) */
	RULE_ACT__COUNT
};

/** The tables. Chain names are per table. */
enum rule_table {
	RULE_TABLE_FILTER,
	RULE_TABLE_NAT,
	RULE_TABLE_MANGLE,
	RULE_TABLE_RAW,
	RULE_TABLE_SECURITY, /**< applied after filter, as Linux does (no SELinux targets) */
	RULE_TABLE__COUNT
};

/**
 * Netfilter hooks. A table's hooks each enter one base chain: filter and
 * security have INPUT, FORWARD, OUTPUT; nat PREROUTING, INPUT, OUTPUT,
 * POSTROUTING; mangle all five; raw PREROUTING and OUTPUT. Which hooks a
 * packet goes through follows from its local bits (rule_eval.h).
 */
enum rule_hook {
	RULE_HOOK_PREROUTING,
	RULE_HOOK_INPUT,
	RULE_HOOK_FORWARD,
	RULE_HOOK_OUTPUT,
	RULE_HOOK_POSTROUTING,
	RULE_HOOK__COUNT
};

/** Hook mask bit of hook @p h. */
#define RULE_HOOK_F(h) (1u << (h))
/** All hooks. */
#define RULE_HOOKS_ALL ((1u << RULE_HOOK__COUNT) - 1)
/** Hooks of the filter (and security) table. */
#define RULE_HOOKS_FILTER \
	(RULE_HOOK_F(RULE_HOOK_INPUT) | RULE_HOOK_F(RULE_HOOK_FORWARD) | \
		RULE_HOOK_F(RULE_HOOK_OUTPUT))
/** Hooks of the nat table. */
#define RULE_HOOKS_NAT \
	(RULE_HOOK_F(RULE_HOOK_PREROUTING) | RULE_HOOK_F(RULE_HOOK_INPUT) | \
		RULE_HOOK_F(RULE_HOOK_OUTPUT) | RULE_HOOK_F(RULE_HOOK_POSTROUTING))
/** Hooks of the raw table. */
#define RULE_HOOKS_RAW (RULE_HOOK_F(RULE_HOOK_PREROUTING) | RULE_HOOK_F(RULE_HOOK_OUTPUT))

/** Chain policies (base chains of every table but nat, whose chains always accept). */
enum rule_policy {
	RULE_POLICY_ACCEPT,
	RULE_POLICY_DROP,
};

/** Local-bit match. */
enum rule_local {
	RULE_LOCAL_ANY,
	RULE_LOCAL_YES,
	RULE_LOCAL_NO,
};

/**
 * Conntrack states, as a set (struct rule::ctstate) or a packet's state: a
 * packet is in exactly one of NEW, ESTABLISHED, RELATED, INVALID and
 * UNTRACKED (0 also means untracked), and may carry SNAT and DNAT (its
 * connection is translated), as netfilter's --ctstate has it.
 */
#define RULE_CT_NEW 0x01
#define RULE_CT_ESTABLISHED 0x02
#define RULE_CT_RELATED 0x04
#define RULE_CT_INVALID 0x08
#define RULE_CT_UNTRACKED 0x10
#define RULE_CT_SNAT 0x20
#define RULE_CT_DNAT 0x40
/** The exclusive states. */
#define RULE_CT_STATES 0x1f
/** Every bit. */
#define RULE_CT_ALL 0x7f
/**
 * Packet state for rule_match_key() meaning "any state": a rule's ctstate
 * match is then taken as satisfied (the answer is "could match").
 */
#define RULE_CT_IGNORE 0xff

/** struct rule::match and ::neg bits: which fields are matched / negated. */
#define RULE_M_SRC 0x01
#define RULE_M_DST 0x02
#define RULE_M_PROTO 0x04
#define RULE_M_SPORT 0x08
#define RULE_M_DPORT 0x10
#define RULE_M_CTSTATE 0x20
#define RULE_M_IN 0x40  /**< input interface, struct rule::in_if */
#define RULE_M_OUT 0x80 /**< output interface, struct rule::out_if */

/** Key flag for the evaluator: the packet has no L4 ports (a non-first fragment). */
#define RULE_KEY_F_NOPORTS 0x01

/** A port list: @c n inclusive ranges, host order, matched if any contains the port. */
struct rule_ports {
	uint16_t n;
	struct {
		uint16_t lo;
		uint16_t hi;
	} r[RULE_PORTS_MAX];
};

/** struct rule_nat::flags. */
#define RULE_NAT_F_RANDOM 0x01       /**< --random: randomized port selection */
#define RULE_NAT_F_RANDOM_FULLY 0x02 /**< --random-fully: fully randomized ports */
#define RULE_NAT_F_PERSISTENT 0x04   /**< --persistent: same address for a client */
#define RULE_NAT_F_NETMAP 0x08       /**< NETMAP: map the prefix, keep the host bits */

/**
 * A NAT target: an address range and an optional port range. Masquerade and
 * redirect have no address (family 0). Ports apply to TCP, UDP and SCTP
 * flows only. NETMAP: the prefix as a range (addr_min..addr_max), host bits
 * kept by the translation.
 */
struct rule_nat {
	uint8_t family;       /**< FC_AF_INET4/6; 0 for masquerade and redirect */
	uint8_t flags;        /**< RULE_NAT_F_* */
	uint8_t addr_min[16]; /**< network order */
	uint8_t addr_max[16]; /**< network order, >= addr_min; equal for one address */
	uint16_t port_min;    /**< host order; 0 = keep the port */
	uint16_t port_max;    /**< host order, >= port_min */
};

/* Extension matches and target options: struct rule_x, in rule_ext.h. */
#include "rule_ext.h"

/**
 * One rule. A plain value (no pointers): copied freely, compared with
 * rule_equal(). Fields not selected by @c match / @c action are zero.
 * Build one with rule_init() then fill it, or with rule_parse().
 */
struct rule {
	uint32_t id;            /**< stable id, assigned by the set; RULE_ID_NONE outside one */
	uint8_t action;         /**< enum rule_action */
	uint8_t family;         /**< 0 = any, FC_AF_INET4, FC_AF_INET6 */
	uint8_t proto;          /**< with RULE_M_PROTO */
	uint8_t src_local;      /**< enum rule_local */
	uint8_t dst_local;      /**< enum rule_local */
	uint8_t ctstate;        /**< RULE_CT_* set, with RULE_M_CTSTATE */
	uint8_t match;          /**< RULE_M_* fields present */
	uint8_t neg;            /**< RULE_M_* fields negated (subset of @c match) */
	uint8_t n_xm;           /**< extension matches in @c xm */
	/**
	 * Where the port match is in the rule's order of matches, as netfilter
	 * evaluates them (a "-m udp --dport" is a match of its own there): 0,
	 * with the key fields, before every extension match; N, right after
	 * xm[N - 1], which is a match that changes state when a packet reaches
	 * it (rule_x_ordered(): limit, hashlimit, recent, statistic,
	 * connlimit). A packet its port match then refuses still took that
	 * match's token. Only such a match keeps a port match behind it: the
	 * languages write the position (rule_late_order()), rule_check()
	 * refuses any other.
	 */
	uint8_t sport_at;       /**< with RULE_M_SPORT */
	uint8_t dport_at;       /**< with RULE_M_DPORT */
	/**
	 * The same for the ctstate match ("-m conntrack --ctstate", "-m
	 * state"): 0 with the key fields, N right after xm[N - 1], a match
	 * that rule_x_ordered() holds (rule_late_order()).
	 */
	uint8_t ctstate_at;     /**< with RULE_M_CTSTATE */
	struct rule_prefix src; /**< with RULE_M_SRC */
	struct rule_prefix dst; /**< with RULE_M_DST */
	struct rule_ports sport; /**< with RULE_M_SPORT */
	struct rule_ports dport; /**< with RULE_M_DPORT */
	struct rule_nat nat;    /**< DNAT/SNAT/MASQUERADE/REDIRECT/NETMAP target */
	char in_if[RULE_IFNAME_MAX];  /**< with RULE_M_IN: a port name, "NAME+" a prefix */
	char out_if[RULE_IFNAME_MAX]; /**< with RULE_M_OUT */
	char chain[RULE_NAME_MAX];   /**< JUMP/GOTO target chain, same table */
	char channel[RULE_NAME_MAX]; /**< ACCEPT: channel name, "" = default */
	char comment[RULE_COMMENT_MAX];
	uint64_t pkts;          /**< initial packet counter (an import's [pkts:bytes]) */
	uint64_t bytes;         /**< initial byte counter */
	struct rule_x xm[RULE_XM_MAX]; /**< extension matches, ANDed, in order */
	struct rule_x tgt;      /**< the action's options (kind RULE_XT_*), or kind RULE_X_NONE */
};

/**
 * Reset @p r to "accept everything": no match, action ACCEPT, id NONE.
 * Context: any.
 */
void rule_init(struct rule *r);

/**
 * Compare two rules by content (the id is ignored).
 * @return true if they match the same packets the same way and format identically.
 * Context: any.
 */
bool rule_equal(const struct rule *a, const struct rule *b);

/**
 * Check a rule on its own: names, family consistency (addresses and NAT
 * target of one family), ports only with proto tcp/udp/sctp, prefixes
 * without host bits, NAT target present for DNAT/SNAT, fields that the
 * action does not use left empty, extensions of known kinds with the
 * options their kind needs (and of the rule's family), target options of
 * the action's kind.
 *
 * @param r    rule to check
 * @param msg  if not NULL, receives a static description of the problem
 * @return 0, or -EINVAL.
 * Context: any.
 */
int rule_check(const struct rule *r, const char **msg);

/* Match order: port and ctstate matches after a stateful match (rule_order.h). */
#include "rule_order.h"

/**
 * Could rule @p r match a packet with this key? The key fields (family,
 * addresses, protocol, ports, local bits, ctstate) are compared; what a
 * key does not carry (interfaces, extension matches, ctstate SNAT/DNAT) is
 * taken as matching, so the answer is "could match": what the flow cache's
 * "which flows does this change touch" test needs. rule_match_pkt()
 * (rule_eval.h) is the exact match on a whole packet context.
 *
 * Semantics: an address (even negated) or a NAT target restricts the rule
 * to its family; a port match (even negated) never matches a key flagged
 * RULE_KEY_F_NOPORTS; proto and ports compare numbers, whatever the family.
 * A port or ctstate match after an extension match (rule_late_ports(),
 * rule_late_ctstate()) is not compared: the rule's earlier matches act on
 * packets it refuses.
 *
 * rule_match_key_ports() is the port comparison alone.
 *
 * @param r        the rule
 * @param k        the key (family set, network order)
 * @param ctstate  the packet's RULE_CT_* bits, 0 for an untracked packet,
 *   or RULE_CT_IGNORE
 * @param kflags   RULE_KEY_F_* flags of the packet
 * @return true on a (possible) match.
 * Context: any lcore.
 */
bool rule_match_key(const struct rule *r, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags);

/**
 * The port matches @p which (RULE_M_SPORT, RULE_M_DPORT) of @p r against
 * key @p k, as rule_match_key() compares them (a key without ports,
 * RULE_KEY_F_NOPORTS, matches none).
 * @param r       the rule
 * @param which   the port bits to compare (those @p r does not have match)
 * @param k       the key
 * @param kflags  RULE_KEY_F_* flags of the packet
 * @return true on a match.
 * Context: any lcore.
 */
bool rule_match_key_ports(const struct rule *r, unsigned int which, const struct fc_key *k,
	unsigned int kflags);

/**
 * What rule_match_key() with RULE_CT_IGNORE reads of a rule: a compact
 * copy for lists of changes that keys are tested against (the rules
 * engine's pending changes), a fraction of struct rule's size.
 */
struct rule_keym {
	uint8_t family;
	uint8_t proto;
	uint8_t src_local;
	uint8_t dst_local;
	uint8_t match; /**< RULE_M_* of the key fields only */
	uint8_t neg;
	struct rule_prefix src;
	struct rule_prefix dst;
	struct rule_ports sport;
	struct rule_ports dport;
};

/**
 * The key fields of @p r.
 * @param r  the rule
 * @param m  receives them
 * Context: any.
 */
void rule_keym_of(const struct rule *r, struct rule_keym *m);

/**
 * rule_match_key(r, k, RULE_CT_IGNORE, kflags) for the rule @p m was made from.
 * @param m       rule_keym_of() the rule
 * @param k       the key
 * @param kflags  RULE_KEY_F_* flags of the packet
 * @return true on a (possible) match.
 * Context: any lcore.
 */
bool rule_keym_match(const struct rule_keym *m, const struct fc_key *k, unsigned int kflags);

/** Name of an action ("accept", ..., "count"); "?" if out of range. Context: any. */
const char *rule_action_name(unsigned int action);
/** Name of a table ("filter", "nat", "mangle", "raw", "security"); "?" if out of range. Context: any. */
const char *rule_table_name(unsigned int table);
/** Name of a hook ("prerouting", ..., "postrouting"); "?" if out of range. Context: any. */
const char *rule_hook_name(unsigned int hook);
/** Name of an extension kind ("addrtype", ..., "SET"); "?" if out of range. Context: any. */
const char *rule_x_kind_name(unsigned int kind);
/** Name of a reject kind ("icmp-port-unreachable", ...); "?" if out of range. Context: any. */
const char *rule_reject_name(unsigned int with);

/**
 * Is @p action terminal (the walk of the table ends where it matches)?
 * SYNPROXY is terminal for TCP SYN and ACK packets only.
 * @param action  enum rule_action
 * @return true for accept, drop, reject and the NAT actions.
 * Context: any.
 */
bool rule_action_terminal(unsigned int action);

/* ------------------------------------------------------------------------ */
/* Chains and rule sets                                                      */
/* ------------------------------------------------------------------------ */

/** Built-in chain of the filter table: entered by every filter hook no user chain claims. */
#define RULE_CHAIN_MAIN "main"
/** Built-in chain of the nat table: entered at PREROUTING unless a user chain claims it. */
#define RULE_CHAIN_DNAT "dnat"
/** Built-in chain of the nat table: entered at POSTROUTING unless a user chain claims it. */
#define RULE_CHAIN_SNAT "snat"

/**
 * A chain: an ordered list of rules. Base chains are entered from hooks
 * (built-in chains for the hooks no user chain claims; user chains for the
 * hooks in @c hooks) and end in their policy. Other user chains are entered
 * by JUMP/GOTO and end by returning to their caller.
 *
 * Owned by its rule set. Read-only to users: change it through the
 * rule_set_* functions; pointers are valid until the set's next edit.
 */
struct rule_chain {
	char name[RULE_NAME_MAX];
	uint8_t table;     /**< enum rule_table */
	uint8_t builtin;   /**< main, dnat or snat; cannot be deleted or given hooks */
	uint8_t hooks;     /**< RULE_HOOK_F() bits claimed by this user chain */
	uint8_t policy;    /**< enum rule_policy of IPv4 packets (and of both, by default);
			        base chains only; in nat, DROP drops the new
			        connections no rule of the chain takes */
	uint8_t policy6;   /**< enum rule_policy of IPv6 packets */
	uint64_t pkts;     /**< initial policy counters (an import's [pkts:bytes]): of
			        IPv4 packets in a base chain, a user chain's otherwise */
	uint64_t bytes;
	uint64_t pkts6;    /**< a base chain's initial policy counters of IPv6 packets */
	uint64_t bytes6;
	uint32_t n_rules;
	uint32_t cap;      /**< allocated slots in @c rules */
	struct rule *rules; /**< n_rules rules, first match first */
};

struct rule_set;

/**
 * The policy of chain @p c for packets of @p family.
 * @param c       the chain
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @return enum rule_policy.
 * Context: any.
 */
static inline unsigned int
rule_chain_policy(const struct rule_chain *c, unsigned int family)
{
	return family == FC_AF_INET6 ? c->policy6 : c->policy;
}

/**
 * Create an empty rule set: filter's main chain (policy accept), nat's dnat
 * and snat chains, no rules, generation 0, no port names, no ipsets.
 * @return the set, or NULL with errno ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_create(void);

/** Free a set and its chains; NULL is accepted. Context: the set's owner. */
void rule_set_free(struct rule_set *s);

/**
 * Deep copy, keeping ids, the next id and the generation: the copy and the
 * original are independent from then on (copy-on-write commits).
 * @return the copy, or NULL with errno EINVAL (NULL set) or ENOMEM.
 * Context: any thread holding @p s read-only.
 */
struct rule_set *rule_set_clone(const struct rule_set *s);

/** Generation of the set (bumped by whoever commits it). Context: any. */
uint64_t rule_set_generation(const struct rule_set *s);

/** Set the generation. Context: the set's owner. */
void rule_set_generation_set(struct rule_set *s, uint64_t gen);

/** Total number of rules in all tables. Context: any. */
unsigned int rule_set_rule_count(const struct rule_set *s);

/* Field classes: TCP flags, TTL, TOS, length, MSS (rule_fieldclass.h). */
#include "rule_fieldclass.h"

/** Number of chains of @p table (built-in chains first). Context: any. */
unsigned int rule_set_chain_count(const struct rule_set *s, enum rule_table table);

/**
 * The chain at index @p i of @p table (0 .. rule_set_chain_count() - 1).
 * A table's chains are one array: chain i is rule_set_chain_at(s, t, 0) + i.
 * @return the chain, or NULL if out of range.
 * Context: any.
 */
const struct rule_chain *rule_set_chain_at(const struct rule_set *s, enum rule_table table,
	unsigned int i);

/**
 * Look up a chain by name.
 * @return the chain, or NULL if @p table has none of that name.
 * Context: any.
 */
const struct rule_chain *rule_set_chain_find(const struct rule_set *s, enum rule_table table,
	const char *name);

/**
 * The base chain a hook enters: the user chain that claimed it, else the
 * built-in default (main for the filter hooks, dnat for nat PREROUTING,
 * snat for nat POSTROUTING).
 * @return the chain, or NULL if the hook enters none (nat INPUT and
 *   OUTPUT unless claimed; no translation then) or @p hook is not one of
 *   the table's hooks.
 * Context: any.
 */
const struct rule_chain *rule_set_hook_chain(const struct rule_set *s, enum rule_table table,
	enum rule_hook hook);

/**
 * Add to the initial policy counters of @p family in the base chain @p
 * hook of @p table enters (rule_set_hook_chain()): what it counted so far
 * kept across a commit that starts run-time counters over.
 * @param s       the set
 * @param table   the table
 * @param hook    the hook
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param pkts    packets to add
 * @param bytes   bytes to add
 * @return 0; -EINVAL (bad argument); -ENOENT (the hook enters no chain).
 * Context: any (the caller owns @p s).
 */
int rule_set_policy_counters_add(struct rule_set *s, enum rule_table table, enum rule_hook hook,
	unsigned int family, uint64_t pkts, uint64_t bytes);

/**
 * Add a user chain at the end of the table's chain list.
 *
 * @param table   enum rule_table
 * @param name    chain name: printable characters but blanks, quotes and
 *   '#', at most RULE_NAME_MAX - 1, not starting with '-', '!' or '.'
 * @param hooks   RULE_HOOK_F() bits this chain claims (0: a chain only
 *   reached by JUMP/GOTO); must be hooks of @p table
 * @param policy  enum rule_policy of both families; DROP only for a chain
 *   with hooks, not in nat
 * @return 0; -EINVAL (bad name, hooks or policy), -EEXIST (name taken),
 *   -EBUSY (a hook is already claimed by another user chain), -ENOMEM.
 * Context: main lcore.
 */
int rule_set_chain_add(struct rule_set *s, enum rule_table table, const char *name,
	unsigned int hooks, enum rule_policy policy);

/**
 * Delete an empty, unreferenced user chain. Hooks it claimed fall back to
 * their built-in default.
 * @return 0; -EINVAL (NULL argument), -ENOENT (no such chain), -EPERM
 *   (built-in), -ENOTEMPTY (has rules), -EBUSY (a JUMP/GOTO targets it).
 * Context: main lcore.
 */
int rule_set_chain_del(struct rule_set *s, enum rule_table table, const char *name);

/**
 * Set the policy of a base chain (main, or a user chain with hooks) for
 * both families.
 * @return 0; -EINVAL (chain without hooks, bad policy), -ENOENT.
 * Context: main lcore.
 */
int rule_set_chain_policy(struct rule_set *s, enum rule_table table, const char *name,
	enum rule_policy policy);

/**
 * Set the policy of a base chain for one family (an iptables file sets
 * IPv4's, an ip6tables file IPv6's).
 * @param s       the set
 * @param table   enum rule_table
 * @param name    the chain
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param policy  enum rule_policy
 * @return 0; -EINVAL (chain without hooks, bad policy or
 *   family), -ENOENT.
 * Context: main lcore.
 */
int rule_set_chain_policy_af(struct rule_set *s, enum rule_table table, const char *name,
	unsigned int family, enum rule_policy policy);

/**
 * Delete every rule of a chain.
 * @return number of rules deleted, or -EINVAL, -ENOENT.
 * Context: main lcore.
 */
int rule_set_chain_flush(struct rule_set *s, enum rule_table table, const char *name);

/**
 * Add a copy of @p r to a chain, with a new id. The rule is checked
 * (rule_check(), action allowed in the table); a JUMP/GOTO or NAT rule also
 * has the set checked as a whole (target chains exist and are not base
 * chains, no loops, nesting at most RULE_DEPTH_MAX, NAT actions only where
 * their hook allows). On failure nothing changes. Bulk loads are cheaper
 * through rule_set_parse()/rule_set_apply(), which check once at the end.
 *
 * @param chain  chain name in @p table
 * @param pos    0-based position to insert at, or RULE_POS_END to append;
 *   positions past the end append
 * @param r      the rule (its id is ignored)
 * @param id     if not NULL, receives the new id
 * @return 0; -EINVAL (rule_check() fails, action not allowed in this table
 *   or hook), -ENOENT (no such chain, or no JUMP/GOTO target), -ELOOP
 *   (loop or nesting too deep), -ENOSPC (ids exhausted), -ENOMEM.
 * Context: main lcore.
 */
int rule_set_rule_add(struct rule_set *s, enum rule_table table, const char *chain,
	uint32_t pos, const struct rule *r, uint32_t *id);

/**
 * Delete the rule at @p pos of a chain.
 * @return 0, -EINVAL, -ENOENT (no such chain or position).
 * Context: main lcore.
 */
int rule_set_rule_del(struct rule_set *s, enum rule_table table, const char *chain,
	uint32_t pos);

/**
 * Delete the rule with id @p id, wherever it is.
 * @return 0, -EINVAL, -ENOENT.
 * Context: main lcore.
 */
int rule_set_rule_del_id(struct rule_set *s, uint32_t id);

/**
 * Replace the rule with id @p id by a copy of @p r, in place and keeping
 * the id (counters hung on the id carry on). Checked like
 * rule_set_rule_add(); on failure nothing changes.
 * @return 0, -EINVAL, -ENOENT, -ELOOP.
 * Context: main lcore.
 */
int rule_set_rule_replace(struct rule_set *s, uint32_t id, const struct rule *r);

/**
 * Find a rule by id.
 * @param table  if not NULL, receives its table
 * @param chain  if not NULL, receives its chain
 * @param pos    if not NULL, receives its position in the chain
 * @return the rule, or NULL if no rule has that id.
 * Context: any.
 */
const struct rule *rule_set_rule_find(const struct rule_set *s, uint32_t id,
	enum rule_table *table, const struct rule_chain **chain, uint32_t *pos);

/* What a set is evaluated with: port names and ipsets (rule_env.h). */
#include "rule_env.h"

/* ------------------------------------------------------------------------ */
/* Set validation and change log (for the classifier and the engine)         */
/* ------------------------------------------------------------------------ */

/**
 * Hooks of a table.
 * @param table  enum rule_table
 * @return RULE_HOOKS_FILTER or RULE_HOOKS_NAT; 0 if out of range.
 * Context: any.
 */
unsigned int rule_table_hooks(unsigned int table);

/**
 * Is a chain a base chain, entered from hooks (built-in, or a user chain
 * claiming hooks)?
 * @param c  the chain
 * @return true for a base chain.
 * Context: any.
 */
static inline bool
rule_chain_is_base(const struct rule_chain *c)
{
	return c->builtin || c->hooks != 0;
}

/**
 * Check a whole set: every rule (rule_check(), allowed in its table),
 * JUMP/GOTO targets exist and are not base chains, no loops, nesting at
 * most RULE_DEPTH_MAX, NAT actions reachable only from hooks that allow
 * them. Sets built through this API always pass; the classifier checks
 * before it compiles. O(rules + chains log chains).
 * @param s       the set
 * @param bad_id  receives the id of the offending rule (RULE_ID_NONE if none)
 * @param msg     receives a static description
 * @return 0, -EINVAL, -ENOENT, -ELOOP, -ENOMEM.
 * Context: any thread holding @p s read-only.
 */
int rule_set_check(const struct rule_set *s, uint32_t *bad_id, const char **msg);

/* Which rules a set changed since its committed ancestor (rule_setlog.h). */
#include "rule_setlog.h"

#ifdef __cplusplus
}
#endif

/* The evaluators: packet context, providers, results (part of this manual). */
#include "rule_eval.h"

#endif /* GUFC_RULES_H */
