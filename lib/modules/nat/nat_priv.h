/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat private: the NAT table's layout and the helpers its
 * files share — nat_binding.c (create, bindings, targets, counters, dump),
 * nat_index.c (hashes and the two tuple indexes), nat_csum.c (checksum
 * deltas, rewrite slots, SCTP's CRC32c) and nat_icmp.c (ICMP errors). Not
 * for other libraries: the public face is nat.h.
 */
#ifndef GUFC_NAT_PRIV_H
#define GUFC_NAT_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "nat.h"

#define NAT_NONE	    UINT32_MAX
#define NAT_TGT_NONE	    UINT16_MAX
#define NAT_TARGETS_DEFAULT 64
#define NAT_TARGETS_MAX	    4096
#define NAT_PROBES_DEFAULT  65536

#define PROTO_ICMP    1
#define PROTO_TCP     6
#define PROTO_UDP     17
#define PROTO_DCCP    33
#define PROTO_ICMPV6  58
#define PROTO_SCTP    132
#define PROTO_UDPLITE 136

enum nat_state {
	NAT_FREE,
	NAT_ACTIVE,
	NAT_RETIRED, /* unbound, slots waiting for a grace period */
};

/* The two tuple indexes. */
enum nat_index { IDX_REPLY, IDX_ORIG, IDX__COUNT };

/*
 * One binding. key[IDX_ORIG] is the original forward key, key[IDX_REPLY]
 * the reply key; the translated forward key is the reverse of the latter.
 * next[IDX_REPLY] doubles as the free-list link. Only the writer touches it.
 */
struct nat_binding {
	struct fc_key key[IDX__COUNT];
	uint32_t next[IDX__COUNT];
	uint32_t next_src; /* by-source chain (key[IDX_ORIG]'s proto, source, port) */
	uint16_t tgt_dst; /* target counters of the DNAT target, or NAT_TGT_NONE */
	uint16_t tgt_src; /* of the SNAT/MASQUERADE target */
	uint8_t state;	  /* enum nat_state */
	uint8_t flags;	  /* MOD_NAT_F_* */
};

struct nat_target {
	struct mod_nat_target_stats st; /* st.nat normalized: memcmp-able */
	uint64_t last_use;
};

/* The table. Owned by its creator; written by the rules lcore only. */
struct mod_nat {
	struct mod_nat_view dp;	       /* must stay first: mod_nat_apply() casts */
	struct mod_nat_rewrite *slots; /* dp.slots, writable; 2 per binding */
	struct nat_binding *b;
	uint32_t max_bindings;
	uint32_t free_head;
	uint32_t *bkt[IDX__COUNT];
	uint32_t *bkt_src; /* by-source index: newest binding first in each chain */
	uint32_t bkt_mask;
	uint32_t seed;
	uint32_t max_probes;
	mod_nat_local_fn is_local;
	mod_nat_busy_fn busy;
	void *cb_arg;
	struct nat_target *tgt;
	uint32_t max_targets;
	uint32_t n_targets;
	uint64_t tgt_clock;
	struct mod_nat_stats st; /* written by the writer, read relaxed by anyone */
};

/* Same connection tuple, local bits aside. */
static inline bool
nat_tuple_equal(const struct fc_key *a, const struct fc_key *b)
{
	uint32_t alen = fc_af_addr_len(a->family);

	return a->family == b->family && fc_key_proto(a) == fc_key_proto(b) &&
	       fc_key_sport(a) == fc_key_sport(b) && fc_key_dport(a) == fc_key_dport(b) &&
	       memcmp(fc_key_src(a), fc_key_src(b), alen) == 0 &&
	       memcmp(fc_key_dst(a), fc_key_dst(b), alen) == 0;
}

/*
 * ICMP/ICMPv6 echo and the other queries with an identifier that NAT
 * rewrites (fc_key_icmp_query(), fc_icmp_nat_id(): not an ICMPv6 node
 * information message's, as in Linux): the parser puts the identifier in
 * sport, the type and code in dport. The identifier is the "source port"
 * NAT maps.
 */
static inline bool
nat_key_is_echo(const struct fc_key *k)
{
	uint16_t dport = fc_key_dport(k);

	/* dport is in network order: its first byte is the type */
	return fc_key_icmp_query(k) && fc_icmp_nat_id(k->family, ((const uint8_t *)&dport)[0]);
}

/*
 * The translated source "port" of a binding, read from its reply key: the
 * replies' destination port, or for an ICMP query the identifier (sport,
 * which reversing leaves in place).
 */
static inline uint16_t
nat_reply_src_port(const struct fc_key *reply)
{
	return nat_key_is_echo(reply) ? fc_key_sport(reply) : fc_key_dport(reply);
}

static inline bool
nat_proto_has_ports(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP || proto == PROTO_UDPLITE ||
	       proto == PROTO_SCTP || proto == PROTO_DCCP;
}

/* nat_index.c: seeded hashes and the tuple indexes (local bits aside). */

/** Hash of a connection tuple; @p salt separates uses. */
uint32_t nat_tuple_hash(const struct mod_nat *nat, uint32_t salt, const struct fc_key *k);
/** 64-bit hash of one or two addresses (@p b may be NULL), for picking in ranges. */
uint64_t nat_addr_hash64(const struct mod_nat *nat, uint32_t salt, const uint8_t *a,
	const uint8_t *b, uint32_t alen);
/** Is @p k the tuple of a binding in index @p ix? */
bool nat_index_has(const struct mod_nat *nat, enum nat_index ix, const struct fc_key *k);
/** Add binding @p id to index @p ix (its key[ix] is set). */
void nat_index_add(struct mod_nat *nat, enum nat_index ix, uint32_t id);
/** Remove binding @p id from index @p ix. */
void nat_index_del(struct mod_nat *nat, enum nat_index ix, uint32_t id);
/** Add binding @p id to the by-source index, in front of its chain. */
void nat_src_index_add(struct mod_nat *nat, uint32_t id);
/** Remove binding @p id from the by-source index. */
void nat_src_index_del(struct mod_nat *nat, uint32_t id);
/**
 * The newest binding after @p prev (NAT_NONE: the first) whose original
 * tuple has the protocol, source address and source port of @p k, or
 * NAT_NONE.
 */
uint32_t nat_src_index_next(const struct mod_nat *nat, const struct fc_key *k, uint32_t prev);

/* nat_csum.c: checksum deltas and rewrite slots. */

/**
 * The RFC 1624 delta (for mod_nat_csum_adjust()) of @p len bytes (even)
 * changing from @p old to @p new, 16-bit words in memory order.
 */
uint16_t mod_nat_csum_delta(const void *old, const void *new, uint32_t len);
/** Fill @p rw to turn packets keyed @p from into packets keyed @p to. */
void nat_slot_fill(struct mod_nat_rewrite *rw, const struct fc_key *from, const struct fc_key *to);

#endif /* GUFC_NAT_PRIV_H */
