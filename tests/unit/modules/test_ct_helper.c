/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_helper.c — the FTP helper in the rules engine
 * (lib/modules/conntrack/ct_helper.c), with EAL: a control connection
 * assigned the helper by the raw table, its PORT / 227 making
 * expectations, the data connections that take them (RELATED, --ctstatus
 * EXPECTED, -m helper), once; without the CT rule nothing is expected; a
 * partial command dropped; and behind masquerade the PORT rewritten
 * (address, port, lengths, checksums), the control connection's numbers
 * shifted both ways, conntrack's windows kept valid, and the data
 * connection translated back to the client.
 *
 * Each frame goes through what the datapath does: lookup, interest, the
 * cached verdict or rule_engine_upcall_burst(), then on the slow path the
 * NAT rewrite and mod_ct_module_mangle() on an mbuf.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "csum_ref.h"
#include "eal_test.h"
#include "eng_stack.h"
#include "pkt_build.h"
#include "rule_lang.h"
#include "ct_world.h"

#define CLIENT 0x0a000001u /* 10.0.0.1 */
#define SERVER 0xc0000207u /* 192.0.2.7 */

static struct rte_mempool *pool;

/* A TCP frame from @p src:@p sp to @p dst:@p dp with @p plen bytes of @p payload. */
static uint32_t
tcp_frame(uint8_t *buf, uint32_t src, uint16_t sp, uint32_t dst, uint16_t dp, uint8_t flags,
	uint32_t seq, uint32_t ack, const void *payload, uint32_t plen)
{
	struct pb_ipv4 ip = {.src = src, .dst = dst};
	struct pb b;
	int n;

	pb_init(&b, buf, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, sp, dp, flags, seq, ack, 0);
	pb_tcp_win(&b, 8000);
	if (payload != NULL && plen != 0)
		pb_payload(&b, payload, plen);
	n = pb_finish(&b);
	assert_true(n > 0);
	return (uint32_t)n;
}

/*
 * What the datapath does with one frame; the frame as it leaves is in
 * w->frame (accepted) and the decision is returned.
 */
static struct rule_decision
rx_n(struct world *w, uint32_t src, uint16_t sp, uint32_t dst, uint16_t dp, uint8_t flags,
	uint32_t seq, uint32_t ack, const void *payload, uint32_t plen)
{
	w->len = tcp_frame(w->frame, src, sp, dst, dp, flags, seq, ack, payload, plen);
	return world_rx(w, pool);
}

static struct rule_decision
rx(struct world *w, uint32_t src, uint16_t sp, uint32_t dst, uint16_t dp, uint8_t flags,
	uint32_t seq, uint32_t ack, const char *payload)
{
	return rx_n(w, src, sp, dst, dp, flags, seq, ack, payload,
		payload != NULL ? (uint32_t)strlen(payload) : 0);
}

/* The control connection opened, the banner and the login exchanged. */
struct ctl {
	uint16_t cport;
	uint16_t sport; /* the server's port */
	uint32_t seen; /* the client's address as the server sees it */
	uint32_t cseq, sseq; /* next sequence numbers of client and server (their own space) */
};

static void
ctl_open_port(struct world *w, struct ctl *c, uint16_t cport, uint32_t seen, uint16_t sport)
{
	c->cport = cport;
	c->sport = sport;
	c->seen = seen;
	c->cseq = 1000;
	c->sseq = 9000;
	assert_true(accepted(rx(w, CLIENT, cport, SERVER, sport, PB_TCP_SYN, c->cseq, 0, NULL)));
	c->cseq++;
	assert_true(accepted(rx(w, SERVER, sport, seen, cport, PB_TCP_SYN | PB_TCP_ACK, c->sseq,
		c->cseq, NULL)));
	c->sseq++;
	assert_true(accepted(rx(w, CLIENT, cport, SERVER, sport, PB_TCP_ACK, c->cseq, c->sseq,
		NULL)));
}

static void
ctl_open(struct world *w, struct ctl *c, uint16_t cport, uint32_t seen)
{
	ctl_open_port(w, c, cport, seen, 21);
}

/* One line of the client (@p from_client) or the server; @return its decision. */
static struct rule_decision
ctl_say(struct world *w, struct ctl *c, bool from_client, const char *line)
{
	struct rule_decision d;

	if (from_client) {
		d = rx(w, CLIENT, c->cport, SERVER, c->sport, PB_TCP_ACK | PB_TCP_PSH, c->cseq,
			c->sseq, line);
		if (accepted(d))
			c->cseq += (uint32_t)strlen(line);
	} else {
		d = rx(w, SERVER, c->sport, c->seen, c->cport, PB_TCP_ACK | PB_TCP_PSH, c->sseq,
			c->cseq, line);
		if (accepted(d))
			c->sseq += (uint32_t)strlen(line);
	}
	return d;
}

static const char *ftp_rules = "policy drop\n"
			       "accept ctstate established,related\n"
			       "accept proto tcp dport 21 ctstate new\n"
			       "table raw\n"
			       "chain pre hook prerouting\n"
			       "ct ct_helper ftp proto tcp dport 21\n";

static void
test_active_and_passive(void **state)
{
	struct mod_ct_helper_stats st;
	struct rule_flow_info fi;
	struct mod_ct_conn conn;
	struct world w;
	struct ctl c;
	struct fc_pkt p;

	(void)state;
	world_up(&w, ftp_rules);
	ctl_open(&w, &c, 40000, CLIENT);
	assert_true(accepted(ctl_say(&w, &c, false, "220 welcome\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "USER ftp\r\n")));
	assert_true(accepted(ctl_say(&w, &c, false, "331 go on\r\n")));
	/* Without an expectation the server cannot connect back (another source
	 * port: a dropped new flow's drop is cached for its tuple). */
	assert_false(accepted(rx(&w, SERVER, 2020, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	/* Active: PORT makes the expectation; the server's data connection is RELATED. */
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,1\r\n")));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	assert_int_equal(tcp_frame(w.frame, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL, 0),
		w.len);
	assert_int_equal(fc_parse(w.frame, w.len, &p), FC_PARSE_OK);
	assert_int_equal(rule_engine_flow_lookup(w.eng, &p.key, &fi), 0);
	assert_int_equal(mod_ct_module_conn_get(w.ct, &fi.act, &conn), 0);
	assert_int_equal(conn.master_helper, MOD_CT_HELPER_FTP);
	assert_int_equal(mod_ct_conn_ctstate(&conn, MOD_CT_DIR_ORIG), RULE_CT_RELATED);
	/* Its handshake completes; the reply makes it ESTABLISHED. */
	assert_true(accepted(rx(&w, CLIENT, 1025, SERVER, 20, PB_TCP_SYN | PB_TCP_ACK, 7, 2, NULL)));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_ACK, 2, 8, NULL)));
	/* Consumed: a second connection to the port is not related. */
	assert_false(accepted(rx(&w, SERVER, 21000, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	/* Passive: 227 lets the client connect to the announced port, once. */
	assert_true(accepted(ctl_say(&w, &c, true, "PASV\r\n")));
	assert_true(accepted(ctl_say(&w, &c, false, "227 Entering Passive Mode (192,0,2,7,19,137).\r\n")));
	assert_true(accepted(rx(&w, CLIENT, 40100, SERVER, 5001, PB_TCP_SYN, 1, 0, NULL)));
	assert_false(accepted(rx(&w, CLIENT, 40101, SERVER, 5001, PB_TCP_SYN, 1, 0, NULL)));
	/* A bounce (PORT naming another host) expects nothing. */
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 192,0,2,99,0,22\r\n")));
	assert_false(accepted(rx(&w, SERVER, 20, 0xc0000263u, 22, PB_TCP_SYN, 1, 0, NULL)));
	/* A split command: the first part is dropped (as Linux), the whole one counts. */
	assert_false(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,")));
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,9\r\n")));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1033, PB_TCP_SYN, 1, 0, NULL)));
	/* Segments without payload stay on the fast path. */
	rx(&w, CLIENT, c.cport, SERVER, 21, PB_TCP_ACK, c.cseq, c.sseq, NULL);
	assert_true(w.fast);
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.conns, 1);
	assert_int_equal(st.commands, 3);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.related, 3);
	assert_int_equal(st.exp.matched, 3);
	assert_int_equal(st.exp.active, 0);
	world_down(&w);
}

/*
 * A data connection whose exact tuple was dropped (and cached) before its
 * expectation existed: the expectation takes the cached drop away, so the
 * next SYN of that tuple goes up and meets it (RELATED), as in Linux where
 * a dropped packet leaves nothing behind. Active (PORT) and passive (227).
 */
static void
test_expect_after_cached_drop(void **state)
{
	struct rule_engine_stats st;
	struct world w;
	struct ctl c;
	struct fc_pkt p;
	struct rule_flow_info fi;

	(void)state;
	world_up(&w, ftp_rules);
	ctl_open(&w, &c, 40000, CLIENT);
	assert_true(accepted(ctl_say(&w, &c, false, "220 welcome\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "USER ftp\r\n")));
	assert_true(accepted(ctl_say(&w, &c, false, "331 go on\r\n")));
	/* Too early: dropped, and the drop is cached for the tuple ... */
	assert_false(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	assert_false(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(w.fast);
	assert_int_equal(tcp_frame(w.frame, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL, 0),
		w.len);
	assert_int_equal(fc_parse(w.frame, w.len, &p), FC_PARSE_OK);
	assert_int_equal(rule_engine_flow_lookup(w.eng, &p.key, &fi), 0);
	/* ... until PORT expects it: the retransmitted SYN is RELATED, accepted. */
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,1\r\n")));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(accepted(rx(&w, CLIENT, 1025, SERVER, 20, PB_TCP_SYN | PB_TCP_ACK, 7, 2, NULL)));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_ACK, 2, 8, NULL)));
	/* Passive: the client's early SYN to the port the server will announce. */
	assert_false(accepted(rx(&w, CLIENT, 40100, SERVER, 5001, PB_TCP_SYN, 1, 0, NULL)));
	assert_false(accepted(rx(&w, CLIENT, 40100, SERVER, 5001, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(w.fast);
	assert_true(accepted(ctl_say(&w, &c, true, "PASV\r\n")));
	assert_true(accepted(ctl_say(&w, &c, false, "227 Entering Passive Mode (192,0,2,7,19,137).\r\n")));
	assert_true(accepted(rx(&w, CLIENT, 40100, SERVER, 5001, PB_TCP_SYN, 1, 0, NULL)));
	/* Another flow's cached drop to another port stays. */
	assert_false(accepted(rx(&w, CLIENT, 40102, SERVER, 5002, PB_TCP_SYN, 1, 0, NULL)));
	assert_false(accepted(rx(&w, CLIENT, 40102, SERVER, 5002, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(w.fast);
	rule_engine_stats_get(w.eng, &st);
	assert_int_equal(st.drops_expected, 2);
	world_down(&w);
}

static void
test_no_helper(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	struct ctl c;

	(void)state;
	/* Without CT --helper (nf_conntrack_helper=0): nothing is expected. */
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto tcp dport 21 ctstate new\n");
	ctl_open(&w, &c, 40000, CLIENT);
	assert_true(accepted(ctl_say(&w, &c, false, "220 welcome\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "USER ftp\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,1\r\n")));
	assert_false(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	/* The control connection's segments never leave the fast path for a helper. */
	ctl_say(&w, &c, true, "PORT 10,0,0,1,4,2\r\n");
	assert_true(w.fast);
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.conns, 0);
	assert_int_equal(st.exp.created, 0);
	world_down(&w);
}

static void
test_ctstatus_and_helper_match(void **state)
{
	struct world w;
	struct ctl c;

	(void)state;
	/* RELATED alone is not accepted: only by --ctstatus EXPECTED or -m helper. */
	world_up(&w, "policy drop\n"
		     "accept ctstate established\n"
		     "accept proto tcp dport 21 ctstate new\n"
		     "accept proto tcp dport 1025 ctstatus expected\n"
		     "accept proto tcp dport 1026 helper ftp ctstate related\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper ftp proto tcp dport 21\n");
	ctl_open(&w, &c, 40000, CLIENT);
	assert_true(accepted(ctl_say(&w, &c, false, "220 welcome\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "USER ftp\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,1\r\n")));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1025, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,2\r\n")));
	assert_true(accepted(rx(&w, SERVER, 20, CLIENT, 1026, PB_TCP_SYN, 1, 0, NULL)));
	/* Expected, but to a port neither rule accepts. */
	assert_true(accepted(ctl_say(&w, &c, true, "PORT 10,0,0,1,4,3\r\n")));
	assert_false(accepted(rx(&w, SERVER, 20, CLIENT, 1027, PB_TCP_SYN, 1, 0, NULL)));
	world_down(&w);
}

static void
test_masquerade(void **state)
{
	const char *port = "PORT 10,0,0,1,4,1\r\n", *want = "PORT 198,51,100,1,4,1\r\n";
	int32_t delta = (int32_t)strlen(want) - (int32_t)strlen(port);
	struct mod_ct_helper_stats st;
	struct rule_decision d;
	struct world w;
	struct ctl c;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto tcp dport 21 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper ftp proto tcp dport 21\n");
	ctl_open(&w, &c, 40000, MASQ);
	/* The server talks to the masquerade address; replies come back to it. */
	assert_true(accepted(ctl_say(&w, &c, false, "220 welcome\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, "USER ftp\r\n")));
	/* PORT: rewritten to the address the server sees, checksums right. */
	assert_true(accepted(ctl_say(&w, &c, true, port)));
	assert_memory_equal(w.frame + 14 + 20 + 20, want, strlen(want));
	assert_int_equal(rd32(w.frame + 14 + 12), MASQ);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	assert_int_equal(w.len, 14 + 20 + 20 + strlen(want));
	/* The client's next segment leaves shifted by the growth ... */
	assert_true(accepted(ctl_say(&w, &c, true, "LIST\r\n")));
	assert_false(w.fast);
	assert_int_equal(rd32(w.frame + 14 + 20 + 4), c.cseq - 6 + (uint32_t)delta);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* ... and the server's ACK of it, in the shifted space, comes back unshifted,
	 * valid for conntrack's windows (else INVALID, dropped). */
	d = rx(&w, SERVER, 21, MASQ, 40000, PB_TCP_ACK, c.sseq, c.cseq + (uint32_t)delta, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 20 + 8), c.cseq);
	assert_int_equal(rd32(w.frame + 14 + 16), CLIENT);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* The data connection to the announced (rewritten) port goes to the client. */
	d = rx(&w, SERVER, 20, MASQ, 1025, PB_TCP_SYN, 1, 0, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 16), CLIENT);
	assert_int_equal(w.frame[14 + 20 + 2] << 8 | w.frame[14 + 20 + 3], 1025);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.nat_rewrites, 1);
	assert_int_equal(st.nat_failed, 0);
	assert_int_equal(st.related, 1);
	world_down(&w);
}

/* IRC: a DCC offer of the client's own address expects a connection from anywhere. */
static void
test_irc_dcc(void **state)
{
	const char *offer = "PRIVMSG bob :\1DCC SEND f 167772161 40000 10\1\r\n";
	struct mod_ct_helper_stats st;
	struct world w;
	struct ctl c;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established\n"
		     "accept proto tcp dport 6667 ctstate new\n"
		     "accept proto tcp ctstate related helper irc\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper irc proto tcp dport 6667\n");
	ctl_open_port(&w, &c, 40100, CLIENT, 6667);
	assert_true(accepted(ctl_say(&w, &c, false, ":srv 001 alice :hi\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, offer)));
	/* From any host, once. */
	assert_true(accepted(rx(&w, 0xcb007101u, 5555, CLIENT, 40000, PB_TCP_SYN, 1, 0, NULL)));
	assert_false(accepted(rx(&w, 0xcb007102u, 5555, CLIENT, 40000, PB_TCP_SYN, 1, 0, NULL)));
	/* An offer of another host's address expects nothing; nor one from the server. */
	assert_true(accepted(ctl_say(&w, &c, true,
		"PRIVMSG bob :\1DCC SEND f 167772162 40001 10\1\r\n")));
	assert_false(accepted(rx(&w, 0xcb007101u, 5555, CLIENT + 1, 40001, PB_TCP_SYN, 1, 0, NULL)));
	assert_true(accepted(ctl_say(&w, &c, false,
		"PRIVMSG alice :\1DCC SEND f 167772161 40002 10\1\r\n")));
	assert_false(accepted(rx(&w, 0xcb007101u, 5555, CLIENT, 40002, PB_TCP_SYN, 1, 0, NULL)));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.commands, 1);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.related, 1);
	world_down(&w);
}

/* IRC behind masquerade: the offer rewritten to the outside address (nf_nat_irc). */
static void
test_irc_masquerade(void **state)
{
	const char *offer = "PRIVMSG bob :\1DCC SEND f 167772161 40000 10\1\r\n";
	const char *want = "PRIVMSG bob :\1DCC SEND f 3325256705 40000 10\1\r\n";
	int32_t delta = (int32_t)strlen(want) - (int32_t)strlen(offer);
	struct rule_decision d;
	struct world w;
	struct ctl c;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto tcp dport 6667 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper irc proto tcp dport 6667\n");
	ctl_open_port(&w, &c, 40100, MASQ, 6667);
	assert_true(accepted(ctl_say(&w, &c, false, ":srv 001 alice :hi\r\n")));
	assert_true(accepted(ctl_say(&w, &c, true, offer)));
	assert_memory_equal(w.frame + 14 + 20 + 20, want, strlen(want));
	assert_int_equal(w.len, 14 + 20 + 20 + strlen(want));
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* The server's ACK of it comes back unshifted. */
	d = rx(&w, SERVER, 6667, MASQ, 40100, PB_TCP_ACK, c.sseq, c.cseq + (uint32_t)delta, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 20 + 8), c.cseq);
	/* A peer's connection to the outside address reaches the client, from the server's address. */
	d = rx(&w, 0xcb007101u, 5555, MASQ, 40000, PB_TCP_SYN, 1, 0, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 16), CLIENT);
	assert_int_equal(rd32(w.frame + 14 + 12), SERVER);
	assert_int_equal(w.frame[14 + 20 + 2] << 8 | w.frame[14 + 20 + 3], 40000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	world_down(&w);
}

/*
 * SIP over TCP behind masquerade: a segment with two whole messages and
 * the start of a third: both whole ones rewritten (the REGISTER's Contact
 * expected over TCP), the cut one left; the sequence numbers shift once
 * for the segment; the registrar's answer is rewritten back and its
 * connection to the registered Contact reaches the phone.
 */
static void
test_sip_tcp(void **state)
{
	const char *in = "OPTIONS sip:192.0.2.7 SIP/2.0\r\n"
			 "Via: SIP/2.0/TCP 10.0.0.1:40300;branch=a\r\n"
			 "CSeq: 1 OPTIONS\r\n"
			 "Content-Length: 0\r\n\r\n"
			 "REGISTER sip:192.0.2.7 SIP/2.0\r\n"
			 "Via: SIP/2.0/TCP 10.0.0.1:40300;branch=b\r\n"
			 "CSeq: 2 REGISTER\r\n"
			 "Contact: <sip:alice@10.0.0.1:40300;transport=tcp>\r\n"
			 "Expires: 60\r\n"
			 "Content-Length: 0\r\n\r\n"
			 "OPTIONS sip:192.0.2.7 SIP/2.0\r\n"
			 "Via: SIP/2.0/TCP 10.0.0.1:40300\r\n";
	const char *out = "OPTIONS sip:192.0.2.7 SIP/2.0\r\n"
			  "Via: SIP/2.0/TCP 198.51.100.1:40300;branch=a\r\n"
			  "CSeq: 1 OPTIONS\r\n"
			  "Content-Length: 0\r\n\r\n"
			  "REGISTER sip:192.0.2.7 SIP/2.0\r\n"
			  "Via: SIP/2.0/TCP 198.51.100.1:40300;branch=b\r\n"
			  "CSeq: 2 REGISTER\r\n"
			  "Contact: <sip:alice@198.51.100.1:40300;transport=tcp>\r\n"
			  "Expires: 60\r\n"
			  "Content-Length: 0\r\n\r\n"
			  "OPTIONS sip:192.0.2.7 SIP/2.0\r\n"
			  "Via: SIP/2.0/TCP 10.0.0.1:40300\r\n";
	const char *ok = "SIP/2.0 200 OK\r\n"
			 "Via: SIP/2.0/TCP 198.51.100.1:40300;branch=b\r\n"
			 "CSeq: 2 REGISTER\r\n"
			 "Contact: <sip:alice@198.51.100.1:40300;transport=tcp>;expires=60\r\n"
			 "Content-Length: 0\r\n\r\n";
	const char *ok_in = "SIP/2.0 200 OK\r\n"
			    "Via: SIP/2.0/TCP 10.0.0.1:40300;branch=b\r\n"
			    "CSeq: 2 REGISTER\r\n"
			    "Contact: <sip:alice@10.0.0.1:40300;transport=tcp>;expires=60\r\n"
			    "Content-Length: 0\r\n\r\n";
	uint32_t lin = (uint32_t)strlen(in), lout = (uint32_t)strlen(out);
	struct mod_ct_helper_stats st;
	struct rule_decision d;
	struct world w;
	struct ctl c;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto tcp dport 5060 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sip proto tcp dport 5060\n");
	ctl_open_port(&w, &c, 40300, MASQ, 5060);
	assert_true(accepted(rx(&w, CLIENT, 40300, SERVER, 5060, PB_TCP_ACK | PB_TCP_PSH, c.cseq,
		c.sseq, in)));
	assert_int_equal(w.len, 14 + 20 + 20 + lout);
	assert_memory_equal(w.frame + 14 + 20 + 20, out, lout);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* The server's ACK of it comes back in the client's own numbers. */
	d = rx(&w, SERVER, 5060, MASQ, 40300, PB_TCP_ACK, c.sseq, c.cseq + lout, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 20 + 8), c.cseq + lin);
	/* The registrar's 200 OK: Via and Contact back to the phone's own. */
	d = rx(&w, SERVER, 5060, MASQ, 40300, PB_TCP_ACK | PB_TCP_PSH, c.sseq, c.cseq + lout, ok);
	assert_true(accepted(d));
	assert_int_equal(w.len, 14 + 20 + 20 + strlen(ok_in));
	assert_memory_equal(w.frame + 14 + 20 + 20, ok_in, strlen(ok_in));
	assert_int_equal(rd32(w.frame + 14 + 20 + 4), c.sseq);
	assert_int_equal(rd32(w.frame + 14 + 20 + 8), c.cseq + lin);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* The client's next segment: its numbers shifted, its ACK moved back. */
	d = rx(&w, CLIENT, 40300, SERVER, 5060, PB_TCP_ACK, c.cseq + lin,
		c.sseq + (uint32_t)strlen(ok_in), NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 20 + 4), c.cseq + lout);
	assert_int_equal(rd32(w.frame + 14 + 20 + 8), c.sseq + (uint32_t)strlen(ok));
	/* The registrar's connection to the registered Contact: RELATED, to the phone. */
	d = rx(&w, SERVER, 5555, MASQ, 40300, PB_TCP_SYN, 1, 0, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 16), CLIENT);
	assert_int_equal(w.frame[14 + 20 + 2] << 8 | w.frame[14 + 20 + 3], 40300);
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.related, 1);
	assert_int_equal(st.nat_rewrites, 2);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.nat_failed, 0);
	world_down(&w);
}

/* SANE: a data connection to the port SANE_NET_START's reply names. */
static void
test_sane(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	struct ctl c;
	uint8_t req[8] = {0, 0, 0, 7, 0, 0, 0, 1}, rep[16] = {0, 0, 0, 0, 0, 0, 0x1f, 0x40};
	struct rule_decision d;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established\n"
		     "accept proto tcp dport 6566 ctstate new\n"
		     "accept proto tcp ctstate related helper sane\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sane proto tcp dport 6566\n");
	ctl_open_port(&w, &c, 40200, MASQ, 6566);
	/* SANE_NET_START (8 bytes), the reply with port 8000. */
	assert_true(accepted(rx_n(&w, CLIENT, 40200, SERVER, 6566, PB_TCP_ACK | PB_TCP_PSH, c.cseq,
		c.sseq, req, 8)));
	c.cseq += 8;
	assert_true(accepted(rx_n(&w, SERVER, 6566, MASQ, 40200, PB_TCP_ACK | PB_TCP_PSH, c.sseq,
		c.cseq, rep, 16)));
	c.sseq += 16;
	/* The client's data connection to that port: RELATED, masqueraded as any flow. */
	d = rx(&w, CLIENT, 40201, SERVER, 8000, PB_TCP_SYN, 1, 0, NULL);
	assert_true(accepted(d));
	assert_int_equal(rd32(w.frame + 14 + 12), MASQ);
	/* Once, and only to that port. */
	assert_false(accepted(rx(&w, CLIENT, 40202, SERVER, 8000, PB_TCP_SYN, 1, 0, NULL)));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.commands, 1);
	assert_int_equal(st.related, 1);
	world_down(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_active_and_passive),
		cmocka_unit_test(test_expect_after_cached_drop),
		cmocka_unit_test(test_no_helper),
		cmocka_unit_test(test_ctstatus_and_helper_match),
		cmocka_unit_test(test_masquerade),
		cmocka_unit_test(test_irc_dcc),
		cmocka_unit_test(test_irc_masquerade),
		cmocka_unit_test(test_sane),
		cmocka_unit_test(test_sip_tcp),
	};

	return GUFC_TEST_POOL_MAIN("ct_helper", "0", &pool, 256, 0, tests);
}
