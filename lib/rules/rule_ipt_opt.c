/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the options of one iptables rule line, one at a time: -s, -d
 * (and their lists), -p, -i, -o, -f, -j/-g, -m, the tcp, udp, sctp,
 * multiport, conntrack/state and comment options, getopt's forms
 * (--opt=value, unique prefixes), and every other option through the
 * extension tables (rule_ipt_ext.c). The whole rule: rule_ipt.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipt_rl.h"

static const struct {
	const char *name;
	uint8_t id;
	bool inv; /**< may be negated */
} ipt_opts[] = {
	{"-s", O_SRC, true},
	{"--source", O_SRC, true},
	{"--src", O_SRC, true},
	{"-d", O_DST, true},
	{"--destination", O_DST, true},
	{"--dst", O_DST, true},
	{"-p", O_PROTO, true},
	{"--protocol", O_PROTO, true},
	{"-j", O_JUMP, false},
	{"--jump", O_JUMP, false},
	{"-g", O_GOTO, false},
	{"--goto", O_GOTO, false},
	{"-m", O_MATCH, false},
	{"--match", O_MATCH, false},
	{"-c", O_COUNTERS, false},
	{"--set-counters", O_COUNTERS, false},
	{"-i", O_IN, true},
	{"--in-interface", O_IN, true},
	{"-o", O_OUT, true},
	{"--out-interface", O_OUT, true},
	{"-f", O_FRAG, true},
	{"--fragment", O_FRAG, true},
	{"--sport", O_SPORT, true},
	{"--source-port", O_SPORT, true},
	{"--dport", O_DPORT, true},
	{"--destination-port", O_DPORT, true},
	{"--sports", O_SPORTS, true},
	{"--source-ports", O_SPORTS, true},
	{"--dports", O_DPORTS, true},
	{"--destination-ports", O_DPORTS, true},
	{"--ports", O_PORTS, true},
	{"--ctstate", O_CTSTATE, true},
	{"--state", O_STATE, true},
	{"--comment", O_COMMENT, false},
};

/* Options iptables knows that a rule line cannot hold, with the reason. */
static const struct {
	const char *name;
	const char *msg;
} ipt_refused[] = {
	{"-t", "the table is given by a *table line"},
	{"--table", "the table is given by a *table line"},
	{"-D", "-D is not supported: rewrite the rule set without the rule"},
	{"--delete", "-D is not supported: rewrite the rule set without the rule"},
	{"-R", "-R is not supported: rewrite the rule set with the new rule"},
	{"--replace", "-R is not supported: rewrite the rule set with the new rule"},
	{"-E", "-E is not supported: rename the chain in the file"},
	{"--rename-chain", "-E is not supported: rename the chain in the file"},
};


/* A new extension match of @kind in the rule. @return its index, or -EINVAL. */
static int
x_new(struct ipt *p, struct ipt_rl *rl, unsigned int kind, const struct lex_tok *at)
{
	struct rule_x *x;

	if (rl->r.n_xm == RULE_XM_MAX)
		return rule_ipt_err(p, at, "too many matches in one rule");
	x = &rl->r.xm[rl->r.n_xm];
	memset(x, 0, sizeof(*x));
	x->kind = (uint8_t)kind;
	rl->x_at[rl->r.n_xm] = at;
	return rl->r.n_xm++;
}

/* The message for module @mod left without the option it needs, or NULL. */
static const char *
mod_need_msg(unsigned int mod)
{
	switch (mod) {
	case MOD_MULTIPORT:
		return "multiport needs --sports, --dports or --ports";
	case MOD_CONNTRACK:
		return "conntrack needs an option";
	case MOD_STATE:
		return "state needs --state";
	case MOD_COMMENT:
		return "comment needs --comment";
	default:
		return NULL;
	}
}

/*
 * The last -m got no option where it needs one: at the next -m it waits
 * for one (an option may come after a later -m, as getopt reads it); at
 * the end of the rule (@p end) that, and any module still waiting, is an
 * error at its -m.
 */
int
rule_ipt_mod_finish(struct ipt *p, struct ipt_rl *rl, bool end)
{
	if (!rl->cur_used && mod_need_msg(rl->cur) != NULL) {
		if (end || (rl->open & (1u << rl->cur)))
			return rule_ipt_err(p, rl->cur_at, mod_need_msg(rl->cur));
		rl->open |= 1u << rl->cur;
		rl->open_at[rl->cur] = rl->cur_at;
		rl->cur_used = true;
	}
	if (end && rl->open != 0)
		for (unsigned int m = 0; m < MOD_X; m++)
			if (rl->open & (1u << m))
				return rule_ipt_err(p, rl->open_at[m], mod_need_msg(m));
	return 0;
}

static int
opt_match(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *v)
{
	static const struct {
		const char *name;
		uint8_t mod;
		uint8_t kind; /**< extension kind of its other options */
	} mods[] = {
		{"tcp", MOD_TCP, RULE_XM_TCP},
		{"udp", MOD_UDP, RULE_X_NONE},
		{"sctp", MOD_SCTP, RULE_XM_SCTP},
		{"dccp", MOD_DCCP, RULE_X_NONE},
		{"multiport", MOD_MULTIPORT, RULE_X_NONE},
		{"conntrack", MOD_CONNTRACK, RULE_XM_CONNTRACK},
		{"state", MOD_STATE, RULE_X_NONE},
		{"comment", MOD_COMMENT, RULE_X_NONE},
	};
	uint8_t mod = MOD_NONE;
	unsigned int kind = RULE_X_NONE;
	const char *msg;
	int rc;

	rc = rule_ipt_mod_finish(p, rl, false);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < RTE_DIM(mods); i++)
		if (strcmp(mods[i].name, v->s) == 0) {
			mod = mods[i].mod;
			kind = mods[i].kind;
		}
	rl->cur_x = -1;
	if (mod == MOD_NONE) {
		msg = rule_ipt_match_refused(v->s);
		if (msg != NULL)
			return rule_ipt_err(p, v, msg);
		kind = rule_x_kind_of_match(v->s);
		if (kind == RULE_X_NONE || kind == RULE_XM_FRAGMENT)
			return rule_ipt_err(p, v, "unsupported match");
		mod = MOD_X;
		rc = x_new(p, rl, kind, v);
		if (rc < 0)
			return rc;
		rl->cur_x = rc;
	}
	if (mod == MOD_TCP || mod == MOD_UDP || mod == MOD_SCTP || mod == MOD_DCCP) {
		if (rl->pmod != MOD_NONE && rl->pmod != mod)
			return rule_ipt_err(p, v, "conflicting protocol matches");
		if (rl->pmod == MOD_NONE) {
			rl->pmod = mod;
			rl->pmod_at = v;
			rl->pmod_xi = rl->r.n_xm;
		}
	}
	if (mod == MOD_MULTIPORT && rl->multi_at == NULL)
		rl->multi_at = v;
	if (mod == MOD_MULTIPORT)
		rl->multi_xi = rl->r.n_xm;
	if (mod < MOD_X)
		rl->mod_xi[mod] = rl->r.n_xm;
	rl->cur = mod;
	rl->cur_kind = kind;
	rl->cur_at = v;
	rl->cur_used = mod == MOD_X;
	rl->cur_ct = false;
	return 0;
}

static const char *
table_msg(unsigned int action, unsigned int table)
{
	unsigned int k = rule_x_kind_of_action(action);

	if (action == RULE_ACT_DROP)
		return "DROP is not allowed in the nat table";
	if (rule_action_nat(action))
		return "NAT targets are only allowed in the nat table";
	if (action == RULE_ACT_NOTRACK || k == RULE_XT_CT)
		return "this target is only allowed in the raw table";
	if (k != RULE_X_NONE && rule_xkinds[k].tables == (1u << RULE_TABLE_MANGLE))
		return "this target is only allowed in the mangle table";
	(void)table;
	return "target not allowed in this table";
}

/* -j NAME / -g NAME */
static int
opt_target(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *v, bool go)
{
	static const struct {
		const char *name;
		uint8_t action;
	} std[] = {
		{"ACCEPT", RULE_ACT_ACCEPT},
		{"DROP", RULE_ACT_DROP},
		{"RETURN", RULE_ACT_RETURN},
		{"NOTRACK", RULE_ACT_NOTRACK},
	};
	const struct rule_chain *c;
	unsigned int kind;
	const char *msg;
	int action = -1;

	if (rl->target != NULL)
		return rule_ipt_err(p, v, "only one -j or -g per rule");
	rl->target = v;
	for (size_t i = 0; i < RTE_DIM(std); i++)
		if (strcmp(std[i].name, v->s) == 0)
			action = std[i].action;
	kind = rule_x_kind_of_target(v->s);
	if (kind != RULE_X_NONE)
		action = rule_xkinds[kind].action;
	if (action >= 0) {
		if (go)
			return rule_ipt_err(p, v, "-g needs a user-defined chain");
		if (!rule_action_in_table((unsigned int)action, p->table))
			return rule_ipt_err(p, v, table_msg((unsigned int)action, p->table));
		rl->r.action = (uint8_t)action;
		rl->tkind = kind;
		if (kind != RULE_X_NONE && !rule_action_nat((unsigned int)action))
			rl->r.tgt.kind = (uint8_t)kind;
		rl->natx.kind = (uint8_t)kind;
		return 0;
	}
	msg = rule_ipt_target_refused(v->s);
	if (msg != NULL)
		return rule_ipt_err(p, v, msg);
	if (rule_ipt_is_target(v->s))
		return rule_ipt_err(p, v, "unsupported target");
	c = rule_set_chain_find(p->s, p->table, v->s);
	if (c == NULL || c->builtin)
		return rule_ipt_err(p, v, "unknown chain or target");
	if (c->hooks != 0)
		return rule_ipt_err(p, v, "cannot jump to a built-in chain");
	rl->r.action = go ? RULE_ACT_GOTO : RULE_ACT_JUMP;
	snprintf(rl->r.chain, sizeof(rl->r.chain), "%s", c->name);
	return 0;
}

static int
pm_add(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *opt, const struct lex_tok *v,
	uint8_t dir, bool neg, bool list)
{
	struct ipt_pmatch *m;
	int rc;

	if (rl->n_pm == IPT_PM_MAX)
		return rule_ipt_err(p, opt, "too many port matches");
	m = &rl->pm[rl->n_pm];
	rc = list ? rule_ipt_portlist(p, v, &m->ports) : rule_ipt_portrange(p, v, &m->ports);
	if (rc < 0)
		return rc;
	m->dir = dir;
	m->neg = neg;
	m->at = opt;
	m->xi = list ? rl->multi_xi : rl->pmod_xi;
	rl->n_pm++;
	return 0;
}

/* Why -m dccp takes ports only. */
#define DCCP_MSG "DCCP types and options are not matched: gufc reads DCCP ports only"

/* --sport / --dport: the tcp/udp/sctp/dccp match, loaded by -m or implicitly by -p. */
static int
opt_port(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id, bool neg)
{
	if (rl->pmod == MOD_NONE) {
		if (!rule_ipt_proto_ports(&rl->r))
			return rule_ipt_err(p, o, "port match needs -p tcp, udp, sctp or dccp");
		rl->pmod = rl->r.proto == RULE_PROTO_TCP    ? MOD_TCP
			   : rl->r.proto == RULE_PROTO_UDP  ? MOD_UDP
			   : rl->r.proto == RULE_PROTO_DCCP ? MOD_DCCP
							    : MOD_SCTP;
		rl->pmod_at = o;
		/* Loaded here, as iptables loads it: after the matches written so far. */
		rl->pmod_xi = rl->r.n_xm;
	}
	if (rl->pmod_seen & (1u << id))
		return rule_ipt_err(p, o, "option given twice");
	rl->pmod_seen |= 1u << id;
	if (rl->cur == MOD_TCP || rl->cur == MOD_UDP || rl->cur == MOD_SCTP || rl->cur == MOD_DCCP)
		rl->cur_used = true;
	return pm_add(p, rl, o, v, id == O_SPORT ? PM_SRC : PM_DST, neg, false);
}

static int
opt_multiport(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id, bool neg)
{
	if (rl->cur != MOD_MULTIPORT && (rl->open & (1u << MOD_MULTIPORT)))
		rl->open &= ~(1u << MOD_MULTIPORT);
	else if (rl->cur != MOD_MULTIPORT)
		return rule_ipt_err(p, o, "option needs -m multiport");
	else if (rl->cur_used)
		return rule_ipt_err(p, o, "multiport takes one option");
	else
		rl->cur_used = true;
	return pm_add(p, rl, o, v,
		id == O_SPORTS	 ? PM_SRC
		: id == O_DPORTS ? PM_DST
				 : PM_EITHER,
		neg, true);
}

static int
opt_ctstate(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id, bool neg)
{
	uint8_t want = id == O_CTSTATE ? MOD_CONNTRACK : MOD_STATE;
	bool waiting = rl->cur != want && (rl->open & (1u << want));
	int rc;

	if (rl->cur != want && !waiting)
		return rule_ipt_err(p, o,
			id == O_CTSTATE ? "option needs -m conntrack" : "option needs -m state");
	if (!waiting && rl->cur_ct)
		return rule_ipt_err(p, o, "option given twice");
	if (rl->n_ct == IPT_CT_MAX)
		return rule_ipt_err(p, o, "too many state matches");
	rc = rule_ipt_ctstate(p, v, &rl->ct[rl->n_ct].set);
	if (rc < 0)
		return rc;
	if (id == O_STATE && (rl->ct[rl->n_ct].set & (RULE_CT_SNAT | RULE_CT_DNAT)))
		return rule_ipt_err(p, v, "bad state");
	rl->ct[rl->n_ct].neg = neg;
	/* Its place: where its -m was written (a meter before it charges what it refuses). */
	rl->ct[rl->n_ct].xi = rl->mod_xi[want];
	rl->ct[rl->n_ct].at = o;
	rl->n_ct++;
	if (rl->ct_at == NULL)
		rl->ct_at = o;
	if (waiting) {
		rl->open &= ~(1u << want);
		return 0;
	}
	rl->cur_used = true;
	rl->cur_ct = true;
	return 0;
}

static int
opt_comment(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v)
{
	bool waiting = rl->cur != MOD_COMMENT && (rl->open & (1u << MOD_COMMENT));
	size_t n = strlen(v->s);

	if (rl->cur != MOD_COMMENT && !waiting)
		return rule_ipt_err(p, o, "option needs -m comment");
	if (rl->has_comment)
		return rule_ipt_err(p, o, "only one comment per rule");
	if (n >= RULE_COMMENT_MAX)
		return rule_ipt_err(p, v, "comment too long");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v->s[i] < 0x20 || v->s[i] == 0x7f)
			return rule_ipt_err(p, v, "control character in comment");
	memcpy(rl->r.comment, v->s, n + 1);
	rl->has_comment = true;
	if (waiting)
		rl->open &= ~(1u << MOD_COMMENT);
	else
		rl->cur_used = true;
	return 0;
}

/* The extension kind that -p loads implicitly for an unknown option. */
static unsigned int
implicit_kind(const struct rule *r)
{
	if (!(r->match & RULE_M_PROTO) || (r->neg & RULE_M_PROTO))
		return RULE_X_NONE;
	switch (r->proto) {
	case RULE_PROTO_TCP:
		return RULE_XM_TCP;
	case RULE_PROTO_SCTP:
		return RULE_XM_SCTP;
	case 1:
		return RULE_XM_ICMP;
	case 58:
		return RULE_XM_ICMP6;
	case 50:
		return RULE_XM_ESP;
	case 51:
		return RULE_XM_AH;
	case 108:
		return RULE_XM_IPCOMP;
	case 135:
		return RULE_XM_MH;
	default:
		return RULE_X_NONE;
	}
}

/* The instance of @kind an option @oi goes to: the last one, unless it has that option. */
static int
x_for(struct ipt *p, struct ipt_rl *rl, unsigned int kind, unsigned int oi,
	const struct lex_tok *at)
{
	for (int i = (int)rl->r.n_xm - 1; i >= 0; i--)
		if (rl->r.xm[i].kind == kind)
			return (rl->r.xm[i].given & (1u << oi)) ? x_new(p, rl, kind, at) : i;
	return x_new(p, rl, kind, at);
}

/* Option @oi of the target (@role 0), the last -m (1) or -p's implicit match (2, of @kind). */
static int
opt_apply(struct ipt *p, struct ipt_rl *rl, unsigned int role, unsigned int kind, int oi,
	unsigned int *i, bool neg)
{
	int xi;

	if (role == 0)
		return rule_ipt_xopt(p, &rl->r, rule_action_nat(rl->r.action) ? &rl->natx : &rl->r.tgt,
			(unsigned int)oi, i, neg);
	if (role == 1) {
		if (rl->cur_x < 0) {
			xi = x_new(p, rl, rl->cur_kind, rl->cur_at);
			if (xi < 0)
				return xi;
			rl->cur_x = xi;
		}
		rl->cur_used = true;
		return rule_ipt_xopt(p, &rl->r, &rl->r.xm[rl->cur_x], (unsigned int)oi, i, neg);
	}
	xi = x_for(p, rl, kind, (unsigned int)oi, &p->args.a[*i]);
	if (xi < 0)
		return xi;
	return rule_ipt_xopt(p, &rl->r, &rl->r.xm[xi], (unsigned int)oi, i, neg);
}

/*
 * An option that is none of the rule line's own: the target's, the last
 * match's or -p's implicit match's, by its exact name first, then, as
 * getopt_long reads it, by a unique prefix of one ("DNAT --to",
 * "REDIRECT --to-port").
 */
static int
opt_ext(struct ipt *p, struct ipt_rl *rl, unsigned int *i, bool neg)
{
	const struct lex_tok *o = &p->args.a[*i];
	const unsigned int kinds[3] = {rl->tkind, rl->cur_kind, implicit_kind(&rl->r)};

	/* Whatever its value (a number, "mark"), before the value is read. */
	if (rl->tkind == RULE_XT_CT && (strcmp(o->s, "--zone") == 0 ||
					       strcmp(o->s, "--zone-orig") == 0 ||
					       strcmp(o->s, "--zone-reply") == 0))
		return rule_ipt_err(p, o, RULE_X_ZONE_MSG);
	if (rl->tkind == RULE_XT_CT && strcmp(o->s, "--timeout") == 0)
		return rule_ipt_err(p, o,
			"CT --timeout: gufc has no nfct timeout policies "
			"(its conntrack timeouts are global)");
	if (rl->tkind == RULE_XT_CT && (strcmp(o->s, "--ctevents") == 0 ||
					       strcmp(o->s, "--expevents") == 0))
		return rule_ipt_err(p, o,
			"CT --ctevents/--expevents: gufc sends no conntrack events");
	for (unsigned int prefix = 0; prefix < 2; prefix++)
		for (unsigned int role = 0; role < 3; role++) {
			int oi;

			if (kinds[role] == RULE_X_NONE)
				continue;
			oi = prefix ? rule_x_opt_prefix(kinds[role], o->s)
				    : rule_x_opt_find(kinds[role], o->s, false);
			if (oi == -2)
				return rule_ipt_err(p, o, "ambiguous option");
			if (oi >= 0)
				return opt_apply(p, rl, role, kinds[role], oi, i, neg);
		}
	if ((rl->pmod == MOD_DCCP || ((rl->r.match & RULE_M_PROTO) && rl->r.proto == RULE_PROTO_DCCP)) &&
		strncmp(o->s, "--dccp-", 7) == 0)
		return rule_ipt_err(p, o, DCCP_MSG);
	for (size_t k = 0; k < RTE_DIM(ipt_refused); k++)
		if (strcmp(ipt_refused[k].name, o->s) == 0)
			return rule_ipt_err(p, o, ipt_refused[k].msg);
	return rule_ipt_err(p, o, o->s[0] == '-' ? "unsupported option" : "unexpected word");
}

/*
 * -s/-d with a comma-separated list: each item as a lone -s/-d would be
 * (errors placed on the item), kept for rule_ipt_finish(), which adds one
 * rule per address; the first stands in the rule meanwhile.
 */
static int
addr_list(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *v, bool dst, bool neg)
{
	struct rule_prefix *pf = dst ? &rl->r.dst : &rl->r.src;
	const char *c = v->s, *e;
	unsigned int n = 0;
	char item[128];
	int rc;

	if (neg)
		return rule_ipt_err(p, v, "! cannot be used with an address list");
	for (;;) {
		struct lex_tok t = *v;
		size_t len;

		e = strchr(c, ',');
		len = e != NULL ? (size_t)(e - c) : strlen(c);
		t.col = v->col + (unsigned int)(c - v->s);
		if (n == IPT_ALIST_MAX)
			return rule_ipt_err(p, v, "too many addresses in a list");
		if (len == 0 || len >= sizeof(item)) {
			item[0] = '\0';
			t.s = item;
			return rule_ipt_err(p, &t, "bad address");
		}
		memcpy(item, c, len);
		item[len] = '\0';
		t.s = item;
		rc = rule_ipt_prefix(p, &t, &rl->r, pf);
		if (rc < 0)
			return rc;
		rl->addr[dst][n++] = *pf;
		if (e == NULL)
			break;
		c = e + 1;
	}
	rl->n_addr[dst] = n;
	*pf = rl->addr[dst][0];
	return 0;
}

/*
 * "--opt=value", as getopt_long reads an extension's option: the word
 * a[i] becomes "--opt" and the value a word of its own after it. The
 * rule line's own options (-A, -s, --in-interface, ...) keep the form
 * unread, as iptables does (its error then names the word).
 */
static int
split_eq(struct ipt *p, unsigned int i)
{
	struct ipt_args *as = &p->args;
	struct lex_tok *o = &as->a[i];
	char *eq;
	size_t k;

	if (strncmp(o->s, "--", 2) != 0 || (eq = strchr(o->s, '=')) == NULL || eq == o->s + 2)
		return 0;
	for (k = 0; k < RTE_DIM(ipt_opts); k++)
		if (strncmp(ipt_opts[k].name, o->s, (size_t)(eq - o->s)) == 0 &&
			ipt_opts[k].name[eq - o->s] == '\0' && ipt_opts[k].id <= O_OUT)
			return 0;
	if (as->n == RULE_IPT_ARGS_MAX)
		return rule_ipt_err(p, o, "too many words");
	memmove(&as->a[i + 2], &as->a[i + 1], (as->n - i - 1) * sizeof(as->a[0]));
	as->n++;
	*eq = '\0';
	as->a[i + 1].s = eq + 1;
	as->a[i + 1].col = o->col + (unsigned int)(eq + 1 - o->s);
	as->a[i + 1].neg = false;
	as->a[i + 1].quoted = o->quoted;
	return 0;
}

/* One option at a[*i] (and its values), @neg if a '!' came before it. */
int
rule_ipt_opt(struct ipt *p, struct ipt_rl *rl, unsigned int *i, bool neg)
{
	const struct ipt_args *as = &p->args;
	const struct lex_tok *o = &as->a[*i], *v;
	unsigned int id;
	size_t k;
	int proto = 0, rc;
	bool multi;

	rc = split_eq(p, *i);
	if (rc < 0)
		return rc;
	for (k = 0; k < RTE_DIM(ipt_opts); k++)
		if (strcmp(ipt_opts[k].name, o->s) == 0)
			break;
	/* A prefix of multiport's --sports/--dports while it waits for its
	 * option and no port match holds --sport/--dport yet, as getopt_long
	 * reads "-m multiport --dport 53,953" (iptables saves --dports). */
	multi = k < RTE_DIM(ipt_opts) && (ipt_opts[k].id == O_SPORT || ipt_opts[k].id == O_DPORT) &&
		((rl->cur == MOD_MULTIPORT && !rl->cur_used) ||
			(rl->open & (1u << MOD_MULTIPORT))) &&
		rl->pmod == MOD_NONE;
	/* Target options first: "--to" is NETMAP's, not an abbreviation. */
	if (k == RTE_DIM(ipt_opts) ||
		(rl->tkind != RULE_X_NONE && rule_x_opt_find(rl->tkind, o->s, false) >= 0))
		return opt_ext(p, rl, i, neg);
	id = ipt_opts[k].id;
	if (multi)
		id = id == O_SPORT ? O_SPORTS : O_DPORTS;
	if (neg && !ipt_opts[k].inv)
		return rule_ipt_err(p, o, "option cannot be negated");
	if (id == O_FRAG) {
		rc = x_new(p, rl, RULE_XM_FRAGMENT, o);
		if (rc < 0)
			return rc;
		if (rl->seen & (1u << O_FRAG))
			return rule_ipt_err(p, o, "option given twice");
		rl->seen |= 1u << O_FRAG;
		rl->r.xm[rc].given = 1;
		rl->r.xm[rc].neg = neg;
		return 0;
	}
	if (*i + 1 >= as->n)
		return rule_ipt_err(p, o, "missing value");
	v = &as->a[++*i];
	if (ipt_opts[k].inv && strcmp(v->s, "!") == 0)
		return rule_ipt_err(p, v, RULE_IPT_OLD_NEG);
	if (id <= O_OUT) {
		unsigned int bit = 1u << (id == O_GOTO ? O_JUMP : id);

		if (id != O_MATCH && (rl->seen & bit))
			return rule_ipt_err(p, o,
				id == O_JUMP || id == O_GOTO ? "only one -j or -g per rule"
							     : "option given twice");
		rl->seen |= bit;
	}
	switch (id) {
	case O_SRC:
	case O_DST:
		if (strchr(v->s, ',') != NULL)
			rc = addr_list(p, rl, v, id == O_DST, neg);
		else
			rc = rule_ipt_prefix(p, v, &rl->r, id == O_SRC ? &rl->r.src : &rl->r.dst);
		if (rc < 0)
			return rc;
		rl->r.match |= id == O_SRC ? RULE_M_SRC : RULE_M_DST;
		if (neg)
			rl->r.neg |= id == O_SRC ? RULE_M_SRC : RULE_M_DST;
		return 0;
	case O_PROTO:
		rc = rule_ipt_proto(p, v, &proto);
		if (rc < 0)
			return rc;
		if (proto == 0) {
			if (neg)
				return rule_ipt_err(p, v, "rule would never match protocol");
			return 0;
		}
		rl->r.proto = (uint8_t)proto;
		rl->r.match |= RULE_M_PROTO;
		if (neg)
			rl->r.neg |= RULE_M_PROTO;
		return 0;
	case O_IN:
	case O_OUT:
		rc = rule_ipt_iface(p, v, id == O_IN ? rl->r.in_if : rl->r.out_if);
		if (rc < 0)
			return rc;
		rl->if_at[id == O_OUT] = o;
		rl->r.match |= id == O_IN ? RULE_M_IN : RULE_M_OUT;
		if (neg)
			rl->r.neg |= id == O_IN ? RULE_M_IN : RULE_M_OUT;
		return 0;
	case O_JUMP:
	case O_GOTO:
		return opt_target(p, rl, v, id == O_GOTO);
	case O_MATCH:
		return opt_match(p, rl, v);
	case O_COUNTERS:
		if (!rule_ipt_counter_valid(v->s, strlen(v->s)))
			return rule_ipt_err(p, v, "bad counters");
		rl->r.pkts = rule_ipt_counter(v->s);
		if (*i + 1 >= as->n)
			return rule_ipt_err(p, o, "missing value");
		v = &as->a[++*i];
		if (!rule_ipt_counter_valid(v->s, strlen(v->s)))
			return rule_ipt_err(p, v, "bad counters");
		rl->r.bytes = rule_ipt_counter(v->s);
		return 0;
	case O_SPORT:
	case O_DPORT:
		return opt_port(p, rl, o, v, id, neg);
	case O_SPORTS:
	case O_DPORTS:
	case O_PORTS:
		return opt_multiport(p, rl, o, v, id, neg);
	case O_CTSTATE:
	case O_STATE:
		return opt_ctstate(p, rl, o, v, id, neg);
	default:
		return opt_comment(p, rl, o, v);
	}
}