/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/rules/ipt_rule_test.c — the iptables-match tests' shared
 * helpers (ipt_rule_test.h): loading one INPUT rule, writing a set, the
 * round trip, a rule's verdict on one UDP datagram.
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

void
rule_roundtrips(const struct rule_rt_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char what[32];

		snprintf(what, sizeof(what), "case %zu", i);
		rule_set_free(rule_roundtrip(c[i].in, c[i].out, -1, what));
	}
}

bool
payload_drops(const char *matches, const char *what)
{
	static const char payload[] = "\x13" "BitTorrent protocol";
	uint8_t frame[14 + 60];
	char text[1024];
	struct rule_ipt_opts o = {.family = FC_AF_INET4};
	struct rule_error err;
	struct rule_set *s;
	struct rule_eval ev;
	struct rule_pkt p;
	struct fc_key k;

	memset(frame, 0, sizeof(frame));
	frame[12] = 0x08;
	frame[14] = 0x45;
	frame[14 + 3] = 28 + 20; /* total length */
	frame[14 + 8] = 64;
	frame[14 + 9] = 17;
	memcpy(frame + 14 + 12, "\xc0\x00\x02\x01\xc6\x33\x64\x01", 8);
	frame[14 + 20 + 1] = 100;
	frame[14 + 20 + 3] = 200;
	frame[14 + 20 + 5] = 28;
	memcpy(frame + 14 + 28, payload, 20);
	assert_int_equal(fc_key_parse("udp 192.0.2.1:100 -> 198.51.100.1:200", &k, NULL), 0);
	snprintf(text, sizeof(text), HEAD "-A FORWARD %s -j DROP\nCOMMIT\n", matches);
	s = rule_set_parse_iptables_opts(text, "t", &o, &err);
	if (s == NULL)
		fail_msg("%s: %s '%s'", what, err.msg, err.token);
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, frame, sizeof(frame), 14, 34), 0);
	assert_int_equal(p.l3_cap, 48); /* the datagram, not the frame's padding */
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_true(ev.deps & RULE_DEP_PAYLOAD);
	rule_set_free(s);
	return ev.verdict == RULE_VERDICT_DROP;
}
