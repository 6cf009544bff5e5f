/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_tcp.c — TCP connection tracking as Linux's
 * nf_conntrack does it (its behaviour with the be_liberal, loose and
 * max_retrans settings; written anew from that behaviour):
 *
 *  - the segment's flags must be one of the valid combinations, else the
 *    packet is INVALID whatever the connection;
 *  - the segment's kind (SYN, SYN/ACK, FIN, ACK, RST), direction and the
 *    state give the next state, INVALID, or "ignore" (accepted, nothing
 *    changes: the segment may come from endpoints more in sync than we
 *    are; a few of them are remembered to resynchronize later);
 *  - the windows: per direction the highest sequence number sent, the
 *    highest the receiver allows, the largest window, the highest ACK and
 *    the window scale; a segment whose SEQ lies beyond the receiver's
 *    window or whose (S)ACK acknowledges data never sent is INVALID (a
 *    small overshoot of the window is ignored), one below the window or
 *    with a too old ACK is ignored; accepted segments move the windows;
 *  - RSTs must match what the other side acknowledged; a RST before any
 *    reply ends the connection at once; SYNs reopen a closed connection
 *    only when it was closed by a FIN or reset by the SYN's side;
 *  - identical segments in a row count as retransmissions, which shorten
 *    the timeout.
 *
 * Pure: works on a struct mod_ct_conn handed in (conntrack.c dispatches
 * to it). Called on the rules lcore.
 */

#include <string.h>

#include "ct_priv.h"

/* The window assumed for old ACKs when the sender's own is smaller. */
#define OLD_ACK_WINDOW 66000u

/* Results of a transition that are not states. */
#define NEXT_INVALID 0xfe
#define NEXT_IGNORE  0xff

/* Results of the window check. */
enum win_res {
	WIN_ACCEPT,
	WIN_IGNORE,
	WIN_INVALID,
};

/* What a segment brings, computed once. */
struct seg {
	uint32_t seq;
	uint32_t ack;
	uint32_t end; /* seq + payload + SYN + FIN */
	uint16_t win; /* raw */
	uint8_t flags;
	uint8_t idx; /* enum mod_ct_tcp_index */
};

static inline bool
before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool
after(uint32_t a, uint32_t b)
{
	return before(b, a);
}

static uint32_t
old_ack_window(const struct mod_ct_tcp_side *s)
{
	return s->maxwin > OLD_ACK_WINDOW ? s->maxwin : OLD_ACK_WINDOW;
}

static enum mod_ct_tcp_index
tcp_index(uint8_t f)
{
	if (f & TCP_RST)
		return MOD_CT_TI_RST;
	if (f & TCP_SYN)
		return (f & TCP_ACK) ? MOD_CT_TI_SYNACK : MOD_CT_TI_SYN;
	if (f & TCP_FIN)
		return MOD_CT_TI_FIN;
	if (f & TCP_ACK)
		return MOD_CT_TI_ACK;
	return MOD_CT_TI_NONE;
}

bool
ct_tcp_flags_valid(uint8_t flags)
{
	/* PSH, ECE and CWR go with anything; URG only with SYN, ACK, FIN+ACK. */
	switch (flags & ~(TCP_PSH | TCP_ECE | TCP_CWR)) {
	case TCP_SYN:
	case TCP_SYN | TCP_URG:
	case TCP_SYN | TCP_ACK:
	case TCP_RST:
	case TCP_RST | TCP_ACK:
	case TCP_FIN | TCP_ACK:
	case TCP_FIN | TCP_ACK | TCP_URG:
	case TCP_ACK:
	case TCP_ACK | TCP_URG:
		return true;
	default:
		return false;
	}
}

static void
seg_init(struct seg *g, const struct fc_pkt *pkt)
{
	g->flags = pkt->tcp_flags;
	g->idx = (uint8_t)tcp_index(g->flags);
	g->seq = pkt->tcp_seq;
	g->ack = pkt->tcp_ack;
	g->win = pkt->tcp_win;
	g->end = g->seq + pkt->tcp_dlen + ((g->flags & TCP_SYN) != 0) + ((g->flags & TCP_FIN) != 0);
}

/*
 * The next state for a segment of kind @p idx from @p dir in state @p st,
 * or NEXT_INVALID / NEXT_IGNORE. The two directions differ for SYN,
 * SYN/ACK and ACK only.
 */
static unsigned int
tcp_next(unsigned int dir, unsigned int idx, unsigned int st)
{
	const bool orig = dir == MOD_CT_DIR_ORIG;

	switch (idx) {
	case MOD_CT_TI_SYN:
		switch (st) {
		case MOD_CT_S_NONE:
		case MOD_CT_S_CLOSE:
			return orig ? MOD_CT_S_SYN_SENT : NEXT_INVALID;
		case MOD_CT_S_SYN_SENT:
			return orig ? MOD_CT_S_SYN_SENT : MOD_CT_S_SYN_SENT2; /* simultaneous open */
		case MOD_CT_S_SYN_SENT2:
			return MOD_CT_S_SYN_SENT2;
		case MOD_CT_S_TIME_WAIT:
			return MOD_CT_S_SYN_SENT; /* reopen, by either side */
		default: /* SYN_RECV .. LAST_ACK */
			return orig ? NEXT_IGNORE : NEXT_INVALID;
		}
	case MOD_CT_TI_SYNACK:
		switch (st) {
		case MOD_CT_S_NONE:
			return NEXT_INVALID;
		case MOD_CT_S_SYN_SENT:
			return orig ? NEXT_INVALID : MOD_CT_S_SYN_RECV;
		case MOD_CT_S_SYN_SENT2:
			return MOD_CT_S_SYN_RECV;
		case MOD_CT_S_SYN_RECV:
			return orig ? MOD_CT_S_SYN_RECV : NEXT_IGNORE;
		default: /* a late SYN/ACK of the responder, or the opener's nonsense */
			return orig ? NEXT_INVALID : NEXT_IGNORE;
		}
	case MOD_CT_TI_FIN:
		switch (st) {
		case MOD_CT_S_SYN_RECV:
		case MOD_CT_S_ESTABLISHED:
			return MOD_CT_S_FIN_WAIT;
		case MOD_CT_S_FIN_WAIT:
		case MOD_CT_S_CLOSE_WAIT:
		case MOD_CT_S_LAST_ACK:
			return MOD_CT_S_LAST_ACK;
		case MOD_CT_S_TIME_WAIT:
		case MOD_CT_S_CLOSE:
			return st;
		default: /* NONE, SYN_SENT, SYN_SENT2 */
			return NEXT_INVALID;
		}
	case MOD_CT_TI_ACK:
		switch (st) {
		case MOD_CT_S_NONE:
			return orig ? MOD_CT_S_ESTABLISHED : NEXT_INVALID; /* pickup */
		case MOD_CT_S_SYN_SENT:
		case MOD_CT_S_SYN_SENT2:
			return orig ? NEXT_INVALID : NEXT_IGNORE; /* maybe a half-open connection */
		case MOD_CT_S_SYN_RECV:
			return orig ? MOD_CT_S_ESTABLISHED : MOD_CT_S_SYN_RECV;
		case MOD_CT_S_FIN_WAIT:
		case MOD_CT_S_CLOSE_WAIT:
			return MOD_CT_S_CLOSE_WAIT;
		case MOD_CT_S_LAST_ACK:
			return MOD_CT_S_TIME_WAIT;
		default: /* ESTABLISHED, TIME_WAIT, CLOSE */
			return st;
		}
	case MOD_CT_TI_RST:
		return st == MOD_CT_S_NONE ? NEXT_INVALID : MOD_CT_S_CLOSE;
	default:
		return NEXT_INVALID;
	}
}

/* The window-scale and SACK-permitted options of a SYN, into side @p s. */
static void
side_options(struct mod_ct_tcp_side *s, const struct fc_pkt *pkt)
{
	if (pkt->tcp_hlen <= 20)
		return; /* no options: what was known stays */
	s->scale = 0;
	s->flags &= MOD_CT_TS_LIBERAL;
	if (pkt->tcp_opt & FC_TCP_OPT_SACK_PERM)
		s->flags |= MOD_CT_TS_SACK_PERM;
	if (pkt->tcp_opt & FC_TCP_OPT_WSCALE) {
		s->scale = pkt->tcp_wscale;
		s->flags |= MOD_CT_TS_WSCALE;
	}
}

/* A side starts over (a SYN/ACK resynchronizes the connection). */
static void
side_reset(struct mod_ct_tcp_side *s)
{
	s->end = 0;
	s->maxend = 0;
	s->maxwin = 0;
	s->maxack = 0;
	s->scale = 0;
	s->flags &= MOD_CT_TS_LIBERAL;
}

/*
 * Side @p dir's first SYN (a SYN/ACK answering one, or the reply side's SYN
 * in a simultaneous open), or a new SYN of a side still in the handshake.
 * Window scaling holds in both directions only if both SYNs asked for it.
 */
static void
side_init(struct mod_ct_tcp *t, unsigned int dir, const struct fc_pkt *pkt, const struct seg *g)
{
	struct mod_ct_tcp_side *s = &t->side[dir], *r = &t->side[dir ^ 1];

	s->end = g->end;
	s->maxend = g->end;
	s->maxwin = g->win == 0 ? 1 : g->win;
	side_options(s, pkt);
	if (dir == MOD_CT_DIR_REPLY &&
		!((s->flags & MOD_CT_TS_WSCALE) && (r->flags & MOD_CT_TS_WSCALE))) {
		s->scale = 0;
		r->scale = 0;
	}
}

/*
 * Is the segment within the windows? Updates them when it is. With
 * be_liberal, or a liberal sender (pickup), a failed check accepts the
 * segment without updating anything. @p why receives the reason of
 * WIN_INVALID.
 */
static enum win_res
tcp_in_window(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct seg *g, const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	uint8_t *why)
{
	struct mod_ct_tcp *t = &c->tcp;
	struct mod_ct_tcp_side *s = &t->side[dir], *r = &t->side[dir ^ 1];
	const bool syn = g->flags & TCP_SYN, ackf = g->flags & TCP_ACK, rst = g->flags & TCP_RST;
	const bool liberal = cfg->tcp_be_liberal || (s->flags & MOD_CT_TS_LIBERAL);
	uint32_t seq = g->seq, ack = g->ack, sack = g->ack, end = g->end, win = g->win, swin;

	if ((r->flags & MOD_CT_TS_SACK_PERM) && frame != NULL)
		fc_tcp_sack_edge(frame, frame_len, pkt, &sack);

	if (s->maxwin == 0) {
		/* The side's first segment. */
		if (syn) {
			side_init(t, dir, pkt, g);
			if (!ackf)
				return WIN_ACCEPT; /* simultaneous open */
		} else {
			/* Mid-stream: guess from the segment. */
			s->end = end;
			swin = win << s->scale;
			s->maxwin = swin == 0 ? 1 : swin;
			s->maxend = end + s->maxwin;
			if (r->maxwin == 0)
				r->end = r->maxend = sack; /* nothing seen either way yet */
			else if (sack == r->end + 1)
				r->end++; /* likely the answer to a keepalive */
		}
	} else if (syn && after(end, s->end) &&
		   (c->state == MOD_CT_S_SYN_SENT || c->state == MOD_CT_S_SYN_RECV)) {
		/* A new SYN with higher sequence numbers: the side starts over. */
		side_init(t, dir, pkt, g);
		if (dir == MOD_CT_DIR_REPLY && !ackf)
			return WIN_ACCEPT;
	}

	if (!ackf)
		ack = sack = r->end; /* as if it acknowledged everything */
	else if (rst && ack == 0)
		ack = sack = r->end; /* stacks that put ACK 0 in a RST */
	if (rst && seq == 0 && c->state == MOD_CT_S_SYN_SENT)
		seq = end = s->end; /* a RST answering the SYN */

	if (!before(seq, s->maxend + 1)) {
		/* Beyond the receiver's window: a small overshoot with a sane ACK is
		 * ignored (some stacks send more than allowed), the rest invalid. */
		uint32_t overshot = end - s->maxend + 1;

		if (r->maxwin != 0 && after(end, s->end - r->maxwin - 1) &&
			after(sack, r->end - old_ack_window(s) - 1) && overshot <= r->maxwin &&
			before(sack, r->end + 1)) {
			s->end = end;
			s->flags |= MOD_CT_TS_UNACKED;
			return liberal ? WIN_ACCEPT : WIN_IGNORE;
		}
		*why = MOD_CT_WHY_SEQ;
		return liberal ? WIN_ACCEPT : WIN_INVALID;
	}
	if (!before(sack, r->end + 1)) {
		*why = MOD_CT_WHY_ACK; /* acknowledges data not sent yet */
		return liberal ? WIN_ACCEPT : WIN_INVALID;
	}
	if (r->maxwin != 0 && !after(end, s->end - r->maxwin - 1))
		return liberal ? WIN_ACCEPT : WIN_IGNORE; /* old data, already acknowledged */
	if (!after(sack, r->end - old_ack_window(s) - 1))
		return liberal ? WIN_ACCEPT : WIN_IGNORE; /* a very late ACK */

	/* In window: move the windows. */
	if (!syn)
		win <<= s->scale;
	swin = win + (sack - ack);
	if (s->maxwin < swin)
		s->maxwin = swin;
	if (after(end, s->end)) {
		s->end = end;
		s->flags |= MOD_CT_TS_UNACKED;
	}
	if (ackf) {
		if (!(s->flags & MOD_CT_TS_MAXACK)) {
			s->maxack = ack;
			s->flags |= MOD_CT_TS_MAXACK;
		} else if (after(ack, s->maxack)) {
			s->maxack = ack;
		}
	}
	if (r->maxwin != 0 && after(end, s->maxend))
		r->maxwin += end - s->maxend;
	if (after(sack + win, r->maxend - 1)) {
		r->maxend = sack + win;
		if (win == 0)
			r->maxend++;
	}
	if (ack == r->end)
		r->flags &= (uint8_t)~MOD_CT_TS_UNACKED;

	/* The same ACK segment again: a retransmission. */
	if (g->idx == MOD_CT_TI_ACK) {
		if (t->last_dir == dir && t->last_seq == seq && t->last_ack == ack &&
			t->last_end == end && t->last_win == g->win) {
			if (t->retrans < UINT8_MAX)
				t->retrans++;
		} else {
			t->last_dir = (uint8_t)dir;
			t->last_seq = seq;
			t->last_ack = ack;
			t->last_end = end;
			t->last_win = g->win;
			t->retrans = 0;
		}
	}
	return WIN_ACCEPT;
}

/* The connection is established and a valid packet followed (ASSURED). */
static bool
established(const struct mod_ct_conn *c)
{
	return c->state == MOD_CT_S_ESTABLISHED && (c->flags & MOD_CT_C_ASSURED);
}

/*
 * An invalid FIN or RST of an assured connection is remembered as the last
 * packet, unless it answers the other side's FIN or RST (Linux shortens the
 * timeout then; gufc keeps it: see doc/conntrack.md).
 */
static void
note_invalid(struct mod_ct_conn *c, unsigned int dir, unsigned int idx)
{
	struct mod_ct_tcp *t = &c->tcp;

	if (!(c->flags & MOD_CT_C_ASSURED) || (idx != MOD_CT_TI_RST && idx != MOD_CT_TI_FIN))
		return;
	if (t->last_dir != dir && (t->last_index == MOD_CT_TI_FIN || t->last_index == MOD_CT_TI_RST))
		return;
	t->last_index = (uint8_t)idx;
	t->last_dir = (uint8_t)dir;
}

static void
verdict_invalid(struct mod_ct_verdict *v, uint8_t why)
{
	v->ctstate = RULE_CT_INVALID;
	v->why = why;
}

/* Accepted (or ignored) from @p dir: a reply marks the connection replied. */
static void
verdict_accept(struct mod_ct_conn *c, unsigned int dir, uint8_t ctstate, bool ignored,
	struct mod_ct_verdict *v)
{
	v->ctstate = ctstate;
	if (ignored)
		v->flags |= MOD_CT_VF_IGNORED;
	if (dir == MOD_CT_DIR_REPLY)
		c->flags |= MOD_CT_C_REPLIED;
}

/*
 * The RST checks of a connection that would close: @return true to accept
 * it without the window check, false to go on to it; @p next may be set
 * back to the old state (a RST not quite matching: the endpoint may answer
 * with a challenge ACK), and @p v may say INVALID (then stop).
 */
static bool
rst_checks(struct mod_ct_conn *c, unsigned int dir, unsigned int old, const struct fc_pkt *pkt,
	unsigned int *next, struct mod_ct_verdict *v)
{
	struct mod_ct_tcp *t = &c->tcp;
	const struct mod_ct_tcp_side *r = &t->side[dir ^ 1];
	uint32_t seq = pkt->tcp_seq;

	/* Closing already: the tuple may be reused, nothing to check against. */
	if (old == MOD_CT_S_FIN_WAIT || old == MOD_CT_S_CLOSE_WAIT || old == MOD_CT_S_LAST_ACK ||
		old == MOD_CT_S_TIME_WAIT || old == MOD_CT_S_CLOSE)
		return true;
	if ((r->flags & MOD_CT_TS_MAXACK) && t->last_index != MOD_CT_TI_SYN) {
		if (seq == 0 && !established(c))
			return false; /* answering a SYN let through */
		if (before(seq, r->maxack)) {
			verdict_invalid(v, MOD_CT_WHY_RST);
			return false;
		}
		if (!established(c) || seq == r->maxack)
			return false;
		/* A RST right after the same side's data: part of a train. */
		if (t->last_index == MOD_CT_TI_ACK && t->last_dir == dir && seq == t->last_end)
			return false;
		*next = old;
	}
	/* A RST answering a SYN or ACK let through while out of sync. */
	if ((((c->flags & MOD_CT_C_REPLIED) && t->last_index == MOD_CT_TI_SYN) ||
		    (!(c->flags & MOD_CT_C_ASSURED) && t->last_index == MOD_CT_TI_ACK)) &&
		pkt->tcp_ack == t->last_end)
		return true;
	/* A RST answering a challenge ACK let through. */
	if (old == MOD_CT_S_SYN_SENT && t->last_index == MOD_CT_TI_ACK &&
		t->last_dir == MOD_CT_DIR_REPLY && seq == t->last_ack)
		return true;
	return false;
}

/*
 * An ignored segment: remembered as the last one, so that the endpoints'
 * answer can resynchronize the connection. @return true if instead it
 * resynchronizes it now (a SYN/ACK acknowledging an ignored SYN): the
 * handshake goes on from SYN_SENT.
 */
static bool
ignore_segment(struct mod_ct_conn *c, unsigned int dir, unsigned int old, const struct seg *g,
	const struct fc_pkt *pkt)
{
	struct mod_ct_tcp *t = &c->tcp;

	if (g->idx == MOD_CT_TI_SYNACK && t->last_index == MOD_CT_TI_SYN && t->last_dir != dir &&
		g->ack == t->last_end) {
		struct mod_ct_tcp_side *s = &t->side[t->last_dir];

		s->end = t->last_end;
		s->maxend = t->last_end;
		s->maxwin = t->last_win == 0 ? 1 : t->last_win;
		s->scale = t->last_wscale;
		t->last_flags &= (uint8_t)~MOD_CT_TS_CHALLENGE;
		s->flags = t->last_flags;
		side_reset(&t->side[dir]);
		return true;
	}
	t->last_index = g->idx;
	t->last_dir = (uint8_t)dir;
	t->last_seq = g->seq;
	t->last_end = g->end;
	t->last_win = g->win;
	if (g->idx == MOD_CT_TI_SYN && dir == MOD_CT_DIR_ORIG) {
		/* A SYN the endpoints may accept: keep its options. */
		t->last_flags = 0;
		t->last_wscale = 0;
		if (pkt->tcp_opt & FC_TCP_OPT_WSCALE) {
			t->last_flags |= MOD_CT_TS_WSCALE;
			t->last_wscale = pkt->tcp_wscale;
		}
		if (pkt->tcp_opt & FC_TCP_OPT_SACK_PERM)
			t->last_flags |= MOD_CT_TS_SACK_PERM;
		/* In LAST_ACK the answer may be a challenge ACK, not the last ACK. */
		if (old == MOD_CT_S_LAST_ACK)
			t->last_flags |= MOD_CT_TS_CHALLENGE;
	}
	if (old == MOD_CT_S_SYN_SENT && g->idx == MOD_CT_TI_ACK && dir == MOD_CT_DIR_REPLY)
		t->last_ack = g->ack; /* maybe a challenge ACK to the SYN */
	return false;
}

void
ct_tcp_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v)
{
	struct mod_ct_tcp *t = &c->tcp;
	const uint8_t ctstate = ct_pkt_ctstate(c, dir);
	unsigned int old = c->state, next;
	uint8_t why = MOD_CT_WHY_NONE;
	struct seg g;

	if (!ct_tcp_flags_valid(pkt->tcp_flags)) {
		verdict_invalid(v, MOD_CT_WHY_FLAGS);
		return;
	}
	seg_init(&g, pkt);
	next = tcp_next(dir, g.idx, old);
	switch (next) {
	case MOD_CT_S_SYN_SENT:
		if (old < MOD_CT_S_TIME_WAIT)
			break;
		/* TIME_WAIT or CLOSE: a new connection if this one closed with a
		 * FIN, or was reset by the SYN's side; else the SYN is ignored. */
		if (((t->side[0].flags | t->side[1].flags) & MOD_CT_TS_CLOSE_INIT) ||
			(t->last_dir == dir && t->last_index == MOD_CT_TI_RST)) {
			v->ctstate = RULE_CT_NEW;
			v->flags |= MOD_CT_VF_REOPEN;
			return;
		}
		/* fall through */
	case NEXT_IGNORE:
		if (ignore_segment(c, dir, old, &g, pkt)) {
			old = MOD_CT_S_SYN_SENT;
			next = MOD_CT_S_SYN_RECV;
			break;
		}
		verdict_accept(c, dir, ctstate, true, v);
		return;
	case NEXT_INVALID:
		verdict_invalid(v, MOD_CT_WHY_STATE);
		return;
	case MOD_CT_S_TIME_WAIT:
		/* The answer to an ignored SYN in LAST_ACK is no last ACK. */
		if (old == MOD_CT_S_LAST_ACK && g.idx == MOD_CT_TI_ACK && t->last_dir != dir &&
			t->last_index == MOD_CT_TI_SYN && (t->last_flags & MOD_CT_TS_CHALLENGE)) {
			t->last_flags &= (uint8_t)~MOD_CT_TS_CHALLENGE;
			verdict_accept(c, dir, ctstate, true, v);
			return;
		}
		break;
	case MOD_CT_S_SYN_SENT2:
		t->last_flags |= MOD_CT_TS_SIMOPEN;
		break;
	case MOD_CT_S_SYN_RECV:
		if (dir == MOD_CT_DIR_REPLY && g.idx == MOD_CT_TI_ACK &&
			(t->last_flags & MOD_CT_TS_SIMOPEN))
			next = MOD_CT_S_ESTABLISHED;
		break;
	case MOD_CT_S_CLOSE:
		if (g.idx != MOD_CT_TI_RST)
			break;
		if (rst_checks(c, dir, old, pkt, &next, v))
			goto in_window;
		if (v->ctstate == RULE_CT_INVALID)
			return;
		break;
	default:
		break;
	}

	switch (tcp_in_window(cfg, c, dir, &g, pkt, frame, frame_len, &why)) {
	case WIN_IGNORE:
		verdict_accept(c, dir, ctstate, true, v);
		return;
	case WIN_INVALID:
		note_invalid(c, dir, g.idx);
		verdict_invalid(v, why);
		return;
	default:
		break;
	}
in_window:
	t->last_index = g.idx;
	t->last_dir = (uint8_t)dir;
	c->state = (uint8_t)next;
	if (old != next && next == MOD_CT_S_FIN_WAIT)
		t->side[dir].flags |= MOD_CT_TS_CLOSE_INIT;
	if (!(c->flags & MOD_CT_C_REPLIED)) {
		/* Only a RST so far: no connection to keep. */
		if (g.flags & TCP_RST)
			v->flags |= MOD_CT_VF_REMOVE;
	} else if (!(c->flags & MOD_CT_C_ASSURED) &&
		   (old == MOD_CT_S_SYN_RECV || old == MOD_CT_S_ESTABLISHED) &&
		   next == MOD_CT_S_ESTABLISHED) {
		c->flags |= MOD_CT_C_ASSURED;
	}
	verdict_accept(c, dir, ctstate, false, v);
}

void
ct_tcp_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	struct mod_ct_tcp_side *s = &c->tcp.side[MOD_CT_DIR_ORIG];
	struct seg g;

	memset(c, 0, sizeof(*c));
	if (!ct_tcp_flags_valid(pkt->tcp_flags)) {
		verdict_invalid(v, MOD_CT_WHY_FLAGS);
		return;
	}
	seg_init(&g, pkt);
	if (g.idx == MOD_CT_TI_SYN) {
		s->end = g.end;
		s->maxwin = g.win == 0 ? 1 : g.win;
		s->maxend = s->end;
		side_options(s, pkt);
	} else if (g.idx == MOD_CT_TI_ACK && !cfg->tcp_strict) {
		/* Picked up mid-stream: its history is lost, the windows guessed,
		 * both sides liberal. */
		s->end = g.end;
		s->maxwin = g.win == 0 ? 1 : g.win;
		s->maxend = s->end + s->maxwin;
		s->flags = MOD_CT_TS_SACK_PERM | MOD_CT_TS_LIBERAL;
		c->tcp.side[MOD_CT_DIR_REPLY].flags = MOD_CT_TS_SACK_PERM | MOD_CT_TS_LIBERAL;
		c->flags = MOD_CT_C_PICKUP;
	} else {
		verdict_invalid(v, MOD_CT_WHY_NEW);
		return;
	}
	c->tcp.last_index = MOD_CT_TI_NONE;
	ct_tcp_packet(cfg, c, MOD_CT_DIR_ORIG, pkt, frame, frame_len, v);
	if (v->ctstate == RULE_CT_INVALID || c->state == MOD_CT_S_NONE) {
		memset(c, 0, sizeof(*c));
		return;
	}
	v->flags &= (uint8_t)~MOD_CT_VF_IGNORED;
	v->flags |= MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED;
}

/*
 * States whose every packet the slow path sees (the interest masks below),
 * unless the fast path moves the connection's state (mod_ct_fast_states():
 * it then records what the timeout caps below read, so the timeouts stay
 * the same functions of the connection).
 */
static bool
tcp_all_seen(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c)
{
	switch (c->state) {
	case MOD_CT_S_SYN_SENT:
	case MOD_CT_S_SYN_SENT2:
	case MOD_CT_S_SYN_RECV:
	case MOD_CT_S_FIN_WAIT:
	case MOD_CT_S_LAST_ACK:
		return true;
	case MOD_CT_S_ESTABLISHED:
		if ((c->flags & MOD_CT_C_REPLIED) && !(c->flags & MOD_CT_C_ASSURED))
			return true;
		break;
	default:
		break;
	}
	return c->tcp.retrans != 0 && c->tcp.retrans >= cfg->tcp_max_retrans;
}

/* Timeout slot of each TCP state. */
static const uint8_t state_timeout[MOD_CT_S__COUNT] = {
	[MOD_CT_S_SYN_SENT] = MOD_CT_TO_TCP_SYN_SENT,
	[MOD_CT_S_SYN_RECV] = MOD_CT_TO_TCP_SYN_RECV,
	[MOD_CT_S_ESTABLISHED] = MOD_CT_TO_TCP_ESTABLISHED,
	[MOD_CT_S_FIN_WAIT] = MOD_CT_TO_TCP_FIN_WAIT,
	[MOD_CT_S_CLOSE_WAIT] = MOD_CT_TO_TCP_CLOSE_WAIT,
	[MOD_CT_S_LAST_ACK] = MOD_CT_TO_TCP_LAST_ACK,
	[MOD_CT_S_TIME_WAIT] = MOD_CT_TO_TCP_TIME_WAIT,
	[MOD_CT_S_CLOSE] = MOD_CT_TO_TCP_CLOSE,
	[MOD_CT_S_SYN_SENT2] = MOD_CT_TO_TCP_SYN_SENT2,
};

static uint32_t
cap(uint32_t to, uint32_t max)
{
	return to > max ? max : to;
}

uint32_t
ct_tcp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c)
{
	const struct mod_ct_tcp *t = &c->tcp;
	uint32_t to = cfg->timeout[state_timeout[c->state]];

	if (t->retrans >= cfg->tcp_max_retrans)
		to = cap(to, cfg->timeout[MOD_CT_TO_TCP_RETRANS]);
	else if (tcp_all_seen(cfg, c) &&
		 ((t->side[0].flags | t->side[1].flags) & MOD_CT_TS_UNACKED))
		to = cap(to, cfg->timeout[MOD_CT_TO_TCP_UNACKNOWLEDGED]);
	else if (tcp_all_seen(cfg, c) && t->last_win == 0)
		to = cap(to, cfg->timeout[MOD_CT_TO_TCP_RETRANS]);
	/* Until the other side answers, never the long timeouts. */
	if (!(c->flags & MOD_CT_C_REPLIED))
		to = cap(to, cfg->timeout[MOD_CT_TO_TCP_UNREPLIED]);
	return to;
}

void
ct_tcp_interest(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c, uint16_t interest[2])
{
	const uint16_t base = FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST |
			      FC_INTEREST_TCP_NOACK;
	const struct mod_ct_tcp *t = &c->tcp;

	interest[MOD_CT_DIR_ORIG] = base;
	interest[MOD_CT_DIR_REPLY] = base;
	/* The first reply packet, whatever its flags, makes original packets ESTABLISHED. */
	if (!(c->flags & MOD_CT_C_REPLIED))
		interest[MOD_CT_DIR_REPLY] |= FC_INTEREST_ALL;
	if (!(t->retrans != 0 && t->retrans >= cfg->tcp_max_retrans) &&
		mod_ct_fast_states(c, cfg->tcp_be_liberal)) {
		/* The fast path checks the windows and moves the state, FINs
		 * included (mod_ct_fast_check()). */
		for (unsigned int d = 0; d < 2; d++)
			interest[d] = (uint16_t)((base & ~FC_INTEREST_TCP_FIN) | FC_INTEREST_TCP_WIN);
		return;
	}
	if (tcp_all_seen(cfg, c)) {
		interest[MOD_CT_DIR_ORIG] |= FC_INTEREST_ALL;
		interest[MOD_CT_DIR_REPLY] |= FC_INTEREST_ALL;
		return;
	}
	if (t->side[0].maxwin != 0 && t->side[1].maxwin != 0) {
		/* Both sides seen: the fast path checks (or, liberal, tracks) the windows. */
		interest[MOD_CT_DIR_ORIG] |= FC_INTEREST_TCP_WIN;
		interest[MOD_CT_DIR_REPLY] |= FC_INTEREST_TCP_WIN;
	} else if (!cfg->tcp_be_liberal &&
		   !((t->side[0].flags | t->side[1].flags) & MOD_CT_TS_LIBERAL)) {
		/* A side never seen (only ignored) and yet out of the handshake:
		 * the windows cannot be vouched for. */
		interest[MOD_CT_DIR_ORIG] |= FC_INTEREST_ALL;
		interest[MOD_CT_DIR_REPLY] |= FC_INTEREST_ALL;
	} else {
		/* Liberal (a pickup): a side never seen learns its window from its
		 * first segment, on the slow path; the other's in-window segments
		 * still move the windows (Linux accepts only the out-of-window
		 * ones as they are): the fast path tracks them. */
		for (unsigned int d = 0; d < 2; d++)
			interest[d] |= t->side[d].maxwin != 0 ? FC_INTEREST_TCP_WIN : FC_INTEREST_ALL;
	}
}

void
mod_ct_fast_synack_interest(uint16_t interest[2])
{
	const uint16_t base = FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST |
			      FC_INTEREST_TCP_NOACK;

	/* As the states the fast path moves (FINs its own): ct_tcp_interest(). */
	interest[MOD_CT_DIR_ORIG] = (uint16_t)((base & ~FC_INTEREST_TCP_FIN) | FC_INTEREST_TCP_WIN);
	interest[MOD_CT_DIR_REPLY] =
		(uint16_t)((base & ~(FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN)) | FC_INTEREST_TCP_WIN);
}
