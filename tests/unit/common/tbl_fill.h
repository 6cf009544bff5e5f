/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared loops of the flow table's unit tests: keys numbered by the test's
 * own key function, inserted, looked up one by one or in bursts as the RX
 * lcore does. Each fails the test at the first key that misbehaves, with
 * its number (include <cmocka.h> in the test).
 */
#ifndef GUFC_TEST_TBL_FILL_H
#define GUFC_TEST_TBL_FILL_H

#include <stdbool.h>
#include <stdint.h>

#include "flowcache.h"

/** Key number @p i of @p family, normalized, into @p buf (room for an IPv6 key). */
typedef void tbl_fill_key_fn(uint8_t family, uint32_t i, void *buf);

/** Key number @p i's action into @p a, every field a function of @p i. */
typedef void tbl_fill_act_fn(uint32_t i, struct fc_action *a);

/** How a test numbers its keys and their actions. */
struct tbl_fill {
	uint8_t family;        /**< FC_AF_INET4 or FC_AF_INET6 */
	tbl_fill_key_fn *key;  /**< key number i */
	tbl_fill_act_fn *act;  /**< its action; NULL: @c a for every key */
	struct fc_action a;    /**< without @c act */
	uint32_t timeout;      /**< fc_table_insert()'s */
};

/**
 * Insert keys @p from to @p to - 1 into @p t at @p now, or, with
 * @p now_step, key i at now + i - from; an insert that fails fails the
 * test. With @p slot (NULL accepted), slot[i - from] is key i's.
 */
void tbl_fill_insert(struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to,
	uint32_t now, bool now_step, uint32_t *slot);

/** How many of keys @p from to @p to - 1 @p t finds (fc_table_lookup()). */
uint32_t tbl_fill_found(
	const struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to);

/**
 * Look keys @p from to @p to - 1 up in bursts of 32 (fc_table_hash_bulk(),
 * fc_table_lookup_bulk() as reader 0): every one is found with its action
 * (with f->act), at slot[i - from], or, with @p slot NULL, where
 * fc_table_lookup() finds it.
 */
void tbl_fill_check(
	struct fc_table *t, const struct tbl_fill *f, uint32_t from, uint32_t to, const uint32_t *slot);

#endif /* GUFC_TEST_TBL_FILL_H */
