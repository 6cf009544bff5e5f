/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: "-m string", "-m u32" and "-m bpf" on the fast path
 * (engine_strpred.h) — the searches, the u32 tests, the bpf programs and
 * the predicates (decision trees of searches) interned for
 * the RX lcores, the walks' provider answer for a string match (a
 * packet's walk searches its bytes; the walks that build a predicate are
 * given the answers), and the predicate built from those walks for an
 * entry.
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
	eng->view.preds = rte_zmalloc_socket("eng_preds",
		sizeof(*eng->view.preds) * RULE_PREDS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.pred_ctr = rte_zmalloc_socket("eng_pred_ctr",
		sizeof(*eng->view.pred_ctr) * RULE_PREDS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.u32s = rte_zmalloc_socket("eng_u32s",
		sizeof(*eng->view.u32s) * RULE_U32PREDS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.bpfs = rte_zmalloc_socket("eng_bpfs",
		sizeof(*eng->view.bpfs) * RULE_BPFPREDS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->l3view = rte_malloc_socket("eng_l3view", RULE_L3VIEW_MAX, RTE_CACHE_LINE_SIZE,
		eng->p.socket_id);
	if (eng->view.strs == NULL || eng->view.preds == NULL || eng->view.pred_ctr == NULL ||
		eng->view.u32s == NULL || eng->view.bpfs == NULL || eng->l3view == NULL)
		return -ENOMEM;
	return 0;
}

void
eng_strs_fini(struct rule_engine *eng)
{
	rte_free(eng->view.strs);
	rte_free(eng->view.preds);
	rte_free(eng->view.pred_ctr);
	rte_free(eng->view.u32s);
	rte_free(eng->view.bpfs);
	rte_free(eng->l3view);
}

/* With the programs (eng_pktact_reset()): rule ids numbered anew, counters start over. */
void
eng_strs_reset(struct rule_engine *eng)
{
	eng->n_strs = 0;
	eng->n_u32s = 0;
	eng->n_bpfs = 0;
	eng->n_preds = 0;
	for (unsigned int i = 0; i < RULE_PREDS_MAX; i++)
		for (unsigned int l = 0; l < RULE_PRED_LEAVES; l++) {
			__atomic_store_n(&eng->view.pred_ctr[i].packets[l], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&eng->view.pred_ctr[i].bytes[l], 0, __ATOMIC_RELAXED);
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
	/* Readers find it through a predicate an entry names (released with the entry). */
	eng->view.strs[eng->n_strs] = sp;
	return (int)eng->n_strs++;
}

/* The id of the u32 tests of @p x (RULE_PRED_U32 | index), interned. @return it, or -errno. */
static int
u32_intern(struct rule_engine *eng, const struct rule_x *x)
{
	struct rule_u32_prog u;

	if (rule_u32_decode(&x->u.u32, &u) < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < eng->n_u32s; i++)
		if (memcmp(&eng->view.u32s[i], &u, sizeof(u)) == 0)
			return (int)(RULE_PRED_U32 | i);
	if (eng->n_u32s == RULE_U32PREDS_MAX)
		return -ENOSPC;
	/* Readers find it through a predicate an entry names (released with the entry). */
	eng->view.u32s[eng->n_u32s] = u;
	return (int)(RULE_PRED_U32 | eng->n_u32s++);
}

/* The id of the bpf program of @p x (RULE_PRED_BPF | index), interned. @return it, or -errno. */
static int
bpf_intern(struct rule_engine *eng, const struct rule_x *x)
{
	struct rule_bpf_prog b;

	if (rule_bpf_decode(&x->u.bpf, &b) < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < eng->n_bpfs; i++)
		if (memcmp(&eng->view.bpfs[i], &b, sizeof(b)) == 0)
			return (int)(RULE_PRED_BPF | i);
	if (eng->n_bpfs == RULE_BPFPREDS_MAX)
		return -ENOSPC;
	eng->view.bpfs[eng->n_bpfs] = b;
	return (int)(RULE_PRED_BPF | eng->n_bpfs++);
}

/* The id of predicate @p t, interned. @return it, or -ENOSPC. */
static int
pred_intern(struct rule_engine *eng, const struct rule_pred *t)
{
	for (uint32_t i = 0; i < eng->n_preds; i++)
		if (memcmp(&eng->view.preds[i], t, sizeof(*t)) == 0)
			return (int)i;
	if (eng->n_preds == RULE_PREDS_MAX)
		return -ENOSPC;
	eng->view.preds[eng->n_preds] = *t;
	return (int)eng->n_preds++;
}

int
eng_str_match(struct eng_pv *pv, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	const struct rule_x *x = &r->xm[xi];
	int id = x->kind == RULE_XM_U32	  ? u32_intern(pv->eng, x)
		 : x->kind == RULE_XM_BPF ? bpf_intern(pv->eng, x)
					  : str_intern(pv->eng, x);

	if (id < 0) {
		pv->other = 1; /* no room: decided per packet */
		return -ENOTSUP;
	}
	/* Read in the header view: another question than the bytes as received. */
	if (p != NULL && (p->flags & RULE_PKT_F_L3VIEW))
		id |= RULE_PRED_VIEW;
	if (pv->n_str == 0 || pv->str != (uint16_t)id)
		pv->n_str = (uint8_t)(pv->n_str < UINT8_MAX ? pv->n_str + 1 : UINT8_MAX);
	pv->str = (uint16_t)id;
	if (pv->mode == ENG_PV_TAKE || !pv->asking)
		return -ENOTSUP; /* the evaluator searches the packet's bytes */
	for (unsigned int i = 0; i < pv->n_ans; i++)
		if (pv->ans_str[i] == (uint16_t)id)
			return (pv->ans_val[i] ? 1 : 0) ^ (x->neg & 1);
	/* Not asked yet: the tree asks it next (this walk's answer is not kept). */
	if (pv->unknown < 0)
		pv->unknown = id;
	return x->neg & 1;
}

/* Building a predicate: the walk's context and the tree so far. */
struct tree_ctx {
	struct rule_engine *eng;
	const struct rule_upcall *up;
	const struct fc_key *k, *fk;
	const struct fc_action *a;
	unsigned int ctstate;
	uint32_t ctmark;
	uint32_t pcd; /* the header fields of a class the walks read (ENG_PC_DEPS) */
	struct rule_pred t;
};

/*
 * The subtree under the answers @p ans_str/@p ans_val[0..n): walk with
 * them; a search the walk reaches unanswered becomes a node with a subtree
 * per answer, a walk that reaches none a leaf. @return 0 (@p ref: the
 * child), -ENOTSUP, -errno.
 */
static int
subtree(struct tree_ctx *c, uint16_t *ans_str, uint8_t *ans_val, unsigned int n, uint8_t *ref)
{
	struct rule_eval ev[RULE_STAGE__COUNT];
	struct eng_marks mk = {.ctmark = c->ctmark};
	struct rule_pred_leaf *lf;
	struct eng_pv pv;
	unsigned int d;
	uint32_t deps;
	int rc, prog;

	eng_pv_init(&pv, c->eng, ENG_PV_CONFORM);
	pv.asking = true;
	pv.n_ans = (uint8_t)n;
	memcpy(pv.ans_str, ans_str, n * sizeof(ans_str[0]));
	memcpy(pv.ans_val, ans_val, n * sizeof(ans_val[0]));
	rc = eng_pkt_verdict(c->eng, c->up, c->k, c->fk, c->a, c->ctstate, ev, &d, &deps, &mk, &pv);
	if (rc < 0)
		return rc;
	/* Header fields of a class: the entry is classed over every walk's (the caller). */
	if (ENG_DEPS_PER_PACKET(deps) & ~(RULE_DEP_PAYLOAD | ENG_PC_DEPS) || pv.other ||
		pv.n_meter != 0)
		return -ENOTSUP;
	c->pcd |= deps & ENG_PC_DEPS;
	if (pv.unknown >= 0) {
		unsigned int node = c->t.n_nodes;

		if (node == RULE_PRED_LEAVES - 1 || n == RULE_PRED_LEAVES - 1)
			return -ENOTSUP;
		c->t.n_nodes++;
		c->t.node[node].str = (uint16_t)pv.unknown;
		if (pv.unknown & RULE_PRED_VIEW)
			c->t.views = 1;
		ans_str[n] = (uint16_t)pv.unknown;
		for (unsigned int v = 0; v < 2; v++) {
			ans_val[n] = (uint8_t)v;
			rc = subtree(c, ans_str, ans_val, n + 1, &c->t.node[node].kid[v]);
			if (rc < 0)
				return rc;
		}
		*ref = (uint8_t)node;
		return 0;
	}
	if (c->t.n_leaves == RULE_PRED_LEAVES)
		return -ENOTSUP;
	prog = eng_prog_of_walk(c->eng, ev, eng_walked(ev, d));
	if (prog < 0)
		return prog;
	lf = &c->t.leaf[c->t.n_leaves];
	lf->verdict = ev[d].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	lf->rule = eng_dec_id(&ev[d], c->k->family);
	lf->trace = eng_trace_of_walk(c->eng, ev, d, c->k->family);
	lf->prog = (uint16_t)prog;
	*ref = (uint8_t)(RULE_PRED_LEAF | c->t.n_leaves++);
	return 0;
}

/* Make leaf @p l leaf 0 (the entry's own outcome). */
static void
leaf_first(struct rule_pred *t, unsigned int l)
{
	struct rule_pred_leaf tmp = t->leaf[0];

	if (l == 0)
		return;
	t->leaf[0] = t->leaf[l];
	t->leaf[l] = tmp;
	for (unsigned int i = 0; i < t->n_nodes; i++)
		for (unsigned int v = 0; v < 2; v++) {
			if (t->node[i].kid[v] == (RULE_PRED_LEAF | l))
				t->node[i].kid[v] = RULE_PRED_LEAF;
			else if (t->node[i].kid[v] == RULE_PRED_LEAF)
				t->node[i].kid[v] = (uint8_t)(RULE_PRED_LEAF | l);
		}
}

int
eng_str_decide(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, struct fc_action *a, unsigned int ctstate, uint32_t ctmark,
	uint32_t *trace, uint32_t *pc_deps)
{
	struct tree_ctx c = {.eng = eng, .up = up, .k = k, .fk = fk, .a = a, .ctstate = ctstate,
		.ctmark = ctmark};
	uint16_t ans_str[RULE_PRED_LEAVES];
	uint8_t ans_val[RULE_PRED_LEAVES], root;
	struct rule_pktprog p;
	bool same = true;
	int rc, id, prog;

	memset(&c.t, 0, sizeof(c.t));
	rc = subtree(&c, ans_str, ans_val, 0, &root);
	if (rc < 0)
		return rc;
	*pc_deps = c.pcd;
	if (c.t.n_nodes == 0)
		return 0; /* no search reached after all */
	for (unsigned int l = 1; l < c.t.n_leaves; l++)
		same &= memcmp(&c.t.leaf[l], &c.t.leaf[0], sizeof(c.t.leaf[0])) == 0;
	if (same)
		return 0;
	/* Outcome 0 accepts where one does: the entry's verdict (a new flow's drop caches nothing). */
	for (unsigned int l = 0; l < c.t.n_leaves; l++)
		if (c.t.leaf[l].verdict == FC_VERDICT_ACCEPT) {
			leaf_first(&c.t, l);
			break;
		}
	id = pred_intern(eng, &c.t);
	if (id < 0)
		return -ENOTSUP;
	memset(&p, 0, sizeof(p));
	p.pred = (uint16_t)(id + 1);
	prog = eng_prog_intern(eng, &p);
	if (prog < 0)
		return prog;
	a->verdict = c.t.leaf[0].verdict;
	a->rule_id = c.t.leaf[0].rule;
	eng_act_prog(a, prog);
	*trace = c.t.leaf[0].trace;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* The header view                                                           */
/* ------------------------------------------------------------------------ */

/* A router's forwarded packet (the filter's key @p fk has neither local bit). */
static bool
view_routed(const struct rule_engine *eng, const struct fc_key *fk)
{
	return eng->router && !(fc_key_flags(fk) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL));
}

/* A translated destination: @p fk's address or port is not @p k's. */
static bool
view_dnat(const struct fc_key *k, const struct fc_key *fk)
{
	return memcmp(fc_key_dst(k), fc_key_dst(fk), fc_af_addr_len(k->family)) != 0 ||
	       fc_key_dport(k) != fc_key_dport(fk);
}

bool
eng_l3_view_needed(const struct rule_engine *eng, const struct fc_key *k, const struct fc_key *fk)
{
	return view_routed(eng, fk) || view_dnat(k, fk);
}

const uint8_t *
eng_l3_view(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, uint32_t *len)
{
	bool v4 = k->family == FC_AF_INET4;
	bool routed = view_routed(eng, fk), dnat = view_dnat(k, fk);
	uint8_t *b = eng->l3view;
	uint32_t cap, l4;

	if ((!routed && !dnat) || up == NULL || up->frame == NULL ||
		up->pkt.l3_off >= up->frame_len)
		return NULL;
	cap = up->frame_len - up->pkt.l3_off;
	if (up->pkt.ip_len != 0 && up->pkt.ip_len < cap)
		cap = up->pkt.ip_len;
	if (cap > RULE_L3VIEW_MAX || cap < (v4 ? 20u : 40u))
		return NULL;
	memcpy(b, up->frame + up->pkt.l3_off, cap);
	l4 = up->pkt.frag != FC_FRAG_LATER && up->pkt.l4_off > up->pkt.l3_off
		     ? up->pkt.l4_off - up->pkt.l3_off
		     : 0;
	if (routed)
		rule_engine_view_ttl_dec(b, cap, v4);
	if (dnat)
		rule_engine_view_dst(b, cap, v4, l4, fc_key_proto(k), fc_key_dst(fk),
			fc_key_dport(k) != fc_key_dport(fk), fc_key_dport(fk));
	*len = cap;
	return b;
}
