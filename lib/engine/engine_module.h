/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the module interface: struct rule_flow (the work area the
 * modules share for one flow), struct rule_module (the callbacks a module
 * registers: on_insert, on_abort, on_packet, on_remove, ...) and the
 * stages' order. Part of engine.h's manual (which includes it in place;
 * include engine.h).
 */
#ifndef GUFC_ENGINE_MODULE_H
#define GUFC_ENGINE_MODULE_H

#ifdef __cplusplus
extern "C" {
#endif


/** Directions of a flow's actions (struct rule_flow::act). */
#define RULE_DIR_ORIG 0
#define RULE_DIR_REPLY 1

/**
 * The work area modules share for one flow: a flow being inserted
 * (on_insert, then on_abort if it gets no entry), or a cached flow one of
 * whose packets hit an interest bit (on_packet). Owned by the engine, on
 * its stack, valid during the callback only; the rules lcore handles one
 * flow at a time, so a module may also keep the flow's state in its priv
 * from its first on_insert to the next. The engine initializes every field
 * (entry defaults: accept, default channel, RULE_PORT_PAIRED, no peer);
 * "set by" names who writes a field, everyone may read it.
 */
struct rule_flow {
	struct rule_engine *eng;      /**< the engine, for its services */
	const struct rule_upcall *up; /**< the packet */
	struct fc_key key;            /**< the original key (the forward entry's) */
	struct fc_key xkey;           /**< the key as later modules see it; set by DNAT */
	struct fc_key reply_key;      /**< the reply entry's key (@c want_reply); set by NAT */
	struct fc_key fkey[2];        /**< the keys the filter saw per direction; set by filter */
	struct fc_action act[2];      /**< the entries' actions: [RULE_DIR_ORIG], [_REPLY] */
	struct fc_action rel_act;     /**< with @c related: the entry an ICMP error quotes */
	char chan[2][RULE_NAME_MAX];  /**< channel names per direction; set by filter */
	uint32_t timeout;             /**< idle timeout of the entries, ms */
	uint32_t idx[2];              /**< on_packet: entry indexes (FC_INDEX_NONE if none) */
	uint16_t interest_kept[2];    /**< on_packet: interest of the other modules */
	uint8_t dir;                  /**< on_packet: the direction the packet hit */
	uint8_t ctstate;              /**< the packet's RULE_CT_* bit, 0 if untracked */
	uint8_t reply_ctstate;        /**< ctstate of the reply entry's packets; a tracker's */
	uint8_t kflags;               /**< RULE_KEY_F_* of the packet */
	uint8_t drop;                 /**< enum rule_drop; stops insertion (on_packet: drops) */
	uint8_t dec_flags;            /**< RULE_DEC_F_* a module adds to the decision */
	uint8_t reject;               /**< filter: enum rule_reject of a REJECT that dropped
				           the flow (no entry: each packet is answered) */
	bool want_reply;              /**< insert a reply entry */
	bool nocache;                 /**< decide without an entry (see the top) */
	bool untracked;               /**< no connection (NAT leaves such flows alone) */
	bool xdst;                    /**< the destination side of @c xkey was translated */
	bool related;                 /**< @c rel_act is valid ... */
	bool rel_way;                 /**< ... and the packet travels its way (quote reversed) */
	bool refilter;                /**< on_packet: re-run the filter for both entries */
	bool remove;                  /**< on_packet: remove the flow (both entries) */
	bool reopen;                  /**< on_packet, with @c remove: a new connection opens */
	bool store;                   /**< on_packet: store act[] and timeout in both entries */
	/**
	 * on_insert: the connection's first reply may be taken on the fast
	 * path (set by conntrack): the engine then walks the original
	 * direction again as `established` and, when that walk's action is a
	 * plain one, stores it (FC_ACT_F_AHEAD) and calls on_synack.
	 */
	bool synack;
	bool no_renew;                /**< on_packet: the packet leaves the entry's idle time
				           as it was (Linux's conntrack accepts it without
				           refreshing the timer); counted all the same */
	uint8_t ctstatus;             /**< RULE_CTS_* a tracker adds (EXPECTED) */
	bool exp_nat;                 /**< an expected connection's NAT (the master's):
				           @c exp_dnat, and @c exp_snat when its family
				           is not 0; the nat table is not consulted */
	char ct_helper[16];           /**< -m helper: its master's helper ("" none) */
	struct rule_nat exp_dnat;
	struct rule_nat exp_snat;
};

/** Why an entry went (struct rule_flow_gone::why). */
enum rule_gone_reason {
	RULE_GONE_TABLE,    /**< evicted by the table (full, FC_FULL_EVICT_IDLE) */
	RULE_GONE_DELETED,  /**< deleted by the engine (reopen, revalidation, a module's remove) */
	RULE_GONE_AGED,     /**< aged out by the engine: both directions idle past the timeout */
	RULE_GONE_FLUSHED,  /**< removed by rule_engine_flush() */
};

/**
 * An entry that went, as modules' on_remove callbacks see it. A flow's two
 * entries go together, one call each: @c peer_key is the other one's key.
 * Times are the engine's clock (the @c now its callers pass, ms).
 */
struct rule_flow_gone {
	struct fc_key key;
	struct fc_action act;
	struct fc_key peer_key; /**< the peer entry's key; family 0 when there is none */
	uint64_t packets;
	uint64_t bytes;
	uint32_t idx;       /**< the entry's index in its family's table (free after the call) */
	uint32_t created;   /**< when the entry was inserted */
	uint32_t last_seen; /**< when its last packet was counted */
	uint8_t why;        /**< enum rule_gone_reason */
};

/**
 * An entry that moved to another input port (struct rule_module::on_move;
 * see "Input ports" at the top): the same flow, connection and action under
 * a new key and index. The old index is deleted (reused after a grace
 * period of the readers).
 */
struct rule_flow_moved {
	struct fc_key old_key; /**< the key it had */
	struct fc_key key;     /**< the key it has now (only the input port differs) */
	uint32_t old_idx;      /**< the index it had */
	uint32_t idx;          /**< its index now */
};

/**
 * struct rule_module::flags: the module recomputes its whole interest in
 * on_packet. The engine keeps the other modules' interest in the entries
 * (struct rule_flow::interest_kept), so the module writes act[d].interest =
 * its own | interest_kept[d]. At most one module should set it.
 */
#define RULE_MOD_F_OWN_INTEREST 0x01

/**
 * A module: a set of callbacks the engine calls on the rules lcore, in
 * ascending @c order (equal orders: registration order). Every callback is
 * optional; @c priv is the first argument of all. Callbacks returning int
 * return 0 or -errno (an error drops the packet as RULE_DROP_ERROR).
 *
 * - on_insert: a new flow. Write the module's part of both directions'
 *   actions, OR bits into their interest masks (which packets of the flow
 *   the module must still see), and optionally set struct rule_flow::drop:
 *   later modules are then not called.
 * - on_abort: the flow whose on_insert ran gets no entry (decided without
 *   one, dropped, or its insert failed; a cached drop counts). Release what
 *   on_insert took. Called for every module whose on_insert ran, in order.
 * - on_packet: a packet of a cached flow that an interest bit selected
 *   (every module's on_packet is called; each ignores what it did not ask).
 * - on_remove: an entry went (a flow's two entries go together: one call each).
 * - on_synack: a new flow whose on_insert set struct rule_flow::synack is
 *   inserted, its original entry's action decided as `established`
 *   (FC_ACT_F_AHEAD): arm the connection for the fast path to take its
 *   first reply, writing act[d].interest = the module's own |
 *   interest_kept[d] (other fields as on_insert may). A negative return
 *   leaves the flow as on_insert made it (the engine stores it back).
 * - on_move: an entry moved to another input port: nothing went, but what a
 *   module keeps by entry index or key (a hardware rule) must follow.
 * - entry_ctstate, entry_ctstatus: the ctstate packets taking the fast path
 *   get from an entry (its cached verdict is computed with it), the status of
 *   its connection (RULE_CTS_*, what --ctstatus matches); 0 if untracked.
 *   The first non-zero answer counts.
 * - entry_helper: what -m helper matches for an entry's connection; first non-empty.
 * - entry_closed: the entry's connection is closed though its entry lingers
 *   (TCP TIME_WAIT or CLOSE): -m connlimit counts it no more, as Linux's
 *   nf_conncount skips such connections. Any module saying so counts.
 * - filter_key: for an entry with FC_ACT_F_NAT, write the destination side
 *   (address, port) the filter saw into @p fk (the engine has put the
 *   entry's key there and sets the local bits itself). Called from
 *   rule_engine_stale_check(), so by RX lcores too: read-only, lock-free.
 * - ct_format: text of an entry's fc_action::ct_state for listings
 *   (rule_engine_flow_format()); returns characters written or -errno.
 * - entry_timeout: aging asks the idle timeout in force for an entry stored
 *   with @p timeout (a fast path may move a connection's state).
 * - step: bounded background work from rule_engine_step(), at most about
 *   @p budget entries visited; returns the work done.
 */
struct rule_module {
	const char *name;  /**< unique; must outlive the engine */
	int order;         /**< RULE_MOD_ORDER_* or any other position */
	unsigned int flags; /**< RULE_MOD_F_* */
	int (*on_insert)(void *priv, struct rule_flow *f);
	void (*on_abort)(void *priv, struct rule_flow *f);
	int (*on_packet)(void *priv, struct rule_flow *f);
	void (*on_remove)(void *priv, const struct rule_flow_gone *g);
	int (*on_synack)(void *priv, struct rule_flow *f);
	void (*on_move)(void *priv, const struct rule_flow_moved *mv);
	unsigned int (*entry_ctstate)(void *priv, const struct fc_action *a);
	unsigned int (*entry_ctstatus)(void *priv, const struct fc_action *a);
	const char *(*entry_helper)(void *priv, const struct fc_action *a);
	bool (*entry_closed)(void *priv, const struct fc_action *a);
	void (*filter_key)(void *priv, const struct fc_action *a, struct fc_key *fk);
	int (*ct_format)(void *priv, const struct fc_action *a, char *buf, size_t len);
	uint32_t (*entry_timeout)(void *priv, const struct fc_action *a, uint32_t timeout);
	unsigned int (*step)(void *priv, uint32_t now, unsigned int budget);
	void *priv;
};

/** Orders of the stages (netfilter's order); filter and channel are built in. */
#define RULE_MOD_ORDER_CT 100
#define RULE_MOD_ORDER_NAT_DST 200
#define RULE_MOD_ORDER_ROUTE 300
#define RULE_MOD_ORDER_FILTER 400
#define RULE_MOD_ORDER_NAT_SRC 500
#define RULE_MOD_ORDER_ROUTE_ADJ 550 /**< router mode: the entries' adjacencies (route.h) */
#define RULE_MOD_ORDER_CHANNEL 600
#define RULE_MODULES_MAX 16 /**< most modules (built-in ones included) */

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_MODULE_H */
