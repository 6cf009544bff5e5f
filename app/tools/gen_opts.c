/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gen_opts.c — gufc-gen's command line: getopt_long into struct
 * gen_opts, and the --help text. Parsing only: every bad argument yields a
 * one-line message naming the option and the value; the tool prints it and
 * exits 2. Combinations of values are checked again by gen_create().
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "lex.h"

enum {
	OPT_MIX = 256,
	OPT_IPV6,
	OPT_VLAN,
	OPT_QINQ,
	OPT_FRAG,
	OPT_RST,
	OPT_ZIPF,
	OPT_SEED,
	OPT_SIZE,
	OPT_SRC,
	OPT_DST,
	OPT_SRC6,
	OPT_DST6,
	OPT_DPORTS,
	OPT_NO_REPLIES,
	OPT_MTU,
	OPT_FLOWS_FILE,
	OPT_BENCH,
	OPT_RTT,
};

static const struct option gen_longopts[] = {
	{"output", required_argument, NULL, 'o'},
	{"flows", required_argument, NULL, 'n'},
	{"packets", required_argument, NULL, 'p'},
	{"mix", required_argument, NULL, OPT_MIX},
	{"ipv6", required_argument, NULL, OPT_IPV6},
	{"vlan", required_argument, NULL, OPT_VLAN},
	{"qinq", required_argument, NULL, OPT_QINQ},
	{"frag", required_argument, NULL, OPT_FRAG},
	{"rst", required_argument, NULL, OPT_RST},
	{"zipf", required_argument, NULL, OPT_ZIPF},
	{"seed", required_argument, NULL, OPT_SEED},
	{"size", required_argument, NULL, OPT_SIZE},
	{"rtt", required_argument, NULL, OPT_RTT},
	{"src", required_argument, NULL, OPT_SRC},
	{"dst", required_argument, NULL, OPT_DST},
	{"src6", required_argument, NULL, OPT_SRC6},
	{"dst6", required_argument, NULL, OPT_DST6},
	{"dport-set", required_argument, NULL, OPT_DPORTS},
	{"no-replies", no_argument, NULL, OPT_NO_REPLIES},
	{"mtu", required_argument, NULL, OPT_MTU},
	{"flows-file", required_argument, NULL, OPT_FLOWS_FILE},
	{"bench", no_argument, NULL, OPT_BENCH},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

void
gen_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s -o FILE [options]\n"
		"Write a pcap of synthetic flows for gufc's demo, tests and benchmarks.\n"
		"Same options and seed, same file, byte for byte.\n"
		"\n"
		"Output:\n"
		"  -o, --output FILE     pcap file to write (\"-\" for stdout); required\n"
		"      --flows-file FILE also write the flows as text, one line per flow:\n"
		"                        index, proto, src:sport -> dst:dport, family, vlan,\n"
		"                        popularity rank, data packets, frames, bytes, frag,\n"
		"                        close\n"
		"\n"
		"Flows (shares are exact: counts rounded to the nearest flow):\n"
		"  -n, --flows N         number of flows (default 100, at most %u)\n"
		"  -p, --packets N       data packets in all, requests and replies, split over\n"
		"                        the flows by popularity; every flow gets at least one,\n"
		"                        so N >= --flows (default 10 per flow). TCP handshakes\n"
		"                        and closes come on top; a fragmented datagram counts\n"
		"                        once\n"
		"      --mix SPEC        proportions of flow kinds, e.g. tcp=60,udp=30,icmp=10\n"
		"                        (the default; kinds left out get 0). tcp: SYN, SYN/ACK,\n"
		"                        ACK, data both ways, FIN/ACK close from either side or\n"
		"                        RST; udp: request/response; icmp: echo request/reply\n"
		"      --ipv6 PCT        share of flows over IPv6 (TCP, UDP, ICMPv6); default 0\n"
		"      --vlan PCT        share of flows with one 802.1Q tag; default 0\n"
		"      --qinq PCT        share of flows with two tags (802.1ad outer, 802.1Q\n"
		"                        inner), apart from --vlan: the two add up to <= 100\n"
		"      --frag PCT        share of UDP flows whose datagrams exceed the MTU and\n"
		"                        go out as IPv4/IPv6 fragments, in order; default 0\n"
		"      --rst PCT         share of TCP flows closed by RST instead of FIN\n"
		"                        (default 0)\n"
		"      --zipf S          popularity: Zipf exponent S (0 = uniform, the default);\n"
		"                        the flow of rank r gets packets in proportion to r^-S\n"
		"      --seed N          random seed (default 1)\n"
		"      --size N|MIN-MAX  payload bytes per data packet (default 64-1024), cut to\n"
		"                        fit the MTU except in fragmented datagrams (which are\n"
		"                        always larger than the MTU)\n"
		"      --mtu N           largest IP packet, %u..%u (default 1500)\n"
		"      --rtt N|MIN-MAX   each flow's round trip in us, drawn from the range (at\n"
		"                        most %u); a reply follows its request by half of it,\n"
		"                        so a long one keeps replies out of their requests' RX\n"
		"                        bursts at replay speed. Default 200-20000, shortened\n"
		"                        for busy flows so that each fits the capture span\n"
		"\n"
		"Endpoints:\n"
		"      --src NET         client IPv4 pool (default 10.0.0.0/16)\n"
		"      --dst NET         server IPv4 pool (default 192.0.2.0/24)\n"
		"      --src6 NET        client IPv6 pool (default 2001:db8:1::/64)\n"
		"      --dst6 NET        server IPv6 pool (default 2001:db8:2::/64)\n"
		"      --dport-set LIST  server ports to pick from, e.g. 22,80,443,53 (default:\n"
		"                        22,80,443 for TCP, 53,123,443 for UDP); clients use\n"
		"                        ephemeral ports %u..%u, ICMP a random echo identifier\n"
		"\n"
		"Shapes:\n"
		"      --no-replies      client-to-server packets only (benchmarks): no SYN/ACK,\n"
		"                        no replies; TCP closes with the client's FIN or RST\n"
		"      --bench           replay-benchmark shape: %u-byte IPv4 frames (FCS not\n"
		"                        included), no handshakes or closes, in rounds of one\n"
		"                        packet per flow still sending (with --zipf, popular\n"
		"                        flows send in more rounds); --mix defaults to udp=100\n"
		"                        and takes tcp and udp only; no --ipv6, --frag, --rst,\n"
		"                        --size\n"
		"  -h, --help            this text\n"
		"\n"
		"Packets of all flows interleave in time order: time stamps strictly increase,\n"
		"a handshake precedes its data, a reply follows its request by half a round\n"
		"trip. A summary goes to stderr. Exit status: 0 done, 1 failure, 2 bad\n"
		"arguments.\n",
		prog, GEN_MAX_FLOWS, GEN_MTU_MIN, GEN_MTU_MAX, GEN_MAX_RTT, 32768, 60999,
		GEN_BENCH_FRAME);
}

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A decimal unsigned integer in [min, max], nothing else around it. */
static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A finite decimal number in [min, max]. */
static int
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "N" or "MIN-MAX", each 0..max. */
static int
parse_range(const char *s, uint64_t max, uint32_t *lo, uint32_t *hi)
{
	char buf[32], *dash;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (parse_u64(buf, 0, max, &a) != 0)
		return -EINVAL;
	b = a;
	if (dash != NULL && parse_u64(dash + 1, 0, max, &b) != 0)
		return -EINVAL;
	if (a > b)
		return -EINVAL;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return 0;
}

/* "ADDR/LEN" or "ADDR" (a single host) of the given family; host bits are kept. */
static int
parse_prefix(const char *s, int family, struct gen_prefix *out)
{
	struct lex_prefix p;

	if (lex_prefix(s, strlen(s), LEX_PFX_HOST_KEEP, &p, NULL) != 0 || p.family != family)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->addr, p.addr, sizeof(out->addr));
	out->family = (uint8_t)family;
	out->len = p.len;
	return 0;
}

/* "tcp=60,udp=30,icmp=10": kinds left out get 0, each kind at most once. */
static int
parse_mix(const char *s, uint32_t *mix, char *err, size_t errlen)
{
	char buf[128], *tok, *save = NULL, *eq;
	bool seen[GEN_KIND__COUNT] = {false};
	unsigned int k;
	uint64_t v;

	if (strlen(s) >= sizeof(buf) || *s == '\0') {
		seterr(err, errlen, "--mix '%s': expected e.g. tcp=60,udp=30,icmp=10", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	memset(mix, 0, sizeof(*mix) * GEN_KIND__COUNT);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL) {
			seterr(err, errlen, "--mix '%s': '%s' is not KIND=WEIGHT", s, tok);
			return -EINVAL;
		}
		*eq = '\0';
		for (k = 0; k < GEN_KIND__COUNT; k++)
			if (strcmp(tok, gen_kind_name(k)) == 0)
				break;
		if (k == GEN_KIND__COUNT) {
			seterr(err, errlen, "--mix '%s': unknown kind '%s' (tcp, udp, icmp)", s,
				tok);
			return -EINVAL;
		}
		if (seen[k]) {
			seterr(err, errlen, "--mix '%s': '%s' given twice", s, tok);
			return -EINVAL;
		}
		seen[k] = true;
		if (parse_u64(eq + 1, 0, 1000000, &v) != 0) {
			seterr(err, errlen, "--mix '%s': weight '%s' of %s is not 0..1000000", s,
				eq + 1, tok);
			return -EINVAL;
		}
		mix[k] = (uint32_t)v;
	}
	if (mix[0] + mix[1] + mix[2] == 0) {
		seterr(err, errlen, "--mix '%s': all proportions are 0", s);
		return -EINVAL;
	}
	return 0;
}

/* "22,80,443,53". */
static int
parse_dports(const char *s, struct gen_params *p, char *err, size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	uint64_t v;

	if (strlen(s) >= sizeof(buf) || *s == '\0') {
		seterr(err, errlen, "--dport-set '%s': expected ports, e.g. 22,80,443,53", s);
		return -EINVAL;
	}
	strcpy(buf, s);
	p->n_dports = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (parse_u64(tok, 1, UINT16_MAX, &v) != 0) {
			seterr(err, errlen, "--dport-set '%s': '%s' is not a port 1..65535", s,
				tok);
			return -EINVAL;
		}
		if (p->n_dports == GEN_MAX_DPORTS) {
			seterr(err, errlen, "--dport-set '%s': more than %u ports", s,
				GEN_MAX_DPORTS);
			return -EINVAL;
		}
		p->dports[p->n_dports++] = (uint16_t)v;
	}
	if (p->n_dports == 0) {
		seterr(err, errlen, "--dport-set '%s': no ports", s);
		return -EINVAL;
	}
	return 0;
}

static int
parse_pct_opt(const char *name, const char *arg, double *out, char *err, size_t errlen)
{
	if (parse_double(arg, 0.0, 100.0, out) == 0)
		return 0;
	seterr(err, errlen, "--%s '%s': expected a percentage 0..100", name, arg);
	return -EINVAL;
}

static int
parse_prefix_opt(const char *name, const char *arg, int family, struct gen_prefix *out, char *err,
	size_t errlen)
{
	if (parse_prefix(arg, family, out) == 0)
		return 0;
	seterr(err, errlen, "--%s '%s': expected an IPv%d prefix such as %s", name, arg, family,
		family == 4 ? "10.0.0.0/16" : "2001:db8:1::/64");
	return -EINVAL;
}

int
gen_opts_parse(int argc, char **argv, struct gen_opts *o, char *err, size_t errlen)
{
	struct gen_params *p = &o->params;
	bool mix_given = false, size_given = false;
	int c, idx, ret = 0;
	uint64_t v;
	double d;

	memset(o, 0, sizeof(*o));
	gen_params_default(p);
	optind = 0; /* glibc: full re-initialization */
	opterr = 0;
	for (;;) {
		idx = -1;
		c = getopt_long(argc, argv, ":ho:n:p:", gen_longopts, &idx);
		if (c == -1)
			break;
		switch (c) {
		case 'h':
			o->help = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0) {
				seterr(err, errlen, "-n/--flows '%s': expected a count 1..%u",
					optarg, GEN_MAX_FLOWS);
				return -EINVAL;
			}
			p->flows = (uint32_t)v;
			break;
		case 'p':
			if (parse_u64(optarg, 1, UINT32_MAX, &v) != 0) {
				seterr(err, errlen, "-p/--packets '%s': expected a count 1..%u",
					optarg, UINT32_MAX);
				return -EINVAL;
			}
			p->packets = v;
			break;
		case OPT_MIX:
			ret = parse_mix(optarg, p->mix, err, errlen);
			mix_given = true;
			break;
		case OPT_IPV6:
			ret = parse_pct_opt("ipv6", optarg, &p->ipv6_pct, err, errlen);
			break;
		case OPT_VLAN:
			ret = parse_pct_opt("vlan", optarg, &p->vlan_pct, err, errlen);
			break;
		case OPT_QINQ:
			ret = parse_pct_opt("qinq", optarg, &p->qinq_pct, err, errlen);
			break;
		case OPT_FRAG:
			ret = parse_pct_opt("frag", optarg, &p->frag_pct, err, errlen);
			break;
		case OPT_RST:
			ret = parse_pct_opt("rst", optarg, &p->rst_pct, err, errlen);
			break;
		case OPT_ZIPF:
			if (parse_double(optarg, 0.0, 100.0, &d) != 0) {
				seterr(err, errlen,
					"--zipf '%s': expected an exponent 0..100 "
					"(0 = uniform)",
					optarg);
				return -EINVAL;
			}
			p->zipf = d;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, 0, UINT64_MAX, &v) != 0) {
				seterr(err, errlen, "--seed '%s': expected an unsigned integer",
					optarg);
				return -EINVAL;
			}
			p->seed = v;
			break;
		case OPT_SIZE:
			if (parse_range(optarg, GEN_MAX_SIZE, &p->size_min, &p->size_max) != 0) {
				seterr(err, errlen,
					"--size '%s': expected N or MIN-MAX, 0..%u, MIN <= MAX",
					optarg, GEN_MAX_SIZE);
				return -EINVAL;
			}
			size_given = true;
			break;
		case OPT_RTT:
			if (parse_range(optarg, GEN_MAX_RTT, &p->rtt_min, &p->rtt_max) != 0 ||
				p->rtt_min == 0) {
				seterr(err, errlen,
					"--rtt '%s': expected N or MIN-MAX in us, 1..%u, MIN <= "
					"MAX",
					optarg, GEN_MAX_RTT);
				return -EINVAL;
			}
			p->rtt_kept = true;
			break;
		case OPT_SRC:
			ret = parse_prefix_opt("src", optarg, 4, &p->src4, err, errlen);
			break;
		case OPT_DST:
			ret = parse_prefix_opt("dst", optarg, 4, &p->dst4, err, errlen);
			break;
		case OPT_SRC6:
			ret = parse_prefix_opt("src6", optarg, 6, &p->src6, err, errlen);
			break;
		case OPT_DST6:
			ret = parse_prefix_opt("dst6", optarg, 6, &p->dst6, err, errlen);
			break;
		case OPT_DPORTS:
			ret = parse_dports(optarg, p, err, errlen);
			break;
		case OPT_NO_REPLIES:
			p->no_replies = true;
			break;
		case OPT_MTU:
			if (parse_u64(optarg, GEN_MTU_MIN, GEN_MTU_MAX, &v) != 0) {
				seterr(err, errlen, "--mtu '%s': expected %u..%u", optarg,
					GEN_MTU_MIN, GEN_MTU_MAX);
				return -EINVAL;
			}
			p->mtu = (uint32_t)v;
			break;
		case OPT_FLOWS_FILE:
			o->flows_file = optarg;
			break;
		case OPT_BENCH:
			p->bench = true;
			break;
		case ':':
			seterr(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
			return -EINVAL;
		case '?':
		default:
			if (optopt != 0)
				seterr(err, errlen, "unknown option '-%c'", optopt);
			else
				seterr(err, errlen, "unknown option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
		if (ret != 0)
			return ret;
	}
	if (o->help)
		return 0;
	if (optind < argc) {
		seterr(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (o->output == NULL) {
		seterr(err, errlen, "missing -o/--output FILE");
		return -EINVAL;
	}
	if (p->bench) {
		if (size_given) {
			seterr(err, errlen,
				"--size cannot be used with --bench (frames are %u bytes)",
				GEN_BENCH_FRAME);
			return -EINVAL;
		}
		if (!mix_given) {
			memset(p->mix, 0, sizeof(p->mix));
			p->mix[GEN_KIND_UDP] = 100;
		}
	}
	return 0;
}
