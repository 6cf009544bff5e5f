/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload — hardware help for gufc's flow cache (DESIGN.md
 * "Hardware help"). This header is the manual for:
 *
 *  - translation: a cached flow (struct fc_key + verdict + queue + mark) to
 *    the rte_flow attr / pattern / actions arrays a NIC gets;
 *  - backends (struct ofl_ops): "rteflow" hands those arrays to
 *    rte_flow_validate/create/destroy/query; "swnic", a software NIC model,
 *    interprets the very same arrays with a bounded exact-match table and an
 *    RX callback that classifies packets inside rte_eth_rx_burst();
 *  - ports (struct ofl_port): a backend bound to an ethdev port, with the
 *    capabilities probed at start by validating representative rules;
 *  - the policy (struct ofl_policy): which flows go to hardware (heavy
 *    hitters), a request queue and its executor, removal when flows go,
 *    coherence with rule commits, and the mark check of the RX fast path.
 *
 * Why an RX callback and not a vdev PMD: Debian's libdpdk-dev ships no
 * driver SDK headers (ethdev_driver.h, bus_vdev_driver.h), so a real
 * "net_gufcnic" PMD cannot be built against the installed DPDK. An RX
 * callback (rte_eth_add_rx_callback) is the one NIC-like hook open to an
 * application: it runs inside rte_eth_rx_burst(), exactly where a NIC's
 * classification results (mbuf mark, FDIR flags, dropped packets) appear.
 * The model consumes struct rte_flow_item / struct rte_flow_action arrays,
 * so CI exercises the translation a ConnectX or E810 would receive. With
 * the SDK headers, a PMD implementing rte_flow_ops would be its natural home.
 *
 * Threads: everything marked "control" runs on one thread at a time (the
 * app's rules lcore). The RX fast path only calls the inline helpers at the
 * end of this header. Libraries know no lcores: the app decides who calls.
 */
#ifndef GUFC_OFFLOAD_H
#define GUFC_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_flow.h>
#include <rte_mbuf.h>

#include "flowcache.h"
#include "datapath.h"
#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Translation                                                               */
/* ------------------------------------------------------------------------ */

/** Most pattern items (ETH, IPV4|IPV6, TCP|UDP|SCTP, END). */
#define OFL_PATTERN_MAX 4
/** Most actions (MARK, QUEUE, COUNT, AGE, END). */
#define OFL_ACTIONS_MAX 5

/** What to put in hardware for one flow. */
struct ofl_flow_req {
	struct fc_key key;    /**< the flow (TCP, UDP or SCTP; ICMP and others refused);
			           its input port is the port the rule goes to, not in the pattern */
	uint8_t verdict;      /**< FC_VERDICT_ACCEPT: MARK+QUEUE; FC_VERDICT_DROP: DROP */
	bool count;           /**< add COUNT */
	bool age;             /**< add AGE with @c age_timeout */
	uint16_t queue;       /**< QUEUE index (ACCEPT, when @c rss is NULL) */
	/** ACCEPT on a port with several RX queues: MARK + RSS(*rss) instead of
	 * QUEUE, so the flow stays on the queue the port's RSS gives it (and its
	 * reply's: symmetric key). Points into the port's state (ofl_port_req()). */
	const struct rte_flow_action_rss *rss;
	uint32_t mark;        /**< MARK id (ACCEPT), see dp_mark_make() */
	uint32_t age_timeout; /**< seconds (AGE) */
};

/**
 * A translated rule: the arrays rte_flow_validate()/rte_flow_create() take,
 * and the storage their spec/mask/conf pointers point into. Self-referential:
 * fill it in place with ofl_flow_translate(), never copy it.
 */
struct ofl_flow_spec {
	struct rte_flow_attr attr;
	struct rte_flow_item pattern[OFL_PATTERN_MAX];
	struct rte_flow_action actions[OFL_ACTIONS_MAX];
	struct rte_flow_item_eth eth_spec, eth_mask;
	union {
		struct rte_flow_item_ipv4 v4;
		struct rte_flow_item_ipv6 v6;
	} ip_spec, ip_mask;
	union {
		struct rte_flow_item_tcp tcp;
		struct rte_flow_item_udp udp;
		struct rte_flow_item_sctp sctp;
	} l4_spec, l4_mask;
	struct rte_flow_action_mark mark;
	struct rte_flow_action_queue queue;
	struct rte_flow_action_rss rss; /**< key and queue arrays stay the port's */
	struct rte_flow_action_count count;
	struct rte_flow_action_age age;
};

/**
 * Translate a flow into an ingress rule, group 0, priority 0:
 * ETH (type exact: untagged IPv4/IPv6 frames) / IPV4 (src, dst, next_proto_id
 * exact; fragment_offset spec 0 mask 0x3fff: not a fragment) or IPV6 (src,
 * dst, proto exact: no extension header) / TCP|UDP|SCTP (ports exact) / END;
 * actions MARK(mark) + QUEUE(queue) for ACCEPT (partial offload: the NIC
 * classifies, software acts), or MARK(mark) + RSS(*rss) when @c rss is set,
 * DROP for DROP (full offload), then COUNT and
 * AGE if asked. Exact matches only: the cache key is exact.
 * @param r    the request
 * @param out  filled in place
 * @return 0; -EINVAL (NULL, bad family or verdict), -ENOTSUP (a protocol
 *   other than TCP, UDP, SCTP).
 * Context: any (pure).
 */
int ofl_flow_translate(const struct ofl_flow_req *r, struct ofl_flow_spec *out);

/* ------------------------------------------------------------------------ */
/* Backends                                                                  */
/* ------------------------------------------------------------------------ */

/** Hardware counters of one rule (COUNT). */
struct ofl_count {
	uint64_t packets;
	uint64_t bytes;
};

/**
 * A backend: the rte_flow calls, per port. @c be is the backend's state for
 * the port (struct ofl_port::be). Rules are opaque handles. All ops set
 * @p err (rte_flow_error_set()) on failure, like rte_flow does, and run on
 * the control thread. Owned by the backend's file; read-only.
 */
struct ofl_ops {
	const char *name;
	/** rte_flow_validate(). @return 0 or -errno (ENOTSUP, EINVAL, ...). */
	int (*validate)(void *be, const struct rte_flow_attr *attr,
		const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		struct rte_flow_error *err);
	/** rte_flow_create(). @return a handle, or NULL (err->type / rte_errno say why). */
	void *(*create)(void *be, const struct rte_flow_attr *attr,
		const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		struct rte_flow_error *err);
	/** rte_flow_destroy(). @return 0 or -errno. */
	int (*destroy)(void *be, void *rule, struct rte_flow_error *err);
	/** rte_flow_query(COUNT), cumulative. @return 0 or -errno. */
	int (*query_count)(void *be, void *rule, struct ofl_count *c, struct rte_flow_error *err);
	/** rte_flow_query(AGE). @return 0 or -errno. */
	int (*query_age)(void *be, void *rule, bool *aged, uint32_t *idle_s,
		struct rte_flow_error *err);
	/** Release the backend's state (port stopped, RX quiesced). */
	void (*fini)(void *be);
};

/** The rte_flow backend (rte_flow_validate/create/destroy/query). */
extern const struct ofl_ops ofl_rteflow_ops;
/** The software NIC model backend. */
extern const struct ofl_ops ofl_swnic_ops;

/* ------------------------------------------------------------------------ */
/* Ports                                                                     */
/* ------------------------------------------------------------------------ */

/** Backend kinds. */
enum ofl_backend {
	OFL_BACKEND_OFF,
	OFL_BACKEND_RTEFLOW,
	OFL_BACKEND_SWNIC,
};

/** Capability bits, per family (struct ofl_port::caps[]). */
#define OFL_CAP_MARK 0x01  /**< MARK + QUEUE (partial offload) */
#define OFL_CAP_DROP 0x02  /**< DROP (full offload) */
#define OFL_CAP_COUNT 0x04 /**< COUNT on a rule */
#define OFL_CAP_AGE 0x08   /**< AGE on a rule */

/** Capability index of a family: 0 for IPv4, 1 for IPv6. */
#define OFL_FAM(family) ((family) == FC_AF_INET6 ? 1u : 0u)

/** Port parameters. */
struct ofl_port_params {
	enum ofl_backend backend;
	uint32_t swnic_size; /**< swnic: rules that fit; 0 = 1024 */
	int socket_id;
};

/** Per-port counters (sums over queues). */
struct ofl_port_stats {
	uint64_t rules_created;
	uint64_t rules_destroyed;
	uint64_t create_failed;
	uint64_t hw_matched;       /**< packets that hit a rule (swnic) */
	uint64_t hw_marked;        /**< packets given a mark (swnic) */
	uint64_t hw_dropped;       /**< packets dropped by DROP rules: never reach rx_burst's caller */
	uint64_t hw_dropped_bytes;
	uint32_t rules;            /**< rules installed now */
	uint32_t capacity;         /**< swnic table size; 0 if unknown */
};

/**
 * An ethdev port's offload state. Created and freed on the control thread;
 * @c caps is read-only after ofl_port_create(); counters are written by the
 * control thread (rules_*) and, for swnic, by the RX callbacks (hw_*).
 */
/** Most RX queues an RSS action of a port lists. */
#define OFL_RSS_QUEUES_MAX 128
/** Longest RSS key kept. */
#define OFL_RSS_KEY_MAX 64

struct ofl_port {
	uint16_t port_id;
	enum ofl_backend backend;
	uint16_t n_rxq;          /**< RX queues configured on the port */
	/** n_rxq > 1: the RSS action MARK rules carry (the port's own hash
	 * functions, key and queues: the flow keeps its RSS queue). */
	struct rte_flow_action_rss rss;
	uint16_t rss_queues[OFL_RSS_QUEUES_MAX];
	uint8_t rss_key[OFL_RSS_KEY_MAX];
	const struct ofl_ops *ops;
	void *be;                /**< backend state for this port */
	uint32_t caps[2];        /**< OFL_CAP_* for IPv4 [0] and IPv6 [1] */
	int probe_err[2];        /**< first refusal of the MARK probe per family (-errno), or 0 */
	uint64_t rules_created;
	uint64_t rules_destroyed;
	uint64_t create_failed;
	uint32_t rules;
	uint64_t hw_dropped_seen; /**< rteflow: DROP packets learnt from COUNT queries */
	uint64_t hw_dropped_bytes_seen;
};

/**
 * Bind a backend to a configured port (RX queues set up; started or not)
 * and probe its capabilities: rte_flow_validate on MARK+QUEUE, DROP,
 * MARK+QUEUE+COUNT and MARK+QUEUE+AGE rules for an IPv4 and an IPv6 TCP
 * 5-tuple. swnic installs its RX callback on every RX queue.
 * @return the port, or NULL with rte_errno EINVAL (bad port or backend),
 *   ENOMEM, ENOTSUP (no RX callbacks in this DPDK).
 * Context: control (main lcore at start).
 */
struct ofl_port *ofl_port_create(uint16_t port_id, const struct ofl_port_params *p);

/**
 * Set a request's fate for this port: MARK rules steer to queue 0 on a
 * single-queue port and carry the port's RSS action on a multi-queue one.
 * @param op  the port
 * @param r   the request: @c queue and @c rss are set (@c rss points into
 *            @p op, valid while the port lives)
 * Context: control.
 */
void ofl_port_req(const struct ofl_port *op, struct ofl_flow_req *r);

/**
 * Free a port's offload state; NULL is accepted. Rules still installed are
 * destroyed first. swnic: the RX callbacks are removed and freed, so RX on
 * the port must have stopped.
 * Context: control, no RX on the port.
 */
void ofl_port_free(struct ofl_port *op);

/**
 * Capabilities as text: "ipv4 mark,drop,count,age; ipv6 mark,drop" ("none").
 * @return characters written (excluding NUL), -ENOSPC if truncated, -EINVAL.
 * Context: any.
 */
int ofl_port_caps_format(const struct ofl_port *op, char *buf, size_t len);

/**
 * Read the counters. swnic: exact hardware counters; rteflow: hw_dropped is
 * what COUNT queries of DROP rules told the policy.
 * @return 0, -EINVAL. Context: any (values may be slightly stale).
 */
int ofl_port_stats_get(const struct ofl_port *op, struct ofl_port_stats *st);

/** Name of a backend ("off", "rteflow", "swnic"). Context: any. */
const char *ofl_backend_name(enum ofl_backend b);

/**
 * Parse "off", "rteflow", "swnic" or "swnic:SIZE" into @p p (other fields
 * untouched). @return 0, -EINVAL. Context: any.
 */
int ofl_backend_parse(const char *s, struct ofl_port_params *p);

/** Rule calls through the port's backend, counting. Context: control. */
void *ofl_port_rule_create(struct ofl_port *op, const struct ofl_flow_spec *s,
	struct rte_flow_error *err);
/** @return 0 or -errno. Context: control. */
int ofl_port_rule_destroy(struct ofl_port *op, void *rule, struct rte_flow_error *err);
/** @return 0 or -errno. Context: control. */
int ofl_port_rule_validate(struct ofl_port *op, const struct ofl_flow_spec *s,
	struct rte_flow_error *err);

/* ------------------------------------------------------------------------ */
/* Policy                                                                    */
/* ------------------------------------------------------------------------ */

struct ofl_policy;

/** Policy parameters. Zero means the default where one is given. */
struct ofl_policy_params {
	struct rule_engine *eng;    /**< the engine whose flows are offloaded */
	struct ofl_port **ports;    /**< rules go to every one of them (keys have no port) */
	unsigned int n_ports;
	uint32_t max_flows;         /**< flows in hardware at most; 0 = 1024 */
	uint32_t pps_threshold;     /**< offload at or above (packets/s); 0 = 1000 */
	uint32_t interval_ms;       /**< least time a rate is measured over; 0 = 100 */
	uint32_t queue_size;        /**< request queue; 0 = 4096 */
	bool no_drop;               /**< never offload DROP flows */
	bool no_mark;               /**< never offload ACCEPT flows */
};

/** Policy counters. */
struct ofl_policy_stats {
	uint64_t scanned;         /**< entries visited by scans */
	uint64_t candidates;      /**< heavy hitters found */
	uint64_t capped;          /**< candidates left in software: max_flows reached */
	uint64_t queued;          /**< requests queued */
	uint64_t queue_full;      /**< requests that found the queue full (left in software) */
	uint64_t offloaded;       /**< flows put in hardware (on at least one port) */
	uint64_t offload_refused; /**< rule creations refused by a port (not full) */
	uint64_t offload_full;    /**< rule creations refused because the NIC table is full */
	uint64_t removed;         /**< flows taken out of hardware */
	uint64_t removed_gone;    /**< ... because the entry went (on_remove) */
	uint64_t removed_changed; /**< ... because its action changed (revalidation) */
	uint64_t removed_cold;    /**< ... because its rate fell below threshold / 2 */
	uint64_t removed_commit;  /**< ... synchronously by ofl_policy_commit_sync() */
	uint64_t commit_syncs;    /**< ofl_policy_commit_sync() calls */
	uint64_t commit_sync_cycles_last; /**< TSC cycles the last one took */
	uint64_t commit_sync_cycles_max;  /**< ... the longest one took */
	uint32_t in_hw;           /**< flows in hardware (or being put there) now */
	uint32_t pending;         /**< requests waiting */
};

/**
 * Create a policy and register module "offload" with the engine (its
 * on_remove takes flows out of hardware when their entries go).
 * @return the policy, or NULL with rte_errno EINVAL, ENOMEM, ENOSPC/EEXIST
 *   (module registration).
 * Context: control, before traffic.
 */
struct ofl_policy *ofl_policy_create(const struct ofl_policy_params *p);

/**
 * Free a policy; NULL is accepted. Removes every rule it installed.
 * The engine keeps a module pointing at it: free the engine first, or never
 * call the engine again. Context: control, no RX lcore running.
 */
void ofl_policy_free(struct ofl_policy *pol);

/** The RX path's view (dp_mark_check()). Context: any. */
static inline const struct dp_marks *
ofl_policy_marks(const struct ofl_policy *pol)
{
	return (const struct dp_marks *)(const void *)pol;
}

/**
 * Scan up to @p budget table slots, free ones included (bounded work
 * however empty the tables), from a rotating cursor: measure each entry's
 * packet rate from its counters since the previous visit; queue heavy
 * hitters (rate >= pps_threshold, eligible: ACCEPT or DROP, no NAT, current
 * generation, TCP/UDP/SCTP) while fewer than max_flows are in hardware;
 * queue removal of offloaded flows whose action changed or whose rate fell
 * below threshold / 2. DROP flows in hardware get their COUNT read and
 * their entry touched, so they do not age while the NIC drops them.
 * @return entries visited.
 * Context: control (rules lcore: it reads the tables as their writer).
 */
unsigned int ofl_policy_scan(struct ofl_policy *pol, uint32_t now, unsigned int budget);

/**
 * Execute up to @p budget queued requests: create or destroy the rules on
 * every port. A creation refused everywhere leaves the flow in software,
 * counted (offload_full or offload_refused), and it is not tried again
 * while its entry lives.
 * @return requests executed.
 * Context: control (rules lcore).
 */
unsigned int ofl_policy_execute(struct ofl_policy *pol, unsigned int budget);

/**
 * Offload one flow now, whatever its rate (shell, tests): queue it and
 * execute the queue.
 * @return 0; -ENOENT (no entry), -EINVAL (not eligible), -EEXIST (already
 *   in hardware), -ENOSPC (max_flows), -ENOBUFS (queue full), -EIO (every
 *   port refused: counted as above).
 * Context: control (rules lcore).
 */
int ofl_policy_offload(struct ofl_policy *pol, const struct fc_key *key);

/**
 * Take one flow out of hardware now. @return 0, -ENOENT.
 * Context: control (rules lcore).
 */
int ofl_policy_remove(struct ofl_policy *pol, const struct fc_key *key);

/**
 * Coherence with rule commits: call right after rule_engine_commit(), before
 * the commit is reported done. Every flow whose DROP is in hardware and
 * whose key the commit may affect (rule_engine_stale() on its entry) has its
 * rule destroyed now, synchronously, on every port; the flow goes back to
 * software, which revalidates it (and the policy may offload it again).
 * Call it too when rule_engine_expect_count() changed: a new flow's drop
 * whose tuple a helper now expects is stale (rule_engine_drop_expected()).
 * MARK rules need nothing: the RX path checks staleness of marked packets.
 * Cost: O(flows in hardware) stale checks plus one destroy per affected rule.
 * @return rules' flows removed.
 * Context: control (rules lcore).
 */
unsigned int ofl_policy_commit_sync(struct ofl_policy *pol);

/** Is the flow of @p key in hardware (or queued to be)? Context: control. */
bool ofl_policy_in_hw(const struct ofl_policy *pol, const struct fc_key *key);

/** Read the counters. @return 0, -EINVAL. Context: any (slightly stale). */
int ofl_policy_stats_get(const struct ofl_policy *pol, struct ofl_policy_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_OFFLOAD_H */
