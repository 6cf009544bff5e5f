/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/ct_world.h — the engine the conntrack helper tests
 * (test_ct_helper.c, test_ct_udp.c) send their frames through: conntrack
 * and NAT on a small flow table, masquerade to MASQ, a rule set in the
 * native language. Include after cmocka.h, eng_stack.h and rule_lang.h.
 */
#ifndef GUFC_TEST_CT_WORLD_H
#define GUFC_TEST_CT_WORLD_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
	static int seq;
	struct eng_stack_params p;
	struct rule_error err;
	struct rule_set *s;
	char name[16];

	memset(w, 0, sizeof(*w));
	memset(&p, 0, sizeof(p));
	snprintf(name, sizeof(name), "ctw%d", seq++);
	p.eng.name = name;
	p.eng.capacity_v4 = 256;
	p.eng.capacity_v6 = 64;
	p.eng.full_policy = FC_FULL_REFUSE;
	p.eng.default_channel = 1;
	p.conntrack = true;
	p.nat_bindings = 64;
	p.port_addr_fn = masq_addr;
	w->eng = eng_stack_create(&p);
	assert_non_null(w->eng);
	w->ct = eng_stack_ct(w->eng);
	assert_non_null(w->ct);
	assert_int_equal(rule_engine_reader_register(w->eng, 0), 0);
	s = rule_set_parse(rules, "test", &err);
	if (s == NULL)
		fail_msg("%s:%u:%u: %s", err.file, err.line, err.col, err.msg);
	assert_int_equal(rule_engine_commit(w->eng, s), 0);
	w->now = 1000;
	rule_engine_step(w->eng, w->now, 16);
}

static void
world_down(struct world *w)
{
	rule_engine_reader_unregister(w->eng, 0);
	eng_stack_free(w->eng);
}

#endif /* GUFC_TEST_CT_WORLD_H */
