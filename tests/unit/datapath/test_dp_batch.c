/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of upcalls kept for one ring enqueue (struct dp_ctx::up_batch):
 * kept upcalls reach the ring in their order once up_batch of them are
 * kept, after DP_UPSTASH_BURSTS bursts, or at dp_upcall_flush(); while kept
 * they count pending (their connection's next packets wait behind them);
 * the room a burst may use is the ring's less what is kept, and what does
 * not fit is dropped at once (upcall_full), as without the batching.
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

#include "dp_world.h"

/* check_accounting() with the kept upcalls, which are in none of its terms yet. */
static void
check_accounting_kept(void)
{
	assert_int_equal(W.rx.st.up_stashed, dp_upcall_stashed(&W.rx));
	assert_int_equal(W.rx.st.rx, W.rx.st.fwd_pkts + W.rx.st.upcalls + sum_drops(&W.rx.st) +
					     W.rx.st.waiting + dp_upcall_stashed(&W.rx));
}

static struct rte_mbuf *
flow(unsigned int i, uint32_t tag)
{
	char a[32];

	snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
	return udp4(a, 1000, "10.9.0.1", 53, tag);
}

/*
 * up_batch 4: three new flows in three bursts are kept (nothing on the
 * ring, each counted pending; a second packet of the first waits behind
 * it); the fourth makes four: all four on the ring in their order, and
 * the slow path's completions let the waiting packet go after its flow's first.
 */
static void
test_batch_count(void **state)
{
	struct rte_mbuf *m = NULL, *m2[2], *o[8];

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	W.rx.up_batch = 4;
	/* Flow 0; then flow 1 with flow 0's second packet, which waits. */
	assert_int_equal(rx1(flow(0, 0)), 0);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 1);
	assert_int_equal(W.rx.pend->n, 1);
	check_accounting_kept();
	m2[0] = flow(1, 1);
	m2[1] = flow(0, 10);
	assert_int_equal(rx(m2, 2), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 2);
	assert_int_equal(W.rx.pend->n, 2);
	check_accounting_kept();
	/* Flows 2 and 3 make four. */
	m2[0] = flow(2, 2);
	m2[1] = flow(3, 3);
	assert_int_equal(rx(m2, 2), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 0);
	assert_int_equal(W.rx.st.up_stashed, 0);
	assert_int_equal(rte_ring_count(W.up), 4);
	assert_int_equal(W.rx.st.upcalls, 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(rte_ring_dequeue(W.up, (void **)&m), 0);
		assert_int_equal(tag_of(m), i);
		assert_int_equal(rte_ring_enqueue(W.up, m), 0);
	}
	assert_int_equal(slow(), 4);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 4);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(W.rx.pend->n, 0);
	assert_int_equal(take(W.out, o, 8), 5);
	{
		static const uint32_t want[] = {0, 1, 2, 3, 10};

		for (unsigned int i = 0; i < 5; i++)
			assert_int_equal(tag_of(o[i]), want[i]);
	}
	rte_pktmbuf_free_bulk(o, 5);
	check_accounting();
}

/*
 * One upcall kept goes on the ring after DP_UPSTASH_BURSTS bursts (here
 * bursts of hits), or at once at dp_upcall_flush().
 */
static void
test_batch_bursts(void **state)
{
	struct rte_mbuf *o[8];
	unsigned int n;

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	assert_int_equal(rx1(flow(0, 0)), 0); /* flow 0's entry, unbatched */
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	W.rx.up_batch = 16;
	assert_int_equal(rx1(flow(1, 1)), 0);
	for (unsigned int b = 1; b < DP_UPSTASH_BURSTS; b++) {
		assert_int_equal(rte_ring_count(W.up), 0);
		assert_int_equal(dp_upcall_stashed(&W.rx), 1);
		assert_int_equal(rx1(flow(0, 10 + b)), 1); /* a hit */
	}
	assert_int_equal(rte_ring_count(W.up), 1);
	assert_int_equal(dp_upcall_stashed(&W.rx), 0);
	/* At the caller's word. */
	assert_int_equal(rx1(flow(2, 2)), 0);
	assert_int_equal(rte_ring_count(W.up), 1);
	dp_upcall_flush(&W.rx);
	assert_int_equal(rte_ring_count(W.up), 2);
	dp_upcall_flush(&W.rx); /* nothing kept: nothing happens */
	assert_int_equal(rte_ring_count(W.up), 2);
	assert_int_equal(slow(), 2);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 2);
	n = take(W.out, o, 8);
	assert_int_equal(n, 1 + (DP_UPSTASH_BURSTS - 1) + 2);
	rte_pktmbuf_free_bulk(o, n);
	assert_int_equal(pool_in_use(), 0);
	check_accounting();
}

/*
 * A ring of 4 (room for 3): a burst of five new flows keeps three and
 * drops two (upcall_full) before anything is counted pending; the next
 * burst finds no room beside the three kept (the ring read again) and
 * drops its two; the three go on the ring at the flush.
 */
static void
test_batch_room(void **state)
{
	struct rte_mbuf *m[5];

	(void)state;
	world_up(false, 4);
	world_pending();
	load("accept\n");
	W.rx.up_batch = 16;
	for (unsigned int i = 0; i < 5; i++)
		m[i] = flow(i, i);
	assert_int_equal(rx(m, 5), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 3);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 2);
	assert_int_equal(W.rx.pend->n, 3);
	check_accounting_kept();
	for (unsigned int i = 0; i < 2; i++)
		m[i] = flow(10 + i, 10 + i);
	assert_int_equal(rx(m, 2), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 3);
	assert_int_equal(W.rx.st.drops[DP_DROP_UPCALL_FULL], 4);
	assert_int_equal(W.rx.pend->n, 3);
	check_accounting_kept();
	dp_upcall_flush(&W.rx);
	assert_int_equal(rte_ring_count(W.up), 3);
	assert_int_equal(W.rx.st.upcalls, 3);
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

/* Lossless contexts never keep upcalls (their hold keeps the order). */
static void
test_batch_lossless_off(void **state)
{
	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	W.rx.lossless = true;
	W.rx.up_batch = 16;
	assert_int_equal(rx1(flow(0, 0)), 0);
	assert_int_equal(dp_upcall_stashed(&W.rx), 0);
	assert_int_equal(rte_ring_count(W.up), 1);
	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	{
		struct rte_mbuf *o[2];

		assert_int_equal(take(W.out, o, 2), 1);
		rte_pktmbuf_free(o[0]);
	}
	check_accounting();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_batch_count, teardown),
		cmocka_unit_test_teardown(test_batch_bursts, teardown),
		cmocka_unit_test_teardown(test_batch_room, teardown),
		cmocka_unit_test_teardown(test_batch_lossless_off, teardown),
	};

	return DP_WORLD_MAIN("dp_batch", tests, NULL, NULL);
}
