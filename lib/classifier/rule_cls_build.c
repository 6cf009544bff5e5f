/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: building the compiled classifier (see rule_cls_priv.h for the
 * layout, rule_cls.c for the evaluator).
 *
 * Three steps per (table, base chain, family):
 *  1. flatten: walk the base chain, inlining JUMP and GOTO targets; each
 *     rule becomes an entry whose term is the rule's own condition ANDed
 *     with the conditions of the jumps that lead to it. A RETURN becomes
 *     "resume after the inlined chain", so does the end of a GOTO target;
 *     in the base chain both mean "policy". A JUMP whose target falls off
 *     its end needs nothing: the entries after the inlined block follow.
 *     A non-terminal rule becomes an action entry; a jump or goto whose
 *     rule has extension matches a guard before its block.
 *  2. cut: drop resume entries that skip nothing, cut segments at every
 *     resume target and after every entry checked or run after a hit
 *     (too wide to expand, extension matches, actions, guards), group up
 *     to 16 segments into a bank, mark entries an earlier one covers.
 *  3. expand each bank into rte_acl rules: a term is a cross product of
 *     field sets (protocol ranges, prefixes, port ranges) and a meta byte
 *     (ctstate, local bits, "has ports"); negated prefixes, protocols and
 *     port lists are complemented into such sets (rule_cls_term.c). If
 *     rte_acl cannot take a bank in one context, it gets several.
 *
 * Building needs EAL memory (rte_malloc, rte_acl) but no lcore: any thread
 * may build, e.g. a control-plane pthread. Temporary data uses malloc.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rule_cls_priv.h"

RTE_LOG_REGISTER(rule_cls_logtype, gufc.classifier, NOTICE);
#define CLS_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, rule_cls_logtype, "rule_cls: " fmt "\n", ##__VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Flattening                                                                */
/* ------------------------------------------------------------------------ */

/** Resume target "end of the base chain" (its policy). */
#define LABEL_END UINT32_MAX

struct fent {
	struct cls_term t;
	uint8_t kind;  /**< enum cls_kind */
	uint8_t ext;   /**< check the rule's extension matches */
	uint8_t dirty; /**< ACT changes the ctstate */
	uint32_t arg;  /**< result index, or label */
	uint32_t rule; /**< rule copy index, or UINT32_MAX */
	uint32_t note; /**< rule id the walk notes when it passes (cls_entry::note) */
};

/** The whole build. */
struct bld {
	const struct rule_set *s;
	struct cls_acl_env env;	  /**< name, socket, rte_acl figures */
	uint32_t *ord[RULE_TABLE__COUNT]; /**< ordinal of each chain's first rule */
	uint32_t *res_map;		  /**< per rule ordinal: result index + 1, 0 = none */
	uint32_t *rule_map;		  /**< per rule ordinal: rule copy index + 1, 0 = none */
	struct rule_term *res;
	uint32_t *res_rule;		  /**< per result: its rule copy (target options) or UINT32_MAX */
	uint32_t n_res;
	uint32_t cap_res;
	uint32_t cap_res_rule;
	struct rule *rules;		  /**< rule copies */
	uint32_t n_rules;
	uint32_t cap_rules;
	uint32_t n_checked;
	uint32_t n_shadowed;
};

/** One program being flattened. */
struct flat {
	struct bld *b;
	unsigned int table;
	uint8_t fam;
	struct fent *e;
	uint32_t n;
	uint32_t cap;
	uint32_t *label;
	uint32_t n_label;
	uint32_t cap_label;
};

static void
flat_free(struct flat *f)
{
	for (uint32_t i = 0; i < f->n; i++)
		rule_cls_term_free(&f->e[i].t);
	free(f->e);
	free(f->label);
	f->e = NULL;
	f->label = NULL;
	f->n = f->cap = f->n_label = f->cap_label = 0;
}

/* Build-time growth of an array of @p size-byte elements to hold @p need. */
int
rule_cls_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t ncap;
	void *q;

	if (need <= *cap)
		return 0;
	ncap = RTE_MAX(need, *cap * 2u);
	ncap = RTE_MAX(ncap, 16u);
	q = realloc(*p, (size_t)ncap * size);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/** Append an entry (@p note: cls_entry::note); takes @p t over (also on failure). */
static int
flat_push(struct flat *f, struct cls_term *t, uint8_t kind, uint32_t arg, uint32_t rule,
	bool ext, uint32_t note)
{
	if (f->n >= CLS_ENTRIES_MAX) {
		rule_cls_term_free(t);
		return -E2BIG;
	}
	if (rule_cls_grow((void **)&f->e, &f->cap, f->n + 1, sizeof(*f->e)) < 0) {
		rule_cls_term_free(t);
		return -ENOMEM;
	}
	f->e[f->n].t = *t;
	f->e[f->n].kind = kind;
	f->e[f->n].arg = arg;
	f->e[f->n].rule = rule;
	f->e[f->n].ext = ext;
	f->e[f->n].note = note;
	f->e[f->n].dirty = kind == CLS_K_ACT && rule != UINT32_MAX &&
			   (f->b->rules[rule].action == RULE_ACT_NOTRACK ||
				   (f->b->rules[rule].action == RULE_ACT_CT &&
					   (f->b->rules[rule].tgt.given & 1)));
	f->n++;
	memset(t, 0, sizeof(*t));
	return 0;
}

static int
flat_label(struct flat *f, uint32_t *lab)
{
	if (rule_cls_grow((void **)&f->label, &f->cap_label, f->n_label + 1, sizeof(*f->label)) < 0)
		return -ENOMEM;
	*lab = f->n_label++;
	return 0;
}

/** Index of the copy of rule @p j of chain @p c (added on first use). */
static int
rule_copy(struct bld *b, unsigned int table, const struct rule_chain *c, uint32_t j, uint32_t *idx)
{
	uint32_t o = b->ord[table][c - rule_set_chain_at(b->s, table, 0)] + j;

	if (b->rule_map[o] != 0) {
		*idx = b->rule_map[o] - 1;
		return 0;
	}
	if (rule_cls_grow((void **)&b->rules, &b->cap_rules, b->n_rules + 1, sizeof(*b->rules)) < 0)
		return -ENOMEM;
	b->rules[b->n_rules] = c->rules[j];
	*idx = b->n_rules++;
	b->rule_map[o] = b->n_rules;
	return 0;
}

/** Index of the result of terminal rule @p j of chain @p c (added on first use). */
static int
result_of(struct bld *b, unsigned int table, const struct rule_chain *c, uint32_t j, uint32_t *idx)
{
	uint32_t o = b->ord[table][c - rule_set_chain_at(b->s, table, 0)] + j;
	const struct rule *r = &c->rules[j];
	uint32_t ri = UINT32_MAX;

	if (b->res_map[o] != 0) {
		*idx = b->res_map[o] - 1;
		return 0;
	}
	if (r->tgt.kind != RULE_X_NONE && rule_copy(b, table, c, j, &ri) < 0)
		return -ENOMEM;
	if (rule_cls_grow((void **)&b->res, &b->cap_res, b->n_res + 1, sizeof(*b->res)) < 0 ||
		rule_cls_grow((void **)&b->res_rule, &b->cap_res_rule, b->n_res + 1,
			sizeof(*b->res_rule)) < 0)
		return -ENOMEM;
	rule_term_of(r, &b->res[b->n_res]);
	b->res[b->n_res].tgt = NULL; /* pointed at the classifier's copy once it exists */
	b->res_rule[b->n_res] = ri;
	*idx = b->n_res++;
	b->res_map[o] = b->n_res;
	return 0;
}

/**
 * Inline chain @p c under condition @p path (NULL: none, the base chain).
 * @p ret is where a RETURN resumes: a label, or LABEL_END in the base chain.
 */
static int
flat_chain(struct flat *f, const struct rule_chain *c, const struct cls_term *path, uint32_t ret)
{
	const struct rule_set *s = f->b->s;
	int rc = 0;

	for (uint32_t j = 0; j < c->n_rules && rc >= 0; j++) {
		const struct rule *r = &c->rules[j];
		const struct rule_chain *target;
		bool ext = rule_has_ext(r);
		uint32_t x, y, ri = UINT32_MAX;
		struct cls_term t;

		rc = rule_cls_term_of_rule(s, r, f->fam, &t);
		if (rc > 0 && path != NULL) {
			rc = rule_cls_term_and(&t, path);
			if (rc <= 0)
				rule_cls_term_free(&t);
		}
		if (rc <= 0)
			continue;
		if ((ext || !rule_action_terminal(r->action)) &&
			rule_copy(f->b, f->table, c, j, &ri) < 0) {
			rule_cls_term_free(&t);
			return -ENOMEM;
		}
		switch (r->action) {
		case RULE_ACT_JUMP:
		case RULE_ACT_GOTO:
			target = rule_set_chain_find(s, f->table, r->chain);
			if (target == NULL) {
				rule_cls_term_free(&t);
				return -EINVAL;
			}
			rc = flat_label(f, &y);
			if (rc >= 0) {
				/*
				 * Noted when taken (its counter); extension matches
				 * are checked once, here: if they fail, skip the block.
				 */
				struct cls_term g;

				rc = rule_cls_term_of_rule(s, r, f->fam, &g);
				if (rc > 0 && path != NULL)
					rc = rule_cls_term_and(&g, path);
				if (rc > 0) {
					rc = flat_push(f, &g, CLS_K_GUARD, y, ri, ext, r->id);
				} else {
					rule_cls_term_free(&g);
					if (rc == 0)
						rc = -EINVAL; /* t was not empty: neither is g */
				}
			}
			if (rc < 0) {
				rule_cls_term_free(&t);
				break;
			}
			if (r->action == RULE_ACT_GOTO) {
				/* Never comes back: falling off the target returns from @c. */
				rc = flat_chain(f, target, &t, ret);
				if (rc >= 0)
					rc = flat_push(f, &t, CLS_K_RESUME, ret, UINT32_MAX, false,
						RULE_ID_NONE);
				rule_cls_term_free(&t);
				if (rc >= 0)
					f->label[y] = f->n;
				break;
			}
			rc = flat_label(f, &x);
			if (rc >= 0)
				rc = flat_chain(f, target, &t, x);
			if (rc >= 0) {
				f->label[x] = f->n;
				f->label[y] = f->n;
			}
			rule_cls_term_free(&t);
			break;
		case RULE_ACT_RETURN:
			rc = flat_push(f, &t, CLS_K_RESUME, ret, ri, ext, r->id);
			break;
		default:
			x = UINT32_MAX;
			if (rule_action_terminal(r->action) || r->action == RULE_ACT_SYNPROXY)
				rc = result_of(f->b, f->table, c, j, &x);
			if (rc >= 0)
				rc = flat_push(f, &t,
					rule_action_terminal(r->action) ? CLS_K_RESULT : CLS_K_ACT, x, ri,
					ext, RULE_ID_NONE);
			else
				rule_cls_term_free(&t);
			break;
		}
	}
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------ */
/* Programs                                                                  */
/* ------------------------------------------------------------------------ */

/** Scratch of prog_build(). */
struct cut {
	uint32_t *tgt;	 /**< per old entry: resume target (old index; n = end) */
	uint32_t *next;	 /**< per old position: next kept old index at or after it */
	uint32_t *old;	 /**< per new entry: its old index */
	uint32_t *newi;	 /**< per old entry: its new index */
	uint8_t *relax;	 /**< per new entry: RELAX_* bits */
	uint8_t *start;	 /**< per new position: starts a segment */
	uint8_t *rtgt;	 /**< per new position: a resume target */
	uint32_t *seg1;	 /**< per segment: its first new entry (n_seg + 1 items) */
	uint32_t *segof; /**< per new position: its segment (m: n_seg) */
	uint8_t *need;	 /**< per new entry: keeps its exact term */
	uint8_t *dead;	 /**< per new entry: shadowed, left out of the ACL */
	const struct cls_term **tv; /**< per new entry: its term, NULL if shadowed */
};

static void
cut_free(struct cut *x)
{
	free(x->tgt);
	free(x->next);
	free(x->old);
	free(x->newi);
	free(x->relax);
	free(x->start);
	free(x->rtgt);
	free(x->seg1);
	free(x->segof);
	free(x->need);
	free(x->dead);
	free(x->tv);
}

/** Copy term @p t into the program's run-time pools. */
static void
rterm_fill(struct cls_prog *p, struct cls_rterm *rt, const struct cls_term *t, uint32_t *nr,
	uint32_t *np)
{
	rt->meta_val = t->meta_val;
	rt->meta_mask = t->meta_mask;
	rt->n_proto = (uint16_t)t->proto.n;
	rt->n_sport = (uint16_t)t->sport.n;
	rt->n_dport = (uint16_t)t->dport.n;
	rt->n_inp = (uint16_t)t->inp.n;
	rt->n_outp = (uint16_t)t->outp.n;
	rt->rng = *nr;
	memcpy(p->rng + *nr, t->proto.v, sizeof(*p->rng) * t->proto.n);
	*nr += t->proto.n;
	memcpy(p->rng + *nr, t->sport.v, sizeof(*p->rng) * t->sport.n);
	*nr += t->sport.n;
	memcpy(p->rng + *nr, t->dport.v, sizeof(*p->rng) * t->dport.n);
	*nr += t->dport.n;
	memcpy(p->rng + *nr, t->inp.v, sizeof(*p->rng) * t->inp.n);
	*nr += t->inp.n;
	memcpy(p->rng + *nr, t->outp.v, sizeof(*p->rng) * t->outp.n);
	*nr += t->outp.n;
	rt->n_src = t->src.n;
	rt->n_dst = t->dst.n;
	rt->pfx = *np;
	memcpy(p->pfx + *np, t->src.v, sizeof(*p->pfx) * t->src.n);
	*np += t->src.n;
	memcpy(p->pfx + *np, t->dst.v, sizeof(*p->pfx) * t->dst.n);
	*np += t->dst.n;
}

/**
 * Mark entries that can never be the first match: an earlier entry covers
 * them and every key reaching them passed that entry (same segment, or
 * segments apart only by cuts after relaxed entries, which no walk enters
 * but by falling through). Shadowed and redundant rules are common in real
 * sets, and costly in a trie. Candidates are the first CLS_COVER_MAX
 * entries since the last resume target that restrict at most two fields.
 */
static void
shadow(const struct flat *f, struct cut *x, uint32_t m, uint32_t *n_dead)
{
	uint32_t cov[CLS_COVER_MAX], n_cov = 0;

	for (uint32_t i = 0; i < m; i++) {
		const struct cls_term *t = &f->e[x->old[i]].t;
		uint32_t k;

		if (x->rtgt[i])
			n_cov = 0;
		for (k = 0; k < n_cov; k++)
			if (rule_cls_term_covers(&f->e[x->old[cov[k]]].t, t))
				break;
		if (k < n_cov) {
			x->dead[i] = 1;
			(*n_dead)++;
			continue;
		}
		if (n_cov < CLS_COVER_MAX && rule_cls_term_narrow(t) <= 2 && !f->e[x->old[i]].ext &&
			(f->e[x->old[i]].kind == CLS_K_RESULT || f->e[x->old[i]].kind == CLS_K_RESUME))
			cov[n_cov++] = i;
	}
}

/** Turn a flattened chain into program @p p. */
static int
prog_build(struct bld *b, const struct flat *f, struct cls_prog *p)
{
	uint32_t n = f->n, m = 0, n_seg = 0, n_terms = 0, n_rng = 0, n_pfx = 0;
	struct cut x = {0};
	int rc = -ENOMEM;

	x.tgt = calloc(n + 1, sizeof(*x.tgt));
	x.next = calloc(n + 1, sizeof(*x.next));
	x.old = calloc(n + 1, sizeof(*x.old));
	x.newi = calloc(n + 1, sizeof(*x.newi));
	x.relax = calloc(n + 1, sizeof(*x.relax));
	x.start = calloc(n + 1, sizeof(*x.start));
	x.rtgt = calloc(n + 1, sizeof(*x.rtgt));
	x.seg1 = calloc(n + 2, sizeof(*x.seg1));
	x.segof = calloc(n + 1, sizeof(*x.segof));
	x.need = calloc(n + 1, sizeof(*x.need));
	x.dead = calloc(n + 1, sizeof(*x.dead));
	x.tv = calloc(n + 1, sizeof(*x.tv));
	if (!x.tgt || !x.next || !x.old || !x.newi || !x.relax || !x.start || !x.rtgt || !x.seg1 ||
		!x.segof || !x.need || !x.dead || !x.tv)
		goto out;

	/*
	 * Drop resume entries that skip no kept entry and count nothing (the
	 * end of a goto's chain...). A guard without extension matches never
	 * skips: its block's entries hold the jump's own condition.
	 */
	for (uint32_t i = 0; i < n; i++)
		if (f->e[i].kind == CLS_K_RESUME || (f->e[i].kind == CLS_K_GUARD && f->e[i].ext))
			x.tgt[i] = f->e[i].arg == LABEL_END ? n : f->label[f->e[i].arg];
	x.next[n] = n;
	for (uint32_t i = n; i-- > 0;) {
		bool skip = f->e[i].kind == CLS_K_RESUME && !f->e[i].ext &&
			    f->e[i].note == RULE_ID_NONE && x.next[i + 1] >= x.tgt[i];

		x.next[i] = skip ? x.next[i + 1] : i;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (x.next[i] != i)
			continue;
		x.newi[i] = m;
		x.old[m++] = i;
	}

	/* Segments: from 0, at every resume target, after every entry checked or run. */
	if (m > 0)
		x.start[0] = 1;
	for (uint32_t i = 0; i < m; i++) {
		const struct fent *e = &f->e[x.old[i]];

		if (e->kind == CLS_K_RESUME || (e->kind == CLS_K_GUARD && e->ext)) {
			uint32_t t = x.next[x.tgt[x.old[i]]];

			x.tgt[x.old[i]] = t == n ? m : x.newi[t];
			x.start[x.tgt[x.old[i]]] = 1;
			x.rtgt[x.tgt[x.old[i]]] = 1;
		}
		x.relax[i] = (uint8_t)rule_cls_term_relax(&e->t);
		if (x.relax[i] != 0 || e->ext || e->kind == CLS_K_ACT || e->kind == CLS_K_GUARD)
			x.start[i + 1] = 1;
	}
	x.start[m] = 0;
	for (uint32_t i = 0; i < m; i++) {
		if (x.start[i])
			x.seg1[n_seg++] = i;
		x.segof[i] = n_seg - 1;
	}
	x.seg1[n_seg] = m;
	x.segof[m] = n_seg;

	p->n_entries = m;
	p->n_seg = n_seg;
	p->n_banks = (n_seg + CLS_BANK_SEGS - 1) / CLS_BANK_SEGS;
	p->entries = rule_cls_rt_alloc(&b->env, sizeof(*p->entries) * m);
	p->banks = rule_cls_rt_alloc(&b->env, sizeof(*p->banks) * p->n_banks);
	if (p->entries == NULL || p->banks == NULL)
		goto out;
	for (uint32_t s = 0, i = 0; s < n_seg; s++) {
		for (; i < x.seg1[s + 1]; i++) {
			const struct fent *e = &f->e[x.old[i]];
			struct cls_entry *ce = &p->entries[i];

			ce->kind = e->kind;
			ce->check = x.relax[i] != 0;
			ce->ext = e->ext;
			ce->dirty = e->dirty;
			ce->rule = e->rule;
			ce->note = e->note;
			ce->seg = s;
			ce->term = UINT32_MAX;
			/* A resume target is a segment start (or the end). */
			if (e->kind == CLS_K_RESULT || e->kind == CLS_K_ACT)
				ce->arg = e->arg;
			else if (e->kind == CLS_K_GUARD && !e->ext)
				ce->arg = s + 1; /* not read: nothing to fail */
			else
				ce->arg = x.segof[x.tgt[x.old[i]]];
		}
	}
	shadow(f, &x, m, &b->n_shadowed);
	for (uint32_t i = 0; i < m; i++)
		x.tv[i] = x.dead[i] ? NULL : &f->e[x.old[i]].t;
	for (uint32_t k = 0; k < p->n_banks; k++) {
		struct cls_bank *bk = &p->banks[k];

		bk->seg_first = k * CLS_BANK_SEGS;
		bk->n_seg = RTE_MIN(n_seg - bk->seg_first, (uint32_t)CLS_BANK_SEGS);
		bk->n_cat =
			bk->n_seg == 1 ? 1 : RTE_ALIGN_CEIL(bk->n_seg, RTE_ACL_RESULTS_MULTIPLIER);
		bk->first = x.seg1[bk->seg_first];
		bk->n = x.seg1[bk->seg_first + bk->n_seg] - bk->first;
		for (uint32_t i = bk->first; i < bk->first + bk->n; i++) {
			x.need[i] = bk->n <= CLS_LINEAR_MAX || x.relax[i] != 0;
			if (x.relax[i] != 0 || p->entries[i].ext || p->entries[i].kind == CLS_K_ACT ||
				p->entries[i].kind == CLS_K_GUARD)
				b->n_checked++;
		}
	}

	/* Exact terms, for linear banks and relaxed entries. */
	for (uint32_t i = 0; i < m; i++) {
		const struct cls_term *t = &f->e[x.old[i]].t;

		if (!x.need[i])
			continue;
		n_terms++;
		n_rng += t->proto.n + t->sport.n + t->dport.n + t->inp.n + t->outp.n;
		n_pfx += t->src.n + t->dst.n;
	}
	p->terms = rule_cls_rt_alloc(&b->env, sizeof(*p->terms) * n_terms);
	p->rng = rule_cls_rt_alloc(&b->env, sizeof(*p->rng) * n_rng);
	p->pfx = rule_cls_rt_alloc(&b->env, sizeof(*p->pfx) * n_pfx);
	if (p->terms == NULL || p->rng == NULL || p->pfx == NULL)
		goto out;
	n_terms = n_rng = n_pfx = 0;
	for (uint32_t i = 0; i < m; i++) {
		if (!x.need[i])
			continue;
		rterm_fill(p, &p->terms[n_terms], &f->e[x.old[i]].t, &n_rng, &n_pfx);
		p->entries[i].term = n_terms++;
	}

	for (uint32_t k = 0; k < p->n_banks; k++) {
		struct cls_bank *bk = &p->banks[k];

		if (bk->n <= CLS_LINEAR_MAX)
			continue;
		rc = rule_cls_bank_acl(&b->env, p, bk, (const struct cls_term *const *)x.tv, x.relax);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	cut_free(&x);
	return rc;
}

static void
prog_free(struct cls_prog *p)
{
	if (p->banks != NULL) {
		for (uint32_t k = 0; k < p->n_banks; k++) {
			for (uint32_t i = 0; i < p->banks[k].n_ctx; i++)
				rte_acl_free(p->banks[k].ctx[i]);
			rte_free(p->banks[k].ctx);
		}
	}
	rte_free(p->entries);
	rte_free(p->banks);
	rte_free(p->terms);
	rte_free(p->rng);
	rte_free(p->pfx);
	memset(p, 0, sizeof(*p));
}

/** The program of (table, base chain, family), compiled on first use. */
static int
prog_get(struct bld *b, struct rule_cls *c, unsigned int table, const struct rule_chain *base,
	uint8_t fam, const struct cls_prog **out)
{
	struct flat f = {.b = b, .table = table, .fam = fam};
	struct cls_prog *p;
	int rc;

	for (uint32_t i = 0; i < c->n_progs; i++) {
		p = &c->progs[i];
		if (p->table == table && p->base == base && p->fam == fam) {
			*out = p;
			return 0;
		}
	}
	p = &c->progs[c->n_progs++];
	p->table = (uint8_t)table;
	p->fam = fam;
	p->base = base;
	p->policy = (uint8_t)rule_chain_policy(base, fam == CLS_F4 ? FC_AF_INET4 : FC_AF_INET6);
	rc = flat_chain(&f, base, NULL, LABEL_END);
	if (rc == 0)
		rc = prog_build(b, &f, p);
	flat_free(&f);
	*out = p;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* API                                                                       */
/* ------------------------------------------------------------------------ */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** Number the rules of the set, so a rule inlined twice keeps one result. */
static int
bld_init(struct bld *b, const struct rule_set *s, const char *name, int socket)
{
	uint32_t total = 0;

	memset(b, 0, sizeof(*b));
	b->s = s;
	b->env.socket = socket;
	snprintf(b->env.name, sizeof(b->env.name), "%s", name[0] != '\0' ? name : "cls");
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		unsigned int n = rule_set_chain_count(s, t);

		b->ord[t] = calloc(n + 1, sizeof(*b->ord[t]));
		if (b->ord[t] == NULL)
			return -ENOMEM;
		for (unsigned int i = 0; i < n; i++) {
			b->ord[t][i] = total;
			total += rule_set_chain_at(s, t, i)->n_rules;
		}
	}
	b->res_map = calloc(total + 1, sizeof(*b->res_map));
	b->rule_map = calloc(total + 1, sizeof(*b->rule_map));
	return b->res_map == NULL || b->rule_map == NULL ? -ENOMEM : 0;
}

static void
bld_fini(struct bld *b)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		free(b->ord[t]);
	free(b->res_map);
	free(b->rule_map);
	free(b->res);
	free(b->res_rule);
	free(b->rules);
}

/* Distinct programs at most: every hook of every table with its own chain, both families. */
#define CLS_PROGS_MAX (2 * (3 + 4 + 5 + 2 + 3))

struct rule_cls *
rule_cls_build(const struct rule_set *s, const char *name, int socket)
{
	uint64_t t0 = now_ns();
	struct rule_cls *c = NULL;
	const char *msg = NULL;
	struct bld b;
	uint32_t bad;
	int rc;

	if (s == NULL || name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	rc = rule_set_check(s, &bad, &msg);
	if (rc < 0) {
		CLS_LOG(DEBUG, "invalid set (rule %u): %s", bad, msg != NULL ? msg : "?");
		rte_errno = -rc;
		return NULL;
	}
	rc = bld_init(&b, s, name, socket);
	if (rc < 0)
		goto fail;
	rc = -ENOMEM;
	c = rule_cls_rt_alloc(&b.env, sizeof(*c));
	if (c == NULL)
		goto fail;
	c->progs = rule_cls_rt_alloc(&b.env, sizeof(*c->progs) * CLS_PROGS_MAX);
	if (c->progs == NULL)
		goto fail;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
			const struct rule_chain *base;

			if (!(rule_table_hooks(t) & RULE_HOOK_F(h)))
				continue;
			base = rule_set_hook_chain(s, t, h);
			if (base == NULL)
				continue;
			for (uint8_t fam = 0; fam < CLS_NFAM; fam++) {
				rc = prog_get(&b, c, t, base, fam, &c->hook[t][h][fam]);
				if (rc < 0)
					goto fail;
			}
		}
	}
	rc = -ENOMEM;
	c->n_results = b.n_res;
	c->results = rule_cls_rt_alloc(&b.env, sizeof(*c->results) * b.n_res);
	c->rules = rule_cls_rt_alloc(&b.env, sizeof(*c->rules) * b.n_rules);
	if (c->results == NULL || c->rules == NULL)
		goto fail;
	c->n_rules = b.n_rules;
	if (b.n_rules > 0)
		memcpy(c->rules, b.rules, sizeof(*c->rules) * b.n_rules);
	if (b.n_res > 0)
		memcpy(c->results, b.res, sizeof(*c->results) * b.n_res);
	for (uint32_t i = 0; i < b.n_res; i++)
		if (b.res_rule[i] != UINT32_MAX)
			c->results[i].tgt = &c->rules[b.res_rule[i]].tgt;
	if (rule_set_ipsets_get(s) != NULL) {
		c->sets = (struct rule_ipsets *)(uintptr_t)rule_set_ipsets_get(s);
		rule_ipsets_ref(c->sets);
	}
	if (rule_set_ipsets_get(s) != NULL && rule_set_port_count(s) > 0) {
		struct rule_ifnames ifn = rule_set_ifnames(s);
		struct rule_portname *names =
			rule_cls_rt_alloc(&b.env, sizeof(*names) * ifn.n);

		if (names == NULL)
			goto fail;
		memcpy(names, ifn.names, sizeof(*names) * ifn.n);
		c->ifn.n = ifn.n;
		c->ifn.names = names;
	}
	for (uint32_t i = 0; i < c->n_progs; i++) {
		c->progs[i].base = NULL;
		c->stats.n_entries += c->progs[i].n_entries;
		c->stats.n_segments += c->progs[i].n_seg;
	}
	c->pkt_needs = rule_set_pkt_needs(s);
	rc = cls_proj_build(c, s);
	if (rc < 0)
		goto fail;
	c->stats.n_programs = c->n_progs;
	c->stats.n_contexts = b.env.n_ctx;
	c->stats.n_checked = b.n_checked;
	c->stats.n_shadowed = b.n_shadowed;
	c->stats.n_acl_rules = b.env.acl_rules;
	c->stats.mem_bytes = b.env.mem;
	c->stats.build_ns = now_ns() - t0;
	CLS_LOG(DEBUG, "%s: %u rules -> %u entries, %" PRIu64 " ACL rules in %u contexts, %.1f ms",
		b.env.name, rule_set_rule_count(s), c->stats.n_entries, c->stats.n_acl_rules,
		c->stats.n_contexts, (double)c->stats.build_ns / 1e6);
	bld_fini(&b);
	return c;
fail:
	CLS_LOG(DEBUG, "build failed: %s", strerror(-rc));
	rule_cls_free(c);
	bld_fini(&b);
	rte_errno = -rc;
	return NULL;
}

void
rule_cls_free(struct rule_cls *c)
{
	if (c == NULL)
		return;
	if (c->progs != NULL)
		for (uint32_t i = 0; i < c->n_progs; i++)
			prog_free(&c->progs[i]);
	rte_free(c->progs);
	rte_free(c->results);
	rte_free(c->rules);
	rule_ipsets_free(c->sets);
	rte_free((void *)(uintptr_t)c->ifn.names);
	cls_proj_free(c);
	rte_free(c);
}

uint32_t
rule_cls_pkt_needs(const struct rule_cls *c)
{
	return c != NULL ? c->pkt_needs : RULE_PKT_NEED_ALL;
}

uint32_t
rule_cls_key_reads(const struct rule_cls *c)
{
	return c != NULL ? c->key_reads : RULE_READS_ALL;
}

bool
rule_cls_reads_ports(const struct rule_cls *c)
{
	return c == NULL || c->reads_ports;
}

int
rule_cls_stats(const struct rule_cls *c, struct rule_cls_stats *st)
{
	if (c == NULL || st == NULL)
		return -EINVAL;
	*st = c->stats;
	return 0;
}
