/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: what the two halves of the iptables-save importer
 * share — the words of a line and the state of a file being imported.
 * rule_ipt.c parses one "-A chain ..." line into pending rules;
 * rule_ipt_load.c reads the file (tables, chains, COMMIT), then inserts the
 * pending rules and checks the set. Not for other files.
 */
#ifndef GUFC_RULE_IPT_PRIV_H
#define GUFC_RULE_IPT_PRIV_H

#include <string.h>

#include "rule_lang.h"
#include "rule_priv.h"

/** Most words on one line. */
#define RULE_IPT_ARGS_MAX 256
/** 64-bit words of a set of the 65536 ports. */
#define RULE_IPT_PORT_WORDS (65536 / 64)

/** The words of one line, decoded (quotes and escapes removed): lex_split()'s. */
struct ipt_args {
	unsigned int n;
	struct lex_tok a[RULE_IPT_ARGS_MAX];
};

/** A parsed rule waiting for the end of the file (the family may not be known yet). */
struct ipt_pend {
	struct rule r;
	uint8_t table;
	char chain[RULE_NAME_MAX];
	unsigned int line; /**< where to report errors the final check finds */
	unsigned int col;
	char token[RULE_ERR_TOKEN_MAX];
	uint32_t id; /**< once inserted */
};

/** State of one file being imported into a (private) set. */
struct ipt {
	struct rule_set *s;
	struct lex_where w; /**< file, line being read, error (may be NULL) */
	uint8_t family; /**< the file's family, 0 while unknown */
	bool in_table;	/**< between *table and COMMIT */
	uint8_t table;	/**< enum rule_table of the current *table */
	unsigned int table_line;
	unsigned int table_col;
	char table_tok[RULE_ERR_TOKEN_MAX];
	unsigned int tables_seen;		  /**< 1 << table */
	unsigned int declared[RULE_TABLE__COUNT]; /**< built-in chains given a ':' line */
	struct ipt_args args;			  /**< words of the current line */
	char *buf;				  /**< their text */
	size_t buf_cap;
	struct ipt_pend *pend;
	unsigned int n_pend;
	unsigned int cap_pend;
	uint64_t bm[RULE_IPT_PORT_WORDS]; /**< scratch port sets */
	uint64_t tmp[RULE_IPT_PORT_WORDS];
};

/** Report @p msg at column @p col of the current line, quoting @p tok. @return -EINVAL. */
static inline int
rule_ipt_err_at(struct ipt *p, unsigned int col, const char *tok, const char *msg)
{
	return lex_fail(&p->w, col, tok, strlen(tok), msg);
}

/** As rule_ipt_err_at() at word @p a. @return -EINVAL. */
static inline int
rule_ipt_err(struct ipt *p, const struct lex_tok *a, const char *msg)
{
	return rule_ipt_err_at(p, a->col, a->s, msg);
}

/* rule_ipt_value.c: the values of a rule line; errors name the whole word. */

/** True for a counter (packets, bytes): 1..20 decimal digits in [s, s+len). */
bool rule_ipt_counter_valid(const char *s, size_t len);

/** True for "[packets:bytes]". */
bool rule_ipt_counters_valid(const char *s);

/** -s/-d value into @p pf (host bits cleared); sets r->family and the file's. @return 0, -EINVAL. */
int rule_ipt_prefix(struct ipt *p, const struct lex_tok *a, struct rule *r, struct rule_prefix *pf);

/** -p value: a name (any case) or 0..255; 0 and "all" mean any. @return 0, -EINVAL. */
int rule_ipt_proto(struct ipt *p, const struct lex_tok *a, int *proto);

/** --sport/--dport value: P, P:Q, P:, :Q or ":". @return 0, -EINVAL. */
int rule_ipt_portrange(struct ipt *p, const struct lex_tok *a, struct rule_ports *pp);

/** Multiport list: P or P:Q (P < Q), 15 ports at most (a range counts two). @return 0, -EINVAL. */
int rule_ipt_portlist(struct ipt *p, const struct lex_tok *a, struct rule_ports *pp);

/** --ctstate/--state value: comma-separated states, any case. @return 0, -EINVAL. */
int rule_ipt_ctstate(struct ipt *p, const struct lex_tok *a, uint8_t *set);

/** NAT port range "P" or "P-Q", 1..65535, into n->port_min/max. @return true if valid. */
bool rule_ipt_natports(const char *s, struct rule_nat *n);

/** --to-source/--to-destination value into r->nat; sets r->family and the file's. @return 0, -EINVAL. */
int rule_ipt_nat(struct ipt *p, const struct lex_tok *a, struct rule *r);

/** True if -j @p name means a target extension, never a chain. */
bool rule_ipt_is_target(const char *name);

/**
 * Parse the rule line in p->args (optional counters, "-A CHAIN", options)
 * and queue its rules (none for a rule without a target, two for
 * "-m multiport --ports"). @return 0, -EINVAL (p->err filled), -ENOMEM.
 */
int rule_ipt_rule_line(struct ipt *p);

#endif /* GUFC_RULE_IPT_PRIV_H */
