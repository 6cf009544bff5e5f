/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_storm.c — the paced new-flow storm (gufc-bench
 * --storm-only): what a storm of new flows does to the hits of established
 * flows when the established traffic comes at a fixed rate below what the
 * RX lcore can take, as on a live port, rather than as fast as a file can
 * be replayed.
 *
 * Two lcores, as the app runs on two cores: the RX role (gufc_rx_poll(),
 * the app's own, with its pending table and completion counter) on the second
 * lcore, the rules and main roles (gufc_slow_poll(), gufc_consume()) on
 * the first. The RX lcore's port is a net_ring ethdev of the storm's own,
 * wired as the app wires a port that has TX queues to spare
 * (app/gufc_main.c, direct_tx_plan()): its TX channel ("tx-port<N>", the
 * port's default channel, its own pair) sends the slow path's packets on
 * queue 0 from the rules lcore (gufc_consume()), and the RX lcore sends
 * its hits itself on a queue of its own (queue 1, chan_producer_txq_set()).
 * With --storm-no-direct the port has one TX queue (net_pcap's layout):
 * everything goes through the channel's ring, which the RX lcore consumes
 * (gufc_consume_tx(), as gufc's RX lcores do on such ports) beside the
 * rules lcore.
 * A generator on the RX lcore itself (there is no third core) puts packets
 * on its RX ring before each poll, paced by the TSC: what is due and does
 * not fit the ring is lost as a NIC would lose it (counted: "missed"), not
 * sent later; and it empties the port's two TX rings (the wire), counting
 * the established flows' packets that left (delivered) and the new
 * flows'. The generator's work (mbuf allocation, the frame's copy, the
 * wire's free) is the RX lcore's, in every phase alike.
 *
 * Phases, each a fresh launch of the RX lcore over the same engine:
 *  1. setup: new one-packet UDP flows only, unpaced (the ring kept full):
 *     S = flows created per second end to end (RX lcore + rules lcore);
 *  2. capacity: the established flows only, unpaced: C = hits per second;
 *  3. before: the established flows paced at E = load x C: D0 = hits/s;
 *  4. storm: the same, plus new flows paced at N = 2 x S: D1 = hits/s.
 * storm_hit_fraction_paced = D1 / D0; storm_delivered_fraction_paced: the
 * same for the established packets that left the port (after the TX
 * channel's and queue's drops). Each phase is measured over its seconds
 * after a warm-up of a quarter second.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bench.h"

#define STORM_EST_FLOWS 1000
#define STORM_CAPACITY	4096 /* IPv4 entries: the established flows and the churn */
#define STORM_GEN_BURST 64
#define STORM_MBUFS	16383 /* the app's default pool (--set mbufs) */
#define STORM_RING	1024  /* the port's RX ring, its queues' descriptors */
/*
 * Each TX ring (the wire): room for every mbuf of the generator's pool, so
 * the port never refuses a packet for want of line rate (a NIC sends at
 * its line rate whether or not the RX lcore's thread has its core).
 */
#define STORM_WIRE	(STORM_MBUFS + 1)
#define STORM_TXQ	2     /* TX queues: 0 the channel's consumer, 1 the RX lcore's own */
#define STORM_DIRECT_Q	1

/*
 * A least-squares fit y = c0 + c1 x1 + ... + cK xK (K = STORM_FIT_VARS)
 * over the RX lcore's loops: the sums of the normal equations only,
 * written by the RX lcore, read once it has stopped.
 */
#define STORM_FIT_VARS 3

struct storm_fit {
	/* [i][j]: sum of xi xj; [i][STORM_FIT_VARS + 1]: sum of xi y (x0 = 1) */
	double s[STORM_FIT_VARS + 1][STORM_FIT_VARS + 2];
};

static inline void
storm_fit_add(struct storm_fit *f, const double *x, double y)
{
	double v[STORM_FIT_VARS + 1];

	v[0] = 1;
	memcpy(&v[1], x, STORM_FIT_VARS * sizeof(*x));
	for (unsigned int i = 0; i <= STORM_FIT_VARS; i++) {
		if (v[i] == 0)
			continue;
		for (unsigned int j = 0; j <= STORM_FIT_VARS; j++)
			f->s[i][j] += v[i] * v[j];
		f->s[i][STORM_FIT_VARS + 1] += v[i] * y;
	}
}

/*
 * The coefficients (c[0]: cycles per loop, c[k]: per unit of x_k), by
 * Gaussian elimination with partial pivoting over the variables that
 * occurred. Where the fixed part cannot be told from them (a kind made
 * the same number of times every loop: unpaced), the fit goes through
 * the origin (c[0] = 0). What cannot be solved stays 0.
 */
static void
storm_fit_solve(const struct storm_fit *f, double *c)
{
	for (unsigned int with0 = 1;; with0 = 0) {
		double a[STORM_FIT_VARS + 1][STORM_FIT_VARS + 2];
		unsigned int use[STORM_FIT_VARS + 1], n = 0;
		bool ok = true;

		memset(c, 0, (STORM_FIT_VARS + 1) * sizeof(*c));
		if (f->s[0][0] < 3)
			return;
		for (unsigned int i = with0 ? 0 : 1; i <= STORM_FIT_VARS; i++)
			if (f->s[i][i] > 0)
				use[n++] = i;
		for (unsigned int i = 0; i < n; i++) {
			for (unsigned int j = 0; j < n; j++)
				a[i][j] = f->s[use[i]][use[j]];
			a[i][n] = f->s[use[i]][STORM_FIT_VARS + 1];
		}
		for (unsigned int k = 0; k < n; k++) {
			unsigned int piv = k;

			for (unsigned int i = k + 1; i < n; i++)
				if (fabs(a[i][k]) > fabs(a[piv][k]))
					piv = i;
			/* Next to nothing left of the diagonal: collinear variables. */
			if (fabs(a[piv][k]) <= 1e-9 * f->s[use[k]][use[k]]) {
				ok = false;
				break;
			}
			for (unsigned int j = 0; j <= n; j++) {
				double t = a[k][j];

				a[k][j] = a[piv][j];
				a[piv][j] = t;
			}
			for (unsigned int i = 0; i < n; i++) {
				double r = a[i][k] / a[k][k];

				if (i == k)
					continue;
				for (unsigned int j = k; j <= n; j++)
					a[i][j] -= r * a[k][j];
			}
		}
		if (ok) {
			for (unsigned int i = 0; i < n; i++)
				c[use[i]] = a[i][n] / a[i][i];
			return;
		}
		if (!with0)
			return;
	}
}

/* The RX lcore's stage timers of one phase (after its warm-up). */
struct storm_stages {
	struct storm_fit gen;  /* cycles ~ established, new-flow packets made */
	struct storm_fit poll; /* cycles ~ hits, misses sent up, misses dropped (ring full) */
	struct storm_fit done; /* cycles ~ completions taken */
	struct storm_fit dp;   /* dp_rx_burst() cycles ~ the poll's kinds (loops with packets) */
	double poll_done, poll_rx, poll_qs; /* gufc_rx_poll()'s other parts, summed */
	double done_cycles, done_toks;
	double poll_cycles, poll_pkts;
	double loops;
	double preempted; /* loops left out: over STORM_LOOP_MAX_US (lost the core) */
};

/*
 * A loop longer than this lost its core to another thread (a burst of 64
 * new flows takes a few tens of microseconds): left out of the fits, which
 * one such loop would otherwise skew.
 */
#define STORM_LOOP_MAX_US 200

/* New flow number @p i's key: UDP from its own source to 198.51.100.0/24. */
static void
storm_new_key(struct fc_key *k, uint32_t i)
{
	memset(k, 0, sizeof(*k));
	k->family = FC_AF_INET4;
	k->v4.src = rte_cpu_to_be_32(0x0b000000u | (i & 0xffffffu));
	k->v4.dst = rte_cpu_to_be_32(0xc6336400u | ((i >> 24) & 0xff));
	k->v4.sport = rte_cpu_to_be_16((uint16_t)(1024 + (i % 60000)));
	k->v4.dport = rte_cpu_to_be_16(53);
	k->v4.proto = 17;
}

/*
 * The new flows' frames are one prebuilt frame (flow 0's) copied as an
 * established flow's is, with the fields that vary stored into the copy:
 * the source address, the destination's last byte, the source port and
 * the IPv4 header checksum, which is the template's with those words
 * changed (one's complement sum, RFC 1624). A NIC hands the RX lcore a
 * new flow's packet for the same price as any other; the generator should
 * too (building each frame from its key cost it 70-370 cycles more).
 */
#define STORM_IP  14 /* the IPv4 header's offset in the frame */
#define STORM_L4  34 /* the UDP header's */

struct storm_tmpl {
	uint8_t frame[BENCH_FRAME_MAX];
	uint32_t len;
	uint32_t sum; /* the header's one's complement sum without addresses, checksum */
};

static uint32_t
storm_sum16(const uint8_t *p, unsigned int n)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	return sum;
}

static int
storm_tmpl_init(struct storm_tmpl *t)
{
	struct fc_key k;
	uint8_t hdr[20];

	storm_new_key(&k, 0);
	t->len = bench_frame_write(t->frame, sizeof(t->frame), &k, 0);
	if (t->len == 0)
		return -EINVAL;
	memcpy(hdr, t->frame + STORM_IP, sizeof(hdr));
	memset(hdr + 10, 0, 10); /* checksum, source, destination */
	t->sum = storm_sum16(hdr, sizeof(hdr));
	return 0;
}

/* New flow number @p i's frame into @p buf, from the template. */
static inline uint32_t
storm_new_frame(const struct storm_tmpl *t, uint8_t *buf, uint32_t i)
{
	uint32_t src = 0x0b000000u | (i & 0xffffffu);
	uint32_t dst = 0xc6336400u | ((i >> 24) & 0xff);
	uint16_t sport = (uint16_t)(1024 + (i % 60000));
	uint32_t sum = t->sum + (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff);
	uint8_t *ip = buf + STORM_IP;

	memcpy(buf, t->frame, t->len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	ip[12] = (uint8_t)(src >> 24);
	ip[13] = (uint8_t)(src >> 16);
	ip[14] = (uint8_t)(src >> 8);
	ip[15] = (uint8_t)src;
	ip[19] = (uint8_t)dst;
	buf[STORM_L4] = (uint8_t)(sport >> 8);
	buf[STORM_L4 + 1] = (uint8_t)sport;
	return t->len;
}

/*
 * The template's frames are the frames built from the keys, byte for
 * byte: checked on flows that move every field it stores (startup, once).
 */
static int
storm_tmpl_check(const struct storm_tmpl *t)
{
	static const uint32_t probe[] = {0, 1, 255, 256, 59999, 60000, 65535, 0xffffffu,
		0x1000000u, 0x12345678u, 0xfffffffeu};
	uint8_t a[BENCH_FRAME_MAX], b[BENCH_FRAME_MAX];

	for (unsigned int j = 0; j < RTE_DIM(probe); j++) {
		struct fc_key k;
		uint32_t la, lb;

		storm_new_key(&k, probe[j]);
		la = bench_frame_write(a, sizeof(a), &k, 0);
		lb = storm_new_frame(t, b, probe[j]);
		if (la != lb || memcmp(a, b, la) != 0)
			return -EINVAL;
	}
	return 0;
}

/* The generator and the RX lcore's loop (written by the main lcore between launches). */
struct storm_run {
	struct gufc_app *app;
	struct gufc_lcore *lc;	  /* the RX lcore */
	struct rte_ring *ring;	  /* its port's RX ring */
	struct rte_ring *wire[STORM_TXQ]; /* the port's TX rings, emptied by the generator */
	struct rte_mempool *pool; /* the generator's mbufs, sized as the app's pool */
	uint8_t (*est)[BENCH_FRAME_MAX];
	uint32_t est_len[STORM_EST_FLOWS];
	uint32_t est_next;
	uint32_t new_next; /* new flows made so far (their keys' counter) */
	struct storm_tmpl tmpl; /* the new flows' prebuilt frame */
	/* packets per TSC cycle; < 0: as many as the ring takes; 0: none */
	double est_rate, new_rate;
	uint64_t t0;
	uint64_t est_due, new_due; /* generated or missed */
	uint64_t missed;	   /* due, but the ring was full */
	uint64_t nombuf;	   /* due, but the pool was empty */
	uint64_t delivered;	   /* established flows' packets that left the port */
	uint64_t delivered_new;	   /* new flows' packets that left the port */
	uint64_t busy;		   /* cycles of RX polls that did work */
	uint64_t cpu_ns;	   /* the RX thread's CPU time, updated as it runs */
	uint64_t warm;		   /* TSC from which the stage timers count */
	uint64_t loop_max;	   /* STORM_LOOP_MAX_US in TSC cycles */
	struct storm_stages stg;   /* read once the RX lcore has stopped */
	uint16_t port;		   /* the storm's port */
	bool direct;		   /* its queue 1 is the RX lcore's (direct TX); else one TX queue */
	uint32_t chan;		   /* its TX channel */
	bool port_started;
	volatile int stop;
};

/* Packets due by @p now at @p rate since t0 (the ring's room when unpaced). */
static uint64_t
storm_due(const struct storm_run *s, double rate, uint64_t now, uint64_t sent)
{
	if (rate < 0)
		return sent + rte_ring_free_count(s->ring);
	if (rate == 0)
		return sent;
	return (uint64_t)((double)(now - s->t0) * rate);
}

/*
 * The wire: empty the port's TX rings, counting what left by kind (a new
 * flow's destination is 198.51.100.0/24, an established one's
 * 172.16.0.0/12), and free it, as a NIC's TX completion frees it on the
 * thread that transmits.
 */
static void
storm_wire(struct storm_run *s)
{
	struct rte_mbuf *m[STORM_GEN_BURST];
	uint64_t est = 0, nw = 0;

	for (unsigned int q = 0; q < STORM_TXQ; q++) {
		unsigned int n;

		if (s->wire[q] == NULL)
			continue;
		while ((n = rte_ring_sc_dequeue_burst(s->wire[q], (void **)m, RTE_DIM(m), NULL)) != 0) {
			for (unsigned int i = 0; i < n; i++) {
				const uint8_t *d = rte_pktmbuf_mtod(m[i], const uint8_t *);
				bool is_new = rte_pktmbuf_data_len(m[i]) > STORM_IP + 16 &&
					      d[STORM_IP + 16] == 0xc6;

				nw += is_new;
				est += !is_new;
			}
			rte_pktmbuf_free_bulk(m, n);
		}
	}
	if (est != 0)
		__atomic_store_n(&s->delivered, s->delivered + est, __ATOMIC_RELAXED);
	if (nw != 0)
		__atomic_store_n(&s->delivered_new, s->delivered_new + nw, __ATOMIC_RELAXED);
}

/* Put what is due on the RX ring, the two kinds interleaved in proportion. */
static void
storm_gen(struct storm_run *s)
{
	struct rte_mbuf *m[STORM_GEN_BURST];
	uint64_t now = rte_rdtsc();
	uint64_t de = storm_due(s, s->est_rate, now, s->est_due);
	uint64_t dn = storm_due(s, s->new_rate, now, s->new_due);
	unsigned int k = 0, sent;
	bool kind[STORM_GEN_BURST];

	while (k < STORM_GEN_BURST && (s->est_due < de || s->new_due < dn)) {
		/* The one further behind its schedule goes first. */
		bool nw = s->new_due < dn &&
			  (s->est_due >= de || (double)s->new_due * (double)de <=
						       (double)s->est_due * (double)dn);

		kind[k++] = nw;
		if (nw)
			s->new_due++;
		else
			s->est_due++;
	}
	if (k == 0)
		return;
	if (rte_pktmbuf_alloc_bulk(s->pool, m, k) != 0) {
		s->nombuf += k;
		return;
	}
	for (unsigned int i = 0; i < k; i++) {
		uint8_t *d = rte_pktmbuf_mtod(m[i], uint8_t *);
		uint32_t len;

		if (kind[i]) {
			len = storm_new_frame(&s->tmpl, d, s->new_next++);
		} else {
			len = s->est_len[s->est_next];
			memcpy(d, s->est[s->est_next], len);
			s->est_next = (s->est_next + 1) % STORM_EST_FLOWS;
		}
		m[i]->data_len = (uint16_t)len;
		m[i]->pkt_len = len;
	}
	sent = rte_ring_sp_enqueue_burst(s->ring, (void **)m, k, NULL);
	if (sent < k) {
		s->missed += k - sent;
		rte_pktmbuf_free_bulk(&m[sent], k - sent);
	}
}

static uint32_t
storm_now_ms(const struct gufc_app *app)
{
	return (uint32_t)((rte_rdtsc() - app->start_tsc) * 1000 / app->hz);
}

/* CPU time of the calling thread, ns. */
static uint64_t
storm_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The RX lcore: generate, poll, until told to stop. Its CPU time tells
 * whether it had its core (on a shared machine it may not have: then the
 * pacing, and the figure, are the scheduler's).
 */
static int
storm_rx_main(void *arg)
{
	struct storm_run *s = arg;
	uint64_t cpu0 = storm_thread_ns(), base = s->cpu_ns;
	unsigned int loops = 0;

	const struct dp_stats *st = &s->lc->rx_dp.st;
	struct storm_stages *g = &s->stg;

	memset(g, 0, sizeof(*g));
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0, t1, t2, t3, e0 = s->est_due, n0 = s->new_due;
		uint64_t h0 = st->hits, u0 = st->upcalls, r0 = st->rx;
		uint64_t f0 = st->drops[DP_DROP_UPCALL_FULL];
		struct gufc_rx_times tm;
		unsigned int toks, got;
		uint32_t now;

		/* Stage timers: generator, completions, the poll (which polls
		 * the completions again, finding few). The coarse clock (a TSC
		 * read and a division) is in none of them. */
		now = storm_now_ms(s->app);
		t0 = rte_rdtsc();
		storm_wire(s);
		storm_gen(s);
		t1 = rte_rdtsc();
		toks = dp_done_poll(&s->lc->rx_dp, now);
		t2 = rte_rdtsc();
		got = gufc_rx_poll_timed(s->lc, now, &tm);
		t3 = rte_rdtsc();
		/* A port without direct TX: the RX lcore consumes its TX channel as
		 * gufc's does (app/gufc_main.c, lcore_work()); outside the stage
		 * timers, which fit the poll itself. */
		if (s->app->n_ring_tx != 0)
			gufc_consume_tx(s->app, s->lc);
		if (got != 0)
			__atomic_store_n(&s->busy, s->busy + t3 - t2, __ATOMIC_RELAXED);
		if (t0 >= s->warm && t3 - t0 > s->loop_max) {
			g->preempted += 1;
		} else if (t0 >= s->warm) {
			double xg[STORM_FIT_VARS] = {
				(double)(s->est_due - e0), (double)(s->new_due - n0), 0};
			double xp[STORM_FIT_VARS] = {(double)(st->hits - h0),
				(double)(st->upcalls - u0),
				(double)(st->drops[DP_DROP_UPCALL_FULL] - f0)};
			double xd[STORM_FIT_VARS] = {(double)toks, 0, 0};

			g->loops += 1;
			storm_fit_add(&g->gen, xg, (double)(t1 - t0));
			storm_fit_add(&g->done, xd, (double)(t2 - t1));
			g->done_cycles += (double)(t2 - t1);
			g->done_toks += toks;
			storm_fit_add(&g->poll, xp, (double)(t3 - t2));
			if (got != 0)
				storm_fit_add(&g->dp, xp, (double)tm.dp);
			g->poll_done += (double)tm.done;
			g->poll_rx += (double)tm.rx;
			g->poll_qs += (double)tm.quiescent;
			g->poll_cycles += (double)(t3 - t2);
			g->poll_pkts += (double)(st->rx - r0);
		}
		if ((++loops & 255) == 0)
			__atomic_store_n(
				&s->cpu_ns, base + storm_thread_ns() - cpu0, __ATOMIC_RELAXED);
	}
	return 0;
}

static uint64_t
storm_created(struct rule_engine *eng)
{
	struct rule_engine_stats st;

	rule_engine_stats_get(eng, &st);
	return st.flows;
}

/* Packets in the storm's TX channel's ring (the rules lcore's consumer takes them). */
static uint32_t
storm_in_chan(const struct storm_run *s)
{
	struct chan_stats cs;

	return chan_stats_get(s->app->chans, s->chan, &cs) == 0 ? cs.in_ring : 0;
}

/* A snapshot of the counters a phase reads (RX lcore's, by relaxed loads). */
struct storm_snap {
	uint64_t tsc, hits, created, missed, nombuf, busy, upcall_full, channel_full, tx_full;
	uint64_t delivered, delivered_new;
	uint64_t rx, misses, upcalls, up_rings;
	uint64_t rx_cpu_ns, rules_cpu_ns;
};

static void
storm_snap(const struct storm_run *s, struct storm_snap *n)
{
	const struct dp_stats *st = &s->lc->rx_dp.st;

	n->tsc = rte_rdtsc();
	n->hits = __atomic_load_n(&st->hits, __ATOMIC_RELAXED);
	n->upcall_full = __atomic_load_n(&st->drops[DP_DROP_UPCALL_FULL], __ATOMIC_RELAXED);
	n->rx = __atomic_load_n(&st->rx, __ATOMIC_RELAXED);
	n->misses = __atomic_load_n(&st->misses, __ATOMIC_RELAXED);
	n->upcalls = __atomic_load_n(&st->upcalls, __ATOMIC_RELAXED);
	n->up_rings = __atomic_load_n(&st->up_rings, __ATOMIC_RELAXED);
	n->missed = __atomic_load_n(&s->missed, __ATOMIC_RELAXED);
	n->nombuf = __atomic_load_n(&s->nombuf, __ATOMIC_RELAXED);
	n->rx_cpu_ns = __atomic_load_n(&s->cpu_ns, __ATOMIC_RELAXED);
	n->rules_cpu_ns = storm_thread_ns();
	n->busy = __atomic_load_n(&s->busy, __ATOMIC_RELAXED);
	n->created = storm_created(s->app->eng);
	n->delivered = __atomic_load_n(&s->delivered, __ATOMIC_RELAXED);
	n->delivered_new = __atomic_load_n(&s->delivered_new, __ATOMIC_RELAXED);
	{
		struct chan_stats cs;

		if (chan_stats_get(s->app->chans, s->chan, &cs) == 0) {
			n->channel_full = cs.drop_full;
			n->tx_full = cs.tx_full;
		}
	}
}

/*
 * One phase: the RX lcore on @p worker with the generator at the given
 * rates (packets per second; < 0 unpaced), the rules lcore here, for a
 * warm-up and @p secs measured seconds.
 */
static int
storm_phase(struct storm_run *s, struct gufc_lcore *rules_lc, unsigned int worker, double est_pps,
	double new_pps, double secs, struct bench_storm_phase *out)
{
	struct gufc_app *app = s->app;
	double hz = (double)app->hz;
	struct storm_snap a, b;
	uint64_t warm, end;
	int rc;

	s->est_rate = est_pps < 0 ? -1 : est_pps / hz;
	s->new_rate = new_pps < 0 ? -1 : new_pps / hz;
	s->est_due = s->new_due = 0;
	s->t0 = rte_rdtsc();
	s->warm = s->t0 + (uint64_t)(hz / 4);
	s->loop_max = (uint64_t)(hz * STORM_LOOP_MAX_US / 1e6);
	s->stop = 0;
	rc = rte_eal_remote_launch(storm_rx_main, s, worker);
	if (rc != 0)
		return rc;
	warm = s->warm;
	end = warm + (uint64_t)(hz * secs);
	memset(&a, 0, sizeof(a));
	while (rte_rdtsc() < end) {
		uint32_t now = storm_now_ms(app);

		gufc_slow_poll(app, rules_lc, now);
		gufc_consume(app, rules_lc);
		if (a.tsc == 0 && rte_rdtsc() >= warm)
			storm_snap(s, &a);
	}
	storm_snap(s, &b);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	/* Whatever is in flight (the ring, upcalls, their completions, packets
	 * waiting for them) is finished before the next phase. */
	do {
		gufc_rx_poll(s->lc, storm_now_ms(app));
		gufc_slow_poll(app, rules_lc, storm_now_ms(app));
		gufc_consume(app, rules_lc);
		storm_wire(s);
	} while (rte_ring_count(s->lc->upcall) != 0 || rte_ring_count(s->ring) != 0 ||
		 rte_ring_count(s->wire[0]) != 0 || rte_ring_count(s->wire[1]) != 0 ||
		 storm_in_chan(s) != 0 ||
		 dp_upcall_stashed(&s->lc->rx_dp) != 0 || dp_rx_kept(&s->lc->rx_dp) != 0 ||
		 s->lc->pend->n != 0 ||
		 dp_held(&s->lc->rx_dp) != 0);
	{
		double t = (double)(b.tsc - a.tsc) / hz;

		out->hits = (double)(b.hits - a.hits) / t;
		out->created = (double)(b.created - a.created) / t;
		out->missed = (double)(b.missed - a.missed) / t;
		out->nombuf = (double)(b.nombuf - a.nombuf) / t;
		out->rx_cpu = (double)(b.rx_cpu_ns - a.rx_cpu_ns) / 1e9 / t;
		out->rules_cpu = (double)(b.rules_cpu_ns - a.rules_cpu_ns) / 1e9 / t;
		out->busy_frac = (double)(b.busy - a.busy) / (double)(b.tsc - a.tsc);
		out->upcall_full = (double)(b.upcall_full - a.upcall_full) / t;
		out->channel_full = (double)(b.channel_full - a.channel_full) / t;
		out->tx_full = (double)(b.tx_full - a.tx_full) / t;
		out->delivered = (double)(b.delivered - a.delivered) / t;
		out->delivered_new = (double)(b.delivered_new - a.delivered_new) / t;
		out->rx = (double)(b.rx - a.rx) / t;
		out->misses = (double)(b.misses - a.misses) / t;
		out->upcalls = (double)(b.upcalls - a.upcalls) / t;
		out->up_rings = (double)(b.up_rings - a.up_rings) / t;
	}
	{
		const struct storm_stages *g = &s->stg;
		double c[STORM_FIT_VARS + 1];

		storm_fit_solve(&g->gen, c);
		out->gen_per_est = c[1];
		out->gen_per_new = c[2];
		storm_fit_solve(&g->poll, c);
		out->poll_fixed = c[0];
		out->poll_per_hit = c[1];
		out->poll_per_up = c[2];
		out->poll_per_full = c[3];
		storm_fit_solve(&g->done, c);
		out->done_fixed = c[0];
		out->done_per_tok = c[1];
		out->done_mean_per_tok = g->done_toks > 0 ? g->done_cycles / g->done_toks : 0;
		out->poll_per_pkt = g->poll_pkts > 0 ? g->poll_cycles / g->poll_pkts : 0;
		storm_fit_solve(&g->dp, c);
		out->dp_fixed = c[0];
		out->dp_per_hit = c[1];
		out->dp_per_up = c[2];
		out->dp_per_full = c[3];
		if (g->loops > 0) {
			out->poll_done_mean = g->poll_done / g->loops;
			out->poll_rx_mean = g->poll_rx / g->loops;
			out->poll_qs_mean = g->poll_qs / g->loops;
			out->pkts_per_loop = g->poll_pkts / g->loops;
		}
		out->loops = g->loops / ((double)(b.tsc - a.tsc) / hz);
		out->preempted = g->preempted / ((double)(b.tsc - a.tsc) / hz);
	}
	return 0;
}

/*
 * The storm's port, wired as the app wires a port with TX queues to spare
 * (app/gufc_chan.c, gufc_chan_init(); app/gufc_main.c, direct_tx_plan()
 * and direct_tx_assign()): a net_ring ethdev with one RX ring and two TX
 * rings, its own pair; a TX channel on queue 0 that is the port's channel
 * and its default one; the RX lcore (producer 0) sends on queue 1 itself.
 */
static int
storm_port_init(struct storm_run *s)
{
	struct gufc_app *app = s->app;
	int socket = (int)rte_socket_id();
	struct rte_eth_conf conf;
	struct chan_params cp;
	char name[CHAN_NAMESIZE];
	int rc;

	uint16_t ntxq = s->direct ? STORM_TXQ : 1;

	s->ring = rte_ring_create("storm_rx", STORM_RING, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	s->wire[0] = rte_ring_create("storm_w0", STORM_WIRE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	s->wire[1] = rte_ring_create("storm_w1", STORM_WIRE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (s->ring == NULL || s->wire[0] == NULL || s->wire[1] == NULL)
		return -ENOMEM;
	rc = rte_eth_from_rings("storm_port", &s->ring, 1, s->wire, ntxq, socket);
	if (rc < 0)
		return -rte_errno;
	if (rc >= GUFC_MAX_PORTS || rc >= CHAN_MAX_TX_PORTS)
		return -ERANGE;
	s->port = (uint16_t)rc;
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(s->port, 1, ntxq, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(s->port, 0, STORM_RING, socket, NULL, app->pool);
	for (uint16_t q = 0; rc == 0 && q < ntxq; q++)
		rc = rte_eth_tx_queue_setup(s->port, q, STORM_RING, socket, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(s->port);
	if (rc != 0)
		return rc;
	s->port_started = true;
	app->ports[s->port].used = true;
	app->ports[s->port].pair = s->port;
	app->ports[s->port].n_txq = ntxq;
	app->ports[s->port].direct_base = s->direct ? STORM_DIRECT_Q : 0;

	snprintf(name, sizeof(name), "tx-port%u", s->port);
	memset(&cp, 0, sizeof(cp));
	cp.name = name;
	cp.kind = CHAN_CONS_TX;
	cp.ring_size = app->cfg.set.channel_size;
	cp.tx_port = s->port;
	cp.tx_queue = 0;
	rc = chan_create(app->chans, &cp);
	if (rc < 0)
		return rc;
	s->chan = (uint32_t)rc;
	app->port_chan[s->port] = (uint16_t)rc;
	app->def_chan[s->port] = (uint16_t)rc;
	if (s->direct)
		return chan_producer_txq_set(app->chans, 0, s->port, STORM_DIRECT_Q);
	/* No direct TX: the RX lcore consumes the channel too (app/gufc_chan.c). */
	app->ring_tx[0] = (uint16_t)rc;
	app->n_ring_tx = 1;
	return 0;
}

/*
 * Undo storm_port_init() (what of it was done). The port is stopped, not
 * closed, and its rings are left to the EAL's exit, as the bench's own
 * port's are (bench_env_fini()); what is in them is freed.
 */
static void
storm_port_fini(struct storm_run *s)
{
	struct gufc_app *app = s->app;
	struct rte_mbuf *m;

	if (s->chan != 0) {
		chan_producer_txq_set(app->chans, 0, s->port, -1);
		app->n_ring_tx = 0;
		app->port_chan[s->port] = DP_CHAN_NONE;
		app->def_chan[s->port] = CHAN_ID_DEFAULT;
		chan_flush(app->chans, s->chan);
		chan_delete(app->chans, s->chan);
		s->chan = 0;
	}
	if (s->port_started) {
		rte_eth_dev_stop(s->port);
		memset(&app->ports[s->port], 0, sizeof(app->ports[s->port]));
		s->port_started = false;
	}
	if (s->wire[0] != NULL && s->wire[1] != NULL)
		storm_wire(s);
	while (s->ring != NULL && rte_ring_sc_dequeue(s->ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* The RX lcore of the storm: the storm's port, the bench lcore's upcall ring, its own pending table. */
static struct gufc_lcore *
storm_rx_lcore(struct bench_env *env, unsigned int worker, uint16_t port)
{
	struct gufc_app *app = env->app;
	uint32_t inflight = 4096 * 2 + 5 * GUFC_BURST_MAX;
	uint32_t wait_cap = 2048;
	struct gufc_lcore *lc = rte_zmalloc("storm_rx", sizeof(*lc), RTE_CACHE_LINE_SIZE);
	void *mem = rte_zmalloc(
		"storm_pending", dp_pending_memsize(inflight, wait_cap), RTE_CACHE_LINE_SIZE);

	if (lc == NULL || mem == NULL)
		goto fail;
	lc->app = app;
	lc->lcore_id = worker;
	lc->roles = GUFC_ROLE_RX;
	lc->rx_index = 0;
	lc->n_rxq = 1;
	lc->rxq[0].port = port;
	lc->rxq[0].queue = 0;
	lc->upcall = env->lc->upcall;
	lc->done = rte_zmalloc("storm_done", sizeof(*lc->done), RTE_CACHE_LINE_SIZE);
	if (lc->done == NULL)
		goto fail;
	lc->pend = dp_pending_init(mem, inflight, wait_cap);
	return lc;
fail:
	rte_free(mem);
	rte_free(lc);
	return NULL;
}

static void
storm_rx_lcore_free(struct gufc_lcore *lc)
{
	if (lc == NULL)
		return;
	rte_free(lc->done);
	rte_free(lc->pend);
	rte_free(lc);
}

int
bench_storm(struct bench_env *env, struct bench_results *res, double secs, double load,
	int up_batch, bool direct)
{
	struct gufc_app *app = env->app;
	struct gufc_lcore *main_lc = env->lc;
	struct storm_run *s = NULL;
	struct gufc_lcore *rx = NULL;
	struct bench_rng rng;
	unsigned int worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	struct bench_storm *o = &res->storm;
	int rc;

	if (worker >= RTE_MAX_LCORE) {
		bench_note(res, "storm", "needs two lcores (--lcores A,B): not measured");
		return 0;
	}
	double build_s;

	rc = bench_engine_start(env, STORM_CAPACITY, 1024);
	if (rc == 0)
		rc = bench_engine_rules(env, rule_set_create(), &build_s);
	if (rc != 0)
		return rc;
	s = rte_zmalloc("storm_run", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	s->app = app;
	s->direct = direct;
	o->direct = direct;
	rc = storm_port_init(s);
	if (rc != 0) {
		bench_note(res, "storm", "its port and TX channel: %s", strerror(-rc));
		goto out;
	}
	rx = storm_rx_lcore(env, worker, s->port);
	if (rx == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	s->est = rte_zmalloc("storm_est", (size_t)STORM_EST_FLOWS * BENCH_FRAME_MAX, 64);
	if (s->est == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if (storm_tmpl_init(&s->tmpl) != 0 || storm_tmpl_check(&s->tmpl) != 0) {
		bench_note(res, "storm", "the new flows' prebuilt frame differs from a built one");
		rc = -EINVAL;
		goto out;
	}
	bench_rng_seed(&rng, res->plan.seed + 12);
	for (unsigned int i = 0; i < STORM_EST_FLOWS; i++) {
		struct fc_key k;

		bench_key_random(&rng, FC_AF_INET4, &k);
		k.v4.proto = 17;
		s->est_len[i] = bench_frame_write(s->est[i], BENCH_FRAME_MAX, &k, 0);
	}
	s->pool = rte_pktmbuf_pool_create("storm_mbufs", STORM_MBUFS, 256,
		(uint16_t)DP_MBUF_PRIV_SIZE, RTE_PKTMBUF_HEADROOM + 256, (int)rte_socket_id());
	if (s->pool == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	s->lc = rx;
	/* The roles split: RX there, rules and main here. */
	main_lc->roles = GUFC_ROLE_RULES | GUFC_ROLE_MAIN;
	app->lc[worker] = rx;
	app->rx[0] = rx;
	app->n_lcores = 2;
	gufc_dp_init(app);
	if (up_batch >= 0)
		rx->rx_dp.up_batch = (uint8_t)up_batch;
	o->up_batch = rx->rx_dp.up_batch;

	o->secs = secs;
	o->load = load;
	rc = storm_phase(s, main_lc, worker, 0, -1, secs, &o->setup);
	if (rc == 0)
		rc = storm_phase(s, main_lc, worker, -1, 0, secs, &o->capacity);
	o->est_pps = load * o->capacity.hits;
	o->new_pps = 2 * o->setup.created;
	if (rc == 0)
		rc = storm_phase(s, main_lc, worker, o->est_pps, 0, secs, &o->before);
	if (rc == 0)
		rc = storm_phase(s, main_lc, worker, o->est_pps, o->new_pps, secs, &o->during);
	if (rc == 0) {
		o->fraction = o->before.hits > 0 ? o->during.hits / o->before.hits : 0;
		o->delivered_fraction =
			o->before.delivered > 0 ? o->during.delivered / o->before.delivered : 0;
		/* What the figure assumes: the RX lcore had its core in the paced
		 * phases, and took the established flows alone without a loss. */
		o->valid = o->before.rx_cpu >= 0.9 && o->during.rx_cpu >= 0.9 &&
			   o->before.missed + o->before.nombuf < 0.01 * o->est_pps;
		o->measured = true;
	}
out:
	/* Back to one lcore with every role. */
	app->lc[worker] = NULL;
	app->rx[0] = main_lc;
	app->n_lcores = 1;
	main_lc->roles = GUFC_ROLE_RX | GUFC_ROLE_RULES | GUFC_ROLE_MAIN;
	bench_engine_stop(env);
	storm_rx_lcore_free(rx);
	if (s != NULL) {
		storm_port_fini(s);
		rte_free(s->est);
		rte_mempool_free(s->pool);
	}
	rte_free(s);
	return rc;
}

void
bench_storm_print(const struct bench_results *res, FILE *f)
{
	const struct bench_storm *o = &res->storm;
	const struct bench_storm_phase *ph[] = {&o->setup, &o->capacity, &o->before, &o->during};
	static const char *const name[] = {"setup: new flows, unpaced",
		"capacity: established, unpaced", "before: established, paced",
		"during: established + new flows, paced"};

	if (!o->measured)
		return;
	fprintf(f,
		"storm (paced; RX lcore and rules lcore on two lcores; %.1f s a phase), "
		"per second:\n",
		o->secs);
	for (unsigned int i = 0; i < RTE_DIM(ph); i++)
		fprintf(f,
			"  %-40s hits %9.0f  delivered %9.0f (+%7.0f new)  created %8.0f  missed %8.0f  "
			"nombuf %7.0f  upcall_full %8.0f  channel_full %8.0f  tx_full %7.0f  "
			"RX busy %.2f  CPU: RX %.2f, rules %.2f\n",
			name[i], ph[i]->hits, ph[i]->delivered, ph[i]->delivered_new, ph[i]->created,
			ph[i]->missed, ph[i]->nombuf, ph[i]->upcall_full, ph[i]->channel_full,
			ph[i]->tx_full, ph[i]->busy_frac, ph[i]->rx_cpu, ph[i]->rules_cpu);
	fprintf(f, "  the RX lcore's packets, per second:\n");
	for (unsigned int i = 0; i < RTE_DIM(ph); i++)
		fprintf(f,
			"  %-40s rx %9.0f  hits %9.0f  misses %8.0f  upcalls %8.0f  upcall_full %8.0f  "
			"upcall ring enqueues %8.0f (%.2f upcalls each)\n",
			name[i], ph[i]->rx, ph[i]->hits, ph[i]->misses, ph[i]->upcalls,
			ph[i]->upcall_full, ph[i]->up_rings,
			ph[i]->up_rings > 0 ? ph[i]->upcalls / ph[i]->up_rings : 0);
	fprintf(f, "  RX lcore's cycles by stage (least squares over its loops):\n");
	for (unsigned int i = 0; i < RTE_DIM(ph); i++)
		fprintf(f,
			"  %-40s generator %5.0f/est %5.0f/new  completions %4.0f/loop + "
			"%5.0f/done (mean %5.0f/done)  "
			"poll %5.0f/loop + %4.0f/hit + %5.0f/upcall + %4.0f/upcall_full "
			"(mean %4.0f/packet)  "
			"loops %9.0f/s (left out: %.0f/s)\n",
			name[i], ph[i]->gen_per_est, ph[i]->gen_per_new, ph[i]->done_fixed,
			ph[i]->done_per_tok, ph[i]->done_mean_per_tok, ph[i]->poll_fixed, ph[i]->poll_per_hit, ph[i]->poll_per_up,
			ph[i]->poll_per_full, ph[i]->poll_per_pkt, ph[i]->loops, ph[i]->preempted);
	fprintf(f, "  the poll by part (gufc_rx_poll_timed()), cycles:\n");
	for (unsigned int i = 0; i < RTE_DIM(ph); i++)
		fprintf(f,
			"  %-40s per loop: done %4.0f  rx_burst %4.0f  quiescent %4.0f  "
			"dp_rx_burst %5.0f/loop + %4.0f/hit + %5.0f/upcall + %4.0f/upcall_full  "
			"packets %.1f/loop\n",
			name[i], ph[i]->poll_done_mean, ph[i]->poll_rx_mean, ph[i]->poll_qs_mean,
			ph[i]->dp_fixed, ph[i]->dp_per_hit, ph[i]->dp_per_up, ph[i]->dp_per_full,
			ph[i]->pkts_per_loop);
	fprintf(f,
		"  established paced at %.0f pps (%.2f of capacity), new flows at %.0f/s "
		"(2 x setup); upcalls kept for one ring enqueue: up to %u\n",
		o->est_pps, o->load, o->new_pps, o->up_batch);
	fprintf(f, "  delivered: the established flows' packets that left the port (%s)\n",
		o->direct ? "the RX lcore sends its hits on a TX queue of its own; the slow "
			    "path's leave on queue 0 from the rules lcore"
			  : "one TX queue, no direct TX: the RX lcore and the rules lcore "
			    "both consume the TX channel");
	fprintf(f, "  storm_delivered_fraction_paced %.3f (target >= 0.9)\n", o->delivered_fraction);
	fprintf(f, "  storm_hit_fraction_paced %.3f (target >= 0.9)%s\n", o->fraction,
		o->valid ? ""
			 : "  NOT VALID: the RX lcore did not have its core, or did not "
			   "take the established flows alone at the paced rate (see CPU, missed)");
}

int
bench_storm_json(const struct bench_results *res, const char *path)
{
	const struct bench_storm *o = &res->storm;
	const struct bench_storm_phase *ph[] = {&o->setup, &o->capacity, &o->before, &o->during};
	static const char *const name[] = {"setup", "capacity", "before", "during"};
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f,
		"{\"storm_hit_fraction_paced\": %.4f, \"storm_delivered_fraction_paced\": %.4f, "
		"\"valid\": %s, \"secs\": %.2f, "
		"\"load\": %.2f, \"est_pps\": %.0f, \"new_pps\": %.0f, \"up_batch\": %u, "
		"\"direct_tx\": %s",
		o->fraction, o->delivered_fraction, o->valid ? "true" : "false", o->secs, o->load,
		o->est_pps, o->new_pps, o->up_batch, o->direct ? "true" : "false");
	for (unsigned int i = 0; i < RTE_DIM(ph); i++)
		fprintf(f,
			", \"%s\": {\"hits\": %.0f, \"created\": %.0f, \"missed\": %.0f, "
			"\"nombuf\": %.0f, \"upcall_full\": %.0f, \"channel_full\": %.0f, "
			"\"tx_full\": %.0f, \"delivered\": %.0f, \"delivered_new\": %.0f, "
			"\"rx\": %.0f, \"misses\": %.0f, \"upcalls\": %.0f, \"upcall_ring_enqueues\": %.0f, "
			"\"rx_busy\": %.3f, \"rx_cpu\": %.3f, \"rules_cpu\": %.3f, "
			"\"cycles\": {\"gen_per_est\": %.1f, \"gen_per_new\": %.1f, "
			"\"done_fixed\": %.1f, \"done_per_token\": %.1f, "
			"\"done_mean_per_token\": %.1f, \"poll_fixed\": %.1f, \"poll_per_hit\": %.1f, "
			"\"poll_per_upcall\": %.1f, \"poll_per_upcall_full\": %.1f, "
			"\"poll_per_pkt\": %.1f, \"loops_per_s\": %.0f, \"preempted_per_s\": "
			"%.0f, \"poll_done_per_loop\": %.1f, \"poll_rx_per_loop\": %.1f, "
			"\"poll_quiescent_per_loop\": %.1f, \"dp_fixed\": %.1f, \"dp_per_hit\": %.1f, "
			"\"dp_per_upcall\": %.1f, \"dp_per_upcall_full\": %.1f, "
			"\"pkts_per_loop\": %.2f}}",
			name[i], ph[i]->hits, ph[i]->created, ph[i]->missed, ph[i]->nombuf,
			ph[i]->upcall_full, ph[i]->channel_full, ph[i]->tx_full, ph[i]->delivered,
			ph[i]->delivered_new, ph[i]->rx, ph[i]->misses,
			ph[i]->upcalls, ph[i]->up_rings, ph[i]->busy_frac, ph[i]->rx_cpu,
			ph[i]->rules_cpu, ph[i]->gen_per_est, ph[i]->gen_per_new,
			ph[i]->done_fixed, ph[i]->done_per_tok, ph[i]->done_mean_per_tok,
			ph[i]->poll_fixed, ph[i]->poll_per_hit,
			ph[i]->poll_per_up, ph[i]->poll_per_full, ph[i]->poll_per_pkt, ph[i]->loops,
			ph[i]->preempted, ph[i]->poll_done_mean, ph[i]->poll_rx_mean,
			ph[i]->poll_qs_mean, ph[i]->dp_fixed, ph[i]->dp_per_hit, ph[i]->dp_per_up,
			ph[i]->dp_per_full, ph[i]->pkts_per_loop);
	fprintf(f, "}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
