/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_parse.c — libFuzzer target for the packet parser.
 *
 * Each input is one Ethernet frame. fc_parse() must never read outside it
 * (ASan), and its answer must be self-consistent: offsets inside the frame
 * and the IP datagram, the key normalized, a non-first fragment without
 * ports. The same frame, split into a two-segment mbuf built by hand (no
 * EAL), must give the same answer through fc_parse_mbuf(), except that
 * headers beyond FC_PARSE_MAX_HDR may be refused. The key, with an input
 * port, reads back from its text form. The replies lib/reply writes about
 * it (an ICMP error and a TCP reset, when allowed) fit their bound and parse
 * back as the reply they are; the neighbour module's ARP/ND parser reads the
 * same bytes. Violations abort().
 */

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
		return 8;
	case 132:
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
		if (fam == FC_AF_INET4 ? (type == 0 || type == 8) : (type == 128 || type == 129))
			CHECK(sport == rd16(data + p->l4_off + 4) && dport == sport);
		else
			CHECK(sport == rd16(data + p->l4_off) && dport == 0);
	} else {
		CHECK(p->l4_off < len);
		CHECK(sport == rd16(data + p->l4_off));
		CHECK(dport == rd16(data + p->l4_off + 2));
	}
	if (need == 0 || (proto != 1 && proto != 58))
		CHECK(p->icmp_type == 0 && p->icmp_code == 0);
	if (proto == 6)
		CHECK(p->tcp_flags == data[p->l4_off + 13]);
	else
		CHECK(p->tcp_flags == 0);
}

/*
 * The key's text form reads back as the same key, with an input port as the
 * datapath would set it (from the frame, so every value gets tried).
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
