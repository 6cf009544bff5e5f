/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet classes of the per-packet header fields (rule_set_field_classes()):
 * two values of one class walk the set alike, through every stage, with
 * the set's rewrites (-j TTL, DSCP, TOS) before its tests; classes are
 * few (only the tests' own boundaries).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rule_lang.h"
#include "rules.h"

static struct rule_set *
parse(const char *text)
{
	struct rule_ipt_opts o = {.family = FC_AF_INET4};
	struct rule_error err;
	struct rule_set *s = rule_set_parse_iptables_opts(text, "t", &o, &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, text);
	return s;
}

enum field { F_TTL, F_TOS, F_LEN, F_MSS };

/*
 * What every stage decides for a forwarded TCP segment with field @p f at
 * @p v (-1: no MSS); @p router: past PREROUTING its TTL is decremented
 * (or it expired there).
 */
static uint64_t
walk(const struct rule_set *s, bool router, enum field f, int v)
{
	struct rule_eval ev;
	struct rule_pkt p;
	struct fc_key k;
	uint64_t sig = 0;

	assert_int_equal(fc_key_parse("tcp 192.0.2.1:999 -> 198.51.100.1:80", &k, NULL), 0);
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.ttl = 64;
	p.l3_len = 60;
	p.tcp_flags = 0x02;
	switch (f) {
	case F_TTL:
		p.ttl = (uint8_t)v;
		break;
	case F_TOS:
		p.tos = (uint8_t)v;
		break;
	case F_LEN:
		p.l3_len = (uint16_t)v;
		break;
	default:
		if (v >= 0) {
			p.flags |= RULE_PKT_F_MSS;
			p.tcp_mss = (uint16_t)v;
		}
		break;
	}
	for (unsigned int st = 0; st < RULE_STAGE__COUNT; st++) {
		p.ctstate = st == RULE_STAGE_RAW ? RULE_CT_INVALID : RULE_CT_NEW;
		/* Expired at the decrement: time exceeded, no FORWARD or POSTROUTING walk. */
		if (router && st >= RULE_STAGE_FILTER && rule_pkt_route_dec(&p))
			return sig * 11 + 5;
		assert_int_equal(rule_ref_eval(s, (enum rule_stage)st, &p, NULL, &ev), 0);
		sig = sig * 977 + ev.rule_id * 3 + ev.verdict;
		if (ev.verdict != RULE_VERDICT_ACCEPT)
			return sig * 7 + st;
	}
	return sig;
}

/* The interval class of @p v under bounds @p b (as the fast path counts them). */
static unsigned int
interval(const uint16_t *b, unsigned int n, unsigned int v)
{
	unsigned int c = 0;

	while (c < n && b[c] <= v)
		c++;
	return c;
}

/* Values of one class walk alike: for the 8-bit fields every pair, for the others each bound's edges. */
static void
check_in(const char *text, bool router, unsigned int max_ttl, unsigned int max_tos)
{
	struct rule_set *s = parse(text);
	struct rule_fieldclasses fc;
	uint64_t sig[256], first[256];
	bool seen[256];

	rule_set_field_classes(s, router, &fc);
	/* A most of 0: not classed (more compositions than kept). */
	assert_true(max_ttl == 0 ? fc.n_ttl == 0 : fc.n_ttl >= 1 && fc.n_ttl <= max_ttl);
	assert_true(max_tos == 0 ? fc.n_tos == 0 : fc.n_tos >= 1 && fc.n_tos <= max_tos);
	for (enum field f = F_TTL; f <= F_TOS; f++) {
		const uint8_t *cls = f == F_TTL ? fc.ttl : fc.tos;
		const uint8_t *rep = f == F_TTL ? fc.ttl_rep : fc.tos_rep;

		if ((f == F_TTL ? fc.n_ttl : fc.n_tos) == 0)
			continue;
		memset(seen, 0, sizeof(seen));
		for (unsigned int v = 0; v < 256; v++) {
			sig[v] = walk(s, router, f, (int)v);
			if (!seen[cls[v]]) {
				seen[cls[v]] = true;
				first[cls[v]] = sig[v];
				assert_int_equal(rep[cls[v]], v);
			}
			if (sig[v] != first[cls[v]])
				fail_msg("%s %u: walks otherwise than its class\n%s",
					f == F_TTL ? "TTL" : "TOS", v, text);
		}
	}
	/* Length: every value from 0 to 1600 and each bound's neighbours. */
	assert_true(fc.n_len_b != 0xff && fc.n_mss_b != 0xff);
	for (unsigned int v = 1; v < 1600; v++)
		if (interval(fc.len_b, fc.n_len_b, v) == interval(fc.len_b, fc.n_len_b, v - 1))
			assert_true(walk(s, router, F_LEN, (int)v) ==
				    walk(s, router, F_LEN, (int)v - 1));
	for (unsigned int v = 1; v < 1600; v++)
		if (interval(fc.mss_b, fc.n_mss_b, v) == interval(fc.mss_b, fc.n_mss_b, v - 1))
			assert_true(walk(s, router, F_MSS, (int)v) ==
				    walk(s, router, F_MSS, (int)v - 1));
	rule_set_free(s);
}

/* Bridge mode: no decrement. */
static void
check(const char *text, unsigned int max_ttl, unsigned int max_tos)
{
	check_in(text, false, max_ttl, max_tos);
}

#define FILTER_HDR "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
#define MANGLE_HDR                                                                              \
	"*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"     \
	":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"

static void
test_plain(void **state)
{
	struct rule_set *s;
	struct rule_fieldclasses fc;

	(void)state;
	check(FILTER_HDR "-A FORWARD -m length --length 0:99 -j DROP\n"
			 "-A FORWARD -m ttl --ttl-lt 2 -j DROP\n"
			 "-A FORWARD -m ttl --ttl-gt 200 -j DROP\n"
			 "-A FORWARD -m dscp --dscp 0x2e -j DROP\n"
			 "-A FORWARD -m ecn --ecn-ip-ect 3 -j DROP\n"
			 "-A FORWARD -p tcp -m tcpmss ! --mss 536:65535 -j DROP\n"
			 "-A FORWARD -j ACCEPT\nCOMMIT\n",
		3, 4);
	/* Exactly the tests' boundaries. */
	s = parse(FILTER_HDR "-A FORWARD -m length --length 0:99 -j DROP\n"
			     "-A FORWARD -m length --length 1500:65535 -j DROP\n"
			     "-A FORWARD -m ttl --ttl-lt 2 -j DROP\nCOMMIT\n");
	rule_set_field_classes(s, false, &fc);
	assert_int_equal(fc.n_ttl, 2);
	assert_int_equal(fc.ttl[0], fc.ttl[1]);
	assert_int_not_equal(fc.ttl[1], fc.ttl[2]);
	assert_int_equal(fc.ttl[2], fc.ttl[255]);
	assert_int_equal(fc.n_tos, 1);
	assert_int_equal(fc.n_len_b, 2);
	assert_int_equal(fc.len_b[0], 100);
	assert_int_equal(fc.len_b[1], 1500);
	assert_int_equal(fc.n_mss_b, 0);
	rule_set_free(s);
}

/* Rewrites before the tests: the classes separate what the rewritten values tell apart. */
static void
test_rewrites(void **state)
{
	(void)state;
	check(MANGLE_HDR "-A PREROUTING -p tcp --dport 80 -j TTL --ttl-dec 1\n"
			 "-A PREROUTING -m ttl --ttl-lt 2 -j DROP\n"
			 "-A FORWARD -p tcp -j TTL --ttl-inc 3\n"
			 "-A FORWARD -m ttl --ttl-eq 9 -j DROP\n"
			 "-A FORWARD -p tcp -j DSCP --set-dscp 0x0a\n"
			 "-A FORWARD -m dscp --dscp 0x0a -j ACCEPT\n"
			 "-A POSTROUTING -m tos --tos 0x08/0x0c -j DROP\n"
			 "COMMIT\n" FILTER_HDR "-A FORWARD -m ecn --ecn-ip-ect 1 -j DROP\n"
			 "-A FORWARD -m ttl --ttl-gt 250 -j DROP\nCOMMIT\n",
		16, 8);
	check(MANGLE_HDR "-A PREROUTING -j TTL --ttl-set 5\n"
			 "-A PREROUTING -m ttl --ttl-lt 2 -j DROP\n"
			 "-A PREROUTING -j TOS --set-tos 0x10/0x3f\n"
			 "-A PREROUTING -m tos --tos 0x10/0xff -j DROP\nCOMMIT\n",
		4, 4);
	/*
	 * A user chain's rewrite may run any number of times in a walk: its
	 * compositions (255 shifts) are more than kept, the TTL is not classed;
	 * another rewrite of one base chain runs once.
	 */
	check("*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	      ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:DEC - [0:0]\n"
	      "-A PREROUTING -j DEC\n-A FORWARD -j DEC\n-A DEC -j TTL --ttl-dec 1\n"
	      "-A POSTROUTING -m ttl --ttl-eq 3 -j DROP\nCOMMIT\n",
		0, 1);
	check(MANGLE_HDR "-A PREROUTING -j TTL --ttl-dec 1\n-A FORWARD -j TTL --ttl-dec 1\n"
			 "-A POSTROUTING -m ttl --ttl-eq 3 -j DROP\nCOMMIT\n",
		4, 1);
}

/*
 * Router mode: FORWARD and POSTROUTING see the TTL one less than received,
 * so their boundaries move up by one, PREROUTING's stay.
 */
static void
test_router(void **state)
{
	const char *text = MANGLE_HDR "-A PREROUTING -m ttl --ttl-eq 9 -j DROP\n"
				      "-A POSTROUTING -m ttl --ttl-eq 20 -j DROP\nCOMMIT\n" FILTER_HDR
				      "-A FORWARD -m ttl --ttl-lt 2 -j DROP\n"
				      "-A FORWARD -m ttl --ttl-eq 63 -j DROP\nCOMMIT\n";
	struct rule_set *s = parse(text);
	struct rule_fieldclasses fc;

	(void)state;
	/*
	 * The walk: received 0 and 1 expire, 2 and 64 are dropped in FORWARD,
	 * 21 in POSTROUTING, 9 in PREROUTING.
	 */
	for (unsigned int v = 0; v < 256; v++) {
		bool drop = v <= 2 || v == 64 || v == 21 || v == 9;

		assert_int_equal(walk(s, true, F_TTL, (int)v) != walk(s, true, F_TTL, 100), drop);
	}
	rule_set_field_classes(s, true, &fc);
	assert_int_not_equal(fc.ttl[2], fc.ttl[3]);
	assert_int_not_equal(fc.ttl[64], fc.ttl[65]);
	assert_int_not_equal(fc.ttl[21], fc.ttl[22]);
	assert_int_not_equal(fc.ttl[8], fc.ttl[9]);
	assert_int_not_equal(fc.ttl[1], fc.ttl[2]);
	assert_int_not_equal(walk(s, true, F_TTL, 1), walk(s, true, F_TTL, 2));
	rule_set_free(s);
	check_in(text, true, 16, 1);
	/* With the set's own rewrites around the decrement. */
	check_in(MANGLE_HDR "-A PREROUTING -p tcp -j TTL --ttl-set 2\n"
			    "-A FORWARD -m ttl --ttl-lt 2 -j DROP\n"
			    "-A FORWARD -p tcp -j TTL --ttl-inc 1\n"
			    "-A POSTROUTING -m ttl --ttl-eq 64 -j DROP\nCOMMIT\n",
		true, 16, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_rewrites),
		cmocka_unit_test(test_router),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
