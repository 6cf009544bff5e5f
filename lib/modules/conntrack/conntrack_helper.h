/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack — connection tracking helpers (Linux's
 * nf_conntrack_helper): a connection assigned a helper in the raw table
 * (-j CT --helper ftp|tftp; native `ct ct_helper ftp`) has its payload
 * read by the helper, which expects the related connections the protocol
 * announces (FTP's data connections, TFTP's transfers). Part of conntrack.h's manual, which includes
 * this header at its end: include conntrack.h.
 *
 * Pure parts (ct_ftp.c, ct_tftp.c, ct_expect.c; no EAL, no state of their
 * own): the FTP command parser, the TFTP request parser, the FTP helper's per-connection line tracking, the
 * expectation table, the sequence-number adjustment a rewrite that changes
 * a segment's length leaves on the control connection (Linux's seqadj).
 * The module's part (ct_helper.c) is described under "Helpers in the
 * module" at the end.
 */
#ifndef GUFC_CONNTRACK_HELPER_H
#define GUFC_CONNTRACK_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "conntrack.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Helpers gufc has. */
enum mod_ct_helper {
	MOD_CT_HELPER_NONE, /**< no helper */
	MOD_CT_HELPER_FTP,  /**< "ftp": PORT, EPRT, 227, 229 (Linux's nf_conntrack_ftp) */
	MOD_CT_HELPER_TFTP, /**< "tftp": RRQ, WRQ (Linux's nf_conntrack_tftp) */
	MOD_CT_HELPER_SIP,  /**< "sip" over UDP and TCP: media, REGISTER (Linux's nf_conntrack_sip) */
	MOD_CT_HELPER_IRC,  /**< "irc": DCC offers, IPv4 (Linux's nf_conntrack_irc) */
	MOD_CT_HELPER_SANE, /**< "sane": SANE_NET_START's data port (Linux's nf_conntrack_sane) */
	MOD_CT_HELPER__COUNT
};

/**
 * Find a helper by the name -j CT --helper gives.
 * @param name  NUL-terminated name
 * @return MOD_CT_HELPER_FTP for "ftp", MOD_CT_HELPER_TFTP for "tftp",
 *   MOD_CT_HELPER_SIP for "sip", MOD_CT_HELPER_IRC for "irc",
 *   MOD_CT_HELPER_SANE for "sane"; -ENOTSUP for a helper Linux has and gufc
 *   has not (h323, irc, pptp, amanda, netbios-ns, snmp,
 *   sane, ...: mod_ct_helper_known()); -ENOENT for a name no helper has;
 *   -EINVAL for NULL or "".
 * Context: any.
 */
int mod_ct_helper_find(const char *name);

/**
 * Is @p name a helper of Linux's (built in gufc or not)?
 * @param name  NUL-terminated name
 * @return true for ftp, tftp, sip, h323 (RAS and Q.931), irc, pptp, amanda,
 *   netbios-ns, snmp, sane, ... Context: any.
 */
bool mod_ct_helper_known(const char *name);

/**
 * Name of a helper ("ftp"), as -m helper matches it.
 * @param h  enum mod_ct_helper
 * @return a static string; "" for NONE or out of range. Context: any.
 */
const char *mod_ct_helper_name(unsigned int h);

/**
 * The transport protocol a helper serves (Linux finds a helper by name and
 * protocol: -j CT --helper tftp needs -p udp).
 * @param h  enum mod_ct_helper
 * @return 6 (TCP: ftp, irc, sane), 17 (UDP: tftp; sip, which serves TCP too:
 *   mod_ct_helper_serves()); 0 for NONE or out of range.
 * Context: any.
 */
uint8_t mod_ct_helper_proto(unsigned int h);

/**
 * Does helper @p h serve transport protocol @p proto (Linux finds a helper
 * by name and protocol: "sip" serves UDP and TCP, the others one)?
 * @param h      enum mod_ct_helper
 * @param proto  IP protocol number
 * @return true if so. Context: any.
 */
bool mod_ct_helper_serves(unsigned int h, uint8_t proto);

/* ------------------------------------------------------------------------ */
/* FTP                                                                       */
/* ------------------------------------------------------------------------ */

/** FTP commands and replies that announce a data connection. */
enum mod_ct_ftp_kind {
	MOD_CT_FTP_NONE,
	MOD_CT_FTP_PORT, /**< client: PORT h1,h2,h3,h4,p1,p2 (RFC 959) */
	MOD_CT_FTP_EPRT, /**< client: EPRT |1|a.b.c.d|port| or |2|v6|port| (RFC 2428) */
	MOD_CT_FTP_PASV, /**< server: 227 ... h1,h2,h3,h4,p1,p2 (RFC 959, RFC 1123) */
	MOD_CT_FTP_EPSV, /**< server: 229 ... (|||port|) (RFC 2428) */
};

/** A parsed command: the address and port it announces and where its text is. */
struct mod_ct_ftp_cmd {
	uint8_t kind;     /**< enum mod_ct_ftp_kind */
	uint8_t family;   /**< FC_AF_INET4 or FC_AF_INET6 of @c addr */
	uint8_t addr[16]; /**< network order (EPSV: the sender's address, it names none) */
	uint16_t port;    /**< host order, not 0 */
	uint16_t off;     /**< offset in the payload of the text a NAT rewrites ... */
	uint16_t len;     /**< ... and its length (the numbers, or EPRT's/EPSV's |...|) */
};

/** Longest FTP line the helper reads (command or reply, CRLF included). */
#define MOD_CT_FTP_LINE_MAX 512

/**
 * Parse the start of a line of the FTP control connection, as Linux's
 * nf_conntrack_ftp does: in the client's direction (MOD_CT_DIR_ORIG) PORT
 * and EPRT (case-insensitive, the numbers after the first space, ended by
 * CR), in the server's 227 (the six numbers from the first digit) and 229
 * (the |||port| after the first '('). Stricter than Linux where Linux would
 * take garbage: every number of an address at most 255, a port 1..65535,
 * each number at most 5 digits, an EPRT family that is the connection's.
 *
 * @param data    the payload, from the line's start
 * @param len     bytes at @p data
 * @param dir     MOD_CT_DIR_ORIG (client) or MOD_CT_DIR_REPLY (server)
 * @param family  the connection's family (EPRT's must be it)
 * @param sender  the sender's address (EPSV names none: it is this one)
 * @param cmd     receives the command on 1
 * @return 1: a command; 0: none (another line); -EAGAIN: the payload
 *   ends before the command does (a command split across segments);
 *   -EBADMSG: a command whose numbers do not parse; -EINVAL: NULL or a bad
 *   @p dir or @p family.
 * Context: any.
 */
int mod_ct_ftp_parse(const uint8_t *data, uint32_t len, unsigned int dir, uint8_t family,
	const uint8_t *sender, struct mod_ct_ftp_cmd *cmd);

/**
 * Write the text a NAT puts in place of @p cmd's (from off, len bytes):
 * @p addr and @p port in the command's own syntax ("h1,h2,h3,h4,p1,p2",
 * "|1|a.b.c.d|port|", "|2|v6|port|", "|||port|").
 * @param kind    enum mod_ct_ftp_kind
 * @param family  FC_AF_INET4 or FC_AF_INET6 (PORT and 227: IPv4 only)
 * @param addr    the address, network order
 * @param port    host order
 * @param buf     destination
 * @param size    its size (64 always suffices)
 * @return characters written (no NUL), -EINVAL (bad kind or family),
 *   -ENOSPC. Context: any.
 */
int mod_ct_ftp_format(unsigned int kind, uint8_t family, const uint8_t *addr, uint16_t port,
	char *buf, unsigned int size);

/** How many line starts the helper remembers per direction (as Linux). */
#define MOD_CT_FTP_NL_SEQS 2

/**
 * The FTP helper's memory of one control connection: per direction the
 * sequence numbers right after the last newlines it saw (where a command
 * may start), in the sender's own sequence space (before any adjustment).
 * Zero-initialized before the first segment. Owned by the module with the
 * connection's record.
 */
struct mod_ct_ftp {
	uint32_t nl_seq[2][MOD_CT_FTP_NL_SEQS]; /**< [dir][i] */
	uint8_t n_nl[2];                         /**< valid entries per direction */
};

/** What mod_ct_ftp_segment() says about a segment. */
enum mod_ct_ftp_result {
	MOD_CT_FTP_R_PASS,    /**< no command at a line start: nothing to do */
	MOD_CT_FTP_R_CMD,     /**< a command announcing the sender's own address: expect */
	MOD_CT_FTP_R_FOREIGN, /**< a command naming another address: not expected (Linux without loose) */
	MOD_CT_FTP_R_PARTIAL, /**< a command cut by the segment's end: drop (Linux drops it) */
	MOD_CT_FTP_R_BAD,     /**< a malformed command: drop (Linux drops it) */
};

/**
 * One segment of an FTP control connection, in order of arrival: parsed
 * only when it starts where a line starts (its sequence number is one
 * remembered after a newline), as Linux's helper reads: a segment that
 * arrives out of order, or in the middle of a line, is not parsed (its end
 * is remembered if it ends a line and is newer than the oldest remembered
 * one). The first segment of each direction is never parsed (the banner
 * and the first command come first). A dropped segment (PARTIAL, BAD)
 * changes nothing, so its retransmission is parsed again.
 * @param s       the connection's memory, updated
 * @param dir     MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @param seq     the segment's sequence number (host order)
 * @param data    its payload
 * @param len     payload bytes (0: nothing happens, PASS)
 * @param family  the connection's family
 * @param sender  the sender's address as the packet carries it
 * @param cmd     receives the command (CMD, FOREIGN)
 * @return an enum mod_ct_ftp_result. Context: any.
 */
enum mod_ct_ftp_result mod_ct_ftp_segment(struct mod_ct_ftp *s, unsigned int dir, uint32_t seq,
	const uint8_t *data, uint32_t len, uint8_t family, const uint8_t *sender,
	struct mod_ct_ftp_cmd *cmd);

/* ------------------------------------------------------------------------ */
/* TFTP                                                                      */
/* ------------------------------------------------------------------------ */

/** TFTP opcodes that open a transfer (RFC 1350). */
#define MOD_CT_TFTP_RRQ 1 /**< read request */
#define MOD_CT_TFTP_WRQ 2 /**< write request */

/**
 * Is a UDP payload of a TFTP connection a request that opens a transfer?
 * As Linux's nf_conntrack_tftp reads it: the first two bytes, the opcode,
 * and nothing else (neither file name nor mode is checked).
 * @param data  the UDP payload
 * @param len   its length
 * @return MOD_CT_TFTP_RRQ or MOD_CT_TFTP_WRQ; 0 for any other opcode or a
 *   payload shorter than an opcode; -EINVAL for NULL with @p len > 0.
 * Context: any.
 */
int mod_ct_tftp_parse(const uint8_t *data, uint32_t len);

/* SIP: conntrack_sip.h. */
#include "conntrack_sip.h"

/* ------------------------------------------------------------------------ */
/* IRC                                                                       */
/* ------------------------------------------------------------------------ */

/** A DCC offer: the address and port the client announces, and where their text is. */
struct mod_ct_irc_dcc {
	uint32_t addr; /**< IPv4 address, host order (as DCC writes it: one decimal number) */
	uint16_t port; /**< host order, not 0 */
	uint16_t off;  /**< offset in the payload of "ADDR PORT" ... */
	uint16_t len;  /**< ... and its length (what a NAT rewrites) */
};

/**
 * Find a DCC offer in a segment a client sends its IRC server, as Linux's
 * nf_conntrack_irc does (with its 2022 tightening): after leading blanks
 * the segment is a "PRIVMSG " (case-insensitive), the text after its
 * first " :" starts with "\1DCC " and a type (SEND, CHAT, MOVE, TSEND,
 * SCHAT), then an argument, a space, the address as one decimal number,
 * blanks, the port; a newline must follow somewhere in the segment. One
 * offer per segment (the first). Stricter than Linux where it would wrap:
 * an address above 2^32 - 1 or a port above 65535 is no offer.
 * @param data  the payload (one segment, from its start)
 * @param len   its length
 * @param d     receives the offer on 1
 * @return 1: an offer; 0: none; -EINVAL: NULL. Context: any.
 */
int mod_ct_irc_parse(const uint8_t *data, uint32_t len, struct mod_ct_irc_dcc *d);

/**
 * The text a NAT writes in place of an offer's: "ADDR PORT" in decimal.
 * @param addr  IPv4 address, host order
 * @param port  host order
 * @param buf   destination
 * @param size  its size (24 always suffices)
 * @return characters written (no NUL), -EINVAL, -ENOSPC. Context: any.
 */
int mod_ct_irc_format(uint32_t addr, uint16_t port, char *buf, unsigned int size);

/* ------------------------------------------------------------------------ */
/* SANE                                                                      */
/* ------------------------------------------------------------------------ */

/** What the SANE helper remembers of a connection (zero: NORMAL). */
#define MOD_CT_SANE_NORMAL 0
#define MOD_CT_SANE_START 1 /**< the client asked SANE_NET_START */

/**
 * One payload segment of a SANE connection, as Linux's nf_conntrack_sane
 * reads it: from the client (MOD_CT_DIR_ORIG) a segment of exactly 8 bytes
 * is a request: SANE_NET_START (code 7) sets @p state to START, another
 * code to NORMAL (other lengths leave it); from the server, in state
 * START, the reply: back to NORMAL, and a status of 0 with 16 zero bits
 * then announces the data port.
 * @param state  the connection's memory, updated
 * @param dir    MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @param data   the payload
 * @param len    its length
 * @return the announced port (host order), 0 if none. Context: any.
 */
uint16_t mod_ct_sane_segment(uint8_t *state, unsigned int dir, const uint8_t *data, uint32_t len);

/* ------------------------------------------------------------------------ */
/* Sequence adjustment (a rewrite changed a segment's length)                */
/* ------------------------------------------------------------------------ */

/**
 * Per direction, the offset a length-changing rewrite left on the sender's
 * sequence numbers: segments that start after @c pos are shifted by
 * @c after, the others (the rewritten one, retransmissions of earlier
 * data) by @c before. As Linux's seqadj, one correction position per
 * direction: a second rewrite in a direction moves it.
 */
struct mod_ct_seqadj {
	uint32_t pos[2];   /**< sequence number of the last rewritten segment */
	int32_t before[2]; /**< offset of segments up to it */
	int32_t after[2];  /**< offset of segments after it */
};

/**
 * Record a rewrite of @p delta bytes in the segment of direction @p dir
 * starting at @p seq (the sender's space). A repeated rewrite of the same
 * segment (a retransmission) or of an older one changes nothing.
 * @param a      the connection's adjustment
 * @param dir    MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @param seq    the rewritten segment's sequence number (host order)
 * @param delta  new length minus old length (0: nothing)
 * Context: any.
 */
void mod_ct_seqadj_set(struct mod_ct_seqadj *a, unsigned int dir, uint32_t seq, int32_t delta);

/**
 * The sequence number a segment of @p dir starting at @p seq leaves with.
 * @param a    the adjustment (NULL: @p seq)
 * @param dir  MOD_CT_DIR_ORIG or MOD_CT_DIR_REPLY
 * @param seq  the segment's sequence number, the sender's space (host order)
 * @return the shifted number. Context: any.
 */
uint32_t mod_ct_seqadj_seq(const struct mod_ct_seqadj *a, unsigned int dir, uint32_t seq);

/**
 * The acknowledgment number a segment of @p dir carrying @p ack (in the
 * receiver's adjusted space, what the other side saw) leaves with: the
 * other direction's offset taken back.
 * @param a    the adjustment (NULL: @p ack)
 * @param dir  the direction of the segment carrying the ACK
 * @param ack  its acknowledgment number (host order)
 * @return the number in the other side's own space. Context: any.
 */
uint32_t mod_ct_seqadj_ack(const struct mod_ct_seqadj *a, unsigned int dir, uint32_t ack);

/**
 * Rewrite one TCP segment in place, as a helper behind NAT does: payload
 * bytes [@p off, @p off + @p len_old) become @p text (@p len_new bytes,
 * the rest of the payload moves), the sequence and acknowledgment numbers
 * become @p seq and @p ack, the IPv4 total length (and header checksum)
 * or IPv6 payload length follow, and the TCP checksum is updated
 * incrementally (RFC 1624: the pseudo-header's length, the two numbers,
 * and the bytes from the edit to the end). With @p len_old = @p len_new =
 * 0 only the numbers change.
 * @param l3       the IP header, writable
 * @param room     bytes writable from @p l3 (at least the new datagram)
 * @param pkt      the segment's fc_parse() result (offsets, ip_len, tcp_dlen)
 * @param seq      new sequence number (host order)
 * @param ack      new acknowledgment number (host order)
 * @param off      edit offset in the payload
 * @param len_old  bytes replaced
 * @param text     the new bytes (may be NULL when @p len_new is 0)
 * @param len_new  their count
 * @return the new IP datagram length; -EINVAL (not TCP, edit outside the
 *   payload, a non-first fragment), -ENOSPC (@p room, or over 65535).
 * Context: any.
 */
int mod_ct_tcp_rewrite(uint8_t *l3, uint32_t room, const struct fc_pkt *pkt, uint32_t seq,
	uint32_t ack, uint32_t off, uint32_t len_old, const char *text, uint32_t len_new);

/**
 * Rewrite one UDP datagram in place, as a helper behind NAT does: payload
 * bytes [@p off, @p off + @p len_old) become @p text (@p len_new bytes);
 * the UDP length, the IPv4 total length (and header checksum) or the IPv6
 * payload length follow, and the UDP checksum is computed again (an IPv4
 * datagram without one stays without).
 * @param l3       the IP header, writable
 * @param room     bytes writable from @p l3
 * @param pkt      the datagram's fc_parse() result
 * @param off      edit offset in the UDP payload
 * @param len_old  bytes replaced
 * @param text     the new bytes
 * @param len_new  their count
 * @return the new IP datagram length; -EINVAL (not UDP, a fragment, edit
 *   outside the payload), -ENOSPC. Context: any.
 */
int mod_ct_udp_rewrite(uint8_t *l3, uint32_t room, const struct fc_pkt *pkt, uint32_t off,
	uint32_t len_old, const uint8_t *text, uint32_t len_new);

/**
 * Move the SACK blocks of a segment's TCP options back into the other
 * side's own sequence space, as its acknowledgment number is moved
 * (mod_ct_seqadj_ack(); Linux's seqadj does the same), and update the TCP
 * checksum incrementally. Other options and a malformed option list are
 * left alone.
 * @param l3   the IP header, writable (options unmoved since the parse)
 * @param pkt  the segment's fc_parse() result
 * @param a    the connection's adjustment
 * @param dir  the direction of the segment
 * @return the number of edges changed; -EINVAL (not TCP, bad arguments).
 * Context: any.
 */
int mod_ct_tcp_sack_adjust(uint8_t *l3, const struct fc_pkt *pkt, const struct mod_ct_seqadj *a,
	unsigned int dir);

/** Does @p a shift anything? @param a the adjustment @return true if so. Context: any. */
static inline bool
mod_ct_seqadj_active(const struct mod_ct_seqadj *a)
{
	return (a->before[0] | a->after[0] | a->before[1] | a->after[1]) != 0;
}

/* ------------------------------------------------------------------------ */
/* Expectations                                                              */
/* ------------------------------------------------------------------------ */

/**
 * An expected connection: its first packet's tuple with the source port
 * wildcarded (as Linux's FTP and TFTP helpers expect), what its
 * destination (and source) is translated to when the master is behind
 * NAT, its master and when it expires.
 */
struct mod_ct_exp {
	struct fc_key tuple;  /**< family, proto, src, dst, dport; sport, local bits, in_port 0 */
	uint8_t nat_addr[16]; /**< with @c nat: the destination it is translated to ... */
	uint16_t nat_port;    /**< ... and port (host order) */
	bool nat;             /**< the data connection gets a DNAT binding (the master's NAT) */
	bool snat;            /**< with @c nat: and its source becomes @c snat_addr (the
				   master's destination was translated: Linux's follow_master) */
	uint8_t snat_addr[16]; /**< network order */
	uint8_t helper;       /**< the master's helper (enum mod_ct_helper) */
	uint8_t flags;        /**< MOD_CT_EXP_F_* */
	uint32_t master;      /**< the master's connection id (its TCP record) */
	uint32_t expires;     /**< time (ms, the caller's clock) it is gone at */
};

/** An expectation that stays when taken (Linux's NF_CT_EXPECT_PERMANENT). */
#define MOD_CT_EXP_F_PERMANENT 0x01
/** One that matches nothing until refreshed (NF_CT_EXPECT_INACTIVE). */
#define MOD_CT_EXP_F_INACTIVE 0x02
/** The connection taking it gets the master's helper (SIP's signalling). */
#define MOD_CT_EXP_F_HELPER 0x04

/** A table of expectations. */
struct mod_ct_expect;

/** Counters of a table. */
struct mod_ct_expect_stats {
	uint64_t created;  /**< expectations added */
	uint64_t matched;  /**< taken by a new connection (RELATED) */
	uint64_t expired;  /**< timed out unused */
	uint64_t evicted;  /**< replaced by a newer one of a master at its limit */
	uint64_t removed;  /**< gone with their master */
	uint64_t full;     /**< refused: the table was full */
	uint32_t active;   /**< held now */
	uint32_t capacity;
};

/**
 * Create a table.
 * @param max         most expectations held (1 .. 1 << 20)
 * @param per_master  most of one master (1 .. 255; the oldest goes first)
 * @return the table, or NULL with errno EINVAL or ENOMEM.
 * Context: any (plain heap).
 */
struct mod_ct_expect *mod_ct_expect_create(uint32_t max, unsigned int per_master);

/** Free a table. @param t the table; NULL is accepted. Context: any. */
void mod_ct_expect_free(struct mod_ct_expect *t);

/**
 * Add an expectation (the tuple is normalized: sport, local bits and
 * in_port cleared). One with the same tuple is replaced (a retransmitted
 * command); a master at its limit loses its oldest (evicted); expired ones
 * are reaped first.
 * @param t    the table
 * @param e    the expectation
 * @param now  current time (ms)
 * @return 0; -EINVAL (NULL, not TCP/UDP, no port); -EEXIST (another
 *   master expects the tuple); -ENOSPC (the table is full: counted).
 * Context: one thread at a time (the rules lcore).
 */
int mod_ct_expect_add(struct mod_ct_expect *t, const struct mod_ct_exp *e, uint32_t now);

/**
 * Take the expectation a new flow's first packet matches (family, proto,
 * addresses, destination port; any source port, local bits and input
 * port): it is consumed, once (a MOD_CT_EXP_F_PERMANENT one stays; a
 * MOD_CT_EXP_F_INACTIVE one matches nothing).
 * @param t    the table
 * @param k    the packet's key
 * @param now  current time: an expired expectation matches nothing
 * @param out  receives the expectation
 * @return 0, -ENOENT (none), -EINVAL.
 * Context: one thread at a time (the rules lcore).
 */
int mod_ct_expect_take(struct mod_ct_expect *t, const struct fc_key *k, uint32_t now,
	struct mod_ct_exp *out);

/**
 * Is there an expectation a new flow's first packet would take (as
 * mod_ct_expect_take() matches), without taking it?
 * @param t    the table (NULL: none)
 * @param k    the packet's key
 * @param now  current time
 * @return true if so. Context: one thread at a time (the rules lcore).
 */
bool mod_ct_expect_has(const struct mod_ct_expect *t, const struct fc_key *k, uint32_t now);

/**
 * Remove expectations that expired, visiting at most @p budget slots.
 * @param t       the table (NULL: nothing)
 * @param now     current time (ms)
 * @param budget  most slots visited
 * @return slots visited. Context: the rules lcore.
 */
unsigned int mod_ct_expect_expire(struct mod_ct_expect *t, uint32_t now, unsigned int budget);

/**
 * Remove every expectation of master @p master (its connection went).
 * @param t       the table (NULL: nothing)
 * @param master  the master's connection id
 * @return how many. Context: the rules lcore.
 */
unsigned int mod_ct_expect_remove_master(struct mod_ct_expect *t, uint32_t master);

/**
 * Make master @p master's expectation of exactly @p tuple active (clear
 * MOD_CT_EXP_F_INACTIVE) until @p expires.
 * @param t        the table
 * @param tuple    its tuple
 * @param master   the master's connection id
 * @param expires  the new expiry time (ms)
 * @return 0, -ENOENT (none of that master), -EINVAL.
 * Context: the rules lcore.
 */
int mod_ct_expect_refresh(struct mod_ct_expect *t, const struct fc_key *tuple, uint32_t master,
	uint32_t expires);

/**
 * Remove master @p master's expectation of exactly @p tuple (normalized as
 * mod_ct_expect_add() files it).
 * @param t       the table
 * @param tuple   its tuple
 * @param master  the master's connection id
 * @return 0, -ENOENT (none of that master), -EINVAL.
 * Context: the rules lcore.
 */
int mod_ct_expect_remove(struct mod_ct_expect *t, const struct fc_key *tuple, uint32_t master);

/**
 * Expectation @p i (0 .. capacity - 1) for listings.
 * @param t    the table
 * @param i    slot
 * @param out  receives it
 * @return 0, -ENOENT (slot empty), -EINVAL (NULL, @p i out of range).
 * Context: the rules lcore.
 */
int mod_ct_expect_at(const struct mod_ct_expect *t, uint32_t i, struct mod_ct_exp *out);

/** Read the counters. @param t the table (NULL: zeros) @param st receives them. Context: any. */
void mod_ct_expect_stats_get(const struct mod_ct_expect *t, struct mod_ct_expect_stats *st);

/* ------------------------------------------------------------------------ */
/* Helpers in the module                                                     */
/* ------------------------------------------------------------------------ */

/*
 * In the conntrack module (ct_helper.c):
 *
 * - A new TCP connection whose raw-table walk ran -j CT --helper ftp gets
 *   the helper (Linux's template; nf_conntrack_helper=0: never by port);
 *   a UDP one, -j CT --helper tftp (a helper of another protocol is not
 *   given). A UDP connection with a helper, or one a helper expected, is
 *   kept in a record as TCP connections are (its id in both entries).
 *   Its entries keep FC_INTEREST_TCP_DATA: segments with payload go to the
 *   slow path, where mod_ct_ftp_segment() reads them after the TCP state
 *   machine accepted them and only when the cached verdict accepts (Linux's
 *   helper runs after the filter); the other segments stay on the fast
 *   path.
 * - A command announcing the sender's own address makes an expectation:
 *   the other side's address -> the announced address and port, any source
 *   port, for 300 s, one per master (Linux's FTP policy; a newer one
 *   replaces it). A new flow that takes it is RELATED (its original
 *   direction until the first reply, then ESTABLISHED), --ctstatus
 *   EXPECTED, and -m helper --helper ftp matches it (Linux's helper match
 *   names the master's helper).
 * - Behind NAT (the control connection's entries carry a rewrite), the
 *   address and port are rewritten to what the peer sees (nf_nat_ftp): the
 *   address the peer knows the sender by, the announced port if no other
 *   expectation holds it, else the next free one; the expectation is for
 *   that tuple, and the data connection gets a DNAT binding to the
 *   announced one. A rewrite that changes the segment's length shifts the
 *   sender's later sequence numbers and the peer's acknowledgments
 *   (struct mod_ct_seqadj): from then on every packet of the control
 *   connection takes the slow path (FC_INTEREST_ALL), where
 *   mod_ct_module_mangle() applies the shift (incremental checksums).
 * - TFTP (nf_conntrack_tftp, nf_nat_tftp): every packet of a helped
 *   connection goes to the slow path (FC_INTEREST_ALL: in practice the
 *   client's request and its retransmissions; the server answers from
 *   another port, another connection). After NAT decided the flow (Linux's
 *   helper runs after NAT), a read or write request the filter accepted
 *   expects the server's answer: from the address the connection's reply
 *   comes from, any source port, to the address and port replies go to
 *   (the translated client behind SNAT/masquerade), UDP, for 300 s, one
 *   per master. The answer that takes it is RELATED, --ctstatus EXPECTED,
 *   -m helper tftp; behind NAT it is translated to the client's own
 *   address and port (and, when the master's destination was translated,
 *   from the address the client asked: follow_master). Nothing in a TFTP
 *   packet is rewritten. No room for an expectation drops the request.
 * - SIP (nf_conntrack_sip, nf_nat_sip; ct_help_sip.c): every packet of a
 *   UDP signalling connection, every payload segment of a TCP one (its
 *   whole messages), is read after NAT: media streams at the sender's own
 *   address and a REGISTER's Contact are expected (the REGISTER's
 *   permanent, inactive until the registrar's 2xx); behind NAT the
 *   message is rewritten (mod_ct_sip_nat_headers(), mod_ct_sip_nat_sdp())
 *   and the expectations carry the binding back to the announcing host.
 */

/** Helper counters of the module (mod_ct_module_helper_stats_get()). */
struct mod_ct_helper_stats {
	uint64_t conns;      /**< connections assigned a helper */
	uint64_t segments;   /**< segments the helper read */
	uint64_t commands;   /**< commands (FTP) and requests (TFTP) that made an expectation */
	uint64_t foreign;    /**< commands naming another address: not expected */
	uint64_t dropped;    /**< segments dropped: partial or malformed commands,
				  no room for an expectation */
	uint64_t nat_rewrites; /**< commands rewritten for NAT */
	uint64_t nat_failed; /**< rewrites that could not be made (packet dropped) */
	uint64_t related;    /**< new connections that took an expectation */
	struct mod_ct_expect_stats exp; /**< the expectation table */
};

struct mod_ct_module;
struct rte_mbuf;

/**
 * Apply the rewrite the module planned for an upcalled packet of a helped
 * connection behind NAT (the announced address and port, the sequence
 * shift; see above), after the NAT rewrite of its headers. Packets it
 * planned nothing for are left alone. A chained mbuf is linearized; the
 * packet may grow (rte_pktmbuf_append()) or shrink.
 * @param ct   the module
 * @param m    the packet
 * @param pkt  its parse, the very struct fc_pkt of the upcall the engine
 *   decided (struct rule_upcall::pkt): it names the plan
 * @return 0; -EINVAL (NULL); -ENOSPC (no room, linearize failed: drop it as
 *   a NAT error, counted in nat_failed).
 * Context: rules lcore (the slow path's application of decisions).
 */
int mod_ct_module_mangle(struct mod_ct_module *ct, struct rte_mbuf *m, const struct fc_pkt *pkt);

/**
 * Read the helpers' counters.
 * @param ct  the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_ct_module_helper_stats_get(const struct mod_ct_module *ct,
	struct mod_ct_helper_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_CONNTRACK_HELPER_H */
