/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route/route_policy.c — policy routing: the tables other than
 * main (numbered, optionally named; small, scanned longest prefix first)
 * and the rules that pick a table for a packet by its source, destination,
 * mark, input port, protocol and ports (Linux's `ip rule`), with the main
 * table's implicit rule at pref 32766. The main table itself stays in route.c (LPM). A
 * change restarts the walk over the cached flows (route_module.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "route_priv.h"

void
route_policy_fini(struct mod_route *rt)
{
	for (uint32_t i = 0; i < rt->n_xt; i++)
		free(rt->xt[i].routes);
	free(rt->xt);
	rt->xt = NULL;
	rt->n_xt = rt->cap_xt = 0;
	free(rt->rules);
	rt->rules = NULL;
	rt->n_rules = rt->cap_rules = 0;
}

static bool
table_id_ok(uint32_t id)
{
	return id != 0 && id != 253 && id != 255 && id != UINT32_MAX;
}

static struct route_xtable *
xt_find(const struct mod_route *rt, uint32_t id)
{
	for (uint32_t i = 0; i < rt->n_xt; i++)
		if (rt->xt[i].id == id)
			return &rt->xt[i];
	return NULL;
}

/* Table @p id, made if new. NULL: -ENOMEM. */
static struct route_xtable *
xt_make(struct mod_route *rt, uint32_t id)
{
	struct route_xtable *t = xt_find(rt, id);

	if (t != NULL)
		return t;
	if (rt->n_xt == rt->cap_xt) {
		uint32_t cap = rt->cap_xt ? rt->cap_xt * 2 : 4;
		struct route_xtable *p = realloc(rt->xt, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		rt->xt = p;
		rt->cap_xt = cap;
	}
	t = &rt->xt[rt->n_xt++];
	memset(t, 0, sizeof(*t));
	t->id = id;
	return t;
}

static int
xt_route_find(const struct route_xtable *t, unsigned int family, const uint8_t *addr,
	uint8_t depth)
{
	for (uint32_t i = 0; i < t->n_routes; i++) {
		const struct route_ent *r = &t->routes[i];

		if (r->family == family && r->depth == depth &&
			memcmp(r->addr, addr, fc_af_addr_len(family)) == 0)
			return (int)i;
	}
	return -1;
}

int
mod_route_table_add(struct mod_route *rt, uint32_t table, unsigned int family,
	const uint8_t *addr, uint8_t depth, const struct mod_route_nh *nh, uint8_t flags)
{
	struct route_xtable *t;
	int64_t nhi;
	int i;

	if (table == MOD_ROUTE_TABLE_MAIN)
		return mod_route_add_nh(rt, family, addr, depth, nh, flags);
	if (rt == NULL || nh == NULL || nh->port >= RULE_PORT_LOCAL || !table_id_ok(table) ||
		route_prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	t = xt_make(rt, table);
	if (t == NULL)
		return -ENOMEM;
	i = xt_route_find(t, family, addr, depth);
	if (i < 0) {
		int rc = route_ents_room(&t->routes, t->n_routes, &t->cap_routes, family,
			family == FC_AF_INET4 ? rt->p.max_routes_v4 : rt->p.max_routes_v6);

		if (rc < 0)
			return rc;
	}
	nhi = route_nh_take(rt, family, nh);
	if (nhi < 0)
		return (int)nhi;
	if (i < 0) {
		i = (int)t->n_routes++;
		memset(&t->routes[i], 0, sizeof(t->routes[i]));
		t->routes[i].family = (uint8_t)family;
		t->routes[i].depth = depth;
		memcpy(t->routes[i].addr, addr, fc_af_addr_len(family));
	} else {
		route_nh_drop(rt, t->routes[i].nh);
	}
	t->routes[i].nh = (uint32_t)nhi;
	t->routes[i].flags = flags;
	route_changed(rt);
	return 0;
}

int
mod_route_table_del(struct mod_route *rt, uint32_t table, unsigned int family,
	const uint8_t *addr, uint8_t depth)
{
	struct route_xtable *t;
	int i;

	if (table == MOD_ROUTE_TABLE_MAIN)
		return mod_route_del(rt, family, addr, depth);
	if (rt == NULL || route_prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	t = xt_find(rt, table);
	i = t != NULL ? xt_route_find(t, family, addr, depth) : -1;
	if (i < 0)
		return -ENOENT;
	route_nh_drop(rt, t->routes[i].nh);
	t->routes[i] = t->routes[--t->n_routes];
	route_changed(rt);
	return 0;
}

int
mod_route_table_named(struct mod_route *rt, const char *name, bool create, uint32_t *id)
{
	struct route_xtable *t;
	size_t n;
	bool digits = true;
	uint32_t want = MOD_ROUTE_TABLE_NAMED_BASE;

	if (rt == NULL || name == NULL || id == NULL)
		return -EINVAL;
	n = strnlen(name, MOD_ROUTE_NAME_MAX);
	if (n == 0 || n >= MOD_ROUTE_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-' &&
			name[i] != '.')
			return -EINVAL;
		digits = digits && isdigit((unsigned char)name[i]);
	}
	if (digits)
		return -EINVAL;
	if (strcmp(name, "main") == 0) {
		*id = MOD_ROUTE_TABLE_MAIN;
		return 0;
	}
	if (strcmp(name, "local") == 0 || strcmp(name, "default") == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < rt->n_xt; i++)
		if (strcmp(rt->xt[i].name, name) == 0) {
			*id = rt->xt[i].id;
			return 0;
		}
	if (!create)
		return -ENOENT;
	while (xt_find(rt, want) != NULL)
		want++;
	t = xt_make(rt, want);
	if (t == NULL)
		return -ENOMEM;
	memcpy(t->name, name, n + 1);
	*id = want;
	return 0;
}

const char *
mod_route_table_name(const struct mod_route *rt, uint32_t id)
{
	const struct route_xtable *t;

	if (rt == NULL)
		return NULL;
	if (id == MOD_ROUTE_TABLE_MAIN)
		return "main";
	t = xt_find(rt, id);
	return t != NULL ? t->name : NULL;
}

int
mod_route_table_next(const struct mod_route *rt, uint32_t *it, uint32_t *id, uint32_t *n_routes)
{
	if (rt == NULL || it == NULL || id == NULL)
		return -EINVAL;
	if (*it >= rt->n_xt)
		return -ENOENT;
	*id = rt->xt[*it].id;
	if (n_routes != NULL)
		*n_routes = rt->xt[*it].n_routes;
	(*it)++;
	return 0;
}

int
mod_route_table_route_next(const struct mod_route *rt, uint32_t table, uint32_t *it,
	struct mod_route_info *info)
{
	const struct route_xtable *t;

	if (table == MOD_ROUTE_TABLE_MAIN)
		return mod_route_next(rt, it, info);
	if (rt == NULL || it == NULL || info == NULL)
		return -EINVAL;
	t = xt_find(rt, table);
	if (t == NULL || *it >= t->n_routes)
		return -ENOENT;
	route_ent_info(rt, &t->routes[(*it)++], info);
	return 0;
}

int
mod_route_table_dump(const struct mod_route *rt, uint32_t table, FILE *f)
{
	struct mod_route_info ri;
	uint32_t it = 0;
	int n = 0;

	if (rt == NULL || f == NULL)
		return -EINVAL;
	if (table != MOD_ROUTE_TABLE_MAIN && xt_find(rt, table) == NULL)
		return -ENOENT;
	while (mod_route_table_route_next(rt, table, &it, &ri) == 0) {
		int rc = route_info_dump(&ri, f);

		if (rc < 0)
			return rc;
		n++;
	}
	return n;
}

/* Does prefix @p p / @p len hold @p a (both of @p family)? */
static bool
pfx_has(const uint8_t *p, uint8_t len, const uint8_t *a)
{
	unsigned int whole = len / 8, rest = len % 8;

	if (memcmp(p, a, whole) != 0)
		return false;
	return rest == 0 || ((p[whole] ^ a[whole]) & (uint8_t)(0xff00 >> rest)) == 0;
}

/* Longest prefix of table @p t holding @p dst: its next hop index, or -1. */
static int64_t
xt_lookup(const struct route_xtable *t, unsigned int family, const uint8_t *dst)
{
	int64_t best = -1;
	int best_len = -1;

	for (uint32_t i = 0; i < t->n_routes; i++) {
		const struct route_ent *r = &t->routes[i];

		if (r->family == family && (int)r->depth > best_len &&
			pfx_has(r->addr, r->depth, dst)) {
			best = r->nh;
			best_len = r->depth;
		}
	}
	return best;
}

/* Has IP protocol @p proto the ports `sport`/`dport` match (Linux's fib rules' list)? */
static bool
proto_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 136 || proto == 132 || proto == 33;
}

/* Does rule @p r select packet @p s (`not` applied)? */
static bool
rule_match(const struct mod_route_rule *r, const struct mod_route_sel *s)
{
	/* Another protocol's ports are 0, as Linux's flow dissection leaves them. */
	uint16_t sp = proto_ports(s->proto) ? s->sport : 0, dp = proto_ports(s->proto) ? s->dport : 0;
	bool m = true;

	if ((r->from_set || r->to_set) && r->family != s->family)
		return false; /* another family's: never (as Linux's per-family lists) */
	if (r->from_set && !pfx_has(r->from, r->from_len, s->src))
		m = false;
	if (m && r->to_set && !pfx_has(r->to, r->to_len, s->dst))
		m = false;
	if (m && r->mark_set && (s->mark & r->mask) != r->mark)
		m = false;
	if (m && r->iif != MOD_ROUTE_IIF_ANY && r->iif != s->iif)
		m = false;
	if (m && r->ipproto != 0 && r->ipproto != s->proto)
		m = false;
	if (m && r->sport_set && (sp < r->sport[0] || sp > r->sport[1]))
		m = false;
	if (m && r->dport_set && (dp < r->dport[0] || dp > r->dport[1]))
		m = false;
	return m != r->invert;
}

/* A lookup in table @p table: 0 with @p nh, -ENOENT. */
static int
table_lookup(const struct mod_route *rt, uint32_t table, const struct mod_route_sel *s,
	struct mod_route_nh *nh)
{
	const struct route_xtable *t;
	int64_t nhi;

	if (table == MOD_ROUTE_TABLE_MAIN)
		return mod_route_lookup_nh(rt, s->family, s->dst, nh);
	t = xt_find(rt, table);
	if (t == NULL || route_not_routed(rt, s->family, s->dst))
		return -ENOENT;
	nhi = xt_lookup(t, s->family, s->dst);
	if (nhi < 0 || (uint64_t)nhi >= rt->n_nhs)
		return -ENOENT;
	*nh = rt->nhs[nhi].nh;
	return 0;
}

/*
 * Where a goto to pref @p target goes on: the index of the first rule of
 * that pref (32766, the implicit main rule's: main, then the first rule of
 * that pref or more); UINT32_MAX: no rule there (unresolved).
 */
static uint32_t
goto_at(const struct mod_route *rt, uint32_t target)
{
	uint32_t j = 0;

	while (j < rt->n_rules && rt->rules[j].r.pref < target)
		j++;
	if (target == MOD_ROUTE_PREF_MAIN || (j < rt->n_rules && rt->rules[j].r.pref == target))
		return j;
	return UINT32_MAX;
}

int
route_resolve(const struct mod_route *rt, const struct mod_route_sel *s, struct mod_route_nh *nh,
	int32_t *rule)
{
	bool main_done = false;

	*rule = ROUTE_RULE_NONE;
	for (uint32_t i = 0; i <= rt->n_rules; i++) {
		const struct mod_route_rule *r;

		/*
		 * The implicit rule, before the first rule of its pref or more:
		 * Linux adds a rule after those of its pref, main's among them.
		 */
		if (!main_done && (i == rt->n_rules || rt->rules[i].r.pref >= MOD_ROUTE_PREF_MAIN)) {
			main_done = true;
			if (mod_route_lookup_nh(rt, s->family, s->dst, nh) == 0) {
				*rule = ROUTE_RULE_MAIN;
				return MOD_ROUTE_RES_NH;
			}
		}
		if (i == rt->n_rules)
			break;
		r = &rt->rules[i].r;
		if (!rule_match(r, s))
			continue;
		switch (r->action) {
		case MOD_ROUTE_ACT_TABLE:
			if (table_lookup(rt, r->table, s, nh) != 0)
				continue; /* no route there: the next rule */
			*rule = (int32_t)i;
			return MOD_ROUTE_RES_NH;
		case MOD_ROUTE_ACT_GOTO: {
			uint32_t j = goto_at(rt, r->table);

			if (j == UINT32_MAX)
				continue; /* unresolved: skipped */
			if (r->table > MOD_ROUTE_PREF_MAIN)
				main_done = true; /* jumped over */
			i = j - 1;
			continue;
		}
		case MOD_ROUTE_ACT_BLACKHOLE:
			*rule = (int32_t)i;
			return MOD_ROUTE_RES_BLACKHOLE;
		case MOD_ROUTE_ACT_UNREACHABLE:
			*rule = (int32_t)i;
			return MOD_ROUTE_RES_UNREACHABLE;
		default:
			*rule = (int32_t)i;
			return MOD_ROUTE_RES_PROHIBIT;
		}
	}
	return MOD_ROUTE_RES_NONE;
}

int
mod_route_resolve(const struct mod_route *rt, const struct mod_route_sel *s,
	struct mod_route_nh *nh)
{
	int32_t rule;

	if (rt == NULL || s == NULL || nh == NULL || s->src == NULL || s->dst == NULL ||
		fc_af_index(s->family) < 0)
		return -EINVAL;
	return route_resolve(rt, s, nh, &rule);
}

void
route_rule_hit(struct mod_route *rt, int32_t rule)
{
	if (rule == ROUTE_RULE_MAIN)
		__atomic_store_n(&rt->main_hits, rt->main_hits + 1, __ATOMIC_RELAXED);
	else if (rule >= 0 && (uint32_t)rule < rt->n_rules)
		__atomic_store_n(&rt->rules[rule].hits, rt->rules[rule].hits + 1,
			__ATOMIC_RELAXED);
}

/* Rules equal as `ip rule` compares them (pref, selectors, action, table). */
static bool
rule_eq(const struct mod_route_rule *a, const struct mod_route_rule *b)
{
	unsigned int alen = a->family ? fc_af_addr_len(a->family) : 0;

	return a->pref == b->pref && a->invert == b->invert && a->family == b->family &&
	       a->from_set == b->from_set && a->to_set == b->to_set &&
	       (!a->from_set || (a->from_len == b->from_len &&
					memcmp(a->from, b->from, alen) == 0)) &&
	       (!a->to_set || (a->to_len == b->to_len && memcmp(a->to, b->to, alen) == 0)) &&
	       a->mark_set == b->mark_set &&
	       (!a->mark_set || (a->mark == b->mark && a->mask == b->mask)) && a->iif == b->iif &&
	       a->ipproto == b->ipproto && a->sport_set == b->sport_set &&
	       a->dport_set == b->dport_set && a->sport[0] == b->sport[0] &&
	       a->sport[1] == b->sport[1] && a->dport[0] == b->dport[0] &&
	       a->dport[1] == b->dport[1] && a->action == b->action &&
	       a->table == b->table; /* (rule_norm(): 0 but for a lookup's and a goto's) */
}

/*
 * A rule as stored and compared (mod_route_rule_add(), mod_route_rule_del()):
 * no family without a from/to, an unset from/to zeroed, no mark/mask unset,
 * no table but for a lookup.
 */
static void
rule_norm(struct mod_route_rule *n)
{
	if (n->action != MOD_ROUTE_ACT_TABLE && n->action != MOD_ROUTE_ACT_GOTO)
		n->table = 0;
	if (!n->from_set && !n->to_set)
		n->family = 0;
	if (!n->from_set) {
		n->from_len = 0;
		memset(n->from, 0, sizeof(n->from));
	}
	if (!n->to_set) {
		n->to_len = 0;
		memset(n->to, 0, sizeof(n->to));
	}
	if (!n->mark_set)
		n->mark = n->mask = 0;
	if (!n->sport_set)
		n->sport[0] = n->sport[1] = 0;
	if (!n->dport_set)
		n->dport[0] = n->dport[1] = 0;
}

static void
rules_mark_update(struct mod_route *rt)
{
	bool any = false;

	for (uint32_t i = 0; i < rt->n_rules; i++)
		any = any || rt->rules[i].r.mark_set;
	rt->rules_mark = any;
}

int
mod_route_rule_add(struct mod_route *rt, const struct mod_route_rule *r, bool pref_given)
{
	struct mod_route_rule n;
	uint32_t at;

	if (rt == NULL || r == NULL || r->action > MOD_ROUTE_ACT_GOTO)
		return -EINVAL;
	n = *r;
	if (!pref_given) {
		uint32_t low = MOD_ROUTE_PREF_MAIN;

		if (rt->n_rules > 0 && rt->rules[0].r.pref < low)
			low = rt->rules[0].r.pref;
		n.pref = low > 1 ? low - 1 : 0;
	}
	/* pref 0 is Linux's local table's: gufc's local addresses come first anyway. */
	if (n.pref == 0)
		return -EINVAL;
	if (n.action == MOD_ROUTE_ACT_TABLE && !table_id_ok(n.table))
		return -EINVAL;
	if (n.action == MOD_ROUTE_ACT_GOTO && n.table <= n.pref)
		return -EINVAL; /* a goto goes forward (Linux's too) */
	rule_norm(&n);
	if ((n.from_set || n.to_set) &&
		(fc_af_index(n.family) < 0 ||
			(n.from_set && route_prefix_check(n.family, n.from, n.from_len) < 0) ||
			(n.to_set && route_prefix_check(n.family, n.to, n.to_len) < 0)))
		return -EINVAL;
	if (n.mark_set && (n.mark & ~n.mask) != 0)
		return -EINVAL; /* bits outside the mask never match */
	if ((n.sport_set && n.sport[0] > n.sport[1]) || (n.dport_set && n.dport[0] > n.dport[1]))
		return -EINVAL;
	for (uint32_t i = 0; i < rt->n_rules; i++)
		if (rule_eq(&rt->rules[i].r, &n))
			return -EEXIST;
	if (rt->n_rules == rt->cap_rules) {
		uint32_t cap = rt->cap_rules ? rt->cap_rules * 2 : 8;
		struct route_rule_ent *p = realloc(rt->rules, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		rt->rules = p;
		rt->cap_rules = cap;
	}
	at = 0;
	while (at < rt->n_rules && rt->rules[at].r.pref <= n.pref)
		at++;
	memmove(&rt->rules[at + 1], &rt->rules[at], (rt->n_rules - at) * sizeof(rt->rules[0]));
	rt->rules[at].r = n;
	rt->rules[at].hits = 0;
	rt->n_rules++;
	rules_mark_update(rt);
	route_changed(rt);
	return 0;
}

int
mod_route_rule_del(struct mod_route *rt, const struct mod_route_rule *r)
{
	struct mod_route_rule n;

	if (rt == NULL || r == NULL)
		return -EINVAL;
	n = *r;
	rule_norm(&n);
	for (uint32_t i = 0; i < rt->n_rules; i++) {
		if (!rule_eq(&rt->rules[i].r, &n))
			continue;
		memmove(&rt->rules[i], &rt->rules[i + 1],
			(rt->n_rules - i - 1) * sizeof(rt->rules[0]));
		rt->n_rules--;
		rules_mark_update(rt);
		route_changed(rt);
		return 0;
	}
	return -ENOENT;
}

int
mod_route_rule_next(const struct mod_route *rt, uint32_t *it, struct mod_route_rule_info *info)
{
	uint32_t before = 0; /* user rules before the implicit one (a lower pref) */

	if (rt == NULL || it == NULL || info == NULL)
		return -EINVAL;
	while (before < rt->n_rules && rt->rules[before].r.pref < MOD_ROUTE_PREF_MAIN)
		before++;
	if (*it > rt->n_rules)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	if (*it == before) {
		info->r.pref = MOD_ROUTE_PREF_MAIN;
		info->r.iif = MOD_ROUTE_IIF_ANY;
		info->r.action = MOD_ROUTE_ACT_TABLE;
		info->r.table = MOD_ROUTE_TABLE_MAIN;
		info->hits = __atomic_load_n(&rt->main_hits, __ATOMIC_RELAXED);
		info->implicit = true;
	} else {
		const struct route_rule_ent *e = &rt->rules[*it < before ? *it : *it - 1];

		info->r = e->r;
		info->hits = __atomic_load_n(&e->hits, __ATOMIC_RELAXED);
	}
	(*it)++;
	return 0;
}

/* An IP protocol's name as `ip rule` shows it; NULL: shown by number. */
static const char *
proto_name(uint8_t p)
{
	switch (p) {
	case 1: return "icmp";
	case 6: return "tcp";
	case 17: return "udp";
	case 58: return "ipv6-icmp";
	case 132: return "sctp";
	default: return NULL;
	}
}

/* " sport N" or " sport N-M" into @p buf. @return characters written. */
static int
port_range(char *buf, size_t len, const char *word, const uint16_t *pr)
{
	int n = pr[0] == pr[1] ? snprintf(buf, len, "%s %u", word, pr[0]) :
				 snprintf(buf, len, "%s %u-%u", word, pr[0], pr[1]);

	return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

int
mod_route_rule_format(const struct mod_route *rt, const struct mod_route_rule *r, char *buf,
	size_t len)
{
	static const char *const act[] = {
		[MOD_ROUTE_ACT_BLACKHOLE] = "blackhole",
		[MOD_ROUTE_ACT_UNREACHABLE] = "unreachable",
		[MOD_ROUTE_ACT_PROHIBIT] = "prohibit",
		[MOD_ROUTE_ACT_GOTO] = "goto",
	};
	int af = r != NULL && r->family == FC_AF_INET6 ? AF_INET6 : AF_INET;
	char from[INET6_ADDRSTRLEN + 4] = "all", to[INET6_ADDRSTRLEN + 8] = "";
	char mark[32] = "", iif[16] = "", l4[48] = "", tbl[40];
	int l = 0;
	const char *name;

	if (r == NULL || buf == NULL || r->action > MOD_ROUTE_ACT_GOTO)
		return -EINVAL;
	if (r->from_set) {
		char a[INET6_ADDRSTRLEN];

		if (inet_ntop(af, r->from, a, sizeof(a)) == NULL)
			return -EINVAL;
		snprintf(from, sizeof(from), "%s/%u", a, r->from_len);
	}
	if (r->to_set) {
		char a[INET6_ADDRSTRLEN];

		if (inet_ntop(af, r->to, a, sizeof(a)) == NULL)
			return -EINVAL;
		snprintf(to, sizeof(to), " to %s/%u", a, r->to_len);
	}
	if (r->mark_set) {
		if (r->mask == UINT32_MAX)
			snprintf(mark, sizeof(mark), " fwmark %#" PRIx32, r->mark);
		else
			snprintf(mark, sizeof(mark), " fwmark %#" PRIx32 "/%#" PRIx32, r->mark,
				r->mask);
	}
	if (r->iif != MOD_ROUTE_IIF_ANY)
		snprintf(iif, sizeof(iif), " iif %u", r->iif);
	if (r->ipproto != 0) {
		const char *pn = proto_name(r->ipproto);

		l = pn != NULL ? snprintf(l4, sizeof(l4), " ipproto %s", pn) :
				 snprintf(l4, sizeof(l4), " ipproto %u", r->ipproto);
	}
	if (r->sport_set)
		l += port_range(l4 + l, sizeof(l4) - (size_t)l, " sport", r->sport);
	if (r->dport_set)
		l += port_range(l4 + l, sizeof(l4) - (size_t)l, " dport", r->dport);
	if (r->action == MOD_ROUTE_ACT_TABLE) {
		name = mod_route_table_name(rt, r->table);
		if (name != NULL && name[0] != '\0')
			snprintf(tbl, sizeof(tbl), "lookup %s", name);
		else
			snprintf(tbl, sizeof(tbl), "lookup %" PRIu32, r->table);
	} else if (r->action == MOD_ROUTE_ACT_GOTO) {
		snprintf(tbl, sizeof(tbl), "goto %" PRIu32 "%s", r->table,
			rt != NULL && goto_at(rt, r->table) == UINT32_MAX ? " [unresolved]" : "");
	} else {
		snprintf(tbl, sizeof(tbl), "%s", act[r->action]);
	}
	return snprintf(buf, len, "%sfrom %s%s%s%s%s %s", r->invert ? "not " : "", from, to, mark,
		iif, l4, tbl);
}

int
mod_route_rule_dump(const struct mod_route *rt, FILE *f)
{
	struct mod_route_rule_info ri;
	uint32_t it = 0;
	int n = 0;

	if (rt == NULL || f == NULL)
		return -EINVAL;
	while (mod_route_rule_next(rt, &it, &ri) == 0) {
		char line[256];

		if (mod_route_rule_format(rt, &ri.r, line, sizeof(line)) < 0)
			return -EINVAL;
		if (fprintf(f, "%" PRIu32 ": %s hits %" PRIu64 "\n", ri.r.pref, line, ri.hits) < 0)
			return -EIO;
		n++;
	}
	return n;
}
