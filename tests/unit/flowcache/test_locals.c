/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/flowcache/locals.c, the local-address table: create
 * arguments, add/del/match with overlapping prefixes in both families,
 * table-driven error codes, marking a mixed burst (both bits, both families,
 * FC_AF_NONE skipped, stale bits cleared), host ports (a local source
 * elsewhere is forged), dump text, counts, and readers
 * running while the control thread changes prefixes.
 * EAL test (rte_lpm lives in DPDK memory): --no-huge --no-pci.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_memory.h>

#include "eal_test.h"
#include "flowcache.h"

/* An address in network order, from text; the family is guessed from it. */
struct addr {
	int family;
	uint8_t b[16];
};

static struct addr
addr_from(const char *text)
{
	struct addr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, text, a.b) == 1) {
		a.family = FC_AF_INET4;
	} else if (inet_pton(AF_INET6, text, a.b) == 1) {
		a.family = FC_AF_INET6;
	} else {
		fprintf(stderr, "bad test address %s\n", text);
		abort();
	}
	return a;
}

static int
add(struct fc_locals *l, const char *text, uint8_t depth)
{
	struct addr a = addr_from(text);

	return fc_locals_add(l, a.family, a.b, depth);
}

static int
del(struct fc_locals *l, const char *text, uint8_t depth)
{
	struct addr a = addr_from(text);

	return fc_locals_del(l, a.family, a.b, depth);
}

static bool
match(const struct fc_locals *l, const char *text)
{
	struct addr a = addr_from(text);

	return fc_locals_match(l, a.family, a.b);
}

static int
setup_table(void **state)
{
	struct fc_locals *l = fc_locals_create("t_locals", 64, 64, SOCKET_ID_ANY);

	if (l == NULL)
		return -1;
	*state = l;
	return 0;
}

static int
teardown_table(void **state)
{
	fc_locals_free(*state);
	return 0;
}

/* ------------------------------------------------------------------------ */

static void
test_create_args(void **state)
{
	struct fc_locals *l, *l2;

	(void)state;
	rte_errno = 0;
	assert_null(fc_locals_create(NULL, 4, 4, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(fc_locals_create("", 4, 4, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(fc_locals_create("a_name_that_is_far_too_long", 4, 4, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(fc_locals_create("none", 0, 0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(fc_locals_create("badsock", 4, 4, -5));
	assert_int_equal(rte_errno, EINVAL);

	/* the longest accepted name works, and a second one of it is EEXIST */
	l = fc_locals_create("sixteen_chars_ok", 4, 4, SOCKET_ID_ANY);
	assert_non_null(l);
	rte_errno = 0;
	assert_null(fc_locals_create("sixteen_chars_ok", 4, 4, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EEXIST);
	/* taken even when the new table would only have the other family */
	rte_errno = 0;
	assert_null(fc_locals_create("sixteen_chars_ok", 0, 4, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EEXIST);
	fc_locals_free(l);

	/* the name is free again after free */
	l = fc_locals_create("sixteen_chars_ok", 4, 0, SOCKET_ID_ANY);
	assert_non_null(l);
	l2 = fc_locals_create("other", 0, 4, SOCKET_ID_ANY);
	assert_non_null(l2);

	/* a table without one family: that family is never local, adds refused */
	assert_int_equal(add(l, "2001:db8::1", 128), -ENOSPC);
	assert_false(match(l, "2001:db8::1"));
	assert_int_equal(add(l, "10.0.0.1", 32), 0);
	assert_true(match(l, "10.0.0.1"));
	assert_int_equal(add(l2, "10.0.0.1", 32), -ENOSPC);
	assert_false(match(l2, "10.0.0.1"));
	assert_int_equal(add(l2, "2001:db8::1", 128), 0);
	assert_true(match(l2, "2001:db8::1"));
	fc_locals_free(l);
	fc_locals_free(l2);

	fc_locals_free(NULL);
}

static void
test_v4_overlap(void **state)
{
	struct fc_locals *l = *state;

	assert_false(match(l, "10.1.2.3"));
	assert_int_equal(add(l, "10.0.0.0", 8), 0);
	assert_int_equal(add(l, "10.1.2.3", 32), 0);
	assert_true(match(l, "10.0.0.0"));
	assert_true(match(l, "10.9.9.9"));
	assert_true(match(l, "10.255.255.255"));
	assert_true(match(l, "10.1.2.3"));
	assert_true(match(l, "10.1.2.4"));
	assert_false(match(l, "11.0.0.0"));
	assert_false(match(l, "9.255.255.255"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 2);

	/* without the /8 only the /32 is left */
	assert_int_equal(del(l, "10.0.0.0", 8), 0);
	assert_false(match(l, "10.9.9.9"));
	assert_false(match(l, "10.1.2.4"));
	assert_true(match(l, "10.1.2.3"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 1);

	/* the /8 back, the /32 gone: still local through the /8 */
	assert_int_equal(add(l, "10.0.0.0", 8), 0);
	assert_int_equal(del(l, "10.1.2.3", 32), 0);
	assert_true(match(l, "10.1.2.3"));
	assert_int_equal(del(l, "10.0.0.0", 8), 0);
	assert_false(match(l, "10.1.2.3"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);

	/* host bits are cleared: 10.1.2.3/8 is 10.0.0.0/8 */
	assert_int_equal(add(l, "10.1.2.3", 8), 0);
	assert_true(match(l, "10.200.0.1"));
	assert_int_equal(add(l, "10.0.0.0", 8), -EEXIST);
	assert_int_equal(del(l, "10.7.7.7", 8), 0);
	assert_false(match(l, "10.200.0.1"));

	/* edges: /1 and /32 at the ends of the space */
	assert_int_equal(add(l, "128.0.0.0", 1), 0);
	assert_true(match(l, "255.255.255.255"));
	assert_true(match(l, "128.0.0.0"));
	assert_false(match(l, "127.255.255.255"));
	assert_int_equal(add(l, "0.0.0.0", 32), 0);
	assert_true(match(l, "0.0.0.0"));
	assert_false(match(l, "0.0.0.1"));
	assert_int_equal(del(l, "128.0.0.0", 1), 0);
	assert_int_equal(del(l, "0.0.0.0", 32), 0);
	assert_false(match(l, "255.255.255.255"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);
}

static void
test_v6_overlap(void **state)
{
	struct fc_locals *l = *state;

	assert_int_equal(add(l, "2001:db8:1:2::", 64), 0);
	assert_int_equal(add(l, "2001:db8:1:2::42", 128), 0);
	assert_int_equal(add(l, "2001:db8:ffff::7", 128), 0);
	assert_true(match(l, "2001:db8:1:2::1"));
	assert_true(match(l, "2001:db8:1:2:ffff:ffff:ffff:ffff"));
	assert_true(match(l, "2001:db8:1:2::42"));
	assert_true(match(l, "2001:db8:ffff::7"));
	assert_false(match(l, "2001:db8:ffff::8"));
	assert_false(match(l, "2001:db8:1:3::1"));
	assert_false(match(l, "::1"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 3);
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);

	/* an IPv4 address with the same leading bytes is another family */
	assert_int_equal(add(l, "32.1.13.184", 32), 0); /* 2001:0db8 as IPv4 */
	assert_false(match(l, "2001:db8::"));
	assert_int_equal(del(l, "32.1.13.184", 32), 0);

	assert_int_equal(del(l, "2001:db8:1:2::", 64), 0);
	assert_false(match(l, "2001:db8:1:2::1"));
	assert_true(match(l, "2001:db8:1:2::42"));

	assert_int_equal(add(l, "2001:db8:1:2:dead::", 64), 0); /* host bits cleared */
	assert_int_equal(del(l, "2001:db8:1:2::42", 128), 0);
	assert_true(match(l, "2001:db8:1:2::42"));
	assert_int_equal(del(l, "2001:db8:1:2::", 64), 0);
	assert_false(match(l, "2001:db8:1:2::42"));
	assert_int_equal(del(l, "2001:db8:ffff::7", 128), 0);
	assert_false(match(l, "2001:db8:ffff::7"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 0);

	/* /1 and odd depths */
	assert_int_equal(add(l, "8000::", 1), 0);
	assert_true(match(l, "ffff::"));
	assert_false(match(l, "7fff:ffff::"));
	assert_int_equal(add(l, "2001:db8::", 33), 0);
	assert_true(match(l, "2001:db8:7fff::1"));
	assert_false(match(l, "2001:db8:8000::1"));
	assert_int_equal(del(l, "8000::", 1), 0);
	assert_int_equal(del(l, "2001:db8::", 33), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 0);
}

/* ------------------------------------------------------------------------ */

enum op { OP_ADD, OP_DEL };

/* Take the family from the address text. */
#define AUTO (-1)

struct err_case {
	enum op op;
	bool null_table;
	int family;	  /* AUTO: take it from the address */
	const char *addr; /* NULL: pass a NULL address */
	int depth;
	int want;
};

static void
test_errors(void **state)
{
	static const struct err_case cases[] = {
		/* bad arguments */
		{OP_ADD, false, AUTO, "10.0.0.0", 0, -EINVAL},
		{OP_ADD, false, AUTO, "10.0.0.0", 33, -EINVAL},
		{OP_ADD, false, AUTO, "10.0.0.0", 255, -EINVAL},
		{OP_ADD, false, AUTO, "2001:db8::", 0, -EINVAL},
		{OP_ADD, false, AUTO, "2001:db8::", 129, -EINVAL},
		{OP_ADD, false, FC_AF_NONE, "10.0.0.0", 8, -EINVAL},
		{OP_ADD, false, 5, "10.0.0.0", 8, -EINVAL},
		{OP_ADD, false, AF_INET, "10.0.0.0", 8, -EINVAL}, /* socket AF, not FC_AF */
		{OP_ADD, false, AF_INET6, "2001:db8::", 64, -EINVAL},
		{OP_ADD, false, FC_AF_INET4, NULL, 8, -EINVAL},
		{OP_ADD, true, AUTO, "10.0.0.0", 8, -EINVAL},
		{OP_DEL, false, AUTO, "10.0.0.0", 0, -EINVAL},
		{OP_DEL, false, AUTO, "10.0.0.0", 33, -EINVAL},
		{OP_DEL, false, AUTO, "2001:db8::", 129, -EINVAL},
		{OP_DEL, false, FC_AF_NONE, "10.0.0.0", 8, -EINVAL},
		{OP_DEL, false, FC_AF_INET6, NULL, 64, -EINVAL},
		{OP_DEL, true, AUTO, "10.0.0.0", 8, -EINVAL},
		/* an IPv4 depth that is only valid for IPv6 */
		{OP_ADD, false, FC_AF_INET4, "10.0.0.0", 64, -EINVAL},
		/* valid: set up what follows */
		{OP_ADD, false, AUTO, "192.168.0.0", 16, 0},
		{OP_ADD, false, AUTO, "192.168.1.1", 32, 0},
		{OP_ADD, false, AUTO, "fd00::", 8, 0},
		{OP_ADD, false, AUTO, "fd00::1", 128, 0},
		/* already there (also with host bits set) */
		{OP_ADD, false, AUTO, "192.168.0.0", 16, -EEXIST},
		{OP_ADD, false, AUTO, "192.168.77.1", 16, -EEXIST},
		{OP_ADD, false, AUTO, "192.168.1.1", 32, -EEXIST},
		{OP_ADD, false, AUTO, "fd12::", 8, -EEXIST},
		{OP_ADD, false, AUTO, "fd00::1", 128, -EEXIST},
		/* not there: other depth, other address, other family */
		{OP_DEL, false, AUTO, "192.168.0.0", 24, -ENOENT},
		{OP_DEL, false, AUTO, "192.168.0.0", 15, -ENOENT},
		{OP_DEL, false, AUTO, "192.168.1.2", 32, -ENOENT},
		{OP_DEL, false, AUTO, "172.16.0.0", 12, -ENOENT},
		{OP_DEL, false, AUTO, "fd00::", 16, -ENOENT},
		{OP_DEL, false, AUTO, "fd00::2", 128, -ENOENT},
		{OP_DEL, false, AUTO, "::", 8, -ENOENT},
		/* delete then delete again */
		{OP_DEL, false, AUTO, "192.168.1.1", 32, 0},
		{OP_DEL, false, AUTO, "192.168.1.1", 32, -ENOENT},
		{OP_DEL, false, AUTO, "fd00::1", 128, 0},
		{OP_DEL, false, AUTO, "fd00::1", 128, -ENOENT},
		{OP_DEL, false, AUTO, "192.168.99.99", 16, 0},
		{OP_DEL, false, AUTO, "fd00::", 8, 0},
	};
	struct fc_locals *l = *state;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		const struct err_case *c = &cases[i];
		struct addr a;
		int family, rc;

		memset(&a, 0, sizeof(a));
		if (c->addr != NULL)
			a = addr_from(c->addr);
		family = c->family != AUTO ? c->family : a.family;
		if (c->op == OP_ADD)
			rc = fc_locals_add(c->null_table ? NULL : l, family,
				c->addr != NULL ? a.b : NULL, (uint8_t)c->depth);
		else
			rc = fc_locals_del(c->null_table ? NULL : l, family,
				c->addr != NULL ? a.b : NULL, (uint8_t)c->depth);
		if (rc != c->want)
			fail_msg("case %u (%s %s/%d family %d): got %d, want %d", i,
				c->op == OP_ADD ? "add" : "del", c->addr ? c->addr : "NULL",
				c->depth, family, rc, c->want);
	}
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 0);

	/* bad arguments to the readers */
	assert_false(fc_locals_match(NULL, FC_AF_INET4, addr_from("10.0.0.1").b));
	assert_false(fc_locals_match(l, FC_AF_INET4, NULL));
	assert_false(fc_locals_match(l, 5, addr_from("10.0.0.1").b));
	assert_int_equal(fc_locals_count(NULL, FC_AF_INET4), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_NONE), 0);
	assert_int_equal(fc_locals_dump(NULL, stdout), -EINVAL);
	assert_int_equal(fc_locals_dump(l, NULL), -EINVAL);
}

static void
test_full(void **state)
{
	struct fc_locals *l;
	char text[32];
	unsigned int i;

	(void)state;
	l = fc_locals_create("t_full", 3, 2, SOCKET_ID_ANY);
	assert_non_null(l);
	for (i = 0; i < 3; i++) {
		snprintf(text, sizeof(text), "10.0.%u.1", i);
		assert_int_equal(add(l, text, 32), 0);
	}
	assert_int_equal(add(l, "10.0.9.1", 32), -ENOSPC);
	assert_int_equal(add(l, "10.0.0.1", 32), -EEXIST); /* EEXIST wins over full */
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 3);
	assert_false(match(l, "10.0.9.1"));
	/* a refused add changed nothing; a delete makes room */
	assert_int_equal(del(l, "10.0.1.1", 32), 0);
	assert_int_equal(add(l, "10.0.9.1", 32), 0);
	assert_true(match(l, "10.0.9.1"));

	assert_int_equal(add(l, "2001:db8::1", 128), 0);
	assert_int_equal(add(l, "2001:db8::2", 128), 0);
	assert_int_equal(add(l, "2001:db8::3", 128), -ENOSPC);
	assert_false(match(l, "2001:db8::3"));
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 2);
	fc_locals_free(l);
}

/* ------------------------------------------------------------------------ */

static void
pkt_v4(struct fc_pkt *p, const char *src, const char *dst, uint8_t stale_flags)
{
	memset(p, 0, sizeof(*p));
	p->key.family = FC_AF_INET4;
	memcpy(&p->key.v4.src, addr_from(src).b, 4);
	memcpy(&p->key.v4.dst, addr_from(dst).b, 4);
	p->key.v4.proto = 6;
	p->key.v4.sport = htons(1000);
	p->key.v4.dport = htons(80);
	p->key.v4.flags = stale_flags;
}

static void
pkt_v6(struct fc_pkt *p, const char *src, const char *dst, uint8_t stale_flags)
{
	memset(p, 0, sizeof(*p));
	p->key.family = FC_AF_INET6;
	memcpy(p->key.v6.src, addr_from(src).b, 16);
	memcpy(p->key.v6.dst, addr_from(dst).b, 16);
	p->key.v6.proto = 17;
	p->key.v6.flags = stale_flags;
}

static uint8_t
want_bits(bool s, bool d)
{
	return (s ? FC_KEY_F_SRC_LOCAL : 0) | (d ? FC_KEY_F_DST_LOCAL : 0);
}

static void
test_mark_burst(void **state)
{
	static const char *const v4_local[] = {"10.0.0.1", "10.0.0.77", "192.0.2.1"};
	static const char *const v4_remote[] = {"10.0.1.1", "8.8.8.8", "192.0.2.2"};
	static const char *const v6_local[] = {"2001:db8::1", "2001:db8::abcd", "fe80::1"};
	static const char *const v6_remote[] = {"2001:db8:0:1::1", "2606:4700::1", "fe80::2"};
	struct fc_locals *l = *state;
	struct fc_pkt pkts[100], before[100];
	unsigned int i, n = RTE_DIM(pkts), checked_none = 0;
	unsigned int seen[2][4] = {{0}};

	assert_int_equal(add(l, "10.0.0.0", 24), 0);
	assert_int_equal(add(l, "192.0.2.1", 32), 0);
	assert_int_equal(add(l, "2001:db8::", 64), 0);
	assert_int_equal(add(l, "fe80::1", 128), 0);

	/*
	 * More packets than one internal chunk, families interleaved, every
	 * combination of local src/dst, and stale bits set on entry (they must
	 * be recomputed, not OR-ed).
	 */
	for (i = 0; i < n; i++) {
		bool s = (i / 3) & 1, d = (i / 6) & 1;
		uint8_t stale = (uint8_t)((i * 5) & 3);

		switch (i % 3) {
		case 0:
			pkt_v4(&pkts[i], s ? v4_local[i % 3] : v4_remote[(i / 2) % 3],
				d ? v4_local[(i / 4) % 3] : v4_remote[i % 3], stale);
			break;
		case 1:
			pkt_v6(&pkts[i], s ? v6_local[i % 3] : v6_remote[(i / 2) % 3],
				d ? v6_local[(i / 4) % 3] : v6_remote[i % 3], stale);
			break;
		default:
			memset(&pkts[i], 0xa5, sizeof(pkts[i]));
			pkts[i].key.family = FC_AF_NONE;
			break;
		}
	}
	memcpy(before, pkts, sizeof(pkts));

	fc_locals_mark_burst(l, pkts, n);

	for (i = 0; i < n; i++) {
		const struct fc_key *k = &pkts[i].key;
		const struct fc_key *b = &before[i].key;

		if (b->family == FC_AF_NONE) {
			/* skipped: not a byte changed */
			assert_memory_equal(&pkts[i], &before[i], sizeof(pkts[i]));
			checked_none++;
			continue;
		}
		if (b->family == FC_AF_INET4) {
			bool s = fc_locals_match(l, FC_AF_INET4, (const uint8_t *)&b->v4.src);
			bool d = fc_locals_match(l, FC_AF_INET4, (const uint8_t *)&b->v4.dst);
			struct fc_key_v4 want = b->v4;

			want.flags = want_bits(s, d);
			assert_memory_equal(&k->v4, &want, sizeof(want));
			/* and the generator's intent agrees with match() */
			assert_int_equal(s, ((i / 3) & 1) != 0);
			assert_int_equal(d, ((i / 6) & 1) != 0);
			seen[0][want.flags]++;
		} else {
			bool s = fc_locals_match(l, FC_AF_INET6, b->v6.src);
			bool d = fc_locals_match(l, FC_AF_INET6, b->v6.dst);
			struct fc_key_v6 want = b->v6;

			want.flags = want_bits(s, d);
			assert_memory_equal(&k->v6, &want, sizeof(want));
			assert_int_equal(s, ((i / 3) & 1) != 0);
			assert_int_equal(d, ((i / 6) & 1) != 0);
			seen[1][want.flags]++;
		}
		/* nothing else of the packet changed */
		assert_memory_equal((const uint8_t *)&pkts[i] + sizeof(struct fc_key),
			(const uint8_t *)&before[i] + sizeof(struct fc_key),
			sizeof(pkts[i]) - sizeof(struct fc_key));
	}
	assert_true(checked_none > 0);
	for (i = 0; i < 4; i++) {
		assert_true(seen[0][i] > 0);
		assert_true(seen[1][i] > 0);
	}

	/* sizes around the chunk boundary, and zero */
	for (n = 0; n <= 70; n++) {
		memcpy(pkts, before, sizeof(pkts));
		fc_locals_mark_burst(l, pkts, n);
		for (i = 0; i < RTE_DIM(pkts); i++) {
			if (i >= n || before[i].key.family == FC_AF_NONE) {
				assert_memory_equal(&pkts[i], &before[i], sizeof(pkts[i]));
				continue;
			}
			if (before[i].key.family == FC_AF_INET4)
				assert_int_equal(pkts[i].key.v4.flags,
					want_bits(((i / 3) & 1) != 0, ((i / 6) & 1) != 0));
			else
				assert_int_equal(pkts[i].key.v6.flags,
					want_bits(((i / 3) & 1) != 0, ((i / 6) & 1) != 0));
		}
	}

	/* a burst of one family only, all local or all not */
	for (i = 0; i < 40; i++)
		pkt_v4(&pkts[i], "10.0.0.5", "10.0.0.6", 0);
	fc_locals_mark_burst(l, pkts, 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(pkts[i].key.v4.flags, FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	for (i = 0; i < 40; i++)
		pkt_v6(&pkts[i], "::2", "::3", FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL);
	fc_locals_mark_burst(l, pkts, 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(pkts[i].key.v6.flags, 0);

	assert_int_equal(del(l, "10.0.0.0", 24), 0);
	assert_int_equal(del(l, "192.0.2.1", 32), 0);
	assert_int_equal(del(l, "2001:db8::", 64), 0);
	assert_int_equal(del(l, "fe80::1", 128), 0);

	/* nothing is local any more */
	memcpy(pkts, before, sizeof(pkts));
	fc_locals_mark_burst(l, pkts, RTE_DIM(pkts));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		if (before[i].key.family == FC_AF_INET4)
			assert_int_equal(pkts[i].key.v4.flags, 0);
		else if (before[i].key.family == FC_AF_INET6)
			assert_int_equal(pkts[i].key.v6.flags, 0);
	}
}

/*
 * Host ports: a local source is this host's own (SRC_LOCAL) on a port that
 * carries its packets, forged (SRC_FORGED, SRC_LOCAL clear) on any other;
 * the destination bit does not depend on the port. A new table takes
 * every port as the host's; stale forged bits are cleared.
 */
static void
test_host_ports(void **state)
{
	struct fc_locals *l = *state;
	struct fc_pkt pkts[48];
	unsigned int i;

	assert_int_equal(add(l, "192.0.2.1", 32), 0);
	assert_int_equal(add(l, "2001:db8::1", 128), 0);
	assert_true(fc_locals_host_ports(l) == UINT64_MAX);
	assert_true(fc_locals_host_ports(NULL) == UINT64_MAX);

	/* Every port the host's (the default): a local source is OUTPUT's anywhere. */
	for (i = 0; i < RTE_DIM(pkts); i++) {
		if (i & 1)
			pkt_v6(&pkts[i], "2001:db8::1", "2001:db8::9", FC_KEY_F_SRC_FORGED);
		else
			pkt_v4(&pkts[i], "192.0.2.1", "198.51.100.9", FC_KEY_F_SRC_FORGED);
		fc_key_set_in_port(&pkts[i].key, (uint16_t)(i * 1000));
	}
	fc_locals_mark_burst(l, pkts, RTE_DIM(pkts));
	for (i = 0; i < RTE_DIM(pkts); i++)
		assert_int_equal(fc_key_flags(&pkts[i].key), FC_KEY_F_SRC_LOCAL);

	/* Ports 1 and 63 carry the host's packets: elsewhere (64 and past too) forged. */
	fc_locals_host_ports_set(l, (UINT64_C(1) << 1) | (UINT64_C(1) << 63));
	assert_true(fc_locals_host_ports(l) == ((UINT64_C(1) << 1) | (UINT64_C(1) << 63)));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		static const uint16_t port[6] = {0, 1, 2, 63, 64, 65535};

		switch (i % 4) {
		case 0:
			pkt_v4(&pkts[i], "192.0.2.1", "198.51.100.9", FC_KEY_F_SRC_LOCAL);
			break;
		case 1:
			pkt_v6(&pkts[i], "2001:db8::1", "2001:db8::9", FC_KEY_F_SRC_LOCAL);
			break;
		case 2: /* from this host to itself, or forged to this host */
			pkt_v4(&pkts[i], "192.0.2.1", "192.0.2.1", 0);
			break;
		default: /* not local at all: no bit, whatever the port */
			pkt_v6(&pkts[i], "2001:db8::2", "2001:db8::1", FC_KEY_F_SRC_FORGED);
			break;
		}
		fc_key_set_in_port(&pkts[i].key, port[i % 6]);
	}
	fc_locals_mark_burst(l, pkts, RTE_DIM(pkts));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		uint16_t in = fc_key_in_port(&pkts[i].key);
		uint8_t src = (in == 1 || in == 63) ? FC_KEY_F_SRC_LOCAL : FC_KEY_F_SRC_FORGED;
		uint8_t want = i % 4 == 3   ? FC_KEY_F_DST_LOCAL
			       : i % 4 == 2 ? (uint8_t)(src | FC_KEY_F_DST_LOCAL)
					    : src;

		assert_int_equal(fc_key_flags(&pkts[i].key), want);
	}

	/* No host port at all: every local source from a port is forged. */
	fc_locals_host_ports_set(l, 0);
	pkt_v4(&pkts[0], "192.0.2.1", "198.51.100.9", 0);
	pkt_v6(&pkts[1], "2001:db8::1", "2001:db8::9", 0);
	fc_locals_mark_burst(l, pkts, 2);
	assert_int_equal(fc_key_flags(&pkts[0].key), FC_KEY_F_SRC_FORGED);
	assert_int_equal(fc_key_flags(&pkts[1].key), FC_KEY_F_SRC_FORGED);

	/* No local address left: the stale forged bit goes too. */
	assert_int_equal(del(l, "192.0.2.1", 32), 0);
	assert_int_equal(del(l, "2001:db8::1", 128), 0);
	fc_locals_mark_burst(l, pkts, 2);
	assert_int_equal(fc_key_flags(&pkts[0].key), 0);
	assert_int_equal(fc_key_flags(&pkts[1].key), 0);
	fc_locals_host_ports_set(l, UINT64_MAX);
}

/* ------------------------------------------------------------------------ */

static void
test_dump_count(void **state)
{
	struct fc_locals *l = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	/* empty */
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fc_locals_dump(l, f), 0);
	fclose(f);
	assert_string_equal(text, "");
	free(text);

	/* added out of order, with host bits; dumped sorted, v4 first, masked */
	assert_int_equal(add(l, "2001:db8::1", 128), 0);
	assert_int_equal(add(l, "192.168.1.77", 24), 0);
	assert_int_equal(add(l, "10.1.2.3", 32), 0);
	assert_int_equal(add(l, "2001:db8::", 64), 0);
	assert_int_equal(add(l, "10.0.0.0", 8), 0);
	assert_int_equal(add(l, "fe80::", 10), 0);
	assert_int_equal(add(l, "::ffff:0:0", 96), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 3);
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 4);

	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fc_locals_dump(l, f), 7);
	fclose(f);
	assert_string_equal(text, "10.0.0.0/8\n"
				  "10.1.2.3/32\n"
				  "192.168.1.0/24\n"
				  "::ffff:0.0.0.0/96\n"
				  "2001:db8::/64\n"
				  "2001:db8::1/128\n"
				  "fe80::/10\n");
	free(text);

	assert_int_equal(del(l, "10.1.2.3", 32), 0);
	assert_int_equal(del(l, "2001:db8::", 64), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 2);
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 3);

	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(fc_locals_dump(l, f), 5);
	fclose(f);
	assert_string_equal(text, "10.0.0.0/8\n"
				  "192.168.1.0/24\n"
				  "::ffff:0.0.0.0/96\n"
				  "2001:db8::1/128\n"
				  "fe80::/10\n");
	free(text);

	assert_int_equal(del(l, "10.0.0.0", 8), 0);
	assert_int_equal(del(l, "192.168.1.0", 24), 0);
	assert_int_equal(del(l, "::ffff:0:0", 96), 0);
	assert_int_equal(del(l, "2001:db8::1", 128), 0);
	assert_int_equal(del(l, "fe80::", 10), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 0);
}

/* Host-order netmask of an IPv4 prefix length, 1..32. */
static uint32_t
prefix_mask(uint8_t depth)
{
	return UINT32_MAX << (32 - depth);
}

/*
 * Random adds and deletes against a plain reference list: match() and the
 * dump agree with it after every step.
 */
static void
test_random_vs_reference(void **state)
{
	struct ref {
		uint32_t net; /* host order, masked */
		uint8_t depth;
		bool present;
	} ref[48];
	struct fc_locals *l = *state;
	uint64_t x = 12345;
	unsigned int i, j, step, present = 0;
	bool now;

	for (i = 0; i < RTE_DIM(ref); i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ref[i].depth = (uint8_t)(8 + (x >> 33) % 25); /* 8..32 */
		ref[i].net = (uint32_t)(0x0a000000u | ((x >> 7) & 0x00ffffffu));
		ref[i].net &= prefix_mask(ref[i].depth);
		ref[i].present = false;
	}
	for (step = 0; step < 400; step++) {
		uint32_t be, probe;
		int rc;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		i = (unsigned int)((x >> 40) % RTE_DIM(ref));
		be = htonl(ref[i].net);
		if (ref[i].present) {
			rc = fc_locals_del(l, FC_AF_INET4, (const uint8_t *)&be, ref[i].depth);
			present--;
		} else {
			rc = fc_locals_add(l, FC_AF_INET4, (const uint8_t *)&be, ref[i].depth);
			present++;
		}
		assert_int_equal(rc, 0);
		/* two random entries may be the same prefix: keep them in step */
		now = !ref[i].present;
		for (j = 0; j < RTE_DIM(ref); j++)
			if (ref[j].net == ref[i].net && ref[j].depth == ref[i].depth)
				ref[j].present = now;
		assert_int_equal(fc_locals_count(l, FC_AF_INET4), present);

		/* probe inside, just outside, and around every reference prefix */
		for (j = 0; j < RTE_DIM(ref); j++) {
			uint32_t probes[3] = {ref[j].net, ref[j].net | 1u,
				ref[j].net + ~prefix_mask(ref[j].depth) + 1u};
			unsigned int p, r;

			for (p = 0; p < 3; p++) {
				bool want = false;

				probe = probes[p];
				for (r = 0; r < RTE_DIM(ref); r++) {
					if (ref[r].present &&
						(probe & prefix_mask(ref[r].depth)) == ref[r].net)
						want = true;
				}
				be = htonl(probe);
				assert_int_equal(
					fc_locals_match(l, FC_AF_INET4, (const uint8_t *)&be),
					want);
			}
		}
	}
	/* clean up */
	for (i = 0; i < RTE_DIM(ref); i++) {
		uint32_t be = htonl(ref[i].net);

		if (ref[i].present) {
			assert_int_equal(
				fc_locals_del(l, FC_AF_INET4, (const uint8_t *)&be, ref[i].depth),
				0);
			for (j = 0; j < RTE_DIM(ref); j++)
				if (ref[j].net == ref[i].net && ref[j].depth == ref[i].depth)
					ref[j].present = false;
		}
	}
	assert_int_equal(fc_locals_count(l, FC_AF_INET4), 0);
}

/* Is @p a (16 bytes) under the @p depth-bit prefix @p net? */
static bool
v6_under(const uint8_t *a, const uint8_t *net, uint8_t depth)
{
	for (unsigned int b = 0; b < depth; b++) {
		uint8_t m = (uint8_t)(0x80 >> (b % 8));

		if ((a[b / 8] & m) != (net[b / 8] & m))
			return false;
	}
	return true;
}

/*
 * The prefilter in front of LPM (see locals.c) must never hide a local
 * address: random IPv6 prefixes of every length class it treats apart
 * (shorter than /32: every address a candidate; /32 to /47: every /48 under
 * it; /48 and longer: one /48), random adds and deletes, and after every
 * step match() and a marked burst of probes (inside, at the edge, just
 * outside each prefix, and unrelated addresses) agree with a plain list.
 * The IPv4 map is exact by /16; test_random_vs_reference covers /8../32
 * with match(), and this test marks bursts of IPv4 probes too.
 */
static void
test_prefilter_vs_reference(void **state)
{
	struct ref6 {
		uint8_t net[16];
		uint8_t depth;
		bool present;
	} ref[40];
	struct fc_locals *l = *state;
	struct fc_pkt pkts[64];
	uint64_t x = 777;
	unsigned int i, j, step, k;

	for (i = 0; i < RTE_DIM(ref); i++) {
		static const uint8_t depths[] = {20, 31, 32, 36, 44, 47, 48, 56, 64, 100, 128};

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		memset(ref[i].net, 0, sizeof(ref[i].net));
		ref[i].net[0] = 0x20;
		ref[i].net[1] = 0x01;
		ref[i].net[2] = 0x0d;
		ref[i].net[3] = (uint8_t)(0xb8 + (x >> 60) % 2);
		for (k = 4; k < 16; k++)
			ref[i].net[k] = (uint8_t)(x >> (8 * (k % 8)));
		ref[i].depth = depths[(x >> 20) % RTE_DIM(depths)];
		for (k = ref[i].depth; k < 128; k++)
			ref[i].net[k / 8] &= (uint8_t) ~(0x80 >> (k % 8));
		ref[i].present = false;
	}
	for (step = 0; step < 160; step++) {
		uint8_t probes[RTE_DIM(ref) * 3 + 4][16];
		unsigned int np = 0;
		bool now;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		i = (unsigned int)((x >> 40) % RTE_DIM(ref));
		if (ref[i].present)
			assert_int_equal(fc_locals_del(l, FC_AF_INET6, ref[i].net, ref[i].depth), 0);
		else
			assert_int_equal(fc_locals_add(l, FC_AF_INET6, ref[i].net, ref[i].depth), 0);
		now = !ref[i].present;
		for (j = 0; j < RTE_DIM(ref); j++)
			if (ref[j].depth == ref[i].depth &&
				memcmp(ref[j].net, ref[i].net, sizeof(ref[j].net)) == 0)
				ref[j].present = now;

		for (j = 0; j < RTE_DIM(ref); j++) {
			uint8_t d = ref[j].depth;

			memcpy(probes[np++], ref[j].net, 16); /* the first address */
			memcpy(probes[np], ref[j].net, 16);   /* the last one */
			for (k = d; k < 128; k++)
				probes[np][k / 8] |= (uint8_t)(0x80 >> (k % 8));
			np++;
			memcpy(probes[np], ref[j].net, 16);   /* the next prefix over */
			probes[np][(d - 1) / 8] ^= (uint8_t)(0x80 >> ((d - 1) % 8));
			np++;
		}
		for (k = 0; k < 4; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			memcpy(probes[np], &x, 8);
			memcpy(probes[np++] + 8, &x, 8);
		}
		for (j = 0; j < np; j += RTE_DIM(pkts) / 2) {
			unsigned int n = RTE_MIN(np - j, (unsigned int)RTE_DIM(pkts) / 2);
			bool want[RTE_DIM(pkts) / 2];

			for (k = 0; k < n; k++) {
				want[k] = false;
				for (unsigned int r = 0; r < RTE_DIM(ref); r++)
					if (ref[r].present &&
						v6_under(probes[j + k], ref[r].net, ref[r].depth))
						want[k] = true;
				assert_int_equal(fc_locals_match(l, FC_AF_INET6, probes[j + k]),
					want[k]);
				/* a packet from the probe to the next probe, and an IPv4 one */
				memset(&pkts[2 * k], 0, sizeof(pkts[0]));
				pkts[2 * k].key.family = FC_AF_INET6;
				memcpy(pkts[2 * k].key.v6.src, probes[j + k], 16);
				memcpy(pkts[2 * k].key.v6.dst, probes[j + (k + 1) % n], 16);
				pkts[2 * k].key.v6.flags = FC_KEY_F_SRC_LOCAL;
				pkt_v4(&pkts[2 * k + 1], "10.1.2.3", "8.8.8.8", FC_KEY_F_DST_LOCAL);
			}
			fc_locals_mark_burst(l, pkts, 2 * n);
			for (k = 0; k < n; k++) {
				assert_int_equal(pkts[2 * k].key.v6.flags,
					want_bits(want[k], want[(k + 1) % n]));
				assert_int_equal(pkts[2 * k + 1].key.v4.flags, 0);
			}
		}
	}
	for (i = 0; i < RTE_DIM(ref); i++) {
		if (!ref[i].present)
			continue;
		assert_int_equal(fc_locals_del(l, FC_AF_INET6, ref[i].net, ref[i].depth), 0);
		for (j = 0; j < RTE_DIM(ref); j++)
			if (ref[j].depth == ref[i].depth &&
				memcmp(ref[j].net, ref[i].net, sizeof(ref[j].net)) == 0)
				ref[j].present = false;
	}
	assert_int_equal(fc_locals_count(l, FC_AF_INET6), 0);
}

/* ------------------------------------------------------------------------ */

/*
 * Readers while the control thread changes prefixes. Only prefixes of /24 or
 * shorter churn here, so every change is a single-entry store in rte_lpm's
 * tbl24 (see the concurrency note in locals.c): an address under a stable
 * prefix must read local on every lookup, an address under no prefix never.
 */
struct reader_arg {
	const struct fc_locals *l;
	volatile int stop;
	unsigned long rounds;
	unsigned long bad;
};

static void *
reader(void *p)
{
	struct reader_arg *a = p;
	struct fc_pkt pkts[32];
	unsigned int i;

	while (!a->stop || a->rounds == 0) {
		for (i = 0; i < RTE_DIM(pkts); i++) {
			if (i & 1)
				pkt_v4(&pkts[i], "10.1.2.3", "11.0.0.1", 0);
			else
				pkt_v6(&pkts[i], "2001:db8::1", "3001:db8::1", 0);
		}
		fc_locals_mark_burst(a->l, pkts, RTE_DIM(pkts));
		for (i = 0; i < RTE_DIM(pkts); i++) {
			uint8_t f = (i & 1) ? pkts[i].key.v4.flags : pkts[i].key.v6.flags;

			if (f != FC_KEY_F_SRC_LOCAL)
				a->bad++;
		}
		a->rounds++;
	}
	return NULL;
}

static void
test_concurrent_readers(void **state)
{
	struct fc_locals *l = *state;
	struct reader_arg arg = {.l = l};
	pthread_t th;
	unsigned int i;

	assert_int_equal(add(l, "10.0.0.0", 8), 0);
	assert_int_equal(add(l, "2001:db8::", 32), 0);
	assert_int_equal(pthread_create(&th, NULL, reader, &arg), 0);
	for (i = 0; i < 3000; i++) {
		assert_int_equal(add(l, "10.1.0.0", 16), 0);
		assert_int_equal(add(l, "10.1.2.0", 24), 0);
		assert_int_equal(add(l, "12.0.0.0", 8), 0);
		assert_int_equal(del(l, "10.1.0.0", 16), 0);
		assert_int_equal(del(l, "10.1.2.0", 24), 0);
		assert_int_equal(del(l, "12.0.0.0", 8), 0);
		assert_int_equal(add(l, "2001::", 16), 0);
		assert_int_equal(del(l, "2001::", 16), 0);
	}
	arg.stop = 1;
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(arg.rounds > 0);
	assert_int_equal(arg.bad, 0);
	assert_int_equal(del(l, "10.0.0.0", 8), 0);
	assert_int_equal(del(l, "2001:db8::", 32), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_args),
		cmocka_unit_test(test_full),
		cmocka_unit_test_setup_teardown(test_v4_overlap, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(test_v6_overlap, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(test_errors, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(test_mark_burst, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(test_host_ports, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(test_dump_count, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(
			test_random_vs_reference, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(
			test_prefilter_vs_reference, setup_table, teardown_table),
		cmocka_unit_test_setup_teardown(
			test_concurrent_readers, setup_table, teardown_table),
	};

	if (gufc_test_eal_init("locals", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
