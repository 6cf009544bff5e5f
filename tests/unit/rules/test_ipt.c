/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the iptables-save importer: every sample in
 * config/iptables/ loads, and a table of packets per sample gets the
 * verdict, deciding rule and NAT target netfilter would give, through the
 * reference evaluator; netfilter's quirks one by one (negation spellings,
 * -p all, masks, port ranges, --ports, combined matches, bare -m tcp, goto,
 * RETURN in a base chain, families); a table of invalid inputs checks line,
 * column, token and message; imported sets survive the native language.
 */
#include <arpa/inet.h>
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

#ifndef GUFC_CONFIG_DIR
#error "GUFC_CONFIG_DIR must name the config directory"
#endif

#define IPT_DIR GUFC_CONFIG_DIR "/iptables/"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

#define NEW	  RULE_CT_NEW
#define EST	  RULE_CT_ESTABLISHED
#define REL	  RULE_CT_RELATED
#define INV	  RULE_CT_INVALID
#define UNTRACKED 0
#define POLICY	  RULE_ID_POLICY
#define ACCEPT	  RULE_VERDICT_ACCEPT
#define DROP	  RULE_VERDICT_DROP

static struct rule_set *
load(const char *file)
{
	struct rule_error err;
	struct rule_set *s = rule_set_load_iptables(file, &err);

	if (s == NULL)
		fail_msg("%s: %s:%u:%u: %s '%s'", file, err.file, err.line, err.col, err.msg,
			err.token);
	return s;
}

static struct rule_set *
parse(const char *text)
{
	struct rule_error err;
	struct rule_set *s = rule_set_parse_iptables(text, "t", &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, text);
	return s;
}

static struct fc_key
key(const char *text)
{
	struct fc_key k;

	if (fc_key_parse(text, &k, NULL) != 0)
		fail_msg("bad key in test: %s", text);
	return k;
}

/** A packet and what netfilter's filter table does with it. */
struct fcase {
	const char *key;
	unsigned int ct;
	unsigned int kflags;
	uint8_t verdict;
	uint8_t hook;
	uint32_t rule_id;
};

static void
check_filter(const struct rule_set *s, const struct fcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fc_key k = key(c[i].key);
		struct rule_result res;

		assert_int_equal(rule_ref_filter(s, &k, c[i].ct, c[i].kflags, &res), 0);
		if (res.verdict != c[i].verdict || res.hook != c[i].hook ||
			res.rule_id != c[i].rule_id)
			fail_msg("case %zu '%s' ct %u: got %s hook %s rule %u, want %s hook %s "
				 "rule %u",
				i, c[i].key, c[i].ct, res.verdict == ACCEPT ? "accept" : "drop",
				rule_hook_name(res.hook), res.rule_id,
				c[i].verdict == ACCEPT ? "accept" : "drop",
				rule_hook_name(c[i].hook), c[i].rule_id);
	}
}

/** A packet and what a nat stage does with it. */
struct ncase {
	uint8_t stage;
	const char *key;
	uint8_t action;
	uint8_t hook;
	uint32_t rule_id;
	const char *min; /* translation: address range (NULL: none) and ports */
	const char *max;
	uint16_t pmin;
	uint16_t pmax;
};

static void
check_nat(const struct rule_set *s, const struct ncase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fc_key k = key(c[i].key);
		struct rule_nat_result res;
		uint8_t a[16];
		int af;

		assert_int_equal(rule_ref_nat(s, c[i].stage, &k, NEW, 0, &res), 0);
		if (res.action != c[i].action || res.hook != c[i].hook ||
			res.rule_id != c[i].rule_id)
			fail_msg("case %zu '%s': got %s hook %s rule %u, want %s hook %s rule %u",
				i, c[i].key, rule_action_name(res.action), rule_hook_name(res.hook),
				res.rule_id, rule_action_name(c[i].action),
				rule_hook_name(c[i].hook), c[i].rule_id);
		assert_int_equal(res.nat.port_min, c[i].pmin);
		assert_int_equal(res.nat.port_max, c[i].pmax);
		if (c[i].min == NULL) {
			assert_int_equal(res.nat.family, 0);
			continue;
		}
		af = strchr(c[i].min, ':') ? AF_INET6 : AF_INET;
		assert_int_equal(res.nat.family, af == AF_INET6 ? FC_AF_INET6 : FC_AF_INET4);
		memset(a, 0, sizeof(a));
		assert_int_equal(inet_pton(af, c[i].min, a), 1);
		assert_memory_equal(res.nat.addr_min, a, 16);
		memset(a, 0, sizeof(a));
		assert_int_equal(inet_pton(af, c[i].max, a), 1);
		assert_memory_equal(res.nat.addr_max, a, 16);
	}
}

/* The only rule of the only non-empty chain of @table. */
static const struct rule *
only_rule(const struct rule_set *s, enum rule_table table)
{
	const struct rule *r = NULL;

	for (unsigned int i = 0; i < rule_set_chain_count(s, table); i++) {
		const struct rule_chain *c = rule_set_chain_at(s, table, i);

		if (c->n_rules == 0)
			continue;
		assert_null(r);
		assert_int_equal(c->n_rules, 1);
		r = &c->rules[0];
	}
	assert_non_null(r);
	return r;
}

static const struct rule_chain *
chain(const struct rule_set *s, enum rule_table table, const char *name)
{
	const struct rule_chain *c = rule_set_chain_find(s, table, name);

	assert_non_null(c);
	return c;
}

/* ------------------------------------------------------------------------ */
/* Sample files                                                              */
/* ------------------------------------------------------------------------ */

static void
test_sample_host(void **state)
{
	static const struct fcase cases[] = {
		/* loopback: OUTPUT (policy accept), then INPUT rule 1 */
		{"tcp 127.0.0.1:5000 -> 127.0.0.1:80 src_local=1 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 1},
		{"tcp 198.51.100.7:443 -> 192.0.2.10:40000 dst_local=1", EST, 0, ACCEPT,
			RULE_HOOK_INPUT, 2},
		{"tcp 198.51.100.7:443 -> 192.0.2.10:40000 dst_local=1", REL, 0, ACCEPT,
			RULE_HOOK_INPUT, 2},
		{"tcp 198.51.100.7:443 -> 192.0.2.10:40000 dst_local=1", INV, 0, DROP,
			RULE_HOOK_INPUT, 3},
		{"icmp 198.51.100.7:99 -> 192.0.2.10:99 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 4},
		{"tcp 10.1.2.3:50000 -> 192.0.2.10:22 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			5},
		/* untracked: "--ctstate NEW" fails, nothing else takes port 22 */
		{"tcp 10.1.2.3:50000 -> 192.0.2.10:22 dst_local=1", UNTRACKED, 0, DROP,
			RULE_HOOK_INPUT, POLICY},
		{"tcp 8.8.8.8:50000 -> 192.0.2.10:22 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 8.8.8.8:50000 -> 192.0.2.10:443 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			6},
		{"tcp 8.8.8.8:50000 -> 192.0.2.10:8080 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 6},
		{"tcp 8.8.8.8:50000 -> 192.0.2.10:8081 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 8.8.8.8:50000 -> 192.0.2.10:3306 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			7},
		{"tcp 192.168.5.5:50000 -> 192.0.2.10:3306 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 8},
		{"udp 8.8.8.8:50000 -> 192.0.2.10:60500 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 9},
		{"udp 8.8.8.8:50000 -> 192.0.2.10:61001 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"udp 203.0.113.9:50000 -> 192.0.2.10:1234 dst_local=1", NEW, 0, DROP,
			RULE_HOOK_INPUT, 10},
		/* the web rule comes before the blocklist */
		{"tcp 203.0.113.9:50000 -> 192.0.2.10:80 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 6},
		{"tcp 8.8.8.8:1024 -> 192.0.2.10:5005 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			11},
		{"tcp 8.8.8.8:1023 -> 192.0.2.10:5005 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 8.8.8.8:1024 -> 192.0.2.10:5005 dst_local=1", EST, 0, ACCEPT, RULE_HOOK_INPUT,
			2},
		/* a non-first fragment: the multiport match fails on it */
		{"tcp 8.8.8.8:0 -> 192.0.2.10:0 dst_local=1", NEW, RULE_KEY_F_NOPORTS, DROP,
			RULE_HOOK_INPUT, POLICY},
		{"tcp 8.8.8.8:1 -> 9.9.9.9:80", NEW, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		{"tcp 8.8.8.8:1 -> 9.9.9.9:80", EST, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		{"tcp 192.0.2.10:40000 -> 198.51.100.66:80 src_local=1", NEW, 0, DROP,
			RULE_HOOK_OUTPUT, 12},
		{"tcp 192.0.2.10:40000 -> 198.51.100.67:80 src_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_OUTPUT, POLICY},
		/* an IPv4 file says nothing about IPv6: as on Linux, IPv6 is accepted */
		{"tcp [2001:db8::1]:1000 -> [2001:db8::2]:80 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, POLICY},
	};
	struct rule_set *s = load(IPT_DIR "host.rules");
	const struct rule_chain *c;

	(void)state;
	assert_int_equal(rule_set_rule_count(s), 12);
	c = chain(s, RULE_TABLE_FILTER, "INPUT");
	assert_int_equal(c->hooks, RULE_HOOK_F(RULE_HOOK_INPUT));
	assert_int_equal(c->policy, RULE_POLICY_DROP);
	assert_string_equal(c->rules[4].comment, "ssh from the office");
	c = chain(s, RULE_TABLE_FILTER, "OUTPUT");
	assert_int_equal(c->policy, RULE_POLICY_ACCEPT);
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

static void
test_sample_router(void **state)
{
	static const struct fcase fcases[] = {
		{"tcp 198.51.100.7:5555 -> 192.168.1.10:8080", NEW, 0, ACCEPT, RULE_HOOK_FORWARD,
			16},
		{"tcp 198.51.100.7:5555 -> 192.168.1.10:8080", INV, 0, DROP, RULE_HOOK_FORWARD, 14},
		{"tcp 198.51.100.7:5555 -> 192.168.1.10:8080", EST, 0, ACCEPT, RULE_HOOK_FORWARD,
			13},
		{"tcp 192.168.1.50:40000 -> 8.8.8.8:443", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 15},
		{"tcp 198.51.100.7:5555 -> 192.168.1.10:22", NEW, 0, DROP, RULE_HOOK_FORWARD,
			POLICY},
		{"tcp 198.51.100.7:5555 -> 192.168.1.21:22", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 17},
		{"tcp 198.51.100.7:5555 -> 192.168.1.40:22", NEW, 0, DROP, RULE_HOOK_FORWARD,
			POLICY},
		{"udp 198.51.100.7:5555 -> 192.168.1.30:51820", NEW, 0, ACCEPT, RULE_HOOK_FORWARD,
			18},
		{"tcp 10.8.1.5:5555 -> 8.8.8.8:80", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 19},
		{"tcp 10.9.0.5:5555 -> 8.8.8.8:80", NEW, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		{"tcp 192.168.1.50:40000 -> 192.168.1.1:22 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 11},
		{"tcp 198.51.100.7:40000 -> 203.0.113.1:22 dst_local=1", NEW, 0, DROP,
			RULE_HOOK_INPUT, POLICY},
		{"udp 192.168.1.50:68 -> 192.168.1.1:67 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 12},
		{"udp 192.168.1.50:68 -> 192.168.1.1:69 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 198.51.100.7:22 -> 203.0.113.1:40000 dst_local=1", EST, 0, ACCEPT,
			RULE_HOOK_INPUT, 10},
		{"tcp 203.0.113.1:40000 -> 198.51.100.7:22 src_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_OUTPUT, POLICY},
	};
	static const struct ncase ncases[] = {
		{RULE_NAT_DST, "tcp 198.51.100.7:5555 -> 203.0.113.1:80 dst_local=1", RULE_ACT_DNAT,
			RULE_HOOK_PREROUTING, 1, "192.168.1.10", "192.168.1.10", 8080, 8080},
		{RULE_NAT_DST, "tcp 198.51.100.7:5555 -> 203.0.113.1:2250 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_PREROUTING, 2, "192.168.1.20", "192.168.1.29", 0,
			0},
		{RULE_NAT_DST, "tcp 198.51.100.7:5555 -> 203.0.113.1:2300 dst_local=1",
			RULE_ACT_ACCEPT, RULE_HOOK_PREROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_DST, "udp 198.51.100.7:5555 -> 203.0.113.1:51820 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_PREROUTING, 3, "192.168.1.30", "192.168.1.30", 0,
			0},
		{RULE_NAT_DST, "udp 198.51.100.7:5555 -> 203.0.113.1:80 dst_local=1",
			RULE_ACT_ACCEPT, RULE_HOOK_PREROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_DST, "tcp 203.0.113.1:40000 -> 203.0.113.1:80 src_local=1 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_OUTPUT, 4, "192.168.1.10", "192.168.1.10", 8080,
			8080},
		{RULE_NAT_SRC, "tcp 192.168.1.50:1234 -> 198.51.100.7:443", RULE_ACT_SNAT,
			RULE_HOOK_POSTROUTING, 6, "203.0.113.1", "203.0.113.1", 1024, 65535},
		{RULE_NAT_SRC, "tcp 192.168.1.50:1234 -> 192.168.1.10:80", RULE_ACT_ACCEPT,
			RULE_HOOK_POSTROUTING, 5, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "udp 192.168.1.50:1234 -> 8.8.8.8:53", RULE_ACT_SNAT,
			RULE_HOOK_POSTROUTING, 7, "203.0.113.2", "203.0.113.6", 0, 0},
		{RULE_NAT_SRC, "icmp 192.168.1.50:7 -> 8.8.8.8:7", RULE_ACT_SNAT,
			RULE_HOOK_POSTROUTING, 7, "203.0.113.2", "203.0.113.6", 0, 0},
		{RULE_NAT_SRC, "udp 10.8.0.5:1234 -> 8.8.8.8:53", RULE_ACT_MASQUERADE,
			RULE_HOOK_POSTROUTING, 8, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "tcp 10.9.0.5:1234 -> 8.8.8.8:53", RULE_ACT_MASQUERADE,
			RULE_HOOK_POSTROUTING, 9, NULL, NULL, 20000, 30000},
		{RULE_NAT_SRC, "udp 10.9.0.5:1234 -> 8.8.8.8:53", RULE_ACT_ACCEPT,
			RULE_HOOK_POSTROUTING, POLICY, NULL, NULL, 0, 0},
		/* to the router itself: nat INPUT, an empty chain */
		{RULE_NAT_SRC, "tcp 192.168.1.50:1234 -> 192.168.1.1:22 dst_local=1",
			RULE_ACT_ACCEPT, RULE_HOOK_INPUT, POLICY, NULL, NULL, 0, 0},
	};
	struct rule_set *s = load(IPT_DIR "router.rules");

	(void)state;
	assert_int_equal(rule_set_rule_count(s), 19);
	assert_int_equal(
		chain(s, RULE_TABLE_NAT, "POSTROUTING")->hooks, RULE_HOOK_F(RULE_HOOK_POSTROUTING));
	check_filter(s, fcases, sizeof(fcases) / sizeof(fcases[0]));
	check_nat(s, ncases, sizeof(ncases) / sizeof(ncases[0]));
	rule_set_free(s);
}

static void
test_sample_docker(void **state)
{
	static const struct fcase fcases[] = {
		{"tcp 198.51.100.9:5555 -> 172.17.0.2:80", NEW, 0, DROP, RULE_HOOK_FORWARD, 24},
		{"tcp 8.8.8.8:5555 -> 172.17.0.2:80", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 16},
		{"tcp 8.8.8.8:5555 -> 172.17.0.3:5432", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 17},
		{"tcp 8.8.8.8:5555 -> 172.17.0.2:22", NEW, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		/* isolation between the bridges, both ways */
		{"tcp 172.17.0.2:5555 -> 172.18.0.5:80", NEW, 0, DROP, RULE_HOOK_FORWARD, 21},
		{"tcp 172.18.0.5:5555 -> 172.17.0.2:80", NEW, 0, DROP, RULE_HOOK_FORWARD, 22},
		/* out of a bridge: through both RETURNs, then accepted */
		{"tcp 172.17.0.2:40000 -> 8.8.8.8:443", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 12},
		{"tcp 172.18.0.2:40000 -> 8.8.8.8:443", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 15},
		{"tcp 8.8.8.8:443 -> 172.17.0.2:40000", EST, 0, ACCEPT, RULE_HOOK_FORWARD, 10},
		{"tcp 8.8.8.8:443 -> 172.18.0.2:40000", REL, 0, ACCEPT, RULE_HOOK_FORWARD, 13},
		/* goto TRUSTED: --ports is two rules, sport first */
		{"tcp 203.0.113.5:5555 -> 172.17.0.3:5432", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 29},
		{"tcp 203.0.113.5:22 -> 172.17.0.9:40000", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 28},
		{"tcp 203.0.113.5:22 -> 172.17.0.9:22", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 28},
		/*
		 * Falling off the end of a chain entered by goto returns to
		 * FORWARD (the caller of DOCKER-USER), skipping DOCKER-USER's
		 * drop of 203.0.113.0/24: a jump would have dropped (rule 26).
		 */
		{"tcp 203.0.113.5:5555 -> 172.17.0.2:80", NEW, 0, ACCEPT, RULE_HOOK_FORWARD, 16},
		{"tcp 203.0.113.5:5555 -> 172.17.0.2:81", NEW, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		{"udp 203.0.113.5:22 -> 172.17.0.2:81", NEW, 0, DROP, RULE_HOOK_FORWARD, POLICY},
		{"tcp 8.8.8.8:5555 -> 192.0.2.10:22 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
	};
	static const struct ncase ncases[] = {
		{RULE_NAT_DST, "tcp 8.8.8.8:5555 -> 192.0.2.10:8080 dst_local=1", RULE_ACT_DNAT,
			RULE_HOOK_PREROUTING, 6, "172.17.0.2", "172.17.0.2", 80, 80},
		/* from the bridge: RETURN, then the end of PREROUTING */
		{RULE_NAT_DST, "tcp 172.17.0.5:5555 -> 192.0.2.10:8080 dst_local=1",
			RULE_ACT_ACCEPT, RULE_HOOK_PREROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_DST, "tcp 192.0.2.10:40000 -> 192.0.2.10:5432 src_local=1 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_OUTPUT, 7, "172.17.0.3", "172.17.0.3", 5432, 5432},
		{RULE_NAT_DST, "tcp 8.8.8.8:5555 -> 192.0.2.11:8080", RULE_ACT_ACCEPT,
			RULE_HOOK_PREROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "tcp 172.17.0.2:40000 -> 8.8.8.8:443", RULE_ACT_MASQUERADE,
			RULE_HOOK_POSTROUTING, 3, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "tcp 172.17.0.2:40000 -> 172.17.0.3:80", RULE_ACT_ACCEPT,
			RULE_HOOK_POSTROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "tcp 172.17.0.2:40000 -> 172.17.0.2:80", RULE_ACT_MASQUERADE,
			RULE_HOOK_POSTROUTING, 4, NULL, NULL, 0, 0},
	};
	struct rule_set *s = load(IPT_DIR "docker.rules");
	const struct rule_chain *c;

	(void)state;
	assert_int_equal(rule_set_rule_count(s), 29);
	c = chain(s, RULE_TABLE_FILTER, "DOCKER-USER");
	assert_int_equal(c->hooks, 0);
	assert_int_equal(c->rules[1].action, RULE_ACT_GOTO);
	assert_string_equal(c->rules[1].chain, "TRUSTED");
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "TRUSTED")->n_rules, 2);
	check_filter(s, fcases, sizeof(fcases) / sizeof(fcases[0]));
	check_nat(s, ncases, sizeof(ncases) / sizeof(ncases[0]));
	rule_set_free(s);
}

static void
test_sample_ipv6(void **state)
{
	static const struct fcase fcases[] = {
		{"tcp [::1]:40000 -> [::1]:22 src_local=1 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 1},
		{"icmpv6 [2001:db8:1::1]:7 -> [2001:db8::1]:7 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 11},
		/* RETURN from ICMP6 resumes INPUT after the jump */
		{"icmpv6 [2001:db8:bad::1]:7 -> [2001:db8::1]:7 dst_local=1", NEW, 0, DROP,
			RULE_HOOK_INPUT, POLICY},
		{"tcp [2001:db8:100:5::1]:40000 -> [2001:db8::1]:22 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 5},
		{"tcp [2001:db8:101::1]:40000 -> [2001:db8::1]:22 dst_local=1", NEW, 0, DROP,
			RULE_HOOK_INPUT, POLICY},
		{"tcp [2001:db8:101::1]:40000 -> [2001:db8::1]:443 dst_local=1", NEW, 0, ACCEPT,
			RULE_HOOK_INPUT, 6},
		{"tcp [2001:db8:101::1]:40000 -> [2001:db8::1]:22 dst_local=1", INV, 0, DROP,
			RULE_HOOK_INPUT, 3},
		{"udp [fe80::1]:547 -> [fe80::2]:546 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			7},
		{"udp [fe80::1]:548 -> [fe80::2]:546 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"udp [fec0::1]:547 -> [fe80::2]:546 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT,
			POLICY},
		{"tcp [2001:db8:9::1]:5555 -> [2001:db8:200::10]:443", NEW, 0, ACCEPT,
			RULE_HOOK_FORWARD, 8},
		{"tcp [2001:db8:9::1]:5555 -> [2001:db8:200::10]:80", NEW, 0, DROP,
			RULE_HOOK_FORWARD, POLICY},
		{"tcp [2001:db8:200::10]:5555 -> [2001:db8:9::1]:80", NEW, 0, ACCEPT,
			RULE_HOOK_FORWARD, 9},
		/* an IPv6 file says nothing about IPv4: accepted, as on Linux */
		{"tcp 10.0.0.1:40000 -> 10.0.0.2:443 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
	};
	static const struct ncase ncases[] = {
		{RULE_NAT_DST, "tcp [2001:db8:9::1]:5555 -> [2001:db8::1]:8443 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_PREROUTING, 12, "2001:db8:200::10",
			"2001:db8:200::10", 443, 443},
		{RULE_NAT_DST, "udp [2001:db8:9::1]:5555 -> [2001:db8::1]:5353 dst_local=1",
			RULE_ACT_DNAT, RULE_HOOK_PREROUTING, 13, "2001:db8:200::20",
			"2001:db8:200::2f", 0, 0},
		{RULE_NAT_SRC, "tcp [fd00::5]:1234 -> [2001:db8:9::1]:80", RULE_ACT_SNAT,
			RULE_HOOK_POSTROUTING, 14, "2001:db8::1", "2001:db8::1", 0, 0},
		{RULE_NAT_SRC, "tcp [fd01::5]:1234 -> [2001:db8:9::1]:80", RULE_ACT_SNAT,
			RULE_HOOK_POSTROUTING, 15, "2001:db8::2", "2001:db8::3", 10000, 20000},
		{RULE_NAT_SRC, "udp [fd01::5]:1234 -> [2001:db8:9::1]:80", RULE_ACT_ACCEPT,
			RULE_HOOK_POSTROUTING, POLICY, NULL, NULL, 0, 0},
	};
	struct rule_set *s = load(IPT_DIR "ipv6.rules");

	(void)state;
	assert_int_equal(rule_set_rule_count(s), 15);
	/* no address in the rule: the header said ip6tables-save */
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->rules[1].family, FC_AF_INET6);
	check_filter(s, fcases, sizeof(fcases) / sizeof(fcases[0]));
	check_nat(s, ncases, sizeof(ncases) / sizeof(ncases[0]));
	rule_set_free(s);
}

/*
 * A *nat chain with a DROP policy, as both Linux backends load it: a new
 * connection no rule of the chain takes is dropped at that hook (the dst
 * stage's verdict); one a rule takes goes on. Written back in both
 * languages with its policy.
 */
static void
test_nat_drop_policy(void **state)
{
	static const char text[] = "*nat\n:PREROUTING DROP [0:0]\n:INPUT ACCEPT [0:0]\n"
				   ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
				   "-A PREROUTING -p tcp -m tcp --dport 80 -j DNAT "
				   "--to-destination 10.9.0.7:8080\n"
				   "-A PREROUTING -p udp -m udp --dport 53 -j ACCEPT\n"
				   "COMMIT\n";
	struct rule_set *s = parse(text), *back;
	struct rule_error err;
	struct rule_eval ev;
	struct rule_pkt p;
	struct fc_key k;
	char buf[4096];

	(void)state;
	k = key("tcp 10.1.0.2:3001 -> 10.9.0.2:80");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_DST, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(ev.nat_action, RULE_ACT_DNAT);
	k = key("udp 10.1.0.2:3001 -> 10.9.0.2:53");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_DST, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	k = key("tcp 10.1.0.2:3001 -> 10.9.0.2:81");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_DST, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	assert_int_equal(ev.table, RULE_TABLE_NAT);
	assert_int_equal(ev.hook, RULE_HOOK_PREROUTING);
	assert_int_equal(ev.rule_id, RULE_ID_POLICY);
	/* An established packet never walks nat: no drop there. */
	rule_pkt_init(&p, &k, RULE_CT_ESTABLISHED, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_DST, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	/* Both languages keep the policy. */
	assert_true(rule_set_format_iptables(s, FC_AF_INET4, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":PREROUTING DROP [0:0]"));
	assert_true(rule_set_format(s, buf, sizeof(buf)) > 0);
	back = rule_set_parse(buf, "native", &err);
	if (back == NULL)
		fail_msg("%u:%u %s '%s'\n%s", err.line, err.col, err.msg, err.token, buf);
	assert_int_equal(rule_set_chain_find(back, RULE_TABLE_NAT, "PREROUTING")->policy,
		RULE_POLICY_DROP);
	rule_set_free(back);
	rule_set_free(s);
}

/*
 * The policies' counters are per family: an ip6tables file's are IPv6's,
 * two files merged keep each family's, each family's export shows its own,
 * and the policy counters added for one family (what it counted before a
 * reload of the other) stay that family's.
 */
static void
test_policy_counters_family(void **state)
{
	struct rule_set *v4 = rule_set_parse_iptables_af(
		"*filter\n:INPUT ACCEPT [1:100]\n:FORWARD DROP [5:500]\n:OUTPUT ACCEPT [0:0]\n"
		"COMMIT\n", "v4", FC_AF_INET4, NULL);
	struct rule_set *v6 = rule_set_parse_iptables_af(
		"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [7:700]\n:OUTPUT ACCEPT [0:0]\n"
		"COMMIT\n", "v6", FC_AF_INET6, NULL);
	char buf[4096];

	(void)state;
	assert_non_null(v4);
	assert_non_null(v6);
	assert_true(rule_set_format_iptables(v6, FC_AF_INET6, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD ACCEPT [7:700]"));
	assert_true(rule_set_format_iptables(v6, FC_AF_INET4, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD ACCEPT [0:0]"));
	assert_int_equal(rule_set_merge(v4, v6, FC_AF_INET6), 0);
	assert_true(rule_set_format_iptables(v4, FC_AF_INET4, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD DROP [5:500]"));
	assert_non_null(strstr(buf, ":INPUT ACCEPT [1:100]"));
	assert_true(rule_set_format_iptables(v4, FC_AF_INET6, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD ACCEPT [7:700]"));
	assert_non_null(strstr(buf, ":INPUT ACCEPT [0:0]"));
	assert_int_equal(rule_set_policy_counters_add(v4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD,
				 FC_AF_INET6, 3, 30),
		0);
	assert_int_equal(rule_set_policy_counters_add(v4, RULE_TABLE_FILTER, RULE_HOOK_FORWARD, 9,
				 3, 30),
		-EINVAL);
	assert_true(rule_set_format_iptables(v4, FC_AF_INET6, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD ACCEPT [10:730]"));
	assert_true(rule_set_format_iptables(v4, FC_AF_INET4, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":FORWARD DROP [5:500]"));
	rule_set_free(v4);
	rule_set_free(v6);
}

/* Every sample: the imported set formats in the native language and reads back equal. */
static void
test_samples_native_roundtrip(void **state)
{
	static const char *const files[] = {
		"host.rules",
		"router.rules",
		"docker.rules",
		"ipv6.rules",
	};
	size_t len = 1 << 17;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[512];
		struct rule_error err;
		struct rule_set *a, *b;

		snprintf(path, sizeof(path), IPT_DIR "%s", files[f]);
		a = load(path);
		assert_true(rule_set_format(a, buf, len) > 0);
		b = rule_set_parse(buf, files[f], &err);
		if (b == NULL)
			fail_msg("%s: %u:%u %s '%s'\n%s", files[f], err.line, err.col, err.msg,
				err.token, buf);
		for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
			assert_int_equal(rule_set_chain_count(a, t), rule_set_chain_count(b, t));
			for (unsigned int i = 0; i < rule_set_chain_count(a, t); i++) {
				const struct rule_chain *ca = rule_set_chain_at(a, t, i);
				const struct rule_chain *cb = rule_set_chain_at(b, t, i);

				assert_string_equal(ca->name, cb->name);
				assert_int_equal(ca->hooks, cb->hooks);
				assert_int_equal(ca->policy, cb->policy);
				assert_int_equal(ca->n_rules, cb->n_rules);
				for (uint32_t j = 0; j < ca->n_rules; j++)
					assert_true(rule_equal(&ca->rules[j], &cb->rules[j]));
			}
		}
		rule_set_free(a);
		rule_set_free(b);
	}
	free(buf);
}

/* ------------------------------------------------------------------------ */
/* Netfilter's semantics, one by one                                         */
/* ------------------------------------------------------------------------ */

/*
 * "! -s X" negates; the old "-s ! X" spelling is refused where the "!"
 * stands, as iptables 1.8 refuses it (both backends: "Bad argument",
 * "invalid port/service `!'").
 */
static void
test_negation_forms(void **state)
{
	static const struct fcase cases[] = {
		{"tcp 10.1.1.1:1 -> 192.0.2.1:80 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 11.1.1.1:1 -> 192.0.2.1:80 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 1},
		{"udp 10.1.1.1:1 -> 192.0.2.1:80 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 2},
		{"udp 10.1.1.1:1 -> 192.0.2.1:19 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 2},
		{"udp 10.1.1.1:1 -> 192.0.2.1:20 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 3},
		{"udp 10.1.1.1:1 -> 192.0.2.1:30 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 3},
		{"udp 10.1.1.1:1 -> 192.0.2.1:31 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 2},
		/* a negated port match fails on a packet without ports, too */
		{"udp 10.1.1.1:0 -> 192.0.2.1:0 dst_local=1", NEW, RULE_KEY_F_NOPORTS, DROP,
			RULE_HOOK_INPUT, 3},
	};
	static const struct {
		const char *rule;
		unsigned int col;
	} old[] = {
		{"-s ! 10.0.0.0/8", 13},
		{"-p ! tcp", 13},
		{"-i ! eth0", 13},
		{"-p udp -m udp --dport ! 20:30", 32},
		{"-m conntrack --ctstate ! NEW", 33},
	};
	struct rule_set *s = parse("*filter\n"
				   "-A INPUT ! -s 10.0.0.0/8 -j DROP\n"
				   "-A INPUT ! -p tcp -j DROP\n"
				   "-A INPUT -p udp -m udp ! --dport 20:30 -j DROP\n"
				   "COMMIT\n");
	const struct rule_chain *c = chain(s, RULE_TABLE_FILTER, "INPUT");

	(void)state;
	assert_int_equal(c->n_rules, 3);
	assert_int_equal(c->rules[0].neg, RULE_M_SRC);
	assert_int_equal(c->rules[0].src.len, 8);
	assert_int_equal(c->rules[1].neg, RULE_M_PROTO);
	assert_int_equal(c->rules[2].neg, RULE_M_DPORT);
	rule_set_free(s);
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		char text[256];
		struct rule_error err;

		snprintf(text, sizeof(text), "*filter\n-A INPUT %s -j DROP\nCOMMIT\n", old[i].rule);
		s = rule_set_parse_iptables(text, "f", &err);
		assert_null(s);
		assert_int_equal(err.line, 2);
		assert_int_equal(err.col, old[i].col);
		assert_string_equal(err.token, "!");
		assert_non_null(strstr(err.msg, "old '--opt ! VALUE' negation"));
	}
	/* "! -p tcp -m udp": the udp match wants -p udp, which ! tcp is not */
	s = rule_set_parse_iptables(
		"*filter\n-A INPUT ! -p tcp -m udp -j DROP\nCOMMIT\n", NULL, NULL);
	assert_null(s);
	assert_int_equal(errno, EINVAL);
	s = parse("*filter\n"
		  "-A INPUT ! -s 10.0.0.0/8 -j DROP\n"
		  "-A INPUT -p udp -m udp ! --dport 20:30 -j ACCEPT\n"
		  "-A INPUT -p udp -j DROP\n"
		  "COMMIT\n");
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

static void
test_protocols(void **state)
{
	static const struct {
		const char *p;
		bool match;
		uint8_t proto;
	} cases[] = {
		{"all", false, 0},
		{"ALL", false, 0},
		{"0", false, 0},
		{"tcp", true, 6},
		{"TCP", true, 6},
		{"6", true, 6},
		{"udp", true, 17},
		{"17", true, 17},
		{"icmp", true, 1},
		{"ipv6-icmp", true, 58},
		{"icmpv6", true, 58},
		{"gre", true, 47},
		{"esp", true, 50},
		{"sctp", true, 132},
		{"255", true, 255},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];
		struct rule_set *s;
		const struct rule *r;

		snprintf(text, sizeof(text), "*filter\n-A INPUT -p %s -j DROP\nCOMMIT\n",
			cases[i].p);
		s = parse(text);
		r = only_rule(s, RULE_TABLE_FILTER);
		assert_int_equal(!!(r->match & RULE_M_PROTO), cases[i].match);
		if (cases[i].match)
			assert_int_equal(r->proto, cases[i].proto);
		rule_set_free(s);
	}
}

static void
test_addresses(void **state)
{
	static const struct {
		const char *text;
		const char *addr;
		uint8_t len;
	} cases[] = {
		{"10.1.2.3", "10.1.2.3", 32},
		{"10.1.2.3/32", "10.1.2.3", 32},
		{"10.1.2.3/8", "10.0.0.0", 8},		  /* host bits masked */
		{"10.1.2.3/255.255.0.0", "10.1.0.0", 16}, /* dotted mask */
		{"10.1.2.3/255.255.255.255", "10.1.2.3", 32},
		{"10.1.2.3/0", "0.0.0.0", 0},
		{"0.0.0.0/0", "0.0.0.0", 0},
		{"2001:db8::1", "2001:db8::1", 128},
		{"2001:db8:1:2::1/64", "2001:db8:1:2::", 64},
		{"2001:db8:ffff::1/ffff:ffff::", "2001:db8::", 32}, /* mask as an address */
		{"::/0", "::", 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[160];
		uint8_t want[16] = {0};
		struct rule_set *s;
		const struct rule *r;
		int af = strchr(cases[i].addr, ':') ? AF_INET6 : AF_INET;

		snprintf(text, sizeof(text), "*filter\n-A INPUT -d %s -j DROP\nCOMMIT\n",
			cases[i].text);
		s = parse(text);
		r = only_rule(s, RULE_TABLE_FILTER);
		assert_int_equal(r->match, RULE_M_DST);
		assert_int_equal(r->family, af == AF_INET6 ? FC_AF_INET6 : FC_AF_INET4);
		assert_int_equal(r->dst.len, cases[i].len);
		assert_int_equal(inet_pton(af, cases[i].addr, want), 1);
		assert_memory_equal(r->dst.addr, want, 16);
		rule_set_free(s);
	}
}

/* -s/-d lists: a rule per source and destination, sources outer, as iptables. */
static void
test_address_lists(void **state)
{
	static const char *const want[][2] = {
		{"10.0.0.1", "192.0.2.1"},
		{"10.0.0.1", "192.0.2.2"},
		{"10.0.2.0", "192.0.2.1"},
		{"10.0.2.0", "192.0.2.2"},
	};
	struct rule_set *s;
	const struct rule_chain *c;

	(void)state;
	s = parse("*filter\n[3:180] -A INPUT -s 10.0.0.1,10.0.2.7/24 -d 192.0.2.1,192.0.2.2 -p tcp "
		  "--dport 22 -j ACCEPT\n-A INPUT -j DROP\nCOMMIT\n");
	c = chain(s, RULE_TABLE_FILTER, "INPUT");
	assert_int_equal(c->n_rules, 5);
	for (unsigned int i = 0; i < 4; i++) {
		uint8_t a[16] = {0}, b[16] = {0};

		assert_int_equal(inet_pton(AF_INET, want[i][0], a), 1);
		assert_int_equal(inet_pton(AF_INET, want[i][1], b), 1);
		assert_memory_equal(c->rules[i].src.addr, a, 16);
		assert_memory_equal(c->rules[i].dst.addr, b, 16);
		assert_int_equal(c->rules[i].src.len, i < 2 ? 32 : 24);
		assert_int_equal(c->rules[i].dport.r[0].lo, 22);
		assert_int_equal(c->rules[i].pkts, 3);
	}
	rule_set_free(s);
	s = parse("*filter\n-A FORWARD -d 2001:db8::1,2001:db8:1::/48 -j DROP\nCOMMIT\n");
	c = chain(s, RULE_TABLE_FILTER, "FORWARD");
	assert_int_equal(c->n_rules, 2);
	assert_int_equal(c->rules[0].family, FC_AF_INET6);
	assert_int_equal(c->rules[1].dst.len, 48);
	rule_set_free(s);
}

/*
 * getopt_long's forms as iptables reads extension options: "--opt=value",
 * a unique prefix of a long option, and multiport's --dports reached by
 * "--dport" while only multiport is loaded; each written back as
 * iptables-save writes it.
 */
static void
test_getopt_forms(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"*filter\n-A INPUT -p udp -m udp --sport=137 --dport=137 -j DROP\nCOMMIT\n",
			"--sport 137 -m udp --dport 137 -j DROP"},
		{"*filter\n-A INPUT -j LOG -m limit --limit 5/min --log-prefix=\"[INPUT] \"\nCOMMIT\n",
			"--log-prefix \"[INPUT] \""},
		{"*nat\n-A PREROUTING -d 172.17.1.1/32 -p tcp --dport 80 -j DNAT --to 172.17.2.2\nCOMMIT\n",
			"-j DNAT --to-destination 172.17.2.2"},
		{"*nat\n-A PREROUTING -p tcp --dport 443 -j REDIRECT --to-port 9443\nCOMMIT\n",
			"-j REDIRECT --to-ports 9443"},
		{"*filter\n-A INPUT -p tcp -m state --state NEW -m multiport --dport 53,953 -j ACCEPT\n"
		 "COMMIT\n",
			"-m multiport --dports 53,953"},
		{"*filter\n-A INPUT -p tcp -m multiport ! --sport 1:10,20 -j ACCEPT\nCOMMIT\n",
			"-m multiport ! --sports 1:10,20"},
		{"*filter\n-A INPUT -m comment --comment=\"a b\" -j ACCEPT\nCOMMIT\n",
			"--comment \"a b\""},
		/* A module's option after a later -m, as getopt reads it. */
		{"*filter\n-A INPUT -p udp -m state -m udp -i eth0 --dport 1194 --state NEW -j ACCEPT\n"
		 "COMMIT\n",
			"--dport 1194 -m conntrack --ctstate NEW"},
		{"*filter\n-A INPUT -p tcp -m tcp -m state -m comment --dport 2222 --state "
		 "NEW,ESTABLISHED -j ACCEPT --comment \"SSH Server\"\nCOMMIT\n",
			"--comment \"SSH Server\""},
		{"*filter\n-A INPUT -p tcp -m multiport -m comment --comment x --dports 1,2 -j ACCEPT\n"
		 "COMMIT\n",
			"--dports 1,2"},
		/* Not getopt's, but iptables' too: a LOG prefix cut to 29 bytes. */
		{"*filter\n-A INPUT -j LOG --log-prefix \"iptables_ICMP_DROPPED_TRAFFIC: \"\nCOMMIT\n",
			"--log-prefix \"iptables_ICMP_DROPPED_TRAFFIC\"\n"},
	};
	static const struct {
		const char *in;
		unsigned int col;
		const char *token, *msg;
	} bad[] = {
		/* Two of SNAT's options start so: getopt_long refuses it too. */
		{"*nat\n-A POSTROUTING -j SNAT --to-source 1.2.3.4 --rand\nCOMMIT\n", 44, "--rand",
			"ambiguous option"},
		/* A module still waiting at the end of the rule. */
		{"*filter\n-A INPUT -m state -m comment --comment x -j ACCEPT\nCOMMIT\n", 13, "state",
			"state needs --state"},
		/* The rule line's own options take no "=". */
		{"*filter\n-A INPUT --in-interface=lo -j ACCEPT\nCOMMIT\n", 10, "--in-interface=lo",
			"unsupported option"},
	};
	char buf[4096], buf2[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rule_set *s = parse(cases[i].in), *b;

		assert_true(rule_set_format_iptables(s, 4, buf, sizeof(buf)) > 0);
		if (strstr(buf, cases[i].out) == NULL)
			fail_msg("case %zu: no '%s' in\n%s", i, cases[i].out, buf);
		/* Read back, it writes the same. */
		b = parse(buf);
		assert_true(rule_set_format_iptables(b, 4, buf2, sizeof(buf2)) > 0);
		assert_string_equal(buf, buf2);
		rule_set_free(b);
		rule_set_free(s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rule_error err;

		struct rule_set *s = rule_set_parse_iptables(bad[i].in, "t", &err);

		if (s != NULL)
			fail_msg("bad %zu: loaded", i);
		if (err.line != 2 || err.col != bad[i].col || strcmp(err.token, bad[i].token) != 0 ||
			strcmp(err.msg, bad[i].msg) != 0)
			fail_msg("bad %zu: got %u:%u '%s' %s", i, err.line, err.col, err.token, err.msg);
	}
}

/*
 * UDP-Lite ports: iptables has no udplite match, so -p udplite takes ports
 * through -m multiport only (xt_multiport takes UDP-Lite), even a single
 * one, and writes them back so; `-p udplite --dport` is refused, as
 * iptables refuses it.
 */
static void
test_udplite_ports(void **state)
{
	static const struct {
		const char *rule, *out;
	} ok[] = {
		{"-p udplite -m multiport --dports 53", "-p udplite -m multiport --dports 53 -j DROP"},
		{"-p udplite -m multiport ! --sports 1:5,7",
			"-p udplite -m multiport ! --sports 1:5,7 -j DROP"},
		{"-p udplite -m multiport --ports 9", "-m multiport ! --sports 9 -m multiport --dports 9"},
	};
	static const struct {
		const char *rule, *token, *msg;
	} bad[] = {
		{"-p udplite --dport 53", "--dport", NULL},
		{"-p icmp -m multiport --ports 1", "multiport",
			"multiport needs -p tcp, udp, udplite, sctp or dccp"},
	};
	char in[512], buf[4096], buf2[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct rule_set *s, *b;
		const struct rule *r;

		snprintf(in, sizeof(in), "*filter\n-A INPUT %s -j DROP\nCOMMIT\n", ok[i].rule);
		s = parse(in);
		r = &chain(s, RULE_TABLE_FILTER, "INPUT")->rules[0];
		assert_int_equal(r->proto, 136);
		assert_true(r->match & (RULE_M_SPORT | RULE_M_DPORT));
		assert_true(rule_set_format_iptables(s, 4, buf, sizeof(buf)) > 0);
		if (strstr(buf, ok[i].out) == NULL)
			fail_msg("ok %zu: no '%s' in\n%s", i, ok[i].out, buf);
		b = parse(buf);
		assert_true(rule_set_format_iptables(b, 4, buf2, sizeof(buf2)) > 0);
		assert_string_equal(buf, buf2);
		rule_set_free(b);
		rule_set_free(s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rule_error err;
		struct rule_set *s;

		snprintf(in, sizeof(in), "*filter\n-A INPUT %s -j DROP\nCOMMIT\n", bad[i].rule);
		s = rule_set_parse_iptables(in, "t", &err);
		if (s != NULL)
			fail_msg("bad %zu: loaded", i);
		if (err.line != 2 || strcmp(err.token, bad[i].token) != 0 ||
			(bad[i].msg != NULL && strcmp(err.msg, bad[i].msg) != 0))
			fail_msg("bad %zu: got %u:%u '%s' %s", i, err.line, err.col, err.token, err.msg);
	}
}

/*
 * DCCP ports, as xt_dccp and xt_multiport read them: `-p dccp --dport`
 * (the dccp match loaded implicitly), `-m dccp --sport`, multiport lists,
 * NAT targets with ports; written back as iptables-save writes them.
 */
static void
test_dccp_ports(void **state)
{
	static const struct {
		const char *rule, *out;
		uint32_t match;
	} ok[] = {
		{"-p dccp --dport 5004", "-p dccp -m dccp --dport 5004", RULE_M_DPORT},
		{"-p dccp -m dccp ! --sport 1024:65535", "-p dccp -m dccp ! --sport 1024:65535",
			RULE_M_SPORT},
		{"-p dccp -m dccp --source-port 4000 --destination-port 4001",
			"-p dccp -m dccp --sport 4000 -m dccp --dport 4001", RULE_M_SPORT | RULE_M_DPORT},
		{"-p dccp -m multiport --dports 7000,7002", "-p dccp -m multiport --dports 7000,7002",
			RULE_M_DPORT},
		{"-p dccp -m dccp", "-p dccp -m dccp --dport 0:65535", RULE_M_DPORT},
	};
	char in[512], buf[4096], buf2[4096];
	const struct rule *r;
	struct rule_set *s;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct rule_set *b;

		snprintf(in, sizeof(in), "*filter\n-A INPUT %s -j DROP\nCOMMIT\n", ok[i].rule);
		s = parse(in);
		r = &chain(s, RULE_TABLE_FILTER, "INPUT")->rules[0];
		assert_int_equal(r->proto, 33);
		assert_int_equal(r->match & (RULE_M_SPORT | RULE_M_DPORT), ok[i].match);
		assert_true(rule_set_format_iptables(s, 4, buf, sizeof(buf)) > 0);
		if (strstr(buf, ok[i].out) == NULL)
			fail_msg("ok %zu: no '%s' in\n%s", i, ok[i].out, buf);
		b = parse(buf);
		assert_true(rule_set_format_iptables(b, 4, buf2, sizeof(buf2)) > 0);
		assert_string_equal(buf, buf2);
		rule_set_free(b);
		rule_set_free(s);
	}
	/* NAT ports of DCCP, as iptables takes them. */
	s = parse("*nat\n-A PREROUTING -p dccp --dport 80 -j DNAT --to-destination 10.0.0.2:8080\n"
		  "-A POSTROUTING -p dccp -j MASQUERADE --to-ports 40000-40100\nCOMMIT\n");
	r = &chain(s, RULE_TABLE_NAT, "PREROUTING")->rules[0];
	assert_int_equal(r->nat.port_min, 8080);
	r = &chain(s, RULE_TABLE_NAT, "POSTROUTING")->rules[0];
	assert_int_equal(r->nat.port_min, 40000);
	assert_int_equal(r->nat.port_max, 40100);
	rule_set_free(s);
}

/* What iptables-nft (Debian's iptables) loads beyond iptables-legacy. */
static void
test_nft_leniency(void **state)
{
	struct rule_set *s;
	const struct rule_chain *c;

	(void)state;
	/* A chain line without a policy field: a user chain. */
	s = parse("*nat\n:PREROUTING ACCEPT [0:0]\n:NF_PERSIST_POSTROUTING [3:120]\n"
		  "-A NF_PERSIST_POSTROUTING -j MASQUERADE\nCOMMIT\n");
	c = chain(s, RULE_TABLE_NAT, "NF_PERSIST_POSTROUTING");
	assert_false(c->builtin);
	assert_int_equal(c->pkts, 3);
	assert_int_equal(c->n_rules, 1);
	rule_set_free(s);
	/* Another table's built-in name with a policy: a user chain too. */
	s = parse("*nat\n:PREROUTING ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\nCOMMIT\n");
	c = chain(s, RULE_TABLE_NAT, "FORWARD");
	assert_false(c->builtin);
	assert_int_equal(c->hooks, 0);
	rule_set_free(s);
	/* ip6tables' "-m icmpv6" is its icmp6 match. */
	s = rule_set_parse_iptables_af("*filter\n-A INPUT -p icmpv6 -m icmpv6 --icmpv6-type "
				       "destination-unreachable -j ACCEPT\nCOMMIT\n",
		"t", FC_AF_INET6, NULL);
	assert_non_null(s);
	assert_int_equal(only_rule(s, RULE_TABLE_FILTER)->n_xm, 1);
	rule_set_free(s);
}

/* "-s 0.0.0.0/0" matches every IPv4 packet, "! -s 0.0.0.0/0" none. */
static void
test_zero_prefix(void **state)
{
	static const struct fcase cases[] = {
		{"udp 1.2.3.4:1 -> 5.6.7.8:2 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 2},
	};
	struct rule_set *s = parse("*filter\n"
				   "-A INPUT ! -s 0.0.0.0/0 -j ACCEPT\n"
				   "-A INPUT -s 0.0.0.0/0 -j DROP\n"
				   "COMMIT\n");

	(void)state;
	check_filter(s, cases, 1);
	rule_set_free(s);
}

static void
test_port_ranges(void **state)
{
	static const struct {
		const char *opt;
		uint16_t n;
		uint16_t r[4][2];
		bool sport;
	} cases[] = {
		{"--dport 22", 1, {{22, 22}}, false},
		{"--dport 0", 1, {{0, 0}}, false},
		{"--dport 1024:", 1, {{1024, 65535}}, false},
		{"--dport :1023", 1, {{0, 1023}}, false},
		{"--dport :", 1, {{0, 65535}}, false},
		{"--dport 80:80", 1, {{80, 80}}, false},
		{"--destination-port 8000:8080", 1, {{8000, 8080}}, false},
		{"--sport 53", 1, {{53, 53}}, true},
		{"--source-port 1:2", 1, {{1, 2}}, true},
		{"-m multiport --dports 22,80:90,443", 3, {{22, 22}, {80, 90}, {443, 443}}, false},
		{"-m multiport --destination-ports 443,22", 2, {{443, 443}, {22, 22}}, false},
		{"-m multiport --sports 1,65535", 2, {{1, 1}, {65535, 65535}}, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[160];
		struct rule_set *s;
		const struct rule *r;
		const struct rule_ports *p;

		snprintf(text, sizeof(text), "*filter\n-A INPUT -p tcp %s -j DROP\nCOMMIT\n",
			cases[i].opt);
		s = parse(text);
		r = only_rule(s, RULE_TABLE_FILTER);
		assert_int_equal(
			r->match, RULE_M_PROTO | (cases[i].sport ? RULE_M_SPORT : RULE_M_DPORT));
		assert_int_equal(r->neg, 0);
		p = cases[i].sport ? &r->sport : &r->dport;
		assert_int_equal(p->n, cases[i].n);
		for (unsigned int j = 0; j < p->n; j++) {
			assert_int_equal(p->r[j].lo, cases[i].r[j][0]);
			assert_int_equal(p->r[j].hi, cases[i].r[j][1]);
		}
		rule_set_free(s);
	}
}

/* Several port matches on one direction: their exact conjunction. */
static void
test_port_combination(void **state)
{
	static const struct fcase cases[] = {
		{"tcp 1.1.1.1:9 -> 2.2.2.2:1500 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 1},
		{"tcp 1.1.1.1:9 -> 2.2.2.2:1600 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 1.1.1.1:9 -> 2.2.2.2:1900 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 1},
		{"tcp 1.1.1.1:9 -> 2.2.2.2:2100 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 1.1.1.1:9 -> 2.2.2.2:80 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"udp 1.1.1.1:9 -> 2.2.2.2:22 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"udp 1.1.1.1:9 -> 2.2.2.2:443 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"udp 1.1.1.1:9 -> 2.2.2.2:444 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 2},
		{"udp 1.1.1.1:9 -> 2.2.2.2:444 dst_local=1", NEW, RULE_KEY_F_NOPORTS, ACCEPT,
			RULE_HOOK_INPUT, POLICY},
	};
	struct rule_set *s = parse(
		"*filter\n"
		"-A INPUT -p tcp -m tcp --dport 1000:2000 -m multiport --dports 80,1500,1800:2500 "
		"-j DROP\n"
		"-A INPUT -p udp -m udp ! --dport 22 -m multiport ! --dports 80,443 -j DROP\n"
		"COMMIT\n");
	const struct rule_chain *c = chain(s, RULE_TABLE_FILTER, "INPUT");
	const struct rule *r;

	(void)state;
	assert_int_equal(c->n_rules, 2);
	r = &c->rules[0];
	assert_int_equal(r->neg, 0);
	assert_int_equal(r->dport.n, 2);
	assert_int_equal(r->dport.r[0].lo, 1500);
	assert_int_equal(r->dport.r[0].hi, 1500);
	assert_int_equal(r->dport.r[1].lo, 1800);
	assert_int_equal(r->dport.r[1].hi, 2000);
	r = &c->rules[1];
	assert_int_equal(r->neg, RULE_M_DPORT);
	assert_int_equal(r->dport.n, 3);
	assert_int_equal(r->dport.r[0].lo, 22);
	assert_int_equal(r->dport.r[1].lo, 80);
	assert_int_equal(r->dport.r[2].lo, 443);
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

/*
 * "--ports L" (source or destination port in L) is two rules: sport in L,
 * then dport in L. Exact even for a jump: when the first copy jumps and
 * the chain returns, the second copy may jump again, but a chain that
 * returned for a packet returns again for it (evaluation has no side
 * effects), so the walk continues after the pair as it would after one.
 */
static void
test_ports_either(void **state)
{
	static const struct fcase cases[] = {
		/* sport 22: the first copy jumps, CHK drops */
		{"tcp 1.1.1.1:22 -> 2.2.2.2:80 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 5},
		/* both ports in the list: CHK is entered once (the second copy needs sport
		 * outside the list), returns, then rule 4 */
		{"tcp 1.1.1.1:80 -> 2.2.2.2:80 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 4},
		{"tcp 1.1.1.1:5 -> 2.2.2.2:80 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 4},
		/* dport 22: only the second copy jumps */
		{"tcp 1.1.1.1:5 -> 2.2.2.2:22 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 6},
		{"tcp 1.1.1.1:5 -> 2.2.2.2:6 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 3},
		{"tcp 1.1.1.1:5 -> 2.2.2.2:7 dst_local=1", NEW, RULE_KEY_F_NOPORTS, ACCEPT,
			RULE_HOOK_INPUT, 4},
		/* "! --ports": neither port in the list */
		{"tcp 1.1.1.1:5 -> 2.2.2.2:6 src_local=1", NEW, 0, DROP, RULE_HOOK_OUTPUT, 7},
		{"tcp 1.1.1.1:22 -> 2.2.2.2:6 src_local=1", NEW, 0, ACCEPT, RULE_HOOK_OUTPUT,
			POLICY},
		{"tcp 1.1.1.1:5 -> 2.2.2.2:80 src_local=1", NEW, 0, ACCEPT, RULE_HOOK_OUTPUT,
			POLICY},
	};
	struct rule_set *s = parse("*filter\n"
				   ":CHK - [0:0]\n"
				   "-A INPUT -p tcp -m multiport --ports 22,80 -j CHK\n"
				   "-A INPUT -p tcp -m tcp --dport 6 -j DROP\n"
				   "-A INPUT -p tcp -j ACCEPT\n"
				   "-A CHK -p tcp -m tcp --sport 22 -j DROP\n"
				   "-A CHK -p tcp -m tcp --dport 22 -j DROP\n"
				   "-A OUTPUT -p tcp -m multiport ! --ports 22,80 -j DROP\n"
				   "COMMIT\n");
	const struct rule_chain *c = chain(s, RULE_TABLE_FILTER, "INPUT");

	(void)state;
	/* ids: INPUT 1 (sport copy), 2 (dport copy), 3, 4; CHK 5, 6; OUTPUT 7 */
	assert_int_equal(c->n_rules, 4);
	assert_int_equal(c->rules[0].match, RULE_M_PROTO | RULE_M_SPORT);
	assert_int_equal(c->rules[1].match, RULE_M_PROTO | RULE_M_SPORT | RULE_M_DPORT);
	assert_int_equal(c->rules[1].neg, RULE_M_SPORT);
	assert_int_equal(c->rules[0].action, RULE_ACT_JUMP);
	assert_int_equal(c->rules[1].action, RULE_ACT_JUMP);
	assert_int_equal(c->rules[1].dport.n, 2);
	assert_int_equal(c->rules[1].sport.n, 2);
	c = chain(s, RULE_TABLE_FILTER, "OUTPUT");
	assert_int_equal(c->n_rules, 1);
	assert_int_equal(c->rules[0].match, RULE_M_PROTO | RULE_M_SPORT | RULE_M_DPORT);
	assert_int_equal(c->rules[0].neg, RULE_M_SPORT | RULE_M_DPORT);
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

static void
test_ctstate_combination(void **state)
{
	static const struct fcase cases[] = {
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 1},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 dst_local=1", EST, 0, ACCEPT, RULE_HOOK_INPUT, POLICY},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 dst_local=1", UNTRACKED, 0, ACCEPT, RULE_HOOK_INPUT,
			POLICY},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 src_local=1", NEW, 0, ACCEPT, RULE_HOOK_OUTPUT,
			POLICY},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 src_local=1", INV, 0, ACCEPT, RULE_HOOK_OUTPUT,
			POLICY},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 src_local=1", EST, 0, DROP, RULE_HOOK_OUTPUT, 2},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 src_local=1", UNTRACKED, 0, DROP, RULE_HOOK_OUTPUT, 2},
	};
	struct rule_set *s = parse(
		"*filter\n"
		"-A INPUT -m conntrack --ctstate NEW,ESTABLISHED -m state ! --state ESTABLISHED "
		"-j DROP\n"
		"-A OUTPUT -m conntrack ! --ctstate NEW -m conntrack ! --ctstate invalid -j DROP\n"
		"COMMIT\n");
	const struct rule *r;

	(void)state;
	r = &chain(s, RULE_TABLE_FILTER, "INPUT")->rules[0];
	assert_int_equal(r->ctstate, RULE_CT_NEW);
	assert_int_equal(r->neg, 0);
	r = &chain(s, RULE_TABLE_FILTER, "OUTPUT")->rules[0];
	assert_int_equal(r->ctstate, RULE_CT_NEW | RULE_CT_INVALID);
	assert_int_equal(r->neg, RULE_M_CTSTATE);
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

/*
 * "-p tcp -m tcp" with no port option still fails on a non-first fragment
 * (netfilter's tcp match does), "-p udp" alone does not.
 */
static void
test_bare_protocol_match(void **state)
{
	static const struct fcase cases[] = {
		{"tcp 1.1.1.1:0 -> 2.2.2.2:0 dst_local=1", NEW, RULE_KEY_F_NOPORTS, ACCEPT,
			RULE_HOOK_INPUT, POLICY},
		{"tcp 1.1.1.1:1 -> 2.2.2.2:2 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 1},
		{"udp 1.1.1.1:0 -> 2.2.2.2:0 dst_local=1", NEW, RULE_KEY_F_NOPORTS, DROP,
			RULE_HOOK_INPUT, 2},
		{"udp 1.1.1.1:1 -> 2.2.2.2:2 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 2},
	};
	struct rule_set *s = parse("*filter\n"
				   "-A INPUT -p tcp -m tcp -j DROP\n"
				   "-A INPUT -p udp -j DROP\n"
				   "COMMIT\n");

	(void)state;
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	rule_set_free(s);
}

/* A rule without -j only counts packets: a "count" rule, which changes no verdict. */
static void
test_no_target(void **state)
{
	static const struct fcase cases[] = {
		{"tcp 10.1.1.1:1 -> 2.2.2.2:22 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, 2},
	};
	struct rule_error err;
	struct rule_set *s = parse("*filter\n"
				   "-A INPUT -s 10.0.0.0/8 -p tcp -m tcp --dport 22\n"
				   "-A INPUT -j DROP\n"
				   "COMMIT\n");

	(void)state;
	assert_int_equal(rule_set_rule_count(s), 2);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->rules[0].action, RULE_ACT_COUNT);
	check_filter(s, cases, 1);
	rule_set_free(s);
	/* ... and it is checked like any other */
	s = rule_set_parse_iptables("*filter\n-A INPUT -m bogus\nCOMMIT\n", NULL, &err);
	assert_null(s);
	assert_string_equal(err.token, "bogus");
}

/* RETURN in a built-in chain applies its policy. */
static void
test_return_in_base_chain(void **state)
{
	static const struct fcase cases[] = {
		{"udp 10.1.1.1:1 -> 2.2.2.2:2 dst_local=1", NEW, 0, DROP, RULE_HOOK_INPUT, POLICY},
		{"udp 11.1.1.1:1 -> 2.2.2.2:2 dst_local=1", NEW, 0, ACCEPT, RULE_HOOK_INPUT, 2},
	};
	static const struct ncase ncases[] = {
		{RULE_NAT_SRC, "udp 10.1.1.1:1 -> 2.2.2.2:2", RULE_ACT_ACCEPT,
			RULE_HOOK_POSTROUTING, POLICY, NULL, NULL, 0, 0},
		{RULE_NAT_SRC, "udp 11.1.1.1:1 -> 2.2.2.2:2", RULE_ACT_MASQUERADE,
			RULE_HOOK_POSTROUTING, 4, NULL, NULL, 0, 0},
	};
	struct rule_set *s = parse("*filter\n"
				   ":INPUT DROP [0:0]\n"
				   "-A INPUT -s 10.0.0.0/8 -j RETURN\n"
				   "-A INPUT -j ACCEPT\n"
				   "COMMIT\n"
				   "*nat\n"
				   "-A POSTROUTING -s 10.0.0.0/8 -j RETURN\n"
				   "-A POSTROUTING -j MASQUERADE\n"
				   "COMMIT\n");

	(void)state;
	check_filter(s, cases, sizeof(cases) / sizeof(cases[0]));
	check_nat(s, ncases, sizeof(ncases) / sizeof(ncases[0]));
	rule_set_free(s);
}

/* The chain mapping: built-in chains claim their hooks, user chains none. */
static void
test_chain_mapping(void **state)
{
	static const struct {
		enum rule_table t;
		const char *name;
		enum rule_hook hook;
	} builtins[] = {
		{RULE_TABLE_FILTER, "INPUT", RULE_HOOK_INPUT},
		{RULE_TABLE_FILTER, "FORWARD", RULE_HOOK_FORWARD},
		{RULE_TABLE_FILTER, "OUTPUT", RULE_HOOK_OUTPUT},
		{RULE_TABLE_NAT, "PREROUTING", RULE_HOOK_PREROUTING},
		{RULE_TABLE_NAT, "INPUT", RULE_HOOK_INPUT},
		{RULE_TABLE_NAT, "OUTPUT", RULE_HOOK_OUTPUT},
		{RULE_TABLE_NAT, "POSTROUTING", RULE_HOOK_POSTROUTING},
	};
	struct rule_set *s = parse("*filter\n"
				   ":INPUT ACCEPT [0:0]\n"
				   ":FORWARD DROP [0:0]\n"
				   ":MINE - [0:0]\n"
				   ":PREROUTING - [0:0]\n"
				   "COMMIT\n"
				   "*nat\n"
				   ":FORWARD - [0:0]\n"
				   "COMMIT\n");

	(void)state;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		const struct rule_chain *c = chain(s, builtins[i].t, builtins[i].name);

		assert_int_equal(c->hooks, RULE_HOOK_F(builtins[i].hook));
		assert_ptr_equal(rule_set_hook_chain(s, builtins[i].t, builtins[i].hook), c);
	}
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "FORWARD")->policy, RULE_POLICY_DROP);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "OUTPUT")->policy, RULE_POLICY_ACCEPT);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "MINE")->hooks, 0);
	/* a built-in name of the other table is a user chain here */
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "PREROUTING")->hooks, 0);
	assert_int_equal(chain(s, RULE_TABLE_NAT, "FORWARD")->hooks, 0);
	rule_set_free(s);

	/* no nat table in the file: no translation anywhere */
	s = parse("*filter\nCOMMIT\n");
	assert_null(rule_set_chain_find(s, RULE_TABLE_NAT, "PREROUTING"));
	assert_int_equal(rule_set_rule_count(s), 0);
	rule_set_free(s);
	s = parse("");
	assert_int_equal(rule_set_rule_count(s), 0);
	rule_set_free(s);
}

/* Chain names as iptables takes them (any printable character but blanks,
 * not starting with '-' or '!'), seen in real files ("GOOD~STUFF",
 * "DOS~Pro-t_ect"): loaded, written back in both languages and read again. */
static void
test_chain_name_chars(void **state)
{
	static const char text[] = "*filter\n"
				   ":INPUT DROP [0:0]\n"
				   ":GOOD~STUFF - [0:0]\n"
				   ":DOS~Pro-t_ect - [0:0]\n"
				   ":a:b@c[1]%+=,/ - [0:0]\n"
				   "-A INPUT -j DOS~Pro-t_ect\n"
				   "-A INPUT -j a:b@c[1]%+=,/\n"
				   "-A INPUT -p tcp -m time --timestart 06:59 --timestop 23:59 "
				   "--days Sun,Mon,Tue -j GOOD~STUFF\n"
				   "-A GOOD~STUFF -j ACCEPT\n"
				   "COMMIT\n";
	static const char *const bad[] = {
		"*filter\n:-X - [0:0]\nCOMMIT\n",
		"*filter\n:!X - [0:0]\nCOMMIT\n",
		"*filter\n:A\"B - [0:0]\nCOMMIT\n",
		"*filter\n:A#B - [0:0]\nCOMMIT\n",
	};
	struct rule_set *s = parse(text), *b;
	struct rule_error err;
	char buf[4096];

	(void)state;
	assert_non_null(chain(s, RULE_TABLE_FILTER, "GOOD~STUFF"));
	assert_non_null(chain(s, RULE_TABLE_FILTER, "a:b@c[1]%+=,/"));
	/* --days is the old time match's name of --weekdays */
	assert_true(rule_set_format_iptables(s, 4, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--weekdays Mon,Tue,Sun -j GOOD~STUFF"));
	b = parse(buf);
	rule_set_free(b);
	assert_true(rule_set_format(s, buf, sizeof(buf)) > 0);
	b = rule_set_parse(buf, "native", &err);
	if (b == NULL)
		fail_msg("%u:%u %s '%s'\n%s", err.line, err.col, err.msg, err.token, buf);
	assert_int_equal(rule_set_rule_count(b), rule_set_rule_count(s));
	assert_non_null(chain(b, RULE_TABLE_FILTER, "DOS~Pro-t_ect"));
	rule_set_free(b);
	rule_set_free(s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = rule_set_parse_iptables(bad[i], "t", &err);
		if (b != NULL)
			fail_msg("loaded: %s", bad[i]);
	}
}

static void
test_family(void **state)
{
	static const char *const noaddr = "*filter\n-A INPUT -p tcp -j DROP\nCOMMIT\n";
	struct rule_error err;
	struct rule_set *s;

	(void)state;
	s = parse(noaddr);
	assert_int_equal(only_rule(s, RULE_TABLE_FILTER)->family, FC_AF_INET4);
	rule_set_free(s);
	s = rule_set_parse_iptables_af(noaddr, NULL, FC_AF_INET6, &err);
	assert_non_null(s);
	assert_int_equal(only_rule(s, RULE_TABLE_FILTER)->family, FC_AF_INET6);
	rule_set_free(s);
	s = parse("# Generated by ip6tables-save v1.8.9 (nf_tables) on Tue Dec  3 2024\n"
		  "*filter\n-A INPUT -p tcp -j DROP\nCOMMIT\n");
	assert_int_equal(only_rule(s, RULE_TABLE_FILTER)->family, FC_AF_INET6);
	rule_set_free(s);
	/* the first address decides when nothing else did */
	s = parse("*filter\n-A INPUT -p tcp -j DROP\n-A INPUT -s 2001:db8::/32 -j DROP\n"
		  "COMMIT\n");
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->rules[0].family, FC_AF_INET6);
	rule_set_free(s);
	/* the caller's family against the file's */
	s = rule_set_parse_iptables_af(
		"*filter\n-A INPUT -s 10.0.0.1 -j DROP\nCOMMIT\n", "f", FC_AF_INET6, &err);
	assert_null(s);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 13);
	assert_string_equal(err.msg, "IPv4 address in an IPv6 rule set");
	/* Read by the IPv6 tool, another tool's header is only a comment, as
	 * to ip6tables-restore; read as either, two headers must agree. */
	s = rule_set_parse_iptables_af(
		"# Generated by iptables-save v1.8\n*filter\n-A INPUT -j REJECT\nCOMMIT\n", "f",
		FC_AF_INET6, &err);
	assert_non_null(s);
	assert_int_equal(only_rule(s, RULE_TABLE_FILTER)->family, FC_AF_INET6);
	rule_set_free(s);
	s = rule_set_parse_iptables_af("# Generated by ip6tables-save v1.8\n"
				       "# Generated by iptables-save v1.8\n", "f", 0, &err);
	assert_null(s);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 16);
	assert_string_equal(err.token, "iptables");
	s = rule_set_parse_iptables_af(noaddr, NULL, 5, NULL);
	assert_null(s);
	assert_int_equal(errno, EINVAL);
}

static void
test_nat_targets(void **state)
{
	static const struct {
		const char *chain;
		const char *target;
		uint8_t action;
		const char *min;
		const char *max;
		uint16_t pmin;
		uint16_t pmax;
		bool v6;
	} cases[] = {
		{"PREROUTING", "DNAT --to-destination 1.2.3.4", RULE_ACT_DNAT, "1.2.3.4", "1.2.3.4",
			0, 0, false},
		{"PREROUTING", "DNAT --to-destination 1.2.3.4-1.2.3.9", RULE_ACT_DNAT, "1.2.3.4",
			"1.2.3.9", 0, 0, false},
		{"PREROUTING", "DNAT --to-destination 1.2.3.4:80", RULE_ACT_DNAT, "1.2.3.4",
			"1.2.3.4", 80, 80, false},
		{"OUTPUT", "DNAT --to-destination 1.2.3.4-1.2.3.9:1000-2000", RULE_ACT_DNAT,
			"1.2.3.4", "1.2.3.9", 1000, 2000, false},
		{"POSTROUTING", "SNAT --to-source 5.6.7.8:1024-65535", RULE_ACT_SNAT, "5.6.7.8",
			"5.6.7.8", 1024, 65535, false},
		{"INPUT", "SNAT --to-source 5.6.7.8", RULE_ACT_SNAT, "5.6.7.8", "5.6.7.8", 0, 0,
			false},
		{"POSTROUTING", "MASQUERADE", RULE_ACT_MASQUERADE, NULL, NULL, 0, 0, false},
		/* The port alone, as Docker writes them: Linux keeps the address. */
		{"PREROUTING", "DNAT --to-destination :8080", RULE_ACT_DNAT, NULL, NULL, 8080, 8080,
			false},
		{"OUTPUT", "DNAT --to-destination :8080-8090", RULE_ACT_DNAT, NULL, NULL, 8080, 8090,
			false},
		{"POSTROUTING", "SNAT --to-source :53", RULE_ACT_SNAT, NULL, NULL, 53, 53, false},
		{"POSTROUTING", "MASQUERADE --to-ports 2000", RULE_ACT_MASQUERADE, NULL, NULL, 2000,
			2000, false},
		{"PREROUTING", "DNAT --to-destination [2001:db8::1]:80", RULE_ACT_DNAT,
			"2001:db8::1", "2001:db8::1", 80, 80, true},
		{"PREROUTING", "DNAT --to-destination 2001:db8::1", RULE_ACT_DNAT, "2001:db8::1",
			"2001:db8::1", 0, 0, true},
		{"PREROUTING", "DNAT --to-destination 2001:db8::1-2001:db8::9", RULE_ACT_DNAT,
			"2001:db8::1", "2001:db8::9", 0, 0, true},
		{"PREROUTING", "DNAT --to-destination [2001:db8::1-2001:db8::9]:80-81",
			RULE_ACT_DNAT, "2001:db8::1", "2001:db8::9", 80, 81, true},
		{"POSTROUTING", "SNAT --to-source [2001:db8::1]", RULE_ACT_SNAT, "2001:db8::1",
			"2001:db8::1", 0, 0, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256], buf[4096];
		uint8_t a[16] = {0};
		struct rule_set *s, *back;
		struct rule_error err;
		const struct rule *r;
		int af = cases[i].v6 ? AF_INET6 : AF_INET;

		snprintf(text, sizeof(text), "*nat\n-A %s -p tcp -j %s\nCOMMIT\n", cases[i].chain,
			cases[i].target);
		s = parse(text);
		r = only_rule(s, RULE_TABLE_NAT);
		assert_int_equal(r->action, cases[i].action);
		assert_int_equal(r->family, cases[i].v6 ? FC_AF_INET6 : FC_AF_INET4);
		assert_int_equal(r->nat.port_min, cases[i].pmin);
		assert_int_equal(r->nat.port_max, cases[i].pmax);
		if (cases[i].min == NULL) {
			assert_int_equal(r->nat.family, 0);
			/* Written back as iptables-save writes it; native reads back equal. */
			assert_true(rule_set_format_iptables(s, FC_AF_INET4, buf, sizeof(buf)) > 0);
			assert_non_null(strstr(buf, cases[i].target));
			assert_true(rule_set_format(s, buf, sizeof(buf)) > 0);
			back = rule_set_parse(buf, "native", &err);
			if (back == NULL)
				fail_msg("%u:%u %s '%s'\n%s", err.line, err.col, err.msg, err.token,
					buf);
			assert_true(rule_equal(r, only_rule(back, RULE_TABLE_NAT)));
			rule_set_free(back);
		} else {
			assert_int_equal(r->nat.family, r->family);
			assert_int_equal(inet_pton(af, cases[i].min, a), 1);
			assert_memory_equal(r->nat.addr_min, a, 16);
			assert_int_equal(inet_pton(af, cases[i].max, a), 1);
			assert_memory_equal(r->nat.addr_max, a, 16);
		}
		rule_set_free(s);
	}
}

/*
 * IPv4 addresses as iptables reads them: "0/0", "10/8", "172.16.0/24"
 * (missing parts zero, not inet_aton's), octal and hex parts.
 */
static void
test_short_addresses(void **state)
{
	static const struct {
		const char *opt;
		uint8_t addr[4];
		uint8_t len;
	} cases[] = {
		{"-s 0/0", {0, 0, 0, 0}, 0},
		{"-d 10/8", {10, 0, 0, 0}, 8},
		{"-s 172.16.0/24", {172, 16, 0, 0}, 24},
		{"-d 10.1", {10, 1, 0, 0}, 32},
		{"-s 192.168/255.255.0.0", {192, 168, 0, 0}, 16},
		{"-s 010.0x10.0.1", {8, 16, 0, 1}, 32},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct rule_set *s;
		const struct rule *r;
		const struct rule_prefix *pf;

		snprintf(text, sizeof(text), "*filter\n-A INPUT %s -j ACCEPT\nCOMMIT\n",
			cases[i].opt);
		s = parse(text);
		r = only_rule(s, RULE_TABLE_FILTER);
		pf = cases[i].opt[1] == 's' ? &r->src : &r->dst;
		assert_int_equal(r->family, FC_AF_INET4);
		assert_int_equal(pf->len, cases[i].len);
		assert_memory_equal(pf->addr, cases[i].addr, 4);
		rule_set_free(s);
	}
}

/* Words as iptables-restore splits them; counters in both spellings. */
static void
test_words_and_counters(void **state)
{
	struct rule_set *s = parse("# a comment line\r\n"
				   "\n"
				   "   # an indented one\n"
				   "*filter\n"
				   ":INPUT ACCEPT [12:3456]\r\n"
				   "[1:2] -A INPUT -s 10.0.0.1 -m comment --comment \"say "
				   "\\\"hi\\\" \\\\ now\" -j DROP\n"
				   "-A INPUT -c 5 100 -m comment --comment plain\t-j ACCEPT\n"
				   "-A INPUT -m comment --comment \"\" -j ACCEPT\n"
				   "-A INPUT -m comment --comment x\"y z\" -j ACCEPT\n"
				   "COMMIT\n");
	const struct rule_chain *c = chain(s, RULE_TABLE_FILTER, "INPUT");

	(void)state;
	assert_int_equal(c->n_rules, 4);
	assert_string_equal(c->rules[0].comment, "say \"hi\" \\ now");
	assert_string_equal(c->rules[1].comment, "plain");
	assert_string_equal(c->rules[2].comment, "");
	assert_string_equal(c->rules[3].comment, "xy z");
	rule_set_free(s);
}

/*
 * A chain line's malformed counters load as 0 with a warning at them
 * (iptables-restore without -c never reads them); a rule line's stay an
 * error, as in iptables-restore.
 */
static void
test_chain_counters_warn(void **state)
{
	struct rule_ipt_warn wn;
	struct rule_ipt_opts o = {.family = FC_AF_INET4, .warn = &wn};
	struct rule_error err;
	const struct rule_chain *c;
	struct rule_set *s;

	(void)state;
	memset(&wn, 0, sizeof(wn));
	s = rule_set_parse_iptables_opts("*nat\n"
					 ":PREROUTING ACCEPT [0_0]\n"
					 ":POSTROUTING ACCEPT [7:700]\n"
					 ":MINE [1x]\n"
					 ":OTHER - [x:1]\n"
					 "-A PREROUTING -j MINE\n"
					 "-A MINE -j OTHER\n"
					 "COMMIT\n",
		"f.rules", &o, &err);
	assert_non_null(s);
	assert_int_equal(wn.count, 3);
	assert_string_equal(wn.first.file, "f.rules");
	assert_int_equal(wn.first.line, 2);
	assert_int_equal(wn.first.col, 20);
	assert_string_equal(wn.first.token, "[0_0]");
	assert_string_equal(wn.first.msg, "bad chain counters, loaded as 0 (iptables-restore "
					  "without -c does not read them)");
	c = chain(s, RULE_TABLE_NAT, "PREROUTING");
	assert_int_equal(c->pkts, 0);
	assert_int_equal(c->bytes, 0);
	assert_int_equal(c->policy, RULE_POLICY_ACCEPT);
	c = chain(s, RULE_TABLE_NAT, "POSTROUTING");
	assert_int_equal(c->pkts, 7);
	assert_int_equal(c->bytes, 700);
	assert_int_equal(chain(s, RULE_TABLE_NAT, "MINE")->pkts, 0);
	assert_int_equal(chain(s, RULE_TABLE_NAT, "OTHER")->pkts, 0);
	rule_set_free(s);

	/* Without a place for warnings it loads the same. */
	s = rule_set_parse_iptables_af("*filter\n:INPUT DROP [x:0]\nCOMMIT\n", "f", 0, &err);
	assert_non_null(s);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->policy, RULE_POLICY_DROP);
	rule_set_free(s);

	/* A rule line's counters are read: still an error, nothing loaded. */
	memset(&wn, 0, sizeof(wn));
	s = rule_set_parse_iptables_opts("*filter\n[0_0] -A INPUT -j ACCEPT\nCOMMIT\n", "f",
		&o, &err);
	assert_null(s);
	assert_int_equal(err.line, 2);
	assert_string_equal(err.msg, "bad counters");
	assert_int_equal(wn.count, 0);
}

/*
 * The rules fuzzer's finding with the chain counters above: a file without
 * rules that an ip6tables-save header names keeps IPv6 policies (IPv4's are
 * ACCEPT), so its ip6tables export carries them and reads back the same;
 * its iptables export has none of them, rightly.
 */
static void
test_chain_counters_v6_header(void **state)
{
	static const char text[] = "# Generated by ip6tables-nft-save v1.8.9 (nf_tables)\n"
				   "*filter\n"
				   ":INPUT DROP [0:0]\n"
				   ":FORWARD DROP [15:10801]\n"
				   ":OUTPUT ACCEPT [1004019:1738381071/0xff\n"
				   "COMMIT\n";
	struct rule_ipt_warn wn;
	struct rule_ipt_opts o = {.warn = &wn};
	struct rule_set *s, *back;
	struct rule_error err;
	char buf[4096];

	(void)state;
	memset(&wn, 0, sizeof(wn));
	s = rule_set_parse_iptables_opts(text, "f", &o, &err);
	assert_non_null(s);
	assert_int_equal(wn.count, 1);
	assert_int_equal(wn.first.line, 5);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->policy6, RULE_POLICY_DROP);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "INPUT")->policy, RULE_POLICY_ACCEPT);
	assert_int_equal(chain(s, RULE_TABLE_FILTER, "OUTPUT")->pkts6, 0);
	assert_true(rule_set_format_iptables(s, FC_AF_INET6, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, ":INPUT DROP [0:0]\n:FORWARD DROP [15:10801]\n"
				    ":OUTPUT ACCEPT [0:0]\n"));
	back = rule_set_parse_iptables_af(buf, "export", FC_AF_INET6, &err);
	assert_non_null(back);
	for (unsigned int i = 0; i < rule_set_chain_count(s, RULE_TABLE_FILTER); i++) {
		const struct rule_chain *a = rule_set_chain_at(s, RULE_TABLE_FILTER, i);
		const struct rule_chain *b = rule_set_chain_at(back, RULE_TABLE_FILTER, i);

		assert_string_equal(a->name, b->name);
		assert_int_equal(a->policy, b->policy);
		assert_int_equal(a->policy6, b->policy6);
	}
	rule_set_free(back);
	assert_true(rule_set_format_iptables(s, FC_AF_INET4, buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "DROP"));
	rule_set_free(s);
}

static void
test_long_comment(void **state)
{
	char text[600], comment[RULE_COMMENT_MAX + 1];
	struct rule_error err;
	struct rule_set *s;

	(void)state;
	memset(comment, 'c', sizeof(comment));
	comment[RULE_COMMENT_MAX - 1] = '\0';
	snprintf(text, sizeof(text), "*filter\n-A INPUT -m comment --comment %s -j DROP\nCOMMIT\n",
		comment);
	s = parse(text);
	assert_int_equal(strlen(only_rule(s, RULE_TABLE_FILTER)->comment), RULE_COMMENT_MAX - 1);
	rule_set_free(s);
	comment[RULE_COMMENT_MAX - 1] = 'c';
	comment[RULE_COMMENT_MAX] = '\0';
	snprintf(text, sizeof(text), "*filter\n-A INPUT -m comment --comment %s -j DROP\nCOMMIT\n",
		comment);
	assert_null(rule_set_parse_iptables(text, NULL, &err));
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 31);
	assert_string_equal(err.msg, "comment too long");
}

/* Jumps nested deeper than the model holds are refused at the jump that overflows. */
static void
test_nesting(void **state)
{
	size_t cap = 1 << 14, len;
	char *text = malloc(cap);
	struct rule_error err;
	struct rule_set *s;
	unsigned int n;

	(void)state;
	assert_non_null(text);
	for (n = 8; n <= 64; n *= 2) {
		len = (size_t)snprintf(text, cap, "*filter\n");
		for (unsigned int i = 0; i < n; i++)
			len += (size_t)snprintf(text + len, cap - len, ":C%u - [0:0]\n", i);
		len += (size_t)snprintf(text + len, cap - len, "-A INPUT -j C0\n");
		for (unsigned int i = 0; i + 1 < n; i++)
			len += (size_t)snprintf(text + len, cap - len, "-A C%u -j C%u\n", i, i + 1);
		snprintf(text + len, cap - len, "-A C%u -j DROP\nCOMMIT\n", n - 1);
		s = rule_set_parse_iptables(text, NULL, &err);
		if (n < RULE_DEPTH_MAX) {
			assert_non_null(s);
			rule_set_free(s);
		} else {
			assert_null(s);
			assert_string_equal(err.msg, "chains nested too deeply");
			assert_true(err.line > n + 1);
		}
	}
	free(text);
}

static void
test_load_errors(void **state)
{
	struct rule_error err;

	(void)state;
	assert_null(rule_set_load_iptables("/nonexistent/gufc.rules", &err));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.file, "/nonexistent/gufc.rules");
	assert_true(strlen(err.msg) > 0);
	assert_null(rule_set_load_iptables(NULL, &err));
	assert_int_equal(errno, EINVAL);
	assert_null(rule_set_parse_iptables(NULL, NULL, &err));
	assert_int_equal(errno, EINVAL);
	/* errors are placed in the named file */
	assert_null(rule_set_parse_iptables("*raw\n", "my.rules", &err));
	assert_string_equal(err.file, "my.rules");
	/* An IPv4 file given to the IPv6 loader: its first address says so. */
	assert_null(rule_set_load_iptables_af(IPT_DIR "host.rules", FC_AF_INET6, &err));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(err.line, 9);
	assert_string_equal(err.msg, "IPv4 address in an IPv6 rule set");
}

/* ------------------------------------------------------------------------ */
/* Invalid inputs                                                            */
/* ------------------------------------------------------------------------ */

struct bad {
	const char *text;
	unsigned int line;
	unsigned int col;
	const char *token;
	const char *msg;
};

static const struct bad bad_inputs[] = {
	/* framing */
	{"*bogus\n", 1, 1, "*bogus", "unknown table"},
	{"-A INPUT -j ACCEPT\n", 1, 1, "-A", "rule outside a table"},
	{"*filter\n-A INPUT -j ACCEPT\n", 1, 1, "*filter", "missing COMMIT"},
	{"COMMIT\n", 1, 1, "COMMIT", "COMMIT outside a table"},
	{"*filter\n*nat\n", 2, 1, "*nat", "missing COMMIT before this table"},
	{"*filter\nCOMMIT\n*filter\nCOMMIT\n", 3, 1, "*filter", "table given twice"},
	{"*filter junk\n", 1, 9, "junk", "junk after table name"},
	{"*filter\nCOMMIT now\n", 2, 8, "now", "junk after COMMIT"},
	{"*filter\n-A INPUT -j ACCEPT \x01\nCOMMIT\n", 2, 20, "", "control character"},
	/* chains */
	{":INPUT DROP [0:0]\n", 1, 1, ":INPUT", "chain outside a table"},
	{"*filter\n:INPUT FOO [0:0]\nCOMMIT\n", 2, 8, "FOO", "bad policy"},
	{"*filter\n:INPUT - [0:0]\nCOMMIT\n", 2, 8, "-", "built-in chain needs a policy"},
	{"*filter\n:INPUT\nCOMMIT\n", 2, 1, ":INPUT", "missing policy"},
	{"*filter\n:MINE ACCEPT [0:0]\n", 2, 7, "ACCEPT", "user-defined chains have no policy"},
	{"*filter\n:INPUT [0:0]\nCOMMIT\n", 2, 8, "[0:0]", "bad policy"},
	{"*filter\n:MINE - [0:0]\n:MINE - [0:0]\n", 3, 2, "MINE", "chain declared twice"},
	{"*filter\n:INPUT DROP [0:0]\n:INPUT ACCEPT [0:0]\n", 3, 2, "INPUT",
		"chain declared twice"},
	{"*filter\n:main - [0:0]\n", 2, 2, "main", "chain name reserved by gufc"},
	{"*filter\n:LOG - [0:0]\n", 2, 2, "LOG", "chain name is a target name"},
	{"*filter\n:-bad - [0:0]\n", 2, 2, "-bad", "unsupported chain name"},
	{"*filter\n:INPUT DROP [0:0] extra\n", 2, 19, "extra", "junk after chain"},
	{"*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j B\n-A B -j A\nCOMMIT\n", 5, 9, "A",
		"chain loop"},
	/* rule framing */
	{"*filter\n-A NOPE -j ACCEPT\n", 2, 4, "NOPE", "unknown chain"},
	{"*filter\n-A main -j ACCEPT\n", 2, 4, "main", "unknown chain"},
	{"*filter\n[x:1] -A INPUT -j ACCEPT\n", 2, 1, "[x:1]", "bad counters"},
	{"*filter\n-A INPUT -c 1 x -j ACCEPT\n", 2, 15, "x", "bad counters"},
	{"*filter\n-A INPUT -j ACCEPT now\n", 2, 20, "now", "unexpected word"},
	{"*filter\n-A INPUT --bogus -j ACCEPT\n", 2, 10, "--bogus", "unsupported option"},
	{"*filter\n-A INPUT -t nat -j ACCEPT\n", 2, 10, "-t",
		"the table is given by a *table line"},
	{"*filter\n-A INPUT -m comment --comment \"open -j ACCEPT\n", 2, 31, "\"",
		"unterminated quote"},
	/* restore commands */
	{"*filter\n-4 -A INPUT -j ACCEPT\nCOMMIT\n", 2, 1, "-4", "-4/-6 needs the file's family (a \"Generated by\" line, or --iptables/--ip6tables)"},
	{"*filter\n-I INPUT 5 -j ACCEPT\nCOMMIT\n", 2, 10, "5", "index of insertion too big"},
	/* N counts iptables' rules: a --ports rule is one */
	{"*filter\n-A INPUT -p tcp -m multiport --ports 1,2 -j ACCEPT\n-I INPUT 3 -j ACCEPT\nCOMMIT\n",
		3, 10, "3", "index of insertion too big"},
	{"*filter\n-I INPUT 0 -j ACCEPT\nCOMMIT\n", 2, 10, "0", "bad rule number"},
	{"*filter\n-X INPUT\nCOMMIT\n", 2, 4, "INPUT", "cannot delete a built-in chain"},
	{"*filter\n-N MINE\n-N MINE\nCOMMIT\n", 3, 4, "MINE", "chain declared twice"},
	{"*filter\n-N MINE\n-P MINE DROP\nCOMMIT\n", 3, 4, "MINE", "only built-in chains have a policy"},
	{"*filter\n-P INPUT FOO\nCOMMIT\n", 2, 10, "FOO", "bad policy"},
	{"*filter\n-N MINE\n-A MINE -j DROP\n-X MINE\nCOMMIT\n", 4, 4, "MINE", "chain is not empty"},
	{"*filter\n-N MINE\n-A INPUT -j MINE\n-X\nCOMMIT\n", 4, 1, "-X", "chain is still referenced"},
	{"*filter\n-D INPUT 1\nCOMMIT\n", 2, 1, "-D", "-D, -R and -E are not supported: write the rule set as it should be"},
	{"*filter\n-Q INPUT\nCOMMIT\n", 2, 1, "-Q", "expected a command (-A, -I, -N, -F, -X, -Z, -P)"},
	/* matches and targets gufc refuses, or gets wrong */
	{"*filter\n-A OUTPUT -m owner --uid-owner 0 -j DROP\n", 2, 14, "owner", "gufc has no local sockets, so no packet has an owner (-m owner)"},
	{"*filter\n-A FORWARD -m physdev --physdev-in eth0 -j DROP\n", 2, 15, "physdev", "gufc has no Linux bridge: no bridge ports for -m physdev (-i/-o match gufc's own ports)"},
	{"*raw\n-A PREROUTING -i eth1 -j CT --zone 1\n", 2, 29, "--zone", "CT --zone: gufc has no conntrack zones: one connection per tuple, whatever the port"},
	{"*raw\n-A PREROUTING -i eth1 -j CT --zone mark\n", 2, 29, "--zone", "CT --zone: gufc has no conntrack zones: one connection per tuple, whatever the port"},
	{"*raw\n-A PREROUTING -j CT --zone-orig 1\n", 2, 21, "--zone-orig", "CT --zone: gufc has no conntrack zones: one connection per tuple, whatever the port"},
	{"*raw\n-A OUTPUT -j CT --helper ftp --zone-reply 2\n", 2, 30, "--zone-reply", "CT --zone: gufc has no conntrack zones: one connection per tuple, whatever the port"},
	{"*filter\n-A INPUT -m policy --dir in --pol ipsec -j ACCEPT\n", 2, 13, "policy", "gufc terminates no IPsec: it has no policies for -m policy to look at"},
	{"*filter\n-A INPUT -m string --string x -j DROP\n", 2, 13, "string", "string needs --algo (bm or kmp)"},
	{"*filter\n-A INPUT -m u32 --u32 \"0>>22&0x3C@0>>24\" -j DROP\n", 2, 23, "0>>22&0x3C@0>>24", "u32: abrupt end of input after a location"},
	{"*filter\n-A INPUT -m u32 --u32 \"0>22=1\" -j DROP\n", 2, 23, "0>22=1", "u32: a second '<' or '>' expected"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=1&2=3\" -j DROP\n", 2, 23, "0=1&2=3", "u32: a second '&' expected"},
	{"*filter\n-A INPUT -m u32 --u32 \"=1\" -j DROP\n", 2, 23, "=1", "u32: location missing before '='"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=\" -j DROP\n", 2, 23, "0=", "u32: a test ended with no value"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=-1\" -j DROP\n", 2, 23, "0=-1", "u32: not a number or out of range"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=0x100000000\" -j DROP\n", 2, 23, "0=0x100000000", "u32: not a number or out of range"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=1 2\" -j DROP\n", 2, 23, "0=1 2", "u32: ',' or \"&&\" expected"},
	{"*filter\n-A INPUT -m u32 --u32 \"0&1&2&3&4&5&6&7&8&9&10=1\" -j DROP\n", 2, 23, "0&1&2&3&4&5&6&7&8&9&10=1", "u32: too many operators (at most 10 numbers in a location)"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=0,1,2,3,4,5,6,7,8,9,10\" -j DROP\n", 2, 23, "0=0,1,2,3,4,5,6,7,8,9,10", "u32: too many ','s (at most 10 ranges in a value)"},
	{"*filter\n-A INPUT -m u32 --u32 \"0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0\" -j DROP\n", 2, 23, "0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0&&0=0", "u32: too many \"&&\"s (at most 10 tests)"},
	{"*filter\n-A INPUT -m u32 -j DROP\n", 2, 13, "u32", "u32 needs --u32"},
	{"*filter\n-A INPUT -j NFQUEUE\n", 2, 13, "NFQUEUE", "gufc has no user-space queues: deliver to a channel (accept channel NAME)"},
	{"*filter\n-A INPUT -m bogus -j DROP\n", 2, 13, "bogus", "unsupported match"},
	{"*filter\n-A INPUT -i eth0/1 -j ACCEPT\n", 2, 13, "eth0/1", "bad interface name"},
	{"*filter\n-A INPUT -i +eth -j ACCEPT\n", 2, 13, "+eth", "bad interface name"},
	{"*filter\n-A INPUT -p tcp -m tcp --tcp-flags SYN,BOGUS SYN -j DROP\n", 2, 36, "SYN,BOGUS", "unknown TCP flag"},
	{"*filter\n-A INPUT -p tcp --tcp-flags SYN\n", 2, 29, "SYN", "missing value"},
	{"*filter\n-A INPUT --tcp-flags SYN SYN -j DROP\n", 2, 10, "--tcp-flags", "unsupported option"},
	{"*filter\n-A INPUT -m limit --limit 5/fortnight -j ACCEPT\n", 2, 27, "5/fortnight", "bad rate unit"},
	{"*filter\n-A INPUT -m limit --limit-burst x -j ACCEPT\n", 2, 33, "x", "bad number"},
	{"*filter\n-A INPUT -m quota -j DROP\n", 2, 13, "quota", "quota needs --quota"},
	{"*filter\n-A INPUT -m quota --quota -5 -j DROP\n", 2, 27, "-5", "bad number"},
	{"*filter\n-A INPUT -m quota --quota 18446744073709551616 -j DROP\n", 2, 27, "18446744073709551616", "bad number"},
	{"*filter\n-A INPUT -p icmp -m icmp --icmp-type bogus -j ACCEPT\n", 2, 38, "bogus", "unknown ICMP type"},
	{"*filter\n-A INPUT -p tcp -m icmp --icmp-type 8 -j ACCEPT\nCOMMIT\n", 2, 20, "icmp", "extension needs its protocol (-p)"},
	{"*filter\n-A INPUT -m mark --mark 1 --mark 2 -j DROP\n", 2, 27, "--mark", "option given twice"},
	{"*filter\n-A INPUT -m mark --mark 0x1/zz -j DROP\n", 2, 25, "0x1/zz", "bad mark"},
	{"*filter\n-A INPUT -m ttl --ttl-eq 1 --ttl-lt 2 -j DROP\n", 2, 28, "--ttl-lt", "option excludes one given before"},
	{"*filter\n-A INPUT -m recent --set --rcheck -j DROP\n", 2, 26, "--rcheck", "option excludes one given before"},
	{"*filter\n-A INPUT -m recent --rcheck --hitcount 256 -j DROP\n", 2, 13, "recent", "recent --hitcount above 255 (Linux's maximum)"},
	{"*filter\n-A INPUT -m recent --update --reap -j DROP\n", 2, 13, "recent", "recent --reap needs --seconds"},
	{"*filter\n-A INPUT -m recent --set --seconds 9 -j DROP\n", 2, 13, "recent", "recent --seconds, --reap, --hitcount and --rttl go with --rcheck or --update"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-name x -j DROP\n", 2, 13, "hashlimit", "hashlimit needs --hashlimit-upto or --hashlimit-above"},
	{"*filter\n-A INPUT -m limit --limit 1kb/s -j DROP\n", 2, 27, "1kb/s", "byte rates are hashlimit's only"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 0b/s --hashlimit-name x -j DROP\n", 2, 40, "0b/s", "bad byte rate (1b/s to 4294967295b/s)"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 4096mb/s --hashlimit-name x -j DROP\n", 2, 40, "4096mb/s", "bad byte rate (1b/s to 4294967295b/s)"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 1KB/s --hashlimit-name x -j DROP\n", 2, 40, "1KB/s", "bad byte rate (Nb/s, Nkb/s, Nmb/s, Ngb/s)"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 1kb/s --hashlimit-burst 1000 --hashlimit-name x -j DROP\n", 2, 13, "hashlimit", "hashlimit burst in bytes below the rate's bytes per second"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 15b/s --hashlimit-burst 32b --hashlimit-name x -j DROP\n", 2, 13, "hashlimit", "hashlimit burst needs a byte rate of 16b/s or more"},
	{"*filter\n-A INPUT -m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 3kb --hashlimit-name x -j DROP\n", 2, 13, "hashlimit", "hashlimit burst in bytes needs a byte rate (Nb/s)"},
	{"*filter\n-A INPUT -m set --match-set nosuch src -j DROP\n", 2, 29, "nosuch", "set not loaded (give its ipset file)"},
	{"*filter\n-A INPUT -m set --match-set s bogus -j DROP\n", 2, 31, "bogus", "expected src or dst"},
	{"*filter\n-A INPUT -m iprange --src-range 10.0.0.9-10.0.0.1 -j DROP\n", 2, 33, "10.0.0.9-10.0.0.1", "bad address range"},
	{"*filter\n-A INPUT -m mac --mac-source 00:11 -j DROP\n", 2, 30, "00:11", "bad MAC address"},
	{"*filter\n-A INPUT -m conntrack --ctstate NEW --ctdir SIDEWAYS -j DROP\n", 2, 45, "SIDEWAYS", "unknown name"},
	{"*filter\n-A INPUT -m statistic --mode nth -j DROP\n", 2, 13, "statistic", "statistic nth needs --every"},
	{"*filter\n-A INPUT -m statistic --mode nth --every 2 --packet 2 -j DROP\n", 2, 13, "statistic", "statistic --packet must be below --every"},
	{"*filter\n-A INPUT -m statistic --mode random --probability 2 -j DROP\n", 2, 51, "2", "bad probability"},
	{"*filter\n-A INPUT -j CT --notrack\n", 2, 13, "CT", "this target is only allowed in the raw table"},
	{"*filter\n-A INPUT -j CHECKSUM --checksum-fill\n", 2, 13, "CHECKSUM", "this target is only allowed in the mangle table"},
	{"*filter\n-A INPUT -j MARK\nCOMMIT\n", 2, 13, "MARK", "MARK needs --set-xmark, --set-mark, --and-mark, --or-mark or --xor-mark"},
	{"*filter\n-A INPUT -j LOG --log-level 9\n", 2, 29, "9", "unknown name"},
	{"*filter\n-A INPUT -p udp -j REJECT --reject-with tcp-reset\nCOMMIT\n", 2, 20, "REJECT", "tcp-reset needs -p tcp"},
	{"*filter\n-A INPUT -j REJECT --reject-with icmp-bogus\n", 2, 34, "icmp-bogus", "unknown name"},
	{"# Generated by iptables-save\n*filter\n-A INPUT -j REJECT --reject-with "
	 "icmp6-no-route\nCOMMIT\n", 3, 13, "REJECT", "reject type of the other address family"},
	{"*mangle\n-A PREROUTING -j REJECT\nCOMMIT\n", 2, 18, "REJECT", "reject only at input, forward or output"},
	{"*filter\n-A FORWARD -p tcp -j TCPMSS --set-mss 1400\nCOMMIT\n", 2, 22, "TCPMSS", "TCPMSS needs --tcp-flags matching SYN (e.g. --tcp-flags SYN,RST SYN)"},
	{"*nat\n-A PREROUTING -j REDIRECT --to-ports 80\nCOMMIT\n", 2, 18, "REDIRECT", "NAT ports need -p tcp, udp, sctp or dccp"},
	{"*nat\n-A POSTROUTING -j NETMAP\nCOMMIT\n", 2, 19, "NETMAP", "NETMAP needs --to"},
	{"*nat\n-A POSTROUTING -j NETMAP --to 10.0.0.0/33\n", 2, 31, "10.0.0.0/33", "bad netmap prefix"},
	{"*nat\n-A POSTROUTING -j SNAT --to-source 1.2.3.4 --random --random\n", 2, 53, "--random", "option given twice"},
	{"*nat\n-A PREROUTING -j DNAT --to-destination 1.2.3.4 --random-fully\n", 2, 48, "--random-fully", "unsupported option"},
	{"*raw\n-A PREROUTING -j CT --ctevents new\n", 2, 21, "--ctevents", "CT --ctevents/--expevents: gufc sends no conntrack events"},
	{"*raw\n-A PREROUTING -j CT --notrack --expevents new\n", 2, 31, "--expevents", "CT --ctevents/--expevents: gufc sends no conntrack events"},
	{"*raw\n-A PREROUTING -p tcp -j CT --timeout tcp-slow\n", 2, 28, "--timeout", "CT --timeout: gufc has no nfct timeout policies (its conntrack timeouts are global)"},
	{"*filter\n-A INPUT -m devgroup --src-group 1 -j DROP\n", 2, 13, "devgroup", "gufc's ports are DPDK ports: they have no Linux device group (-m devgroup; match -i/-o)"},
	{"*filter\n-A INPUT -m cluster --cluster-total-nodes 2 --cluster-local-node 1 -j DROP\n", 2, 13, "cluster", "gufc shares no load among cluster nodes: no node mask to match (-m cluster)"},
	{"*filter\n-A INPUT -m connlabel --label 1 -j DROP\n", 2, 13, "connlabel", "gufc's connections carry no labels, only a mark (-m connlabel; use -m connmark)"},
	{"*filter\n-A INPUT -m rateest --rateest x --rateest-bps1 1 -j DROP\n", 2, 13, "rateest", "gufc has no rate estimators: -j RATEEST is refused too (-m rateest; use -m limit or hashlimit)"},
	{"*filter\n-A INPUT -m realm --realm 1 -j DROP\n", 2, 13, "realm", "gufc's routes have no realms (-m realm)"},
	{"*filter\n-A INPUT -m ecn --ecn-tcp-cwr -j DROP\nCOMMIT\n", 2, 13, "ecn", "ecn --ecn-tcp-ece and --ecn-tcp-cwr need -p tcp"},
	{"*filter\n-A INPUT -m ecn -j DROP\nCOMMIT\n", 2, 13, "ecn", "ecn needs --ecn-tcp-ece, --ecn-tcp-cwr or --ecn-ip-ect"},
	{"*filter\n-A INPUT -m ecn --ecn-ip-ect 4 -j DROP\n", 2, 30, "4", "bad number"},
	{"*filter\n-A INPUT -m ipcomp --ipcompspi 1 -j DROP\nCOMMIT\n", 2, 13, "ipcomp", "extension needs its protocol (-p)"},
	{"*filter\n-A INPUT -m time --datestart 1969-12-31 -j DROP\n", 2, 30, "1969-12-31", "bad date (YYYY[-MM[-DD[Thh[:mm[:ss]]]]], 1970 to 2038)"},
	{"*filter\n-A INPUT -m time --datestop 2020-13 -j DROP\n", 2, 29, "2020-13", "bad date (YYYY[-MM[-DD[Thh[:mm[:ss]]]]], 1970 to 2038)"},
	{"*filter\n-A INPUT -m time --datestop 2020-01-01 12:00 -j DROP\n", 2, 40, "12:00", "unexpected word"},
	{"*filter\n-A INPUT -m time --datestop 2020-01-01T12:00:60 -j DROP\n", 2, 29, "2020-01-01T12:00:60", "bad date (YYYY[-MM[-DD[Thh[:mm[:ss]]]]], 1970 to 2038)"},
	{"*filter\n-A INPUT -p dccp --dccp-types REQUEST -j DROP\n", 2, 18, "--dccp-types", "DCCP types and options are not matched: gufc reads DCCP ports only"},
	{"*filter\n-A INPUT -p dccp -m dccp --dccp-option 4 -j DROP\n", 2, 26, "--dccp-option", "DCCP types and options are not matched: gufc reads DCCP ports only"},
	{"*filter\n-A INPUT -p udp -m dccp --dport 80 -j DROP\n", 2, 20, "dccp", "protocol match needs the same -p protocol"},
	{"*mangle\n-A FORWARD -p udp -j ECN --ecn-tcp-ece 1\n", 2, 22, "ECN", "ECN --ecn-tcp-remove, --ecn-tcp-ece and --ecn-tcp-cwr need -p tcp"},
	{"*mangle\n-A FORWARD -p tcp -j ECN\n", 2, 22, "ECN", "ECN needs --ecn-tcp-remove, --ecn-tcp-ece, --ecn-tcp-cwr or --ecn-ip-ect"},
	{"*mangle\n-A FORWARD -p tcp -j ECN --ecn-tcp-remove --ecn-tcp-ece 1\n", 2, 43, "--ecn-tcp-ece", "option excludes one given before"},
	{"*mangle\n-A FORWARD -j ECN --ecn-ip-ect 4\n", 2, 32, "4", "bad number"},
	{"*filter\n-A FORWARD -p tcp -j ECN --ecn-tcp-remove\n", 2, 22, "ECN", "this target is only allowed in the mangle table"},
	{"*filter\n-A INPUT -m cpu --cpu 0 -j DROP\n", 2, 13, "cpu", "the CPU that handles a packet is not a rule input: an lcore takes a flow by RSS (-m cpu)"},
	{"*filter\n-A INPUT -j AUDIT --type drop\n", 2, 13, "AUDIT", "gufc has no Linux audit subsystem to record to (AUDIT): use LOG or NFLOG"},
	{"*filter\n-A INPUT -j IDLETIMER --timeout 60 --label x\n", 2, 13, "IDLETIMER", "gufc has no sysfs idle timers (IDLETIMER)"},
	{"*filter\n-A INPUT -j LED --led-trigger-id x\n", 2, 13, "LED", "gufc drives no LED triggers (LED)"},
	{"*mangle\n-A PREROUTING -j HMARK --hmark-tuple src --hmark-mod 4\n", 2, 18, "HMARK", "hash marks are not supported: a flow's lcore and channel are not picked by mark (HMARK)"},
	{"*mangle\n-A PREROUTING -j RATEEST --rateest-name x\n", 2, 18, "RATEEST", "gufc has no rate estimators (RATEEST; use -m limit or hashlimit)"},
	{"*raw\n-A PREROUTING -p icmp -j CT --helper sip\n", 2, 26, "CT", "CT --helper sip needs -p udp or -p tcp (Linux's SIP helper serves both)"},
	{"*raw\n-A PREROUTING -p udp -j CT --helper pptp\n", 2, 25, "CT", "CT --helper pptp: this helper is not built in gufc (it has ftp, tftp, sip, irc and sane)"},
	{"*raw\n-A PREROUTING -p udp -j CT --helper irc\n", 2, 25, "CT", "CT --helper irc needs -p tcp (a helper serves one protocol)"},
	{"*raw\n-A PREROUTING -p udp -j CT --helper nosuch\n", 2, 25, "CT", "CT --helper: no such helper (gufc has ftp, tftp, sip, irc and sane)"},
	{"*raw\n-A PREROUTING -j CT --helper tftp\n", 2, 18, "CT", "CT --helper tftp needs -p udp (a helper serves one protocol)"},
	{"*raw\n-A PREROUTING -p tcp -j CT --helper tftp\n", 2, 25, "CT", "CT --helper tftp needs -p udp (a helper serves one protocol)"},
	{"*raw\n-A PREROUTING ! -p udp -j CT --helper tftp\n", 2, 27, "CT", "CT --helper tftp needs -p udp (a helper serves one protocol)"},
	{"*raw\n-A PREROUTING -p udp -j CT --helper ftp\n", 2, 25, "CT", "CT --helper ftp needs -p tcp (a helper serves one protocol)"},
	/* matches outside the subset */
	/* targets outside the subset, or misplaced */
	{"*filter\n-A INPUT -j NOPE\n", 2, 13, "NOPE", "unknown chain or target"},
	{"*filter\n-A INPUT -g ACCEPT\n", 2, 13, "ACCEPT", "-g needs a user-defined chain"},
	{"*filter\n-A INPUT -j FORWARD\n", 2, 13, "FORWARD", "cannot jump to a built-in chain"},
	{"*filter\n-A INPUT -j ACCEPT -j DROP\n", 2, 20, "-j", "only one -j or -g per rule"},
	{"*filter\n-A INPUT -j SNAT --to-source 1.2.3.4\n", 2, 13, "SNAT",
		"NAT targets are only allowed in the nat table"},
	{"*nat\n-A PREROUTING -j DROP\n", 2, 18, "DROP", "DROP is not allowed in the nat table"},
	{"*filter\n-A INPUT -j ACCEPT --to-source 1.2.3.4\n", 2, 20, "--to-source", "unsupported option"},
	{"*nat\n-A POSTROUTING -j SNAT\nCOMMIT\n", 2, 19, "SNAT", "SNAT needs --to-source"},
	{"*nat\n-A PREROUTING -j DNAT\nCOMMIT\n", 2, 18, "DNAT", "DNAT needs --to-destination"},
	{"*nat\n-A PREROUTING -j DNAT --to-destination\n", 2, 23, "--to-destination",
		"missing value"},
	{"*nat\n-A PREROUTING -p tcp -j DNAT --to-destination 1.2.3.4:0\n", 2, 47, "1.2.3.4:0", "bad nat target"},
	{"*nat\n-A PREROUTING -j DNAT --to-destination 1.2.3.4:80\n", 2, 18, "DNAT", "NAT ports need -p tcp, udp, sctp or dccp"},
	{"*nat\n-A PREROUTING -j DNAT --to-destination :80\n", 2, 18, "DNAT", "NAT ports need -p tcp, udp, sctp or dccp"},
	{"*nat\n-A PREROUTING -p tcp -j DNAT --to-destination :70000\n", 2, 47, ":70000", "bad nat target"},
	{"*nat\n-A PREROUTING -p tcp -j DNAT --to-destination :\n", 2, 47, ":", "bad nat target"},
	{"*nat\n-A PREROUTING -j DNAT --to-destination 1.2.3.9-1.2.3.4\n", 2, 40, "1.2.3.9-1.2.3.4", "bad nat address range"},
	{"*nat\n-A POSTROUTING -j DNAT --to-destination 1.2.3.4\nCOMMIT\n", 2, 19, "DNAT",
		"dnat only at prerouting or output"},
	{"*nat\n-A PREROUTING -j MASQUERADE\nCOMMIT\n", 2, 18, "MASQUERADE",
		"masquerade only at postrouting"},
	{"*nat\n-A POSTROUTING -j MASQUERADE --to-ports 1000\n", 2, 19, "MASQUERADE", "NAT ports need -p tcp, udp, sctp or dccp"},
	/* addresses */
	{"*filter\n-A INPUT -s 10.0.0.300 -j DROP\n", 2, 13, "10.0.0.300", "bad address"},
	{"*filter\n-A INPUT -s 10..1 -j DROP\n", 2, 13, "10..1", "bad address"},
	{"*filter\n-A INPUT -s 256/8 -j DROP\n", 2, 13, "256/8", "bad address"},
	{"*filter\n-A INPUT -s host.example.com -j DROP\n", 2, 13, "host.example.com",
		"bad address"},
	{"*filter\n-A INPUT -d 10.0.0.0/33 -j DROP\n", 2, 13, "10.0.0.0/33", "bad prefix length"},
	{"*filter\n-A INPUT -d 10.0.0.0/ -j DROP\n", 2, 13, "10.0.0.0/", "bad prefix length"},
	{"*filter\n-A INPUT -s 10.0.0.0/255.0.255.0 -j DROP\n", 2, 13, "10.0.0.0/255.0.255.0",
		"non-contiguous netmasks are not supported"},
	{"*filter\n-A INPUT ! -s 10.0.0.1,10.0.0.2 -j DROP\n", 2, 15, "10.0.0.1,10.0.0.2",
		"! cannot be used with an address list"},
	{"*filter\n-A INPUT -s 10.0.0.1,,10.0.0.2 -j DROP\n", 2, 22, "", "bad address"},
	{"*filter\n-A INPUT -s 10.0.0.1,10.0.0.2/33 -j DROP\n", 2, 22, "10.0.0.2/33",
		"bad prefix length"},
	{"*filter\n-A INPUT -s 1.2.3.4 -d 2001:db8::1 -j DROP\n", 2, 24, "2001:db8::1",
		"IPv6 address in an IPv4 rule set"},
	{"# Generated by iptables-save v1.8.9\n*filter\n-A INPUT -s 2001:db8::1 -j ACCEPT\n", 3, 13,
		"2001:db8::1", "IPv6 address in an IPv4 rule set"},
	/* protocols and ports */
	{"*filter\n-A INPUT -p foo -j DROP\n", 2, 13, "foo", "unknown protocol"},
	{"*filter\n-A INPUT -p 256 -j DROP\n", 2, 13, "256", "unknown protocol"},
	{"*filter\n-A INPUT ! -p all -j DROP\n", 2, 15, "all", "rule would never match protocol"},
	{"*filter\n-A INPUT -p tcp --dport 70000 -j ACCEPT\n", 2, 25, "70000", "bad port"},
	{"*filter\n-A INPUT -p tcp --dport 90:80 -j ACCEPT\n", 2, 25, "90:80", "bad port range"},
	{"*filter\n-A INPUT -p tcp --dport sshd -j ACCEPT\n", 2, 25, "sshd", "bad port"},
	{"*filter\n-A INPUT -p tcp --dport 022 -j ACCEPT\n", 2, 25, "022", "bad port"},
	{"*filter\n-A INPUT --dport 22 -j ACCEPT\n", 2, 10, "--dport",
		"port match needs -p tcp, udp, sctp or dccp"},
	{"*filter\n-A INPUT -p icmp --dport 22 -j ACCEPT\n", 2, 18, "--dport",
		"port match needs -p tcp, udp, sctp or dccp"},
	{"*filter\n-A INPUT -p tcp -m udp -j ACCEPT\n", 2, 20, "udp",
		"protocol match needs the same -p protocol"},
	{"*filter\n-A INPUT -m tcp -j ACCEPT\n", 2, 13, "tcp",
		"protocol match needs the same -p protocol"},
	{"*filter\n-A INPUT --dports 22 -j ACCEPT\n", 2, 10, "--dports",
		"option needs -m multiport"},
	{"*filter\n-A INPUT -m multiport --dports 1,2 -j ACCEPT\n", 2, 13, "multiport",
		"multiport needs -p tcp, udp, udplite, sctp or dccp"},
	{"*filter\n-A INPUT -p tcp -m multiport -j ACCEPT\n", 2, 20, "multiport",
		"multiport needs --sports, --dports or --ports"},
	{"*filter\n-A INPUT -p tcp -m multiport --dports "
	 "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j ACCEPT\n",
		2, 39, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "too many ports"},
	{"*filter\n-A INPUT -p tcp -m multiport --dports 80:80 -j ACCEPT\n", 2, 39, "80:80",
		"bad port range"},
	{"*filter\n-A INPUT -p tcp -m multiport --dports 80,,81 -j ACCEPT\n", 2, 39, "80,,81",
		"bad port"},
	{"*filter\n-A INPUT -p tcp -m multiport --dports 80 --sports 1 -j ACCEPT\n", 2, 42,
		"--sports", "multiport takes one option"},
	{"*filter\n-A INPUT -p tcp -m multiport --ports 1,2 -m multiport --ports 3,4 -j ACCEPT\n",
		2, 55, "--ports", "only one --ports per rule"},
	{"*filter\n-A INPUT -p tcp --dport 22 -m multiport --dports 80 -j ACCEPT\n", 2, 17,
		"--dport", "port matches can never match together"},
	/* states and comments */
	{"*filter\n-A INPUT -m conntrack --ctstate NEW,FOO -j ACCEPT\n", 2, 33, "NEW,FOO",
		"bad conntrack state"},
	{"*filter\n-A INPUT -m conntrack -j ACCEPT\n", 2, 13, "conntrack", "conntrack needs an option"},
	{"*filter\n-A INPUT -m state -j ACCEPT\n", 2, 13, "state", "state needs --state"},
	{"*filter\n-A INPUT -m state --ctstate NEW -j ACCEPT\n", 2, 19, "--ctstate",
		"option needs -m conntrack"},
	{"*filter\n-A INPUT -m conntrack --ctstate NEW --ctstate NEW -j ACCEPT\n", 2, 37, "--ctstate", "option given twice"},
	{"*filter\n-A INPUT -m conntrack --ctstate NEW -m conntrack --ctstate ESTABLISHED "
	 "-j ACCEPT\n",
		2, 23, "--ctstate", "state matches can never match together"},
	{"*filter\n-A INPUT -m comment -j ACCEPT\n", 2, 13, "comment", "comment needs --comment"},
	{"*filter\n-A INPUT -m comment --comment a -m comment --comment b -j ACCEPT\n", 2, 44,
		"--comment", "only one comment per rule"},
	/* negation and repetition */
	{"*filter\n-A INPUT ! -j ACCEPT\n", 2, 12, "-j", "option cannot be negated"},
	{"*filter\n-A INPUT ! ! -s 1.2.3.4 -j DROP\n", 2, 12, "!", "double negation"},
	/* CRLF: iptables-restore keeps the CR on the last word (comments, chain lines aside) */
	{"*filter\r\n-A INPUT -j ACCEPT\r\nCOMMIT\r\n", 1, 8, "",
		"line ends in CR (a CRLF file, which iptables-restore refuses)"},
	{"# x\r\n*filter\n:INPUT ACCEPT [0:0]\r\n-A INPUT -j ACCEPT\r\nCOMMIT\n", 4, 19, "",
		"line ends in CR (a CRLF file, which iptables-restore refuses)"},
	{"*filter\n\r\nCOMMIT\n", 2, 1, "",
		"line ends in CR (a CRLF file, which iptables-restore refuses)"},
	{"*filter\nCOMMIT\r\n", 2, 7, "",
		"line ends in CR (a CRLF file, which iptables-restore refuses)"},
	{"*filter\n-A INPUT ! -s ! 1.2.3.4 -j DROP\n", 2, 15, "!",
		"old '--opt ! VALUE' negation, which iptables refuses: write '! --opt VALUE'"},
	{"*filter\n-A INPUT -s 1.2.3.4 !\n", 2, 21, "!", "missing option after !"},
	{"*filter\n-A INPUT -s\n", 2, 10, "-s", "missing value"},
	{"*filter\n-A INPUT -s 1.2.3.4 -s 5.6.7.8 -j DROP\n", 2, 21, "-s", "option given twice"},
	{"*filter\n-A INPUT -p tcp -m tcp --dport 22 --dport 23 -j DROP\n", 2, 35, "--dport",
		"option given twice"},
};

static void
test_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad *b = &bad_inputs[i];
		struct rule_error err;
		struct rule_set *s;

		memset(&err, 0x5a, sizeof(err));
		errno = 0;
		s = rule_set_parse_iptables(b->text, "bad.rules", &err);
		if (s != NULL)
			fail_msg("case %zu accepted:\n%s", i, b->text);
		assert_int_equal(errno, EINVAL);
		if (err.line != b->line || err.col != b->col || strcmp(err.token, b->token) != 0 ||
			strcmp(err.msg, b->msg) != 0)
			fail_msg("case %zu:\n%s\ngot %u:%u '%s' %s\nwant %u:%u '%s' %s", i, b->text,
				err.line, err.col, err.token, err.msg, b->line, b->col, b->token,
				b->msg);
		assert_string_equal(err.file, "bad.rules");
		/* no error report wanted: same answer */
		assert_null(rule_set_parse_iptables(b->text, NULL, NULL));
		assert_int_equal(errno, EINVAL);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_host),
		cmocka_unit_test(test_sample_router),
		cmocka_unit_test(test_sample_docker),
		cmocka_unit_test(test_sample_ipv6),
		cmocka_unit_test(test_samples_native_roundtrip),
		cmocka_unit_test(test_nat_drop_policy),
		cmocka_unit_test(test_policy_counters_family),
		cmocka_unit_test(test_chain_name_chars),
		cmocka_unit_test(test_negation_forms),
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_zero_prefix),
		cmocka_unit_test(test_port_ranges),
		cmocka_unit_test(test_port_combination),
		cmocka_unit_test(test_ports_either),
		cmocka_unit_test(test_ctstate_combination),
		cmocka_unit_test(test_bare_protocol_match),
		cmocka_unit_test(test_no_target),
		cmocka_unit_test(test_return_in_base_chain),
		cmocka_unit_test(test_chain_mapping),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_address_lists),
		cmocka_unit_test(test_getopt_forms),
		cmocka_unit_test(test_udplite_ports),
		cmocka_unit_test(test_dccp_ports),
		cmocka_unit_test(test_nft_leniency),
		cmocka_unit_test(test_nat_targets),
		cmocka_unit_test(test_short_addresses),
		cmocka_unit_test(test_words_and_counters),
		cmocka_unit_test(test_chain_counters_warn),
		cmocka_unit_test(test_chain_counters_v6_header),
		cmocka_unit_test(test_long_comment),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
