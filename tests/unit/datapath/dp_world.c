/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/datapath/dp_world.c — the datapath tests' world and helpers:
 * a rules engine, channel table, locals and upcall ring around two
 * datapath contexts (RX and slow path), packets built with pkt_build.c into
 * mbufs, bursts run through dp_rx_burst() and dp_upcall_burst(), channels
 * read back, and an independent checksum verifier.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "csum_ref.h"
#include "dp_world.h"
#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

struct rte_mempool *pool;
struct world W;
static int seq;

/* ---------------------------------------------------------------- helpers */

static int
eng_channel_fn(void *arg, const char *name)
{
	return chan_lookup(arg, name);
}

static uint16_t
tx_chan(const char *name)
{
	struct chan_params p = {.name = name, .kind = CHAN_CONS_TX, .ring_size = 256};
	int id = chan_create(W.chans, &p);

	assert_true(id > 0);
	return (uint16_t)id;
}

void
world_up(bool conntrack, uint32_t upcall_ring)
{
	struct chan_table_params tp = {.max_channels = 16, .socket_id = SOCKET_ID_ANY};
	struct eng_stack_params sp;
	char name[16];

	memset(&W, 0, sizeof(W));
	tp.def.kind = CHAN_CONS_DISCARD;
	W.chans = chan_table_create(&tp);
	assert_non_null(W.chans);
	W.out = tx_chan("out");
	W.ch[0] = tx_chan("a");
	W.ch[1] = tx_chan("b");
	W.ch[2] = tx_chan("c");
	snprintf(name, sizeof(name), "dpl%d", seq);
	W.locals = fc_locals_create(name, 16, 16, SOCKET_ID_ANY);
	assert_non_null(W.locals);

	eng_stack_test_params(&sp, 256, 256, conntrack, 64);
	sp.eng.max_readers = 1;
	sp.eng.socket_id = SOCKET_ID_ANY;
	sp.eng.default_channel = CHAN_ID_DEFAULT;
	sp.eng.channel_fn = eng_channel_fn;
	sp.eng.cb_arg = W.chans;
	sp.locals = W.locals;
	W.eng = eng_stack_test_create(&sp, "dpt");
	assert_int_equal(rule_engine_reader_register(W.eng, 0), 0);

	snprintf(name, sizeof(name), "dpu%d", seq++);
	W.up = rte_ring_create(name, upcall_ring, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(W.up);

	for (unsigned int p = 0; p < DP_MAX_PORTS; p++) {
		W.def_chan[p] = W.out;
		W.port_chan[p] = DP_CHAN_NONE;
	}
	W.rx.eng = W.eng;
	W.rx.tab4 = rule_engine_table(W.eng, FC_AF_INET4);
	W.rx.tab6 = rule_engine_table(W.eng, FC_AF_INET6);
	W.rx.nat = eng_stack_nat(W.eng);
	W.rx.ct_fast = mod_ct_module_fast(eng_stack_ct(W.eng));
	W.rx.locals = W.locals;
	W.rx.chans = W.chans;
	W.rx.def_chan = W.def_chan;
	W.rx.port_chan = W.port_chan;
	W.rx.frag_mode = DP_FRAG_UPCALL;
	W.rx.non_ip_mode = DP_NONIP_PASS;
	W.slow = W.rx;
	W.rx.upcall = W.up;
	W.rx.reader_id = 0;
	W.rx.producer_id = 0;
	W.slow.producer_id = 1;
}

void
load(const char *text)
{
	eng_stack_load(W.eng, text, false);
}

int
teardown(void **state)
{
	(void)state;
	if (W.eng != NULL) {
		rule_engine_reader_unregister(W.eng, 0);
		eng_stack_free(W.eng);
	}
	if (W.up != NULL) {
		struct rte_mbuf *m;

		while (rte_ring_dequeue(W.up, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(W.up);
	}
	chan_table_free(W.chans);
	fc_locals_free(W.locals);
	rte_free(W.rx.done);
	rte_free(W.rx.pend);
	memset(&W, 0, sizeof(W));
	if (rte_mempool_avail_count(pool) != POOL_SIZE) {
		fprintf(stderr, "mempool not whole after the test: %u of %u free\n",
			rte_mempool_avail_count(pool), POOL_SIZE);
		return -1;
	}
	return 0;
}

unsigned int
pool_in_use(void)
{
	return POOL_SIZE - rte_mempool_avail_count(pool);
}

/* An mbuf holding @p len bytes of @p frame. */
struct rte_mbuf *
mbuf_of(const uint8_t *frame, int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_true(len > 0);
	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(p);
	memcpy(p, frame, (size_t)len);
	m->port = IN_PORT;
	return m;
}

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return ntohl(a.s_addr);
}

/* TCP sequence and acknowledgment numbers of the next segment pkt4()/pkt6() build. */
static uint32_t next_seq = 1000, next_ack = 2000;

void
tcp_numbers(uint32_t seq, uint32_t ack)
{
	next_seq = seq;
	next_ack = ack;
}

/* IPv4 TCP (flags) or UDP (flags 0xff) packet; 4 payload bytes carry @p tag. */
struct rte_mbuf *
pkt4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t flags, uint32_t tag)
{
	struct pb_ipv4 ip = {.src = ip4(src), .dst = ip4(dst)};
	uint8_t buf[256];
	uint8_t pl[8] = {(uint8_t)(tag >> 24), (uint8_t)(tag >> 16), (uint8_t)(tag >> 8),
		(uint8_t)tag, 1, 2, 3, 4};
	struct pb b;

	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	if (proto == PB_PROTO_TCP)
		pb_tcp(&b, sport, dport, flags, next_seq, next_ack, 0);
	else
		pb_udp(&b, sport, dport);
	pb_payload(&b, pl, sizeof(pl));
	return mbuf_of(buf, pb_finish(&b));
}

struct rte_mbuf *
tcp4(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint8_t flags,
	uint32_t tag)
{
	return pkt4(PB_PROTO_TCP, src, sport, dst, dport, flags, tag);
}

struct rte_mbuf *
udp4(const char *src, uint16_t sport, const char *dst, uint16_t dport, uint32_t tag)
{
	return pkt4(PB_PROTO_UDP, src, sport, dst, dport, 0, tag);
}

struct rte_mbuf *
pkt6(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t flags, uint32_t tag)
{
	struct pb_ipv6 ip;
	uint8_t buf[256];
	uint8_t pl[8] = {(uint8_t)(tag >> 24), (uint8_t)(tag >> 16), (uint8_t)(tag >> 8),
		(uint8_t)tag, 5, 6, 7, 8};
	struct pb b;

	memset(&ip, 0, sizeof(ip));
	assert_int_equal(inet_pton(AF_INET6, src, ip.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, ip.dst), 1);
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv6(&b, &ip);
	if (proto == PB_PROTO_TCP)
		pb_tcp(&b, sport, dport, flags, next_seq, next_ack, 0);
	else
		pb_udp(&b, sport, dport);
	pb_payload(&b, pl, sizeof(pl));
	return mbuf_of(buf, pb_finish(&b));
}

/* The tag pkt4()/pkt6() put in the payload (the last 8 bytes). */
uint32_t
tag_of(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->pkt_len - 8);

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Run one RX burst of @p n packets received on @p port. */
unsigned int
rx_on(uint16_t port, struct rte_mbuf **m, unsigned int n)
{
	unsigned int r = dp_rx_burst(&W.rx, port, m, n, NOW);

	rule_engine_quiescent(W.eng, 0);
	return r;
}

/* Run one RX burst of @p n packets. */
unsigned int
rx(struct rte_mbuf **m, unsigned int n)
{
	return rx_on(IN_PORT, m, n);
}

unsigned int
rx1(struct rte_mbuf *m)
{
	return rx(&m, 1);
}

/* The RX context keeps per-connection order: a pending table and a completion counter. */
void
world_pending(void)
{
	W.rx.done = rte_zmalloc(NULL, sizeof(*W.rx.done), RTE_CACHE_LINE_SIZE);
	assert_non_null(W.rx.done);
	W.rx.pend = dp_pending_init(rte_zmalloc(NULL, dp_pending_memsize(128, 8), 64), 128, 8);
	assert_non_null(W.rx.pend);
	W.rx.pend_wait = true;
}

/*
 * The slow path: everything on the upcall ring through dp_upcall_burst(),
 * then the completions counted back to the RX context (with world_pending()).
 */
unsigned int
slow(void)
{
	struct rte_mbuf *m[DP_BURST_MAX];
	unsigned int n, nt = 0, done;

	if (dp_held(&W.slow) != 0 && dp_hold_retry(&W.slow) != 0)
		return 0;
	n = rte_ring_sc_dequeue_burst(W.up, (void **)m, DP_BURST_MAX, NULL);
	for (unsigned int i = 0; i < n; i++)
		nt = dp_done_collect(m[i], nt);
	done = dp_upcall_burst(&W.slow, m, n, NOW);
	if (W.rx.done != NULL)
		dp_upcall_done(&W.slow, W.rx.done, nt);
	else
		assert_int_equal(nt, 0);
	return done;
}

/* Take what channel @p ch holds (at most @p max). */
unsigned int
take(uint16_t ch, struct rte_mbuf **m, unsigned int max)
{
	return chan_dequeue_burst(W.chans, ch, m, max);
}

/* Take exactly one packet from @p ch (a failure names the caller's line). */
struct rte_mbuf *
take1_at(uint16_t ch, int line)
{
	struct rte_mbuf *m[4];
	unsigned int n = take(ch, m, 4);

	if (n != 1)
		fail_msg("line %d: %u packets in channel %u, expected 1", line, n, ch);
	return m[0];
}

/* The one upcalled packet's meta data (the packet stays on the ring). */
struct dp_meta
peek_upcall(void)
{
	struct rte_mbuf *m = NULL;
	struct dp_meta meta;

	assert_int_equal(rte_ring_count(W.up), 1);
	assert_int_equal(rte_ring_dequeue(W.up, (void **)&m), 0);
	meta = *dp_meta(m);
	assert_int_equal(rte_ring_enqueue(W.up, m), 0);
	return meta;
}

uint64_t
sum_drops(const struct dp_stats *s)
{
	uint64_t n = 0;

	for (unsigned int d = 0; d < DP_DROP__COUNT; d++)
		n += s->drops[d];
	for (unsigned int d = 0; d < RULE_DROP__COUNT; d++)
		n += s->rule_drops[d];
	for (unsigned int d = 0; d < FC_PARSE__COUNT; d++)
		n += s->parse_drops[d];
	return n;
}

/*
 * Accounting: every packet the RX context got is delivered, upcalled,
 * dropped, held, waiting or kept for the next poll; every packet the slow
 * context got is delivered or dropped.
 */
void
check_accounting(void)
{
	assert_int_equal(W.rx.st.rx,
		W.rx.st.fwd_pkts + W.rx.st.upcalls + sum_drops(&W.rx.st) + dp_held(&W.rx) +
			W.rx.st.waiting + W.rx.st.kept);
	assert_int_equal(W.slow.st.slow_pkts,
		W.slow.st.fwd_pkts + sum_drops(&W.slow.st) + dp_held(&W.slow));
}

const struct fc_entry *
first_packet(struct rte_mbuf *m, unsigned int delivered)
{
	struct fc_key k = key_of(m);
	const struct fc_entry *e;

	rx1(m);
	assert_int_equal(slow(), delivered);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	return e;
}

void
check_rule_counters(uint32_t rule_id, uint64_t packets, uint64_t bytes)
{
	uint64_t p, b;

	assert_int_equal(rule_engine_rule_counters(W.eng, rule_id, &p, &b), 0);
	if (p != packets || (bytes != 0 && b != bytes))
		fail_msg("rule %u: %llu packets %llu bytes, want %llu (%llu)", rule_id,
			(unsigned long long)p, (unsigned long long)b, (unsigned long long)packets,
			(unsigned long long)bytes);
}

void
check_pred_and_meter(const char *rules)
{
	struct rule_engine_stats st;
	const struct fc_entry *e;
	struct rte_mbuf *o[8];

	world_up(false, 64);
	load(rules);
	e = first_packet(udp4("10.0.0.1", 1111, "10.9.0.2", 53, 1), 1);
	assert_int_equal(e->act.verdict, FC_VERDICT_SLOW);
	rule_engine_stats_get(W.eng, &st);
	assert_true(st.pred_per_packet >= 1);
	rx1(udp4("10.0.0.1", 1111, "10.9.0.2", 53, DP_BAD));
	assert_int_equal(W.rx.st.upcalls, 2);
	assert_int_equal(slow(), 0);
	check_rule_counters(1, 1, 0);
	check_rule_counters(2, 1, 0);
	assert_int_equal(take(W.out, o, 8), 1);
	rte_pktmbuf_free_bulk(o, 1);
	check_accounting();
}

/* The entry of a key (family of @p k), or NULL. */
const struct fc_entry *
entry_of(const struct fc_key *k, uint32_t *idx)
{
	struct fc_table *t = rule_engine_table(W.eng, k->family);
	const void *kp = k->family == FC_AF_INET4 ? (const void *)&k->v4 : (const void *)&k->v6;
	int i = fc_table_lookup(t, kp, fc_table_hash(t, kp));

	if (i < 0)
		return NULL;
	if (idx != NULL)
		*idx = (uint32_t)i;
	return fc_table_entry(t, (uint32_t)i);
}

/* The key the parser makes of @p m (local bits 0: no local addresses here). */
struct fc_key
key_of(const struct rte_mbuf *m)
{
	struct fc_pkt p;

	assert_int_equal(fc_parse_mbuf(m, &p), FC_PARSE_OK);
	return p.key;
}

struct fc_key
handshake4(const char *cli, uint16_t cport, const char *srv, uint16_t sport)
{
	struct rte_mbuf *m;
	struct fc_key k;

	tcp_numbers(100, 0);
	m = tcp4(cli, cport, srv, sport, PB_TCP_SYN, 1);
	k = key_of(m);
	rx1(m);
	slow();
	tcp_numbers(500, 109);
	rx1(tcp4(srv, sport, cli, cport, PB_TCP_SYN | PB_TCP_ACK, 2));
	slow();
	tcp_numbers(109, 509);
	rx1(tcp4(cli, cport, srv, sport, PB_TCP_ACK, 3));
	slow();
	return k;
}

/* ------------------------------------------------------------ checksums */

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Verify every checksum of an Ethernet + IPv4/IPv6 + TCP/UDP frame: the
 * one's complement sum over each checksummed area (pseudo header included)
 * must be 0xffff.
 */
void
check_csums(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	const uint8_t *l3 = f + 14;
	const uint8_t *l4;
	uint32_t l4len;
	uint8_t proto;

	if (get16(f + 12) == PB_ETH_IPV4) {
		uint32_t ihl = (uint32_t)(l3[0] & 0x0f) * 4;

		assert_true(csum_ref_ip4_ok(l3));
		proto = l3[9];
		l4 = l3 + ihl;
		l4len = get16(l3 + 2) - ihl;
	} else {
		assert_int_equal(get16(f + 12), PB_ETH_IPV6);
		proto = l3[6];
		l4 = l3 + 40;
		l4len = get16(l3 + 4);
	}
	assert_true(l4 + l4len <= f + len);
	if (proto == PB_PROTO_SCTP) {
		/* CRC32c over the whole packet, its field as 0, stored LSB first */
		uint8_t copy[2048];
		uint32_t crc;

		assert_true(l4len >= 12 && l4len <= sizeof(copy));
		memcpy(copy, l4, l4len);
		memset(copy + 8, 0, 4);
		crc = pb_crc32c(copy, l4len);
		assert_int_equal(l4[8] | l4[9] << 8 | l4[10] << 16 | (uint32_t)l4[11] << 24, crc);
		return;
	}
	assert_true(proto == PB_PROTO_TCP || proto == PB_PROTO_UDP);
	if (proto == PB_PROTO_UDP)
		assert_int_not_equal(get16(l4 + 6), 0);
	assert_true(csum_ref_l4_ok(l3));
}

/* Addresses and ports of a delivered frame, as text and host order. */
static void
tuple_of(const struct rte_mbuf *m, char *src, char *dst, uint16_t *sport, uint16_t *dport)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *l3 = f + 14, *l4;

	if (get16(f + 12) == PB_ETH_IPV4) {
		inet_ntop(AF_INET, l3 + 12, src, INET6_ADDRSTRLEN);
		inet_ntop(AF_INET, l3 + 16, dst, INET6_ADDRSTRLEN);
		l4 = l3 + (l3[0] & 0x0f) * 4;
	} else {
		inet_ntop(AF_INET6, l3 + 8, src, INET6_ADDRSTRLEN);
		inet_ntop(AF_INET6, l3 + 24, dst, INET6_ADDRSTRLEN);
		l4 = l3 + 40;
	}
	*sport = get16(l4);
	*dport = get16(l4 + 2);
}

void
expect_tuple(const struct rte_mbuf *m, const char *src, uint16_t sport, const char *dst,
	uint16_t dport)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	uint16_t sp, dp;

	tuple_of(m, s, d, &sp, &dp);
	assert_string_equal(s, src);
	assert_string_equal(d, dst);
	assert_int_equal(sp, sport);
	assert_int_equal(dp, dport);
	check_csums(m);
}

int
dp_world_main(const char *name, const struct CMUnitTest *tests, size_t n_tests,
	int (*group_setup)(void **), int (*group_teardown)(void **))
{
	return gufc_test_pool_main(name, "0", &pool, POOL_SIZE, DP_MBUF_PRIV_SIZE, tests, n_tests,
		group_setup, group_teardown);
}
