/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the native rule language: rule lines and whole files
 * round-trip through rule_format()/rule_parse() and rule_set_format()/
 * rule_set_parse(); a table of invalid inputs checks the reported line,
 * column, token and message; loading is all or nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rule_lang.h"
#include "rules.h"

#ifndef GUFC_CONFIG_DIR
#error "GUFC_CONFIG_DIR must name the config directory"
#endif

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static void
assert_sets_equal(const struct rule_set *a, const struct rule_set *b)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		assert_int_equal(rule_set_chain_count(a, t), rule_set_chain_count(b, t));
		for (unsigned int i = 0; i < rule_set_chain_count(a, t); i++) {
			const struct rule_chain *ca = rule_set_chain_at(a, t, i);
			const struct rule_chain *cb = rule_set_chain_at(b, t, i);

			assert_string_equal(ca->name, cb->name);
			assert_int_equal(ca->hooks, cb->hooks);
			assert_int_equal(ca->builtin, cb->builtin);
			assert_int_equal(ca->policy, cb->policy);
			assert_int_equal(ca->n_rules, cb->n_rules);
			for (uint32_t j = 0; j < ca->n_rules; j++)
				assert_true(rule_equal(&ca->rules[j], &cb->rules[j]));
		}
	}
}

static char *
format_set(const struct rule_set *s)
{
	size_t len = 1 << 16;
	char *buf = malloc(len);

	assert_non_null(buf);
	assert_true(rule_set_format(s, buf, len) >= 0);
	return buf;
}

/* Parse @text, format, parse the output: equal sets, and formatting is a fixed point. */
static void
check_set_roundtrip(const char *text)
{
	struct rule_error err;
	struct rule_set *a, *b;
	char *ta, *tb;

	a = rule_set_parse(text, "in", &err);
	if (a == NULL)
		fail_msg("parse: %u:%u %s '%s'", err.line, err.col, err.msg, err.token);
	ta = format_set(a);
	b = rule_set_parse(ta, "formatted", &err);
	if (b == NULL)
		fail_msg("reparse: %u:%u %s '%s'\n%s", err.line, err.col, err.msg, err.token, ta);
	assert_sets_equal(a, b);
	tb = format_set(b);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	rule_set_free(a);
	rule_set_free(b);
}

/* ------------------------------------------------------------------------ */
/* Valid lines                                                               */
/* ------------------------------------------------------------------------ */

/* Input line, and its canonical form (NULL: the input is canonical). */
static const struct {
	const char *in;
	const char *out;
} valid_lines[] = {
	{"accept", NULL},
	{"drop", NULL},
	{"return", NULL},
	{"accept proto tcp src 10.0.0.0/8 dst_local yes dport 22,80,8000-8080 ctstate new "
	 "comment \"ssh and web\"",
		NULL},
	{"accept ctstate new dport 22 dst_local yes src 10.0.0.0/8 proto tcp",
		"accept proto tcp src 10.0.0.0/8 dst_local yes dport 22 ctstate new"},
	{"drop proto udp dst !192.168.0.0/16", NULL},
	{"accept channel web proto tcp dport 80", NULL},
	{"dnat to 10.0.0.5:8080 proto tcp dst_local yes dport 80", NULL},
	{"snat to 203.0.113.1:20000-30000 src 10.0.0.0/8", NULL},
	{"masquerade src 10.0.0.0/8", NULL},
	{"masquerade ports 1024-65535 proto tcp", NULL},
	{"masquerade ports 5000 ipv6 proto udp", NULL},
	{"masquerade proto udp ipv6 ports 5000", "masquerade ports 5000 ipv6 proto udp"},
	{"snat to 192.0.2.1-192.0.2.9", NULL},
	{"snat to 192.0.2.1-192.0.2.9:1000", NULL},
	{"dnat to [2001:db8::5]:8080 proto tcp dport 80", NULL},
	{"dnat to 2001:db8::5", "dnat to [2001:db8::5]"},
	{"dnat to 2001:db8::5-2001:db8::9", "dnat to [2001:db8::5]-[2001:db8::9]"},
	{"dnat to [2001:db8::5]-[2001:db8::9]:80-90 proto sctp", NULL},
	{"jump blocklist src_local no", NULL},
	{"goto web dst 2001:db8::/32 proto tcp", "goto web proto tcp dst 2001:db8::/32"},
	{"accept ipv4", NULL},
	{"accept ipv6 proto icmpv6", NULL},
	{"accept src 10.0.0.1/32", "accept src 10.0.0.1"},
	{"accept src 0.0.0.0/0", NULL},
	{"accept src ::/0", NULL},
	{"accept dst 2001:db8::1/128", "accept dst 2001:db8::1"},
	{"accept dst 2001:db8:0:8::/61", "accept dst 2001:db8:0:8::/61"},
	{"accept src 172.16.0.0/12 dst 10.128.0.0/9", NULL},
	{"accept src_local yes dst_local no", NULL},
	{"accept src_local any dst_local any", "accept"},
	{"accept proto !tcp", NULL},
	{"accept proto ! tcp", "accept proto !tcp"},
	{"accept proto 47", "accept proto gre"},
	{"accept proto 253", NULL},
	{"accept proto udp quota 1000000", NULL},
	{"drop proto tcp quota !150", NULL},
	{"drop quota ! 18446744073709551615", "drop quota !18446744073709551615"},
	{"accept proto 0", NULL},
	{"accept proto udp sport !53 dport 1-1023,5353", NULL},
	{"accept proto tcp sport 0-65535", NULL},
	{"accept ctstate !new,invalid", NULL},
	{"accept ctstate invalid,related,new,established",
		"accept ctstate new,established,related,invalid"},
	{"accept comment \"a \\\"quoted\\\" \\\\ back # not a comment\"", NULL},
	{"accept comment plain", "accept comment \"plain\""},
	{"accept comment \"\"", "accept"},
	{"accept proto tcp dport 22 # trailing comment", "accept proto tcp dport 22"},
	{"  \taccept   proto   udp\t", "accept proto udp"},
	{"accept dport 443 proto tcp src !2001:db8::/32 ctstate established",
		"accept proto tcp src !2001:db8::/32 dport 443 ctstate established"},
};

static void
test_lines_roundtrip(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(valid_lines) / sizeof(valid_lines[0]); i++) {
		const char *want = valid_lines[i].out ? valid_lines[i].out : valid_lines[i].in;
		struct rule_error err;
		struct rule a, b;
		char buf[1024];

		if (rule_parse(valid_lines[i].in, &a, &err) != 0)
			fail_msg("'%s': %u: %s '%s'", valid_lines[i].in, err.col, err.msg,
				err.token);
		assert_true(rule_format(&a, buf, sizeof(buf)) > 0);
		if (strcmp(buf, want) != 0)
			fail_msg("'%s' formatted as '%s', want '%s'", valid_lines[i].in, buf, want);
		assert_int_equal(rule_parse(buf, &b, &err), 0);
		assert_true(rule_equal(&a, &b));
	}
}

static void
test_line_fields(void **state)
{
	struct rule r;

	(void)state;
	assert_int_equal(rule_parse("accept proto tcp src 10.0.0.0/8 dst_local yes "
				    "dport 22,80,8000-8080 ctstate new comment \"ssh and web\"",
				 &r, NULL),
		0);
	assert_int_equal(r.action, RULE_ACT_ACCEPT);
	assert_int_equal(r.family, FC_AF_INET4);
	assert_int_equal(r.match, RULE_M_PROTO | RULE_M_SRC | RULE_M_DPORT | RULE_M_CTSTATE);
	assert_int_equal(r.neg, 0);
	assert_int_equal(r.proto, 6);
	assert_int_equal(r.src.len, 8);
	assert_int_equal(r.src.addr[0], 10);
	assert_int_equal(r.dst_local, RULE_LOCAL_YES);
	assert_int_equal(r.src_local, RULE_LOCAL_ANY);
	assert_int_equal(r.dport.n, 3);
	assert_int_equal(r.dport.r[0].lo, 22);
	assert_int_equal(r.dport.r[0].hi, 22);
	assert_int_equal(r.dport.r[2].lo, 8000);
	assert_int_equal(r.dport.r[2].hi, 8080);
	assert_int_equal(r.ctstate, RULE_CT_NEW);
	assert_string_equal(r.comment, "ssh and web");
	assert_int_equal(r.id, RULE_ID_NONE);

	assert_int_equal(rule_parse("drop proto udp dst !192.168.0.0/16", &r, NULL), 0);
	assert_int_equal(r.action, RULE_ACT_DROP);
	assert_int_equal(r.neg, RULE_M_DST);
	assert_int_equal(r.dst.addr[1], 168);

	assert_int_equal(
		rule_parse("snat to 203.0.113.1-203.0.113.3:20000-30000 src 10.0.0.0/8", &r, NULL),
		0);
	assert_int_equal(r.action, RULE_ACT_SNAT);
	assert_int_equal(r.nat.family, FC_AF_INET4);
	assert_int_equal(r.nat.addr_min[3], 1);
	assert_int_equal(r.nat.addr_max[3], 3);
	assert_int_equal(r.nat.port_min, 20000);
	assert_int_equal(r.nat.port_max, 30000);

	/* A NAT target implies its family. */
	assert_int_equal(rule_parse("dnat to [2001:db8::5]:8080", &r, NULL), 0);
	assert_int_equal(r.family, FC_AF_INET6);
	assert_int_equal(r.nat.addr_min[15], 5);
	assert_int_equal(r.nat.port_min, 8080);

	assert_int_equal(rule_parse("jump web", &r, NULL), 0);
	assert_int_equal(r.action, RULE_ACT_JUMP);
	assert_string_equal(r.chain, "web");

	assert_int_equal(rule_parse("accept ctstate !established,related", &r, NULL), 0);
	assert_int_equal(r.ctstate, RULE_CT_ESTABLISHED | RULE_CT_RELATED);
	assert_int_equal(r.neg, RULE_M_CTSTATE);
}

/* Random valid rules survive format -> parse unchanged. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void
random_prefix(struct rule_prefix *p, unsigned int family)
{
	unsigned int nb = family == FC_AF_INET4 ? 4 : 16;

	memset(p, 0, sizeof(*p));
	p->len = (uint8_t)rnd(nb * 8 + 1);
	for (unsigned int i = 0; i < nb; i++)
		p->addr[i] = (uint8_t)rnd(256);
	for (unsigned int bit = p->len; bit < 128; bit++)
		p->addr[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
}

static void
random_ports(struct rule_ports *p)
{
	p->n = (uint16_t)(1 + rnd(RULE_PORTS_MAX));
	for (unsigned int i = 0; i < p->n; i++) {
		p->r[i].lo = (uint16_t)rnd(65536);
		p->r[i].hi = (uint16_t)(p->r[i].lo + rnd(65536 - p->r[i].lo));
	}
}

static void
random_rule(struct rule *r)
{
	static const uint8_t protos[] = {6, 17, 132, 1, 58, 47, 99};
	static const char *const names[] = {"web", "a", "DOCKER-USER", "x.y_z", "k8s-svc.1"};

	static const uint8_t actions[] = {RULE_ACT_ACCEPT, RULE_ACT_DROP, RULE_ACT_JUMP,
		RULE_ACT_GOTO, RULE_ACT_RETURN, RULE_ACT_DNAT, RULE_ACT_SNAT, RULE_ACT_MASQUERADE,
		RULE_ACT_REJECT, RULE_ACT_NFLOG, RULE_ACT_COUNT, RULE_ACT_REDIRECT};

	rule_init(r);
	r->action = actions[rnd(sizeof(actions))];
	r->family = (uint8_t)(rnd(3) == 0 ? 0 : rnd(2) ? FC_AF_INET4 : FC_AF_INET6);
	if (r->action == RULE_ACT_DNAT || r->action == RULE_ACT_SNAT) {
		unsigned int nb;

		if (r->family == 0)
			r->family = FC_AF_INET4;
		nb = r->family == FC_AF_INET4 ? 4 : 16;
		r->nat.family = r->family;
		for (unsigned int i = 0; i < nb; i++)
			r->nat.addr_min[i] = r->nat.addr_max[i] = (uint8_t)rnd(256);
		if (rnd(2))
			r->nat.addr_max[nb - 1] = (uint8_t)(r->nat.addr_min[nb - 1] +
							    rnd(256 - r->nat.addr_min[nb - 1]));
	}
	if ((r->action == RULE_ACT_DNAT || r->action == RULE_ACT_SNAT ||
		    r->action == RULE_ACT_MASQUERADE || r->action == RULE_ACT_REDIRECT) &&
		rnd(2)) {
		r->nat.port_min = (uint16_t)(1 + rnd(65535));
		r->nat.port_max = (uint16_t)(r->nat.port_min + rnd(65536 - r->nat.port_min));
	}
	if (r->action == RULE_ACT_JUMP || r->action == RULE_ACT_GOTO)
		snprintf(r->chain, sizeof(r->chain), "%s", names[rnd(5)]);
	if (r->action == RULE_ACT_ACCEPT && rnd(2))
		snprintf(r->channel, sizeof(r->channel), "%s", names[rnd(5)]);
	if (r->family != 0 && rnd(2)) {
		r->match |= RULE_M_SRC;
		random_prefix(&r->src, r->family);
	}
	if (r->family != 0 && rnd(2)) {
		r->match |= RULE_M_DST;
		random_prefix(&r->dst, r->family);
	}
	r->src_local = (uint8_t)rnd(3);
	r->dst_local = (uint8_t)rnd(3);
	if (rnd(3)) {
		r->match |= RULE_M_PROTO;
		r->proto = protos[rnd(sizeof(protos))];
	}
	if ((r->match & RULE_M_PROTO) && r->proto <= 17 && r->proto != 1 && rnd(2)) {
		r->match |= RULE_M_DPORT;
		random_ports(&r->dport);
	}
	if ((r->match & RULE_M_PROTO) && r->proto <= 17 && r->proto != 1 && rnd(2)) {
		r->match |= RULE_M_SPORT;
		random_ports(&r->sport);
	}
	if (rnd(2)) {
		r->match |= RULE_M_CTSTATE;
		r->ctstate = (uint8_t)(1 + rnd(RULE_CT_ALL));
	}
	r->neg = (uint8_t)(rnd(64) & r->match);
	if (r->match & (RULE_M_SPORT | RULE_M_DPORT))
		r->neg &= (uint8_t)~RULE_M_PROTO;
	if (rnd(3) == 0)
		snprintf(r->comment, sizeof(r->comment), "c\"%u\\ #%u", rnd(1000), rnd(10));
}

static void
test_random_roundtrip(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < 20000; i++) {
		struct rule a, b;
		struct rule_error err;
		char buf[2048];
		const char *msg;

		random_rule(&a);
		if (rule_check(&a, &msg) != 0)
			fail_msg("generated an invalid rule: %s", msg);
		assert_true(rule_format(&a, buf, sizeof(buf)) > 0);
		if (rule_parse(buf, &b, &err) != 0)
			fail_msg("'%s': col %u: %s '%s'", buf, err.col, err.msg, err.token);
		if (!rule_equal(&a, &b))
			fail_msg("'%s' parsed back differently", buf);
	}
}

static void
test_format_errors(void **state)
{
	struct rule r;
	char buf[16];

	(void)state;
	assert_int_equal(rule_parse("accept proto tcp dport 1,2,3,4,5,6,7,8", &r, NULL), 0);
	assert_int_equal(rule_format(&r, buf, sizeof(buf)), -ENOSPC);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	/* Ports without a port protocol cannot be formatted (nor parsed). */
	r.proto = 1;
	assert_int_equal(rule_format(&r, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(rule_parse("policy drop", &r, NULL), -EINVAL);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                     */
/* ------------------------------------------------------------------------ */

static void
test_sample_files(void **state)
{
	static const char *const files[] = {"sample.rules", "netfilter.rules"};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char path[512], *text;
		struct rule_error err;
		struct rule_set *s;
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/%s", GUFC_CONFIG_DIR, files[i]);
		s = rule_set_load(path, &err);
		if (s == NULL)
			fail_msg("%s:%u:%u: %s '%s'", err.file, err.line, err.col, err.msg,
				err.token);
		assert_true(rule_set_rule_count(s) > 10);
		rule_set_free(s);

		f = fopen(path, "r");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		text = calloc(1, (size_t)n + 1);
		assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
		fclose(f);
		check_set_roundtrip(text);
		free(text);
	}
}

static void
test_sample_structure(void **state)
{
	struct rule_error err;
	struct rule_set *s = rule_set_load(GUFC_CONFIG_DIR "/sample.rules", &err);
	const struct rule_chain *c;

	(void)state;
	assert_non_null(s);
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN);
	assert_non_null(c);
	assert_int_equal(c->policy, RULE_POLICY_DROP);
	assert_int_equal(c->n_rules, 12);
	assert_int_equal(c->rules[0].id, 1);
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, "blocklist");
	assert_non_null(c);
	assert_int_equal(c->n_rules, 3);
	assert_int_equal(c->hooks, 0);
	c = rule_set_chain_find(s, RULE_TABLE_NAT, RULE_CHAIN_DNAT);
	assert_int_equal(c->n_rules, 2);
	assert_int_equal(c->rules[0].action, RULE_ACT_DNAT);
	/* Ids follow the text: the first dnat is the 13th rule of the file. */
	assert_int_equal(c->rules[0].id, 13);
	c = rule_set_chain_find(s, RULE_TABLE_NAT, RULE_CHAIN_SNAT);
	assert_int_equal(c->n_rules, 2);
	assert_int_equal(c->rules[1].action, RULE_ACT_MASQUERADE);
	rule_set_free(s);

	s = rule_set_load(GUFC_CONFIG_DIR "/netfilter.rules", &err);
	assert_non_null(s);
	assert_string_equal(
		rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_INPUT)->name, "INPUT");
	assert_string_equal(
		rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_FORWARD)->name, "FORWARD");
	assert_string_equal(
		rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_OUTPUT)->name, "OUTPUT");
	assert_string_equal(
		rule_set_hook_chain(s, RULE_TABLE_NAT, RULE_HOOK_PREROUTING)->name, "PREROUTING");
	assert_null(rule_set_hook_chain(s, RULE_TABLE_NAT, RULE_HOOK_OUTPUT));
	assert_int_equal(
		rule_set_chain_find(s, RULE_TABLE_FILTER, "INPUT")->policy, RULE_POLICY_DROP);
	assert_int_equal(
		rule_set_chain_find(s, RULE_TABLE_FILTER, "OUTPUT")->policy, RULE_POLICY_ACCEPT);
	rule_set_free(s);
}

static void
test_set_roundtrip_texts(void **state)
{
	(void)state;
	check_set_roundtrip("");
	check_set_roundtrip("policy drop\n");
	/* Non-flat nat built-ins need their section back. */
	check_set_roundtrip("table nat\nchain dnat\naccept src 10.0.0.0/8\ndnat to 10.0.0.1\n"
			    "chain snat\nreturn\nmasquerade\n");
	/* Same user chain name in both tables. */
	check_set_roundtrip("chain X\naccept\ntable nat\nchain X\ndnat to 1.2.3.4\n"
			    "chain P hook prerouting,output\njump X\n");
	/* Empty chains, multi-hook chains, forward references. */
	check_set_roundtrip("jump later\nchain empty\nchain later\ngoto empty\n"
			    "chain both hook input,output policy drop\n");
	/* A chain can be reopened; rules land in order. */
	check_set_roundtrip("chain a\naccept proto tcp\ntable filter\naccept\nchain a\ndrop\n");
}

static void
test_flat_routing(void **state)
{
	struct rule_set *s =
		rule_set_parse("dnat to 10.0.0.1\naccept\nmasquerade\nsnat to 1.1.1.1\n"
			       "drop\n",
			NULL, NULL);

	(void)state;
	assert_non_null(s);
	assert_int_equal(rule_set_chain_find(s, RULE_TABLE_FILTER, "main")->n_rules, 2);
	assert_int_equal(rule_set_chain_find(s, RULE_TABLE_NAT, "dnat")->n_rules, 1);
	assert_int_equal(rule_set_chain_find(s, RULE_TABLE_NAT, "snat")->n_rules, 2);
	assert_int_equal(rule_set_chain_find(s, RULE_TABLE_NAT, "snat")->rules[1].id, 4);
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */
/* Invalid inputs                                                            */
/* ------------------------------------------------------------------------ */

static const struct {
	const char *text;
	unsigned int line;
	unsigned int col;
	const char *token;
	const char *msg;
} bad[] = {
	{"allow proto tcp", 1, 1, "allow", "unknown statement"},
	{"accept prot tcp", 1, 8, "prot", "unknown keyword"},
	{"accept proto", 1, 8, "proto", "missing value"},
	{"accept proto tcp proto udp", 1, 18, "proto", "duplicate field"},
	{"accept proto tcpx", 1, 14, "tcpx", "unknown protocol"},
	{"accept proto 256", 1, 14, "256", "bad protocol number"},
	{"accept src 10.0.0.300", 1, 12, "10.0.0.300", "bad address"},
	{"accept src 10.0.0.0/33", 1, 12, "10.0.0.0/33", "bad prefix length"},
	{"accept src ::/129", 1, 12, "::/129", "bad prefix length"},
	{"accept dst 10.0.0.1/8", 1, 12, "10.0.0.1/8", "host bits set"},
	{"accept src 10.0.0.0/8 dst ::1", 1, 27, "::1", "address family mismatch"},
	{"accept ipv6 src !10.0.0.1", 1, 18, "10.0.0.1", "address family mismatch"},
	{"accept ipv4 ipv6", 1, 13, "ipv6", "duplicate field"},
	{"accept src 10.0.0.0/8 ipv6", 1, 23, "ipv6", "address family mismatch"},
	{"dnat to [2001:db8::1]:80 src 10.0.0.0/8", 1, 30, "10.0.0.0/8", "address family mismatch"},
	{"accept proto tcp dport 65536", 1, 24, "65536", "bad port"},
	{"accept proto tcp dport 22,90-80", 1, 27, "90-80", "bad port range"},
	{"accept proto tcp dport 22,,80", 1, 24, "22,,80", "empty list item"},
	{"accept proto udp sport 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", 1, 63, "17",
		"too many ports"},
	{"accept dport 22", 1, 8, "dport", "port match needs proto tcp, udp, udplite, sctp or dccp"},
	{"accept proto !tcp sport 22", 1, 19, "sport", "port match needs proto tcp, udp, udplite, sctp or dccp"},
	{"accept proto icmp dport 8", 1, 19, "dport", "port match needs proto tcp, udp, udplite, sctp or dccp"},
	{"accept ctstate new,bogus", 1, 20, "bogus", "unknown ctstate"},
	{"accept ctstate new,new", 1, 20, "new", "duplicate ctstate"},
	{"accept dst_local maybe", 1, 18, "maybe", "expected yes, no or any"},
	{"accept dst_local !yes", 1, 19, "yes", "negation not allowed here"},
	{"!accept", 1, 2, "accept", "negation not allowed here"},
	{"accept !proto tcp", 1, 9, "proto", "negation not allowed here"},
	{"accept src !!10.0.0.0/8", 1, 12, "!!10.0.0.0/8", "double negation"},
	{"accept src !", 1, 12, "!", "missing value"},
	{"accept comment \"abc", 1, 16, "abc", "unterminated string"},
	{"accept comment \"a\\qb\"", 1, 18, "\\q", "bad escape"},
	{"accept comment \"a\"b", 1, 19, "b", "junk after string"},
	{"accept \"quoted\"", 1, 8, "quoted", "unknown keyword"},
	{"accept channel \"web\"", 1, 16, "web", "unexpected string"},
	{"accept\x01", 1, 7, "", "control character"},
	{"jump -x", 1, 6, "-x", "bad chain name"},
	{"jump abcdefghijabcdefghijabcdefghijkl", 1, 6, "abcdefghijabcdefghijabcdefghijkl",
		"bad chain name"},
	{"goto", 1, 1, "goto", "missing value"},
	{"jump nowhere", 1, 6, "nowhere", "unknown chain"},
	{"jump main", 1, 6, "main", "target is a base chain"},
	{"chain a hook input\nchain b\njump a", 3, 6, "a", "target is a base chain"},
	{"chain a\njump b\nchain b\naccept\njump a", 5, 6, "a", "chain loop"},
	{"dnat proto tcp", 1, 1, "dnat", "missing 'to'"},
	{"dnat to 10.0.0.1:99999", 1, 9, "10.0.0.1:99999", "bad nat target"},
	{"dnat to 2001:db8::1:80-90", 1, 9, "2001:db8::1:80-90", "bad nat target"},
	{"snat to 10.0.0.9-10.0.0.1", 1, 9, "10.0.0.9-10.0.0.1", "bad nat address range"},
	{"accept to 1.2.3.4", 1, 8, "to", "'to' only with dnat, snat or netmap"},
	{"drop channel web", 1, 6, "channel", "channel only with accept"},
	{"accept ports 1-2", 1, 8, "ports", "ports only with masquerade or redirect"},
	{"masquerade ports 0-10", 1, 18, "0-10", "bad nat port range"},
	{"chain foo\ndnat to 1.2.3.4", 2, 1, "dnat", "nat action in filter table"},
	{"table nat\nchain x\ndrop", 3, 1, "drop", "drop not allowed in nat table"},
	{"table nat\naccept", 2, 1, "accept", "rule needs a chain section here"},
	{"table nat\npolicy drop", 2, 1, "policy", "policy only for base chains"},
	{"chain x\npolicy drop", 2, 1, "policy", "policy only for base chains"},
	{"chain a policy drop", 1, 9, "policy", "policy only for base chains"},
	{"policy reject", 1, 8, "reject", "expected accept or drop"},
	{"policy drop extra", 1, 13, "extra", "unexpected token"},
	{"table bogus", 1, 7, "bogus", "unknown table"},
	{"table raw\naccept", 2, 1, "accept", "rule needs a chain section here"},
	{"chain x\nct notrack", 2, 1, "ct", "action not allowed in this table"},
	{"accept in eth0/1", 1, 11, "eth0/1", "bad interface name"},
	{"accept in +eth", 1, 11, "+eth", "bad interface name"},
	{"drop mark", 1, 6, "mark", "missing value"},
	{"drop mark 0x1/0xzz", 1, 11, "0x1/0xzz", "bad mark"},
	{"drop tcp_flags syn,ack syn", 1, 1, "drop", "extension needs its protocol (-p)"},
	{"drop proto tcp tcp_flags syn,bogus syn", 1, 26, "syn,bogus", "unknown TCP flag"},
	{"drop limit 5/fortnight", 1, 12, "5/fortnight", "bad rate unit"},
	{"drop proto icmp icmp_type echo-bogus", 1, 27, "echo-bogus", "unknown ICMP type"},
	{"drop ipv6 ttl_eq 1", 1, 1, "drop", "extension of the other address family"},
	{"drop !mark 0x1", 1, 7, "mark", "negation not allowed here"},
	{"reject with tcp-reset", 1, 1, "reject", "tcp-reset needs -p tcp"},
	{"mark", 1, 1, "mark", "MARK needs --set-xmark, --set-mark, --and-mark, --or-mark or --xor-mark"},
	{"log log_level 9", 1, 15, "9", "unknown name"},
	{"accept counters 1:x", 1, 17, "1:x", "bad counters"},
	{"accept ctstate new,bogus", 1, 20, "bogus", "unknown ctstate"},
	{"chain a hook input\nchain b hook input", 2, 14, "input", "hook already claimed"},
	{"chain a hook inptu", 1, 14, "inptu", "unknown hook"},
	{"chain a hook forward,prerouting", 1, 22, "prerouting", "hook not in this table"},
	{"chain main hook input", 1, 12, "hook", "built-in chain takes no hook"},
	{"chain a hook input hook output", 1, 20, "hook", "duplicate field"},
	{"table nat\nchain x hook postrouting\ndnat to 1.2.3.4", 3, 1, "dnat",
		"dnat only at prerouting or output"},
	{"table nat\nchain x hook input\nmasquerade", 3, 1, "masquerade",
		"masquerade only at postrouting"},
	{"table nat\nchain y\nsnat to 1.2.3.4\nchain x hook output\njump y", 3, 1, "snat",
		"snat only at postrouting or input"},
	{"accept\n\n  # comment\naccept proto tcp dport x", 4, 24, "x", "bad port"},
	{"accept\r\ndrop prot", 2, 6, "prot", "unknown keyword"},
};

static void
test_invalid(void **state)
{
	(void)state;
	assert_true(sizeof(bad) / sizeof(bad[0]) >= 30);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rule_error err;
		struct rule_set *s;

		memset(&err, 0xa5, sizeof(err));
		errno = 0;
		s = rule_set_parse(bad[i].text, "t.rules", &err);
		if (s != NULL)
			fail_msg("accepted: '%s'", bad[i].text);
		assert_int_equal(errno, EINVAL);
		if (err.line != bad[i].line || err.col != bad[i].col ||
			strcmp(err.token, bad[i].token) != 0 || strcmp(err.msg, bad[i].msg) != 0)
			fail_msg("'%s': got %u:%u '%s' \"%s\", want %u:%u '%s' \"%s\"", bad[i].text,
				err.line, err.col, err.token, err.msg, bad[i].line, bad[i].col,
				bad[i].token, bad[i].msg);
		assert_string_equal(err.file, "t.rules");
	}
}

static void
test_invalid_long(void **state)
{
	char text[600], *p = text;
	struct rule_error err;
	struct rule_set *s;

	(void)state;
	/* A comment of RULE_COMMENT_MAX characters does not fit; the token is truncated. */
	p += sprintf(p, "accept comment \"");
	memset(p, 'x', RULE_COMMENT_MAX);
	p += RULE_COMMENT_MAX;
	sprintf(p, "\"");
	s = rule_set_parse(text, NULL, &err);
	assert_null(s);
	assert_int_equal(err.col, 16);
	assert_string_equal(err.msg, "comment too long");
	assert_int_equal(strlen(err.token), RULE_ERR_TOKEN_MAX - 1);
	assert_string_equal(err.file, "");

	/* 65 tokens are too many for one line. */
	p = text;
	p += sprintf(p, "accept");
	for (int i = 0; i < 32; i++)
		p += sprintf(p, " ipv4 ipv4");
	s = rule_set_parse(text, NULL, &err);
	assert_null(s);
	assert_string_equal(err.msg, "too many tokens");
	assert_int_equal(err.col, 8 + 63 * 5);
}

static void
test_rule_parse_errors(void **state)
{
	struct rule_error err;
	struct rule r;

	(void)state;
	assert_int_equal(rule_parse("", &r, &err), -EINVAL);
	assert_string_equal(err.msg, "missing rule");
	assert_int_equal(rule_parse("chain x", &r, &err), -EINVAL);
	assert_string_equal(err.msg, "not a rule");
	assert_string_equal(err.token, "chain");
	assert_int_equal(rule_parse("accept\ndrop", &r, &err), -EINVAL);
	assert_string_equal(err.msg, "control character");
	assert_int_equal(err.col, 7);
	assert_int_equal(rule_parse("accept src 1.2.3.4/40", &r, &err), -EINVAL);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.col, 12);
	/* rule_parse() checks the rule alone: unknown chains are the set's business. */
	assert_int_equal(rule_parse("jump nowhere", &r, &err), 0);
}

static void
test_error_format(void **state)
{
	struct rule_error err;
	char buf[256];

	(void)state;
	assert_null(rule_set_parse("accept\naccept proto tcpx", "x.rules", &err));
	assert_true(rule_error_format(&err, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "x.rules:2:14: unknown protocol: 'tcpx'");
	assert_int_equal(rule_error_format(&err, buf, 8), -ENOSPC);
}

static void
test_all_or_nothing(void **state)
{
	struct rule_set *base, *next;
	struct rule_error err;
	char *before, *after;

	(void)state;
	base = rule_set_parse("accept proto tcp\nchain web\naccept\n", NULL, NULL);
	assert_non_null(base);
	before = format_set(base);

	/* Good lines then a bad one: nothing applied. */
	next = rule_set_apply(
		base, "drop\npolicy drop\nchain web2 hook input\njump nowhere", "shell", &err);
	assert_null(next);
	assert_string_equal(err.msg, "unknown chain");
	assert_int_equal(err.line, 4);
	assert_string_equal(err.file, "shell");
	after = format_set(base);
	assert_string_equal(before, after);
	free(after);

	/* A good text: a new set, base untouched; statements start outside any chain. */
	next = rule_set_apply(base, "drop src 10.0.0.0/8\njump web proto udp", "shell", &err);
	assert_non_null(next);
	assert_int_equal(rule_set_rule_count(next), 4);
	assert_int_equal(rule_set_chain_find(next, RULE_TABLE_FILTER, "main")->n_rules, 3);
	assert_int_equal(rule_set_chain_find(next, RULE_TABLE_FILTER, "main")->rules[2].id, 4);
	after = format_set(base);
	assert_string_equal(before, after);
	free(after);
	rule_set_free(next);

	/* Applying to a set whose hook is claimed: a second claim fails. */
	next = rule_set_apply(base, "chain in hook input", NULL, &err);
	assert_non_null(next);
	assert_null(rule_set_apply(next, "chain in2 hook input", NULL, &err));
	assert_string_equal(err.msg, "hook already claimed");
	rule_set_free(next);

	free(before);
	rule_set_free(base);
}

static void
test_load_errors(void **state)
{
	struct rule_error err;
	char path[] = "/tmp/gufc-rules-XXXXXX";
	int fd;

	(void)state;
	errno = 0;
	assert_null(rule_set_load("/nonexistent/gufc.rules", &err));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.file, "/nonexistent/gufc.rules");
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg, strerror(ENOENT));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "accept\ndrop\nacept\n", 18), 18);
	close(fd);
	assert_null(rule_set_load(path, &err));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.token, "acept");

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "accept\ndr\0op\n", 13), 13);
	close(fd);
	assert_null(rule_set_load(path, &err));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 3);
	assert_string_equal(err.msg, "NUL byte in file");
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_roundtrip),
		cmocka_unit_test(test_line_fields),
		cmocka_unit_test(test_random_roundtrip),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_sample_files),
		cmocka_unit_test(test_sample_structure),
		cmocka_unit_test(test_set_roundtrip_texts),
		cmocka_unit_test(test_flat_routing),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_invalid_long),
		cmocka_unit_test(test_rule_parse_errors),
		cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_all_or_nothing),
		cmocka_unit_test(test_load_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
