/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — per-entry counts beside the flow table's counters: the
 * limits at which a connbytes entry's verdict may change, and the segments
 * conntrack ignored that the connection's counters leave out (Linux's
 * accounting). The fast path's side of them, inline. Part of engine.h's
 * manual, which includes this header at its end: include engine.h.
 */
#ifndef GUFC_ENGINE_COUNT_H
#define GUFC_ENGINE_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * An entry's limits (struct rule_engine_view::count_limit): its packet
 * goes up once the entry's packets would reach @c packets or its bytes
 * @c bytes (the entry's own counters, frames, this packet included).
 */
struct rule_count_limit {
	uint64_t packets;
	uint64_t bytes;
};

/** An entry's segments conntrack ignored (struct rule_engine_view::ct_ignored). */
struct rule_ct_ignored {
	uint64_t packets;
	uint64_t bytes;
};

/**
 * Does a packet of @p len bytes bring an FC_ACT_F_COUNT entry's counters to
 * its limits (upcall it with RULE_UPCALL_INTEREST: its verdict may change)?
 * @param eng  the engine
 * @param t    the entry's table
 * @param fam  0 for IPv4, 1 for IPv6
 * @param idx  the entry's index
 * @param len  the packet's length as the entry counts it
 * @return true to upcall.
 * Context: the reader that owns the flow, or the rules lcore.
 */
static inline bool
rule_engine_count_due(const struct rule_engine *eng, const struct fc_table *t, unsigned int fam,
	uint32_t idx, uint32_t len)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	const struct rule_count_limit *l = v->count_limit[fam];
	uint64_t packets, bytes;

	if (unlikely(l == NULL))
		return true;
	fc_table_counters(t, idx, &packets, &bytes);
	return packets + 1 >= __atomic_load_n(&l[idx].packets, __ATOMIC_ACQUIRE) ||
		bytes + len >= __atomic_load_n(&l[idx].bytes, __ATOMIC_ACQUIRE);
}

/**
 * Count a packet of @p len bytes that entry @p idx counts (fc_table_touch())
 * but its connection does not: a segment conntrack ignored.
 * @param eng  the engine
 * @param fam  0 for IPv4, 1 for IPv6
 * @param idx  the entry's index
 * @param len  the packet's length as the entry counts it
 * @return false without the counters (no memory: the connection counts it).
 * Context: the reader that owns the flow, or the rules lcore.
 */
static inline bool
rule_engine_ct_ignored(const struct rule_engine *eng, unsigned int fam, uint32_t idx,
	uint32_t len)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_ct_ignored *c = __atomic_load_n(&v->ct_ignored[fam], __ATOMIC_ACQUIRE);

	if (c == NULL)
		return false;
	__atomic_store_n(&c[idx].packets, c[idx].packets + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c[idx].bytes, c[idx].bytes + len, __ATOMIC_RELAXED);
	return true;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_COUNT_H */
