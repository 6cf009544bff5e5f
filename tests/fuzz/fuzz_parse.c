/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_parse.c — libFuzzer target for the packet parser.
 *
 * Each input is one Ethernet frame. fc_parse() must never read outside it
 * (ASan), and its answer must be self-consistent: offsets inside the frame
 * and the IP datagram, the key normalized, a non-first fragment without
 * ports. The same frame, split into a two-segment mbuf built by hand (no
 * EAL), must give the same answer through fc_parse_mbuf(), except that
 * headers beyond FC_PARSE_MAX_HDR may be refused. The TCP fields are
 * checked against the header's bytes, the SYN options and the SACK edge
 * against walks of this file's own. The key, with an input port, reads
 * back from its text form. The replies lib/reply writes about it (an ICMP
 * error and a TCP reset, when allowed) fit their bound and parse back as
 * the reply they are; the neighbour module's ARP/ND parser reads the same
 * bytes. Violations abort().
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "flowcache.h"
#include "neigh.h"
#include "reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
rd32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * A second option walk, written apart from the parser's: each option is
 * (kind, length, body) unless NOP; EOL, a length below 2 or past @p n end
 * it. Calls @p fn for each complete option; stops when it returns true.
 */
static void
walk_opts(const uint8_t *o, uint32_t n, bool (*fn)(const uint8_t *opt, void *arg), void *arg)
{
	uint32_t i = 0;

	while (i < n && o[i] != 0) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || o[i + 1] > n - i)
			return;
		if (fn(o + i, arg))
			return;
		i += o[i + 1];
	}
}

struct syn_opts {
	uint8_t opt;
	uint8_t wscale;
};

static bool
syn_opt(const uint8_t *opt, void *arg)
{
	struct syn_opts *s = arg;

	if (opt[0] == 4 && opt[1] == 2)
		s->opt |= FC_TCP_OPT_SACK_PERM;
	if (opt[0] == 3 && opt[1] == 3) {
		s->opt |= FC_TCP_OPT_WSCALE;
		s->wscale = opt[2] > FC_TCP_MAX_WSCALE ? FC_TCP_MAX_WSCALE : opt[2];
	}
	return false;
}

struct sack_walk {
	uint32_t edge;
	bool found;
};

static bool
sack_opt(const uint8_t *opt, void *arg)
{
	struct sack_walk *s = arg;
	uint32_t j, e;

	if (opt[0] != 5 || opt[1] < 10 || (opt[1] - 2) % 8 != 0)
		return false;
	for (j = 2; j < opt[1]; j += 8) {
		e = rd32be(opt + j + 4);
		if ((int32_t)(e - s->edge) > 0)
			s->edge = e;
	}
	s->found = true;
	return true;
}

/* The TCP fields of segment @p p (header at l4_off, datagram ending at @p end). */
static void
check_tcp(const uint8_t *data, uint32_t len, uint32_t end, const struct fc_pkt *p)
{
	const uint8_t *t = data + p->l4_off, *o = t + 20;
	struct syn_opts so = {0, 0};
	struct sack_walk sw;
	uint32_t hlen = (uint32_t)(t[12] >> 4) * 4, n = hlen - 20, edge;
	bool plain;

	CHECK(p->tcp_flags == t[13]);
	CHECK(p->tcp_seq == rd32be(t + 4));
	CHECK(p->tcp_ack == rd32be(t + 8));
	CHECK(p->tcp_win == ((uint32_t)t[14] << 8 | t[15]));
	CHECK(hlen >= 20 && p->tcp_hlen == hlen);
	CHECK((uint32_t)p->l4_off + hlen <= end);
	CHECK(p->tcp_dlen == end - p->l4_off - hlen);
	plain = n == 0 || (n == 12 && rd32be(o) == 0x0101080a);
	CHECK(((p->tcp_opt & FC_TCP_OPT_PLAIN) != 0) == plain);
	if (t[13] & 0x02)
		walk_opts(o, n, syn_opt, &so);
	CHECK((p->tcp_opt & ~FC_TCP_OPT_PLAIN) == so.opt);
	CHECK(p->tcp_wscale == so.wscale);

	/* The SACK edge: on an exactly sized heap copy, so ASan sees any overread. */
	sw.edge = edge = p->tcp_ack;
	sw.found = false;
	if (!(n == 12 && rd32be(o) == 0x0101080a))
		walk_opts(o, n, sack_opt, &sw);
	{
		uint8_t *copy = malloc(len ? len : 1);

		if (copy == NULL)
			abort();
		memcpy(copy, data, len);
		CHECK(fc_tcp_sack_edge(copy, len, p, &edge) == sw.found);
		CHECK(edge == sw.edge);
		/* Cut inside the header: never found, never read. */
		edge = p->tcp_ack;
		CHECK(!fc_tcp_sack_edge(copy, p->l4_off + hlen - 1, p, &edge) && edge == p->tcp_ack);
		free(copy);
	}
}

static void
check_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(b[i] == 0);
}

/* Bytes the parser must have seen in full for protocol @p proto, or 0. */
static uint32_t
l4_min(uint8_t family, uint8_t proto)
{
	switch (proto) {
	case 6:
		return 20;
	case 17:
	case 136: /* UDP-Lite: ports as UDP */
		return 8;
	case 132:
	case 33: /* DCCP: the generic header */
		return 12;
	case 1:
		return family == FC_AF_INET4 ? 8 : 0;
	case 58:
		return family == FC_AF_INET6 ? 8 : 0;
	default:
		return 0;
	}
}

static void
check_pkt(const uint8_t *data, uint32_t len, enum fc_parse_result r, const struct fc_pkt *p)
{
	uint16_t sport, dport;
	uint32_t end, need;
	uint8_t proto, fam, type;

	CHECK(r < FC_PARSE__COUNT);
	CHECK(p->n_vlan <= FC_PARSE_MAX_VLAN);
	if (r >= FC_PARSE_ERR_BASE)
		return;
	if (r == FC_PARSE_NOT_IP) {
		CHECK(p->key.family == FC_AF_NONE);
		check_zero(&p->key, sizeof(p->key));
		return;
	}

	fam = p->key.family;
	CHECK(fam == FC_AF_INET4 || fam == FC_AF_INET6);
	CHECK(p->l3_off == 14 + 4 * p->n_vlan);
	end = (uint32_t)p->l3_off + p->ip_len;
	CHECK(end <= len);
	if (fam == FC_AF_INET4) {
		CHECK(p->ip_len >= 20);
		CHECK(p->key.v4.flags == 0);
		CHECK(p->key.v4.in_port == 0);
		check_zero((const uint8_t *)&p->key + sizeof(struct fc_key_v4),
			sizeof(struct fc_key_v6) - sizeof(struct fc_key_v4));
		CHECK(memcmp(&p->key.v4.src, data + p->l3_off + 12, 8) == 0);
		proto = p->key.v4.proto;
		sport = p->key.v4.sport;
		dport = p->key.v4.dport;
	} else {
		CHECK(p->ip_len >= 40);
		CHECK(p->key.v6.flags == 0);
		CHECK(p->key.v6.in_port == 0);
		check_zero(p->key.v6.pad, sizeof(p->key.v6.pad));
		CHECK(memcmp(p->key.v6.src, data + p->l3_off + 8, 32) == 0);
		proto = p->key.v6.proto;
		sport = p->key.v6.sport;
		dport = p->key.v6.dport;
	}

	if (r == FC_PARSE_FRAG_LATER) {
		CHECK(p->frag == FC_FRAG_LATER);
		CHECK(p->frag_off > 0 && p->frag_off % 8 == 0);
		CHECK(p->l4_off == 0);
		CHECK(sport == 0 && dport == 0);
		CHECK(p->tcp_flags == 0 && p->icmp_type == 0 && p->icmp_code == 0);
		CHECK(p->tcp_seq == 0 && p->tcp_ack == 0 && p->tcp_win == 0 && p->tcp_dlen == 0);
		CHECK(p->tcp_hlen == 0 && p->tcp_opt == 0 && p->tcp_wscale == 0);
		return;
	}

	CHECK(p->frag == (r == FC_PARSE_FRAG_FIRST ? FC_FRAG_FIRST : FC_FRAG_NONE));
	CHECK(p->frag_off == 0);
	if (r == FC_PARSE_OK)
		CHECK(p->frag_id == 0);
	CHECK(p->l4_off >= p->l3_off + (fam == FC_AF_INET4 ? 20 : 40));
	CHECK(p->l4_off <= end);
	need = l4_min(fam, proto);
	CHECK(p->l4_off + need <= end);
	if (need == 0) {
		CHECK(sport == 0 && dport == 0);
	} else if (proto == 1 || proto == 58) {
		type = data[p->l4_off];
		CHECK(p->icmp_type == type);
		CHECK(p->icmp_code == data[p->l4_off + 1]);
		/* Linux's ICMP tuple: type and code in dport; echo, ICMPv4
		 * timestamp, information, address mask, ICMPv6 node
		 * information: the identifier (its place) in sport */
		CHECK(dport == rd16(data + p->l4_off));
		if (fam == FC_AF_INET4 ? (type == 0 || type == 8 || (type >= 13 && type <= 18)) :
					 (type == 128 || type == 129 || type == 139 || type == 140))
			CHECK(sport == rd16(data + p->l4_off + 4));
		else
			CHECK(sport == 0);
	} else {
		CHECK(p->l4_off < len);
		CHECK(sport == rd16(data + p->l4_off));
		CHECK(dport == rd16(data + p->l4_off + 2));
	}
	if (need == 0 || (proto != 1 && proto != 58))
		CHECK(p->icmp_type == 0 && p->icmp_code == 0);
	if (proto == 6) {
		check_tcp(data, len, end, p);
	} else {
		CHECK(p->tcp_flags == 0 && p->tcp_seq == 0 && p->tcp_ack == 0 && p->tcp_win == 0);
		CHECK(p->tcp_dlen == 0 && p->tcp_hlen == 0 && p->tcp_opt == 0 && p->tcp_wscale == 0);
	}
}

/*
 * The key's text form reads back as the same key, with an input port and
 * local bits (forged included) as the datapath would set them (from the
 * frame, so every value gets tried).
 */
static void
check_text(const uint8_t *data, uint32_t len, enum fc_parse_result r, const struct fc_pkt *p)
{
	char buf[FC_KEY_STRLEN];
	struct fc_key k = p->key, back;
	int n;

	if (r != FC_PARSE_OK && r != FC_PARSE_FRAG_FIRST && r != FC_PARSE_FRAG_LATER)
		return;
	fc_key_set_in_port(&k, len >= 2 ? rd16(data) : 0);
	fc_key_set_flags(
		&k, len >= 3 ? (uint8_t)(data[2] & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL |
							   FC_KEY_F_SRC_FORGED))
			     : 0);
	n = fc_key_format(&k, buf, sizeof(buf));
	CHECK(n > 0 && n < FC_KEY_STRLEN);
	CHECK(fc_key_parse(buf, &back, NULL) == 0);
	CHECK(back.family == k.family);
	CHECK(memcmp(fc_key_raw(&back), fc_key_raw(&k),
		      k.family == FC_AF_INET4 ? sizeof(k.v4) : sizeof(k.v6)) == 0);
}

/* The frame as a two-segment mbuf split at @p cut, each part on the heap. */
static void
check_mbuf(const uint8_t *data, uint32_t len, uint32_t cut, enum fc_parse_result want,
	const struct fc_pkt *pw)
{
	struct rte_mbuf m[2];
	uint8_t *seg[2];
	struct fc_pkt p;
	enum fc_parse_result r;

	if (len > UINT16_MAX)
		return; /* data_len is 16 bits */
	memset(m, 0, sizeof(m));
	seg[0] = malloc(cut + 1);
	seg[1] = malloc(len - cut + 1);
	if (seg[0] == NULL || seg[1] == NULL)
		abort();
	memcpy(seg[0], data, cut);
	memcpy(seg[1], data + cut, len - cut);
	m[0].buf_addr = seg[0];
	m[0].data_len = (uint16_t)cut;
	m[0].pkt_len = len;
	m[0].nb_segs = 2;
	m[0].next = &m[1];
	m[1].buf_addr = seg[1];
	m[1].data_len = (uint16_t)(len - cut);
	m[1].pkt_len = len - cut;
	m[1].nb_segs = 1;

	memset(&p, 0xee, sizeof(p));
	r = fc_parse_mbuf(&m[0], &p);
	free(seg[0]);
	free(seg[1]);
	if (r == FC_PARSE_ERR_HDR_TOO_LONG && want != r) {
		CHECK(len > FC_PARSE_MAX_HDR);
		return;
	}
	CHECK(r == want);
	if (r < FC_PARSE_ERR_BASE)
		CHECK(memcmp(&p, pw, sizeof(p)) == 0);
}

/* The replies about a parsed frame: within REPLY_FRAME_MAX, parsing back as what they are. */
static void
check_replies(const uint8_t *data, uint32_t len, enum fc_parse_result r, const struct fc_pkt *p)
{
	static uint8_t out[REPLY_FRAME_MAX];
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t src4[4] = { 192, 0, 2, 1 };

	if (r != FC_PARSE_OK && r != FC_PARSE_FRAG_FIRST && r != FC_PARSE_FRAG_LATER)
		return;
	for (unsigned int kind = REPLY_ICMP; kind <= REPLY_TCP_RST; kind++) {
		struct reply_spec s = { .kind = (uint8_t)kind, .type = 3, .code = 3,
			.src = p->key.family == FC_AF_INET4 ? src4 : src6 };
		bool ok = reply_allowed(data, len, p, kind);
		int n = reply_build(out, sizeof(out), data, len, p, &s);
		struct fc_pkt q;

		CHECK(ok == (n > 0));
		if (n <= 0)
			continue;
		CHECK((uint32_t)n <= sizeof(out));
		CHECK(fc_parse(out, (uint32_t)n, &q) == FC_PARSE_OK);
		CHECK(q.key.family == p->key.family);
		CHECK(q.l3_off == p->l3_off);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mod_neigh_msg nm;

	struct fc_pkt p;
	enum fc_parse_result r;
	uint32_t len, cut;

	if (size > UINT32_MAX)
		return 0;
	len = (uint32_t)size;
	memset(&p, 0xa5, sizeof(p));
	r = fc_parse(data, len, &p);
	check_pkt(data, len, r, &p);
	check_text(data, len, r, &p);
	check_replies(data, len, r, &p);
	(void)mod_neigh_parse(data, len, &nm);

	/* the split point comes from the frame itself: last byte, scaled */
	cut = len == 0 ? 0 : (uint32_t)(((uint64_t)data[len - 1] * (len + 1)) >> 8);
	check_mbuf(data, len, cut, r, &p);
	/* whole in one segment: the RX path's common case (and its fast path) */
	check_mbuf(data, len, len, r, &p);
	return 0;
}
