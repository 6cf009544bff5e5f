/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/gen_corpus_parse.c — writes the seed corpus of the parser fuzz
 * target (tests/fuzz/corpus/parse/): one small frame per layout the parser
 * knows (VLAN, QinQ, IPv4 options, each IPv6 extension header, first and
 * later fragments of both families, each L4 protocol, ICMP echo and error,
 * unknown protocol, non-IP) plus a few malformed ones near the edges.
 *
 * A plain host program built from pkt_build.c; rerun it to regenerate:
 *
 *   cc -O1 -Itests/unit/flowcache -o /tmp/gen_corpus_parse \
 *       tests/fuzz/gen_corpus_parse.c tests/unit/flowcache/pkt_build.c
 *   /tmp/gen_corpus_parse tests/fuzz/corpus/parse
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt_build.h"

#define FRAME_MAX 2048

static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02};

static const char *out_dir;
static int failures;

static void
emit(const char *name, const uint8_t *f, int len)
{
	char path[512];
	FILE *fp;

	if (len < 0) {
		fprintf(stderr, "%s: build failed (%d)\n", name, len);
		failures++;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.bin", out_dir, name);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(f, 1, (size_t)len, fp) != (size_t)len || fclose(fp) != 0) {
		perror(path);
		failures++;
	}
}

static void
start(struct pb *b, uint8_t *f, unsigned int n_vlan)
{
	pb_init(b, f, FRAME_MAX);
	pb_eth(b, NULL, NULL);
	if (n_vlan == 2)
		pb_vlan(b, PB_TPID_8021AD, 10);
	if (n_vlan >= 1)
		pb_vlan(b, PB_TPID_8021Q, 20);
}

static void
ip4(struct pb *b, uint16_t frag_off, bool mf, const uint8_t *opts, uint8_t opts_len)
{
	struct pb_ipv4 ip = {
		.src = 0xc0000201,
		.dst = 0xc6336407,
		.id = 0x4d2,
		.frag_off = frag_off,
		.mf = mf,
		.opts = opts,
		.opts_len = opts_len,
	};

	pb_ipv4(b, &ip);
}

static void
ip6(struct pb *b)
{
	struct pb_ipv6 ip = {0};

	memcpy(ip.src, v6_src, 16);
	memcpy(ip.dst, v6_dst, 16);
	pb_ipv6(b, &ip);
}

int
main(int argc, char **argv)
{
	static const uint8_t opts[8] = {0x94, 4, 0, 0, 1, 1, 1, 0};
	static const uint8_t syn_opts[20] = {2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
		1, 3, 3, 7};
	static const uint8_t ts_opts[12] = {1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 1};
	static const uint8_t sack_opts[32] = {1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 2, 1, 1, 5, 18,
		0x30, 0, 0x10, 0, 0x30, 0, 0x20, 0, 0x30, 0, 0, 0, 0x30, 0, 0, 0x10};
	uint8_t f[FRAME_MAX], full[FRAME_MAX];
	struct pb b;
	int len;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_tcp(&b, 1234, 80, PB_TCP_SYN, 1, 0, 4);
	emit("v4_tcp", f, pb_finish(&b));

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_udp(&b, 53, 5353);
	pb_payload(&b, NULL, 4);
	pb_finish(&b);
	emit("v4_udp_padded", f, pb_pad(&b, 60));

	start(&b, f, 1);
	ip4(&b, 0, false, opts, sizeof(opts));
	pb_sctp(&b, 2905, 2905, 1);
	emit("vlan_v4_opts_sctp", f, pb_finish(&b));

	start(&b, f, 2);
	ip4(&b, 0, false, NULL, 0);
	pb_icmp(&b, 8, 0, 0x77, 1);
	pb_payload(&b, NULL, 8);
	emit("qinq_v4_icmp_echo", f, pb_finish(&b));

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_icmp(&b, 3, 3, 0, 0);
	pb_payload(&b, NULL, 28);
	emit("v4_icmp_unreach", f, pb_finish(&b));

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_l4_raw(&b, PB_PROTO_GRE, "\0\0\x08\0", 4);
	emit("v4_gre", f, pb_finish(&b));

	/* IPv4 fragments of one UDP datagram */
	start(&b, full, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_udp(&b, 4000, 5000);
	pb_payload(&b, NULL, 40);
	len = pb_finish(&b);
	emit("v4_frag_first", f, pb_ipv4_fragment(full, (uint32_t)len, 14, 0, 24, f, FRAME_MAX));
	emit("v4_frag_later", f, pb_ipv4_fragment(full, (uint32_t)len, 14, 24, 24, f, FRAME_MAX));

	start(&b, f, 0);
	ip6(&b);
	pb_tcp(&b, 40000, 443, PB_TCP_ACK, 5, 6, 0);
	emit("v6_tcp", f, pb_finish(&b));

	/* TCP options: a SYN's (MSS, SACK permitted, timestamps, window scale),
	 * the aligned timestamps of data segments, SACK blocks */
	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_tcp(&b, 1234, 80, PB_TCP_SYN, 0x10000000, 0, 20);
	pb_tcp_opts(&b, syn_opts, sizeof(syn_opts));
	emit("v4_tcp_syn_opts", f, pb_finish(&b));

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_tcp(&b, 80, 1234, PB_TCP_ACK | PB_TCP_PSH, 0x20000001, 0x10000001, 12);
	pb_tcp_opts(&b, ts_opts, sizeof(ts_opts));
	pb_payload(&b, NULL, 100);
	emit("v4_tcp_ts_data", f, pb_finish(&b));

	start(&b, f, 0);
	ip6(&b);
	pb_tcp(&b, 443, 40000, PB_TCP_ACK, 7, 0x30000000, 32);
	pb_tcp_opts(&b, sack_opts, sizeof(sack_opts));
	emit("v6_tcp_sack", f, pb_finish(&b));

	start(&b, f, 1);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_ROUTING, 24);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_udp(&b, 546, 547);
	emit("vlan_v6_ext_chain_udp", f, pb_finish(&b));

	start(&b, f, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_icmp6(&b, 128, 0, 0x55, 1);
	emit("v6_hbh_icmp6_echo", f, pb_finish(&b));

	start(&b, f, 2);
	ip6(&b);
	pb_icmp6(&b, 1, 4, 0, 0);
	pb_payload(&b, NULL, 48);
	emit("qinq_v6_icmp6_unreach", f, pb_finish(&b));

	start(&b, f, 0);
	ip6(&b);
	pb_ipv6_frag(&b, 0, false, 9);
	pb_sctp(&b, 1, 2, 3);
	emit("v6_atomic_frag_sctp", f, pb_finish(&b));

	/* IPv6 fragments of one TCP segment behind a routing header */
	start(&b, full, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_ROUTING, 8);
	pb_tcp(&b, 7000, 8000, PB_TCP_SYN, 0, 0, 0);
	pb_payload(&b, NULL, 44);
	len = pb_finish(&b);
	emit("v6_frag_first", f,
		pb_ipv6_fragment(full, (uint32_t)len, 14, 0, 32, 0x1234, f, FRAME_MAX));
	emit("v6_frag_later", f,
		pb_ipv6_fragment(full, (uint32_t)len, 14, 32, 32, 0x1234, f, FRAME_MAX));

	start(&b, f, 0);
	ip6(&b);
	pb_l4_raw(&b, PB_PROTO_NONE, NULL, 0);
	emit("v6_no_next_header", f, pb_finish(&b));

	start(&b, f, 1);
	pb_ethertype(&b, PB_ETH_ARP);
	pb_payload(&b, NULL, 28);
	emit("vlan_arp", f, pb_finish(&b));

	/* a few malformed frames near the edges */
	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_tcp(&b, 1, 2, 0, 0, 0, 0);
	len = pb_finish(&b);
	f[14 + 20 + 12] = 0xf0; /* data offset beyond the segment */
	emit("bad_tcp_doff", f, len);

	start(&b, f, 0);
	ip6(&b);
	pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 8);
	pb_ipv6_ext(&b, PB_PROTO_HOPOPTS, 8);
	pb_udp(&b, 1, 2);
	emit("bad_v6_hbh_order", f, pb_finish(&b));

	start(&b, f, 0);
	ip4(&b, 0, false, NULL, 0);
	pb_udp(&b, 1, 2);
	len = pb_finish(&b);
	f[14 + 20 + 5] = 9; /* UDP length 9 > 8 */
	emit("bad_udp_len", f, len);

	return failures != 0;
}
