/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_expect.c — the expectation table: the related
 * connections helpers announced (conntrack_helper.h). A fixed array of
 * slots with hash chains on the wildcarded tuple (family, protocol,
 * addresses, destination port): a new flow's first packet finds its
 * expectation with one hash and a short chain, whatever its source port
 * (and a second one with the source address zeroed when the table holds
 * expectations from any address, IRC's).
 * Pure C on the heap; one thread at a time (the rules lcore).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct_priv.h"

#define NONE UINT32_MAX
#define MAX_SLOTS (1u << 20)

struct exp_slot {
	struct mod_ct_exp e;
	uint32_t next;   /* next in its chain, or in the free list */
	uint32_t bucket; /* its bucket; NONE when free */
	uint64_t born;   /* order of creation (oldest first) */
};

struct mod_ct_expect {
	uint32_t cap;
	uint32_t mask; /* buckets - 1 */
	unsigned int per_master;
	uint32_t free_head;
	uint32_t cursor; /* expiry walk */
	uint64_t born;
	uint32_t n_wild; /* expectations from any source address */
	uint32_t *bucket;
	struct exp_slot *slot;
	struct mod_ct_expect_stats st;
};

/* The tuple an expectation is filed under: source port, flags and input port 0. */
static void
norm(const struct fc_key *k, struct fc_key *out)
{
	*out = *k;
	fc_key_set_ports(out, 0, fc_key_dport(k));
	fc_key_set_flags(out, 0);
	fc_key_set_in_port(out, 0);
}

static bool
same(const struct fc_key *a, const struct fc_key *b)
{
	if (a->family != b->family)
		return false;
	return a->family == FC_AF_INET4 ? memcmp(&a->v4, &b->v4, sizeof(a->v4)) == 0 :
					  memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

static uint32_t
hash(const struct fc_key *k)
{
	const uint8_t *p = (const uint8_t *)&k->v4;
	size_t n = k->family == FC_AF_INET4 ? sizeof(k->v4) : sizeof(k->v6);
	uint32_t h = 2166136261u ^ k->family;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h ^ (h >> 15);
}

static bool
expired(const struct exp_slot *s, uint32_t now)
{
	return (int32_t)(now - s->e.expires) >= 0;
}

struct mod_ct_expect *
mod_ct_expect_create(uint32_t max, unsigned int per_master)
{
	struct mod_ct_expect *t;
	uint32_t nb = 1;

	if (max == 0 || max > MAX_SLOTS || per_master == 0 || per_master > 255) {
		errno = EINVAL;
		return NULL;
	}
	while (nb < max)
		nb <<= 1;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto nomem;
	t->bucket = malloc(nb * sizeof(*t->bucket));
	t->slot = calloc(max, sizeof(*t->slot));
	if (t->bucket == NULL || t->slot == NULL)
		goto nomem;
	for (uint32_t i = 0; i < nb; i++)
		t->bucket[i] = NONE;
	for (uint32_t i = 0; i < max; i++) {
		t->slot[i].next = i + 1 < max ? i + 1 : NONE;
		t->slot[i].bucket = NONE;
	}
	t->cap = max;
	t->mask = nb - 1;
	t->per_master = per_master;
	t->st.capacity = max;
	return t;
nomem:
	mod_ct_expect_free(t);
	errno = ENOMEM;
	return NULL;
}

void
mod_ct_expect_free(struct mod_ct_expect *t)
{
	if (t == NULL)
		return;
	free(t->bucket);
	free(t->slot);
	free(t);
}

/* An expectation from any source address (its source is all zeros). */
static bool
src_any(const struct fc_key *k)
{
	static const uint8_t zero[16];

	return memcmp(fc_key_src(k), zero, fc_af_addr_len(k->family)) == 0;
}

/* Take slot @p i out of its chain and free it. */
static void
unlink_slot(struct mod_ct_expect *t, uint32_t i)
{
	uint32_t *pp = &t->bucket[t->slot[i].bucket];

	while (*pp != NONE && *pp != i)
		pp = &t->slot[*pp].next;
	if (*pp == i)
		*pp = t->slot[i].next;
	if (src_any(&t->slot[i].e.tuple))
		t->n_wild--;
	t->slot[i].bucket = NONE;
	t->slot[i].next = t->free_head;
	t->free_head = i;
	t->st.active--;
}

static uint32_t
find(const struct mod_ct_expect *t, const struct fc_key *nk)
{
	for (uint32_t i = t->bucket[hash(nk) & t->mask]; i != NONE; i = t->slot[i].next)
		if (same(&t->slot[i].e.tuple, nk))
			return i;
	return NONE;
}

/* The slot a new flow's key @p k matches: exact source, else any source. */
static uint32_t
lookup(const struct mod_ct_expect *t, const struct fc_key *k)
{
	struct fc_key nk;
	uint32_t i;

	norm(k, &nk);
	i = find(t, &nk);
	if (i == NONE && t->n_wild != 0) {
		memset(fc_key_src_w(&nk), 0, fc_af_addr_len(nk.family));
		i = find(t, &nk);
	}
	return i;
}

int
mod_ct_expect_add(struct mod_ct_expect *t, const struct mod_ct_exp *e, uint32_t now)
{
	struct fc_key nk;
	uint32_t i, oldest = NONE, n_master = 0, b;
	uint8_t proto;

	if (t == NULL || e == NULL ||
		(e->tuple.family != FC_AF_INET4 && e->tuple.family != FC_AF_INET6))
		return -EINVAL;
	proto = fc_key_proto(&e->tuple);
	if ((proto != PROTO_TCP && proto != PROTO_UDP) || fc_key_dport(&e->tuple) == 0)
		return -EINVAL;
	norm(&e->tuple, &nk);
	i = find(t, &nk);
	if (i != NONE) {
		if (t->slot[i].e.master != e->master && !expired(&t->slot[i], now))
			return -EEXIST;
		unlink_slot(t, i); /* the same command again: a fresh one */
	}
	/* The master's own: the oldest goes when it is at its limit. */
	for (i = 0; i < t->cap; i++) {
		const struct exp_slot *s = &t->slot[i];

		if (s->bucket == NONE || s->e.master != e->master)
			continue;
		n_master++;
		if (oldest == NONE || s->born < t->slot[oldest].born)
			oldest = i;
	}
	if (n_master >= t->per_master && oldest != NONE) {
		unlink_slot(t, oldest);
		t->st.evicted++;
	}
	if (t->free_head == NONE)
		mod_ct_expect_expire(t, now, t->cap);
	if (t->free_head == NONE) {
		t->st.full++;
		return -ENOSPC;
	}
	i = t->free_head;
	t->free_head = t->slot[i].next;
	b = hash(&nk) & t->mask;
	t->slot[i].e = *e;
	t->slot[i].e.tuple = nk;
	t->slot[i].bucket = b;
	t->slot[i].born = ++t->born;
	t->slot[i].next = t->bucket[b];
	t->bucket[b] = i;
	if (src_any(&nk))
		t->n_wild++;
	t->st.active++;
	t->st.created++;
	return 0;
}

int
mod_ct_expect_take(struct mod_ct_expect *t, const struct fc_key *k, uint32_t now,
	struct mod_ct_exp *out)
{
	uint32_t i;

	if (t == NULL || k == NULL || out == NULL)
		return -EINVAL;
	if (t->st.active == 0)
		return -ENOENT;
	i = lookup(t, k);
	if (i == NONE)
		return -ENOENT;
	if (expired(&t->slot[i], now)) {
		unlink_slot(t, i);
		t->st.expired++;
		return -ENOENT;
	}
	if (t->slot[i].e.flags & MOD_CT_EXP_F_INACTIVE)
		return -ENOENT;
	*out = t->slot[i].e;
	if (!(t->slot[i].e.flags & MOD_CT_EXP_F_PERMANENT))
		unlink_slot(t, i);
	t->st.matched++;
	return 0;
}

bool
mod_ct_expect_has(const struct mod_ct_expect *t, const struct fc_key *k, uint32_t now)
{
	uint32_t i;

	if (t == NULL || k == NULL || t->st.active == 0)
		return false;
	i = lookup(t, k);
	return i != NONE && !expired(&t->slot[i], now) &&
	       !(t->slot[i].e.flags & MOD_CT_EXP_F_INACTIVE);
}

unsigned int
mod_ct_expect_expire(struct mod_ct_expect *t, uint32_t now, unsigned int budget)
{
	unsigned int n = 0;

	if (t == NULL || t->st.active == 0)
		return 0;
	for (; n < budget && n < t->cap; n++) {
		uint32_t i = t->cursor;

		t->cursor = i + 1 < t->cap ? i + 1 : 0;
		if (t->slot[i].bucket != NONE && expired(&t->slot[i], now)) {
			unlink_slot(t, i);
			t->st.expired++;
		}
	}
	return n;
}

unsigned int
mod_ct_expect_remove_master(struct mod_ct_expect *t, uint32_t master)
{
	unsigned int n = 0;

	if (t == NULL || t->st.active == 0)
		return 0;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->slot[i].bucket != NONE && t->slot[i].e.master == master) {
			unlink_slot(t, i);
			n++;
		}
	t->st.removed += n;
	return n;
}

int
mod_ct_expect_refresh(struct mod_ct_expect *t, const struct fc_key *tuple, uint32_t master,
	uint32_t expires)
{
	struct fc_key nk;
	uint32_t i;

	if (t == NULL || tuple == NULL)
		return -EINVAL;
	norm(tuple, &nk);
	i = find(t, &nk);
	if (i == NONE || t->slot[i].e.master != master)
		return -ENOENT;
	t->slot[i].e.flags &= (uint8_t)~MOD_CT_EXP_F_INACTIVE;
	t->slot[i].e.expires = expires;
	return 0;
}

int
mod_ct_expect_remove(struct mod_ct_expect *t, const struct fc_key *tuple, uint32_t master)
{
	struct fc_key nk;
	uint32_t i;

	if (t == NULL || tuple == NULL)
		return -EINVAL;
	norm(tuple, &nk);
	i = find(t, &nk);
	if (i == NONE || t->slot[i].e.master != master)
		return -ENOENT;
	unlink_slot(t, i);
	t->st.removed++;
	return 0;
}

int
mod_ct_expect_at(const struct mod_ct_expect *t, uint32_t i, struct mod_ct_exp *out)
{
	if (t == NULL || out == NULL || i >= t->cap)
		return -EINVAL;
	if (t->slot[i].bucket == NONE)
		return -ENOENT;
	*out = t->slot[i].e;
	return 0;
}

void
mod_ct_expect_stats_get(const struct mod_ct_expect *t, struct mod_ct_expect_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (t != NULL)
		*st = t->st;
}
