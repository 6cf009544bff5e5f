/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — connection tracking (prefix mod_ct_; users:
 * doc/conntrack.md).
 *
 * What it is: a pure, deterministic state machine per connection: TCP as
 * Linux's nf_conntrack tracks it, window tracking included (per direction
 * the highest sequence number sent, the highest one the peer allows, the
 * largest window, the highest ACK, the window scale; in-window checks of
 * SEQ and (S)ACK, retransmission counting, loose pickup, invalid flag
 * combinations, RST validity, reopening by SYN), with the be_liberal,
 * loose and max_retrans settings of Linux's sysctls; SCTP as Linux's
 * SCTP tracker (states, chunk checks, every packet's verification tag:
 * ct_sctp.c); UDP; ICMP echo and the other ICMP queries; other protocols. Linux's timeouts; the interest
 * masks that say which packets of a cached connection the slow path must
 * see; the key of the packet an ICMP error quotes, which tells RELATED
 * from INVALID.
 *
 * Where it sits: the state machine (conntrack.c: configuration, UDP, ICMP,
 * other protocols, names; ct_tcp.c: TCP; ct_line.c: the fast path's
 * line) is pure C, no EAL (the
 * 'conntrack_pure' library, built for the sanitizer runs too); it needs
 * lib/flowcache (parsed packets, keys, the SACK walk) and lib/rules
 * (RULE_CT_* states) only. The module (ct_module.c, the 'conntrack'
 * library, EAL) makes it a struct rule_module of lib/engine, registered by
 * mod_ct_module_create() at RULE_MOD_ORDER_CT, and gives the fast path its
 * window check (mod_ct_fast_check()): see "The module" at the end.
 *
 * State and ownership: the functions own no memory and keep no state of
 * their own: a connection's whole state is a struct mod_ct_conn, handed in
 * and updated in place. The module keeps it: UDP, ICMP and other
 * protocols packed into one byte in fc_action::ct_state of both flow
 * entries (mod_ct_conn_pack()); a TCP connection, window tracking and all,
 * in a record of its own whose id the entries carry (and so an SCTP
 * association, its tags where TCP's windows are): one cache line,
 * struct mod_ct_fast_line, which is also what the fast path reads
 * (mod_ct_fast_arm() stores a connection in it, mod_ct_fast_load() loads
 * it back).
 *
 * Protocol: mod_ct_new() decides the first packet of a flow that no entry
 * knows; mod_ct_packet() each later packet the slow path sees. Each call
 * answers in a struct mod_ct_verdict: the packet's ctstate, the idle
 * timeout and the interest masks of both directions, and what changed.
 * ICMP errors are RELATED when the packet they quote belongs to a tracked
 * connection: mod_ct_icmp_inner_key() gives the quoted packet's key, the
 * caller looks it up.
 *
 * Time: timeouts are in milliseconds (uint32_t, so at most ~49 days).
 * Everything here is reentrant (no globals written).
 */
#ifndef GUFC_CONNTRACK_H
#define GUFC_CONNTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flowcache.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Connection states. TCP and SCTP states follow Linux's names; the packed
 * byte (mod_ct_conn_pack()) holds NONE up to OPEN only (TCP and SCTP
 * connections live in records).
 */
enum mod_ct_state {
	MOD_CT_S_NONE,        /**< no connection: the packet is not tracked */
	MOD_CT_S_SYN_SENT,    /**< TCP: SYN seen from the original side */
	MOD_CT_S_SYN_RECV,    /**< TCP: SYN/ACK seen, waiting for the final ACK */
	MOD_CT_S_ESTABLISHED, /**< TCP: handshake done (or picked up mid-stream) */
	MOD_CT_S_FIN_WAIT,    /**< TCP: a FIN seen */
	MOD_CT_S_CLOSE_WAIT,  /**< TCP: an ACK seen after the FIN */
	MOD_CT_S_LAST_ACK,    /**< TCP: FINs seen both ways, waiting for the last ACK */
	MOD_CT_S_TIME_WAIT,   /**< TCP: closed cleanly, lingering */
	MOD_CT_S_CLOSE,       /**< TCP: closed by RST, lingering briefly */
	MOD_CT_S_SYN_SENT2,   /**< TCP: SYN seen from both sides (simultaneous open) */
	MOD_CT_S_OPEN,        /**< UDP, ICMP echo and other protocols */
	/* SCTP, as Linux's SCTP tracker names its states (ct_sctp.c). */
	MOD_CT_S_SCTP_CLOSED,            /**< SCTP: an INIT seen (or SHUTDOWN COMPLETE, ABORT) */
	MOD_CT_S_SCTP_COOKIE_WAIT,       /**< SCTP: an INIT ACK answered the INIT */
	MOD_CT_S_SCTP_COOKIE_ECHOED,     /**< SCTP: a COOKIE ECHO seen */
	MOD_CT_S_SCTP_ESTABLISHED,       /**< SCTP: a COOKIE ACK answered it */
	MOD_CT_S_SCTP_SHUTDOWN_SENT,     /**< SCTP: a SHUTDOWN from the original side */
	MOD_CT_S_SCTP_SHUTDOWN_RECD,     /**< SCTP: a SHUTDOWN from the reply side */
	MOD_CT_S_SCTP_SHUTDOWN_ACK_SENT, /**< SCTP: its SHUTDOWN ACK */
	MOD_CT_S_SCTP_HEARTBEAT_SENT,    /**< SCTP: a HEARTBEAT started it (a secondary path) */
	MOD_CT_S__COUNT
};

/** struct mod_ct_conn::flags: a packet was accepted from the reply side (Linux's SEEN_REPLY). */
#define MOD_CT_C_REPLIED 0x01
/** struct mod_ct_conn::flags: TCP: a valid packet followed the handshake or the first reply (Linux's ASSURED). */
#define MOD_CT_C_ASSURED 0x02
/** struct mod_ct_conn::flags: TCP connection picked up mid-stream (loose mode). */
#define MOD_CT_C_PICKUP 0x04
/** All flags. */
#define MOD_CT_C_ALL 0x07

/*
 * TCP window tracking, per direction (a side is the sender of the packets
 * of its direction). Sequence numbers compare modulo 2^32.
 */

/** struct mod_ct_tcp_side::flags: the side's SYN carried a window-scale option. */
#define MOD_CT_TS_WSCALE 0x01
/** struct mod_ct_tcp_side::flags: the side's SYN carried SACK permitted. */
#define MOD_CT_TS_SACK_PERM 0x02
/** struct mod_ct_tcp_side::flags: the side sent the connection's first FIN. */
#define MOD_CT_TS_CLOSE_INIT 0x04
/** struct mod_ct_tcp_side::flags: out-of-window packets of the side are accepted (pickup). */
#define MOD_CT_TS_LIBERAL 0x08
/** struct mod_ct_tcp_side::flags: the side sent data not acknowledged yet. */
#define MOD_CT_TS_UNACKED 0x10
/** struct mod_ct_tcp_side::flags: struct mod_ct_tcp_side::maxack is set. */
#define MOD_CT_TS_MAXACK 0x20
/** struct mod_ct_tcp::last_flags: a challenge ACK may answer an ignored SYN. */
#define MOD_CT_TS_CHALLENGE 0x40
/** struct mod_ct_tcp::last_flags: SYNs were seen both ways. */
#define MOD_CT_TS_SIMOPEN 0x80

/** One direction of a TCP connection: what its sender did and may do. */
struct mod_ct_tcp_side {
	uint32_t end;    /**< highest sequence number sent, + 1 (seq + length, SYN and FIN count) */
	uint32_t maxend; /**< highest sequence number the receiver allows (its ACK + window) */
	uint32_t maxwin; /**< largest window (scaled) the sender advertised, at least 1 once seen */
	uint32_t maxack; /**< highest ACK sent, with MOD_CT_TS_MAXACK */
	uint8_t scale;   /**< window-scale shift of the sender's windows */
	uint8_t flags;   /**< MOD_CT_TS_* */
};

/**
 * A TCP connection's window tracking and the memory of its last packet
 * (Linux's ip_ct_tcp). Part of struct mod_ct_conn; zero for other protocols.
 */
struct mod_ct_tcp {
	struct mod_ct_tcp_side side[2]; /**< [MOD_CT_DIR_ORIG], [MOD_CT_DIR_REPLY] */
	uint32_t last_seq;   /**< of the last packet in window, or ignored */
	uint32_t last_ack;
	uint32_t last_end;
	uint16_t last_win;   /**< its raw window */
	uint8_t last_index;  /**< its kind: MOD_CT_TI_* */
	uint8_t last_dir;    /**< its direction */
	uint8_t last_wscale; /**< window scale of an ignored SYN */
	uint8_t last_flags;  /**< MOD_CT_TS_WSCALE, _SACK_PERM of an ignored SYN; _CHALLENGE, _SIMOPEN */
	uint8_t retrans;     /**< identical packets in a row (retransmissions), saturating */
};

/** Kinds of TCP segments (struct mod_ct_tcp::last_index), from their flags. */
enum mod_ct_tcp_index {
	MOD_CT_TI_SYN,
	MOD_CT_TI_SYNACK,
	MOD_CT_TI_FIN,
	MOD_CT_TI_ACK,
	MOD_CT_TI_RST,
	MOD_CT_TI_NONE,
};

/** struct mod_ct_sctp::flags: an INIT was seen from side d (shifted by d; Linux's init[d]). */
#define MOD_CT_SC_INIT 0x01
/** struct mod_ct_sctp::flags: a HEARTBEAT with another tag was let through (a new path). */
#define MOD_CT_SC_HB_FAILED 0x04
/** struct mod_ct_sctp::flags: ... from the reply side (else the original one). */
#define MOD_CT_SC_HB_REPLY 0x08

/**
 * An SCTP association's verification tags (Linux's ip_ct_sctp). Part of
 * struct mod_ct_conn; zero for other protocols.
 */
struct mod_ct_sctp {
	/**
	 * [d]: the tag packets of direction d carry (the receiver's
	 * Initiate Tag; host order); 0 while unknown.
	 */
	uint32_t vtag[2];
	uint8_t flags; /**< MOD_CT_SC_* */
};

/**
 * A connection's state: what the module keeps. Written only through
 * mod_ct_new() and mod_ct_packet() on the rules lcore; readers (shell,
 * telemetry) look at a copy.
 */
struct mod_ct_conn {
	uint8_t state;      /**< enum mod_ct_state */
	uint8_t flags;      /**< MOD_CT_C_* */
	uint8_t helper;     /**< a record's own helper (enum mod_ct_helper, conntrack_helper.h) */
	/**
	 * A record's: not 0 for a connection a helper expected (its master's
	 * helper): its original side is RELATED until the first reply,
	 * --ctstatus EXPECTED, -m helper matches that helper. Neither byte is
	 * packed.
	 */
	uint8_t master_helper;
	struct mod_ct_tcp tcp; /**< TCP: window tracking; zero otherwise */
	struct mod_ct_sctp sctp; /**< SCTP: verification tags; zero otherwise */
	/**
	 * The module's records: their protocol (TCP, SCTP; UDP with a helper
	 * or a master). 0 where mod_ct_new() and mod_ct_conn_unpack() leave it.
	 */
	uint8_t proto;
};

/** Packet directions: the entry's key is the original or the reply key. */
#define MOD_CT_DIR_ORIG 0
#define MOD_CT_DIR_REPLY 1

/**
 * Timeouts: one X-macro makes the enum (MOD_CT_TO_<NAME>), the names
 * (mod_ct_timeout_name()) and the defaults in milliseconds (Linux's).
 * X(NAME, "name", default_ms)
 */
#define MOD_CT_TIMEOUTS(X) \
	X(TCP_SYN_SENT, "tcp_syn_sent", 120000u) \
	X(TCP_SYN_RECV, "tcp_syn_recv", 60000u) \
	X(TCP_ESTABLISHED, "tcp_established", 432000000u) \
	X(TCP_FIN_WAIT, "tcp_fin_wait", 120000u) \
	X(TCP_CLOSE_WAIT, "tcp_close_wait", 60000u) \
	X(TCP_LAST_ACK, "tcp_last_ack", 30000u) \
	X(TCP_TIME_WAIT, "tcp_time_wait", 120000u) \
	X(TCP_CLOSE, "tcp_close", 10000u) \
	X(TCP_SYN_SENT2, "tcp_syn_sent2", 120000u) \
	X(TCP_UNREPLIED, "tcp_unreplied", 300000u) \
	X(TCP_RETRANS, "tcp_retrans", 300000u) \
	X(TCP_UNACKNOWLEDGED, "tcp_unacknowledged", 300000u) \
	X(UDP, "udp", 30000u) \
	X(UDP_REPLIED, "udp_replied", 120000u) \
	X(ICMP, "icmp", 30000u) \
	X(GENERIC, "generic", 600000u) \
	X(SCTP_CLOSED, "sctp_closed", 10000u) \
	X(SCTP_COOKIE_WAIT, "sctp_cookie_wait", 3000u) \
	X(SCTP_COOKIE_ECHOED, "sctp_cookie_echoed", 3000u) \
	X(SCTP_ESTABLISHED, "sctp_established", 210000u) \
	X(SCTP_SHUTDOWN_SENT, "sctp_shutdown_sent", 3000u) \
	X(SCTP_SHUTDOWN_RECD, "sctp_shutdown_recd", 3000u) \
	X(SCTP_SHUTDOWN_ACK_SENT, "sctp_shutdown_ack_sent", 3000u) \
	X(SCTP_HEARTBEAT_SENT, "sctp_heartbeat_sent", 30000u)

/** Timeout slots of struct mod_ct_cfg::timeout (see MOD_CT_TIMEOUTS). */
enum mod_ct_timeout {
#define MOD_CT_TO_ENUM(name, text, ms) MOD_CT_TO_##name,
	MOD_CT_TIMEOUTS(MOD_CT_TO_ENUM)
#undef MOD_CT_TO_ENUM
	MOD_CT_TO__COUNT
};

/** Default of struct mod_ct_cfg::tcp_max_retrans (Linux's nf_conntrack_tcp_max_retrans). */
#define MOD_CT_MAX_RETRANS_DEFAULT 3

/**
 * Conntrack configuration. The module keeps a copy (struct
 * mod_ct_module_params); read-only while it runs with it. The TCP settings
 * are Linux's sysctls of the same names.
 */
struct mod_ct_cfg {
	/**
	 * Strict TCP: only a SYN creates a connection (Linux's
	 * nf_conntrack_tcp_loose=0). Off, the default (loose=1), an ACK
	 * without SYN also creates one, picked up as ESTABLISHED.
	 */
	bool tcp_strict;
	/**
	 * Accept out-of-window TCP segments (nf_conntrack_tcp_be_liberal=1):
	 * only invalid flag combinations and out-of-window RSTs are INVALID
	 * then. Off by default.
	 */
	bool tcp_be_liberal;
	/**
	 * Retransmissions in a row after which a connection times out after
	 * tcp_retrans instead of its state's timeout (nf_conntrack_tcp_max_retrans).
	 */
	uint8_t tcp_max_retrans;
	/** Idle timeouts in milliseconds, each at least 1 (0 would never age). */
	uint32_t timeout[MOD_CT_TO__COUNT];
};

/** Verdict flags: a connection was created (mod_ct_new() only). */
#define MOD_CT_VF_CREATED 0x01
/**
 * Verdict flags: the connection's state, flags, timeout or interest masks
 * changed: store the connection (packed, for UDP and the like) in both
 * entries with the verdict's timeout and interest masks. (A TCP
 * connection's window tracking changes with almost every packet; its
 * record is updated in place either way.)
 */
#define MOD_CT_VF_CHANGED 0x02
/**
 * Verdict flags: the connection's ctstate changed (the first reply was
 * seen: original-side packets go from NEW to ESTABLISHED). Verdicts cached
 * for either entry are stale: run the filter again for both.
 */
#define MOD_CT_VF_CTSTATE 0x04
/**
 * Verdict flags: the connection is closed (TCP CLOSE, after a RST). Linux
 * keeps it for the short close timeout so that late packets still match;
 * the module does the same (it keeps both entries).
 */
#define MOD_CT_VF_CLOSED 0x08
/**
 * Verdict flags: the packet opens a new connection on this tuple (a SYN on
 * a TIME_WAIT or CLOSE connection that was closed by a FIN, or reset by
 * the SYN's side). Remove the old connection (both entries) and hand the
 * packet to mod_ct_new(); its key becomes the new original direction. The
 * rest of the verdict describes the old connection.
 */
#define MOD_CT_VF_REOPEN 0x10
/**
 * Verdict flags: the packet (a RST of a connection that never saw a reply)
 * is accepted and ends the connection at once, as Linux deletes it: remove
 * both entries; a later packet of the tuple is a new flow.
 */
#define MOD_CT_VF_REMOVE 0x20
/**
 * Verdict flags: the packet is accepted but ignored (Linux's "ignored"
 * packets: a SYN or SYN/ACK the state cannot explain, a segment below the
 * window): its ctstate is the connection's, the state does not change.
 */
#define MOD_CT_VF_IGNORED 0x40

/** Why a packet is INVALID (struct mod_ct_verdict::why), one X-macro for names. */
#define MOD_CT_INVALID_REASONS(X) \
	X(NONE, "none") \
	X(FLAGS, "tcp_flags") \
	X(NEW, "not_a_start") \
	X(STATE, "state") \
	X(SEQ, "seq_over_window") \
	X(ACK, "ack_over_sent") \
	X(RST, "rst_out_of_window") \
	X(ICMP, "icmp") \
	X(UDPLITE, "udplite") \
	X(SCTP, "sctp") \
	X(SCTP_VTAG, "sctp_vtag") \
	X(SCTP_CRC, "sctp_crc")

/** Why a packet is INVALID. */
enum mod_ct_why {
#define MOD_CT_WHY_ENUM(name, text) MOD_CT_WHY_##name,
	MOD_CT_INVALID_REASONS(MOD_CT_WHY_ENUM)
#undef MOD_CT_WHY_ENUM
	MOD_CT_WHY__COUNT
};

/** What the module says about one packet. */
struct mod_ct_verdict {
	uint32_t timeout;     /**< idle timeout of both entries, ms */
	uint16_t interest[2]; /**< FC_INTEREST_* of the [MOD_CT_DIR_ORIG] and [_REPLY] entries */
	uint8_t ctstate;      /**< the packet's: one RULE_CT_* bit, or 0 if not tracked */
	uint8_t flags;        /**< MOD_CT_VF_* */
	uint8_t why;          /**< with ctstate INVALID: enum mod_ct_why */
};

/**
 * Fill @p cfg with the defaults: loose TCP, window checks on
 * (be_liberal off), 3 retransmissions, Linux's timeouts.
 * @param cfg  configuration to initialize
 * Context: any.
 */
void mod_ct_cfg_init(struct mod_ct_cfg *cfg);

/**
 * Check a configuration.
 * @param cfg  configuration
 * @return 0, or -EINVAL (NULL, or a timeout of 0).
 * Context: any.
 */
int mod_ct_cfg_check(const struct mod_ct_cfg *cfg);

/**
 * Name of a timeout slot ("tcp_established", ...), as configs and the shell
 * spell it.
 * @param to  enum mod_ct_timeout
 * @return a static string; "?" if out of range.
 * Context: any.
 */
const char *mod_ct_timeout_name(unsigned int to);

/**
 * Find a timeout slot by name.
 * @param name  NUL-terminated name, as mod_ct_timeout_name() gives
 * @return the enum mod_ct_timeout value, or -ENOENT (-EINVAL for NULL).
 * Context: any.
 */
int mod_ct_timeout_find(const char *name);

/**
 * Name of an INVALID reason ("seq_over_window", ...), for counters.
 * @param why  enum mod_ct_why
 * @return a static string; "?" if out of range.
 * Context: any.
 */
const char *mod_ct_why_name(unsigned int why);

/**
 * Pack a connection's state and flags into one byte (what the module
 * stores in fc_action::ct_state for protocols other than TCP): state in
 * bits 0-3, flags in bits 4-6, bit 7 zero. The TCP part is not packed.
 * @param c  connection (state < MOD_CT_S__COUNT, flags within MOD_CT_C_ALL)
 * @return the byte.
 * Context: any.
 */
uint8_t mod_ct_conn_pack(const struct mod_ct_conn *c);

/**
 * Unpack a byte of mod_ct_conn_pack() (the TCP part comes out zero).
 * @param b  the stored byte
 * @param c  receives the connection
 * @return 0, or -EINVAL if @p b is no valid encoding (@p c is then NONE).
 * Context: any.
 */
int mod_ct_conn_unpack(uint8_t b, struct mod_ct_conn *c);

/**
 * First packet of a flow no entry knows: decide whether it starts a
 * connection. TCP: a SYN does (SYN_SENT, its side's window tracking
 * initialized from it); in loose mode an ACK without SYN, FIN or RST does
 * too (ESTABLISHED, picked up mid-stream, both sides liberal as in Linux:
 * the windows of a connection whose start was not seen are guessed);
 * everything else (SYN/ACK, FIN, RST, invalid flag combinations, a stray
 * ACK in strict mode) is INVALID and creates nothing. UDP and other
 * protocols: every packet does, but a UDP-Lite packet with a checksum
 * coverage of 1-7 or past the datagram, or no checksum, is INVALID
 * (MOD_CT_WHY_UDPLITE; read from @p frame), and an SCTP packet Linux's
 * SCTP tracker would not start a connection with (MOD_CT_WHY_SCTP: a DATA
 * or SACK chunk, ABORT, COOKIE ACK, SHUTDOWN COMPLETE, an INIT with a
 * verification tag or with other chunks, a chunk of length 0, no chunk;
 * MOD_CT_WHY_SCTP_VTAG: another first chunk with a tag the later checks
 * refuse; read from @p frame) is INVALID; any other starts an SCTP
 * association in the state its chunks move NONE to, with the tags they
 * tell (struct mod_ct_sctp), proto 132 (the module keeps it in a record). ICMP and ICMPv6: echo requests
 * (and v4 timestamp/information/address-mask requests, v6 node information
 * queries) do; their replies and errors are INVALID (call
 * mod_ct_icmp_inner_key() first to find RELATED errors); ICMPv6 neighbour
 * discovery and MLD are not tracked (ctstate 0), nor are non-first
 * fragments, which carry no L4 header.
 *
 * On MOD_CT_VF_CREATED, keep @p c for the connection's entries (the
 * original direction is the packet's key), with the verdict's timeout and
 * interest masks. Without it nothing is tracked: for ctstate 0 the answer
 * holds for every packet of the tuple (interest 0); for INVALID the
 * interest is FC_INTEREST_ALL in both directions, since a later packet of
 * the tuple may start a connection.
 *
 * @param cfg        configuration
 * @param pkt        the parsed packet (key, TCP fields, icmp_type, frag)
 * @param frame      the frame @p pkt was parsed from, for TCP SACK blocks
 *   and the UDP-Lite header; NULL: none are read (UDP-Lite passes)
 * @param frame_len  bytes at @p frame
 * @param c          receives the new connection (NONE if none was created)
 * @param v          receives the verdict; ctstate is RULE_CT_NEW,
 *   RULE_CT_INVALID or 0
 * @return 0, or -EINVAL (NULL argument, unknown address family).
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v);

/**
 * A later packet of connection @p c, from direction @p dir. TCP: Linux's
 * transition for the segment's kind and direction, its checks of the
 * segment against the windows (SEQ not beyond what the receiver allows,
 * (S)ACK not beyond what the receiver sent; be_liberal and pickups accept
 * such segments), of RSTs (the sequence number must match what the other
 * side acknowledged) and of reopening SYNs; the windows updated from an
 * accepted segment; identical segments in a row counted as
 * retransmissions. SCTP: Linux's checks of the chunks and of the
 * verification tag (MOD_CT_WHY_SCTP, MOD_CT_WHY_SCTP_VTAG), its state
 * table chunk by chunk, the tags INIT and INIT ACK tell, ASSURED on
 * ESTABLISHED; a packet Linux accepts without renewing the timeout is
 * MOD_CT_VF_IGNORED. Others: the first reply marks the connection replied.
 * The packet's ctstate: INVALID when it does not fit (then only Linux's
 * memory of the last packet may change), else ESTABLISHED for reply
 * packets and for original ones once a reply was seen, NEW before.
 *
 * With MOD_CT_VF_CHANGED store the new @p c (and the verdict's timeout and
 * interest masks) in both entries; with MOD_CT_VF_CTSTATE also re-run the
 * filter for both; with MOD_CT_VF_REOPEN or MOD_CT_VF_REMOVE see there.
 *
 * @param cfg        configuration
 * @param c          the connection, updated in place
 * @param dir        MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY: which entry the packet hit
 * @param pkt        the parsed packet
 * @param frame      the frame of @p pkt (TCP SACK blocks), or NULL
 * @param frame_len  bytes at @p frame
 * @param v          receives the verdict
 * @return 0, or -EINVAL (NULL argument, bad @p dir, @p c not a connection
 *   or not one of the packet's protocol); @p c is unchanged then.
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v);

/**
 * Idle timeout of a connection in its current state (what the verdicts
 * give; for re-applying a changed configuration). TCP: the state's timeout,
 * at most tcp_unreplied until a reply was seen, at most tcp_retrans after
 * tcp_max_retrans retransmissions in a row, and at most tcp_unacknowledged
 * (data not acknowledged) or tcp_retrans (a zero window) in the states
 * whose every packet the slow path sees (mod_ct_interest()). UDP: udp,
 * udp_replied once replied. ICMP: icmp. SCTP: the state's (sctp_*).
 * Others: generic. NONE: the
 * protocol's unreplied timeout (what an untracked entry may use).
 *
 * @param cfg     configuration
 * @param family  FC_AF_INET4 or FC_AF_INET6 (ICMP is proto 1 in v4, 58 in v6)
 * @param proto   IP protocol of the connection's keys
 * @param c       the connection
 * @return the timeout in ms; 0 for an invalid @p c or a state of another
 *   protocol (a TCP state for a UDP key, OPEN for a TCP key).
 * Context: any.
 */
uint32_t mod_ct_timeout(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c);

/**
 * Interest masks of a connection's two entries in its current state.
 * TCP: SYN, RST and segments without ACK (FC_INTEREST_TCP_NOACK) always;
 * every packet (FC_INTEREST_ALL) of both sides after tcp_max_retrans
 * retransmissions, and of the reply side until it was seen. Where the
 * fast path moves the state (mod_ct_fast_states(): from the first reply
 * on, neither side liberal), FC_INTEREST_TCP_WIN and no FIN: the fast
 * path checks each segment against the windows and moves the state
 * (mod_ct_fast_check()), sending what it cannot vouch for. Otherwise FIN
 * too, and every packet during the handshake (SYN_SENT, SYN_SENT2,
 * SYN_RECV), in FIN_WAIT and LAST_ACK (where any ACK moves the state) and
 * after the first reply until the connection is assured; else, both
 * windows known or the connection liberal (be_liberal, a pickup),
 * FC_INTEREST_TCP_WIN. Other protocols want every reply packet until the
 * first, then nothing; SCTP besides, in both directions, FC_INTEREST_SCTP
 * (the fast path passes only packets of the direction's tag whose chunks
 * move nothing: mod_ct_sctp_fast_check()); UDP-Lite besides, in both directions, the datagrams
 * whose header fails fc_udplite_ok() (FC_INTEREST_UDPLITE: the fast path
 * checks each one), invalid as Linux finds every such packet. NONE: nothing.
 *
 * @param cfg       configuration
 * @param family    as mod_ct_timeout()
 * @param proto     as mod_ct_timeout()
 * @param c         the connection
 * @param interest  receives [MOD_CT_DIR_ORIG] and [MOD_CT_DIR_REPLY]
 * Context: any.
 */
void mod_ct_interest(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c, uint16_t interest[2]);

/**
 * The ctstate that packets taking the fast path get from an entry of
 * connection @p c (what the cached filter verdict must be computed with).
 * @param c    the connection
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @return RULE_CT_ESTABLISHED for the reply side and for the original side
 *   once replied, RULE_CT_NEW before; 0 for NONE.
 * Context: any.
 */
unsigned int mod_ct_conn_ctstate(const struct mod_ct_conn *c, unsigned int dir);

/**
 * Is this packet an ICMP or ICMPv6 error, one that quotes another packet?
 * ICMP: destination unreachable, source quench, redirect, time exceeded,
 * parameter problem. ICMPv6: destination unreachable, packet too big, time
 * exceeded, parameter problem.
 * @param pkt  the parsed packet
 * @return true for an error message.
 * Context: any.
 */
bool mod_ct_icmp_is_error(const struct fc_pkt *pkt);

/**
 * Key of the packet an ICMP/ICMPv6 error quotes: its IP header (IPv4 with
 * options; IPv6 with hop-by-hop, routing, destination-options and fragment
 * headers) and the first 8 bytes of its L4 header, as fc_parse() would key
 * that packet (ports, echo identifier or type/code; local bits 0: mark them
 * as for any key). The quoted packet may be cut short (routers quote a
 * prefix); its length fields are not checked against the bytes at hand.
 * The module looks the key up to tell RELATED from INVALID. Never reads
 * outside [frame, frame + len) nor past the outer IP datagram.
 *
 * @param frame  the frame @p pkt was parsed from (Ethernet header first)
 * @param len    bytes in @p frame
 * @param pkt    fc_parse() result of @p frame
 * @param inner  receives the normalized key
 * @return 0; -ENOENT if the packet is not an ICMP error
 *   (mod_ct_icmp_is_error()) or the quoted packet can belong to no
 *   connection (a non-first fragment, an ICMP error); -EINVAL if malformed:
 *   not ICMP of its family, a non-first fragment itself, the quoted IP
 *   header (or the 8 L4 bytes of TCP, UDP, SCTP, ICMP) cut or invalid, of
 *   the other family, or NULL arguments.
 * Context: any lcore.
 */
int mod_ct_icmp_inner_key(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt,
	struct fc_key *inner);

/**
 * Name of a state, upper case as Linux shows them ("SYN_SENT",
 * "ESTABLISHED", ..., "OPEN", "NONE").
 * @param state  enum mod_ct_state
 * @return a static string; "?" if out of range.
 * Context: any.
 */
const char *mod_ct_state_name(unsigned int state);

/**
 * Format a connection for the shell: the state name, then the flags, and
 * for TCP the retransmissions and per direction the window tracking, e.g.
 * "OPEN unreplied", "ESTABLISHED replied assured retrans=0 orig=[end=1001
 * maxend=66536 maxwin=64240 scale=7] reply=[...]".
 * @param c    the connection
 * @param buf  destination
 * @param len  size of @p buf (MOD_CT_FORMAT_MAX always suffices)
 * @return characters written (excluding NUL), -ENOSPC if truncated,
 *   -EINVAL for an invalid @p c or NULL.
 * Context: any.
 */
int mod_ct_conn_format(const struct mod_ct_conn *c, char *buf, size_t len);

/** Longest text of mod_ct_conn_format(), NUL included. */
#define MOD_CT_FORMAT_MAX 256

/* ------------------------------------------------------------------------ */
/* The module                                                                */
/* ------------------------------------------------------------------------ */

/*
 * The conntrack module (ct_module.c): the state machine as a struct
 * rule_module of the rules engine, named "conntrack", order
 * RULE_MOD_ORDER_CT, with RULE_MOD_F_OWN_INTEREST (it rewrites its part of
 * the interest masks when a connection changes).
 *
 * - on_insert: mod_ct_new() for a new flow. A UDP, ICMP or other
 *   connection gets its packed state in both entries; a TCP connection a
 *   record (its struct mod_ct_conn stored in a struct mod_ct_fast_line) of
 *   its own, whose id both entries carry
 *   (mod_ct_entry_id()); both get the timeout and interest masks, a reply
 *   entry and struct rule_flow::reply_ctstate. Without a connection the
 *   flow is marked untracked (and nocache when INVALID: a later packet of
 *   the tuple may still open a connection). Flows the engine decides
 *   without an entry (non-first fragments) stay untracked. An ICMP error
 *   is RELATED when the packet it quotes is a cached connection's (its key
 *   is looked up both ways, with every combination of local bits):
 *   rule_flow::related, rel_way and rel_act tell which entry, for NAT;
 *   INVALID otherwise; errors are never cached.
 * - on_packet: mod_ct_packet() for a packet the slow path sees: first the
 *   TCP connection is loaded from its record, the fast path's progress
 *   (below) folded in, and after the packet stored back whole; a changed
 *   connection is stored (struct rule_flow::store), both entries refiltered
 *   when the ctstate changed, the flow removed (and the packet decided as a
 *   new one on a reopen).
 * - entry_timeout: a TCP connection's timeout is its record's with the
 *   fast path's progress folded in (its state, retransmissions in a row,
 *   unacknowledged data: what the fast path moves), for aging.
 * - on_abort, on_remove: a TCP record goes back to the free list after a
 *   grace period of the engine's readers (rule_engine_defer()): an RX
 *   lcore may still be writing to its fast-path line.
 * - entry_ctstate, ct_format: what an entry's connection means.
 *
 * The fast path and TCP windows: an entry with FC_INTEREST_TCP_WIN hands
 * each TCP segment (one with ACK and without SYN or RST, and without FIN
 * unless the fast path moves the connection's state: the other interest
 * bits send those to the slow path) to mod_ct_fast_check(), which reads
 * the connection's record (struct mod_ct_fast_line, one cache line per
 * TCP connection): the windows as the slow path last knew them,
 * and the progress RX lcores made since (the highest sequence number
 * sent, ACK + window, ACK and window passed per direction, each written by
 * the lcore that serves that direction only; the memory of the last
 * segment; from the first reply on, the state). A segment within both
 * passes and advances that progress (and the state, as the slow path
 * would); anything the check cannot vouch for (beyond the receiver's
 * window, an ACK beyond what the other side sent, old or retransmitted
 * data, options that may hold SACK blocks) goes to the slow path, which
 * loads the connection with the progress folded in and decides as Linux.
 *
 * Ownership: the module belongs to whoever created it (the app); it keeps
 * a pointer to its engine and must outlive it: free it after
 * rule_engine_free(). TCP records are allocated by the
 * rules lcore in chunks as connections need them and freed with the
 * module. Its counters are written by the rules lcore and read relaxed by
 * anyone.
 */

struct rule_engine;

/** The conntrack module. */
struct mod_ct_module;

/** Conntrack module parameters. */
struct mod_ct_module_params {
	/**
	 * Configuration; all timeouts 0 = mod_ct_cfg_init()'s timeouts and,
	 * if 0, tcp_max_retrans (tcp_strict and tcp_be_liberal are taken as
	 * given).
	 */
	struct mod_ct_cfg cfg;
	/**
	 * Most TCP connections tracked at once (records); 0 = the engine's
	 * table capacities (two entries per connection). At most
	 * MOD_CT_ID_MAX - 1. A TCP connection or SCTP association beyond it
	 * is not tracked: its packets are INVALID (counted in tcp_full).
	 */
	uint32_t max_tcp;
};

/** Counters of the conntrack module. */
struct mod_ct_module_stats {
	uint64_t related;   /**< ICMP errors found RELATED */
	uint64_t invalid[MOD_CT_WHY__COUNT]; /**< INVALID packets by reason (enum mod_ct_why) */
	uint64_t ignored;   /**< TCP packets accepted but ignored (MOD_CT_VF_IGNORED) */
	uint64_t reopened;  /**< TCP connections replaced by a new SYN */
	uint64_t removed;   /**< TCP connections ended by a RST before any reply */
	uint64_t tcp_conns; /**< TCP connections (records) tracked now */
	uint64_t tcp_full;  /**< TCP connections and SCTP associations refused: max_tcp
				 reached (and UDP ones tracked without their helper for
				 want of a record) */
	uint64_t sctp_conns; /**< SCTP associations (records) tracked now */
	uint64_t notrack;   /**< new flows the raw table made untracked (CT --notrack, NOTRACK) */
	/** TCP connections whose line was armed at their SYN for the fast path to
	 *  take their SYN/ACK (mod_ct_fast_synack()) */
	uint64_t synack_armed;
};

/**
 * Create the module and register it with @p eng.
 * @param eng  the engine
 * @param p    parameters
 * @return the module, or NULL with rte_errno EINVAL (NULL argument, a
 *   timeout of 0 among others, max_tcp too large), ENOMEM, or the
 *   registration's error (ENOSPC, EEXIST).
 * Context: main lcore, before traffic (as rule_engine_module_register()).
 */
struct mod_ct_module *mod_ct_module_create(struct rule_engine *eng,
	const struct mod_ct_module_params *p);

/**
 * Free the module.
 * @param ct  the module; NULL is accepted
 * Context: main lcore, after rule_engine_free() of its engine.
 */
void mod_ct_module_free(struct mod_ct_module *ct);

/**
 * Read the counters.
 * @param ct  the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_ct_module_stats_get(const struct mod_ct_module *ct, struct mod_ct_module_stats *st);

/**
 * The connection an entry belongs to, as the module keeps it (a copy).
 * @param ct  the module
 * @param a   the entry's action (rule_engine_flow_lookup() and the like)
 * @param c   receives the connection (with the fast path's progress folded
 *   in for TCP)
 * @return 0; -ENOENT (the entry is not a tracked connection's), -EINVAL
 *   (NULL argument).
 * Context: rules lcore (other threads: for display only, values may change
 *   underneath).
 */
int mod_ct_module_conn_get(const struct mod_ct_module *ct, const struct fc_action *a,
	struct mod_ct_conn *c);

/* The fast path's window check: conntrack_fast.h; helpers (FTP) and
 * expectations: conntrack_helper.h; both part of this manual. */

#ifdef __cplusplus
}
#endif

#include "conntrack_fast.h"
#include "conntrack_helper.h"

#endif /* GUFC_CONNTRACK_H */
