/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine private: the rules engine's layout, shared by engine.c
 * (creation, grace periods, entries that go, aging), engine_upcall.c
 * (upcalls), engine_mods.c (the module registry and the built-in filter and
 * channel stages), engine_commit.c (commits, overlay classification,
 * staleness, revalidation) and engine_info.c (counters, listing). Not for
 * other libraries: modules see only engine.h.
 */
#ifndef GUFC_ENGINE_PRIV_H
#define GUFC_ENGINE_PRIV_H

#include <rte_log.h>

#include "engine.h"
#include "engine_pv.h"

struct rte_rcu_qsbr;

extern int rule_engine_logtype;
#define ENG_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rule_engine_logtype, "engine: " fmt "\n", ##__VA_ARGS__)

/*
 * fc_action::mod[] bytes the engine owns (modules have ct_state, nat_id,
 * out_port and interest bits): mod[0], ENG_M0_* flags, read by the stale
 * check on RX lcores too; mod[1..2], the interest other modules asked for
 * (eng_extra_interest() below). A per-flow channel's id is kept per slot
 * (view.flow_chan), fc_action::channel holds its parent.
 */
#define ENG_M0_FK_SRC_LOCAL 0x01 /**< local bits of the key the filter saw (FC_ACT_F_NAT entries) */
#define ENG_M0_FK_DST_LOCAL 0x02
#define ENG_M0_NEWDROP RULE_ACT_M0_NEWDROP /**< a new flow cached as DROP: delete, not
					     refilter; nat_id: the expectation count */
#define ENG_M0_FK_UNKNOWN 0x08 /**< filter key not derivable: stale on any filter change */
#define ENG_M0_CHAN_FLOW RULE_ACT_M0_CHAN_FLOW /**< delivered to the slot's per-flow channel */
#define ENG_M0_CHAN_OWN 0x20  /**< this entry owns that per-flow channel (returns it when it goes) */
#define ENG_M0_CLASSED RULE_ACT_M0_CLASSED /**< verdict for its class of header fields (engine_pktclass.c) */
#define ENG_M0_CLASS_GUESS 0x80 /**< that class is a first segment's, not an ordinary one's */

/*
 * mod[1..2]: interest asked by modules without RULE_MOD_F_OWN_INTEREST
 * (struct rule_flow::interest_kept). RX lcores copy these bytes with the
 * action and ignore them.
 */
static inline uint16_t
eng_extra_interest(const struct fc_action *a)
{
	return (uint16_t)(a->mod[1] | a->mod[2] << 8);
}

static inline void
eng_set_extra_interest(struct fc_action *a, uint16_t i)
{
	a->mod[1] = (uint8_t)i;
	a->mod[2] = (uint8_t)(i >> 8);
}

/**
 * One changed rule of a commit, or "everything" (@c all) for a table.
 * Keys it could affect: rule_match_key(&r, k, RULE_CT_IGNORE, kflags).
 */
struct eng_change {
	uint32_t gen;  /**< generation of the commit that made it */
	uint8_t table; /**< enum rule_table */
	uint8_t all;   /**< matches every key */
	struct rule_keym r; /**< the changed rule's key fields (rule_keym_match()) */
};

/**
 * The pending-change list RX lcores read: immutable once published,
 * replaced as a whole (release store), freed after an RCU grace period of
 * the engine's variable. Changes by ascending generation; filter-table
 * changes and nat-table changes (the latter only matter for cached drops
 * of new flows).
 */
struct eng_pending {
	uint32_t n;
	struct eng_change c[];
};

/** What goes after a grace period: memory, a module's callback, a per-flow channel. */
struct eng_retire {
	uint64_t token;
	void *ptr;        /**< free() it, or NULL */
	rule_defer_fn fn; /**< fn(arg, val), or NULL */
	void *arg;
	uint64_t val;
	int64_t chan;     /**< chan_flow_free_fn() it, or -1 */
};

/** Most input ports listed for port-agnostic lookups (more: exact-match only). */
#define ENG_PORTS_MAX 64

/** Reply-port hints an engine keeps (engine_port.c, eng_reply_port()). */
#define ENG_RHINT_MAX 8
/**
 * First replies in a row that must have come on one other port before new
 * connections' reply entries are keyed on it (eng_reply_port()).
 */
#define ENG_RHINT_TRUST 16

/**
 * Where the first replies of connections from one input port came in,
 * when that was not where they were expected: one per (input port,
 * expected port). Rules lcore only (engine_port.c).
 */
struct eng_rhint {
	uint16_t in;   /**< the forward entries' input port */
	uint16_t want; /**< the port rule_engine_out_port() expects their replies on */
	uint16_t got;  /**< the port the latest moved first reply came on */
	uint16_t run;  /**< first replies in a row that came on @c got (saturating); 0: unused */
};

/** The entries of one key's tuple on the other listed ports (eng_tuple_find()). */
struct eng_tuple {
	uint32_t n;                   /**< entries found */
	uint32_t idx[ENG_PORTS_MAX];  /**< their indexes */
	uint16_t port[ENG_PORTS_MAX]; /**< their keys' input ports */
};

/** A registered module. */
struct eng_mod {
	struct rule_module m;
};

/** Per-rule counters of entries gone and of packets decided without one. */
struct eng_rule_ctr {
	uint64_t packets;
	uint64_t bytes;
};

/** One slot's side state (engine_side.c): kept only while a value is not zero. */
struct eng_side_rec {
	uint32_t slot;   /**< entry index + 1; 0: a free record */
	uint32_t fmark;  /**< the mark the flow's packets leave the walk with */
	uint32_t ctmark; /**< its connection's mark (both entries hold it) */
	uint32_t trace;  /**< the trace of the walk that set its action (engine_trace.c) */
	uint32_t tgen;   /**< the generation @c trace was set or refreshed under */
};

/** Ids a trace holds at most (the acts and notes of every stage, and a decision per stage). */
#define ENG_TRACE_IDS ((RULE_ACTS_MAX + RULE_NOTES_MAX + 1) * RULE_STAGE__COUNT)

/**
 * One trace: the counters one walk passed without them deciding, in order
 * (engine_trace.c); its ids are rule_engine::trace_pool[off .. off + n).
 */
struct eng_trace {
	uint32_t n;
	uint32_t off;
};

/** A flow table's side records: open addressing by slot, at most half full. */
struct eng_side {
	struct eng_side_rec *r;
	uint32_t cap; /**< a power of two, or 0 */
	uint32_t n;   /**< records in use */
};

/** Most per-rule counter slots (rule ids past it are not counted). */
#define ENG_RULE_CTR_MAX (1u << 22)

/**
 * The engine. Owned by the app (create/free on the main lcore); everything
 * but @c view is written by the rules lcore only.
 */
struct rule_engine {
	struct rule_engine_view view; /**< first: the inline fast-path checks read it */
	char name[17];
	struct rule_engine_params p;
	struct fc_table *t[2];        /**< [0] IPv4, [1] IPv6 */
	struct rte_rcu_qsbr *qsv;     /**< readers of the pending list and deferred data */
	struct eng_pending *pending;  /**< published (RCU), never NULL */

	/* Rule sets and classification. */
	struct rule_set *set;
	/** Header fields of a walk on an entry's key alone (eng_refilter()); 0 otherwise */
	struct rule_pktfields synth;
	/** Router mode (rule_engine_router_set()): forwarded walks see the TTL decrement */
	bool router;
	uint8_t hooks_used[RULE_TABLE__COUNT]; /**< RULE_HOOK_F() of the hooks a chain of @c set claims */
	/**
	 * Per enum rule_stage, bit (lbits | nat << 2) (eng_stage_walks()): the
	 * stage has a step whose walk can say more than nothing, for a key with
	 * local bits lbits (FC_KEY_F_*) and a ctstate the nat tables see (nat)
	 * or not. Steps whose chain has no rule and accepts are left out where
	 * their table's accept decides nothing (every table but filter): such a
	 * walk would only note the nat policy (nat_rule_id RULE_ID_POLICY).
	 */
	uint8_t stage_walk[RULE_STAGE__COUNT];
	/**
	 * Per enum rule_stage, the same bits: the stage has a step whose hook
	 * enters a chain at all (hooks_used). Clear: a skipped stage's result
	 * is a fresh one, with no step to merge (stage_skip()).
	 */
	uint8_t stage_touch[RULE_STAGE__COUNT];
	struct rule_cls *cls;
	struct eng_clsc *clsc;        /**< classification cache (engine_clscache.c) */
	uint32_t gen;
	uint32_t cls_gen;
	struct eng_change *chg;       /**< changes newer than min(cls_gen, reval_gen), ascending */
	uint32_t n_chg;
	uint32_t cap_chg;
	uint32_t reval_gen;           /**< changes up to here are retired from the pending list */

	/* Revalidation pass. */
	bool pass_active;
	uint32_t pass_gen;
	uint8_t pass_tbl;
	uint32_t pass_next;

	/* Grace-period queue. */
	struct eng_retire *ret;
	uint32_t n_ret;
	uint32_t cap_ret;

	/* Modules, by ascending order. */
	struct eng_mod mods[RULE_MODULES_MAX];
	unsigned int n_mods;
	/* Those with an entry_timeout, in order: aging asks it of every live entry. */
	uint8_t to_mods[RULE_MODULES_MAX];
	unsigned int n_to_mods;
	/* Those with a step, in order: rule_engine_step() runs them each call. */
	uint8_t step_mods[RULE_MODULES_MAX];
	unsigned int n_step_mods;

	/* Counters. */
	struct rule_engine_stats st;
	struct eng_rule_ctr *rctr;
	uint32_t n_rctr;
	/** built-in chains' policies' banks (RULE_ID_CHAIN_POLICY()): [IPv6][table][hook] */
	struct eng_rule_ctr pctr[2][RULE_TABLE__COUNT][RULE_HOOK__COUNT];
	struct eng_trace *traces;     /**< interned traces (id - 1) */
	uint32_t n_traces;
	uint32_t cap_traces;
	uint32_t *trace_pool;         /**< their ids, one after the other */
	uint32_t n_trace_pool;
	uint32_t cap_trace_pool;
	uint32_t *trace_ix;           /**< their hash index (id; 0 free) */
	uint32_t cap_trace_ix;
	struct eng_meter_key *mkeys;  /**< RULE_METERS_MAX: meter i's rule (view.meters[i]) */
	uint32_t n_meters;
	struct eng_nth *nth;          /**< nth matches' counters, by (rule, match) */
	uint32_t n_nth;
	uint32_t cap_nth;
	struct rule_recent *recent;   /**< "-m recent" lists (made at first use; kept across loads) */
	struct rule_hashlimit *hashlimit; /**< "-m hashlimit" tables (made at first use; kept
					 across loads while a rule names them) */
	struct eng_hl_meter *hlm;     /**< RULE_METERS_MAX: hashlimit buckets kept as meters */
	uint32_t n_hlm;
	struct eng_connlimit *connlimit; /**< "-m connlimit" counts (engine_connlimit.c; made
					 at first use; start over with the meters) */
	/* connbytes (engine_connbytes.c): the set's matches, as of generation cb_gen - 1. */
	struct rule_x_connbytes *cb;
	uint32_t n_cb;
	uint32_t cap_cb;
	uint32_t cb_gen;              /**< 0: not collected */
	/** the packet being decided, not counted by its entry yet (eng_conn_counts()) */
	struct eng_cb_pend cb_pend;
	struct eng_side side[2];      /**< per flow table: the marks of the few slots that have
				           one (slow path only: the fast path never needs them,
				           so they are not in the entry) */
	uint32_t *prog_ix;            /**< packet programs' hash index (id + 1; 0 free) */
	uint32_t *spec_ix;            /**< log specs' hash index (id + 1; 0 free) */
	uint32_t n_progs;             /**< programs in view.progs */
	uint32_t n_strs;              /**< string searches in view.strs */
	uint32_t n_u32s;              /**< u32 tests in view.u32s */
	uint32_t n_bpfs;              /**< bpf programs in view.bpfs */
	uint32_t n_preds;             /**< string predicates in view.preds */
	uint8_t *l3view;              /**< RULE_L3VIEW_MAX bytes: the slow path's header view
					   (eng_l3_view(); rules lcore only) */
	uint32_t n_specs;             /**< specs in view.specs */
	struct rule_engine_pktact_stats pst;
	uint32_t ctr_gen;             /**< the commit that began the current rule ids (a set
				           that is no descendant): entries validated before it
				           count for no rule of it */

	/* Removal context: why entries removed right now go. */
	uint8_t gone_why;
	bool flushing; /**< rule_engine_flush() runs: the table's removals are flushes */

	/* Input ports entries have had (port-agnostic lookups, engine_port.c). */
	uint16_t ports[ENG_PORTS_MAX];
	uint32_t n_ports;
	/* Where first replies came in instead of where expected (eng_reply_port()). */
	struct eng_rhint rhint[ENG_RHINT_MAX];

	/* Aging: the engine's own cursor per table (see eng_age()). */
	uint32_t age_cursor[2];
	uint32_t age_sweep_start[2];  /**< when the current sweep started */
	bool age_swept[2];            /**< a sweep has started before */
};

/** The entry index of live entry @p idx's other direction, or FC_INDEX_NONE. */
static inline uint32_t
eng_peer(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	return fc_table_peer(eng->t[ti], idx);
}

/** The idle timeout of live entry @p idx (fc_table_timeout()), 0 if none. */
static inline uint32_t
eng_timeout(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	return fc_table_timeout(eng->t[ti], idx);
}

/** Link live entries @p a and @p b as each other's peer (either may be FC_INDEX_NONE). */
static inline void
eng_link(struct rule_engine *eng, unsigned int ti, uint32_t a, uint32_t b)
{
	(void)fc_table_peer_set(eng->t[ti], a, b);
	(void)fc_table_peer_set(eng->t[ti], b, a);
}

/** Per-flow channel of slot @p idx of table @p ti (RULE_CHAN_NONE: none). */
static inline uint32_t
eng_flow_chan(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	const uint32_t *fc = eng->view.flow_chan[ti];

	return fc != NULL ? fc[idx] : RULE_CHAN_NONE;
}

/** Publish (or clear, RULE_CHAN_NONE) the per-flow channel of slot @p idx. */
static inline void
eng_flow_chan_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t id)
{
	uint32_t *fc = eng->view.flow_chan[ti];

	if (fc != NULL)
		__atomic_store_n(&fc[idx], id, __ATOMIC_RELEASE);
}

/** Table index of a family: 0 IPv4, 1 IPv6, -1 otherwise. */
static inline int
eng_tbl(unsigned int family)
{
	return fc_af_index(family);
}

/**
 * The engine's work area for one flow: the modules' struct rule_flow and
 * what only the engine's own stages need.
 */
struct eng_flow {
	struct rule_flow f;
	unsigned int n_ran;           /**< modules whose on_insert was called (for on_abort) */
	int32_t chan_flow;            /**< per-flow channel given to the flow, or -1 */
	uint16_t kept[2];             /**< per direction: interest of the modules without
				           RULE_MOD_F_OWN_INTEREST (into act.mod[1..2]) */
	uint32_t trace[2];            /**< per direction: the trace of its entry's walk */
	uint8_t first_leaf;           /**< the outcome of its entry's string predicate
				           @c first_pred the first packet had (not 0: counted on
				           the predicate once inserted) */
	uint16_t first_pred;
	uint16_t first_turned;        /**< program + 1 of its entry whose meter the first
				           packet found exceeded (counted apart on the
				           program once inserted: rule_engine_prog_turned()) */
	uint16_t prog_first;          /**< the first packet's own program + 1 (its walk's
				           actions), 0: none (the filter stage sets it) */
	bool walked;                  /**< the filter stage set @c trace[0] and @c prog_first
				           (every stage walked, to the first drop) */
	struct eng_pv pv;             /**< the flow's first packet's walk: it takes tokens */
	uint8_t stages;               /**< bit per enum rule_stage evaluated (rule_engine_classify_flow()) */
	bool pkt_built;               /**< @c pkt holds the context (built at the first stage walked) */
	uint64_t unkept0;             /**< eng_walk_unkept() before its first stage: the walk
				           memo keeps its walk only if no classification of it
				           added to it */
	/* Not cleared by flow_init(): valid per the bits of @c stages. */
	struct rule_pkt pkt;          /**< the packet as the stages saw it (marks carry over) */
	struct rule_eval ev[RULE_STAGE__COUNT]; /**< each stage's result */
	uint32_t ctmark;              /**< the connection's mark after both directions' walks */
	uint32_t mark[2];             /**< per direction: the mark its packets leave the walk with */
};

/** The eng_flow around @p f. */
static inline struct eng_flow *
eng_flow_of(struct rule_flow *f)
{
	return (struct eng_flow *)(void *)f;
}

/* Is the connection of entry action @p a closed, its entry lingering (rule_module::entry_closed)? */
bool eng_entry_closed(const struct rule_engine *eng, const struct fc_action *a);

/* Stateful matches and packet programs (engine_prog_priv.h). */
#include "engine_prog_priv.h"

/* An upcalled packet's TTL (hop limit) as received; false if its IP header is not in @c frame. */
static inline bool
eng_up_ttl(const struct rule_upcall *up, uint8_t *ttl)
{
	uint32_t off = (uint32_t)up->pkt.l3_off + (up->pkt.key.family == FC_AF_INET4 ? 8 : 7);

	if (up->frame == NULL || off >= up->frame_len)
		return false;
	*ttl = up->frame[off];
	return true;
}

#include "engine_walk.h"

/* Which walk the walk memo keeps (struct eng_walk_in::kind). */
enum eng_walk_kind {
	ENG_WALK_REFILTER,   /**< an entry's key alone (eng_refilter_memo(): a SYN's established) */
	ENG_WALK_NEW_ORIG,   /**< a new flow's original direction from its filter stage on */
	ENG_WALK_NEW_REPLY,  /**< a new flow's reply direction (reply_verdict()) */
};
/*
 * Everything eng_pkt_verdict() of an entry's key alone (no packet) walks
 * from, as the walk memo keys it (engine_clscache.c): the context its
 * first stage starts from, the filter's key, the port -o sees, the later
 * stages' ctstate, whether they view the bytes, and the entry's action
 * less what is its own (nat_id, ext, gen: the filter's key holds what NAT
 * makes of it). A new flow's walks (@c kind) are keyed the same way:
 * the context its first stage starts from, as its filter stage would
 * see it, and the key the later stages see (the original direction's:
 * what NAT made of the destination; the reply's: the filter's). Zeroed
 * first: compared as bytes.
 */
struct eng_walk_in {
	struct rule_pkt p;
	struct fc_key fk;
	struct fc_action a;
	uint32_t unknown; /**< eng_pktclass_rep()'s */
	uint16_t out;
	uint8_t cs;
	uint8_t l3v;
	uint8_t guess;
	uint8_t kind;     /**< enum eng_walk_kind */
	uint8_t fl;       /**< a new flow's: ENG_WALK_F_* */
};
_Static_assert(offsetof(struct eng_walk_in, p) == 0 &&
		       offsetof(struct eng_walk_in, fk) == sizeof(struct rule_pkt),
	"eng_walk_in_rest() clears what follows the context");
/*
 * A memo key's fields after its context, cleared: the context's builder
 * (rule_pkt_init()) clears all of it itself, so its bytes are cleared once.
 */
static inline void
eng_walk_in_rest(struct eng_walk_in *in)
{
	memset(&in->fk, 0, sizeof(*in) - offsetof(struct eng_walk_in, fk));
}
#define ENG_WALK_F_XDST 1u      /**< its destination translated (rule_flow::xdst) */
#define ENG_WALK_F_UNTRACKED 2u /**< rule_flow::untracked */
void eng_pkt_verdict_in(struct rule_engine *eng, const struct fc_key *k, const struct fc_key *fk,
	const struct fc_action *a, unsigned int ctstate, const struct eng_marks *mk,
	struct eng_walk_in *in);
/* What a walk made of an entry (refilter(), a new flow's), kept by the walk memo. */
struct eng_walk_out {
	struct fc_action a; /**< the action before its channel was named */
	uint32_t mark;
	uint32_t ctmark;
	uint32_t trace;
	char channel[RULE_NAME_MAX];
	/**
	 * A new flow's walks': its original direction's filter and src
	 * stages' results (NAT's own on_insert reads the src stage's, its
	 * nat rules count the connection), in the memo beside the entry;
	 * NULL for a refilter's.
	 */
	struct rule_eval *ev;
};
/*
 * A cached verdict's walks when meters were reached (eng_pv_meters(),
 * engine_meter.c): the walk with every meter conforming, then with each
 * one exceeded in turn, on @p a's flow. A meter whose answer changes
 * nothing (verdict, rule, actions, marks, the meters reached) is charged
 * and the walk goes on (a rule whose later match fails either way); one
 * meter at most may change the outcome, reached last on both of its
 * answers. @return 1 when @p a needs the meters (a program:
 * rule_pktprog::pre, ::meter, with both answers' deciding rule and trace
 * in ::rule, ::trace; the conforming verdict and rule), 0 when it needs
 * none (@p a not changed),
 * -ENOTSUP (two deciding meters, a meter after the deciding one, more
 * than RULE_PKTPROG_PRE_MAX to charge: decided per packet), or -errno.
 */
int eng_meter_decide(struct rule_engine *eng, const struct rule_upcall *up,
	const struct fc_key *k, const struct fc_key *fk, struct fc_action *a, unsigned int ctstate,
	uint32_t ctmark);
/*
 * eng_meter_decide() on walks that @p walk makes (with @p arg, the
 * provider it is given, and marks: ctmark in, both out), of a flow of
 * @p family: the reply's (engine_mods.c). @p charge_only: a meter that
 * changes the outcome is -ENOTSUP (the caller decides such walks per
 * packet).
 */
int eng_meter_decide_walk(struct rule_engine *eng,
	int (*walk)(void *arg, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT],
		unsigned int *d, uint32_t *deps, struct eng_marks *mk),
	void *arg, unsigned int family, struct fc_action *a, bool charge_only);
/*
 * The same for a walk that reached string searches (eng_pv_strs()): the
 * walks with their answers assigned one by one make a decision tree (a
 * predicate, engine_strpred.h); when its outcomes differ in verdict,
 * actions, deciding rule or trace, @p a gets a program naming it, the
 * verdict and rule of its outcome 0 (an accepting one where one accepts),
 * and @p trace outcome 0's trace. The walks may read header fields of a
 * class (TTL, TOS, length, MSS, TCP flags): @p pc_deps receives the union
 * of those every walk read, which the caller classes the entry over
 * (eng_pktclass_take(): the tree holds for the packets of that class).
 * @return 1 (a predicate), 0 (the same every way: @p a not changed),
 *   -ENOTSUP (a meter too, or more outcomes than a tree holds), -errno.
 */
int eng_str_decide(struct rule_engine *eng, const struct rule_upcall *up,
	const struct fc_key *k, const struct fc_key *fk, struct fc_action *a, unsigned int ctstate,
	uint32_t ctmark, uint32_t *trace, uint32_t *pc_deps);
/*
 * Per-packet fields a decision depended on that make a cached verdict
 * per packet: marks are not among them (a packet starts with mark 0, the
 * connection's mark is kept with its entries: the walk gives every packet
 * of the flow the same ones).
 */
#define ENG_DEPS_PER_PACKET(deps) ((deps) & ~(RULE_DEP_MARK | RULE_DEP_CTMARK))
void eng_abort(struct rule_engine *eng, struct eng_flow *ef);
/*
 * The ctstate an entry's action was decided under: its connection's
 * (eng_conn_ctstate(): the modules' answer for the record as stored), or
 * `established` for an entry decided ahead of it (FC_ACT_F_AHEAD).
 */
unsigned int eng_entry_ctstate(const struct rule_engine *eng, const struct fc_action *a);
unsigned int eng_conn_ctstate(const struct rule_engine *eng, const struct fc_action *a);
/* The status of an entry's connection (RULE_CTS_*, the fast path's progress in), as the modules know it. */
unsigned int eng_entry_ctstatus(const struct rule_engine *eng, const struct fc_action *a);

/*
 * engine_synack.c: new flow @p ef, inserted (original entry @p idx with
 * action @p a0, reply entry @p ridx with @p a1, the SYN counted), whose
 * conntrack set struct rule_flow::synack: its original entry decided as
 * `established` ahead of the record and its first reply left to the fast
 * path (on_synack), when that walk is plain; else left as it was. @p a0,
 * @p a1 receive what the entries hold.
 */
void eng_synack_ahead(struct rule_engine *eng, unsigned int ti, struct eng_flow *ef,
	uint32_t idx, uint32_t ridx, struct fc_action *a0, struct fc_action *a1);
/*
 * Aging met entry @p idx decided ahead of its record (FC_ACT_F_AHEAD): once
 * the fast path took its connection's first reply, the bit goes and both
 * entries are established (not FC_ACT_F_EARLY any more), as the slow path
 * would have stored them at that reply.
 */
void eng_synack_settle(struct rule_engine *eng, unsigned int ti, uint32_t idx);
uint32_t eng_entry_timeout(const struct rule_engine *eng, const struct fc_action *a,
	uint32_t timeout);

/* engine.c */
void eng_rule_count(struct rule_engine *eng, uint32_t rule_id, uint64_t packets, uint64_t bytes);

/** Does entry action @p a name a rule of the current ids (validated since ctr_gen)? */
static inline bool
eng_ctr_live(const struct rule_engine *eng, const struct fc_action *a)
{
	return (int32_t)(a->gen - eng->ctr_gen) >= 0;
}

/*
 * Per-rule counters without a per-flow snapshot: a rule's count is its
 * bank (eng->rctr) plus the whole counters of the live entries it decides
 * (eng_ctr_delta()). An entry that starts counting for a rule when it has
 * counted P packets already (its rule changed, or it was validated under
 * older rule ids) takes P off that rule's bank; one that stops counting
 * for its rule (its rule changes, it goes) adds its P to it. Banks are
 * unsigned and may be "below zero" for a while: only their sums with the
 * live entries are read, and those are exact (modulo 2^64).
 */

/* What live entry @p e counts for its rule now (nothing under older rule ids). */
static inline void
eng_ctr_delta(const struct rule_engine *eng, const struct fc_table *t, uint32_t idx,
	const struct fc_entry *e, uint64_t *packets, uint64_t *bytes)
{
	if (!eng_ctr_live(eng, &e->act)) {
		*packets = 0;
		*bytes = 0;
		return;
	}
	fc_table_counters(t, idx, packets, bytes);
}

/*
 * engine.c: live entry @p e is about to count for action @p a's rule (@p a
 * NULL: it goes): what it counted so far stays with its old rule, none of
 * it goes to the new one.
 */
void eng_ctr_switch(struct rule_engine *eng, const struct fc_table *t, uint32_t idx,
	const struct fc_entry *e, const struct fc_action *a);

/*
 * engine_trace.c: the counters of the rules that do not decide. A trace
 * id (0: none) names an interned list of rule ids; a slot's side record
 * keeps its entry's trace, live while its generation is not older than
 * ctr_gen.
 */
uint32_t eng_trace_intern(struct rule_engine *eng, const uint32_t *ids, uint32_t n);
/*
 * The trace of walk @p ev (a packet of @p family) decided by stage @p d
 * (eng_decider()): what its
 * stages through eng_walked() passed besides that decision (0: none, or
 * no memory).
 */
uint32_t eng_trace_of_walk(struct rule_engine *eng, const struct rule_eval ev[], unsigned int d,
	unsigned int family);
/*
 * The trace of a walk cut short after its first @p n stages (a module
 * dropped the flow before the filter stage walked the rest): what they
 * passed and every one's decision (the last one's drop included).
 */
uint32_t eng_trace_of_stages(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n,
	unsigned int family);
/*
 * A connection's first packet (@p bytes long) passed nat stage @p ev: its
 * nat rule or nat chain's policy, and the nat table's rules it passed
 * (acts, jumps, RETURN) count it, once, as Linux's nat chains see only
 * that packet.
 */
void eng_count_nat_walk(struct rule_engine *eng, const struct rule_eval *ev, unsigned int family,
	uint64_t bytes);
const struct eng_trace *eng_trace_get(const struct rule_engine *eng, uint32_t trace);
/* The ids of trace @p t. */
static inline const uint32_t *
eng_trace_ids(const struct rule_engine *eng, const struct eng_trace *t)
{
	return eng->trace_pool + t->off;
}
/* Add @p packets, @p bytes to every rule of @p trace (unsigned: may subtract). */
void eng_trace_count(struct rule_engine *eng, uint32_t trace, uint64_t packets, uint64_t bytes);
/* Live entry @p idx takes @p trace (0: none, or it goes): banks as eng_ctr_switch(). */
void eng_trace_switch(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t trace);
/* Entry @p e (slot @p idx) goes: its trace's rules keep what it counted. */
void eng_trace_gone(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_entry *e);
/* Entry @p idx moves to the current rule ids unchanged: its trace counts from now on. */
void eng_trace_refresh(struct rule_engine *eng, unsigned int ti, uint32_t idx);
void eng_trace_fini(struct rule_engine *eng);

/* engine_side.c: the slots' marks (0 when none). */
uint32_t eng_side_fmark(const struct rule_engine *eng, unsigned int ti, uint32_t idx);
uint32_t eng_side_ctmark(const struct rule_engine *eng, unsigned int ti, uint32_t idx);
/* Room for @p n more records without allocating. @return 0, -ENOMEM. */
int eng_side_reserve(struct rule_engine *eng, unsigned int ti, uint32_t n);
/* Slot @p idx's marks (both 0: no record). @return 0, -ENOMEM (a record was needed). */
int eng_side_marks_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t fmark,
	uint32_t ctmark);
void eng_side_drop(struct rule_engine *eng, unsigned int ti, uint32_t idx);
/* The slot's trace (0: none) and its generation (@p tgen). */
uint32_t eng_side_trace(const struct rule_engine *eng, unsigned int ti, uint32_t idx,
	uint32_t *tgen);
/* Set it. @return 0, -ENOMEM (nothing changed). */
int eng_side_trace_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t trace,
	uint32_t tgen);
/* The entry of slot @p from moved to slot @p to: so do its records (never allocates). */
void eng_side_move(struct rule_engine *eng, unsigned int ti, uint32_t from, uint32_t to);
void eng_side_fini(struct rule_engine *eng);

int eng_retire(struct rule_engine *eng, void *ptr);
int eng_retire_chan(struct rule_engine *eng, uint32_t chan);
uint32_t eng_channel_keep(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *a, const char *name);
void eng_chan_flow_undo(struct rule_engine *eng, struct eng_flow *ef);
/* The flow's per-flow channel, for inserted entry @p idx whose action is @p a. */
void eng_flow_chan_publish(struct rule_engine *eng, unsigned int ti, const struct eng_flow *ef,
	const struct fc_action *a, uint32_t idx);
/* The built-in "channel" stage's on_insert (engine_chanflow.c). */
int eng_channel_on_insert(void *priv, struct rule_flow *f);
void eng_retire_poll(struct rule_engine *eng);
void eng_flow_delete(struct rule_engine *eng, unsigned int ti, uint32_t idx);
void eng_entry_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_action *a,
	uint32_t timeout);
void eng_filter_key(const struct rule_engine *eng, const struct fc_key *k,
	const struct fc_action *a, struct fc_key *fk);
int eng_refilter(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a);
/*
 * eng_refilter() through the walk memo (engine_clscache.c): a walk that
 * starts as an earlier one did (struct eng_walk_in) is that walk's.
 */
int eng_refilter_memo(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_key *k, struct fc_action *a);
/* eng_refilter() as a packet with header fields @p pf would walk it; NULL: a stand-in's. */
int eng_refilter_as(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	struct fc_action *a, const struct rule_pktfields *pf);
void eng_ctmark_store(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t ctmark);
uint16_t eng_channel(struct rule_engine *eng, const char *name);

/* engine_upcall.c */
bool eng_old_flow(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *ek,
	const struct rule_upcall *up, struct rule_decision *d, uint32_t now, bool mismatch);

/* engine_port.c */
void eng_port_note(struct rule_engine *eng, uint16_t port);
/* -m rpfilter's answer for @p p from the routes (engine_port.c); -ENOTSUP: no routes. */
int eng_rpfilter_match(const struct rule_engine *eng, const struct rule_x *x,
	const struct rule_pkt *p);
void eng_tuple_find(const struct rule_engine *eng, unsigned int ti, const struct fc_key *k,
	struct eng_tuple *out);
int eng_conn_claim(struct rule_engine *eng, unsigned int ti, const struct eng_tuple *fwd,
	const struct fc_key *reply);
bool eng_port_other(struct rule_engine *eng, unsigned int ti, const struct rule_upcall *up,
	struct eng_tuple *others, struct rule_decision *d, uint32_t now);
int eng_entry_move(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint16_t port,
	bool absent);
void eng_reply_follow(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *old, const struct fc_action *a);
uint16_t eng_reply_port(const struct rule_engine *eng, uint16_t in, uint16_t want);

/* engine_commit.c */
int eng_commit_init(struct rule_engine *eng);
void eng_hooks_used(struct rule_engine *eng);

/** The bit of eng_stage_walks() for local bits @p lbits and ctstate @p cs. */
static inline unsigned int
eng_stage_bit(unsigned int lbits, unsigned int cs)
{
	bool nat = cs == RULE_CT_IGNORE ||
		   !(cs & (RULE_CT_ESTABLISHED | RULE_CT_INVALID | RULE_CT_UNTRACKED));

	return (lbits & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) | (nat ? 4u : 0u);
}

/** Does @p stage walk any chain for a key with local bits @p lbits and ctstate @p cs? */
static inline bool
eng_stage_walks(const struct rule_engine *eng, unsigned int stage, unsigned int lbits,
	unsigned int cs)
{
	return (eng->stage_walk[stage] >> eng_stage_bit(lbits, cs)) & 1;
}

/**
 * RULE_PKT_NEED_* of the set classified now: the classifier's when it is
 * the current set's, else all (the reference evaluator walks the set).
 */
static inline uint32_t
eng_pkt_needs(const struct rule_engine *eng)
{
	return eng->cls != NULL && eng->cls_gen == eng->gen ? rule_cls_pkt_needs(eng->cls)
							    : RULE_PKT_NEED_ALL;
}
void eng_commit_fini(struct rule_engine *eng);

/* engine_pktclass.c: entries cached for a packet class (header fields). */
/* The per-packet dependencies a class can stand for. */
#define ENG_PC_DEPS (RULE_DEP_TCPFLAGS | RULE_DEP_TTL | RULE_DEP_TOS | RULE_DEP_LENGTH | RULE_DEP_MSS)
int eng_pktclass_commit(struct rule_engine *eng);
void eng_pktclass_fini(struct rule_engine *eng);
bool eng_pktclass_current(const struct rule_engine *eng, const struct fc_action *a);
/* A stand-in's fields for an entry's key alone; returns the made-up ones (1 << RULE_PC_*). */
unsigned int eng_pktclass_rep(const struct rule_engine *eng, const struct fc_key *k,
	const struct fc_action *a, struct rule_pktfields *pf, bool *guess);
uint32_t eng_pktclass_take(struct rule_engine *eng, const struct fc_key *k, struct fc_action *a,
	uint32_t pd, const struct rule_pktfields *pf, unsigned int unknown, bool guess);
void eng_pktclass_clear(struct fc_action *a);
bool eng_pktclass_ordinary(uint8_t flags);
bool eng_pktclass_holds(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktfields *pf);
/* Does the entry's class read only fields @p pf knows (not a missing header's)? */
bool eng_pktclass_known(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktfields *pf);
/* The fields of an upcalled packet (from its frame). */
void eng_pktclass_of_up(const struct rule_upcall *up, struct rule_pktfields *pf);
unsigned int eng_revalidate(struct rule_engine *eng, unsigned int budget);
bool eng_entry_stale(const struct rule_engine *eng, const struct eng_pending *pl,
	const struct fc_action *a, const struct fc_key *k);

#endif /* GUFC_ENGINE_PRIV_H */
