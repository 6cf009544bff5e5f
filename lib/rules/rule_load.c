/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: statements and texts of the native rule language — "policy",
 * "table", "chain" and rule lines applied to a private copy of a set, then
 * the whole-set check; entry points for texts, files, shell lines
 * (rule_set_apply) and single rules (rule_parse). All or nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_native_priv.h"

/* ------------------------------------------------------------------------ */
/* Statements                                                                */
/* ------------------------------------------------------------------------ */

static int
parse_policy_word(struct parser *p, const struct lex_tok *t, uint8_t *pol)
{
	if (t->neg)
		return rule_perr(p, t, "negation not allowed here");
	if (strcmp(t->s, "accept") == 0)
		*pol = RULE_POLICY_ACCEPT;
	else if (strcmp(t->s, "drop") == 0)
		*pol = RULE_POLICY_DROP;
	else
		return rule_perr(p, t, "expected accept or drop");
	return 0;
}

static struct rule_chain *
cur_chain(struct parser *p)
{
	return &p->s->t[p->table].chains[p->chain];
}

/* Set the policy of @c for @family (0: both). */
static void
set_policy(struct rule_chain *c, unsigned int family, uint8_t pol)
{
	if (family != FC_AF_INET6)
		c->policy = pol;
	if (family != FC_AF_INET4)
		c->policy6 = pol;
}

/* policy accept|drop [ipv4|ipv6] */
static int
stmt_policy(struct parser *p, const struct toks *ts)
{
	struct rule_chain *c;
	unsigned int family = 0;
	uint8_t pol = 0;
	int rc;

	if (ts->n < 2)
		return rule_perr(p, &ts->t[0], "missing value");
	if (ts->n > 3)
		return rule_perr(p, &ts->t[3], "unexpected token");
	rc = parse_policy_word(p, &ts->t[1], &pol);
	if (rc < 0)
		return rc;
	if (ts->n == 3) {
		if (!ts->t[2].neg && strcmp(ts->t[2].s, "ipv4") == 0)
			family = FC_AF_INET4;
		else if (!ts->t[2].neg && strcmp(ts->t[2].s, "ipv6") == 0)
			family = FC_AF_INET6;
		else
			return rule_perr(p, &ts->t[2], "unexpected token");
	}
	if (p->table != RULE_TABLE_FILTER && p->chain < 0)
		return rule_perr(p, &ts->t[0], "policy only for base chains");
	c = p->chain < 0 ? &p->s->t[RULE_TABLE_FILTER].chains[0] : cur_chain(p);
	if (!rule_chain_is_base(c))
		return rule_perr(p, &ts->t[0], "policy only for base chains");
	set_policy(c, family, pol);
	return 0;
}

static int
stmt_table(struct parser *p, const struct toks *ts)
{
	const struct lex_tok *v;
	unsigned int t;

	if (ts->n < 2)
		return rule_perr(p, &ts->t[0], "missing value");
	if (ts->n > 2)
		return rule_perr(p, &ts->t[2], "unexpected token");
	v = &ts->t[1];
	for (t = 0; t < RULE_TABLE__COUNT; t++)
		if (!v->neg && strcmp(v->s, rule_table_name(t)) == 0)
			break;
	if (t == RULE_TABLE__COUNT)
		return rule_perr(p, v, "unknown table");
	p->table = t;
	p->chain = -1;
	return 0;
}

static int
parse_hooks(struct parser *p, const struct lex_tok *t, unsigned int *hooks)
{
	const char *item = t->s;

	*hooks = 0;
	for (;;) {
		size_t len = strcspn(item, ",");
		unsigned int col = t->col + (unsigned int)(item - t->s);
		unsigned int h;

		if (len == 0)
			return rule_perr(p, t, "empty list item");
		for (h = 0; h < RULE_HOOK__COUNT; h++)
			if (strlen(rule_hook_name(h)) == len &&
				memcmp(rule_hook_name(h), item, len) == 0)
				break;
		if (h == RULE_HOOK__COUNT)
			return lex_fail(&p->w, col, item, len, "unknown hook");
		if (!(rule_table_hooks(p->table) & RULE_HOOK_F(h)))
			return lex_fail(&p->w, col, item, len, "hook not in this table");
		for (unsigned int i = 0; i < p->s->t[p->table].n; i++) {
			const struct rule_chain *o = &p->s->t[p->table].chains[i];

			if ((o->hooks & RULE_HOOK_F(h)) &&
				(p->chain < 0 || i != (unsigned int)p->chain))
				return lex_fail(&p->w, col, item, len, "hook already claimed");
		}
		*hooks |= RULE_HOOK_F(h);
		if (item[len] == '\0')
			return 0;
		item += len + 1;
	}
}

/* chain NAME [hook H[,H...]] [policy accept|drop] */
static int
stmt_chain(struct parser *p, const struct toks *ts)
{
	char name[RULE_NAME_MAX];
	unsigned int hooks = 0, seen = 0;
	const struct lex_tok *pol_kw = NULL;
	uint8_t pol[3] = {0, 0, 0};
	int rc, i;

	if (ts->n < 2)
		return rule_perr(p, &ts->t[0], "missing value");
	rc = rule_parse_chain_name(p, &ts->t[1], name);
	if (rc < 0)
		return rc;
	i = rule_tbl_find(p->s, p->table, name);
	if (i < 0) {
		rc = rule_set_chain_add(p->s, p->table, name, 0, RULE_POLICY_ACCEPT);
		if (rc < 0)
			return rc == -ENOMEM ? rc : rule_perr(p, &ts->t[1], "bad chain name");
		i = (int)p->s->t[p->table].n - 1;
	}
	p->chain = i;
	for (unsigned int j = 2; j < ts->n; j++) {
		const struct lex_tok *k = &ts->t[j];
		unsigned int bit;

		if (k->neg)
			return rule_perr(p, k, "negation not allowed here");
		if (strcmp(k->s, "hook") == 0)
			bit = 1;
		else if (strcmp(k->s, "policy") == 0)
			bit = 2;
		else if (strcmp(k->s, "policy4") == 0)
			bit = 4;
		else if (strcmp(k->s, "policy6") == 0)
			bit = 8;
		else
			return rule_perr(p, k, "unexpected token");
		if ((seen & bit) || (bit >= 4 && (seen & 2)) || (bit == 2 && (seen & 12)))
			return rule_perr(p, k, "duplicate field");
		seen |= bit;
		if (j + 1 >= ts->n)
			return rule_perr(p, k, "missing value");
		j++;
		if (bit >= 2) {
			pol_kw = k;
			rc = parse_policy_word(p, &ts->t[j], &pol[bit == 2 ? 0 : bit == 4 ? 1 : 2]);
		} else if (cur_chain(p)->builtin) {
			rc = rule_perr(p, k, "built-in chain takes no hook");
		} else {
			rc = parse_hooks(p, &ts->t[j], &hooks);
		}
		if (rc < 0)
			return rc;
	}
	cur_chain(p)->hooks |= (uint8_t)hooks;
	if (pol_kw != NULL) {
		if (!rule_chain_is_base(cur_chain(p)))
			return rule_perr(p, pol_kw, "policy only for base chains");
		if (seen & 2)
			set_policy(cur_chain(p), 0, pol[0]);
		if (seen & 4)
			set_policy(cur_chain(p), FC_AF_INET4, pol[1]);
		if (seen & 8)
			set_policy(cur_chain(p), FC_AF_INET6, pol[2]);
	}
	return 0;
}

static int
remember_pos(struct parser *p, const struct rpos *pos)
{
	if (p->n_pos == p->cap_pos) {
		unsigned int cap = p->cap_pos ? p->cap_pos * 2 : 64;
		struct rpos *n = realloc(p->pos, cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		p->pos = n;
		p->cap_pos = cap;
	}
	p->pos[p->n_pos++] = *pos;
	return 0;
}

static int
stmt_rule(struct parser *p, const struct toks *ts)
{
	struct rule_chain *c;
	struct rule r;
	struct rpos pos;
	enum rule_table t;
	const char *name;
	int rc;

	rc = rule_parse_toks(p, ts, 0, &r, &pos);
	if (rc < 0)
		return rc;
	if (p->chain >= 0) {
		c = cur_chain(p);
		if (!rule_action_in_table(r.action, p->table))
			return rule_perr(p, &ts->t[0],
				p->table == RULE_TABLE_NAT && r.action == RULE_ACT_DROP
					? "drop not allowed in nat table"
				: rule_action_nat(r.action) ? "nat action in filter table"
							    : "action not allowed in this table");
	} else {
		name = rule_default_chain(&r, &t);
		if ((p->table != RULE_TABLE_FILTER && t != RULE_TABLE_NAT) ||
			(p->table != RULE_TABLE_FILTER && p->table != RULE_TABLE_NAT))
			return rule_perr(p, &ts->t[0], "rule needs a chain section here");
		if (!rule_action_in_table(r.action, t))
			return rule_perr(p, &ts->t[0],
				"action needs a chain section of its table here");
		c = &p->s->t[t].chains[rule_tbl_find(p->s, t, name)];
	}
	rc = rule_chain_insert(p->s, c, RULE_POS_END, &r, &pos.id);
	if (rc == 0)
		rc = remember_pos(p, &pos);
	if (rc < 0)
		return rule_perr(p, &ts->t[0], rc == -ENOSPC ? "too many rules" : "out of memory");
	return 0;
}

static int
parse_statement(struct parser *p, char *line)
{
	struct toks ts;
	const struct lex_tok *k;
	int rc;

	rc = rule_tokenize(p, line, &ts);
	if (rc < 0 || ts.n == 0)
		return rc;
	k = &ts.t[0];
	if (k->neg)
		return rule_perr(p, k, "negation not allowed here");
	if (!k->quoted && strcmp(k->s, "policy") == 0)
		return stmt_policy(p, &ts);
	if (!k->quoted && strcmp(k->s, "table") == 0)
		return stmt_table(p, &ts);
	if (!k->quoted && strcmp(k->s, "chain") == 0)
		return stmt_chain(p, &ts);
	if (!k->quoted && rule_action_of(k->s) >= 0)
		return stmt_rule(p, &ts);
	return rule_perr(p, k, "unknown statement");
}

/* Parse @text into p->s (which the caller owns), then check the set. */
static int
parse_text(struct parser *p, const char *text)
{
	struct lex_reader rd;
	char *line;
	uint32_t bad;
	const char *msg;
	int rc;

	p->table = RULE_TABLE_FILTER;
	p->chain = -1;
	lex_reader_init(&rd, text);
	while ((rc = lex_reader_next(&rd, &line, NULL)) == 1) {
		p->w.line = rd.line;
		rc = parse_statement(p, line);
		if (rc < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	rc = rule_set_check(p->s, &bad, &msg);
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		p->w.line = 0;
		for (unsigned int i = 0; i < p->n_pos; i++)
			if (p->pos[i].id == bad) {
				p->w.line = p->pos[i].line;
				rc = lex_fail(&p->w, p->pos[i].col, p->pos[i].token,
					strlen(p->pos[i].token), msg);
				goto out;
			}
		rc = lex_fail(&p->w, 0, NULL, 0, msg);
	}
out:
	lex_reader_fini(&rd);
	return rc;
}

/* Common tail: run the parser over @s (consumed on error). */
static struct rule_set *
parse_into(struct rule_set *s, const char *text, const char *name, struct rule_error *err)
{
	struct parser p = {.s = s, .w = {.file = name, .err = err}};
	struct rule_set *prev;
	int rc;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (s == NULL)
		return NULL;
	/* Programs too long for a rule's bytes are held by the set (rule_xblob.c). */
	prev = rule_xblob_parse_set(s);
	rc = parse_text(&p, text);
	rule_xblob_parse_set(prev);
	free(p.pos);
	if (rc < 0) {
		rule_set_free(s);
		if (rc == -ENOMEM && err != NULL)
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		errno = -rc;
		return NULL;
	}
	return s;
}

struct rule_set *
rule_set_parse(const char *text, const char *name, struct rule_error *err)
{
	if (text == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return parse_into(rule_set_create(), text, name, err);
}

struct rule_set *
rule_set_apply(
	const struct rule_set *base, const char *text, const char *name, struct rule_error *err)
{
	if (base == NULL || text == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return parse_into(rule_set_clone(base), text, name, err);
}

struct rule_set *
rule_set_load(const char *path, struct rule_error *err)
{
	struct rule_set *s;
	char *text = lex_file_read(path, err);
	int e;

	if (text == NULL)
		return NULL;
	s = parse_into(rule_set_create(), text, path, err);
	e = s == NULL ? errno : 0;
	free(text);
	errno = e;
	return s;
}

static int
parse_one(const char *line, struct rule *r, struct rule_error *err)
{
	struct parser p = {.w = {.err = err, .line = 1}};
	struct toks ts;
	char *copy;
	int rc;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (line == NULL || r == NULL)
		return -EINVAL;
	copy = strdup(line);
	if (copy == NULL)
		return -ENOMEM;
	rc = rule_tokenize(&p, copy, &ts);
	if (rc < 0)
		goto out;
	if (ts.n == 0) {
		rc = lex_fail(&p.w, 1, NULL, 0, "missing rule");
		goto out;
	}
	if (ts.t[0].quoted || ts.t[0].neg || rule_action_of(ts.t[0].s) < 0) {
		rc = rule_perr(&p, &ts.t[0], "not a rule");
		goto out;
	}
	rc = rule_parse_toks(&p, &ts, 0, r, NULL);
out:
	free(copy);
	return rc;
}

int
rule_parse(const char *line, struct rule *r, struct rule_error *err)
{
	return rule_parse_set(line, NULL, r, err);
}

int
rule_parse_set(const char *line, struct rule_set *s, struct rule *r, struct rule_error *err)
{
	struct rule_set *prev = rule_xblob_parse_set(s);
	int rc = parse_one(line, r, err);

	rule_xblob_parse_set(prev);
	return rc;
}

const char *
rule_default_chain(const struct rule *r, enum rule_table *table)
{
	switch (r->action) {
	case RULE_ACT_DNAT:
	case RULE_ACT_REDIRECT:
	case RULE_ACT_NETMAP:
		*table = RULE_TABLE_NAT;
		return RULE_CHAIN_DNAT;
	case RULE_ACT_SNAT:
	case RULE_ACT_MASQUERADE:
		*table = RULE_TABLE_NAT;
		return RULE_CHAIN_SNAT;
	default:
		*table = RULE_TABLE_FILTER;
		return RULE_CHAIN_MAIN;
	}
}
