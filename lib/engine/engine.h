/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the rules engine, gufc's slow path (prefix rule_engine_).
 *
 * What it is: what the rules lcore runs for every packet the RX lcores
 * could not decide from the flow cache. It owns the two flow tables (IPv4,
 * IPv6) as their single writer, the current rule set and the compiled
 * classifier; for a new flow it runs the registered modules' on_insert in
 * order, inserts the forward entry (and the reply entry a connection or a
 * translation needs) and decides the packet; for a packet of a cached flow
 * that an interest bit selected it runs on_packet; it tells the modules
 * which entries go (aging, eviction, flush, deletion). It also applies rule
 * commits, revalidates cached entries after them, ages idle flows and
 * gives the modules bounded background work (rule_engine_step()).
 *
 * Where it sits: above lib/classifier, lib/rules and lib/flowcache; below
 * the modules (lib/modules: conntrack, nat, route), the offload policy and
 * the app, which register modules with rule_engine_module_register() and
 * call the engine. The engine knows no module: conntrack, NAT and routing
 * reach it only through struct rule_module, struct rule_flow and the
 * services below. Two stages are built in because they are what a rule set
 * means: "filter" (order RULE_MOD_ORDER_FILTER: the filter table's verdict,
 * rule and channel name for both directions) and "channel" (order
 * RULE_MOD_ORDER_CHANNEL: channel names to ids; per-flow channels).
 *
 * Threads: everything marked "rules lcore" runs on one thread at a time
 * (the single writer). RX lcores only read: fc_table_lookup_bulk() on
 * rule_engine_table(), rule_engine_stale(), rule_engine_wants() and
 * whatever a module publishes for them (the NAT rewrite slots); they
 * register with rule_engine_reader_register() and report
 * rule_engine_quiescent() once per loop, which covers the tables, the
 * pending-change list and everything deferred with rule_engine_defer().
 * Libraries know no lcores: "rules lcore" is whoever the app makes call.
 *
 * Shared structures: struct rule_engine is owned by the app (create/free on
 * the main lcore), written by the rules lcore only; RX lcores read its
 * generation. struct rule_flow is valid during a module callback only.
 * Entries are reclaimed by the tables' RCU; module state tied to an entry
 * is released from on_remove after a grace period (rule_engine_defer()).
 *
 * Rule commits: rule_engine_commit() swaps the set and bumps the generation
 * in O(changed rules), recording the changed rules (the set's change log;
 * "everything" for a set that is no descendant of the current one, or
 * whose chain hooks or policies changed). Until the classifier catches up
 * (rule_engine_cls_wanted() / _cls_ready()), keys a recent change could
 * affect are classified by the reference evaluator (rule_engine_classify*()
 * for modules too). A hit whose entry is older than a change its key (as
 * the filter saw it) matches is "stale" (rule_engine_stale()) and goes to
 * the slow path; rule_engine_step() revalidates in the background. No
 * packet gets a verdict from a set older than the one committed before it
 * arrived; translations of connections are not redone (netfilter).
 *
 * Flows decided without an entry (struct rule_flow::nocache): non-first
 * fragments, packets of a family without a table, and whatever a module
 * marks (conntrack: INVALID packets and ICMP errors) go through the same
 * modules; no entry is inserted and the modules' on_abort is called; the
 * decision keeps only a connection's NAT slot (RULE_DEC_F_ICMP_ERR).
 *
 * Per-flow channels (rule_chan_flow_alloc_fn): a new flow accepted into a
 * channel marked per-flow gets one of its own, shared by both entries when
 * their rules name the same channel, owned by the forward entry and handed
 * back (rule_chan_flow_free_fn) a grace period after the flow goes. The
 * entries keep the named channel (the parent) in fc_action::channel and a
 * bit (RULE_ACT_M0_CHAN_FLOW); the per-flow channel's id (32 bits: the
 * pool is not bounded by the action's 16-bit field) is kept per table slot
 * beside the entry, where rule_engine_channel() finds it.
 *
 * Insert clash: a new flow whose reply key is another flow's entry (any
 * input port) is dropped as RULE_DROP_CT_CLASH (nf_conntrack's clash).
 * Input ports: a key holds the port its packets arrive on (fc_key_in_port()),
 * so a flow seen on two ports is two flows. A reply entry's key has the
 * port its replies will arrive on: the forward flow's output port as
 * rule_engine_out_port() resolves it (RULE_PORT_PAIRED: the input port's
 * pair, from the application's rule_port_pair_fn; RULE_PORT_LOCAL: the
 * input port). A connection stays one per tuple, as in Linux, whose
 * conntrack tuple has no interface:
 *  - the first reply of a connection that arrives on another port than
 *    predicted (one capture replayed on one port, a router whose replies
 *    come back another way) moves the reply entry to the port it arrived
 *    on: a new entry with the same action, counters and peer, the old one
 *    deleted; modules see on_move, not on_remove. Counted reply_moved;
 *    a route change moves a reply entry that has had no packet yet the
 *    same way (rule_engine_flow_update());
 *  - once 16 first replies in a row of connections from one input port,
 *    expected on one port, came on one other port, new such connections'
 *    reply entries are keyed on that port from the start (counted
 *    reply_guessed); a first reply elsewhere moves the entry as above and
 *    ends the guessing until such a run comes again;
 *  - any other packet of a connection that arrives on a port none of its
 *    entries has is decided on the slow path as that connection's packet:
 *    the conntrack state of the entry found, the filter on the packet's own
 *    key (its actual port), the entry's NAT; no entry is made for it and it
 *    is no clash. Counted port_mismatch;
 *  - a new connection clashes with any entry (cached drops aside) that holds
 *    its reply tuple on any port, and replaces the cached drops of its two
 *    tuples on every port.
 * These lookups are port-agnostic: the key with each port an entry of the
 * engine has ever had (rule_engine_flow_lookup_any()), on the slow path only.
 */
#ifndef GUFC_ENGINE_H
#define GUFC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_branch_prediction.h>
#include "classifier.h"
#include "flowcache.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rule_engine;
/* ------------------------------------------------------------------------ */
/* Upcalls and decisions                                                     */
/* ------------------------------------------------------------------------ */

/**
 * Why the slow path drops a packet: one X-macro, X(NAME, "id", "text"), from
 * which the app composes its drop registry. RULE_DROP_NONE (0, not a drop)
 * is not in the list.
 */
#define RULE_DROP_REASONS(X) \
	X(FILTER, "filter", "dropped by a filter rule or chain policy") \
	X(CT_INVALID, "ct_invalid", "conntrack: packet fits no connection state") \
	X(NAT_EXHAUSTED, "nat_exhausted", "no free NAT tuple") \
	X(NAT_ERROR, "nat_error", "NAT rewrite failed") \
	X(MODULE, "module", "dropped by a rules-engine module") \
	X(BAD_PACKET, "bad_packet", "rules engine: malformed packet") \
	X(CT_CLASH, "ct_clash", "conntrack: new flow clashes with another connection's tuple") \
	X(CT_HELPER, "ct_helper", "conntrack helper: partial or malformed command, or no room to expect") \
	X(MARTIAN, "martian", "martian source or destination address from outside (as Linux's input routing)") \
	X(ROUTE_BLACKHOLE, "route_blackhole", "a routing rule's blackhole (route-rule ... blackhole): dropped silently") \
	X(ROUTE_UNREACHABLE, "route_unreachable", "a routing rule's unreachable: dropped, ICMP net unreachable sent") \
	X(ROUTE_PROHIBIT, "route_prohibit", "a routing rule's prohibit: dropped, ICMP administratively prohibited sent") \
	X(ERROR, "engine_error", "rules engine: internal error")

/** Drop reasons: RULE_DROP_NONE, then RULE_DROP_<NAME> of RULE_DROP_REASONS. */
enum rule_drop {
	RULE_DROP_NONE, /**< not dropped */
#define RULE_DROP_ENUM(name, id, text) RULE_DROP_##name,
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
#define RULE_NAT_NONE UINT32_MAX /**< no NAT rewrite in struct rule_decision::nat_slot */

/** One packet handed to the slow path. Read-only to the engine. */
struct rule_upcall {
	struct fc_pkt pkt;    /**< parsed (FC_PARSE_OK or a fragment), local bits set */
	const uint8_t *frame; /**< contiguous headers from the Ethernet header (ICMP errors) */
	uint32_t frame_len;   /**< bytes at @c frame */
	uint32_t len;         /**< the IP datagram's length, for byte counters (iptables counts those) */
	uint16_t in_port;     /**< input port */
	uint8_t reason;       /**< enum rule_upcall_reason */
};

/* struct rule_decision::flags. */
#define RULE_DEC_F_CACHED 0x01   /**< from (or put in) a cached entry */
#define RULE_DEC_F_ICMP_ERR 0x02 /**< an ICMP error of a translated connection: nat_slot is
				      for mod_nat_icmp_error(), not mod_nat_apply() */

/** What to do with one upcalled packet. The app applies it (NAT, enqueue). */
struct rule_decision {
	uint32_t rule_id;  /**< deciding filter rule, RULE_ID_POLICY, or RULE_ID_NONE */
	uint32_t nat_slot; /**< mod_nat_apply() slot, or RULE_NAT_NONE */
	uint32_t channel;  /**< channel id (a per-flow channel's: 32 bits) */
	uint16_t out_port; /**< output port or RULE_PORT_* */
	uint16_t adj;      /**< router mode: the next hop's adjacency (fc_action::adj), 0: none */
	uint8_t verdict;   /**< FC_VERDICT_ACCEPT or FC_VERDICT_DROP */
	uint8_t drop;      /**< enum rule_drop (RULE_DROP_NONE when accepted) */
	uint8_t ctstate;   /**< the packet's RULE_CT_* bit, 0 if untracked */
	uint8_t flags;     /**< RULE_DEC_F_* */
	uint8_t reject;    /**< a drop by REJECT: enum rule_reject, the reply the app
			        sends (the family's default filled in); else RULE_REJECT_NONE */
	uint8_t pkt_list;  /**< the list of @c pkt_prog to run (engine_pktact.h) */
	uint16_t pkt_prog; /**< packet program + 1 the app runs on the packet; 0: none */
};

/* Modules: struct rule_flow, struct rule_module (engine_module.h). */
#include "engine_module.h"

/* ------------------------------------------------------------------------ */
/* Creation                                                                  */
/* ------------------------------------------------------------------------ */

/* The callbacks the app gives the engine (rule_channel_fn, ...). */
#include "engine_cb.h"

/** Engine parameters. Zero means "default" where one is given. */
struct rule_engine_params {
	const char *name;          /**< unique, 1..16 characters (tables derive names from it) */
	uint32_t capacity_v4;      /**< IPv4 flow entries (both directions count) */
	uint32_t capacity_v6;      /**< IPv6 flow entries */
	enum fc_full_policy full_policy;
	uint32_t max_readers;      /**< RX lcores that read the tables; 0 = 1 */
	int socket_id;
	uint32_t untracked_timeout; /**< idle timeout of entries no module times (untracked
					 flows, cached drops), ms; 0 = 30000 */
	uint32_t max_pending;      /**< changed rules one commit may list before it
				        counts as "everything"; 0 = 256 */
	uint16_t default_channel;  /**< channel of "" */
	rule_channel_fn channel_fn; /**< optional: without it every flow gets the default */
	/** optional: per-flow channels (both or neither with chan_flow_free_fn) */
	rule_chan_flow_alloc_fn chan_flow_alloc_fn;
	rule_chan_flow_free_fn chan_flow_free_fn;
	/** optional: port pairs (RULE_PORT_PAIRED); without it a port is its own pair */
	rule_port_pair_fn port_pair_fn;
	/** optional: routes for -m rpfilter; without it every source passes the check */
	rule_route_fn route_fn;
	void *cb_arg;              /**< first argument of every callback */
};

/** The fast path's view of an engine: the first member of struct rule_engine. */
struct rule_meter;
struct rule_pktprog;
struct rule_logspec;
struct rule_flagclass; /* engine_hit.h */
struct rule_engine_view {
	uint32_t gen; /**< current generation (acquire/release) */
	/**
	 * Expectations noted so far (rule_engine_expect_note(); 0: none
	 * yet), and per RULE_EXP_SLOTS hash of an expected tuple's family,
	 * protocol, destination and port the count at its latest. A new
	 * flow's cached drop holds the count it was decided under
	 * (fc_action::nat_id, RULE_ACT_M0_NEWDROP): one of a tuple expected
	 * since is stale. Written by the rules lcore (slot, then count,
	 * release); read by rule_engine_stale().
	 */
	uint32_t exp_epoch;
	uint32_t *exp_slots;
	struct rule_meter *meters; /**< RULE_METERS_MAX token buckets (engine_meter.h) */
	struct rule_pktprog *progs; /**< RULE_PKTPROGS_MAX packet programs (engine_pktact.h) */
	struct rule_logspec *specs; /**< RULE_LOGSPECS_MAX log specifications */
	uint64_t *spec_dropped;     /**< per spec: records not queued */
	struct rule_strpred *strs;  /**< RULE_STRPREDS_MAX string searches (engine_strpred.h) */
	struct rule_pred *preds;    /**< RULE_PREDS_MAX string predicates (decision trees) */
	struct rule_u32_prog *u32s; /**< RULE_U32PREDS_MAX u32 tests (engine_strpred.h) */
	struct rule_bpf_prog *bpfs; /**< RULE_BPFPREDS_MAX bpf programs (engine_strpred.h) */
	struct rule_pred_ctr *pred_ctr; /**< per predicate: packets per outcome but 0 */
	struct rule_prog_ctr *prog_turned; /**< per program: packets of list 1 (a meter turned) */
	/**
	 * Per table slot ([0] IPv4, [1] IPv6): the per-flow channel of the
	 * entry there (RULE_CHAN_NONE: none yet), or NULL without per-flow
	 * channels. Written by the rules lcore (release) after the entry's
	 * insert and cleared when it goes; read by rule_engine_channel().
	 */
	uint32_t *flow_chan[2];
	/**
	 * Per table slot ([0] IPv4, [1] IPv6): the counts at which an
	 * FC_ACT_F_COUNT entry's verdict may change (connbytes), or NULL
	 * before the first such entry. Written by the rules lcore before the
	 * entry's action names it; read by rule_engine_count_due().
	 */
	struct rule_count_limit *count_limit[2];
	/**
	 * Per table slot ([0] IPv4, [1] IPv6): what its entry counted that
	 * conntrack accepted but ignored, which Linux's accounting (connbytes)
	 * leaves out: the connection's counters are the entry's less these.
	 * NULL before the table's first window-checked entry. Allocated by the
	 * rules lcore (release), zeroed by it when an entry takes the slot;
	 * added to by whoever counts the segment (rule_engine_ct_ignored()).
	 */
	struct rule_ct_ignored *ct_ignored[2];
	/**
	 * The current set's packet classes (struct rule_flagclass: TCP flags,
	 * TTL, TOS byte, IP length, MSS option), or NULL (none: no entry is
	 * classed). Replaced by a commit whose set tests them otherwise (release), the old one retired after a grace
	 * period; read by rule_engine_class_ok().
	 */
	const struct rule_flagclass *flagclass;
};


/** Slots of struct rule_engine_view::exp_slots (a power of two). */
#define RULE_EXP_SLOTS 4096

/** No per-flow channel in struct rule_engine_view::flow_chan. */
#define RULE_CHAN_NONE UINT32_MAX

/**
 * fc_action::mod[0] bit the fast path reads (the rest of mod[] is the
 * engine's): the entry's packets go to its flow's own channel
 * (rule_engine_channel()); fc_action::channel holds the parent.
 */
#define RULE_ACT_M0_CHAN_FLOW 0x10

/**
 * fc_action::mod[0] bit the fast path reads: the entry is a new flow's
 * cached drop (no connection); its fc_action::nat_id holds the
 * expectation count it was decided under (struct rule_engine_view).
 */
#define RULE_ACT_M0_NEWDROP 0x04

/**
 * The reason a cached DROP entry's packets are dropped under: a new
 * flow's cached drop (RULE_ACT_M0_NEWDROP) keeps a reason other than the
 * filter's in fc_action::mod[1] (free there: such an entry has no
 * per-flow channel); every other drop entry is the filter's.
 */
static inline unsigned int
rule_engine_drop_of(const struct fc_action *a)
{
	return (a->mod[0] & RULE_ACT_M0_NEWDROP) && a->mod[1] != 0 ? a->mod[1] : RULE_DROP_FILTER;
}

/**
 * Whether a packet of key @p k, arriving from outside (not from this
 * host: FC_KEY_F_SRC_LOCAL clear), is a martian as Linux's input path
 * has it (no route_localnet, not the loopback device). @p stage_dst:
 * IPv4's check, made by the input route after PREROUTING on the
 * translated destination (@p k is then the key after nat PREROUTING);
 * otherwise IPv6's, made on reception before any hook. Each family's is
 * asked at its own place only; the other answers false.
 */
bool rule_engine_martian(const struct fc_key *k, bool stage_dst);

/**
 * fc_action::mod[0] bit the fast path reads: the entry's verdict holds for
 * the packets of its class of header fields only (rule_engine_class_ok()); others
 * go up and are decided one by one. fc_action::pkt_class holds the
 * class, or with FC_ACT_F_PKTACT names a program that holds it
 * (rule_engine_class_of()).
 */
#define RULE_ACT_M0_CLASSED 0x40

/**
 * Create an engine: two flow tables, an RCU variable for readers, the
 * built-in filter and channel stages; the rule set is an empty one (accept
 * all), generation 1; no classifier yet (the reference evaluator decides).
 * @param p  parameters
 * @return the engine, or NULL with rte_errno EINVAL, ENOMEM, EEXIST.
 * Context: main lcore.
 */
struct rule_engine *rule_engine_create(const struct rule_engine_params *p);

/**
 * Free an engine. Callbacks deferred with rule_engine_defer() run first (no
 * reader is left), so modules are freed after their engine.
 * @param eng  the engine; NULL is accepted
 * Context: main lcore, no reader or writer left.
 */
void rule_engine_free(struct rule_engine *eng);

/**
 * Register a module (a copy of @p m) at its order.
 * @param eng  the engine
 * @param m    the module; @c name must outlive the engine
 * @return 0; -EINVAL (NULL, no name, no callback), -ENOSPC (RULE_MODULES_MAX),
 *   -EEXIST (name taken).
 * Context: rules lcore, before traffic.
 */
int rule_engine_module_register(struct rule_engine *eng, const struct rule_module *m);

/**
 * Unregister a module (one whose creation failed half-way).
 * @param eng   the engine
 * @param name  its name
 * @return 0, -EINVAL (NULL), -ENOENT (no such module).
 * Context: rules lcore, before traffic (no entry holds the module's state).
 */
int rule_engine_module_unregister(struct rule_engine *eng, const char *name);

/**
 * The flow table of @p family, for fc_table_lookup_bulk().
 * @param eng     the engine
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @return the table, or NULL for another family or a capacity of 0.
 * Context: any.
 */
struct fc_table *rule_engine_table(const struct rule_engine *eng, unsigned int family);

/**
 * The current rule set (read-only; valid until the next commit).
 * @param eng  the engine
 * @return the set, or NULL for a NULL engine.
 * Context: rules lcore.
 */
const struct rule_set *rule_engine_rules(const struct rule_engine *eng);

/**
 * Register the calling thread as reader @p reader_id with the engine's RCU
 * variable and both tables.
 * @param eng        the engine
 * @param reader_id  0 .. max_readers - 1
 * @return 0, -EINVAL.
 * Context: the reader thread.
 */
int rule_engine_reader_register(struct rule_engine *eng, unsigned int reader_id);

/**
 * Unregister reader @p reader_id.
 * @param eng        the engine
 * @param reader_id  as registered
 * @return 0, -EINVAL.
 * Context: the reader thread.
 */
int rule_engine_reader_unregister(struct rule_engine *eng, unsigned int reader_id);

/**
 * Report a quiescent state to the engine and both tables: the reader holds
 * no action copy, pending-change list or module data (NAT slot) it relies on.
 * @param eng        the engine
 * @param reader_id  the calling reader
 * Context: reader @p reader_id, once per loop.
 */
void rule_engine_quiescent(struct rule_engine *eng, unsigned int reader_id);

/* ------------------------------------------------------------------------ */
/* The slow path                                                             */
/* ------------------------------------------------------------------------ */

/**
 * Decide a burst of upcalled packets: look each key up again; create new
 * flows (modules, forward and reply entries); hand interest packets to the
 * modules; revalidate stale entries. Never touches mbufs.
 * @param eng  the engine
 * @param up   @p n upcalls
 * @param n    count
 * @param dec  receives @p n decisions
 * @param now  current time, ms
 * @return @p n (0 for a NULL argument).
 * Context: rules lcore.
 */
unsigned int rule_engine_upcall_burst(struct rule_engine *eng, const struct rule_upcall up[],
	unsigned int n, struct rule_decision dec[], uint32_t now);

/**
 * Commit a new rule set: the very next upcall and stale check see it.
 * O(changed rules), never O(flows).
 * @param eng  the engine
 * @param s    the set; the engine owns it from now on, whatever the result
 * @return 0; -EINVAL (NULL), -ENOMEM (nothing changed, @p s is freed).
 * Context: rules lcore.
 */
int rule_engine_commit(struct rule_engine *eng, struct rule_set *s);

/** Current generation. @param eng the engine (NULL: 0). @return it. Context: any. */
uint32_t rule_engine_generation(const struct rule_engine *eng);

/**
 * The set a classifier should be built from: a clone of the current set.
 * @param eng  the engine
 * @param gen  receives its generation, for rule_engine_cls_ready()
 * @return the clone (the caller frees it), or NULL with rte_errno EINVAL,
 *   EALREADY (the installed classifier is current) or ENOMEM.
 * Context: rules lcore.
 */
struct rule_set *rule_engine_cls_wanted(struct rule_engine *eng, uint32_t *gen);

/**
 * Install a classifier built from the set of generation @p gen and retire
 * the overlay changes it covers.
 * @param eng  the engine
 * @param cls  taken over on success
 * @param gen  what rule_engine_cls_wanted() said
 * @return 0; -EINVAL (NULL, bad @p gen), -ESTALE (not newer than the
 *   installed one: the caller keeps and frees @p cls).
 * Context: rules lcore.
 */
int rule_engine_cls_ready(struct rule_engine *eng, struct rule_cls *cls, uint32_t gen);

/**
 * Background work, bounded: run what waited for a grace period of the
 * readers (rule_engine_defer(), per-flow channels), age idle flows,
 * revalidate entries after commits and call the modules' step (at most
 * about @p budget entries visited). Aging is the engine's own, not
 * fc_table_age(): as in Linux, traffic in either direction keeps a
 * connection, so an entry goes only when it and its peer are both idle
 * past its timeout (both go, RULE_GONE_AGED, counted in
 * rule_engine_stats::aged).
 * @param eng     the engine
 * @param now     current time, ms
 * @param budget  work bound
 * @return entries visited.
 * Context: rules lcore.
 */
unsigned int rule_engine_step(struct rule_engine *eng, uint32_t now, unsigned int budget);

/**
 * Router mode or bridge mode for the walks: in router mode a forwarded
 * packet (neither local bit) passes the router's TTL (hop limit) decrement
 * between its PREROUTING and FORWARD hooks, as in Linux, so the tests of
 * FORWARD and POSTROUTING (-m ttl, -m hl) see it one less, and the TTL
 * classes (rule_set_field_classes()) count the decrement among the
 * rewrites. Bridge mode (the default) decrements nothing. Entries cached
 * under the other mode are the caller's to flush.
 * @param eng  the engine
 * @param on   router mode
 * @return 0, -EINVAL, or -ENOMEM (no class table: entries are decided per packet).
 * Context: rules lcore.
 */
int rule_engine_router_set(struct rule_engine *eng, bool on);

/**
 * Remove every flow (modules' on_remove are called).
 * @param eng  the engine
 * @return entries removed. Context: rules lcore.
 */
unsigned int rule_engine_flush(struct rule_engine *eng);

/**
 * Out-of-line part of rule_engine_stale(), with the same parameters and result.
 * @param eng  the engine
 * @param a    the entry's action
 * @param k    the entry's key
 * @return true if stale. Context: registered reader or rules lcore.
 */
bool rule_engine_stale_check(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k);

/**
 * The exp_slots index of the tuple a flow with key @p k may be expected
 * as: its family, protocol, destination address and port (helpers expect
 * any source port, and IRC any source address).
 * @param k  a key (input port, source and flags not read)
 * @return an index below RULE_EXP_SLOTS. Context: any.
 */
static inline uint32_t
rule_engine_exp_slot(const struct fc_key *k)
{
	const uint8_t *d = (const uint8_t *)fc_key_dst(k);
	unsigned int n = k->family == FC_AF_INET4 ? 4 : 16;
	uint32_t h = 2166136261u ^ k->family;

	h = (h ^ fc_key_proto(k)) * 16777619u;
	for (unsigned int i = 0; i < n; i++)
		h = (h ^ d[i]) * 16777619u;
	h = (h ^ (uint32_t)fc_key_dport(k)) * 16777619u;
	return (h ^ (h >> 16)) & (RULE_EXP_SLOTS - 1);
}

/**
 * The channel an entry's accepted packets go to: fc_action::channel, or for
 * an entry with a per-flow channel (RULE_ACT_M0_CHAN_FLOW) the one kept
 * for its table slot.
 * @param eng  the engine
 * @param a    the entry's action (as read under its sequence count)
 * @param fam  0: IPv4 table, 1: IPv6 table
 * @param idx  the entry's index
 * @return the channel id; RULE_CHAN_NONE for an entry whose per-flow channel
 *   is not published yet (its insert is a moment old): upcall the packet,
 *   the slow path knows.
 * Context: any lcore, a registered reader between two quiescent reports.
 */
static inline uint32_t
rule_engine_channel(const struct rule_engine *eng, const struct fc_action *a, unsigned int fam,
	uint32_t idx)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	if (likely(!(a->mod[0] & RULE_ACT_M0_CHAN_FLOW) || v->flow_chan[fam] == NULL))
		return a->channel;
	return __atomic_load_n(&v->flow_chan[fam][idx], __ATOMIC_ACQUIRE);
}

/**
 * Does the entry's interest mask select this packet (upcall it with
 * RULE_UPCALL_INTEREST)? FC_INTEREST_ALL selects all, the TCP bits a TCP
 * packet with that flag (SYN/ACK included), FC_INTEREST_TCP_NOACK one
 * without ACK. FC_INTEREST_TCP_WIN selects nothing here: the fast path
 * asks the conntrack module (mod_ct_fast_check()).
 * @param a  the entry's action
 * @param p  the parsed packet
 * @return true to upcall.
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
		((i & FC_INTEREST_TCP_RST) && (p->tcp_flags & 0x04)) ||
		((i & FC_INTEREST_TCP_NOACK) && !(p->tcp_flags & 0x10)) ||
		((i & FC_INTEREST_TCP_DATA) && p->tcp_dlen != 0);
}

/* ------------------------------------------------------------------------ */
/* Services for modules                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Evaluate a stage (rule_eval.h) on a packet context, with the overlay
 * (counted in classify_cls / classify_ref).
 * @param eng    the engine
 * @param stage  enum rule_stage
 * @param p      the packet context, updated (marks, ...)
 * @param pv     providers of stateful matches, or NULL (fresh state)
 * @param res    receives the result
 * @return 0, -EINVAL, -ELOOP, a provider's error.
 * Context: rules lcore.
 */
int rule_engine_classify(struct rule_engine *eng, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res);

/**
 * A stage's result for the flow's packet (on_insert). One context per flow
 * (rule_pkt_parse(), in_port, f->ctstate; raw sees INVALID): the stages up
 * to @p stage not run yet run in order (marks carry over). Keys: RAW, DST
 * f->key; FILTER f->fkey[0] (set here); SRC f->xkey, the route's port.
 * The filter drops at the first stage that dropped; a decision with
 * res->deps is not cached as is: a drop gets no entry, an accept entries
 * with FC_VERDICT_SLOW (each packet decided on its own).
 * @param f      the flow
 * @param stage  enum rule_stage
 * @param res    receives a pointer to the result (valid during the callback)
 * @return 0, -EINVAL, -ELOOP.
 * Context: rules lcore, in a module's on_insert.
 */
int rule_engine_classify_flow(struct rule_flow *f, enum rule_stage stage,
	const struct rule_eval **res);

/**
 * The mark a new flow's packets carry where routing decides them (as
 * Linux's `ip rule fwmark` sees it). The original direction: the mark
 * after the DST stage (mangle and nat PREROUTING, or OUTPUT), which this
 * runs if no module has yet (later, once the filter walked the flow, the
 * mark its packets leave the walk with). The reply direction: the mark
 * the reply's walk leaves its packets with (CONNMARK --restore-mark
 * included), known once the filter stage walked the reply (a module of
 * an order after RULE_MOD_ORDER_FILTER); 0 before.
 * @param f     the flow
 * @param dir   RULE_DIR_ORIG or RULE_DIR_REPLY
 * @param mark  receives the mark
 * @return 0, -EINVAL, -ELOOP (the DST walk's error).
 * Context: rules lcore, in a module's on_insert.
 */
int rule_engine_flow_mark(struct rule_flow *f, unsigned int dir, uint32_t *mark);

/**
 * Filter-table classification of a key alone (the other tables and
 * per-packet fields left out), with the overlay.
 * @param eng      the engine
 * @param k        the key as the filter sees it
 * @param ctstate  as rule_ref_filter()
 * @param kflags   RULE_KEY_F_* flags
 * @param res      receives the result
 * @return 0, -EINVAL, -ELOOP.
 * Context: rules lcore.
 */
int rule_engine_classify_filter(struct rule_engine *eng, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_result *res);

/**
 * The port an entry's packets leave by, as a port id: @p out_port itself
 * when it is a port, the pair of @p in_port for RULE_PORT_PAIRED or a port
 * that is none (rule_port_pair_fn; without it every port is one and its
 * own pair), @p in_port for RULE_PORT_LOCAL. The port a connection's
 * replies are expected on is this for its forward entry.
 * @param eng       the engine (its pairing)
 * @param out_port  fc_action::out_port
 * @param in_port   the entry's input port
 * @return the port id.
 * Context: rules lcore.
 */
uint16_t rule_engine_out_port(const struct rule_engine *eng, uint16_t out_port,
	uint16_t in_port);

/**
 * Replace a live entry's action and timeout (seqlocked for readers). When
 * the rule changes, the packets counted so far stay with the old rule in
 * the per-rule counters. When a connection's forward entry changes its
 * output port and its reply entry has had no packet yet, the reply entry
 * moves to the port the replies are now expected on (see "Input ports").
 * Interest bits @p a adds are kept as a module's without
 * RULE_MOD_F_OWN_INTEREST (struct rule_flow::interest_kept).
 * @param eng      the engine
 * @param family   FC_AF_INET4 or FC_AF_INET6
 * @param idx      entry index
 * @param a        the new action (keep gen and flags unless meant; the peer
 *   is in struct fc_entry_aux, untouched)
 * @param timeout  idle timeout, ms
 * @return 0, -ENOENT (no live entry there), -EINVAL.
 * Context: rules lcore.
 */
int rule_engine_flow_update(struct rule_engine *eng, unsigned int family, uint32_t idx,
	const struct fc_action *a, uint32_t timeout);

/** A callback deferred past a grace period of the readers (rule_engine_defer()). */
typedef void (*rule_defer_fn)(void *arg, uint64_t val);

/**
 * Call @p fn(@p arg, @p val) once no reader can hold anything it saw
 * before this call (an RCU grace period of the engine's readers), from a
 * later rule_engine_step(), in the order deferred; at the latest from
 * rule_engine_free().
 * @param eng  the engine
 * @param fn   the callback
 * @param arg  its first argument
 * @param val  its second argument
 * @return 0, -EINVAL, -ENOMEM (nothing deferred).
 * Context: rules lcore.
 */
int rule_engine_defer(struct rule_engine *eng, rule_defer_fn fn, void *arg, uint64_t val);

/**
 * A module expects a new flow like @p k (a helper's expectation: any
 * source port, perhaps any source): the new flows' cached drops of its
 * slot (rule_engine_exp_slot()) decided before now are stale, so the next
 * packet of a tuple dropped before the expectation existed is decided as
 * a new flow and can meet it (rule_engine_drop_expected()). O(1).
 * @param eng  the engine
 * @param k    the expected tuple (family, protocol, destination, port)
 * Context: rules lcore.
 */
void rule_engine_expect_note(struct rule_engine *eng, const struct fc_key *k);

/**
 * How many expectations were noted so far (rule_engine_expect_note(); it
 * wraps, skipping 0): a caller that keeps cached drops elsewhere (a NIC's)
 * rechecks them with rule_engine_stale() when it changed.
 * @param eng  the engine
 * @return the count. Context: any.
 */
static inline uint32_t
rule_engine_expect_count(const struct rule_engine *eng)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	return __atomic_load_n(&v->exp_epoch, __ATOMIC_ACQUIRE);
}

/*
 * Counters and listing: engine_info.h; per-entry counts: engine_count.h;
 * meters and packet programs: part of this manual.
 */
#ifdef __cplusplus
}
#endif
#include "engine_info.h"
#include "engine_count.h"
#include "engine_meter.h"
#include "engine_strpred.h"
#include "engine_pktact.h"
#include "engine_hit.h"

#endif /* GUFC_ENGINE_H */
