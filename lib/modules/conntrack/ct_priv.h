/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack private: what the pure state machines share
 * (conntrack.c: configuration, UDP, ICMP, other protocols, names; ct_tcp.c:
 * TCP). Not for other libraries: they see conntrack.h.
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
#define PROTO_SCTP   132

/* Protocol classes: which state machine a key's protocol gets. */
enum ct_class {
	CT_CLASS_TCP,
	CT_CLASS_UDP,
	CT_CLASS_ICMP,
	CT_CLASS_GENERIC,
};

static inline enum ct_class
ct_proto_class(uint8_t family, uint8_t proto)
{
	switch (proto) {
	case PROTO_TCP:
		return CT_CLASS_TCP;
	case PROTO_UDP:
		return CT_CLASS_UDP;
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

#endif /* GUFC_CT_PRIV_H */
