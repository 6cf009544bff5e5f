/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/conntrack.c — the conntrack module's core:
 * connections of UDP, ICMP echo and other protocols, the
 * dispatch to the TCP machine (ct_tcp.c), timeouts and interest masks,
 * the key of the packet an ICMP error quotes (for RELATED); its
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

static bool
conn_valid(const struct mod_ct_conn *c)
{
	return c->state < MOD_CT_S__COUNT && (c->flags & ~MOD_CT_C_ALL) == 0;
}

unsigned int
mod_ct_conn_ctstate(const struct mod_ct_conn *c, unsigned int dir)
{
	if (c->state == MOD_CT_S_NONE || !conn_valid(c))
		return 0;
	return ct_pkt_ctstate(c, dir);
}

uint32_t
mod_ct_timeout(const struct mod_ct_cfg *cfg, uint8_t family, uint8_t proto,
	const struct mod_ct_conn *c)
{
	bool replied = (c->flags & MOD_CT_C_REPLIED) != 0;

	if (cfg == NULL || c == NULL || !conn_valid(c))
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
	if (cfg == NULL || c == NULL || c->state == MOD_CT_S_NONE || !conn_valid(c) ||
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
	    dir > MOD_CT_DIR_REPLY || !conn_valid(c) || c->state == MOD_CT_S_NONE)
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
/* The fast path's line                                                      */
/* ------------------------------------------------------------------------ */

/*
 * mod_ct_fast_fold() of a line armed for the SYN/ACK, into a record not
 * replied yet: nothing if the fast path has not taken it (nothing else
 * moves before it); else the reply side as mod_ct_fast_synack() set it up
 * (moved on since by the segments the fast path passed, which the rest of
 * the fold reads), the opener's edge, the record replied (both scales
 * come with the line). @return whether it took it.
 */
static __rte_noinline bool
fold_synack(struct mod_ct_conn *c, const struct mod_ct_fast_line *l)
{
	struct mod_ct_tcp_side *o = &c->tcp.side[MOD_CT_DIR_ORIG], *r = &c->tcp.side[MOD_CT_DIR_REPLY];
	uint8_t cf = __atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE);

	if (!(cf & MOD_CT_FAST_REPLIED))
		return false;
	r->end = MOD_CT_LD(l->fp_end[MOD_CT_DIR_REPLY]);
	r->maxend = MOD_CT_LD(l->fp_edge[MOD_CT_DIR_ORIG]);
	r->maxwin = MOD_CT_LD(l->fp_win[MOD_CT_DIR_REPLY]);
	r->maxack = MOD_CT_LD(l->fp_ack[MOD_CT_DIR_REPLY]);
	r->flags = (uint8_t)(MOD_CT_TS_MAXACK |
		((cf & MOD_CT_FAST_R_SACK_PERM) ? MOD_CT_TS_SACK_PERM : 0) |
		((cf & MOD_CT_FAST_R_WSCALE) ? MOD_CT_TS_WSCALE : 0));
	o->maxend = MOD_CT_LD(l->fp_edge[MOD_CT_DIR_REPLY]);
	c->flags |= MOD_CT_C_REPLIED;
	return true;
}

void
mod_ct_fast_fold(struct mod_ct_conn *c, const struct mod_ct_fast_line *l)
{
	struct mod_ct_tcp *t = &c->tcp;
	uint8_t mode = MOD_CT_LD(l->mode);
	bool took = false;

	if (!(mode & MOD_CT_FAST_M_ARMED))
		return;
	if (unlikely(mode & MOD_CT_FAST_M_SYNACK) && !(c->flags & MOD_CT_C_REPLIED)) {
		took = fold_synack(c, l);
		if (!took)
			return;
	}
	for (unsigned int d = 0; d < 2; d++) {
		struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];
		uint32_t end = MOD_CT_LD(l->fp_end[d]), edge = MOD_CT_LD(l->fp_edge[d]);
		uint32_t ack = MOD_CT_LD(l->fp_ack[d]), win = MOD_CT_LD(l->fp_win[d]);

		if (mod_ct_seq_after(end, s->end))
			s->end = end;
		if (mod_ct_seq_after(edge, r->maxend))
			r->maxend = edge;
		if (MOD_CT_LD(l->fp_seen[d]) != 0 &&
			(!(s->flags & MOD_CT_TS_MAXACK) || mod_ct_seq_after(ack, s->maxack))) {
			s->maxack = ack;
			s->flags |= MOD_CT_TS_MAXACK;
		}
		if (win > s->maxwin)
			s->maxwin = win;
	}
	/* Data outstanding, as the segments the fast path passed left it. */
	for (unsigned int d = 0; d < 2; d++)
		t->side[d].flags = (uint8_t)((t->side[d].flags & ~MOD_CT_TS_UNACKED) |
			(((MOD_CT_LD(l->fp_unacked) >> d) & 1) ? MOD_CT_TS_UNACKED : 0));
	/* Linux's memory of the last segment and the retransmissions in a
	 * row: the line holds them (armed with the record's). */
	t->last_dir = MOD_CT_LD(l->fp_ldir);
	t->last_index = MOD_CT_LD(l->fp_lidx);
	t->last_seq = MOD_CT_LD(l->fp_lseq);
	t->last_ack = MOD_CT_LD(l->fp_lack);
	t->last_end = MOD_CT_LD(l->fp_lend);
	t->last_win = MOD_CT_LD(l->fp_lwin);
	t->retrans = MOD_CT_LD(l->fp_retrans);
	if (mode & MOD_CT_FAST_M_ST_OK) {
		uint8_t cf = MOD_CT_LD(l->fp_cflags);

		c->state = MOD_CT_LD(l->fp_state);
		/* The SYN/ACK's bit is set before its state moves. */
		if (unlikely(took) && c->state == MOD_CT_S_SYN_SENT)
			c->state = MOD_CT_S_SYN_RECV;
		if (cf & MOD_CT_FAST_ASSURED)
			c->flags |= MOD_CT_C_ASSURED;
		for (unsigned int d = 0; d < 2; d++)
			if (cf & (MOD_CT_FAST_CLOSE_INIT << d))
				t->side[d].flags |= MOD_CT_TS_CLOSE_INIT;
	}
}

bool
mod_ct_fast_states(const struct mod_ct_conn *c, bool be_liberal)
{
	const struct mod_ct_tcp *t = &c->tcp;

	switch (c->state) {
	case MOD_CT_S_SYN_RECV:
		if (t->last_flags & MOD_CT_TS_SIMOPEN)
			return false; /* the reply side's ACK establishes it */
		break;
	case MOD_CT_S_ESTABLISHED:
	case MOD_CT_S_FIN_WAIT:
	case MOD_CT_S_CLOSE_WAIT:
	case MOD_CT_S_LAST_ACK:
	case MOD_CT_S_TIME_WAIT:
	case MOD_CT_S_CLOSE:
		break;
	default:
		return false;
	}
	return (c->flags & MOD_CT_C_REPLIED) && !be_liberal &&
		!((t->side[0].flags | t->side[1].flags) & MOD_CT_TS_LIBERAL) &&
		t->side[0].maxwin != 0 && t->side[1].maxwin != 0 && t->last_index != MOD_CT_TI_SYN;
}

/*
 * struct mod_ct_fast_line::rc_last_flags: struct mod_ct_tcp::last_flags
 * (the bits below) with last_wscale in bits 2-5.
 */
#define RC_LAST_FLAGS (MOD_CT_TS_WSCALE | MOD_CT_TS_SACK_PERM | MOD_CT_TS_CHALLENGE | \
	MOD_CT_TS_SIMOPEN)
#define RC_LAST_WSCALE_SHIFT 2
static_assert((RC_LAST_FLAGS & (0xfu << RC_LAST_WSCALE_SHIFT)) == 0 && FC_TCP_MAX_WSCALE <= 15,
	"last_flags and last_wscale share a byte");
static_assert((MOD_CT_C_ALL & MOD_CT_FAST_RC_PROTO) == 0,
	"the protocol's bits are free in the flags");

/* struct mod_ct_fast_line::rc_flags's bits for a record's protocol. */
static uint8_t
rc_proto(uint8_t proto)
{
	return proto == PROTO_TCP ? MOD_CT_FAST_RC_TCP : proto == PROTO_UDP ? MOD_CT_FAST_RC_UDP :
	       proto == PROTO_SCTP ? MOD_CT_FAST_RC_SCTP : 0;
}

/* A line's protocol, as rc_proto() stored it. */
static uint8_t
line_proto(const struct mod_ct_fast_line *l)
{
	return (l->rc_flags & MOD_CT_FAST_RC_TCP) ? PROTO_TCP :
	       (l->rc_flags & MOD_CT_FAST_RC_UDP) ? PROTO_UDP :
	       (l->rc_flags & MOD_CT_FAST_RC_SCTP) ? PROTO_SCTP : 0;
}
static_assert(MOD_CT_HELPER__COUNT <= 16, "two helpers share a byte");
static_assert(sizeof(struct mod_ct_fast_line) == RTE_CACHE_LINE_MIN_SIZE,
	"a connection's record is one cache line");

/* The mode's MOD_CT_FAST_M_MAXACK bits of connection @p c. */
static uint8_t
maxack_bits(const struct mod_ct_conn *c)
{
	uint8_t m = 0;

	for (unsigned int d = 0; d < 2; d++)
		if (c->tcp.side[d].flags & MOD_CT_TS_MAXACK)
			m |= (uint8_t)(MOD_CT_FAST_M_MAXACK << d);
	return m;
}

void
mod_ct_fast_store(struct mod_ct_fast_line *l, const struct mod_ct_conn *c)
{
	const struct mod_ct_tcp *t = &c->tcp;

	for (unsigned int d = 0; d < 2; d++) {
		const struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];

		MOD_CT_ST(l->scale[d], s->scale);
		MOD_CT_ST(l->fp_end[d], s->end);
		MOD_CT_ST(l->fp_edge[d], r->maxend);
		MOD_CT_ST(l->fp_ack[d], s->maxack);
		MOD_CT_ST(l->fp_win[d], s->maxwin);
		l->rc_sflags[d] = s->flags;
	}
	MOD_CT_ST(l->fp_lseq, t->last_seq);
	MOD_CT_ST(l->fp_lack, t->last_ack);
	MOD_CT_ST(l->fp_lend, t->last_end);
	MOD_CT_ST(l->fp_lwin, t->last_win);
	MOD_CT_ST(l->fp_ldir, t->last_dir);
	MOD_CT_ST(l->fp_lidx, t->last_index);
	MOD_CT_ST(l->fp_retrans, t->retrans);
	MOD_CT_ST(l->fp_seen[0], 0);
	MOD_CT_ST(l->fp_seen[1], 0);
	MOD_CT_ST(l->fp_state, c->state);
	/* Once held or taken, the SYN/ACK's step stays so (mod_ct_fast_hold()). */
	MOD_CT_ST(l->fp_cflags, MOD_CT_LD(l->fp_cflags) & MOD_CT_FAST_CLAIM);
	MOD_CT_ST(l->fp_unacked, (uint8_t)(((t->side[0].flags & MOD_CT_TS_UNACKED) ? 1u : 0u) |
					   ((t->side[1].flags & MOD_CT_TS_UNACKED) ? 2u : 0u)));
	/* An SCTP association: its tags where a TCP connection's ends are. */
	if (c->proto == PROTO_SCTP) {
		MOD_CT_ST(l->sctp_vtag[0], c->sctp.vtag[0]);
		MOD_CT_ST(l->sctp_vtag[1], c->sctp.vtag[1]);
		l->rc_sflags[0] = c->sctp.flags;
	}
	/* The rest, which the fast path never reads. */
	l->rc_state = c->state;
	l->rc_flags = (uint8_t)(c->flags | rc_proto(c->proto));
	l->rc_helper = (uint8_t)((c->helper & 0xf) | (c->master_helper << 4));
	l->rc_last_flags = (uint8_t)((t->last_flags & RC_LAST_FLAGS) |
		(t->last_wscale << RC_LAST_WSCALE_SHIFT));
	l->rc_retrans = t->retrans;
	MOD_CT_ST(l->mode, (uint8_t)((l->mode & ~(3u * MOD_CT_FAST_M_MAXACK | MOD_CT_FAST_M_SYNACK |
						    MOD_CT_FAST_M_WSCALE0)) | maxack_bits(c)));
}

void
mod_ct_fast_arm(struct mod_ct_fast_line *l, const struct mod_ct_conn *c, bool armed,
	bool be_liberal)
{
	uint8_t mode = 0;

	if (c == NULL) {
		MOD_CT_ST(l->mode, 0);
		return;
	}
	mod_ct_fast_store(l, c);
	mode = maxack_bits(c);
	if (armed) {
		mode |= MOD_CT_FAST_M_ARMED;
		if (mod_ct_fast_states(c, be_liberal))
			mode |= MOD_CT_FAST_M_ST_OK;
		/* The SYN/ACK to take: then the state's mover (SYN_RECV is). */
		if (mod_ct_fast_synack_ok(c, be_liberal))
			mode |= (uint8_t)(MOD_CT_FAST_M_SYNACK | MOD_CT_FAST_M_ST_OK |
				((c->tcp.side[MOD_CT_DIR_ORIG].flags & MOD_CT_TS_WSCALE) ?
					MOD_CT_FAST_M_WSCALE0 : 0));
		/* A new connection's step to take (its entries name the line after). */
		if (mode & MOD_CT_FAST_M_SYNACK)
			MOD_CT_ST(l->fp_cflags, 0);
		for (unsigned int d = 0; d < 2; d++)
			if (be_liberal || (c->tcp.side[d].flags & MOD_CT_TS_LIBERAL))
				mode |= (uint8_t)(MOD_CT_FAST_M_LIBERAL << d);
	}
	MOD_CT_ST(l->mode, mode);
}

void
mod_ct_fast_load(const struct mod_ct_fast_line *l, struct mod_ct_conn *c, bool fold)
{
	struct mod_ct_tcp *t = &c->tcp;

	memset(c, 0, sizeof(*c));
	c->state = l->rc_state;
	c->flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c->proto = line_proto(l);
	c->helper = l->rc_helper & 0xf;
	c->master_helper = l->rc_helper >> 4;
	/*
	 * The windows and the memory of the last segment as the line holds
	 * them: what was stored, or (armed) the fast path's progress since,
	 * which only moves them forward (what folding them makes of them).
	 */
	for (unsigned int d = 0; d < 2; d++) {
		struct mod_ct_tcp_side *s = &t->side[d], *r = &t->side[d ^ 1];

		s->scale = MOD_CT_LD(l->scale[d]);
		s->end = MOD_CT_LD(l->fp_end[d]);
		r->maxend = MOD_CT_LD(l->fp_edge[d]);
		s->maxack = MOD_CT_LD(l->fp_ack[d]);
		s->maxwin = MOD_CT_LD(l->fp_win[d]);
		s->flags = l->rc_sflags[d];
	}
	t->last_seq = MOD_CT_LD(l->fp_lseq);
	t->last_ack = MOD_CT_LD(l->fp_lack);
	t->last_end = MOD_CT_LD(l->fp_lend);
	t->last_win = MOD_CT_LD(l->fp_lwin);
	t->last_dir = MOD_CT_LD(l->fp_ldir);
	t->last_index = MOD_CT_LD(l->fp_lidx);
	t->retrans = l->rc_retrans;
	t->last_flags = l->rc_last_flags & RC_LAST_FLAGS;
	t->last_wscale = (uint8_t)((l->rc_last_flags >> RC_LAST_WSCALE_SHIFT) & 0xf);
	if (c->proto == PROTO_SCTP) {
		/* No window tracking: the line's first words are the tags. */
		memset(t, 0, sizeof(*t));
		c->sctp.vtag[0] = MOD_CT_LD(l->sctp_vtag[0]);
		c->sctp.vtag[1] = MOD_CT_LD(l->sctp_vtag[1]);
		c->sctp.flags = l->rc_sflags[0];
		return;
	}
	if (fold)
		mod_ct_fast_fold(c, l);
}

void
mod_ct_fast_peek(const struct mod_ct_fast_line *l, struct mod_ct_conn *c)
{
	uint8_t mode = MOD_CT_LD(l->mode);
	bool took = false;

	/* mod_ct_fast_load()'s scalar fields, then what mod_ct_fast_fold() moves of them. */
	c->state = l->rc_state;
	c->flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c->proto = line_proto(l);
	c->helper = l->rc_helper & 0xf;
	c->master_helper = l->rc_helper >> 4;
	/* An SCTP association's line is never folded (mod_ct_fast_load()). */
	if (c->proto == PROTO_SCTP)
		return;
	/* Armed for the SYN/ACK: nothing moved before the fast path took it;
	 * then it is replied (and SYN_RECV, below). */
	if (unlikely((mode & (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_SYNACK)) ==
		    (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_SYNACK)) &&
		!(c->flags & MOD_CT_C_REPLIED)) {
		if (!(__atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE) & MOD_CT_FAST_REPLIED))
			return;
		c->flags |= MOD_CT_C_REPLIED;
		took = true;
	}
	if ((mode & (MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_ST_OK)) ==
		(MOD_CT_FAST_M_ARMED | MOD_CT_FAST_M_ST_OK)) {
		c->state = MOD_CT_LD(l->fp_state);
		if (unlikely(took) && c->state == MOD_CT_S_SYN_SENT)
			c->state = MOD_CT_S_SYN_RECV;
		if (MOD_CT_LD(l->fp_cflags) & MOD_CT_FAST_ASSURED)
			c->flags |= MOD_CT_C_ASSURED;
	}
}

uint32_t
mod_ct_fast_tcp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_fast_line *l)
{
	uint8_t mode = MOD_CT_LD(l->mode);
	bool folded = (mode & MOD_CT_FAST_M_ARMED) != 0;
	uint8_t unacked;
	struct mod_ct_conn c;

	/*
	 * What ct_tcp_timeout() reads of the folded load: the state and the
	 * flags (mod_ct_fast_peek()), the retransmissions in a row, the data
	 * outstanding and the last window. A line armed for the SYN/ACK the
	 * fast path has not taken folds nothing (mod_ct_fast_fold()).
	 */
	mod_ct_fast_peek(l, &c);
	if (folded && (mode & MOD_CT_FAST_M_SYNACK) &&
		!(l->rc_flags & MOD_CT_C_REPLIED) &&
		!(__atomic_load_n(&l->fp_cflags, __ATOMIC_ACQUIRE) & MOD_CT_FAST_REPLIED))
		folded = false;
	c.proto = PROTO_TCP;
	c.tcp.last_win = MOD_CT_LD(l->fp_lwin);
	if (folded) {
		c.tcp.retrans = MOD_CT_LD(l->fp_retrans);
		unacked = MOD_CT_LD(l->fp_unacked);
		c.tcp.side[0].flags = (unacked & 1) ? MOD_CT_TS_UNACKED : 0;
		c.tcp.side[1].flags = (unacked & 2) ? MOD_CT_TS_UNACKED : 0;
	} else {
		c.tcp.retrans = l->rc_retrans;
		c.tcp.side[0].flags = l->rc_sflags[0];
		c.tcp.side[1].flags = l->rc_sflags[1];
	}
	return mod_ct_timeout(cfg, FC_AF_INET4, PROTO_TCP, &c);
}

unsigned int
mod_ct_fast_ctstate(const struct mod_ct_fast_line *l, unsigned int dir)
{
	struct mod_ct_conn c;

	/* What mod_ct_conn_ctstate() reads, as mod_ct_fast_load() makes it. */
	c.state = l->rc_state;
	c.flags = (uint8_t)(l->rc_flags & ~MOD_CT_FAST_RC_PROTO);
	c.master_helper = l->rc_helper >> 4;
	if (c.state == MOD_CT_S_NONE || !conn_valid(&c))
		return 0;
	return ct_pkt_ctstate(&c, dir);
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

	if (c == NULL || buf == NULL || len == 0 || !conn_valid(c))
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
