/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: what the two halves of the native-language parser
 * share — tokens and lines (rule_native.c: tokenizer, values, rule lines)
 * and the parser state of a text being applied to a set (rule_load.c:
 * statements, texts, files). Not for other files.
 */
#ifndef GUFC_RULE_NATIVE_PRIV_H
#define GUFC_RULE_NATIVE_PRIV_H

#include "rule_priv.h"

/** Most tokens on one line. */
#define TOKENS_MAX 64

/** One token of a line, decoded in place in the caller's copy of the line. */
struct tok {
	char *s;	  /**< NUL-terminated value (quotes removed, '!' stripped) */
	unsigned int col; /**< 1-based column of the value */
	bool neg;	  /**< preceded by '!' */
	bool quoted;
};

/** The tokens of one line. */
struct toks {
	unsigned int n;
	struct tok t[TOKENS_MAX];
};

/** Where a parsed rule came from, to place errors found by the final check. */
struct rpos {
	uint32_t id;
	unsigned int line;
	unsigned int col;
	char token[RULE_ERR_TOKEN_MAX];
};

/** State of one text being parsed into a (private) set. */
struct parser {
	struct rule_set *s;
	const char *file;
	unsigned int line;
	unsigned int table; /**< table of "chain" statements */
	int chain;	    /**< current chain section, -1: outside any */
	struct rpos *pos;   /**< one per rule added, to place later errors */
	unsigned int n_pos;
	unsigned int cap_pos;
	struct rule_error *err; /**< may be NULL */
};

/** Fill p->err at @p col with token [text, text+len) and @p msg. @return -EINVAL. */
int rule_perr_at(struct parser *p, unsigned int col, const char *text, size_t len, const char *msg);

/** As rule_perr_at() at token @p t. @return -EINVAL. */
int rule_perr(struct parser *p, const struct tok *t, const char *msg);

/** Split @p line (modified in place) into tokens. @return 0 or -EINVAL. */
int rule_tokenize(struct parser *p, char *line, struct toks *ts);

/** Copy a chain/channel name token into @p out (RULE_NAME_MAX); @p what is the error. */
int rule_parse_name(struct parser *p, const struct tok *t, char *out, const char *what);

/** Action number of @p s ("accept" ...), or -1. */
int rule_action_of(const char *s);

/**
 * Parse the rule whose action is token @p first, to the end of the line.
 * @param pos  if not NULL, receives where to report later errors about it
 * @return 0 or -EINVAL.
 */
int rule_parse_toks(struct parser *p, const struct toks *ts, unsigned int first, struct rule *r,
	struct rpos *pos);

#endif /* GUFC_RULE_NATIVE_PRIV_H */
