/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/classifier: the projection of a key onto what the rules tell apart
 * (rule_cls_key_project()).
 *
 * The rules' source port ranges cut 0..65535 into intervals; two ports in
 * one interval are in or out of every range together, so every rule's
 * --sport answers the same for both. Likewise --dport, and the IPv4 -s
 * and -d prefixes cut the address space. Intervals that the same ranges
 * cover (the gaps between a thousand exact ports or addresses: none) are
 * one class. A key's ports and IPv4 addresses are replaced by the number
 * of their interval's class; an IPv6 address is
 * cleared when no IPv6 rule reads that side, kept otherwise. A set with an
 * extension match that may read addresses or ports (rule_set_key_reads():
 * RULE_READS_EXT) gets no projection at all.
 *
 * A field whose value no rule's range holds (its class is the one with no
 * range: proj_none) fails every rule that asks for it (a match of the key
 * fields, not negated, not placed after an extension match). Those rules
 * then decide nothing for the key, and a field only they read is no part
 * of what the key's walks depend on: it projects to its proj_none class
 * too (proj_keep, a table by the key's fields in proj_none). A set of
 * exact five-tuples (bench-peers' storm set) thus gives every connection
 * whose source address or port no rule names one projection, where the
 * classes alone gave one per server address and port.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rule_cls_priv.h"

struct bounds {
	uint32_t *v;
	uint32_t n, cap;
	uint64_t *s;      /**< the ranges themselves, lo << 32 | hi */
	uint32_t ns, scap;
};

/* The most range numbers the classes of one field may list in all (else: one an interval). */
#define PROJ_CLASS_POOL (1u << 22)

/* The projected fields, as bits of a set (struct rule_cls::proj_none's and proj_keep's order). */
#define PROJ_F_SPORT 1u
#define PROJ_F_DPORT 2u
#define PROJ_F_SRC 4u
#define PROJ_F_DST 8u
#define PROJ_F_SETS 16u

static int
bound_add(struct bounds *b, uint32_t x)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap != 0 ? b->cap * 2 : 64;
		uint32_t *v = realloc(b->v, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = x;
	return 0;
}

/* Interval [lo, hi] of a space whose top is @p top: its start and the start after it. */
static int
interval_add(struct bounds *b, uint32_t lo, uint32_t hi, uint32_t top)
{
	int rc = bound_add(b, lo);

	if (rc == 0 && hi < top)
		rc = bound_add(b, hi + 1);
	if (rc == 0 && b->ns == b->scap) {
		uint32_t cap = b->scap != 0 ? b->scap * 2 : 64;
		uint64_t *v = realloc(b->s, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		b->s = v;
		b->scap = cap;
	}
	if (rc == 0)
		b->s[b->ns++] = (uint64_t)lo << 32 | hi;
	return rc;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted, without duplicates; 0 always present. */
static void
bounds_finish(struct bounds *b)
{
	uint32_t n = 0;

	qsort(b->v, b->n, sizeof(*b->v), cmp_u32);
	for (uint32_t i = 0; i < b->n; i++)
		if (n == 0 || b->v[i] != b->v[n - 1])
			b->v[n++] = b->v[i];
	b->n = n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ranges covering interval @p i's start, as numbers into b->s (ascending). */
struct cover {
	uint32_t *v;
	uint32_t n;
};

static uint32_t
cover_hash(const struct cover *a)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < a->n; i++)
		h = (h ^ a->v[i]) * 16777619u;
	return h ^ a->n;
}

/*
 * The class of each interval of finished bounds @p b into @p cls: two
 * intervals covered by the same ranges (exactly: the lists compared)
 * share one, numbered from 0 in the order first met. Where the lists
 * would take more than PROJ_CLASS_POOL numbers in all, or memory fails,
 * each interval is a class of its own (its number). @p none receives the
 * class of the intervals no range covers (UINT32_MAX: none, or the
 * fallback).
 */
static void
bounds_classes(struct bounds *b, uint32_t *cls, uint32_t *none)
{
	uint32_t n = 0, next = 0, np = 0, pcap = 0, tsz = 1;
	uint32_t *act = NULL, *pool = NULL, *tab = NULL, *off = NULL, *len = NULL;
	bool ok = false;

	*none = UINT32_MAX;

	/* The ranges by start, each once. */
	qsort(b->s, b->ns, sizeof(*b->s), cmp_u64);
	for (uint32_t i = 0; i < b->ns; i++)
		if (n == 0 || b->s[i] != b->s[n - 1])
			b->s[n++] = b->s[i];
	b->ns = n;
	while (tsz < 2 * b->n)
		tsz <<= 1;
	act = malloc(((size_t)b->ns + 1) * sizeof(*act));
	tab = calloc(tsz, sizeof(*tab));
	off = malloc((size_t)b->n * sizeof(*off));
	len = malloc((size_t)b->n * sizeof(*len));
	if (act == NULL || tab == NULL || off == NULL || len == NULL)
		goto out;
	n = 0; /* active ranges */
	for (uint32_t i = 0, j = 0; i < b->n; i++) {
		uint32_t x = b->v[i], k = 0, c;
		struct cover cv = {.v = act};
		uint32_t h;

		/* Ranges ended before x leave; those starting at x come (every start is a bound). */
		for (uint32_t a = 0; a < n; a++)
			if ((uint32_t)b->s[act[a]] >= x)
				act[k++] = act[a];
		n = k;
		while (j < b->ns && (uint32_t)(b->s[j] >> 32) <= x) {
			if ((uint32_t)b->s[j] >= x)
				act[n++] = j;
			j++;
		}
		cv.n = n;
		h = cover_hash(&cv);
		for (uint32_t t = h & (tsz - 1);; t = (t + 1) & (tsz - 1)) {
			if (tab[t] == 0) {
				if ((uint64_t)np + n > PROJ_CLASS_POOL)
					goto out;
				if (np + n > pcap) {
					uint32_t cap = pcap != 0 ? pcap : 256;
					uint32_t *v;

					while (cap < np + n)
						cap *= 2;
					v = realloc(pool, (size_t)cap * sizeof(*v));
					if (v == NULL)
						goto out;
					pool = v;
					pcap = cap;
				}
				if (n != 0)
					memcpy(pool + np, act, (size_t)n * sizeof(*act));
				off[next] = np;
				len[next] = n;
				np += n;
				tab[t] = ++next;
				c = next - 1;
				break;
			}
			c = tab[t] - 1;
			if (len[c] == n && (n == 0 || memcmp(pool + off[c], act, n * sizeof(*act)) == 0))
				break;
		}
		cls[i] = c;
		if (n == 0)
			*none = c;
	}
	ok = true;
out:
	if (!ok) {
		for (uint32_t i = 0; i < b->n; i++)
			cls[i] = i;
		*none = UINT32_MAX;
	}
	free(act);
	free(pool);
	free(tab);
	free(off);
	free(len);
}

/* Bounds of the address prefix @p pf of rule @p r as side @p d (0 source, 1 destination). */
static int
addr_bounds(struct rule_cls *c, const struct rule *r, const struct rule_prefix *pf, unsigned int d,
	struct bounds *a4)
{
	uint32_t lo, mask;

	if (r->family != FC_AF_INET4)
		c->proj_addr6[d] = true;
	if (r->family == FC_AF_INET6)
		return 0;
	if (pf->len > 32) {
		c->proj_addr4_full[d] = true;
		return 0;
	}
	memcpy(&lo, pf->addr, 4);
	lo = rte_be_to_cpu_32(lo);
	mask = pf->len == 0 ? 0 : UINT32_MAX << (32 - pf->len);
	lo &= mask;
	return interval_add(a4, lo, lo | ~mask, UINT32_MAX);
}

/*
 * The projected fields rule @p r reads, into @p reads indexed by those
 * whose values in no range make it fail: a match of the key fields, not
 * negated, not after an extension match (rule_late_ports()).
 */
static void
rule_fields(const struct rule *r, uint8_t reads[PROJ_F_SETS])
{
	static const uint8_t m[4] = {RULE_M_SPORT, RULE_M_DPORT, RULE_M_SRC, RULE_M_DST};
	unsigned int late = rule_late_ports(r), read = 0, fail = 0;

	for (unsigned int f = 0; f < 4; f++) {
		if (!(r->match & m[f]))
			continue;
		read |= 1u << f;
		if (!(r->neg & m[f]) && !(late & m[f]))
			fail |= 1u << f;
	}
	reads[fail] |= (uint8_t)read;
}

static int
rule_bounds(struct rule_cls *c, const struct rule *r, struct bounds port[2], struct bounds a4[2])
{
	static const uint8_t mport[2] = {RULE_M_SPORT, RULE_M_DPORT};
	static const uint8_t maddr[2] = {RULE_M_SRC, RULE_M_DST};
	int rc = 0;

	for (unsigned int d = 0; d < 2 && rc == 0; d++) {
		const struct rule_ports *rp = d == 0 ? &r->sport : &r->dport;

		if (r->match & mport[d])
			for (unsigned int i = 0; i < rp->n && i < RULE_PORTS_MAX && rc == 0; i++)
				rc = interval_add(&port[d], rp->r[i].lo, rp->r[i].hi, UINT16_MAX);
		if (rc == 0 && (r->match & maddr[d]))
			rc = addr_bounds(c, r, d == 0 ? &r->src : &r->dst, d, &a4[d]);
	}
	return rc;
}

int
cls_proj_build(struct rule_cls *c, const struct rule_set *s)
{
	struct bounds port[2] = {{0}}, a4[2] = {{0}};
	uint8_t reads[PROJ_F_SETS] = {0};
	int rc = 0;

	c->key_reads = rule_set_key_reads(s);
	c->reads_ports = s == NULL;
	for (unsigned int d = 0; d < 2 && rc == 0; d++) {
		rc = bound_add(&port[d], 0);
		if (rc == 0)
			rc = bound_add(&a4[d], 0);
	}
	for (unsigned int t = 0; t < RULE_TABLE__COUNT && rc == 0; t++) {
		const struct rule_chain *ch = rule_set_chain_at(s, (enum rule_table)t, 0);
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int i = 0; ch != NULL && i < nc && rc == 0; i++)
			for (uint32_t j = 0; j < ch[i].n_rules && rc == 0; j++) {
				const struct rule *r = &ch[i].rules[j];

				if ((r->match & (RULE_M_IN | RULE_M_OUT)) ||
					(rule_key_reads(r) & RULE_READS_EXT))
					c->reads_ports = true;
				rule_fields(r, reads);
				rc = rule_bounds(c, r, port, a4);
			}
	}
	/* The fields read by a rule that no field of the set makes fail. */
	c->proj_fixed = 0;
	for (unsigned int d = 0; d < PROJ_F_SETS; d++) {
		c->proj_keep[d] = 0;
		for (unsigned int f = 0; f < PROJ_F_SETS; f++)
			if ((f & d) == 0)
				c->proj_keep[d] |= reads[f];
	}
	for (unsigned int d = 0; d < 2; d++) {
		uint32_t *pc = NULL;

		if (rc == 0) {
			bounds_finish(&port[d]);
			bounds_finish(&a4[d]);
			pc = malloc((size_t)port[d].n * sizeof(*pc));
			c->proj_addr4_cls[d] = malloc((size_t)a4[d].n * sizeof(uint32_t));
			/* Ports: a table, one lookup per key. */
			c->proj_port[d] = malloc(65536 * sizeof(*c->proj_port[d]));
			if (pc == NULL || c->proj_addr4_cls[d] == NULL || c->proj_port[d] == NULL)
				rc = -ENOMEM;
		}
		if (rc == 0) {
			bounds_classes(&port[d], pc, &c->proj_none[d]);
			for (uint32_t i = 0; i < port[d].n; i++) {
				uint32_t end = i + 1 < port[d].n ? port[d].v[i + 1] : 65536;

				for (uint32_t x = port[d].v[i]; x < end; x++)
					c->proj_port[d][x] = (uint16_t)pc[i];
			}
			bounds_classes(&a4[d], c->proj_addr4_cls[d], &c->proj_none[2 + d]);
			c->proj_addr4[d] = a4[d].v;
			c->n_proj_addr4[d] = a4[d].n;
			a4[d].v = NULL;
		}
		if (rc == 0) {
			if (c->proj_none[d] == UINT32_MAX)
				c->proj_fixed |= PROJ_F_SPORT << d;
			if (c->proj_none[2 + d] == UINT32_MAX)
				c->proj_fixed |= PROJ_F_SRC << d;
		}
		free(pc);
		free(port[d].v);
		free(port[d].s);
		free(a4[d].v);
		free(a4[d].s);
	}
	return rc;
}

void
cls_proj_free(struct rule_cls *c)
{
	for (unsigned int d = 0; d < 2; d++) {
		free(c->proj_port[d]);
		free(c->proj_addr4[d]);
		free(c->proj_addr4_cls[d]);
		c->proj_port[d] = NULL;
		c->proj_addr4[d] = NULL;
		c->proj_addr4_cls[d] = NULL;
	}
}

/* Number of the interval of @p x: the last bound at or below it. */
static uint32_t
interval_of(const uint32_t *b, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n; /* b[0] == 0 <= x: answer in [lo, hi) */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

bool
rule_cls_key_project(const struct rule_cls *c, struct fc_key *k)
{
	uint32_t sp, dp, cl[2];
	unsigned int none, keep;

	if (c == NULL || k == NULL || (c->key_reads & RULE_READS_EXT) ||
		fc_af_index(k->family) < 0)
		return false;
	if ((c->proj_keep[0] | c->proj_fixed) == 0) {
		/* No rule reads a port or an IPv4 address: one projection for all. */
		sp = c->proj_none[0];
		dp = c->proj_none[1];
		none = PROJ_F_SPORT | PROJ_F_DPORT;
		keep = 0;
	} else {
		sp = c->proj_port[0][rte_be_to_cpu_16(fc_key_sport(k))];
		dp = c->proj_port[1][rte_be_to_cpu_16(fc_key_dport(k))];
		none = (sp == c->proj_none[0] ? PROJ_F_SPORT : 0u) |
		       (dp == c->proj_none[1] ? PROJ_F_DPORT : 0u);
		/* The fields a rule the key leaves open may read, and those never cleared. */
		keep = c->proj_keep[none] | c->proj_fixed;
	}
	if (k->family == FC_AF_INET4) {
		/*
		 * An address that no rule the ports leave open reads is as good
		 * as one in no range (it could only make more rules fail: those
		 * read nothing that decides): not looked up (a bench-peers
		 * storm's client port, in no rule's range, leaves no five-tuple
		 * rule open).
		 */
		for (unsigned int d = 0; d < 2; d++) {
			uint8_t *a = d == 0 ? fc_key_src_w(k) : fc_key_dst_w(k);
			uint32_t v;

			if (c->proj_addr4_full[d])
				continue;
			if (!(keep & (PROJ_F_SRC << d))) {
				cl[d] = c->proj_none[2 + d];
				none |= PROJ_F_SRC << d;
				continue;
			}
			memcpy(&v, a, 4);
			cl[d] = c->proj_addr4_cls[d][interval_of(c->proj_addr4[d],
				c->n_proj_addr4[d], rte_be_to_cpu_32(v))];
			if (cl[d] == c->proj_none[2 + d])
				none |= PROJ_F_SRC << d;
		}
		/* Fields no rule that could match reads: as if in no range either. */
		keep = c->proj_keep[none] | c->proj_fixed;
		for (unsigned int d = 0; d < 2; d++)
			if (!c->proj_addr4_full[d]) {
				uint32_t v = keep & (PROJ_F_SRC << d) ? cl[d] : c->proj_none[2 + d];

				memcpy(d == 0 ? fc_key_src_w(k) : fc_key_dst_w(k), &v, 4);
			}
	} else {
		for (unsigned int d = 0; d < 2; d++)
			if (!c->proj_addr6[d])
				memset(d == 0 ? fc_key_src_w(k) : fc_key_dst_w(k), 0, 16);
	}
	fc_key_set_ports(k, (uint16_t)(keep & PROJ_F_SPORT ? sp : c->proj_none[0]),
		(uint16_t)(keep & PROJ_F_DPORT ? dp : c->proj_none[1]));
	return true;
}
