/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m hashlimit" tables (rule_hashlimit_match()): a bucket
 * per --hashlimit-mode key (srcip under srcmask, dstport, none), upto and
 * above, the burst, refill at the rate, --hashlimit-htable-max (a new key
 * refused), expiry by the sweep, tables by name and family, settings of
 * the first match, dropping tables and recent lists no rule names; byte
 * rates as netfilter's byte mode (16-byte chunks, a second's credit, the
 * burst as whole refills), their iptables text read and written back.
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

/* A byte-rate match: @p rate bytes per second, @p burst bytes (0: none). */
static struct rule_x
hxb(const char *name, bool above, uint32_t rate, uint32_t burst)
{
	struct rule_x x = hx(name, above, rate, burst, 0);

	x.u.hashlimit.unit = RULE_RATE_BYTES;
	if (burst == 0)
		x.given &= (uint16_t)~B(BURST);
	return x;
}

static struct rule_pkt
pkt_len(const char *key, uint16_t len)
{
	struct rule_pkt p = pkt(key);

	p.l3_len = len;
	return p;
}

static void
test_bytes(void **state)
{
	struct rule_hashlimit *h = rule_hashlimit_new();
	struct rule_x k1 = hxb("k1", false, 1024, 0);
	struct rule_x tiny = hxb("tiny", false, 16, 0);
	struct rule_x b = hxb("b", false, 1024, 2048);
	struct rule_x ab = hxb("ab", true, 1024, 0);
	struct rule_pkt p84 = pkt_len("udp 10.1.0.2:1 -> 10.9.0.2:53", 84);
	struct rule_pkt big = pkt_len("udp 10.1.0.2:1 -> 10.9.0.2:53", 1500);
	struct rule_hashlimit_info info;
	uint64_t t = 5000;
	int i;

	(void)state;
	assert_non_null(h);
	/*
	 * 1kb/s: a second's credit is 65 chunks of 16 bytes; 84 bytes cost 6:
	 * ten pass, the eleventh finds 5 left. 16 ms later a chunk more (1 kb/s
	 * is 1.04 chunks per 16 ms): it passes; 15 ms would not do.
	 */
	for (i = 0; i < 10; i++)
		assert_int_equal(rule_hashlimit_match(h, &k1, &p84, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &k1, &p84, t, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &k1, &p84, t + 15, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &k1, &p84, t + 16, HZ), 1);
	/* A packet costs at most the whole credit: 1500 bytes pass 16b/s once a second. */
	assert_int_equal(rule_hashlimit_match(h, &tiny, &big, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &tiny, &big, t + 999, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &tiny, &big, t + 1999, HZ), 1);
	/* Burst 2kb of 1kb/s: two whole refills when the credit runs short, never given back. */
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t + 1000, HZ), 1);
	assert_int_equal(rule_hashlimit_match(h, &b, &big, t + 1000, HZ), 0);
	/* --hashlimit-above: matches over the rate. */
	assert_int_equal(rule_hashlimit_match(h, &ab, &big, t, HZ), 0);
	assert_int_equal(rule_hashlimit_match(h, &ab, &big, t, HZ), 1);
	/* The table's settings: refills, and iptables' default expiry (15 s, 60 s with a burst). */
	for (unsigned int n = 0; rule_hashlimit_info(h, n, &info) == 0; n++) {
		if (strcmp(info.name, "b") == 0) {
			assert_int_equal(info.cfg.unit, RULE_RATE_BYTES);
			assert_int_equal(info.cfg.burst, 2);
			assert_int_equal(info.cfg.expire, 60000);
		} else if (strcmp(info.name, "k1") == 0) {
			assert_int_equal(info.cfg.burst, 0);
			assert_int_equal(info.cfg.expire, 15000);
		}
	}
	rule_hashlimit_free(h);
}

/* Byte rates and bursts in iptables text: read, written back as read, native too. */
static void
test_bytes_text(void **state)
{
	static const char *const rules[] = {
		"-A FORWARD -m hashlimit --hashlimit-upto 10kb/s --hashlimit-name \"ra\" -j ACCEPT",
		"-A FORWARD -m hashlimit --hashlimit-upto 1500kb/s --hashlimit-burst 3mb "
		"--hashlimit-mode srcip --hashlimit-name \"rb\" -j ACCEPT",
		"-A FORWARD -m hashlimit --hashlimit-above 100b/s --hashlimit-burst 200b "
		"--hashlimit-name \"rc\" -j DROP",
		"-A FORWARD -m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 5 "
		"--hashlimit-name \"rd\" -j ACCEPT",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char text[512], out[4096], native[4096], out2[4096];
		struct rule_error err;
		struct rule_set *s, *back;

		snprintf(text, sizeof(text),
			"*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
			"%s\nCOMMIT\n", rules[i]);
		s = rule_set_parse_iptables(text, "t", &err);
		if (s == NULL)
			fail_msg("%s: %s '%s'", rules[i], err.msg, err.token);
		assert_true(rule_set_format_iptables(s, FC_AF_INET4, out, sizeof(out)) > 0);
		if (strstr(out, rules[i]) == NULL)
			fail_msg("written as:\n%s\nnot:\n%s", out, rules[i]);
		assert_true(rule_set_format(s, native, sizeof(native)) > 0);
		back = rule_set_parse(native, "n", &err);
		if (back == NULL)
			fail_msg("native %s: %s '%s'", native, err.msg, err.token);
		assert_true(rule_set_format_iptables(back, FC_AF_INET4, out2, sizeof(out2)) > 0);
		assert_string_equal(out, out2);
		rule_set_free(back);
		rule_set_free(s);
	}
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
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bytes_text),
		cmocka_unit_test(test_max_expire),
		cmocka_unit_test(test_tables_prune),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
