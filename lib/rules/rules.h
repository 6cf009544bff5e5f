/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — the public face of gufc's rule sets.
 *
 * This header is the manual for:
 *
 *  - the rule model: a rule is a 7-tuple with wildcards (prefixes, port
 *    ranges and lists, local bits, protocol, each optionally negated), a
 *    conntrack state set, an action and a comment, with a stable id;
 *  - rule sets: two tables (filter, nat), each an ordered list of chains,
 *    with netfilter's hooks, policies, JUMP/GOTO/RETURN, and the editing
 *    operations the shell and the config loader share;
 *  - the native rule language (one grammar for files and the shell), its
 *    parser with file:line:col errors and its formatter (round-trips);
 *  - the reference linear evaluator: the slow, obviously correct oracle
 *    that the compiled classifier and the flow cache are tested against.
 *
 * Everything here is pure C (no EAL), so it runs under sanitizers and
 * fuzzers. doc/rules.md documents the language for users.
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

/** No rule (ids start at 1). */
#define RULE_ID_NONE 0
/** Result marker: the verdict came from a chain policy (or chain end). */
#define RULE_ID_POLICY UINT32_MAX
/** Position marker for rule_set_rule_add(): append. */
#define RULE_POS_END UINT32_MAX

/** What a matching rule does. */
enum rule_action {
	RULE_ACT_ACCEPT,     /**< accept, optionally into a named channel */
	RULE_ACT_DROP,       /**< drop (filter table only) */
	RULE_ACT_JUMP,       /**< evaluate chain @c chain, come back after it */
	RULE_ACT_GOTO,       /**< continue in chain @c chain, never come back */
	RULE_ACT_RETURN,     /**< back to the calling chain; in a base chain: policy */
	RULE_ACT_DNAT,       /**< destination NAT to @c nat (nat table) */
	RULE_ACT_SNAT,       /**< source NAT to @c nat (nat table) */
	RULE_ACT_MASQUERADE, /**< source NAT to the outgoing address (nat table) */
	RULE_ACT__COUNT
};

/** The two tables. Chain names are per table. */
enum rule_table {
	RULE_TABLE_FILTER,
	RULE_TABLE_NAT,
	RULE_TABLE__COUNT
};

/**
 * Netfilter hooks. A table's hooks each enter one base chain. Filter has
 * INPUT, FORWARD, OUTPUT; nat has PREROUTING, INPUT, OUTPUT, POSTROUTING.
 * Which hook a key goes through is decided by its local bits, see
 * rule_ref_filter() and rule_ref_nat().
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
/** Hooks of the filter table. */
#define RULE_HOOKS_FILTER \
	(RULE_HOOK_F(RULE_HOOK_INPUT) | RULE_HOOK_F(RULE_HOOK_FORWARD) | \
		RULE_HOOK_F(RULE_HOOK_OUTPUT))
/** Hooks of the nat table. */
#define RULE_HOOKS_NAT \
	(RULE_HOOK_F(RULE_HOOK_PREROUTING) | RULE_HOOK_F(RULE_HOOK_INPUT) | \
		RULE_HOOK_F(RULE_HOOK_OUTPUT) | RULE_HOOK_F(RULE_HOOK_POSTROUTING))

/** Chain policies (filter base chains; nat chains always accept). */
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

/** Conntrack states, as a set (struct rule::ctstate) or one bit (a packet). */
#define RULE_CT_NEW 0x01
#define RULE_CT_ESTABLISHED 0x02
#define RULE_CT_RELATED 0x04
#define RULE_CT_INVALID 0x08
#define RULE_CT_ALL 0x0f
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

/** Key flag for the evaluator: the packet has no L4 ports (a non-first fragment). */
#define RULE_KEY_F_NOPORTS 0x01

/** An address prefix; the family is struct rule::family. */
struct rule_prefix {
	uint8_t addr[16]; /**< network order; IPv4 in bytes 0..3; bits past @c len zero */
	uint8_t len;      /**< prefix length, 0..32 or 0..128 */
};

/** A port list: @c n inclusive ranges, host order, matched if any contains the port. */
struct rule_ports {
	uint16_t n;
	struct {
		uint16_t lo;
		uint16_t hi;
	} r[RULE_PORTS_MAX];
};

/**
 * A NAT target: an address range and an optional port range. Masquerade has
 * no address (family 0). Ports apply to TCP, UDP and SCTP flows only.
 */
struct rule_nat {
	uint8_t family;       /**< FC_AF_INET4/6; 0 for masquerade */
	uint8_t addr_min[16]; /**< network order */
	uint8_t addr_max[16]; /**< network order, >= addr_min; equal for one address */
	uint16_t port_min;    /**< host order; 0 = keep the port */
	uint16_t port_max;    /**< host order, >= port_min */
};

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
	struct rule_prefix src; /**< with RULE_M_SRC */
	struct rule_prefix dst; /**< with RULE_M_DST */
	struct rule_ports sport; /**< with RULE_M_SPORT */
	struct rule_ports dport; /**< with RULE_M_DPORT */
	struct rule_nat nat;    /**< DNAT/SNAT/MASQUERADE target */
	char chain[RULE_NAME_MAX];   /**< JUMP/GOTO target chain, same table */
	char channel[RULE_NAME_MAX]; /**< ACCEPT: channel name, "" = default */
	char comment[RULE_COMMENT_MAX];
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
 * action does not use left empty.
 *
 * @param r    rule to check
 * @param msg  if not NULL, receives a static description of the problem
 * @return 0, or -EINVAL.
 * Context: any.
 */
int rule_check(const struct rule *r, const char **msg);

/**
 * Does rule @p r match this packet? The one place matching logic lives:
 * the evaluators and the "which flows does this rule change" test of the
 * flow cache all call it. Actions are not looked at.
 *
 * Semantics: an address (even negated) or a NAT target restricts the rule
 * to its family; a port match (even negated) never matches a key flagged
 * RULE_KEY_F_NOPORTS; proto and ports compare numbers, whatever the family.
 *
 * @param r        the rule
 * @param k        the key (family set, network order)
 * @param ctstate  one RULE_CT_* bit, 0 for an untracked packet (positive
 *   ctstate matches fail, negated ones succeed), or RULE_CT_IGNORE
 * @param kflags   RULE_KEY_F_* flags of the packet
 * @return true on a match.
 * Context: any lcore.
 */
bool rule_match_key(const struct rule *r, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags);

/** Name of an action ("accept", ..., "masquerade"); "?" if out of range. Context: any. */
const char *rule_action_name(unsigned int action);
/** Name of a table ("filter", "nat"); "?" if out of range. Context: any. */
const char *rule_table_name(unsigned int table);
/** Name of a hook ("prerouting", ..., "postrouting"); "?" if out of range. Context: any. */
const char *rule_hook_name(unsigned int hook);

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
	uint8_t policy;    /**< enum rule_policy; filter base chains only */
	uint32_t n_rules;
	uint32_t cap;      /**< allocated slots in @c rules */
	struct rule *rules; /**< n_rules rules, first match first */
};

struct rule_set;

/**
 * Create an empty rule set: filter's main chain (policy accept), nat's dnat
 * and snat chains, no rules, generation 0.
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

/** Total number of rules in both tables. Context: any. */
unsigned int rule_set_rule_count(const struct rule_set *s);

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
 * Add a user chain at the end of the table's chain list.
 *
 * @param table   RULE_TABLE_FILTER or RULE_TABLE_NAT
 * @param name    chain name: letters, digits, '_', '-', '.', at most
 *   RULE_NAME_MAX - 1 characters, not starting with '-' or '.'
 * @param hooks   RULE_HOOK_F() bits this chain claims (0: a chain only
 *   reached by JUMP/GOTO); must be hooks of @p table
 * @param policy  enum rule_policy; DROP only for a filter chain with hooks
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
 * Set the policy of a filter base chain (main, or a user chain with hooks).
 * @return 0; -EINVAL (nat table, chain without hooks, bad policy), -ENOENT.
 * Context: main lcore.
 */
int rule_set_chain_policy(struct rule_set *s, enum rule_table table, const char *name,
	enum rule_policy policy);

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

/* ------------------------------------------------------------------------ */
/* Native language                                                           */
/* ------------------------------------------------------------------------ */

#define RULE_ERR_FILE_MAX 256
#define RULE_ERR_TOKEN_MAX 64
#define RULE_ERR_MSG_MAX 96

/**
 * Where and why parsing failed. @c line and @c col are 1-based (columns
 * count bytes; a tab is one column); 0 when the error is not about a
 * position (file unreadable). @c token is the offending token, or for a
 * missing value the keyword that wanted it, truncated to fit.
 */
struct rule_error {
	char file[RULE_ERR_FILE_MAX];
	unsigned int line;
	unsigned int col;
	char token[RULE_ERR_TOKEN_MAX];
	char msg[RULE_ERR_MSG_MAX];
};

/**
 * Format an error as "FILE:LINE:COL: MSG: 'TOKEN'" (parts that are empty
 * or zero are left out).
 * @return characters written (excluding NUL), or -ENOSPC if truncated.
 * Context: any.
 */
int rule_error_format(const struct rule_error *e, char *buf, size_t len);

/**
 * Parse one rule statement (an action followed by matches), e.g.
 * "accept proto tcp dport 22,80 ctstate new comment \"ssh\"". Statements
 * that are not rules (policy, chain, table) are refused here: see
 * rule_set_apply(). Where a rule goes by default is rule_default_chain().
 *
 * @param line  NUL-terminated text; a trailing "# ..." comment is allowed
 * @param r     receives the rule (id RULE_ID_NONE)
 * @param err   if not NULL, receives the error (file "", line 1)
 * @return 0, or -EINVAL with @p err filled.
 * Context: any.
 */
int rule_parse(const char *line, struct rule *r, struct rule_error *err);

/**
 * Where a rule written outside any chain section goes: filter main for
 * accept/drop/jump/goto/return, nat dnat for dnat, nat snat for snat and
 * masquerade.
 * @param table  receives the table
 * @return the chain name (a static string).
 * Context: any.
 */
const char *rule_default_chain(const struct rule *r, enum rule_table *table);

/**
 * Format a rule in the native language (no newline); rule_parse() reads it
 * back to an equal rule.
 * @return characters written (excluding NUL), or -ENOSPC if truncated,
 *   -EINVAL if the rule is not valid.
 * Context: any.
 */
int rule_format(const struct rule *r, char *buf, size_t len);

/**
 * Parse a whole text in the native language into a new rule set.
 * All or nothing: on any error nothing is returned.
 *
 * @param text  NUL-terminated text, lines separated by "\n" (or "\r\n")
 * @param name  file name for errors (may be NULL)
 * @param err   if not NULL, receives the error
 * @return the set (ids 1, 2, ... in text order), or NULL with errno
 *   EINVAL (@p err filled) or ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_parse(const char *text, const char *name, struct rule_error *err);

/**
 * Load a file in the native language into a new rule set (all or nothing).
 * @return the set, or NULL with errno: EINVAL (syntax, @p err filled),
 *   ENOMEM, or the errno of opening/reading the file (@p err has the file
 *   name and strerror text, line 0).
 * Context: main lcore.
 */
struct rule_set *rule_set_load(const char *path, struct rule_error *err);

/**
 * Apply statements to a copy of @p base (the shell's path: each command
 * line goes through here, then the new set is committed). The text starts
 * outside any chain section. All or nothing: @p base is never modified.
 *
 * @return the new set, or NULL with errno EINVAL (@p err filled), ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_apply(const struct rule_set *base, const char *text, const char *name,
	struct rule_error *err);

/**
 * Format a whole set in the native language; rule_set_parse() of the text
 * gives a set with equal chains and rules (ids are renumbered).
 * @return characters written (excluding NUL), or -ENOSPC if truncated.
 * Context: any thread holding @p s read-only.
 */
int rule_set_format(const struct rule_set *s, char *buf, size_t len);

/**
 * Write rule_set_format()'s text to @p f.
 * @return 0, -ENOMEM, or -EIO on a write error.
 * Context: any thread holding @p s read-only.
 */
int rule_set_dump(const struct rule_set *s, FILE *f);

/* ------------------------------------------------------------------------ */
/* Reference evaluator (the oracle)                                          */
/* ------------------------------------------------------------------------ */

/** Filter verdicts. */
enum rule_verdict {
	RULE_VERDICT_ACCEPT,
	RULE_VERDICT_DROP,
};

/** What the filter table decided for a packet. */
struct rule_result {
	uint8_t verdict;  /**< enum rule_verdict */
	uint8_t hook;     /**< enum rule_hook whose chain decided */
	uint32_t rule_id; /**< the deciding rule, or RULE_ID_POLICY */
	char channel[RULE_NAME_MAX]; /**< accept: channel name, "" = default */
};

/** What a nat hook decided for a packet. */
struct rule_nat_result {
	uint8_t action;   /**< RULE_ACT_DNAT, _SNAT, _MASQUERADE, or _ACCEPT (no translation) */
	uint8_t hook;     /**< enum rule_hook evaluated */
	uint32_t rule_id; /**< the deciding rule; RULE_ID_POLICY at the end of the
			       chain; RULE_ID_NONE if the hook enters no chain */
	struct rule_nat nat; /**< the target, for DNAT/SNAT/MASQUERADE */
};

/**
 * Walk one hook of one table, first match wins, with netfilter's
 * semantics: JUMP pushes, RETURN pops, GOTO replaces the current chain,
 * the end of a user chain returns, RETURN or the end in the base chain
 * applies its policy. The result is the rule with a terminal action
 * (accept, drop, dnat, snat, masquerade) or the policy.
 *
 * @param table    table
 * @param hook     one of the table's hooks
 * @param k        key
 * @param ctstate  as rule_match_key()
 * @param kflags   as rule_match_key()
 * @param rule     receives the deciding rule, or NULL for a policy / no chain
 * @param chain    receives the base chain entered (NULL if none)
 * @return 0; -EINVAL (bad arguments, hook not of the table, or a set that
 *   did not come through this API with a missing chain or misplaced action),
 *   -ELOOP (nesting deeper than RULE_DEPTH_MAX: same).
 * Context: any thread holding @p s read-only.
 */
int rule_ref_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	const struct fc_key *k, unsigned int ctstate, unsigned int kflags, const struct rule **rule,
	const struct rule_chain **chain);

/**
 * Filter verdict for a packet. The hook follows from the local bits:
 * dst_local only -> INPUT, src_local only -> OUTPUT, neither -> FORWARD,
 * both (a local packet to a local address) -> OUTPUT, then INPUT if OUTPUT
 * accepted (the result is INPUT's; its channel, or OUTPUT's if INPUT named
 * none). Call with the key as filtering sees it (after DNAT).
 *
 * @param res  receives the verdict, deciding rule or RULE_ID_POLICY, hook, channel
 * @return 0, -EINVAL, -ELOOP (see rule_ref_hook()).
 * Context: any thread holding @p s read-only.
 */
int rule_ref_filter(const struct rule_set *s, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res);

/** NAT stages. */
enum rule_nat_stage {
	RULE_NAT_DST, /**< before filtering: PREROUTING, or OUTPUT for src_local keys */
	RULE_NAT_SRC, /**< after filtering: POSTROUTING, or INPUT for keys that are
			   dst_local and not src_local */
};

/**
 * NAT decision of one stage for a packet (netfilter consults nat rules for
 * the first packet of a connection only: that is the caller's business).
 *
 * @param stage  RULE_NAT_DST or RULE_NAT_SRC
 * @param res    receives the action (ACCEPT = no translation), rule and target
 * @return 0, -EINVAL, -ELOOP (see rule_ref_hook()).
 * Context: any thread holding @p s read-only.
 */
int rule_ref_nat(const struct rule_set *s, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res);

/* ------------------------------------------------------------------------ */
/* iptables-save import                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Import iptables-save (or ip6tables-save) output into a new rule set on
 * which rule_ref_filter() and rule_ref_nat() give Linux netfilter's
 * verdicts for packets of the file's address family. Tables filter and
 * nat; each netfilter built-in chain (filter INPUT/FORWARD/OUTPUT, nat
 * PREROUTING/INPUT/OUTPUT/POSTROUTING) becomes a user chain of that name
 * claiming its hook, with the file's policy; other chains keep their
 * names. Every rule is restricted to the file's family: @p family, else
 * the one a "# Generated by ip6tables-save" header names, else that of the
 * first address, else IPv4. Packets of the other family meet only the
 * policies. doc/iptables.md lists the subset: anything outside it is an
 * error naming the line and the option, never ignored. All or nothing.
 *
 * @param text    NUL-terminated text, lines separated by "\n" (or "\r\n")
 * @param name    file name for errors (may be NULL)
 * @param family  FC_AF_INET4, FC_AF_INET6, or 0 to detect it
 * @param err     if not NULL, receives the error
 * @return the set, or NULL with errno EINVAL (@p err filled, or a bad
 *   argument) or ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_parse_iptables_af(const char *text, const char *name,
	unsigned int family, struct rule_error *err);

/**
 * rule_set_parse_iptables_af() with the family detected.
 * @param text  NUL-terminated iptables-save text
 * @param name  file name for errors (may be NULL)
 * @param err   if not NULL, receives the error
 * @return the set, or NULL with errno EINVAL (@p err filled) or ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_parse_iptables(const char *text, const char *name,
	struct rule_error *err);

/**
 * Load an iptables-save file (see rule_set_parse_iptables_af()).
 * @param path    file to read
 * @param family  FC_AF_INET4, FC_AF_INET6, or 0 to detect it
 * @param err     if not NULL, receives the error
 * @return the set, or NULL with errno: EINVAL (syntax or unsupported,
 *   @p err filled), ENOMEM, or the errno of opening/reading the file
 *   (@p err has the file name and strerror text, line 0).
 * Context: main lcore.
 */
struct rule_set *rule_set_load_iptables_af(const char *path, unsigned int family,
	struct rule_error *err);

/**
 * rule_set_load_iptables_af() with the family detected.
 * @param path  file to read
 * @param err   if not NULL, receives the error
 * @return the set, or NULL with errno as rule_set_load_iptables_af().
 * Context: main lcore.
 */
struct rule_set *rule_set_load_iptables(const char *path, struct rule_error *err);

/* ------------------------------------------------------------------------ */
/* NAT module                                                                */
/* ------------------------------------------------------------------------ */

/*
 * mod_nat (lib/rules/mod_nat.c; users: doc/nat.md): SNAT, DNAT and
 * MASQUERADE bindings and the per-packet rewrite. Pure C, no EAL.
 *
 * A binding is made on the rules lcore for a connection's first packet when
 * a nat rule applies. It holds the original key, the translated forward key
 * and the reply-direction key (the reverse of the translated key), so that
 * replies hit their own flow entry with one lookup. Binding b owns two
 * rewrite slots: MOD_NAT_SLOT_FWD(b) for packets of the original direction
 * and MOD_NAT_SLOT_REPLY(b) for replies; each flow entry carries its slot in
 * fc_action::nat_id with FC_ACT_F_NAT.
 *
 * Uniqueness: no two bindings have the same reply tuple (proto, addresses,
 * ports; local bits aside), and no binding's reply tuple equals another's
 * original tuple, so the flow table never sees two connections under one
 * key. Source ports (and ICMP echo identifiers) are kept when that tuple is
 * free and in range, otherwise allocated per remote endpoint: one external
 * port serves many connections to different remote endpoints.
 *
 * Ownership and threads: the table is created and freed on the main lcore.
 * Only the rules lcore (single writer) binds, unbinds and releases. The
 * rewrite slots are read by any number of RX lcores through
 * mod_nat_apply(); a slot is written only while no reader can reach it:
 * bind fills both slots before returning, and the caller publishes the slot
 * ids only through fc_table_insert() (release ordering). Freeing is two
 * steps: mod_nat_unbind() after both flow entries are deleted (the tuple is
 * free again at once: no new packet can reach the binding), then
 * mod_nat_release() once an RCU grace period has passed (no reader holds an
 * action snapshot naming the slots); only then can the slots be reused.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_debug.h>

struct mod_nat;

/** Forward-direction rewrite slot of binding @p b. */
#define MOD_NAT_SLOT_FWD(b) ((uint32_t)(b) * 2u)
/** Reply-direction rewrite slot of binding @p b. */
#define MOD_NAT_SLOT_REPLY(b) ((uint32_t)(b) * 2u + 1u)
/** Binding that owns rewrite slot @p slot. */
#define MOD_NAT_SLOT_BINDING(slot) ((uint32_t)(slot) >> 1)
/** Most bindings a table may hold. */
#define MOD_NAT_BINDINGS_MAX (1u << 28)

/**
 * Optional callback: is @p addr (4 or 16 bytes, network order) one of this
 * host's addresses? Used to set the local bits of translated keys (e.g.
 * fc_locals_match()). Without it, keys keep the original's local bits.
 */
typedef bool (*mod_nat_local_fn)(void *arg, uint8_t family, const uint8_t *addr);

/**
 * Optional callback: is @p key (a candidate reply key, local bits set) in
 * use by a flow the NAT table does not know (e.g. a fc_table_lookup() hit)?
 * The allocator then tries another tuple.
 */
typedef bool (*mod_nat_busy_fn)(void *arg, const struct fc_key *key);

/** NAT table creation parameters. Zero means "default" where one is given. */
struct mod_nat_params {
	uint32_t max_bindings; /**< most bindings, active or retired: 1..MOD_NAT_BINDINGS_MAX */
	uint32_t max_targets;  /**< targets with usage counters: 0 = 64, at most 4096 */
	uint32_t max_probes;   /**< most candidate tuples one bind tries; 0 = 65536 */
	uint32_t seed;         /**< hash seed: address choice, port search start, index */
	mod_nat_local_fn is_local; /**< optional, see mod_nat_local_fn */
	mod_nat_busy_fn busy;      /**< optional, see mod_nat_busy_fn */
	void *cb_arg;              /**< first argument of both callbacks */
};

/** struct mod_nat_binding_result::flags */
#define MOD_NAT_F_DNAT 0x01       /**< destination translated */
#define MOD_NAT_F_SNAT 0x02       /**< source translated to an SNAT target */
#define MOD_NAT_F_MASQ 0x04       /**< source translated to the outgoing address */
#define MOD_NAT_F_REMAPPED 0x08   /**< source port/identifier changed to stay unique */

/** A binding as made by mod_nat_bind(). Keys are normalized, network order. */
struct mod_nat_binding_result {
	uint32_t binding;    /**< binding id, for mod_nat_unbind() */
	uint32_t fwd_slot;   /**< nat_id of the original direction's entry */
	uint32_t reply_slot; /**< nat_id of the reply direction's entry */
	uint8_t flags;       /**< MOD_NAT_F_* */
	struct fc_key orig;  /**< the original forward key */
	struct fc_key fwd;   /**< the forward key as translated (what leaves) */
	struct fc_key reply; /**< key of the replies as they arrive (reverse of @c fwd) */
};

/** Counters of a NAT table. */
struct mod_nat_stats {
	uint64_t allocated;  /**< bindings made since creation */
	uint64_t exhausted;  /**< binds refused with -ENOSPC (drop "nat_exhausted") */
	uint64_t table_full; /**< binds refused with -ENOBUFS */
	uint64_t remapped;   /**< bindings whose source port/identifier was changed */
	uint32_t active;     /**< bindings holding a tuple */
	uint32_t retired;    /**< unbound, slots waiting for mod_nat_release() */
	uint32_t capacity;   /**< max_bindings */
	uint32_t targets;    /**< targets with counters (see mod_nat_target_stats_get()) */
};

/**
 * Usage of one target (a distinct address/port range and action). For
 * masquerade, @c nat holds the outgoing address used (and any port range).
 */
struct mod_nat_target_stats {
	uint8_t action;      /**< RULE_ACT_DNAT, RULE_ACT_SNAT or RULE_ACT_MASQUERADE */
	struct rule_nat nat; /**< the target */
	uint32_t active;     /**< bindings using it now */
	uint64_t allocated;  /**< bindings made with it */
	uint64_t exhausted;  /**< binds that found no free tuple in it */
};

/** struct mod_nat_rewrite::l4: what to do past the IP header. */
#define MOD_NAT_L4_NONE 0 /**< nothing (other protocols, ICMPv4 non-echo) */
#define MOD_NAT_L4_TCP 1  /**< ports, checksum at 16 */
#define MOD_NAT_L4_UDP 2  /**< ports, checksum at 6 (0 = none, stays 0) */
#define MOD_NAT_L4_ECHO 3 /**< ICMP/ICMPv6 echo: identifier at 4, checksum at 2 */
#define MOD_NAT_L4_CSUM 4 /**< ICMPv6 non-echo: pseudo-header change only, checksum at 2 */
#define MOD_NAT_L4_SCTP 5 /**< ports changed: CRC32c recomputed (addresses are not covered) */

/**
 * One precomputed rewrite: the new header fields and the checksum deltas
 * (RFC 1624: the one's complement sum of ~old + new over the changed 16-bit
 * words, in memory order, never 0). Public only so that mod_nat_apply()
 * can be inlined; written by mod_nat_bind(), read-only otherwise.
 */
struct mod_nat_rewrite {
	uint8_t src[16];   /**< new source address (IPv4 in bytes 0..3) */
	uint8_t dst[16];   /**< new destination address */
	uint16_t sport;    /**< new source port or echo identifier, network order */
	uint16_t dport;    /**< new destination port, network order */
	uint16_t ip_delta; /**< addresses: IPv4 header checksum and L4 pseudo-header */
	uint16_t l4_delta; /**< everything the L4 checksum covers */
	uint8_t family;    /**< FC_AF_INET4 or FC_AF_INET6 */
	uint8_t l4;        /**< MOD_NAT_L4_* */
	uint8_t csum_off;  /**< L4 checksum offset in the L4 header */
	uint8_t l4_min;    /**< L4 bytes the rewrite touches */
} __rte_aligned(64);

/** The fast path's view of a table: the first member of struct mod_nat. */
struct mod_nat_view {
	const struct mod_nat_rewrite *slots;
	uint32_t n_slots;
};

/**
 * Translate an ICMP or ICMPv6 error (destination unreachable, source
 * quench, redirect, time exceeded, parameter problem; ICMPv6 destination
 * unreachable, packet too big, time exceeded, parameter problem) about a
 * translated connection, so that its receiver sees the error of the packet
 * it sent. @p slot is the rewrite slot of the entry whose key is the quoted
 * packet reversed (the direction the error travels). Outer addresses equal
 * to that entry's key get the slot's rewrite; the quoted header gets the
 * mirror image (addresses, then TCP/UDP/SCTP ports or the ICMP echo
 * identifier when quoted). Checksums: outer and quoted IPv4 headers
 * recomputed, quoted TCP/UDP (and echo) checksums updated incrementally
 * when quoted, the ICMP/ICMPv6 checksum recomputed over the message. An
 * outer IPv6 header must be followed by ICMPv6 directly; a quoted IPv6
 * header's L4 is taken only right after it.
 * @param nat     the NAT table
 * @param slot    rewrite slot (see above; rule_decision::nat_slot with
 *                RULE_DEC_F_ICMP_ERR)
 * @param l3      the outer IP header, writable
 * @param l3_len  contiguous bytes at @p l3
 * @return 0; -EINVAL (not such an error, family mismatch, bad slot; nothing
 *   written), -ENOTSUP (the datagram goes past @p l3_len: linearize first).
 * Context: any (slow path: errors are never cached).
 */
int mod_nat_icmp_error(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len);

/**
 * Create a NAT table (plain heap memory; nothing is shared between processes).
 * @param p  parameters; max_bindings is required
 * @return the table, or NULL with errno EINVAL (bad parameters) or ENOMEM.
 * Context: main lcore.
 */
struct mod_nat *mod_nat_create(const struct mod_nat_params *p);

/** Free a table; NULL is accepted. Context: main lcore, no reader left. */
void mod_nat_free(struct mod_nat *nat);

/**
 * Make a binding for a new connection: pick the translated addresses and
 * ports, fill the two rewrite slots. Rules (doc/nat.md):
 *
 *  - DNAT: the destination becomes an address of @p dnat chosen by a seeded
 *    hash of the original source and destination addresses (a client sticks
 *    to one server); with a port range (TCP/UDP/SCTP) the destination port
 *    is kept if in range, else chosen by a hash of the original tuple.
 *  - SNAT: the source becomes an address of @p snat (hash of the original
 *    source address, then the next ones if that one has no free tuple);
 *    MASQUERADE: @p masq_addr, with the port range of @p snat if given
 *    (family 0 allowed). The source port (TCP/UDP/SCTP; ICMP echo
 *    identifier over 0..65535) is kept if free and in range, else searched
 *    from a hashed start over the range (no range given: 1..1023 for ports
 *    below 1024, 1024..65535 otherwise).
 *  - Without SNAT/MASQUERADE the source is kept, unless that clashes with
 *    an existing binding: then its port is remapped as above (like Linux).
 *  - Other protocols (ports 0) get addresses only; a clash cannot be
 *    resolved and counts as exhaustion. DCCP and UDP-Lite are refused.
 *
 * @param nat        the table
 * @param orig       the connection's key as parsed (local bits set)
 * @param dnat       DNAT target, or NULL
 * @param snat       SNAT target, or NULL; with @p masq_addr only its ports count
 * @param masq_addr  outgoing port's address for MASQUERADE (4 or 16 bytes,
 *   the family of @p orig), or NULL
 * @param res        receives the binding
 * @return 0; -EINVAL (NULL argument, nothing to do, a target of another
 *   family or with min > max, @p snat without address and no @p masq_addr),
 *   -EPROTONOSUPPORT (DCCP, UDP-Lite), -ENOBUFS (all bindings in use,
 *   counted in table_full), -ENOSPC (no free tuple within max_probes,
 *   counted in exhausted and in the target's counters).
 * Context: rules lcore only.
 */
int mod_nat_bind(struct mod_nat *nat, const struct fc_key *orig, const struct rule_nat *dnat,
	const struct rule_nat *snat, const uint8_t *masq_addr, struct mod_nat_binding_result *res);

/**
 * First step of freeing a binding: its tuple is free for new bindings at
 * once; its slots stay intact until mod_nat_release(). Call after both flow
 * entries naming the slots were deleted.
 * @return 0, -EINVAL (NULL or out of range), -ENOENT (not active).
 * Context: rules lcore only.
 */
int mod_nat_unbind(struct mod_nat *nat, uint32_t binding);

/**
 * Second step: make the binding's slots reusable. Call once an RCU grace
 * period has passed since mod_nat_unbind() (e.g. from an rte_rcu_qsbr
 * defer queue), or at once when no reader runs.
 * @return 0, -EINVAL (NULL or out of range), -ENOENT (already free),
 *   -EBUSY (still bound: unbind first).
 * Context: rules lcore only.
 */
int mod_nat_release(struct mod_nat *nat, uint32_t binding);

/**
 * Read an active binding back.
 * @return 0, -EINVAL, -ENOENT (not active).
 * Context: rules lcore, or control with the rules lcore stopped.
 */
int mod_nat_binding_get(const struct mod_nat *nat, uint32_t binding,
	struct mod_nat_binding_result *res);

/** Sum the counters. Context: any lcore (values may be slightly stale). */
void mod_nat_stats_get(const struct mod_nat *nat, struct mod_nat_stats *s);

/**
 * Usage of target @p i (0 .. stats.targets - 1). A target whose bindings are
 * all gone may be recycled for a new one when the table of targets is full.
 * @return 0, -EINVAL, -ENOENT (past the end).
 * Context: any lcore, for display (a recycled entry may read torn).
 */
int mod_nat_target_stats_get(const struct mod_nat *nat, unsigned int i,
	struct mod_nat_target_stats *out);

/**
 * Write the counters, the targets and one line per active binding
 * ("tcp 10.0.0.2:1234 -> ... => tcp 192.0.2.1:1234 -> ... [snat]") to @p f.
 * @return number of bindings written, -EINVAL, or -EIO on a write error.
 * Context: rules lcore, or control with the rules lcore stopped.
 */
int mod_nat_dump(const struct mod_nat *nat, FILE *f);

/**
 * Recompute the CRC32c of a whole SCTP packet (common header at @p sctp,
 * @p len bytes) after its ports changed. Called by mod_nat_apply().
 * Context: any lcore.
 */
void mod_nat_sctp_csum(uint8_t *sctp, uint32_t len);

/**
 * RFC 1624 eqn. 3: the checksum @p csum (as stored) after adding @p delta,
 * a one's complement sum of ~old + new words that is never 0. The result is
 * what a full recomputation gives: never 0xffff for a correct input.
 * Context: any lcore.
 */
static inline uint16_t
mod_nat_csum_adjust(uint16_t csum, uint16_t delta)
{
	uint32_t s = (uint32_t)(uint16_t)~csum + delta;

	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/**
 * Rewrite one packet with slot @p slot: addresses (IPv4 header checksum
 * updated incrementally), then, except in a non-first fragment, the ports or
 * echo identifier and the L4 checksum (pseudo-header included). A UDP
 * checksum of 0 (none) stays 0; a computed 0 is sent as 0xffff. SCTP with
 * changed ports gets its CRC32c recomputed, which needs the whole datagram.
 *
 * @param nat     the table
 * @param slot    fc_action::nat_id of the entry the packet hit
 * @param l3      first byte of the IP header (writable)
 * @param l3_len  bytes available from @p l3
 * @param pkt     the parser's result for this packet (offsets, fragment kind)
 * @return 0; -EINVAL (family differs from the slot's, headers beyond
 *   @p l3_len); -ENOTSUP (SCTP port change on a fragment or a datagram not
 *   all within @p l3_len: send it to the slow path to be linearized).
 * Context: any lcore (lock-free reader of the slot).
 */
static inline int
mod_nat_apply(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len,
	const struct fc_pkt *pkt)
{
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)nat;
	const struct mod_nat_rewrite *rw;
	uint32_t l4_rel = (uint32_t)pkt->l4_off - pkt->l3_off;
	bool do_l4;
	uint8_t *l4;
	uint16_t c;

	RTE_ASSERT(slot < v->n_slots);
	rw = &v->slots[slot];
	/* Every check before the first write: no packet is half-rewritten. */
	if (unlikely(rw->family != pkt->key.family))
		return -EINVAL;
	if (unlikely(l3_len < (rw->family == FC_AF_INET4 ? 20u : 40u)))
		return -EINVAL;
	do_l4 = rw->l4 != MOD_NAT_L4_NONE && pkt->frag != FC_FRAG_LATER;
	if (do_l4) {
		if (unlikely(l4_rel + rw->l4_min > l3_len))
			return -EINVAL;
		if (unlikely(rw->l4 == MOD_NAT_L4_SCTP &&
			    (pkt->frag != FC_FRAG_NONE || pkt->ip_len > l3_len ||
				    pkt->ip_len < l4_rel + rw->l4_min)))
			return -ENOTSUP;
	}

	if (rw->family == FC_AF_INET4) {
		memcpy(l3 + 12, rw->src, 4);
		memcpy(l3 + 16, rw->dst, 4);
		memcpy(&c, l3 + 10, 2);
		c = mod_nat_csum_adjust(c, rw->ip_delta);
		memcpy(l3 + 10, &c, 2);
	} else {
		memcpy(l3 + 8, rw->src, 16);
		memcpy(l3 + 24, rw->dst, 16);
	}
	if (!do_l4)
		return 0;
	l4 = l3 + l4_rel;
	switch (rw->l4) {
	case MOD_NAT_L4_ECHO:
		memcpy(l4 + 4, &rw->sport, 2);
		break;
	case MOD_NAT_L4_CSUM:
		break;
	case MOD_NAT_L4_SCTP:
		memcpy(l4, &rw->sport, 2);
		memcpy(l4 + 2, &rw->dport, 2);
		mod_nat_sctp_csum(l4, pkt->ip_len - l4_rel);
		return 0;
	default: /* TCP, UDP */
		memcpy(l4, &rw->sport, 2);
		memcpy(l4 + 2, &rw->dport, 2);
		break;
	}
	memcpy(&c, l4 + rw->csum_off, 2);
	if (rw->l4 == MOD_NAT_L4_UDP && c == 0)
		return 0;
	c = mod_nat_csum_adjust(c, rw->l4_delta);
	if (rw->l4 == MOD_NAT_L4_UDP && c == 0)
		c = 0xffff;
	memcpy(l4 + rw->csum_off, &c, 2);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Conntrack module                                                          */
/* ------------------------------------------------------------------------ */

/*
 * Connection tracking as a pure, deterministic state machine
 * (mod_conntrack.c; behaviour in doc/conntrack.md). The module owns no
 * memory and keeps no state of its own: a connection's whole state is a
 * struct mod_ct_conn, which packs into one byte that the engine stores in
 * fc_action::ct_state of both entries of the connection (the original
 * direction's key and the reply direction's, see FC_ACT_F_REPLY).
 * fc_action::mod[] is left to other modules.
 *
 * Encoding of fc_action::ct_state (mod_ct_conn_pack()):
 *   bits 0-3  enum mod_ct_state (0 = MOD_CT_S_NONE: not tracked)
 *   bits 4-6  MOD_CT_C_* flags (replied, first FIN from the reply side,
 *             picked up mid-stream)
 *   bit  7    zero
 *
 * The engine calls mod_ct_new() for the first packet of a flow that no
 * entry knows, and mod_ct_packet() for each later packet that the interest
 * mask of its entry selects (see mod_ct_interest_match()): only those
 * packets can change a connection, so the packets that take the fast path
 * never need to come here. Each call answers in a struct mod_ct_verdict:
 * the packet's ctstate, the idle timeout and the interest masks of both
 * directions, and what changed. ICMP errors are RELATED when the packet
 * they quote belongs to a tracked connection: mod_ct_icmp_inner_key() gives
 * the quoted packet's key, the engine looks it up.
 *
 * TCP follows Linux's nf_conntrack state machine without its sequence
 * number and window tracking (a documented simplification: any RST closes,
 * any ACK from the right side completes a handshake or a close).
 *
 * Time: timeouts are in milliseconds (uint32_t, so at most ~49 days).
 * Everything here is pure and reentrant (no EAL, no globals written).
 */

/** Connection states (4 bits). TCP states follow Linux's names. */
enum mod_ct_state {
	MOD_CT_S_NONE,        /**< no connection: the packet is not tracked */
	MOD_CT_S_SYN_SENT,    /**< TCP: SYN seen from the original side */
	MOD_CT_S_SYN_RECV,    /**< TCP: SYN/ACK seen, waiting for the final ACK */
	MOD_CT_S_ESTABLISHED, /**< TCP: handshake done (or picked up mid-stream) */
	MOD_CT_S_FIN_WAIT,    /**< TCP: one side sent FIN */
	MOD_CT_S_CLOSE_WAIT,  /**< TCP: that FIN was acknowledged by the other side */
	MOD_CT_S_LAST_ACK,    /**< TCP: both sides sent FIN, waiting for the last ACK */
	MOD_CT_S_TIME_WAIT,   /**< TCP: closed cleanly, lingering */
	MOD_CT_S_CLOSE,       /**< TCP: closed by RST, lingering briefly */
	MOD_CT_S_SYN_SENT2,   /**< TCP: SYN seen from both sides (simultaneous open) */
	MOD_CT_S_OPEN,        /**< UDP, ICMP echo and other protocols */
	MOD_CT_S__COUNT
};

/** struct mod_ct_conn::flags: a packet was accepted from the reply side. */
#define MOD_CT_C_REPLIED 0x01
/**
 * struct mod_ct_conn::flags: the first FIN came from the reply side (set on
 * entering FIN_WAIT; FIN_WAIT, CLOSE_WAIT and LAST_ACK read it).
 */
#define MOD_CT_C_CLOSER_REPLY 0x02
/** struct mod_ct_conn::flags: TCP connection picked up mid-stream (loose mode). */
#define MOD_CT_C_PICKUP 0x04
/** All flags. */
#define MOD_CT_C_ALL 0x07

/**
 * A connection's state: what the engine stores (packed) in both entries.
 * Written only through mod_ct_new() and mod_ct_packet() on the rules lcore;
 * readers (shell, telemetry) unpack a copy from an entry.
 */
struct mod_ct_conn {
	uint8_t state; /**< enum mod_ct_state */
	uint8_t flags; /**< MOD_CT_C_* */
};

/** Packet directions: the entry's key is the original or the reply key. */
#define MOD_CT_DIR_ORIG 0
#define MOD_CT_DIR_REPLY 1

/**
 * Timeouts: one X-macro makes the enum (MOD_CT_TO_<NAME>), the names
 * (mod_ct_timeout_name()) and the defaults in milliseconds (Linux's).
 * X(NAME, "name", default_ms)
 */
#define MOD_CT_TIMEOUTS(X) \
	X(TCP_SYN_SENT, "tcp_syn_sent", 120000u) \
	X(TCP_SYN_RECV, "tcp_syn_recv", 60000u) \
	X(TCP_ESTABLISHED, "tcp_established", 432000000u) \
	X(TCP_FIN_WAIT, "tcp_fin_wait", 120000u) \
	X(TCP_CLOSE_WAIT, "tcp_close_wait", 60000u) \
	X(TCP_LAST_ACK, "tcp_last_ack", 30000u) \
	X(TCP_TIME_WAIT, "tcp_time_wait", 120000u) \
	X(TCP_CLOSE, "tcp_close", 10000u) \
	X(TCP_SYN_SENT2, "tcp_syn_sent2", 120000u) \
	X(TCP_UNREPLIED, "tcp_unreplied", 300000u) \
	X(UDP, "udp", 30000u) \
	X(UDP_REPLIED, "udp_replied", 120000u) \
	X(ICMP, "icmp", 30000u) \
	X(GENERIC, "generic", 600000u)

/** Timeout slots of struct mod_ct_cfg::timeout (see MOD_CT_TIMEOUTS). */
enum mod_ct_timeout {
#define MOD_CT_TO_ENUM(name, text, ms) MOD_CT_TO_##name,
	MOD_CT_TIMEOUTS(MOD_CT_TO_ENUM)
#undef MOD_CT_TO_ENUM
	MOD_CT_TO__COUNT
};

/**
 * Conntrack configuration. Owned by the engine; read-only while the module
 * runs with it (replace it as a whole between packets).
 */
struct mod_ct_cfg {
	/**
	 * Strict TCP: only a SYN creates a connection. Off (the default, like
	 * Linux's nf_conntrack_tcp_loose=1), an ACK without SYN also creates
	 * one, picked up as ESTABLISHED.
	 */
	bool tcp_strict;
	/** Idle timeouts in milliseconds, each at least 1 (0 would never age). */
	uint32_t timeout[MOD_CT_TO__COUNT];
};

/** Verdict flags: a connection was created (mod_ct_new() only). */
#define MOD_CT_VF_CREATED 0x01
/**
 * Verdict flags: the connection changed (its packed byte differs): store
 * it in both entries with the verdict's timeout and interest masks.
 */
#define MOD_CT_VF_CHANGED 0x02
/**
 * Verdict flags: the connection's ctstate changed (the first reply was
 * seen: original-side packets go from NEW to ESTABLISHED). Verdicts cached
 * for either entry are stale: run the filter again for both.
 */
#define MOD_CT_VF_CTSTATE 0x04
/**
 * Verdict flags: the connection is closed (TCP CLOSE, after a RST). Linux
 * keeps it for the short close timeout so that late packets still match;
 * the engine may do the same or remove both entries now.
 */
#define MOD_CT_VF_CLOSED 0x08
/**
 * Verdict flags: the packet opens a new connection on this tuple (a SYN on
 * a TIME_WAIT or CLOSE connection). Remove the old connection (both
 * entries) and hand the packet to mod_ct_new(); its key becomes the new
 * original direction. The rest of the verdict describes the old connection.
 */
#define MOD_CT_VF_REOPEN 0x10

/** What the module says about one packet. */
struct mod_ct_verdict {
	uint32_t timeout;     /**< idle timeout of both entries, ms */
	uint16_t interest[2]; /**< FC_INTEREST_* of the [MOD_CT_DIR_ORIG] and [_REPLY] entries */
	uint8_t ctstate;      /**< the packet's: one RULE_CT_* bit, or 0 if not tracked */
	uint8_t flags;        /**< MOD_CT_VF_* */
};

/**
 * Fill @p cfg with the defaults: loose TCP, Linux's timeouts.
 * @param cfg  configuration to initialize
 * Context: any.
 */
void mod_ct_cfg_init(struct mod_ct_cfg *cfg);

/**
 * Check a configuration.
 * @param cfg  configuration
 * @return 0, or -EINVAL (NULL, or a timeout of 0).
 * Context: any.
 */
int mod_ct_cfg_check(const struct mod_ct_cfg *cfg);

/**
 * Name of a timeout slot ("tcp_established", ...), as configs and the shell
 * spell it.
 * @param to  enum mod_ct_timeout
 * @return a static string; "?" if out of range.
 * Context: any.
 */
const char *mod_ct_timeout_name(unsigned int to);

/**
 * Find a timeout slot by name.
 * @param name  NUL-terminated name, as mod_ct_timeout_name() gives
 * @return the enum mod_ct_timeout value, or -ENOENT (-EINVAL for NULL).
 * Context: any.
 */
int mod_ct_timeout_find(const char *name);

/**
 * Pack a connection into the byte stored in fc_action::ct_state.
 * @param c  connection (state < MOD_CT_S__COUNT, flags within MOD_CT_C_ALL)
 * @return the byte.
 * Context: any.
 */
uint8_t mod_ct_conn_pack(const struct mod_ct_conn *c);

/**
 * Unpack fc_action::ct_state.
 * @param b  the stored byte
 * @param c  receives the connection
 * @return 0, or -EINVAL if @p b is no valid encoding (@p c is then NONE).
 * Context: any.
 */
int mod_ct_conn_unpack(uint8_t b, struct mod_ct_conn *c);

/**
 * First packet of a flow no entry knows: decide whether it starts a
 * connection. TCP: a SYN does (SYN_SENT); in loose mode an ACK without SYN
 * does too (ESTABLISHED, picked up); everything else (SYN/ACK, FIN, RST,
 * invalid flag combinations, and a stray ACK in strict mode) is INVALID and
 * creates nothing. UDP and other protocols: every packet does. ICMP and
 * ICMPv6: echo requests (and v4 timestamp/information/address-mask
 * requests, v6 node information queries) do; echo replies and errors are
 * INVALID (call mod_ct_icmp_inner_key() first to find RELATED errors);
 * ICMPv6 neighbour discovery and MLD are not tracked (ctstate 0), nor are
 * non-first fragments, which carry no L4 header.
 *
 * On MOD_CT_VF_CREATED, store @p c (packed) in the entry of the packet's key
 * (the original direction) and of its reply key, with the verdict's timeout
 * and interest masks. Without it nothing is tracked: for ctstate 0 the
 * answer holds for every packet of the tuple (interest 0); for INVALID the
 * interest is FC_INTEREST_ALL in both directions, since a later packet of
 * the tuple may start a connection.
 *
 * @param cfg  configuration
 * @param pkt  the parsed packet (key, tcp_flags, icmp_type, frag)
 * @param c    receives the new connection (NONE if none was created)
 * @param v    receives the verdict; ctstate is RULE_CT_NEW, RULE_CT_INVALID
 *   or 0
 * @return 0, or -EINVAL (NULL argument, unknown address family).
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, struct mod_ct_conn *c,
	struct mod_ct_verdict *v);

/**
 * A later packet of connection @p c, from direction @p dir. Applies the
 * transition (TCP: see doc/conntrack.md; others: the first reply marks the
 * connection replied) and says the packet's ctstate: INVALID when it does
 * not fit the state (nothing changes then), else ESTABLISHED for reply
 * packets and for original ones once a reply was seen, NEW before.
 *
 * With MOD_CT_VF_CHANGED store the new @p c in both entries with the new
 * timeout and interest masks; with MOD_CT_VF_CTSTATE also re-run the filter
 * for both; with MOD_CT_VF_REOPEN see there.
 *
 * @param cfg  configuration
 * @param c    the connection, updated in place
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY: which entry the packet hit
 * @param pkt  the parsed packet
 * @param v    receives the verdict
 * @return 0, or -EINVAL (NULL argument, bad @p dir, @p c not a connection
 *   or not one of the packet's protocol); @p c is unchanged then.
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, struct mod_ct_verdict *v);

/**
 * Idle timeout of a connection in its current state (what the verdicts
 * give; for re-applying a changed configuration). TCP: the state's timeout,
 * at most tcp_unreplied until a reply was seen. UDP: udp, udp_replied once
 * replied. ICMP: icmp. Others: generic. NONE: the protocol's unreplied
 * timeout (what an untracked entry may use).
 *
 * @param cfg     configuration
 * @param family  FC_AF_INET4 or FC_AF_INET6 (ICMP is proto 1 in v4, 58 in v6)
 * @param proto   IP protocol of the connection's keys
 * @param c       the connection
 * @return the timeout in ms; 0 for an invalid @p c or a state of another
 *   protocol (a TCP state for a UDP key, OPEN for a TCP key).
 * Context: any.
 */
uint32_t mod_ct_timeout(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c);

/**
 * Interest masks of a connection's two entries in its current state: TCP
 * wants SYN, FIN and RST, plus every packet (FC_INTEREST_ALL) of a side
 * whose ACK alone changes the state (original in SYN_RECV, the side that
 * did not close first in FIN_WAIT, the side that did in LAST_ACK) and of
 * the reply side until it was seen. Other protocols want every reply packet
 * until the first, then nothing. NONE: nothing.
 *
 * @param family    as mod_ct_timeout()
 * @param proto     as mod_ct_timeout()
 * @param c         the connection
 * @param interest  receives [MOD_CT_DIR_ORIG] and [MOD_CT_DIR_REPLY]
 * Context: any.
 */
void mod_ct_interest(uint8_t family, uint8_t proto, const struct mod_ct_conn *c,
	uint16_t interest[2]);

/**
 * Does an interest mask select this packet? The rule the module assumes
 * the engine applies: FC_INTEREST_ALL selects every packet, TCP_SYN / _FIN
 * / _RST a TCP packet with that flag set (SYN/ACK included).
 * @param interest  FC_INTEREST_* mask
 * @param pkt       the parsed packet
 * @return true if the packet must go to mod_ct_packet().
 * Context: any lcore.
 */
bool mod_ct_interest_match(uint16_t interest, const struct fc_pkt *pkt);

/**
 * The ctstate that packets taking the fast path get from an entry of
 * connection @p c (what the cached filter verdict must be computed with).
 * @param c    the connection
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @return RULE_CT_ESTABLISHED for the reply side and for the original side
 *   once replied, RULE_CT_NEW before; 0 for NONE.
 * Context: any.
 */
unsigned int mod_ct_conn_ctstate(const struct mod_ct_conn *c, unsigned int dir);

/**
 * Is this packet an ICMP or ICMPv6 error, one that quotes another packet?
 * ICMP: destination unreachable, source quench, redirect, time exceeded,
 * parameter problem. ICMPv6: destination unreachable, packet too big, time
 * exceeded, parameter problem.
 * @param pkt  the parsed packet
 * @return true for an error message.
 * Context: any.
 */
bool mod_ct_icmp_is_error(const struct fc_pkt *pkt);

/**
 * Key of the packet an ICMP/ICMPv6 error quotes: its IP header (IPv4 with
 * options; IPv6 with hop-by-hop, routing, destination-options and fragment
 * headers) and the first 8 bytes of its L4 header, as fc_parse() would key
 * that packet (ports, echo identifier or type/code; local bits 0: mark them
 * as for any key). The quoted packet may be cut short (routers quote a
 * prefix); its length fields are not checked against the bytes at hand.
 * The engine looks the key up to tell RELATED from INVALID. Never reads
 * outside [frame, frame + len) nor past the outer IP datagram.
 *
 * @param frame  the frame @p pkt was parsed from (Ethernet header first)
 * @param len    bytes in @p frame
 * @param pkt    fc_parse() result of @p frame
 * @param inner  receives the normalized key
 * @return 0; -ENOENT if the packet is not an ICMP error
 *   (mod_ct_icmp_is_error()) or the quoted packet can belong to no
 *   connection (a non-first fragment, an ICMP error); -EINVAL if malformed:
 *   not ICMP of its family, a non-first fragment itself, the quoted IP
 *   header (or the 8 L4 bytes of TCP, UDP, SCTP, ICMP) cut or invalid, of
 *   the other family, or NULL arguments.
 * Context: any lcore.
 */
int mod_ct_icmp_inner_key(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt,
	struct fc_key *inner);

/**
 * Name of a state, upper case as Linux shows them ("SYN_SENT",
 * "ESTABLISHED", ..., "OPEN", "NONE").
 * @param state  enum mod_ct_state
 * @return a static string; "?" if out of range.
 * Context: any.
 */
const char *mod_ct_state_name(unsigned int state);

/**
 * Format a connection for the shell: the state name, then the flags, e.g.
 * "ESTABLISHED replied", "FIN_WAIT replied closer=reply", "OPEN unreplied".
 * @param c    the connection
 * @param buf  destination
 * @param len  size of @p buf (48 always suffices)
 * @return characters written (excluding NUL), -ENOSPC if truncated,
 *   -EINVAL for an invalid @p c or NULL.
 * Context: any.
 */
int mod_ct_conn_format(const struct mod_ct_conn *c, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Set validation and change log (for the classifier and the engine)         */
/* ------------------------------------------------------------------------ */

/** Hooks of @p table: RULE_HOOKS_FILTER or RULE_HOOKS_NAT; 0 if out of range. Context: any. */
unsigned int rule_table_hooks(unsigned int table);

/**
 * Is chain @p c a base chain, entered from hooks (built-in, or a user
 * chain claiming hooks)? Context: any.
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

/*
 * Change log, read by the rules engine's commit to know which rules a new
 * set changed. A set that was committed carries an empty log with a unique
 * token (rule_set_log_start()); rule_set_clone() copies the log, so a clone
 * (or a clone of a clone) lists every rule touched since that commit: rules
 * inserted (new content), removed (old content), replaced (both). Chain
 * hooks and policies are not logged: the engine compares them itself. Sets
 * not cloned from a committed set have no log. The log is owned by its set
 * and written by the rule_set_* editing functions only.
 */

/** One logged rule: its table and its content (old or new). */
struct rule_log_ent {
	uint8_t table; /**< enum rule_table */
	struct rule r;
};

/** Most entries a log holds; past that it only says "overflow". */
#define RULE_LOG_MAX 4096

/** A set's change log (rule_set_log()). Read-only to users. */
struct rule_log {
	uint64_t token;   /**< identity of the committed ancestor */
	uint32_t adds;    /**< rules inserted */
	uint32_t removes; /**< rules removed */
	bool overflow;    /**< more than RULE_LOG_MAX entries: content unknown */
	uint32_t n;       /**< entries in @c e */
	uint32_t cap;     /**< allocated entries */
	struct rule_log_ent *e;
};

/**
 * Give @p s an empty log with a fresh unique token: the set is being
 * committed.
 * @param s  the set
 * @return 0, or -ENOMEM (the set then has no log: the next commit of a
 *   clone of it counts as "everything changed").
 * Context: the set's owner (the rules lcore, for a committed set).
 */
int rule_set_log_start(struct rule_set *s);

/**
 * The change log of @p s.
 * @param s  the set
 * @return the log (valid until the set's next edit), or NULL if it has none.
 * Context: any thread holding @p s read-only.
 */
const struct rule_log *rule_set_log(const struct rule_set *s);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULES_H */
