/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: traces, the counters of the rules that did not decide.
 *
 * A walk passes rules that act without deciding (LOG, NFLOG, MARK,
 * CONNMARK, rewrites, rules with no target): iptables counts every packet
 * that passes them. The walk records them (rule_eval::acts); the list of
 * their rule ids is interned as a trace (an id, 0: none), and an entry
 * keeps the trace of the walk that set its action in its slot's side
 * record (engine_side.c), off the fast path. As for the deciding rule
 * (eng_ctr_switch()), a rule's count is its bank plus the packets of the
 * live entries whose trace names it: an entry that takes a trace when it
 * has counted P packets takes P off each rule of it, one that leaves it
 * gives P back. Nothing per packet: the credit is made when counters are
 * read. Rules lcore only, like everything the engine writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

#define TRACE_IX_MIN 64u

static uint32_t
trace_hash(const uint32_t *ids, uint32_t n)
{
	uint32_t h = 2166136261u ^ n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ ids[i]) * 16777619u;
	return h;
}

/* Index trace @p id (1-based) in a table of @p cap slots. */
static void
trace_index(const struct rule_engine *eng, uint32_t *ix, uint32_t cap, const struct eng_trace *t,
	uint32_t id)
{
	uint32_t i = trace_hash(eng_trace_ids(eng, t), t->n) & (cap - 1);

	while (ix[i] != 0)
		i = (i + 1) & (cap - 1);
	ix[i] = id;
}

/* Room for one more trace of @p n ids. @return 0 or -ENOMEM (nothing changed). */
static int
trace_grow(struct rule_engine *eng, uint32_t n)
{
	if (eng->n_trace_pool + n > eng->cap_trace_pool) {
		uint32_t cap = eng->cap_trace_pool ? eng->cap_trace_pool : 256;
		uint32_t *p;

		while (eng->n_trace_pool + n > cap)
			cap *= 2;
		if (cap > (1u << 26))
			return -ENOMEM;
		p = realloc(eng->trace_pool, (size_t)cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		eng->trace_pool = p;
		eng->cap_trace_pool = cap;
	}
	if (eng->n_traces == eng->cap_traces) {
		uint32_t cap = eng->cap_traces ? eng->cap_traces * 2 : 16;
		struct eng_trace *t;

		if (cap > (1u << 20))
			return -ENOMEM;
		t = realloc(eng->traces, (size_t)cap * sizeof(*t));
		if (t == NULL)
			return -ENOMEM;
		eng->traces = t;
		eng->cap_traces = cap;
	}
	if ((eng->n_traces + 1) * 2 > eng->cap_trace_ix) {
		uint32_t cap = eng->cap_trace_ix ? eng->cap_trace_ix * 2 : TRACE_IX_MIN;
		uint32_t *ix = calloc(cap, sizeof(*ix));

		if (ix == NULL)
			return -ENOMEM;
		for (uint32_t i = 0; i < eng->n_traces; i++)
			trace_index(eng, ix, cap, &eng->traces[i], i + 1);
		free(eng->trace_ix);
		eng->trace_ix = ix;
		eng->cap_trace_ix = cap;
	}
	return 0;
}

uint32_t
eng_trace_intern(struct rule_engine *eng, const uint32_t *ids, uint32_t n)
{
	struct eng_trace *t;
	uint32_t i;

	if (n == 0)
		return 0;
	if (n > ENG_TRACE_IDS)
		n = ENG_TRACE_IDS;
	if (eng->cap_trace_ix != 0) {
		for (i = trace_hash(ids, n) & (eng->cap_trace_ix - 1);;
			i = (i + 1) & (eng->cap_trace_ix - 1)) {
			uint32_t id = eng->trace_ix[i];

			if (id == 0)
				break;
			t = &eng->traces[id - 1];
			if (t->n == n &&
				memcmp(eng_trace_ids(eng, t), ids, n * sizeof(ids[0])) == 0)
				return id;
		}
	}
	if (trace_grow(eng, n) < 0) {
		eng->st.trace_lost++;
		return 0;
	}
	t = &eng->traces[eng->n_traces++];
	t->n = n;
	t->off = eng->n_trace_pool;
	memcpy(eng->trace_pool + t->off, ids, n * sizeof(ids[0]));
	eng->n_trace_pool += n;
	trace_index(eng, eng->trace_ix, eng->cap_trace_ix, t, eng->n_traces);
	return eng->n_traces;
}

/* The trace of the first @p n stages of walk @p ev, stage @p d's decision left out. */
static uint32_t
trace_of(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n, unsigned int d,
	unsigned int family)
{
	uint32_t ids[ENG_TRACE_IDS];
	uint32_t k = 0;

	/*
	 * What acted, and what was passed (jumps, RETURN, other tables'
	 * accepts and policies, decisions replaced): the nat table's only
	 * count a connection's first packet (eng_count_nat_walk()).
	 */
	for (unsigned int s = 0; s < n; s++) {
		for (unsigned int i = 0; i < ev[s].n_acts && i < RULE_ACTS_MAX; i++) {
			uint32_t id = ev[s].acts[i].rule_id;

			if (id == RULE_ID_NONE || id == RULE_ID_POLICY ||
				ev[s].acts[i].table == RULE_TABLE_NAT)
				continue;
			ids[k++] = id;
		}
		for (unsigned int i = 0; i < ev[s].n_notes && i < RULE_NOTES_MAX; i++)
			if (ev[s].notes[i].table != RULE_TABLE_NAT)
				ids[k++] = ev[s].notes[i].id;
		if (ev[s].notes_lost != 0)
			eng->st.trace_lost++;
	}
	/*
	 * Then what the other stages decided (an accept of raw, a rule or a
	 * chain's policy): the entry keeps stage @p d's in fc_action::rule_id.
	 */
	for (unsigned int s = 0; s < n; s++) {
		uint32_t id = eng_dec_id(&ev[s], family);

		if (s != d && id != RULE_ID_NONE)
			ids[k++] = id;
	}
	return eng_trace_intern(eng, ids, k);
}

uint32_t
eng_trace_of_walk(struct rule_engine *eng, const struct rule_eval ev[], unsigned int d,
	unsigned int family)
{
	return trace_of(eng, ev, eng_walked(ev, d), d, family);
}

uint32_t
eng_trace_of_stages(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n,
	unsigned int family)
{
	/* No stage's decision is the entry's: each counts here, a drop's too. */
	return trace_of(eng, ev, n, RULE_STAGE__COUNT, family);
}

void
eng_count_nat_walk(struct rule_engine *eng, const struct rule_eval *ev, unsigned int family,
	uint64_t bytes)
{
	/* A nat DROP policy that decided the stage counts as its decision. */
	if (ev->nat_rule_id != RULE_ID_NONE &&
		!(ev->table == RULE_TABLE_NAT && ev->rule_id == RULE_ID_POLICY &&
			ev->verdict != RULE_VERDICT_ACCEPT))
		eng_rule_count(eng,
			ev->nat_rule_id == RULE_ID_POLICY
				? RULE_ID_CHAIN_POLICY(family, RULE_TABLE_NAT, ev->nat_hook)
				: ev->nat_rule_id,
			1, bytes);
	for (unsigned int i = 0; i < ev->n_acts && i < RULE_ACTS_MAX; i++)
		if (ev->acts[i].table == RULE_TABLE_NAT)
			eng_rule_count(eng, ev->acts[i].rule_id, 1, bytes);
	for (unsigned int i = 0; i < ev->n_notes && i < RULE_NOTES_MAX; i++)
		if (ev->notes[i].table == RULE_TABLE_NAT)
			eng_rule_count(eng, ev->notes[i].id, 1, bytes);
}

const struct eng_trace *
eng_trace_get(const struct rule_engine *eng, uint32_t trace)
{
	if (trace == 0 || trace > eng->n_traces)
		return NULL;
	return &eng->traces[trace - 1];
}

void
eng_trace_count(struct rule_engine *eng, uint32_t trace, uint64_t packets, uint64_t bytes)
{
	const struct eng_trace *t = eng_trace_get(eng, trace);

	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->n; i++)
		eng_rule_count(eng, eng_trace_ids(eng, t)[i], packets, bytes);
}

static void
trace_switch(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_entry *e,
	uint32_t trace)
{
	uint32_t tgen, was = eng_side_trace(eng, ti, idx, &tgen);
	bool live = was != 0 && (int32_t)(tgen - eng->ctr_gen) >= 0;
	uint64_t p = 0, b = 0;

	/* The common case of a new entry: no trace before, none now. */
	if (was == trace && (live || trace == 0))
		return;
	if (e != NULL)
		fc_table_counters(eng->t[ti], idx, &p, &b);
	if (live)
		eng_trace_count(eng, was, p, b);
	/* Without memory for the record the entry counts for no trace. */
	if (eng_side_trace_set(eng, ti, idx, trace, eng->gen) < 0) {
		eng->st.trace_lost++;
		return;
	}
	if (trace != 0)
		eng_trace_count(eng, trace, 0 - p, 0 - b);
}

void
eng_trace_switch(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t trace)
{
	trace_switch(eng, ti, idx, fc_table_entry(eng->t[ti], idx), trace);
}

void
eng_trace_gone(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_entry *e)
{
	trace_switch(eng, ti, idx, e, 0);
}

void
eng_trace_refresh(struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	uint32_t tgen, was = eng_side_trace(eng, ti, idx, &tgen);

	if (was == 0 || (int32_t)(tgen - eng->ctr_gen) >= 0)
		return;
	/* Validated under older rule ids: it counts from now on. */
	eng_trace_switch(eng, ti, idx, was);
}

void
eng_trace_fini(struct rule_engine *eng)
{
	free(eng->traces);
	free(eng->trace_ix);
	free(eng->trace_pool);
	eng->traces = NULL;
	eng->trace_ix = NULL;
	eng->trace_pool = NULL;
	eng->n_traces = eng->cap_traces = eng->cap_trace_ix = 0;
	eng->n_trace_pool = eng->cap_trace_pool = 0;
}
