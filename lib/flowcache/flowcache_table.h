/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache — the flow table: a cuckoo hash of its own (one-cache-line
 * buckets of 16-bit tags and key slot indexes) keyed by the flow keys of
 * flowcache.h, with lock-free concurrent readers, RCU reclamation, and
 * preallocated arrays indexed by the key slot: one-cache-line entries
 * (an IPv4 key in its entry's line), IPv6 keys, and the entries' cold
 * words. Part of flowcache.h's manual, which includes this header at
 * its end: include flowcache.h.
 */
#ifndef GUFC_FLOWCACHE_TABLE_H
#define GUFC_FLOWCACHE_TABLE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_pause.h>

#include "flowcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Flow table                                                                */
/* ------------------------------------------------------------------------ */

/** No entry / no peer. */
#define FC_INDEX_NONE UINT32_MAX

/** Cached verdicts. */
#define FC_VERDICT_ACCEPT 0
#define FC_VERDICT_DROP 1
#define FC_VERDICT_SLOW 2 /**< every packet goes to the slow path */

/** Interest mask bits: which packets of a flow modules still need to see. */
#define FC_INTEREST_TCP_SYN 0x0001
#define FC_INTEREST_TCP_FIN 0x0002
#define FC_INTEREST_TCP_RST 0x0004
/** TCP segments without ACK (invalid ones but for SYN and RST). */
#define FC_INTEREST_TCP_NOACK 0x0008
/**
 * Not a packet selector: the fast path checks each TCP segment against the
 * connection's windows (the conntrack module's mod_ct_fast_check()) and
 * upcalls the ones the check cannot vouch for.
 */
#define FC_INTEREST_TCP_WIN 0x0010
/** TCP segments that carry payload (a connection helper reads them). */
#define FC_INTEREST_TCP_DATA 0x0020
/**
 * Not a packet selector: the fast path checks each UDP-Lite datagram's
 * coverage and checksum fields (fc_udplite_ok()) and upcalls the ones that
 * fail, which conntrack finds invalid as Linux does for every packet of a
 * connection, not only the ones it sees on the slow path.
 */
#define FC_INTEREST_UDPLITE 0x0040
/**
 * Not a packet selector: the fast path checks each SCTP packet's
 * verification tag and chunks (the conntrack module's
 * mod_ct_sctp_fast_check()) and upcalls the ones that carry another tag,
 * a chunk that may move the association's state, or a malformed chunk.
 */
#define FC_INTEREST_SCTP 0x0080
#define FC_INTEREST_ALL 0x8000

/** Action flags. */
#define FC_ACT_F_NAT 0x01   /**< nat_id names a rewrite */
#define FC_ACT_F_REPLY 0x02 /**< this entry is the reply direction of a connection */
/**
 * A flow not established yet (no reply seen: a TCP connection in SYN_SENT
 * or SYN_SENT2, another flow without a reply; set by the conntrack
 * module; a new flow's cached drop, set by the rules engine): a full
 * table evicts such entries before
 * established ones (FC_FULL_EVICT_IDLE), so a flood of new flows (spoofed
 * SYNs) cannot push established flows out.
 */
#define FC_ACT_F_EARLY 0x04
/* 0x08: free (a metered entry holds a packet program: FC_ACT_F_PKTACT). */
/** pkt_class - 1 names the rules engine's packet program: every hit runs it (log, rewrites). */
#define FC_ACT_F_PKTACT 0x10
/**
 * The verdict holds until the entry's counters reach the rules engine's
 * limits for its slot (connbytes): the packet that reaches them goes up.
 */
#define FC_ACT_F_COUNT 0x20
/**
 * The rules engine decided this entry for its connection's next ctstate,
 * ahead of the connection's record: a TCP connection's original entry made
 * at its SYN with the `established` walk's action, for the SYN/ACK the
 * fast path may take (the engine decides the packets that go up before
 * that reply on their own). Cleared at the engine's next store after the
 * reply. The fast path ignores it.
 */
#define FC_ACT_F_AHEAD 0x40

/**
 * The cached decision for a flow: everything the fast path needs to treat a
 * packet (32 bytes, in the entry's cache line). Readers get a consistent
 * copy from fc_table_lookup_bulk(). What only the slow path reads lives in
 * the entry's fields beside the action (struct fc_entry) or arrays of
 * their own, not in it.
 *
 * @c ext names a per-flow extension record for per-packet checks the fast
 * path makes: on a TCP connection's entries (fc_action::ct_state bit 7),
 * the conntrack module's record, whose windows the fast path checks
 * (FC_INTEREST_TCP_WIN); 0 elsewhere. A NIC mark is not in the action
 * (the top byte of struct fc_entry::seq: the offload policy's, beside it).
 * @c adj is the adjacency (next hop) whose Ethernet rewrite a router
 * applies (router mode: lib/modules/neigh's index, written by the route
 * module; 0 in bridge mode). @c pkt_class: class of the per-packet
 * predicates under which the cached verdict holds; with FC_ACT_F_PKTACT,
 * the rules engine's packet program plus 1. Inserts, updates and revalidation
 * carry all three.
 */
struct fc_action {
	uint32_t gen;       /**< rule-set generation it was validated under */
	uint32_t rule_id;   /**< matched filter rule (per-rule counters) */
	uint32_t nat_id;    /**< NAT rewrite slot, valid with FC_ACT_F_NAT */
	uint32_t ext;       /**< per-flow extension record index; 0 = none */
	uint16_t channel;   /**< net channel id */
	uint16_t out_port;  /**< output port */
	uint16_t interest;  /**< FC_INTEREST_* */
	uint16_t adj;       /**< router: the next hop's adjacency index; 0 = none */
	uint16_t pkt_class; /**< per-packet predicate class; 0 = none (reserved) */
	uint8_t verdict;    /**< FC_VERDICT_* */
	uint8_t flags;      /**< FC_ACT_F_* */
	uint8_t ct_state;   /**< conntrack state, owned by the conntrack module */
	uint8_t mod[3];     /**< small scratch, owned by lib/engine */
};

/**
 * What of a flow entry no plain hit reads (struct fc_entry::tail, or an
 * array of its own): the counters' high words, the other direction's
 * index and the idle timeout. Owned by the table, written as the fields
 * say; reclaimed with its entry.
 *
 * @c packets_hi and @c bytes_hi are the high 32 bits of the entry's
 * packet and byte counts (struct fc_entry::packets_lo, bytes_lo hold the
 * low ones), doubled: odd while the one RX lcore that counts the flow
 * carries into them (fc_table_touch(), once in 2^32 packets or bytes),
 * so a reader on another lcore combines the halves consistently
 * (fc_table_counters()). @c peer is the other direction's index
 * (fc_table_peer(): the owner links them; insert sets none,
 * fc_table_move() carries it). @c timeout is the idle timeout, encoded
 * (fc_timeout_encode()): the table fills it on insert, fc_table_update()
 * sets it, fc_table_move() carries it, aging and fc_table_timeout()
 * decode it. @c peer and @c timeout are written by the table's single
 * writer only.
 */
struct fc_entry_cold {
	uint32_t packets_hi; /**< 2 * packets >> 32; odd while a carry is written */
	uint32_t bytes_hi;   /**< 2 * bytes >> 32; odd while a carry is written */
	uint32_t peer;       /**< the other direction's index, or FC_INDEX_NONE */
	uint32_t timeout;    /**< encoded idle timeout (fc_timeout_encode()) */
};

/**
 * One flow entry, one cache line: what a hit reads and writes, and, in an
 * IPv4 table, the flow's key, so that a hit reads one line for key and
 * entry (an IPv6 table's 48-byte key has a line of its own, and the
 * line's last 16 bytes hold the entry's cold words instead). Owned by the
 * table; written by the single writer (rules lcore) under a sequence
 * count; @c packets_lo, @c bytes_lo and @c last_seen are written by the
 * RX lcore that hits it (plain stores: a flow is served by one RX lcore,
 * symmetric RSS), which also carries into the cold high words. Reclaimed
 * by RCU: a deleted entry's slot is reused only after every reader has
 * reported quiescence.
 *
 * @c seq packs two things into one word, both written only by the
 * table's single writer (the rules lcore, which also runs the offload
 * policy), each by a read-modify-write of the whole word: its low 24 bits
 * (FC_ENTRY_SEQ_MASK) are the sequence count (even: stable, odd: being
 * written; it wraps within the 24 bits and never to 0), its top byte
 * (FC_ENTRY_TAG_SHIFT) the tag of the NIC mark that names this slot while
 * its flow is offloaded, 0 when none (fc_table_mark_tag(); the rest of a
 * mark, slot and family, is which entry of which table it names):
 * compared by RX lcores (one acquire load) so that a marked packet reads
 * this one line and no other. The whole word is 0 while the slot is free:
 * a tag is set on live slots only and goes with the entry (never carried
 * by a move: a mark names a slot). Readers compare the count's bits only,
 * so a tag published meanwhile does not turn a hit into a miss.
 *
 * The counters are 64-bit values whose low halves live here and whose
 * high halves are cold (struct fc_entry_cold): read them with
 * fc_table_counters(). The insertion time lives in an array of its own
 * (fc_table_created()).
 */
struct fc_entry {
	uint32_t seq;          /**< mark tag << 24 | sequence count; 0: free */
	uint32_t last_seen;    /**< coarse time of the last hit */
	struct fc_action act;  /**< the cached decision */
	uint32_t packets_lo;   /**< packets that hit this entry, the low 32 bits */
	uint32_t bytes_lo;     /**< bytes that hit this entry, the low 32 bits */
	union {
		uint8_t key[16];            /**< IPv4 table: the flow's key */
		struct fc_entry_cold cold;  /**< IPv6 table: the cold words */
	} tail;
} __rte_cache_aligned;

/** struct fc_entry::seq: the sequence count's bits. */
#define FC_ENTRY_SEQ_MASK 0x00ffffffu
/** struct fc_entry::seq: the mark tag's place (the top byte). */
#define FC_ENTRY_TAG_SHIFT 24
/** struct fc_entry_cold::timeout: the encoded idle timeout's bits (fc_timeout_encode()). */
#define FC_ENTRY_TO_MASK 0x00ffffffu
/** An encoded timeout with this bit counts whole thousands of units. */
#define FC_TIMEOUT_COARSE 0x00800000u
/** Timeouts below this are kept exactly (2^23 units: in ms, ~2.3 h). */
#define FC_TIMEOUT_EXACT_MAX (FC_TIMEOUT_COARSE - 1u)

/**
 * Encode idle timeout @p to (the caller's units, ms for the engine; 0:
 * never) into 24 bits: below 2^23 exactly; from there on in whole thousands
 * of units (seconds), a value that is not a whole number of thousands
 * rounding up to the next one. Every 32-bit value fits (UINT32_MAX / 1000
 * + 1 < 2^23): nothing is clamped here.
 * Context: any.
 */
static inline uint32_t
fc_timeout_encode(uint32_t to)
{
	if (to <= FC_TIMEOUT_EXACT_MAX)
		return to;
	return FC_TIMEOUT_COARSE | (to / 1000u + (to % 1000u != 0));
}

/**
 * Decode fc_timeout_encode()'s 24 bits @p code back to units (the top byte
 * of @p code is ignored). Whole thousands above UINT32_MAX (only UINT32_MAX
 * itself rounds up there) give UINT32_MAX, so encode-decode is exact for
 * every value below 2^23, every whole thousand and UINT32_MAX.
 * Context: any.
 */
static inline uint32_t
fc_timeout_decode(uint32_t code)
{
	uint64_t v;

	if (!(code & FC_TIMEOUT_COARSE))
		return code & FC_ENTRY_TO_MASK;
	v = (uint64_t)(code & (FC_TIMEOUT_COARSE - 1u)) * 1000u;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/**
 * What fc_table_timeout() gives back for a timeout @p to stored by
 * fc_table_insert() or fc_table_update(): @p to itself below 2^23 or when a
 * whole number of thousands, else rounded up to the next thousand.
 * Context: any.
 */
static inline uint32_t
fc_timeout_stored(uint32_t to)
{
	return fc_timeout_decode(fc_timeout_encode(to));
}

/** What to do when an insert finds the table full. */
enum fc_full_policy {
	FC_FULL_EVICT_IDLE, /**< evict an FC_ACT_F_EARLY entry first (the idlest of
			         the oldest few inserted), else the oldest idle entry
			         among a bounded scan */
	FC_FULL_REFUSE,     /**< refuse the insert (-ENOSPC), counted */
};

struct fc_table;

/**
 * Called by the table for each entry it removes on its own (aging, eviction),
 * before the key is deleted, so owners can release what the entry refers to
 * (peer entry, NAT binding, hardware rule). Must not insert into the table.
 * @param key  the entry's key
 * @param idx  entry index
 * @param e    the entry
 * @param arg  fc_table_params::remove_arg
 */
typedef void (*fc_remove_cb)(struct fc_table *t, const void *key, uint32_t idx,
	const struct fc_entry *e, void *arg);

/** Table creation parameters. */
struct fc_table_params {
	const char *name;           /**< unique name */
	uint8_t family;             /**< FC_AF_INET4 (16-byte keys) or FC_AF_INET6 (48) */
	uint32_t capacity;          /**< most entries; exactly this many fit */
	uint32_t max_readers;       /**< most reader threads (RCU) */
	enum fc_full_policy full_policy;
	uint32_t evict_scan;        /**< established entries scanned for the oldest idle; 0 = 1024 */
	uint32_t hash_seed;         /**< the hash's secret (fc_table_hash()) is drawn from
				         rte_rand() when 0 (hash flooding), else derived
				         from this (reproducible tests) */
	int socket_id;              /**< NUMA socket or SOCKET_ID_ANY */
	fc_remove_cb remove_cb;     /**< optional */
	void *remove_arg;
};

/** Table counters, summed over readers. */
struct fc_table_stats {
	uint64_t lookups;   /**< keys looked up by readers */
	uint64_t hits;
	uint64_t misses;
	uint64_t inserts;
	uint64_t deletes;   /**< explicit deletes */
	uint64_t evictions; /**< removed to make room (EVICT_IDLE) */
	/** Of @c evictions: entries not established yet (FC_ACT_F_EARLY). */
	uint64_t evict_early;
	/**
	 * Of @c evictions: established entries evicted while the table held
	 * not-established ones other than the latest insert's (which is never
	 * the victim): out of order, 0 unless the eviction order is broken.
	 */
	uint64_t evict_est_early;
	uint64_t refused;   /**< inserts refused: full (REFUSE), or no free key slot */
	/**
	 * Of @c refused: every spare key slot still waited for a grace period
	 * (readers not reporting quiescence as fast as the writer removes),
	 * whatever the policy.
	 */
	uint64_t refused_grace;
	uint64_t aged;      /**< removed by idle aging */
	/**
	 * Cuckoo displacements: keys moved to their other bucket to make room
	 * for an insert (each bumps fc_table::bkt_chg, which makes a reader's
	 * missed lookup look again).
	 */
	uint64_t moves;
	uint32_t occupancy; /**< entries in use now */
	uint32_t capacity;
};

/**
 * Create a flow table: its buckets (lock-free concurrent readers), an RCU
 * QSBR variable for reclamation and preallocated key and entry arrays
 * indexed by the key slot.
 * @return the table, or NULL with rte_errno set (EINVAL, ENOMEM, EEXIST).
 * Context: main lcore.
 */
struct fc_table *fc_table_create(const struct fc_table_params *p);

/** Free a table; NULL is accepted. Context: main lcore, no readers left. */
void fc_table_free(struct fc_table *t);

/** Key size in bytes (16 or 48). Context: any. */
uint32_t fc_table_key_size(const struct fc_table *t);

/**
 * Register the calling thread as reader @p reader_id (0..max_readers-1) and
 * put it online for RCU. @return 0, -EINVAL.
 * Context: the reader thread itself.
 */
int fc_table_reader_register(struct fc_table *t, unsigned int reader_id);

/** Take reader @p reader_id offline and unregister it. @return 0, -EINVAL. */
int fc_table_reader_unregister(struct fc_table *t, unsigned int reader_id);

/**
 * Report a quiescent state: the reader holds no entry pointer or copy it
 * relies on. Call once per RX loop iteration.
 * Context: reader @p reader_id.
 */
void fc_table_quiescent(struct fc_table *t, unsigned int reader_id);

/**
 * Hash of one key with this table's secret: a keyed, non-linear hash (NH
 * over the key's 32-bit words, then a keyed finalizer), so which keys
 * share a bucket depends on the secret and a sender cannot craft colliding
 * keys without it (a CRC's collisions hold under every seed).
 * @param t    the table (its key size and secret)
 * @param key  a normalized key of the table's family
 * @return the 32-bit signature the table stores the key under.
 * Context: any lcore.
 */
uint32_t fc_table_hash(const struct fc_table *t, const void *key);

/**
 * fc_table_hash() of @p n keys, in one call (the RX path's form: the key
 * size is looked at once, the hash is inlined).
 * @param t     the table (its key size and seed)
 * @param keys  @p n normalized keys of the table's family
 * @param sigs  receives the @p n hashes
 * @param n     keys
 * Context: any lcore.
 */
void fc_table_hash_bulk(const struct fc_table *t, const void *const keys[], uint32_t sigs[],
	unsigned int n);

/* The slot accessors (inline; the fast path and control share them). */
#include "flowcache_slot.h"

/**
 * Fetch the first bucket of each of @p n hashes into the cache: the first
 * line fc_table_lookup_bulk() reads, fetched ahead of it (a burst kept for
 * the next poll: its lookup then finds the lines there). A hint only: no
 * state, nothing read.
 * @param t     the table
 * @param sigs  fc_table_hash() values
 * @param n     count
 * Context: any lcore.
 */
void fc_table_prefetch_buckets(const struct fc_table *t, const uint32_t sigs[], unsigned int n);

/**
 * Look up a burst of keys with precomputed hashes; for each hit copy a
 * consistent snapshot of the entry's action (never torn: entries being
 * rewritten read as misses) and give its index.
 * @param keys      key pointers (16- or 48-byte normalized keys)
 * @param sigs      their fc_table_hash() values
 * @param n         count, at most 64
 * @param hit_mask  bit i set if keys[i] hit
 * @param acts      receives actions of hits
 * @param idx       receives entry indexes of hits
 * @return number of hits.
 * Context: registered reader, lock-free.
 */
unsigned int fc_table_lookup_bulk(struct fc_table *t, unsigned int reader_id,
	const void *const keys[], const uint32_t sigs[], unsigned int n, uint64_t *hit_mask,
	struct fc_action acts[], uint32_t idx[]);

/**
 * fc_table_touch()'s carry: store @p lo as the new low word @p which (0:
 * packets, 1: bytes) of slot @p idx, which wrapped, and add one to its
 * high word, so that readers on other lcores never combine a wrapped
 * low word with the old high one (struct fc_entry_cold).
 * Context: the reader that owns the flow (fc_table_touch() only).
 */
void fc_table_touch_carry(struct fc_table *t, uint32_t idx, unsigned int which, uint32_t lo);

/**
 * Account one hit on entry @p idx (an index the lookup gave), whose slot
 * @p e the caller has at hand (the marked path: fc_table_slots()): packets,
 * bytes, last_seen, in the entry's line (a 32-bit counter wrapping
 * carries into the cold words: fc_table_touch_carry()). Plain relaxed
 * stores: one RX lcore serves a flow; last_seen is stored only when the
 * coarse clock moved.
 * Context: the reader that owns the flow.
 */
static inline void
fc_table_touch_slot(struct fc_table *t, struct fc_entry *e, uint32_t idx, uint32_t bytes,
	uint32_t now)
{
	uint32_t p = e->packets_lo + 1u;
	uint32_t b = e->bytes_lo + bytes;

	if (likely(p != 0))
		__atomic_store_n(&e->packets_lo, p, __ATOMIC_RELAXED);
	else
		fc_table_touch_carry(t, idx, 0, p);
	if (likely(b >= bytes))
		__atomic_store_n(&e->bytes_lo, b, __ATOMIC_RELAXED);
	else
		fc_table_touch_carry(t, idx, 1, b);
	if (__atomic_load_n(&e->last_seen, __ATOMIC_RELAXED) != now)
		__atomic_store_n(&e->last_seen, now, __ATOMIC_RELAXED);
}

/** fc_table_touch_slot() of the slot at index @p idx. */
static inline void
fc_table_touch(struct fc_table *t, uint32_t idx, uint32_t bytes, uint32_t now)
{
	fc_table_touch_slot(t, &((const struct fc_table_view *)(const void *)t)->entries[idx], idx,
		bytes, now);
}

/**
 * The last hit of entry @p idx (an index the lookup gave): the time to
 * hand fc_table_touch() for a packet that is counted but renews no idle
 * time (a TCP segment conntrack accepts and ignores, as Linux refreshes no
 * timer for it).
 * Context: the reader that owns the flow.
 */
static inline uint32_t
fc_table_last_seen(const struct fc_table *t, uint32_t idx)
{
	return __atomic_load_n(
		&((const struct fc_table_view *)(const void *)t)->entries[idx].last_seen,
		__ATOMIC_RELAXED);
}

/**
 * Look up one key (writer side, no RCU registration needed).
 * @return entry index, or -ENOENT.
 * Context: writer (rules lcore) or control with the writer stopped.
 */
int fc_table_lookup(const struct fc_table *t, const void *key, uint32_t sig);

/**
 * Look up @p n keys at once (writer side, no RCU registration needed):
 * cheaper than @p n fc_table_lookup() calls.
 * @param t     the table
 * @param keys  @p n normalized keys
 * @param sigs  their fc_table_hash() values
 * @param n     count, at most 64
 * @param idx   receives each key's entry index, or -ENOENT
 * @return number of keys found.
 * Context: writer (rules lcore) or control with the writer stopped.
 */
unsigned int fc_table_find_bulk(const struct fc_table *t, const void *const keys[],
	const uint32_t sigs[], unsigned int n, int32_t idx[]);

/**
 * Insert a flow. When full: FC_FULL_EVICT_IDLE evicts the oldest idle entry
 * (calling remove_cb) and inserts; FC_FULL_REFUSE returns -ENOSPC. Either
 * policy returns -ENOSPC, evicting nothing, while every spare key slot waits
 * for a grace period (fc_table_stats::refused_grace). The entry gets @p timeout (as
 * fc_timeout_stored() keeps it), no peer, no mark, @p now as its creation time
 * (fc_table_created()).
 * @param key      normalized key
 * @param sig      fc_table_hash(t, key)
 * @param act      the decision to cache
 * @param timeout  idle timeout (caller's time units; 0 = never ages)
 * @param now      current coarse time
 * @return entry index (>= 0), -EEXIST (already present), -ENOSPC (full).
 * Context: writer (rules lcore) only.
 */
int fc_table_insert(struct fc_table *t, const void *key, uint32_t sig,
	const struct fc_action *act, uint32_t timeout, uint32_t now);

/**
 * Replace the action of entry @p idx (readers see old or new, never a mix)
 * and its timeout (fc_table_timeout()); its mark stays. @return 0, -ENOENT.
 * Context: writer only.
 */
int fc_table_update(struct fc_table *t, uint32_t idx, const struct fc_action *act,
	uint32_t timeout);

/**
 * Move live entry @p idx to another key (the same flow under a new key,
 * e.g. another input port): an entry with the same action, last_seen,
 * counters, timeout, peer and creation time (no mark: a mark names a slot)
 * is published under @p key, then @p idx is deleted (no
 * remove_cb; its slot waits for a grace period). Readers find the old key,
 * the new one or both in between, never a torn entry; a hit counted on the
 * old key meanwhile may be lost. Nothing is evicted: without a free key
 * slot the move fails and nothing changes. Not counted as an insert or a
 * delete.
 * @param t    the table
 * @param idx  a live entry
 * @param key  the new key (normalized)
 * @param sig  fc_table_hash(t, key)
 * @return the new entry index (>= 0), -EINVAL (NULL), -ENOENT (@p idx not
 *   live), -EEXIST (@p key is present), -ENOSPC (no free key slot).
 * Context: writer only.
 */
int fc_table_move(struct fc_table *t, uint32_t idx, const void *key, uint32_t sig);

/**
 * Set the generation (fc_action::gen) of entry @p idx alone: one 32-bit
 * store, no sequence bump, so readers copy the old or the new generation
 * with the rest of the action unchanged. For revalidation that finds an
 * entry unaffected by the changes since its generation.
 * @return 0, -ENOENT.
 * Context: writer only.
 */
int fc_table_set_gen(struct fc_table *t, uint32_t idx, uint32_t gen);

/**
 * Delete entry @p idx (no remove_cb). Its slot is reused only after a grace
 * period. @return 0, -ENOENT.
 * Context: writer only.
 */
int fc_table_delete(struct fc_table *t, uint32_t idx);

/**
 * The entry at @p idx, or NULL if free. The writer may read it freely;
 * other threads only for display (fields may change underneath).
 */
const struct fc_entry *fc_table_entry(const struct fc_table *t, uint32_t idx);

/** The key of entry @p idx, or NULL if free. Context: as fc_table_entry(). */
const void *fc_table_key(const struct fc_table *t, uint32_t idx);


/**
 * Walk the entries: start with *next = 0, call until it returns -ENOENT.
 * One call skips any number of free slots: a whole walk for control
 * (listings, counters); background work walks with fc_table_walk().
 * @param next  iterator state
 * @param key   receives the key
 * @param idx   receives the entry index
 * @return 0 on an entry, -ENOENT at the end.
 * Context: writer, or control with the writer stopped.
 */
int fc_table_iterate(const struct fc_table *t, uint32_t *next, const void **key, uint32_t *idx);

/**
 * Walk the entries in bounded steps: as fc_table_iterate(), but every slot
 * examined, free or live, costs one unit of *budget, so a call never does
 * more than *budget slots' work however empty the table (a 4M-slot table
 * holding a few flows is walked in as many steps as a full one).
 * @param t       the table
 * @param next    iterator state (start at 0; left where the walk stopped)
 * @param budget  slots the caller still may examine; decremented
 * @param key     receives the key (may be NULL)
 * @param idx     receives the entry index (may be NULL)
 * @return 0 on an entry, -EAGAIN when *budget ran out first (call again
 *   with a new budget), -ENOENT at the end of the table (*next is the slot
 *   count).
 * Context: writer, or control with the writer stopped.
 */
int fc_table_walk(const struct fc_table *t, uint32_t *next, uint32_t *budget, const void **key,
	uint32_t *idx);

/**
 * Age out idle entries: examine at most @p max_work entries from a rotating
 * cursor and remove those idle for longer than their timeout (calling
 * remove_cb). Bounded work per call, so the writer stays responsive.
 * @return number of entries removed.
 * Context: writer only.
 */
unsigned int fc_table_age(struct fc_table *t, uint32_t now, unsigned int max_work);

/** Remove every entry (calling remove_cb). @return entries removed. Context: writer. */
unsigned int fc_table_flush(struct fc_table *t);

/** Sum the counters. Context: any lcore (values may be slightly stale). */
void fc_table_stats_get(const struct fc_table *t, struct fc_table_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_FLOWCACHE_TABLE_H */
