/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gufc_consume.c — gufc-consume, an example consumer of gufc's net
 * channels: a DPDK secondary process that attaches to an APP channel of a
 * running gufc by name (chan_attach), or a per-flow channel by its flow id
 * (chan_attach_id), receives bursts (chan_recv_burst),
 * writes every packet to a pcap file with libpcap and frees it, until
 * SIGINT/SIGTERM, a packet count or an idle timeout; then it detaches
 * (chan_detach) and prints its counts.
 *
 *   gufc-consume [EAL options] -- --channel NAME|--flow ID -o FILE [options]
 *
 * The EAL options must name the primary's --file-prefix and
 * --proc-type=secondary. Our own options are parsed before EAL starts, so
 * --help and bad arguments need no hugepages. Exit status: 0 done, 1
 * failure (EAL, attach, output file), 2 bad arguments.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pcap/pcap.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "channel.h"

#define CONS_BURST 32
#define CONS_SNAPLEN_DEFAULT 65535u

struct cons_opts {
	const char *channel;
	uint32_t flow;         /**< --flow: attach by id (CHAN_ID_NONE: by --channel) */
	const char *output;
	uint64_t count;        /**< stop after this many packets; 0 = no limit */
	uint32_t idle_ms;      /**< stop after this long without a packet; 0 = never */
	uint32_t attach_ms;    /**< keep trying to attach this long */
	uint32_t snaplen;
	bool quiet;
};

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	quit = 1;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL options] -- --channel NAME|--flow ID -o FILE [options]\n"
		"Attach to an 'app' channel of a running gufc (a DPDK secondary process:\n"
		"give EAL the primary's --file-prefix and --proc-type=secondary), write\n"
		"every packet it receives to a pcap file, then detach and print counts.\n"
		"\n"
		"  -c, --channel NAME     channel to attach to (config: channel NAME kind app)\n"
		"      --flow ID          a per-flow channel, by its flow id (show flow, show\n"
		"                         channels: the channel's id)\n"
		"  -o, --output FILE      pcap file to write (truncated)\n"
		"  -n, --count N          stop after N packets (default 0: no limit)\n"
		"      --idle-timeout MS  stop once no packet came for MS ms (default 0: never)\n"
		"      --attach-wait MS   retry attaching for up to MS ms while the channel\n"
		"                         does not exist yet or is busy (default 0: once)\n"
		"      --snaplen N        bytes kept per packet, 64..262144 (default 65535)\n"
		"  -q, --quiet            no summary line\n"
		"  -h, --help             this text\n"
		"\n"
		"Stops on SIGINT/SIGTERM, after --count packets or after --idle-timeout.\n"
		"Exit status: 0 done, 1 failure (EAL, attach, output), 2 bad arguments.\n",
		prog);
}

static int
parse_u64(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (v == NULL || *v == '\0' || *v == '-' || *v == '+') {
		fprintf(stderr, "gufc-consume: %s: expected a number, got '%s'\n", opt,
			v != NULL ? v : "");
		return -EINVAL;
	}
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || x > max) {
		fprintf(stderr, "gufc-consume: %s: bad number '%s' (0..%" PRIu64 ")\n", opt, v,
			max);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

enum { OPT_IDLE = 256, OPT_ATTACH_WAIT, OPT_SNAPLEN, OPT_FLOW };

static const struct option long_opts[] = {
	{ "channel", required_argument, NULL, 'c' },
	{ "flow", required_argument, NULL, OPT_FLOW },
	{ "output", required_argument, NULL, 'o' },
	{ "count", required_argument, NULL, 'n' },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "attach-wait", required_argument, NULL, OPT_ATTACH_WAIT },
	{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* @return 0 to run, 1 after --help, -EINVAL (message printed). */
static int
parse_args(struct cons_opts *o, int argc, char **argv, const char *prog)
{
	uint64_t v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->snaplen = CONS_SNAPLEN_DEFAULT;
	o->flow = CHAN_ID_NONE;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:o:n:qh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout, prog);
			return 1;
		case 'c':
			if (*optarg == '\0' || strlen(optarg) >= CHAN_NAMESIZE) {
				fprintf(stderr, "gufc-consume: --channel: bad name '%s'\n", optarg);
				return -EINVAL;
			}
			o->channel = optarg;
			break;
		case 'o':
			if (*optarg == '\0') {
				fprintf(stderr, "gufc-consume: --output: empty file name\n");
				return -EINVAL;
			}
			o->output = optarg;
			break;
		case 'n':
			if (parse_u64("--count", optarg, UINT64_MAX, &o->count) != 0)
				return -EINVAL;
			break;
		case OPT_FLOW:
			if (parse_u64("--flow", optarg, UINT32_MAX - 1, &v) != 0)
				return -EINVAL;
			o->flow = (uint32_t)v;
			break;
		case OPT_IDLE:
			if (parse_u64("--idle-timeout", optarg, UINT32_MAX, &v) != 0)
				return -EINVAL;
			o->idle_ms = (uint32_t)v;
			break;
		case OPT_ATTACH_WAIT:
			if (parse_u64("--attach-wait", optarg, UINT32_MAX, &v) != 0)
				return -EINVAL;
			o->attach_ms = (uint32_t)v;
			break;
		case OPT_SNAPLEN:
			if (parse_u64("--snaplen", optarg, 262144, &v) != 0)
				return -EINVAL;
			if (v < 64) {
				fprintf(stderr, "gufc-consume: --snaplen: bad number '%s' (64..262144)\n",
					optarg);
				return -EINVAL;
			}
			o->snaplen = (uint32_t)v;
			break;
		case 'q':
			o->quiet = true;
			break;
		case ':':
			fprintf(stderr, "gufc-consume: option '%s' needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "gufc-consume: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gufc-consume: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return -EINVAL;
	}
	if ((o->channel == NULL) == (o->flow == CHAN_ID_NONE)) {
		fprintf(stderr, "gufc-consume: one of --channel and --flow is required (see --help)\n");
		return -EINVAL;
	}
	if (o->output == NULL) {
		fprintf(stderr, "gufc-consume: --output is required (see --help)\n");
		return -EINVAL;
	}
	return 0;
}

static struct chan_consumer *
attach(const struct cons_opts *o)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t until = rte_get_tsc_cycles() + hz / 1000 * o->attach_ms;
	struct chan_consumer *c;

	for (;;) {
		c = o->channel != NULL ? chan_attach(o->channel) : chan_attach_id(o->flow);
		if (c != NULL || quit)
			return c;
		if ((rte_errno != ENOENT && rte_errno != EBUSY) || rte_get_tsc_cycles() >= until)
			return NULL;
		rte_delay_us_sleep(10000);
	}
}

/* Write one packet (all segments, up to the snap length) and free it. */
static void
dump_one(pcap_dumper_t *d, struct rte_mbuf *m, uint32_t snaplen, uint8_t *buf)
{
	struct pcap_pkthdr h;
	struct timeval tv;
	uint32_t cap = RTE_MIN(rte_pktmbuf_pkt_len(m), snaplen);
	const uint8_t *data = rte_pktmbuf_read(m, 0, cap, buf);

	gettimeofday(&tv, NULL);
	memset(&h, 0, sizeof(h));
	h.ts = tv;
	h.caplen = data != NULL ? cap : 0;
	h.len = rte_pktmbuf_pkt_len(m);
	pcap_dump((u_char *)d, &h, data != NULL ? data : buf);
}

int
main(int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "gufc-consume";
	struct rte_mbuf *m[CONS_BURST];
	struct cons_opts o;
	struct chan_consumer *c = NULL;
	char cname[CHAN_NAMESIZE] = "";
	pcap_dumper_t *d = NULL;
	pcap_t *pd = NULL;
	uint8_t *buf = NULL;
	uint64_t pkts = 0, bytes = 0, hz, last;
	const char *why = "signal";
	int sep = argc, eal_argc, rc, ret = 1;

	/* Our options follow "--"; without one every argument is ours. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (sep == argc) {
		rc = parse_args(&o, argc, argv, prog);
		if (rc == 0) {
			fprintf(stderr, "gufc-consume: EAL options and '--' are needed "
					"(--file-prefix, --proc-type=secondary; see --help)\n");
			rc = -EINVAL;
		}
	} else {
		char *saved = argv[sep];

		argv[sep] = argv[0];
		rc = parse_args(&o, argc - sep, argv + sep, prog);
		argv[sep] = saved;
	}
	if (rc != 0)
		return rc > 0 ? 0 : 2;

	eal_argc = sep;
	rc = rte_eal_init(eal_argc, argv);
	if (rc < 0) {
		fprintf(stderr, "gufc-consume: EAL initialization failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY)
		fprintf(stderr, "gufc-consume: warning: not a secondary process "
				"(--proc-type=secondary): no gufc to attach to\n");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	buf = malloc(o.snaplen);
	pd = pcap_open_dead(DLT_EN10MB, (int)o.snaplen);
	if (buf == NULL || pd == NULL) {
		fprintf(stderr, "gufc-consume: out of memory\n");
		goto out;
	}
	d = pcap_dump_open(pd, o.output);
	if (d == NULL) {
		fprintf(stderr, "gufc-consume: --output: %s\n", pcap_geterr(pd));
		goto out;
	}
	c = attach(&o);
	if (c == NULL) {
		if (o.channel != NULL)
			fprintf(stderr, "gufc-consume: --channel '%s': cannot attach: %s\n",
				o.channel, quit ? "interrupted" : rte_strerror(rte_errno));
		else
			fprintf(stderr, "gufc-consume: --flow %" PRIu32 ": cannot attach: %s\n",
				o.flow, quit ? "interrupted" : rte_strerror(rte_errno));
		goto out;
	}
	snprintf(cname, sizeof(cname), "%s", chan_consumer_name(c));
	if (!o.quiet)
		fprintf(stderr, "gufc-consume: attached to channel '%s'\n", cname);

	hz = rte_get_tsc_hz();
	last = rte_get_tsc_cycles();
	while (!quit) {
		unsigned int want = CONS_BURST, n;

		if (o.count != 0 && o.count - pkts < want)
			want = (unsigned int)(o.count - pkts);
		n = chan_recv_burst(c, m, want);
		if (n == 0) {
			if (o.idle_ms != 0 && rte_get_tsc_cycles() - last > hz / 1000 * o.idle_ms) {
				why = "idle";
				break;
			}
			rte_delay_us_sleep(100);
			continue;
		}
		last = rte_get_tsc_cycles();
		for (unsigned int i = 0; i < n; i++) {
			bytes += rte_pktmbuf_pkt_len(m[i]);
			dump_one(d, m[i], o.snaplen, buf);
			rte_pktmbuf_free(m[i]);
		}
		pkts += n;
		if (o.count != 0 && pkts >= o.count) {
			why = "count";
			break;
		}
	}
	chan_detach(c);
	if (pcap_dump_flush(d) != 0 || ferror(pcap_dump_file(d))) {
		fprintf(stderr, "gufc-consume: --output %s: write error\n", o.output);
		goto out;
	}
	ret = 0;
	if (!o.quiet)
		printf("gufc-consume: channel %s: received %" PRIu64 " packets (%" PRIu64
		       " bytes), wrote %" PRIu64 " to %s; stopped: %s\n",
			cname, pkts, bytes, pkts, o.output, why);
out:
	if (d != NULL)
		pcap_dump_close(d);
	if (pd != NULL)
		pcap_close(pd);
	free(buf);
	rte_eal_cleanup();
	return ret;
}
