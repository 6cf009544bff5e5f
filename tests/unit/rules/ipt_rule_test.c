/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/rules/ipt_rule_test.c — the iptables-match tests' shared
 * helpers (ipt_rule_test.h): loading one INPUT rule, writing a set, the
 * round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipt_rule_test.h"

char *
dump(const struct rule_set *s, bool ipt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (ipt)
		assert_int_equal(rule_set_dump_iptables(s, FC_AF_INET4, f), 0);
	else
		assert_int_equal(rule_set_dump(s, f), 0);
	fclose(f);
	return buf;
}

struct rule_set *
load(const char *rule, struct rule_error *err)
{
	char text[8192];
	struct rule_ipt_opts o = {.family = FC_AF_INET4};

	assert_true((size_t)snprintf(text, sizeof(text), HEAD "-A INPUT %s\nCOMMIT\n", rule) <
		sizeof(text));
	return rule_set_parse_iptables_opts(text, "t", &o, err);
}

void
rule_line(const char *exp, char *out, size_t n)
{
	const char *a = strstr(exp, "-A INPUT ");
	const char *e;

	assert_non_null(a);
	a += strlen("-A INPUT ");
	e = strchr(a, '\n');
	assert_non_null(e);
	snprintf(out, n, "%.*s", (int)(e - a), a);
}

struct rule_set *
rule_roundtrip(const char *in, const char *want, int held, const char *what)
{
	struct rule_error err;
	struct rule_set *s = load(in, &err), *back, *back2;
	char line[8192], *exp, *nat, *nat2;

	if (s == NULL)
		fail_msg("%s: %u:%u: %s '%s'", what, err.line, err.col, err.msg, err.token);
	exp = dump(s, true);
	rule_line(exp, line, sizeof(line));
	if (strcmp(line, want) != 0)
		fail_msg("%s: wrote '%s', want '%s'", what, line, want);
	/* The export reads back to the same rules (the same native text). */
	nat = dump(s, false);
	back = rule_set_parse_iptables_opts(exp, "t",
		&(struct rule_ipt_opts){.family = FC_AF_INET4}, &err);
	if (back == NULL)
		fail_msg("%s: export: %u:%u: %s", what, err.line, err.col, err.msg);
	nat2 = dump(back, false);
	assert_string_equal(nat, nat2);
	free(nat2);
	/* Native: text -> rules -> the same text. */
	back2 = rule_set_parse(nat, "n", &err);
	if (back2 == NULL)
		fail_msg("%s: native: %u:%u: %s '%s'\n%s", what, err.line, err.col, err.msg,
			err.token, nat);
	nat2 = dump(back2, false);
	assert_string_equal(nat, nat2);
	if (held >= 0)
		assert_int_equal(rule_xblob_count(), (unsigned int)held);
	free(nat2);
	free(nat);
	free(exp);
	rule_set_free(back2);
	rule_set_free(back);
	return s;
}
