/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — match order: where a rule's port and ctstate matches count
 * when they are written after an extension match that changes state
 * (limit, hashlimit, recent, statistic, connlimit), as netfilter evaluates
 * a rule's matches in the order written. Part of rules.h's manual, which
 * includes this header: include rules.h.
 */
#ifndef GUFC_RULE_ORDER_H
#define GUFC_RULE_ORDER_H

#ifndef GUFC_RULES_H
#error "include rules.h, not rule_order.h"
#endif

/**
 * Does a packet's pass through an extension match of kind @p kind change
 * state that later packets see (a token taken, a list updated, a counter stepped):
 * limit, hashlimit, recent, statistic, connlimit? Only behind such a match
 * does a port match's position count (struct rule::sport_at).
 * @param kind  enum rule_x_kind
 * @return true for those kinds.
 * Context: any.
 */
bool rule_x_ordered(unsigned int kind);

/**
 * Put @p r's port and ctstate matches where they count: each written
 * after extension match @c sport_at - 1 (@c dport_at - 1, @c ctstate_at
 * - 1; the parsers set the number of extension matches written before
 * it) moves up to just after the last match before it that
 * rule_x_ordered() holds, or to the key fields (0) when none is: the
 * matches in between leave no state, so their order with the key field
 * does not count.
 * @param r  the rule (its @c xm complete)
 * Context: any.
 */
void rule_late_order(struct rule *r);

/**
 * Where a key field written after @p n extension matches of @p r counts
 * (rule_late_order()): @p n moved up past the matches that leave no state.
 * @param r  the rule
 * @param n  extension matches written before the field
 * @return its place (struct rule::sport_at).
 * Context: any.
 */
uint8_t rule_late_place(const struct rule *r, unsigned int n);

/**
 * The RULE_M_SPORT and RULE_M_DPORT bits of @p r's port matches that come
 * after an extension match (struct rule::sport_at): rule_match_key() leaves
 * them out, the extension matches' evaluation checks them in their place.
 * @param r  the rule
 * @return those bits (0 for most rules).
 * Context: any.
 */
static inline uint8_t
rule_late_ports(const struct rule *r)
{
	return (uint8_t)(((r->match & RULE_M_SPORT) && r->sport_at != 0 ? RULE_M_SPORT : 0) |
			 ((r->match & RULE_M_DPORT) && r->dport_at != 0 ? RULE_M_DPORT : 0));
}

/**
 * Does @p r's ctstate match come after an extension match (struct
 * rule::ctstate_at)? rule_match_key() then leaves it out, the extension
 * matches' evaluation checks it in its place.
 * @param r  the rule
 * @return true for such a rule.
 * Context: any.
 */
static inline bool
rule_late_ctstate(const struct rule *r)
{
	return (r->match & RULE_M_CTSTATE) && r->ctstate_at != 0;
}

#endif /* GUFC_RULE_ORDER_H */
