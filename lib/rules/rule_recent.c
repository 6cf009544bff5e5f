/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the lists of "-m recent" (rule_eval.h, rule_recent_*()): one
 * table per --name, shared by both families; per table at most
 * RULE_RECENT_ENTRIES addresses (the least recently set or updated one
 * gives way to a new one), per address the times of its last
 * RULE_RECENT_STAMPS hits, newest last. Pure: the caller gives the time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_x_priv.h"

#define OPT(x, i) (((x)->given >> (i)) & 1)

/* The options of -m recent, by index in the kind's option table. */
enum { RO_SET, RO_RCHECK, RO_UPDATE, RO_REMOVE, RO_SECONDS, RO_REAP, RO_HITCOUNT, RO_RTTL,
	RO_NAME, RO_MASK, RO_RSOURCE, RO_RDEST };

struct recent_entry {
	uint8_t family;
	uint8_t ttl;
	uint8_t nstamps; /* stamps kept, up to RULE_RECENT_STAMPS */
	uint8_t index;   /* where the next stamp goes */
	uint8_t addr[16];
	uint64_t lru;    /* the table's clock when last set or updated */
	uint64_t stamps[RULE_RECENT_STAMPS];
};

struct recent_table {
	char name[RULE_XNAME_MAX];
	uint32_t n;
	uint64_t clock;
	struct recent_entry e[RULE_RECENT_ENTRIES];
};

struct rule_recent {
	struct recent_table **t;
	uint32_t n, cap;
};

struct rule_recent *
rule_recent_new(void)
{
	return calloc(1, sizeof(struct rule_recent));
}

void
rule_recent_free(struct rule_recent *rr)
{
	if (rr == NULL)
		return;
	for (uint32_t i = 0; i < rr->n; i++)
		free(rr->t[i]);
	free(rr->t);
	free(rr);
}

static struct recent_table *
table_get(struct rule_recent *rr, const char *name)
{
	struct recent_table *t;

	for (uint32_t i = 0; i < rr->n; i++)
		if (strncmp(rr->t[i]->name, name, RULE_XNAME_MAX) == 0)
			return rr->t[i];
	if (rr->n == rr->cap) {
		uint32_t cap = rr->cap ? rr->cap * 2 : 4;
		struct recent_table **p = realloc(rr->t, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		rr->t = p;
		rr->cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	memcpy(t->name, name, strnlen(name, RULE_XNAME_MAX - 1));
	rr->t[rr->n++] = t;
	return t;
}

static void
entry_remove(struct recent_table *t, struct recent_entry *e)
{
	*e = t->e[--t->n];
}

/* The least recently set or updated entry (the head of netfilter's LRU list). */
static struct recent_entry *
table_oldest(struct recent_table *t)
{
	struct recent_entry *o = NULL;

	for (uint32_t i = 0; i < t->n; i++)
		if (o == NULL || t->e[i].lru < o->lru)
			o = &t->e[i];
	return o;
}

static void
entry_stamp(struct recent_table *t, struct recent_entry *e, uint64_t now)
{
	e->index %= RULE_RECENT_STAMPS;
	e->stamps[e->index++] = now;
	if (e->index > e->nstamps)
		e->nstamps = e->index;
	e->lru = ++t->clock;
}

/* The newest stamp of @p e. */
static uint64_t
entry_last(const struct recent_entry *e)
{
	return e->stamps[(e->index + RULE_RECENT_STAMPS - 1) % RULE_RECENT_STAMPS];
}

int
rule_recent_match(struct rule_recent *rr, const struct rule_x *x, const struct rule_pkt *p,
	uint64_t now, uint64_t hz)
{
	const struct rule_x_recent *rx = &x->u.recent;
	const struct fc_key *k = &p->key;
	bool ret = x->neg != 0;
	struct recent_table *t;
	struct recent_entry *e = NULL;
	uint8_t addr[16] = {0};
	/* --rttl: the TTL as received (Linux adds back a router's decrement). */
	uint8_t ttl = OPT(x, RO_RTTL) ? (uint8_t)(p->ttl + ((p->flags & RULE_PKT_F_ROUTED) != 0)) : 0;
	uint64_t horizon = 0;
	unsigned int len;

	if (rr == NULL || (t = table_get(rr, rx->name)) == NULL)
		return -ENOMEM;
	if (k->family == FC_AF_INET4) {
		len = 4;
		memcpy(addr, OPT(x, RO_RDEST) ? (const void *)&k->v4.dst : (const void *)&k->v4.src, 4);
	} else {
		len = 16;
		memcpy(addr, OPT(x, RO_RDEST) ? k->v6.dst : k->v6.src, 16);
	}
	if (OPT(x, RO_MASK))
		for (unsigned int i = 0; i < len; i++)
			addr[i] &= rx->mask[i];
	for (uint32_t i = 0; i < t->n && e == NULL; i++) {
		struct recent_entry *c = &t->e[i];

		if (c->family == k->family && memcmp(c->addr, addr, sizeof(addr)) == 0 &&
			(ttl == 0 || c->ttl == 0 || c->ttl == ttl))
			e = c;
	}
	if (e == NULL) {
		if (!OPT(x, RO_SET))
			return ret;
		if (t->n == RULE_RECENT_ENTRIES)
			entry_remove(t, table_oldest(t));
		e = &t->e[t->n++];
		*e = (struct recent_entry){.family = k->family, .ttl = p->ttl};
		memcpy(e->addr, addr, sizeof(addr));
		entry_stamp(t, e, now);
		return !ret;
	}
	if (OPT(x, RO_SET)) {
		ret = !ret;
	} else if (OPT(x, RO_REMOVE)) {
		entry_remove(t, e);
		return !ret;
	} else {
		unsigned int hits = 0;
		uint64_t span = (uint64_t)rx->seconds * hz;

		if (rx->seconds != 0 && now > span)
			horizon = now - span;
		for (unsigned int i = 0; i < e->nstamps; i++) {
			if (rx->seconds != 0 && e->stamps[i] < horizon)
				continue;
			if (!OPT(x, RO_HITCOUNT) || rx->hitcount == 0 || ++hits >= rx->hitcount) {
				ret = !ret;
				break;
			}
		}
		if (OPT(x, RO_REAP)) {
			struct recent_entry *o = table_oldest(t);
			bool keep = o == e && OPT(x, RO_UPDATE) && ret;

			/* Only the oldest entry, and not the one about to be updated. */
			if (!keep && entry_last(o) < horizon) {
				if (o == e)
					return ret;
				if (e == &t->e[t->n - 1])
					e = o; /* the last entry moves into the hole */
				entry_remove(t, o);
			}
		}
	}
	if (OPT(x, RO_SET) || (OPT(x, RO_UPDATE) && ret)) {
		entry_stamp(t, e, now);
		e->ttl = p->ttl;
	}
	return ret;
}

int
rule_recent_info(const struct rule_recent *rr, unsigned int i, struct rule_recent_info *info)
{
	if (rr == NULL || i >= rr->n)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	memcpy(info->name, rr->t[i]->name, sizeof(info->name));
	info->entries = rr->t[i]->n;
	return 0;
}

int
rule_recent_entry(const struct rule_recent *rr, unsigned int i, unsigned int j,
	struct rule_recent_entry *e)
{
	const struct recent_table *t;
	const struct recent_entry *c, *order[RULE_RECENT_ENTRIES];
	unsigned int n = 0;

	if (rr == NULL || i >= rr->n || j >= rr->t[i]->n)
		return -ENOENT;
	t = rr->t[i];
	/* Least recently set or updated first: the j-th smallest lru. */
	for (uint32_t a = 0; a < t->n; a++) {
		unsigned int k = n++;

		while (k > 0 && order[k - 1]->lru > t->e[a].lru) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = &t->e[a];
	}
	c = order[j];
	memset(e, 0, sizeof(*e));
	e->family = c->family;
	e->ttl = c->ttl;
	e->hits = c->nstamps;
	memcpy(e->addr, c->addr, sizeof(e->addr));
	e->last = entry_last(c);
	e->first = c->nstamps < RULE_RECENT_STAMPS ? c->stamps[0]
						    : c->stamps[c->index % RULE_RECENT_STAMPS];
	return 0;
}

unsigned int
rule_recent_prune(struct rule_recent *rr, const struct rule_set *s)
{
	unsigned int gone = 0;
	uint32_t j = 0;

	if (rr == NULL)
		return 0;
	for (uint32_t i = 0; i < rr->n; i++) {
		if (rule_set_names_match(s, RULE_XM_RECENT, rr->t[i]->name)) {
			rr->t[j++] = rr->t[i];
		} else {
			free(rr->t[i]);
			gone++;
		}
	}
	rr->n = j;
	return gone;
}
