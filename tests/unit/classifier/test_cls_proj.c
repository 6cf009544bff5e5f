/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The key projection (rule_cls_key_project(), rule_cls_proj.c) against
 * the reference evaluator (rule_ref.c): two keys the projection makes
 * equal must get the same decisions from the rules, the filter's and
 * both NAT stages' (verdict or action, hook, rule), in every ctstate.
 * Random sets shaped like bench-peers' storm set (exact five-tuple drop
 * rules from small address and port pools, some of them blocking real
 * connections both ways), mixed with rules that leave a field out, negate
 * one, or match a prefix or a port range, NAT rules of the same shapes;
 * random keys from the same pools, and variants of each with one to four
 * fields changed. Wherever a variant projects as its key does, the oracle
 * must answer alike. How many variants the projection equated is counted
 * and held to a floor: a projection that equates nothing would pass the
 * rest. The sets exercise what no rule can match (a field in no rule's
 * range: every rule that asks for it fails, so the fields only those
 * rules read are no key's own either).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "classifier.h"
#include "eal_test.h"
#include "rule_lang.h"

static uint64_t rng_state;

static void
seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static uint32_t
rn(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 11) % n;
}

static bool
chance(unsigned int pct)
{
	return rn(100) < pct;
}

/* The pools (bench-peers' storm's): clients 10.0.0.0/16, 24 servers, client ports 32768-60999. */
static const uint16_t srv_ports[] = {22, 80, 443, 8080};

enum fld { F_SRC, F_DST, F_SPORT, F_DPORT, F__N };

struct tup {
	uint32_t v[F__N]; /* addresses host order, ports */
};

static uint32_t
rand_field(unsigned int f)
{
	switch (f) {
	case F_SRC:
		return chance(90) ? 0x0a000000u + rn(65536) : 0x0a010000u + rn(256);
	case F_DST:
		return chance(90) ? 0xc0000201u + rn(24) : 0xc0000300u + rn(256);
	case F_SPORT:
		return chance(90) ? 32768 + rn(28232) : rn(65536);
	default:
		return chance(90) ? srv_ports[rn(RTE_DIM(srv_ports))] : rn(65536);
	}
}

static void
rand_tup(struct tup *t)
{
	for (unsigned int f = 0; f < F__N; f++)
		t->v[f] = rand_field(f);
}

static int
put_addr(char *b, size_t n, uint32_t a)
{
	return snprintf(b, n, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

/*
 * The match of a rule on tuple @p t: every field, but that one field is
 * left out (@p skip), negated (@p neg), or wide (@p wide: a /28 or a
 * range of 16 ports around the tuple's); F__N for none.
 */
static size_t
put_match(char *b, size_t n, const struct tup *t, unsigned int skip, unsigned int neg,
	unsigned int wide)
{
	static const char *const kw[F__N] = {"src", "dst", "sport", "dport"};
	size_t o = (size_t)snprintf(b, n, " proto tcp");

	for (unsigned int f = 0; f < F__N && o < n; f++) {
		if (f == skip)
			continue;
		o += (size_t)snprintf(b + o, n - o, " %s %s", kw[f], f == neg ? "!" : "");
		if (o >= n)
			break;
		if (f <= F_DST) {
			o += (size_t)put_addr(b + o, n - o, f == wide ? t->v[f] & ~15u : t->v[f]);
			if (f == wide && o < n)
				o += (size_t)snprintf(b + o, n - o, "/28");
		} else if (f == wide) {
			o += (size_t)snprintf(b + o, n - o, "%u-%u", t->v[f] & ~15u, t->v[f] | 15u);
		} else {
			o += (size_t)snprintf(b + o, n - o, "%u", t->v[f]);
		}
	}
	return o;
}

/* Which odd shapes a set's rules take: a field left out, negated, widened. */
#define ODD_SKIP 1u
#define ODD_NEG 2u
#define ODD_WIDE 4u
#define ODD_ALL 7u

static unsigned int odd_kinds = ODD_ALL;

/* A rule of the storm set's shapes on tuple @p t, with action @p act. */
static size_t
put_rule(char *b, size_t n, const char *act, const struct tup *t, unsigned int pct_odd)
{
	size_t o = (size_t)snprintf(b, n, "%s", act);
	unsigned int skip = F__N, neg = F__N, wide = F__N, kind;

	if (chance(pct_odd)) {
		do
			kind = rn(3);
		while (!(odd_kinds & (1u << kind)));
		switch (kind) {
		case 0:
			skip = rn(F__N);
			break;
		case 1:
			neg = rn(F__N);
			break;
		default:
			wide = rn(F__N);
			break;
		}
	}
	o += put_match(b + o, n - o, t, skip, neg, wide);
	if (o < n)
		o += (size_t)snprintf(b + o, n - o, "\n");
	return o;
}

/* The flows a set is aimed at: keys come from them and from the pools. */
#define N_FLOWS 64

/*
 * A set of @p n_drops drop rules (a few blocking flows of @p flows both
 * ways, the rest random tuples of the pools; @p pct_odd of them leave a
 * field out, negate one or widen one), between `accept ctstate
 * established,related` and `accept ctstate new`; a nat table with a DNAT
 * and an SNAT of the same shapes. NULL where it does not parse.
 */
static struct rule_set *
rand_set(const struct tup *flows, unsigned int n_drops, unsigned int pct_odd)
{
	size_t cap = 256 * ((size_t)n_drops + 16), o = 0;
	char *b = malloc(cap);
	struct rule_error err;
	struct rule_set *s;

	assert_non_null(b);
	o += (size_t)snprintf(b + o, cap - o, "policy drop\naccept ctstate established,related\n");
	for (unsigned int i = 0; i < n_drops; i++) {
		struct tup t;

		if (i < n_drops / 10) {
			/* A flow blocked, its reply direction too. */
			t = flows[rn(N_FLOWS)];
			if (i & 1) {
				struct tup r = {
					{t.v[F_DST], t.v[F_SRC], t.v[F_DPORT], t.v[F_SPORT]}};

				t = r;
			}
		} else {
			rand_tup(&t);
		}
		o += put_rule(b + o, cap - o, "drop", &t, pct_odd);
	}
	o += (size_t)snprintf(b + o, cap - o, "accept ctstate new\ntable nat\n"
					       "chain PRE hook prerouting\n");
	for (unsigned int i = 0; i < 4; i++) {
		struct tup t = flows[rn(N_FLOWS)];

		o += put_rule(b + o, cap - o, "dnat to 192.0.2.200:8000", &t, 50);
	}
	o += (size_t)snprintf(b + o, cap - o, "chain POST hook postrouting\n");
	for (unsigned int i = 0; i < 4; i++) {
		struct tup t = flows[rn(N_FLOWS)];

		o += put_rule(b + o, cap - o, "snat to 203.0.113.1", &t, 50);
	}
	assert_true(o < cap);
	s = rule_set_parse(b, "proj", &err);
	if (s == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, b);
	free(b);
	return s;
}

static void
key_of(const struct tup *t, struct fc_key *k)
{
	uint32_t a;

	memset(k, 0, sizeof(*k));
	k->family = FC_AF_INET4;
	k->v4.proto = 6;
	a = htonl(t->v[F_SRC]);
	memcpy(&k->v4.src, &a, 4);
	a = htonl(t->v[F_DST]);
	memcpy(&k->v4.dst, &a, 4);
	k->v4.sport = htons((uint16_t)t->v[F_SPORT]);
	k->v4.dport = htons((uint16_t)t->v[F_DPORT]);
}

/* Every decision the oracle makes of key @p k in ctstate @p ct, folded for a comparison. */
struct answer {
	struct rule_result f;
	struct rule_nat_result n[2];
};

static void
answer(const struct rule_set *s, const struct fc_key *k, unsigned int ct, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(rule_ref_filter(s, k, ct, 0, &a->f), 0);
	for (int st = RULE_NAT_DST; st <= RULE_NAT_SRC; st++)
		assert_int_equal(rule_ref_nat(s, st, k, ct, 0, &a->n[st - RULE_NAT_DST]), 0);
}

static void
same_answer(const struct answer *a, const struct answer *b, const struct fc_key *k,
	const struct fc_key *v, unsigned int ct)
{
	char ka[FC_KEY_STRLEN], kb[FC_KEY_STRLEN];
	bool eq = a->f.verdict == b->f.verdict && a->f.hook == b->f.hook &&
		  a->f.rule_id == b->f.rule_id;

	for (unsigned int i = 0; i < 2; i++)
		eq = eq && a->n[i].action == b->n[i].action && a->n[i].hook == b->n[i].hook &&
		     a->n[i].rule_id == b->n[i].rule_id;
	if (eq)
		return;
	fc_key_format(k, ka, sizeof(ka));
	fc_key_format(v, kb, sizeof(kb));
	fail_msg("projected alike, decided apart (ctstate 0x%x): %s rule %u/%u/%u, %s rule "
		 "%u/%u/%u",
		ct, ka, a->f.rule_id, a->n[0].rule_id, a->n[1].rule_id, kb, b->f.rule_id,
		b->n[0].rule_id, b->n[1].rule_id);
}

/*
 * @p n_sets sets of @p n_drops drops, @p n_keys keys each with @p n_var
 * variants: every variant the projection equates with its key decided
 * alike. @return the variants equated.
 */
static uint64_t
check_sets(unsigned int n_sets, unsigned int n_drops, unsigned int pct_odd, unsigned int n_keys,
	unsigned int n_var)
{
	static const unsigned int cts[] = {RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_INVALID};
	uint64_t equated = 0;

	for (unsigned int si = 0; si < n_sets; si++) {
		struct tup flows[N_FLOWS];
		struct rule_set *s;
		struct rule_cls *c;

		seed(7000 + si * 31 + n_drops);
		for (unsigned int i = 0; i < N_FLOWS; i++)
			rand_tup(&flows[i]);
		s = rand_set(flows, n_drops, pct_odd);
		c = rule_cls_build(s, "proj", SOCKET_ID_ANY);
		if (c == NULL)
			fail_msg("rule_cls_build: %s", rte_strerror(rte_errno));
		for (unsigned int ki = 0; ki < n_keys; ki++) {
			struct tup t;
			struct fc_key k, pk;

			if (chance(50)) {
				t = flows[rn(N_FLOWS)];
				/* Maybe with a field no rule names (a rule's others). */
				if (chance(30)) {
					unsigned int f = rn(F__N);

					t.v[f] = rand_field(f);
				}
			} else {
				rand_tup(&t);
			}
			key_of(&t, &k);
			pk = k;
			assert_true(rule_cls_key_project(c, &pk));
			for (unsigned int vi = 0; vi < n_var; vi++) {
				struct tup u = t;
				struct fc_key v, pv;
				unsigned int nf = 1 + rn(F__N);

				for (unsigned int j = 0; j < nf; j++) {
					unsigned int f = rn(F__N);

					/* A flow's field (a rule may name it) or the pools'. */
					u.v[f] = chance(50) ? flows[rn(N_FLOWS)].v[f]
							    : rand_field(f);
				}
				key_of(&u, &v);
				pv = v;
				assert_true(rule_cls_key_project(c, &pv));
				if (memcmp(&pk, &pv, sizeof(pk)) != 0)
					continue;
				equated++;
				for (unsigned int ci = 0; ci < RTE_DIM(cts); ci++) {
					struct answer a, b;

					answer(s, &k, cts[ci], &a);
					answer(s, &v, cts[ci], &b);
					same_answer(&a, &b, &k, &v, cts[ci]);
				}
			}
		}
		rule_cls_free(c);
		rule_set_free(s);
	}
	return equated;
}

/* The storm set's shape: exact five-tuples, a few rules of other shapes. */
static void
test_proj_tuples(void **state)
{
	uint64_t n;

	(void)state;
	n = check_sets(6, 400, 5, 400, 40);
	printf("  storm-shaped sets: %" PRIu64 " of %u variants projected as their keys\n", n,
		6 * 400 * 40);
	/* 66,000 here; each field's class alone: 19,000. */
	assert_true(n >= 40000);
}

/*
 * Negated fields alone among the odd rules: a negated field holds its
 * rule's match open where no range holds the value (it must not count
 * as a field that makes the rule fail).
 */
static void
test_proj_negated(void **state)
{
	uint64_t n;

	(void)state;
	odd_kinds = ODD_NEG;
	n = check_sets(6, 200, 20, 400, 40);
	odd_kinds = ODD_ALL;
	printf("  negated fields: %" PRIu64 " of %u variants projected as their keys\n", n,
		6 * 400 * 40);
	/* 75,000 here; each field's class alone: 22,000. */
	assert_true(n >= 40000);
}

/* Many rules of other shapes: fields left out, negated, widened. */
static void
test_proj_mixed(void **state)
{
	uint64_t n;

	(void)state;
	n = check_sets(12, 60, 60, 300, 40);
	printf("  mixed sets: %" PRIu64 " of %u variants projected as their keys\n", n,
		12 * 300 * 40);
	/* 123,000 here; each field's class alone: 37,000. */
	assert_true(n >= 80000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proj_tuples),
		cmocka_unit_test(test_proj_negated),
		cmocka_unit_test(test_proj_mixed),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (gufc_test_eal_init_mem("clsproj", "0", 256) < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
