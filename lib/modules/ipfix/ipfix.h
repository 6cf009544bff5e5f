/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/ipfix — IPFIX flow export (RFC 7011 protocol, RFC 7012
 * information elements, RFC 5655 file format) as a rules-engine module
 * (prefix mod_ipfix_).
 *
 * Two parts:
 *
 *  - The encoder (mod_ipfix_enc_*, pure C, no EAL: also built for the
 *    sanitizer runs): IPFIX messages of the two templates below and their
 *    data records. It knows nothing of flows or engines: a struct
 *    mod_ipfix_rec in, bytes out.
 *
 *  - The module (mod_ipfix_module_*): registered with the engine through
 *    struct rule_module. It turns flow entries into records — when an entry
 *    goes (on_remove: aged, evicted, closed, flushed) and, for entries that
 *    live on, after an active timeout (and optionally an idle one) — and
 *    hands each finished message to a sender the caller provides (the app
 *    sends it over UDP through a port, or appends it to a file). Its
 *    periodic work (timeouts, message flushes, template refreshes) runs from
 *    the engine's step callback, bounded.
 *
 * Records are uniflow (one per flow entry, i.e. per direction: a
 * connection's original and reply entries give two records, marked by the
 * enterprise element gufcFlowDirection); counts are deltas since the
 * entry's previous record. A direction that saw no packet since its last
 * record gives none.
 *
 * Template 256 (IPv4) and 257 (IPv6), in this order:
 *   sourceIPv4Address(8) / sourceIPv6Address(27),
 *   destinationIPv4Address(12) / destinationIPv6Address(28),
 *   sourceTransportPort(7), destinationTransportPort(11), protocolIdentifier(4),
 *   postNATSourceIPv4Address(225) / postNATSourceIPv6Address(281),
 *   postNATDestinationIPv4Address(226) / postNATDestinationIPv6Address(282),
 *   postNAPTSourceTransportPort(227), postNAPTDestinationTransportPort(228),
 *   octetDeltaCount(1), packetDeltaCount(2),
 *   flowStartMilliseconds(152), flowEndMilliseconds(153) (absolute: ms since
 *   the Unix epoch), flowEndReason(136), forwardingStatus(89, RFC 7270, one
 *   byte), and three enterprise-specific elements of Private Enterprise
 *   Number @c pen: gufcRuleId(1, 4 bytes: the deciding rule's id, 0 none,
 *   0xffffffff the chain policy), gufcDropReason(2, 1 byte: the engine's
 *   enum rule_drop, 0 when not dropped, 1 "filter") and
 *   gufcFlowDirection(3, 1 byte: 0 original, 1 reply).
 * Ports carry the flow key's: the identifier of ICMP echo (and of ICMPv4
 * timestamp, information and address-mask queries), type << 8 | code for
 * other ICMP messages. Post-NAT fields equal the pre-NAT ones when the flow
 * is not translated.
 *
 * Threads: an encoder belongs to its caller. The module is the rules
 * lcore's (every callback and function below but mod_ipfix_stats_get(),
 * which any thread may call: counters may be slightly stale).
 */
#ifndef GUFC_IPFIX_H
#define GUFC_IPFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rule_engine;

/** The IANA port of IPFIX over UDP. */
#define MOD_IPFIX_PORT 4739
/** Template ids. */
#define MOD_IPFIX_TMPL_V4 256
#define MOD_IPFIX_TMPL_V6 257
/** RFC 5612's Private Enterprise Number for documentation: the default @c pen. */
#define MOD_IPFIX_PEN_DOC 32473
/** Enterprise-specific element ids (under the exporter's @c pen). */
#define MOD_IPFIX_IE_RULE_ID	 1
#define MOD_IPFIX_IE_DROP_REASON 2
#define MOD_IPFIX_IE_DIRECTION	 3
/** Message header, set header sizes. */
#define MOD_IPFIX_HDR_LEN     16
#define MOD_IPFIX_SET_HDR_LEN 4
/** Smallest and default message buffers (bytes). */
#define MOD_IPFIX_MSG_MIN     256
#define MOD_IPFIX_MSG_DEFAULT 1400

/** flowEndReason values (IANA IE 136). */
enum mod_ipfix_end {
	MOD_IPFIX_END_IDLE = 1,	     /**< idle timeout */
	MOD_IPFIX_END_ACTIVE = 2,    /**< active timeout: the flow lives on */
	MOD_IPFIX_END_EOF = 3,	     /**< end of flow detected (TCP FIN or RST seen) */
	MOD_IPFIX_END_FORCED = 4,    /**< forced end (flush, shutdown, rule change) */
	MOD_IPFIX_END_RESOURCES = 5, /**< lack of resources (evicted from a full cache) */
};

/** forwardingStatus values used (RFC 7270: status in the top two bits, reason below). */
#define MOD_IPFIX_FWD_FORWARDED 0x40 /**< forwarded (accepted into a channel), reason unknown */
#define MOD_IPFIX_FWD_DROP_ACL	0x81 /**< dropped: ACL deny (a filter rule or policy) */

/* ------------------------------------------------------------------------ */
/* Encoder (pure)                                                            */
/* ------------------------------------------------------------------------ */

/** One data record: one direction of one flow over an interval. */
struct mod_ipfix_rec {
	uint8_t family;	     /**< 4 or 6 (FC_AF_INET4 / FC_AF_INET6) */
	uint8_t proto;	     /**< protocolIdentifier */
	uint8_t end_reason;  /**< enum mod_ipfix_end */
	uint8_t fwd_status;  /**< MOD_IPFIX_FWD_* */
	uint8_t drop_reason; /**< gufcDropReason */
	uint8_t reply;	     /**< gufcFlowDirection */
	uint16_t sport;	     /**< host order */
	uint16_t dport;
	uint16_t post_sport;
	uint16_t post_dport;
	uint8_t src[16]; /**< network order; IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint8_t post_src[16];
	uint8_t post_dst[16];
	uint32_t rule_id;  /**< gufcRuleId */
	uint64_t octets;   /**< octetDeltaCount */
	uint64_t packets;  /**< packetDeltaCount */
	uint64_t start_ms; /**< flowStartMilliseconds, ms since the Unix epoch */
	uint64_t end_ms;   /**< flowEndMilliseconds */
};

/**
 * An encoder: builds one message at a time in the caller's buffer. Owned
 * by the caller; all fields are private to the mod_ipfix_enc_* functions.
 */
struct mod_ipfix_enc {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;	  /**< bytes of the open message (0: none open) */
	uint32_t set_off; /**< offset of the open set's header (0: none) */
	uint16_t set_id;  /**< id of the open set */
	uint32_t domain;  /**< observationDomainId */
	uint32_t pen;	  /**< enterprise number of the gufc elements */
	uint32_t seq;	  /**< data records of the messages finished before */
	uint32_t n_recs;  /**< data records in the open message */
	bool has_tmpl;	  /**< the open message holds the template set */
};

/**
 * Set up an encoder over @p buf.
 * @param e       the encoder
 * @param buf     the message buffer (outlives the encoder)
 * @param cap     its size: MOD_IPFIX_MSG_MIN .. 65535 (the message length field)
 * @param domain  observationDomainId
 * @param pen     Private Enterprise Number of the gufc elements (non-zero)
 * @return 0, -EINVAL.
 * Context: any.
 */
int mod_ipfix_enc_init(
	struct mod_ipfix_enc *e, void *buf, size_t cap, uint32_t domain, uint32_t pen);

/**
 * Append the template set (both templates) to the open message, opening one
 * if none is.
 * @param e  the encoder
 * @return 0, -EINVAL, -ENOSPC (no room left: finish the message first).
 * Context: the encoder's owner.
 */
int mod_ipfix_enc_templates(struct mod_ipfix_enc *e);

/**
 * Append a data record to the open message (opening one, and a data set of
 * the record's template, as needed).
 * @param e  the encoder
 * @param r  the record
 * @return 0, -EINVAL (NULL, family neither 4 nor 6), -ENOSPC (no room
 *   left: finish the message first).
 * Context: the encoder's owner.
 */
int mod_ipfix_enc_record(struct mod_ipfix_enc *e, const struct mod_ipfix_rec *r);

/**
 * Data records in the open message.
 * @param e  the encoder
 * @return the count (0 also when no message is open).
 * Context: the encoder's owner.
 */
uint32_t mod_ipfix_enc_records(const struct mod_ipfix_enc *e);

/**
 * Is a message open (something was appended since the last finish)?
 * @param e  the encoder
 * @return true if so.
 * Context: the encoder's owner.
 */
bool mod_ipfix_enc_open(const struct mod_ipfix_enc *e);

/**
 * Close the open message: fill its header (length, export time, sequence
 * number: the data records of the earlier messages, modulo 2^32) and count
 * its records into the sequence. The message is buf[0 .. length) until the
 * next append.
 * @param e          the encoder
 * @param export_s   exportTime, seconds since the Unix epoch
 * @return the message length, 0 when no message was open.
 * Context: the encoder's owner.
 */
size_t mod_ipfix_enc_finish(struct mod_ipfix_enc *e, uint32_t export_s);

/**
 * Size of one data record of a family on the wire.
 * @param family  4 or 6
 * @return bytes, 0 for another family.
 * Context: any.
 */
size_t mod_ipfix_rec_size(unsigned int family);

/**
 * Name of a flowEndReason value.
 * @param reason  enum mod_ipfix_end
 * @return "idle", "active", "eof", "forced", "resources"; "?" otherwise.
 * Context: any.
 */
const char *mod_ipfix_end_name(unsigned int reason);

/* ------------------------------------------------------------------------ */
/* Module                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Where finished messages go: @p msg is @p len bytes, valid during the
 * call. Called on the rules lcore.
 * @return 0 if sent; -errno if not (the message is lost, counted).
 */
typedef int (*mod_ipfix_send_fn)(void *arg, const uint8_t *msg, size_t len);

/** Module parameters. Zero means "default" where one is given. */
struct mod_ipfix_params {
	uint64_t epoch_ms;	   /**< wall clock (ms since the Unix epoch) at engine time 0 */
	uint32_t active_timeout;   /**< ms: a record every this long for a flow that lives
					on (0: none, only when it ends) */
	uint32_t idle_timeout;	   /**< ms: a record once a flow was idle this long, even
					if its cache entry lives on (0: only when it goes) */
	uint32_t template_refresh; /**< ms between template sets (0: only in the first
					message, as in a file) */
	uint32_t flush_interval;   /**< ms a record may wait in an unfilled message; 0 = 1000 */
	uint32_t sweep_interval;   /**< ms between two timeout sweeps of the flows; 0 = 1000 */
	uint32_t domain;	   /**< observationDomainId */
	uint32_t pen;		   /**< Private Enterprise Number; 0 = MOD_IPFIX_PEN_DOC */
	uint32_t msg_size;	   /**< message buffer, bytes; 0 = MOD_IPFIX_MSG_DEFAULT */
	mod_ipfix_send_fn send;	   /**< required */
	void *send_arg;		   /**< its first argument */
};

/** Module counters (mod_ipfix_stats_get()). */
struct mod_ipfix_stats {
	uint64_t records;	 /**< data records put in messages */
	uint64_t records_end[6]; /**< ... by flowEndReason (index enum mod_ipfix_end) */
	uint64_t messages;	 /**< messages sent */
	uint64_t bytes;		 /**< bytes of the messages sent */
	uint64_t templates;	 /**< template sets sent */
	uint64_t send_failed;	 /**< messages the sender refused (lost) */
	uint64_t records_lost;	 /**< data records in those messages */
	uint64_t sweeps;	 /**< full timeout sweeps of the flows */
};

struct mod_ipfix_module;

/**
 * Create the exporter and register it with @p eng as module "ipfix"
 * (order RULE_MOD_ORDER_CHANNEL + 100). It asks to see the FIN and RST
 * packets of TCP flows (an interest bit) to tell flows that closed from
 * flows that went idle. Per-entry state is sized by the engine's tables.
 * @param eng  the engine
 * @param p    parameters
 * @return the module, or NULL with rte_errno EINVAL (NULL, no sender, a
 *   bad msg_size), ENOMEM, or the error of rule_engine_module_register().
 * Context: rules lcore, before traffic.
 */
struct mod_ipfix_module *mod_ipfix_module_create(
	struct rule_engine *eng, const struct mod_ipfix_params *p);

/**
 * Free the module (after its engine: the engine calls it until it goes).
 * @param m  the module; NULL is accepted
 * Context: main lcore.
 */
void mod_ipfix_module_free(struct mod_ipfix_module *m);

/**
 * Export every live flow's unreported packets now (flowEndReason forced
 * end; end of flow for a TCP connection that saw FIN or RST) and send the
 * open message: what a stopping exporter does, since the
 * engine frees its tables without on_remove. Unbounded (walks every flow).
 * @param m    the module
 * @param now  the engine's clock, ms
 * @return records exported, or -EINVAL.
 * Context: rules lcore.
 */
int mod_ipfix_export_all(struct mod_ipfix_module *m, uint32_t now);

/**
 * Send the open message now, if there is one.
 * @param m    the module
 * @param now  the engine's clock, ms
 * @return 0, -EINVAL, or the sender's error (the message is lost, counted).
 * Context: rules lcore.
 */
int mod_ipfix_flush(struct mod_ipfix_module *m, uint32_t now);

/**
 * Read the counters.
 * @param m   the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_ipfix_stats_get(const struct mod_ipfix_module *m, struct mod_ipfix_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_IPFIX_H */
