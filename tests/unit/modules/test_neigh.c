/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the neighbour module (EAL: mbufs): announcements of port
 * addresses; ARP requests and neighbour solicitations answered for the
 * port's addresses only; a next hop resolved (request, packets held in
 * order, released with the neighbour's MAC once it replies, the adjacency
 * valid); a full queue counted; retries with backoff and failure (held
 * packets dropped, the adjacency invalid); a gratuitous ARP changing a
 * known MAC (the adjacency rewritten in place, sequence count advanced);
 * an MTU change reaching the adjacency; malformed frames counted. Time is
 * the argument the tests pass (no clock).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "eal_test.h"
#include "flowcache.h"
#include "neigh.h"

#define SENT_MAX 64

static struct rte_mempool *pool;

/* What the module sent: port and the first bytes of each frame. */
static struct {
	unsigned int n;
	uint16_t port[SENT_MAX];
	uint16_t len[SENT_MAX];
	uint8_t f[SENT_MAX][MOD_NEIGH_FRAME_MAX];
	/* With watch.n set: was adjacency watch.adj valid when the frame left? */
	bool adj_valid[SENT_MAX];
} sent;

/* The adjacency send_cb() reads as each frame leaves (n NULL: none). */
static struct {
	struct mod_neigh *n;
	uint16_t adj;
} watch;

static void
send_cb(void *arg, uint16_t port, struct rte_mbuf **m, unsigned int n)
{
	(void)arg;
	for (unsigned int i = 0; i < n; i++) {
		if (sent.n < SENT_MAX) {
			uint16_t len = (uint16_t)RTE_MIN(rte_pktmbuf_data_len(m[i]),
				(uint32_t)MOD_NEIGH_FRAME_MAX);

			sent.port[sent.n] = port;
			sent.len[sent.n] = len;
			memcpy(sent.f[sent.n], rte_pktmbuf_mtod(m[i], uint8_t *), len);
			if (watch.n != NULL) {
				struct mod_neigh_adj a;

				sent.adj_valid[sent.n] =
					mod_neigh_adj_read(watch.n, watch.adj, &a) && a.valid;
			}
			sent.n++;
		}
		rte_pktmbuf_free(m[i]);
	}
}

/* Packets whose next hop failed, handed back (unreach_fn). */
static unsigned int unreached;

static void
unreach_cb(void *arg, struct rte_mbuf *m)
{
	(void)arg;
	unreached++;
	rte_pktmbuf_free(m);
}

static const uint8_t PORT_MAC[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t HOST_MAC[6] = { 0x02, 0, 0, 0, 0, 0x22 };
static const uint8_t HOST_MAC2[6] = { 0x02, 0, 0, 0, 0, 0x33 };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t ZERO6[6];
static const uint8_t MY4[4] = { 10, 0, 1, 1 };
static const uint8_t HOST4[4] = { 10, 0, 1, 2 };
static const uint8_t OTHER4[4] = { 10, 0, 1, 9 };
static const uint8_t MY6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
static const uint8_t HOST6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };

static struct mod_neigh *
make(uint32_t queue_len)
{
	struct mod_neigh_params p = {
		.max_neigh = 16, .queue_len = queue_len, .reachable_ms = 1000, .retrans_ms = 100,
		.probes = 3, .gc_ms = 5000, .pool = pool, .send_fn = send_cb,
		.unreach_fn = unreach_cb, .socket_id = (int)rte_socket_id(),
	};
	struct mod_neigh *n = mod_neigh_create(&p);

	assert_non_null(n);
	assert_int_equal(mod_neigh_port_set(n, 0, PORT_MAC, 1500), 0);
	assert_int_equal(mod_neigh_port_addr_add(n, 0, FC_AF_INET4, MY4, 24), 0);
	assert_int_equal(mod_neigh_port_addr_add(n, 0, FC_AF_INET6, MY6, 64), 0);
	memset(&sent, 0, sizeof(sent));
	memset(&watch, 0, sizeof(watch));
	unreached = 0;
	return n;
}

/* An mbuf holding @p len bytes of @p frame. */
static struct rte_mbuf *
mbuf_of(const uint8_t *frame, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	return m;
}

/* A routed packet waiting for its Ethernet header: a 60-byte frame tagged @p tag. */
static struct rte_mbuf *
packet(uint8_t tag)
{
	uint8_t f[60] = { 0 };

	f[12] = 0x08;
	f[59] = tag;
	return mbuf_of(f, sizeof(f));
}

static int
input_arp(struct mod_neigh *n, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
	const uint8_t *spa, const uint8_t *tha, const uint8_t *tpa, uint32_t now)
{
	uint8_t f[MOD_NEIGH_FRAME_MAX];

	mod_neigh_build_arp(f, op, eth_dst, sha, spa, tha, tpa);
	return mod_neigh_input(n, mbuf_of(f, MOD_NEIGH_ARP_LEN), 0, now);
}

static void
test_answers_and_announces(void **state)
{
	struct mod_neigh *n = make(4);
	struct mod_neigh_msg m;
	struct mod_neigh_stats st;
	uint8_t f[MOD_NEIGH_FRAME_MAX];

	(void)state;
	/* The next step announces the port's addresses: a gratuitous ARP, an unsolicited NA. */
	mod_neigh_step(n, 1, 16);
	assert_int_equal(sent.n, 2);
	assert_int_equal(mod_neigh_parse(sent.f[0], sent.len[0], &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_ARP_REQUEST);
	assert_memory_equal(m.src, MY4, 4);
	assert_memory_equal(m.target, MY4, 4);
	assert_int_equal(mod_neigh_parse(sent.f[1], sent.len[1], &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_NA);
	assert_memory_equal(m.target, MY6, 16);
	assert_false(m.flags & MOD_NEIGH_NA_SOLICITED);
	sent.n = 0;
	mod_neigh_step(n, 2, 16);
	assert_int_equal(sent.n, 0); /* once */

	/* An ARP request for our address: a reply; its sender is learned (stale). */
	assert_int_equal(input_arp(n, 1, BCAST, HOST_MAC, HOST4, ZERO6, MY4, 10), 0);
	assert_int_equal(sent.n, 1);
	assert_int_equal(mod_neigh_parse(sent.f[0], sent.len[0], &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_ARP_REPLY);
	assert_memory_equal(m.eth_dst, HOST_MAC, 6);
	assert_memory_equal(m.lladdr, PORT_MAC, 6);
	assert_memory_equal(m.src, MY4, 4);
	assert_memory_equal(m.target, HOST4, 4);
	/* For another address: no answer. */
	assert_int_equal(input_arp(n, 1, BCAST, HOST_MAC, HOST4, ZERO6, OTHER4, 11), 0);
	assert_int_equal(sent.n, 1);

	/* A neighbour solicitation for our IPv6 address: a solicited NA to its source. */
	mod_neigh_build_ns(f, HOST_MAC, HOST6, MY6, NULL);
	assert_int_equal(mod_neigh_input(n, mbuf_of(f, MOD_NEIGH_ND_LEN), 0, 12), 0);
	assert_int_equal(sent.n, 2);
	assert_int_equal(mod_neigh_parse(sent.f[1], sent.len[1], &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_NA);
	assert_true(m.flags & MOD_NEIGH_NA_SOLICITED);
	assert_memory_equal(m.target, MY6, 16);
	assert_memory_equal(m.dst, HOST6, 16);
	assert_memory_equal(m.eth_dst, HOST_MAC, 6);
	assert_memory_equal(m.lladdr, PORT_MAC, 6);

	/* A malformed frame: dropped and counted. */
	mod_neigh_build_arp(f, 1, BCAST, HOST_MAC, HOST4, ZERO6, MY4);
	f[19] = 9; /* a 9-byte hardware address */
	assert_int_equal(mod_neigh_input(n, mbuf_of(f, MOD_NEIGH_ARP_LEN), 0, 13), -EINVAL);
	mod_neigh_stats_get(n, &st);
	assert_int_equal(st.drops[MOD_NEIGH_DROP_NEIGH_INVALID], 1);
	assert_int_equal(st.consumed, 3);
	assert_int_equal(st.arp_rep_out, 1);
	assert_int_equal(st.na_out, 1);
	assert_int_equal(st.announce_out, 2);
	assert_int_equal(st.originated, 4);
	mod_neigh_free(n);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

static void
test_resolve_hold_release(void **state)
{
	struct mod_neigh *n = make(2);
	struct mod_neigh_adj a;
	struct mod_neigh_msg m;
	struct mod_neigh_stats st;
	uint16_t adj, adj2;

	(void)state;
	mod_neigh_step(n, 1, 16); /* announcements */
	sent.n = 0;
	/* A new next hop: an ARP request at once, the adjacency not valid yet. */
	adj = mod_neigh_adj_get(n, 0, FC_AF_INET4, HOST4, 100);
	assert_int_not_equal(adj, 0);
	assert_int_equal(sent.n, 1);
	assert_int_equal(mod_neigh_parse(sent.f[0], sent.len[0], &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_ARP_REQUEST);
	assert_memory_equal(m.target, HOST4, 4);
	assert_memory_equal(m.src, MY4, 4);
	assert_memory_equal(m.eth_dst, BCAST, 6);
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_false(a.valid);
	/* A second flow shares it. */
	adj2 = mod_neigh_adj_get(n, 0, FC_AF_INET4, HOST4, 101);
	assert_int_equal(adj2, adj);
	assert_int_equal(sent.n, 1);
	/* Two packets wait; a third finds the queue full. */
	assert_int_equal(mod_neigh_hold(n, adj, packet(1), 102), 0);
	assert_int_equal(mod_neigh_hold(n, adj, packet(2), 103), 0);
	assert_int_equal(mod_neigh_hold(n, adj, packet(3), 104), -ENOSPC);
	/* The reply: both leave, in order, to the neighbour's MAC from the port's. */
	assert_int_equal(input_arp(n, 2, PORT_MAC, HOST_MAC, HOST4, PORT_MAC, MY4, 110), 0);
	assert_int_equal(sent.n, 3);
	for (unsigned int i = 1; i <= 2; i++) {
		assert_memory_equal(sent.f[i], HOST_MAC, 6);
		assert_memory_equal(sent.f[i] + 6, PORT_MAC, 6);
		assert_int_equal(sent.f[i][59], i);
	}
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_true(a.valid);
	assert_int_equal(a.port, 0);
	assert_int_equal(a.mtu, 1500);
	assert_memory_equal(a.dst, HOST_MAC, 6);
	assert_memory_equal(a.src, PORT_MAC, 6);
	/* A valid adjacency sends a held packet at once. */
	assert_int_equal(mod_neigh_hold(n, adj, packet(4), 111), 0);
	assert_int_equal(sent.n, 4);
	assert_int_equal(sent.f[3][59], 4);

	/* A gratuitous ARP with a new MAC: the adjacency is rewritten in place. */
	{
		uint32_t seq = a.seq;

		assert_int_equal(input_arp(n, 1, BCAST, HOST_MAC2, HOST4, ZERO6, HOST4, 120), 0);
		assert_true(mod_neigh_adj_read(n, adj, &a));
		assert_true(a.valid);
		assert_memory_equal(a.dst, HOST_MAC2, 6);
		assert_true(a.seq > seq && (a.seq & 1) == 0);
	}
	/* The port's MTU follows too. */
	assert_int_equal(mod_neigh_port_set(n, 0, PORT_MAC, 1400), 0);
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_int_equal(a.mtu, 1400);

	mod_neigh_stats_get(n, &st);
	assert_int_equal(st.held, 2);
	assert_int_equal(st.released, 2);
	assert_int_equal(st.resolved, 1);
	assert_int_equal(st.mac_changes, 1);
	assert_int_equal(st.drops[MOD_NEIGH_DROP_NEIGH_QUEUE_FULL], 1);
	assert_int_equal(st.queued, 0);
	mod_neigh_adj_put(n, adj);
	mod_neigh_adj_put(n, adj2);
	mod_neigh_free(n);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

/*
 * Order of a flow's packets across the lcores (router mode): while its next
 * hop resolves, each of its packets reaches the slow path (the fast path
 * needs a valid adjacency) and waits here; the RX lcores send its later
 * ones themselves as soon as they read the adjacency valid. So the packets
 * that waited must be on their way before the adjacency reads valid, on
 * the first resolution and on a resolution again after a failure.
 */
static void
test_release_before_valid(void **state)
{
	struct mod_neigh *n = make(4);
	struct mod_neigh_adj a;
	uint16_t adj;

	(void)state;
	adj = mod_neigh_adj_get(n, 0, FC_AF_INET4, HOST4, 100);
	assert_int_not_equal(adj, 0);
	watch.n = n;
	watch.adj = adj;
	sent.n = 0;
	assert_int_equal(mod_neigh_hold(n, adj, packet(1), 101), 0);
	assert_int_equal(mod_neigh_hold(n, adj, packet(2), 102), 0);
	assert_int_equal(sent.n, 0);
	assert_int_equal(input_arp(n, 2, PORT_MAC, HOST_MAC, HOST4, PORT_MAC, MY4, 110), 0);
	assert_int_equal(sent.n, 2);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(sent.f[i][59], i + 1);
		assert_false(sent.adj_valid[i]); /* out before a later packet could go */
	}
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_true(a.valid);

	/* Unanswered probes: failed, not valid; a packet restarts resolution. */
	for (uint32_t t = 1200; t < 3000 && a.valid; t += 100) {
		mod_neigh_step(n, t, 16);
		assert_true(mod_neigh_adj_read(n, adj, &a));
	}
	assert_false(a.valid);
	sent.n = 0;
	assert_int_equal(mod_neigh_hold(n, adj, packet(3), 3000), 0);
	assert_int_equal(mod_neigh_hold(n, adj, packet(4), 3001), 0);
	{
		unsigned int before = sent.n; /* the request(s) the restart sent */

		assert_int_equal(input_arp(n, 2, PORT_MAC, HOST_MAC2, HOST4, PORT_MAC, MY4, 3010), 0);
		assert_int_equal(sent.n, before + 2);
		for (unsigned int i = 0; i < 2; i++) {
			assert_int_equal(sent.f[before + i][59], i + 3);
			assert_memory_equal(sent.f[before + i], HOST_MAC2, 6);
			assert_false(sent.adj_valid[before + i]);
		}
	}
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_true(a.valid);
	watch.n = NULL;
	mod_neigh_adj_put(n, adj);
	mod_neigh_free(n);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

static void
test_retries_and_failure(void **state)
{
	struct mod_neigh *n = make(4);
	struct mod_neigh_adj a;
	struct mod_neigh_info info;
	struct mod_neigh_stats st;
	uint32_t it = 0;
	uint16_t adj;

	(void)state;
	mod_neigh_step(n, 1, 16);
	sent.n = 0;
	adj = mod_neigh_adj_get(n, 0, FC_AF_INET4, OTHER4, 1000);
	assert_int_equal(sent.n, 1);
	assert_int_equal(mod_neigh_hold(n, adj, packet(1), 1000), 0);
	/* Retries after 100 ms, then 200 ms more (backoff); nothing before. */
	mod_neigh_step(n, 1099, 16);
	assert_int_equal(sent.n, 1);
	mod_neigh_step(n, 1100, 16);
	assert_int_equal(sent.n, 2);
	mod_neigh_step(n, 1299, 16);
	assert_int_equal(sent.n, 2);
	mod_neigh_step(n, 1300, 16);
	assert_int_equal(sent.n, 3);
	/* Three requests unanswered: failed, the held packet dropped. */
	mod_neigh_step(n, 1700, 16);
	assert_int_equal(sent.n, 3);
	assert_int_equal(mod_neigh_next(n, &it, 1700, &info), 0);
	assert_int_equal(info.state, MOD_NEIGH_FAILED);
	assert_int_equal(info.queued, 0);
	assert_true(mod_neigh_adj_read(n, adj, &a));
	assert_false(a.valid);
	mod_neigh_stats_get(n, &st);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.drops[MOD_NEIGH_DROP_NEIGH_FAILED], 1);
	assert_int_equal(unreached, 1); /* handed back for its ICMP error */
	/* The next packet starts resolving afresh. */
	assert_int_equal(mod_neigh_hold(n, adj, packet(2), 2000), 0);
	assert_int_equal(sent.n, 4);
	it = 0;
	assert_int_equal(mod_neigh_next(n, &it, 2000, &info), 0);
	assert_int_equal(info.state, MOD_NEIGH_INCOMPLETE);
	assert_int_equal(info.queued, 1);
	/* Exit: what waits is dropped, counted, and not reported unreachable. */
	assert_int_equal(mod_neigh_flush(n), 1);
	assert_int_equal(unreached, 1);
	mod_neigh_adj_put(n, adj);
	mod_neigh_free(n);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

static void
test_bad_args(void **state)
{
	struct mod_neigh *n = make(4);

	(void)state;
	assert_int_equal(mod_neigh_port_addr_add(n, 0, FC_AF_INET4, MY4, 24), -EEXIST);
	assert_int_equal(mod_neigh_port_addr_add(n, 1, FC_AF_INET4, OTHER4, 24), -ENODEV);
	assert_int_equal(mod_neigh_port_addr_del(n, 0, FC_AF_INET4, OTHER4), -ENOENT);
	assert_int_equal(mod_neigh_adj_get(n, 5, FC_AF_INET4, HOST4, 0), 0);
	assert_int_equal(mod_neigh_hold(n, 99, packet(1), 0), -ENOENT);
	assert_int_equal(mod_neigh_port_set(n, 0, PORT_MAC, 10), -EINVAL);
	mod_neigh_free(n);
	mod_neigh_free(NULL);
	assert_int_equal(rte_mempool_avail_count(pool), pool->size);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers_and_announces),
		cmocka_unit_test(test_resolve_hold_release),
		cmocka_unit_test(test_release_before_valid),
		cmocka_unit_test(test_retries_and_failure),
		cmocka_unit_test(test_bad_args),
	};

	return GUFC_TEST_POOL_MAIN("neigh", "0", &pool, 255, 0, tests);
}
