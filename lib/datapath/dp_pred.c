/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: the fast path's per-packet predicate (engine_strpred.h) —
 * a cached entry whose program names a "-m string" search: search the
 * packet's IP datagram, take the list (and verdict) the answer picks, and
 * count a packet of list 1 on the program, as the slow path does for the
 * packets it decides from the entry.
 */
#include <rte_mbuf.h>

#include "dp_pktact.h"
#include "dp_priv.h"

bool
dp_pred_take(const struct dp_ctx *c, const struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct fc_action *a, const struct rule_pktprog *p, uint8_t *verdict,
	unsigned int *list)
{
	const struct rule_strpred *sp = rule_engine_strpred(c->eng, p->pred);
	uint32_t data = rte_pktmbuf_data_len(m), len, cap;

	if (unlikely(pkt->l3_off >= data))
		return false;
	cap = data - pkt->l3_off;
	len = pkt->ip_len != 0 ? pkt->ip_len : cap;
	/* The search's window past the first segment of a chained mbuf: the slow path's. */
	if (len > cap) {
		if (m->nb_segs > 1 && sp->to > cap)
			return false;
		len = cap;
	}
	*verdict = rule_engine_pktprog_take(c->eng, a, p, 0,
		rte_pktmbuf_mtod_offset(m, const uint8_t *, pkt->l3_off), len, list);
	if (*list == 1)
		rule_engine_pred_count(c->eng, a->pkt_class, pkt->ip_len);
	return true;
}
