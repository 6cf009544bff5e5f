/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: building the compiled classifier (see rule_cls_priv.h for the
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
 *     16 segments into a bank.
 *  3. expand each bank into rte_acl rules: a term is a cross product of
 *     field sets (protocol ranges, prefixes, port ranges) and a meta byte
 *     (ctstate, local bits, "has ports"); negated prefixes, protocols and
 *     port lists are complemented into such sets.
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
#include "rule_priv.h"

RTE_LOG_REGISTER(rule_cls_logtype, gufc.rules, NOTICE);
#define CLS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, rule_cls_logtype, "rule_cls: " fmt "\n", ##__VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Terms: a conjunction of field sets                                        */
/* ------------------------------------------------------------------------ */

/** Sorted, disjoint ranges; n == 0 is the empty set. */
struct rlist {
	uint32_t n;
	struct cls_rng *v;
};

/** Disjoint prefixes; n == 0 is the empty set. */
struct plist {
	uint32_t n;
	struct cls_pfx *v;
};

struct term {
	uint8_t meta_val;
	uint8_t meta_mask;
	struct rlist proto;
	struct rlist sport;
	struct rlist dport;
	struct plist src;
	struct plist dst;
};

/* Fields an entry may give up (relax to "any") in the ACL. */
#define RELAX_PROTO 0x01
#define RELAX_SRC 0x02
#define RELAX_DST 0x04
#define RELAX_SPORT 0x08
#define RELAX_DPORT 0x10

static void
term_free(struct term *t)
{
	free(t->proto.v);
	free(t->sport.v);
	free(t->dport.v);
	free(t->src.v);
	free(t->dst.v);
	memset(t, 0, sizeof(*t));
}

static bool
term_empty(const struct term *t)
{
	return t->proto.n == 0 || t->sport.n == 0 || t->dport.n == 0 || t->src.n == 0 ||
		t->dst.n == 0;
}

static int
rlist_alloc(struct rlist *l, uint32_t cap)
{
	l->n = 0;
	l->v = malloc(sizeof(*l->v) * RTE_MAX(cap, 1u));
	return l->v == NULL ? -ENOMEM : 0;
}

static int
rlist_one(struct rlist *l, uint16_t lo, uint16_t hi)
{
	if (rlist_alloc(l, 1) < 0)
		return -ENOMEM;
	l->v[0].lo = lo;
	l->v[0].hi = hi;
	l->n = 1;
	return 0;
}

/** The complement of sorted, disjoint @p v within [0, @p max]. */
static int
rlist_complement(struct rlist *l, const struct cls_rng *v, uint32_t n, uint32_t max)
{
	uint32_t next = 0;

	if (rlist_alloc(l, n + 1) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].lo > next) {
			l->v[l->n].lo = (uint16_t)next;
			l->v[l->n].hi = (uint16_t)(v[i].lo - 1);
			l->n++;
		}
		next = (uint32_t)v[i].hi + 1;
	}
	if (next <= max) {
		l->v[l->n].lo = (uint16_t)next;
		l->v[l->n].hi = (uint16_t)max;
		l->n++;
	}
	return 0;
}

static int
rng_cmp(const void *a, const void *b)
{
	const struct cls_rng *x = a, *y = b;

	return (int)x->lo - (int)y->lo;
}

/** A port list as sorted, merged ranges; complemented if @p neg. */
static int
rlist_ports(struct rlist *l, const struct rule_ports *p, bool neg)
{
	struct cls_rng tmp[RULE_PORTS_MAX];
	uint32_t n = RTE_MIN((uint32_t)p->n, (uint32_t)RULE_PORTS_MAX), m = 0;

	for (uint32_t i = 0; i < n; i++) {
		tmp[i].lo = p->r[i].lo;
		tmp[i].hi = p->r[i].hi;
	}
	qsort(tmp, n, sizeof(tmp[0]), rng_cmp);
	for (uint32_t i = 0; i < n; i++) {
		if (m > 0 && tmp[i].lo <= (uint32_t)tmp[m - 1].hi + 1) {
			if (tmp[i].hi > tmp[m - 1].hi)
				tmp[m - 1].hi = tmp[i].hi;
		} else {
			tmp[m++] = tmp[i];
		}
	}
	if (neg)
		return rlist_complement(l, tmp, m, UINT16_MAX);
	if (rlist_alloc(l, m) < 0)
		return -ENOMEM;
	memcpy(l->v, tmp, sizeof(tmp[0]) * m);
	l->n = m;
	return 0;
}

/** @p a becomes a AND b (both sorted, disjoint). */
static int
rlist_and(struct rlist *a, const struct rlist *b)
{
	struct rlist out;
	uint32_t i = 0, j = 0;

	if (rlist_alloc(&out, a->n + b->n) < 0)
		return -ENOMEM;
	while (i < a->n && j < b->n) {
		uint16_t lo = RTE_MAX(a->v[i].lo, b->v[j].lo);
		uint16_t hi = RTE_MIN(a->v[i].hi, b->v[j].hi);

		if (lo <= hi) {
			out.v[out.n].lo = lo;
			out.v[out.n].hi = hi;
			out.n++;
		}
		if (a->v[i].hi < b->v[j].hi)
			i++;
		else
			j++;
	}
	free(a->v);
	*a = out;
	return 0;
}

static int
plist_alloc(struct plist *l, uint32_t cap)
{
	l->n = 0;
	l->v = calloc(RTE_MAX(cap, 1u), sizeof(*l->v));
	return l->v == NULL ? -ENOMEM : 0;
}

/** Keep the first @p len bits of @p p, zero the rest. */
static void
pfx_cut(struct cls_pfx *p, unsigned int len)
{
	unsigned int byte = len / 8;

	p->len = (uint8_t)len;
	if (byte >= sizeof(p->a))
		return;
	p->a[byte] &= (uint8_t)(0xff00 >> (len % 8));
	memset(p->a + byte + 1, 0, sizeof(p->a) - byte - 1);
}

/** Does prefix @p a contain prefix @p b? */
static bool
pfx_covers(const struct cls_pfx *a, const struct cls_pfx *b)
{
	unsigned int full = a->len / 8, rest = a->len % 8;

	if (a->len > b->len || memcmp(a->a, b->a, full) != 0)
		return false;
	return rest == 0 || ((a->a[full] ^ b->a[full]) & (uint8_t)(0xff00 >> rest)) == 0;
}

/** The prefix @p p, or its complement (@p neg): one prefix per bit of @p p. */
static int
plist_prefix(struct plist *l, const struct rule_prefix *p, bool neg)
{
	if (!neg) {
		if (plist_alloc(l, 1) < 0)
			return -ENOMEM;
		memcpy(l->v[0].a, p->addr, sizeof(l->v[0].a));
		pfx_cut(&l->v[0], p->len);
		l->n = 1;
		return 0;
	}
	if (plist_alloc(l, p->len) < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < p->len; i++) {
		struct cls_pfx *q = &l->v[i];

		memcpy(q->a, p->addr, sizeof(q->a));
		pfx_cut(q, i + 1);
		q->a[i / 8] ^= (uint8_t)(0x80 >> (i % 8));
	}
	l->n = p->len;
	return 0;
}

/** @p a becomes a AND b (each a set of disjoint prefixes). */
static int
plist_and(struct plist *a, const struct plist *b)
{
	struct plist out;

	if (plist_alloc(&out, a->n + b->n) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->n; i++) {
		for (uint32_t j = 0; j < b->n; j++) {
			if (pfx_covers(&a->v[i], &b->v[j]))
				out.v[out.n++] = b->v[j];
			else if (pfx_covers(&b->v[j], &a->v[i]))
				out.v[out.n++] = a->v[i];
		}
	}
	free(a->v);
	*a = out;
	return 0;
}

static int
plist_any(struct plist *l)
{
	if (plist_alloc(l, 1) < 0)
		return -ENOMEM;
	l->n = 1; /* calloc'ed: ::/0 */
	return 0;
}

static uint8_t
fam_af(uint8_t fam)
{
	return fam == CLS_F4 ? FC_AF_INET4 : FC_AF_INET6;
}

/**
 * The condition of rule @p r on keys of family @p fam.
 * @return 1, 0 if it can match no such key (@p t left empty), -ENOMEM.
 */
static int
term_of_rule(const struct rule *r, uint8_t fam, struct term *t)
{
	static const uint8_t local_bit[2] = {CLS_META_SRC_LOCAL, CLS_META_DST_LOCAL};
	const uint8_t local[2] = {r->src_local, r->dst_local};
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (r->family != 0 && r->family != fam_af(fam))
		return 0;
	for (unsigned int i = 0; i < 2; i++) {
		if (local[i] == RULE_LOCAL_YES)
			t->meta_val |= local_bit[i];
		if (local[i] != RULE_LOCAL_ANY)
			t->meta_mask |= local_bit[i];
	}
	if (r->match & RULE_M_CTSTATE) {
		uint8_t set = r->ctstate & CLS_META_CT;

		/* One state bit per key: "in S" is "none outside S". */
		t->meta_mask |= (r->neg & RULE_M_CTSTATE) ? set : (uint8_t)(~set & CLS_META_CT_ALL);
	}
	if (r->match & (RULE_M_SPORT | RULE_M_DPORT))
		t->meta_mask |= CLS_META_NOPORTS;

	if (r->match & RULE_M_PROTO) {
		struct cls_rng one = {r->proto, r->proto};

		rc |= (r->neg & RULE_M_PROTO) ? rlist_complement(&t->proto, &one, 1, UINT8_MAX) :
						rlist_one(&t->proto, r->proto, r->proto);
	} else {
		rc |= rlist_one(&t->proto, 0, UINT8_MAX);
	}
	if (r->match & RULE_M_SPORT)
		rc |= rlist_ports(&t->sport, &r->sport, r->neg & RULE_M_SPORT);
	else
		rc |= rlist_one(&t->sport, 0, UINT16_MAX);
	if (r->match & RULE_M_DPORT)
		rc |= rlist_ports(&t->dport, &r->dport, r->neg & RULE_M_DPORT);
	else
		rc |= rlist_one(&t->dport, 0, UINT16_MAX);
	if (r->match & RULE_M_SRC)
		rc |= plist_prefix(&t->src, &r->src, r->neg & RULE_M_SRC);
	else
		rc |= plist_any(&t->src);
	if (r->match & RULE_M_DST)
		rc |= plist_prefix(&t->dst, &r->dst, r->neg & RULE_M_DST);
	else
		rc |= plist_any(&t->dst);
	if (rc != 0 || term_empty(t)) {
		term_free(t);
		return rc != 0 ? -ENOMEM : 0;
	}
	return 1;
}

/**
 * @p a becomes a AND b.
 * @return 1, 0 if the result is empty, -ENOMEM.
 */
static int
term_and(struct term *a, const struct term *b)
{
	if ((a->meta_val ^ b->meta_val) & a->meta_mask & b->meta_mask)
		return 0;
	a->meta_val |= b->meta_val;
	a->meta_mask |= b->meta_mask;
	if (rlist_and(&a->proto, &b->proto) < 0 || rlist_and(&a->sport, &b->sport) < 0 ||
		rlist_and(&a->dport, &b->dport) < 0 || plist_and(&a->src, &b->src) < 0 ||
		plist_and(&a->dst, &b->dst) < 0)
		return -ENOMEM;
	return term_empty(a) ? 0 : 1;
}

/** ACL rules the term expands to, fields in @p relax counted as "any". */
static uint64_t
term_width(const struct term *t, unsigned int relax)
{
	const uint32_t n[5] = {t->proto.n, t->src.n, t->dst.n, t->sport.n, t->dport.n};
	uint64_t w = 1;

	for (unsigned int i = 0; i < RTE_DIM(n); i++)
		if (!(relax & (1u << i)))
			w = RTE_MIN(w * n[i], (uint64_t)UINT32_MAX);
	return w;
}

/** Fields to relax so the term expands to at most CLS_EXPAND_MAX rules: widest first. */
static unsigned int
term_relax(const struct term *t)
{
	const uint32_t n[5] = {t->proto.n, t->src.n, t->dst.n, t->sport.n, t->dport.n};
	unsigned int relax = 0;

	while (term_width(t, relax) > CLS_EXPAND_MAX) {
		unsigned int widest = 0;

		for (unsigned int i = 1; i < RTE_DIM(n); i++)
			if ((relax & (1u << widest)) || (!(relax & (1u << i)) && n[i] > n[widest]))
				widest = i;
		relax |= 1u << widest;
	}
	return relax;
}

/* ------------------------------------------------------------------------ */
/* Flattening                                                                */
/* ------------------------------------------------------------------------ */

/** Resume target "end of the base chain" (its policy). */
#define LABEL_END UINT32_MAX

struct fent {
	struct term t;
	uint8_t kind;  /**< enum cls_kind */
	uint32_t arg;  /**< result index, or label */
};

/** The whole build. */
struct bld {
	const struct rule_set *s;
	int socket;
	char name[9];
	uint32_t *ord[RULE_TABLE__COUNT]; /**< ordinal of each chain's first rule */
	uint32_t *res_map;                /**< per rule ordinal: result index + 1, 0 = none */
	struct cls_result *res;
	uint32_t n_res;
	uint32_t cap_res;
	uint64_t acl_rules;
	uint64_t mem;
	uint32_t n_ctx;
	uint32_t n_checked;
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
		term_free(&f->e[i].t);
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
flat_push(struct flat *f, struct term *t, uint8_t kind, uint32_t arg)
{
	if (f->n >= CLS_ENTRIES_MAX) {
		term_free(t);
		return -E2BIG;
	}
	if (grow((void **)&f->e, &f->cap, f->n + 1, sizeof(*f->e)) < 0) {
		term_free(t);
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
result_of(struct bld *b, unsigned int table, const struct rule_chain *c, uint32_t j,
	uint32_t *idx)
{
	uint32_t o = b->ord[table][c - b->s->t[table].chains] + j;
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
flat_chain(struct flat *f, const struct rule_chain *c, const struct term *path, uint32_t ret)
{
	const struct rule_set *s = f->b->s;
	int rc = 0;

	for (uint32_t j = 0; j < c->n_rules && rc >= 0; j++) {
		const struct rule *r = &c->rules[j];
		const struct rule_chain *target;
		struct term t;
		uint32_t x;

		rc = term_of_rule(r, f->fam, &t);
		if (rc > 0 && path != NULL) {
			rc = term_and(&t, path);
			if (rc <= 0)
				term_free(&t);
		}
		if (rc <= 0)
			continue;
		switch (r->action) {
		case RULE_ACT_JUMP:
		case RULE_ACT_GOTO:
			target = rule_set_chain_find(s, f->table, r->chain);
			if (target == NULL) {
				term_free(&t);
				return -EINVAL;
			}
			if (r->action == RULE_ACT_GOTO) {
				/* Never comes back: falling off the target returns from @c. */
				rc = flat_chain(f, target, &t, ret);
				if (rc >= 0)
					rc = flat_push(f, &t, CLS_K_RESUME, ret);
				term_free(&t);
				break;
			}
			rc = flat_label(f, &x);
			if (rc >= 0)
				rc = flat_chain(f, target, &t, x);
			if (rc >= 0)
				f->label[x] = f->n;
			term_free(&t);
			break;
		case RULE_ACT_RETURN:
			rc = flat_push(f, &t, CLS_K_RESUME, ret);
			break;
		default:
			rc = result_of(f->b, f->table, c, j, &x);
			if (rc >= 0)
				rc = flat_push(f, &t, CLS_K_RESULT, x);
			else
				term_free(&t);
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
	void *p = rte_zmalloc_socket("rule_cls", RTE_MAX(size, (size_t)1), RTE_CACHE_LINE_SIZE,
		b->socket);

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
	const char *order = getenv("CLS_ORDER") ? getenv("CLS_ORDER") : "sdpm";
	uint8_t in = 1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_categories = n_cat;
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 1, 0, offsetof(struct cls_in4, proto));
	cfg->defs[0].field_index = 0;
	for (const char *o = order; *o; o++) {
		unsigned int nw = fam == CLS_F4 ? 1 : 4;
		uint32_t base;

		switch (*o) {
		case 's':
		case 'd':
			base = fam == CLS_F4 ? (*o == 's' ? offsetof(struct cls_in4, src) : offsetof(struct cls_in4, dst)) :
				(*o == 's' ? offsetof(struct cls_in6, src) : offsetof(struct cls_in6, dst));
			for (unsigned int i = 0; i < nw; i++) {
				def_field(cfg, RTE_ACL_FIELD_TYPE_MASK, 4, in++, base + 4 * i);
				cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)((*o == 's' ? 1 : 1 + nw) + i);
			}
			break;
		case 'p':
			base = fam == CLS_F4 ? offsetof(struct cls_in4, sport) : offsetof(struct cls_in6, sport);
			def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in, base);
			cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)(1 + 2 * nw);
			def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in++, base + 2);
			cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)(2 + 2 * nw);
			break;
		case 'm':
			base = fam == CLS_F4 ? offsetof(struct cls_in4, meta) : offsetof(struct cls_in6, meta);
			def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, base);
			cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)(3 + 2 * nw);
			def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 1, in, base + 1);
			cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)(4 + 2 * nw);
			def_field(cfg, RTE_ACL_FIELD_TYPE_BITMASK, 2, in++, base + 2);
			cfg->defs[cfg->num_fields - 1].field_index = (uint8_t)(5 + 2 * nw);
			break;
		}
	}
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
acl_expand(uint8_t *out, size_t rsz, uint8_t fam, const struct term *t, unsigned int relax,
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

	for (uint32_t a = 0; a < npr; a++)
	for (uint32_t b = 0; b < nsa; b++)
	for (uint32_t c = 0; c < nda; c++)
	for (uint32_t d = 0; d < nsp; d++)
	for (uint32_t e = 0; e < ndp; e++) {
		struct rte_acl_rule *r = (struct rte_acl_rule *)out;
		struct rte_acl_field *f = r->field;

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
		/* fport + 3, + 4: wildcard padding (value 0, mask 0), already zero */
		out += rsz;
	}
	return out;
}

/** Build one rte_acl context from rules [lo, hi) of @p rules; split in halves if too big. */
static int
ctx_build(struct bld *b, struct cls_bank *bk, uint8_t fam, const uint8_t *rules, size_t rsz,
	uint32_t lo, uint32_t hi)
{
	static uint32_t seq;
	struct rte_acl_config cfg;
	struct rte_acl_param prm;
	struct rte_acl_ctx *ctx;
	char name[RTE_ACL_NAMESIZE];
	uint64_t before;
	uint32_t mid;
	int rc;

	if (bk->n_ctx >= CLS_BANK_CTX_MAX)
		return -ENOSPC;
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
		acl_config(&cfg, fam, bk->n_cat);
		if (getenv("CLS_MAXSIZE"))
			cfg.max_size = strtoull(getenv("CLS_MAXSIZE"), NULL, 0);
		rc = rte_acl_build(ctx, &cfg);
	}
	if (rc == 0) {
		b->mem += heap_used() - before;
		if (getenv("CLS_DUMP"))
			rte_acl_dump(ctx);
		if (getenv("CLS_ALG"))
			rte_acl_set_ctx_classify(ctx, atoi(getenv("CLS_ALG")));
		bk->ctx[bk->n_ctx++] = ctx;
		b->n_ctx++;
		return 0;
	}
	rte_acl_free(ctx);
	CLS_LOG(DEBUG, "%s: rte_acl_build of %u rules: %s%s", name, hi - lo, strerror(-rc),
		hi - lo > 1 ? ", splitting" : "");
	if (hi - lo < 2 || (rc != -ENOMEM && rc != -ERANGE))
		return rc;
	/* Too many tries for one context: two contexts, results merged by priority. */
	mid = lo + (hi - lo) / 2;
	rc = ctx_build(b, bk, fam, rules, rsz, lo, mid);
	return rc < 0 ? rc : ctx_build(b, bk, fam, rules, rsz, mid, hi);
}

/* ------------------------------------------------------------------------ */
/* Programs                                                                  */
/* ------------------------------------------------------------------------ */

/** Scratch of prog_build(). */
struct cut {
	uint32_t *tgt;    /**< per old entry: resume target (old index; n = end) */
	uint32_t *next;   /**< per old position: next kept old index at or after it */
	uint32_t *old;    /**< per new entry: its old index */
	uint32_t *newi;   /**< per old entry: its new index */
	uint8_t *relax;   /**< per new entry: RELAX_* bits */
	uint8_t *start;   /**< per new position: starts a segment */
	uint32_t *seg1;   /**< per segment: its first new entry (n_seg + 1 items) */
	uint32_t *segof;  /**< per new position: its segment (m: n_seg) */
	uint8_t *need;    /**< per new entry: keeps its exact term */
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
	free(x->seg1);
	free(x->segof);
	free(x->need);
}

/** Copy term @p t into the program's run-time pools. */
static void
rterm_fill(struct cls_prog *p, struct cls_rterm *rt, const struct term *t, uint32_t *nr,
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

/** Expand the entries of a non-linear bank into rte_acl contexts. */
static int
bank_acl(struct bld *b, struct cls_prog *p, struct cls_bank *bk, const struct flat *f,
	const struct cut *x)
{
	size_t rsz = RTE_ACL_RULE_SZ(p->fam == CLS_F4 ? NF4 : NF6);
	uint64_t count = 0;
	uint8_t *rules, *w;
	int rc;

	for (uint32_t i = bk->first; i < bk->first + bk->n; i++)
		count += term_width(&f->e[x->old[i]].t, x->relax[i]);
	if (b->acl_rules + count > CLS_ACL_RULES_MAX)
		return -E2BIG;
	b->acl_rules += count;
	rules = calloc(count, rsz);
	if (rules == NULL)
		return -ENOMEM;
	w = rules;
	for (uint32_t i = bk->first; i < bk->first + bk->n; i++)
		w = acl_expand(w, rsz, p->fam, &f->e[x->old[i]].t, x->relax[i],
			p->entries[i].seg - bk->seg_first, i);
	rc = ctx_build(b, bk, p->fam, rules, rsz, 0, (uint32_t)count);
	free(rules);
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
	x.seg1 = calloc(n + 2, sizeof(*x.seg1));
	x.segof = calloc(n + 1, sizeof(*x.segof));
	x.need = calloc(n + 1, sizeof(*x.need));
	if (!x.tgt || !x.next || !x.old || !x.newi || !x.relax || !x.start || !x.seg1 ||
		!x.segof || !x.need)
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
		}
		x.relax[i] = (uint8_t)term_relax(&e->t);
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
	p->seg_bank = rt_alloc(b, sizeof(*p->seg_bank) * n_seg);
	p->banks = rt_alloc(b, sizeof(*p->banks) * p->n_banks);
	if (p->entries == NULL || p->seg_bank == NULL || p->banks == NULL)
		goto out;
	for (uint32_t s = 0, i = 0; s < n_seg; s++) {
		p->seg_bank[s] = s / CLS_BANK_SEGS;
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
	for (uint32_t k = 0; k < p->n_banks; k++) {
		struct cls_bank *bk = &p->banks[k];

		bk->seg_first = k * CLS_BANK_SEGS;
		bk->n_seg = RTE_MIN(n_seg - bk->seg_first, (uint32_t)CLS_BANK_SEGS);
		bk->n_cat = bk->n_seg == 1 ? 1 : RTE_ALIGN_CEIL(bk->n_seg, RTE_ACL_RESULTS_MULTIPLIER);
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
		const struct term *t = &f->e[x.old[i]].t;

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
	if (p->banks != NULL)
		for (uint32_t k = 0; k < p->n_banks; k++)
			for (uint32_t i = 0; i < p->banks[k].n_ctx; i++)
				rte_acl_free(p->banks[k].ctx[i]);
	rte_free(p->entries);
	rte_free(p->seg_bank);
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
		b->ord[t] = calloc(s->t[t].n + 1, sizeof(*b->ord[t]));
		if (b->ord[t] == NULL)
			return -ENOMEM;
		for (unsigned int i = 0; i < s->t[t].n; i++) {
			b->ord[t][i] = total;
			total += s->t[t].chains[i].n_rules;
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
