/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the rules engine, gufc's slow path (prefix rule_engine_).
 */
#ifndef GUFC_ENGINE_H
#define GUFC_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>

#include "classifier.h"
#include "conntrack.h"
#include "flowcache.h"
#include "nat.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The slow path (lib/engine/engine*.c): what the rules lcore runs. It owns
 * the two flow tables (IPv4, IPv6) as their single writer, the current rule
 * set, the compiled classifier, the NAT table and the routes, and calls the
 * registered modules (struct rule_module) when flows are inserted, when
 * packets of cached flows hit an interest bit, and when entries go.
 *
 * Threads: everything named "rules lcore" runs on one thread at a time
 * (the single writer). RX lcores only read: fc_table_lookup_bulk() on
 * rule_engine_table(), rule_engine_stale(), rule_engine_wants() and the
 * NAT rewrite through rule_engine_nat(); they register with
 * rule_engine_reader_register() and report rule_engine_quiescent() once per
 * loop, which covers the tables, the pending-change list and NAT slots.
 * Libraries know no lcores: "rules lcore" is whoever the app makes call.
 *
 * Rule commits (DESIGN.md "Rule updates without stale verdicts"):
 * rule_engine_commit() swaps the set and bumps the generation in
 * O(changed rules), recording the rules the commit changed (from the set's
 * change log; "everything" for a set that is no descendant of the current
 * one, or whose chain hooks or policies changed). Until the compiled
 * classifier catches up (rule_engine_cls_wanted() / _cls_ready()), keys
 * that a recent change could affect are classified by the reference
 * evaluator on the current set, the rest by the classifier. Cached entries
 * carry the generation they were validated under; a hit whose entry is
 * older and whose key matches a change newer than it is "stale"
 * (rule_engine_stale()) and goes to the slow path. rule_engine_step()
 * revalidates in the background and retires the changes after a full pass.
 * Invariant: no packet gets a verdict from a set older than the one
 * committed before it arrived. NAT bindings of existing connections are not
 * redone on a rule change (netfilter); filter verdicts are.
 *
 * Per-flow channels (optional, rule_chan_flow_alloc_fn): a new flow
 * accepted into a channel the app marks per-flow gets a channel of its
 * own; both entries cache its id when their rules name the same channel
 * (a revalidation that still names it keeps it). The forward entry owns
 * it: when the flow's entries go, it is handed back
 * (rule_chan_flow_free_fn) after a grace period of the readers.
 *
 * Insert clash: a new flow whose reply key is another flow's entry is
 * dropped as RULE_DROP_CT_CLASH (Linux's nf_conntrack insert clash).
 */

struct rule_engine;

/**
 * Slow-path drop reasons: one X-macro makes the enum (RULE_DROP_<NAME>) and
 * the names (rule_drop_name()). X(NAME, "name")
 */
#define RULE_DROP_REASONS(X) \
	X(NONE, "none") \
	X(FILTER, "filter") \
	X(CT_INVALID, "ct_invalid") \
	X(NAT_EXHAUSTED, "nat_exhausted") \
	X(NAT_ERROR, "nat_error") \
	X(MODULE, "module") \
	X(BAD_PACKET, "bad_packet") \
	X(CT_CLASH, "ct_clash") \
	X(ERROR, "error")

/** Drop reasons (see RULE_DROP_REASONS). */
enum rule_drop {
#define RULE_DROP_ENUM(name, text) RULE_DROP_##name,
	RULE_DROP_REASONS(RULE_DROP_ENUM)
#undef RULE_DROP_ENUM
	RULE_DROP__COUNT
};

/** Why a packet came to the slow path. */
enum rule_upcall_reason {
	RULE_UPCALL_MISS,     /**< no (readable) entry */
	RULE_UPCALL_INTEREST, /**< hit, but the entry's interest mask selects it */
	RULE_UPCALL_STALE,    /**< hit, but rule_engine_stale() said so */
	RULE_UPCALL__COUNT
};

/** Output-port markers in struct rule_decision::out_port and fc_action::out_port. */
#define RULE_PORT_PAIRED 0xffff /**< no route: the app's paired port (testpmd-like) */
#define RULE_PORT_LOCAL 0xfffe  /**< to this host (dst_local): the channel consumes it */
/** No NAT rewrite in struct rule_decision::nat_slot. */
#define RULE_NAT_NONE UINT32_MAX

/** One packet handed to the slow path. Read-only to the engine. */
struct rule_upcall {
	struct fc_pkt pkt;    /**< parsed (FC_PARSE_OK or a fragment), local bits set */
	const uint8_t *frame; /**< contiguous headers from the Ethernet header (ICMP errors) */
	uint32_t frame_len;   /**< bytes at @c frame */
	uint32_t len;         /**< packet length for byte counters */
	uint16_t in_port;     /**< input port */
	uint8_t reason;       /**< enum rule_upcall_reason */
};

/** struct rule_decision::flags: the decision comes from (or was put in) a cached entry. */
#define RULE_DEC_F_CACHED 0x01
/** struct rule_decision::flags: an ICMP error of a translated connection;
 * nat_slot is for mod_nat_icmp_error(), not mod_nat_apply(). */
#define RULE_DEC_F_ICMP_ERR 0x02

/** What to do with one upcalled packet. The app applies it (NAT, enqueue). */
struct rule_decision {
	uint32_t rule_id;  /**< deciding filter rule, RULE_ID_POLICY, or RULE_ID_NONE */
	uint32_t nat_slot; /**< mod_nat_apply() slot, or RULE_NAT_NONE */
	uint16_t channel;  /**< channel id */
	uint16_t out_port; /**< output port or RULE_PORT_* */
	uint8_t verdict;   /**< FC_VERDICT_ACCEPT or FC_VERDICT_DROP */
	uint8_t drop;      /**< enum rule_drop (RULE_DROP_NONE when accepted) */
	uint8_t ctstate;   /**< the packet's RULE_CT_* bit, 0 if untracked */
	uint8_t flags;     /**< RULE_DEC_F_* */
};

/** Directions of a flow's actions (struct rule_flow::act). */
#define RULE_DIR_ORIG 0
#define RULE_DIR_REPLY 1

/**
 * A flow being inserted, or a cached flow one of whose packets hit an
 * interest bit: the work area modules read and write. Owned by the engine,
 * valid during the callback only.
 */
struct rule_flow {
	struct rule_engine *eng;
	const struct rule_upcall *up; /**< the packet */
	struct fc_key key;       /**< the original key (the forward entry's) */
	struct fc_key xkey;      /**< the key as later modules see it (after DNAT) */
	struct fc_key reply_key; /**< the reply entry's key (valid with @c want_reply) */
	struct fc_action act[2]; /**< [RULE_DIR_ORIG], [RULE_DIR_REPLY] */
	uint32_t timeout;        /**< idle timeout of the entries, ms */
	uint32_t idx[2];         /**< on_packet: entry indexes (FC_INDEX_NONE if none) */
	uint8_t dir;             /**< on_packet: the direction the packet hit */
	uint8_t ctstate;         /**< the packet's RULE_CT_* bit, 0 if untracked */
	uint8_t kflags;          /**< RULE_KEY_F_* of the packet */
	uint8_t drop;            /**< set by a module: enum rule_drop; stops insertion */
	bool want_reply;         /**< insert a reply entry */
	bool refilter;           /**< on_packet: re-run the filter for both entries */
	bool remove;             /**< on_packet: remove the flow (both entries) */
};

/** Why an entry went (struct rule_flow_gone::why). */
enum rule_gone_reason {
	RULE_GONE_TABLE,    /**< aged, evicted or flushed by the table */
	RULE_GONE_DELETED,  /**< deleted by the engine (reopen, revalidation, flush) */
	RULE_GONE_AGED,     /**< aged out by the engine: both directions idle past the timeout */
};

/** An entry that went, as modules' on_remove callbacks see it. */
struct rule_flow_gone {
	struct fc_key key;
	struct fc_action act;
	uint64_t packets;
	uint64_t bytes;
	uint8_t why; /**< enum rule_gone_reason */
};

/**
 * A module: callbacks in registration order (struct rule_module::order,
 * lowest first). on_insert writes the module's part of both directions'
 * actions, ORs bits into their interest masks and may set
 * struct rule_flow::drop (later modules are then not called). on_packet
 * sees packets of cached flows that an interest bit selected (every
 * module's on_packet is called; each ignores what it did not ask for).
 * on_remove sees each entry that goes. Callbacks run on the rules lcore
 * and return 0 or -errno (an error drops the packet as RULE_DROP_ERROR).
 */
struct rule_module {
	const char *name;
	int order;
	int (*on_insert)(void *priv, struct rule_flow *f);
	int (*on_packet)(void *priv, struct rule_flow *f);
	void (*on_remove)(void *priv, const struct rule_flow_gone *g);
	void *priv;
};

/** Orders of the built-in modules (netfilter's order). */
#define RULE_MOD_ORDER_CT 100
#define RULE_MOD_ORDER_NAT_DST 200
#define RULE_MOD_ORDER_ROUTE 300
#define RULE_MOD_ORDER_FILTER 400
#define RULE_MOD_ORDER_NAT_SRC 500
#define RULE_MOD_ORDER_CHANNEL 600
/** Most modules (built-in ones included). */
#define RULE_MODULES_MAX 16

/**
 * Channel resolution: the id of channel @p name ("" never comes here: that
 * is the default channel). @return the id, or -ENOENT (the flow then goes
 * to the default channel, counted).
 */
typedef int (*rule_channel_fn)(void *arg, const char *name);

/**
 * Masquerade: the address of output port @p port (RULE_PORT_PAIRED: the
 * pair of @p in_port) of @p family, into @p addr (4 or 16 bytes, network
 * order). @return 0, or -errno (the packet is dropped as nat_error).
 */
typedef int (*rule_port_addr_fn)(void *arg, uint16_t port, uint16_t in_port, uint8_t family,
	uint8_t *addr);

/**
 * Per-flow channels: give a new flow accepted into channel @p channel (an
 * id from rule_channel_fn, or the default) a channel of its own, when
 * @p channel is marked per-flow. Called once per flow (connection) on the
 * rules lcore, after every module's on_insert.
 * @return the per-flow channel's id; -ENOTSUP when @p channel is not
 *   per-flow (the flow keeps it, not counted); any other -errno (e.g.
 *   -ENOSPC: the pool is empty) keeps the flow on @p channel, counted in
 *   struct rule_engine_stats::chan_flow_fallback.
 */
typedef int (*rule_chan_flow_alloc_fn)(void *arg, uint16_t channel);

/**
 * Return a per-flow channel that rule_chan_flow_alloc_fn gave: called once
 * both entries of its flow are gone and a grace period of the engine's
 * readers has passed (no RX lcore can still enqueue to it), or at once for
 * a flow no reader ever saw (its insert failed). Whatever is left in the
 * ring is the callee's to drain or count.
 * @return 0; -EBUSY: try again later (e.g. a consumer is still attached);
 *   other -errno: given up, counted in chan_flow_free_fail.
 */
typedef int (*rule_chan_flow_free_fn)(void *arg, uint16_t id);

/** Engine parameters. Zero means "default" where one is given. */
struct rule_engine_params {
	const char *name;          /**< unique, 1..16 characters (tables derive names from it) */
	uint32_t capacity_v4;      /**< IPv4 flow entries (both directions count) */
	uint32_t capacity_v6;      /**< IPv6 flow entries */
	enum fc_full_policy full_policy;
	uint32_t max_readers;      /**< RX lcores that read the tables; 0 = 1 */
	int socket_id;
	bool conntrack;            /**< track connections (ctstate, reply entries) */
	struct mod_ct_cfg ct;      /**< with @c conntrack; all zero = mod_ct_cfg_init() */
	uint32_t untracked_timeout; /**< idle timeout of untracked entries, ms; 0 = 30000 */
	uint32_t nat_bindings;     /**< NAT bindings; 0 = NAT rules are ignored */
	uint32_t nat_seed;
	uint32_t max_routes_v4;    /**< 0 = 1024 */
	uint32_t max_routes_v6;    /**< 0 = 1024 */
	uint32_t max_pending;      /**< changed rules one commit may list before it
				        counts as "everything"; 0 = 256 */
	uint16_t default_channel;  /**< channel of "" */
	const struct fc_locals *locals; /**< optional: local bits of translated keys */
	rule_channel_fn channel_fn; /**< optional: without it every flow gets the default */
	rule_port_addr_fn port_addr_fn; /**< optional: without it masquerade drops (nat_error) */
	/** optional: per-flow channels (both or neither with chan_flow_free_fn) */
	rule_chan_flow_alloc_fn chan_flow_alloc_fn;
	rule_chan_flow_free_fn chan_flow_free_fn;
	void *cb_arg;              /**< first argument of every callback */
};

/** Engine counters (rule_engine_stats_get()). */
struct rule_engine_stats {
	uint64_t upcalls[RULE_UPCALL__COUNT]; /**< packets by upcall reason */
	uint64_t flows;        /**< forward entries created */
	uint64_t replies;      /**< reply entries created */
	uint64_t cached_drops; /**< new flows cached as DROP */
	uint64_t uncached;     /**< packets decided without an entry (any cause) */
	uint64_t table_full;   /**< of those: the table refused the insert */
	uint64_t revalidated;  /**< entries re-run through the filter after a commit */
	uint64_t refreshed;    /**< entries a commit could not change, moved to its generation */
	uint64_t rerouted;     /**< cached entries given a new output port by a route change */
	uint64_t route_walks;  /**< walks over the cached flows started by route changes */
	uint64_t removed;      /**< entries gone (aged, evicted, flushed, deleted) */
	uint64_t commits;
	uint64_t commits_full; /**< commits taken as "everything changed" */
	uint64_t classify_cls; /**< classifications by the compiled classifier */
	uint64_t classify_ref; /**< classifications by the reference evaluator (overlay) */
	uint64_t related;      /**< ICMP errors found RELATED */
	uint64_t related_nat;  /**< ... of translated connections, translated (mod_nat_icmp_error()) */
	uint64_t channel_unknown; /**< channel names the callback did not know */
	uint64_t aged;         /**< entries aged out (both directions idle) */
	uint64_t chan_flows;   /**< per-flow channels given to flows */
	uint64_t chan_flow_fallback; /**< per-flow channel refused (pool empty): parent used */
	uint64_t chan_flow_freed;    /**< per-flow channels returned */
	uint64_t chan_flow_free_fail; /**< per-flow channels the free callback gave up on */
	uint64_t drops[RULE_DROP__COUNT]; /**< dropped packets by reason */
	uint32_t gen;          /**< current generation */
	uint32_t cls_gen;      /**< generation of the installed classifier (0: none) */
	uint32_t pending;      /**< changes not yet retired by revalidation */
	uint32_t overlay;      /**< changes newer than the classifier */
	bool rerouting;        /**< a walk re-routing cached flows is in progress */
};

/** The fast path's view of an engine: the first member of struct rule_engine. */
struct rule_engine_view {
	uint32_t gen; /**< current generation (acquire/release) */
	uint32_t pad;
	const struct mod_nat *nat;
};

/**
 * Create an engine: two flow tables, an RCU variable for readers, the NAT
 * table and the route tables; the rule set is an empty one (accept all),
 * generation 1; no classifier yet (the reference evaluator decides).
 * @return the engine, or NULL with rte_errno EINVAL, ENOMEM, EEXIST.
 * Context: main lcore.
 */
struct rule_engine *rule_engine_create(const struct rule_engine_params *p);

/** Free an engine; NULL is accepted. Context: main lcore, no reader or writer left. */
void rule_engine_free(struct rule_engine *eng);

/**
 * The flow table of @p family (FC_AF_INET4/6), for fc_table_lookup_bulk().
 * @return the table, or NULL for another family.
 * Context: any.
 */
struct fc_table *rule_engine_table(const struct rule_engine *eng, unsigned int family);

/** The NAT table (for mod_nat_apply()), or NULL without NAT. Context: any. */
const struct mod_nat *rule_engine_nat(const struct rule_engine *eng);

/** The current rule set (read-only; valid until the next commit). Context: rules lcore. */
const struct rule_set *rule_engine_rules(const struct rule_engine *eng);

/**
 * Register a module. Built-in modules are registered by rule_engine_create().
 * @param m  copied; @c name must outlive the engine
 * @return 0, -EINVAL (NULL, no name, no callback), -ENOSPC, -EEXIST (name taken).
 * Context: rules lcore, before traffic.
 */
int rule_engine_module_register(struct rule_engine *eng, const struct rule_module *m);

/**
 * Register the calling thread as reader @p reader_id with the engine's RCU
 * variable and both tables. @return 0, -EINVAL.
 * Context: the reader thread.
 */
int rule_engine_reader_register(struct rule_engine *eng, unsigned int reader_id);

/** Unregister reader @p reader_id. @return 0, -EINVAL. Context: the reader thread. */
int rule_engine_reader_unregister(struct rule_engine *eng, unsigned int reader_id);

/**
 * Report a quiescent state to the engine and both tables: the reader holds
 * no action copy, pending-change list or NAT slot it relies on.
 * Context: reader @p reader_id, once per loop.
 */
void rule_engine_quiescent(struct rule_engine *eng, unsigned int reader_id);

/**
 * Decide a burst of upcalled packets: look each key up again; create new
 * flows (modules, forward and reply entries); hand interest packets to the
 * modules; revalidate stale entries. Never touches mbufs.
 * @param up   @p n upcalls
 * @param n    count
 * @param dec  receives @p n decisions
 * @param now  current time, ms
 * @return @p n.
 * Context: rules lcore.
 */
unsigned int rule_engine_upcall_burst(struct rule_engine *eng, const struct rule_upcall up[],
	unsigned int n, struct rule_decision dec[], uint32_t now);

/**
 * Commit a new rule set: the very next upcall and stale check see it.
 * O(changed rules), never O(flows).
 * @param s  the set; the engine owns it from now on, whatever the result
 * @return 0; -EINVAL (NULL), -ENOMEM (nothing changed, @p s is freed).
 * Context: rules lcore.
 */
int rule_engine_commit(struct rule_engine *eng, struct rule_set *s);

/** Current generation. Context: any. */
uint32_t rule_engine_generation(const struct rule_engine *eng);

/**
 * The set a classifier should be built from: a clone of the current set.
 * @param gen  receives its generation, for rule_engine_cls_ready()
 * @return the clone (the caller frees it), or NULL with rte_errno EALREADY
 *   (the installed classifier is current) or ENOMEM.
 * Context: rules lcore.
 */
struct rule_set *rule_engine_cls_wanted(struct rule_engine *eng, uint32_t *gen);

/**
 * Install a classifier built from the set of generation @p gen and retire
 * the overlay changes it covers.
 * @param cls  taken over on success
 * @return 0; -EINVAL (NULL), -ESTALE (not newer than the installed one:
 *   the caller keeps and frees @p cls).
 * Context: rules lcore.
 */
int rule_engine_cls_ready(struct rule_engine *eng, struct rule_cls *cls, uint32_t gen);

/**
 * Background work, bounded: release what readers no longer hold (NAT
 * bindings, per-flow channels), age idle flows and revalidate entries after
 * commits (at most about @p budget entries visited). Aging is the engine's
 * own, not fc_table_age(): as in Linux, traffic in either direction keeps a
 * connection, so an entry goes only when it and its peer are both idle past
 * its timeout (both go, RULE_GONE_AGED, counted in
 * rule_engine_stats::aged). @return entries visited.
 * Context: rules lcore.
 */
unsigned int rule_engine_step(struct rule_engine *eng, uint32_t now, unsigned int budget);

/**
 * Remove every flow (modules' on_remove are called). @return entries removed.
 * Context: rules lcore.
 */
unsigned int rule_engine_flush(struct rule_engine *eng);

/** Out-of-line part of rule_engine_stale(). Context: registered reader or rules lcore. */
bool rule_engine_stale_check(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k);

/**
 * Must a hit be decided by the slow path because a commit newer than its
 * entry may change it? One generation compare in the common case; else the
 * key (as the filter saw it) is checked against the published changes.
 * @param a  the action fc_table_lookup_bulk() copied
 * @param k  the entry's key
 * @return true: upcall the packet with RULE_UPCALL_STALE.
 * Context: registered reader (between quiescent reports), or rules lcore.
 */
static inline bool
rule_engine_stale(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	if (likely(a->gen == __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE)))
		return false;
	return rule_engine_stale_check(eng, a, k);
}

/**
 * Does the entry's interest mask select this packet (upcall it with
 * RULE_UPCALL_INTEREST)? FC_INTEREST_ALL selects all, the TCP bits a TCP
 * packet with that flag.
 * Context: any lcore.
 */
static inline bool
rule_engine_wants(const struct fc_action *a, const struct fc_pkt *p)
{
	uint16_t i = a->interest;

	if (likely(i == 0))
		return false;
	if (i & FC_INTEREST_ALL)
		return true;
	/* tcp_flags is 0 for every other protocol. */
	return ((i & FC_INTEREST_TCP_SYN) && (p->tcp_flags & 0x02)) ||
		((i & FC_INTEREST_TCP_FIN) && (p->tcp_flags & 0x01)) ||
		((i & FC_INTEREST_TCP_RST) && (p->tcp_flags & 0x04));
}

/** Sum the counters. Context: any (values may be slightly stale). */
void rule_engine_stats_get(const struct rule_engine *eng, struct rule_engine_stats *st);

/** Name of a drop reason ("filter", ...); "?" if out of range. Context: any. */
const char *rule_drop_name(unsigned int drop);

/** Name of an upcall reason ("miss", "interest", "stale"); "?" if out of range. */
const char *rule_upcall_name(unsigned int reason);

/**
 * Per-rule counters: packets and bytes of the live entries naming the rule,
 * plus those of entries gone, plus packets decided without an entry.
 * Walks the tables (O(flows)).
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
 * @return it, or NULL with rte_errno EINVAL (NULL engine) or ENOMEM.
 * Context: rules lcore, or control with it stopped.
 */
struct rule_counters_snap *rule_engine_counters_snap(const struct rule_engine *eng);

/**
 * Counters of one rule in a snapshot (what rule_engine_rule_counters()
 * would have said when it was taken).
 * @param rule_id  a rule id or RULE_ID_POLICY
 * @return 0 (unknown ids: 0 packets), -EINVAL (NULL, RULE_ID_NONE).
 * Context: any (the snapshot is the caller's).
 */
int rule_counters_snap_get(const struct rule_counters_snap *s, uint32_t rule_id,
	uint64_t *packets, uint64_t *bytes);

/** Free a snapshot; NULL is accepted. Context: any. */
void rule_counters_snap_free(struct rule_counters_snap *s);

/** One flow for listing (rule_engine_flow_next()). */
struct rule_flow_info {
	struct fc_key key;
	uint32_t idx;
	struct fc_action act;
	uint32_t timeout;
	uint32_t created;
	uint32_t last_seen;
	uint64_t packets;
	uint64_t bytes;
};

/**
 * Walk the flows of both tables: start with *it = 0, call until -ENOENT.
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
 * Format one flow: key, verdict, rule, channel, port, direction, conntrack
 * state, NAT slot, interest, generation, counters.
 * @return characters written (excluding NUL), -ENOSPC if truncated, -EINVAL.
 * Context: any.
 */
int rule_engine_flow_format(const struct rule_flow_info *info, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Route module                                                              */
/* ------------------------------------------------------------------------ */

/*
 * mod_route (lib/engine/mod_route.c): longest-prefix match on the
 * destination as translated (after DNAT) -> output port, on rte_lpm and
 * rte_lpm6. No route: RULE_PORT_PAIRED; dst_local keys: RULE_PORT_LOCAL.
 * Routes change new flows; cached flows keep their port until they go
 * (see rule_engine_flush()).
 */

/**
 * Add (or replace) a route.
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order; host bits must be zero
 * @param depth   prefix length, 0..32 / 0..128 (0: default route)
 * @param port    output port (< RULE_PORT_LOCAL)
 * @return 0, -EINVAL, -ENOSPC.
 * Context: rules lcore.
 */
int rule_engine_route_add(struct rule_engine *eng, unsigned int family, const uint8_t *addr,
	uint8_t depth, uint16_t port);

/** Delete a route. @return 0, -EINVAL, -ENOENT. Context: rules lcore. */
int rule_engine_route_del(struct rule_engine *eng, unsigned int family, const uint8_t *addr,
	uint8_t depth);

/**
 * Output port for a destination. @return the port, or RULE_PORT_PAIRED.
 * Context: rules lcore.
 */
uint16_t rule_engine_route_lookup(const struct rule_engine *eng, unsigned int family,
	const uint8_t *addr);

/**
 * Write the routes, "10.0.0.0/8 port 1" per line. @return routes written, -EINVAL, -EIO.
 * Context: rules lcore, or control with it stopped.
 */
int rule_engine_route_dump(const struct rule_engine *eng, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_H */
