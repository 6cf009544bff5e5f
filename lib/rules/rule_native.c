/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the native rule language (doc/rules.md), line level — its
 * syntax for the lexical toolkit (words, quoted strings with \" and \\,
 * '!' negations, '#' comments), the values (prefixes, port lists, ctstate
 * sets, NAT targets) and rule lines (an action, then matches in any order).
 * Errors carry the column and the token; rule_load.c builds statements and
 * whole texts on top of this.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_native_priv.h"
#include "rule_x_priv.h"

/** The native language's words. */
static const struct lex_syntax native_syntax = {
	.blanks = " \t",
	.quote = LEX_QUOTE_WORD,
	.escape = LEX_ESC_QUOTE,
	.comment = LEX_COMMENT_ANY,
	.negation = true,
	.refuse_ctrl = true,
	.max_words = TOKENS_MAX,
};

int
rule_perr(struct parser *p, const struct lex_tok *t, const char *msg)
{
	return lex_fail(&p->w, t->col, t->s, strlen(t->s), msg);
}

int
rule_tokenize(struct parser *p, char *line, struct toks *ts)
{
	struct lex_fault f;

	if (lex_split(&native_syntax, line, line, ts->t, &ts->n, &f) == 0)
		return 0;
	return lex_fail_fault(&p->w, 1, line, &f, NULL);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Report the fault of the value of token @p t (its own message unless @p msg). */
static int
value_err(struct parser *p, const struct lex_tok *t, const struct lex_fault *f, const char *msg)
{
	return lex_fail_fault(&p->w, t->col, t->s, f, msg);
}

/* Record the family that a value implies; mismatch is an error at @t. */
static int
set_family(struct parser *p, const struct lex_tok *t, struct rule *r, uint8_t family)
{
	if (r->family != 0 && r->family != family)
		return rule_perr(p, t, "address family mismatch");
	r->family = family;
	return 0;
}

/* A prefix whose host bits are clear: "bad address", "bad prefix length", "host bits set". */
static int
parse_prefix(struct parser *p, const struct lex_tok *t, struct rule *r, struct rule_prefix *pf)
{
	struct lex_prefix lp;
	struct lex_fault f;

	if (lex_prefix(t->s, strlen(t->s), LEX_PFX_HOST_REFUSE, &lp, &f) != 0)
		return value_err(p, t, &f, NULL);
	memcpy(pf->addr, lp.addr, sizeof(pf->addr));
	pf->len = lp.len;
	return set_family(p, t, r, lp.family);
}

/* "22,80,8000-8080": errors at the list item at fault. */
static int
parse_ports(struct parser *p, const struct lex_tok *t, struct rule_ports *pp)
{
	struct lex_port_range lr[RULE_PORTS_MAX];
	struct lex_fault f;
	unsigned int n;

	if (lex_ports(&lex_ports_native, t->s, strlen(t->s), lr, &n, &f) != 0)
		return value_err(p, t, &f, NULL);
	memset(pp, 0, sizeof(*pp));
	for (unsigned int i = 0; i < n; i++) {
		pp->r[i].lo = lr[i].lo;
		pp->r[i].hi = lr[i].hi;
	}
	pp->n = (uint16_t)n;
	return 0;
}

static const char *const ct_names[] = {
	"new", "established", "related", "invalid", "untracked", "snat", "dnat"};

static int
parse_ctstate(struct parser *p, const struct lex_tok *t, uint8_t *mask)
{
	const char *item = t->s;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(item, ",");
		unsigned int col = t->col + (unsigned int)(item - t->s);
		unsigned int i;

		if (len == 0)
			return rule_perr(p, t, "empty list item");
		for (i = 0; i < RTE_DIM(ct_names); i++)
			if (strlen(ct_names[i]) == len && memcmp(ct_names[i], item, len) == 0)
				break;
		if (i == RTE_DIM(ct_names))
			return lex_fail(&p->w, col, item, len, "unknown ctstate");
		if (*mask & (1u << i))
			return lex_fail(&p->w, col, item, len, "duplicate ctstate");
		*mask |= (uint8_t)(1u << i);
		if (item[len] == '\0')
			return 0;
		item += len + 1;
	}
}

static int
parse_local(struct parser *p, const struct lex_tok *t, uint8_t *v)
{
	if (strcmp(t->s, "yes") == 0)
		*v = RULE_LOCAL_YES;
	else if (strcmp(t->s, "no") == 0)
		*v = RULE_LOCAL_NO;
	else if (strcmp(t->s, "any") == 0)
		*v = RULE_LOCAL_ANY;
	else
		return rule_perr(p, t, "expected yes, no or any");
	return 0;
}

static int
parse_proto(struct parser *p, const struct lex_tok *t, struct rule *r)
{
	uint32_t v;
	int n;

	if (t->s[0] >= '0' && t->s[0] <= '9') {
		if (lex_u32(t->s, strlen(t->s), 255, LEX_NUM_DEC, &v, NULL) != 0)
			return rule_perr(p, t, "bad protocol number");
		r->proto = (uint8_t)v;
		return 0;
	}
	n = rule_proto_number(t->s);
	if (n < 0)
		return rule_perr(p, t, "unknown protocol");
	r->proto = (uint8_t)n;
	return 0;
}

static int
parse_name(struct parser *p, const struct lex_tok *t, char *out, const char *what, bool chain)
{
	if (t->neg)
		return rule_perr(p, t, "negation not allowed here");
	if (t->quoted || !(chain ? rule_chain_name_valid(t->s) : rule_name_valid(t->s)))
		return rule_perr(p, t, what);
	snprintf(out, RULE_NAME_MAX, "%s", t->s);
	return 0;
}

int
rule_parse_name(struct parser *p, const struct lex_tok *t, char *out, const char *what)
{
	return parse_name(p, t, out, what, false);
}

int
rule_parse_chain_name(struct parser *p, const struct lex_tok *t, char *out)
{
	return parse_name(p, t, out, "bad chain name", true);
}

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

int
rule_action_of(const char *s)
{
	for (unsigned int a = 0; a < RULE_ACT__COUNT; a++)
		if (strcmp(s, rule_action_name(a)) == 0)
			return (int)a;
	return -1;
}

/* Fields of a rule line: keyword, its match bit (0: none), whether '!' is allowed. */
enum field {
	F_FAMILY,
	F_SRC,
	F_DST,
	F_SRC_LOCAL,
	F_DST_LOCAL,
	F_PROTO,
	F_SPORT,
	F_DPORT,
	F_CTSTATE,
	F_COMMENT,
	F_CHANNEL,
	F_TO,
	F_PORTS,
	F_IN,
	F_OUT,
	F_COUNTERS,
	F__COUNT
};

static const struct {
	const char *kw;
	uint8_t negatable;
} fields[F__COUNT] = {
	[F_FAMILY] = {NULL, 0},
	[F_SRC] = {"src", 1},
	[F_DST] = {"dst", 1},
	[F_SRC_LOCAL] = {"src_local", 0},
	[F_DST_LOCAL] = {"dst_local", 0},
	[F_PROTO] = {"proto", 1},
	[F_SPORT] = {"sport", 1},
	[F_DPORT] = {"dport", 1},
	[F_CTSTATE] = {"ctstate", 1},
	[F_COMMENT] = {"comment", 0},
	[F_CHANNEL] = {"channel", 0},
	[F_TO] = {"to", 0},
	[F_PORTS] = {"ports", 0},
	[F_IN] = {"in", 1},
	[F_OUT] = {"out", 1},
	[F_COUNTERS] = {"counters", 0},
};

static int
field_of(const char *s)
{
	if (strcmp(s, "ipv4") == 0 || strcmp(s, "ipv6") == 0)
		return F_FAMILY;
	for (int f = F_SRC; f < F__COUNT; f++)
		if (strcmp(s, fields[f].kw) == 0)
			return f;
	return -1;
}

/* The NAT option of the action's kind that reads @vt (its "to" or "ports"), or NULL. */
static const struct rule_xopt *
nat_opt(const struct rule *r, unsigned int vt)
{
	unsigned int k = rule_x_kind_of_action(r->action);

	if (k == RULE_X_NONE || !rule_action_nat(r->action))
		return NULL;
	for (unsigned int i = 0; i < rule_xkinds[k].n; i++)
		if (rule_xkinds[k].o[i].vt == vt)
			return &rule_xkinds[k].o[i];
	return NULL;
}

static int
parse_iface(struct parser *p, const struct lex_tok *v, char *out)
{
	size_t n = strlen(v->s);

	if (n == 0 || n >= RULE_IFNAME_MAX)
		return rule_perr(p, v, "bad interface name");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v->s[i];

		if (c <= 0x20 || c >= 0x7f || c == '/' || c == '"' || c == '\\' || c == '#' ||
			c == '!' || (c == '+' && i != n - 1))
			return rule_perr(p, v, "bad interface name");
	}
	memcpy(out, v->s, n + 1);
	return 0;
}

static int
parse_counters(struct parser *p, const struct lex_tok *v, struct rule *r)
{
	const char *colon = strchr(v->s, ':');
	char *end;

	if (colon == NULL || colon == v->s || colon[1] == '\0')
		return rule_perr(p, v, "bad counters");
	for (const char *c = v->s; *c != '\0'; c++)
		if (c != colon && (*c < '0' || *c > '9'))
			return rule_perr(p, v, "bad counters");
	errno = 0;
	r->pkts = strtoull(v->s, &end, 10);
	r->bytes = strtoull(colon + 1, &end, 10);
	if (errno != 0)
		return rule_perr(p, v, "bad counters");
	return 0;
}

/* Parse one field whose keyword is ts->t[*i]; *i is left on its last token. */
static int
parse_field(struct parser *p, const struct toks *ts, unsigned int *i, int f, struct rule *r)
{
	const struct lex_tok *k = &ts->t[*i], *v;
	const struct rule_xopt *o;
	struct rule_xerr e;
	uint8_t bit = 0;
	int rc = 0;

	if (f == F_FAMILY)
		return set_family(p, k, r, strcmp(k->s, "ipv4") == 0 ? FC_AF_INET4 : FC_AF_INET6);
	if (*i + 1 >= ts->n)
		return rule_perr(p, k, "missing value");
	v = &ts->t[++*i];
	if (v->neg && !fields[f].negatable)
		return rule_perr(p, v, "negation not allowed here");
	if (v->quoted && f != F_COMMENT)
		return rule_perr(p, v, "unexpected string");
	switch (f) {
	case F_SRC:
		bit = RULE_M_SRC;
		rc = parse_prefix(p, v, r, &r->src);
		break;
	case F_DST:
		bit = RULE_M_DST;
		rc = parse_prefix(p, v, r, &r->dst);
		break;
	case F_SRC_LOCAL:
	case F_DST_LOCAL:
		/* A key field without a place of its own: the addrtype match keeps one. */
		if (rule_late_place(r, r->n_xm) != 0)
			return rule_perr(p, k,
				f == F_SRC_LOCAL
					? "src_local after limit, hashlimit, recent, statistic or "
					  "connlimit: write src_type LOCAL"
					: "dst_local after limit, hashlimit, recent, statistic or "
					  "connlimit: write dst_type LOCAL");
		return parse_local(p, v, f == F_SRC_LOCAL ? &r->src_local : &r->dst_local);
	case F_PROTO:
		bit = RULE_M_PROTO;
		rc = parse_proto(p, v, r);
		break;
	case F_SPORT:
		bit = RULE_M_SPORT;
		/* Its place: after the extension matches written so far (rule_late_order()). */
		r->sport_at = r->n_xm;
		rc = parse_ports(p, v, &r->sport);
		break;
	case F_DPORT:
		bit = RULE_M_DPORT;
		r->dport_at = r->n_xm;
		rc = parse_ports(p, v, &r->dport);
		break;
	case F_CTSTATE:
		bit = RULE_M_CTSTATE;
		r->ctstate_at = r->n_xm;
		rc = parse_ctstate(p, v, &r->ctstate);
		break;
	case F_IN:
		bit = RULE_M_IN;
		rc = parse_iface(p, v, r->in_if);
		break;
	case F_OUT:
		bit = RULE_M_OUT;
		rc = parse_iface(p, v, r->out_if);
		break;
	case F_COUNTERS:
		return parse_counters(p, v, r);
	case F_COMMENT:
		if (strlen(v->s) >= RULE_COMMENT_MAX)
			return rule_perr(p, v, "comment too long");
		snprintf(r->comment, sizeof(r->comment), "%s", v->s);
		return 0;
	case F_CHANNEL:
		if (r->action != RULE_ACT_ACCEPT)
			return rule_perr(p, k, "channel only with accept");
		return rule_parse_name(p, v, r->channel, "bad channel name");
	case F_TO:
		o = nat_opt(r, r->action == RULE_ACT_NETMAP ? VT_NETMAP : VT_NAT_TO);
		if (o == NULL)
			return rule_perr(p, k, "'to' only with dnat, snat or netmap");
		if (rule_xval_parse(o, (const char *const[]){v->s}, r, &(struct rule_x){0}, &e) < 0)
			return rule_perr(p, v, e.msg);
		return 0;
	case F_PORTS:
		o = nat_opt(r, VT_NAT_PORTS);
		if (o == NULL)
			return rule_perr(p, k, "ports only with masquerade or redirect");
		if (rule_xval_parse(o, (const char *const[]){v->s}, r, &(struct rule_x){0}, &e) < 0)
			return rule_perr(p, v, "bad nat port range");
		return 0;
	}
	if (rc < 0)
		return rc;
	r->match |= bit;
	if (v->neg)
		r->neg |= bit;
	return 0;
}

/* The extension match instance of @kind that option @oi goes to (see rule_format.c). */
static int
xm_for(struct parser *p, const struct lex_tok *k, struct rule *r, unsigned int kind,
	unsigned int oi)
{
	const struct rule_xopt *o = &rule_xkinds[kind].o[oi];
	unsigned int ri = (o->flags & XO_PARSE) ? o->alias : oi;

	for (int i = (int)r->n_xm - 1; i >= 0; i--)
		if (r->xm[i].kind == kind) {
			if (!(r->xm[i].given & (1u << ri)) && !(r->xm[i].given & o->excl))
				return i;
			break;
		}
	if (r->n_xm == RULE_XM_MAX)
		return rule_perr(p, k, "too many matches in one rule");
	memset(&r->xm[r->n_xm], 0, sizeof(r->xm[0]));
	r->xm[r->n_xm].kind = (uint8_t)kind;
	return r->n_xm++;
}

/* An extension option (match or target) whose keyword is ts->t[*i]. */
static int
parse_xopt(struct parser *p, const struct toks *ts, unsigned int *i, struct rule *r,
	struct rule_x *x, unsigned int oi)
{
	const struct lex_tok *k = &ts->t[*i], *w[2] = {NULL, NULL};
	const struct rule_xopt *o = &rule_xkinds[x->kind].o[oi];
	unsigned int nw = rule_x_opt_words(o), ri = (o->flags & XO_PARSE) ? o->alias : oi;
	const char *v[2] = {NULL, NULL};
	struct rule_xerr e = {NULL, 0};
	bool neg = k->neg;

	if (x->given & (1u << ri))
		return rule_perr(p, k, "duplicate field");
	if (x->given & o->excl)
		return rule_perr(p, k, "options exclude each other");
	if (neg && (nw > 0 || !(o->flags & XO_NEG)))
		return rule_perr(p, k, "negation not allowed here");
	for (unsigned int j = 0; j < nw; j++) {
		if (*i + 1 >= ts->n)
			return rule_perr(p, j == 0 ? k : w[0], "missing value");
		w[j] = &ts->t[++*i];
		if (w[j]->neg && (j > 0 || !(o->flags & XO_NEG)))
			return rule_perr(p, w[j], "negation not allowed here");
		if (w[j]->quoted && o->vt != VT_STR && o->vt != VT_STRPAT && o->vt != VT_U32 &&
			o->vt != VT_BPF)
			return rule_perr(p, w[j], "unexpected string");
		neg |= w[j]->neg;
		v[j] = w[j]->s;
	}
	if (rule_xval_parse(o, v, r, x, &e) < 0)
		return rule_perr(p, nw > 0 ? w[e.word] : k, e.msg);
	x->given |= (uint16_t)(1u << ri);
	if (neg)
		x->neg |= (uint16_t)(1u << ri);
	return 0;
}

static bool
has_port_proto(const struct rule *r)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
	       (r->proto == RULE_PROTO_TCP || r->proto == RULE_PROTO_UDP ||
		       r->proto == RULE_PROTO_SCTP || r->proto == RULE_PROTO_UDPLITE ||
		       r->proto == RULE_PROTO_DCCP);
}

int
rule_parse_toks(struct parser *p, const struct toks *ts, unsigned int first, struct rule *r,
	struct rpos *pos)
{
	const struct lex_tok *a = &ts->t[first], *port_kw = NULL;
	const struct lex_tok *where = a;
	struct rule_x natx;
	unsigned int seen = 0, tkind, kind;
	const char *msg;
	int act = rule_action_of(a->s), f, oi, rc;

	rule_init(r);
	if (a->neg)
		return rule_perr(p, a, "negation not allowed here");
	r->action = (uint8_t)act;
	tkind = rule_x_kind_of_action((unsigned int)act);
	memset(&natx, 0, sizeof(natx));
	natx.kind = (uint8_t)tkind;
	if (tkind != RULE_X_NONE && !rule_action_nat((unsigned int)act))
		r->tgt.kind = (uint8_t)tkind;
	for (unsigned int i = first + 1; i < ts->n; i++) {
		const struct lex_tok *k = &ts->t[i];

		if (i == first + 1 && (act == RULE_ACT_JUMP || act == RULE_ACT_GOTO)) {
			rc = rule_parse_chain_name(p, k, r->chain);
			if (rc < 0)
				return rc;
			where = k;
			continue;
		}
		f = k->quoted ? -1 : field_of(k->s);
		if (f >= 0) {
			if (k->neg)
				return rule_perr(p, k, "negation not allowed here");
			if (seen & (1u << f))
				return rule_perr(p, k, "duplicate field");
			seen |= 1u << f;
			if ((f == F_SPORT || f == F_DPORT) && port_kw == NULL)
				port_kw = k;
			rc = parse_field(p, ts, &i, f, r);
		} else if (!k->quoted && tkind != RULE_X_NONE &&
			   (oi = rule_x_opt_find(tkind, k->s, true)) >= 0) {
			rc = parse_xopt(p, ts, &i, r,
				rule_action_nat((unsigned int)act) ? &natx : &r->tgt,
				(unsigned int)oi);
		} else if (!k->quoted && (oi = rule_x_native_match(k->s, &kind)) >= 0) {
			rc = xm_for(p, k, r, kind, (unsigned int)oi);
			if (rc >= 0)
				rc = parse_xopt(p, ts, &i, r, &r->xm[rc], (unsigned int)oi);
		} else {
			return rule_perr(p, k, "unknown keyword");
		}
		if (rc < 0)
			return rc;
	}
	if ((act == RULE_ACT_JUMP || act == RULE_ACT_GOTO) && r->chain[0] == '\0')
		return rule_perr(p, a, "missing value");
	if ((act == RULE_ACT_DNAT || act == RULE_ACT_SNAT || act == RULE_ACT_NETMAP) &&
		!(seen & (1u << F_TO)))
		return rule_perr(p, a, "missing 'to'");
	if (port_kw != NULL && !has_port_proto(r))
		return rule_perr(p, port_kw, "port match needs proto tcp, udp, udplite, sctp or dccp");
	for (unsigned int i = 0; i < r->n_xm; i++)
		rule_x_finish(r, &r->xm[i]);
	/* A port or ctstate match after a meter (or recent, ...) is checked after it. */
	rule_late_order(r);
	if (r->tgt.kind != RULE_X_NONE)
		rule_x_finish(r, &r->tgt);
	if (r->tgt.given == 0)
		memset(&r->tgt, 0, sizeof(r->tgt)); /* no options: one value for "none" */
	if (rule_check(r, &msg) < 0)
		return rule_perr(p, a, msg);
	if (pos != NULL) {
		pos->line = p->w.line;
		pos->col = where->col;
		snprintf(pos->token, sizeof(pos->token), "%s", where->s);
	}
	return 0;
}
