/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_conntrack.c — the conntrack module's core
 * (lib/modules/conntrack/conntrack.c): pure state machines, no EAL.
 *
 * TCP transitions are table-driven scenarios (handshakes, closes from
 * either side, simultaneous open and close, RST in every state from both
 * sides, reopen, loose and strict pickup, out-of-state and malformed
 * segments), each step checking state, the packet's ctstate and the verdict
 * flags. Timeouts and interest masks are checked per state. The interest
 * property is checked twice: exhaustively (every encodable connection, both
 * directions, every flags byte / ICMP type: a packet the mask does not
 * select never changes anything) and by random walks in which an "engine"
 * that only shows selected packets (the engine's own test,
 * rule_engine_wants()) must stay in lockstep with an oracle that shows
 * every packet. ICMP error quoting is checked against the parser
 * (the quoted key must be what fc_parse() gives for the quoted packet) on
 * built frames, with truncation sweeps over exactly sized heap copies so
 * that ASan catches any read past the end.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pkt_build.h"
#include "conntrack.h"
#include "engine.h"

#define O MOD_CT_DIR_ORIG
#define R MOD_CT_DIR_REPLY

/* TCP flags. */
#define F_FIN PB_TCP_FIN
#define F_SYN PB_TCP_SYN
#define F_RST PB_TCP_RST
#define F_PSH PB_TCP_PSH
#define F_ACK PB_TCP_ACK
#define F_URG 0x20
#define F_SA  (F_SYN | F_ACK)
#define F_FA  (F_FIN | F_ACK)
#define F_RA  (F_RST | F_ACK)
#define F_PA  (F_PSH | F_ACK)

/* States, short. */
#define NO MOD_CT_S_NONE
#define SS MOD_CT_S_SYN_SENT
#define SR MOD_CT_S_SYN_RECV
#define ES MOD_CT_S_ESTABLISHED
#define FW MOD_CT_S_FIN_WAIT
#define CW MOD_CT_S_CLOSE_WAIT
#define LA MOD_CT_S_LAST_ACK
#define TW MOD_CT_S_TIME_WAIT
#define CL MOD_CT_S_CLOSE
#define S2 MOD_CT_S_SYN_SENT2
#define OP MOD_CT_S_OPEN

/* ctstates, short. */
#define NEW RULE_CT_NEW
#define EST RULE_CT_ESTABLISHED
#define INV RULE_CT_INVALID

/* Verdict flags, short. */
#define V_CH MOD_CT_VF_CHANGED
#define V_CT MOD_CT_VF_CTSTATE
#define V_CL MOD_CT_VF_CLOSED
#define V_RO MOD_CT_VF_REOPEN

/* Interest masks, short. */
#define I_B (FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST)
#define I_A FC_INTEREST_ALL

#define AF4 FC_AF_INET4
#define AF6 FC_AF_INET6

/* Does the engine upcall this packet of an entry with interest @p i (rule_engine_wants())? */
static bool
wants(uint16_t i, const struct fc_pkt *p)
{
	struct fc_action a;

	memset(&a, 0, sizeof(a));
	a.interest = i;
	return rule_engine_wants(&a, p);
}

#define P_ICMP	 PB_PROTO_ICMP
#define P_TCP	 PB_PROTO_TCP
#define P_UDP	 PB_PROTO_UDP
#define P_GRE	 PB_PROTO_GRE
#define P_ICMPV6 PB_PROTO_ICMPV6
#define P_SCTP	 PB_PROTO_SCTP

static const uint8_t v6_a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t v6_b[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0x10, [15] = 0x02};
static const uint8_t v6_r[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0xff, [15] = 0xfe};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct mod_ct_cfg
cfg_make(bool strict)
{
	struct mod_ct_cfg cfg;

	mod_ct_cfg_init(&cfg);
	cfg.tcp_strict = strict;
	return cfg;
}

/* A parsed packet as the engine would pass it (only what conntrack reads matters). */
static struct fc_pkt
mkpkt(uint8_t family, uint8_t proto, uint8_t tcp_flags, uint8_t icmp_type)
{
	struct fc_pkt p;

	memset(&p, 0, sizeof(p));
	p.key.family = family;
	if (family == AF4) {
		p.key.v4.src = 0x010200c0; /* any addresses: conntrack does not read them */
		p.key.v4.dst = 0x076433c6;
		p.key.v4.proto = proto;
		p.l4_off = 34;
	} else {
		memcpy(p.key.v6.src, v6_a, 16);
		memcpy(p.key.v6.dst, v6_b, 16);
		p.key.v6.proto = proto;
		p.l4_off = 54;
	}
	p.l3_off = 14;
	if (proto == P_TCP)
		p.tcp_flags = tcp_flags;
	if ((family == AF4 && proto == P_ICMP) || (family == AF6 && proto == P_ICMPV6))
		p.icmp_type = icmp_type;
	return p;
}

static struct fc_pkt
tcp(uint8_t flags)
{
	return mkpkt(AF4, P_TCP, flags, 0);
}

/* Verdict fields that follow from the connection must agree with the helpers. */
static void
check_derived(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c, const struct mod_ct_verdict *v)
{
	uint16_t in[2];

	assert_int_equal(v->timeout, mod_ct_timeout(cfg, family, proto, c));
	mod_ct_interest(family, proto, c, in);
	assert_int_equal(v->interest[O], in[O]);
	assert_int_equal(v->interest[R], in[R]);
}

/* ------------------------------------------------------------------------ */
/* TCP scenarios                                                             */
/* ------------------------------------------------------------------------ */

#define END 0xff

struct tcp_step {
	uint8_t dir;     /* O, R, or END */
	uint8_t flags;   /* TCP flags of the segment */
	uint8_t state;   /* state after it */
	uint8_t ctstate; /* the segment's ctstate */
	uint8_t vflags;  /* verdict flags, exactly */
};

struct tcp_scenario {
	const char *name;
	bool strict;
	uint8_t first;    /* flags of the first segment, from the original side */
	uint8_t state0;   /* state after mod_ct_new(), NO if nothing is created */
	uint8_t ctstate0; /* its ctstate */
	struct tcp_step steps[20];
};

/* The common openings, as step lists to splice in. */
#define HANDSHAKE {R, F_SA, SR, EST, V_CH | V_CT}, {O, F_ACK, ES, EST, V_CH}

static const struct tcp_scenario tcp_scenarios[] = {
	{"handshake, data, close by the original side", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_PA, ES, EST, 0},
		{R, F_PA, ES, EST, 0},
		{O, F_FA, FW, EST, V_CH},
		{O, F_ACK, FW, EST, 0},     /* the closer's ACKs do not ack its own FIN */
		{R, F_ACK, CW, EST, V_CH},
		{R, F_PA, CW, EST, 0},      /* half-closed: the peer still sends */
		{O, F_ACK, CW, EST, 0},
		{R, F_FA, LA, EST, V_CH},
		{R, F_FA, LA, EST, 0},      /* retransmitted */
		{R, F_ACK, LA, EST, 0},     /* the last FIN's sender cannot ack it */
		{O, F_ACK, TW, EST, V_CH},
		{O, F_ACK, TW, EST, 0},
		{R, F_FA, TW, EST, 0},
		{END}}},
	{"handshake, close by the reply side", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{R, F_FA, FW, EST, V_CH},
		{R, F_ACK, FW, EST, 0},
		{O, F_ACK, CW, EST, V_CH},
		{R, F_FA, CW, EST, 0},      /* the closer again */
		{O, F_FA, LA, EST, V_CH},
		{O, F_ACK, LA, EST, 0},
		{R, F_ACK, TW, EST, V_CH},
		{END}}},
	{"the peer's FIN acknowledges ours", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_FA, FW, EST, V_CH},
		{R, F_FA, LA, EST, V_CH},
		{O, F_ACK, TW, EST, V_CH},
		{END}}},
	{"simultaneous close", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{R, F_FA, FW, EST, V_CH},
		{O, F_FA, LA, EST, V_CH},
		{O, F_ACK, LA, EST, 0},
		{R, F_ACK, TW, EST, V_CH},
		{END}}},
	{"retransmitted FIN in FIN_WAIT", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_FA, FW, EST, V_CH},
		{O, F_FA, FW, EST, 0},
		{O, F_FA | F_PSH, FW, EST, 0},
		{R, F_PA, CW, EST, V_CH},
		{END}}},
	{"simultaneous open", false, F_SYN, SS, NEW, {
		{R, F_SYN, S2, EST, V_CH | V_CT},
		{O, F_SYN, S2, EST, 0},
		{R, F_SYN, S2, EST, 0},
		{R, F_ACK, S2, EST, 0},     /* ignored */
		{O, F_ACK, S2, INV, 0},
		{O, F_FA, S2, INV, 0},
		{O, F_SA, SR, EST, V_CH},
		{R, F_SA, SR, EST, 0},
		{R, F_ACK, SR, EST, 0},     /* only the opener's ACK completes it */
		{O, F_ACK, ES, EST, V_CH},
		{END}}},
	{"simultaneous open, the reply side's SYN/ACK first", false, F_SYN, SS, NEW, {
		{R, F_SYN, S2, EST, V_CH | V_CT},
		{R, F_SA, SR, EST, V_CH},
		{O, F_SA, SR, EST, 0},
		{O, F_ACK, ES, EST, V_CH},
		{END}}},
	{"SYN_SENT: out-of-state segments", false, F_SYN, SS, NEW, {
		{O, F_SYN, SS, NEW, 0},     /* retransmitted SYN */
		{O, F_SA, SS, INV, 0},      /* SYN/ACK in the wrong direction */
		{O, F_ACK, SS, INV, 0},
		{O, F_FA, SS, INV, 0},
		{R, F_ACK, SS, INV, 0},     /* nothing to acknowledge yet */
		{R, F_FA, SS, INV, 0},
		{O, F_SYN | F_FIN, SS, INV, 0},
		{R, F_SA, SR, EST, V_CH | V_CT},
		{END}}},
	{"SYN_RECV: out-of-state segments", false, F_SYN, SS, NEW, {
		{R, F_SA, SR, EST, V_CH | V_CT},
		{O, F_SYN, SR, EST, 0},     /* retransmitted SYN: ignored */
		{R, F_SYN, SR, INV, 0},
		{R, F_SA, SR, EST, 0},      /* retransmitted SYN/ACK */
		{R, F_ACK, SR, EST, 0},
		{O, F_FA, FW, EST, V_CH},   /* FIN instead of the final ACK */
		{R, F_ACK, CW, EST, V_CH},
		{END}}},
	{"SYN_RECV: FIN from the reply side", false, F_SYN, SS, NEW, {
		{R, F_SA, SR, EST, V_CH | V_CT},
		{R, F_FA, FW, EST, V_CH},
		{O, F_FA, LA, EST, V_CH},
		{R, F_ACK, TW, EST, V_CH},
		{END}}},
	{"ESTABLISHED: SYNs and SYN/ACKs", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_SYN, ES, EST, 0},     /* ignored */
		{R, F_SYN, ES, INV, 0},
		{R, F_SA, ES, EST, 0},      /* late retransmission */
		{O, F_SA, ES, INV, 0},
		{END}}},
	{"malformed flag combinations", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_SYN | F_FIN, ES, INV, 0},
		{O, F_SYN | F_RST, ES, INV, 0},
		{O, 0, ES, INV, 0},          /* null scan */
		{O, F_FIN, ES, INV, 0},      /* FIN without ACK */
		{O, F_FIN | F_PSH | F_URG, ES, INV, 0}, /* xmas */
		{R, F_SA | F_URG, ES, INV, 0},
		{R, F_RST | F_URG, ES, INV, 0},
		{O, F_PSH, ES, INV, 0},
		{O, F_ACK | F_URG, ES, EST, 0},
		{O, F_ACK | 0x40 | 0x80, ES, EST, 0}, /* ECE, CWR do not matter */
		{END}}},
	{"reopen from TIME_WAIT by the original side", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_FA, FW, EST, V_CH},
		{R, F_FA, LA, EST, V_CH},
		{O, F_ACK, TW, EST, V_CH},
		{O, F_SA, TW, INV, 0},
		{R, F_SA, TW, EST, 0},
		{O, F_SYN, TW, NEW, V_RO},
		{END}}},
	{"reopen from TIME_WAIT by the reply side", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_FA, FW, EST, V_CH},
		{R, F_FA, LA, EST, V_CH},
		{O, F_ACK, TW, EST, V_CH},
		{R, F_SYN, TW, NEW, V_RO},
		{END}}},
	{"CLOSE lingers, then a SYN reopens", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_RA, CL, EST, V_CH | V_CL},
		{R, F_RST, CL, EST, V_CL},
		{O, F_ACK, CL, EST, V_CL},
		{R, F_FA, CL, EST, V_CL},
		{R, F_SA, CL, EST, V_CL},
		{O, F_SA, CL, INV, V_CL},
		{O, F_SYN, CL, NEW, V_RO},
		{END}}},
	{"TIME_WAIT then RST", false, F_SYN, SS, NEW, {
		HANDSHAKE,
		{O, F_FA, FW, EST, V_CH},
		{R, F_FA, LA, EST, V_CH},
		{O, F_ACK, TW, EST, V_CH},
		{R, F_RST, CL, EST, V_CH | V_CL},
		{R, F_SYN, CL, NEW, V_RO},
		{END}}},
	{"connection refused", false, F_SYN, SS, NEW, {
		{R, F_RA, CL, EST, V_CH | V_CT | V_CL},
		{END}}},
	{"opener aborts", false, F_SYN, SS, NEW, {
		{O, F_RST, CL, NEW, V_CH | V_CL},
		{O, F_SYN, CL, NEW, V_RO},
		{END}}},
	{"loose: a stray ACK is picked up", false, F_ACK, ES, NEW, {
		{O, F_PA, ES, NEW, 0},
		{O, F_SYN, ES, NEW, 0},
		{R, F_PA, ES, EST, V_CH | V_CT},
		{O, F_ACK, ES, EST, 0},
		{O, F_FA, FW, EST, V_CH},
		{END}}},
	{"loose: picked up, the reply side closes first", false, F_ACK | F_PSH, ES, NEW, {
		{R, F_FA, FW, EST, V_CH | V_CT},
		{O, F_FA, LA, EST, V_CH},
		{R, F_ACK, TW, EST, V_CH},
		{END}}},
	{"strict: a stray ACK is INVALID", true, F_ACK, NO, INV, {{END}}},
	{"strict: SYN opens", true, F_SYN, SS, NEW, {HANDSHAKE, {END}}},
	{"loose: FIN never opens", false, F_FA, NO, INV, {{END}}},
	{"strict: FIN never opens", true, F_FA, NO, INV, {{END}}},
	{"loose: RST never opens", false, F_RST, NO, INV, {{END}}},
	{"loose: RST+ACK never opens", false, F_RA, NO, INV, {{END}}},
	{"strict: RST never opens", true, F_RA, NO, INV, {{END}}},
	{"loose: SYN/ACK never opens", false, F_SA, NO, INV, {{END}}},
	{"strict: SYN/ACK never opens", true, F_SA, NO, INV, {{END}}},
	{"loose: garbage never opens", false, F_SYN | F_FIN, NO, INV, {{END}}},
	{"loose: null never opens", false, 0, NO, INV, {{END}}},
	{"SYN with URG opens", false, F_SYN | F_URG, SS, NEW, {{END}}},
};

static void
run_tcp_scenario(const struct tcp_scenario *sc)
{
	struct mod_ct_cfg cfg = cfg_make(sc->strict);
	struct fc_pkt p = tcp(sc->first);
	struct mod_ct_verdict v;
	struct mod_ct_conn c, before;
	unsigned int i;

	print_message("  %s\n", sc->name);
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(c.state, sc->state0);
	assert_int_equal(v.ctstate, sc->ctstate0);
	if (sc->state0 == NO) {
		assert_int_equal(v.flags, 0);
		assert_int_equal(c.flags, 0);
		/* Nothing tracked, nothing cacheable: show every packet of the tuple. */
		assert_int_equal(v.interest[O], I_A);
		assert_int_equal(v.interest[R], I_A);
		return;
	}
	assert_int_equal(v.flags, MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED);
	assert_int_equal(c.flags & MOD_CT_C_REPLIED, 0);
	assert_int_equal(!!(c.flags & MOD_CT_C_PICKUP), sc->state0 == ES);
	check_derived(&cfg, AF4, P_TCP, &c, &v);

	for (i = 0; sc->steps[i].dir != END; i++) {
		const struct tcp_step *st = &sc->steps[i];

		print_message("    step %u: %s flags 0x%02x\n", i, st->dir == O ? "orig" : "reply",
			st->flags);
		p = tcp(st->flags);
		before = c;
		assert_int_equal(mod_ct_packet(&cfg, &c, st->dir, &p, &v), 0);
		assert_int_equal(c.state, st->state);
		assert_int_equal(v.ctstate, st->ctstate);
		assert_int_equal(v.flags, st->vflags);
		if (st->ctstate == INV || (st->vflags & V_RO))
			assert_memory_equal(&c, &before, sizeof(c));
		if (!(v.flags & V_CH))
			assert_int_equal(mod_ct_conn_pack(&c), mod_ct_conn_pack(&before));
		check_derived(&cfg, AF4, P_TCP, &c, &v);
		if (st->vflags & V_RO) {
			/* The engine removes the connection and starts over. */
			assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
			assert_int_equal(c.state, SS);
			assert_int_equal(v.ctstate, NEW);
			assert_int_equal(c.flags, 0);
		}
	}
}

static void
test_tcp_scenarios(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(tcp_scenarios); i++)
		run_tcp_scenario(&tcp_scenarios[i]);
}

/* The ctstate each packet of a plain connection sees, in order. */
static void
test_tcp_ctstate_sequence(void **state)
{
	static const struct {
		uint8_t dir, flags, ctstate;
	} seq[] = {
		{O, F_SYN, NEW}, {O, F_SYN, NEW}, {R, F_SA, EST}, {O, F_ACK, EST}, {O, F_PA, EST},
		{R, F_PA, EST}, {O, F_FA, EST}, {R, F_FA, EST}, {O, F_ACK, EST},
	};
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;

	(void)state;
	p = tcp(seq[0].flags);
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(v.ctstate, seq[0].ctstate);
	/* What the fast path gives each side before the reply. */
	assert_int_equal(mod_ct_conn_ctstate(&c, O), NEW);
	assert_int_equal(mod_ct_conn_ctstate(&c, R), EST);
	for (i = 1; i < RTE_DIM(seq); i++) {
		p = tcp(seq[i].flags);
		assert_int_equal(mod_ct_packet(&cfg, &c, seq[i].dir, &p, &v), 0);
		assert_int_equal(v.ctstate, seq[i].ctstate);
		/* The CTSTATE flag comes exactly with the first reply. */
		assert_int_equal(!!(v.flags & V_CT), i == 2);
	}
	assert_int_equal(mod_ct_conn_ctstate(&c, O), EST);
	assert_int_equal(mod_ct_conn_ctstate(&c, R), EST);
}

/* ------------------------------------------------------------------------ */
/* Per-state table: how to reach each state, its timeout and interest        */
/* ------------------------------------------------------------------------ */

struct reach {
	const char *name;
	uint8_t first;         /* first segment (orig) */
	uint8_t path[6][2];    /* {dir, flags}, ended by {END} */
	uint8_t state;         /* state reached */
	uint8_t replied;
	uint32_t timeout;      /* default timeout, ms */
	uint16_t in_o, in_r;   /* interest masks */
};

static const struct reach reaches[] = {
	{"SYN_SENT", F_SYN, {{END}}, SS, 0, 120000, I_B, I_B | I_A},
	{"SYN_SENT2", F_SYN, {{R, F_SYN}, {END}}, S2, 1, 120000, I_B, I_B},
	{"SYN_RECV", F_SYN, {{R, F_SA}, {END}}, SR, 1, 60000, I_B | I_A, I_B},
	{"ESTABLISHED", F_SYN, {{R, F_SA}, {O, F_ACK}, {END}}, ES, 1, 432000000u, I_B, I_B},
	{"ESTABLISHED (picked up)", F_ACK, {{END}}, ES, 0, 300000, I_B, I_B | I_A},
	{"ESTABLISHED (picked up, replied)", F_ACK, {{R, F_ACK}, {END}}, ES, 1, 432000000u, I_B,
		I_B},
	{"FIN_WAIT (orig closed)", F_SYN, {{R, F_SA}, {O, F_ACK}, {O, F_FA}, {END}}, FW, 1,
		120000, I_B, I_B | I_A},
	{"FIN_WAIT (reply closed)", F_SYN, {{R, F_SA}, {O, F_ACK}, {R, F_FA}, {END}}, FW, 1,
		120000, I_B | I_A, I_B},
	{"FIN_WAIT (picked up, unreplied)", F_ACK, {{O, F_FA}, {END}}, FW, 0, 120000, I_B,
		I_B | I_A},
	{"CLOSE_WAIT", F_SYN, {{R, F_SA}, {O, F_ACK}, {O, F_FA}, {R, F_ACK}, {END}}, CW, 1, 60000,
		I_B, I_B},
	{"LAST_ACK (orig closed)", F_SYN, {{R, F_SA}, {O, F_ACK}, {O, F_FA}, {R, F_FA}, {END}},
		LA, 1, 30000, I_B | I_A, I_B},
	{"LAST_ACK (reply closed)", F_SYN, {{R, F_SA}, {O, F_ACK}, {R, F_FA}, {O, F_FA}, {END}},
		LA, 1, 30000, I_B, I_B | I_A},
	{"TIME_WAIT", F_SYN, {{R, F_SA}, {O, F_ACK}, {O, F_FA}, {R, F_FA}, {O, F_ACK}, {END}},
		TW, 1, 120000, I_B, I_B},
	{"CLOSE", F_SYN, {{R, F_SA}, {O, F_ACK}, {O, F_RST}, {END}}, CL, 1, 10000, I_B, I_B},
	{"CLOSE (unreplied)", F_SYN, {{O, F_RST}, {END}}, CL, 0, 10000, I_B, I_B | I_A},
};

/* Drive a fresh connection along @p r; the result must be @p r's state. */
static struct mod_ct_conn
reach_state(const struct mod_ct_cfg *cfg, const struct reach *r)
{
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p = tcp(r->first);
	unsigned int i;

	assert_int_equal(mod_ct_new(cfg, &p, &c, &v), 0);
	for (i = 0; r->path[i][0] != END; i++) {
		p = tcp(r->path[i][1]);
		assert_int_equal(mod_ct_packet(cfg, &c, r->path[i][0], &p, &v), 0);
		assert_int_not_equal(v.ctstate, INV);
	}
	assert_int_equal(c.state, r->state);
	assert_int_equal(!!(c.flags & MOD_CT_C_REPLIED), r->replied);
	return c;
}

static void
test_tcp_timeouts(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_cfg odd = cfg_make(false);
	struct mod_ct_conn c;
	unsigned int i, j, slot;

	(void)state;
	for (i = 0; i < RTE_DIM(reaches); i++) {
		print_message("  %s\n", reaches[i].name);
		c = reach_state(&cfg, &reaches[i]);
		assert_int_equal(mod_ct_timeout(&cfg, AF4, P_TCP, &c), reaches[i].timeout);
		assert_int_equal(mod_ct_timeout(&cfg, AF6, P_TCP, &c), reaches[i].timeout);
	}

	/*
	 * Each state reads its own slot: give every slot a distinct value, all
	 * above tcp_unreplied's, which then caps every unreplied state.
	 */
	for (j = 0; j < MOD_CT_TO__COUNT; j++)
		odd.timeout[j] = 2000000 - j;
	for (i = 0; i < RTE_DIM(reaches); i++) {
		c = reach_state(&odd, &reaches[i]);
		switch (c.state) {
		case SS: slot = MOD_CT_TO_TCP_SYN_SENT; break;
		case S2: slot = MOD_CT_TO_TCP_SYN_SENT2; break;
		case SR: slot = MOD_CT_TO_TCP_SYN_RECV; break;
		case ES: slot = MOD_CT_TO_TCP_ESTABLISHED; break;
		case FW: slot = MOD_CT_TO_TCP_FIN_WAIT; break;
		case CW: slot = MOD_CT_TO_TCP_CLOSE_WAIT; break;
		case LA: slot = MOD_CT_TO_TCP_LAST_ACK; break;
		case TW: slot = MOD_CT_TO_TCP_TIME_WAIT; break;
		default: slot = MOD_CT_TO_TCP_CLOSE; break;
		}
		if (!(c.flags & MOD_CT_C_REPLIED))
			slot = MOD_CT_TO_TCP_UNREPLIED;
		assert_int_equal(mod_ct_timeout(&odd, AF4, P_TCP, &c), odd.timeout[slot]);
	}

	/* tcp_unreplied caps every state until the reply. */
	odd = cfg_make(false);
	odd.timeout[MOD_CT_TO_TCP_UNREPLIED] = 7;
	c = reach_state(&odd, &reaches[0]); /* SYN_SENT */
	assert_int_equal(mod_ct_timeout(&odd, AF4, P_TCP, &c), 7);
	c = reach_state(&odd, &reaches[3]); /* ESTABLISHED, replied */
	assert_int_equal(mod_ct_timeout(&odd, AF4, P_TCP, &c), 432000000u);
}

static void
test_tcp_interest(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_conn c;
	uint16_t in[2];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(reaches); i++) {
		print_message("  %s\n", reaches[i].name);
		c = reach_state(&cfg, &reaches[i]);
		mod_ct_interest(AF4, P_TCP, &c, in);
		assert_int_equal(in[O], reaches[i].in_o);
		assert_int_equal(in[R], reaches[i].in_r);
	}
}

/* RST closes every state, from either side, with or without ACK. */
static void
test_tcp_rst_everywhere(void **state)
{
	static const uint8_t rsts[2] = {F_RST, F_RA};
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c, before;
	struct fc_pkt p;
	unsigned int i, dir, k;
	uint8_t expect;

	(void)state;
	for (i = 0; i < RTE_DIM(reaches); i++)
		for (dir = O; dir <= R; dir++)
			for (k = 0; k < 2; k++) {
				print_message("  %s, RST from %s\n", reaches[i].name,
					dir == O ? "orig" : "reply");
				before = reach_state(&cfg, &reaches[i]);
				c = before;
				p = tcp(rsts[k]);
				assert_int_equal(mod_ct_packet(&cfg, &c, dir, &p, &v), 0);
				assert_int_equal(c.state, CL);
				assert_int_equal(v.timeout, 10000);
				expect = V_CL;
				if (mod_ct_conn_pack(&c) != mod_ct_conn_pack(&before))
					expect |= V_CH;
				if (dir == R && !(before.flags & MOD_CT_C_REPLIED))
					expect |= V_CT;
				assert_int_equal(v.flags, expect);
				assert_int_equal(!!(v.flags & V_CH), before.state != CL ||
					(dir == R && !(before.flags & MOD_CT_C_REPLIED)));
				assert_int_equal(v.ctstate, dir == R ||
					(before.flags & MOD_CT_C_REPLIED) ? EST : NEW);
			}
}

/* ------------------------------------------------------------------------ */
/* The interest property                                                     */
/* ------------------------------------------------------------------------ */

/*
 * A packet that the interest mask of its entry does not select takes the
 * fast path: shown to the module anyway, it must change nothing, and its
 * ctstate must be the cached one (or INVALID, which the fast path cannot
 * tell: a documented approximation).
 */
static void
check_hidden(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *p)
{
	struct mod_ct_verdict v;
	struct mod_ct_conn copy = *c;

	assert_int_equal(mod_ct_packet(cfg, &copy, dir, p, &v), 0);
	assert_memory_equal(&copy, c, sizeof(copy));
	assert_int_equal(v.flags & (V_CH | V_CT | V_RO), 0);
	if (v.ctstate != INV)
		assert_int_equal(v.ctstate, mod_ct_conn_ctstate(c, dir));
}

static void
test_interest_exhaustive(void **state)
{
	static const struct {
		uint8_t family, proto;
	} protos[] = {
		{AF4, P_TCP}, {AF6, P_TCP}, {AF4, P_UDP}, {AF6, P_UDP}, {AF4, P_ICMP},
		{AF6, P_ICMPV6}, {AF4, P_GRE}, {AF6, P_SCTP}, {AF6, P_ICMP},
	};
	struct mod_ct_cfg cfgs[2] = {cfg_make(false), cfg_make(true)};
	unsigned int b, dir, f, i, k, hidden = 0, shown = 0;
	struct mod_ct_verdict v;
	struct mod_ct_conn c, copy;
	struct fc_pkt p;
	uint16_t in[2];

	(void)state;
	for (k = 0; k < 2; k++)
		for (i = 0; i < RTE_DIM(protos); i++)
			for (b = 0; b < 256; b++) {
				if (mod_ct_conn_unpack((uint8_t)b, &c) != 0 || c.state == NO)
					continue;
				mod_ct_interest(protos[i].family, protos[i].proto, &c, in);
				for (dir = O; dir <= R; dir++)
					for (f = 0; f < 256; f++) {
						p = mkpkt(protos[i].family, protos[i].proto,
							(uint8_t)f, (uint8_t)f);
						copy = c;
						/* Not a state of this protocol: next one. */
						if (mod_ct_packet(&cfgs[k], &copy, dir, &p, &v))
							break;
						if (wants(in[dir], &p)) {
							shown++;
							continue;
						}
						hidden++;
						check_hidden(&cfgs[k], &c, dir, &p);
					}
			}
	/* Both kinds occurred in numbers: the check had something to check. */
	assert_true(hidden > 10000);
	assert_true(shown > 10000);
}

static void
assert_verdict_equal(const struct mod_ct_verdict *a, const struct mod_ct_verdict *b)
{
	assert_int_equal(a->timeout, b->timeout);
	assert_int_equal(a->interest[O], b->interest[O]);
	assert_int_equal(a->interest[R], b->interest[R]);
	assert_int_equal(a->ctstate, b->ctstate);
	assert_int_equal(a->flags, b->flags);
}

/* xorshift64*: deterministic, so failures reproduce. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static uint8_t
rnd_tcp_flags(uint64_t *s)
{
	static const uint8_t common[] = {F_SYN, F_SA, F_ACK, F_PA, F_FA, F_RST, F_RA, F_ACK, F_PA};
	uint64_t r = rnd(s);

	if (r % 10 < 8)
		return common[(r >> 8) % RTE_DIM(common)];
	return (uint8_t)(r >> 16);
}

/*
 * Random walks: an engine that shows the module only the packets its
 * interest masks select must agree at every step with an oracle that shows
 * it every packet (same connection, same ctstate unless the oracle says
 * INVALID). Also checks that every verdict is self-consistent and that the
 * walks cover every TCP state.
 */
static void
walk(bool strict, uint8_t family, uint8_t proto, unsigned int n_conn, uint64_t seed,
	unsigned int *seen_states, unsigned int *seen_flags)
{
	struct mod_ct_cfg cfg = cfg_make(strict);
	struct mod_ct_conn eng, ora, before;
	struct mod_ct_verdict ve, vo;
	uint16_t interest[2];
	struct fc_pkt p;
	unsigned int i, n, dir;
	uint64_t s = seed;
	uint8_t cached[2];

	for (i = 0; i < n_conn; i++) {
		p = mkpkt(family, proto, rnd_tcp_flags(&s),
			rnd(&s) % 2 ? (family == AF4 ? 8 : 128) : (uint8_t)rnd(&s));
		assert_int_equal(mod_ct_new(&cfg, &p, &eng, &ve), 0);
		if (!(ve.flags & MOD_CT_VF_CREATED))
			continue;
		check_derived(&cfg, family, proto, &eng, &ve);
		ora = eng;
		interest[O] = ve.interest[O];
		interest[R] = ve.interest[R];
		cached[O] = (uint8_t)mod_ct_conn_ctstate(&eng, O);
		cached[R] = (uint8_t)mod_ct_conn_ctstate(&eng, R);
		for (n = 0; n < 40; n++) {
			seen_states[eng.state]++;
			dir = rnd(&s) & 1;
			if (proto == P_ICMP || proto == P_ICMPV6) {
				uint64_t r = rnd(&s);
				uint8_t req = family == AF4 ? 8 : 128;
				uint8_t rep = family == AF4 ? 0 : 129;

				p = mkpkt(family, proto, 0,
					r % 3 == 0 ? (uint8_t)(r >> 8) : (dir == O ? req : rep));
			} else {
				p = mkpkt(family, proto, rnd_tcp_flags(&s), 0);
			}

			/* The oracle sees everything. */
			before = ora;
			assert_int_equal(mod_ct_packet(&cfg, &ora, dir, &p, &vo), 0);
			*seen_flags |= vo.flags;
			check_derived(&cfg, family, proto, &ora, &vo);
			assert_int_equal(!!(vo.flags & V_CH),
				mod_ct_conn_pack(&ora) != mod_ct_conn_pack(&before));
			assert_int_equal(!!(vo.flags & V_CT),
				((ora.flags ^ before.flags) & MOD_CT_C_REPLIED) != 0);
			if (!(vo.flags & V_RO))
				assert_int_equal(!!(vo.flags & V_CL), ora.state == CL);
			if (vo.ctstate == INV)
				assert_memory_equal(&ora, &before, sizeof(ora));

			/* The engine only what it asked for. */
			if (wants(interest[dir], &p)) {
				assert_int_equal(mod_ct_packet(&cfg, &eng, dir, &p, &ve), 0);
				assert_verdict_equal(&ve, &vo);
				if (ve.flags & V_CH) {
					interest[O] = ve.interest[O];
					interest[R] = ve.interest[R];
				}
				if (ve.flags & V_CT) {
					cached[O] = (uint8_t)mod_ct_conn_ctstate(&eng, O);
					cached[R] = (uint8_t)mod_ct_conn_ctstate(&eng, R);
				}
			} else if (vo.ctstate != INV) {
				assert_int_equal(vo.ctstate, cached[dir]);
			}
			assert_memory_equal(&eng, &ora, sizeof(eng));
			if (vo.flags & V_RO)
				break; /* a new connection would start here */
		}
	}
}

static void
test_interest_random_walks(void **state)
{
	unsigned int seen_states[MOD_CT_S__COUNT] = {0};
	unsigned int seen_flags = 0, st;

	(void)state;
	walk(false, AF4, P_TCP, 20000, 0x9e3779b97f4a7c15ull, seen_states, &seen_flags);
	walk(true, AF6, P_TCP, 20000, 0x2545f4914f6cdd1dull, seen_states, &seen_flags);
	for (st = SS; st <= S2; st++) {
		print_message("  %-12s %u steps\n", mod_ct_state_name(st), seen_states[st]);
		assert_true(seen_states[st] > 100);
	}
	assert_true(seen_flags & V_RO);
	assert_true(seen_flags & V_CT);
	assert_true(seen_flags & V_CL);

	memset(seen_states, 0, sizeof(seen_states));
	walk(false, AF4, P_UDP, 2000, 1, seen_states, &seen_flags);
	walk(false, AF4, P_ICMP, 2000, 2, seen_states, &seen_flags);
	walk(false, AF6, P_ICMPV6, 2000, 3, seen_states, &seen_flags);
	walk(false, AF6, P_GRE, 2000, 4, seen_states, &seen_flags);
	assert_true(seen_states[OP] > 1000);
}

/* ------------------------------------------------------------------------ */
/* UDP, ICMP, other protocols                                                */
/* ------------------------------------------------------------------------ */

static void
test_udp(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(true); /* strictness is TCP's business */
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p = mkpkt(AF4, P_UDP, 0, 0);

	(void)state;
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(c.state, OP);
	assert_int_equal(v.ctstate, NEW);
	assert_int_equal(v.flags, MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED);
	assert_int_equal(v.timeout, 30000);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], I_A);

	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), 0);
	assert_int_equal(v.ctstate, NEW);
	assert_int_equal(v.flags, 0);
	assert_int_equal(v.timeout, 30000);

	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, V_CH | V_CT);
	assert_int_equal(v.timeout, 120000);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], 0);
	assert_int_equal(c.state, OP);
	assert_int_equal(c.flags, MOD_CT_C_REPLIED);

	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, 0);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, 0);

	/* IPv6 alike, and the configured timeouts are used. */
	cfg.timeout[MOD_CT_TO_UDP] = 11;
	cfg.timeout[MOD_CT_TO_UDP_REPLIED] = 22;
	p = mkpkt(AF6, P_UDP, 0, 0);
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(v.timeout, 11);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
	assert_int_equal(v.timeout, 22);
}

static void
test_generic(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;
	static const struct {
		uint8_t family, proto;
	} cases[] = {{AF4, P_GRE}, {AF6, P_SCTP}, {AF4, 50}, {AF6, P_ICMP}, {AF4, P_ICMPV6}};

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		p = mkpkt(cases[i].family, cases[i].proto, 0, 0);
		assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
		assert_int_equal(c.state, OP);
		assert_int_equal(v.ctstate, NEW);
		assert_int_equal(v.timeout, 600000);
		assert_int_equal(v.interest[R], I_A);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
		assert_int_equal(v.ctstate, EST);
		assert_int_equal(v.flags, V_CH | V_CT);
		assert_int_equal(v.timeout, 600000);
		assert_int_equal(v.interest[O], 0);
		assert_int_equal(v.interest[R], 0);
	}
}

struct icmp_case {
	const char *name;
	uint8_t family;
	uint8_t type;
	uint8_t created; /* 1: a connection */
	uint8_t ctstate; /* of the first packet */
};

static const struct icmp_case icmp_new_cases[] = {
	{"echo request", AF4, 8, 1, NEW},
	{"timestamp request", AF4, 13, 1, NEW},
	{"information request", AF4, 15, 1, NEW},
	{"address mask request", AF4, 17, 1, NEW},
	{"unsolicited echo reply", AF4, 0, 0, INV},
	{"unsolicited timestamp reply", AF4, 14, 0, INV},
	{"destination unreachable", AF4, 3, 0, INV},
	{"time exceeded", AF4, 11, 0, INV},
	{"router advertisement", AF4, 9, 0, INV},
	{"v6 echo request", AF6, 128, 1, NEW},
	{"v6 node information query", AF6, 139, 1, NEW},
	{"v6 unsolicited echo reply", AF6, 129, 0, INV},
	{"v6 packet too big", AF6, 2, 0, INV},
	{"v6 MLD query", AF6, 130, 0, 0},
	{"v6 router solicitation", AF6, 133, 0, 0},
	{"v6 neighbour solicitation", AF6, 135, 0, 0},
	{"v6 neighbour advertisement", AF6, 136, 0, 0},
	{"v6 MLDv2 report", AF6, 143, 0, 0},
	{"v6 redirect", AF6, 137, 0, INV},
};

static void
test_icmp_new(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(icmp_new_cases); i++) {
		const struct icmp_case *t = &icmp_new_cases[i];

		print_message("  %s\n", t->name);
		p = mkpkt(t->family, t->family == AF4 ? P_ICMP : P_ICMPV6, 0, t->type);
		assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
		assert_int_equal(v.ctstate, t->ctstate);
		assert_int_equal(!!(v.flags & MOD_CT_VF_CREATED), t->created);
		assert_int_equal(c.state, t->created ? OP : NO);
		assert_int_equal(v.timeout, 30000);
		if (t->created) {
			assert_int_equal(v.interest[O], 0);
			assert_int_equal(v.interest[R], I_A);
		} else if (t->ctstate == 0) {
			/* Untracked is a stable answer for the tuple. */
			assert_int_equal(v.interest[O], 0);
			assert_int_equal(v.interest[R], 0);
		} else {
			assert_int_equal(v.interest[O], I_A);
			assert_int_equal(v.interest[R], I_A);
		}
	}
}

static void
test_icmp_echo(void **state)
{
	static const uint8_t req[2] = {8, 128}, rep[2] = {0, 129};
	static const uint8_t fam[2] = {AF4, AF6}, proto[2] = {P_ICMP, P_ICMPV6};
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
		assert_int_equal(v.ctstate, NEW);
		/* Another request (next sequence number). */
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), 0);
		assert_int_equal(v.ctstate, NEW);
		assert_int_equal(v.flags, 0);
		/* Wrong types in either direction. */
		p = mkpkt(fam[i], proto[i], 0, rep[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), 0);
		assert_int_equal(v.ctstate, INV);
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
		assert_int_equal(v.ctstate, INV);
		assert_int_equal(v.flags, 0);
		assert_int_equal(c.flags, 0);
		/* The reply. */
		p = mkpkt(fam[i], proto[i], 0, rep[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, &v), 0);
		assert_int_equal(v.ctstate, EST);
		assert_int_equal(v.flags, V_CH | V_CT);
		assert_int_equal(v.timeout, 30000);
		assert_int_equal(v.interest[O], 0);
		assert_int_equal(v.interest[R], 0);
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), 0);
		assert_int_equal(v.ctstate, EST);
	}
}

static void
test_fragments(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;

	(void)state;
	/* A non-first fragment has no L4 header: not tracked. */
	p = mkpkt(AF4, P_TCP, 0, 0);
	p.frag = FC_FRAG_LATER;
	p.l4_off = 0;
	p.key.v4.sport = 0;
	p.key.v4.dport = 0;
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(v.ctstate, 0);
	assert_int_equal(v.flags, 0);
	assert_int_equal(c.state, NO);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], 0);
	assert_int_equal(v.timeout, 600000);

	/* A first fragment carries the header: tracked as usual. */
	p = mkpkt(AF6, P_TCP, F_SYN, 0);
	p.frag = FC_FRAG_FIRST;
	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	assert_int_equal(c.state, SS);
}

/* ------------------------------------------------------------------------ */
/* Configuration, encoding, names, bad arguments                             */
/* ------------------------------------------------------------------------ */

static void
test_cfg(void **state)
{
	static const struct {
		const char *name;
		uint32_t ms;
	} defaults[] = {
		{"tcp_syn_sent", 120000}, {"tcp_syn_recv", 60000},
		{"tcp_established", 432000000u}, {"tcp_fin_wait", 120000},
		{"tcp_close_wait", 60000}, {"tcp_last_ack", 30000}, {"tcp_time_wait", 120000},
		{"tcp_close", 10000}, {"tcp_syn_sent2", 120000}, {"tcp_unreplied", 300000},
		{"udp", 30000}, {"udp_replied", 120000}, {"icmp", 30000}, {"generic", 600000},
	};
	struct mod_ct_cfg cfg;
	unsigned int i;
	int to;

	(void)state;
	mod_ct_cfg_init(&cfg);
	assert_false(cfg.tcp_strict);
	assert_int_equal(mod_ct_cfg_check(&cfg), 0);
	assert_int_equal(RTE_DIM(defaults), MOD_CT_TO__COUNT);
	for (i = 0; i < RTE_DIM(defaults); i++) {
		to = mod_ct_timeout_find(defaults[i].name);
		assert_true(to >= 0);
		assert_string_equal(mod_ct_timeout_name((unsigned int)to), defaults[i].name);
		assert_int_equal(cfg.timeout[to], defaults[i].ms);
	}
	assert_string_equal(mod_ct_timeout_name(MOD_CT_TO__COUNT), "?");
	assert_int_equal(mod_ct_timeout_find("tcp_establishe"), -ENOENT);
	assert_int_equal(mod_ct_timeout_find(""), -ENOENT);
	assert_int_equal(mod_ct_timeout_find(NULL), -EINVAL);
	for (i = 0; i < MOD_CT_TO__COUNT; i++) {
		mod_ct_cfg_init(&cfg);
		cfg.timeout[i] = 0;
		assert_int_equal(mod_ct_cfg_check(&cfg), -EINVAL);
	}
	assert_int_equal(mod_ct_cfg_check(NULL), -EINVAL);
}

static void
test_pack(void **state)
{
	struct mod_ct_conn c;
	unsigned int b, valid = 0;

	(void)state;
	for (b = 0; b < 256; b++) {
		if (mod_ct_conn_unpack((uint8_t)b, &c) != 0) {
			assert_int_equal(c.state, NO);
			assert_int_equal(c.flags, 0);
			continue;
		}
		valid++;
		assert_int_equal(mod_ct_conn_pack(&c), b);
	}
	assert_int_equal(valid, MOD_CT_S__COUNT * (MOD_CT_C_ALL + 1));
	/* The zero byte of a fresh entry is "not tracked". */
	assert_int_equal(mod_ct_conn_unpack(0, &c), 0);
	assert_int_equal(c.state, NO);
	assert_int_equal(mod_ct_conn_unpack(0x80, &c), -EINVAL);
	assert_int_equal(mod_ct_conn_unpack(MOD_CT_S__COUNT, &c), -EINVAL);
}

static void
test_names(void **state)
{
	static const char *const names[MOD_CT_S__COUNT] = {
		"NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT", "CLOSE_WAIT",
		"LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2", "OPEN",
	};
	static const struct {
		struct mod_ct_conn c;
		const char *text;
	} fmt[] = {
		{{ES, MOD_CT_C_REPLIED}, "ESTABLISHED replied"},
		{{ES, MOD_CT_C_PICKUP}, "ESTABLISHED unreplied pickup"},
		{{FW, MOD_CT_C_REPLIED | MOD_CT_C_CLOSER_REPLY}, "FIN_WAIT replied closer=reply"},
		{{LA, MOD_CT_C_REPLIED}, "LAST_ACK replied closer=orig"},
		{{OP, 0}, "OPEN unreplied"},
		{{NO, 0}, "NONE unreplied"},
	};
	struct mod_ct_conn bad = {MOD_CT_S__COUNT, 0};
	char buf[48];
	unsigned int i;

	(void)state;
	for (i = 0; i < MOD_CT_S__COUNT; i++)
		assert_string_equal(mod_ct_state_name(i), names[i]);
	assert_string_equal(mod_ct_state_name(MOD_CT_S__COUNT), "?");
	for (i = 0; i < RTE_DIM(fmt); i++) {
		assert_int_equal(mod_ct_conn_format(&fmt[i].c, buf, sizeof(buf)),
			(int)strlen(fmt[i].text));
		assert_string_equal(buf, fmt[i].text);
	}
	/* The longest text fits the documented 48 bytes. */
	bad.state = MOD_CT_S_ESTABLISHED;
	bad.flags = MOD_CT_C_ALL;
	assert_true(mod_ct_conn_format(&bad, buf, sizeof(buf)) > 0);
	bad.state = MOD_CT_S_CLOSE_WAIT;
	assert_true(mod_ct_conn_format(&bad, buf, sizeof(buf)) > 0);
	assert_int_equal(mod_ct_conn_format(&fmt[0].c, buf, 5), -ENOSPC);
	bad.state = MOD_CT_S__COUNT;
	assert_int_equal(mod_ct_conn_format(&bad, buf, sizeof(buf)), -EINVAL);
	bad.state = ES;
	bad.flags = 0x08;
	assert_int_equal(mod_ct_conn_format(&bad, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mod_ct_conn_format(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mod_ct_conn_format(&fmt[0].c, NULL, 8), -EINVAL);
}

static void
test_bad_args(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c, keep;
	struct fc_pkt p = tcp(F_SYN), u = mkpkt(AF4, P_UDP, 0, 0), none = tcp(F_SYN);

	(void)state;
	none.key.family = FC_AF_NONE;
	assert_int_equal(mod_ct_new(NULL, &p, &c, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, NULL, &c, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &p, &c, NULL), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &none, &c, &v), -EINVAL);

	assert_int_equal(mod_ct_new(&cfg, &p, &c, &v), 0);
	keep = c;
	assert_int_equal(mod_ct_packet(NULL, &c, O, &p, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, NULL, O, &p, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, NULL, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, 2, &p, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &none, &v), -EINVAL);
	/* A TCP connection does not take a UDP packet, nor the reverse. */
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &u, &v), -EINVAL);
	assert_memory_equal(&c, &keep, sizeof(c));
	c.state = OP;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), -EINVAL);
	c.state = NO;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &u, &v), -EINVAL);
	c.state = MOD_CT_S__COUNT;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), -EINVAL);
	c.state = ES;
	c.flags = 0x80;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, &v), -EINVAL);
	assert_int_equal(c.state, ES);
	assert_int_equal(c.flags, 0x80);
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_TCP, &c), 0);
	assert_int_equal(mod_ct_conn_ctstate(&c, O), 0);

	/* Helpers on mismatched or empty connections. */
	c.state = OP;
	c.flags = 0;
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_TCP, &c), 0);
	c.state = ES;
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_UDP, &c), 0);
	c.state = NO;
	assert_int_equal(mod_ct_conn_ctstate(&c, R), 0);
	{
		uint16_t in[2] = {1, 1};

		mod_ct_interest(AF4, P_TCP, &c, in);
		assert_int_equal(in[O], 0);
		assert_int_equal(in[R], 0);
		c.state = OP;
		mod_ct_interest(AF4, P_TCP, &c, in);
		assert_int_equal(in[O], 0);
		assert_int_equal(in[R], 0);
	}
}

static void
test_interest_match(void **state)
{
	struct fc_pkt t = tcp(F_SA), u = mkpkt(AF6, P_UDP, 0, 0);

	(void)state;
	assert_true(wants(FC_INTEREST_TCP_SYN, &t));
	assert_false(wants(FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST, &t));
	assert_true(wants(FC_INTEREST_ALL, &t));
	assert_false(wants(0, &t));
	t = tcp(F_FA);
	assert_true(wants(FC_INTEREST_TCP_FIN, &t));
	t = tcp(F_RA);
	assert_true(wants(FC_INTEREST_TCP_RST, &t));
	t = tcp(F_PA);
	assert_false(wants(I_B, &t));
	assert_false(wants(I_B, &u));
	assert_true(wants(FC_INTEREST_ALL, &u));
}

/* ------------------------------------------------------------------------ */
/* ICMP errors: the quoted packet's key                                      */
/* ------------------------------------------------------------------------ */

#define FRAME_MAX 2048

/* Mutations of the quoted bytes. */
enum mut {
	MUT_NONE,
	MUT_VERSION,   /* IP version 5 (v4) / 4 (v6) */
	MUT_IHL_SHORT, /* IHL 4 */
	MUT_IHL_LONG,  /* IHL 15: options beyond the quote */
	MUT_TOTLEN,    /* total length below the header */
};

struct inner_case {
	const char *name;
	uint8_t family;       /* outer */
	uint8_t type, code;   /* outer ICMP */
	uint8_t inner_family; /* quoted packet */
	uint8_t proto;        /* quoted L4: TCP, UDP, SCTP, ICMP(v6) or raw */
	uint8_t qtype;        /* quoted ICMP type */
	uint8_t v4_opts;      /* quoted IPv4 options bytes */
	uint8_t ext[10];      /* quoted IPv6 extension headers, in order */
	uint8_t n_ext;
	uint16_t frag_off;    /* quoted packet is a fragment */
	bool mf;
	uint8_t n_vlan;       /* outer tags */
	uint32_t quote;       /* bytes of the quoted packet, 0 = all */
	enum mut mut;
	int expect;
	uint32_t need;        /* expect 0: fewest quoted bytes that work */
};

static const struct inner_case inner_cases[] = {
	{"v4 port unreachable, udp", AF4, 3, 3, AF4, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 time exceeded, tcp", AF4, 11, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 parameter problem, tcp with options", AF4, 12, 0, AF4, P_TCP, 0, 8, {0}, 0, 0, 0, 0,
		0, 0, 0, 36},
	{"v4 fragmentation needed, echo request", AF4, 3, 4, AF4, P_ICMP, 8, 0, {0}, 0, 0, 0, 0,
		0, 0, 0, 28},
	{"v4 host unreachable, echo reply", AF4, 3, 1, AF4, P_ICMP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 28},
	{"v4 unreachable, timestamp request", AF4, 3, 1, AF4, P_ICMP, 13, 0, {0}, 0, 0, 0, 0, 0,
		0, 0, 28},
	{"v4 source quench, sctp", AF4, 4, 0, AF4, P_SCTP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 redirect, gre", AF4, 5, 1, AF4, P_GRE, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 20},
	{"v4 unreachable behind two vlan tags", AF4, 3, 3, AF4, P_UDP, 0, 0, {0}, 0, 0, 0, 2, 0,
		0, 0, 28},
	{"v4 quote of 28 bytes only", AF4, 3, 13, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 28, 0, 0,
		28},
	{"v4 quoting a first fragment", AF4, 11, 1, AF4, P_UDP, 0, 0, {0}, 0, 0, true, 0, 0, 0,
		0, 28},
	{"v4 quoting a later fragment", AF4, 11, 1, AF4, P_UDP, 0, 0, {0}, 0, 64, false, 0, 0, 0,
		-ENOENT, 0},
	{"v4 quoting an icmp error", AF4, 3, 1, AF4, P_ICMP, 11, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 echo request is no error", AF4, 8, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 echo reply is no error", AF4, 0, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 router advertisement is no error", AF4, 9, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0,
		0, -ENOENT, 0},
	{"v4 quoting ipv6", AF4, 3, 1, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v4 bad quoted version", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_VERSION,
		-EINVAL, 0},
	{"v4 quoted ihl 4", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_IHL_SHORT,
		-EINVAL, 0},
	{"v4 quoted ihl beyond the quote", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 40,
		MUT_IHL_LONG, -EINVAL, 0},
	{"v4 quoted total length below ihl", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0,
		MUT_TOTLEN, -EINVAL, 0},
	{"v4 quote with 4 bytes of tcp", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 24, 0,
		-EINVAL, 0},
	{"v4 quote with 7 bytes of echo", AF4, 3, 1, AF4, P_ICMP, 8, 0, {0}, 0, 0, 0, 0, 27, 0,
		-EINVAL, 0},
	{"v4 quote of 19 bytes", AF4, 3, 1, AF4, P_GRE, 0, 0, {0}, 0, 0, 0, 0, 19, 0, -EINVAL,
		0},
	{"v6 port unreachable, udp", AF6, 1, 4, AF6, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 48},
	{"v6 packet too big, tcp", AF6, 2, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 48},
	{"v6 time exceeded, tcp after hop-by-hop and dstopts", AF6, 3, 0, AF6, P_TCP, 0, 0,
		{PB_PROTO_HOPOPTS, PB_PROTO_DSTOPTS}, 2, 0, 0, 0, 0, 0, 0, 72},
	{"v6 unreachable, tcp after routing", AF6, 1, 0, AF6, P_TCP, 0, 0, {PB_PROTO_ROUTING}, 1,
		0, 0, 1, 0, 0, 0, 56},
	{"v6 parameter problem, echo request", AF6, 4, 1, AF6, P_ICMPV6, 128, 0, {0}, 0, 0, 0, 0,
		0, 0, 0, 48},
	{"v6 unreachable, icmpv4 in ipv6 (ports 0)", AF6, 1, 0, AF6, P_ICMP, 0, 0, {0}, 0, 0, 0,
		0, 0, 0, 0, 40},
	{"v6 quoting a first fragment", AF6, 3, 1, AF6, P_UDP, 0, 0, {PB_PROTO_FRAGMENT}, 1, 0,
		true, 0, 0, 0, 0, 56},
	{"v6 quoting a later fragment", AF6, 3, 1, AF6, P_UDP, 0, 0, {PB_PROTO_FRAGMENT}, 1, 8,
		false, 0, 0, 0, -ENOENT, 0},
	{"v6 quoting an icmpv6 error", AF6, 1, 0, AF6, P_ICMPV6, 2, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v6 extension chain too long", AF6, 1, 0, AF6, P_TCP, 0, 0,
		{PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS,
			PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS,
			PB_PROTO_DSTOPTS},
		9, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v6 quoting ipv4", AF6, 1, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v6 bad quoted version", AF6, 1, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_VERSION,
		-EINVAL, 0},
	{"v6 quote cut in the extension header", AF6, 1, 0, AF6, P_TCP, 0, 0, {PB_PROTO_DSTOPTS},
		0 + 1, 0, 0, 0, 47, 0, -EINVAL, 0},
	{"v6 echo request is no error", AF6, 128, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v6 neighbour solicitation is no error", AF6, 135, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0,
		0, 0, -ENOENT, 0},
};

/* Build the quoted packet as a whole frame; returns its length, *l3 its IP offset. */
static uint32_t
build_inner(const struct inner_case *t, uint8_t *buf, uint32_t *l3)
{
	static const uint8_t opts[40] = {1, 1, 1, 1, 1, 1, 1, 1}; /* NOPs, then EOLs */
	struct pb b;
	unsigned int i;
	int len;

	pb_init(&b, buf, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	if (t->inner_family == AF4) {
		struct pb_ipv4 ip = {
			.src = 0xc0000201,
			.dst = 0xc6336407,
			.id = 0x4242,
			.frag_off = t->frag_off,
			.mf = t->mf,
			.opts = t->v4_opts ? opts : NULL,
			.opts_len = t->v4_opts,
		};

		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip = {.flow = 0x12345};

		memcpy(ip.src, v6_a, 16);
		memcpy(ip.dst, v6_b, 16);
		pb_ipv6(&b, &ip);
		for (i = 0; i < t->n_ext; i++) {
			if (t->ext[i] == PB_PROTO_FRAGMENT)
				pb_ipv6_frag(&b, t->frag_off, t->mf, 0x77);
			else
				pb_ipv6_ext(&b, t->ext[i],
					t->ext[i] == PB_PROTO_DSTOPTS && i == 1 ? 16 : 8);
		}
	}
	if (t->frag_off != 0) {
		pb_l4_raw(&b, t->proto, NULL, 16); /* no L4 header in a later fragment */
	} else {
		switch (t->proto) {
		case P_TCP:
			pb_tcp(&b, 40000, 443, F_SYN, 1000, 0, 0);
			break;
		case P_UDP:
			pb_udp(&b, 5353, 53);
			break;
		case P_SCTP:
			pb_sctp(&b, 2905, 2905, 0xdeadbeef);
			break;
		case P_ICMP:
			if (t->inner_family == AF4)
				pb_icmp(&b, t->qtype, 0, 0x1234, 7);
			else
				pb_l4_raw(&b, P_ICMP, NULL, 8);
			break;
		case P_ICMPV6:
			pb_icmp6(&b, t->qtype, 0, 0x1234, 7);
			break;
		default:
			pb_l4_raw(&b, t->proto, NULL, 8);
			break;
		}
	}
	pb_payload(&b, NULL, 24);
	len = pb_finish(&b);
	assert_true(len > 0);
	*l3 = b.l3_off;
	return (uint32_t)len;
}

/*
 * Build the ICMP error frame quoting @p t's packet. *expect receives the
 * parser's key of the quoted packet, *qlen the bytes quoted.
 */
static uint32_t
build_error(const struct inner_case *t, uint8_t *out, struct fc_key *expect, uint32_t *qlen)
{
	uint8_t inner[FRAME_MAX], quote[FRAME_MAX];
	struct fc_pkt ip;
	struct pb b;
	uint32_t ilen, l3, n;
	unsigned int i;
	int len, res;

	ilen = build_inner(t, inner, &l3);
	res = fc_parse(inner, ilen, &ip);
	if (t->expect == 0)
		assert_true(res == FC_PARSE_OK || res == FC_PARSE_FRAG_FIRST);
	*expect = ip.key;
	n = ilen - l3;
	if (t->quote != 0 && t->quote < n)
		n = t->quote;
	memcpy(quote, inner + l3, n);
	switch (t->mut) {
	case MUT_VERSION:
		quote[0] = (uint8_t)((quote[0] & 0x0f) | (t->inner_family == AF4 ? 0x50 : 0x40));
		break;
	case MUT_IHL_SHORT:
		quote[0] = 0x44;
		break;
	case MUT_IHL_LONG:
		quote[0] = 0x4f;
		break;
	case MUT_TOTLEN:
		quote[2] = 0;
		quote[3] = 16;
		break;
	default:
		break;
	}
	*qlen = n;

	pb_init(&b, out, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	for (i = 0; i < t->n_vlan; i++)
		pb_vlan(&b, i == 0 && t->n_vlan == 2 ? PB_TPID_8021AD : PB_TPID_8021Q, 10);
	if (t->family == AF4) {
		struct pb_ipv4 o = {.src = 0xcb007101, .dst = 0xc0000201}; /* router -> host */

		pb_ipv4(&b, &o);
		pb_icmp(&b, t->type, t->code, 0, 0);
	} else {
		struct pb_ipv6 o = {0};

		memcpy(o.src, v6_r, 16);
		memcpy(o.dst, v6_a, 16);
		pb_ipv6(&b, &o);
		pb_icmp6(&b, t->type, t->code, 0, 0);
	}
	pb_payload(&b, quote, n);
	len = pb_finish(&b);
	assert_true(len > 0);
	return (uint32_t)len;
}

/* The error types of RFC 792 / RFC 4443 that quote a packet. */
static bool
is_error_type(uint8_t family, uint8_t type)
{
	static const uint8_t v4[] = {3, 4, 5, 11, 12}, v6[] = {1, 2, 3, 4};
	unsigned int i;

	if (family == AF4) {
		for (i = 0; i < RTE_DIM(v4); i++)
			if (type == v4[i])
				return true;
		return false;
	}
	for (i = 0; i < RTE_DIM(v6); i++)
		if (type == v6[i])
			return true;
	return false;
}

/* mod_ct_icmp_inner_key() on an exactly sized heap copy of the first @p len bytes. */
static int
inner_key_copy(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt, struct fc_key *k)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	ret = mod_ct_icmp_inner_key(copy, len, pkt, k);
	free(copy);
	return ret;
}

static void
test_icmp_inner_key(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen, qstart, cut;
	unsigned int i;
	int ret;

	(void)state;
	for (i = 0; i < RTE_DIM(inner_cases); i++) {
		const struct inner_case *t = &inner_cases[i];

		print_message("  %s\n", t->name);
		len = build_error(t, frame, &expect, &qlen);
		assert_int_equal(fc_parse(frame, len, &pkt), FC_PARSE_OK);
		assert_int_equal(mod_ct_icmp_is_error(&pkt), is_error_type(t->family, t->type));
		memset(&k, 0xa5, sizeof(k));
		ret = inner_key_copy(frame, len, &pkt, &k);
		assert_int_equal(ret, t->expect);
		if (ret != 0)
			continue;
		/* The key the parser gives the quoted packet itself. */
		assert_memory_equal(&k, &expect, sizeof(k));

		/* Truncation sweep: works from exactly @need quoted bytes on. */
		qstart = pkt.l4_off + 8u;
		assert_true(qlen >= t->need);
		for (cut = 0; cut <= len; cut++) {
			ret = inner_key_copy(frame, cut, &pkt, &k);
			if (cut < qstart + t->need) {
				assert_int_equal(ret, -EINVAL);
			} else {
				assert_int_equal(ret, 0);
				assert_memory_equal(&k, &expect, sizeof(k));
			}
		}
	}
}

/* The quote ends with the outer datagram, not with the frame (Ethernet padding). */
static void
test_icmp_inner_key_padding(void **state)
{
	const struct inner_case t = {"v4 tcp, 24-byte quote, padded", AF4, 3, 1, AF4, P_TCP, 0,
		0, {0}, 0, 0, 0, 0, 24, 0, -EINVAL, 0};
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	/* Pad with bytes that would complete the TCP ports if they were read. */
	memset(frame + len, 0x11, 64);
	assert_int_equal(fc_parse(frame, len + 64, &pkt), FC_PARSE_OK);
	assert_int_equal(inner_key_copy(frame, len + 64, &pkt, &k), -EINVAL);

	/* Same with a full 28-byte quote: padding does not disturb it. */
	{
		const struct inner_case t2 = {"v4 tcp, 28-byte quote, padded", AF4, 3, 1, AF4,
			P_TCP, 0, 0, {0}, 0, 0, 0, 0, 28, 0, 0, 28};

		len = build_error(&t2, frame, &expect, &qlen);
		memset(frame + len, 0x22, 64);
		assert_int_equal(fc_parse(frame, len + 64, &pkt), FC_PARSE_OK);
		assert_int_equal(inner_key_copy(frame, len + 64, &pkt, &k), 0);
		assert_memory_equal(&k, &expect, sizeof(k));
	}
}

/* An ICMP error sent as fragments: the first one is enough if it holds the quote. */
static void
test_icmp_inner_key_fragments(void **state)
{
	const struct inner_case t = {"v4 tcp", AF4, 3, 3, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 28};
	uint8_t frame[FRAME_MAX], frag[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen;
	int flen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	/* First fragment: 8 bytes of ICMP + 32 of quote. */
	flen = pb_ipv4_fragment(frame, len, 14, 0, 40, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_FIRST);
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), 0);
	assert_memory_equal(&k, &expect, sizeof(k));
	/* First fragment too short for the quoted ports. */
	flen = pb_ipv4_fragment(frame, len, 14, 0, 32, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_FIRST);
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), -EINVAL);
	/* A later fragment has no ICMP header at all. */
	flen = pb_ipv4_fragment(frame, len, 14, 40, len - 14 - 20 - 40, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_LATER);
	assert_false(mod_ct_icmp_is_error(&pkt));
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), -EINVAL);
}

static void
test_icmp_inner_key_bad_args(void **state)
{
	const struct inner_case t = {"v6 udp", AF6, 1, 4, AF6, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 48};
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt, bad;
	uint32_t len, qlen;
	struct pb b;
	int flen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	assert_int_equal(fc_parse(frame, len, &pkt), FC_PARSE_OK);
	assert_int_equal(mod_ct_icmp_inner_key(NULL, len, &pkt, &k), -EINVAL);
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, NULL, &k), -EINVAL);
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, &pkt, NULL), -EINVAL);
	assert_false(mod_ct_icmp_is_error(NULL));
	bad = pkt;
	bad.key.family = FC_AF_NONE;
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, &bad, &k), -EINVAL);
	/* Offsets that point past the frame are refused, not followed. */
	bad = pkt;
	bad.l4_off = (uint16_t)(len - 4);
	assert_int_equal(inner_key_copy(frame, len, &bad, &k), -EINVAL);
	bad.l4_off = 0xfff0;
	assert_int_equal(inner_key_copy(frame, len, &bad, &k), -EINVAL);

	/* Not ICMP at all: a UDP packet whose payload looks like an IP header. */
	pb_init(&b, frame, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	{
		struct pb_ipv4 o = {.src = 1, .dst = 2};

		pb_ipv4(&b, &o);
	}
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 64);
	flen = pb_finish(&b);
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frame, (uint32_t)flen, &pkt), FC_PARSE_OK);
	pkt.icmp_type = 3; /* even if a caller confused the fields */
	assert_false(mod_ct_icmp_is_error(&pkt));
	assert_int_equal(inner_key_copy(frame, (uint32_t)flen, &pkt, &k), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_scenarios),
		cmocka_unit_test(test_tcp_ctstate_sequence),
		cmocka_unit_test(test_tcp_timeouts),
		cmocka_unit_test(test_tcp_interest),
		cmocka_unit_test(test_tcp_rst_everywhere),
		cmocka_unit_test(test_interest_exhaustive),
		cmocka_unit_test(test_interest_random_walks),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_icmp_new),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_cfg),
		cmocka_unit_test(test_pack),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_interest_match),
		cmocka_unit_test(test_icmp_inner_key),
		cmocka_unit_test(test_icmp_inner_key_padding),
		cmocka_unit_test(test_icmp_inner_key_fragments),
		cmocka_unit_test(test_icmp_inner_key_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
