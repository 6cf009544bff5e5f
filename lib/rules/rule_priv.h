/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: the rule set's layout and helpers shared by the model
 * (rule.c), the native language (rule_native.c, rule_format.c) and the
 * reference evaluator (rule_ref.c). Not installed, not for other libraries.
 */
#ifndef GUFC_RULE_PRIV_H
#define GUFC_RULE_PRIV_H

#include <stdarg.h>

#include "rules.h"

/** Protocol numbers the model treats specially. */
#define RULE_PROTO_TCP	6
#define RULE_PROTO_UDP	17
#define RULE_PROTO_SCTP 132

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
};

/** True if @p action may appear in @p table. */
bool rule_action_in_table(unsigned int action, unsigned int table);

/** Hooks (RULE_HOOK_F bits) from which a nat @p action may be reached. */
unsigned int rule_action_hooks(unsigned int action);

/** True if @p name is a valid chain/channel name. */
bool rule_name_valid(const char *name);

/** Index of chain @p name in @p table, or -1. */
int rule_tbl_find(const struct rule_set *s, unsigned int table, const char *name);

/** Name of protocol @p proto ("tcp"), or NULL if it has none. */
const char *rule_proto_name(uint8_t proto);

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
