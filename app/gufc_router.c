/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_router.c — ports as a router sees them, and router mode's
 * wiring (doc/config.md "Ports and router mode"; gufc_ctl.h "Ports and
 * router mode").
 *
 * A port's addresses ("port N address 10.0.1.1/24") are this host's: each
 * is a local address (the key's local bits), gives a connected route
 * (10.0.1.0/24 on port N, next hop the destination itself) and, in router
 * mode, is where the port answers ARP/ND and echo requests; masquerade
 * takes the egress port's address. The port's MTU is the one gufc routes
 * with ("mtu M", else the device's). In router mode the neighbour module
 * (lib/modules/neigh) is created here with the app's mempool and a send
 * callback that enqueues on the port's TX channel, the route module gets
 * its adjacency callbacks, and each datapath context its router fields.
 *
 * Context: main lcore (setup, validation, the control client); the *_fn
 * functions and the engine callbacks run on the rules lcore.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "gufc_ctl.h"

/* ------------------------------------------------------------------------ */
/* Validation (config and shell)                                             */
/* ------------------------------------------------------------------------ */

int
gufc_port_name_check(const char *name, const char **why)
{
	size_t n = strlen(name);

	/* Rules name ports as iptables names interfaces: at most 15 characters. */
	if (n == 0 || n >= RULE_IFNAME_MAX) {
		*why = "port name: 1..15 characters (rules' -i/-o could not name it)";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
			    (name[i] >= '0' && name[i] <= '9') || strchr("_-.:@", name[i]) != NULL)) {
			*why = "port name: letters, digits, '_', '-', '.', ':', '@'";
			return -EINVAL;
		}
	return 0;
}

/* Do the first @p depth bits of @p a and @p b agree? */
static bool
bits_agree(const uint8_t *a, const uint8_t *b, unsigned int depth)
{
	unsigned int bytes = depth / 8, bits = depth % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	return bits == 0 || ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

/* Are the host bits of @p a (past its length) all @p v (0 or 1)? */
static bool
host_bits_all(const struct lex_prefix *a, unsigned int v)
{
	unsigned int max = lex_af_len(a->family) * 8;

	for (unsigned int b = a->len; b < max; b++)
		if (((a->addr[b / 8] >> (7 - b % 8)) & 1) != v)
			return false;
	return true;
}

int
gufc_port_addr_check(const struct gufc_config *cfg, uint16_t port, const struct lex_prefix *a,
	const char **why)
{
	static const uint8_t zero[16];
	unsigned int alen = lex_af_len(a->family);

	if (a->len == 0) {
		*why = "address: a prefix length from 1 is needed";
		return -EINVAL;
	}
	if (a->family == LEX_AF_INET4) {
		if (a->addr[0] == 0 || a->addr[0] == 127 || a->addr[0] >= 224) {
			*why = "address: not a unicast address";
			return -EINVAL;
		}
		if (a->len < 31 && (host_bits_all(a, 0) || host_bits_all(a, 1))) {
			*why = "address: the network or broadcast address of its prefix";
			return -EINVAL;
		}
	} else {
		if (a->addr[0] == 0xff || memcmp(a->addr, zero, 15) == 0) {
			*why = "address: not a unicast address";
			return -EINVAL;
		}
		if (a->len < 127 && host_bits_all(a, 0)) {
			*why = "address: the subnet-router address of its prefix";
			return -EINVAL;
		}
	}
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		for (unsigned int i = 0; i < cfg->port[p].n_addr; i++) {
			const struct lex_prefix *o = &cfg->port[p].addr[i];

			if (o->family == a->family && memcmp(o->addr, a->addr, alen) == 0) {
				*why = p == port ? "address: the port has it already" :
						   "address: another port has it";
				return -EEXIST;
			}
		}
	if (cfg->port[port].n_addr == MOD_NEIGH_PORT_ADDRS) {
		*why = "address: a port has at most 8";
		return -ENOSPC;
	}
	return 0;
}

int
gufc_port_of_gw(const struct gufc_config *cfg, uint8_t family, const uint8_t *gw)
{
	int best = -ENOENT;
	unsigned int best_len = 0;

	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		for (unsigned int i = 0; i < cfg->port[p].n_addr; i++) {
			const struct lex_prefix *a = &cfg->port[p].addr[i];

			if (a->family != family)
				continue;
			if (memcmp(a->addr, gw, lex_af_len(family)) == 0)
				return -EEXIST;
			if (a->len < lex_af_len(family) * 8 && bits_agree(a->addr, gw, a->len) &&
				(best < 0 || a->len > best_len)) {
				best = p;
				best_len = a->len;
			}
		}
	return best;
}

/* ------------------------------------------------------------------------ */
/* Engine and neighbour callbacks (rules lcore)                              */
/* ------------------------------------------------------------------------ */

uint16_t
gufc_router_adj_get(void *arg, uint16_t port, uint8_t family, const uint8_t *addr)
{
	struct gufc_app *app = arg;

	return mod_neigh_adj_get(app->neigh, port, family, addr, gufc_now_ms(app));
}

void
gufc_router_adj_put(void *arg, uint16_t adj)
{
	struct gufc_app *app = arg;

	mod_neigh_adj_put(app->neigh, adj);
}

int
gufc_router_masq_addr(const struct gufc_app *app, uint16_t port, uint16_t in_port,
	uint8_t family, uint8_t *addr)
{
	if (port == RULE_PORT_LOCAL)
		port = in_port;
	else if (port >= GUFC_MAX_PORTS || !app->ports[port].used)
		port = in_port < GUFC_MAX_PORTS ? app->ports[in_port].pair : GUFC_MAX_PORTS;
	if (port >= GUFC_MAX_PORTS)
		return -ENOENT;
	for (unsigned int i = 0; i < app->cfg.port[port].n_addr; i++) {
		const struct lex_prefix *a = &app->cfg.port[port].addr[i];

		if (a->family == family) {
			memcpy(addr, a->addr, lex_af_len(family));
			return 0;
		}
	}
	return -ENOENT;
}

/* Frames of the neighbour module (and packets it held) leave on the port's TX channel. */
static void
neigh_send(void *arg, uint16_t port, struct rte_mbuf **m, unsigned int n)
{
	struct gufc_app *app = arg;
	uint16_t ch = port < GUFC_MAX_PORTS ? app->port_chan[port] : DP_CHAN_NONE;

	/* A bad id frees them, counted (channel_invalid). */
	chan_enqueue_burst(app->chans, ch, (uint16_t)app->rules_producer, m, n);
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */
/* ------------------------------------------------------------------------ */

/* The host prefix of port address @p a. */
static void
host_of(const struct lex_prefix *a, struct lex_prefix *h)
{
	*h = *a;
	h->len = (uint8_t)(lex_af_len(a->family) * 8);
}

/* The connected route of port address @p a on @p port (none for a host address). */
static bool
connected_of(const struct lex_prefix *a, uint16_t port, struct gufc_route *r)
{
	unsigned int max = lex_af_len(a->family) * 8;

	memset(r, 0, sizeof(*r));
	if (a->len >= max)
		return false;
	r->pfx = *a;
	for (unsigned int b = a->len; b < max; b++)
		r->pfx.addr[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	r->port = port;
	r->connected = true;
	return true;
}

static int
neigh_create(struct gufc_app *app)
{
	const struct gufc_settings *s = &app->cfg.set;
	struct mod_neigh_params np;
	int rc;

	memset(&np, 0, sizeof(np));
	np.max_neigh = s->neighbours;
	np.queue_len = s->neigh_queue;
	np.reachable_ms = s->neigh_reachable;
	np.retrans_ms = s->neigh_retrans;
	np.probes = s->neigh_probes;
	np.pool = app->pool;
	np.send_fn = neigh_send;
	np.send_arg = app;
	np.unreach_fn = gufc_slow_neigh_unreach;
	np.eng = app->eng;
	np.socket_id = (int)rte_socket_id();
	app->neigh = mod_neigh_create(&np);
	if (app->neigh == NULL) {
		GUFC_LOG(ERR, "neighbour table: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		const struct gufc_port_cfg *pc = &app->cfg.port[p];

		if (!app->ports[p].used)
			continue;
		rc = mod_neigh_port_set(app->neigh, p, app->ports[p].mac.addr_bytes,
			app->ports[p].mtu);
		for (unsigned int i = 0; rc == 0 && i < pc->n_addr; i++)
			rc = mod_neigh_port_addr_add(app->neigh, p, pc->addr[i].family,
				pc->addr[i].addr, pc->addr[i].len);
		if (rc != 0) {
			GUFC_LOG(ERR, "port %u: neighbour module: %s", p, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Accepted local traffic nothing answers: the "local" channel (discard by default). */
static int
local_chan_create(struct gufc_app *app)
{
	const struct gufc_settings *s = &app->cfg.set;
	int rc;

	rc = chan_lookup(app->chans, GUFC_LOCAL_CHAN);
	if (rc < 0) {
		struct chan_params cp = { .name = GUFC_LOCAL_CHAN, .kind = CHAN_CONS_DISCARD,
			.ring_size = s->channel_size };

		rc = chan_create(app->chans, &cp);
	}
	if (rc < 0) {
		GUFC_LOG(ERR, "channel '%s': %s", GUFC_LOCAL_CHAN, strerror(-rc));
		return rc;
	}
	app->local_chan = (uint16_t)rc;
	return 0;
}

int
gufc_router_init(struct gufc_app *app)
{
	int rc;

	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		const struct gufc_port_cfg *pc = &app->cfg.port[p];
		uint16_t mtu = 0, dev, dev_mtu;

		if (!app->ports[p].used) {
			if (pc->n_addr != 0 || pc->name[0] != '\0' || pc->mtu != 0) {
				GUFC_LOG(ERR, "port %u is configured but does not exist", p);
				return -ENODEV;
			}
			continue;
		}
		/* The device's (a VLAN sub-interface's: its parent's) routing MTU. */
		dev = app->ports[p].dev;
		if (app->cfg.port[dev].mtu != 0)
			dev_mtu = app->cfg.port[dev].mtu;
		else if (rte_eth_dev_get_mtu(dev, &dev_mtu) != 0 || dev_mtu < GUFC_MTU_MIN)
			dev_mtu = RTE_ETHER_MTU;
		mtu = pc->mtu != 0 ? pc->mtu : dev_mtu;
		if (app->ports[p].vlan && mtu > dev_mtu) {
			/* As Linux refuses a VLAN device an MTU over its parent's. */
			GUFC_LOG(ERR, "port %u: mtu %u: over its parent's (port %u: mtu %u); nothing "
				"started", p, mtu, dev, dev_mtu);
			return -EINVAL;
		}
		app->ports[p].mtu = mtu;
		for (unsigned int i = 0; i < pc->n_addr; i++) {
			struct lex_prefix h;

			if (pc->addr[i].family == LEX_AF_INET6 && mtu < 1280) {
				GUFC_LOG(ERR, "port %u: IPv6 needs an MTU of 1280 at least (%u)", p, mtu);
				return -EINVAL;
			}
			host_of(&pc->addr[i], &h);
			rc = fc_locals_add(app->locals, h.family, h.addr, h.len);
			if (rc != 0 && rc != -EEXIST) {
				GUFC_LOG(ERR, "port %u: local address: %s", p, strerror(-rc));
				return rc;
			}
		}
	}
	if (app->cfg.set.mode != GUFC_MODE_ROUTER)
		return 0;
	rc = neigh_create(app);
	return rc != 0 ? rc : local_chan_create(app);
}

int
gufc_router_routes(struct gufc_app *app)
{
	char b[LEX_PREFIX_STRLEN];
	struct gufc_route r;
	int rc;

	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		for (unsigned int i = 0; app->ports[p].used && i < app->cfg.port[p].n_addr; i++) {
			if (!connected_of(&app->cfg.port[p].addr[i], p, &r))
				continue;
			rc = gufc_ctl_route_apply(app, &r, true);
			if (rc != 0) {
				lex_prefix_format(&r.pfx, b, sizeof(b));
				GUFC_LOG(ERR, "connected route %s port %u: %s", b, p, strerror(-rc));
				return rc;
			}
		}
	for (unsigned int i = 0; i < app->cfg.n_routes; i++) {
		const struct gufc_route *cr = &app->cfg.routes[i];

		lex_prefix_format(&cr->pfx, b, sizeof(b));
		if (!app->ports[cr->port].used) {
			GUFC_LOG(ERR, "route %s: port %u does not exist", b, cr->port);
			return -ENODEV;
		}
		rc = gufc_ctl_route_apply(app, cr, true);
		if (rc != 0) {
			GUFC_LOG(ERR, "route %s port %u: %s", b, cr->port, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
gufc_router_dp(const struct gufc_app *app, struct dp_ctx *c)
{
	uint32_t rate = app->cfg.set.icmp_rate;

	/* ICMP errors' budget: the router's and REJECT's (either mode). */
	c->icmp.rate = rate;
	c->icmp.burst = rate / 20 > 0 ? rate / 20 : 1;
	if (app->neigh == NULL)
		return;
	c->neigh = app->neigh;
	c->local_chan = app->local_chan;
	__atomic_store_n(&c->router, app->cfg.set.mode == GUFC_MODE_ROUTER, __ATOMIC_RELEASE);
}

/* Rules lcore: the switch itself (gufc_ctl_mode()). */
static int
mode_fn(struct gufc_app *app, void *arg)
{
	struct gufc_mode_arg *ma = arg;
	bool on = ma->mode == GUFC_MODE_ROUTER;
	int rc;

	if (app->cfg.set.mode == ma->mode)
		return 0;
	if (on && app->neigh == NULL) {
		rc = neigh_create(app);
		if (rc != 0) {
			mod_neigh_free(app->neigh);
			app->neigh = NULL;
			return rc;
		}
	} else if (on) {
		/* Back to router mode: the ports announce themselves again. */
		for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
			if (app->ports[p].used)
				(void)mod_neigh_port_set(app->neigh, p, app->ports[p].mac.addr_bytes,
					app->ports[p].mtu);
	}
	rc = mod_route_router_set(app->route, on);
	if (rc != 0)
		return rc;
	/* Forwarded walks see the router's decrement, or not (no class table: per packet). */
	(void)rule_engine_router_set(app->eng, on);
	app->cfg.set.mode = ma->mode;
	/* The neighbour pointer first, the flag after it (release): RX lcores read them per burst. */
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (app->lc[i] != NULL) {
			gufc_router_dp(app, &app->lc[i]->rx_dp);
			gufc_router_dp(app, &app->lc[i]->slow_dp);
		}
	/* Packets that waited for a next hop go (neigh_failed); cached flows set up again. */
	if (!on)
		mod_neigh_flush(app->neigh);
	ma->flushed = rule_engine_flush(app->eng);
	return 0;
}

int
gufc_ctl_mode(struct gufc_app *app, enum gufc_mode mode, unsigned int *flushed)
{
	struct gufc_mode_arg ma = { .mode = mode };
	bool made = false;
	int rc;

	*flushed = 0;
	if (mode == GUFC_MODE_ROUTER && app->neigh == NULL) {
		made = chan_lookup(app->chans, GUFC_LOCAL_CHAN) < 0;
		rc = local_chan_create(app);
		if (rc != 0)
			return rc;
	}
	rc = gufc_ctl_call(app, mode_fn, &ma);
	if (rc != 0 && made) /* nothing half-applied */
		(void)chan_delete(app->chans, app->local_chan);
	*flushed = ma.flushed;
	return rc;
}

void
gufc_router_fini(struct gufc_app *app)
{
	mod_neigh_free(app->neigh);
	app->neigh = NULL;
}

/* ------------------------------------------------------------------------ */
/* Run time (control client and rules lcore)                                 */
/* ------------------------------------------------------------------------ */

struct port_addr_arg {
	uint16_t port;
	const struct lex_prefix *a;
	bool add;
};

static int
port_addr_fn(struct gufc_app *app, void *arg)
{
	const struct port_addr_arg *pa = arg;
	struct gufc_port_cfg *pc = &app->cfg.port[pa->port];
	const struct lex_prefix *a = pa->a;
	unsigned int alen = lex_af_len(a->family);
	struct lex_prefix h;
	struct gufc_route r;
	const char *why;
	unsigned int i;
	int rc;

	host_of(a, &h);
	if (pa->add) {
		rc = gufc_port_addr_check(&app->cfg, pa->port, a, &why);
		if (rc != 0)
			return rc;
		if (app->neigh != NULL) {
			rc = mod_neigh_port_addr_add(app->neigh, pa->port, a->family, a->addr, a->len);
			if (rc != 0)
				return rc;
		}
		rc = fc_locals_add(app->locals, h.family, h.addr, h.len);
		if (rc != 0 && rc != -EEXIST) {
			if (app->neigh != NULL)
				mod_neigh_port_addr_del(app->neigh, pa->port, a->family, a->addr);
			return rc;
		}
		/* A route of the user's to that prefix stays. */
		if (connected_of(a, pa->port, &r) && gufc_ctl_route_apply(app, &r, true) != 0)
			GUFC_LOG(WARNING, "port %u: no connected route for the new address", pa->port);
		pc->addr[pc->n_addr++] = *a;
		return 0;
	}
	for (i = 0; i < pc->n_addr; i++)
		if (pc->addr[i].family == a->family && memcmp(pc->addr[i].addr, a->addr, alen) == 0)
			break;
	if (i == pc->n_addr)
		return -ENOENT;
	if (app->neigh != NULL)
		mod_neigh_port_addr_del(app->neigh, pa->port, a->family, a->addr);
	fc_locals_del(app->locals, h.family, h.addr, h.len);
	if (connected_of(&pc->addr[i], pa->port, &r)) {
		struct mod_route_info ri;
		uint32_t it = 0;

		/* Only the connected route it made goes (not one the user gave since). */
		while (mod_route_next(app->route, &it, &ri) == 0)
			if ((ri.flags & MOD_ROUTE_F_CONNECTED) && ri.family == r.pfx.family &&
				ri.depth == r.pfx.len && ri.nh.port == pa->port &&
				memcmp(ri.addr, r.pfx.addr, alen) == 0) {
				gufc_ctl_route_apply(app, &r, false);
				break;
			}
	}
	memmove(&pc->addr[i], &pc->addr[i + 1], sizeof(pc->addr[0]) * (pc->n_addr - i - 1));
	pc->n_addr--;
	return 0;
}

int
gufc_ctl_port_addr(struct gufc_app *app, uint16_t port, const struct lex_prefix *a, bool add)
{
	struct port_addr_arg pa = { .port = port, .a = a, .add = add };

	if (port >= GUFC_MAX_PORTS || !app->ports[port].used)
		return -ENODEV;
	return gufc_ctl_call(app, port_addr_fn, &pa);
}

struct port_name_arg {
	uint16_t port;
	const char *name;
};

static int
port_name_fn(struct gufc_app *app, void *arg)
{
	const struct port_name_arg *pn = arg;

	snprintf(app->cfg.port[pn->port].name, sizeof(app->cfg.port[0].name), "%s", pn->name);
	return 0;
}

int
gufc_ctl_port_name(struct gufc_app *app, uint16_t port, const char *name)
{
	struct port_name_arg pn = { .port = port, .name = name };
	const char *why;

	if (port >= GUFC_MAX_PORTS || !app->ports[port].used)
		return -ENODEV;
	if (gufc_port_name_check(name, &why) != 0)
		return -EINVAL;
	if (gufc_port_by_name(&app->cfg, name) >= 0 &&
		gufc_port_by_name(&app->cfg, name) != port)
		return -EEXIST;
	return gufc_ctl_call(app, port_name_fn, &pn);
}

int
gufc_port_by_name(const struct gufc_config *cfg, const char *name)
{
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		if (cfg->port[p].name[0] != '\0' && strcmp(cfg->port[p].name, name) == 0)
			return p;
	return -ENOENT;
}

struct port_mtu_arg {
	uint16_t port;
	uint16_t mtu;
};

static int
port_mtu_fn(struct gufc_app *app, void *arg)
{
	const struct port_mtu_arg *pm = arg;
	int rc = 0;

	if (app->neigh != NULL)
		rc = mod_neigh_port_set(app->neigh, pm->port, app->ports[pm->port].mac.addr_bytes,
			pm->mtu);
	if (rc == 0) {
		app->ports[pm->port].mtu = pm->mtu;
		app->cfg.port[pm->port].mtu = pm->mtu;
	}
	return rc;
}

int
gufc_ctl_port_mtu(struct gufc_app *app, uint16_t port, uint16_t mtu, char *why, size_t n)
{
	struct port_mtu_arg pm = { .port = port, .mtu = mtu };
	uint16_t prev;
	int rc;

	why[0] = '\0';
	if (port >= GUFC_MAX_PORTS || !app->ports[port].used)
		return -ENODEV;
	if (mtu < GUFC_MTU_MIN || mtu > GUFC_MTU_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < app->cfg.port[port].n_addr; i++)
		if (app->cfg.port[port].addr[i].family == LEX_AF_INET6 && mtu < 1280)
			return -ERANGE;
	/* A VLAN sub-interface: no device of its own; at most its parent's MTU. */
	if (app->ports[port].vlan) {
		if (mtu > app->ports[app->ports[port].dev].mtu) {
			snprintf(why, n, "over its parent's MTU (port %u: %u)", app->ports[port].dev,
				app->ports[app->ports[port].dev].mtu);
			return -EINVAL;
		}
		return gufc_ctl_call(app, port_mtu_fn, &pm);
	}
	/* The device first (what the config's line does at start), then routing. */
	rc = gufc_port_dev_mtu(app, port, mtu, &prev, why, n);
	if (rc != 0)
		return rc;
	rc = gufc_ctl_call(app, port_mtu_fn, &pm);
	if (rc != 0) {
		uint16_t back;
		char ignored[8];

		/* Nothing half-applied: the device's MTU as it was. */
		(void)gufc_port_dev_mtu(app, port, prev, &back, ignored, sizeof(ignored));
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Collectors                                                                */
/* ------------------------------------------------------------------------ */

/* On the rules lcore; once it is gone (the summary, the JSON at exit) directly. */
static int
rules_call(struct gufc_app *app, gufc_ctl_fn fn, void *arg)
{
	if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) == GUFC_PHASE_DONE)
		return fn(app, arg);
	return gufc_ctl_call(app, fn, arg);
}

static int
ports_fn(struct gufc_app *app, void *arg)
{
	struct gufc_port_cfg *pc = arg;

	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		pc[p] = app->cfg.port[p];
		pc[p].mtu = app->ports[p].mtu;
	}
	return 0;
}

int
gufc_collect_ports(struct gufc_app *app, struct gufc_port_cfg *pc)
{
	return rules_call(app, ports_fn, pc);
}

struct neigh_rows_arg {
	struct mod_neigh_info *rows;
	unsigned int n;
	unsigned int max;
};

static int
neigh_rows_fn(struct gufc_app *app, void *arg)
{
	struct neigh_rows_arg *a = arg;
	uint32_t it = 0, now = gufc_now_ms(app);

	while (a->n < a->max && mod_neigh_next(app->neigh, &it, now, &a->rows[a->n]) == 0)
		a->n++;
	return 0;
}

int
gufc_collect_neighbours(struct gufc_app *app, struct mod_neigh_info **rows, unsigned int *n,
	unsigned int max)
{
	struct neigh_rows_arg a = { .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	if (app->neigh == NULL)
		return 0;
	a.rows = calloc(max ? max : 1, sizeof(*a.rows));
	if (a.rows == NULL)
		return -ENOMEM;
	rc = rules_call(app, neigh_rows_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}

struct route_rows_arg {
	struct gufc_route_row *rows;
	unsigned int n;
	unsigned int max;
};

/* Table @p id's routes into @p a (while there is room). */
static void
route_rows_table(struct gufc_app *app, struct route_rows_arg *a, uint32_t id)
{
	const char *nm = mod_route_table_name(app->route, id);
	uint32_t it = 0;

	while (a->n < a->max &&
		mod_route_table_route_next(app->route, id, &it, &a->rows[a->n].ri) == 0) {
		a->rows[a->n].table = id;
		snprintf(a->rows[a->n].name, sizeof(a->rows[a->n].name), "%s", nm != NULL ? nm : "");
		a->n++;
	}
}

static int
route_rows_fn(struct gufc_app *app, void *arg)
{
	struct route_rows_arg *a = arg;
	uint32_t it = 0, id;

	route_rows_table(app, a, MOD_ROUTE_TABLE_MAIN);
	while (mod_route_table_next(app->route, &it, &id, NULL) == 0)
		route_rows_table(app, a, id);
	return 0;
}

int
gufc_collect_route_rows(struct gufc_app *app, struct gufc_route_row **rows, unsigned int *n,
	unsigned int max)
{
	struct route_rows_arg a = { .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	a.rows = calloc(max ? max : 1, sizeof(*a.rows));
	if (a.rows == NULL)
		return -ENOMEM;
	rc = rules_call(app, route_rows_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}
