/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_opts.c — gufc's command line (the part after EAL's "--") and the
 * settings it shares with the config file's "set KEY VALUE". A bad argument
 * is named in the message and nothing starts. It also holds the app's log
 * type, which every app file logs through (GUFC_LOG) and main registers:
 * this file depends on no other app file.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gufc.h"

int gufc_logtype;

void
gufc_settings_init(struct gufc_settings *s)
{
	struct mod_ct_cfg ct;

	memset(s, 0, sizeof(*s));
#define GUFC_SET_DEF(f, key, kind, def) s->f = (def);
	GUFC_SETTINGS(GUFC_SET_DEF)
#undef GUFC_SET_DEF
	mod_ct_cfg_init(&ct);
	memcpy(s->ct_timeout, ct.timeout, sizeof(s->ct_timeout));
}

/* A number: decimal, 0x hexadecimal or 0 octal (lex_u32()). */
static int
parse_u32(const char *v, uint32_t *out)
{
	if (v == NULL)
		return -EINVAL;
	return lex_u32(v, strlen(v), UINT32_MAX, LEX_NUM_C, out, NULL);
}

/*
 * The most a flow's idle timeout may be (timeout.NAME, flow-timeout), in
 * ms: aging counts idle time in 31 bits (fc_table_age()), and an entry keeps
 * a timeout exactly below 2^23 ms (~2.3 h), in whole seconds from there on
 * (fc_timeout_encode()); this is the largest such value under 2^31.
 */
#define FLOW_TIMEOUT_MAX_MS 2147483000u

/* A flow's idle timeout @p v (ms) the flow table keeps exactly, or why not. */
static int
flow_timeout_check(uint32_t v, const char *zero, const char **err)
{
	if (v == 0) {
		*err = zero;
		return -EINVAL;
	}
	if (v > FLOW_TIMEOUT_MAX_MS) {
		*err = "a timeout is at most 2147483000 ms (~24.8 days)";
		return -EINVAL;
	}
	if (fc_timeout_stored(v) != v) {
		*err = "from 8388608 ms (~2.3 h) on, a timeout is whole seconds (a multiple of 1000)";
		return -EINVAL;
	}
	return 0;
}

static int
parse_word(const char *v, const char *const words[], unsigned int n, uint32_t *out)
{
	for (unsigned int i = 0; i < n; i++)
		if (words[i] != NULL && strcmp(v, words[i]) == 0) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

static const char *const bool_words[] = { "off", "on" };
static const char *const bool_words2[] = { "no", "yes" };
static const char *const full_words[] = { [FC_FULL_EVICT_IDLE] = "evict",
	[FC_FULL_REFUSE] = "refuse" };
static const char *const frag_words[] = { [GUFC_FRAG_REASSEMBLE] = "reassemble",
	[GUFC_FRAG_DROP] = "drop" };
static const char *const nonip_words[] = { [GUFC_NONIP_DEFAULT] = "pass",
	[GUFC_NONIP_DROP] = "drop" };

#define KIND_U32 0
#define KIND_BOOL 1
#define KIND_FULL 2
#define KIND_FRAG 3
#define KIND_NONIP 4
#define KIND_OFFLOAD 5
#define KIND_MODE 6

static const char *const mode_words[] = { [GUFC_MODE_BRIDGE] = "bridge",
	[GUFC_MODE_ROUTER] = "router" };
#define KIND_AUTO 7

static const char *const auto_words[] = { [GUFC_OFF] = "off", [GUFC_ON] = "on",
	[GUFC_AUTO] = "auto" };

/* "off", "rteflow", "swnic", "swnic:SIZE" -> gufc_offload_encode(). */
static int
parse_offload(const char *v, uint32_t *out)
{
	struct ofl_port_params p = { .backend = OFL_BACKEND_OFF };

	if (ofl_backend_parse(v, &p) != 0)
		return -EINVAL;
	*out = gufc_offload_encode(p.backend, p.swnic_size);
	return 0;
}

static const struct {
	const char *key;
	unsigned int kind;
} setting_desc[GUFC_SET__COUNT] = {
#define GUFC_SET_DESC(f, k, kind, def) [GUFC_SET_##f] = { k, KIND_##kind },
	GUFC_SETTINGS(GUFC_SET_DESC)
#undef GUFC_SET_DESC
};

static uint32_t *
setting_ptr(struct gufc_settings *s, unsigned int id)
{
	switch (id) {
#define GUFC_SET_PTR(f, k, kind, def) \
	case GUFC_SET_##f: \
		return &s->f;
		GUFC_SETTINGS(GUFC_SET_PTR)
#undef GUFC_SET_PTR
	default:
		return NULL;
	}
}

/* Range checks of numeric settings. */
static int
setting_check(unsigned int id, uint32_t v, const char **err)
{
	switch (id) {
	case GUFC_SET_flows:
		if (v < 64 || v > (1u << 26)) {
			*err = "flows must be 64..67108864";
			return -EINVAL;
		}
		break;
	case GUFC_SET_burst:
		if (v < 1 || v > GUFC_BURST_MAX) {
			*err = "burst must be 1..64";
			return -EINVAL;
		}
		break;
	case GUFC_SET_rxq:
		if (v < 1 || v > GUFC_MAX_RXQ) {
			*err = "rxq must be 1..16";
			return -EINVAL;
		}
		break;
	case GUFC_SET_rxd:
	case GUFC_SET_txd:
		if (v < 32 || v > 16384) {
			*err = "descriptor count must be 32..16384";
			return -EINVAL;
		}
		break;
	case GUFC_SET_mbufs:
		if (v < 1024) {
			*err = "mbufs must be at least 1024";
			return -EINVAL;
		}
		break;
	case GUFC_SET_pending_queue:
		if (v < 64 || v > (1u << 20)) {
			*err = "pending-queue must be 64..1048576";
			return -EINVAL;
		}
		break;
	case GUFC_SET_upcall_ring:
	case GUFC_SET_channel_size:
	case GUFC_SET_perflow_ring:
		if (v < 64 || v > (1u << 24) || (v & (v - 1)) != 0) {
			*err = "ring size must be a power of two in 64..16777216";
			return -EINVAL;
		}
		break;
	case GUFC_SET_perflow_max:
		if (v < 1 || v > CHAN_FLOW_POOL_MAX) {
			*err = "perflow-max must be 1..4194304";
			return -EINVAL;
		}
		break;
	case GUFC_SET_frag_timeout:
		if (v < 1) {
			*err = "timeout must be at least 1 ms";
			return -EINVAL;
		}
		break;
	case GUFC_SET_flow_timeout:
		return flow_timeout_check(v, "timeout must be at least 1 ms", err);
	case GUFC_SET_offload_pps:
	case GUFC_SET_offload_interval:
		if (v < 1) {
			*err = "must be at least 1";
			return -EINVAL;
		}
		break;
	case GUFC_SET_offload_max:
		if (v < 1 || v > (1u << 20)) {
			*err = "offload-max-flows must be 1..1048576";
			return -EINVAL;
		}
		break;
	case GUFC_SET_tcp_max_retrans:
		if (v > 255) {
			*err = "tcp-max-retrans must be 0..255";
			return -EINVAL;
		}
		break;
	case GUFC_SET_neighbours:
		if (v < 1 || v > MOD_NEIGH_MAX) {
			*err = "neighbours must be 1..65534";
			return -EINVAL;
		}
		break;
	case GUFC_SET_neigh_queue:
		if (v < 1 || v > 1024) {
			*err = "neigh-queue must be 1..1024";
			return -EINVAL;
		}
		break;
	case GUFC_SET_neigh_probes:
		if (v < 1 || v > 10) {
			*err = "neigh-probes must be 1..10";
			return -EINVAL;
		}
		break;
	case GUFC_SET_neigh_reachable:
	case GUFC_SET_neigh_retrans:
		if (v < 1 || v > 3600000) {
			*err = "must be 1..3600000 ms";
			return -EINVAL;
		}
		break;
	case GUFC_SET_nat_bindings:
		if (v < 1 || v > MOD_NAT_BINDINGS_MAX) {
			*err = "nat-bindings must be 1..268435456";
			return -EINVAL;
		}
		break;
	default:
		break;
	}
	return 0;
}

int
gufc_setting_set(struct gufc_settings *s, const char *key, const char *value, bool from_cli,
	const char **err)
{
	uint32_t v;
	int rc;

	*err = NULL;
	if (strncmp(key, "timeout.", 8) == 0) {
		int to = mod_ct_timeout_find(key + 8);

		if (to < 0)
			return -ENOENT;
		if (parse_u32(value, &v) != 0) {
			*err = "expected a timeout in ms (>= 1)";
			return -EINVAL;
		}
		if (flow_timeout_check(v, "expected a timeout in ms (>= 1)", err) != 0)
			return -EINVAL;
		if (!from_cli && (s->ct_timeout_set_by_cli & (1u << to)))
			return 0;
		s->ct_timeout[to] = v;
		if (from_cli)
			s->ct_timeout_set_by_cli |= 1u << to;
		return 0;
	}
	for (unsigned int id = 0; id < GUFC_SET__COUNT; id++) {
		if (strcmp(key, setting_desc[id].key) != 0)
			continue;
		switch (setting_desc[id].kind) {
		case KIND_U32:
			rc = parse_u32(value, &v);
			if (rc != 0)
				*err = "expected a number";
			else
				rc = setting_check(id, v, err);
			break;
		case KIND_BOOL:
			rc = parse_word(value, bool_words, 2, &v);
			if (rc != 0)
				rc = parse_word(value, bool_words2, 2, &v);
			if (rc != 0)
				*err = "expected on or off";
			break;
		case KIND_FULL:
			rc = parse_word(value, full_words, RTE_DIM(full_words), &v);
			if (rc != 0)
				*err = "expected evict or refuse";
			break;
		case KIND_FRAG:
			rc = parse_word(value, frag_words, RTE_DIM(frag_words), &v);
			if (rc != 0)
				*err = "expected reassemble or drop";
			break;
		case KIND_AUTO:
			rc = parse_word(value, auto_words, RTE_DIM(auto_words), &v);
			if (rc != 0)
				*err = "expected on, off or auto";
			break;
		case KIND_OFFLOAD:
			rc = parse_offload(value, &v);
			if (rc != 0)
				*err = "expected off, rteflow, swnic or swnic:SIZE (1..16777216)";
			break;
		case KIND_MODE:
			rc = parse_word(value, mode_words, RTE_DIM(mode_words), &v);
			if (rc != 0)
				*err = "expected bridge or router";
			break;
		default:
			rc = parse_word(value, nonip_words, RTE_DIM(nonip_words), &v);
			if (rc != 0)
				*err = "expected pass or drop";
			break;
		}
		if (rc != 0)
			return -EINVAL;
		if (!from_cli && (s->set_by_cli & (1ull << id)))
			return 0;
		*setting_ptr(s, id) = v;
		if (from_cli)
			s->set_by_cli |= 1ull << id;
		return 0;
	}
	return -ENOENT;
}

void
gufc_settings_dump(const struct gufc_settings *s, FILE *f)
{
	struct gufc_settings *w = (struct gufc_settings *)(uintptr_t)s;

	for (unsigned int id = 0; id < GUFC_SET__COUNT; id++) {
		uint32_t v = *setting_ptr(w, id);

		switch (setting_desc[id].kind) {
		case KIND_U32:
			fprintf(f, "%s %u\n", setting_desc[id].key, v);
			break;
		case KIND_BOOL:
			fprintf(f, "%s %s\n", setting_desc[id].key, bool_words[v & 1]);
			break;
		case KIND_FULL:
			fprintf(f, "%s %s\n", setting_desc[id].key, full_words[v]);
			break;
		case KIND_FRAG:
			fprintf(f, "%s %s\n", setting_desc[id].key, frag_words[v]);
			break;
		case KIND_AUTO:
			fprintf(f, "%s %s\n", setting_desc[id].key, auto_words[v]);
			break;
		case KIND_OFFLOAD:
			if ((v >> 2) != 0)
				fprintf(f, "%s %s:%u\n", setting_desc[id].key,
					ofl_backend_name((enum ofl_backend)(v & 3)), v >> 2);
			else
				fprintf(f, "%s %s\n", setting_desc[id].key,
					ofl_backend_name((enum ofl_backend)(v & 3)));
			break;
		case KIND_MODE:
			fprintf(f, "%s %s\n", setting_desc[id].key, mode_words[v]);
			break;
		default:
			fprintf(f, "%s %s\n", setting_desc[id].key, nonip_words[v]);
			break;
		}
	}
	for (unsigned int i = 0; i < MOD_CT_TO__COUNT; i++)
		fprintf(f, "timeout.%s %u\n", mod_ct_timeout_name(i), s->ct_timeout[i]);
}

void
gufc_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL options] -- [gufc options]\n"
		"gufc: a DPDK packet processor where one flow-cache lookup decides each\n"
		"packet's fate (filter, conntrack, NAT, route, channel).\n"
		"\n"
		"Configuration:\n"
		"  --config FILE          config file (grammar: doc/config.md)\n"
		"  --rules FILE           rule set in the native language (doc/rules.md)\n"
		"  --iptables FILE        IPv4 rule set from iptables-save output\n"
		"  --ip6tables FILE       IPv6 rule set from ip6tables-save output (with\n"
		"                         --iptables: each decides its own family)\n"
		"  --ipset FILE           ipsets (ipset save output) that -m set rules name\n"
		"  -i, --interactive      open the interactive shell after start\n"
		"  --script FILE          run shell commands from FILE after start\n"
		"\n"
		"Flow cache and modules:\n"
		"  --flows N              flow cache capacity per family (default 65536)\n"
		"  --full-policy P        evict|refuse: what a full cache does (default evict)\n"
		"  --conntrack on|off     connection tracking (default on)\n"
		"  --tcp-strict           only a SYN opens a TCP connection\n"
		"  --set KEY=VALUE        any setting of the config file's 'set' (repeatable)\n"
		"\n"
		"Ports and lcores:\n"
		"  --rxq N                RX queues per port, RSS with a symmetric key (default 1)\n"
		"  --burst N              RX burst size, 1..64 (default 32)\n"
		"  --rx-lcores LIST       lcores polling RX queues, e.g. 1,2 or 1-3\n"
		"  --rules-lcore N        lcore of the slow path (rules lcore)\n"
		"                         defaults: 1 lcore: all on the main lcore; 2: main and\n"
		"                         rules share the main lcore, RX on the other; more: rules\n"
		"                         on the first worker, RX on the rest\n"
		"\n"
		"Hardware help (doc/offload.md):\n"
		"  --offload B            off|rteflow|swnic[:SIZE]: put heavy-hitter flows in the\n"
		"                         NIC (rte_flow) or the software NIC model (default off)\n"
		"                         settings offload-pps N (1000), offload-max-flows N\n"
		"                         (1024), offload-interval MS (100)\n"
		"\n"
		"Output and run control:\n"
		"  --channel-pcap-dir DIR relative pcap channel files go to DIR; channels that\n"
		"                         rules name but the config does not declare become\n"
		"                         pcap channels DIR/NAME.pcap\n"
		"  --stats-period S       print a statistics line every S seconds (0 = never)\n"
		"  --stats-json FILE      write the final statistics as JSON to FILE\n"
		"  --idle-exit MS         exit once no packet arrived for MS ms and every queue\n"
		"                         and ring is drained (pcap replays)\n"
		"  --lossless on|off|auto a full upcall or channel ring holds RX back instead of\n"
		"                         dropping (auto, the default: on when every RX port\n"
		"                         reads a file)\n"
		"  -h, --help             this text\n"
		"\n"
		"Settings (--set KEY=VALUE, config 'set KEY VALUE'): flows, burst, rxq, rxd, txd,\n"
		"mbufs, upcall-ring, pending-queue, channel-size, perflow-ring-size, perflow-max,\nstats-period,"
		" idle-exit,"
		" conntrack, tcp-strict, tcp-loose, tcp-be-liberal, tcp-max-retrans N,\n"
		"full-policy, fragments reassemble|drop, frag-timeout MS,\n"
		"non-ip pass|drop, flow-timeout MS, nat-bindings, promisc on|off, timeout.NAME MS (conntrack),\n"
		"offload off|rteflow|swnic[:SIZE], offload-pps, offload-max-flows, offload-interval,\n"
		"mode bridge|router, icmp-rate N/s, neighbours, neigh-queue, neigh-reachable MS,\n"
		"neigh-retrans MS, neigh-probes, lossless on|off|auto.\n"
		"Command-line values win over the config file.\n"
		"\n"
		"Exit status: 0 done, 1 setup failure, 2 bad arguments or config,\n"
		"3 accounting invariant violated.\n",
		prog);
}

enum {
	OPT_CONFIG = 256,
	OPT_RULES,
	OPT_IPT,
	OPT_IPT6,
	OPT_IPSET,
	OPT_SCRIPT,
	OPT_FLOWS,
	OPT_STATS_PERIOD,
	OPT_IDLE_EXIT,
	OPT_STATS_JSON,
	OPT_RX_LCORES,
	OPT_RULES_LCORE,
	OPT_RXQ,
	OPT_BURST,
	OPT_CONNTRACK,
	OPT_TCP_STRICT,
	OPT_FULL_POLICY,
	OPT_PCAP_DIR,
	OPT_SET,
	OPT_OFFLOAD,
	OPT_LOSSLESS,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "iptables", required_argument, NULL, OPT_IPT },
	{ "ip6tables", required_argument, NULL, OPT_IPT6 },
	{ "ipset", required_argument, NULL, OPT_IPSET },
	{ "interactive", no_argument, NULL, 'i' },
	{ "script", required_argument, NULL, OPT_SCRIPT },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "idle-exit", required_argument, NULL, OPT_IDLE_EXIT },
	{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
	{ "rx-lcores", required_argument, NULL, OPT_RX_LCORES },
	{ "rules-lcore", required_argument, NULL, OPT_RULES_LCORE },
	{ "rxq", required_argument, NULL, OPT_RXQ },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "conntrack", required_argument, NULL, OPT_CONNTRACK },
	{ "tcp-strict", no_argument, NULL, OPT_TCP_STRICT },
	{ "full-policy", required_argument, NULL, OPT_FULL_POLICY },
	{ "channel-pcap-dir", required_argument, NULL, OPT_PCAP_DIR },
	{ "set", required_argument, NULL, OPT_SET },
	{ "offload", required_argument, NULL, OPT_OFFLOAD },
	{ "lossless", required_argument, NULL, OPT_LOSSLESS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
copy_path(char *dst, const char *src, const char *opt)
{
	if (strlen(src) >= GUFC_PATH_MAX || *src == '\0') {
		fprintf(stderr, "gufc: %s: bad path '%s'\n", opt, src);
		return -EINVAL;
	}
	strcpy(dst, src);
	return 0;
}

static int
cli_set(struct gufc_config *cfg, const char *opt, const char *key, const char *value)
{
	const char *err;
	int rc = gufc_setting_set(&cfg->set, key, value, true, &err);

	if (rc == -ENOENT) {
		fprintf(stderr, "gufc: %s: unknown setting '%s'\n", opt, key);
		return -EINVAL;
	}
	if (rc != 0) {
		fprintf(stderr, "gufc: %s: bad value '%s': %s\n", opt, value, err);
		return -EINVAL;
	}
	return 0;
}

int
gufc_opts_parse(struct gufc_config *cfg, int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "gufc";
	char kv[256];
	char *eq;
	int opt;
	int rc = 0;

	optind = 1;
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, argv, ":ih", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			gufc_usage(stdout, prog);
			return 1;
		case 'i':
			cfg->interactive = true;
			break;
		case OPT_CONFIG:
			rc = copy_path(cfg->config_file, optarg, "--config");
			break;
		case OPT_RULES:
			rc = copy_path(cfg->rules_file, optarg, "--rules");
			break;
		case OPT_IPT:
			rc = copy_path(cfg->ipt_file, optarg, "--iptables");
			break;
		case OPT_IPT6:
			rc = copy_path(cfg->ipt6_file, optarg, "--ip6tables");
			break;
		case OPT_IPSET:
			rc = copy_path(cfg->ipset_file, optarg, "--ipset");
			break;
		case OPT_SCRIPT:
			rc = copy_path(cfg->script_file, optarg, "--script");
			break;
		case OPT_STATS_JSON:
			rc = copy_path(cfg->stats_json, optarg, "--stats-json");
			break;
		case OPT_PCAP_DIR:
			rc = copy_path(cfg->pcap_dir, optarg, "--channel-pcap-dir");
			break;
		case OPT_FLOWS:
			rc = cli_set(cfg, "--flows", "flows", optarg);
			break;
		case OPT_STATS_PERIOD:
			rc = cli_set(cfg, "--stats-period", "stats-period", optarg);
			break;
		case OPT_IDLE_EXIT:
			rc = cli_set(cfg, "--idle-exit", "idle-exit", optarg);
			break;
		case OPT_RXQ:
			rc = cli_set(cfg, "--rxq", "rxq", optarg);
			break;
		case OPT_BURST:
			rc = cli_set(cfg, "--burst", "burst", optarg);
			break;
		case OPT_CONNTRACK:
			rc = cli_set(cfg, "--conntrack", "conntrack", optarg);
			break;
		case OPT_TCP_STRICT:
			rc = cli_set(cfg, "--tcp-strict", "tcp-strict", "on");
			break;
		case OPT_FULL_POLICY:
			rc = cli_set(cfg, "--full-policy", "full-policy", optarg);
			break;
		case OPT_OFFLOAD:
			rc = cli_set(cfg, "--offload", "offload", optarg);
			break;
		case OPT_LOSSLESS:
			rc = cli_set(cfg, "--lossless", "lossless", optarg);
			break;
		case OPT_SET:
			if (strlen(optarg) >= sizeof(kv) || (eq = strchr(optarg, '=')) == NULL) {
				fprintf(stderr, "gufc: --set: expected KEY=VALUE, got '%s'\n", optarg);
				return -EINVAL;
			}
			strcpy(kv, optarg);
			kv[eq - optarg] = '\0';
			rc = cli_set(cfg, "--set", kv, kv + (eq - optarg) + 1);
			break;
		case OPT_RX_LCORES:
			if (strlen(optarg) >= sizeof(cfg->rx_lcores) || *optarg == '\0') {
				fprintf(stderr, "gufc: --rx-lcores: bad list '%s'\n", optarg);
				return -EINVAL;
			}
			strcpy(cfg->rx_lcores, optarg);
			break;
		case OPT_RULES_LCORE: {
			uint32_t v;

			if (parse_u32(optarg, &v) != 0 || v >= RTE_MAX_LCORE) {
				fprintf(stderr, "gufc: --rules-lcore: bad lcore '%s'\n", optarg);
				return -EINVAL;
			}
			cfg->rules_lcore = (int)v;
			break;
		}
		case ':':
			fprintf(stderr, "gufc: option '%s' needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "gufc: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (rc != 0)
		return -EINVAL;
	if (optind < argc) {
		fprintf(stderr, "gufc: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -EINVAL;
	}
	if (cfg->rules_file[0] != '\0' && (cfg->ipt_file[0] != '\0' || cfg->ipt6_file[0] != '\0')) {
		fprintf(stderr, "gufc: --rules and --iptables/--ip6tables: give one rule set, "
				"not both\n");
		return -EINVAL;
	}
	return 0;
}
