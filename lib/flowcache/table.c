/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/table.c — the flow table: a cuckoo hash of its own
 * (table_bkt.c: one-cache-line buckets of 16-bit tags and slot indexes,
 * lock-free readers) keyed by the normalized 7-tuple, whose key slot
 * indexes a preallocated array of one-cache-line entries (struct
 * fc_entry: the action, the sequence count and the NIC mark's tag in one
 * word, the last hit's time, the counters' low words and, in an IPv4
 * table, the key: a hit reads one line for key and entry) and, beside
 * them, what no plain hit reads: the cold words (struct fc_entry_cold:
 * the counters' high words, the other direction's index, the encoded idle
 * timeout; an array of their own in an IPv4 table, the entry line's last
 * 16 bytes in an IPv6 one, whose 48-byte keys have lines of their own)
 * and the insertion times.
 *
 * One writer (the rules lcore) inserts, updates, ages and deletes; any number
 * of registered readers (RX lcores) look up bursts and copy the cached action
 * out. How that stays safe without locks:
 *
 *  - Entry publication: struct fc_entry::seq is 0 while the slot is free. The
 *    writer takes a free key slot, copies the key in, puts the slot in a
 *    bucket, fills the entry and only then stores an even non-zero seq
 *    (release). A reader that finds the key before that reads seq 0 and
 *    treats it as a miss; misses go to the slow path, which looks up again
 *    on the writer. Cuckoo moves never hide a present key (table_bkt.c).
 *  - Updates are a seqlock write (seq odd, write, seq even). Readers copy the
 *    action between an acquire load of seq and a re-check; any change, an odd
 *    or a zero seq is a miss, never a torn copy.
 *  - Deletion stores seq 0 (release) before the key leaves its bucket. The key
 *    slot, and with it the entry and the key, waits out an RCU grace period
 *    (see below): it is handed out again only after every registered reader
 *    has reported a quiescent state, so a reader still comparing a key or
 *    copying an entry it found never sees it rewritten for another key.
 *
 * Capacity: the table has capacity + headroom key slots (headroom =
 * max(capacity / 64, 1024)); the table itself refuses or evicts once `capacity`
 * entries are live. The headroom lets deleted slots wait out their grace
 * period while the table stays usable at full occupancy: exactly `capacity`
 * flows always fit as long as readers keep reporting quiescence. If readers
 * stall long enough that the headroom is all waiting for a grace period, an
 * insert fails with -ENOSPC (counted as refused) instead of blocking.
 * The buckets hold live keys only (a deleted key leaves its bucket at
 * once): a power of two of them, so that `capacity` live keys fill at most
 * 15/16 of their slots, where a cuckoo insert does not fail in practice.
 * Should one fail anyway, EVICT_IDLE evicts and retries a bounded number
 * of times, then refuses (counted).
 *
 * Grace periods: deleted slots are chained through their (dead)
 * insertion-time records (fc_table::created) into small batches, each
 * with the RCU token started after its latest removal; a batch's slots go
 * back to the free-slot stack once every reader has passed that token. A
 * bounded ring of batches, the open one unbounded when the ring is full,
 * so no deletion ever fails for want of queue space.
 *
 * Hashing: keys live in the buckets their 32-bit signature names; the
 * signature is the table's own keyed hash, not a CRC32c (rte_hash's
 * default, the table's hash before it had buckets of its own). CRC is affine over GF(2): keys
 * whose difference the CRC maps to zero collide under every seed, and a
 * sender who picks source addresses and ports finds 2^16 of them for any
 * flow by solving a linear system (tests/unit/flowcache/test_hostile.c),
 * enough to fill a victim's bucket pair before it arrives. The keyed hash
 * is NH (UMAC's, over the key's 32-bit words: the sum of products
 * (w[2i] + k[2i]) * (w[2i+1] + k[2i+1]), words and keys mod 2^32, into 64
 * bits; for two different keys of a length, equal sums have probability
 * at most 2^-32 over the random keys), then a keyed 64-bit finalizer
 * (add a key, murmur3's fmix64) whose low 32 bits are the signature. The
 * secret (12 word keys and the finalizer's) is drawn per table from
 * rte_rand(), or derived from fc_table_params::hash_seed when given
 * (reproducible tests). Cost: two or six multiplications per key plus the
 * finalizer's two, about as cheap as the CRC instructions it replaces
 * (gufc-bench's "hash" figures).
 *
 * Other choices: eviction takes an entry not established yet first (the
 * idlest of the oldest few, from a list in insertion order), else the
 * idlest among evict_scan live entries from a rotating cursor, timeout 0
 * included (table_evict);
 * an insert that finds every spare key slot waiting for a grace period is
 * refused before anything is evicted (counted as refused_grace); aging counts every
 * slot it visits, live or free, as work; flush removals count as deletes.
 * Table names are at most FC_TABLE_NAME_MAX (27) characters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_prefetch.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "table_priv.h"

RTE_LOG_REGISTER(fc_table_logtype, gufc.flowcache, NOTICE);

static_assert(sizeof(struct fc_action) == 32, "action must stay 32 bytes");
static_assert(offsetof(struct fc_action, ext) == 12 && offsetof(struct fc_action, adj) == 22 &&
		      offsetof(struct fc_action, pkt_class) == 24 &&
		      offsetof(struct fc_action, mod) == 29,
	"action layout (README and flowcache_table.h)");
static_assert(sizeof(struct fc_entry) == RTE_CACHE_LINE_MIN_SIZE, "entry must be one cache line");
static_assert(offsetof(struct fc_entry, seq) == 0, "seq leads the entry");
static_assert(offsetof(struct fc_entry, act) == 8, "action in the first half-line");
static_assert(offsetof(struct fc_entry, packets_lo) == 40 &&
		      offsetof(struct fc_entry, bytes_lo) == 44,
	"the counters' low words after the action");
static_assert(offsetof(struct fc_entry, tail) == 48 && sizeof(struct fc_key_v4) == 16 &&
		      sizeof(struct fc_entry_cold) == 16,
	"the IPv4 key, or an IPv6 entry's cold words, end the line");
static_assert(sizeof(struct fc_entry_cold) == 1u << FC_COLD_SHIFT_V4 &&
		      sizeof(struct fc_entry) == 1u << FC_COLD_SHIFT_V6,
	"cold words are a shift apart");
/* Every 32-bit timeout encodes without clamping (fc_timeout_encode()). */
static_assert(
	UINT32_MAX / 1000u + 1u < FC_TIMEOUT_COARSE, "32-bit timeouts fit 23 bits of seconds");

/* ------------------------------------------------------------------------ */
/* Hashing (see the top: NH, then a keyed finalizer)                         */
/* ------------------------------------------------------------------------ */

/* splitmix64: the secret from a given seed (tests), one 64-bit draw per step. */
static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
hash_keys_init(struct fc_table *t, uint32_t seed)
{
	uint64_t st = seed;

	for (unsigned int i = 0; i < FC_TABLE_HASH_WORDS; i += 2) {
		uint64_t r = seed != 0 ? splitmix64(&st) : rte_rand();

		t->hk[i] = (uint32_t)r;
		t->hk[i + 1] = (uint32_t)(r >> 32);
	}
	t->hk_fin = seed != 0 ? splitmix64(&st) : rte_rand();
}

/* NH over @p words 32-bit words (an even count), then the keyed finalizer. */
static __rte_always_inline uint32_t
nh_hash(const uint32_t *hk, uint64_t fin, const void *key, unsigned int words)
{
	const uint8_t *p = key;
	uint64_t acc = 0;

	for (unsigned int w = 0; w < words; w += 2) {
		uint32_t a, b;

		memcpy(&a, p + 4 * w, sizeof(a));
		memcpy(&b, p + 4 * w + 4, sizeof(b));
		acc += (uint64_t)(uint32_t)(a + hk[w]) * (uint32_t)(b + hk[w + 1]);
	}
	acc += fin;
	acc ^= acc >> 33;
	acc *= UINT64_C(0xff51afd7ed558ccd);
	acc ^= acc >> 33;
	acc *= UINT64_C(0xc4ceb9fe1a85ec53);
	acc ^= acc >> 33;
	return (uint32_t)acc;
}

/** Hash of one key with this table's secret. Context: any lcore. */
uint32_t
fc_table_hash(const struct fc_table *t, const void *key)
{
	return nh_hash(t->hk, t->hk_fin, key, t->key_size / 4);
}

void
fc_table_hash_bulk(const struct fc_table *t, const void *const keys[], uint32_t sigs[],
	unsigned int n)
{
	unsigned int i;

	if (t->key_size == sizeof(struct fc_key_v4)) {
		for (i = 0; i < n; i++)
			sigs[i] = nh_hash(t->hk, t->hk_fin, keys[i], sizeof(struct fc_key_v4) / 4);
	} else {
		for (i = 0; i < n; i++)
			sigs[i] = nh_hash(t->hk, t->hk_fin, keys[i], sizeof(struct fc_key_v6) / 4);
	}
}

/*
 * Key slots for @p capacity live entries: the headroom for slots waiting
 * out a grace period (the buckets are sized for the live keys alone,
 * bkt_count_for()).
 */
static uint32_t
slots_for(uint32_t capacity)
{
	return capacity + RTE_MAX(capacity / FC_TABLE_HEADROOM_DIV, FC_TABLE_HEADROOM_MIN);
}

static bool
params_valid(const struct fc_table_params *p)
{
	size_t len;

	if (p == NULL || p->name == NULL)
		return false;
	len = strnlen(p->name, FC_TABLE_NAME_MAX + 1);
	if (len == 0 || len > FC_TABLE_NAME_MAX)
		return false;
	if (p->family != FC_AF_INET4 && p->family != FC_AF_INET6)
		return false;
	if (p->capacity == 0 || p->capacity > FC_TABLE_CAPACITY_MAX)
		return false;
	if (p->max_readers == 0 || p->max_readers > RTE_MAX_LCORE)
		return false;
	if (p->full_policy != FC_FULL_EVICT_IDLE && p->full_policy != FC_FULL_REFUSE)
		return false;
	return true;
}

/**
 * Create a flow table (see flowcache.h).
 *
 * Validation: name 1..FC_TABLE_NAME_MAX characters, family FC_AF_INET4 or
 * FC_AF_INET6, capacity 1..FC_TABLE_CAPACITY_MAX, max_readers
 * 1..RTE_MAX_LCORE, a known full policy; anything else is EINVAL.
 * @param p  parameters
 * @return the table, or NULL with rte_errno EINVAL, ENOMEM or EEXIST.
 * Context: main lcore.
 */
struct fc_table *
fc_table_create(const struct fc_table_params *p)
{
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct fc_table *t;
	uint32_t nb;
	size_t sz;
	int err;

	if (!params_valid(p)) {
		rte_errno = EINVAL;
		return NULL;
	}

	snprintf(mz_name, sizeof(mz_name), FC_TABLE_MZ_PREFIX "%s", p->name);
	mz = rte_memzone_reserve(mz_name, sizeof(*t), p->socket_id, 0);
	if (mz == NULL) {
		err = rte_errno == EEXIST ? EEXIST : ENOMEM;
		FC_TABLE_LOG(DEBUG, "table %s: memzone: %s", p->name, rte_strerror(rte_errno));
		rte_errno = err;
		return NULL;
	}
	t = mz->addr;
	memset(t, 0, sizeof(*t));
	t->mz = mz;
	snprintf(t->name, sizeof(t->name), "%s", p->name);

	t->family = p->family;
	t->key_size =
		p->family == FC_AF_INET4 ? sizeof(struct fc_key_v4) : sizeof(struct fc_key_v6);
	t->capacity = p->capacity;
	t->n_slots = slots_for(p->capacity);
	t->max_readers = p->max_readers;
	t->full_policy = p->full_policy;
	t->evict_scan = p->evict_scan != 0 ? p->evict_scan : FC_TABLE_EVICT_SCAN_DEFAULT;
	t->last_insert = FC_INDEX_NONE;
	t->early_head = FC_INDEX_NONE;
	t->early_tail = FC_INDEX_NONE;
	t->remove_cb = p->remove_cb;
	t->remove_arg = p->remove_arg;
	t->seed = p->hash_seed;
	hash_keys_init(t, p->hash_seed);

	err = ENOMEM;
	t->rstats = rte_zmalloc_socket("fc_table_rstats", sizeof(*t->rstats) * p->max_readers,
		RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t->rstats == NULL)
		goto fail;

	sz = rte_rcu_qsbr_get_memsize(p->max_readers);
	t->qsv = rte_zmalloc_socket("fc_table_qsbr", sz, RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t->qsv == NULL)
		goto fail;
	if (rte_rcu_qsbr_init(t->qsv, p->max_readers) != 0) {
		err = rte_errno;
		goto fail;
	}

	t->entries = rte_zmalloc_socket("fc_table_entries", sizeof(struct fc_entry) * t->n_slots,
		RTE_CACHE_LINE_SIZE, p->socket_id);
	t->created = rte_zmalloc_socket("fc_table_created", sizeof(uint32_t) * t->n_slots,
		RTE_CACHE_LINE_SIZE, p->socket_id);
	t->early = rte_malloc_socket("fc_table_early", sizeof(*t->early) * t->n_slots,
		RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t->entries == NULL || t->created == NULL || t->early == NULL)
		goto fail;

	nb = bkt_count_for(p->capacity);
	t->n_bkt = nb;
	t->bkt = rte_zmalloc_socket("fc_table_buckets", sizeof(struct fc_bucket) * (size_t)nb,
		RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t->bkt == NULL)
		goto fail;
	if (p->family == FC_AF_INET4) {
		/* The key in its entry's line; the cold words an array of their own. */
		t->cold_arr = rte_zmalloc_socket("fc_table_cold",
			sizeof(struct fc_entry_cold) * (size_t)t->n_slots, RTE_CACHE_LINE_SIZE,
			p->socket_id);
		if (t->cold_arr == NULL)
			goto fail;
		t->keys = t->entries[0].tail.key;
		t->cold = (uint8_t *)t->cold_arr;
		t->cold_shift = FC_COLD_SHIFT_V4;
	} else {
		/* The key in a line of its own; the cold words the entry line's tail. */
		t->key_arr = rte_zmalloc_socket("fc_table_keys",
			(size_t)FC_KEY_STRIDE(t->key_size) * t->n_slots, RTE_CACHE_LINE_SIZE,
			p->socket_id);
		if (t->key_arr == NULL)
			goto fail;
		t->keys = t->key_arr;
		t->cold = (uint8_t *)&t->entries[0].tail.cold;
		t->cold_shift = FC_COLD_SHIFT_V6;
	}
	/* Popped from the top: slot 0 first. */
	for (uint32_t i = 0; i < t->n_slots; i++)
		t->created[i] = i + 1 < t->n_slots ? i + 1 : FC_INDEX_NONE;
	t->free_head = 0;
	t->n_free = t->n_slots;
	return t;

fail:
	fc_table_free(t);
	rte_errno = err;
	return NULL;
}

/**
 * Free a table and everything it owns; NULL is accepted. remove_cb is not
 * called: flush first if owners must release what entries refer to.
 * Context: main lcore, no reader registered any more.
 */
void
fc_table_free(struct fc_table *t)
{
	if (t == NULL)
		return;
	rte_free(t->bkt);
	rte_free(t->key_arr);
	rte_free(t->cold_arr);
	rte_free(t->entries);
	rte_free(t->created);
	rte_free(t->early);
	rte_free(t->qsv);
	rte_free(t->rstats);
	rte_memzone_free(t->mz);
}

/** Key size in bytes (16 or 48); 0 for NULL. Context: any. */
uint32_t
fc_table_key_size(const struct fc_table *t)
{
	return t != NULL ? t->key_size : 0;
}

/**
 * Register the calling thread as reader @p reader_id and put it online.
 * @return 0, or -EINVAL (NULL table, id out of range).
 * Context: the reader thread itself.
 */
int
fc_table_reader_register(struct fc_table *t, unsigned int reader_id)
{
	if (t == NULL || reader_id >= t->max_readers)
		return -EINVAL;
	if (rte_rcu_qsbr_thread_register(t->qsv, reader_id) != 0)
		return -EINVAL;
	rte_rcu_qsbr_thread_online(t->qsv, reader_id);
	return 0;
}

/**
 * Take reader @p reader_id offline and unregister it; its pending grace
 * periods no longer wait for it.
 * @return 0, or -EINVAL (NULL table, id out of range).
 * Context: the reader thread itself, or control once that thread stopped.
 */
int
fc_table_reader_unregister(struct fc_table *t, unsigned int reader_id)
{
	if (t == NULL || reader_id >= t->max_readers)
		return -EINVAL;
	rte_rcu_qsbr_thread_offline(t->qsv, reader_id);
	if (rte_rcu_qsbr_thread_unregister(t->qsv, reader_id) != 0)
		return -EINVAL;
	return 0;
}

/** Report a quiescent state for reader @p reader_id. Context: that reader. */
void
fc_table_quiescent(struct fc_table *t, unsigned int reader_id)
{
	RTE_ASSERT(reader_id < t->max_readers);
	rte_rcu_qsbr_quiescent(t->qsv, reader_id);
}

/*
 * @p sig must be fc_table_hash(t, key): the hash stores keys in the buckets
 * their signature names.
 */
int
fc_table_lookup(const struct fc_table *t, const void *key, uint32_t sig)
{
	int32_t pos;

	if (t == NULL || key == NULL)
		return -ENOENT;
	RTE_ASSERT(sig == fc_table_hash(t, key));
	pos = bkt_find(t, key, sig);
	if (pos < 0 || !slot_live(t, (uint32_t)pos))
		return -ENOENT;
	return pos;
}

/*
 * Evict one entry: the table is a cache, the slow path can rebuild any
 * flow, so every entry is a candidate whatever its timeout. Entries of
 * connections not established yet (FC_ACT_F_EARLY: a handshake, a flow
 * without reply) go first, so a flood of new flows, spoofed SYNs say,
 * evicts its own kind before any established flow. They are listed in
 * insertion order (fc_table::early_head): the victim is the one idle the
 * longest among the first FC_TABLE_EVICT_EARLY_LOOK of the list, found
 * at once however the table's slots are laid out (a scan over slots had
 * to cross the established entries to reach them, thousands of entries
 * per eviction in a large table). One of them hit in the later half of
 * its life goes to the list's end instead (a second chance, up to
 * FC_TABLE_EVICT_EARLY_STEPS looked at): otherwise the oldest inserted
 * entries, a storm's still busy flows among them, would sit at the head
 * and go one per eviction while the storm's one-packet flows behind them
 * stayed.
 *
 * With none to take, the one idle the longest among the next evict_scan
 * live entries from a rotating cursor goes. One scan chooses the
 * FC_TABLE_EVICT_BATCH best: a table full under a storm of new flows
 * evicts once per insert, and scanning a thousand entries each time was
 * most of a new flow's cost. The next evictions of established entries
 * take the scan's next victims, best first, each only while it is as the
 * scan saw it (live, not hit since, the same entry, still established).
 *
 * The latest insert's entry is never the victim: the next insert may be
 * the other direction of its connection (the rules engine inserts a
 * connection's two entries one after the other), which must not push out
 * the first.
 */
/*
 * When live entry @p idx's connection last had a packet, either direction:
 * the owner deletes an entry's peer with it (table_remove_cb), so a
 * one-way flow's reply entry, never hit, must not make the busy direction
 * look idle to an eviction (evicting the reply entry removes both).
 */
static uint32_t
conn_last_seen(const struct fc_table *t, uint32_t idx)
{
	const struct fc_entry *e = &t->entries[idx];
	uint32_t ls = __atomic_load_n(&e->last_seen, __ATOMIC_RELAXED);
	uint32_t p = __atomic_load_n(&fc_table_cold(t, idx)->peer, __ATOMIC_RELAXED);

	if (p < t->n_slots && slot_live(t, p)) {
		uint32_t pls = __atomic_load_n(&t->entries[p].last_seen, __ATOMIC_RELAXED);

		if ((int32_t)(pls - ls) > 0)
			ls = pls;
	}
	return ls;
}

static uint32_t
early_victim(struct fc_table *t, uint32_t now)
{
	uint32_t best = FC_INDEX_NONE, best_idle = 0, fb = FC_INDEX_NONE, fb_idle = 0;
	uint32_t i = t->early_head, k = 0, steps = 0;

	while (i != FC_INDEX_NONE && k < FC_TABLE_EVICT_EARLY_LOOK &&
		steps++ < FC_TABLE_EVICT_EARLY_STEPS) {
		uint32_t next = t->early[i].next, idle, age;

		if (i == t->last_insert) {
			i = next;
			continue;
		}
		idle = idle_time(now, conn_last_seen(t, i));
		if (fb == FC_INDEX_NONE || idle > fb_idle) {
			fb = i;
			fb_idle = idle;
		}
		/*
		 * Hit in the later half of its life: it still gets packets (a
		 * flow whose other direction never answers, say). A second
		 * chance: it goes to the list's end, so the flood's one-packet
		 * entries inserted after it go first, rather than the oldest
		 * inserted, busiest flows at the head going one per eviction.
		 */
		age = idle_time(now, t->created[i]);
		if (idle < age / 2 && i != t->early_tail) {
			early_unlink(t, i);
			early_link(t, i, FC_INDEX_NONE);
			i = next;
			continue;
		}
		if (best == FC_INDEX_NONE || idle > best_idle) {
			best = i;
			best_idle = idle;
		}
		k++;
		i = next;
	}
	/* Every one examined still busy: the idlest of them. */
	return best != FC_INDEX_NONE ? best : fb;
}

/*
 * Remove victim @p idx and count the eviction by kind: a not-established
 * entry, or an established one while not-established entries other than
 * the latest insert's remained (the order broken: a flood of new flows
 * pushing out established ones).
 */
static void
evict_count(struct fc_table *t, uint32_t idx)
{
	bool early = (t->entries[idx].act.flags & FC_ACT_F_EARLY) != 0;
	uint32_t others = t->n_early;

	if (t->last_insert < t->n_slots && slot_live(t, t->last_insert) &&
		(t->entries[t->last_insert].act.flags & FC_ACT_F_EARLY))
		others--;
	if (table_remove(t, idx, true) != 0)
		return;
	wr_add64(&t->evictions, 1);
	if (early)
		wr_add64(&t->evict_early, 1);
	else if (others != 0)
		wr_add64(&t->evict_est_early, 1);
}

static int
table_evict(struct fc_table *t, uint32_t now)
{
	uint32_t cur = t->evict_cursor, seen = 0, visited, n = 0, idx = FC_INDEX_NONE;
	struct fc_table_victim *v = t->victims;

	if (t->n_early != 0)
		idx = early_victim(t, now);
	while (idx == FC_INDEX_NONE && t->victim_next < t->n_victims) {
		const struct fc_table_victim *q = &t->victims[t->victim_next++];
		const struct fc_entry *e = &t->entries[q->idx];

		if (e->seq != 0 && q->idx != t->last_insert &&
			conn_last_seen(t, q->idx) == q->last_seen &&
			t->created[q->idx] == q->created && !(e->act.flags & FC_ACT_F_EARLY))
			idx = q->idx;
	}
	if (idx != FC_INDEX_NONE) {
		evict_count(t, idx);
		return 0;
	}
	for (visited = 0; visited < t->n_slots && seen < t->evict_scan; visited++) {
		const struct fc_entry *e = &t->entries[cur];
		struct fc_table_victim c;
		uint32_t k;

		c.idx = cur;
		if (++cur == t->n_slots)
			cur = 0;
		/* An early entry here is the latest insert's: the list had no other. */
		if (e->seq == 0 || c.idx == t->last_insert || (e->act.flags & FC_ACT_F_EARLY))
			continue;
		seen++;
		c.last_seen = conn_last_seen(t, c.idx);
		c.idle = idle_time(now, c.last_seen);
		if (n == FC_TABLE_EVICT_BATCH && c.idle <= v[n - 1].idle)
			continue;
		/* Into the sorted list (idlest first), the last one out if it is full. */
		k = n < FC_TABLE_EVICT_BATCH ? n++ : n - 1;
		while (k > 0 && c.idle > v[k - 1].idle) {
			v[k] = v[k - 1];
			k--;
		}
		c.created = t->created[c.idx];
		v[k] = c;
	}
	t->evict_cursor = cur;
	t->n_victims = n;
	t->victim_next = 0;
	if (n == 0)
		return -ENOENT;
	t->victim_next = 1;
	evict_count(t, v[0].idx);
	return 0;
}

/*
 * Is a key slot free for one more key (reclaiming those whose grace period
 * is over first)? False while every spare one still waits for readers.
 */
static bool
spare_slot(struct fc_table *t)
{
	if (t->n_deferred >= FC_TABLE_DQ_TRIGGER ||
		(t->n_deferred != 0 && t->count + t->n_deferred >= t->n_slots))
		dq_reclaim(t, FC_TABLE_DQ_RECLAIM_MAX);
	return t->count + t->n_deferred < t->n_slots;
}

/*
 * A free key slot for @p key (hash @p sig), the key copied in and put in a
 * bucket: the slot, or -ENOSPC (no free slot, or no bucket room found;
 * the slot goes back). Context: writer.
 */
static int32_t
slot_take(struct fc_table *t, const void *key, uint32_t sig)
{
	uint32_t pos;

	if (t->n_free == 0)
		return -ENOSPC;
	pos = t->free_head;
	memcpy(t->keys + (size_t)pos * FC_KEY_STRIDE(t->key_size), key, t->key_size);
	if (bkt_add(t, sig, pos) != 0)
		return -ENOSPC; /* still on top of the free list */
	t->free_head = t->created[pos];
	t->n_free--;
	return (int32_t)pos;
}

int
fc_table_insert(struct fc_table *t, const void *key, uint32_t sig, const struct fc_action *act,
	uint32_t timeout, uint32_t now)
{
	struct fc_entry_cold *c;
	struct fc_entry *e;
	unsigned int tries;
	int32_t pos;

	if (t == NULL || key == NULL || act == NULL)
		return -EINVAL;
	RTE_ASSERT(sig == fc_table_hash(t, key));

	if (bkt_find(t, key, sig) >= 0)
		return -EEXIST;

	if (t->count >= t->capacity) {
		if (t->full_policy != FC_FULL_EVICT_IDLE)
			goto refuse;
		/*
		 * An eviction moves a slot from the live to the waiting ones:
		 * with none spare it cannot make room, so nothing is evicted.
		 */
		if (!spare_slot(t))
			goto refuse_grace;
		if (table_evict(t, now) != 0 || t->count >= t->capacity)
			goto refuse;
	}

	for (tries = 0;; tries++) {
		/* Every spare slot still waits for a grace period: refuse, never wait. */
		if (!spare_slot(t))
			goto refuse_grace;
		pos = slot_take(t, key, sig);
		if (pos >= 0)
			break;
		/* A cuckoo path failure (rare below 15/16 load): make room, bounded. */
		if (t->full_policy != FC_FULL_EVICT_IDLE || tries >= FC_TABLE_ADD_RETRIES ||
			t->count == 0 || table_evict(t, now) != 0)
			goto refuse;
	}
	RTE_ASSERT((uint32_t)pos < t->n_slots);

	e = &t->entries[pos];
	RTE_ASSERT(e->seq == 0);
	c = fc_table_cold(t, (uint32_t)pos);
	e->act = *act;
	e->last_seen = now;
	e->packets_lo = 0;
	e->bytes_lo = 0;
	c->packets_hi = 0;
	c->bytes_hi = 0;
	c->peer = FC_INDEX_NONE;
	c->timeout = fc_timeout_encode(timeout);
	t->created[pos] = now;
	if (act->flags & FC_ACT_F_EARLY)
		early_link(t, (uint32_t)pos, FC_INDEX_NONE);
	__atomic_store_n(&e->seq, 2u, __ATOMIC_RELEASE); /* no mark tag */

	wr_set32(&t->count, t->count + 1);
	wr_add64(&t->inserts, 1);
	t->last_insert = (uint32_t)pos;
	return pos;

refuse_grace:
	wr_add64(&t->refused_grace, 1);
refuse:
	wr_add64(&t->refused, 1);
	return -ENOSPC;
}

int
fc_table_update(struct fc_table *t, uint32_t idx, const struct fc_action *act, uint32_t timeout)
{
	struct fc_entry *e;
	uint32_t s;

	if (t == NULL || act == NULL || idx >= t->n_slots)
		return -ENOENT;
	e = &t->entries[idx];
	s = e->seq;
	if (s == 0)
		return -ENOENT;

	if ((act->flags ^ e->act.flags) & FC_ACT_F_EARLY) {
		if (act->flags & FC_ACT_F_EARLY)
			early_link(t, idx, FC_INDEX_NONE);
		else
			early_unlink(t, idx);
	}
	__atomic_store_n(&e->seq, s | 1u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->act = *act;
	/* The mark tag stays (this thread is its only writer too). */
	__atomic_store_n(&e->seq, seq_next_even(s), __ATOMIC_RELEASE);
	__atomic_store_n(&fc_table_cold(t, idx)->timeout, fc_timeout_encode(timeout),
		__ATOMIC_RELAXED);
	return 0;
}

int
fc_table_move(struct fc_table *t, uint32_t idx, const void *key, uint32_t sig)
{
	const struct fc_entry_cold *ec;
	const struct fc_entry *e;
	struct fc_entry_cold *nc;
	struct fc_entry *n;
	uint64_t packets, bytes;
	int32_t pos;

	if (t == NULL || key == NULL)
		return -EINVAL;
	if (idx >= t->n_slots || !slot_live(t, idx))
		return -ENOENT;
	RTE_ASSERT(sig == fc_table_hash(t, key));
	if (bkt_find(t, key, sig) >= 0)
		return -EEXIST;
	/* Both keys live for a moment: one spare slot, never an eviction. */
	if (t->n_deferred != 0 && t->count + t->n_deferred >= t->n_slots)
		dq_reclaim(t, FC_TABLE_DQ_RECLAIM_MAX);
	if (t->count + t->n_deferred >= t->n_slots)
		return -ENOSPC;
	pos = slot_take(t, key, sig);
	if (pos < 0)
		return -ENOSPC;
	RTE_ASSERT((uint32_t)pos < t->n_slots && (uint32_t)pos != idx);

	e = &t->entries[idx];
	n = &t->entries[pos];
	RTE_ASSERT(n->seq == 0);
	ec = fc_table_cold(t, idx);
	nc = fc_table_cold(t, (uint32_t)pos);
	n->act = e->act;
	nc->timeout = ec->timeout;
	nc->peer = ec->peer;
	t->created[pos] = t->created[idx];
	n->last_seen = __atomic_load_n(&e->last_seen, __ATOMIC_RELAXED);
	fc_table_counters(t, idx, &packets, &bytes);
	n->packets_lo = (uint32_t)packets;
	n->bytes_lo = (uint32_t)bytes;
	nc->packets_hi = (uint32_t)(packets >> 32) << 1;
	nc->bytes_hi = (uint32_t)(bytes >> 32) << 1;
	/* In the old one's place in the list; the removal below takes that one off. */
	if (n->act.flags & FC_ACT_F_EARLY)
		early_link(t, (uint32_t)pos, idx);
	__atomic_store_n(&n->seq, 2u, __ATOMIC_RELEASE); /* no mark: a mark names the old slot */
	wr_set32(&t->count, t->count + 1);
	table_remove(t, idx, false);
	return pos;
}

/*
 * Readers copy the action between two reads of seq; a lone aligned 32-bit
 * store in the middle leaves every other field as it was, so either copy of
 * gen is one the entry had.
 */
int
fc_table_set_gen(struct fc_table *t, uint32_t idx, uint32_t gen)
{
	struct fc_entry *e;

	if (t == NULL || idx >= t->n_slots)
		return -ENOENT;
	e = &t->entries[idx];
	if (e->seq == 0)
		return -ENOENT;
	__atomic_store_n(&e->act.gen, gen, __ATOMIC_RELAXED);
	return 0;
}

int
fc_table_delete(struct fc_table *t, uint32_t idx)
{
	if (t == NULL || idx >= t->n_slots)
		return -ENOENT;
	if (table_remove(t, idx, false) != 0)
		return -ENOENT;
	wr_add64(&t->deletes, 1);
	return 0;
}

/*
 * The high word first goes odd (a reader that sees it so, or sees it
 * change, reads again), then the wrapped low word is stored, then the
 * high word one more, even again: the release fence orders the odd store
 * before the low word's, the last store is a release, and the reader
 * loads high, low, an acquire fence, high (fc_entry_ctr_read()).
 */
void
fc_table_touch_carry(struct fc_table *t, uint32_t idx, unsigned int which, uint32_t lo)
{
	struct fc_entry *e = &t->entries[idx];
	struct fc_entry_cold *c = fc_table_cold(t, idx);
	uint32_t *lw = which == 0 ? &e->packets_lo : &e->bytes_lo;
	uint32_t *hw = which == 0 ? &c->packets_hi : &c->bytes_hi;
	uint32_t h = *hw & ~1u;

	__atomic_store_n(hw, h | 1u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(lw, lo, __ATOMIC_RELAXED);
	__atomic_store_n(hw, h + 2u, __ATOMIC_RELEASE);
}
