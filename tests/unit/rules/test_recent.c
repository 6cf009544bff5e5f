/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of "-m recent" lists (rule_recent_match()): set, rcheck,
 * update with --seconds and --hitcount, remove, reap, rttl, mask and
 * rdest, negation, the least recently used address giving way to the
 * 101st, the hits kept per address, lists by name, both families.
 * Time is given in ticks of 1 ms (hz 1000).
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

#define HZ 1000

enum { SET, RCHECK, UPDATE, REMOVE, SECONDS, REAP, HITCOUNT, RTTL, NAME, MASK, RSOURCE, RDEST };
#define B(i) (1u << (i))

static struct rule_x
rx(unsigned int given, const char *name, uint32_t seconds, uint32_t hitcount)
{
	struct rule_x x = {.kind = RULE_XM_RECENT, .given = (uint16_t)(given | B(NAME))};

	snprintf(x.u.recent.name, sizeof(x.u.recent.name), "%s", name);
	x.u.recent.seconds = seconds;
	x.u.recent.hitcount = hitcount;
	return x;
}

static struct rule_pkt
pkt(const char *key, uint8_t ttl)
{
	struct rule_pkt p;

	memset(&p, 0, sizeof(p));
	assert_int_equal(fc_key_parse(key, &p.key, NULL), 0);
	p.ttl = ttl;
	return p;
}

static const char *A = "tcp 10.1.0.2:1000 -> 10.9.0.2:22";
static const char *A2 = "tcp 10.1.0.2:1001 -> 10.9.0.3:22";
static const char *C = "tcp 10.1.0.3:1000 -> 10.9.0.2:22";

static void
test_brute_force(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET), "SSH", 0, 0);
	struct rule_x upd = rx(B(UPDATE) | B(SECONDS) | B(HITCOUNT), "SSH", 60, 4);
	struct rule_pkt a = pkt(A, 64), c = pkt(C, 64);
	uint64_t t = 1000 * HZ;

	(void)state;
	assert_non_null(rr);
	/* Three connections: three hits, not yet four. */
	for (int i = 0; i < 3; i++, t += HZ) {
		assert_int_equal(rule_recent_match(rr, &set, &a, t, HZ), 1);
		assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 0);
	}
	/* Another source has its own entry. */
	assert_int_equal(rule_recent_match(rr, &set, &c, t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &upd, &c, t, HZ), 0);
	/* The fourth within 60 s: a match, and --update stamps it again. */
	assert_int_equal(rule_recent_match(rr, &set, &a, t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 1);
	/* 59 s later (t = 1062 s), the stamps of 1000 and 1001 s are older
	 * than 60 s: three hits (1002, 1003, 1003) of four. */
	t += 59 * HZ;
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 0);
	/* One more connection makes four again. */
	assert_int_equal(rule_recent_match(rr, &set, &a, t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 1);
	/* 70 s later, none is in time; a check that fails does not stamp. */
	t += 70 * HZ;
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 0);
	rule_recent_free(rr);
}

/* A --hitcount above ip_pkt_list_tot (20), as TUM's SSH rules use (41): the
 * list keeps enough hits, and the 41st within --seconds matches, not the
 * 40th. The oldest hits beyond the 255 kept roll off. */
static void
test_large_hitcount(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET), "SSH", 0, 0);
	struct rule_x upd = rx(B(UPDATE) | B(SECONDS) | B(HITCOUNT), "SSH", 60, 41);
	struct rule_x max = rx(B(RCHECK) | B(HITCOUNT), "SSH", 0, 255);
	struct rule_pkt a = pkt(A, 64);
	uint64_t t = 1000 * HZ;

	(void)state;
	assert_non_null(rr);
	for (int i = 0; i < 40; i++, t += 10) {
		assert_int_equal(rule_recent_match(rr, &set, &a, t, HZ), 1);
		assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 0);
	}
	assert_int_equal(rule_recent_match(rr, &set, &a, t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &upd, &a, t, HZ), 1);
	/* 42 hits now (the update stamped one); 255 needs 213 more. */
	assert_int_equal(rule_recent_match(rr, &max, &a, t, HZ), 0);
	for (int i = 0; i < 212; i++)
		assert_int_equal(rule_recent_match(rr, &set, &a, ++t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &max, &a, t, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &set, &a, ++t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &max, &a, t, HZ), 1);
	/* More hits keep the newest 255: still a match. */
	assert_int_equal(rule_recent_match(rr, &set, &a, ++t, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &max, &a, t, HZ), 1);
	rule_recent_free(rr);
}

static void
test_check_remove_neg(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET), "L", 0, 0);
	struct rule_x chk = rx(B(RCHECK), "L", 0, 0);
	struct rule_x nchk = rx(B(RCHECK), "L", 0, 0);
	struct rule_x rem = rx(B(REMOVE), "L", 0, 0);
	struct rule_x other = rx(B(RCHECK), "M", 0, 0);
	struct rule_pkt a = pkt(A, 64);

	(void)state;
	nchk.neg = B(RCHECK);
	assert_int_equal(rule_recent_match(rr, &chk, &a, 1, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &nchk, &a, 1, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &rem, &a, 1, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &set, &a, 2, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &chk, &a, 3, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &nchk, &a, 3, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &other, &a, 3, HZ), 0); /* another list */
	assert_int_equal(rule_recent_match(rr, &rem, &a, 4, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &chk, &a, 5, HZ), 0);
	rule_recent_free(rr);
}

static void
test_mask_rdest_ttl(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET) | B(RDEST) | B(MASK), "D", 0, 0);
	struct rule_x chk = rx(B(RCHECK) | B(RDEST) | B(MASK), "D", 0, 0);
	struct rule_x src = rx(B(RCHECK), "D", 0, 0);
	struct rule_x ttl = rx(B(RCHECK) | B(RTTL), "T", 0, 0);
	struct rule_x tset = rx(B(SET), "T", 0, 0);
	struct rule_pkt a = pkt(A, 64), a2 = pkt(A2, 64), c = pkt(C, 64), a63 = pkt(A, 63);

	(void)state;
	memset(set.u.recent.mask, 0xff, 3);
	memset(chk.u.recent.mask, 0xff, 3);
	assert_int_equal(rule_recent_match(rr, &set, &a, 1, HZ), 1);
	/* 10.9.0.3 is under 10.9.0.0/24 as the destination; 10.1.0.2 as a source is not there. */
	assert_int_equal(rule_recent_match(rr, &chk, &a2, 2, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &chk, &c, 2, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &src, &a, 2, HZ), 0);
	/* --rttl: the TTL the address was set with. */
	assert_int_equal(rule_recent_match(rr, &tset, &a, 3, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &ttl, &a, 4, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &ttl, &a63, 4, HZ), 0);
	rule_recent_free(rr);
}

static void
test_lru_stamps_reap(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET), "R", 0, 0);
	struct rule_x chk = rx(B(RCHECK), "R", 0, 0);
	struct rule_x hit20 = rx(B(RCHECK) | B(HITCOUNT), "R", 0, 20);
	struct rule_x reap = rx(B(RCHECK) | B(SECONDS) | B(REAP), "R", 10, 0);
	char key[64];
	struct rule_pkt p;
	uint64_t t = 1;

	(void)state;
	/* 101 addresses: the least recently set one (10.0.0.1, not 10.0.0.0,
	 * which is set again) gives way. */
	for (int i = 0; i < RULE_RECENT_ENTRIES; i++) {
		snprintf(key, sizeof(key), "udp 10.0.0.%d:1 -> 10.9.9.9:2", i);
		p = pkt(key, 64);
		assert_int_equal(rule_recent_match(rr, &set, &p, t++, HZ), 1);
	}
	p = pkt("udp 10.0.0.0:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &set, &p, t++, HZ), 1);
	p = pkt("udp 10.0.1.0:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &set, &p, t++, HZ), 1);
	p = pkt("udp 10.0.0.1:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &chk, &p, t, HZ), 0);
	p = pkt("udp 10.0.0.0:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &chk, &p, t, HZ), 1);
	/* 20 hits kept: 10.0.0.0 has 2; 18 more make 20, more stay 20. */
	assert_int_equal(rule_recent_match(rr, &hit20, &p, t, HZ), 0);
	for (int i = 0; i < 25; i++)
		assert_int_equal(rule_recent_match(rr, &set, &p, t++, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &hit20, &p, t, HZ), 1);
	/* --reap: 20 s on, the oldest address (10.0.0.2) goes; a check of
	 * 10.0.0.0 (stamped 20 s ago, older than --seconds) finds it but not
	 * in time. */
	t += 20 * HZ;
	assert_int_equal(rule_recent_match(rr, &reap, &p, t, HZ), 0);
	p = pkt("udp 10.0.0.2:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &chk, &p, t, HZ), 0);
	p = pkt("udp 10.0.0.3:1 -> 10.9.9.9:2", 64);
	assert_int_equal(rule_recent_match(rr, &chk, &p, t, HZ), 1);
	rule_recent_free(rr);
}

static void
test_families(void **state)
{
	struct rule_recent *rr = rule_recent_new();
	struct rule_x set = rx(B(SET), "F", 0, 0);
	struct rule_x chk = rx(B(RCHECK), "F", 0, 0);
	struct rule_pkt v6 = pkt("tcp [2001:db8::1]:1000 -> [2001:db8::2]:22", 64);
	struct rule_pkt v6b = pkt("tcp [2001:db8::3]:1000 -> [2001:db8::2]:22", 64);
	struct rule_pkt v4 = pkt(A, 64);

	(void)state;
	assert_int_equal(rule_recent_match(rr, &set, &v6, 1, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &chk, &v6, 2, HZ), 1);
	assert_int_equal(rule_recent_match(rr, &chk, &v6b, 2, HZ), 0);
	assert_int_equal(rule_recent_match(rr, &chk, &v4, 2, HZ), 0);
	rule_recent_free(rr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_check_remove_neg),
		cmocka_unit_test(test_large_hitcount),
		cmocka_unit_test(test_mask_rdest_ttl),
		cmocka_unit_test(test_lru_stamps_reap),
		cmocka_unit_test(test_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
