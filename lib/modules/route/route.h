/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/route — routing of new flows (prefix mod_route_).
 *
 * What it is: longest-prefix match of a flow's destination, as translated
 * by DNAT, to a next hop (rte_lpm for IPv4, rte_lpm6 for IPv6): an output
 * port and, for a route "via" a gateway, the gateway's address (a route
 * without one, e.g. the connected prefix of a port's address, reaches the
 * destination itself). The port is cached in both entries of the flow
 * (fc_action::out_port). No route gives RULE_PORT_PAIRED (the app forwards
 * to the input port's pair, like testpmd); a local destination gives
 * RULE_PORT_LOCAL (the flow's channel consumes it). The routes are also
 * kept in a plain list, since the LPM tables cannot be listed.
 *
 * Router mode (struct mod_route_params::adj_get_fn given, and on: see
 * mod_route_router_set()): each entry also
 * caches the adjacency of its next hop (fc_action::adj: the gateway's, or
 * the destination's when it is connected), which the callback finds or
 * makes (lib/modules/neigh through the app) with a reference per entry,
 * given back (adj_put_fn) when the entry goes, its flow gets no entry, or
 * a route change gives it another one. The references are taken by a
 * second stage, "route_adj" (RULE_MOD_ORDER_ROUTE_ADJ, after NAT's source
 * stage), once it is known which entries the flow gets. Multicast and broadcast
 * destinations (224.0.0.0/4, 255.255.255.255, ff00::/8) have no route in
 * router mode: a router does not forward them.
 *
 * Where it sits: a module of lib/engine (struct rule_module "route", order
 * RULE_MOD_ORDER_ROUTE: after conntrack and DNAT, before the filter),
 * registered by mod_route_module_create(); EAL (rte_lpm). Its on_insert
 * writes both directions' ports: the forward entry's from the translated
 * destination, the reply entry's from the original source. Flows the engine
 * decides without an entry get their port the same way.
 *
 * Route changes: a change reaches cached flows through a background walk
 * (the module's step, from rule_engine_step()): every entry's port (and
 * adjacency) is looked up again and rewritten (rule_engine_flow_update(),
 * seqlocked) where it changed. A neighbour's MAC changing needs no walk:
 * the adjacency is rewritten in place (neigh.h). Until the walk passes an entry, its packets keep the
 * old port, as in a router whose FIB update is propagating; verdicts are
 * not concerned. A change during a walk restarts it.
 *
 * Ownership and threads: the module belongs to whoever created it (the
 * app); it keeps a pointer to its engine and must outlive it (free it after
 * rule_engine_free()). Routes are added, deleted and looked up on the rules
 * lcore only (the app's control path sends changes there); the counters
 * are written there and read relaxed by anyone.
 */
#ifndef GUFC_ROUTE_H
#define GUFC_ROUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flowcache.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rule_engine;

/** The route module: its tables and its walk. */
struct mod_route;

/**
 * Router mode: the adjacency of next hop @p addr (4 or 16 bytes) on
 * @p port, with a reference for one flow entry (mod_neigh_adj_get()).
 * @return the adjacency index, or 0: none (the packets of the entry are
 *   dropped as having no route).
 */
typedef uint16_t (*mod_route_adj_get_fn)(void *arg, uint16_t port, uint8_t family,
	const uint8_t *addr);

/** Router mode: give back a reference adj_get_fn took (mod_neigh_adj_put()). */
typedef void (*mod_route_adj_put_fn)(void *arg, uint16_t adj);

/** Route module parameters. Zero means "default" where one is given. */
struct mod_route_params {
	const char *name;       /**< unique, 1..16 characters (names the LPM tables) */
	uint32_t max_routes_v4; /**< 0 = 1024 */
	uint32_t max_routes_v6; /**< 0 = 1024 */
	int socket_id;          /**< NUMA socket of the LPM tables */
	mod_route_adj_get_fn adj_get_fn; /**< router mode (with adj_put_fn); NULL: bridge mode */
	mod_route_adj_put_fn adj_put_fn;
	void *adj_arg;          /**< first argument of both */
};

/** Route flags (struct mod_route_info::flags, mod_route_add_nh()). */
#define MOD_ROUTE_F_CONNECTED 0x01 /**< the connected prefix of a port's address */

/** A next hop: the port, and the gateway when there is one. */
struct mod_route_nh {
	uint16_t port;   /**< output port (< RULE_PORT_LOCAL) */
	bool via;        /**< @c gw is set; else the destination is on the port's link */
	uint8_t gw[16];  /**< the gateway, of the route's family */
};

/** One route, for listings (mod_route_next()). */
struct mod_route_info {
	uint8_t family;
	uint8_t depth;
	uint8_t flags;   /**< MOD_ROUTE_F_* */
	uint8_t addr[16];
	struct mod_route_nh nh;
};

/** Counters of the route module. */
struct mod_route_stats {
	uint64_t rerouted;    /**< cached entries given a new output port (or adjacency) by a
			           route change */
	uint64_t route_walks; /**< walks over the cached flows started by route changes */
	bool rerouting;       /**< a walk is in progress */
};

/**
 * Create the route tables and register the module with @p eng.
 * @param eng  the engine
 * @param p    parameters
 * @return the module, or NULL with rte_errno EINVAL (NULL argument, bad
 *   name, only one of adj_get_fn and adj_put_fn), ENOMEM, EEXIST (name
 *   taken), an rte_lpm error, or the registration's error (ENOSPC).
 * Context: main lcore, before traffic (as rule_engine_module_register()).
 */
struct mod_route *mod_route_module_create(struct rule_engine *eng,
	const struct mod_route_params *p);

/**
 * Turn router mode on or off (it starts on when adj_get_fn was given). Off,
 * new entries take no adjacency, a walk keeps the ones entries hold, and
 * multicast and broadcast destinations are routed like any other; the
 * adjacencies entries already hold are still given back when they go.
 * Cached flows keep what they have: flush them (rule_engine_flush()) for
 * the change to reach them.
 * @param rt  the module
 * @param on  router mode on
 * @return 0, -EINVAL (@p rt NULL), -ENOTSUP (on without adj_get_fn).
 * Context: the lcore that runs the engine's slow path.
 */
int mod_route_router_set(struct mod_route *rt, bool on);

/**
 * @param rt  the module; NULL is accepted (false)
 * @return whether router mode is on.
 * Context: any.
 */
bool mod_route_router(const struct mod_route *rt);

/**
 * Free the module and its tables.
 * @param rt  the module; NULL is accepted
 * Context: main lcore, after rule_engine_free() of its engine.
 */
void mod_route_module_free(struct mod_route *rt);

/**
 * Add (or replace) a route; cached flows follow through the walk.
 * @param rt      the module
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order; host bits must be zero
 * @param depth   prefix length, 0..32 / 0..128 (0: default route)
 * @param port    output port (< RULE_PORT_LOCAL)
 * @return 0, -EINVAL, -ENOSPC (max_routes of the family), -ENOMEM.
 * Context: rules lcore.
 */
int mod_route_add(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth,
	uint16_t port);

/**
 * Add (or replace) a route to a next hop; cached flows follow through the
 * walk. mod_route_add() is this without a gateway or flags.
 * @param rt      the module
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order; host bits must be zero
 * @param depth   prefix length, 0..32 / 0..128 (0: default route)
 * @param nh      the next hop (its port < RULE_PORT_LOCAL)
 * @param flags   MOD_ROUTE_F_*
 * @return 0, -EINVAL, -ENOSPC (max_routes of the family), -ENOMEM.
 * Context: rules lcore.
 */
int mod_route_add_nh(struct mod_route *rt, unsigned int family, const uint8_t *addr,
	uint8_t depth, const struct mod_route_nh *nh, uint8_t flags);

/**
 * Delete a route; cached flows follow through the walk.
 * @param rt      the module
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    as mod_route_add()
 * @param depth   as mod_route_add()
 * @return 0, -EINVAL, -ENOENT.
 * Context: rules lcore.
 */
int mod_route_del(struct mod_route *rt, unsigned int family, const uint8_t *addr, uint8_t depth);

/**
 * Output port for a destination.
 * @param rt      the module
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order
 * @return the port, or RULE_PORT_PAIRED (no route, bad argument).
 * Context: rules lcore.
 */
uint16_t mod_route_lookup(const struct mod_route *rt, unsigned int family, const uint8_t *addr);

/**
 * The next hop for a destination (the route's; multicast destinations have
 * none in router mode).
 * @param rt      the module
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order
 * @param nh      receives the next hop
 * @return 0, -ENOENT (no route), -EINVAL.
 * Context: rules lcore.
 */
int mod_route_lookup_nh(const struct mod_route *rt, unsigned int family, const uint8_t *addr,
	struct mod_route_nh *nh);

/**
 * Walk the routes: start with *it = 0, call until -ENOENT.
 * @param rt    the module
 * @param it    iterator state
 * @param info  receives one route
 * @return 0, -ENOENT (end), -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_next(const struct mod_route *rt, uint32_t *it, struct mod_route_info *info);

/**
 * Write the routes, "10.0.0.0/8 port 1" per line, then " via GATEWAY" and
 * " connected" where they apply.
 * @param rt  the module
 * @param f   destination
 * @return routes written, -EINVAL, -EIO.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_dump(const struct mod_route *rt, FILE *f);

/**
 * Read the counters.
 * @param rt  the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_route_stats_get(const struct mod_route *rt, struct mod_route_stats *st);

/*
 * Policy routing: several tables and the rules that pick one (Linux's
 * `ip route ... table T` and `ip rule`).
 *
 * Tables: MOD_ROUTE_TABLE_MAIN (254) is the table of mod_route_add() and
 * friends (rte_lpm / rte_lpm6). Other tables (1..2^32-2, but 253 and 255,
 * which Linux reserves for "default" and "local") are made on their first
 * route, or by name (mod_route_table_named()); they are small (a gateway's
 * per-uplink tables: a default route and a few prefixes) and looked up by a
 * scan of their routes, longest prefix first, on new flows only.
 *
 * Rules: in ascending pref, rules of equal pref in the order added; the
 * main table's own rule (pref 32766, "from all lookup main") is implicit
 * and always there, first of its pref (Linux's is added at boot: a user
 * rule of pref 32766 comes after it). A packet matches a rule when every selector given
 * matches (from, to: prefixes of its source, destination; fwmark V/M:
 * (mark & M) == V; iif: its input port; ipproto: its IP protocol;
 * sport/dport: its ports within ranges, for protocols with ports), or none
 * of them does with `not`.
 * A matching rule with a table looks the destination up there; no route
 * there falls through to the next rule (as Linux). blackhole drops the
 * packet silently, unreachable and prohibit drop it with the ICMP error
 * Linux sends (net unreachable; administratively prohibited). No rule
 * giving a route: no route (as before). Without rules, the main table
 * alone is looked up, as before policy routing existed.
 *
 * The mark a rule's fwmark is matched against is the packet's after the
 * mangle and nat PREROUTING (or OUTPUT) walk, as Linux routes it: the
 * module asks the engine for it (rule_engine_flow_mark()) only while some
 * rule has a fwmark selector. A reply's port is looked up with the
 * reply's own mark, as its walk leaves it (CONNMARK --restore-mark), once
 * that walk is done (stage "route_adj"); a reply a rule drops that way has
 * each packet dropped on the slow path with the rule's reason and ICMP
 * error (its entry asks for them all: FC_INTEREST_ALL); so has an entry
 * the walk after a change finds a rule drops. The walk after a route or rule
 * change uses the mark each entry's packets carry.
 */

/** The main table: mod_route_add()'s, and the implicit rule's. */
#define MOD_ROUTE_TABLE_MAIN 254u
/** The implicit rule's pref: "32766: from all lookup main". */
#define MOD_ROUTE_PREF_MAIN 32766u
/** A table name's size, NUL included. */
#define MOD_ROUTE_NAME_MAX 16
/** Rule input port: any (struct mod_route_rule::iif). */
#define MOD_ROUTE_IIF_ANY 0xffffu
/** Named tables are numbered from here up, the first free number. */
#define MOD_ROUTE_TABLE_NAMED_BASE 1000u

/** What a rule does (struct mod_route_rule::action). */
enum mod_route_action {
	MOD_ROUTE_ACT_TABLE,       /**< look the destination up in @c table */
	MOD_ROUTE_ACT_BLACKHOLE,   /**< drop silently */
	MOD_ROUTE_ACT_UNREACHABLE, /**< drop, ICMP host unreachable (ICMPv6 no route) */
	MOD_ROUTE_ACT_PROHIBIT,    /**< drop, ICMP administratively prohibited */
	MOD_ROUTE_ACT_GOTO,        /**< go on at the rules of pref @c table (a later pref;
				        none there: the rule is unresolved and skipped, as Linux) */
};

/** A routing rule. Zeroed, then set what is given (iif: MOD_ROUTE_IIF_ANY for none). */
struct mod_route_rule {
	uint32_t pref;     /**< order, ascending */
	bool invert;       /**< `not`: matches when the selectors do not all match */
	uint8_t family;    /**< of from/to (FC_AF_*); 0 without them: both families */
	bool from_set, to_set;
	uint8_t from_len, to_len;
	uint8_t from[16], to[16];
	bool mark_set;
	uint32_t mark, mask; /**< fwmark V/M (M 0xffffffff when not given) */
	uint16_t iif;      /**< input port, or MOD_ROUTE_IIF_ANY */
	uint8_t ipproto;   /**< `ipproto`: the IP protocol; 0: any */
	bool sport_set, dport_set;
	uint16_t sport[2], dport[2]; /**< `sport`/`dport` ranges, [0] <= [1] (ports of TCP,
				      UDP, UDP-Lite, SCTP, DCCP; other protocols' are 0) */
	uint8_t action;    /**< enum mod_route_action */
	uint32_t table;    /**< with MOD_ROUTE_ACT_TABLE; MOD_ROUTE_ACT_GOTO: the target pref */
};

/** A rule, for listings (mod_route_rule_next()). */
struct mod_route_rule_info {
	struct mod_route_rule r;
	uint64_t hits;     /**< new flows (either direction) it decided: a route, or a drop */
	bool implicit;     /**< the main table's own rule */
};

/** What a policy lookup gave (mod_route_resolve()). */
enum mod_route_result {
	MOD_ROUTE_RES_NH,          /**< a next hop */
	MOD_ROUTE_RES_NONE,        /**< no route */
	MOD_ROUTE_RES_BLACKHOLE,
	MOD_ROUTE_RES_UNREACHABLE,
	MOD_ROUTE_RES_PROHIBIT,
};

/** What a policy lookup looks at. */
struct mod_route_sel {
	uint8_t family;      /**< FC_AF_INET4 or FC_AF_INET6 */
	const uint8_t *src;  /**< the packet's source (4 or 16 bytes) */
	const uint8_t *dst;  /**< its destination, looked up */
	uint32_t mark;       /**< its mark after PREROUTING */
	uint16_t iif;        /**< its input port; MOD_ROUTE_IIF_ANY: unknown (matches no iif) */
	uint8_t proto;       /**< its IP protocol (0: unknown, matches no ipproto) */
	uint16_t sport, dport; /**< its ports (host order; a protocol without ports: ignored, 0) */
};

/**
 * Add a route to table @p table (MOD_ROUTE_TABLE_MAIN: mod_route_add_nh());
 * the table is made if new (numbered; see mod_route_table_named() for names).
 * @param rt, family, addr, depth, nh, flags  as mod_route_add_nh()
 * @param table  1..0xfffffffe, not 253 or 255
 * @return 0, -EINVAL, -ENOSPC (the family's max_routes in that table), -ENOMEM.
 * Context: rules lcore.
 */
int mod_route_table_add(struct mod_route *rt, uint32_t table, unsigned int family,
	const uint8_t *addr, uint8_t depth, const struct mod_route_nh *nh, uint8_t flags);

/**
 * Delete a route of table @p table.
 * @return 0, -EINVAL, -ENOENT (no such table or route).
 * Context: rules lcore.
 */
int mod_route_table_del(struct mod_route *rt, uint32_t table, unsigned int family,
	const uint8_t *addr, uint8_t depth);

/**
 * The number of the table named @p name ("main": MOD_ROUTE_TABLE_MAIN),
 * made (empty, the first free number from MOD_ROUTE_TABLE_NAMED_BASE) when
 * @p create and it is new.
 * @param rt      the module
 * @param name    1..MOD_ROUTE_NAME_MAX-1 characters, not all digits
 * @param create  make it when new
 * @param id      receives the number
 * @return 0, -ENOENT (not made, !create), -EINVAL, -ENOMEM.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_table_named(struct mod_route *rt, const char *name, bool create, uint32_t *id);

/**
 * The name of table @p id ("main" for the main table, "" for one made by
 * number). @return the name, or NULL: no such table.
 * Context: rules lcore, or control with it stopped.
 */
const char *mod_route_table_name(const struct mod_route *rt, uint32_t id);

/**
 * Walk the tables other than main: start with *it = 0, call until -ENOENT.
 * @return 0 (@p id, and @p n_routes when not NULL, set), -ENOENT (end), -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_table_next(const struct mod_route *rt, uint32_t *it, uint32_t *id,
	uint32_t *n_routes);

/**
 * Walk the routes of table @p table as mod_route_next() walks main's.
 * @return 0, -ENOENT (end, or no such table), -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_table_route_next(const struct mod_route *rt, uint32_t table, uint32_t *it,
	struct mod_route_info *info);

/**
 * mod_route_dump() of table @p table.
 * @return routes written, -EINVAL, -ENOENT (no such table), -EIO.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_table_dump(const struct mod_route *rt, uint32_t table, FILE *f);

/**
 * Add a rule after those of a lower or equal pref (at 32766: after main's too).
 * @param rt        the module
 * @param r         the rule (its pref ignored when !pref_given)
 * @param pref_given  false: Linux's default, one less than the lowest pref
 *                  there is (the implicit rule's included), at least 1
 * @return 0, -EINVAL (bad prefix, mask, family mix, table 0/253/255, pref
 *   0, a goto backwards, ...), -EEXIST (the same rule is there: as
 *   `ip rule add`, which refuses an identical rule), -ENOMEM.
 * Context: rules lcore.
 */
int mod_route_rule_add(struct mod_route *rt, const struct mod_route_rule *r, bool pref_given);

/**
 * Delete the first rule equal to @p r (pref, selectors, action, table).
 * @return 0, -EINVAL, -ENOENT.
 * Context: rules lcore.
 */
int mod_route_rule_del(struct mod_route *rt, const struct mod_route_rule *r);

/**
 * Walk the rules in order, the implicit main rule in its place.
 * @return 0, -ENOENT (end), -EINVAL.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_rule_next(const struct mod_route *rt, uint32_t *it,
	struct mod_route_rule_info *info);

/**
 * Write rule @p r as `ip rule` lists it, without the pref or a newline:
 * "not from 10.0.0.0/8 fwmark 0x1/0xff iif 2 lookup 1000".
 * @return what snprintf() returns, -EINVAL.
 * Context: any.
 */
int mod_route_rule_format(const struct mod_route *rt, const struct mod_route_rule *r, char *buf,
	size_t len);

/**
 * Write the rules, "PREF: RULE" per line, then " hits N".
 * @return rules written, -EINVAL, -EIO.
 * Context: rules lcore, or control with it stopped.
 */
int mod_route_rule_dump(const struct mod_route *rt, FILE *f);

/**
 * The policy lookup: the rules in order, the tables they name.
 * @param rt     the module
 * @param s      the packet
 * @param nh     receives the next hop (MOD_ROUTE_RES_NH)
 * @return enum mod_route_result, or -EINVAL. Counts no hits (the module's
 *   on_insert does).
 * Context: rules lcore.
 */
int mod_route_resolve(const struct mod_route *rt, const struct mod_route_sel *s,
	struct mod_route_nh *nh);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ROUTE_H */
