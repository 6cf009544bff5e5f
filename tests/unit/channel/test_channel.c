/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/channel: the table and its default channel, named
 * channels (create, delete, lookup, iterate, bad parameters), the fast-path
 * enqueue with ring-full drops, the discard, pcap and TX consumers (TX
 * dequeue; chan_tx_poll and chan_consume_all sending on a net_ring port,
 * with tx_full), direct TX (a producer's own TX queue: enqueued, consumed
 * and sent at once), the per-flow ring pool, the attach/receive/detach consumer API (in the primary
 * process), takeover of an attachment left by a dead process, table
 * teardown with packets still queued, the formatting helpers, a random
 * operation mix checked against the accounting invariant, and two producers
 * on two lcores.
 *
 * Every test leaves its table in the global `tbl`; the teardown frees it and
 * fails the test unless the mempool is whole again, so a leaked or
 * double-freed mbuf anywhere shows up.
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#ifdef GUFC_HAVE_NET_RING
#include <rte_eth_ring.h>
#endif

#ifdef GUFC_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "chan_priv.h" /* white-box: test_stale_consumer marks a descriptor */
#include "channel.h"
#include "eal_test.h"

#define POOL_SIZE 2047u
#define MAX_PKT	  1600u

static struct rte_mempool *pool;
static struct chan_table *tbl;

/* ---------------------------------------------------------------- helpers */

static unsigned int
pool_in_use(void)
{
	return POOL_SIZE - rte_mempool_avail_count(pool);
}

/* Payload of packet @p seed: the seed in the first 4 bytes, then a pattern. */
static void
fill(uint8_t *buf, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
	for (i = 0; i < 4 && i < len; i++)
		buf[i] = (uint8_t)(seed >> (24 - 8 * i));
}

/* A one-segment packet of @p len bytes with payload fill(seed). */
static struct rte_mbuf *
pkt_make(uint32_t len, uint32_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(p);
	fill(p, len, seed);
	return m;
}

/* A two-segment packet with the same bytes as pkt_make(len, seed). */
static struct rte_mbuf *
pkt_make_chained(uint32_t len, uint32_t seed)
{
	uint8_t all[MAX_PKT];
	uint32_t first = len / 3;
	struct rte_mbuf *a = rte_pktmbuf_alloc(pool);
	struct rte_mbuf *b = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_true(len <= MAX_PKT && first > 0);
	assert_non_null(a);
	assert_non_null(b);
	fill(all, len, seed);
	p = (uint8_t *)rte_pktmbuf_append(a, (uint16_t)first);
	assert_non_null(p);
	memcpy(p, all, first);
	p = (uint8_t *)rte_pktmbuf_append(b, (uint16_t)(len - first));
	assert_non_null(p);
	memcpy(p, all + first, len - first);
	assert_int_equal(rte_pktmbuf_chain(a, b), 0);
	assert_int_equal(a->nb_segs, 2);
	assert_int_equal(a->pkt_len, len);
	return a;
}

static void
pkts_make(struct rte_mbuf **m, unsigned int n, uint32_t len, uint32_t seed)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		m[i] = pkt_make(len, seed + i);
}

static int
make_chan(const char *name, enum chan_cons_kind kind, uint32_t ring_size)
{
	struct chan_params p = {.name = name, .kind = kind, .ring_size = ring_size};

	return chan_create(tbl, &p);
}

static struct chan_table *
make_table(uint16_t max_channels, uint16_t pool_size, uint32_t flow_ring)
{
	struct chan_table_params p = {
		.max_channels = max_channels,
		.flow_pool_size = pool_size,
		.flow_ring_size = flow_ring,
		.socket_id = SOCKET_ID_ANY,
	};
	struct chan_table *t = chan_table_create(&p);

	assert_non_null(t);
	return t;
}

static struct chan_stats
stats_of(uint32_t id)
{
	struct chan_stats st;

	assert_int_equal(chan_stats_get(tbl, id, &st), 0);
	return st;
}

static struct chan_totals
totals(void)
{
	struct chan_totals tot;

	assert_int_equal(chan_totals_get(tbl, &tot), 0);
	return tot;
}

#ifdef GUFC_HAVE_PCAP
static void
tmp_path(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/gufc-test-chan-%d-%s.pcap", (int)getpid(), tag);
}
#endif

static int
teardown(void **state)
{
	(void)state;
	chan_table_free(tbl);
	tbl = NULL;
	if (rte_mempool_avail_count(pool) != POOL_SIZE) {
		fprintf(stderr, "mempool not whole after the test: %u of %u free\n",
			rte_mempool_avail_count(pool), POOL_SIZE);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ tests */

static void
test_table_default(void **state)
{
	struct chan_table_params p = {.socket_id = SOCKET_ID_ANY};
	struct chan_info info;
	struct chan_totals tot;

	(void)state;
	tbl = chan_table_create(&p);
	assert_non_null(tbl);
	assert_int_equal(chan_lookup(tbl, CHAN_DEFAULT_NAME), CHAN_ID_DEFAULT);
	assert_int_equal(chan_info_get(tbl, CHAN_ID_DEFAULT, &info), 0);
	assert_string_equal(info.name, "default");
	assert_int_equal(info.kind, CHAN_CONS_DISCARD);
	assert_int_equal(info.ring_size, CHAN_DEFAULT_RING_SIZE);
	assert_false(info.per_flow);
	assert_int_equal(chan_next(tbl, 0), 0);
	assert_int_equal(chan_next(tbl, 1), -ENOENT);
	assert_int_equal(chan_delete(tbl, CHAN_ID_DEFAULT), -EPERM);
	tot = totals();
	assert_int_equal(tot.channels, 1);
	assert_int_equal(tot.flow_channels, 0);

	/* One table per process group. */
	assert_null(chan_table_create(&p));
	assert_int_equal(rte_errno, EEXIST);

	/* The default channel takes the caller's parameters. */
	chan_table_free(tbl);
	p.def.name = "dflt";
	p.def.kind = CHAN_CONS_TX;
	p.def.ring_size = 64;
	p.def.tx_port = 3;
	p.def.tx_queue = 5;
	tbl = chan_table_create(&p);
	assert_non_null(tbl);
	assert_int_equal(chan_lookup(tbl, "dflt"), 0);
	assert_int_equal(chan_lookup(tbl, "default"), -ENOENT);
	assert_int_equal(chan_info_get(tbl, 0, &info), 0);
	assert_int_equal(info.kind, CHAN_CONS_TX);
	assert_int_equal(info.ring_size, 64);
	assert_int_equal(info.tx_port, 3);
	assert_int_equal(info.tx_queue, 5);
	assert_non_null(rte_ring_lookup(CHAN_RING_PREFIX "dflt"));
}

static void
test_create_delete_lookup(void **state)
{
	int ids[8];
	int web, dns, app, dns2, id;
	unsigned int n;
	struct chan_info info;

	(void)state;
	tbl = make_table(8, 0, 0);
	web = make_chan("web", CHAN_CONS_DISCARD, 64);
	dns = make_chan("dns", CHAN_CONS_TX, 0);
	app = make_chan("app", CHAN_CONS_APP, 128);
	assert_int_equal(web, 1);
	assert_int_equal(dns, 2);
	assert_int_equal(app, 3);
	assert_int_equal(chan_lookup(tbl, "web"), web);
	assert_int_equal(chan_lookup(tbl, "dns"), dns);
	assert_int_equal(chan_lookup(tbl, "app"), app);
	assert_int_equal(chan_lookup(tbl, "nope"), -ENOENT);
	assert_int_equal(chan_lookup(tbl, NULL), -EINVAL);
	assert_int_equal(chan_info_get(tbl, (uint16_t)app, &info), 0);
	assert_string_equal(info.name, "app");
	assert_int_equal(info.kind, CHAN_CONS_APP);
	assert_int_equal(info.ring_size, 128);
	assert_int_equal(info.id, app);
	assert_int_equal(chan_info_get(tbl, (uint16_t)dns, &info), 0);
	assert_int_equal(info.ring_size, CHAN_DEFAULT_RING_SIZE);

	/* Rings are findable by name (what a secondary process does). */
	assert_non_null(rte_ring_lookup(CHAN_RING_PREFIX "web"));

	n = 0;
	for (id = chan_next(tbl, 0); id >= 0; id = chan_next(tbl, (unsigned int)id + 1))
		ids[n++] = id;
	assert_int_equal(n, 4);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[3], app);

	assert_int_equal(chan_delete(tbl, (uint16_t)dns), 0);
	assert_int_equal(chan_lookup(tbl, "dns"), -ENOENT);
	assert_int_equal(chan_delete(tbl, (uint16_t)dns), -ENOENT);
	assert_int_equal(chan_info_get(tbl, (uint16_t)dns, &info), -ENOENT);
	{
		struct chan_stats st;

		assert_int_equal(chan_stats_get(tbl, (uint16_t)dns, &st), -ENOENT);
	}
	n = 0;
	for (id = chan_next(tbl, 0); id >= 0; id = chan_next(tbl, (unsigned int)id + 1))
		ids[n++] = id;
	assert_int_equal(n, 3);
	assert_int_equal(ids[1], web);
	assert_int_equal(ids[2], app);

	/* The freed slot and the freed ring name are reusable. */
	dns2 = make_chan("dns2", CHAN_CONS_DISCARD, 0);
	assert_int_equal(dns2, dns);
	assert_int_equal(make_chan("dns", CHAN_CONS_DISCARD, 0), 4);

	assert_int_equal(chan_delete(tbl, (uint16_t)web), 0);
	assert_null(rte_ring_lookup(CHAN_RING_PREFIX "web"));
	assert_int_equal(chan_delete(tbl, 100), -EINVAL);
	assert_int_equal(chan_delete(NULL, 1), -EINVAL);
	assert_int_equal(totals().channels, 4);
}

static void
test_duplicate_name(void **state)
{
	(void)state;
	tbl = make_table(8, 0, 0);
	assert_true(make_chan("web", CHAN_CONS_DISCARD, 0) > 0);
	assert_int_equal(make_chan("web", CHAN_CONS_APP, 0), -EEXIST);
	assert_int_equal(make_chan("default", CHAN_CONS_DISCARD, 0), -EEXIST);
	assert_int_equal(totals().channels, 2);
}

struct bad_case {
	const char *name;
	int kind;
	uint32_t ring_size;
	const char *pcap_path;
	int want; /* 0: success (an id > 0), else the -errno */
};

static void
test_bad_params(void **state)
{
	const struct bad_case cases[] = {
		{NULL, CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"abcdefghijklmnopq", CHAN_CONS_DISCARD, 0, NULL, -EINVAL}, /* 17 */
		{"abcdefghijklmnop", CHAN_CONS_DISCARD, 0, NULL, 0},	    /* 16 */
		{"a b", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"a/b", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"web\n", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"t\tb", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"caf\xc3\xa9", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"x:y", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"web.3", CHAN_CONS_DISCARD, 0, NULL, -EINVAL}, /* per-flow form */
		{"x.0", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"a.b.12", CHAN_CONS_DISCARD, 0, NULL, -EINVAL},
		{"web.3a", CHAN_CONS_DISCARD, 0, NULL, 0},
		{"v1.2-x_Y", CHAN_CONS_DISCARD, 0, NULL, 0},
		{"ok", 99, 0, NULL, -EINVAL},
		{"ok", -1, 0, NULL, -EINVAL},
		{"ok", CHAN_CONS__COUNT, 0, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 1, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 3, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 1000, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 1u << 25, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 0x80000000u, NULL, -EINVAL},
		{"ok", CHAN_CONS_DISCARD, 0xffffffffu, NULL, -EINVAL},
		{"two", CHAN_CONS_DISCARD, 2, NULL, 0},
		{"ok", CHAN_CONS_PCAP, 0, NULL, -EINVAL},
		{"ok", CHAN_CONS_PCAP, 0, "", -EINVAL},
#ifdef GUFC_HAVE_PCAP
		{"ok", CHAN_CONS_PCAP, 0, "/nonexistent-gufc-dir/x.pcap", -ENOENT},
#else
		{"ok", CHAN_CONS_PCAP, 0, "/tmp/x.pcap", -ENOTSUP},
#endif
	};
	struct chan_table_params tp;
	struct chan_params cp;
	unsigned int i;
	int ret;

	(void)state;
	tbl = make_table(CHAN_MAX_CHANNELS, 0, 0);
	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&cp, 0, sizeof(cp));
		cp.name = cases[i].name;
		cp.kind = (enum chan_cons_kind)cases[i].kind;
		cp.ring_size = cases[i].ring_size;
		cp.pcap_path = cases[i].pcap_path;
		ret = chan_create(tbl, &cp);
		if (cases[i].want == 0) {
			if (ret <= 0)
				fail_msg("case %u (%s): got %d, want an id", i, cases[i].name, ret);
			assert_int_equal(chan_delete(tbl, (uint16_t)ret), 0);
		} else if (ret != cases[i].want) {
			fail_msg("case %u (%s): got %d, want %d", i,
				cases[i].name != NULL ? cases[i].name : "NULL", ret, cases[i].want);
		}
	}
	assert_int_equal(chan_create(tbl, NULL), -EINVAL);
	cp.name = "ok";
	cp.kind = CHAN_CONS_DISCARD;
	cp.ring_size = 0;
	assert_int_equal(chan_create(NULL, &cp), -EINVAL);
	assert_int_equal(totals().channels, 1);
	chan_table_free(tbl);

	/* Too many channels: 4 slots, the default channel takes one. */
	tbl = make_table(4, 0, 0);
	assert_int_equal(make_chan("a", CHAN_CONS_DISCARD, 0), 1);
	assert_int_equal(make_chan("b", CHAN_CONS_DISCARD, 0), 2);
	assert_int_equal(make_chan("c", CHAN_CONS_DISCARD, 0), 3);
	assert_int_equal(make_chan("d", CHAN_CONS_DISCARD, 0), -ENOSPC);
	assert_int_equal(chan_delete(tbl, 2), 0);
	assert_int_equal(make_chan("d", CHAN_CONS_DISCARD, 0), 2);
	chan_table_free(tbl);
	tbl = NULL;

	/* Bad table parameters; a failed create leaves nothing behind. */
	assert_null(chan_table_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	for (i = 0; i < 7; i++) {
		memset(&tp, 0, sizeof(tp));
		tp.socket_id = SOCKET_ID_ANY;
		switch (i) {
		case 0:
			tp.max_channels = CHAN_MAX_CHANNELS + 1;
			break;
		case 1:
			tp.flow_pool_size = CHAN_FLOW_POOL_MAX + 1;
			break;
		case 2:
			tp.flow_ring_size = 100;
			break;
		case 3:
			tp.def.ring_size = 3;
			break;
		case 4:
			tp.def.name = "bad name";
			break;
		case 5:
			tp.def.kind = (enum chan_cons_kind)7;
			break;
		case 6:
			tp.def.kind = CHAN_CONS_PCAP;
			break; /* no path */
		}
		assert_null(chan_table_create(&tp));
		if (rte_errno != EINVAL)
			fail_msg("table case %u: rte_errno %d, want EINVAL", i, rte_errno);
	}
	tbl = make_table(0, 4, 0);
	assert_int_equal(totals().flow_pool_size, 4);
}

/*
 * chan_enqueue_burst_hold(): what a full ring does not take stays with the
 * caller, uncounted, and goes in later in order; an app channel without
 * consumer drops as usual (nobody would make room).
 */
static void
test_enqueue_hold(void **state)
{
	struct rte_mbuf *m[8], *o[8];
	struct chan_stats st;
	int id, app;

	(void)state;
	tbl = make_table(8, 0, 0);
	id = make_chan("hold", CHAN_CONS_TX, 4); /* holds 3; port 0 has no direct TX */
	app = make_chan("happ", CHAN_CONS_APP, 4);
	assert_true(id > 0 && app > 0);
	for (unsigned int i = 0; i < 5; i++)
		m[i] = pkt_make(60, i);
	assert_int_equal(chan_enqueue_burst_hold(tbl, (uint16_t)id, 0, m, 5), 3);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.enqueued, 3);
	assert_int_equal(st.drop_full, 0);
	assert_int_equal(st.enq_bytes, 180);
	assert_int_equal(pool_in_use(), 5); /* two still ours */
	assert_int_equal(chan_enqueue_burst_hold(tbl, (uint16_t)id, 0, m + 3, 2), 0);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)id, o, 8), 3);
	assert_int_equal(chan_enqueue_burst_hold(tbl, (uint16_t)id, 0, m + 3, 2), 2);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)id, o + 3, 8), 2);
	for (unsigned int i = 0; i < 5; i++)
		assert_ptr_equal(o[i], m[i]);
	rte_pktmbuf_free_bulk(o, 5);
	assert_int_equal(stats_of((uint16_t)id).drop_full, 0);
	/* App channel, nobody attached: the rest is dropped (and taken). */
	for (unsigned int i = 0; i < 5; i++)
		m[i] = pkt_make(60, i);
	assert_int_equal(chan_enqueue_burst_hold(tbl, (uint16_t)app, 0, m, 5), 5);
	assert_int_equal(stats_of((uint16_t)app).drop_full, 2);
	assert_int_equal(pool_in_use(), 3);
	/* A bad id: everything dropped, counted invalid, all taken. */
	pkts_make(m, 2, 64, 100);
	assert_int_equal(chan_enqueue_burst_hold(tbl, 7, 0, m, 2), 2);
	assert_int_equal(totals().drop_invalid, 2);
	assert_int_equal(chan_flush(tbl, (uint16_t)app), 3);
	assert_int_equal(pool_in_use(), 0);
}

static void
test_enqueue_full(void **state)
{
	struct rte_mbuf *m[24];
	struct chan_stats st;
	struct chan_totals tot;
	uint64_t enq, bytes, drops, want_bytes = 0;
	unsigned int i;
	int id;

	(void)state;
	tbl = make_table(8, 0, 0);
	id = make_chan("small", CHAN_CONS_DISCARD, 16); /* holds 15 */
	assert_true(id > 0);
	for (i = 0; i < 24; i++) {
		m[i] = pkt_make(60 + i, i);
		if (i < 15)
			want_bytes += 60 + i;
	}
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 8), 8);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m + 8, 8), 7);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m + 16, 8), 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m, 0), 0);

	/* Dropped mbufs went back to the pool at once. */
	assert_int_equal(pool_in_use(), 15);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.enqueued, 15);
	assert_int_equal(st.drop_full, 9);
	assert_int_equal(st.in_ring, 15);
	assert_int_equal(st.enq_bytes, want_bytes);
	assert_int_equal(st.ring_size, 16);
	assert_int_equal(st.consumed, 0);
	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 0, &enq, &bytes, &drops), 0);
	assert_int_equal(enq, 8);
	assert_int_equal(drops, 0);
	assert_int_equal(bytes, 60 + 61 + 62 + 63 + 64 + 65 + 66 + 67);
	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 3, &enq, NULL, &drops), 0);
	assert_int_equal(enq, 7);
	assert_int_equal(drops, 9);
	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 1, &enq, NULL, NULL), 0);
	assert_int_equal(enq, 0);
	assert_int_equal(
		chan_producer_stats_get(tbl, (uint16_t)id, CHAN_MAX_PRODUCERS, NULL, NULL, NULL),
		-EINVAL);

	/* The ring is the one named for secondaries, and holds 15. */
	{
		struct rte_ring *r = rte_ring_lookup(CHAN_RING_PREFIX "small");

		assert_non_null(r);
		assert_int_equal(rte_ring_count(r), 15);
	}
	assert_int_equal(chan_drain(tbl, (uint16_t)id, 100), 15);
	assert_int_equal(pool_in_use(), 0);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.consumed, 15);
	assert_int_equal(st.consumed_bytes, want_bytes);
	assert_int_equal(st.in_ring, 0);

	/* Bad channel or producer ids: everything freed, counted invalid. */
	pkts_make(m, 5, 64, 100);
	assert_int_equal(chan_enqueue_burst(tbl, 7, 0, m, 5), 0); /* slot not live */
	pkts_make(m, 3, 64, 200);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, CHAN_MAX_PRODUCERS, m, 3), 0);
	pkts_make(m, 2, 64, 300);
	assert_int_equal(chan_enqueue_burst(tbl, 60000, 0, m, 2), 0);
	assert_int_equal(pool_in_use(), 0);
	tot = totals();
	assert_int_equal(tot.drop_invalid, 10);
	assert_int_equal(tot.enqueued, 15);
	assert_int_equal(tot.drop_full, 9);
	assert_int_equal(tot.consumed, 15);
	assert_int_equal(tot.in_ring, 0);
}

static void
test_discard_drain(void **state)
{
	struct rte_mbuf *m[32];
	struct chan_stats st;
	uint64_t bytes = 0;
	unsigned int i, left = 100;
	int id, tx, app;

	(void)state;
	tbl = make_table(8, 0, 0);
	id = make_chan("sink", CHAN_CONS_DISCARD, 256);
	tx = make_chan("tx", CHAN_CONS_TX, 64);
	app = make_chan("app", CHAN_CONS_APP, 64);
	assert_true(id > 0 && tx > 0 && app > 0);
	for (i = 0; left > 0; i++) {
		unsigned int n = RTE_MIN(left, 32u);

		pkts_make(m, n, 100 + i, i * 32);
		bytes += (uint64_t)n * (100 + i);
		assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, (uint16_t)(i & 1), m, n), n);
		left -= n;
	}
	assert_int_equal(pool_in_use(), 100);
	assert_int_equal(chan_drain(tbl, (uint16_t)id, 30), 30);
	assert_int_equal(stats_of((uint16_t)id).in_ring, 70);
	assert_int_equal(pool_in_use(), 70);

	/* Not drained by chan_drain: TX and APP channels, bad ids. */
	pkts_make(m, 4, 64, 500);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)tx, 0, m, 4), 4);
	pkts_make(m, 3, 64, 600);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)app, 0, m, 3), 3);
	assert_int_equal(chan_drain(tbl, (uint16_t)tx, 100), 0);
	assert_int_equal(chan_drain(tbl, (uint16_t)app, 100), 0);
	assert_int_equal(chan_drain(tbl, 7, 100), 0);
	assert_int_equal(chan_drain(tbl, 9999, 100), 0);
	assert_int_equal(chan_drain(NULL, 1, 100), 0);

	/* A two-segment packet: whole length counted, both segments freed. */
	m[0] = pkt_make_chained(300, 999);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 1), 1);
	bytes += 300;
	assert_int_equal(pool_in_use(), 70 + 7 + 2);

	assert_int_equal(chan_drain_all(tbl, 1000), 71);
	assert_int_equal(chan_drain(tbl, (uint16_t)id, 100), 0);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.enqueued, 101);
	assert_int_equal(st.consumed, 101);
	assert_int_equal(st.consumed_bytes, bytes);
	assert_int_equal(st.enq_bytes, bytes);
	assert_int_equal(st.in_ring, 0);
	assert_int_equal(stats_of((uint16_t)tx).in_ring, 4);
	assert_int_equal(stats_of((uint16_t)app).in_ring, 3);
	assert_int_equal(pool_in_use(), 7);
	assert_int_equal(totals().in_ring, 7);
}

static void
test_tx_channel(void **state)
{
	struct chan_params p = {
		.name = "eth1", .kind = CHAN_CONS_TX, .ring_size = 64, .tx_port = 2, .tx_queue = 7};
	struct rte_mbuf *m[10], *out[32];
	struct chan_info info;
	struct chan_stats st;
	int id, d;

	(void)state;
	tbl = make_table(8, 0, 0);
	id = chan_create(tbl, &p);
	d = make_chan("d", CHAN_CONS_DISCARD, 64);
	assert_true(id > 0 && d > 0);
	assert_int_equal(chan_info_get(tbl, (uint16_t)id, &info), 0);
	assert_int_equal(info.kind, CHAN_CONS_TX);
	assert_int_equal(info.tx_port, 2);
	assert_int_equal(info.tx_queue, 7);

	pkts_make(m, 10, 80, 1);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 1, m, 10), 10);
	assert_int_equal(chan_drain(tbl, (uint16_t)id, 100), 0);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)id, out, 4), 4);
	assert_memory_equal(out, m, 4 * sizeof(m[0]));
	rte_pktmbuf_free_bulk(out, 4);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)id, out, 32), 6);
	assert_memory_equal(out, m + 4, 6 * sizeof(m[0]));
	rte_pktmbuf_free_bulk(out, 6);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)id, out, 32), 0);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.consumed, 10);
	assert_int_equal(st.consumed_bytes, 800);

	/* Only TX channels are dequeued this way. */
	pkts_make(m, 2, 80, 50);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)d, 0, m, 2), 2);
	assert_int_equal(chan_dequeue_burst(tbl, (uint16_t)d, out, 32), 0);
	assert_int_equal(chan_dequeue_burst(tbl, 6, out, 32), 0);

	/* Deleting a TX channel flushes what the application did not take. */
	pkts_make(m, 3, 80, 60);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 1, m, 3), 3);
	assert_int_equal(chan_delete(tbl, (uint16_t)id), 0);
	assert_int_equal(totals().flushed, 3);
	assert_int_equal(totals().consumed, 10);
	assert_int_equal(pool_in_use(), 2);
}

#ifdef GUFC_HAVE_NET_RING
/*
 * A net_ring port with two TX queues whose rings the tests read: TXQ_SLOTS
 * slots each (TXQ_SLOTS - 1 packets fit, then the queue refuses).
 */
#define TXQ_SLOTS 16u
static struct rte_ring *txr[2];
static uint16_t txport;

static void
txport_init(void)
{
	static struct rte_ring *rxr;
	struct rte_eth_conf conf;
	int rc;

	if (rxr != NULL)
		return;
	rxr = rte_ring_create("chan_t_rx", TXQ_SLOTS, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	txr[0] = rte_ring_create("chan_t_tx0", TXQ_SLOTS, SOCKET_ID_ANY, RING_F_SC_DEQ);
	txr[1] = rte_ring_create("chan_t_tx1", TXQ_SLOTS, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_true(rxr != NULL && txr[0] != NULL && txr[1] != NULL);
	rc = rte_eth_from_rings("chan_t_port", &rxr, 1, txr, 2, SOCKET_ID_ANY);
	assert_true(rc >= 0);
	txport = (uint16_t)rc;
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(txport, 1, 2, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(txport, 0, TXQ_SLOTS, SOCKET_ID_ANY, NULL, pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(txport, 0, TXQ_SLOTS, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_tx_queue_setup(txport, 1, TXQ_SLOTS, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(txport), 0);
}

/* What TX queue @p q sent: up to @p max packets, in order (the caller frees them). */
static unsigned int
txq_take(unsigned int q, struct rte_mbuf **out, unsigned int max)
{
	return rte_ring_sc_dequeue_burst(txr[q], (void **)out, max, NULL);
}

static void
txq_free(unsigned int q)
{
	struct rte_mbuf *m[TXQ_SLOTS];
	unsigned int n = txq_take(q, m, TXQ_SLOTS);

	rte_pktmbuf_free_bulk(m, n);
}

/* The TX consumer: dequeue, send on the channel's queue, count what the queue refused. */
static void
test_tx_poll(void **state)
{
	struct rte_mbuf *m[20], *out[TXQ_SLOTS];
	struct chan_params p = {.name = "eth", .kind = CHAN_CONS_TX, .ring_size = 64};
	struct chan_stats st;
	struct chan_totals tot;
	int id, d;

	(void)state;
	txport_init();
	tbl = make_table(8, 0, 0);
	p.tx_port = txport;
	p.tx_queue = 1;
	id = chan_create(tbl, &p);
	d = make_chan("d", CHAN_CONS_DISCARD, 64);
	assert_true(id > 0 && d > 0);

	pkts_make(m, 10, 100, 1);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 10), 10);
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)d, 64), 0); /* not a TX channel */
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)id, 4), 4);
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)id, 64), 6);
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)id, 64), 0);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	assert_int_equal(txq_take(1, out, TXQ_SLOTS), 10);
	assert_memory_equal(out, m, 10 * sizeof(m[0]));
	rte_pktmbuf_free_bulk(out, 10);

	/* 20 more: the queue takes 15, 5 are refused and freed. */
	pkts_make(m, 20, 100, 100);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 20), 20);
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)id, 64), 20);
	assert_int_equal(pool_in_use(), TXQ_SLOTS - 1);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.enqueued, 30);
	assert_int_equal(st.consumed, 30);
	assert_int_equal(st.consumed_bytes, 3000);
	assert_int_equal(st.tx_sent, 25);
	assert_int_equal(st.tx_full, 5);
	txq_free(1);

	/* chan_consume_all: TX and DISCARD channels in one pass. */
	pkts_make(m, 3, 100, 200);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 3), 3);
	pkts_make(m, 4, 100, 300);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)d, 0, m, 4), 4);
	assert_int_equal(chan_consume_all(tbl, 2, 64), 6);
	assert_int_equal(chan_consume_all(tbl, 2, 64), 1);
	assert_int_equal(txq_take(1, out, TXQ_SLOTS), 3);
	rte_pktmbuf_free_bulk(out, 3);
	tot = totals();
	assert_int_equal(tot.tx_sent, 28);
	assert_int_equal(tot.tx_full, 5);
	assert_int_equal(tot.drops[CHAN_DROP_TX_FULL], 5);
	assert_int_equal(tot.consumed, 37);
	assert_int_equal(pool_in_use(), 0);

	/* Deleted, its counters stay in the totals. */
	assert_int_equal(chan_delete(tbl, (uint16_t)id), 0);
	tot = totals();
	assert_int_equal(tot.tx_sent, 28);
	assert_int_equal(tot.tx_full, 5);
}

/*
 * The consumers' passes look at named slots up to the highest live one:
 * that bound follows creates (into freed slots below it and new ones above)
 * and deletes (of the highest and of one below), and nothing live is missed.
 */
static void
test_consume_live_slots(void **state)
{
	struct rte_mbuf *m[8];
	int c[6], low, high;

	(void)state;
	tbl = make_table(16, 0, 0);
	for (unsigned int i = 1; i <= 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "d%u", i);
		c[i] = make_chan(name, CHAN_CONS_DISCARD, 64);
		assert_int_equal(c[i], (int)i);
	}
	/* The highest goes, then one below: its packets still drain once. */
	assert_int_equal(chan_delete(tbl, (uint32_t)c[5]), 0);
	pkts_make(m, 2, 64, 10);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)c[4], 0, m, 2), 2);
	assert_int_equal(chan_consume_all(tbl, 32, 64), 2);
	assert_int_equal(chan_delete(tbl, (uint32_t)c[3]), 0);
	assert_int_equal(chan_delete(tbl, (uint32_t)c[4]), 0);
	/* Into the freed slot 3, then 4, then above the old end. */
	low = make_chan("low", CHAN_CONS_DISCARD, 64);
	assert_int_equal(low, 3);
	assert_int_equal(make_chan("mid", CHAN_CONS_DISCARD, 64), 4);
	assert_int_equal(make_chan("top", CHAN_CONS_DISCARD, 64), 5);
	high = make_chan("high", CHAN_CONS_DISCARD, 64);
	assert_int_equal(high, 6);
	pkts_make(m, 3, 64, 20);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)low, 0, m, 3), 3);
	pkts_make(m, 4, 64, 30);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)high, 1, m, 4), 4);
	assert_int_equal(chan_consume_all(tbl, 32, 64), 7);
	assert_int_equal(chan_drain_all(tbl, 64), 0);
	assert_int_equal(pool_in_use(), 0);
	assert_int_equal(stats_of((uint16_t)high).consumed, 4);
	/* Everything above the default deleted: the default still drains. */
	for (int id = 1; id <= high; id++)
		assert_int_equal(chan_delete(tbl, (uint32_t)id), 0);
	pkts_make(m, 1, 64, 40);
	assert_int_equal(chan_enqueue_burst(tbl, CHAN_ID_DEFAULT, 0, m, 1), 1);
	assert_int_equal(chan_drain_all(tbl, 64), 1);
	assert_int_equal(pool_in_use(), 0);
}

/* Direct TX: a producer with a TX queue of its own is the TX channel's consumer. */
static void
test_tx_direct(void **state)
{
	struct rte_mbuf *m[20], *out[TXQ_SLOTS];
	struct chan_params p = {.name = "eth", .kind = CHAN_CONS_TX, .ring_size = 64};
	uint64_t enq, bytes, full;
	struct chan_stats st;
	struct chan_totals tot;
	int id, d, pf;

	(void)state;
	txport_init();
	tbl = make_table(8, 2, 16);
	p.tx_port = txport;
	p.tx_queue = 1;
	id = chan_create(tbl, &p);
	d = make_chan("d", CHAN_CONS_DISCARD, 64);
	assert_true(id > 0 && d > 0);

	assert_int_equal(chan_producer_txq_set(NULL, 3, txport, 0), -EINVAL);
	assert_int_equal(chan_producer_txq_set(tbl, CHAN_MAX_PRODUCERS, txport, 0), -EINVAL);
	assert_int_equal(chan_producer_txq_set(tbl, 3, CHAN_MAX_TX_PORTS, 0), -EINVAL);
	assert_int_equal(chan_producer_txq_set(tbl, 3, txport, -2), -EINVAL);
	assert_int_equal(chan_producer_txq_set(tbl, 3, txport, 0), 0);

	/* Producer 3 sends on its queue 0 at once; producer 2 goes through the ring. */
	pkts_make(m, 6, 100, 1);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m, 6), 6);
	assert_int_equal(txq_take(0, out, TXQ_SLOTS), 6);
	assert_memory_equal(out, m, 6 * sizeof(m[0]));
	rte_pktmbuf_free_bulk(out, 6);
	pkts_make(m, 2, 100, 10);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 2, m, 2), 2);
	st = stats_of((uint16_t)id);
	assert_int_equal(st.in_ring, 2);
	assert_int_equal(st.enqueued, 8);
	assert_int_equal(st.consumed, 6);
	assert_int_equal(st.consumed_bytes, 600);
	assert_int_equal(st.tx_sent, 6);
	assert_int_equal(st.tx_full, 0);
	assert_int_equal(chan_tx_poll(tbl, (uint16_t)id, 64), 2); /* the ring's, on queue 1 */
	assert_int_equal(txq_take(1, out, TXQ_SLOTS), 2);
	rte_pktmbuf_free_bulk(out, 2);

	/* Other kinds are never transmitted directly. */
	pkts_make(m, 2, 100, 20);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)d, 3, m, 2), 2);
	assert_int_equal(stats_of((uint16_t)d).in_ring, 2);
	assert_int_equal(rte_ring_count(txr[0]), 0);

	/* A full queue: 15 taken, 5 refused (freed, tx_full), all 20 consumed. */
	pkts_make(m, 20, 100, 30);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m, 20), TXQ_SLOTS - 1);
	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 3, &enq, &bytes, &full), 0);
	assert_int_equal(enq, 26);
	assert_int_equal(bytes, 2600);
	assert_int_equal(full, 0); /* not a ring-full drop */
	st = stats_of((uint16_t)id);
	assert_int_equal(st.consumed, 28);
	assert_int_equal(st.tx_sent, 6 + 2 + TXQ_SLOTS - 1);
	assert_int_equal(st.tx_full, 5);
	txq_free(0);

	/* A per-flow TX channel inherits the port: direct too. */
	pf = chan_flow_alloc(tbl, (uint16_t)id);
	assert_true(pf > 0);
	pkts_make(m, 3, 100, 60);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)pf, 3, m, 3), 3);
	assert_int_equal(txq_take(0, out, TXQ_SLOTS), 3);
	rte_pktmbuf_free_bulk(out, 3);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)pf), 0);

	/* Taken back: the ring path again. */
	assert_int_equal(chan_producer_txq_set(tbl, 3, txport, -1), 0);
	pkts_make(m, 1, 100, 70);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 3, m, 1), 1);
	assert_int_equal(stats_of((uint16_t)id).in_ring, 1);
	assert_int_equal(rte_ring_count(txr[0]), 0);

	chan_drain(tbl, (uint16_t)d, 64);
	tot = totals();
	assert_int_equal(tot.enqueued, 6 + 2 + 2 + 20 + 3 + 1);
	assert_int_equal(tot.consumed, 6 + 2 + 2 + 20 + 3);
	assert_int_equal(tot.tx_sent, 6 + 2 + TXQ_SLOTS - 1 + 3);
	assert_int_equal(tot.tx_full, 5);
	assert_int_equal(tot.in_ring, 1);
}
#endif

#ifdef GUFC_HAVE_PCAP
/*
 * Read @p path back: every record must have the length of the expected
 * packet and its bytes (up to @p snaplen). Returns the record count.
 */
static unsigned int
pcap_check(const char *path, uint8_t (*exp)[MAX_PKT], const uint32_t *len, unsigned int n,
	uint32_t snaplen)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int count = 0;
	pcap_t *p;
	int r;

	p = pcap_open_offline(path, err);
	if (p == NULL)
		fail_msg("pcap_open_offline %s: %s", path, err);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		uint32_t cap;

		if (count >= n)
			fail_msg("%s: more than %u records", path, n);
		cap = RTE_MIN(len[count], snaplen);
		assert_int_equal(h->len, len[count]);
		assert_int_equal(h->caplen, cap);
		if (memcmp(data, exp[count], cap) != 0)
			fail_msg("%s: record %u differs", path, count);
		count++;
	}
	assert_int_equal(r, PCAP_ERROR_BREAK);
	pcap_close(p);
	return count;
}

static void
test_pcap_sink(void **state)
{
	enum { N = 40, LATE = 8 };
	static uint8_t exp[N][MAX_PKT];
	uint32_t len[N];
	struct rte_mbuf *m[N];
	struct chan_params p = {.name = "cap", .kind = CHAN_CONS_PCAP, .ring_size = 128};
	char path[128], path2[128], path3[128];
	unsigned int i;
	int id, id2, id3, f1;

	(void)state;
	tbl = make_table(8, 2, 16);
	tmp_path(path, sizeof(path), "cap");
	p.pcap_path = path;
	id = chan_create(tbl, &p);
	assert_true(id > 0);
	for (i = 0; i < N; i++) {
		len[i] = 60 + i * 37;
		fill(exp[i], len[i], 1000 + i);
		m[i] = i % 5 == 4 ? pkt_make_chained(len[i], 1000 + i) : pkt_make(len[i], 1000 + i);
	}
	/* 32 drained, the last LATE still queued when the channel is deleted. */
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m, 16), 16);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 1, m + 16, 16), 16);
	assert_int_equal(chan_drain(tbl, (uint16_t)id, 64), 32);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id, 0, m + 32, LATE), LATE);
	assert_int_equal(chan_delete(tbl, (uint16_t)id), 0);
	assert_int_equal(pool_in_use(), 0);
	assert_int_equal(pcap_check(path, exp, len, N, 65535), N);
	assert_int_equal(totals().consumed, N);
	assert_int_equal(totals().flushed, 0);
	unlink(path);

	/* Snap length: records are cut, their length is not. */
	tmp_path(path2, sizeof(path2), "snap");
	p.name = "snap";
	p.pcap_path = path2;
	p.pcap_snaplen = 64;
	id2 = chan_create(tbl, &p);
	assert_true(id2 > 0);
	len[0] = 200;
	fill(exp[0], 200, 77);
	len[1] = 50;
	fill(exp[1], 50, 78);
	m[0] = pkt_make(200, 77);
	m[1] = pkt_make(50, 78);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id2, 0, m, 2), 2);
	assert_int_equal(chan_drain(tbl, (uint16_t)id2, 10), 2);
	assert_int_equal(chan_delete(tbl, (uint16_t)id2), 0);
	assert_int_equal(pcap_check(path2, exp, len, 2, 64), 2);
	unlink(path2);

	/* A per-flow channel writes into its parent's file. */
	tmp_path(path3, sizeof(path3), "flow");
	p.name = "cap3";
	p.pcap_path = path3;
	p.pcap_snaplen = 0;
	id3 = chan_create(tbl, &p);
	assert_true(id3 > 0);
	f1 = chan_flow_alloc(tbl, (uint16_t)id3);
	assert_true(f1 >= 8);
	for (i = 0; i < 5; i++) {
		len[i] = 100 + i;
		fill(exp[i], len[i], 300 + i);
		m[i] = pkt_make(len[i], 300 + i);
	}
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)id3, 0, m, 2), 2);
	assert_int_equal(chan_drain_all(tbl, 100), 2);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)f1, 0, m + 2, 3), 3);
	assert_int_equal(chan_drain_all(tbl, 100), 3);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f1), 0);
	assert_int_equal(chan_delete(tbl, (uint16_t)id3), 0);
	assert_int_equal(pcap_check(path3, exp, len, 5, 65535), 5);
	unlink(path3);
}
#endif /* GUFC_HAVE_PCAP */

static void
test_flow_pool(void **state)
{
	char name[CHAN_NAMESIZE];
	struct rte_mbuf *m[10];
	struct chan_consumer *c;
	struct chan_info info;
	struct chan_totals tot;
	int web, app, f[4], g, h, i;

	(void)state;
	tbl = make_table(4, 4, 8);
	web = make_chan("web", CHAN_CONS_DISCARD, 0);
	app = make_chan("app", CHAN_CONS_APP, 0);
	assert_int_equal(web, 1);
	assert_int_equal(app, 2);

	for (i = 0; i < 4; i++) {
		f[i] = chan_flow_alloc(tbl, (uint16_t)web);
		assert_int_equal(f[i], 4 + i); /* ids after the 4 named slots */
		snprintf(name, sizeof(name), "web.%d", i);
		assert_int_equal(chan_lookup(tbl, name), f[i]);
		assert_int_equal(chan_info_get(tbl, (uint16_t)f[i], &info), 0);
		assert_string_equal(info.name, name);
		assert_true(info.per_flow);
		assert_int_equal(info.parent, web);
		assert_int_equal(info.kind, CHAN_CONS_DISCARD);
		assert_int_equal(info.ring_size, 8);
	}
	assert_int_equal(chan_info_get(tbl, (uint16_t)web, &info), 0);
	assert_int_equal(info.flow_children, 4);
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)web), -ENOSPC);
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)app), -ENOSPC);
	tot = totals();
	assert_int_equal(tot.flow_alloc, 4);
	assert_int_equal(tot.flow_alloc_fail, 2);
	assert_int_equal(tot.flow_channels, 4);
	assert_int_equal(chan_delete(tbl, (uint16_t)web), -EBUSY);
	assert_int_equal(chan_delete(tbl, (uint16_t)f[0]), -EINVAL);

	/* Bad parents and bad frees. */
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)f[0]), -EINVAL);
	assert_int_equal(chan_flow_alloc(tbl, 3), -ENOENT);
	assert_int_equal(chan_flow_alloc(NULL, 1), -EINVAL);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)web), -EINVAL);
	assert_int_equal(chan_flow_free(tbl, 8), -EINVAL);

	/* A flow channel overflows on its own; freeing it drains it. */
	pkts_make(m, 10, 90, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)f[1], 2, m, 10), 7);
	assert_int_equal(pool_in_use(), 7);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f[1]), 0);
	assert_int_equal(pool_in_use(), 0);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f[1]), -ENOENT);
	assert_int_equal(chan_lookup(tbl, "web.1"), -ENOENT);
	tot = totals();
	assert_int_equal(tot.enqueued, 7);
	assert_int_equal(tot.drop_full, 3);
	assert_int_equal(tot.consumed, 7);
	assert_int_equal(tot.flow_free, 1);
	assert_int_equal(tot.flow_channels, 3);

	/* A freed id takes no packets. */
	pkts_make(m, 2, 90, 20);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)f[1], 0, m, 2), 0);
	assert_int_equal(totals().drop_invalid, 2);

	/* Realloc: the freed ring, another parent, the parent's kind. */
	g = chan_flow_alloc(tbl, (uint16_t)app);
	assert_int_equal(g, f[1]);
	assert_int_equal(chan_info_get(tbl, (uint16_t)g, &info), 0);
	assert_string_equal(info.name, "app.0");
	assert_int_equal(info.kind, CHAN_CONS_APP);
	assert_int_equal(stats_of((uint16_t)g).enqueued, 0); /* fresh counters */
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)web), -ENOSPC);

	/* An APP consumer attaches by the per-flow name. */
	c = chan_attach("app.0");
	assert_non_null(c);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)g), -EBUSY);
	pkts_make(m, 3, 90, 40);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)g, 0, m, 3), 3);
	assert_int_equal(chan_recv_burst(c, m, 1), 1);
	rte_pktmbuf_free(m[0]);
	chan_detach(c);
	/* APP leftovers are flushed, not consumed. */
	assert_int_equal(chan_flow_free(tbl, (uint16_t)g), 0);
	assert_int_equal(pool_in_use(), 0);
	tot = totals();
	assert_int_equal(tot.flushed, 2);
	assert_int_equal(tot.consumed, 8);
	assert_int_equal(tot.enqueued, 10);

	/* Free all, realloc: names keep counting per parent. */
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f[0]), 0);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f[2]), 0);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)f[3]), 0);
	assert_int_equal(totals().flow_channels, 0);
	assert_int_equal(chan_info_get(tbl, (uint16_t)web, &info), 0);
	assert_int_equal(info.flow_children, 0);
	h = chan_flow_alloc(tbl, (uint16_t)web);
	assert_true(h >= 4 && h < 8);
	assert_int_equal(chan_lookup(tbl, "web.4"), h);
	assert_int_equal(chan_flow_free(tbl, (uint16_t)h), 0);
	assert_int_equal(chan_delete(tbl, (uint16_t)web), 0);
	tot = totals();
	assert_int_equal(tot.flow_alloc, 6);
	assert_int_equal(tot.flow_free, 6);
	assert_int_equal(tot.flow_alloc_fail, 3);
}

static void
test_attach_recv_detach(void **state)
{
	char longname[CHAN_NAMESIZE + 8];
	struct rte_mbuf *m[20], *out[32];
	struct chan_consumer *c;
	struct chan_stats st;
	int app, web;

	(void)state;
	tbl = make_table(8, 0, 0);
	app = make_chan("app", CHAN_CONS_APP, 64);
	web = make_chan("web", CHAN_CONS_DISCARD, 64);
	assert_true(app > 0 && web > 0);

	assert_null(chan_attach(NULL));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(chan_attach("nope"));
	assert_int_equal(rte_errno, ENOENT);
	assert_null(chan_attach("web"));
	assert_int_equal(rte_errno, EPERM);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_null(chan_attach(longname));
	assert_int_equal(rte_errno, ENOENT);

	c = chan_attach("app");
	assert_non_null(c);
	assert_string_equal(chan_consumer_name(c), "app");
	assert_int_equal(stats_of((uint16_t)app).attached, 1);
	assert_null(chan_attach("app")); /* single consumer */
	assert_int_equal(rte_errno, EBUSY);

	pkts_make(m, 20, 120, 7);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)app, 5, m, 20), 20);
	assert_int_equal(chan_drain(tbl, (uint16_t)app, 100), 0); /* not the primary's */
	assert_int_equal(chan_recv_burst(c, out, 8), 8);
	assert_memory_equal(out, m, 8 * sizeof(m[0]));
	assert_int_equal(chan_recv_burst(c, out + 8, 32), 12);
	assert_memory_equal(out, m, 20 * sizeof(m[0]));
	assert_int_equal(chan_recv_burst(c, out, 32), 0);
	rte_pktmbuf_free_bulk(out, 20);
	st = stats_of((uint16_t)app);
	assert_int_equal(st.consumed, 20);
	assert_int_equal(st.consumed_bytes, 20 * 120);
	assert_int_equal(st.in_ring, 0);

	assert_int_equal(chan_delete(tbl, (uint16_t)app), -EBUSY);
	assert_int_equal(chan_flush(tbl, (uint16_t)app), -EBUSY);
	chan_detach(c);
	chan_detach(NULL);
	assert_int_equal(stats_of((uint16_t)app).attached, 0);

	/* Flush with no consumer; then attach again. */
	pkts_make(m, 5, 60, 70);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)app, 0, m, 5), 5);
	assert_int_equal(chan_flush(tbl, (uint16_t)app), 5);
	assert_int_equal(stats_of((uint16_t)app).flushed, 5);
	assert_int_equal(stats_of((uint16_t)app).attached, 0);
	assert_int_equal(chan_flush(tbl, 7), -ENOENT);
	c = chan_attach("app");
	assert_non_null(c);
	chan_detach(c);

	assert_int_equal(chan_delete(tbl, (uint16_t)app), 0);
	assert_null(chan_attach("app"));
	assert_int_equal(rte_errno, ENOENT);

	/* No table, no channels. */
	chan_table_free(tbl);
	tbl = NULL;
	assert_null(chan_attach("default"));
	assert_int_equal(rte_errno, ENOENT);
}

/* The shared descriptor of channel @p name, found the way a secondary does. */
static struct chan_desc *
desc_of(const char *name)
{
	const struct rte_memzone *mz = rte_memzone_lookup(CHAN_DIR_MZ_NAME);
	struct chan_dir *dir;
	uint32_t i;

	assert_non_null(mz);
	dir = mz->addr;
	for (i = 0; i < dir->n_desc; i++) {
		if (dir->desc[i].d.state == CHAN_DESC_LIVE && strcmp(dir->desc[i].d.name, name) == 0)
			return &dir->desc[i].d;
	}
	fail_msg("no descriptor %s", name);
	return NULL;
}

/* A pid that no longer exists: a child that has exited and been reaped. */
static int32_t
dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return (int32_t)pid;
}

static void
test_stale_consumer(void **state)
{
	struct chan_consumer *c;
	struct chan_desc *d;
	int app;

	(void)state;
	tbl = make_table(8, 0, 0);
	app = make_chan("app", CHAN_CONS_APP, 64);
	assert_true(app > 0);
	d = desc_of("app");

	/* Attached by a live process (this one, by hand): busy. */
	d->attached = 1;
	d->owner_pid = (int32_t)getpid();
	assert_null(chan_attach("app"));
	assert_int_equal(rte_errno, EBUSY);
	assert_int_equal(chan_delete(tbl, (uint16_t)app), -EBUSY);

	/* Attached by a process that died: taken over, deletable. */
	d->owner_pid = dead_pid();
	c = chan_attach("app");
	assert_non_null(c);
	assert_int_equal(d->owner_pid, (int32_t)getpid());
	chan_detach(c);
	assert_int_equal(d->attached, 0);
	d->attached = 1;
	d->owner_pid = dead_pid();
	assert_int_equal(chan_delete(tbl, (uint16_t)app), 0);
}

static void
test_table_free_returns_mbufs(void **state)
{
	struct rte_mbuf *m[32];
	int d, tx, app, fa, fd, pc = -1;
	unsigned int queued;
#ifdef GUFC_HAVE_PCAP
	static uint8_t exp[9][MAX_PKT];
	uint32_t len[9];
	int fp;
	struct chan_params p = {.name = "pc", .kind = CHAN_CONS_PCAP, .ring_size = 64};
	char path[128];
	unsigned int i;
#endif

	(void)state;
	tbl = make_table(8, 3, 32);
	d = make_chan("d", CHAN_CONS_DISCARD, 64);
	tx = make_chan("tx", CHAN_CONS_TX, 64);
	app = make_chan("app", CHAN_CONS_APP, 64);
	fa = chan_flow_alloc(tbl, (uint16_t)app);
	fd = chan_flow_alloc(tbl, (uint16_t)d);
	assert_true(d > 0 && tx > 0 && app > 0 && fa > 0 && fd > 0);
#ifdef GUFC_HAVE_PCAP
	tmp_path(path, sizeof(path), "free");
	p.pcap_path = path;
	pc = chan_create(tbl, &p);
	assert_true(pc > 0);
	fp = chan_flow_alloc(tbl, (uint16_t)pc);
	assert_true(fp > 0);
	for (i = 0; i < 9; i++) {
		len[i] = 64 + i;
		fill(exp[i], len[i], 900 + i);
		m[i] = pkt_make(len[i], 900 + i);
	}
	/* The parent is emptied first (lower id), then its per-flow channel. */
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)pc, 0, m, 6), 6);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)fp, 0, m + 6, 3), 3);
#endif
	pkts_make(m, 32, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, 0, 0, m, 32), 32);
	pkts_make(m, 10, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)d, 0, m, 10), 10);
	pkts_make(m, 11, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)tx, 0, m, 11), 11);
	pkts_make(m, 12, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)app, 0, m, 12), 12);
	pkts_make(m, 13, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)fa, 0, m, 13), 13);
	pkts_make(m, 14, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)fd, 0, m, 14), 14);
	queued = 32 + 10 + 11 + 12 + 13 + 14 + (pc > 0 ? 9 : 0);
	assert_int_equal(pool_in_use(), queued);
	assert_int_equal(totals().in_ring, queued);

	chan_table_free(tbl);
	tbl = NULL;
	assert_int_equal(pool_in_use(), 0);
	assert_null(rte_ring_lookup(CHAN_RING_PREFIX "d"));
	assert_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "0"));
#ifdef GUFC_HAVE_PCAP
	/* The pcap consumer ran one last time, for the parent and its flow. */
	assert_int_equal(pcap_check(path, exp, len, 9, 65535), 9);
	unlink(path);
#endif
	/* Everything was released: a new table can be made. */
	tbl = make_table(8, 2, 32);
	chan_table_free(NULL);
}

static void
test_format_dump(void **state)
{
	struct chan_params p = {.name = "eth1", .kind = CHAN_CONS_TX, .tx_port = 2, .tx_queue = 7};
	char line[CHAN_FORMAT_LEN];
	struct rte_mbuf *m[5];
	char *text = NULL;
	size_t size = 0;
	unsigned int lines = 0;
	FILE *f;
	int web, tx, r;
	size_t i;

	(void)state;
	tbl = make_table(8, 2, 0);
	web = make_chan("web", CHAN_CONS_DISCARD, 16);
	tx = chan_create(tbl, &p);
	assert_true(web > 0 && tx > 0);
	assert_true(chan_flow_alloc(tbl, (uint16_t)web) > 0);
	pkts_make(m, 5, 64, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint16_t)web, 0, m, 5), 5);

	r = chan_format(tbl, (uint16_t)web, line, sizeof(line));
	assert_true(r > 0);
	assert_int_equal((size_t)r, strlen(line));
	assert_non_null(strstr(line, "web"));
	assert_non_null(strstr(line, "discard"));
	assert_non_null(strstr(line, " 16 "));
	r = chan_format(tbl, (uint16_t)tx, line, sizeof(line));
	assert_true(r > 0);
	assert_non_null(strstr(line, "port 2 queue 7"));
	assert_int_equal(chan_format(tbl, (uint16_t)tx, line, 10), -ENOSPC);
	assert_int_equal(chan_format(tbl, 5, line, sizeof(line)), -ENOENT);
	assert_int_equal(chan_format(tbl, 999, line, sizeof(line)), -EINVAL);

	f = open_memstream(&text, &size);
	assert_non_null(f);
	assert_int_equal(chan_dump(tbl, f, UINT32_MAX), 0);
	fclose(f);
	for (i = 0; i < size; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 1 + 4 + 1 + 1); /* header, default/web/eth1/web.0, pool, totals */
	assert_non_null(strstr(text, "consumer"));
	assert_non_null(strstr(text, "web.0"));
	assert_non_null(strstr(text, "total: channels 3 per-flow 1/2 enqueued 5"));
	free(text);
	assert_int_equal(chan_dump(tbl, NULL, UINT32_MAX), -EINVAL);

	assert_string_equal(chan_kind_name(CHAN_CONS_PCAP), "pcap");
	assert_string_equal(chan_kind_name((enum chan_cons_kind)42), "?");
	for (r = 0; r < CHAN_CONS__COUNT; r++)
		assert_int_equal(chan_kind_parse(chan_kind_name((enum chan_cons_kind)r)), r);
	assert_int_equal(chan_kind_parse("bogus"), -EINVAL);
	assert_int_equal(chan_kind_parse(NULL), -EINVAL);
}

static struct chan_table *
make_pool_table(uint16_t max_channels, uint32_t prealloc, uint32_t cap, uint32_t flow_ring)
{
	struct chan_table_params p = {
		.max_channels = max_channels,
		.flow_pool_size = prealloc,
		.flow_pool_max = cap,
		.flow_ring_size = flow_ring,
		.socket_id = SOCKET_ID_ANY,
	};
	struct chan_table *t = chan_table_create(&p);

	assert_non_null(t);
	return t;
}

static struct chan_flow_pool
pool_figures(void)
{
	struct chan_flow_pool fp;

	assert_int_equal(chan_flow_pool_get(tbl, &fp), 0);
	return fp;
}

/*
 * The pool grows a chunk at a time when a flow asks and no ring is free,
 * up to its cap (counted refusal); ids are contiguous after the named
 * ones; a freed ring is reused before the pool grows; per-flow rings of a
 * grown chunk are consumed (the ready bits), attached by name and by id.
 */
static void
test_flow_pool_grow(void **state)
{
	const uint32_t cap = 2 * CHAN_FLOW_CHUNK + 100;
	struct rte_mbuf *m[4];
	struct chan_flow_pool fp;
	struct chan_consumer *c;
	struct chan_info info;
	int web, app, id, last = -1;
	uint32_t i;

	(void)state;
	assert_int_equal(chan_flow_pool_get(NULL, &fp), -EINVAL);
	tbl = make_pool_table(4, 1, cap, 8);
	web = make_chan("web", CHAN_CONS_DISCARD, 0);
	app = make_chan("app", CHAN_CONS_APP, 0);
	fp = pool_figures();
	assert_int_equal(fp.rings, CHAN_FLOW_CHUNK); /* one chunk made at start */
	assert_int_equal(fp.free, CHAN_FLOW_CHUNK);
	assert_int_equal(fp.in_use, 0);
	assert_int_equal(fp.max, cap);
	assert_int_equal(fp.chunks, 1);
	assert_int_equal(fp.ring_size, 8);
	assert_true(fp.bytes_per_ring > 8 * sizeof(void *));
	assert_non_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "0"));
	assert_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "1"));

	for (i = 0; i < cap; i++) {
		id = chan_flow_alloc(tbl, (uint16_t)web);
		assert_int_equal(id, 4 + (int)i); /* contiguous ids after the named slots */
		if (i == CHAN_FLOW_CHUNK - 1)
			assert_int_equal(pool_figures().chunks, 1); /* no growth while one is free */
		if (i == CHAN_FLOW_CHUNK)
			assert_int_equal(pool_figures().chunks, 2); /* grown on demand */
		last = id;
	}
	fp = pool_figures();
	assert_int_equal(fp.rings, cap);
	assert_int_equal(fp.chunks, 3); /* the last one holds what the cap leaves */
	assert_int_equal(fp.in_use, cap);
	assert_int_equal(fp.free, 0);
	assert_non_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "2"));
	/* At the cap: refused and counted, nothing made. */
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)web), -ENOSPC);
	fp = pool_figures();
	assert_int_equal(fp.refused_cap, 1);
	assert_int_equal(fp.refused_nomem, 0);
	assert_int_equal(fp.rings, cap);
	assert_int_equal(totals().flow_alloc_fail, 1);
	assert_int_equal(chan_flow_free(tbl, (uint32_t)(4 + cap)), -EINVAL);
	assert_int_equal(chan_info_get(tbl, (uint32_t)last, &info), 0);
	assert_int_equal(info.id, (uint32_t)last);
	assert_string_equal(info.name, "web.2147");

	/* A ring of the last chunk takes packets; the consumers find it by its bit. */
	pkts_make(m, 4, 70, 0);
	assert_int_equal(chan_enqueue_burst(tbl, (uint32_t)last, 1, m, 4), 4);
	assert_int_equal(stats_of(last).in_ring, 4);
	assert_int_equal(chan_consume_all(tbl, 32, 32), 4);
	assert_int_equal(stats_of(last).consumed, 4);
	assert_int_equal(pool_in_use(), 0);
	assert_int_equal(chan_consume_all(tbl, 32, 32), 0);

	/* Freed rings are reused (most recent first) before any growth. */
	assert_int_equal(chan_flow_free(tbl, (uint32_t)last), 0);
	assert_int_equal(chan_flow_free(tbl, 4 + 5), 0);
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)app), 4 + 5);
	id = chan_flow_alloc(tbl, (uint16_t)app);
	assert_int_equal(id, last);
	assert_int_equal(pool_figures().rings, cap);

	/* An app attaches to a grown chunk's ring by name and by flow id. */
	assert_int_equal(chan_info_get(tbl, (uint32_t)id, &info), 0);
	c = chan_attach(info.name);
	assert_non_null(c);
	assert_null(chan_attach_id((uint32_t)id));
	assert_int_equal(rte_errno, EBUSY);
	chan_detach(c);
	c = chan_attach_id((uint32_t)id);
	assert_non_null(c);
	assert_string_equal(chan_consumer_name(c), info.name);
	pkts_make(m, 2, 70, 10);
	assert_int_equal(chan_enqueue_burst(tbl, (uint32_t)id, 0, m, 2), 2);
	assert_int_equal(chan_recv_burst(c, m, 4), 2);
	rte_pktmbuf_free_bulk(m, 2);
	chan_detach(c);
	assert_null(chan_attach_id(4 + cap));
	assert_int_equal(rte_errno, ENOENT);
	assert_null(chan_attach_id((uint32_t)web));
	assert_int_equal(rte_errno, EPERM);

	chan_table_free(tbl);
	tbl = NULL;
	assert_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "0"));
	assert_null(rte_memzone_lookup(CHAN_FLOW_MZ_PREFIX "2"));
}

/* A pool that cannot grow (no memory for a chunk): refused, counted apart from the cap. */
static void
test_flow_pool_nomem(void **state)
{
	struct chan_flow_pool fp;
	int web;

	(void)state;
	/* 1,024 rings of 2^16 slots need more than the test's whole EAL memory. */
	tbl = make_pool_table(4, 0, CHAN_FLOW_POOL_MAX, 1u << 16);
	web = make_chan("web", CHAN_CONS_DISCARD, 0);
	assert_int_equal(pool_figures().rings, 0);
	assert_int_equal(chan_flow_alloc(tbl, (uint16_t)web), -ENOMEM);
	fp = pool_figures();
	assert_int_equal(fp.refused_nomem, 1);
	assert_int_equal(fp.refused_cap, 0);
	assert_int_equal(fp.rings, 0);
	assert_int_equal(fp.chunks, 0);
	/* Bad pools: a cap under what is made at start, or over the maximum. */
	{
		struct chan_table_params p = {.max_channels = 4, .flow_pool_size = 8,
			.flow_pool_max = 4, .socket_id = SOCKET_ID_ANY};

		assert_null(chan_table_create(&p));
		p.flow_pool_max = CHAN_FLOW_POOL_MAX + 1;
		assert_null(chan_table_create(&p));
	}
}

/*
 * Churn: flows come and go at random; the pool never grows past the live
 * peak (rounded to a chunk), every ring is in use or free, counters add up
 * and no mbuf is lost.
 */
static void
test_flow_pool_churn(void **state)
{
	enum { LIVE_MAX = 1500, ROUNDS = 20000 };
	static int live[LIVE_MAX];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct rte_mbuf *m[3];
	struct chan_flow_pool fp;
	struct chan_totals tot;
	uint32_t n_live = 0, peak = 0, r;
	int web;

	(void)state;
	tbl = make_pool_table(4, 0, 8 * CHAN_FLOW_CHUNK, 4);
	web = make_chan("web", CHAN_CONS_DISCARD, 0);
	for (r = 0; r < ROUNDS; r++) {
		uint64_t x;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		x = seed;
		if (n_live < LIVE_MAX && (n_live == 0 || (x & 3) != 0 || r < ROUNDS / 4)) {
			int id = chan_flow_alloc(tbl, (uint16_t)web);

			assert_true(id >= 4);
			live[n_live++] = id;
			peak = RTE_MAX(peak, n_live);
			if ((x >> 8) % 5 == 0) {
				pkts_make(m, 3, 64, r);
				chan_enqueue_burst(tbl, (uint32_t)id, (uint16_t)((x >> 16) % 2), m, 3);
			}
		} else {
			uint32_t k = (uint32_t)((x >> 20) % n_live);

			assert_int_equal(chan_flow_free(tbl, (uint32_t)live[k]), 0);
			live[k] = live[--n_live];
		}
		if (r % 97 == 0)
			chan_drain_all(tbl, 8);
		if (r % 1000 == 0) {
			fp = pool_figures();
			assert_int_equal(fp.in_use, n_live);
			assert_int_equal(fp.in_use + fp.free, fp.rings);
		}
	}
	fp = pool_figures();
	assert_int_equal(fp.in_use, n_live);
	assert_true(fp.rings <= RTE_ALIGN_CEIL(peak, CHAN_FLOW_CHUNK));
	assert_true(fp.rings >= peak);
	assert_int_equal(fp.alloc - fp.freed, n_live);
	while (n_live > 0)
		assert_int_equal(chan_flow_free(tbl, (uint32_t)live[--n_live]), 0);
	chan_drain_all(tbl, UINT32_MAX);
	assert_int_equal(pool_in_use(), 0);
	tot = totals();
	assert_int_equal(tot.enqueued, tot.consumed + tot.flushed);
	assert_int_equal(tot.flow_channels, 0);
	assert_int_equal(pool_figures().free, pool_figures().rings);
}

/* Deterministic PRNG for the random mix. */
static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
check_invariant(uint64_t offered, struct chan_consumer *c)
{
	struct chan_totals tot = totals();

	(void)c;
	assert_int_equal(offered, tot.enqueued + tot.drop_full + tot.drop_invalid);
	assert_int_equal(tot.enqueued, tot.consumed + tot.flushed + tot.in_ring);
	/* Every mbuf out of the pool is in a ring. */
	assert_int_equal(pool_in_use(), tot.in_ring);
}

static void
test_accounting_random(void **state)
{
	struct rte_mbuf *m[32];
	struct chan_consumer *c;
	int ids[16], flows[4] = {-1, -1, -1, -1};
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t offered = 0;
	unsigned int n_ids = 0, it, i, k;
	int tx, app;

	(void)state;
	tbl = make_table(8, 4, 16);
	ids[n_ids++] = 0;
	ids[n_ids++] = make_chan("a", CHAN_CONS_DISCARD, 64);
	ids[n_ids++] = make_chan("b", CHAN_CONS_DISCARD, 8);
	ids[n_ids++] = tx = make_chan("tx", CHAN_CONS_TX, 32);
	ids[n_ids++] = app = make_chan("app", CHAN_CONS_APP, 128);
	c = chan_attach("app");
	assert_non_null(c);

	for (it = 0; it < 3000; it++) {
		uint64_t r = xs(&seed);
		unsigned int op = (unsigned int)(r % 10);

		if (op < 5) {
			unsigned int n = 1 + (unsigned int)((r >> 8) % 32);
			unsigned int pick = (unsigned int)((r >> 16) % (n_ids + 4 + 1));
			uint16_t id;

			if (pick < n_ids)
				id = (uint16_t)ids[pick];
			else if (pick == n_ids + 4)
				id = 7; /* never live */
			else if (flows[pick - n_ids] >= 0)
				id = (uint16_t)flows[pick - n_ids];
			else
				id = (uint16_t)(8 + pick - n_ids); /* a free pool slot */
			pkts_make(m, n, 60 + (unsigned int)((r >> 24) % 200), it);
			chan_enqueue_burst(tbl, id, (uint16_t)((r >> 32) % 4), m, n);
			offered += n;
		} else if (op == 5) {
			chan_drain(tbl, (uint16_t)ids[(r >> 8) % n_ids],
				(unsigned int)((r >> 16) % 40));
		} else if (op == 6) {
			k = chan_dequeue_burst(
				tbl, (uint16_t)tx, m, (unsigned int)(1 + (r >> 8) % 32));
			rte_pktmbuf_free_bulk(m, k);
		} else if (op == 7) {
			k = chan_recv_burst(c, m, (unsigned int)(1 + (r >> 8) % 32));
			rte_pktmbuf_free_bulk(m, k);
		} else if (op == 8) {
			i = (unsigned int)((r >> 8) % 4);
			if (flows[i] < 0) {
				/* Parents: a DISCARD channel or the TX one. */
				flows[i] = chan_flow_alloc(
					tbl, (uint16_t)((r >> 16) & 1 ? ids[1] : tx));
				assert_true(flows[i] > 0);
			} else {
				assert_int_equal(chan_flow_free(tbl, (uint16_t)flows[i]), 0);
				flows[i] = -1;
			}
		} else {
			if ((r >> 8) % 8 == 0)
				assert_true(chan_flush(tbl, (uint16_t)tx) >= 0);
			else
				chan_drain_all(tbl, 16);
		}
		if (it % 100 == 0)
			check_invariant(offered, c);
	}
	check_invariant(offered, c);
	assert_true(totals().drop_full > 0);
	assert_true(totals().drop_invalid > 0);
	assert_true(totals().flushed > 0);
	chan_detach(c);
}

/* Two producers on two lcores into one small ring, a drain on the main lcore. */
#define MP_PER_PRODUCER 20000u

struct mp_arg {
	uint16_t id;
	uint16_t producer;
	volatile int done;
};

static int
mp_produce(void *argp)
{
	struct mp_arg *a = argp;
	struct rte_mbuf *m[16];
	unsigned int sent = 0;

	while (sent < MP_PER_PRODUCER) {
		unsigned int n = RTE_MIN(16u, MP_PER_PRODUCER - sent);

		if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
			continue;
		for (unsigned int i = 0; i < n; i++)
			rte_pktmbuf_append(m[i], 64);
		chan_enqueue_burst(tbl, a->id, a->producer, m, n);
		sent += n;
	}
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void
test_two_producers(void **state)
{
	struct mp_arg a1;
	uint64_t e0, d0, e1, d1;
	unsigned int worker;
	struct chan_totals tot;
	int id;

	(void)state;
	if (rte_lcore_count() < 2)
		skip();
	tbl = make_table(8, 0, 0);
	id = make_chan("mp", CHAN_CONS_DISCARD, 256);
	assert_true(id > 0);
	a1 = (struct mp_arg){.id = (uint16_t)id, .producer = 1};
	worker = rte_get_next_lcore(-1, 1, 0);
	assert_int_equal(rte_eal_remote_launch(mp_produce, &a1, worker), 0);
	/* The main lcore alternates producing and draining. */
	{
		struct rte_mbuf *m[16];
		unsigned int sent = 0;

		while (sent < MP_PER_PRODUCER) {
			unsigned int n = RTE_MIN(16u, MP_PER_PRODUCER - sent);

			if (rte_pktmbuf_alloc_bulk(pool, m, n) == 0) {
				for (unsigned int i = 0; i < n; i++)
					rte_pktmbuf_append(m[i], 64);
				chan_enqueue_burst(tbl, (uint16_t)id, 0, m, n);
				sent += n;
			}
			chan_drain(tbl, (uint16_t)id, 24);
		}
		while (!__atomic_load_n(&a1.done, __ATOMIC_ACQUIRE))
			chan_drain(tbl, (uint16_t)id, 64);
	}
	assert_int_equal(rte_eal_wait_lcore(worker), 0);
	chan_drain(tbl, (uint16_t)id, UINT32_MAX);

	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 0, &e0, NULL, &d0), 0);
	assert_int_equal(chan_producer_stats_get(tbl, (uint16_t)id, 1, &e1, NULL, &d1), 0);
	assert_int_equal(e0 + d0, MP_PER_PRODUCER);
	assert_int_equal(e1 + d1, MP_PER_PRODUCER);
	tot = totals();
	assert_int_equal(tot.enqueued, e0 + e1);
	assert_int_equal(tot.consumed, e0 + e1);
	assert_int_equal(tot.consumed_bytes, 64 * (e0 + e1));
	assert_int_equal(tot.in_ring, 0);
	assert_int_equal(pool_in_use(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_table_default, teardown),
		cmocka_unit_test_teardown(test_create_delete_lookup, teardown),
		cmocka_unit_test_teardown(test_duplicate_name, teardown),
		cmocka_unit_test_teardown(test_bad_params, teardown),
		cmocka_unit_test_teardown(test_enqueue_full, teardown),
		cmocka_unit_test_teardown(test_enqueue_hold, teardown),
		cmocka_unit_test_teardown(test_discard_drain, teardown),
		cmocka_unit_test_teardown(test_tx_channel, teardown),
		cmocka_unit_test_teardown(test_consume_live_slots, teardown),
#ifdef GUFC_HAVE_NET_RING
		cmocka_unit_test_teardown(test_tx_poll, teardown),
		cmocka_unit_test_teardown(test_tx_direct, teardown),
#endif
#ifdef GUFC_HAVE_PCAP
		cmocka_unit_test_teardown(test_pcap_sink, teardown),
#endif
		cmocka_unit_test_teardown(test_flow_pool, teardown),
		cmocka_unit_test_teardown(test_flow_pool_grow, teardown),
		cmocka_unit_test_teardown(test_flow_pool_nomem, teardown),
		cmocka_unit_test_teardown(test_flow_pool_churn, teardown),
		cmocka_unit_test_teardown(test_attach_recv_detach, teardown),
		cmocka_unit_test_teardown(test_stale_consumer, teardown),
		cmocka_unit_test_teardown(test_table_free_returns_mbufs, teardown),
		cmocka_unit_test_teardown(test_format_dump, teardown),
		cmocka_unit_test_teardown(test_accounting_random, teardown),
		cmocka_unit_test_teardown(test_two_producers, teardown),
	};

	return GUFC_TEST_POOL_MAIN("channel", "0-1", &pool, POOL_SIZE, 0, tests);
}
