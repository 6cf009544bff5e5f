/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath: the fast path's per-packet predicate (engine_strpred.h) —
 * a cached entry whose program names a "-m string", "-m u32" or "-m bpf" predicate:
 * search or test the packet's IP datagram as its tree asks, take the outcome's verdict and
 * program, and count an outcome but 0 on the predicate, as the slow path
 * does for the packets it decides from the entry.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "dp_pktact.h"
#include "dp_priv.h"

bool
dp_pred_take(const struct dp_ctx *c, struct rte_mbuf *m, const struct fc_pkt *pkt,
	const struct fc_action *a, const struct rule_pktprog **p, uint8_t *verdict,
	unsigned int *list)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)c->eng;
	const struct rule_pred *t = &v->preds[(*p)->pred - 1];
	uint32_t data = rte_pktmbuf_data_len(m), len, cap;
	const struct rule_pred_leaf *lf;
	const uint8_t *l3, *vl3;
	uint8_t view[RULE_L3VIEW_MAX];
	unsigned int leaf;

	if (unlikely(pkt->l3_off >= data))
		return false;
	cap = data - pkt->l3_off;
	len = pkt->ip_len != 0 ? pkt->ip_len : cap;
	/*
	 * A chained mbuf whose datagram goes past its first segment where the
	 * tree may read (a search's window, any u32 or bpf read): one segment
	 * first, or the slow path's when it does not fit.
	 */
	if (len > cap) {
		bool far = false;

		if (m->nb_segs > 1)
			for (unsigned int i = 0; i < t->n_nodes && !far; i++)
				far = (t->node[i].str & RULE_PRED_KIND) ||
				      v->strs[t->node[i].str & RULE_PRED_INDEX].to > cap;
		if (far) {
			if (rte_pktmbuf_linearize(m) != 0)
				return false;
			data = rte_pktmbuf_data_len(m);
			cap = data - pkt->l3_off;
		}
		if (len > cap)
			len = cap;
	}
	l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, pkt->l3_off);
	vl3 = l3;
	/*
	 * Nodes of the hooks after PREROUTING read the header as Linux has it
	 * there: a router's forwarded packet's TTL one less, a translated
	 * destination written in (eng_l3_view() on the slow path). A datagram
	 * longer than a view holds is the slow path's.
	 */
	if (t->views) {
		bool routed = c->router && a->out_port != RULE_PORT_LOCAL &&
			      !(fc_key_flags(&pkt->key) & FC_KEY_F_SRC_LOCAL);
		bool nat = (a->flags & FC_ACT_F_NAT) != 0;

		if (routed || nat) {
			if (len > sizeof(view) || len < (pkt->key.family == FC_AF_INET4 ? 20u : 40u))
				return false;
			memcpy(view, l3, len);
			if (nat)
				dp_dnat_view(c, view, len, pkt, a->nat_id);
			if (routed)
				rule_engine_view_ttl_dec(view, len, pkt->key.family == FC_AF_INET4);
			vl3 = view;
		}
	}
	lf = rule_engine_pred_leaf(c->eng, (*p)->pred, l3, len, vl3, len, &leaf);
	if (leaf != 0)
		rule_engine_pred_count(c->eng, (*p)->pred, leaf, pkt->ip_len);
	*verdict = lf->verdict;
	*p = lf->prog != 0 ? rule_engine_pktprog(c->eng, lf->prog) : NULL;
	*list = 0;
	return true;
}
