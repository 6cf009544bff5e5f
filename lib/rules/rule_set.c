/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: rule sets — five tables of chains, the editing operations the
 * shell and the loaders share, and the whole-set check (targets exist and
 * are not base chains, no loops, bounded nesting, NAT actions only where
 * their hook allows) that every edit must pass, undone on failure; and the
 * change log (rule_priv.h) that lets the rules engine commit a clone in
 * O(changed rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_priv.h"

/* ------------------------------------------------------------------------ */
/* Change log (see rule_priv.h)                                              */
/* ------------------------------------------------------------------------ */

/* Source of log tokens: unique within the process. */
static uint64_t rule_log_tokens;

static void
log_free(struct rule_log *l)
{
	if (l == NULL)
		return;
	free(l->e);
	free(l);
}

int
rule_set_log_start(struct rule_set *s)
{
	struct rule_log *l;

	log_free(s->log);
	s->log = NULL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -ENOMEM;
	l->token = __atomic_add_fetch(&rule_log_tokens, 1, __ATOMIC_RELAXED);
	s->log = l;
	return 0;
}

const struct rule_log *
rule_set_log(const struct rule_set *s)
{
	return s == NULL ? NULL : s->log;
}

static struct rule_log *
log_copy(const struct rule_log *from)
{
	struct rule_log *l;

	if (from == NULL)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	*l = *from;
	l->e = NULL;
	l->cap = 0;
	if (from->n == 0)
		return l;
	l->e = malloc(from->n * sizeof(*l->e));
	if (l->e == NULL) {
		free(l);
		return NULL;
	}
	memcpy(l->e, from->e, from->n * sizeof(*l->e));
	l->cap = from->n;
	return l;
}

/* Record rule @r of @table; an entry that does not fit makes the log overflow. */
static void
log_rule(struct rule_set *s, unsigned int table, const struct rule *r)
{
	struct rule_log *l = s->log;

	if (l == NULL || l->overflow)
		return;
	if (l->n == RULE_LOG_MAX) {
		l->overflow = true;
		goto drop;
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		struct rule_log_ent *p = realloc(l->e, cap * sizeof(*p));

		if (p == NULL) {
			l->overflow = true;
			goto drop;
		}
		l->e = p;
		l->cap = cap;
	}
	l->e[l->n].table = (uint8_t)table;
	l->e[l->n].r = *r;
	l->n++;
	return;
drop:
	free(l->e);
	l->e = NULL;
	l->n = 0;
	l->cap = 0;
}

static void
log_insert(struct rule_set *s, unsigned int table, const struct rule *r)
{
	if (s->log != NULL)
		s->log->adds++;
	log_rule(s, table, r);
}

static void
log_remove(struct rule_set *s, const struct rule_chain *c, uint32_t pos)
{
	if (s->log != NULL)
		s->log->removes++;
	log_rule(s, c->table, &c->rules[pos]);
}

/* ------------------------------------------------------------------------ */
/* Rule sets                                                                 */
/* ------------------------------------------------------------------------ */

static int
tbl_add_chain(struct rule_tbl *t, unsigned int table, const char *name, bool builtin,
	unsigned int hooks, unsigned int policy)
{
	struct rule_chain *c;

	if (t->n == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 4;
		struct rule_chain *p = realloc(t->chains, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		t->chains = p;
		t->cap = cap;
	}
	c = &t->chains[t->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->table = table;
	c->builtin = builtin;
	c->hooks = hooks;
	c->policy = policy;
	c->policy6 = policy;
	return 0;
}

struct rule_set *
rule_set_create(void)
{
	struct rule_set *s = calloc(1, sizeof(*s));

	if (s == NULL)
		goto nomem;
	s->next_id = 1;
	if (tbl_add_chain(&s->t[RULE_TABLE_FILTER], RULE_TABLE_FILTER, RULE_CHAIN_MAIN, true, 0,
		    RULE_POLICY_ACCEPT) < 0 ||
		tbl_add_chain(&s->t[RULE_TABLE_NAT], RULE_TABLE_NAT, RULE_CHAIN_DNAT, true, 0,
			RULE_POLICY_ACCEPT) < 0 ||
		tbl_add_chain(&s->t[RULE_TABLE_NAT], RULE_TABLE_NAT, RULE_CHAIN_SNAT, true, 0,
			RULE_POLICY_ACCEPT) < 0)
		goto nomem;
	return s;
nomem:
	rule_set_free(s);
	errno = ENOMEM;
	return NULL;
}

void
rule_set_free(struct rule_set *s)
{
	if (s == NULL)
		return;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int i = 0; i < s->t[t].n; i++)
			free(s->t[t].chains[i].rules);
		free(s->t[t].chains);
	}
	log_free(s->log);
	free(s->ports);
	rule_ipsets_free(s->ipsets);
	rule_xrefs_free(s);
	free(s);
}

struct rule_set *
rule_set_clone(const struct rule_set *s)
{
	struct rule_set *c;

	if (s == NULL) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		goto nomem;
	c->gen = s->gen;
	c->next_id = s->next_id;
	if (s->n_ports > 0) {
		c->ports = malloc(s->n_ports * sizeof(*c->ports));
		if (c->ports == NULL)
			goto nomem;
		memcpy(c->ports, s->ports, s->n_ports * sizeof(*c->ports));
		c->n_ports = s->n_ports;
	}
	if (s->ipsets != NULL) {
		rule_ipsets_ref(s->ipsets);
		c->ipsets = s->ipsets;
	}
	if (s->log != NULL) {
		c->log = log_copy(s->log);
		if (c->log == NULL)
			goto nomem;
	}
	if (rule_xrefs_clone(c, s) < 0)
		goto nomem;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		const struct rule_tbl *from = &s->t[t];
		struct rule_tbl *to = &c->t[t];

		to->chains = calloc(from->n ? from->n : 1, sizeof(*to->chains));
		if (to->chains == NULL)
			goto nomem;
		to->cap = from->n ? from->n : 1;
		for (unsigned int i = 0; i < from->n; i++) {
			const struct rule_chain *fc = &from->chains[i];
			struct rule_chain *tc = &to->chains[i];

			*tc = *fc;
			tc->rules = NULL;
			tc->cap = 0;
			to->n = i + 1;
			if (fc->n_rules == 0) {
				tc->n_rules = 0;
				continue;
			}
			tc->rules = malloc(fc->n_rules * sizeof(*tc->rules));
			if (tc->rules == NULL) {
				tc->n_rules = 0;
				goto nomem;
			}
			memcpy(tc->rules, fc->rules, fc->n_rules * sizeof(*tc->rules));
			tc->cap = fc->n_rules;
		}
	}
	return c;
nomem:
	rule_set_free(c);
	errno = ENOMEM;
	return NULL;
}

uint64_t
rule_set_generation(const struct rule_set *s)
{
	return s->gen;
}

void
rule_set_generation_set(struct rule_set *s, uint64_t gen)
{
	s->gen = gen;
}

unsigned int
rule_set_rule_count(const struct rule_set *s)
{
	unsigned int n = 0;

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < s->t[t].n; i++)
			n += s->t[t].chains[i].n_rules;
	return n;
}

unsigned int
rule_set_chain_count(const struct rule_set *s, enum rule_table table)
{
	return (unsigned int)table < RULE_TABLE__COUNT ? s->t[table].n : 0;
}

const struct rule_chain *
rule_set_chain_at(const struct rule_set *s, enum rule_table table, unsigned int i)
{
	if ((unsigned int)table >= RULE_TABLE__COUNT || i >= s->t[table].n)
		return NULL;
	return &s->t[table].chains[i];
}

int
rule_tbl_find(const struct rule_set *s, unsigned int table, const char *name)
{
	if (table >= RULE_TABLE__COUNT || name == NULL)
		return -1;
	for (unsigned int i = 0; i < s->t[table].n; i++)
		if (strncmp(s->t[table].chains[i].name, name, RULE_NAME_MAX) == 0)
			return (int)i;
	return -1;
}

const struct rule_chain *
rule_set_chain_find(const struct rule_set *s, enum rule_table table, const char *name)
{
	int i = rule_tbl_find(s, table, name);

	return i < 0 ? NULL : &s->t[table].chains[i];
}

const struct rule_chain *
rule_set_hook_chain(const struct rule_set *s, enum rule_table table, enum rule_hook hook)
{
	const char *def = NULL;

	if (s == NULL || (unsigned int)hook >= RULE_HOOK__COUNT ||
		!(rule_table_hooks(table) & RULE_HOOK_F(hook)))
		return NULL;
	for (unsigned int i = 0; i < s->t[table].n; i++)
		if (s->t[table].chains[i].hooks & RULE_HOOK_F(hook))
			return &s->t[table].chains[i];
	if (table == RULE_TABLE_FILTER)
		def = RULE_CHAIN_MAIN;
	else if (table == RULE_TABLE_NAT && hook == RULE_HOOK_PREROUTING)
		def = RULE_CHAIN_DNAT;
	else if (table == RULE_TABLE_NAT && hook == RULE_HOOK_POSTROUTING)
		def = RULE_CHAIN_SNAT;
	return def ? rule_set_chain_find(s, table, def) : NULL;
}

int
rule_set_policy_counters_add(struct rule_set *s, enum rule_table table, enum rule_hook hook,
	unsigned int family, uint64_t pkts, uint64_t bytes)
{
	const struct rule_chain *cc;
	struct rule_chain *c;

	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT ||
		(family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	cc = rule_set_hook_chain(s, table, hook);
	if (cc == NULL)
		return -ENOENT;
	/* The set is the caller's: its chain, found through the table. */
	c = &s->t[table].chains[cc - s->t[table].chains];
	if (family == FC_AF_INET6) {
		c->pkts6 += pkts;
		c->bytes6 += bytes;
	} else {
		c->pkts += pkts;
		c->bytes += bytes;
	}
	return 0;
}

int
rule_set_chain_add(struct rule_set *s, enum rule_table table, const char *name, unsigned int hooks,
	enum rule_policy policy)
{
	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT || !rule_chain_name_valid(name))
		return -EINVAL;
	if ((hooks & ~rule_table_hooks(table)) != 0)
		return -EINVAL;
	if (policy != RULE_POLICY_ACCEPT && (policy != RULE_POLICY_DROP || hooks == 0))
		return -EINVAL;
	if (rule_tbl_find(s, table, name) >= 0)
		return -EEXIST;
	for (unsigned int i = 0; i < s->t[table].n; i++)
		if (s->t[table].chains[i].hooks & hooks)
			return -EBUSY;
	return tbl_add_chain(&s->t[table], table, name, false, hooks, policy);
}

static bool
chain_referenced(const struct rule_set *s, unsigned int table, const char *name)
{
	for (unsigned int i = 0; i < s->t[table].n; i++) {
		const struct rule_chain *c = &s->t[table].chains[i];

		for (uint32_t j = 0; j < c->n_rules; j++)
			if ((c->rules[j].action == RULE_ACT_JUMP ||
				    c->rules[j].action == RULE_ACT_GOTO) &&
				strncmp(c->rules[j].chain, name, RULE_NAME_MAX) == 0)
				return true;
	}
	return false;
}

int
rule_set_chain_del(struct rule_set *s, enum rule_table table, const char *name)
{
	struct rule_tbl *t;
	int i;

	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT || name == NULL)
		return -EINVAL;
	i = rule_tbl_find(s, table, name);
	if (i < 0)
		return -ENOENT;
	t = &s->t[table];
	if (t->chains[i].builtin)
		return -EPERM;
	if (t->chains[i].n_rules != 0)
		return -ENOTEMPTY;
	if (chain_referenced(s, table, name))
		return -EBUSY;
	free(t->chains[i].rules);
	memmove(&t->chains[i], &t->chains[i + 1], (t->n - i - 1) * sizeof(*t->chains));
	t->n--;
	return 0;
}

static int
chain_policy(struct rule_set *s, enum rule_table table, const char *name, unsigned int family,
	enum rule_policy policy)
{
	struct rule_chain *c;
	int i;

	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT ||
		(policy != RULE_POLICY_ACCEPT && policy != RULE_POLICY_DROP))
		return -EINVAL;
	i = rule_tbl_find(s, table, name);
	if (i < 0)
		return -ENOENT;
	c = &s->t[table].chains[i];
	if (!rule_chain_is_base(c))
		return -EINVAL;
	if (family != FC_AF_INET6)
		c->policy = policy;
	if (family != FC_AF_INET4)
		c->policy6 = policy;
	return 0;
}

int
rule_set_chain_policy(
	struct rule_set *s, enum rule_table table, const char *name, enum rule_policy policy)
{
	return chain_policy(s, table, name, 0, policy);
}

int
rule_set_chain_policy_af(struct rule_set *s, enum rule_table table, const char *name,
	unsigned int family, enum rule_policy policy)
{
	if (family != FC_AF_INET4 && family != FC_AF_INET6)
		return -EINVAL;
	return chain_policy(s, table, name, family, policy);
}

int
rule_set_chain_flush(struct rule_set *s, enum rule_table table, const char *name)
{
	struct rule_chain *c;
	int i, n;

	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT)
		return -EINVAL;
	i = rule_tbl_find(s, table, name);
	if (i < 0)
		return -ENOENT;
	c = &s->t[table].chains[i];
	n = (int)c->n_rules;
	for (uint32_t j = 0; j < c->n_rules; j++)
		log_remove(s, c, j);
	c->n_rules = 0;
	return n;
}

int
rule_chain_insert(
	struct rule_set *s, struct rule_chain *c, uint32_t pos, const struct rule *r, uint32_t *id)
{
	int rc;

	if (s->next_id >= RULE_ID_CHAIN_POLICY_BASE || c->n_rules == UINT32_MAX - 1)
		return -ENOSPC;
	/* Its out-of-line programs, held by the set (-ENOENT: no set holds one now). */
	rc = rule_xrefs_rule(s, r);
	if (rc < 0)
		return rc == -ENOENT ? -EINVAL : rc;
	if (c->n_rules == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 8;
		struct rule *p;

		if (cap < c->cap)
			return -ENOMEM;
		p = realloc(c->rules, (size_t)cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		c->rules = p;
		c->cap = cap;
	}
	if (pos > c->n_rules)
		pos = c->n_rules;
	memmove(&c->rules[pos + 1], &c->rules[pos], (c->n_rules - pos) * sizeof(*c->rules));
	c->rules[pos] = *r;
	c->rules[pos].id = s->next_id++;
	c->n_rules++;
	log_insert(s, c->table, &c->rules[pos]);
	if (id != NULL)
		*id = c->rules[pos].id;
	return 0;
}

void
rule_chain_remove(struct rule_chain *c, uint32_t pos)
{
	memmove(&c->rules[pos], &c->rules[pos + 1], (c->n_rules - pos - 1) * sizeof(*c->rules));
	c->n_rules--;
}

static int set_check(const struct rule_set *s, bool full, uint32_t *bad_id, const char **msg);

/*
 * Whether adding @r to a valid set (whose table accepts its action) can make
 * it invalid: only edges between chains (loops, depth, dangling or base
 * targets) and nat actions (hook placement) can. Everything else is checked
 * by rule_check() alone, which keeps bulk additions of plain rules linear.
 */
static bool
needs_set_check(const struct rule *r)
{
	switch (r->action) {
	case RULE_ACT_JUMP:
	case RULE_ACT_GOTO:
	case RULE_ACT_DNAT:
	case RULE_ACT_SNAT:
	case RULE_ACT_MASQUERADE:
		return true;
	default:
		return false;
	}
}

int
rule_set_rule_add(struct rule_set *s, enum rule_table table, const char *chain, uint32_t pos,
	const struct rule *r, uint32_t *id)
{
	struct rule_chain *c;
	uint32_t new_id, at;
	uint32_t bad;
	const char *msg;
	int i, rc;

	if (s == NULL || r == NULL || (unsigned int)table >= RULE_TABLE__COUNT)
		return -EINVAL;
	if (rule_check(r, NULL) < 0 || !rule_action_in_table(r->action, table))
		return -EINVAL;
	i = rule_tbl_find(s, table, chain);
	if (i < 0)
		return -ENOENT;
	c = &s->t[table].chains[i];
	at = pos > c->n_rules ? c->n_rules : pos;
	rc = rule_chain_insert(s, c, at, r, &new_id);
	if (rc < 0)
		return rc;
	rc = needs_set_check(r) ? set_check(s, false, &bad, &msg) : 0;
	if (rc < 0) {
		/* The check does not move chains: c is still valid. */
		log_remove(s, c, at);
		rule_chain_remove(c, at);
		s->next_id--;
		return rc;
	}
	if (id != NULL)
		*id = new_id;
	return 0;
}

int
rule_set_rule_del(struct rule_set *s, enum rule_table table, const char *chain, uint32_t pos)
{
	struct rule_chain *c;
	int i;

	if (s == NULL || (unsigned int)table >= RULE_TABLE__COUNT)
		return -EINVAL;
	i = rule_tbl_find(s, table, chain);
	if (i < 0)
		return -ENOENT;
	c = &s->t[table].chains[i];
	if (pos >= c->n_rules)
		return -ENOENT;
	log_remove(s, c, pos);
	rule_chain_remove(c, pos);
	return 0;
}

/* Mutable lookup by id. */
static struct rule_chain *
find_id(struct rule_set *s, uint32_t id, unsigned int *table, uint32_t *pos)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < s->t[t].n; i++) {
			struct rule_chain *c = &s->t[t].chains[i];

			for (uint32_t j = 0; j < c->n_rules; j++)
				if (c->rules[j].id == id) {
					*table = t;
					*pos = j;
					return c;
				}
		}
	return NULL;
}

int
rule_set_rule_del_id(struct rule_set *s, uint32_t id)
{
	struct rule_chain *c;
	unsigned int t;
	uint32_t pos;

	if (s == NULL || id == RULE_ID_NONE || id == RULE_ID_POLICY)
		return -EINVAL;
	c = find_id(s, id, &t, &pos);
	if (c == NULL)
		return -ENOENT;
	log_remove(s, c, pos);
	rule_chain_remove(c, pos);
	return 0;
}

int
rule_set_rule_replace(struct rule_set *s, uint32_t id, const struct rule *r)
{
	struct rule_chain *c;
	struct rule old;
	unsigned int t;
	uint32_t pos, bad;
	const char *msg;
	int rc;

	if (s == NULL || r == NULL || id == RULE_ID_NONE || id == RULE_ID_POLICY)
		return -EINVAL;
	if (rule_check(r, NULL) < 0)
		return -EINVAL;
	c = find_id(s, id, &t, &pos);
	if (c == NULL)
		return -ENOENT;
	if (!rule_action_in_table(r->action, t))
		return -EINVAL;
	rc = rule_xrefs_rule(s, r);
	if (rc < 0)
		return rc == -ENOENT ? -EINVAL : rc;
	old = c->rules[pos];
	c->rules[pos] = *r;
	c->rules[pos].id = id;
	/* Removing a jump or a nat action cannot make a valid set invalid. */
	rc = needs_set_check(r) ? set_check(s, false, &bad, &msg) : 0;
	if (rc < 0) {
		c->rules[pos] = old;
		return rc;
	}
	log_rule(s, t, &old);
	log_rule(s, t, &c->rules[pos]);
	return 0;
}

const struct rule *
rule_set_rule_find(const struct rule_set *s, uint32_t id, enum rule_table *table,
	const struct rule_chain **chain, uint32_t *pos)
{
	struct rule_chain *c;
	unsigned int t;
	uint32_t p;

	if (s == NULL || id == RULE_ID_NONE || id == RULE_ID_POLICY)
		return NULL;
	/* find_id() does not modify; the cast keeps one lookup for both uses. */
	c = find_id((struct rule_set *)(uintptr_t)s, id, &t, &p);
	if (c == NULL)
		return NULL;
	if (table != NULL)
		*table = (enum rule_table)t;
	if (chain != NULL)
		*chain = c;
	if (pos != NULL)
		*pos = p;
	return &c->rules[p];
}

/* ------------------------------------------------------------------------ */
/* Whole-set check                                                           */
/* ------------------------------------------------------------------------ */

enum { WHITE, GREY, BLACK };

struct check_ctx {
	const struct rule_set *s;
	unsigned int table;
	uint8_t *color;
	uint8_t *need;	       /* chains nested below, counting jumps and gotos */
	unsigned int *by_name; /* chain indexes of the table, sorted by name */
	bool full;	       /* also rule_check() every rule */
	uint8_t family;	       /* rules of this family (and of both) only */
	uint32_t bad_id;
	const char *msg;
};

/* qsort_r() comparator: chain indexes by the names in @arg's chain array. */
static int
cmp_chain_idx(const void *a, const void *b, void *arg)
{
	const struct rule_chain *chains = arg;

	return strncmp(chains[*(const unsigned int *)a].name, chains[*(const unsigned int *)b].name,
		RULE_NAME_MAX);
}

/* Index of chain @name in the table being checked, or -1: O(log chains). */
static int
check_find(const struct check_ctx *x, const char *name)
{
	const struct rule_tbl *t = &x->s->t[x->table];
	unsigned int lo = 0, hi = t->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = strncmp(t->chains[x->by_name[mid]].name, name, RULE_NAME_MAX);

		if (c == 0)
			return (int)x->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int
check_visit(struct check_ctx *x, unsigned int ci, unsigned int depth)
{
	const struct rule_chain *c = &x->s->t[x->table].chains[ci];
	unsigned int need = 0;
	int rc;

	x->color[ci] = GREY;
	for (uint32_t j = 0; j < c->n_rules; j++) {
		const struct rule *r = &c->rules[j];
		int ti;

		if (r->action != RULE_ACT_JUMP && r->action != RULE_ACT_GOTO)
			continue;
		if (r->family != 0 && r->family != x->family)
			continue; /* the other family's graph */
		ti = check_find(x, r->chain);
		/* Targets were checked to exist before the walk. */
		if (x->color[ti] == GREY) {
			x->bad_id = r->id;
			x->msg = "chain loop";
			return -ELOOP;
		}
		if (x->color[ti] == WHITE) {
			if (depth + 1 > RULE_DEPTH_MAX) {
				x->bad_id = r->id;
				x->msg = "chains nested too deeply";
				return -ELOOP;
			}
			rc = check_visit(x, (unsigned int)ti, depth + 1);
			if (rc < 0)
				return rc;
		}
		if (x->need[ti] + 1u > need)
			need = x->need[ti] + 1u;
		if (depth + need > RULE_DEPTH_MAX) {
			x->bad_id = r->id;
			x->msg = "chains nested too deeply";
			return -ELOOP;
		}
	}
	x->need[ci] = (uint8_t)need;
	x->color[ci] = BLACK;
	return 0;
}

/* Every rule reachable from chain @ci must be allowed at @hook (no loops by now). */
static int
check_reach(struct check_ctx *x, unsigned int ci, unsigned int hook)
{
	const struct rule_chain *c = &x->s->t[x->table].chains[ci];
	int rc;

	if (x->color[ci] == hook + 1)
		return 0;
	x->color[ci] = (uint8_t)(hook + 1);
	for (uint32_t j = 0; j < c->n_rules; j++) {
		const struct rule *r = &c->rules[j];

		if (!(rule_action_hooks(r->action) & RULE_HOOK_F(hook))) {
			x->bad_id = r->id;
			switch (r->action) {
			case RULE_ACT_DNAT:
				x->msg = "dnat only at prerouting or output";
				break;
			case RULE_ACT_SNAT:
				x->msg = "snat only at postrouting or input";
				break;
			case RULE_ACT_MASQUERADE:
				x->msg = "masquerade only at postrouting";
				break;
			case RULE_ACT_REDIRECT:
				x->msg = "redirect only at prerouting or output";
				break;
			case RULE_ACT_REJECT:
				x->msg = "reject only at input, forward or output";
				break;
			default:
				x->msg = "target not allowed at this hook";
				break;
			}
			return -EINVAL;
		}
		if (r->action == RULE_ACT_JUMP || r->action == RULE_ACT_GOTO) {
			rc = check_reach(x, (unsigned int)check_find(x, r->chain), hook);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int
check_table(struct check_ctx *x)
{
	const struct rule_tbl *t = &x->s->t[x->table];
	const char *msg;
	int rc;

	for (unsigned int i = 0; i < t->n; i++)
		x->by_name[i] = i;
	qsort_r(x->by_name, t->n, sizeof(*x->by_name), cmp_chain_idx, t->chains);
	for (unsigned int i = 0; i < t->n; i++) {
		const struct rule_chain *c = &t->chains[i];

		for (uint32_t j = 0; j < c->n_rules; j++) {
			const struct rule *r = &c->rules[j];
			int ti;

			x->bad_id = r->id;
			if (x->full && rule_check(r, &msg) < 0) {
				x->msg = msg;
				return -EINVAL;
			}
			if (!rule_action_in_table(r->action, x->table)) {
				x->msg = x->table == RULE_TABLE_NAT && r->action == RULE_ACT_DROP
						 ? "drop not allowed in nat table"
					 : rule_action_nat(r->action)
						 ? "nat action in filter table"
						 : "action not allowed in this table";
				return -EINVAL;
			}
			if (r->action != RULE_ACT_JUMP && r->action != RULE_ACT_GOTO)
				continue;
			ti = check_find(x, r->chain);
			if (ti < 0) {
				x->msg = "unknown chain";
				return -ENOENT;
			}
			if (rule_chain_is_base(&t->chains[ti])) {
				x->msg = "target is a base chain";
				return -EINVAL;
			}
		}
	}
	x->bad_id = RULE_ID_NONE;
	for (x->family = FC_AF_INET4; x->family <= FC_AF_INET6; x->family += 2) {
		memset(x->color, WHITE, t->n);
		memset(x->need, 0, t->n);
		for (unsigned int i = 0; i < t->n; i++) {
			if (x->color[i] != WHITE)
				continue;
			rc = check_visit(x, i, 1);
			if (rc < 0)
				return rc;
		}
	}
	memset(x->color, 0, t->n);
	for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
		const struct rule_chain *base = rule_set_hook_chain(x->s, x->table, h);

		if (base == NULL)
			continue;
		rc = check_reach(x, (unsigned int)(base - t->chains), h);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* rule_set_check(), optionally without re-checking each rule on its own. */
static int
set_check(const struct rule_set *s, bool full, uint32_t *bad_id, const char **msg)
{
	struct check_ctx x = {.s = s, .bad_id = RULE_ID_NONE, .msg = NULL, .full = full};
	unsigned int most = 1;
	int rc = 0;

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		if (s->t[t].n > most)
			most = s->t[t].n;
	x.color = malloc(most);
	x.need = calloc(most, 1);
	x.by_name = malloc(most * sizeof(*x.by_name));
	if (x.color == NULL || x.need == NULL || x.by_name == NULL) {
		x.msg = "out of memory";
		rc = -ENOMEM;
		goto out;
	}
	for (x.table = 0; x.table < RULE_TABLE__COUNT; x.table++) {
		rc = check_table(&x);
		if (rc < 0)
			goto out;
	}
	x.bad_id = RULE_ID_NONE;
out:
	free(x.color);
	free(x.need);
	free(x.by_name);
	*bad_id = x.bad_id;
	*msg = x.msg;
	return rc;
}

int
rule_set_check(const struct rule_set *s, uint32_t *bad_id, const char **msg)
{
	return set_check(s, true, bad_id, msg);
}
