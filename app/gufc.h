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

/* ------------------------------------------------------------------------ */
/* Settings (command line and "set KEY VALUE")                               */
/* ------------------------------------------------------------------------ */

enum gufc_frag_mode { GUFC_FRAG_REASSEMBLE, GUFC_FRAG_DROP };
enum gufc_nonip_mode { GUFC_NONIP_DEFAULT, GUFC_NONIP_DROP };
enum gufc_mode { GUFC_MODE_BRIDGE, GUFC_MODE_ROUTER };
/** AUTO settings: off, on, or chosen at start (e.g. lossless: every RX port a file). */
enum gufc_auto { GUFC_OFF, GUFC_ON, GUFC_AUTO };

/**
 * X(field, "key", kind, default) — kinds: U32 (number), BOOL (on|off),
 * FULL (evict|refuse), FRAG (reassemble|drop), NONIP (pass|drop),
 * OFFLOAD (off|rteflow|swnic[:SIZE], stored by gufc_offload_encode()),
 * MODE (bridge|router), AUTO (on|off|auto).
 */
#define GUFC_SETTINGS(X) \
	X(flows, "flows", U32, 65536) \
	X(burst, "burst", U32, GUFC_BURST_DEFAULT) \
	X(rxq, "rxq", U32, 1) \
	X(rxd, "rxd", U32, 1024) \
	X(txd, "txd", U32, 1024) \
	X(mbufs, "mbufs", U32, 16383) \
	X(upcall_ring, "upcall-ring", U32, 4096) \
	X(pending_queue, "pending-queue", U32, 2048) \
	X(channel_size, "channel-size", U32, 4096) \
	X(perflow_ring, "perflow-ring-size", U32, 256) \
	X(perflow_max, "perflow-max", U32, 131072) \
	X(stats_period, "stats-period", U32, 0) \
	X(idle_exit, "idle-exit", U32, 0) \
	X(conntrack, "conntrack", BOOL, 1) \
	X(tcp_strict, "tcp-strict", BOOL, 0) \
	X(tcp_loose, "tcp-loose", BOOL, 1) \
	X(tcp_be_liberal, "tcp-be-liberal", BOOL, 0) \
	X(tcp_max_retrans, "tcp-max-retrans", U32, MOD_CT_MAX_RETRANS_DEFAULT) \
	X(full_policy, "full-policy", FULL, FC_FULL_EVICT_IDLE) \
	X(fragments, "fragments", FRAG, GUFC_FRAG_REASSEMBLE) \
	X(frag_timeout, "frag-timeout", U32, 2000) \
	X(non_ip, "non-ip", NONIP, GUFC_NONIP_DEFAULT) \
	X(flow_timeout, "flow-timeout", U32, 30000) \
	X(nat_bindings, "nat-bindings", U32, 65536) \
	X(promisc, "promisc", BOOL, 1) \
	X(offload, "offload", OFFLOAD, 0) \
	X(offload_pps, "offload-pps", U32, 1000) \
	X(offload_max, "offload-max-flows", U32, 1024) \
	X(offload_interval, "offload-interval", U32, 100) \
	X(mode, "mode", MODE, GUFC_MODE_BRIDGE) \
	X(icmp_rate, "icmp-rate", U32, 1000) \
	X(neighbours, "neighbours", U32, 1024) \
	X(neigh_queue, "neigh-queue", U32, 16) \
	X(neigh_reachable, "neigh-reachable", U32, 30000) \
	X(neigh_retrans, "neigh-retrans", U32, 1000) \
	X(neigh_probes, "neigh-probes", U32, 3) \
	X(lossless, "lossless", AUTO, GUFC_AUTO) \
	X(log_ring, "log-ring", U32, 1024) \
	X(log_lines, "log-lines", U32, 10000) \
	X(log_interval, "log-interval", U32, 30000)

/** The "offload" setting: backend in bits 0..1, swnic size (0: default) above. */
static inline uint32_t
gufc_offload_encode(enum ofl_backend b, uint32_t swnic_size)
{
	return (uint32_t)b | (swnic_size << 2);
}

enum gufc_setting_id {
#define GUFC_SET_ENUM(f, key, kind, def) GUFC_SET_##f,
	GUFC_SETTINGS(GUFC_SET_ENUM)
#undef GUFC_SET_ENUM
	GUFC_SET__COUNT
};

struct gufc_settings {
#define GUFC_SET_FIELD(f, key, kind, def) uint32_t f;
	GUFC_SETTINGS(GUFC_SET_FIELD)
#undef GUFC_SET_FIELD
	/** Conntrack timeouts (ms), "set timeout.NAME MS". */
	uint32_t ct_timeout[MOD_CT_TO__COUNT];
	uint64_t set_by_cli; /**< bit per enum gufc_setting_id: the command line wins */
	uint32_t ct_timeout_set_by_cli;
};

void gufc_settings_init(struct gufc_settings *s);
/**
 * Set KEY to VALUE (text). @p from_cli marks it so that a config file does
 * not override it; a config value for a key the command line set is ignored.
 * @param err  receives a message on error
 * @return 0, -ENOENT (no such key), -EINVAL (bad value: @p err says why).
 */
int gufc_setting_set(struct gufc_settings *s, const char *key, const char *value, bool from_cli,
	const char **err);
/** Write "key value" lines. */
void gufc_settings_dump(const struct gufc_settings *s, FILE *f);

/* ------------------------------------------------------------------------ */
/* Configuration (config file and command line)                              */
/* ------------------------------------------------------------------------ */

/**
 * A route: a prefix (lex.h) and its output port, or its gateway ("via":
 * the port is the one whose address prefix holds the gateway).
 */
struct gufc_route {
	struct lex_prefix pfx;
	uint16_t port;
	bool via;        /**< @c gw is set */
	bool connected;  /**< made from a port's address (not a "route" line) */
	uint8_t gw[16];  /**< the gateway, of the prefix's family */
};

/** Most names of a port ("port N name NAME"). */
#define GUFC_PORT_NAME_MAX 32
/** MTUs a port may be given ("port N mtu M"). */
#define GUFC_MTU_MIN 68
#define GUFC_MTU_MAX 9600
/** Router mode: the channel of accepted local traffic nothing answers. */
#define GUFC_LOCAL_CHAN "local"

/** A port's configuration ("port N [name NAME] [address PREFIX ...] [mtu M]"). */
struct gufc_port_cfg {
	char name[GUFC_PORT_NAME_MAX]; /**< "" = none */
	uint16_t mtu;                  /**< 0 = the device's */
	unsigned int n_addr;
	struct lex_prefix addr[MOD_NEIGH_PORT_ADDRS]; /**< host address and connected length */
};

struct gufc_chan_cfg {
	char name[CHAN_NAME_MAX + 1];
	enum chan_cons_kind kind;
	char pcap[GUFC_PATH_MAX]; /**< PCAP: file as written */
	uint16_t tx_port;
	uint16_t tx_queue;
	bool tx_queue_set;
	uint32_t size;  /**< ring slots, 0 = channel-size setting */
	bool perflow;   /**< give each flow its own ring from the pool ("<name>.<n>") */
	uint32_t perflow_pool; /**< rings made for it at start (perflow N; default 256) */
};

/** Log channels, LOG's and NFLOG groups' (config "log ..."; gufc_log.c). */
#define GUFC_LOG_CHANS_MAX 8
#define GUFC_LOG_GROUPS_MAX 16
#define GUFC_LOG_GROUP_ANY UINT32_MAX
struct gufc_log_cfg {
	unsigned int n_chans;
	struct {
		char name[CHAN_NAME_MAX + 1];
		uint8_t kind;              /**< enum plog_file_kind */
		char file[GUFC_PATH_MAX];
	} chan[GUFC_LOG_CHANS_MAX];
	uint8_t target;                    /**< LOG's channel + 1; 0: lines only */
	unsigned int n_groups;
	struct {
		uint32_t group;            /**< NFLOG group, or GUFC_LOG_GROUP_ANY */
		uint8_t chan;              /**< channel index */
	} group[GUFC_LOG_GROUPS_MAX];
};

/** Where IPFIX records go (config "ipfix ..."; gufc_ipfix.c). */
enum gufc_ipfix_mode {
	GUFC_IPFIX_OFF,
	GUFC_IPFIX_UDP,  /**< "ipfix collector ADDR:PORT ...": UDP through a port */
	GUFC_IPFIX_FILE, /**< "ipfix file FILE ...": an IPFIX file (RFC 5655) */
};

/** The config's "ipfix" statement (doc/config.md). Times in seconds. */
struct gufc_ipfix_cfg {
	uint8_t mode;             /**< enum gufc_ipfix_mode */
	uint8_t family;           /**< UDP: the collector's (LEX_AF_INET4/6) */
	bool src_set;             /**< "source ADDR" given */
	uint8_t dst[16];          /**< UDP: collector address */
	uint8_t src[16];          /**< UDP: source address */
	uint16_t dport;           /**< UDP: collector port */
	uint16_t port;            /**< UDP: the port it leaves on (TX queue 0) */
	uint8_t mac[6];           /**< UDP: destination MAC (default broadcast) */
	uint32_t active_timeout;  /**< 0: off */
	uint32_t idle_timeout;    /**< 0: off */
	uint32_t template_refresh; /**< UDP only; 0: in the first message only */
	uint32_t domain;          /**< observationDomainId */
	uint32_t pen;             /**< enterprise number of gufc's elements */
	char file[GUFC_PATH_MAX]; /**< FILE: the path */
};

struct gufc_config {
	struct gufc_settings set;
	char rules_file[GUFC_PATH_MAX];
	char ipt_file[GUFC_PATH_MAX];
	char ipt6_file[GUFC_PATH_MAX];
	char ipset_file[GUFC_PATH_MAX];
	char config_file[GUFC_PATH_MAX];
	char script_file[GUFC_PATH_MAX];
	char stats_json[GUFC_PATH_MAX];
	char pcap_dir[GUFC_PATH_MAX];
	bool interactive;
	char rx_lcores[128];   /**< lcore list text, "" = default */
	int rules_lcore;       /**< -1 = default */
	unsigned int n_locals;
	struct lex_prefix locals[GUFC_MAX_LOCALS];
	unsigned int n_routes;
	struct gufc_route routes[GUFC_MAX_ROUTES];
	/** Per port; written on the rules lcore once running (gufc_router.c). */
	struct gufc_port_cfg port[GUFC_MAX_PORTS];
	unsigned int n_chans;
	struct gufc_chan_cfg chans[GUFC_MAX_CHANNELS_CFG];
	struct gufc_ipfix_cfg ipfix;
	struct gufc_log_cfg log;
};

/**
 * Parse the gufc arguments (after EAL's "--").
 * @return 0 to run, 1 when --help was printed (exit 0), -EINVAL on a bad
 *   argument (a message naming it was printed).
 */
int gufc_opts_parse(struct gufc_config *cfg, int argc, char **argv);
void gufc_usage(FILE *f, const char *prog);

/* gufc_rules.c: rule sets as the app loads them (ipsets, port names). */
struct gufc_app;
/** Each port's rule name: the config's "port N name", else the PMD's. After gufc_ports_init(). */
void gufc_port_names_init(struct gufc_app *app);
/** Give @p s the ports' names; warn on @p warn (if not NULL) of patterns no port has. @return 0 or -errno. */
int gufc_rules_ports(const struct gufc_app *app, struct rule_set *s, FILE *warn);
/** Load the --ipset file into app->ipsets (nothing without one). @return 0, -EINVAL (@p err), -ENOMEM. */
int gufc_ipsets_load(struct gufc_app *app, struct rule_error *err);
/**
 * A rule set from a native file, or from an iptables file and/or an
 * ip6tables file (each its family; NULL for none), with app->ipsets.
 * @return the set (no port names yet), or NULL with @p err filled.
 */
struct rule_set *gufc_rules_load(const struct gufc_app *app, const char *native,
	const char *ipt4, const char *ipt6, struct rule_error *err);

/**
 * Load a config file into @p cfg, all or nothing: on error @p cfg is
 * unchanged and "FILE:LINE:COL: message: 'token'" was printed.
 * @return 0 or -errno.
 */
int gufc_config_load(struct gufc_config *cfg, const char *path);

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
	uint64_t upcall_pending;	/**< upcalled behind their connection's upcall in flight */
	uint64_t waited;	/**< packets that waited for their connection's upcall */
	uint64_t waiting;	/**< of them waiting now */
	uint64_t slow_pkts;	/**< packets handled by the rules lcore */
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
	struct rte_ring *done;   /**< RX lcores: SPSC completion ring from the rules lcore */
	struct dp_pending *pend; /**< RX lcores: upcalls in flight per connection */
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
	uint8_t rx_src;    /**< enum gufc_rx_src */
	bool l2_conv;      /**< some RX queue's frames are not Ethernet (l2) */
	uint8_t l2[GUFC_MAX_RXQ]; /**< per RX queue: enum gufc_l2 of its capture file */
	uint16_t n_rxq;
	uint16_t n_txq;
	uint16_t pair;     /**< paired port (default forwarding) */
	int tx_chan;       /**< TX channel of this port (queue 0) */
	/** First TX queue of the RX lcores' own (direct TX, chan_producer_txq_set()); 0: none. */
	uint16_t direct_base;
	uint16_t mtu;      /**< the IP MTU gufc routes with ("port N mtu M", else the device's) */
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
