/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the slots' side state — what few entries have and the fast
 * path never reads: the mark a flow's packets leave the walk with, its
 * connection's mark and the trace of the rules its walk passed without
 * deciding (engine_trace.c). Most flows have none, so they are not kept per
 * table slot but in a small open-addressing table per flow table, keyed
 * by slot, holding a record only while one of its values is not zero
 * (linear probing, deletion by backward shift, grown at half full and
 * shrunk at an eighth). Rules lcore only, like everything the engine
 * writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

#define SIDE_MIN 64u

static uint32_t
side_home(const struct eng_side *s, uint32_t idx)
{
	return (uint32_t)(idx * 0x9E3779B1u) & (s->cap - 1);
}

/* The record of slot @p idx, or NULL. */
static struct eng_side_rec *
side_find(const struct eng_side *s, uint32_t idx)
{
	if (s->n == 0)
		return NULL;
	for (uint32_t i = side_home(s, idx);; i = (i + 1) & (s->cap - 1)) {
		struct eng_side_rec *r = &s->r[i];

		if (r->slot == 0)
			return NULL;
		if (r->slot == idx + 1)
			return r;
	}
}

static void
side_put(struct eng_side *s, const struct eng_side_rec *rec)
{
	uint32_t i = side_home(s, rec->slot - 1);

	while (s->r[i].slot != 0)
		i = (i + 1) & (s->cap - 1);
	s->r[i] = *rec;
	s->n++;
}

/* Rehash into @p cap records. @return 0, -ENOMEM (nothing changed). */
static int
side_resize(struct eng_side *s, uint32_t cap)
{
	struct eng_side_rec *old = s->r;
	uint32_t old_cap = s->cap;
	struct eng_side_rec *r = calloc(cap, sizeof(*r));

	if (r == NULL)
		return -ENOMEM;
	s->r = r;
	s->cap = cap;
	s->n = 0;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].slot != 0)
			side_put(s, &old[i]);
	free(old);
	return 0;
}

/* Remove the record at position @p i (backward shift keeps probe runs whole). */
static void
side_remove_at(struct eng_side *s, uint32_t i)
{
	uint32_t mask = s->cap - 1, j = i;

	for (;;) {
		uint32_t h;

		j = (j + 1) & mask;
		if (s->r[j].slot == 0)
			break;
		h = side_home(s, s->r[j].slot - 1);
		/* r[j] may fill the hole at i unless its home lies in (i, j]. */
		if (((j - h) & mask) >= ((j - i) & mask)) {
			s->r[i] = s->r[j];
			i = j;
		}
	}
	memset(&s->r[i], 0, sizeof(s->r[i]));
	s->n--;
	/* Shrinking is best effort: without memory the table just stays large. */
	if (s->cap > SIDE_MIN && s->n < s->cap / 8)
		(void)side_resize(s, s->cap / 2);
}

uint32_t
eng_side_fmark(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	const struct eng_side_rec *r = side_find(&eng->side[ti], idx);

	return r != NULL ? r->fmark : 0;
}

uint32_t
eng_side_ctmark(const struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	const struct eng_side_rec *r = side_find(&eng->side[ti], idx);

	return r != NULL ? r->ctmark : 0;
}

int
eng_side_reserve(struct rule_engine *eng, unsigned int ti, uint32_t n)
{
	struct eng_side *s = &eng->side[ti];
	uint32_t cap = s->cap != 0 ? s->cap : SIDE_MIN;

	/* At most half full after @p n more records. */
	while ((uint64_t)(s->n + n) * 2 > cap) {
		if (cap >= (1u << 31))
			return -ENOMEM;
		cap *= 2;
	}
	return cap != s->cap ? side_resize(s, cap) : 0;
}

int
eng_side_marks_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t fmark,
	uint32_t ctmark)
{
	struct eng_side *s = &eng->side[ti];
	struct eng_side_rec *r = side_find(s, idx);
	struct eng_side_rec rec = {.slot = idx + 1, .fmark = fmark, .ctmark = ctmark};
	int rc;

	if (r != NULL) {
		if (fmark == 0 && ctmark == 0 && r->trace == 0) {
			side_remove_at(s, (uint32_t)(r - s->r));
			return 0;
		}
		r->fmark = fmark;
		r->ctmark = ctmark;
		return 0;
	}
	if (fmark == 0 && ctmark == 0)
		return 0;
	rc = eng_side_reserve(eng, ti, 1);
	if (rc < 0)
		return rc;
	side_put(s, &rec);
	return 0;
}

uint32_t
eng_side_trace(const struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t *tgen)
{
	const struct eng_side_rec *r = side_find(&eng->side[ti], idx);

	*tgen = r != NULL ? r->tgen : 0;
	return r != NULL ? r->trace : 0;
}

int
eng_side_trace_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t trace,
	uint32_t tgen)
{
	struct eng_side *s = &eng->side[ti];
	struct eng_side_rec *r = side_find(s, idx);
	struct eng_side_rec rec = {.slot = idx + 1, .trace = trace, .tgen = tgen};
	int rc;

	if (r != NULL) {
		if (r->fmark == 0 && r->ctmark == 0 && trace == 0) {
			side_remove_at(s, (uint32_t)(r - s->r));
			return 0;
		}
		r->trace = trace;
		r->tgen = tgen;
		return 0;
	}
	if (trace == 0)
		return 0;
	rc = eng_side_reserve(eng, ti, 1);
	if (rc < 0)
		return rc;
	side_put(s, &rec);
	return 0;
}

void
eng_side_drop(struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	struct eng_side *s = &eng->side[ti];
	struct eng_side_rec *r = side_find(s, idx);

	if (r != NULL)
		side_remove_at(s, (uint32_t)(r - s->r));
}

void
eng_side_move(struct rule_engine *eng, unsigned int ti, uint32_t from, uint32_t to)
{
	struct eng_side *s = &eng->side[ti];
	struct eng_side_rec *r = side_find(s, from);
	struct eng_side_rec rec;

	eng_side_drop(eng, ti, to);
	if (r == NULL)
		return;
	rec = *r;
	rec.slot = to + 1;
	/* In place of the old one: the count stays, no memory is needed. */
	side_remove_at(s, (uint32_t)(r - s->r));
	side_put(s, &rec);
}

void
eng_side_fini(struct rule_engine *eng)
{
	for (unsigned int ti = 0; ti < 2; ti++) {
		free(eng->side[ti].r);
		memset(&eng->side[ti], 0, sizeof(eng->side[ti]));
	}
}
