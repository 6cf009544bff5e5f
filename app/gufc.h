/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc.h — private header of the gufc binary: settings, configuration,
 * the application context and the functions each app/ file provides.
 *
 * Files, from the top: gufc_main.c (startup, roles, the lcore loop,
 * shutdown); gufc_shell*.c (the interactive shell, --script: shell -> show
 * -> cmd -> line), gufc_telemetry.c (the gufc telemetry commands),
 * gufc_config.c (config file) and gufc_reload.c (SIGHUP: the rule file read
 * again), which only parse and call the control layer
 * (gufc_ctl.h: gufc_chan.c channels, gufc_collect.c collectors, both on
 * gufc_ctl.c, the control client and server); gufc_port.c (ethdev setup),
 * gufc_rx.c (RX lcore: port RX around lib/datapath's dp_rx_burst),
 * gufc_slow.c (rules lcore: upcalls, fragments, channel consumers; it
 * serves the control ring), gufc_stats.c (counters, summary, JSON from the
 * drop registry of gufc_drops.h; per-lcore cycles of gufc_cycles.h),
 * gufc_offload.c (hardware help), gufc_ipfix.c (IPFIX export to a port or
 * a file); gufc_opts.c (command line, settings, the log type) at the
 * bottom. No file calls one above it.
 *
 * Ownership: one struct gufc_app, created by main() on the main lcore.
 * Settings and configuration are written before lcores launch and read-only
 * afterwards; run-time changes go through the control ring to the rules
 * lcore. Counters are per lcore (struct gufc_lcore::st, and the datapath's
 * in each role's struct dp_ctx), written by their lcore only and summed by
 * readers (gufc_stats_sum()).
 */
#ifndef GUFC_H
#define GUFC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "channel.h"
#include "conntrack.h"
#include "datapath.h"
#include "engine.h"
#include "flowcache.h"
#include "gufc_cycles.h"
#include "gufc_drops.h"
#include "ipfix.h"
#include "lex.h"
#include "nat.h"
#include "neigh.h"
#include "offload.h"
#include "pktlog.h"
#include "route.h"
#include "rule_lang.h"
#include "rules.h"

/** The app's log type "gufc.app" (gufc_opts.c; registered by main). */
extern int gufc_logtype;
#define GUFC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, gufc_logtype, "gufc: " fmt "\n", ##__VA_ARGS__)

#define GUFC_MAX_PORTS DP_MAX_PORTS
#define GUFC_MAX_RXQ 16		/**< RX queues per port */
/** Table slots the rules lcore's background step examines about every millisecond. */
#define GUFC_STEP_BUDGET 512
/**
 * ... and on each idle pass in between, by default (struct
 * gufc_app::idle_step_budget; README, "Latest figures", on the choice).
 */
#define GUFC_IDLE_STEP_BUDGET 16
#define GUFC_MAX_RX_LCORES 30	/**< producer ids 0..29; the rules lcore is the next */
#define GUFC_BURST_MAX DP_BURST_MAX	/**< fc_table_lookup_bulk() takes at most 64 */
#define GUFC_BURST_DEFAULT 32
#define GUFC_PATH_MAX 512
#define GUFC_MAX_CHANNELS_CFG 64
#define GUFC_MAX_LOCALS 256
#define GUFC_MAX_ROUTES 1024
#define GUFC_MAX_PRULES 256 /**< "route-rule" lines */

/* Settings and configuration: gufc_cfg.h. */
#include "gufc_cfg.h"

/* ------------------------------------------------------------------------ */
/* Run-time context                                                          */
/* ------------------------------------------------------------------------ */

/**
 * The app's own counters of one lcore, written by it only (the datapath's
 * are in the lcore's struct dp_ctx, the channels' in the channel table).
 */
struct gufc_stats {
	uint64_t frag_in;	/**< fragments given to reassembly */
	uint64_t frag_out;	/**< datagrams reassembled */
	uint64_t frag_dropped;	/**< fragments dropped on their own (FRAG_FAILED) */
	uint64_t loops;
	uint64_t busy_loops;
	uint64_t last_rx_tsc;
	/** When the RX role last polled every queue and found nothing (--idle-exit:
	 * an lcore the OS did not run for a while has not been idle). */
	uint64_t last_empty_tsc;
	/** TSC cycles of each role this lcore holds, busy or idle (gufc_cycles.h). */
	struct gufc_cycles cyc[GUFC_CYC__COUNT];
	/** Drops the app counts itself (reassembly), by enum gufc_drop. */
	uint64_t drops[GUFC_DROP__COUNT];
} __rte_cache_aligned;

/** Every counter summed over lcores, channels and NICs (gufc_stats_sum()). */
struct gufc_sum {
	uint64_t rx;		/**< received, hw_drop included */
	uint64_t rx_bytes;
	uint64_t hits;
	uint64_t misses;
	uint64_t upcalls;	/**< packets put on the upcall ring */
	uint64_t upcall_stale;
	uint64_t upcall_interest;
	uint64_t upcall_class;		/**< hits whose header fields are outside their entry's class */
	uint64_t ct_synack_fast;	/**< SYN/ACKs conntrack took on the fast path */
	uint64_t ct_ignored_fast;	/**< TCP segments passed as ignored on the fast path */
	uint64_t upcall_per_packet;	/**< hits whose entry decides each packet on the slow path */
	uint64_t upcall_pending;	/**< upcalled behind their connection's upcall in flight */
	uint64_t upcall_uncounted;	/**< upcalls no pending slot counted (never expected) */
	uint64_t waited;	/**< packets that waited for their connection's upcall */
	uint64_t waiting;	/**< of them waiting now */
	uint64_t slow_pkts;	/**< packets handled by the rules lcore */
	uint64_t upcall_fast;	/**< of them, behind their connection's upcall: the fast path's code decided them */
	uint64_t fwd_pkts;	/**< packets handed to chan_enqueue_burst() */
	uint64_t frag_in;	/**< fragments given to reassembly */
	uint64_t frag_out;	/**< datagrams reassembled */
	uint64_t frag_dropped;	/**< fragments dropped on their own (FRAG_FAILED) */
	uint64_t tx_pkts;	/**< packets transmitted by TX channel consumers */
	uint64_t non_ip_pass;
	uint64_t loops;
	uint64_t busy_loops;
	uint64_t hw_classified;	/**< marked packets that skipped parse and lookup */
	uint64_t hw_fallback;	/**< marked packets the mark check sent to the software path */
	uint64_t ll_held;	/**< lossless: packets waiting for room in a ring now */
	uint64_t ll_bursts;	/**< lossless: times a full ring held packets back */
	uint64_t up_rings;	/**< upcall ring enqueues (RX lcores keep upcalls for one) */
	uint64_t up_kept;	/**< upcalls RX lcores keep for their next ring enqueue now */
	uint64_t rx_kept;	/**< packets received and kept for the next poll now */
	uint64_t rx_kept_idle;	/**< kept bursts applied by a poll that received nothing */
	/* Router mode (struct dp_stats' router counters, summed). */
	uint64_t neigh_in;	/**< ARP/ND frames handed to the neighbour module */
	uint64_t l3_slow;	/**< hits sent to the slow path (resolving, TTL, MTU) */
	uint64_t held;		/**< packets held for a next hop being resolved */
	uint64_t echo_replies;	/**< echo requests to the router answered */
	uint64_t local_in;	/**< accepted local packets to the local channel */
	uint64_t icmp_errors;	/**< ICMP errors sent */
	uint64_t icmp_suppressed; /**< ICMP errors not sent (rate limit, ...) */
	uint64_t frag_datagrams; /**< datagrams fragmented for the egress MTU */
	uint64_t frag_made;	/**< fragments they became */
	uint64_t log_queued;     /**< LOG/NFLOG records queued for the main lcore */
	uint64_t log_dropped;    /**< LOG/NFLOG records lost (ring full, no mbuf) */
	uint64_t rewritten;      /**< packets TOS/DSCP/TTL/HL/CHECKSUM/TCPMSS changed */
	uint64_t rewrite_skipped; /**< rewrites that could not apply */
	uint64_t reject_replies; /**< REJECT: ICMP errors and TCP resets sent */
	uint64_t reject_suppressed; /**< REJECT: replies not sent */
	uint64_t originated;	/**< packets the datapath made (ICMP errors, resets, fragments) */
	uint64_t drops[GUFC_DROP__COUNT]; /**< the registry (gufc_drops.h) */
};

/** One RX queue served by an RX lcore. */
struct gufc_rxq {
	uint16_t port;
	uint16_t queue;
};

#define GUFC_ROLE_RX 0x1
#define GUFC_ROLE_RULES 0x2
#define GUFC_ROLE_MAIN 0x4

/** One lcore's context: its roles, queues, datapath contexts and counters. */
struct gufc_lcore {
	struct gufc_stats st;
	struct dp_ctx rx_dp;   /**< RX role: reader and producer rx_index, upcall ring */
	struct dp_ctx slow_dp; /**< rules role: producer rules_producer (decisions) */
	unsigned int lcore_id;
	unsigned int roles;
	unsigned int rx_index; /**< RX lcores: reader and producer id, upcall ring index */
	unsigned int n_rxq;
	struct gufc_rxq rxq[GUFC_MAX_PORTS * GUFC_MAX_RXQ];
	struct rte_ring *upcall; /**< RX lcores: SPSC ring to the rules lcore */
	struct dp_done *done;    /**< RX lcores: completion counter the rules lcore bumps */
	struct dp_pending *pend; /**< RX lcores: upcalls in flight per connection */
	uint8_t *flat;           /**< RX lcores: slow_dp.flat (chained upcalls copied whole) */
	volatile int rx_done;    /**< RX role stopped (shutdown) */
	struct gufc_app *app;
} __rte_cache_aligned;

/** Phases of a run. */
enum gufc_phase {
	GUFC_PHASE_RUN,
	GUFC_PHASE_STOP_RX, /**< RX stops; rules lcore drains everything */
	GUFC_PHASE_DONE,    /**< all drained: every loop returns */
};

/** Where a port's packets come from (gufc_port.c; --lossless auto). */
enum gufc_rx_src {
	GUFC_RX_LIVE, /**< a NIC, a tap, an interface, a generator */
	GUFC_RX_FILE, /**< net_pcap reading a file (rx_pcap) */
	GUFC_RX_NONE, /**< no RX (net_pcap without RX source, net_null no-rx=1) */
	/**
	 * net_pcap replaying a file from memory (infinite_rx=1): live for the
	 * datapath (its read never blocks nor ends), but a read held back
	 * loses nothing (the replay waits), so --lossless auto counts it
	 * with the files.
	 */
	GUFC_RX_REPLAY,
};

/** Link types of a port's capture files (gufc_l2.c): what its frames are read as. */
enum gufc_l2 {
	GUFC_L2_ETH,  /**< Ethernet: as received */
	GUFC_L2_SLL,  /**< Linux cooked ("tcpdump -i any") */
	GUFC_L2_SLL2, /**< Linux cooked v2 */
	GUFC_L2_RAW,  /**< raw IPv4/IPv6 */
	GUFC_L2_NULL, /**< BSD loopback, host-order address family */
	GUFC_L2_LOOP, /**< OpenBSD loopback, network-order address family */
};

struct gufc_port {
	bool used;
	/**
	 * A VLAN sub-interface ("port N vlan VID parent P"): no device of its
	 * own, no queues; it receives its parent's frames tagged with its VLAN
	 * id (the tag stripped, dp_vlan_rx()) and sends on its parent's queues
	 * with the tag pushed (its TX channel's tx_vlan). Its MAC is the
	 * parent's.
	 */
	bool vlan;
	uint16_t vid;      /**< VLAN sub-interface: its VLAN id */
	uint16_t dev;      /**< the device port: its own id, or a VLAN sub-interface's parent */
	/** A device with VLAN sub-interfaces: VLAN id -> port (dp_vlan_rx()); else NULL. */
	struct dp_vlan_map *vmap;
	uint16_t n_vlans;  /**< a device: its VLAN sub-interfaces */
	uint8_t rx_src;    /**< enum gufc_rx_src */
	/**
	 * GUFC_RX_FILE: some capture file it reads is not a regular file (a
	 * FIFO, a character device) or cannot be looked at: a read may block
	 * until more input comes (gufc_rx.c, setting file-wait).
	 */
	bool rx_block;
	bool l2_conv;      /**< some RX queue's frames are not Ethernet (l2) */
	uint8_t l2[GUFC_MAX_RXQ]; /**< per RX queue: enum gufc_l2 of its capture file */
	uint16_t n_rxq;
	uint16_t n_txq;
	uint16_t pair;     /**< paired port (default forwarding) */
	int tx_chan;       /**< TX channel of this port (queue 0) */
	/** First TX queue of the RX lcores' own (direct TX, chan_producer_txq_set()); 0: none. */
	uint16_t direct_base;
	uint16_t mtu;      /**< the IP MTU gufc routes with ("port N mtu M", else the device's) */
	uint16_t dev_mtu0; /**< the device's own MTU, found at start (before gufc set one) */
	uint16_t dev_mtu;  /**< the device's MTU when last read (gufc_port_dev_mtu_now()) */
	struct rte_ether_addr mac;
	char name[RTE_ETH_NAME_MAX_LEN];
	char ifname[RULE_PORTNAME_MAX]; /**< the name rules' -i/-o match (main lcore writes) */
};

struct gufc_slow; /* gufc_slow.c */

/** Rule-set reloads on SIGHUP (gufc_reload.c). Written and read by the main lcore. */
struct gufc_reload_stats {
	uint64_t ok;          /**< reloads committed */
	uint64_t failed;      /**< reloads refused (bad file, no file, commit error) */
	uint32_t last_rules;  /**< rules of the last committed reload */
	uint32_t last_gen;    /**< its generation */
	uint64_t last_us;     /**< its load + commit time, microseconds */
};

/** What the IPFIX sender (gufc_ipfix.c) counts beside the module. Written by the rules lcore. */
struct gufc_ipfix_io {
	uint64_t frames;    /**< UDP: frames handed to the port */
	uint64_t nombuf;    /**< UDP: messages lost for want of an mbuf */
	uint64_t tx_full;   /**< UDP: messages the TX queue refused */
	uint64_t write_err; /**< file: messages that could not be written */
	uint16_t ip_id;     /**< UDP over IPv4: the next identification */
};

/** Offload counters frozen at shutdown (the objects are freed before the summary). */
struct gufc_ofl_totals {
	bool on;                        /**< a backend is configured */
	unsigned int n_ports;           /**< ports with offload state */
	struct ofl_port_stats port;     /**< summed over ports */
	struct ofl_policy_stats pol;
};

struct gufc_app {
	struct gufc_config cfg;
	uint64_t hz;
	/**
	 * Table slots the rules lcore's background step examines on an idle
	 * pass (rule_engine_step(), mod_neigh_step()); 0: GUFC_IDLE_STEP_BUDGET.
	 * Set before the lcores start (gufc-bench sweeps it).
	 */
	unsigned int idle_step_budget;
	uint64_t start_tsc;
	struct rte_mempool *pool;
	uint16_t n_ports;
	struct gufc_port ports[GUFC_MAX_PORTS];
	struct fc_locals *locals;
	struct rule_ipsets *ipsets;  /**< the --ipset file's sets (one reference), or NULL */
	struct rule_engine *eng;     /**< the slow path; single writer: the rules lcore */
	struct mod_ct_module *ctm;   /**< conntrack module of eng, or NULL (conntrack off) */
	struct mod_nat_module *natm; /**< NAT module of eng, or NULL (no NAT bindings) */
	struct mod_route *route;     /**< route module of eng */
	struct mod_neigh *neigh;     /**< router mode: neighbours and adjacencies (else NULL) */
	uint16_t local_chan;         /**< router mode: the "local" channel */
	struct fc_table *tab4;       /**< rule_engine_table(eng, FC_AF_INET4) */
	struct fc_table *tab6;
	const struct mod_nat *nat;   /**< mod_nat_module_table(natm), may be NULL */
	struct chan_table *chans;
	struct rte_ring *ctl;        /**< control ring, main (and builder threads) -> rules lcore */
	struct rte_ring *to_main;    /**< rules lcore -> main: classifier builds wanted */
	struct gufc_slow *slow;      /**< rules-lcore state */
	volatile int cls_building;   /**< a classifier build thread runs (main lcore) */
	/**
	 * One pass of every role of an lcore but MAIN's (set by main): the
	 * control client runs it while it waits for the rules lcore, so that
	 * an lcore holding several roles keeps doing them.
	 */
	unsigned int (*lcore_work)(struct gufc_lcore *lc, uint32_t now_ms);
	bool cls_outstanding;        /**< rules lcore: a CLS_WANTED is with the main lcore */
	uint64_t next_cls_tsc;       /**< rules lcore: when to look for a classifier build again */
	bool def_chan_configured;    /**< "channel default ..." in the config */
	/** Per input port: the channel of accepted packets without channel or route. */
	uint16_t def_chan[GUFC_MAX_PORTS];
	/** Per output port: its TX channel, DP_CHAN_NONE for ports not in use. */
	uint16_t port_chan[GUFC_MAX_PORTS];
	/** Named channel id -> flows accepted into it get a per-flow channel ("perflow"). */
	bool chan_perflow[CHAN_MAX_CHANNELS];
	/**
	 * TX channels on ports without TX queues for the RX lcores (no direct
	 * TX: net_pcap, a one-queue af_packet): RX lcores that do not hold the
	 * rules role consume them too (gufc_consume_tx()), so that their
	 * packets do not wait behind the slow path. Written at start (main
	 * lcore, before the lcores run), read by the RX lcores.
	 */
	uint16_t ring_tx[GUFC_MAX_PORTS + GUFC_MAX_CHANNELS_CFG];
	unsigned int n_ring_tx;
	/** The per-flow pool's cap (0: no per-flow channel); it grows up to it on demand. */
	unsigned int chan_flow_pool;
	unsigned int n_lcores;
	struct gufc_lcore *lc[RTE_MAX_LCORE];
	unsigned int n_rx;
	struct gufc_lcore *rx[GUFC_MAX_RX_LCORES];
	struct gufc_lcore *rules_lc;
	unsigned int rules_producer; /**< producer id of the rules lcore (= n_rx) */
	volatile int phase;          /**< enum gufc_phase */
	bool lossless;               /**< backpressure instead of ring-full drops (--lossless) */
	uint64_t app_grace_tsc;      /**< stopping: app channels are waited for until then (0: not yet set) */
	volatile int quit;           /**< signal or shell asked to stop */
	/** Offload (gufc_offload.c): per port, NULL when off; created by main, freed at stop. */
	struct ofl_port *ofl[GUFC_MAX_PORTS];
	struct ofl_policy *ofl_pol;         /**< heavy-hitter policy; rules lcore only */
	const struct dp_marks *dp_marks;  /**< RX fast path's view (struct dp_ctx::marks), NULL when off */
	uint64_t ofl_next_tsc;              /**< rules lcore: next policy pass */
	uint32_t ofl_exp_count;             /**< rules lcore: rule_engine_expect_count() the
						 hardware drops were last checked at */
	bool ofl_frozen;                    /**< objects freed: ofl_final holds the counters */
	struct gufc_ofl_totals ofl_final;
	uint64_t epoch_ms;                  /**< wall clock (ms since the Unix epoch) at start_tsc */
	volatile int reload_req;            /**< SIGHUP seen: the main lcore reloads the rules */
	struct gufc_reload_stats reload;    /**< reloads (gufc_reload.c); main lcore writes */
	/** IPFIX export (gufc_ipfix.c): the module (NULL when off) and its output. */
	struct mod_ipfix_module *ipfix;
	FILE *ipfix_file;                   /**< "ipfix file": the open file */
	struct gufc_ipfix_io ipfix_io;      /**< the sender's counters (rules lcore writes) */
	struct gufc_log *log;               /**< LOG/NFLOG drain (gufc_log.c); main lcore */
	int exit_code;
};

/* gufc_log.c: LOG lines and log channels, drained from the datapath's log ring. */
/** What the drain counted (main lcore writes; readers take whole values). */
struct gufc_log_stats {
	uint64_t queued;     /**< records the datapath queued (struct dp_stats::log_queued) */
	uint64_t dropped;    /**< records lost before the ring: log_dropped */
	uint64_t drained;    /**< records taken off the ring */
	uint64_t lines;      /**< LOG lines written through rte_log (gufc.log) */
	uint64_t suppressed; /**< LOG lines over log-lines per log-interval (not written) */
	uint64_t written;    /**< packets written to log channels */
	uint64_t no_chan;    /**< NFLOG records of groups no channel takes */
	uint64_t errors;     /**< log channel writes that failed */
};
/** Ring, pool, channels; the datapath contexts get the ring. @return 0 or -errno (logged). */
int gufc_log_init(struct gufc_app *app);
/** Drain at most @p budget records. @return records drained. Context: main lcore. */
unsigned int gufc_log_poll(struct gufc_app *app, unsigned int budget);
/** Drain everything, close the channels (counters kept). Context: main lcore, lcores stopped. */
void gufc_log_fini(struct gufc_app *app);
/** gufc_log_fini(), then free the ring, pool and state. */
void gufc_log_free(struct gufc_app *app);
/** The counters; @p queued and @p dropped: the datapath's (struct gufc_stats). */
void gufc_log_stats_get(const struct gufc_app *app, uint64_t queued, uint64_t dropped,
	struct gufc_log_stats *st);
/** Records of rule @p rule_id drained so far. */
uint64_t gufc_log_rule_logged(const struct gufc_app *app, uint32_t rule_id);
/** Per LOG/NFLOG rule: logged and dropped records; "show log". */
void gufc_log_dump(const struct gufc_app *app, FILE *f);
/** The same as JSON members ("\"log\": {...}"), for the stats file and telemetry. */
void gufc_log_json(const struct gufc_app *app, uint64_t queued, uint64_t dropped, FILE *f);

/* gufc_ipfix.c: IPFIX export (lib/modules/ipfix) wired to a port or a file. */
/** Create the exporter after the engine: open the file, register the module. @return 0 or -errno (logged). */
int gufc_ipfix_init(struct gufc_app *app);
/** Rules lcore, once traffic is over: export the live flows and send what waits. */
void gufc_ipfix_stop(struct gufc_app *app, uint32_t now);
/** After the engine is freed: free the module, close the file. */
void gufc_ipfix_fini(struct gufc_app *app);
/** The exporter's counters. */
struct gufc_ipfix_totals {
	bool on;
	struct mod_ipfix_stats st;
	struct gufc_ipfix_io io;
};
void gufc_ipfix_totals(const struct gufc_app *app, struct gufc_ipfix_totals *t);
/** Where records go, one line ("collector 192.0.2.9:4739 via port 1, source ..."). */
int gufc_ipfix_describe(const struct gufc_app *app, char *buf, size_t len);
/** "show ipfix": destination, timeouts, counters. */
void gufc_ipfix_dump(const struct gufc_app *app, FILE *f);

/* gufc_reload.c: SIGHUP */
/**
 * Reload the rule set from the files the command line or the config named
 * (--rules, or --iptables and/or --ip6tables; "rules", "iptables",
 * "ip6tables") with the ipsets (--ipset, "ipset"), all or nothing: the
 * files are read whole, the ports' names given, then committed through the
 * path "commit" takes in the shell (gufc_chan_commit()). Logged (rules,
 * generation, time) and counted in app->reload; on any error the running
 * rules and ipsets stay.
 * @param app  the application
 * @return 0, -ENOENT (no rules file configured), -EINVAL (bad file), or the
 *   port names' or the commit's error.
 * Context: main lcore.
 */
int gufc_reload(struct gufc_app *app);

/* gufc_port.c */
/**
 * Note the --vdev arguments of the EAL part of @p argv (before
 * rte_eal_init() takes them): gufc_ports_init() fails when one of them did
 * not come up (gufc_vdevs_check()), and gufc_ports_init() tells
 * file-backed ports (net_pcap rx_pcap) from live ones.
 * Context: main, before rte_eal_init().
 */
void gufc_vdevs_note(int argc, char **argv);
/**
 * Every ethdev vdev noted has a port: one its driver refused (a missing
 * rx_pcap file) is logged, naming it. @return 0, or -ENODEV.
 * Context: main, right after rte_eal_init().
 */
int gufc_vdevs_check(void);
/** The --vdev argument ("net_pcap0,rx_pcap=...") of vdev @p name, or NULL. */
const char *gufc_vdev_args(const char *name);
/**
 * The device MTU of started port @p pid for routing MTU @p mtu, as the
 * config's "port N mtu M" gives it at start: @p mtu itself above 1500, the
 * device's own (gufc_port::dev_mtu0) otherwise. Refused, the device as it
 * was: an MTU over the device's maximum or frame limit, and one whose
 * frames pass an mbuf on a device started without the RX scatter (or TX
 * multi-segment) it has: those are set at start. A device without an MTU
 * of its own (-ENOTSUP) takes any, as at start.
 * @param[out] prev  the device's MTU before (for gufc_port_dev_mtu_undo())
 * @param[out] why   the reason of a refusal, @p n bytes
 * @return 0, -EINVAL or -ENOTSUP (refused: @p why), or the PMD's -errno.
 * Context: main (the shell), the port started.
 */
int gufc_port_dev_mtu(struct gufc_app *app, uint16_t pid, uint16_t mtu, uint16_t *prev,
	char *why, size_t n);
/**
 * The MTU device @p pid has now (rte_eth_dev_get_mtu()), beside the
 * routing MTU (gufc_port_cfg::mtu) of `show ports`, /gufc/ports and the
 * JSON summary; once the device is closed (the exit summary), the last
 * one read (at start, after each change); 0 if none ever was.
 * Context: main, control.
 */
uint16_t gufc_port_dev_mtu_now(struct gufc_app *app, uint16_t pid);

/* gufc_l2.c */
/**
 * Read the link type of each rx_pcap file of port @p pid (net_pcap: one
 * RX queue per file) into its l2[]; l2_conv when one is not Ethernet.
 * @return 0, or -EINVAL (a link type gufc cannot read; logged).
 * Context: main, port set-up.
 */
int gufc_l2_setup(struct gufc_app *app, uint16_t pid);
/** Turn the @p n frames received on @p rq into Ethernet frames (its file's link type). */
void gufc_l2_rx(const struct gufc_app *app, const struct gufc_rxq *rq, struct rte_mbuf **m,
	unsigned int n);
/** The name of link type kind @p l2 (enum gufc_l2). */
const char *gufc_l2_name(unsigned int l2);
int gufc_ports_init(struct gufc_app *app);
void gufc_ports_fini(struct gufc_app *app);

/* gufc_offload.c: hardware help (doc/offload.md). */
/** Bind the backend to every port and log its capabilities. @return 0 or -errno. */
int gufc_offload_ports_init(struct gufc_app *app);
/** Create the policy (after the engine). @return 0 or -errno. */
int gufc_offload_policy_init(struct gufc_app *app);
/** Rules lcore: scan and execute the policy, about every millisecond. @return work done. */
unsigned int gufc_offload_poll(struct gufc_app *app, uint32_t now_ms);
/** Rules lcore, right after a successful rule_engine_commit(): ofl_policy_commit_sync(). */
void gufc_offload_commit(struct gufc_app *app);
/** Freeze the counters and free policy and port state (RX stopped, ports not closed yet). */
void gufc_offload_fini(struct gufc_app *app);
/** Offload counters, live or frozen. */
void gufc_offload_totals(const struct gufc_app *app, struct gufc_ofl_totals *t);
/** "show offload": backend, per-port capabilities and counters, policy counters. */
void gufc_offload_dump(const struct gufc_app *app, FILE *f);

/* gufc_rx.c */
/**
 * Set up the datapath contexts of every lcore (RX role: reader and producer
 * rx_index, its upcall ring; rules role: producer rules_producer), after
 * the engine, channels, offload policy and upcall rings exist.
 */
void gufc_dp_init(struct gufc_app *app);
/**
 * Stopping: take completions and offer what the RX context holds again.
 * @return true when it holds nothing and no packet waits (the RX role may
 *   end; upcalls still in flight are the rules lcore's to finish).
 */
bool gufc_rx_idle(struct gufc_lcore *lc, uint32_t now_ms);
/** One RX iteration over the lcore's queues. @return packets received. */
unsigned int gufc_rx_poll(struct gufc_lcore *lc, uint32_t now_ms);

/**
 * The cycles of one gufc_rx_poll_timed() call by part (rte_rdtsc() around
 * each): what a benchmark reads to tell the poll's per-loop work from its
 * per-packet work. gufc_rx_poll() itself takes no timestamps.
 */
struct gufc_rx_times {
	uint64_t done;	    /**< dp_done_poll() at the start */
	uint64_t rx;	    /**< rte_eth_rx_burst() on the queues */
	uint64_t dp;	    /**< dp_rx_burst() (and the L2 conversion) */
	uint64_t quiescent; /**< the quiescent report (both RCU variables) */
};

/**
 * gufc_rx_poll(), each part timed into @p tm (overwritten). Context: the
 * RX lcore of @p lc (a benchmark's).
 */
unsigned int gufc_rx_poll_timed(struct gufc_lcore *lc, uint32_t now_ms, struct gufc_rx_times *tm);
/** TSC cycles as microseconds. */
static inline double
gufc_cyc_us(const struct gufc_app *app, uint64_t cycles)
{
	return (double)cycles * 1e6 / (double)app->hz;
}

/** Coarse time in ms since start. */
static inline uint32_t
gufc_now_ms(const struct gufc_app *app)
{
	return (uint32_t)((rte_get_tsc_cycles() - app->start_tsc) / (app->hz / 1000));
}

/* gufc_slow.c */
int gufc_slow_init(struct gufc_app *app);
void gufc_slow_fini(struct gufc_app *app);
/** One rules-lcore iteration. @return work done (packets). */
unsigned int gufc_slow_poll(struct gufc_app *app, struct gufc_lcore *lc, uint32_t now_ms);
/** Channel consumers (TX, pcap, discard): chan_consume_all(). @return packets consumed. */
unsigned int gufc_consume(struct gufc_app *app, struct gufc_lcore *lc);
/**
 * The TX channels of app->ring_tx (ports without direct TX), for an RX
 * lcore: chan_tx_poll() each, whose try-lock keeps one transmitter per
 * queue when the rules lcore or another RX lcore consumes at the same time.
 * @return packets consumed.
 */
unsigned int gufc_consume_tx(struct gufc_app *app, struct gufc_lcore *lc);
/*
 * Is there still work between RX and the consumers (upcall rings, packets
 * a lossless context holds, channel rings)? App channels are drained by another process: while running they
 * never hold gufc up; once stopping, one with an attached consumer is waited
 * for at most GUFC_APP_GRACE_MS, after which what is left counts as
 * app_unconsumed.
 */
bool gufc_slow_busy(struct gufc_app *app);
/**
 * Does an app channel hold packets? --idle-exit waits for them up to
 * GUFC_APP_WAIT_MS after the last packet arrived, consumer attached or not
 * (its process may still be starting).
 */
bool gufc_slow_app_pending(struct gufc_app *app);
/** How long --idle-exit waits for app channels to be drained. */
#define GUFC_APP_WAIT_MS 10000

/** How long a stopping gufc waits for app-channel consumers to drain. */
#define GUFC_APP_GRACE_MS 2000
/** At shutdown: fragments still waiting, and app channels nobody drains, counted as drops. */
void gufc_slow_flush(struct gufc_app *app, struct gufc_lcore *lc);

/**
 * The neighbour module's unreach_fn (@p arg the app): a packet whose next
 * hop did not answer gets its ICMP host unreachable (dp_l3_held_failed())
 * from the slow path context running the module's step; @p m is freed.
 * Context: the lcore running gufc_slow_poll().
 */
void gufc_slow_neigh_unreach(void *arg, struct rte_mbuf *m);

/* The control layer (control ring, channels, collectors) is gufc_ctl.h's. */

/**
 * Engine callbacks (struct rule_engine_params::chan_flow_alloc_fn / _free_fn,
 * @p arg the app): a per-flow channel from the pool for a flow accepted into
 * a "perflow" channel, and its return once the engine's grace period passed.
 * Context: rules lcore.
 */
int gufc_chan_flow_alloc(void *arg, uint16_t channel);
int gufc_chan_flow_free(void *arg, uint32_t id);

/* gufc_stats.c */
struct gufc_totals {
	struct gufc_sum sum;
	uint64_t delivered;
	uint64_t drops_total;
	struct chan_totals ct;
	struct chan_flow_pool fp;     /**< the per-flow ring pool */
	struct fc_table_stats t4, t6;
	struct rule_engine_stats es;
	struct mod_ct_module_stats cts;
	struct mod_ct_helper_stats cth; /**< conntrack helpers (FTP) and expectations */
	struct mod_nat_module_stats nats;
	struct mod_route_stats rts;
	struct mod_neigh_stats nb;   /**< router mode's neighbour module (zeros in bridge mode) */
	uint64_t originated;         /**< packets gufc made: datapath's and neighbour module's */
	struct gufc_ofl_totals ofl;
	struct gufc_ipfix_totals ipfix;
	struct gufc_reload_stats reload;
	bool pool_ok;
	unsigned int pool_size;
	unsigned int pool_avail;
};
bool gufc_accounting_ok(const struct gufc_totals *t);
void gufc_stats_sum(struct gufc_app *app, struct gufc_totals *t);
void gufc_stats_line(struct gufc_app *app, FILE *f);
/** Print the final summary. @return true if the accounting invariant holds. */
bool gufc_stats_summary(struct gufc_app *app, const struct gufc_totals *t, FILE *f);
int gufc_stats_json(struct gufc_app *app, const struct gufc_totals *t, const char *path);
/** Letters of an lcore's roles, "M", "R", "X" in that order ("MRX": all three). @return @p buf. */
const char *gufc_roles_text(unsigned int roles, char buf[4]);
/** Does an lcore with @p roles hold timed role @p r (enum gufc_cyc_role)? */
static inline bool
gufc_holds_role(unsigned int roles, unsigned int r)
{
	static const unsigned int bit[GUFC_CYC__COUNT] = { GUFC_ROLE_RX, GUFC_ROLE_RULES,
		GUFC_ROLE_MAIN };

	return r < GUFC_CYC__COUNT && (roles & bit[r]) != 0;
}
/**
 * Busy and idle cycles per lcore and role (gufc_cycles.h). @p detail: the
 * table of "show lcores"; else one line per lcore (summary, "show stats").
 */
void gufc_lcores_dump(const struct gufc_app *app, FILE *f, bool detail);

/* gufc_shell.c: the interactive shell and --script (doc/shell.md). */
/**
 * Start the shell: run @p script (if not NULL) command by command, then, if
 * @p interactive, open the prompt on stdin. Called on the main lcore after
 * everything is running. @return 0, or -ENOTSUP when no shell is built in.
 */
int gufc_shell_start(struct gufc_app *app, const char *script, bool interactive);
/** Poll the shell once from the main lcore's loop. @return <0 when it wants to quit, 1 when
 * it read input, else 0. */
int gufc_shell_poll(struct gufc_app *app);
/** Close the shell (terminal restored). */
void gufc_shell_stop(struct gufc_app *app);
/**
 * Run one shell command line (the function the shell's commands land in).
 * @return 0, or -errno (the shell printed why).
 */
int gufc_shell_exec(struct gufc_app *app, const char *line, FILE *out);

/* gufc_telemetry.c: the telemetry commands /gufc/stats etc. (main lcore). */
/** Register the commands (once) and start serving @p app. @return 0 or -errno. */
int gufc_telemetry_init(struct gufc_app *app);
/** Answer a pending telemetry request. Context: main lcore's loop, about every ms.
 * @return 1 if one was answered, else 0. */
int gufc_telemetry_poll(struct gufc_app *app);
/** Stop serving (requests get an error from now on). */
void gufc_telemetry_fini(struct gufc_app *app);

#endif /* GUFC_H */
