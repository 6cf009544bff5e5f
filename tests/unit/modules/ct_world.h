/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/ct_world.h — the engine the conntrack helper tests
 * (test_ct_helper.c, test_ct_udp.c) send their frames through: conntrack
 * and NAT on a small flow table, masquerade to MASQ, a rule set in the
 * native language, and the way a frame goes through it (world_rx()).
 * Include after cmocka.h, eng_stack.h and rule_lang.h.
 */
#ifndef GUFC_TEST_CT_WORLD_H
#define GUFC_TEST_CT_WORLD_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#define MASQ 0xc6336401u /* 198.51.100.1: the masquerade address */
#define FRAME_MAX 1024

struct world {
	struct rule_engine *eng;
	struct mod_ct_module *ct;
	uint32_t now;
	uint8_t frame[FRAME_MAX]; /* the last frame as it left */
	uint32_t len;
	bool fast;                /* the last frame took the fast path */
};

static int
masq_addr(void *arg, uint16_t port, uint16_t in_port, uint8_t family, uint8_t *addr)
{
	uint32_t a = htonl(MASQ);

	(void)arg;
	(void)port;
	(void)in_port;
	if (family != FC_AF_INET4)
		return -EAFNOSUPPORT;
	memcpy(addr, &a, 4);
	return 0;
}

/* A new engine (its own name) with conntrack, NAT and @p rules committed. */
static void
world_up(struct world *w, const char *rules)
{
	struct eng_stack_params p;

	memset(w, 0, sizeof(*w));
	eng_stack_test_params(&p, 256, 64, true, 64);
	p.nat_seed = 0;
	p.port_addr_fn = masq_addr;
	w->eng = eng_stack_test_create(&p, "ctw");
	w->ct = eng_stack_ct(w->eng);
	assert_non_null(w->ct);
	assert_int_equal(rule_engine_reader_register(w->eng, 0), 0);
	eng_stack_load(w->eng, rules, false);
	w->now = 1000;
	rule_engine_step(w->eng, w->now, 16);
}

/*
 * The frame in w->frame (w->len bytes) as lib/datapath treats it: decided
 * by its cached entry where that may decide (the conntrack window check
 * included), NAT applied in place; otherwise an upcall, and for an accepted
 * one NAT and then the helper's rewrite applied on an mbuf of @p mp, as the
 * slow path does. The frame as it left stays in w->frame (w->len), w->fast
 * says whether the cached entry decided; w->now moves on by one.
 */
static struct rule_decision
world_rx(struct world *w, struct rte_mempool *mp)
{
	struct fc_table *t = rule_engine_table(w->eng, FC_AF_INET4);
	struct rule_upcall up;
	struct rule_decision d;
	struct fc_action a;
	struct rte_mbuf *m;
	uint64_t hit = 0;
	uint32_t sig, idx;
	const void *key;
	uint8_t *data;

	w->now++;
	w->fast = false;
	memset(&up, 0, sizeof(up));
	assert_int_equal(fc_parse(w->frame, w->len, &up.pkt), FC_PARSE_OK);
	key = &up.pkt.key.v4;
	sig = fc_table_hash(t, key);
	fc_table_lookup_bulk(t, 0, &key, &sig, 1, &hit, &a, &idx);
	up.reason = RULE_UPCALL_MISS;
	if (hit & 1) {
		up.reason = RULE_UPCALL_INTEREST;
		if (!rule_engine_stale(w->eng, &a, &up.pkt.key) && a.verdict != FC_VERDICT_SLOW &&
			!rule_engine_wants(&a, &up.pkt) &&
			(!(a.interest & FC_INTEREST_TCP_WIN) ||
				mod_ct_fast_check(mod_ct_module_fast(w->ct), &a, &up.pkt))) {
			memset(&d, 0, sizeof(d));
			d.verdict = a.verdict;
			d.rule_id = a.rule_id;
			d.nat_slot = (a.flags & FC_ACT_F_NAT) ? a.nat_id : RULE_NAT_NONE;
			w->fast = true;
			if (d.verdict == FC_VERDICT_ACCEPT && d.nat_slot != RULE_NAT_NONE)
				assert_int_equal(mod_nat_apply(eng_stack_nat(w->eng), d.nat_slot,
							 w->frame + up.pkt.l3_off,
							 w->len - up.pkt.l3_off, &up.pkt),
					0);
			return d;
		}
	}
	up.frame = w->frame;
	up.frame_len = w->len;
	up.len = w->len;
	up.in_port = 0;
	assert_int_equal(rule_engine_upcall_burst(w->eng, &up, 1, &d, w->now), 1);
	if (d.verdict != FC_VERDICT_ACCEPT)
		return d;
	/* The slow path's application: NAT, then the helper's rewrite, on an mbuf. */
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	data = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)w->len);
	memcpy(data, w->frame, w->len);
	if (d.nat_slot != RULE_NAT_NONE)
		assert_int_equal(mod_nat_apply(eng_stack_nat(w->eng), d.nat_slot,
					 data + up.pkt.l3_off, w->len - up.pkt.l3_off, &up.pkt),
			0);
	assert_int_equal(mod_ct_module_mangle(w->ct, m, &up.pkt), 0);
	w->len = rte_pktmbuf_data_len(m);
	assert_true(w->len <= FRAME_MAX);
	memcpy(w->frame, rte_pktmbuf_mtod(m, uint8_t *), w->len);
	rte_pktmbuf_free(m);
	return d;
}

static bool
accepted(struct rule_decision d)
{
	return d.verdict == FC_VERDICT_ACCEPT;
}

/* A big-endian 32-bit number at @p p. */
static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
world_down(struct world *w)
{
	rule_engine_reader_unregister(w->eng, 0);
	eng_stack_free(w->eng);
}

#endif /* GUFC_TEST_CT_WORLD_H */
