/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A storm of new flows (spoofed SYNs) into a full flow table of
 * established, active connections (issue 12): what the evict policy takes
 * and what it refuses, with the table as big as the end-to-end storm's
 * (2,048 entries, larger than one eviction scan of 1,024).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_memory.h>

#include "eal_test.h"
#include "flowcache.h"
#include "tbl_fill.h"

/*
 * What the table removed on its own, and the test's count of live entries
 * of connections not established (FC_ACT_F_EARLY) to check each eviction
 * against.
 */
struct gone {
	unsigned int established; /* evicted entries without FC_ACT_F_EARLY */
	unsigned int early;
	unsigned int est_while_early; /* established ones evicted while early ones were live */
	unsigned int early_live;
	bool last_early; /* the latest insert was early: the table keeps it */
};

static void
count_gone(struct fc_table *t, const void *key, uint32_t idx, const struct fc_entry *e, void *arg)
{
	struct gone *g = arg;

	(void)t;
	(void)key;
	(void)idx;
	if (e->act.flags & FC_ACT_F_EARLY) {
		g->early++;
		g->early_live--;
	} else {
		g->established++;
		if (g->early_live > (g->last_early ? 1u : 0u))
			g->est_while_early++;
	}
}

/* Key @p i: established connections below SPOOF_BASE, spoofed sources above. */
#define SPOOF_BASE (1u << 24)

static void
key_of(uint8_t family, uint32_t i, void *buf)
{
	struct fc_key_v4 *k = buf;

	(void)family; /* IPv4 only */
	memset(k, 0, sizeof(*k));
	k->src = rte_cpu_to_be_32(0x0a000000u + i);
	k->dst = rte_cpu_to_be_32(0xc0a80001u);
	k->sport = rte_cpu_to_be_16((uint16_t)(1024 + (i & 0x7fff)));
	k->dport = rte_cpu_to_be_16(80);
	k->proto = 6;
	fc_key_v4_normalize(k);
}

static int
ins(struct fc_table *t, struct gone *g, uint32_t i, bool early, uint32_t now)
{
	struct fc_key_v4 k;
	struct fc_action a;
	int rc;

	key_of(FC_AF_INET4, i, &k);
	memset(&a, 0, sizeof(a));
	a.flags = early ? FC_ACT_F_EARLY : 0;
	rc = fc_table_insert(t, &k, fc_table_hash(t, &k), &a, 0, now);
	if (rc >= 0 && early)
		g->early_live++;
	if (rc >= 0)
		g->last_early = early;
	return rc;
}

static int
find(const struct fc_table *t, uint32_t i)
{
	struct fc_key_v4 k;

	key_of(FC_AF_INET4, i, &k);
	return fc_table_lookup(t, &k, fc_table_hash(t, &k));
}

/* The keys of key_of(), for tbl_fill_found(). */
static const struct tbl_fill fill = {.family = FC_AF_INET4, .key = key_of};

static struct fc_table_stats
stats(const struct fc_table *t)
{
	struct fc_table_stats s;

	fc_table_stats_get(t, &s);
	return s;
}

static struct fc_table *
storm_table(const char *name, uint32_t cap, struct gone *g)
{
	struct fc_table_params p = {
		.name = name,
		.family = FC_AF_INET4,
		.capacity = cap,
		.max_readers = 1,
		.full_policy = FC_FULL_EVICT_IDLE,
		.hash_seed = 12,
		.socket_id = SOCKET_ID_ANY,
		.remove_cb = count_gone,
		.remove_arg = g,
	};
	struct fc_table *t = fc_table_create(&p);

	assert_non_null(t);
	return t;
}

/* Every live established entry of @p idx gets a packet at @p now (active flows). */
static void
touch_all(struct fc_table *t, const int *idx, unsigned int n, uint32_t now)
{
	for (unsigned int j = 0; j < n; j++)
		if (fc_table_slot(t, (uint32_t)idx[j])->seq != 0)
			fc_table_touch(t, (uint32_t)idx[j], 60, now);
}

/*
 * A table of 2,048 (one eviction scan sees 1,024) full of established
 * connections that all get packets, then 100,000 spoofed SYNs (a
 * handshake each that never completes), ticks of 64 apart: the first SYN
 * finds no entry but established ones and takes the idlest, and so does
 * the second (the latest insert, the first SYN's, is never the victim:
 * it may be the first of a connection's two entries); from then on the
 * flood's entries evict each other, however far from the scan's window
 * they sit, and no insert is refused.
 */
static void
test_syn_flood_full(void **state)
{
	enum { CAP = 2048, FLOOD = 100000 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_full", CAP, &g);
	static int idx[CAP];
	uint32_t i, now = 1;

	(void)state;
	for (i = 0; i < CAP; i++) {
		idx[i] = ins(t, &g, i, false, now);
		assert_true(idx[i] >= 0);
	}
	for (i = 0; i < FLOOD; i++) {
		if (i % 64 == 0)
			touch_all(t, idx, CAP, ++now);
		assert_true(ins(t, &g, SPOOF_BASE + i, true, now) >= 0);
	}
	assert_int_equal(g.est_while_early, 0);
	assert_int_equal(g.established, 2);
	assert_int_equal(g.early, FLOOD - 2);
	assert_int_equal(tbl_fill_found(t, &fill, 0, CAP), CAP - 2);
	assert_true(find(t, SPOOF_BASE + FLOOD - 1) >= 0);
	assert_int_equal(stats(t).refused, 0);
	assert_int_equal(stats(t).evictions, FLOOD);
	assert_int_equal(stats(t).occupancy, CAP);
	fc_table_free(t);
}

/*
 * Room for some: 1,900 established connections, then the flood. The
 * flood's entries gather in the slots their own kind freed, which a
 * bounded scan from a cursor among established entries may not reach;
 * none of the established goes.
 */
static void
test_syn_flood_room(void **state)
{
	enum { CAP = 2048, EST = 1900, FLOOD = 50000 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_room", CAP, &g);
	static int idx[EST];
	uint32_t i, now = 1;

	(void)state;
	for (i = 0; i < EST; i++) {
		idx[i] = ins(t, &g, i, false, now);
		assert_true(idx[i] >= 0);
	}
	for (i = 0; i < FLOOD; i++) {
		if (i % 64 == 0)
			touch_all(t, idx, EST, ++now);
		assert_true(ins(t, &g, SPOOF_BASE + i, true, now) >= 0);
	}
	assert_int_equal(g.established, 0);
	assert_int_equal(g.early, EST + FLOOD - CAP);
	assert_int_equal(tbl_fill_found(t, &fill, 0, EST), EST);
	assert_int_equal(stats(t).refused, 0);
	fc_table_free(t);
}

/*
 * A table four times the size a scan over slots once searched whole for
 * not-established entries (16 windows of 1,024), full of established
 * connections idle longer than any SYN of the flood: the first two SYNs
 * take the idlest established ones, then the flood's entries evict each
 * other wherever they sit, oldest first, and no established entry goes.
 */
static void
test_syn_flood_large(void **state)
{
	enum { CAP = 65536, FLOOD = 40000 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_large", CAP, &g);
	uint32_t i;

	(void)state;
	for (i = 0; i < CAP; i++)
		assert_true(ins(t, &g, i, false, 1) >= 0);
	for (i = 0; i < FLOOD; i++)
		assert_true(ins(t, &g, SPOOF_BASE + i, true, 1000 + i) >= 0);
	assert_int_equal(g.est_while_early, 0);
	assert_int_equal(g.established, 2);
	assert_int_equal(g.early, FLOOD - 2);
	assert_int_equal(tbl_fill_found(t, &fill, 0, CAP), CAP - 2);
	/* The flood's latest two are left: the oldest went first. */
	assert_true(find(t, SPOOF_BASE + FLOOD - 1) >= 0);
	assert_true(find(t, SPOOF_BASE + FLOOD - 2) >= 0);
	assert_true(find(t, SPOOF_BASE + FLOOD - 3) < 0);
	assert_int_equal(stats(t).refused, 0);
	assert_int_equal(stats(t).evictions, FLOOD);
	fc_table_free(t);
}

/*
 * Handshakes that complete (fc_table_update() clears FC_ACT_F_EARLY) are
 * established from then on: the flood that follows evicts only its own,
 * never them, and never the ones of before.
 */
static void
test_syn_flood_completed(void **state)
{
	enum { CAP = 2048, EST = 1000, DONE = 500, FLOOD = 20000 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_done", CAP, &g);
	static int idx[EST + DONE];
	struct fc_action a;
	uint32_t i, now = 1;

	(void)state;
	memset(&a, 0, sizeof(a));
	for (i = 0; i < EST; i++)
		assert_true((idx[i] = ins(t, &g, i, false, now)) >= 0);
	for (i = EST; i < EST + DONE; i++) {
		assert_true((idx[i] = ins(t, &g, i, true, now)) >= 0);
		assert_int_equal(fc_table_update(t, (uint32_t)idx[i], &a, 0), 0);
		g.early_live--;
	}
	for (i = 0; i < FLOOD; i++) {
		if (i % 64 == 0)
			touch_all(t, idx, EST + DONE, ++now);
		assert_true(ins(t, &g, SPOOF_BASE + i, true, now) >= 0);
	}
	assert_int_equal(g.established, 0);
	assert_int_equal(tbl_fill_found(t, &fill, 0, EST + DONE), EST + DONE);
	fc_table_free(t);
}

/*
 * Refusals under the evict policy have one cause: every spare key slot
 * still waits for a grace period (a reader that stopped reporting
 * quiescence). They are counted as such (refused_grace), leave the
 * established entries where they are, and stop once the reader reports.
 */
static void
test_syn_flood_stuck_reader(void **state)
{
	enum { CAP = 2048, FLOOD = 5000 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_stuck", CAP, &g);
	static int idx[CAP];
	unsigned int ok = 0, refused = 0;
	uint32_t i, now = 1;

	(void)state;
	for (i = 0; i < CAP; i++)
		assert_true((idx[i] = ins(t, &g, i, false, now)) >= 0);
	assert_int_equal(fc_table_reader_register(t, 0), 0);
	for (i = 0; i < FLOOD; i++) {
		int rc = ins(t, &g, SPOOF_BASE + i, true, now);

		if (rc >= 0)
			ok++;
		else
			refused++;
		assert_true(rc >= 0 || rc == -ENOSPC);
	}
	/* The headroom (1,024 key slots for a table of 2,048) took the first ones. */
	assert_true(ok >= 1024 && ok < 1100);
	assert_int_equal(stats(t).refused, refused);
	assert_int_equal(stats(t).refused_grace, refused);
	assert_int_equal(g.established, 2);
	assert_int_equal(stats(t).occupancy, CAP);
	/* The reader reports: inserts go in again. */
	fc_table_quiescent(t, 0);
	assert_true(ins(t, &g, SPOOF_BASE + FLOOD, true, now) >= 0);
	assert_int_equal(stats(t).refused_grace, refused);
	assert_int_equal(g.established, 2);
	assert_int_equal(fc_table_reader_unregister(t, 0), 0);
	fc_table_free(t);
}

/*
 * The latest insert is never the victim: a connection's two entries go in
 * one after the other, and the second must not push out the first, even
 * where the first is the only entry not established.
 */
static void
test_latest_kept(void **state)
{
	enum { CAP = 64 };
	struct gone g = { 0 };
	struct fc_table *t = storm_table("storm_latest", CAP, &g);
	int x;
	uint32_t i;

	(void)state;
	for (i = 0; i < CAP; i++)
		assert_true(ins(t, &g, i, false, 1) >= 0);
	x = ins(t, &g, SPOOF_BASE, true, 1000);
	assert_true(x >= 0);
	assert_true(ins(t, &g, SPOOF_BASE + 1, true, 1000) >= 0);
	assert_int_equal(find(t, SPOOF_BASE), x);
	assert_int_equal(g.established, 2);
	/* The next takes the oldest not-established entry, no longer the latest. */
	assert_true(ins(t, &g, SPOOF_BASE + 2, true, 1000) >= 0);
	assert_int_equal(find(t, SPOOF_BASE), -ENOENT);
	assert_int_equal(g.established, 2);
	fc_table_free(t);
}

/* The refuse policy counts its refusals as full, not as grace periods. */
static void
test_refuse_reason(void **state)
{
	struct fc_table_params p = {
		.name = "storm_refuse",
		.family = FC_AF_INET4,
		.capacity = 16,
		.max_readers = 1,
		.full_policy = FC_FULL_REFUSE,
		.socket_id = SOCKET_ID_ANY,
	};
	struct fc_table *t = fc_table_create(&p);
	struct gone g = { 0 };
	uint32_t i;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < 16; i++)
		assert_true(ins(t, &g, i, false, 1) >= 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(ins(t, &g, SPOOF_BASE + i, true, 1), -ENOSPC);
	assert_int_equal(stats(t).refused, 10);
	assert_int_equal(stats(t).refused_grace, 0);
	fc_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syn_flood_full),
		cmocka_unit_test(test_syn_flood_room),
		cmocka_unit_test(test_syn_flood_large),
		cmocka_unit_test(test_syn_flood_completed),
		cmocka_unit_test(test_syn_flood_stuck_reader),
		cmocka_unit_test(test_latest_kept),
		cmocka_unit_test(test_refuse_reason),
	};
	int ret;

	if (gufc_test_eal_init("storm", "0") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
