/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_udp.c — the UDP helpers in the rules engine
 * (lib/modules/conntrack/ct_helper.c), with EAL. TFTP: a client's read or write
 * request to port 69, on a connection the raw table gave the helper,
 * expects the server's answer from any port to the client's address and
 * port; the answer is RELATED, --ctstatus EXPECTED, -m helper tftp, and
 * its connection carries the transfer both ways; once. Other opcodes, a
 * request the filter dropped, a connection without the helper expect
 * nothing. Behind masquerade the answer to the translated client goes to
 * the client itself; behind a DNAT of the server, it leaves from the
 * address the client asked (Linux's nf_nat_tftp and follow_master).
 * SIP: an INVITE's and its answer's session descriptions expect RTP and
 * RTCP from the other side to the announced address (the sender's own
 * only), RELATED, -m helper sip; a BYE, a new INVITE and a failure answer
 * take them back; a message Linux cannot parse is dropped.
 *
 * Each frame goes through what the datapath does: lookup, interest, the
 * cached verdict or rule_engine_upcall_burst(), the NAT rewrite.
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

#include <rte_lcore.h>
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
#define INNER  0x0a090005u /* 10.9.0.5: the server behind a DNAT of SERVER */

#define RRQ "\0\1boot.img\0octet"
#define WRQ "\0\2up.txt\0octet"
#define DATA1 "\0\3\0\1payload"
#define ACK1 "\0\4\0\1"
#define OP_LEN(s) (sizeof(s) - 1)

static struct rte_mempool *pool;

/* What the datapath does with one UDP datagram (world_rx()); it leaves in w->frame. */
static struct rule_decision
rx(struct world *w, uint32_t src, uint16_t sp, uint32_t dst, uint16_t dp, const char *payload,
	uint32_t plen)
{
	struct pb_ipv4 ip = {.src = src, .dst = dst};
	struct pb b;
	int n;

	pb_init(&b, w->frame, FRAME_MAX);
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_udp(&b, sp, dp);
	pb_payload(&b, payload, plen);
	n = pb_finish(&b);
	assert_true(n > 0);
	w->len = (uint32_t)n;
	return world_rx(w, pool);
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The frame as it left: addresses, ports, and a valid UDP checksum. */
#define IP_SRC(w) rd32((w)->frame + 14 + 12)
#define IP_DST(w) rd32((w)->frame + 14 + 16)
#define UDP_SP(w) rd16((w)->frame + 14 + 20)
#define UDP_DP(w) rd16((w)->frame + 14 + 22)

static const char *tftp_rules = "policy drop\n"
				"accept ctstate established,related\n"
				"accept proto udp dport 69 ctstate new\n"
				"table raw\n"
				"chain pre hook prerouting\n"
				"ct ct_helper tftp proto udp dport 69\n";

static void
test_read_and_write(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;

	(void)state;
	world_up(&w, tftp_rules);
	/* RRQ: the server answers from a port of its own, the client acks it. */
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_true(accepted(rx(&w, SERVER, 50000, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 50000, ACK1, OP_LEN(ACK1))));
	assert_true(accepted(rx(&w, SERVER, 50000, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	assert_true(w.fast); /* the transfer is an ordinary connection now */
	/* Once: another port of the server is not expected any more. */
	assert_false(accepted(rx(&w, SERVER, 50001, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	/* WRQ too, from another client port. */
	assert_true(accepted(rx(&w, CLIENT, 40001, SERVER, 69, WRQ, OP_LEN(WRQ))));
	assert_true(accepted(rx(&w, SERVER, 50002, CLIENT, 40001, ACK1, OP_LEN(ACK1))));
	/* An answer to another client port, or from another host: not expected. */
	assert_true(accepted(rx(&w, CLIENT, 40002, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_false(accepted(rx(&w, SERVER, 50003, CLIENT, 40009, DATA1, OP_LEN(DATA1))));
	assert_false(accepted(rx(&w, SERVER + 1, 50003, CLIENT, 40002, DATA1, OP_LEN(DATA1))));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.conns, 3);
	assert_int_equal(st.commands, 3);
	assert_int_equal(st.related, 2);
	assert_int_equal(st.exp.created, 3);
	assert_int_equal(st.exp.active, 1);
	assert_int_equal(st.dropped, 0);
	world_down(&w);
}

static void
test_nothing_expected(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;

	(void)state;
	/* Without the helper: no expectation, the answer is a new flow (dropped). */
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dport 69 ctstate new\n");
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_false(accepted(rx(&w, SERVER, 50000, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	world_down(&w);

	/* Other opcodes, a short datagram: nothing. A request the filter
	 * dropped: nothing (Linux's helper sees what was accepted). */
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dport 69 src 10.0.0.1 ctstate new\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper tftp proto udp dport 69\n");
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, DATA1, OP_LEN(DATA1))));
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, "\0", 1)));
	assert_false(w.fast); /* every packet of a helped connection is read */
	assert_false(accepted(rx(&w, SERVER, 50000, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	assert_false(accepted(rx(&w, CLIENT + 1, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_false(accepted(rx(&w, SERVER, 50000, CLIENT + 1, 40000, DATA1, OP_LEN(DATA1))));
	/* A later request on the same connection (a retransmission) does expect. */
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_false(w.fast);
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.commands, 2);
	assert_int_equal(st.exp.created, 2);
	assert_int_equal(st.exp.active, 1); /* the retransmission's replaced the first */
	/* (From another port: the dropped 50000 flow above stays cached as dropped.) */
	assert_true(accepted(rx(&w, SERVER, 50005, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	world_down(&w);
}

static void
test_ctstatus_and_helper_match(void **state)
{
	struct world w;

	(void)state;
	/* RELATED alone is not accepted: only by --ctstatus EXPECTED or -m helper. */
	world_up(&w, "policy drop\n"
		     "accept ctstate established\n"
		     "accept proto udp dport 69 ctstate new\n"
		     "accept proto udp dport 41000 ctstatus expected\n"
		     "accept proto udp dport 41001 helper tftp ctstate related\n"
		     "accept proto udp dport 41002 helper ftp\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper tftp proto udp dport 69\n");
	for (uint16_t p = 41000; p <= 41002; p++)
		assert_true(accepted(rx(&w, CLIENT, p, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_true(accepted(rx(&w, SERVER, 50000, CLIENT, 41000, DATA1, OP_LEN(DATA1))));
	assert_true(accepted(rx(&w, SERVER, 50001, CLIENT, 41001, DATA1, OP_LEN(DATA1))));
	/* Expected by tftp: -m helper ftp does not match it. */
	assert_false(accepted(rx(&w, SERVER, 50002, CLIENT, 41002, DATA1, OP_LEN(DATA1))));
	world_down(&w);
}

static void
test_masquerade(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	uint16_t tport;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dport 69 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper tftp proto udp dport 69\n");
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_int_equal(IP_SRC(&w), MASQ);
	tport = UDP_SP(&w);
	/* The answer to the translated client reaches the client itself. */
	assert_true(accepted(rx(&w, SERVER, 50000, MASQ, tport, DATA1, OP_LEN(DATA1))));
	assert_int_equal(IP_SRC(&w), SERVER);
	assert_int_equal(UDP_SP(&w), 50000);
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 40000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* The client's ACK leaves as the translated client, to the server's port. */
	assert_true(accepted(rx(&w, CLIENT, 40000, SERVER, 50000, ACK1, OP_LEN(ACK1))));
	assert_int_equal(IP_SRC(&w), MASQ);
	assert_int_equal(UDP_SP(&w), tport);
	assert_int_equal(IP_DST(&w), SERVER);
	assert_int_equal(UDP_DP(&w), 50000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* Not to the client's own address from outside. */
	assert_false(accepted(rx(&w, SERVER, 50001, CLIENT, 40000, DATA1, OP_LEN(DATA1))));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.related, 1);
	world_down(&w);
}

static void
test_dnat_server(void **state)
{
	const uint32_t outside = 0xcb007105u; /* 203.0.113.5 */
	struct world w;

	(void)state;
	/* The server behind a DNAT of SERVER: its answer leaves from SERVER. */
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dport 69 ctstate new,dnat\n"
		     "table nat\n"
		     "chain pre hook prerouting\n"
		     "dnat to 10.9.0.5 proto udp dst 192.0.2.7 dport 69\n"
		     "table raw\n"
		     "chain rpre hook prerouting\n"
		     "ct ct_helper tftp proto udp dport 69\n");
	assert_true(accepted(rx(&w, outside, 40000, SERVER, 69, RRQ, OP_LEN(RRQ))));
	assert_int_equal(IP_DST(&w), INNER);
	assert_true(accepted(rx(&w, INNER, 50000, outside, 40000, DATA1, OP_LEN(DATA1))));
	assert_int_equal(IP_SRC(&w), SERVER);
	assert_int_equal(UDP_SP(&w), 50000);
	assert_int_equal(IP_DST(&w), outside);
	assert_int_equal(UDP_DP(&w), 40000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	assert_true(accepted(rx(&w, outside, 40000, SERVER, 50000, ACK1, OP_LEN(ACK1))));
	assert_int_equal(IP_DST(&w), INNER);
	assert_int_equal(UDP_DP(&w), 50000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	world_down(&w);
}

static const char *sip_rules = "policy drop\n"
			       "accept ctstate established\n"
			       "accept ctstate related helper sip\n"
			       "accept proto udp dport 5060 ctstate new\n"
			       "table raw\n"
			       "chain pre hook prerouting\n"
			       "ct ct_helper sip proto udp dport 5060\n";

/* A SIP message with CSeq @p cseq and, if @p rtp, an SDP announcing @p addr:@p rtp. */
static uint32_t
sip_msg(char *buf, size_t size, const char *start, unsigned int cseq, const char *method,
	const char *addr, unsigned int rtp)
{
	int n = snprintf(buf, size, "%s\r\nVia: SIP/2.0/UDP x\r\nCSeq: %u %s\r\n", start, cseq,
		method);

	if (rtp != 0)
		n += snprintf(buf + n, size - (size_t)n,
			"Content-Type: application/sdp\r\n\r\nv=0\r\nc=IN IP4 %s\r\nt=0 0\r\n"
			"m=audio %u RTP/AVP 0\r\n", addr, rtp);
	else
		n += snprintf(buf + n, size - (size_t)n, "\r\n");
	return (uint32_t)n;
}

static void
test_sip_media(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	char b[400];
	uint32_t n;

	(void)state;
	world_up(&w, sip_rules);
	/* The caller's INVITE: RTP and RTCP from the callee to 10.0.0.1:4000/4001. */
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 1, "INVITE", "10.0.0.1", 4000);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	assert_false(w.fast);
	/* The callee's 200 OK: its media at 192.0.2.7:7001 (the pair 7000/7001). */
	n = sip_msg(b, sizeof(b), "SIP/2.0 200 OK", 1, "INVITE", "192.0.2.7", 7001);
	assert_true(accepted(rx(&w, SERVER, 5060, CLIENT, 5060, b, n)));
	assert_true(accepted(rx(&w, SERVER, 30000, CLIENT, 4000, "rtp", 3)));
	assert_true(accepted(rx(&w, SERVER, 30001, CLIENT, 4001, "rtcp", 4)));
	assert_true(accepted(rx(&w, CLIENT, 4000, SERVER, 7000, "rtp", 3)));
	assert_true(accepted(rx(&w, CLIENT, 4001, SERVER, 7001, "rtcp", 4)));
	/* Only from the other side, only those ports. */
	assert_false(accepted(rx(&w, SERVER + 1, 30000, CLIENT, 4002, "rtp", 3)));
	assert_false(accepted(rx(&w, SERVER, 30000, CLIENT, 4002, "rtp", 3)));
	/* Media announced at another host than the sender: not expected (direct media). */
	n = sip_msg(b, sizeof(b), "SIP/2.0 200 OK", 2, "UPDATE", "192.0.2.99", 8000);
	assert_true(accepted(rx(&w, SERVER, 5060, CLIENT, 5060, b, n)));
	assert_false(accepted(rx(&w, CLIENT, 4000, 0xc0000263u, 8000, "rtp", 3)));
	/* What Linux cannot parse is dropped: no CSeq, a media port below 1024. */
	assert_false(accepted(rx(&w, CLIENT, 5060, SERVER, 5060,
		"INVITE sip:b@x SIP/2.0\r\n\r\n", 26)));
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 3, "INVITE", "10.0.0.1", 80);
	assert_false(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.commands, 2);
	assert_int_equal(st.related, 4);
	assert_int_equal(st.dropped, 2);
	world_down(&w);
}

static void
test_sip_teardown(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	char b[400];
	uint32_t n;

	(void)state;
	world_up(&w, sip_rules);
	/* A BYE takes the media expectations back. */
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 1, "INVITE", "10.0.0.1", 4000);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	n = sip_msg(b, sizeof(b), "BYE sip:bob@192.0.2.7 SIP/2.0", 2, "BYE", NULL, 0);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	assert_false(accepted(rx(&w, SERVER, 30000, CLIENT, 4000, "rtp", 3)));
	/* A failure answer to the INVITE too. */
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 3, "INVITE", "10.0.0.1", 4100);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	n = sip_msg(b, sizeof(b), "SIP/2.0 486 Busy Here", 3, "INVITE", NULL, 0);
	assert_true(accepted(rx(&w, SERVER, 5060, CLIENT, 5060, b, n)));
	assert_false(accepted(rx(&w, SERVER, 30002, CLIENT, 4100, "rtp", 3)));
	/* An answer to another CSeq leaves them. */
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 4, "INVITE", "10.0.0.1", 4200);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	n = sip_msg(b, sizeof(b), "SIP/2.0 481 Gone", 3, "INVITE", NULL, 0);
	assert_true(accepted(rx(&w, SERVER, 5060, CLIENT, 5060, b, n)));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.exp.active, 2);
	assert_true(accepted(rx(&w, SERVER, 30004, CLIENT, 4200, "rtp", 3)));
	/* Without the helper: nothing expected. */
	world_down(&w);
	world_up(&w, "policy drop\naccept ctstate established,related\n"
		     "accept proto udp dport 5060 ctstate new\n");
	n = sip_msg(b, sizeof(b), "INVITE sip:bob@192.0.2.7 SIP/2.0", 1, "INVITE", "10.0.0.1", 4000);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	assert_false(accepted(rx(&w, SERVER, 30000, CLIENT, 4000, "rtp", 3)));
	world_down(&w);
}

/*
 * SIP behind masquerade: nothing inside the messages is rewritten (no
 * nf_nat_sip), the verdicts work: signalling and the caller's media go
 * out translated, the callee's media come back as their replies.
 */
/* The IP header's checksum and lengths agree with the frame. */
static bool
ip_ok(const struct world *w)
{
	const uint8_t *ip = w->frame + 14;

	return csum_ref_ip4_ok(ip) && rd16(ip + 2) == w->len - 14 &&
	       rd16(ip + 20 + 4) == w->len - 34;
}

/* A SIP message: @p head's lines, then a Content-Length and @p sdp. */
static uint32_t
sip_full(char *buf, size_t size, const char *head, const char *sdp)
{
	return (uint32_t)snprintf(buf, size, "%sContent-Length: %zu\r\n\r\n%s", head, strlen(sdp),
		sdp);
}

static void
test_sip_masquerade(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	char b[800], want[800], head[600], sdp[200];
	uint16_t sig;
	uint32_t n;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dport 5060 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sip proto udp dport 5060\n");
	/* The caller's INVITE: its Via, Contact and From (port 5060 implied)
	 * and its session description name the masquerade address. */
	n = sip_full(b, sizeof(b),
		"INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
		"Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1;rport\r\n"
		"From: <sip:alice@10.0.0.1>;tag=1\r\n"
		"To: <sip:bob@192.0.2.7>\r\n"
		"Call-ID: c1@10.0.0.1\r\n"
		"CSeq: 1 INVITE\r\n"
		"Contact: <sip:alice@10.0.0.1:5060>\r\n"
		"Content-Type: application/sdp\r\n",
		"v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\n"
		"m=audio 4000 RTP/AVP 0\r\n");
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	assert_int_equal(IP_SRC(&w), MASQ);
	sig = UDP_SP(&w);
	snprintf(head, sizeof(head),
		"INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
		"Via: SIP/2.0/UDP 198.51.100.1:%u;branch=z9hG4bK1;rport\r\n"
		"From: <sip:alice@198.51.100.1:%u>;tag=1\r\n"
		"To: <sip:bob@192.0.2.7>\r\n"
		"Call-ID: c1@10.0.0.1\r\n"
		"CSeq: 1 INVITE\r\n"
		"Contact: <sip:alice@198.51.100.1:%u>\r\n"
		"Content-Type: application/sdp\r\n",
		sig, sig, sig);
	n = sip_full(want, sizeof(want), head,
		"v=0\r\no=- 1 1 IN IP4 198.51.100.1\r\ns=-\r\nc=IN IP4 198.51.100.1\r\nt=0 0\r\n"
		"m=audio 4000 RTP/AVP 0\r\n");
	assert_int_equal(w.len, 14 + 20 + 8 + n);
	assert_memory_equal(w.frame + 14 + 28, want, n);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	assert_true(ip_ok(&w));
	/* The answer: Via, received= and From back to the caller's own. */
	snprintf(head, sizeof(head),
		"SIP/2.0 200 OK\r\n"
		"Via: SIP/2.0/UDP 198.51.100.1:%u;branch=z9hG4bK1;rport=%u;received=198.51.100.1\r\n"
		"From: <sip:alice@198.51.100.1:%u>;tag=1\r\n"
		"To: <sip:bob@192.0.2.7>;tag=2\r\n"
		"Call-ID: c1@10.0.0.1\r\n"
		"CSeq: 1 INVITE\r\n"
		"Contact: <sip:bob@192.0.2.7:5060>\r\n"
		"Content-Type: application/sdp\r\n",
		sig, sig, sig);
	snprintf(sdp, sizeof(sdp),
		"v=0\r\no=- 2 2 IN IP4 192.0.2.7\r\ns=-\r\nc=IN IP4 192.0.2.7\r\nt=0 0\r\n"
		"m=audio 7000 RTP/AVP 0\r\n");
	n = sip_full(b, sizeof(b), head, sdp);
	assert_true(accepted(rx(&w, SERVER, 5060, MASQ, sig, b, n)));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 5060);
	snprintf(head, sizeof(head),
		"SIP/2.0 200 OK\r\n"
		"Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1;rport=%u;received=10.0.0.1\r\n"
		"From: <sip:alice@10.0.0.1:5060>;tag=1\r\n"
		"To: <sip:bob@192.0.2.7>;tag=2\r\n"
		"Call-ID: c1@10.0.0.1\r\n"
		"CSeq: 1 INVITE\r\n"
		"Contact: <sip:bob@192.0.2.7:5060>\r\n"
		"Content-Type: application/sdp\r\n",
		sig);
	n = sip_full(want, sizeof(want), head, sdp);
	assert_int_equal(w.len, 14 + 20 + 8 + n);
	assert_memory_equal(w.frame + 14 + 28, want, n);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	assert_true(ip_ok(&w));
	/* The callee's RTP to the caller's announced address and port: RELATED,
	 * to the caller's own. */
	assert_true(accepted(rx(&w, SERVER, 7000, MASQ, 4000, "rtp", 3)));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 4000);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	/* ... and its reply, the caller's RTP, goes back through the masquerade. */
	assert_true(accepted(rx(&w, CLIENT, 4000, SERVER, 7000, "rtp", 3)));
	assert_int_equal(IP_SRC(&w), MASQ);
	assert_int_equal(UDP_SP(&w), 4000);
	/* The caller's RTCP to the callee's: RELATED, from the masquerade address. */
	assert_true(accepted(rx(&w, CLIENT, 4001, SERVER, 7001, "rtcp", 4)));
	assert_int_equal(IP_SRC(&w), MASQ);
	assert_true(csum_ref_l4_ok(w.frame + 14));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.related, 2);
	assert_int_equal(st.nat_rewrites, 2);
	assert_int_equal(st.nat_failed, 0);
	assert_int_equal(st.dropped, 0);
	/* What Linux drops behind NAT: a session description without o=. */
	n = sip_full(b, sizeof(b),
		"INVITE sip:bob@192.0.2.7 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5060\r\n"
		"CSeq: 2 INVITE\r\nContent-Type: application/sdp\r\n",
		"v=0\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\nm=audio 4010 RTP/AVP 0\r\n");
	assert_false(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.nat_failed, 1);
	world_down(&w);
}

/* A SIP message's payload as it left is @p want. */
static void
left_as(const struct world *w, const char *want)
{
	assert_int_equal(w->len, 14 + 20 + 8 + strlen(want));
	assert_memory_equal(w->frame + 14 + 28, want, strlen(want));
	assert_true(csum_ref_l4_ok(w->frame + 14));
	assert_true(ip_ok(w));
}

/*
 * Two phones behind one masquerade announce the same media port to the
 * same peer: the second stream is expected at the next free pair and its
 * m= port (and Content-Length) say so; the peer's RTP to each port
 * reaches the right phone.
 */
static void
test_sip_media_port_taken(void **state)
{
	const char *sdp1 = "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\n"
			   "m=audio 4000 RTP/AVP 0\r\n";
	const char *sdp2 = "v=0\r\no=- 1 1 IN IP4 10.0.0.2\r\ns=-\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\n"
			   "m=audio 4000 RTP/AVP 0\r\n";
	const char *head = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\nCSeq: 1 INVITE\r\n";
	char b[800], want[800];
	struct world w;
	uint32_t n;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dst 192.0.2.7 dport 5060 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sip proto udp dport 5060\n");
	n = sip_full(b, sizeof(b), head, sdp1);
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, n)));
	n = sip_full(want, sizeof(want), head,
		"v=0\r\no=- 1 1 IN IP4 198.51.100.1\r\ns=-\r\nc=IN IP4 198.51.100.1\r\nt=0 0\r\n"
		"m=audio 4000 RTP/AVP 0\r\n");
	left_as(&w, want);
	n = sip_full(b, sizeof(b), head, sdp2);
	assert_true(accepted(rx(&w, CLIENT + 1, 5060, SERVER, 5060, b, n)));
	n = sip_full(want, sizeof(want), head,
		"v=0\r\no=- 1 1 IN IP4 198.51.100.1\r\ns=-\r\nc=IN IP4 198.51.100.1\r\nt=0 0\r\n"
		"m=audio 4002 RTP/AVP 0\r\n");
	left_as(&w, want);
	/* The peer's RTP to 4002 reaches the second phone at its own 4000. */
	assert_true(accepted(rx(&w, SERVER, 7000, MASQ, 4002, "rtp", 3)));
	assert_int_equal(IP_DST(&w), CLIENT + 1);
	assert_int_equal(UDP_DP(&w), 4000);
	assert_true(accepted(rx(&w, SERVER, 7001, MASQ, 4001, "rtcp", 4)));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 4001);
	world_down(&w);
}

/*
 * A phone that sends from a high port but listens on the one its Via
 * names (Linux's forced_dport, Cisco phones): behind NAT its answers are
 * sent to that port, and its own address:port in them maps to it.
 */
static void
test_sip_forced_dport(void **state)
{
	char b[800], want[800];
	struct world w;
	uint16_t sig;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dst 192.0.2.7 dport 5060 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sip proto udp dport 5060\n");
	snprintf(b, sizeof(b), "OPTIONS sip:192.0.2.7 SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 10.0.0.1:5060;rport\r\n"
			       "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
	assert_true(accepted(rx(&w, CLIENT, 51000, SERVER, 5060, b, (uint32_t)strlen(b))));
	left_as(&w, b); /* the Via names another port than the source: left */
	sig = UDP_SP(&w);
	snprintf(b, sizeof(b), "SIP/2.0 200 OK\r\n"
			       "Via: SIP/2.0/UDP 10.0.0.1:5060;rport=%u;received=198.51.100.1\r\n"
			       "Contact: <sip:bob@198.51.100.1:%u>\r\n"
			       "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n",
		sig, sig);
	assert_true(accepted(rx(&w, SERVER, 5060, MASQ, sig, b, (uint32_t)strlen(b))));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 5060);
	snprintf(want, sizeof(want), "SIP/2.0 200 OK\r\n"
				     "Via: SIP/2.0/UDP 10.0.0.1:5060;rport=%u;received=198.51.100.1\r\n"
				     "Contact: <sip:bob@10.0.0.1:5060>\r\n"
				     "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n",
		sig);
	left_as(&w, want);
	world_down(&w);
}

/*
 * REGISTER behind masquerade (sip_direct_signalling): the Contact becomes
 * the gateway's, the registrar's 2xx activates the expectation, and calls
 * from the registrar's address (any port) reach the phone, RELATED, while
 * the registration lasts; an un-REGISTER takes it back.
 */
static void
test_sip_register(void **state)
{
	struct mod_ct_helper_stats st;
	struct world w;
	char b[800], want[800];
	uint16_t sig;

	(void)state;
	world_up(&w, "policy drop\n"
		     "accept ctstate established,related\n"
		     "accept proto udp dst 192.0.2.7 dport 5060 ctstate new\n"
		     "masquerade src 10.0.0.0/8\n"
		     "table raw\n"
		     "chain pre hook prerouting\n"
		     "ct ct_helper sip proto udp dport 5060\n");
	snprintf(b, sizeof(b), "REGISTER sip:192.0.2.7 SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=r1\r\n"
			       "From: <sip:alice@192.0.2.7>;tag=1\r\n"
			       "To: <sip:alice@192.0.2.7>\r\n"
			       "Call-ID: r1\r\n"
			       "CSeq: 1 REGISTER\r\n"
			       "Contact: <sip:alice@10.0.0.1:5060>\r\n"
			       "Expires: 600\r\n"
			       "Content-Length: 0\r\n\r\n");
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, (uint32_t)strlen(b))));
	assert_int_equal(IP_SRC(&w), MASQ);
	sig = UDP_SP(&w);
	snprintf(want, sizeof(want), "REGISTER sip:192.0.2.7 SIP/2.0\r\n"
				     "Via: SIP/2.0/UDP 198.51.100.1:%u;branch=r1\r\n"
				     "From: <sip:alice@192.0.2.7>;tag=1\r\n"
				     "To: <sip:alice@192.0.2.7>\r\n"
				     "Call-ID: r1\r\n"
				     "CSeq: 1 REGISTER\r\n"
				     "Contact: <sip:alice@198.51.100.1:%u>\r\n"
				     "Expires: 600\r\n"
				     "Content-Length: 0\r\n\r\n",
		sig, sig);
	left_as(&w, want);
	/* Until the registrar answers, the expectation is inactive. */
	snprintf(b, sizeof(b), "INVITE sip:alice@198.51.100.1:%u SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 192.0.2.7:5070;branch=i0\r\n"
			       "CSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n",
		sig);
	assert_false(accepted(rx(&w, SERVER, 5070, MASQ, sig, b, (uint32_t)strlen(b))));
	/* The registrar's 200 OK lists the gateway's Contact: back to the phone's own. */
	snprintf(b, sizeof(b), "SIP/2.0 200 OK\r\n"
			       "Via: SIP/2.0/UDP 198.51.100.1:%u;branch=r1\r\n"
			       "CSeq: 1 REGISTER\r\n"
			       "Contact: <sip:alice@198.51.100.1:%u>;expires=300\r\n"
			       "Content-Length: 0\r\n\r\n",
		sig, sig);
	assert_true(accepted(rx(&w, SERVER, 5060, MASQ, sig, b, (uint32_t)strlen(b))));
	assert_int_equal(IP_DST(&w), CLIENT);
	left_as(&w, "SIP/2.0 200 OK\r\n"
		    "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=r1\r\n"
		    "CSeq: 1 REGISTER\r\n"
		    "Contact: <sip:alice@10.0.0.1:5060>;expires=300\r\n"
		    "Content-Length: 0\r\n\r\n");
	/* A call from the registrar's address, another port: RELATED, to the phone. */
	snprintf(b, sizeof(b), "INVITE sip:alice@198.51.100.1:%u SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 192.0.2.7:5080;branch=i1\r\n"
			       "To: <sip:alice@198.51.100.1:%u>\r\n"
			       "CSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n",
		sig, sig);
	assert_true(accepted(rx(&w, SERVER, 5080, MASQ, sig, b, (uint32_t)strlen(b))));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_int_equal(UDP_DP(&w), 5060);
	left_as(&w, "INVITE sip:alice@10.0.0.1:5060 SIP/2.0\r\n"
		    "Via: SIP/2.0/UDP 192.0.2.7:5080;branch=i1\r\n"
		    "To: <sip:alice@10.0.0.1:5060>\r\n"
		    "CSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n");
	/* Permanent: another one; from another host: not expected. */
	assert_true(accepted(rx(&w, SERVER, 5081, MASQ, sig, b, (uint32_t)strlen(b))));
	assert_int_equal(IP_DST(&w), CLIENT);
	assert_false(accepted(rx(&w, SERVER + 1, 5080, MASQ, sig, b, (uint32_t)strlen(b))));
	mod_ct_module_helper_stats_get(w.ct, &st);
	assert_int_equal(st.related, 2);
	assert_int_equal(st.dropped, 0);
	/* Un-registering (Expires: 0) takes the expectation back on the answer. */
	snprintf(b, sizeof(b), "REGISTER sip:192.0.2.7 SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=r2\r\n"
			       "CSeq: 2 REGISTER\r\n"
			       "Contact: <sip:alice@10.0.0.1:5060>\r\n"
			       "Expires: 0\r\n"
			       "Content-Length: 0\r\n\r\n");
	assert_true(accepted(rx(&w, CLIENT, 5060, SERVER, 5060, b, (uint32_t)strlen(b))));
	snprintf(b, sizeof(b), "SIP/2.0 200 OK\r\n"
			       "Via: SIP/2.0/UDP 198.51.100.1:%u;branch=r2\r\n"
			       "CSeq: 2 REGISTER\r\n"
			       "Expires: 0\r\n"
			       "Content-Length: 0\r\n\r\n",
		sig);
	assert_true(accepted(rx(&w, SERVER, 5060, MASQ, sig, b, (uint32_t)strlen(b))));
	snprintf(b, sizeof(b), "INVITE sip:alice@198.51.100.1:%u SIP/2.0\r\n"
			       "Via: SIP/2.0/UDP 192.0.2.7:5082;branch=i2\r\n"
			       "CSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n",
		sig);
	assert_false(accepted(rx(&w, SERVER, 5082, MASQ, sig, b, (uint32_t)strlen(b))));
	world_down(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_and_write),
		cmocka_unit_test(test_nothing_expected),
		cmocka_unit_test(test_ctstatus_and_helper_match),
		cmocka_unit_test(test_masquerade),
		cmocka_unit_test(test_dnat_server),
		cmocka_unit_test(test_sip_media),
		cmocka_unit_test(test_sip_teardown),
		cmocka_unit_test(test_sip_masquerade),
		cmocka_unit_test(test_sip_register),
		cmocka_unit_test(test_sip_media_port_taken),
		cmocka_unit_test(test_sip_forced_dport),
	};

	return GUFC_TEST_POOL_MAIN("ct_udp", "0", &pool, 256, 0, tests);
}
