/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the completion counter (struct dp_done): the slow path
 * says how many of an RX context's counted upcalls it has finished, the
 * context's own FIFO says whose they were. A count that covers only the
 * oldest upcalls releases only their connections' waiting packets, in
 * order; a context with more counted upcalls in flight than its FIFO holds
 * sends the rest up uncounted (pend->full) and stays exact. Lossless, a
 * full channel's hold keeps each connection's order across the two
 * contexts: the slow path's completions wait for its held decisions to be
 * delivered, an RX burst's upcalls for its held hits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dp_world.h"

/* The slow path, taking at most @p k upcalls off the ring; @return taken. */
static unsigned int
slow_k(unsigned int k)
{
	struct rte_mbuf *m[DP_BURST_MAX];
	unsigned int n, nt = 0;

	n = rte_ring_sc_dequeue_burst(W.up, (void **)m, k, NULL);
	for (unsigned int i = 0; i < n; i++)
		nt = dp_done_collect(m[i], nt);
	dp_upcall_burst(&W.slow, m, n, NOW);
	dp_upcall_done(&W.slow, W.rx.done, nt);
	return n;
}

/*
 * Three new flows A, B, C go up, a packet of each waits behind its
 * upcall. The slow path finishes A's alone: the count moves by one, A's
 * packet goes (a hit), B's and C's still wait; then B's and C's.
 */
static void
test_done_oldest_first(void **state)
{
	struct rte_mbuf *m[3], *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	for (unsigned int i = 0; i < 3; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, i);
	}
	assert_int_equal(rx(m, 3), 0);
	for (unsigned int i = 0; i < 3; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, 3 + i);
	}
	assert_int_equal(rx(m, 3), 0);
	assert_int_equal(W.rx.st.upcalls, 3);
	assert_int_equal(W.rx.st.waiting, 3);
	assert_int_equal(W.rx.pend->n, 3);
	/* Nothing done yet: nothing moves. */
	assert_int_equal(dp_done_poll(&W.rx, NOW), 0);
	assert_int_equal(W.rx.st.waiting, 3);
	assert_int_equal(slow_k(1), 1);
	assert_int_equal(W.rx.done->n, 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 2);
	assert_int_equal(W.rx.pend->n, 2);
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(take(W.out, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 0);
	assert_int_equal(tag_of(o[1]), 3);
	rte_pktmbuf_free_bulk(o, 2);
	/* A count read again releases nothing more. */
	assert_int_equal(dp_done_poll(&W.rx, NOW), 0);
	assert_int_equal(W.rx.st.waiting, 2);
	assert_int_equal(slow_k(8), 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->fifo_head, W.rx.pend->fifo_tail);
	assert_int_equal(W.rx.st.hits, 3);
	assert_int_equal(take(W.out, o, 8), 4);
	{
		static const uint32_t want[] = { 1, 2, 4, 5 };

		for (unsigned int i = 0; i < 4; i++)
			assert_int_equal(tag_of(o[i]), want[i]);
	}
	rte_pktmbuf_free_bulk(o, 4);
	assert_int_equal(W.rx.pend->full, 0);
	check_accounting();
}

/*
 * A waiting packet's second pass takes the parse and connection of its
 * first (kept in its meta data) rather than parsing its frame again: a
 * UDP destination port overwritten while it waits is not read. Parsed
 * again, it would miss the flow's entry and go up a second time.
 */
static void
test_done_waited_keeps_parse(void **state)
{
	struct rte_mbuf *w, *o[4];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0)), 0);
	w = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 1);
	assert_int_equal(rx1(w), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	/* The low byte of its UDP dport (Ethernet 14 + IPv4 20 + 2): 53 -> 52. */
	rte_pktmbuf_mtod_offset(w, uint8_t *, 37)[0] ^= 1;
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.st.upcalls, 1);
	assert_int_equal(W.rx.st.hits, 1);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(take(W.out, o, 4), 2);
	assert_int_equal(tag_of(o[0]), 0);
	assert_int_equal(tag_of(o[1]), 1);
	rte_pktmbuf_free_bulk(o, 2);
	check_accounting();
}

/*
 * The smallest table's FIFO holds DP_BURST_MAX (64) counted upcalls. 80
 * packets of one connection going up behind each other (a context that
 * does not wait): 64 are counted, 16 go up uncounted (full), in ring order
 * all the same; the 64 completions empty the table.
 */
static void
test_done_fifo_full(void **state)
{
	struct rte_mbuf *m[20], *o[96];

	(void)state;
	world_up(false, 128);
	world_pending();
	rte_free(W.rx.pend);
	W.rx.pend = dp_pending_init(rte_zmalloc(NULL, dp_pending_memsize(0, 0), 64), 0, 0);
	assert_non_null(W.rx.pend);
	assert_int_equal(W.rx.pend->fifo_mask, DP_BURST_MAX - 1);
	W.rx.pend_wait = false;
	load("accept\n");
	for (unsigned int b = 0; b < 4; b++) {
		for (unsigned int i = 0; i < 20; i++)
			m[i] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, b * 20 + i);
		assert_int_equal(rx(m, 20), 0);
	}
	assert_int_equal(W.rx.st.upcalls, 80);
	assert_int_equal(W.rx.pend->full, 16);
	assert_int_equal(W.rx.st.upcall_uncounted, 16);
	assert_int_equal(W.rx.pend->fifo_tail - W.rx.pend->fifo_head, DP_BURST_MAX);
	assert_int_equal(W.rx.pend->n, 1);
	assert_int_equal(slow_k(40), 40);
	assert_int_equal(slow_k(40), 40);
	assert_int_equal(W.rx.done->n, 64);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 64);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(W.rx.pend->fifo_head, W.rx.pend->fifo_tail);
	assert_int_equal(take(W.out, o, 96), 80);
	for (unsigned int i = 0; i < 80; i++)
		assert_int_equal(tag_of(o[i]), i);
	rte_pktmbuf_free_bulk(o, 80);
	check_accounting();
}

/*
 * A lossless world, both contexts, with channel "tiny" (3 packets) for
 * everything (the caller adds world_pending()).
 */
static uint16_t
world_tiny(bool conntrack)
{
	struct chan_params cp = {.name = "tiny", .kind = CHAN_CONS_TX, .ring_size = 4};
	int tiny;

	world_up(conntrack, 64);
	W.rx.lossless = true;
	W.slow.lossless = true;
	tiny = chan_create(W.chans, &cp);
	assert_true(tiny > 0);
	load("accept channel tiny\n");
	return (uint16_t)tiny;
}

/*
 * Flow A's first packet is decided while the channel is full: the slow
 * path holds it, and A's upcall is not done until it is delivered. The
 * channel's consumer makes room; A's next packet, received then, must
 * not take the fast path ahead of the held one (it waits, or, @p wait
 * false, goes up behind it). Before, the completion was posted with the
 * decision held, and A's second packet left first.
 */
static void
done_after_hold(bool wait)
{
	struct rte_mbuf *m[3], *o[8];
	uint16_t tiny = world_tiny(false);

	world_pending();
	W.rx.pend_wait = wait;
	/* Flows B, C, D fill the channel. */
	for (unsigned int i = 0; i < 3; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.%u", i + 2);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, i);
	}
	assert_int_equal(rx(m, 3), 0);
	assert_int_equal(slow(), 3);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 3);
	assert_int_equal(W.rx.pend->n, 0);
	/* A's first packet: decided, held, not done. */
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 10)), 0);
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_held(&W.slow), 1);
	assert_int_equal(W.rx.done->n, 3);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 0);
	assert_int_equal(W.rx.pend->n, 1);
	assert_int_equal(take(tiny, o, 8), 3);
	rte_pktmbuf_free_bulk(o, 3);
	/* A's second packet follows the first. */
	assert_int_equal(rx1(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 11)), 0);
	for (unsigned int k = 0; k < 4; k++) {
		slow();
		dp_done_poll(&W.rx, NOW);
	}
	assert_int_equal(dp_held(&W.slow), 0);
	assert_int_equal(W.slow.owed, 0);
	assert_int_equal(W.rx.done->n, 4 + !wait);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(take(tiny, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 10);
	assert_int_equal(tag_of(o[1]), 11);
	rte_pktmbuf_free_bulk(o, 2);
	assert_int_equal(sum_drops(&W.rx.st) + sum_drops(&W.slow.st), 0);
	check_accounting();
}

static void
test_done_after_hold_wait(void **state)
{
	(void)state;
	done_after_hold(true);
}

static void
test_done_after_hold_behind(void **state)
{
	(void)state;
	done_after_hold(false);
}

/*
 * An RX burst of an established connection: data (a hit, which the full
 * channel holds on the RX context), then the server's RST (conntrack's:
 * it goes up). The RST waits on the RX context behind the held data: had
 * it gone up, the slow path, taking it as soon as the consumer made room,
 * would have delivered it before the RX context's retry delivered the
 * data (as it did before).
 */
static void
test_upcall_behind_held_hit(void **state)
{
	struct rte_mbuf *m[2], *o[8];
	uint16_t tiny = world_tiny(true);
	uint64_t hits, interest;

	(void)state;
	handshake4("10.0.0.1", 40000, "10.9.0.3", 80);
	assert_int_equal(take(tiny, o, 8), 3);
	rte_pktmbuf_free_bulk(o, 3);
	/* Three data segments (fast): the channel is full. */
	for (unsigned int i = 0; i < 3; i++) {
		tcp_numbers(109 + 8 * i, 509);
		rx1(tcp4("10.0.0.1", 40000, "10.9.0.3", 80, PB_TCP_ACK | PB_TCP_PSH, 4 + i));
		slow();
	}
	world_pending();
	tcp_numbers(133, 509);
	m[0] = tcp4("10.0.0.1", 40000, "10.9.0.3", 80, PB_TCP_ACK | PB_TCP_PSH, 7);
	tcp_numbers(509, 0);
	m[1] = tcp4("10.9.0.3", 80, "10.0.0.1", 40000, PB_TCP_RST, 8);
	interest = W.rx.st.upcall_interest;
	hits = W.rx.st.hits;
	assert_int_equal(rx(m, 2), 1); /* (held, for delivery) */
	assert_int_equal(W.rx.st.hits, hits + 2);
	assert_int_equal(W.rx.st.upcall_interest, interest + 1);
	assert_int_equal(W.rx.hold.n_out, 1);
	assert_int_equal(W.rx.hold.n_up, 1);
	assert_int_equal(rte_ring_count(W.up), 0);
	/* The consumer makes room; the slow path runs first, then the RX retry. */
	assert_int_equal(take(tiny, o, 8), 3);
	rte_pktmbuf_free_bulk(o, 3);
	assert_int_equal(slow(), 0);
	assert_int_equal(dp_hold_retry(&W.rx), 0);
	assert_int_equal(slow(), 1);
	dp_done_poll(&W.rx, NOW);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(take(tiny, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 7);
	assert_int_equal(tag_of(o[1]), 8);
	rte_pktmbuf_free_bulk(o, 2);
	assert_int_equal(sum_drops(&W.rx.st) + sum_drops(&W.slow.st), 0);
	check_accounting();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_done_oldest_first, teardown),
		cmocka_unit_test_teardown(test_done_fifo_full, teardown),
		cmocka_unit_test_teardown(test_done_waited_keeps_parse, teardown),
		cmocka_unit_test_teardown(test_done_after_hold_wait, teardown),
		cmocka_unit_test_teardown(test_done_after_hold_behind, teardown),
		cmocka_unit_test_teardown(test_upcall_behind_held_hit, teardown),
	};

	return DP_WORLD_MAIN("dp_done", tests, NULL, NULL);
}
