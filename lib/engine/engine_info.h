/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the rules engine's counters and listing: engine counters,
 * per-rule packet and byte counters (one by one or as a snapshot), the walk
 * over cached flows and their text. Part of engine.h's manual, which
 * includes this header at its end: include engine.h.
 */
#ifndef GUFC_ENGINE_INFO_H
#define GUFC_ENGINE_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Counters and listing                                                      */
/* ------------------------------------------------------------------------ */

/** Engine counters (rule_engine_stats_get()); modules count their own. */
struct rule_engine_stats {
	uint64_t upcalls[RULE_UPCALL__COUNT]; /**< packets by upcall reason */
	uint64_t flows;        /**< forward entries created */
	uint64_t replies;      /**< reply entries created */
	uint64_t cached_drops; /**< new flows cached as DROP */
	uint64_t uncached;     /**< packets decided without an entry (any cause) */
	uint64_t table_full;   /**< of those: the table refused the insert */
	uint64_t revalidated;  /**< entries re-run through the filter after a commit */
	uint64_t refreshed;    /**< entries a commit could not change, moved to its generation */
	uint64_t removed;      /**< entries gone (aged, evicted, flushed, deleted) */
	uint64_t commits;
	uint64_t commits_full; /**< commits taken as "everything changed" */
	uint64_t classify_cls; /**< classifications by the compiled classifier */
	uint64_t classify_ref; /**< classifications by the reference evaluator (overlay) */
	uint64_t channel_unknown; /**< channel names the callback did not know */
	uint64_t aged;         /**< entries aged out (both directions idle) */
	uint64_t chan_flows;   /**< per-flow channels given to flows */
	uint64_t chan_flow_fallback; /**< per-flow channel refused (pool empty): parent used */
	uint64_t chan_flow_freed;    /**< per-flow channels returned */
	uint64_t chan_flow_free_fail; /**< per-flow channels the free callback gave up on */
	uint64_t reply_moved;  /**< reply entries moved to the port their replies came on */
	uint64_t port_mismatch; /**< packets of a connection on a port its entries lack
				     (decided uncached, see "Input ports") */
	uint64_t walk_slots;   /**< table slots (free ones included) examined by the
				    background walks of rule_engine_step(): aging, revalidation */
	uint32_t gen;          /**< current generation */
	uint32_t cls_gen;      /**< generation of the installed classifier (0: none) */
	uint32_t pending;      /**< changes not yet retired by revalidation */
	uint32_t overlay;      /**< changes newer than the classifier */
};

/**
 * Sum the counters.
 * @param eng  the engine (NULL: zeros)
 * @param st   receives them
 * Context: any (values may be slightly stale).
 */
void rule_engine_stats_get(const struct rule_engine *eng, struct rule_engine_stats *st);

/** Name of an upcall reason. @param reason enum rule_upcall_reason. @return "miss",
 * "interest", "stale"; "?" if out of range. Context: any. */
const char *rule_upcall_name(unsigned int reason);

/**
 * Per-rule counters, as iptables keeps them: the packets and bytes a rule
 * decided since it did (since the commit that brought it, for a set that
 * is no descendant of the one before: such a commit starts every counter
 * over, as iptables-restore does), not a flow's whole history. A cached
 * flow counts on the rule its entry names from the moment it names it
 * (revalidation to another rule hands over then); packets decided without
 * an entry count one by one; a nat-table rule counts the connections it
 * decided (one packet each: their first). The rules' own counters (an
 * import's [pkts:bytes]) are not included. Walks the tables (O(flows)).
 * @param eng      the engine
 * @param rule_id  a rule id or RULE_ID_POLICY
 * @param packets  receives the packets
 * @param bytes    receives the bytes
 * @return 0, -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int rule_engine_rule_counters(const struct rule_engine *eng, uint32_t rule_id,
	uint64_t *packets, uint64_t *bytes);

/**
 * Per-rule counters of every rule at once, in one walk of the tables
 * (O(flows + rules) instead of rule_engine_rule_counters() per rule):
 * what "show rules", the summary and the JSON print. A snapshot, owned by
 * the caller, read with rule_counters_snap_get(), freed with
 * rule_counters_snap_free().
 */
struct rule_counters_snap;

/**
 * Take the snapshot.
 * @param eng  the engine
 * @return it, or NULL with rte_errno EINVAL (NULL engine) or ENOMEM.
 * Context: rules lcore, or control with it stopped.
 */
struct rule_counters_snap *rule_engine_counters_snap(const struct rule_engine *eng);

/**
 * Counters of one rule in a snapshot (what rule_engine_rule_counters()
 * would have said when it was taken).
 * @param s        the snapshot
 * @param rule_id  a rule id or RULE_ID_POLICY
 * @param packets  receives the packets
 * @param bytes    receives the bytes
 * @return 0 (unknown ids: 0 packets), -EINVAL (NULL, RULE_ID_NONE).
 * Context: any (the snapshot is the caller's).
 */
int rule_counters_snap_get(const struct rule_counters_snap *s, uint32_t rule_id,
	uint64_t *packets, uint64_t *bytes);

/** Free a snapshot. @param s the snapshot; NULL is accepted. Context: any. */
void rule_counters_snap_free(struct rule_counters_snap *s);

/**
 * Walk the flows of both tables: start with *it = 0, call until -ENOENT.
 * Modules walk in bounded steps the same way (one entry per call).
 * @param eng    the engine
 * @param it     iterator state
 * @param match  if not NULL, only keys rule_match_key(match, key,
 *   RULE_CT_IGNORE, 0) accepts (the shell parses a rule to filter)
 * @param info   receives the flow
 * @return 0 on a flow, -ENOENT at the end, -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int rule_engine_flow_next(const struct rule_engine *eng, uint64_t *it,
	const struct rule *match, struct rule_flow_info *info);

/**
 * rule_engine_flow_next() in bounded steps, for background walks (a
 * module's step): every table slot examined, free or live, costs one unit
 * of *budget (fc_table_walk()), so a call is bounded work however large
 * and empty the tables are.
 * @param eng     the engine
 * @param it      iterator state (start at 0)
 * @param budget  slots the caller may still examine; decremented
 * @param match   as rule_engine_flow_next()
 * @param info    receives a copy of the flow
 * @return 0 on a flow, -EAGAIN when *budget ran out first (call again
 *   later), -ENOENT at the end, -EINVAL.
 * Context: rules lcore.
 */
int rule_engine_flow_walk(const struct rule_engine *eng, uint64_t *it, uint32_t *budget,
	const struct rule *match, struct rule_flow_info *info);

/**
 * Format one flow: key, verdict, rule, channel, port, direction, conntrack
 * state (the modules' ct_format), NAT slot, interest, generation, counters.
 * @param eng   the engine (its modules format the conntrack state)
 * @param info  the flow
 * @param buf   destination
 * @param len   size of @p buf
 * @return characters written (excluding NUL), -ENOSPC if truncated, -EINVAL.
 * Context: any.
 */
int rule_engine_flow_format(const struct rule_engine *eng, const struct rule_flow_info *info,
	char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_INFO_H */
