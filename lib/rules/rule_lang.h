/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — the rule languages: rule sets as text.
 *
 * This header is the manual for:
 *
 *  - the native rule language (one grammar for files and the shell,
 *    doc/rules.md): statements (table, chain, policy, rules), its parser
 *    with file:line:col errors and its formatter, which round-trips;
 *  - the iptables-save import (doc/iptables.md): iptables-save or
 *    ip6tables-save output turned into a rule set on which the reference
 *    evaluator gives netfilter's verdicts, or an error naming the line and
 *    the option that falls outside the subset.
 *
 * Both read their text through the lexical toolkit (lib/lex): its line
 * reader, its tokenizer (one struct lex_syntax per language), its values
 * (prefixes, port lists, numbers) and its error, struct lex_error, which is
 * struct rule_error here. The rule model, rule sets and the reference
 * evaluator the languages build are rules.h's.
 *
 * Pure C (no EAL): it runs under sanitizers and fuzzers. Parsing is all or
 * nothing: a text with an error gives no set. Sets are created for the
 * caller, who owns them (rules.h).
 */
#ifndef GUFC_RULE_LANG_H
#define GUFC_RULE_LANG_H

#include <stddef.h>
#include <stdio.h>

#include "lex.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/** Sizes of struct rule_error's strings (struct lex_error's). */
#define RULE_ERR_FILE_MAX LEX_ERR_FILE_MAX
#define RULE_ERR_TOKEN_MAX LEX_ERR_TOKEN_MAX
#define RULE_ERR_MSG_MAX LEX_ERR_MSG_MAX

/**
 * Where and why parsing failed: the lexical toolkit's struct lex_error
 * (lex.h), under the name the languages have always given it. @c line and
 * @c col are 1-based (columns count bytes; a tab is one column); 0 when the
 * error is not about a position (file unreadable). @c token is the
 * offending token, or for a missing value the keyword that wanted it,
 * truncated to fit.
 */
#define rule_error lex_error

/**
 * Format an error as "FILE:LINE:COL: MSG: 'TOKEN'" (parts that are empty
 * or zero are left out): lex_error_format().
 * @param e    the error
 * @param buf  receives the text
 * @param len  size of @p buf
 * @return characters written (excluding NUL), or -ENOSPC if truncated,
 *   -EINVAL (NULL argument, @p len 0).
 * Context: any.
 */
static inline int
rule_error_format(const struct rule_error *e, char *buf, size_t len)
{
	return lex_error_format(e, buf, len);
}

/* ------------------------------------------------------------------------ */
/* Native language                                                           */
/* ------------------------------------------------------------------------ */

/**
 * Parse one rule statement (an action followed by matches), e.g.
 * "accept proto tcp dport 22,80 ctstate new comment \"ssh\"". Statements
 * that are not rules (policy, chain, table) are refused here: see
 * rule_set_apply(). Where a rule goes by default is rule_default_chain().
 *
 * @param line  NUL-terminated text; a trailing "# ..." comment is allowed
 * @param r     receives the rule (id RULE_ID_NONE)
 * @param err   if not NULL, receives the error (file "", line 1)
 * @return 0, or -EINVAL with @p err filled (a bpf program or u32 tests
 *   too long for a rule's own bytes: refused, rule_parse_set() takes them).
 * Context: any.
 */
int rule_parse(const char *line, struct rule *r, struct rule_error *err);

/**
 * rule_parse() for a rule that goes into set @p s: a bpf program or u32
 * tests too long for a rule's own bytes are held by @p s (until it is
 * freed; the rule borrows them), so every program xt_bpf and xt_u32 take
 * is taken.
 * @param line  as rule_parse()
 * @param s     the set (NULL: as rule_parse())
 * @param r     receives the rule
 * @param err   as rule_parse()
 * @return 0, or -EINVAL with @p err filled.
 * Context: the thread that owns @p s.
 */
int rule_parse_set(const char *line, struct rule_set *s, struct rule *r, struct rule_error *err);

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
 * A buffer for rule_format() that holds every rule but the most extreme:
 * a 64-instruction bpf program takes up to about 1,700 bytes, u32 tests
 * at iptables' limits about 3,400.
 */
#define RULE_TEXT_MAX 4096

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
 * What an iptables import loaded other than as written: a chain line's
 * malformed counters (":INPUT ACCEPT [0_0]"), which iptables-restore
 * without -c never reads, load as 0.
 */
struct rule_ipt_warn {
	unsigned int count;      /**< warnings given */
	struct rule_error first; /**< the first one: file, line, column, token, message */
};

/** Options of an iptables import. */
struct rule_ipt_opts {
	unsigned int family;            /**< FC_AF_INET4, FC_AF_INET6, or 0 to detect it */
	struct rule_ipsets *sets;       /**< ipsets "-m set" and "-j SET" may name (the set
					     takes a reference); NULL: none loaded */
	struct rule_ipt_warn *warn;     /**< receives the warnings (counted, the first kept);
					     NULL: none reported */
	/** If not NULL, called once the file has loaded, for every rule its
	 *  rule lines (-A, -I) added, in the order they were added: the rule's
	 *  id and the file line that made it. A line naming several addresses
	 *  or "--ports" makes several rules; a rule a later -F flushed is
	 *  reported too (its id is in no chain). */
	void (*placed)(void *arg, uint32_t id, unsigned int line);
	void *placed_arg; /**< @p placed's first argument */
};

/**
 * Import iptables-save (or ip6tables-save, or an iptables-restore input
 * with -N, -I, -F, -X, -Z, -P) text with options; see
 * rule_set_parse_iptables_af(). Sets named by the rules must be in
 * @p o->sets (as iptables-restore needs them loaded); they are attached to
 * the new set.
 * @param text  NUL-terminated text
 * @param name  file name for errors (may be NULL)
 * @param o     options (NULL: detect the family, no ipsets)
 * @param err   if not NULL, receives the error
 * @return the set, or NULL with errno EINVAL (@p err filled) or ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_parse_iptables_opts(const char *text, const char *name,
	const struct rule_ipt_opts *o, struct rule_error *err);

/**
 * Load an iptables file with options (rule_set_parse_iptables_opts()).
 * @param path  file to read
 * @param o     options (may be NULL)
 * @param err   if not NULL, receives the error
 * @return the set, or NULL with errno as rule_set_load_iptables_af().
 * Context: main lcore.
 */
struct rule_set *rule_set_load_iptables_opts(const char *path, const struct rule_ipt_opts *o,
	struct rule_error *err);

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
/* iptables-save export                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Write the rules of one address family of @p s as iptables-save -c
 * writes them: per table that has base chains ("*filter" ...), the chain
 * lines with policies and counters, the rules with their "[pkts:bytes]",
 * "COMMIT". iptables-restore (ip6tables-restore for FC_AF_INET6) reads it
 * back, and so does rule_set_parse_iptables_af(), to the same verdicts.
 * Rules of both families (family 0) are written in either. gufc's own
 * chains (main, dnat, snat) are written when they hold rules, as user
 * chains; channels are not iptables' and are left out.
 * @param s       the set
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param buf     receives the text
 * @param len     size of @p buf
 * @return characters written (excluding NUL), -ENOSPC if truncated, -EINVAL.
 * Context: any thread holding @p s read-only.
 */
int rule_set_format_iptables(const struct rule_set *s, unsigned int family, char *buf,
	size_t len);

/**
 * Write rule_set_format_iptables()'s text to @p f.
 * @return 0, -EINVAL, -ENOMEM, or -EIO on a write error.
 * Context: any thread holding @p s read-only.
 */
int rule_set_dump_iptables(const struct rule_set *s, unsigned int family, FILE *f);

/**
 * Counters an export adds to a rule's own (its imported ones): what was
 * counted since. Set both to 0 when there is nothing to add.
 */
typedef void (*rule_counters_fn)(void *arg, uint32_t rule_id, uint64_t *pkts, uint64_t *bytes);

/**
 * rule_set_dump_iptables() with each rule's counters the sum of its own
 * and @p fn's.
 * @param s       the set
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param fn      the counters to add, or NULL
 * @param arg     first argument of @p fn
 * @param f       the stream
 * @return 0, -EINVAL, -ENOMEM, or -EIO on a write error.
 * Context: any thread holding @p s read-only.
 */
int rule_set_dump_iptables_ctr(const struct rule_set *s, unsigned int family, rule_counters_fn fn,
	void *arg, FILE *f);

/**
 * Format one rule as an iptables rule line's options (after "-A CHAIN").
 * @param r       the rule
 * @param family  the family being written (a rule of both families prints
 *   addresses of @p family only)
 * @param buf     receives the text
 * @param len     size of @p buf
 * @return characters written, -ENOSPC, -EINVAL.
 * Context: any.
 */
int rule_format_iptables(const struct rule *r, unsigned int family, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* ipset files                                                               */
/* ------------------------------------------------------------------------ */

/**
 * Read "ipset save" output: "create NAME TYPE [family inet|inet6] [range
 * A-B] [timeout N] ..." and "add NAME ENTRY [timeout N] [comment ...]"
 * lines, for the types hash:ip, hash:net, hash:ip,port and bitmap:port.
 * All or nothing; errors name FILE:LINE:COL and the word.
 * @param text   NUL-terminated text
 * @param name   file name for errors (may be NULL)
 * @param now_s  wall-clock seconds now: entry timeouts run from here
 * @param err    if not NULL, receives the error
 * @return the ipsets (one reference, rule_ipsets_free()), or NULL with
 *   errno EINVAL (@p err filled) or ENOMEM.
 * Context: main lcore.
 */
struct rule_ipsets *rule_ipsets_parse(const char *text, const char *name, uint64_t now_s,
	struct rule_error *err);

/**
 * Load an ipset file (rule_ipsets_parse()).
 * @return the ipsets, or NULL with errno: EINVAL, ENOMEM, or the error of
 *   reading the file.
 * Context: main lcore.
 */
struct rule_ipsets *rule_ipsets_load(const char *path, uint64_t now_s, struct rule_error *err);

/** Number of sets. @param sets the ipsets (NULL: 0). Context: any. */
unsigned int rule_ipsets_count(const struct rule_ipsets *sets);

/** Name of set @p i. @return it, or NULL out of range. Context: any. */
const char *rule_ipsets_name(const struct rule_ipsets *sets, unsigned int i);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_LANG_H */
