/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the route module — longest-prefix match of a flow's
 * destination, as translated by DNAT, to an output port (rte_lpm for IPv4,
 * rte_lpm6 for IPv6), cached in both entries of the flow. No route gives
 * RULE_PORT_PAIRED (the app forwards to the input port's pair, like
 * testpmd); a local destination gives RULE_PORT_LOCAL. The routes are also
 * kept in a plain list, since the LPM tables cannot be listed.
 *
 * A route change reaches cached flows through a background walk
 * (eng_reroute(), from rule_engine_step()): every entry's port is looked
 * up again and rewritten (seqlocked) where it changed. Until the walk
 * passes an entry, its packets keep the old port, as in a router whose
 * FIB update is propagating; verdicts are not concerned.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "engine_priv.h"

int
eng_route_init(struct rule_engine *eng)
{
	struct rte_lpm_config c4 = {0};
	struct rte_lpm6_config c6 = {0};
	char name[RTE_MEMZONE_NAMESIZE];

	eng->route_default[0] = -1;
	eng->route_default[1] = -1;
	c4.max_rules = eng->p.max_routes_v4;
	c4.number_tbl8s = 256;
	snprintf(name, sizeof(name), "%s_rt4", eng->name);
	eng->lpm = rte_lpm_create(name, eng->p.socket_id, &c4);
	if (eng->lpm == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	c6.max_rules = eng->p.max_routes_v6;
	c6.number_tbl8s = 1024;
	snprintf(name, sizeof(name), "%s_rt6", eng->name);
	eng->lpm6 = rte_lpm6_create(name, eng->p.socket_id, &c6);
	if (eng->lpm6 == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	return 0;
}

void
eng_route_fini(struct rule_engine *eng)
{
	rte_lpm_free(eng->lpm);
	eng->lpm = NULL;
	rte_lpm6_free(eng->lpm6);
	eng->lpm6 = NULL;
	free(eng->routes);
	eng->routes = NULL;
	eng->n_routes = 0;
}

/* Validate a prefix: family, depth, no host bits. */
static int
prefix_check(unsigned int family, const uint8_t *addr, uint8_t depth)
{
	unsigned int alen = family == FC_AF_INET4 ? 4 : 16;

	if (addr == NULL || eng_tbl(family) < 0 || depth > alen * 8)
		return -EINVAL;
	for (unsigned int b = depth; b < alen * 8; b++)
		if (addr[b / 8] & (0x80 >> (b % 8)))
			return -EINVAL;
	return 0;
}

static int
route_find(const struct rule_engine *eng, unsigned int family, const uint8_t *addr,
	uint8_t depth)
{
	unsigned int alen = family == FC_AF_INET4 ? 4 : 16;

	for (uint32_t i = 0; i < eng->n_routes; i++) {
		const struct eng_route *r = &eng->routes[i];

		if (r->family == family && r->depth == depth && memcmp(r->addr, addr, alen) == 0)
			return (int)i;
	}
	return -1;
}

/* (Re)start the walk over the cached flows: entries already walked may
 * have taken the old route again in between. */
static void
route_changed(struct rule_engine *eng)
{
	if (eng->t[0] == NULL && eng->t[1] == NULL)
		return;
	eng->rr_active = true;
	eng->rr_tbl = 0;
	eng->rr_next = 0;
	eng->st.route_walks++;
}

int
rule_engine_route_add(struct rule_engine *eng, unsigned int family, const uint8_t *addr,
	uint8_t depth, uint16_t port)
{
	struct eng_route *r;
	int i, rc;

	if (eng == NULL || port >= RULE_PORT_LOCAL || prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	i = route_find(eng, family, addr, depth);
	if (i < 0) {
		uint32_t max = family == FC_AF_INET4 ? eng->p.max_routes_v4 : eng->p.max_routes_v6;
		uint32_t have = 0;

		for (uint32_t j = 0; j < eng->n_routes; j++)
			have += eng->routes[j].family == family;
		if (have >= max)
			return -ENOSPC;
		if (eng->n_routes == eng->cap_routes) {
			uint32_t cap = eng->cap_routes ? eng->cap_routes * 2 : 16;
			struct eng_route *p = realloc(eng->routes, cap * sizeof(*p));

			if (p == NULL)
				return -ENOMEM;
			eng->routes = p;
			eng->cap_routes = cap;
		}
	}
	if (depth == 0) {
		rc = 0;
		eng->route_default[family == FC_AF_INET4 ? 0 : 1] = port;
	} else if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		rc = rte_lpm_add(eng->lpm, rte_be_to_cpu_32(ip), depth, port);
	} else {
		rc = rte_lpm6_add(eng->lpm6, addr, depth, port);
	}
	if (rc < 0)
		return rc == -ENOSPC ? -ENOSPC : -EINVAL;
	if (i < 0) {
		i = (int)eng->n_routes++;
		r = &eng->routes[i];
		memset(r, 0, sizeof(*r));
		r->family = (uint8_t)family;
		r->depth = depth;
		memcpy(r->addr, addr, family == FC_AF_INET4 ? 4 : 16);
	}
	eng->routes[i].port = port;
	route_changed(eng);
	return 0;
}

int
rule_engine_route_del(struct rule_engine *eng, unsigned int family, const uint8_t *addr,
	uint8_t depth)
{
	int i, rc;

	if (eng == NULL || prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	i = route_find(eng, family, addr, depth);
	if (i < 0)
		return -ENOENT;
	if (depth == 0) {
		rc = 0;
		eng->route_default[family == FC_AF_INET4 ? 0 : 1] = -1;
	} else if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		rc = rte_lpm_delete(eng->lpm, rte_be_to_cpu_32(ip), depth);
	} else {
		rc = rte_lpm6_delete(eng->lpm6, addr, depth);
	}
	if (rc < 0)
		return -ENOENT;
	eng->routes[i] = eng->routes[--eng->n_routes];
	route_changed(eng);
	return 0;
}

uint16_t
rule_engine_route_lookup(const struct rule_engine *eng, unsigned int family,
	const uint8_t *addr)
{
	uint32_t nh;
	int ti = eng_tbl(family);

	if (eng == NULL || addr == NULL || ti < 0)
		return RULE_PORT_PAIRED;
	if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		if (rte_lpm_lookup(eng->lpm, rte_be_to_cpu_32(ip), &nh) == 0)
			return (uint16_t)nh;
	} else if (rte_lpm6_lookup(eng->lpm6, addr, &nh) == 0) {
		return (uint16_t)nh;
	}
	return eng->route_default[ti] >= 0 ? (uint16_t)eng->route_default[ti] : RULE_PORT_PAIRED;
}

int
rule_engine_route_dump(const struct rule_engine *eng, FILE *f)
{
	if (eng == NULL || f == NULL)
		return -EINVAL;
	for (uint32_t i = 0; i < eng->n_routes; i++) {
		const struct eng_route *r = &eng->routes[i];
		char a[INET6_ADDRSTRLEN];

		if (inet_ntop(r->family == FC_AF_INET4 ? AF_INET : AF_INET6, r->addr, a,
			    sizeof(a)) == NULL)
			return -EINVAL;
		if (fprintf(f, "%s/%u port %u\n", a, r->depth, r->port) < 0)
			return -EIO;
	}
	return (int)eng->n_routes;
}

/* Module: both directions' output ports. */
int
mod_route_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	const struct fc_key *x = &f->xkey, *o = &f->key;

	if (x->family == FC_AF_INET4) {
		f->act[RULE_DIR_ORIG].out_port = (x->v4.flags & FC_KEY_F_DST_LOCAL)
			? RULE_PORT_LOCAL
			: rule_engine_route_lookup(eng, x->family, (const uint8_t *)&x->v4.dst);
		f->act[RULE_DIR_REPLY].out_port = (o->v4.flags & FC_KEY_F_SRC_LOCAL)
			? RULE_PORT_LOCAL
			: rule_engine_route_lookup(eng, o->family, (const uint8_t *)&o->v4.src);
	} else {
		f->act[RULE_DIR_ORIG].out_port = (x->v6.flags & FC_KEY_F_DST_LOCAL)
			? RULE_PORT_LOCAL
			: rule_engine_route_lookup(eng, x->family, x->v6.dst);
		f->act[RULE_DIR_REPLY].out_port = (o->v6.flags & FC_KEY_F_SRC_LOCAL)
			? RULE_PORT_LOCAL
			: rule_engine_route_lookup(eng, o->family, o->v6.src);
	}
	return 0;
}

/*
 * The port an entry's packets leave by, as mod_route_on_insert() decided it:
 * the route to the destination the packet has once the entry's NAT rewrite
 * is done. That address is the source of the other direction's key (the
 * reply of a forward entry starts at its translated destination; the
 * forward entry of a reply starts at the original source, which the reply
 * is rewritten to), and its local bit that key's src_local. An entry
 * without a peer (conntrack off) routes its own destination.
 */
static uint16_t
entry_route(const struct rule_engine *eng, unsigned int ti, const void *key,
	const struct fc_action *a)
{
	const void *pk = a->peer != FC_INDEX_NONE ? fc_table_key(eng->t[ti], a->peer) : NULL;
	const void *k = pk != NULL ? pk : key;
	const uint8_t *addr;
	uint8_t flags;

	if (ti == 0) {
		const struct fc_key_v4 *k4 = k;

		addr = (const uint8_t *)(pk != NULL ? &k4->src : &k4->dst);
		flags = k4->flags;
	} else {
		const struct fc_key_v6 *k6 = k;

		addr = pk != NULL ? k6->src : k6->dst;
		flags = k6->flags;
	}
	if (flags & (pk != NULL ? FC_KEY_F_SRC_LOCAL : FC_KEY_F_DST_LOCAL))
		return RULE_PORT_LOCAL;
	return rule_engine_route_lookup(eng, ti == 0 ? FC_AF_INET4 : FC_AF_INET6, addr);
}

unsigned int
eng_reroute(struct rule_engine *eng, unsigned int budget)
{
	unsigned int visited = 0;

	while (eng->rr_active && visited < budget) {
		struct fc_table *t = eng->t[eng->rr_tbl];
		const struct fc_entry *e;
		const void *key;
		struct fc_action a;
		uint32_t idx;
		uint16_t port;

		if (t == NULL || fc_table_iterate(t, &eng->rr_next, &key, &idx) < 0) {
			if (eng->rr_tbl == 0) {
				eng->rr_tbl = 1;
				eng->rr_next = 0;
			} else {
				eng->rr_active = false;
			}
			continue;
		}
		visited++;
		e = fc_table_entry(t, idx);
		if (e == NULL)
			continue; /* (drops too: a later commit may accept them) */
		port = entry_route(eng, eng->rr_tbl, key, &e->act);
		if (port == e->act.out_port)
			continue;
		a = e->act;
		a.out_port = port;
		eng_entry_set(eng, eng->rr_tbl, idx, &a, e->timeout);
		eng->st.rerouted++;
	}
	return visited;
}
