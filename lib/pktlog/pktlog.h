/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pktlog — the text and files of LOG and NFLOG (prefix plog_): the
 * log line Linux's LOG target writes for a packet (the format of
 * nf_log_syslog: "PREFIXIN=.. OUT=.. MAC=.. SRC=.. DST=.. LEN=.. TOS=..
 * PREC=.. TTL=.. ID=.. DF PROTO=TCP SPT=.. DPT=.. WINDOW=.. RES=.. SYN
 * URGP=0 "), and the pcap and pcapng files of log channels (pcapng: the
 * rule's prefix as each packet's comment).
 *
 * Where it sits: pure C on flat buffers (no EAL), below the application,
 * which drains the datapath's log ring (lib/datapath's struct dp_logrec)
 * and writes the lines through rte_log and the packets to files. Built in
 * every tree, also for the sanitizers and fuzzers.
 */
#ifndef GUFC_PKTLOG_H
#define GUFC_PKTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Line options (the values of lib/engine's RULE_LOGF_*). */
#define PLOG_F_TCPSEQ 0x01    /**< SEQ= and ACK= of TCP */
#define PLOG_F_TCPOPT 0x02    /**< OPT (..) of TCP options, in hex */
#define PLOG_F_IPOPT 0x04     /**< OPT (..) of IPv4 options / IPv6 extension headers */
#define PLOG_F_UID 0x08       /**< UID= of the packet's socket: none in gufc, never printed */
#define PLOG_F_MACDECODE 0x10 /**< MACSRC= MACDST= MACPROTO= instead of MAC= */

/** One packet to log. */
struct plog_pkt {
	const uint8_t *frame; /**< the frame from its Ethernet header */
	uint32_t len;         /**< bytes at @c frame */
	uint32_t l3_off;      /**< offset of the IP header */
	const char *in;       /**< input interface name, or NULL: "IN=" empty, no MAC */
	const char *out;      /**< output interface name, or NULL: "OUT=" empty */
	uint32_t mark;        /**< packet mark (MARK= when not 0) */
};

/** Longest line plog_line() writes (Linux's bound plus the prefix). */
#define PLOG_LINE_MAX 1024

/**
 * Write the log line of a packet as Linux's LOG target does (without the
 * syslog level and time stamp: the caller's logger adds those). Fields
 * beyond the bytes at hand read "TRUNCATED" or "INCOMPLETE [N bytes]" as
 * Linux writes them.
 * @param buf     receives the line (NUL-terminated, no newline)
 * @param size    its size (PLOG_LINE_MAX is always enough)
 * @param prefix  the rule's --log-prefix ("" none)
 * @param flags   PLOG_F_*
 * @param p       the packet
 * @return the length written (truncated at @p size - 1), or -EINVAL.
 * Context: any; pure code.
 */
int plog_line(char *buf, size_t size, const char *prefix, unsigned int flags,
	const struct plog_pkt *p);

/** File kinds of a log channel. */
enum plog_file_kind {
	PLOG_PCAP,   /**< libpcap format (no comments) */
	PLOG_PCAPNG, /**< pcapng: each packet's comment is its rule's prefix */
};

/**
 * Write the file header: pcap's global header, or pcapng's section header
 * and one interface description (Ethernet, snap length @p snaplen).
 * @param f        the file
 * @param kind     enum plog_file_kind
 * @param snaplen  snap length
 * @return 0, -EIO.
 * Context: any.
 */
int plog_file_start(FILE *f, enum plog_file_kind kind, uint32_t snaplen);

/**
 * Append one packet.
 * @param f        the file (after plog_file_start())
 * @param kind     as given to plog_file_start()
 * @param ts_ns    time stamp, ns since the epoch
 * @param data     the captured bytes
 * @param caplen   how many
 * @param wire_len the packet's length on the wire
 * @param comment  pcapng: the packet's comment (NULL or "": none)
 * @return 0, -EIO.
 * Context: any.
 */
int plog_file_packet(FILE *f, enum plog_file_kind kind, uint64_t ts_ns, const uint8_t *data,
	uint32_t caplen, uint32_t wire_len, const char *comment);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_PKTLOG_H */
