/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath/dp_pending.c — per-connection order across the slow path:
 * the connection hash, the RX context's table of upcalls in flight per
 * connection (struct dp_pending), its FIFO of counted upcalls and the
 * reading of the slow path's completion counter (dp_done_poll()). See
 * datapath.h and dp_pending.h.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "datapath.h"
#include "dp_priv.h"

/*
 * Ready-queue entries: a connection is queued when its last upcall is back
 * and packets wait (at most one per waiting packet), and at most once more
 * while its packets run (an upcall of the run dropped as upcall_full).
 */
#define DP_READY_CAP(wait_cap) (2 * (size_t)(wait_cap) + 2)

static inline uint64_t
dp_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/*
 * The connection hash: the two (address, port) ends as two words, sorted
 * (either direction gives the same pair), each folded in by a 64-bit
 * finalizer (a bijection: two pairs collide only by chance). An IPv4 end
 * is one word as it is (address and port: 48 bits), so IPv4 costs two
 * rounds; an IPv6 end is folded from its address words and port first.
 */
static inline uint64_t
dp_end6(const uint8_t *addr, uint16_t port)
{
	uint64_t w[2];

	memcpy(w, addr, 16);
	return dp_mix64(w[0] ^ dp_mix64(w[1] ^ port));
}

uint64_t
dp_conn_hash(const struct fc_key *k)
{
	uint64_t a, b, lo, hi, tag;

	if (k->family == FC_AF_INET4) {
		a = (uint64_t)k->v4.src << 16 | k->v4.sport;
		b = (uint64_t)k->v4.dst << 16 |
		    dp_conn_dport(k->v4.proto, k->v4.sport, k->v4.dport);
		tag = (uint64_t)k->v4.proto << 48;
	} else {
		a = dp_end6(k->v6.src, k->v6.sport);
		b = dp_end6(k->v6.dst, dp_conn_dport(k->v6.proto, k->v6.sport, k->v6.dport));
		tag = (uint64_t)k->v6.proto;
	}
	tag |= (uint64_t)k->family << 56;
	lo = a < b ? a : b;
	hi = a < b ? b : a;
	return dp_mix64(lo ^ dp_mix64(hi ^ tag)) | 1;
}

/* FIFO entries: the upcalls in flight and a burst more, a power of 2. */
#define DP_FIFO_CAP(max_inflight) rte_align64pow2((uint64_t)(max_inflight) + DP_BURST_MAX)

/*
 * Where the parts of a struct dp_pending go: slots, wm, ready, wnext,
 * wport, hint_bits, hint_count, fifo, end. The filter has a bucket per
 * slot, so that a bit is set for at most half of them (the table is half
 * full at most) and, with few connections pending, for a small share.
 */
static uint64_t
dp_pending_layout(uint32_t max_inflight, uint32_t wait_cap, size_t off[9])
{
	uint64_t slots = rte_align64pow2((uint64_t)max_inflight * 2 + (uint64_t)wait_cap * 2 + 16);

	off[0] = RTE_ALIGN(sizeof(struct dp_pending), 64);
	off[1] = off[0] + (size_t)slots * sizeof(struct dp_pending_slot);
	off[2] = off[1] + (size_t)wait_cap * sizeof(struct rte_mbuf *);
	off[3] = off[2] + DP_READY_CAP(wait_cap) * sizeof(uint64_t);
	off[4] = off[3] + (size_t)wait_cap * sizeof(uint32_t);
	off[5] = RTE_ALIGN(off[4] + (size_t)wait_cap * sizeof(uint16_t), 64);
	off[6] = off[5] + RTE_ALIGN_CEIL((size_t)slots / 8, 64); /* whole words, aligned counts */
	off[7] = RTE_ALIGN(off[6] + (size_t)slots * sizeof(uint32_t), 64);
	off[8] = off[7] + (size_t)DP_FIFO_CAP(max_inflight) * sizeof(uint64_t);
	return slots;
}

size_t
dp_pending_memsize(uint32_t max_inflight, uint32_t wait_cap)
{
	size_t off[9];

	dp_pending_layout(max_inflight, wait_cap, off);
	return off[8];
}

struct dp_pending *
dp_pending_init(void *mem, uint32_t max_inflight, uint32_t wait_cap)
{
	struct dp_pending *p = mem;
	uint8_t *base = mem;
	size_t off[9];
	uint64_t slots = dp_pending_layout(max_inflight, wait_cap, off);

	memset(p, 0, off[8]);
	p->mask = (uint32_t)(slots - 1);
	p->fifo = (uint64_t *)(base + off[7]);
	p->fifo_mask = (uint32_t)(DP_FIFO_CAP(max_inflight) - 1);
	p->slot = (struct dp_pending_slot *)(base + off[0]);
	p->wm = (struct rte_mbuf **)(base + off[1]);
	p->ready = (uint64_t *)(base + off[2]);
	p->wnext = (uint32_t *)(base + off[3]);
	p->wport = (uint16_t *)(base + off[4]);
	p->hint_bits = (uint64_t *)(base + off[5]);
	p->hint_count = (uint32_t *)(base + off[6]);
	p->hint_shift = 64 - (uint32_t)rte_log2_u64(slots);
	p->wait_cap = wait_cap;
	p->wait_free = wait_cap;
	p->wait_reserve = wait_cap / DP_WAIT_RESERVE_DIV;
	p->ready_cap = (uint32_t)DP_READY_CAP(wait_cap);
	for (uint32_t i = 0; i < wait_cap; i++)
		p->wnext[i] = i + 1 < wait_cap ? i + 1 : DP_WAIT_NONE;
	p->free_head = wait_cap ? 0 : DP_WAIT_NONE;
	return p;
}

struct dp_pending_slot *
dp_pending_find(struct dp_pending *p, uint64_t conn)
{
	for (uint32_t i = (uint32_t)conn & p->mask;; i = (i + 1) & p->mask) {
		if (p->slot[i].conn == conn)
			return &p->slot[i];
		if (p->slot[i].conn == 0)
			return NULL;
	}
}

/*
 * The slot of @p conn, created when missing (in filter bucket @p hint).
 * NULL: the table is half full.
 */
static struct dp_pending_slot *
dp_pending_get(struct dp_pending *p, uint64_t conn, uint32_t hint)
{
	uint32_t i = (uint32_t)conn & p->mask;

	for (;; i = (i + 1) & p->mask) {
		struct dp_pending_slot *s = &p->slot[i];

		if (s->conn == conn)
			return s;
		if (s->conn == 0) {
			/* Half full at most, so probes stay short. */
			if (p->n >= (p->mask + 1) / 2)
				return NULL;
			s->conn = conn;
			s->count = 0;
			s->nwait = 0;
			s->head = s->tail = DP_WAIT_NONE;
			s->hint = hint;
			if (p->hint_count[hint]++ == 0)
				p->hint_bits[hint >> 6] |= UINT64_C(1) << (hint & 63);
			p->n++;
			return s;
		}
	}
}

bool
dp_pending_add(struct dp_pending *p, uint64_t conn, const struct fc_key *k)
{
	struct dp_pending_slot *s;

	if (unlikely(p->fifo_tail - p->fifo_head > p->fifo_mask)) {
		p->full++; /* more in flight than the FIFO was sized for */
		return false;
	}
	s = dp_pending_get(p, conn, dp_pending_hint(p, k));
	if (s == NULL) {
		p->full++;
		return false;
	}
	s->count++;
	p->fifo[p->fifo_tail++ & p->fifo_mask] = conn;
	return true;
}

void
dp_pending_unadd(struct dp_pending *p, uint64_t conn)
{
	RTE_ASSERT(p->fifo_tail != p->fifo_head &&
		   p->fifo[(p->fifo_tail - 1) & p->fifo_mask] == conn);
	p->fifo_tail--;
	dp_pending_sub(p, conn);
}

/* Free slot @p s (nothing in flight, nothing waiting): backward shift. */
static void
dp_pending_del(struct dp_pending *p, struct dp_pending_slot *s)
{
	uint32_t i = (uint32_t)(s - p->slot), j;
	uint32_t hint = s->hint;

	if (--p->hint_count[hint] == 0)
		p->hint_bits[hint >> 6] &= ~(UINT64_C(1) << (hint & 63));
	p->n--;
	/* Move later entries of the probe run back over the hole. */
	for (j = (i + 1) & p->mask; p->slot[j].conn != 0; j = (j + 1) & p->mask) {
		uint32_t home = (uint32_t)p->slot[j].conn & p->mask;

		/* Entry j may fill hole i if its home is not in (i, j]. */
		if (((j - home) & p->mask) >= ((j - i) & p->mask)) {
			p->slot[i] = p->slot[j];
			i = j;
		}
	}
	p->slot[i].conn = 0;
}

void
dp_pending_sub(struct dp_pending *p, uint64_t conn)
{
	struct dp_pending_slot *s = dp_pending_find(p, conn);

	if (s == NULL || s->count == 0)
		return; /* not counted (cannot happen) */
	if (--s->count != 0)
		return;
	if (s->nwait == 0) {
		dp_pending_del(p, s);
		return;
	}
	/* Its waiting packets may go: queue the connection. */
	p->ready[(p->ready_head + p->ready_n) % p->ready_cap] = conn;
	p->ready_n++;
}

bool
dp_pending_wait(struct dp_pending *p, struct dp_pending_slot *s, struct rte_mbuf *m,
	uint16_t port)
{
	uint32_t e = p->free_head;

	if (e == DP_WAIT_NONE)
		return false;
	p->free_head = p->wnext[e];
	p->wait_free--;
	p->wm[e] = m;
	p->wport[e] = port;
	p->wnext[e] = DP_WAIT_NONE;
	if (s->tail == DP_WAIT_NONE)
		s->head = e;
	else
		p->wnext[s->tail] = e;
	s->tail = e;
	s->nwait++;
	return true;
}

/* Take the first connection off the ready queue. */
static inline void
dp_ready_pop(struct dp_pending *p)
{
	p->ready_head = (p->ready_head + 1) % p->ready_cap;
	p->ready_n--;
}

/*
 * Run the waiting packets of ready connections through the fast path,
 * while the context holds nothing: a burst at a time, gathered from the
 * ready connections in their order (each connection's packets in order, a
 * connection's whole queue or, where a burst cannot take it all, its
 * first packets: the rest goes in the next burst), of one input port. A
 * storm's connections have two or three packets waiting each: a burst
 * per connection paid the burst's fixed costs (parse and hash set-up, the
 * lookups' bulk, delivery) for those few. A packet of the burst that goes
 * up again takes the rest of its connection's packets in the burst up
 * behind it (dp_behind()), other connections' are not held by it; what is
 * left in its queue waits for that upcall.
 */
static void
dp_pending_run(struct dp_ctx *c, uint32_t now)
{
	struct dp_pending *p = c->pend;
	struct rte_mbuf *m[DP_BURST_MAX];
	uint64_t took[DP_BURST_MAX];

	while (p->ready_n != 0 && dp_held(c) == 0) {
		unsigned int k = 0, nt = 0;
		uint32_t port = UINT32_MAX;

		while (p->ready_n != 0 && k < DP_BURST_MAX) {
			uint64_t conn = p->ready[p->ready_head];
			struct dp_pending_slot *s = dp_pending_find(p, conn);

			if (s == NULL || s->count != 0 || s->nwait == 0) {
				/* Pending again (it is queued once more when done), or gone. */
				dp_ready_pop(p);
				if (s != NULL && s->count == 0 && s->nwait == 0)
					dp_pending_del(p, s);
				continue;
			}
			if (port != UINT32_MAX && p->wport[s->head] != port)
				break; /* another port's packets: the next burst */
			port = p->wport[s->head];
			while (k < DP_BURST_MAX && s->head != DP_WAIT_NONE &&
			       p->wport[s->head] == port) {
				uint32_t e = s->head;

				m[k++] = p->wm[e];
				s->head = p->wnext[e];
				p->wnext[e] = p->free_head;
				p->free_head = e;
				p->wait_free++;
				s->nwait--;
			}
			if (s->head == DP_WAIT_NONE)
				s->tail = DP_WAIT_NONE;
			if (s->nwait != 0)
				break; /* the rest of it next: it stays first */
			dp_ready_pop(p);
			took[nt++] = conn;
		}
		if (k == 0)
			continue;
		c->st.waiting -= k;
		p->reinject = true;
		dp_rx_reinject(c, (uint16_t)port, m, k, now);
		p->reinject = false;
		/* The connections whose queues emptied: their slots go unless an
		 * upcall of the burst counts them pending again (then the last
		 * completion frees them). Slots may have moved (a dropped upcall
		 * freed one): each is found again. The connection a burst took
		 * part of stays first in the ready queue: the next pass goes on
		 * with it, or drops it there when it is pending again. */
		for (unsigned int i = 0; i < nt; i++) {
			struct dp_pending_slot *s = dp_pending_find(p, took[i]);

			if (s != NULL && s->count == 0 && s->nwait == 0)
				dp_pending_del(p, s);
		}
	}
}

/* Fetch the home slot of the FIFO's entry at @p pos. */
static inline void
dp_done_fetch(const struct dp_pending *p, uint32_t pos)
{
	rte_prefetch0(&p->slot[(uint32_t)p->fifo[pos & p->fifo_mask] & p->mask]);
}

/*
 * The @p k oldest counted upcalls are done: each ends one upcall in
 * flight of its connection. The slots of the next few are fetched ahead
 * (the table is large, its lines cold).
 */
static void
dp_done_take(struct dp_pending *p, uint32_t k)
{
	const uint32_t ahead = 4;
	uint32_t h = p->fifo_head;

	for (uint32_t i = 0; i < k && i < ahead; i++)
		dp_done_fetch(p, h + i);
	for (uint32_t i = 0; i < k; i++) {
		if (i + ahead < k)
			dp_done_fetch(p, h + i + ahead);
		dp_pending_sub(p, p->fifo[(h + i) & p->fifo_mask]);
	}
	p->fifo_head = h + k;
}

unsigned int
dp_done_poll(struct dp_ctx *c, uint32_t now)
{
	struct dp_pending *p = c->pend;
	uint64_t v;
	uint32_t k;

	if (p == NULL || p->n == 0)
		return 0; /* no upcall in flight: no completion to come */
	if (c->done_gap != 0 && c->st.waiting == 0 &&
		p->fifo_tail - p->fifo_head <= (p->fifo_mask + 1) / 2) {
		/* Nothing waits for a completion: read a few of them at once. */
		uint64_t t = rte_rdtsc();

		if (t - c->done_tsc < c->done_gap)
			return 0;
		c->done_tsc = t;
	}
	v = __atomic_load_n(&c->done->n, __ATOMIC_ACQUIRE);
	k = (uint32_t)(v - p->done_seen);
	if (k != 0) {
		/* Never more than were counted (a slow path posting twice: a bug). */
		RTE_ASSERT(k <= p->fifo_tail - p->fifo_head);
		if (unlikely(k > p->fifo_tail - p->fifo_head))
			k = p->fifo_tail - p->fifo_head;
		p->done_seen = v;
		dp_done_take(p, k);
	}
	/* Asked here: a poll with no connection ready costs no call (its frame
	 * holds two bursts' arrays). */
	if (p->ready_n != 0)
		dp_pending_run(c, now);
	return k;
}
