/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/datapath/dp_world.h — what the datapath tests share (see
 * dp_world.c): one world per test (world_up() ... teardown()), packet
 * builders, burst runners, channel readers and checks.
 */
#ifndef GUFC_DP_WORLD_H
#define GUFC_DP_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath.h"
#include "pkt_build.h"

#define POOL_SIZE 1023u
#define IN_PORT 0
#define NOW 1000

/* One test's world: engine, channels, locals, the upcall ring, two contexts. */
struct world {
	struct rule_engine *eng;
	struct chan_table *chans;
	struct fc_locals *locals;
	struct rte_ring *up;
	uint16_t def_chan[DP_MAX_PORTS];
	uint16_t port_chan[DP_MAX_PORTS];
	uint16_t out;       /* TX channel (ring path): the default destination */
	uint16_t ch[3];     /* TX channels "a", "b", "c" */
	struct dp_ctx rx;   /* producer 0, reader 0 */
	struct dp_ctx slow; /* producer 1 */
};

extern struct world W;
extern struct rte_mempool *pool;

struct CMUnitTest;

/**
 * The datapath tests' main(): EAL for test @p name (one lcore), the mbuf
 * pool (POOL_SIZE mbufs with DP_MBUF_PRIV_SIZE private bytes), @p tests run
 * as one group between @p group_setup and @p group_teardown (either NULL),
 * then the pool freed and EAL ended, its runtime directory removed.
 * @return main()'s exit status: 0 when every test passed.
 */
int dp_world_main(const char *name, const struct CMUnitTest *tests, size_t n_tests,
	int (*group_setup)(void **), int (*group_teardown)(void **));
/** dp_world_main() of the array @p tests. */
#define DP_WORLD_MAIN(name, tests, group_setup, group_teardown) \
	dp_world_main(name, tests, sizeof(tests) / sizeof((tests)[0]), group_setup, group_teardown)

/** Set up the world: conntrack or not, an upcall ring of @p upcall_ring slots. */
void world_up(bool conntrack, uint32_t upcall_ring);
/**
 * Give the RX context a pending table (8 packets can wait) and a completion
 * counter: per-connection order.
 */
void world_pending(void);
/** Commit native rules @p text (fails the test on a parse error). */
void load(const char *text);
/** cmocka teardown: free the world; fails unless the mempool is whole. */
int teardown(void **state);
unsigned int pool_in_use(void);
/** An mbuf holding @p len bytes of @p frame, from input port IN_PORT. */
struct rte_mbuf *mbuf_of(const uint8_t *frame, int len);
/**
 * Sequence and acknowledgment numbers of the TCP segments pkt4()/pkt6()
 * build from now on (initially 1000 and 2000).
 */
void tcp_numbers(uint32_t seq, uint32_t ack);
/** IPv4 TCP or UDP packet (@p proto), 8 payload bytes starting with @p tag. */
struct rte_mbuf *pkt4(uint8_t proto, const char *src, uint16_t sport, const char *dst,
	uint16_t dport, uint8_t flags, uint32_t tag);
struct rte_mbuf *tcp4(const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint8_t flags, uint32_t tag);
struct rte_mbuf *udp4(const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint32_t tag);
/** IPv6 TCP or UDP packet, as pkt4(). */
struct rte_mbuf *pkt6(uint8_t proto, const char *src, uint16_t sport, const char *dst,
	uint16_t dport, uint8_t flags, uint32_t tag);
/** The tag of a packet pkt4()/pkt6() built. */
uint32_t tag_of(const struct rte_mbuf *m);
/** One RX burst (then a quiescent report). @return packets handed to channels. */
unsigned int rx(struct rte_mbuf **m, unsigned int n);
unsigned int rx1(struct rte_mbuf *m);
/** One RX burst from input port @p port (rx() is from IN_PORT). */
unsigned int rx_on(uint16_t port, struct rte_mbuf **m, unsigned int n);
/** The slow path: the upcall ring through dp_upcall_burst(). @return delivered. */
unsigned int slow(void);
/** Take up to @p max packets from channel @p ch. */
unsigned int take(uint16_t ch, struct rte_mbuf **m, unsigned int max);
struct rte_mbuf *take1_at(uint16_t ch, int line);
/** Take exactly one packet from @p ch. */
#define take1(ch) take1_at(ch, __LINE__)
/** The meta data of the one packet on the upcall ring (it stays there). */
struct dp_meta peek_upcall(void);
uint64_t sum_drops(const struct dp_stats *s);
/** rx == delivered + upcalled + dropped (RX); slow == delivered + dropped. */
void check_accounting(void);
/** Rule @p rule_id counted @p packets, and @p bytes unless 0 (fails the test otherwise). */
void check_rule_counters(uint32_t rule_id, uint64_t packets, uint64_t bytes);
/** The tag of a UDP packet whose payload starts "BAD!" (the payload tests' rules drop it). */
#define DP_BAD 0x42414421u
/**
 * A payload match and a meter on one walk (@p rules: rule 1 drops the
 * packets whose payload starts DP_BAD, rule 2 accepts under a meter that
 * is not exceeded, rule 3 drops): the flow's entry is decided per packet
 * on the slow path (FC_VERDICT_SLOW), a DP_BAD packet dropped there, each
 * rule counted.
 */
void check_pred_and_meter(const char *rules);
/** The entry of key @p k, or NULL; its index in @p idx. */
const struct fc_entry *entry_of(const struct fc_key *k, uint32_t *idx);
/**
 * The first packet @p m of a flow: rx1(), then the slow path delivers
 * @p delivered (0 or 1). @return the entry its upcall made (none fails the test).
 */
const struct fc_entry *first_packet(struct rte_mbuf *m, unsigned int delivered);
/** The key the parser makes of @p m. */
struct fc_key key_of(const struct rte_mbuf *m);
/**
 * A TCP handshake from @p cli:@p cport to @p srv:@p sport (tags 1-3, the
 * numbers 100/500/109/509 as the conntrack tests use them), the slow path
 * run after each segment. @return the key of its SYN.
 */
struct fc_key handshake4(const char *cli, uint16_t cport, const char *srv, uint16_t sport);
/** Every IP and L4 checksum of the frame is valid. */
void check_csums(const struct rte_mbuf *m);
/** The frame's addresses and ports are these; its checksums valid. */
void expect_tuple(const struct rte_mbuf *m, const char *src, uint16_t sport, const char *dst,
	uint16_t dport);

#endif /* GUFC_DP_WORLD_H */
