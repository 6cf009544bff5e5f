/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: what the two halves of the native-language parser
 * share — tokens and lines (rule_native.c: the language's syntax for
 * lex_split(), values, rule lines) and the parser state of a text being
 * applied to a set (rule_load.c: statements, texts, files). Not for other
 * files.
 */
#ifndef GUFC_RULE_NATIVE_PRIV_H
#define GUFC_RULE_NATIVE_PRIV_H

#include "rule_lang.h"
#include "rule_priv.h"

/** Most tokens on one line. */
#define TOKENS_MAX 64

/** The tokens of one line, decoded in place in the caller's copy of the line. */
struct toks {
	unsigned int n;
	struct lex_tok t[TOKENS_MAX];
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
	struct lex_where w; /**< file, line being parsed, error (may be NULL) */
	unsigned int table; /**< table of "chain" statements */
	int chain;	    /**< current chain section, -1: outside any */
	struct rpos *pos;   /**< one per rule added, to place later errors */
	unsigned int n_pos;
	unsigned int cap_pos;
};

/** Report @p msg at token @p t (lex_fail()). @return -EINVAL. */
int rule_perr(struct parser *p, const struct lex_tok *t, const char *msg);

/** Split @p line (decoded in place) into tokens by the native syntax. @return 0 or -EINVAL. */
int rule_tokenize(struct parser *p, char *line, struct toks *ts);

/** Copy a channel name token into @p out (RULE_NAME_MAX); @p what is the error. */
int rule_parse_name(struct parser *p, const struct lex_tok *t, char *out, const char *what);
/** The same for a chain name (rule_chain_name_valid()). */
int rule_parse_chain_name(struct parser *p, const struct lex_tok *t, char *out);

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
