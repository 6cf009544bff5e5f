/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_cfg.h — what the user asks for: the settings (command line and
 * "set KEY VALUE", gufc_opts.c) and the configuration (config file and
 * command line, gufc_config.c). Part of gufc.h (which includes it in
 * place; include gufc.h).
 */
#ifndef GUFC_CFG_H
#define GUFC_CFG_H


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
	X(rx_ahead, "rx-ahead", BOOL, 0) \
	X(pending_fast, "pending-fast", BOOL, 1) \
	X(file_wait, "file-wait", AUTO, GUFC_AUTO) \
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
	uint32_t table;  /**< "route table T": a table's number; 0: main, or by @c table_name */
	char table_name[MOD_ROUTE_NAME_MAX]; /**< "route table NAME" ("" : by number) */
};

/** A routing rule ("route-rule ...", gufc_prule.c): the rule, its table by name. */
struct gufc_prule {
	struct mod_route_rule r;
	bool pref_given;     /**< "pref P" was written */
	char table_name[MOD_ROUTE_NAME_MAX]; /**< "table NAME" ("" : r.table by number) */
};

/** Most names of a port ("port N name NAME"). */
#define GUFC_PORT_NAME_MAX 32
/** MTUs a port may be given ("port N mtu M"). */
#define GUFC_MTU_MIN 68
#define GUFC_MTU_MAX 9600
/** Router mode: the channel of accepted local traffic nothing answers. */
#define GUFC_LOCAL_CHAN "local"

/**
 * A port's configuration ("port N [vlan VID parent P] [name NAME] [address
 * PREFIX ...] [mtu M] [host]"). With @c vid, port N is a VLAN sub-interface
 * of device port @c parent (no device of its own).
 */
struct gufc_port_cfg {
	char name[GUFC_PORT_NAME_MAX]; /**< "" = none */
	uint16_t vid;                  /**< VLAN sub-interface: its VLAN id 1..4094; 0: a device */
	uint16_t parent;               /**< with vid: the device port it is a VLAN of */
	uint16_t mtu;                  /**< 0 = the device's */
	bool host; /**< carries this host's own packets: a local source there is OUTPUT's */
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
	unsigned int n_prules;
	struct gufc_prule prules[GUFC_MAX_PRULES];
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
 * What an iptables file loads other than as written (a chain line's
 * malformed counters, read as 0) is a warning with its place on @p warn
 * (if not NULL).
 * @return the set (no port names yet), or NULL with @p err filled.
 */
struct rule_set *gufc_rules_load(const struct gufc_app *app, const char *native,
	const char *ipt4, const char *ipt6, struct rule_error *err, FILE *warn);

/**
 * Load a config file into @p cfg, all or nothing: on error @p cfg is
 * unchanged and "FILE:LINE:COL: message: 'token'" was printed.
 * @return 0 or -errno.
 */
int gufc_config_load(struct gufc_config *cfg, const char *path);

#endif /* GUFC_CFG_H */
