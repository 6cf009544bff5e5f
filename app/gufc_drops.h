/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_drops.h — every reason gufc drops a packet, from one X-macro list
 * (enum, stable ids for counters and JSON, and a line of text each), plus the
 * parser's errors (FC_PARSE_RESULTS), which are drop reasons of their own.
 *
 * Accounting: every received mbuf is, exactly once, delivered to a channel
 * consumer or counted under one of these reasons, so at shutdown
 * rx == delivered + sum(drops).
 */
#ifndef GUFC_DROPS_H
#define GUFC_DROPS_H

#include "flowcache.h"

/* X(NAME, "id", "text") */
#define GUFC_DROPS(X) \
	X(FILTER, "filter", "dropped by a filter rule or chain policy") \
	X(CT_INVALID, "ct_invalid", "conntrack: packet fits no connection state") \
	X(NAT_EXHAUSTED, "nat_exhausted", "no free NAT tuple") \
	X(NAT_ERROR, "nat_error", "NAT rewrite failed") \
	X(MODULE, "module", "dropped by a rules-engine module") \
	X(BAD_PACKET, "bad_packet", "rules engine: malformed packet") \
	X(CT_CLASH, "ct_clash", "conntrack: new flow clashes with another connection's tuple") \
	X(ENGINE_ERROR, "engine_error", "rules engine: internal error") \
	X(NON_IP, "non_ip", "not IPv4/IPv6 (non-ip drop)") \
	X(FRAGMENT, "fragment", "IP fragment (fragments drop)") \
	X(FRAG_FAILED, "frag_failed", "fragment not reassembled (invalid, expired, incomplete)") \
	X(FRAG_MERGED, "frag_merged", "fragment merged into a reassembled datagram") \
	X(UPCALL_FULL, "upcall_full", "upcall ring to the rules lcore full") \
	X(CHANNEL_FULL, "channel_full", "channel ring full") \
	X(CHANNEL_INVALID, "channel_invalid", "channel id not live") \
	X(FLUSHED, "flushed", "left in a channel without consumer at shutdown") \
	X(TX_FULL, "tx_full", "TX queue did not take the packet") \
	X(APP_UNCONSUMED, "app_unconsumed", "left in an app channel its consumer did not drain by exit") \
	X(HW_DROP, "hw_drop", "dropped by the NIC: a DROP rule offloaded (counted into rx too)")

enum gufc_drop {
#define GUFC_DROP_ENUM(name, id, text) GUFC_DROP_##name,
	GUFC_DROPS(GUFC_DROP_ENUM)
#undef GUFC_DROP_ENUM
	/* Parser errors follow: GUFC_DROP_PARSE + enum fc_parse_result. */
	GUFC_DROP_PARSE,
	GUFC_DROP__COUNT = GUFC_DROP_PARSE + FC_PARSE__COUNT
};

/** Parser result @p res as a drop reason. */
#define GUFC_DROP_PARSE_RES(res) ((unsigned int)GUFC_DROP_PARSE + (unsigned int)(res))

/** Is drop reason @p d one that can occur (parser successes are not reasons)? */
static inline int
gufc_drop_valid(unsigned int d)
{
	return d < GUFC_DROP_PARSE || (d >= GUFC_DROP_PARSE_RES(FC_PARSE_ERR_BASE) &&
					      d < GUFC_DROP__COUNT);
}

/** The app's reason for a rules-engine drop (enum rule_drop). */
unsigned int gufc_drop_from_rule(unsigned int rule_drop);
/** Stable id ("filter", "parse_err_trunc_tcp"); NULL for an unused slot. */
const char *gufc_drop_id(unsigned int d);
/** One line of text. */
const char *gufc_drop_text(unsigned int d);

#endif /* GUFC_DROPS_H */
