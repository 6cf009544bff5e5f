/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: what the parts of the iptables-save import share —
 * the words of a line and the state of a file being imported.
 * rule_ipt_load.c reads the file (tables, chain lines, the restore
 * commands -N -F -X -Z -P -I -A, COMMIT) and builds the set;
 * rule_ipt.c parses one rule (the 7-tuple options, ports, states,
 * interfaces, jumps); rule_ipt_ext.c the extension matches and target
 * options through the option tables (rule_x_priv.h); rule_ipt_value.c the
 * values. Not for other files.
 */
#ifndef GUFC_RULE_IPT_PRIV_H
#define GUFC_RULE_IPT_PRIV_H

#include <string.h>

#include "rule_lang.h"
#include "rule_x_priv.h"

/** Most words on one line. */
#define RULE_IPT_ARGS_MAX 256
/** 64-bit words of a set of the 65536 ports. */
#define RULE_IPT_PORT_WORDS (65536 / 64)

/** The words of one line, decoded (quotes and escapes removed): lex_split()'s. */
struct ipt_args {
	unsigned int n;
	struct lex_tok a[RULE_IPT_ARGS_MAX];
};

/** Where a rule came from, to place errors found once the whole file is read. */
struct ipt_pos {
	uint32_t id;
	unsigned int line;
	unsigned int col;
	bool more; /**< not the first rule of its iptables rule (the second of a --ports pair) */
	char token[RULE_ERR_TOKEN_MAX];
};

/** State of one file being imported into a (private) set. */
struct ipt {
	struct rule_set *s;
	const struct rule_ipt_opts *o; /**< the caller's options (sets, family) */
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
	struct ipt_pos *pos;
	unsigned int n_pos;
	unsigned int cap_pos;
	uint64_t bm[RULE_IPT_PORT_WORDS]; /**< scratch port sets */
	uint64_t tmp[RULE_IPT_PORT_WORDS];
};

/** Report @p msg at column @p col of the current line, quoting @p tok. @return -EINVAL. */
static inline int
rule_ipt_err_at(struct ipt *p, unsigned int col, const char *tok, const char *msg)
{
	return lex_fail(&p->w, col, tok, strlen(tok), msg);
}

/** The old "--opt ! VALUE" negation: iptables 1.8 refuses it (both backends). */
#define RULE_IPT_OLD_NEG \
	"old '--opt ! VALUE' negation, which iptables refuses: write '! --opt VALUE'"

/** As rule_ipt_err_at() at word @p a. @return -EINVAL. */
static inline int
rule_ipt_err(struct ipt *p, const struct lex_tok *a, const char *msg)
{
	return rule_ipt_err_at(p, a->col, a->s, msg);
}

/* rule_ipt_value.c: the values of a rule line; errors name the whole word. */

/** True for a counter (packets, bytes): 1..20 decimal digits in [s, s+len). */
bool rule_ipt_counter_valid(const char *s, size_t len);

/** "[packets:bytes]" into @p pkts and @p bytes. @return true if valid. */
bool rule_ipt_counters(const char *s, uint64_t *pkts, uint64_t *bytes);

/** A counter's value (rule_ipt_counter_valid() first). */
uint64_t rule_ipt_counter(const char *s);

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

/** -i/-o value: an interface name, "NAME+" a prefix. @return 0, -EINVAL. */
int rule_ipt_iface(struct ipt *p, const struct lex_tok *a, char *out);

/** Use @p family for the file (fixed at the first address). @return 0, -EINVAL at @p a. */
int rule_ipt_family(struct ipt *p, const struct lex_tok *a, uint8_t family);

/** True if -j @p name means a target extension, never a chain. */
bool rule_ipt_is_target(const char *name);

/* rule_ipt_ext.c: extension matches and targets. */

/** Why -m @p name is refused, or NULL if it is not a refused match. */
const char *rule_ipt_match_refused(const char *name);

/** Why -j @p name is refused, or NULL if it is not a refused target. */
const char *rule_ipt_target_refused(const char *name);

/**
 * Read option a[*i] of extension @p x (a match of the rule, or its target)
 * and its value words; *i is left on the last word used.
 * @param p    the import
 * @param r    the rule
 * @param x    the extension
 * @param oi   the option's index in its kind
 * @param i    the option's word index (updated)
 * @param neg  a '!' came before it
 * @return 0, -EINVAL.
 */
int rule_ipt_xopt(struct ipt *p, struct rule *r, struct rule_x *x, unsigned int oi,
	unsigned int *i, bool neg);

/**
 * Finish the extensions of a parsed rule (defaults) and check each.
 * @param x_at  the word each extension match came from, for errors
 * @param at    the rule's -j (or -A) word, for errors about the target
 * @return 0, -EINVAL.
 */
int rule_ipt_ext_finish(struct ipt *p, struct rule *r, const struct lex_tok *const x_at[],
	const struct lex_tok *at);

/* rule_ipt_value.c: port sets as bitmaps of RULE_IPT_PORT_WORDS words. */

/** Set @p bm to the ports of list @p l. */
void rule_ipt_bm_set(uint64_t *bm, const struct rule_ports *l);
/** Runs of ports whose bit is @p val; the first RULE_PORTS_MAX go to @p out. @return runs. */
unsigned int rule_ipt_bm_runs(const uint64_t *bm, bool val, struct rule_ports *out);

/* rule_ipt.c: rule lines. */

/**
 * Parse the rule in p->args from word @p first on ("-A CHAIN options..."
 * or "-I CHAIN [N] options...", after the counters) and add its rules to
 * the chain (none for a rule that can never match, two for "-m multiport
 * --ports").
 * @param pkts   initial packet counter
 * @param bytes  initial byte counter
 * @return 0, -EINVAL (p->err filled), -ENOMEM.
 */
int rule_ipt_rule_line(struct ipt *p, unsigned int first, uint64_t pkts, uint64_t bytes);

/**
 * Remember where rule @p id came from (word @p at of the current line);
 * @p more: it is not the first rule of its iptables rule (see struct ipt_pos).
 * @return 0, -ENOMEM.
 */
int rule_ipt_pos(struct ipt *p, uint32_t id, const struct lex_tok *at, bool more);

#endif /* GUFC_RULE_IPT_PRIV_H */
