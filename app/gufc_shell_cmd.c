/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_cmd.c — shell commands that change things: rule edits on a
 * pending copy-on-write rule set and its atomic commit, channels, local
 * addresses, routes, flushing the flow cache, log levels.
 *
 * Every command parses all of its words first and names the first bad one;
 * only then does it call the control layer (gufc_ctl.h), which is all or
 * nothing itself (rule_set_* edits on the pending copy, gufc_chan_commit,
 * gufc_ctl_route, gufc_ctl_local, gufc_chan_add, gufc_chan_del...).
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

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

/* The set edits go to: the pending one, made from the committed set on first use. */
int
sh_working_set(struct sh_ctx *c, struct rule_set **s)
{
	int rc;

	if (pending == NULL) {
		rc = gufc_ctl_rules_clone(c->app, &pending);
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
	struct rule_set *s;
	int rc;

	if (*text == '\0')
		return sh_err(c, -EINVAL, NULL, "missing rule (e.g. 'drop proto udp dport 53')");
	memset(&err, 0, sizeof(err));
	/* A program too long for a rule's bytes is held by the set it goes to. */
	rc = rule_parse_set(text, pending, r, &err);
	if (rc != 0 && pending == NULL) {
		rc = sh_working_set(c, &s);
		if (rc != 0)
			return rc;
		memset(&err, 0, sizeof(err));
		rc = rule_parse_set(text, s, r, &err);
	}
	if (rc != 0)
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

/* A rule naming an ipset that is not loaded goes again (iptables-restore refuses it). */
static int
ipset_check(struct sh_ctx *c, struct rule_set *s, uint32_t id)
{
	uint32_t bad;
	const char *name = rule_set_ipset_missing(s, &bad);

	if (name == NULL)
		return 0;
	rule_set_rule_del_id(s, id);
	return sh_err(c, -ENOENT, name, "no such ipset (load ipsets with --ipset FILE)");
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
	rc = sh_working_set(c, &s);
	if (rc != 0)
		return rc;
	if (chain_tok != NULL) {
		chain = chain_tok;
		/* A chain of another table: take that table (the first that has it). */
		if (rule_set_chain_find(s, table, chain) == NULL) {
			unsigned int t;

			for (t = 0; t < RULE_TABLE__COUNT; t++)
				if (rule_set_chain_find(s, (enum rule_table)t, chain) != NULL)
					break;
			if (t == RULE_TABLE__COUNT)
				return sh_err(c, -ENOENT, chain_tok, "no such chain");
			table = (enum rule_table)t;
		}
	}
	rc = rule_set_rule_add(s, table, chain, pos, &r, &id);
	if (rc != 0)
		return edit_error(c, rc, &r, chain_tok);
	rc = ipset_check(c, s, id);
	if (rc != 0)
		return rc;
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
	rc = sh_working_set(c, &s);
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
	rc = sh_working_set(c, &s);
	if (rc != 0)
		return rc;
	if (rule_set_rule_find(s, id, NULL, NULL, NULL) == NULL)
		return sh_err(c, -ENOENT, c->l->tok[2], "no rule with this id");
	rc = rule_set_rule_replace(s, id, &r);
	if (rc != 0)
		return edit_error(c, rc, &r, NULL);
	rc = ipset_check(c, s, id);
	if (rc != 0)
		return rc;
	fprintf(c->out, "rule %u replaced (pending: 'commit' applies)\n", id);
	return 0;
}

/** carry_fn()'s work: a copy of the working set, the family whose counts it keeps. */
struct carry_arg {
	struct rule_set *s;
	unsigned int family;
};

/*
 * On the rules lcore: the rules of a->family in a->s (a copy of the
 * working set) get what they counted so far into their own counters (an
 * import's [pkts:bytes]), and so do that family's chain policies, so that
 * the commit of a set that numbers the rules anew, which starts every
 * run-time counter over, leaves that family's counts as they were. Only where the working set's rule ids are
 * the committed set's (it descends from it); packets counted between this
 * and the commit are not carried.
 */
static int
carry_fn(struct gufc_app *app, void *arg)
{
	struct carry_arg *a = arg;
	const struct rule_log *cl = rule_set_log(rule_engine_rules(app->eng));
	const struct rule_log *wl = rule_set_log(a->s);
	struct rule_counters_snap *snap;
	int rc = 0;

	if (cl == NULL || wl == NULL || cl->token != wl->token)
		return 0;
	snap = rule_engine_counters_snap(app->eng);
	if (snap == NULL)
		return -ENOMEM;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT && rc == 0; t++)
		for (unsigned int ch = 0; ch < rule_set_chain_count(a->s, t) && rc == 0; ch++) {
			const struct rule_chain *chain = rule_set_chain_at(a->s, t, ch);

			for (uint32_t i = 0; i < chain->n_rules && rc == 0; i++) {
				struct rule r = chain->rules[i];
				uint64_t p = 0, b = 0;

				if (r.family != a->family ||
					rule_counters_snap_get(snap, r.id, &p, &b) != 0 ||
					(p == 0 && b == 0))
					continue;
				r.pkts += p;
				r.bytes += b;
				rc = rule_set_rule_replace(a->s, r.id, &r);
			}
		}
	/* The policies: each hook's base chain, the family's counter. */
	for (unsigned int t = 0; t < RULE_TABLE__COUNT && rc == 0; t++)
		for (unsigned int h = 0; h < RULE_HOOK__COUNT && rc == 0; h++) {
			uint64_t p = 0, b = 0;

			if (!(rule_table_hooks(t) & RULE_HOOK_F(h)) ||
				rule_counters_snap_get(snap, RULE_ID_CHAIN_POLICY(a->family, t, h),
					&p, &b) != 0 ||
				(p == 0 && b == 0))
				continue;
			rc = rule_set_policy_counters_add(a->s, (enum rule_table)t,
				(enum rule_hook)h, a->family, p, b);
			if (rc == -ENOENT)
				rc = 0;
		}
	rule_counters_snap_free(snap);
	return rc;
}

/* The other family's part of the working set @p cur, with its counts (carry_fn()). */
static struct rule_set *
family_part(struct sh_ctx *c, const struct rule_set *cur, unsigned int other)
{
	struct carry_arg a = {.s = rule_set_clone(cur), .family = other};
	struct rule_set *part;
	int rc;

	if (a.s == NULL)
		return NULL;
	rc = gufc_ctl_call(c->app, carry_fn, &a);
	if (rc != 0) {
		rule_set_free(a.s);
		errno = -rc;
		return NULL;
	}
	part = rule_set_family(a.s, other);
	rc = errno;
	rule_set_free(a.s);
	errno = rc;
	return part;
}

/*
 * iptables/ip6tables FILE: FILE's rules and policies for its family, the
 * other family's as the working set has them, with their counters (as
 * iptables-restore leaves ip6tables alone on a Linux host).
 */
static int
rule_load_family(struct sh_ctx *c, unsigned int family, struct rule_set **out)
{
	const char *file = c->l->tok[3];
	unsigned int other = family == FC_AF_INET4 ? FC_AF_INET6 : FC_AF_INET4;
	struct rule_set *s, *cur = NULL, *part;
	struct rule_error err;
	char msg[512];
	int rc;

	memset(&err, 0, sizeof(err));
	s = gufc_rules_load(c->app, NULL, family == FC_AF_INET4 ? file : NULL,
		family == FC_AF_INET6 ? file : NULL, &err, c->out);
	if (s == NULL) {
		rule_error_format(&err, msg, sizeof(msg));
		return sh_err(c, -EINVAL, NULL, "%s", msg);
	}
	rc = sh_working_set(c, &cur);
	if (rc != 0) {
		rule_set_free(s);
		return rc;
	}
	part = family_part(c, cur, other);
	if (part == NULL) {
		rc = -errno;
		rule_set_free(s);
		return sh_err(c, rc, NULL, "the %s rules of the current set cannot be kept: %s",
			other == FC_AF_INET6 ? "IPv6" : "IPv4",
			rc == -EINVAL ? "a rule of both families does not fit one" : strerror(-rc));
	}
	rc = rule_set_merge(s, part, other);
	rule_set_free(part);
	if (rc != 0) {
		rule_set_free(s);
		return sh_err(c, rc, file, "cannot join the current %s rules: %s",
			other == FC_AF_INET6 ? "IPv6" : "IPv4",
			rc == -EINVAL ? "a chain differs" : strerror(-rc));
	}
	*out = s;
	return 0;
}

static int
rule_load(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct rule_error err;
	struct rule_set *s = NULL;
	char msg[512];
	int rc;

	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing format (native, iptables or ip6tables)");
	if (strcmp(l->tok[2], "native") != 0 && strcmp(l->tok[2], "iptables") != 0 &&
		strcmp(l->tok[2], "ip6tables") != 0)
		return sh_err(c, -EINVAL, l->tok[2], "format: native, iptables or ip6tables");
	if (l->n < 4)
		return sh_err(c, -EINVAL, l->tok[2], "missing file name");
	if (l->n > 4)
		return sh_err(c, -EINVAL, l->tok[4], "unexpected word");
	if (l->tok[2][0] == 'n') {
		memset(&err, 0, sizeof(err));
		s = gufc_rules_load(c->app, l->tok[3], NULL, NULL, &err, c->out);
		if (s == NULL) {
			rule_error_format(&err, msg, sizeof(msg));
			return sh_err(c, -EINVAL, NULL, "%s", msg);
		}
	} else {
		rc = rule_load_family(c, l->tok[2][2] == '6' ? FC_AF_INET6 : FC_AF_INET4, &s);
		if (rc != 0)
			return rc;
	}
	rc = gufc_rules_ports(c->app, s, c->out);
	if (rc != 0) {
		rule_set_free(s);
		return sh_err(c, rc, NULL, "port names: %s", strerror(-rc));
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
	rc = gufc_chan_commit(c->app, pending); /* takes the set, whatever the result */
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

/* channel create NAME kind ... — the channel grammar of gufc_chan_parse(). */
static int
channel_create(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	const unsigned int name = 2, arg = name + 3;
	struct gufc_chan_cfg cc;
	struct gufc_chan_err e;
	char tok[SH_LINE_MAX];
	int rc;

	if (gufc_chan_parse(l->w, l->n, name, &cc, &e) != 0) {
		snprintf(tok, sizeof(tok), "%.*s", e.len ? (int)e.len : (int)sizeof(tok),
			l->tok[e.word] + e.off);
		return sh_err(c, -EINVAL, tok, "%s", e.msg);
	}
	rc = gufc_chan_add(c->app, &cc);
	switch (rc) {
	case -ENODEV:
		return sh_err(c, rc, l->tok[arg], "no such port");
	case -ERANGE:
		return sh_err(c, rc, l->tok[arg], "port %u has TX queues 0..%u", cc.tx_port,
			c->app->ports[cc.tx_port].n_txq - 1u);
	case -ENOTSUP:
	case -ENOSPC:
		for (unsigned int i = arg; i < l->n; i++)
			if (strcmp(l->tok[i], "perflow") == 0 && rc == -ENOTSUP && i + 1 < l->n)
				return sh_err(c, rc, l->tok[i + 1],
					"the per-flow pool is sized at start: no count here");
			else if (strcmp(l->tok[i], "perflow") == 0)
				return sh_err(c, rc, l->tok[i],
					"no per-flow pool (a perflow channel in the config makes one)");
		break;
	case -EINVAL:
	case -EEXIST:
		return sh_err(c, rc, l->tok[name], "%s",
			rc == -EEXIST ? "channel exists" : "bad channel name or parameters");
	default:
		break;
	}
	if (rc < 0)
		return sh_err(c, rc, NULL, "channel %s: %s", cc.name, strerror(-rc));
	fprintf(c->out, "channel %s created (id %d, %s)\n", cc.name, rc, chan_kind_name(cc.kind));
	return 0;
}

static int
channel_del(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_chan_busy b;
	int rc;

	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing channel name");
	if (l->n > 3)
		return sh_err(c, -EINVAL, l->tok[3], "unexpected word");
	rc = gufc_chan_del(c->app, l->tok[2], sh_pending(), &b);
	if (rc == 0) {
		fprintf(c->out, "channel %s deleted\n", l->tok[2]);
		return 0;
	}
	switch (b.why) {
	case GUFC_CHAN_BUSY_DEFAULT:
		return sh_err(c, rc, l->tok[2], "the default channel cannot be deleted");
	case GUFC_CHAN_BUSY_PORT:
		return sh_err(c, rc, l->tok[2], "the TX channel of port %u stays", b.port);
	case GUFC_CHAN_BUSY_PENDING:
		return sh_err(c, rc, l->tok[2], "pending rule %u names it", b.rule_id);
	case GUFC_CHAN_BUSY_RULE:
		return sh_err(c, rc, l->tok[2], "rule %u names it", b.rule_id);
	case GUFC_CHAN_BUSY_FLOWS:
		return sh_err(c, rc, l->tok[2], "cached flows use it ('flush flows' first)");
	case GUFC_CHAN_BUSY_RX:
		return sh_err(c, rc, l->tok[2], "an RX lcore is busy: try again");
	case GUFC_CHAN_BUSY_CONSUMER:
		return sh_err(c, rc, l->tok[2],
			"a consumer is attached or per-flow channels are in use");
	default:
		break;
	}
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[2], "no such channel");
	return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
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

/* A prefix word: host bits are cleared ("10.1.2.3/8" is 10.0.0.0/8). */
static int
prefix_arg(struct sh_ctx *c, unsigned int i, struct lex_prefix *p)
{
	const char *s = c->l->tok[i];

	if (lex_prefix(s, strlen(s), LEX_PFX_HOST_CLEAR, p, NULL) != 0)
		return sh_err(c, -EINVAL, s, "bad prefix");
	return 0;
}

int
sh_cmd_local(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct lex_prefix pfx;
	bool add;
	int rc;

	if (l->n < 2 || (strcmp(l->tok[1], "add") != 0 && strcmp(l->tok[1], "del") != 0))
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected add or del");
	add = strcmp(l->tok[1], "add") == 0;
	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "missing prefix");
	if (l->n > 3)
		return sh_err(c, -EINVAL, l->tok[3], "unexpected word");
	rc = prefix_arg(c, 2, &pfx);
	if (rc != 0)
		return rc;
	if (pfx.len == 0)
		return sh_err(c, -EINVAL, l->tok[2], "bad prefix");
	rc = gufc_ctl_local(c->app, &pfx, add);
	if (rc == -EEXIST)
		return sh_err(c, rc, l->tok[2], "already local");
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[2], "not a local prefix");
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
	fprintf(c->out, "local %s %s (new flows; cached flows keep their local bits)\n",
		l->tok[2], add ? "added" : "deleted");
	return 0;
}

int
sh_cmd_route(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_route r;
	uint32_t port = 0;
	unsigned int b = 2; /* the prefix's word */
	bool add;
	int rc;

	memset(&r, 0, sizeof(r));
	if (l->n < 2 || (strcmp(l->tok[1], "add") != 0 && strcmp(l->tok[1], "del") != 0))
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected add or del");
	add = strcmp(l->tok[1], "add") == 0;
	if (l->n > 2 && strcmp(l->tok[2], "table") == 0) {
		if (l->n < 4)
			return sh_err(c, -EINVAL, l->tok[2], "missing table");
		if (gufc_route_table_arg(l->tok[3], &r.table, r.table_name) != 0)
			return sh_err(c, -EINVAL, l->tok[3],
				"bad table (1..4294967294 but 253 and 255, main, or a name)");
		b = 4;
	}
	if (l->n < b + 1)
		return sh_err(c, -EINVAL, l->tok[b - 1], "missing prefix");
	rc = prefix_arg(c, b, &r.pfx);
	if (rc != 0)
		return rc;
	if (add) {
		if (l->n < b + 2 ||
			(strcmp(l->tok[b + 1], "port") != 0 && strcmp(l->tok[b + 1], "via") != 0))
			return sh_err(c, -EINVAL, l->n < b + 2 ? l->tok[b] : l->tok[b + 1],
				"expected 'port N' or 'via GATEWAY'");
		if (l->n < b + 3)
			return sh_err(c, -EINVAL, l->tok[b + 1], "missing %s", l->tok[b + 1]);
		if (l->n > b + 3)
			return sh_err(c, -EINVAL, l->tok[b + 3], "unexpected word");
		if (strcmp(l->tok[b + 1], "via") == 0) {
			uint8_t fam;
			int p;

			if (lex_addr(l->tok[b + 2], strlen(l->tok[b + 2]), &fam, r.gw, NULL) != 0)
				return sh_err(c, -EINVAL, l->tok[b + 2], "bad gateway address");
			if (fam != r.pfx.family)
				return sh_err(c, -EINVAL, l->tok[b + 2],
					"gateway of another family than the prefix");
			/* Port addresses change only through this shell: no race. */
			p = gufc_port_of_gw(&c->app->cfg, fam, r.gw);
			if (p == -EEXIST)
				return sh_err(c, -EINVAL, l->tok[b + 2],
					"the gateway is one of this host's port addresses");
			if (p < 0)
				return sh_err(c, -ENOENT, l->tok[b + 2],
					"no port address's prefix holds the gateway");
			r.via = true;
			port = (uint32_t)p;
		} else if (sh_u32(l->tok[b + 2], &port) != 0 || port >= GUFC_MAX_PORTS ||
			!c->app->ports[port].used) {
			return sh_err(c, -ENODEV, l->tok[b + 2], "no such port");
		}
	} else {
		if (l->n > b + 1)
			return sh_err(c, -EINVAL, l->tok[b + 1], "unexpected word");
		while (port < GUFC_MAX_PORTS - 1 && !c->app->ports[port].used)
			port++; /* gufc_ctl_route wants a live port even to delete */
	}
	r.port = (uint16_t)port;
	rc = gufc_ctl_route(c->app, &r, add);
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[b], r.table_name[0] != '\0' && !add ?
			"no such route (or table)" : "no such route");
	if (rc == -EINVAL)
		return sh_err(c, rc, l->tok[b], "bad prefix (host bits set?)");
	if (rc != 0)
		return sh_err(c, rc, l->tok[b], "%s", strerror(-rc));
	fprintf(c->out, "route %s %s (cached flows follow in the background)\n",
		l->tok[b], add ? "added" : "deleted");
	return 0;
}

/* route-rule add|del WORDS (gufc_prule_parse()'s grammar). */
int
sh_cmd_prule(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_prule pr;
	const char *why;
	unsigned int bad;
	bool add;
	int rc;

	if (l->n < 2 || (strcmp(l->tok[1], "add") != 0 && strcmp(l->tok[1], "del") != 0))
		return sh_err(c, -EINVAL, l->n < 2 ? l->tok[0] : l->tok[1], "expected add or del");
	add = strcmp(l->tok[1], "add") == 0;
	rc = gufc_prule_parse(&c->app->cfg, (const char *const *)&l->tok[2], l->n - 2, &pr, &bad,
		&why);
	if (rc != 0)
		return sh_err(c, rc, l->n > 2 ? l->tok[2 + bad] : l->tok[1], "%s", why);
	rc = gufc_ctl_prule(c->app, &pr, add);
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[1], pr.table_name[0] != '\0' ?
			"no such table (or rule)" : "no such rule");
	if (rc == -EEXIST)
		return sh_err(c, rc, l->tok[1], "the same rule is there");
	if (rc != 0)
		return sh_err(c, rc, l->tok[1], "%s", strerror(-rc));
	fprintf(c->out, "route-rule %s (cached flows follow in the background)\n",
		add ? "added" : "deleted");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Flows and logs                                                            */
/* ------------------------------------------------------------------------ */

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
	rc = gufc_ctl_flush(c->app, &n);
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
