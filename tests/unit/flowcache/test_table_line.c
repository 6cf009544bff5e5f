/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the flow entry's one-line layout (lib/flowcache/table.c,
 * flowcache_table.h): an IPv4 key lives in its entry's line, the counters'
 * low words too and their high words in the cold words, which readers
 * combine consistently (fc_table_counters()) while the counting lcore
 * carries into them; the sequence count and the NIC mark's tag share one
 * word, so the count wraps within its 24 bits and neither disturbs the
 * other.
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
#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "eal_test.h"
#include "flowcache.h"
#include "tbl_fill.h"

/* Key number @p i of family @p family, normalized, into @p buf (48 bytes). */
static void
make_key(uint8_t family, uint32_t i, void *buf)
{
	memset(buf, 0, sizeof(struct fc_key_v6));
	if (family == FC_AF_INET4) {
		struct fc_key_v4 *k = buf;

		k->src = rte_cpu_to_be_32(0x0a000000u + i);
		k->dst = rte_cpu_to_be_32(0xc0a80001u);
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + (i & 0x7fff)));
		k->dport = rte_cpu_to_be_16(80);
		k->proto = 6;
		fc_key_v4_normalize(k);
	} else {
		struct fc_key_v6 *k = buf;

		k->src[0] = 0x20;
		k->src[1] = 0x01;
		k->src[12] = (uint8_t)(i >> 24);
		k->src[13] = (uint8_t)(i >> 16);
		k->src[14] = (uint8_t)(i >> 8);
		k->src[15] = (uint8_t)i;
		k->dst[0] = 0x20;
		k->dst[15] = 1;
		k->sport = rte_cpu_to_be_16((uint16_t)(1024 + (i & 0x7fff)));
		k->dport = rte_cpu_to_be_16(443);
		k->proto = 17;
		fc_key_v6_normalize(k);
	}
}

static struct fc_table *
new_table(const char *name, uint8_t family, uint32_t capacity)
{
	struct fc_table_params p = {
		.name = name,
		.family = family,
		.capacity = capacity,
		.max_readers = 4,
		.full_policy = FC_FULL_REFUSE,
		.hash_seed = 99,
		.socket_id = SOCKET_ID_ANY,
	};
	struct fc_table *t = fc_table_create(&p);

	assert_non_null(t);
	return t;
}

/* Key @p i's action: generation 1, rule @p i. */
static void
act_of(uint32_t i, struct fc_action *a)
{
	memset(a, 0, sizeof(*a));
	a->gen = 1;
	a->rule_id = i;
}

static int
insert_i(struct fc_table *t, uint8_t family, uint32_t i, uint32_t rule_id)
{
	uint8_t key[48];
	struct fc_action a;

	act_of(rule_id, &a);
	make_key(family, i, key);
	return fc_table_insert(t, key, fc_table_hash(t, key), &a, 60, 1);
}

/* The low words, as a white-box test sets them up near their wrap. */
static struct fc_entry *
slot_rw(struct fc_table *t, uint32_t idx)
{
	return (struct fc_entry *)(uintptr_t)fc_table_slot(t, idx);
}

static void
check_counters(struct fc_table *t, uint32_t idx, uint64_t packets, uint64_t bytes)
{
	uint64_t p, b;

	fc_table_counters(t, idx, &p, &b);
	assert_int_equal(p, packets);
	assert_int_equal(b, bytes);
	assert_int_equal(fc_table_packets(t, idx), packets);
}

/*
 * An IPv4 key is the tail of its entry's line, an IPv6 key has a line of
 * its own; either way fc_table_key() gives it back and the lookup finds it.
 */
static void
check_key_place(uint8_t family)
{
	struct fc_table *t = new_table(family == FC_AF_INET4 ? "line_k4" : "line_k6", family, 256);
	const struct tbl_fill f = {.family = family, .key = make_key, .act = act_of, .timeout = 60};
	uint32_t pos[200];
	uint8_t key[48];

	tbl_fill_insert(t, &f, 0, 200, 1, false, pos);
	for (uint32_t i = 0; i < 200; i++) {
		const uint8_t *k = fc_table_key(t, pos[i]);

		make_key(family, i, key);
		assert_non_null(k);
		assert_memory_equal(k, key, fc_table_key_size(t));
		if (family == FC_AF_INET4)
			assert_ptr_equal(k, fc_table_slot(t, pos[i])->tail.key);
		else
			assert_true(k < (const uint8_t *)fc_table_slot(t, pos[i]) ||
				    k >= (const uint8_t *)(fc_table_slot(t, pos[i]) + 1));
		assert_int_equal(fc_table_peer(t, pos[i]), FC_INDEX_NONE);
		assert_int_equal(fc_table_timeout(t, pos[i]), 60);
	}
	/* The readers' lookup finds each where it was put, with its action. */
	tbl_fill_check(t, &f, 0, 200, pos);
	fc_table_free(t);
}

static void
test_key_place(void **state)
{
	(void)state;
	check_key_place(FC_AF_INET4);
	check_key_place(FC_AF_INET6);
}

/*
 * Counts past 2^32: bytes wrap their low word often, packets once; the
 * 64-bit values read back exactly, a move carries them whole, and a slot
 * filled again starts at 0 in both halves.
 */
static void
check_carry(uint8_t family)
{
	struct fc_table *t = new_table(family == FC_AF_INET4 ? "line_c4" : "line_c6", family, 64);
	uint64_t bytes = 0, packets = 0;
	uint8_t key[48];
	int pos, npos;

	pos = insert_i(t, family, 1, 1);
	assert_true(pos >= 0);
	check_counters(t, (uint32_t)pos, 0, 0);
	for (unsigned int i = 0; i < 7; i++) {
		fc_table_touch(t, (uint32_t)pos, UINT32_MAX, 2);
		bytes += UINT32_MAX;
		packets++;
		check_counters(t, (uint32_t)pos, packets, bytes);
	}
	fc_table_touch(t, (uint32_t)pos, 0, 3);
	packets++;
	check_counters(t, (uint32_t)pos, packets, bytes);
	assert_true(bytes > UINT64_C(6) << 32);

	/* The packet count's low word two before its wrap. */
	slot_rw(t, (uint32_t)pos)->packets_lo = UINT32_MAX - 1;
	packets = UINT32_MAX - 1;
	for (unsigned int i = 0; i < 3; i++) {
		fc_table_touch(t, (uint32_t)pos, 10, 4);
		packets++;
		bytes += 10;
		check_counters(t, (uint32_t)pos, packets, bytes);
	}
	assert_int_equal(packets, (UINT64_C(1) << 32) + 1);

	/* A move carries both halves. */
	make_key(family, 2, key);
	npos = fc_table_move(t, (uint32_t)pos, key, fc_table_hash(t, key));
	assert_true(npos >= 0);
	check_counters(t, (uint32_t)npos, packets, bytes);
	fc_table_touch(t, (uint32_t)npos, UINT32_MAX, 5);
	check_counters(t, (uint32_t)npos, packets + 1, bytes + UINT32_MAX);

	/* Gone and filled again (the slot reused once its grace period is over): from 0. */
	assert_int_equal(fc_table_delete(t, (uint32_t)npos), 0);
	for (uint32_t i = 10; i < 200; i++) {
		int p = insert_i(t, family, i, i);

		assert_true(p >= 0);
		check_counters(t, (uint32_t)p, 0, 0);
		assert_int_equal(fc_table_delete(t, (uint32_t)p), 0);
	}
	fc_table_free(t);
}

static void
test_counter_carry(void **state)
{
	(void)state;
	check_carry(FC_AF_INET4);
	check_carry(FC_AF_INET6);
}

/*
 * The count wraps within its 24 bits, never to 0, and keeps the mark's
 * tag; a tag published between a reader's two loads of the word is no
 * change of the action: the lookup still hits.
 */
static void
test_seq_tag(void **state)
{
	struct fc_table *t = new_table("line_seq", FC_AF_INET4, 64);
	const struct fc_entry *e;
	unsigned int wraps = 0;
	struct fc_action a;
	uint32_t s0;
	int pos;

	(void)state;
	pos = insert_i(t, FC_AF_INET4, 5, 5);
	assert_true(pos >= 0);
	e = fc_table_slot(t, (uint32_t)pos);
	assert_int_equal(e->seq, 2);
	assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0xab), 0);
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0xab);
	assert_int_equal(e->seq & FC_ENTRY_SEQ_MASK, 2);
	memset(&a, 0, sizeof(a));
	for (uint32_t n = 1; n <= (FC_ENTRY_SEQ_MASK >> 1) + 3; n++) {
		uint32_t was = e->seq & FC_ENTRY_SEQ_MASK, now;

		a.rule_id = n;
		assert_int_equal(fc_table_update(t, (uint32_t)pos, &a, 60), 0);
		now = e->seq & FC_ENTRY_SEQ_MASK;
		if (now < was) {
			assert_int_equal(now, 2); /* past 0, the free word's, to 2 */
			wraps++;
		} else {
			assert_int_equal(now, was + 2);
		}
		assert_int_equal(e->seq >> FC_ENTRY_TAG_SHIFT, 0xab);
	}
	assert_int_equal(wraps, 1);
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0xab);
	assert_true(fc_table_entry_read(t, (uint32_t)pos, &a));
	assert_int_equal(a.rule_id, (FC_ENTRY_SEQ_MASK >> 1) + 3);
	/* Withdrawn: the count stays, the slot stays live. */
	s0 = e->seq & FC_ENTRY_SEQ_MASK;
	assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0), 0);
	assert_int_equal(e->seq, s0);
	assert_non_null(fc_table_entry(t, (uint32_t)pos));
	/* Deleted: the whole word goes to 0, tag and count. */
	assert_int_equal(fc_table_mark_tag_set(t, (uint32_t)pos, 0x11), 0);
	assert_int_equal(fc_table_delete(t, (uint32_t)pos), 0);
	assert_int_equal(e->seq, 0);
	assert_int_equal(fc_table_mark_tag(t, (uint32_t)pos), 0);
	fc_table_free(t);
}

/* Counter race: one lcore counts, this one reads. */
#define RACE_TOUCHES 2000000u
#define RACE_BYTES 0x7fffffffu /* a carry every other touch */

struct ctr_race {
	struct fc_table *t;
	uint32_t idx;
	uint32_t done;
};

static int
ctr_counter(void *arg)
{
	struct ctr_race *r = arg;

	for (uint32_t i = 0; i < RACE_TOUCHES; i++)
		fc_table_touch(r->t, r->idx, RACE_BYTES, i);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * While another lcore counts (every other hit carries into the byte
 * count's high word), every read is a value the counter had: bytes are
 * packets times the packet size, exactly, and neither ever goes back.
 */
static void
test_counter_race(void **state)
{
	static struct ctr_race r;
	uint64_t last_p = 0, last_b = 0, reads = 0, bad = 0, back = 0;
	unsigned int lcore;
	int pos;

	(void)state;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE)
		skip();
	memset(&r, 0, sizeof(r));
	r.t = new_table("line_race", FC_AF_INET4, 64);
	pos = insert_i(r.t, FC_AF_INET4, 9, 9);
	assert_true(pos >= 0);
	r.idx = (uint32_t)pos;
	assert_int_equal(rte_eal_remote_launch(ctr_counter, &r, lcore), 0);
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
		uint64_t p, b;

		/* A high word combined with the wrong low one is 2^32 off:
		 * 2 modulo the packet size. */
		fc_table_counters(r.t, r.idx, &p, &b);
		if (b % RACE_BYTES != 0)
			bad++;
		if (b < last_b || p < last_p)
			back++;
		last_p = p;
		last_b = b;
		reads++;
	}
	assert_int_equal(rte_eal_wait_lcore(lcore), 0);
	print_message("counter race: %" PRIu64 " reads, %" PRIu64 " torn, %" PRIu64
		      " out of order\n", reads, bad, back);
	assert_int_equal(bad, 0);
	assert_int_equal(back, 0);
	check_counters(r.t, r.idx, RACE_TOUCHES, (uint64_t)RACE_TOUCHES * RACE_BYTES);
	fc_table_free(r.t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_place),
		cmocka_unit_test(test_counter_carry),
		cmocka_unit_test(test_seq_tag),
		cmocka_unit_test(test_counter_race),
	};
	int ret;

	if (gufc_test_eal_init("table_line", "0-1") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
