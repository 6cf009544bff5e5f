/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/nat_test.h — what the NAT table tests share
 * (test_nat.c, test_nat_clash.c): a table, addresses and targets from text,
 * keys built directly and read back. Pure (no EAL); include after <cmocka.h>,
 * since the helpers assert.
 */
#ifndef GUFC_NAT_TEST_H
#define GUFC_NAT_TEST_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include "nat.h"

#define P_ICMP	  1
#define P_TCP	  6
#define P_UDP	  17
#define P_DCCP	  33
#define P_GRE	  47
#define P_ICMPV6  58
#define P_SCTP	  132
#define P_UDPLITE 136

/* A table of @p max_bindings bindings with a fixed seed (runs repeat). */
static inline struct mod_nat *
nat_new(uint32_t max_bindings)
{
	struct mod_nat_params p = {.max_bindings = max_bindings, .seed = 0x5eed};
	struct mod_nat *nat = mod_nat_create(&p);

	assert_non_null(nat);
	return nat;
}

/* @p s into @p out (16 bytes, zero-padded); @p family is FC_AF_INET4 or FC_AF_INET6. */
static inline void
addr_parse(uint8_t family, const char *s, uint8_t *out)
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(family == FC_AF_INET4 ? AF_INET : AF_INET6, s, out), 1);
}

/*
 * A target: addresses @p lo..@p hi (@p hi NULL: @p lo alone; @p lo NULL: no
 * address, ports only), ports @p pmin..@p pmax (0: none).
 */
static inline struct rule_nat
target(uint8_t family, const char *lo, const char *hi, uint16_t pmin, uint16_t pmax)
{
	struct rule_nat t;

	memset(&t, 0, sizeof(t));
	t.family = family;
	if (lo != NULL) {
		addr_parse(family, lo, t.addr_min);
		addr_parse(family, hi != NULL ? hi : lo, t.addr_max);
	} else {
		t.family = 0;
	}
	t.port_min = pmin;
	t.port_max = pmax;
	return t;
}

/*
 * A key: family 4 or 6, ports in host order (ICMP: an echo request's, as
 * fc_parse() keys it: @p sport is the identifier, the type and code 8/0 in dport).
 */
static inline struct fc_key
key(uint8_t family, uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct fc_key k;
	uint8_t a[16];

	memset(&k, 0, sizeof(k));
	k.family = family == 4 ? FC_AF_INET4 : FC_AF_INET6;
	addr_parse(k.family, src, a);
	memcpy(fc_key_src_w(&k), a, fc_af_addr_len(k.family));
	addr_parse(k.family, dst, a);
	memcpy(fc_key_dst_w(&k), a, fc_af_addr_len(k.family));
	if (proto == P_ICMP)
		dport = 8 << 8;
	fc_key_set_ports(&k, htons(sport), htons(dport));
	if (k.family == FC_AF_INET4)
		k.v4.proto = proto;
	else
		k.v6.proto = proto;
	return k;
}

static inline const uint8_t *
key_src(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (const uint8_t *)&k->v4.src : k->v6.src;
}

static inline const uint8_t *
key_dst(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? (const uint8_t *)&k->v4.dst : k->v6.dst;
}

/* Ports in host order. */
static inline uint16_t
key_sport(const struct fc_key *k)
{
	return ntohs(k->family == FC_AF_INET4 ? k->v4.sport : k->v6.sport);
}

static inline uint16_t
key_dport(const struct fc_key *k)
{
	return ntohs(k->family == FC_AF_INET4 ? k->v4.dport : k->v6.dport);
}

/* Address @p a (4 or 16 bytes by @p family) is @p text. */
static inline void
assert_addr(const uint8_t *a, uint8_t family, const char *text)
{
	uint8_t b[16];

	addr_parse(family, text, b);
	assert_memory_equal(a, b, family == FC_AF_INET4 ? 4 : 16);
}

#endif /* GUFC_NAT_TEST_H */
