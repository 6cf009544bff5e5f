/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save export — a rule set written back as
 * "iptables-save -c" (or ip6tables-save -c) writes it, one address family
 * at a time, so that iptables-restore and gufc's own import read it back
 * to the same verdicts. Each hook's base chain becomes the table's
 * built-in chain of that hook (or is jumped to from it when it serves
 * several hooks, like gufc's "main"); local bits become addrtype LOCAL
 * matches; port lists too long for one multiport match become several
 * rules. Options are written through the extension tables
 * (rule_x_priv.h), as the import reads them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipt_priv.h"

/* Names of netfilter's built-in chains per hook. */
static const char *const hook_chain[RULE_HOOK__COUNT] = {
	[RULE_HOOK_PREROUTING] = "PREROUTING",
	[RULE_HOOK_INPUT] = "INPUT",
	[RULE_HOOK_FORWARD] = "FORWARD",
	[RULE_HOOK_OUTPUT] = "OUTPUT",
	[RULE_HOOK_POSTROUTING] = "POSTROUTING",
};

static const char *const policy_name[] = {"ACCEPT", "DROP"};

/* Most multiport ports (a range counts two). */
#define MULTI_MAX 15
/* Chunks a port list is cut into at most. */
#define CHUNKS_MAX 8

/* ------------------------------------------------------------------------ */
/* Chain names                                                               */
/* ------------------------------------------------------------------------ */

/* Is chain @c written as the built-in chain of hook @h (same name, that hook only)? */
static bool
is_builtin_as(const struct rule_chain *c, unsigned int h)
{
	return !c->builtin && c->hooks == RULE_HOOK_F(h) && strcmp(c->name, hook_chain[h]) == 0;
}

/*
 * The name chain @c of table @t has in the export: "gufc-" before a name
 * iptables would read as a target or as one of the table's own built-in
 * chains (another table's built-in name is a user chain to iptables).
 */
static void
export_name(const struct rule_chain *c, unsigned int t, char *out, size_t len)
{
	bool clash = c->builtin || rule_ipt_is_target(c->name);

	for (unsigned int h = 0; h < RULE_HOOK__COUNT && !clash; h++)
		if ((rule_table_hooks(t) & RULE_HOOK_F(h)) && strcmp(c->name, hook_chain[h]) == 0 &&
			!is_builtin_as(c, h))
			clash = true;
	snprintf(out, len, "%s%s", clash ? "gufc-" : "", c->name);
}

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

static void
buf_prefix(struct rule_buf *b, const char *opt, unsigned int family, const struct rule_prefix *p,
	bool neg)
{
	char a[LEX_ADDR_STRLEN] = "";

	lex_addr_format(family, p->addr, a, sizeof(a));
	rule_buf_printf(b, " %s%s %s/%u", neg ? "! " : "", opt, a, p->len);
}

/* The options of extension @x (after its "-m NAME" or "-j NAME"). */
static void
buf_xopts(struct rule_buf *b, const struct rule *r, const struct rule_x *x)
{
	const struct rule_xkind *k = &rule_xkinds[x->kind];

	for (unsigned int i = 0; i < k->n; i++) {
		const struct rule_xopt *o = &k->o[i];
		bool neg = (x->neg >> i) & 1;

		if (!((x->given >> i) & 1) || (o->flags & XO_PARSE) || o->ipt == NULL)
			continue;
		o = rule_x_opt_written(x, i);
		rule_buf_printf(b, " %s%s", neg ? "! " : "", o->ipt);
		if (rule_x_opt_words(o) > 0) {
			rule_buf_printf(b, " ");
			rule_xval_format(b, o, r, x, false);
		}
	}
}

static void
buf_comment(struct rule_buf *b, const char *c)
{
	rule_buf_printf(b, " -m comment --comment \"");
	for (; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			rule_buf_printf(b, "\\%c", *c);
		else
			rule_buf_printf(b, "%c", *c);
	}
	rule_buf_printf(b, "\"");
}

/* A port list cut into multiport-sized chunks (a single range needs no multiport). */
struct chunks {
	unsigned int n;
	struct rule_ports c[CHUNKS_MAX];
};

static int
cut_ports(const struct rule_ports *pl, struct chunks *out)
{
	unsigned int w = 0;

	memset(out, 0, sizeof(*out));
	out->n = 1;
	for (unsigned int i = 0; i < pl->n && i < RULE_PORTS_MAX; i++) {
		unsigned int iw = pl->r[i].lo == pl->r[i].hi ? 1 : 2;

		if (w + iw > MULTI_MAX) {
			if (out->n == CHUNKS_MAX)
				return -ENOSPC;
			out->n++;
			w = 0;
		}
		out->c[out->n - 1].r[out->c[out->n - 1].n++] = pl->r[i];
		w += iw;
	}
	return 0;
}

/* @multi: the list as -m multiport even when it is one port or range
 * (UDP-Lite has no port match of its own in iptables). */
static void
buf_portlist(struct rule_buf *b, const struct rule_ports *pl, bool neg, bool src, bool multi)
{
	if (pl->n == 1 && !multi) {
		rule_buf_printf(
			b, " %s%s %u", neg ? "! " : "", src ? "--sport" : "--dport", pl->r[0].lo);
		if (pl->r[0].hi != pl->r[0].lo)
			rule_buf_printf(b, ":%u", pl->r[0].hi);
		return;
	}
	rule_buf_printf(b, " -m multiport %s%s ", neg ? "! " : "", src ? "--sports" : "--dports");
	for (unsigned int i = 0; i < pl->n; i++) {
		rule_buf_printf(b, "%s%u", i ? "," : "", pl->r[i].lo);
		if (pl->r[i].hi != pl->r[i].lo)
			rule_buf_printf(b, ":%u", pl->r[i].hi);
	}
}

/*
 * The port matches of @r: negated lists become one multiport match per
 * chunk (ANDed), positive lists one rule per chunk: @sc/@dc select it.
 */
static void
buf_ports(struct rule_buf *b, const struct rule *r, const struct chunks *sp,
	const struct chunks *dp, unsigned int sc, unsigned int dc, unsigned int at)
{
	const char *mod = r->proto == RULE_PROTO_TCP	? "tcp"
			  : r->proto == RULE_PROTO_UDP	? "udp"
			  : r->proto == RULE_PROTO_SCTP ? "sctp"
			  : r->proto == RULE_PROTO_DCCP ? "dccp"
							: NULL;
	/*
	 * Source and destination ports in two places of the order: the later
	 * as -m multiport (a second -m udp's options would go to the first).
	 */
	if ((r->match & RULE_M_SPORT) && (r->match & RULE_M_DPORT) && r->sport_at != r->dport_at &&
		at == (r->sport_at > r->dport_at ? r->sport_at : r->dport_at))
		mod = NULL;

	for (unsigned int d = 0; d < 2; d++) {
		bool src = d == 0, neg;
		const struct chunks *ch = src ? sp : dp;

		if (!(r->match & (src ? RULE_M_SPORT : RULE_M_DPORT)))
			continue;
		/* Only the port matches of this place in the order (struct rule::sport_at). */
		if ((src ? r->sport_at : r->dport_at) != at)
			continue;
		neg = r->neg & (src ? RULE_M_SPORT : RULE_M_DPORT);
		for (unsigned int i = 0; i < ch->n; i++) {
			const struct rule_ports *pl = &ch->c[i];

			if (!neg && i != (src ? sc : dc))
				continue;
			if (pl->n == 1 && mod != NULL)
				rule_buf_printf(b, " -m %s", mod);
			buf_portlist(b, pl, neg, src, mod == NULL);
		}
	}
}

static void
buf_ctstate(struct rule_buf *b, const struct rule *r)
{
	static const char *const names[] = {"NEW", "ESTABLISHED", "RELATED", "INVALID",
		"UNTRACKED", "SNAT", "DNAT"};
	const char *sep = " ";

	rule_buf_printf(b, " -m conntrack%s --ctstate", (r->neg & RULE_M_CTSTATE) ? " !" : "");
	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (r->ctstate & (1u << i)) {
			rule_buf_printf(b, "%s%s", sep, names[i]);
			sep = ",";
		}
}

static const char *
proto_word(uint8_t proto, unsigned int family, char *buf, size_t len)
{
	switch (proto) {
	case 1:
		return "icmp";
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 58:
		return family == FC_AF_INET6 ? "ipv6-icmp" : "icmpv6";
	case 132:
		return "sctp";
	default:
		if (rule_proto_netbase_name(proto) != NULL)
			return rule_proto_netbase_name(proto);
		snprintf(buf, len, "%u", proto);
		return buf;
	}
}

/* One rule line's options, with the chunk choice of its port lists. */
static void
buf_rule_opts(struct rule_buf *b, const struct rule *r, unsigned int family,
	const struct chunks *sp, const struct chunks *dp, unsigned int sc, unsigned int dc,
	const char *target)
{
	char pb[8];

	if (r->match & RULE_M_SRC)
		buf_prefix(b, "-s", family, &r->src, r->neg & RULE_M_SRC);
	if (r->match & RULE_M_DST)
		buf_prefix(b, "-d", family, &r->dst, r->neg & RULE_M_DST);
	if (r->match & RULE_M_IN)
		rule_buf_printf(b, " %s-i %s", (r->neg & RULE_M_IN) ? "! " : "", r->in_if);
	if (r->match & RULE_M_OUT)
		rule_buf_printf(b, " %s-o %s", (r->neg & RULE_M_OUT) ? "! " : "", r->out_if);
	if (r->match & RULE_M_PROTO)
		rule_buf_printf(b, " %s-p %s", (r->neg & RULE_M_PROTO) ? "! " : "",
			proto_word(r->proto, family, pb, sizeof(pb)));
	for (unsigned int i = 0; i < r->n_xm; i++)
		if (r->xm[i].kind == RULE_XM_FRAGMENT)
			rule_buf_printf(b, " %s-f", r->xm[i].neg ? "! " : "");
	if (r->src_local != RULE_LOCAL_ANY)
		rule_buf_printf(b, " -m addrtype %s--src-type LOCAL",
			r->src_local == RULE_LOCAL_NO ? "! " : "");
	if (r->dst_local != RULE_LOCAL_ANY)
		rule_buf_printf(b, " -m addrtype %s--dst-type LOCAL",
			r->dst_local == RULE_LOCAL_NO ? "! " : "");
	buf_ports(b, r, sp, dp, sc, dc, 0);
	if ((r->match & RULE_M_CTSTATE) && r->ctstate_at == 0)
		buf_ctstate(b, r);
	for (unsigned int i = 0; i < r->n_xm; i++) {
		const struct rule_x *x = &r->xm[i];

		if (x->kind != RULE_XM_FRAGMENT) {
			rule_buf_printf(b, " -m %s", rule_xkinds[x->kind].ipt);
			buf_xopts(b, r, x);
		}
		/* A port or ctstate match written after this one: netfilter charges it first. */
		if (rule_late_ports(r) != 0)
			buf_ports(b, r, sp, dp, sc, dc, i + 1);
		if (rule_late_ctstate(r) && r->ctstate_at == i + 1)
			buf_ctstate(b, r);
	}
	if (r->comment[0] != '\0')
		buf_comment(b, r->comment);
	switch (r->action) {
	case RULE_ACT_ACCEPT:
		rule_buf_printf(b, " -j ACCEPT");
		break;
	case RULE_ACT_DROP:
		rule_buf_printf(b, " -j DROP");
		break;
	case RULE_ACT_RETURN:
		rule_buf_printf(b, " -j RETURN");
		break;
	case RULE_ACT_NOTRACK:
		rule_buf_printf(b, " -j NOTRACK");
		break;
	case RULE_ACT_COUNT:
		break;
	case RULE_ACT_JUMP:
	case RULE_ACT_GOTO:
		rule_buf_printf(b, " %s %s", r->action == RULE_ACT_GOTO ? "-g" : "-j", target);
		break;
	default:
		rule_buf_printf(b, " -j %s", rule_xkinds[rule_x_kind_of_action(r->action)].ipt);
		if (rule_action_nat(r->action))
			rule_x_nat_format(b, r, false);
		else if (r->tgt.kind != RULE_X_NONE)
			buf_xopts(b, r, &r->tgt);
		break;
	}
}

/* Where an export's rule counters come from beside the rules' own. */
struct ctr_src {
	rule_counters_fn fn;
	void *arg;
};

/* Every line of one rule ("[p:b] -A CHAIN ..."), @target the export name of its jump. */
static int
buf_rule(struct rule_buf *b, const struct rule *r, unsigned int family, const char *chain,
	const char *target, const struct ctr_src *cs)
{
	struct chunks sp = {.n = 1}, dp = {.n = 1};
	bool sneg = r->neg & RULE_M_SPORT, dneg = r->neg & RULE_M_DPORT;
	uint64_t pkts = r->pkts, bytes = r->bytes;

	if (cs != NULL && cs->fn != NULL) {
		uint64_t p = 0, by = 0;

		cs->fn(cs->arg, r->id, &p, &by);
		pkts += p;
		bytes += by;
	}

	if ((r->match & RULE_M_SPORT) && cut_ports(&r->sport, &sp) < 0)
		return -ENOSPC;
	if ((r->match & RULE_M_DPORT) && cut_ports(&r->dport, &dp) < 0)
		return -ENOSPC;
	for (unsigned int sc = 0; sc < (sneg ? 1 : sp.n); sc++)
		for (unsigned int dc = 0; dc < (dneg ? 1 : dp.n); dc++) {
			rule_buf_printf(b, "[%llu:%llu] -A %s",
				(unsigned long long)(sc == 0 && dc == 0 ? pkts : 0),
				(unsigned long long)(sc == 0 && dc == 0 ? bytes : 0), chain);
			buf_rule_opts(b, r, family, &sp, &dp, sc, dc, target);
			rule_buf_printf(b, "\n");
		}
	return 0;
}

int
rule_format_iptables(const struct rule *r, unsigned int family, char *buf, size_t len)
{
	struct chunks sp = {.n = 1}, dp = {.n = 1};
	struct rule_buf b = {.p = buf, .cap = len};

	if (r == NULL || buf == NULL || len == 0 || rule_check(r, NULL) < 0)
		return -EINVAL;
	buf[0] = '\0';
	if (((r->match & RULE_M_SPORT) && cut_ports(&r->sport, &sp) < 0) ||
		((r->match & RULE_M_DPORT) && cut_ports(&r->dport, &dp) < 0) || sp.n > 1 || dp.n > 1)
		return -EINVAL;
	buf_rule_opts(&b, r, family, &sp, &dp, 0, 0, r->chain);
	return b.full ? -ENOSPC : (int)b.len;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

static bool
rule_of(const struct rule *r, unsigned int family)
{
	return r->family == 0 || r->family == family;
}

/* Does table @t need writing: a claimed hook, or rules of @family? */
static bool
table_used(const struct rule_set *s, unsigned int t, unsigned int family)
{
	for (unsigned int i = 0; i < s->t[t].n; i++) {
		const struct rule_chain *c = &s->t[t].chains[i];

		if (c->hooks != 0)
			return true;
		for (uint32_t j = 0; j < c->n_rules; j++)
			if (rule_of(&c->rules[j], family))
				return true;
	}
	return false;
}

static int
buf_table(struct rule_buf *b, const struct rule_set *s, unsigned int t, unsigned int family,
	const struct ctr_src *cs)
{
	const struct rule_tbl *tb = &s->t[t];
	unsigned int hooks = rule_table_hooks(t);
	char name[RULE_NAME_MAX + 8], target[RULE_NAME_MAX + 8];
	bool *user = calloc(tb->n + 1, sizeof(*user));
	int rc = 0;

	if (user == NULL)
		return -ENOMEM;
	rule_buf_printf(b, "*%s\n", rule_table_name(t));
	/* Built-in chains: policy and counters. */
	for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
		const struct rule_chain *c;

		if (!(hooks & RULE_HOOK_F(h)))
			continue;
		uint64_t pp = 0, pb = 0;

		c = rule_set_hook_chain(s, t, h);
		/* The policy's own counters (imported) plus what it decided since. */
		if (c != NULL && is_builtin_as(c, h)) {
			pp = family == FC_AF_INET6 ? c->pkts6 : c->pkts;
			pb = family == FC_AF_INET6 ? c->bytes6 : c->bytes;
		}
		if (cs != NULL && cs->fn != NULL) {
			uint64_t p = 0, by = 0;

			cs->fn(cs->arg, RULE_ID_CHAIN_POLICY(family, t, h), &p, &by);
			pp += p;
			pb += by;
		}
		rule_buf_printf(b, ":%s %s [%llu:%llu]\n", hook_chain[h],
			policy_name[c != NULL ? rule_chain_policy(c, family) & 1 : 0],
			(unsigned long long)pp, (unsigned long long)pb);
		if (c != NULL && !is_builtin_as(c, h))
			user[c - tb->chains] = true;
	}
	/* User chains: those not written as a built-in, and the ones built-ins jump to. */
	for (unsigned int i = 0; i < tb->n; i++) {
		const struct rule_chain *c = &tb->chains[i];
		bool as_builtin = false;

		for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++)
			as_builtin |= (hooks & RULE_HOOK_F(h)) && is_builtin_as(c, h);
		if (as_builtin || (c->builtin && !user[i]))
			continue;
		user[i] = true;
		export_name(c, t, name, sizeof(name));
		rule_buf_printf(b, ":%s - [%llu:%llu]\n", name, (unsigned long long)c->pkts,
			(unsigned long long)c->bytes);
	}
	/* Jumps from built-ins to the base chains written as user chains. */
	for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
		const struct rule_chain *c;

		if (!(hooks & RULE_HOOK_F(h)))
			continue;
		c = rule_set_hook_chain(s, t, h);
		if (c == NULL || is_builtin_as(c, h))
			continue;
		export_name(c, t, name, sizeof(name));
		rule_buf_printf(b, "[0:0] -A %s -j %s\n", hook_chain[h], name);
	}
	for (unsigned int i = 0; i < tb->n; i++) {
		const struct rule_chain *c = &tb->chains[i];

		if (!user[i]) {
			bool done = false;

			for (unsigned int h = 0; h < RULE_HOOK__COUNT && !done; h++)
				if ((hooks & RULE_HOOK_F(h)) && is_builtin_as(c, h))
					done = true;
			if (!done)
				continue;
			snprintf(name, sizeof(name), "%s", c->name);
		} else {
			export_name(c, t, name, sizeof(name));
		}
		for (uint32_t j = 0; j < c->n_rules; j++) {
			const struct rule *r = &c->rules[j];

			if (!rule_of(r, family))
				continue;
			target[0] = '\0';
			if (r->action == RULE_ACT_JUMP || r->action == RULE_ACT_GOTO)
				export_name(rule_set_chain_find(s, t, r->chain), t, target, sizeof(target));
			rc = buf_rule(b, r, family, name, target, cs);
			if (rc < 0)
				goto out;
		}
	}
	rule_buf_printf(b, "COMMIT\n");
out:
	free(user);
	return rc;
}

static int
buf_ipt(struct rule_buf *b, const struct rule_set *s, unsigned int family,
	const struct ctr_src *cs)
{
	static const uint8_t order[] = {RULE_TABLE_RAW, RULE_TABLE_MANGLE, RULE_TABLE_NAT,
		RULE_TABLE_FILTER, RULE_TABLE_SECURITY};
	int rc;

	rule_buf_printf(b, "# Generated by %s-save (gufc)\n",
		family == FC_AF_INET6 ? "ip6tables" : "iptables");
	for (unsigned int i = 0; i < RTE_DIM(order); i++) {
		if (!table_used(s, order[i], family) && order[i] != RULE_TABLE_FILTER)
			continue;
		rc = buf_table(b, s, order[i], family, cs);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
rule_set_format_iptables(const struct rule_set *s, unsigned int family, char *buf, size_t len)
{
	struct rule_buf b = {.p = buf, .cap = len};
	int rc;

	if (s == NULL || buf == NULL || len == 0 ||
		(family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	buf[0] = '\0';
	rc = buf_ipt(&b, s, family, NULL);
	if (rc < 0)
		return rc;
	return b.full ? -ENOSPC : (int)b.len;
}

int
rule_set_dump_iptables_ctr(const struct rule_set *s, unsigned int family, rule_counters_fn fn,
	void *arg, FILE *f)
{
	struct rule_buf b = {.grow = true, .cap = 4096};
	struct ctr_src cs = {.fn = fn, .arg = arg};
	int rc;

	if (s == NULL || f == NULL || (family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	b.p = malloc(b.cap);
	if (b.p == NULL)
		return -ENOMEM;
	b.p[0] = '\0';
	rc = buf_ipt(&b, s, family, &cs);
	if (rc == 0 && b.full)
		rc = -ENOMEM;
	else if (rc == 0 && (fwrite(b.p, 1, b.len, f) != b.len || fflush(f) != 0))
		rc = -EIO;
	free(b.p);
	return rc;
}

int
rule_set_dump_iptables(const struct rule_set *s, unsigned int family, FILE *f)
{
	return rule_set_dump_iptables_ctr(s, family, NULL, NULL, f);
}
