/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: string predicates, part of engine.h's manual (included at
 * its end) — the per-packet check of "-m string" on the fast path.
 *
 * A flow whose walk reaches one string match (and no other per-packet
 * field, meter or stateful match) is cached with both outcomes: the
 * engine walks it once with the pattern found and once with it not found
 * (eng_meter_decide(), as for a meter's conforming and exceeded), and the
 * entry gets a packet program (engine_pktact.h) whose predicate names the
 * search (rule_pktprog::pred): the RX lcore searches each packet's bytes
 * (rule_engine_str_find()) and the answer picks the program's list, and
 * with the program's flip the verdict. The two outcomes' deciding rules
 * and traces are part of the program: the entry counts every packet for
 * the outcome of list 0, the program counts those of list 1
 * (rule_engine_pred_count()), and the rule counters move those from the
 * one outcome's rules to the other's when they are read. A walk that
 * reaches two different searches, or a search and a meter, is decided
 * per packet on the slow path (struct rule_engine_stats::pred_per_packet).
 *
 * Searches are interned by content (pattern, case, window; negation is the
 * walks' business) in a table the rules lcore fills and the RX lcores
 * read; it starts over with the programs (a commit that numbers the rules
 * anew).
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

/** Counters of a program's packets that took its list 1 (engine_strpred.h). */
struct rule_pred_ctr {
	uint64_t packets;
	uint64_t bytes;
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
 * Count a packet of a cached entry whose program's predicate chose list 1
 * (its rules are list 1's: the counters move it there when read).
 * @param eng    the engine
 * @param class  fc_action::pkt_class (program + 1)
 * @param bytes  its IP length, as the entry counts it
 * Context: any lcore (lock-free; one relaxed atomic add per counter).
 */
static inline void
rule_engine_pred_count(const struct rule_engine *eng, uint16_t class, uint32_t bytes)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_pred_ctr *c = &v->pred_ctr[class - 1];

	__atomic_fetch_add(&c->packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_STRPRED_H */
