/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the rules engine's counters and listing: engine counters,
 * per-rule packet and byte counters (one by one or as a snapshot), the walk
 * over cached flows and their text, one flow by key or index, the state
 * of the stateful matches (recent lists, hashlimit tables, quotas). Part of
 * engine.h's manual, which includes this header at its end: include
 * engine.h.
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
/* One flow                                                                  */
/* ------------------------------------------------------------------------ */

/** One flow entry (listings and module services). A copy. */
struct rule_flow_info {
	struct fc_key key;
	uint32_t idx;          /**< entry index in its family's table */
	struct fc_action act;
	uint32_t peer;         /**< entry index of the other direction, or FC_INDEX_NONE */
	uint32_t timeout, created, last_seen; /**< as the entry keeps them (fc_table_timeout(), fc_table_created(), struct fc_entry) */
	uint32_t ctmark;       /**< its connection's mark */
	uint32_t mark;         /**< the mark its packets leave the rules' walk with */
	/**
	 * The channel its packets go to: act.channel, or its per-flow channel
	 * (the flow id an application attaches by); RULE_CHAN_NONE: none yet.
	 */
	uint32_t channel;
	uint64_t packets;
	uint64_t bytes;
	/**
	 * Of @c packets and @c bytes, the segments conntrack accepted but
	 * ignored: its rule's, not its connection's (connbytes reads
	 * packets - ign_packets, bytes - ign_bytes, as Linux's accounting).
	 */
	uint64_t ign_packets;
	uint64_t ign_bytes;
};

/**
 * Look up the entry of a key.
 * @param eng   the engine
 * @param k     the key (normalized, local bits set)
 * @param info  receives a copy of the entry; may be NULL (existence only)
 * @return 0, -ENOENT (no entry, or no table for the family), -EINVAL.
 * Context: rules lcore.
 */
int rule_engine_flow_lookup(const struct rule_engine *eng, const struct fc_key *k,
	struct rule_flow_info *info);

/**
 * Look up the entry of a key's tuple on any input port: the key as it is
 * first, then with every other port an entry of the engine has had (see
 * "Input ports" at the top). For what is one per tuple whatever the port
 * (a connection an ICMP error quotes, a NAT tuple in use).
 * @param eng   the engine
 * @param k     the key (normalized, local bits set; its input port is tried first)
 * @param info  receives a copy of the entry (its key has the port found);
 *   may be NULL (existence only)
 * @return 0, -ENOENT (no entry on any port, or no table for the family), -EINVAL.
 * Context: rules lcore.
 */
int rule_engine_flow_lookup_any(const struct rule_engine *eng, const struct fc_key *k,
	struct rule_flow_info *info);

/**
 * The entry at index @p idx (e.g. a flow's peer, struct rule_flow_info::peer).
 * @param eng     the engine
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param idx     entry index
 * @param info    receives a copy of the entry
 * @return 0, -ENOENT (no live entry there), -EINVAL.
 * Context: rules lcore.
 */
int rule_engine_flow_get(const struct rule_engine *eng, unsigned int family, uint32_t idx,
	struct rule_flow_info *info);


/* ------------------------------------------------------------------------ */
/* Counters and listing                                                      */
/* ------------------------------------------------------------------------ */

/** Engine counters (rule_engine_stats_get()); modules count their own. */
struct rule_engine_stats {
	uint64_t upcalls[RULE_UPCALL__COUNT]; /**< packets by upcall reason */
	uint64_t flows;        /**< forward entries created */
	uint64_t replies;      /**< reply entries created */
	uint64_t cached_drops; /**< new flows cached as DROP */
	uint64_t drops_expected; /**< of those: taken back because an expectation noted after
				      them may cover their tuple (the packet decided anew) */
	uint64_t uncached;     /**< packets decided without an entry (any cause) */
	uint64_t table_full;   /**< of those: the table refused the insert */
	uint64_t count_redecided; /**< entries decided again: their counters reached the
				       counts where a connbytes match answers otherwise */
	uint64_t revalidated;  /**< entries re-run through the filter after a commit */
	uint64_t refreshed;    /**< entries a commit could not change, moved to its generation */
	uint64_t removed;      /**< entries gone (aged, evicted, flushed, deleted) */
	uint64_t commits;
	uint64_t commits_full; /**< commits taken as "everything changed" */
	uint64_t classify_cls; /**< classifications by the compiled classifier */
	uint64_t classify_ref; /**< classifications by the reference evaluator (overlay) */
	uint64_t clsc_hits;    /**< of classify_cls: results reused from the classification cache */
	uint64_t clsc_misses;  /**< of classify_cls: walked, result kept for reuse */
	uint64_t clsc_uncacheable; /**< of classify_cls: walked, result the packet's own (a
				        stateful match, meter, ipset, clock or route) */
	uint64_t clsc_skipped; /**< of classify_cls: walked around the cache (too few hits lately) */
	uint64_t clsc_flushes; /**< times the classification cache was emptied (commits,
				    classifier installs) */
	uint64_t clsc_walk_hits; /**< a SYN's `established` walks (every stage) reused whole
				      from the cache's walk memo: no classification counted */
	uint64_t clsc_new_hits; /**< a new flow's walks (its original direction from the
				     filter stage on, its reply direction) reused whole from the
				     walk memo: no classification counted */
	uint64_t refilter_kept; /**< entries a change of their connection's ctstate left as
				     they were: their walk would have come out the same */
	uint64_t synack_ahead; /**< new TCP connections whose original entry got its
				    `established` action at the SYN, their SYN/ACK left to the
				    fast path (engine_synack.c) */
	uint64_t synack_settled; /**< ... of those: found replied by aging (entries made
				      established there) */
	uint64_t synack_plain_not; /**< ... that could have, but whose `established` walk
					was not plain (per packet, metered, a program, a
					class, counted, another mark): two upcalls */
	uint64_t channel_unknown; /**< channel names the callback did not know */
	uint64_t aged;         /**< entries aged out (both directions idle) */
	uint64_t chan_flows;   /**< per-flow channels given to flows */
	uint64_t chan_flow_fallback; /**< per-flow channel refused (pool empty): parent used */
	uint64_t chan_flow_freed;    /**< per-flow channels returned */
	uint64_t chan_flow_free_fail; /**< per-flow channels the free callback gave up on */
	uint64_t reply_moved;  /**< reply entries moved to the port their replies came on */
	uint64_t reply_guessed; /**< reply entries keyed on the port earlier first replies of
				     such connections came on, not the expected one (see
				     "Input ports") */
	uint64_t port_mismatch; /**< packets of a connection on a port its entries lack
				     (decided uncached, see "Input ports") */
	uint64_t recent_dropped;    /**< "-m recent" lists dropped by a commit (no rule names them) */
	uint64_t hashlimit_dropped; /**< "-m hashlimit" tables dropped by a commit (likewise) */
	uint32_t hashlimit_meters;  /**< hashlimit buckets kept as meters (the fast path takes
					 their tokens) */
	uint32_t str_preds;         /**< "-m string" searches the fast path runs (engine_strpred.h) */
	uint32_t u32_preds;         /**< "-m u32" matches (their tests) the fast path runs */
	uint32_t bpf_preds;         /**< "-m bpf" programs the fast path runs */
	uint64_t classed;           /**< entries cached for a TCP flag class (engine_pktclass.c):
					 walks that read the flags and no other per-packet field */
	uint64_t class_unfit;       /**< walks of per-packet header fields whose classes together
					  are more than a class id holds: decided per packet */
	uint64_t class_taken;       /**< classed entries whose guessed class (a first segment's,
					 a stand-in's) a packet of another class took over */
	uint64_t pred_per_packet;   /**< flow walks that reached a "-m string" search (or a
					 "-m u32" match) and a meter, or more searches than a
					 predicate holds (or
					 found a table full): their packets are decided one by
					 one on the slow path */
	uint64_t connlimit_checks;  /**< walks that asked a "-m connlimit" count */
	uint32_t connlimit_conns;   /**< connections the connlimit counts hold now (gone ones
					 are forgotten when their group is counted next) */
	uint64_t trace_lost;   /**< walks whose non-deciding rules an entry could not keep
				    (no memory): those rules miss the entry's packets */
	uint64_t set_added;    /**< ipset members "-j SET --add-set" added (or brought back
				    past their timeout) */
	uint64_t set_deleted;  /**< ipset members "-j SET --del-set" deleted */
	uint64_t set_failed;   /**< "-j SET" changes not made (out of memory, no such set) */
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

/**
 * The engine's "-m recent" lists (rule_recent_info(), rule_recent_entry();
 * stamps in TSC cycles), and its "-m hashlimit" tables (rule_hashlimit_info()).
 * @param eng  the engine
 * @return them, or NULL (none made yet).
 * Context: rules lcore (they change with the packets it decides).
 */
const struct rule_recent *rule_engine_recent(const struct rule_engine *eng);
/** See rule_engine_recent(). Context: rules lcore. */
const struct rule_hashlimit *rule_engine_hashlimit(const struct rule_engine *eng);

/** A "-m quota" match's countdown (rule_engine_quota_info()). */
struct rule_quota_info {
	uint32_t rule_id; /**< the rule */
	uint8_t xi;       /**< the match's index among the rule's matches */
	uint64_t bytes;   /**< the quota as the rule gives it */
	uint64_t left;    /**< bytes left (0: emptied, no packet matches) */
};

/**
 * The @p i-th quota the engine keeps (made when a walk first reaches the
 * match; started over by a commit that numbers the rules anew).
 * @return 0 and *@p qi, or -ENOENT past the last.
 * Context: rules lcore.
 */
int rule_engine_quota_info(const struct rule_engine *eng, unsigned int i,
	struct rule_quota_info *qi);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_INFO_H */
