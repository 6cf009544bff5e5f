/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared set-up for unit tests of the rules engine: an engine with the
 * modules the application registers (conntrack unless off, NAT with
 * bindings, route), as app/gufc_main.c's engine_init() builds it. The
 * stack is found again from its engine, so tests keep passing the engine
 * around; eng_stack_free() frees the engine, then its modules.
 */
#ifndef GUFC_TEST_ENG_STACK_H
#define GUFC_TEST_ENG_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "conntrack.h"
#include "engine.h"
#include "nat.h"
#include "route.h"

/** What to build. Zero means "default" or "without" as the fields say. */
struct eng_stack_params {
	struct rule_engine_params eng; /**< the engine's (its name also names the routes) */
	bool conntrack;                /**< register the conntrack module */
	struct mod_ct_cfg ct;          /**< with @c conntrack; all timeouts 0: defaults */
	uint32_t nat_bindings;         /**< 0: no NAT module */
	uint32_t nat_seed;
	const struct fc_locals *locals;  /**< NAT: local bits of translated keys */
	mod_nat_port_addr_fn port_addr_fn; /**< NAT: masquerade addresses */
	void *nat_arg;                 /**< first argument of port_addr_fn */
	uint32_t max_routes_v4;        /**< 0 = the module's default */
	uint32_t max_routes_v6;
};

/** Build the stack. @return the engine, or NULL with rte_errno set. */
struct rule_engine *eng_stack_create(const struct eng_stack_params *p);

/** Free the engine, then its modules. NULL is accepted. */
void eng_stack_free(struct rule_engine *eng);

/** The conntrack module of @p eng's stack, or NULL. */
struct mod_ct_module *eng_stack_ct(const struct rule_engine *eng);

/** The NAT module of @p eng's stack, or NULL. */
struct mod_nat_module *eng_stack_natm(const struct rule_engine *eng);

/** The NAT table of @p eng's stack, or NULL. */
const struct mod_nat *eng_stack_nat(const struct rule_engine *eng);

/** The route module of @p eng's stack, or NULL. */
struct mod_route *eng_stack_route(const struct rule_engine *eng);

/**
 * Give @p eng a classifier of its current set, as the app's background
 * build does. @return 0, or -1 (nothing wanted, the build or hand-over failed).
 */
int eng_stack_cls_catch_up(struct rule_engine *eng);

/*
 * The tests' engines and rules (these assert: include <cmocka.h> in the test).
 */

/**
 * Fill @p p as most tests want their engine: @p cap_v4 IPv4 and @p cap_v6
 * IPv6 entries (0: as rule_engine_create() takes 0), a full table refuses
 * (FC_FULL_REFUSE), channel 1 the default, conntrack when @p conntrack,
 * NAT with @p nat bindings (seed 1) unless 0; every other field zero, the
 * name too (eng_stack_test_create() names the engine). The test changes
 * what it needs beside, then calls eng_stack_test_create().
 */
void eng_stack_test_params(
	struct eng_stack_params *p, uint32_t cap_v4, uint32_t cap_v6, bool conntrack, uint32_t nat);

/**
 * eng_stack_create() of @p p, the engine named @p prefix and a number
 * unique in the process (p->eng.name is not looked at; the name is at most
 * 15 characters). A build that fails fails the test.
 */
struct rule_engine *eng_stack_test_create(const struct eng_stack_params *p, const char *prefix);

/**
 * The application's port pairs as the tests wire them (a rule_port_pair_fn):
 * ports 0 and 1 are each other's pair; other ports have none (-ENOENT).
 */
int eng_stack_pair01(void *arg, uint16_t port);

/** eng_stack_test_create() of eng_stack_test_params() with these arguments. */
struct rule_engine *eng_stack_test_engine(
	const char *prefix, uint32_t cap_v4, uint32_t cap_v6, bool conntrack, uint32_t nat);

/**
 * The upcall of a missed IPv4 packet: protocol @p proto from @p src:@p sport
 * to @p dst:@p dport (dotted quads; one that does not parse fails the test),
 * received on @p in_port (in the key too), 100 bytes long; every other
 * field zero (no TCP flags, no frame).
 */
struct rule_upcall eng_stack_up4(uint8_t proto, const char *src, uint16_t sport, const char *dst,
	uint16_t dport, uint16_t in_port);

/**
 * The upcall of a missed IPv4 TCP segment from @p src:@p sport to
 * @p dst:@p dport (addresses in host order), flags @p tf, sequence and
 * acknowledgement numbers @p seq, @p ack, @p dlen bytes of data, no
 * options but a plain header (FC_TCP_OPT_PLAIN), window 1000; input
 * port 0, 100 bytes long.
 */
struct rule_upcall eng_stack_seg4(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport,
	uint8_t tf, uint32_t seq, uint32_t ack, uint16_t dlen);

/**
 * Native rules @p text as a set named "test"; a parse error fails the test
 * with its place and message. With @p ports, the set's input ports are
 * named "p0" and "p1".
 */
struct rule_set *eng_stack_rules(const char *text, bool ports);

/** eng_stack_rules() committed to @p eng; a refused commit fails the test. */
void eng_stack_load(struct rule_engine *eng, const char *text, bool ports);

/** One upcall of @p u at @p now; a burst that does not decide it fails the test. */
struct rule_decision eng_stack_decide(struct rule_engine *eng, struct rule_upcall u, uint32_t now);

/**
 * One packet @p u at @p now as lib/datapath's RX lcore takes it (one
 * fc_table_lookup_bulk()): a hit on an entry that is not stale, not SLOW,
 * not wanted by its interest (rule_engine_wants(), a classed entry's
 * packet of another class, conntrack's TCP window or, a reply
 * entry's SYN/ACK, its step on the line (mod_ct_fast_synack()), a counted
 * limit due) is
 * decided by the cached action (its meter or packet program, one without
 * predicates, or the test fails; its per-flow channel, output port and NAT
 * slot; RULE_DEC_F_CACHED), and the entry is touched with u.len at @p now;
 * anything else is one upcall at @p now (MISS, STALE or INTEREST), as
 * eng_stack_decide(). *@p slow (NULL accepted) tells whether the packet
 * went up. lib/datapath's other checks (router mode, predicates, per-flow
 * channels not yet published) are not modelled.
 */
struct rule_decision eng_stack_rx(
	struct rule_engine *eng, struct rule_upcall u, uint32_t now, bool *slow);

/**
 * The flow-table entry of key @p k in @p eng, or NULL; with @p idx (NULL
 * accepted), its index there.
 */
const struct fc_entry *eng_stack_entry_idx(
	struct rule_engine *eng, const struct fc_key *k, uint32_t *idx);

/** eng_stack_entry_idx() without the index. */
const struct fc_entry *eng_stack_entry(struct rule_engine *eng, const struct fc_key *k);

/**
 * The upcall of frame @p f of @p len bytes as the RX lcore makes it: parsed
 * (a frame that does not parse fails the test), the frame attached, a miss.
 */
struct rule_upcall eng_stack_frame_upcall(const uint8_t *f, uint32_t len);

/**
 * Revalidate at @p now until nothing is pending (rule_engine_step() of 64
 * entries a round); more than 1,000 rounds fail the test.
 */
void eng_stack_settle(struct rule_engine *eng, uint32_t now);

#endif /* GUFC_TEST_ENG_STACK_H */
