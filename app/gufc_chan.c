/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_chan.c — channels, the control layer's part (gufc_ctl.h): the
 * one channel grammar the config file and the shell parse with, the one
 * builder of pcap paths, the channel table at start (configured channels,
 * one TX channel per port, each input port's default channel, the per-flow
 * pool), channels created and deleted at run time, and the channels a rule
 * set names, created before it is committed.
 *
 * Context: main lcore; what only the rules lcore may read goes through
 * gufc_ctl_call().
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "gufc_ctl.h"

/** Rings a perflow channel adds to the pool when the config gives no count. */
#define CHAN_PERFLOW_POOL_DEFAULT 256
/** The channel table: named channels plus one TX channel per port. */
#define CHAN_TABLE_MAX (64 + GUFC_MAX_PORTS)

/* ------------------------------------------------------------------------ */
/* Grammar                                                                   */
/* ------------------------------------------------------------------------ */

static int
chan_err(struct gufc_chan_err *e, unsigned int word, unsigned int off, unsigned int len,
	const char *msg)
{
	e->word = word;
	e->off = off;
	e->len = len;
	e->msg = msg;
	return -EINVAL;
}

static bool
name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > CHAN_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

/* A number that is part [off, off+len) of word @p i. */
static int
number(const struct lex_tok *w, unsigned int i, unsigned int off, size_t len, uint32_t max,
	uint32_t *v, struct gufc_chan_err *e)
{
	struct lex_fault f;

	if (lex_u32(w[i].s + off, len, max, LEX_NUM_C, v, &f) == 0)
		return 0;
	return chan_err(e, i, off, (unsigned int)len, lex_code_text(f.code));
}

/* TX: "PORT[:QUEUE]" at word @p i. */
static int
tx_arg(const struct lex_tok *w, unsigned int i, struct gufc_chan_cfg *c, struct gufc_chan_err *e)
{
	const char *s = w[i].s;
	const char *colon = strchr(s, ':');
	size_t plen = colon != NULL ? (size_t)(colon - s) : strlen(s);
	uint32_t v;
	int rc;

	if (colon != NULL) {
		unsigned int off = (unsigned int)(colon - s) + 1;

		rc = number(w, i, off, strlen(colon + 1), GUFC_MAX_RXQ * 4, &v, e);
		if (rc != 0)
			return rc;
		c->tx_queue = (uint16_t)v;
		c->tx_queue_set = true;
	}
	rc = number(w, i, 0, plen, GUFC_MAX_PORTS - 1, &v, e);
	if (rc != 0)
		return rc;
	c->tx_port = (uint16_t)v;
	return 0;
}

int
gufc_chan_parse(const struct lex_tok *w, unsigned int n, unsigned int first,
	struct gufc_chan_cfg *c, struct gufc_chan_err *e)
{
	unsigned int i = first;
	uint32_t v;
	int kind, rc;

	memset(c, 0, sizeof(*c));
	if (first == 0)
		return chan_err(e, 0, 0, 0, "missing channel name");
	if (n <= first)
		return chan_err(e, first - 1, 0, 0, "missing channel name");
	if (!name_ok(w[i].s))
		return chan_err(e, i, 0, 0, "bad channel name (1..16 of A-Z a-z 0-9 _ - .)");
	snprintf(c->name, sizeof(c->name), "%s", w[i].s);
	if (n <= i + 1 || strcmp(w[i + 1].s, "kind") != 0)
		return chan_err(e, n <= i + 1 ? i : i + 1, 0, 0, "expected 'kind'");
	i += 2;
	if (n <= i)
		return chan_err(e, i - 1, 0, 0, "missing channel kind (discard|pcap|tx|app)");
	kind = chan_kind_parse(w[i].s);
	if (kind < 0)
		return chan_err(e, i, 0, 0, "unknown channel kind (discard|pcap|tx|app)");
	c->kind = (enum chan_cons_kind)kind;
	i++;
	if (c->kind == CHAN_CONS_PCAP) {
		if (n <= i)
			return chan_err(e, i - 1, 0, 0, "missing pcap file");
		if (w[i].s[0] == '\0')
			return chan_err(e, i, 0, 0, "empty file name");
		if (strlen(w[i].s) >= sizeof(c->pcap))
			return chan_err(e, i, 0, 0, "file name too long");
		snprintf(c->pcap, sizeof(c->pcap), "%s", w[i].s);
		i++;
	} else if (c->kind == CHAN_CONS_TX) {
		if (n <= i)
			return chan_err(e, i - 1, 0, 0, "missing PORT[:QUEUE]");
		rc = tx_arg(w, i, c, e);
		if (rc != 0)
			return rc;
		i++;
	}
	while (i < n) {
		if (strcmp(w[i].s, "size") == 0) {
			if (n <= i + 1)
				return chan_err(e, i, 0, 0, "missing ring size");
			rc = number(w, i + 1, 0, strlen(w[i + 1].s), CHAN_RING_SIZE_MAX, &v, e);
			if (rc != 0)
				return rc;
			if (v < CHAN_RING_SIZE_MIN || (v & (v - 1)) != 0)
				return chan_err(e, i + 1, 0, 0, "ring size must be a power of two");
			c->size = v;
			i += 2;
		} else if (strcmp(w[i].s, "perflow") == 0) {
			c->perflow = true;
			i++;
			/* An optional count: rings this channel adds to the shared pool. */
			if (i < n && isdigit((unsigned char)w[i].s[0])) {
				rc = number(w, i, 0, strlen(w[i].s), CHAN_FLOW_POOL_MAX, &v, e);
				if (rc != 0)
					return rc;
				if (v == 0)
					return chan_err(e, i, 0, 0, "per-flow pool must be 1..4194304");
				c->perflow_pool = v;
				i++;
			}
		} else {
			return chan_err(e, i, 0, 0, "unexpected token");
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Provisioning                                                              */
/* ------------------------------------------------------------------------ */

int
gufc_chan_pcap_path(const struct gufc_config *cfg, const char *file, char *out, size_t len)
{
	int n;

	if (file[0] != '/' && cfg->pcap_dir[0] != '\0')
		n = snprintf(out, len, "%s/%s", cfg->pcap_dir, file);
	else
		n = snprintf(out, len, "%s", file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The channel's parameters; @p path receives a pcap channel's file. */
static int
chan_params(const struct gufc_app *app, const struct gufc_chan_cfg *c, struct chan_params *p,
	char *path, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->name = c->name;
	p->kind = c->kind;
	p->ring_size = c->size ? c->size : app->cfg.set.channel_size;
	if (c->kind == CHAN_CONS_PCAP) {
		if (gufc_chan_pcap_path(&app->cfg, c->pcap, path, len) != 0)
			return -ENAMETOOLONG;
		p->pcap_path = path;
	}
	p->tx_port = c->tx_port;
	p->tx_queue = c->tx_queue;
	/* A VLAN sub-interface: its parent's queue, tagged. */
	if (c->kind == CHAN_CONS_TX && c->tx_port < GUFC_MAX_PORTS && app->ports[c->tx_port].vlan) {
		p->tx_port = app->ports[c->tx_port].dev;
		p->tx_vlan = app->ports[c->tx_port].vid;
	}
	return 0;
}

void
gufc_chan_txq_plan(struct gufc_app *app)
{
	for (unsigned int i = 0; i < app->cfg.n_chans; i++) {
		const struct gufc_chan_cfg *c = &app->cfg.chans[i];

		/* (a VLAN sub-interface's queues are its parent's) */
		uint16_t dev = c->tx_port < GUFC_MAX_PORTS && app->cfg.port[c->tx_port].vid != 0 ?
			app->cfg.port[c->tx_port].parent : c->tx_port;

		if (c->kind == CHAN_CONS_TX && c->tx_queue + 1u > app->ports[dev].n_txq)
			app->ports[dev].n_txq = (uint16_t)(c->tx_queue + 1);
	}
}

static bool
port_exists(const struct gufc_app *app, uint16_t port)
{
	return port < GUFC_MAX_PORTS && app->ports[port].used;
}

/*
 * A TX channel on a port without the RX lcores' own TX queues (direct TX)
 * goes through its ring: the RX lcores consume it too (gufc_consume_tx()).
 */
static void
ring_tx_note(struct gufc_app *app, enum chan_cons_kind kind, uint16_t port, int id)
{
	if (port_exists(app, port))
		port = app->ports[port].dev;
	if (kind != CHAN_CONS_TX || id < 0 || !port_exists(app, port) ||
		app->ports[port].direct_base != 0 || app->n_ring_tx >= RTE_DIM(app->ring_tx))
		return;
	app->ring_tx[app->n_ring_tx++] = (uint16_t)id;
}

int
gufc_chan_init(struct gufc_app *app)
{
	struct chan_table_params tp;
	char path[GUFC_PATH_MAX * 2];
	unsigned int perflow = 0;
	int rc;

	for (unsigned int i = 0; i < app->cfg.n_chans; i++) {
		const struct gufc_chan_cfg *c = &app->cfg.chans[i];

		if (c->kind == CHAN_CONS_TX && !port_exists(app, c->tx_port)) {
			GUFC_LOG(ERR, "channel '%s': port %u does not exist", c->name, c->tx_port);
			return -ENODEV;
		}
	}
	app->n_ring_tx = 0;
	memset(&tp, 0, sizeof(tp));
	tp.max_channels = CHAN_TABLE_MAX;
	tp.socket_id = (int)rte_socket_id();
	tp.def.name = CHAN_DEFAULT_NAME;
	tp.def.kind = CHAN_CONS_DISCARD;
	tp.def.ring_size = app->cfg.set.channel_size;
	tp.flow_ring_size = app->cfg.set.perflow_ring;
	for (unsigned int i = 0; i < app->cfg.n_chans; i++) {
		const struct gufc_chan_cfg *c = &app->cfg.chans[i];

		if (c->perflow)
			perflow += c->perflow_pool ? c->perflow_pool : CHAN_PERFLOW_POOL_DEFAULT;
		if (strcmp(c->name, CHAN_DEFAULT_NAME) == 0) {
			rc = chan_params(app, c, &tp.def, path, sizeof(path));
			if (rc != 0) {
				GUFC_LOG(ERR, "channel '%s': %s", c->name, strerror(-rc));
				return rc;
			}
			app->def_chan_configured = true;
		}
	}
	/* The perflow counts are made at start; the pool grows on demand up to
	 * perflow-max (or what they add up to, if more). */
	tp.flow_pool_size = RTE_MIN(perflow, (unsigned int)CHAN_FLOW_POOL_MAX);
	tp.flow_pool_max = perflow == 0 ? 0 : RTE_MAX(tp.flow_pool_size, app->cfg.set.perflow_max);
	app->chan_flow_pool = tp.flow_pool_max;
	app->chans = chan_table_create(&tp);
	if (app->chans == NULL) {
		GUFC_LOG(ERR, "channel table: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (unsigned int i = 0; i < app->cfg.n_chans; i++) {
		const struct gufc_chan_cfg *c = &app->cfg.chans[i];
		struct chan_params p;

		if (strcmp(c->name, CHAN_DEFAULT_NAME) == 0) {
			if (c->perflow)
				app->chan_perflow[CHAN_ID_DEFAULT] = true;
			ring_tx_note(app, c->kind, c->tx_port, CHAN_ID_DEFAULT);
			continue;
		}
		rc = chan_params(app, c, &p, path, sizeof(path));
		if (rc == 0)
			rc = chan_create(app->chans, &p);
		if (rc < 0) {
			GUFC_LOG(ERR, "channel '%s': %s", c->name, strerror(-rc));
			return rc;
		}
		if (c->perflow && rc < (int)RTE_DIM(app->chan_perflow))
			app->chan_perflow[rc] = true;
		ring_tx_note(app, c->kind, c->tx_port, rc);
	}
	/* One TX channel per port (queue 0): routes and default forwarding use them. */
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		struct chan_params p;
		char name[CHAN_NAMESIZE];

		app->port_chan[pid] = DP_CHAN_NONE;
		if (!app->ports[pid].used)
			continue;
		snprintf(name, sizeof(name), "tx-port%u", pid);
		memset(&p, 0, sizeof(p));
		p.name = name;
		p.kind = CHAN_CONS_TX;
		p.ring_size = app->cfg.set.channel_size;
		p.tx_port = app->ports[pid].dev;
		p.tx_queue = 0;
		p.tx_vlan = app->ports[pid].vlan ? app->ports[pid].vid : 0;
		rc = chan_create(app->chans, &p);
		if (rc < 0) {
			GUFC_LOG(ERR, "channel '%s': %s", name, strerror(-rc));
			return rc;
		}
		app->port_chan[pid] = (uint16_t)rc;
		ring_tx_note(app, CHAN_CONS_TX, pid, rc);
	}
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++)
		app->def_chan[pid] = app->def_chan_configured || !app->ports[pid].used ?
			CHAN_ID_DEFAULT :
			app->port_chan[app->ports[pid].pair];
	return 0;
}

int
gufc_chan_add(struct gufc_app *app, const struct gufc_chan_cfg *c)
{
	char path[GUFC_PATH_MAX * 2];
	struct chan_params p;
	int rc;

	if (c->kind == CHAN_CONS_TX) {
		if (!port_exists(app, c->tx_port))
			return -ENODEV;
		if (c->tx_queue >= app->ports[app->ports[c->tx_port].dev].n_txq)
			return -ERANGE;
	}
	if (c->perflow && c->perflow_pool != 0)
		return -ENOTSUP;
	if (c->perflow && app->chan_flow_pool == 0)
		return -ENOSPC;
	rc = chan_params(app, c, &p, path, sizeof(path));
	if (rc != 0)
		return rc;
	rc = chan_create(app->chans, &p);
	if (rc >= 0 && c->perflow && rc < (int)RTE_DIM(app->chan_perflow))
		app->chan_perflow[rc] = true;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Deletion                                                                  */
/* ------------------------------------------------------------------------ */

/* Does a rule of @p s name channel @p name? */
static bool
set_names_channel(const struct rule_set *s, const char *name, uint32_t *rule_id)
{
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++)
		for (unsigned int ch = 0; ch < rule_set_chain_count(s, t); ch++) {
			const struct rule_chain *chain = rule_set_chain_at(s, t, ch);

			for (uint32_t i = 0; i < chain->n_rules; i++)
				if (strcmp(chain->rules[i].channel, name) == 0) {
					*rule_id = chain->rules[i].id;
					return true;
				}
		}
	return false;
}

struct del_arg {
	uint16_t id;
	const char *name;
	struct gufc_chan_busy *busy;
};

/* Rules lcore: does a committed rule or a cached flow use the channel? */
static int
in_use_fn(struct gufc_app *app, void *arg)
{
	struct del_arg *a = arg;
	struct rule_flow_info fi;
	uint64_t it = 0;

	if (set_names_channel(rule_engine_rules(app->eng), a->name, &a->busy->rule_id)) {
		a->busy->why = GUFC_CHAN_BUSY_RULE;
		return -EBUSY;
	}
	while (rule_engine_flow_next(app->eng, &it, NULL, &fi) == 0)
		if (fi.act.channel == a->id) {
			a->busy->why = GUFC_CHAN_BUSY_FLOWS;
			return -EBUSY;
		}
	return 0;
}

static int
delete_fn(struct gufc_app *app, void *arg)
{
	const struct del_arg *a = arg;

	return chan_delete(app->chans, a->id);
}

/*
 * Wait until every other RX lcore finished the burst it may be in (its
 * loop counter moved on twice), so that none holds a flow action naming a
 * channel no entry names any more. @return 0, or -EBUSY after a second.
 */
static int
rx_grace(struct gufc_app *app)
{
	uint64_t seen[GUFC_MAX_RX_LCORES];
	uint64_t deadline = rte_get_tsc_cycles() + app->hz;
	unsigned int me = rte_lcore_id();

	for (unsigned int i = 0; i < app->n_rx; i++)
		seen[i] = __atomic_load_n(&app->rx[i]->st.loops, __ATOMIC_ACQUIRE);
	for (unsigned int i = 0; i < app->n_rx; i++) {
		const struct gufc_lcore *lc = app->rx[i];

		if (lc->lcore_id == me)
			continue;
		while (__atomic_load_n(&lc->st.loops, __ATOMIC_ACQUIRE) < seen[i] + 2 &&
			!__atomic_load_n(&lc->rx_done, __ATOMIC_ACQUIRE)) {
			if (rte_get_tsc_cycles() > deadline)
				return -EBUSY;
			rte_delay_us_sleep(100);
		}
	}
	return 0;
}

int
gufc_chan_del(struct gufc_app *app, const char *name, const struct rule_set *pending,
	struct gufc_chan_busy *busy)
{
	struct del_arg a = { .name = name, .busy = busy };
	int id, rc;

	memset(busy, 0, sizeof(*busy));
	id = chan_lookup(app->chans, name);
	if (id < 0)
		return -ENOENT;
	if (id == CHAN_ID_DEFAULT) {
		busy->why = GUFC_CHAN_BUSY_DEFAULT;
		return -EPERM;
	}
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		if (app->ports[p].used && app->port_chan[p] == id) {
			busy->why = GUFC_CHAN_BUSY_PORT;
			busy->port = p;
			return -EPERM;
		}
	if (set_names_channel(pending, name, &busy->rule_id)) {
		busy->why = GUFC_CHAN_BUSY_PENDING;
		return -EBUSY;
	}
	a.id = (uint16_t)id;
	rc = gufc_ctl_call(app, in_use_fn, &a);
	if (rc != 0)
		return rc;
	if (rx_grace(app) != 0) {
		busy->why = GUFC_CHAN_BUSY_RX;
		return -EBUSY;
	}
	rc = gufc_ctl_call(app, delete_fn, &a);
	if (rc == -EBUSY)
		busy->why = GUFC_CHAN_BUSY_CONSUMER;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Channels of a rule set                                                    */
/* ------------------------------------------------------------------------ */

int
gufc_channels_for_rules(struct gufc_app *app, const struct rule_set *set)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int c = 0; c < rule_set_chain_count(set, t); c++) {
			const struct rule_chain *ch = rule_set_chain_at(set, t, c);

			for (uint32_t i = 0; i < ch->n_rules; i++) {
				const char *name = ch->rules[i].channel;
				struct gufc_chan_cfg cc;
				struct chan_params p;
				char path[GUFC_PATH_MAX * 2];
				int rc;

				if (name[0] == '\0' || chan_lookup(app->chans, name) >= 0)
					continue;
				memset(&cc, 0, sizeof(cc));
				cc.kind = CHAN_CONS_DISCARD;
				if (app->cfg.pcap_dir[0] != '\0') {
					cc.kind = CHAN_CONS_PCAP;
					snprintf(cc.pcap, sizeof(cc.pcap), "%s.pcap", name);
				}
				rc = chan_params(app, &cc, &p, path, sizeof(path));
				p.name = name; /* chan_create() checks it */
				if (rc == 0)
					rc = chan_create(app->chans, &p);
				if (rc < 0) {
					GUFC_LOG(ERR, "channel '%s' named by rule %u: %s", name,
						ch->rules[i].id, strerror(-rc));
					return rc;
				}
				GUFC_LOG(INFO, "channel '%s' (named by rule %u): %s%s%s", name,
					ch->rules[i].id, chan_kind_name(p.kind),
					p.kind == CHAN_CONS_PCAP ? " " : "",
					p.kind == CHAN_CONS_PCAP ? path : "");
			}
		}
	}
	return 0;
}

int
gufc_chan_commit(struct gufc_app *app, struct rule_set *set)
{
	int rc;

	if (set == NULL)
		return -EINVAL;
	rc = gufc_channels_for_rules(app, set);
	if (rc != 0) {
		rule_set_free(set);
		return rc;
	}
	return gufc_ctl_commit(app, set);
}
