/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack private: what the pure state machines share
 * (conntrack.c: configuration, UDP, ICMP, other protocols, names; ct_tcp.c:
 * TCP; ct_line.c: the fast path's line; ct_fast.c: its window check).
 * Not for other libraries: they see conntrack.h.
 */
#ifndef GUFC_CT_PRIV_H
#define GUFC_CT_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "conntrack.h"

/* TCP flags byte. */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20
#define TCP_ECE 0x40
#define TCP_CWR 0x80

#define PROTO_ICMP   1
#define PROTO_TCP    6
#define PROTO_UDP    17
#define PROTO_ICMPV6 58
#define PROTO_DCCP   33
#define PROTO_SCTP   132
#define PROTO_UDPLITE 136

/* Protocol classes: which state machine a key's protocol gets. */
enum ct_class {
	CT_CLASS_TCP,
	CT_CLASS_UDP,
	CT_CLASS_ICMP,
	CT_CLASS_SCTP,
	CT_CLASS_GENERIC,
};

static inline enum ct_class
ct_proto_class(uint8_t family, uint8_t proto)
{
	switch (proto) {
	case PROTO_TCP:
		return CT_CLASS_TCP;
	case PROTO_UDP:
	case PROTO_UDPLITE: /* as Linux: UDP's states and timeouts */
		return CT_CLASS_UDP;
	case PROTO_SCTP:
		return CT_CLASS_SCTP;
	case PROTO_ICMP:
		return family == FC_AF_INET4 ? CT_CLASS_ICMP : CT_CLASS_GENERIC;
	case PROTO_ICMPV6:
		return family == FC_AF_INET6 ? CT_CLASS_ICMP : CT_CLASS_GENERIC;
	default:
		return CT_CLASS_GENERIC;
	}
}

static inline bool
ct_is_tcp_state(unsigned int state)
{
	return state >= MOD_CT_S_SYN_SENT && state <= MOD_CT_S_SYN_SENT2;
}

static inline bool
ct_is_sctp_state(unsigned int state)
{
	return state >= MOD_CT_S_SCTP_CLOSED && state <= MOD_CT_S_SCTP_HEARTBEAT_SENT;
}

/* A state of protocol class @p cls's own machine (TCP's, SCTP's), or one of
 * the others' (NONE, OPEN) for the other classes. */
static inline bool
ct_state_fits(enum ct_class cls, unsigned int state)
{
	if (cls == CT_CLASS_TCP)
		return ct_is_tcp_state(state);
	if (cls == CT_CLASS_SCTP)
		return ct_is_sctp_state(state);
	return !ct_is_tcp_state(state) && !ct_is_sctp_state(state);
}

/* Whether @p c's state and flags are ones the module makes. */
static inline bool
ct_conn_valid(const struct mod_ct_conn *c)
{
	return c->state < MOD_CT_S__COUNT && (c->flags & ~MOD_CT_C_ALL) == 0;
}

/* The RULE_CT_* state of a packet of @p c from @p dir, the connection as it
 * was when the packet arrived. */
static inline uint8_t
ct_pkt_ctstate(const struct mod_ct_conn *c, unsigned int dir)
{
	if (dir == MOD_CT_DIR_REPLY || (c->flags & MOD_CT_C_REPLIED))
		return RULE_CT_ESTABLISHED;
	/* An expected connection's original side is RELATED until replied (Linux). */
	return c->master_helper != 0 ? RULE_CT_RELATED : RULE_CT_NEW;
}

/* ct_tcp.c: the TCP state machine (see mod_ct_new() / mod_ct_packet()). */
void ct_tcp_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v);
void ct_tcp_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v);
uint32_t ct_tcp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c);
void ct_tcp_interest(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c,
	uint16_t interest[2]);
/* The segment's flags are a valid combination (Linux's table). */
bool ct_tcp_flags_valid(uint8_t flags);

/* ct_sctp.c: the SCTP state machine (see mod_ct_new() / mod_ct_packet()). */
void ct_sctp_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v);
void ct_sctp_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v);
uint32_t ct_sctp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c);

/*
 * SIP (ct_sip_nat.c): the headers its helper reads, by Linux's names, and
 * the header walk nf_conntrack_sip does.
 */
enum ct_sip_hdr {
	CT_SIP_H_FROM,
	CT_SIP_H_TO,
	CT_SIP_H_CONTACT,
	CT_SIP_H_VIA_UDP,
	CT_SIP_H_VIA_TCP,
	CT_SIP_H_CONTENT_LENGTH,
	CT_SIP_H_EXPIRES,
};

/*
 * The next parsable header @p type (a URI's: From, To, Contact, Via) from
 * offset *from, and with *in_hdr first the next ','-separated value of the
 * header in hand: its address and port (5060 if none), *moff and *mlen
 * where "ADDR[:PORT]" is, *from past it. @return 1, 0 none, -1 a bad port.
 */
int ct_sip_header_uri(const uint8_t *s, uint32_t len, uint32_t *from, unsigned int type,
	uint8_t family, bool *in_hdr, uint32_t *moff, uint32_t *mlen, uint8_t *addr, uint16_t *port);

/* A numeric header (Content-Length, Expires): 1 and its value, 0 none. */
int ct_sip_header_num(const uint8_t *s, uint32_t len, unsigned int type, uint32_t *moff,
	uint32_t *mlen, uint32_t *v);

/*
 * A numeric parameter "name" ("expires=") of the header value from @p from
 * up to its next ',': 1 and *v, 0 none.
 */
int ct_sip_param_num(const uint8_t *s, uint32_t len, uint32_t from, const char *name,
	uint32_t *v);

/*
 * The transport= parameter of a header value from @p from: 1 and *proto
 * (6, 17; @p dflt without one), 0 another transport.
 */
int ct_sip_param_transport(const uint8_t *s, uint32_t len, uint32_t from, uint8_t dflt,
	uint8_t *proto);

/* Add an edit to a list in order (one overlapping an edit there is left out). @return 0, -ENOSPC. */
int ct_sip_edit_add(struct mod_ct_edit *e, unsigned int *n, unsigned int max, uint32_t off,
	uint32_t len_old, const char *text, uint32_t len_new);

/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) in @p buf: its length, or -EINVAL. */
int ct_sip_fmt_addr_port(uint8_t family, const uint8_t *addr, uint16_t port, char *buf,
	size_t size);

#endif /* GUFC_CT_PRIV_H */
