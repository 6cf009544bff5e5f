/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route/route_module.c — the route module of the rules
 * engine: its on_insert gives both directions of a new flow their output
 * port; in router mode a second stage, "route_adj", after the NAT source
 * stage (when the flow's entries are known), gives each entry its next
 * hop's adjacency, referenced (its on_abort and on_remove give the
 * references back). After a route change the module's step walks the
 * cached flows in bounded steps and rewrites the port (and adjacency) of
 * every entry whose route changed (see route.h). An entry a routing
 * rule drops sends its packets to the slow path, where the stage's
 * on_packet drops them with the rule's reason. Everything goes through
 * the engine's services: the walk
 * is rule_engine_flow_next(), a peer's key rule_engine_flow_get(), the
 * rewrite rule_engine_flow_update() (which also moves a connection's reply
 * entry that has had no packet yet to the port its replies are now
 * expected on).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "engine.h"
#include "route_priv.h"

/* Where an entry's packets go: the port, and in router mode the adjacency. */
struct route_to {
	uint16_t port;
	uint16_t adj; /**< with a reference, to give back */
};

/*
 * The way to @p addr (of key @p k, @p local_bit the local bit for @p addr;
 * @p s the packet as the routing rules see it, its dst @p addr): RULE_PORT_LOCAL
 * for a local address, the route's port, RULE_PORT_PAIRED without one;
 * @p hop receives the next hop (the route's gateway, else @p addr itself;
 * family 0: none), @p res the policy lookup's result, @p rule the rule
 * that decided it (ROUTE_RULE_*).
 */
static uint16_t
route_port(const struct mod_route *rt, const struct fc_key *k, const struct mod_route_sel *s,
	uint8_t local_bit, struct route_hop *hop, int *res, int32_t *rule)
{
	struct mod_route_nh nh;

	memset(hop, 0, sizeof(*hop));
	*res = MOD_ROUTE_RES_NONE;
	*rule = ROUTE_RULE_NONE;
	if (fc_key_flags(k) & local_bit)
		return RULE_PORT_LOCAL;
	if (rt->n_rules == 0) {
		/* No rules: the main table alone, as before policy routing. */
		if (mod_route_lookup_nh(rt, k->family, s->dst, &nh) != 0)
			return RULE_PORT_PAIRED;
		*rule = ROUTE_RULE_MAIN;
	} else {
		*res = route_resolve(rt, s, &nh, rule);
		if (*res != MOD_ROUTE_RES_NH)
			return RULE_PORT_PAIRED;
	}
	*res = MOD_ROUTE_RES_NH;
	hop->family = k->family;
	hop->port = nh.port;
	memcpy(hop->addr, nh.via ? nh.gw : s->dst, fc_af_addr_len(k->family));
	return nh.port;
}

/* Router mode: the adjacency of @p hop, referenced; 0 without one. */
static uint16_t
hop_adj(const struct mod_route *rt, const struct route_hop *hop)
{
	if (!rt->router || hop->family == 0)
		return 0;
	return rt->p.adj_get_fn(rt->p.adj_arg, hop->port, hop->family, hop->addr);
}

static void
adj_put(const struct mod_route *rt, uint16_t adj)
{
	if (adj != 0 && rt->p.adj_put_fn != NULL)
		rt->p.adj_put_fn(rt->p.adj_arg, adj);
}

/* The reply's input port: where the original direction leaves (none: any). */
static uint16_t
reply_iif(uint16_t out_port)
{
	return out_port < RULE_PORT_LOCAL ? out_port : MOD_ROUTE_IIF_ANY;
}

/* A policy drop (result @p res) of the packet: its drop reason and ICMP error. */
static void
drop_reason(struct rule_flow *f, int res)
{
	bool v4 = f->key.family == FC_AF_INET4;

	switch (res) {
	case MOD_ROUTE_RES_BLACKHOLE:
		f->drop = RULE_DROP_ROUTE_BLACKHOLE;
		break;
	case MOD_ROUTE_RES_UNREACHABLE:
		/* Linux's ENETUNREACH: net unreachable (ip_error()), ICMPv6 no route. */
		f->drop = RULE_DROP_ROUTE_UNREACHABLE;
		f->reject = v4 ? RULE_REJECT_ICMP_NET_UNREACHABLE : RULE_REJECT_ICMP6_NO_ROUTE;
		break;
	default:
		f->drop = RULE_DROP_ROUTE_PROHIBIT;
		f->reject = v4 ? RULE_REJECT_ICMP_ADMIN_PROHIBITED :
				 RULE_REJECT_ICMP6_ADM_PROHIBITED;
		break;
	}
}

/* A policy drop of the original direction: the flow gets no entry. */
static void
policy_drop(struct rule_flow *f, int res)
{
	f->act[RULE_DIR_ORIG].verdict = FC_VERDICT_DROP;
	drop_reason(f, res);
}

/*
 * Stage "route": both directions' output ports; their next hops kept for
 * "route_adj". With routing rules: the original direction as Linux routes
 * it after PREROUTING (its source, its destination after DNAT, its mark,
 * its input port); the reply from the address the original goes to, into
 * the port the original leaves by, with mark 0 until "route_adj" knows
 * its own. A rule's blackhole, unreachable or prohibit drops the flow.
 */
static int
route_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_route *rt = priv;
	const struct fc_key *x = &f->xkey, *o = &f->key;
	struct mod_route_sel s;
	int res[2];

	rt->mark[RULE_DIR_ORIG] = 0;
	rt->mark[RULE_DIR_REPLY] = 0;
	if (rt->rules_mark && !(fc_key_flags(x) & FC_KEY_F_DST_LOCAL) &&
		rule_engine_flow_mark(f, RULE_DIR_ORIG, &rt->mark[RULE_DIR_ORIG]) < 0)
		rt->mark[RULE_DIR_ORIG] = 0;
	s.family = x->family;
	s.src = fc_key_src(x);
	s.dst = fc_key_dst(x);
	s.mark = rt->mark[RULE_DIR_ORIG];
	s.iif = fc_key_in_port(o);
	s.proto = fc_key_proto(x);
	s.sport = ntohs(fc_key_sport(x));
	s.dport = ntohs(fc_key_dport(x));
	f->act[RULE_DIR_ORIG].out_port = route_port(rt, x, &s, FC_KEY_F_DST_LOCAL,
		&rt->hop[RULE_DIR_ORIG], &res[RULE_DIR_ORIG], &rt->decided[RULE_DIR_ORIG]);
	s.src = fc_key_dst(x);
	s.dst = fc_key_src(o);
	s.mark = 0;
	s.iif = reply_iif(f->act[RULE_DIR_ORIG].out_port);
	s.sport = ntohs(fc_key_dport(x));
	s.dport = ntohs(fc_key_sport(o));
	f->act[RULE_DIR_REPLY].out_port = route_port(rt, o, &s, FC_KEY_F_SRC_LOCAL,
		&rt->hop[RULE_DIR_REPLY], &res[RULE_DIR_REPLY], &rt->decided[RULE_DIR_REPLY]);
	rt->taken[RULE_DIR_ORIG] = 0;
	rt->taken[RULE_DIR_REPLY] = 0;
	route_rule_hit(rt, rt->decided[RULE_DIR_ORIG]);
	if (res[RULE_DIR_ORIG] > MOD_ROUTE_RES_NONE)
		policy_drop(f, res[RULE_DIR_ORIG]);
	return 0;
}

/*
 * The reply's route with the reply's own mark (stage "route_adj", after
 * the filter walked the reply): where a rule picks another way for it
 * (CONNMARK --restore-mark, then fwmark), its port and next hop change.
 * A reply a rule drops (blackhole, unreachable, prohibit) has no way out:
 * its entry sends every packet to the slow path (FC_INTEREST_ALL), where
 * route_adj_on_packet() drops it with the rule's reason and ICMP error,
 * as Linux routes each reply; the flow stays (its original direction is
 * forwarded).
 */
static void
reply_remark(struct mod_route *rt, struct rule_flow *f)
{
	const struct fc_key *x = &f->xkey, *o = &f->key;
	struct mod_route_sel s;
	struct route_hop hop;
	uint32_t mark = 0;
	int32_t rule;
	int res;
	uint16_t port;

	if (rule_engine_flow_mark(f, RULE_DIR_REPLY, &mark) < 0 || mark == 0)
		return;
	s.family = x->family;
	s.src = fc_key_dst(x);
	s.dst = fc_key_src(o);
	s.mark = mark;
	s.iif = reply_iif(f->act[RULE_DIR_ORIG].out_port);
	s.proto = fc_key_proto(x);
	s.sport = ntohs(fc_key_dport(x));
	s.dport = ntohs(fc_key_sport(o));
	port = route_port(rt, o, &s, FC_KEY_F_SRC_LOCAL, &hop, &res, &rule);
	if (res > MOD_ROUTE_RES_NONE)
		f->act[RULE_DIR_REPLY].interest |= FC_INTEREST_ALL;
	rt->mark[RULE_DIR_REPLY] = mark;
	rt->decided[RULE_DIR_REPLY] = rule;
	f->act[RULE_DIR_REPLY].out_port = port;
	rt->hop[RULE_DIR_REPLY] = hop;
}

/*
 * Stage "route_adj" (after the NAT source stage, when the flow's entries
 * are known): the reply's route with its own mark (routing rules with a
 * fwmark); with adjacency callbacks, the adjacency of each entry the flow
 * will have (router mode; 0 otherwise), referenced. An ICMP error sent
 * the way of its connection (NAT) has that connection's already.
 */
static int
route_adj_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_route *rt = priv;

	if (rt->rules_mark && f->want_reply && !f->nocache)
		reply_remark(rt, f);
	if (f->want_reply && !f->nocache)
		route_rule_hit(rt, rt->decided[RULE_DIR_REPLY]);
	/* Without adjacency callbacks the adjacencies are not the module's to write. */
	if (rt->p.adj_get_fn == NULL)
		return 0;
	if (!(f->dec_flags & RULE_DEC_F_ICMP_ERR)) {
		rt->taken[RULE_DIR_ORIG] = hop_adj(rt, &rt->hop[RULE_DIR_ORIG]);
		f->act[RULE_DIR_ORIG].adj = rt->taken[RULE_DIR_ORIG];
	}
	if (f->want_reply && !f->nocache) {
		rt->taken[RULE_DIR_REPLY] = hop_adj(rt, &rt->hop[RULE_DIR_REPLY]);
		f->act[RULE_DIR_REPLY].adj = rt->taken[RULE_DIR_REPLY];
	}
	return 0;
}

/* Stage "route_adj": the flow gets no entry; the references it took go back. */
static void
route_adj_on_abort(void *priv, struct rule_flow *f)
{
	struct mod_route *rt = priv;

	RTE_SET_USED(f);
	adj_put(rt, rt->taken[RULE_DIR_ORIG]);
	adj_put(rt, rt->taken[RULE_DIR_REPLY]);
	rt->taken[RULE_DIR_ORIG] = 0;
	rt->taken[RULE_DIR_REPLY] = 0;
}

/* Stage "route_adj": an entry went; so does its reference. */
static void
route_adj_on_remove(void *priv, const struct rule_flow_gone *g)
{
	adj_put(priv, g->act.adj);
}

/*
 * The way an entry's packets leave, as route_on_insert() decided it: the
 * route to the destination the packet has once the entry's NAT rewrite is
 * done. That address is the source of the other direction's key (the
 * reply of a forward entry starts at its translated destination; the
 * forward entry of a reply starts at the original source, which the reply
 * is rewritten to), and its local bit that key's src_local. An entry
 * without a peer (no connection) routes its own destination. The routing
 * rules see the entry's source (before its SNAT), its mark and its input
 * port. @return the port (as route_port(): @p hop, @p res).
 */
static uint16_t
entry_port(const struct mod_route *rt, const struct rule_flow_info *e, struct route_hop *hop,
	int *res)
{
	struct rule_flow_info peer;
	struct mod_route_sel s;
	int32_t rule;

	s.family = e->key.family;
	s.src = fc_key_src(&e->key);
	s.mark = e->mark;
	s.iif = fc_key_in_port(&e->key);
	s.proto = fc_key_proto(&e->key);
	s.sport = ntohs(fc_key_sport(&e->key));
	s.dport = ntohs(fc_key_dport(&e->key));
	if (e->peer != FC_INDEX_NONE &&
		rule_engine_flow_get(rt->eng, e->key.family, e->peer, &peer) == 0) {
		s.dst = fc_key_src(&peer.key);
		s.dport = ntohs(fc_key_sport(&peer.key));
		return route_port(rt, &peer.key, &s, FC_KEY_F_SRC_LOCAL, hop, res, &rule);
	}
	s.dst = fc_key_dst(&e->key);
	return route_port(rt, &e->key, &s, FC_KEY_F_DST_LOCAL, hop, res, &rule);
}

/*
 * entry_port() and hop_adj() at once (the walk); @p drop: a rule drops the
 * entry's packets (its port is then RULE_PORT_PAIRED, without adjacency).
 */
static struct route_to
entry_route(const struct mod_route *rt, const struct rule_flow_info *e, bool *drop)
{
	struct route_hop hop;
	struct route_to to;
	int res;

	to.port = entry_port(rt, e, &hop, &res);
	to.adj = hop_adj(rt, &hop);
	*drop = res > MOD_ROUTE_RES_NONE;
	return to;
}

/*
 * Stage "route_adj": a packet of an entry whose way a rule drops (a reply
 * by its own mark, reply_remark(); an entry the walk after a change found
 * so, route_step()): such an entry asks for every packet; looked up again
 * with its entry's mark, the packet is dropped with the rule's reason and
 * ICMP error (a change since may have given it a way: the walk gives its
 * entry that).
 */
static int
route_adj_on_packet(void *priv, struct rule_flow *f)
{
	struct mod_route *rt = priv;
	struct rule_flow_info e;
	struct route_hop hop;
	unsigned int d = f->dir;
	int res;

	if (rt->n_rules == 0 || d > RULE_DIR_REPLY || f->idx[d] == FC_INDEX_NONE ||
		!(f->act[d].interest & FC_INTEREST_ALL) ||
		rule_engine_flow_get(rt->eng, f->key.family, f->idx[d], &e) != 0)
		return 0;
	entry_port(rt, &e, &hop, &res);
	if (res > MOD_ROUTE_RES_NONE)
		drop_reason(f, res);
	return 0;
}

/* (Re)start the walk over the cached flows: entries already walked may
 * have taken the old route again in between. */
void
route_changed(struct mod_route *rt)
{
	if (rule_engine_table(rt->eng, FC_AF_INET4) == NULL &&
		rule_engine_table(rt->eng, FC_AF_INET6) == NULL)
		return;
	rt->walking = true;
	rt->walk_it = 0;
	__atomic_store_n(&rt->st.route_walks, rt->st.route_walks + 1, __ATOMIC_RELAXED);
}

/* Module: the walk, at most @p budget table slots a call. */
static unsigned int
route_step(void *priv, uint32_t now, unsigned int budget)
{
	struct mod_route *rt = priv;
	uint32_t left = budget; /* table slots, free ones included */

	RTE_SET_USED(now);
	while (rt->walking) {
		struct rule_flow_info e;
		struct route_to to;
		struct fc_action a;
		uint16_t want;
		bool drop;
		int rc = rule_engine_flow_walk(rt->eng, &rt->walk_it, &left, NULL, &e);

		if (rc == -EAGAIN)
			break;
		if (rc != 0) {
			rt->walking = false;
			break;
		}
		/* (drops too: a later commit may accept them) */
		to = entry_route(rt, &e, &drop);
		if (!rt->router)
			to.adj = e.act.adj; /* bridge mode: not the module's (adj_put() does nothing) */
		/* A rule's drop: each packet to the slow path (route_adj_on_packet()). */
		want = drop && e.act.verdict != FC_VERDICT_DROP ? FC_INTEREST_ALL : 0;
		if (to.port == e.act.out_port && to.adj == e.act.adj &&
			(e.act.interest & want) == want) {
			adj_put(rt, to.adj);
			continue;
		}
		/* A cached drop never forwards: it holds no adjacency. */
		if (e.act.verdict == FC_VERDICT_DROP && e.act.adj == 0) {
			adj_put(rt, to.adj);
			to.adj = 0;
			if (to.port == e.act.out_port)
				continue;
		}
		a = e.act;
		a.out_port = to.port;
		a.adj = to.adj;
		a.interest |= want;
		if (rule_engine_flow_update(rt->eng, e.key.family, e.idx, &a, e.timeout) == 0) {
			adj_put(rt, e.act.adj);
			__atomic_store_n(&rt->st.rerouted, rt->st.rerouted + 1, __ATOMIC_RELAXED);
		} else {
			adj_put(rt, to.adj);
		}
	}
	return budget - left;
}

struct mod_route *
mod_route_module_create(struct rule_engine *eng, const struct mod_route_params *p)
{
	struct mod_route *rt;
	struct rule_module m;
	size_t nl;
	int rc;

	if (eng == NULL || p == NULL || p->name == NULL ||
		(p->adj_get_fn == NULL) != (p->adj_put_fn == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	nl = strnlen(p->name, 17);
	if (nl == 0 || nl > 16) {
		rte_errno = EINVAL;
		return NULL;
	}
	rt = calloc(1, sizeof(*rt));
	if (rt == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rt->eng = eng;
	rt->p = *p;
	rt->router = p->adj_get_fn != NULL;
	snprintf(rt->name, sizeof(rt->name), "%s", p->name);
	rt->p.name = rt->name;
	if (rt->p.max_routes_v4 == 0)
		rt->p.max_routes_v4 = 1024;
	if (rt->p.max_routes_v6 == 0)
		rt->p.max_routes_v6 = 1024;
	rc = route_tables_init(rt);
	if (rc == 0) {
		memset(&m, 0, sizeof(m));
		m.name = "route";
		m.order = RULE_MOD_ORDER_ROUTE;
		m.on_insert = route_on_insert;
		m.step = route_step;
		m.priv = rt;
		rc = rule_engine_module_register(eng, &m);
	}
	/* Always: the reply's mark may pick its route (routing rules added later). */
	if (rc == 0) {
		memset(&m, 0, sizeof(m));
		m.name = "route_adj";
		m.order = RULE_MOD_ORDER_ROUTE_ADJ;
		m.on_insert = route_adj_on_insert;
		m.on_abort = route_adj_on_abort;
		m.on_packet = route_adj_on_packet;
		m.on_remove = route_adj_on_remove;
		m.priv = rt;
		rc = rule_engine_module_register(eng, &m);
		if (rc < 0)
			rule_engine_module_unregister(eng, "route");
	}
	if (rc < 0) {
		route_tables_fini(rt);
		free(rt);
		rte_errno = -rc;
		return NULL;
	}
	return rt;
}

int
mod_route_router_set(struct mod_route *rt, bool on)
{
	if (rt == NULL)
		return -EINVAL;
	if (on && rt->p.adj_get_fn == NULL)
		return -ENOTSUP;
	rt->router = on;
	return 0;
}

bool
mod_route_router(const struct mod_route *rt)
{
	return rt != NULL && rt->router;
}

void
mod_route_module_free(struct mod_route *rt)
{
	if (rt == NULL)
		return;
	route_tables_fini(rt);
	free(rt);
}

void
mod_route_stats_get(const struct mod_route *rt, struct mod_route_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (rt == NULL)
		return;
	st->rerouted = __atomic_load_n(&rt->st.rerouted, __ATOMIC_RELAXED);
	st->route_walks = __atomic_load_n(&rt->st.route_walks, __ATOMIC_RELAXED);
	st->rerouting = __atomic_load_n(&rt->walking, __ATOMIC_RELAXED);
}
