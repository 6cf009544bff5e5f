/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_line.c — a connection's record on the fast
 * path's line (struct mod_ct_fast_line, one cache line): stored from and
 * loaded back into a struct mod_ct_conn, folded with what the fast path
 * moved meanwhile, armed for the handshake's second step (the SYN/ACK
 * the RX lcore takes, ct_fast.c) and settled once it did; the timeout
 * and ctstate aging and the classification read straight off the line.
 *
 * Pure: called on the rules lcore (store, arm, load, fold) and on any
 * lcore for the reads (peek, timeout, ctstate).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "ct_priv.h"

/*
 * mod_ct_fast_fold() of a line armed for the SYN/ACK, into a record not
 * replied yet: nothing if the fast path has not taken it (nothing else
 * moves before it); else the reply side as mod_ct_fast_synack() set it up
 * (moved on since by the segments the fast path passed, which the rest of
 * the fold reads), the opener's edge, the record replied (both scales
 * come with the line). @return whether it took it.
 */
static __rte_noinline bool
fold_synack(struct mod_ct_conn *c, const struct mod_ct_fast_line *l)
{
	struct mod_ct_tcp_side *o = &c->tcp.side[MOD_CT_DIR_ORIG], *r = &c->tcp.side[MOD_CT_DIR_REPLY];
	uint8_t cf = __atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE);

	if (!(cf & MOD_CT_FAST_REPLIED))
		return false;
	r->end = MOD_CT_LD(l->fp_end[MOD_CT_DIR_REPLY]);
	r->maxend = MOD_CT_LD(l->fp_edge[MOD_CT_DIR_ORIG]);
	r->maxwin = MOD_CT_LD(l->fp_win[MOD_CT_DIR_REPLY]);
	r->maxack = MOD_CT_LD(l->fp_ack[MOD_CT_DIR_REPLY]);
	r->flags = (uint8_t)(MOD_CT_TS_MAXACK |
		((cf & MOD_CT_FAST_R_SACK_PERM) ? MOD_CT_TS_SACK_PERM : 0) |
		((cf & MOD_CT_FAST_R_WSCALE) ? MOD_CT_TS_WSCALE : 0));
	o->maxend = MOD_CT_LD(l->fp_edge[MOD_CT_DIR_REPLY]);
	c->flags |= MOD_CT_C_REPLIED;
	return true;
}

void
mod_ct_fast_fold(struct mod_ct_conn *c, const struct mod_ct_fast_line *l)
{
	struct mod_ct_tcp *t = &c->tcp;
	uint8_t mode = MOD_CT_LD(l->mode);
	bool took = false;

	if (!(mode & MOD_CT_FAST_M_ARMED))
		return;
	if (unlikely(mode & MOD_CT_FAST_M_SYNACK) && !(c->flags & MOD_CT_C_REPLIED)) {
		took = fold_synack(c, l);
		if (!took)
			return;
	}
	for (unsigned int d = 0; d < 2; d++) {
		struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];
		uint32_t end = MOD_CT_LD(l->fp_end[d]), edge = MOD_CT_LD(l->fp_edge[d]);
		uint32_t ack = MOD_CT_LD(l->fp_ack[d]), win = MOD_CT_LD(l->fp_win[d]);

		if (mod_ct_seq_after(end, s->end))
			s->end = end;
		if (mod_ct_seq_after(edge, r->maxend))
			r->maxend = edge;
		if (MOD_CT_LD(l->fp_seen[d]) != 0 &&
			(!(s->flags & MOD_CT_TS_MAXACK) || mod_ct_seq_after(ack, s->maxack))) {
			s->maxack = ack;
			s->flags |= MOD_CT_TS_MAXACK;
		}
		if (win > s->maxwin)
			s->maxwin = win;
	}
	/* Data outstanding, as the segments the fast path passed left it. */
	for (unsigned int d = 0; d < 2; d++)
		t->side[d].flags = (uint8_t)((t->side[d].flags & ~MOD_CT_TS_UNACKED) |
			(((MOD_CT_LD(l->fp_unacked) >> d) & 1) ? MOD_CT_TS_UNACKED : 0));
	/* Linux's memory of the last segment and the retransmissions in a
	 * row: the line holds them (armed with the record's). */
	t->last_dir = MOD_CT_LD(l->fp_ldir);
	t->last_index = MOD_CT_LD(l->fp_lidx);
	t->last_seq = MOD_CT_LD(l->fp_lseq);
	t->last_ack = MOD_CT_LD(l->fp_lack);
	t->last_end = MOD_CT_LD(l->fp_lend);
	t->last_win = MOD_CT_LD(l->fp_lwin);
	t->retrans = MOD_CT_LD(l->fp_retrans);
	if (mode & MOD_CT_FAST_M_ST_OK) {
		uint8_t cf = MOD_CT_LD(l->fp_cflags);

		c->state = MOD_CT_LD(l->fp_state);
		/* The SYN/ACK's bit is set before its state moves. */
		if (unlikely(took) && c->state == MOD_CT_S_SYN_SENT)
			c->state = MOD_CT_S_SYN_RECV;
		if (cf & MOD_CT_FAST_ASSURED)
			c->flags |= MOD_CT_C_ASSURED;
		for (unsigned int d = 0; d < 2; d++)
			if (cf & (MOD_CT_FAST_CLOSE_INIT << d))
				t->side[d].flags |= MOD_CT_TS_CLOSE_INIT;
	}
}

bool
mod_ct_fast_states(const struct mod_ct_conn *c, bool be_liberal)
{
	const struct mod_ct_tcp *t = &c->tcp;

	switch (c->state) {
	case MOD_CT_S_SYN_RECV:
		if (t->last_flags & MOD_CT_TS_SIMOPEN)
			return false; /* the reply side's ACK establishes it */
		break;
	case MOD_CT_S_ESTABLISHED:
	case MOD_CT_S_FIN_WAIT:
	case MOD_CT_S_CLOSE_WAIT:
	case MOD_CT_S_LAST_ACK:
	case MOD_CT_S_TIME_WAIT:
	case MOD_CT_S_CLOSE:
		break;
	default:
		return false;
	}
	return (c->flags & MOD_CT_C_REPLIED) && !be_liberal &&
		!((t->side[0].flags | t->side[1].flags) & MOD_CT_TS_LIBERAL) &&
		t->side[0].maxwin != 0 && t->side[1].maxwin != 0 && t->last_index != MOD_CT_TI_SYN;
}

/*
 * struct mod_ct_fast_line::rc_last_flags: struct mod_ct_tcp::last_flags
 * (the bits below) with last_wscale in bits 2-5.
 */
#define RC_LAST_FLAGS (MOD_CT_TS_WSCALE | MOD_CT_TS_SACK_PERM | MOD_CT_TS_CHALLENGE | \
	MOD_CT_TS_SIMOPEN)
#define RC_LAST_WSCALE_SHIFT 2
static_assert((RC_LAST_FLAGS & (0xfu << RC_LAST_WSCALE_SHIFT)) == 0 && FC_TCP_MAX_WSCALE <= 15,
	"last_flags and last_wscale share a byte");
static_assert((MOD_CT_C_ALL & MOD_CT_FAST_RC_PROTO) == 0,
	"the protocol's bits are free in the flags");

/* struct mod_ct_fast_line::rc_flags's bits for a record's protocol. */
static uint8_t
rc_proto(uint8_t proto)
{
	return proto == PROTO_TCP ? MOD_CT_FAST_RC_TCP : proto == PROTO_UDP ? MOD_CT_FAST_RC_UDP :
	       proto == PROTO_SCTP ? MOD_CT_FAST_RC_SCTP : 0;
}

/* A line's protocol, as rc_proto() stored it. */
static uint8_t
line_proto(const struct mod_ct_fast_line *l)
{
	return (l->rc_flags & MOD_CT_FAST_RC_TCP) ? PROTO_TCP :
	       (l->rc_flags & MOD_CT_FAST_RC_UDP) ? PROTO_UDP :
	       (l->rc_flags & MOD_CT_FAST_RC_SCTP) ? PROTO_SCTP : 0;
}
static_assert(MOD_CT_HELPER__COUNT <= 16, "two helpers share a byte");
static_assert(sizeof(struct mod_ct_fast_line) == RTE_CACHE_LINE_MIN_SIZE,
	"a connection's record is one cache line");

/* The mode's MOD_CT_FAST_M_MAXACK bits of connection @p c. */
static uint8_t
maxack_bits(const struct mod_ct_conn *c)
{
	uint8_t m = 0;

	for (unsigned int d = 0; d < 2; d++)
		if (c->tcp.side[d].flags & MOD_CT_TS_MAXACK)
			m |= (uint8_t)(MOD_CT_FAST_M_MAXACK << d);
	return m;
}

void
mod_ct_fast_store(struct mod_ct_fast_line *l, const struct mod_ct_conn *c)
{
	const struct mod_ct_tcp *t = &c->tcp;

	for (unsigned int d = 0; d < 2; d++) {
		const struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];

		MOD_CT_ST(l->scale[d], s->scale);
		MOD_CT_ST(l->fp_end[d], s->end);
		MOD_CT_ST(l->fp_edge[d], r->maxend);
		MOD_CT_ST(l->fp_ack[d], s->maxack);
		MOD_CT_ST(l->fp_win[d], s->maxwin);
		l->rc_sflags[d] = s->flags;
	}
	MOD_CT_ST(l->fp_lseq, t->last_seq);
	MOD_CT_ST(l->fp_lack, t->last_ack);
	MOD_CT_ST(l->fp_lend, t->last_end);
	MOD_CT_ST(l->fp_lwin, t->last_win);
	MOD_CT_ST(l->fp_ldir, t->last_dir);
	MOD_CT_ST(l->fp_lidx, t->last_index);
	MOD_CT_ST(l->fp_retrans, t->retrans);
	MOD_CT_ST(l->fp_seen[0], 0);
	MOD_CT_ST(l->fp_seen[1], 0);
	MOD_CT_ST(l->fp_state, c->state);
	/* Once held or taken, the SYN/ACK's step stays so (mod_ct_fast_hold()). */
	MOD_CT_ST(l->fp_cflags, MOD_CT_LD(l->fp_cflags) & MOD_CT_FAST_CLAIM);
	MOD_CT_ST(l->fp_unacked, (uint8_t)(((t->side[0].flags & MOD_CT_TS_UNACKED) ? 1u : 0u) |
					   ((t->side[1].flags & MOD_CT_TS_UNACKED) ? 2u : 0u)));
	/* An SCTP association: its tags where a TCP connection's ends are. */
	if (c->proto == PROTO_SCTP) {
		MOD_CT_ST(l->sctp_vtag[0], c->sctp.vtag[0]);
		MOD_CT_ST(l->sctp_vtag[1], c->sctp.vtag[1]);
		l->rc_sflags[0] = c->sctp.flags;
	}
	/* The rest, which the fast path never reads. */
	l->rc_state = c->state;
	l->rc_flags = (uint8_t)(c->flags | rc_proto(c->proto));
	l->rc_helper = (uint8_t)((c->helper & 0xf) | (c->master_helper << 4));
	l->rc_last_flags = (uint8_t)((t->last_flags & RC_LAST_FLAGS) |
		(t->last_wscale << RC_LAST_WSCALE_SHIFT));
	l->rc_retrans = t->retrans;
	MOD_CT_ST(l->mode, (uint8_t)((l->mode & ~(3u * MOD_CT_FAST_M_MAXACK | MOD_CT_FAST_M_SYNACK |
						    MOD_CT_FAST_M_WSCALE0)) | maxack_bits(c)));
}

void
mod_ct_fast_arm(struct mod_ct_fast_line *l, const struct mod_ct_conn *c, bool armed,
	bool be_liberal)
{
	uint8_t mode = 0;

	if (c == NULL) {
		MOD_CT_ST(l->mode, 0);
		return;
	}
	mod_ct_fast_store(l, c);
	mode = maxack_bits(c);
	if (armed) {
		mode |= MOD_CT_FAST_M_ARMED;
		if (mod_ct_fast_states(c, be_liberal))
			mode |= MOD_CT_FAST_M_ST_OK;
		/* The SYN/ACK to take: then the state's mover (SYN_RECV is). */
		if (mod_ct_fast_synack_ok(c, be_liberal))
			mode |= (uint8_t)(MOD_CT_FAST_M_SYNACK | MOD_CT_FAST_M_ST_OK |
				((c->tcp.side[MOD_CT_DIR_ORIG].flags & MOD_CT_TS_WSCALE) ?
					MOD_CT_FAST_M_WSCALE0 : 0));
		/* A new connection's step to take (its entries name the line after). */
		if (mode & MOD_CT_FAST_M_SYNACK)
			MOD_CT_ST(l->fp_cflags, 0);
		for (unsigned int d = 0; d < 2; d++)
			if (be_liberal || (c->tcp.side[d].flags & MOD_CT_TS_LIBERAL))
				mode |= (uint8_t)(MOD_CT_FAST_M_LIBERAL << d);
	}
	MOD_CT_ST(l->mode, mode);
}

void
mod_ct_fast_load(const struct mod_ct_fast_line *l, struct mod_ct_conn *c, bool fold)
{
	struct mod_ct_tcp *t = &c->tcp;

	memset(c, 0, sizeof(*c));
	c->state = l->rc_state;
	c->flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c->proto = line_proto(l);
	c->helper = l->rc_helper & 0xf;
	c->master_helper = l->rc_helper >> 4;
	/*
	 * The windows and the memory of the last segment as the line holds
	 * them: what was stored, or (armed) the fast path's progress since,
	 * which only moves them forward (what folding them makes of them).
	 */
	for (unsigned int d = 0; d < 2; d++) {
		struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];

		s->scale = MOD_CT_LD(l->scale[d]);
		s->end = MOD_CT_LD(l->fp_end[d]);
		r->maxend = MOD_CT_LD(l->fp_edge[d]);
		s->maxack = MOD_CT_LD(l->fp_ack[d]);
		s->maxwin = MOD_CT_LD(l->fp_win[d]);
		s->flags = l->rc_sflags[d];
	}
	t->last_seq = MOD_CT_LD(l->fp_lseq);
	t->last_ack = MOD_CT_LD(l->fp_lack);
	t->last_end = MOD_CT_LD(l->fp_lend);
	t->last_win = MOD_CT_LD(l->fp_lwin);
	t->last_dir = MOD_CT_LD(l->fp_ldir);
	t->last_index = MOD_CT_LD(l->fp_lidx);
	t->retrans = l->rc_retrans;
	t->last_flags = l->rc_last_flags & RC_LAST_FLAGS;
	t->last_wscale = (uint8_t)((l->rc_last_flags >> RC_LAST_WSCALE_SHIFT) & 0xf);
	if (c->proto == PROTO_SCTP) {
		/* No window tracking: the line's first words are the tags. */
		memset(t, 0, sizeof(*t));
		c->sctp.vtag[0] = MOD_CT_LD(l->sctp_vtag[0]);
		c->sctp.vtag[1] = MOD_CT_LD(l->sctp_vtag[1]);
		c->sctp.flags = l->rc_sflags[0];
		return;
	}
	if (fold)
		mod_ct_fast_fold(c, l);
}

void
mod_ct_fast_peek(const struct mod_ct_fast_line *l, struct mod_ct_conn *c)
{
	uint8_t mode = MOD_CT_LD(l->mode);
	bool took = false;

	/* mod_ct_fast_load()'s scalar fields, then what mod_ct_fast_fold() moves of them. */
	c->state = l->rc_state;
	c->flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c->proto = line_proto(l);
	c->helper = l->rc_helper & 0xf;
	c->master_helper = l->rc_helper >> 4;
	/* An SCTP association's line is never folded (mod_ct_fast_load()). */
	if (c->proto == PROTO_SCTP)
		return;
	/* Armed for the SYN/ACK: nothing moved before the fast path took it;
	 * then it is replied (and SYN_RECV, below). */
	if (unlikely((mode & (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_SYNACK)) ==
		    (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_SYNACK)) &&
		!(c->flags & MOD_CT_C_REPLIED)) {
		if (!(__atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE) & MOD_CT_FAST_REPLIED))
			return;
		c->flags |= MOD_CT_C_REPLIED;
		took = true;
	}
	if ((mode & (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_ST_OK)) ==
		(MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_ST_OK)) {
		c->state = MOD_CT_LD(l->fp_state);
		if (unlikely(took) && c->state == MOD_CT_S_SYN_SENT)
			c->state = MOD_CT_S_SYN_RECV;
		if (MOD_CT_LD(l->fp_cflags) & MOD_CT_FAST_ASSURED)
			c->flags |= MOD_CT_C_ASSURED;
	}
}

uint32_t
mod_ct_fast_tcp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_fast_line *l)
{
	uint8_t mode = MOD_CT_LD(l->mode);
	bool folded = (mode & MOD_CT_FAST_M_ARMED) != 0;
	uint8_t unacked;
	struct mod_ct_conn c;

	/*
	 * What ct_tcp_timeout() reads of the folded load: the state and the
	 * flags (mod_ct_fast_peek()), the retransmissions in a row, the data
	 * outstanding and the last window. A line armed for the SYN/ACK the
	 * fast path has not taken folds nothing (mod_ct_fast_fold()).
	 */
	mod_ct_fast_peek(l, &c);
	if (folded && (mode & MOD_CT_FAST_M_SYNACK) &&
		!(l->rc_flags & MOD_CT_C_REPLIED) &&
		!(__atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE) & MOD_CT_FAST_REPLIED))
		folded = false;
	c.proto = PROTO_TCP;
	c.tcp.last_win = MOD_CT_LD(l->fp_lwin);
	if (folded) {
		c.tcp.retrans = MOD_CT_LD(l->fp_retrans);
		unacked = MOD_CT_LD(l->fp_unacked);
		c.tcp.side[0].flags = (unacked & 1) ? MOD_CT_TS_UNACKED : 0;
		c.tcp.side[1].flags = (unacked & 2) ? MOD_CT_TS_UNACKED : 0;
	} else {
		c.tcp.retrans = l->rc_retrans;
		c.tcp.side[0].flags = l->rc_sflags[0];
		c.tcp.side[1].flags = l->rc_sflags[1];
	}
	return mod_ct_timeout(cfg, FC_AF_INET4, PROTO_TCP, &c);
}

unsigned int
mod_ct_fast_ctstate(const struct mod_ct_fast_line *l, unsigned int dir)
{
	struct mod_ct_conn c;

	/* What mod_ct_conn_ctstate() reads, as mod_ct_fast_load() makes it. */
	c.state = l->rc_state;
	c.flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c.master_helper = l->rc_helper >> 4;
	if (c.state == MOD_CT_S_NONE || !ct_conn_valid(&c))
		return 0;
	return ct_pkt_ctstate(&c, dir);
}
