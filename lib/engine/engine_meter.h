/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: rule meters, part of engine.h's manual (included at its end).
 *
 * A rule whose match is "-m limit" (native "limit R limit_burst N") has a
 * meter: a token bucket the engine keeps per rule and match, found from a
 * cached entry without a lookup (its packet program names the meter).
 * A flow whose walk reaches one meter (and no other stateful match) is
 * cached with the verdict it gets while the meter conforms and a program
 * holding the meter (rule_pktprog::meter, ::flip): a packet that finds the
 * meter exceeded gets the other verdict, on the fast path
 * (rule_engine_pktprog_take()), and is counted apart, for the rule and
 * trace of the walk the exceeded meter gives (rule_pktprog::rule, as
 * Linux counts it). Meters the walk passes
 * without their answer changing anything (a rule whose port match, written
 * after the meter, refuses the flow: the meter still takes a token, as
 * netfilter evaluates matches in order) are charged by every packet before
 * the deciding one, through a packet program (rule_pktprog::pre). A walk
 * with two meters that change its outcome, or another stateful match, is
 * decided per packet on the slow path. The slow path takes tokens from the same
 * buckets for the packets it decides. A hashlimit bucket kept as a meter
 * (engine_meter.c) counts packets, or, for a byte rate, each packet's IP
 * length (struct rule_meter): the fast path is given the length. A "-m
 * quota" match is a meter too: the bytes left, each packet taking its IP
 * length while they last (xt_quota's countdown; struct rule_meter). Meters live as long as the engine;
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
 * One rule meter (-m limit, a hashlimit bucket): a token bucket as a
 * theoretical arrival time (GCRA), in TSC cycles. A packet meter charges
 * each packet @c interval; a byte meter (hashlimit's byte mode, @c
 * chunks_max not 0) charges a packet its IP length in 16-byte chunks, as
 * Linux's xt_hashlimit: (len / 16 + 1) chunks of @c interval / 2^24 cycles
 * each, at most the whole credit (@c tolerance: one second), and when the
 * credit is short it may take one of @c refills whole refills (never given
 * back; a bucket idle for @c expire cycles is new again, refills included,
 * as Linux forgets an idle bucket and makes a full one). Owned by the
 * engine; @c interval, @c tolerance, @c chunks_max, @c burst and @c expire
 * are written by the rules lcore before any entry names the meter. A quota
 * (@c chunks_max RULE_METER_QUOTA) keeps the bytes left in @c tat: a packet
 * that fits takes its length, one that does not empties it (Linux lets no
 * packet through an exhausted quota, however small). @c tat,
 * @c refills and @c seen by whoever takes a token (RX lcores, the rules
 * lcore), with atomics.
 */
struct rule_meter {
	uint64_t tat;	    /**< when the bucket is full again */
	uint64_t interval;  /**< cycles per token (1 / rate); byte meter: per chunk, << 24 */
	uint64_t tolerance; /**< (burst - 1) * interval; byte meter: the credit (cycles) */
	uint64_t seen;	    /**< byte meter with refills: its last packet (UINT64_MAX: none) */
	uint64_t expire;    /**< byte meter with refills: idle cycles that make it new */
	uint32_t chunks_max; /**< byte meter: chunks that cost the whole credit; 0: packet meter */
	uint32_t refills;   /**< byte meter: whole refills left */
	uint32_t burst;	    /**< byte meter: the refills of a new bucket */
} __rte_cache_aligned;

/** rule_meter::chunks_max of a quota: @c tat is the bytes left. */
#define RULE_METER_QUOTA UINT32_MAX

/** Fraction bits of a byte meter's cycles per chunk (rule_meter::interval). */
#define RULE_METER_CHUNK_SHIFT 24

/** Most meters of an engine; fc_action::pkt_class names one plus 1. */
#define RULE_METERS_MAX 4096

/* A byte meter's cost for a packet of @p len IP bytes, in cycles. */
static inline uint64_t
rule_meter_cost(const struct rule_meter *m, uint32_t len)
{
	uint64_t chunks = (uint64_t)(len >> 4) + 1;

	if (chunks >= m->chunks_max)
		return m->tolerance;
	return chunks * m->interval >> RULE_METER_CHUNK_SHIFT;
}

/* Byte meter @p m with refills: as the CAS loop, but a short credit may take a refill. */
static inline bool
rule_meter_take_refill(struct rule_meter *m, uint64_t cost, uint64_t now)
{
	uint64_t seen = __atomic_exchange_n(&m->seen, now, __ATOMIC_RELAXED);
	uint64_t tat, t;
	uint32_t r;

	if (seen != UINT64_MAX && now > seen && now - seen >= m->expire) {
		/* Idle long enough for Linux to forget the bucket: a new, full one. */
		__atomic_store_n(&m->refills, m->burst, __ATOMIC_RELAXED);
		__atomic_store_n(&m->tat, 0, __ATOMIC_RELAXED);
	}
	tat = __atomic_load_n(&m->tat, __ATOMIC_RELAXED);
	for (;;) {
		t = tat > now ? tat : now;
		if (t - now + cost <= m->tolerance) {
			if (__atomic_compare_exchange_n(&m->tat, &tat, t + cost, true,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return true;
			continue;
		}
		r = __atomic_load_n(&m->refills, __ATOMIC_RELAXED);
		do {
			if (r == 0)
				return false;
		} while (!__atomic_compare_exchange_n(
			&m->refills, &r, r - 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
		/* A whole credit, less this packet's cost. */
		__atomic_store_n(&m->tat, now + cost, __ATOMIC_RELAXED);
		return true;
	}
}

/* Quota @p m: take @p len bytes if they are left, else empty it (xt_quota). */
static inline bool
rule_meter_take_quota(struct rule_meter *m, uint32_t len)
{
	uint64_t left = __atomic_load_n(&m->tat, __ATOMIC_RELAXED);

	do {
		if (left < len) {
			if (left != 0)
				__atomic_store_n(&m->tat, 0, __ATOMIC_RELAXED);
			return false;
		}
	} while (!__atomic_compare_exchange_n(
		&m->tat, &left, left - len, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/**
 * Take a packet's tokens from meter @p id (fc_action::pkt_class - 1): one
 * token, or for a byte meter its length's cost, or for a quota its length.
 * @param eng  the engine
 * @param id   the meter
 * @param now  the time, TSC cycles (rte_rdtsc())
 * @param len  the packet's IP length (IPv4 total length, IPv6 40 + payload);
 *             read by byte meters and quotas only
 * @return true if the packet conforms (its tokens were taken), false if not.
 * Context: any lcore (lock-free).
 */
static inline bool
rule_engine_meter_take(const struct rule_engine *eng, uint16_t id, uint64_t now, uint32_t len)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_meter *m = &v->meters[id];
	uint64_t tat = __atomic_load_n(&m->tat, __ATOMIC_RELAXED), next;
	uint64_t cost = m->interval, tol = m->tolerance;

	if (unlikely(m->chunks_max != 0)) {
		if (m->chunks_max == RULE_METER_QUOTA)
			return rule_meter_take_quota(m, len);
		cost = rule_meter_cost(m, len);
		if (m->burst != 0)
			return rule_meter_take_refill(m, cost, now);
		tol = m->tolerance - cost;
	}
	do {
		uint64_t t = tat > now ? tat : now;

		if (t - now > tol)
			return false;
		next = t + cost;
	} while (!__atomic_compare_exchange_n(
		&m->tat, &tat, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_METER_H */
