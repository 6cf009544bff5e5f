/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/conntrack.c — the conntrack module's core:
 * per-connection state machines (TCP like Linux's nf_conntrack without
 * window tracking, UDP, ICMP echo, other protocols), their timeouts and
 * interest masks, and the key of the packet an ICMP error quotes (for
 * RELATED).
 *
 * Pure and stateless: a connection is a struct mod_ct_conn that the
 * conntrack module (ct_module.c) keeps, packed into one byte, in both flow
 * entries of the connection and hands back with each packet its interest
 * mask selects. Called on the rules lcore. Behaviour for users:
 * doc/conntrack.md.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>

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

/* IPv6 extension headers walked inside a quoted packet. */
#define PROTO_HOPOPTS  0
#define PROTO_ROUTING  43
#define PROTO_FRAGMENT 44
#define PROTO_DSTOPTS  60

/* ICMP types. */
#define ICMP_ECHO_REPLY	     0
#define ICMP_DEST_UNREACH    3
#define ICMP_SOURCE_QUENCH   4
#define ICMP_REDIRECT	     5
#define ICMP_ECHO_REQUEST    8
#define ICMP_TIME_EXCEEDED   11
#define ICMP_PARAMETER_PROB  12
#define ICMP_TIMESTAMP	     13
#define ICMP_INFO_REQUEST    15
#define ICMP_ADDRESS_REQUEST 17

/* ICMPv6 types. */
#define ICMP6_DEST_UNREACH   1
#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_TIME_EXCEEDED  3
#define ICMP6_PARAMETER_PROB 4
#define ICMP6_ECHO_REQUEST   128
#define ICMP6_ECHO_REPLY     129
#define ICMP6_MLD_QUERY	     130
#define ICMP6_ND_NEIGH_ADV   136 /* 130..136: MLD v1, router/neighbour discovery */
#define ICMP6_NODE_INFO_QUERY 139
#define ICMP6_MLD2_REPORT    143

#define ICMP_HLEN	8  /* type, code, checksum, 4 bytes */
#define IPV4_HLEN	20
#define IPV6_HLEN	40
#define IPV6_EXT_MIN	8
#define QUOTED_L4_LEN	8  /* what an ICMP error must quote of the L4 header */
#define IPV4_OFF_MASK	0x1fff
#define IPV6_FRAG_OFF_MASK 0xfff8

/* Packed connection byte: state in bits 0-3, flags in bits 4-6. */
#define CONN_STATE_MASK	 0x0f
#define CONN_FLAGS_SHIFT 4

static_assert(MOD_CT_S__COUNT <= CONN_STATE_MASK + 1, "states must fit in 4 bits");
static_assert((MOD_CT_C_ALL << CONN_FLAGS_SHIFT) <= 0x7f, "flags must fit in bits 4-6");

/* Protocol classes: which state machine a key's protocol gets. */
enum ct_class {
	CT_CLASS_TCP,
	CT_CLASS_UDP,
	CT_CLASS_ICMP,
	CT_CLASS_GENERIC,
};

/* ------------------------------------------------------------------------ */
/* Configuration                                                             */
/* ------------------------------------------------------------------------ */

static const char *const timeout_names[MOD_CT_TO__COUNT] = {
#define MOD_CT_TO_NAME(name, text, ms) [MOD_CT_TO_##name] = text,
	MOD_CT_TIMEOUTS(MOD_CT_TO_NAME)
#undef MOD_CT_TO_NAME
};

static const uint32_t timeout_defaults[MOD_CT_TO__COUNT] = {
#define MOD_CT_TO_DEFAULT(name, text, ms) [MOD_CT_TO_##name] = ms,
	MOD_CT_TIMEOUTS(MOD_CT_TO_DEFAULT)
#undef MOD_CT_TO_DEFAULT
};

void
mod_ct_cfg_init(struct mod_ct_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tcp_strict = false;
	memcpy(cfg->timeout, timeout_defaults, sizeof(cfg->timeout));
}

int
mod_ct_cfg_check(const struct mod_ct_cfg *cfg)
{
	unsigned int i;

	if (cfg == NULL)
		return -EINVAL;
	for (i = 0; i < MOD_CT_TO__COUNT; i++)
		if (cfg->timeout[i] == 0)
			return -EINVAL;
	return 0;
}

const char *
mod_ct_timeout_name(unsigned int to)
{
	if (to >= MOD_CT_TO__COUNT)
		return "?";
	return timeout_names[to];
}

int
mod_ct_timeout_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return -EINVAL;
	for (i = 0; i < MOD_CT_TO__COUNT; i++)
		if (strcmp(name, timeout_names[i]) == 0)
			return (int)i;
	return -ENOENT;
}

/* ------------------------------------------------------------------------ */
/* Connections                                                               */
/* ------------------------------------------------------------------------ */

uint8_t
mod_ct_conn_pack(const struct mod_ct_conn *c)
{
	RTE_ASSERT(c->state < MOD_CT_S__COUNT && (c->flags & ~MOD_CT_C_ALL) == 0);
	return (uint8_t)((c->state & CONN_STATE_MASK) |
		((c->flags & MOD_CT_C_ALL) << CONN_FLAGS_SHIFT));
}

int
mod_ct_conn_unpack(uint8_t b, struct mod_ct_conn *c)
{
	uint8_t state = b & CONN_STATE_MASK;
	uint8_t flags = b >> CONN_FLAGS_SHIFT;

	c->state = MOD_CT_S_NONE;
	c->flags = 0;
	if (state >= MOD_CT_S__COUNT || (flags & ~MOD_CT_C_ALL) != 0)
		return -EINVAL;
	c->state = state;
	c->flags = flags;
	return 0;
}

static bool
conn_valid(const struct mod_ct_conn *c)
{
	return c->state < MOD_CT_S__COUNT && (c->flags & ~MOD_CT_C_ALL) == 0;
}

static bool
is_tcp_state(unsigned int state)
{
	return state >= MOD_CT_S_SYN_SENT && state <= MOD_CT_S_SYN_SENT2;
}

static enum ct_class
proto_class(uint8_t family, uint8_t proto)
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

unsigned int
mod_ct_conn_ctstate(const struct mod_ct_conn *c, unsigned int dir)
{
	if (c->state == MOD_CT_S_NONE || !conn_valid(c))
		return 0;
	if (dir == MOD_CT_DIR_REPLY || (c->flags & MOD_CT_C_REPLIED))
		return RULE_CT_ESTABLISHED;
	return RULE_CT_NEW;
}

/* Timeout slot of each TCP state. */
static const uint8_t tcp_state_timeout[MOD_CT_S__COUNT] = {
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

uint32_t
mod_ct_timeout(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c)
{
	bool replied = (c->flags & MOD_CT_C_REPLIED) != 0;
	uint32_t to;

	if (!conn_valid(c))
		return 0;
	switch (proto_class(family, proto)) {
	case CT_CLASS_TCP:
		if (!is_tcp_state(c->state))
			return c->state == MOD_CT_S_NONE ? cfg->timeout[MOD_CT_TO_GENERIC] : 0;
		to = cfg->timeout[tcp_state_timeout[c->state]];
		/* Until the other side answers, never the long timeouts. */
		if (!replied)
			to = RTE_MIN(to, cfg->timeout[MOD_CT_TO_TCP_UNREPLIED]);
		return to;
	case CT_CLASS_UDP:
		if (is_tcp_state(c->state))
			return 0;
		return cfg->timeout[replied ? MOD_CT_TO_UDP_REPLIED : MOD_CT_TO_UDP];
	case CT_CLASS_ICMP:
		if (is_tcp_state(c->state))
			return 0;
		return cfg->timeout[MOD_CT_TO_ICMP];
	default:
		if (is_tcp_state(c->state))
			return 0;
		return cfg->timeout[MOD_CT_TO_GENERIC];
	}
}

void
mod_ct_interest(uint8_t family, uint8_t proto, const struct mod_ct_conn *c, uint16_t interest[2])
{
	const uint16_t base = FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST;
	unsigned int closer, peer;

	interest[MOD_CT_DIR_ORIG] = 0;
	interest[MOD_CT_DIR_REPLY] = 0;
	if (c->state == MOD_CT_S_NONE || !conn_valid(c) ||
	    (proto_class(family, proto) == CT_CLASS_TCP) != is_tcp_state(c->state))
		return;
	if (proto_class(family, proto) != CT_CLASS_TCP) {
		/* Only the first reply changes anything. */
		if (!(c->flags & MOD_CT_C_REPLIED))
			interest[MOD_CT_DIR_REPLY] = FC_INTEREST_ALL;
		return;
	}
	interest[MOD_CT_DIR_ORIG] = base;
	interest[MOD_CT_DIR_REPLY] = base;
	/* The first reply packet, whatever its flags, makes original packets ESTABLISHED. */
	if (!(c->flags & MOD_CT_C_REPLIED))
		interest[MOD_CT_DIR_REPLY] |= FC_INTEREST_ALL;
	/* States that a bare ACK from one side moves on. */
	closer = (c->flags & MOD_CT_C_CLOSER_REPLY) ? MOD_CT_DIR_REPLY : MOD_CT_DIR_ORIG;
	peer = closer ^ 1;
	switch (c->state) {
	case MOD_CT_S_SYN_RECV:
		interest[MOD_CT_DIR_ORIG] |= FC_INTEREST_ALL; /* the handshake's final ACK */
		break;
	case MOD_CT_S_FIN_WAIT:
		interest[peer] |= FC_INTEREST_ALL; /* the ACK of the first FIN */
		break;
	case MOD_CT_S_LAST_ACK:
		interest[closer] |= FC_INTEREST_ALL; /* the ACK of the second FIN */
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------------ */
/* TCP                                                                       */
/* ------------------------------------------------------------------------ */

/* What a segment's flags make of it. */
enum tcp_class {
	TC_SYN,
	TC_SYNACK,
	TC_FIN, /* FIN with ACK */
	TC_ACK,
	TC_RST, /* with or without ACK */
	TC_BAD, /* no valid combination: INVALID in every state */
};

/*
 * Classify the flags byte. PSH, ECE and CWR never matter; URG is fine with
 * a SYN, an ACK or a FIN+ACK. The valid cores are SYN, SYN+ACK, FIN+ACK,
 * ACK, RST and RST+ACK: anything else (no flags, FIN alone, SYN+FIN,
 * SYN+RST, the "Xmas" set, ...) is a scan or garbage.
 */
static enum tcp_class
tcp_classify(uint8_t flags)
{
	uint8_t f = flags & ~(TCP_PSH | TCP_ECE | TCP_CWR);
	bool urg = (f & TCP_URG) != 0;

	switch (f & ~TCP_URG) {
	case TCP_SYN:
		return TC_SYN;
	case TCP_SYN | TCP_ACK:
		return urg ? TC_BAD : TC_SYNACK;
	case TCP_FIN | TCP_ACK:
		return TC_FIN;
	case TCP_ACK:
		return TC_ACK;
	case TCP_RST:
	case TCP_RST | TCP_ACK:
		return urg ? TC_BAD : TC_RST;
	default:
		return TC_BAD;
	}
}

/* Results of tcp_step() that are not states. */
#define STEP_INVALID (-1)
#define STEP_REOPEN  (-2)

/*
 * The TCP transition of a connection in @p state for a segment of class
 * @p cls from direction @p dir: the next state (possibly the same), or
 * STEP_INVALID (the segment does not fit; nothing changes), or STEP_REOPEN.
 * @p by_closer: the segment comes from the side that sent the first FIN
 * (meaningful in FIN_WAIT, CLOSE_WAIT and LAST_ACK).
 */
static int
tcp_step(unsigned int state, unsigned int dir, bool by_closer, enum tcp_class cls)
{
	const bool orig = dir == MOD_CT_DIR_ORIG;

	if (cls == TC_BAD)
		return STEP_INVALID;
	if (cls == TC_RST)
		return MOD_CT_S_CLOSE; /* no sequence check: every RST closes */

	switch (state) {
	case MOD_CT_S_SYN_SENT:
		if (cls == TC_SYN) /* retransmission, or the peer's SYN: simultaneous open */
			return orig ? MOD_CT_S_SYN_SENT : MOD_CT_S_SYN_SENT2;
		if (cls == TC_SYNACK && !orig)
			return MOD_CT_S_SYN_RECV;
		/* SYN/ACK from the opener; FIN or ACK before the peer answered. */
		return STEP_INVALID;

	case MOD_CT_S_SYN_SENT2:
		if (cls == TC_SYN)
			return MOD_CT_S_SYN_SENT2;
		if (cls == TC_SYNACK)
			return MOD_CT_S_SYN_RECV;
		if (cls == TC_ACK && !orig)
			return MOD_CT_S_SYN_SENT2; /* ignored, as Linux does */
		return STEP_INVALID;

	case MOD_CT_S_SYN_RECV:
		switch (cls) {
		case TC_SYN: /* a retransmitted SYN is ignored; the responder may not send one */
			return orig ? MOD_CT_S_SYN_RECV : STEP_INVALID;
		case TC_SYNACK: /* retransmission, or the other half of a simultaneous open */
			return MOD_CT_S_SYN_RECV;
		case TC_FIN:
			return MOD_CT_S_FIN_WAIT;
		default: /* TC_ACK: only the opener's completes the handshake */
			return orig ? MOD_CT_S_ESTABLISHED : MOD_CT_S_SYN_RECV;
		}

	case MOD_CT_S_ESTABLISHED:
	case MOD_CT_S_FIN_WAIT:
	case MOD_CT_S_CLOSE_WAIT:
	case MOD_CT_S_LAST_ACK:
		/*
		 * A SYN from the opener is ignored (a new attempt on a reused
		 * port, or our state is stale); a SYN/ACK from the responder is a
		 * late retransmission. The reverse of either is INVALID.
		 */
		if (cls == TC_SYN)
			return orig ? (int)state : STEP_INVALID;
		if (cls == TC_SYNACK)
			return orig ? STEP_INVALID : (int)state;
		break;

	case MOD_CT_S_TIME_WAIT:
	case MOD_CT_S_CLOSE:
		/* RFC 1122 4.2.2.13: a new SYN may reopen a closed connection. */
		if (cls == TC_SYN)
			return STEP_REOPEN;
		if (cls == TC_SYNACK)
			return orig ? STEP_INVALID : (int)state;
		return (int)state; /* late FINs and ACKs */

	default:
		return STEP_INVALID;
	}

	/* ESTABLISHED and the closing states: FIN+ACK or ACK. */
	switch (state) {
	case MOD_CT_S_ESTABLISHED:
		return cls == TC_FIN ? MOD_CT_S_FIN_WAIT : MOD_CT_S_ESTABLISHED;
	case MOD_CT_S_FIN_WAIT:
		if (by_closer) /* retransmitted FIN, or more ACKs from the closer */
			return MOD_CT_S_FIN_WAIT;
		/* The peer's own FIN (maybe acknowledging ours), or its ACK of ours. */
		return cls == TC_FIN ? MOD_CT_S_LAST_ACK : MOD_CT_S_CLOSE_WAIT;
	case MOD_CT_S_CLOSE_WAIT:
		return cls == TC_FIN && !by_closer ? MOD_CT_S_LAST_ACK : MOD_CT_S_CLOSE_WAIT;
	default: /* LAST_ACK: the closer acknowledges the peer's FIN */
		return cls == TC_ACK && by_closer ? MOD_CT_S_TIME_WAIT : MOD_CT_S_LAST_ACK;
	}
}

/* ------------------------------------------------------------------------ */
/* New connections and later packets                                         */
/* ------------------------------------------------------------------------ */

static bool
pkt_proto(const struct fc_pkt *pkt, uint8_t *proto)
{
	switch (pkt->key.family) {
	case FC_AF_INET4:
		*proto = pkt->key.v4.proto;
		return true;
	case FC_AF_INET6:
		*proto = pkt->key.v6.proto;
		return true;
	default:
		return false;
	}
}

/* Is ICMP (v4) or ICMPv6 (v6) type @p type an error that quotes a packet? */
static bool
icmp_type_is_error(uint8_t family, uint8_t type)
{
	if (family == FC_AF_INET4)
		return type == ICMP_DEST_UNREACH || type == ICMP_SOURCE_QUENCH ||
		       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
		       type == ICMP_PARAMETER_PROB;
	return type >= ICMP6_DEST_UNREACH && type <= ICMP6_PARAMETER_PROB;
}

bool
mod_ct_icmp_is_error(const struct fc_pkt *pkt)
{
	uint8_t proto;

	if (pkt == NULL || !pkt_proto(pkt, &proto) || pkt->frag == FC_FRAG_LATER)
		return false;
	if (proto != (pkt->key.family == FC_AF_INET4 ? PROTO_ICMP : PROTO_ICMPV6))
		return false;
	return icmp_type_is_error(pkt->key.family, pkt->icmp_type);
}

/* ICMP types that may open a connection: requests whose answer is a reply. */
static bool
icmp_is_request(uint8_t family, uint8_t type)
{
	if (family == FC_AF_INET4)
		return type == ICMP_ECHO_REQUEST || type == ICMP_TIMESTAMP ||
		       type == ICMP_INFO_REQUEST || type == ICMP_ADDRESS_REQUEST;
	return type == ICMP6_ECHO_REQUEST || type == ICMP6_NODE_INFO_QUERY;
}

static bool
icmp_is_echo_reply(uint8_t family, uint8_t type)
{
	return type == (family == FC_AF_INET4 ? ICMP_ECHO_REPLY : ICMP6_ECHO_REPLY);
}

/* ICMPv6 link-local signalling that Linux leaves untracked: MLD and ND. */
static bool
icmp6_is_untracked(uint8_t type)
{
	return (type >= ICMP6_MLD_QUERY && type <= ICMP6_ND_NEIGH_ADV) || type == ICMP6_MLD2_REPORT;
}

/* Fill timeout and interest from connection @p c. */
static void
verdict_from_conn(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	v->timeout = mod_ct_timeout(cfg, family, proto, c);
	mod_ct_interest(family, proto, c, v->interest);
}

int
mod_ct_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, struct mod_ct_conn *c,
	struct mod_ct_verdict *v)
{
	const uint8_t family = pkt != NULL ? pkt->key.family : FC_AF_NONE;
	struct mod_ct_conn none = {.state = MOD_CT_S_NONE};
	unsigned int state = MOD_CT_S_NONE;
	uint8_t ctstate = RULE_CT_INVALID;
	uint8_t proto;

	if (cfg == NULL || pkt == NULL || c == NULL || v == NULL || !pkt_proto(pkt, &proto))
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	*c = none;

	if (pkt->frag == FC_FRAG_LATER) {
		ctstate = 0; /* no L4 header: not tracked here */
	} else {
		switch (proto_class(family, proto)) {
		case CT_CLASS_TCP:
			switch (tcp_classify(pkt->tcp_flags)) {
			case TC_SYN:
				state = MOD_CT_S_SYN_SENT;
				break;
			case TC_ACK:
				if (!cfg->tcp_strict) {
					state = MOD_CT_S_ESTABLISHED;
					c->flags = MOD_CT_C_PICKUP;
				}
				break;
			default: /* SYN/ACK, FIN, RST, garbage: never a start */
				break;
			}
			break;
		case CT_CLASS_ICMP:
			if (icmp_is_request(family, pkt->icmp_type))
				state = MOD_CT_S_OPEN;
			else if (family == FC_AF_INET6 && icmp6_is_untracked(pkt->icmp_type))
				ctstate = 0;
			/* else an unsolicited reply, or an error that relates to nothing */
			break;
		default:
			state = MOD_CT_S_OPEN;
			break;
		}
	}

	if (state != MOD_CT_S_NONE) {
		c->state = (uint8_t)state;
		v->ctstate = RULE_CT_NEW;
		v->flags = MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED;
		verdict_from_conn(cfg, family, proto, c, v);
		return 0;
	}
	c->flags = 0;
	v->ctstate = ctstate;
	v->timeout = mod_ct_timeout(cfg, family, proto, c);
	if (ctstate == RULE_CT_INVALID) {
		v->interest[MOD_CT_DIR_ORIG] = FC_INTEREST_ALL;
		v->interest[MOD_CT_DIR_REPLY] = FC_INTEREST_ALL;
	}
	return 0;
}

/* Is this packet valid for an open non-TCP connection from direction @p dir? */
static bool
other_valid(enum ct_class cls, uint8_t family, unsigned int dir, const struct fc_pkt *pkt)
{
	if (cls != CT_CLASS_ICMP)
		return true;
	if (dir == MOD_CT_DIR_ORIG)
		return icmp_is_request(family, pkt->icmp_type);
	return icmp_is_echo_reply(family, pkt->icmp_type);
}

int
mod_ct_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, struct mod_ct_verdict *v)
{
	struct mod_ct_conn next;
	enum ct_class cls;
	uint8_t family, proto;
	bool by_closer;
	int step;

	if (cfg == NULL || c == NULL || pkt == NULL || v == NULL || !pkt_proto(pkt, &proto) ||
	    dir > MOD_CT_DIR_REPLY || !conn_valid(c) || c->state == MOD_CT_S_NONE)
		return -EINVAL;
	family = pkt->key.family;
	cls = proto_class(family, proto);
	if ((cls == CT_CLASS_TCP) != is_tcp_state(c->state))
		return -EINVAL;

	memset(v, 0, sizeof(*v));
	verdict_from_conn(cfg, family, proto, c, v);
	next = *c;
	if (cls == CT_CLASS_TCP) {
		by_closer = (dir == MOD_CT_DIR_REPLY) == ((c->flags & MOD_CT_C_CLOSER_REPLY) != 0);
		step = tcp_step(c->state, dir, by_closer, tcp_classify(pkt->tcp_flags));
		if (step == STEP_REOPEN) {
			v->ctstate = RULE_CT_NEW;
			v->flags = MOD_CT_VF_REOPEN;
			return 0;
		}
		if (step != STEP_INVALID) {
			next.state = (uint8_t)step;
			if (step == MOD_CT_S_FIN_WAIT && c->state != MOD_CT_S_FIN_WAIT) {
				/* Remember who closed first. */
				next.flags &= ~MOD_CT_C_CLOSER_REPLY;
				if (dir == MOD_CT_DIR_REPLY)
					next.flags |= MOD_CT_C_CLOSER_REPLY;
			}
		}
	} else {
		step = other_valid(cls, family, dir, pkt) ? (int)c->state : STEP_INVALID;
	}
	if (step == STEP_INVALID) {
		v->ctstate = RULE_CT_INVALID;
		if (c->state == MOD_CT_S_CLOSE)
			v->flags |= MOD_CT_VF_CLOSED;
		return 0;
	}

	if (dir == MOD_CT_DIR_REPLY)
		next.flags |= MOD_CT_C_REPLIED;
	v->ctstate = (uint8_t)mod_ct_conn_ctstate(&next, dir);
	if (mod_ct_conn_pack(&next) != mod_ct_conn_pack(c)) {
		v->flags |= MOD_CT_VF_CHANGED;
		if ((next.flags ^ c->flags) & MOD_CT_C_REPLIED)
			v->flags |= MOD_CT_VF_CTSTATE;
		*c = next;
		verdict_from_conn(cfg, family, proto, c, v);
	}
	if (c->state == MOD_CT_S_CLOSE)
		v->flags |= MOD_CT_VF_CLOSED;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* ICMP errors: the quoted packet                                            */
/* ------------------------------------------------------------------------ */

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t
rd16_host(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

/*
 * Ports of the quoted L4 header at @p off (the packet ends at @p end), as
 * the parser keys them. A quoted ICMP error belongs to no connection.
 */
static int
quoted_l4(const uint8_t *p, uint32_t off, uint32_t end, uint8_t proto, uint8_t family,
	uint16_t *sport, uint16_t *dport)
{
	uint8_t type;

	switch (proto) {
	case PROTO_TCP:
	case PROTO_UDP:
	case PROTO_SCTP:
		if (end - off < QUOTED_L4_LEN)
			return -EINVAL;
		*sport = rd16(p + off);
		*dport = rd16(p + off + 2);
		return 0;
	case PROTO_ICMP:
	case PROTO_ICMPV6:
		if (proto != (family == FC_AF_INET4 ? PROTO_ICMP : PROTO_ICMPV6))
			return 0; /* ICMPv4 in IPv6 (or v6 in v4): another protocol, ports 0 */
		if (end - off < QUOTED_L4_LEN)
			return -EINVAL;
		type = p[off];
		if (icmp_type_is_error(family, type))
			return -ENOENT; /* errors are not sent about errors */
		if (type == (family == FC_AF_INET4 ? ICMP_ECHO_REQUEST : ICMP6_ECHO_REQUEST) ||
		    icmp_is_echo_reply(family, type)) {
			*sport = rd16(p + off + 4);
			*dport = *sport;
		} else {
			*sport = rd16(p + off); /* type << 8 | code, in network order */
			*dport = 0;
		}
		return 0;
	default:
		return 0; /* other protocols: no ports */
	}
}

static int
quoted_ipv4(const uint8_t *p, uint32_t off, uint32_t end, struct fc_key *k)
{
	struct fc_key_v4 *kv = &k->v4;
	uint32_t ihl;

	if (end - off < IPV4_HLEN || (p[off] & 0xf0) != 0x40)
		return -EINVAL;
	ihl = (uint32_t)(p[off] & 0x0f) << 2;
	if (ihl < IPV4_HLEN || end - off < ihl || rd16_host(p + off + 2) < ihl)
		return -EINVAL;
	k->family = FC_AF_INET4;
	memcpy(&kv->src, p + off + 12, sizeof(kv->src));
	memcpy(&kv->dst, p + off + 16, sizeof(kv->dst));
	kv->proto = p[off + 9];
	if ((rd16_host(p + off + 6) & IPV4_OFF_MASK) != 0)
		return -ENOENT; /* a non-first fragment: no L4 header, no flow */
	return quoted_l4(p, off + ihl, end, kv->proto, FC_AF_INET4, &kv->sport, &kv->dport);
}

static bool
is_ipv6_ext(uint8_t nh)
{
	return nh == PROTO_HOPOPTS || nh == PROTO_ROUTING || nh == PROTO_FRAGMENT ||
	       nh == PROTO_DSTOPTS;
}

static int
quoted_ipv6(const uint8_t *p, uint32_t off, uint32_t end, struct fc_key *k)
{
	struct fc_key_v6 *kv = &k->v6;
	unsigned int n;
	uint32_t hlen;
	uint8_t nh;

	if (end - off < IPV6_HLEN || (p[off] & 0xf0) != 0x60)
		return -EINVAL;
	k->family = FC_AF_INET6;
	memcpy(kv->src, p + off + 8, sizeof(kv->src));
	memcpy(kv->dst, p + off + 24, sizeof(kv->dst));
	nh = p[off + 6];
	off += IPV6_HLEN;
	for (n = 0; is_ipv6_ext(nh); n++) {
		if (n == FC_PARSE_MAX_EXT || end - off < IPV6_EXT_MIN)
			return -EINVAL;
		if (nh == PROTO_FRAGMENT) {
			if ((rd16_host(p + off + 2) & IPV6_FRAG_OFF_MASK) != 0) {
				kv->proto = p[off];
				return -ENOENT; /* a non-first fragment */
			}
			hlen = IPV6_EXT_MIN;
		} else {
			hlen = ((uint32_t)p[off + 1] + 1) << 3;
			if (end - off < hlen)
				return -EINVAL;
		}
		nh = p[off];
		off += hlen;
	}
	kv->proto = nh;
	return quoted_l4(p, off, end, nh, FC_AF_INET6, &kv->sport, &kv->dport);
}

int
mod_ct_icmp_inner_key(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt,
	struct fc_key *inner)
{
	uint32_t end, off;
	uint8_t proto;
	int ret;

	if (frame == NULL || pkt == NULL || inner == NULL || !pkt_proto(pkt, &proto))
		return -EINVAL;
	if (proto != (pkt->key.family == FC_AF_INET4 ? PROTO_ICMP : PROTO_ICMPV6) ||
	    pkt->frag == FC_FRAG_LATER || pkt->l4_off == 0)
		return -EINVAL;
	if (!mod_ct_icmp_is_error(pkt))
		return -ENOENT;

	/* The quoted packet ends with the frame or the outer datagram. */
	end = RTE_MIN(len, (uint32_t)pkt->l3_off + pkt->ip_len);
	off = (uint32_t)pkt->l4_off + ICMP_HLEN;
	if (off > end)
		return -EINVAL;

	memset(inner, 0, sizeof(*inner));
	if (pkt->key.family == FC_AF_INET4)
		ret = quoted_ipv4(frame, off, end, inner);
	else
		ret = quoted_ipv6(frame, off, end, inner);
	if (ret < 0) {
		memset(inner, 0, sizeof(*inner));
		return ret;
	}
	if (inner->family == FC_AF_INET4)
		fc_key_v4_normalize(&inner->v4);
	else
		fc_key_v6_normalize(&inner->v6);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const state_names[MOD_CT_S__COUNT] = {
	[MOD_CT_S_NONE] = "NONE",
	[MOD_CT_S_SYN_SENT] = "SYN_SENT",
	[MOD_CT_S_SYN_RECV] = "SYN_RECV",
	[MOD_CT_S_ESTABLISHED] = "ESTABLISHED",
	[MOD_CT_S_FIN_WAIT] = "FIN_WAIT",
	[MOD_CT_S_CLOSE_WAIT] = "CLOSE_WAIT",
	[MOD_CT_S_LAST_ACK] = "LAST_ACK",
	[MOD_CT_S_TIME_WAIT] = "TIME_WAIT",
	[MOD_CT_S_CLOSE] = "CLOSE",
	[MOD_CT_S_SYN_SENT2] = "SYN_SENT2",
	[MOD_CT_S_OPEN] = "OPEN",
};

const char *
mod_ct_state_name(unsigned int state)
{
	if (state >= MOD_CT_S__COUNT)
		return "?";
	return state_names[state];
}

int
mod_ct_conn_format(const struct mod_ct_conn *c, char *buf, size_t len)
{
	bool closing;
	int n;

	if (c == NULL || buf == NULL || !conn_valid(c))
		return -EINVAL;
	closing = c->state == MOD_CT_S_FIN_WAIT || c->state == MOD_CT_S_CLOSE_WAIT ||
		  c->state == MOD_CT_S_LAST_ACK;
	n = snprintf(buf, len, "%s %s%s%s", state_names[c->state],
		(c->flags & MOD_CT_C_REPLIED) ? "replied" : "unreplied",
		closing ? ((c->flags & MOD_CT_C_CLOSER_REPLY) ? " closer=reply" : " closer=orig")
			: "",
		(c->flags & MOD_CT_C_PICKUP) ? " pickup" : "");
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}
