/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/table_bkt.c — where the flow table finds a key's slot: a
 * cuckoo hash of one-cache-line buckets (struct fc_bucket, table_priv.h)
 * built for the table's two key sizes and its one writer, and the
 * readers' bulk lookup over it. Entries, keys and creation times stay in
 * arrays indexed by slot (table.c: an IPv4 key is its entry line's tail,
 * so key and entry are one line); a bucket slot holds a 16-bit tag and
 * the key's slot index plus one.
 *
 * Bucket choice: a key's fc_table_hash() value h names its tag, its low
 * half, and its first bucket, h scaled to the bucket count (h * n_bkt >>
 * 32: its high bits decide, independent of the tag), so the buckets need
 * not be a power of two and the table holds no more of them than its
 * capacity needs; its second bucket is a function of the tag minus the
 * first, modulo the bucket count (bkt_alt()), so either bucket and the tag
 * give the other (the writer moves a key without its hash). For about 2
 * keys in n_bkt the two are the same bucket: such a key has 8 places, not
 * 16. The hash is keyed and non-linear (table.c, "Hashing"): a sender
 * cannot aim keys at a bucket pair without the secret.
 *
 * Insert: the first free slot of the key's two buckets; when both are
 * full, a breadth-first search (at most FC_BKT_SEARCH_MAX buckets, no
 * bucket twice on a path) finds the shortest chain of keys, each of which
 * can move to its other bucket, ending at a free slot, and the writer
 * moves them from the free end back. The table is sized so that live
 * keys fill at most 15/16 of the bucket slots; should the search fail
 * anyway, the insert fails (table.c evicts and retries, bounded).
 *
 * Readers, lock-free (the writer never waits for them):
 *  - A bucket slot is published by a release store of its index (the tag
 *    and the key in the key array written before); readers load the
 *    index with acquire and compare the whole key, so a stale tag or a
 *    slot being rewritten gives at worst a miss, never a wrong slot. The
 *    key of a slot a reader found stays as it is until the reader reports
 *    quiescence: slots are reused only after a grace period (table.c).
 *  - A cuckoo move writes the key's new bucket slot first, then bumps
 *    bkt_chg (release store, then a release fence), and only then
 *    overwrites the old slot. A reader loads bkt_chg (acquire) before
 *    reading any bucket; when a key is not found, it loads it again after
 *    an acquire fence and looks again if it moved: a reader that saw an
 *    old slot overwritten sees the bump, and one that saw the bump sees
 *    the new slot. Present keys are found (test_table_stress); deletions
 *    need no bump (a deleted key may be missed). The looks again are
 *    bounded (FC_BKT_RETRY_MAX): past them a key counts as a miss and the
 *    slow path, which looks up on the writer, finds it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_prefetch.h>

#include "table_priv.h"

static_assert(sizeof(struct fc_bucket) == RTE_CACHE_LINE_MIN_SIZE, "a bucket is one cache line");
static_assert(sizeof(struct fc_key_v4) == 16 && sizeof(struct fc_key_v6) == 48,
	"the lookup compares keys as 2 or 6 64-bit words");

/* Lookups again after keys moved, at most (lookup_bulk_ks()). */
#define FC_BKT_RETRY_MAX 8u

/* Spreads the tags over the buckets (bkt_alt()). */
#define FC_BKT_ALT_MUL 0x9e3779b1u

/* A key's tag: the low half of its hash. */
static __rte_always_inline uint16_t
sig_tag(uint32_t sig)
{
	return (uint16_t)sig;
}

/* A key's first bucket of @p n: its hash scaled to [0, n), the high bits deciding. */
static __rte_always_inline uint32_t
bkt_first(uint32_t n, uint32_t sig)
{
	return (uint32_t)(((uint64_t)sig * n) >> 32);
}

/*
 * The other bucket of @p n of a key with tag @p tag in bucket @p b: the
 * tag's point in [0, n) minus @p b, modulo @p n (an involution).
 */
static __rte_always_inline uint32_t
bkt_alt(uint32_t n, uint32_t b, uint16_t tag)
{
	uint32_t k = (uint32_t)(((uint64_t)((uint32_t)tag * FC_BKT_ALT_MUL) * n) >> 32);

	return k >= b ? k - b : k - b + n;
}

/*
 * Buckets for @p capacity live keys (one more while fc_table_move() holds
 * both keys): the live keys filling at most 15/16 of their slots.
 */
uint32_t
bkt_count_for(uint32_t capacity)
{
	uint64_t slots = ((uint64_t)capacity + 1) * 16 / 15 + 1;
	uint64_t n = (slots + FC_BKT_ENTRIES - 1) / FC_BKT_ENTRIES;

	return (uint32_t)RTE_MAX(n, (uint64_t)2);
}

/* Bit 2i set when slot i's tag is @p tag (the SSE2 mask's layout: two bits a slot, low kept). */
static __rte_always_inline uint32_t
bkt_tag_match(const struct fc_bucket *b, uint16_t tag)
{
#ifdef __SSE2__
	__m128i v = _mm_load_si128((const __m128i *)(const void *)b->tag);

	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(v, _mm_set1_epi16((short)tag))) &
	       0x5555u;
#else
	uint32_t m = 0;

	for (unsigned int i = 0; i < FC_BKT_ENTRIES; i++)
		m |= (uint32_t)(b->tag[i] == tag) << (2 * i);
	return m;
#endif
}

static __rte_always_inline uint64_t
ld64(const void *p, unsigned int off)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + off, sizeof(v));
	return v;
}

/* Keys of @p ks bytes (16 or 48) equal: 64-bit words, no loop, no copy. */
static __rte_always_inline bool
key_eq(const void *a, const void *b, unsigned int ks)
{
	uint64_t d = (ld64(a, 0) ^ ld64(b, 0)) | (ld64(a, 8) ^ ld64(b, 8));

	if (ks == sizeof(struct fc_key_v6))
		d |= (ld64(a, 16) ^ ld64(b, 16)) | (ld64(a, 24) ^ ld64(b, 24)) |
		     (ld64(a, 32) ^ ld64(b, 32)) | (ld64(a, 40) ^ ld64(b, 40));
	return d == 0;
}

/*
 * The slot of @p key among the candidates of @p m (bits 2i: bucket @p b1's
 * slot i, 16 + 2i: @p b2's), or -ENOENT.
 */
static __rte_always_inline int32_t
bkt_pick(const struct fc_table *t, const struct fc_bucket *b1, const struct fc_bucket *b2,
	uint32_t m, const void *key, unsigned int ks)
{
	while (m != 0) {
		unsigned int bit = (unsigned int)__builtin_ctz(m);
		const struct fc_bucket *b = bit < 16 ? b1 : b2;
		uint32_t id = __atomic_load_n(&b->idx[(bit & 15) >> 1], __ATOMIC_ACQUIRE);

		m &= m - 1;
		if (id != 0 && key_eq(t->keys + (size_t)(id - 1) * FC_KEY_STRIDE(ks), key, ks))
			return (int32_t)(id - 1);
	}
	return -ENOENT;
}

static __rte_always_inline int32_t
bkt_find_ks(const struct fc_table *t, const void *key, uint32_t sig, unsigned int ks)
{
	uint16_t tag = sig_tag(sig);
	uint32_t i1 = bkt_first(t->n_bkt, sig);
	const struct fc_bucket *b1 = &t->bkt[i1];
	const struct fc_bucket *b2 = &t->bkt[bkt_alt(t->n_bkt, i1, tag)];

	return bkt_pick(t, b1, b2, bkt_tag_match(b1, tag) | bkt_tag_match(b2, tag) << 16, key,
		ks);
}

/* The slot of @p key (hash @p sig), live or being published, or -ENOENT. Context: writer. */
int32_t
bkt_find(const struct fc_table *t, const void *key, uint32_t sig)
{
	return t->key_size == sizeof(struct fc_key_v4) ?
		       bkt_find_ks(t, key, sig, sizeof(struct fc_key_v4)) :
		       bkt_find_ks(t, key, sig, sizeof(struct fc_key_v6));
}

/* Take slot @p pos out of the buckets of hash @p sig (its key stays readable). Context: writer. */
void
bkt_del(struct fc_table *t, uint32_t sig, uint32_t pos)
{
	uint16_t tag = sig_tag(sig);
	uint32_t i1 = bkt_first(t->n_bkt, sig);
	struct fc_bucket *b[2] = {&t->bkt[i1], &t->bkt[bkt_alt(t->n_bkt, i1, tag)]};

	for (unsigned int k = 0; k < 2; k++)
		for (unsigned int s = 0; s < FC_BKT_ENTRIES; s++)
			if (b[k]->idx[s] == pos + 1) {
				__atomic_store_n(&b[k]->idx[s], 0, __ATOMIC_RELEASE);
				return;
			}
	RTE_ASSERT(0); /* not in its buckets: the table is corrupt */
}

/* A bucket the cuckoo search visits: the key in @c slot of its parent moves into it. */
struct bkt_node {
	uint32_t bkt;
	uint16_t parent; /**< index in the search's node array; UINT16_MAX: a root */
	uint8_t slot;
};

/* Is @p bkt on the path from node @p n up to its root? */
static bool
bkt_on_path(const struct bkt_node *nodes, uint16_t n, uint32_t bkt)
{
	for (; n != UINT16_MAX; n = nodes[n].parent)
		if (nodes[n].bkt == bkt)
			return true;
	return false;
}

/* Move the key of @p src slot @p ss into @p dst slot @p ds (empty), readers meanwhile finding it. */
static void
bkt_move(struct fc_table *t, struct fc_bucket *src, unsigned int ss, struct fc_bucket *dst,
	unsigned int ds)
{
	dst->tag[ds] = src->tag[ss];
	__atomic_store_n(&dst->idx[ds], src->idx[ss], __ATOMIC_RELEASE);
	__atomic_store_n(&t->bkt_chg, t->bkt_chg + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE); /* the bump before src's slot changes */
	wr_add64(&t->moves, 1);
}

/*
 * Put slot @p pos, whose key (hash @p sig) is in the key array already,
 * into a bucket: @return 0, or -ENOSPC (no chain of moves to a free slot
 * within the search's bound). Context: writer.
 */
int
bkt_add(struct fc_table *t, uint32_t sig, uint32_t pos)
{
	struct bkt_node nodes[FC_BKT_SEARCH_MAX];
	uint16_t tag = sig_tag(sig);
	uint32_t i1 = bkt_first(t->n_bkt, sig);
	unsigned int head, tail = 0, cur, ds;
	struct fc_bucket *dst;

	nodes[tail++] = (struct bkt_node){.bkt = i1, .parent = UINT16_MAX, .slot = 0};
	nodes[tail++] = (struct bkt_node){
		.bkt = bkt_alt(t->n_bkt, i1, tag), .parent = UINT16_MAX, .slot = 0};
	for (head = 0; head < tail; head++) {
		const struct fc_bucket *b = &t->bkt[nodes[head].bkt];

		for (ds = 0; ds < FC_BKT_ENTRIES; ds++)
			if (b->idx[ds] == 0)
				goto found;
		for (unsigned int s = 0; s < FC_BKT_ENTRIES && tail < FC_BKT_SEARCH_MAX; s++) {
			uint32_t alt = bkt_alt(t->n_bkt, nodes[head].bkt, b->tag[s]);

			if (bkt_on_path(nodes, (uint16_t)head, alt))
				continue;
			nodes[tail++] = (struct bkt_node){
				.bkt = alt, .parent = (uint16_t)head, .slot = (uint8_t)s};
		}
	}
	return -ENOSPC;

found:
	/* From the free slot back to the root, each key one bucket on. */
	for (cur = head; nodes[cur].parent != UINT16_MAX; cur = nodes[cur].parent) {
		struct fc_bucket *src = &t->bkt[nodes[nodes[cur].parent].bkt];

		bkt_move(t, src, nodes[cur].slot, &t->bkt[nodes[cur].bkt], ds);
		ds = nodes[cur].slot;
	}
	dst = &t->bkt[nodes[cur].bkt];
	dst->tag[ds] = tag;
	__atomic_store_n(&dst->idx[ds], pos + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The slot of @p key in bucket @p b (tag @p tag), or -ENOENT. Context: any.
 */
static __rte_always_inline int32_t
bkt_pick1(const struct fc_table *t, const struct fc_bucket *b, uint16_t tag, const void *key,
	unsigned int ks)
{
	return bkt_pick(t, b, b, bkt_tag_match(b, tag), key, ks);
}

/* What a reader's lookup of one key gives (lookup_one()). */
enum bkt_res {
	BKT_ABSENT, /**< not in its buckets (a cuckoo move may have hidden it) */
	BKT_BUSY,   /**< found, but the entry is being published, rewritten or deleted */
	BKT_HIT,    /**< found, the action copied */
};

/*
 * Look @p key up: in bucket @p b1 among the candidates @p m, then in its
 * second bucket. @return its slot, or -ENOENT.
 */
static __rte_always_inline int32_t
lookup_slot(const struct fc_table *t, const struct fc_bucket *b1, uint32_t m, const void *key,
	uint32_t sig, unsigned int ks)
{
	int32_t p = bkt_pick(t, b1, b1, m, key, ks);

	if (unlikely(p < 0)) {
		uint16_t tag = sig_tag(sig);

		p = bkt_pick1(t, &t->bkt[bkt_alt(t->n_bkt, bkt_first(t->n_bkt, sig), tag)], tag,
			key, ks);
	}
	return p;
}

/* lookup_slot() out of line: the lookup's third pass when the first candidate was not it. */
static __rte_noinline int32_t
lookup_slot_v4(const struct fc_table *t, const struct fc_bucket *b1, uint32_t m, const void *key,
	uint32_t sig)
{
	return lookup_slot(t, b1, m, key, sig, sizeof(struct fc_key_v4));
}

static __rte_noinline int32_t
lookup_slot_v6(const struct fc_table *t, const struct fc_bucket *b1, uint32_t m, const void *key,
	uint32_t sig)
{
	return lookup_slot(t, b1, m, key, sig, sizeof(struct fc_key_v6));
}

/*
 * Fetch slot @p pos's key and entry: one line for an IPv4 key (its
 * entry's tail), two for an IPv6 one.
 */
static __rte_always_inline void
prefetch_slot(const struct fc_table *t, uint32_t pos, unsigned int ks)
{
	rte_prefetch0(&t->entries[pos]);
	if (ks != sizeof(struct fc_key_v4))
		rte_prefetch0(t->keys + (size_t)pos * FC_KEY_STRIDE(ks));
}

/* On a hit on slot @p p, copy the action under the entry's sequence count into @p act. */
static __rte_always_inline enum bkt_res
lookup_copy(const struct fc_table *t, int32_t p, struct fc_action *act, uint32_t *pos)
{
	const struct fc_entry *e;
	uint32_t s1, s2;

	if (p < 0)
		return BKT_ABSENT;
	e = &t->entries[p];
	s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	if (unlikely(s1 == 0 || (s1 & 1u) != 0))
		return BKT_BUSY;
	*act = e->act;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	/* The count's bits: a mark tag published meanwhile changes no action. */
	if (unlikely(((s1 ^ s2) & FC_ENTRY_SEQ_MASK) != 0))
		return BKT_BUSY; /* changed under us: the slow path sorts it out */
	*pos = (uint32_t)p;
	return BKT_HIT;
}

/*
 * Look @p key up (lookup_slot()); on a hit copy the action under the
 * entry's sequence count into @p act and give the slot in @p pos.
 */
static __rte_always_inline enum bkt_res
lookup_one(const struct fc_table *t, const struct fc_bucket *b1, uint32_t m, const void *key,
	uint32_t sig, unsigned int ks, struct fc_action *act, uint32_t *pos)
{
	return lookup_copy(t, lookup_slot(t, b1, m, key, sig, ks), act, pos);
}

/*
 * The readers' lookup, for one key size: (1) each key's first bucket,
 * prefetched; (2) its tags compared: the first candidate's slot (loaded
 * as the bucket publishes it), key and entry prefetched, or, without a
 * candidate, the second bucket; (3) for those, the second bucket's tags
 * compared: its first candidate's slot, key and entry prefetched; (4)
 * the first candidate's key compared, else (out of line) the first
 * bucket's other candidates, then the second's; the action copied under
 * the entry's sequence count; (5) keys not found while a cuckoo move
 * ran, again. Keys go to their first bucket while it has room, so most
 * lookups read one bucket line, the key's and the entry's, and compare
 * one key; those in their second bucket read two bucket lines, the
 * key's and the entry's, all fetched a burst at a time. An IPv4 key is
 * its entry's tail: one line for both.
 */
static __rte_always_inline unsigned int
lookup_bulk_ks(struct fc_table *t, const void *const keys[], const uint32_t sigs[],
	unsigned int n, uint64_t *hit_mask, struct fc_action acts[], uint32_t idx[],
	unsigned int ks)
{
	const struct fc_bucket *b1[FC_TABLE_BULK_MAX];
	uint32_t m[FC_TABLE_BULK_MAX];
	uint32_t first[FC_TABLE_BULK_MAX]; /* the first candidate's slot + 1; 0: none */
	const uint32_t nb = t->n_bkt;
	uint64_t hits = 0, absent = 0, no1 = 0;
	uint32_t chg, chg2;
	unsigned int i;

	chg = __atomic_load_n(&t->bkt_chg, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		b1[i] = &t->bkt[bkt_first(nb, sigs[i])];
		rte_prefetch0(b1[i]);
	}
	for (i = 0; i < n; i++) {
		uint32_t mm = bkt_tag_match(b1[i], sig_tag(sigs[i]));

		m[i] = mm;
		first[i] = 0;
		if (likely(mm != 0)) {
			uint32_t id = __atomic_load_n(&b1[i]->idx[__builtin_ctz(mm) >> 1],
				__ATOMIC_ACQUIRE);

			first[i] = id;
			if (likely(id != 0))
				prefetch_slot(t, id - 1, ks);
		} else {
			rte_prefetch0(&t->bkt[bkt_alt(nb, bkt_first(nb, sigs[i]), sig_tag(sigs[i]))]);
			no1 |= UINT64_C(1) << i;
		}
	}
	/*
	 * Keys without a candidate in their first bucket (about one in ten
	 * at 15/16 of the slots filled: the writer put them in their second
	 * bucket): the second bucket's tags, prefetched in the pass above,
	 * give the first candidate there, whose key and entry are prefetched
	 * now, for the burst at once, rather than missed one after the other
	 * in the compare pass below.
	 */
	while (no1 != 0) {
		const struct fc_bucket *b2;
		uint32_t mm;

		i = (unsigned int)__builtin_ctzll(no1);
		no1 &= no1 - 1;
		b2 = &t->bkt[bkt_alt(nb, (uint32_t)(b1[i] - t->bkt), sig_tag(sigs[i]))];
		mm = bkt_tag_match(b2, sig_tag(sigs[i]));
		if (mm == 0)
			continue;
		first[i] = __atomic_load_n(&b2->idx[__builtin_ctz(mm) >> 1], __ATOMIC_ACQUIRE);
		if (likely(first[i] != 0))
			prefetch_slot(t, first[i] - 1, ks);
	}
	for (i = 0; i < n; i++) {
		uint32_t id = first[i];
		enum bkt_res r;
		int32_t p;

		if (likely(id != 0 && key_eq(t->keys + (size_t)(id - 1) * FC_KEY_STRIDE(ks), keys[i],
					      ks)))
			p = (int32_t)(id - 1);
		else if (ks == sizeof(struct fc_key_v4))
			p = lookup_slot_v4(t, b1[i], m[i] & (m[i] - 1), keys[i], sigs[i]);
		else
			p = lookup_slot_v6(t, b1[i], m[i] & (m[i] - 1), keys[i], sigs[i]);
		r = lookup_copy(t, p, &acts[i], &idx[i]);
		if (likely(r == BKT_HIT)) {
			hits |= UINT64_C(1) << i;
			continue;
		}
		idx[i] = FC_INDEX_NONE;
		absent |= (uint64_t)(r == BKT_ABSENT) << i;
	}
	/*
	 * Keys not found while a key moved between its buckets: again, until
	 * none moved, at most FC_BKT_RETRY_MAX times (the RX lcore never spins
	 * behind a writer that keeps moving keys: a key missed so goes to the
	 * slow path, which finds it on the writer).
	 */
	for (unsigned int round = 0; unlikely(absent != 0) && round < FC_BKT_RETRY_MAX; round++) {
		uint64_t left = absent;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		chg2 = __atomic_load_n(&t->bkt_chg, __ATOMIC_RELAXED);
		if (likely(chg2 == chg))
			break;
		chg = chg2;
		absent = 0;
		while (left != 0) {
			enum bkt_res r;

			i = (unsigned int)__builtin_ctzll(left);
			left &= left - 1;
			r = lookup_one(t, b1[i], bkt_tag_match(b1[i], sig_tag(sigs[i])), keys[i],
				sigs[i], ks, &acts[i], &idx[i]);
			if (r == BKT_HIT)
				hits |= UINT64_C(1) << i;
			else
				idx[i] = FC_INDEX_NONE;
			absent |= (uint64_t)(r == BKT_ABSENT) << i;
		}
	}
	*hit_mask = hits;
	return (unsigned int)__builtin_popcountll(hits);
}

void
fc_table_prefetch_buckets(const struct fc_table *t, const uint32_t sigs[], unsigned int n)
{
	const uint32_t nb = t->n_bkt;

	for (unsigned int i = 0; i < n; i++)
		rte_prefetch0(&t->bkt[bkt_first(nb, sigs[i])]);
}

/*
 * Fast path (see the top of this file). Keys whose action cannot be
 * copied (an entry being published, rewritten or deleted) are misses.
 */
unsigned int
fc_table_lookup_bulk(struct fc_table *t, unsigned int reader_id, const void *const keys[],
	const uint32_t sigs[], unsigned int n, uint64_t *hit_mask, struct fc_action acts[],
	uint32_t idx[])
{
	struct fc_reader_stats *rs;
	unsigned int hits;

	RTE_ASSERT(reader_id < t->max_readers);
	RTE_ASSERT(n <= FC_TABLE_BULK_MAX);
	if (unlikely(n > FC_TABLE_BULK_MAX))
		n = FC_TABLE_BULK_MAX; /* contract violation: never overrun the arrays */
	if (unlikely(n == 0)) {
		*hit_mask = 0;
		return 0;
	}
	if (t->key_size == sizeof(struct fc_key_v4))
		hits = lookup_bulk_ks(t, keys, sigs, n, hit_mask, acts, idx,
			sizeof(struct fc_key_v4));
	else
		hits = lookup_bulk_ks(t, keys, sigs, n, hit_mask, acts, idx,
			sizeof(struct fc_key_v6));
	rs = &t->rstats[reader_id];
	__atomic_store_n(&rs->lookups, rs->lookups + n, __ATOMIC_RELAXED);
	__atomic_store_n(&rs->hits, rs->hits + hits, __ATOMIC_RELAXED);
	__atomic_store_n(&rs->misses, rs->misses + (n - hits), __ATOMIC_RELAXED);
	return hits;
}

/* Writer side: two passes, the buckets of all keys prefetched first. */
unsigned int
fc_table_find_bulk(const struct fc_table *t, const void *const keys[], const uint32_t sigs[],
	unsigned int n, int32_t idx[])
{
	unsigned int found = 0;

	if (t == NULL || n == 0)
		return 0;
	RTE_ASSERT(n <= FC_TABLE_BULK_MAX);
	if (unlikely(n > FC_TABLE_BULK_MAX))
		n = FC_TABLE_BULK_MAX;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t i1 = bkt_first(t->n_bkt, sigs[i]);

		rte_prefetch0(&t->bkt[i1]);
		rte_prefetch0(&t->bkt[bkt_alt(t->n_bkt, i1, sig_tag(sigs[i]))]);
	}
	for (unsigned int i = 0; i < n; i++) {
		idx[i] = bkt_find(t, keys[i], sigs[i]);
		if (idx[i] >= 0 && slot_live(t, (uint32_t)idx[i]))
			found++;
		else
			idx[i] = -ENOENT;
	}
	return found;
}
