/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules engine under a flood of spoofed SYNs into a full flow table
 * of established connections (issue 12), with conntrack and the evict
 * policy: established connections keep both their entries while the
 * flood's (connections not established: FC_ACT_F_EARLY; new flows the
 * rules drop, cached as drops) evict each other, and every packet of the
 * flood is decided, cached or not.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

#define TCP_SYN 0x02
#define TCP_ACK 0x10

/* Established connections: 10.0.x.y:(1024 + i) -> 192.168.0.1:80. */
#define EST_SRC 0x0a000000u
/* The flood: spoofed sources 100.64.0.0/10. */
#define SPOOF_SRC 0x64400000u
#define SERVER 0xc0a80001u

static struct rule_engine *
mk_engine(uint32_t cap)
{
	struct eng_stack_params p;
	struct rule_engine *eng;

	eng_stack_test_params(&p, cap, 64, true, 0);
	p.eng.full_policy = FC_FULL_EVICT_IDLE;
	eng = eng_stack_test_create(&p, "storm");
	eng_stack_load(eng,
		"accept ctstate established,related\n"
		"accept proto tcp dport 80 ctstate new\n"
		"policy drop\n",
		false);
	return eng;
}

/*
 * A packet as the RX lcore treats it: a hit the cached action decides
 * (counted on the entry), else the slow path. @return true on a hit.
 */
static bool
rx_hit(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	struct fc_table *t = rule_engine_table(eng, FC_AF_INET4);
	const void *keys[1] = { &u.pkt.key.v4 };
	uint32_t sig = fc_table_hash(t, &u.pkt.key.v4), idx;
	struct fc_action a;
	uint64_t hit;

	fc_table_lookup_bulk(t, 0, keys, &sig, 1, &hit, &a, &idx);
	if ((hit & 1) && !rule_engine_stale(eng, &a, &u.pkt.key) &&
		!rule_engine_wants(&a, &u.pkt) && a.verdict == FC_VERDICT_ACCEPT &&
		(!(a.interest & FC_INTEREST_TCP_WIN) ||
			mod_ct_fast_check(mod_ct_module_fast(eng_stack_ct(eng)), &a, &u.pkt))) {
		fc_table_touch(t, idx, u.len, now);
		return true;
	}
	(void)eng_stack_decide(eng, u, now);
	return false;
}

/* Connection @p i's three-way handshake at @p now. */
static void
handshake(struct rule_engine *eng, uint32_t i, uint32_t now)
{
	uint32_t c = EST_SRC + i;
	uint16_t cp = (uint16_t)(1024 + i);
	struct rule_decision d;

	d = eng_stack_decide(eng, eng_stack_seg4(c, cp, SERVER, 80, TCP_SYN, 1000, 0, 0), now);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_decide(eng,
		eng_stack_seg4(SERVER, 80, c, cp, TCP_SYN | TCP_ACK, 5000, 1001, 0), now);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	(void)rx_hit(eng, eng_stack_seg4(c, cp, SERVER, 80, TCP_ACK, 1001, 5001, 0), now);
}

/* Connection @p i's data both ways, on the fast path. */
static void
traffic(struct rule_engine *eng, uint32_t i, uint32_t now)
{
	uint32_t c = EST_SRC + i;
	uint16_t cp = (uint16_t)(1024 + i);

	assert_true(rx_hit(eng, eng_stack_seg4(c, cp, SERVER, 80, TCP_ACK, 1001, 5001, 0), now));
	assert_true(rx_hit(eng, eng_stack_seg4(SERVER, 80, c, cp, TCP_ACK, 5001, 1001, 0), now));
}

/* Both entries of every established connection are there. */
static void
assert_established(struct rule_engine *eng, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = EST_SRC + i;
		uint16_t cp = (uint16_t)(1024 + i);
		struct rule_upcall o = eng_stack_seg4(c, cp, SERVER, 80, TCP_ACK, 0, 0, 0);
		struct rule_upcall r = eng_stack_seg4(SERVER, 80, c, cp, TCP_ACK, 0, 0, 0);
		const struct fc_entry *e = eng_stack_entry(eng, &o.pkt.key);

		assert_non_null(e);
		assert_false(e->act.flags & FC_ACT_F_EARLY);
		assert_non_null(eng_stack_entry(eng, &r.pkt.key));
	}
}

/*
 * A table of 2,048 entries (one eviction scan sees 1,024) holding 1,000
 * established connections (2,000 entries) that send a packet each way every
 * 8 ticks, then 20,000 spoofed SYNs to port 80 (accepted: a connection in
 * SYN_SENT, two entries), 64 a tick, then as many to port 23 (dropped by
 * the policy, cached as drops): none of the established connections loses
 * an entry, every SYN is decided (accepted or dropped as the rules say)
 * and set up, the flood's entries evicting each other, and nothing is
 * refused.
 */
static void
test_syn_flood(void **state)
{
	enum { CAP = 2048, EST = 1000, FLOOD = 20000 };
	struct rule_engine *eng = mk_engine(CAP);
	struct rule_engine_stats st;
	struct fc_table_stats ts;
	uint32_t i, now = 1;

	(void)state;
	for (i = 0; i < EST; i++)
		handshake(eng, i, now);
	assert_established(eng, EST);
	for (unsigned int round = 0; round < 2; round++) {
		uint16_t dport = round == 0 ? 80 : 23;

		for (i = 0; i < FLOOD; i++) {
			struct rule_decision d;

			/*
			 * The rules lcore's background step: evicted connections'
			 * conntrack records come back there (max_tcp, 1,056 here,
			 * counts those waiting too), so it runs often enough for
			 * the flood's connections between two steps.
			 */
			if (i % 16 == 0)
				rule_engine_step(eng, now, 256);
			if (i % 64 == 0) {
				if ((++now % 8) == 0)
					for (uint32_t j = 0; j < EST; j++)
						traffic(eng, j, now);
			}
			d = eng_stack_decide(eng,
				eng_stack_seg4(SPOOF_SRC + round * FLOOD + i, (uint16_t)(2000 + i), SERVER,
					dport, TCP_SYN, 7, 0, 0),
				now);
			if (dport == 80) {
				assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
			} else {
				assert_int_equal(d.verdict, FC_VERDICT_DROP);
				assert_int_equal(d.drop, RULE_DROP_FILTER);
			}
			assert_true(d.flags & RULE_DEC_F_CACHED);
		}
		assert_established(eng, EST);
	}
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.table_full, 0);
	assert_int_equal(st.uncached, 0);
	fc_table_stats_get(rule_engine_table(eng, FC_AF_INET4), &ts);
	assert_int_equal(ts.refused, 0);
	assert_int_equal(ts.occupancy <= CAP, true);
	assert_true(ts.evictions >= FLOOD);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syn_flood),
	};
	int ret;

	if (gufc_test_eal_init("engine_storm", "0") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(ret);
}
