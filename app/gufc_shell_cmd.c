/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_cmd.c — shell commands that change things: rule edits on a
 * pending copy-on-write rule set and its atomic commit, channels, local
 * addresses, routes, flushing the flow cache, log levels.
 *
 * Every command parses all of its words first and names the first bad one;
 * only then does it call the control API, which is all or nothing itself
 * (rule_set_* edits, gufc_ctl_commit, gufc_ctl_route, chan_create...).
 * What only the rules lcore may touch goes through gufc_ctl_call().
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "gufc_shell_priv.h"

/** Uncommitted edits: a copy of the committed set (NULL: none). Owner: main lcore. */
static struct rule_set *pending;

const struct rule_set *
sh_pending(void)
{
	return pending;
}

void
sh_pending_free(void)
{
	rule_set_free(pending);
	pending = NULL;
}

/* Rules lcore: clone the committed set. */
static int
clone_committed(struct gufc_app *app, void *arg)
{
	struct rule_set **out = arg;

	*out = rule_set_clone(rule_engine_rules(app->eng));
	return *out == NULL ? -ENOMEM : 0;
}

/* The set edits go to: the pending one, made from the committed set on first use. */
static int
working_set(struct sh_ctx *c, struct rule_set **s)
{
	int rc;

	if (pending == NULL) {
		rc = gufc_ctl_call(c->app, clone_committed, &pending);
		if (rc != 0)
			return sh_err(c, rc, NULL, "cannot copy the rule set: %s", strerror(-rc));
	}
	*s = pending;
	return 0;
}

static int
parse_rule(struct sh_ctx *c, const char *text, struct rule *r)
{
	struct rule_error err;

	if (*text == '\0')
		return sh_err(c, -EINVAL, NULL, "missing rule (e.g. 'drop proto udp dport 53')");
	memset(&err, 0, sizeof(err));
	if (rule_parse(text, r, &err) != 0)
		return sh_err(c, -EINVAL, err.token[0] ? err.token : NULL, "rule: %s", err.msg);
	return 0;
}

/* Explain an error of rule_set_rule_add()/replace() naming the token at fault. */
static int
edit_error(struct sh_ctx *c, int rc, const struct rule *r, const char *chain_tok)
{
	const char *msg = NULL;

	switch (rc) {
	case -ENOENT:
		if (chain_tok != NULL)
			return sh_err(c, rc, chain_tok, "no such chain");
		return sh_err(c, rc, r->chain[0] ? r->chain : NULL, "no such chain");
	case -ELOOP:
		return sh_err(c, rc, r->chain, "chain loop or nesting too deep");
	case -EINVAL:
		if (rule_check(r, &msg) != 0)
			return sh_err(c, rc, NULL, "rule: %s", msg);
		return sh_err(c, rc, rule_action_name(r->action),
			"action not allowed in this table or hook");
	default:
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	}
}

static int
rule_add(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	const char *chain_tok = NULL;
	const char *chain;
	struct rule_set *s = NULL;
	enum rule_table table;
	uint32_t pos = RULE_POS_END, id;
	unsigned int i = 2;
	struct rule r;
	int rc;

	while (i < l->n) {
		if (strcmp(l->tok[i], "chain") == 0) {
			if (i + 1 >= l->n)
				return sh_err(c, -EINVAL, l->tok[i], "missing chain name");
			chain_tok = l->tok[i + 1];
			i += 2;
		} else if (strcmp(l->tok[i], "pos") == 0) {
			if (i + 1 >= l->n)
				return sh_err(c, -EINVAL, l->tok[i], "missing position");
			if (sh_u32(l->tok[i + 1], &pos) != 0 || pos == 0)
				return sh_err(c, -EINVAL, l->tok[i + 1],
					"position: a number from 1 (first)");
			pos--;
			i += 2;
		} else {
			break;
		}
	}
	rc = parse_rule(c, sh_rest(l, i), &r);
	if (rc != 0)
		return rc;
	chain = rule_default_chain(&r, &table);
	rc = working_set(c, &s);
	if (rc != 0)
		return rc;
	if (chain_tok != NULL) {
		chain = chain_tok;
		/* A user chain of the other table: take that table. */
		if (rule_set_chain_find(s, table, chain) == NULL) {
			enum rule_table other = table == RULE_TABLE_FILTER ? RULE_TABLE_NAT :
									       RULE_TABLE_FILTER;

			if (rule_set_chain_find(s, other, chain) == NULL)
				return sh_err(c, -ENOENT, chain_tok, "no such chain");
			table = other;
		}
	}
	rc = rule_set_rule_add(s, table, chain, pos, &r, &id);
	if (rc != 0)
		return edit_error(c, rc, &r, chain_tok);
	rule_set_rule_find(s, id, NULL, NULL, &pos);
	fprintf(c->out, "rule %u added to %s/%s at position %u (pending: 'commit' applies)\n", id,
		rule_table_name(table), chain, pos + 1);
	return 0;
}

static int
rule_id_arg(struct sh_ctx *c, unsigned int i, uint32_t *id)
{
	if (i >= c->l->n)
		return sh_err(c, -EINVAL, c->l->tok[i - 1], "missing rule id");
	if (sh_u32(c->l->tok[i], id) != 0 || *id == RULE_ID_NONE)
		return sh_err(c, -EINVAL, c->l->tok[i], "rule id: a number from 1");
	return 0;
}

static int
rule_del(struct sh_ctx *c)
{
	struct rule_set *s = NULL;
	uint32_t id;
	int rc;

	rc = rule_id_arg(c, 2, &id);
	if (rc != 0)
		return rc;
	if (c->l->n > 3)
		return sh_err(c, -EINVAL, c->l->tok[3], "unexpected word");
	rc = working_set(c, &s);
	if (rc != 0)
		return rc;
	if (rule_set_rule_find(s, id, NULL, NULL, NULL) == NULL)
		return sh_err(c, -ENOENT, c->l->tok[2], "no rule with this id");
	rc = rule_set_rule_del_id(s, id);
	if (rc != 0)
		return sh_err(c, rc, c->l->tok[2], "%s", strerror(-rc));
	fprintf(c->out, "rule %u deleted (pending: 'commit' applies)\n", id);
	return 0;
}

static int
rule_replace(struct sh_ctx *c)
{
	struct rule_set *s = NULL;
	struct rule r;
	uint32_t id;
	int rc;

	rc = rule_id_arg(c, 2, &id);
	if (rc != 0)
		return rc;
	rc = parse_rule(c, sh_rest(c->l, 3), &r);
	if (rc != 0)
		return rc;
	rc = working_set(c, &s);
	if (rc != 0)
		return rc;
	if (rule_set_rule_find(s, id, NULL, NULL, NULL) == NULL)
		return sh_err(c, -ENOENT, c->l->tok[2], "no rule with this id");
	rc = rule_set_rule_replace(s, id, &r);
	if (rc != 0)
		return edit_error(c, rc, &r, NULL);
	fprintf(c->out, "rule %u replaced (pending: 'commit' applies)\n", id);
	return 0;
}

static int
rule_load(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct rule_error err;
	struct rule_set *s = NULL;
	char msg[512];
	bool ipt;

	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing format (native or iptables)");
	if (strcmp(l->tok[2], "native") == 0)
		ipt = false;
	else if (strcmp(l->tok[2], "iptables") == 0)
		ipt = true;
	else
		return sh_err(c, -EINVAL, l->tok[2], "format: native or iptables");
	if (l->n < 4)
		return sh_err(c, -EINVAL, l->tok[2], "missing file name");
	if (l->n > 4)
		return sh_err(c, -EINVAL, l->tok[4], "unexpected word");
	memset(&err, 0, sizeof(err));
	s = ipt ? rule_set_load_iptables(l->tok[3], &err) : rule_set_load(l->tok[3], &err);
	if (s == NULL) {
		rule_error_format(&err, msg, sizeof(msg));
		return sh_err(c, -EINVAL, NULL, "%s", msg);
	}
	sh_pending_free();
	pending = s;
	fprintf(c->out, "%u rules loaded from %s (pending: 'commit' applies)\n",
		rule_set_rule_count(s), l->tok[3]);
	return 0;
}

int
sh_cmd_rule(struct sh_ctx *c)
{
	const char *op = c->l->n > 1 ? c->l->tok[1] : NULL;
	bool fresh = pending == NULL;
	int rc;

	if (op == NULL)
		return sh_err(c, -EINVAL, c->l->tok[0], "missing add, del, replace or load");
	if (strcmp(op, "add") == 0)
		rc = rule_add(c);
	else if (strcmp(op, "del") == 0)
		rc = rule_del(c);
	else if (strcmp(op, "replace") == 0)
		rc = rule_replace(c);
	else if (strcmp(op, "load") == 0)
		rc = rule_load(c);
	else
		return sh_err(c, -EINVAL, op, "expected add, del, replace or load");
	/* A failed first edit leaves nothing pending (the copy it made goes). */
	if (rc != 0 && fresh)
		sh_pending_free();
	return rc;
}

int
sh_cmd_commit(struct sh_ctx *c)
{
	unsigned int n;
	int rc;

	if (c->l->n > 1)
		return sh_err(c, -EINVAL, c->l->tok[1], "commit takes no argument");
	if (pending == NULL) {
		fprintf(c->out, "nothing to commit\n");
		return 0;
	}
	n = rule_set_rule_count(pending);
	rc = gufc_ctl_commit(c->app, pending); /* takes the set, whatever the result */
	pending = NULL;
	if (rc != 0)
		return sh_err(c, rc, NULL, "commit failed: %s", strerror(-rc));
	fprintf(c->out, "committed: generation %u, %u rules\n",
		rule_engine_generation(c->app->eng), n);
	return 0;
}

int
sh_cmd_rollback(struct sh_ctx *c)
{
	if (c->l->n > 1)
		return sh_err(c, -EINVAL, c->l->tok[1], "rollback takes no argument");
	fprintf(c->out, "%s\n", pending ? "pending rule changes discarded" : "nothing pending");
	sh_pending_free();
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Channels                                                                  */
/* ------------------------------------------------------------------------ */

static int
channel_create(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	char path[GUFC_PATH_MAX * 2];
	struct chan_params p;
	unsigned int i;
	int kind, rc;

	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing channel name");
	if (strlen(l->tok[2]) > CHAN_NAME_MAX)
		return sh_err(c, -EINVAL, l->tok[2], "name longer than %u characters",
			CHAN_NAME_MAX);
	memset(&p, 0, sizeof(p));
	p.name = l->tok[2];
	p.ring_size = c->app->cfg.set.channel_size;
	if (l->n < 4 || strcmp(l->tok[3], "kind") != 0)
		return sh_err(c, -EINVAL, l->n < 4 ? l->tok[2] : l->tok[3], "expected 'kind'");
	if (l->n < 5)
		return sh_err(c, -EINVAL, l->tok[3], "missing kind (discard, pcap, tx, app)");
	kind = chan_kind_parse(l->tok[4]);
	if (kind < 0)
		return sh_err(c, -EINVAL, l->tok[4], "kind: discard, pcap, tx or app");
	p.kind = (enum chan_cons_kind)kind;
	i = 5;
	if (p.kind == CHAN_CONS_PCAP) {
		if (i >= l->n)
			return sh_err(c, -EINVAL, l->tok[4], "missing pcap file");
		if (l->tok[i][0] != '/' && c->app->cfg.pcap_dir[0] != '\0')
			snprintf(path, sizeof(path), "%s/%s", c->app->cfg.pcap_dir, l->tok[i]);
		else
			snprintf(path, sizeof(path), "%s", l->tok[i]);
		p.pcap_path = path;
		i++;
	} else if (p.kind == CHAN_CONS_TX) {
		uint32_t port, queue = 0;
		char *colon;

		if (i >= l->n)
			return sh_err(c, -EINVAL, l->tok[4], "missing PORT[:QUEUE]");
		colon = strchr(l->tok[i], ':');
		if (colon != NULL)
			*colon = '\0';
		rc = sh_u32(l->tok[i], &port);
		if (colon != NULL)
			*colon = ':';
		if (rc != 0 || port >= GUFC_MAX_PORTS || !c->app->ports[port].used)
			return sh_err(c, -ENODEV, l->tok[i], "no such port");
		if (colon != NULL && (sh_u32(colon + 1, &queue) != 0 ||
				queue >= c->app->ports[port].n_txq))
			return sh_err(c, -EINVAL, l->tok[i], "port %u has TX queues 0..%u", port,
				c->app->ports[port].n_txq - 1u);
		p.tx_port = (uint16_t)port;
		p.tx_queue = (uint16_t)queue;
		i++;
	}
	if (i < l->n && strcmp(l->tok[i], "size") == 0) {
		if (i + 1 >= l->n)
			return sh_err(c, -EINVAL, l->tok[i], "missing ring size");
		if (sh_u32(l->tok[i + 1], &p.ring_size) != 0 ||
			!rte_is_power_of_2(p.ring_size) || p.ring_size < CHAN_RING_SIZE_MIN)
			return sh_err(c, -EINVAL, l->tok[i + 1], "ring size: a power of two");
		i += 2;
	}
	if (i < l->n)
		return sh_err(c, -EINVAL, l->tok[i], "unexpected word");
	rc = chan_create(c->app->chans, &p);
	if (rc == -EINVAL || rc == -EEXIST)
		return sh_err(c, rc, l->tok[2], "%s",
			rc == -EEXIST ? "channel exists" : "bad channel name or parameters");
	if (rc < 0)
		return sh_err(c, rc, NULL, "channel %s: %s", l->tok[2], strerror(-rc));
	fprintf(c->out, "channel %s created (id %d, %s)\n", l->tok[2], rc, chan_kind_name(p.kind));
	return 0;
}

struct chan_del_arg {
	uint16_t id;
	const char *name;
	uint32_t rule_id; /**< out: a rule naming it */
	bool flows;       /**< out: a flow uses it */
};

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

/* Rules lcore: does a committed rule or a cached flow use the channel? */
static int
chan_in_use(struct gufc_app *app, void *arg)
{
	struct chan_del_arg *a = arg;
	struct rule_flow_info fi;
	uint64_t it = 0;

	if (set_names_channel(rule_engine_rules(app->eng), a->name, &a->rule_id))
		return -EBUSY;
	while (rule_engine_flow_next(app->eng, &it, NULL, &fi) == 0)
		if (fi.act.channel == a->id) {
			a->flows = true;
			return -EBUSY;
		}
	return 0;
}

static int
chan_del_fn(struct gufc_app *app, void *arg)
{
	const struct chan_del_arg *a = arg;

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

static int
channel_del(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct chan_del_arg a;
	int id, rc;

	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing channel name");
	if (l->n > 3)
		return sh_err(c, -EINVAL, l->tok[3], "unexpected word");
	id = chan_lookup(c->app->chans, l->tok[2]);
	if (id < 0)
		return sh_err(c, -ENOENT, l->tok[2], "no such channel");
	if (id == CHAN_ID_DEFAULT)
		return sh_err(c, -EPERM, l->tok[2], "the default channel cannot be deleted");
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		if (c->app->ports[p].used && c->app->port_chan[p] == id)
			return sh_err(c, -EPERM, l->tok[2], "the TX channel of port %u stays", p);
	memset(&a, 0, sizeof(a));
	a.id = (uint16_t)id;
	a.name = l->tok[2];
	if (set_names_channel(pending, a.name, &a.rule_id))
		return sh_err(c, -EBUSY, l->tok[2], "pending rule %u names it", a.rule_id);
	rc = gufc_ctl_call(c->app, chan_in_use, &a);
	if (rc == -EBUSY && a.flows)
		return sh_err(c, rc, l->tok[2], "cached flows use it ('flush flows' first)");
	if (rc == -EBUSY)
		return sh_err(c, rc, l->tok[2], "rule %u names it", a.rule_id);
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
	if (rx_grace(c->app) != 0)
		return sh_err(c, -EBUSY, l->tok[2], "an RX lcore is busy: try again");
	rc = gufc_ctl_call(c->app, chan_del_fn, &a);
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", rc == -EBUSY ?
			"a consumer is attached or per-flow channels are in use" : strerror(-rc));
	fprintf(c->out, "channel %s deleted\n", a.name);
	return 0;
}

int
sh_cmd_channel(struct sh_ctx *c)
{
	const char *op = c->l->n > 1 ? c->l->tok[1] : NULL;

	if (op != NULL && strcmp(op, "create") == 0)
		return channel_create(c);
	if (op != NULL && (strcmp(op, "del") == 0 || strcmp(op, "delete") == 0))
		return channel_del(c);
	return sh_err(c, -EINVAL, op ? op : c->l->tok[0], "expected create or del");
}

/* ------------------------------------------------------------------------ */
/* Local addresses and routes                                                */
/* ------------------------------------------------------------------------ */

struct local_arg {
	struct gufc_prefix pfx;
	bool add;
};

/* Rules lcore (masquerade reads cfg.locals there): the table and the config copy. */
static int
local_fn(struct gufc_app *app, void *arg)
{
	const struct local_arg *a = arg;
	struct gufc_config *cfg = &app->cfg;
	int rc;

	if (a->add) {
		if (cfg->n_locals == GUFC_MAX_LOCALS)
			return -ENOSPC;
		rc = fc_locals_add(app->locals, a->pfx.family, a->pfx.addr, a->pfx.len);
		if (rc == 0)
			cfg->locals[cfg->n_locals++] = a->pfx;
		return rc;
	}
	rc = fc_locals_del(app->locals, a->pfx.family, a->pfx.addr, a->pfx.len);
	for (unsigned int i = 0; rc == 0 && i < cfg->n_locals; i++)
		if (cfg->locals[i].family == a->pfx.family && cfg->locals[i].len == a->pfx.len &&
			memcmp(cfg->locals[i].addr, a->pfx.addr, 16) == 0) {
			cfg->locals[i] = cfg->locals[--cfg->n_locals];
			break;
		}
	return rc;
}

int
sh_cmd_local(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct local_arg a;
	int rc;

	memset(&a, 0, sizeof(a));
	if (l->n < 2 || (strcmp(l->tok[1], "add") != 0 && strcmp(l->tok[1], "del") != 0))
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected add or del");
	a.add = strcmp(l->tok[1], "add") == 0;
	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing prefix");
	if (l->n > 3)
		return sh_err(c, -EINVAL, l->tok[3], "unexpected word");
	if (gufc_prefix_parse(l->tok[2], &a.pfx) != 0 || a.pfx.len == 0)
		return sh_err(c, -EINVAL, l->tok[2], "bad prefix");
	rc = gufc_ctl_call(c->app, local_fn, &a);
	if (rc == -EEXIST)
		return sh_err(c, rc, l->tok[2], "already local");
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[2], "not a local prefix");
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
	fprintf(c->out, "local %s %s (new flows; cached flows keep their local bits)\n",
		l->tok[2], a.add ? "added" : "deleted");
	return 0;
}

int
sh_cmd_route(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_route r;
	uint32_t port = 0;
	bool add;
	int rc;

	memset(&r, 0, sizeof(r));
	if (l->n < 2 || (strcmp(l->tok[1], "add") != 0 && strcmp(l->tok[1], "del") != 0))
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected add or del");
	add = strcmp(l->tok[1], "add") == 0;
	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing prefix");
	if (gufc_prefix_parse(l->tok[2], &r.pfx) != 0)
		return sh_err(c, -EINVAL, l->tok[2], "bad prefix");
	if (add) {
		if (l->n < 4 || strcmp(l->tok[3], "port") != 0)
			return sh_err(c, -EINVAL, l->n < 4 ? l->tok[2] : l->tok[3],
				"expected 'port N'");
		if (l->n < 5)
			return sh_err(c, -EINVAL, l->tok[3], "missing port");
		if (sh_u32(l->tok[4], &port) != 0 || port >= GUFC_MAX_PORTS ||
			!c->app->ports[port].used)
			return sh_err(c, -ENODEV, l->tok[4], "no such port");
		if (l->n > 5)
			return sh_err(c, -EINVAL, l->tok[5], "unexpected word");
	} else {
		if (l->n > 3)
			return sh_err(c, -EINVAL, l->tok[3], "unexpected word");
		while (port < GUFC_MAX_PORTS - 1 && !c->app->ports[port].used)
			port++; /* gufc_ctl_route wants a live port even to delete */
	}
	r.port = (uint16_t)port;
	rc = gufc_ctl_route(c->app, &r, add);
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[2], "no such route");
	if (rc == -EINVAL)
		return sh_err(c, rc, l->tok[2], "bad prefix (host bits set?)");
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
	fprintf(c->out, "route %s %s (cached flows follow in the background)\n",
		l->tok[2], add ? "added" : "deleted");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Flows and logs                                                            */
/* ------------------------------------------------------------------------ */

static int
flush_fn(struct gufc_app *app, void *arg)
{
	*(unsigned int *)arg = rule_engine_flush(app->eng);
	return 0;
}

int
sh_cmd_flush(struct sh_ctx *c)
{
	unsigned int n = 0;
	int rc;

	if (c->l->n < 2 || strcmp(c->l->tok[1], "flows") != 0)
		return sh_err(c, -EINVAL, c->l->n < 2 ? c->l->tok[0] : c->l->tok[1],
			"expected 'flush flows'");
	if (c->l->n > 2)
		return sh_err(c, -EINVAL, c->l->tok[2], "unexpected word");
	rc = gufc_ctl_call(c->app, flush_fn, &n);
	if (rc != 0)
		return sh_err(c, rc, NULL, "%s", strerror(-rc));
	fprintf(c->out, "%u flow entries removed\n", n);
	return 0;
}

static const char *const log_levels[] = {
	[RTE_LOG_EMERG] = "emerg", [RTE_LOG_ALERT] = "alert", [RTE_LOG_CRIT] = "crit",
	[RTE_LOG_ERR] = "err", [RTE_LOG_WARNING] = "warning", [RTE_LOG_NOTICE] = "notice",
	[RTE_LOG_INFO] = "info", [RTE_LOG_DEBUG] = "debug",
};

/* How many registered log types match @p pattern (fnmatch). */
static unsigned int
log_types_matching(const char *pattern)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	unsigned int n = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return 0;
	rte_log_list_types(f, "");
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ,\t")] = '\0';
		n += fnmatch(pattern, line, 0) == 0;
	}
	free(buf);
	return n;
}

int
sh_cmd_log(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	uint32_t level = 0;
	unsigned int n;

	if (l->n < 2 || strcmp(l->tok[1], "level") != 0)
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected 'log level'");
	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing log type (e.g. gufc.*)");
	if (l->n < 4)
		return sh_err(c, -EINVAL, l->tok[2], "missing level (debug .. emerg)");
	if (l->n > 4)
		return sh_err(c, -EINVAL, l->tok[4], "unexpected word");
	for (uint32_t i = RTE_LOG_EMERG; i <= RTE_LOG_DEBUG; i++)
		if (strcmp(l->tok[3], log_levels[i]) == 0)
			level = i;
	if (level == 0 && strcmp(l->tok[3], "error") == 0)
		level = RTE_LOG_ERR;
	if (level == 0 && (sh_u32(l->tok[3], &level) != 0 || level < RTE_LOG_EMERG ||
			level > RTE_LOG_DEBUG))
		return sh_err(c, -EINVAL, l->tok[3],
			"level: emerg, alert, crit, err, warning, notice, info, debug or 1..8");
	n = log_types_matching(l->tok[2]);
	if (n == 0)
		return sh_err(c, -ENOENT, l->tok[2], "no such log type");
	if (rte_log_set_level_pattern(l->tok[2], level) != 0)
		return sh_err(c, -EINVAL, l->tok[2], "cannot set the level");
	fprintf(c->out, "log level of %s (%u type%s): %s\n", l->tok[2], n, n == 1 ? "" : "s",
		log_levels[level]);
	return 0;
}
