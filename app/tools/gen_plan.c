/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gen_plan.c — gufc-gen's flow plan (gen.h): gen_create() and the
 * flow list.
 *
 * Everything is drawn from one seeded RNG: exact counts for the shares
 * (kinds, IPv6, tags, fragments, RST), then shuffles which flows get what;
 * distinct endpoints (a flow's key and its reverse never collide with
 * another flow's); popularity ranks and a largest-remainder split of the data
 * packets by Zipf (or uniform) weight. Each flow also gets its own RNG seed,
 * so what a flow sends does not depend on how flows interleave (gen_run.c).
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "gen_priv.h"
#include "pkt_build.h"

#define GEN_DRAW_TRIES 100

#define EPHEMERAL_LO 32768
#define EPHEMERAL_HI 60999

static const uint16_t tcp_dports[] = {22, 80, 443};
static const uint16_t udp_dports[] = {53, 123, 443};

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *
gen_kind_name(unsigned int kind)
{
	static const char *const names[GEN_KIND__COUNT] = {"tcp", "udp", "icmp"};

	return kind < GEN_KIND__COUNT ? names[kind] : "?";
}

void
gen_params_default(struct gen_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flows = 100;
	p->mix[GEN_KIND_TCP] = 60;
	p->mix[GEN_KIND_UDP] = 30;
	p->mix[GEN_KIND_ICMP] = 10;
	p->seed = 1;
	p->size_min = 64;
	p->size_max = 1024;
	p->src4 = (struct gen_prefix){.family = 4, .len = 16, .addr = {10, 0, 0, 0}};
	p->dst4 = (struct gen_prefix){.family = 4, .len = 24, .addr = {192, 0, 2, 0}};
	p->src6 =
		(struct gen_prefix){.family = 6, .len = 64, .addr = {0x20, 0x01, 0x0d, 0xb8, 0, 1}};
	p->dst6 =
		(struct gen_prefix){.family = 6, .len = 64, .addr = {0x20, 0x01, 0x0d, 0xb8, 0, 2}};
	p->mtu = 1500;
	p->rtt_min = 200;
	p->rtt_max = 20000;
}

/* Flows out of @p n for a share of @p pct percent, rounded to the nearest. */
static uint32_t
share(uint32_t n, double pct)
{
	return (uint32_t)floor((double)n * pct / 100.0 + 0.5);
}

static bool
pct_ok(double v)
{
	return isfinite(v) && v >= 0.0 && v <= 100.0;
}

static int
check_params(const struct gen_params *p, char *err, size_t errlen)
{
	const struct {
		const char *name;
		double v;
	} pcts[] = {
		{"--ipv6", p->ipv6_pct},
		{"--vlan", p->vlan_pct},
		{"--qinq", p->qinq_pct},
		{"--frag", p->frag_pct},
		{"--rst", p->rst_pct},
	};
	uint64_t mix = 0;
	unsigned int i;

	if (p->flows == 0 || p->flows > GEN_MAX_FLOWS) {
		seterr(err, errlen, "-n/--flows %u: must be 1..%u", p->flows, GEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (p->packets != 0 && (p->packets < p->flows || p->packets > UINT32_MAX)) {
		seterr(err, errlen,
			"-p/--packets %llu: must be %u..%u (every flow sends at least one data "
			"packet)",
			(unsigned long long)p->packets, p->flows, UINT32_MAX);
		return -EINVAL;
	}
	for (i = 0; i < GEN_KIND__COUNT; i++)
		mix += p->mix[i];
	if (mix == 0) {
		seterr(err, errlen, "--mix: all proportions are 0");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		if (!pct_ok(pcts[i].v)) {
			seterr(err, errlen, "%s %g: must be a percentage 0..100", pcts[i].name,
				pcts[i].v);
			return -EINVAL;
		}
	}
	if (p->vlan_pct + p->qinq_pct > 100.0) {
		seterr(err, errlen, "--vlan %g + --qinq %g: more than 100%% of the flows",
			p->vlan_pct, p->qinq_pct);
		return -EINVAL;
	}
	if (!isfinite(p->zipf) || p->zipf < 0.0 || p->zipf > 100.0) {
		seterr(err, errlen, "--zipf %g: must be 0..100", p->zipf);
		return -EINVAL;
	}
	if (p->size_min > p->size_max || p->size_max > GEN_MAX_SIZE) {
		seterr(err, errlen, "--size %u-%u: must be min <= max <= %u", p->size_min,
			p->size_max, GEN_MAX_SIZE);
		return -EINVAL;
	}
	if (p->rtt_min == 0 || p->rtt_min > p->rtt_max || p->rtt_max > GEN_MAX_RTT) {
		seterr(err, errlen, "--rtt %u-%u: must be 1 <= min <= max <= %u us", p->rtt_min,
			p->rtt_max, GEN_MAX_RTT);
		return -EINVAL;
	}
	if (p->mtu < GEN_MTU_MIN || p->mtu > GEN_MTU_MAX) {
		seterr(err, errlen, "--mtu %u: must be %u..%u", p->mtu, GEN_MTU_MIN, GEN_MTU_MAX);
		return -EINVAL;
	}
	if (p->src4.family != 4 || p->src4.len > 32 || p->dst4.family != 4 || p->dst4.len > 32 ||
		p->src6.family != 6 || p->src6.len > 128 || p->dst6.family != 6 ||
		p->dst6.len > 128) {
		seterr(err, errlen, "address pools: bad family or prefix length");
		return -EINVAL;
	}
	if (p->n_dports > GEN_MAX_DPORTS) {
		seterr(err, errlen, "--dport-set: more than %u ports", GEN_MAX_DPORTS);
		return -EINVAL;
	}
	for (i = 0; i < p->n_dports; i++) {
		if (p->dports[i] == 0) {
			seterr(err, errlen, "--dport-set: port 0");
			return -EINVAL;
		}
	}
	if (p->bench) {
		if (p->ipv6_pct != 0.0 || p->frag_pct != 0.0 || p->rst_pct != 0.0) {
			seterr(err, errlen,
				"--bench makes IPv4 frames without fragments or closes: "
				"drop --ipv6, --frag and --rst");
			return -EINVAL;
		}
		if (p->mix[GEN_KIND_ICMP] != 0) {
			seterr(err, errlen, "--bench makes TCP and UDP only: --mix icmp must be 0");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Split @p total over @p n items in proportion to @p w (largest remainder,
 * ties to the lower index): out[i] is within 1 of total * w[i] / sum(w),
 * the parts add up to @p total, and a larger weight never gets less.
 */
struct gen_rem {
	double rem;
	uint32_t i;
};

static int
rem_cmp(const void *a, const void *b)
{
	const struct gen_rem *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

static int
apportion(uint64_t total, const double *w, uint32_t n, uint32_t *out)
{
	struct gen_rem *r;
	double sum = 0.0, q;
	uint64_t given = 0;
	uint32_t i;

	r = malloc(sizeof(*r) * n);
	if (r == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sum += w[i];
	for (i = 0; i < n; i++) {
		q = sum > 0.0 ? (double)total * (w[i] / sum) : 0.0;
		out[i] = (uint32_t)floor(q);
		r[i].rem = q - floor(q);
		r[i].i = i;
		given += out[i];
	}
	/* Floating point may overshoot by a little: take back from the tail. */
	for (i = n; given > total && i-- > 0;) {
		while (out[i] > 0 && given > total) {
			out[i]--;
			given--;
		}
	}
	qsort(r, n, sizeof(*r), rem_cmp);
	for (i = 0; given < total; i = (i + 1) % n) {
		out[r[i].i]++;
		given++;
	}
	free(r);
	return 0;
}

/* Selection sampling (Knuth's algorithm S): pick exactly @p m of @p n. */
static bool
pick(uint64_t *rng, uint32_t *m, uint32_t *left)
{
	bool take = rng_below(rng, *left) < *m;

	if (take)
		(*m)--;
	(*left)--;
	return take;
}

/* Fisher-Yates over a byte array. */
static void
shuffle8(uint64_t *rng, uint8_t *a, uint32_t n)
{
	uint32_t i, j;
	uint8_t t;

	for (i = n; i > 1; i--) {
		j = (uint32_t)rng_below(rng, i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* A random host address in @p pfx, avoiding the all-zeros and (IPv4) all-ones hosts. */
static void
draw_addr(uint64_t *rng, const struct gen_prefix *pfx, uint8_t *out)
{
	unsigned int bytes = pfx->family == 4 ? 4 : 16;
	unsigned int bits = bytes * 8;
	unsigned int hb = bits - pfx->len;
	uint32_t h, hmax, base;
	unsigned int i, b;
	bool zero = true;

	memset(out, 0, 16);
	if (pfx->family == 4) {
		base = (uint32_t)pfx->addr[0] << 24 | (uint32_t)pfx->addr[1] << 16 |
		       (uint32_t)pfx->addr[2] << 8 | pfx->addr[3];
		hmax = hb >= 32 ? UINT32_MAX : (uint32_t)((1ull << hb) - 1);
		if (hb >= 2)
			h = rng_range(rng, 1, hmax - 1);
		else
			h = (uint32_t)rng_below(rng, (uint64_t)hmax + 1);
		h |= base & ~hmax;
		out[0] = (uint8_t)(h >> 24);
		out[1] = (uint8_t)(h >> 16);
		out[2] = (uint8_t)(h >> 8);
		out[3] = (uint8_t)h;
		return;
	}
	for (i = 0; i < 16; i += 8) {
		uint64_t r = rng_next(rng);

		memcpy(out + i, &r, 8);
	}
	for (b = 0; b < bits; b++) {
		unsigned int byte = b / 8, mask = 0x80u >> (b % 8);

		if (b < pfx->len)
			out[byte] = (uint8_t)((out[byte] & ~mask) | (pfx->addr[byte] & mask));
		else if (out[byte] & mask)
			zero = false;
	}
	if (hb > 0 && zero)
		out[15] |= 1;
}

/* Endpoint of a flow in canonical order (the lower of the two ends first). */
static int
end_cmp(const uint8_t *a, uint16_t ap, const uint8_t *b, uint16_t bp)
{
	int c = memcmp(a, b, 16);

	if (c != 0)
		return c;
	return ap < bp ? -1 : ap > bp;
}

static uint64_t
flow_hash(const struct gen_flow *f)
{
	const uint8_t *lo = f->src, *hi = f->dst;
	uint16_t lp = f->sport, hp = f->dport;
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int i;

	if (end_cmp(f->src, f->sport, f->dst, f->dport) > 0) {
		lo = f->dst;
		hi = f->src;
		lp = f->dport;
		hp = f->sport;
	}
	for (i = 0; i < 16; i++)
		h = (h ^ lo[i]) * 0x100000001b3ull;
	for (i = 0; i < 16; i++)
		h = (h ^ hi[i]) * 0x100000001b3ull;
	h = (h ^ ((uint64_t)lp << 32 | (uint64_t)hp << 16 | f->proto)) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* Same connection (in either direction)? */
static bool
flow_same(const struct gen_flow *a, const struct gen_flow *b)
{
	if (a->proto != b->proto || a->family != b->family)
		return false;
	if (memcmp(a->src, b->src, 16) == 0 && memcmp(a->dst, b->dst, 16) == 0)
		return a->sport == b->sport && a->dport == b->dport;
	if (memcmp(a->src, b->dst, 16) == 0 && memcmp(a->dst, b->src, 16) == 0)
		return a->sport == b->dport && a->dport == b->sport;
	return false;
}

/* Insert flow @p i into the open-addressing set unless it is there: false if it is. */
static bool
set_insert(uint32_t *set, uint32_t mask, const struct gen_flow *flows, uint32_t i)
{
	uint32_t s = (uint32_t)flow_hash(&flows[i]) & mask;

	while (set[s] != 0) {
		if (flow_same(&flows[set[s] - 1], &flows[i]))
			return false;
		s = (s + 1) & mask;
	}
	set[s] = i + 1;
	return true;
}

static void
draw_endpoints(const struct gen_params *p, uint64_t *rng, struct gen_flow *f)
{
	const uint16_t *ports;
	uint32_t n;

	draw_addr(rng, f->family == 4 ? &p->src4 : &p->src6, f->src);
	draw_addr(rng, f->family == 4 ? &p->dst4 : &p->dst6, f->dst);
	if (f->kind == GEN_KIND_ICMP) {
		f->sport = (uint16_t)rng_range(rng, 1, UINT16_MAX);
		f->dport = f->sport;
		return;
	}
	if (p->n_dports != 0) {
		ports = p->dports;
		n = p->n_dports;
	} else if (f->kind == GEN_KIND_TCP) {
		ports = tcp_dports;
		n = sizeof(tcp_dports) / sizeof(tcp_dports[0]);
	} else {
		ports = udp_dports;
		n = sizeof(udp_dports) / sizeof(udp_dports[0]);
	}
	f->sport = (uint16_t)rng_range(rng, EPHEMERAL_LO, EPHEMERAL_HI);
	f->dport = ports[rng_below(rng, n)];
}

/* Kinds, families, tags, fragments and closes: exact counts, shuffled over the flows. */
static int
plan_attributes(struct gen *g, uint64_t *rng)
{
	const struct gen_params *p = &g->p;
	double w[GEN_KIND__COUNT];
	uint32_t cnt[GEN_KIND__COUNT], m, left, m2, left2, i, k, at;
	uint8_t *a;
	int ret;

	a = malloc(g->n);
	if (a == NULL)
		return -ENOMEM;
	for (k = 0; k < GEN_KIND__COUNT; k++)
		w[k] = p->mix[k];
	ret = apportion(g->n, w, GEN_KIND__COUNT, cnt);
	if (ret != 0)
		goto out;
	for (k = 0, at = 0; k < GEN_KIND__COUNT; k++)
		for (i = 0; i < cnt[k]; i++)
			a[at++] = (uint8_t)k;
	shuffle8(rng, a, g->n);
	for (i = 0; i < g->n; i++)
		g->flows[i].kind = a[i];

	/* tags: 0, 1 or 2 */
	m = share(g->n, p->vlan_pct);
	m2 = share(g->n, p->qinq_pct);
	if (m + m2 > g->n)
		m = g->n - m2;
	memset(a, 0, g->n);
	memset(a, 1, m);
	memset(a + m, 2, m2);
	shuffle8(rng, a, g->n);

	m = share(g->n, p->ipv6_pct);
	left = g->n;
	for (i = 0; i < g->n; i++) {
		struct gen_flow *f = &g->flows[i];

		f->n_vlan = a[i];
		f->family = pick(rng, &m, &left) ? 6 : 4;
		if (f->kind == GEN_KIND_TCP)
			f->proto = PB_PROTO_TCP;
		else if (f->kind == GEN_KIND_UDP)
			f->proto = PB_PROTO_UDP;
		else
			f->proto = f->family == 4 ? PB_PROTO_ICMP : PB_PROTO_ICMPV6;
		for (k = 0; k < f->n_vlan; k++)
			f->vlan[k] = (uint16_t)rng_range(rng, 1, 4094);
	}

	m = share(cnt[GEN_KIND_UDP], p->frag_pct);
	left = cnt[GEN_KIND_UDP];
	m2 = share(cnt[GEN_KIND_TCP], p->rst_pct);
	left2 = cnt[GEN_KIND_TCP];
	for (i = 0; i < g->n; i++) {
		struct gen_flow *f = &g->flows[i];
		bool server = !p->no_replies && rng_below(rng, 2) == 1;

		if (f->kind == GEN_KIND_UDP) {
			f->frag = pick(rng, &m, &left);
		} else if (f->kind == GEN_KIND_TCP) {
			if (p->bench)
				f->close = GEN_CLOSE_NONE;
			else if (pick(rng, &m2, &left2))
				f->close = server ? GEN_CLOSE_RST_SERVER : GEN_CLOSE_RST_CLIENT;
			else
				f->close = server ? GEN_CLOSE_FIN_SERVER : GEN_CLOSE_FIN_CLIENT;
		}
	}
out:
	free(a);
	return ret;
}

static int
plan_endpoints(struct gen *g, uint64_t *rng, char *err, size_t errlen)
{
	uint32_t size = 2, mask, *set, i, tries;

	while (size < 2 * g->n)
		size <<= 1;
	mask = size - 1;
	set = calloc(size, sizeof(*set));
	if (set == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		for (tries = 0; tries < GEN_DRAW_TRIES; tries++) {
			draw_endpoints(&g->p, rng, &g->flows[i]);
			if (set_insert(set, mask, g->flows, i))
				break;
		}
		if (tries == GEN_DRAW_TRIES) {
			seterr(err, errlen,
				"cannot draw %u distinct flows from the address and port pools "
				"(stuck at flow %u): widen --src/--dst/--src6/--dst6 or "
				"--dport-set",
				g->n, i);
			free(set);
			return -ENOSPC;
		}
	}
	free(set);
	return 0;
}

/* Popularity ranks (a random permutation) and data packets per flow. */
static int
plan_packets(struct gen *g, uint64_t *rng)
{
	uint32_t *rank_of, *per_rank, i, j, t;
	double *w;
	int ret = -ENOMEM;

	rank_of = malloc(sizeof(*rank_of) * g->n);
	per_rank = malloc(sizeof(*per_rank) * g->n);
	w = malloc(sizeof(*w) * g->n);
	if (rank_of == NULL || per_rank == NULL || w == NULL)
		goto out;
	for (i = 0; i < g->n; i++)
		rank_of[i] = i + 1;
	for (i = g->n; i > 1; i--) {
		j = (uint32_t)rng_below(rng, i);
		t = rank_of[i - 1];
		rank_of[i - 1] = rank_of[j];
		rank_of[j] = t;
	}
	for (i = 0; i < g->n; i++)
		w[i] = g->p.zipf == 0.0 ? 1.0 : pow((double)(i + 1), -g->p.zipf);
	/* one data packet each, the rest by weight */
	ret = apportion(g->packets - g->n, w, g->n, per_rank);
	if (ret != 0)
		goto out;
	for (i = 0; i < g->n; i++) {
		g->flows[i].rank = rank_of[i];
		g->flows[i].data = 1 + per_rank[rank_of[i] - 1];
	}
out:
	free(w);
	free(per_rank);
	free(rank_of);
	return ret;
}

static void
plan_stats(struct gen *g)
{
	uint32_t i;

	memset(&g->stats, 0, sizeof(g->stats));
	for (i = 0; i < g->n; i++) {
		const struct gen_flow *f = &g->flows[i];

		g->stats.flows[f->kind]++;
		g->stats.flows_v6 += f->family == 6;
		g->stats.flows_vlan += f->n_vlan == 1;
		g->stats.flows_qinq += f->n_vlan == 2;
		g->stats.flows_frag += f->frag;
		g->stats.flows_rst +=
			f->close == GEN_CLOSE_RST_CLIENT || f->close == GEN_CLOSE_RST_SERVER;
	}
}

struct gen *
gen_create(const struct gen_params *p, char *err, size_t errlen)
{
	struct gen *g;
	uint64_t rng;
	uint32_t i;
	int ret;

	ret = check_params(p, err, errlen);
	if (ret != 0) {
		errno = -ret;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		goto nomem;
	g->p = *p;
	g->n = p->flows;
	g->packets = p->packets != 0 ? p->packets : 10ull * p->flows;
	if (g->packets > UINT32_MAX)
		g->packets = UINT32_MAX;
	g->flows = calloc(g->n, sizeof(*g->flows));
	g->st = calloc(g->n, sizeof(*g->st));
	g->heap = calloc(g->n, sizeof(*g->heap));
	if (g->flows == NULL || g->st == NULL || g->heap == NULL)
		goto nomem;

	rng = p->seed;
	ret = plan_attributes(g, &rng);
	if (ret != 0)
		goto fail;
	ret = plan_endpoints(g, &rng, err, errlen);
	if (ret != 0)
		goto fail;
	ret = plan_packets(g, &rng);
	if (ret != 0)
		goto fail;
	for (i = 0; i < g->n; i++)
		g->st[i].seed = rng_next(&rng);
	plan_stats(g);
	return g;

nomem:
	ret = -ENOMEM;
fail:
	if (ret == -ENOMEM)
		seterr(err, errlen, "out of memory for %u flows", p->flows);
	gen_free(g);
	errno = -ret;
	return NULL;
}

void
gen_free(struct gen *g)
{
	if (g == NULL)
		return;
	free(g->heap);
	free(g->st);
	free(g->flows);
	free(g);
}

uint32_t
gen_flow_count(const struct gen *g)
{
	return g->n;
}

const struct gen_flow *
gen_flow(const struct gen *g, uint32_t i)
{
	return i < g->n ? &g->flows[i] : NULL;
}

void
gen_stats_get(const struct gen *g, struct gen_stats *s)
{
	*s = g->stats;
}

/* ------------------------------------------------------------------------ */
/* Flow list                                                                 */
/* ------------------------------------------------------------------------ */

static const char *
close_name(uint8_t c)
{
	switch (c) {
	case GEN_CLOSE_FIN_CLIENT:
		return "fin-client";
	case GEN_CLOSE_FIN_SERVER:
		return "fin-server";
	case GEN_CLOSE_RST_CLIENT:
		return "rst-client";
	case GEN_CLOSE_RST_SERVER:
		return "rst-server";
	default:
		return "-";
	}
}

static const char *
proto_name(uint8_t proto)
{
	switch (proto) {
	case PB_PROTO_TCP:
		return "tcp";
	case PB_PROTO_UDP:
		return "udp";
	case PB_PROTO_ICMP:
		return "icmp";
	default:
		return "icmpv6";
	}
}

/*
 * The destination port of the forward packets' flow key: an echo
 * request's is its type and code (fc_parse(): 8 << 8, ICMPv6 128 << 8),
 * its identifier the source port.
 */
static unsigned int
key_dport(const struct gen_flow *fl)
{
	if (fl->kind == GEN_KIND_ICMP)
		return fl->family == 4 ? 8u << 8 : 128u << 8;
	return fl->dport;
}

int
gen_flows_dump(const struct gen *g, FILE *f)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], vlan[16];
	int af;
	uint32_t i;

	fprintf(f, "# gufc-gen flows: index proto src:sport -> dst:dport family vlan rank data "
		   "frames bytes frag close\n");
	for (i = 0; i < g->n; i++) {
		const struct gen_flow *fl = &g->flows[i];

		af = fl->family == 4 ? AF_INET : AF_INET6;
		inet_ntop(af, fl->src, s, sizeof(s));
		inet_ntop(af, fl->dst, d, sizeof(d));
		if (fl->n_vlan == 0)
			snprintf(vlan, sizeof(vlan), "-");
		else if (fl->n_vlan == 1)
			snprintf(vlan, sizeof(vlan), "%u", fl->vlan[0]);
		else
			snprintf(vlan, sizeof(vlan), "%u.%u", fl->vlan[0], fl->vlan[1]);
		fprintf(f,
			"%u %s %s%s%s:%u -> %s%s%s:%u family=%u vlan=%s rank=%u data=%u frames=%u "
			"bytes=%llu frag=%u close=%s\n",
			i, proto_name(fl->proto), af == AF_INET6 ? "[" : "", s,
			af == AF_INET6 ? "]" : "", fl->sport, af == AF_INET6 ? "[" : "", d,
			af == AF_INET6 ? "]" : "", key_dport(fl), fl->family, vlan, fl->rank, fl->data,
			fl->frames, (unsigned long long)fl->bytes, fl->frag, close_name(fl->close));
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
