/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_ct_tcp.c — libFuzzer target for TCP connection tracking
 * (lib/modules/conntrack/ct_tcp.c) and the fast path's window check
 * (mod_ct_fast_check(), mod_ct_fast_arm(), mod_ct_fast_fold()).
 *
 * The input is a configuration byte and then 16-byte records, one TCP
 * segment each: direction, flags, sequence and acknowledgment numbers
 * (absolute, or near what the connection knows of either side, so that
 * the fuzzer reaches the windows' edges and the 2^32 wraparound), window,
 * payload length, options (window scale, SACK permitted, a SACK block,
 * timestamps). Each segment is built as an IPv4 or IPv6 frame, parsed, and
 * decided twice: by a connection that sees every segment, and by one that
 * sees what the interest masks and the fast path's window check send to
 * the slow path (the line re-armed after each slow-path packet, as the
 * module does; the fast path moving the state from the first reply on).
 * Both must give every segment the same ctstate and, after every segment,
 * leave the same connection (the fast path's line folded into a copy):
 * state, flags, first FIN, unacknowledged data, retransmissions, timeout.
 * Sanitizers catch overflow and out-of-bounds in both; violations abort().
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conntrack.h"
#include "engine.h"
#include "fc_wire.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define REC	  16
#define FRAME_MAX 1600

/* One way of deciding the conversation. */
struct side {
	struct mod_ct_conn c;
	struct mod_ct_verdict v;
	bool created;
};

struct world {
	struct mod_ct_cfg cfg;
	bool v6;
	struct side all;		  /* sees every segment */
	struct side fast;		  /* sees what the fast path sends it */
	struct mod_ct_fast_line lines[2]; /* [1]: record id 1's */
	struct mod_ct_fast view;
	struct fc_action act[2];
	uint8_t frame[FRAME_MAX];
	uint32_t len;
	struct fc_pkt pkt;
};

/*
 * A number of record bytes @p b (4 bytes, the first a mode): absolute, or
 * the low 24 bits as a signed offset from one of the connection's values.
 */
static uint32_t
pick_num(const struct world *w, unsigned int dir, const uint8_t *b)
{
	const struct mod_ct_tcp *t = &w->all.c.tcp;
	int32_t off = (int32_t)((fc_rd32(b) & 0xffffff) << 8) >> 8;
	uint32_t base;

	switch (b[0] >> 5) {
	case 0:
		return fc_rd32(b);
	case 1:
		base = t->side[dir].end;
		break;
	case 2:
		base = t->side[dir ^ 1].end;
		break;
	case 3:
		base = t->side[dir].maxend;
		break;
	case 4:
		base = t->side[dir ^ 1].maxend;
		break;
	case 5:
		base = t->side[dir ^ 1].maxack;
		break;
	default:
		base = t->side[dir].end - t->side[dir ^ 1].maxwin;
		break;
	}
	return base + (uint32_t)(off >> ((b[0] >> 3) & 3) * 4);
}

/*
 * Record @p r as a frame in w->frame, parsed into w->pkt. @return the
 * segment's direction.
 */
static unsigned int
build(struct world *w, const uint8_t *r)
{
	const unsigned int dir = r[0] & 1;
	const uint32_t l3 = w->v6 ? 40 : 20;
	uint32_t seq = pick_num(w, dir, r + 2), ack = pick_num(w, dir ^ 1, r + 6);
	uint32_t dlen = ((uint32_t)r[12] << 8 | r[13]) & 0x3ff, olen = 0, l4 = 14 + l3;
	uint8_t opts[40];
	uint8_t *f = w->frame;

	memset(opts, 1, sizeof(opts)); /* NOPs */
	if (r[0] & 0x02) {
		opts[olen] = 2, opts[olen + 1] = 4, opts[olen + 2] = 5, opts[olen + 3] = 0xb4;
		olen += 4;
	}
	if (r[0] & 0x04) {
		opts[olen + 2] = 4, opts[olen + 3] = 2; /* SACK permitted */
		olen += 4;
	}
	if (r[0] & 0x08) {
		opts[olen + 1] = 3, opts[olen + 2] = 3, opts[olen + 3] = r[14]; /* window scale */
		olen += 4;
	}
	if (r[0] & 0x10) {
		opts[olen + 2] = 8, opts[olen + 3] = 10; /* timestamps */
		memset(opts + olen + 4, 0, 8);
		olen += 12;
	}
	if (r[0] & 0x20) {
		/* One SACK block near the ACK. */
		uint32_t left = ack + (uint32_t)(int8_t)r[14] * 64;

		opts[olen + 2] = 5, opts[olen + 3] = 10;
		fc_wr32(opts + olen + 4, left);
		fc_wr32(opts + olen + 8, left + (uint32_t)r[15] * 16);
		olen += 12;
	}
	if (r[0] & 0x40)
		olen = (olen + 7) & ~3u; /* room for a cut option (a NOP run otherwise) */
	if (olen > 40)
		olen = 40;
	memset(f, 0, 14 + l3 + 20 + olen + dlen);
	fc_wr16(f + 12, w->v6 ? 0x86dd : 0x0800);
	if (w->v6) {
		f[14] = 0x60;
		fc_wr16(f + 18, (uint16_t)(20 + olen + dlen));
		f[20] = 6;
		f[21] = 64;
		f[22] = 0x20, f[23] = 0x01, f[24] = 0x0d, f[25] = 0xb8;
		f[37] = dir == MOD_CT_DIR_ORIG ? 1 : 2;
		f[38] = 0x20, f[39] = 0x01, f[40] = 0x0d, f[41] = 0xb8;
		f[53] = dir == MOD_CT_DIR_ORIG ? 2 : 1;
	} else {
		f[14] = 0x45;
		fc_wr16(f + 16, (uint16_t)(20 + 20 + olen + dlen));
		f[22] = 64;
		f[23] = 6;
		fc_wr32(f + 26, dir == MOD_CT_DIR_ORIG ? 0xc0000201 : 0xc6336402);
		fc_wr32(f + 30, dir == MOD_CT_DIR_ORIG ? 0xc6336402 : 0xc0000201);
	}
	fc_wr16(f + l4, dir == MOD_CT_DIR_ORIG ? 40000 : 80);
	fc_wr16(f + l4 + 2, dir == MOD_CT_DIR_ORIG ? 80 : 40000);
	fc_wr32(f + l4 + 4, seq);
	fc_wr32(f + l4 + 8, ack);
	f[l4 + 12] = (uint8_t)(((20 + olen) / 4) << 4);
	f[l4 + 13] = r[1];
	fc_wr16(f + l4 + 14, (uint16_t)(r[10] << 8 | r[11]));
	memcpy(f + l4 + 20, opts, olen);
	w->len = l4 + 20 + olen + dlen;
	if (w->len < 60)
		w->len = 60; /* Ethernet padding: not part of the datagram */
	CHECK(fc_parse(f, w->len, &w->pkt) == FC_PARSE_OK);
	return dir;
}

/* One segment through a connection that sees it. @return its ctstate. */
static uint8_t
slow(struct world *w, struct side *s, unsigned int dir)
{
	if (!s->created) {
		if (dir != MOD_CT_DIR_ORIG)
			return 0xff; /* no connection yet: the reply tuple is another flow */
		CHECK(mod_ct_new(&w->cfg, &w->pkt, w->frame, w->len, &s->c, &s->v) == 0);
		s->created = (s->v.flags & MOD_CT_VF_CREATED) != 0;
		return s->v.ctstate;
	}
	CHECK(mod_ct_packet(&w->cfg, &s->c, dir, &w->pkt, w->frame, w->len, &s->v) == 0);
	if (s->v.flags & (MOD_CT_VF_REOPEN | MOD_CT_VF_REMOVE)) {
		memset(&s->c, 0, sizeof(s->c));
		s->created = false;
	}
	return s->v.ctstate;
}

/*
 * The connection as the fast path left it (its record, the line, loaded
 * with the progress folded in) against the one that saw every segment: the same state,
 * flags, first FIN, unacknowledged data, retransmissions and timeout.
 */
static void
compare(struct world *w)
{
	const uint8_t side_fl = MOD_CT_TS_CLOSE_INIT | MOD_CT_TS_UNACKED;
	struct mod_ct_conn fc;
	const struct mod_ct_conn *ac = &w->all.c;

	mod_ct_fast_load(&w->lines[1], &fc, true);
	CHECK(fc.state == ac->state);
	CHECK(fc.flags == ac->flags);
	CHECK(fc.tcp.retrans == ac->tcp.retrans);
	for (unsigned int k = 0; k < 2; k++)
		CHECK((fc.tcp.side[k].flags & side_fl) == (ac->tcp.side[k].flags & side_fl));
	CHECK(mod_ct_timeout(&w->cfg, FC_AF_INET4, 6, &fc) ==
		mod_ct_timeout(&w->cfg, FC_AF_INET4, 6, ac));
}

static void
segment(struct world *w, const uint8_t *r)
{
	unsigned int dir = build(w, r);
	struct side *f = &w->fast;
	uint8_t want, got;
	bool was = f->created;

	want = slow(w, &w->all, dir);
	if (was && !rule_engine_wants(&w->act[dir], &w->pkt) &&
		(!(w->act[dir].interest & FC_INTEREST_TCP_WIN) ||
			mod_ct_fast_check(&w->view, &w->act[dir], &w->pkt))) {
		/* Passed on the fast path with the entry's cached ctstate. */
		got = (uint8_t)mod_ct_conn_ctstate(&f->c, dir);
	} else {
		if (was)
			mod_ct_fast_load(&w->lines[1], &f->c, true); /* the record is the line */
		got = slow(w, f, dir);
		/* What the module stores after the slow path decided. */
		memset(w->act, 0, sizeof(w->act));
		mod_ct_fast_arm(&w->lines[1], f->created ? &f->c : NULL,
			f->created && ((f->v.interest[0] | f->v.interest[1]) & FC_INTEREST_TCP_WIN),
			w->cfg.tcp_be_liberal);
		for (unsigned int k = 0; f->created && k < 2; k++) {
			w->act[k].interest = f->v.interest[k];
			w->act[k].ct_state = MOD_CT_ENTRY_ID;
			w->act[k].ext = 1;
			w->act[k].flags = k == MOD_CT_DIR_REPLY ? FC_ACT_F_REPLY : 0;
		}
	}
	if (getenv("FUZZ_CT_TCP_DEBUG") != NULL) {
		char a[MOD_CT_FORMAT_MAX], b[MOD_CT_FORMAT_MAX];

		mod_ct_conn_format(&w->all.c, a, sizeof(a));
		mod_ct_conn_format(&f->c, b, sizeof(b));
		fprintf(stderr,
			"d%u f%02x seq %u ack %u win %u len %u opt %02x -> %u/%u\n  all %s\n  "
			"fast %s\n",
			dir, w->pkt.tcp_flags, w->pkt.tcp_seq, w->pkt.tcp_ack, w->pkt.tcp_win,
			w->pkt.tcp_dlen, w->pkt.tcp_opt, want, got, a, b);
	}
	CHECK(got == want);
	CHECK(f->created == w->all.created);
	if (f->created)
		compare(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct world w;

	if (size < 1)
		return 0;
	memset(&w, 0, sizeof(w));
	mod_ct_cfg_init(&w.cfg);
	w.cfg.tcp_strict = (data[0] & 0x01) != 0;
	w.cfg.tcp_be_liberal = (data[0] & 0x02) != 0;
	w.cfg.tcp_max_retrans = (data[0] >> 2) & 3;
	w.v6 = (data[0] & 0x10) != 0;
	CHECK(mod_ct_cfg_check(&w.cfg) == 0);
	w.view.chunk[0] = w.lines;
	for (size_t off = 1; off + REC <= size && off < 1 + 256 * REC; off += REC)
		segment(&w, data + off);
	return 0;
}
