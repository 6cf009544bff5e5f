/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/flowcache/test_parse_tcp.c — what the parser gives connection
 * tracking about a TCP segment (struct fc_pkt's tcp_* fields) and the SACK
 * edge walk (fc_tcp_sack_edge()).
 *
 * Segments are built with pkt_build (both families, with and without
 * payload, padding and IPv6 extension headers) and parsed through
 * fc_parse() and through an mbuf (the RX path's IPv4 shortcut), which must
 * agree byte for byte. Option layouts: none, aligned timestamps (the
 * fast path's "plain" case), a SYN's MSS/SACK-permitted/timestamps/window
 * scale in any order, oversized shifts, malformed and truncated lists. The
 * SACK walk runs on exactly sized heap copies so that ASan sees any read
 * past the end.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "flowcache.h"
#include "pkt_build.h"

#define FRAME_MAX 2048

static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02};

/* One segment to build: family, flags, numbers, options, payload, padding. */
struct seg {
	int family;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win;
	const uint8_t *opts;
	uint8_t opts_len; /* bytes given; the header's option space is this rounded up to 4 */
	uint32_t payload;
	uint32_t pad_to; /* Ethernet padding up to this length (0: none) */
	bool v6_ext;     /* a destination-options header before TCP */
};

static uint32_t
build(const struct seg *s, uint8_t *f)
{
	struct pb b;
	int n;

	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	if (s->family == 4) {
		struct pb_ipv4 ip = {.src = 0xc0000201, .dst = 0xc6336407};

		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip = {0};

		memcpy(ip.src, v6_src, 16);
		memcpy(ip.dst, v6_dst, 16);
		pb_ipv6(&b, &ip);
		if (s->v6_ext)
			pb_ipv6_ext(&b, PB_PROTO_DSTOPTS, 16);
	}
	pb_tcp(&b, 40000, 443, s->flags, s->seq, s->ack, (uint8_t)((s->opts_len + 3u) & ~3u));
	if (s->opts != NULL)
		pb_tcp_opts(&b, s->opts, s->opts_len);
	pb_tcp_win(&b, s->win);
	if (s->payload != 0)
		pb_payload(&b, NULL, s->payload);
	n = pb_finish(&b);
	assert_true(n > 0);
	if (s->pad_to != 0)
		n = pb_pad(&b, s->pad_to);
	assert_true(n > 0);
	return (uint32_t)n;
}

/* fc_parse() on an exactly sized copy, and the same frame as a one-segment mbuf. */
static enum fc_parse_result
parse_both(const uint8_t *f, uint32_t len, struct fc_pkt *p)
{
	uint8_t *copy = malloc(len);
	struct rte_mbuf m;
	struct fc_pkt q;
	enum fc_parse_result r, rm;

	assert_non_null(copy);
	memcpy(copy, f, len);
	memset(p, 0xa5, sizeof(*p));
	r = fc_parse(copy, len, p);
	memset(&m, 0, sizeof(m));
	m.buf_addr = copy;
	m.data_len = (uint16_t)len;
	m.pkt_len = len;
	m.nb_segs = 1;
	memset(&q, 0x5a, sizeof(q));
	rm = fc_parse_mbuf(&m, &q);
	free(copy);
	assert_int_equal(rm, r);
	if (r < FC_PARSE_ERR_BASE)
		assert_memory_equal(&q, p, sizeof(q));
	return r;
}

static void
test_fields(void **state)
{
	static const uint8_t ts[12] = {1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct {
		struct seg s;
		uint8_t hlen;
		uint16_t dlen;
		uint8_t opt;
	} cases[] = {
		{{4, PB_TCP_ACK, 0x11223344, 0xaabbccdd, 5000, NULL, 0, 0, 0, false}, 20, 0,
			FC_TCP_OPT_PLAIN},
		/* Ethernet padding is not payload */
		{{4, PB_TCP_ACK, 1, 2, 0, NULL, 0, 0, 60, false}, 20, 0, FC_TCP_OPT_PLAIN},
		{{4, PB_TCP_ACK | PB_TCP_PSH, 0xfffffff0, 7, 65535, ts, 12, 1000, 0, false}, 32, 1000,
			FC_TCP_OPT_PLAIN},
		/* options other than the aligned timestamps are not plain */
		{{4, PB_TCP_ACK, 1, 2, 3, NULL, 4, 3, 0, false}, 24, 3, 0},
		{{4, PB_TCP_ACK, 1, 2, 3, ts, 8, 0, 0, false}, 28, 0, 0},
		{{6, PB_TCP_FIN | PB_TCP_ACK, 99, 100, 1, NULL, 0, 17, 0, false}, 20, 17,
			FC_TCP_OPT_PLAIN},
		{{6, PB_TCP_ACK, 5, 6, 7, ts, 12, 40, 0, true}, 32, 40, FC_TCP_OPT_PLAIN},
	};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		uint32_t len = build(&cases[i].s, f);

		assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
		assert_int_equal(p.tcp_flags, cases[i].s.flags);
		assert_int_equal(p.tcp_seq, cases[i].s.seq);
		assert_int_equal(p.tcp_ack, cases[i].s.ack);
		assert_int_equal(p.tcp_win, cases[i].s.win);
		assert_int_equal(p.tcp_hlen, cases[i].hlen);
		assert_int_equal(p.tcp_dlen, cases[i].dlen);
		assert_int_equal(p.tcp_opt, cases[i].opt);
		assert_int_equal(p.tcp_wscale, 0);
	}
}

static void
test_not_tcp(void **state)
{
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	struct pb b;
	int n;

	(void)state;
	pb_init(&b, f, sizeof(f));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &(struct pb_ipv4){.src = 1, .dst = 2});
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 30);
	n = pb_finish(&b);
	assert_int_equal(parse_both(f, (uint32_t)n, &p), FC_PARSE_OK);
	assert_int_equal(p.tcp_seq | p.tcp_ack | p.tcp_win | p.tcp_dlen, 0);
	assert_int_equal(p.tcp_hlen | p.tcp_opt | p.tcp_wscale | p.tcp_flags, 0);
}

static void
test_syn_options(void **state)
{
	/* MSS, SACK permitted, timestamps, NOP, window scale 7 (Linux's SYN). */
	static const uint8_t linux_syn[20] = {2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
		1, 3, 3, 7};
	/* Window scale first, then SACK permitted, no timestamps. */
	static const uint8_t ws_first[8] = {3, 3, 2, 1, 1, 4, 2, 0};
	/* A shift above 14 is read as 14 (RFC 7323). */
	static const uint8_t ws_big[4] = {1, 3, 3, 30};
	/* Two window-scale options: the last one counts. */
	static const uint8_t ws_twice[8] = {1, 3, 3, 2, 1, 3, 3, 9};
	/* End of list before the window scale: not seen. */
	static const uint8_t eol[8] = {4, 2, 0, 3, 3, 5, 1, 1};
	/* Malformed lengths stop the walk. */
	static const uint8_t len1[8] = {4, 2, 8, 1, 3, 3, 5, 1};
	static const uint8_t too_long[8] = {4, 2, 3, 30, 3, 3, 5, 1};
	/* Wrong sizes of the two options: ignored, the walk goes on. */
	static const uint8_t wrong_size[12] = {3, 4, 9, 0, 4, 3, 0, 1, 3, 3, 4, 0};
	/* Truncated: the last option's length byte is missing. */
	static const uint8_t truncated[4] = {1, 1, 1, 3};
	struct {
		const uint8_t *o;
		uint8_t n;
		uint8_t flags;
		uint8_t opt;
		uint8_t wscale;
	} cases[] = {
		{linux_syn, 20, PB_TCP_SYN, FC_TCP_OPT_SACK_PERM | FC_TCP_OPT_WSCALE, 7},
		{linux_syn, 20, PB_TCP_SYN | PB_TCP_ACK, FC_TCP_OPT_SACK_PERM | FC_TCP_OPT_WSCALE, 7},
		{linux_syn, 20, PB_TCP_ACK, 0, 0}, /* not a SYN: options not walked */
		{ws_first, 8, PB_TCP_SYN, FC_TCP_OPT_SACK_PERM | FC_TCP_OPT_WSCALE, 2},
		{ws_big, 4, PB_TCP_SYN, FC_TCP_OPT_WSCALE, FC_TCP_MAX_WSCALE},
		{ws_twice, 8, PB_TCP_SYN, FC_TCP_OPT_WSCALE, 9},
		{eol, 8, PB_TCP_SYN, FC_TCP_OPT_SACK_PERM, 0},
		{len1, 8, PB_TCP_SYN, FC_TCP_OPT_SACK_PERM, 0},
		{too_long, 8, PB_TCP_SYN, FC_TCP_OPT_SACK_PERM, 0},
		{wrong_size, 12, PB_TCP_SYN, FC_TCP_OPT_WSCALE, 4},
		{truncated, 4, PB_TCP_SYN, 0, 0},
	};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		for (int fam = 4; fam <= 6; fam += 2) {
			struct seg s = {fam, cases[i].flags, 100, 0, 1024, cases[i].o, cases[i].n, 0, 0,
				fam == 6};
			uint32_t len = build(&s, f);

			assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
			assert_int_equal(p.tcp_opt & ~FC_TCP_OPT_PLAIN, cases[i].opt);
			assert_int_equal(p.tcp_wscale, cases[i].wscale);
			assert_int_equal(p.tcp_opt & FC_TCP_OPT_PLAIN, 0);
		}
	}
}

/* fc_tcp_sack_edge() on an exactly sized copy of @p f. */
static bool
sack(const uint8_t *f, uint32_t len, const struct fc_pkt *p, uint32_t *edge)
{
	uint8_t *copy = malloc(len);
	bool r;

	assert_non_null(copy);
	memcpy(copy, f, len);
	r = fc_tcp_sack_edge(copy, len, p, edge);
	free(copy);
	return r;
}

static void
test_sack_edge(void **state)
{
	/* Timestamps, then SACK with two blocks: right edges 0x30002000, 0x30000010. */
	static const uint8_t two[32] = {1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 2, 1, 1, 5, 18, 0x30, 0,
		0x10, 0, 0x30, 0, 0x20, 0, 0x30, 0, 0, 0, 0x30, 0, 0, 0x10};
	/* One block whose edge wraps past 2^32 relative to the ACK. */
	static const uint8_t wrap[12] = {1, 1, 5, 10, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x20};
	/* A SACK option of a bad size is not one. */
	static const uint8_t bad_size[12] = {1, 1, 5, 9, 0, 0, 0, 1, 0, 0, 0, 2};
	/* Only timestamps. */
	static const uint8_t ts[12] = {1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8};
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	uint32_t edge, len;
	struct seg s = {4, PB_TCP_ACK, 7, 0x30000000, 100, two, 32, 0, 0, false};

	(void)state;
	len = build(&s, f);
	assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
	edge = p.tcp_ack;
	assert_true(sack(f, len, &p, &edge));
	assert_int_equal(edge, 0x30002000);
	/* an ACK beyond every block keeps its value */
	edge = 0x40000000;
	assert_true(sack(f, len, &p, &edge));
	assert_int_equal(edge, 0x40000000);
	/* a cut inside the options: nothing read, nothing found */
	edge = 1;
	assert_false(sack(f, p.l4_off + p.tcp_hlen - 1, &p, &edge));
	assert_int_equal(edge, 1);

	s = (struct seg){6, PB_TCP_ACK, 7, 0xfffffff0, 100, wrap, 12, 0, 0, true};
	len = build(&s, f);
	assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
	edge = p.tcp_ack;
	assert_true(sack(f, len, &p, &edge));
	assert_int_equal(edge, 0x20);

	s.opts = bad_size;
	len = build(&s, f);
	assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
	edge = p.tcp_ack;
	assert_false(sack(f, len, &p, &edge));
	assert_int_equal(edge, p.tcp_ack);

	s.opts = ts;
	len = build(&s, f);
	assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
	assert_false(sack(f, len, &p, &edge));

	/* no options at all; NULL arguments */
	s.opts = NULL;
	s.opts_len = 0;
	len = build(&s, f);
	assert_int_equal(parse_both(f, len, &p), FC_PARSE_OK);
	assert_false(sack(f, len, &p, &edge));
	assert_false(fc_tcp_sack_edge(NULL, len, &p, &edge));
	assert_false(fc_tcp_sack_edge(f, len, NULL, &edge));
	assert_false(fc_tcp_sack_edge(f, len, &p, NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_not_tcp),
		cmocka_unit_test(test_syn_options),
		cmocka_unit_test(test_sack_edge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
