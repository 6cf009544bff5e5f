/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_conntrack.c — the conntrack module's core
 * (lib/modules/conntrack/conntrack.c): the pure state machines of UDP,
 * ICMP and other protocols, configuration, encoding and names, no EAL.
 * TCP has its own test (test_ct_tcp.c).
 *
 * ICMP error quoting is checked against the parser (the quoted key must be
 * what fc_parse() gives for the quoted packet) on built frames, with
 * truncation sweeps over exactly sized heap copies so that ASan catches
 * any read past the end.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include "pkt_build.h"
#include "conntrack.h"
#include "engine.h"

#include "ct_short.h"

/* ctstates, short. */
#define NEW RULE_CT_NEW
#define EST RULE_CT_ESTABLISHED
#define INV RULE_CT_INVALID

/* Verdict flags, short. */
#define V_CH MOD_CT_VF_CHANGED
#define V_CT MOD_CT_VF_CTSTATE
#define V_CL MOD_CT_VF_CLOSED
#define V_RO MOD_CT_VF_REOPEN

/* Interest masks, short. */
#define I_B (FC_INTEREST_TCP_SYN | FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST)
#define I_A FC_INTEREST_ALL

#define AF4 FC_AF_INET4
#define AF6 FC_AF_INET6

/* Does the engine upcall this packet of an entry with interest @p i (rule_engine_wants())? */
static bool
wants(uint16_t i, const struct fc_pkt *p)
{
	struct fc_action a;

	memset(&a, 0, sizeof(a));
	a.interest = i;
	return rule_engine_wants(&a, p);
}

#define FRAME_MAX 2048

#define P_ICMP	 PB_PROTO_ICMP
#define P_TCP	 PB_PROTO_TCP
#define P_UDP	 PB_PROTO_UDP
#define P_GRE	 PB_PROTO_GRE
#define P_ICMPV6 PB_PROTO_ICMPV6
#define P_SCTP	 PB_PROTO_SCTP

static const uint8_t v6_a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t v6_b[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0x10, [15] = 0x02};
static const uint8_t v6_r[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0xff, [15] = 0xfe};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct mod_ct_cfg
cfg_make(bool strict)
{
	struct mod_ct_cfg cfg;

	mod_ct_cfg_init(&cfg);
	cfg.tcp_strict = strict;
	return cfg;
}

/* A parsed packet as the engine would pass it (only what conntrack reads matters). */
static struct fc_pkt
mkpkt(uint8_t family, uint8_t proto, uint8_t tcp_flags, uint8_t icmp_type)
{
	struct fc_pkt p;

	memset(&p, 0, sizeof(p));
	p.key.family = family;
	if (family == AF4) {
		p.key.v4.src = 0x010200c0; /* any addresses: conntrack does not read them */
		p.key.v4.dst = 0x076433c6;
		p.key.v4.proto = proto;
		p.l4_off = 34;
	} else {
		memcpy(p.key.v6.src, v6_a, 16);
		memcpy(p.key.v6.dst, v6_b, 16);
		p.key.v6.proto = proto;
		p.l4_off = 54;
	}
	p.l3_off = 14;
	if (proto == P_TCP)
		p.tcp_flags = tcp_flags;
	if ((family == AF4 && proto == P_ICMP) || (family == AF6 && proto == P_ICMPV6))
		p.icmp_type = icmp_type;
	return p;
}

static struct fc_pkt
tcp(uint8_t flags)
{
	return mkpkt(AF4, P_TCP, flags, 0);
}

/* ------------------------------------------------------------------------ */
/* UDP, ICMP, other protocols                                                */
/* ------------------------------------------------------------------------ */

static void
test_udp(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(true); /* strictness is TCP's business */
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p = mkpkt(AF4, P_UDP, 0, 0);

	(void)state;
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
	assert_int_equal(c.state, OP);
	assert_int_equal(v.ctstate, NEW);
	assert_int_equal(v.flags, MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED);
	assert_int_equal(v.timeout, 30000);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], I_A);

	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
	assert_int_equal(v.ctstate, NEW);
	assert_int_equal(v.flags, 0);
	assert_int_equal(v.timeout, 30000);

	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, V_CH | V_CT);
	assert_int_equal(v.timeout, 120000);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], 0);
	assert_int_equal(c.state, OP);
	assert_int_equal(c.flags, MOD_CT_C_REPLIED);

	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, 0);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(v.flags, 0);

	/* IPv6 alike, and the configured timeouts are used. */
	cfg.timeout[MOD_CT_TO_UDP] = 11;
	cfg.timeout[MOD_CT_TO_UDP_REPLIED] = 22;
	p = mkpkt(AF6, P_UDP, 0, 0);
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
	assert_int_equal(v.timeout, 11);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
	assert_int_equal(v.timeout, 22);
}

static void
test_generic(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;
	static const struct {
		uint8_t family, proto;
	} cases[] = {{AF4, P_GRE}, {AF6, 33}, {AF4, 50}, {AF6, P_ICMP}, {AF4, P_ICMPV6}};

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		p = mkpkt(cases[i].family, cases[i].proto, 0, 0);
		assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
		assert_int_equal(c.state, OP);
		assert_int_equal(v.ctstate, NEW);
		assert_int_equal(v.timeout, 600000);
		assert_int_equal(v.interest[R], I_A);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, EST);
		assert_int_equal(v.flags, V_CH | V_CT);
		assert_int_equal(v.timeout, 600000);
		assert_int_equal(v.interest[O], 0);
		assert_int_equal(v.interest[R], 0);
	}
}

struct icmp_case {
	const char *name;
	uint8_t family;
	uint8_t type;
	uint8_t created; /* 1: a connection */
	uint8_t ctstate; /* of the first packet */
};

static const struct icmp_case icmp_new_cases[] = {
	{"echo request", AF4, 8, 1, NEW},
	{"timestamp request", AF4, 13, 1, NEW},
	{"information request", AF4, 15, 1, NEW},
	{"address mask request", AF4, 17, 1, NEW},
	{"unsolicited echo reply", AF4, 0, 0, INV},
	{"unsolicited timestamp reply", AF4, 14, 0, INV},
	{"destination unreachable", AF4, 3, 0, INV},
	{"time exceeded", AF4, 11, 0, INV},
	{"router advertisement", AF4, 9, 0, INV},
	{"v6 echo request", AF6, 128, 1, NEW},
	{"v6 node information query", AF6, 139, 1, NEW},
	{"v6 unsolicited echo reply", AF6, 129, 0, INV},
	{"v6 packet too big", AF6, 2, 0, INV},
	{"v6 MLD query", AF6, 130, 0, 0},
	{"v6 router solicitation", AF6, 133, 0, 0},
	{"v6 neighbour solicitation", AF6, 135, 0, 0},
	{"v6 neighbour advertisement", AF6, 136, 0, 0},
	{"v6 MLDv2 report", AF6, 143, 0, 0},
	{"v6 multicast router advertisement", AF6, 151, 0, 0},
	{"v6 multicast router solicitation", AF6, 152, 0, 0},
	{"v6 multicast router termination", AF6, 153, 0, INV},
	{"v6 inverse ND solicitation", AF6, 141, 0, INV},
	{"v6 redirect", AF6, 137, 0, INV},
};

static void
test_icmp_new(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(icmp_new_cases); i++) {
		const struct icmp_case *t = &icmp_new_cases[i];

		print_message("  %s\n", t->name);
		p = mkpkt(t->family, t->family == AF4 ? P_ICMP : P_ICMPV6, 0, t->type);
		assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
		assert_int_equal(v.ctstate, t->ctstate);
		assert_int_equal(!!(v.flags & MOD_CT_VF_CREATED), t->created);
		assert_int_equal(c.state, t->created ? OP : NO);
		assert_int_equal(v.timeout, 30000);
		if (t->created) {
			assert_int_equal(v.interest[O], 0);
			assert_int_equal(v.interest[R], I_A);
		} else if (t->ctstate == 0) {
			/* Untracked is a stable answer for the tuple. */
			assert_int_equal(v.interest[O], 0);
			assert_int_equal(v.interest[R], 0);
		} else {
			assert_int_equal(v.interest[O], I_A);
			assert_int_equal(v.interest[R], I_A);
		}
	}
}

static void
test_icmp_echo(void **state)
{
	static const uint8_t req[2] = {8, 128}, rep[2] = {0, 129};
	static const uint8_t fam[2] = {AF4, AF6}, proto[2] = {P_ICMP, P_ICMPV6};
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
		assert_int_equal(v.ctstate, NEW);
		/* Another request (next sequence number). */
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, NEW);
		assert_int_equal(v.flags, 0);
		/* Wrong types in either direction. */
		p = mkpkt(fam[i], proto[i], 0, rep[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, INV);
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, INV);
		assert_int_equal(v.flags, 0);
		assert_int_equal(c.flags, 0);
		/* The reply. */
		p = mkpkt(fam[i], proto[i], 0, rep[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, EST);
		assert_int_equal(v.flags, V_CH | V_CT);
		assert_int_equal(v.timeout, 30000);
		assert_int_equal(v.interest[O], 0);
		assert_int_equal(v.interest[R], 0);
		p = mkpkt(fam[i], proto[i], 0, req[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, EST);
	}
}

/* Timestamp, information and address mask queries pair as echo does (Linux's invmap). */
static void
test_icmp_queries(void **state)
{
	static const uint8_t req[] = {13, 15, 17}, rep[] = {14, 16, 18};
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(req); i++) {
		p = mkpkt(AF4, P_ICMP, 0, req[i]);
		assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
		assert_int_equal(v.ctstate, NEW);
		assert_int_equal(v.interest[R], I_A);
		/* A request the other way, a reply this way: INVALID. */
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, INV);
		assert_int_equal(v.why, MOD_CT_WHY_ICMP);
		p = mkpkt(AF4, P_ICMP, 0, rep[i]);
		assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, INV);
		/* The reply. */
		assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, NULL, 0, &v), 0);
		assert_int_equal(v.ctstate, EST);
		assert_int_equal(v.flags, V_CH | V_CT);
		assert_int_equal(v.interest[R], 0);
	}
}

/* An IPv4 SCTP frame: verification tag @p vtag, then @p n bytes of chunks @p ch. */
static struct fc_pkt
sctp_pkt(uint32_t vtag, const uint8_t *ch, uint32_t n, uint8_t *f, uint32_t *len)
{
	struct pb_ipv4 ip = {.src = 0xc0000201, .dst = 0xc6336407};
	struct fc_pkt p;
	struct pb b;
	int k;

	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_sctp(&b, 5000, 36412, vtag);
	pb_payload(&b, ch, n);
	k = pb_finish(&b);
	assert_true(k > 0);
	*len = (uint32_t)k;
	assert_int_equal(fc_parse(f, *len, &p), FC_PARSE_OK);
	return p;
}

/*
 * SCTP: a packet of no connection starts one only as Linux's SCTP tracker
 * lets it (an INIT alone with verification tag 0, a HEARTBEAT, COOKIE ECHO
 * first with tag 0, ...), in the state its chunks move NONE to; DATA,
 * ABORT, COOKIE ACK, SHUTDOWN COMPLETE, an INIT with a tag or other
 * chunks, a chunk of length 0, no chunk are INVALID (the kernel agrees:
 * regress sctp.conv, netfilter-oracle runs of such first packets).
 */
static void
test_sctp_start(void **state)
{
	/* INIT: type, flags, length 20, initiate tag, a_rwnd, streams, TSN */
#define INIT 1, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0x10, 0, 0, 1, 0, 1, 0, 0, 0, 1
#define INIT_ACK 2, 0, 0, 20, 0, 0, 0, 9, 0, 0, 0x10, 0, 0, 1, 0, 1, 0, 0, 0, 1
	static const struct {
		const char *name;
		uint32_t vtag;
		uint8_t ch[40];
		uint32_t n;
		uint8_t ctstate;
		uint8_t st; /* the state, or why INVALID */
	} cases[] = {
		{"init", 0, {INIT}, 20, NEW, MOD_CT_S_SCTP_CLOSED},
		{"init with a tag", 7, {INIT}, 20, INV, MOD_CT_WHY_SCTP},
		{"init cut", 0, {1, 0, 0, 20, 0, 0, 0, 1}, 8, INV, MOD_CT_WHY_SCTP},
		{"init and data", 0, {INIT, 0, 3, 0, 8, 1, 2, 3, 4}, 28, INV, MOD_CT_WHY_SCTP},
		{"init ack", 0, {INIT_ACK}, 20, NEW, MOD_CT_S_SCTP_CLOSED},
		{"init ack with a tag", 9, {INIT_ACK}, 20, INV, MOD_CT_WHY_SCTP_VTAG},
		{"data", 7, {0, 3, 0, 8, 1, 2, 3, 4}, 8, INV, MOD_CT_WHY_SCTP},
		{"sack", 7, {3, 0, 0, 4}, 4, INV, MOD_CT_WHY_SCTP},
		{"heartbeat", 7, {4, 0, 0, 8, 0, 1, 0, 4}, 8, NEW, MOD_CT_S_SCTP_HEARTBEAT_SENT},
		{"heartbeat ack", 7, {5, 0, 0, 8, 0, 1, 0, 4}, 8, NEW, MOD_CT_S_SCTP_CLOSED},
		{"cookie echo, data", 0, {10, 0, 0, 8, 1, 2, 3, 4, 0, 3, 0, 4}, 12, INV,
			MOD_CT_WHY_SCTP},
		{"cookie echo", 0, {10, 0, 0, 8, 1, 2, 3, 4}, 8, NEW, MOD_CT_S_SCTP_CLOSED},
		{"cookie echo with a tag", 7, {10, 0, 0, 8, 1, 2, 3, 4}, 8, INV,
			MOD_CT_WHY_SCTP_VTAG},
		{"heartbeat, cookie echo", 7, {4, 0, 0, 4, 10, 0, 0, 4}, 8, INV, MOD_CT_WHY_SCTP},
		{"abort", 7, {6, 0, 0, 4}, 4, INV, MOD_CT_WHY_SCTP},
		{"cookie ack", 7, {11, 0, 0, 4}, 4, INV, MOD_CT_WHY_SCTP},
		{"shutdown complete", 7, {14, 0, 0, 4}, 4, INV, MOD_CT_WHY_SCTP},
		{"shutdown ack", 7, {8, 0, 0, 4}, 4, NEW, MOD_CT_S_SCTP_SHUTDOWN_ACK_SENT},
		{"shutdown", 0, {7, 0, 0, 8, 0, 0, 0, 1}, 8, NEW, MOD_CT_S_SCTP_CLOSED},
		{"shutdown with a tag", 7, {7, 0, 0, 8, 0, 0, 0, 1}, 8, INV, MOD_CT_WHY_SCTP_VTAG},
		{"error with a tag", 5, {9, 0, 0, 4}, 4, INV, MOD_CT_WHY_SCTP_VTAG},
		{"length 0", 7, {4, 0, 0, 0}, 4, INV, MOD_CT_WHY_SCTP},
		{"no chunk", 7, {0}, 0, INV, MOD_CT_WHY_SCTP},
	};
#undef INIT
#undef INIT_ACK
	struct mod_ct_cfg cfg = cfg_make(false);
	uint8_t f[FRAME_MAX];
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	uint32_t len;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		print_message("  %s\n", cases[i].name);
		p = sctp_pkt(cases[i].vtag, cases[i].ch, cases[i].n, f, &len);
		assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
		assert_int_equal(v.ctstate, cases[i].ctstate);
		if (cases[i].ctstate == INV) {
			assert_int_equal(v.why, cases[i].st);
			assert_int_equal(c.state, NO);
		} else {
			assert_int_equal(c.state, cases[i].st);
			assert_int_equal(c.proto, P_SCTP);
		}
	}
}

/* An SCTP packet of tag @p vtag whose chunks are @p spec: one letter a chunk. */
static struct fc_pkt
sctp_chunks(uint32_t vtag, const char *spec, uint32_t tag, uint8_t *f, uint32_t *len)
{
	uint8_t ch[256];
	uint32_t n = 0;

	for (const char *k = spec; *k != '\0'; k++) {
		uint8_t type = 0, fl = 0;
		uint16_t clen = 8;

		switch (*k) {
		case 'I': type = 1; clen = 20; break;  /* INIT, Initiate Tag @p tag */
		case 'J': type = 2; clen = 20; break;  /* INIT ACK */
		case 'D': type = 0; clen = 20; break;  /* DATA */
		case 'S': type = 3; clen = 16; break;  /* SACK */
		case 'H': type = 4; break;             /* HEARTBEAT */
		case 'h': type = 5; break;             /* HEARTBEAT ACK */
		case 'A': type = 6; clen = 4; break;   /* ABORT */
		case 'a': type = 6; fl = 1; clen = 4; break; /* ABORT, T bit */
		case 'U': type = 7; break;             /* SHUTDOWN */
		case 'u': type = 8; clen = 4; break;   /* SHUTDOWN ACK */
		case 'E': type = 9; clen = 4; break;   /* ERROR */
		case 'C': type = 10; break;            /* COOKIE ECHO */
		case 'c': type = 11; clen = 4; break;  /* COOKIE ACK */
		case 'X': type = 14; clen = 4; break;  /* SHUTDOWN COMPLETE */
		case 'x': type = 14; fl = 1; clen = 4; break; /* ..., T bit */
		case 'F': type = 192; break;           /* FORWARD TSN: moves nothing */
		case '0': type = 0; clen = 0; break;   /* a DATA chunk of length 0 */
		default: fail();
		}
		memset(ch + n, 0, clen == 0 ? 8 : clen);
		ch[n] = type;
		ch[n + 1] = fl;
		ch[n + 2] = (uint8_t)(clen >> 8);
		ch[n + 3] = (uint8_t)clen;
		if (type == 1 || type == 2) {
			ch[n + 4] = (uint8_t)(tag >> 24);
			ch[n + 5] = (uint8_t)(tag >> 16);
			ch[n + 6] = (uint8_t)(tag >> 8);
			ch[n + 7] = (uint8_t)tag;
		}
		n += clen == 0 ? 8 : clen;
	}
	return sctp_pkt(vtag, ch, n, f, len);
}

/*
 * A whole SCTP association through the state machine, packet by packet,
 * as Linux's tracker (and regress sctp.conv against the kernel): the
 * handshake's states and tags, replies making it ESTABLISHED, ASSURED
 * on the COOKIE ACK, every packet's tag (wrong ones INVALID, the state
 * unmoved), stray chunks, the shutdown's states, SHUTDOWN COMPLETE and
 * ABORT with the T bit, a retransmitted INIT ignored; the timeout and the
 * interest masks of each state.
 */
static void
test_sctp_assoc(void **state)
{
	static const struct {
		unsigned int dir;
		uint32_t vtag;
		const char *chunks;
		uint32_t tag; /* an INIT's or INIT ACK's Initiate Tag */
		uint8_t ctstate, why;
		uint8_t st;   /* the state after it */
		uint32_t timeout;
	} seq[] = {
		{O, 0x11, "I", 0x1000, 0, 0, MOD_CT_S_SCTP_CLOSED, 10000}, /* (mod_ct_new) */
		{O, 0, "I", 0x1000, NEW, 0, MOD_CT_S_SCTP_CLOSED, 10000},  /* retransmitted: ignored */
		{R, 0x1000, "J", 0x2000, EST, 0, MOD_CT_S_SCTP_COOKIE_WAIT, 3000},
		{R, 0x1000, "J", 0x2001, EST, 0, MOD_CT_S_SCTP_COOKIE_WAIT, 3000}, /* init[orig] still set */
		/* The second INIT ACK's tag (0x2001) holds now. */
		{O, 0x2000, "C", 0, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_COOKIE_WAIT, 3000},
		{O, 0x2001, "CD", 0, EST, 0, MOD_CT_S_SCTP_COOKIE_ECHOED, 3000},
		{R, 0x1000, "c", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "D", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{R, 0x1000, "SD", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2000, "D", 0, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{R, 0x2001, "S", 0, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{R, 0x1000, "J", 0x3000, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "Dc", 0, INV, MOD_CT_WHY_SCTP, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "0", 0, INV, MOD_CT_WHY_SCTP, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "F", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "H", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{R, 0x1000, "h", 0, EST, 0, MOD_CT_S_SCTP_ESTABLISHED, 210000},
		{O, 0x2001, "U", 0, EST, 0, MOD_CT_S_SCTP_SHUTDOWN_SENT, 3000},
		{R, 0x1000, "u", 0, EST, 0, MOD_CT_S_SCTP_SHUTDOWN_ACK_SENT, 3000},
		{O, 0x1000, "X", 0, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_SHUTDOWN_ACK_SENT, 3000},
		{O, 0x1000, "x", 0, EST, 0, MOD_CT_S_SCTP_CLOSED, 10000}, /* T: the peer's tag */
		{R, 0x1000, "A", 0, EST, 0, MOD_CT_S_SCTP_CLOSED, 10000},
		{R, 0x1000, "a", 0, INV, MOD_CT_WHY_SCTP_VTAG, MOD_CT_S_SCTP_CLOSED, 10000},
		{O, 0, "I", 0x1001, EST, 0, MOD_CT_S_SCTP_CLOSED, 10000}, /* a new association */
		{R, 0x1001, "J", 0x2002, EST, 0, MOD_CT_S_SCTP_COOKIE_WAIT, 3000},
		{O, 0x2002, "C", 0, EST, 0, MOD_CT_S_SCTP_COOKIE_ECHOED, 3000},
		{R, 0x1001, "E", 0, EST, 0, MOD_CT_S_SCTP_CLOSED, 10000}, /* ERROR in COOKIE_ECHOED */
	};
	struct mod_ct_cfg cfg = cfg_make(false);
	uint8_t f[FRAME_MAX];
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	uint32_t len;

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(seq); i++) {
		print_message("  %u: %s %s\n", i, seq[i].dir == O ? ">" : "<", seq[i].chunks);
		p = sctp_chunks(seq[i].vtag, seq[i].chunks, seq[i].tag, f, &len);
		if (i == 0) {
			/* An INIT with a tag starts nothing; without, CLOSED. */
			assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
			assert_int_equal(v.ctstate, INV);
			p = sctp_chunks(0, "I", 0x1000, f, &len);
			assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
			assert_int_equal(v.ctstate, NEW);
			assert_int_equal(c.sctp.vtag[R], 0x1000);
			assert_int_equal(v.interest[O], FC_INTEREST_SCTP);
			assert_int_equal(v.interest[R], FC_INTEREST_ALL);
		} else {
			assert_int_equal(mod_ct_packet(&cfg, &c, seq[i].dir, &p, f, len, &v), 0);
			assert_int_equal(v.ctstate, seq[i].ctstate);
			if (v.ctstate == INV)
				assert_int_equal(v.why, seq[i].why);
			/* INITs in CLOSED renew nothing (Linux's "ignore"). */
			assert_int_equal(!!(v.flags & MOD_CT_VF_IGNORED), i == 1 || i == 23);
		}
		assert_int_equal(c.state, seq[i].st);
		assert_int_equal(v.timeout, seq[i].timeout);
		/* ASSURED from the COOKIE ACK on. */
		assert_int_equal(!!(c.flags & MOD_CT_C_ASSURED), i >= 6);
		if (i >= 2) {
			assert_true(c.flags & MOD_CT_C_REPLIED);
			assert_int_equal(v.interest[O], FC_INTEREST_SCTP);
			assert_int_equal(v.interest[R], FC_INTEREST_SCTP);
		}
	}
	assert_int_equal(c.sctp.vtag[O], 0x2002);
	assert_int_equal(c.sctp.vtag[R], 0x1001);
}

/*
 * A HEARTBEAT starts a secondary path's connection (HEARTBEAT_SENT, its
 * tag learnt from it, the reply's from the HEARTBEAT ACK, which makes it
 * ESTABLISHED); on an association, a HEARTBEAT with another tag passes,
 * ignored, and the HEARTBEAT ACK answering it with another tag takes it;
 * one bundled with DATA is INVALID.
 */
static void
test_sctp_heartbeat(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	uint8_t f[FRAME_MAX];
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;
	uint32_t len;

	(void)state;
	p = sctp_chunks(0x77, "H", 0, f, &len);
	assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
	assert_int_equal(c.state, MOD_CT_S_SCTP_HEARTBEAT_SENT);
	assert_int_equal(v.timeout, 30000);
	p = sctp_chunks(0x77, "D", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, NEW);
	p = sctp_chunks(0x88, "h", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(c.state, MOD_CT_S_SCTP_ESTABLISHED);
	assert_true(c.flags & MOD_CT_C_ASSURED);
	assert_int_equal(c.sctp.vtag[R], 0x88);

	/* Another path's tags on the association. */
	p = sctp_chunks(0x79, "HD", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, INV);
	p = sctp_chunks(0x89, "h", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, INV); /* no HEARTBEAT with another tag came first */
	p = sctp_chunks(0x79, "H", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_true(v.flags & MOD_CT_VF_IGNORED);
	assert_int_equal(c.sctp.vtag[O], 0x77);
	p = sctp_chunks(0x89, "h", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, INV); /* the same side as the HEARTBEAT */
	assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, f, len, &v), 0);
	assert_int_equal(v.ctstate, EST);
	assert_int_equal(c.sctp.vtag[R], 0x89);
	assert_int_equal(c.sctp.vtag[O], 0); /* learnt again from the next HEARTBEAT */
	p = sctp_chunks(0x79, "H", 0, f, &len);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, f, len, &v), 0);
	assert_int_equal(c.sctp.vtag[O], 0x79);
}

/*
 * The fast path's check (mod_ct_sctp_fast_check()) passes exactly the
 * packets the slow path accepts without moving anything: the entry's
 * direction's tag, chunks that move no state, none of length 0; a record
 * stored and loaded back keeps the tags.
 */
static void
test_sctp_fast(void **state)
{
	static const struct {
		unsigned int dir;
		uint32_t vtag;
		const char *chunks;
		bool pass;
	} cases[] = {
		{O, 0x2000, "D", true}, {O, 0x2000, "DSD", true}, {R, 0x1000, "S", true},
		{O, 0x2000, "F", true}, {O, 0x1000, "D", false}, {R, 0x2000, "S", false},
		{O, 0x2000, "DH", false}, {O, 0x2000, "U", false}, {O, 0x2000, "A", false},
		{O, 0x2000, "0", false}, {O, 0x2000, "", false}, {R, 0x1000, "c", false},
		{O, 0x2000, "C", false}, {R, 0x1000, "E", false}, {R, 0x1000, "J", false},
	};
	struct mod_ct_fast_line *lines = aligned_alloc(64, 2 * sizeof(*lines));
	struct mod_ct_fast *fast = calloc(1, sizeof(*fast));
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_conn c, back;
	struct mod_ct_verdict v;
	struct fc_action a;
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	uint32_t len;

	(void)state;
	assert_non_null(lines);
	assert_non_null(fast);
	memset(lines, 0, 2 * sizeof(*lines));
	fast->chunk[0] = lines;
	memset(&c, 0, sizeof(c));
	c.state = MOD_CT_S_SCTP_ESTABLISHED;
	c.flags = MOD_CT_C_REPLIED | MOD_CT_C_ASSURED;
	c.proto = P_SCTP;
	c.sctp.vtag[O] = 0x2000;
	c.sctp.vtag[R] = 0x1000;
	c.sctp.flags = MOD_CT_SC_INIT;
	mod_ct_fast_arm(&lines[1], &c, false, false);
	mod_ct_fast_load(&lines[1], &back, true);
	assert_memory_equal(&back, &c, sizeof(c));
	memset(&a, 0, sizeof(a));
	a.ct_state = MOD_CT_ENTRY_ID;
	a.ext = 1;
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		print_message("  %s %#x %s\n", cases[i].dir == O ? ">" : "<", cases[i].vtag,
			cases[i].chunks);
		p = sctp_chunks(cases[i].vtag, cases[i].chunks, 0x3000, f, &len);
		a.flags = cases[i].dir == R ? FC_ACT_F_REPLY : 0;
		assert_int_equal(mod_ct_sctp_fast_check(fast, &a, f + p.l4_off,
			(uint32_t)p.l3_off + p.ip_len - p.l4_off), cases[i].pass);
		/* What passes, the slow path accepts and moves nothing with. */
		back = c;
		assert_int_equal(mod_ct_packet(&cfg, &back, cases[i].dir, &p, f, len, &v), 0);
		if (cases[i].pass) {
			assert_int_equal(v.ctstate, EST);
			assert_memory_equal(&back, &c, sizeof(c));
		}
	}
	/* No record, no view: never. */
	a.ext = 0;
	p = sctp_chunks(0x2000, "D", 0, f, &len);
	assert_false(mod_ct_sctp_fast_check(fast, &a, f + p.l4_off, 40));
	a.ext = 1;
	assert_false(mod_ct_sctp_fast_check(NULL, &a, f + p.l4_off, 40));
	free(fast);
	free(lines);
}

/*
 * A wrong CRC32c makes an SCTP packet INVALID (sctp_crc) before any other
 * check, as Linux's sctp_error() with nf_conntrack_checksum=1 at
 * PREROUTING: a first INIT starts nothing; an association's DATA, SACK,
 * SHUTDOWN and ABORT move nothing (the record as it was), and the fast
 * path's check sends such a DATA packet up. One bit off anywhere (the
 * header, a chunk, the CRC field itself) is enough; the same packets
 * with their CRC right pass. A first fragment holds part of the packet:
 * its CRC is not checked there (Linux checks the reassembled packet).
 */
static void
test_sctp_crc(void **state)
{
	static const struct {
		unsigned int dir;
		uint32_t vtag;
		const char *chunks;
	} later[] = {
		{O, 0x2000, "D"}, {R, 0x1000, "S"}, {O, 0x2000, "DSD"}, {O, 0x2000, "U"},
		{R, 0x1000, "A"}, {O, 0x2000, "H"},
	};
	struct mod_ct_fast_line *lines = aligned_alloc(64, 2 * sizeof(*lines));
	struct mod_ct_fast *fast = calloc(1, sizeof(*fast));
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_conn c, est;
	struct mod_ct_verdict v;
	struct fc_action a;
	uint8_t f[FRAME_MAX];
	struct fc_pkt p;
	uint32_t len, l4len;

	(void)state;
	assert_non_null(lines);
	assert_non_null(fast);
	/* A first INIT: one bit off in each place in turn. */
	for (unsigned int at = 0; at < 32; at++) {
		p = sctp_chunks(0, "I", 0x1000, f, &len);
		f[p.l4_off + (at < 12 ? at : 12 + (at - 12) % 20)] ^= (uint8_t)(1u << (at % 8));
		assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
		assert_int_equal(v.ctstate, INV);
		assert_int_equal(v.why, MOD_CT_WHY_SCTP_CRC);
		assert_int_equal(c.state, NO);
	}
	p = sctp_chunks(0, "I", 0x1000, f, &len);
	assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
	assert_int_equal(v.ctstate, NEW);
	/* A first fragment: judged by its chunks alone. */
	p = sctp_chunks(0, "I", 0x1000, f, &len);
	p.frag = FC_FRAG_FIRST;
	f[p.l4_off + 8] ^= 1;
	assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
	assert_int_equal(v.ctstate, NEW);

	/* An association, established: later packets. */
	memset(lines, 0, 2 * sizeof(*lines));
	fast->chunk[0] = lines;
	memset(&est, 0, sizeof(est));
	est.state = MOD_CT_S_SCTP_ESTABLISHED;
	est.flags = MOD_CT_C_REPLIED | MOD_CT_C_ASSURED;
	est.proto = P_SCTP;
	est.sctp.vtag[O] = 0x2000;
	est.sctp.vtag[R] = 0x1000;
	mod_ct_fast_arm(&lines[1], &est, false, false);
	memset(&a, 0, sizeof(a));
	a.ct_state = MOD_CT_ENTRY_ID;
	a.ext = 1;
	for (unsigned int i = 0; i < RTE_DIM(later); i++) {
		for (unsigned int bad = 0; bad < 2; bad++) {
			print_message("  %s %#x %s%s\n", later[i].dir == O ? ">" : "<",
				later[i].vtag, later[i].chunks, bad ? " crc=bad" : "");
			p = sctp_chunks(later[i].vtag, later[i].chunks, 0, f, &len);
			l4len = (uint32_t)p.l3_off + p.ip_len - p.l4_off;
			if (bad)
				f[p.l4_off + l4len - 1] ^= 0x80;
			a.flags = later[i].dir == R ? FC_ACT_F_REPLY : 0;
			if (strchr("UAH", later[i].chunks[0]) == NULL)
				assert_int_equal(mod_ct_sctp_fast_check(fast, &a, f + p.l4_off,
					l4len), !bad);
			c = est;
			assert_int_equal(mod_ct_packet(&cfg, &c, later[i].dir, &p, f, len, &v), 0);
			if (bad) {
				assert_int_equal(v.ctstate, INV);
				assert_int_equal(v.why, MOD_CT_WHY_SCTP_CRC);
				assert_memory_equal(&c, &est, sizeof(c));
			} else {
				assert_int_not_equal(v.ctstate, INV);
			}
		}
	}
	free(fast);
	free(lines);
}

/* A UDP-Lite frame: coverage @p cov, checksum @p csum, @p dlen bytes of data. */
static struct fc_pkt
udplite_pkt(uint8_t family, uint16_t cov, uint16_t csum, uint32_t dlen, uint8_t *f,
	uint32_t *len)
{
	uint8_t h[8] = {0x13, 0x88, 0x00, 0x35, (uint8_t)(cov >> 8), (uint8_t)cov,
		(uint8_t)(csum >> 8), (uint8_t)csum};
	struct fc_pkt p;
	struct pb b;
	int n;

	pb_init(&b, f, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	if (family == AF4) {
		struct pb_ipv4 ip = {.src = 0xc0000201, .dst = 0xc6336407};

		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip = {0};

		memcpy(ip.src, v6_a, 16);
		memcpy(ip.dst, v6_b, 16);
		pb_ipv6(&b, &ip);
	}
	pb_l4_raw(&b, 136, h, sizeof(h));
	pb_payload(&b, NULL, dlen);
	n = pb_finish(&b);
	assert_true(n > 0);
	*len = (uint32_t)n;
	assert_int_equal(fc_parse(f, *len, &p), FC_PARSE_OK);
	assert_int_equal(ntohs(fc_key_sport(&p.key)), 5000);
	assert_int_equal(ntohs(fc_key_dport(&p.key)), 53);
	return p;
}

/* UDP-Lite: UDP's states and timeouts; bad coverage or no checksum is INVALID, as Linux. */
static void
test_udplite(void **state)
{
	static const struct {
		uint16_t cov, csum;
		uint8_t ctstate;
	} cases[] = {
		{0, 0xbeef, NEW},	/* coverage 0: the whole datagram */
		{8, 0xbeef, NEW},	/* the header only */
		{20, 0xbeef, NEW},	/* header and data: 8 + 12 bytes */
		{1, 0xbeef, INV},	/* below the header */
		{7, 0xbeef, INV},
		{21, 0xbeef, INV},	/* past the datagram */
		{0xffff, 0xbeef, INV},
		{0, 0, INV},		/* the checksum is mandatory */
		{8, 0, INV},
	};
	static const uint8_t fam[2] = {AF4, AF6};
	struct mod_ct_cfg cfg = cfg_make(false);
	uint8_t f[FRAME_MAX], g[FRAME_MAX];
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p, q;
	uint32_t len, glen;

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
			print_message("  family %u coverage %u checksum %#x\n", fam[k], cases[i].cov,
				cases[i].csum);
			p = udplite_pkt(fam[k], cases[i].cov, cases[i].csum, 12, f, &len);
			assert_int_equal(mod_ct_new(&cfg, &p, f, len, &c, &v), 0);
			assert_int_equal(v.ctstate, cases[i].ctstate);
			if (cases[i].ctstate == INV) {
				assert_int_equal(v.why, MOD_CT_WHY_UDPLITE);
				assert_int_equal(c.state, NO);
				continue;
			}
			assert_int_equal(c.state, OP);
			assert_int_equal(v.timeout, 30000);
			/* A malformed reply is INVALID and leaves the connection unreplied. */
			q = udplite_pkt(fam[k], 3, 0xbeef, 12, g, &glen);
			assert_int_equal(mod_ct_packet(&cfg, &c, R, &q, g, glen, &v), 0);
			assert_int_equal(v.ctstate, INV);
			assert_int_equal(v.why, MOD_CT_WHY_UDPLITE);
			assert_int_equal(c.flags, 0);
			/* A good one establishes it, with UDP's replied timeout. */
			assert_int_equal(mod_ct_packet(&cfg, &c, R, &p, f, len, &v), 0);
			assert_int_equal(v.ctstate, EST);
			assert_int_equal(v.timeout, 120000);
			assert_int_equal(c.flags, MOD_CT_C_REPLIED);
			/* Replied, it still wants the datagrams whose header fails, both ways. */
			assert_int_equal(v.interest[MOD_CT_DIR_ORIG], FC_INTEREST_UDPLITE);
			assert_int_equal(v.interest[MOD_CT_DIR_REPLY], FC_INTEREST_UDPLITE);
		}
	}
}

static void
test_fragments(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	struct fc_pkt p;

	(void)state;
	/* A non-first fragment has no L4 header: not tracked. */
	p = mkpkt(AF4, P_TCP, 0, 0);
	p.frag = FC_FRAG_LATER;
	p.l4_off = 0;
	p.key.v4.sport = 0;
	p.key.v4.dport = 0;
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
	assert_int_equal(v.ctstate, 0);
	assert_int_equal(v.flags, 0);
	assert_int_equal(c.state, NO);
	assert_int_equal(v.interest[O], 0);
	assert_int_equal(v.interest[R], 0);
	assert_int_equal(v.timeout, 600000);

	/* A first fragment carries the header: tracked as usual. */
	p = mkpkt(AF6, P_TCP, F_SYN, 0);
	p.frag = FC_FRAG_FIRST;
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
	assert_int_equal(c.state, SS);
}

/* ------------------------------------------------------------------------ */
/* Configuration, encoding, names, bad arguments                             */
/* ------------------------------------------------------------------------ */

static void
test_cfg(void **state)
{
	static const struct {
		const char *name;
		uint32_t ms;
	} defaults[] = {
		{"tcp_syn_sent", 120000}, {"tcp_syn_recv", 60000},
		{"tcp_established", 432000000u}, {"tcp_fin_wait", 120000},
		{"tcp_close_wait", 60000}, {"tcp_last_ack", 30000}, {"tcp_time_wait", 120000},
		{"tcp_close", 10000}, {"tcp_syn_sent2", 120000}, {"tcp_unreplied", 300000},
		{"tcp_retrans", 300000}, {"tcp_unacknowledged", 300000}, {"udp", 30000}, {"udp_replied", 120000}, {"icmp", 30000}, {"generic", 600000},
		{"sctp_closed", 10000}, {"sctp_cookie_wait", 3000}, {"sctp_cookie_echoed", 3000},
		{"sctp_established", 210000}, {"sctp_shutdown_sent", 3000},
		{"sctp_shutdown_recd", 3000}, {"sctp_shutdown_ack_sent", 3000},
		{"sctp_heartbeat_sent", 30000},
	};
	struct mod_ct_cfg cfg;
	unsigned int i;
	int to;

	(void)state;
	mod_ct_cfg_init(&cfg);
	assert_false(cfg.tcp_strict);
	assert_false(cfg.tcp_be_liberal);
	assert_int_equal(cfg.tcp_max_retrans, 3);
	assert_int_equal(mod_ct_cfg_check(&cfg), 0);
	for (i = 0; i < MOD_CT_WHY__COUNT; i++)
		assert_string_not_equal(mod_ct_why_name(i), "?");
	assert_string_equal(mod_ct_why_name(MOD_CT_WHY_SEQ), "seq_over_window");
	assert_string_equal(mod_ct_why_name(MOD_CT_WHY__COUNT), "?");
	assert_int_equal(RTE_DIM(defaults), MOD_CT_TO__COUNT);
	for (i = 0; i < RTE_DIM(defaults); i++) {
		to = mod_ct_timeout_find(defaults[i].name);
		assert_true(to >= 0);
		assert_string_equal(mod_ct_timeout_name((unsigned int)to), defaults[i].name);
		assert_int_equal(cfg.timeout[to], defaults[i].ms);
		/* A flow entry keeps it exactly (24 bits: ms below 2^23, else s). */
		assert_int_equal(fc_timeout_stored(defaults[i].ms), defaults[i].ms);
	}
	assert_string_equal(mod_ct_timeout_name(MOD_CT_TO__COUNT), "?");
	assert_int_equal(mod_ct_timeout_find("tcp_establishe"), -ENOENT);
	assert_int_equal(mod_ct_timeout_find(""), -ENOENT);
	assert_int_equal(mod_ct_timeout_find(NULL), -EINVAL);
	for (i = 0; i < MOD_CT_TO__COUNT; i++) {
		mod_ct_cfg_init(&cfg);
		cfg.timeout[i] = 0;
		assert_int_equal(mod_ct_cfg_check(&cfg), -EINVAL);
	}
	assert_int_equal(mod_ct_cfg_check(NULL), -EINVAL);
}

static void
test_pack(void **state)
{
	struct mod_ct_conn c;
	unsigned int b, valid = 0;

	(void)state;
	for (b = 0; b < 256; b++) {
		if (mod_ct_conn_unpack((uint8_t)b, &c) != 0) {
			assert_int_equal(c.state, NO);
			assert_int_equal(c.flags, 0);
			continue;
		}
		valid++;
		assert_int_equal(mod_ct_conn_pack(&c), b);
	}
	/* Packed: NONE up to OPEN; TCP and SCTP states live in records. */
	assert_int_equal(valid, (MOD_CT_S_OPEN + 1) * (MOD_CT_C_ALL + 1));
	/* The zero byte of a fresh entry is "not tracked". */
	assert_int_equal(mod_ct_conn_unpack(0, &c), 0);
	assert_int_equal(c.state, NO);
	assert_int_equal(mod_ct_conn_unpack(0x80, &c), -EINVAL);
	assert_int_equal(mod_ct_conn_unpack(MOD_CT_S_SCTP_CLOSED, &c), -EINVAL);
}

static void
test_names(void **state)
{
	static const char *const names[MOD_CT_S__COUNT] = {
		"NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT", "CLOSE_WAIT",
		"LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2", "OPEN", "CLOSED", "COOKIE_WAIT",
		"COOKIE_ECHOED", "ESTABLISHED", "SHUTDOWN_SENT", "SHUTDOWN_RECD",
		"SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT",
	};
	static const struct {
		struct mod_ct_conn c;
		const char *text;
	} fmt[] = {
		{{OP, MOD_CT_C_REPLIED, 0, 0, {{{0}}}}, "OPEN replied"},
		{{OP, 0, 0, 0, {{{0}}}}, "OPEN unreplied"},
		{{NO, 0, 0, 0, {{{0}}}}, "NONE unreplied"},
		{{ES, MOD_CT_C_REPLIED | MOD_CT_C_ASSURED, 0, 0, {{{1001, 66536, 64240, 0, 7, 0},
			  {2002, 3003, 1000, 0, 0, MOD_CT_TS_LIBERAL | MOD_CT_TS_SACK_PERM}}}},
			"ESTABLISHED replied assured retrans=0 orig=[end=1001 maxend=66536 "
			"maxwin=64240 scale=7] reply=[end=2002 maxend=3003 maxwin=1000 scale=0 "
			"liberal sack]"},
		{{FW, MOD_CT_C_PICKUP, 0, 0, {{{0}}}}, "FIN_WAIT unreplied pickup retrans=0 orig=[end=0 "
			"maxend=0 maxwin=0 scale=0] reply=[end=0 maxend=0 maxwin=0 scale=0]"},
	};
	struct mod_ct_conn bad = {MOD_CT_S__COUNT, 0, 0, 0, {{{0}}}};
	char buf[MOD_CT_FORMAT_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < MOD_CT_S__COUNT; i++)
		assert_string_equal(mod_ct_state_name(i), names[i]);
	assert_string_equal(mod_ct_state_name(MOD_CT_S__COUNT), "?");
	for (i = 0; i < RTE_DIM(fmt); i++) {
		assert_int_equal(mod_ct_conn_format(&fmt[i].c, buf, sizeof(buf)),
			(int)strlen(fmt[i].text));
		assert_string_equal(buf, fmt[i].text);
	}
	/* The longest text fits MOD_CT_FORMAT_MAX. */
	bad.state = MOD_CT_S_ESTABLISHED;
	bad.flags = MOD_CT_C_ALL;
	bad.tcp.retrans = 255;
	for (i = 0; i < 2; i++) {
		bad.tcp.side[i].end = bad.tcp.side[i].maxend = bad.tcp.side[i].maxwin = UINT32_MAX;
		bad.tcp.side[i].scale = 14;
		bad.tcp.side[i].flags = 0xff;
	}
	assert_true(mod_ct_conn_format(&bad, buf, sizeof(buf)) > 0);
	memset(&bad.tcp, 0, sizeof(bad.tcp));
	assert_int_equal(mod_ct_conn_format(&fmt[3].c, buf, 40), -ENOSPC);
	assert_int_equal(mod_ct_conn_format(&fmt[0].c, buf, 5), -ENOSPC);
	bad.state = MOD_CT_S__COUNT;
	assert_int_equal(mod_ct_conn_format(&bad, buf, sizeof(buf)), -EINVAL);
	bad.state = ES;
	bad.flags = 0x08;
	assert_int_equal(mod_ct_conn_format(&bad, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mod_ct_conn_format(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(mod_ct_conn_format(&fmt[0].c, NULL, 8), -EINVAL);
}

static void
test_bad_args(void **state)
{
	struct mod_ct_cfg cfg = cfg_make(false);
	struct mod_ct_verdict v;
	struct mod_ct_conn c, keep;
	struct fc_pkt p = tcp(F_SYN), u = mkpkt(AF4, P_UDP, 0, 0), none = tcp(F_SYN);

	(void)state;
	none.key.family = FC_AF_NONE;
	assert_int_equal(mod_ct_new(NULL, &p, NULL, 0, &c, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, NULL, NULL, 0, &c, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, NULL, &v), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, NULL), -EINVAL);
	assert_int_equal(mod_ct_new(&cfg, &none, NULL, 0, &c, &v), -EINVAL);

	assert_int_equal(mod_ct_new(&cfg, &p, NULL, 0, &c, &v), 0);
	keep = c;
	assert_int_equal(mod_ct_packet(NULL, &c, O, &p, NULL, 0, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, NULL, O, &p, NULL, 0, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, NULL, NULL, 0, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, NULL), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, 2, &p, NULL, 0, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &none, NULL, 0, &v), -EINVAL);
	/* A TCP connection does not take a UDP packet, nor the reverse. */
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &u, NULL, 0, &v), -EINVAL);
	assert_memory_equal(&c, &keep, sizeof(c));
	c.state = OP;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), -EINVAL);
	c.state = NO;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), -EINVAL);
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &u, NULL, 0, &v), -EINVAL);
	c.state = MOD_CT_S__COUNT;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), -EINVAL);
	c.state = ES;
	c.flags = 0x80;
	assert_int_equal(mod_ct_packet(&cfg, &c, O, &p, NULL, 0, &v), -EINVAL);
	assert_int_equal(c.state, ES);
	assert_int_equal(c.flags, 0x80);
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_TCP, &c), 0);
	assert_int_equal(mod_ct_conn_ctstate(&c, O), 0);

	/* Helpers on mismatched or empty connections. */
	c.state = OP;
	c.flags = 0;
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_TCP, &c), 0);
	c.state = ES;
	assert_int_equal(mod_ct_timeout(&cfg, AF4, P_UDP, &c), 0);
	c.state = NO;
	assert_int_equal(mod_ct_conn_ctstate(&c, R), 0);
	{
		uint16_t in[2] = {1, 1};

		mod_ct_interest(&cfg, AF4, P_TCP, &c, in);
		assert_int_equal(in[O], 0);
		assert_int_equal(in[R], 0);
		c.state = OP;
		mod_ct_interest(&cfg, AF4, P_TCP, &c, in);
		assert_int_equal(in[O], 0);
		assert_int_equal(in[R], 0);
	}
}

static void
test_interest_match(void **state)
{
	struct fc_pkt t = tcp(F_SA), u = mkpkt(AF6, P_UDP, 0, 0);

	(void)state;
	assert_true(wants(FC_INTEREST_TCP_SYN, &t));
	assert_false(wants(FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST, &t));
	assert_true(wants(FC_INTEREST_ALL, &t));
	assert_false(wants(0, &t));
	t = tcp(F_FA);
	assert_true(wants(FC_INTEREST_TCP_FIN, &t));
	t = tcp(F_RA);
	assert_true(wants(FC_INTEREST_TCP_RST, &t));
	t = tcp(F_PA);
	assert_false(wants(I_B, &t));
	assert_false(wants(I_B | FC_INTEREST_TCP_NOACK | FC_INTEREST_TCP_WIN, &t));
	assert_false(wants(I_B, &u));
	assert_true(wants(FC_INTEREST_ALL, &u));
	/* Segments without ACK: garbage but for SYN and RST. */
	t = tcp(F_FIN);
	assert_true(wants(FC_INTEREST_TCP_NOACK, &t));
	t = tcp(0);
	assert_true(wants(FC_INTEREST_TCP_NOACK, &t));
	assert_false(wants(I_B, &t));
	/* The window bit selects nothing by itself: the fast path asks conntrack. */
	t = tcp(F_ACK);
	assert_false(wants(FC_INTEREST_TCP_WIN, &t));
}

/* ------------------------------------------------------------------------ */
/* ICMP errors: the quoted packet's key                                      */
/* ------------------------------------------------------------------------ */


/* Mutations of the quoted bytes. */
enum mut {
	MUT_NONE,
	MUT_VERSION,   /* IP version 5 (v4) / 4 (v6) */
	MUT_IHL_SHORT, /* IHL 4 */
	MUT_IHL_LONG,  /* IHL 15: options beyond the quote */
	MUT_TOTLEN,    /* total length below the header */
};

struct inner_case {
	const char *name;
	uint8_t family;       /* outer */
	uint8_t type, code;   /* outer ICMP */
	uint8_t inner_family; /* quoted packet */
	uint8_t proto;        /* quoted L4: TCP, UDP, SCTP, ICMP(v6) or raw */
	uint8_t qtype;        /* quoted ICMP type */
	uint8_t v4_opts;      /* quoted IPv4 options bytes */
	uint8_t ext[10];      /* quoted IPv6 extension headers, in order */
	uint8_t n_ext;
	uint16_t frag_off;    /* quoted packet is a fragment */
	bool mf;
	uint8_t n_vlan;       /* outer tags */
	uint32_t quote;       /* bytes of the quoted packet, 0 = all */
	enum mut mut;
	int expect;
	uint32_t need;        /* expect 0: fewest quoted bytes that work */
};

static const struct inner_case inner_cases[] = {
	{"v4 port unreachable, udp", AF4, 3, 3, AF4, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 time exceeded, tcp", AF4, 11, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 parameter problem, tcp with options", AF4, 12, 0, AF4, P_TCP, 0, 8, {0}, 0, 0, 0, 0,
		0, 0, 0, 36},
	{"v4 fragmentation needed, echo request", AF4, 3, 4, AF4, P_ICMP, 8, 0, {0}, 0, 0, 0, 0,
		0, 0, 0, 28},
	{"v4 host unreachable, echo reply", AF4, 3, 1, AF4, P_ICMP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 28},
	{"v4 unreachable, timestamp request", AF4, 3, 1, AF4, P_ICMP, 13, 0, {0}, 0, 0, 0, 0, 0,
		0, 0, 28},
	{"v4 port unreachable, udplite", AF4, 3, 3, AF4, 136, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0,
		28},
	{"v4 unreachable, address mask reply", AF4, 3, 1, AF4, P_ICMP, 18, 0, {0}, 0, 0, 0, 0, 0,
		0, 0, 28},
	{"v4 source quench, sctp", AF4, 4, 0, AF4, P_SCTP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 28},
	{"v4 redirect, gre", AF4, 5, 1, AF4, P_GRE, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 20},
	{"v4 unreachable behind two vlan tags", AF4, 3, 3, AF4, P_UDP, 0, 0, {0}, 0, 0, 0, 2, 0,
		0, 0, 28},
	{"v4 quote of 28 bytes only", AF4, 3, 13, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 28, 0, 0,
		28},
	{"v4 quoting a first fragment", AF4, 11, 1, AF4, P_UDP, 0, 0, {0}, 0, 0, true, 0, 0, 0,
		0, 28},
	{"v4 quoting a later fragment", AF4, 11, 1, AF4, P_UDP, 0, 0, {0}, 0, 64, false, 0, 0, 0,
		-ENOENT, 0},
	{"v4 quoting an icmp error", AF4, 3, 1, AF4, P_ICMP, 11, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 echo request is no error", AF4, 8, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 echo reply is no error", AF4, 0, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v4 router advertisement is no error", AF4, 9, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0,
		0, -ENOENT, 0},
	{"v4 quoting ipv6", AF4, 3, 1, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v4 bad quoted version", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_VERSION,
		-EINVAL, 0},
	{"v4 quoted ihl 4", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_IHL_SHORT,
		-EINVAL, 0},
	{"v4 quoted ihl beyond the quote", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 40,
		MUT_IHL_LONG, -EINVAL, 0},
	{"v4 quoted total length below ihl", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0,
		MUT_TOTLEN, -EINVAL, 0},
	{"v4 quote with 4 bytes of tcp", AF4, 3, 1, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 24, 0,
		-EINVAL, 0},
	{"v4 quote with 7 bytes of echo", AF4, 3, 1, AF4, P_ICMP, 8, 0, {0}, 0, 0, 0, 0, 27, 0,
		-EINVAL, 0},
	{"v4 quote of 19 bytes", AF4, 3, 1, AF4, P_GRE, 0, 0, {0}, 0, 0, 0, 0, 19, 0, -EINVAL,
		0},
	{"v6 port unreachable, udp", AF6, 1, 4, AF6, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 48},
	{"v6 packet too big, tcp", AF6, 2, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, 0, 48},
	{"v6 time exceeded, tcp after hop-by-hop and dstopts", AF6, 3, 0, AF6, P_TCP, 0, 0,
		{PB_PROTO_HOPOPTS, PB_PROTO_DSTOPTS}, 2, 0, 0, 0, 0, 0, 0, 72},
	{"v6 unreachable, tcp after routing", AF6, 1, 0, AF6, P_TCP, 0, 0, {PB_PROTO_ROUTING}, 1,
		0, 0, 1, 0, 0, 0, 56},
	{"v6 parameter problem, echo request", AF6, 4, 1, AF6, P_ICMPV6, 128, 0, {0}, 0, 0, 0, 0,
		0, 0, 0, 48},
	{"v6 unreachable, icmpv4 in ipv6 (ports 0)", AF6, 1, 0, AF6, P_ICMP, 0, 0, {0}, 0, 0, 0,
		0, 0, 0, 0, 40},
	{"v6 quoting a first fragment", AF6, 3, 1, AF6, P_UDP, 0, 0, {PB_PROTO_FRAGMENT}, 1, 0,
		true, 0, 0, 0, 0, 56},
	{"v6 quoting a later fragment", AF6, 3, 1, AF6, P_UDP, 0, 0, {PB_PROTO_FRAGMENT}, 1, 8,
		false, 0, 0, 0, -ENOENT, 0},
	{"v6 quoting an icmpv6 error", AF6, 1, 0, AF6, P_ICMPV6, 2, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v6 extension chain too long", AF6, 1, 0, AF6, P_TCP, 0, 0,
		{PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS,
			PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS, PB_PROTO_DSTOPTS,
			PB_PROTO_DSTOPTS},
		9, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v6 quoting ipv4", AF6, 1, 0, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0, -EINVAL, 0},
	{"v6 bad quoted version", AF6, 1, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, MUT_VERSION,
		-EINVAL, 0},
	{"v6 quote cut in the extension header", AF6, 1, 0, AF6, P_TCP, 0, 0, {PB_PROTO_DSTOPTS},
		0 + 1, 0, 0, 0, 47, 0, -EINVAL, 0},
	{"v6 echo request is no error", AF6, 128, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		-ENOENT, 0},
	{"v6 neighbour solicitation is no error", AF6, 135, 0, AF6, P_TCP, 0, 0, {0}, 0, 0, 0, 0,
		0, 0, -ENOENT, 0},
};

/* Build the quoted packet as a whole frame; returns its length, *l3 its IP offset. */
static uint32_t
build_inner(const struct inner_case *t, uint8_t *buf, uint32_t *l3)
{
	static const uint8_t opts[40] = {1, 1, 1, 1, 1, 1, 1, 1}; /* NOPs, then EOLs */
	struct pb b;
	unsigned int i;
	int len;

	pb_init(&b, buf, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	if (t->inner_family == AF4) {
		struct pb_ipv4 ip = {
			.src = 0xc0000201,
			.dst = 0xc6336407,
			.id = 0x4242,
			.frag_off = t->frag_off,
			.mf = t->mf,
			.opts = t->v4_opts ? opts : NULL,
			.opts_len = t->v4_opts,
		};

		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip = {.flow = 0x12345};

		memcpy(ip.src, v6_a, 16);
		memcpy(ip.dst, v6_b, 16);
		pb_ipv6(&b, &ip);
		for (i = 0; i < t->n_ext; i++) {
			if (t->ext[i] == PB_PROTO_FRAGMENT)
				pb_ipv6_frag(&b, t->frag_off, t->mf, 0x77);
			else
				pb_ipv6_ext(&b, t->ext[i],
					t->ext[i] == PB_PROTO_DSTOPTS && i == 1 ? 16 : 8);
		}
	}
	if (t->frag_off != 0) {
		pb_l4_raw(&b, t->proto, NULL, 16); /* no L4 header in a later fragment */
	} else {
		switch (t->proto) {
		case P_TCP:
			pb_tcp(&b, 40000, 443, F_SYN, 1000, 0, 0);
			break;
		case P_UDP:
			pb_udp(&b, 5353, 53);
			break;
		case P_SCTP:
			pb_sctp(&b, 2905, 2905, 0xdeadbeef);
			break;
		case 136: { /* UDP-Lite: ports as UDP */
			static const uint8_t h[8] = {0x13, 0x88, 0x00, 0x35, 0, 8, 0xbe, 0xef};

			pb_l4_raw(&b, 136, h, sizeof(h));
			break;
		}
		case P_ICMP:
			if (t->inner_family == AF4)
				pb_icmp(&b, t->qtype, 0, 0x1234, 7);
			else
				pb_l4_raw(&b, P_ICMP, NULL, 8);
			break;
		case P_ICMPV6:
			pb_icmp6(&b, t->qtype, 0, 0x1234, 7);
			break;
		default:
			pb_l4_raw(&b, t->proto, NULL, 8);
			break;
		}
	}
	pb_payload(&b, NULL, 24);
	len = pb_finish(&b);
	assert_true(len > 0);
	*l3 = b.l3_off;
	return (uint32_t)len;
}

/*
 * Build the ICMP error frame quoting @p t's packet. *expect receives the
 * parser's key of the quoted packet, *qlen the bytes quoted.
 */
static uint32_t
build_error(const struct inner_case *t, uint8_t *out, struct fc_key *expect, uint32_t *qlen)
{
	uint8_t inner[FRAME_MAX], quote[FRAME_MAX];
	struct fc_pkt ip;
	struct pb b;
	uint32_t ilen, l3, n;
	unsigned int i;
	int len, res;

	ilen = build_inner(t, inner, &l3);
	res = fc_parse(inner, ilen, &ip);
	if (t->expect == 0)
		assert_true(res == FC_PARSE_OK || res == FC_PARSE_FRAG_FIRST);
	*expect = ip.key;
	n = ilen - l3;
	if (t->quote != 0 && t->quote < n)
		n = t->quote;
	memcpy(quote, inner + l3, n);
	switch (t->mut) {
	case MUT_VERSION:
		quote[0] = (uint8_t)((quote[0] & 0x0f) | (t->inner_family == AF4 ? 0x50 : 0x40));
		break;
	case MUT_IHL_SHORT:
		quote[0] = 0x44;
		break;
	case MUT_IHL_LONG:
		quote[0] = 0x4f;
		break;
	case MUT_TOTLEN:
		quote[2] = 0;
		quote[3] = 16;
		break;
	default:
		break;
	}
	*qlen = n;

	pb_init(&b, out, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	for (i = 0; i < t->n_vlan; i++)
		pb_vlan(&b, i == 0 && t->n_vlan == 2 ? PB_TPID_8021AD : PB_TPID_8021Q, 10);
	if (t->family == AF4) {
		struct pb_ipv4 o = {.src = 0xcb007101, .dst = 0xc0000201}; /* router -> host */

		pb_ipv4(&b, &o);
		pb_icmp(&b, t->type, t->code, 0, 0);
	} else {
		struct pb_ipv6 o = {0};

		memcpy(o.src, v6_r, 16);
		memcpy(o.dst, v6_a, 16);
		pb_ipv6(&b, &o);
		pb_icmp6(&b, t->type, t->code, 0, 0);
	}
	pb_payload(&b, quote, n);
	len = pb_finish(&b);
	assert_true(len > 0);
	return (uint32_t)len;
}

/* The error types of RFC 792 / RFC 4443 that quote a packet. */
static bool
is_error_type(uint8_t family, uint8_t type)
{
	static const uint8_t v4[] = {3, 4, 5, 11, 12}, v6[] = {1, 2, 3, 4};
	unsigned int i;

	if (family == AF4) {
		for (i = 0; i < RTE_DIM(v4); i++)
			if (type == v4[i])
				return true;
		return false;
	}
	for (i = 0; i < RTE_DIM(v6); i++)
		if (type == v6[i])
			return true;
	return false;
}

/* mod_ct_icmp_inner_key() on an exactly sized heap copy of the first @p len bytes. */
static int
inner_key_copy(const uint8_t *frame, uint32_t len, const struct fc_pkt *pkt, struct fc_key *k)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	ret = mod_ct_icmp_inner_key(copy, len, pkt, k);
	free(copy);
	return ret;
}

static void
test_icmp_inner_key(void **state)
{
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen, qstart, cut;
	unsigned int i;
	int ret;

	(void)state;
	for (i = 0; i < RTE_DIM(inner_cases); i++) {
		const struct inner_case *t = &inner_cases[i];

		print_message("  %s\n", t->name);
		len = build_error(t, frame, &expect, &qlen);
		assert_int_equal(fc_parse(frame, len, &pkt), FC_PARSE_OK);
		assert_int_equal(mod_ct_icmp_is_error(&pkt), is_error_type(t->family, t->type));
		memset(&k, 0xa5, sizeof(k));
		ret = inner_key_copy(frame, len, &pkt, &k);
		assert_int_equal(ret, t->expect);
		if (ret != 0)
			continue;
		/* The key the parser gives the quoted packet itself. */
		assert_memory_equal(&k, &expect, sizeof(k));

		/* Truncation sweep: works from exactly @need quoted bytes on. */
		qstart = pkt.l4_off + 8u;
		assert_true(qlen >= t->need);
		for (cut = 0; cut <= len; cut++) {
			ret = inner_key_copy(frame, cut, &pkt, &k);
			if (cut < qstart + t->need) {
				assert_int_equal(ret, -EINVAL);
			} else {
				assert_int_equal(ret, 0);
				assert_memory_equal(&k, &expect, sizeof(k));
			}
		}
	}
}

/* The quote ends with the outer datagram, not with the frame (Ethernet padding). */
static void
test_icmp_inner_key_padding(void **state)
{
	const struct inner_case t = {"v4 tcp, 24-byte quote, padded", AF4, 3, 1, AF4, P_TCP, 0,
		0, {0}, 0, 0, 0, 0, 24, 0, -EINVAL, 0};
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	/* Pad with bytes that would complete the TCP ports if they were read. */
	memset(frame + len, 0x11, 64);
	assert_int_equal(fc_parse(frame, len + 64, &pkt), FC_PARSE_OK);
	assert_int_equal(inner_key_copy(frame, len + 64, &pkt, &k), -EINVAL);

	/* Same with a full 28-byte quote: padding does not disturb it. */
	{
		const struct inner_case t2 = {"v4 tcp, 28-byte quote, padded", AF4, 3, 1, AF4,
			P_TCP, 0, 0, {0}, 0, 0, 0, 0, 28, 0, 0, 28};

		len = build_error(&t2, frame, &expect, &qlen);
		memset(frame + len, 0x22, 64);
		assert_int_equal(fc_parse(frame, len + 64, &pkt), FC_PARSE_OK);
		assert_int_equal(inner_key_copy(frame, len + 64, &pkt, &k), 0);
		assert_memory_equal(&k, &expect, sizeof(k));
	}
}

/* An ICMP error sent as fragments: the first one is enough if it holds the quote. */
static void
test_icmp_inner_key_fragments(void **state)
{
	const struct inner_case t = {"v4 tcp", AF4, 3, 3, AF4, P_TCP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 28};
	uint8_t frame[FRAME_MAX], frag[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt;
	uint32_t len, qlen;
	int flen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	/* First fragment: 8 bytes of ICMP + 32 of quote. */
	flen = pb_ipv4_fragment(frame, len, 14, 0, 40, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_FIRST);
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), 0);
	assert_memory_equal(&k, &expect, sizeof(k));
	/* First fragment too short for the quoted ports. */
	flen = pb_ipv4_fragment(frame, len, 14, 0, 32, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_FIRST);
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), -EINVAL);
	/* A later fragment has no ICMP header at all. */
	flen = pb_ipv4_fragment(frame, len, 14, 40, len - 14 - 20 - 40, frag, sizeof(frag));
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frag, (uint32_t)flen, &pkt), FC_PARSE_FRAG_LATER);
	assert_false(mod_ct_icmp_is_error(&pkt));
	assert_int_equal(inner_key_copy(frag, (uint32_t)flen, &pkt, &k), -EINVAL);
}

static void
test_icmp_inner_key_bad_args(void **state)
{
	const struct inner_case t = {"v6 udp", AF6, 1, 4, AF6, P_UDP, 0, 0, {0}, 0, 0, 0, 0, 0, 0,
		0, 48};
	uint8_t frame[FRAME_MAX];
	struct fc_key expect, k;
	struct fc_pkt pkt, bad;
	uint32_t len, qlen;
	struct pb b;
	int flen;

	(void)state;
	len = build_error(&t, frame, &expect, &qlen);
	assert_int_equal(fc_parse(frame, len, &pkt), FC_PARSE_OK);
	assert_int_equal(mod_ct_icmp_inner_key(NULL, len, &pkt, &k), -EINVAL);
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, NULL, &k), -EINVAL);
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, &pkt, NULL), -EINVAL);
	assert_false(mod_ct_icmp_is_error(NULL));
	bad = pkt;
	bad.key.family = FC_AF_NONE;
	assert_int_equal(mod_ct_icmp_inner_key(frame, len, &bad, &k), -EINVAL);
	/* Offsets that point past the frame are refused, not followed. */
	bad = pkt;
	bad.l4_off = (uint16_t)(len - 4);
	assert_int_equal(inner_key_copy(frame, len, &bad, &k), -EINVAL);
	bad.l4_off = 0xfff0;
	assert_int_equal(inner_key_copy(frame, len, &bad, &k), -EINVAL);

	/* Not ICMP at all: a UDP packet whose payload looks like an IP header. */
	pb_init(&b, frame, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	{
		struct pb_ipv4 o = {.src = 1, .dst = 2};

		pb_ipv4(&b, &o);
	}
	pb_udp(&b, 1, 2);
	pb_payload(&b, NULL, 64);
	flen = pb_finish(&b);
	assert_true(flen > 0);
	assert_int_equal(fc_parse(frame, (uint32_t)flen, &pkt), FC_PARSE_OK);
	pkt.icmp_type = 3; /* even if a caller confused the fields */
	assert_false(mod_ct_icmp_is_error(&pkt));
	assert_int_equal(inner_key_copy(frame, (uint32_t)flen, &pkt, &k), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_icmp_new),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_icmp_queries),
		cmocka_unit_test(test_udplite),
		cmocka_unit_test(test_sctp_start),
		cmocka_unit_test(test_sctp_assoc),
		cmocka_unit_test(test_sctp_heartbeat),
		cmocka_unit_test(test_sctp_fast),
		cmocka_unit_test(test_sctp_crc),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_cfg),
		cmocka_unit_test(test_pack),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_interest_match),
		cmocka_unit_test(test_icmp_inner_key),
		cmocka_unit_test(test_icmp_inner_key_padding),
		cmocka_unit_test(test_icmp_inner_key_fragments),
		cmocka_unit_test(test_icmp_inner_key_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
