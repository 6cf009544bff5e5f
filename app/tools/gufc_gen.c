/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gufc_gen.c — gufc-gen, the traffic generator: parse the command
 * line (gen_opts.c), plan and play the flows (gen_plan.c, gen_run.c), write every frame
 * to a pcap with libpcap, optionally the flow list as text, and a one
 * paragraph summary to stderr. Exit 0 done, 1 failure, 2 bad arguments.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "gen.h"

#define GEN_SNAPLEN 65535

static int
write_frame(const struct gen_pkt *pkt, const uint8_t *frame, uint32_t len, void *arg)
{
	pcap_dumper_t *d = arg;
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(pkt->ts_us / 1000000);
	h.ts.tv_usec = (suseconds_t)(pkt->ts_us % 1000000);
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)d, &h, frame);
	return 0;
}

static int
write_pcap(struct gen *g, const char *path)
{
	pcap_dumper_t *d = NULL;
	pcap_t *pd;
	int ret = -EIO;

	pd = pcap_open_dead(DLT_EN10MB, GEN_SNAPLEN);
	if (pd == NULL) {
		fprintf(stderr, "gufc-gen: pcap_open_dead failed\n");
		return -ENOMEM;
	}
	d = pcap_dump_open(pd, path);
	if (d == NULL) {
		fprintf(stderr, "gufc-gen: %s: %s\n", path, pcap_geterr(pd));
		goto out;
	}
	ret = gen_run(g, write_frame, d);
	if (ret != 0) {
		fprintf(stderr, "gufc-gen: building frames failed (%d)\n", ret);
		goto out;
	}
	if (pcap_dump_flush(d) != 0 || ferror(pcap_dump_file(d))) {
		fprintf(stderr, "gufc-gen: %s: write error\n", path);
		ret = -EIO;
	}
out:
	if (d != NULL)
		pcap_dump_close(d);
	pcap_close(pd);
	return ret;
}

static int
write_flows(const struct gen *g, const char *path)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (f == NULL) {
		fprintf(stderr, "gufc-gen: --flows-file %s: %s\n", path, strerror(errno));
		return -errno;
	}
	ret = gen_flows_dump(g, f);
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret != 0)
		fprintf(stderr, "gufc-gen: --flows-file %s: write error\n", path);
	return ret;
}

static void
summary(const struct gen *g, const struct gen_opts *o)
{
	const struct gen_params *p = &o->params;
	struct gen_stats s;
	double secs;

	gen_stats_get(g, &s);
	secs = s.frames > 0 ? (double)(s.last_us - s.first_us) / 1e6 : 0.0;
	fprintf(stderr,
		"gufc-gen: wrote %llu packets, %llu bytes to %s, spanning %.6f s: "
		"%u flows (%u tcp, %u udp, %u icmp; %u over IPv6, %u VLAN-tagged, %u QinQ; "
		"%u UDP flows fragmenting, %u TCP flows closed by RST), "
		"%llu data packets, %llu TCP handshake/close packets, %llu fragments; "
		"seed %llu, %s popularity",
		(unsigned long long)s.frames, (unsigned long long)s.bytes, o->output, secs,
		gen_flow_count(g), s.flows[GEN_KIND_TCP], s.flows[GEN_KIND_UDP],
		s.flows[GEN_KIND_ICMP], s.flows_v6, s.flows_vlan, s.flows_qinq, s.flows_frag,
		s.flows_rst, (unsigned long long)s.data, (unsigned long long)s.control,
		(unsigned long long)s.fragments, (unsigned long long)p->seed,
		p->zipf == 0.0 ? "uniform" : "Zipf");
	if (p->zipf != 0.0)
		fprintf(stderr, " (s=%g)", p->zipf);
	if (p->bench)
		fprintf(stderr, ", bench shape (%u-byte frames, rounds)", GEN_BENCH_FRAME);
	else if (p->no_replies)
		fprintf(stderr, ", no replies");
	fprintf(stderr, ".\n");
}

int
main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen *g;
	char err[256];
	int ret;

	if (gen_opts_parse(argc, argv, &o, err, sizeof(err)) != 0) {
		fprintf(stderr, "gufc-gen: %s\nTry '%s --help'.\n", err, argv[0]);
		return 2;
	}
	if (o.help) {
		gen_usage(stdout, argv[0]);
		return 0;
	}
	g = gen_create(&o.params, err, sizeof(err));
	if (g == NULL) {
		ret = errno;
		fprintf(stderr, "gufc-gen: %s\n", err);
		return ret == EINVAL || ret == ENOSPC ? 2 : 1;
	}
	ret = write_pcap(g, o.output);
	if (ret == 0 && o.flows_file != NULL)
		ret = write_flows(g, o.flows_file);
	if (ret == 0)
		summary(g, &o);
	gen_free(g);
	return ret == 0 ? 0 : 1;
}
