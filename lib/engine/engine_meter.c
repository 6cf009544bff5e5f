/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: rule meters (engine_meter.h) — the token buckets of "-m
 * limit" matches, one per rule and match, made on the rules lcore the first
 * time a walk reaches the match, and the stateful-match provider the
 * engine's walks use: a packet's walk takes tokens; the walks that decide a
 * cached verdict ask "conforming" (one meter "exceeded" at a time) instead
 * and note the meters they reached, in order (eng_meter_decide(): which
 * meters are only charged, which one decides). "-m statistic --mode nth" counts the packets that
 * reach it, as netfilter does: a packet's walk steps its counter, and a
 * flow whose walk reaches it is decided per packet (each of its packets
 * steps the counter, on the slow path); the walks that decide a cached
 * verdict again (revalidation) do not step it and take the answer right
 * after loading. "-m quota" is a meter holding the bytes left (one per rule
 * and match, full at the first walk that reaches it), charged as a limit's
 * by every packet that reaches it; it starts over with a commit that
 * numbers the rules anew (iptables-restore makes every quota new), where
 * a limit's meter goes to the rule of the same identity. "-m recent" lists (rule_recent_match(), one per name,
 * kept across rule loads as netfilter keeps a list while a rule names it)
 * change with each packet's walk that reaches them, and the flow is decided
 * per packet likewise. "-m hashlimit" tables (rule_hashlimit_match(), one
 * per name and family, made at the commit, dropped with their last rule)
 * keep a bucket per key: where the table's expire is no shorter than a
 * bucket's refill, the bucket is a meter like a limit's (hl_meter_get(),
 * the flow cached with it, the fast path takes its tokens; a byte rate's
 * meter charges each packet its IP length as Linux's byte mode); otherwise
 * each packet takes its token from the table on the slow path and the
 * flow is decided per packet. "-m connlimit" asks engine_connlimit.c: the connection's count,
 * decided with the connection and cached. Other stateful matches keep
 * their answers right after loading (rule_x_fresh()) and leave the
 * decision per packet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "engine_priv.h"

int
eng_meters_init(struct rule_engine *eng)
{
	eng->view.meters = rte_zmalloc_socket("eng_meters",
		sizeof(*eng->view.meters) * RULE_METERS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->mkeys = calloc(RULE_METERS_MAX, sizeof(*eng->mkeys));
	eng->hlm = calloc(RULE_METERS_MAX, sizeof(*eng->hlm));
	if (eng->view.meters == NULL || eng->mkeys == NULL || eng->hlm == NULL)
		return -ENOMEM;
	return 0;
}

void
eng_meters_fini(struct rule_engine *eng)
{
	rte_free(eng->view.meters);
	free(eng->mkeys);
	free(eng->hlm);
	free(eng->nth);
	rule_recent_free(eng->recent);
	rule_hashlimit_free(eng->hashlimit);
	eng_connlimit_free(eng);
}

/*
 * Rule ids are numbered anew: meters and nth counters start over (stale
 * entries reach none before revalidation).
 */
void
eng_meters_reset(struct rule_engine *eng)
{
	eng->n_meters = 0;
	eng->n_nth = 0;
	eng->n_hlm = 0;
	eng_connlimit_reset(eng);
}

/* ------------------------------------------------------------------------ */
/* Meters across a reload that numbers the rules anew                        */
/* ------------------------------------------------------------------------ */

/*
 * A rule's identity in a set, whatever its id: its table, its chain's name,
 * its content (what it matches and does; not its id or imported
 * counters) and how many rules of the same content come before it in the
 * chain. 64-bit FNV-1a; rules are built zeroed, so their padding is zero.
 */
static uint64_t
fnv64(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * UINT64_C(1099511628211);
	return h;
}

static uint64_t
rule_content_hash(unsigned int table, const struct rule_chain *c, const struct rule *r)
{
	struct rule copy = *r;
	uint64_t h = UINT64_C(14695981039346656037);

	copy.id = RULE_ID_NONE;
	copy.pkts = 0;
	copy.bytes = 0;
	h = fnv64(h, &table, sizeof(table));
	h = fnv64(h, c->name, strnlen(c->name, sizeof(c->name)));
	return fnv64(h, &copy, sizeof(copy));
}

static uint64_t
rule_ident(unsigned int table, const struct rule_chain *c, uint32_t ri)
{
	uint64_t h = rule_content_hash(table, c, &c->rules[ri]);
	uint32_t before = 0;

	for (uint32_t j = 0; j < ri; j++)
		if (rule_content_hash(table, c, &c->rules[j]) == h)
			before++;
	return fnv64(h, &before, sizeof(before));
}

static bool
has_limit(const struct rule *r)
{
	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++)
		if (r->xm[i].kind == RULE_XM_LIMIT)
			return true;
	return false;
}

/* Call @p fn for each rule of @p s with a limit match. */
static void
each_limit_rule(const struct rule_set *s,
	void (*fn)(void *arg, const struct rule *r, uint64_t ident), void *arg)
{
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, ci);

			for (uint32_t ri = 0; ri < c->n_rules; ri++)
				if (has_limit(&c->rules[ri]))
					fn(arg, &c->rules[ri], rule_ident(t, c, ri));
		}
	}
}

struct renum {
	struct rule_engine *eng;
	uint64_t *ident; /* per meter: its rule's identity in the old set (0: none) */
	uint32_t *new_id; /* per meter: the rule of the new set with that identity */
};

static void
renum_old(void *arg, const struct rule *r, uint64_t ident)
{
	struct renum *rn = arg;

	for (uint32_t i = 0; i < rn->eng->n_meters; i++)
		if (rn->eng->mkeys[i].rule_id == r->id && r->id != RULE_ID_NONE)
			rn->ident[i] = ident;
}

static void
renum_new(void *arg, const struct rule *r, uint64_t ident)
{
	struct renum *rn = arg;

	for (uint32_t i = 0; i < rn->eng->n_meters; i++)
		if (rn->ident[i] == ident && rn->new_id[i] == RULE_ID_NONE)
			rn->new_id[i] = r->id;
}

/* Is the table of bucket @p h still there (rule_hashlimit_load() keeps the named ones)? */
static bool
hl_table_kept(const struct rule_engine *eng, const struct eng_hl_meter *h)
{
	struct rule_hashlimit_info info;

	for (unsigned int i = 0; rule_hashlimit_info(eng->hashlimit, i, &info) == 0; i++)
		if (info.family == h->family && strncmp(info.name, h->name, RULE_XNAME_MAX) == 0)
			return true;
	return false;
}

/*
 * A commit of @p ns, whose rule ids are not @p old's, after the hashlimit
 * tables were loaded for @p ns: the meters of limit
 * matches go to the rules of the same identity in @p ns (same table,
 * chain and content), full or empty as they were; hashlimit buckets kept
 * as meters stay while a rule names their table; the others are
 * forgotten and the survivors packed (every entry is stale after such a
 * commit: none reaches a meter before revalidation gives it its new id).
 * nth counters and connlimit counts start over. Without memory, every
 * meter starts over (as before this existed).
 */
void
eng_meters_renumber(struct rule_engine *eng, const struct rule_set *old,
	const struct rule_set *ns)
{
	struct renum rn = {.eng = eng};
	uint32_t *to = NULL;
	uint32_t n = 0;

	eng->n_nth = 0;
	eng_connlimit_reset(eng);
	if (eng->n_meters == 0)
		return;
	rn.ident = calloc(eng->n_meters, sizeof(*rn.ident));
	rn.new_id = calloc(eng->n_meters, sizeof(*rn.new_id));
	to = malloc(eng->n_meters * sizeof(*to));
	if (rn.ident == NULL || rn.new_id == NULL || to == NULL) {
		eng_meters_reset(eng);
		goto out;
	}
	each_limit_rule(old, renum_old, &rn);
	each_limit_rule(ns, renum_new, &rn);
	/* Which meters stay: a limit's with its rule found, a bucket whose table is named. */
	for (uint32_t i = 0; i < eng->n_meters; i++)
		to[i] = UINT32_MAX;
	for (uint32_t h = 0; h < eng->n_hlm; h++)
		if (hl_table_kept(eng, &eng->hlm[h]))
			to[eng->hlm[h].meter] = 0;
	for (uint32_t i = 0; i < eng->n_meters; i++) {
		if (eng->mkeys[i].rule_id != RULE_ID_NONE && rn.new_id[i] != RULE_ID_NONE)
			to[i] = 0;
		if (to[i] == UINT32_MAX)
			continue;
		to[i] = n;
		if (n != i) {
			struct rule_meter *d = &eng->view.meters[n], *s = &eng->view.meters[i];

			d->interval = s->interval;
			d->tolerance = s->tolerance;
			d->expire = s->expire;
			d->chunks_max = s->chunks_max;
			d->burst = s->burst;
			__atomic_store_n(&d->tat, __atomic_load_n(&s->tat, __ATOMIC_RELAXED),
				__ATOMIC_RELAXED);
			__atomic_store_n(&d->seen, __atomic_load_n(&s->seen, __ATOMIC_RELAXED),
				__ATOMIC_RELAXED);
			__atomic_store_n(&d->refills,
				__atomic_load_n(&s->refills, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
		}
		eng->mkeys[n] = eng->mkeys[i];
		if (eng->mkeys[n].rule_id != RULE_ID_NONE)
			eng->mkeys[n].rule_id = rn.new_id[i];
		n++;
	}
	eng->n_meters = n;
	n = 0;
	for (uint32_t h = 0; h < eng->n_hlm; h++) {
		uint32_t m = to[eng->hlm[h].meter];

		if (m == UINT32_MAX)
			continue;
		eng->hlm[n] = eng->hlm[h];
		eng->hlm[n].meter = (uint16_t)m;
		n++;
	}
	eng->n_hlm = n;
out:
	free(rn.ident);
	free(rn.new_id);
	free(to);
}

/* The counter of nth match @p xi of @p r, made (at 0) if new; NULL without memory. */
static struct eng_nth *
nth_get(struct rule_engine *eng, const struct rule *r, unsigned int xi)
{
	const struct rule_x_statistic *st = &r->xm[xi].u.stat;
	struct eng_nth *n;

	for (uint32_t i = 0; i < eng->n_nth; i++) {
		n = &eng->nth[i];
		if (n->rule_id == r->id && n->xi == xi && n->every == st->every &&
			n->packet == st->packet)
			return n;
	}
	if (eng->n_nth == eng->cap_nth) {
		uint32_t cap = eng->cap_nth ? eng->cap_nth * 2 : 8;
		struct eng_nth *p = realloc(eng->nth, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		eng->nth = p;
		eng->cap_nth = cap;
	}
	n = &eng->nth[eng->n_nth++];
	*n = (struct eng_nth){.rule_id = r->id, .every = st->every, .packet = st->packet,
		.xi = (uint8_t)xi};
	return n;
}

/* Cycles of one unit of a rate. */
static uint64_t
unit_cycles(uint8_t unit)
{
	static const uint64_t secs[] = {1, 60, 3600, 86400};

	return rte_get_tsc_hz() * secs[unit < RTE_DIM(secs) ? unit : 0];
}

/* A packet meter's settings: @p interval cycles per token, @p burst deep. */
static void
meter_set_packets(struct rule_meter *m, uint64_t interval, uint32_t burst)
{
	m->interval = interval != 0 ? interval : 1;
	m->tolerance = m->interval * (burst > 0 ? burst - 1 : 0);
	m->chunks_max = 0;
	m->burst = 0;
	m->expire = 0;
	__atomic_store_n(&m->refills, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&m->seen, UINT64_MAX, __ATOMIC_RELAXED);
}

/*
 * A byte meter's settings (hashlimit's byte mode, rule_hashlimit_cfg_of()'s
 * @p cfg): the credit is a second (@p hz cycles, RULE_HASHLIMIT_CREDIT in
 * Linux's units); a chunk costs what Linux charges of that credit
 * (cfg.chunk_cost), in cycles (fixed point); a packet whose
 * chunks cost the whole credit or more costs the credit; cfg.burst whole
 * refills, given back when the bucket is idle cfg.expire ms.
 * @return 0, or -ENOTSUP (a cost Linux refuses: a rate too high).
 */
static int
meter_set_bytes(struct rule_meter *m, const struct rule_hashlimit_cfg *cfg, uint64_t hz)
{
	uint64_t per_chunk = cfg->chunk_cost;

	if (per_chunk == 0)
		return -ENOTSUP;
	m->tolerance = hz;
	m->interval = (uint64_t)(((unsigned __int128)per_chunk * hz << RULE_METER_CHUNK_SHIFT) /
		RULE_HASHLIMIT_CREDIT);
	m->chunks_max = (uint32_t)((RULE_HASHLIMIT_CREDIT + per_chunk - 1) / per_chunk);
	m->burst = cfg->burst;
	m->expire = (uint64_t)cfg->expire * hz / 1000;
	__atomic_store_n(&m->refills, cfg->burst, __ATOMIC_RELAXED);
	__atomic_store_n(&m->seen, UINT64_MAX, __ATOMIC_RELAXED);
	return 0;
}

/* A new meter (full, owned by no rule) of hashlimit settings @p cfg; @p interval: per token. */
static int
meter_new(struct rule_engine *eng, const struct rule_hashlimit_cfg *cfg, uint64_t interval,
	uint64_t hz)
{
	struct rule_meter *m;
	uint32_t i = eng->n_meters;

	if (i == RULE_METERS_MAX)
		return -ENOSPC;
	/* No limit match names it (no rule has the id RULE_ID_NONE). */
	eng->mkeys[i] = (struct eng_meter_key){.rule_id = RULE_ID_NONE};
	m = &eng->view.meters[i];
	if (cfg->unit == RULE_RATE_BYTES) {
		if (meter_set_bytes(m, cfg, hz) < 0)
			return -ENOTSUP;
	} else {
		meter_set_packets(m, interval, cfg->burst);
	}
	__atomic_store_n(&m->tat, 0, __ATOMIC_RELAXED);
	eng->n_meters++;
	return (int)i;
}

/*
 * The meter of packet @p p's bucket of hashlimit match @p x, made if new,
 * when a meter answers exactly as the table's bucket would: a bucket idle
 * for --hashlimit-htable-expire is new and full in Linux, and a meter is
 * full again after burst tokens' time (a byte rate's: a second, its credit;
 * the refills it took come back after expire idle, struct rule_meter), so
 * the two agree when expire is no shorter than that. The table's
 * --hashlimit-htable-max bounds its meters too (they live until the meters
 * start over). @return the meter id; -ENOTSUP: decide per packet from the
 * table (rule_hashlimit_match()); -ENOSPC: the table is full (netfilter
 * drops the packet).
 */
static int
hl_meter_get(struct rule_engine *eng, const struct rule_x *x, const struct rule_pkt *p)
{
	static const uint64_t secs[] = {1, 60, 3600, 86400};
	struct rule_hashlimit_cfg cfg;
	uint8_t key[RULE_HASHLIMIT_KEY_LEN];
	uint64_t hz = rte_get_tsc_hz(), interval;
	uint32_t in_table = 0;
	struct eng_hl_meter *h;
	int id;

	if (rule_hashlimit_key(eng->hashlimit, x, p, rte_rdtsc(), hz, key, &cfg) < 0 ||
		cfg.rate == 0)
		return -ENOTSUP;
	if (cfg.unit == RULE_RATE_BYTES) {
		/* A byte bucket's credit is a second: full again after it. */
		interval = 0;
		if ((uint64_t)cfg.expire * hz / 1000 < hz)
			return -ENOTSUP;
	} else {
		interval = hz * secs[cfg.unit < RTE_DIM(secs) ? cfg.unit : 0] / cfg.rate;
		if ((uint64_t)cfg.expire * hz / 1000 < interval * cfg.burst)
			return -ENOTSUP;
	}
	for (uint32_t i = 0; i < eng->n_hlm; i++) {
		h = &eng->hlm[i];
		if (h->family != p->key.family ||
			strncmp(h->name, x->u.hashlimit.name, RULE_XNAME_MAX) != 0)
			continue;
		if (memcmp(h->key, key, sizeof(key)) == 0)
			return h->meter;
		in_table++;
	}
	if (in_table >= cfg.max)
		return -ENOSPC;
	id = meter_new(eng, &cfg, interval, hz);
	if (id < 0)
		return -ENOTSUP;
	h = &eng->hlm[eng->n_hlm++];
	memset(h, 0, sizeof(*h));
	memcpy(h->name, x->u.hashlimit.name, strnlen(x->u.hashlimit.name, RULE_XNAME_MAX - 1));
	h->family = p->key.family;
	memcpy(h->key, key, sizeof(key));
	h->meter = (uint16_t)id;
	return id;
}

/* The meter of match @p xi of @p r, made if new. @return its id, or -ENOSPC. */
static int
meter_get(struct rule_engine *eng, const struct rule *r, unsigned int xi)
{
	const struct rule_x_limit *l = &r->xm[xi].u.limit;
	struct rule_meter *m;
	uint32_t i;

	for (i = 0; i < eng->n_meters; i++) {
		const struct eng_meter_key *k = &eng->mkeys[i];

		if (k->rule_id == r->id && k->xi == xi && k->rate == l->rate &&
			k->unit == l->unit && k->burst == l->burst && k->quota == 0)
			return (int)i;
	}
	if (eng->n_meters == RULE_METERS_MAX || l->rate == 0)
		return -ENOSPC;
	eng->mkeys[i] = (struct eng_meter_key){.rule_id = r->id,
		.rate = l->rate,
		.burst = l->burst,
		.xi = (uint8_t)xi,
		.unit = l->unit};
	m = &eng->view.meters[i];
	meter_set_packets(m, unit_cycles(l->unit) / l->rate, l->burst);
	/* Full: as netfilter's limit after loading. */
	__atomic_store_n(&m->tat, 0, __ATOMIC_RELAXED);
	eng->n_meters++;
	return (int)i;
}

/* The quota of match @p xi of @p r, made (whole) if new. @return its id, or -ENOSPC. */
static int
quota_get(struct rule_engine *eng, const struct rule *r, unsigned int xi)
{
	uint64_t bytes = r->xm[xi].u.quota.bytes;
	struct rule_meter *m;
	uint32_t i;

	for (i = 0; i < eng->n_meters; i++) {
		const struct eng_meter_key *k = &eng->mkeys[i];

		if (k->rule_id == r->id && k->xi == xi && k->unit == ENG_METER_QUOTA &&
			k->quota == bytes)
			return (int)i;
	}
	if (eng->n_meters == RULE_METERS_MAX)
		return -ENOSPC;
	eng->mkeys[i] = (struct eng_meter_key){.rule_id = r->id,
		.quota = bytes,
		.xi = (uint8_t)xi,
		.unit = ENG_METER_QUOTA};
	m = &eng->view.meters[i];
	meter_set_packets(m, 1, 1);
	m->chunks_max = RULE_METER_QUOTA;
	__atomic_store_n(&m->tat, bytes, __ATOMIC_RELAXED);
	eng->n_meters++;
	return (int)i;
}

int
rule_engine_quota_info(const struct rule_engine *eng, unsigned int i, struct rule_quota_info *qi)
{
	for (uint32_t m = 0; eng != NULL && m < eng->n_meters; m++) {
		const struct eng_meter_key *k = &eng->mkeys[m];

		if (k->unit != ENG_METER_QUOTA || i-- != 0)
			continue;
		qi->rule_id = k->rule_id;
		qi->xi = k->xi;
		qi->bytes = k->quota;
		qi->left = __atomic_load_n(&eng->view.meters[m].tat, __ATOMIC_RELAXED);
		return 0;
	}
	return -ENOENT;
}

/*
 * Meter @p id's answer for the walk of @p pv, noted in its order: a
 * packet's walk takes a token; a question about a cached verdict is
 * answered as asked (conforming, but for eng_pv::flip; exceeded).
 */
static bool
pv_meter(struct eng_pv *pv, uint16_t id, const struct rule_pkt *p)
{
	if (pv->n_reach < ENG_REACH_MAX)
		pv->reach[pv->n_reach] = id;
	if (pv->n_reach < UINT8_MAX)
		pv->n_reach++;
	if (pv->mode == ENG_PV_TAKE)
		return rule_engine_meter_take(pv->eng, id, rte_rdtsc(), p->l3_len);
	return pv->mode == ENG_PV_CONFORM && pv->flip != (uint16_t)(id + 1);
}

static int
pv_match(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	struct eng_pv *pv = arg;
	const struct rule_x *x = &r->xm[xi];
	int id, rc;
	bool ok;

	if (x->kind == RULE_XM_STRING || x->kind == RULE_XM_U32 || x->kind == RULE_XM_BPF)
		return eng_str_match(pv, r, xi, p);
	if (x->kind == RULE_XM_STATISTIC && x->u.stat.mode == RULE_STAT_NTH &&
		pv->mode == ENG_PV_TAKE) {
		struct eng_nth *n = nth_get(pv->eng, r, xi);

		pv->other = 1; /* every packet of the flow steps it: per packet */
		return n != NULL ? rule_x_nth_step(x, &n->count) : -ENOTSUP;
	}
	if (x->kind == RULE_XM_RECENT && pv->mode == ENG_PV_TAKE) {
		pv->other = 1; /* its list changes with every packet: per packet */
		if (pv->eng->recent == NULL)
			pv->eng->recent = rule_recent_new();
		if (pv->eng->recent == NULL)
			return -ENOTSUP;
		rc = rule_recent_match(pv->eng->recent, x, p, rte_rdtsc(), rte_get_tsc_hz());
		return rc >= 0 ? rc : -ENOTSUP;
	}
	if (x->kind == RULE_XM_HASHLIMIT) {
		if (pv->eng->hashlimit == NULL)
			pv->eng->hashlimit = rule_hashlimit_new();
		if (pv->eng->hashlimit == NULL) {
			pv->other = 1;
			return -ENOTSUP;
		}
		id = hl_meter_get(pv->eng, x, p);
		if (id >= 0) {
			/* The bucket is a meter: as -m limit's (the fast path takes its tokens). */
			bool above = (x->given >> 1) & 1; /* --hashlimit-above */

			if (pv->n_meter == 0 || pv->meter != (uint16_t)id)
				pv->n_meter = (uint8_t)(pv->n_meter < UINT8_MAX ? pv->n_meter + 1
										: UINT8_MAX);
			pv->meter = (uint16_t)id;
			ok = pv_meter(pv, (uint16_t)id, p);
			return (ok ? 1 : 0) ^ (above ? 1 : 0);
		}
		pv->other = 1; /* a bucket of the table, on the slow path: per packet */
		/* A full table: netfilter drops the packet (an error drop here). */
		if (id == -ENOSPC)
			return pv->mode == ENG_PV_TAKE ? -ENOSPC : -ENOTSUP;
		if (pv->mode != ENG_PV_TAKE)
			return -ENOTSUP;
		rc = rule_hashlimit_match(pv->eng->hashlimit, x, p, rte_rdtsc(), rte_get_tsc_hz());
		return rc == -ENOMEM ? -ENOTSUP : rc;
	}
	if (x->kind == RULE_XM_CONNLIMIT) {
		/* The connection's count: the first packet's walk adds it, revalidation asks. */
		pv->connlimit = 1;
		rc = eng_connlimit_match(pv->eng, r, xi, p, pv->mode == ENG_PV_TAKE);
		return rc >= 0 ? rc : -ENOTSUP;
	}
	if (x->kind == RULE_XM_RPFILTER) {
		/* The flow's answer while the routes stay (RULE_DEP_ROUTE revalidates). */
		rc = eng_rpfilter_match(pv->eng, x, p);
		if (rc >= 0)
			return rc;
	}
	if (x->kind != RULE_XM_LIMIT && x->kind != RULE_XM_QUOTA) {
		pv->other = 1;
		return -ENOTSUP;
	}
	id = x->kind == RULE_XM_QUOTA ? quota_get(pv->eng, r, xi) : meter_get(pv->eng, r, xi);
	if (id < 0) {
		pv->other = 1; /* no room: decided per packet, answered as after loading */
		return -ENOTSUP;
	}
	if (pv->n_meter == 0 || pv->meter != (uint16_t)id)
		pv->n_meter = (uint8_t)(pv->n_meter < UINT8_MAX ? pv->n_meter + 1 : UINT8_MAX);
	pv->meter = (uint16_t)id;
	ok = pv_meter(pv, (uint16_t)id, p);
	return (ok ? 1 : 0) ^ (x->neg ? 1 : 0);
}

/* ------------------------------------------------------------------------ */
/* A cached verdict with meters                                              */
/* ------------------------------------------------------------------------ */

/* One walk of eng_meter_decide(): its outcome and the meters it reached. */
struct mwalk {
	struct rule_eval ev[RULE_STAGE__COUNT];
	struct rule_pktop ops[RULE_PKTOPS_MAX];
	unsigned int d;
	uint32_t cd;   /* header fields of a class it read */
	uint32_t rule; /* the deciding rule */
	uint32_t trace; /* the counters it passed (engine_trace.c) */
	uint32_t mark, ctmark;
	uint16_t reach[ENG_REACH_MAX];
	uint8_t n_reach;
	uint8_t v; /* FC_VERDICT_* */
	uint8_t n; /* operations */
};

/* The walks of eng_meter_decide_walk(): the function, its argument, the family. */
struct mwalker {
	int (*walk)(void *arg, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT],
		unsigned int *d, uint32_t *deps, struct eng_marks *mk);
	void *arg;
	unsigned int family;
};

/* The walk with every meter conforming but @p flip (meter + 1; 0: none). */
static int
mwalk_run(struct rule_engine *eng, const struct mwalker *wk, uint16_t flip, struct mwalk *w)
{
	struct eng_marks mk;
	struct eng_pv pv;
	uint32_t deps;
	int rc;

	memset(&mk, 0, sizeof(mk));
	eng_pv_init(&pv, eng, ENG_PV_CONFORM);
	pv.flip = flip;
	rc = wk->walk(wk->arg, &pv, w->ev, &w->d, &deps, &mk);
	if (rc < 0)
		return rc;
	/* Header fields of a class may be read (the caller classes the entry). */
	if (ENG_DEPS_PER_PACKET(deps) & ~(RULE_DEP_METER | ENG_PC_DEPS) || pv.other ||
		pv.n_str != 0 || pv.n_reach > ENG_REACH_MAX)
		return -ENOTSUP;
	w->cd = deps & ENG_PC_DEPS;
	w->v = w->ev[w->d].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	w->rule = eng_dec_id(&w->ev[w->d], wk->family);
	w->trace = eng_trace_of_walk(eng, w->ev, w->d, wk->family);
	eng_walk_ops(eng, w->ev, eng_walked(w->ev, w->d), w->ops, &w->n);
	w->mark = mk.mark;
	w->ctmark = mk.ctmark;
	w->n_reach = pv.n_reach;
	memcpy(w->reach, pv.reach, sizeof(w->reach));
	return 0;
}

/* Do two walks end alike, through the same meters and counters? */
static bool
mwalk_same(const struct mwalk *x, const struct mwalk *y)
{
	return x->v == y->v && x->rule == y->rule && x->trace == y->trace && x->cd == y->cd &&
	       x->mark == y->mark &&
	       x->ctmark == y->ctmark && x->n == y->n &&
	       memcmp(x->ops, y->ops, x->n * sizeof(x->ops[0])) == 0 && x->n_reach == y->n_reach &&
	       memcmp(x->reach, y->reach, x->n_reach * sizeof(x->reach[0])) == 0;
}

/* A forward entry's walk (eng_meter_decide()). */
struct fwd_walk {
	struct rule_engine *eng;
	const struct rule_upcall *up;
	const struct fc_key *k, *fk;
	const struct fc_action *a;
	unsigned int ctstate;
	uint32_t ctmark;
};

static int
fwd_walk(void *arg, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT], unsigned int *d,
	uint32_t *deps, struct eng_marks *mk)
{
	const struct fwd_walk *fw = arg;

	mk->ctmark = fw->ctmark;
	return eng_pkt_verdict(fw->eng, fw->up, fw->k, fw->fk, fw->a, fw->ctstate, ev, d, deps, mk,
		pv);
}

int
eng_meter_decide(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, struct fc_action *a, unsigned int ctstate, uint32_t ctmark)
{
	struct fwd_walk fw = {.eng = eng, .up = up, .k = k, .fk = fk, .a = a, .ctstate = ctstate,
		.ctmark = ctmark};

	return eng_meter_decide_walk(eng, fwd_walk, &fw, k->family, a, false);
}

int
eng_meter_decide_walk(struct rule_engine *eng,
	int (*walk)(void *arg, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT],
		unsigned int *d, uint32_t *deps, struct eng_marks *mk),
	void *arg, unsigned int family, struct fc_action *a, bool charge_only)
{
	const struct mwalker wk = {.walk = walk, .arg = arg, .family = family};
	struct mwalk *w = calloc(3, sizeof(*w)); /* the base walk, a flipped one, the decider's */
	struct mwalk *base = &w[0], *alt = &w[1], *exc = &w[2];
	uint32_t rules[2], traces[2];
	int32_t dec = -1;
	unsigned int j = 0;
	int rc, prog;

	if (w == NULL)
		return -ENOMEM;
	rc = mwalk_run(eng, &wk, 0, base);
	if (rc < 0 || base->n_reach == 0)
		goto out;
	/* Each meter exceeded in turn: a meter whose answer changes nothing is only charged. */
	for (unsigned int i = 0; i < base->n_reach; i++) {
		uint16_t m = base->reach[i];
		bool seen = false;

		for (unsigned int e = 0; e < i; e++)
			seen |= base->reach[e] == m;
		if (seen)
			continue;
		rc = mwalk_run(eng, &wk, (uint16_t)(m + 1), alt);
		if (rc < 0)
			goto out;
		if (mwalk_same(base, alt))
			continue;
		/* Two meters that change the outcome (one, where only charges are asked). */
		if (dec >= 0 || charge_only) {
			rc = -ENOTSUP;
			goto out;
		}
		dec = m;
		j = i;
		*exc = *alt;
	}
	if (dec < 0) {
		/* Every meter only charged: the verdict stands, each packet takes their tokens. */
		if (base->n_reach > RULE_PKTPROG_PRE_MAX) {
			rc = -ENOTSUP;
			goto out;
		}
		prog = eng_prog_make_pre(eng, base->reach, base->n_reach, 0, false, base->ops,
			base->n, NULL, 0);
		rc = prog;
		if (prog < 0)
			goto out;
		a->verdict = base->v;
		a->rule_id = base->rule;
		eng_act_prog(a, prog);
		rc = 1;
		goto out;
	}
	/*
	 * The deciding meter is the last one reached either way (no other meter
	 * after it, on either answer), and reached once; the ones before it
	 * are charged first.
	 */
	if (j + 1 != base->n_reach || exc->n_reach != j + 1 || j > RULE_PKTPROG_PRE_MAX ||
		base->cd != exc->cd) {
		rc = -ENOTSUP;
		goto out;
	}
	/*
	 * A program: the charges, then the meter picks the list (the verdict,
	 * if they differ) and whose counters the packet's are: the entry
	 * counts it for the conforming walk's rule and trace, a turned one is
	 * counted apart for the exceeded walk's (as Linux's walk credits it).
	 */
	rules[0] = base->rule;
	rules[1] = exc->rule;
	traces[0] = base->trace;
	traces[1] = exc->trace;
	prog = eng_prog_make_meter(eng, base->reach, j, (uint16_t)(dec + 1), base->v != exc->v,
		base->ops, base->n, exc->ops, exc->n, rules, traces);
	rc = prog;
	if (prog < 0)
		goto out;
	a->verdict = base->v;
	a->rule_id = base->rule;
	eng_act_prog(a, prog);
	rc = 1;
out:
	free(w);
	return rc;
}

/*
 * "-j SET" in a packet's walk (not in a question about one: revalidation,
 * a meter's two answers): the loaded ipsets change at once, so the rest of
 * the walk sees them changed. Such a walk depends on RULE_DEP_SET, as every
 * "-m set" one: no cached verdict reads a set, so the next packet of any
 * flow sees the change.
 */
static void
pv_act(void *arg, const struct rule *r, const struct rule_pkt *p)
{
	struct eng_pv *pv = arg;
	struct rule_engine *eng = pv->eng;
	/* The rule sets share one collection; the rules lcore alone looks members up. */
	struct rule_ipsets *sets = (struct rule_ipsets *)(uintptr_t)rule_set_ipsets_get(eng->set);
	struct rule_ifnames ifn = rule_set_ifnames(eng->set);
	int rc;

	if (pv->mode != ENG_PV_TAKE)
		return;
	rc = rule_ipsets_apply(sets, &r->tgt, p, &ifn);
	if (rc < 0) {
		eng->st.set_failed++;
		return;
	}
	if (rc & 1)
		eng->st.set_added++;
	if (rc & 2)
		eng->st.set_deleted++;
}

void
eng_pv_init(struct eng_pv *pv, struct rule_engine *eng, enum eng_pv_mode mode)
{
	memset(pv, 0, sizeof(*pv));
	pv->pv.arg = pv;
	pv->pv.match = pv_match;
	pv->pv.act = pv_act;
	pv->eng = eng;
	pv->mode = (uint8_t)mode;
	pv->unknown = -1;
}
