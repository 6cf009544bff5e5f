/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the classification cache — a compiled classifier's results
 * reused across packet contexts that differ only in what no rule tells apart.
 *
 * New connections of a storm often differ in the source port alone (and
 * the source address): their walks through the classifier give the same
 * verdict, deciding rule, NAT decision, actions and context changes. The
 * cache keeps, per stage, the walk's result for the context with its key
 * projected onto what the rules tell apart (rule_cls_key_project(): ports
 * and IPv4 addresses become the number of their interval's class among
 * the rules' port ranges and prefixes; the reply direction's walk sees the client's
 * port as its destination port) and the connection tuples cleared (read
 * by the conntrack match alone, which turns the projection off). Every
 * other field of the context is part of the cache's key: a context that
 * differs in anything else misses.
 *
 * What is never cached: a walk that asked a provider (statistic, recent,
 * connlimit, limit, hashlimit, set, rpfilter: their answer changes from
 * packet to packet) or depended on a meter, an ipset, the clock or a route
 * or the packet's bytes (struct rule_eval::deps), and any walk of a set whose rules read the
 * random number or the clock (rule_cls_pkt_needs()).
 *
 * A hit hands back what the walk made: the result (its notes and actions
 * as far as it has them) and, when the walk changed the context (a MARK,
 * a CONNMARK), the context after it; a walk that changed nothing (the
 * entry's `same`, decided when it is stored) leaves the caller's context
 * alone, which is the common case (accept and drop rules change nothing).
 *
 * Invalidation: wholesale, at every commit (the generation) and whenever
 * another classifier is installed; an entry is tagged with the epoch it
 * was made in. Only the rules lcore classifies: no locks. Direct-mapped,
 * ENG_CLSC_SIZE entries; a collision replaces the older entry.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>

#include "engine_priv.h"

/** Entries of an engine's classification cache (a power of two). */
#define ENG_CLSC_SIZE 1024u

/*
 * Traffic whose contexts seldom repeat (every connection to another
 * destination interval) would pay for lookups and stores and gain
 * nothing: after ENG_CLSC_WINDOW lookups with fewer than one hit in
 * ENG_CLSC_MIN_RATE, the next ENG_CLSC_REST walks go around the cache;
 * then it is tried again. A flush tries it again at once.
 */
#define ENG_CLSC_WINDOW 512u
#define ENG_CLSC_MIN_RATE 8u
#define ENG_CLSC_REST 8192u

/** Dependencies that make a walk's result the packet's own. */
#define ENG_CLSC_DEPS_PER_PKT \
	(RULE_DEP_METER | RULE_DEP_SET | RULE_DEP_TIME | RULE_DEP_ROUTE | RULE_DEP_PAYLOAD)

struct eng_clsc_ent {
	uint32_t epoch;       /**< valid when the cache's epoch (0: never filled) */
	uint32_t hash;
	uint8_t stage;
	struct rule_pkt in;   /**< the context before the walk, projected */
	struct rule_pkt out;  /**< the context after it (projected parts are the packet's own) */
	bool same;            /**< the walk left the context as it found it: a hit copies none */
	struct rule_eval res; /**< the walk's result, notes[] up to n_notes, acts[] up to n_acts */
};

/*
 * The walk memo: an entry's whole refilter (every stage, then what the
 * engine makes of the walk: rule, trace, marks, channel), kept for the
 * refilter a SYN runs as `established` (eng_synack_ahead()), keyed by
 * everything the walk starts from (struct eng_walk_in) with the keys
 * projected as the cache projects them. Only a walk whose every
 * classification the cache kept (none asked a provider, none went to the
 * reference evaluator or around the cache) and that depends on nothing
 * per packet is kept: each of its stages' results is then the cache's
 * for a context the key fixes, and so is the walk.
 *
 * A new flow's two walks are kept the same way, in a table of their own
 * (struct eng_walk_in::kind): its original direction from the filter
 * stage on, keyed by the context its first stage started from and what
 * NAT made of its destination, with the filter and src stages' results
 * (NAT's on_insert reads the src stage's), and its reply direction
 * (filter_on_insert(), reply_verdict(): engine_mods.c). The stages the
 * original direction walked before the filter (conntrack's raw, NAT's
 * PREROUTING) are the cache's for that context when no classification
 * of the flow went around it: the walk is kept only then.
 */
#define ENG_WALKM_SIZE 256u

struct eng_walkm_ent {
	uint32_t epoch;
	uint32_t hash;
	struct eng_walk_in in;
	struct eng_walk_out out;
};

/* A new flow's original direction's filter and src stages' results (struct eng_walk_out::ev). */
struct eng_walkm_ev {
	struct rule_eval ev[2];
};

struct eng_clsc {
	uint32_t epoch;              /**< current epoch, never 0 */
	uint32_t gen;                /**< the engine generation the epoch belongs to */
	const struct rule_cls *cls;  /**< the classifier it belongs to */
	uint32_t n_look;             /**< lookups in the current window */
	uint32_t n_hit;              /**< of those, hits */
	uint32_t rest;               /**< walks left to go around the cache */
	struct eng_clsc_ent e[ENG_CLSC_SIZE];
	struct eng_walkm_ent w[ENG_WALKM_SIZE];  /**< refilters' walks (ENG_WALK_REFILTER) */
	struct eng_walkm_ent wn[ENG_WALKM_SIZE]; /**< new flows' walks, each with its wev */
	struct eng_walkm_ev wev[ENG_WALKM_SIZE];
};

/* A provider that counts the calls, then asks the engine's (or takes the fresh answer). */
struct clsc_pv {
	struct rule_providers pv;
	const struct rule_providers *inner;
	unsigned int calls;
};

static int
clsc_match(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	struct clsc_pv *w = arg;

	w->calls++;
	if (w->inner == NULL || w->inner->match == NULL)
		return -ENOTSUP;
	return w->inner->match(w->inner->arg, r, xi, p);
}

int
eng_clsc_init(struct rule_engine *eng)
{
	/* Only the rules lcore reads it: the C heap, not DPDK's. */
	eng->clsc = calloc(1, sizeof(*eng->clsc));
	if (eng->clsc == NULL)
		return -ENOMEM;
	eng->clsc->epoch = 1;
	return 0;
}

void
eng_clsc_fini(struct rule_engine *eng)
{
	free(eng->clsc);
	eng->clsc = NULL;
}

void
eng_clsc_flush(struct rule_engine *eng)
{
	struct eng_clsc *c = eng->clsc;

	if (c == NULL)
		return;
	if (++c->epoch == 0) {
		/* Wrapped: entries of epoch 1 and later could look valid again. */
		memset(c->e, 0, sizeof(c->e));
		memset(c->w, 0, sizeof(c->w));
		memset(c->wn, 0, sizeof(c->wn));
		c->epoch = 1;
	}
	c->gen = eng->gen;
	c->cls = eng->cls;
	c->n_look = c->n_hit = c->rest = 0;
	eng->st.clsc_flushes++;
}

/*
 * The cache's key for context @p p: the key projected onto what the
 * rules tell apart (rule_cls_key_project()), the connection tuples
 * cleared but for their family; unchanged when the set may read all of
 * the source.
 */
static void
project_here(const struct rule_cls *cls, struct rule_pkt *k)
{
	/* Where the packet's bytes are is no part of it (a walk that read them is not kept). */
	k->l3 = NULL;
	k->l3_cap = 0;
	if (!rule_cls_key_project(cls, &k->key))
		return;
	for (unsigned int i = 0; i < 2; i++) {
		struct fc_key *t = i == 0 ? &k->ct_orig : &k->ct_repl;
		uint8_t fam = t->family;

		memset(t, 0, sizeof(*t));
		t->family = fam;
	}
}

static void
project(const struct rule_cls *cls, struct rule_pkt *k, const struct rule_pkt *p)
{
	memcpy(k, p, sizeof(*k));
	project_here(cls, k);
}

static size_t
res_len(const struct rule_eval *r)
{
	unsigned int n = r->n_acts <= RULE_ACTS_MAX ? r->n_acts : RULE_ACTS_MAX;

	return offsetof(struct rule_eval, acts) + n * sizeof(r->acts[0]);
}

/*
 * A kept result into @p dst: the fields, the notes up to n_notes and the
 * actions up to n_acts (what is past them is read by no one:
 * rule_eval_init() leaves it as it was).
 */
void
eng_res_copy(struct rule_eval *dst, const struct rule_eval *src)
{
	unsigned int nn = src->n_notes <= RULE_NOTES_MAX ? src->n_notes : RULE_NOTES_MAX;
	unsigned int na = src->n_acts <= RULE_ACTS_MAX ? src->n_acts : RULE_ACTS_MAX;

	memcpy(dst, src, offsetof(struct rule_eval, notes) + nn * sizeof(src->notes[0]));
	if (na != 0)
		memcpy(dst->acts, src->acts, na * sizeof(src->acts[0]));
}

int
eng_clsc_eval(struct rule_engine *eng, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res)
{
	struct eng_clsc *c = eng->clsc;
	struct clsc_pv w = {.pv = {.match = clsc_match}, .inner = pv};
	struct eng_clsc_ent *e;
	struct rule_pkt k;
	uint32_t h;
	int rc;

	if (c == NULL || (rule_cls_pkt_needs(eng->cls) & (RULE_PKT_NEED_RAND | RULE_PKT_NEED_TIME))) {
		eng->st.clsc_uncacheable++;
		return rule_cls_eval(eng->cls, stage, p, pv, res);
	}
	if (c->gen != eng->gen || c->cls != eng->cls)
		eng_clsc_flush(eng);
	if (c->rest != 0) {
		c->rest--;
		eng->st.clsc_skipped++;
		return rule_cls_eval(eng->cls, stage, p, pv, res);
	}
	if (++c->n_look == ENG_CLSC_WINDOW) {
		if (c->n_hit * ENG_CLSC_MIN_RATE < c->n_look)
			c->rest = ENG_CLSC_REST;
		c->n_look = c->n_hit = 0;
	}
	project(eng->cls, &k, p);
	/* The projected key and the fields next to it spread the entries; memcmp() decides. */
	h = rte_hash_crc(&k, offsetof(struct rule_pkt, mac_src), (uint32_t)stage);
	e = &c->e[h & (ENG_CLSC_SIZE - 1)];
	if (e->epoch == c->epoch && e->hash == h && e->stage == stage &&
		memcmp(&e->in, &k, sizeof(k)) == 0) {
		/*
		 * The context is e->in but for the projected parts: a walk
		 * that changed nothing leaves it as it is; else the walk's
		 * changes, the projected parts the packet's own (the walk left
		 * them as they were).
		 */
		if (!e->same) {
			struct fc_key key = p->key, orig = p->ct_orig, repl = p->ct_repl;
			const uint8_t *l3 = p->l3;
			uint32_t l3_cap = p->l3_cap;

			*p = e->out;
			p->l3 = l3;
			p->l3_cap = l3_cap;
			p->key = key;
			p->ct_orig = orig;
			p->ct_repl = repl;
		}
		eng_res_copy(res, &e->res);
		eng->st.clsc_hits++;
		c->n_hit++;
		return 0;
	}
	w.pv.arg = &w;
	rc = rule_cls_eval(eng->cls, stage, p, &w.pv, res);
	if (rc < 0)
		return rc;
	if (w.calls != 0 || (res->deps & ENG_CLSC_DEPS_PER_PKT)) {
		eng->st.clsc_uncacheable++;
		return 0;
	}
	eng->st.clsc_misses++;
	e->epoch = c->epoch;
	e->hash = h;
	e->stage = (uint8_t)stage;
	e->in = k;
	e->out = *p;
	/* Projected as the key was: equal when the walk changed no other field. */
	project(eng->cls, &k, p);
	e->same = memcmp(&e->in, &k, sizeof(k)) == 0;
	memcpy(&e->res, res, res_len(res));
	return 0;
}

/*
 * Classifications the cache did not answer or keep, traces and packet
 * operations lost (counted by each walk that loses them): a walk with
 * one is not a memo's.
 */
uint64_t
eng_walk_unkept(const struct rule_engine *eng)
{
	return eng->st.clsc_uncacheable + eng->st.clsc_skipped + eng->st.classify_ref +
		eng->st.trace_lost + eng->pst.ops_lost;
}

bool
eng_walkm_on(const struct rule_engine *eng)
{
	/*
	 * Not while changes wait for the classifier (the overlay), nor for a
	 * set read at random, nor while the cache rests (its walks are not
	 * kept: a memo's lookups would find little).
	 */
	const struct eng_clsc *c = eng->clsc;

	return c != NULL && eng->cls != NULL && eng->cls_gen == eng->gen &&
		(c->rest == 0 || c->gen != eng->gen || c->cls != eng->cls) &&
		!(rule_cls_pkt_needs(eng->cls) & (RULE_PKT_NEED_RAND | RULE_PKT_NEED_TIME));
}

bool
eng_walkm_find(struct rule_engine *eng, struct eng_walk_in *in, const struct eng_walk_out **out,
	struct eng_walkm_probe *pr)
{
	struct eng_clsc *c = eng->clsc;
	const struct eng_walkm_ent *e;
	uint16_t port = fc_key_in_port(&in->fk);
	struct fc_key fk = in->fk;
	uint32_t kl, h;
	bool same;

	/* The caller asked eng_walkm_on() before it built @p in. */
	pr->slot = UINT32_MAX;
	if (c->gen != eng->gen || c->cls != eng->cls)
		eng_clsc_flush(eng);
	/*
	 * The filter's key is most often the entry's own but for the input
	 * port (no NAT; a reply's, where it arrives): projected the same
	 * (the projection leaves the port alone).
	 */
	fc_key_set_in_port(&fk, fc_key_in_port(&in->p.key));
	same = memcmp(&fk, &in->p.key, sizeof(fk)) == 0;
	project_here(eng->cls, &in->p);
	if (same) {
		in->fk = in->p.key;
		fc_key_set_in_port(&in->fk, port);
	} else {
		fk = in->fk;
		if (rule_cls_key_project(eng->cls, &fk))
			in->fk = fk;
	}
	/*
	 * The keys' bytes of their family and the action spread the entries;
	 * memcmp() decides. A filter's key that is the context's but for the
	 * input port adds nothing to spread them but that port: only it is
	 * hashed then (a key equal to another's by chance lands elsewhere,
	 * and misses).
	 */
	kl = in->p.key.family == FC_AF_INET4 ? sizeof(in->p.key.v4) : sizeof(in->p.key.v6);
	h = rte_hash_crc(fc_key_raw(&in->p.key), kl,
		in->p.ctstate | (uint32_t)in->kind << 8 | (uint32_t)same << 15 |
			(uint32_t)(same ? port : 0) << 16);
	if (!same)
		h = rte_hash_crc(fc_key_raw(&in->fk), kl, h);
	pr->hash = rte_hash_crc(&in->a, sizeof(in->a), h);
	pr->slot = pr->hash & (ENG_WALKM_SIZE - 1);
	pr->unkept = eng_walk_unkept(eng);
	e = in->kind == ENG_WALK_REFILTER ? &c->w[pr->slot] : &c->wn[pr->slot];
	if (e->epoch != c->epoch || e->hash != pr->hash || memcmp(&e->in, in, sizeof(*in)) != 0)
		return false;
	*out = &e->out;
	if (in->kind == ENG_WALK_REFILTER)
		eng->st.clsc_walk_hits++;
	else
		eng->st.clsc_new_hits++;
	return true;
}

struct eng_walk_out *
eng_walkm_slot(struct rule_engine *eng, const struct eng_walkm_probe *pr,
	const struct eng_walk_in *in)
{
	struct eng_clsc *c = eng->clsc;
	struct eng_walkm_ent *e;

	if (pr->slot == UINT32_MAX || c == NULL || eng_walk_unkept(eng) != pr->unkept ||
		c->gen != eng->gen || c->cls != eng->cls)
		return NULL;
	if (in->kind == ENG_WALK_REFILTER) {
		e = &c->w[pr->slot];
		e->out.ev = NULL;
	} else {
		e = &c->wn[pr->slot];
		e->out.ev = c->wev[pr->slot].ev;
	}
	e->epoch = c->epoch;
	e->hash = pr->hash;
	e->in = *in;
	return &e->out;
}
