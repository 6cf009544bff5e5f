/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the packets behind their connection's upcall decided on
 * the slow path with the fast path's code (struct dp_ctx::up_fast,
 * dp_hit_behind()): an RX context that does not wait (an input that may
 * block: files) sends every packet of a connection whose upcall is in
 * flight up behind it; once the entries exist, the slow path decides
 * those as a hit would have been decided. Each test runs one script of
 * TCP connections twice, the engine deciding every upcall and then the
 * fast path's code deciding the packets behind, and holds the second run
 * to the first: the same frames leave in the same order (NAT rewrites
 * included), the same drops, rule counters, entries (actions, counters)
 * and connections (state, flags, windows); and the second run's engine
 * saw only the upcalls the fast path's code could not decide.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_world.h"
#include "eng_stack.h"

#define CONNS 6
#define STEPS 8
#define FRAME_MAX 128
#define PORT 1
#define RULES_MAX 8

#define CLIENT 0x0a000001u /* 10.0.0.1 */
#define SERVER 0x0a090003u /* 10.9.0.3 */
#define REAL   0x0a090007u /* 10.9.0.7: the DNAT test's server */

/* What one run left: the frames out, the counters, the entries and connections. */
struct run {
	unsigned int n_out;
	uint16_t len[CONNS * STEPS];
	uint8_t frame[CONNS * STEPS][FRAME_MAX];
	struct dp_stats rx, slow;
	struct rule_engine_stats es;
	int rule_rc[RULES_MAX];
	uint64_t rule_pk[RULES_MAX], rule_by[RULES_MAX];
	struct {
		bool have[2];           /* [0] the original entry, [1] its peer */
		struct fc_action act[2];
		uint64_t pk[2], by[2];
		uint32_t timeout[2];
		int ct_rc;
		struct mod_ct_conn ct;
	} conn[CONNS];
};

/* How the packets behind their connection's upcall are decided. */
enum mode {
	M_ENGINE, /* they go up; the engine decides them */
	M_FAST,   /* they go up; the fast path's code decides them there (up_fast) */
	M_WAIT,   /* they wait on the RX context and take its fast path after the upcall */
};

static struct run R[3];

/* Segment of connection @p i: from the client (@p c2s) or its server, @p dlen bytes of data. */
static struct rte_mbuf *
seg(unsigned int i, bool c2s, uint32_t server, uint8_t flags, uint32_t seq, uint32_t ack,
	uint16_t dlen)
{
	struct pb_ipv4 ip = {.src = c2s ? CLIENT : server, .dst = c2s ? SERVER : CLIENT};
	uint16_t cport = (uint16_t)(40000 + i), sport = i == 4 ? 81 : 80;
	uint8_t buf[FRAME_MAX], data[16];
	struct pb b;

	if (!c2s && server == REAL)
		sport = 8080;
	memset(data, (int)('a' + i), sizeof(data));
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	if (c2s)
		pb_tcp(&b, cport, sport, flags, seq, ack, 0);
	else
		pb_tcp(&b, sport, cport, flags, seq, ack, 0);
	if (dlen != 0)
		pb_payload(&b, data, dlen);
	return mbuf_of(buf, pb_finish(&b));
}

/*
 * Step @p s of connection @p i: a handshake, data both ways, a close.
 * Connection 4 goes to port 81 (the rules drop it: a cached drop);
 * connection 5's server resets it instead of closing (a RST conntrack
 * wants to see: it goes to the engine whatever the mode).
 */
static struct rte_mbuf *
step(unsigned int i, unsigned int s, uint32_t server)
{
	switch (s) {
	case 0: return seg(i, true, server, PB_TCP_SYN, 100, 0, 0);
	case 1: return seg(i, false, server, PB_TCP_SYN | PB_TCP_ACK, 500, 101, 0);
	case 2: return seg(i, true, server, PB_TCP_ACK, 101, 501, 0);
	case 3: return seg(i, true, server, PB_TCP_ACK | PB_TCP_PSH, 101, 501, 8);
	case 4: return seg(i, false, server, PB_TCP_ACK | PB_TCP_PSH, 501, 109, 8);
	case 5: return seg(i, true, server, PB_TCP_FIN | PB_TCP_ACK, 109, 509, 0);
	case 6:
		if (i == 5)
			return seg(i, false, server, PB_TCP_RST, 509, 0, 0);
		return seg(i, false, server, PB_TCP_FIN | PB_TCP_ACK, 509, 110, 0);
	default: return seg(i, true, server, PB_TCP_ACK, 110, 510, 0);
	}
}

/*
 * One run of the script (the connections' steps in turn, as a storm's
 * capture has them), @p fast or not, under @p rules; the replies come
 * from @p server. Every packet goes up before the slow path runs: the
 * first of each connection as a miss, the rest behind it (a DNAT'd
 * connection's replies are another connection to the RX context, so they
 * go up as misses, or hits, of their own). @return the run's record.
 */
static struct run *
run(enum mode mode, const char *rules, uint32_t server)
{
	struct run *r = &R[mode];
	struct rte_mbuf *m[CONNS * STEPS], *o[CONNS * STEPS];
	struct fc_table *t;
	unsigned int n = 0;

	memset(r, 0, sizeof(*r));
	world_up(true, 256);
	/* As world_pending(), with room for every packet to wait. */
	W.rx.done = rte_zmalloc(NULL, sizeof(*W.rx.done), RTE_CACHE_LINE_SIZE);
	assert_non_null(W.rx.done);
	W.rx.pend = dp_pending_init(rte_zmalloc(NULL, dp_pending_memsize(128, 64), 64), 128, 64);
	assert_non_null(W.rx.pend);
	W.rx.pend_wait = mode == M_WAIT;
	W.slow.up_fast = mode == M_FAST;
	load(rules);
	for (unsigned int s = 0; s < STEPS; s++)
		for (unsigned int i = 0; i < CONNS; i++)
			m[n++] = step(i, s, server);
	/* From port 1, whose packets go to channel "a" (IN_PORT's to "out"). */
	W.def_chan[PORT] = W.ch[0];
	for (unsigned int k = 0; k < n; k += 16)
		rx_on(PORT, m + k, 16);
	assert_int_equal(W.rx.st.rx, n);
	while (rte_ring_count(W.up) != 0 || W.rx.st.waiting != 0) {
		slow();
		dp_done_poll(&W.rx, NOW);
	}
	assert_int_equal(W.rx.pend->n, 0);
	check_accounting();
	/*
	 * Aging's walk settles the entries decided ahead of their first reply
	 * (conntrack took it on the line: engine_synack.c), as the engine's
	 * own decision of that reply does at once.
	 */
	for (unsigned int k = 0; k < 4; k++)
		rule_engine_step(W.eng, NOW, 1024);

	assert_int_equal(rte_ring_count(W.up), 0);
	assert_int_equal(take(W.out, o, CONNS * STEPS), 0);
	r->n_out = take(W.ch[0], o, CONNS * STEPS);
	for (unsigned int k = 0; k < r->n_out; k++) {
		r->len[k] = (uint16_t)rte_pktmbuf_data_len(o[k]);
		assert_true(r->len[k] <= FRAME_MAX);
		memcpy(r->frame[k], rte_pktmbuf_mtod(o[k], const void *), r->len[k]);
		check_csums(o[k]);
	}
	rte_pktmbuf_free_bulk(o, r->n_out);
	r->rx = W.rx.st;
	r->slow = W.slow.st;
	rule_engine_stats_get(W.eng, &r->es);
	for (uint32_t id = 0; id < RULES_MAX; id++)
		r->rule_rc[id] = rule_engine_rule_counters(W.eng, id, &r->rule_pk[id],
			&r->rule_by[id]);
	t = rule_engine_table(W.eng, FC_AF_INET4);
	for (unsigned int i = 0; i < CONNS; i++) {
		struct rte_mbuf *syn = step(i, 0, server);
		struct fc_key k = key_of(syn);
		uint32_t idx[2];
		const struct fc_entry *e;

		rte_pktmbuf_free(syn);
		fc_key_set_in_port(&k, PORT);
		e = entry_of(&k, &idx[0]);
		if (e == NULL)
			continue;
		idx[1] = fc_table_peer(t, idx[0]);
		for (unsigned int d = 0; d < 2; d++) {
			if (d == 1 && (idx[1] == FC_INDEX_NONE ||
					      (e = fc_table_entry(t, idx[1])) == NULL))
				break;
			r->conn[i].have[d] = true;
			r->conn[i].act[d] = e->act;
			fc_table_counters(t, idx[d], &r->conn[i].pk[d], &r->conn[i].by[d]);
			r->conn[i].timeout[d] = fc_table_timeout(t, idx[d]);
		}
		r->conn[i].ct_rc = mod_ct_module_conn_get(eng_stack_ct(W.eng), &r->conn[i].act[0],
			&r->conn[i].ct);
	}
	assert_int_equal(teardown(NULL), 0);
	return r;
}

/* Frames @p k of runs @p a and @p b compare (memcmp order, shorter first). */
static int
frame_cmp(const struct run *a, unsigned int i, const struct run *b, unsigned int j)
{
	if (a->len[i] != b->len[j])
		return a->len[i] < b->len[j] ? -1 : 1;
	return memcmp(a->frame[i], b->frame[j], a->len[i]);
}

/*
 * The same frames left in both runs: in the same order (@p ordered), or
 * the same ones (a run whose packets waited on the RX context delivers
 * them per connection, after the upcall: another order between connections).
 */
static void
same_frames(const struct run *a, const struct run *b, bool ordered)
{
	bool used[CONNS * STEPS] = {false};

	assert_int_equal(a->n_out, b->n_out);
	for (unsigned int k = 0; k < a->n_out; k++) {
		unsigned int j;

		if (ordered) {
			if (frame_cmp(a, k, b, k) != 0)
				fail_msg("frame %u out differs", k);
			continue;
		}
		for (j = 0; j < b->n_out; j++)
			if (!used[j] && frame_cmp(a, k, b, j) == 0)
				break;
		if (j == b->n_out)
			fail_msg("frame %u of one run is not among the other's", k);
		used[j] = true;
	}
}

/*
 * The same drops, rule counters, entries (their decisions and counters;
 * with @p whole, every bit of their actions and their stored timeouts)
 * and connections (state, flags, both sides' windows).
 */
static void
same_state(const struct run *a, const struct run *b, bool whole)
{
	assert_int_equal(a->slow.fwd_pkts + a->rx.fwd_pkts, b->slow.fwd_pkts + b->rx.fwd_pkts);
	assert_int_equal(sum_drops(&a->slow) + sum_drops(&a->rx),
		sum_drops(&b->slow) + sum_drops(&b->rx));
	for (unsigned int d = 0; d < RULE_DROP__COUNT; d++)
		assert_int_equal(a->slow.rule_drops[d] + a->rx.rule_drops[d],
			b->slow.rule_drops[d] + b->rx.rule_drops[d]);
	for (uint32_t id = 0; id < RULES_MAX; id++) {
		assert_int_equal(a->rule_rc[id], b->rule_rc[id]);
		assert_int_equal(a->rule_pk[id], b->rule_pk[id]);
		assert_int_equal(a->rule_by[id], b->rule_by[id]);
	}
	for (unsigned int i = 0; i < CONNS; i++) {
		for (unsigned int d = 0; d < 2; d++) {
			const struct fc_action *x = &a->conn[i].act[d], *y = &b->conn[i].act[d];

			assert_int_equal(a->conn[i].have[d], b->conn[i].have[d]);
			if (!a->conn[i].have[d])
				continue;
			if (x->gen != y->gen || x->rule_id != y->rule_id || x->nat_id != y->nat_id ||
				x->channel != y->channel || x->out_port != y->out_port ||
				x->verdict != y->verdict || x->ct_state != y->ct_state ||
				(whole && (x->interest != y->interest || x->flags != y->flags ||
						  memcmp(x->mod, y->mod, sizeof(x->mod)) != 0)))
				fail_msg("connection %u entry %u: actions differ (rule %u/%u, "
					 "verdict %u/%u, flags 0x%x/0x%x, ct_state 0x%x/0x%x, "
					 "interest 0x%x/0x%x)",
					i, d, x->rule_id, y->rule_id, x->verdict, y->verdict, x->flags,
					y->flags, x->ct_state, y->ct_state, x->interest, y->interest);
			assert_int_equal(a->conn[i].pk[d], b->conn[i].pk[d]);
			assert_int_equal(a->conn[i].by[d], b->conn[i].by[d]);
			/* (The timeout an entry stores: a TCP connection's in force
			 * is its state's, which conntrack's line moves: aging asks.) */
			if (whole && a->conn[i].timeout[d] != b->conn[i].timeout[d])
				fail_msg("connection %u entry %u: timeout %u, %u", i, d,
					a->conn[i].timeout[d], b->conn[i].timeout[d]);
		}
		assert_int_equal(a->conn[i].ct_rc, b->conn[i].ct_rc);
		if (a->conn[i].ct_rc != 0)
			continue;
		if (a->conn[i].ct.state != b->conn[i].ct.state ||
			a->conn[i].ct.flags != b->conn[i].ct.flags)
			fail_msg("connection %u: state %u/%u, flags 0x%x/0x%x", i,
				a->conn[i].ct.state, b->conn[i].ct.state, a->conn[i].ct.flags,
				b->conn[i].ct.flags);
		for (unsigned int d = 0; d < 2; d++)
			if (memcmp(&a->conn[i].ct.tcp.side[d], &b->conn[i].ct.tcp.side[d],
				    sizeof(a->conn[i].ct.tcp.side[d])) != 0)
				fail_msg("connection %u: side %u's window differs", i, d);
	}
}

static uint64_t
engine_upcalls(const struct run *r)
{
	uint64_t n = 0;

	for (unsigned int k = 0; k < RULE_UPCALL__COUNT; k++)
		n += r->es.upcalls[k];
	return n;
}

#define RULES "accept ctstate established,related\n" \
	      "accept ctstate new proto tcp dport 80\n" \
	      "policy drop\n"

/*
 * The script under @p rules, replies from @p server: the fast path's code
 * on the slow path gives what the engine gives there (frames in the same
 * order, drops, counters, entries' decisions, connections); with @p wait,
 * also what the RX context's own fast path gives after waiting (the same
 * frames, and the entries to every bit of their actions: the same code),
 * which holds where every packet after a connection's first is behind it
 * (a translated connection's replies are not: they would overtake the
 * waiting packets). @p e, @p f: the engine's and the fast run.
 */
static void
runs(const char *rules, uint32_t server, bool wait, const struct run **e, const struct run **f)
{
	const struct run *a = run(M_ENGINE, rules, server);
	const struct run *b = run(M_FAST, rules, server);

	same_frames(a, b, true);
	same_state(a, b, false);
	if (wait) {
		const struct run *c = run(M_WAIT, rules, server);

		same_frames(c, b, false);
		same_state(c, b, true);
		assert_int_equal(c->slow.upcall_fast, 0);
	}
	/* The engine run decided every upcall there; the other did not. */
	assert_int_equal(a->slow.upcall_fast, 0);
	assert_int_equal(a->slow.slow_pkts, b->slow.slow_pkts);
	assert_int_equal(a->rx.upcalls, b->rx.upcalls);
	assert_int_equal(a->rx.upcall_pending, b->rx.upcall_pending);
	assert_int_equal(engine_upcalls(a), a->slow.slow_pkts);
	assert_int_equal(engine_upcalls(b) + b->slow.upcall_fast, b->slow.slow_pkts);
	/* Counted once: the fast path's code counts no hit, miss or upcall reason. */
	assert_int_equal(b->slow.hits + b->slow.misses + b->slow.upcall_interest +
		b->slow.upcall_stale + b->slow.upcall_per_packet + b->slow.upcall_class, 0);
	*e = a;
	*f = b;
}

/*
 * The storm's connections, untranslated: the SYN/ACK (conntrack's step on
 * the line), the handshake's ACK, the data and the close behind each SYN
 * are the fast path's; the dropped connection's packets die on its cached
 * drop; the RST and what follows it go to the engine.
 */
static void
test_upfast_storm(void **state)
{
	const struct run *a, *b;

	(void)state;
	runs(RULES, SERVER, true, &a, &b);
	/* Every packet but each connection's SYN went up behind it. */
	assert_int_equal(a->rx.upcall_pending, CONNS * (STEPS - 1));
	assert_int_equal(a->slow.slow_pkts, CONNS * STEPS);
	/* The SYN/ACKs of the accepted connections on conntrack's line. */
	assert_int_equal(b->slow.ct_synack_fast, 5);
	assert_int_equal(a->slow.ct_synack_fast, 0);
	/*
	 * All the packets behind but four went the fast path's way: the
	 * dropped connection's server packets (its cached drop has no reply
	 * entry: each a new flow to the engine) and the RST (conntrack's).
	 */
	assert_int_equal(b->slow.upcall_fast, CONNS * (STEPS - 1) - 4);
	/* (The client's last ACK after the RST has no connection: dropped.) */
	assert_int_equal(a->n_out, 5 * STEPS - 1);
}

/* The filter sees the translated destination. */
#define DNAT_RULES "dnat to 10.9.0.7:8080 proto tcp dst 10.9.0.3 dport 80\n" \
		   "accept ctstate established,related\n" \
		   "accept ctstate new proto tcp dport 8080\n" \
		   "policy drop\n"

/*
 * DNAT'd connections: the client's packets behind its SYN are rewritten
 * by the fast path's code (the slot's stores, the checksums' adds) as the
 * engine's decisions are by the slow path's; the server's replies are a
 * connection of their own to the RX context and do not wait.
 */
static void
test_upfast_dnat(void **state)
{
	const struct run *a, *b;

	(void)state;
	runs(DNAT_RULES, REAL, false, &a, &b);
	/* Behind the SYN, the client's four; behind the SYN/ACK, the server's two. */
	assert_int_equal(a->rx.upcall_pending, CONNS * 6);
	assert_true(b->slow.upcall_fast >= CONNS * 5);
	assert_int_equal(a->n_out, 5 * STEPS - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upfast_storm),
		cmocka_unit_test(test_upfast_dnat),
	};

	return DP_WORLD_MAIN("dp_upfast", tests, NULL, NULL);
}
