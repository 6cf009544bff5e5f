/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — the fast path's window check: the TCP
 * connections' fast-path lines and mod_ct_fast_check(), which RX lcores
 * call for entries with FC_INTEREST_TCP_WIN. Part of conntrack.h's manual,
 * which includes this header at its end: include conntrack.h.
 */
#ifndef GUFC_CONNTRACK_FAST_H
#define GUFC_CONNTRACK_FAST_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_prefetch.h>

#include "conntrack.h"
#include "fc_crc32c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The fast path's window check                                              */
/* ------------------------------------------------------------------------ */

/**
 * fc_action::ct_state bit 7: the entry belongs to a TCP connection whose
 * record id is fc_action::ext (the entry's per-flow extension record: the
 * conntrack module owns it on TCP entries). Clear: the byte is
 * mod_ct_conn_pack()'s and ext is 0.
 */
#define MOD_CT_ENTRY_ID 0x80
/** Record ids are below this (0 is no record). */
#define MOD_CT_ID_MAX (1u << 23)
/** Fast-path lines per chunk (log2). */
#define MOD_CT_FAST_CHUNK_SHIFT 12
/** Chunks of fast-path lines (enough for every id). */
#define MOD_CT_FAST_CHUNKS (MOD_CT_ID_MAX >> MOD_CT_FAST_CHUNK_SHIFT)

/**
 * One connection's record in one cache line: a TCP connection's window
 * state and, from the first reply on, its state as the fast path sees it
 * (the fp_* fields and the mode), and the rest of what the rules lcore
 * keeps of it (the rc_* fields). [d] is a direction (MOD_CT_DIR_*); all
 * sequence numbers compare modulo 2^32. A UDP connection with a helper or
 * a master has one too (never armed: only its rc_* fields mean anything).
 * Owner: the conntrack module. The rules lcore writes the whole line
 * after each packet it decides (mod_ct_fast_arm(): the connection as it
 * left it, armed or not); while it is armed (MOD_CT_FAST_M_ARMED), the RX
 * lcore serving direction d moves fp_*[d] forward and writes the memory
 * of the last segment when a segment of d passes, and, with
 * MOD_CT_FAST_M_ST_OK, moves the state as the slow path would (relaxed
 * atomics; a window value only moves forward, so a stale read only sends
 * a segment to the slow path; the state moves by compare-and-swap).
 * Armed for the SYN/ACK (MOD_CT_FAST_M_SYNACK), the RX lcore serving the
 * reply direction also takes the handshake's second step once
 * (mod_ct_fast_synack(): the reply side's numbers, scale[] and
 * fp_cflags' MOD_CT_FAST_REPLIED). The
 * rules lcore reads the connection back with mod_ct_fast_load(): the
 * record as it stored it with the fast path's progress folded in
 * (mod_ct_fast_fold()). The fast path reads one value per bound, nothing
 * twice, and never the rc_* fields. Reclaimed, with its id, after a grace
 * period.
 */
struct mod_ct_fast_line {
	union {
		uint32_t fp_end[2];  /**< highest sequence number [d] sent (+ 1) */
		/**
		 * An SCTP association's record (MOD_CT_FAST_RC_SCTP, never armed):
		 * the tag packets of [d] carry (struct mod_ct_sctp::vtag, host
		 * order), what mod_ct_sctp_fast_check() compares; its flags are
		 * rc_sflags[0]. Written by the rules lcore only.
		 */
		uint32_t sctp_vtag[2];
	};
	uint32_t fp_edge[2]; /**< highest ACK + scaled window of [d]: what [d ^ 1] may send */
	uint32_t fp_ack[2];  /**< highest ACK of [d] */
	uint32_t fp_win[2];  /**< largest scaled window [d] advertised */
	uint32_t fp_lseq;    /**< Linux's memory of the last segment: struct mod_ct_tcp::last_seq */
	uint32_t fp_lack;    /**< ... last_ack */
	uint32_t fp_lend;    /**< ... last_end */
	uint16_t fp_lwin;    /**< ... last_win */
	uint8_t scale[2];    /**< window-scale shift of [d]'s windows (rules lcore; mod_ct_fast_synack()) */
	union {
		struct {
			uint8_t mode;       /**< MOD_CT_FAST_M_* (rules lcore) */
			uint8_t fp_ldir;    /**< ... last_dir */
			uint8_t fp_lidx;    /**< ... last_index */
			uint8_t fp_retrans; /**< ... retrans: the same ACK segment in a row, saturating */
			uint8_t fp_seen[2]; /**< [d] recorded a segment (an ACK) since re-armed */
			/** With MOD_CT_FAST_M_ST_OK: the connection's state (enum mod_ct_state) */
			uint8_t fp_state;
			/** With MOD_CT_FAST_M_ST_OK: MOD_CT_FAST_ASSURED, MOD_CT_FAST_CLOSE_INIT << d,
			 *  MOD_CT_FAST_REPLIED and the reply side's options set since re-armed */
			uint8_t fp_cflags;
		};
		/** The eight bytes above in one load (mod_ct_fast_check()'s common case) */
		uint64_t fp_word;
	};
	/** Bit d: [d] sent data not acknowledged yet (MOD_CT_TS_UNACKED) */
	uint8_t fp_unacked;
	/* The rest of the record: the rules lcore's alone. */
	uint8_t rc_state;       /**< struct mod_ct_conn::state as stored */
	uint8_t rc_flags;       /**< ::flags (MOD_CT_C_*), MOD_CT_FAST_RC_TCP or _UDP: ::proto */
	uint8_t rc_helper;      /**< ::helper, ::master_helper << 4 */
	uint8_t rc_sflags[2];   /**< struct mod_ct_tcp_side::flags of [d] as stored */
	uint8_t rc_last_flags;  /**< struct mod_ct_tcp::last_flags, last_wscale << 2 */
	uint8_t rc_retrans;     /**< struct mod_ct_tcp::retrans as stored */
} __rte_cache_aligned;

/** struct mod_ct_fast_line::fp_cflags: the connection became ASSURED. */
#define MOD_CT_FAST_ASSURED 0x01
/** struct mod_ct_fast_line::fp_cflags: side d sent the first FIN (shifted by d). */
#define MOD_CT_FAST_CLOSE_INIT 0x02

/**
 * struct mod_ct_fast_line::fp_cflags: the fast path took the SYN/ACK
 * (mod_ct_fast_synack()): the connection is SYN_RECV and replied, the
 * reply side's numbers are in the line (stored before this bit).
 */
#define MOD_CT_FAST_REPLIED 0x08
/** struct mod_ct_fast_line::fp_cflags: ... and that SYN/ACK permitted SACK. */
#define MOD_CT_FAST_R_SACK_PERM 0x10
/** struct mod_ct_fast_line::fp_cflags: ... and it carried a window-scale option. */
#define MOD_CT_FAST_R_WSCALE 0x20
/**
 * struct mod_ct_fast_line::fp_cflags: the SYN/ACK's step is taken or being
 * taken (mod_ct_fast_synack(), which sets it first, before any other
 * store), or the rules lcore holds the line (mod_ct_fast_hold()): whoever
 * set it first owns the step; the other leaves it alone. Kept by
 * mod_ct_fast_store() (cleared for a new connection only).
 */
#define MOD_CT_FAST_CLAIM 0x40

/** struct mod_ct_fast_line::mode: out-of-window segments of side d pass (shifted by d). */
#define MOD_CT_FAST_M_LIBERAL 0x01
/** struct mod_ct_fast_line::mode: the fast path moves the state (mod_ct_fast_states()). */
#define MOD_CT_FAST_M_ST_OK 0x04
/** struct mod_ct_fast_line::mode: the entries check the line (FC_INTEREST_TCP_WIN). */
#define MOD_CT_FAST_M_ARMED 0x08
/**
 * struct mod_ct_fast_line::mode: side d's fp_ack holds its highest ACK
 * (MOD_CT_TS_MAXACK, shifted by d): an ACK the fast path passes moves it
 * forward only; without, the first one sets it.
 */
#define MOD_CT_FAST_M_MAXACK 0x10
/**
 * struct mod_ct_fast_line::mode: the fast path may take this connection's
 * SYN/ACK (mod_ct_fast_synack()): set by mod_ct_fast_arm() for a
 * connection in the plain SYN_SENT that mod_ct_fast_synack_ok() accepts,
 * with MOD_CT_FAST_M_ST_OK (the fast path moves its states once it is
 * SYN_RECV; before, every segment but that SYN/ACK is the slow path's).
 */
#define MOD_CT_FAST_M_SYNACK 0x40
/** struct mod_ct_fast_line::mode: with MOD_CT_FAST_M_SYNACK: the opener's SYN asked for
 *  window scaling (its side's MOD_CT_TS_WSCALE). */
#define MOD_CT_FAST_M_WSCALE0 0x80
/** struct mod_ct_fast_line::rc_flags: the record is a TCP connection's. */
#define MOD_CT_FAST_RC_TCP 0x40
/** struct mod_ct_fast_line::rc_flags: the record is a UDP connection's. */
#define MOD_CT_FAST_RC_UDP 0x80
/** struct mod_ct_fast_line::rc_flags: the record is an SCTP association's. */
#define MOD_CT_FAST_RC_SCTP 0x20
/** struct mod_ct_fast_line::rc_flags: the protocol's bits. */
#define MOD_CT_FAST_RC_PROTO (MOD_CT_FAST_RC_TCP | MOD_CT_FAST_RC_UDP | MOD_CT_FAST_RC_SCTP)

/**
 * The fast path's view of the TCP connections: chunks of lines by id
 * (mod_ct_module_fast()). A chunk pointer is published (release) before
 * any entry carries an id in it, and stays until the module is freed.
 */
struct mod_ct_fast {
	struct mod_ct_fast_line *chunk[MOD_CT_FAST_CHUNKS];
};

/**
 * Fold the progress the fast path recorded on line @p l since it was armed
 * into TCP connection @p c, as the slow path would have made it: the
 * windows forward, Linux's memory of the last segment (its kind,
 * direction and numbers; a recorded ACK resets the retransmission count)
 * and, with MOD_CT_FAST_M_ST_OK, the state and the ASSURED and first-FIN
 * flags; a SYN/ACK the fast path took (MOD_CT_FAST_REPLIED): the reply
 * side as it set it up, SYN_RECV and replied. Nothing if @p l is not armed.
 * @param c  the connection (its record, or a copy of it)
 * @param l  its line
 * Context: rules lcore (the pure state machine's caller).
 */
void mod_ct_fast_fold(struct mod_ct_conn *c, const struct mod_ct_fast_line *l);

/**
 * May the fast path move connection @p c through its states (the line's
 * MOD_CT_FAST_M_ST_OK; conntrack then wants no FIN of it)? From the first reply on,
 * both sides' windows known and neither liberal, in SYN_RECV (not after a
 * simultaneous open), ESTABLISHED, FIN_WAIT, CLOSE_WAIT, LAST_ACK,
 * TIME_WAIT or CLOSE, unless the last segment the tracker remembers is a
 * SYN it ignored (the answer may be a challenge ACK). The caller also
 * requires fewer than tcp_max_retrans retransmissions in a row (the
 * interest masks do).
 * @param c           the connection
 * @param be_liberal  the configuration's tcp_be_liberal
 * @return true if it may.
 * Context: any.
 */
bool mod_ct_fast_states(const struct mod_ct_conn *c, bool be_liberal);

/**
 * May the fast path take connection @p c's SYN/ACK (mod_ct_fast_synack())?
 * Only in the plain case: a connection in SYN_SENT (TCP) after its opener's
 * SYN (the last segment the tracker accepted; nothing of it
 * unacknowledged but the SYN), nothing seen of the reply side, no flags
 * (not replied, not picked up), no helper and no master,
 * neither side liberal nor tcp_be_liberal, no simultaneous open, no
 * retransmissions.
 * @param c           the connection
 * @param be_liberal  the configuration's tcp_be_liberal
 * @return true if it may.
 * Context: any.
 */
bool mod_ct_fast_synack_ok(const struct mod_ct_conn *c, bool be_liberal);

/**
 * The handshake's second step on the fast path: SYN_SENT -> SYN_RECV for a
 * SYN/ACK of the reply direction on line @p l armed with
 * MOD_CT_FAST_M_SYNACK, as the slow path's tracker makes it (Linux's
 * tcp_in_window() for a first segment of the responder: its end, window,
 * highest ACK, window scale when both SYNs asked for it, SACK permitted;
 * the opener's window edge moved by the SYN/ACK's window), when it is the
 * plain answer: SYN+ACK (PSH, ECE, CWR allowed) without data,
 * acknowledging exactly the opener's SYN, without SACK blocks, the state
 * still SYN_SENT and not taken before. Anything else (a second SYN/ACK,
 * another ACK, data, URG, a RST, a simultaneous open) is the slow path's:
 * the line is left as it was. The connection is then replied (its
 * original direction's ctstate `established`); mod_ct_fast_fold() and
 * mod_ct_fast_peek() read it back. Like the other progress the fast path
 * records, a step taken while the rules lcore decides another packet of
 * the connection (between its load and its store of the line) is lost:
 * the caller keeps such packets (a retransmitted SYN) from racing it.
 * @param l          the connection's line
 * @param p          the parsed segment (its SYN options walked)
 * @param frame      the frame @p p was parsed from (its options are
 *   searched for SACK blocks unless FC_TCP_OPT_PLAIN); NULL: only a segment
 *   with plain options is taken
 * @param frame_len  bytes in @p frame
 * @return true if the fast path took it (pass it with the reply entry's
 *   verdict), false to send it to the slow path.
 * Context: registered reader (RX lcore) serving the reply direction.
 */
bool mod_ct_fast_synack(struct mod_ct_fast_line *l, const struct fc_pkt *p,
	const uint8_t *frame, uint32_t frame_len);

/**
 * Hold line @p l before the rules lcore loads it to decide a packet of its
 * connection: on a line armed for the SYN/ACK (MOD_CT_FAST_M_SYNACK), the
 * fast path takes no SYN/ACK after this (MOD_CT_FAST_CLAIM), and one it is
 * taking right now is finished first (waited for: a few stores). So a
 * step is never lost between the rules lcore's load and its store of the
 * line (a retransmitted SYN decided meanwhile). Nothing on another line.
 * @param l  the line
 * Context: rules lcore, before mod_ct_fast_load() of a packet it decides.
 */
void mod_ct_fast_hold(struct mod_ct_fast_line *l);

/**
 * The interest of a connection's entries while its line is armed for the
 * SYN/ACK (mod_ct_fast_arm() with MOD_CT_FAST_M_SYNACK): both entries'
 * segments checked on the line (FC_INTEREST_TCP_WIN: the original
 * direction's go up until the fast path took the SYN/ACK, then are checked
 * and move the state as from SYN_RECV), the reply entry's SYN (the SYN/ACK)
 * not wanted as such (the datapath hands it to mod_ct_fast_synack()); SYNs
 * of the original direction, RSTs and segments without ACK go up; FINs are
 * the line's (MOD_CT_FAST_M_ST_OK: it moves the state from SYN_RECV on, and
 * sends them up before).
 * @param interest  receives the original [MOD_CT_DIR_ORIG] and reply
 *   direction's masks
 * Context: any.
 */
void mod_ct_fast_synack_interest(uint16_t interest[2]);

/**
 * Store connection @p c in its line @p l, for the fast path (@p armed: its
 * entries carry FC_INTEREST_TCP_WIN) or not: the whole record, the fast
 * path's progress reset to it. The line's MOD_CT_FAST_M_ST_OK is @p armed
 * and mod_ct_fast_states(); its MOD_CT_FAST_M_SYNACK (with ST_OK) is
 * @p armed and mod_ct_fast_synack_ok(). With @p c NULL, only mark the line unarmed
 * (what it holds stays).
 * @param l      the line
 * @param c      the connection, after the packet the slow path decided
 * @param armed  whether the fast path checks the connection's segments
 * @param be_liberal  the configuration's tcp_be_liberal (with the sides'
 *   MOD_CT_TS_LIBERAL: which directions accept out-of-window segments)
 * Context: rules lcore, before the entries that name the line are stored.
 */
void mod_ct_fast_arm(struct mod_ct_fast_line *l, const struct mod_ct_conn *c, bool armed,
	bool be_liberal);

/**
 * Store connection @p c in its line @p l as mod_ct_fast_arm() does, the
 * line's mode (armed, the state's mover, liberal sides) left as it is but
 * for MOD_CT_FAST_M_SYNACK, which it clears.
 * @param l  the line
 * @param c  the connection
 * Context: rules lcore.
 */
void mod_ct_fast_store(struct mod_ct_fast_line *l, const struct mod_ct_conn *c);

/**
 * The connection line @p l holds: as mod_ct_fast_arm() or
 * mod_ct_fast_store() stored it, with (@p fold) the progress the fast path
 * recorded since folded in (mod_ct_fast_fold()).
 * @param l     the line
 * @param c     the connection (written whole)
 * @param fold  fold the fast path's progress in
 * Context: rules lcore; another lcore gets a copy whose fields may come
 *   from different moments.
 */
void mod_ct_fast_load(const struct mod_ct_fast_line *l, struct mod_ct_conn *c, bool fold);

/**
 * The scalar fields of the connection line @p l holds (its state, flags,
 * protocol, helper and master's helper) as mod_ct_fast_load() with
 * folding gives them, without the windows and the memory of the last
 * segment: what the callers that ask no more than the state and the
 * flags need, for a fraction of a whole load.
 * @param l  the line
 * @param c  the connection: only ::state, ::flags, ::proto, ::helper and
 *   ::master_helper are written
 * Context: rules lcore; another lcore gets fields that may come from
 *   different moments.
 */
void mod_ct_fast_peek(const struct mod_ct_fast_line *l, struct mod_ct_conn *c);

/**
 * The timeout of the TCP connection line @p l holds: mod_ct_timeout() of
 * what mod_ct_fast_load() with folding gives, reading only the bytes the
 * timeout depends on (the state, the flags, the retransmissions in a row,
 * the data outstanding and the last window): aging asks it of every live
 * entry it examines.
 * @param cfg  the module's configuration (its timeouts)
 * @param l    the line of a TCP connection (MOD_CT_FAST_RC_TCP)
 * @return the timeout in milliseconds, 0 for no valid connection.
 * Context: rules lcore.
 */
uint32_t mod_ct_fast_tcp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_fast_line *l);

/**
 * The ctstate of direction @p dir of the connection line @p l holds as
 * stored (mod_ct_conn_ctstate() of what mod_ct_fast_load() without
 * folding gives), reading only the bytes it depends on: the state, the
 * flags and the master's helper.
 * @param l    the line
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @return the RULE_CT_* value, or 0 for no valid connection.
 * Context: rules lcore.
 */
unsigned int mod_ct_fast_ctstate(const struct mod_ct_fast_line *l, unsigned int dir);

/**
 * The module's fast-path view, for the datapath.
 * @param ct  the module
 * @return the view, or NULL for NULL.
 * Context: any (the pointer stays valid until mod_ct_module_free()).
 */
struct mod_ct_fast *mod_ct_module_fast(struct mod_ct_module *ct);

/** TCP record id of an entry's connection, 0 if none. Context: any. */
static inline uint32_t
mod_ct_entry_id(const struct fc_action *a)
{
	if (!(a->ct_state & MOD_CT_ENTRY_ID))
		return 0;
	return a->ext;
}

/**
 * The fast-path line of an entry's TCP connection.
 * @param f  the module's view; NULL: none
 * @param a  the entry's action
 * @return the line, or NULL (no view, no record id, or its chunk not
 *   published: mod_ct_fast_check_line() sends such a segment to the slow path).
 * Context: registered reader (RX lcore).
 */
static inline struct mod_ct_fast_line *
mod_ct_fast_line_of(const struct mod_ct_fast *f, const struct fc_action *a)
{
	uint32_t id = mod_ct_entry_id(a);
	struct mod_ct_fast_line *chunk;

	if (unlikely(f == NULL || id == 0 || id >= MOD_CT_ID_MAX))
		return NULL;
	chunk = __atomic_load_n(&f->chunk[id >> MOD_CT_FAST_CHUNK_SHIFT], __ATOMIC_ACQUIRE);
	if (unlikely(chunk == NULL))
		return NULL;
	return &chunk[id & ((1u << MOD_CT_FAST_CHUNK_SHIFT) - 1)];
}

/**
 * Start fetching the fast-path line of an entry's TCP connection, ahead
 * of the window check: the datapath does it for a whole burst before
 * checking its segments, so that their misses overlap, and hands the line
 * it returns to mod_ct_fast_check_line() (the chunk is not looked up twice).
 * @param f  the module's view; NULL: nothing
 * @param a  the entry's action
 * @return mod_ct_fast_line_of(): the line, or NULL.
 * Context: registered reader (RX lcore).
 */
static inline struct mod_ct_fast_line *
mod_ct_fast_prefetch(const struct mod_ct_fast *f, const struct fc_action *a)
{
	struct mod_ct_fast_line *l = mod_ct_fast_line_of(f, a);

	if (l != NULL)
		rte_prefetch0(l);
	return l;
}

/** Sequence number @p a is after @p b (modulo 2^32). Context: any. */
static inline bool
mod_ct_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) < 0;
}

/** The later of two sequence numbers. */
static inline uint32_t
mod_ct_seq_max(uint32_t a, uint32_t b)
{
	return mod_ct_seq_after(a, b) ? a : b;
}

#define MOD_CT_LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define MOD_CT_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/** The window assumed for old ACKs when the sender's own is smaller (as Linux). */
#define MOD_CT_OLD_ACK_WINDOW 66000u

/*
 * fp_word's bytes (mode, fp_ldir, fp_lidx, fp_retrans, fp_seen[2], fp_state,
 * fp_cflags) as one value: byte @p i of the word is @p v.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define MOD_CT_FAST_W(i, v) ((uint64_t)(v) << (8 * (i)))
#else
#define MOD_CT_FAST_W(i, v) ((uint64_t)(v) << (8 * (7 - (i))))
#endif
/** Byte @p i of fp_word value @p w. */
#define MOD_CT_FAST_WB(w, i) ((uint8_t)((w) / MOD_CT_FAST_W(i, 1)))
/** What the common case looks at in fp_word: the state's mover, the last
 *  segment's kind, the state and ASSURED. */
#define MOD_CT_FAST_W_MASK                                                                      \
	(MOD_CT_FAST_W(0, MOD_CT_FAST_M_ST_OK) | MOD_CT_FAST_W(2, 0xff) | MOD_CT_FAST_W(6, 0xff) | \
		MOD_CT_FAST_W(7, MOD_CT_FAST_ASSURED))
/** ... of which without the state's mover: the last segment's kind. */
#define MOD_CT_FAST_W_MASK_NOST (MOD_CT_FAST_W(0, MOD_CT_FAST_M_ST_OK) | MOD_CT_FAST_W(2, 0xff))
/** The common case with the state's mover: the last segment an ACK,
 *  ESTABLISHED and ASSURED (an ACK moves nothing). */
#define MOD_CT_FAST_W_COMMON                                                                    \
	(MOD_CT_FAST_W(0, MOD_CT_FAST_M_ST_OK) | MOD_CT_FAST_W(2, MOD_CT_TI_ACK) |                  \
		MOD_CT_FAST_W(6, MOD_CT_S_ESTABLISHED) | MOD_CT_FAST_W(7, MOD_CT_FAST_ASSURED))
/** ... without it: the last segment an ACK. */
#define MOD_CT_FAST_W_COMMON_NOST MOD_CT_FAST_W(2, MOD_CT_TI_ACK)

/**
 * mod_ct_fast_check()'s answers. Pass or not is the answer's truth (a
 * caller that only passes or sends up may test it as a bool); what a
 * passed segment does to the connection's idle time is which of the two.
 */
enum mod_ct_fast_res {
	/** Send the segment to the slow path. */
	MOD_CT_FAST_SLOW = 0,
	/** Pass it with the entry's verdict; it renews the entry's idle time. */
	MOD_CT_FAST_PASS = 1,
	/**
	 * Pass it with the entry's verdict, accepted but ignored (below the
	 * windows: old data, a very old ACK). Linux's conntrack accepts such a
	 * segment (NF_ACCEPT, its ctstate the connection's) without refreshing
	 * the connection's timer: the caller counts it on the entry and leaves
	 * the entry's last hit (its idle time) as it was.
	 */
	MOD_CT_FAST_IGNORED = 2,
};

/**
 * mod_ct_fast_check() for line @p l of the segment's connection, every
 * case: the rare ones (FINs, segments out of the common case's bounds,
 * liberal passes, retransmissions, state moves, the first segment after a
 * SYN or FIN) and the common one. Out of line: mod_ct_fast_check() calls
 * it for what its straight line does not take.
 * @param l  the connection's line
 * @param s  the segment's direction (MOD_CT_DIR_*)
 * @param p  the parsed segment (plain options)
 * @return enum mod_ct_fast_res: MOD_CT_FAST_PASS, MOD_CT_FAST_IGNORED, or
 *   MOD_CT_FAST_SLOW to send it to the slow path.
 * Context: registered reader (RX lcore) serving direction @p s.
 */
unsigned int mod_ct_fast_check_full(struct mod_ct_fast_line *l, unsigned int s,
	const struct fc_pkt *p);

/*
 * mod_ct_fast_check()'s segment out of the bounds (beyond the receiver's
 * window, @p p's end or start, or acknowledging data the other side did
 * not send; no FIN; @p word the line's fp_word as read): invalid, or on a
 * liberal connection, beyond the window or acknowledging data not sent,
 * accepted as is, the windows unmoved, unless a small overshoot moves the
 * sender's end (the slow path's); overshooting the window from within is
 * the slow path's (it grows). @return true to pass it (MOD_CT_FAST_PASS:
 * Linux's liberal tracker accepts it and refreshes the timer), false to
 * send it up (MOD_CT_FAST_SLOW).
 */
static inline bool
mod_ct_fast_out_of_bounds(struct mod_ct_fast_line *l, unsigned int s, const struct fc_pkt *p,
	uint64_t word)
{
	const unsigned int r = s ^ 1;
	uint32_t seq = p->tcp_seq, end = seq + p->tcp_dlen, ack = p->tcp_ack;
	uint32_t lim = MOD_CT_LD(l->fp_edge[r]), end_r = MOD_CT_LD(l->fp_end[r]);
	uint32_t end_s, win_s, win_r;

	if (!((MOD_CT_FAST_WB(word, 0) >> s) & MOD_CT_FAST_M_LIBERAL))
		return false;
	if (mod_ct_seq_after(seq, lim)) {
		end_s = MOD_CT_LD(l->fp_end[s]);
		win_s = MOD_CT_LD(l->fp_win[s]);
		win_r = MOD_CT_LD(l->fp_win[r]);
		if (!((win_r != 0 && !mod_ct_seq_after(end, end_s - win_r - 1)) ||
			    !mod_ct_seq_after(ack, end_r - RTE_MAX(win_s, MOD_CT_OLD_ACK_WINDOW) - 1) ||
			    end - lim + 1 > win_r || mod_ct_seq_after(ack, end_r)))
			return false;
	} else if (mod_ct_seq_after(end, lim)) {
		return false;
	}
	/* Linux still takes it as the last segment (an ACK: the kind stays). */
	if (MOD_CT_FAST_WB(word, 1) != s)
		MOD_CT_ST(l->fp_ldir, (uint8_t)s);
	return true;
}

/**
 * May the fast path pass this TCP segment of an entry with
 * FC_INTEREST_TCP_WIN with the entry's cached verdict? The connection's
 * windows are what the slow path last knew, moved by the progress the fast
 * path recorded since. A segment without SACK blocks (FC_TCP_OPT_PLAIN)
 * whose end lies within the receiver's window, whose ACK acknowledges
 * nothing the other direction did not send, neither below the windows,
 * carrying new data or none, passes and its progress is recorded, as
 * Linux moves the windows and remembers the segment (the same ACK segment
 * again counts as a retransmission, as in Linux); with the
 * line's MOD_CT_FAST_M_ST_OK it also moves the connection's state
 * (FIN+ACK segments included). One below the
 * windows passes as MOD_CT_FAST_IGNORED and records nothing (Linux
 * ignores it: accepted, its timer not refreshed). On a liberal
 * connection (be_liberal, a pickup) a segment out of bounds passes too,
 * recording nothing but its kind (Linux accepts it without moving the
 * windows), unless it overshoots the window a little (Linux moves the
 * sender's end then). Everything else goes to the slow path: beyond the
 * window, an ACK of data never sent, old data (retransmissions, which the
 * slow path counts), SACK blocks, a FIN the state cannot take here. The
 * caller has already sent segments with SYN or RST or without ACK (and
 * FINs, unless conntrack wants none) to the slow path (the entry's other
 * interest bits).
 *
 * The common case is a straight line here: no FIN, the last segment
 * remembered an ACK, the state ESTABLISHED and ASSURED (or not the fast
 * path's to move), the segment within the bounds (passed: new data or a
 * plain ACK at the sender's end, the same segment again counted; ignored:
 * below the windows; the slow path's: old data); it stores what moves. Everything else is
 * mod_ct_fast_check_full()'s, which decides the same segments the same
 * way.
 *
 * mod_ct_fast_check_line() is the check on the line the caller already
 * has (mod_ct_fast_prefetch()'s or mod_ct_fast_line_of()'s, for the same
 * action); mod_ct_fast_check() finds it first.
 *
 * @param l  the connection's line (NULL: never)
 * @param a  the entry's action (a consistent copy)
 * @param p  the parsed segment
 * @return enum mod_ct_fast_res: MOD_CT_FAST_PASS to pass it (it renews the
 *   entry's idle time), MOD_CT_FAST_IGNORED to pass it without renewing,
 *   MOD_CT_FAST_SLOW (0) to send it to the slow path.
 * Context: registered reader (RX lcore) serving the segment's direction.
 */
static inline unsigned int
mod_ct_fast_check_line(struct mod_ct_fast_line *l, const struct fc_action *a,
	const struct fc_pkt *p)
{
	const unsigned int s = (a->flags & FC_ACT_F_REPLY) ? MOD_CT_DIR_REPLY : MOD_CT_DIR_ORIG;
	const unsigned int r = s ^ 1;
	uint32_t seq, end, ack, lim, end_s, end_r, win_s, win_r, w, edge;
	uint64_t word, v;
	uint8_t u, rt;

	if (unlikely(l == NULL || !(p->tcp_opt & FC_TCP_OPT_PLAIN)))
		return MOD_CT_FAST_SLOW;
	word = MOD_CT_LD(l->fp_word);
	v = word & MOD_CT_FAST_W_MASK;
	if (unlikely((p->tcp_flags & 0x01) ||
		    (v != MOD_CT_FAST_W_COMMON && (v & MOD_CT_FAST_W_MASK_NOST) != MOD_CT_FAST_W_COMMON_NOST)))
		return mod_ct_fast_check_full(l, s, p);
	/* Within the receiver's window, acknowledging what the other side sent. */
	seq = p->tcp_seq;
	end = seq + p->tcp_dlen;
	ack = p->tcp_ack;
	lim = MOD_CT_LD(l->fp_edge[r]);
	end_r = MOD_CT_LD(l->fp_end[r]);
	if (unlikely(mod_ct_seq_after(end, lim) || mod_ct_seq_after(seq, lim) ||
		    mod_ct_seq_after(ack, end_r)))
		return mod_ct_fast_out_of_bounds(l, s, p, word);
	end_s = MOD_CT_LD(l->fp_end[s]);
	win_s = MOD_CT_LD(l->fp_win[s]);
	win_r = MOD_CT_LD(l->fp_win[r]);
	/* Below the windows: ignored, the idle time not renewed (a liberal
	 * connection accepts and remembers it: the full check's). */
	if ((win_r != 0 && !mod_ct_seq_after(end, end_s - win_r - 1)) ||
		!mod_ct_seq_after(ack, end_r - RTE_MAX(win_s, MOD_CT_OLD_ACK_WINDOW) - 1)) {
		if (unlikely((MOD_CT_FAST_WB(word, 0) >> s) & MOD_CT_FAST_M_LIBERAL))
			return mod_ct_fast_check_full(l, s, p);
		return MOD_CT_FAST_IGNORED;
	}
	/* New data or a plain ACK at the sender's end (on a liberal connection
	 * too: it matters only out of bounds); anything else in the bounds (old
	 * data, retransmissions, keepalives) is the slow path's. */
	if (unlikely(p->tcp_dlen != 0 ? !mod_ct_seq_after(end, end_s) : end != end_s))
		return MOD_CT_FAST_SLOW;
	/* Passed: record the progress, as Linux's window update would (only
	 * this lcore writes fp_*[s]: the values read above are current). */
	u = MOD_CT_LD(l->fp_unacked);
	if (end != end_s) {
		MOD_CT_ST(l->fp_end[s], end);
		if (!((u >> s) & 1))
			__atomic_fetch_or(&l->fp_unacked, (uint8_t)(1u << s), __ATOMIC_RELAXED);
	}
	if (ack == end_r && ((u >> r) & 1))
		__atomic_fetch_and(&l->fp_unacked, (uint8_t)~(1u << r), __ATOMIC_RELAXED);
	w = (uint32_t)p->tcp_win << l->scale[s];
	edge = ack + w + (w == 0);
	if (mod_ct_seq_after(edge, MOD_CT_LD(l->fp_edge[s])))
		MOD_CT_ST(l->fp_edge[s], edge);
	if (w > win_s)
		MOD_CT_ST(l->fp_win[s], w);
	if (unlikely(l->fp_seen[s] == 0)) {
		if (!((MOD_CT_FAST_WB(word, 0) >> s) & MOD_CT_FAST_M_MAXACK) ||
			mod_ct_seq_after(ack, MOD_CT_LD(l->fp_ack[s])))
			MOD_CT_ST(l->fp_ack[s], ack);
		MOD_CT_ST(l->fp_seen[s], 1);
	} else if (mod_ct_seq_after(ack, MOD_CT_LD(l->fp_ack[s]))) {
		MOD_CT_ST(l->fp_ack[s], ack);
	}
	/* What Linux remembers: the segment's numbers, or, the same segment
	 * again, one more retransmission in a row; the kind stays an ACK. */
	rt = MOD_CT_FAST_WB(word, 3);
	if (MOD_CT_FAST_WB(word, 1) != s) {
		MOD_CT_ST(l->fp_ldir, (uint8_t)s);
	} else if (MOD_CT_LD(l->fp_lseq) == seq && MOD_CT_LD(l->fp_lack) == ack &&
		MOD_CT_LD(l->fp_lend) == end && MOD_CT_LD(l->fp_lwin) == p->tcp_win) {
		if (rt != UINT8_MAX)
			MOD_CT_ST(l->fp_retrans, (uint8_t)(rt + 1));
		return MOD_CT_FAST_PASS;
	}
	MOD_CT_ST(l->fp_lseq, seq);
	MOD_CT_ST(l->fp_lack, ack);
	MOD_CT_ST(l->fp_lend, end);
	MOD_CT_ST(l->fp_lwin, p->tcp_win);
	if (rt != 0)
		MOD_CT_ST(l->fp_retrans, 0);
	return MOD_CT_FAST_PASS;
}

/**
 * mod_ct_fast_check_line() on the line of @p a's connection.
 * @param f  the module's view (mod_ct_module_fast()); NULL: never
 * @param a  the entry's action (a consistent copy)
 * @param p  the parsed segment
 * @return enum mod_ct_fast_res, as mod_ct_fast_check_line().
 * Context: registered reader (RX lcore) serving the segment's direction.
 */
static inline unsigned int
mod_ct_fast_check(const struct mod_ct_fast *f, const struct fc_action *a, const struct fc_pkt *p)
{
	return mod_ct_fast_check_line(mod_ct_fast_line_of(f, a), a, p);
}

/* ------------------------------------------------------------------------ */
/* The fast path's SCTP check                                                */
/* ------------------------------------------------------------------------ */

/**
 * SCTP chunk types (below 16) that move an association's state or have a
 * verification-tag rule of their own in Linux's tracker: INIT, INIT ACK,
 * HEARTBEAT, HEARTBEAT ACK, ABORT, SHUTDOWN, SHUTDOWN ACK, ERROR, COOKIE
 * ECHO, COOKIE ACK, SHUTDOWN COMPLETE. Every other type (DATA, SACK, ECNE,
 * CWR, I-DATA, FORWARD TSN, ...) moves nothing.
 */
#define MOD_CT_SCTP_MOVERS 0x4ff6u

/**
 * May the fast path pass this SCTP packet of an entry with
 * FC_INTEREST_SCTP with the entry's cached verdict? It does when Linux's
 * tracker would accept it and move nothing: its common header carries the
 * tag the association expects in the entry's direction, it holds at least
 * one chunk, every chunk one that moves no state (MOD_CT_SCTP_MOVERS) and
 * none of length 0 (a chunk header cut by the end ends the walk, as in
 * Linux), and its CRC32c right (Linux's conntrack verifies it on every
 * packet; one instruction per 8 bytes where the CPU has CRC32c). Anything
 * else (a wrong tag, a control chunk, a malformed chunk, a wrong CRC)
 * goes to the slow path, which decides it as Linux.
 *
 * @param f    the module's view (mod_ct_module_fast()); NULL: never
 * @param a    the entry's action (its record id: MOD_CT_ENTRY_ID)
 * @param p    the SCTP common header, in the frame
 * @param len  bytes from @p p to the datagram's end, all in the frame
 *   (the caller sends a datagram cut by its segment, or a fragment, up)
 * @return true to pass it, false to send it to the slow path.
 * Context: registered reader (RX lcore).
 */
static inline bool
mod_ct_sctp_fast_check(const struct mod_ct_fast *f, const struct fc_action *a, const uint8_t *p,
	uint32_t len)
{
	const unsigned int d = (a->flags & FC_ACT_F_REPLY) ? MOD_CT_DIR_REPLY : MOD_CT_DIR_ORIG;
	uint32_t id = mod_ct_entry_id(a), off, clen, vtag;
	const struct mod_ct_fast_line *chunk;
	uint8_t type;

	if (unlikely(f == NULL || id == 0 || id >= MOD_CT_ID_MAX || len < 16))
		return false;
	chunk = __atomic_load_n(&f->chunk[id >> MOD_CT_FAST_CHUNK_SHIFT], __ATOMIC_ACQUIRE);
	if (unlikely(chunk == NULL))
		return false;
	vtag = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	if (vtag != MOD_CT_LD(chunk[id & ((1u << MOD_CT_FAST_CHUNK_SHIFT) - 1)].sctp_vtag[d]))
		return false;
	for (off = 12; off + 4 <= len; off += (clen + 3) & ~3u) {
		type = p[off];
		clen = (uint32_t)p[off + 2] << 8 | p[off + 3];
		if (clen == 0 || (type < 16 && ((MOD_CT_SCTP_MOVERS >> type) & 1)))
			return false;
	}
	/* Last, as Linux checks it first: a wrong CRC32c goes up, INVALID there. */
	return fc_sctp_crc_ok(p, len);
}

#ifdef __cplusplus
}
#endif

#endif /* GUFC_CONNTRACK_FAST_H */
