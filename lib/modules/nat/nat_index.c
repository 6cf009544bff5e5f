/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat/nat_index.c — the NAT table's seeded hashes and its
 * indexes: chained hash buckets over the bindings, one of reply tuples,
 * one of original tuples (local bits ignored), and one by original source
 * (protocol, address, port: Linux's nf_nat by-source table, newest first).
 * A candidate translation is free when its reply tuple is in neither of
 * the first two (nat_binding.c); the third finds the mapping an earlier
 * connection from the same source got.
 * The seed is the table's: address choice, port search start and bucket
 * order are not predictable from outside. Pure C; rules lcore only.
 */
#include <stdint.h>
#include <string.h>

#include "nat_priv.h"

static inline uint32_t
hash_mix(uint32_t h, uint32_t w)
{
	w *= 0xcc9e2d51u;
	w = (w << 15) | (w >> 17);
	h ^= w * 0x1b873593u;
	h = (h << 13) | (h >> 19);
	return h * 5 + 0xe6546b64u;
}

static inline uint32_t
hash_final(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t
hash_bytes(uint32_t h, const uint8_t *p, uint32_t len)
{
	uint32_t i, w;

	for (i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, p + i, 4);
		h = hash_mix(h, w);
	}
	return h;
}

uint32_t
nat_tuple_hash(const struct mod_nat *nat, uint32_t salt, const struct fc_key *k)
{
	uint32_t alen = fc_af_addr_len(k->family);
	uint32_t h = nat->seed ^ salt;

	h = hash_bytes(h, fc_key_src(k), alen);
	h = hash_bytes(h, fc_key_dst(k), alen);
	h = hash_mix(h, (uint32_t)fc_key_sport(k) << 16 | fc_key_dport(k));
	h = hash_mix(h, (uint32_t)k->family << 8 | fc_key_proto(k));
	return hash_final(h);
}

uint64_t
nat_addr_hash64(const struct mod_nat *nat, uint32_t salt, const uint8_t *a, const uint8_t *b,
	uint32_t alen)
{
	uint32_t h1 = nat->seed ^ salt, h2 = ~nat->seed ^ salt * 31;

	h1 = hash_bytes(h1, a, alen);
	h2 = hash_bytes(h2, a, alen);
	if (b != NULL) {
		h1 = hash_bytes(h1, b, alen);
		h2 = hash_bytes(h2, b, alen);
	}
	return (uint64_t)hash_final(h1) << 32 | hash_final(h2 + 1);
}

bool
nat_index_has(const struct mod_nat *nat, enum nat_index ix, const struct fc_key *k)
{
	uint32_t i = nat->bkt[ix][nat_tuple_hash(nat, 0, k) & nat->bkt_mask];

	for (; i != NAT_NONE; i = nat->b[i].next[ix])
		if (nat_tuple_equal(&nat->b[i].key[ix], k))
			return true;
	return false;
}

void
nat_index_add(struct mod_nat *nat, enum nat_index ix, uint32_t id)
{
	uint32_t *head =
		&nat->bkt[ix][nat_tuple_hash(nat, 0, &nat->b[id].key[ix]) & nat->bkt_mask];

	nat->b[id].next[ix] = *head;
	*head = id;
}

void
nat_index_del(struct mod_nat *nat, enum nat_index ix, uint32_t id)
{
	uint32_t *p = &nat->bkt[ix][nat_tuple_hash(nat, 0, &nat->b[id].key[ix]) & nat->bkt_mask];

	while (*p != NAT_NONE) {
		if (*p == id) {
			*p = nat->b[id].next[ix];
			return;
		}
		p = &nat->b[*p].next[ix];
	}
}

/* Protocol, source address and source port: the by-source index's key. */
static uint32_t
src_hash(const struct mod_nat *nat, const struct fc_key *k)
{
	uint32_t h = nat->seed ^ 0x42595352;

	h = hash_bytes(h, fc_key_src(k), fc_af_addr_len(k->family));
	h = hash_mix(h, (uint32_t)fc_key_sport(k) << 16 | (uint32_t)k->family << 8 |
				fc_key_proto(k));
	return hash_final(h);
}

static bool
same_src(const struct fc_key *a, const struct fc_key *b)
{
	return a->family == b->family && fc_key_proto(a) == fc_key_proto(b) &&
	       fc_key_sport(a) == fc_key_sport(b) &&
	       memcmp(fc_key_src(a), fc_key_src(b), fc_af_addr_len(a->family)) == 0;
}

void
nat_src_index_add(struct mod_nat *nat, uint32_t id)
{
	uint32_t *head = &nat->bkt_src[src_hash(nat, &nat->b[id].key[IDX_ORIG]) & nat->bkt_mask];

	nat->b[id].next_src = *head;
	*head = id;
}

void
nat_src_index_del(struct mod_nat *nat, uint32_t id)
{
	uint32_t *p = &nat->bkt_src[src_hash(nat, &nat->b[id].key[IDX_ORIG]) & nat->bkt_mask];

	while (*p != NAT_NONE) {
		if (*p == id) {
			*p = nat->b[id].next_src;
			return;
		}
		p = &nat->b[*p].next_src;
	}
}

uint32_t
nat_src_index_next(const struct mod_nat *nat, const struct fc_key *k, uint32_t prev)
{
	uint32_t i = prev == NAT_NONE ? nat->bkt_src[src_hash(nat, k) & nat->bkt_mask]
				      : nat->b[prev].next_src;

	for (; i != NAT_NONE; i = nat->b[i].next_src)
		if (same_src(&nat->b[i].key[IDX_ORIG], k))
			return i;
	return NAT_NONE;
}
