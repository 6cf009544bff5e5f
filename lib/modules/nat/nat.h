/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat — network address translation (prefix mod_nat_; users:
 * doc/nat.md): SNAT, DNAT and MASQUERADE bindings and the per-packet
 * rewrite.
 *
 * What it is: a table of bindings. A binding is made on the rules lcore
 * for a connection's first packet when a nat rule applies. It holds the
 * original key, the translated forward key and the reply-direction key
 * (the reverse of the translated key), so that replies hit their own flow
 * entry with one lookup. Binding b owns two rewrite slots:
 * MOD_NAT_SLOT_FWD(b) for packets of the original direction and
 * MOD_NAT_SLOT_REPLY(b) for replies; each flow entry carries its slot in
 * fc_action::nat_id with FC_ACT_F_NAT. A slot is the rewrite precomputed
 * (new addresses and ports, RFC 1624 checksum deltas), so the fast path's
 * mod_nat_apply() is a handful of stores.
 *
 * Where it sits: the table (nat_binding.c: bindings and targets;
 * nat_index.c: the tuple hash indexes; nat_csum.c: checksum deltas, rewrite
 * slots, SCTP's CRC32c; nat_icmp.c: ICMP errors about translated
 * connections) is pure C, no EAL (the 'nat_pure' library, built for the
 * sanitizer runs too); it needs lib/flowcache and lib/rules (struct
 * rule_nat targets) only. The module (nat_module.c, the 'nat' library,
 * EAL) makes it two stages of lib/engine, nat_dst and nat_src, registered
 * by mod_nat_module_create(): see "The module" at the end. The fast path
 * rewrites with mod_nat_apply() on mod_nat_module_table().
 *
 * Uniqueness: no two bindings have the same reply tuple (proto, addresses,
 * ports; local bits and input port aside), and no binding's reply tuple
 * equals another's original tuple, so the flow table never sees two
 * connections under one key. A tuple is one connection's on every input
 * port, as Linux's conntrack tuple has no interface: the busy callback is
 * asked about the tuple, whatever the port of its entries. The keys of a
 * binding carry the original's input port; the engine gives the reply
 * entry's key the port the replies are expected on. Source ports (and ICMP echo identifiers) are kept when that tuple is
 * free and in range, otherwise allocated per remote endpoint: one external
 * port serves many connections to different remote endpoints.
 *
 * Ownership and threads: the table is created and freed on the main lcore.
 * Only the rules lcore (single writer) binds, unbinds and releases. The
 * rewrite slots are read by any number of RX lcores through
 * mod_nat_apply(); a slot is written only while no reader can reach it:
 * bind fills both slots before returning, and the caller publishes the slot
 * ids only through fc_table_insert() (release ordering). Freeing is two
 * steps: mod_nat_unbind() after both flow entries are deleted (the tuple is
 * free again at once: no new packet can reach the binding), then
 * mod_nat_release() once an RCU grace period has passed (no reader holds an
 * action snapshot naming the slots); only then can the slots be reused.
 */
#ifndef GUFC_NAT_H
#define GUFC_NAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>

#include "flowcache.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mod_nat;

/** Forward-direction rewrite slot of binding @p b. */
#define MOD_NAT_SLOT_FWD(b) ((uint32_t)(b) * 2u)
/** Reply-direction rewrite slot of binding @p b. */
#define MOD_NAT_SLOT_REPLY(b) ((uint32_t)(b) * 2u + 1u)
/** Binding that owns rewrite slot @p slot. */
#define MOD_NAT_SLOT_BINDING(slot) ((uint32_t)(slot) >> 1)
/** Most bindings a table may hold. */
#define MOD_NAT_BINDINGS_MAX (1u << 28)

/**
 * Optional callback: is @p addr (4 or 16 bytes, network order) one of this
 * host's addresses? Used to set the local bits of translated keys (e.g.
 * fc_locals_match()). Without it, keys keep the original's local bits.
 */
typedef bool (*mod_nat_local_fn)(void *arg, uint8_t family, const uint8_t *addr);

/**
 * Optional callback: is @p key (a candidate reply key, local bits set, the
 * original's input port) in use by a flow the NAT table does not know, on
 * any input port (e.g. rule_engine_flow_lookup_any())? The allocator then
 * tries another tuple.
 */
typedef bool (*mod_nat_busy_fn)(void *arg, const struct fc_key *key);

/** NAT table creation parameters. Zero means "default" where one is given. */
struct mod_nat_params {
	uint32_t max_bindings; /**< most bindings, active or retired: 1..MOD_NAT_BINDINGS_MAX */
	uint32_t max_targets;  /**< targets with usage counters: 0 = 64, at most 4096 */
	uint32_t max_probes;   /**< most candidate tuples one bind tries; 0 = 65536 */
	uint32_t seed;         /**< hash seed: address choice, port search start, index */
	mod_nat_local_fn is_local; /**< optional, see mod_nat_local_fn */
	mod_nat_busy_fn busy;      /**< optional, see mod_nat_busy_fn */
	void *cb_arg;              /**< first argument of both callbacks */
};

/** struct mod_nat_binding_result::flags */
#define MOD_NAT_F_DNAT 0x01       /**< destination translated */
#define MOD_NAT_F_SNAT 0x02       /**< source translated to an SNAT target */
#define MOD_NAT_F_MASQ 0x04       /**< source translated to the outgoing address */
#define MOD_NAT_F_REMAPPED 0x08   /**< source port/identifier changed to stay unique */
#define MOD_NAT_F_CLASH 0x10      /**< no NAT rule: made by mod_nat_bind_clash() */

/** A binding as made by mod_nat_bind(). Keys are normalized, network order. */
struct mod_nat_binding_result {
	uint32_t binding;    /**< binding id, for mod_nat_unbind() */
	uint32_t fwd_slot;   /**< nat_id of the original direction's entry */
	uint32_t reply_slot; /**< nat_id of the reply direction's entry */
	uint8_t flags;       /**< MOD_NAT_F_* */
	struct fc_key orig;  /**< the original forward key */
	struct fc_key fwd;   /**< the forward key as translated (what leaves; the
			          original's input port) */
	struct fc_key reply; /**< key of the replies as they arrive (reverse of @c fwd;
			          the original's input port, for the caller to replace) */
};

/** Counters of a NAT table. */
struct mod_nat_stats {
	uint64_t allocated;  /**< bindings made since creation */
	uint64_t exhausted;  /**< binds refused with -ENOSPC (drop "nat_exhausted") */
	uint64_t table_full; /**< binds refused with -ENOBUFS */
	uint64_t remapped;   /**< bindings whose source port/identifier was changed */
	uint32_t active;     /**< bindings holding a tuple */
	uint32_t retired;    /**< unbound, slots waiting for mod_nat_release() */
	uint32_t capacity;   /**< max_bindings */
	uint32_t targets;    /**< targets with counters (see mod_nat_target_stats_get()) */
};

/**
 * Usage of one target (a distinct address/port range and action). For
 * masquerade, @c nat holds the outgoing address used (and any port range).
 */
struct mod_nat_target_stats {
	uint8_t action;      /**< RULE_ACT_DNAT, RULE_ACT_SNAT or RULE_ACT_MASQUERADE */
	struct rule_nat nat; /**< the target */
	uint32_t active;     /**< bindings using it now */
	uint64_t allocated;  /**< bindings made with it */
	uint64_t exhausted;  /**< binds that found no free tuple in it */
};

/** struct mod_nat_rewrite::l4: what to do past the IP header. */
#define MOD_NAT_L4_NONE 0 /**< nothing (other protocols, ICMPv4 without identifier) */
#define MOD_NAT_L4_TCP 1  /**< ports, checksum at 16 */
#define MOD_NAT_L4_UDP 2  /**< ports, checksum at 6 (0 = none, stays 0) */
#define MOD_NAT_L4_ECHO 3 /**< ICMP/ICMPv6 echo (and queries alike): identifier at 4, checksum at 2 */
#define MOD_NAT_L4_CSUM 4 /**< ICMPv6 non-echo: pseudo-header change only, checksum at 2 */
#define MOD_NAT_L4_SCTP 5 /**< ports changed: CRC32c recomputed (addresses are not covered) */
#define MOD_NAT_L4_UDPLITE 6 /**< ports, checksum at 6 (always present: the coverage includes both) */
#define MOD_NAT_L4_DCCP 7 /**< ports, checksum at 6 (it always covers the header and pseudo-header) */

/** struct mod_nat_rewrite::fast: the rewrite mod_nat_apply() does in line. */
#define MOD_NAT_FAST_NONE 0 /**< none: ICMP, SCTP, other protocols (mod_nat_apply_rest()) */
#define MOD_NAT_FAST_PORTS 1 /**< TCP, UDP-Lite, DCCP: addresses, both ports, both checksums */
#define MOD_NAT_FAST_UDP 2   /**< UDP: as MOD_NAT_FAST_PORTS, a checksum of 0 (none) stays 0 */

/**
 * One precomputed rewrite: the new header fields and the checksum deltas
 * (RFC 1624: the one's complement sum of ~old + new over the changed 16-bit
 * words, in memory order, never 0), one cache line. Public only so that
 * mod_nat_apply() can be inlined; written by mod_nat_bind(), read-only
 * otherwise. A hit reads its first 56 bytes (IPv6) or bytes 32..55
 * (IPv4: @c a4, the ports and the deltas), nothing else.
 */
struct mod_nat_rewrite {
	uint8_t src[16];   /**< new source address (IPv4 in bytes 0..3) */
	uint8_t dst[16];   /**< new destination address */
	uint16_t sport;    /**< new source port or echo identifier, network order */
	uint16_t dport;    /**< new destination port, network order (follows sport: one
			        4-byte store writes both) */
	uint16_t ip_delta; /**< addresses: IPv4 header checksum and L4 pseudo-header */
	uint16_t l4_delta; /**< everything the L4 checksum covers */
	uint8_t family;    /**< FC_AF_INET4 or FC_AF_INET6 */
	uint8_t l4;        /**< MOD_NAT_L4_* */
	uint8_t csum_off;  /**< L4 checksum offset in the L4 header */
	uint8_t l4_min;    /**< L4 bytes the rewrite touches */
	uint8_t fast;      /**< MOD_NAT_FAST_* */
	uint8_t fast_family; /**< @c family with a @c fast rewrite, else 0: one compare */
	uint8_t pad[2];
	uint8_t a4[8];     /**< IPv4: new source and destination, as the header holds them
			        (bytes 12..19: one 8-byte store) */
} __rte_aligned(64);

/** The fast path's view of a table: the first member of struct mod_nat. */
struct mod_nat_view {
	const struct mod_nat_rewrite *slots;
	uint32_t n_slots;
};

/**
 * Translate an ICMP or ICMPv6 error (destination unreachable, source
 * quench, redirect, time exceeded, parameter problem; ICMPv6 destination
 * unreachable, packet too big, time exceeded, parameter problem) about a
 * translated connection, so that its receiver sees the error of the packet
 * it sent. @p slot is the rewrite slot of the entry whose key is the quoted
 * packet reversed (the direction the error travels). Outer addresses equal
 * to that entry's key get the slot's rewrite; the quoted header gets the
 * mirror image (addresses, then TCP/UDP/SCTP ports or the ICMP echo
 * identifier when quoted). Checksums: outer and quoted IPv4 headers
 * recomputed, quoted TCP/UDP (and echo) checksums updated incrementally
 * when quoted, the ICMP/ICMPv6 checksum recomputed over the message. An
 * outer IPv6 header must be followed by ICMPv6 directly; a quoted IPv6
 * header's L4 is taken only right after it.
 * @param nat     the NAT table
 * @param slot    rewrite slot (see above; rule_decision::nat_slot with
 *                RULE_DEC_F_ICMP_ERR)
 * @param l3      the outer IP header, writable
 * @param l3_len  contiguous bytes at @p l3
 * @return 0; -EINVAL (not such an error, family mismatch, bad slot; nothing
 *   written), -ENOTSUP (the datagram goes past @p l3_len: linearize first).
 * Context: any (slow path: errors are never cached).
 */
int mod_nat_icmp_error(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len);

/**
 * Create a NAT table (plain heap memory; nothing is shared between processes).
 * @param p  parameters; max_bindings is required
 * @return the table, or NULL with errno EINVAL (bad parameters) or ENOMEM.
 * Context: main lcore.
 */
struct mod_nat *mod_nat_create(const struct mod_nat_params *p);

/**
 * Free a table.
 * @param nat  the table; NULL is accepted
 * Context: main lcore, no reader left.
 */
void mod_nat_free(struct mod_nat *nat);

/**
 * Make a binding for a new connection: pick the translated addresses and
 * ports, fill the two rewrite slots. Rules (doc/nat.md):
 *
 *  - DNAT: the destination becomes an address of @p dnat chosen by a seeded
 *    hash of the original source and destination addresses (a client sticks
 *    to one server); with a port range (TCP/UDP/SCTP) the destination port
 *    is kept if in range, else chosen by a hash of the original tuple.
 *  - SNAT: the source becomes an address of @p snat (hash of the original
 *    source address, then the next ones if that one has no free tuple);
 *    MASQUERADE: @p masq_addr, with the port range of @p snat if given
 *    (family 0 allowed). The source port (TCP/UDP/SCTP; ICMP echo
 *    identifier over 0..65535) is kept if free and in range, else searched
 *    from a hashed start over the range (no range given: Linux's classes,
 *    1..511 for ports below 512, 600..1023 for 512..1023, 1024..65535
 *    otherwise). A source outside the range from the protocol, address
 *    and port of a live binding first gets that binding's translated
 *    source again, if in range and free (Linux's by-source mapping; not
 *    with --random, --random-fully).
 *  - Without SNAT/MASQUERADE the source is kept, unless that clashes with
 *    an existing binding: then its port is remapped as above (like Linux).
 *  - Other protocols (ports 0) get addresses only; a clash cannot be
 *    resolved and counts as exhaustion.
 *
 * @param nat        the table
 * @param orig       the connection's key as parsed (local bits set)
 * @param dnat       DNAT target, or NULL
 * @param snat       SNAT target, or NULL; with @p masq_addr only its ports count
 * @param masq_addr  outgoing port's address for MASQUERADE (4 or 16 bytes,
 *   the family of @p orig), or NULL
 * @param res        receives the binding
 * @return 0; -EINVAL (NULL argument, nothing to do, a target of another
 *   family or with min > max, @p snat without address and no @p masq_addr),
 *   -ENOBUFS (all bindings in use,
 *   counted in table_full), -ENOSPC (no free tuple within max_probes,
 *   counted in exhausted and in the target's counters).
 * Context: rules lcore only.
 */
int mod_nat_bind(struct mod_nat *nat, const struct fc_key *orig, const struct rule_nat *dnat,
	const struct rule_nat *snat, const uint8_t *masq_addr, struct mod_nat_binding_result *res);

/**
 * Linux's null binding, for a connection no NAT rule translates: when its
 * reply tuple is a binding's (reply or original tuple: e.g. a client
 * talking untranslated to a DNAT target from the port of its translated
 * connection), its source port (ICMP echo identifier) is remapped as
 * mod_nat_bind() does without targets, so that the connection gets a
 * tuple of its own instead of clashing. Cheap when there is nothing to do
 * (two index lookups, none without bindings), so it may be asked for
 * every new connection.
 * @param nat   the table
 * @param orig  the connection's key as parsed (local bits set)
 * @param res   receives the binding (flags MOD_NAT_F_CLASH | MOD_NAT_F_REMAPPED)
 * @return 0 with a binding; -EALREADY when the tuple is free as it is (no
 *   binding: none is needed); -EPROTONOSUPPORT for a protocol with no
 *   port or identifier to change (the insert clashes); -EINVAL, -ENOBUFS,
 *   -ENOSPC as mod_nat_bind().
 * Context: rules lcore only.
 */
int mod_nat_bind_clash(struct mod_nat *nat, const struct fc_key *orig,
	struct mod_nat_binding_result *res);

/**
 * First step of freeing a binding: its tuple is free for new bindings at
 * once; its slots stay intact until mod_nat_release(). Call after both flow
 * entries naming the slots were deleted.
 * @param nat      the table
 * @param binding  the binding (struct mod_nat_binding_result::binding)
 * @return 0, -EINVAL (NULL or out of range), -ENOENT (not active).
 * Context: rules lcore only.
 */
int mod_nat_unbind(struct mod_nat *nat, uint32_t binding);

/**
 * Second step: make the binding's slots reusable. Call once an RCU grace
 * period has passed since mod_nat_unbind() (e.g. from an rte_rcu_qsbr
 * defer queue), or at once when no reader runs.
 * @param nat      the table
 * @param binding  the binding
 * @return 0, -EINVAL (NULL or out of range), -ENOENT (already free),
 *   -EBUSY (still bound: unbind first).
 * Context: rules lcore only.
 */
int mod_nat_release(struct mod_nat *nat, uint32_t binding);

/**
 * Read an active binding back.
 * @param nat      the table
 * @param binding  the binding
 * @param res      receives it
 * @return 0, -EINVAL, -ENOENT (not active).
 * Context: rules lcore, or control with the rules lcore stopped.
 */
int mod_nat_binding_get(const struct mod_nat *nat, uint32_t binding,
	struct mod_nat_binding_result *res);

/**
 * Sum the counters.
 * @param nat  the table (NULL: zeros)
 * @param s    receives them
 * Context: any lcore (values may be slightly stale).
 */
void mod_nat_stats_get(const struct mod_nat *nat, struct mod_nat_stats *s);

/**
 * Usage of target @p i (0 .. stats.targets - 1). A target whose bindings are
 * all gone may be recycled for a new one when the table of targets is full.
 * @param nat  the table
 * @param i    target index
 * @param out  receives its usage
 * @return 0, -EINVAL, -ENOENT (past the end).
 * Context: any lcore, for display (a recycled entry may read torn).
 */
int mod_nat_target_stats_get(const struct mod_nat *nat, unsigned int i,
	struct mod_nat_target_stats *out);

/**
 * Write the counters, the targets and one line per active binding
 * ("tcp 10.0.0.2:1234 -> ... => tcp 192.0.2.1:1234 -> ... [snat]") to @p f.
 * @param nat  the table
 * @param f    destination
 * @return number of bindings written, -EINVAL, or -EIO on a write error.
 * Context: rules lcore, or control with the rules lcore stopped.
 */
int mod_nat_dump(const struct mod_nat *nat, FILE *f);

/**
 * Recompute the CRC32c of a whole SCTP packet (common header at @p sctp,
 * @p len bytes) after its ports changed. Called by mod_nat_apply().
 * @param sctp  the SCTP common header, writable
 * @param len   bytes of the SCTP packet
 * Context: any lcore.
 */
void mod_nat_sctp_csum(uint8_t *sctp, uint32_t len);

/**
 * Write new ports @p sport and @p dport (network order, 2 bytes each) into
 * the SCTP packet at @p sctp (@p len bytes) and update its CRC32c: the
 * new packet's CRC when the received one was right, and when it was wrong,
 * wrong by the same error (a corrupted packet is not made valid by the
 * rewrite). Only the 12-byte common header is read and written: the
 * chunks may lie elsewhere (a chained mbuf's later segments). Called by
 * mod_nat_apply().
 * @param sctp   the SCTP common header, writable
 * @param len    bytes of the whole SCTP packet (at least 12)
 * @param sport  the new source port
 * @param dport  the new destination port
 * Context: any lcore.
 */
void mod_nat_sctp_ports(uint8_t *sctp, uint32_t len, const void *sport, const void *dport);

/**
 * RFC 1624 eqn. 3: the checksum @p csum (as stored) after adding @p delta,
 * a one's complement sum of ~old + new words that is never 0. The result is
 * what a full recomputation gives: never 0xffff for a correct input.
 * @param csum   the checksum field, as stored
 * @param delta  the delta (struct mod_nat_rewrite)
 * @return the new checksum field.
 * Context: any lcore.
 */
static inline uint16_t
mod_nat_csum_adjust(uint16_t csum, uint16_t delta)
{
	uint32_t s = (uint32_t)(uint16_t)~csum + delta;

	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/**
 * What mod_nat_apply() does for a packet its straight line does not take
 * (ICMP and ICMPv6, SCTP, other protocols, non-first fragments, headers cut
 * short, a slot of the other family): the same contract. Out of line.
 * Context: any lcore (lock-free reader of the slot).
 */
int mod_nat_apply_rest(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len,
	const struct fc_pkt *pkt);

/**
 * Fetch rewrite slot @p slot's line ahead of mod_nat_apply() (a burst's
 * hits, after the lookup).
 * Context: any lcore.
 */
static inline void
mod_nat_prefetch(const struct mod_nat *nat, uint32_t slot)
{
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)nat;

	RTE_ASSERT(slot < v->n_slots);
	__builtin_prefetch(&v->slots[slot], 0, 3);
}

/**
 * Rewrite one packet with slot @p slot: addresses (IPv4 header checksum
 * updated incrementally), then, except in a non-first fragment, the ports or
 * echo identifier and the L4 checksum (pseudo-header included). A UDP
 * checksum of 0 (none) stays 0; a computed 0 is sent as 0xffff. SCTP with
 * changed ports gets its CRC32c updated by the ports' difference and the
 * packet's length (mod_nat_sctp_ports()): its header suffices.
 *
 * TCP, UDP and UDP-Lite with their ports in @p l3_len take a straight
 * line: the precomputed fields stored (IPv4: one 8-byte store for both
 * addresses, one 4-byte store for both ports) and one add per checksum
 * (the slot's deltas); everything else goes to mod_nat_apply_rest().
 *
 * @param nat     the table
 * @param slot    fc_action::nat_id of the entry the packet hit
 * @param l3      first byte of the IP header (writable)
 * @param l3_len  bytes available from @p l3
 * @param pkt     the parser's result for this packet (offsets, fragment kind)
 * @return 0; -EINVAL (family differs from the slot's, headers beyond
 *   @p l3_len); -ENOTSUP (SCTP port change on a fragment, whose length is
 *   not the packet's).
 * Context: any lcore (lock-free reader of the slot).
 */
static inline int
mod_nat_apply(const struct mod_nat *nat, uint32_t slot, uint8_t *l3, uint32_t l3_len,
	const struct fc_pkt *pkt)
{
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)nat;
	const struct mod_nat_rewrite *rw;
	/* A non-first fragment has no L4 header (l4_off 0): l4_rel wraps. */
	uint32_t l4_rel = (uint32_t)pkt->l4_off - pkt->l3_off;
	uint8_t *l4;
	uint16_t c;

	RTE_ASSERT(slot < v->n_slots);
	rw = &v->slots[slot];
	/* Every check before the first write: no packet is half-rewritten. */
	if (unlikely(rw->fast_family != pkt->key.family ||
		    (uint64_t)l4_rel + rw->l4_min > l3_len))
		return mod_nat_apply_rest(nat, slot, l3, l3_len, pkt);
	if (rw->family == FC_AF_INET4) {
		memcpy(l3 + 12, rw->a4, 8);
		memcpy(&c, l3 + 10, 2);
		c = mod_nat_csum_adjust(c, rw->ip_delta);
		memcpy(l3 + 10, &c, 2);
	} else {
		memcpy(l3 + 8, rw->src, 16);
		memcpy(l3 + 24, rw->dst, 16);
	}
	l4 = l3 + l4_rel;
	memcpy(l4, &rw->sport, 4);
	memcpy(&c, l4 + rw->csum_off, 2);
	if (rw->fast == MOD_NAT_FAST_UDP && c == 0)
		return 0; /* no checksum: stays none */
	c = mod_nat_csum_adjust(c, rw->l4_delta);
	if (rw->fast == MOD_NAT_FAST_UDP && c == 0)
		c = 0xffff;
	memcpy(l4 + rw->csum_off, &c, 2);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The module                                                                */
/* ------------------------------------------------------------------------ */

/*
 * The NAT module (nat_module.c): one table, two stages of the rules engine
 * sharing it, in netfilter's places:
 *
 * - "nat_dst" (RULE_MOD_ORDER_NAT_DST, before route and filter): the nat
 *   table's PREROUTING/OUTPUT verdict; a DNAT binds and makes the
 *   translated key what later stages see (struct rule_flow::xkey, xdst)
 *   and the reply key the binding's. A connection a conntrack helper
 *   expected behind NAT (struct rule_flow::exp_nat) is bound to the
 *   helper's target instead of the nat table's verdict. It also releases bindings: on_abort
 *   for a flow that got no entry (at once: no reader saw it), on_remove
 *   when an entry with FC_ACT_F_NAT goes (unbound at once, released after
 *   a grace period, rule_engine_defer()); and it tells the stale check the
 *   destination a translated entry's filter saw (filter_key).
 * - "nat_src" (RULE_MOD_ORDER_NAT_SRC, after an accepting filter): the
 *   POSTROUTING/INPUT verdict; SNAT and MASQUERADE redo the flow's binding
 *   with both stages (masquerade asks mod_nat_port_addr_fn for the output
 *   port's address); both entries get their rewrite slots. An ICMP error
 *   that conntrack found RELATED to a translated connection, travelling
 *   that connection's way, is decided with the connection's slot and port
 *   and RULE_DEC_F_ICMP_ERR (the app rewrites it with mod_nat_icmp_error()).
 *
 * NAT applies to flows that make a connection (every flow without a
 * tracker): not to struct rule_flow::untracked or nocache ones. The
 * binding of the flow being inserted lives in the module (the rules lcore
 * inserts one flow at a time) from nat_dst's on_insert to the next.
 *
 * Ownership: the module belongs to whoever created it (the app); it keeps
 * a pointer to its engine and must outlive it: free it after
 * rule_engine_free() (which may still release bindings). RX lcores read the
 * table's slots (mod_nat_apply()) between the engine's quiescent reports.
 */

struct rule_engine;

/** The NAT module. */
struct mod_nat_module;

/**
 * Masquerade: the address of output port @p port (RULE_PORT_PAIRED: the
 * pair of @p in_port) of @p family, into @p addr (4 or 16 bytes, network
 * order). REDIRECT: @p port is RULE_PORT_LOCAL, the address of input port
 * @p in_port itself (a port without one has none: Linux drops the packet
 * when the input interface has no address).
 * @return 0, or -errno (the packet is dropped as nat_error).
 */
typedef int (*mod_nat_port_addr_fn)(void *arg, uint16_t port, uint16_t in_port, uint8_t family,
	uint8_t *addr);

/** NAT module parameters. */
struct mod_nat_module_params {
	uint32_t max_bindings; /**< 1..MOD_NAT_BINDINGS_MAX (see mod_nat_params) */
	uint32_t seed;         /**< the table's hash seed */
	const struct fc_locals *locals; /**< optional: local bits of translated keys */
	mod_nat_port_addr_fn port_addr_fn; /**< optional: without it masquerade drops (nat_error) */
	void *cb_arg;          /**< first argument of port_addr_fn */
};

/** Counters of the NAT module (the table's: mod_nat_stats_get()). */
struct mod_nat_module_stats {
	uint64_t related_nat; /**< RELATED ICMP errors of translated connections, translated */
};

/**
 * Create the table and the module, and register both stages with @p eng.
 * @param eng  the engine
 * @param p    parameters
 * @return the module, or NULL with rte_errno EINVAL (NULL argument, bad
 *   max_bindings), ENOMEM, or the registration's error (ENOSPC, EEXIST).
 * Context: main lcore, before traffic (as rule_engine_module_register()).
 */
struct mod_nat_module *mod_nat_module_create(struct rule_engine *eng,
	const struct mod_nat_module_params *p);

/**
 * Free the module and its table.
 * @param m  the module; NULL is accepted
 * Context: main lcore, after rule_engine_free() of its engine.
 */
void mod_nat_module_free(struct mod_nat_module *m);

/**
 * The module's table: mod_nat_apply() and mod_nat_icmp_error() for the
 * data path, mod_nat_stats_get() and mod_nat_dump() for display.
 * @param m  the module
 * @return the table, or NULL for a NULL module.
 * Context: any.
 */
const struct mod_nat *mod_nat_module_table(const struct mod_nat_module *m);

/**
 * Read the module's counters.
 * @param m   the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_nat_module_stats_get(const struct mod_nat_module *m, struct mod_nat_module_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_NAT_H */
