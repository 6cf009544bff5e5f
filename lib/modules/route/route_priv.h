/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route private: the route module's layout, shared by route.c
 * (the LPM tables: add, delete, look up, list) and route_module.c (the
 * engine module: on_insert, the walk after a change, lifecycle). Not for
 * other libraries: the public face is route.h.
 */
#ifndef GUFC_ROUTE_PRIV_H
#define GUFC_ROUTE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "route.h"

struct rte_lpm;
struct rte_lpm6;

/** A route, as added (the LPM tables cannot be listed). */
struct route_ent {
	uint8_t family;
	uint8_t depth;
	uint8_t flags;   /**< MOD_ROUTE_F_* */
	uint8_t addr[16];
	uint32_t nh;     /**< index in mod_route::nhs */
};

/** A next hop routes share; its index is what the LPM tables hold. */
struct route_nh_ent {
	struct mod_route_nh nh;
	uint8_t family;
	uint32_t refs;   /**< routes using it (0: free) */
};

/** A next hop of a flow being inserted (family 0: none). */
struct route_hop {
	uint8_t family;
	uint16_t port;
	uint8_t addr[16];
};

/** A table other than main (route_policy.c): its routes, scanned. */
struct route_xtable {
	uint32_t id;
	char name[MOD_ROUTE_NAME_MAX]; /**< "" when made by number */
	struct route_ent *routes;
	uint32_t n_routes;
	uint32_t cap_routes;
};

/** A rule, with the new flows it decided. */
struct route_rule_ent {
	struct mod_route_rule r;
	uint64_t hits;
};

/** route_resolve()'s deciding rule: an index in mod_route::rules, or these. */
#define ROUTE_RULE_MAIN (-1) /**< the implicit main rule */
#define ROUTE_RULE_NONE (-2) /**< none (no route) */

/** The module. Written by the rules lcore only (counters read relaxed). */
struct mod_route {
	struct rule_engine *eng;
	char name[17];
	struct mod_route_params p;
	struct rte_lpm *lpm;
	struct rte_lpm6 *lpm6;
	struct route_ent *routes;
	uint32_t n_routes;
	uint32_t cap_routes;
	int32_t route_default[2]; /**< next hop of the depth-0 route per family, -1: none */
	struct route_nh_ent *nhs; /**< next hops, by index */
	uint32_t n_nhs;
	uint32_t cap_nhs;
	/* The walk over the cached flows after a change (route_module.c). */
	bool walking;
	uint64_t walk_it;         /**< rule_engine_flow_next() iterator */
	/* The flow being inserted, per direction: its next hop (stage "route"),
	 * the adjacency it took (stage "route_adj", router mode). */
	struct route_hop hop[2];
	uint16_t taken[2];
	struct mod_route_stats st;
	bool router;              /**< adjacencies taken (mod_route_router_set()) */
	/* Policy routing (route_policy.c). */
	struct route_xtable *xt;  /**< tables other than main */
	uint32_t n_xt;
	uint32_t cap_xt;
	struct route_rule_ent *rules; /**< in order (pref, then as added) */
	uint32_t n_rules;
	uint32_t cap_rules;
	uint64_t main_hits;       /**< the implicit rule's */
	bool rules_mark;          /**< a rule has a fwmark selector */
	uint32_t mark[2];         /**< the flow being inserted: each direction's mark */
	int32_t decided[2];       /**< ... and the rule that routed it (ROUTE_RULE_*) */
};

/* route.c */
int route_tables_init(struct mod_route *rt);
void route_tables_fini(struct mod_route *rt);
int route_prefix_check(unsigned int family, const uint8_t *addr, uint8_t depth);
int64_t route_nh_take(struct mod_route *rt, unsigned int family, const struct mod_route_nh *nh);
/*
 * Room in a table's route array (*@p routes, *@p n used of *@p cap) for
 * one more route of @p family, whose routes may number @p max at most.
 * @return 0, -ENOSPC (@p max reached) or -ENOMEM (nothing changed).
 */
int route_ents_room(struct route_ent **routes, uint32_t n, uint32_t *cap, unsigned int family,
	uint32_t max);
void route_nh_drop(struct mod_route *rt, uint32_t i);
bool route_not_routed(const struct mod_route *rt, unsigned int family, const uint8_t *addr);
int route_info_dump(const struct mod_route_info *ri, FILE *f);
void route_ent_info(const struct mod_route *rt, const struct route_ent *r,
	struct mod_route_info *info);

/* route_policy.c */
void route_policy_fini(struct mod_route *rt);
int route_resolve(const struct mod_route *rt, const struct mod_route_sel *s,
	struct mod_route_nh *nh, int32_t *rule);
void route_rule_hit(struct mod_route *rt, int32_t rule);

/* route_module.c: (re)start the walk after a change. */
void route_changed(struct mod_route *rt);

#endif /* GUFC_ROUTE_PRIV_H */
