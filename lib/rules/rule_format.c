/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: formatter of the native rule language.
 *
 * Writes rules and whole sets in the form rule_native.c reads back to equal
 * rules and chains: the flat section first (main's policy and rules, and the
 * dnat/snat chains when they hold only their own kind of rule), then the
 * other filter chains, then "table nat" and the remaining nat chains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_lang.h"
#include "rule_x_priv.h"

void
rule_buf_printf(struct rule_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->full = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		if (!b->grow) {
			b->full = true;
			/* Keep what fitted, NUL-terminated, like snprintf. */
			b->len = b->cap ? b->cap - 1 : 0;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n + 1;
		char *p = realloc(b->p, cap);

		if (p == NULL) {
			b->full = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

static void
buf_addr(struct rule_buf *b, unsigned int family, const uint8_t *addr, bool brackets)
{
	char s[LEX_ADDR_STRLEN] = "";

	lex_addr_format(family, addr, s, sizeof(s));
	if (brackets && family == FC_AF_INET6)
		rule_buf_printf(b, "[%s]", s);
	else
		rule_buf_printf(b, "%s", s);
}

static void
buf_prefix(struct rule_buf *b, const char *kw, const struct rule *r, const struct rule_prefix *p,
	bool neg)
{
	rule_buf_printf(b, " %s %s", kw, neg ? "!" : "");
	buf_addr(b, r->family, p->addr, false);
	if (p->len != fc_af_max_depth(r->family))
		rule_buf_printf(b, "/%u", p->len);
}

static void
buf_range(struct rule_buf *b, unsigned int lo, unsigned int hi)
{
	if (lo == hi)
		rule_buf_printf(b, "%u", lo);
	else
		rule_buf_printf(b, "%u-%u", lo, hi);
}

static void
buf_ports(struct rule_buf *b, const char *kw, const struct rule_ports *p, bool neg)
{
	rule_buf_printf(b, " %s %s", kw, neg ? "!" : "");
	for (unsigned int i = 0; i < p->n && i < RULE_PORTS_MAX; i++) {
		if (i > 0)
			rule_buf_printf(b, ",");
		buf_range(b, p->r[i].lo, p->r[i].hi);
	}
}

static const char *const local_words[] = {"any", "yes", "no"};
static const char *const ct_words[] = {
	"new", "established", "related", "invalid", "untracked", "snat", "dnat"};

/* The ctstate match, " ctstate [!]a,b". */
static void
buf_ctstate(struct rule_buf *b, const struct rule *r)
{
	const char *sep = "";

	rule_buf_printf(b, " ctstate %s", (r->neg & RULE_M_CTSTATE) ? "!" : "");
	for (unsigned int i = 0; i < RTE_DIM(ct_words); i++)
		if (r->ctstate & (1u << i)) {
			rule_buf_printf(b, "%s%s", sep, ct_words[i]);
			sep = ",";
		}
}

/* The options of extension @x, native keywords. */
static void
buf_x(struct rule_buf *b, const struct rule *r, const struct rule_x *x)
{
	const struct rule_xkind *k = &rule_xkinds[x->kind];
	unsigned int own = k->n;

	/* The option named as its kind (a bare `esp`) opens an instance when
	 * read back: it goes first, so the other options stay with it. */
	for (unsigned int i = 0; i < k->n; i++)
		if (k->o[i].nat != NULL && strcmp(k->o[i].nat, k->ipt) == 0 &&
			rule_x_opt_words(&k->o[i]) == 0)
			own = i;
	for (unsigned int j = 0; j < k->n; j++) {
		unsigned int i = own == k->n ? j : j == 0 ? own : j <= own ? j - 1 : j;
		const struct rule_xopt *o = &k->o[i];
		bool neg = (x->neg >> i) & 1;

		if (!((x->given >> i) & 1) || (o->flags & XO_PARSE))
			continue;
		o = rule_x_opt_written(x, i);
		if (rule_x_opt_words(o) == 0) {
			rule_buf_printf(b, " %s%s", neg ? "!" : "", o->nat);
			continue;
		}
		rule_buf_printf(b, " %s %s", o->nat, neg ? "!" : "");
		rule_xval_format(b, o, r, x, true);
	}
}

void
rule_buf_rule(struct rule_buf *b, const struct rule *r)
{
	bool has_addr = (r->match & (RULE_M_SRC | RULE_M_DST)) || r->nat.family != 0;

	rule_buf_printf(b, "%s", rule_action_name(r->action));
	switch (r->action) {
	case RULE_ACT_ACCEPT:
		if (r->channel[0] != '\0')
			rule_buf_printf(b, " channel %s", r->channel);
		break;
	case RULE_ACT_JUMP:
	case RULE_ACT_GOTO:
		rule_buf_printf(b, " %s", r->chain);
		break;
	default:
		if (rule_action_nat(r->action))
			rule_x_nat_format(b, r, true);
		else if (r->tgt.kind != RULE_X_NONE)
			buf_x(b, r, &r->tgt);
		break;
	}
	if (r->family != 0 && !has_addr)
		rule_buf_printf(b, " %s", r->family == FC_AF_INET6 ? "ipv6" : "ipv4");
	if (r->match & RULE_M_PROTO) {
		const char *name = rule_proto_name(r->proto);

		rule_buf_printf(b, " proto %s", (r->neg & RULE_M_PROTO) ? "!" : "");
		if (name != NULL)
			rule_buf_printf(b, "%s", name);
		else
			rule_buf_printf(b, "%u", r->proto);
	}
	if (r->match & RULE_M_SRC)
		buf_prefix(b, "src", r, &r->src, r->neg & RULE_M_SRC);
	if (r->match & RULE_M_DST)
		buf_prefix(b, "dst", r, &r->dst, r->neg & RULE_M_DST);
	if (r->match & RULE_M_IN)
		rule_buf_printf(b, " in %s%s", (r->neg & RULE_M_IN) ? "!" : "", r->in_if);
	if (r->match & RULE_M_OUT)
		rule_buf_printf(b, " out %s%s", (r->neg & RULE_M_OUT) ? "!" : "", r->out_if);
	if (r->src_local != RULE_LOCAL_ANY)
		rule_buf_printf(b, " src_local %s", local_words[r->src_local]);
	if (r->dst_local != RULE_LOCAL_ANY)
		rule_buf_printf(b, " dst_local %s", local_words[r->dst_local]);
	if ((r->match & RULE_M_SPORT) && r->sport_at == 0)
		buf_ports(b, "sport", &r->sport, r->neg & RULE_M_SPORT);
	if ((r->match & RULE_M_DPORT) && r->dport_at == 0)
		buf_ports(b, "dport", &r->dport, r->neg & RULE_M_DPORT);
	if ((r->match & RULE_M_CTSTATE) && r->ctstate_at == 0)
		buf_ctstate(b, r);
	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
		buf_x(b, r, &r->xm[i]);
		/* A port or ctstate match written after this match (a meter: it charges first). */
		if ((r->match & RULE_M_SPORT) && r->sport_at == i + 1)
			buf_ports(b, "sport", &r->sport, r->neg & RULE_M_SPORT);
		if ((r->match & RULE_M_DPORT) && r->dport_at == i + 1)
			buf_ports(b, "dport", &r->dport, r->neg & RULE_M_DPORT);
		if ((r->match & RULE_M_CTSTATE) && r->ctstate_at == i + 1)
			buf_ctstate(b, r);
	}
	if (r->comment[0] != '\0') {
		rule_buf_printf(b, " comment \"");
		for (const char *c = r->comment; *c != '\0'; c++) {
			if (*c == '"' || *c == '\\')
				rule_buf_printf(b, "\\%c", *c);
			else
				rule_buf_printf(b, "%c", *c);
		}
		rule_buf_printf(b, "\"");
	}
	if (r->pkts != 0 || r->bytes != 0)
		rule_buf_printf(b, " counters %llu:%llu", (unsigned long long)r->pkts,
			(unsigned long long)r->bytes);
}

int
rule_format(const struct rule *r, char *buf, size_t len)
{
	struct rule_buf b = {.p = buf, .cap = len};

	if (r == NULL || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (rule_check(r, NULL) < 0)
		return -EINVAL;
	rule_buf_rule(&b, r);
	return b.full ? -ENOSPC : (int)b.len;
}

/* True if every rule of @c has an action of @a or @b. */
static bool
chain_only(const struct rule_chain *c, unsigned int a, unsigned int b)
{
	/* A chain with a DROP policy is written as a chain, with its policy. */
	if (c->policy != RULE_POLICY_ACCEPT || c->policy6 != RULE_POLICY_ACCEPT)
		return false;
	for (uint32_t i = 0; i < c->n_rules; i++)
		if (c->rules[i].action != a && c->rules[i].action != b)
			return false;
	return true;
}

static void
buf_chain_rules(struct rule_buf *b, const struct rule_chain *c)
{
	for (uint32_t i = 0; i < c->n_rules; i++) {
		rule_buf_rule(b, &c->rules[i]);
		rule_buf_printf(b, "\n");
	}
}

static const char *const policy_words[] = {"accept", "drop"};

/* A base chain's policies, as options of its chain statement. */
static void
buf_policy(struct rule_buf *b, const struct rule_chain *c)
{
	if (c->policy == c->policy6) {
		if (c->policy == RULE_POLICY_DROP)
			rule_buf_printf(b, " policy drop");
		return;
	}
	rule_buf_printf(b, " policy4 %s policy6 %s", policy_words[c->policy & 1],
		policy_words[c->policy6 & 1]);
}

static void
buf_chain(struct rule_buf *b, const struct rule_chain *c)
{
	const char *sep = " hook ";

	rule_buf_printf(b, "\nchain %s", c->name);
	for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++)
		if (c->hooks & RULE_HOOK_F(h)) {
			rule_buf_printf(b, "%s%s", sep, rule_hook_name(h));
			sep = ",";
		}
	if (rule_chain_is_base(c))
		buf_policy(b, c);
	rule_buf_printf(b, "\n");
	buf_chain_rules(b, c);
}

static void
buf_set(struct rule_buf *b, const struct rule_set *s)
{
	const struct rule_tbl *f = &s->t[RULE_TABLE_FILTER];
	const struct rule_chain *main_c =
		rule_set_chain_find(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN);
	const struct rule_chain *dnat = rule_set_chain_find(s, RULE_TABLE_NAT, RULE_CHAIN_DNAT);
	const struct rule_chain *snat = rule_set_chain_find(s, RULE_TABLE_NAT, RULE_CHAIN_SNAT);
	bool flat_dnat = chain_only(dnat, RULE_ACT_DNAT, RULE_ACT_DNAT);
	bool flat_snat = chain_only(snat, RULE_ACT_SNAT, RULE_ACT_MASQUERADE);

	if (main_c->policy != main_c->policy6)
		rule_buf_printf(b, "policy %s ipv4\npolicy %s ipv6\n", policy_words[main_c->policy & 1],
			policy_words[main_c->policy6 & 1]);
	else if (main_c->policy == RULE_POLICY_DROP)
		rule_buf_printf(b, "policy drop\n");
	buf_chain_rules(b, main_c);
	if (flat_dnat)
		buf_chain_rules(b, dnat);
	if (flat_snat)
		buf_chain_rules(b, snat);
	for (unsigned int i = 0; i < f->n; i++)
		if (&f->chains[i] != main_c)
			buf_chain(b, &f->chains[i]);
	for (unsigned int t = RULE_TABLE_NAT; t < RULE_TABLE__COUNT; t++) {
		const struct rule_tbl *n = &s->t[t];
		bool header = false;

		for (unsigned int i = 0; i < n->n; i++) {
			const struct rule_chain *c = &n->chains[i];

			if ((c == dnat && flat_dnat) || (c == snat && flat_snat))
				continue;
			if (!header)
				rule_buf_printf(b, "\ntable %s\n", rule_table_name(t));
			header = true;
			buf_chain(b, c);
		}
	}
}

int
rule_set_format(const struct rule_set *s, char *buf, size_t len)
{
	struct rule_buf b = {.p = buf, .cap = len};

	if (s == NULL || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	buf_set(&b, s);
	return b.full ? -ENOSPC : (int)b.len;
}

int
rule_set_dump(const struct rule_set *s, FILE *f)
{
	struct rule_buf b = {.grow = true, .cap = 4096};
	int rc = 0;

	if (s == NULL || f == NULL)
		return -EINVAL;
	b.p = malloc(b.cap);
	if (b.p == NULL)
		return -ENOMEM;
	b.p[0] = '\0';
	buf_set(&b, s);
	if (b.full)
		rc = -ENOMEM;
	else if (fwrite(b.p, 1, b.len, f) != b.len || fflush(f) != 0)
		rc = -EIO;
	free(b.p);
	return rc;
}
