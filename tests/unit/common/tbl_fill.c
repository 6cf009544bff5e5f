/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow table tests' shared loops of tbl_fill.h: insert a range of
 * numbered keys, count the ones found, check a range in bursts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tbl_fill.h"

#define KEY_ROOM 48 /* an IPv6 key */
#define BURST 32

static void
act_of(const struct tbl_fill *f, uint32_t i, struct fc_action *a)
{
	if (f->act != NULL)
		f->act(i, a);
	else
		*a = f->a;
}

void
tbl_fill_insert(struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to,
	uint32_t now, bool now_step, uint32_t *slot)
{
	uint8_t key[KEY_ROOM];
	struct fc_action a;

	for (uint32_t i = from; i < to; i++) {
		int pos;

		f->key(f->family, i, key);
		act_of(f, i, &a);
		pos = fc_table_insert(t, key, fc_table_hash(t, key), &a, f->timeout,
			now_step ? now + (i - from) : now);
		if (pos < 0)
			fail_msg("key %u: insert: %d", i, pos);
		if (slot != NULL)
			slot[i - from] = (uint32_t)pos;
	}
}

uint32_t
tbl_fill_found(const struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to)
{
	uint8_t key[KEY_ROOM];
	uint32_t n = 0;

	for (uint32_t i = from; i < to; i++) {
		f->key(f->family, i, key);
		n += fc_table_lookup(t, key, fc_table_hash(t, key)) >= 0;
	}
	return n;
}

void
tbl_fill_check(
	struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to, const uint32_t *slot)
{
	uint8_t keys[BURST][KEY_ROOM];
	const void *kp[BURST];
	uint32_t sigs[BURST], idx[BURST];
	struct fc_action acts[BURST], want;
	uint64_t hits;

	for (uint32_t i = from; i < to; i += BURST) {
		unsigned int n = to - i < BURST ? to - i : BURST;

		for (unsigned int k = 0; k < n; k++) {
			f->key(f->family, i + k, keys[k]);
			kp[k] = keys[k];
		}
		fc_table_hash_bulk(t, kp, sigs, n);
		assert_int_equal(fc_table_lookup_bulk(t, 0, kp, sigs, n, &hits, acts, idx), n);
		for (unsigned int k = 0; k < n; k++) {
			uint32_t at = slot != NULL ? slot[i + k - from]
						   : (uint32_t)fc_table_lookup(t, kp[k], sigs[k]);

			if (idx[k] != at)
				fail_msg("key %u: at %u, not %u", i + k, idx[k], at);
			if (f->act == NULL)
				continue;
			f->act(i + k, &want);
			if (memcmp(&acts[k], &want, sizeof(want)) != 0)
				fail_msg("key %u: another action", i + k);
		}
	}
}
