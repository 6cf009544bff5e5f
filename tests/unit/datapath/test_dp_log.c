/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of packet programs through the datapath (dp_rx_burst(),
 * dp_upcall_burst()): a LOG rule's records for every packet of a cached
 * flow with no upcall after the first (the entry runs its program on the
 * fast path), a "-m limit" before LOG taking its tokens per packet on the
 * fast path, a full log ring losing records but not packets (counted,
 * per rule), LOG before a DROP logging the cached drop's packets, and the
 * rewrites (DSCP in mangle, TTL) applied to every packet of a cached flow
 * with their checksums, the next rules seeing the value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "csum_ref.h"
#include "dp_pktact.h"
#include "dp_world.h"


static struct rte_mempool *log_pool;
static struct rte_ring *log_ring;
static uint32_t want_mark; /* the mark records() expects (MARK= of the line) */

/* The world, plus a log ring of @p slots - 1 records for both contexts. */
static void
log_world(unsigned int slots)
{
	static int n;
	char name[32];

	world_up(false, 64);
	snprintf(name, sizeof(name), "dplog%d", n++);
	log_ring = rte_ring_create(name, slots, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_non_null(log_ring);
	W.rx.log_ring = W.slow.log_ring = log_ring;
	W.rx.log_pool = W.slow.log_pool = log_pool;
}

/* Take the log records; @return how many, checking each is rule @p rule's with @p prefix. */
static unsigned int
records(uint32_t rule, const char *prefix)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(log_ring, (void **)&m) == 0) {
		const struct dp_logrec *r = dp_logrec(m);

		assert_int_equal(r->spec.rule_id, rule);
		assert_string_equal(r->spec.prefix, prefix);
		assert_int_equal(r->spec.kind, RULE_PKTOP_LOG);
		assert_int_equal(r->l3_off, 14);
		assert_int_equal(r->in_port, IN_PORT);
		assert_int_equal(r->mark, want_mark);
		assert_true(rte_pktmbuf_pkt_len(m) == r->wire_len);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

static int
log_teardown(void **state)
{
	struct rte_mbuf *m;

	while (log_ring != NULL && rte_ring_dequeue(log_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(log_ring);
	log_ring = NULL;
	want_mark = 0;
	return teardown(state);
}

/* Every packet that reaches LOG is logged; after the first, on the fast path. */
static void
test_log_cached(void **state)
{
	struct rte_mbuf *m[6], *o[8];
	const struct fc_entry *e;
	struct fc_key k;

	(void)state;
	log_world(64);
	load("log log_prefix \"dns: \" proto udp dport 53\naccept proto udp\ndrop\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	k = key_of(m[0]);
	e = first_packet(m[0], 1);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_equal(e->act.verdict, FC_VERDICT_ACCEPT);
	for (unsigned int i = 0; i < 6; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 6), 6);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.log_queued, 6);
	assert_int_equal(W.slow.st.log_queued, 1);
	assert_int_equal(records(1, "dns: "), 7);
	assert_int_equal(take(W.out, o, 8), 7);
	rte_pktmbuf_free_bulk(o, 7);
	/* Another port's flow is not logged: no program on its entry. */
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 54, 9);
	k = key_of(m[0]);
	rx1(m[0]);
	assert_int_equal(slow(), 1);
	e = entry_of(&k, NULL);
	assert_false(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_equal(records(1, ""), 0);
	assert_int_equal(take(W.out, o, 8), 1);
	rte_pktmbuf_free_bulk(o, 1);
	check_accounting();
}

/* The packet's mark when LOG ran goes with each record (the line's MARK=), cached or not. */
static void
test_log_mark(void **state)
{
	struct rte_mbuf *m[4], *o[8];

	(void)state;
	log_world(64);
	load("table mangle\nchain P hook prerouting\nmark set_mark 0x2a proto udp\n"
	     "chain F hook forward\nlog log_prefix \"mk \" proto udp\n"
	     "mark set_mark 0x7 proto udp\n"
	     "table filter\naccept proto udp\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	rx1(m[0]);
	assert_int_equal(slow(), 1);
	for (unsigned int i = 0; i < 3; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 3), 3);
	want_mark = 0x2a; /* set before the LOG rule; the one after it is not seen */
	assert_int_equal(records(2, "mk "), 4);
	assert_int_equal(take(W.out, o, 8), 4);
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/*
 * A LOG rule after the destination NAT logs the packet with its
 * destination translated, its source as it came (SNAT comes after every
 * rule), as Linux; one before it (mangle PREROUTING) the packet as it
 * came; the copies' checksums verify. First packet and cached ones.
 */
static void
test_log_dnat_view(void **state)
{
	struct rte_mbuf *m[3], *o[8], *r;
	unsigned int n = 0;

	(void)state;
	log_world(64);
	load("dnat to 10.9.0.7:5353 proto udp dport 53\n"
	     "snat to 203.0.113.1 proto udp\n"
	     "log log_prefix \"fwd \" proto udp\n"
	     "accept proto udp\n"
	     "table mangle\nchain P hook prerouting\nlog log_prefix \"pre \" proto udp\n"
	     "chain O hook postrouting\nlog log_prefix \"post \" proto udp\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	rx1(m[0]);
	assert_int_equal(slow(), 1);
	for (unsigned int i = 0; i < 2; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 2), 2);
	while (rte_ring_dequeue(log_ring, (void **)&r) == 0) {
		const struct dp_logrec *rec = dp_logrec(r);
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(r, const uint8_t *, rec->l3_off);
		const uint8_t *l4 = l3 + 20;
		bool pre = strcmp(rec->spec.prefix, "pre ") == 0;
		static const uint8_t src[4] = {10, 0, 0, 1}, orig[4] = {10, 9, 0, 3},
				     xlat[4] = {10, 9, 0, 7};
		uint32_t ulen = (uint32_t)(l4[4] << 8 | l4[5]);

		assert_memory_equal(l3 + 12, src, 4);
		assert_memory_equal(l3 + 16, pre ? orig : xlat, 4);
		assert_int_equal(l4[0] << 8 | l4[1], 1111);
		assert_int_equal(l4[2] << 8 | l4[3], pre ? 53 : 5353);
		assert_true(csum_ref_ip4_ok(l3));
		assert_int_equal(
			csum_ref_fold(csum_ref_add(csum_ref_pseudo(l3, 17, ulen), l4, ulen)),
			0xffff);
		rte_pktmbuf_free(r);
		n++;
	}
	assert_int_equal(n, 9); /* three packets, three rules */
	/* What left: both translated (SNAT too). */
	assert_int_equal(take(W.out, o, 8), 3);
	for (unsigned int i = 0; i < 3; i++) {
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(o[i], const uint8_t *, 14);
		static const uint8_t snat[4] = {203, 0, 113, 1};

		assert_memory_equal(l3 + 12, snat, 4);
	}
	rte_pktmbuf_free_bulk(o, 3);
	check_accounting();
}

/* "-m limit" before LOG: the fast path takes the tokens; the verdict does not change. */
static void
test_log_limit(void **state)
{
	struct rte_mbuf *m[8], *o[16];
	const struct fc_entry *e;
	const struct rule_pktprog *p;

	(void)state;
	log_world(64);
	load("log log_prefix \"lim \" proto udp limit 1/hour limit_burst 3\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	e = first_packet(m[0], 1); /* token 1 */
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	p = rule_engine_pktprog(W.eng, e->act.pkt_class);
	assert_int_not_equal(p->meter, 0);
	assert_int_equal(p->flip, 0);
	assert_int_equal(p->n[0], 1);
	assert_int_equal(p->n[1], 0);
	for (unsigned int i = 0; i < 8; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 8), 8); /* all accepted */
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(records(1, "lim "), 3); /* the bucket's three tokens */
	assert_int_equal(take(W.out, o, 16), 9);
	rte_pktmbuf_free_bulk(o, 9);
	check_accounting();
}

/* A full ring loses records, counted, never packets. */
static void
test_log_full(void **state)
{
	struct rte_mbuf *m[10], *o[16];
	uint64_t dropped = 0;
	struct rule_logspec sp;

	(void)state;
	log_world(4); /* 3 records fit */
	load("log log_prefix \"x\" proto udp\naccept\n");
	for (unsigned int i = 0; i < 10; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1 + i);
	rx1(m[0]);
	assert_int_equal(slow(), 1);
	assert_int_equal(rx(m + 1, 9), 9);
	assert_int_equal(W.slow.st.log_queued + W.rx.st.log_queued, 3);
	assert_int_equal(W.slow.st.log_dropped + W.rx.st.log_dropped, 7);
	assert_int_equal(rule_engine_logspec_get(W.eng, 0, &sp, &dropped), 0);
	assert_int_equal(dropped, 7);
	assert_int_equal(sp.rule_id, 1);
	assert_int_equal(rule_engine_logspec_get(W.eng, 1, &sp, NULL), -ENOENT);
	assert_int_equal(records(1, "x"), 3);
	assert_int_equal(take(W.out, o, 16), 10);
	rte_pktmbuf_free_bulk(o, 10);
	check_accounting();
}

/* LOG then DROP: the cached drop's packets are logged too. */
static void
test_log_drop(void **state)
{
	struct rte_mbuf *m[4];
	const struct fc_entry *e;

	(void)state;
	log_world(64);
	load("log log_prefix \"bad \" proto udp dport 23\ndrop proto udp dport 23\naccept\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 23, 1);
	e = first_packet(m[0], 0);
	assert_int_equal(e->act.verdict, FC_VERDICT_DROP);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	for (unsigned int i = 0; i < 4; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 23, 2 + i);
	assert_int_equal(rx(m, 4), 0);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rule_drops[RULE_DROP_FILTER], 4);
	assert_int_equal(records(1, "bad "), 5);
	check_accounting();
}

/* DSCP in mangle PREROUTING and TTL in mangle FORWARD: every packet, checksums right. */
static void
test_rewrite(void **state)
{
	struct rte_mbuf *m[4], *o[8];
	const struct fc_entry *e;

	(void)state;
	log_world(64);
	load("table mangle\nchain P hook prerouting\ndscp set_dscp 0x2e proto udp\n"
	     "chain F hook forward\nttl ttl_set 9 ipv4 proto udp\n"
	     "table filter\naccept proto udp\ndrop\n");
	m[0] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	e = first_packet(m[0], 1);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	for (unsigned int i = 0; i < 3; i++)
		m[i] = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 2 + i);
	assert_int_equal(rx(m, 3), 3);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.rewritten, 3);
	assert_int_equal(take(W.out, o, 8), 4);
	for (unsigned int i = 0; i < 4; i++) {
		const uint8_t *ip = rte_pktmbuf_mtod_offset(o[i], const uint8_t *, 14);

		assert_int_equal(ip[1] >> 2, 0x2e);
		assert_int_equal(ip[8], 9);
		check_csums(o[i]);
	}
	rte_pktmbuf_free_bulk(o, 4);
	check_accounting();
}

/*
 * Take the records of the log ring: @p ttl[i] receives the TTL of the one
 * with prefix @p pfx[i] (-1: none), each copy's IP checksum checked.
 */
static void
ttl_records(const char *const pfx[2], int ttl[2])
{
	struct rte_mbuf *r;

	ttl[0] = ttl[1] = -1;
	while (rte_ring_dequeue(log_ring, (void **)&r) == 0) {
		const struct dp_logrec *rec = dp_logrec(r);
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(r, const uint8_t *, rec->l3_off);

		for (unsigned int i = 0; i < 2; i++)
			if (strcmp(rec->spec.prefix, pfx[i]) == 0)
				ttl[i] = l3[8];
		assert_true(csum_ref_ip4_ok(l3));
		rte_pktmbuf_free(r);
	}
}

/*
 * LOG at FORWARD (and POSTROUTING) logs a router's forwarded packet with
 * the TTL one less, as a Linux router's (IN=in OUT=out ... TTL=8 for a
 * packet sent with 9, checked in a namespace); PREROUTING's as it came;
 * bridge mode takes nothing off; a packet that expires at the router's
 * decrement (TTL 1) never reaches FORWARD: no line for it there. A TTL
 * rewrite in mangle PREROUTING before them comes first.
 */
static void
test_log_ttl_routed(void **state)
{
	static const char *const pfx[2] = {"pre ", "fwd "};
	struct rte_mbuf *m, *o[4];
	const struct rule_pktprog *prog;
	const struct fc_entry *e;
	struct fc_pkt pkt;
	uint8_t res;
	struct fc_key k;
	int ttl[2];
	uint8_t sent;

	(void)state;
	log_world(64);
	load("table mangle\nchain P hook prerouting\nlog log_prefix \"pre \" proto udp\n"
	     "chain F hook forward\nlog log_prefix \"fwd \" proto udp\n"
	     "table filter\naccept proto udp\n");
	m = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 1);
	k = key_of(m);
	sent = rte_pktmbuf_mtod_offset(m, const uint8_t *, 14)[8];
	rx1(m);
	assert_int_equal(slow(), 1);
	/* Bridge mode: no decrement anywhere. */
	ttl_records(pfx, ttl);
	assert_int_equal(ttl[0], sent);
	assert_int_equal(ttl[1], sent);
	assert_int_equal(take(W.out, o, 4), 1);
	rte_pktmbuf_free_bulk(o, 1);
	e = entry_of(&k, NULL);
	assert_non_null(e);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	prog = rule_engine_pktprog(W.eng, e->act.pkt_class);
	/* A router: FORWARD's line has one less, PREROUTING's the TTL as it came. */
	W.rx.router = 1;
	for (unsigned int t = 3; t > 0; t--) {
		uint8_t *ip;
		uint16_t ck;

		m = udp4("10.0.0.1", 1111, "10.9.0.3", 53, 10 + t);
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
		ip[8] = (uint8_t)t;
		ip[10] = ip[11] = 0;
		ck = (uint16_t)~csum_ref_fold(csum_ref_add(0, ip, 20));
		ip[10] = (uint8_t)(ck >> 8);
		ip[11] = (uint8_t)ck;
		assert_int_equal(fc_parse_burst(&m, 1, &pkt, &res), 1);
		dp_pkt_log(&W.rx, m, &pkt, prog, 0, IN_PORT, 1, RULE_NAT_NONE);
		ttl_records(pfx, ttl);
		assert_int_equal(ttl[0], t);
		/* TTL 1 expires at the decrement: Linux answers time exceeded, no FORWARD. */
		assert_int_equal(ttl[1], t > 1 ? (int)t - 1 : -1);
		rte_pktmbuf_free(m);
	}
	W.rx.router = 0;
	check_accounting();
}

/* The log records' own pool, for every test of the group. */
static int
log_pool_up(void **state)
{
	(void)state;
	log_pool = rte_pktmbuf_pool_create("dp_log", 255, 0, DP_LOG_PRIV_SIZE,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (log_pool == NULL) {
		fprintf(stderr, "log mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int
log_pool_down(void **state)
{
	(void)state;
	rte_mempool_free(log_pool);
	log_pool = NULL;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_log_cached, log_teardown),
		cmocka_unit_test_teardown(test_log_mark, log_teardown),
		cmocka_unit_test_teardown(test_log_dnat_view, log_teardown),
		cmocka_unit_test_teardown(test_log_limit, log_teardown),
		cmocka_unit_test_teardown(test_log_full, log_teardown),
		cmocka_unit_test_teardown(test_log_drop, log_teardown),
		cmocka_unit_test_teardown(test_rewrite, log_teardown),
		cmocka_unit_test_teardown(test_log_ttl_routed, log_teardown),
	};

	return DP_WORLD_MAIN("dp_log", tests, log_pool_up, log_pool_down);
}
