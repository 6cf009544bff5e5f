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

static const char *const ct_names[] = {"new", "established", "related", "invalid"};

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

/* Port range "P" or "P-Q" (1..65535) into n->port_min/max. */
static bool
parse_nat_ports(const char *s, struct rule_nat *n)
{
	struct lex_port_range r;
	unsigned int cnt;

	if (lex_ports(&lex_ports_nat, s, strlen(s), &r, &cnt, NULL) != 0)
		return false;
	n->port_min = r.lo;
	n->port_max = r.hi;
	return true;
}

/* One address of a NAT target: "[v6]" or bare; *s advanced past it. */
static bool
parse_nat_addr(const char **s, bool bracketed, uint8_t *fam, uint8_t addr[16])
{
	const char *a = *s, *end;

	if (bracketed) {
		end = strchr(a, ']');
		if (*a != '[' || end == NULL)
			return false;
		if (lex_addr(a + 1, (size_t)(end - a - 1), fam, addr, NULL) < 0 || *fam != FC_AF_INET6)
			return false;
		*s = end + 1;
		return true;
	}
	end = a + strcspn(a, *fam == FC_AF_INET6 ? "-" : "-:");
	if (lex_addr(a, (size_t)(end - a), fam, addr, NULL) < 0)
		return false;
	*s = end;
	return true;
}

/*
 * NAT target: ADDR[-ADDR][:PORT[-PORT]] for IPv4; IPv6 as [ADDR][-[ADDR]][:PORTS]
 * or bare ADDR[-ADDR] (no ports).
 */
static int
parse_nat_target(struct parser *p, const struct lex_tok *t, struct rule *r)
{
	struct rule_nat *n = &r->nat;
	const char *s = t->s;
	bool br = s[0] == '[';
	uint8_t fam = 0, fam2;

	/* A bare address with two colons is IPv6 (and then takes no ports). */
	if (!br && strchr(s, ':') != strrchr(s, ':'))
		fam = FC_AF_INET6;
	fam2 = fam;
	if (!parse_nat_addr(&s, br, &fam, n->addr_min))
		goto bad;
	memcpy(n->addr_max, n->addr_min, sizeof(n->addr_max));
	if (*s == '-') {
		s++;
		if (!parse_nat_addr(&s, br, &fam2, n->addr_max) || fam2 != fam)
			goto bad;
	}
	if (*s == ':') {
		if (fam == FC_AF_INET6 && !br)
			goto bad;
		if (!parse_nat_ports(s + 1, n))
			goto bad;
	} else if (*s != '\0') {
		goto bad;
	}
	if (memcmp(n->addr_min, n->addr_max, 16) > 0)
		return rule_perr(p, t, "bad nat address range");
	n->family = fam;
	return set_family(p, t, r, fam);
bad:
	return rule_perr(p, t, "bad nat target");
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

int
rule_parse_name(struct parser *p, const struct lex_tok *t, char *out, const char *what)
{
	if (t->neg)
		return rule_perr(p, t, "negation not allowed here");
	if (t->quoted || !rule_name_valid(t->s))
		return rule_perr(p, t, what);
	snprintf(out, RULE_NAME_MAX, "%s", t->s);
	return 0;
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

/* Parse one field whose keyword is ts->t[*i]; *i is left on its last token. */
static int
parse_field(struct parser *p, const struct toks *ts, unsigned int *i, int f, struct rule *r)
{
	const struct lex_tok *k = &ts->t[*i], *v;
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
		return parse_local(p, v, &r->src_local);
	case F_DST_LOCAL:
		return parse_local(p, v, &r->dst_local);
	case F_PROTO:
		bit = RULE_M_PROTO;
		rc = parse_proto(p, v, r);
		break;
	case F_SPORT:
		bit = RULE_M_SPORT;
		rc = parse_ports(p, v, &r->sport);
		break;
	case F_DPORT:
		bit = RULE_M_DPORT;
		rc = parse_ports(p, v, &r->dport);
		break;
	case F_CTSTATE:
		bit = RULE_M_CTSTATE;
		rc = parse_ctstate(p, v, &r->ctstate);
		break;
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
		if (r->action != RULE_ACT_DNAT && r->action != RULE_ACT_SNAT)
			return rule_perr(p, k, "'to' only with dnat or snat");
		return parse_nat_target(p, v, r);
	case F_PORTS:
		if (r->action != RULE_ACT_MASQUERADE)
			return rule_perr(p, k, "ports only with masquerade");
		if (!parse_nat_ports(v->s, &r->nat))
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

static bool
has_port_proto(const struct rule *r)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
	       (r->proto == RULE_PROTO_TCP || r->proto == RULE_PROTO_UDP ||
		       r->proto == RULE_PROTO_SCTP);
}

int
rule_parse_toks(struct parser *p, const struct toks *ts, unsigned int first, struct rule *r,
	struct rpos *pos)
{
	const struct lex_tok *a = &ts->t[first], *port_kw = NULL;
	const struct lex_tok *where = a;
	unsigned int seen = 0;
	const char *msg;
	int act = rule_action_of(a->s), f, rc;

	rule_init(r);
	if (a->neg)
		return rule_perr(p, a, "negation not allowed here");
	r->action = (uint8_t)act;
	for (unsigned int i = first + 1; i < ts->n; i++) {
		const struct lex_tok *k = &ts->t[i];

		if (i == first + 1 && (act == RULE_ACT_JUMP || act == RULE_ACT_GOTO)) {
			rc = rule_parse_name(p, k, r->chain, "bad chain name");
			if (rc < 0)
				return rc;
			where = k;
			continue;
		}
		if (k->neg)
			return rule_perr(p, k, "negation not allowed here");
		f = k->quoted ? -1 : field_of(k->s);
		if (f < 0)
			return rule_perr(p, k, "unknown keyword");
		if (seen & (1u << f))
			return rule_perr(p, k, "duplicate field");
		seen |= 1u << f;
		if ((f == F_SPORT || f == F_DPORT) && port_kw == NULL)
			port_kw = k;
		rc = parse_field(p, ts, &i, f, r);
		if (rc < 0)
			return rc;
	}
	if ((act == RULE_ACT_JUMP || act == RULE_ACT_GOTO) && r->chain[0] == '\0')
		return rule_perr(p, a, "missing value");
	if ((act == RULE_ACT_DNAT || act == RULE_ACT_SNAT) && !(seen & (1u << F_TO)))
		return rule_perr(p, a, "missing 'to'");
	if (port_kw != NULL && !has_port_proto(r))
		return rule_perr(p, port_kw, "port match needs proto tcp, udp or sctp");
	if (rule_check(r, &msg) < 0)
		return rule_perr(p, a, msg);
	if (pos != NULL) {
		pos->line = p->w.line;
		pos->col = where->col;
		snprintf(pos->token, sizeof(pos->token), "%s", where->s);
	}
	return 0;
}
