/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/tools/test_gen.c — gufc-gen's core (app/tools/gen.h): the flow
 * plan and the frames it emits, checked against the gufc parser.
 *
 * Same seed gives the same frames; every frame parses with fc_parse() to its
 * flow's key (reversed for replies; FRAG_FIRST/FRAG_LATER for fragments,
 * whose offsets and lengths add up to the datagram); TCP handshakes, data and
 * closes come in order with the right flags; replies follow requests; shares
 * (--mix, --ipv6, --vlan, --qinq, --frag, --rst) are exact to the flow;
 * Zipf popularity gives the top rank the most packets. The command line is
 * checked with a table of good and bad arguments. Pure: no EAL.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flowcache.h"
#include "gen.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct gen *
make(const struct gen_params *p)
{
	char err[256] = "";
	struct gen *g = gen_create(p, err, sizeof(err));

	if (g == NULL)
		fail_msg("gen_create: %s", err);
	return g;
}

/* Everything at once: all kinds, families, tags, fragments, closes. */
static void
params_rich(struct gen_params *p)
{
	gen_params_default(p);
	p->flows = 300;
	p->packets = 3000;
	p->ipv6_pct = 30;
	p->vlan_pct = 20;
	p->qinq_pct = 10;
	p->frag_pct = 50;
	p->rst_pct = 30;
	p->zipf = 1.0;
	p->seed = 42;
}

struct digest {
	uint64_t h;
	uint64_t frames;
};

static int
digest_cb(const struct gen_pkt *pkt, const uint8_t *frame, uint32_t len, void *arg)
{
	struct digest *d = arg;
	uint32_t i;

	d->h = (d->h ^ pkt->ts_us) * 0x100000001b3ull;
	d->h = (d->h ^ len) * 0x100000001b3ull;
	for (i = 0; i < len; i++)
		d->h = (d->h ^ frame[i]) * 0x100000001b3ull;
	d->frames++;
	return 0;
}

static struct digest
digest_of(struct gen *g)
{
	struct digest d = {.h = 0xcbf29ce484222325ull};

	assert_int_equal(gen_run(g, digest_cb, &d), 0);
	return d;
}

/* The key a frame of flow @p f in direction @p dir must parse to. */
static void
expected_key(const struct gen_flow *f, uint8_t dir, bool later, struct fc_key *k)
{
	const uint8_t *s = dir == GEN_DIR_FWD ? f->src : f->dst;
	const uint8_t *d = dir == GEN_DIR_FWD ? f->dst : f->src;
	uint16_t sp = dir == GEN_DIR_FWD ? f->sport : f->dport;
	uint16_t dp = dir == GEN_DIR_FWD ? f->dport : f->sport;

	memset(k, 0, sizeof(*k));
	if (f->kind == GEN_KIND_ICMP) {
		/* Echo, keyed as fc_parse() does: the identifier, type << 8 | code. */
		sp = f->sport;
		if (f->family == 4)
			dp = dir == GEN_DIR_FWD ? 8 << 8 : 0;
		else
			dp = dir == GEN_DIR_FWD ? 128 << 8 : 129 << 8;
	}
	if (later)
		sp = dp = 0;
	if (f->family == 4) {
		k->family = FC_AF_INET4;
		memcpy(&k->v4.src, s, 4);
		memcpy(&k->v4.dst, d, 4);
		k->v4.sport = htons(sp);
		k->v4.dport = htons(dp);
		k->v4.proto = f->proto;
	} else {
		k->family = FC_AF_INET6;
		memcpy(k->v6.src, s, 16);
		memcpy(k->v6.dst, d, 16);
		k->v6.sport = htons(sp);
		k->v6.dport = htons(dp);
		k->v6.proto = f->proto;
	}
}

static bool
key_equal(const struct fc_key *a, const struct fc_key *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == FC_AF_INET4)
		return memcmp(&a->v4, &b->v4, sizeof(a->v4)) == 0;
	return memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One emitted frame, as remembered for the order checks. */
struct ev {
	uint32_t flow;
	uint8_t dir;
	uint8_t flags;
	uint8_t data;
	uint8_t frag;
	uint8_t icmp_type;
	uint16_t icmp_seq;
};

/* State of the checking callback. */
struct check {
	const struct gen *g;
	uint32_t mtu;
	bool bench;
	uint64_t last_ts;
	uint64_t frames;
	uint32_t *data_seen;   /* data packets (datagrams) per flow */
	uint32_t *frames_seen; /* frames per flow */
	struct ev *ev;
	uint64_t n_ev, cap_ev;
	/* the datagram being reassembled (fragments of one datagram are consecutive) */
	bool in_dgram;
	uint32_t d_flow, d_id, d_next, d_len;
	uint64_t fragments, datagrams;
};

static void
check_fragment(struct check *c, const struct gen_pkt *pk, const struct fc_pkt *pp,
	const uint8_t *frame, int res)
{
	uint32_t ihl, flen;
	bool more;

	if (pp->key.family == FC_AF_INET4) {
		ihl = (uint32_t)(frame[pp->l3_off] & 0x0f) * 4;
		flen = pp->ip_len - ihl;
		more = (frame[pp->l3_off + 6] & 0x20) != 0;
	} else {
		flen = pp->ip_len - 40u - 8u;
		more = (frame[pp->l3_off + 40 + 3] & 1) != 0;
	}
	assert_true(pp->ip_len <= c->mtu);
	assert_int_equal(pp->frag_id, pk->frag_id);
	if (res == FC_PARSE_FRAG_FIRST) {
		assert_false(c->in_dgram);
		assert_int_equal(pk->frag, GEN_FRAG_FIRST);
		assert_int_equal(pp->frag_off, 0);
		assert_true(more);
		/* the UDP length field gives the whole datagram */
		assert_int_equal(rd16(frame + pp->l4_off + 4), pk->dgram);
		assert_int_equal(pk->dgram, pk->payload + 8);
		c->in_dgram = true;
		c->d_flow = pk->flow;
		c->d_id = pp->frag_id;
		c->d_next = flen;
		c->d_len = pk->dgram;
		c->datagrams++;
	} else {
		assert_true(c->in_dgram);
		assert_int_equal(pk->frag, GEN_FRAG_LATER);
		assert_int_equal(pk->flow, c->d_flow);
		assert_int_equal(pp->frag_id, c->d_id);
		assert_int_equal(pp->frag_off, c->d_next);
		assert_int_equal(pp->l4_off, 0);
		c->d_next += flen;
		if (!more) {
			assert_int_equal(c->d_next, c->d_len);
			c->in_dgram = false;
		}
	}
	if (more)
		assert_int_equal(flen % 8, 0);
	c->fragments++;
}

static int
check_cb(const struct gen_pkt *pk, const uint8_t *frame, uint32_t len, void *arg)
{
	struct check *c = arg;
	const struct gen_flow *f = gen_flow(c->g, pk->flow);
	struct fc_key want;
	struct fc_pkt pp;
	int res;

	assert_non_null(f);
	assert_true(pk->ts_us > c->last_ts);
	assert_true(pk->ts_us >= GEN_EPOCH_US);
	c->last_ts = pk->ts_us;
	c->frames++;
	c->frames_seen[pk->flow]++;
	assert_true(len >= 60);
	if (c->bench)
		assert_int_equal(len, GEN_BENCH_FRAME);

	memset(&pp, 0xee, sizeof(pp));
	res = fc_parse(frame, len, &pp);
	if (f->frag && pk->data) {
		assert_true(res == FC_PARSE_FRAG_FIRST || res == FC_PARSE_FRAG_LATER);
		check_fragment(c, pk, &pp, frame, res);
	} else {
		if (res != FC_PARSE_OK)
			fail_msg("flow %u: parse result %s", pk->flow, fc_parse_result_name(res));
		assert_int_equal(pk->frag, GEN_FRAG_NONE);
		assert_false(c->in_dgram);
		assert_true(pp.ip_len <= c->mtu);
		if (f->kind != GEN_KIND_TCP)
			assert_int_equal(pk->payload, pp.ip_len - (pp.l4_off - pp.l3_off) - 8u);
	}
	expected_key(f, pk->dir, res == FC_PARSE_FRAG_LATER, &want);
	if (!key_equal(&pp.key, &want)) {
		char a[FC_KEY_STRLEN], b[FC_KEY_STRLEN];

		fc_key_format(&pp.key, a, sizeof(a));
		fc_key_format(&want, b, sizeof(b));
		fail_msg("flow %u: parsed %s, want %s", pk->flow, a, b);
	}
	assert_int_equal(pp.n_vlan, f->n_vlan);
	if (f->kind == GEN_KIND_TCP)
		assert_int_equal(pp.tcp_flags, pk->tcp_flags);
	if (pk->data && pk->frag != GEN_FRAG_LATER)
		c->data_seen[pk->flow]++;

	if (c->ev != NULL && pk->frag != GEN_FRAG_LATER) {
		struct ev *e;

		assert_true(c->n_ev < c->cap_ev);
		e = &c->ev[c->n_ev++];
		e->flow = pk->flow;
		e->dir = pk->dir;
		e->flags = pk->tcp_flags;
		e->data = pk->data;
		e->frag = pk->frag;
		e->icmp_type = pp.icmp_type;
		e->icmp_seq = f->kind == GEN_KIND_ICMP ? rd16(frame + pp.l4_off + 6) : 0;
	}
	return 0;
}

/* Run @p g through check_cb and check the per-flow totals; keep events if asked. */
static void
run_checked(struct gen *g, const struct gen_params *p, struct check *c, bool keep_events)
{
	struct gen_stats s;
	uint32_t n = gen_flow_count(g), i;
	uint64_t data = 0;

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->mtu = p->mtu;
	c->bench = p->bench;
	c->data_seen = calloc(n, sizeof(*c->data_seen));
	c->frames_seen = calloc(n, sizeof(*c->frames_seen));
	assert_non_null(c->data_seen);
	assert_non_null(c->frames_seen);
	if (keep_events) {
		c->cap_ev = 64ull * (p->packets != 0 ? p->packets : 10ull * n) + 16ull * n;
		c->ev = calloc(c->cap_ev, sizeof(*c->ev));
		assert_non_null(c->ev);
	}
	assert_int_equal(gen_run(g, check_cb, c), 0);
	assert_false(c->in_dgram);
	gen_stats_get(g, &s);
	assert_int_equal(s.frames, c->frames);
	assert_int_equal(s.fragments, c->fragments);
	for (i = 0; i < n; i++) {
		const struct gen_flow *f = gen_flow(g, i);

		assert_int_equal(c->data_seen[i], f->data);
		assert_int_equal(c->frames_seen[i], f->frames);
		data += f->data;
	}
	assert_int_equal(s.data, data);
	assert_int_equal(data, p->packets != 0 ? p->packets : 10ull * n);
}

static void
check_free(struct check *c)
{
	free(c->data_seen);
	free(c->frames_seen);
	free(c->ev);
}

/* ------------------------------------------------------------------------ */
/* Determinism                                                               */
/* ------------------------------------------------------------------------ */

static void
test_same_seed(void **state)
{
	struct gen_params p;
	struct gen *a, *b, *c;
	struct digest da, db, da2, dc;

	(void)state;
	params_rich(&p);
	a = make(&p);
	b = make(&p);
	da = digest_of(a);
	db = digest_of(b);
	assert_true(da.frames > p.packets);
	assert_int_equal(da.frames, db.frames);
	assert_int_equal(da.h, db.h);
	/* a second run of the same generator starts over */
	da2 = digest_of(a);
	assert_int_equal(da.h, da2.h);

	p.seed++;
	c = make(&p);
	dc = digest_of(c);
	assert_true(dc.h != da.h);
	gen_free(a);
	gen_free(b);
	gen_free(c);
}

/* ------------------------------------------------------------------------ */
/* Every frame parses to its flow                                            */
/* ------------------------------------------------------------------------ */

static void
parse_all(struct gen_params *p)
{
	struct check c;
	struct gen *g = make(p);

	run_checked(g, p, &c, false);
	check_free(&c);
	gen_free(g);
}

static void
test_parse_rich(void **state)
{
	struct gen_params p;

	(void)state;
	params_rich(&p);
	parse_all(&p);
}

static void
test_parse_all_v6_tagged(void **state)
{
	struct gen_params p;

	(void)state;
	params_rich(&p);
	p.ipv6_pct = 100;
	p.vlan_pct = 50;
	p.qinq_pct = 50;
	parse_all(&p);
}

static void
test_parse_fragments(void **state)
{
	struct gen_params p;
	struct check c;
	struct gen *g;

	(void)state;
	gen_params_default(&p);
	p.flows = 100;
	p.packets = 1000;
	p.mix[GEN_KIND_TCP] = 0;
	p.mix[GEN_KIND_ICMP] = 0;
	p.ipv6_pct = 50;
	p.frag_pct = 100;
	p.mtu = 576;
	p.size_min = 0;
	p.size_max = 4000;
	g = make(&p);
	run_checked(g, &p, &c, false);
	assert_int_equal(c.datagrams, 1000);
	assert_true(c.fragments >= 2000);
	check_free(&c);
	gen_free(g);

	/* the smallest MTU, the largest datagrams */
	p.flows = 10;
	p.packets = 20;
	p.mtu = GEN_MTU_MIN;
	p.size_min = GEN_MAX_SIZE;
	p.size_max = GEN_MAX_SIZE;
	g = make(&p);
	run_checked(g, &p, &c, false);
	assert_int_equal(c.datagrams, 20);
	check_free(&c);
	gen_free(g);
}

static void
test_parse_jumbo_and_tiny(void **state)
{
	struct gen_params p;

	(void)state;
	params_rich(&p);
	p.mtu = 9000;
	p.size_min = 0;
	p.size_max = 9000;
	parse_all(&p);
	p.mtu = GEN_MTU_MIN;
	parse_all(&p);
}

/* ------------------------------------------------------------------------ */
/* Order: handshakes, replies, closes                                        */
/* ------------------------------------------------------------------------ */

enum {
	F_FIN = 0x01,
	F_SYN = 0x02,
	F_RST = 0x04,
	F_PSH = 0x08,
	F_ACK = 0x10,
};

/* Check the sequence of frames of flow @p i (events in emission order). */
static void
check_flow_order(const struct gen *g, const struct check *c, uint32_t i, bool replies)
{
	const struct gen_flow *f = gen_flow(g, i);
	struct ev seq[4096];
	uint32_t n = 0, k, d, closer;
	uint64_t e;

	for (e = 0; e < c->n_ev; e++) {
		if (c->ev[e].flow != i)
			continue;
		assert_true(n < 4096);
		seq[n++] = c->ev[e];
	}
	k = 0;
	if (f->kind == GEN_KIND_TCP) {
		assert_true(n >= 3);
		assert_int_equal(seq[k].flags, F_SYN);
		assert_int_equal(seq[k++].dir, GEN_DIR_FWD);
		if (replies) {
			assert_int_equal(seq[k].flags, F_SYN | F_ACK);
			assert_int_equal(seq[k++].dir, GEN_DIR_REV);
		}
		assert_int_equal(seq[k].flags, F_ACK);
		assert_int_equal(seq[k++].dir, GEN_DIR_FWD);
	}
	/* data: request, reply, request, ... (replies off: all requests) */
	for (d = 0; d < f->data; d++, k++) {
		assert_true(k < n);
		assert_true(seq[k].data);
		assert_int_equal(seq[k].dir, replies && (d & 1) ? GEN_DIR_REV : GEN_DIR_FWD);
		if (f->kind == GEN_KIND_TCP)
			assert_int_equal(seq[k].flags, F_PSH | F_ACK);
		if (f->kind == GEN_KIND_ICMP) {
			uint8_t req = f->family == 4 ? 8 : 128, rep = f->family == 4 ? 0 : 129;

			assert_int_equal(seq[k].icmp_type, seq[k].dir == GEN_DIR_FWD ? req : rep);
			/* a reply echoes its request's sequence number */
			assert_int_equal(seq[k].icmp_seq, replies ? (d / 2) + 1 : d + 1);
		}
	}
	if (f->kind == GEN_KIND_TCP) {
		closer = f->close == GEN_CLOSE_FIN_CLIENT || f->close == GEN_CLOSE_RST_CLIENT
				 ? GEN_DIR_FWD
				 : GEN_DIR_REV;
		assert_true(k < n);
		if (f->close == GEN_CLOSE_RST_CLIENT || f->close == GEN_CLOSE_RST_SERVER) {
			assert_int_equal(seq[k].flags, F_RST | F_ACK);
			assert_int_equal(seq[k++].dir, closer);
		} else {
			assert_int_equal(seq[k].flags, F_FIN | F_ACK);
			assert_int_equal(seq[k++].dir, closer);
			if (replies) {
				assert_int_equal(seq[k].flags, F_FIN | F_ACK);
				assert_int_equal(seq[k++].dir, closer ^ 1);
				assert_int_equal(seq[k].flags, F_ACK);
				assert_int_equal(seq[k++].dir, closer);
			}
		}
		if (!replies)
			assert_int_equal(closer, GEN_DIR_FWD);
	}
	assert_int_equal(k, n);
}

static void
order_run(struct gen_params *p, bool replies)
{
	struct check c;
	struct gen *g = make(p);
	uint32_t i, closes[5] = {0};

	run_checked(g, p, &c, true);
	for (i = 0; i < gen_flow_count(g); i++) {
		check_flow_order(g, &c, i, replies);
		closes[gen_flow(g, i)->close]++;
	}
	/* every kind of close shows up */
	if (replies) {
		for (i = GEN_CLOSE_FIN_CLIENT; i <= GEN_CLOSE_RST_SERVER; i++)
			assert_true(closes[i] > 0);
	} else {
		assert_int_equal(closes[GEN_CLOSE_FIN_SERVER] + closes[GEN_CLOSE_RST_SERVER], 0);
	}
	check_free(&c);
	gen_free(g);
}

static void
test_order(void **state)
{
	struct gen_params p;

	(void)state;
	params_rich(&p);
	order_run(&p, true);
}

static void
test_order_no_replies(void **state)
{
	struct gen_params p;

	(void)state;
	params_rich(&p);
	p.no_replies = true;
	order_run(&p, false);
}

/* TCP sequence numbers: each side's next seq and ack follow the bytes sent. */
struct tcp_track {
	const struct gen *g;
	uint32_t *nxt; /* 2 per flow */
	uint8_t *seen;
};

static int
tcp_cb(const struct gen_pkt *pk, const uint8_t *frame, uint32_t len, void *arg)
{
	struct tcp_track *t = arg;
	struct fc_pkt pp;
	uint32_t seq, ack, *nxt = &t->nxt[2 * pk->flow];
	const uint8_t *th;

	if (gen_flow(t->g, pk->flow)->kind != GEN_KIND_TCP)
		return 0;
	assert_int_equal(fc_parse(frame, len, &pp), FC_PARSE_OK);
	th = frame + pp.l4_off;
	seq = (uint32_t)rd16(th + 4) << 16 | rd16(th + 6);
	ack = (uint32_t)rd16(th + 8) << 16 | rd16(th + 10);
	if (pk->tcp_flags == F_SYN) {
		nxt[0] = seq;
		t->seen[pk->flow] = 1;
	} else if (pk->tcp_flags == (F_SYN | F_ACK)) {
		assert_int_equal(ack, nxt[0]);
		nxt[1] = seq;
	} else {
		assert_int_equal(seq, nxt[pk->dir]);
		assert_int_equal(ack, nxt[pk->dir ^ 1]);
	}
	nxt[pk->dir] = seq + pk->payload + !!(pk->tcp_flags & F_SYN) + !!(pk->tcp_flags & F_FIN);
	return 0;
}

static void
test_tcp_seq(void **state)
{
	struct gen_params p;
	struct tcp_track t;
	struct gen *g;

	(void)state;
	params_rich(&p);
	g = make(&p);
	t.g = g;
	t.nxt = calloc(2ull * p.flows, sizeof(*t.nxt));
	t.seen = calloc(p.flows, 1);
	assert_int_equal(gen_run(g, tcp_cb, &t), 0);
	free(t.nxt);
	free(t.seen);
	gen_free(g);
}

/* ------------------------------------------------------------------------ */
/* Popularity and shares                                                     */
/* ------------------------------------------------------------------------ */

static void
test_zipf(void **state)
{
	struct gen_params p;
	struct gen *g;
	uint32_t *by_rank, i, n, top = 0, max = 0, min = UINT32_MAX;
	uint64_t sum = 0;

	(void)state;
	gen_params_default(&p);
	p.flows = 1000;
	p.packets = 50000;
	p.zipf = 1.2;
	g = make(&p);
	n = gen_flow_count(g);
	by_rank = calloc(n + 1, sizeof(*by_rank));
	assert_non_null(by_rank);
	for (i = 0; i < n; i++) {
		const struct gen_flow *f = gen_flow(g, i);

		assert_true(f->rank >= 1 && f->rank <= n);
		assert_int_equal(by_rank[f->rank], 0); /* ranks are a permutation */
		by_rank[f->rank] = f->data;
		sum += f->data;
		if (f->data > max)
			max = f->data;
		if (f->rank == 1)
			top = f->data;
	}
	assert_int_equal(sum, p.packets);
	assert_int_equal(top, max);
	for (i = 2; i <= n; i++)
		assert_true(by_rank[i] <= by_rank[i - 1]);
	/* heavy head: rank 1 gets far more than the median flow */
	assert_true(by_rank[1] > 20 * by_rank[n / 2]);
	/* and roughly its Zipf share (the floor of one packet per flow aside) */
	{
		double h = 0.0, want;

		for (i = 1; i <= n; i++)
			h += pow(i, -p.zipf);
		want = (double)(p.packets - n) / h + 1.0;
		assert_true(fabs(by_rank[1] - want) <= 1.0);
	}
	gen_free(g);
	free(by_rank);

	/* uniform: everyone within one packet */
	p.zipf = 0;
	p.packets = 10 * p.flows + 7;
	g = make(&p);
	for (i = 0; i < gen_flow_count(g); i++) {
		uint32_t d = gen_flow(g, i)->data;

		max = i == 0 || d > max ? d : max;
		min = i == 0 || d < min ? d : min;
	}
	assert_true(max - min <= 1);
	assert_int_equal(max, 11);
	gen_free(g);
}

static void
count_shares(const struct gen *g, struct gen_stats *s)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < gen_flow_count(g); i++) {
		const struct gen_flow *f = gen_flow(g, i);

		s->flows[f->kind]++;
		s->flows_v6 += f->family == 6;
		s->flows_vlan += f->n_vlan == 1;
		s->flows_qinq += f->n_vlan == 2;
		s->flows_frag += f->frag;
		s->flows_rst +=
			f->close == GEN_CLOSE_RST_CLIENT || f->close == GEN_CLOSE_RST_SERVER;
		if (f->kind == GEN_KIND_ICMP)
			assert_int_equal(f->proto, f->family == 4 ? 1 : 58);
		else
			assert_int_equal(f->proto, f->kind == GEN_KIND_TCP ? 6 : 17);
		assert_true(f->frag == 0 || f->kind == GEN_KIND_UDP);
	}
}

static void
assert_share(uint32_t got, uint32_t of, double pct)
{
	double want = (double)of * pct / 100.0;

	if (fabs((double)got - want) > 0.5 + 1e-9)
		fail_msg("share: got %u of %u, want %.2f%% = %.2f", got, of, pct, want);
}

static void
test_shares(void **state)
{
	static const struct {
		uint32_t flows;
		uint32_t mix[3];
		double v6, vlan, qinq, frag, rst;
	} cases[] = {
		{100, {60, 30, 10}, 0, 0, 0, 0, 0},
		{1000, {60, 30, 10}, 25, 10, 5, 20, 30},
		{7, {1, 1, 1}, 50, 33, 33, 50, 50},
		{999, {3, 0, 1}, 100, 0, 100, 0, 100},
		{1234, {0, 1, 0}, 12.5, 40, 60, 100, 0},
		{1, {0, 0, 1}, 50, 50, 50, 50, 50},
	};
	struct gen_params p;
	struct gen_stats s, plan;
	struct gen *g;
	unsigned int c, k;
	uint32_t wsum;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		gen_params_default(&p);
		p.flows = cases[c].flows;
		memcpy(p.mix, cases[c].mix, sizeof(p.mix));
		p.ipv6_pct = cases[c].v6;
		p.vlan_pct = cases[c].vlan;
		p.qinq_pct = cases[c].qinq;
		p.frag_pct = cases[c].frag;
		p.rst_pct = cases[c].rst;
		p.seed = c;
		g = make(&p);
		count_shares(g, &s);
		wsum = p.mix[0] + p.mix[1] + p.mix[2];
		for (k = 0; k < GEN_KIND__COUNT; k++) {
			/* largest remainder: within one flow of the exact proportion */
			double want = (double)p.flows * p.mix[k] / wsum;

			assert_true(fabs(s.flows[k] - want) < 1.0);
		}
		assert_share(s.flows_v6, p.flows, p.ipv6_pct);
		if (p.vlan_pct + p.qinq_pct <= 100 - 1) {
			assert_share(s.flows_vlan, p.flows, p.vlan_pct);
			assert_share(s.flows_qinq, p.flows, p.qinq_pct);
		}
		assert_share(s.flows_frag, s.flows[GEN_KIND_UDP], p.frag_pct);
		assert_share(s.flows_rst, s.flows[GEN_KIND_TCP], p.rst_pct);
		gen_stats_get(g, &plan);
		assert_memory_equal(plan.flows, s.flows, sizeof(s.flows));
		assert_int_equal(plan.flows_v6, s.flows_v6);
		assert_int_equal(plan.flows_vlan, s.flows_vlan);
		assert_int_equal(plan.flows_qinq, s.flows_qinq);
		assert_int_equal(plan.flows_frag, s.flows_frag);
		assert_int_equal(plan.flows_rst, s.flows_rst);
		gen_free(g);
	}
}

/* Endpoints come from the pools, ports from the set, and flows are distinct. */
static void
test_endpoints(void **state)
{
	struct gen_params p;
	struct gen *g;
	uint32_t i, j, n;

	(void)state;
	gen_params_default(&p);
	p.flows = 500;
	p.ipv6_pct = 50;
	p.src4 = (struct gen_prefix){.family = 4, .len = 30, .addr = {198, 18, 0, 4}};
	p.dst4 = (struct gen_prefix){.family = 4, .len = 32, .addr = {198, 19, 0, 1}};
	p.src6 = (struct gen_prefix){
		.family = 6, .len = 120, .addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 0}};
	p.dst6 = (struct gen_prefix){
		.family = 6, .len = 128, .addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 9}};
	p.dports[0] = 8080;
	p.dports[1] = 9999;
	p.n_dports = 2;
	g = make(&p);
	n = gen_flow_count(g);
	for (i = 0; i < n; i++) {
		const struct gen_flow *f = gen_flow(g, i);

		if (f->family == 4) {
			assert_int_equal(f->src[0], 198);
			assert_int_equal(f->src[1], 18);
			assert_int_equal(f->src[2], 0);
			assert_true(f->src[3] == 5 || f->src[3] == 6); /* not .4 or .7 */
			assert_memory_equal(f->dst, ((uint8_t[]){198, 19, 0, 1}), 4);
		} else {
			assert_memory_equal(f->src, p.src6.addr, 15);
			assert_true(f->src[15] != 0);
			assert_memory_equal(f->dst, p.dst6.addr, 16);
		}
		if (f->kind == GEN_KIND_ICMP) {
			assert_int_equal(f->sport, f->dport);
		} else {
			assert_true(f->dport == 8080 || f->dport == 9999);
			assert_true(f->sport >= 32768 && f->sport <= 60999);
		}
		for (j = 0; j < i; j++) {
			const struct gen_flow *o = gen_flow(g, j);

			if (o->proto != f->proto || o->family != f->family)
				continue;
			assert_false(memcmp(o->src, f->src, 16) == 0 &&
				     memcmp(o->dst, f->dst, 16) == 0 && o->sport == f->sport &&
				     o->dport == f->dport);
		}
	}
	gen_free(g);
}

/* ------------------------------------------------------------------------ */
/* Bench shape                                                               */
/* ------------------------------------------------------------------------ */

struct bench_check {
	uint32_t *order;
	uint64_t n;
};

static int
bench_cb(const struct gen_pkt *pk, const uint8_t *frame, uint32_t len, void *arg)
{
	struct bench_check *b = arg;

	(void)frame;
	(void)len;
	assert_int_equal(pk->dir, GEN_DIR_FWD);
	assert_true(pk->tcp_flags == 0 || pk->tcp_flags == F_ACK);
	b->order[b->n++] = pk->flow;
	return 0;
}

static void
test_bench(void **state)
{
	struct gen_params p;
	struct bench_check b;
	struct check c;
	struct gen *g;
	uint32_t i, r;

	(void)state;
	gen_params_default(&p);
	p.bench = true;
	p.flows = 64;
	p.packets = 64 * 5;
	p.mix[GEN_KIND_ICMP] = 0;
	p.vlan_pct = 25;
	p.qinq_pct = 25;
	g = make(&p);
	run_checked(g, &p, &c, false);
	assert_int_equal(c.frames, p.packets);
	check_free(&c);
	/* rounds: flows 0..n-1, five times */
	b.order = calloc(p.packets, sizeof(*b.order));
	b.n = 0;
	assert_int_equal(gen_run(g, bench_cb, &b), 0);
	for (r = 0; r < 5; r++)
		for (i = 0; i < p.flows; i++)
			assert_int_equal(b.order[r * p.flows + i], i);
	free(b.order);
	gen_free(g);

	/* Zipf in bench mode: popular flows send in more rounds */
	p.zipf = 1.0;
	p.packets = 1000;
	g = make(&p);
	run_checked(g, &p, &c, false);
	check_free(&c);
	gen_free(g);
}

/* ------------------------------------------------------------------------ */
/* Bad parameters                                                            */
/* ------------------------------------------------------------------------ */

static void
test_create_bad(void **state)
{
	struct gen_params p;
	char err[256];
	unsigned int i;
	struct gen *g;

	(void)state;
	for (i = 0; i < 15; i++) {
		gen_params_default(&p);
		switch (i) {
		case 0:
			p.flows = 0;
			break;
		case 1:
			p.packets = p.flows - 1;
			break;
		case 2:
			memset(p.mix, 0, sizeof(p.mix));
			break;
		case 3:
			p.ipv6_pct = 101;
			break;
		case 4:
			p.vlan_pct = 60;
			p.qinq_pct = 50;
			break;
		case 5:
			p.zipf = -1;
			break;
		case 6:
			p.size_min = 10;
			p.size_max = 5;
			break;
		case 7:
			p.mtu = 10;
			break;
		case 8:
			p.src4.family = 6;
			break;
		case 9:
			p.bench = true; /* the default mix has ICMP */
			break;
		case 10:
			p.bench = true;
			p.mix[GEN_KIND_ICMP] = 0;
			p.ipv6_pct = 1;
			break;
		case 11:
			p.rtt_min = 0;
			break;
		case 12:
			p.rtt_min = 3000;
			p.rtt_max = 2000;
			break;
		case 13:
			p.rtt_max = GEN_MAX_RTT + 1;
			break;
		default:
			p.rst_pct = NAN;
			break;
		}
		err[0] = '\0';
		errno = 0;
		g = gen_create(&p, err, sizeof(err));
		if (g != NULL)
			fail_msg("case %u: accepted", i);
		assert_int_equal(errno, EINVAL);
		assert_true(strlen(err) > 0);
	}

	/* pools too small for the flows asked: ENOSPC, not a hang */
	gen_params_default(&p);
	p.flows = 30000;
	p.mix[GEN_KIND_TCP] = 0;
	p.mix[GEN_KIND_ICMP] = 0;
	p.src4.len = 32;
	p.dst4.len = 32;
	p.dports[0] = 53;
	p.n_dports = 1;
	errno = 0;
	g = gen_create(&p, err, sizeof(err));
	assert_null(g);
	assert_int_equal(errno, ENOSPC);
	assert_non_null(strstr(err, "distinct"));
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */
/* ------------------------------------------------------------------------ */

#define MAX_ARGS 32

static int
parse_args(const char *const *args, struct gen_opts *o, char *err, size_t errlen)
{
	char *argv[MAX_ARGS + 2];
	int argc = 0;

	argv[argc++] = (char *)"gufc-gen";
	while (*args != NULL && argc <= MAX_ARGS)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return gen_opts_parse(argc, argv, o, err, errlen);
}

static void
test_opts_good(void **state)
{
	struct gen_opts o;
	char err[256];

	(void)state;
	assert_int_equal(
		parse_args((const char *[]){"-o", "x.pcap", NULL}, &o, err, sizeof(err)), 0);
	assert_string_equal(o.output, "x.pcap");
	assert_int_equal(o.params.flows, 100);
	assert_int_equal(o.params.mix[GEN_KIND_TCP], 60);
	assert_null(o.flows_file);

	assert_int_equal(
		parse_args((const char *[]){"--output=y", "-n", "5", "-p", "77", "--mix",
				   "udp=3,icmp=1", "--ipv6", "12.5", "--vlan", "10", "--qinq", "5",
				   "--frag", "50", "--rst", "20", "--zipf", "0.9", NULL},
			&o, err, sizeof(err)),
		0);
	assert_string_equal(o.output, "y");
	assert_int_equal(o.params.flows, 5);
	assert_int_equal(o.params.packets, 77);
	assert_int_equal(o.params.mix[GEN_KIND_TCP], 0);
	assert_int_equal(o.params.mix[GEN_KIND_UDP], 3);
	assert_int_equal(o.params.mix[GEN_KIND_ICMP], 1);
	assert_true(o.params.ipv6_pct == 12.5);
	assert_true(o.params.vlan_pct == 10);
	assert_true(o.params.qinq_pct == 5);
	assert_true(o.params.frag_pct == 50);
	assert_true(o.params.rst_pct == 20);
	assert_true(o.params.zipf == 0.9);

	assert_int_equal(parse_args((const char *[]){"-o", "-", "--seed", "18446744073709551615",
					    "--size", "10-20", "--src", "198.18.0.0/15", "--dst",
					    "203.0.113.9", "--src6", "2001:db8:a::/48", "--dst6",
					    "2001:db8:b::1", "--dport-set", "22,80,443,53", NULL},
				 &o, err, sizeof(err)),
		0);
	assert_true(o.params.seed == UINT64_MAX);
	assert_int_equal(o.params.size_min, 10);
	assert_int_equal(o.params.size_max, 20);
	assert_int_equal(o.params.src4.len, 15);
	assert_memory_equal(o.params.src4.addr, ((uint8_t[]){198, 18, 0, 0}), 4);
	assert_int_equal(o.params.dst4.len, 32);
	assert_int_equal(o.params.src6.len, 48);
	assert_int_equal(o.params.dst6.len, 128);
	assert_int_equal(o.params.n_dports, 4);
	assert_int_equal(o.params.dports[3], 53);

	assert_int_equal(parse_args((const char *[]){"-o", "z", "--no-replies", "--mtu", "9000",
					    "--flows-file", "f.txt", NULL},
				 &o, err, sizeof(err)),
		0);
	assert_true(o.params.no_replies);
	assert_int_equal(o.params.mtu, 9000);
	assert_string_equal(o.flows_file, "f.txt");
	/* without --rtt: the default range, shortened for busy flows */
	assert_int_equal(o.params.rtt_min, 200);
	assert_int_equal(o.params.rtt_max, 20000);
	assert_false(o.params.rtt_kept);

	assert_int_equal(parse_args((const char *[]){"-o", "z", "--rtt", "2000-3000", NULL}, &o,
				 err, sizeof(err)),
		0);
	assert_int_equal(o.params.rtt_min, 2000);
	assert_int_equal(o.params.rtt_max, 3000);
	assert_true(o.params.rtt_kept);
	assert_int_equal(
		parse_args((const char *[]){"-o", "z", "--rtt", "500", NULL}, &o, err, sizeof(err)),
		0);
	assert_int_equal(o.params.rtt_min, 500);
	assert_int_equal(o.params.rtt_max, 500);

	/* --bench: UDP unless --mix says otherwise */
	assert_int_equal(
		parse_args((const char *[]){"-o", "z", "--bench", NULL}, &o, err, sizeof(err)), 0);
	assert_true(o.params.bench);
	assert_int_equal(o.params.mix[GEN_KIND_UDP], 100);
	assert_int_equal(o.params.mix[GEN_KIND_TCP] + o.params.mix[GEN_KIND_ICMP], 0);

	/* --help needs nothing else */
	assert_int_equal(parse_args((const char *[]){"--help", NULL}, &o, err, sizeof(err)), 0);
	assert_true(o.help);
}

static void
test_opts_bad(void **state)
{
	static const struct {
		const char *args[6];
		const char *names; /* the message must contain this */
	} cases[] = {
		{{"-n", "10", NULL}, "-o/--output"},
		{{"-o", NULL}, "'-o'"},
		{{"-o", "x", "--flows", NULL}, "'--flows'"},
		{{"-o", "x", "--bogus", NULL}, "'--bogus'"},
		{{"-o", "x", "-q", NULL}, "'-q'"},
		{{"-o", "x", "extra", NULL}, "'extra'"},
		{{"-o", "x", "-n", "0", NULL}, "-n/--flows '0'"},
		{{"-o", "x", "-n", "12abc", NULL}, "-n/--flows '12abc'"},
		{{"-o", "x", "-n", "-5", NULL}, "-n/--flows '-5'"},
		{{"-o", "x", "-n", "99999999999", NULL}, "-n/--flows"},
		{{"-o", "x", "-p", "0", NULL}, "-p/--packets '0'"},
		{{"-o", "x", "--mix", "tcp=1,ftp=2", NULL}, "unknown kind 'ftp'"},
		{{"-o", "x", "--mix", "tcp", NULL}, "--mix 'tcp'"},
		{{"-o", "x", "--mix", "tcp=1,tcp=2", NULL}, "given twice"},
		{{"-o", "x", "--mix", "tcp=0", NULL}, "all proportions are 0"},
		{{"-o", "x", "--mix", "udp=x", NULL}, "weight 'x'"},
		{{"-o", "x", "--ipv6", "101", NULL}, "--ipv6 '101'"},
		{{"-o", "x", "--vlan", "-1", NULL}, "--vlan '-1'"},
		{{"-o", "x", "--qinq", "five", NULL}, "--qinq 'five'"},
		{{"-o", "x", "--frag", "nan", NULL}, "--frag 'nan'"},
		{{"-o", "x", "--rst", "1e999", NULL}, "--rst '1e999'"},
		{{"-o", "x", "--zipf", "inf", NULL}, "--zipf 'inf'"},
		{{"-o", "x", "--seed", "1x", NULL}, "--seed '1x'"},
		{{"-o", "x", "--size", "20-10", NULL}, "--size '20-10'"},
		{{"-o", "x", "--size", "70000", NULL}, "--size '70000'"},
		{{"-o", "x", "--size", "1-", NULL}, "--size '1-'"},
		{{"-o", "x", "--src", "10.0.0.0/33", NULL}, "--src '10.0.0.0/33'"},
		{{"-o", "x", "--dst", "2001:db8::/64", NULL}, "--dst '2001:db8::/64'"},
		{{"-o", "x", "--src6", "10.0.0.0/8", NULL}, "--src6 '10.0.0.0/8'"},
		{{"-o", "x", "--dst6", "2001:db8::/129", NULL}, "--dst6 '2001:db8::/129'"},
		{{"-o", "x", "--dport-set", "22,0", NULL}, "'0' is not a port"},
		{{"-o", "x", "--dport-set", "22,70000", NULL}, "'70000' is not a port"},
		{{"-o", "x", "--dport-set", ",", NULL}, "--dport-set ','"},
		{{"-o", "x", "--mtu", "67", NULL}, "--mtu '67'"},
		{{"-o", "x", "--mtu", "9217", NULL}, "--mtu '9217'"},
		{{"-o", "x", "--bench", "--size", "64", NULL},
			"--size cannot be used with --bench"},
		{{"-o", "x", "--rtt", "0", NULL}, "--rtt '0'"},
		{{"-o", "x", "--rtt", "3000-2000", NULL}, "--rtt '3000-2000'"},
		{{"-o", "x", "--rtt", "10000001", NULL}, "--rtt '10000001'"},
		{{"-o", "x", "--rtt", "1ms", NULL}, "--rtt '1ms'"},
	};
	struct gen_opts o;
	char err[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		if (parse_args(cases[i].args, &o, err, sizeof(err)) != -EINVAL)
			fail_msg("case %u (%s ...): accepted", i, cases[i].args[0]);
		if (strstr(err, cases[i].names) == NULL)
			fail_msg("case %u: message \"%s\" does not name \"%s\"", i, err,
				cases[i].names);
	}
}

/* --rtt: how long after a packet the other side's next one comes. */
struct rtt_track {
	uint64_t *last_ts; /* per flow */
	uint8_t *last_dir; /* per flow; 2 = nothing yet */
	uint64_t min_gap;  /* smallest gap between a packet and the other side's answer */
	uint64_t turns;
};

static int
rtt_cb(const struct gen_pkt *pk, const uint8_t *frame, uint32_t len, void *arg)
{
	struct rtt_track *t = arg;
	uint64_t gap;

	(void)frame;
	(void)len;
	if (t->last_dir[pk->flow] != 2 && t->last_dir[pk->flow] != pk->dir) {
		gap = pk->ts_us - t->last_ts[pk->flow];
		if (gap < t->min_gap)
			t->min_gap = gap;
		t->turns++;
	}
	t->last_dir[pk->flow] = pk->dir;
	t->last_ts[pk->flow] = pk->ts_us;
	return 0;
}

static uint64_t
min_turn_gap(const struct gen_params *p, uint64_t *turns)
{
	struct gen *g = make(p);
	struct rtt_track t = {.min_gap = UINT64_MAX};

	t.last_ts = calloc(p->flows, sizeof(*t.last_ts));
	t.last_dir = malloc(p->flows);
	assert_non_null(t.last_ts);
	assert_non_null(t.last_dir);
	memset(t.last_dir, 2, p->flows);
	assert_int_equal(gen_run(g, rtt_cb, &t), 0);
	free(t.last_ts);
	free(t.last_dir);
	gen_free(g);
	*turns = t.turns;
	return t.min_gap;
}

static void
test_rtt(void **state)
{
	struct gen_params p;
	uint64_t turns, gap;

	(void)state;
	/* busy TCP flows: 100 data packets each, both ways; the default would
	 * shorten their round trips to fit the 50 us-per-packet span */
	gen_params_default(&p);
	p.flows = 10;
	p.packets = 1000;
	p.mix[GEN_KIND_UDP] = 0;
	p.mix[GEN_KIND_ICMP] = 0;
	p.rtt_min = 4000;
	p.rtt_max = 5000;
	gap = min_turn_gap(&p, &turns);
	assert_true(turns > 1000);
	assert_true(gap < 2000); /* not kept: shortened */

	p.rtt_kept = true;
	gap = min_turn_gap(&p, &turns);
	assert_true(turns > 1000);
	/* every answer comes half a round trip later at least (time stamps
	 * are only ever pushed forward, by 1 us per frame at most) */
	assert_true(gap + p.packets * 3 >= 2000);
	assert_true(gap >= 1900);
}

/* The flow list: a header, then one line per flow that starts like fc_key_format(). */
static void
test_flows_dump(void **state)
{
	struct gen_params p;
	struct gen *g;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	uint32_t n = 0;
	FILE *f;

	(void)state;
	params_rich(&p);
	p.flows = 50;
	p.packets = 500;
	g = make(&p);
	digest_of(g); /* fills the per-flow frame counts */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gen_flows_dump(g, f), 0);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		const struct gen_flow *fl;
		char keytext[FC_KEY_STRLEN + 32], *sp;
		struct fc_key k, want;
		unsigned int idx, frames;
		int off;

		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%u %n", &idx, &off), 1);
		assert_int_equal(idx, n);
		fl = gen_flow(g, idx);
		/* "proto src:sport -> dst:dport" is the first four words */
		snprintf(keytext, sizeof(keytext), "%s", line + off);
		sp = keytext;
		for (int w = 0; w < 4 && sp != NULL; w++)
			sp = strchr(sp + 1, ' ');
		assert_non_null(sp);
		*sp = '\0';
		assert_int_equal(fc_key_parse(keytext, &k, NULL), 0);
		expected_key(fl, GEN_DIR_FWD, false, &want);
		assert_true(key_equal(&k, &want));
		assert_non_null(strstr(line, " frames="));
		assert_int_equal(sscanf(strstr(line, " frames="), " frames=%u", &frames), 1);
		assert_int_equal(frames, fl->frames);
		n++;
	}
	assert_int_equal(n, p.flows);
	free(buf);
	gen_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed),
		cmocka_unit_test(test_parse_rich),
		cmocka_unit_test(test_parse_all_v6_tagged),
		cmocka_unit_test(test_parse_fragments),
		cmocka_unit_test(test_parse_jumbo_and_tiny),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_order_no_replies),
		cmocka_unit_test(test_tcp_seq),
		cmocka_unit_test(test_zipf),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_bench),
		cmocka_unit_test(test_create_bad),
		cmocka_unit_test(test_opts_good),
		cmocka_unit_test(test_opts_bad),
		cmocka_unit_test(test_flows_dump),
		cmocka_unit_test(test_rtt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
