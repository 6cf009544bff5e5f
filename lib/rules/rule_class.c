/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — packet classes of a rule set's per-packet header tests.
 *
 * A walk reads a TCP segment's flags byte only through tests
 * (flags & mask) == cmp (--tcp-flags, --syn, SYNPROXY's SYN/ACK test,
 * -m ecn's ECE and CWR tests), each possibly negated. Two flag bytes that
 * give every test of the set the same result walk the set identically
 * (all else equal): they are in one class. The classes are numbered
 * densely by refining the partition one distinct test at a time, so a set
 * has at most 256 classes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

/* SYNPROXY answers (flags & (SYN|ACK|FIN|RST)) == SYN or == ACK. */
#define RULE_SYNPROXY_MASK (RULE_TCP_SYN | RULE_TCP_ACK | RULE_TCP_FIN | RULE_TCP_RST)

/* Refine class table @p cls (of @p n classes) by test (f & m) == c. */
static unsigned int
refine(uint8_t cls[256], uint8_t m, uint8_t c)
{
	int16_t map[512];
	unsigned int nn = 0;

	memset(map, 0xff, sizeof(map));
	for (unsigned int f = 0; f < 256; f++) {
		unsigned int k = (unsigned int)cls[f] * 2 + ((f & m) == c);

		if (map[k] < 0)
			map[k] = (int16_t)nn++;
		cls[f] = (uint8_t)map[k];
	}
	return nn;
}

/* Refine by test (m, c) unless applied already (@p seen: a bit per pair). */
static unsigned int
add_test(uint8_t cls[256], unsigned int n, uint64_t seen[1024], uint8_t m, uint8_t c)
{
	unsigned int v = (unsigned int)m << 8 | c;

	/* Never true (cmp outside mask) or always true (mask 0): no information. */
	if ((c & ~m) != 0 || m == 0 || (seen[v / 64] >> (v % 64) & 1) || n == 256)
		return n;
	seen[v / 64] |= UINT64_C(1) << (v % 64);
	return refine(cls, m, c);
}

unsigned int
rule_set_tcpflag_classes(const struct rule_set *s, uint8_t cls[256], uint8_t rep[256])
{
	uint64_t seen[1024]; /* (mask, cmp) pairs applied */
	unsigned int n = 1;

	memset(seen, 0, sizeof(seen));
	memset(cls, 0, 256);
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *ch = rule_set_chain_at(s, (enum rule_table)t, ci);

			for (uint32_t ri = 0; ri < ch->n_rules; ri++) {
				const struct rule *r = &ch->rules[ri];

				for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
					const struct rule_x *x = &r->xm[i];

					if (x->kind == RULE_XM_TCP && (x->given & 1))
						n = add_test(cls, n, seen, x->u.tcp.mask,
							x->u.tcp.cmp);
					/* -m ecn's TCP tests read the flags byte's ECE and CWR. */
					if (x->kind == RULE_XM_ECN && (x->given & 1))
						n = add_test(cls, n, seen, RULE_TCP_ECE, RULE_TCP_ECE);
					if (x->kind == RULE_XM_ECN && (x->given & 2))
						n = add_test(cls, n, seen, RULE_TCP_CWR, RULE_TCP_CWR);
				}
				if (r->action == RULE_ACT_SYNPROXY) {
					n = add_test(cls, n, seen, RULE_SYNPROXY_MASK,
						RULE_TCP_SYN);
					n = add_test(cls, n, seen, RULE_SYNPROXY_MASK,
						RULE_TCP_ACK);
				}
			}
		}
	}
	/* The first flag byte of each class stands for it. */
	for (int f = 255; f >= 0; f--)
		rep[cls[f]] = (uint8_t)f;
	return n;
}

/* What rule_set_tcpflag_classes() and fields_of_rule() read of a rule: keep the three alike. */
bool
rule_reads_classed_field(const struct rule *r)
{
	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
		const struct rule_x *x = &r->xm[i];

		switch (x->kind) {
		case RULE_XM_TCP:
			if (x->given & 1)
				return true;
			break;
		case RULE_XM_ECN:
			if (x->given & 7)
				return true;
			break;
		case RULE_XM_TTL:
		case RULE_XM_HL:
		case RULE_XM_TOS:
		case RULE_XM_DSCP:
		case RULE_XM_LENGTH:
		case RULE_XM_TCPMSS:
			return true;
		default:
			break;
		}
	}
	switch (r->action) {
	case RULE_ACT_SYNPROXY:
	case RULE_ACT_TTL:
	case RULE_ACT_HL:
	case RULE_ACT_DSCP:
	case RULE_ACT_TOS:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------------------ */
/* TTL, TOS byte, IP length, MSS option                                     */
/* ------------------------------------------------------------------------ */

/*
 * An 8-bit field (TTL, TOS byte): the tests read it after the rewrites of
 * the targets before them. The classes must tell apart every two received
 * values some test answers differently after some sequence of rewrites,
 * so each test is applied to every map the rewrites compose to: the
 * identity, each rewrite, each after another, in any order (a set of
 * --ttl-dec 1 and --ttl-lt 2 separates 2 from 3 as well as 1 from 2). A
 * rewrite in a chain of one hook (an iptables base chain) runs at most
 * once in a walk; one elsewhere (a user chain, reached from any number of
 * rules) any number of times. More compositions than kept: the field is
 * not classed.
 */
#define FIELD_OPS_MAX 32
#define FIELD_ONCE_MAX 8
#define FIELD_MAPS_MAX 64
#define FIELD_STATES_MAX 1024
#define FIELD_TESTS_MAX 128

struct field8 {
	unsigned int n_ops, n_tests;
	bool over;                                /* more than kept */
	bool once[FIELD_OPS_MAX];                /* runs at most once in a walk */
	uint8_t ops[FIELD_OPS_MAX][256];         /* each rewrite, value -> value */
	uint8_t tests[FIELD_TESTS_MAX][256];     /* each test, value -> 0/1 */
};

struct field16 {
	unsigned int n;
	bool over;
	uint16_t b[RULE_FC_BOUNDS];
};

struct fields {
	struct field8 ttl, tos;
	struct field16 len, mss;
	uint8_t maps[FIELD_MAPS_MAX][256];       /* scratch: the compositions */
	struct {
		uint8_t map;                     /* index in maps */
		uint8_t used;                    /* bit per once-op (its index among them) */
	} st[FIELD_STATES_MAX];                  /* scratch: compositions and what they used */
};

static void
f8_op(struct field8 *f, const uint8_t map[256], bool once)
{
	unsigned int n_once = 0;

	/* Another rule of the same rewrite may run too: each is an op of its own. */
	for (unsigned int i = 0; i < f->n_ops; i++) {
		if (!f->once[i] && memcmp(f->ops[i], map, 256) == 0)
			return;
		n_once += f->once[i];
	}
	if (f->n_ops == FIELD_OPS_MAX) {
		f->over = true;
		return;
	}
	f->once[f->n_ops] = once && n_once < FIELD_ONCE_MAX;
	memcpy(f->ops[f->n_ops++], map, 256);
}

static void
f8_test(struct field8 *f, const uint8_t t[256])
{
	for (unsigned int i = 0; i < f->n_tests; i++)
		if (memcmp(f->tests[i], t, 256) == 0)
			return;
	if (f->n_tests == FIELD_TESTS_MAX) {
		f->over = true;
		return;
	}
	memcpy(f->tests[f->n_tests++], t, 256);
}

/* A bound of an interval test: values from @p b on may answer otherwise than those below. */
static void
f16_bound(struct field16 *f, uint32_t b)
{
	unsigned int i;

	if (b == 0 || b > 65535)
		return;
	for (i = 0; i < f->n && f->b[i] < b; i++)
		;
	if (i < f->n && f->b[i] == b)
		return;
	if (f->n == RULE_FC_BOUNDS) {
		f->over = true;
		return;
	}
	memmove(&f->b[i + 1], &f->b[i], (f->n - i) * sizeof(f->b[0]));
	f->b[i] = (uint16_t)b;
	f->n++;
}

static void
f16_range(struct field16 *f, uint32_t lo, uint32_t hi)
{
	f16_bound(f, lo);
	if (hi < 65535)
		f16_bound(f, hi + 1);
}

/* The tests and rewrites of rule @p r (@p once: it runs at most once in a walk). */
static void
fields_of_rule(struct fields *fs, const struct rule *r, bool once)
{
	uint8_t m[256];
	unsigned int v;

	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
		const struct rule_x *x = &r->xm[i];

		switch (x->kind) {
		case RULE_XM_TTL:
		case RULE_XM_HL:
			v = x->u.ttl.value;
			for (unsigned int t = 0; t < 256; t++)
				m[t] = (x->given & 1) ? t == v : (x->given & 2) ? t < v : t > v;
			f8_test(&fs->ttl, m);
			break;
		case RULE_XM_TOS:
			for (unsigned int t = 0; t < 256; t++)
				m[t] = (t & x->u.tos.mask) == x->u.tos.value;
			f8_test(&fs->tos, m);
			break;
		case RULE_XM_DSCP:
			for (unsigned int t = 0; t < 256; t++)
				m[t] = (t >> 2) == x->u.dscp.dscp;
			f8_test(&fs->tos, m);
			break;
		case RULE_XM_ECN:
			if (!(x->given & 4))
				break;
			for (unsigned int t = 0; t < 256; t++)
				m[t] = (t & 0x03) == x->u.ecn.ect;
			f8_test(&fs->tos, m);
			break;
		case RULE_XM_LENGTH:
			f16_range(&fs->len, x->u.range.lo, x->u.range.hi);
			break;
		case RULE_XM_TCPMSS:
			f16_range(&fs->mss, x->u.range.lo, x->u.range.hi);
			break;
		default:
			break;
		}
	}
	switch (r->action) {
	case RULE_ACT_TTL:
	case RULE_ACT_HL:
		/* As the walk's rewrite (rule_apply()). */
		v = r->tgt.u.ttl.value;
		for (unsigned int t = 0; t < 256; t++)
			m[t] = (uint8_t)((r->tgt.given & 1)   ? v
					 : (r->tgt.given & 2) ? (t > v ? t - v : 0)
							      : (t + v > 255 ? 255 : t + v));
		f8_op(&fs->ttl, m, once);
		break;
	case RULE_ACT_DSCP:
		for (unsigned int t = 0; t < 256; t++)
			m[t] = (uint8_t)((t & 0x03) | r->tgt.u.dscp.dscp << 2);
		f8_op(&fs->tos, m, once);
		break;
	case RULE_ACT_TOS:
		for (unsigned int t = 0; t < 256; t++)
			m[t] = (uint8_t)((t & ~r->tgt.u.tos.mask) ^ r->tgt.u.tos.value);
		f8_op(&fs->tos, m, once);
		break;
	default:
		break;
	}
}

/* Refine @p cls (@p n classes) by the 0/1 answers @p t. */
static unsigned int
refine_by(uint8_t cls[256], unsigned int n, const uint8_t t[256])
{
	int16_t map[512];
	unsigned int nn = 0;

	if (n >= 256)
		return n;
	memset(map, 0xff, sizeof(map));
	for (unsigned int f = 0; f < 256; f++) {
		unsigned int k = (unsigned int)cls[f] * 2 + (t[f] != 0);

		if (map[k] < 0)
			map[k] = (int16_t)nn++;
		cls[f] = (uint8_t)map[k];
	}
	return nn;
}

/* Index of map @p c among @p n @p maps, added if new; -1 when full. */
static int
map_index(uint8_t maps[][256], unsigned int *n, const uint8_t c[256])
{
	unsigned int j;

	for (j = 0; j < *n && memcmp(maps[j], c, 256) != 0; j++)
		;
	if (j < *n)
		return (int)j;
	if (*n == FIELD_MAPS_MAX)
		return -1;
	memcpy(maps[(*n)++], c, 256);
	return (int)j;
}

/* The classes of an 8-bit field: 0 when not classed (too many compositions). */
static unsigned int
field8_classes(const struct field8 *f, struct fields *fs, uint8_t cls[256], uint8_t rep[256])
{
	uint8_t(*maps)[256] = fs->maps;
	unsigned int n_maps = 1, n_st = 1, n = 1;
	uint8_t t[256], c[256], oi[FIELD_OPS_MAX];

	memset(cls, 0, 256);
	memset(rep, 0, 256);
	if (f->over)
		return 0;
	if (f->n_tests == 0)
		return 1;
	for (unsigned int v = 0; v < 256; v++)
		maps[0][v] = (uint8_t)v;
	for (unsigned int o = 0, k = 0; o < f->n_ops; o++)
		oi[o] = f->once[o] ? (uint8_t)k++ : 0;
	fs->st[0].map = 0;
	fs->st[0].used = 0;
	/* Every composition: a once-op at most once, the others any number of times. */
	for (unsigned int i = 0; i < n_st; i++) {
		for (unsigned int o = 0; o < f->n_ops; o++) {
			uint8_t used = fs->st[i].used;
			unsigned int j;
			int mi;

			if (f->once[o] && (used >> oi[o] & 1))
				continue;
			if (f->once[o])
				used = (uint8_t)(used | 1u << oi[o]);
			for (unsigned int v = 0; v < 256; v++)
				c[v] = f->ops[o][maps[fs->st[i].map][v]];
			mi = map_index(maps, &n_maps, c);
			if (mi < 0)
				return 0;
			for (j = 0; j < n_st && (fs->st[j].map != mi || fs->st[j].used != used); j++)
				;
			if (j < n_st)
				continue;
			if (n_st == FIELD_STATES_MAX)
				return 0;
			fs->st[n_st].map = (uint8_t)mi;
			fs->st[n_st++].used = used;
		}
	}
	for (unsigned int k = 0; k < f->n_tests; k++)
		for (unsigned int i = 0; i < n_maps; i++) {
			for (unsigned int v = 0; v < 256; v++)
				t[v] = f->tests[k][maps[i][v]];
			n = refine_by(cls, n, t);
		}
	for (int v = 255; v >= 0; v--)
		rep[cls[v]] = (uint8_t)v;
	return n;
}

void
rule_set_field_classes(const struct rule_set *s, bool router, struct rule_fieldclasses *out)
{
	struct fields *fs = calloc(1, sizeof(*fs));

	memset(out, 0, sizeof(*out));
	if (fs == NULL) {
		/* Without memory: nothing classed. */
		out->n_len_b = out->n_mss_b = 0xff;
		return;
	}
	if (router) {
		/* The router's decrement before FORWARD (rule_pkt_route_dec()): once a walk. */
		uint8_t m[256];

		for (unsigned int t = 0; t < 256; t++)
			m[t] = (uint8_t)(t > 0 ? t - 1 : 0);
		f8_op(&fs->ttl, m, true);
		/* Expired at the decrement (1 or less): no FORWARD, POSTROUTING walk. */
		for (unsigned int t = 0; t < 256; t++)
			m[t] = t <= 1;
		f8_test(&fs->ttl, m);
	}
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *ch = rule_set_chain_at(s, (enum rule_table)t, ci);

			/* An iptables base chain: one hook, entered once in a walk. */
			bool once = ch->hooks != 0 && (ch->hooks & (ch->hooks - 1)) == 0;

			for (uint32_t ri = 0; ri < ch->n_rules; ri++)
				fields_of_rule(fs, &ch->rules[ri], once);
		}
	}
	out->n_ttl = (uint16_t)field8_classes(&fs->ttl, fs, out->ttl, out->ttl_rep);
	out->n_tos = (uint16_t)field8_classes(&fs->tos, fs, out->tos, out->tos_rep);
	out->n_len_b = fs->len.over ? 0xff : (uint8_t)fs->len.n;
	out->n_mss_b = fs->mss.over ? 0xff : (uint8_t)fs->mss.n;
	memcpy(out->len_b, fs->len.b, sizeof(out->len_b));
	memcpy(out->mss_b, fs->mss.b, sizeof(out->mss_b));
	free(fs);
}
