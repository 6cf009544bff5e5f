/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the burst kept one poll (dp_rx_burst_ahead(), struct
 * dp_ctx::rx_ahead): a burst is applied by the next call, after that
 * burst's parse, or by dp_rx_flush() when the next poll receives nothing;
 * bursts leave in the order they came, a burst given to dp_rx_burst()
 * goes after the one kept, packets that waited for their connection's
 * upcall (dp_done_poll()) go before it, and a kept burst's marked packets
 * take step 0 when it is applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "dp_world.h"

/* One burst through dp_rx_burst_ahead(), as an RX lcore's poll gives it. */
static unsigned int
rx_ahead(struct rte_mbuf **m, unsigned int n)
{
	unsigned int r = dp_rx_burst_ahead(&W.rx, IN_PORT, m, n, NOW);

	rule_engine_quiescent(W.eng, 0);
	return r;
}

/* The flows 10.0.0.1..@p nf:1000 -> 10.9.0.1:53 cached (each one packet, slow path). */
static void
cache_flows(unsigned int nf)
{
	struct rte_mbuf *m[8], *o[8];
	char a[32];

	for (unsigned int i = 0; i < nf; i++) {
		snprintf(a, sizeof(a), "10.0.0.%u", i + 1);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, 900 + i);
	}
	assert_int_equal(rx(m, nf), 0);
	slow();
	assert_int_equal(take(W.out, o, 8), nf);
	rte_pktmbuf_free_bulk(o, nf);
}

/* Burst of @p n packets of the cached flows, tags @p tag0 on. */
static void
burst_of(struct rte_mbuf **m, unsigned int n, unsigned int nf, uint32_t tag0)
{
	char a[32];

	for (unsigned int i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "10.0.0.%u", i % nf + 1);
		m[i] = udp4(a, 1000, "10.9.0.1", 53, tag0 + i);
	}
}

/* Take @p n packets from the output channel and check their tags are @p tag0 on. */
static void
expect_out(unsigned int n, uint32_t tag0)
{
	struct rte_mbuf *o[DP_BURST_MAX];

	assert_int_equal(take(W.out, o, DP_BURST_MAX), n);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(tag_of(o[i]), tag0 + i);
	if (n != 0)
		rte_pktmbuf_free_bulk(o, n);
}

/*
 * A burst is kept until the next: nothing of it leaves, its packets are
 * counted received and kept; the next call applies it (all hits, in
 * order) and keeps its own; a flush applies that one, counted kept_idle;
 * a flush with nothing kept does nothing.
 */
static void
test_ahead_kept_then_flushed(void **state)
{
	struct rte_mbuf *m[8];
	uint64_t rx0, hits0;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	W.rx.rx_ahead = true;
	cache_flows(4);
	rx0 = W.rx.st.rx;
	hits0 = W.rx.st.hits;

	burst_of(m, 8, 4, 0);
	assert_int_equal(rx_ahead(m, 8), 0);
	assert_int_equal(dp_rx_kept(&W.rx), 8);
	assert_int_equal(W.rx.st.kept, 8);
	assert_int_equal(W.rx.st.rx, rx0 + 8);
	assert_int_equal(W.rx.st.hits, hits0);
	expect_out(0, 0);

	burst_of(m, 6, 4, 8);
	assert_int_equal(rx_ahead(m, 6), 8);
	assert_int_equal(W.rx.st.hits, hits0 + 8);
	assert_int_equal(dp_rx_kept(&W.rx), 6);
	assert_int_equal(W.rx.st.kept, 6);
	expect_out(8, 0);

	assert_int_equal(dp_rx_flush(&W.rx), 6);
	assert_int_equal(dp_rx_kept(&W.rx), 0);
	assert_int_equal(W.rx.st.kept, 0);
	assert_int_equal(W.rx.st.kept_idle, 1);
	assert_int_equal(W.rx.st.hits, hits0 + 14);
	expect_out(6, 8);

	assert_int_equal(dp_rx_flush(&W.rx), 0);
	assert_int_equal(W.rx.st.kept_idle, 1);
	/* An empty burst flushes too (nothing kept: nothing counted). */
	assert_int_equal(rx_ahead(m, 0), 0);
	assert_int_equal(W.rx.st.kept_idle, 1);
	check_accounting();
}

/* A burst given to dp_rx_burst() leaves after the burst kept before it. */
static void
test_ahead_then_burst(void **state)
{
	struct rte_mbuf *m[8];

	(void)state;
	world_up(false, 64);
	load("accept\n");
	W.rx.rx_ahead = true;
	cache_flows(2);
	burst_of(m, 4, 2, 0);
	assert_int_equal(rx_ahead(m, 4), 0);
	burst_of(m, 3, 2, 4);
	assert_int_equal(rx(m, 3), 3);
	assert_int_equal(dp_rx_kept(&W.rx), 0);
	expect_out(7, 0);
	/* Not rx_ahead: dp_rx_burst_ahead() is dp_rx_burst(). */
	W.rx.rx_ahead = false;
	burst_of(m, 2, 2, 7);
	assert_int_equal(rx_ahead(m, 2), 2);
	assert_int_equal(dp_rx_kept(&W.rx), 0);
	expect_out(2, 7);
	check_accounting();
}

/*
 * A new flow X and the packets behind it, one burst a poll: X0 (a miss)
 * goes up when its burst is applied, by the next one's call; X1, applied
 * by the third call while X0's upcall is in flight, waits for it; the
 * third burst (X2) is kept. The slow path finishes X0 and the context's
 * dp_done_poll() lets X1 go: before X2, which a flush applies (a hit).
 * Out: X0, X1, X2.
 */
static void
test_ahead_behind_upcall(void **state)
{
	struct rte_mbuf *m;

	(void)state;
	world_up(false, 64);
	world_pending();
	load("accept\n");
	W.rx.rx_ahead = true;

	m = udp4("10.0.0.7", 1000, "10.9.0.1", 53, 0);
	assert_int_equal(rx_ahead(&m, 1), 0);
	assert_int_equal(W.rx.st.upcalls, 0);
	m = udp4("10.0.0.7", 1000, "10.9.0.1", 53, 1);
	assert_int_equal(rx_ahead(&m, 1), 0);
	assert_int_equal(W.rx.st.misses, 1);
	assert_int_equal(W.rx.st.upcalls, 1);
	m = udp4("10.0.0.7", 1000, "10.9.0.1", 53, 2);
	assert_int_equal(rx_ahead(&m, 1), 0);
	assert_int_equal(W.rx.st.waiting, 1);
	assert_int_equal(dp_rx_kept(&W.rx), 1);

	assert_int_equal(slow(), 1);
	assert_int_equal(dp_done_poll(&W.rx, NOW), 1);
	assert_int_equal(W.rx.st.waiting, 0);
	assert_int_equal(dp_rx_kept(&W.rx), 1);
	assert_int_equal(dp_rx_flush(&W.rx), 1);
	assert_int_equal(W.rx.st.hits, 2);
	expect_out(3, 0);
	assert_int_equal(W.rx.pend->n, 0);
	check_accounting();
}

/* Mark @p m as the NIC would (RTE_MBUF_F_RX_FDIR_ID). */
static void
mark(struct rte_mbuf *m, uint32_t v)
{
	m->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	m->hash.fdir.hi = v;
}

/*
 * A kept burst with a marked packet among unmarked ones: step 0 runs when
 * it is applied (nothing counted before), the marked packet is taken on
 * its mark, the others take the software path, all behind the burst
 * before.
 */
static void
test_ahead_marked(void **state)
{
	struct dp_marks mk = {.cap = {256, 256}};
	struct rte_mbuf *m[4], *o[4];
	const struct fc_entry *e;
	struct fc_key k;
	uint32_t idx, good;

	(void)state;
	world_up(false, 64);
	load("accept\n");
	cache_flows(1);
	m[0] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 0);
	k = key_of(m[0]);
	rte_pktmbuf_free(m[0]);
	e = entry_of(&k, &idx);
	assert_non_null(e);
	good = dp_mark_make(0, idx, 7);
	assert_int_equal(fc_table_mark_tag_set(W.rx.tab4, idx, dp_mark_tag(good)), 0);
	mk.tab[0] = W.rx.tab4;
	mk.tab[1] = W.rx.tab6;
	W.rx.marks = &mk;
	W.rx.rx_ahead = true;

	burst_of(m, 2, 1, 0);
	assert_int_equal(rx_ahead(m, 2), 0);
	burst_of(m, 3, 1, 2);
	mark(m[1], good);
	assert_int_equal(rx_ahead(m, 3), 2);
	assert_int_equal(W.rx.st.hw_classified, 0);
	expect_out(2, 0);
	assert_int_equal(dp_rx_flush(&W.rx), 3);
	assert_int_equal(W.rx.st.hw_classified, 1);
	assert_int_equal(W.rx.st.hw_fallback, 0);
	/* Step 0's packet first, then the software path's, as in a burst
	 * applied at once (dp_rx_burst()). */
	assert_int_equal(take(W.out, o, 4), 3);
	assert_int_equal(tag_of(o[0]), 3);
	assert_int_equal(tag_of(o[1]), 2);
	assert_int_equal(tag_of(o[2]), 4);
	rte_pktmbuf_free_bulk(o, 3);
	W.rx.marks = NULL;
	check_accounting();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ahead_kept_then_flushed, teardown),
		cmocka_unit_test_teardown(test_ahead_then_burst, teardown),
		cmocka_unit_test_teardown(test_ahead_behind_upcall, teardown),
		cmocka_unit_test_teardown(test_ahead_marked, teardown),
	};

	return DP_WORLD_MAIN("dp_ahead", tests, NULL, NULL);
}
