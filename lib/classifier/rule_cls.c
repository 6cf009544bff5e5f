/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: the compiled classifier's evaluator — the slow path's way to
 * the decisions of a new flow, stage by stage (rule_eval.h), with exactly
 * the results of the reference evaluator (rule_ref.c) at trie-walk cost.
 * rule_cls_build.c compiles the set; rule_cls_priv.h has the layout.
 *
 * Per burst and step (a table at a hook): turn packet contexts into
 * rte_acl inputs, pick each key's program from its table, hook and family,
 * search a program's banks for all its keys at once (one rte_acl_classify()
 * call per bank), then walk each key's segments: entries checked after a
 * hit (relaxed, extension matches) are checked here, actions run on the
 * packet context (rule_apply(), shared with the reference evaluator), and
 * each table's decision is merged the reference evaluator's way
 * (rule_eval_merge()).
 */
#include <errno.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#include "rule_cls_priv.h"

/* A packet's ctstate: IGNORE, or one state at most (0: untracked) with SNAT and DNAT. */
static bool
ct_valid(unsigned int ct)
{
	unsigned int st = ct & RULE_CT_STATES;

	return ct == RULE_CT_IGNORE || ((ct & ~RULE_CT_ALL) == 0 && (st & (st - 1)) == 0);
}

/** The rte_acl input of a packet context. */
static void
pkt_input(const struct rule_pkt *pk, union cls_in *in)
{
	const struct fc_key *k = &pk->key;
	uint8_t meta, lf = fc_key_flags(k), ct = pk->ctstate;

	if (ct == RULE_CT_IGNORE)
		meta = 0;
	else
		meta = (ct & RULE_CT_STATES) == 0 ? CLS_META_UNTRACKED : (ct & RULE_CT_STATES);
	/* The source is this host's address: its own packet, or one forged from outside. */
	if (lf & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED))
		meta |= CLS_META_SRC_LOCAL;
	if (lf & FC_KEY_F_DST_LOCAL)
		meta |= CLS_META_DST_LOCAL;
	if (pk->flags & RULE_PKT_F_NOPORTS)
		meta |= CLS_META_NOPORTS;
	if (k->family == FC_AF_INET4) {
		struct cls_in4 *x = &in->v4;

		memset(x, 0, sizeof(*x));
		x->proto = k->v4.proto;
		x->src = k->v4.src;
		x->dst = k->v4.dst;
		x->sport = k->v4.sport;
		x->dport = k->v4.dport;
		x->inp = rte_cpu_to_be_16(pk->in_port);
		x->outp = rte_cpu_to_be_16(pk->out_port);
		x->meta = meta;
	} else {
		struct cls_in6 *x = &in->v6;

		memset(x, 0, sizeof(*x));
		x->proto = k->v6.proto;
		memcpy(x->src, k->v6.src, sizeof(x->src));
		memcpy(x->dst, k->v6.dst, sizeof(x->dst));
		x->sport = k->v6.sport;
		x->dport = k->v6.dport;
		x->inp = rte_cpu_to_be_16(pk->in_port);
		x->outp = rte_cpu_to_be_16(pk->out_port);
		x->meta = meta;
	}
}

static bool
in_ranges(const struct cls_rng *r, uint32_t n, uint16_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (v >= r[i].lo && v <= r[i].hi)
			return true;
	return false;
}

static bool
in_prefixes(const struct cls_pfx *p, uint32_t n, const uint8_t *addr)
{
	for (uint32_t i = 0; i < n; i++) {
		unsigned int full = p[i].len / 8, rest = p[i].len % 8;

		if (memcmp(addr, p[i].a, full) != 0)
			continue;
		if (rest == 0 || ((addr[full] ^ p[i].a[full]) & (uint8_t)(0xff00 >> rest)) == 0)
			return true;
	}
	return false;
}

bool
rule_cls_term_match(const struct cls_prog *p, const struct cls_rterm *t, const union cls_in *in)
{
	const struct cls_rng *r = p->rng + t->rng;
	const struct cls_pfx *a = p->pfx + t->pfx;
	const uint8_t *src, *dst;
	uint16_t sport, dport, inp, outp;
	uint8_t meta, proto;

	if (p->fam == CLS_F4) {
		meta = in->v4.meta;
		proto = in->v4.proto;
		sport = rte_be_to_cpu_16(in->v4.sport);
		dport = rte_be_to_cpu_16(in->v4.dport);
		inp = rte_be_to_cpu_16(in->v4.inp);
		outp = rte_be_to_cpu_16(in->v4.outp);
		src = (const uint8_t *)&in->v4.src;
		dst = (const uint8_t *)&in->v4.dst;
	} else {
		meta = in->v6.meta;
		proto = in->v6.proto;
		sport = rte_be_to_cpu_16(in->v6.sport);
		dport = rte_be_to_cpu_16(in->v6.dport);
		inp = rte_be_to_cpu_16(in->v6.inp);
		outp = rte_be_to_cpu_16(in->v6.outp);
		src = in->v6.src;
		dst = in->v6.dst;
	}
	if ((meta & t->meta_mask) != t->meta_val)
		return false;
	if (!in_ranges(r, t->n_proto, proto))
		return false;
	r += t->n_proto;
	if (!in_ranges(r, t->n_sport, sport))
		return false;
	r += t->n_sport;
	if (!in_ranges(r, t->n_dport, dport))
		return false;
	r += t->n_dport;
	if (!in_ranges(r, t->n_inp, inp))
		return false;
	r += t->n_inp;
	if (!in_ranges(r, t->n_outp, outp))
		return false;
	return in_prefixes(a, t->n_src, src) && in_prefixes(a + t->n_src, t->n_dst, dst);
}

/**
 * For @p m keys, the first entry (index + 1, 0 for none) of each segment of
 * bank @p bk that the key matches: bk->n_cat results per key into @p res.
 */
static void
bank_search(const struct cls_prog *p, const struct cls_bank *bk, const union cls_in *const in[],
	uint32_t m, uint32_t *res)
{
	uint32_t tmp[CLS_BURST * RTE_ACL_MAX_CATEGORIES];

	if (bk->n_ctx == 0) {
		/* A handful of entries: cheaper than a trie walk. */
		for (uint32_t k = 0; k < m; k++) {
			uint32_t *r = res + k * bk->n_cat;

			memset(r, 0, sizeof(*r) * bk->n_cat);
			for (uint32_t i = bk->first; i < bk->first + bk->n; i++) {
				const struct cls_entry *e = &p->entries[i];
				uint32_t cat = e->seg - bk->seg_first;

				if (r[cat] == 0 &&
					rule_cls_term_match(p, &p->terms[e->term], in[k]))
					r[cat] = i + 1;
			}
		}
		return;
	}
	/* rte_acl_classify() takes a non-const array it does not write. */
	rte_acl_classify(bk->ctx[0], (const uint8_t **)(uintptr_t)in, res, m, bk->n_cat);
	for (uint32_t c = 1; c < bk->n_ctx; c++) {
		/* A bank split over contexts: the lowest entry wins. */
		rte_acl_classify(bk->ctx[c], (const uint8_t **)(uintptr_t)in, tmp, m, bk->n_cat);
		for (uint32_t i = 0; i < m * bk->n_cat; i++)
			if (tmp[i] != 0 && (res[i] == 0 || tmp[i] < res[i]))
				res[i] = tmp[i];
	}
}

/** What the keys of one program walk with. */
struct walk {
	const struct rule_cls *c;
	const struct rule_providers *pv;
	uint8_t table;
	const uint8_t *hook;       /**< per key */
	struct rule_pkt *const *pk; /**< per key */
	struct rule_eval *const *res; /**< per key */
	union cls_in *const *in;  /**< per key */
	uint32_t *dec;            /**< per key: deciding entry or CLS_END */
	int *err;                 /**< per key: 0 or a provider's error */
};

/*
 * Walk key @k within bank @bk from segment @s, its search results at @r:
 * checks, actions, resumes. @return the segment it goes on with
 * (UINT32_MAX: decided, or failed).
 */
static uint32_t
bank_walk(const struct walk *w, const struct cls_prog *p, const struct cls_bank *bk, uint32_t k,
	uint32_t s, uint32_t *r)
{
	uint32_t last = bk->seg_first + bk->n_seg;

	while (s >= bk->seg_first && s < last) {
		const struct cls_entry *e;
		uint32_t u = r[s - bk->seg_first];
		int rc;

		if (u == 0) {
			s++;
			continue;
		}
		e = &p->entries[u - 1];
		if (e->check && !rule_cls_term_match(p, &p->terms[e->term], w->in[k])) {
			/* A relaxed entry that did not really match: it ends its segment. */
			s = e->seg + 1;
			continue;
		}
		if (e->ext) {
			rc = rule_match_ext(w->c->sets, &w->c->ifn, &w->c->rules[e->rule],
				w->pk[k], w->pv, &w->res[k]->deps);
			if (rc < 0) {
				w->err[k] = rc;
				return UINT32_MAX;
			}
			if (rc == 0) {
				s = e->kind == CLS_K_GUARD ? e->arg : e->seg + 1;
				continue;
			}
		}
		switch (e->kind) {
		case CLS_K_RESUME:
			if (e->note != RULE_ID_NONE)
				rule_eval_note(w->res[k], e->note, p->table);
			s = e->arg;
			continue;
		case CLS_K_GUARD:
			rule_eval_note(w->res[k], e->note, p->table);
			s = e->seg + 1;
			continue;
		case CLS_K_ACT:
			if (w->c->rules[e->rule].action == RULE_ACT_SET && w->pv != NULL &&
				w->pv->act != NULL)
				w->pv->act(w->pv->arg, &w->c->rules[e->rule], w->pk[k]);
			if (rule_apply(&w->c->rules[e->rule], p->table, w->hook[k], w->pk[k],
				    w->res[k]) != 0) {
				w->dec[k] = u - 1;
				return UINT32_MAX;
			}
			s = e->seg + 1;
			if (e->dirty && s < last) {
				/* The action changed what the trie reads: search again. */
				const union cls_in *one[1] = {w->in[k]};

				pkt_input(w->pk[k], w->in[k]);
				bank_search(p, bk, one, 1, r);
			}
			continue;
		default:
			w->dec[k] = u - 1;
			return UINT32_MAX;
		}
	}
	return s;
}

/**
 * Evaluate program @p p for the @p m keys @p idx of @p w: w->dec[k]
 * receives the deciding entry, or CLS_END (the base chain's policy).
 * Banks are searched in order, each for all the keys whose walk has
 * reached it: segment numbers only grow.
 */
static void
prog_eval(const struct walk *w, const struct cls_prog *p, const uint32_t idx[], uint32_t m)
{
	uint32_t res[CLS_BURST * RTE_ACL_MAX_CATEGORIES];
	const union cls_in *bin[CLS_BURST];
	uint32_t seg[CLS_BURST], bk_of[CLS_BURST];

	for (uint32_t j = 0; j < m; j++) {
		seg[j] = 0;
		w->dec[idx[j]] = CLS_END;
	}
	for (uint32_t b = 0; b < p->n_banks; b++) {
		const struct cls_bank *bk = &p->banks[b];
		uint32_t last = bk->seg_first + bk->n_seg, nb = 0;

		for (uint32_t j = 0; j < m; j++) {
			if (seg[j] < bk->seg_first || seg[j] >= last)
				continue;
			bk_of[nb] = j;
			bin[nb] = w->in[idx[j]];
			nb++;
		}
		if (nb == 0)
			continue;
		bank_search(p, bk, bin, nb, res);
		for (uint32_t q = 0; q < nb; q++) {
			uint32_t j = bk_of[q];

			seg[j] = bank_walk(w, p, bk, idx[j], seg[j], res + q * bk->n_cat);
		}
	}
}

/* Evaluate each key i with prog[i] != NULL; keys sharing a program go together. */
static void
eval_burst(const struct walk *w, const struct cls_prog *const prog[], uint32_t n)
{
	uint32_t idx[CLS_BURST];
	bool done[CLS_BURST];

	for (uint32_t i = 0; i < n; i++) {
		done[i] = prog[i] == NULL;
		w->dec[i] = CLS_END;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cls_prog *p = prog[i];
		uint32_t m = 0;

		if (done[i])
			continue;
		for (uint32_t j = i; j < n; j++) {
			if (done[j] || prog[j] != p)
				continue;
			done[j] = true;
			idx[m++] = j;
		}
		prog_eval(w, p, idx, m);
	}
}

static unsigned int
fam_of(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? CLS_F4 : CLS_F6;
}

/*
 * Run key i's steps[i][0 .. nsteps[i]) for @n keys (at most CLS_BURST),
 * merging each table's decision into res[i] as the reference evaluator
 * does. @return 0, or a provider's error.
 */
static int
run_steps(const struct rule_cls *c, unsigned int primary, struct rule_pkt *const pk[], uint32_t n,
	const struct rule_step (*steps)[RULE_STEPS_MAX], const int nsteps[],
	const struct rule_providers *pv, struct rule_eval *const res[])
{
	const struct cls_prog *prog[CLS_BURST];
	union cls_in in_v[CLS_BURST], *in[CLS_BURST];
	uint8_t hook[CLS_BURST];
	uint16_t ports[CLS_BURST][2];
	uint32_t dec[CLS_BURST];
	int err[CLS_BURST];
	bool stop[CLS_BURST];
	struct walk w = {.c = c, .pv = pv, .hook = hook, .pk = pk, .res = res, .in = in,
		.dec = dec, .err = err};

	for (uint32_t i = 0; i < n; i++) {
		stop[i] = false;
		in[i] = &in_v[i];
		ports[i][0] = pk[i]->in_port;
		ports[i][1] = pk[i]->out_port;
	}
	for (int j = 0; j < RULE_STEPS_MAX; j++) {
		bool any = false, walks = false;

		for (uint32_t i = 0; i < n; i++) {
			const struct rule_step *st = &steps[i][j];

			prog[i] = NULL;
			err[i] = 0;
			if (stop[i] || j >= nsteps[i])
				continue;
			any = true;
			hook[i] = st->hook;
			prog[i] = c->hook[st->table][st->hook][fam_of(&pk[i]->key)];
			/* The ports it has at the hook: lo's for a local-to-local packet. */
			rule_pkt_lo_ports(pk[i], st->hook);
			if (prog[i] != NULL) {
				pkt_input(pk[i], in[i]);
				walks = true;
			}
		}
		if (!any)
			break;
		/* A step whose tables hold no rule (most, most often): its policy alone. */
		if (walks)
			eval_burst(&w, prog, n);
		for (uint32_t i = 0; i < n; i++) {
			pk[i]->in_port = ports[i][0];
			pk[i]->out_port = ports[i][1];
		}
		for (uint32_t i = 0; i < n; i++) {
			const struct rule_step *st = &steps[i][j];
			const struct rule_term *t = NULL;

			if (stop[i] || j >= nsteps[i])
				continue;
			if (err[i] != 0)
				return err[i];
			if (prog[i] != NULL && dec[i] != CLS_END)
				t = &c->results[prog[i]->entries[dec[i]].arg];
			if (rule_eval_merge(res[i], primary, st->table, st->hook, pk[i]->key.family,
				    prog[i] != NULL, t, prog[i] != NULL ? prog[i]->policy : 0) > 0)
				stop[i] = true;
		}
	}
	return 0;
}

static int
check_pkts(const struct rule_cls *c, struct rule_pkt *const pk[], unsigned int n, const void *res)
{
	if (c == NULL || (n > 0 && (pk == NULL || res == NULL)))
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (pk[i] == NULL || fc_af_index(pk[i]->key.family) < 0 || !ct_valid(pk[i]->ctstate))
			return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Stages                                                                    */
/* ------------------------------------------------------------------------ */

int
rule_cls_eval_bulk(const struct rule_cls *c, enum rule_stage stage, struct rule_pkt *const pk[],
	unsigned int n, const struct rule_providers *pv, struct rule_eval res[])
{
	struct rule_step steps[CLS_BURST][RULE_STEPS_MAX];
	struct rule_eval *rp[CLS_BURST];
	int nsteps[CLS_BURST];
	int rc = check_pkts(c, pk, n, res);

	if (rc < 0)
		return rc;
	if ((unsigned int)stage >= RULE_STAGE__COUNT)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i += CLS_BURST) {
		uint32_t m = RTE_MIN(n - i, (unsigned int)CLS_BURST);

		for (uint32_t j = 0; j < m; j++) {
			rule_eval_init(&res[i + j]);
			rp[j] = &res[i + j];
			nsteps[j] = rule_stage_steps(stage, fc_key_flags(&pk[i + j]->key),
				pk[i + j]->ctstate, steps[j]);
		}
		rc = run_steps(c, rule_stage_table(stage), pk + i, m, steps, nsteps, pv, rp);
		if (rc < 0)
			return rc;
	}
	return (int)n;
}

int
rule_cls_eval(const struct rule_cls *c, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res)
{
	int rc = rule_cls_eval_bulk(c, stage, &p, 1, pv, res);

	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------ */
/* The key-only interface                                                    */
/* ------------------------------------------------------------------------ */

static int
check_keys(const struct rule_cls *c, const struct fc_key *const keys[], const uint8_t ctstate[],
	unsigned int n, const void *res)
{
	if (c == NULL || (n > 0 && (keys == NULL || res == NULL)))
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (keys[i] == NULL ||
			(keys[i]->family != FC_AF_INET4 && keys[i]->family != FC_AF_INET6))
			return -EINVAL;
		if (ctstate != NULL && !ct_valid(ctstate[i]))
			return -EINVAL;
	}
	return 0;
}

/* One table (filter: OUTPUT then INPUT for local to local; nat: one hook) for keys. */
static int
keys_table(const struct rule_cls *c, unsigned int table, const struct fc_key *const keys[],
	const uint8_t ctstate[], const uint8_t kflags[], unsigned int n, enum rule_nat_stage stage,
	struct rule_eval ev[])
{
	struct rule_step steps[CLS_BURST][RULE_STEPS_MAX];
	struct rule_pkt pkv[CLS_BURST], *pk[CLS_BURST];
	struct rule_eval *rp[CLS_BURST];
	int nsteps[CLS_BURST];
	int rc;

	for (unsigned int i = 0; i < n; i += CLS_BURST) {
		uint32_t m = RTE_MIN(n - i, (unsigned int)CLS_BURST);

		for (uint32_t j = 0; j < m; j++) {
			const struct fc_key *k = keys[i + j];
			uint8_t lf = fc_key_flags(k);

			rule_pkt_init(&pkv[j], k, ctstate != NULL ? ctstate[i + j] : 0,
				kflags != NULL ? kflags[i + j] : 0);
			pk[j] = &pkv[j];
			rule_eval_init(&ev[i + j]);
			rp[j] = &ev[i + j];
			steps[j][0].table = (uint8_t)table;
			steps[j][1].table = (uint8_t)table;
			nsteps[j] = 1;
			if (table == RULE_TABLE_NAT) {
				if (stage == RULE_NAT_DST)
					steps[j][0].hook = (lf & FC_KEY_F_SRC_LOCAL) ? RULE_HOOK_OUTPUT
										    : RULE_HOOK_PREROUTING;
				else
					steps[j][0].hook = (lf & FC_KEY_F_DST_LOCAL) &&
								   !(lf & FC_KEY_F_SRC_LOCAL)
								   ? RULE_HOOK_INPUT
								   : RULE_HOOK_POSTROUTING;
			} else if (!(lf & FC_KEY_F_SRC_LOCAL)) {
				steps[j][0].hook = (lf & FC_KEY_F_DST_LOCAL) ? RULE_HOOK_INPUT
									     : RULE_HOOK_FORWARD;
			} else {
				steps[j][0].hook = RULE_HOOK_OUTPUT;
				steps[j][1].hook = RULE_HOOK_INPUT;
				nsteps[j] = (lf & FC_KEY_F_DST_LOCAL) ? 2 : 1;
			}
		}
		rc = run_steps(c, table, pk, m, steps, nsteps, NULL, rp);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
rule_cls_filter_bulk(const struct rule_cls *c, const struct fc_key *const keys[],
	const uint8_t ctstate[], const uint8_t kflags[], unsigned int n, struct rule_result res[])
{
	struct rule_eval ev[CLS_BURST];
	int rc = check_keys(c, keys, ctstate, n, res);

	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < n; i += CLS_BURST) {
		uint32_t m = RTE_MIN(n - i, (unsigned int)CLS_BURST);

		rc = keys_table(c, RULE_TABLE_FILTER, keys + i, ctstate != NULL ? ctstate + i : NULL,
			kflags != NULL ? kflags + i : NULL, m, RULE_NAT_DST, ev);
		if (rc < 0)
			return rc;
		for (uint32_t j = 0; j < m; j++) {
			struct rule_result *r = &res[i + j];

			memset(r, 0, sizeof(*r));
			r->verdict = ev[j].verdict;
			r->hook = ev[j].hook;
			r->reject = ev[j].reject;
			r->rule_id = ev[j].rule_id;
			memcpy(r->channel, ev[j].channel, sizeof(r->channel));
		}
	}
	return (int)n;
}

int
rule_cls_filter(const struct rule_cls *c, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res)
{
	uint8_t ct = (uint8_t)ctstate, kf = (uint8_t)kflags;
	int rc;

	if (ctstate > UINT8_MAX)
		return -EINVAL;
	rc = rule_cls_filter_bulk(c, &k, &ct, &kf, 1, res);
	return rc < 0 ? rc : 0;
}

int
rule_cls_nat_bulk(const struct rule_cls *c, enum rule_nat_stage stage,
	const struct fc_key *const keys[], const uint8_t ctstate[], const uint8_t kflags[],
	unsigned int n, struct rule_nat_result res[])
{
	struct rule_eval ev[CLS_BURST];
	int rc = check_keys(c, keys, ctstate, n, res);

	if (rc < 0)
		return rc;
	if (stage != RULE_NAT_DST && stage != RULE_NAT_SRC)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i += CLS_BURST) {
		uint32_t m = RTE_MIN(n - i, (unsigned int)CLS_BURST);

		rc = keys_table(c, RULE_TABLE_NAT, keys + i, ctstate != NULL ? ctstate + i : NULL,
			kflags != NULL ? kflags + i : NULL, m, stage, ev);
		if (rc < 0)
			return rc;
		for (uint32_t j = 0; j < m; j++) {
			struct rule_nat_result *r = &res[i + j];
			uint8_t lf = fc_key_flags(keys[i + j]);

			memset(r, 0, sizeof(*r));
			r->action = ev[j].nat_action;
			r->rule_id = ev[j].nat_rule_id;
			r->nat = ev[j].nat;
			if (stage == RULE_NAT_DST)
				r->hook = (lf & FC_KEY_F_SRC_LOCAL) ? RULE_HOOK_OUTPUT
								    : RULE_HOOK_PREROUTING;
			else
				r->hook = (lf & FC_KEY_F_DST_LOCAL) && !(lf & FC_KEY_F_SRC_LOCAL)
						  ? RULE_HOOK_INPUT
						  : RULE_HOOK_POSTROUTING;
		}
	}
	return (int)n;
}

int
rule_cls_nat(const struct rule_cls *c, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res)
{
	uint8_t ct = (uint8_t)ctstate, kf = (uint8_t)kflags;
	int rc;

	if (ctstate > UINT8_MAX)
		return -EINVAL;
	rc = rule_cls_nat_bulk(c, stage, &k, &ct, &kf, 1, res);
	return rc < 0 ? rc : 0;
}
