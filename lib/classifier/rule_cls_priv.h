/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier private: the layout of a compiled classifier, shared by its
 * builder (rule_cls_build.c, with the term algebra in rule_cls_term.c) and
 * its evaluator (rule_cls.c). Not for other libraries: the public face is
 * classifier.h.
 *
 * A rule set compiles into programs, one per (table, base chain, family).
 * A program is the base chain with every JUMP/GOTO target inlined: a flat,
 * first-match list of entries, each a conjunction of field sets (a term:
 * protocol, addresses, ports, input and output port, the meta byte) and an
 * outcome: a result (a terminal rule), "resume at entry X" (a RETURN, or
 * the end of a GOTO target, skipping the rest of an inlined chain), an
 * action (a non-terminal rule: LOG, MARK, ...; the walk goes on after it),
 * or a guard (a jump or goto: the walk notes that it took it, for its
 * counter; one whose rule has extension matches checks them once, the
 * inlined block skipped if they fail). Entries are cut into segments at
 * every resume target, so a segment is always searched from its start; up
 * to 16 consecutive segments form a bank: one rte_acl context whose
 * categories are the segments (one trie walk answers "first match in each
 * segment"), or, for a handful of entries, a linear scan. Entries that an
 * earlier entry covers are left out of the ACL (shadowed rules); entries
 * too wide to expand go in relaxed, and entries with matches rte_acl
 * cannot hold (extension matches: marks, TCP flags, sets, meters, ...) go
 * in with their 7-tuple part: both are checked exactly after a hit, which
 * ends their segment, as actions and guards do.
 *
 * Results are identical to the reference evaluator's: same hook selection,
 * same first match, same policy, rule id, channel and NAT target.
 */
#ifndef GUFC_RULE_CLS_PRIV_H
#define GUFC_RULE_CLS_PRIV_H

#include <assert.h>
#include <stdint.h>

#include <rte_acl.h>

#include "classifier.h"

/** Keys classified per rte_acl_classify() call. */
#define CLS_BURST 32
/** Segments per bank (rte_acl categories). */
#define CLS_BANK_SEGS RTE_ACL_MAX_CATEGORIES
/** Banks with at most this many entries are scanned linearly, without rte_acl. */
#define CLS_LINEAR_MAX 4
/**
 * Most ACL rules one entry may expand to (the cross product of its field
 * sets); wider entries put a relaxed form in the ACL and are re-checked
 * exactly after a hit.
 */
#define CLS_EXPAND_MAX 512
/** Entries of a segment tried as cover of later ones (shadowed entries are left out). */
#define CLS_COVER_MAX 256
/** Most entries in one program (priorities and userdata must fit). */
#define CLS_ENTRIES_MAX (1u << 22)
/** Most ACL rules in one classifier. */
#define CLS_ACL_RULES_MAX (1u << 23)

/** No entry decided: the end of the base chain (its policy). */
#define CLS_END UINT32_MAX

/*
 * The meta byte: conntrack state, local bits and "no ports", matched as
 * one rte_acl bitmask field. A key carries exactly one state bit (or none
 * for RULE_CT_IGNORE), so "state in S" is "no bit outside S" and
 * "state not in S" is "no bit inside S": one (value, mask) pair each.
 */
#define CLS_META_CT	   0x0f /**< RULE_CT_* bits, as they are */
#define CLS_META_UNTRACKED 0x10 /**< ctstate 0 */
#define CLS_META_CT_ALL	   0x1f
#define CLS_META_SRC_LOCAL 0x20
#define CLS_META_DST_LOCAL 0x40
#define CLS_META_NOPORTS   0x80

/** rte_acl input for IPv4 keys (multi-byte fields in network order, ports in host order). */
struct cls_in4 {
	uint8_t proto; /**< field 0 (the 1-byte first field) */
	uint8_t unused[3];
	uint32_t src;	/**< input group 1 */
	uint32_t dst;	/**< input group 2 */
	uint16_t sport; /**< input group 3 */
	uint16_t dport;
	uint16_t inp;	/**< input group 4: input port, */
	uint16_t outp;	/**< output port (RULE_IF_NONE: none) */
	uint8_t meta;	/**< input group 5: meta and 3 wildcard bytes */
	uint8_t pad[3];
};
static_assert(sizeof(struct cls_in4) == 24, "cls_in4 layout");

/** rte_acl input for IPv6 keys. */
struct cls_in6 {
	uint8_t proto;
	uint8_t unused[3];
	uint8_t src[16]; /**< input groups 1-4 */
	uint8_t dst[16]; /**< input groups 5-8 */
	uint16_t sport;	 /**< input group 9 */
	uint16_t dport;
	uint16_t inp;	 /**< input group 10 */
	uint16_t outp;
	uint8_t meta; /**< input group 11 */
	uint8_t pad[3];
};
static_assert(sizeof(struct cls_in6) == 48, "cls_in6 layout");

/** One key as the classifier reads it. */
union cls_in {
	struct cls_in4 v4;
	struct cls_in6 v6;
};

/** Family index of programs: 0 = IPv4, 1 = IPv6. */
#define CLS_F4	 0
#define CLS_F6	 1
#define CLS_NFAM 2

/** An inclusive range of a port or protocol field, host order. */
struct cls_rng {
	uint16_t lo;
	uint16_t hi;
};

/** An address prefix; bits past @c len are zero. */
struct cls_pfx {
	uint8_t a[16]; /**< network order; IPv4 in bytes 0..3 */
	uint8_t len;
};

/**
 * An entry's exact condition, as the evaluator checks it (linear banks,
 * relaxed entries): the meta byte under a mask, and for each other field a
 * union of ranges or prefixes, stored in the program's pools.
 */
struct cls_rterm {
	uint8_t meta_val;
	uint8_t meta_mask;
	uint16_t n_proto;
	uint16_t n_sport;
	uint16_t n_dport;
	uint16_t n_inp;
	uint16_t n_outp;
	uint32_t rng; /**< first range in the pool: proto, sport, dport, inp, outp */
	uint32_t n_src;
	uint32_t n_dst;
	uint32_t pfx; /**< first prefix in the pool: src, then dst */
};

/** Entry kinds. */
enum cls_kind {
	CLS_K_RESULT, /**< terminal: @c arg is the result index */
	CLS_K_RESUME, /**< @c arg is the segment to go on with (n_seg: the end) */
	CLS_K_ACT,    /**< rule_apply() the rule: on with the next segment, or (synproxy)
			   decided: @c arg is the result index */
	CLS_K_GUARD,  /**< a jump or goto: on with the next segment (the inlined chain),
			   noted; with extension matches, checked here once: if they
			   fail, on at segment @c arg */
};

/** One entry of a program. */
struct cls_entry {
	uint8_t kind;  /**< enum cls_kind */
	uint8_t check; /**< relaxed in the ACL: check @c term exactly after a hit */
	uint8_t ext;   /**< check the rule's extension matches after a hit */
	uint8_t dirty; /**< ACT: the action changes what the ACL reads (ctstate) */
	uint32_t seg;  /**< its segment */
	uint32_t arg;
	uint32_t term; /**< index in cls_prog::terms, or UINT32_MAX */
	uint32_t rule; /**< index in rule_cls::rules (ext, ACT, GUARD), or UINT32_MAX */
	uint32_t note; /**< GUARD (a jump or goto) passed, RESUME (a RETURN) taken: the
			    rule id the walk notes (rule_eval_note()), or RULE_ID_NONE */
};

/** Up to CLS_BANK_SEGS consecutive segments, searched together (bank i: from i * CLS_BANK_SEGS). */
struct cls_bank {
	uint32_t seg_first;
	uint32_t n_seg;
	uint32_t n_cat;		  /**< categories: 1 or a multiple of 4 >= n_seg */
	uint32_t n_ctx;		  /**< rte_acl contexts (0: linear bank) */
	struct rte_acl_ctx **ctx; /**< usually one; more when rte_acl could not take all rules */
	uint32_t first;		  /**< linear bank: its entries first .. first + n - 1 */
	uint32_t n;
};

/** A compiled base chain for one family. */
struct cls_prog {
	uint8_t table;	/**< enum rule_table */
	uint8_t fam;	/**< CLS_F4 / CLS_F6 */
	uint8_t policy; /**< enum rule_policy of the base chain */
	uint32_t n_entries;
	uint32_t n_seg;
	uint32_t n_banks;
	struct cls_entry *entries;
	struct cls_bank *banks;
	struct cls_rterm *terms;
	struct cls_rng *rng;
	struct cls_pfx *pfx;
	const struct rule_chain *base; /**< build time only: not valid afterwards */
};

/**
 * The compiled classifier. Built once by rule_cls_build(), never changed
 * afterwards, freed by rule_cls_free(): any thread may read it meanwhile.
 */
struct rule_cls {
	/** Program of each family at each hook; NULL: the hook enters no chain. */
	const struct cls_prog *hook[RULE_TABLE__COUNT][RULE_HOOK__COUNT][CLS_NFAM];
	uint32_t n_progs;
	struct cls_prog *progs;
	uint32_t n_results;
	struct rule_term *results; /**< terminal rules; tgt points into @c rules */
	uint32_t n_rules;
	struct rule *rules;        /**< copies of the rules entries check or run */
	struct rule_ipsets *sets;  /**< the set's ipsets (a reference), or NULL */
	struct rule_ifnames ifn;   /**< the set's port names (a copy: hash:net,iface members) */
	uint32_t pkt_needs;        /**< RULE_PKT_NEED_* of the set's rules */
	uint32_t key_reads;        /**< RULE_READS_* of the set's rules */
	bool reads_ports;          /**< a rule may read the input or output port */
	/* Key projection (rule_cls_proj.c): interval starts, sorted, [0] == 0. */
	/* [0] source, [1] destination */
	uint16_t *proj_port[2];    /**< per port (host order): the class of its interval among
				    the rules' --sport / --dport ranges (65536 entries) */
	uint32_t *proj_addr4[2];   /**< of the IPv4 rules' -s / -d prefixes (host order) */
	uint32_t *proj_addr4_cls[2]; /**< per interval of proj_addr4: its class */
	uint32_t n_proj_addr4[2];
	bool proj_addr4_full[2];   /**< an IPv4 address no interval holds: keep it */
	bool proj_addr6[2];        /**< an IPv6 rule reads the address: keep it */
	/**
	 * Per projected field (PROJ_F_*: source port, destination port,
	 * IPv4 source, IPv4 destination): the class of the values no rule's
	 * range holds, UINT32_MAX where there is no such class (or the
	 * classes fell back to one an interval).
	 */
	uint32_t proj_none[4];
	/**
	 * Per set of fields in their proj_none class (a key's PROJ_F_* bits):
	 * the fields some rule reads that no field of the set makes fail.
	 * The key's other fields decide nothing and project to proj_none.
	 */
	uint8_t proj_keep[16];
	/** The fields without a proj_none class: projected to their class always. */
	uint8_t proj_fixed;
	struct rule_cls_stats stats;
};

/*
 * Build-time terms (rule_cls_term.c)
 */

/** Sorted, disjoint ranges; n == 0 is the empty set. */
struct cls_rlist {
	uint32_t n;
	struct cls_rng *v;
};

/** Disjoint prefixes; n == 0 is the empty set. */
struct cls_plist {
	uint32_t n;
	struct cls_pfx *v;
};

/** The condition of a flattened entry (see rule_cls_term.c). */
struct cls_term {
	uint8_t meta_val;
	uint8_t meta_mask;
	struct cls_rlist proto;
	struct cls_rlist sport;
	struct cls_rlist dport;
	struct cls_rlist inp;
	struct cls_rlist outp;
	struct cls_plist src;
	struct cls_plist dst;
};

/** Fields an entry may give up (relax to "any") in the ACL: bits of rule_cls_term_width(). */
#define RELAX_PROTO 0x01
#define RELAX_SRC   0x02
#define RELAX_DST   0x04
#define RELAX_SPORT 0x08
#define RELAX_DPORT 0x10
#define RELAX_INP   0x20
#define RELAX_OUTP  0x40

/** Free a term's lists (the term is left empty). */
void rule_cls_term_free(struct cls_term *t);

/**
 * The condition of rule @p r on keys of family @p fam (CLS_F4, CLS_F6),
 * interfaces by the port names of @p s; extension matches and ctstate
 * SNAT/DNAT are left out (the entry checks them after a hit).
 * @return 1, 0 if it matches no such key (@p t left empty), -ENOMEM.
 */
int rule_cls_term_of_rule(const struct rule_set *s, const struct rule *r, uint8_t fam,
	struct cls_term *t);

/**
 * @p a becomes a AND b.
 * @return 1, 0 if that is empty (@p a must still be freed), -ENOMEM.
 */
int rule_cls_term_and(struct cls_term *a, const struct cls_term *b);

/** ACL rules the term expands to, the fields in @p relax (RELAX_*) counted as "any". */
uint64_t rule_cls_term_width(const struct cls_term *t, unsigned int relax);

/** Fields (RELAX_*) to relax, widest first, so the term expands to <= CLS_EXPAND_MAX rules. */
unsigned int rule_cls_term_relax(const struct cls_term *t);

/** Does every key that matches @p x match @p e? */
bool rule_cls_term_covers(const struct cls_term *e, const struct cls_term *x);

/** How many of proto, src, dst, sport, dport, inp, outp the term restricts. */
unsigned int rule_cls_term_narrow(const struct cls_term *t);

/*
 * rte_acl (rule_cls_acl.c)
 */

/**
 * Grow the malloc'ed array *@p p of *@p cap elements of @p size bytes to
 * hold @p need (doubling, 16 at least). @return 0 or -ENOMEM (*@p p kept).
 */
int rule_cls_grow(void **p, uint32_t *cap, uint32_t need, size_t size);

/** What building rte_acl contexts needs and counts. */
struct cls_acl_env {
	char name[9];       /**< context name prefix */
	int socket;         /**< NUMA socket */
	uint64_t acl_rules; /**< ACL rules so far */
	uint64_t mem;       /**< DPDK heap taken so far */
	uint32_t n_ctx;     /**< contexts so far */
};

/** rte_zmalloc_socket() for the classifier, counted in @p e->mem. */
void *rule_cls_rt_alloc(struct cls_acl_env *e, size_t size);

/**
 * Expand the entries of bank @p bk of program @p p into rte_acl contexts.
 * @param t      per entry of the program: its term, NULL if left out
 * @param relax  per entry: RELAX_* fields given up
 * @return 0, -E2BIG (too many ACL rules), -ENOMEM, or an rte_acl error.
 */
int rule_cls_bank_acl(struct cls_acl_env *e, struct cls_prog *p, struct cls_bank *bk,
	const struct cls_term *const t[], const uint8_t relax[]);

/*
 * Run time (rule_cls.c)
 */

/** Does run-time term @p t of program @p p match the key @p in? */
bool rule_cls_term_match(
	const struct cls_prog *p, const struct cls_rterm *t, const union cls_in *in);

/* rule_cls_proj.c */
int cls_proj_build(struct rule_cls *c, const struct rule_set *s);
void cls_proj_free(struct rule_cls *c);

#endif /* GUFC_RULE_CLS_PRIV_H */
