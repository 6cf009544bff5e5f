/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAT table unit tests, the choices Linux makes for a source that must
 * change or may stay: the port classes of a search without a range
 * (1..511, 600..1023, 1024..65535), the null binding of a connection whose
 * tuple a translated one holds (mod_nat_bind_clash()), and SNAT and
 * MASQUERADE giving a connection from the source of a live binding that
 * binding's translated source again. Keys are built directly (no frames:
 * the rewrite itself is test_nat.c's); pure, runs under the sanitizers.
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

#include "nat_test.h"

/* The source address of @p k is @p want. */
static void
assert_src(const struct fc_key *k, const char *want)
{
	assert_addr(key_src(k), k->family, want);
}

/* Two connections from one client port to one DNAT target: the second is remapped in class. */
static void
test_port_classes(void **state)
{
	static const struct {
		uint16_t port, lo, hi;
	} cls[] = {
		{1, 1, 511}, {80, 1, 511}, {511, 1, 511}, {512, 600, 1023}, {599, 600, 1023},
		{700, 600, 1023}, {1023, 600, 1023}, {1024, 1024, 65535}, {65535, 1024, 65535},
	};
	struct mod_nat *nat = nat_new(64);
	struct rule_nat dn = target(4, "10.0.0.5", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct fc_key k;
	char client[32];

	(void)state;
	for (unsigned int i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		snprintf(client, sizeof(client), "198.51.100.%u", i + 1);
		k = key(4, P_TCP, client, cls[i].port, "192.0.2.1", 443);
		assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
		assert_int_equal(key_sport(&a.fwd), cls[i].port); /* free: kept, class or not */
		k = key(4, P_TCP, client, cls[i].port, "192.0.2.2", 443);
		assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &b), 0);
		assert_true(b.flags & MOD_NAT_F_REMAPPED);
		assert_in_range(key_sport(&b.fwd), cls[i].lo, cls[i].hi);
	}
	mod_nat_free(nat);
}

/* The null binding: nothing without a clash, a remap with one, none for portless protocols. */
static void
test_null_binding(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat dn = target(4, "10.0.0.5", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct mod_nat_stats st;
	struct fc_key k;
	char buf[4096];
	FILE *f;

	(void)state;
	/* No bindings at all: nothing to look at. */
	k = key(4, P_TCP, "198.51.100.7", 40000, "10.0.0.5", 80);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), -EALREADY);

	/* A client's DNAT'd connection, then the same client port straight to the target. */
	k = key(4, P_TCP, "198.51.100.7", 40000, "192.0.2.1", 80);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
	k = key(4, P_TCP, "198.51.100.7", 40001, "10.0.0.5", 80);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), -EALREADY); /* another port: free */
	k = key(4, P_TCP, "198.51.100.7", 40000, "10.0.0.5", 80);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), 0);
	assert_int_equal(b.flags, MOD_NAT_F_CLASH | MOD_NAT_F_REMAPPED);
	assert_src(&b.fwd, "198.51.100.7");
	assert_in_range(key_sport(&b.fwd), 1024, 65535);
	assert_int_not_equal(key_sport(&b.fwd), 40000);
	assert_int_equal(ntohs(fc_key_dport(&b.fwd)), 80);
	assert_memory_equal(fc_key_dst(&b.fwd), fc_key_dst(&k), 4);
	/* now taken in turn: a third one gets yet another port */
	{
		struct mod_nat_binding_result c;

		assert_int_equal(mod_nat_bind_clash(nat, &k, &c), 0);
		assert_int_not_equal(key_sport(&c.fwd), key_sport(&b.fwd));
		assert_int_equal(mod_nat_unbind(nat, c.binding), 0);
		assert_int_equal(mod_nat_release(nat, c.binding), 0);
	}

	/* A reply tuple that is a binding's original tuple clashes too. */
	k = key(4, P_UDP, "10.0.0.9", 500, "192.0.2.1", 53);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
	k = key(4, P_UDP, "192.0.2.1", 53, "10.0.0.9", 500);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), 0);
	assert_in_range(key_sport(&b.fwd), 1, 511);

	/* ICMP echo: the identifier over 0..65535. */
	k = key(4, P_ICMP, "198.51.100.7", 7, "192.0.2.1", 0);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
	k = key(4, P_ICMP, "198.51.100.7", 7, "10.0.0.5", 0);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), 0);
	assert_int_not_equal(key_sport(&b.fwd), 7);
	assert_int_equal(key_dport(&b.fwd), 8 << 8); /* the type and code stay */

	/* GRE: no port to change; the caller's insert clashes. */
	k = key(4, P_GRE, "198.51.100.7", 0, "192.0.2.1", 0);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
	k = key(4, P_GRE, "198.51.100.7", 0, "10.0.0.5", 0);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), -EPROTONOSUPPORT);

	assert_int_equal(mod_nat_bind_clash(NULL, &k, &b), -EINVAL);
	assert_int_equal(mod_nat_bind_clash(nat, NULL, &b), -EINVAL);
	assert_int_equal(mod_nat_bind_clash(nat, &k, NULL), -EINVAL);

	mod_nat_stats_get(nat, &st);
	assert_int_equal(st.remapped, 4);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_true(mod_nat_dump(nat, f) > 0);
	fclose(f);
	assert_non_null(strstr(buf, "[remapped,clash]"));
	mod_nat_free(nat);
}

/* SNAT to a range: a live binding's mapping for the same source address and port. */
static void
test_snat_by_source(void **state)
{
	struct mod_nat *nat = nat_new(64);
	struct rule_nat sn = target(4, "203.0.113.1", "203.0.113.30", 0, 0);
	struct rule_nat rnd = sn;
	struct rule_nat sp = target(4, "203.0.113.40", "203.0.113.70", 20000, 20999);
	struct mod_nat_binding_result a, b;
	struct fc_key k;
	char dst[32];
	unsigned int moved = 0;

	(void)state;
	k = key(4, P_TCP, "10.2.0.5", 41000, "198.51.100.11", 443);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &a), 0);
	/* Every other destination: the same address and port. */
	for (unsigned int i = 12; i < 40; i++) {
		snprintf(dst, sizeof(dst), "198.51.100.%u", i);
		k = key(4, P_TCP, "10.2.0.5", 41000, dst, 443);
		assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &b), 0);
		assert_memory_equal(fc_key_src(&b.fwd), fc_key_src(&a.fwd), 4);
		assert_int_equal(key_sport(&b.fwd), 41000);
	}
	/* Another source port: its own hash, so addresses spread again. */
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(dst, sizeof(dst), "198.51.100.%u", 100 + i);
		k = key(4, P_TCP, "10.2.0.5", 41001, dst, 443);
		assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &b), 0);
		moved += memcmp(fc_key_src(&b.fwd), fc_key_src(&a.fwd), 4) != 0;
	}
	assert_true(moved > 0);

	/* --random: no reuse, the port is drawn (a different address is likely too). */
	rnd.flags = RULE_NAT_F_RANDOM;
	moved = 0;
	for (unsigned int i = 0; i < 8; i++) {
		snprintf(dst, sizeof(dst), "198.51.100.%u", 200 + i);
		k = key(4, P_TCP, "10.2.0.5", 41000, dst, 443);
		assert_int_equal(mod_nat_bind(nat, &k, NULL, &rnd, NULL, &b), 0);
		moved += key_sport(&b.fwd) != 41000;
	}
	assert_true(moved >= 6);

	/* With a port range: the earlier binding's remapped port, again. */
	k = key(4, P_UDP, "10.2.0.6", 5060, "198.51.100.21", 5060);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sp, NULL, &a), 0);
	assert_in_range(key_sport(&a.fwd), 20000, 20999);
	for (unsigned int i = 22; i < 30; i++) {
		snprintf(dst, sizeof(dst), "198.51.100.%u", i);
		k = key(4, P_UDP, "10.2.0.6", 5060, dst, 5060);
		assert_int_equal(mod_nat_bind(nat, &k, NULL, &sp, NULL, &b), 0);
		assert_memory_equal(fc_key_src(&b.fwd), fc_key_src(&a.fwd), 4);
		assert_int_equal(key_sport(&b.fwd), key_sport(&a.fwd));
	}
	/* Gone with every binding that reused it: the next one is chosen afresh. */
	assert_int_equal(mod_nat_unbind(nat, a.binding), 0);
	mod_nat_free(nat);
}

/*
 * The mapping reused must be in the new target's range, and its tuple
 * free: otherwise the usual choice. MASQUERADE reuses as SNAT does.
 */
static void
test_by_source_limits(void **state)
{
	struct mod_nat *nat = nat_new(64);
	struct rule_nat sn = target(4, "203.0.113.1", "203.0.113.30", 0, 0);
	struct rule_nat other = target(4, "192.0.2.100", "192.0.2.120", 0, 0);
	struct rule_nat mp = target(4, "0.0.0.0", NULL, 0, 0);
	struct rule_nat one;
	uint8_t masq[16];
	struct mod_nat_binding_result a, b, c;
	struct fc_key k;

	(void)state;
	addr_parse(FC_AF_INET4, "203.0.113.99", masq);
	k = key(4, P_TCP, "10.3.0.1", 5000, "198.51.100.1", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &a), 0);
	/* Another target's range: not reused. */
	k = key(4, P_TCP, "10.3.0.1", 5000, "198.51.100.2", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &other, NULL, &b), 0);
	assert_int_equal(((const uint8_t *)fc_key_src(&b.fwd))[2], 2);
	/* The reused source taken towards this destination: the usual search. */
	one = target(4, "0.0.0.0", NULL, 0, 0);
	memcpy(one.addr_min, fc_key_src(&a.fwd), 4);
	memcpy(one.addr_max, fc_key_src(&a.fwd), 4);
	k = key(4, P_TCP, "10.3.0.7", 5000, "198.51.100.3", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &one, NULL, &b), 0);
	assert_int_equal(key_sport(&b.fwd), 5000); /* a's source towards .3: taken now */
	k = key(4, P_TCP, "10.3.0.1", 5000, "198.51.100.3", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &c), 0);
	assert_true(memcmp(fc_key_src(&c.fwd), fc_key_src(&a.fwd), 4) != 0 ||
		    key_sport(&c.fwd) != 5000);

	/* MASQUERADE: a first one remapped (its port taken), the next reuses the remap. */
	k = key(4, P_TCP, "10.3.0.2", 6000, "198.51.100.50", 443);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &mp, masq, &a), 0);
	assert_int_equal(key_sport(&a.fwd), 6000);
	k = key(4, P_TCP, "10.3.0.3", 6000, "198.51.100.50", 443);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &mp, masq, &b), 0);
	assert_int_not_equal(key_sport(&b.fwd), 6000);
	k = key(4, P_TCP, "10.3.0.3", 6000, "198.51.100.51", 443);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &mp, masq, &c), 0);
	assert_int_equal(key_sport(&c.fwd), key_sport(&b.fwd));
	mod_nat_free(nat);
}

/* IPv6: the same rules. */
static void
test_v6(void **state)
{
	struct mod_nat *nat = nat_new(16);
	struct rule_nat sn = target(6, "2001:db8:1::1", "2001:db8:1::ff", 0, 0);
	struct rule_nat dn = target(6, "fd00::5", NULL, 0, 0);
	struct mod_nat_binding_result a, b;
	struct fc_key k;

	(void)state;
	k = key(6, P_TCP, "fd00:1::7", 700, "2001:db8:9::1", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &a), 0);
	k = key(6, P_TCP, "fd00:1::7", 700, "2001:db8:9::2", 80);
	assert_int_equal(mod_nat_bind(nat, &k, NULL, &sn, NULL, &b), 0);
	assert_memory_equal(fc_key_src(&b.fwd), fc_key_src(&a.fwd), 16);
	assert_int_equal(key_sport(&b.fwd), 700);

	k = key(6, P_UDP, "2001:db8:9::3", 530, "2001:db8:ff::1", 53);
	assert_int_equal(mod_nat_bind(nat, &k, &dn, NULL, NULL, &a), 0);
	k = key(6, P_UDP, "2001:db8:9::3", 530, "fd00::5", 53);
	assert_int_equal(mod_nat_bind_clash(nat, &k, &b), 0);
	assert_in_range(key_sport(&b.fwd), 600, 1023);
	mod_nat_free(nat);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_classes),
		cmocka_unit_test(test_null_binding),
		cmocka_unit_test(test_snat_by_source),
		cmocka_unit_test(test_by_source_limits),
		cmocka_unit_test(test_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
