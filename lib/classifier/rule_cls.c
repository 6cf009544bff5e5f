/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: the compiled classifier's evaluator — the slow path's way to
 * the filter verdict and NAT decision of a new flow, with exactly the
 * results of the reference evaluator (rule_ref.c) at trie-walk cost.
 * rule_cls_build.c compiles the set; rule_cls_priv.h has the layout.
 *
 * Per burst: turn keys into rte_acl inputs, pick each key's program from
 * its hook and family, search the first bank of each program for all its
 * keys in one rte_acl_classify() call, then walk each key's segments
 * (further banks, only reached past a RETURN, are searched one key at a
 * time). Hook selection mirrors rule_ref_filter() and rule_ref_nat().
 */
#include <errno.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#include "rule_cls_priv.h"

static bool
ct_valid(unsigned int ct)
{
	return ct == 0 || ct == RULE_CT_IGNORE || (ct <= RULE_CT_INVALID && (ct & (ct - 1)) == 0);
}

/** The rte_acl input of a key. */
static void
key_input(const struct fc_key *k, unsigned int ct, unsigned int kflags, union cls_in *in)
{
	uint8_t meta, lf = fc_key_flags(k);

	meta = ct == 0 ? CLS_META_UNTRACKED : ct == RULE_CT_IGNORE ? 0 : (uint8_t)ct;
	if (lf & FC_KEY_F_SRC_LOCAL)
		meta |= CLS_META_SRC_LOCAL;
	if (lf & FC_KEY_F_DST_LOCAL)
		meta |= CLS_META_DST_LOCAL;
	if (kflags & RULE_KEY_F_NOPORTS)
		meta |= CLS_META_NOPORTS;
	if (k->family == FC_AF_INET4) {
		struct cls_in4 *x = &in->v4;

		memset(x, 0, sizeof(*x));
		x->proto = k->v4.proto;
		x->src = k->v4.src;
		x->dst = k->v4.dst;
		x->sport = k->v4.sport;
		x->dport = k->v4.dport;
		x->meta = meta;
	} else {
		struct cls_in6 *x = &in->v6;

		memset(x, 0, sizeof(*x));
		x->proto = k->v6.proto;
		memcpy(x->src, k->v6.src, sizeof(x->src));
		memcpy(x->dst, k->v6.dst, sizeof(x->dst));
		x->sport = k->v6.sport;
		x->dport = k->v6.dport;
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
	uint16_t sport, dport;
	uint8_t meta, proto;

	if (p->fam == CLS_F4) {
		meta = in->v4.meta;
		proto = in->v4.proto;
		sport = rte_be_to_cpu_16(in->v4.sport);
		dport = rte_be_to_cpu_16(in->v4.dport);
		src = (const uint8_t *)&in->v4.src;
		dst = (const uint8_t *)&in->v4.dst;
	} else {
		meta = in->v6.meta;
		proto = in->v6.proto;
		sport = rte_be_to_cpu_16(in->v6.sport);
		dport = rte_be_to_cpu_16(in->v6.dport);
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
	return in_prefixes(a, t->n_src, src) && in_prefixes(a + t->n_src, t->n_dst, dst);
}

/**
 * For @p m keys, the first entry (index + 1, 0 for none) of each segment of
 * bank @p bk that the key matches: bk->n_cat results per key into @p res.
 */
static void
bank_search(const struct cls_prog *p, const struct cls_bank *bk, const union cls_in *const in[],
	const uint8_t *const data[], uint32_t m, uint32_t *res)
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
	rte_acl_classify(bk->ctx[0], (const uint8_t **)(uintptr_t)data, res, m, bk->n_cat);
	for (uint32_t c = 1; c < bk->n_ctx; c++) {
		/* A bank split over contexts: the lowest entry wins. */
		rte_acl_classify(bk->ctx[c], (const uint8_t **)(uintptr_t)data, tmp, m, bk->n_cat);
		for (uint32_t i = 0; i < m * bk->n_cat; i++)
			if (tmp[i] != 0 && (res[i] == 0 || tmp[i] < res[i]))
				res[i] = tmp[i];
	}
}

/**
 * Evaluate program @p p for @p m keys: dec[k] receives the deciding entry,
 * or CLS_END (the base chain's policy). Banks are searched in order, each
 * for all the keys whose walk has reached it: segment numbers only grow.
 */
static void
prog_eval(const struct cls_prog *p, const union cls_in *const in[], const uint8_t *const data[],
	uint32_t m, uint32_t dec[])
{
	uint32_t res[CLS_BURST * RTE_ACL_MAX_CATEGORIES];
	const union cls_in *bin[CLS_BURST];
	const uint8_t *bdata[CLS_BURST];
	uint32_t seg[CLS_BURST], bk_of[CLS_BURST];

	for (uint32_t k = 0; k < m; k++) {
		seg[k] = 0;
		dec[k] = CLS_END;
	}
	for (uint32_t b = 0; b < p->n_banks; b++) {
		const struct cls_bank *bk = &p->banks[b];
		uint32_t last = bk->seg_first + bk->n_seg, nb = 0;

		for (uint32_t k = 0; k < m; k++) {
			if (seg[k] < bk->seg_first || seg[k] >= last)
				continue;
			bk_of[nb] = k;
			bin[nb] = in[k];
			bdata[nb] = data[k];
			nb++;
		}
		if (nb == 0)
			continue;
		bank_search(p, bk, bin, bdata, nb, res);
		for (uint32_t j = 0; j < nb; j++) {
			const uint32_t *r = res + j * bk->n_cat;
			uint32_t k = bk_of[j], s = seg[k];

			while (s >= bk->seg_first && s < last) {
				const struct cls_entry *e;
				uint32_t u = r[s - bk->seg_first];

				if (u == 0) {
					s++;
					continue;
				}
				e = &p->entries[u - 1];
				if (e->check &&
					!rule_cls_term_match(p, &p->terms[e->term], in[k])) {
					/* A relaxed entry that did not really match: it ends its
					 * segment. */
					s = e->seg + 1;
					continue;
				}
				if (e->kind == CLS_K_RESUME) {
					s = e->arg;
					continue;
				}
				dec[k] = u - 1;
				s = UINT32_MAX;
			}
			seg[k] = s;
		}
	}
}

/**
 * Evaluate each key @p i with prog[i] != NULL: dec[i] receives the deciding
 * entry or CLS_END. Keys sharing a program are evaluated together.
 */
static void
eval_burst(const struct cls_prog *const prog[], const union cls_in in[], uint32_t n, uint32_t dec[])
{
	const union cls_in *gin[CLS_BURST];
	const uint8_t *gdata[CLS_BURST];
	uint32_t idx[CLS_BURST], gdec[CLS_BURST];
	bool done[CLS_BURST];

	for (uint32_t i = 0; i < n; i++) {
		done[i] = prog[i] == NULL;
		dec[i] = CLS_END;
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
			idx[m] = j;
			gin[m] = &in[j];
			gdata[m] = (const uint8_t *)&in[j];
			m++;
		}
		prog_eval(p, gin, gdata, m, gdec);
		for (uint32_t k = 0; k < m; k++)
			dec[idx[k]] = gdec[k];
	}
}

static int
check_burst(const struct rule_cls *c, const struct fc_key *const keys[], const uint8_t ctstate[],
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

static void
inputs(const struct fc_key *const keys[], const uint8_t ctstate[], const uint8_t kflags[],
	uint32_t n, union cls_in in[])
{
	for (uint32_t i = 0; i < n; i++)
		key_input(keys[i], ctstate != NULL ? ctstate[i] : 0, kflags != NULL ? kflags[i] : 0,
			&in[i]);
}

static unsigned int
fam_of(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? CLS_F4 : CLS_F6;
}

/* ------------------------------------------------------------------------ */
/* Filter                                                                    */
/* ------------------------------------------------------------------------ */

static void
filter_result(const struct rule_cls *c, const struct cls_prog *p, uint32_t dec, enum rule_hook hook,
	struct rule_result *res)
{
	const struct cls_result *r;

	memset(res, 0, sizeof(*res));
	res->hook = (uint8_t)hook;
	if (p == NULL || dec == CLS_END) {
		res->verdict = p != NULL && p->policy == RULE_POLICY_DROP ? RULE_VERDICT_DROP
									  : RULE_VERDICT_ACCEPT;
		res->rule_id = RULE_ID_POLICY;
		return;
	}
	r = &c->results[p->entries[dec].arg];
	res->rule_id = r->rule_id;
	if (r->action == RULE_ACT_DROP) {
		res->verdict = RULE_VERDICT_DROP;
		return;
	}
	res->verdict = RULE_VERDICT_ACCEPT;
	memcpy(res->channel, r->channel, sizeof(res->channel));
}

static void
filter_chunk(const struct rule_cls *c, const struct fc_key *const keys[], const uint8_t ctstate[],
	const uint8_t kflags[], uint32_t n, struct rule_result res[])
{
	const struct cls_prog *p1[CLS_BURST], *p2[CLS_BURST];
	uint32_t d1[CLS_BURST], d2[CLS_BURST];
	enum rule_hook h1[CLS_BURST];
	union cls_in in[CLS_BURST];
	uint32_t n2 = 0;

	inputs(keys, ctstate, kflags, n, in);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t lf = fc_key_flags(keys[i]);

		if (!(lf & FC_KEY_F_SRC_LOCAL))
			h1[i] = (lf & FC_KEY_F_DST_LOCAL) ? RULE_HOOK_INPUT : RULE_HOOK_FORWARD;
		else
			h1[i] = RULE_HOOK_OUTPUT;
		p1[i] = c->hook[RULE_TABLE_FILTER][h1[i]][fam_of(keys[i])];
	}
	eval_burst(p1, in, n, d1);
	for (uint32_t i = 0; i < n; i++) {
		filter_result(c, p1[i], d1[i], h1[i], &res[i]);
		p2[i] = NULL;
		d2[i] = d1[i];
		if ((fc_key_flags(keys[i]) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) !=
				(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL) ||
			res[i].verdict != RULE_VERDICT_ACCEPT)
			continue;
		/* Local to local, accepted at OUTPUT: then INPUT, as a looped-back packet. */
		p2[i] = c->hook[RULE_TABLE_FILTER][RULE_HOOK_INPUT][fam_of(keys[i])];
		n2++;
	}
	if (n2 == 0)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (p2[i] == p1[i])
			p2[i] = NULL; /* same chain, same key: same decision as at OUTPUT */
	eval_burst(p2, in, n, d2);
	for (uint32_t i = 0; i < n; i++) {
		struct rule_result out = res[i];
		const struct cls_prog *p = p2[i] != NULL ? p2[i] : p1[i];

		if ((fc_key_flags(keys[i]) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) !=
				(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL) ||
			out.verdict != RULE_VERDICT_ACCEPT)
			continue;
		filter_result(c, p, p2[i] != NULL ? d2[i] : d1[i], RULE_HOOK_INPUT, &res[i]);
		if (res[i].verdict == RULE_VERDICT_ACCEPT && res[i].channel[0] == '\0')
			memcpy(res[i].channel, out.channel, sizeof(res[i].channel));
	}
}

int
rule_cls_filter_bulk(const struct rule_cls *c, const struct fc_key *const keys[],
	const uint8_t ctstate[], const uint8_t kflags[], unsigned int n, struct rule_result res[])
{
	int rc = check_burst(c, keys, ctstate, n, res);

	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < n; i += CLS_BURST)
		filter_chunk(c, keys + i, ctstate != NULL ? ctstate + i : NULL,
			kflags != NULL ? kflags + i : NULL, RTE_MIN(n - i, (unsigned int)CLS_BURST),
			res + i);
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

/* ------------------------------------------------------------------------ */
/* NAT                                                                       */
/* ------------------------------------------------------------------------ */

static void
nat_chunk(const struct rule_cls *c, enum rule_nat_stage stage, const struct fc_key *const keys[],
	const uint8_t ctstate[], const uint8_t kflags[], uint32_t n, struct rule_nat_result res[])
{
	const struct cls_prog *p[CLS_BURST];
	union cls_in in[CLS_BURST];
	enum rule_hook h[CLS_BURST];
	uint32_t d[CLS_BURST];

	inputs(keys, ctstate, kflags, n, in);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t lf = fc_key_flags(keys[i]);

		if (stage == RULE_NAT_DST)
			h[i] = (lf & FC_KEY_F_SRC_LOCAL) ? RULE_HOOK_OUTPUT : RULE_HOOK_PREROUTING;
		else
			h[i] = (lf & FC_KEY_F_DST_LOCAL) && !(lf & FC_KEY_F_SRC_LOCAL)
				       ? RULE_HOOK_INPUT
				       : RULE_HOOK_POSTROUTING;
		p[i] = c->hook[RULE_TABLE_NAT][h[i]][fam_of(keys[i])];
	}
	eval_burst(p, in, n, d);
	for (uint32_t i = 0; i < n; i++) {
		struct rule_nat_result *r = &res[i];
		const struct cls_result *x;

		memset(r, 0, sizeof(*r));
		r->hook = (uint8_t)h[i];
		r->action = RULE_ACT_ACCEPT;
		if (p[i] == NULL) {
			r->rule_id = RULE_ID_NONE;
			continue;
		}
		if (d[i] == CLS_END) {
			r->rule_id = RULE_ID_POLICY;
			continue;
		}
		x = &c->results[p[i]->entries[d[i]].arg];
		r->rule_id = x->rule_id;
		r->action = x->action;
		if (x->action != RULE_ACT_ACCEPT)
			r->nat = x->nat;
	}
}

int
rule_cls_nat_bulk(const struct rule_cls *c, enum rule_nat_stage stage,
	const struct fc_key *const keys[], const uint8_t ctstate[], const uint8_t kflags[],
	unsigned int n, struct rule_nat_result res[])
{
	int rc = check_burst(c, keys, ctstate, n, res);

	if (rc < 0)
		return rc;
	if (stage != RULE_NAT_DST && stage != RULE_NAT_SRC)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i += CLS_BURST)
		nat_chunk(c, stage, keys + i, ctstate != NULL ? ctstate + i : NULL,
			kflags != NULL ? kflags + i : NULL, RTE_MIN(n - i, (unsigned int)CLS_BURST),
			res + i);
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
