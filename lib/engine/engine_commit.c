/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the rules engine's commits — O(changed rules) rule-set swaps,
 * the overlay that classifies keys touched by recent changes with the
 * reference evaluator until the compiled classifier catches up, the
 * fast-path staleness check and the background revalidation that retires
 * changes (DESIGN.md "Rule updates without stale verdicts").
 *
 * The changes of a commit are the rules that differ between the old and
 * the new set: every rule inserted, removed or replaced (old and new
 * content), read from the new set's change log (rule_priv.h), plus "all"
 * for a table whose chain hooks or policies changed, and for both tables
 * when the new set is no descendant of the current one (a whole file load)
 * or lists more than max_pending rules. A key k "meets" a change when
 * rule_match_key(rule, k, RULE_CT_IGNORE, kflags) holds (rule_keym_match()
 * on the compact copy the change keeps; or the change is
 * "all").
 *
 * Why the overlay is exact. Let S_c be the set the classifier was built
 * from and S the current set. They differ only in rules listed by the
 * changes of the commits in between (a chain's order is only ever changed
 * by inserting or removing rules; JUMP/GOTO targets are resolved by name,
 * and a chain can only be deleted once empty and unreferenced, which took
 * logged removals; hook and policy changes are "all"). The first-match
 * walk of a key through S_c and S visits the same rules in the same order
 * and gets the same match outcome at each, as long as every changed rule
 * fails to match the key: an inserted rule that does not match is skipped,
 * a removed one was skipped too, a replaced one is skipped in both. Since
 * RULE_CT_IGNORE makes rule_match_key() true whenever the rule matches for
 * some ctstate, a key that meets no change newer than S_c gets the same
 * result from the classifier as from the reference evaluator on S, for
 * every ctstate. Keys that meet one are evaluated on S directly.
 *
 * Staleness uses the same argument with the generation an entry was
 * validated under in place of S_c, on the key the filter saw (the entry's
 * key, with the destination side translated for NAT entries).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_rcu_qsbr.h>

#include "engine_priv.h"

/* Serial-number compare of generations: a newer than b. */
static inline bool
gen_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* ------------------------------------------------------------------------ */
/* Classification with the overlay                                           */
/* ------------------------------------------------------------------------ */

/* Does @k meet a change of @table (RULE_TABLE__COUNT: any) newer than the classifier? */
static bool
overlay_meets(const struct rule_engine *eng, unsigned int table, const struct fc_key *k,
	unsigned int kflags)
{
	for (uint32_t i = eng->n_chg; i-- > 0;) {
		const struct eng_change *c = &eng->chg[i];

		if (!gen_after(c->gen, eng->cls_gen))
			break;
		if (table != RULE_TABLE__COUNT && c->table != table)
			continue;
		if (c->all || rule_keym_match(&c->r, k, kflags))
			return true;
	}
	return false;
}

int
rule_engine_classify(struct rule_engine *eng, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res)
{
	if (eng == NULL || p == NULL || res == NULL)
		return -EINVAL;
	/* The stage's tables see p->key: a change in any of them that it meets is the overlay's. */
	if (eng->cls != NULL &&
		!overlay_meets(eng, RULE_TABLE__COUNT, &p->key, p->flags & RULE_PKT_F_NOPORTS)) {
		eng->st.classify_cls++;
		return eng_clsc_eval(eng, stage, p, pv, res);
	}
	eng->st.classify_ref++;
	return rule_ref_eval(eng->set, stage, p, pv, res);
}

int
rule_engine_classify_filter(struct rule_engine *eng, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res)
{
	if (eng == NULL || k == NULL || res == NULL)
		return -EINVAL;
	if (eng->cls != NULL && !overlay_meets(eng, RULE_TABLE_FILTER, k, kflags)) {
		eng->st.classify_cls++;
		return rule_cls_filter(eng->cls, k, ctstate, kflags, res);
	}
	eng->st.classify_ref++;
	return rule_ref_filter(eng->set, k, ctstate, kflags, res);
}

/* ------------------------------------------------------------------------ */
/* Staleness                                                                 */
/* ------------------------------------------------------------------------ */

bool
eng_entry_stale(const struct rule_engine *eng, const struct eng_pending *pl,
	const struct fc_action *a, const struct fc_key *k)
{
	const struct fc_key *fkp = NULL;
	struct fc_key fk;

	for (uint32_t i = pl->n; i-- > 0;) {
		const struct eng_change *c = &pl->c[i];

		if (!gen_after(c->gen, a->gen))
			break;
		if (c->table == RULE_TABLE_NAT) {
			/* Bindings are not redone; a new flow's cached drop is. */
			if ((a->mod[0] & ENG_M0_NEWDROP) &&
				(c->all || rule_keym_match(&c->r, k, 0)))
				return true;
			continue;
		}
		if (c->all || (a->mod[0] & ENG_M0_FK_UNKNOWN))
			return true;
		if (fkp == NULL) {
			/* Without NAT the filter saw the entry's own key. */
			if (a->flags & FC_ACT_F_NAT) {
				eng_filter_key(eng, k, a, &fk);
				fkp = &fk;
			} else {
				fkp = k;
			}
		}
		if (rule_keym_match(&c->r, fkp, 0))
			return true;
		/* Raw and mangle also run before the destination NAT: on the entry's key. */
		if ((c->table == RULE_TABLE_RAW || c->table == RULE_TABLE_MANGLE) && fkp != k &&
			rule_keym_match(&c->r, k, 0))
			return true;
	}
	return false;
}

bool
rule_engine_stale_check(const struct rule_engine *eng, const struct fc_action *a,
	const struct fc_key *k)
{
	const struct eng_pending *pl = __atomic_load_n(&eng->pending, __ATOMIC_ACQUIRE);

	if ((a->mod[0] & RULE_ACT_M0_NEWDROP) && rule_engine_drop_expected(eng, a, k))
		return true;
	return eng_entry_stale(eng, pl, a, k);
}

/* ------------------------------------------------------------------------ */
/* Change lists                                                              */
/* ------------------------------------------------------------------------ */

/* Publish the changes not yet retired by revalidation; retire the old list. */
static int
publish_pending(struct rule_engine *eng)
{
	struct eng_pending *pl, *old = eng->pending;
	uint32_t first = 0, n;

	while (first < eng->n_chg && !gen_after(eng->chg[first].gen, eng->reval_gen))
		first++;
	n = eng->n_chg - first;
	if (old != NULL && old->n == 0 && n == 0)
		return 0;
	pl = malloc(sizeof(*pl) + (size_t)n * sizeof(pl->c[0]));
	if (pl == NULL)
		return -ENOMEM;
	pl->n = n;
	if (n != 0)
		memcpy(pl->c, &eng->chg[first], (size_t)n * sizeof(pl->c[0]));
	__atomic_store_n(&eng->pending, pl, __ATOMIC_RELEASE);
	if (old != NULL && eng_retire(eng, old) < 0)
		free(old); /* cannot fail without memory; readers are bounded by it */
	return 0;
}

/* Drop changes that neither the overlay nor the pending list needs. */
static void
prune_changes(struct rule_engine *eng)
{
	uint32_t keep = eng->reval_gen, drop = 0;

	if (eng->cls != NULL && gen_after(keep, eng->cls_gen))
		keep = eng->cls_gen;
	while (drop < eng->n_chg && !gen_after(eng->chg[drop].gen, keep))
		drop++;
	if (drop == 0)
		return;
	memmove(eng->chg, &eng->chg[drop], (eng->n_chg - drop) * sizeof(*eng->chg));
	eng->n_chg -= drop;
}

static int
chg_reserve(struct rule_engine *eng, uint32_t more)
{
	uint32_t cap = eng->cap_chg;
	struct eng_change *p;

	if (eng->n_chg + more <= cap)
		return 0;
	while (cap < eng->n_chg + more)
		cap = cap ? cap * 2 : 16;
	p = realloc(eng->chg, (size_t)cap * sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	eng->chg = p;
	eng->cap_chg = cap;
	return 0;
}

/* Chains of @table whose hooks or policy differ (or base chains added/removed). */
static bool
chains_differ(const struct rule_set *a, const struct rule_set *b, enum rule_table table)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct rule_set *x = pass ? b : a, *y = pass ? a : b;

		for (unsigned int i = 0; i < rule_set_chain_count(x, table); i++) {
			const struct rule_chain *c = rule_set_chain_at(x, table, i);
			const struct rule_chain *o = rule_set_chain_find(y, table, c->name);

			if (o == NULL) {
				if (rule_chain_is_base(c))
					return true;
				continue;
			}
			if (c->hooks != o->hooks || c->builtin != o->builtin ||
				(rule_chain_is_base(c) &&
					(c->policy != o->policy || c->policy6 != o->policy6)))
				return true;
		}
	}
	return false;
}

/* Port names or ipsets differ: every rule naming them may decide otherwise. */
static bool
env_differs(const struct rule_set *a, const struct rule_set *b)
{
	unsigned int n = rule_set_port_count(a);

	if (n != rule_set_port_count(b) || rule_set_ipsets_get(a) != rule_set_ipsets_get(b))
		return true;
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(rule_set_port_name(a, i), rule_set_port_name(b, i)) != 0)
			return true;
	return false;
}

/* Do @a and its clone-descendant @b name the same rules by the same ids? */
static bool
same_ids(const struct rule_set *a, const struct rule_set *b)
{
	const struct rule_log *la = rule_set_log(a), *lb = rule_set_log(b);

	return la != NULL && lb != NULL && la->token == lb->token;
}

/*
 * What a commit redoes from the whole new set. A logged commit (no table
 * "all") whose changed rules read no classed field and name no list or
 * table keeps the packet classes and the recent lists / hashlimit tables
 * as they are (the walks would find them unchanged): its work is then its
 * changes', not the set's (10,000 rules: about 100 µs of walks less).
 */
struct commit_redo {
	bool full;    /**< every table "all" */
	bool classes; /**< the packet classes (eng_pktclass_commit()) */
	bool names;   /**< the recent lists and hashlimit tables */
};

/* Append the changes from the current set to @ns under generation @gen. */
static int
record_changes(struct rule_engine *eng, const struct rule_set *ns, uint32_t gen,
	struct commit_redo *redo)
{
	const struct rule_log *nl = rule_set_log(ns), *cl = rule_set_log(eng->set);
	bool all[RULE_TABLE__COUNT] = {false};
	bool logged, env = env_differs(eng->set, ns);
	uint32_t more = RULE_TABLE__COUNT;
	int rc;

	logged = nl != NULL && cl != NULL && nl->token == cl->token && !nl->overflow &&
		 nl->n <= eng->p.max_pending &&
		 (uint64_t)rule_set_rule_count(eng->set) + nl->adds ==
			 (uint64_t)rule_set_rule_count(ns) + nl->removes;
	redo->classes = redo->names = !logged;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		all[t] = !logged || env || chains_differ(eng->set, ns, (enum rule_table)t);
		redo->full = redo->full && all[t];
		/* A hook or policy changed: a base chain's rewrites may run once more or less. */
		redo->classes = redo->classes || all[t];
		redo->names = redo->names || all[t];
	}
	if (logged)
		more += nl->n;
	rc = chg_reserve(eng, more);
	if (rc < 0)
		return rc;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		struct eng_change *c;

		if (!all[t])
			continue;
		c = &eng->chg[eng->n_chg++];
		memset(c, 0, sizeof(*c));
		c->gen = gen;
		c->table = (uint8_t)t;
		c->all = 1;
	}
	if (!logged)
		return 0;
	for (uint32_t i = 0; i < nl->n; i++) {
		struct eng_change *c;

		if (all[nl->e[i].table])
			continue;
		c = &eng->chg[eng->n_chg++];
		c->gen = gen;
		c->table = nl->e[i].table;
		c->all = 0;
		rule_keym_of(&nl->e[i].r, &c->r);
	}
	for (uint32_t i = 0; i < nl->n && !(redo->classes && redo->names); i++) {
		redo->classes = redo->classes || rule_reads_classed_field(&nl->e[i].r);
		redo->names = redo->names || rule_names_state(&nl->e[i].r);
	}
	return 0;
}

static void
set_free_cb(void *arg, uint64_t val)
{
	RTE_SET_USED(val);
	rule_set_free(arg);
}

/*
 * Which hooks of which tables enter a chain of the current set, and which
 * stages have a step worth walking (eng_stage_walks()): stages without one
 * are skipped, with no packet context built for them.
 */
void
eng_hooks_used(struct rule_engine *eng)
{
	uint8_t walk[RULE_TABLE__COUNT] = {0};

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		eng->hooks_used[t] = 0;
		for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
			const struct rule_chain *c;

			if (!(rule_table_hooks(t) & RULE_HOOK_F(h)))
				continue;
			c = rule_set_hook_chain(eng->set, (enum rule_table)t, (enum rule_hook)h);
			if (c == NULL)
				continue;
			eng->hooks_used[t] |= (uint8_t)RULE_HOOK_F(h);
			/* An empty chain that accepts: only filter's accept names a rule (the policy). */
			if (t == RULE_TABLE_FILTER || c->n_rules != 0 ||
				c->policy != RULE_POLICY_ACCEPT || c->policy6 != RULE_POLICY_ACCEPT)
				walk[t] |= (uint8_t)RULE_HOOK_F(h);
		}
	}
	for (unsigned int s = 0; s < RULE_STAGE__COUNT; s++) {
		eng->stage_walk[s] = 0;
		eng->stage_touch[s] = 0;
		for (unsigned int bit = 0; bit < 8; bit++) {
			struct rule_step steps[RULE_STEPS_MAX];
			/* NEW: the nat tables see it; ESTABLISHED: they do not. */
			unsigned int cs = bit & 4 ? RULE_CT_NEW : RULE_CT_ESTABLISHED;
			int n = rule_stage_steps(s, bit & 3, cs, steps);

			for (int i = 0; i < n; i++) {
				if (walk[steps[i].table] & RULE_HOOK_F(steps[i].hook))
					eng->stage_walk[s] |= (uint8_t)(1u << bit);
				if (eng->hooks_used[steps[i].table] & RULE_HOOK_F(steps[i].hook))
					eng->stage_touch[s] |= (uint8_t)(1u << bit);
			}
		}
	}
}

int
rule_engine_commit(struct rule_engine *eng, struct rule_set *s)
{
	struct rule_set *old;
	uint32_t gen, n_before;
	struct commit_redo redo = {true, true, true};
	bool renumbered;
	int rc;

	if (eng == NULL || s == NULL) {
		rule_set_free(s);
		return -EINVAL;
	}
	gen = eng->gen + 1;
	if (gen == 0)
		gen = 1; /* 0 never names a generation */
	n_before = eng->n_chg;
	rc = record_changes(eng, s, gen, &redo);
	/*
	 * Readers must find the changes before the new generation: the list
	 * is published first, the generation stored after it (release).
	 */
	if (rc == 0)
		rc = publish_pending(eng);
	if (rc < 0) {
		eng->n_chg = n_before;
		rule_set_free(s);
		return rc;
	}
	/*
	 * A set that is no descendant of the current one numbers its rules
	 * anew: counters start over (as iptables-restore does; imported
	 * [pkts:bytes] are the rules' own), and entries validated before count
	 * for no rule of it (eng_ctr_live()).
	 */
	renumbered = !same_ids(eng->set, s);
	if (renumbered) {
		eng->ctr_gen = gen;
		eng_pktact_reset(eng);
		if (eng->n_rctr != 0)
			memset(eng->rctr, 0, (size_t)eng->n_rctr * sizeof(*eng->rctr));
		memset(eng->pctr, 0, sizeof(eng->pctr));
	}
	old = eng->set;
	rule_set_generation_set(s, gen);
	/* Without memory the next commit just counts as "everything". */
	(void)rule_set_log_start(s);
	eng->set = s;
	eng_hooks_used(eng);
	/* Lists and tables no rule names any more go, as netfilter frees them with their last rule. */
	if (redo.names || eng->hashlimit == NULL) {
		eng->st.recent_dropped += rule_recent_prune(eng->recent, s);
		if (eng->hashlimit == NULL)
			eng->hashlimit = rule_hashlimit_new(); /* without memory: made at first use */
		eng->st.hashlimit_dropped +=
			rule_hashlimit_load(eng->hashlimit, s, rte_rdtsc(), rte_get_tsc_hz());
	}
	/* Meters stay with rules of the same identity (limit and hashlimit buckets). */
	if (renumbered)
		eng_meters_renumber(eng, old, s);
	eng->gen = gen;
	/* Its flag classes before the generation (without memory: no entry is classed). */
	if ((redo.classes || eng->view.flagclass == NULL) && eng_pktclass_commit(eng) < 0)
		ENG_LOG(DEBUG, "%s: no memory for the flag class table", eng->name);
	eng_clsc_flush(eng);
	__atomic_store_n(&eng->view.gen, gen, __ATOMIC_RELEASE);
	/* Only the rules lcore reads sets: freed at the next step, not in the commit's time. */
	if (rule_engine_defer(eng, set_free_cb, old, 0) < 0)
		rule_set_free(old);
	eng->st.commits++;
	if (redo.full)
		eng->st.commits_full++;
	return 0;
}

uint32_t
rule_engine_generation(const struct rule_engine *eng)
{
	return eng == NULL ? 0 : __atomic_load_n(&eng->view.gen, __ATOMIC_ACQUIRE);
}

struct rule_set *
rule_engine_cls_wanted(struct rule_engine *eng, uint32_t *gen)
{
	struct rule_set *c;

	if (eng == NULL || gen == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (eng->cls != NULL && eng->cls_gen == eng->gen) {
		rte_errno = EALREADY;
		return NULL;
	}
	c = rule_set_clone(eng->set);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	*gen = eng->gen;
	return c;
}

int
rule_engine_cls_ready(struct rule_engine *eng, struct rule_cls *cls, uint32_t gen)
{
	if (eng == NULL || cls == NULL || gen == 0 || gen_after(gen, eng->gen))
		return -EINVAL;
	if (eng->cls != NULL && !gen_after(gen, eng->cls_gen))
		return -ESTALE;
	/* Only the rules lcore classifies: the old one can go at once. */
	rule_cls_free(eng->cls);
	eng->cls = cls;
	eng->cls_gen = gen;
	eng_clsc_flush(eng);
	prune_changes(eng);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Revalidation                                                              */
/* ------------------------------------------------------------------------ */

/* A full pass is over: changes up to its start generation are retired. */
static void
pass_done(struct rule_engine *eng)
{
	eng->pass_active = false;
	eng->reval_gen = eng->pass_gen;
	prune_changes(eng);
	if (publish_pending(eng) < 0) {
		/* Keep the old list: still correct, retried after the next pass. */
		ENG_LOG(DEBUG, "%s: no memory to retire changes", eng->name);
	}
}

unsigned int
eng_revalidate(struct rule_engine *eng, unsigned int budget)
{
	uint32_t left;

	if (!eng->pass_active) {
		if (eng->pending->n == 0 || !gen_after(eng->gen, eng->reval_gen))
			return 0;
		eng->pass_active = true;
		eng->pass_gen = eng->gen;
		eng->pass_tbl = 0;
		eng->pass_next = 0;
	}
	/* Bounded by slots examined, free ones included (fc_table_walk()). */
	left = budget;
	for (;;) {
		struct fc_table *t = eng->t[eng->pass_tbl];
		const struct fc_entry *e;
		const void *raw;
		struct fc_action a;
		struct fc_key k;
		uint32_t idx;
		int rc = t != NULL ? fc_table_walk(t, &eng->pass_next, &left, &raw, &idx) : -ENOENT;

		if (rc == -EAGAIN)
			break;
		if (rc != 0) {
			if (eng->pass_tbl == 0) {
				eng->pass_tbl = 1;
				eng->pass_next = 0;
				continue;
			}
			pass_done(eng);
			break;
		}
		/* Only this lcore writes entries: the one iterate found stays live here. */
		e = fc_table_entry(t, idx);
		if (e == NULL || e->act.gen == eng->gen)
			continue;
		memset(&k, 0, sizeof(k));
		k.family = eng->pass_tbl == 0 ? FC_AF_INET4 : FC_AF_INET6;
		memcpy(&k.v4, raw, fc_table_key_size(t));
		/* A class of a replaced flag table is taken anew (refiltered). */
		if (!eng_entry_stale(eng, eng->pending, &e->act, &k) &&
			(!(e->act.mod[0] & ENG_M0_CLASSED) || eng_pktclass_current(eng, &e->act))) {
			/* Unaffected: only the generation moves (no seqlock write). */
			a = e->act;
			a.gen = eng->gen;
			eng_ctr_switch(eng, t, idx, e, &a); /* older rule ids: it counts from now on */
			eng_trace_refresh(eng, eng->pass_tbl, idx);
			fc_table_set_gen(t, idx, eng->gen);
			eng->st.refreshed++;
			continue;
		}
		a = e->act;
		eng->st.revalidated++;
		if (a.mod[0] & ENG_M0_NEWDROP) {
			/* A new flow's drop: the next packet decides from scratch. */
			eng->gone_why = RULE_GONE_DELETED;
			eng_flow_delete(eng, eng->pass_tbl, idx);
			continue;
		}
		if (eng_refilter(eng, eng->pass_tbl, idx, &k, &a) < 0)
			a.verdict = FC_VERDICT_SLOW;
		a.gen = eng->gen;
		eng_entry_set(eng, eng->pass_tbl, idx, &a, eng_timeout(eng, eng->pass_tbl, idx));
	}
	eng->st.walk_slots += budget - left;
	return budget - left;
}

/* ------------------------------------------------------------------------ */
/* Set-up                                                                    */
/* ------------------------------------------------------------------------ */

int
eng_commit_init(struct rule_engine *eng)
{
	eng->set = rule_set_create();
	if (eng->set == NULL)
		return -ENOMEM;
	if (rule_set_log_start(eng->set) < 0)
		return -ENOMEM;
	eng_hooks_used(eng);
	eng->gen = 1;
	eng->reval_gen = 1;
	rule_set_generation_set(eng->set, eng->gen);
	eng->view.gen = eng->gen;
	eng->pending = calloc(1, sizeof(*eng->pending));
	if (eng->pending == NULL)
		return -ENOMEM;
	return 0;
}

void
eng_commit_fini(struct rule_engine *eng)
{
	rule_set_free(eng->set);
	eng->set = NULL;
	rule_cls_free(eng->cls);
	eng->cls = NULL;
	free(eng->chg);
	eng->chg = NULL;
	free(eng->pending);
	eng->pending = NULL;
	eng_pktclass_fini(eng);
}
