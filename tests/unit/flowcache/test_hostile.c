/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile traffic against the flow table's bucket choice. A sender who can
 * pick source addresses and ports (spoofing is cheap) knows a victim flow's
 * key and wants its bucket pair full before the flow arrives, so that the
 * flow cannot be cached.
 *
 * Against CRC32c that is a linear system: CRC is affine over GF(2), so for
 * keys of one length crc(seed, K) ^ crc(seed, V) = crc(0, K ^ V) whatever
 * the seed, and every difference D in the kernel of the linear map
 * D -> crc(0, D) gives a key V ^ D that collides with V under every seed.
 * With the 48 bits of source address and port free, the kernel has 2^16
 * elements at least. The test solves the system (Gaussian elimination over
 * GF(2)), checks the crafted keys collide with the victim under CRC32c for
 * random seeds (so the attack is real), shows that an rte_hash keyed by
 * CRC32c then refuses the victim, and that the flow table, whose hash is
 * keyed and non-linear (fc_table_hash()), spreads the same keys and caches
 * the victim.
 */

#include <errno.h>
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
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_random.h>

#include "eal_test.h"
#include "flowcache.h"

#define FREE_BITS 48 /* source address (32) and source port (16) */
#define N_ATTACK 64  /* four times a bucket pair (2 x 8 entries) */

/*
 * CRC32c of a 16-byte key from @p seed, as rte_hash_crc() computes it (on a
 * copy: rte_hash_crc() reads the key as 64-bit words, which must not alias
 * the struct's fields).
 */
static uint32_t
crc16(const struct fc_key_v4 *k, uint32_t seed)
{
	uint64_t w[2];

	memcpy(w, k, sizeof(w));
	return rte_hash_crc(w, sizeof(w), seed);
}

/* The key difference of free bit @p j: bits 0..31 the source address, 32..47 the port. */
static void
diff_bit(unsigned int j, struct fc_key_v4 *d)
{
	memset(d, 0, sizeof(*d));
	if (j < 32)
		d->src = 1u << j;
	else
		d->sport = (uint16_t)(1u << (j - 32));
}

static void
key_xor(struct fc_key_v4 *k, const struct fc_key_v4 *d)
{
	k->src ^= d->src;
	k->sport ^= d->sport;
}

/*
 * Kernel of the linear map from the free bits to the CRC: rows of the
 * 32 x FREE_BITS matrix are CRC bits, columns the free bits. Returns the
 * kernel's dimension; basis[i] holds a kernel vector as a bit mask of the
 * free bits.
 */
static unsigned int
crc_kernel(uint64_t basis[FREE_BITS])
{
	uint32_t col[FREE_BITS];
	int pivot_col[32];
	bool is_pivot[FREE_BITS] = { false };
	uint64_t m[32] = { 0 }; /* row r: which free bits feed CRC bit r */
	unsigned int rank = 0, dim = 0;

	for (unsigned int j = 0; j < FREE_BITS; j++) {
		struct fc_key_v4 d;

		diff_bit(j, &d);
		col[j] = crc16(&d, 0);
		for (unsigned int r = 0; r < 32; r++)
			if (col[j] & (1u << r))
				m[r] |= UINT64_C(1) << j;
	}
	/* Reduced row echelon form. */
	for (unsigned int j = 0; j < FREE_BITS && rank < 32; j++) {
		unsigned int r;

		for (r = rank; r < 32 && !(m[r] & (UINT64_C(1) << j)); r++)
			;
		if (r == 32)
			continue;
		uint64_t t = m[r];

		m[r] = m[rank];
		m[rank] = t;
		for (unsigned int q = 0; q < 32; q++)
			if (q != rank && (m[q] & (UINT64_C(1) << j)))
				m[q] ^= m[rank];
		pivot_col[rank] = (int)j;
		is_pivot[j] = true;
		rank++;
	}
	/* One basis vector per free column: set it, solve the pivots. */
	for (unsigned int j = 0; j < FREE_BITS; j++) {
		uint64_t v;

		if (is_pivot[j])
			continue;
		v = UINT64_C(1) << j;
		for (unsigned int r = 0; r < rank; r++)
			if (m[r] & (UINT64_C(1) << j))
				v |= UINT64_C(1) << pivot_col[r];
		basis[dim++] = v;
	}
	return dim;
}

/* The key V ^ D for kernel vector @p v (a mask of free bits). */
static void
key_from_vec(const struct fc_key_v4 *victim, uint64_t v, struct fc_key_v4 *k)
{
	*k = *victim;
	for (unsigned int j = 0; j < FREE_BITS; j++)
		if (v & (UINT64_C(1) << j)) {
			struct fc_key_v4 d;

			diff_bit(j, &d);
			key_xor(k, &d);
		}
}

static void
test_crc_collisions_vs_keyed_hash(void **state)
{
	struct fc_key_v4 victim, att[N_ATTACK];
	uint64_t basis[FREE_BITS];
	struct rte_hash_parameters hp;
	struct fc_table_params tp;
	struct fc_table *t;
	struct rte_hash *h;
	struct fc_action a;
	unsigned int dim, crc_added = 0, tab_added = 0, distinct = 0;
	int rc;

	(void)state;
	memset(&victim, 0, sizeof(victim));
	victim.src = rte_cpu_to_be_32(0xc6336401);  /* 198.51.100.1 */
	victim.dst = rte_cpu_to_be_32(0xc0000250);  /* 192.0.2.80 */
	victim.sport = rte_cpu_to_be_16(40000);
	victim.dport = rte_cpu_to_be_16(443);
	victim.proto = 6;

	dim = crc_kernel(basis);
	assert_true(dim >= FREE_BITS - 32);
	/* Attackers: V ^ (distinct non-zero kernel combinations). */
	for (unsigned int i = 0; i < N_ATTACK; i++) {
		uint64_t v = 0;

		for (unsigned int b = 0; b < dim && b < 16; b++)
			if ((i + 1) & (1u << b))
				v ^= basis[b];
		key_from_vec(&victim, v, &att[i]);
		assert_memory_not_equal(&att[i], &victim, sizeof(victim));
	}
	/* The attack is real: every crafted key has the victim's CRC32c, whatever the seed. */
	for (unsigned int s = 0; s < 8; s++) {
		uint32_t seed = (uint32_t)rte_rand();

		for (unsigned int i = 0; i < N_ATTACK; i++)
			assert_int_equal(crc16(&att[i], seed), crc16(&victim, seed));
	}

	/* An rte_hash keyed by CRC32c (a random seed) refuses the victim. */
	memset(&hp, 0, sizeof(hp));
	hp.name = "hostile_crc";
	hp.entries = 4096;
	hp.key_len = sizeof(victim);
	hp.hash_func = rte_hash_crc;
	hp.hash_func_init_val = (uint32_t)rte_rand();
	hp.socket_id = SOCKET_ID_ANY;
	h = rte_hash_create(&hp);
	assert_non_null(h);
	for (unsigned int i = 0; i < N_ATTACK; i++)
		crc_added += rte_hash_add_key(h, &att[i]) >= 0;
	assert_true(crc_added <= 16); /* one bucket pair, eight entries each */
	assert_int_equal(rte_hash_add_key(h, &victim), -ENOSPC);
	rte_hash_free(h);

	/* The flow table: the same keys spread, and the victim is cached. */
	memset(&tp, 0, sizeof(tp));
	tp.name = "hostile";
	tp.family = FC_AF_INET4;
	tp.capacity = 4096;
	tp.max_readers = 1;
	tp.full_policy = FC_FULL_REFUSE;
	tp.socket_id = SOCKET_ID_ANY;
	t = fc_table_create(&tp);
	assert_non_null(t);
	for (unsigned int i = 0; i < N_ATTACK; i++) {
		bool dup = false;

		for (unsigned int j = 0; j < i; j++)
			dup |= fc_table_hash(t, &att[j]) == fc_table_hash(t, &att[i]);
		distinct += !dup;
	}
	assert_true(distinct >= N_ATTACK - 1);
	memset(&a, 0, sizeof(a));
	for (unsigned int i = 0; i < N_ATTACK; i++)
		tab_added += fc_table_insert(t, &att[i], fc_table_hash(t, &att[i]), &a, 0, 1) >= 0;
	assert_int_equal(tab_added, N_ATTACK);
	rc = fc_table_insert(t, &victim, fc_table_hash(t, &victim), &a, 0, 1);
	assert_true(rc >= 0);
	assert_int_equal(fc_table_lookup(t, &victim, fc_table_hash(t, &victim)), rc);
	fc_table_free(t);
	print_message("CRC32c kernel of dimension %u: %u crafted keys, all colliding with the "
		      "victim under CRC32c (rte_hash took %u, refused the victim); the keyed hash "
		      "gave %u distinct signatures and cached all %u and the victim\n",
		dim, N_ATTACK, crc_added, distinct, tab_added);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_collisions_vs_keyed_hash),
	};
	int ret;

	(void)argc;
	(void)argv;
	if (gufc_test_eal_init("hostile", "0") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
