/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route/route_module.c — the route module of the rules
 * engine: on_insert gives both directions of a new flow their output port,
 * and after a route change the module's step walks the cached flows in
 * bounded steps and rewrites the port of every entry whose route changed
 * (see route.h). Everything goes through the engine's services: the walk
 * is rule_engine_flow_next(), a peer's key rule_engine_flow_get(), the
 * rewrite rule_engine_flow_update() (which also moves a connection's reply
 * entry that has had no packet yet to the port its replies are now
 * expected on).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "engine.h"
#include "route_priv.h"

/* The port to @p addr (of a key with local bits @p flags, @p local_bit the one for @p addr). */
static uint16_t
port_to(const struct mod_route *rt, const struct fc_key *k, const uint8_t *addr,
	uint8_t local_bit)
{
	if (fc_key_flags(k) & local_bit)
		return RULE_PORT_LOCAL;
	return mod_route_lookup(rt, k->family, addr);
}

/* Module: both directions' output ports. */
static int
route_on_insert(void *priv, struct rule_flow *f)
{
	const struct mod_route *rt = priv;
	const struct fc_key *x = &f->xkey, *o = &f->key;

	f->act[RULE_DIR_ORIG].out_port = port_to(rt, x, fc_key_dst(x), FC_KEY_F_DST_LOCAL);
	f->act[RULE_DIR_REPLY].out_port = port_to(rt, o, fc_key_src(o), FC_KEY_F_SRC_LOCAL);
	return 0;
}

/*
 * The port an entry's packets leave by, as route_on_insert() decided it:
 * the route to the destination the packet has once the entry's NAT rewrite
 * is done. That address is the source of the other direction's key (the
 * reply of a forward entry starts at its translated destination; the
 * forward entry of a reply starts at the original source, which the reply
 * is rewritten to), and its local bit that key's src_local. An entry
 * without a peer (no connection) routes its own destination.
 */
static uint16_t
entry_route(const struct mod_route *rt, const struct rule_flow_info *e)
{
	struct rule_flow_info peer;

	if (e->peer != FC_INDEX_NONE &&
		rule_engine_flow_get(rt->eng, e->key.family, e->peer, &peer) == 0)
		return port_to(rt, &peer.key, fc_key_src(&peer.key), FC_KEY_F_SRC_LOCAL);
	return port_to(rt, &e->key, fc_key_dst(&e->key), FC_KEY_F_DST_LOCAL);
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

/* Module: the walk, at most @p budget entries a call. */
static unsigned int
route_step(void *priv, uint32_t now, unsigned int budget)
{
	struct mod_route *rt = priv;
	unsigned int visited = 0;

	RTE_SET_USED(now);
	while (rt->walking && visited < budget) {
		struct rule_flow_info e;
		struct fc_action a;
		uint16_t port;

		if (rule_engine_flow_next(rt->eng, &rt->walk_it, NULL, &e) != 0) {
			rt->walking = false;
			break;
		}
		visited++;
		/* (drops too: a later commit may accept them) */
		port = entry_route(rt, &e);
		if (port == e.act.out_port)
			continue;
		a = e.act;
		a.out_port = port;
		if (rule_engine_flow_update(rt->eng, e.key.family, e.idx, &a, e.timeout) == 0)
			__atomic_store_n(&rt->st.rerouted, rt->st.rerouted + 1, __ATOMIC_RELAXED);
	}
	return visited;
}

struct mod_route *
mod_route_module_create(struct rule_engine *eng, const struct mod_route_params *p)
{
	struct mod_route *rt;
	struct rule_module m;
	size_t nl;
	int rc;

	if (eng == NULL || p == NULL || p->name == NULL) {
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
	if (rc < 0) {
		route_tables_fini(rt);
		free(rt);
		rte_errno = -rc;
		return NULL;
	}
	return rt;
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
