/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: what the fast path asks about a hit, part of engine.h's
 * manual (included at its end) — is the entry stale (a newer commit, or an
 * expectation newer than a cached drop), and does a classed entry's
 * verdict hold for the packet's header fields (TCP flags, TTL, TOS byte,
 * IP length, MSS option: the class table a commit publishes,
 * engine_pktclass.c).
 */
#ifndef GUFC_ENGINE_HIT_H
#define GUFC_ENGINE_HIT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Fields a packet class reads: bit numbers of struct rule_flagclass::mask_of. */
enum rule_pc_field {
	RULE_PC_FLAGS, /**< the TCP flags byte (0 for other protocols) */
	RULE_PC_TTL,   /**< IPv4 TTL, IPv6 hop limit */
	RULE_PC_TOS,   /**< IPv4 TOS byte, IPv6 traffic class */
	RULE_PC_LEN,   /**< IP length: IPv4 total length, IPv6 40 + payload length */
	RULE_PC_MSS,   /**< the TCP MSS option: none, its value, or a later fragment */
	RULE_PC__COUNT
};
/** Subsets of the fields. */
#define RULE_PC_MASKS (1u << RULE_PC__COUNT)
/** struct rule_flagclass::base of a subset with no ids: not classed. */
#define RULE_PC_NO_BASE 0xffff
/**
 * Bits of a class's id in fc_action::pkt_class (and rule_pktprog::cls);
 * the table's serial (1..15) in the bits above: 4,096 joint ids.
 */
#define RULE_PC_ID_BITS 12
/** Joint class ids of a table. */
#define RULE_PC_IDS (1u << RULE_PC_ID_BITS)
/** Serials of the tables: 1..RULE_PC_SERIALS (0 is never one). */
#define RULE_PC_SERIALS ((1u << (16 - RULE_PC_ID_BITS)) - 1)

/** A class as an entry keeps it: serial @p serial, id @p id. */
static inline uint16_t
rule_pc_make(unsigned int serial, unsigned int id)
{
	return (uint16_t)(serial << RULE_PC_ID_BITS | id);
}

/** The id of a class an entry keeps. */
static inline unsigned int
rule_pc_id(uint16_t pc)
{
	return pc & (RULE_PC_IDS - 1);
}

/** The serial of the table a class an entry keeps was taken from. */
static inline unsigned int
rule_pc_serial(uint16_t pc)
{
	return pc >> RULE_PC_ID_BITS;
}

/** A packet's fields a class reads (rule_engine_pkt_fields()). */
struct rule_pktfields {
	uint8_t flags;  /**< TCP flags, 0 for other protocols */
	uint8_t ttl;
	uint8_t tos;
	uint8_t mss_st; /**< 0: a later fragment; 1: no MSS option; 2: @c mss holds it */
	uint16_t len;   /**< IP length */
	uint16_t mss;
};

/**
 * A set's packet classes (engine_pktclass.c): an entry whose walk read
 * per-packet header fields (TCP flags, TTL, TOS byte, IP length, MSS
 * option) and nothing else per packet caches its verdict for the joint
 * class of the values its walk saw, over the fields it read
 * (fc_action::pkt_class: an id in the low RULE_PC_ID_BITS, the table's
 * serial above, rule_pc_make(); RULE_ACT_M0_CLASSED). The ids of each subset of fields
 * (a walk's) lie in [base[m], base[m] + the product of their class
 * counts); mask_of[] gives an id's subset back. Immutable once published.
 */
struct rule_flagclass {
	uint32_t gen;      /**< generation of the commit that installed it */
	uint8_t serial;    /**< 1..RULE_PC_SERIALS, the next of each table that replaces another */
	uint16_t n;        /**< TCP flag classes, 1..256 */
	uint16_t nf[RULE_PC__COUNT]; /**< classes per field; 0: the field is not classed */
	uint16_t base[RULE_PC_MASKS]; /**< first id of each subset; RULE_PC_NO_BASE: none */
	uint16_t stride[RULE_PC_MASKS][RULE_PC__COUNT]; /**< a field's weight in a subset's ids */
	uint8_t mask_of[RULE_PC_IDS]; /**< subset of each id; 0: no such id */
	uint8_t cls[256];  /**< class of each flag byte */
	uint8_t rep[256];  /**< per class, a flag byte of it */
	struct rule_fieldclasses f; /**< the other fields' classes */
};

/**
 * The id of the class of @p pf over the fields of @p m in table @p fc.
 * @return the id, or -1 when @p m has none.
 * Context: any.
 */
static inline int
rule_pktclass_id(const struct rule_flagclass *fc, unsigned int m, const struct rule_pktfields *pf)
{
	const uint16_t *st = fc->stride[m];
	unsigned int id = fc->base[m], c;

	if (id == RULE_PC_NO_BASE)
		return -1;
	if (m & 1u << RULE_PC_FLAGS)
		id += fc->cls[pf->flags] * st[RULE_PC_FLAGS];
	if (m & 1u << RULE_PC_TTL)
		id += fc->f.ttl[pf->ttl] * st[RULE_PC_TTL];
	if (m & 1u << RULE_PC_TOS)
		id += fc->f.tos[pf->tos] * st[RULE_PC_TOS];
	if (m & 1u << RULE_PC_LEN) {
		for (c = 0; c < fc->f.n_len_b && fc->f.len_b[c] <= pf->len; c++)
			;
		id += c * st[RULE_PC_LEN];
	}
	if (m & 1u << RULE_PC_MSS) {
		c = pf->mss_st;
		if (c == 2)
			for (unsigned int i = 0; i < fc->f.n_mss_b && fc->f.mss_b[i] <= pf->mss; i++)
				c++;
		id += c * st[RULE_PC_MSS];
	}
	return (int)id;
}

/**
 * The fields of a parsed packet that a class reads, from its frame as the
 * rule walk reads them (rule_pkt_parse()): TTL and TOS of the IP header,
 * the parser's IP length, the MSS option (only when @p want_mss).
 * @param p         the packet's parse
 * @param frame     its first bytes
 * @param len       bytes at @p frame
 * @param whole     @p frame holds the whole frame (not a chained mbuf's first segment)
 * @param want_mss  read the MSS option
 * @param pf        receives the fields
 * @return false when the options lie past @p len of a frame not @p whole.
 * Context: any.
 */
bool rule_engine_pkt_fields(const struct fc_pkt *p, const uint8_t *frame, uint32_t len,
	bool whole, bool want_mss, struct rule_pktfields *pf);

/**
 * Is a new flow's cached drop (RULE_ACT_M0_NEWDROP) older than an
 * expectation noted for its tuple's slot (rule_engine_expect_note())? Its
 * packet then goes up and is decided as a new flow, which may meet the
 * expectation (Linux keeps no state of a dropped packet: its next one is
 * a new connection). A slot shared by other tuples costs their cached
 * drops one such decision each, after which they hold the newer count.
 * @param eng  the engine
 * @param a    the entry's action (RULE_ACT_M0_NEWDROP)
 * @param k    the entry's key
 * @return true: decide it anew. Context: registered reader, or rules lcore.
 */
static inline bool
rule_engine_drop_expected(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	uint32_t e = __atomic_load_n(&v->exp_epoch, __ATOMIC_ACQUIRE);

	if (likely(e == a->nat_id))
		return false;
	e = __atomic_load_n(&v->exp_slots[rule_engine_exp_slot(k)], __ATOMIC_RELAXED);
	return (int32_t)(e - a->nat_id) > 0;
}

/**
 * Must a hit be decided by the slow path because a commit newer than its
 * entry may change it, or (a new flow's cached drop) an expectation made
 * since may? One generation compare in the common case; else the
 * key (as the filter saw it) is checked against the published changes.
 * @param eng  the engine
 * @param a    the action fc_table_lookup_bulk() copied
 * @param k    the entry's key
 * @return true: upcall the packet with RULE_UPCALL_STALE.
 * Context: registered reader (between quiescent reports), or rules lcore.
 */
static inline bool
rule_engine_stale(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	if (likely(a->gen == __atomic_load_n(&v->gen, __ATOMIC_ACQUIRE)))
		return unlikely(a->mod[0] & RULE_ACT_M0_NEWDROP) &&
		       rule_engine_drop_expected(eng, a, k);
	return rule_engine_stale_check(eng, a, k);
}

/**
 * The class of a classed entry (RULE_ACT_M0_CLASSED): its pkt_class, or,
 * where pkt_class names its packet program (FC_ACT_F_PKTACT: a rewrite, a
 * LOG), the program's (struct rule_pktprog::cls).
 * Context: any lcore.
 */
static inline uint16_t
rule_engine_class_of(const struct rule_engine *eng, const struct fc_action *a)
{
	if (a->flags & FC_ACT_F_PKTACT)
		return rule_engine_pktprog(eng, a->pkt_class)->cls;
	return a->pkt_class;
}

/**
 * rule_engine_class_ok() for a class of the MSS option, or of a frame whose
 * IP header is short: the fields read by rule_engine_pkt_fields().
 * @return true when the packet's class over fields @p m is @p id.
 * Context: any.
 */
bool rule_engine_class_ok_slow(const struct rule_flagclass *fc, unsigned int m, unsigned int id,
	const struct fc_pkt *p, const uint8_t *frame, uint32_t len, bool whole);

/**
 * Does a classed entry's cached verdict (RULE_ACT_M0_CLASSED) hold for
 * packet @p p: its fields are in the entry's class, under the table the
 * class was taken from? If not, upcall it (RULE_UPCALL_INTEREST): the slow
 * path decides it on its own. A class of the TCP flags alone costs a
 * lookup; the other fields are read from the frame only for the entries
 * whose class needs them.
 * @param eng    the engine
 * @param a      the entry's action (as read under its sequence count)
 * @param p      the packet (tcp_flags 0 for other protocols)
 * @param frame  its frame (NULL: only a class of the flags alone holds)
 * @param len    bytes at @p frame
 * @param whole  @p frame holds the whole frame
 * @return true when the cached verdict holds.
 * Context: any lcore, a registered reader between two quiescent reports.
 */
static inline bool
rule_engine_class_ok(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_pkt *p, const uint8_t *frame, uint32_t len, bool whole)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	const struct rule_flagclass *fc = __atomic_load_n(&v->flagclass, __ATOMIC_ACQUIRE);
	uint16_t pc = rule_engine_class_of(eng, a);
	const uint16_t *st;
	const uint8_t *l3;
	unsigned int id, m, got, c;

	if (fc == NULL || rule_pc_serial(pc) != fc->serial || (int32_t)(a->gen - fc->gen) < 0)
		return false;
	id = rule_pc_id(pc);
	m = fc->mask_of[id];
	if (likely(m == 1u << RULE_PC_FLAGS))
		return fc->base[m] + fc->cls[p->tcp_flags] == id;
	if (m == 0 || frame == NULL)
		return false;
	/* The MSS option, or a header not where the parse says: out of line. */
	if (unlikely((m & 1u << RULE_PC_MSS) || (uint32_t)p->l3_off + 40 > len))
		return rule_engine_class_ok_slow(fc, m, id, p, frame, len, whole);
	/* The IP header's fields read in place, each a digit of the id. */
	st = fc->stride[m];
	l3 = frame + p->l3_off;
	got = fc->base[m];
	if (m & 1u << RULE_PC_FLAGS)
		got += fc->cls[p->tcp_flags] * st[RULE_PC_FLAGS];
	if (m & 1u << RULE_PC_TTL)
		got += fc->f.ttl[p->key.family == FC_AF_INET4 ? l3[8] : l3[7]] * st[RULE_PC_TTL];
	if (m & 1u << RULE_PC_TOS)
		got += fc->f.tos[p->key.family == FC_AF_INET4
					 ? l3[1]
					 : (uint8_t)((l3[0] & 0x0f) << 4 | l3[1] >> 4)] *
		       st[RULE_PC_TOS];
	if (m & 1u << RULE_PC_LEN) {
		for (c = 0; c < fc->f.n_len_b && fc->f.len_b[c] <= p->ip_len; c++)
			;
		got += c * st[RULE_PC_LEN];
	}
	return got == id;
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_HIT_H */
