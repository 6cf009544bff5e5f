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
 *  2. cut: drop resume entries that skip nothing, cut segments at every
 *     resume target and after every entry too wide to expand, group up to
 *     16 segments into a bank, mark entries an earlier one covers.
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
	uint8_t kind; /**< enum cls_kind */
	uint32_t arg; /**< result index, or label */
};

/** The whole build. */
struct bld {
	const struct rule_set *s;
	int socket;
	char name[9];
	uint32_t *ord[RULE_TABLE__COUNT]; /**< ordinal of each chain's first rule */
	uint32_t *res_map;		  /**< per rule ordinal: result index + 1, 0 = none */
	struct cls_result *res;
	uint32_t n_res;
	uint32_t cap_res;
	uint64_t acl_rules;
	uint64_t mem;
	uint32_t n_ctx;
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

static int
grow(void **p, uint32_t *cap, uint32_t need, size_t size)
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

/** Append an entry; takes @p t over (also on failure). */
static int
flat_push(struct flat *f, struct cls_term *t, uint8_t kind, uint32_t arg)
{
	if (f->n >= CLS_ENTRIES_MAX) {
		rule_cls_term_free(t);
		return -E2BIG;
	}
	if (grow((void **)&f->e, &f->cap, f->n + 1, sizeof(*f->e)) < 0) {
		rule_cls_term_free(t);
		return -ENOMEM;
	}
	f->e[f->n].t = *t;
	f->e[f->n].kind = kind;
	f->e[f->n].arg = arg;
	f->n++;
	memset(t, 0, sizeof(*t));
	return 0;
}

static int
flat_label(struct flat *f, uint32_t *lab)
{
	if (grow((void **)&f->label, &f->cap_label, f->n_label + 1, sizeof(*f->label)) < 0)
		return -ENOMEM;
	*lab = f->n_label++;
	return 0;
}

/** Index of the result of terminal rule @p j of chain @p c (added on first use). */
static int
result_of(struct bld *b, unsigned int table, const struct rule_chain *c, uint32_t j, uint32_t *idx)
{
	uint32_t o = b->ord[table][c - rule_set_chain_at(b->s, table, 0)] + j;
	const struct rule *r = &c->rules[j];
	struct cls_result *x;

	if (b->res_map[o] != 0) {
		*idx = b->res_map[o] - 1;
		return 0;
	}
	if (grow((void **)&b->res, &b->cap_res, b->n_res + 1, sizeof(*b->res)) < 0)
		return -ENOMEM;
	x = &b->res[b->n_res];
	memset(x, 0, sizeof(*x));
	x->rule_id = r->id;
	x->action = r->action;
	memcpy(x->channel, r->channel, sizeof(x->channel));
	x->nat = r->nat;
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
		struct cls_term t;
		uint32_t x;

		rc = rule_cls_term_of_rule(r, f->fam, &t);
		if (rc > 0 && path != NULL) {
			rc = rule_cls_term_and(&t, path);
			if (rc <= 0)
				rule_cls_term_free(&t);
		}
		if (rc <= 0)
			continue;
		switch (r->action) {
		case RULE_ACT_JUMP:
		case RULE_ACT_GOTO:
			target = rule_set_chain_find(s, f->table, r->chain);
			if (target == NULL) {
				rule_cls_term_free(&t);
				return -EINVAL;
			}
			if (r->action == RULE_ACT_GOTO) {
				/* Never comes back: falling off the target returns from @c. */
				rc = flat_chain(f, target, &t, ret);
				if (rc >= 0)
					rc = flat_push(f, &t, CLS_K_RESUME, ret);
				rule_cls_term_free(&t);
				break;
			}
			rc = flat_label(f, &x);
			if (rc >= 0)
				rc = flat_chain(f, target, &t, x);
			if (rc >= 0)
				f->label[x] = f->n;
			rule_cls_term_free(&t);
			break;
		case RULE_ACT_RETURN:
			rc = flat_push(f, &t, CLS_K_RESUME, ret);
			break;
		default:
			rc = result_of(f->b, f->table, c, j, &x);
			if (rc >= 0)
				rc = flat_push(f, &t, CLS_K_RESULT, x);
			else
				rule_cls_term_free(&t);
			break;
		}
	}
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------ */
/* rte_acl                                                                   */
/* ------------------------------------------------------------------------ */

#define NF4 8
#define NF6 14

static void *
rt_alloc(struct bld *b, size_t size)
{
	void *p = rte_zmalloc_socket(
		"rule_cls", RTE_MAX(size, (size_t)1), RTE_CACHE_LINE_SIZE, b->socket);

	if (p != NULL)
		b->mem += size;
	return p;
}

static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

static void
def_field(struct rte_acl_config *cfg, uint8_t type, uint8_t size, uint8_t input, uint32_t offset)
{
	struct rte_acl_field_def *d = &cfg->defs[cfg->num_fields];

	d->type = type;
	d->size = size;
	d->field_index = (uint8_t)cfg->num_fields;
	d->input_index = input;
	d->offset = offset;
	cfg->num_fields++;
}

/*
 * Field layout. rte_acl wants a 1-byte first field, then 4-byte input
 * groups: proto | src (1 or 4 groups) | dst (same) | sport dport |
 * meta + 3 wildcard bytes.
 */
static void
acl_config(struct rte_acl_config *cfg, uint8_t fam, uint32_t n_cat)
{
	uint8_t in = 1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_categories = n_cat;
	if (fam == CLS_F4) {
		def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 1, 0, offsetof(struct cls_in4, proto));
		def_field(cfg, RTE_ACL_FIELD_TYPE_MASK, 4, in++, offsetof(struct cls_in4, src));
		def_field(cfg, RTE_ACL_FIELD_TYPE_MASK, 4, in++, offsetof(struct cls_in4, dst));
		def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in, offsetof(struct cls_in4, sport));
		def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in++, offsetof(struct cls_in4, dport));
		def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, offsetof(struct cls_in4, meta));
		def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, offsetof(struct cls_in4, pad));
		def_field(
			cfg, RTE_ACL_FIELD_TYPE_BITMASK, 2, in, offsetof(struct cls_in4, pad) + 1);
		return;
	}
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 1, 0, offsetof(struct cls_in6, proto));
	for (unsigned int i = 0; i < 4; i++)
		def_field(cfg, RTE_ACL_FIELD_TYPE_MASK, 4, in++,
			offsetof(struct cls_in6, src) + 4 * i);
	for (unsigned int i = 0; i < 4; i++)
		def_field(cfg, RTE_ACL_FIELD_TYPE_MASK, 4, in++,
			offsetof(struct cls_in6, dst) + 4 * i);
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in, offsetof(struct cls_in6, sport));
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in++, offsetof(struct cls_in6, dport));
	def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, offsetof(struct cls_in6, meta));
	def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, offsetof(struct cls_in6, pad));
	def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 2, in, offsetof(struct cls_in6, pad) + 1);
}

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/** Set the address fields of an ACL rule from prefix @p p, from field @p f on. */
static void
acl_addr(struct rte_acl_field *f, uint8_t fam, const struct cls_pfx *p)
{
	unsigned int words = fam == CLS_F4 ? 1 : 4;

	for (unsigned int i = 0; i < words; i++) {
		int bits = (int)p->len - 32 * (int)i;

		f[i].value.u32 = be32_at(p->a + 4 * i);
		f[i].mask_range.u32 = (uint32_t)RTE_MAX(0, RTE_MIN(bits, 32));
	}
}

/** Write the ACL rules of entry @p e (index @p idx, category @p cat) at @p out. */
static uint8_t *
acl_expand(uint8_t *out, size_t rsz, uint8_t fam, const struct cls_term *t, unsigned int relax,
	uint32_t cat, uint32_t idx)
{
	static const struct cls_rng any8 = {0, UINT8_MAX}, any16 = {0, UINT16_MAX};
	static const struct cls_pfx any_pfx;
	const struct cls_rng *pr = (relax & RELAX_PROTO) ? &any8 : t->proto.v;
	const struct cls_rng *sp = (relax & RELAX_SPORT) ? &any16 : t->sport.v;
	const struct cls_rng *dp = (relax & RELAX_DPORT) ? &any16 : t->dport.v;
	const struct cls_pfx *sa = (relax & RELAX_SRC) ? &any_pfx : t->src.v;
	const struct cls_pfx *da = (relax & RELAX_DST) ? &any_pfx : t->dst.v;
	uint32_t npr = (relax & RELAX_PROTO) ? 1 : t->proto.n;
	uint32_t nsp = (relax & RELAX_SPORT) ? 1 : t->sport.n;
	uint32_t ndp = (relax & RELAX_DPORT) ? 1 : t->dport.n;
	uint32_t nsa = (relax & RELAX_SRC) ? 1 : t->src.n;
	uint32_t nda = (relax & RELAX_DST) ? 1 : t->dst.n;
	unsigned int fsrc = 1, fdst = fam == CLS_F4 ? 2 : 5, fport = fam == CLS_F4 ? 3 : 9;

	uint64_t total = (uint64_t)npr * nsa * nda * nsp * ndp;

	/* One ACL rule per element of proto x src x dst x sport x dport. */
	for (uint64_t k = 0; k < total; k++, out += rsz) {
		struct rte_acl_rule *r = (struct rte_acl_rule *)out;
		struct rte_acl_field *f = r->field;
		uint64_t q = k;
		uint32_t e = (uint32_t)(q % ndp), d, c, b, a;

		q /= ndp;
		d = (uint32_t)(q % nsp);
		q /= nsp;
		c = (uint32_t)(q % nda);
		q /= nda;
		b = (uint32_t)(q % nsa);
		a = (uint32_t)(q / nsa);
		r->data.category_mask = 1u << cat;
		r->data.priority = (int32_t)(RTE_ACL_MAX_PRIORITY - idx);
		r->data.userdata = idx + 1;
		f[0].value.u8 = (uint8_t)pr[a].lo;
		f[0].mask_range.u8 = (uint8_t)pr[a].hi;
		acl_addr(&f[fsrc], fam, &sa[b]);
		acl_addr(&f[fdst], fam, &da[c]);
		f[fport].value.u16 = sp[d].lo;
		f[fport].mask_range.u16 = sp[d].hi;
		f[fport + 1].value.u16 = dp[e].lo;
		f[fport + 1].mask_range.u16 = dp[e].hi;
		f[fport + 2].value.u8 = t->meta_val;
		f[fport + 2].mask_range.u8 = t->meta_mask;
		/* fport + 3 and + 4: the wildcard padding, left zero (mask 0) */
	}
	return out;
}

/**
 * Sort key of an ACL rule by shape: prefix lengths, which ranges are
 * wildcards, the meta mask. rte_acl builds small tries from rules of one
 * shape; mixing shapes multiplies nodes (a wildcard is copied under every
 * branch that a more specific rule creates).
 */
static uint64_t
acl_shape(const struct rte_acl_rule *r, uint8_t fam)
{
	const struct rte_acl_field *f = r->field;
	unsigned int words = fam == CLS_F4 ? 1 : 4, src = 0, dst = 0;
	unsigned int fport = 1 + 2 * words;
	uint64_t k;

	for (unsigned int i = 0; i < words; i++) {
		src += f[1 + i].mask_range.u32;
		dst += f[1 + words + i].mask_range.u32;
	}
	k = (uint64_t)src << 32 | (uint64_t)dst << 24;
	k |= (uint64_t)(f[0].value.u8 == 0 && f[0].mask_range.u8 == UINT8_MAX) << 18;
	k |= (uint64_t)(f[fport].value.u16 == 0 && f[fport].mask_range.u16 == UINT16_MAX) << 17;
	k |= (uint64_t)(f[fport + 1].value.u16 == 0 && f[fport + 1].mask_range.u16 == UINT16_MAX)
	     << 16;
	k |= f[fport + 2].mask_range.u8;
	return k;
}

static int
acl_shape_cmp(const void *a, const void *b, void *arg)
{
	const struct rte_acl_rule *x = a, *y = b;
	uint8_t fam = *(const uint8_t *)arg;
	uint64_t kx = acl_shape(x, fam), ky = acl_shape(y, fam);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->data.userdata < y->data.userdata ? -1 : x->data.userdata > y->data.userdata;
}

/** Contexts built for the bank in progress. */
struct ctxv {
	struct rte_acl_ctx **v;
	uint32_t n;
	uint32_t cap;
};

/**
 * Build rte_acl contexts from rules [lo, hi) of @p rules: one if rte_acl
 * can, else (too many tries) sort the rules by shape and split in halves,
 * recursively. A bank's results are merged by priority, so any partition
 * of its rules is correct; each context costs one more trie walk per key.
 */
static int
ctx_build(struct bld *b, struct ctxv *cv, uint32_t n_cat, uint8_t fam, uint8_t *rules, size_t rsz,
	uint32_t lo, uint32_t hi, bool sorted)
{
	static uint32_t seq;
	struct rte_acl_config cfg;
	struct rte_acl_param prm;
	struct rte_acl_ctx *ctx;
	char name[RTE_ACL_NAMESIZE];
	uint64_t before;
	uint32_t mid;
	int rc;

	if (grow((void **)&cv->v, &cv->cap, cv->n + 1, sizeof(*cv->v)) < 0)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%s.%x.%x", b->name, (unsigned int)getpid(),
		__atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	memset(&prm, 0, sizeof(prm));
	prm.name = name;
	prm.socket_id = b->socket;
	prm.rule_size = (uint32_t)rsz;
	prm.max_rule_num = hi - lo;
	before = heap_used();
	ctx = rte_acl_create(&prm);
	if (ctx == NULL)
		return rte_errno != 0 ? -rte_errno : -ENOMEM;
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)(rules + rsz * lo), hi - lo);
	if (rc == 0) {
		acl_config(&cfg, fam, n_cat);
		rc = rte_acl_build(ctx, &cfg);
	}
	if (rc == 0) {
		b->mem += heap_used() - before;
		cv->v[cv->n++] = ctx;
		b->n_ctx++;
		return 0;
	}
	rte_acl_free(ctx);
	CLS_LOG(DEBUG, "%s: rte_acl_build of %u rules: %s%s", name, hi - lo, strerror(-rc),
		hi - lo > 1 ? ", splitting" : "");
	if (hi - lo < 2 || (rc != -ENOMEM && rc != -ERANGE))
		return rc;
	if (!sorted)
		qsort_r(rules + rsz * lo, hi - lo, rsz, acl_shape_cmp, &fam);
	mid = lo + (hi - lo) / 2;
	rc = ctx_build(b, cv, n_cat, fam, rules, rsz, lo, mid, true);
	return rc < 0 ? rc : ctx_build(b, cv, n_cat, fam, rules, rsz, mid, hi, true);
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
	rt->rng = *nr;
	memcpy(p->rng + *nr, t->proto.v, sizeof(*p->rng) * t->proto.n);
	*nr += t->proto.n;
	memcpy(p->rng + *nr, t->sport.v, sizeof(*p->rng) * t->sport.n);
	*nr += t->sport.n;
	memcpy(p->rng + *nr, t->dport.v, sizeof(*p->rng) * t->dport.n);
	*nr += t->dport.n;
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
		if (n_cov < CLS_COVER_MAX && rule_cls_term_narrow(t) <= 2)
			cov[n_cov++] = i;
	}
}

/** Expand the entries of a non-linear bank into rte_acl contexts. */
static int
bank_acl(struct bld *b, struct cls_prog *p, struct cls_bank *bk, const struct flat *f,
	const struct cut *x)
{
	size_t rsz = RTE_ACL_RULE_SZ(p->fam == CLS_F4 ? NF4 : NF6);
	struct ctxv cv = {0};
	uint64_t count = 0;
	uint8_t *rules, *w;
	int rc;

	for (uint32_t i = bk->first; i < bk->first + bk->n; i++)
		if (!x->dead[i])
			count += rule_cls_term_width(&f->e[x->old[i]].t, x->relax[i]);
	if (count == 0) {
		bk->n = 0; /* cannot happen: a segment's first entry is never shadowed */
		return 0;
	}
	if (b->acl_rules + count > CLS_ACL_RULES_MAX)
		return -E2BIG;
	b->acl_rules += count;
	rules = calloc(count, rsz);
	if (rules == NULL)
		return -ENOMEM;
	w = rules;
	for (uint32_t i = bk->first; i < bk->first + bk->n; i++)
		if (!x->dead[i])
			w = acl_expand(w, rsz, p->fam, &f->e[x->old[i]].t, x->relax[i],
				p->entries[i].seg - bk->seg_first, i);
	rc = ctx_build(b, &cv, bk->n_cat, p->fam, rules, rsz, 0, (uint32_t)count, false);
	free(rules);
	if (rc == 0) {
		bk->ctx = rt_alloc(b, sizeof(*bk->ctx) * cv.n);
		if (bk->ctx == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0) {
		memcpy(bk->ctx, cv.v, sizeof(*bk->ctx) * cv.n);
		bk->n_ctx = cv.n;
	} else {
		for (uint32_t i = 0; i < cv.n; i++)
			rte_acl_free(cv.v[i]);
	}
	free(cv.v);
	return rc;
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
	if (!x.tgt || !x.next || !x.old || !x.newi || !x.relax || !x.start || !x.rtgt || !x.seg1 ||
		!x.segof || !x.need || !x.dead)
		goto out;

	/* Drop resume entries that skip no kept entry (the last RETURN of a chain...). */
	for (uint32_t i = 0; i < n; i++)
		if (f->e[i].kind == CLS_K_RESUME)
			x.tgt[i] = f->e[i].arg == LABEL_END ? n : f->label[f->e[i].arg];
	x.next[n] = n;
	for (uint32_t i = n; i-- > 0;) {
		bool skip = f->e[i].kind == CLS_K_RESUME && x.next[i + 1] >= x.tgt[i];

		x.next[i] = skip ? x.next[i + 1] : i;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (x.next[i] != i)
			continue;
		x.newi[i] = m;
		x.old[m++] = i;
	}

	/* Segments: from 0, at every resume target, after every relaxed entry. */
	if (m > 0)
		x.start[0] = 1;
	for (uint32_t i = 0; i < m; i++) {
		const struct fent *e = &f->e[x.old[i]];

		if (e->kind == CLS_K_RESUME) {
			uint32_t t = x.next[x.tgt[x.old[i]]];

			x.tgt[x.old[i]] = t == n ? m : x.newi[t];
			x.start[x.tgt[x.old[i]]] = 1;
			x.rtgt[x.tgt[x.old[i]]] = 1;
		}
		x.relax[i] = (uint8_t)rule_cls_term_relax(&e->t);
		if (x.relax[i] != 0)
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
	p->entries = rt_alloc(b, sizeof(*p->entries) * m);
	p->banks = rt_alloc(b, sizeof(*p->banks) * p->n_banks);
	if (p->entries == NULL || p->banks == NULL)
		goto out;
	for (uint32_t s = 0, i = 0; s < n_seg; s++) {
		for (; i < x.seg1[s + 1]; i++) {
			const struct fent *e = &f->e[x.old[i]];
			struct cls_entry *ce = &p->entries[i];

			ce->kind = e->kind;
			ce->check = x.relax[i] != 0;
			ce->seg = s;
			ce->term = UINT32_MAX;
			/* A resume target is a segment start (or the end). */
			ce->arg = e->kind == CLS_K_RESULT ? e->arg : x.segof[x.tgt[x.old[i]]];
		}
	}
	shadow(f, &x, m, &b->n_shadowed);
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
			if (x.relax[i] != 0)
				b->n_checked++;
		}
	}

	/* Exact terms, for linear banks and relaxed entries. */
	for (uint32_t i = 0; i < m; i++) {
		const struct cls_term *t = &f->e[x.old[i]].t;

		if (!x.need[i])
			continue;
		n_terms++;
		n_rng += t->proto.n + t->sport.n + t->dport.n;
		n_pfx += t->src.n + t->dst.n;
	}
	p->terms = rt_alloc(b, sizeof(*p->terms) * n_terms);
	p->rng = rt_alloc(b, sizeof(*p->rng) * n_rng);
	p->pfx = rt_alloc(b, sizeof(*p->pfx) * n_pfx);
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
		rc = bank_acl(b, p, bk, f, &x);
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
	p->policy = base->policy;
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
	b->socket = socket;
	snprintf(b->name, sizeof(b->name), "%s", name[0] != '\0' ? name : "cls");
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
	return b->res_map == NULL ? -ENOMEM : 0;
}

static void
bld_fini(struct bld *b)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		free(b->ord[t]);
	free(b->res_map);
	free(b->res);
}

/* Distinct programs at most: every hook of both tables with its own chain, both families. */
#define CLS_PROGS_MAX (2 * (3 + 4))

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
	c = rt_alloc(&b, sizeof(*c));
	if (c == NULL)
		goto fail;
	c->progs = rt_alloc(&b, sizeof(*c->progs) * CLS_PROGS_MAX);
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
	c->results = rt_alloc(&b, sizeof(*c->results) * b.n_res);
	if (c->results == NULL)
		goto fail;
	if (b.n_res > 0)
		memcpy(c->results, b.res, sizeof(*c->results) * b.n_res);
	for (uint32_t i = 0; i < c->n_progs; i++) {
		c->progs[i].base = NULL;
		c->stats.n_entries += c->progs[i].n_entries;
		c->stats.n_segments += c->progs[i].n_seg;
	}
	c->stats.n_programs = c->n_progs;
	c->stats.n_contexts = b.n_ctx;
	c->stats.n_checked = b.n_checked;
	c->stats.n_shadowed = b.n_shadowed;
	c->stats.n_acl_rules = b.acl_rules;
	c->stats.mem_bytes = b.mem;
	c->stats.build_ns = now_ns() - t0;
	CLS_LOG(DEBUG, "%s: %u rules -> %u entries, %" PRIu64 " ACL rules in %u contexts, %.1f ms",
		b.name, rule_set_rule_count(s), c->stats.n_entries, c->stats.n_acl_rules,
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
	rte_free(c);
}

int
rule_cls_stats(const struct rule_cls *c, struct rule_cls_stats *st)
{
	if (c == NULL || st == NULL)
		return -EINVAL;
	*st = c->stats;
	return 0;
}
