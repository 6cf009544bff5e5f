/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: payload programs held out of line — a bpf match's program or
 * a u32 match's tests whose encoding does not fit an extension's bytes
 * (struct rule_x_bpf, rule_x_u32: 135 bytes), so that a rule takes what
 * iptables takes (xt_bpf's 64 instructions; xt_u32's 10 tests of 10
 * numbers and 10 ranges).
 *
 * Such an extension holds a reference (RULE_X_OUTLINE): the digest and
 * length of its encoding, which lives once in a table of the process,
 * shared by every rule set that holds it. A rule set is the pool of its
 * programs: it holds a reference on each program its rules (or a parse
 * into it) named, given back when the set is freed; a program no set
 * holds is freed then. A rule copied out of a set borrows its program
 * from the set. Equal encodings have equal references, so extensions
 * still compare with memcmp.
 *
 * Parsing a program that needs the table puts it in the rule set being
 * parsed into (rule_xblob_parse_set(), set by the set parsers and
 * rule_parse_set() for the calling thread); rule_parse() has no set and
 * refuses it. Readers (formatting, checking, decoding for the engine)
 * copy the encoding out under the table's lock. Control plane only: the
 * fast path runs programs decoded at commit (engine_strpred.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rule_priv.h"
#include "rule_x_priv.h"

struct xblob {
	uint64_t digest;
	uint32_t refs; /* rule sets holding it */
	uint16_t len;
	uint8_t *bytes;
};

static pthread_mutex_t xb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xblob *xb;
static unsigned int xb_n, xb_cap;
/* The rule set a parse on this thread puts programs in (NULL: none). */
static __thread struct rule_set *xb_parse;

/* FNV-1a over the length and the bytes. */
static uint64_t
digest_of(const uint8_t *c, unsigned int len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = (h ^ (len & 0xff)) * 0x100000001b3ULL;
	h = (h ^ (len >> 8)) * 0x100000001b3ULL;
	for (unsigned int i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

static void
ref_write(uint8_t *ref, uint64_t d, unsigned int len)
{
	for (unsigned int i = 0; i < 8; i++)
		ref[i] = (uint8_t)(d >> (8 * i));
	ref[8] = (uint8_t)len;
	ref[9] = (uint8_t)(len >> 8);
}

static uint64_t
ref_digest(const uint8_t *ref)
{
	uint64_t d = 0;

	for (unsigned int i = 0; i < 8; i++)
		d |= (uint64_t)ref[i] << (8 * i);
	return d;
}

static unsigned int
ref_len(const uint8_t *ref)
{
	return (unsigned int)ref[8] | (unsigned int)ref[9] << 8;
}

/* Index of the program of digest @p d, or -1. Lock held. */
static int
find_locked(uint64_t d)
{
	for (unsigned int i = 0; i < xb_n; i++)
		if (xb[i].digest == d)
			return (int)i;
	return -1;
}

static void
release(uint64_t d)
{
	int i;

	pthread_mutex_lock(&xb_lock);
	i = find_locked(d);
	if (i >= 0 && --xb[i].refs == 0) {
		free(xb[i].bytes);
		xb[i] = xb[--xb_n];
	}
	if (xb_n == 0) {
		free(xb);
		xb = NULL;
		xb_cap = 0;
	}
	pthread_mutex_unlock(&xb_lock);
}

/* Does set @p s hold digest @p d? */
static bool
set_holds(const struct rule_set *s, uint64_t d)
{
	for (uint32_t i = 0; i < s->xrefs.n; i++)
		if (s->xrefs.d[i] == d)
			return true;
	return false;
}

/* Room for one more digest in @p s's list. */
static int
set_room(struct rule_set *s)
{
	if (s->xrefs.n == s->xrefs.cap) {
		uint32_t cap = s->xrefs.cap ? s->xrefs.cap * 2 : 4;
		uint64_t *p = realloc(s->xrefs.d, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		s->xrefs.d = p;
		s->xrefs.cap = cap;
	}
	return 0;
}

/*
 * Set @p s holds the program of @p d (already in the table, or @p bytes
 * to put there). @return 0, -ENOENT (not in the table, no bytes),
 * -EEXIST (another program of the same digest), -ENOMEM.
 */
static int
set_hold(struct rule_set *s, uint64_t d, const uint8_t *bytes, unsigned int len)
{
	int i, rc = 0;

	if (set_room(s) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&xb_lock);
	i = find_locked(d);
	if (i >= 0) {
		if (bytes != NULL && (xb[i].len != len || memcmp(xb[i].bytes, bytes, len) != 0))
			rc = -EEXIST;
		else if (!set_holds(s, d))
			xb[i].refs++;
		else
			d = 0; /* held already */
		goto out;
	}
	if (bytes == NULL) {
		rc = -ENOENT;
		goto out;
	}
	if (xb_n == xb_cap) {
		unsigned int cap = xb_cap ? xb_cap * 2 : 8;
		struct xblob *p = realloc(xb, cap * sizeof(*p));

		if (p == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		xb = p;
		xb_cap = cap;
	}
	xb[xb_n].bytes = malloc(len);
	if (xb[xb_n].bytes == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(xb[xb_n].bytes, bytes, len);
	xb[xb_n].len = (uint16_t)len;
	xb[xb_n].digest = d;
	xb[xb_n].refs = 1;
	xb_n++;
out:
	pthread_mutex_unlock(&xb_lock);
	if (rc == 0 && d != 0 && !set_holds(s, d))
		s->xrefs.d[s->xrefs.n++] = d;
	return rc;
}

struct rule_set *
rule_xblob_parse_set(struct rule_set *s)
{
	struct rule_set *old = xb_parse;

	xb_parse = s;
	return old;
}

int
rule_xblob_put(const uint8_t *c, unsigned int len, uint8_t *ref, const char **msg)
{
	uint64_t d;
	int rc;

	if (len == 0 || len > UINT16_MAX) {
		*msg = "program too long";
		return -EINVAL;
	}
	if (xb_parse == NULL) {
		*msg = NULL; /* the caller says which program */
		return -ENOSPC;
	}
	d = digest_of(c, len);
	/* 0 stands for "held already" above: never a digest. */
	if (d == 0)
		d = 1;
	rc = set_hold(xb_parse, d, c, len);
	if (rc < 0) {
		*msg = rc == -EEXIST ? "two programs of one digest (change one of them)"
				     : "out of memory";
		return rc;
	}
	ref_write(ref, d, len);
	return 0;
}

int
rule_xblob_copy(const uint8_t *ref, uint8_t *out, unsigned int cap)
{
	uint64_t d = ref_digest(ref);
	unsigned int len = ref_len(ref);
	int i, rc;

	pthread_mutex_lock(&xb_lock);
	i = find_locked(d);
	if (i < 0 || xb[i].len != len || len > cap) {
		rc = -ENOENT;
	} else {
		memcpy(out, xb[i].bytes, len);
		rc = (int)len;
	}
	pthread_mutex_unlock(&xb_lock);
	return rc;
}

unsigned int
rule_xblob_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&xb_lock);
	n = xb_n;
	pthread_mutex_unlock(&xb_lock);
	return n;
}

/* The reference of extension @p x, or NULL when it holds its program itself. */
static const uint8_t *
x_ref(const struct rule_x *x)
{
	if (x->kind == RULE_XM_BPF && x->u.bpf.len == RULE_X_OUTLINE)
		return x->u.bpf.code;
	if (x->kind == RULE_XM_U32 && x->u.u32.len == RULE_X_OUTLINE)
		return x->u.u32.code;
	return NULL;
}

int
rule_xrefs_rule(struct rule_set *s, const struct rule *r)
{
	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
		const uint8_t *ref = x_ref(&r->xm[i]);
		int rc;

		if (ref == NULL || set_holds(s, ref_digest(ref)))
			continue;
		rc = set_hold(s, ref_digest(ref), NULL, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
rule_xrefs_clone(struct rule_set *to, const struct rule_set *from)
{
	for (uint32_t i = 0; i < from->xrefs.n; i++) {
		int rc = set_hold(to, from->xrefs.d[i], NULL, 0);

		if (rc < 0)
			return rc;
	}
	return 0;
}

void
rule_xrefs_free(struct rule_set *s)
{
	for (uint32_t i = 0; i < s->xrefs.n; i++)
		release(s->xrefs.d[i]);
	free(s->xrefs.d);
	s->xrefs.d = NULL;
	s->xrefs.n = 0;
	s->xrefs.cap = 0;
	if (xb_parse == s)
		xb_parse = NULL;
}
