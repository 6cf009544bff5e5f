/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route/route.c — the route tables: longest-prefix match of a
 * destination to a next hop (rte_lpm for IPv4, rte_lpm6 for IPv6, a next
 * hop per family for the default route; both hold an index into the table
 * of next hops the routes share: port and gateway), and the plain list of
 * routes as added (the LPM tables cannot be listed). A change starts the
 * walk over the cached flows (route_module.c).
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
	route_policy_fini(rt);
	free(rt->nhs);
	rt->nhs = NULL;
	rt->n_nhs = 0;
}

/* Validate a prefix: family, depth, no host bits. */
int
route_prefix_check(unsigned int family, const uint8_t *addr, uint8_t depth)
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

/* The index of next hop @p nh (shared, counted), made if new. @return it, or -ENOMEM. */
int64_t
route_nh_take(struct mod_route *rt, unsigned int family, const struct mod_route_nh *nh)
{
	unsigned int alen = fc_af_addr_len(family);
	int64_t free_i = -1;

	for (uint32_t i = 0; i < rt->n_nhs; i++) {
		struct route_nh_ent *e = &rt->nhs[i];

		if (e->refs == 0) {
			if (free_i < 0)
				free_i = i;
			continue;
		}
		if (e->family == family && e->nh.port == nh->port && e->nh.via == nh->via &&
			(!nh->via || memcmp(e->nh.gw, nh->gw, alen) == 0)) {
			e->refs++;
			return i;
		}
	}
	if (free_i < 0) {
		if (rt->n_nhs == rt->cap_nhs) {
			uint32_t cap = rt->cap_nhs ? rt->cap_nhs * 2 : 16;
			struct route_nh_ent *p = realloc(rt->nhs, cap * sizeof(*p));

			if (p == NULL)
				return -ENOMEM;
			rt->nhs = p;
			rt->cap_nhs = cap;
		}
		free_i = rt->n_nhs++;
	}
	memset(&rt->nhs[free_i], 0, sizeof(rt->nhs[0]));
	rt->nhs[free_i].family = (uint8_t)family;
	rt->nhs[free_i].nh.port = nh->port;
	rt->nhs[free_i].nh.via = nh->via;
	if (nh->via)
		memcpy(rt->nhs[free_i].nh.gw, nh->gw, alen);
	rt->nhs[free_i].refs = 1;
	return free_i;
}

void
route_nh_drop(struct mod_route *rt, uint32_t i)
{
	if (i < rt->n_nhs && rt->nhs[i].refs > 0)
		rt->nhs[i].refs--;
}

int
route_ents_room(struct route_ent **routes, uint32_t n, uint32_t *cap, unsigned int family,
	uint32_t max)
{
	uint32_t have = 0;

	for (uint32_t j = 0; j < n; j++)
		have += (*routes)[j].family == family;
	if (have >= max)
		return -ENOSPC;
	if (n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 4;
		struct route_ent *p = realloc(*routes, ncap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		*routes = p;
		*cap = ncap;
	}
	return 0;
}

int
mod_route_add_nh(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth,
	const struct mod_route_nh *nh, uint8_t flags)
{
	struct route_ent *r;
	int64_t nhi;
	int i, rc;

	if (rt == NULL || nh == NULL || nh->port >= RULE_PORT_LOCAL ||
		route_prefix_check(family, addr, depth) < 0)
		return -EINVAL;
	i = route_find(rt, family, addr, depth);
	if (i < 0) {
		rc = route_ents_room(&rt->routes, rt->n_routes, &rt->cap_routes, family,
			family == FC_AF_INET4 ? rt->p.max_routes_v4 : rt->p.max_routes_v6);
		if (rc < 0)
			return rc;
	}
	nhi = route_nh_take(rt, family, nh);
	if (nhi < 0)
		return (int)nhi;
	if (depth == 0) {
		rc = 0;
		rt->route_default[family == FC_AF_INET4 ? 0 : 1] = (int32_t)nhi;
	} else if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		rc = rte_lpm_add(rt->lpm, rte_be_to_cpu_32(ip), depth, (uint32_t)nhi);
	} else {
		rc = rte_lpm6_add(rt->lpm6, addr, depth, (uint32_t)nhi);
	}
	if (rc < 0) {
		route_nh_drop(rt, (uint32_t)nhi);
		return rc == -ENOSPC ? -ENOSPC : -EINVAL;
	}
	if (i < 0) {
		i = (int)rt->n_routes++;
		r = &rt->routes[i];
		memset(r, 0, sizeof(*r));
		r->family = (uint8_t)family;
		r->depth = depth;
		memcpy(r->addr, addr, fc_af_addr_len(family));
	} else {
		route_nh_drop(rt, rt->routes[i].nh);
	}
	rt->routes[i].nh = (uint32_t)nhi;
	rt->routes[i].flags = flags;
	route_changed(rt);
	return 0;
}

int
mod_route_add(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth,
	uint16_t port)
{
	struct mod_route_nh nh = { .port = port };

	return mod_route_add_nh(rt, family, addr, depth, &nh, 0);
}

int
mod_route_del(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth)
{
	int i, rc;

	if (rt == NULL || route_prefix_check(family, addr, depth) < 0)
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
	route_nh_drop(rt, rt->routes[i].nh);
	rt->routes[i] = rt->routes[--rt->n_routes];
	route_changed(rt);
	return 0;
}

/* Multicast and broadcast: never routed in router mode. */
bool
route_not_routed(const struct mod_route *rt, unsigned int family, const uint8_t *addr)
{
	if (!rt->router)
		return false;
	if (family == FC_AF_INET4)
		return (addr[0] & 0xf0) == 0xe0 ||
			(addr[0] == 0xff && addr[1] == 0xff && addr[2] == 0xff && addr[3] == 0xff);
	return addr[0] == 0xff;
}

int
mod_route_lookup_nh(const struct mod_route *rt, unsigned int family, const uint8_t *addr,
	struct mod_route_nh *nh)
{
	uint32_t nhi;
	int ti = fc_af_index(family);

	if (rt == NULL || addr == NULL || nh == NULL || ti < 0)
		return -EINVAL;
	if (route_not_routed(rt, family, addr))
		return -ENOENT;
	if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, 4);
		if (rte_lpm_lookup(rt->lpm, rte_be_to_cpu_32(ip), &nhi) != 0)
			nhi = UINT32_MAX;
	} else if (rte_lpm6_lookup(rt->lpm6, addr, &nhi) != 0) {
		nhi = UINT32_MAX;
	}
	if (nhi == UINT32_MAX) {
		if (rt->route_default[ti] < 0)
			return -ENOENT;
		nhi = (uint32_t)rt->route_default[ti];
	}
	if (nhi >= rt->n_nhs)
		return -ENOENT;
	*nh = rt->nhs[nhi].nh;
	return 0;
}

uint16_t
mod_route_lookup(const struct mod_route *rt, unsigned int family, const uint8_t *addr)
{
	struct mod_route_nh nh;

	return mod_route_lookup_nh(rt, family, addr, &nh) == 0 ? nh.port : RULE_PORT_PAIRED;
}

/* A route's listing (mod_route_next(), mod_route_table_route_next()). */
void
route_ent_info(const struct mod_route *rt, const struct route_ent *r, struct mod_route_info *info)
{
	memset(info, 0, sizeof(*info));
	info->family = r->family;
	info->depth = r->depth;
	info->flags = r->flags;
	memcpy(info->addr, r->addr, sizeof(info->addr));
	if (r->nh < rt->n_nhs)
		info->nh = rt->nhs[r->nh].nh;
}

int
mod_route_next(const struct mod_route *rt, uint32_t *it, struct mod_route_info *info)
{
	if (rt == NULL || it == NULL || info == NULL)
		return -EINVAL;
	if (*it >= rt->n_routes)
		return -ENOENT;
	route_ent_info(rt, &rt->routes[(*it)++], info);
	return 0;
}

/* One route's line (mod_route_dump(), mod_route_table_dump()). */
int
route_info_dump(const struct mod_route_info *ri, FILE *f)
{
	int af = ri->family == FC_AF_INET4 ? AF_INET : AF_INET6;
	char a[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN + 8] = "";

	if (inet_ntop(af, ri->addr, a, sizeof(a)) == NULL)
		return -EINVAL;
	if (ri->nh.via) {
		memcpy(gw, " via ", 5);
		if (inet_ntop(af, ri->nh.gw, gw + 5, sizeof(gw) - 5) == NULL)
			return -EINVAL;
	}
	if (fprintf(f, "%s/%u port %u%s%s\n", a, ri->depth, ri->nh.port, gw,
		    (ri->flags & MOD_ROUTE_F_CONNECTED) ? " connected" : "") < 0)
		return -EIO;
	return 0;
}

int
mod_route_dump(const struct mod_route *rt, FILE *f)
{
	struct mod_route_info ri;
	uint32_t it = 0;

	if (rt == NULL || f == NULL)
		return -EINVAL;
	while (mod_route_next(rt, &it, &ri) == 0) {
		int rc = route_info_dump(&ri, f);

		if (rc < 0)
			return rc;
	}
	return (int)rt->n_routes;
}
