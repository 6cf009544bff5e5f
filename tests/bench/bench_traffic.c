/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_traffic.c — what gufc-bench feeds the paths: random
 * rule sets, random connections, uniform and Zipf traces over them, and
 * the frames written into mbufs (Ethernet, IPv4/IPv6, TCP/UDP).
 *
 * Address space: IPv4 sources in 10.0.0.0/8, destinations in
 * 172.16.0.0/12; IPv6 sources in 2001:db8:1::/48, destinations in
 * 2001:db8:2::/48. Rules are specific (every rule names a destination
 * prefix, half of them a source prefix too), so most packets of a random
 * connection meet no rule and get the chain policy: the case where a
 * linear evaluator walks the whole list. Pure C, deterministic per seed.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "bench.h"
#include "rule_lang.h"

void
bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	if (r->s == 0)
		r->s = 1;
}

uint64_t
bench_rng_next(struct bench_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint32_t
bench_rng_below(struct bench_rng *r, uint32_t n)
{
	return n == 0 ? 0 : (uint32_t)(((bench_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static double
rng_unit(struct bench_rng *r)
{
	return (double)(bench_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Server ports most connections go to (and most port rules name). */
static const uint16_t popular_ports[] = {80, 443, 53, 22, 25, 123, 3306, 5432, 6379, 8080,
	8443, 993, 587, 389, 636, 11211};
#define N_POPULAR (sizeof(popular_ports) / sizeof(popular_ports[0]))

static uint16_t
port_random(struct bench_rng *rng)
{
	if (bench_rng_below(rng, 100) < 60)
		return popular_ports[bench_rng_below(rng, N_POPULAR)];
	return (uint16_t)(1 + bench_rng_below(rng, 65535));
}

void
bench_key_random(struct bench_rng *rng, unsigned int family, struct fc_key *k)
{
	uint8_t proto = bench_rng_below(rng, 100) < 80 ? 6 : 17;
	uint16_t sport = (uint16_t)(1024 + bench_rng_below(rng, 64512));
	uint16_t dport = port_random(rng);

	memset(k, 0, sizeof(*k));
	if (family == FC_AF_INET4) {
		k->family = FC_AF_INET4;
		k->v4.src = rte_cpu_to_be_32(0x0a000000u | bench_rng_below(rng, 1u << 24));
		k->v4.dst = rte_cpu_to_be_32(0xac100000u | bench_rng_below(rng, 1u << 20));
		k->v4.sport = rte_cpu_to_be_16(sport);
		k->v4.dport = rte_cpu_to_be_16(dport);
		k->v4.proto = proto;
		fc_key_v4_normalize(&k->v4);
	} else {
		static const uint8_t s6[6] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01};
		static const uint8_t d6[6] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02};
		uint64_t a = bench_rng_next(rng), b = bench_rng_next(rng);

		k->family = FC_AF_INET6;
		memcpy(k->v6.src, s6, sizeof(s6));
		memcpy(k->v6.dst, d6, sizeof(d6));
		memcpy(k->v6.src + 8, &a, 8);
		memcpy(k->v6.dst + 8, &b, 8);
		k->v6.src[6] = (uint8_t)bench_rng_below(rng, 4);
		k->v6.dst[6] = (uint8_t)bench_rng_below(rng, 4);
		k->v6.sport = rte_cpu_to_be_16(sport);
		k->v6.dport = rte_cpu_to_be_16(dport);
		k->v6.proto = proto;
		fc_key_v6_normalize(&k->v6);
	}
}

/* A prefix of length @p len of @p base | random bits below @p base_len. */
static void
prefix_random(struct bench_rng *rng, struct rule_prefix *p, uint32_t base, unsigned int base_len,
	unsigned int len)
{
	uint32_t host = bench_rng_below(rng, 1u << (32 - base_len));
	uint32_t a = base | host;
	uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);

	a = rte_cpu_to_be_32(a & mask);
	memset(p, 0, sizeof(*p));
	memcpy(p->addr, &a, 4);
	p->len = (uint8_t)len;
}

void
bench_rule_random(struct bench_rng *rng, struct rule *r)
{
	rule_init(r);
	r->family = FC_AF_INET4;
	r->match |= RULE_M_DST;
	prefix_random(rng, &r->dst, 0xac100000u, 12, 16 + bench_rng_below(rng, 15));
	if (bench_rng_below(rng, 2) == 0) {
		r->match |= RULE_M_SRC;
		prefix_random(rng, &r->src, 0x0a000000u, 8, 12 + bench_rng_below(rng, 13));
	}
	if (bench_rng_below(rng, 100) < 80) {
		unsigned int kind = bench_rng_below(rng, 100);

		r->match |= RULE_M_PROTO;
		r->proto = bench_rng_below(rng, 100) < 70 ? 6 : 17;
		if (bench_rng_below(rng, 100) < 70) {
			r->match |= RULE_M_DPORT;
			if (kind < 50) {
				uint16_t p = popular_ports[bench_rng_below(rng, N_POPULAR)];

				r->dport.n = 1;
				r->dport.r[0].lo = p;
				r->dport.r[0].hi = p;
			} else if (kind < 80) {
				uint16_t lo = (uint16_t)(1 + bench_rng_below(rng, 60000));

				r->dport.n = 1;
				r->dport.r[0].lo = lo;
				r->dport.r[0].hi = (uint16_t)(lo + bench_rng_below(rng, 1000));
			} else {
				unsigned int n = 2 + bench_rng_below(rng, 3);

				r->dport.n = (uint16_t)n;
				for (unsigned int i = 0; i < n; i++) {
					uint16_t p = popular_ports[bench_rng_below(rng, N_POPULAR)];

					r->dport.r[i].lo = p;
					r->dport.r[i].hi = p;
				}
			}
		}
		if (bench_rng_below(rng, 100) < 10) {
			uint16_t lo = (uint16_t)(1024 + bench_rng_below(rng, 56000));

			r->match |= RULE_M_SPORT;
			r->sport.n = 1;
			r->sport.r[0].lo = lo;
			r->sport.r[0].hi = (uint16_t)(lo + bench_rng_below(rng, 8000));
		}
	}
	r->action = bench_rng_below(rng, 100) < 70 ? RULE_ACT_ACCEPT : RULE_ACT_DROP;
}

/* A copy of the engine's set with one random filter rule replaced by a new random one. */
struct rule_set *
bench_set_replaced(struct rule_engine *eng, struct bench_rng *rng)
{
	struct rule_set *s = rule_set_clone(rule_engine_rules(eng));
	const struct rule_chain *c;
	struct rule r;

	if (s == NULL)
		return NULL;
	c = rule_set_chain_find(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN);
	bench_rule_random(rng, &r);
	if (c == NULL || c->n_rules == 0 ||
		rule_set_rule_replace(s, c->rules[bench_rng_below(rng, c->n_rules)].id, &r) != 0) {
		rule_set_free(s);
		return NULL;
	}
	return s;
}

/* A copy of the engine's set with an accept of the @sixteenth'th /12 of 10.0.0.0/8 on top. */
struct rule_set *
bench_set_wide(struct rule_engine *eng, uint32_t sixteenth)
{
	struct rule_set *s = rule_set_clone(rule_engine_rules(eng));
	uint32_t a = rte_cpu_to_be_32(0x0a000000u | (sixteenth & 15u) << 20);
	struct rule r;

	if (s == NULL)
		return NULL;
	rule_init(&r);
	r.family = FC_AF_INET4;
	r.match = RULE_M_SRC;
	memcpy(r.src.addr, &a, 4);
	r.src.len = 12;
	r.action = RULE_ACT_ACCEPT;
	if (rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, 0, &r, NULL) != 0) {
		rule_set_free(s);
		return NULL;
	}
	return s;
}

struct rule_set *
bench_rules_make(struct bench_rng *rng, uint32_t n)
{
	struct rule_set *s = rule_set_create();
	struct rule r;

	if (s == NULL)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		bench_rule_random(rng, &r);
		if (rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POS_END, &r,
			    NULL) != 0) {
			rule_set_free(s);
			return NULL;
		}
	}
	return s;
}

struct rule_set *
bench_rules_ext(const struct rule_set *base, uint16_t port)
{
	static const char head[] =
		"drop in wan0 mark 0x3\n"
		"accept in wan0 proto udp dport 1-6000 limit 100000000/sec limit_burst 10000\n"
		"drop in !wan0 proto tcp mark 0x2 dport 1-3\n";
	static const char tail[] = "table mangle\n"
				   "chain P hook prerouting\n"
				   "mark set_mark 0x1 proto udp\n"
				   "mark set_mark 0x2 in wan0 proto tcp\n";
	const char *names[GUFC_MAX_PORTS];
	size_t cap = (size_t)rule_set_rule_count(base) * 256 + 4096;
	char *text = malloc(cap);
	struct rule_error err;
	struct rule_set *s = NULL;
	int n;

	if (text == NULL)
		return NULL;
	memcpy(text, head, sizeof(head) - 1);
	n = rule_set_format(base, text + sizeof(head) - 1, cap - sizeof(head) - sizeof(tail));
	if (n > 0) {
		memcpy(text + sizeof(head) - 1 + n, tail, sizeof(tail));
		s = rule_set_parse(text, "bench-ext", &err);
		if (s == NULL) {
			char msg[512];

			rule_error_format(&err, msg, sizeof(msg));
			fprintf(stderr, "gufc-bench: extended rule set: %s\n", msg);
		}
	}
	free(text);
	for (unsigned int p = 0; s != NULL && p <= port && p < GUFC_MAX_PORTS; p++)
		names[p] = p == port ? "wan0" : "";
	if (s != NULL && rule_set_ports(s, (unsigned int)port + 1, names) != 0) {
		rule_set_free(s);
		s = NULL;
	}
	return s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
ipv4_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (unsigned int i = 0; i < 20; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

uint32_t
bench_frame_write(uint8_t *buf, uint32_t cap, const struct fc_key *k, uint8_t tcp_flags)
{
	bool v4 = k->family == FC_AF_INET4;
	uint8_t proto = v4 ? k->v4.proto : k->v6.proto;
	uint32_t l3 = 14, l3_len = v4 ? 20 : 40, l4_len = proto == 6 ? 20 : 8;
	uint32_t len = l3 + l3_len + l4_len, pay = len < 60 ? 60 - len : 0;
	uint8_t *ip = buf + l3, *l4 = ip + l3_len;

	if (cap < len + pay)
		return 0;
	len += pay;
	memset(buf, 0, len);
	buf[0] = 0x02;
	buf[5] = 0x01;
	buf[6] = 0x02;
	buf[11] = 0x02;
	put16(buf + 12, v4 ? 0x0800 : 0x86dd);
	if (v4) {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(len - l3));
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, &k->v4.src, 4);
		memcpy(ip + 16, &k->v4.dst, 4);
		put16(ip + 10, ipv4_csum(ip));
		memcpy(l4, &k->v4.sport, 2);
		memcpy(l4 + 2, &k->v4.dport, 2);
	} else {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(len - l3 - 40));
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, k->v6.src, 16);
		memcpy(ip + 24, k->v6.dst, 16);
		memcpy(l4, &k->v6.sport, 2);
		memcpy(l4 + 2, &k->v6.dport, 2);
	}
	if (proto == 6) {
		l4[7] = 1;     /* seq */
		l4[11] = 1;    /* ack */
		l4[12] = 0x50; /* data offset 5 */
		l4[13] = tcp_flags;
		put16(l4 + 14, 65535);
	} else {
		put16(l4 + 4, (uint16_t)(len - (uint32_t)(l4 - buf)));
	}
	return len;
}

uint32_t
bench_frame_tcp(uint8_t *buf, uint32_t cap, const struct fc_key *k, uint8_t flags, uint32_t seq,
	uint32_t ack, uint16_t win, int wscale)
{
	bool v4 = k->family == FC_AF_INET4;
	uint32_t l3_len = v4 ? 20 : 40, hlen = wscale >= 0 ? 24 : 20;
	uint32_t len = bench_frame_write(buf, cap, k, flags), l4 = 14 + l3_len;

	if (len == 0 || cap < 14 + l3_len + hlen + 60)
		return 0;
	len = 14 + l3_len + hlen;
	memset(buf + l4 + 4, 0, hlen - 4);
	put16(buf + l4 + 4, (uint16_t)(seq >> 16));
	put16(buf + l4 + 6, (uint16_t)seq);
	put16(buf + l4 + 8, (uint16_t)(ack >> 16));
	put16(buf + l4 + 10, (uint16_t)ack);
	buf[l4 + 12] = (uint8_t)((hlen / 4) << 4);
	buf[l4 + 13] = flags;
	put16(buf + l4 + 14, win);
	if (wscale >= 0) {
		buf[l4 + 20] = 1; /* NOP */
		buf[l4 + 21] = 3; /* window scale */
		buf[l4 + 22] = 3;
		buf[l4 + 23] = (uint8_t)wscale;
	}
	if (v4) {
		put16(buf + 14 + 2, (uint16_t)(l3_len + hlen));
		put16(buf + 14 + 10, 0);
		put16(buf + 14 + 10, ipv4_csum(buf + 14));
	} else {
		put16(buf + 14 + 4, (uint16_t)hlen);
	}
	if (len < 60) {
		memset(buf + len, 0, 60 - len);
		len = 60;
	}
	return len;
}

/* Zipf(s) ranks by inversion of the cumulative weights (binary search). */
static int
zipf_fill(struct bench_rng *rng, double s, uint32_t pop, uint32_t *out, uint32_t n)
{
	double *cdf = malloc(sizeof(*cdf) * pop);
	double sum = 0;

	if (cdf == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < pop; i++) {
		sum += 1.0 / pow((double)(i + 1), s);
		cdf[i] = sum;
	}
	for (uint32_t j = 0; j < n; j++) {
		double u = rng_unit(rng) * sum;
		uint32_t lo = 0, hi = pop - 1;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		out[j] = lo;
	}
	free(cdf);
	return 0;
}

uint32_t *
bench_trace_make(struct bench_rng *rng, enum bench_dist d, double s, uint32_t pop, uint32_t n)
{
	uint32_t *t = malloc(sizeof(*t) * n);
	uint32_t *perm = NULL;

	if (t == NULL || pop == 0)
		goto fail;
	if (d == BENCH_UNIFORM) {
		for (uint32_t j = 0; j < n; j++)
			t[j] = bench_rng_below(rng, pop);
		return t;
	}
	/* Popularity ranks are spread over the population at random. */
	perm = malloc(sizeof(*perm) * pop);
	if (perm == NULL || zipf_fill(rng, s, pop, t, n) != 0)
		goto fail;
	for (uint32_t i = 0; i < pop; i++)
		perm[i] = i;
	for (uint32_t i = pop - 1; i > 0; i--) {
		uint32_t j = bench_rng_below(rng, i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (uint32_t j = 0; j < n; j++)
		t[j] = perm[t[j]];
	free(perm);
	return t;
fail:
	free(perm);
	free(t);
	return NULL;
}
