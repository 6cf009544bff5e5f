/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: rule meters, part of engine.h's manual (included at its end).
 *
 * A rule whose match is "-m limit" (native "limit R limit_burst N") has a
 * meter: a token bucket the engine keeps per rule and match, found from a
 * cached entry without a lookup (fc_action::pkt_class is the meter plus 1).
 * A flow whose walk reaches one meter (and no other stateful match) is
 * cached with the verdict it gets while the meter conforms and
 * FC_ACT_F_METER: a packet that finds the meter exceeded gets the other
 * verdict, on the fast path (rule_engine_verdict()). A walk that reaches
 * more than one meter, or another stateful match, is decided per packet on
 * the slow path, as before. The slow path takes tokens from the same
 * buckets for the packets it decides. Meters live as long as the engine;
 * a commit of a set that is no descendant of the running one (ids numbered
 * anew) starts them over, as iptables-restore does.
 */
#ifndef GUFC_ENGINE_METER_H
#define GUFC_ENGINE_METER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One rule meter (-m limit): a token bucket as a theoretical arrival time
 * (GCRA), in TSC cycles. Owned by the engine; @c interval and @c tolerance
 * are written by the rules lcore before any entry names the meter; @c tat
 * by whoever takes a token (RX lcores, the rules lcore), with a CAS.
 */
struct rule_meter {
	uint64_t tat;       /**< when the bucket is full again */
	uint64_t interval;  /**< cycles per token (1 / rate) */
	uint64_t tolerance; /**< (burst - 1) * interval */
} __rte_cache_aligned;

/** Most meters of an engine; fc_action::pkt_class names one plus 1. */
#define RULE_METERS_MAX 4096

/**
 * Take a token from meter @p id (fc_action::pkt_class - 1).
 * @param eng  the engine
 * @param id   the meter
 * @param now  the time, TSC cycles (rte_rdtsc())
 * @return true if the packet conforms (a token was taken), false if not.
 * Context: any lcore (lock-free).
 */
static inline bool
rule_engine_meter_take(const struct rule_engine *eng, uint16_t id, uint64_t now)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_meter *m = &v->meters[id];
	uint64_t tat = __atomic_load_n(&m->tat, __ATOMIC_RELAXED), next;

	do {
		uint64_t t = tat > now ? tat : now;

		if (t - now > m->tolerance)
			return false;
		next = t + m->interval;
	} while (!__atomic_compare_exchange_n(&m->tat, &tat, next, true, __ATOMIC_RELAXED,
		__ATOMIC_RELAXED));
	return true;
}

/**
 * The verdict of a cached entry for this packet: its own, or, for an entry
 * whose verdict depends on a meter (FC_ACT_F_METER) that the packet finds
 * exceeded, the other one.
 * @param eng  the engine
 * @param a    the entry's action
 * @param now  TSC cycles, read only for a metered entry (0: read it here)
 * @return FC_VERDICT_ACCEPT or FC_VERDICT_DROP (a's verdict for SLOW).
 * Context: any lcore (lock-free).
 */
static inline uint8_t
rule_engine_verdict(const struct rule_engine *eng, const struct fc_action *a, uint64_t now)
{
	if (likely(!(a->flags & FC_ACT_F_METER)))
		return a->verdict;
	if (rule_engine_meter_take(eng, (uint16_t)(a->pkt_class - 1), now != 0 ? now : rte_rdtsc()))
		return a->verdict;
	return a->verdict == FC_VERDICT_ACCEPT ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_METER_H */
