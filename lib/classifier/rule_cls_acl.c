/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: the rte_acl side of building the compiled classifier —
 * the field layout, a bank's entries expanded into ACL rules (a term is a
 * cross product of field sets: protocol ranges, prefixes, port ranges,
 * input and output ports, and a meta byte), and the contexts built from
 * them, split when rte_acl cannot take a bank in one. rule_cls_build.c
 * decides what goes into each bank; rule_cls_priv.h has the layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rule_cls_priv.h"

extern int rule_cls_logtype;

#define CLS_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, rule_cls_logtype, "rule_cls: " fmt "\n", ##__VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* rte_acl                                                                   */
/* ------------------------------------------------------------------------ */

#define NF4 10
#define NF6 16

void *
rule_cls_rt_alloc(struct cls_acl_env *b, size_t size)
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
 * input port, output port | meta + 3 wildcard bytes.
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
		def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in, offsetof(struct cls_in4, inp));
		def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in++, offsetof(struct cls_in4, outp));
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
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in, offsetof(struct cls_in6, inp));
	def_field(cfg, RTE_ACL_FIELD_TYPE_RANGE, 2, in++, offsetof(struct cls_in6, outp));
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
	const struct cls_rng *rg[4] = {
		(relax & RELAX_SPORT) ? &any16 : t->sport.v,
		(relax & RELAX_DPORT) ? &any16 : t->dport.v,
		(relax & RELAX_INP) ? &any16 : t->inp.v,
		(relax & RELAX_OUTP) ? &any16 : t->outp.v,
	};
	const uint32_t nrg[4] = {
		(relax & RELAX_SPORT) ? 1 : t->sport.n,
		(relax & RELAX_DPORT) ? 1 : t->dport.n,
		(relax & RELAX_INP) ? 1 : t->inp.n,
		(relax & RELAX_OUTP) ? 1 : t->outp.n,
	};
	const struct cls_pfx *sa = (relax & RELAX_SRC) ? &any_pfx : t->src.v;
	const struct cls_pfx *da = (relax & RELAX_DST) ? &any_pfx : t->dst.v;
	uint32_t npr = (relax & RELAX_PROTO) ? 1 : t->proto.n;
	uint32_t nsa = (relax & RELAX_SRC) ? 1 : t->src.n;
	uint32_t nda = (relax & RELAX_DST) ? 1 : t->dst.n;
	unsigned int fsrc = 1, fdst = fam == CLS_F4 ? 2 : 5, fport = fam == CLS_F4 ? 3 : 9;
	uint64_t total = (uint64_t)npr * nsa * nda * nrg[0] * nrg[1] * nrg[2] * nrg[3];

	/* One ACL rule per element of proto x src x dst x sport x dport x inp x outp. */
	for (uint64_t k = 0; k < total; k++, out += rsz) {
		struct rte_acl_rule *r = (struct rte_acl_rule *)out;
		struct rte_acl_field *f = r->field;
		uint64_t q = k;
		uint32_t ri[4], c, b, a;

		for (int j = 3; j >= 0; j--) {
			ri[j] = (uint32_t)(q % nrg[j]);
			q /= nrg[j];
		}
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
		for (unsigned int j = 0; j < 4; j++) {
			f[fport + j].value.u16 = rg[j][ri[j]].lo;
			f[fport + j].mask_range.u16 = rg[j][ri[j]].hi;
		}
		f[fport + 4].value.u8 = t->meta_val;
		f[fport + 4].mask_range.u8 = t->meta_mask;
		/* fport + 5 and + 6: the wildcard padding, left zero (mask 0) */
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
	k |= (uint64_t)(f[fport + 2].value.u16 == 0 && f[fport + 2].mask_range.u16 == UINT16_MAX)
	     << 15;
	k |= (uint64_t)(f[fport + 3].value.u16 == 0 && f[fport + 3].mask_range.u16 == UINT16_MAX)
	     << 14;
	k |= f[fport + 4].mask_range.u8;
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
ctx_build(struct cls_acl_env *b, struct ctxv *cv, uint32_t n_cat, uint8_t fam, uint8_t *rules, size_t rsz,
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

	if (rule_cls_grow((void **)&cv->v, &cv->cap, cv->n + 1, sizeof(*cv->v)) < 0)
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

/** Expand the entries of a non-linear bank into rte_acl contexts. */
int
rule_cls_bank_acl(struct cls_acl_env *b, struct cls_prog *p, struct cls_bank *bk,
	const struct cls_term *const t[], const uint8_t relax[])
{
	size_t rsz = RTE_ACL_RULE_SZ(p->fam == CLS_F4 ? NF4 : NF6);
	struct ctxv cv = {0};
	uint64_t count = 0;
	uint8_t *rules, *w;
	int rc;

	for (uint32_t i = bk->first; i < bk->first + bk->n; i++)
		if (t[i] != NULL)
			count += rule_cls_term_width(t[i], relax[i]);
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
		if (t[i] != NULL)
			w = acl_expand(w, rsz, p->fam, t[i], relax[i], p->entries[i].seg - bk->seg_first,
				i);
	rc = ctx_build(b, &cv, bk->n_cat, p->fam, rules, rsz, 0, (uint32_t)count, false);
	free(rules);
	if (rc == 0) {
		bk->ctx = rule_cls_rt_alloc(b, sizeof(*bk->ctx) * cv.n);
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

