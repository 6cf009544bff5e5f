/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: "-m string" on the fast path (engine_strpred.h) — the
 * searches interned for the RX lcores, the walks' provider answer for a
 * string match (a packet's walk searches its bytes; the two walks that
 * decide a cached entry ask "found" and "not found"), the entry's program
 * made from those two walks, and the count of a slow-path packet's list.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "engine_priv.h"

int
eng_strs_init(struct rule_engine *eng)
{
	eng->view.strs = rte_zmalloc_socket("eng_strs",
		sizeof(*eng->view.strs) * RULE_STRPREDS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.pred_ctr = rte_zmalloc_socket("eng_pred_ctr",
		sizeof(*eng->view.pred_ctr) * RULE_PKTPROGS_MAX, RTE_CACHE_LINE_SIZE,
		eng->p.socket_id);
	if (eng->view.strs == NULL || eng->view.pred_ctr == NULL)
		return -ENOMEM;
	return 0;
}

void
eng_strs_fini(struct rule_engine *eng)
{
	rte_free(eng->view.strs);
	rte_free(eng->view.pred_ctr);
}

/* With the programs (eng_pktact_reset()): rule ids numbered anew, counters start over. */
void
eng_strs_reset(struct rule_engine *eng)
{
	eng->n_strs = 0;
	for (unsigned int i = 0; i < RULE_PKTPROGS_MAX; i++) {
		__atomic_store_n(&eng->view.pred_ctr[i].packets, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&eng->view.pred_ctr[i].bytes, 0, __ATOMIC_RELAXED);
	}
}

/* The id of the search of @p x, interned. @return it, or -ENOSPC. */
static int
str_intern(struct rule_engine *eng, const struct rule_x *x)
{
	struct rule_strpred sp;

	rule_strpred_init(&sp, &x->u.str, (x->given >> 5) & 1); /* --icase */
	for (uint32_t i = 0; i < eng->n_strs; i++)
		if (memcmp(&eng->view.strs[i], &sp, sizeof(sp)) == 0)
			return (int)i;
	if (eng->n_strs == RULE_STRPREDS_MAX)
		return -ENOSPC;
	/* Readers find it through a program an entry names (released with the entry). */
	eng->view.strs[eng->n_strs] = sp;
	return (int)eng->n_strs++;
}

int
eng_str_match(struct eng_pv *pv, const struct rule *r, unsigned int xi)
{
	const struct rule_x *x = &r->xm[xi];
	int id = str_intern(pv->eng, x);

	if (id < 0) {
		pv->other = 1; /* no room: decided per packet */
		return -ENOTSUP;
	}
	if (pv->n_str == 0 || pv->str != (uint16_t)id)
		pv->n_str = (uint8_t)(pv->n_str < UINT8_MAX ? pv->n_str + 1 : UINT8_MAX);
	pv->str = (uint16_t)id;
	if (pv->mode == ENG_PV_TAKE || pv->str_found < 0)
		return -ENOTSUP; /* the evaluator searches the packet's bytes */
	return (pv->str_found ? 1 : 0) ^ (x->neg & 1);
}

int
eng_str_decide(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, struct fc_action *a, unsigned int ctstate, uint32_t ctmark,
	uint16_t str, uint32_t *trace)
{
	struct rule_eval ev[2][RULE_STAGE__COUNT];
	struct rule_pktop ops[2][RULE_PKTOPS_MAX];
	struct rule_pktprog p;
	unsigned int d[2], l0;
	uint32_t rule[2], tr[2];
	uint8_t v[2], n[2];
	int prog;

	for (unsigned int i = 0; i < 2; i++) {
		struct eng_marks mk = {.ctmark = ctmark};
		struct eng_pv pv;
		uint32_t deps;
		int rc;

		eng_pv_init(&pv, eng, ENG_PV_CONFORM);
		pv.str_found = (int8_t)(i == 0); /* [0] found, [1] not found */
		rc = eng_pkt_verdict(eng, up, k, fk, a, ctstate, ev[i], &d[i], &deps, &mk, &pv);
		if (rc < 0)
			return rc;
		/* The other answer may lead the walk to another search or a meter. */
		if (ENG_DEPS_PER_PACKET(deps) & ~RULE_DEP_PAYLOAD || pv.other || pv.n_meter != 0 ||
			pv.n_str > 1 || (pv.n_str == 1 && pv.str != str))
			return -ENOTSUP;
		v[i] = ev[i][d[i]].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT
								  : FC_VERDICT_DROP;
		rule[i] = eng_dec_id(&ev[i][d[i]], k->family);
		tr[i] = eng_trace_of_walk(eng, ev[i], d[i], k->family);
		eng_walk_ops(eng, ev[i], eng_walked(ev[i], d[i]), ops[i], &n[i]);
	}
	if (v[0] == v[1] && rule[0] == rule[1] && tr[0] == tr[1] && n[0] == n[1] &&
		memcmp(ops[0], ops[1], n[0] * sizeof(ops[0][0])) == 0)
		return 0;
	/* List 0 is the outcome that accepts, where one does (the entry's own verdict). */
	l0 = v[0] == FC_VERDICT_DROP && v[1] == FC_VERDICT_ACCEPT ? 1 : 0;
	memset(&p, 0, sizeof(p));
	p.pred = (uint16_t)(str + 1);
	p.pred_list = (uint8_t)l0; /* the list "found" picks */
	p.flip = v[0] != v[1];
	for (unsigned int l = 0; l < 2; l++) {
		unsigned int o = l ^ l0; /* the outcome of list l */

		p.n[l] = n[o];
		memcpy(p.op[l], ops[o], n[o] * sizeof(ops[o][0]));
		p.pred_rule[l] = rule[o];
		p.pred_trace[l] = tr[o];
		for (unsigned int i = 0; i < n[o]; i++) {
			if (ops[o][i].kind >= RULE_PKTOP_TOS)
				p.rewrite |= (uint8_t)(1u << l);
			if (ops[o][i].late)
				p.late |= (uint8_t)(1u << l);
		}
	}
	prog = eng_prog_intern(eng, &p);
	if (prog < 0)
		return prog;
	a->verdict = v[l0];
	a->rule_id = rule[l0];
	eng_act_prog(a, prog);
	*trace = tr[l0];
	return 1;
}

void
eng_pred_count(struct rule_engine *eng, const struct fc_action *a, unsigned int list,
	uint32_t bytes)
{
	if (list != 1 || !(a->flags & FC_ACT_F_PKTACT) || a->pkt_class == 0 ||
		rule_engine_pktprog(eng, a->pkt_class)->pred == 0)
		return;
	rule_engine_pred_count(eng, a->pkt_class, bytes);
}
