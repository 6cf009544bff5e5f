/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — connection tracking (prefix mod_ct_; users:
 * doc/conntrack.md).
 *
 * What it is: a pure, deterministic state machine per connection (TCP like
 * Linux's nf_conntrack without sequence-number and window tracking: any
 * RST closes, any ACK from the right side completes a handshake or a
 * close; UDP; ICMP echo and the other ICMP queries; other protocols), with
 * Linux's timeouts and the interest masks that say which packets of a
 * cached connection can change it; plus the key of the packet an ICMP
 * error quotes, which tells RELATED from INVALID.
 *
 * Where it sits: the state machine (conntrack.c) is pure C, no EAL (the
 * 'conntrack_pure' library, built for the sanitizer runs too); it needs
 * lib/flowcache (parsed packets, keys) and lib/rules (RULE_CT_* states)
 * only. The module (ct_module.c, the 'conntrack' library, EAL) makes it a
 * struct rule_module of lib/engine, registered by mod_ct_module_create()
 * at RULE_MOD_ORDER_CT: see "The module" at the end.
 *
 * State and ownership: the functions own no memory and keep no state of
 * their own: a connection's whole state is a struct mod_ct_conn, which
 * packs into one byte stored in fc_action::ct_state of both flow entries
 * of the connection (the original direction's key and the reply
 * direction's, see FC_ACT_F_REPLY). Only the rules lcore writes entries,
 * so only it changes a connection; anyone may unpack a copy to show it.
 *
 * Encoding of fc_action::ct_state (mod_ct_conn_pack()):
 *   bits 0-3  enum mod_ct_state (0 = MOD_CT_S_NONE: not tracked)
 *   bits 4-6  MOD_CT_C_* flags (replied, first FIN from the reply side,
 *             picked up mid-stream)
 *   bit  7    zero
 *
 * Protocol: mod_ct_new() decides the first packet of a flow that no entry
 * knows; mod_ct_packet() each later packet that the interest mask of its
 * entry selects: only those packets can change a connection, so the
 * packets that take the fast path never need to come here. Each call
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

/** Connection states (4 bits). TCP states follow Linux's names. */
enum mod_ct_state {
	MOD_CT_S_NONE,        /**< no connection: the packet is not tracked */
	MOD_CT_S_SYN_SENT,    /**< TCP: SYN seen from the original side */
	MOD_CT_S_SYN_RECV,    /**< TCP: SYN/ACK seen, waiting for the final ACK */
	MOD_CT_S_ESTABLISHED, /**< TCP: handshake done (or picked up mid-stream) */
	MOD_CT_S_FIN_WAIT,    /**< TCP: one side sent FIN */
	MOD_CT_S_CLOSE_WAIT,  /**< TCP: that FIN was acknowledged by the other side */
	MOD_CT_S_LAST_ACK,    /**< TCP: both sides sent FIN, waiting for the last ACK */
	MOD_CT_S_TIME_WAIT,   /**< TCP: closed cleanly, lingering */
	MOD_CT_S_CLOSE,       /**< TCP: closed by RST, lingering briefly */
	MOD_CT_S_SYN_SENT2,   /**< TCP: SYN seen from both sides (simultaneous open) */
	MOD_CT_S_OPEN,        /**< UDP, ICMP echo and other protocols */
	MOD_CT_S__COUNT
};

/** struct mod_ct_conn::flags: a packet was accepted from the reply side. */
#define MOD_CT_C_REPLIED 0x01
/**
 * struct mod_ct_conn::flags: the first FIN came from the reply side (set on
 * entering FIN_WAIT; FIN_WAIT, CLOSE_WAIT and LAST_ACK read it).
 */
#define MOD_CT_C_CLOSER_REPLY 0x02
/** struct mod_ct_conn::flags: TCP connection picked up mid-stream (loose mode). */
#define MOD_CT_C_PICKUP 0x04
/** All flags. */
#define MOD_CT_C_ALL 0x07

/**
 * A connection's state: what the module stores (packed) in both entries.
 * Written only through mod_ct_new() and mod_ct_packet() on the rules lcore;
 * readers (shell, telemetry) unpack a copy from an entry.
 */
struct mod_ct_conn {
	uint8_t state; /**< enum mod_ct_state */
	uint8_t flags; /**< MOD_CT_C_* */
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
	X(UDP, "udp", 30000u) \
	X(UDP_REPLIED, "udp_replied", 120000u) \
	X(ICMP, "icmp", 30000u) \
	X(GENERIC, "generic", 600000u)

/** Timeout slots of struct mod_ct_cfg::timeout (see MOD_CT_TIMEOUTS). */
enum mod_ct_timeout {
#define MOD_CT_TO_ENUM(name, text, ms) MOD_CT_TO_##name,
	MOD_CT_TIMEOUTS(MOD_CT_TO_ENUM)
#undef MOD_CT_TO_ENUM
	MOD_CT_TO__COUNT
};

/**
 * Conntrack configuration. The module keeps a copy (struct
 * mod_ct_module_params); read-only while it runs with it.
 */
struct mod_ct_cfg {
	/**
	 * Strict TCP: only a SYN creates a connection. Off (the default, like
	 * Linux's nf_conntrack_tcp_loose=1), an ACK without SYN also creates
	 * one, picked up as ESTABLISHED.
	 */
	bool tcp_strict;
	/** Idle timeouts in milliseconds, each at least 1 (0 would never age). */
	uint32_t timeout[MOD_CT_TO__COUNT];
};

/** Verdict flags: a connection was created (mod_ct_new() only). */
#define MOD_CT_VF_CREATED 0x01
/**
 * Verdict flags: the connection changed (its packed byte differs): store
 * it in both entries with the verdict's timeout and interest masks.
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
 * a TIME_WAIT or CLOSE connection). Remove the old connection (both
 * entries) and hand the packet to mod_ct_new(); its key becomes the new
 * original direction. The rest of the verdict describes the old connection.
 */
#define MOD_CT_VF_REOPEN 0x10

/** What the module says about one packet. */
struct mod_ct_verdict {
	uint32_t timeout;     /**< idle timeout of both entries, ms */
	uint16_t interest[2]; /**< FC_INTEREST_* of the [MOD_CT_DIR_ORIG] and [_REPLY] entries */
	uint8_t ctstate;      /**< the packet's: one RULE_CT_* bit, or 0 if not tracked */
	uint8_t flags;        /**< MOD_CT_VF_* */
};

/**
 * Fill @p cfg with the defaults: loose TCP, Linux's timeouts.
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
 * Pack a connection into the byte stored in fc_action::ct_state.
 * @param c  connection (state < MOD_CT_S__COUNT, flags within MOD_CT_C_ALL)
 * @return the byte.
 * Context: any.
 */
uint8_t mod_ct_conn_pack(const struct mod_ct_conn *c);

/**
 * Unpack fc_action::ct_state.
 * @param b  the stored byte
 * @param c  receives the connection
 * @return 0, or -EINVAL if @p b is no valid encoding (@p c is then NONE).
 * Context: any.
 */
int mod_ct_conn_unpack(uint8_t b, struct mod_ct_conn *c);

/**
 * First packet of a flow no entry knows: decide whether it starts a
 * connection. TCP: a SYN does (SYN_SENT); in loose mode an ACK without SYN
 * does too (ESTABLISHED, picked up); everything else (SYN/ACK, FIN, RST,
 * invalid flag combinations, and a stray ACK in strict mode) is INVALID and
 * creates nothing. UDP and other protocols: every packet does. ICMP and
 * ICMPv6: echo requests (and v4 timestamp/information/address-mask
 * requests, v6 node information queries) do; echo replies and errors are
 * INVALID (call mod_ct_icmp_inner_key() first to find RELATED errors);
 * ICMPv6 neighbour discovery and MLD are not tracked (ctstate 0), nor are
 * non-first fragments, which carry no L4 header.
 *
 * On MOD_CT_VF_CREATED, store @p c (packed) in the entry of the packet's key
 * (the original direction) and of its reply key, with the verdict's timeout
 * and interest masks. Without it nothing is tracked: for ctstate 0 the
 * answer holds for every packet of the tuple (interest 0); for INVALID the
 * interest is FC_INTEREST_ALL in both directions, since a later packet of
 * the tuple may start a connection.
 *
 * @param cfg  configuration
 * @param pkt  the parsed packet (key, tcp_flags, icmp_type, frag)
 * @param c    receives the new connection (NONE if none was created)
 * @param v    receives the verdict; ctstate is RULE_CT_NEW, RULE_CT_INVALID
 *   or 0
 * @return 0, or -EINVAL (NULL argument, unknown address family).
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, struct mod_ct_conn *c,
	struct mod_ct_verdict *v);

/**
 * A later packet of connection @p c, from direction @p dir. Applies the
 * transition (TCP: see doc/conntrack.md; others: the first reply marks the
 * connection replied) and says the packet's ctstate: INVALID when it does
 * not fit the state (nothing changes then), else ESTABLISHED for reply
 * packets and for original ones once a reply was seen, NEW before.
 *
 * With MOD_CT_VF_CHANGED store the new @p c in both entries with the new
 * timeout and interest masks; with MOD_CT_VF_CTSTATE also re-run the filter
 * for both; with MOD_CT_VF_REOPEN see there.
 *
 * @param cfg  configuration
 * @param c    the connection, updated in place
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY: which entry the packet hit
 * @param pkt  the parsed packet
 * @param v    receives the verdict
 * @return 0, or -EINVAL (NULL argument, bad @p dir, @p c not a connection
 *   or not one of the packet's protocol); @p c is unchanged then.
 * Context: any; in gufc the rules lcore.
 */
int mod_ct_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, struct mod_ct_verdict *v);

/**
 * Idle timeout of a connection in its current state (what the verdicts
 * give; for re-applying a changed configuration). TCP: the state's timeout,
 * at most tcp_unreplied until a reply was seen. UDP: udp, udp_replied once
 * replied. ICMP: icmp. Others: generic. NONE: the protocol's unreplied
 * timeout (what an untracked entry may use).
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
 * Interest masks of a connection's two entries in its current state: TCP
 * wants SYN, FIN and RST, plus every packet (FC_INTEREST_ALL) of a side
 * whose ACK alone changes the state (original in SYN_RECV, the side that
 * did not close first in FIN_WAIT, the side that did in LAST_ACK) and of
 * the reply side until it was seen. Other protocols want every reply packet
 * until the first, then nothing. NONE: nothing.
 *
 * @param family    as mod_ct_timeout()
 * @param proto     as mod_ct_timeout()
 * @param c         the connection
 * @param interest  receives [MOD_CT_DIR_ORIG] and [MOD_CT_DIR_REPLY]
 * Context: any.
 */
void mod_ct_interest(uint8_t family, uint8_t proto, const struct mod_ct_conn *c,
	uint16_t interest[2]);

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
 * Format a connection for the shell: the state name, then the flags, e.g.
 * "ESTABLISHED replied", "FIN_WAIT replied closer=reply", "OPEN unreplied".
 * @param c    the connection
 * @param buf  destination
 * @param len  size of @p buf (48 always suffices)
 * @return characters written (excluding NUL), -ENOSPC if truncated,
 *   -EINVAL for an invalid @p c or NULL.
 * Context: any.
 */
int mod_ct_conn_format(const struct mod_ct_conn *c, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* The module                                                                */
/* ------------------------------------------------------------------------ */

/*
 * The conntrack module (ct_module.c): the state machine as a struct
 * rule_module of the rules engine, named "conntrack", order
 * RULE_MOD_ORDER_CT, with RULE_MOD_F_OWN_INTEREST (it rewrites its part of
 * the interest masks when a connection changes).
 *
 * - on_insert: mod_ct_new() for a new flow. A connection gets the packed
 *   state, timeout and interest in both entries, a reply entry and
 *   struct rule_flow::reply_ctstate; without one the flow is marked
 *   untracked (and nocache when INVALID: a later packet of the tuple may
 *   still open a connection). Flows the engine decides without an entry
 *   (non-first fragments) stay untracked. An ICMP error is RELATED when
 *   the packet it quotes is a cached connection's (its key is looked up
 *   both ways, with every combination of local bits): rule_flow::related,
 *   rel_way and rel_act tell which entry, for NAT; INVALID otherwise;
 *   errors are never cached.
 * - on_packet: mod_ct_packet() for a packet an interest bit selected:
 *   store a changed connection (struct rule_flow::store), refilter both
 *   entries when the ctstate changed, remove the flow and decide the
 *   packet as a new one on a reopen.
 * - entry_ctstate, ct_format: what an entry's ct_state means.
 *
 * Ownership: the module belongs to whoever created it (the app); it keeps
 * a pointer to its engine and must outlive it: free it after
 * rule_engine_free(). Its counters are written by the rules lcore and read
 * relaxed by anyone.
 */

struct rule_engine;

/** The conntrack module. */
struct mod_ct_module;

/** Conntrack module parameters. */
struct mod_ct_module_params {
	/** Configuration; all timeouts 0 = mod_ct_cfg_init()'s, tcp_strict kept. */
	struct mod_ct_cfg cfg;
};

/** Counters of the conntrack module. */
struct mod_ct_module_stats {
	uint64_t related; /**< ICMP errors found RELATED */
	uint64_t notrack; /**< new flows the raw table made untracked (CT --notrack, NOTRACK) */
};

/**
 * Create the module and register it with @p eng.
 * @param eng  the engine
 * @param p    parameters
 * @return the module, or NULL with rte_errno EINVAL (NULL argument, a
 *   timeout of 0 among others), ENOMEM, or the registration's error
 *   (ENOSPC, EEXIST).
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

#ifdef __cplusplus
}
#endif

#endif /* GUFC_CONNTRACK_H */
