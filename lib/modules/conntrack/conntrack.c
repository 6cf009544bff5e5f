/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/conntrack.c — the conntrack module's core:
 * connections of UDP, ICMP echo and other protocols, the
 * dispatch to the TCP machine (ct_tcp.c), timeouts and interest masks,
 * the key of the packet an ICMP error quotes (for RELATED); the fast
 * path's line is ct_line.c's, its
 * configuration and names are ct_cfg.c's.
 *
 * Pure and stateless: a connection is a struct mod_ct_conn that the
 * conntrack module (ct_module.c) keeps and hands back with each packet the
 * slow path sees. Called on the rules lcore. Behaviour for users:
 * doc/conntrack.md.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>

#include "ct_priv.h"

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
#define ICMP6_NODE_INFO_REPLY 140
#define ICMP6_MLD2_REPORT    143
#define ICMP6_MRDISC_ADV     151 /* multicast router discovery (RFC 4286) */
#define ICMP6_MRDISC_SOL     152

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

static_assert(MOD_CT_S_OPEN <= CONN_STATE_MASK, "packed states must fit in 4 bits");
static_assert((MOD_CT_C_ALL << CONN_FLAGS_SHIFT) <= 0x7f, "flags must fit in bits 4-6");

/* ------------------------------------------------------------------------ */
/* Connections                                                               */
/* ------------------------------------------------------------------------ */

uint8_t
mod_ct_conn_pack(const struct mod_ct_conn *c)
{
	RTE_ASSERT(c->state <= MOD_CT_S_OPEN && (c->flags & ~MOD_CT_C_ALL) == 0);
	return (uint8_t)((c->state & CONN_STATE_MASK) |
		((c->flags & MOD_CT_C_ALL) << CONN_FLAGS_SHIFT));
}

int
mod_ct_conn_unpack(uint8_t b, struct mod_ct_conn *c)
{
	uint8_t state = b & CONN_STATE_MASK;
	uint8_t flags = b >> CONN_FLAGS_SHIFT;

	memset(c, 0, sizeof(*c));
	if (state > MOD_CT_S_OPEN || (flags & ~MOD_CT_C_ALL) != 0)
		return -EINVAL;
	c->state = state;
	c->flags = flags;
	return 0;
}

unsigned int
mod_ct_conn_ctstate(const struct mod_ct_conn *c, unsigned int dir)
{
	if (c->state == MOD_CT_S_NONE || !ct_conn_valid(c))
		return 0;
	return ct_pkt_ctstate(c, dir);
}

uint32_t
mod_ct_timeout(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c)
{
	bool replied = (c->flags & MOD_CT_C_REPLIED) != 0;

	if (cfg == NULL || c == NULL || !ct_conn_valid(c))
		return 0;
	switch (ct_proto_class(family, proto)) {
	case CT_CLASS_TCP:
		if (!ct_is_tcp_state(c->state))
			return c->state == MOD_CT_S_NONE ? cfg->timeout[MOD_CT_TO_GENERIC] : 0;
		return ct_tcp_timeout(cfg, c);
	case CT_CLASS_SCTP:
		if (!ct_is_sctp_state(c->state) && c->state != MOD_CT_S_NONE)
			return 0;
		return ct_sctp_timeout(cfg, c);
	case CT_CLASS_UDP:
		if (!ct_state_fits(CT_CLASS_UDP, c->state))
			return 0;
		return cfg->timeout[replied ? MOD_CT_TO_UDP_REPLIED : MOD_CT_TO_UDP];
	case CT_CLASS_ICMP:
		if (!ct_state_fits(CT_CLASS_ICMP, c->state))
			return 0;
		return cfg->timeout[MOD_CT_TO_ICMP];
	default:
		if (!ct_state_fits(CT_CLASS_GENERIC, c->state))
			return 0;
		return cfg->timeout[MOD_CT_TO_GENERIC];
	}
}

void
mod_ct_interest(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c, uint16_t interest[2])
{
	interest[MOD_CT_DIR_ORIG] = 0;
	interest[MOD_CT_DIR_REPLY] = 0;
	if (cfg == NULL || c == NULL || c->state == MOD_CT_S_NONE || !ct_conn_valid(c) ||
		!ct_state_fits(ct_proto_class(family, proto), c->state))
		return;
	if (ct_proto_class(family, proto) == CT_CLASS_TCP) {
		ct_tcp_interest(cfg, c, interest);
		return;
	}
	/*
	 * SCTP: the fast path checks each packet's tag and chunks: those
	 * that may move the state or fail a check are the slow path's.
	 */
	if (proto == PROTO_SCTP) {
		interest[MOD_CT_DIR_ORIG] = FC_INTEREST_SCTP;
		interest[MOD_CT_DIR_REPLY] = FC_INTEREST_SCTP;
	}
	/*
	 * UDP-Lite: a datagram whose header conntrack would find invalid, in
	 * either direction (the fast path checks each one).
	 */
	if (proto == PROTO_UDPLITE) {
		interest[MOD_CT_DIR_ORIG] = FC_INTEREST_UDPLITE;
		interest[MOD_CT_DIR_REPLY] = FC_INTEREST_UDPLITE;
	}
	/* Only the first reply changes anything. */
	if (!(c->flags & MOD_CT_C_REPLIED))
		interest[MOD_CT_DIR_REPLY] = FC_INTEREST_ALL;
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

/* The replies of icmp_is_request()'s queries that carry an identifier. */
static bool
icmp_is_reply(uint8_t family, uint8_t type)
{
	if (family == FC_AF_INET4)
		return type == ICMP_ECHO_REPLY || type == ICMP_TIMESTAMP + 1 ||
		       type == ICMP_INFO_REQUEST + 1 || type == ICMP_ADDRESS_REQUEST + 1;
	return type == ICMP6_ECHO_REPLY || type == ICMP6_NODE_INFO_REPLY;
}

/*
 * A UDP-Lite header Linux's conntrack accepts (fc_udplite_ok()): checksum
 * coverage 0 (the whole datagram) or 8 up to the datagram's length, and a
 * checksum (it is mandatory). The checksum's value is not verified, as for
 * UDP. A first fragment's coverage may reach into later fragments.
 */
static bool
udplite_ok(const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len)
{
	uint32_t l4 = pkt->l4_off, end = (uint32_t)pkt->l3_off + pkt->ip_len;

	if (frame == NULL || l4 == 0 || l4 + 8 > frame_len || l4 + 8 > end)
		return true; /* the parser saw the header: nothing to judge here */
	return fc_udplite_ok(frame + l4, end - l4, pkt->frag == FC_FRAG_NONE);
}

/*
 * ICMPv6 link-local signalling that Linux leaves untracked: MLD, ND and
 * multicast router discovery's advertisement and solicitation (not its
 * termination, 153, which is invalid as a new connection).
 */
static bool
icmp6_is_untracked(uint8_t type)
{
	return (type >= ICMP6_MLD_QUERY && type <= ICMP6_ND_NEIGH_ADV) ||
	       type == ICMP6_MLD2_REPORT || type == ICMP6_MRDISC_ADV || type == ICMP6_MRDISC_SOL;
}

/* Fill timeout and interest from connection @p c. */
static void
verdict_from_conn(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	v->timeout = mod_ct_timeout(cfg, family, proto, c);
	mod_ct_interest(cfg, family, proto, c, v->interest);
}

int
mod_ct_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	const uint8_t family = pkt != NULL ? pkt->key.family : FC_AF_NONE;
	unsigned int state = MOD_CT_S_NONE;
	uint8_t ctstate = RULE_CT_INVALID, why = MOD_CT_WHY_NEW;
	uint8_t proto;
	enum ct_class cls;

	if (cfg == NULL || pkt == NULL || c == NULL || v == NULL || !pkt_proto(pkt, &proto))
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	memset(c, 0, sizeof(*c));

	if (pkt->frag == FC_FRAG_LATER) {
		ctstate = 0; /* no L4 header: not tracked here */
	} else {
		switch (cls = ct_proto_class(family, proto)) {
		case CT_CLASS_TCP:
		case CT_CLASS_SCTP:
			/* The protocols with their own tracker: it makes the record. */
			if (cls == CT_CLASS_TCP)
				ct_tcp_new(cfg, pkt, frame, frame_len, c, v);
			else
				ct_sctp_new(cfg, pkt, frame, frame_len, c, v);
			if (v->flags & MOD_CT_VF_CREATED) {
				verdict_from_conn(cfg, family, proto, c, v);
				return 0;
			}
			why = v->why;
			break;
		case CT_CLASS_UDP:
			if (proto == PROTO_UDPLITE && !udplite_ok(pkt, frame, frame_len))
				why = MOD_CT_WHY_UDPLITE;
			else
				state = MOD_CT_S_OPEN;
			break;
		case CT_CLASS_ICMP:
			if (icmp_is_request(family, pkt->icmp_type))
				state = MOD_CT_S_OPEN;
			else if (family == FC_AF_INET6 && icmp6_is_untracked(pkt->icmp_type))
				ctstate = 0;
			else /* an unsolicited reply, or an error that relates to nothing */
				why = MOD_CT_WHY_ICMP;
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
	memset(c, 0, sizeof(*c));
	memset(v, 0, sizeof(*v));
	v->ctstate = ctstate;
	v->timeout = mod_ct_timeout(cfg, family, proto, c);
	if (ctstate == RULE_CT_INVALID) {
		v->why = why;
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
	return icmp_is_reply(family, pkt->icmp_type);
}

int
mod_ct_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v)
{
	struct mod_ct_verdict before;
	uint8_t family, proto, state, flags;
	enum ct_class cls;

	if (cfg == NULL || c == NULL || pkt == NULL || v == NULL || !pkt_proto(pkt, &proto) ||
	    dir > MOD_CT_DIR_REPLY || !ct_conn_valid(c) || c->state == MOD_CT_S_NONE)
		return -EINVAL;
	family = pkt->key.family;
	cls = ct_proto_class(family, proto);
	if (!ct_state_fits(cls, c->state))
		return -EINVAL;

	memset(v, 0, sizeof(*v));
	verdict_from_conn(cfg, family, proto, c, &before);
	state = c->state;
	flags = c->flags;
	if (cls == CT_CLASS_TCP) {
		ct_tcp_packet(cfg, c, dir, pkt, frame, frame_len, v);
		if (v->flags & MOD_CT_VF_REOPEN) {
			v->timeout = before.timeout;
			memcpy(v->interest, before.interest, sizeof(v->interest));
			return 0;
		}
	} else if (cls == CT_CLASS_SCTP) {
		ct_sctp_packet(cfg, c, dir, pkt, frame, frame_len, v);
	} else if (proto == PROTO_UDPLITE && pkt->frag != FC_FRAG_LATER &&
		   !udplite_ok(pkt, frame, frame_len)) {
		v->ctstate = RULE_CT_INVALID;
		v->why = MOD_CT_WHY_UDPLITE;
	} else if (other_valid(cls, family, dir, pkt)) {
		v->ctstate = ct_pkt_ctstate(c, dir);
		if (dir == MOD_CT_DIR_REPLY)
			c->flags |= MOD_CT_C_REPLIED;
	} else {
		v->ctstate = RULE_CT_INVALID;
		v->why = MOD_CT_WHY_ICMP;
	}

	verdict_from_conn(cfg, family, proto, c, v);
	if (c->state != state || c->flags != flags || v->timeout != before.timeout ||
		memcmp(v->interest, before.interest, sizeof(v->interest)) != 0)
		v->flags |= MOD_CT_VF_CHANGED;
	if ((c->flags ^ flags) & MOD_CT_C_REPLIED)
		v->flags |= MOD_CT_VF_CTSTATE;
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
	case PROTO_UDPLITE:
	case PROTO_SCTP:
	case PROTO_DCCP:
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
		/* As fc_parse() keys it: type << 8 | code (network order), the query's id. */
		*dport = rd16(p + off);
		*sport = fc_icmp_has_id(family, type) ? rd16(p + off + 4) : 0;
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
	[MOD_CT_S_SCTP_CLOSED] = "CLOSED",
	[MOD_CT_S_SCTP_COOKIE_WAIT] = "COOKIE_WAIT",
	[MOD_CT_S_SCTP_COOKIE_ECHOED] = "COOKIE_ECHOED",
	[MOD_CT_S_SCTP_ESTABLISHED] = "ESTABLISHED",
	[MOD_CT_S_SCTP_SHUTDOWN_SENT] = "SHUTDOWN_SENT",
	[MOD_CT_S_SCTP_SHUTDOWN_RECD] = "SHUTDOWN_RECD",
	[MOD_CT_S_SCTP_SHUTDOWN_ACK_SENT] = "SHUTDOWN_ACK_SENT",
	[MOD_CT_S_SCTP_HEARTBEAT_SENT] = "HEARTBEAT_SENT",
};

const char *
mod_ct_state_name(unsigned int state)
{
	if (state >= MOD_CT_S__COUNT)
		return "?";
	return state_names[state];
}

/* Append to @p buf (@p n used of @p len); @return the new length, -ENOSPC or -EINVAL. */
static int
fmt_add(size_t len, int n, int m)
{
	if (n < 0 || m < 0)
		return -EINVAL;
	if ((size_t)n + (size_t)m >= len)
		return -ENOSPC;
	return n + m;
}

int
mod_ct_conn_format(const struct mod_ct_conn *c, char *buf, size_t len)
{
	const struct mod_ct_tcp *t;
	int n;

	if (c == NULL || buf == NULL || len == 0 || !ct_conn_valid(c))
		return -EINVAL;
	n = fmt_add(len, 0,
		snprintf(buf, len, "%s %s%s%s%s%s%s%s", state_names[c->state],
			(c->flags & MOD_CT_C_REPLIED) ? "replied" : "unreplied",
			(c->flags & MOD_CT_C_ASSURED) ? " assured" : "",
			(c->flags & MOD_CT_C_PICKUP) ? " pickup" : "",
			c->helper != 0 ? " helper=" : "", mod_ct_helper_name(c->helper),
			c->master_helper != 0 ? " expected=" : "",
			mod_ct_helper_name(c->master_helper)));
	if (n >= 0 && ct_is_sctp_state(c->state))
		return fmt_add(len, n,
			snprintf(buf + n, len - (size_t)n, " vtag=[orig=%08" PRIx32 " reply=%08" PRIx32 "]",
				c->sctp.vtag[0], c->sctp.vtag[1]));
	if (n < 0 || !ct_is_tcp_state(c->state))
		return n;
	t = &c->tcp;
	n = fmt_add(len, n, snprintf(buf + n, len - (size_t)n, " retrans=%u", t->retrans));
	for (unsigned int d = 0; d < 2 && n >= 0; d++) {
		const struct mod_ct_tcp_side *sd = &t->side[d];

		n = fmt_add(len, n,
			snprintf(buf + n, len - (size_t)n,
				" %s=[end=%" PRIu32 " maxend=%" PRIu32 " maxwin=%" PRIu32
				" scale=%u%s%s]",
				d == 0 ? "orig" : "reply", sd->end, sd->maxend, sd->maxwin, sd->scale,
				(sd->flags & MOD_CT_TS_LIBERAL) ? " liberal" : "",
				(sd->flags & MOD_CT_TS_SACK_PERM) ? " sack" : ""));
	}
	return n;
}
