/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: string predicates, part of engine.h's manual (included at
 * its end) — the per-packet check of "-m string" on the fast path.
 *
 * A flow whose walk reaches string matches (and no other per-packet
 * field but the header fields of a class, no meter or stateful match) is
 * cached with every outcome they can
 * give: the engine walks it with the searches' answers assigned one by
 * one (eng_str_decide()), which makes a small decision tree (a node per
 * search asked, at most RULE_PRED_LEAVES outcomes), and the entry gets a
 * packet program (engine_pktact.h) whose predicate names the tree
 * (rule_pktprog::pred). The RX lcore searches each packet's bytes as the
 * tree asks (rule_engine_pred_leaf()): the outcome gives the verdict, the
 * deciding rule and the program of the actions. Several string rules in a
 * row (a blocklist of patterns) are such a tree. The outcomes' deciding
 * rules and traces are in the tree: the entry counts every packet for
 * outcome 0 (an accepting one, where one accepts), the tree counts those
 * of the others (rule_engine_pred_count()), and the rule counters move
 * those to their outcome's rules when they are read. A walk with a search
 * and a meter, or more outcomes than a tree holds, is decided per packet
 * on the slow path (struct rule_engine_stats::pred_per_packet). Walks
 * that read header fields of a class (TTL, TOS, length, MSS, flags) are
 * made with the packet's; the entry is classed over the fields any of
 * them read (engine_pktclass.c: the class in the predicate's program), so
 * the tree holds for the packets of its class.
 *
 * u32 and bpf matches are such predicates too: a tree node names a
 * search or, with RULE_PRED_U32, the tests of a u32 match (decoded once,
 * rule_engine_u32_match() runs them on the packet) or, with RULE_PRED_BPF,
 * a bpf match's program (decoded once, rule_bpf_run() runs it).
 *
 * Searches are interned by content (pattern, case, window; negation is the
 * walks' business), u32 tests likewise, trees likewise, in tables the rules lcore fills and
 * the RX lcores read; they start over with the programs (a commit that
 * numbers the rules anew).
 */
#ifndef GUFC_ENGINE_STRPRED_H
#define GUFC_ENGINE_STRPRED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "rule_eval.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most string searches of an engine; rule_pktprog::pred names one plus 1. */
#define RULE_STRPREDS_MAX 1024

/**
 * One search: a pattern (folded by rule_str_fold() with @c icase) between
 * two offsets of the IP header, with its Horspool shift table. Immutable
 * once a program names it. Owned by the engine (rules lcore writes it
 * before any program names it; RX lcores read it).
 */
struct rule_strpred {
	uint16_t from, to;  /**< the window: a match lies wholly within [from, to) */
	uint8_t len;        /**< pattern bytes, 1..RULE_STR_MAX */
	uint8_t icase;      /**< fold letters (pattern folded already) */
	uint8_t pad[2];
	uint8_t pat[RULE_STR_MAX];
	uint8_t shift[256]; /**< Horspool: how far a window ending in byte b moves */
};

/** Most outcomes of a predicate (searches asked: at most one less). */
#define RULE_PRED_LEAVES 8
/** Most predicates (trees) of an engine; rule_pktprog::pred names one plus 1. */
#define RULE_PREDS_MAX 1024
/** Most u32 tests of an engine (view.u32s). */
#define RULE_U32PREDS_MAX 256
/** A tree node's @c str with this bit names u32 tests (view.u32s), else a search. */
#define RULE_PRED_U32 0x8000
/** ... with this bit a bpf program (view.bpfs). */
#define RULE_PRED_BPF 0x4000
/** The kind bits of a tree node's @c str. */
#define RULE_PRED_KIND (RULE_PRED_U32 | RULE_PRED_BPF)
/**
 * A tree node's @c str with this bit reads the packet as the hooks after
 * PREROUTING see it (FORWARD, INPUT, POSTROUTING, and OUTPUT's filter):
 * the header view of rule_engine_l3_view(), the router's TTL decrement
 * and the destination NAT in it, as Linux's packet is there.
 */
#define RULE_PRED_VIEW 0x2000
/** The index bits of a tree node's @c str (view.strs, view.u32s or view.bpfs). */
#define RULE_PRED_INDEX (RULE_PRED_VIEW - 1)
/** Longest datagram a header view holds: the largest MTU (a longer one's view is the slow path's). */
#define RULE_L3VIEW_MAX 9600
/** Most bpf programs of an engine (view.bpfs). */
#define RULE_BPFPREDS_MAX 256
/** A tree node's child: a node index, or RULE_PRED_LEAF | a leaf index. */
#define RULE_PRED_LEAF 0x80

/** One outcome of a predicate. */
struct rule_pred_leaf {
	uint32_t rule;   /**< its deciding rule (counter id, as fc_action::rule_id) */
	uint32_t trace;  /**< the rules it passed (engine_trace.c; 0: none) */
	uint16_t prog;   /**< its actions' program + 1 (engine_pktact.h), 0: none */
	uint8_t verdict; /**< FC_VERDICT_ACCEPT or FC_VERDICT_DROP */
	uint8_t pad;
};

/**
 * A predicate: a decision tree of searches, node 0 first; a node's child
 * [1] when its search finds the pattern, [0] when not. Leaf 0 is the
 * entry's own outcome (its verdict, rule and trace). Immutable once a
 * program names it; owned by the engine (rules lcore writes, RX lcores
 * read).
 */
struct rule_pred {
	uint8_t n_nodes, n_leaves;
	uint8_t views; /**< 1: a node reads the header view (RULE_PRED_VIEW) */
	uint8_t pad;
	struct {
		uint16_t str;   /**< the search (view.strs), or RULE_PRED_U32 | u32 tests */
		uint8_t kid[2]; /**< [0] not found, [1] found */
	} node[RULE_PRED_LEAVES - 1];
	struct rule_pred_leaf leaf[RULE_PRED_LEAVES];
};

/** A predicate's packets per outcome but 0 (those the entry counts for another). */
struct rule_pred_ctr {
	uint64_t packets[RULE_PRED_LEAVES];
	uint64_t bytes[RULE_PRED_LEAVES];
} __rte_cache_aligned;

/**
 * Make the search of a string match.
 * @param sp     receives it (every byte written: searches compare with memcmp)
 * @param st     the match's pattern and window
 * @param icase  --icase
 * Context: any.
 */
static inline void
rule_strpred_init(struct rule_strpred *sp, const struct rule_x_string *st, bool icase)
{
	uint8_t shift[256];

	memset(sp, 0, sizeof(*sp));
	sp->from = st->from;
	sp->to = st->to;
	sp->len = st->len <= RULE_STR_MAX ? st->len : RULE_STR_MAX;
	sp->icase = icase;
	for (unsigned int i = 0; i < sp->len; i++)
		sp->pat[i] = icase ? rule_str_fold(st->pat[i]) : st->pat[i];
	/* Horspool: a window ending in byte b moves to put b's last place in the pattern there. */
	memset(shift, sp->len, sizeof(shift));
	for (unsigned int i = 0; i + 1 < sp->len; i++)
		shift[sp->pat[i]] = (uint8_t)(sp->len - 1 - i);
	for (unsigned int b = 0; b < 256; b++)
		sp->shift[b] = icase ? shift[rule_str_fold((uint8_t)b)] : shift[b];
}

/**
 * Search a packet's bytes as the string match does (rule_str_find()'s
 * answer, by Boyer-Moore-Horspool).
 * @param sp   the search
 * @param l3   the IP header's first byte
 * @param len  bytes of the datagram at @p l3
 * @return true if the pattern is there.
 * Context: any lcore (lock-free).
 */
static inline bool
rule_engine_str_find(const struct rule_strpred *sp, const uint8_t *l3, uint32_t len)
{
	uint32_t end = len < sp->to ? len : sp->to, m = sp->len, i;

	if (m == 0 || sp->from > end || end - sp->from < m)
		return false;
	for (i = sp->from + m - 1; i < end; i += sp->shift[l3[i]]) {
		uint32_t j = 0;

		if (sp->icase)
			while (j < m && rule_str_fold(l3[i - j]) == sp->pat[m - 1 - j])
				j++;
		else
			while (j < m && l3[i - j] == sp->pat[m - 1 - j])
				j++;
		if (j == m)
			return true;
	}
	return false;
}

static inline uint32_t
rule_engine_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/**
 * Run a u32 match's tests on a packet (rule_u32_match()'s answer, from
 * the decoded tests).
 * @param u    the tests (rule_u32_decode())
 * @param l3   the IP header's first byte
 * @param len  bytes of the datagram at @p l3
 * @return true if every test passes.
 * Context: any lcore (lock-free).
 */
static inline bool
rule_engine_u32_match(const struct rule_u32_prog *u, const uint8_t *l3, uint32_t len)
{
	for (unsigned int n = 0; n < u->ntests; n++) {
		const struct rule_u32_test *t = &u->t[n];
		uint32_t pos = t->num[0], at = 0, val;
		unsigned int j;

		if (len < 4 || pos > len - 4)
			return false;
		val = rule_engine_be32(l3 + pos);
		for (j = 1; j < t->nnums; j++) {
			uint32_t num = t->num[j];

			switch (t->op[j]) {
			case RULE_U32_AND:
				val &= num;
				break;
			case RULE_U32_SHL:
				val <<= num & 31;
				break;
			case RULE_U32_SHR:
				val >>= num & 31;
				break;
			default:
				if (at + val < at)
					return false;
				at += val;
				if (at > len || len - at < 4 || num > len - at - 4)
					return false;
				val = rule_engine_be32(l3 + at + num);
				break;
			}
		}
		for (j = 0; j < t->nvals; j++)
			if (t->lo[j] <= val && val <= t->hi[j])
				break;
		if (j == t->nvals)
			return false;
	}
	return true;
}

/* Checksum @p ck (2 bytes) after a 16-bit word changed from @p old to @p new (host order). */
static inline void
rule_engine_csum_fix(uint8_t *ck, uint16_t old, uint16_t new_w)
{
	uint32_t s = (uint16_t)~((uint32_t)ck[0] << 8 | ck[1]);

	s += (uint16_t)~old;
	s += new_w;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	ck[0] = (uint8_t)(s >> 8);
	ck[1] = (uint8_t)s;
}

/**
 * The router's decrement in a header view: the TTL (hop limit) one less
 * (not below 0), the IPv4 header checksum fixed, as Linux's ip_forward()
 * leaves the packet for FORWARD and POSTROUTING.
 * @param l3   the view (a copy of the datagram from its IP header)
 * @param len  its bytes (at least the fixed IP header)
 * @param v4   IPv4, else IPv6
 * Context: any.
 */
static inline void
rule_engine_view_ttl_dec(uint8_t *l3, uint32_t len, bool v4)
{
	uint16_t old;

	if (len < (v4 ? 20u : 40u))
		return;
	if (!v4) {
		if (l3[7] != 0)
			l3[7]--;
		return;
	}
	if (l3[8] == 0)
		return;
	old = (uint16_t)(l3[8] << 8 | l3[9]);
	l3[8]--;
	rule_engine_csum_fix(l3 + 10, old, (uint16_t)(l3[8] << 8 | l3[9]));
}

/**
 * A destination NAT in a header view: destination address @p dst and,
 * with @p port, TCP/UDP destination port @p dport written in, the IPv4
 * header and the TCP, UDP (a zero UDP checksum stays zero) and ICMPv6
 * checksums fixed, as Linux's packet is after a PREROUTING (or OUTPUT)
 * DNAT. Other protocols get the address only; SCTP (a CRC) is left alone.
 * @param l3     the view (a copy of the datagram from its IP header)
 * @param len    its bytes
 * @param v4     IPv4, else IPv6
 * @param l4     the L4 header's offset in @p l3 (0: none, a later fragment)
 * @param proto  the L4 protocol
 * @param dst    the new destination address (4 or 16 bytes)
 * @param port   write @p dport too
 * @param dport  the new destination port, network order
 * Context: any.
 */
static inline void
rule_engine_view_dst(uint8_t *l3, uint32_t len, bool v4, uint32_t l4, uint8_t proto,
	const uint8_t *dst, bool port, uint16_t dport)
{
	uint32_t at = v4 ? 16 : 24, al = v4 ? 4 : 16;
	uint8_t *ck = NULL;

	if (proto == 132 || len < at + al)
		return;
	if (l4 != 0 && proto == 6 && l4 + 18 <= len)
		ck = l3 + l4 + 16;
	else if (l4 != 0 && proto == 17 && l4 + 8 <= len && (l3[l4 + 6] | l3[l4 + 7]) != 0)
		ck = l3 + l4 + 6;
	else if (l4 != 0 && proto == 58 && l4 + 4 <= len)
		ck = l3 + l4 + 2;
	for (uint32_t w = 0; w < al; w += 2) {
		uint16_t old = (uint16_t)(l3[at + w] << 8 | l3[at + w + 1]);
		uint16_t nw = (uint16_t)(dst[w] << 8 | dst[w + 1]);

		if (old == nw)
			continue;
		l3[at + w] = dst[w];
		l3[at + w + 1] = dst[w + 1];
		if (v4)
			rule_engine_csum_fix(l3 + 10, old, nw);
		if (ck != NULL) /* the pseudo-header's */
			rule_engine_csum_fix(ck, old, nw);
	}
	if (port && l4 != 0 && (proto == 6 || proto == 17) && l4 + 4 <= len) {
		uint16_t old = (uint16_t)(l3[l4 + 2] << 8 | l3[l4 + 3]);
		const uint8_t *np = (const uint8_t *)&dport;
		uint16_t nw = (uint16_t)(np[0] << 8 | np[1]);

		l3[l4 + 2] = np[0];
		l3[l4 + 3] = np[1];
		if (ck != NULL && (proto == 6 || ck == l3 + l4 + 6))
			rule_engine_csum_fix(ck, old, nw);
	}
}

/**
 * The search a program's predicate names.
 * @param eng   the engine
 * @param pred  rule_pktprog::pred (search + 1; not 0)
 * @return the search.
 * Context: any lcore (lock-free).
 */
static inline const struct rule_strpred *
rule_engine_strpred(const struct rule_engine *eng, uint16_t pred)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	return &v->strs[pred - 1];
}

/**
 * The outcome of predicate @p pred (rule_pktprog::pred) for a packet.
 * @param eng   the engine
 * @param pred  predicate + 1 (not 0)
 * @param l3    the IP header's first byte
 * @param len   bytes of the datagram at @p l3
 * @param vl3   the header view (rule_engine_l3_view(); @p l3 where the
 *              packet needs none), read by the nodes with RULE_PRED_VIEW
 * @param vlen  bytes at @p vl3
 * @param leaf  receives the outcome's index
 * @return the outcome.
 * Context: any lcore (lock-free).
 */
static inline const struct rule_pred_leaf *
rule_engine_pred_leaf(const struct rule_engine *eng, uint16_t pred, const uint8_t *l3,
	uint32_t len, const uint8_t *vl3, uint32_t vlen, unsigned int *leaf)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	const struct rule_pred *t = &v->preds[pred - 1];
	unsigned int n = 0;

	for (unsigned int depth = 0; depth < RULE_PRED_LEAVES; depth++) {
		uint16_t s = t->node[n].str, i = s & RULE_PRED_INDEX;
		const uint8_t *b = (s & RULE_PRED_VIEW) ? vl3 : l3;
		uint32_t bl = (s & RULE_PRED_VIEW) ? vlen : len;
		bool found = s & RULE_PRED_U32	 ? rule_engine_u32_match(&v->u32s[i], b, bl)
			     : s & RULE_PRED_BPF ? rule_bpf_run(&v->bpfs[i], b, bl) != 0
						 : rule_engine_str_find(&v->strs[i], b, bl);

		n = t->node[n].kid[found];
		if (n & RULE_PRED_LEAF)
			break;
	}
	n &= RULE_PRED_LEAF - 1;
	*leaf = n;
	return &t->leaf[n];
}

/**
 * Count a packet of a cached entry whose predicate gave outcome @p leaf
 * (not 0: the entry counts it for outcome 0; the counters move it when
 * read).
 * @param eng    the engine
 * @param pred   predicate + 1
 * @param leaf   the outcome
 * @param bytes  its IP length, as the entry counts it
 * Context: any lcore (lock-free; one relaxed atomic add per counter).
 */
static inline void
rule_engine_pred_count(const struct rule_engine *eng, uint16_t pred, unsigned int leaf,
	uint32_t bytes)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_pred_ctr *c = &v->pred_ctr[pred - 1];

	__atomic_fetch_add(&c->packets[leaf], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->bytes[leaf], bytes, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_STRPRED_H */
