/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the flow table (lib/flowcache/table.c): creation checks,
 * insert/lookup/delete for both families, bulk lookups, the two full-table
 * policies, aging, flush, iteration, statistics, RCU slot reuse with a stuck
 * reader, and a writer/reader race on two lcores that checks no reader ever
 * copies a torn action or one that belongs to another key.
 *
 * Every action is derived from one 32-bit value v (act_from()), so a copy
 * mixing two versions is detectable, and v encodes the key it was stored
 * under, so an action served for the wrong key is detectable too.
 */

#include <inttypes.h>
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
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "eal_test.h"
#include "flowcache.h"
#include "tbl_fill.h"

#define MAX_KEY 48

/* ---------------------------------------------------------------- helpers */

/* Key number @p i of family @p family, normalized, into @p buf. */
static void
make_key(uint8_t family, uint32_t i, void *buf)
{
	if (family == FC_AF_INET4) {
		struct fc_key_v4 *k = buf;

		memset(k, 0xee, sizeof(*k)); /* no padding left: every field set */
		k->src = rte_cpu_to_be_32(0x0a000000u + i);
		k->dst = rte_cpu_to_be_32(0xc0a80001u);
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + (i & 0x7fff)));
		k->dport = rte_cpu_to_be_16(80);
		k->proto = 6;
		k->flags = (uint8_t)(i & FC_KEY_F_DST_LOCAL);
		k->in_port = 0;
		fc_key_v4_normalize(k);
	} else {
		struct fc_key_v6 *k = buf;

		memset(k, 0xee, sizeof(*k)); /* normalize must clear the padding */
		memset(k->src, 0, sizeof(k->src));
		memset(k->dst, 0, sizeof(k->dst));
		k->src[0] = 0x20;
		k->src[1] = 0x01;
		k->src[12] = (uint8_t)(i >> 24);
		k->src[13] = (uint8_t)(i >> 16);
		k->src[14] = (uint8_t)(i >> 8);
		k->src[15] = (uint8_t)i;
		k->dst[0] = 0x20;
		k->dst[1] = 0x01;
		k->dst[15] = 1;
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + (i & 0x7fff)));
		k->dport = rte_cpu_to_be_16(443);
		k->proto = 17;
		k->flags = 0;
		k->in_port = 0;
		fc_key_v6_normalize(k);
	}
}

/* Every field of the action derived from @p v. */
static void
act_from(uint32_t v, struct fc_action *a)
{
	unsigned int k;

	memset(a, 0, sizeof(*a));
	a->gen = v;
	a->rule_id = ~v;
	a->nat_id = v * 2654435761u;
	a->ext = v ^ 0x5a5a5a5au; /* the reserved fields travel like the others */
	a->adj = (uint16_t)(v * 3u);
	a->pkt_class = (uint16_t)(v * 5u);
	a->channel = (uint16_t)v;
	a->out_port = (uint16_t)(v >> 16);
	a->interest = (uint16_t)(v * 7u);
	a->verdict = (uint8_t)v;
	a->flags = (uint8_t)(v >> 8);
	a->ct_state = (uint8_t)(v >> 16);
	for (k = 0; k < RTE_DIM(a->mod); k++)
		a->mod[k] = (uint8_t)((v >> (8 * (k % 4))) ^ k);
}

/* True if every field of @p a derives from the same v (= a->gen). */
static bool
act_consistent(const struct fc_action *a)
{
	struct fc_action want;

	act_from(a->gen, &want);
	return memcmp(&want, a, sizeof(want)) == 0;
}

static bool
act_is(const struct fc_action *a, uint32_t v)
{
	return a->gen == v && act_consistent(a);
}

/* What remove_cb saw. */
struct cb_log {
	unsigned int calls;
	uint32_t last_idx;
	uint8_t last_key[MAX_KEY];
	struct fc_entry last_entry;
	uint32_t key_size;
};

static void
record_remove(struct fc_table *t, const void *key, uint32_t idx, const struct fc_entry *e,
	void *arg)
{
	struct cb_log *log = arg;

	assert_non_null(t);
	assert_non_null(key);
	assert_non_null(e);
	/* Called before the key leaves the table. */
	assert_ptr_equal(fc_table_entry(t, idx), e);
	assert_int_equal(fc_table_lookup(t, key, fc_table_hash(t, key)), (int)idx);
	log->calls++;
	log->last_idx = idx;
	memcpy(log->last_key, key, fc_table_key_size(t));
	log->last_entry = *e;
}

static struct fc_table *
new_table(const char *name, uint8_t family, uint32_t capacity, enum fc_full_policy policy,
	struct cb_log *log)
{
	struct fc_table_params p = {
		.name = name,
		.family = family,
		.capacity = capacity,
		.max_readers = 2,
		.full_policy = policy,
		.socket_id = SOCKET_ID_ANY,
		.remove_cb = log != NULL ? record_remove : NULL,
		.remove_arg = log,
	};
	struct fc_table *t = fc_table_create(&p);

	assert_non_null(t);
	return t;
}

static int
insert_v(struct fc_table *t, uint8_t family, uint32_t i, uint32_t v, uint32_t timeout,
	uint32_t now)
{
	uint8_t key[MAX_KEY];
	struct fc_action a;

	make_key(family, i, key);
	act_from(v, &a);
	return fc_table_insert(t, key, fc_table_hash(t, key), &a, timeout, now);
}

static int
lookup_i(const struct fc_table *t, uint8_t family, uint32_t i)
{
	uint8_t key[MAX_KEY];

	make_key(family, i, key);
	return fc_table_lookup(t, key, fc_table_hash(t, key));
}

/* IPv4 keys of make_key() with act_from() of their number, for tbl_fill_*(). */
static const struct tbl_fill fill4 = {.family = FC_AF_INET4, .key = make_key, .act = act_from};

/* IPv4 keys @p from to @p to - 1, all with action @p a, key i at @p now + i - from. */
static void
fill_a(struct fc_table *t, const struct fc_action *a, uint32_t from, uint32_t to, uint32_t now)
{
	const struct tbl_fill f = {.family = FC_AF_INET4, .key = make_key, .a = *a};

	tbl_fill_insert(t, &f, from, to, now, true, NULL);
}

static struct fc_table_stats
stats(const struct fc_table *t)
{
	struct fc_table_stats s;

	fc_table_stats_get(t, &s);
	return s;
}

/*
 * fc_table_walk(): every slot examined costs one unit of budget, free ones
 * included, so a walk over a big, nearly empty table is as many bounded
 * steps as over a full one (an unbounded skip over free slots stalled the
 * rules lcore with --flows 4194304); the walk finds what fc_table_iterate()
 * finds.
 */
static void
test_walk_bounded(void **state)
{
	enum { CAP = 65536, N = 40 };
	struct fc_table *t = new_table("walk", FC_AF_INET4, CAP, FC_FULL_REFUSE, NULL);
	uint32_t next = 0, budget = 100, idx, found = 0, calls = 0, it = 0, it_n = 0;
	const struct fc_table_view *v = (const struct fc_table_view *)(const void *)t;
	const void *key;
	int rc;

	(void)state;
	/* Empty: one call examines exactly the budget, then stops. */
	assert_int_equal(fc_table_walk(t, &next, &budget, &key, &idx), -EAGAIN);
	assert_int_equal(budget, 0);
	assert_int_equal(next, 100);
	tbl_fill_insert(t, &fill4, 0, N, 0, false, NULL);
	/* Delete all but the last: the live entry sits behind N - 1 free slots. */
	for (uint32_t i = 0; i + 1 < N; i++)
		assert_int_equal(fc_table_delete(t, (uint32_t)lookup_i(t, FC_AF_INET4, i)), 0);
	while (fc_table_iterate(t, &it, NULL, NULL) == 0)
		it_n++;
	assert_int_equal(it_n, 1);
	/* Steps of 7 slots: never more than 7 examined per call, the one entry found once. */
	next = 0;
	for (;;) {
		uint32_t before = next;

		budget = 7;
		rc = fc_table_walk(t, &next, &budget, &key, &idx);
		calls++;
		assert_true(next - before <= 7);
		assert_int_equal(next - before, 7 - budget);
		if (rc == 0) {
			found++;
			assert_int_equal(idx, (uint32_t)lookup_i(t, FC_AF_INET4, N - 1));
			assert_ptr_equal(key, fc_table_key(t, idx));
			continue;
		}
		if (rc == -ENOENT)
			break;
		assert_int_equal(rc, -EAGAIN);
	}
	assert_int_equal(found, 1);
	assert_int_equal(next, v->n_slots);
	assert_true(calls >= v->n_slots / 7);
	fc_table_free(t);
}

/* ---------------------------------------------------------------- create */

static void
test_create_bad_params(void **state)
{
	static const char long_name[] = "a_table_name_that_is_far_too_long_for_a_memzone";
	const struct fc_table_params good = {
		.name = "bad",
		.family = FC_AF_INET4,
		.capacity = 64,
		.max_readers = 1,
		.full_policy = FC_FULL_REFUSE,
		.socket_id = SOCKET_ID_ANY,
	};
	struct {
		const char *what;
		struct fc_table_params p;
		bool null_params;
	} cases[] = {
		{ "NULL params", good, true },
		{ "NULL name", good, false },
		{ "empty name", good, false },
		{ "long name", good, false },
		{ "capacity 0", good, false },
		{ "capacity huge", good, false },
		{ "family none", good, false },
		{ "family 5", good, false },
		{ "max_readers 0", good, false },
		{ "max_readers too many", good, false },
		{ "bad policy", good, false },
	};
	struct fc_table *t;
	unsigned int i;

	(void)state;
	cases[1].p.name = NULL;
	cases[2].p.name = "";
	cases[3].p.name = long_name;
	cases[4].p.capacity = 0;
	cases[5].p.capacity = UINT32_MAX;
	cases[6].p.family = FC_AF_NONE;
	cases[7].p.family = 5;
	cases[8].p.max_readers = 0;
	cases[9].p.max_readers = RTE_MAX_LCORE + 1;
	cases[10].p.full_policy = (enum fc_full_policy)7;

	for (i = 0; i < RTE_DIM(cases); i++) {
		rte_errno = 0;
		t = fc_table_create(cases[i].null_params ? NULL : &cases[i].p);
		if (t != NULL || rte_errno != EINVAL)
			fail_msg("case '%s': got %p, rte_errno %d", cases[i].what, (void *)t,
				rte_errno);
	}

	/* The good parameters work, and the name is then taken. */
	t = fc_table_create(&good);
	assert_non_null(t);
	assert_int_equal(fc_table_key_size(t), 16);
	rte_errno = 0;
	assert_null(fc_table_create(&good));
	assert_int_equal(rte_errno, EEXIST);
	fc_table_free(t);

	/* Freed: the name is free again. */
	t = fc_table_create(&good);
	assert_non_null(t);
	fc_table_free(t);
	fc_table_free(NULL);
}

static void
test_hash_seed(void **state)
{
	struct fc_table_params p = {
		.name = "seed",
		.family = FC_AF_INET6,
		.capacity = 16,
		.max_readers = 1,
		.full_policy = FC_FULL_REFUSE,
		.hash_seed = 0x12345678,
		.socket_id = SOCKET_ID_ANY,
	};
	struct fc_table *a, *b;
	uint8_t key[MAX_KEY];
	bool differ = false;
	uint32_t i;

	(void)state;
	/* A given seed: the same secret, so the same hash, in another table. */
	a = fc_table_create(&p);
	p.name = "seed1";
	b = fc_table_create(&p);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(fc_table_key_size(a), 48);
	for (i = 0; i < 4; i++) {
		make_key(FC_AF_INET6, i, key);
		assert_int_equal(fc_table_hash(a, key), fc_table_hash(b, key));
	}
	fc_table_free(b);
	/* Another seed: another secret. */
	p.hash_seed = 0x12345679;
	b = fc_table_create(&p);
	assert_non_null(b);
	for (i = 0; i < 4; i++) {
		make_key(FC_AF_INET6, i, key);
		differ |= fc_table_hash(a, key) != fc_table_hash(b, key);
	}
	assert_true(differ);
	fc_table_free(a);
	fc_table_free(b);
	differ = false;
	p.name = "seed";

	/* Seed 0: random per table, so two tables hash differently. */
	p.hash_seed = 0;
	a = fc_table_create(&p);
	p.name = "seed2";
	b = fc_table_create(&p);
	assert_non_null(a);
	assert_non_null(b);
	for (i = 0; i < 4; i++) {
		make_key(FC_AF_INET6, i, key);
		differ |= fc_table_hash(a, key) != fc_table_hash(b, key);
	}
	assert_true(differ);
	fc_table_free(a);
	fc_table_free(b);
}

/* ---------------------------------------------------- insert, lookup, delete */

static void
check_basic(uint8_t family)
{
	enum { N = 300 };
	struct fc_table *t = new_table("basic", family, 512, FC_FULL_REFUSE, NULL);
	const uint32_t ks = family == FC_AF_INET4 ? 16 : 48;
	uint8_t key[MAX_KEY];
	struct fc_action a;
	int idx[N];
	uint32_t i;

	assert_int_equal(fc_table_key_size(t), ks);
	for (i = 0; i < N; i++) {
		idx[i] = insert_v(t, family, i, 1000 + i, 60, 500 + i);
		assert_true(idx[i] >= 0);
	}
	assert_int_equal(stats(t).occupancy, N);
	assert_int_equal(stats(t).inserts, N);

	for (i = 0; i < N; i++) {
		const struct fc_entry *e;

		assert_int_equal(lookup_i(t, family, i), idx[i]);
		e = fc_table_entry(t, (uint32_t)idx[i]);
		assert_non_null(e);
		assert_true(act_is(&e->act, 1000 + i));
		assert_int_equal(fc_table_timeout(t, (uint32_t)idx[i]), 60);
		assert_int_equal(fc_table_created(t, (uint32_t)idx[i]), 500 + i);
		assert_int_equal(fc_table_peer(t, (uint32_t)idx[i]), FC_INDEX_NONE);
		assert_int_equal(e->last_seen, 500 + i);
		assert_int_equal(fc_table_packets(t, (uint32_t)idx[i]), 0);
		assert_int_equal(e->packets_lo, 0);
		assert_int_equal(e->bytes_lo, 0);
		assert_true(e->seq != 0 && (e->seq & 1) == 0);
		make_key(family, i, key);
		assert_non_null(fc_table_key(t, (uint32_t)idx[i]));
		assert_memory_equal(fc_table_key(t, (uint32_t)idx[i]), key, ks);
	}
	/* Keys never inserted miss; a key differing in the local bit too. */
	assert_int_equal(lookup_i(t, family, N + 1), -ENOENT);
	make_key(family, 0, key);
	((uint8_t *)key)[family == FC_AF_INET4 ? 13 : 37] ^= FC_KEY_F_SRC_LOCAL;
	assert_int_equal(fc_table_lookup(t, key, fc_table_hash(t, key)), -ENOENT);

	/* Touch accounts packets, bytes, last_seen. */
	fc_table_touch(t, (uint32_t)idx[3], 100, 900);
	fc_table_touch(t, (uint32_t)idx[3], 60, 901);
	{
		uint64_t p, b;

		fc_table_counters(t, (uint32_t)idx[3], &p, &b);
		assert_int_equal(p, 2);
		assert_int_equal(b, 160);
	}
	assert_int_equal(fc_table_entry(t, (uint32_t)idx[3])->last_seen, 901);

	/* Delete the even ones. */
	for (i = 0; i < N; i += 2)
		assert_int_equal(fc_table_delete(t, (uint32_t)idx[i]), 0);
	for (i = 0; i < N; i++) {
		if (i % 2 == 0) {
			assert_int_equal(lookup_i(t, family, i), -ENOENT);
			assert_null(fc_table_entry(t, (uint32_t)idx[i]));
			assert_null(fc_table_key(t, (uint32_t)idx[i]));
			assert_int_equal(fc_table_delete(t, (uint32_t)idx[i]), -ENOENT);
			act_from(1, &a);
			assert_int_equal(fc_table_update(t, (uint32_t)idx[i], &a, 1), -ENOENT);
		} else {
			assert_int_equal(lookup_i(t, family, i), idx[i]);
		}
	}
	assert_int_equal(stats(t).occupancy, N / 2);
	assert_int_equal(stats(t).deletes, N / 2);

	/* Out-of-range indexes. */
	assert_int_equal(fc_table_delete(t, FC_INDEX_NONE), -ENOENT);
	assert_null(fc_table_entry(t, FC_INDEX_NONE));
	assert_null(fc_table_key(t, 1u << 30));

	/* Deleted keys can come back. */
	for (i = 0; i < N; i += 2) {
		int r = insert_v(t, family, i, 7000 + i, 0, 1);

		assert_true(r >= 0);
		assert_true(act_is(&fc_table_entry(t, (uint32_t)r)->act, 7000 + i));
	}
	assert_int_equal(stats(t).occupancy, N);
	fc_table_free(t);
}

static void
test_basic_v4(void **state)
{
	(void)state;
	check_basic(FC_AF_INET4);
}

static void
test_basic_v6(void **state)
{
	(void)state;
	check_basic(FC_AF_INET6);
}

static void
test_duplicate(void **state)
{
	struct fc_table *t = new_table("dup", FC_AF_INET4, 8, FC_FULL_EVICT_IDLE, NULL);
	int idx;

	(void)state;
	idx = insert_v(t, FC_AF_INET4, 1, 11, 0, 0);
	assert_true(idx >= 0);
	assert_int_equal(insert_v(t, FC_AF_INET4, 1, 22, 0, 0), -EEXIST);
	assert_true(act_is(&fc_table_entry(t, (uint32_t)idx)->act, 11));
	assert_int_equal(stats(t).occupancy, 1);
	assert_int_equal(stats(t).inserts, 1);
	fc_table_free(t);
}

/* ---------------------------------------------------------------- bulk */

static void
test_bulk_mixed(void **state)
{
	enum { N = 64 };
	struct fc_table *t = new_table("bulk", FC_AF_INET4, 256, FC_FULL_REFUSE, NULL);
	struct fc_key_v4 keys[N];
	const void *kp[N];
	uint32_t sigs[N], idx[N];
	struct fc_action acts[N];
	int where[N];
	uint64_t mask, want = 0;
	unsigned int hits;
	uint32_t i;

	(void)state;
	assert_int_equal(fc_table_reader_register(t, 0), 0);
	for (i = 0; i < N; i++) {
		make_key(FC_AF_INET4, i, &keys[i]);
		kp[i] = &keys[i];
		sigs[i] = fc_table_hash(t, &keys[i]);
		where[i] = -1;
		if (i % 3 != 1) {
			where[i] = insert_v(t, FC_AF_INET4, i, 0x100 + i, 0, 0);
			assert_true(where[i] >= 0);
			want |= UINT64_C(1) << i;
		}
	}

	memset(acts, 0, sizeof(acts));
	hits = fc_table_lookup_bulk(t, 0, kp, sigs, N, &mask, acts, idx);
	assert_int_equal(mask, want);
	assert_int_equal(hits, __builtin_popcountll(want));
	for (i = 0; i < N; i++) {
		if (where[i] >= 0) {
			assert_int_equal(idx[i], (uint32_t)where[i]);
			assert_true(act_is(&acts[i], 0x100 + i));
		} else {
			assert_int_equal(idx[i], FC_INDEX_NONE);
		}
	}

	/* A short burst from the middle. */
	hits = fc_table_lookup_bulk(t, 0, kp + 1, sigs + 1, 5, &mask, acts, idx);
	assert_int_equal(mask, (want >> 1) & 0x1f);
	assert_int_equal(hits, __builtin_popcountll((want >> 1) & 0x1f));

	/* Nothing to look up. */
	mask = ~UINT64_C(0);
	assert_int_equal(fc_table_lookup_bulk(t, 0, kp, sigs, 0, &mask, acts, idx), 0);
	assert_int_equal(mask, 0);

	/* Deleted entries read as misses at once. */
	assert_int_equal(fc_table_delete(t, (uint32_t)where[0]), 0);
	hits = fc_table_lookup_bulk(t, 0, kp, sigs, 1, &mask, acts, idx);
	assert_int_equal(hits, 0);
	assert_int_equal(mask, 0);

	{
		struct fc_table_stats s = stats(t);
		uint64_t h = __builtin_popcountll(want) + __builtin_popcountll((want >> 1) & 0x1f);

		assert_int_equal(s.lookups, N + 5 + 1);
		assert_int_equal(s.hits, h);
		assert_int_equal(s.misses, N + 5 + 1 - h);
	}
	assert_int_equal(fc_table_reader_unregister(t, 0), 0);
	fc_table_free(t);
}

static void
test_update_visible(void **state)
{
	struct fc_table *t = new_table("upd", FC_AF_INET6, 16, FC_FULL_REFUSE, NULL);
	uint8_t key[MAX_KEY];
	const void *kp[1] = { key };
	uint32_t sig, idx;
	struct fc_action a;
	uint64_t mask;
	uint32_t seq;
	int pos;

	(void)state;
	assert_int_equal(fc_table_reader_register(t, 1), 0);
	make_key(FC_AF_INET6, 5, key);
	sig = fc_table_hash(t, key);
	pos = insert_v(t, FC_AF_INET6, 5, 111, 30, 0);
	assert_true(pos >= 0);
	assert_int_equal(fc_table_lookup_bulk(t, 1, kp, &sig, 1, &mask, &a, &idx), 1);
	assert_true(act_is(&a, 111));

	seq = fc_table_entry(t, (uint32_t)pos)->seq;
	act_from(222, &a);
	assert_int_equal(fc_table_update(t, (uint32_t)pos, &a, 99), 0);
	assert_true(fc_table_entry(t, (uint32_t)pos)->seq != seq);
	assert_int_equal(fc_table_entry(t, (uint32_t)pos)->seq & 1, 0);
	assert_int_equal(fc_table_timeout(t, (uint32_t)pos), 99);
	memset(&a, 0, sizeof(a));
	assert_int_equal(fc_table_lookup_bulk(t, 1, kp, &sig, 1, &mask, &a, &idx), 1);
	assert_true(act_is(&a, 222));
	assert_int_equal(idx, (uint32_t)pos);

	assert_int_equal(fc_table_update(t, FC_INDEX_NONE, &a, 0), -ENOENT);
	assert_int_equal(fc_table_update(t, (uint32_t)pos ^ 1, &a, 0), -ENOENT);
	assert_int_equal(fc_table_reader_unregister(t, 1), 0);
	assert_int_equal(fc_table_reader_register(t, 2), -EINVAL); /* max_readers 2 */
	assert_int_equal(fc_table_reader_unregister(t, 2), -EINVAL);
	fc_table_free(t);
}

/*
 * fc_table_move(): the entry under another key (another input port) with
 * its action, timeout, times and counters; the old key gone; no insert or
 * delete counted; refusals change nothing.
 */
static void
check_move(uint8_t family)
{
	struct fc_table *t = new_table(family == FC_AF_INET4 ? "mv4" : "mv6", family, 8,
		FC_FULL_REFUSE, NULL);
	uint8_t key[MAX_KEY], moved[MAX_KEY];
	const void *kp[1] = {moved};
	struct fc_table_stats before;
	const struct fc_entry *e;
	struct fc_action a;
	uint32_t sig, idx;
	uint64_t mask;
	int pos, npos, other;

	assert_int_equal(fc_table_reader_register(t, 0), 0);
	make_key(family, 3, key);
	make_key(family, 3, moved);
	if (family == FC_AF_INET4)
		((struct fc_key_v4 *)moved)->in_port = 5;
	else
		((struct fc_key_v6 *)moved)->in_port = 5;
	sig = fc_table_hash(t, moved);
	pos = insert_v(t, family, 3, 333, 77, 10);
	assert_true(pos >= 0);
	assert_int_equal(fc_table_peer_set(t, (uint32_t)pos, 4242), 0);
	assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 1), 0);
	fc_table_touch(t, (uint32_t)pos, 100, 12);
	fc_table_touch(t, (uint32_t)pos, 50, 13);
	other = insert_v(t, family, 4, 444, 0, 10);
	assert_true(other >= 0);
	before = stats(t);

	npos = fc_table_move(t, (uint32_t)pos, moved, sig);
	assert_true(npos >= 0 && npos != pos);
	assert_int_equal(fc_table_lookup(t, key, fc_table_hash(t, key)), -ENOENT);
	assert_int_equal(fc_table_lookup(t, moved, sig), npos);
	assert_null(fc_table_entry(t, (uint32_t)pos));
	e = fc_table_entry(t, (uint32_t)npos);
	assert_non_null(e);
	assert_true(act_is(&e->act, 333));
	assert_int_equal(fc_table_timeout(t, (uint32_t)npos), 77);
	assert_int_equal(fc_table_created(t, (uint32_t)npos), 10);
	assert_int_equal(fc_table_peer(t, (uint32_t)npos), 4242);
	/* A mark names a slot: the new one has none, the old one's is withdrawn. */
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)npos), 0);
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
	assert_int_equal(e->last_seen, 13);
	{
		uint64_t p, b;

		fc_table_counters(t, (uint32_t)npos, &p, &b);
		assert_int_equal(p, 2);
		assert_int_equal(b, 150);
	}
	assert_int_equal(e->seq & 1, 0);
	assert_memory_equal(fc_table_key(t, (uint32_t)npos), moved, fc_table_key_size(t));
	assert_int_equal(fc_table_lookup_bulk(t, 0, kp, &sig, 1, &mask, &a, &idx), 1);
	assert_true(act_is(&a, 333));
	assert_int_equal(idx, (uint32_t)npos);
	assert_int_equal(stats(t).occupancy, before.occupancy);
	assert_int_equal(stats(t).inserts, before.inserts);
	assert_int_equal(stats(t).deletes, before.deletes);

	/* Refusals: a free slot, a key taken, bad arguments. */
	assert_int_equal(fc_table_move(t, (uint32_t)pos, key, fc_table_hash(t, key)), -ENOENT);
	assert_int_equal(fc_table_move(t, FC_INDEX_NONE, key, fc_table_hash(t, key)), -ENOENT);
	make_key(family, 4, key);
	assert_int_equal(fc_table_move(t, (uint32_t)npos, key, fc_table_hash(t, key)), -EEXIST);
	assert_int_equal(fc_table_move(t, (uint32_t)npos, NULL, 0), -EINVAL);
	assert_int_equal(fc_table_move(NULL, 0, key, 0), -EINVAL);
	assert_true(act_is(&fc_table_entry(t, (uint32_t)npos)->act, 333));
	assert_true(act_is(&fc_table_entry(t, (uint32_t)other)->act, 444));
	assert_int_equal(fc_table_reader_unregister(t, 0), 0);
	fc_table_free(t);
}

/*
 * The idle timeout shares its word with the mark tag: 24 bits, exact below
 * 2^23 units, whole thousands from there on (a value in between rounds up).
 * Neither writer loses the other's bits, and aging decodes.
 */
static void
test_timeout_word(void **state)
{
	static const struct {
		uint32_t in, out;
	} cases[] = {
		{0, 0},
		{1, 1},
		{999, 999},
		{30000, 30000},
		{8388607, 8388607}, /* the last exact one */
		{8388608, 8389000}, /* rounds up to the next thousand */
		{8389000, 8389000},
		{8389001, 8390000},
		{432000000u, 432000000u}, /* 5 days: whole seconds, exact */
		{2147483647u, 2147484000u},
		{4294967000u, 4294967000u}, /* the largest whole thousand */
		{4294967001u, UINT32_MAX},  /* rounds past 32 bits: the most */
		{UINT32_MAX, UINT32_MAX},
	};
	struct fc_table *t = new_table("toword", FC_AF_INET4, 64, FC_FULL_REFUSE, NULL);
	struct fc_action a;
	int pos;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		uint32_t code = fc_timeout_encode(cases[i].in);

		assert_int_equal(code & ~FC_ENTRY_TO_MASK, 0);
		assert_int_equal(fc_timeout_decode(code), cases[i].out);
		assert_int_equal(fc_timeout_stored(cases[i].in), cases[i].out);
		/* What is stored stores again as itself. */
		assert_int_equal(fc_timeout_stored(cases[i].out), cases[i].out);
		/* The tag byte does not leak into the timeout. */
		assert_int_equal(fc_timeout_decode(code | 0xff000000u), cases[i].out);

		pos = insert_v(t, FC_AF_INET4, i, 5, cases[i].in, 1);
		assert_true(pos >= 0);
		assert_int_equal(fc_table_timeout(t, (uint32_t)pos), cases[i].out);
		assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0xa5), 0);
		assert_int_equal(fc_table_timeout(t, (uint32_t)pos), cases[i].out);
		act_from(6, &a);
		assert_int_equal(
			fc_table_update(t, (uint32_t)pos, &a, cases[RTE_DIM(cases) - 1 - i].in), 0);
		assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0xa5);
		assert_int_equal(
			fc_table_timeout(t, (uint32_t)pos), cases[RTE_DIM(cases) - 1 - i].out);
		assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0), 0);
		assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
		assert_int_equal(
			fc_table_timeout(t, (uint32_t)pos), cases[RTE_DIM(cases) - 1 - i].out);
		assert_int_equal(fc_table_delete(t, (uint32_t)pos), 0);
	}

	/* Aging reads the decoded timeout: 8388608 keeps 8389000 units. */
	pos = insert_v(t, FC_AF_INET4, 100, 5, 8388608, 0);
	assert_true(pos >= 0);
	assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 3), 0);
	assert_int_equal(fc_table_age(t, 8389000, 1u << 20), 0);
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 3);
	assert_int_equal(fc_table_age(t, 8389001, 1u << 20), 1);
	assert_null(fc_table_entry(t, (uint32_t)pos));
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
	/* An exact one ages one unit after it. */
	pos = insert_v(t, FC_AF_INET4, 101, 5, 8388607, 0);
	assert_true(pos >= 0);
	assert_int_equal(fc_table_age(t, 8388607, 1u << 20), 0);
	assert_int_equal(fc_table_age(t, 8388608, 1u << 20), 1);
	fc_table_free(t);
}

/*
 * The entry's layout (one cache line, the action's reserved fields), its
 * timeout, mark, peer and creation time: filled by insert (no peer, no
 * mark), timeout by update, peer and mark the writer's and kept by
 * updates; none for free slots, whatever the slot held before.
 */
static void
test_aux(void **state)
{
	struct fc_table *t = new_table("aux", FC_AF_INET4, 64, FC_FULL_REFUSE, NULL);
	struct fc_action a;
	int pos;

	(void)state;
	assert_int_equal(sizeof(struct fc_entry), 64);
	assert_int_equal(sizeof(struct fc_action), 32);
	assert_int_equal(offsetof(struct fc_entry, last_seen), 4);
	assert_int_equal(offsetof(struct fc_entry, act), 8);
	assert_int_equal(offsetof(struct fc_entry, packets_lo), 40);
	assert_int_equal(offsetof(struct fc_entry, bytes_lo), 44);
	assert_int_equal(offsetof(struct fc_entry, tail.key), 48);
	assert_int_equal(sizeof(struct fc_entry_cold), 16);
	assert_int_equal(offsetof(struct fc_action, ext), 12);
	assert_int_equal(offsetof(struct fc_action, adj), 22);
	assert_int_equal(offsetof(struct fc_action, pkt_class), 24);
	assert_int_equal(offsetof(struct fc_action, mod), 29);

	for (uint32_t round = 0; round < 200; round++) {
		uint8_t mark = (uint8_t)(round % 255 + 1);

		pos = insert_v(t, FC_AF_INET4, round, 7 + round, 30, round);
		assert_true(pos >= 0);
		/* fresh whatever the slot held before */
		assert_int_equal(fc_table_peer(t, (uint32_t)pos), FC_INDEX_NONE);
		assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
		assert_int_equal(fc_table_timeout(t, (uint32_t)pos), 30);
		assert_int_equal(fc_table_created(t, (uint32_t)pos), round);
		assert_int_equal(fc_table_peer_set(t, (uint32_t)pos, round), 0);
		assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, mark), 0);
		act_from(99, &a);
		assert_int_equal(fc_table_update(t, (uint32_t)pos, &a, 45), 0);
		assert_int_equal(fc_table_timeout(t, (uint32_t)pos), 45);
		assert_int_equal(fc_table_peer(t, (uint32_t)pos), round);
		assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), mark);
		assert_true(act_is(&fc_table_entry(t, (uint32_t)pos)->act, 99));
		assert_int_equal(fc_table_delete(t, (uint32_t)pos), 0);
		assert_int_equal(fc_table_peer(t, (uint32_t)pos), FC_INDEX_NONE);
		assert_int_equal(fc_table_timeout(t, (uint32_t)pos), 0);
		assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
		assert_int_equal(fc_table_peer_set(t, (uint32_t)pos, 1), -ENOENT);
		assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, mark), -ENOENT);
		assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0), 0);
		assert_int_equal(fc_table_created(t, (uint32_t)pos), 0);
	}
	assert_int_equal(fc_table_peer(t, FC_INDEX_NONE), FC_INDEX_NONE);
	assert_int_equal(fc_table_peer(NULL, 0), FC_INDEX_NONE);
	assert_int_equal(fc_table_mark_tag(t, FC_INDEX_NONE), 0);
	assert_int_equal(fc_table_mark_tag_set(t, FC_INDEX_NONE, 0), -ENOENT);
	assert_int_equal(fc_table_peer_set(NULL, 0, 0), -ENOENT);
	fc_table_free(t);
}

static void
test_move(void **state)
{
	(void)state;
	check_move(FC_AF_INET4);
	check_move(FC_AF_INET6);
}

/* ---------------------------------------------------------------- full */

static void
test_full_refuse(void **state)
{
	enum { CAP = 100 };
	struct fc_table *t = new_table("refuse", FC_AF_INET4, CAP, FC_FULL_REFUSE, NULL);
	bool used[1024] = { false };
	int idx[CAP];
	uint32_t i, next = CAP + 1;

	(void)state;
	for (i = 0; i < CAP; i++) {
		idx[i] = insert_v(t, FC_AF_INET4, i, i, 0, 0);
		assert_true(idx[i] >= 0 && idx[i] < 1024);
		assert_false(used[idx[i]]);
		used[idx[i]] = true;
	}
	assert_int_equal(insert_v(t, FC_AF_INET4, CAP, 0, 0, 0), -ENOSPC);
	assert_int_equal(insert_v(t, FC_AF_INET4, CAP, 0, 0, 0), -ENOSPC);
	assert_int_equal(stats(t).refused, 2);
	assert_int_equal(stats(t).occupancy, CAP);
	assert_int_equal(stats(t).capacity, CAP);
	assert_int_equal(lookup_i(t, FC_AF_INET4, CAP), -ENOENT);
	/* A duplicate of a present key is still EEXIST, not ENOSPC. */
	assert_int_equal(insert_v(t, FC_AF_INET4, 0, 0, 0, 0), -EEXIST);

	/* Churn at full occupancy: freed slots come back (no reader to wait for). */
	for (i = 0; i < 5000; i++) {
		uint32_t victim = i % CAP;
		int r;

		assert_int_equal(fc_table_delete(t, (uint32_t)idx[victim]), 0);
		r = insert_v(t, FC_AF_INET4, next, next, 0, 0);
		assert_true(r >= 0);
		idx[victim] = r;
		next++;
		assert_int_equal(insert_v(t, FC_AF_INET4, next, next, 0, 0), -ENOSPC);
		assert_true(stats(t).occupancy == CAP);
	}
	assert_int_equal(stats(t).refused, 2 + 5000);
	fc_table_free(t);

	/* Capacity 1 is exact too. */
	t = new_table("refuse1", FC_AF_INET6, 1, FC_FULL_REFUSE, NULL);
	assert_true(insert_v(t, FC_AF_INET6, 1, 1, 0, 0) >= 0);
	assert_int_equal(insert_v(t, FC_AF_INET6, 2, 2, 0, 0), -ENOSPC);
	fc_table_free(t);
}

/*
 * The buckets are as many as the capacity needs, not a power of two: at
 * sizes on either side of a power of two and under several secrets, a
 * table takes exactly its capacity (the last insert too), refuses the
 * next, and the readers' bulk lookup finds every key with its action.
 */

static void
test_fill_exact(void **state)
{
	static const uint32_t caps[] = {7, 1000, 16383, 16385, 100000};

	(void)state;
	for (unsigned int c = 0; c < RTE_DIM(caps); c++) {
		for (uint32_t seed = 1; seed <= 3; seed++) {
			struct fc_table_params p = {
				.name = "fill",
				.family = FC_AF_INET4,
				.capacity = caps[c],
				.max_readers = 1,
				.full_policy = FC_FULL_REFUSE,
				.hash_seed = seed,
				.socket_id = SOCKET_ID_ANY,
			};
			struct fc_table *t = fc_table_create(&p);

			assert_non_null(t);
			tbl_fill_insert(t, &fill4, 0, caps[c], 0, false, NULL);
			assert_int_equal(insert_v(t, FC_AF_INET4, caps[c], caps[c], 0, 0), -ENOSPC);
			assert_int_equal(stats(t).occupancy, caps[c]);
			/* Each at the slot the writer finds it in, in either bucket. */
			tbl_fill_check(t, &fill4, 0, caps[c], NULL);
			fc_table_free(t);
		}
	}
}

/*
 * A flood of new flows (spoofed SYNs: FC_ACT_F_EARLY) into a full table
 * evicts its own kind, never the established entries, even those idle far
 * longer; only a table of established entries alone gives one up.
 */
static void
test_evict_prefers_early(void **state)
{
	enum { CAP = 64, EST = 32, FLOOD = 200 };
	struct fc_table *t = new_table("evict_early", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	uint8_t key[MAX_KEY];
	struct fc_action a;
	uint32_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	/* Established, idle since time 0..31. */
	fill_a(t, &a, 0, EST, 0);
	/* The flood: handshakes that never complete, fresher than any established entry. */
	a.flags = FC_ACT_F_EARLY;
	fill_a(t, &a, EST, EST + FLOOD, 1000 + EST);
	assert_int_equal(stats(t).occupancy, CAP);
	assert_int_equal(stats(t).evictions, EST + FLOOD - CAP);
	assert_int_equal(tbl_fill_found(t, &fill4, 0, EST), EST);
	/* The flood's newest survive: its oldest went first. */
	assert_true(lookup_i(t, FC_AF_INET4, EST + FLOOD - 1) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, EST), -ENOENT);
	/* Established entries only: the oldest idle goes. */
	a.flags = 0;
	for (i = EST; i < EST + FLOOD; i++) {
		int idx = lookup_i(t, FC_AF_INET4, i);

		if (idx >= 0)
			assert_int_equal(fc_table_update(t, (uint32_t)idx, &a, 0), 0);
	}
	make_key(FC_AF_INET4, 5000, key);
	assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, 9000) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 0), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, 1) >= 0);
	fc_table_free(t);
}

/*
 * Evictions counted by kind: a flood evicts not-established entries only
 * (evict_early), none established out of order (evict_est_early); a table
 * of established entries alone evicts one, counted as established, not
 * out of order; a not-established latest insert does not count as one
 * remaining.
 */
static void
test_evict_counts_kind(void **state)
{
	enum { CAP = 64, EST = 32, FLOOD = 200 };
	struct fc_table *t = new_table("evict_kind", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	uint8_t key[MAX_KEY];
	struct fc_action a;
	uint32_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	fill_a(t, &a, 0, EST, 0);
	a.flags = FC_ACT_F_EARLY;
	fill_a(t, &a, EST, EST + FLOOD, 1000 + EST);
	assert_int_equal(stats(t).evictions, EST + FLOOD - CAP);
	assert_int_equal(stats(t).evict_early, EST + FLOOD - CAP);
	assert_int_equal(stats(t).evict_est_early, 0);
	/* Established only, then a not-established insert: an established one goes. */
	a.flags = 0;
	for (i = EST; i < EST + FLOOD; i++) {
		int idx = lookup_i(t, FC_AF_INET4, i);

		if (idx >= 0)
			assert_int_equal(fc_table_update(t, (uint32_t)idx, &a, 0), 0);
	}
	a.flags = FC_ACT_F_EARLY;
	make_key(FC_AF_INET4, 5000, key);
	assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, 9000) >= 0);
	assert_int_equal(stats(t).evictions, EST + FLOOD - CAP + 1);
	assert_int_equal(stats(t).evict_early, EST + FLOOD - CAP);
	assert_int_equal(stats(t).evict_est_early, 0);
	/*
	 * The next insert: that not-established entry is the latest insert's,
	 * never the victim, so an established one goes, not out of order.
	 */
	make_key(FC_AF_INET4, 5001, key);
	assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, 9001) >= 0);
	assert_true(lookup_i(t, FC_AF_INET4, 5000) >= 0);
	assert_int_equal(stats(t).evict_early, EST + FLOOD - CAP);
	assert_int_equal(stats(t).evict_est_early, 0);
	/* And the one after takes the older not-established entry. */
	make_key(FC_AF_INET4, 5002, key);
	assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, 9002) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 5000), -ENOENT);
	assert_int_equal(stats(t).evictions, EST + FLOOD - CAP + 3);
	assert_int_equal(stats(t).evict_early, EST + FLOOD - CAP + 1);
	assert_int_equal(stats(t).evict_est_early, 0);
	fc_table_free(t);
}

/*
 * Not-established entries leave in insertion order, the idlest of the
 * oldest few first: one established since (fc_table_update()) is no longer
 * among them, a moved one keeps its place, one that still gets packets
 * outlives idler ones inserted after it; established entries go only once
 * none is left.
 */
static void
test_evict_early_list(void **state)
{
	enum { CAP = 64, EST = 56 };
	struct fc_table *t = new_table("evict_list", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	uint8_t key[MAX_KEY];
	struct fc_action a;
	uint32_t i;
	int idx;

	(void)state;
	memset(&a, 0, sizeof(a));
	tbl_fill_insert(t, &fill4, 0, EST, 0, true, NULL);
	a.flags = FC_ACT_F_EARLY;
	fill_a(t, &a, 100, 100 + CAP - EST, 100);
	a.flags = 0;
	idx = lookup_i(t, FC_AF_INET4, 101);
	assert_int_equal(fc_table_update(t, (uint32_t)idx, &a, 0), 0);
	idx = lookup_i(t, FC_AF_INET4, 102);
	make_key(FC_AF_INET4, 202, key);
	assert_true(fc_table_move(t, (uint32_t)idx, key, fc_table_hash(t, key)) >= 0);
	fc_table_touch(t, (uint32_t)lookup_i(t, FC_AF_INET4, 100), 64, 500);

	/* 202 (102 moved, idle since 102) first, then 103..107; 100 was seen at 500. */
	assert_true(insert_v(t, FC_AF_INET4, 300, 0, 0, 600) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 202), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, 103) >= 0);
	for (i = 301; i < 306; i++)
		assert_true(insert_v(t, FC_AF_INET4, i, 0, 0, 600) >= 0);
	for (i = 103; i < 108; i++)
		assert_int_equal(lookup_i(t, FC_AF_INET4, i), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, 100) >= 0);
	/* The last one not established, then the oldest idle established. */
	assert_true(insert_v(t, FC_AF_INET4, 306, 0, 0, 600) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 100), -ENOENT);
	assert_int_equal(tbl_fill_found(t, &fill4, 0, EST), EST);
	assert_true(lookup_i(t, FC_AF_INET4, 101) >= 0);
	assert_true(insert_v(t, FC_AF_INET4, 307, 0, 0, 600) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 0), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, 1) >= 0);
	assert_int_equal(stats(t).evictions, 8);
	fc_table_free(t);
}

/*
 * Not-established flows that keep getting packets (one-way UDP, say),
 * inserted before a storm of one-packet new flows fills the table: they
 * sit at the head of the list, the oldest inserted, and must not go one
 * per eviction; the storm's idle entries behind them go instead (a busy
 * entry gets a second chance at the list's end).
 */
static void
test_evict_early_busy(void **state)
{
	enum { CAP = 64, BUSY = 16, STORM = 2000 };
	struct fc_table *t = new_table("evict_busy", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	uint8_t key[MAX_KEY];
	struct fc_action a;
	uint32_t i, now = 100;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.flags = FC_ACT_F_EARLY;
	fill_a(t, &a, 0, BUSY, 0);
	for (i = 0; i < STORM; i++, now++) {
		make_key(FC_AF_INET4, 1000 + i, key);
		assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, now) >= 0);
		/* The busy flows get a packet every other step. */
		if (i % 2 == 0)
			for (uint32_t b = 0; b < BUSY; b++)
				fc_table_touch(t, (uint32_t)lookup_i(t, FC_AF_INET4, b), 64, now);
	}
	assert_int_equal(tbl_fill_found(t, &fill4, 0, BUSY), BUSY);
	/* The storm's newest are there, its oldest went. */
	assert_true(lookup_i(t, FC_AF_INET4, 1000 + STORM - 1) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 1000), -ENOENT);
	assert_int_equal(stats(t).evictions, BUSY + STORM - CAP);
	fc_table_free(t);
}

/*
 * A connection is as busy as its busier direction: a one-way flow's reply
 * entry, never hit, must not be the victim, because its owner deletes the
 * busy direction with it. Not-established pairs (the early list) and
 * established ones (the scan) alike, under a storm of one-packet flows.
 */
static void
test_evict_conn_busy(void **state)
{
	enum { CAP = 64, PAIRS = 8, STORM = 2000 };
	uint8_t key[MAX_KEY];
	struct fc_action a;
	uint32_t i, now = 100;

	(void)state;
	for (unsigned int early = 0; early < 2; early++) {
		struct fc_table *t = new_table(early ? "evict_pe" : "evict_pc", FC_AF_INET4, CAP,
			FC_FULL_EVICT_IDLE, NULL);

		memset(&a, 0, sizeof(a));
		a.flags = early ? FC_ACT_F_EARLY : 0;
		for (i = 0; i < PAIRS; i++) {
			int f, r;

			make_key(FC_AF_INET4, i, key);
			f = fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, i);
			make_key(FC_AF_INET4, 500 + i, key);
			r = fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, i);
			assert_true(f >= 0 && r >= 0);
			fc_table_peer_set(t, (uint32_t)f, (uint32_t)r);
			fc_table_peer_set(t, (uint32_t)r, (uint32_t)f);
		}
		a.flags = FC_ACT_F_EARLY;
		for (i = 0; i < STORM; i++, now++) {
			make_key(FC_AF_INET4, 1000 + i, key);
			assert_true(fc_table_insert(t, key, fc_table_hash(t, key), &a, 0, now) >= 0);
			if (i % 2 == 0)
				for (uint32_t b = 0; b < PAIRS; b++)
					fc_table_touch(t, (uint32_t)lookup_i(t, FC_AF_INET4, b), 64, now);
		}
		assert_int_equal(tbl_fill_found(t, &fill4, 0, PAIRS), PAIRS);
		assert_int_equal(tbl_fill_found(t, &fill4, 500, 500 + PAIRS), PAIRS);
		fc_table_free(t);
	}
}

/*
 * A storm of new flows through a full table: one scan chooses a batch of
 * victims, the oldest first, and the next evictions take them in order; a
 * queued victim hit since the scan is spared, and once the batch is used
 * a new scan finds the next oldest (and queues those after it).
 */
static void
test_evict_batch(void **state)
{
	enum { CAP = 64, MORE = 16 };
	struct fc_table *t = new_table("evict_batch", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	int idx3;
	uint32_t i;

	(void)state;
	tbl_fill_insert(t, &fill4, 0, CAP, 0, true, NULL); /* key i idle since i */
	/* The first new flow: the oldest goes, the next ones are queued. */
	assert_true(insert_v(t, FC_AF_INET4, 1000, 0, 0, 5000) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 0), -ENOENT);
	/* Entry 3, queued, gets a packet: no longer a victim. */
	idx3 = lookup_i(t, FC_AF_INET4, 3);
	assert_true(idx3 >= 0);
	fc_table_touch(t, (uint32_t)idx3, 64, 5001);
	for (i = 1; i < MORE; i++)
		assert_true(insert_v(t, FC_AF_INET4, 1000 + i, 0, 0, 5002) >= 0);
	assert_int_equal(stats(t).evictions, MORE);
	assert_int_equal(stats(t).occupancy, CAP);
	assert_true(lookup_i(t, FC_AF_INET4, 3) >= 0);
	/* 0..15 but 3 from the batch, then a new scan: the oldest left, 16. */
	for (i = 0; i <= MORE; i++)
		if (i != 3)
			assert_int_equal(lookup_i(t, FC_AF_INET4, i), -ENOENT);
	/* That scan's batch goes on: 17, then 18. */
	assert_true(lookup_i(t, FC_AF_INET4, MORE + 1) >= 0);
	assert_true(insert_v(t, FC_AF_INET4, 2000, 0, 0, 5003) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, MORE + 1), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, MORE + 2) >= 0);
	assert_true(insert_v(t, FC_AF_INET4, 2001, 0, 0, 5003) >= 0);
	assert_int_equal(lookup_i(t, FC_AF_INET4, MORE + 2), -ENOENT);
	assert_true(lookup_i(t, FC_AF_INET4, 3) >= 0);
	fc_table_free(t);
}

static void
test_full_evict(void **state)
{
	enum { CAP = 50 };
	struct cb_log log = { 0 };
	struct fc_table *t = new_table("evict", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, &log);
	uint8_t key[MAX_KEY];
	int idx[CAP + 2];
	uint32_t i;

	(void)state;
	for (i = 0; i < CAP; i++) {
		idx[i] = insert_v(t, FC_AF_INET4, i, 500 + i, 0, 1000 + i);
		assert_true(idx[i] >= 0);
	}
	/* Entry 0 was seen recently: entry 1 is now the oldest idle. */
	fc_table_touch(t, (uint32_t)idx[0], 64, 5000);

	idx[CAP] = insert_v(t, FC_AF_INET4, CAP, 500 + CAP, 0, 6000);
	assert_true(idx[CAP] >= 0);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.last_idx, (uint32_t)idx[1]);
	make_key(FC_AF_INET4, 1, key);
	assert_memory_equal(log.last_key, key, 16);
	assert_true(act_is(&log.last_entry.act, 501));
	assert_int_equal(log.last_entry.last_seen, 1001);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 1), -ENOENT);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 0), idx[0]);
	assert_int_equal(lookup_i(t, FC_AF_INET4, CAP), idx[CAP]);

	/* The next one evicts entry 2. */
	idx[CAP + 1] = insert_v(t, FC_AF_INET4, CAP + 1, 0, 0, 6001);
	assert_true(idx[CAP + 1] >= 0);
	assert_int_equal(log.calls, 2);
	assert_int_equal(log.last_idx, (uint32_t)idx[2]);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 2), -ENOENT);

	assert_int_equal(stats(t).evictions, 2);
	assert_int_equal(stats(t).occupancy, CAP);
	assert_int_equal(stats(t).refused, 0);
	assert_int_equal(stats(t).inserts, CAP + 2);
	fc_table_free(t);
}

/* Bounded eviction scan: only evict_scan live entries are compared. */
static void
test_evict_scan_bounded(void **state)
{
	enum { CAP = 40, SCAN = 4 };
	struct cb_log log = { 0 };
	struct fc_table_params p = {
		.name = "evscan",
		.family = FC_AF_INET4,
		.capacity = CAP,
		.max_readers = 1,
		.full_policy = FC_FULL_EVICT_IDLE,
		.evict_scan = SCAN,
		.socket_id = SOCKET_ID_ANY,
		.remove_cb = record_remove,
		.remove_arg = &log,
	};
	struct fc_table *t = fc_table_create(&p);
	uint32_t order[CAP], i, j, victim;
	int idx[CAP];

	(void)state;
	assert_non_null(t);
	/* Older as i grows: the globally oldest is the last one inserted. */
	for (i = 0; i < CAP; i++) {
		idx[i] = insert_v(t, FC_AF_INET4, i, i, 0, 2000 - i);
		assert_true(idx[i] >= 0);
	}
	/* The first scan starts at slot 0: it sees the SCAN lowest indexes. */
	for (i = 0; i < CAP; i++)
		order[i] = i;
	for (i = 0; i < CAP; i++)
		for (j = i + 1; j < CAP; j++)
			if (idx[order[j]] < idx[order[i]]) {
				uint32_t tmp = order[i];

				order[i] = order[j];
				order[j] = tmp;
			}
	victim = order[0];
	for (i = 1; i < SCAN; i++)
		if (order[i] > victim) /* larger i = older */
			victim = order[i];
	assert_true(victim != CAP - 1); /* not the global oldest */

	assert_true(insert_v(t, FC_AF_INET4, 1000, 0, 0, 3000) >= 0);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.last_idx, (uint32_t)idx[victim]);
	assert_int_equal(lookup_i(t, FC_AF_INET4, victim), -ENOENT);
	assert_int_equal(lookup_i(t, FC_AF_INET4, CAP - 1), idx[CAP - 1]);
	fc_table_free(t);
}

/* ---------------------------------------------------------------- aging */

static void
test_aging(void **state)
{
	struct cb_log log = { 0 };
	struct fc_table *t = new_table("age", FC_AF_INET4, 64, FC_FULL_REFUSE, &log);
	int a, b, c, d, e, w1, w2, f;

	(void)state;
	a = insert_v(t, FC_AF_INET4, 1, 1, 10, 100);  /* idle 100 > 10: goes */
	b = insert_v(t, FC_AF_INET4, 2, 2, 50, 100);  /* idle 100 > 50: goes */
	c = insert_v(t, FC_AF_INET4, 3, 3, 0, 0);     /* timeout 0: never */
	d = insert_v(t, FC_AF_INET4, 4, 4, 10, 100);  /* touched at 195: stays */
	e = insert_v(t, FC_AF_INET4, 5, 5, 10, 190);  /* idle exactly 10: stays */
	w1 = insert_v(t, FC_AF_INET4, 6, 6, 10, 0xfffffff0u); /* idle 0x20+... goes */
	w2 = insert_v(t, FC_AF_INET4, 7, 7, 1000, 0xfffffff0u); /* wrapped, within */
	f = insert_v(t, FC_AF_INET4, 8, 8, 10, 100);  /* touched "later" at 300 */
	assert_true(a >= 0 && b >= 0 && c >= 0 && d >= 0 && e >= 0);
	assert_true(w1 >= 0 && w2 >= 0 && f >= 0);
	fc_table_touch(t, (uint32_t)d, 1, 195);
	fc_table_touch(t, (uint32_t)f, 1, 300);

	assert_int_equal(fc_table_age(t, 200, 0), 0);
	assert_int_equal(log.calls, 0);
	assert_int_equal(fc_table_age(t, 200, 1u << 20), 3);
	assert_int_equal(log.calls, 3);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 1), -ENOENT);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 2), -ENOENT);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 3), c);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 4), d);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 5), e);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 6), -ENOENT); /* 200 - 0xfffffff0 = 216 */
	assert_int_equal(lookup_i(t, FC_AF_INET4, 7), w2);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 8), f);
	assert_int_equal(stats(t).aged, 3);
	assert_int_equal(stats(t).occupancy, 5);

	/* One tick later the boundary entry goes; timeout 0 still never does. */
	assert_int_equal(fc_table_age(t, 201, 1u << 20), 1);
	assert_int_equal(lookup_i(t, FC_AF_INET4, 5), -ENOENT);
	assert_int_equal(fc_table_age(t, 0x10000000u, 1u << 20), 3); /* d, w2, f */
	assert_int_equal(lookup_i(t, FC_AF_INET4, 3), c);
	assert_int_equal(stats(t).occupancy, 1);
	assert_int_equal(stats(t).aged, 7);
	assert_int_equal(log.calls, 7);
	fc_table_free(t);
}

static void
test_aging_bounded(void **state)
{
	enum { N = 40, WORK = 7 };
	struct cb_log log = { 0 };
	struct fc_table *t = new_table("agebnd", FC_AF_INET6, N, FC_FULL_REFUSE, &log);
	unsigned int total = 0, calls = 0, r;
	uint32_t i;

	(void)state;
	for (i = 0; i < N; i++)
		assert_true(insert_v(t, FC_AF_INET6, i, i, 5, 0) >= 0);
	/* All expired; each call examines at most WORK slots, so removes at most WORK. */
	while (total < N) {
		r = fc_table_age(t, 100, WORK);
		assert_true(r <= WORK);
		total += r;
		calls++;
		assert_true(calls < 1000);
	}
	assert_int_equal(total, N);
	assert_true(calls >= (N + WORK - 1) / WORK);
	assert_int_equal(log.calls, N);
	assert_int_equal(stats(t).occupancy, 0);
	assert_int_equal(stats(t).aged, N);
	fc_table_free(t);
}

/* ------------------------------------------------------- flush, iterate */

static void
test_flush(void **state)
{
	enum { N = 30 };
	struct cb_log log = { 0 };
	struct fc_table *t = new_table("flush", FC_AF_INET4, 64, FC_FULL_REFUSE, &log);
	uint32_t next = 0, idx;
	const void *key;

	(void)state;
	tbl_fill_insert(t, &fill4, 0, N, 0, false, NULL);
	assert_int_equal(fc_table_flush(t), N);
	assert_int_equal(log.calls, N);
	assert_int_equal(stats(t).occupancy, 0);
	assert_int_equal(fc_table_iterate(t, &next, &key, &idx), -ENOENT);
	assert_int_equal(tbl_fill_found(t, &fill4, 0, N), 0);
	assert_int_equal(fc_table_flush(t), 0);
	tbl_fill_insert(t, &fill4, 0, N, 0, false, NULL);
	assert_int_equal(stats(t).occupancy, N);
	fc_table_free(t);
}

static void
test_iterate(void **state)
{
	enum { N = 200, CAP = 256 };
	struct fc_table *t = new_table("iter", FC_AF_INET6, CAP, FC_FULL_REFUSE, NULL);
	uint8_t seen_idx[2048] = { 0 };
	uint8_t seen_key[N] = { 0 };
	uint32_t next = 0, idx, i, visits = 0;
	const void *key;
	int pos[N];

	(void)state;
	for (i = 0; i < N; i++) {
		pos[i] = insert_v(t, FC_AF_INET6, i, i, 0, 0);
		assert_true(pos[i] >= 0 && pos[i] < 2048);
	}
	for (i = 0; i < N; i += 5)
		assert_int_equal(fc_table_delete(t, (uint32_t)pos[i]), 0);

	while (fc_table_iterate(t, &next, &key, &idx) == 0) {
		const struct fc_key_v6 *k = key;
		uint32_t n = (uint32_t)k->src[14] << 8 | k->src[15];

		assert_true(idx < 2048);
		assert_int_equal(seen_idx[idx], 0);
		seen_idx[idx] = 1;
		assert_true(n < N);
		assert_int_equal(seen_key[n], 0);
		seen_key[n] = 1;
		assert_int_equal(pos[n], (int)idx);
		assert_ptr_equal(fc_table_key(t, idx), key);
		assert_int_equal(fc_table_lookup(t, key, fc_table_hash(t, key)), (int)idx);
		visits++;
		assert_true(visits <= N);
	}
	assert_int_equal(visits, N - N / 5);
	assert_int_equal(visits, stats(t).occupancy);
	for (i = 0; i < N; i++)
		assert_int_equal(seen_key[i], i % 5 != 0);

	/* Deleting the current entry while walking is fine. */
	next = 0;
	visits = 0;
	while (fc_table_iterate(t, &next, NULL, &idx) == 0) {
		assert_int_equal(fc_table_delete(t, idx), 0);
		visits++;
	}
	assert_int_equal(visits, N - N / 5);
	assert_int_equal(stats(t).occupancy, 0);
	fc_table_free(t);
}

/* ---------------------------------------------------------------- RCU */

/*
 * A registered reader that never reports quiescence pins every slot deleted
 * after it came online: none is handed out again, inserts eventually fail
 * cleanly with -ENOSPC, and one quiescent report releases them.
 */
static void
test_stuck_reader(void **state)
{
	enum { CAP = 16, ROUNDS = 1500 };
	struct fc_table *t = new_table("stuck", FC_AF_INET4, CAP, FC_FULL_REFUSE, NULL);
	bool pinned[4096] = { false };
	uint32_t i, next = CAP, refused = 0, ok = 0;
	int idx[CAP];

	(void)state;
	for (i = 0; i < CAP; i++) {
		idx[i] = insert_v(t, FC_AF_INET4, i, i, 0, 0);
		assert_true(idx[i] >= 0 && idx[i] < 4096);
	}
	assert_int_equal(fc_table_reader_register(t, 0), 0);

	for (i = 0; i < ROUNDS; i++) {
		uint32_t v = i % CAP;
		int r;

		if (idx[v] >= 0) {
			assert_int_equal(fc_table_delete(t, (uint32_t)idx[v]), 0);
			pinned[idx[v]] = true;
			idx[v] = -1;
		}
		r = insert_v(t, FC_AF_INET4, next, next, 0, 0);
		next++;
		if (r == -ENOSPC) {
			refused++;
			continue;
		}
		assert_true(r >= 0 && r < 4096);
		assert_false(pinned[r]); /* never reused within the grace period */
		idx[v] = r;
		ok++;
		assert_true(stats(t).occupancy <= CAP);
	}
	assert_true(ok > 0);
	assert_true(refused > 0);
	assert_int_equal(stats(t).refused, refused);

	/* Quiescent: pinned slots become reusable. */
	fc_table_quiescent(t, 0);
	for (i = 0; i < CAP; i++) {
		if (idx[i] < 0) {
			idx[i] = insert_v(t, FC_AF_INET4, next, next, 0, 0);
			next++;
			assert_true(idx[i] >= 0);
		}
	}
	assert_int_equal(stats(t).occupancy, CAP);

	/* Same with eviction: evicts, then refuses cleanly while pinned. */
	assert_int_equal(fc_table_reader_unregister(t, 0), 0);
	fc_table_free(t);

	t = new_table("stuck2", FC_AF_INET4, CAP, FC_FULL_EVICT_IDLE, NULL);
	tbl_fill_insert(t, &fill4, 0, CAP, 0, true, NULL);
	assert_int_equal(fc_table_reader_register(t, 1), 0);
	refused = 0;
	for (i = 0; i < ROUNDS; i++) {
		int r = insert_v(t, FC_AF_INET4, next, next, 0, 100 + i);

		next++;
		if (r == -ENOSPC)
			refused++;
		assert_true(stats(t).occupancy <= CAP);
	}
	assert_true(refused > 0);
	assert_true(stats(t).evictions > 0);
	fc_table_quiescent(t, 1);
	assert_true(insert_v(t, FC_AF_INET4, next, next, 0, 10000) >= 0);
	assert_int_equal(fc_table_reader_unregister(t, 1), 0);
	fc_table_free(t);
}

/* ---------------------------------------------------------- concurrency */

#define RACE_KEYS 32u
#define RACE_CAP 24u
#define RACE_WRITER_OPS 2000000u
#define RACE_READER_MIN_LOOPS 2000u
#define RACE_BURST 32u
#define RACE_MEET 65536u /* writer ops between two waits for the reader */

struct race {
	struct fc_table *t;
	volatile int reader_ready;
	volatile int writer_done;
	uint64_t loops;
	uint64_t hits;
	uint64_t torn;
	uint64_t wrong_key;
	uint64_t bad_idx;
};

static inline uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* v: key number in the high 16 bits, a version in the low 16. */
static inline uint32_t
race_v(uint32_t key, uint32_t version)
{
	return key << 16 | (version & 0xffffu);
}

static int
race_reader(void *arg)
{
	struct race *r = arg;
	struct fc_key_v4 keys[RACE_KEYS];
	uint32_t sig_of[RACE_KEYS];
	const void *kp[RACE_BURST];
	uint32_t sigs[RACE_BURST], which[RACE_BURST], idx[RACE_BURST];
	struct fc_action acts[RACE_BURST];
	uint32_t seed = 12345, i;
	uint64_t mask;

	for (i = 0; i < RACE_KEYS; i++) {
		make_key(FC_AF_INET4, i, &keys[i]);
		sig_of[i] = fc_table_hash(r->t, &keys[i]);
	}
	if (fc_table_reader_register(r->t, 1) != 0)
		return -1;
	__atomic_store_n(&r->reader_ready, 1, __ATOMIC_RELEASE);

	while (r->loops < RACE_READER_MIN_LOOPS ||
		!__atomic_load_n(&r->writer_done, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < RACE_BURST; i++) {
			which[i] = lcg(&seed) % RACE_KEYS;
			kp[i] = &keys[which[i]];
			sigs[i] = sig_of[which[i]];
		}
		r->hits += fc_table_lookup_bulk(r->t, 1, kp, sigs, RACE_BURST, &mask, acts, idx);
		for (i = 0; i < RACE_BURST; i++) {
			if ((mask & (UINT64_C(1) << i)) == 0)
				continue;
			if (!act_consistent(&acts[i]))
				r->torn++;
			else if (acts[i].gen >> 16 != which[i])
				r->wrong_key++;
			if (idx[i] == FC_INDEX_NONE || idx[i] >= 64 * RACE_CAP)
				r->bad_idx++;
			else
				fc_table_touch(r->t, idx[i], 64, (uint32_t)r->loops);
		}
		__atomic_store_n(&r->loops, r->loops + 1, __ATOMIC_RELEASE);
		fc_table_quiescent(r->t, 1);
	}
	fc_table_reader_unregister(r->t, 1);
	return 0;
}

static void
test_concurrent_readers(void **state)
{
	static struct race r;
	uint32_t version[RACE_KEYS] = { 0 };
	uint32_t seed = 777, op, enospc = 0, live = 0, next = 0;
	struct fc_table_stats s;
	unsigned int lcore;
	const void *key;
	uint32_t idx;

	(void)state;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE)
		skip();

	memset(&r, 0, sizeof(r));
	r.t = new_table("race", FC_AF_INET4, RACE_CAP, FC_FULL_EVICT_IDLE, NULL);
	assert_int_equal(rte_eal_remote_launch(race_reader, &r, lcore), 0);
	while (!__atomic_load_n(&r.reader_ready, __ATOMIC_ACQUIRE))
		rte_pause();

	for (op = 0; op < RACE_WRITER_OPS; op++) {
		uint32_t k = lcg(&seed) % RACE_KEYS;
		uint32_t dice = lcg(&seed) % 8;
		struct fc_key_v4 key4;
		struct fc_action a;
		int pos;

		make_key(FC_AF_INET4, k, &key4);
		pos = fc_table_lookup(r.t, &key4, fc_table_hash(r.t, &key4));
		version[k]++;
		act_from(race_v(k, version[k]), &a);
		if (pos < 0) {
			pos = fc_table_insert(r.t, &key4, fc_table_hash(r.t, &key4), &a, 0, op);
			if (pos == -ENOSPC)
				enospc++;
			else
				assert_true(pos >= 0);
		} else if (dice < 5) {
			assert_int_equal(fc_table_update(r.t, (uint32_t)pos, &a, 0), 0);
		} else {
			assert_int_equal(fc_table_delete(r.t, (uint32_t)pos), 0);
		}
		/*
		 * Now and then, wait for a whole reader loop: on a loaded host
		 * either thread may be off its CPU for the other's whole run
		 * (the reader then reads an empty table, or only a still one).
		 */
		if ((op + 1) % RACE_MEET == 0) {
			uint64_t l0 = __atomic_load_n(&r.loops, __ATOMIC_ACQUIRE);

			while (__atomic_load_n(&r.loops, __ATOMIC_ACQUIRE) < l0 + 2)
				rte_pause();
		}
	}
	__atomic_store_n(&r.writer_done, 1, __ATOMIC_RELEASE);
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);

	print_message("race: reader loops %" PRIu64 ", hits %" PRIu64 ", torn %" PRIu64
		      ", wrong key %" PRIu64 ", writer ENOSPC %u\n",
		r.loops, r.hits, r.torn, r.wrong_key, enospc);
	assert_int_equal(r.torn, 0);
	assert_int_equal(r.wrong_key, 0);
	assert_int_equal(r.bad_idx, 0);
	assert_true(r.hits > 0);

	s = stats(r.t);
	assert_int_equal(s.hits, r.hits);
	assert_int_equal(s.lookups, r.loops * RACE_BURST);
	assert_int_equal(s.hits + s.misses, s.lookups);
	assert_true(s.occupancy <= RACE_CAP);

	/* The writer's view is whole: every live entry is its key's latest version. */
	while (fc_table_iterate(r.t, &next, &key, &idx) == 0) {
		const struct fc_key_v4 *k4 = key;
		uint32_t k = rte_be_to_cpu_32(k4->src) - 0x0a000000u;
		const struct fc_entry *e = fc_table_entry(r.t, idx);

		assert_true(k < RACE_KEYS);
		assert_true(act_is(&e->act, race_v(k, version[k])));
		live++;
	}
	assert_int_equal(live, s.occupancy);
	fc_table_free(r.t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad_params),
		cmocka_unit_test(test_hash_seed),
		cmocka_unit_test(test_basic_v4),
		cmocka_unit_test(test_basic_v6),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_bulk_mixed),
		cmocka_unit_test(test_update_visible),
		cmocka_unit_test(test_aux),
		cmocka_unit_test(test_timeout_word),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_full_refuse),
		cmocka_unit_test(test_fill_exact),
		cmocka_unit_test(test_full_evict),
		cmocka_unit_test(test_evict_prefers_early),
		cmocka_unit_test(test_evict_counts_kind),
		cmocka_unit_test(test_evict_early_list),
		cmocka_unit_test(test_evict_early_busy),
		cmocka_unit_test(test_evict_conn_busy),
		cmocka_unit_test(test_evict_batch),
		cmocka_unit_test(test_evict_scan_bounded),
		cmocka_unit_test(test_aging),
		cmocka_unit_test(test_aging_bounded),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_walk_bounded),
		cmocka_unit_test(test_stuck_reader),
		cmocka_unit_test(test_concurrent_readers),
	};
	int ret;

	if (gufc_test_eal_init("table", "0-1") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
