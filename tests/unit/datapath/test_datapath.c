/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/datapath, driven with mbufs built here (pkt_build.c)
 * through dp_rx_burst() and dp_upcall_burst() with a real rules engine,
 * channel table and upcall ring: a miss (upcall with its reason and meta
 * data) then hits of the cached flow; a stale hit after a commit; conntrack's
 * interest (SYN, FIN, RST to the slow path, other packets not); a metered
 * flow (-m limit) dropped on the fast path once its bucket is empty; DNAT with
 * both directions rewritten and every checksum verified (IPv4 and IPv6, TCP
 * and UDP, on the slow and the fast path); offload marks (a live mark skips
 * parse and lookup, a stale one falls back); grouping per channel (order
 * kept); drops with their reasons (cached and slow-path verdicts, parse
 * errors, non-IP and fragments per setting, a full upcall ring); lossless
 * contexts holding what full rings refuse, in order; per-connection order
 * across the slow path (a hit behind its connection's upcall follows it
 * until the completion comes back); and direct TX of a TX channel on the
 * producer's own queue.
 *
 * Each test checks the accounting: every packet given to the datapath is
 * delivered, upcalled or counted under one reason, exactly; the teardown
 * fails a test unless the mempool is whole again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#ifdef GUFC_HAVE_NET_RING
#include <rte_eth_ring.h>
#endif

#include "dp_world.h"

/* ------------------------------------------------------------------ tests */

/* A miss goes up with its reason and parse; later packets hit the cached flow. */
static void
test_miss_then_hit(void **state)
{
	struct rte_mbuf *m[3], *o[8];
	const struct fc_entry *e;
	struct dp_meta meta;
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 1);
	k = key_of(m[0]);
	assert_int_equal(rx1(m[0]), 0);
	assert_int_equal(W.rx.st.rx, 1);
	assert_int_equal(W.rx.st.misses, 1);
	assert_int_equal(W.rx.st.hits, 0);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rx_bytes, m[0]->pkt_len);
	meta = peek_upcall();
	assert_int_equal(meta.res, FC_PARSE_OK);
	assert_int_equal(meta.why, RULE_UPCALL_MISS);
	assert_int_equal(meta.pkt.l3_off, 14);
	assert_int_equal(meta.pkt.key.family, FC_AF_INET4);
	assert_memory_equal(&meta.pkt.key.v4, &k.v4, sizeof(k.v4));
	assert_null(entry_of(&k, NULL));

	/* The slow path decides, caches the flow and delivers the packet. */
	assert_int_equal(slow(), 1);
	assert_int_equal(W.slow.st.slow_pkts, 1);
	assert_int_equal(W.slow.st.fwd_pkts, 1);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);

	/* Hits: delivered by the fast path, the entry counts them. */
	m[1] = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 2);
	m[2] = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 3);
	assert_int_equal(rx(&m[1], 2), 2);
	assert_int_equal(W.rx.st.hits, 2);
	assert_int_equal(W.rx.st.misses, 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.fwd_pkts, 2);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(e->packets_lo, 3); /* the slow path counted the first */
	/* IP datagrams are counted, as iptables counts them: the frame less
	 * its Ethernet header (no padding in these frames). */
	assert_int_equal(e->bytes_lo, 3 * (m[1]->pkt_len - RTE_ETHER_HDR_LEN));
	assert_int_equal(e->last_seen, NOW);

	/* In order, unchanged, on the default destination. */
	assert_int_equal(take(W.out, o, 8), 3);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(tag_of(o[i]), i + 1);
		expect_tuple(o[i], "10.0.0.1", 1111, "10.9.0.1", 53);
	}
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
}

/*
 * The input port is part of the key: the datapath writes the burst's port
 * into every key before hashing (upcalls carry it, fragments too); a flow
 * on two ports is two entries; the slow path delivers by the key's port,
 * not by the mbuf's.
 */
static void
test_in_port(void **state)
{
	struct rte_mbuf *m, *f[2], *o[4];
	uint8_t buf[256], frag[256];
	struct pb_ipv4 ip = {.src = 0x0a000001, .dst = 0x0a090001, .id = 7};
	struct dp_meta meta;
	struct fc_key k0, k3;
	struct pb b;
	int len, flen;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	W.def_chan[3] = W.ch[0];
	m = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 1);
	k0 = key_of(m);
	k3 = k0;
	fc_key_set_in_port(&k3, 3);
	assert_int_equal(fc_key_in_port(&k0), 0);

	/* On port 3 (the mbuf says IN_PORT: the burst's port is the one that counts). */
	assert_int_equal(rx_on(3, &m, 1), 0);
	meta = peek_upcall();
	assert_int_equal(fc_key_in_port(&meta.pkt.key), 3);
	assert_int_equal(slow(), 1);
	assert_non_null(entry_of(&k3, NULL));
	assert_null(entry_of(&k0, NULL));
	assert_int_equal(take(W.ch[0], o, 4), 1); /* port 3's default channel */
	rte_pktmbuf_free(o[0]);

	/* The same packet on port 0: another flow. */
	m = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 2);
	assert_int_equal(rx_on(0, &m, 1), 0);
	assert_int_equal(W.rx.st.misses, 2);
	assert_int_equal(slow(), 1);
	assert_non_null(entry_of(&k0, NULL));
	assert_int_equal(take(W.out, o, 4), 1);
	rte_pktmbuf_free(o[0]);

	/* Both hit now, each on its own port. */
	m = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 3);
	assert_int_equal(rx_on(3, &m, 1), 1);
	m = udp4("10.0.0.1", 1111, "10.9.0.1", 53, 4);
	assert_int_equal(rx_on(0, &m, 1), 1);
	assert_int_equal(W.rx.st.hits, 2);
	assert_int_equal(entry_of(&k3, NULL)->packets_lo, 2);
	assert_int_equal(entry_of(&k0, NULL)->packets_lo, 2);
	assert_int_equal(take(W.ch[0], o, 4), 1);
	assert_int_equal(tag_of(o[0]), 3);
	rte_pktmbuf_free(o[0]);
	assert_int_equal(take(W.out, o, 4), 1);
	assert_int_equal(tag_of(o[0]), 4);
	rte_pktmbuf_free(o[0]);

	/* Fragments go up with their port too. */
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_udp(&b, 1000, 2000);
	pb_payload(&b, NULL, 64);
	len = pb_finish(&b);
	flen = pb_ipv4_fragment(buf, (uint32_t)len, 14, 0, 32, frag, sizeof(frag));
	assert_true(flen > 0);
	f[0] = mbuf_of(frag, flen);
	assert_int_equal(rx_on(5, f, 1), 0);
	meta = peek_upcall();
	assert_int_equal(meta.res, FC_PARSE_FRAG_FIRST);
	assert_int_equal(fc_key_in_port(&meta.pkt.key), 5);
	/* (a first fragment has its ports: decided like a datagram, here without reassembly) */
	assert_int_equal(slow(), 1);
	assert_int_equal(take(W.out, f, 2), 1);
	rte_pktmbuf_free(f[0]);
	check_accounting();
}

/*
 * Host ports: the burst's input port decides whether a local source is
 * this host's own (SRC_LOCAL, on a host port) or forged (SRC_FORGED, on
 * any other), the IPv4 one then a martian drop cached on its entry and
 * counted on the fast path.
 */
static void
test_host_port(void **state)
{
	uint8_t a[4] = {192, 0, 2, 1};
	struct rte_mbuf *m, *o[4];
	struct dp_meta meta;
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	assert_int_equal(fc_locals_add(W.locals, FC_AF_INET4, a, 32), 0);
	fc_locals_host_ports_set(W.locals, UINT64_C(1) << 3);

	/* On port 3, the host's: its own packet. */
	m = udp4("192.0.2.1", 1111, "10.9.0.1", 53, 1);
	assert_int_equal(rx_on(3, &m, 1), 0);
	meta = peek_upcall();
	assert_int_equal(fc_key_flags(&meta.pkt.key), FC_KEY_F_SRC_LOCAL);
	assert_int_equal(slow(), 1);
	assert_int_equal(take(W.out, o, 4), 1);
	rte_pktmbuf_free(o[0]);

	/* On port 0: forged, a martian; the next packet is dropped on the fast path. */
	m = udp4("192.0.2.1", 1111, "10.9.0.1", 53, 2);
	assert_int_equal(rx_on(0, &m, 1), 0);
	meta = peek_upcall();
	assert_int_equal(fc_key_flags(&meta.pkt.key), FC_KEY_F_SRC_FORGED);
	k = meta.pkt.key;
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_MARTIAN], 1);
	assert_non_null(entry_of(&k, NULL));
	m = udp4("192.0.2.1", 1111, "10.9.0.1", 53, 3);
	assert_int_equal(rx_on(0, &m, 1), 0);
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_MARTIAN], 1);
	check_accounting();
	fc_locals_host_ports_set(W.locals, UINT64_MAX);
}

/* A commit newer than a cached entry sends its next packet up as stale. */
static void
test_stale_after_commit(void **state)
{
	struct rte_mbuf *m, *o[4];
	const struct fc_entry *e;
	struct fc_key k;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1);
	k = key_of(m);
	rx1(m);
	slow();
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 2));
	assert_int_equal(W.rx.st.hits, 1);

	load("drop proto udp dport 53\naccept\n");
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 3)), 0);
	assert_int_equal(W.rx.st.hits, 2);
	assert_int_equal(W.rx.st.upcall_stale, 1);
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_STALE);
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);

	/* Revalidated under the new set: now a cached DROP, decided by the fast path. */
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_DROP);
	assert_int_equal(rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 4)), 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(W.rx.st.upcall_stale, 1);
	assert_int_equal(take(W.out, o, 4), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/*
 * -m limit on the fast path: a flow cached with its rule's meter; hits
 * take its tokens and are dropped once the bucket is empty, on the fast
 * path (no upcall), counted as filter drops, and on the rule that drops
 * them (not the limit's).
 */
static void
test_meter(void **state)
{
	struct rte_mbuf *m[4], *o[4];
	struct rule_counters_snap *snap;
	const struct fc_entry *e;
	uint64_t p, b;

	(void)state;
	world_up(false, 64);
	load("accept proto udp dport 53 limit 1/hour limit_burst 3\ndrop\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	e = first_packet(m[0], 1); /* token 1 */
	assert_int_not_equal(rule_engine_act_meter(W.eng, &e->act), 0);
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 4), 2); /* tokens 2 and 3, then none */
	assert_int_equal(W.rx.st.hits, 4);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 2);
	assert_int_equal(take(W.out, o, 4), 3);
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
	/*
	 * Counters as Linux's: the limit rule the 3 packets its meter let
	 * through, the drop rule the 2 it turned (their walk's decider), one
	 * read at a time and in a snapshot alike.
	 */
	check_rule_counters(1, 3, 0);
	check_rule_counters(2, 2, 0);
	snap = rule_engine_counters_snap(W.eng);
	assert_non_null(snap);
	assert_int_equal(rule_counters_snap_get(snap, 1, &p, &b), 0);
	assert_int_equal(p, 3);
	assert_int_equal(rule_counters_snap_get(snap, 2, &p, &b), 0);
	assert_int_equal(p, 2);
	rule_counters_snap_free(snap);
}

/*
 * -m hashlimit with a byte rate on the fast path: the bucket is a meter
 * charging each packet its IP length (36 bytes: 3 chunks of the 4 a
 * second's credit holds at 48b/s); the second packet finds 1 chunk left and
 * is dropped on the fast path, no upcall. A bucket that cannot be a meter
 * (1/hour with the default 10 s expire) decides each packet on the slow
 * path: its hits go up, counted as upcall_per_packet.
 */
static void
test_meter_bytes(void **state)
{
	struct rte_mbuf *m, *o[2];
	const struct fc_entry *e;

	(void)state;
	world_up(false, 64);
	load("accept proto udp dport 53 hashlimit_upto 48b/s hashlimit_mode srcip "
	     "hashlimit_name B\n"
	     "accept proto udp dport 54 hashlimit_upto 1/hour hashlimit_name P\n"
	     "drop\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	e = first_packet(m, 1);
	assert_int_not_equal(rule_engine_act_meter(W.eng, &e->act), 0);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2));
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.upcall_per_packet, 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 54, 3));
	assert_int_equal(slow(), 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 54, 4));
	assert_int_equal(W.rx.st.upcall_per_packet, 1);
	assert_int_equal(slow(), 1);
	assert_int_equal(take(W.out, o, 2), 2);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/*
 * -m connbytes on the fast path: the flow is cached with the count where
 * its verdict changes (packets 3 and 4 of the connection dropped); hits
 * compare the entry's counter, the third and the fifth packet go up (one
 * each), the fourth is dropped and the sixth passes on the fast path.
 */
static void
test_connbytes(void **state)
{
	struct rte_mbuf *o[8];
	const struct fc_entry *e;
	struct rte_mbuf *m;

	(void)state;
	world_up(true, 64);
	load("drop proto udp dport 53 connbytes 3:4 connbytes_dir original "
	     "connbytes_mode packets\naccept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	e = first_packet(m, 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.flags & FC_ACT_F_COUNT);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2)); /* 2: fast */
	assert_int_equal(W.rx.st.upcalls, 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 3)); /* 3: up, dropped */
	assert_int_equal(W.rx.st.upcall_interest, 1);
	slow();
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 4)); /* 4: dropped on the fast path */
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(W.rx.st.upcall_interest, 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, 5)); /* 5: up, accepted from now on */
	assert_int_equal(W.rx.st.upcall_interest, 2);
	slow();
	for (unsigned int i = 6; i < 10; i++)
		rx1(udp4("10.0.0.1", 1111, "10.9.0.3", 53, (uint16_t)i));
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(take(W.out, o, 8), 7);
	rte_pktmbuf_free_bulk(o, 7);
	check_accounting();
}

/* A TCP segment of 10.0.0.1 <-> 10.9.0.3 without payload (a SYN/ACK as stacks send it). */
static struct rte_mbuf *
bare4(bool from_cli, uint16_t cport, uint8_t flags, uint32_t seq, uint32_t ack)
{
	struct pb_ipv4 ip = {.src = from_cli ? 0x0a000001 : 0x0a090003,
		.dst = from_cli ? 0x0a090003 : 0x0a000001};
	uint8_t buf[128];
	struct pb b;

	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	if (from_cli)
		pb_tcp(&b, cport, 80, flags, seq, ack, 0);
	else
		pb_tcp(&b, 80, cport, flags, seq, ack, 0);
	return mbuf_of(buf, pb_finish(&b));
}

/*
 * A new connection's first reply on the fast path: after the SYN's upcall,
 * the SYN/ACK (no payload) is taken on the connection's line and passes
 * (ct_synack_fast), the handshake's ACK and the data follow on the fast
 * path: one upcall for the connection; the rules count the SYN on the rule
 * for new connections, the rest on the established one. A SYN/ACK with
 * payload goes up (conntrack's tracker reads it).
 */
static void
test_synack_fast(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(true, 64);
	load("accept ctstate established,related\n"
	     "accept proto tcp dport 80 ctstate new\n"
	     "policy drop\n");
	rx1(bare4(true, 40000, PB_TCP_SYN, 100, 0));
	slow();
	assert_int_equal(W.rx.st.upcalls, 1);
	rx1(bare4(false, 40000, PB_TCP_SYN | PB_TCP_ACK, 500, 101));
	assert_int_equal(W.rx.st.ct_synack_fast, 1);
	rx1(bare4(true, 40000, PB_TCP_ACK, 101, 501));
	tcp_numbers(101, 501);
	rx1(tcp4("10.0.0.1", 40000, "10.9.0.3", 80, PB_TCP_ACK | PB_TCP_PSH, 4));
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_rule_counters(2, 1, 0);
	check_rule_counters(1, 3, 0);
	/* With payload (a SYN/ACK carrying data): up. */
	rx1(bare4(true, 40001, PB_TCP_SYN, 100, 0));
	slow();
	tcp_numbers(500, 101);
	rx1(tcp4("10.9.0.3", 80, "10.0.0.1", 40001, PB_TCP_SYN | PB_TCP_ACK, 5));
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.ct_synack_fast, 1);
	slow();
	assert_int_equal(take(W.out, o, 8), 2);
	rte_pktmbuf_free_bulk(o, 2);
	tcp_numbers(1000, 2000);
	check_accounting();
}

/*
 * TCP flags tests (a NULL-scan drop before the accept): the flow is cached
 * for its flags' class; segments of that class (SYN, ACK, PSH|ACK: any
 * flag set) are hits, a NULL segment goes up alone (upcall_class) and is
 * dropped there, the entry kept for the segments after it.
 */
static void
test_tcp_flag_class(void **state)
{
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct rte_mbuf *o[8];
	const struct fc_entry *e;
	struct fc_key k;
	struct rte_mbuf *m;

	(void)state;
	world_up(false, 64);
	load("drop proto tcp tcp_flags fin,syn,rst,psh,ack,urg none\naccept\n");
	m = tcp4(cli, 40000, srv, 80, PB_TCP_SYN, 1);
	k = key_of(m);
	e = first_packet(m, 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 2));
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | 0x08, 3));
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.upcall_per_packet, 0);
	rx1(tcp4(cli, 40000, srv, 80, 0, 4)); /* NULL: up alone */
	assert_int_equal(W.rx.st.upcall_class, 1);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_INTEREST);
	slow();
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_FIN, 5));
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/*
 * Conntrack's interest: SYN, FIN and RST go to the slow path; segments of
 * an established connection within its windows do not (the window check of
 * the fast path), segments beyond them do. Every segment carries 8 bytes.
 */
static void
test_interest(void **state)
{
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct rte_mbuf *o[16];
	uint64_t up;

	(void)state;
	world_up(true, 64);
	load("accept\n");
	tcp_numbers(100, 0);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_SYN, 1));
	assert_int_equal(W.rx.st.misses, 1);
	slow();
	tcp_numbers(500, 109);
	rx1(tcp4(srv, 80, cli, 40000, PB_TCP_SYN | PB_TCP_ACK, 2));
	assert_int_equal(W.rx.st.upcall_interest, 1);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_INTEREST);
	slow();
	tcp_numbers(109, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 3)); /* completes the handshake */
	slow();
	up = W.rx.st.upcalls;

	/* Established: data both ways on the fast path. */
	tcp_numbers(117, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4));
	tcp_numbers(509, 125);
	rx1(tcp4(srv, 80, cli, 40000, PB_TCP_ACK | PB_TCP_PSH, 5));
	tcp_numbers(125, 517);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 6));
	assert_int_equal(W.rx.st.upcalls, up);
	assert_int_equal(rte_ring_count(W.up), 0);

	/* Beyond the window: to the slow path, which calls it INVALID. */
	tcp_numbers(125 + 1000000, 517);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 9));
	assert_int_equal(W.rx.st.upcalls, up + 1);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_INTEREST);
	slow();
	up++;

	/* A FIN in the window moves the state on the fast path; a RST is
	 * wanted, a SYN on the established flow too. */
	tcp_numbers(133, 517);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_FIN | PB_TCP_ACK, 7));
	assert_int_equal(W.rx.st.upcalls, up);
	tcp_numbers(517, 0);
	rx1(tcp4(srv, 80, cli, 40000, PB_TCP_RST, 8));
	assert_int_equal(W.rx.st.upcalls, up + 1);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_INTEREST);
	slow();
	assert_int_equal(W.rx.st.misses, 1);
	assert_int_equal(W.rx.st.upcall_stale, 0);
	assert_int_equal(W.rx.st.upcall_interest, W.rx.st.upcalls - 1);

	/* "accept" takes INVALID packets too: all nine went out, in order. */
	assert_int_equal(take(W.out, o, 16), 9);
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(tag_of(o[i]), i + 1);
	assert_int_equal(tag_of(o[6]), 9);
	assert_int_equal(tag_of(o[7]), 7);
	assert_int_equal(tag_of(o[8]), 8);
	rte_pktmbuf_free_bulk(o, 9);
	tcp_numbers(1000, 2000);
	check_accounting();
}

/*
 * DNAT of one connection of protocol @p proto over @p fam (4 or 6): the
 * first packet is rewritten by the slow path, the next ones by the fast
 * path; the reply translated back; every checksum valid.
 */
static void
nat_run(unsigned int fam, uint8_t proto)
{
	const char *cli = fam == 4 ? "10.0.0.1" : "2001:db8:9::1";
	const char *vip = fam == 4 ? "198.51.100.1" : "2001:db8::1";
	const char *srv = fam == 4 ? "192.168.0.10" : "2001:db8:1::5";
	uint8_t syn = proto == PB_PROTO_TCP ? PB_TCP_SYN : 0;
	uint8_t ack = proto == PB_PROTO_TCP ? PB_TCP_ACK : 0;
	char rules[256];
	struct rte_mbuf *o, *two[4];

	snprintf(rules, sizeof(rules), fam == 4 ? "dnat to %s:8080 proto %s dst %s dport 80\naccept\n" :
		"dnat to [%s]:8080 proto %s dst %s dport 80\naccept\n", srv,
		proto == PB_PROTO_TCP ? "tcp" : "udp", vip);
	load(rules);

#define P(s, sp, d, dp, fl, tag) \
	(fam == 4 ? pkt4(proto, s, sp, d, dp, fl, tag) : pkt6(proto, s, sp, d, dp, fl, tag))
	/* Slow path: the new connection's first packet. */
	tcp_numbers(100, 0);
	rx1(P(cli, 5555, vip, 80, syn, 1));
	assert_int_equal(slow(), 1);
	o = take1(W.out);
	assert_int_equal(tag_of(o), 1);
	expect_tuple(o, cli, 5555, srv, 8080);
	rte_pktmbuf_free(o);

	/* The reply, translated back (its first packet is the slow path's too). */
	tcp_numbers(500, 109);
	rx1(P(srv, 8080, cli, 5555, syn | ack, 2));
	slow();
	o = take1(W.out);
	expect_tuple(o, vip, 80, cli, 5555);
	rte_pktmbuf_free(o);

	/* Fast path: cached entries, mod_nat_apply() in dp_rx_burst(). */
	tcp_numbers(109, 509);
	rx1(P(cli, 5555, vip, 80, ack, 3));
	slow(); /* a TCP handshake's last ACK may still be wanted */
	o = take1(W.out);
	expect_tuple(o, cli, 5555, srv, 8080);
	rte_pktmbuf_free(o);
	{
		uint64_t hits = W.rx.st.hits, up = W.rx.st.upcalls;

		tcp_numbers(117, 509);
		assert_int_equal(rx1(P(cli, 5555, vip, 80, ack, 4)), 1);
		tcp_numbers(509, 125);
		assert_int_equal(rx1(P(srv, 8080, cli, 5555, ack, 5)), 1);
		tcp_numbers(1000, 2000);
		assert_int_equal(W.rx.st.hits, hits + 2);
		assert_int_equal(W.rx.st.upcalls, up);
	}
	assert_int_equal(take(W.out, two, 4), 2);
	assert_int_equal(tag_of(two[0]), 4);
	expect_tuple(two[0], cli, 5555, srv, 8080);
	assert_int_equal(tag_of(two[1]), 5);
	expect_tuple(two[1], vip, 80, cli, 5555);
	rte_pktmbuf_free_bulk(two, 2);
#undef P
	check_accounting();
	assert_int_equal(sum_drops(&W.rx.st) + sum_drops(&W.slow.st), 0);
}

static void
test_nat4(void **state)
{
	(void)state;
	world_up(true, 64);
	nat_run(4, PB_PROTO_TCP);
	nat_run(4, PB_PROTO_UDP);
}

static void
test_nat6(void **state)
{
	(void)state;
	world_up(true, 64);
	nat_run(6, PB_PROTO_TCP);
	nat_run(6, PB_PROTO_UDP);
}

/* Mark @p m as the NIC would (RTE_MBUF_F_RX_FDIR_ID). */
static void
mark(struct rte_mbuf *m, uint32_t v)
{
	m->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	m->hash.fdir.hi = v;
}

/* Offload marks: a live mark skips parse and lookup; anything else falls back. */
static void
test_marked(void **state)
{
	struct dp_marks mk = {.cap = {256, 256}};
	struct rte_mbuf *m, *o[8];
	const struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good;
	uint64_t bytes;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 1);
	k = key_of(m);
	rx1(m);
	slow();
	m = take1(W.out);
	assert_int_equal(tag_of(m), 1);
	rte_pktmbuf_free(m);
	e = entry_of(&k, &idx);
	assert_non_null(e);
	assert_int_equal(e->packets_lo, 1);
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;

	/* Live mark: taken without parse (an IPv4 header length of 16 that no
	 * parse passes; only the datagram's length is read). */
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 2);
	rte_pktmbuf_mtod(m, uint8_t *)[14] = 0x44;
	mark(m, good);
	bytes = W.rx.st.rx_bytes;
	assert_int_equal(rx1(m), 1);
	assert_int_equal(W.rx.st.hw_classified, 1);
	assert_int_equal(W.rx.st.hits, 0);
	assert_int_equal(W.rx.st.rx_bytes, bytes + 50);
	assert_int_equal(W.rx.st.parse_drops[FC_PARSE_ERR_IPV4_IHL], 0);
	assert_int_equal(e->packets_lo, 2);
	m = take1(W.out);
	assert_int_equal(m->pkt_len, 50);
	rte_pktmbuf_free(m);

	/* A stale tag: the software path (parse, lookup, hit). */
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 3);
	mark(m, dp_mark_make(0, idx, 8));
	assert_int_equal(rx1(m), 1);
	assert_int_equal(W.rx.st.hw_fallback, 1);
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(e->packets_lo, 3);

	/* Unmarked packets in the same burst keep their order around a marked one. */
	o[0] = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 4);
	o[1] = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 5);
	mark(o[1], good);
	o[2] = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 6);
	assert_int_equal(rx(o, 3), 3);
	assert_int_equal(W.rx.st.hw_classified, 2);
	assert_int_equal(W.rx.st.hits, 3);

	/* After a commit the entry's generation is old: fall back, counted. */
	load("accept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 7);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_fallback, 2);
	assert_int_equal(W.rx.st.hw_classified, 2);
	slow();

	/* Delivered: 3, then 5 (marked: first), 4, 6, then 7. */
	assert_int_equal(take(W.out, o, 8), 5);
	assert_int_equal(tag_of(o[0]), 3);
	assert_int_equal(tag_of(o[1]), 5);
	assert_int_equal(tag_of(o[2]), 4);
	assert_int_equal(tag_of(o[3]), 6);
	assert_int_equal(tag_of(o[4]), 7);
	rte_pktmbuf_free_bulk(o, 5);

	/* A mark never outlives its entry, whoever forgets to withdraw it: the
	 * table withdraws it when the entry goes, and a slot filled again
	 * starts with none. The packet with the old mark takes the software
	 * path (a miss, set up again), and so does the next one, wherever the
	 * new entry sits. */
	good = dp_mark_make(0, idx, 9);
	e = entry_of(&k, &idx);
	assert_non_null(e);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	assert_int_equal(fc_table_delete(W.rx.tab4, idx), 0);
	assert_int_equal(fc_table_mark_tag(W.rx.tab4, idx), 0);
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 8);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_fallback, 3);
	assert_int_equal(W.rx.st.hw_classified, 2);
	slow();
	assert_non_null(entry_of(&k, &idx));
	assert_int_equal(fc_table_mark_tag(W.rx.tab4, idx), 0);
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 9);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_fallback, 4);
	assert_int_equal(W.rx.st.hw_classified, 2);
	slow();
	assert_int_equal(take(W.out, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 8);
	assert_int_equal(tag_of(o[1]), 9);
	rte_pktmbuf_free_bulk(o, 2);

	/* Marks that name no slot: tag 0 on a slot without a tag, an index at
	 * the table's slot count (within the policy's capacity), an index at
	 * the policy's capacity (within the table): the software path each. */
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 10);
	mark(m, dp_mark_make(0, idx, 0));
	assert_int_equal(rx1(m), 1);
	assert_int_equal(W.rx.st.hw_fallback, 5);
	{
		uint32_t n_slots;

		assert_non_null(fc_table_slots(W.rx.tab4, &n_slots));
		assert_true(idx < n_slots);
		mk.cap[0] = n_slots + 1;
		m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 11);
		mark(m, dp_mark_make(0, n_slots, 7));
		assert_int_equal(rx1(m), 1);
		assert_int_equal(W.rx.st.hw_fallback, 6);
	}
	good = dp_mark_make(0, idx, 10);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.cap[0] = idx;
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 12);
	mark(m, good);
	assert_int_equal(rx1(m), 1);
	assert_int_equal(W.rx.st.hw_fallback, 7);
	mk.cap[0] = idx + 1;
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 13);
	mark(m, good);
	assert_int_equal(rx1(m), 1);
	assert_int_equal(W.rx.st.hw_fallback, 7);
	assert_int_equal(W.rx.st.hw_classified, 3);
	assert_int_equal(take(W.out, o, 8), 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(tag_of(o[i]), 10 + i);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/* @p m with TTL @p ttl (the datapath checks no IPv4 header checksum). */
static struct rte_mbuf *
with_ttl(struct rte_mbuf *m, uint8_t ttl)
{
	uint8_t *p, *pad = (uint8_t *)rte_pktmbuf_append(m, 16);
	uint16_t ipl, ul;

	/* 16 bytes more: a frame the offload path reads the header of (54 bytes at least). */
	assert_non_null(pad);
	memset(pad, 0, 16);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	ipl = (uint16_t)((p[16] << 8 | p[17]) + 16);
	ul = (uint16_t)((p[38] << 8 | p[39]) + 16);
	p[16] = (uint8_t)(ipl >> 8);
	p[17] = (uint8_t)ipl;
	p[38] = (uint8_t)(ul >> 8);
	p[39] = (uint8_t)ul;
	p[14 + 8] = ttl;
	return m;
}

/*
 * A TTL test before the accept: the flow is cached for its TTL's class;
 * packets of that class are hits, software or offloaded (marked), one of
 * another goes up alone (upcall_class) and is dropped there, the entry
 * kept.
 */
static void
test_ttl_class(void **state)
{
	struct dp_marks mk = {.cap = {256, 256}};
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct rte_mbuf *o[16], *m;
	const struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good;

	(void)state;
	world_up(false, 64);
	load("drop proto udp ttl_lt 10\naccept\n");
	m = with_ttl(udp4(cli, 1111, srv, 53, 1), 64);
	k = key_of(m);
	rx1(m);
	assert_int_equal(slow(), 1);
	e = entry_of(&k, &idx);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	assert_true(e->act.mod[0] & RULE_ACT_M0_CLASSED);
	rx1(with_ttl(udp4(cli, 1111, srv, 53, 2), 64));
	rx1(with_ttl(udp4(cli, 1111, srv, 53, 3), 10));
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.upcall_per_packet, 0);
	rx1(with_ttl(udp4(cli, 1111, srv, 53, 4), 9)); /* another class: up alone */
	assert_int_equal(W.rx.st.upcall_class, 1);
	slow();
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	/* Offloaded: the marked packet's class is read from its header too. */
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;
	m = with_ttl(udp4(cli, 1111, srv, 53, 5), 64);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 1);
	m = with_ttl(udp4(cli, 1111, srv, 53, 6), 2);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 1);
	assert_int_equal(W.rx.st.upcall_class, 2);
	slow();
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 2);
	W.rx.marks = NULL;
	assert_int_equal(take(W.out, o, 16), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/* Put @p n VLAN tags (802.1ad outer, 802.1Q inner) in front of @p m's ethertype. */
static void
vlan_tags(struct rte_mbuf *m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, 4);

		assert_non_null(p);
		memmove(p, p + 4, 12);
		p[12] = i + 1 == n && n > 1 ? 0x88 : 0x81;
		p[13] = i + 1 == n && n > 1 ? 0xa8 : 0x00;
		p[14] = 0;
		p[15] = (uint8_t)(10 + i);
	}
}

/*
 * A marked packet's bytes in the flow's counters are its IP datagram's, as
 * a parsed packet's: not a short frame's padding nor its VLAN tags (IPv4
 * total length, IPv6 40 + payload length); a frame shorter than its
 * datagram says goes to the software path.
 */
static void
test_marked_bytes(void **state)
{
	struct dp_marks mk = {.cap = {256, 256}};
	const struct fc_entry *e4, *e6;
	struct rte_mbuf *m, *o[8];
	struct fc_key k4, k6;
	uint32_t i4, i6, mark4, mark6;
	uint64_t b4, b6;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 1);
	k4 = key_of(m);
	rx1(m);
	m = pkt6(PB_PROTO_UDP, "2001:db8::1", 1111, "2001:db8::2", 53, 0, 2);
	k6 = key_of(m);
	rx1(m);
	slow();
	assert_int_equal(take(W.out, o, 8), 2);
	rte_pktmbuf_free_bulk(o, 2);
	e4 = entry_of(&k4, &i4);
	e6 = entry_of(&k6, &i6);
	assert_non_null(e4);
	assert_non_null(e6);
	/* Parsed: a 36-byte datagram (20 + 8 + 8), IPv6 56 (40 + 8 + 8). */
	b4 = e4->bytes_lo;
	b6 = e6->bytes_lo;
	assert_int_equal(b4, 36);
	assert_int_equal(b6, 56);
	mark4 = dp_mark_make(0, i4, 7);
	mark6 = dp_mark_make(1, i6, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, i4, dp_mark_tag(mark4)), 0);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab6, i6, dp_mark_tag(mark6)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;

	/* Padded to Ethernet's 60 bytes, one tag, two tags: the datagram each time. */
	for (unsigned int tags = 0; tags <= FC_PARSE_MAX_VLAN; tags++) {
		m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 3);
		assert_non_null(rte_pktmbuf_append(m, 10));
		vlan_tags(m, tags);
		mark(m, mark4);
		o[0] = m;
		m = pkt6(PB_PROTO_UDP, "2001:db8::1", 1111, "2001:db8::2", 53, 0, 4);
		assert_non_null(rte_pktmbuf_append(m, 6));
		vlan_tags(m, tags);
		mark(m, mark6);
		o[1] = m;
		assert_int_equal(rx(o, 2), 2);
		assert_int_equal(W.rx.st.hw_classified, 2 * (tags + 1));
		assert_int_equal(e4->bytes_lo, b4 + 36 * (tags + 1));
		assert_int_equal(e6->bytes_lo, b6 + 56 * (tags + 1));
	}
	assert_int_equal(W.rx.st.hw_fallback, 0);
	assert_int_equal(take(W.out, o, 8), 6);
	rte_pktmbuf_free_bulk(o, 6);

	/* Three tags (more than a parse takes), a datagram longer than its
	 * frame: the software path, whose parse refuses both. */
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 5);
	vlan_tags(m, 3);
	mark(m, mark4);
	o[0] = m;
	m = udp4("10.0.0.1", 1111, "10.9.0.4", 53, 6);
	assert_int_equal(rte_pktmbuf_trim(m, 1), 0);
	mark(m, mark4);
	o[1] = m;
	(void)rx(o, 2); /* both dropped by the parse */
	assert_int_equal(W.rx.st.hw_fallback, 2);
	assert_int_equal(W.rx.st.hw_classified, 6);
	assert_int_equal(W.rx.st.parse_drops[FC_PARSE_ERR_VLAN_DEPTH], 1);
	assert_int_equal(W.rx.st.parse_drops[FC_PARSE_ERR_IPV4_TOTLEN], 1);
	assert_int_equal(e4->bytes_lo, b4 + 36 * 3);
	check_accounting();
}

/*
 * A marked segment of a window-checked TCP connection: the window check
 * runs on the fields read at their fixed place (no parse); what it passes
 * is taken with the mark and moves the windows, the rest falls back.
 */
static void
test_marked_tcp(void **state)
{
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct dp_marks mk = {.cap = {4096, 4096}};
	struct rte_mbuf *m, *o[8];
	const struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good;
	uint64_t up;

	(void)state;
	world_up(true, 64);
	load("accept\n");
	k = handshake4(cli, 40000, srv, 80);
	e = entry_of(&k, &idx);
	assert_non_null(e);
	assert_true(e->act.interest & FC_INTEREST_TCP_WIN);
	assert_true(idx < 4096);
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;
	up = W.rx.st.upcalls;

	/* New data in the window: taken with the mark, no upcall. */
	tcp_numbers(117, 509);
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 1);
	assert_int_equal(W.rx.st.upcalls, up);

	/* The same segment again: the check saw it pass (its progress is
	 * recorded), so this is a retransmission, the slow path's. */
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 5);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 1);
	assert_int_equal(W.rx.st.hw_fallback, 1);
	assert_int_equal(W.rx.st.upcalls, up + 1);
	slow();

	/* Beyond the window: falls back, and the slow path calls it INVALID. */
	tcp_numbers(125 + 1000000, 509);
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK, 6);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_fallback, 2);
	assert_int_equal(W.rx.st.upcalls, up + 2);
	slow();

	/* The next segment in sequence is still taken with the mark. */
	tcp_numbers(125, 509);
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 7);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 2);
	assert_int_equal(W.rx.st.upcalls, up + 2);

	/* "accept" takes INVALID packets too: all seven went out. */
	assert_int_equal(take(W.out, o, 8), 7);
	rte_pktmbuf_free_bulk(o, 7);
	W.rx.marks = NULL;
	tcp_numbers(1000, 2000);
	check_accounting();
}

/*
 * A marked segment with payload of a connection whose helper reads its
 * payload (the entry's FC_INTEREST_TCP_DATA, as ct_help_interest() sets it)
 * goes to the slow path as the software path sends it: its payload length
 * is read from the frame before the interest mask is asked.
 */
static void
test_marked_tcp_data(void **state)
{
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct dp_marks mk = {.cap = {4096, 4096}};
	struct rte_mbuf *m, *o[4];
	struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good;
	uint64_t up;

	(void)state;
	world_up(true, 64);
	load("accept\n");
	k = handshake4(cli, 40000, srv, 80);
	/* The helper's interest, as the slow path would store it (no reader
	 * runs meanwhile: a plain store). */
	e = (struct fc_entry *)entry_of(&k, &idx);
	assert_non_null(e);
	assert_true(e->act.interest & FC_INTEREST_TCP_WIN);
	e->act.interest |= FC_INTEREST_TCP_DATA;
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;
	up = W.rx.st.upcalls;

	/* In the window, with payload: the helper's, not taken with the mark. */
	tcp_numbers(117, 509);
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4);
	mark(m, good);
	rx1(m);
	assert_int_equal(W.rx.st.hw_classified, 0);
	assert_int_equal(W.rx.st.hw_fallback, 1);
	assert_int_equal(W.rx.st.upcalls, up + 1);
	slow();
	assert_int_equal(take(W.out, o, 4), 4);
	rte_pktmbuf_free_bulk(o, 4);
	W.rx.marks = NULL;
	tcp_numbers(1000, 2000);
	check_accounting();
}

/*
 * A TCP segment conntrack's window check passes as ignored (old data far
 * below the windows: MOD_CT_FAST_IGNORED) is delivered and counted on its
 * entry (ct_ignored_fast) and leaves the entry's last hit as it was, as
 * Linux refreshes no timer for it; marked, it falls back to the software
 * path, which does the same. A SYN in ESTABLISHED goes up, and the slow
 * path ignores it: no renewal either. New data in the window renews.
 * Fails with an ignored segment renewing.
 */
static void
test_tcp_ignored_idle(void **state)
{
	static const char *cli = "10.0.0.1", *srv = "10.9.0.3";
	struct dp_marks mk = {.cap = {4096, 4096}};
	struct rte_mbuf *m, *o[8];
	struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good, pk;
	uint64_t up;

	(void)state;
	world_up(true, 64);
	load("accept\n");
	k = handshake4(cli, 40000, srv, 80);
	/* Idle since NOW - 500 (no reader runs meanwhile: a plain store). */
	e = (struct fc_entry *)entry_of(&k, &idx);
	assert_non_null(e);
	assert_true(e->act.interest & FC_INTEREST_TCP_WIN);
	e->last_seen = NOW - 500;
	pk = e->packets_lo;
	up = W.rx.st.upcalls;

	/* Old data: delivered by the fast path, counted, the idle time kept. */
	tcp_numbers(117 - 1000000, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 4));
	assert_int_equal(W.rx.st.upcalls, up);
	assert_int_equal(W.rx.st.ct_ignored_fast, 1);
	assert_int_equal(e->packets_lo, pk + 1);
	assert_int_equal(e->last_seen, NOW - 500);

	/* Marked: the software path's, and the same there. */
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;
	m = tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 5);
	mark(m, good);
	rx1(m);
	W.rx.marks = NULL;
	assert_int_equal(W.rx.st.hw_classified, 0);
	assert_int_equal(W.rx.st.hw_fallback, 1);
	assert_int_equal(W.rx.st.upcalls, up);
	assert_int_equal(W.rx.st.ct_ignored_fast, 2);
	assert_int_equal(e->packets_lo, pk + 2);
	assert_int_equal(e->last_seen, NOW - 500);

	/* A SYN of the client in ESTABLISHED: ignored on the slow path. */
	tcp_numbers(70000, 0);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_SYN, 6));
	assert_int_equal(W.rx.st.upcalls, up + 1);
	assert_int_equal(slow(), 1);
	assert_int_equal(e->packets_lo, pk + 3);
	assert_int_equal(e->last_seen, NOW - 500);

	/* New data in the window renews. */
	tcp_numbers(117, 509);
	rx1(tcp4(cli, 40000, srv, 80, PB_TCP_ACK | PB_TCP_PSH, 7));
	assert_int_equal(W.rx.st.upcalls, up + 1);
	assert_int_equal(W.rx.st.ct_ignored_fast, 2);
	assert_int_equal(e->packets_lo, pk + 4);
	assert_int_equal(e->last_seen, NOW);

	assert_int_equal(take(W.out, o, 8), 7);
	rte_pktmbuf_free_bulk(o, 7);
	tcp_numbers(1000, 2000);
	check_accounting();
}

/* Per-channel grouping: each channel gets its packets, in their order. */
static void
test_grouping(void **state)
{
	static const uint16_t dports[12] = {1, 2, 1, 3, 2, 1, 4, 3, 1, 4, 2, 1};
	struct rte_mbuf *m[12], *o[16];
	unsigned int n[5] = {0};
	uint32_t want[5][12];

	(void)state;
	world_up(false, 64);
	load("accept channel a proto udp dport 1\naccept channel b proto udp dport 2\n"
	     "accept channel c proto udp dport 3\naccept\n");
	for (uint16_t d = 1; d <= 4; d++)
		rx1(udp4("10.0.0.1", 1000, "10.9.0.5", d, 100 + d));
	assert_int_equal(slow(), 4);
	for (unsigned int c = 0; c < 3; c++) {
		assert_int_equal(take(W.ch[c], o, 16), 1);
		assert_int_equal(tag_of(o[0]), 101 + c);
		rte_pktmbuf_free(o[0]);
	}
	o[0] = take1(W.out);
	assert_int_equal(tag_of(o[0]), 104);
	rte_pktmbuf_free(o[0]);

	for (unsigned int i = 0; i < 12; i++) {
		m[i] = udp4("10.0.0.1", 1000, "10.9.0.5", dports[i], i);
		want[dports[i]][n[dports[i]]++] = i;
	}
	assert_int_equal(rx(m, 12), 12);
	assert_int_equal(W.rx.st.hits, 12);
	for (unsigned int d = 1; d <= 4; d++) {
		uint16_t ch = d == 4 ? W.out : W.ch[d - 1];
		struct chan_stats cs;

		assert_int_equal(chan_stats_get(W.chans, ch, &cs), 0);
		assert_int_equal(cs.in_ring, n[d]);
		assert_int_equal(take(ch, o, 16), n[d]);
		for (unsigned int j = 0; j < n[d]; j++)
			assert_int_equal(tag_of(o[j]), want[d][j]);
		rte_pktmbuf_free_bulk(o, n[d]);
	}
	/* One burst to one channel: the same, in one piece. */
	for (unsigned int i = 0; i < 5; i++)
		m[i] = udp4("10.0.0.1", 1000, "10.9.0.5", 2, 50 + i);
	assert_int_equal(rx(m, 5), 5);
	assert_int_equal(take(W.ch[1], o, 16), 5);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(tag_of(o[i]), 50 + i);
	rte_pktmbuf_free_bulk(o, 5);
	check_accounting();
}

/* Drops, each under its reason; parse errors, non-IP and fragments per setting. */
static void
test_drops(void **state)
{
	uint8_t buf[256];
	struct pb b;
	struct rte_mbuf *m[4], *o[8];
	struct pb_ipv4 ip = {.src = 0x0a000001, .dst = 0x0a090006};
	int len;

	(void)state;
	world_up(false, 64);
	load("drop proto udp dport 9\naccept\n");

	/* Filter: the slow path's verdict, then the cached one. */
	rx1(udp4("10.0.0.1", 1, "10.9.0.6", 9, 1));
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1, "10.9.0.6", 9, 2)), 0);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 1);
	assert_int_equal(pool_in_use(), 0);

	/* Parse error: a TCP header cut short. */
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_l4_raw(&b, PB_PROTO_TCP, NULL, 10);
	len = pb_finish(&b);
	rx1(mbuf_of(buf, len));
	assert_int_equal(W.rx.st.parse_drops[FC_PARSE_ERR_TRUNC_TCP], 1);
	assert_int_equal(pool_in_use(), 0);

	/* Non-IP: to the input port's default channel, or dropped. */
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ethertype(&b, PB_ETH_ARP);
	pb_payload(&b, NULL, 28);
	len = pb_finish(&b);
	W.def_chan[IN_PORT] = W.ch[2];
	assert_int_equal(rx1(mbuf_of(buf, len)), 1);
	assert_int_equal(W.rx.st.non_ip_pass, 1);
	assert_int_equal(take(W.ch[2], o, 8), 1);
	rte_pktmbuf_free(o[0]);
	W.def_chan[IN_PORT] = W.out;
	W.rx.non_ip_mode = DP_NONIP_DROP;
	assert_int_equal(rx1(mbuf_of(buf, len)), 0);
	assert_int_equal(W.rx.st.drops[DP_DROP_NON_IP], 1);
	assert_int_equal(W.rx.st.non_ip_pass, 1);

	/* Fragments: upcalled (for reassembly) or dropped. */
	ip.mf = true;
	ip.id = 77;
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 32);
	len = pb_finish(&b);
	rx1(mbuf_of(buf, len));
	assert_int_equal(peek_upcall().res, FC_PARSE_FRAG_FIRST);
	assert_int_equal(peek_upcall().why, RULE_UPCALL_MISS);
	assert_int_equal(rte_ring_dequeue(W.up, (void **)&m[0]), 0);
	rte_pktmbuf_free(m[0]);
	W.rx.frag_mode = DP_FRAG_DROP;
	rx1(mbuf_of(buf, len));
	assert_int_equal(W.rx.st.drops[DP_DROP_FRAGMENT], 1);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(pool_in_use(), 0);
	check_accounting();
}

/* A full upcall ring: what does not fit is dropped as upcall_full. */
static void
test_upcall_full(void **state)
{
	struct rte_mbuf *m[5];

	(void)state;
	world_up(false, 4); /* holds 3 */
	load("accept\n");
	for (unsigned int i = 0; i < 5; i++)
		m[i] = udp4("10.0.0.1", (uint16_t)(100 + i), "10.9.0.7", 53, i);
	assert_int_equal(rx(m, 5), 0);
	assert_int_equal(W.rx.st.misses, 5);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 2);
	assert_int_equal(pool_in_use(), 3);
	assert_int_equal(slow(), 3);
	assert_int_equal(W.slow.st.fwd_pkts, 3);
	{
		struct rte_mbuf *o[8];

		assert_int_equal(take(W.out, o, 8), 3);
		assert_int_equal(tag_of(o[0]), 0);
		assert_int_equal(tag_of(o[2]), 2);
		rte_pktmbuf_free_bulk(o, 3);
	}
	check_accounting();
}

/*
 * A full upcall ring, with per-connection order kept: a miss that finds no
 * room is dropped at once, before its meta data is written or its
 * connection counted pending (nothing to take back); the ones that went up
 * are pending, each once.
 */
static void
test_upcall_full_early(void **state)
{
	struct rte_mbuf *m[5];

	(void)state;
	world_up(false, 4); /* holds 3 */
	world_pending();
	load("accept\n");
	for (unsigned int i = 0; i < 5; i++) {
		m[i] = udp4("10.0.0.1", (uint16_t)(100 + i), "10.9.0.7", 53, i);
		dp_meta(m[i])->why = 0xee;
		rte_mbuf_refcnt_update(m[i], 1); /* kept to look at after the drop */
	}
	assert_int_equal(rx(m, 5), 0);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 2);
	assert_int_equal(W.rx.pend->n, 3);
	assert_int_equal(W.rx.pend->full, 0);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(dp_meta(m[i])->why, i < 3 ? RULE_UPCALL_MISS : 0xee);
		assert_int_equal(dp_meta(m[i])->pend, i < 3 ? 1 : 0);
		rte_pktmbuf_free(m[i]);
	}
	/* Still full: a whole burst of new flows is dropped, nothing pending added. */
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.2", (uint16_t)(200 + i), "10.9.0.7", 53, 10 + i);
	assert_int_equal(rx(m, 4), 0);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 6);
	assert_int_equal(W.rx.pend->n, 3);
	check_accounting();
	/* The slow path takes the three; their completions empty the table. */
	assert_int_equal(slow(), 3);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 3);
	assert_int_equal(W.rx.pend->n, 0);
	{
		struct rte_mbuf *o[8];

		assert_int_equal(take(W.out, o, 8), 3);
		rte_pktmbuf_free_bulk(o, 3);
	}
	assert_int_equal(pool_in_use(), 0);
	check_accounting();
}

/*
 * The completion counter read at most every done_gap cycles while nothing
 * waits; a packet that waits for its connection's completion has it read
 * at once; with no connection pending it is not read at all.
 */
static void
test_done_gap(void **state)
{
	struct rte_mbuf *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	W.rx.done_gap = UINT64_MAX / 2;
	W.rx.done_tsc = rte_rdtsc();
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0)), 0);
	assert_int_equal(slow(), 1);
	assert_int_equal(W.rx.done->n, 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 0); /* within the gap, nothing waits */
	assert_int_equal(W.rx.pend->n, 1);
	/* The connection's next packet waits, so the counter is read at once. */
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 1)), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(take(W.out, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 0);
	assert_int_equal(tag_of(o[1]), 1);
	rte_pktmbuf_free_bulk(o, 2);
	/* Nothing pending: nothing to read, whatever the gap. */
	W.rx.done_gap = 0;
	assert_int_equal(dp_done_poll(&W.rx, NOW), 0);
	assert_int_equal(pool_in_use(), 0);
	check_accounting();
}

/*
 * Lossless: what a full upcall ring does not take is held, in order, not
 * dropped, and goes up once there is room; a full channel holds the slow
 * path's decisions the same way. Nothing is lost, nothing reordered.
 */
static void
test_lossless_hold(void **state)
{
	struct rte_mbuf *m[5], *o[8];
	struct chan_params cp = {.name = "tiny", .kind = CHAN_CONS_TX, .ring_size = 4};
	int tiny;

	(void)state;
	world_up(false, 4); /* holds 3 */
	W.rx.lossless = true;
	W.slow.lossless = true;
	tiny = chan_create(W.chans, &cp); /* holds 3 */
	assert_true(tiny > 0);
	load("accept channel tiny\n");
	for (unsigned int i = 0; i < 5; i++)
		m[i] = udp4("10.0.0.1", (uint16_t)(100 + i), "10.9.0.7", 53, i);
	assert_int_equal(rx(m, 5), 0);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(dp_held(&W.rx), 2);
	assert_int_equal(W.rx.st.ll_held, 2);
	assert_int_equal(W.rx.st.ll_bursts, 1);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 0);
	check_accounting();
	/* Still no room: the retry keeps them and counts no new event. */
	assert_int_equal(dp_hold_retry(&W.rx), 2);
	assert_int_equal(W.rx.st.ll_bursts, 1);
	/* The slow path decides 3; the channel takes 3. */
	assert_int_equal(slow(), 3);
	assert_int_equal(dp_held(&W.slow), 0);
	assert_int_equal(dp_hold_retry(&W.rx), 0);
	assert_int_equal(W.rx.st.upcalls, 5);
	/* The channel is full: the slow path holds its decisions. */
	assert_int_equal(slow(), 2);
	assert_int_equal(dp_held(&W.slow), 2);
	check_accounting();
	assert_int_equal(take((uint16_t)tiny, o, 8), 3);
	assert_int_equal(slow(), 0); /* retries the hold: both fit now */
	assert_int_equal(dp_held(&W.slow), 0);
	assert_int_equal(take((uint16_t)tiny, o + 3, 5), 2);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(tag_of(o[i]), i);
	rte_pktmbuf_free_bulk(o, 5);
	assert_int_equal(sum_drops(&W.rx.st) + sum_drops(&W.slow.st), 0);
	check_accounting();
}

/*
 * Per-connection order: while an upcall of a connection is in flight, its
 * next packets, hits included and either direction, wait on the RX context;
 * once the slow path hands back the completion, they take the fast path in
 * order. Another connection's hits never wait.
 */
static void
test_pending_order(void **state)
{
	struct rte_mbuf *m[2], *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	/* Flows A (10.0.0.1) and B (10.0.0.2) get their entries. */
	rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0));
	rx1(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 1));
	assert_int_equal(W.rx.pend->n, 2);
	assert_int_equal(slow(), 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 2)), 1); /* a hit */
	/* A's reply misses; A's hit right behind it waits. */
	m[0] = udp4("10.9.0.1", 53, "10.0.0.1", 1000, 3);
	m[1] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 4);
	assert_int_equal(rx(m, 2), 0);
	assert_int_equal(W.rx.st.waited, 1);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(W.rx.st.upcalls, 3);
	check_accounting();
	/* B's hit does not wait. */
	assert_int_equal(rx1(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 5)), 1);
	assert_int_equal(slow(), 1);
	/* The completion lets A's packet go, through the fast path (a hit). */
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.st.hits, 3);
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 6)), 1);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.rx, 7);
	/* A's packets in their order: 0, 2, 3, 4, 6; B's 1, 5. */
	assert_int_equal(take(W.out, o, 8), 7);
	{
		static const uint32_t want[] = { 0, 1, 2, 5, 3, 4, 6 };

		for (unsigned int i = 0; i < 7; i++)
			assert_int_equal(tag_of(o[i]), want[i]);
	}
	rte_pktmbuf_free_bulk(o, 7);
	check_accounting();
}

/*
 * Without waiting (an input that may block: files, FIFOs), a hit behind
 * its connection's upcall goes up behind it, on the same FIFO ring, and
 * keeps the connection pending until its own completion.
 */
static void
test_pending_behind(void **state)
{
	struct rte_mbuf *m[2], *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	W.rx.pend_wait = false;
	load("accept\n");
	rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0));
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	m[0] = udp4("10.9.0.1", 53, "10.0.0.1", 1000, 1);
	m[1] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 2);
	assert_int_equal(rx(m, 2), 0);
	assert_int_equal(W.rx.st.upcall_pending, 1);
	assert_int_equal(W.rx.st.waited, 0);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(slow(), 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 3)), 1);
	assert_int_equal(take(W.out, o, 8), 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(tag_of(o[i]), i);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/*
 * One upcall per new flow: a burst of a new flow's packets sends the first
 * up and keeps the rest waiting (7 can wait, the eighth wait-queue entry
 * being kept for established flows: the rest is pending_full); the
 * completion sends them on as hits, in order.
 */
static void
test_pending_one_upcall(void **state)
{
	struct rte_mbuf *m[12], *o[16];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	for (unsigned int i = 0; i < 12; i++)
		m[i] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, i);
	assert_int_equal(rx(m, 12), 0);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.waiting, 7);
	assert_int_equal(dp_wait_room(&W.rx), 0);
	assert_int_equal(W.rx.st.drops[DP_DROP_PENDING_FULL], 4);
	check_accounting();
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(dp_wait_room(&W.rx), 7);
	assert_int_equal(W.rx.st.hits, 7);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(take(W.out, o, 16), 8);
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(tag_of(o[i]), i);
	rte_pktmbuf_free_bulk(o, 8);
	check_accounting();
}

/*
 * A storm of new flows cannot make an established flow's packets
 * pending_full: A (an entry) has an upcall in flight (its reply's) and one
 * packet waiting behind it; a new flow's burst fills the wait pool but for
 * its reserve (its packets beyond are pending_full); A's next hits still
 * wait, in the reserve, and leave in order after the completion.
 */
static void
test_pending_reserve(void **state)
{
	struct rte_mbuf *m[12], *o[16];
	unsigned int got;

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0));
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	/* A's reply misses (an upcall of A's connection); A's hit waits behind it. */
	m[0] = udp4("10.9.0.1", 53, "10.0.0.1", 1000, 1);
	m[1] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 2);
	assert_int_equal(rx(m, 2), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	/* The storm: a new flow's 12 packets, one upcall, 6 waiting, 5 pending_full. */
	for (unsigned int i = 0; i < 12; i++)
		m[i] = udp4("10.0.0.9", 4000, "10.9.0.1", 53, 100 + i);
	assert_int_equal(rx(m, 12), 0);
	assert_int_equal(W.rx.st.waiting, 7);
	assert_int_equal(W.rx.st.drops[DP_DROP_PENDING_FULL], 5);
	assert_int_equal(dp_wait_room(&W.rx), 0);
	/* A's next hit takes the reserve: waits, not dropped. */
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 3)), 0);
	assert_int_equal(W.rx.st.waiting, 8);
	assert_int_equal(W.rx.st.drops[DP_DROP_PENDING_FULL], 5);
	/* The pool is full now: another new-flow packet behind its upcall is dropped. */
	assert_int_equal(rx1(udp4("10.0.0.9", 4000, "10.9.0.1", 53, 112)), 0);
	assert_int_equal(W.rx.st.drops[DP_DROP_PENDING_FULL], 6);
	check_accounting();
	assert_int_equal(slow(), 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	assert_int_equal(W.rx.st.waiting, 0);
	/* A's packets in their order: 0, 1, 2, 3 (among the new flow's 100..106). */
	got = take(W.out, o, 16);
	assert_int_equal(got, 4 + 7);
	{
		unsigned int next = 0;

		for (unsigned int i = 0; i < got; i++)
			if (tag_of(o[i]) < 100)
				assert_int_equal(tag_of(o[i]), next++);
		assert_int_equal(next, 4);
	}
	rte_pktmbuf_free_bulk(o, got);
	check_accounting();
}

/*
 * The pending filter agrees with the slots: each used slot's bucket has its
 * bit set, the counts add up to the slots in use, and a bucket's bit is set
 * exactly when its count is not 0.
 */
static void
check_filter(const struct dp_pending *p)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i <= p->mask; i++) {
		bool bit = (p->hint_bits[i >> 6] >> (i & 63)) & 1;

		sum += p->hint_count[i];
		assert_int_equal(bit, p->hint_count[i] != 0);
		if (p->slot[i].conn != 0)
			assert_true((p->hint_bits[p->slot[i].hint >> 6] >> (p->slot[i].hint & 63)) & 1);
	}
	assert_int_equal(sum, p->n);
}

/* The pending filter's word on the connection of packet @p m (freed). */
static bool
maybe_pending(struct rte_mbuf *m)
{
	struct fc_key k = key_of(m);

	rte_pktmbuf_free(m);
	return dp_pending_maybe(W.rx.pend, &k);
}

/* The filter bucket of the connection of packet @p m (freed). */
static uint32_t
hint_of(struct rte_mbuf *m)
{
	struct fc_key k = key_of(m);

	rte_pktmbuf_free(m);
	return dp_pending_hint(W.rx.pend, &k);
}

/*
 * The pending filter: a hit checks its connection's upcalls in flight only
 * when its filter bit is set. The bit is set, for either direction, while
 * the connection has a slot, and clear again once the last one is gone;
 * another connection's hit sees it clear (so it skips the check) and takes
 * the fast path at once. A connection that shares the pending one's bucket
 * (its bit set: the exact check runs) finds no slot and does not wait
 * either, while the pending connection's hit waits and keeps its order.
 */
static void
test_pending_filter(void **state)
{
	struct rte_mbuf *o[8];
	uint32_t h;
	uint16_t cport = 0;

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	/* B (10.0.0.2) cached, nothing pending. */
	rx1(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 0));
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_false(maybe_pending(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 99)));
	/* A (10.0.0.1) misses: pending, its bit set in both directions. */
	rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 1));
	assert_int_equal(W.rx.pend->n, 1);
	h = hint_of(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 99));
	assert_int_equal(hint_of(udp4("10.9.0.1", 53, "10.0.0.1", 1000, 99)), h);
	assert_true(maybe_pending(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 99)));
	assert_true(maybe_pending(udp4("10.9.0.1", 53, "10.0.0.1", 1000, 99)));
	assert_int_equal(W.rx.pend->hint_count[h], 1);
	/* B's bit is clear: its hit skips the check and goes at once. */
	assert_false(maybe_pending(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 99)));
	assert_int_equal(rx1(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 2)), 1);
	/* C: another connection in A's bucket (searched by source port). */
	for (uint16_t p = 2000; p < 12000 && cport == 0; p++)
		if (hint_of(udp4("10.0.0.3", p, "10.9.0.1", 53, 99)) == h)
			cport = p;
	assert_int_not_equal(cport, 0);
	rx1(udp4("10.0.0.3", cport, "10.9.0.1", 53, 3));
	assert_int_equal(slow(), 2); /* A's upcall and C's */
	/* A's completion first: the bucket still counts C's slot. */
	assert_int_equal(W.rx.pend->n, 2);
	assert_int_equal(W.rx.pend->hint_count[h], 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->hint_count[h], 0);
	assert_false(maybe_pending(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 99)));
	/* A pending again (its reply misses); C's hit has its bit set, finds
	 * no slot, and goes at once; A's hit waits behind the reply. */
	assert_int_equal(rx1(udp4("10.9.0.1", 53, "10.0.0.1", 1000, 4)), 0);
	assert_true(maybe_pending(udp4("10.0.0.3", cport, "10.9.0.1", 53, 99)));
	assert_int_equal(rx1(udp4("10.0.0.3", cport, "10.9.0.1", 53, 5)), 1);
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 6)), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->hint_count[h], 0);
	for (unsigned int i = 0; i <= W.rx.pend->mask / 64; i++)
		assert_int_equal(W.rx.pend->hint_bits[i], 0);
	/* Delivered: B 0, B 2, then the slow path's A 1, C 3, then C 5, A 4, A 6. */
	assert_int_equal(take(W.out, o, 8), 7);
	{
		static const uint32_t want[] = { 0, 2, 1, 3, 5, 4, 6 };

		for (unsigned int i = 0; i < 7; i++)
			assert_int_equal(tag_of(o[i]), want[i]);
	}
	rte_pktmbuf_free_bulk(o, 7);
	check_accounting();
}

/* The smallest table (16 slots: its bitmap is still a whole word) filters as well. */
static void
test_pending_filter_tiny(void **state)
{
	struct rte_mbuf *m[6], *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	rte_free(W.rx.pend);
	W.rx.pend = dp_pending_init(rte_zmalloc(NULL, dp_pending_memsize(0, 0), 64), 0, 0);
	assert_non_null(W.rx.pend);
	assert_int_equal(W.rx.pend->mask, 15);
	load("accept\n");
	for (unsigned int i = 0; i < 6; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, i);
	}
	assert_int_equal(rx(m, 6), 0);
	assert_int_equal(W.rx.pend->n, 6);
	for (unsigned int i = 0; i < 6; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
		assert_true(maybe_pending(udp4("10.9.0.1", 53, a, 1000, 99)));
	}
	check_filter(W.rx.pend);
	assert_int_equal(slow(), 6);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 6);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->hint_bits[0], 0);
	check_filter(W.rx.pend);
	assert_int_equal(take(W.out, o, 8), 6);
	rte_pktmbuf_free_bulk(o, 6);
	check_accounting();
}

/* IPv6: both directions share a bucket; the bit goes with the last slot. */
static void
test_pending_filter6(void **state)
{
	struct rte_mbuf *o[4];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	rx1(pkt6(IPPROTO_UDP, "2001:db8::1", 1000, "2001:db8:9::1", 53, 0, 0));
	assert_true(maybe_pending(pkt6(IPPROTO_UDP, "2001:db8:9::1", 53, "2001:db8::1", 1000, 0, 99)));
	assert_int_equal(hint_of(pkt6(IPPROTO_UDP, "2001:db8:9::1", 53, "2001:db8::1", 1000, 0, 99)),
		hint_of(pkt6(IPPROTO_UDP, "2001:db8::1", 1000, "2001:db8:9::1", 53, 0, 99)));
	assert_int_equal(rx1(pkt6(IPPROTO_UDP, "2001:db8:9::1", 53, "2001:db8::1", 1000, 0, 1)), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(slow(), 1);
	/* The reply, run again, misses in turn: its own upcall keeps it pending. */
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.pend->n, 1);
	assert_true(maybe_pending(pkt6(IPPROTO_UDP, "2001:db8::1", 1000, "2001:db8:9::1", 53, 0, 99)));
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.pend->n, 0);
	assert_false(maybe_pending(pkt6(IPPROTO_UDP, "2001:db8::1", 1000, "2001:db8:9::1", 53, 0, 99)));
	assert_int_equal(take(W.out, o, 4), 2);
	assert_int_equal(tag_of(o[0]), 0);
	assert_int_equal(tag_of(o[1]), 1);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The connection hash and the filter's bucket: both directions of a
 * connection agree (either family; ICMP queries: the request and its
 * reply, whose keys differ in their type), never 0; 20,000 random connections
 * of each family (and the same ends under another protocol) give 40,000
 * distinct hashes.
 */
static void
test_conn_hash(void **state)
{
	enum { N = 20000 };
	static uint64_t h[2 * N];
	struct dp_pending *p = dp_pending_init(rte_zmalloc(NULL, dp_pending_memsize(128, 8), 64),
		128, 8);
	uint64_t seed = 88172645463325252ull;

	(void)state;
	assert_non_null(p);
	for (unsigned int fam = 0; fam < 2; fam++) {
		for (unsigned int i = 0; i < N; i++) {
			struct fc_key k, r;

			memset(&k, 0, sizeof(k));
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			if (fam == 0) {
				k.family = FC_AF_INET4;
				k.v4.src = (uint32_t)seed;
				k.v4.dst = (uint32_t)(seed >> 32);
				k.v4.sport = (uint16_t)(seed >> 7);
				k.v4.dport = (uint16_t)(seed >> 23);
				k.v4.proto = i % 3 == 0 ? 1 : i % 2 ? 6 : 17;
				/* ICMP: an echo request or reply (the type in dport) */
				if (k.v4.proto == 1)
					k.v4.dport = htons(i % 2 ? 0x0800 : 0x0001);
				fc_key_reverse(&k, &r);
				r.v4.in_port = 3;
			} else {
				k.family = FC_AF_INET6;
				memcpy(k.v6.src + 8, &seed, 8);
				k.v6.src[0] = 0x20;
				k.v6.dst[0] = 0x20;
				k.v6.dst[15] = (uint8_t)i;
				k.v6.dst[14] = (uint8_t)(i >> 8);
				k.v6.sport = (uint16_t)(seed >> 9);
				k.v6.dport = 443;
				k.v6.proto = 6;
				if (i % 3 == 0) {
					k.v6.proto = 58; /* an echo request or reply */
					k.v6.dport = htons(i % 2 ? 0x8000 : 0x8100);
				}
				fc_key_reverse(&k, &r);
			}
			h[fam * N + i] = dp_conn_hash(&k);
			assert_int_not_equal(h[fam * N + i], 0);
			assert_true(h[fam * N + i] == dp_conn_hash(&r));
			assert_int_equal(dp_pending_hint(p, &k), dp_pending_hint(p, &r));
			assert_true(dp_pending_hint(p, &k) <= p->mask);
		}
	}
	qsort(h, 2 * N, sizeof(h[0]), cmp_u64);
	for (unsigned int i = 1; i < 2 * N; i++)
		assert_true(h[i] != h[i - 1]);
	rte_free(p);
}

/* Take and free what the default channel holds. */
static unsigned int
drain_out(void)
{
	struct rte_mbuf *o[64];
	unsigned int n, total = 0;

	while ((n = take(W.out, o, 64)) != 0) {
		rte_pktmbuf_free_bulk(o, n);
		total += n;
	}
	return total;
}

/*
 * Stress: random bursts of 24 connections (both directions, TCP with
 * conntrack's interest, UDP) through a tiny upcall ring (drops) and a tiny
 * wait pool (fallbacks, pending_full), the slow path and the completions
 * taken at random moments. At the end, with everything drained, no
 * connection is pending, nothing waits, every packet is accounted for and
 * the mempool is whole (teardown).
 */
static void
test_pending_stress(void **state)
{
	static const uint8_t flags[] = { 0x02, 0x12, 0x10, 0x18, 0x11 };
	struct rte_mbuf *m[32];
	unsigned int seed = 12345;

	(void)state;
	world_up(true, 16);
	world_pending();
	load("accept\n");
	for (unsigned int it = 0; it < 3000; it++) {
		unsigned int n;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 32;
		for (unsigned int i = 0; i < n; i++) {
			unsigned int f, rev, k;
			char a[32];

			seed = seed * 1103515245u + 12345u;
			f = (seed >> 16) % 24;
			rev = (seed >> 8) & 1;
			k = (seed >> 20) % RTE_DIM(flags);
			snprintf(a, sizeof(a), "10.0.0.%u", f + 1);
			if (f % 2)
				m[i] = rev ? udp4("10.9.0.1", 53, a, (uint16_t)(1000 + f), i) :
					     udp4(a, (uint16_t)(1000 + f), "10.9.0.1", 53, i);
			else
				m[i] = rev ? tcp4("10.9.0.1", 80, a, (uint16_t)(1000 + f), flags[k], i) :
					     tcp4(a, (uint16_t)(1000 + f), "10.9.0.1", 80, flags[k], i);
		}
		if (dp_held(&W.rx) == 0)
			rx(m, n);
		else
			rte_pktmbuf_free_bulk(m, n);
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 3 == 0)
			slow();
		if ((seed >> 18) % 2 == 0)
			dp_done_poll(&W.rx, NOW);
		if ((seed >> 20) % 4 == 0)
			drain_out();
		check_accounting();
		check_filter(W.rx.pend);
	}
	for (unsigned int i = 0; i < 1000 && (W.rx.pend->n != 0 || rte_ring_count(W.up) != 0); i++) {
		slow();
		dp_done_poll(&W.rx, NOW);
		drain_out();
	}
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->wait_free, W.rx.pend->wait_cap);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->ready_n, 0);
	/* The filter's counts and bits went with the slots, moved or freed. */
	for (unsigned int i = 0; i <= W.rx.pend->mask; i++)
		assert_int_equal(W.rx.pend->hint_count[i], 0);
	for (unsigned int i = 0; i <= W.rx.pend->mask / 64; i++)
		assert_int_equal(W.rx.pend->hint_bits[i], 0);
	assert_true(W.rx.st.waited > 0);
	assert_true(W.rx.st.drops[DP_DROP_UPCALL_FULL] > 0);
	drain_out();
	check_accounting();
}

/* The slow path drops under the engine's reason (here nat_error), not as filter. */
static void
test_slow_drop_reason(void **state)
{
	struct rte_mbuf *m;

	(void)state;
	world_up(false, 64);
	/* Masquerade without an address for the port (no port_addr_fn): nat_error. */
	load("masquerade proto udp\naccept\n");
	m = udp4("10.0.0.1", 1234, "10.9.0.8", 53, 1);
	rx1(m);
	assert_int_equal(slow(), 0);
	assert_int_equal(W.slow.st.rule_drops[RULE_DROP_NAT_ERROR], 1);
	assert_int_equal(pool_in_use(), 0);
	check_accounting();
}

#ifdef GUFC_HAVE_NET_RING
/* Direct TX: the RX context delivers a TX channel's packets on its own queue. */
static void
test_direct_tx(void **state)
{
	static struct rte_ring *rxr, *txr[2];
	static uint16_t port;
	struct chan_params p = {.name = "txp", .kind = CHAN_CONS_TX, .ring_size = 64};
	struct rte_mbuf *m[20];
	struct chan_stats cs;
	int id;

	(void)state;
	if (rxr == NULL) {
		struct rte_eth_conf conf;
		int rc;

		rxr = rte_ring_create("dpt_rx", 16, SOCKET_ID_ANY, 0);
		txr[0] = rte_ring_create("dpt_tx0", 16, SOCKET_ID_ANY, 0);
		txr[1] = rte_ring_create("dpt_tx1", 16, SOCKET_ID_ANY, 0);
		assert_true(rxr != NULL && txr[0] != NULL && txr[1] != NULL);
		rc = rte_eth_from_rings("dpt_port", &rxr, 1, txr, 2, SOCKET_ID_ANY);
		assert_true(rc >= 0);
		port = (uint16_t)rc;
		memset(&conf, 0, sizeof(conf));
		assert_int_equal(rte_eth_dev_configure(port, 1, 2, &conf), 0);
		assert_int_equal(rte_eth_rx_queue_setup(port, 0, 16, SOCKET_ID_ANY, NULL, pool), 0);
		assert_int_equal(rte_eth_tx_queue_setup(port, 0, 16, SOCKET_ID_ANY, NULL), 0);
		assert_int_equal(rte_eth_tx_queue_setup(port, 1, 16, SOCKET_ID_ANY, NULL), 0);
		assert_int_equal(rte_eth_dev_start(port), 0);
	}
	world_up(false, 64);
	p.tx_port = port;
	p.tx_queue = 0;
	id = chan_create(W.chans, &p);
	assert_true(id > 0);
	W.port_chan[port] = (uint16_t)id;
	W.def_chan[IN_PORT] = (uint16_t)id; /* no route: the port's TX channel */
	assert_int_equal(chan_producer_txq_set(W.chans, W.rx.producer_id, port, 1), 0);
	load("accept\n");

	/* The slow context (no queue of its own) goes through the ring. */
	rx1(udp4("10.0.0.1", 1, "10.9.0.9", 2, 0));
	assert_int_equal(slow(), 1);
	assert_int_equal(chan_stats_get(W.chans, (uint16_t)id, &cs), 0);
	assert_int_equal(cs.in_ring, 1);
	assert_int_equal(chan_tx_poll(W.chans, (uint16_t)id, 64), 1);
	assert_int_equal(rte_ring_count(txr[0]), 1);

	/* The RX context sends on queue 1 at once: 15 fit, 5 are tx_full. */
	for (unsigned int i = 0; i < 20; i++)
		m[i] = udp4("10.0.0.1", 1, "10.9.0.9", 2, i + 1);
	assert_int_equal(rx(m, 20), 20);
	assert_int_equal(W.rx.st.fwd_pkts, 20);
	assert_int_equal(rte_ring_count(txr[1]), 15);
	assert_int_equal(chan_stats_get(W.chans, (uint16_t)id, &cs), 0);
	assert_int_equal(cs.enqueued, 21);
	assert_int_equal(cs.consumed, 21);
	assert_int_equal(cs.tx_sent, 16);
	assert_int_equal(cs.tx_full, 5);
	assert_int_equal(cs.in_ring, 0);
	assert_int_equal(pool_in_use(), 16);
	for (unsigned int q = 0; q < 2; q++) {
		unsigned int n = rte_ring_dequeue_burst(txr[q], (void **)m, 20, NULL);

		if (q == 1)
			for (unsigned int i = 0; i < n; i++)
				assert_int_equal(tag_of(m[i]), i + 1);
		rte_pktmbuf_free_bulk(m, n);
	}
	check_accounting();
}
#endif

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_miss_then_hit, teardown),
		cmocka_unit_test_teardown(test_in_port, teardown),
		cmocka_unit_test_teardown(test_host_port, teardown),
		cmocka_unit_test_teardown(test_stale_after_commit, teardown),
		cmocka_unit_test_teardown(test_meter, teardown),
		cmocka_unit_test_teardown(test_meter_bytes, teardown),
		cmocka_unit_test_teardown(test_interest, teardown),
		cmocka_unit_test_teardown(test_synack_fast, teardown),
		cmocka_unit_test_teardown(test_tcp_flag_class, teardown),
		cmocka_unit_test_teardown(test_nat4, teardown),
		cmocka_unit_test_teardown(test_nat6, teardown),
		cmocka_unit_test_teardown(test_marked, teardown),
		cmocka_unit_test_teardown(test_ttl_class, teardown),
		cmocka_unit_test_teardown(test_marked_bytes, teardown),
		cmocka_unit_test_teardown(test_marked_tcp, teardown),
		cmocka_unit_test_teardown(test_marked_tcp_data, teardown),
		cmocka_unit_test_teardown(test_tcp_ignored_idle, teardown),
		cmocka_unit_test_teardown(test_grouping, teardown),
		cmocka_unit_test_teardown(test_drops, teardown),
		cmocka_unit_test_teardown(test_upcall_full, teardown),
		cmocka_unit_test_teardown(test_upcall_full_early, teardown),
		cmocka_unit_test_teardown(test_done_gap, teardown),
		cmocka_unit_test_teardown(test_lossless_hold, teardown),
		cmocka_unit_test_teardown(test_pending_order, teardown),
		cmocka_unit_test_teardown(test_pending_one_upcall, teardown),
		cmocka_unit_test_teardown(test_pending_reserve, teardown),
		cmocka_unit_test_teardown(test_pending_behind, teardown),
		cmocka_unit_test_teardown(test_pending_stress, teardown),
		cmocka_unit_test(test_conn_hash),
		cmocka_unit_test_teardown(test_pending_filter, teardown),
		cmocka_unit_test_teardown(test_pending_filter6, teardown),
		cmocka_unit_test_teardown(test_pending_filter_tiny, teardown),
		cmocka_unit_test_teardown(test_slow_drop_reason, teardown),
#ifdef GUFC_HAVE_NET_RING
		cmocka_unit_test_teardown(test_direct_tx, teardown),
		cmocka_unit_test_teardown(test_connbytes, teardown),
#endif
	};

	return DP_WORLD_MAIN("datapath", tests, NULL, NULL);
}
