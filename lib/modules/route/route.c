/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route/route.c — the route tables: longest-prefix match of a
 * destination to an output port (rte_lpm for IPv4, rte_lpm6 for IPv6, a
 * port per family for the default route), and the plain list of routes as
 * added (the LPM tables cannot be listed). A change starts the walk over
 * the cached flows (route_module.c).
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

#include "engine.h"
#include "route_priv.h"

int
route_tables_init(struct mod_route *rt)
{
	struct rte_lpm_config c4 = {0};
	struct rte_lpm6_config c6 = {0};
	char name[RTE_MEMZONE_NAMESIZE];

	rt->route_default[0] = -1;
	rt->route_default[1] = -1;
	c4.max_rules = rt->p.max_routes_v4;
	c4.number_tbl8s = 256;
	snprintf(name, sizeof(name), "%s_rt4", rt->name);
	rt->lpm = rte_lpm_create(name, rt->p.socket_id, &c4);
	if (rt->lpm == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	c6.max_rules = rt->p.max_routes_v6;
	c6.number_tbl8s = 1024;
	snprintf(name, sizeof(name), "%s_rt6", rt->name);
	rt->lpm6 = rte_lpm6_create(name, rt->p.socket_id, &c6);
	if (rt->lpm6 == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	return 0;
}

void
route_tables_fini(struct mod_route *rt)
{
	rte_lpm_free(rt->lpm);
	rt->lpm = NULL;
	rte_lpm6_free(rt->lpm6);
	rt->lpm6 = NULL;
	free(rt->routes);
	rt->routes = NULL;
	rt->n_routes = 0;
}

/* Validate a prefix: family, depth, no host bits. */
static int
prefix_check(unsigned int family, const uint8_t *addr, uint8_t depth)
{
	unsigned int alen = fc_af_addr_len(family);

	if (addr == NULL || fc_af_index(family) < 0 || depth > alen * 8)
		return -EINVAL;
	for (unsigned int b = depth; b < alen * 8; b++)
		if (addr[b / 8] & (0x80 >> (b % 8)))
			return -EINVAL;
	return 0;
}

static int
route_find(const struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth)
{
	unsigned int alen = fc_af_addr_len(family);

	for (uint32_t i = 0; i < rt->n_routes; i++) {
		const struct route_ent *r = &rt->routes[i];

		if (r->family == family && r->depth == depth && memcmp(r->addr, addr, alen) == 0)
			return (int)i;
	}
	return -1;
}

int
mod_route_add(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth,
	uint16_t port)
{
	struct route_ent *r;
	int i, rc;

	if (rt == NULL || port >= RULE_PORT_LOCAL || prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	i = route_find(rt, family, addr, depth);
	if (i < 0) {
		uint32_t max = family == FC_AF_INET4 ? rt->p.max_routes_v4 : rt->p.max_routes_v6;
		uint32_t have = 0;

		for (uint32_t j = 0; j < rt->n_routes; j++)
			have += rt->routes[j].family == family;
		if (have >= max)
			return -ENOSPC;
		if (rt->n_routes == rt->cap_routes) {
			uint32_t cap = rt->cap_routes ? rt->cap_routes * 2 : 16;
			struct route_ent *p = realloc(rt->routes, cap * sizeof(*p));

			if (p == NULL)
				return -ENOMEM;
			rt->routes = p;
			rt->cap_routes = cap;
		}
	}
	if (depth == 0) {
		rc = 0;
		rt->route_default[family == FC_AF_INET4 ? 0 : 1] = port;
	} else if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		rc = rte_lpm_add(rt->lpm, rte_be_to_cpu_32(ip), depth, port);
	} else {
		rc = rte_lpm6_add(rt->lpm6, addr, depth, port);
	}
	if (rc < 0)
		return rc == -ENOSPC ? -ENOSPC : -EINVAL;
	if (i < 0) {
		i = (int)rt->n_routes++;
		r = &rt->routes[i];
		memset(r, 0, sizeof(*r));
		r->family = (uint8_t)family;
		r->depth = depth;
		memcpy(r->addr, addr, fc_af_addr_len(family));
	}
	rt->routes[i].port = port;
	route_changed(rt);
	return 0;
}

int
mod_route_del(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth)
{
	int i, rc;

	if (rt == NULL || prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	i = route_find(rt, family, addr, depth);
	if (i < 0)
		return -ENOENT;
	if (depth == 0) {
		rc = 0;
		rt->route_default[family == FC_AF_INET4 ? 0 : 1] = -1;
	} else if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		rc = rte_lpm_delete(rt->lpm, rte_be_to_cpu_32(ip), depth);
	} else {
		rc = rte_lpm6_delete(rt->lpm6, addr, depth);
	}
	if (rc < 0)
		return -ENOENT;
	rt->routes[i] = rt->routes[--rt->n_routes];
	route_changed(rt);
	return 0;
}

uint16_t
mod_route_lookup(const struct mod_route *rt, unsigned int family, const uint8_t *addr)
{
	uint32_t nh;
	int ti = fc_af_index(family);

	if (rt == NULL || addr == NULL || ti < 0)
		return RULE_PORT_PAIRED;
	if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		if (rte_lpm_lookup(rt->lpm, rte_be_to_cpu_32(ip), &nh) == 0)
			return (uint16_t)nh;
	} else if (rte_lpm6_lookup(rt->lpm6, addr, &nh) == 0) {
		return (uint16_t)nh;
	}
	return rt->route_default[ti] >= 0 ? (uint16_t)rt->route_default[ti] : RULE_PORT_PAIRED;
}

int
mod_route_dump(const struct mod_route *rt, FILE *f)
{
	if (rt == NULL || f == NULL)
		return -EINVAL;
	for (uint32_t i = 0; i < rt->n_routes; i++) {
		const struct route_ent *r = &rt->routes[i];
		char a[INET6_ADDRSTRLEN];

		if (inet_ntop(r->family == FC_AF_INET4 ? AF_INET : AF_INET6, r->addr, a,
			    sizeof(a)) == NULL)
			return -EINVAL;
		if (fprintf(f, "%s/%u port %u\n", a, r->depth, r->port) < 0)
			return -EIO;
	}
	return (int)rt->n_routes;
}
