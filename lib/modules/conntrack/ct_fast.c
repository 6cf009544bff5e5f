/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — the fast path's window check, every case:
 * mod_ct_fast_check_full(), which mod_ct_fast_check() (conntrack_fast.h)
 * calls out of line for what its straight line does not take; and the
 * handshake's second step on the fast path (mod_ct_fast_synack()).
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_pause.h>

#include "ct_priv.h"

/*
 * Line @p l's state after a segment of direction @p s (an ACK, or with
 * @p fin a FIN+ACK) that passed the window check: the transitions of the
 * states mod_ct_fast_states() allows, as the slow path makes them
 * (SYN_RECV: the original side's ACK establishes and assures the
 * connection; ESTABLISHED: an ACK assures it, a FIN starts closing;
 * FIN_WAIT: an ACK to CLOSE_WAIT, a FIN to LAST_ACK; CLOSE_WAIT: a FIN to
 * LAST_ACK; LAST_ACK: an ACK to TIME_WAIT; TIME_WAIT and CLOSE stay).
 * @return false to send the segment to the slow path instead (a FIN in
 *   CLOSE, or another lcore moved the state meanwhile).
 * Context: registered reader (RX lcore) serving the segment's direction.
 */
static bool
fast_state_move(struct mod_ct_fast_line *l, unsigned int s, bool fin)
{
	uint8_t st = MOD_CT_LD(l->fp_state), next = st, cf = 0;

	if (fin) {
		switch (st) {
		case MOD_CT_S_SYN_RECV:
		case MOD_CT_S_ESTABLISHED:
			next = MOD_CT_S_FIN_WAIT;
			cf = (uint8_t)(MOD_CT_FAST_CLOSE_INIT << s);
			break;
		case MOD_CT_S_FIN_WAIT:
		case MOD_CT_S_CLOSE_WAIT:
		case MOD_CT_S_LAST_ACK:
			next = MOD_CT_S_LAST_ACK;
			break;
		case MOD_CT_S_TIME_WAIT:
			break;
		default:
			return false;
		}
	} else {
		switch (st) {
		case MOD_CT_S_SYN_RECV:
			if (s == MOD_CT_DIR_ORIG) {
				next = MOD_CT_S_ESTABLISHED;
				cf = MOD_CT_FAST_ASSURED;
			}
			break;
		case MOD_CT_S_ESTABLISHED:
			cf = MOD_CT_FAST_ASSURED;
			break;
		case MOD_CT_S_FIN_WAIT:
		case MOD_CT_S_CLOSE_WAIT:
			next = MOD_CT_S_CLOSE_WAIT;
			break;
		case MOD_CT_S_LAST_ACK:
			next = MOD_CT_S_TIME_WAIT;
			break;
		case MOD_CT_S_TIME_WAIT:
		case MOD_CT_S_CLOSE:
			break;
		default:
			return false;
		}
	}
	if (next != st && !__atomic_compare_exchange_n(&l->fp_state, &st, next, false,
				  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return false;
	if (cf != 0 && (MOD_CT_LD(l->fp_cflags) & cf) != cf)
		__atomic_fetch_or(&l->fp_cflags, cf, __ATOMIC_RELAXED);
	return true;
}

unsigned int
mod_ct_fast_check_full(struct mod_ct_fast_line *l, unsigned int s, const struct fc_pkt *p)
{
	const unsigned int r = s ^ 1;
	const bool fin = (p->tcp_flags & 0x01) != 0;
	uint32_t seq, end, ack, lim, end_s, end_r, win_s, win_r, w, edge;
	uint32_t len;
	bool liberal, below;
	uint8_t seen;

	seq = p->tcp_seq;
	len = (uint32_t)p->tcp_dlen + fin;
	end = seq + len;
	ack = p->tcp_ack;
	liberal = (MOD_CT_LD(l->mode) >> s) & MOD_CT_FAST_M_LIBERAL;
	end_s = MOD_CT_LD(l->fp_end[s]);
	end_r = MOD_CT_LD(l->fp_end[r]);
	win_s = MOD_CT_LD(l->fp_win[s]);
	win_r = MOD_CT_LD(l->fp_win[r]);
	lim = MOD_CT_LD(l->fp_edge[r]);
	/* Below the window, or a very old ACK: ignored. */
	below = (win_r != 0 && !mod_ct_seq_after(end, end_s - win_r - 1)) ||
		!mod_ct_seq_after(ack, end_r - RTE_MAX(win_s, MOD_CT_OLD_ACK_WINDOW) - 1);
	/* The common case in one branch: new data or a plain ACK at the sender's
	 * end, in the window, acknowledging what the other side sent. */
	if (likely(!liberal && !below && !mod_ct_seq_after(end, lim) &&
		   !mod_ct_seq_after(seq, lim) && !mod_ct_seq_after(ack, end_r) &&
		   (len != 0 ? mod_ct_seq_after(end, end_s) : end == end_s)))
		goto record;
	if (fin)
		return MOD_CT_FAST_SLOW; /* a FIN: only as new data in the window */
	if (mod_ct_seq_after(seq, lim)) {
		/* Beyond the receiver's window: invalid, or (liberal) accepted as
		 * is, unless a small overshoot moves the sender's end. */
		if (!liberal || !(below || end - lim + 1 > win_r || mod_ct_seq_after(ack, end_r)))
			return MOD_CT_FAST_SLOW;
		goto liberal_pass;
	}
	if (mod_ct_seq_after(end, lim))
		return MOD_CT_FAST_SLOW; /* overshoots the window: it grows */
	if (mod_ct_seq_after(ack, end_r)) {
		if (!liberal)
			return MOD_CT_FAST_SLOW; /* acknowledges data not sent */
		goto liberal_pass;
	}
	if (below) {
		if (liberal)
			goto liberal_pass;
		/* Armed for the SYN/ACK and not past it (mod_ct_fast_synack()):
		 * the slow path's; the other ways out of here move the state
		 * (which SYN_SENT refuses) or are liberal (which it is not). */
		if (MOD_CT_LD(l->fp_state) == MOD_CT_S_SYN_SENT)
			return MOD_CT_FAST_SLOW;
		/* Ignored: nothing moves, not even the last segment, nor the
		 * idle time (Linux refreshes no timer for it). */
		return MOD_CT_FAST_IGNORED;
	}
	/* New data or a plain ACK at the sender's end: what Linux remembers of
	 * the last segment is then the recorded end. Anything else (old data,
	 * retransmissions, keepalives) is the slow path's. */
	if (p->tcp_dlen != 0 ? !mod_ct_seq_after(end, end_s) : end != end_s)
		return MOD_CT_FAST_SLOW;
record:
	if ((MOD_CT_LD(l->mode) & MOD_CT_FAST_M_ST_OK) ? !fast_state_move(l, s, fin) : fin)
		return MOD_CT_FAST_SLOW;
	/* Passed: record the progress, as Linux's window update would (only
	 * this lcore writes fp_*[s]: the values read above are current). */
	if (mod_ct_seq_after(end, end_s))
		MOD_CT_ST(l->fp_end[s], end);
	w = (uint32_t)p->tcp_win << l->scale[s];
	edge = ack + w + (w == 0);
	if (mod_ct_seq_after(edge, MOD_CT_LD(l->fp_edge[s])))
		MOD_CT_ST(l->fp_edge[s], edge);
	seen = MOD_CT_LD(l->fp_seen[s]);
	if ((seen == 0 && !((MOD_CT_LD(l->mode) >> s) & MOD_CT_FAST_M_MAXACK)) ||
		mod_ct_seq_after(ack, MOD_CT_LD(l->fp_ack[s])))
		MOD_CT_ST(l->fp_ack[s], ack);
	if (w > win_s)
		MOD_CT_ST(l->fp_win[s], w);
	if (seen == 0)
		MOD_CT_ST(l->fp_seen[s], 1);
	/* Data outstanding: [s]'s when its end moved, no longer [r]'s when
	 * this acknowledges all of it (as the slow path, segment by segment). */
	if (mod_ct_seq_after(end, end_s) && !((MOD_CT_LD(l->fp_unacked) >> s) & 1))
		__atomic_fetch_or(&l->fp_unacked, (uint8_t)(1u << s), __ATOMIC_RELAXED);
	if (ack == end_r && ((MOD_CT_LD(l->fp_unacked) >> r) & 1))
		__atomic_fetch_and(&l->fp_unacked, (uint8_t)~(1u << r), __ATOMIC_RELAXED);
	/* What Linux remembers: the kind and direction of every accepted
	 * segment; of an ACK its numbers, or, the same ACK segment again, one
	 * more retransmission in a row. */
	if (!fin) {
		uint8_t rt = MOD_CT_LD(l->fp_retrans);

		if (MOD_CT_LD(l->fp_ldir) == s && MOD_CT_LD(l->fp_lseq) == seq &&
			MOD_CT_LD(l->fp_lack) == ack && MOD_CT_LD(l->fp_lend) == end &&
			MOD_CT_LD(l->fp_lwin) == p->tcp_win) {
			if (rt != UINT8_MAX)
				MOD_CT_ST(l->fp_retrans, (uint8_t)(rt + 1));
		} else {
			MOD_CT_ST(l->fp_lseq, seq);
			MOD_CT_ST(l->fp_lack, ack);
			MOD_CT_ST(l->fp_lend, end);
			MOD_CT_ST(l->fp_lwin, p->tcp_win);
			if (rt != 0)
				MOD_CT_ST(l->fp_retrans, 0);
		}
	}
	goto last;
liberal_pass:
	/* Accepted, the windows unmoved; Linux still takes it as the last segment. */
last:
	if (MOD_CT_LD(l->fp_ldir) != s)
		MOD_CT_ST(l->fp_ldir, (uint8_t)s);
	if (MOD_CT_LD(l->fp_lidx) != (fin ? MOD_CT_TI_FIN : MOD_CT_TI_ACK))
		MOD_CT_ST(l->fp_lidx, (uint8_t)(fin ? MOD_CT_TI_FIN : MOD_CT_TI_ACK));
	return MOD_CT_FAST_PASS;
}

/* ------------------------------------------------------------------------ */
/* The handshake's second step                                              */
/* ------------------------------------------------------------------------ */

bool
mod_ct_fast_synack_ok(const struct mod_ct_conn *c, bool be_liberal)
{
	const struct mod_ct_tcp *t = &c->tcp;
	const struct mod_ct_tcp_side *o = &t->side[MOD_CT_DIR_ORIG], *r = &t->side[MOD_CT_DIR_REPLY];

	/* SYN_SENT: a TCP connection's. */
	return c->state == MOD_CT_S_SYN_SENT && c->flags == 0 &&
		c->helper == MOD_CT_HELPER_NONE && c->master_helper == MOD_CT_HELPER_NONE &&
		!be_liberal && !(o->flags & (MOD_CT_TS_LIBERAL | MOD_CT_TS_UNACKED)) && o->maxwin != 0 &&
		r->flags == 0 && r->maxwin == 0 && r->scale == 0 &&
		t->last_index == MOD_CT_TI_SYN && t->last_dir == MOD_CT_DIR_ORIG &&
		!(t->last_flags & MOD_CT_TS_SIMOPEN) && t->retrans == 0;
}

bool
mod_ct_fast_synack(struct mod_ct_fast_line *l, const struct fc_pkt *p, const uint8_t *frame,
	uint32_t frame_len)
{
	const uint8_t need = MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_ST_OK | MOD_CT_FAST_M_SYNACK;
	uint8_t mode = MOD_CT_LD(l->mode), cf, sc0, sc1;
	uint32_t ack = p->tcp_ack, sack = ack, end, win, maxwin0, edge;
	bool ws1 = false, sp1 = false;

	if ((mode & need) != need || MOD_CT_LD(l->fp_state) != MOD_CT_S_SYN_SENT ||
		(MOD_CT_LD(l->fp_cflags) & (MOD_CT_FAST_REPLIED | MOD_CT_FAST_CLAIM)))
		return false;
	/* A plain SYN/ACK without data (the flags the tracker ignores allowed),
	 * acknowledging exactly the opener's SYN. */
	if ((p->tcp_flags & ~(TCP_PSH | TCP_ECE | TCP_CWR)) != (TCP_SYN | TCP_ACK) || p->tcp_dlen != 0 ||
		ack != MOD_CT_LD(l->fp_end[MOD_CT_DIR_ORIG]))
		return false;
	/* No SACK blocks: the slow path would check their edges. */
	if (!(p->tcp_opt & FC_TCP_OPT_PLAIN) &&
		(frame == NULL || fc_tcp_sack_edge(frame, frame_len, p, &sack)))
		return false;
	/*
	 * The reply side's first segment (its window unscaled, as a SYN's):
	 * its end, its largest window, its options; window scaling holds both
	 * ways only if both SYNs asked for it.
	 */
	end = p->tcp_seq + 1;
	win = p->tcp_win;
	if (p->tcp_hlen > 20) {
		sp1 = (p->tcp_opt & FC_TCP_OPT_SACK_PERM) != 0;
		ws1 = (p->tcp_opt & FC_TCP_OPT_WSCALE) != 0;
	}
	sc1 = ws1 ? p->tcp_wscale : 0;
	sc0 = MOD_CT_LD(l->scale[MOD_CT_DIR_ORIG]);
	if (!(ws1 && (mode & MOD_CT_FAST_M_WSCALE0)))
		sc0 = sc1 = 0;
	/* Old data by the opener's window: ignored by the slow path (Linux's
	 * check, which a SYN's window never fails). */
	maxwin0 = MOD_CT_LD(l->fp_win[MOD_CT_DIR_ORIG]);
	if (maxwin0 != 0 && !mod_ct_seq_after(end, end - maxwin0 - 1))
		return false;
	/* What the opener may send: up to the SYN/ACK's ACK + window. */
	edge = MOD_CT_LD(l->fp_edge[MOD_CT_DIR_REPLY]);
	if (mod_ct_seq_after(ack + win, edge - 1))
		edge = ack + win + (win == 0);
	/* The step is this lcore's unless the rules lcore holds the line
	 * (mod_ct_fast_hold()): nothing is stored before. */
	cf = 0;
	if (!__atomic_compare_exchange_n(&l->fp_cflags, &cf, MOD_CT_FAST_CLAIM, false,
		    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	/* The reply side's numbers first, then the bit that says they are
	 * there, then the state (only this lcore moves it in SYN_SENT). */
	MOD_CT_ST(l->scale[MOD_CT_DIR_ORIG], sc0);
	MOD_CT_ST(l->scale[MOD_CT_DIR_REPLY], sc1);
	MOD_CT_ST(l->fp_end[MOD_CT_DIR_REPLY], end);
	MOD_CT_ST(l->fp_edge[MOD_CT_DIR_ORIG], end);
	MOD_CT_ST(l->fp_edge[MOD_CT_DIR_REPLY], edge);
	MOD_CT_ST(l->fp_win[MOD_CT_DIR_REPLY], win == 0 ? 1u : win);
	MOD_CT_ST(l->fp_ack[MOD_CT_DIR_REPLY], ack);
	MOD_CT_ST(l->fp_seen[MOD_CT_DIR_REPLY], 1);
	MOD_CT_ST(l->fp_ldir, (uint8_t)MOD_CT_DIR_REPLY);
	MOD_CT_ST(l->fp_lidx, (uint8_t)MOD_CT_TI_SYNACK);
	cf = (uint8_t)(MOD_CT_FAST_REPLIED | (sp1 ? MOD_CT_FAST_R_SACK_PERM : 0) |
		(ws1 ? MOD_CT_FAST_R_WSCALE : 0));
	__atomic_fetch_or(&l->fp_cflags, cf, __ATOMIC_RELEASE);
	__atomic_store_n(&l->fp_state, (uint8_t)MOD_CT_S_SYN_RECV, __ATOMIC_RELEASE);
	return true;
}

void
mod_ct_fast_hold(struct mod_ct_fast_line *l)
{
	uint8_t cf;

	if (likely(!(MOD_CT_LD(l->mode) & MOD_CT_FAST_M_SYNACK)))
		return;
	cf = __atomic_fetch_or(&l->fp_cflags, MOD_CT_FAST_CLAIM, __ATOMIC_ACQUIRE);
	/* The fast path claimed it first: its step is a few stores from done. */
	if (cf & MOD_CT_FAST_CLAIM)
		while (!(__atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE) & MOD_CT_FAST_REPLIED))
			rte_pause();
}
