/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the fast path's per-protocol checks on a hit: a UDP-Lite
 * datagram of a replied connection (conntrack no longer sees its packets
 * otherwise) whose header Linux's conntrack finds invalid (checksum
 * coverage 1-7 or past the datagram, checksum 0) goes to the slow path,
 * which calls it INVALID; the good ones stay on the fast path. An SCTP
 * association's DATA and SACK packets with its verification tag stay on
 * the fast path; a wrong tag, a wrong CRC32c or a control chunk goes up,
 * where conntrack decides it as Linux's SCTP tracker (a wrong tag or CRC:
 * INVALID); through NAT
 * with port changes, those packets are translated on the fast path with
 * their CRC32c recomputed; an invalid one that a rule accepts is not
 * translated.
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

#include <arpa/inet.h>

#include "csum_ref.h"
#include "dp_world.h"
#include "pkt_build.h"

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

/*
 * An SCTP packet of family @p fam, verification tag @p vtag, chunks @p spec
 * (I: INIT, J: INIT ACK, both with Initiate Tag @p itag; C: COOKIE ECHO,
 * c: COOKIE ACK, D: DATA, S: SACK, H: HEARTBEAT; each at least 12 bytes;
 * '!' last: the CRC32c one bit off), @p tag in its last 8 bytes (tag_of()).
 */
static struct rte_mbuf *
sctp(unsigned int fam, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint32_t vtag, const char *spec, uint32_t itag, uint32_t tag)
{
	static const struct {
		char k;
		uint8_t type, len;
	} kinds[] = {{'I', 1, 20}, {'J', 2, 20}, {'C', 10, 12}, {'c', 11, 12}, {'D', 0, 20},
		{'S', 3, 16}, {'H', 4, 12}};
	uint8_t buf[256], ch[128];
	uint32_t n = 0;
	bool bad_crc = false;
	struct pb b;
	int len;

	memset(ch, 0, sizeof(ch));
	for (const char *k = spec; *k != '\0'; k++) {
		unsigned int i = 0;

		if (*k == '!') {
			bad_crc = true;
			continue;
		}

		while (i < RTE_DIM(kinds) && kinds[i].k != *k)
			i++;
		assert_true(i < RTE_DIM(kinds));
		ch[n] = kinds[i].type;
		ch[n + 3] = kinds[i].len;
		if (kinds[i].type == 1 || kinds[i].type == 2) {
			ch[n + 4] = (uint8_t)(itag >> 24);
			ch[n + 5] = (uint8_t)(itag >> 16);
			ch[n + 6] = (uint8_t)(itag >> 8);
			ch[n + 7] = (uint8_t)itag;
		}
		n += kinds[i].len;
	}
	ch[n - 8] = (uint8_t)(tag >> 24);
	ch[n - 7] = (uint8_t)(tag >> 16);
	ch[n - 6] = (uint8_t)(tag >> 8);
	ch[n - 5] = (uint8_t)tag;
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	if (fam == 4) {
		struct pb_ipv4 ip = {0};
		struct in_addr a;

		assert_int_equal(inet_pton(AF_INET, src, &a), 1);
		ip.src = ntohl(a.s_addr);
		assert_int_equal(inet_pton(AF_INET, dst, &a), 1);
		ip.dst = ntohl(a.s_addr);
		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip;

		memset(&ip, 0, sizeof(ip));
		assert_int_equal(inet_pton(AF_INET6, src, ip.src), 1);
		assert_int_equal(inet_pton(AF_INET6, dst, ip.dst), 1);
		pb_ipv6(&b, &ip);
	}
	pb_sctp(&b, sport, dport, vtag);
	pb_payload(&b, ch, n);
	len = pb_finish(&b);
	if (bad_crc)
		buf[len - (int)n - 12 + 8] ^= 0x01;
	return mbuf_of(buf, len);
}

static void
sctp_run(unsigned int fam)
{
	const char *cli = fam == 4 ? "10.0.0.1" : "2001:db8::1";
	const char *srv = fam == 4 ? "10.9.0.3" : "2001:db8:9::3";
	static const struct {
		bool reply;
		uint32_t vtag;
		const char *chunks;
		uint32_t itag;
		bool up, good;
	} seq[] = {
		{false, 0, "I", 0x1000, true, true},       /* 1: new */
		{true, 0x1000, "J", 0x2000, true, true},   /* 2: the reply (wanted: not replied yet) */
		{false, 0x2000, "CD", 0, true, true},      /* 3: COOKIE ECHO moves the state */
		{true, 0x1000, "c", 0, true, true},        /* 4: so does COOKIE ACK: ESTABLISHED */
		{false, 0x2000, "D", 0, false, true},      /* 5: fast path */
		{true, 0x1000, "SD", 0, false, true},      /* 6: fast path */
		{false, 0x2001, "D", 0, true, false},      /* 7: a wrong tag: INVALID */
		{true, 0x2000, "S", 0, true, false},       /* 8: the other direction's tag */
		{false, 0x2000, "DD", 0, false, true},     /* 9: fast path */
		{false, 0x2000, "H", 0, true, true},       /* 10: a HEARTBEAT goes up */
		{true, 0x1000, "J", 0x3000, true, false},  /* 11: an INIT ACK of another tag */
		{true, 0x1000, "D", 0, false, true},       /* 12: fast path */
		{false, 0x2000, "D!", 0, true, false},     /* 13: a wrong CRC32c: up, INVALID */
		{true, 0x1000, "SD!", 0, true, false},     /* 14: the same, the other way */
		{false, 0x2000, "D", 0, false, true},      /* 15: fast path */
	};
	struct rte_mbuf *o[16];
	uint64_t up = 0;
	unsigned int n, k = 0;

	world_up(true, 64);
	load("drop ctstate invalid\naccept\n");
	for (unsigned int i = 0; i < RTE_DIM(seq); i++) {
		print_message("  family %u packet %u\n", fam, i + 1);
		up = W.rx.st.upcalls;
		rx1(seq[i].reply ? sctp(fam, srv, 36412, cli, 5000, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1)
				 : sctp(fam, cli, 5000, srv, 36412, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1));
		assert_int_equal(W.rx.st.upcalls, up + (seq[i].up ? 1 : 0));
		if (i >= 4 && seq[i].up)
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

/*
 * An SCTP association through DNAT with a port change (VIP:80 to the
 * server's :8080) and SNAT with one (to 203.0.113.1:40000 or
 * [2001:db8:ff::1]:40000): the handshake on the slow path, DATA and SACK
 * both ways on the fast path, every packet's ports and addresses
 * translated (the replies back) and its CRC32c recomputed over the new
 * ports (check_csums()); a wrong tag goes up and is dropped as INVALID.
 */
static void
sctp_nat_run(unsigned int fam)
{
	const char *cli = fam == 4 ? "10.0.0.1" : "2001:db8::1";
	const char *vip = fam == 4 ? "198.51.100.1" : "2001:db8:5::1";
	const char *srv = fam == 4 ? "10.9.0.3" : "2001:db8:9::3";
	const char *pub = fam == 4 ? "203.0.113.1" : "2001:db8:ff::1";
	static const struct {
		bool reply;
		uint32_t vtag;
		const char *chunks;
		uint32_t itag;
		bool up, good;
	} seq[] = {
		{false, 0, "I", 0x1000, true, true},       /* 1: new: both translations */
		{true, 0x1000, "J", 0x2000, true, true},   /* 2: the reply, translated back */
		{false, 0x2000, "CD", 0, true, true},      /* 3: COOKIE ECHO */
		{true, 0x1000, "c", 0, true, true},        /* 4: COOKIE ACK: ESTABLISHED */
		{false, 0x2000, "D", 0, false, true},      /* 5: fast path */
		{true, 0x1000, "SD", 0, false, true},      /* 6: fast path */
		{false, 0x2001, "D", 0, true, false},      /* 7: a wrong tag: INVALID */
		{false, 0x2000, "DD", 0, false, true},     /* 8: fast path */
		{true, 0x1000, "S", 0, false, true},       /* 9: fast path */
		{false, 0x2000, "H", 0, true, true},       /* 10: a HEARTBEAT goes up */
		{true, 0x1000, "D", 0, false, true},       /* 11: fast path */
	};
	struct rte_mbuf *o[16];
	char rules[256];
	unsigned int n, k = 0;

	world_up(true, 64);
	snprintf(rules, sizeof(rules),
		fam == 4 ? "drop ctstate invalid\ndnat to %s:8080 proto sctp dst %s dport 80\n"
			   "snat to %s:40000 proto sctp\naccept\n"
			 : "drop ctstate invalid\ndnat to [%s]:8080 proto sctp dst %s dport 80\n"
			   "snat to [%s]:40000 proto sctp\naccept\n",
		srv, vip, pub);
	load(rules);
	for (unsigned int i = 0; i < RTE_DIM(seq); i++) {
		uint64_t up = W.rx.st.upcalls, hits = W.rx.st.hits;

		print_message("  family %u packet %u\n", fam, i + 1);
		rx1(seq[i].reply ? sctp(fam, srv, 8080, pub, 40000, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1)
				 : sctp(fam, cli, 5000, vip, 80, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1));
		assert_int_equal(W.rx.st.upcalls, up + (seq[i].up ? 1 : 0));
		if (!seq[i].up)
			assert_int_equal(W.rx.st.hits, hits + 1);
		slow();
	}
	n = take(W.out, o, 16);
	for (unsigned int i = 0; i < RTE_DIM(seq); i++)
		if (seq[i].good) {
			assert_true(k < n);
			assert_int_equal(tag_of(o[k]), i + 1);
			if (seq[i].reply)
				expect_tuple(o[k], vip, 80, cli, 5000);
			else
				expect_tuple(o[k], pub, 40000, srv, 8080);
			k++;
		}
	assert_int_equal(n, k);
	rte_pktmbuf_free_bulk(o, n);
	check_accounting();
}

static void
test_sctp_nat4(void **state)
{
	(void)state;
	sctp_nat_run(4);
}

static void
test_sctp_nat6(void **state)
{
	(void)state;
	sctp_nat_run(6);
}

/*
 * With invalid packets accepted, one of a translated association (a wrong
 * tag, either way) goes as it came, untranslated, as in Linux, where it
 * has no connection, and the rules see it so (the one to the DNAT'd
 * address is accepted by its destination, not by the server's); the
 * association's packets before and after are translated.
 */
static void
sctp_nat_invalid_run(unsigned int fam)
{
	const char *cli = fam == 4 ? "10.0.0.1" : "2001:db8::1";
	const char *vip = fam == 4 ? "198.51.100.1" : "2001:db8:5::1";
	const char *srv = fam == 4 ? "10.9.0.3" : "2001:db8:9::3";
	static const struct {
		bool reply;
		uint32_t vtag;
		const char *chunks;
		uint32_t itag;
		bool nat;
	} seq[] = {
		{false, 0, "I", 0x1000, true},
		{true, 0x1000, "J", 0x2000, true},
		{false, 0x2000, "C", 0, true},
		{true, 0x1000, "c", 0, true},
		{false, 0x2000, "D", 0, true},  /* fast path */
		{false, 0x2001, "D", 0, false}, /* invalid: untranslated */
		{true, 0x0fff, "S", 0, false},  /* invalid: untranslated */
		{true, 0x1000, "S", 0, true},
	};
	char rules[256];

	world_up(true, 64);
	snprintf(rules, sizeof(rules),
		fam == 4 ? "accept ctstate invalid dst %s\naccept ctstate invalid src %s\n"
			   "drop ctstate invalid\ndnat to %s:8080 proto sctp dst %s dport 80\n"
			   "accept\n"
			 : "accept ctstate invalid dst %s\naccept ctstate invalid src %s\n"
			   "drop ctstate invalid\ndnat to [%s]:8080 proto sctp dst %s dport 80\n"
			   "accept\n",
		vip, srv, srv, vip);
	load(rules);
	for (unsigned int i = 0; i < RTE_DIM(seq); i++) {
		struct rte_mbuf *o;

		print_message("  family %u packet %u\n", fam, i + 1);
		rx1(seq[i].reply ? sctp(fam, srv, 8080, cli, 5000, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1)
				 : sctp(fam, cli, 5000, vip, 80, seq[i].vtag, seq[i].chunks,
					   seq[i].itag, i + 1));
		slow();
		o = take1(W.out);
		assert_int_equal(tag_of(o), i + 1);
		if (seq[i].reply)
			expect_tuple(o, seq[i].nat ? vip : srv, seq[i].nat ? 80 : 8080, cli, 5000);
		else
			expect_tuple(o, cli, 5000, seq[i].nat ? srv : vip, seq[i].nat ? 8080 : 80);
		rte_pktmbuf_free(o);
	}
	check_accounting();
}

static void
test_sctp_nat_invalid4(void **state)
{
	(void)state;
	sctp_nat_invalid_run(4);
}

static void
test_sctp_nat_invalid6(void **state)
{
	(void)state;
	sctp_nat_invalid_run(6);
}

static void
test_sctp4(void **state)
{
	(void)state;
	sctp_run(4);
}

static void
test_sctp6(void **state)
{
	(void)state;
	sctp_run(6);
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
		cmocka_unit_test_teardown(test_sctp4, teardown),
		cmocka_unit_test_teardown(test_sctp6, teardown),
		cmocka_unit_test_teardown(test_sctp_nat4, teardown),
		cmocka_unit_test_teardown(test_sctp_nat6, teardown),
		cmocka_unit_test_teardown(test_sctp_nat_invalid4, teardown),
		cmocka_unit_test_teardown(test_sctp_nat_invalid6, teardown),
	};

	return DP_WORLD_MAIN("dp_proto", tests, NULL, NULL);
}
