/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_tcp.c — TCP connection tracking
 * (lib/modules/conntrack/ct_tcp.c and the fast path's window check), pure,
 * no EAL.
 *
 * Scripted conversations: every segment is a frame built with pkt_build
 * (options, SACK blocks and payload included) and parsed with fc_parse(),
 * then handed to mod_ct_new() / mod_ct_packet(); each step checks the
 * segment's ctstate, the state after it and, where it matters, the
 * verdict flags and the windows. Covered: handshakes with and without
 * window scaling, data both ways, retransmissions and the retransmission
 * timeout, segments beyond and below the windows, ACKs of data never sent,
 * SACK blocks, stray ACKs (loose pickup and strict), invalid flag
 * combinations, RSTs in and out of window and before any reply, FIN
 * exchanges from either side and crossing, simultaneous open, reopening by
 * SYN, challenge ACKs, be_liberal; interest masks and timeouts per state.
 *
 * Lockstep: random conversations (endpoints exchanging data, ACKs, window
 * updates, retransmissions, keepalives and segments that fit nowhere) go
 * once through a connection that sees every segment and once through the
 * fast path's emulation (interest masks, mod_ct_fast_check() on a
 * fast-path line, mod_ct_fast_fold() / mod_ct_fast_arm() around the slow
 * path): both must give every segment the same ctstate and end in the
 * same state. (Linux itself is the reference of the netfilter_conntrack
 * integration test.)
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conntrack.h"
#include "engine.h"
#include "pkt_build.h"

#include "ct_short.h"

#define NEW RULE_CT_NEW
#define EST RULE_CT_ESTABLISHED
#define INV RULE_CT_INVALID

#define FRAME_MAX 2048

/* Options of a segment (kept short: a kind per bit, values beside). */
#define OPT_MSS   0x01
#define OPT_SACKP 0x02
#define OPT_WS    0x04
#define OPT_TS    0x08
#define OPT_SACK  0x10

/* One segment to build. Sequence numbers are absolute. */
struct seg {
	uint8_t dir;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win;
	uint16_t len;
	uint8_t opts;
	uint8_t ws;
	uint32_t sack_l, sack_r;
};

/* A conversation under test: the connection, its configuration, a frame. */
struct conv {
	struct mod_ct_cfg cfg;
	struct mod_ct_conn c;
	bool created;
	uint8_t frame[FRAME_MAX];
	uint32_t len;
	struct fc_pkt pkt;
	struct mod_ct_verdict v;
};

static void
build(struct conv *cv, const struct seg *s)
{
	uint8_t opts[40];
	unsigned int n = 0;
	struct pb b;
	int len;

	if (s->opts & OPT_MSS) {
		opts[n++] = 2, opts[n++] = 4, opts[n++] = 0x05, opts[n++] = 0xb4;
	}
	if (s->opts & OPT_SACKP) {
		opts[n++] = 1, opts[n++] = 1, opts[n++] = 4, opts[n++] = 2;
	}
	if (s->opts & OPT_TS) {
		static const uint8_t ts[12] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};

		memcpy(opts + n, ts, sizeof(ts));
		n += sizeof(ts);
	}
	if (s->opts & OPT_WS) {
		opts[n++] = 1, opts[n++] = 3, opts[n++] = 3, opts[n++] = s->ws;
	}
	if (s->opts & OPT_SACK) {
		opts[n++] = 1, opts[n++] = 1, opts[n++] = 5, opts[n++] = 10;
		for (int i = 0; i < 4; i++)
			opts[n++] = (uint8_t)(s->sack_l >> (24 - 8 * i));
		for (int i = 0; i < 4; i++)
			opts[n++] = (uint8_t)(s->sack_r >> (24 - 8 * i));
	}
	pb_init(&b, cv->frame, sizeof(cv->frame));
	pb_eth(&b, NULL, NULL);
	{
		struct pb_ipv4 ip = {.src = s->dir == O ? 0xc0000201 : 0xc6336402,
			.dst = s->dir == O ? 0xc6336402 : 0xc0000201};

		pb_ipv4(&b, &ip);
	}
	pb_tcp(&b, s->dir == O ? 40000 : 80, s->dir == O ? 80 : 40000, s->flags, s->seq, s->ack,
		(uint8_t)n);
	if (n != 0)
		pb_tcp_opts(&b, opts, (uint8_t)n);
	pb_tcp_win(&b, s->win);
	if (s->len != 0)
		pb_payload(&b, NULL, s->len);
	len = pb_finish(&b);
	assert_true(len > 0);
	cv->len = (uint32_t)len;
	assert_int_equal(fc_parse(cv->frame, cv->len, &cv->pkt), FC_PARSE_OK);
}

static void
conv_init(struct conv *cv)
{
	memset(cv, 0, sizeof(*cv));
	mod_ct_cfg_init(&cv->cfg);
}

/* One segment through the connection (created by the first). @return its ctstate. */
static uint8_t
send_seg(struct conv *cv, const struct seg *s)
{
	build(cv, s);
	if (!cv->created) {
		assert_int_equal(s->dir, O);
		assert_int_equal(mod_ct_new(&cv->cfg, &cv->pkt, cv->frame, cv->len, &cv->c, &cv->v),
			0);
		cv->created = (cv->v.flags & MOD_CT_VF_CREATED) != 0;
	} else {
		assert_int_equal(mod_ct_packet(&cv->cfg, &cv->c, s->dir, &cv->pkt, cv->frame, cv->len,
					 &cv->v),
			0);
		if (cv->v.flags & (MOD_CT_VF_REOPEN | MOD_CT_VF_REMOVE)) {
			memset(&cv->c, 0, sizeof(cv->c));
			cv->created = false;
		}
	}
	return cv->v.ctstate;
}

/* A step: the segment, the ctstate it gets and the state after it. */
struct step {
	struct seg s;
	uint8_t ctstate;
	uint8_t state;
	uint8_t vflags; /* these verdict flags must be set (0: not checked) */
};

#define C0 1000u
#define S0 5000u
/* Segment shorthands: direction, flags, seq, ack, window, length. */
#define SEGO(fl, sq, ak, w, l) {O, fl, sq, ak, w, l, 0, 0, 0, 0}
#define SEGR(fl, sq, ak, w, l) {R, fl, sq, ak, w, l, 0, 0, 0, 0}
/* The usual handshake: window scale 7 both ways, SACK permitted. */
#define SYN_C {O, F_SYN, C0, 0, 64240, 0, OPT_MSS | OPT_SACKP | OPT_WS, 7, 0, 0}
#define SYNACK_S {R, F_SA, S0, C0 + 1, 65160, 0, OPT_MSS | OPT_SACKP | OPT_WS, 7, 0, 0}
#define HANDSHAKE \
	{SYN_C, NEW, SS, MOD_CT_VF_CREATED}, {SYNACK_S, EST, SR, MOD_CT_VF_CTSTATE}, \
	{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), EST, ES, 0}

static void
run_steps(struct conv *cv, const char *name, const struct step *st, unsigned int n)
{
	if (name[0] != '\0')
		print_message("  %s\n", name);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t cs = send_seg(cv, &st[i].s);

		if (cs != st[i].ctstate || cv->c.state != st[i].state ||
			(cv->v.flags & st[i].vflags) != st[i].vflags)
			print_error("%s: step %u: ctstate %u state %s flags %#x (want %u %s %#x)\n", name,
				i, cs, mod_ct_state_name(cv->c.state), cv->v.flags, st[i].ctstate,
				mod_ct_state_name(st[i].state), st[i].vflags);
		assert_int_equal(cs, st[i].ctstate);
		assert_int_equal(cv->c.state, st[i].state);
		assert_int_equal(cv->v.flags & st[i].vflags, st[i].vflags);
	}
}

#define RUN(cv, name, ...)                                                                         \
	do {                                                                                       \
		static const struct step steps_[] = {__VA_ARGS__};                                 \
		run_steps(cv, name, steps_, RTE_DIM(steps_));                                      \
	} while (0)

/* ------------------------------------------------------------------------ */
/* Scripted conversations                                                    */
/* ------------------------------------------------------------------------ */

static void
test_handshake_data_close(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "handshake, data both ways, close by the client", HANDSHAKE,
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 100), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 101, 509, 0), EST, ES, 0},
		{SEGR(F_PA, S0 + 1, C0 + 101, 509, 1000), EST, ES, 0},
		{SEGO(F_ACK, C0 + 101, S0 + 1001, 502, 0), EST, ES, 0},
		{SEGO(F_FA, C0 + 101, S0 + 1001, 502, 0), EST, FW, 0},
		{SEGR(F_ACK, S0 + 1001, C0 + 102, 509, 0), EST, CW, 0},
		{SEGR(F_PA, S0 + 1001, C0 + 102, 509, 10), EST, CW, 0},
		{SEGO(F_ACK, C0 + 102, S0 + 1011, 502, 0), EST, CW, 0},
		{SEGR(F_FA, S0 + 1011, C0 + 102, 509, 0), EST, LA, 0},
		{SEGO(F_ACK, C0 + 102, S0 + 1012, 502, 0), EST, TW, 0},
		{SEGO(F_ACK, C0 + 102, S0 + 1012, 502, 0), EST, TW, 0});
	/* The windows: scaled by 7 both ways, ends where the data ended. */
	assert_int_equal(cv.c.tcp.side[O].scale, 7);
	assert_int_equal(cv.c.tcp.side[R].scale, 7);
	assert_int_equal(cv.c.tcp.side[O].end, C0 + 102);
	assert_int_equal(cv.c.tcp.side[R].end, S0 + 1012);
	assert_int_equal(cv.c.tcp.side[O].maxend, C0 + 102 + (509u << 7));
	assert_true(cv.c.tcp.side[O].flags & MOD_CT_TS_CLOSE_INIT);
	assert_false(cv.c.tcp.side[R].flags & MOD_CT_TS_CLOSE_INIT);
	assert_true(cv.c.flags & MOD_CT_C_ASSURED);

	conv_init(&cv);
	RUN(&cv, "the server closes first, crossing FINs", HANDSHAKE,
		{SEGR(F_FA, S0 + 1, C0 + 1, 509, 0), EST, FW, 0},
		{SEGR(F_FA, S0 + 1, C0 + 1, 509, 0), EST, LA, 0}, /* retransmitted: LAST_ACK */
		{SEGO(F_FA, C0 + 1, S0 + 2, 502, 0), EST, LA, 0},
		{SEGO(F_ACK, C0 + 2, S0 + 2, 502, 0), EST, TW, 0});
}

static void
test_window_scaling(void **state)
{
	struct conv cv;

	(void)state;
	/* Scaled: the server's 2000 << 7 = 256000 bytes allow data far beyond 2000. */
	conv_init(&cv);
	RUN(&cv, "scaled windows", HANDSHAKE,
		{SEGR(F_ACK, S0 + 1, C0 + 1, 2000, 0), EST, ES, 0},
		{SEGO(F_PA, C0 + 1 + 200000, S0 + 1, 502, 100), EST, ES, 0},
		/* beyond the window and beyond the tolerance of one more window */
		{SEGO(F_PA, C0 + 1 + 600000, S0 + 1, 502, 100), INV, ES, 0});
	/* Without the server's window-scale option neither side scales. */
	conv_init(&cv);
	RUN(&cv, "scaling needs both sides", {SYN_C, NEW, SS, 0},
		{{R, F_SA, S0, C0 + 1, 65160, 0, OPT_MSS, 0, 0, 0}, EST, SR, 0},
		{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 1, 2000, 0), EST, ES, 0},
		/* 2000 unscaled: the SYN/ACK's 65160 is the window, plus its tolerance */
		{SEGO(F_PA, C0 + 1 + 200000, S0 + 1, 502, 100), INV, ES, 0});
	assert_int_equal(cv.c.tcp.side[O].scale, 0);
	assert_int_equal(cv.c.tcp.side[R].scale, 0);
}

static void
test_out_of_window(void **state)
{
	struct conv cv;
	struct mod_ct_conn keep;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "beyond and below the windows", HANDSHAKE,
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 100), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 101, 509, 0), EST, ES, 0});
	keep = cv.c;
	/* Far beyond: INVALID, nothing changes. */
	RUN(&cv, "far beyond", {SEGO(F_PA, C0 + 1000000000u, S0 + 1, 502, 100), INV, ES, 0});
	assert_memory_equal(&cv.c, &keep, sizeof(keep));
	assert_int_equal(cv.v.why, MOD_CT_WHY_SEQ);
	/* An ACK of data the server never sent: INVALID. */
	RUN(&cv, "ack beyond", {SEGO(F_ACK, C0 + 101, S0 + 100, 502, 0), INV, ES, 0});
	assert_int_equal(cv.v.why, MOD_CT_WHY_ACK);
	/* Starting past the window's edge a little: ignored (accepted), the
	 * sender's end moves all the same. */
	RUN(&cv, "overshoot", {SEGO(F_PA, C0 + 101 + 65153, S0 + 1, 502, 100), EST, ES,
		MOD_CT_VF_IGNORED});
	assert_int_equal(cv.c.tcp.side[O].end, C0 + 101 + 65253);
	/* Far below the window and a very old ACK: ignored, nothing moves. */
	keep = cv.c;
	RUN(&cv, "below", {SEGO(F_PA, C0 - 200000, S0 + 1, 502, 100), EST, ES, MOD_CT_VF_IGNORED},
		{SEGO(F_ACK, C0 + 101, S0 - 1000000, 502, 0), EST, ES, MOD_CT_VF_IGNORED});
	assert_memory_equal(&cv.c.tcp.side, &keep.tcp.side, sizeof(keep.tcp.side));

	/* be_liberal: all that is accepted, and nothing moves for it. */
	conv_init(&cv);
	cv.cfg.tcp_be_liberal = true;
	RUN(&cv, "be_liberal", HANDSHAKE,
		{SEGO(F_PA, C0 + 3000000000u, S0 + 1, 502, 100), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 77777777, 509, 0), EST, ES, 0},
		{SEGO(0, C0 + 1, 0, 502, 0), INV, ES, 0}); /* flags still checked */
	assert_int_equal(cv.c.tcp.side[O].end, C0 + 1);
}

static void
test_sack(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "SACK blocks", HANDSHAKE,
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 1000), EST, ES, 0},
		{SEGO(F_PA, C0 + 2001, S0 + 1, 502, 1000), EST, ES, 0},
		{{R, F_ACK, S0 + 1, C0 + 1001, 509, 0, OPT_SACK, 0, C0 + 2001, C0 + 3001}, EST, ES,
			0},
		/* a SACK block beyond what the client sent */
		{{R, F_ACK, S0 + 1, C0 + 1001, 509, 0, OPT_SACK, 0, C0 + 2001, C0 + 9001}, INV, ES,
			0});
	/* Without SACK permitted, blocks are not looked at. */
	conv_init(&cv);
	RUN(&cv, "SACK not permitted", {{O, F_SYN, C0, 0, 64240, 0, OPT_WS, 7, 0, 0}, NEW, SS, 0},
		{{R, F_SA, S0, C0 + 1, 65160, 0, OPT_WS, 7, 0, 0}, EST, SR, 0},
		{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), EST, ES, 0},
		{{R, F_ACK, S0 + 1, C0 + 1, 509, 0, OPT_SACK, 0, C0 + 2001, C0 + 9001}, EST, ES, 0});
}

static void
test_retransmissions(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	cv.cfg.tcp_max_retrans = 2;
	RUN(&cv, "retransmissions", HANDSHAKE,
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 500), EST, ES, 0},
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 500), EST, ES, 0},
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 500), EST, ES, 0});
	assert_int_equal(cv.c.tcp.retrans, 2);
	/* Two in a row: the retransmission timeout, every packet to the slow path. */
	assert_int_equal(cv.v.timeout, cv.cfg.timeout[MOD_CT_TO_TCP_RETRANS]);
	assert_int_equal(cv.v.interest[O] & FC_INTEREST_ALL, FC_INTEREST_ALL);
	RUN(&cv, "an answer ends them", {SEGR(F_ACK, S0 + 1, C0 + 501, 509, 0), EST, ES, 0});
	assert_int_equal(cv.c.tcp.retrans, 0);
	assert_int_equal(cv.v.timeout, cv.cfg.timeout[MOD_CT_TO_TCP_ESTABLISHED]);
	assert_true(cv.v.interest[O] & FC_INTEREST_TCP_WIN);
	assert_false(cv.v.interest[O] & FC_INTEREST_ALL);
}

static void
test_stray_and_flags(void **state)
{
	static const uint8_t valid[] = {F_SYN, F_SYN | F_URG, F_SA, F_RST, F_RA, F_FA, F_FA | F_URG,
		F_ACK, F_ACK | F_URG};
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "stray ACK, loose: picked up", {SEGO(F_ACK, C0, S0, 502, 0), NEW, ES, 0},
		{SEGO(F_PA, C0, S0, 502, 100), NEW, ES, 0},
		{SEGR(F_ACK, S0, C0 + 100, 509, 0), EST, ES, MOD_CT_VF_CTSTATE},
		/* liberal both ways: out of window is accepted */
		{SEGO(F_ACK, C0 + 3000000000u, S0 + 12345678, 502, 0), EST, ES, 0});
	assert_true(cv.c.flags & MOD_CT_C_PICKUP);
	assert_true(cv.c.tcp.side[O].flags & MOD_CT_TS_LIBERAL);

	conv_init(&cv);
	cv.cfg.tcp_strict = true;
	RUN(&cv, "stray ACK, strict", {SEGO(F_ACK, C0, S0, 502, 0), INV, NO, 0});
	assert_int_equal(cv.v.why, MOD_CT_WHY_NEW);

	/* No connection starts with anything but a SYN or an ACK. */
	for (unsigned int f = 0; f < 256; f++) {
		bool ok = false, start = (f & ~(F_PSH | 0xc0 | F_URG)) == F_SYN ||
					 (f & ~(F_PSH | 0xc0 | F_URG)) == F_ACK;

		for (unsigned int i = 0; i < RTE_DIM(valid); i++)
			ok |= (f & ~(F_PSH | 0xc0)) == valid[i];
		conv_init(&cv);
		build(&cv, &(struct seg)SEGO((uint8_t)f, C0, S0, 100, 0));
		assert_int_equal(mod_ct_new(&cv.cfg, &cv.pkt, NULL, 0, &cv.c, &cv.v), 0);
		assert_int_equal(!!(cv.v.flags & MOD_CT_VF_CREATED), ok && start);
		if (!ok)
			assert_int_equal(cv.v.why, MOD_CT_WHY_FLAGS);
		/* On an established connection: INVALID exactly for the bad combinations. */
		conv_init(&cv);
		RUN(&cv, "", HANDSHAKE);
		build(&cv, &(struct seg)SEGO((uint8_t)f, C0 + 1, S0 + 1, 502, 0));
		assert_int_equal(mod_ct_packet(&cv.cfg, &cv.c, O, &cv.pkt, NULL, 0, &cv.v), 0);
		if (!ok)
			assert_int_equal(cv.v.ctstate, INV);
		assert_int_equal(cv.v.why == MOD_CT_WHY_FLAGS, !ok);
	}
}

static void
test_rst(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "RSTs: below the ACK, not exact, exact", HANDSHAKE,
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 100), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 101, 509, 0), EST, ES, 0},
		{SEGO(F_PA, C0 + 101, S0 + 1, 502, 100), EST, ES, 0},
		{SEGR(F_RST, S0 - 5000, 0, 0, 0), INV, ES, 0},
		{SEGR(F_RST, S0 + 3000, 0, 0, 0), EST, ES, 0}, /* a challenge ACK may follow */
		{SEGR(F_RST, S0 + 1, 0, 0, 0), EST, CL, MOD_CT_VF_CLOSED},
		{SEGO(F_ACK, C0 + 201, S0 + 1, 502, 0), EST, CL, 0},
		/* reset by the server: the client's SYN is ignored ... */
		{SEGO(F_SYN, C0 + 100000, 0, 64240, 0), EST, CL, MOD_CT_VF_IGNORED},
		/* ... and the server's SYN/ACK to it resynchronizes */
		{SEGR(F_SA, S0 + 900000, C0 + 100001, 65160, 0), EST, SR, 0},
		{SEGO(F_ACK, C0 + 100001, S0 + 900001, 502, 0), EST, ES, 0});

	conv_init(&cv);
	RUN(&cv, "RST right after the same side's data", HANDSHAKE,
		{SEGR(F_PA, S0 + 1, C0 + 1, 509, 19), EST, ES, 0},
		{SEGR(F_RA, S0 + 20, C0 + 1, 0, 0), EST, CL, 0});

	conv_init(&cv);
	RUN(&cv, "connection refused: the entry goes", {SYN_C, NEW, SS, 0},
		{SEGR(F_RA, 0, C0 + 1, 0, 0), EST, NO, MOD_CT_VF_REMOVE});
	conv_init(&cv);
	RUN(&cv, "the client gives up before a reply", {SYN_C, NEW, SS, 0},
		{SEGO(F_RST, C0 + 1, 0, 0, 0), NEW, NO, MOD_CT_VF_REMOVE});
}

static void
test_reopen(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "TIME_WAIT: the client reopens", HANDSHAKE,
		{SEGO(F_FA, C0 + 1, S0 + 1, 502, 0), EST, FW, 0},
		{SEGR(F_FA, S0 + 1, C0 + 2, 509, 0), EST, LA, 0},
		{SEGO(F_ACK, C0 + 2, S0 + 2, 502, 0), EST, TW, 0},
		{SEGO(F_SYN, C0 + 100000, 0, 64240, 0), NEW, NO, MOD_CT_VF_REOPEN});
	conv_init(&cv);
	RUN(&cv, "TIME_WAIT: the server reopens", HANDSHAKE,
		{SEGO(F_FA, C0 + 1, S0 + 1, 502, 0), EST, FW, 0},
		{SEGR(F_FA, S0 + 1, C0 + 2, 509, 0), EST, LA, 0},
		{SEGO(F_ACK, C0 + 2, S0 + 2, 502, 0), EST, TW, 0},
		{SEGR(F_SYN, S0 + 100000, 0, 65160, 0), NEW, NO, MOD_CT_VF_REOPEN});
	conv_init(&cv);
	RUN(&cv, "CLOSE by the client's own RST: it reopens", HANDSHAKE,
		{SEGO(F_RA, C0 + 1, S0 + 1, 0, 0), EST, CL, 0},
		{SEGO(F_SYN, C0 + 9000, 0, 64240, 0), NEW, NO, MOD_CT_VF_REOPEN});
	conv_init(&cv);
	RUN(&cv, "CLOSE: the server's SYN is invalid", HANDSHAKE,
		{SEGO(F_RA, C0 + 1, S0 + 1, 0, 0), EST, CL, 0},
		{SEGR(F_SYN, S0 + 9000, 0, 65160, 0), INV, CL, 0});
}

static void
test_handshake_oddities(void **state)
{
	struct conv cv;

	(void)state;
	conv_init(&cv);
	RUN(&cv, "SYN_SENT and SYN_RECV", {SYN_C, NEW, SS, 0}, {SYN_C, NEW, SS, 0},
		{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), INV, SS, 0},
		{SEGO(F_SA, C0, S0 + 1, 502, 0), INV, SS, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 1, 509, 0), EST, SS, MOD_CT_VF_IGNORED},
		{SEGR(F_FA, S0 + 1, C0 + 1, 509, 0), INV, SS, 0}, {SYNACK_S, EST, SR, 0},
		{SYNACK_S, EST, SR, MOD_CT_VF_IGNORED},
		{SEGO(F_SYN, C0, 0, 64240, 0), EST, SR, MOD_CT_VF_IGNORED},
		{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), EST, ES, 0},
		{SYNACK_S, EST, ES, MOD_CT_VF_IGNORED},
		{SEGR(F_SYN, S0 + 777, 0, 65160, 0), INV, ES, 0});

	conv_init(&cv);
	RUN(&cv, "simultaneous open", {SYN_C, NEW, SS, 0},
		{{R, F_SYN, S0, 0, 65160, 0, OPT_WS, 7, 0, 0}, EST, S2, 0},
		{SEGO(F_SA, C0, S0 + 1, 502, 0), EST, SR, 0},
		{SEGR(F_SA, S0, C0 + 1, 509, 0), EST, SR, 0},
		{SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0), EST, ES, 0},
		{SEGR(F_ACK, S0 + 1, C0 + 1, 509, 0), EST, ES, 0},
		{SEGO(F_PA, C0 + 1, S0 + 1, 502, 10), EST, ES, 0});

	conv_init(&cv);
	RUN(&cv, "a challenge ACK in LAST_ACK", HANDSHAKE,
		{SEGO(F_FA, C0 + 1, S0 + 1, 502, 0), EST, FW, 0},
		{SEGR(F_FA, S0 + 1, C0 + 2, 509, 0), EST, LA, 0},
		{SEGO(F_SYN, C0 + 123456, 0, 64240, 0), EST, LA, MOD_CT_VF_IGNORED},
		{SEGR(F_ACK, S0 + 2, C0 + 2, 509, 0), EST, LA, MOD_CT_VF_IGNORED},
		{SEGO(F_ACK, C0 + 2, S0 + 2, 502, 0), EST, TW, 0});
}

/* Interest masks and timeouts as a connection goes through its states. */
static void
test_interest_timeouts(void **state)
{
	const uint16_t base = FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST |
			      FC_INTEREST_TCP_NOACK;
	const uint16_t fast = (base & ~FC_INTEREST_TCP_FIN) | FC_INTEREST_TCP_WIN;
	struct conv cv;

	(void)state;
	conv_init(&cv);
	send_seg(&cv, &(struct seg)SYN_C);
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_ALL);
	assert_int_equal(cv.v.interest[R], base | FC_INTEREST_ALL);
	assert_int_equal(cv.v.timeout, 120000);
	/* From the first reply on, the fast path checks the windows and moves
	 * the state, FINs included. */
	send_seg(&cv, &(struct seg)SYNACK_S);
	assert_int_equal(cv.v.interest[O], fast);
	assert_int_equal(cv.v.interest[R], fast);
	assert_int_equal(cv.v.timeout, 60000);
	send_seg(&cv, &(struct seg)SEGO(F_ACK, C0 + 1, S0 + 1, 502, 0));
	assert_int_equal(cv.v.interest[O], fast);
	assert_int_equal(cv.v.interest[R], fast);
	assert_int_equal(cv.v.timeout, 432000000u);
	assert_int_equal(mod_ct_timeout(&cv.cfg, FC_AF_INET4, 6, &cv.c), 432000000u);
	send_seg(&cv, &(struct seg)SEGO(F_FA, C0 + 1, S0 + 1, 502, 0));
	assert_int_equal(cv.v.interest[O], fast);
	assert_int_equal(cv.v.timeout, 120000);
	send_seg(&cv, &(struct seg)SEGR(F_ACK, S0 + 1, C0 + 2, 509, 0));
	assert_int_equal(cv.c.state, CW);
	assert_int_equal(cv.v.interest[R], fast);
	assert_int_equal(cv.v.timeout, 60000);
	/* A SYN the tracker ignored: the answer may be a challenge ACK, the
	 * state moves on the slow path until the next segment. */
	send_seg(&cv, &(struct seg)SEGO(F_SYN, C0 + 99999, 0, 64240, 0));
	assert_int_equal(cv.c.tcp.last_index, MOD_CT_TI_SYN);
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_TCP_WIN);
	/* A simultaneous open's SYN_RECV: the reply side's ACK establishes it. */
	conv_init(&cv);
	send_seg(&cv, &(struct seg)SYN_C);
	send_seg(&cv, &(struct seg){R, F_SYN, S0, 0, 65160, 0, OPT_WS | OPT_SACKP, 7, 0, 0});
	send_seg(&cv, &(struct seg){O, F_SA, C0, S0 + 1, 64240, 0, OPT_WS | OPT_SACKP, 7, 0, 0});
	assert_int_equal(cv.c.state, SR);
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_ALL);

	/* A pickup: unreplied, capped at tcp_unreplied; its in-window segments
	 * move the windows (the fast path tracks them), the unseen side's first
	 * comes to the slow path; then every packet until assured. */
	conv_init(&cv);
	send_seg(&cv, &(struct seg)SEGO(F_ACK, C0, S0, 502, 0));
	assert_int_equal(cv.v.timeout, 300000);
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_TCP_WIN);
	assert_int_equal(cv.v.interest[R], base | FC_INTEREST_ALL);
	send_seg(&cv, &(struct seg)SEGR(F_ACK, S0, C0, 509, 0));
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_ALL);
	send_seg(&cv, &(struct seg)SEGO(F_ACK, C0, S0, 502, 0));
	assert_true(cv.c.flags & MOD_CT_C_ASSURED);
	assert_int_equal(cv.v.interest[O], base | FC_INTEREST_TCP_WIN);
	assert_int_equal(cv.v.timeout, 432000000u);
}

/* ------------------------------------------------------------------------ */
/* Lockstep: the fast path's emulation against a connection seeing all       */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;

static uint32_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

/* An endpoint of a random conversation. */
struct ep {
	uint32_t nxt, una, rcv;
	uint16_t win;
	uint8_t ws;
	uint32_t last_seq;
	uint16_t last_len;
	bool fin;
};

/* The two ways of deciding a conversation, side by side. */
struct duo {
	struct conv all;  /* sees every segment */
	struct conv fast; /* sees what the interest masks and the window check send it */
	struct mod_ct_fast_line *line;
	struct mod_ct_fast view;
	struct fc_action act[2];
	uint64_t passed, total, moved;
};

/*
 * After every segment: the same ctstate, and the connection as the slow
 * path alone made it and as the fast path left it (its record, the line,
 * loaded with the progress folded in, as the module reads it): state, flags, first FIN, unacknowledged data,
 * retransmissions and so the timeout.
 */
static void
duo_compare(struct duo *d, const struct seg *s, uint8_t want, uint8_t got)
{
	const uint8_t side_fl = MOD_CT_TS_CLOSE_INIT | MOD_CT_TS_UNACKED;
	struct conv *f = &d->fast;
	struct mod_ct_conn fc = f->c, *ac = &d->all.c;

	if (f->created)
		mod_ct_fast_load(d->line, &fc, true);
	if (got != want || fc.state != ac->state || fc.flags != ac->flags ||
		fc.tcp.retrans != ac->tcp.retrans)
		print_error("segment %" PRIu64 ": dir %u flags %#x seq %u ack %u len %u: all %u %s, "
			    "fast %u %s\n",
			d->total, s->dir, s->flags, s->seq, s->ack, s->len, want,
			mod_ct_state_name(ac->state), got, mod_ct_state_name(fc.state));
	assert_int_equal(got, want);
	assert_int_equal(f->created, d->all.created);
	if (!f->created)
		return;
	assert_int_equal(fc.state, ac->state);
	assert_int_equal(fc.flags, ac->flags);
	assert_int_equal(fc.tcp.retrans, ac->tcp.retrans);
	for (unsigned int k = 0; k < 2; k++)
		assert_int_equal(fc.tcp.side[k].flags & side_fl, ac->tcp.side[k].flags & side_fl);
	assert_int_equal(mod_ct_timeout(&f->cfg, FC_AF_INET4, 6, &fc),
		mod_ct_timeout(&d->all.cfg, FC_AF_INET4, 6, ac));
	if (fc.state != f->c.state)
		d->moved++; /* the fast path moved it */
}

static void
duo_seg(struct duo *d, const struct seg *s)
{
	uint8_t want = send_seg(&d->all, s), got;
	struct conv *f = &d->fast;
	bool was = f->created, slow = true;

	d->total++;
	build(f, s);
	if (!was) {
		assert_int_equal(mod_ct_new(&f->cfg, &f->pkt, f->frame, f->len, &f->c, &f->v), 0);
		f->created = (f->v.flags & MOD_CT_VF_CREATED) != 0;
		got = f->v.ctstate;
	} else if (!rule_engine_wants(&d->act[s->dir], &f->pkt) &&
		   (!(d->act[s->dir].interest & FC_INTEREST_TCP_WIN) ||
			   mod_ct_fast_check(&d->view, &d->act[s->dir], &f->pkt))) {
		/* The fast path: the entry's cached ctstate. */
		d->passed++;
		slow = false;
		got = (uint8_t)mod_ct_conn_ctstate(&f->c, s->dir);
	} else {
		/* The module's record is the line: what it holds, folded. */
		mod_ct_fast_load(d->line, &f->c, true);
		assert_int_equal(mod_ct_packet(&f->cfg, &f->c, s->dir, &f->pkt, f->frame, f->len,
					 &f->v),
			0);
		got = f->v.ctstate;
		if (f->v.flags & (MOD_CT_VF_REOPEN | MOD_CT_VF_REMOVE)) {
			memset(&f->c, 0, sizeof(f->c));
			f->created = false;
		}
	}
	if (!slow) {
		/* nothing to store */
	} else if (f->created) {
		/* What the module does after the slow path decided. */
		mod_ct_fast_arm(d->line, &f->c,
			(f->v.interest[0] | f->v.interest[1]) & FC_INTEREST_TCP_WIN,
			f->cfg.tcp_be_liberal);
		for (unsigned int k = 0; k < 2; k++) {
			d->act[k].interest = f->v.interest[k];
			d->act[k].ct_state = MOD_CT_ENTRY_ID;
			d->act[k].ext = 1; /* record id 1 */
			d->act[k].flags = k == R ? FC_ACT_F_REPLY : 0;
		}
	} else {
		memset(d->act, 0, sizeof(d->act));
	}
	if (getenv("CT_LOCKSTEP_DEBUG") != NULL) {
		char b1[MOD_CT_FORMAT_MAX], b2[MOD_CT_FORMAT_MAX];

		mod_ct_conn_format(&d->all.c, b1, sizeof(b1));
		mod_ct_conn_format(&f->c, b2, sizeof(b2));
		print_message("%" PRIu64 " d%u f%02x seq %u ack %u win %u len %u -> %u/%u\n  all %s\n  "
			      "fast %s\n", d->total, s->dir, s->flags, s->seq, s->ack, s->win, s->len,
			want, got, b1, b2);
	}
	duo_compare(d, s, want, got);
}

/* Data from @p x to @p y within y's window; false if there is no room. */
static bool
ep_data(struct duo *d, unsigned int dir, struct ep *x, struct ep *y)
{
	uint32_t room = x->una + ((uint32_t)y->win << y->ws) - x->nxt;
	uint16_t n = (uint16_t)(1 + rnd() % 1400);

	if ((int32_t)room <= 0)
		return false;
	if (n > room)
		n = (uint16_t)room;
	duo_seg(d, &(struct seg){(uint8_t)dir, F_PA, x->nxt, x->rcv, x->win, n, 0, 0, 0, 0});
	x->last_seq = x->nxt;
	x->last_len = n;
	x->nxt += n;
	y->rcv = x->nxt;
	return true;
}

static void
ep_ack(struct duo *d, unsigned int dir, struct ep *x, struct ep *y)
{
	if (rnd() % 4 == 0)
		x->win = (uint16_t)(rnd() % 3 == 0 ? 0 : 100 + rnd() % 60000);
	duo_seg(d, &(struct seg){(uint8_t)dir, F_ACK, x->nxt, x->rcv, x->win, 0, 0, 0, 0, 0});
	y->una = x->rcv;
}

static void
lockstep_one(struct duo *d, unsigned int n_steps)
{
	struct ep ep[2];
	uint8_t ws0 = (uint8_t)(rnd() % 15), ws1 = (uint8_t)(rnd() % 15);

	memset(ep, 0, sizeof(ep));
	ep[O].nxt = ep[O].una = rnd();
	ep[R].nxt = ep[R].una = rnd();
	ep[O].win = 502;
	ep[R].win = 509;
	duo_seg(d, &(struct seg){O, F_SYN, ep[O].nxt, 0, 64240, 0, OPT_WS | OPT_SACKP, ws0, 0, 0});
	ep[O].nxt++;
	ep[R].rcv = ep[O].nxt;
	duo_seg(d, &(struct seg){R, F_SA, ep[R].nxt, ep[R].rcv, 65160, 0, OPT_WS | OPT_SACKP, ws1,
			   0, 0});
	ep[R].nxt++;
	ep[O].rcv = ep[R].nxt;
	ep[O].una = ep[O].nxt;
	ep[O].ws = ws0 > 14 ? 14 : ws0; /* the shift of each side's own windows */
	ep[R].ws = ws1 > 14 ? 14 : ws1;
	ep_ack(d, O, &ep[O], &ep[R]);
	for (unsigned int i = 0; i < n_steps; i++) {
		unsigned int dir = rnd() % 2, k = rnd() % 100;
		struct ep *x = &ep[dir], *y = &ep[dir ^ 1];

		if (k < 40) {
			if (!ep_data(d, dir, x, y))
				ep_ack(d, dir ^ 1, y, x);
		} else if (k < 65) {
			ep_ack(d, dir, x, y);
		} else if (k < 72 && x->last_len != 0) {
			duo_seg(d, &(struct seg){(uint8_t)dir, F_PA, x->last_seq, x->rcv, x->win,
					   x->last_len, 0, 0, 0, 0});
		} else if (k < 77) {
			duo_seg(d, &(struct seg){(uint8_t)dir, F_ACK, x->nxt - 1, x->rcv, x->win,
					   (uint16_t)(rnd() % 2), 0, 0, 0, 0});
		} else if (k < 82) {
			uint32_t seq = rnd() % 2 ? rnd() : x->nxt + (2u << 20) * (1 + rnd() % 100);

			duo_seg(d, &(struct seg){(uint8_t)dir, F_PA, seq, x->rcv, x->win, 50, 0, 0, 0,
					   0});
		} else if (k < 86) {
			duo_seg(d, &(struct seg){(uint8_t)dir, F_ACK, x->nxt, x->rcv + 1 + rnd() % 5000,
					   x->win, 0, 0, 0, 0, 0});
		} else if (k < 90) {
			duo_seg(d, &(struct seg){(uint8_t)dir, F_ACK, x->nxt - (3u << 20), x->rcv,
					   x->win, 0, 0, 0, 0, 0});
		} else if (k < 92) {
			/* A FIN (again, if sent already), answered or not. */
			if (!x->fin) {
				x->fin = true;
				x->nxt++;
				y->rcv = x->nxt;
			}
			duo_seg(d, &(struct seg){(uint8_t)dir, F_FA, x->nxt - 1, x->rcv, x->win, 0,
					   0, 0, 0, 0});
			if (rnd() % 2)
				ep_ack(d, dir ^ 1, y, x);
		} else if (k < 93 && y->last_len != 0) {
			duo_seg(d, &(struct seg){(uint8_t)dir, F_ACK, x->nxt, x->rcv, x->win, 0,
					   OPT_SACK, 0, y->last_seq, y->last_seq + y->last_len +
						   (rnd() % 2 ? 0 : 3000)});
		} else {
			ep_ack(d, dir, x, y);
		}
	}
	/* Close: FINs both ways (those not sent yet); a RST now and then. */
	if (rnd() % 5 == 0) {
		duo_seg(d, &(struct seg){O, F_RST, ep[O].nxt + (rnd() % 2 ? 0 : 1000), 0, 0, 0, 0,
				   0, 0, 0});
		return;
	}
	for (unsigned int dir = O; dir <= R; dir++) {
		struct ep *x = &ep[dir], *y = &ep[dir ^ 1];

		if (!x->fin) {
			x->fin = true;
			duo_seg(d, &(struct seg){(uint8_t)dir, F_FA, x->nxt, x->rcv, x->win, 0, 0,
					   0, 0, 0});
			x->nxt++;
			y->rcv = x->nxt;
		}
		ep_ack(d, dir ^ 1, y, x);
	}
	/* Late segments of the closed connection. */
	for (unsigned int i = rnd() % 4; i > 0; i--) {
		unsigned int dir = rnd() % 2;

		ep_ack(d, dir, &ep[dir], &ep[dir ^ 1]);
	}
}

/*
 * The highest ACK a side sent, kept in the line: the fast path's first ACK
 * of a side since the line was stored, below what the record knew, leaves
 * it where it was (as folding into a record kept apart does); a side with
 * none yet takes the first one.
 */
static void
test_line_maxack(void **state)
{
	struct mod_ct_fast_line *chunk = aligned_alloc(64, sizeof(*chunk) << MOD_CT_FAST_CHUNK_SHIFT);
	struct mod_ct_fast view;
	struct mod_ct_conn c, folded, back;
	struct fc_action a;
	struct fc_pkt p;

	(void)state;
	assert_non_null(chunk);
	memset(chunk, 0, sizeof(*chunk) << MOD_CT_FAST_CHUNK_SHIFT);
	memset(&view, 0, sizeof(view));
	view.chunk[0] = chunk;
	for (unsigned int known = 0; known < 2; known++) {
		memset(&c, 0, sizeof(c));
		c.state = MOD_CT_S_ESTABLISHED;
		c.flags = MOD_CT_C_REPLIED | MOD_CT_C_ASSURED;
		c.proto = 6;
		c.tcp.last_index = MOD_CT_TI_ACK;
		for (unsigned int d = 0; d < 2; d++) {
			c.tcp.side[d].maxwin = 65535;
			c.tcp.side[d].flags = known ? MOD_CT_TS_MAXACK : 0;
		}
		c.tcp.side[0].end = 1000;
		c.tcp.side[0].maxend = 1000 + 65535;
		c.tcp.side[0].maxack = known ? 5000 : 0;
		c.tcp.side[1].end = 5000;
		c.tcp.side[1].maxend = 5000 + 65535;
		c.tcp.side[1].maxack = 1000;
		mod_ct_fast_arm(&chunk[1], &c, true, false);
		/* A plain ACK of side 0 at its end, acknowledging up to 4000. */
		memset(&a, 0, sizeof(a));
		a.ct_state = MOD_CT_ENTRY_ID;
		a.ext = 1;
		memset(&p, 0, sizeof(p));
		p.tcp_seq = 1000;
		p.tcp_ack = 4000;
		p.tcp_win = 1000;
		p.tcp_flags = 0x10;
		p.tcp_opt = FC_TCP_OPT_PLAIN;
		assert_true(mod_ct_fast_check(&view, &a, &p));
		folded = c;
		mod_ct_fast_fold(&folded, &chunk[1]);
		mod_ct_fast_load(&chunk[1], &back, true);
		assert_int_equal(back.tcp.side[0].maxack, known ? 5000 : 4000);
		assert_true(back.tcp.side[0].flags & MOD_CT_TS_MAXACK);
		assert_int_equal(back.tcp.side[0].maxack, folded.tcp.side[0].maxack);
		assert_int_equal(back.tcp.side[0].flags, folded.tcp.side[0].flags);
	}
	free(chunk);
}

/*
 * A connection's record is its fast-path line: whatever the slow path
 * stores (armed or not) loads back field for field, with or without
 * folding (nothing moved since), and the fast path's progress on an armed
 * line folds in as it did into a record kept apart.
 */
/*
 * mod_ct_fast_peek() gives the scalar fields of what mod_ct_fast_load()
 * with folding gives, on lines of random bytes (armed or not, the fast
 * path's state and ASSURED moved or not, invalid bytes included).
 */
static void
test_record_peek(void **state)
{
	struct mod_ct_fast_line *l = aligned_alloc(64, sizeof(*l));
	unsigned int moved = 0;

	(void)state;
	assert_non_null(l);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (unsigned int i = 0; i < 4000; i++) {
		struct mod_ct_conn full, peek;
		uint8_t *b = (uint8_t *)l;

		for (size_t j = 0; j < sizeof(*l); j++)
			b[j] = (uint8_t)rnd();
		mod_ct_fast_load(l, &full, true);
		memset(&peek, 0x5a, sizeof(peek));
		mod_ct_fast_peek(l, &peek);
		assert_int_equal(peek.state, full.state);
		assert_int_equal(peek.flags, full.flags);
		assert_int_equal(peek.proto, full.proto);
		assert_int_equal(peek.helper, full.helper);
		assert_int_equal(peek.master_helper, full.master_helper);
		if (full.state != l->rc_state)
			moved++;
	}
	/* The fold moved the state on some of them (the check has teeth). */
	assert_true(moved > 100);
	free(l);
}

/*
 * Aging's timeout of a TCP line, read from the bytes it depends on, against
 * mod_ct_timeout() of the folded load, on lines of random bytes whose state,
 * flags and retransmission counts are mostly valid, with random timeouts.
 */
static void
test_record_timeout(void **state)
{
	struct mod_ct_fast_line *l = aligned_alloc(64, sizeof(*l));
	unsigned int moved = 0, nonzero = 0;
	struct mod_ct_cfg cfg;

	(void)state;
	assert_non_null(l);
	rng_state = 0xbb67ae8584caa73bull;
	for (unsigned int i = 0; i < 4000; i++) {
		struct mod_ct_conn full, stored;
		uint8_t *b = (uint8_t *)l;
		uint32_t want;

		mod_ct_cfg_init(&cfg);
		for (unsigned int k = 0; k < MOD_CT_TO__COUNT; k++)
			cfg.timeout[k] = 1 + rnd() % 1000000u;
		cfg.tcp_max_retrans = (uint8_t)(rnd() % 4);
		for (size_t j = 0; j < sizeof(*l); j++)
			b[j] = (uint8_t)rnd();
		/* Mostly valid bytes, a few not. */
		if (rnd() % 8 != 0) {
			l->rc_state = (uint8_t)(rnd() % MOD_CT_S__COUNT);
			l->fp_state = (uint8_t)(rnd() % MOD_CT_S__COUNT);
			l->rc_flags = (uint8_t)(rnd() & MOD_CT_C_ALL);
			l->rc_retrans = (uint8_t)(rnd() % 6);
			l->fp_retrans = (uint8_t)(rnd() % 6);
			if (rnd() % 4 == 0)
				l->fp_lwin = 0;
		}
		l->rc_flags = (uint8_t)((l->rc_flags & ~MOD_CT_FAST_RC_PROTO) | MOD_CT_FAST_RC_TCP);
		mod_ct_fast_load(l, &full, true);
		mod_ct_fast_load(l, &stored, false);
		want = mod_ct_timeout(&cfg, FC_AF_INET4, 6, &full);
		assert_int_equal(mod_ct_fast_tcp_timeout(&cfg, l), want);
		if (want != mod_ct_timeout(&cfg, FC_AF_INET4, 6, &stored))
			moved++;
		if (want != 0)
			nonzero++;
	}
	/* The fold moved the timeout on many of them, and most are valid. */
	assert_true(moved > 300);
	print_message("  %u of 4000 timeouts moved by the fold, %u not 0\n", moved, nonzero);
	assert_true(nonzero > 1500);
	free(l);
}

static void
test_record_in_line(void **state)
{
	struct mod_ct_fast_line *l = aligned_alloc(64, sizeof(*l));
	static const uint8_t protos[3] = {0, 6, 17};
	static const uint8_t last_fl[4] = {0, MOD_CT_TS_WSCALE | MOD_CT_TS_SACK_PERM,
		MOD_CT_TS_CHALLENGE, MOD_CT_TS_SIMOPEN | MOD_CT_TS_WSCALE};

	(void)state;
	assert_non_null(l);
	rng_state = 0x2545f4914f6cdd1dull;
	for (unsigned int i = 0; i < 2000; i++) {
		struct mod_ct_conn c, back;
		struct mod_ct_tcp *t = &c.tcp;

		memset(&c, 0, sizeof(c));
		memset(l, 0xa5, sizeof(*l));
		c.state = (uint8_t)(rnd() % MOD_CT_S__COUNT);
		c.flags = (uint8_t)(rnd() & MOD_CT_C_ALL);
		c.helper = (uint8_t)(rnd() % MOD_CT_HELPER__COUNT);
		c.master_helper = (uint8_t)(rnd() % MOD_CT_HELPER__COUNT);
		c.proto = protos[rnd() % 3];
		for (unsigned int d = 0; d < 2; d++) {
			t->side[d].end = (uint32_t)rnd();
			t->side[d].maxend = (uint32_t)rnd();
			t->side[d].maxwin = (uint32_t)rnd();
			t->side[d].maxack = (uint32_t)rnd();
			t->side[d].scale = (uint8_t)(rnd() % (FC_TCP_MAX_WSCALE + 1));
			t->side[d].flags = (uint8_t)(rnd() & 0x3f);
		}
		t->last_seq = (uint32_t)rnd();
		t->last_ack = (uint32_t)rnd();
		t->last_end = (uint32_t)rnd();
		t->last_win = (uint16_t)rnd();
		t->last_index = (uint8_t)(rnd() % (MOD_CT_TI_NONE + 1));
		t->last_dir = (uint8_t)(rnd() % 2);
		t->last_wscale = (uint8_t)(rnd() % (FC_TCP_MAX_WSCALE + 1));
		t->last_flags = last_fl[rnd() % 4];
		t->retrans = (uint8_t)rnd();
		/* The ctstate read from the line's bytes alone: that of the record it
		 * loads, whatever the bytes (invalid states and flags included). */
		l->rc_state = (uint8_t)rnd();
		l->rc_flags = (uint8_t)rnd();
		l->rc_helper = (uint8_t)rnd();
		for (unsigned int d = 0; d < 2; d++) {
			mod_ct_fast_load(l, &back, false);
			assert_int_equal(mod_ct_fast_ctstate(l, d), mod_ct_conn_ctstate(&back, d));
		}
		mod_ct_fast_arm(l, &c, rnd() % 2, rnd() % 2);
		mod_ct_fast_load(l, &back, false);
		assert_memory_equal(&back, &c, sizeof(c));
		for (unsigned int d = 0; d < 2; d++)
			assert_int_equal(mod_ct_fast_ctstate(l, d), mod_ct_conn_ctstate(&c, d));
		mod_ct_fast_load(l, &back, true);
		assert_memory_equal(&back, &c, sizeof(c));
		/* Marked unarmed (removal): what it holds stays. */
		mod_ct_fast_arm(l, NULL, false, false);
		mod_ct_fast_load(l, &back, true);
		assert_memory_equal(&back, &c, sizeof(c));
	}
	free(l);
}

/*
 * The handshake's second step on the fast path (mod_ct_fast_synack())
 * against the tracker: random SYNs (options, windows, scales, sequence
 * numbers, a retransmission now and then) and SYN/ACKs, mostly the plain
 * answer, now and then with an ACK off, data, other flags, a SACK block,
 * or on a be_liberal connection. A SYN/ACK the fast path takes is one the
 * tracker accepts into SYN_RECV, replied; the line then folds back into
 * the very record the tracker made (also when read before the state
 * moved), and holds the fast path's fields that arming that record
 * gives. Before it the armed line passes none of the opener's ACKs. One
 * it leaves leaves the line as it
 * was; every plain one is taken. Then the handshake's last ACK, data
 * from the responder (its ACK now and then below the SYN/ACK's: the
 * highest stays) and its ACK go through both lines alike.
 */
static void
test_synack_fast(void **state)
{
	struct mod_ct_fast_line *chunk = aligned_alloc(64, sizeof(*chunk) << MOD_CT_FAST_CHUNK_SHIFT);
	static const uint8_t odd_flags[5] = {F_PSH, 0x40, F_URG, F_FIN, F_RST};
	struct mod_ct_fast view;
	unsigned int took = 0, left = 0, passed = 0;

	(void)state;
	assert_non_null(chunk);
	memset(chunk, 0, sizeof(*chunk) << MOD_CT_FAST_CHUNK_SHIFT);
	memset(&view, 0, sizeof(view));
	view.chunk[0] = chunk;
	rng_state = 0x6a09e667f3bcc909ull;
	for (unsigned int i = 0; i < 4000; i++) {
		struct mod_ct_fast_line *fl = &chunk[1], *sl = &chunk[2], before;
		const bool liberal = rnd() % 8 == 0;
		const unsigned int odd = rnd() % 12;
		const uint32_t c0 = rnd(), s0 = rnd();
		const uint8_t opts = OPT_MSS | OPT_SACKP | OPT_WS | OPT_TS;
		struct seg syn = {O, F_SYN, c0, 0, (uint16_t)(rnd() % 4 == 0 ? rnd() % 3 : rnd()),
			0, (uint8_t)(rnd() & opts), (uint8_t)(rnd() % 16), 0, 0};
		struct seg sa = {R, F_SA, s0, c0 + 1, (uint16_t)(rnd() % 4 == 0 ? rnd() % 3 : rnd()),
			0, (uint8_t)(rnd() & opts), (uint8_t)(rnd() % 16), 0, 0};
		struct mod_ct_conn c_syn, slow, back, norm;
		struct mod_ct_verdict v;
		struct conv cv;
		bool plain = !liberal;
		uint16_t wo, n;

		conv_init(&cv);
		cv.cfg.tcp_be_liberal = liberal;
		assert_int_equal(send_seg(&cv, &syn), NEW);
		if (rnd() % 8 == 0) {
			/* The SYN again, another window. */
			syn.win = (uint16_t)rnd();
			assert_int_equal(send_seg(&cv, &syn), NEW);
		}
		assert_int_equal(cv.c.state, SS);
		c_syn = cv.c;
		mod_ct_fast_arm(fl, &cv.c, true, liberal);
		assert_int_equal((fl->mode & MOD_CT_FAST_M_SYNACK) != 0, !liberal);
		switch (odd) {
		case 6:
			sa.ack += rnd() % 2 ? 1 : (uint32_t)-1 - rnd() % 70000;
			plain = false;
			break;
		case 7:
			sa.len = (uint16_t)(1 + rnd() % 100);
			plain = false;
			break;
		case 8:
			sa.flags |= odd_flags[rnd() % RTE_DIM(odd_flags)];
			plain = plain && !(sa.flags & (F_URG | F_FIN | F_RST));
			break;
		case 9:
			sa.opts |= OPT_SACK;
			sa.sack_l = c0 - 100;
			sa.sack_r = c0 + 1 + rnd() % 2;
			plain = false;
			break;
		default:
			break;
		}
		/* Before the SYN/ACK, the armed line passes nothing of the opener
		 * (its ACKs are the tracker's: invalid in SYN_SENT). */
		for (unsigned int k = 0; k < 2 && !liberal; k++) {
			struct fc_action fa = {.ct_state = MOD_CT_ENTRY_ID, .ext = 1};

			build(&cv, &(struct seg){O, F_ACK, c0 + 1, rnd(), 1000, 0, 0, 0, 0, 0});
			before = *fl;
			assert_false(mod_ct_fast_check(&view, &fa, &cv.pkt));
			assert_memory_equal(&before, fl, sizeof(before));
		}
		build(&cv, &sa);
		before = *fl;
		slow = c_syn;
		assert_int_equal(mod_ct_packet(&cv.cfg, &slow, R, &cv.pkt, cv.frame, cv.len, &v), 0);
		if (!mod_ct_fast_synack(fl, &cv.pkt, cv.frame, cv.len)) {
			/* Left to the slow path: the line as it was. */
			assert_false(plain);
			assert_memory_equal(&before, fl, sizeof(before));
			left++;
			continue;
		}
		took++;
		assert_int_equal(v.ctstate, EST);
		assert_false(v.flags & MOD_CT_VF_IGNORED);
		assert_int_equal(slow.state, SR);
		assert_true(slow.flags & MOD_CT_C_REPLIED);
		/* The record the tracker made, as its line holds it. */
		mod_ct_fast_arm(sl, &slow, true, liberal);
		mod_ct_fast_load(sl, &norm, false);
		mod_ct_fast_load(fl, &back, true);
		assert_memory_equal(&back, &norm, sizeof(back));
		/* What the fast path reads next. */
		assert_memory_equal(fl->fp_end, sl->fp_end, sizeof(fl->fp_end));
		assert_memory_equal(fl->fp_edge, sl->fp_edge, sizeof(fl->fp_edge));
		assert_memory_equal(fl->fp_win, sl->fp_win, sizeof(fl->fp_win));
		assert_memory_equal(fl->scale, sl->scale, sizeof(fl->scale));
		assert_int_equal(fl->fp_state, sl->fp_state);
		assert_int_equal(fl->fp_unacked, sl->fp_unacked);
		assert_int_equal(fl->fp_ldir, sl->fp_ldir);
		assert_int_equal(fl->fp_lidx, sl->fp_lidx);
		assert_true(sl->mode & MOD_CT_FAST_M_ST_OK);
		/* Read between the bit and the state's move: replied, SYN_RECV. */
		before = *fl;
		before.fp_state = SS;
		mod_ct_fast_load(&before, &back, true);
		assert_memory_equal(&back, &norm, sizeof(back));
		mod_ct_fast_peek(&before, &back);
		assert_int_equal(back.state, SR);
		assert_int_equal(back.flags, norm.flags);
		/* The handshake's last ACK, the responder's data, its ACK. */
		wo = (uint16_t)(100 + rnd() % 60000);
		n = (uint16_t)(1 + rnd() % 100);
		{
			const struct seg next[3] = {
				{O, F_ACK, c0 + 1, s0 + 1, wo, 0, 0, 0, 0, 0},
				{R, F_PA, s0 + 1, c0 + 1 - rnd() % 3, sa.win, n, 0, 0, 0, 0},
				{O, F_ACK, c0 + 1, s0 + 1 + n, wo, 0, 0, 0, 0, 0},
			};

			for (unsigned int k = 0; k < RTE_DIM(next); k++) {
				struct fc_action fa = {.ct_state = MOD_CT_ENTRY_ID, .ext = 1};
				struct fc_action sla = {.ct_state = MOD_CT_ENTRY_ID, .ext = 2};
				bool pf, ps;

				build(&cv, &next[k]);
				fa.flags = sla.flags = next[k].dir == R ? FC_ACT_F_REPLY : 0;
				pf = mod_ct_fast_check(&view, &fa, &cv.pkt);
				ps = mod_ct_fast_check(&view, &sla, &cv.pkt);
				assert_int_equal(pf, ps);
				passed += pf;
				mod_ct_fast_load(fl, &back, true);
				mod_ct_fast_load(sl, &norm, true);
				assert_memory_equal(&back, &norm, sizeof(back));
			}
		}
	}
	print_message("  %u SYN/ACKs taken on the fast path, %u left to the slow path, %u "
		      "segments after them passed\n", took, left, passed);
	/* Both kinds, and the handshake going on on the fast path. */
	assert_true(took > 1000 && left > 500 && passed > took);
	free(chunk);
}

static void
test_lockstep(void **state)
{
	struct mod_ct_fast_line *line = aligned_alloc(64, sizeof(*line) << MOD_CT_FAST_CHUNK_SHIFT);
	uint64_t passed = 0, total = 0, moved = 0;

	(void)state;
	assert_non_null(line);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (unsigned int i = 0; i < 400; i++) {
		struct duo d;

		memset(&d, 0, sizeof(d));
		conv_init(&d.all);
		conv_init(&d.fast);
		if (i % 5 == 4)
			d.all.cfg.tcp_be_liberal = d.fast.cfg.tcp_be_liberal = true;
		memset(line, 0, sizeof(*line) << MOD_CT_FAST_CHUNK_SHIFT);
		d.view.chunk[0] = line;
		d.line = &line[1];
		lockstep_one(&d, 20 + rnd() % 100);
		passed += d.passed;
		total += d.total;
		moved += d.moved;
	}
	print_message("  %" PRIu64 " segments, %" PRIu64 " passed on the fast path, %" PRIu64
		      " with the fast path's state ahead of the record\n",
		total, passed, moved);
	/* The fast path does decide most of them, and moves states. */
	assert_true(passed * 3 > total);
	assert_true(moved > 0);
	free(line);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake_data_close),
		cmocka_unit_test(test_window_scaling),
		cmocka_unit_test(test_out_of_window),
		cmocka_unit_test(test_sack),
		cmocka_unit_test(test_retransmissions),
		cmocka_unit_test(test_stray_and_flags),
		cmocka_unit_test(test_rst),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_handshake_oddities),
		cmocka_unit_test(test_interest_timeouts),
		cmocka_unit_test(test_record_in_line),
		cmocka_unit_test(test_record_peek),
		cmocka_unit_test(test_record_timeout),
		cmocka_unit_test(test_line_maxack),
		cmocka_unit_test(test_synack_fast),
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
