/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: the term algebra of the compiled classifier. A term is what
 * one flattened entry matches: a meta byte under a mask (ctstate, local
 * bits, "has ports") and, for each of protocol, source, destination, the
 * two ports and the input and output port, a union of ranges or prefixes. Rules become terms
 * (negations complemented), inlined chains AND their jump's term in, and
 * the builder (rule_cls_build.c) asks how wide a term is, which fields to
 * relax, and whether one term covers another. Build time only: plain
 * malloc, nothing here runs on a classifying thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rule_cls_priv.h"

void
rule_cls_term_free(struct cls_term *t)
{
	free(t->proto.v);
	free(t->sport.v);
	free(t->dport.v);
	free(t->inp.v);
	free(t->outp.v);
	free(t->src.v);
	free(t->dst.v);
	memset(t, 0, sizeof(*t));
}

static bool
term_empty(const struct cls_term *t)
{
	return t->proto.n == 0 || t->sport.n == 0 || t->dport.n == 0 || t->inp.n == 0 ||
	       t->outp.n == 0 || t->src.n == 0 || t->dst.n == 0;
}

static int
rlist_alloc(struct cls_rlist *l, uint32_t cap)
{
	l->n = 0;
	l->v = malloc(sizeof(*l->v) * RTE_MAX(cap, 1u));
	return l->v == NULL ? -ENOMEM : 0;
}

static int
rlist_one(struct cls_rlist *l, uint16_t lo, uint16_t hi)
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
rlist_complement(struct cls_rlist *l, const struct cls_rng *v, uint32_t n, uint32_t max)
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
rlist_ports(struct cls_rlist *l, const struct rule_ports *p, bool neg)
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
rlist_and(struct cls_rlist *a, const struct cls_rlist *b)
{
	struct cls_rlist out;
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
plist_alloc(struct cls_plist *l, uint32_t cap)
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
plist_prefix(struct cls_plist *l, const struct rule_prefix *p, bool neg)
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
plist_and(struct cls_plist *a, const struct cls_plist *b)
{
	struct cls_plist out;
	uint32_t n = 0;

	/* Count first: n + m results for disjoint sets, but never trust that with memory. */
	for (uint32_t i = 0; i < a->n; i++)
		for (uint32_t j = 0; j < b->n; j++)
			n += pfx_covers(&a->v[i], &b->v[j]) || pfx_covers(&b->v[j], &a->v[i]);
	if (plist_alloc(&out, n) < 0)
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
plist_any(struct cls_plist *l)
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

/* Add port numbers @p lo .. @p hi to list @p l (ascending), joining a range it continues. */
static void
rlist_push(struct cls_rlist *l, uint32_t lo, uint32_t hi)
{
	if (l->n > 0 && l->v[l->n - 1].hi + 1u == lo) {
		l->v[l->n - 1].hi = (uint16_t)hi;
		return;
	}
	l->v[l->n].lo = (uint16_t)lo;
	l->v[l->n].hi = (uint16_t)hi;
	l->n++;
}

/**
 * The ports (0 .. 65535, RULE_IF_NONE among them) whose name interface
 * pattern @p pat matches, complemented if @p neg: those with a name in the
 * set, then every number past them (named "", as RULE_IF_NONE is) but
 * RULE_IF_LO, named "lo" (this host's loopback).
 */
static int
rlist_ifaces(struct cls_rlist *l, const struct rule_set *s, const char *pat, bool neg)
{
	unsigned int n = rule_set_port_count(s);
	bool none = rule_if_match(pat, "") != neg;

	if (rlist_alloc(l, n + 3) < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		if (rule_if_match(pat, rule_set_port_name(s, i)) != neg)
			rlist_push(l, i, i);
	if (none && n < RULE_IF_LO)
		rlist_push(l, n, RULE_IF_LO - 1);
	if (rule_if_match(pat, RULE_IF_LO_NAME) != neg)
		rlist_push(l, RULE_IF_LO, RULE_IF_LO);
	if (none)
		rlist_push(l, RULE_IF_NONE, RULE_IF_NONE);
	return 0;
}

/**
 * The condition of rule @p r on keys of family @p fam.
 * @return 1, 0 if it can match no such key (@p t left empty), -ENOMEM.
 */
int
rule_cls_term_of_rule(const struct rule_set *s, const struct rule *r, uint8_t fam,
	struct cls_term *t)
{
	static const uint8_t local_bit[2] = {CLS_META_SRC_LOCAL, CLS_META_DST_LOCAL};
	const uint8_t local[2] = {r->src_local, r->dst_local};
	unsigned int late;
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
	/* A ctstate match after an extension match is checked with them, in its place. */
	if ((r->match & RULE_M_CTSTATE) && !(r->ctstate & (RULE_CT_SNAT | RULE_CT_DNAT)) &&
		!rule_late_ctstate(r)) {
		uint8_t set = r->ctstate & CLS_META_CT_ALL;

		/* One state bit per key: "in S" is "none outside S". */
		t->meta_mask |= (r->neg & RULE_M_CTSTATE) ? set : (uint8_t)(~set & CLS_META_CT_ALL);
	}
	/* A port match after an extension match is checked with them, in its place. */
	late = rule_late_ports(r);
	if (r->match & (RULE_M_SPORT | RULE_M_DPORT) & ~late)
		t->meta_mask |= CLS_META_NOPORTS;

	if (r->match & RULE_M_PROTO) {
		struct cls_rng one = {r->proto, r->proto};

		rc |= (r->neg & RULE_M_PROTO) ? rlist_complement(&t->proto, &one, 1, UINT8_MAX)
					      : rlist_one(&t->proto, r->proto, r->proto);
	} else {
		rc |= rlist_one(&t->proto, 0, UINT8_MAX);
	}
	if (r->match & RULE_M_SPORT & ~late)
		rc |= rlist_ports(&t->sport, &r->sport, r->neg & RULE_M_SPORT);
	else
		rc |= rlist_one(&t->sport, 0, UINT16_MAX);
	if (r->match & RULE_M_DPORT & ~late)
		rc |= rlist_ports(&t->dport, &r->dport, r->neg & RULE_M_DPORT);
	else
		rc |= rlist_one(&t->dport, 0, UINT16_MAX);
	if (r->match & RULE_M_IN)
		rc |= rlist_ifaces(&t->inp, s, r->in_if, r->neg & RULE_M_IN);
	else
		rc |= rlist_one(&t->inp, 0, UINT16_MAX);
	if (r->match & RULE_M_OUT)
		rc |= rlist_ifaces(&t->outp, s, r->out_if, r->neg & RULE_M_OUT);
	else
		rc |= rlist_one(&t->outp, 0, UINT16_MAX);
	if (r->match & RULE_M_SRC)
		rc |= plist_prefix(&t->src, &r->src, r->neg & RULE_M_SRC);
	else
		rc |= plist_any(&t->src);
	if (r->match & RULE_M_DST)
		rc |= plist_prefix(&t->dst, &r->dst, r->neg & RULE_M_DST);
	else
		rc |= plist_any(&t->dst);
	if (rc != 0 || term_empty(t)) {
		rule_cls_term_free(t);
		return rc != 0 ? -ENOMEM : 0;
	}
	return 1;
}

/**
 * @p a becomes a AND b.
 * @return 1, 0 if the result is empty, -ENOMEM.
 */
int
rule_cls_term_and(struct cls_term *a, const struct cls_term *b)
{
	if ((a->meta_val ^ b->meta_val) & a->meta_mask & b->meta_mask)
		return 0;
	a->meta_val |= b->meta_val;
	a->meta_mask |= b->meta_mask;
	if (rlist_and(&a->proto, &b->proto) < 0 || rlist_and(&a->sport, &b->sport) < 0 ||
		rlist_and(&a->dport, &b->dport) < 0 || rlist_and(&a->inp, &b->inp) < 0 ||
		rlist_and(&a->outp, &b->outp) < 0 || plist_and(&a->src, &b->src) < 0 ||
		plist_and(&a->dst, &b->dst) < 0)
		return -ENOMEM;
	return term_empty(a) ? 0 : 1;
}

/** ACL rules the term expands to, fields in @p relax counted as "any". */
uint64_t
rule_cls_term_width(const struct cls_term *t, unsigned int relax)
{
	const uint32_t n[7] = {t->proto.n, t->src.n, t->dst.n, t->sport.n, t->dport.n, t->inp.n,
		t->outp.n};
	uint64_t w = 1;

	for (unsigned int i = 0; i < RTE_DIM(n); i++)
		if (!(relax & (1u << i)))
			w = RTE_MIN(w * n[i], (uint64_t)UINT32_MAX);
	return w;
}

/** Fields to relax so the term expands to at most CLS_EXPAND_MAX rules: widest first. */
unsigned int
rule_cls_term_relax(const struct cls_term *t)
{
	const uint32_t n[7] = {t->proto.n, t->src.n, t->dst.n, t->sport.n, t->dport.n, t->inp.n,
		t->outp.n};
	unsigned int relax = 0;

	while (rule_cls_term_width(t, relax) > CLS_EXPAND_MAX) {
		int widest = -1;

		for (unsigned int i = 0; i < RTE_DIM(n); i++)
			if (!(relax & (1u << i)) && (widest < 0 || n[i] > n[widest]))
				widest = (int)i;
		relax |= 1u << widest;
	}
	return relax;
}

/** Is every range of @p x inside a range of @p e (both sorted, disjoint)? */
static bool
rlist_covers(const struct cls_rlist *e, const struct cls_rlist *x)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < x->n; i++) {
		while (j < e->n && e->v[j].hi < x->v[i].lo)
			j++;
		if (j == e->n || e->v[j].lo > x->v[i].lo || e->v[j].hi < x->v[i].hi)
			return false;
	}
	return true;
}

/** Is every prefix of @p x inside a prefix of @p e? */
static bool
plist_covers(const struct cls_plist *e, const struct cls_plist *x)
{
	for (uint32_t i = 0; i < x->n; i++) {
		uint32_t j;

		for (j = 0; j < e->n; j++)
			if (pfx_covers(&e->v[j], &x->v[i]))
				break;
		if (j == e->n)
			return false;
	}
	return true;
}

/** Does every key that matches @p x match @p e? */
bool
rule_cls_term_covers(const struct cls_term *e, const struct cls_term *x)
{
	return (e->meta_mask & ~x->meta_mask) == 0 &&
	       ((e->meta_val ^ x->meta_val) & e->meta_mask) == 0 &&
	       rlist_covers(&e->proto, &x->proto) && rlist_covers(&e->sport, &x->sport) &&
	       rlist_covers(&e->dport, &x->dport) && rlist_covers(&e->inp, &x->inp) &&
	       rlist_covers(&e->outp, &x->outp) && plist_covers(&e->src, &x->src) &&
	       plist_covers(&e->dst, &x->dst);
}

/** Fields (of proto, src, dst, sport, dport) the term restricts. */
unsigned int
rule_cls_term_narrow(const struct cls_term *t)
{
	return (t->proto.n != 1 || t->proto.v[0].lo != 0 || t->proto.v[0].hi != UINT8_MAX) +
	       (t->sport.n != 1 || t->sport.v[0].lo != 0 || t->sport.v[0].hi != UINT16_MAX) +
	       (t->dport.n != 1 || t->dport.v[0].lo != 0 || t->dport.v[0].hi != UINT16_MAX) +
	       (t->inp.n != 1 || t->inp.v[0].lo != 0 || t->inp.v[0].hi != UINT16_MAX) +
	       (t->outp.n != 1 || t->outp.v[0].lo != 0 || t->outp.v[0].hi != UINT16_MAX) +
	       (t->src.n != 1 || t->src.v[0].len != 0) + (t->dst.n != 1 || t->dst.v[0].len != 0);
}
