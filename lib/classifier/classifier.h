/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier — the slow path's compiled classifier (prefix rule_cls_).
 *
 * What it is: a rule set (lib/rules) compiled onto rte_acl that gives
 * exactly the results of the reference evaluator: rule_ref_eval() for a
 * stage (every table, actions, dependencies; rule_eval.h), and the
 * key-only rule_ref_filter() and rule_ref_nat(): same hook selection, same
 * first match, same policy, rule id, channel, NAT target, actions run and
 * fields depended on. JUMP/GOTO targets are inlined, so a set without
 * RETURNs costs one trie walk per hook; negations, port lists, interface
 * patterns and ctstate sets are expanded into ACL rules; what rte_acl
 * cannot hold (extension matches: marks, TCP flags, sets, meters, ...) is
 * checked after a hit with the reference evaluator's own functions
 * (rule_match_ext(), rule_apply()). Interface patterns are compiled
 * against the set's port names (rule_set_ports()): set them before
 * building. The layout of a compiled classifier is private
 * (rule_cls_priv.h).
 *
 * Where it sits: above lib/rules (it reads a struct rule_set through
 * rules.h only) and below lib/engine, whose commits install a classifier
 * built from the current set (rule_engine_cls_wanted() / _cls_ready()) and
 * whose overlay sends keys touched by newer changes to the reference
 * evaluator until the next build. Needs EAL (rte_acl, rte_malloc), so it is
 * not part of the pure build.
 *
 * Ownership and threads: built off the fast path (seconds for 10k+ rules),
 * by any thread, EAL or not (a background pthread is fine). A built
 * classifier is immutable: any number of threads may classify with it
 * until rule_cls_free(), which its owner calls once no thread reads it
 * (the rules engine frees the one it replaces: only the rules lcore
 * classifies). It keeps no pointer into the rule set it came from.
 */
#ifndef GUFC_CLASSIFIER_H
#define GUFC_CLASSIFIER_H

#include <stdint.h>

#include "flowcache.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rule_cls;

/** Figures of a compiled classifier, see rule_cls_stats(). */
struct rule_cls_stats {
	uint32_t n_programs;  /**< compiled (table, base chain, family) triples */
	uint32_t n_contexts;  /**< rte_acl contexts */
	uint32_t n_entries;   /**< rules after inlining chains, all programs */
	uint32_t n_segments;  /**< entry points (program starts and RETURN targets) */
	uint32_t n_checked;   /**< entries checked or run after an ACL hit (too wide,
				   extension matches, actions, guards) */
	uint32_t n_shadowed;  /**< entries left out: an earlier entry covers them */
	uint64_t n_acl_rules; /**< ACL rules after expanding negations and lists */
	uint64_t mem_bytes;   /**< DPDK heap held; approximate if other threads allocate meanwhile */
	uint64_t build_ns;    /**< time rule_cls_build() took */
};

/**
 * Compile a rule set. May be called from any thread, EAL or not (a
 * background pthread is fine); takes seconds for 10k+ rules.
 *
 * @param s       the set (not modified, not referenced afterwards)
 * @param name    a name for the rte_acl contexts (the first 8 characters
 *   are used; a unique suffix is added)
 * @param socket  NUMA socket for the run-time structures, or SOCKET_ID_ANY
 * @return the classifier, or NULL with rte_errno: EINVAL (NULL argument,
 *   or a set that rule_set_rule_add() would not have produced), ELOOP
 *   (same), E2BIG (inlining chains gives more than 4M entries for one base
 *   chain, or expansion more than 8M ACL rules), ENOMEM, or an rte_acl
 *   error.
 * Context: any thread (not the fast path).
 */
struct rule_cls *rule_cls_build(const struct rule_set *s, const char *name, int socket);

/**
 * Free a classifier and its rte_acl contexts.
 * @param c  the classifier; NULL is accepted
 * Context: its owner, once no thread reads it (any thread, EAL or not).
 */
void rule_cls_free(struct rule_cls *c);

/**
 * Evaluate a stage for a burst of packet contexts: for each, exactly what
 * rule_ref_eval() gives for the set @p c was built from (verdict, rule,
 * NAT decision, actions, dependencies; the contexts updated the same way).
 * One trie walk per bank of each program for the whole burst.
 *
 * @param c      the classifier
 * @param stage  enum rule_stage
 * @param pk     @p n packet contexts (key with local bits), updated
 * @param n      number of packets (0 is fine)
 * @param pv     providers of stateful matches, or NULL
 * @param res    receives @p n results (their action records point into @p c)
 * @return @p n; -EINVAL (NULL argument, a key of no family, a bad ctstate
 *   or stage) with nothing written; a provider's error.
 * Context: any thread.
 */
int rule_cls_eval_bulk(const struct rule_cls *c, enum rule_stage stage, struct rule_pkt *const pk[],
	unsigned int n, const struct rule_providers *pv, struct rule_eval res[]);

/**
 * rule_cls_eval_bulk() for one packet.
 * @param c      the classifier
 * @param stage  enum rule_stage
 * @param p      the packet context, updated
 * @param pv     providers, or NULL
 * @param res    receives the result
 * @return 0; -EINVAL, or a provider's error.
 * Context: any thread.
 */
int rule_cls_eval(const struct rule_cls *c, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res);

/**
 * Filter verdicts for a burst of keys: for each, exactly what
 * rule_ref_filter() gives for the set @p c was built from (verdict, hook,
 * rule id or RULE_ID_POLICY, channel). One trie walk per family and hook
 * for the whole burst; more only past a RETURN.
 *
 * @param c        the classifier
 * @param keys     @p n keys (IPv4 or IPv6, network order, local bits set)
 * @param ctstate  per key: 0 (untracked), RULE_CT_* bits, or
 *   RULE_CT_IGNORE; NULL means 0 for all
 * @param kflags   per key: RULE_KEY_F_* flags; NULL means 0 for all
 * @param n        number of keys (0 is fine)
 * @param res      receives @p n results
 * @return @p n, or -EINVAL (NULL argument, a key of no family, a ctstate
 *   not listed above) with nothing written.
 * Context: any thread.
 */
int rule_cls_filter_bulk(const struct rule_cls *c, const struct fc_key *const keys[],
	const uint8_t ctstate[], const uint8_t kflags[], unsigned int n, struct rule_result res[]);

/**
 * NAT decisions of one stage for a burst of keys: for each, exactly what
 * rule_ref_nat() gives (action, hook, rule id, RULE_ID_POLICY or
 * RULE_ID_NONE, target).
 *
 * @param c        the classifier
 * @param stage    RULE_NAT_DST or RULE_NAT_SRC
 * @param keys     as rule_cls_filter_bulk()
 * @param ctstate  as rule_cls_filter_bulk()
 * @param kflags   as rule_cls_filter_bulk()
 * @param n        number of keys
 * @param res      receives @p n results
 * @return @p n, or -EINVAL (as rule_cls_filter_bulk(), or a bad stage).
 * Context: any thread.
 */
int rule_cls_nat_bulk(const struct rule_cls *c, enum rule_nat_stage stage,
	const struct fc_key *const keys[], const uint8_t ctstate[], const uint8_t kflags[],
	unsigned int n, struct rule_nat_result res[]);

/**
 * rule_cls_filter_bulk() for one key.
 * @param c        the classifier
 * @param k        the key
 * @param ctstate  0, one RULE_CT_* bit or RULE_CT_IGNORE
 * @param kflags   RULE_KEY_F_* flags
 * @param res      receives the result
 * @return 0, or -EINVAL.
 * Context: any thread.
 */
int rule_cls_filter(const struct rule_cls *c, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res);

/**
 * rule_cls_nat_bulk() for one key.
 * @param c        the classifier
 * @param stage    RULE_NAT_DST or RULE_NAT_SRC
 * @param k        the key
 * @param ctstate  0, one RULE_CT_* bit or RULE_CT_IGNORE
 * @param kflags   RULE_KEY_F_* flags
 * @param res      receives the result
 * @return 0, or -EINVAL.
 * Context: any thread.
 */
int rule_cls_nat(const struct rule_cls *c, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res);

/**
 * What a packet context must hold for the rules of the set @p c was built
 * from (rule_set_pkt_needs()).
 * @param c  the classifier, or NULL (RULE_PKT_NEED_ALL)
 * @return RULE_PKT_NEED_* bits.
 * Context: any thread.
 */
uint32_t rule_cls_pkt_needs(const struct rule_cls *c);

/**
 * Which parts of a packet's source the rules of the set @p c was built
 * from may read (rule_set_key_reads()): contexts that differ only in the
 * others get the same results from rule_cls_eval().
 * @param c  the classifier, or NULL (RULE_READS_ALL)
 * @return RULE_READS_* bits.
 * Context: any thread.
 */
uint32_t rule_cls_key_reads(const struct rule_cls *c);

/**
 * May a rule of the set @p c was built from read a packet's input or
 * output port (-i, -o, or an extension match that may read anything of
 * the packet's source, RULE_READS_EXT: rpfilter reads the input port, a
 * hash:net,iface set the input or output port's name)?
 * When not, two contexts that differ only in their ports get the same
 * results from rule_cls_eval().
 * @param c  the classifier, or NULL (true)
 * @return true if one may.
 * Context: any thread.
 */
bool rule_cls_reads_ports(const struct rule_cls *c);

/**
 * Project a key onto what the rules of @p c tell apart: the source port,
 * and the IPv4 source address, become the number of their interval among
 * the rules' --sport ranges and -s prefixes (so two keys with the same
 * projection match every rule's -s and --sport alike); an IPv6 source
 * address no IPv6 rule reads is cleared. A field only rules read that
 * another of the key's fields makes fail (a value in none of their
 * ranges) projects as a value no rule names. Two contexts that differ
 * only in their keys' projected fields, and in the connection tuples
 * (ct_orig, ct_repl), get the same results from rule_cls_eval().
 * @param c  the classifier
 * @param k  the key, projected in place when the function returns true
 * @return false (nothing changed) for a set with an extension match that
 *   may read the source (RULE_READS_EXT), a key of no family, or NULL.
 * Context: any thread.
 */
bool rule_cls_key_project(const struct rule_cls *c, struct fc_key *k);

/**
 * Figures of a classifier.
 * @param c   the classifier
 * @param st  receives the figures
 * @return 0, or -EINVAL (NULL argument).
 * Context: any thread.
 */
int rule_cls_stats(const struct rule_cls *c, struct rule_cls_stats *st);


#ifdef __cplusplus
}
#endif

#endif /* GUFC_CLASSIFIER_H */
