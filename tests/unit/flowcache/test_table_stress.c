/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stress test of the flow table's buckets (lib/flowcache/table_bkt.c)
 * under a lock-free reader: the writer keeps a small table nearly full
 * (15/16 of the bucket slots) by inserting, deleting and moving keys, so
 * that inserts displace keys along cuckoo paths all the time, while a
 * reader on another lcore looks up bursts of random keys. Keys inserted
 * before the reader started and never touched again must be found on every
 * lookup, under their own slot and with their own action, however often
 * the writer moved them between their two buckets; keys never inserted
 * must never be found; keys the writer churns may be found or not, but
 * only with a churned key's whole action (a moved entry carries its old
 * key's action until the writer updates it). The test checks the writer did displace
 * keys (so it cannot pass vacuously). Before the race, tables filled to
 * their capacity at the buckets' fullest load keep every key findable.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "eal_test.h"
#include "flowcache.h"
#include "table_priv.h" /* fc_table::moves: the writer did displace keys */
#include "tbl_fill.h"

#define STRESS_CAP 7600u     /* 1,024 buckets: 93 % of their slots when full */
#define STRESS_STABLE 3000u  /* inserted first, never touched again */
#define STRESS_CHURN 20000u  /* inserted, deleted and moved by the writer */
#define STRESS_ABSENT_BASE 0x00800000u /* keys from here on are never inserted */
#define STRESS_OPS 400000u   /* writer operations, at least */
#define STRESS_MIN_LOOPS 2000u /* reader bursts, at least */
#define STRESS_BURST 32u
#define MAX_KEY 48

/* Key number @p i of @p family, normalized: distinct for distinct i. */
static void
key_of(uint8_t family, uint32_t i, void *buf)
{
	if (family == FC_AF_INET4) {
		struct fc_key_v4 *k = buf;

		memset(k, 0, sizeof(*k));
		k->src = rte_cpu_to_be_32(0x0a000000u + i);
		k->dst = rte_cpu_to_be_32(0xc6336400u + (i % 251));
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + i % 30011));
		k->dport = rte_cpu_to_be_16(443);
		k->proto = 6;
		fc_key_v4_normalize(k);
	} else {
		struct fc_key_v6 *k = buf;

		memset(k, 0, sizeof(*k));
		k->src[0] = 0x20;
		k->src[1] = 0x01;
		k->src[12] = (uint8_t)(i >> 24);
		k->src[13] = (uint8_t)(i >> 16);
		k->src[14] = (uint8_t)(i >> 8);
		k->src[15] = (uint8_t)i;
		k->dst[0] = 0x20;
		k->dst[15] = (uint8_t)(i % 251);
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + i % 30011));
		k->dport = rte_cpu_to_be_16(53);
		k->proto = 17;
		fc_key_v6_normalize(k);
	}
}

/* Key @p i's action: every field a function of i. */
static void
act_of(uint32_t i, struct fc_action *a)
{
	memset(a, 0, sizeof(*a));
	a->gen = i;
	a->rule_id = ~i;
	a->nat_id = i * 2654435761u;
	a->channel = (uint16_t)i;
}

static bool
act_is(const struct fc_action *a, uint32_t i)
{
	struct fc_action w;

	act_of(i, &w);
	return memcmp(a, &w, sizeof(w)) == 0;
}

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

struct stress {
	struct fc_table *t;
	uint8_t family;
	uint32_t stable_slot[STRESS_STABLE];
	int reader_ready;
	int writer_done;
	/* Reader's findings. */
	uint64_t loops;
	uint64_t stable_lookups;
	uint64_t stable_missed;
	uint64_t stable_wrong;  /* another slot or action */
	uint64_t absent_found;
	uint64_t churn_hits;
	uint64_t churn_wrong;   /* a churned key served a torn or a stable key's action */
};

static int
stress_reader(void *arg)
{
	struct stress *r = arg;
	uint8_t kbuf[STRESS_BURST][MAX_KEY];
	const void *keys[STRESS_BURST];
	uint32_t ids[STRESS_BURST], sigs[STRESS_BURST], idx[STRESS_BURST];
	struct fc_action acts[STRESS_BURST];
	uint32_t seed = 12345;
	uint64_t hit_mask;

	if (fc_table_reader_register(r->t, 1) != 0)
		return -1;
	__atomic_store_n(&r->reader_ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->writer_done, __ATOMIC_ACQUIRE)) {
		for (unsigned int i = 0; i < STRESS_BURST; i++) {
			uint32_t d = lcg(&seed) % 8;

			if (d < 4)
				ids[i] = lcg(&seed) % STRESS_STABLE;
			else if (d < 6)
				ids[i] = STRESS_STABLE + lcg(&seed) % STRESS_CHURN;
			else
				ids[i] = STRESS_ABSENT_BASE + lcg(&seed) % 100000u;
			key_of(r->family, ids[i], kbuf[i]);
			keys[i] = kbuf[i];
		}
		fc_table_hash_bulk(r->t, keys, sigs, STRESS_BURST);
		fc_table_lookup_bulk(r->t, 1, keys, sigs, STRESS_BURST, &hit_mask, acts, idx);
		for (unsigned int i = 0; i < STRESS_BURST; i++) {
			bool hit = (hit_mask >> i) & 1;

			if (ids[i] < STRESS_STABLE) {
				r->stable_lookups++;
				if (!hit)
					r->stable_missed++;
				else if (idx[i] != r->stable_slot[ids[i]] || !act_is(&acts[i], ids[i]))
					r->stable_wrong++;
			} else if (ids[i] >= STRESS_ABSENT_BASE) {
				r->absent_found += hit;
			} else if (hit) {
				r->churn_hits++;
				/* A moved entry keeps its action a moment: a churned key's, whole. */
				r->churn_wrong += !act_is(&acts[i], acts[i].gen) ||
						  acts[i].gen < STRESS_STABLE ||
						  acts[i].gen >= STRESS_STABLE + STRESS_CHURN;
			}
		}
		r->loops++;
		fc_table_quiescent(r->t, 1);
	}
	fc_table_reader_unregister(r->t, 1);
	return 0;
}

static void
stress_run(uint8_t family, const char *name)
{
	static struct stress r;
	static uint32_t live[STRESS_CHURN];  /* churn key ids now in the table */
	static int32_t where[STRESS_CHURN];  /* index in live[], or -1 */
	struct fc_table_params p = {
		.name = name,
		.family = family,
		.capacity = STRESS_CAP,
		.max_readers = 2,
		.full_policy = FC_FULL_REFUSE,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t seed = 99, n_live = 0, op, refused = 0, moved = 0;
	uint8_t key[MAX_KEY];
	struct fc_action a;
	unsigned int lcore;
	uint64_t moves0;

	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE)
		skip();
	memset(&r, 0, sizeof(r));
	r.family = family;
	r.t = fc_table_create(&p);
	assert_non_null(r.t);
	for (uint32_t i = 0; i < STRESS_STABLE; i++) {
		int pos;

		key_of(family, i, key);
		act_of(i, &a);
		pos = fc_table_insert(r.t, key, fc_table_hash(r.t, key), &a, 0, 1);
		assert_true(pos >= 0);
		r.stable_slot[i] = (uint32_t)pos;
	}
	for (uint32_t i = 0; i < STRESS_CHURN; i++)
		where[i] = -1;
	moves0 = r.t->moves;
	assert_int_equal(rte_eal_remote_launch(stress_reader, &r, lcore), 0);
	while (!__atomic_load_n(&r.reader_ready, __ATOMIC_ACQUIRE))
		rte_pause();

	/* Until the reader has had its share: bursts, and a churned key seen
	 * (a reader that gets its core late on a busy machine sees none in
	 * the first STRESS_OPS; bounded, so a reader that never finds one fails). */
	for (op = 0; op < STRESS_OPS ||
		__atomic_load_n(&r.loops, __ATOMIC_RELAXED) < STRESS_MIN_LOOPS ||
		(__atomic_load_n(&r.churn_hits, __ATOMIC_RELAXED) == 0 && op < 64u * STRESS_OPS);
		op++) {
		uint32_t d = lcg(&seed) % 16;
		uint32_t c = lcg(&seed) % STRESS_CHURN;
		int pos;

		if (where[c] < 0 && (r.t->count + 8 < STRESS_CAP || d < 4)) {
			key_of(family, STRESS_STABLE + c, key);
			act_of(STRESS_STABLE + c, &a);
			pos = fc_table_insert(r.t, key, fc_table_hash(r.t, key), &a, 0, op);
			if (pos == -ENOSPC) {
				refused++;
				continue;
			}
			assert_true(pos >= 0);
			where[c] = (int32_t)n_live;
			live[n_live++] = c;
		} else if (n_live > 0) {
			uint32_t j = lcg(&seed) % n_live, v = live[j], m;

			key_of(family, STRESS_STABLE + v, key);
			pos = fc_table_lookup(r.t, key, fc_table_hash(r.t, key));
			assert_true(pos >= 0);
			m = lcg(&seed) % STRESS_CHURN;
			if (d == 15 && where[m] < 0) {
				/* The entry of v goes to key m, action and all: m's action is v's. */
				uint8_t nkey[MAX_KEY];

				key_of(family, STRESS_STABLE + m, nkey);
				pos = fc_table_move(r.t, (uint32_t)pos, nkey, fc_table_hash(r.t, nkey));
				if (pos >= 0) {
					act_of(STRESS_STABLE + m, &a);
					assert_int_equal(fc_table_update(r.t, (uint32_t)pos, &a, 0), 0);
					moved++;
					where[m] = where[v];
					live[where[v]] = m;
					where[v] = -1;
					continue;
				}
				assert_int_equal(pos, -ENOSPC);
				continue;
			}
			assert_int_equal(fc_table_delete(r.t, (uint32_t)pos), 0);
			live[where[v]] = live[--n_live];
			where[live[where[v]]] = where[v];
			where[v] = -1;
		}
	}
	__atomic_store_n(&r.writer_done, 1, __ATOMIC_RELEASE);
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);

	print_message("%s: writer ops %u (refused %u, moved %u), cuckoo displacements %" PRIu64
		      "; reader bursts %" PRIu64 ", stable lookups %" PRIu64 " (missed %" PRIu64
		      ", wrong %" PRIu64 "), churned hits %" PRIu64 " (wrong %" PRIu64
		      "), absent found %" PRIu64 "\n",
		name, op, refused, moved, r.t->moves - moves0, r.loops, r.stable_lookups,
		r.stable_missed, r.stable_wrong, r.churn_hits, r.churn_wrong, r.absent_found);
	assert_true(r.t->moves - moves0 > 200);
	assert_true(r.stable_lookups > 0);
	assert_int_equal(r.stable_missed, 0);
	assert_int_equal(r.stable_wrong, 0);
	assert_int_equal(r.absent_found, 0);
	assert_int_equal(r.churn_wrong, 0);
	assert_true(r.churn_hits > 0);
	/* The writer's view after the race: every stable key in its slot, every churned one found. */
	for (uint32_t i = 0; i < STRESS_STABLE; i++) {
		key_of(family, i, key);
		assert_int_equal(fc_table_lookup(r.t, key, fc_table_hash(r.t, key)),
			(int)r.stable_slot[i]);
	}
	for (uint32_t j = 0; j < n_live; j++) {
		key_of(family, STRESS_STABLE + live[j], key);
		assert_true(fc_table_lookup(r.t, key, fc_table_hash(r.t, key)) >= 0);
	}
	assert_int_equal(r.t->count, STRESS_STABLE + n_live);
	fc_table_free(r.t);
}

/*
 * A table filled to its capacity where the buckets are at their fullest
 * (15/16 of their slots): every insert succeeds, every key is found by the
 * readers' bulk lookup under the slot its insert gave, and after half the
 * keys leave and others take their place, the same holds. The cuckoo
 * moves it took are in the table's counters (fc_table_stats::moves).
 */
static void
fill_run(uint8_t family, uint32_t cap)
{
	struct fc_table_params p = {
		.name = "fill",
		.family = family,
		.capacity = cap,
		.max_readers = 1,
		.full_policy = FC_FULL_REFUSE,
		.socket_id = SOCKET_ID_ANY,
		.hash_seed = 4242,
	};
	const struct tbl_fill f = {.family = family, .key = key_of, .act = act_of};
	uint32_t *slot = calloc(2 * (size_t)cap, sizeof(*slot));
	uint8_t key[MAX_KEY];
	struct fc_table *t = fc_table_create(&p);
	struct fc_table_stats st;
	struct fc_action a;

	assert_non_null(t);
	assert_non_null(slot);
	fc_table_stats_get(t, &st);
	assert_int_equal(st.moves, 0);
	assert_int_equal(fc_table_reader_register(t, 0), 0);
	tbl_fill_insert(t, &f, 0, cap, 1, false, slot);
	key_of(family, cap, key);
	act_of(cap, &a);
	assert_int_equal(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, 1), -ENOSPC);
	for (unsigned int round = 0; round < 2; round++) {
		uint32_t from = round == 0 ? 0 : cap / 2;

		tbl_fill_check(t, &f, from, from + cap, slot + from);
		if (round == 1)
			break;
		/* The first half leaves; as many new keys come (a grace period each 256). */
		for (uint32_t i = 0; i < cap / 2; i++)
			assert_int_equal(fc_table_delete(t, slot[i]), 0);
		fc_table_quiescent(t, 0);
		for (uint32_t i = cap, next; i < cap + cap / 2; i = next) {
			next = RTE_MIN((i | 255) + 1, cap + cap / 2);
			if ((i & 255) == 0)
				fc_table_quiescent(t, 0);
			tbl_fill_insert(t, &f, i, next, 1, false, slot + i);
		}
		/* The keys that left are gone. */
		for (uint32_t i = 0; i < cap / 2; i += 97) {
			key_of(family, i, key);
			assert_int_equal(fc_table_lookup(t, key, fc_table_hash(t, key)), -ENOENT);
		}
	}
	print_message("fill: %u %s entries at 15/16 bucket load, %" PRIu64 " cuckoo moves\n",
		cap, family == FC_AF_INET4 ? "IPv4" : "IPv6", t->moves);
	assert_true(t->moves > 0);
	/* The counters show every one of them (shell, telemetry, JSON). */
	fc_table_stats_get(t, &st);
	assert_int_equal(st.moves, t->moves);
	fc_table_reader_unregister(t, 0);
	fc_table_free(t);
	free(slot);
}

static void
test_fill(void **state)
{
	(void)state;
	fill_run(FC_AF_INET4, STRESS_CAP);
	fill_run(FC_AF_INET4, 122000); /* 16,384 buckets */
	fill_run(FC_AF_INET6, 122000);
}

static void
test_stress_v4(void **state)
{
	(void)state;
	stress_run(FC_AF_INET4, "stress4");
}

static void
test_stress_v6(void **state)
{
	(void)state;
	stress_run(FC_AF_INET6, "stress6");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_stress_v4),
		cmocka_unit_test(test_stress_v6),
	};
	int ret;

	if (gufc_test_eal_init("table_stress", "0-1") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
