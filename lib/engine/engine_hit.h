/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: what the fast path asks about a hit, part of engine.h's
 * manual (included at its end) — is the entry stale (a newer commit, or an
 * expectation newer than a cached drop), and does a classed entry's
 * verdict hold for the packet's TCP flags (the flag class table a commit
 * publishes: engine_pktclass.c).
 */
#ifndef GUFC_ENGINE_HIT_H
#define GUFC_ENGINE_HIT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A set's TCP flag classes (rule_set_tcpflag_classes()): an entry whose
 * walk read the flags and nothing else per packet caches its verdict for
 * the class of the flags its walk saw (fc_action::pkt_class, low byte; the
 * table's serial in the high byte; RULE_ACT_M0_CLASSED). Immutable once
 * published.
 */
struct rule_flagclass {
	uint32_t gen;      /**< generation of the commit that installed it */
	uint8_t serial;    /**< incremented by each table that replaces another */
	uint16_t n;        /**< classes, 1..256 */
	uint8_t cls[256];  /**< class of each flag byte */
	uint8_t rep[256];  /**< per class, a flag byte of it */
};

/**
 * Is a new flow's cached drop (RULE_ACT_M0_NEWDROP) older than an
 * expectation noted for its tuple's slot (rule_engine_expect_note())? Its
 * packet then goes up and is decided as a new flow, which may meet the
 * expectation (Linux keeps no state of a dropped packet: its next one is
 * a new connection). A slot shared by other tuples costs their cached
 * drops one such decision each, after which they hold the newer count.
 * @param eng  the engine
 * @param a    the entry's action (RULE_ACT_M0_NEWDROP)
 * @param k    the entry's key
 * @return true: decide it anew. Context: registered reader, or rules lcore.
 */
static inline bool
rule_engine_drop_expected(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	uint32_t e = __atomic_load_n(&v->exp_epoch, __ATOMIC_ACQUIRE);

	if (likely(e == a->nat_id))
		return false;
	e = __atomic_load_n(&v->exp_slots[rule_engine_exp_slot(k)], __ATOMIC_RELAXED);
	return (int32_t)(e - a->nat_id) > 0;
}

/**
 * Must a hit be decided by the slow path because a commit newer than its
 * entry may change it, or (a new flow's cached drop) an expectation made
 * since may? One generation compare in the common case; else the
 * key (as the filter saw it) is checked against the published changes.
 * @param eng  the engine
 * @param a    the action fc_table_lookup_bulk() copied
 * @param k    the entry's key
 * @return true: upcall the packet with RULE_UPCALL_STALE.
 * Context: registered reader (between quiescent reports), or rules lcore.
 */
static inline bool
rule_engine_stale(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	if (likely(a->gen == __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE)))
		return unlikely(a->mod[0] & RULE_ACT_M0_NEWDROP) &&
		       rule_engine_drop_expected(eng, a, k);
	return rule_engine_stale_check(eng, a, k);
}

/**
 * Does a classed entry's cached verdict (RULE_ACT_M0_CLASSED) hold for
 * packet @p p: its TCP flags are in the entry's class, under the table the
 * class was taken from? If not, upcall it (RULE_UPCALL_INTEREST): the slow
 * path decides it on its own.
 * @param eng  the engine
 * @param a    the entry's action (as read under its sequence count)
 * @param p    the packet (tcp_flags 0 for other protocols)
 * @return true when the cached verdict holds.
 * Context: any lcore, a registered reader between two quiescent reports.
 */
static inline bool
rule_engine_class_ok(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_pkt *p)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	const struct rule_flagclass *fc = __atomic_load_n(&v->flagclass, __ATOMIC_ACQUIRE);

	return fc != NULL && (uint8_t)(a->pkt_class >> 8) == fc->serial &&
	       (int32_t)(a->gen - fc->gen) >= 0 && fc->cls[p->tcp_flags] == (uint8_t)a->pkt_class;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_HIT_H */
