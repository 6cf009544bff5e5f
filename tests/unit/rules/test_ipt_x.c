/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the netfilter side of the rule model: extension matches on
 * a packet context (one rule per case, what netfilter decides), the stage
 * order of the five tables (marks across tables, drops in mangle and raw,
 * nat left out for known connections, NOTRACK), the actions and
 * dependencies a result reports, the providers of stateful matches, the
 * restore commands, both families in one set, ipsets, rule_pkt_parse() on
 * frames, and the round trips: every corpus file (tests/iptables-corpus)
 * written back with the iptables export and read again, and through the
 * native language, gives the same rule set.
 */
#include <dirent.h>
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

#ifndef GUFC_CORPUS_DIR
#error "GUFC_CORPUS_DIR must name tests/iptables-corpus"
#endif

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct rule_set *
parse_opts(const char *text, unsigned int family, struct rule_ipsets *sets)
{
	struct rule_ipt_opts o = {.family = family, .sets = sets};
	struct rule_error err;
	struct rule_set *s = rule_set_parse_iptables_opts(text, "t", &o, &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, text);
	return s;
}

static struct rule_set *
parse(const char *text)
{
	return parse_opts(text, FC_AF_INET4, NULL);
}

static struct fc_key
key(const char *text)
{
	struct fc_key k;

	if (fc_key_parse(text, &k, NULL) != 0)
		fail_msg("bad key in test: %s", text);
	return k;
}

/* The native text of a set (rule_set_dump()), malloc'ed. */
static char *
native(const struct rule_set *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rule_set_dump(s, f), 0);
	fclose(f);
	return buf;
}

static char *
export(const struct rule_set *s, unsigned int family)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rule_set_dump_iptables(s, family, f), 0);
	fclose(f);
	return buf;
}

static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Extension matches, one rule each                                          */
/* ------------------------------------------------------------------------ */

/** A packet and whether "MATCHES -j DROP" in FORWARD and INPUT drops it. */
struct xcase {
	const char *matches;
	const char *key;
	uint8_t tcp_flags, icmp_type, icmp_code, ttl, ct, tos;
	uint16_t len;
	int mss; /* 0: no MSS option */
	uint32_t mark;
	uint32_t spi; /* 0: no ESP/AH/IPComp header */
	uint64_t time_s;
	bool drop;
};

static void
check_x(const struct xcase *c, size_t n, unsigned int family)
{
	for (size_t i = 0; i < n; i++) {
		char text[1024];
		struct rule_set *s;
		struct rule_eval ev;
		struct rule_pkt p;
		struct fc_key k = key(c[i].key);

		snprintf(text, sizeof(text),
			"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
			"-A FORWARD %s -j DROP\n-A INPUT %s -j DROP\nCOMMIT\n",
			c[i].matches, c[i].matches);
		s = parse_opts(text, family, NULL);
		rule_pkt_init(&p, &k, c[i].ct ? c[i].ct : RULE_CT_NEW, 0);
		p.tcp_flags = c[i].tcp_flags;
		p.icmp_type = c[i].icmp_type;
		p.icmp_code = c[i].icmp_code;
		p.ttl = c[i].ttl;
		p.tos = c[i].tos;
		p.l3_len = c[i].len;
		p.mark = c[i].mark;
		p.time_s = c[i].time_s;
		if (c[i].spi != 0) {
			p.spi = c[i].spi;
			p.flags |= RULE_PKT_F_SPI;
		}
		if (c[i].mss > 0) {
			p.tcp_mss = (uint16_t)c[i].mss;
			p.flags |= RULE_PKT_F_MSS;
		}
		assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
		if ((ev.verdict == RULE_VERDICT_DROP) != c[i].drop)
			fail_msg("case %zu '%s' on '%s': %s, want %s", i, c[i].matches, c[i].key,
				ev.verdict == RULE_VERDICT_DROP ? "drop" : "accept",
				c[i].drop ? "drop" : "accept");
		/*
		 * connlimit: the connection's count, decided with the connection (no
		 * dep). ICMP type and code: the key's (dport = type << 8 | code), so
		 * the same for every packet of the flow (no dep either).
		 */
		assert_true(ev.deps != 0 || strstr(c[i].matches, "iprange") != NULL ||
			    strstr(c[i].matches, "addrtype") != NULL ||
			    strstr(c[i].matches, "--ctstate") != NULL ||
			    strstr(c[i].matches, "connlimit") != NULL ||
			    strstr(c[i].matches, "icmp") != NULL);
		if (strstr(c[i].matches, "icmp") != NULL) {
			assert_int_equal(ev.deps & RULE_DEP_ICMP, 0);
			/* The key alone gives the context the packet's type and code. */
			rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
			assert_int_equal(p.icmp_type, c[i].icmp_type);
			assert_int_equal(p.icmp_code, c[i].icmp_code);
		}
		rule_set_free(s);
	}
}

#define FWD4 "tcp 192.0.2.1:1000 -> 198.51.100.1:80"
#define IPCOMP4 "proto 108 192.0.2.1:0 -> 198.51.100.1:0"

static void
test_matches_v4(void **state)
{
	static const struct xcase cases[] = {
		{"-p tcp --syn", FWD4, .tcp_flags = 0x02, .drop = true},
		{"-p tcp --syn", FWD4, .tcp_flags = 0x12, .drop = false},
		{"-p tcp ! --syn", FWD4, .tcp_flags = 0x10, .drop = true},
		{"-p tcp --tcp-flags ALL FIN,PSH,URG", FWD4, .tcp_flags = 0x29, .drop = true},
		{"-p tcp --tcp-flags ALL FIN,PSH,URG", FWD4, .tcp_flags = 0x39, .drop = false},
		{"-p tcp --tcp-flags SYN,RST SYN,RST", FWD4, .tcp_flags = 0x06, .drop = true},
		{"-p icmp --icmp-type echo-request", "icmp 192.0.2.1:7 -> 198.51.100.1:2048",
			.icmp_type = 8, .drop = true},
		{"-p icmp --icmp-type host-unreachable", "icmp 192.0.2.1:0 -> 198.51.100.1:769",
			.icmp_type = 3, .icmp_code = 1, .drop = true},
		{"-p icmp --icmp-type destination-unreachable",
			"icmp 192.0.2.1:0 -> 198.51.100.1:781", .icmp_type = 3,
			.icmp_code = 13, .drop = true},
		{"-p icmp ! --icmp-type 3/3", "icmp 192.0.2.1:0 -> 198.51.100.1:771",
			.icmp_type = 3, .icmp_code = 3, .drop = false},
		{"-m iprange --src-range 192.0.2.0-192.0.2.9", FWD4, .drop = true},
		{"-m iprange ! --dst-range 198.51.100.0-198.51.100.9", FWD4, .drop = false},
		{"-m length --length 40:60", FWD4, .len = 52, .drop = true},
		{"-m length ! --length 40:60", FWD4, .len = 61, .drop = true},
		{"-m ttl --ttl-lt 10", FWD4, .ttl = 9, .drop = true},
		{"-m ttl --ttl-gt 10", FWD4, .ttl = 10, .drop = false},
		{"-m ttl ! --ttl-eq 64", FWD4, .ttl = 64, .drop = false},
		{"-m mark --mark 0x10/0xf0", FWD4, .mark = 0x1f, .drop = true},
		{"-m mark ! --mark 0x10/0xf0", FWD4, .mark = 0x2f, .drop = true},
		{"-p tcp -m tcpmss --mss 1000:1400", FWD4, .mss = 1200, .drop = true},
		{"-p tcp -m tcpmss --mss 1000:1400", FWD4, .mss = 0, .drop = false},
		{"-p tcp -m tcpmss ! --mss 1000:1400", FWD4, .mss = 0, .drop = true},
		{"-m addrtype --dst-type LOCAL", "tcp 192.0.2.1:1 -> 198.51.100.1:2 dst_local=1",
			.drop = true},
		{"-m addrtype --dst-type UNICAST", FWD4, .drop = true},
		{"-m addrtype --dst-type MULTICAST", "udp 192.0.2.1:1 -> 224.0.0.251:5353",
			.drop = true},
		{"-m addrtype --dst-type BROADCAST", "udp 192.0.2.1:1 -> 255.255.255.255:67",
			.drop = true},
		{"-m addrtype ! --src-type LOCAL", FWD4, .drop = true},
		{"-m conntrack --ctstate DNAT", FWD4, .ct = RULE_CT_NEW | RULE_CT_DNAT, .drop = true},
		{"-m conntrack --ctstate DNAT", FWD4, .ct = RULE_CT_NEW, .drop = false},
		{"-m conntrack --ctstate UNTRACKED", FWD4, .ct = RULE_CT_UNTRACKED, .drop = true},
		{"-m conntrack ! --ctstate NEW,ESTABLISHED", FWD4, .ct = RULE_CT_INVALID,
			.drop = true},
		/* A connection match on a packet without a connection fails. */
		{"-m conntrack --ctdir ORIGINAL", FWD4, .drop = false},
		{"-m statistic --mode random --probability 0", FWD4, .drop = false},
		/* nth right after loading: the first packet is number 0 (netfilter's count). */
		{"-m statistic --mode nth --every 3 --packet 0", FWD4, .drop = true},
		{"-m statistic --mode nth --every 3 --packet 2", FWD4, .drop = false},
		{"-m statistic --mode nth ! --every 3 --packet 2", FWD4, .drop = true},
		{"-m limit --limit 1/sec", FWD4, .drop = true},
		/* quota right after loading: the packet fits in the whole quota, or not. */
		{"-m quota --quota 1000", FWD4, .len = 60, .drop = true},
		{"-m quota --quota 60", FWD4, .len = 60, .drop = true},
		{"-m quota --quota 59", FWD4, .len = 60, .drop = false},
		{"-m quota ! --quota 59", FWD4, .len = 60, .drop = true},
		{"-m recent --name x --rcheck", FWD4, .drop = false},
		{"-m recent --name x --set", FWD4, .drop = true},
		{"-m connlimit --connlimit-above 1", FWD4, .drop = false},
		{"-m hashlimit --hashlimit-above 1/sec --hashlimit-name h", FWD4, .drop = false},
		/* -m tos: (tos & mask) == value; a name's mask is 0x3f, a number's 0xff */
		{"-m tos --tos Minimize-Delay", FWD4, .tos = 0xd0, .drop = true},
		{"-m tos --tos 0x10", FWD4, .tos = 0xd0, .drop = false},
		{"-m tos --tos 0x10", FWD4, .tos = 0x11, .drop = false},
		{"-m tos --tos 0x10", FWD4, .tos = 0x10, .drop = true},
		{"-m tos ! --tos 0x10/0x3f", FWD4, .tos = 0x12, .drop = true},
		{"-m tos ! --tos 0x10/0x3f", FWD4, .tos = 0x90, .drop = false},
		{"-m tos --tos normal-service", FWD4, .tos = 0x00, .drop = true},
		/* -m time --datestart/--datestop: UTC, both ends in */
		{"-m time --datestart 2020-01-01T00:00:00", FWD4, .time_s = 1577836800, .drop = true},
		{"-m time --datestart 2020-01-01T00:00:00", FWD4, .time_s = 1577836799, .drop = false},
		{"-m time --datestart 2020", FWD4, .time_s = 1577836800, .drop = true},
		{"-m time --datestop 2021-02", FWD4, .time_s = 1612137600, .drop = true},
		{"-m time --datestop 2021-02", FWD4, .time_s = 1612137601, .drop = false},
		{"-m time --datestart 2021-02-31", FWD4, .time_s = 1614729599, .drop = false},
		{"-m time --datestart 2021-02-31", FWD4, .time_s = 1614729600, .drop = true},
		{"-m time --datestart 2038-12-31T23:59:59", FWD4, .time_s = 2177452799, .drop = true},
		/* 08:00-17:00 and the date range */
		{"-m time --timestart 08:00 --timestop 17:00 --datestop 2020-01-01T12", FWD4,
			.time_s = 1577836800 + 9 * 3600, .drop = true},
		{"-m time --timestart 08:00 --timestop 17:00 --datestop 2020-01-01T12", FWD4,
			.time_s = 1577836800 + 13 * 3600, .drop = false},
		/* -m ipcomp: the CPI */
		{"-p ipcomp -m ipcomp --ipcompspi 5:9", IPCOMP4, .spi = 9, .drop = true},
		{"-p ipcomp -m ipcomp --ipcompspi 5:9", IPCOMP4, .spi = 10, .drop = false},
		{"-p ipcomp --ipcompspi 7", IPCOMP4, .spi = 7, .drop = true},
		{"-p ipcomp -m ipcomp ! --ipcompspi 7", IPCOMP4, .spi = 7, .drop = false},
		{"-p ipcomp -m ipcomp ! --ipcompspi 7", IPCOMP4, .spi = 8, .drop = true},
		/* -m ecn: the IP ECN field, TCP ECE and CWR */
		{"-m ecn --ecn-ip-ect 3", FWD4, .tos = 0x13, .drop = true},
		{"-m ecn --ecn-ip-ect 3", FWD4, .tos = 0x12, .drop = false},
		{"-m ecn ! --ecn-ip-ect 0", FWD4, .tos = 0x01, .drop = true},
		{"-p tcp -m ecn --ecn-tcp-ece", FWD4, .tcp_flags = 0x52, .drop = true},
		{"-p tcp -m ecn --ecn-tcp-ece", FWD4, .tcp_flags = 0x82, .drop = false},
		{"-p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece", FWD4, .tcp_flags = 0x82, .drop = true},
		{"-p tcp -m ecn --ecn-tcp-cwr ! --ecn-tcp-ece", FWD4, .tcp_flags = 0xc2, .drop = false},
		{"-p tcp -m ecn --ecn-tcp-ece --ecn-ip-ect 2", FWD4, .tcp_flags = 0x52, .tos = 2,
			.drop = true},
		{"-p tcp -m ecn --ecn-tcp-ece --ecn-ip-ect 2", FWD4, .tcp_flags = 0x52, .tos = 1,
			.drop = false},
	};

	(void)state;
	check_x(cases, sizeof(cases) / sizeof(cases[0]), FC_AF_INET4);
}

#define FWD6 "udp [2001:db8::1]:1000 -> [2001:db8:1::1]:53"

/*
 * An ICMP match on an ICMP key of its family depends on no per-packet
 * field: the key holds the type and code, a context on the key alone has
 * them. A non-first fragment's key holds neither: no match, the dependency
 * kept.
 */
static void
test_icmp_key_deps(void **state)
{
	static const char text[] = "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
				   ":OUTPUT ACCEPT [0:0]\n"
				   "-A FORWARD -p icmp --icmp-type timestamp-request -j DROP\n"
				   "COMMIT\n";
	struct rule_set *s = parse_opts(text, FC_AF_INET4, NULL);
	struct fc_key ts = key("icmp 192.0.2.1:9 -> 198.51.100.1:3328");
	struct fc_key echo = key("icmp 192.0.2.1:9 -> 198.51.100.1:2048");
	struct rule_eval ev;
	struct rule_pkt p;

	(void)state;
	rule_pkt_init(&p, &ts, RULE_CT_NEW, 0);
	assert_int_equal(p.icmp_type, 13);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	assert_int_equal(ev.deps & RULE_DEP_ICMP, 0);
	rule_pkt_init(&p, &echo, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(ev.deps & RULE_DEP_ICMP, 0);
	rule_pkt_init(&p, &ts, RULE_CT_NEW, RULE_KEY_F_NOPORTS);
	assert_int_equal(p.icmp_type, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	assert_int_not_equal(ev.deps & RULE_DEP_ICMP, 0);
	rule_set_free(s);
}

static void
test_matches_v6(void **state)
{
	static const struct xcase cases[] = {
		{"-p ipv6-icmp --icmpv6-type echo-request",
			"icmpv6 [2001:db8::1]:5 -> [2001:db8:1::1]:32768", .icmp_type = 128,
			.drop = true},
		{"-p ipv6-icmp --icmpv6-type neighbour-solicitation",
			"icmpv6 [2001:db8::1]:0 -> [2001:db8:1::1]:34560", .icmp_type = 135,
			.drop = true},
		{"-p ipv6-icmp --icmpv6-type 1/4", "icmpv6 [2001:db8::1]:0 -> [2001:db8:1::1]:259",
			.icmp_type = 1, .icmp_code = 3, .drop = false},
		{"-m hl --hl-eq 255", FWD6, .ttl = 255, .drop = true},
		{"-m length --length 48", FWD6, .len = 48, .drop = true},
		/* A lone length is that length only, as in iptables. */
		{"-m length --length 48", FWD6, .len = 49, .drop = false},
		{"-m length --length 49:", FWD6, .len = 1280, .drop = true},
		{"-m length --length :47", FWD6, .len = 48, .drop = false},
		{"-m iprange --dst-range 2001:db8:1::-2001:db8:1::9", FWD6, .drop = true},
		/* the traffic class: -m tos, -m ecn's ECN field */
		{"-m tos --tos 0xb8", FWD6, .tos = 0xb8, .drop = true},
		{"-m tos --tos 0xb8", FWD6, .tos = 0xb9, .drop = false},
		{"-m ecn --ecn-ip-ect 3", FWD6, .tos = 0xbb, .drop = true},
		{"-m ecn ! --ecn-ip-ect 3", FWD6, .tos = 0xbb, .drop = false},
		/* -m ipcomp in IPv6 */
		{"-p ipcomp -m ipcomp --ipcompspi 300", "proto 108 [2001:db8::1]:0 -> [2001:db8:1::1]:0",
			.spi = 300, .drop = true},
	};

	(void)state;
	check_x(cases, sizeof(cases) / sizeof(cases[0]), FC_AF_INET6);
}

/* ------------------------------------------------------------------------ */
/* Stages, actions, dependencies, providers                                  */
/* ------------------------------------------------------------------------ */

static const char stage_rules[] =
	"*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A PREROUTING -m conntrack --ctstate INVALID -p udp --dport 1 -j MARK --set-mark 0x1\n"
	"-A PREROUTING -p udp --dport 2 -j NOTRACK\n"
	"-A PREROUTING -p udp --dport 7 -j DROP\n"
	"COMMIT\n"
	"*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
	"-A PREROUTING -p udp --dport 3 -j LOG --log-prefix \"three \"\n"
	"-A PREROUTING -p udp --dport 3 -j MARK --set-xmark 0x30/0xf0\n"
	"-A POSTROUTING -p udp --dport 4 -j DROP\n"
	"COMMIT\n"
	"*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	":POSTROUTING ACCEPT [0:0]\n"
	"-A PREROUTING -p udp --dport 5 -j DNAT --to-destination 10.0.0.5\n"
	"COMMIT\n"
	"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A FORWARD -m mark --mark 0x1 -j DROP\n"
	"-A FORWARD -m conntrack --ctstate UNTRACKED -j REJECT --reject-with icmp-net-prohibited\n"
	"-A FORWARD -m mark --mark 0x30/0xf0 -j ACCEPT\n"
	"COMMIT\n"
	"*security\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	"-A FORWARD -p udp --dport 6 -j DROP\n"
	"COMMIT\n";

/* Every stage in order for a forwarded UDP packet to @dport with @ctstate; the decider. */
static unsigned int
walk(const struct rule_set *s, uint16_t dport, unsigned int ctstate, struct rule_eval ev[4],
	struct rule_pkt *p)
{
	char text[96];
	struct fc_key k;

	snprintf(text, sizeof(text), "udp 192.0.2.1:999 -> 198.51.100.1:%u", dport);
	k = key(text);
	rule_pkt_init(p, &k, ctstate, 0);
	for (unsigned int st = 0; st < RULE_STAGE__COUNT; st++) {
		if (st == RULE_STAGE_RAW)
			p->ctstate = RULE_CT_INVALID;
		else if (!(p->ctstate & RULE_CT_UNTRACKED))
			p->ctstate = (uint8_t)ctstate;
		assert_int_equal(rule_ref_eval(s, (enum rule_stage)st, p, NULL, &ev[st]), 0);
		if (ev[st].verdict != RULE_VERDICT_ACCEPT)
			return st;
	}
	return RULE_STAGE_FILTER;
}

static void
test_stages(void **state)
{
	struct rule_set *s = parse(stage_rules);
	struct rule_eval ev[RULE_STAGE__COUNT];
	struct rule_pkt p;
	unsigned int d;

	(void)state;
	/* Raw sees INVALID (no connection yet); its mark reaches filter. */
	d = walk(s, 1, RULE_CT_NEW, ev, &p);
	assert_int_equal(d, RULE_STAGE_FILTER);
	assert_int_equal(ev[d].verdict, RULE_VERDICT_DROP);
	assert_int_equal(p.mark, 1);
	assert_int_equal(ev[RULE_STAGE_RAW].n_acts, 1);
	assert_int_equal(ev[RULE_STAGE_RAW].acts[0].action, RULE_ACT_MARK);
	/* NOTRACK in raw: the later tables see UNTRACKED, REJECT with its kind. */
	d = walk(s, 2, RULE_CT_NEW, ev, &p);
	assert_int_equal(ev[d].action, RULE_ACT_REJECT);
	assert_int_equal(ev[d].reject, RULE_REJECT_ICMP_NET_PROHIBITED);
	assert_int_equal(p.ctstate, RULE_CT_UNTRACKED);
	/* LOG goes on; MARK --set-xmark in mangle, matched in filter: actions in order. */
	d = walk(s, 3, RULE_CT_NEW, ev, &p);
	assert_int_equal(ev[d].verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(p.mark, 0x30);
	assert_int_equal(ev[RULE_STAGE_DST].n_acts, 2);
	assert_int_equal(ev[RULE_STAGE_DST].acts[0].action, RULE_ACT_LOG);
	assert_int_equal(ev[RULE_STAGE_DST].acts[1].action, RULE_ACT_MARK);
	assert_int_equal(ev[RULE_STAGE_DST].acts[0].table, RULE_TABLE_MANGLE);
	assert_non_null(ev[RULE_STAGE_DST].acts[0].tgt);
	assert_string_equal(ev[RULE_STAGE_DST].acts[0].tgt->u.log.prefix, "three ");
	assert_true(ev[RULE_STAGE_FILTER].deps & RULE_DEP_MARK);
	/* mangle POSTROUTING drops after filter accepted. */
	d = walk(s, 4, RULE_CT_NEW, ev, &p);
	assert_int_equal(d, RULE_STAGE_SRC);
	assert_int_equal(ev[d].table, RULE_TABLE_MANGLE);
	assert_int_equal(ev[d].hook, RULE_HOOK_POSTROUTING);
	/* nat for a connection's first packet only. */
	walk(s, 5, RULE_CT_NEW, ev, &p);
	assert_int_equal(ev[RULE_STAGE_DST].nat_action, RULE_ACT_DNAT);
	walk(s, 5, RULE_CT_ESTABLISHED, ev, &p);
	assert_int_equal(ev[RULE_STAGE_DST].nat_action, RULE_ACT_ACCEPT);
	assert_int_equal(ev[RULE_STAGE_DST].nat_rule_id, RULE_ID_NONE);
	/* security after filter; raw drops first. */
	d = walk(s, 6, RULE_CT_NEW, ev, &p);
	assert_int_equal(ev[d].table, RULE_TABLE_SECURITY);
	d = walk(s, 7, RULE_CT_NEW, ev, &p);
	assert_int_equal(d, RULE_STAGE_RAW);
	rule_set_free(s);
}

struct prov {
	unsigned int calls;
	int answer;
	unsigned int kinds[8];
};

static int
prov_match(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	struct prov *pv = arg;

	(void)p;
	if (pv->calls < 8)
		pv->kinds[pv->calls] = r->xm[xi].kind;
	pv->calls++;
	return pv->answer;
}

static void
test_providers(void **state)
{
	struct rule_set *s = parse("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
				   ":OUTPUT ACCEPT [0:0]\n"
				   "-A FORWARD -p udp --dport 9 -m limit --limit 1/sec -m recent "
				   "--name r --update -j DROP\n"
				   "-A FORWARD -p udp --dport 8 -m limit --limit 1/sec -j DROP\n"
				   "COMMIT\n");
	struct prov pv = {0};
	struct rule_providers prov = {.arg = &pv, .match = prov_match};
	struct fc_key k = key("udp 192.0.2.1:999 -> 198.51.100.1:9");
	struct rule_eval ev;
	struct rule_pkt p;

	(void)state;
	/* Both called in order when both match. */
	pv.answer = 1;
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, &prov, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	assert_int_equal(pv.calls, 2);
	assert_int_equal(pv.kinds[0], RULE_XM_LIMIT);
	assert_int_equal(pv.kinds[1], RULE_XM_RECENT);
	assert_true(ev.deps & RULE_DEP_METER);
	/* The first fails: the second is not reached. */
	pv.calls = 0;
	pv.answer = 0;
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, &prov, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(pv.calls, 1);
	/* -ENOTSUP: the answer right after loading (limit: a full bucket matches). */
	pv.calls = 0;
	pv.answer = -ENOTSUP;
	k = key("udp 192.0.2.1:999 -> 198.51.100.1:8");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, &prov, &ev), 0);
	assert_int_equal(ev.verdict, RULE_VERDICT_DROP);
	/* An error fails the evaluation. */
	pv.answer = -EIO;
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, &prov, &ev), -EIO);
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */
/* Restore commands, families, ipsets, interfaces                            */
/* ------------------------------------------------------------------------ */

static uint32_t
filter_rule(const struct rule_set *s, const char *keytext, unsigned int *verdict)
{
	struct fc_key k = key(keytext);
	struct rule_result res;

	assert_int_equal(rule_ref_filter(s, &k, RULE_CT_NEW, 0, &res), 0);
	*verdict = res.verdict;
	return res.rule_id;
}

static void
test_restore_commands(void **state)
{
	struct rule_set *s = parse("*filter\n"
				   ":INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
				   "-N X\n"
				   "-N Y\n"
				   "-A FORWARD -p tcp --dport 1 -j ACCEPT\n"
				   "-I FORWARD -p tcp --dport 1 -j DROP\n"
				   "-I FORWARD 2 -p tcp --dport 2 -j X\n"
				   "-A X -j DROP\n"
				   "-F X\n"
				   "-A X -p tcp --dport 2 -j REJECT\n"
				   "-X Y\n"
				   "-Z\n"
				   "-P FORWARD DROP\n"
				   "-4 -A FORWARD -p tcp --dport 3 -j ACCEPT\n"
				   "-6 -A FORWARD -p tcp --dport 3 -j REJECT\n"
				   "COMMIT\n");
	const struct rule_chain *c = rule_set_chain_find(s, RULE_TABLE_FILTER, "FORWARD");
	unsigned int v;

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->n_rules, 4);
	assert_int_equal(c->rules[0].action, RULE_ACT_DROP);
	assert_int_equal(c->rules[1].action, RULE_ACT_JUMP);
	assert_int_equal(rule_chain_policy(c, FC_AF_INET4), RULE_POLICY_DROP);
	assert_int_equal(rule_chain_policy(c, FC_AF_INET6), RULE_POLICY_ACCEPT);
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, "INPUT");
	assert_int_equal(rule_chain_policy(c, FC_AF_INET4), RULE_POLICY_DROP);
	filter_rule(s, "tcp 1.1.1.1:9 -> 2.2.2.2:1", &v);
	assert_int_equal(v, RULE_VERDICT_DROP);
	filter_rule(s, "tcp 1.1.1.1:9 -> 2.2.2.2:3", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT);
	/* The IPv6 family is not this file's: accepted. */
	filter_rule(s, "tcp [2001:db8::1]:9 -> [2001:db8::2]:1", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT);
	assert_null(rule_set_chain_find(s, RULE_TABLE_FILTER, "Y"));
	rule_set_free(s);
	/* -X and -Z after a policy line keep it (iptables-legacy). */
	s = parse("*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		  "-X\n-Z\nCOMMIT\n");
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, "INPUT");
	assert_int_equal(rule_chain_policy(c, FC_AF_INET4), RULE_POLICY_DROP);
	rule_set_free(s);
}

/* The lines placed rules came from (struct rule_ipt_opts.placed), by rule id. */
struct placed_log {
	unsigned int line[16];
	unsigned int n;
};

static void
on_placed(void *arg, uint32_t id, unsigned int line)
{
	struct placed_log *l = arg;

	assert_true(id < 16);
	l->line[id] = line;
	l->n++;
}

/*
 * "-I CHAIN N" as iptables-restore does it (checked with iptables 1.8.9,
 * nft and legacy): N counts the kernel's rules, where "--ports" is one
 * rule (two here), and a line naming several addresses inserts each of its
 * rules at N, so they end up in reverse order.
 */
static void
test_insert_positions(void **state)
{
	static const char text[] = "*filter\n"
				   ":INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
				   "-A FORWARD -p tcp -m multiport --ports 22,80 -j ACCEPT\n"
				   "-A FORWARD -s 10.9.9.9 -j ACCEPT\n"
				   "-I FORWARD 2 -s 10.0.0.0/8,10.1.0.0/16 -j DROP\n"
				   "-I FORWARD -s 1.1.1.1 -j REJECT\n"
				   "-I FORWARD 5 -s 2.2.2.2 -j REJECT\n"
				   "COMMIT\n";
	/* The kernel's order: lines 8, 5 (two rules here), 7 (10.1/16, then 10/8), 9, 6. */
	static const unsigned int want_line[] = {8, 5, 5, 7, 7, 9, 6};
	static const uint8_t want_len[] = {32, 0, 0, 16, 8, 32, 32};
	struct placed_log log = {.n = 0};
	struct rule_ipt_opts o = {.family = FC_AF_INET4, .placed = on_placed, .placed_arg = &log};
	struct rule_error err;
	struct rule_set *s = rule_set_parse_iptables_opts(text, "t", &o, &err);
	const struct rule_chain *c;
	unsigned int v;

	(void)state;
	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, "FORWARD");
	assert_int_equal(c->n_rules, 7);
	assert_int_equal(log.n, 7);
	for (unsigned int i = 0; i < 7; i++) {
		assert_int_equal(log.line[c->rules[i].id], want_line[i]);
		if (want_len[i] != 0)
			assert_int_equal(c->rules[i].src.len, want_len[i]);
	}
	/* Port 80 from 2.2.2.2: the --ports rule decides it, not 2.2.2.2's (after it). */
	filter_rule(s, "tcp 2.2.2.2:9 -> 3.3.3.3:80", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT);
	assert_int_equal(filter_rule(s, "tcp 2.2.2.2:9 -> 3.3.3.3:81", &v), c->rules[5].id);
	assert_int_equal(v, RULE_VERDICT_DROP); /* REJECT */
	/* 10.1.2.3: the /16 rule, inserted second, comes first. */
	assert_int_equal(filter_rule(s, "tcp 10.1.2.3:9 -> 3.3.3.3:81", &v), c->rules[3].id);
	assert_int_equal(v, RULE_VERDICT_DROP);
	rule_set_free(s);
}

static void
test_families(void **state)
{
	struct rule_set *s4 = parse("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n"
				    ":OUTPUT ACCEPT [0:0]\n:C - [0:0]\n"
				    "-A FORWARD -j C\n-A C -p tcp --dport 4 -j ACCEPT\nCOMMIT\n");
	struct rule_set *s6 = parse_opts("*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n"
					 ":OUTPUT ACCEPT [0:0]\n:C - [0:0]\n"
					 "-A FORWARD -j C\n-A C -p tcp --dport 6 -j DROP\nCOMMIT\n",
		FC_AF_INET6, NULL);
	struct rule_set *part;
	unsigned int v;

	(void)state;
	assert_int_equal(rule_set_merge(s4, s6, FC_AF_INET6), 0);
	filter_rule(s4, "tcp 1.1.1.1:9 -> 2.2.2.2:4", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT);
	filter_rule(s4, "tcp 1.1.1.1:9 -> 2.2.2.2:6", &v);
	assert_int_equal(v, RULE_VERDICT_DROP); /* v4 policy */
	filter_rule(s4, "tcp [2001:db8::1]:9 -> [2001:db8::2]:6", &v);
	assert_int_equal(v, RULE_VERDICT_DROP); /* v6 rule */
	filter_rule(s4, "tcp [2001:db8::1]:9 -> [2001:db8::2]:4", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT); /* v6 policy */
	filter_rule(s4, "tcp [2001:db8::1]:9 -> [2001:db8::2]:4 dst_local=1", &v);
	assert_int_equal(v, RULE_VERDICT_DROP);
	/* One family's part, merged back beside the other, decides the same. */
	part = rule_set_family(s4, FC_AF_INET6);
	assert_non_null(part);
	filter_rule(part, "tcp [2001:db8::1]:9 -> [2001:db8::2]:6", &v);
	assert_int_equal(v, RULE_VERDICT_DROP);
	filter_rule(part, "tcp 1.1.1.1:9 -> 2.2.2.2:6", &v);
	assert_int_equal(v, RULE_VERDICT_ACCEPT); /* no IPv4 part */
	rule_set_free(part);
	rule_set_free(s6);
	rule_set_free(s4);
}

static void
test_ipsets_and_ports(void **state)
{
	static const char sets_text[] =
		"create bl hash:net family inet hashsize 1024 maxelem 65536\n"
		"add bl 203.0.113.0/24\n"
		"create svc hash:ip,port family inet\n"
		"add svc 198.51.100.1,tcp:443\n";
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(sets_text, "s", 0, &err);
	static const char *const names[] = {"wan0", "lan0"};
	struct rule_set *s;
	struct rule_eval ev;
	struct rule_pkt p;
	struct fc_key k;

	(void)state;
	assert_non_null(sets);
	s = parse_opts("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		       "-A FORWARD -m set --match-set bl src -j DROP\n"
		       "-A FORWARD -i wan+ -m set --match-set svc dst,dst -j ACCEPT\n"
		       "-A FORWARD -i wan0 -j REJECT\n"
		       "COMMIT\n",
		FC_AF_INET4, sets);
	assert_int_equal(rule_set_ports(s, 2, names), 0);
	k = key("tcp 203.0.113.7:1 -> 198.51.100.1:443");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.in_port = 0;
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.rule_id, 1);
	k = key("tcp 192.0.2.7:1 -> 198.51.100.1:443");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.in_port = 0;
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.rule_id, 2);
	p.in_port = 1; /* lan0: none of the rules */
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.rule_id, RULE_ID_POLICY);
	k = key("tcp 192.0.2.7:1 -> 198.51.100.1:80");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.in_port = 0;
	assert_int_equal(rule_ref_eval(s, RULE_STAGE_FILTER, &p, NULL, &ev), 0);
	assert_int_equal(ev.action, RULE_ACT_REJECT);
	rule_set_free(s);
	/* A set that is not loaded: refused, naming it. */
	assert_null(rule_set_parse_iptables_opts(
		"*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -m set --match-set nosuch src -j DROP\n"
		"COMMIT\n",
		"t", &(struct rule_ipt_opts){.family = FC_AF_INET4, .sets = sets}, &err));
	assert_string_equal(err.token, "nosuch");
	rule_ipsets_free(sets);
}

/* A -j SET target's options: add (@p add) or delete in set @p name, one dimension or two. */
static struct rule_x
set_tgt(bool add, const char *name, uint8_t ndims, uint8_t dirs, uint32_t timeout, bool exist)
{
	struct rule_x x;
	struct rule_x_set *ref;

	memset(&x, 0, sizeof(x));
	x.kind = RULE_XT_SET;
	x.given = (uint32_t)((add ? 1 : 2) | (timeout != 0 ? 4 : 0) | (exist ? 8 : 0));
	ref = add ? &x.u.set_t.add : &x.u.set_t.del;
	snprintf(ref->name, sizeof(ref->name), "%s", name);
	ref->ndims = ndims;
	ref->dirs = dirs;
	x.u.set_t.timeout = timeout;
	return x;
}

static int
set_has(struct rule_ipsets *sets, const char *name, uint8_t ndims, uint8_t dirs, const char *pkt,
	uint64_t now)
{
	struct rule_x_set ref = {.ndims = ndims, .dirs = dirs};
	struct fc_key k = key(pkt);
	struct rule_pkt p;

	snprintf(ref.name, sizeof(ref.name), "%s", name);
	rule_pkt_init(&p, &k, 0, 0);
	p.time_s = now;
	return rule_ipsets_test(sets, &ref, &p, NULL);
}

static int
set_apply(struct rule_ipsets *sets, struct rule_x x, const char *pkt, uint64_t now)
{
	struct fc_key k = key(pkt);
	struct rule_pkt p;

	rule_pkt_init(&p, &k, 0, 0);
	p.time_s = now;
	return rule_ipsets_apply(sets, &x, &p, NULL);
}

/*
 * rule_ipsets_apply(): -j SET adds and deletes the packet's member; a live
 * member is kept as it is without --exist (its timeout goes on), started
 * again with it; --timeout, else the set's default, counts from the
 * packet; a member past its timeout is added again; hash:net adds under
 * the longest prefix the set holds; bitmap:port, hash:ip,port; another
 * family changes nothing; a set not loaded is -ENOENT.
 */
static void
test_ipset_apply(void **state)
{
	static const char text[] = "create t hash:ip family inet timeout 100\n"
				   "create n hash:net family inet\n"
				   "add n 10.1.0.0/16\n"
				   "create bp bitmap:port range 1000-2000\n"
				   "create ipp hash:ip,port family inet\n";
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(text, "s", 1000, &err);
	const char *a = "udp 192.0.2.1:5000 -> 198.51.100.1:1500";

	(void)state;
	assert_non_null(sets);
	/* Default timeout 100 from the packet's second. */
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1000), 0);
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 0, false), a, 1000), 1);
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1099), 1);
	/* Without --exist a re-add keeps the first timeout ... */
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 0, false), a, 1050), 0);
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1100), 0);
	/* ... past it the member is added again; --exist starts --timeout over. */
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 0, false), a, 1100), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 5, true), a, 1150), 0);
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1154), 1);
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1155), 0);
	/* Delete: the destination is not a member, the source is (once). */
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 0, false), a, 1200), 1);
	assert_int_equal(set_apply(sets, set_tgt(false, "t", 1, 1, 0, false), a, 1200), 0);
	assert_int_equal(set_apply(sets, set_tgt(false, "t", 1, 0, 0, false), a, 1200), 2);
	assert_int_equal(set_has(sets, "t", 1, 0, a, 1200), 0);
	assert_int_equal(set_apply(sets, set_tgt(false, "t", 1, 0, 0, false), a, 1200), 0);
	/* hash:net: the source under /16, the longest prefix held. */
	assert_int_equal(set_apply(sets, set_tgt(true, "n", 1, 0, 0, false), a, 1200), 1);
	assert_int_equal(set_has(sets, "n", 1, 0, "udp 192.0.77.9:1 -> 1.1.1.1:2", 1200), 1);
	assert_int_equal(set_has(sets, "n", 1, 0, "udp 192.1.0.1:1 -> 1.1.1.1:2", 1200), 0);
	/* bitmap:port: the destination port, in range only. */
	assert_int_equal(set_apply(sets, set_tgt(true, "bp", 1, 1, 0, false), a, 1200), 1);
	assert_int_equal(set_has(sets, "bp", 1, 1, a, 1200), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "bp", 1, 0, 0, false), a, 1200), 0);
	assert_int_equal(set_has(sets, "bp", 1, 0, a, 1200), 0);
	assert_int_equal(set_apply(sets, set_tgt(false, "bp", 1, 1, 0, false), a, 1200), 2);
	assert_int_equal(set_has(sets, "bp", 1, 1, a, 1200), 0);
	/* hash:ip,port: destination address and port; one dimension is too few. */
	assert_int_equal(set_apply(sets, set_tgt(true, "ipp", 2, 3, 0, false), a, 1200), 1);
	assert_int_equal(set_has(sets, "ipp", 2, 3, a, 1200), 1);
	assert_int_equal(set_has(sets, "ipp", 2, 2, a, 1200), 0);
	assert_int_equal(set_apply(sets, set_tgt(true, "ipp", 1, 1, 0, false), a, 1200), -EINVAL);
	/* Another family: nothing; no such set: -ENOENT. */
	assert_int_equal(set_apply(sets, set_tgt(true, "t", 1, 0, 0, false),
				 "udp [2001:db8::1]:1 -> [2001:db8::2]:2", 1200),
		0);
	assert_int_equal(set_apply(sets, set_tgt(true, "nosuch", 1, 0, 0, false), a, 1200), -ENOENT);
	rule_ipsets_free(sets);
}

/*
 * hash:net,iface as "ipset save" writes it: the longest prefix holding the
 * packet's address with the name of its input port (src) or output port
 * (dst); "wildcard" members match names starting with theirs; /0 is a
 * member; a packet without that port (none, or one without a name) is in
 * no set; -j SET adds the address under the longest prefix with the port's
 * name; physdev: members (bridge ports) and bad names are refused.
 */
static void
test_ipset_net_iface(void **state)
{
	static const char text[] = "create ni hash:net,iface family inet hashsize 1024 maxelem 65536\n"
				   "add ni 10.0.0.0/8,l0\n"
				   "add ni 10.1.0.0/16,r0\n"
				   "add ni 10.2.0.0/16,veth wildcard\n"
				   "add ni 0.0.0.0/0,lo\n"
				   "create ni6 hash:net,iface family inet6\n"
				   "add ni6 2001:db8::/32,r0\n";
	static const struct rule_portname names[] = {{"l0"}, {"r0"}, {"lo"}, {"veth7"}, {""},
		{"averyveryverylongname"}};
	const struct rule_ifnames ifn = {.n = RTE_DIM(names), .names = names};
	static const struct {
		const char *set;
		uint8_t ndims, dirs;
		uint16_t in, out;
		const char *pkt;
		int want;
	} c[] = {
		{"ni", 2, 0, 0, 1, "udp 10.9.0.1:1 -> 1.1.1.1:2", 1},  /* 10/8 from l0 */
		{"ni", 2, 2, 0, 1, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0},  /* out is r0 */
		{"ni", 2, 2, 1, 0, "udp 10.9.0.1:1 -> 1.1.1.1:2", 1},  /* out is l0 */
		{"ni", 2, 0, 1, 0, "udp 10.1.0.1:1 -> 1.1.1.1:2", 1},  /* 10.1/16 from r0 */
		{"ni", 2, 0, 0, 1, "udp 10.1.0.1:1 -> 1.1.1.1:2", 1},  /* 10/8 from l0 too */
		{"ni", 2, 0, 2, 1, "udp 10.1.0.1:1 -> 1.1.1.1:2", 1},  /* /0 from lo */
		{"ni", 2, 0, 2, 1, "udp 192.0.2.1:1 -> 1.1.1.1:2", 1}, /* /0 from lo */
		{"ni", 2, 0, 1, 0, "udp 192.0.2.1:1 -> 1.1.1.1:2", 0},
		{"ni", 2, 1, 1, 0, "udp 1.1.1.1:1 -> 10.1.2.3:2", 1},   /* dst,src */
		{"ni", 2, 0, 3, 0, "udp 10.2.0.1:1 -> 1.1.1.1:2", 1},  /* veth7: wildcard veth */
		{"ni", 2, 0, 1, 3, "udp 10.2.0.1:1 -> 1.1.1.1:2", 0},  /* r0: no member */
		{"ni", 2, 0, RULE_IF_NONE, 0, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0}, /* no input */
		{"ni", 2, 2, 0, RULE_IF_NONE, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0}, /* no output */
		{"ni", 2, 0, 4, 0, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0},  /* a port without a name */
		{"ni", 2, 0, 5, 0, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0},  /* no such Linux name */
		{"ni", 2, 0, 9, 0, "udp 10.9.0.1:1 -> 1.1.1.1:2", 0},  /* past the names */
		{"ni", 1, 0, 0, 1, "udp 10.9.0.1:1 -> 1.1.1.1:2", -EINVAL}, /* too few */
		{"ni", 2, 0, 0, 1, "udp [2001:db8::1]:1 -> [::1]:2", 0},    /* another family */
		{"ni6", 2, 0, 1, 0, "udp [2001:db8::1]:1 -> [::1]:2", 1},
		{"ni6", 2, 0, 0, 1, "udp [2001:db8::1]:1 -> [::1]:2", 0},
	};
	static const char *const bad[] = {
		"create s hash:net,iface family inet\nadd s 10.0.0.0/24\n",
		"create s hash:net,iface family inet\nadd s 10.0.0.0/24,physdev:eth0\n",
		"create s hash:net,iface family inet\nadd s 10.0.0.0/24,abcdefghijklmnop\n",
		"create s hash:net,iface family inet\nadd s 10.0.0.0/24,\n",
		"create s hash:net,iface family inet\nadd s 10.0.0.0/24,eth0,eth1\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/24,tcp:80 wildcard\n",
	};
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(text, "s", 0, &err);
	struct rule_x x;
	struct fc_key k;
	struct rule_pkt p;

	(void)state;
	if (sets == NULL)
		fail_msg("%s:%u:%u: %s", err.file, err.line, err.col, err.msg);
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		struct rule_x_set ref = {.ndims = c[i].ndims, .dirs = c[i].dirs};
		int got;

		k = key(c[i].pkt);
		rule_pkt_init(&p, &k, 0, 0);
		p.in_port = c[i].in;
		p.out_port = c[i].out;
		snprintf(ref.name, sizeof(ref.name), "%s", c[i].set);
		got = rule_ipsets_test(sets, &ref, &p, &ifn);
		if (got != c[i].want)
			fail_msg("%zu: %s %s: %d, expected %d", i, c[i].set, c[i].pkt, got, c[i].want);
		/* Without the names nothing has an interface. */
		if (c[i].want == 1)
			assert_int_equal(rule_ipsets_test(sets, &ref, &p, NULL), 0);
	}
	/* -j SET src,src from r0: 172.16.5.5 under /16 (the longest held) with r0. */
	x = set_tgt(true, "ni", 2, 0, 0, false);
	k = key("udp 172.16.5.5:9 -> 1.1.1.1:53");
	rule_pkt_init(&p, &k, 0, 0);
	p.in_port = 1;
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 1);
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 0);
	k = key("udp 172.16.200.1:9 -> 1.1.1.1:53");
	rule_pkt_init(&p, &k, 0, 0);
	p.in_port = 1;
	assert_int_equal(rule_ipsets_test(sets, &x.u.set_t.add, &p, &ifn), 1);
	p.in_port = 0;
	assert_int_equal(rule_ipsets_test(sets, &x.u.set_t.add, &p, &ifn), 0);
	/* No input port: nothing to add. */
	p.in_port = RULE_IF_NONE;
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 0);
	/* --del-set src,src from r0 takes it away. */
	x = set_tgt(false, "ni", 2, 0, 0, false);
	p.in_port = 1;
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 2);
	assert_int_equal(rule_ipsets_test(sets, &x.u.set_t.del, &p, &ifn), 0);
	/* A wildcard member holding the name is the member, as in the kernel:
	 * adding from veth7 finds 10.2.0.0/16,veth; deleting takes it away. */
	k = key("udp 10.2.9.9:9 -> 1.1.1.1:53");
	rule_pkt_init(&p, &k, 0, 0);
	p.in_port = 3;
	x = set_tgt(true, "ni", 2, 0, 0, false);
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 0);
	x = set_tgt(false, "ni", 2, 0, 0, false);
	assert_int_equal(rule_ipsets_apply(sets, &x, &p, &ifn), 2);
	assert_int_equal(rule_ipsets_test(sets, &x.u.set_t.del, &p, &ifn), 0);
	rule_ipsets_free(sets);
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		sets = rule_ipsets_parse(bad[i], "s", 0, &err);
		if (sets != NULL)
			fail_msg("loaded: %s", bad[i]);
		assert_int_equal(err.line, 2);
		if (strstr(bad[i], "physdev") != NULL)
			assert_non_null(strstr(err.msg, "gufc has no Linux bridge"));
	}
}

/*
 * hash:net,port and hash:ip,port,ip as "ipset save" writes them: the
 * longest prefix holding the packet's address with its protocol and port;
 * ICMP members by name (ipset's names) or type/code; a protocol without
 * ports has port 0 only; the three dimensions each take their direction;
 * bad entries are refused naming the entry.
 */
/* set_has() with --return-nomatch. */
static int
set_has_rn(struct rule_ipsets *sets, const char *name, uint8_t ndims, uint8_t dirs,
	const char *pkt)
{
	struct rule_x_set ref = {.ndims = ndims, .dirs = dirs};
	struct fc_key k = key(pkt);
	struct rule_pkt p;

	snprintf(ref.name, sizeof(ref.name), "%s", name);
	rule_pkt_init(&p, &k, 0, 0);
	return rule_ipsets_test_x(sets, &ref, &p, NULL, true);
}

/*
 * Exceptions ("nomatch" members) as Linux's: the most specific network
 * found decides, an exception answers "not in the set", --return-nomatch
 * turns a type with exceptions over (hash:ip has none: unchanged); an
 * expired member is passed over to a shorter prefix; -j SET --exist makes
 * an exception a member, without it the exception stays. hash:ip,port,net
 * (kube-proxy's), hash:ip with a netmask, bitmap:ip (a range, a netmask,
 * ranges and networks in an entry), list:set (members in order, before
 * and after, adds to the first member set that takes one: of the family,
 * not full), maxelem; bad lines refused.
 */
static void
test_ipset_nomatch_types(void **state)
{
	static const char text[] =
		"create n hash:net family inet timeout 100\n"
		"add n 10.0.0.0/8 timeout 0\n"
		"add n 10.1.0.0/16 nomatch timeout 0\n"
		"add n 10.1.2.0/24 timeout 0\n"
		"add n 10.2.0.0/16 nomatch timeout 10\n"
		"create np hash:net,port family inet\n"
		"add np 192.168.0.0/16,tcp:22\n"
		"add np 192.168.9.0/24,tcp:22 nomatch\n"
		"create ipn hash:ip,port,net family inet\n"
		"add ipn 198.51.100.1,tcp:80,172.16.0.0/12\n"
		"add ipn 198.51.100.1,tcp:80,172.16.5.0/24 nomatch\n"
		"add ipn 198.51.100.1,udp:53,0.0.0.0/1\n"
		"create h hash:ip family inet netmask 24 maxelem 3\n"
		"add h 203.0.113.77\n"
		"add h 198.51.100.0-198.51.100.255\n"
		"create b bitmap:ip range 192.0.2.0/24\n"
		"add b 192.0.2.1\n"
		"add b 192.0.2.16/30\n"
		"add b 192.0.2.100-192.0.2.101\n"
		"add b 192.0.2.60/32\n"
		"create one bitmap:ip range 192.0.2.7\n"
		"add one 192.0.2.7/32\n"
		"create bn bitmap:ip range 10.0.0.0-10.0.255.255 netmask 24\n"
		"add bn 10.0.7.9\n"
		"create six hash:net family inet6\n"
		"add six 2001:db8::/32\n"
		"create z hash:ip family inet timeout 0\n"
		"add z 198.18.0.1 timeout 10\n"
		"add z 198.18.0.2 timeout 0\n"
		"create full hash:ip family inet maxelem 1\n"
		"add full 192.0.2.200\n"
		"create l list:set size 8\n"
		"add l b\n"
		"add l six\n"
		"add l full before b\n"
		"add l np after full\n";
	static const struct {
		const char *set;
		uint8_t ndims, dirs;
		const char *pkt;
		int want, want_rn;
	} c[] = {
		{"n", 1, 0, "udp 10.9.9.9:1 -> 1.1.1.1:2", 1, 0},   /* the /8 */
		{"n", 1, 0, "udp 10.1.9.9:1 -> 1.1.1.1:2", 0, 1},   /* its /16 exception */
		{"n", 1, 0, "udp 10.1.2.9:1 -> 1.1.1.1:2", 1, 0},   /* the /24 inside it */
		{"n", 1, 0, "udp 11.1.2.9:1 -> 1.1.1.1:2", 0, 0},   /* none */
		{"n", 1, 0, "udp 10.2.2.9:1 -> 1.1.1.1:2", 0, 1},   /* exception, not expired yet */
		{"np", 2, 2, "tcp 192.168.1.1:1 -> 1.1.1.1:22", 1, 0},
		{"np", 2, 2, "tcp 192.168.9.1:1 -> 1.1.1.1:22", 0, 1},
		{"np", 2, 2, "tcp 192.168.9.1:1 -> 1.1.1.1:23", 0, 0},
		{"ipn", 3, 2, "tcp 198.51.100.1:1 -> 1.1.1.1:80", 0, 0}, /* third: the source */
		{"ipn", 3, 6, "tcp 198.51.100.1:1 -> 172.17.0.1:80", 1, 0},
		{"ipn", 3, 6, "tcp 198.51.100.1:1 -> 172.16.5.1:80", 0, 1},
		{"ipn", 3, 6, "tcp 198.51.100.1:1 -> 172.32.0.1:80", 0, 0},
		{"ipn", 3, 6, "udp 198.51.100.1:1 -> 100.0.0.1:53", 1, 0},
		{"ipn", 3, 6, "udp 198.51.100.1:1 -> 200.0.0.1:53", 0, 0},
		{"h", 1, 0, "udp 203.0.113.1:1 -> 1.1.1.1:2", 1, 1},     /* netmask 24; no exceptions */
		{"h", 1, 0, "udp 203.0.114.1:1 -> 1.1.1.1:2", 0, 0},
		{"h", 1, 1, "udp 1.1.1.1:1 -> 198.51.100.200:2", 1, 1},
		{"b", 1, 0, "udp 192.0.2.1:1 -> 1.1.1.1:2", 1, 1},
		{"b", 1, 0, "udp 192.0.2.2:1 -> 1.1.1.1:2", 0, 0},
		{"b", 1, 0, "udp 192.0.2.19:1 -> 1.1.1.1:2", 1, 1},
		{"b", 1, 0, "udp 192.0.2.20:1 -> 1.1.1.1:2", 0, 0},
		{"b", 1, 0, "udp 192.0.2.101:1 -> 1.1.1.1:2", 1, 1},
		{"b", 1, 0, "udp 192.0.3.1:1 -> 1.1.1.1:2", 0, 0},  /* outside the range */
		{"b", 1, 0, "udp 192.0.2.60:1 -> 1.1.1.1:2", 1, 1},  /* a /32 */
		{"b", 1, 0, "udp 192.0.2.61:1 -> 1.1.1.1:2", 0, 0},
		{"one", 1, 0, "udp 192.0.2.7:1 -> 1.1.1.1:2", 1, 1}, /* a range of one address */
		{"bn", 1, 0, "udp 10.0.7.200:1 -> 1.1.1.1:2", 1, 1},
		{"bn", 1, 0, "udp 10.0.8.1:1 -> 1.1.1.1:2", 0, 0},
		{"l", 1, 0, "udp 192.0.2.17:1 -> 1.1.1.1:2", 1, 1},  /* in b */
		{"l", 1, 0, "udp [2001:db8::1]:1 -> [2001:db9::1]:2", 1, 0}, /* in six */
		{"l", 1, 0, "udp 192.0.2.200:1 -> 1.1.1.1:2", 1, 1},  /* in full */
		{"l", 2, 2, "tcp 192.168.1.1:1 -> 1.1.1.1:22", 1, 0},  /* in np (two dimensions) */
		{"l", 1, 0, "tcp 192.168.1.1:1 -> 1.1.1.1:22", 0, 0},  /* np needs two */
		{"l", 2, 2, "tcp 192.168.9.1:1 -> 1.1.1.1:22", 0, 1},  /* np's exception */
		{"z", 1, 0, "udp 198.18.0.1:1 -> 1.1.1.1:2", 1, 1},  /* "timeout 0": timeouts on */
		{"z", 1, 0, "udp 198.18.0.2:1 -> 1.1.1.1:2", 1, 1},
	};
	static const char *const bad[] = {
		"create s hash:ip family inet\nadd s 10.0.0.1 nomatch\n",
		"create s hash:ip,port family inet\nadd s 10.0.0.1,tcp:1 nomatch\n",
		"create s hash:net family inet\nadd s 10.0.0.0/8 timeout 5\n",
		"create s hash:ip family inet maxelem 2\nadd s 10.0.0.0/30\n",
		"create s bitmap:ip\n",
		"create s bitmap:ip range 10.0.0.0/8\n",
		"create s bitmap:ip range 10.0.0.0/24 family inet6\n",
		"create s bitmap:ip range 10.0.0.0/24\nadd s 10.0.1.1\n",
		"create s hash:ip family inet netmask 33\n",
		"create s hash:net family inet netmask 24\n",
		"create s hash:ip,port,net family inet\nadd s 10.0.0.1,tcp:1,10.0.0.0/33\n",
		"create s hash:ip,port,net family inet\nadd s 10.0.0.0/8,tcp:1,10.0.0.0/8\n",
		"create l list:set\nadd l nosuch\n",
		"create l list:set\ncreate m list:set\nadd l m\n",
		"create a hash:ip family inet\ncreate l list:set\nadd l a\nadd l a\n",
		"create a hash:ip family inet\ncreate l list:set\nadd l a before b\n",
		"create a hash:ip family inet\ncreate l list:set size 4\nadd l a\nadd l a2\n",
		"create a hash:ip family inet\ncreate a hash:ip family inet\n",
		"create a hash:ip family inet\ncreate a hash:net family inet -exist\n",
		"create a hash:ip family inet\ndel a 10.0.0.1\n",
		"create a hash:ip family inet\ncreate l list:set\nadd l a\ndestroy a\n",
		"create a hash:ip family inet\ncreate b hash:ip family inet6\nswap a b\n",
		"create a hash:ip family inet\ncreate b hash:ip family inet\nrename a b\n",
		"create a hash:ip family inet\nlist a\n",
		"create a hash:ip family inet\nflush a b\n",
	};
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(text, "s", 1000, &err);

	(void)state;
	if (sets == NULL)
		fail_msg("%s:%u:%u: %s", err.file, err.line, err.col, err.msg);
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		int got = set_has(sets, c[i].set, c[i].ndims, c[i].dirs, c[i].pkt, 1005);
		int rn = set_has_rn(sets, c[i].set, c[i].ndims, c[i].dirs, c[i].pkt);

		if (got != c[i].want || rn != c[i].want_rn)
			fail_msg("%s %s: %d/%d, expected %d/%d", c[i].set, c[i].pkt, got, rn,
				c[i].want, c[i].want_rn);
	}
	/* A "timeout 0" set's members time out as given; 0 never. */
	assert_int_equal(set_has(sets, "z", 1, 0, "udp 198.18.0.1:1 -> 1.1.1.1:2", 1011), 0);
	assert_int_equal(set_has(sets, "z", 1, 0, "udp 198.18.0.2:1 -> 1.1.1.1:2", 1011), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "z", 1, 0, 5, false),
				 "udp 198.18.0.3:1 -> 1.1.1.1:2", 1005), 1);
	assert_int_equal(set_has(sets, "z", 1, 0, "udp 198.18.0.3:1 -> 1.1.1.1:2", 1009), 1);
	assert_int_equal(set_has(sets, "z", 1, 0, "udp 198.18.0.3:1 -> 1.1.1.1:2", 1010), 0);
	/* The /16 exception past its timeout: the /8 decides. */
	assert_int_equal(set_has(sets, "n", 1, 0, "udp 10.2.2.9:1 -> 1.1.1.1:2", 1011), 1);
	/* -j SET without --exist leaves np's exception; with it, a member. */
	assert_int_equal(set_apply(sets, set_tgt(true, "np", 2, 2, 0, false),
				 "tcp 192.168.9.1:1 -> 1.1.1.1:22", 1005), 0);
	assert_int_equal(set_has(sets, "np", 2, 2, "tcp 192.168.9.1:1 -> 1.1.1.1:22", 1005), 0);
	assert_int_equal(set_apply(sets, set_tgt(true, "np", 2, 2, 0, true),
				 "tcp 192.168.9.1:1 -> 1.1.1.1:22", 1005), 0);
	assert_int_equal(set_has(sets, "np", 2, 2, "tcp 192.168.9.7:1 -> 1.1.1.1:22", 1005), 1);
	/* hash:ip netmask 24 holds 3 at most: the third /24 is added, a fourth refused. */
	assert_int_equal(set_apply(sets, set_tgt(true, "h", 1, 0, 0, false),
				 "udp 100.64.1.1:1 -> 1.1.1.1:2", 1005), 1);
	assert_int_equal(set_has(sets, "h", 1, 0, "udp 100.64.1.77:1 -> 1.1.1.1:2", 1005), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "h", 1, 0, 0, false),
				 "udp 100.64.2.1:1 -> 1.1.1.1:2", 1005), -ENOSPC);
	/* A bitmap:ip takes no address outside its range. */
	assert_int_equal(set_apply(sets, set_tgt(true, "b", 1, 0, 0, false),
				 "udp 192.0.3.1:1 -> 1.1.1.1:2", 1005), 0);
	assert_int_equal(set_apply(sets, set_tgt(true, "b", 1, 0, 0, false),
				 "udp 192.0.2.2:1 -> 1.1.1.1:2", 1005), 1);
	/*
	 * The list is full, np, b, six: an IPv4 address passes full (full) and
	 * np (it needs two dimensions), b takes it (192.0.2.x); one outside
	 * b's range: nothing takes it. IPv6 goes to six.
	 */
	assert_int_equal(set_apply(sets, set_tgt(true, "l", 1, 0, 0, false),
				 "udp 192.0.2.50:1 -> 1.1.1.1:2", 1005), 1);
	assert_int_equal(set_has(sets, "b", 1, 0, "udp 192.0.2.50:1 -> 1.1.1.1:2", 1005), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "l", 1, 0, 0, false),
				 "udp 172.20.0.1:1 -> 1.1.1.1:2", 1005), 0);
	assert_int_equal(set_has(sets, "l", 1, 0, "udp 172.20.0.1:1 -> 1.1.1.1:2", 1005), 0);
	assert_int_equal(set_apply(sets, set_tgt(true, "l", 1, 0, 0, false),
				 "udp [2001:db9::5]:1 -> [2001:db8::1]:2", 1005), 1);
	assert_int_equal(set_has(sets, "six", 1, 0, "udp [2001:db9::5]:1 -> [2001:db8::1]:2", 1005), 1);
	/* Deleting through the list: from the first member set holding it. */
	assert_int_equal(set_apply(sets, set_tgt(false, "l", 1, 0, 0, false),
				 "udp 192.0.2.50:1 -> 1.1.1.1:2", 1005), 2);
	assert_int_equal(set_has(sets, "l", 1, 0, "udp 192.0.2.50:1 -> 1.1.1.1:2", 1005), 0);
	rule_ipsets_free(sets);
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		sets = rule_ipsets_parse(bad[i], "s", 0, &err);
		if (sets != NULL)
			fail_msg("loaded: %s", bad[i]);
		assert_true(err.line >= 1 && err.msg[0] != '\0');
	}
}

/*
 * What scripts feed "ipset restore" beyond save's create and add lines:
 * -exist anywhere (a set made again, a member added again or deleted
 * though absent), del (members, bitmap ports, list members), flush,
 * destroy, rename, and the build-then-swap idiom; the old -N/-A/-D/-F/-X/
 * -E/-W spellings.
 */
static bool
set_named(const struct rule_ipsets *sets, const char *name)
{
	for (unsigned int i = 0; i < rule_ipsets_count(sets); i++)
		if (strcmp(rule_ipsets_name(sets, i), name) == 0)
			return true;
	return false;
}

static void
test_ipset_restore_script(void **state)
{
	static const char text[] =
		"create bl hash:net family inet\n"
		"add bl 192.0.2.0/24\n"
		"create bl hash:net family inet -exist\n"
		"create bl-new hash:net family inet\n"
		"add bl-new 198.51.100.0/24\n"
		"-A bl-new 203.0.113.0/24\n"
		"add -exist bl-new 203.0.113.0/24\n"
		"del bl-new 203.0.113.0/24\n"
		"del bl-new 203.0.113.0/24 -!\n"
		"swap bl bl-new\n"
		"destroy bl-new\n"
		"create ports bitmap:port range 1-1024\n"
		"add ports 20-25\n"
		"-D ports 21-22\n"
		"create tmp hash:ip family inet\n"
		"add tmp 10.0.0.1\n"
		"-F tmp\n"
		"add tmp 10.0.0.2\n"
		"-E tmp hosts\n"
		"create l list:set\n"
		"add l ports\n"
		"add l hosts\n"
		"del l ports\n"
		"-N gone hash:ip family inet\n"
		"-X gone\n";
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(text, "s", 0, &err);

	(void)state;
	if (sets == NULL)
		fail_msg("%s:%u:%u: %s", err.file, err.line, err.col, err.msg);
	assert_int_equal(rule_ipsets_count(sets), 4); /* bl, ports, hosts, l */
	assert_false(set_named(sets, "bl-new"));
	assert_false(set_named(sets, "tmp"));
	assert_false(set_named(sets, "gone"));
	assert_true(set_named(sets, "hosts"));
	/* bl holds what bl-new held: 198.51.100.0/24 (203.0.113.0/24 deleted). */
	assert_int_equal(set_has(sets, "bl", 1, 0, "udp 198.51.100.9:1 -> 1.1.1.1:2", 0), 1);
	assert_int_equal(set_has(sets, "bl", 1, 0, "udp 192.0.2.9:1 -> 1.1.1.1:2", 0), 0);
	assert_int_equal(set_has(sets, "bl", 1, 0, "udp 203.0.113.9:1 -> 1.1.1.1:2", 0), 0);
	assert_int_equal(set_has(sets, "ports", 1, 1, "tcp 1.1.1.1:1 -> 2.2.2.2:20", 0), 1);
	assert_int_equal(set_has(sets, "ports", 1, 1, "tcp 1.1.1.1:1 -> 2.2.2.2:22", 0), 0);
	assert_int_equal(set_has(sets, "ports", 1, 1, "tcp 1.1.1.1:1 -> 2.2.2.2:23", 0), 1);
	assert_int_equal(set_has(sets, "hosts", 1, 0, "udp 10.0.0.1:1 -> 1.1.1.1:2", 0), 0);
	assert_int_equal(set_has(sets, "hosts", 1, 0, "udp 10.0.0.2:1 -> 1.1.1.1:2", 0), 1);
	/* The list holds hosts only now (its index moved when "bl-new" went). */
	assert_int_equal(set_has(sets, "l", 1, 0, "udp 10.0.0.2:1 -> 1.1.1.1:2", 0), 1);
	assert_int_equal(set_has(sets, "l", 1, 1, "tcp 1.1.1.1:1 -> 2.2.2.2:20", 0), 0);
	rule_ipsets_free(sets);
}

static void
test_ipset_net_port(void **state)
{
	static const char text[] = "create np hash:net,port family inet hashsize 1024 maxelem 65536\n"
				   "add np 10.0.0.0/24,udp:53\n"
				   "add np 10.0.0.0/16,tcp:80\n"
				   "add np 10.0.1.1,tcp:22\n"
				   "add np 10.2.0.0/16,icmp:echo-request\n"
				   "add np 10.3.0.0/16,icmp:3/1\n"
				   "add np 10.4.0.0/16,gre:0\n"
				   "create np6 hash:net,port family inet6\n"
				   "add np6 2001:db8::/32,ipv6-icmp:packet-too-big\n"
				   "create ipi hash:ip,port,ip family inet\n"
				   "add ipi 192.0.2.1,tcp:443,198.51.100.7\n";
	static const struct {
		const char *set;
		uint8_t ndims, dirs;
		const char *pkt;
		int want;
	} c[] = {
		{"np", 2, 2, "udp 10.0.0.9:1000 -> 1.1.1.1:53", 1},
		{"np", 2, 0, "udp 10.0.0.9:1000 -> 1.1.1.1:53", 0}, /* source port */
		{"np", 2, 2, "udp 10.0.1.9:1000 -> 1.1.1.1:53", 0}, /* /24 is udp only */
		{"np", 2, 2, "tcp 10.0.1.9:1000 -> 1.1.1.1:80", 1}, /* the /16 */
		{"np", 2, 2, "tcp 10.0.1.1:1000 -> 1.1.1.1:22", 1}, /* the host */
		{"np", 2, 2, "tcp 10.0.1.2:1000 -> 1.1.1.1:22", 0},
		{"np", 2, 3, "tcp 1.1.1.1:1000 -> 10.0.1.1:22", 1}, /* dst,dst */
		{"np", 2, 2, "icmp 10.2.3.4:7 -> 1.1.1.1:7 8/0", 1},
		{"np", 2, 2, "icmp 10.2.3.4:7 -> 1.1.1.1:7 0/0", 0},
		{"np", 2, 2, "icmp 10.3.3.4:7 -> 1.1.1.1:7 3/1", 1},
		{"np", 2, 2, "proto 47 10.4.3.4:0 -> 1.1.1.1:0", 1},
		{"np", 2, 2, "proto 47 10.5.3.4:0 -> 1.1.1.1:0", 0},
		{"np", 2, 2, "udp [2001:db8::1]:1 -> [2001:db8::2]:53", 0}, /* another family */
		{"np6", 2, 0, "icmpv6 [2001:db8::1]:7 -> [2001:db9::2]:7 2/0", 1},
		{"ipi", 3, 2, "tcp 192.0.2.1:5 -> 198.51.100.7:443", 0}, /* third is the source */
		{"ipi", 3, 6, "tcp 192.0.2.1:5 -> 198.51.100.7:443", 1},
		{"ipi", 3, 6, "tcp 192.0.2.1:5 -> 198.51.100.8:443", 0},
		{"ipi", 3, 6, "udp 192.0.2.1:5 -> 198.51.100.7:443", 0},
		{"ipi", 3, 3, "tcp 198.51.100.7:5 -> 192.0.2.1:443", 1}, /* dst,dst,src */
		{"ipi", 2, 6, "tcp 192.0.2.1:5 -> 198.51.100.7:443", -EINVAL}, /* too few */
	};
	static const char *const bad[] = {
		"create s hash:net,port family inet\nadd s 10.0.0.0/24\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/0,tcp:1\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/24,gre:5\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/24,icmp:ping\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/24,icmp:destination-unreachable\n",
		"create s hash:net,port family inet\nadd s 10.0.0.0/24,tcp:1,2\n",
		"create s hash:ip,port,ip family inet\nadd s 10.0.0.1,tcp:1\n",
		"create s hash:ip,port,ip family inet\nadd s 10.0.0.1,tcp:1,10.0.0.0/24\n",
		"create s hash:ip,port,ip family inet\nadd s 10.0.0.0/24,tcp:1,10.0.0.1\n",
	};
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(text, "s", 0, &err);

	(void)state;
	if (sets == NULL)
		fail_msg("%s:%u:%u: %s", err.file, err.line, err.col, err.msg);
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		struct rule_x_set ref = {.ndims = c[i].ndims, .dirs = c[i].dirs};
		const char *slash = strchr(c[i].pkt, '/');
		char text[128];
		struct fc_key k;
		struct rule_pkt p;
		int got;

		/* "KEY T/C": an ICMP packet's type and code after its key. */
		assert_true(strlen(c[i].pkt) < sizeof(text));
		memcpy(text, c[i].pkt, strlen(c[i].pkt) + 1);
		if (slash != NULL)
			text[strrchr(c[i].pkt, ' ') - c[i].pkt] = '\0';
		k = key(text);
		rule_pkt_init(&p, &k, 0, 0);
		if (slash != NULL) {
			p.icmp_type = (uint8_t)atoi(strrchr(c[i].pkt, ' ') + 1);
			p.icmp_code = (uint8_t)atoi(slash + 1);
		}
		snprintf(ref.name, sizeof(ref.name), "%s", c[i].set);
		got = rule_ipsets_test(sets, &ref, &p, NULL);

		if (got != c[i].want)
			fail_msg("%s %s: %d, expected %d", c[i].set, c[i].pkt, got, c[i].want);
	}
	/* -j SET adds under the longest prefix the set holds, with the port. */
	assert_int_equal(set_apply(sets, set_tgt(true, "np", 2, 2, 0, false),
				 "udp 172.16.5.5:9 -> 1.1.1.1:5353", 0),
		1);
	assert_int_equal(set_has(sets, "np", 2, 2, "udp 172.16.5.6:9 -> 1.1.1.1:5353", 0), 0);
	assert_int_equal(set_has(sets, "np", 2, 2, "udp 172.16.5.5:7 -> 1.1.1.1:5353", 0), 1);
	assert_int_equal(set_apply(sets, set_tgt(true, "ipi", 3, 6, 0, false),
				 "udp 192.0.2.9:5 -> 198.51.100.7:53", 0),
		1);
	assert_int_equal(set_has(sets, "ipi", 3, 6, "udp 192.0.2.9:6 -> 198.51.100.7:53", 0), 1);
	rule_ipsets_free(sets);
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		sets = rule_ipsets_parse(bad[i], "s", 0, &err);
		if (sets != NULL)
			fail_msg("loaded: %s", bad[i]);
		assert_int_equal(err.line, 2);
		assert_int_equal(err.col, 7);
	}
}

/* ------------------------------------------------------------------------ */
/* rule_pkt_parse()                                                          */
/* ------------------------------------------------------------------------ */

/* What a set's rules need of a packet context beyond the parsed packet. */
static void
test_pkt_needs(void **state)
{
	static const struct {
		const char *matches;
		uint32_t needs;
	} c[] = {
		{"-p tcp --dport 80", 0},
		{"-p tcp --tcp-flags SYN,ACK SYN", 0},
		{"-p icmp --icmp-type echo-request", 0},
		{"-m conntrack --ctstate NEW", 0},
		{"-m mark --mark 0x1", 0},
		{"-m iprange --src-range 10.0.0.1-10.0.0.9", 0},
		{"-m limit --limit 10/sec", 0},
		{"-m quota --quota 1000", RULE_PKT_NEED_FRAME},
		{"-m statistic --mode nth --every 3 --packet 0", 0},
		{"-p tcp --tcp-option 2", RULE_PKT_NEED_FRAME},
		{"-m ttl --ttl-lt 10", RULE_PKT_NEED_FRAME},
		{"-m length --length 100", RULE_PKT_NEED_FRAME},
		{"-m dscp --dscp 10", RULE_PKT_NEED_FRAME},
		{"-m recent --name x --set", RULE_PKT_NEED_FRAME},
		{"-m statistic --mode random --probability 0.5", RULE_PKT_NEED_RAND},
		{"-m time --weekdays Mon", RULE_PKT_NEED_TIME},
	};

	(void)state;
	assert_int_equal(rule_set_pkt_needs(NULL), RULE_PKT_NEED_ALL);
	for (size_t i = 0; i < RTE_DIM(c); i++) {
		char text[512];
		struct rule_set *s;

		snprintf(text, sizeof(text),
			"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
			"-A FORWARD -p tcp --dport 22 -j DROP\n-A FORWARD %s -j DROP\nCOMMIT\n",
			c[i].matches);
		s = parse_opts(text, FC_AF_INET4, NULL);
		assert_non_null(s);
		if (rule_set_pkt_needs(s) != c[i].needs)
			fail_msg("%s: needs %#x, expected %#x", c[i].matches, rule_set_pkt_needs(s),
				c[i].needs);
		rule_set_free(s);
	}
	{
		/* -j SET: its members' timeouts count from the clock. */
		struct rule_error err;
		struct rule_ipsets *sets =
			rule_ipsets_parse("create t hash:ip family inet timeout 60\n", "s", 0, &err);
		struct rule_set *s;

		assert_non_null(sets);
		s = parse_opts("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
			       ":OUTPUT ACCEPT [0:0]\n-A FORWARD -j SET --add-set t src\nCOMMIT\n",
			FC_AF_INET4, sets);
		assert_non_null(s);
		assert_int_equal(rule_set_pkt_needs(s), RULE_PKT_NEED_TIME);
		rule_set_free(s);
		rule_ipsets_free(sets);
	}
}

static void
test_pkt_parse(void **state)
{
	/* Ethernet (broadcast), IPv4 TTL 7 TOS 0x10, TCP SYN with MSS 1400 and SACK-permitted. */
	static const uint8_t f4[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0x10, 0x00, 0x30, 0, 1, 0x40, 0, 7, 6, 0, 0, 192, 0, 2, 1, 198, 51, 100, 1,
		0x04, 0x00, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x70, 0x02, 0xff, 0xff, 0, 0, 0, 0,
		2, 4, 0x05, 0x78, 4, 2, 1, 0,
	};
	/* IPv6 hop limit 64, hop-by-hop (8 bytes), fragment (offset 0, more), UDP. */
	static const uint8_t f6[] = {
		0x33, 0x33, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd,
		0x60, 0, 0, 0, 0, 24, 0, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		44, 0, 1, 4, 0, 0, 0, 0,
		17, 0, 0x00, 0x01, 0, 0, 0x12, 0x34,
		0, 53, 0, 53, 0, 8, 0, 0,
	};
	/* IPv6 traffic class 0xb9 (EF, ECT(1)), IPComp with CPI 0x1234. */
	static const uint8_t fc[] = {
		0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd,
		0x6b, 0x90, 0, 0, 0, 8, 108, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		4, 0, 0x12, 0x34, 0, 0, 0, 0,
	};
	struct fc_key k = key("tcp 192.0.2.1:1024 -> 198.51.100.1:80");
	struct rule_pkt p;

	(void)state;
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, f4, sizeof(f4), 14, 34), 0);
	assert_int_equal(p.ttl, 7);
	assert_int_equal(p.tos, 0x10);
	assert_int_equal(p.l3_len, 48);
	assert_int_equal(p.tcp_flags, 0x02);
	assert_true(p.flags & RULE_PKT_F_MSS);
	assert_int_equal(p.tcp_mss, 1400);
	assert_true(p.tcp_opts[0] & (1u << 4)); /* SACK permitted */
	assert_true(p.flags & RULE_PKT_F_MAC);
	assert_int_equal(p.mac_src[5], 1);
	assert_int_equal(p.pkttype, RULE_PKTTYPE_BROADCAST);
	/* Cut short: the TCP options are not read past the end. */
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, f4, 56, 14, 34), 0);
	assert_int_equal(p.tcp_flags, 0x02);
	assert_false(p.flags & RULE_PKT_F_MSS);
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, f4, 20, 14, 34), -EINVAL);

	k = key("udp [2001:db8::1]:53 -> [2001:db8::2]:53");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, f6, sizeof(f6), 14, 70), 0);
	assert_int_equal(p.ttl, 64);
	assert_int_equal(p.l3_len, 64);
	assert_int_equal(p.pkttype, RULE_PKTTYPE_MULTICAST);
	assert_int_equal(p.ip6_hdrs, RULE_IP6H_HOP | RULE_IP6H_FRAG | RULE_IP6H_PROTO);
	assert_int_equal(p.hbh_len, 8);
	assert_true(p.flags & RULE_PKT_F_FRAGHDR);
	assert_int_equal(p.frag_id, 0x1234);
	assert_int_equal(p.frag_flags, RULE_FRAG_F_FIRST | RULE_FRAG_F_MORE);

	/* The traffic class and the IPComp CPI; then cut short. */
	k = key("proto 108 [2001:db8::1]:0 -> [2001:db8::2]:0");
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, fc, sizeof(fc), 14, 54), 0);
	assert_int_equal(p.tos, 0xb9);
	assert_true(p.flags & RULE_PKT_F_SPI);
	assert_int_equal(p.spi, 0x1234);
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	assert_int_equal(rule_pkt_parse(&p, fc, 57, 14, 54), 0);
	assert_false(p.flags & RULE_PKT_F_SPI);
}

/* ------------------------------------------------------------------------ */
/* Round trips over the corpus                                               */
/* ------------------------------------------------------------------------ */

/* Files gufc refuses (tests/iptables-corpus/expectations). */
static bool
refused(const char *name)
{
	/* tests/iptables-corpus/expectations: refused. */
	return strcmp(name, "ipsec-gateway.v4") == 0 ||
	       strcmp(name, "desktop-killswitch.v4") == 0 ||
	       strcmp(name, "hardening-synproxy.v4") == 0;
}

static void
roundtrip_one(const char *dir, const char *name)
{
	char path[1024], spath[1024];
	unsigned int family = strstr(name, ".v6") != NULL ? FC_AF_INET6 : FC_AF_INET4;
	struct rule_ipsets *sets = NULL;
	struct rule_set *s, *back, *nat_back;
	struct rule_error err;
	char *text, *out, *n1, *n2, *n3;
	size_t base = strlen(name) - 3;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(spath, sizeof(spath), "%s/%.*s.ipset", dir, (int)base, name);
	text = read_text(spath);
	if (text != NULL) {
		sets = rule_ipsets_parse(text, spath, 0, &err);
		assert_non_null(sets);
		free(text);
	}
	text = read_text(path);
	assert_non_null(text);
	s = parse_opts(text, family, sets);
	out = export(s, family);
	back = parse_opts(out, family, sets);
	n1 = native(s);
	n2 = native(back);
	if (strcmp(n1, n2) != 0)
		fail_msg("%s: export and import differ\n--- export:\n%s\n--- first:\n%s\n--- back:\n%s",
			name, out, n1, n2);
	/* The native text reads back to itself. */
	nat_back = rule_set_parse(n1, name, &err);
	if (nat_back == NULL)
		fail_msg("%s: native text does not load: %u:%u: %s '%s'\n%s", name, err.line,
			err.col, err.msg, err.token, n1);
	rule_set_ipsets(nat_back, sets);
	n3 = native(nat_back);
	assert_string_equal(n1, n3);
	free(n1);
	free(n2);
	free(n3);
	free(out);
	free(text);
	rule_set_free(nat_back);
	rule_set_free(back);
	rule_set_free(s);
	rule_ipsets_free(sets);
}

/*
 * Rules as iptables-save (1.8.9) prints them, for the matches added last:
 * loaded, written back to the same line, and through the native language.
 */
static void
test_saved_lines(void **state)
{
	static const char *const lines[] = {
		"-A INPUT -m time --datestart 2020-01-01T00:00:00 --datestop 2021-02-01T00:00:00 -j DROP",
		"-A INPUT -m time --timestart 08:00:00 --timestop 17:00:00 --datestop 2038-01-19T03:14:07 -j DROP",
		"-A INPUT -m time --datestart 2020-01-01T00:00:00 --datestop 2038-01-19T03:14:07 -j DROP",
		"-A INPUT -m tos --tos 0x10/0x3f -j DROP",
		"-A INPUT -m tos ! --tos 0x10/0xff -j DROP",
		"-A INPUT -p tcp -m ecn ! --ecn-tcp-ece --ecn-tcp-cwr --ecn-ip-ect 2 -j DROP",
		"-A INPUT -m ecn ! --ecn-ip-ect 1 -j DROP",
		/* iptables-save's "-p ipcomp": gufc writes the number, which it reads back */
		"-A INPUT -p ipcomp -m ipcomp --ipcompspi 5:9 -j DROP",
		"-A INPUT -p ipcomp -m ipcomp ! --ipcompspi 7 -j DROP",
		"-A INPUT -p ipcomp -j DROP",
	};
	char text[8192], *out, *n1, *n3;
	struct rule_set *s, *back;
	struct rule_error err;
	size_t len;

	(void)state;
	len = (size_t)snprintf(text, sizeof(text), "*filter\n:INPUT ACCEPT [0:0]\n");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\n", lines[i]);
	snprintf(text + len, sizeof(text) - len, "COMMIT\n");
	s = parse(text);
	out = export(s, FC_AF_INET4);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (strstr(out, lines[i]) == NULL)
			fail_msg("'%s' written back as:\n%s", lines[i], out);
	n1 = native(s);
	back = rule_set_parse(n1, "native", &err);
	if (back == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, n1);
	n3 = native(back);
	assert_string_equal(n1, n3);
	free(n1);
	free(n3);
	free(out);
	rule_set_free(back);
	rule_set_free(s);
}

/* The ECN target: its options written back as iptables-save writes them (checked with Linux's). */
static void
test_ecn_target(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"-A FORWARD -p tcp -j ECN --ecn-tcp-remove", "-A FORWARD -p tcp -j ECN --ecn-tcp-remove"},
		{"-A FORWARD -p tcp -j ECN --ecn-tcp-ece 0 --ecn-tcp-cwr 0",
			"-A FORWARD -p tcp -j ECN --ecn-tcp-remove"},
		{"-A FORWARD -p tcp -j ECN --ecn-tcp-cwr 1 --ecn-tcp-ece 0",
			"-A FORWARD -p tcp -j ECN --ecn-tcp-ece 0 --ecn-tcp-cwr 1"},
		{"-A FORWARD -j ECN --ecn-ip-ect 2", "-A FORWARD -j ECN --ecn-ip-ect 2"},
		{"-A FORWARD -p tcp -j ECN --ecn-tcp-remove --ecn-ip-ect 1",
			"-A FORWARD -p tcp -j ECN --ecn-tcp-ece 0 --ecn-tcp-cwr 0 --ecn-ip-ect 1"},
		{"-A POSTROUTING -p tcp -j ECN --ecn-tcp-ece 1",
			"-A POSTROUTING -p tcp -j ECN --ecn-tcp-ece 1"},
	};
	char text[4096], *out, *n1, *n3;
	struct rule_set *s, *back;
	struct rule_error err;
	size_t len;

	(void)state;
	len = (size_t)snprintf(text, sizeof(text), "*mangle\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\n", cases[i].in);
	snprintf(text + len, sizeof(text) - len, "COMMIT\n");
	s = parse(text);
	out = export(s, FC_AF_INET4);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strstr(out, cases[i].out) == NULL)
			fail_msg("'%s' written back as:\n%s", cases[i].in, out);
	n1 = native(s);
	assert_non_null(strstr(n1, "ecn ecn_remove"));
	back = rule_set_parse(n1, "native", &err);
	if (back == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, n1);
	n3 = native(back);
	assert_string_equal(n1, n3);
	free(n1);
	free(n3);
	free(out);
	rule_set_free(back);
	rule_set_free(s);
}

static void
test_corpus_roundtrip(void **state)
{
	DIR *d = opendir(GUFC_CORPUS_DIR);
	struct dirent *e;
	unsigned int n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l < 4 || (strcmp(e->d_name + l - 3, ".v4") != 0 &&
				     strcmp(e->d_name + l - 3, ".v6") != 0))
			continue;
		if (refused(e->d_name))
			continue;
		roundtrip_one(GUFC_CORPUS_DIR, e->d_name);
		n++;
	}
	closedir(d);
	assert_true(n >= 40);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_v4),
		cmocka_unit_test(test_matches_v6),
		cmocka_unit_test(test_icmp_key_deps),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_providers),
		cmocka_unit_test(test_restore_commands),
		cmocka_unit_test(test_insert_positions),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_ipsets_and_ports),
		cmocka_unit_test(test_ipset_apply),
		cmocka_unit_test(test_ipset_net_port),
		cmocka_unit_test(test_ipset_nomatch_types),
		cmocka_unit_test(test_ipset_restore_script),
		cmocka_unit_test(test_ipset_net_iface),
		cmocka_unit_test(test_pkt_parse),
		cmocka_unit_test(test_pkt_needs),
		cmocka_unit_test(test_saved_lines),
		cmocka_unit_test(test_ecn_target),
		cmocka_unit_test(test_corpus_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
