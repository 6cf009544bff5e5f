/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of rule-set editing: built-in chains, adding chains and rules
 * (positions, ids), deleting, replacing, the whole-set checks that refuse
 * dangling targets, loops, deep nesting and misplaced actions (leaving the
 * set unchanged), and deep copies that stay independent.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rule_lang.h"
#include "rules.h"

static struct rule
R(const char *text) {
	struct rule_error err;
	struct rule r;

	if (rule_parse(text, &r, &err) != 0)
		fail_msg("'%s': %s '%s'", text, err.msg, err.token);
	return r;
}

static char *
text_of(const struct rule_set *s)
{
	char *buf = malloc(1 << 16);

	assert_non_null(buf);
	assert_true(rule_set_format(s, buf, 1 << 16) >= 0);
	return buf;
}

static const struct rule_chain *
chain(const struct rule_set *s, enum rule_table t, const char *name)
{
	const struct rule_chain *c = rule_set_chain_find(s, t, name);

	assert_non_null(c);
	return c;
}

#define FILTER RULE_TABLE_FILTER
#define NAT    RULE_TABLE_NAT

static void
test_create(void **state)
{
	struct rule_set *s = rule_set_create();
	const struct rule_chain *c;

	(void)state;
	assert_non_null(s);
	assert_int_equal(rule_set_chain_count(s, FILTER), 1);
	assert_int_equal(rule_set_chain_count(s, NAT), 2);
	c = rule_set_chain_at(s, FILTER, 0);
	assert_string_equal(c->name, RULE_CHAIN_MAIN);
	assert_true(c->builtin);
	assert_int_equal(c->policy, RULE_POLICY_ACCEPT);
	assert_int_equal(c->hooks, 0);
	assert_null(rule_set_chain_at(s, FILTER, 1));
	assert_string_equal(rule_set_chain_at(s, NAT, 0)->name, RULE_CHAIN_DNAT);
	assert_string_equal(rule_set_chain_at(s, NAT, 1)->name, RULE_CHAIN_SNAT);
	assert_string_equal(rule_set_hook_chain(s, NAT, RULE_HOOK_PREROUTING)->name, "dnat");
	assert_string_equal(rule_set_hook_chain(s, NAT, RULE_HOOK_POSTROUTING)->name, "snat");
	assert_null(rule_set_hook_chain(s, NAT, RULE_HOOK_INPUT));
	assert_null(rule_set_hook_chain(s, NAT, RULE_HOOK_OUTPUT));
	assert_null(rule_set_chain_find(s, FILTER, "dnat"));
	assert_int_equal(rule_set_rule_count(s), 0);
	assert_int_equal(rule_set_generation(s), 0);
	rule_set_generation_set(s, 42);
	assert_int_equal(rule_set_generation(s), 42);
	assert_string_equal(rule_action_name(RULE_ACT_MASQUERADE), "masquerade");
	assert_string_equal(rule_action_name(99), "?");
	assert_string_equal(rule_hook_name(RULE_HOOK_FORWARD), "forward");
	assert_string_equal(rule_table_name(NAT), "nat");
	rule_set_free(s);
	rule_set_free(NULL);
}

static void
test_add_positions(void **state)
{
	struct rule_set *s = rule_set_create();
	struct rule r;
	uint32_t id[5];
	const struct rule_chain *c;
	const struct rule_chain *fc;
	enum rule_table t;
	uint32_t pos;

	(void)state;
	r = R("accept proto tcp");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, &id[0]), 0);
	r = R("accept proto udp");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, &id[1]), 0);
	r = R("drop");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", 0, &r, &id[2]), 0);
	r = R("accept proto icmp");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", 2, &r, &id[3]), 0);
	r = R("return");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", 1000, &r, &id[4]), 0);
	/* Ids are unique and increase. */
	for (int i = 1; i < 5; i++)
		assert_true(id[i] > id[i - 1]);
	assert_int_equal(id[0], 1);

	c = chain(s, FILTER, "main");
	assert_int_equal(c->n_rules, 5);
	assert_int_equal(c->rules[0].id, id[2]);
	assert_int_equal(c->rules[1].id, id[0]);
	assert_int_equal(c->rules[2].id, id[3]);
	assert_int_equal(c->rules[3].id, id[1]);
	assert_int_equal(c->rules[4].id, id[4]);
	assert_true(rule_equal(&c->rules[2],
		&(struct rule){.action = RULE_ACT_ACCEPT, .match = RULE_M_PROTO, .proto = 1}));

	assert_non_null(rule_set_rule_find(s, id[3], &t, &fc, &pos));
	assert_int_equal(t, FILTER);
	assert_ptr_equal(fc, c);
	assert_int_equal(pos, 2);
	assert_null(rule_set_rule_find(s, 999, NULL, NULL, NULL));
	assert_null(rule_set_rule_find(s, RULE_ID_POLICY, NULL, NULL, NULL));

	/* The id of the argument is ignored; NULL id pointer is fine. */
	r = R("drop proto udp");
	r.id = id[0];
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), 0);
	assert_int_equal(chain(s, FILTER, "main")->rules[5].id, id[4] + 1);
	assert_int_equal(rule_set_rule_count(s), 6);

	/* NAT rules go to nat chains. */
	r = R("dnat to 10.0.0.1 proto tcp dport 80");
	assert_int_equal(rule_set_rule_add(s, NAT, "dnat", RULE_POS_END, &r, &id[0]), 0);
	assert_non_null(rule_set_rule_find(s, id[0], &t, NULL, NULL));
	assert_int_equal(t, NAT);
	rule_set_free(s);
}

static void
test_add_refused(void **state)
{
	struct rule_set *s = rule_set_create();
	struct rule r;
	char *before;

	(void)state;
	assert_int_equal(rule_set_chain_add(s, FILTER, "a", 0, RULE_POLICY_ACCEPT), 0);
	assert_int_equal(rule_set_chain_add(s, FILTER, "b", 0, RULE_POLICY_ACCEPT), 0);
	r = R("jump b");
	assert_int_equal(rule_set_rule_add(s, FILTER, "a", RULE_POS_END, &r, NULL), 0);
	before = text_of(s);

	r = R("jump nowhere");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -ENOENT);
	r = R("jump a");
	assert_int_equal(rule_set_rule_add(s, FILTER, "b", RULE_POS_END, &r, NULL), -ELOOP);
	r = R("goto b");
	assert_int_equal(rule_set_rule_add(s, FILTER, "b", 0, &r, NULL), -ELOOP);
	r = R("jump main");
	assert_int_equal(rule_set_rule_add(s, FILTER, "a", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("dnat to 1.2.3.4");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("drop");
	assert_int_equal(rule_set_rule_add(s, NAT, "dnat", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("masquerade");
	assert_int_equal(rule_set_rule_add(s, NAT, "dnat", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("dnat to 1.2.3.4");
	assert_int_equal(rule_set_rule_add(s, NAT, "snat", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("accept");
	assert_int_equal(rule_set_rule_add(s, FILTER, "nope", RULE_POS_END, &r, NULL), -ENOENT);
	/* Invalid rules built by hand. */
	r = R("accept proto tcp dport 22");
	r.proto = 1;
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("accept src 10.0.0.0/8");
	r.src.len = 7;
	r.src.addr[0] = 11;
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("accept src 10.0.0.0/8");
	r.family = 0;
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("dnat to 10.0.0.1");
	r.family = FC_AF_INET6;
	assert_int_equal(rule_set_rule_add(s, NAT, "dnat", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("drop");
	snprintf(r.channel, sizeof(r.channel), "web");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	r = R("accept");
	r.comment[0] = '\n';
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, NULL, NULL), -EINVAL);
	assert_int_equal(rule_set_rule_add(NULL, FILTER, "main", RULE_POS_END, &r, NULL), -EINVAL);

	{
		char *after = text_of(s);

		assert_string_equal(before, after);
		free(after);
	}
	assert_int_equal(rule_set_rule_count(s), 1);
	/* Refused adds do not use up ids. */
	r = R("accept");
	{
		uint32_t id;

		assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, &id), 0);
		assert_int_equal(id, 2);
	}
	free(before);
	rule_set_free(s);
}

static void
test_nesting_depth(void **state)
{
	struct rule_set *s = rule_set_create();
	char name[16], next[16];
	struct rule r;

	(void)state;
	/* main -> c1 -> ... : at most RULE_DEPTH_MAX chains deep. */
	for (int i = 1; i < RULE_DEPTH_MAX; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		assert_int_equal(rule_set_chain_add(s, FILTER, name, 0, RULE_POLICY_ACCEPT), 0);
	}
	r = R("jump c1");
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END, &r, NULL), 0);
	for (int i = 1; i < RULE_DEPTH_MAX - 1; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		snprintf(next, sizeof(next), "jump c%d", i + 1);
		r = R(next);
		assert_int_equal(rule_set_rule_add(s, FILTER, name, RULE_POS_END, &r, NULL), 0);
	}
	/* 32 chains deep now; one more level is refused, by jump or goto. */
	snprintf(name, sizeof(name), "c%d", RULE_DEPTH_MAX);
	assert_int_equal(rule_set_chain_add(s, FILTER, name, 0, RULE_POLICY_ACCEPT), 0);
	snprintf(name, sizeof(name), "c%d", RULE_DEPTH_MAX - 1);
	snprintf(next, sizeof(next), "jump c%d", RULE_DEPTH_MAX);
	r = R(next);
	assert_int_equal(rule_set_rule_add(s, FILTER, name, RULE_POS_END, &r, NULL), -ELOOP);
	r.action = RULE_ACT_GOTO;
	assert_int_equal(rule_set_rule_add(s, FILTER, name, RULE_POS_END, &r, NULL), -ELOOP);
	/* The deepest chain still evaluates. */
	r = R("drop proto udp");
	assert_int_equal(rule_set_rule_add(s, FILTER, name, RULE_POS_END, &r, NULL), 0);
	{
		struct fc_key k = {.family = FC_AF_INET4, .v4.proto = 17};
		struct rule_result res;

		assert_int_equal(rule_ref_filter(s, &k, 0, 0, &res), 0);
		assert_int_equal(res.verdict, RULE_VERDICT_DROP);
	}
	rule_set_free(s);
}

static void
test_delete(void **state)
{
	struct rule_set *s = rule_set_parse("accept proto tcp\naccept proto udp\ndrop\n"
					    "dnat to 10.0.0.1\n",
		NULL, NULL);
	const struct rule_chain *c;

	(void)state;
	assert_non_null(s);
	assert_int_equal(rule_set_rule_del(s, FILTER, "main", 1), 0);
	c = chain(s, FILTER, "main");
	assert_int_equal(c->n_rules, 2);
	assert_int_equal(c->rules[0].id, 1);
	assert_int_equal(c->rules[1].id, 3);
	assert_int_equal(rule_set_rule_del(s, FILTER, "main", 2), -ENOENT);
	assert_int_equal(rule_set_rule_del(s, FILTER, "none", 0), -ENOENT);
	assert_int_equal(rule_set_rule_del_id(s, 4), 0);
	assert_int_equal(chain(s, NAT, "dnat")->n_rules, 0);
	assert_int_equal(rule_set_rule_del_id(s, 4), -ENOENT);
	assert_int_equal(rule_set_rule_del_id(s, RULE_ID_NONE), -EINVAL);
	assert_int_equal(rule_set_rule_del_id(s, 1), 0);
	assert_int_equal(chain(s, FILTER, "main")->rules[0].id, 3);
	assert_int_equal(rule_set_rule_count(s), 1);
	rule_set_free(s);
}

static void
test_replace(void **state)
{
	struct rule_set *s = rule_set_parse("accept proto tcp\ndrop\nchain x\n", NULL, NULL);
	struct rule r;
	const struct rule *got;
	uint32_t pos;

	(void)state;
	assert_non_null(s);
	r = R("jump x proto udp");
	assert_int_equal(rule_set_rule_replace(s, 1, &r), 0);
	got = rule_set_rule_find(s, 1, NULL, NULL, &pos);
	assert_non_null(got);
	assert_int_equal(pos, 0);
	assert_int_equal(got->id, 1);
	assert_true(rule_equal(got, &r));

	/* Refused replacements leave the rule as it was. */
	r = R("jump y");
	assert_int_equal(rule_set_rule_replace(s, 2, &r), -ENOENT);
	r = R("dnat to 1.1.1.1");
	assert_int_equal(rule_set_rule_replace(s, 2, &r), -EINVAL);
	r = R("accept");
	assert_int_equal(rule_set_rule_replace(s, 99, &r), -ENOENT);
	got = rule_set_rule_find(s, 2, NULL, NULL, NULL);
	assert_int_equal(got->action, RULE_ACT_DROP);
	assert_int_equal(got->match, 0);
	rule_set_free(s);
}

static void
test_chains(void **state)
{
	struct rule_set *s = rule_set_create();
	struct rule r;

	(void)state;
	assert_int_equal(
		rule_set_chain_add(s, FILTER, "in", RULE_HOOK_F(RULE_HOOK_INPUT), RULE_POLICY_DROP),
		0);
	assert_string_equal(rule_set_hook_chain(s, FILTER, RULE_HOOK_INPUT)->name, "in");
	assert_string_equal(rule_set_hook_chain(s, FILTER, RULE_HOOK_FORWARD)->name, "main");
	assert_int_equal(rule_set_chain_add(s, FILTER, "in", 0, RULE_POLICY_ACCEPT), -EEXIST);
	assert_int_equal(rule_set_chain_add(s, FILTER, "in2", RULE_HOOK_F(RULE_HOOK_INPUT),
				 RULE_POLICY_ACCEPT),
		-EBUSY);
	assert_int_equal(rule_set_chain_add(s, FILTER, "pre", RULE_HOOK_F(RULE_HOOK_PREROUTING),
				 RULE_POLICY_ACCEPT),
		-EINVAL);
	assert_int_equal(rule_set_chain_add(s, FILTER, "x", 0, RULE_POLICY_DROP), -EINVAL);
	/* A policy is a base chain's (nat's too: a DROP there drops new connections). */
	assert_int_equal(rule_set_chain_add(s, NAT, "x", 0, RULE_POLICY_DROP), -EINVAL);
	assert_int_equal(rule_set_chain_add(s, FILTER, "bad name", 0, RULE_POLICY_ACCEPT), -EINVAL);
	assert_int_equal(rule_set_chain_add(s, FILTER, "", 0, RULE_POLICY_ACCEPT), -EINVAL);
	assert_int_equal(rule_set_chain_add(s, FILTER, "-x", 0, RULE_POLICY_ACCEPT), -EINVAL);
	/* Same name in the other table is another chain. */
	assert_int_equal(rule_set_chain_add(s, NAT, "in", 0, RULE_POLICY_ACCEPT), 0);
	assert_int_equal(rule_set_chain_add(s, FILTER, "user", 0, RULE_POLICY_ACCEPT), 0);

	/* Policies: base chains only (nat's too). */
	assert_int_equal(rule_set_chain_policy(s, FILTER, "main", RULE_POLICY_DROP), 0);
	assert_int_equal(chain(s, FILTER, "main")->policy, RULE_POLICY_DROP);
	assert_int_equal(rule_set_chain_policy(s, FILTER, "user", RULE_POLICY_DROP), -EINVAL);
	assert_int_equal(rule_set_chain_policy(s, NAT, "dnat", RULE_POLICY_DROP), 0);
	assert_int_equal(chain(s, NAT, "dnat")->policy, RULE_POLICY_DROP);
	assert_int_equal(rule_set_chain_policy(s, NAT, "dnat", RULE_POLICY_ACCEPT), 0);
	assert_int_equal(rule_set_chain_policy(s, FILTER, "nope", RULE_POLICY_DROP), -ENOENT);

	/* Deleting: built-in, non-empty, referenced, then fine. */
	assert_int_equal(rule_set_chain_del(s, FILTER, "main"), -EPERM);
	assert_int_equal(rule_set_chain_del(s, NAT, "snat"), -EPERM);
	r = R("jump user");
	assert_int_equal(rule_set_rule_add(s, FILTER, "in", RULE_POS_END, &r, NULL), 0);
	assert_int_equal(rule_set_chain_del(s, FILTER, "in"), -ENOTEMPTY);
	assert_int_equal(rule_set_chain_del(s, FILTER, "user"), -EBUSY);
	assert_int_equal(rule_set_chain_flush(s, FILTER, "in"), 1);
	assert_int_equal(chain(s, FILTER, "in")->n_rules, 0);
	assert_int_equal(rule_set_chain_flush(s, FILTER, "nope"), -ENOENT);
	assert_int_equal(rule_set_chain_del(s, FILTER, "user"), 0);
	assert_int_equal(rule_set_chain_del(s, FILTER, "in"), 0);
	assert_int_equal(rule_set_chain_del(s, FILTER, "in"), -ENOENT);
	/* The hook falls back to main. */
	assert_string_equal(rule_set_hook_chain(s, FILTER, RULE_HOOK_INPUT)->name, "main");
	assert_non_null(rule_set_chain_find(s, NAT, "in"));
	assert_int_equal(rule_set_chain_count(s, FILTER), 1);

	/* Claiming a hook changes where NAT rules may be: snat may not reach prerouting. */
	assert_int_equal(rule_set_chain_add(s, NAT, "sn", 0, RULE_POLICY_ACCEPT), 0);
	r = R("snat to 1.2.3.4");
	assert_int_equal(rule_set_rule_add(s, NAT, "sn", RULE_POS_END, &r, NULL), 0);
	assert_int_equal(rule_set_chain_add(s, NAT, "pre", RULE_HOOK_F(RULE_HOOK_PREROUTING),
				 RULE_POLICY_ACCEPT),
		0);
	r = R("jump sn");
	assert_int_equal(rule_set_rule_add(s, NAT, "pre", RULE_POS_END, &r, NULL), -EINVAL);
	assert_int_equal(rule_set_rule_add(s, NAT, "snat", RULE_POS_END, &r, NULL), 0);
	rule_set_free(s);
}

static void
test_clone_independent(void **state)
{
	struct rule_set *a, *b;
	char *ta, *tb, *ta2;
	struct rule r;
	uint32_t ida, idb;

	(void)state;
	a = rule_set_parse("policy drop\naccept proto tcp\njump web\nmasquerade\nchain web\n"
			   "accept\nchain in hook input\n",
		NULL, NULL);
	assert_non_null(a);
	rule_set_generation_set(a, 7);
	b = rule_set_clone(a);
	assert_non_null(b);
	assert_int_equal(rule_set_generation(b), 7);
	ta = text_of(a);
	tb = text_of(b);
	assert_string_equal(ta, tb);
	free(tb);
	/* Rules and chains are copies, not shared. */
	assert_ptr_not_equal(chain(a, FILTER, "main")->rules, chain(b, FILTER, "main")->rules);
	assert_int_equal(chain(b, FILTER, "main")->rules[1].id, 2);

	/* Edit the copy every way; the original does not move. */
	r = R("drop proto udp");
	assert_int_equal(rule_set_rule_add(b, FILTER, "main", 0, &r, &idb), 0);
	assert_int_equal(rule_set_rule_del_id(b, 1), 0);
	assert_int_equal(rule_set_rule_replace(b, 4, &r), 0);
	assert_int_equal(rule_set_chain_policy(b, FILTER, "main", RULE_POLICY_ACCEPT), 0);
	assert_int_equal(rule_set_chain_add(b, FILTER, "more", 0, RULE_POLICY_ACCEPT), 0);
	assert_int_equal(rule_set_chain_flush(b, NAT, "snat"), 1);
	rule_set_generation_set(b, 8);
	ta2 = text_of(a);
	assert_string_equal(ta, ta2);
	free(ta2);
	assert_int_equal(rule_set_generation(a), 7);
	assert_null(rule_set_chain_find(a, FILTER, "more"));

	/* Ids continue from the same point in both. */
	assert_int_equal(rule_set_rule_add(a, FILTER, "web", RULE_POS_END, &r, &ida), 0);
	assert_int_equal(ida, idb);

	/* And the other way: editing the original leaves the copy alone. */
	tb = text_of(b);
	assert_int_equal(rule_set_rule_del(a, FILTER, "main", 0), 0);
	assert_int_equal(rule_set_chain_flush(a, FILTER, "web"), 2);
	ta2 = text_of(b);
	assert_string_equal(tb, ta2);
	free(ta2);
	free(tb);
	free(ta);
	rule_set_free(a);

	/* The copy lives on its own. */
	assert_int_equal(rule_set_rule_count(b), 3);
	rule_set_free(b);
	assert_null(rule_set_clone(NULL));
	assert_int_equal(errno, EINVAL);
}

static void
test_dump(void **state)
{
	struct rule_set *s = rule_set_parse("policy drop\naccept proto tcp dport 22\n", NULL, NULL);
	char buf[256], small[8];
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_non_null(f);
	assert_int_equal(rule_set_dump(s, f), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "policy drop\naccept proto tcp dport 22\n");
	assert_int_equal(rule_set_format(s, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "policy ");
	rule_set_free(s);
}

/*
 * TCP flag classes: two flag bytes share a class exactly when every flags
 * test of the set (--tcp-flags, --syn, SYNPROXY's) answers them alike;
 * classes are dense and each has a representative of its own.
 */
static void
test_tcpflag_classes(void **state)
{
	static const uint8_t tests[][2] = {
		{0x3f, 0x00}, {0x3f, 0x29}, {0x03, 0x03}, {0x17, 0x02}, {0x17, 0x10},
	};
	struct rule_set *s = rule_set_create();
	uint8_t cls[256], rep[256];
	unsigned int n;

	(void)state;
	n = rule_set_tcpflag_classes(s, cls, rep);
	assert_int_equal(n, 1);
	assert_int_equal(cls[0x02], cls[0x10]);
	rule_set_free(s);
	s = rule_set_create();
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp tcp_flags all none")}, NULL), 0);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp tcp_flags all fin,psh,urg")}, NULL), 0);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp tcp_flags fin,syn fin,syn")}, NULL), 0);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("accept proto tcp syn")}, NULL), 0);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp tcp_flags fin,syn,rst,ack ack")}, NULL), 0);
	n = rule_set_tcpflag_classes(s, cls, rep);
	assert_true(n > 1 && n <= 32);
	for (unsigned int a = 0; a < 256; a++) {
		assert_true(cls[a] < n);
		assert_int_equal(cls[rep[cls[a]]], cls[a]);
		for (unsigned int b = 0; b < 256; b++) {
			bool same = true;

			for (unsigned int t = 0; t < sizeof(tests) / sizeof(tests[0]); t++)
				same = same && ((a & tests[t][0]) == tests[t][1]) ==
							((b & tests[t][0]) == tests[t][1]);
			assert_int_equal(cls[a] == cls[b], same);
		}
	}
	/* ACK and PSH|ACK: one class; SYN, FIN|PSH|URG, NULL: each another. */
	assert_int_equal(cls[0x10], cls[0x18]);
	assert_int_not_equal(cls[0x10], cls[0x02]);
	assert_int_not_equal(cls[0x10], cls[0x29]);
	assert_int_not_equal(cls[0x10], cls[0x00]);
	rule_set_free(s);
	/* -m ecn's TCP tests read ECE and CWR: they split the classes too. */
	s = rule_set_create();
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp ecn_tcp_ece")}, NULL), 0);
	assert_int_equal(rule_set_rule_add(s, FILTER, "main", RULE_POS_END,
		(struct rule[]){R("drop proto tcp !ecn_tcp_cwr")}, NULL), 0);
	n = rule_set_tcpflag_classes(s, cls, rep);
	assert_int_equal(n, 4);
	assert_int_equal(cls[0x10], cls[0x18]);
	assert_int_not_equal(cls[0x10], cls[0x50]);
	assert_int_not_equal(cls[0x10], cls[0x90]);
	assert_int_not_equal(cls[0x50], cls[0xd0]);
	rule_set_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_add_positions),
		cmocka_unit_test(test_add_refused),
		cmocka_unit_test(test_nesting_depth),
		cmocka_unit_test(test_delete),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_clone_independent),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_tcpflag_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
