/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m hashlimit" tables (rule_hashlimit_match()): a bucket
 * per --hashlimit-mode key (srcip under srcmask, dstport, none), upto and
 * above, the burst, refill at the rate, --hashlimit-htable-max (a new key
 * refused), expiry by the sweep, tables by name and family, settings of
 * the first match, dropping tables and recent lists no rule names.
 * Time is given in ticks of 1 ms (hz 1000).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rule_lang.h"
#include "rules.h"

#define HZ 1000

enum { UPTO, ABOVE, BURST, MODE, SRCMASK, DSTMASK, NAME, SIZE, MAX, GCINTERVAL, EXPIRE };
#define B(i) (1u << (i))

static struct rule_x
hx(const char *name, bool above, uint32_t rate, uint32_t burst, unsigned int mode)
{
	struct rule_x x = {.kind = RULE_XM_HASHLIMIT,
		.given = (uint16_t)(B(above ? ABOVE : UPTO) | B(BURST) | B(NAME) |
				    (mode != 0 ? B(MODE) : 0))};

	snprintf(x.u.hashlimit.name, sizeof(x.u.hashlimit.name), "%s", name);
	x.u.hashlimit.rate = rate;
	x.u.hashlimit.unit = RULE_RATE_SEC;
	x.u.hashlimit.burst = burst;
	x.u.hashlimit.mode = (uint8_t)mode;
	return x;
}

static struct rule_pkt
pkt(const char *key)
{
	struct rule_pkt p;

	memset(&p, 0, sizeof(p));
	assert_int_equal(fc_key_parse(key, &p.key, NULL), 0);
	return p;
}

static void
test_upto_burst_refill(void **state)
{
	struct rule_hashlimit *h = rule_hashlimit_new();
	struct rule_x x = hx("web", false, 1, 3, RULE_HL_SRCIP);
	struct rule_pkt a = pkt("tcp 10.1.0.2:1000 -> 10.9.0.2:80");
	struct rule_pkt a2 = pkt("tcp 10.1.0.2:1001 -> 10.9.0.3:443");
	struct rule_pkt c = pkt("tcp 10.1.0.3:1000 -> 10.9.0.2:80");
	uint64_t t = 5000;

	(void)state;
	assert_non_null(h);
	/* A full bucket of 3: three packets (any ports, any destination) pass. */
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &a2, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t, HZ), 0);
	/* Another source has its own bucket. */
	assert_int_equal(rule_hashlimit_match(h, &x, &c, t, HZ), 1);
	/* 999 ms: no token yet; 1 s: one. */
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t + 999, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t + 1000, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, t + 1000, HZ), 0);
	rule_hashlimit_free(h);
}

static void
test_above_mask_ports(void **state)
{
	struct rule_hashlimit *h = rule_hashlimit_new();
	struct rule_x x = hx("net", true, 1, 1, RULE_HL_SRCIP);
	struct rule_x d = hx("port", false, 1, 1, RULE_HL_DSTPORT);
	struct rule_x all = hx("all", false, 1, 2, 0);
	struct rule_pkt a = pkt("udp 10.1.0.2:1000 -> 10.9.0.2:53");
	struct rule_pkt b = pkt("udp 10.1.0.77:1000 -> 10.9.0.2:54");
	struct rule_pkt o = pkt("udp 10.1.1.2:1000 -> 10.9.0.2:53");
	struct rule_pkt i1 = pkt("icmp 10.1.0.2:1 -> 10.9.0.2:1");
	struct rule_pkt i2 = pkt("icmp 10.1.0.2:2 -> 10.9.0.2:2");

	(void)state;
	x.given |= B(SRCMASK);
	x.u.hashlimit.srcmask = 24;
	/* --hashlimit-above: no match while under the rate. */
	assert_int_equal(rule_hashlimit_match(h, &x, &a, 0, HZ), 0);
	/* 10.1.0.77 is in the same /24: over. */
	assert_int_equal(rule_hashlimit_match(h, &x, &b, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &o, 0, HZ), 0);
	/* dstport: 53 and 54 apart; ICMP has no ports: one bucket for both ids. */
	assert_int_equal(rule_hashlimit_match(h, &d, &a, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &d, &b, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &d, &o, 0, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &d, &i1, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &d, &i2, 0, HZ), 0);
	/* No mode: one bucket for every packet. */
	assert_int_equal(rule_hashlimit_match(h, &all, &a, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &all, &i1, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &all, &o, 0, HZ), 0);
	rule_hashlimit_free(h);
}

static void
test_max_expire(void **state)
{
	struct rule_hashlimit *h = rule_hashlimit_new();
	struct rule_x x = hx("m", false, 10, 1, RULE_HL_SRCIP);
	struct rule_pkt a = pkt("tcp 10.1.0.2:1000 -> 10.9.0.2:80");
	struct rule_pkt b = pkt("tcp 10.1.0.3:1000 -> 10.9.0.2:80");
	struct rule_pkt c = pkt("tcp 10.1.0.4:1000 -> 10.9.0.2:80");
	struct rule_hashlimit_info info;

	(void)state;
	x.given |= B(MAX) | B(EXPIRE) | B(GCINTERVAL) | B(SIZE);
	x.u.hashlimit.max = 2;
	x.u.hashlimit.size = 4;
	x.u.hashlimit.expire = 3000;
	x.u.hashlimit.gcinterval = 1000;
	assert_int_equal(rule_hashlimit_match(h, &x, &a, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &b, 500, HZ), 1);
	/* Two buckets of two: a third key is refused (netfilter drops it). */
	assert_int_equal(rule_hashlimit_match(h, &x, &c, 600, HZ), -ENOSPC);
	assert_int_equal(rule_hashlimit_info(h, 0, &info), 0);
	assert_int_equal(info.buckets, 2);
	assert_int_equal(info.cfg.max, 2);
	assert_int_equal(info.cfg.srcmask, 32);
	/* b keeps itself alive (the sweep at 2.9 s finds none 3 s old); a's
	 * last packet was at 0: gone at the next sweep, 1 s later. */
	assert_int_equal(rule_hashlimit_match(h, &x, &b, 2900, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &x, &c, 3800, HZ), -ENOSPC);
	assert_int_equal(rule_hashlimit_match(h, &x, &c, 3900, HZ), 1);
	assert_int_equal(rule_hashlimit_info(h, 0, &info), 0);
	assert_int_equal(info.buckets, 2);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, 3901, HZ), -ENOSPC);
	assert_int_equal(rule_hashlimit_info(h, 1, &info), -ENOENT);
	rule_hashlimit_free(h);
}

static void
test_tables_prune(void **state)
{
	struct rule_hashlimit *h = rule_hashlimit_new();
	struct rule_x x = hx("t", false, 1, 1, RULE_HL_SRCIP);
	struct rule_x y = hx("t", false, 1, 5, RULE_HL_SRCIP);
	struct rule_pkt a = pkt("tcp 10.1.0.2:1000 -> 10.9.0.2:80");
	struct rule_pkt a6 = pkt("tcp [2001:db8::1]:1000 -> [2001:db8::2]:80");
	struct rule_hashlimit_info info;
	struct rule_recent *rr = rule_recent_new();
	struct rule_x rs = {.kind = RULE_XM_RECENT, .given = 1};

	(void)state;
	/* The table of "t" is made by x (burst 1); y names it too and shares it. */
	assert_int_equal(rule_hashlimit_match(h, &x, &a, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &y, &a, 0, HZ), 0);
	/* IPv6 has a table of its own, made by y. */
	assert_int_equal(rule_hashlimit_match(h, &y, &a6, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &y, &a6, 0, HZ), 1);
	assert_int_equal(rule_hashlimit_info(h, 1, &info), 0);
	assert_int_equal(info.family, FC_AF_INET6);
	assert_int_equal(info.cfg.burst, 5);
	assert_int_equal(info.cfg.srcmask, 128);
	/* No rule names them: both go. */
	assert_int_equal(rule_hashlimit_load(h, NULL, 0, HZ), 2);
	assert_int_equal(rule_hashlimit_info(h, 0, &info), -ENOENT);
	assert_int_equal(rule_hashlimit_match(h, &x, &a, 0, HZ), 1);
	rule_hashlimit_free(h);
	/* Recent lists likewise. */
	snprintf(rs.u.recent.name, sizeof(rs.u.recent.name), "L");
	assert_int_equal(rule_recent_match(rr, &rs, &a, 1, HZ), 1);
	assert_int_equal(rule_recent_prune(rr, NULL), 1);
	assert_int_equal(rule_recent_prune(rr, NULL), 0);
	rule_recent_free(rr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upto_burst_refill),
		cmocka_unit_test(test_above_mask_ports),
		cmocka_unit_test(test_max_expire),
		cmocka_unit_test(test_tables_prune),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
