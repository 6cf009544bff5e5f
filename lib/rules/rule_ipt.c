/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save import, one rule line at a time.
 *
 * Parses "[counters] -A CHAIN options..." into rules of the model such that
 * the reference evaluator gives netfilter's verdicts: -s/-d/-p, the tcp,
 * udp, sctp, multiport, conntrack, state and comment matches, ACCEPT, DROP,
 * RETURN, jumps and gotos to user chains, SNAT, DNAT, MASQUERADE. Every
 * other option, match or target is an error naming it (a dropped match
 * would change what gets through). Several matches on one field are
 * combined exactly (port sets, state sets); "--ports" becomes two rules.
 * The values are rule_ipt_value.c's, the file around the lines
 * rule_ipt_load.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipt_priv.h"

#define IPT_PM_MAX    8	 /**< port matches in one rule */
#define IPT_CT_MAX    8	 /**< ctstate matches in one rule */

enum ipt_mod {
	MOD_NONE,
	MOD_TCP,
	MOD_UDP,
	MOD_SCTP,
	MOD_MULTIPORT,
	MOD_CONNTRACK,
	MOD_STATE,
	MOD_COMMENT,
};

enum ipt_optid {
	O_SRC,
	O_DST,
	O_PROTO,
	O_JUMP,
	O_GOTO,
	O_MATCH,
	O_COUNTERS,
	O_SPORT,
	O_DPORT,
	O_SPORTS,
	O_DPORTS,
	O_PORTS,
	O_CTSTATE,
	O_STATE,
	O_COMMENT,
	O_TO_SRC,
	O_TO_DST,
	O_TO_PORTS,
};

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
	{"--to-source", O_TO_SRC, false},
	{"--to-destination", O_TO_DST, false},
	{"--to-ports", O_TO_PORTS, false},
};

/* Options iptables knows that the subset refuses, with the reason. */
static const struct {
	const char *name;
	const char *msg;
} ipt_refused[] = {
	{"-i", "interface matches are not supported"},
	{"--in-interface", "interface matches are not supported"},
	{"-o", "interface matches are not supported"},
	{"--out-interface", "interface matches are not supported"},
	{"-f", "fragment matches are not supported"},
	{"--fragment", "fragment matches are not supported"},
	{"-4", "family switches are not supported"},
	{"--ipv4", "family switches are not supported"},
	{"-6", "family switches are not supported"},
	{"--ipv6", "family switches are not supported"},
	{"--syn", "TCP flag matches are not supported"},
	{"--tcp-flags", "TCP flag matches are not supported"},
	{"--tcp-option", "TCP option matches are not supported"},
	{"--icmp-type", "ICMP type matches are not supported"},
	{"--icmpv6-type", "ICMP type matches are not supported"},
	{"--chunk-types", "SCTP chunk matches are not supported"},
	{"--random", "NAT randomisation is not supported"},
	{"--random-fully", "NAT randomisation is not supported"},
	{"--persistent", "persistent NAT is not supported"},
	{"--ctproto", "conntrack matches other than --ctstate are not supported"},
	{"--ctorigsrc", "conntrack matches other than --ctstate are not supported"},
	{"--ctorigdst", "conntrack matches other than --ctstate are not supported"},
	{"--ctreplsrc", "conntrack matches other than --ctstate are not supported"},
	{"--ctrepldst", "conntrack matches other than --ctstate are not supported"},
	{"--ctorigsrcport", "conntrack matches other than --ctstate are not supported"},
	{"--ctorigdstport", "conntrack matches other than --ctstate are not supported"},
	{"--ctreplsrcport", "conntrack matches other than --ctstate are not supported"},
	{"--ctrepldstport", "conntrack matches other than --ctstate are not supported"},
	{"--ctstatus", "conntrack matches other than --ctstate are not supported"},
	{"--ctexpire", "conntrack matches other than --ctstate are not supported"},
	{"--ctdir", "conntrack matches other than --ctstate are not supported"},
	{"-t", "the table is given by a *table line"},
	{"--table", "the table is given by a *table line"},
	{"-I", "only -A is supported"},
	{"--insert", "only -A is supported"},
	{"-D", "only -A is supported"},
	{"--delete", "only -A is supported"},
	{"-R", "only -A is supported"},
	{"--replace", "only -A is supported"},
	{"-N", "only -A is supported"},
	{"--new-chain", "only -A is supported"},
	{"-X", "only -A is supported"},
	{"--delete-chain", "only -A is supported"},
	{"-F", "only -A is supported"},
	{"--flush", "only -A is supported"},
	{"-P", "only -A is supported"},
	{"--policy", "only -A is supported"},
	{"-Z", "only -A is supported"},
	{"--zero", "only -A is supported"},
	{"-E", "only -A is supported"},
	{"--rename-chain", "only -A is supported"},
};

/*
 * Target extensions: -j NAME means the extension even when a chain has
 * that name (iptables looks targets up first), so these can neither be
 * jumped to nor declared.
 */
/* clang-format off */
static const char *const ipt_targets[] = {
	"ACCEPT", "DROP", "RETURN", "QUEUE", "SNAT", "DNAT", "MASQUERADE", "REDIRECT",
	"NETMAP", "LOG", "NFLOG", "ULOG", "NFQUEUE", "REJECT", "MARK", "CONNMARK",
	"CONNSECMARK", "SECMARK", "CT", "NOTRACK", "TRACE", "TPROXY", "TCPMSS", "TCPOPTSTRIP",
	"CLASSIFY", "DSCP", "TOS", "TTL", "HL", "ECN", "SET", "AUDIT", "CHECKSUM",
	"IDLETIMER", "LED", "RATEEST", "TEE", "SYNPROXY", "CLUSTERIP", "HMARK",
};
/* clang-format on */

/** One port match: --sport/--dport, or one multiport option. */
struct ipt_pmatch {
	uint8_t dir; /**< PM_SRC, PM_DST or PM_EITHER (--ports) */
	bool neg;
	struct rule_ports ports;
	const struct lex_tok *at; /**< the option, for errors */
};

enum { PM_SRC, PM_DST, PM_EITHER };

/** A rule line being parsed. */
struct ipt_rl {
	struct rule r;		      /**< matches, action, target, comment */
	const struct lex_tok *cmd;    /**< the -A word */
	unsigned int seen;	      /**< 1 << O_* of single-use options given */
	const struct lex_tok *target; /**< -j/-g value, NULL if none */
	uint8_t pmod;		      /**< MOD_TCP/UDP/SCTP loaded (explicitly or not) */
	const struct lex_tok *pmod_at;
	unsigned int pmod_seen; /**< 1 << O_SPORT / O_DPORT given to it */
	uint8_t cur;		/**< module of the last -m */
	const struct lex_tok *cur_at;
	bool cur_used;			/**< the last -m got its option */
	const struct lex_tok *multi_at; /**< first -m multiport, for errors */
	unsigned int n_pm;
	struct ipt_pmatch pm[IPT_PM_MAX];
	unsigned int n_ct;
	struct {
		uint8_t set;
		bool neg;
	} ct[IPT_CT_MAX];
	const struct lex_tok *ct_at;
	const struct lex_tok *nat_at; /**< --to-* option */
	bool has_comment;
};

/* ------------------------------------------------------------------------ */
/* Port sets                                                                 */
/* ------------------------------------------------------------------------ */

static void
bm_set_list(uint64_t *bm, const struct rule_ports *l)
{
	memset(bm, 0, RULE_IPT_PORT_WORDS * sizeof(*bm));
	for (unsigned int i = 0; i < l->n; i++)
		for (uint32_t v = l->r[i].lo; v <= l->r[i].hi; v++)
			bm[v / 64] |= 1ull << (v % 64);
}

static bool
bm_get(const uint64_t *bm, uint32_t v)
{
	return (bm[v / 64] >> (v % 64)) & 1;
}

/* Runs of ports whose bit is @val; the first RULE_PORTS_MAX go to @out. */
static unsigned int
bm_runs(const uint64_t *bm, bool val, struct rule_ports *out)
{
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t v = 0; v < 65536;) {
		uint32_t lo;

		if (bm_get(bm, v) != val) {
			v++;
			continue;
		}
		lo = v;
		while (v < 65536 && bm_get(bm, v) == val)
			v++;
		if (n < RULE_PORTS_MAX) {
			out->r[n].lo = (uint16_t)lo;
			out->r[n].hi = (uint16_t)(v - 1);
		}
		n++;
	}
	out->n = (uint16_t)(n < RULE_PORTS_MAX ? n : RULE_PORTS_MAX);
	return n;
}

/*
 * The conjunction of @n port matches on one direction as one (possibly
 * negated) list. @return 1 if it can match, 0 if it never can, or -EINVAL
 * if it needs more ranges than a rule holds.
 */
static int
ports_and(struct ipt *p, const struct ipt_pmatch *const *pm, unsigned int n, struct rule_ports *out,
	bool *neg)
{
	struct rule_ports other;
	unsigned int pos, inv;

	if (n == 1) {
		*out = pm[0]->ports;
		*neg = pm[0]->neg;
		return 1;
	}
	for (unsigned int w = 0; w < RULE_IPT_PORT_WORDS; w++)
		p->bm[w] = ~0ull;
	for (unsigned int i = 0; i < n; i++) {
		bm_set_list(p->tmp, &pm[i]->ports);
		for (unsigned int w = 0; w < RULE_IPT_PORT_WORDS; w++)
			p->bm[w] &= pm[i]->neg ? ~p->tmp[w] : p->tmp[w];
	}
	pos = bm_runs(p->bm, true, out);
	if (pos == 0)
		return 0;
	inv = bm_runs(p->bm, false, &other);
	if (pos <= RULE_PORTS_MAX && (pos <= inv || inv == 0)) {
		*neg = false;
		return 1;
	}
	if (inv <= RULE_PORTS_MAX) {
		*out = other;
		*neg = true;
		return 1;
	}
	return rule_ipt_err(p, pm[0]->at, "port matches too complex to combine");
}

/* ------------------------------------------------------------------------ */
/* Rule lines                                                                */
/* ------------------------------------------------------------------------ */

static bool
proto_has_ports(const struct rule *r)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
	       (r->proto == RULE_PROTO_TCP || r->proto == RULE_PROTO_UDP ||
		       r->proto == RULE_PROTO_SCTP);
}

static uint8_t
mod_proto(uint8_t mod)
{
	return mod == MOD_TCP ? RULE_PROTO_TCP : mod == MOD_UDP ? RULE_PROTO_UDP : RULE_PROTO_SCTP;
}

static int
pend_add(struct ipt *p, const struct ipt_rl *rl, const struct rule *r)
{
	struct ipt_pend *e;
	const struct lex_tok *at = rl->target ? rl->target : rl->cmd;

	if (p->n_pend == p->cap_pend) {
		unsigned int cap = p->cap_pend ? p->cap_pend * 2 : 64;
		struct ipt_pend *n = realloc(p->pend, cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		p->pend = n;
		p->cap_pend = cap;
	}
	e = &p->pend[p->n_pend++];
	memset(e, 0, sizeof(*e));
	e->r = *r;
	e->table = p->table;
	snprintf(e->chain, sizeof(e->chain), "%s", rl->cmd[1].s);
	e->line = p->w.line;
	e->col = at->col;
	snprintf(e->token, sizeof(e->token), "%s", at->s);
	return 0;
}

/* A -m module got no option where it needs one. */
static int
mod_finish(struct ipt *p, struct ipt_rl *rl)
{
	const char *msg = NULL;

	if (rl->cur_used)
		return 0;
	switch (rl->cur) {
	case MOD_MULTIPORT:
		msg = "multiport needs --sports, --dports or --ports";
		break;
	case MOD_CONNTRACK:
		msg = "conntrack needs --ctstate";
		break;
	case MOD_STATE:
		msg = "state needs --state";
		break;
	case MOD_COMMENT:
		msg = "comment needs --comment";
		break;
	default:
		return 0;
	}
	return rule_ipt_err(p, rl->cur_at, msg);
}

static int
opt_match(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *v)
{
	static const struct {
		const char *name;
		uint8_t mod;
	} mods[] = {
		{"tcp", MOD_TCP},
		{"udp", MOD_UDP},
		{"sctp", MOD_SCTP},
		{"multiport", MOD_MULTIPORT},
		{"conntrack", MOD_CONNTRACK},
		{"state", MOD_STATE},
		{"comment", MOD_COMMENT},
	};
	uint8_t mod = MOD_NONE;
	int rc;

	rc = mod_finish(p, rl);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < RTE_DIM(mods); i++)
		if (strcmp(mods[i].name, v->s) == 0)
			mod = mods[i].mod;
	if (mod == MOD_NONE)
		return rule_ipt_err(p, v, "unsupported match");
	if (mod == MOD_TCP || mod == MOD_UDP || mod == MOD_SCTP) {
		if (rl->pmod != MOD_NONE && rl->pmod != mod)
			return rule_ipt_err(p, v, "conflicting protocol matches");
		if (rl->pmod == MOD_NONE) {
			rl->pmod = mod;
			rl->pmod_at = v;
		}
	}
	if (mod == MOD_MULTIPORT && rl->multi_at == NULL)
		rl->multi_at = v;
	rl->cur = mod;
	rl->cur_at = v;
	rl->cur_used = false;
	return 0;
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
		{"SNAT", RULE_ACT_SNAT},
		{"DNAT", RULE_ACT_DNAT},
		{"MASQUERADE", RULE_ACT_MASQUERADE},
	};
	const struct rule_chain *c;

	if (rl->target != NULL)
		return rule_ipt_err(p, v, "only one -j or -g per rule");
	rl->target = v;
	for (size_t i = 0; i < RTE_DIM(std); i++) {
		if (strcmp(std[i].name, v->s) != 0)
			continue;
		if (go)
			return rule_ipt_err(p, v, "-g needs a user-defined chain");
		if (!rule_action_in_table(std[i].action, p->table))
			return rule_ipt_err(p, v,
				p->table == RULE_TABLE_NAT
					? "DROP is not allowed in the nat table"
					: "NAT targets are only allowed in the nat table");
		rl->r.action = std[i].action;
		return 0;
	}
	for (size_t i = 0; i < RTE_DIM(ipt_targets); i++)
		if (strcmp(ipt_targets[i], v->s) == 0)
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
	rl->n_pm++;
	return 0;
}

/* --sport / --dport: the tcp/udp/sctp match, loaded by -m or implicitly by -p. */
static int
opt_port(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id, bool neg)
{
	if (rl->pmod == MOD_NONE) {
		if (!proto_has_ports(&rl->r))
			return rule_ipt_err(p, o, "port match needs -p tcp, udp or sctp");
		rl->pmod = rl->r.proto == RULE_PROTO_TCP   ? MOD_TCP
			   : rl->r.proto == RULE_PROTO_UDP ? MOD_UDP
							   : MOD_SCTP;
		rl->pmod_at = o;
	}
	if (rl->pmod_seen & (1u << id))
		return rule_ipt_err(p, o, "option given twice");
	rl->pmod_seen |= 1u << id;
	return pm_add(p, rl, o, v, id == O_SPORT ? PM_SRC : PM_DST, neg, false);
}

static int
opt_multiport(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id, bool neg)
{
	if (rl->cur != MOD_MULTIPORT)
		return rule_ipt_err(p, o, "option needs -m multiport");
	if (rl->cur_used)
		return rule_ipt_err(p, o, "multiport takes one option");
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
	int rc;

	if (rl->cur != want)
		return rule_ipt_err(p, o,
			id == O_CTSTATE ? "option needs -m conntrack" : "option needs -m state");
	if (rl->cur_used)
		return rule_ipt_err(p, o, "option given twice");
	if (rl->n_ct == IPT_CT_MAX)
		return rule_ipt_err(p, o, "too many state matches");
	rc = rule_ipt_ctstate(p, v, &rl->ct[rl->n_ct].set);
	if (rc < 0)
		return rc;
	rl->ct[rl->n_ct].neg = neg;
	rl->n_ct++;
	if (rl->ct_at == NULL)
		rl->ct_at = o;
	rl->cur_used = true;
	return 0;
}

static int
opt_comment(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v)
{
	size_t n = strlen(v->s);

	if (rl->cur != MOD_COMMENT)
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
	rl->cur_used = true;
	return 0;
}

static int
opt_nat(struct ipt *p, struct ipt_rl *rl, const struct lex_tok *o, const struct lex_tok *v,
	unsigned int id)
{
	uint8_t want = id == O_TO_SRC	? RULE_ACT_SNAT
		       : id == O_TO_DST ? RULE_ACT_DNAT
					: RULE_ACT_MASQUERADE;

	if (rl->target == NULL || rl->r.action != want)
		return rule_ipt_err(p, o,
			id == O_TO_SRC	 ? "option needs -j SNAT before it"
			: id == O_TO_DST ? "option needs -j DNAT before it"
					 : "option needs -j MASQUERADE before it");
	if (rl->nat_at != NULL)
		return rule_ipt_err(p, o, "option given twice");
	rl->nat_at = o;
	if (id == O_TO_PORTS) {
		memset(&rl->r.nat, 0, sizeof(rl->r.nat));
		if (!rule_ipt_natports(v->s, &rl->r.nat))
			return rule_ipt_err(p, v, "bad NAT port range");
		return 0;
	}
	return rule_ipt_nat(p, v, &rl->r);
}

static const char *
refused_msg(const char *s)
{
	for (size_t i = 0; i < RTE_DIM(ipt_refused); i++)
		if (strcmp(ipt_refused[i].name, s) == 0)
			return ipt_refused[i].msg;
	return NULL;
}

/* One option at a[*i] (and its values), @neg if a '!' came before it. */
static int
rule_opt(struct ipt *p, struct ipt_rl *rl, unsigned int *i, bool neg)
{
	const struct ipt_args *as = &p->args;
	const struct lex_tok *o = &as->a[*i], *v;
	const char *msg;
	unsigned int id;
	size_t k;
	int proto = 0, rc;

	for (k = 0; k < RTE_DIM(ipt_opts); k++)
		if (strcmp(ipt_opts[k].name, o->s) == 0)
			break;
	if (k == RTE_DIM(ipt_opts)) {
		msg = refused_msg(o->s);
		if (msg != NULL)
			return rule_ipt_err(p, o, msg);
		return rule_ipt_err(
			p, o, o->s[0] == '-' ? "unsupported option" : "unexpected word");
	}
	id = ipt_opts[k].id;
	if (neg && !ipt_opts[k].inv)
		return rule_ipt_err(p, o, "option cannot be negated");
	if (*i + 1 >= as->n)
		return rule_ipt_err(p, o, "missing value");
	v = &as->a[++*i];
	if (ipt_opts[k].inv && strcmp(v->s, "!") == 0) {
		/* The old "-s ! ADDR" spelling. */
		if (neg)
			return rule_ipt_err(p, v, "double negation");
		neg = true;
		if (*i + 1 >= as->n)
			return rule_ipt_err(p, o, "missing value");
		v = &as->a[++*i];
	}
	if (id <= O_GOTO || id == O_COUNTERS) {
		unsigned int bit = 1u << (id == O_GOTO ? O_JUMP : id);

		if (rl->seen & bit)
			return rule_ipt_err(p, o,
				id == O_JUMP || id == O_GOTO ? "only one -j or -g per rule"
							     : "option given twice");
		rl->seen |= bit;
	}
	switch (id) {
	case O_SRC:
	case O_DST:
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
	case O_JUMP:
	case O_GOTO:
		return opt_target(p, rl, v, id == O_GOTO);
	case O_MATCH:
		return opt_match(p, rl, v);
	case O_COUNTERS:
		if (!rule_ipt_counter_valid(v->s, strlen(v->s)))
			return rule_ipt_err(p, v, "bad counters");
		if (*i + 1 >= as->n)
			return rule_ipt_err(p, o, "missing value");
		v = &as->a[++*i];
		if (!rule_ipt_counter_valid(v->s, strlen(v->s)))
			return rule_ipt_err(p, v, "bad counters");
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
	case O_COMMENT:
		return opt_comment(p, rl, o, v);
	default:
		return opt_nat(p, rl, o, v, id);
	}
}

/* Combine the ctstate matches of a rule into its one (possibly negated) set. */
static int
rule_ctstate(struct ipt *p, struct ipt_rl *rl)
{
	uint8_t pos = RULE_CT_ALL, negs = 0;
	bool any_pos = false;

	if (rl->n_ct == 0)
		return 0;
	rl->r.match |= RULE_M_CTSTATE;
	if (rl->n_ct == 1) {
		rl->r.ctstate = rl->ct[0].set;
		if (rl->ct[0].neg)
			rl->r.neg |= RULE_M_CTSTATE;
		return 0;
	}
	/* A packet is in one state (or untracked: in none). */
	for (unsigned int i = 0; i < rl->n_ct; i++) {
		if (rl->ct[i].neg) {
			negs |= rl->ct[i].set;
		} else {
			pos &= rl->ct[i].set;
			any_pos = true;
		}
	}
	if (any_pos) {
		rl->r.ctstate = pos & (uint8_t)~negs;
		if (rl->r.ctstate == 0)
			return rule_ipt_err(p, rl->ct_at, "state matches can never match together");
	} else {
		rl->r.ctstate = negs;
		rl->r.neg |= RULE_M_CTSTATE;
	}
	return 0;
}

/* Apply the port matches of one variant to @r. @return 1, 0 (never matches), -EINVAL. */
static int
rule_ports_variant(struct ipt *p, struct ipt_rl *rl, int either_dir, struct rule *r)
{
	const struct ipt_pmatch *dir[2][IPT_PM_MAX + 1];
	unsigned int n[2] = {0, 0};
	bool neg = false;
	int rc;

	for (unsigned int i = 0; i < rl->n_pm; i++) {
		const struct ipt_pmatch *m = &rl->pm[i];

		if (m->dir == PM_EITHER) {
			if (m->neg) {
				/* Neither port in the list. */
				dir[0][n[0]++] = m;
				dir[1][n[1]++] = m;
			} else {
				dir[either_dir][n[either_dir]++] = m;
			}
		} else {
			dir[m->dir][n[m->dir]++] = m;
		}
	}
	for (unsigned int d = 0; d < 2; d++) {
		struct rule_ports *pp = d == PM_SRC ? &r->sport : &r->dport;

		if (n[d] == 0)
			continue;
		rc = ports_and(p, dir[d], n[d], pp, &neg);
		if (rc <= 0)
			return rc;
		r->match |= d == PM_SRC ? RULE_M_SPORT : RULE_M_DPORT;
		if (neg)
			r->neg |= d == PM_SRC ? RULE_M_SPORT : RULE_M_DPORT;
	}
	if (!(r->match & (RULE_M_SPORT | RULE_M_DPORT)) && rl->pmod != MOD_NONE) {
		/*
		 * A bare -m tcp/udp/sctp still fails on non-first fragments:
		 * a port match of every port keeps that.
		 */
		r->dport.n = 1;
		r->dport.r[0].lo = 0;
		r->dport.r[0].hi = 65535;
		r->match |= RULE_M_DPORT;
	}
	return 1;
}

/* Checks that need the whole rule, then queue it (one rule, or two for --ports). */
static int
rule_finish(struct ipt *p, struct ipt_rl *rl)
{
	const struct ipt_pmatch *either = NULL;
	unsigned int n_var = 1, added = 0;
	int rc;

	rc = mod_finish(p, rl);
	if (rc < 0)
		return rc;
	if (rl->pmod != MOD_NONE &&
		(!proto_has_ports(&rl->r) || rl->r.proto != mod_proto(rl->pmod)))
		return rule_ipt_err(p, rl->pmod_at, "protocol match needs the same -p protocol");
	if (rl->multi_at != NULL && !proto_has_ports(&rl->r))
		return rule_ipt_err(p, rl->multi_at, "multiport needs -p tcp, udp or sctp");
	if ((rl->r.action == RULE_ACT_SNAT || rl->r.action == RULE_ACT_DNAT) && rl->nat_at == NULL)
		return rule_ipt_err(p, rl->target,
			rl->r.action == RULE_ACT_SNAT ? "SNAT needs --to-source"
						      : "DNAT needs --to-destination");
	if (rl->nat_at != NULL && rl->r.nat.port_min != 0 && !proto_has_ports(&rl->r))
		return rule_ipt_err(p, rl->nat_at, "NAT ports need -p tcp, udp or sctp");
	rc = rule_ctstate(p, rl);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < rl->n_pm; i++) {
		if (rl->pm[i].dir != PM_EITHER || rl->pm[i].neg)
			continue;
		if (either != NULL)
			return rule_ipt_err(p, rl->pm[i].at, "only one --ports per rule");
		either = &rl->pm[i];
		/* sport in the list, else dport in it: two rules, see doc/iptables.md. */
		n_var = 2;
	}
	for (unsigned int v = 0; v < n_var; v++) {
		struct rule r = rl->r;
		const char *msg;

		rc = rule_ports_variant(p, rl, v == 0 ? PM_SRC : PM_DST, &r);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		if (rule_check(&r, &msg) < 0)
			return rule_ipt_err(p, rl->cmd, msg);
		added++;
		if (rl->target == NULL)
			continue; /* no target: counts packets, changes no verdict */
		rc = pend_add(p, rl, &r);
		if (rc < 0)
			return rc;
	}
	if (added == 0)
		return rule_ipt_err(p, rl->n_pm ? rl->pm[0].at : rl->cmd,
			"port matches can never match together");
	return 0;
}

int
rule_ipt_rule_line(struct ipt *p)
{
	const struct ipt_args *as = &p->args;
	const struct rule_chain *c;
	struct ipt_rl *rl;
	unsigned int i = 0;
	const char *msg;
	int rc = 0;

	if (!p->in_table)
		return rule_ipt_err(p, &as->a[0], "rule outside a table");
	if (as->a[0].s[0] == '[') {
		if (!rule_ipt_counters_valid(as->a[0].s))
			return rule_ipt_err(p, &as->a[0], "bad counters");
		i++;
		if (i == as->n)
			return rule_ipt_err(p, &as->a[0], "missing rule");
	}
	if (strcmp(as->a[i].s, "-A") != 0 && strcmp(as->a[i].s, "--append") != 0) {
		msg = refused_msg(as->a[i].s);
		return rule_ipt_err(p, &as->a[i], msg != NULL ? msg : "expected -A");
	}
	if (i + 1 == as->n)
		return rule_ipt_err(p, &as->a[i], "missing value");
	c = rule_set_chain_find(p->s, p->table, as->a[i + 1].s);
	if (c == NULL || c->builtin)
		return rule_ipt_err(p, &as->a[i + 1], "unknown chain");
	rl = calloc(1, sizeof(*rl));
	if (rl == NULL)
		return -ENOMEM;
	rule_init(&rl->r);
	rl->cmd = &as->a[i];
	for (i += 2; i < as->n; i++) {
		bool neg = false;

		if (strcmp(as->a[i].s, "!") == 0) {
			if (i + 1 == as->n) {
				rc = rule_ipt_err(p, &as->a[i], "missing option after !");
				goto out;
			}
			if (strcmp(as->a[i + 1].s, "!") == 0) {
				rc = rule_ipt_err(p, &as->a[i + 1], "double negation");
				goto out;
			}
			neg = true;
			i++;
		}
		rc = rule_opt(p, rl, &i, neg);
		if (rc < 0)
			goto out;
	}
	rc = rule_finish(p, rl);
out:
	free(rl);
	return rc;
}

bool
rule_ipt_is_target(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(ipt_targets); i++)
		if (strcmp(ipt_targets[i], name) == 0)
			return true;
	return false;
}
