/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gen_run.c — gufc-gen's packet emission (gen.h): gen_run().
 *
 * Flows are merged in time order with a binary heap keyed by each flow's
 * next packet time: a flow's packets follow its script (TCP handshake,
 * alternating request and reply, close), a reply comes half an RTT after its
 * request, and time stamps are made strictly increasing. Frames are built
 * with pkt_build; datagrams larger than the MTU are cut into fragments.
 * --bench mode skips the heap: rounds of one 64-byte frame per flow still
 * sending.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_priv.h"
#include "pkt_build.h"

static const uint8_t mac_client[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t mac_server[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

/* ------------------------------------------------------------------------ */
/* Flow scripts                                                              */
/* ------------------------------------------------------------------------ */

static uint32_t
l2_len(const struct gen_flow *f)
{
	return ETH_HLEN + VLAN_HLEN * f->n_vlan;
}

static uint32_t
l3_len(const struct gen_flow *f)
{
	return f->family == 4 ? IPV4_HLEN : IPV6_HLEN;
}

static uint32_t
l4_len(const struct gen_flow *f)
{
	return f->kind == GEN_KIND_TCP ? TCP_HLEN : UDP_HLEN; /* ICMP header is 8 too */
}

/* Payload of a data packet: --size, fitted to the MTU unless fragmented. */
static uint32_t
draw_payload(const struct gen *g, const struct gen_flow *f, struct gen_state *st)
{
	uint32_t room = g->p.mtu - l3_len(f) - l4_len(f);
	uint32_t sz;

	if (g->p.mtu < l3_len(f) + l4_len(f))
		room = 0;
	if (g->p.bench) {
		sz = l2_len(f) + l3_len(f) + l4_len(f);
		return sz < GEN_BENCH_FRAME ? GEN_BENCH_FRAME - sz : 0;
	}
	sz = rng_range(&st->rng, g->p.size_min, g->p.size_max);
	if (f->frag) {
		uint32_t big = room + 1 + rng_range(&st->rng, 0, g->p.mtu);

		return sz > big ? sz : big;
	}
	if (sz > room)
		sz = room;
	if (f->kind == GEN_KIND_TCP && sz == 0 && room > 0)
		sz = 1; /* a data segment carries data */
	return sz;
}

/*
 * Draw the next packet of a flow into st->next and advance its script.
 * @return false when the flow has nothing more to send.
 */
static bool
flow_next(const struct gen *g, const struct gen_flow *f, struct gen_state *st)
{
	bool replies = !g->p.no_replies && !g->p.bench;
	bool tcp = f->kind == GEN_KIND_TCP;
	struct gen_desc *d = &st->next;
	uint8_t closer;

	memset(d, 0, sizeof(*d));
	for (;;) {
		switch (st->phase) {
		case PH_OPEN:
			if (!tcp || g->p.bench || st->step == 3) {
				st->phase = PH_DATA;
				st->step = 0;
				continue;
			}
			switch (st->step++) {
			case 0:
				d->flags = PB_TCP_SYN;
				return true;
			case 1:
				if (!replies) {
					st->seq[GEN_DIR_REV]++; /* the SYN/ACK we do not show */
					continue;
				}
				d->dir = GEN_DIR_REV;
				d->flags = PB_TCP_SYN | PB_TCP_ACK;
				return true;
			default:
				d->flags = PB_TCP_ACK;
				return true;
			}
		case PH_DATA:
			if (st->step == f->data) {
				st->phase = PH_CLOSE;
				st->step = 0;
				continue;
			}
			d->dir = replies && (st->step & 1) ? GEN_DIR_REV : GEN_DIR_FWD;
			d->data = 1;
			if (tcp)
				d->flags = g->p.bench ? PB_TCP_ACK : PB_TCP_PSH | PB_TCP_ACK;
			if (f->kind == GEN_KIND_ICMP && d->dir == GEN_DIR_REV)
				d->payload = st->echo;
			else
				d->payload = draw_payload(g, f, st);
			st->step++;
			return true;
		case PH_CLOSE:
			if (!tcp || f->close == GEN_CLOSE_NONE) {
				st->phase = PH_DONE;
				continue;
			}
			closer =
				f->close == GEN_CLOSE_FIN_CLIENT || f->close == GEN_CLOSE_RST_CLIENT
					? GEN_DIR_FWD
					: GEN_DIR_REV;
			if (f->close == GEN_CLOSE_RST_CLIENT || f->close == GEN_CLOSE_RST_SERVER) {
				if (st->step++ != 0) {
					st->phase = PH_DONE;
					continue;
				}
				d->dir = closer;
				d->flags = PB_TCP_RST | PB_TCP_ACK;
				return true;
			}
			switch (st->step++) {
			case 0:
				d->dir = closer;
				d->flags = PB_TCP_FIN | PB_TCP_ACK;
				return true;
			case 1:
				if (!replies)
					break;
				d->dir = (uint8_t)(closer ^ 1);
				d->flags = PB_TCP_FIN | PB_TCP_ACK;
				return true;
			case 2:
				if (!replies)
					break;
				d->dir = closer;
				d->flags = PB_TCP_ACK;
				return true;
			default:
				break;
			}
			st->phase = PH_DONE;
			continue;
		default:
			return false;
		}
	}
}

/* Reset a flow's run state from its seed and draw its first packet. */
static void
flow_start(const struct gen *g, const struct gen_flow *f, struct gen_state *st, uint64_t span)
{
	uint64_t seed = st->seed;

	memset(st, 0, sizeof(*st));
	st->seed = seed;
	st->rng = seed;
	st->t = rng_below(&st->rng, span);
	st->rtt = rng_range(&st->rng, g->p.rtt_min, g->p.rtt_max);
	/* busy flows go faster: each flow lasts about the start span at most */
	if (!g->p.rtt_kept && st->rtt > 2 * span / (f->data + 4u))
		st->rtt = (uint32_t)(2 * span / (f->data + 4u)) + 2;
	st->seq[0] = (uint32_t)rng_next(&st->rng);
	st->seq[1] = (uint32_t)rng_next(&st->rng);
	st->ipid = (uint32_t)rng_next(&st->rng);
	st->icmp_seq = 0;
	st->phase = PH_OPEN;
	flow_next(g, f, st);
}

/* Build the pending packet of a flow, headers through payload, into @p b. */
static int
build(const struct gen_flow *f, struct gen_state *st, const struct gen_desc *d, struct pb *b)
{
	static const uint16_t tpid2[2] = {PB_TPID_8021AD, PB_TPID_8021Q};
	bool fwd = d->dir == GEN_DIR_FWD;
	const uint8_t *sa = fwd ? f->src : f->dst, *da = fwd ? f->dst : f->src;
	uint16_t sp = fwd ? f->sport : f->dport, dp = fwd ? f->dport : f->sport;
	uint32_t seq, ack;
	unsigned int i;

	pb_eth(b, fwd ? mac_server : mac_client, fwd ? mac_client : mac_server);
	for (i = 0; i < f->n_vlan; i++)
		pb_vlan(b, f->n_vlan == 1 ? PB_TPID_8021Q : tpid2[i], f->vlan[i]);
	if (f->family == 4) {
		struct pb_ipv4 ip = {
			.src = (uint32_t)sa[0] << 24 | sa[1] << 16 | sa[2] << 8 | sa[3],
			.dst = (uint32_t)da[0] << 24 | da[1] << 16 | da[2] << 8 | da[3],
			.id = (uint16_t)st->ipid,
			.df = f->kind == GEN_KIND_TCP,
		};

		pb_ipv4(b, &ip);
	} else {
		struct pb_ipv6 ip = {.flow = (uint32_t)(st->seed & 0xfffff)};

		memcpy(ip.src, sa, 16);
		memcpy(ip.dst, da, 16);
		pb_ipv6(b, &ip);
	}
	switch (f->kind) {
	case GEN_KIND_TCP:
		seq = st->seq[d->dir];
		ack = d->flags & PB_TCP_ACK ? st->seq[d->dir ^ 1] : 0;
		pb_tcp(b, sp, dp, d->flags, seq, ack, 0);
		st->seq[d->dir] +=
			d->payload + !!(d->flags & PB_TCP_SYN) + !!(d->flags & PB_TCP_FIN);
		break;
	case GEN_KIND_UDP:
		pb_udp(b, sp, dp);
		break;
	default:
		if (fwd) {
			st->icmp_seq++;
			st->echo = d->payload;
		}
		if (f->family == 4)
			pb_icmp(b, fwd ? 8 : 0, 0, f->sport, st->icmp_seq);
		else
			pb_icmp6(b, fwd ? 128 : 129, 0, f->sport, st->icmp_seq);
		break;
	}
	pb_payload(b, NULL, d->payload);
	return pb_finish(b);
}

static int
emit(struct gen *g, struct gen_pkt *pk, const uint8_t *frame, uint32_t len, gen_emit_fn fn,
	void *arg, uint64_t t)
{
	struct gen_flow *f = &g->flows[pk->flow];
	uint64_t ts = GEN_EPOCH_US + t;

	if (g->stats.frames != 0 && ts <= g->last_ts)
		ts = g->last_ts + 1;
	g->last_ts = ts;
	pk->ts_us = ts;
	if (g->stats.frames == 0)
		g->stats.first_us = ts;
	g->stats.last_us = ts;
	g->stats.frames++;
	g->stats.bytes += len;
	g->stats.fragments += pk->frag != GEN_FRAG_NONE;
	f->frames++;
	f->bytes += len;
	return fn(pk, frame, len, arg);
}

/* Send a built datagram as fragments of at most MTU bytes each. */
static int
emit_fragments(struct gen *g, struct gen_pkt *pk, const struct pb *b, gen_emit_fn fn, void *arg,
	uint64_t t)
{
	const struct gen_flow *f = &g->flows[pk->flow];
	uint32_t plen = b->end - b->l3_off - l3_len(f);
	uint32_t step, off, len;
	int n, ret;

	if (f->family == 4)
		step = (g->p.mtu - IPV4_HLEN) & ~7u;
	else
		step = (g->p.mtu - IPV6_HLEN - FRAG6_HLEN) & ~7u;
	pk->dgram = plen;
	for (off = 0; off < plen; off += len) {
		len = plen - off < step ? plen - off : step;
		if (f->family == 4)
			n = pb_ipv4_fragment(
				b->buf, b->end, b->l3_off, off, len, g->frame, GEN_FRAME_CAP);
		else
			n = pb_ipv6_fragment(b->buf, b->end, b->l3_off, off, len, pk->frag_id,
				g->frame, GEN_FRAME_CAP);
		if (n < 0)
			return -EIO;
		if (n < GEN_MIN_FRAME) {
			memset(g->frame + n, 0, GEN_MIN_FRAME - (uint32_t)n);
			n = GEN_MIN_FRAME;
		}
		pk->frag = off == 0 ? GEN_FRAG_FIRST : GEN_FRAG_LATER;
		ret = emit(g, pk, g->frame, (uint32_t)n, fn, arg, t);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Build and emit the pending packet of flow @p i. */
static int
send_pending(struct gen *g, uint32_t i, gen_emit_fn fn, void *arg)
{
	struct gen_flow *f = &g->flows[i];
	struct gen_state *st = &g->st[i];
	const struct gen_desc *d = &st->next;
	struct gen_pkt pk = {
		.flow = i,
		.dir = d->dir,
		.tcp_flags = d->flags,
		.data = d->data,
		.payload = d->payload,
	};
	bool frag = f->frag != 0 && d->data;
	struct pb b;
	int n;

	pb_init(&b, frag ? g->dgram : g->frame, frag ? GEN_DGRAM_CAP : GEN_FRAME_CAP);
	pk.frag_id = frag ? (f->family == 4 ? (uint16_t)st->ipid : st->ipid) : 0;
	n = build(f, st, d, &b);
	st->ipid++;
	if (n < 0)
		return -EIO;
	if (d->data)
		g->stats.data++;
	else
		g->stats.control++;
	if (frag)
		return emit_fragments(g, &pk, &b, fn, arg, st->t);
	n = pb_pad(&b, g->p.bench ? GEN_BENCH_FRAME : GEN_MIN_FRAME);
	if (n < 0)
		return -EIO;
	return emit(g, &pk, b.buf, (uint32_t)n, fn, arg, st->t);
}

/* ------------------------------------------------------------------------ */
/* Time order                                                                */
/* ------------------------------------------------------------------------ */

static bool
heap_less(const struct gen_heap_ent *a, const struct gen_heap_ent *b)
{
	return a->t != b->t ? a->t < b->t : a->flow < b->flow;
}

static void
heap_push(struct gen *g, uint64_t t, uint32_t flow)
{
	struct gen_heap_ent e = {.t = t, .flow = flow};
	uint32_t i = g->heap_n++, up;

	while (i > 0) {
		up = (i - 1) / 2;
		if (!heap_less(&e, &g->heap[up]))
			break;
		g->heap[i] = g->heap[up];
		i = up;
	}
	g->heap[i] = e;
}

static struct gen_heap_ent
heap_pop(struct gen *g)
{
	struct gen_heap_ent top = g->heap[0], last = g->heap[--g->heap_n];
	uint32_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= g->heap_n)
			break;
		if (c + 1 < g->heap_n && heap_less(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!heap_less(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (g->heap_n > 0)
		g->heap[i] = last;
	return top;
}

static void
run_reset(struct gen *g)
{
	uint32_t i;

	g->stats.frames = 0;
	g->stats.bytes = 0;
	g->stats.data = 0;
	g->stats.control = 0;
	g->stats.fragments = 0;
	g->stats.first_us = 0;
	g->stats.last_us = 0;
	g->last_ts = 0;
	g->heap_n = 0;
	for (i = 0; i < g->n; i++) {
		g->flows[i].frames = 0;
		g->flows[i].bytes = 0;
	}
}

/*
 * Flows start at random over a span of 50 us per data packet, and none lasts
 * much longer than that span (busy flows get shorter round trips, unless
 * --rtt fixed the range), so the capture runs at about 20k data packets/s
 * whatever the popularity.
 */
static int
run_timed(struct gen *g, gen_emit_fn fn, void *arg)
{
	uint64_t span = g->packets * 50 + 1;
	struct gen_heap_ent e;
	struct gen_state *st;
	uint8_t dir;
	uint32_t i;
	int ret;

	for (i = 0; i < g->n; i++) {
		flow_start(g, &g->flows[i], &g->st[i], span);
		heap_push(g, g->st[i].t, i);
	}
	while (g->heap_n > 0) {
		e = heap_pop(g);
		st = &g->st[e.flow];
		ret = send_pending(g, e.flow, fn, arg);
		if (ret != 0)
			return ret;
		dir = st->next.dir;
		if (!flow_next(g, &g->flows[e.flow], st))
			continue;
		/* a reply comes half an RTT later; the same side sends again after a pause */
		if (st->next.dir != dir)
			st->t += st->rtt / 2 + rng_below(&st->rng, st->rtt / 8 + 1);
		else
			st->t += rng_range(&st->rng, 1, st->rtt / 4 + 1);
		heap_push(g, st->t, e.flow);
	}
	return 0;
}

/* Rounds: every flow with packets left sends one, in flow order, 1 us apart. */
static int
run_bench(struct gen *g, gen_emit_fn fn, void *arg)
{
	uint32_t *active, n_active = g->n, keep, i, j;
	uint64_t t = 0;
	int ret = 0;

	active = malloc(sizeof(*active) * g->n);
	if (active == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		flow_start(g, &g->flows[i], &g->st[i], 1);
		active[i] = i;
	}
	while (n_active > 0) {
		for (i = 0, keep = 0; i < n_active; i++) {
			j = active[i];
			g->st[j].t = t++;
			ret = send_pending(g, j, fn, arg);
			if (ret != 0)
				goto out;
			if (flow_next(g, &g->flows[j], &g->st[j]))
				active[keep++] = j;
		}
		n_active = keep;
	}
out:
	free(active);
	return ret;
}

int
gen_run(struct gen *g, gen_emit_fn fn, void *arg)
{
	run_reset(g);
	return g->p.bench ? run_bench(g, fn, arg) : run_timed(g, fn, arg);
}
