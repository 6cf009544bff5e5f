/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — a rule set's field classes: the values of a per-packet header
 * field (TCP flags, TTL/hop limit, TOS byte, IP length, MSS option) that
 * every test of the set treats alike, so that a flow's cached verdict can
 * be keyed on a class instead of the value. Part of rules.h's manual, which
 * includes this header: include rules.h.
 */
#ifndef GUFC_RULE_FIELDCLASS_H
#define GUFC_RULE_FIELDCLASS_H

#ifndef GUFC_RULES_H
#error "include rules.h, not rule_fieldclass.h"
#endif

/**
 * The TCP flag classes of a set: flag bytes that give every flags test of
 * its rules (--tcp-flags, --syn, SYNPROXY's) the same results are one
 * class, numbered densely from 0. A packet's walk through the set reads
 * its flags only through these tests, so two packets of one class walk it
 * alike (all else equal).
 * @param s    the set (NULL: no tests, one class)
 * @param cls  receives the class of each flag byte
 * @param rep  receives, for each class, its smallest flag byte
 * @return the number of classes, 1 to 256.
 * Context: any.
 */
unsigned int rule_set_tcpflag_classes(const struct rule_set *s, uint8_t cls[256],
	uint8_t rep[256]);

/** Most interval bounds of -m length or -m tcpmss a set's field classes keep. */
#define RULE_FC_BOUNDS 32

/**
 * The classes of a set's other per-packet header tests (rule_set_field_classes()):
 * values of a field that give every test of it the same result, under every
 * rewrite the set's targets can apply before a test (TTL/HL --ttl-set/dec/inc,
 * DSCP, TOS), are one class. A count of 0: the field has more classes (or
 * rewrites) than kept, so it is not classed.
 */
struct rule_fieldclasses {
	uint16_t n_ttl;                   /**< TTL / hop limit classes, 0..256 */
	uint16_t n_tos;                   /**< TOS byte / traffic class classes, 0..256 */
	uint8_t ttl[256];                 /**< class of each TTL */
	uint8_t tos[256];                 /**< class of each TOS byte */
	uint8_t ttl_rep[256];             /**< per class, its smallest TTL */
	uint8_t tos_rep[256];             /**< per class, its smallest TOS byte */
	uint8_t n_len_b;                  /**< -m length: bounds in @c len_b; 0xff: too many */
	uint8_t n_mss_b;                  /**< -m tcpmss: bounds in @c mss_b; 0xff: too many */
	uint16_t len_b[RULE_FC_BOUNDS];   /**< ascending, > 0: IP length L is in interval
					       (bounds <= L); interval i > 0 starts at len_b[i - 1] */
	uint16_t mss_b[RULE_FC_BOUNDS];   /**< the same for the MSS option's value */
};

/**
 * The classes of a set's TTL (hop limit), TOS byte (-m tos, -m dscp,
 * -m ecn --ecn-ip-ect), IP length and MSS option tests: two packets whose
 * values are in one class for each field walk the set alike (all else
 * equal), the rewrites of -j TTL, HL, DSCP and TOS before a test included.
 * @param s       the set (NULL: no tests, one class each)
 * @param router  router mode: the router's TTL decrement (once, between
 *                PREROUTING and FORWARD) is one more rewrite
 * @param out     receives the classes
 * Context: any.
 */
void rule_set_field_classes(const struct rule_set *s, bool router, struct rule_fieldclasses *out);

/**
 * Does rule @p r add a test or a rewrite to a set's packet classes: a TCP
 * flags test (--tcp-flags, --syn, -m ecn's ECE/CWR), SYNPROXY, a TTL/hop
 * limit, TOS byte, DSCP, ECN codepoint, length or MSS test, or a TTL, HL,
 * DSCP or TOS target? Two sets that differ only by rules for which this is
 * false (the chains' hooks the same) have the same classes from
 * rule_set_tcpflag_classes() and rule_set_field_classes(): the rules
 * engine's commit then keeps the classes without walking the set.
 * @param r  the rule
 * Context: any.
 */
bool rule_reads_classed_field(const struct rule *r);

#endif /* GUFC_RULE_FIELDCLASS_H */
