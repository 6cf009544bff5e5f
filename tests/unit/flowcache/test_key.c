/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/flowcache/key.c: key layout and normalization, the
 * reverse key, and the text form (exact examples, random round trips over
 * both families and every protocol, whitespace tolerance, and a table of
 * malformed texts with the offset each must be reported at).
 * Pure test: no EAL, so it also runs under ASan/UBSan.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "flowcache.h"

/* Fixed-seed PRNG (splitmix64), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
rng_fill(void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)rng();
}

/* Compare the meaningful part of two keys: family plus the key bytes. */
static void
assert_key_equal(const struct fc_key *a, const struct fc_key *b)
{
	assert_int_equal(a->family, b->family);
	if (a->family == FC_AF_INET4)
		assert_memory_equal(&a->v4, &b->v4, sizeof(a->v4));
	else
		assert_memory_equal(&a->v6, &b->v6, sizeof(a->v6));
}

static void
key_v4(struct fc_key *k, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t proto, uint8_t flags)
{
	memset(k, 0, sizeof(*k));
	k->family = FC_AF_INET4;
	assert_int_equal(inet_pton(AF_INET, src, &k->v4.src), 1);
	assert_int_equal(inet_pton(AF_INET, dst, &k->v4.dst), 1);
	k->v4.sport = htons(sport);
	k->v4.dport = htons(dport);
	k->v4.proto = proto;
	k->v4.flags = flags;
}

static void
key_v6(struct fc_key *k, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t proto, uint8_t flags)
{
	memset(k, 0, sizeof(*k));
	k->family = FC_AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, src, k->v6.src), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, k->v6.dst), 1);
	k->v6.sport = htons(sport);
	k->v6.dport = htons(dport);
	k->v6.proto = proto;
	k->v6.flags = flags;
}

/* ------------------------------------------------------------------------ */

static void
test_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fc_key_v4), 16);
	assert_int_equal(sizeof(struct fc_key_v6), 48);
	assert_int_equal(offsetof(struct fc_key_v4, in_port), 14);
	assert_int_equal(offsetof(struct fc_key_v6, in_port), 38);
	assert_int_equal(offsetof(struct fc_key_v6, pad), 40);
}

static void
test_normalize_v4(void **state)
{
	struct fc_key_v4 a, b;

	(void)state;
	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	a.src = b.src = htonl(0xc0000201);
	a.dst = b.dst = htonl(0xc6336407);
	a.sport = b.sport = htons(1234);
	a.dport = b.dport = htons(80);
	a.proto = b.proto = 6;
	a.flags = b.flags = FC_KEY_F_DST_LOCAL;
	/* the input port took the last padding: every byte is a field */
	assert_memory_not_equal(&a, &b, sizeof(a));
	a.in_port = b.in_port = 3;
	assert_memory_equal(&a, &b, sizeof(a));
	fc_key_v4_normalize(&a);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.in_port, 3);
}

static void
test_normalize_v6(void **state)
{
	struct fc_key_v6 a, b;
	unsigned int i;

	(void)state;
	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	for (i = 0; i < 16; i++) {
		a.src[i] = b.src[i] = (uint8_t)(i * 7);
		a.dst[i] = b.dst[i] = (uint8_t)(255 - i);
	}
	a.sport = b.sport = htons(53);
	a.dport = b.dport = htons(5353);
	a.proto = b.proto = 17;
	a.flags = b.flags = FC_KEY_F_SRC_LOCAL;
	a.in_port = b.in_port = 65535;
	assert_memory_not_equal(&a, &b, sizeof(a));
	fc_key_v6_normalize(&a);
	fc_key_v6_normalize(&b);
	assert_memory_equal(&a, &b, sizeof(a));
	for (i = 0; i < sizeof(a.pad); i++)
		assert_int_equal(a.pad[i], 0);
	assert_int_equal(a.in_port, 65535);
}

static void
test_reverse_fields(void **state)
{
	static const uint8_t flags_in[4] = {
		0, FC_KEY_F_SRC_LOCAL, FC_KEY_F_DST_LOCAL, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL};
	static const uint8_t flags_out[4] = {
		0, FC_KEY_F_DST_LOCAL, FC_KEY_F_SRC_LOCAL, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL};
	struct fc_key k, r, want;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		/* the input port is copied: the caller sets the reply's */
		key_v4(&k, "192.0.2.1", 1234, "198.51.100.7", 80, 6, flags_in[i]);
		k.v4.in_port = (uint16_t)(i + 1);
		fc_key_reverse(&k, &r);
		key_v4(&want, "198.51.100.7", 80, "192.0.2.1", 1234, 6, flags_out[i]);
		want.v4.in_port = (uint16_t)(i + 1);
		assert_key_equal(&r, &want);

		key_v6(&k, "2001:db8::1", 53, "2001:db8::2", 5353, 17, flags_in[i]);
		memset(k.v6.pad, 0x77, sizeof(k.v6.pad)); /* garbage in, normalized out */
		k.v6.in_port = (uint16_t)(i + 1);
		fc_key_reverse(&k, &r);
		key_v6(&want, "2001:db8::2", 5353, "2001:db8::1", 53, 17, flags_out[i]);
		want.v6.in_port = (uint16_t)(i + 1);
		assert_key_equal(&r, &want);
	}

	/*
	 * ICMP queries: identifier in sport, type << 8 | code in dport; the
	 * reverse is the reply's key (Linux's invmap), the code kept.
	 */
	key_v4(&k, "10.0.0.1", 0x1234, "10.0.0.2", 0x0800, 1, FC_KEY_F_SRC_LOCAL);
	fc_key_reverse(&k, &r);
	key_v4(&want, "10.0.0.2", 0x1234, "10.0.0.1", 0x0000, 1, FC_KEY_F_DST_LOCAL);
	assert_key_equal(&r, &want);
	assert_true(fc_key_icmp_query(&k));
	assert_true(fc_key_icmp_query(&r));
}

/* Every ICMP query type reverses to its reply, and back; other types to no packet's key. */
static void
test_reverse_icmp(void **state)
{
	static const struct {
		uint8_t family, type, reply;
	} q[] = {
		{FC_AF_INET4, 8, 0},   {FC_AF_INET4, 0, 8},	{FC_AF_INET4, 13, 14},
		{FC_AF_INET4, 14, 13}, {FC_AF_INET4, 15, 16}, {FC_AF_INET4, 16, 15},
		{FC_AF_INET4, 17, 18}, {FC_AF_INET4, 18, 17}, {FC_AF_INET6, 128, 129},
		{FC_AF_INET6, 129, 128}, {FC_AF_INET6, 139, 140}, {FC_AF_INET6, 140, 139},
	};
	struct fc_key k, r, rr, want;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(q); i++) {
		uint16_t tc = (uint16_t)(q[i].type << 8 | 3), rc = (uint16_t)(q[i].reply << 8 | 3);

		assert_int_equal(fc_icmp_reply_type(q[i].family, q[i].type), q[i].reply);
		if (q[i].family == FC_AF_INET4) {
			key_v4(&k, "10.0.0.1", 77, "10.0.0.2", tc, 1, 0);
			key_v4(&want, "10.0.0.2", 77, "10.0.0.1", rc, 1, 0);
		} else {
			key_v6(&k, "2001:db8::1", 77, "2001:db8::2", tc, 58, 0);
			key_v6(&want, "2001:db8::2", 77, "2001:db8::1", rc, 58, 0);
		}
		assert_true(fc_key_icmp_query(&k));
		fc_key_reverse(&k, &r);
		assert_key_equal(&r, &want);
		fc_key_reverse(&r, &rr);
		assert_key_equal(&rr, &k);
	}
	/* NAT rewrites the identifier of these, but for ICMPv6 node information's (Linux). */
	for (unsigned int i = 0; i < RTE_DIM(q); i++)
		assert_true(fc_icmp_nat_id(q[i].family, q[i].type) ==
			    (q[i].family == FC_AF_INET4 || q[i].type < 130));
	assert_false(fc_icmp_nat_id(FC_AF_INET6, 135));
	/* The other family's numbers are not queries there: 8 in ICMPv6, 128 in ICMPv4. */
	assert_int_equal(fc_icmp_reply_type(FC_AF_INET6, 8), 8);
	assert_int_equal(fc_icmp_reply_type(FC_AF_INET4, 128), 128);
	key_v6(&k, "2001:db8::1", 0, "2001:db8::2", 0x0800, 58, 0);
	assert_false(fc_key_icmp_query(&k));
	/* ICMPv4's protocol in IPv6 (and v6's in v4) is just a protocol: ports swapped. */
	key_v6(&k, "2001:db8::1", 1, "2001:db8::2", 0x0800, 1, 0);
	assert_false(fc_key_icmp_query(&k));
	fc_key_reverse(&k, &r);
	key_v6(&want, "2001:db8::2", 0x0800, "2001:db8::1", 1, 1, 0);
	assert_key_equal(&r, &want);

	/*
	 * Not a query (destination unreachable, ND): no reply type. The
	 * reverse holds the type and code in both ports, which no parsed
	 * packet's key does (their sport is 0), in particular not an echo
	 * reply's (type 0) with that identifier.
	 */
	key_v4(&k, "10.0.0.1", 0, "10.0.0.2", 0x0301, 1, 0);
	assert_false(fc_key_icmp_query(&k));
	fc_key_reverse(&k, &r);
	key_v4(&want, "10.0.0.2", 0x0301, "10.0.0.1", 0x0301, 1, 0);
	assert_key_equal(&r, &want);
	assert_false(fc_key_icmp_query(&r));
	fc_key_reverse(&r, &rr);
	assert_key_equal(&rr, &k);
	key_v6(&k, "2001:db8::1", 0, "2001:db8::2", 0x8700, 58, 0);
	fc_key_reverse(&k, &r);
	key_v6(&want, "2001:db8::2", 0x8700, "2001:db8::1", 0x8700, 58, 0);
	assert_key_equal(&r, &want);
}

static void
random_key(struct fc_key *k)
{
	static const uint8_t protos[] = {1, 6, 17, 58, 132};
	unsigned int i;

	/* garbage everywhere first, then fields, then normalize */
	rng_fill(k, sizeof(*k));
	k->family = (rng() & 1) ? FC_AF_INET4 : FC_AF_INET6;
	if (k->family == FC_AF_INET4) {
		rng_fill(&k->v4.src, 4);
		rng_fill(&k->v4.dst, 4);
		k->v4.sport = (uint16_t)rng();
		k->v4.dport = (uint16_t)rng();
		k->v4.proto = (rng() & 1) ? protos[rng() % RTE_DIM(protos)] : (uint8_t)rng();
		k->v4.flags = (uint8_t)(rng() & 3);
		k->v4.in_port = (rng() & 1) ? (uint16_t)(rng() & 3) : (uint16_t)rng();
		fc_key_v4_normalize(&k->v4);
		return;
	}
	rng_fill(k->v6.src, 16);
	rng_fill(k->v6.dst, 16);
	switch (rng() % 4) {
	case 0: /* runs of zero groups, so "::" appears in various places */
		for (i = 0; i < 8; i++)
			if (rng() & 1) {
				k->v6.src[2 * i] = k->v6.src[2 * i + 1] = 0;
				k->v6.dst[2 * i] = k->v6.dst[2 * i + 1] = 0;
			}
		break;
	case 1: /* IPv4-mapped, printed with a dotted quad */
		memset(k->v6.src, 0, 10);
		k->v6.src[10] = k->v6.src[11] = 0xff;
		memset(k->v6.dst, 0, 16);
		k->v6.dst[15] = 1;
		break;
	default:
		break;
	}
	k->v6.sport = (uint16_t)rng();
	k->v6.dport = (uint16_t)rng();
	k->v6.proto = (rng() & 1) ? protos[rng() % RTE_DIM(protos)] : (uint8_t)rng();
	k->v6.flags = (uint8_t)(rng() & 3);
	k->v6.in_port = (rng() & 1) ? (uint16_t)(rng() & 3) : (uint16_t)rng();
	fc_key_v6_normalize(&k->v6);
}

static void
test_reverse_random(void **state)
{
	struct fc_key k, r, rr;
	unsigned int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		random_key(&k);
		fc_key_reverse(&k, &r);
		fc_key_reverse(&r, &rr);
		assert_key_equal(&rr, &k);
		if (k.family == FC_AF_INET4) {
			assert_int_equal(r.v4.src, k.v4.dst);
			if (k.v4.proto != 1)
				assert_int_equal(r.v4.sport, k.v4.dport);
			assert_int_equal(r.v4.in_port, k.v4.in_port);
			assert_int_equal(!!(r.v4.flags & FC_KEY_F_SRC_LOCAL),
				!!(k.v4.flags & FC_KEY_F_DST_LOCAL));
		} else {
			assert_memory_equal(r.v6.src, k.v6.dst, 16);
			if (k.v6.proto != 58)
				assert_int_equal(r.v6.sport, k.v6.dport);
			assert_int_equal(r.v6.in_port, k.v6.in_port);
			assert_int_equal(!!(r.v6.flags & FC_KEY_F_DST_LOCAL),
				!!(k.v6.flags & FC_KEY_F_SRC_LOCAL));
		}
	}
}

/* ------------------------------------------------------------------------ */

static void
assert_formats_as(const struct fc_key *k, const char *want)
{
	char buf[FC_KEY_STRLEN];
	struct fc_key back;
	size_t errpos = 12345;

	assert_int_equal(fc_key_format(k, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(fc_key_parse(want, &back, &errpos), 0);
	assert_key_equal(&back, k);
}

static void
test_format_examples(void **state)
{
	struct fc_key k;

	(void)state;
	key_v4(&k, "192.0.2.1", 1234, "198.51.100.7", 80, 6, FC_KEY_F_DST_LOCAL);
	assert_formats_as(&k,
		"tcp 192.0.2.1:1234 -> 198.51.100.7:80 src_local=0 dst_local=1 in_port=0");

	key_v6(&k, "2001:db8::1", 53, "2001:db8::2", 5353, 17, 0);
	k.v6.in_port = 1;
	assert_formats_as(&k,
		"udp [2001:db8::1]:53 -> [2001:db8::2]:5353 src_local=0 dst_local=0 in_port=1");

	key_v4(&k, "10.0.0.1", 0, "10.0.0.2", 0, 47, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	k.v4.in_port = 65535;
	assert_formats_as(&k,
		"proto 47 10.0.0.1:0 -> 10.0.0.2:0 src_local=1 dst_local=1 in_port=65535");

	key_v4(&k, "10.0.0.1", 4660, "10.0.0.2", 4660, 1, FC_KEY_F_SRC_LOCAL);
	assert_formats_as(&k, "icmp 10.0.0.1:4660 -> 10.0.0.2:4660 src_local=1 dst_local=0 in_port=0");

	key_v6(&k, "fe80::1", 0x8000, "ff02::1", 0, 58, 0);
	k.v6.in_port = 31;
	assert_formats_as(&k,
		"icmpv6 [fe80::1]:32768 -> [ff02::1]:0 src_local=0 dst_local=0 in_port=31");

	key_v6(&k, "::", 1, "::ffff:192.0.2.9", 65535, 132, FC_KEY_F_DST_LOCAL);
	assert_formats_as(&k,
		"sctp [::]:1 -> [::ffff:192.0.2.9]:65535 src_local=0 dst_local=1 in_port=0");

	key_v4(&k, "0.0.0.0", 0, "255.255.255.255", 65535, 0, 0);
	assert_formats_as(&k,
		"proto 0 0.0.0.0:0 -> 255.255.255.255:65535 src_local=0 dst_local=0 in_port=0");
}

static void
test_format_worst_case(void **state)
{
	char buf[FC_KEY_STRLEN];
	struct fc_key k, back;
	int n;

	(void)state;
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET6;
	memset(k.v6.src, 0xff, 16);
	memset(k.v6.dst, 0xee, 16);
	k.v6.sport = k.v6.dport = 0xffff;
	k.v6.proto = 255;
	k.v6.flags = FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL | FC_KEY_F_SRC_FORGED;
	k.v6.in_port = 65535;
	n = fc_key_format(&k, buf, sizeof(buf));
	assert_true(n == 159); /* 160 with the NUL: why FC_KEY_STRLEN is not 128, nor 160 */
	assert_true(n < FC_KEY_STRLEN);
	assert_int_equal((size_t)n, strlen(buf));
	assert_int_equal(fc_key_parse(buf, &back, NULL), 0);
	assert_key_equal(&back, &k);
}

/*
 * A forged local source (FC_KEY_F_SRC_FORGED): written as " src_forged=1"
 * at the end and read back; the reverse key has the address as its local
 * destination and no forged bit (nothing about the reply's source).
 */
static void
test_forged_bit(void **state)
{
	struct fc_key k, r, back;

	(void)state;
	key_v4(&k, "192.0.2.1", 4000, "198.51.100.7", 53, 17, FC_KEY_F_SRC_FORGED);
	k.v4.in_port = 1;
	assert_formats_as(&k, "udp 192.0.2.1:4000 -> 198.51.100.7:53 src_local=0 dst_local=0 "
			      "in_port=1 src_forged=1");
	fc_key_reverse(&k, &r);
	assert_int_equal(r.v4.flags, FC_KEY_F_DST_LOCAL);

	key_v6(&k, "2001:db8::1", 4000, "2001:db8::2", 53, 17,
		FC_KEY_F_SRC_FORGED | FC_KEY_F_DST_LOCAL);
	assert_formats_as(&k, "udp [2001:db8::1]:4000 -> [2001:db8::2]:53 src_local=0 "
			      "dst_local=1 in_port=0 src_forged=1");
	fc_key_reverse(&k, &r);
	assert_int_equal(r.v6.flags, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);

	/* Anywhere among the fields, at most once; src_forged=0 is no bit. */
	assert_int_equal(
		fc_key_parse("udp 192.0.2.1:1 -> 192.0.2.2:2 src_forged=1 in_port=3", &back, NULL),
		0);
	assert_int_equal(back.v4.flags, FC_KEY_F_SRC_FORGED);
	assert_int_equal(
		fc_key_parse("udp 192.0.2.1:1 -> 192.0.2.2:2 src_forged=0", &back, NULL), 0);
	assert_int_equal(back.v4.flags, 0);
	assert_int_equal(fc_key_parse("udp 192.0.2.1:1 -> 192.0.2.2:2 src_forged=1 src_forged=1",
				 &back, NULL),
		-EINVAL);
	assert_int_equal(
		fc_key_parse("udp 192.0.2.1:1 -> 192.0.2.2:2 src_forged=2", &back, NULL), -EINVAL);
}

static void
test_format_errors(void **state)
{
	char buf[FC_KEY_STRLEN];
	struct fc_key k;
	int n;

	(void)state;
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_NONE;
	assert_int_equal(fc_key_format(&k, buf, sizeof(buf)), -EINVAL);
	k.family = 5;
	assert_int_equal(fc_key_format(&k, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(fc_key_format(NULL, buf, sizeof(buf)), -EINVAL);

	key_v4(&k, "192.0.2.1", 1234, "198.51.100.7", 80, 6, 0);
	assert_int_equal(fc_key_format(&k, NULL, 10), -EINVAL);
	n = fc_key_format(&k, buf, sizeof(buf));
	assert_true(n > 0);
	/* exactly enough room, one byte short, very short, none */
	assert_int_equal(fc_key_format(&k, buf, (size_t)n + 1), n);
	assert_int_equal(fc_key_format(&k, buf, (size_t)n), -ENOSPC);
	assert_int_equal(strlen(buf), (size_t)n - 1);
	assert_int_equal(fc_key_format(&k, buf, 4), -ENOSPC);
	assert_string_equal(buf, "tcp");
	buf[0] = 'x';
	assert_int_equal(fc_key_format(&k, buf, 0), -ENOSPC);
	assert_int_equal(buf[0], 'x');
}

static void
test_roundtrip_random(void **state)
{
	char buf[FC_KEY_STRLEN], buf2[FC_KEY_STRLEN];
	unsigned int i, seen_v4 = 0, seen_v6 = 0, seen_proto[256] = {0};
	struct fc_key k, back;
	size_t errpos;
	int n;

	(void)state;
	for (i = 0; i < 50000; i++) {
		random_key(&k);
		n = fc_key_format(&k, buf, sizeof(buf));
		assert_true(n > 0 && n < FC_KEY_STRLEN);
		memset(&back, 0xcc, sizeof(back));
		if (fc_key_parse(buf, &back, &errpos) != 0)
			fail_msg("parse failed at %zu: \"%s\"", errpos, buf);
		assert_key_equal(&back, &k);
		assert_int_equal(fc_key_format(&back, buf2, sizeof(buf2)), n);
		assert_string_equal(buf2, buf);
		if (k.family == FC_AF_INET4) {
			seen_v4++;
			seen_proto[k.v4.proto]++;
		} else {
			seen_v6++;
			seen_proto[k.v6.proto]++;
		}
	}
	/* the generator really covered both families and the named protocols */
	assert_true(seen_v4 > 1000 && seen_v6 > 1000);
	assert_true(seen_proto[1] && seen_proto[6] && seen_proto[17] && seen_proto[58] &&
		    seen_proto[132] && seen_proto[47] && seen_proto[0] && seen_proto[255]);

	/* every protocol number, both families */
	for (i = 0; i < 256; i++) {
		key_v4(&k, "192.0.2.1", 1, "192.0.2.2", 2, (uint8_t)i, (uint8_t)(i & 3));
		n = fc_key_format(&k, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(fc_key_parse(buf, &back, NULL), 0);
		assert_key_equal(&back, &k);
		key_v6(&k, "2001:db8::1", 1, "2001:db8::2", 2, (uint8_t)i, (uint8_t)(i & 3));
		n = fc_key_format(&k, buf, sizeof(buf));
		assert_true(n > 0);
		assert_int_equal(fc_key_parse(buf, &back, NULL), 0);
		assert_key_equal(&back, &k);
	}
}

/* ------------------------------------------------------------------------ */

struct lenient_case {
	const char *text;
	const char *canonical;
};

static void
test_parse_lenient(void **state)
{
	static const char *const tcp_canon =
		"tcp 192.0.2.1:1234 -> 198.51.100.7:80 src_local=0 dst_local=1 in_port=0";
	static const struct lenient_case cases[] = {
		{"tcp 192.0.2.1:1234 -> 198.51.100.7:80 src_local=0 dst_local=1", NULL},
		{"  tcp   192.0.2.1:1234   ->   198.51.100.7:80   src_local=0   dst_local=1  ",
			NULL},
		{"TCP 192.0.2.1:1234->198.51.100.7:80 dst_local=1", NULL},
		{"\ttcp\t192.0.2.1:1234 ->198.51.100.7:80 dst_local = 1 src_local= 0\n", NULL},
		{"proto 6 192.0.2.1:1234 -> 198.51.100.7:80 dst_local=1", NULL},
		{"Proto\t  6 192.0.2.1:1234 -> 198.51.100.7:80 DST_LOCAL=1", NULL},
		{"tcp 192.0.2.1:1234 -> 198.51.100.7:80 dst_local=1 src_local=0", NULL},
		{"udp [2001:DB8:0::1]:53->[2001:db8::2]:5353",
			"udp [2001:db8::1]:53 -> [2001:db8::2]:5353 src_local=0 dst_local=0 in_port=0"},
		{"icmp6 [fe80::1]:7 -> [ff02::1]:7 src_local=1",
			"icmpv6 [fe80::1]:7 -> [ff02::1]:7 src_local=1 dst_local=0 in_port=0"},
		{"proto 58 [fe80::1]:7 -> [ff02::1]:7 src_local=1",
			"icmpv6 [fe80::1]:7 -> [ff02::1]:7 src_local=1 dst_local=0 in_port=0"},
		{"sctp  [::FFFF:10.0.0.1]:1  ->  [::ffff:10.0.0.2]:2  dst_local=1 src_local=1",
			"sctp [::ffff:10.0.0.1]:1 -> [::ffff:10.0.0.2]:2 src_local=1 dst_local=1 in_port=0"},
		{"proto 47 10.0.0.1:0 -> 10.0.0.2:0",
			"proto 47 10.0.0.1:0 -> 10.0.0.2:0 src_local=0 dst_local=0 in_port=0"},
		/* the input port: optional (old text reads as port 0), anywhere among the fields */
		{"tcp 192.0.2.1:1234 -> 198.51.100.7:80 src_local=0 dst_local=1 in_port=0", NULL},
		{"tcp 192.0.2.1:1234 -> 198.51.100.7:80 in_port = 0 dst_local=1", NULL},
		{"udp 10.0.0.1:1 -> 10.0.0.2:2 IN_PORT=7 src_local=1",
			"udp 10.0.0.1:1 -> 10.0.0.2:2 src_local=1 dst_local=0 in_port=7"},
		{"udp [::1]:1 -> [::2]:2 dst_local=1 in_port=65535 src_local=1",
			"udp [::1]:1 -> [::2]:2 src_local=1 dst_local=1 in_port=65535"},
	};
	char buf[FC_KEY_STRLEN];
	struct fc_key k;
	size_t errpos;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		const char *want = cases[i].canonical != NULL ? cases[i].canonical : tcp_canon;

		errpos = 999;
		if (fc_key_parse(cases[i].text, &k, &errpos) != 0)
			fail_msg("case %u \"%s\": rejected at %zu", i, cases[i].text, errpos);
		assert_true(fc_key_format(&k, buf, sizeof(buf)) > 0);
		if (strcmp(buf, want) != 0)
			fail_msg("case %u \"%s\": got \"%s\", want \"%s\"", i, cases[i].text, buf,
				want);
		assert_int_equal(errpos, 999); /* untouched on success */
	}
}

struct invalid_case {
	const char *text;
	size_t errpos;
};

static void
test_parse_invalid(void **state)
{
	static const struct invalid_case cases[] = {
		/* nothing, or no protocol */
		{"", 0},
		{"   ", 3},
		{"[::1]:1 -> [::2]:2", 0},
		{"1.2.3.4:1 -> 5.6.7.8:2", 0},
		/* unknown protocol name, bad "proto N" */
		{"tcpx 1.2.3.4:1 -> 5.6.7.8:2", 0},
		{"  gre 1.2.3.4:1 -> 5.6.7.8:2", 2},
		{"tcp1.2.3.4:1 -> 5.6.7.8:2", 0},
		{"proto6 1.2.3.4:1 -> 5.6.7.8:2", 0},
		{"proto 256 1.2.3.4:1 -> 5.6.7.8:2", 6},
		{"proto x 1.2.3.4:1 -> 5.6.7.8:2", 6},
		{"proto -1 1.2.3.4:1 -> 5.6.7.8:2", 6},
		{"proto", 5},
		{"tcp", 3},
		/* bad addresses */
		{"tcp 1.2.3.256:1 -> 5.6.7.8:2", 4},
		{"tcp 1.2.3:1 -> 5.6.7.8:2", 4},
		{"tcp 1.2.3.4.5:1 -> 5.6.7.8:2", 4},
		{"tcp host:1 -> 5.6.7.8:2", 4},
		{"tcp 1111111111111111111111.2.3.4:1 -> 5.6.7.8:2", 4},
		{"tcp 1.2.3.4:1 -> 5.6.7:2", 17},
		{"tcp 1.2.3.4:1 ->", 16},
		{"udp [2001:db8::1:53 -> [::2]:1", 4},
		{"udp [2001:db8::g]:53 -> [::2]:1", 4},
		{"udp []:53 -> [::2]:1", 4},
		{"udp [1:2:3:4:5:6:7:8:9]:53 -> [::2]:1", 4},
		{"udp [1.2.3.4]:53 -> [::2]:1", 4},
		{"udp [0000:0000:0000:0000:0000:0000:0000:0000:0000]:1 -> [::2]:1", 4},
		{"udp 2001:db8::1:53 -> [::2]:1", 4},
		{"udp [::1]:53 -> [::2", 16},
		/* bad or missing ports */
		{"tcp 1.2.3.4:65536 -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4:99999999999999 -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4:-1 -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4:80x -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4:0x50 -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4: -> 5.6.7.8:2", 12},
		{"tcp 1.2.3.4 -> 5.6.7.8:2", 11},
		{"tcp 1.2.3.4 :1 -> 5.6.7.8:2", 11},
		{"tcp 1.2.3.4:1 -> 5.6.7.8", 24},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:70000", 25},
		{"udp [::1]53 -> [::2]:1", 9},
		{"udp [::1]:53 -> [::2]:", 22},
		/* missing or malformed arrow */
		{"tcp 1.2.3.4:1 5.6.7.8:2", 14},
		{"tcp 1.2.3.4:1 => 5.6.7.8:2", 14},
		{"tcp 1.2.3.4:1 - > 5.6.7.8:2", 14},
		{"tcp 1.2.3.4:1 <- 5.6.7.8:2", 14},
		{"tcp 1.2.3.4:1", 13},
		/* mixed families: the second endpoint is at fault */
		{"tcp 1.2.3.4:1 -> [::1]:2", 17},
		{"tcp [::1]:1 -> 1.2.3.4:2", 15},
		{"tcp [::1]:1->1.2.3.4:2", 13},
		/* trailing garbage and bad fields */
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 extra", 27},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 ;", 27},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2\n x", 28},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 -> 9.9.9.9:3", 27},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 local=1", 27},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local=2", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local=yes", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local=", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local", 36},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local 1", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local=1 src_local=1", 39},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 dst_local=0 src_local=1 dst_local=1", 51},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 src_local=1dst_local=0", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2src_local=1", 25},
		/* bad input ports */
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port=65536", 35},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port=-1", 35},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port=eth0", 35},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port=", 35},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port", 34},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 in_port=1 in_port=1", 37},
		{"tcp 1.2.3.4:1 -> 5.6.7.8:2 inport=1", 27},
	};
	struct fc_key k, untouched;
	size_t errpos;
	unsigned int i;
	int rc;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&k, 0xa5, sizeof(k));
		untouched = k;
		errpos = 9999;
		rc = fc_key_parse(cases[i].text, &k, &errpos);
		if (rc != -EINVAL)
			fail_msg("case %u \"%s\": got %d, want -EINVAL", i, cases[i].text, rc);
		if (errpos != cases[i].errpos)
			fail_msg("case %u \"%s\": errpos %zu, want %zu", i, cases[i].text, errpos,
				cases[i].errpos);
		/* nothing applied on error */
		assert_memory_equal(&k, &untouched, sizeof(k));
		/* errpos is optional */
		assert_int_equal(fc_key_parse(cases[i].text, &k, NULL), -EINVAL);
	}

	errpos = 9999;
	assert_int_equal(fc_key_parse(NULL, &k, &errpos), -EINVAL);
	assert_int_equal(errpos, 0);
	assert_int_equal(fc_key_parse("tcp 1.2.3.4:1 -> 5.6.7.8:2", NULL, NULL), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_normalize_v4),
		cmocka_unit_test(test_normalize_v6),
		cmocka_unit_test(test_reverse_fields),
		cmocka_unit_test(test_reverse_icmp),
		cmocka_unit_test(test_reverse_random),
		cmocka_unit_test(test_format_examples),
		cmocka_unit_test(test_format_worst_case),
		cmocka_unit_test(test_forged_bit),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_parse_lenient),
		cmocka_unit_test(test_parse_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
