/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: the rule set's layout and helpers shared by the model
 * (rule.c, rule_set.c, rule_x.c), the languages (native, iptables import
 * and export, ipset files) and the evaluators (rule_ref.c, rule_xeval.c).
 * Not installed, not for other libraries.
 */
#ifndef GUFC_RULE_PRIV_H
#define GUFC_RULE_PRIV_H

#include <stdarg.h>

#include "rules.h"

/** Protocol numbers the model treats specially. */
#define RULE_PROTO_TCP	6
#define RULE_PROTO_UDP	17
#define RULE_PROTO_SCTP 132
#define RULE_PROTO_DCCP 33
#define RULE_PROTO_UDPLITE 136

/** One table: its chains, built-in chains first, then user chains in creation order. */
struct rule_tbl {
	unsigned int n;
	unsigned int cap;
	struct rule_chain *chains;
};

/** The rule set (see rules.h for ownership). */
struct rule_set {
	uint64_t gen;
	uint32_t next_id; /**< id the next added rule gets */
	struct rule_tbl t[RULE_TABLE__COUNT];
	struct rule_log *log; /**< change log since the last commit (rule_set.c), or NULL */
	unsigned int n_ports;
	struct rule_portname *ports; /**< port names, or NULL */
	struct rule_ipsets *ipsets;  /**< attached ipsets (a reference), or NULL */
	/** Programs held out of line its rules name (rule_xblob.c): a reference on each. */
	struct {
		uint64_t *d; /**< their digests */
		uint32_t n, cap;
	} xrefs;
};

/* rule_xblob.c: programs held out of line (a set holds those its rules name). */
/** Set @p s holds the out-of-line programs of @p r. @return 0, -ENOENT (none holds one), -ENOMEM. */
int rule_xrefs_rule(struct rule_set *s, const struct rule *r);
/** Set @p to holds every program @p from holds. @return 0, -ENOMEM. */
int rule_xrefs_clone(struct rule_set *to, const struct rule_set *from);
/** Give back the programs @p s holds (rule_set_free()). */
void rule_xrefs_free(struct rule_set *s);
/**
 * Where a parse on the calling thread puts out-of-line programs: rule set
 * @p s (held by it), or NULL (none: such programs are refused).
 * @return the previous one, to put back.
 */
struct rule_set *rule_xblob_parse_set(struct rule_set *s);

/** Index of the ipset named @p name, or -1 (rule_ipset.c). */
int rule_ipsets_find(const struct rule_ipsets *sets, const char *name);

/** Dimensions (1..3) of the ipset at @p idx (rule_ipset.c). */
unsigned int rule_ipsets_dims(const struct rule_ipsets *sets, int idx);

/** Is @p action a NAT target (dnat, snat, masquerade, redirect, netmap)? */
bool rule_action_nat(unsigned int action);

/** Does address @p addr fall in prefix @p p? */
bool rule_prefix_match(const uint8_t *addr, const struct rule_prefix *p);

/** Does the rule's ctstate match (true without one)? @p ctstate: RULE_CT_* or RULE_CT_IGNORE. */
bool rule_ctstate_match(const struct rule *r, unsigned int ctstate);

/** Protocol number of an iptables name or number (any case; "all" is 0), or -1. */
int rule_proto_lookup(const char *name);

/** True if @p action may appear in @p table. */
bool rule_action_in_table(unsigned int action, unsigned int table);

/** Hooks (RULE_HOOK_F bits) from which a nat @p action may be reached. */
unsigned int rule_action_hooks(unsigned int action);

/** True if @p name is a valid chain/channel name. */
bool rule_name_valid(const char *name);

/** True if @p name is a valid chain name: what iptables takes (any printable
 *  character but blanks, not starting with '-' or '!'), less quotes, '#' and
 *  a leading '.'; at most RULE_NAME_MAX - 1 characters. */
bool rule_chain_name_valid(const char *name);

/** Index of chain @p name in @p table, or -1. */
int rule_tbl_find(const struct rule_set *s, unsigned int table, const char *name);

/** Name of protocol @p proto ("tcp"), or NULL if it has none. */
const char *rule_proto_name(uint8_t proto);

/** The first name netbase's /etc/protocols gives @p proto (what
 * iptables-save prints for it), or NULL. */
const char *rule_proto_netbase_name(uint8_t proto);

/** Protocol number of @p name, or -1. */
int rule_proto_number(const char *name);

/**
 * Insert a copy of @p r at @p pos (RULE_POS_END or past the end: append)
 * with a fresh id, without checking the set. @return 0, -ENOSPC, -ENOMEM.
 */
int rule_chain_insert(
	struct rule_set *s, struct rule_chain *c, uint32_t pos, const struct rule *r, uint32_t *id);

/** Remove the rule at @p pos (must exist). */
void rule_chain_remove(struct rule_chain *c, uint32_t pos);

/** Text buffer: fixed (caller's) or growing (malloc). */
struct rule_buf {
	char *p;
	size_t len; /**< characters written, excluding the NUL */
	size_t cap; /**< size of @c p */
	bool grow;  /**< realloc when full */
	bool full;  /**< a write did not fit (fixed) or realloc failed (growing) */
};

/** Append formatted text; sets @c full on overflow. */
void rule_buf_printf(struct rule_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Append one rule's text (rule_format() without the checks). */
void rule_buf_rule(struct rule_buf *b, const struct rule *r);

#endif /* GUFC_RULE_PRIV_H */
