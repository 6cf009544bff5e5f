/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_drops.h — gufc's drop registry: every reason gufc drops a
 * packet, composed by concatenating the libraries' X-lists of reasons
 * (X(NAME, "id", "text")) and the app's own, in the order the shell,
 * summary, JSON and telemetry print them:
 *
 *   RULE_DROP_REASONS  the rules engine's verdicts (lib/rules), applied by
 *                      the datapath (cached or decided by the slow path);
 *   DP_DROP_REASONS    the datapath's own (lib/datapath);
 *   MOD_NEIGH_DROP_REASONS  router mode's neighbour module (lib/modules/neigh:
 *                      ARP/ND frames, packets held for a next hop);
 *   GUFC_FRAG_DROPS    fragment reassembly on the rules lcore (app);
 *   CHAN_DROP_REASONS  the channels' (lib/channel);
 *   GUFC_END_DROPS     the app's at exit and the NIC's (offload);
 *   then the parser's errors (FC_PARSE_RESULTS from FC_PARSE_ERR_BASE on),
 *   ids "parse_<result id>".
 *
 * Each library counts its reasons in its own counters, indexed by its own
 * enum; gufc_stats_sum() gathers them into one array indexed by enum
 * gufc_drop, list by list, with code generated from the same X-lists (no
 * mapping written by hand).
 *
 * Accounting: every received mbuf is, exactly once, delivered (to a channel
 * consumer, or in router mode to the neighbour module: an ARP/ND frame) or
 * counted under one of these reasons, so at shutdown
 * rx == delivered + sum(drops). Packets gufc makes itself (router mode: ICMP
 * errors, fragments, ARP/ND frames) are counted apart (originated) and not
 * in delivered.
 */
#ifndef GUFC_DROPS_H
#define GUFC_DROPS_H

#include "channel.h"
#include "datapath.h"
#include "flowcache.h"
#include "neigh.h"
#include "rules.h"

/** Fragment reassembly (rules lcore): X(NAME, "id", "text"). */
#define GUFC_FRAG_DROPS(X) \
	X(FRAG_FAILED, "frag_failed", "fragment not reassembled (invalid, expired, incomplete)") \
	X(FRAG_MERGED, "frag_merged", "fragment merged into a reassembled datagram")

/** At exit, and in the NIC: X(NAME, "id", "text"). */
#define GUFC_END_DROPS(X) \
	X(APP_UNCONSUMED, "app_unconsumed", \
		"left in an app channel its consumer did not drain by exit") \
	X(HW_DROP, "hw_drop", "dropped by the NIC: a DROP rule offloaded (counted into rx too)")

/** The registry, in print order. */
#define GUFC_DROPS(X) \
	RULE_DROP_REASONS(X) \
	DP_DROP_REASONS(X) \
	MOD_NEIGH_DROP_REASONS(X) \
	GUFC_FRAG_DROPS(X) \
	CHAN_DROP_REASONS(X) \
	GUFC_END_DROPS(X)

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

/** Stable id ("filter", "parse_err_trunc_tcp"); NULL for an unused slot. */
const char *gufc_drop_id(unsigned int d);
/** One line of text. */
const char *gufc_drop_text(unsigned int d);

#endif /* GUFC_DROPS_H */
