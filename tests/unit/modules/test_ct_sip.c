/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_sip.c — the SIP helper's rewrite behind NAT,
 * pure (ct_sip_nat.c): the exact bytes Linux's nf_nat_sip writes for the
 * Request-URI, Via (maddr=, received=, rport=), Contact lists, From, To
 * and the session description, IPv4 and IPv6, and what it refuses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conntrack.h"

/*
 * The connection: this direction src:sp -> dst:dp, the other direction
 * osrc:osp -> odst:odp (text addresses of @p family).
 */
static struct mod_ct_sip_conn
conn(uint8_t family, const char *src, uint16_t sp, const char *dst, uint16_t dp, const char *osrc,
	uint16_t osp, const char *odst, uint16_t odp)
{
	int af = family == FC_AF_INET6 ? AF_INET6 : AF_INET;
	struct mod_ct_sip_conn c;

	memset(&c, 0, sizeof(c));
	c.family = family;
	c.proto = 17;
	assert_int_equal(inet_pton(af, src, c.src), 1);
	assert_int_equal(inet_pton(af, dst, c.dst), 1);
	assert_int_equal(inet_pton(af, osrc, c.osrc), 1);
	assert_int_equal(inet_pton(af, odst, c.odst), 1);
	c.sport = sp;
	c.dport = dp;
	c.osport = osp;
	c.odport = odp;
	return c;
}

/* The headers' rewrite of @p msg: the message as it leaves (static buffer). */
static const char *
nat_headers(const struct mod_ct_sip_conn *c, const char *msg)
{
	static char out[2048];
	struct mod_ct_edit e[MOD_CT_SIP_EDITS_MAX];
	int n, w;

	n = mod_ct_sip_nat_headers(
		(const uint8_t *)msg, (uint32_t)strlen(msg), c, e, 0, MOD_CT_SIP_EDITS_MAX);
	assert_true(n >= 0);
	w = mod_ct_edit_apply((const uint8_t *)msg, (uint32_t)strlen(msg), e, (unsigned int)n,
		(uint8_t *)out, sizeof(out) - 1);
	assert_true(w >= 0);
	out[w] = '\0';
	return out;
}

/* A phone at 10.0.0.1:5060 behind a masquerade to 198.51.100.1:1024, talking to 192.0.2.7:5060. */
static void
test_headers_v4(void **state)
{
	struct mod_ct_sip_conn out = conn(FC_AF_INET4, "10.0.0.1", 5060, "192.0.2.7", 5060,
		"192.0.2.7", 5060, "198.51.100.1", 1024);
	struct mod_ct_sip_conn in = conn(FC_AF_INET4, "192.0.2.7", 5060, "198.51.100.1", 1024,
		"10.0.0.1", 5060, "192.0.2.7", 5060);

	(void)state;
	/* A request: URI of the phone's own (with port), Via with maddr=, a
	 * Contact list (compact "m", two values, one of another host), From
	 * with the implied 5060, To of the server (left). */
	assert_string_equal(
		nat_headers(&out, "OPTIONS sip:10.0.0.1:5060 SIP/2.0\r\n"
				  "v: SIP/2.0/UDP 10.0.0.1:5060;maddr=10.0.0.1;branch=1\r\n"
				  "m: <sip:a@10.0.0.1:5060>, <sip:b@10.0.0.9:5060>,\r\n"
				  " <sip:10.0.0.1>\r\n"
				  "f: <sip:alice@10.0.0.1>;tag=x\r\n"
				  "t: <sip:bob@192.0.2.7>\r\n"
				  "CSeq: 7 OPTIONS\r\n\r\n"),
		"OPTIONS sip:198.51.100.1:1024 SIP/2.0\r\n"
		"v: SIP/2.0/UDP 198.51.100.1:1024;maddr=198.51.100.1;branch=1\r\n"
		"m: <sip:a@198.51.100.1:1024>, <sip:b@10.0.0.9:5060>,\r\n"
		" <sip:198.51.100.1:1024>\r\n"
		"f: <sip:alice@198.51.100.1:1024>;tag=x\r\n"
		"t: <sip:bob@192.0.2.7>\r\n"
		"CSeq: 7 OPTIONS\r\n\r\n");
	/* The answer comes back: Via, received=, rport= to the phone's own. */
	assert_string_equal(
		nat_headers(&in,
			"SIP/2.0 200 OK\r\n"
			"Via: SIP/2.0/UDP 198.51.100.1:1024;rport=1024;received=198.51.100.1\r\n"
			"From: <sip:alice@198.51.100.1:1024>;tag=x\r\n"
			"To: <sip:bob@192.0.2.7>;tag=y\r\n"
			"CSeq: 7 OPTIONS\r\n\r\n"),
		"SIP/2.0 200 OK\r\n"
		"Via: SIP/2.0/UDP 10.0.0.1:5060;rport=5060;received=10.0.0.1\r\n"
		"From: <sip:alice@10.0.0.1:5060>;tag=x\r\n"
		"To: <sip:bob@192.0.2.7>;tag=y\r\n"
		"CSeq: 7 OPTIONS\r\n\r\n");
	/* A Via of another host (a proxy's) or port, a TCP Via on a UDP
	 * connection, a port below 1024: left alone. */
	assert_string_equal(nat_headers(&out, "BYE sip:bob@192.0.2.7 SIP/2.0\r\n"
					      "Via: SIP/2.0/UDP 10.0.0.1:5070\r\n"
					      "Contact: <sip:a@10.0.0.1:80>\r\n\r\n"),
		"BYE sip:bob@192.0.2.7 SIP/2.0\r\n"
		"Via: SIP/2.0/UDP 10.0.0.1:5070\r\n"
		"Contact: <sip:a@10.0.0.1:80>\r\n\r\n");
	assert_string_equal(nat_headers(&out, "BYE sip:bob@192.0.2.7 SIP/2.0\r\n"
					      "Via: SIP/2.0/TCP 10.0.0.1:5060\r\n\r\n"),
		"BYE sip:bob@192.0.2.7 SIP/2.0\r\n"
		"Via: SIP/2.0/TCP 10.0.0.1:5060\r\n\r\n");
	/* Not translated: nothing changes. */
	struct mod_ct_sip_conn plain = conn(FC_AF_INET4, "10.0.0.1", 5060, "192.0.2.7", 5060,
		"192.0.2.7", 5060, "10.0.0.1", 5060);
	const char *msg = "INVITE sip:10.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1\r\n\r\n";

	assert_string_equal(nat_headers(&plain, msg), msg);
}

static void
test_headers_v6(void **state)
{
	struct mod_ct_sip_conn out = conn(FC_AF_INET6, "fd00::1", 5060, "2001:db8::7", 5060,
		"2001:db8::7", 5060, "2001:db8:2::1", 5060);

	(void)state;
	assert_string_equal(nat_headers(&out, "REGISTER sip:[2001:db8::7] SIP/2.0\r\n"
					      "Via: SIP/2.0/UDP [fd00::1]:5060;received=fd00::1\r\n"
					      "Contact: <sip:alice@[fd00::1]>\r\n\r\n"),
		"REGISTER sip:[2001:db8::7] SIP/2.0\r\n"
		"Via: SIP/2.0/UDP [2001:db8:2::1]:5060;received=fd00::1\r\n"
		"Contact: <sip:alice@[2001:db8:2::1]:5060>\r\n\r\n");
}

/* The session description: ports, addresses, the session's o= and c=, Content-Length. */
static void
test_sdp(void **state)
{
	const char *msg = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
			  "CSeq: 1 INVITE\r\n"
			  "l: 110\r\n\r\n"
			  "v=0\r\n"
			  "o=- 1 1 IN IP4 10.0.0.1\r\n"
			  "s=-\r\n"
			  "t=0 0\r\n"
			  "m=audio 4000 RTP/AVP 0\r\n"
			  "c=IN IP4 10.0.0.1\r\n"
			  "m=video 4002 RTP/AVP 31\r\n";
	struct mod_ct_sip_media_nat mn[MOD_CT_SIP_MEDIA_MAX];
	struct mod_ct_edit e[MOD_CT_SIP_EDITS_MAX];
	struct mod_ct_sip_msg m;
	char out[1024];
	int n, w;

	(void)state;
	assert_int_equal(strlen(strstr(msg, "v=0")), 110);
	/* No session c=: the video stream has no address (Linux drops it). */
	assert_int_equal(
		mod_ct_sip_parse((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m),
		-EBADMSG);
	msg = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
	      "CSeq: 1 INVITE\r\n"
	      "l: 129\r\n\r\n"
	      "v=0\r\n"
	      "o=- 1 1 IN IP4 10.0.0.1\r\n"
	      "s=-\r\n"
	      "c=IN IP4 10.0.0.1\r\n"
	      "t=0 0\r\n"
	      "m=audio 4000 RTP/AVP 0\r\n"
	      "c=IN IP4 10.0.0.1\r\n"
	      "m=video 4002 RTP/AVP 31\r\n";
	assert_int_equal(strlen(strstr(msg, "v=0")), 129);
	assert_int_equal(
		mod_ct_sip_parse((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m), 1);
	assert_int_equal(m.n_media, 2);
	memset(mn, 0, sizeof(mn));
	inet_pton(AF_INET, "198.51.100.1", mn[0].addr);
	inet_pton(AF_INET, "198.51.100.1", mn[1].addr);
	mn[1].new_port = true; /* the video pair was taken: the next free one */
	mn[1].port = 10004;
	n = mod_ct_sip_nat_sdp((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m, mn, e,
		0, MOD_CT_SIP_EDITS_MAX);
	assert_int_equal(n, 5);
	w = mod_ct_edit_apply((const uint8_t *)msg, (uint32_t)strlen(msg), e, (unsigned int)n,
		(uint8_t *)out, sizeof(out) - 1);
	assert_true(w > 0);
	out[w] = '\0';
	assert_string_equal(out, "INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
				 "CSeq: 1 INVITE\r\n"
				 "l: 142\r\n\r\n"
				 "v=0\r\n"
				 "o=- 1 1 IN IP4 198.51.100.1\r\n"
				 "s=-\r\n"
				 "c=IN IP4 198.51.100.1\r\n"
				 "t=0 0\r\n"
				 "m=audio 4000 RTP/AVP 0\r\n"
				 "c=IN IP4 198.51.100.1\r\n"
				 "m=video 10004 RTP/AVP 31\r\n");
	assert_int_equal(strlen(strstr(out, "v=0")), 142);
	/* Without Content-Length, or without o=: what Linux drops. */
	msg = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\nCSeq: 1 INVITE\r\n\r\n"
	      "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\nc=IN IP4 10.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\n";
	assert_int_equal(
		mod_ct_sip_parse((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m), 1);
	assert_int_equal(mod_ct_sip_nat_sdp((const uint8_t *)msg, (uint32_t)strlen(msg),
				 FC_AF_INET4, &m, mn, e, 0, MOD_CT_SIP_EDITS_MAX),
		-EBADMSG);
	msg = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\nCSeq: 1 INVITE\r\nContent-Length: 9\r\n\r\n"
	      "v=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\n";
	assert_int_equal(
		mod_ct_sip_parse((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m), 1);
	assert_int_equal(mod_ct_sip_nat_sdp((const uint8_t *)msg, (uint32_t)strlen(msg),
				 FC_AF_INET4, &m, mn, e, 0, MOD_CT_SIP_EDITS_MAX),
		-EBADMSG);
	/* No streams: nothing to write. */
	msg = "INVITE sip:bob@192.0.2.7 SIP/2.0\r\nCSeq: 1 INVITE\r\nContent-Length: 9\r\n\r\n"
	      "v=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 0 RTP/AVP 0\r\n";
	assert_int_equal(
		mod_ct_sip_parse((const uint8_t *)msg, (uint32_t)strlen(msg), FC_AF_INET4, &m), 1);
	assert_int_equal(mod_ct_sip_nat_sdp((const uint8_t *)msg, (uint32_t)strlen(msg),
				 FC_AF_INET4, &m, mn, e, 0, MOD_CT_SIP_EDITS_MAX),
		0);
}

/* Edits: in order, overlaps left out, the list's room, bad arguments. */
static void
test_edits(void **state)
{
	struct mod_ct_sip_conn c = conn(FC_AF_INET4, "10.0.0.1", 5060, "192.0.2.7", 5060,
		"192.0.2.7", 5060, "198.51.100.1", 1024);
	struct mod_ct_edit e[2];
	const char *msg = "INVITE sip:10.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1\r\n"
			  "Contact: <sip:10.0.0.1>\r\n\r\n";
	uint8_t out[8];

	(void)state;
	assert_int_equal(
		mod_ct_sip_nat_headers((const uint8_t *)msg, (uint32_t)strlen(msg), &c, e, 0, 2),
		-ENOSPC);
	assert_int_equal(mod_ct_sip_nat_headers(NULL, 3, &c, e, 0, 2), -EINVAL);
	assert_int_equal(mod_ct_sip_nat_headers((const uint8_t *)msg, 3, NULL, e, 0, 2), -EINVAL);
	memset(e, 0, sizeof(e));
	e[0].off = 2;
	e[0].len_old = 1;
	e[0].len_new = 1;
	e[0].text[0] = 'X';
	assert_int_equal(mod_ct_edit_apply((const uint8_t *)"abcd", 4, e, 1, out, sizeof(out)), 4);
	assert_memory_equal(out, "abXd", 4);
	assert_int_equal(mod_ct_edit_apply((const uint8_t *)"abcd", 4, e, 1, out, 3), -ENOSPC);
	e[0].off = 4;
	assert_int_equal(
		mod_ct_edit_apply((const uint8_t *)"abcd", 4, e, 1, out, sizeof(out)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_v4),
		cmocka_unit_test(test_headers_v6),
		cmocka_unit_test(test_sdp),
		cmocka_unit_test(test_edits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
