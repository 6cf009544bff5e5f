/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the compiled classifier (lib/classifier/rule_cls*.c) against the
 * reference evaluator (rule_ref.c), the oracle: random rule sets with
 * chains (JUMP/GOTO/RETURN, hooked user chains, drop policies), both
 * tables, both families, every kind of match with negations, lists and
 * prefixes of all lengths; random tuples biased to sit on the rules' edges
 * (first/last address of a prefix and one past it, range ends and one past
 * them). Every field of every result must be equal. Plus: known answers,
 * the empty set, packets without ports, ctstate sets, entries too wide to
 * expand, many RETURN points (several banks), a set rte_acl must split
 * over contexts, 1k and 10k-rule sets, a build on a non-EAL pthread, bad
 * arguments, and the DPDK heap given back by rule_cls_free(). Build times
 * and classification rates are printed, never asserted.
 *
 * TEST_FILTER=<cmocka pattern> runs a subset (e.g. TEST_FILTER=test_10k).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "classifier.h"
#include "eal_test.h"
#include "rule_lang.h"

/* ------------------------------------------------------------------------ */
/* Random numbers (fixed seeds: every run tests the same tuples)             */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static void
seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t
rn(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static bool
chance(unsigned int pct)
{
	return rn(100) < pct;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** DPDK heap in use, all sockets: rule_cls_free() must give back all of it. */
static uint64_t
heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

/* ------------------------------------------------------------------------ */
/* Random rules                                                              */
/* ------------------------------------------------------------------------ */

static const char *const v4_pool[] = {
	"10.0.0.0",
	"10.1.2.3",
	"10.255.255.255",
	"192.168.1.1",
	"172.16.5.4",
	"0.0.0.0",
	"255.255.255.255",
	"1.2.3.4",
	"128.0.0.0",
	"127.255.255.255",
};
static const char *const v6_pool[] = {
	"2001:db8::",
	"2001:db8::1",
	"2001:db8:0:1::5",
	"fe80::1",
	"::",
	"::1",
	"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	"2001:db8:1:2:3:4:5:6",
	"8000::",
	"7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
};
static const uint16_t port_pool[] = {
	0,
	1,
	21,
	22,
	23,
	53,
	79,
	80,
	81,
	443,
	1023,
	1024,
	8080,
	32768,
	65534,
	65535,
};
static const uint8_t proto_pool[] = {6, 17, 132, 1, 58, 47, 0, 255};

static unsigned int
fam_bytes(uint8_t fam)
{
	return fam == FC_AF_INET4 ? 4 : 16;
}

/** A random address of family @p fam: from the pool, maybe with some low bits changed. */
static void
rand_addr(uint8_t fam, uint8_t *a)
{
	unsigned int nb = fam_bytes(fam);

	memset(a, 0, 16);
	if (chance(80)) {
		const char *t = fam == FC_AF_INET4 ? v4_pool[rn(RTE_DIM(v4_pool))]
						   : v6_pool[rn(RTE_DIM(v6_pool))];

		assert_int_equal(inet_pton(fam == FC_AF_INET4 ? AF_INET : AF_INET6, t, a), 1);
		if (chance(30))
			a[nb - 1 - rn(2)] ^= (uint8_t)rnd();
	} else {
		for (unsigned int i = 0; i < nb; i++)
			a[i] = (uint8_t)rnd();
	}
}

static void
cut(uint8_t *a, unsigned int len)
{
	for (unsigned int bit = len; bit < 128; bit++)
		a[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
}

static void
rand_prefix(uint8_t fam, struct rule_prefix *p)
{
	static const uint8_t l4[] = {0, 1, 7, 8, 9, 16, 23, 24, 25, 30, 31, 32, 32};
	static const uint8_t l6[] = {0, 1, 16, 32, 48, 63, 64, 65, 96, 120, 127, 128, 128};

	memset(p, 0, sizeof(*p));
	rand_addr(fam, p->addr);
	if (chance(25))
		p->len = (uint8_t)rn(fam_bytes(fam) * 8 + 1);
	else
		p->len = fam == FC_AF_INET4 ? l4[rn(RTE_DIM(l4))] : l6[rn(RTE_DIM(l6))];
	cut(p->addr, p->len);
}

static uint16_t
rand_port(void)
{
	return chance(75) ? port_pool[rn(RTE_DIM(port_pool))] : (uint16_t)rnd();
}

static void
rand_ports(struct rule_ports *p, unsigned int max)
{
	memset(p, 0, sizeof(*p));
	p->n = (uint16_t)(1 + rn(chance(10) ? max : RTE_MIN(3u, max)));
	for (unsigned int i = 0; i < p->n; i++) {
		uint16_t a = rand_port(), b = chance(50) ? a : rand_port();

		if (chance(20) && a < 65535 - 10)
			b = (uint16_t)(a + rn(10));
		p->r[i].lo = RTE_MIN(a, b);
		p->r[i].hi = RTE_MAX(a, b);
	}
}

/** How often things show up in random rules, in percent. */
struct mix {
	unsigned int neg;   /* a matched field is negated */
	unsigned int addr;  /* src, dst matched */
	unsigned int ports; /* ports matched */
	unsigned int ct;    /* ctstate matched */
	unsigned int local; /* a local bit matched */
	unsigned int maxp;  /* most ranges in a port list */
	unsigned int jump;  /* per mille: action JUMP (where a target exists) */
	unsigned int go;    /* per mille: action GOTO (same) */
	unsigned int ret;   /* per mille: action RETURN */
	bool narrow;	    /* every rule matches an address, protocol or port */
};

static const struct mix mix_full = {25, 45, 35, 25, 25, RULE_PORTS_MAX, 140, 70, 70, false};
static const struct mix mix_real = {5, 70, 60, 10, 15, 4, 3, 1, 2, true};

/** A random rule of table @p table with matches only (action ACCEPT). */
static void
rand_match(struct rule *r, const struct mix *x)
{
	static const uint8_t states[] = {
		RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_RELATED, RULE_CT_INVALID};

	rule_init(r);
	r->family = chance(30) ? 0 : chance(50) ? FC_AF_INET4 : FC_AF_INET6;
	if (r->family != 0) {
		if (chance(x->addr)) {
			r->match |= RULE_M_SRC;
			rand_prefix(r->family, &r->src);
		}
		if (chance(x->addr)) {
			r->match |= RULE_M_DST;
			rand_prefix(r->family, &r->dst);
		}
	}
	if (chance(x->ports)) {
		static const uint8_t pp[] = {6, 17, 132};

		r->match |= RULE_M_PROTO;
		r->proto = pp[rn(3)];
		if (chance(70)) {
			r->match |= RULE_M_DPORT;
			rand_ports(&r->dport, x->maxp);
		}
		if (chance(35)) {
			r->match |= RULE_M_SPORT;
			rand_ports(&r->sport, x->maxp);
		}
	} else if (chance(40)) {
		r->match |= RULE_M_PROTO;
		r->proto = proto_pool[rn(RTE_DIM(proto_pool))];
	}
	if (chance(x->ct)) {
		r->match |= RULE_M_CTSTATE;
		while (r->ctstate == 0)
			for (unsigned int i = 0; i < RTE_DIM(states); i++)
				if (chance(40))
					r->ctstate |= states[i];
	}
	if (x->narrow && !(r->match & (RULE_M_SRC | RULE_M_DST | RULE_M_PROTO))) {
		r->match |= RULE_M_PROTO;
		r->proto = proto_pool[rn(RTE_DIM(proto_pool))];
	}
	if (chance(x->local))
		r->src_local = (uint8_t)(1 + rn(2));
	if (chance(x->local))
		r->dst_local = (uint8_t)(1 + rn(2));
	for (uint8_t f = RULE_M_SRC; f <= RULE_M_CTSTATE; f <<= 1) {
		if (!(r->match & f) || !chance(x->neg))
			continue;
		/* Ports need a positive protocol. */
		if (f == RULE_M_PROTO && (r->match & (RULE_M_SPORT | RULE_M_DPORT)))
			continue;
		r->neg |= f;
	}
}

/** A random NAT target for rule @p r (DNAT/SNAT need the rule's family). */
static void
rand_nat(struct rule *r)
{
	struct rule_nat *n = &r->nat;

	memset(n, 0, sizeof(*n));
	if (r->action != RULE_ACT_MASQUERADE) {
		n->family = r->family;
		rand_addr(r->family, n->addr_min);
		memcpy(n->addr_max, n->addr_min, 16);
		if (chance(30))
			n->addr_max[fam_bytes(r->family) - 1] |= 0x0f;
	}
	if (chance(50)) {
		n->port_min = (uint16_t)(1 + rn(60000));
		n->port_max = (uint16_t)(n->port_min + (chance(50) ? 0 : rn(1000)));
	}
}

/** Names of the chains of a random set. */
struct shape {
	const char *base[4]; /* base chains (built-in or hooked) */
	unsigned int n_base;
	const char *user[6]; /* user chains without hooks, jumps go forward only */
	unsigned int n_user;
};

/*
 * Add @p n random rules to @p chain (a user chain has index @p ui in
 * sh->user, or -1 for a base chain). Rules the set refuses (a NAT action
 * reachable from the wrong hook) are turned into ACCEPT.
 */
static void
fill_chain(struct rule_set *s, enum rule_table t, const char *chain, int ui, const struct shape *sh,
	unsigned int n, const struct mix *x)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned int first = ui < 0 ? 0 : (unsigned int)ui + 1;
		bool can_jump = first < sh->n_user;
		unsigned int p = rn(100);
		struct rule r;
		int rc;

		rand_match(&r, x);
		p = rn(1000);
		if (p < x->jump)
			r.action = RULE_ACT_JUMP;
		else if (p < x->jump + x->go)
			r.action = RULE_ACT_GOTO;
		else if (p < x->jump + x->go + x->ret)
			r.action = RULE_ACT_RETURN;
		else if (t == RULE_TABLE_FILTER)
			r.action = chance(55) ? RULE_ACT_ACCEPT : RULE_ACT_DROP;
		else
			r.action = (uint8_t)(chance(30)	  ? RULE_ACT_ACCEPT
					     : chance(35) ? RULE_ACT_DNAT
					     : chance(60) ? RULE_ACT_SNAT
							  : RULE_ACT_MASQUERADE);
		if (t == RULE_TABLE_FILTER && r.action == RULE_ACT_ACCEPT && chance(30))
			snprintf(r.channel, sizeof(r.channel), "ch%u", rn(3));
		if (r.action == RULE_ACT_DNAT || r.action == RULE_ACT_SNAT) {
			if (r.family == 0)
				r.family = chance(50) ? FC_AF_INET4 : FC_AF_INET6;
		}
		if (r.action >= RULE_ACT_DNAT)
			rand_nat(&r);
		if (r.action == RULE_ACT_JUMP || r.action == RULE_ACT_GOTO) {
			if (!can_jump)
				r.action = RULE_ACT_RETURN;
			else
				snprintf(r.chain, sizeof(r.chain), "%s",
					sh->user[first + rn(sh->n_user - first)]);
		}
		if (rule_check(&r, NULL) != 0) {
			char buf[512];

			rule_format(&r, buf, sizeof(buf));
			fail_msg("generator made a bad rule: %s", buf);
		}
		rc = rule_set_rule_add(s, t, chain, RULE_POS_END, &r, NULL);
		if (rc == -EINVAL && t == RULE_TABLE_NAT) {
			/* A nat action (or a jump to one) the chain's hooks do not allow. */
			r.action = RULE_ACT_ACCEPT;
			memset(&r.nat, 0, sizeof(r.nat));
			memset(r.chain, 0, sizeof(r.chain));
			rc = rule_set_rule_add(s, t, chain, RULE_POS_END, &r, NULL);
		}
		if (rc != 0)
			fail_msg("rule_set_rule_add(%s): %d", chain, rc);
	}
}

/*
 * A random set: filter main (policy random), maybe INPUT/FORWARD chains of
 * their own, 0-5 user chains; nat dnat, snat, maybe OUTPUT/INPUT chains,
 * 0-4 user chains. @p per_chain scales the rule counts.
 */
static struct rule_set *
rand_set(unsigned int per_chain, const struct mix *x)
{
	static const char *const fu[] = {"u0", "u1", "u2", "u3", "u4"};
	static const char *const nu[] = {"n0", "n1", "n2", "n3"};
	struct rule_set *s = rule_set_create();
	struct shape f = {0}, n = {0};

	assert_non_null(s);
	/* User chains first, so jumps to them can be added; filled last to first. */
	f.n_user = rn(RTE_DIM(fu) + 1);
	for (unsigned int i = 0; i < f.n_user; i++) {
		f.user[i] = fu[i];
		assert_int_equal(
			rule_set_chain_add(s, RULE_TABLE_FILTER, fu[i], 0, RULE_POLICY_ACCEPT), 0);
	}
	n.n_user = rn(RTE_DIM(nu) + 1);
	for (unsigned int i = 0; i < n.n_user; i++) {
		n.user[i] = nu[i];
		assert_int_equal(
			rule_set_chain_add(s, RULE_TABLE_NAT, nu[i], 0, RULE_POLICY_ACCEPT), 0);
	}
	f.base[f.n_base++] = RULE_CHAIN_MAIN;
	if (chance(50)) {
		assert_int_equal(
			rule_set_chain_add(s, RULE_TABLE_FILTER, "in", RULE_HOOK_F(RULE_HOOK_INPUT),
				chance(50) ? RULE_POLICY_DROP : RULE_POLICY_ACCEPT),
			0);
		f.base[f.n_base++] = "in";
	}
	if (chance(40)) {
		assert_int_equal(rule_set_chain_add(s, RULE_TABLE_FILTER, "fw",
					 RULE_HOOK_F(RULE_HOOK_FORWARD),
					 chance(50) ? RULE_POLICY_DROP : RULE_POLICY_ACCEPT),
			0);
		f.base[f.n_base++] = "fw";
	}
	if (chance(50))
		assert_int_equal(rule_set_chain_policy(
					 s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POLICY_DROP),
			0);
	n.base[n.n_base++] = RULE_CHAIN_DNAT;
	n.base[n.n_base++] = RULE_CHAIN_SNAT;
	if (chance(50)) {
		assert_int_equal(rule_set_chain_add(s, RULE_TABLE_NAT, "nout",
					 RULE_HOOK_F(RULE_HOOK_OUTPUT), RULE_POLICY_ACCEPT),
			0);
		n.base[n.n_base++] = "nout";
	}
	if (chance(50)) {
		assert_int_equal(rule_set_chain_add(s, RULE_TABLE_NAT, "nin",
					 RULE_HOOK_F(RULE_HOOK_INPUT), RULE_POLICY_ACCEPT),
			0);
		n.base[n.n_base++] = "nin";
	}
	for (unsigned int i = f.n_user; i-- > 0;)
		fill_chain(
			s, RULE_TABLE_FILTER, f.user[i], (int)i, &f, 1 + rn(per_chain / 2 + 1), x);
	for (unsigned int i = n.n_user; i-- > 0;)
		fill_chain(s, RULE_TABLE_NAT, n.user[i], (int)i, &n, 1 + rn(per_chain / 2 + 1), x);
	for (unsigned int i = 0; i < f.n_base; i++)
		fill_chain(
			s, RULE_TABLE_FILTER, f.base[i], -1, &f, per_chain / 2 + rn(per_chain), x);
	for (unsigned int i = 0; i < n.n_base; i++)
		fill_chain(
			s, RULE_TABLE_NAT, n.base[i], -1, &n, per_chain / 4 + rn(per_chain / 2), x);
	return s;
}

/* ------------------------------------------------------------------------ */
/* Random tuples on the rules' edges                                         */
/* ------------------------------------------------------------------------ */

/** Add @p d (+1 or -1) to a big-endian number of @p nb bytes. */
static void
addr_step(uint8_t *a, unsigned int nb, int d)
{
	for (unsigned int i = nb; i-- > 0;) {
		a[i] = (uint8_t)(a[i] + d);
		if ((d > 0 && a[i] != 0) || (d < 0 && a[i] != 0xff))
			break;
	}
}

/** An address on an edge of prefix @p p: inside, first, last, or one past either end. */
static void
addr_near(uint8_t fam, const struct rule_prefix *p, uint8_t *a)
{
	unsigned int nb = fam_bytes(fam), c = rn(7);

	memset(a, 0, 16);
	memcpy(a, p->addr, nb);
	for (unsigned int bit = p->len; bit < nb * 8; bit++) {
		bool one = c == 1 || c == 4 || ((c == 0 || c == 5) && chance(50));

		if (one)
			a[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
	}
	if (c == 3)
		addr_step(a, nb, -1); /* one before the first */
	else if (c == 4)
		addr_step(a, nb, 1); /* one after the last */
	else if (c == 5 && p->len > 0)
		a[(p->len - 1) / 8] ^= (uint8_t)(0x80 >> ((p->len - 1) % 8)); /* sibling */
	else if (c == 6)
		rand_addr(fam, a);
}

static uint16_t
port_near(const struct rule_ports *p)
{
	unsigned int i = rn(p->n);

	switch (rn(6)) {
	case 0:
		return p->r[i].lo;
	case 1:
		return p->r[i].hi;
	case 2:
		return (uint16_t)(p->r[i].lo - 1);
	case 3:
		return (uint16_t)(p->r[i].hi + 1);
	case 4:
		return (uint16_t)(p->r[i].lo + rn((uint32_t)(p->r[i].hi - p->r[i].lo) + 1));
	default:
		return rand_port();
	}
}

/** All rules of a set, to aim tuples at. */
struct aims {
	const struct rule **r;
	unsigned int n;
};

static void
aims_of(const struct rule_set *s, struct aims *a)
{
	a->n = 0;
	a->r = calloc(rule_set_rule_count(s) + 1, sizeof(*a->r));
	assert_non_null(a->r);
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < rule_set_chain_count(s, t); i++) {
			const struct rule_chain *c = rule_set_chain_at(s, t, i);

			for (uint32_t j = 0; j < c->n_rules; j++)
				a->r[a->n++] = &c->rules[j];
		}
}

/** A tuple: mostly aimed at a rule's edges, sometimes random. */
static void
rand_key(const struct aims *a, struct fc_key *k, uint8_t *ct, uint8_t *kf)
{
	static const uint8_t cts[] = {0, RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_RELATED,
		RULE_CT_INVALID, RULE_CT_IGNORE};
	const struct rule *r = a->n > 0 && chance(85) ? a->r[rn(a->n)] : NULL;
	uint8_t fam = r != NULL && r->family != 0 ? r->family
		      : chance(50)		  ? FC_AF_INET4
						  : FC_AF_INET6;
	uint8_t src[16], dst[16], proto;
	uint16_t sport, dport;

	if (r != NULL && (r->match & RULE_M_SRC))
		addr_near(fam, &r->src, src);
	else
		rand_addr(fam, src);
	if (r != NULL && (r->match & RULE_M_DST))
		addr_near(fam, &r->dst, dst);
	else
		rand_addr(fam, dst);
	proto = r != NULL && (r->match & RULE_M_PROTO) && chance(80)
			? r->proto
			: proto_pool[rn(RTE_DIM(proto_pool))];
	sport = r != NULL && (r->match & RULE_M_SPORT) ? port_near(&r->sport) : rand_port();
	dport = r != NULL && (r->match & RULE_M_DPORT) ? port_near(&r->dport) : rand_port();

	memset(k, 0, sizeof(*k));
	k->family = fam;
	if (fam == FC_AF_INET4) {
		memcpy(&k->v4.src, src, 4);
		memcpy(&k->v4.dst, dst, 4);
		k->v4.proto = proto;
		k->v4.sport = htons(sport);
		k->v4.dport = htons(dport);
		k->v4.flags = (uint8_t)rn(4);
	} else {
		memcpy(k->v6.src, src, 16);
		memcpy(k->v6.dst, dst, 16);
		k->v6.proto = proto;
		k->v6.sport = htons(sport);
		k->v6.dport = htons(dport);
		k->v6.flags = (uint8_t)rn(4);
	}
	*ct = cts[rn(RTE_DIM(cts))];
	*kf = chance(10) ? RULE_KEY_F_NOPORTS : 0;
}

/* ------------------------------------------------------------------------ */
/* Comparing with the oracle                                                 */
/* ------------------------------------------------------------------------ */

struct tally {
	uint64_t keys;
	uint64_t by_rule;   /* filter decided by a rule */
	uint64_t by_policy; /* filter decided by a policy */
	uint64_t nat_rule;  /* nat decided by a rule (either stage) */
	uint64_t nat_trans; /* ... with a translation */
};

static void
report_key(const struct fc_key *k, uint8_t ct, uint8_t kf, const struct rule_set *s)
{
	char buf[FC_KEY_STRLEN];

	fc_key_format(k, buf, sizeof(buf));
	print_error("key: %s ctstate 0x%x kflags 0x%x\n", buf, ct, kf);
	if (rule_set_rule_count(s) <= 200)
		rule_set_dump(s, stderr);
}

static void
same_filter(const struct rule_result *a, const struct rule_result *b, const struct fc_key *k,
	uint8_t ct, uint8_t kf, const struct rule_set *s)
{
	if (a->verdict == b->verdict && a->hook == b->hook && a->rule_id == b->rule_id &&
		memcmp(a->channel, b->channel, sizeof(a->channel)) == 0)
		return;
	report_key(k, ct, kf, s);
	fail_msg("filter: cls verdict %u hook %u rule %u channel '%s' / ref verdict %u hook %u "
		 "rule %u channel '%s'",
		a->verdict, a->hook, a->rule_id, a->channel, b->verdict, b->hook, b->rule_id,
		b->channel);
}

static void
same_nat(const struct rule_nat_result *a, const struct rule_nat_result *b, const struct fc_key *k,
	uint8_t ct, uint8_t kf, const struct rule_set *s, int stage)
{
	if (a->action == b->action && a->hook == b->hook && a->rule_id == b->rule_id &&
		a->nat.family == b->nat.family && a->nat.port_min == b->nat.port_min &&
		a->nat.port_max == b->nat.port_max &&
		memcmp(a->nat.addr_min, b->nat.addr_min, 16) == 0 &&
		memcmp(a->nat.addr_max, b->nat.addr_max, 16) == 0)
		return;
	report_key(k, ct, kf, s);
	fail_msg("nat stage %d: cls action %u hook %u rule %u / ref action %u hook %u rule %u",
		stage, a->action, a->hook, a->rule_id, b->action, b->hook, b->rule_id);
}

#define CMP_BURST 64

/** Classify @p n keys with @p c and with the oracle; every field must agree. */
static void
compare(const struct rule_set *s, const struct rule_cls *c, const struct fc_key *keys,
	const uint8_t *ct, const uint8_t *kf, unsigned int n, struct tally *t)
{
	const struct fc_key *kp[CMP_BURST];
	struct rule_result fr[CMP_BURST], fref;
	struct rule_nat_result nr[CMP_BURST], nref;

	for (unsigned int base = 0; base < n; base += CMP_BURST) {
		unsigned int m = RTE_MIN(n - base, (unsigned int)CMP_BURST);

		for (unsigned int i = 0; i < m; i++)
			kp[i] = &keys[base + i];
		assert_int_equal(rule_cls_filter_bulk(c, kp, ct + base, kf + base, m, fr), (int)m);
		for (unsigned int i = 0; i < m; i++) {
			assert_int_equal(
				rule_ref_filter(s, kp[i], ct[base + i], kf[base + i], &fref), 0);
			same_filter(&fr[i], &fref, kp[i], ct[base + i], kf[base + i], s);
			if (fref.rule_id == RULE_ID_POLICY)
				t->by_policy++;
			else
				t->by_rule++;
		}
		for (int stage = RULE_NAT_DST; stage <= RULE_NAT_SRC; stage++) {
			assert_int_equal(
				rule_cls_nat_bulk(c, stage, kp, ct + base, kf + base, m, nr),
				(int)m);
			for (unsigned int i = 0; i < m; i++) {
				assert_int_equal(rule_ref_nat(s, stage, kp[i], ct[base + i],
							 kf[base + i], &nref),
					0);
				same_nat(
					&nr[i], &nref, kp[i], ct[base + i], kf[base + i], s, stage);
				if (nref.rule_id != RULE_ID_POLICY && nref.rule_id != RULE_ID_NONE)
					t->nat_rule++;
				if (nref.action != RULE_ACT_ACCEPT)
					t->nat_trans++;
			}
		}
		t->keys += m;
	}
}

/** Aim @p n random tuples at set @p s and compare @p c with the oracle on them. */
static void
compare_random(const struct rule_set *s, const struct rule_cls *c, unsigned int n, struct tally *t)
{
	struct fc_key *keys = calloc(n, sizeof(*keys));
	uint8_t *ct = calloc(n, 1), *kf = calloc(n, 1);
	struct aims a;

	assert_true(keys != NULL && ct != NULL && kf != NULL);
	aims_of(s, &a);
	for (unsigned int i = 0; i < n; i++)
		rand_key(&a, &keys[i], &ct[i], &kf[i]);
	compare(s, c, keys, ct, kf, n, t);
	free(a.r);
	free(keys);
	free(ct);
	free(kf);
}

static struct rule_cls *
build(const struct rule_set *s)
{
	struct rule_cls *c = rule_cls_build(s, "test", SOCKET_ID_ANY);

	if (c == NULL)
		fail_msg("rule_cls_build: %s", rte_strerror(rte_errno));
	return c;
}

static struct rule_set *
set_of(const char *text)
{
	struct rule_error err;
	struct rule_set *s = rule_set_parse(text, "test", &err);

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'", err.line, err.col, err.msg, err.token);
	return s;
}

static void
print_stats(const char *what, const struct rule_set *s, const struct rule_cls *c)
{
	struct rule_cls_stats st;

	assert_int_equal(rule_cls_stats(c, &st), 0);
	printf("  %s: %u rules -> %u programs, %u entries (%u shadowed), %u segments, %u "
	       "checked, %" PRIu64 " ACL rules, %u contexts, %.1f MB, built in %.1f ms\n",
		what, rule_set_rule_count(s), st.n_programs, st.n_entries, st.n_shadowed,
		st.n_segments, st.n_checked, st.n_acl_rules, st.n_contexts,
		(double)st.mem_bytes / 1e6, (double)st.build_ns / 1e6);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/* Random sets of every feature vs the oracle: the main equivalence test. */
static void
test_random_sets(void **state)
{
	struct tally t = {0};
	uint64_t contexts = 0, checked = 0, segs = 0, entries = 0, rules = 0;
	const unsigned int n_sets = 24, n_keys = 6000;

	(void)state;
	for (unsigned int i = 0; i < n_sets; i++) {
		struct rule_cls_stats st;
		struct rule_set *s;
		struct rule_cls *c;

		seed(1000 + i);
		s = rand_set(8 + 4 * (i % 6), &mix_full);
		c = build(s);
		assert_int_equal(rule_cls_stats(c, &st), 0);
		contexts += st.n_contexts;
		checked += st.n_checked;
		segs += st.n_segments;
		entries += st.n_entries;
		rules += rule_set_rule_count(s);
		compare_random(s, c, n_keys, &t);
		rule_cls_free(c);
		rule_set_free(s);
	}
	printf("  %u sets, %" PRIu64 " rules, %" PRIu64 " entries, %" PRIu64 " segments, %" PRIu64
	       " ACL contexts, %" PRIu64 " checked entries\n",
		n_sets, rules, entries, segs, contexts, checked);
	printf("  %" PRIu64 " tuples (x3 lookups): filter by rule %.1f%%, by policy %.1f%%; "
	       "nat by rule %.1f%%, translated %.1f%%\n",
		t.keys, 100.0 * (double)t.by_rule / (double)t.keys,
		100.0 * (double)t.by_policy / (double)t.keys,
		100.0 * (double)t.nat_rule / (double)(2 * t.keys),
		100.0 * (double)t.nat_trans / (double)(2 * t.keys));
	assert_true(t.keys >= 100000);
	/* Not trivially all-policy (nor all-rule): the tuples hit the rules. */
	assert_true(t.by_rule * 100 >= t.keys * 40);
	assert_true(t.by_policy * 100 >= t.keys * 5);
	assert_true(t.nat_trans * 100 >= 2 * t.keys * 10);
	/* The sets exercised rte_acl, RETURN points and relaxed entries. */
	assert_true(contexts > 0);
	assert_true(segs > 2 * n_sets * 2);
	assert_true(checked > 0);
}

/* Known answers, independent of the oracle: chains, hooks, channels, NAT. */
static void
test_known(void **state)
{
	struct rule_set *s;
	struct rule_cls *c;
	struct rule_result r;
	struct rule_nat_result nr;
	struct fc_key k;

	(void)state;
	s = set_of("chain IN hook input policy drop\n"
		   "jump A proto tcp\n"		  /* 1 */
		   "accept proto udp channel u\n" /* 2 */
		   "chain A\n"
		   "return dport 22 proto tcp\n"	      /* 3 */
		   "goto B dport 80-89 proto tcp\n"	      /* 4 */
		   "accept dport 443 proto tcp channel web\n" /* 5 */
		   "chain B\n"
		   "drop dport 81 proto tcp\n" /* 6 */
		   "table filter\n"
		   "accept channel out src_local yes\n" /* 7 */
		   "table nat\n"
		   "chain dnat\n"
		   "dnat to 10.0.0.5:8080 proto tcp dport 80\n" /* 8 */
		   "chain snat\n"
		   "masquerade src 10.0.0.0/8\n"); /* 9 */
	c = build(s);
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	k.v4.proto = 6;
	k.v4.src = htonl(0x0a000001);
	k.v4.dst = htonl(0x0a000002);
	k.v4.flags = FC_KEY_F_DST_LOCAL;

	k.v4.dport = htons(22); /* returns from A: nothing else in IN matches tcp */
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	k.v4.dport = htons(81); /* goto B, dropped */
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.rule_id, 6);
	k.v4.dport = htons(82); /* goto B, falls off: returns from A's caller... IN: policy */
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	k.v4.dport = htons(443);
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.verdict, RULE_VERDICT_ACCEPT);
	assert_int_equal(r.rule_id, 5);
	assert_string_equal(r.channel, "web");
	/* No ports: nothing in A matches, and not jumping "proto tcp" is not a port match. */
	assert_int_equal(rule_cls_filter(c, &k, 0, RULE_KEY_F_NOPORTS, &r), 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);

	/* Local to local: OUTPUT (main, channel out), then INPUT names web: web wins. */
	k.v4.flags = FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL;
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);
	assert_int_equal(r.rule_id, 5);
	assert_string_equal(r.channel, "web");
	k.v4.proto = 17; /* INPUT accepts into u */
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_string_equal(r.channel, "u");
	k.v4.proto = 1; /* INPUT's policy drops */
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.verdict, RULE_VERDICT_DROP);
	assert_int_equal(r.hook, RULE_HOOK_INPUT);

	/* NAT: dnat at prerouting; snat stage of a forwarded key: masquerade. */
	k.v4.proto = 6;
	k.v4.dport = htons(80);
	k.v4.flags = 0;
	assert_int_equal(rule_cls_nat(c, RULE_NAT_DST, &k, 0, 0, &nr), 0);
	assert_int_equal(nr.action, RULE_ACT_DNAT);
	assert_int_equal(nr.rule_id, 8);
	assert_int_equal(nr.hook, RULE_HOOK_PREROUTING);
	assert_int_equal(nr.nat.port_min, 8080);
	assert_int_equal(rule_cls_nat(c, RULE_NAT_SRC, &k, 0, 0, &nr), 0);
	assert_int_equal(nr.action, RULE_ACT_MASQUERADE);
	assert_int_equal(nr.rule_id, 9);
	/* src_local: nat OUTPUT, which enters no chain. */
	k.v4.flags = FC_KEY_F_SRC_LOCAL;
	assert_int_equal(rule_cls_nat(c, RULE_NAT_DST, &k, 0, 0, &nr), 0);
	assert_int_equal(nr.action, RULE_ACT_ACCEPT);
	assert_int_equal(nr.rule_id, RULE_ID_NONE);
	assert_int_equal(nr.hook, RULE_HOOK_OUTPUT);
	rule_cls_free(c);
	rule_set_free(s);
}

/* The empty set: policies everywhere, nat hooks without chains. */
static void
test_empty(void **state)
{
	struct rule_set *s = rule_set_create();
	struct rule_cls_stats st;
	struct rule_cls *c;
	struct tally t = {0};

	(void)state;
	assert_non_null(s);
	c = build(s);
	assert_int_equal(rule_cls_stats(c, &st), 0);
	assert_int_equal(st.n_entries, 0);
	assert_int_equal(st.n_contexts, 0);
	seed(7);
	compare_random(s, c, 2000, &t);
	assert_int_equal(t.by_rule, 0);
	rule_cls_free(c);

	/* Drop policy, still empty. */
	assert_int_equal(
		rule_set_chain_policy(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POLICY_DROP), 0);
	c = build(s);
	compare_random(s, c, 2000, &t);
	rule_cls_free(c);
	rule_set_free(s);
}

/* Packets without ports never match a port rule, negated or not. */
static void
test_noports(void **state)
{
	struct rule_set *s;
	struct rule_cls *c;
	struct rule_result r;
	struct fc_key k;
	struct tally t = {0};

	(void)state;
	s = set_of("policy drop\n"
		   "accept proto tcp dport !80\n"      /* 1 */
		   "accept proto udp sport !0-65535\n" /* 2: matches nothing */
		   "accept proto udp sport 0-65535\n"  /* 3: every udp packet with ports */
		   "accept proto 47\n");	       /* 4 */
	c = build(s);
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET6;
	k.v6.proto = 6;
	k.v6.dport = htons(81);
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.rule_id, 1);
	assert_int_equal(rule_cls_filter(c, &k, 0, RULE_KEY_F_NOPORTS, &r), 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	k.v6.proto = 17;
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.rule_id, 3);
	assert_int_equal(rule_cls_filter(c, &k, 0, RULE_KEY_F_NOPORTS, &r), 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	k.v6.proto = 47;
	assert_int_equal(rule_cls_filter(c, &k, 0, RULE_KEY_F_NOPORTS, &r), 0);
	assert_int_equal(r.rule_id, 4);
	seed(11);
	compare_random(s, c, 3000, &t);
	rule_cls_free(c);
	rule_set_free(s);
}

/* ctstate sets, negated sets, untracked packets and RULE_CT_IGNORE. */
static void
test_ctstate(void **state)
{
	static const uint8_t cts[] = {0, RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_RELATED,
		RULE_CT_INVALID, RULE_CT_IGNORE};
	struct rule_set *s;
	struct rule_cls *c;
	struct rule_result r, ref;
	struct fc_key k;

	(void)state;
	s = set_of("policy drop\n"
		   "accept ctstate established,related proto tcp\n" /* 1 */
		   "accept ctstate !new,invalid proto udp\n"	    /* 2 */
		   "accept ctstate !new\n");			    /* 3 */
	c = build(s);
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	for (unsigned int p = 0; p < 3; p++) {
		k.v4.proto = p == 0 ? 6 : p == 1 ? 17 : 1;
		for (unsigned int i = 0; i < RTE_DIM(cts); i++) {
			assert_int_equal(rule_cls_filter(c, &k, cts[i], 0, &r), 0);
			assert_int_equal(rule_ref_filter(s, &k, cts[i], 0, &ref), 0);
			assert_int_equal(r.rule_id, ref.rule_id);
			assert_int_equal(r.verdict, ref.verdict);
		}
	}
	/* Untracked: no set matches, every negated one does. */
	k.v4.proto = 6;
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.rule_id, 3);
	k.v4.proto = 17;
	assert_int_equal(rule_cls_filter(c, &k, 0, 0, &r), 0);
	assert_int_equal(r.rule_id, 2);
	assert_int_equal(rule_cls_filter(c, &k, RULE_CT_NEW, 0, &r), 0);
	assert_int_equal(r.rule_id, RULE_ID_POLICY);
	/* Ignore: every ctstate match is satisfied. */
	k.v4.proto = 6;
	assert_int_equal(rule_cls_filter(c, &k, RULE_CT_IGNORE, 0, &r), 0);
	assert_int_equal(r.rule_id, 1);
	rule_cls_free(c);
	rule_set_free(s);
}

/*
 * Entries too wide to expand (negated /128s and long negated port lists,
 * ANDed through jumps): relaxed in the ACL and re-checked.
 */
static void
test_wide(void **state)
{
	struct rule_cls_stats st;
	struct rule_set *s;
	struct rule_cls *c;
	struct tally t = {0};
	uint64_t heap0;

	(void)state;
	s = set_of("chain X\n"
		   "drop src !2001:db8::1 dst !2001:db8::2 proto tcp dport !1,3,5,7,9,11,13,15\n"
		   "accept src !2001:db8::/127 sport !80,443 proto tcp channel x\n"
		   "return dst !2001:db8::3/128\n"
		   "accept proto udp\n"
		   "table filter\n"
		   "jump X src !2001:db8::1:0/120 dst !::/1\n"
		   "drop src !10.1.2.3 dst !10.3.2.1 proto tcp sport !1-2,4,6,8,10 dport !22,80\n"
		   "accept\n");
	heap0 = heap_bytes();
	c = build(s);
	assert_int_equal(rule_cls_stats(c, &st), 0);
	print_stats("wide", s, c);
	assert_true(st.n_checked > 0);
	seed(13);
	compare_random(s, c, 20000, &t);
	rule_cls_free(c);
	assert_int_equal(heap_bytes(), heap0);
	rule_set_free(s);
}

/* Many RETURN points: more than 16 segments, so more than one bank. */
static void
test_many_segments(void **state)
{
	char *text = malloc(1 << 16);
	struct rule_cls_stats st;
	struct rule_set *s;
	struct rule_cls *c;
	struct tally t = {0};
	size_t len = 0;
	uint64_t heap0;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, 65536 - len, "chain R\n");
	for (unsigned int i = 0; i < 40; i++)
		len += (size_t)snprintf(text + len, 65536 - len,
			"return proto tcp dport %u-%u\ndrop proto tcp dport %u src 10.%u.0.0/16\n",
			i * 100, i * 100 + 50, i * 100 + 60, i);
	len += (size_t)snprintf(text + len, 65536 - len, "table filter\n");
	for (unsigned int i = 0; i < 30; i++)
		len += (size_t)snprintf(text + len, 65536 - len,
			"jump R src 10.%u.0.0/15\naccept proto tcp dport %u\n", 2 * i,
			i * 100 + 25);
	s = set_of(text);
	heap0 = heap_bytes();
	c = build(s);
	assert_int_equal(rule_cls_stats(c, &st), 0);
	print_stats("segments", s, c);
	assert_true(st.n_segments > RTE_ACL_MAX_CATEGORIES + 2);
	seed(17);
	compare_random(s, c, 20000, &t);
	rule_cls_free(c);
	assert_int_equal(heap_bytes(), heap0);
	rule_set_free(s);
	free(text);
}

/** Classification rate of @p c on @p n random tuples aimed at @p s: ns per key. */
static double
rate(const struct rule_set *s, const struct rule_cls *c, unsigned int n, double *ref_ns)
{
	struct fc_key *keys = calloc(n, sizeof(*keys));
	const struct fc_key **kp = calloc(n, sizeof(*kp));
	struct rule_result *res = calloc(n, sizeof(*res));
	uint8_t *ct = calloc(n, 1), *kf = calloc(n, 1);
	uint64_t t0, t1, best;
	struct aims a;

	assert_true(keys && kp && res && ct && kf);
	aims_of(s, &a);
	for (unsigned int i = 0; i < n; i++) {
		rand_key(&a, &keys[i], &ct[i], &kf[i]);
		kp[i] = &keys[i];
	}
	/* Best of 5 passes: the machine may be shared. */
	best = UINT64_MAX;
	for (unsigned int pass = 0; pass < 5; pass++) {
		t0 = now_ns();
		for (unsigned int i = 0; i < n; i += 32)
			rule_cls_filter_bulk(
				c, kp + i, ct + i, kf + i, RTE_MIN(32u, n - i), res + i);
		t1 = now_ns();
		best = RTE_MIN(best, t1 - t0);
	}
	if (ref_ns != NULL) {
		uint64_t r0 = now_ns();
		unsigned int m = RTE_MIN(n, 20000u);

		for (unsigned int i = 0; i < m; i++)
			rule_ref_filter(s, kp[i], ct[i], kf[i], &res[i]);
		*ref_ns = (double)(now_ns() - r0) / m;
	}
	free(a.r);
	free(keys);
	free(kp);
	free(res);
	free(ct);
	free(kf);
	return (double)best / n;
}

/** A random address of family @p fam in pool slot @p i (servers, clients, nets). */
static void
pool_addr(uint8_t fam, uint32_t i, uint8_t *a)
{
	memset(a, 0, 16);
	if (fam == FC_AF_INET4) {
		a[0] = 10;
		a[1] = (uint8_t)(i >> 16);
		a[2] = (uint8_t)(i >> 8);
		a[3] = (uint8_t)i;
	} else {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[6] = (uint8_t)(i >> 16);
		a[7] = (uint8_t)(i >> 8);
		a[15] = (uint8_t)i;
	}
}

/*
 * A rule of a deployed firewall: mostly services (proto, server address,
 * port or short list, sometimes a client net), block lists, site-to-site
 * nets, host rules by local bits, a few negations and ctstate matches.
 */
static void
real_rule(struct rule *r, unsigned int n_hosts)
{
	static const uint16_t svc[] = {
		22, 25, 53, 80, 110, 123, 143, 443, 993, 3306, 5432, 6379, 8080, 8443, 9000};
	uint8_t fam = chance(80) ? FC_AF_INET4 : FC_AF_INET6;
	unsigned int nb = fam_bytes(fam) * 8, kind = rn(100);

	rule_init(r);
	r->family = fam;
	r->action = chance(70) ? RULE_ACT_ACCEPT : RULE_ACT_DROP;
	if (kind < 55) {
		/* Service: accept proto tcp dst SERVER dport P [src NET] [ctstate new] */
		r->match = RULE_M_PROTO | RULE_M_DST | RULE_M_DPORT;
		r->proto = chance(80) ? 6 : 17;
		pool_addr(fam, rn(n_hosts), r->dst.addr);
		r->dst.len = (uint8_t)(chance(80) ? nb : nb - 8);
		cut(r->dst.addr, r->dst.len);
		r->dport.n = (uint16_t)(chance(80) ? 1 : 2 + rn(3));
		for (unsigned int i = 0; i < r->dport.n; i++) {
			r->dport.r[i].lo =
				chance(70) ? svc[rn(RTE_DIM(svc))] : (uint16_t)(1024 + rn(60000));
			r->dport.r[i].hi = r->dport.r[i].lo + (chance(10) ? (uint16_t)rn(100) : 0);
		}
		if (chance(40)) {
			r->match |= RULE_M_SRC;
			rand_addr(fam, r->src.addr);
			r->src.len = (uint8_t)(fam == FC_AF_INET4 ? 8 + rn(17) : 32 + rn(33));
			cut(r->src.addr, r->src.len);
		}
		if (chance(20)) {
			r->match |= RULE_M_CTSTATE;
			r->ctstate = RULE_CT_NEW;
		}
	} else if (kind < 75) {
		/* Block list: drop src PREFIX */
		r->action = RULE_ACT_DROP;
		r->match = RULE_M_SRC;
		rand_addr(fam, r->src.addr);
		r->src.len = (uint8_t)(fam == FC_AF_INET4 ? 16 + rn(17) : 48 + rn(81));
		cut(r->src.addr, r->src.len);
	} else if (kind < 87) {
		/* Site to site: src NET dst NET */
		r->match = RULE_M_SRC | RULE_M_DST;
		rand_addr(fam, r->src.addr);
		r->src.len = (uint8_t)(fam == FC_AF_INET4 ? 8 + rn(17) : 32 + rn(33));
		cut(r->src.addr, r->src.len);
		pool_addr(fam, rn(n_hosts), r->dst.addr);
		r->dst.len = (uint8_t)(fam == FC_AF_INET4 ? 16 + rn(9) : 48 + rn(17));
		cut(r->dst.addr, r->dst.len);
	} else if (kind < 95) {
		/* This host's services: dst_local yes proto P dport X */
		r->family = chance(50) ? 0 : fam;
		r->dst_local = RULE_LOCAL_YES;
		r->src_local = chance(50) ? RULE_LOCAL_NO : RULE_LOCAL_ANY;
		r->match = RULE_M_PROTO | RULE_M_DPORT;
		r->proto = chance(70) ? 6 : 17;
		r->dport.n = 1;
		r->dport.r[0].lo = r->dport.r[0].hi = svc[rn(RTE_DIM(svc))];
	} else {
		/* A negation: drop proto tcp dport X dst !NET */
		r->action = RULE_ACT_DROP;
		r->match = RULE_M_PROTO | RULE_M_DPORT | RULE_M_DST;
		r->neg = RULE_M_DST;
		r->proto = 6;
		r->dport.n = 1;
		r->dport.r[0].lo = r->dport.r[0].hi = svc[rn(RTE_DIM(svc))];
		pool_addr(fam, rn(n_hosts), r->dst.addr);
		r->dst.len = (uint8_t)(fam == FC_AF_INET4 ? 16 : 48);
		cut(r->dst.addr, r->dst.len);
	}
}

/*
 * A deployed firewall of about @p n_rules rules: established/related
 * first, then per-service chains entered by a jump on the server net,
 * then flat rules; policy drop.
 */
static struct rule_set *
real_set(unsigned int n_rules)
{
	struct rule_set *s = rule_set_create();
	unsigned int n_chains = 8, n_hosts = n_rules * 2;
	struct rule r;
	char name[16];

	assert_non_null(s);
	assert_int_equal(
		rule_set_chain_policy(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POLICY_DROP), 0);
	rule_init(&r);
	r.match = RULE_M_CTSTATE;
	r.ctstate = RULE_CT_ESTABLISHED | RULE_CT_RELATED;
	assert_int_equal(
		rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POS_END, &r, NULL),
		0);
	for (unsigned int c = 0; c < n_chains; c++) {
		snprintf(name, sizeof(name), "svc%u", c);
		assert_int_equal(
			rule_set_chain_add(s, RULE_TABLE_FILTER, name, 0, RULE_POLICY_ACCEPT), 0);
		for (unsigned int i = 0; i < n_rules / 4 / n_chains; i++) {
			real_rule(&r, n_hosts);
			assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, name, RULE_POS_END,
						 &r, NULL),
				0);
		}
		rule_init(&r);
		r.action = RULE_ACT_JUMP;
		r.family = FC_AF_INET4;
		r.match = RULE_M_DST;
		pool_addr(FC_AF_INET4, c << 13, r.dst.addr);
		r.dst.len = 19;
		snprintf(r.chain, sizeof(r.chain), "%s", name);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN,
					 RULE_POS_END, &r, NULL),
			0);
	}
	while (rule_set_rule_count(s) < n_rules) {
		real_rule(&r, n_hosts);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN,
					 RULE_POS_END, &r, NULL),
			0);
	}
	return s;
}

/* A random set with every feature, @p n_rules rules, mostly in main. */
static struct rule_set *
mixed_set(unsigned int n_rules)
{
	struct rule_set *s = rule_set_create();
	struct shape sh = {
		.base = {RULE_CHAIN_MAIN}, .n_base = 1, .user = {"u0", "u1", "u2"}, .n_user = 3};

	assert_non_null(s);
	for (unsigned int i = 0; i < sh.n_user; i++)
		assert_int_equal(
			rule_set_chain_add(s, RULE_TABLE_FILTER, sh.user[i], 0, RULE_POLICY_ACCEPT),
			0);
	for (unsigned int i = sh.n_user; i-- > 0;)
		fill_chain(s, RULE_TABLE_FILTER, sh.user[i], (int)i, &sh, n_rules / 50, &mix_real);
	assert_int_equal(
		rule_set_chain_policy(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POLICY_DROP), 0);
	fill_chain(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, -1, &sh, n_rules - rule_set_rule_count(s),
		&mix_real);
	return s;
}

/* Build, compare with the oracle on a sample, print the figures. */
static void
big_set_test(const char *what, struct rule_set *s, unsigned int n_cmp, uint64_t sd)
{
	struct tally t = {0};
	struct rule_cls *c;
	double ns, ref_ns;

	c = build(s);
	print_stats(what, s, c);
	seed(sd);
	compare_random(s, c, n_cmp, &t);
	printf("  %s: %" PRIu64 " tuples compared, filter by rule %.1f%%\n", what, t.keys,
		100.0 * (double)t.by_rule / (double)t.keys);
	ns = rate(s, c, 200000, &ref_ns);
	printf("  %s: classify %.0f ns/key (%.2f Mkeys/s) in bursts of 32; reference "
	       "evaluator %.0f ns/key\n",
		what, ns, 1e3 / ns, ref_ns);
	rule_cls_free(c);
	rule_set_free(s);
}

static void
test_1k(void **state)
{
	(void)state;
	seed(2024);
	big_set_test("1k deployed", real_set(1000), 20000, 1);
	seed(2025);
	big_set_test("1k mixed", mixed_set(1000), 20000, 2);
}

static void
test_10k(void **state)
{
	(void)state;
	seed(4242);
	big_set_test("10k deployed", real_set(10000), 20000, 3);
	seed(4243);
	big_set_test("10k mixed", mixed_set(10000), 20000, 4);
}

/*
 * Rules that are hard on rte_acl: independent random prefixes of every
 * length on both addresses, port ranges, nothing shadowed. One context
 * cannot take them all (too many tries), so the bank is split over
 * several; the answers must not change.
 */
static void
test_hard(void **state)
{
	struct rule_set *s = rule_set_create();
	struct rule_cls_stats st;
	struct rule_cls *c;
	struct tally t = {0};
	uint64_t heap0;
	struct rule r;

	(void)state;
	assert_non_null(s);
	seed(77);
	for (unsigned int i = 0; i < 4000; i++) {
		unsigned int skip = rn(5), skip2 = chance(50) ? rn(5) : skip;

		rule_init(&r);
		r.family = FC_AF_INET4;
		r.action = chance(50) ? RULE_ACT_ACCEPT : RULE_ACT_DROP;
		/* Three or four of src, dst, proto+sport, dport, local bits. */
		if (skip != 0 && skip2 != 0) {
			r.match |= RULE_M_SRC;
			rand_addr(FC_AF_INET4, r.src.addr);
			r.src.len = (uint8_t)(1 + rn(32));
			cut(r.src.addr, r.src.len);
		}
		if (skip != 1 && skip2 != 1) {
			r.match |= RULE_M_DST;
			rand_addr(FC_AF_INET4, r.dst.addr);
			r.dst.len = (uint8_t)(1 + rn(32));
			cut(r.dst.addr, r.dst.len);
		}
		r.match |= RULE_M_PROTO;
		r.proto = chance(50) ? 6 : 17;
		if (skip != 2 && skip2 != 2) {
			r.match |= RULE_M_SPORT;
			rand_ports(&r.sport, 1);
		}
		if (skip != 3 && skip2 != 3) {
			r.match |= RULE_M_DPORT;
			rand_ports(&r.dport, 2);
		}
		if (skip != 4 && skip2 != 4) {
			r.src_local = (uint8_t)(1 + rn(2));
			r.dst_local = (uint8_t)rn(3);
		}
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN,
					 RULE_POS_END, &r, NULL),
			0);
	}
	heap0 = heap_bytes();
	c = build(s);
	assert_int_equal(rule_cls_stats(c, &st), 0);
	print_stats("hard", s, c);
	/* One program with rules (IPv4 filter): more than one context means a split. */
	assert_true(st.n_contexts > 1);
	seed(78);
	compare_random(s, c, 20000, &t);
	printf("  hard: classify %.0f ns/key\n", rate(s, c, 100000, NULL));
	rule_cls_free(c);
	assert_int_equal(heap_bytes(), heap0);
	rule_set_free(s);
}

/* The application builds in a background pthread that EAL does not know. */
struct bg {
	const struct rule_set *s;
	struct rule_cls *c;
	int err;
};

static void *
bg_build(void *arg)
{
	struct bg *b = arg;

	b->c = rule_cls_build(b->s, "bg", SOCKET_ID_ANY);
	b->err = b->c == NULL ? rte_errno : 0;
	return NULL;
}

static void
test_pthread_build(void **state)
{
	struct tally t = {0};
	struct bg b = {0};
	pthread_t th;

	(void)state;
	seed(99);
	b.s = rand_set(30, &mix_full);
	assert_int_equal(pthread_create(&th, NULL, bg_build, &b), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(b.err, 0);
	assert_non_null(b.c);
	compare_random(b.s, b.c, 5000, &t);
	/* Freed from a thread other than the builder too. */
	rule_cls_free(b.c);
	rule_set_free((struct rule_set *)(uintptr_t)b.s);
}

static void
test_bad_args(void **state)
{
	struct rule_set *s = set_of("accept proto tcp\n");
	struct rule_result r[2];
	struct rule_nat_result nr[2];
	struct rule_cls_stats st;
	struct fc_key k, bad;
	const struct fc_key *kp[2] = {&k, &bad};
	uint8_t ct[2] = {0, 0};
	struct rule_cls *c;

	(void)state;
	rte_errno = 0;
	assert_null(rule_cls_build(NULL, "x", SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(rule_cls_build(s, NULL, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	rule_cls_free(NULL);

	c = build(s);
	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	memset(&bad, 0, sizeof(bad));
	assert_int_equal(rule_cls_filter_bulk(NULL, kp, NULL, NULL, 1, r), -EINVAL);
	assert_int_equal(rule_cls_filter_bulk(c, NULL, NULL, NULL, 1, r), -EINVAL);
	assert_int_equal(rule_cls_filter_bulk(c, kp, NULL, NULL, 1, NULL), -EINVAL);
	assert_int_equal(rule_cls_filter_bulk(c, kp, NULL, NULL, 2, r), -EINVAL); /* family 0 */
	assert_int_equal(rule_cls_filter_bulk(c, kp, NULL, NULL, 0, r), 0);
	assert_int_equal(rule_cls_filter_bulk(c, kp, NULL, NULL, 1, r), 1);
	assert_int_equal(r[0].rule_id, RULE_ID_POLICY); /* proto 0, untracked */
	ct[0] = RULE_CT_NEW | RULE_CT_ESTABLISHED;	/* one state at a time */
	assert_int_equal(rule_cls_filter_bulk(c, kp, ct, NULL, 1, r), -EINVAL);
	ct[0] = 0x80;
	assert_int_equal(rule_cls_filter_bulk(c, kp, ct, NULL, 1, r), -EINVAL);
	assert_int_equal(rule_cls_filter(c, &k, 0x100 | RULE_CT_NEW, 0, r), -EINVAL);
	assert_int_equal(rule_cls_filter(c, &bad, 0, 0, r), -EINVAL);
	assert_int_equal(rule_cls_filter(c, NULL, 0, 0, r), -EINVAL);
	assert_int_equal(
		rule_cls_nat_bulk(c, (enum rule_nat_stage)2, kp, NULL, NULL, 1, nr), -EINVAL);
	assert_int_equal(rule_cls_nat_bulk(c, RULE_NAT_DST, kp, NULL, NULL, 2, nr), -EINVAL);
	assert_int_equal(rule_cls_nat_bulk(NULL, RULE_NAT_DST, kp, NULL, NULL, 1, nr), -EINVAL);
	assert_int_equal(rule_cls_nat_bulk(c, RULE_NAT_SRC, kp, NULL, NULL, 1, nr), 1);
	assert_int_equal(nr[0].rule_id, RULE_ID_POLICY);
	assert_int_equal(rule_cls_nat(c, RULE_NAT_SRC, &bad, 0, 0, nr), -EINVAL);
	assert_int_equal(rule_cls_stats(NULL, &st), -EINVAL);
	assert_int_equal(rule_cls_stats(c, NULL), -EINVAL);
	rule_cls_free(c);
	rule_set_free(s);
}

/* ------------------------------------------------------------------------ */

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_noports),
		cmocka_unit_test(test_ctstate),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_many_segments),
		cmocka_unit_test(test_random_sets),
		cmocka_unit_test(test_hard),
		cmocka_unit_test(test_pthread_build),
		cmocka_unit_test(test_1k),
		cmocka_unit_test(test_10k),
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	if (gufc_test_eal_init_mem("cls", "0", 1024) < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(rc);
}
