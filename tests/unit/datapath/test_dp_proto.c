/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the fast path's per-protocol checks on a hit: a UDP-Lite
 * datagram of a replied connection (conntrack no longer sees its packets
 * otherwise) whose header Linux's conntrack finds invalid (checksum
 * coverage 1-7 or past the datagram, checksum 0) goes to the slow path,
 * which calls it INVALID; the good ones stay on the fast path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "csum_ref.h"
#include "dp_world.h"

#define PROTO_UDPLITE 136

/* IPv4 header checksum of the 20 bytes at @p ip, fixed in place. */
static void
ip4_csum_fix(uint8_t *ip)
{
	uint16_t s;

	ip[10] = ip[11] = 0;
	s = (uint16_t)~csum_ref_fold(csum_ref_add(0, ip, 20));
	ip[10] = (uint8_t)(s >> 8);
	ip[11] = (uint8_t)s;
}

/*
 * A UDP-Lite datagram (8 payload bytes, @p tag first) of family @p fam
 * with checksum coverage @p cov and checksum @p csum: a UDP packet of
 * pkt4()/pkt6() made UDP-Lite.
 */
static struct rte_mbuf *
udplite(unsigned int fam, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint16_t cov, uint16_t csum, uint32_t tag)
{
	struct rte_mbuf *m = fam == 4 ? pkt4(PB_PROTO_UDP, src, sport, dst, dport, 0, tag)
				      : pkt6(PB_PROTO_UDP, src, sport, dst, dport, 0, tag);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l4;

	if (fam == 4) {
		p[14 + 9] = PROTO_UDPLITE;
		ip4_csum_fix(p + 14);
		l4 = p + 14 + 20;
	} else {
		p[14 + 6] = PROTO_UDPLITE;
		l4 = p + 14 + 40;
	}
	l4[4] = (uint8_t)(cov >> 8);
	l4[5] = (uint8_t)cov;
	l4[6] = (uint8_t)(csum >> 8);
	l4[7] = (uint8_t)csum;
	return m;
}

static void
udplite_run(unsigned int fam)
{
	const char *cli = fam == 4 ? "10.0.0.1" : "2001:db8::1";
	const char *srv = fam == 4 ? "10.9.0.3" : "2001:db8:9::3";
	static const struct {
		bool reply;
		uint16_t cov, csum;
		bool good;
	} seq[] = {
		{false, 0, 0xbeef, true},  /* 1: new */
		{true, 16, 0xbeef, true},  /* 2: the reply (wanted: not replied yet) */
		{false, 8, 0xbeef, true},  /* 3: fast path */
		{false, 3, 0xbeef, false}, /* 4: coverage inside the header */
		{true, 0, 0, false},	   /* 5: no checksum */
		{false, 17, 0xbeef, false},/* 6: coverage past the datagram (16 bytes) */
		{true, 0, 0xbeef, true},   /* 7: fast path */
		{false, 16, 0xbeef, true}, /* 8: fast path */
	};
	struct rte_mbuf *o[16];
	uint64_t up = 0;
	unsigned int n, k = 0;

	world_up(true, 64);
	load("drop ctstate invalid\naccept\n");
	for (unsigned int i = 0; i < RTE_DIM(seq); i++) {
		print_message("  family %u packet %u\n", fam, i + 1);
		up = W.rx.st.upcalls;
		rx1(seq[i].reply ? udplite(fam, srv, 53, cli, 40000, seq[i].cov, seq[i].csum, i + 1)
				 : udplite(fam, cli, 40000, srv, 53, seq[i].cov, seq[i].csum, i + 1));
		/* The first two go up as conntrack's, the malformed ones for their header. */
		assert_int_equal(W.rx.st.upcalls, up + (i < 2 || !seq[i].good ? 1 : 0));
		if (i >= 2 && !seq[i].good)
			assert_int_equal(peek_upcall().why, RULE_UPCALL_INTEREST);
		slow();
	}
	n = take(W.out, o, 16);
	for (unsigned int i = 0; i < RTE_DIM(seq); i++)
		if (seq[i].good) {
			assert_true(k < n);
			assert_int_equal(tag_of(o[k]), i + 1);
			k++;
		}
	assert_int_equal(n, k);
	rte_pktmbuf_free_bulk(o, n);
	check_accounting();
}

static void
test_udplite4(void **state)
{
	(void)state;
	udplite_run(4);
}

static void
test_udplite6(void **state)
{
	(void)state;
	udplite_run(6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_udplite4, teardown),
		cmocka_unit_test_teardown(test_udplite6, teardown),
	};

	return DP_WORLD_MAIN("dp_proto", tests, NULL, NULL);
}
