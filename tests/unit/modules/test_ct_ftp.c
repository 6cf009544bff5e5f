/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_ftp.c — the conntrack helpers' pure parts
 * (lib/modules/conntrack/ct_ftp.c, ct_expect.c): helper names, the FTP
 * command parser (every command, split, malformed and hostile lines, the
 * address check), the line tracking in order of arrival, the text a NAT
 * writes, the sequence adjustment, the expectation table (once, wildcard
 * source port, limits, timeouts, masters), and the segment rewrite whose
 * checksums must equal a full recomputation.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conntrack.h"
#include "csum_ref.h"
#include "pkt_build.h"

#define ORIG MOD_CT_DIR_ORIG
#define REPLY MOD_CT_DIR_REPLY

static const uint8_t client4[4] = {10, 0, 0, 1};
static const uint8_t server4[4] = {192, 0, 2, 7};

static int
parse(const char *s, unsigned int dir, struct mod_ct_ftp_cmd *c)
{
	return mod_ct_ftp_parse((const uint8_t *)s, (uint32_t)strlen(s), dir, FC_AF_INET4,
		dir == ORIG ? client4 : server4, c);
}

static void
test_helper_names(void **state)
{
	(void)state;
	assert_int_equal(mod_ct_helper_find("ftp"), MOD_CT_HELPER_FTP);
	assert_int_equal(mod_ct_helper_find("tftp"), MOD_CT_HELPER_TFTP);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_FTP), 6);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_TFTP), 17);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_NONE), 0);
	assert_string_equal(mod_ct_helper_name(MOD_CT_HELPER_TFTP), "tftp");
	assert_int_equal(mod_ct_helper_find("sip"), MOD_CT_HELPER_SIP);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_SIP), 17);
	assert_int_equal(mod_ct_helper_find("pptp"), -ENOTSUP);
	assert_int_equal(mod_ct_helper_find("irc"), MOD_CT_HELPER_IRC);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_IRC), 6);
	assert_int_equal(mod_ct_helper_find("sane"), MOD_CT_HELPER_SANE);
	assert_int_equal(mod_ct_helper_proto(MOD_CT_HELPER_SANE), 6);
	assert_int_equal(mod_ct_helper_find("netbios-ns"), -ENOTSUP);
	assert_int_equal(mod_ct_helper_find("nosuch"), -ENOENT);
	assert_int_equal(mod_ct_helper_find(""), -EINVAL);
	assert_int_equal(mod_ct_helper_find(NULL), -EINVAL);
	assert_true(mod_ct_helper_known("h323"));
	assert_false(mod_ct_helper_known("http"));
	assert_string_equal(mod_ct_helper_name(MOD_CT_HELPER_FTP), "ftp");
	assert_string_equal(mod_ct_helper_name(99), "");
}

/* TFTP: the opcode alone decides (Linux reads nothing else). */
static void
test_tftp_parse(void **state)
{
	static const uint8_t rrq[] = "\0\1boot.img\0octet";
	static const uint8_t wrq[] = "\0\2x\0netascii";
	static const uint8_t bare_rrq[] = {0, 1};
	static const uint8_t data[] = {0, 3, 0, 1, 'a'};
	static const uint8_t ack[] = {0, 4, 0, 1};
	static const uint8_t err[] = {0, 5, 0, 1, 'n', 0};
	static const uint8_t oack[] = {0, 6, 'b', 0};
	static const uint8_t high[] = {1, 1};

	(void)state;
	assert_int_equal(mod_ct_tftp_parse(rrq, sizeof(rrq)), MOD_CT_TFTP_RRQ);
	assert_int_equal(mod_ct_tftp_parse(wrq, sizeof(wrq)), MOD_CT_TFTP_WRQ);
	assert_int_equal(mod_ct_tftp_parse(bare_rrq, 2), MOD_CT_TFTP_RRQ);
	assert_int_equal(mod_ct_tftp_parse(bare_rrq, 1), 0);
	assert_int_equal(mod_ct_tftp_parse(bare_rrq, 0), 0);
	assert_int_equal(mod_ct_tftp_parse(NULL, 0), 0);
	assert_int_equal(mod_ct_tftp_parse(NULL, 2), -EINVAL);
	assert_int_equal(mod_ct_tftp_parse(data, sizeof(data)), 0);
	assert_int_equal(mod_ct_tftp_parse(ack, sizeof(ack)), 0);
	assert_int_equal(mod_ct_tftp_parse(err, sizeof(err)), 0);
	assert_int_equal(mod_ct_tftp_parse(oack, sizeof(oack)), 0);
	assert_int_equal(mod_ct_tftp_parse(high, sizeof(high)), 0);
}

static int
sip(const char *s, uint8_t family, struct mod_ct_sip_msg *m)
{
	return mod_ct_sip_parse((const uint8_t *)s, (uint32_t)strlen(s), family, m);
}

/* SIP: start line, CSeq, and the SDP's media streams, as Linux reads them. */
static void
test_sip_parse(void **state)
{
	static const char invite[] =
		"INVITE sip:bob@192.0.2.7 SIP/2.0\r\n"
		"Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1\r\n"
		"Call-ID: a@10.0.0.1\r\n"
		"cseq:  7 INVITE\r\n"
		"Content-Type: application/sdp\r\n"
		"\r\n"
		"v=0\r\n"
		"o=- 1 1 IN IP4 10.0.0.1\r\n"
		"c=IN IP4 10.0.0.1\r\n"
		"t=0 0\r\n"
		"m=audio 4000 RTP/AVP 0\r\n"
		"m=video 0 RTP/AVP 31\r\n"
		"m=text 5000 RTP/AVP 98\r\n"
		"m=image 6000 udptl t38\r\n"
		"c=IN IP4 10.0.0.9\r\n";
	static const char ok6[] = "SIP/2.0 200 OK\n"
				  "CSeq: 7 INVITE\n"
				  "\n"
				  "v=0\n"
				  "m=audio 7002 RTP/AVP 0\n"
				  "c=IN IP6 2001:db8::7\n";
	struct mod_ct_sip_msg m;
	uint8_t a[16];

	(void)state;
	assert_int_equal(sip(invite, FC_AF_INET4, &m), 1);
	assert_false(m.response);
	assert_int_equal(m.method, MOD_CT_SIP_INVITE);
	assert_int_equal(m.cseq, 7);
	assert_true(m.sdp);
	/* video on port 0 is inactive, text is no type Linux expects. */
	assert_int_equal(m.n_media, 2);
	assert_int_equal(m.media[0].type, MOD_CT_SIP_AUDIO);
	assert_int_equal(m.media[0].port, 4000);
	inet_pton(AF_INET, "10.0.0.1", a);
	assert_memory_equal(m.media[0].addr, a, 4);
	assert_int_equal(m.media[1].type, MOD_CT_SIP_IMAGE);
	assert_int_equal(m.media[1].port, 6000);
	inet_pton(AF_INET, "10.0.0.9", a);
	assert_memory_equal(m.media[1].addr, a, 4); /* its own c= line */
	/* A response over IPv6 with LF line ends: the stream's own address. */
	assert_int_equal(sip(ok6, FC_AF_INET6, &m), 1);
	assert_true(m.response);
	assert_int_equal(m.status, 200);
	assert_int_equal(m.method, MOD_CT_SIP_INVITE);
	assert_int_equal(m.n_media, 1);
	inet_pton(AF_INET6, "2001:db8::7", a);
	assert_memory_equal(m.media[0].addr, a, 16);
	assert_int_equal(m.media[0].port, 7002);
	/* An IPv6 address in an IPv4 connection's SDP is none: dropped. */
	assert_int_equal(sip(ok6, FC_AF_INET4, &m), -EBADMSG);
	/* No SDP read where Linux reads none: a BYE, a 486 to INVITE, a 200 to BYE. */
	assert_int_equal(sip("BYE sip:a@b SIP/2.0\r\nCSeq: 8 BYE\r\n\r\nv=0\r\n"
			     "m=audio 4000 RTP/AVP 0\r\n", FC_AF_INET4, &m), 1);
	assert_int_equal(m.method, MOD_CT_SIP_BYE);
	assert_false(m.sdp);
	assert_int_equal(sip("SIP/2.0 486 Busy\r\nCSeq: 7 INVITE\r\n\r\nv=0\r\nm=audio 1 x\r\n",
				 FC_AF_INET4, &m), 1);
	assert_int_equal(m.status, 486);
	assert_false(m.sdp);
	assert_int_equal(sip("SIP/2.0 200 OK\r\nCSeq: 8 BYE\r\n", FC_AF_INET4, &m), 1);
	assert_int_equal(m.method, MOD_CT_SIP_BYE);
	assert_int_equal(sip("register sip:r SIP/2.0\r\nCSeq: 1 REGISTER\r\n", FC_AF_INET4, &m), 1);
	assert_int_equal(m.method, MOD_CT_SIP_REGISTER);
	/* Not acted on: another method, not SIP, a method without its space. */
	assert_int_equal(sip("MESSAGE sip:a@b SIP/2.0\r\n", FC_AF_INET4, &m), 0);
	assert_int_equal(sip("GET / HTTP/1.1\r\n", FC_AF_INET4, &m), 0);
	assert_int_equal(sip("INVITES sip:a SIP/2.0\r\nCSeq: 1 INVITE\r\n", FC_AF_INET4, &m), 0);
	assert_int_equal(sip("", FC_AF_INET4, &m), 0);
	/* What Linux drops. */
	assert_int_equal(sip("INVITE sip:a SIP/2.0\r\nVia: x\r\n\r\n", FC_AF_INET4, &m), -EBADMSG);
	assert_int_equal(sip("SIP/2.0 abc\r\nCSeq: 1 INVITE\r\n", FC_AF_INET4, &m), -EBADMSG);
	assert_int_equal(sip("SIP/2.0 200 OK\r\nCSeq: x INVITE\r\n", FC_AF_INET4, &m), -EBADMSG);
	assert_int_equal(sip("ACK sip:a SIP/2.0\r\nCSeq: 1 ACK\r\n\r\nv=0\r\nc=IN IP4 10.0.0.1\r\n"
			     "m=audio 80 RTP/AVP 0\r\n", FC_AF_INET4, &m), -EBADMSG);
	assert_int_equal(sip("ACK sip:a SIP/2.0\r\nCSeq: 1 ACK\r\n\r\nv=0\r\n"
			     "m=audio 4000 RTP/AVP 0\r\n", FC_AF_INET4, &m), -EBADMSG);
	assert_int_equal(sip("ACK sip:a SIP/2.0\r\nCSeq: 1 ACK\r\n\r\nv=0\r\nc=IN IP4 10.0.0.1\r\n"
			     "m=audio 70000 RTP/AVP 0\r\n", FC_AF_INET4, &m), -EBADMSG);
	/* A CSeq after the blank line is the body's, not a header. */
	assert_int_equal(sip("INVITE sip:a SIP/2.0\r\n\r\nCSeq: 1 INVITE\r\n", FC_AF_INET4, &m),
		-EBADMSG);
	assert_int_equal(sip(invite, 9, &m), -EINVAL);
	assert_int_equal(mod_ct_sip_parse(NULL, 3, FC_AF_INET4, &m), -EINVAL);
}

static int
irc(const char *s, struct mod_ct_irc_dcc *d)
{
	return mod_ct_irc_parse((const uint8_t *)s, (uint32_t)strlen(s), d);
}

/* IRC: the DCC offer of a PRIVMSG, as Linux's tightened helper finds it. */
static void
test_irc_parse(void **state)
{
	static const char send[] = "PRIVMSG bob :\1DCC SEND file.txt 167772161 40000 1234\1\r\n";
	struct mod_ct_irc_dcc d;
	char buf[24];

	(void)state;
	assert_int_equal(irc(send, &d), 1);
	assert_int_equal(d.addr, 0x0a000001u);
	assert_int_equal(d.port, 40000);
	assert_int_equal(d.off, strstr(send, "1677") - send);
	assert_int_equal(d.len, strlen("167772161 40000"));
	assert_int_equal(irc("\r\n privmsg #c :\1DCC CHAT chat 167772161  5000\1\n", &d), 1);
	assert_int_equal(d.port, 5000);
	assert_int_equal(d.len, strlen("167772161  5000"));
	assert_int_equal(irc("PRIVMSG bob :\1DCC TSEND f 167772161 40001 9\1\r\n", &d), 1);
	/* Not an offer: another command, CTCP not at the text's start, no
	 * newline, port 0 or too big, address too big, unknown type, short. */
	assert_int_equal(irc("NOTICE bob :\1DCC SEND f 167772161 40000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :hi \1DCC SEND f 167772161 40000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PING :\1DCC SEND f 167772161 40000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :\1DCC SEND f 167772161 40000 1\1", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :\1DCC SEND f 167772161 0 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :\1DCC SEND f 167772161 70000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :\1DCC SEND f 4294967296 4000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG bob :\1DCC RESUME f 167772161 4000 1\1\r\n", &d), 0);
	assert_int_equal(irc("PRIVMSG b :\1DCC SEND f 1 2\1\n", &d), 0);
	assert_int_equal(irc("", &d), 0);
	assert_int_equal(mod_ct_irc_parse(NULL, 4, &d), -EINVAL);
	assert_int_equal(mod_ct_irc_format(0xc6336401u, 40000, buf, sizeof(buf)), 16);
	assert_string_equal(buf, "3325256705 40000");
	assert_int_equal(mod_ct_irc_format(1, 2, buf, 3), -ENOSPC);
}

/* SANE: SANE_NET_START, then its success reply's port, as Linux reads them. */
static void
test_sane_segment(void **state)
{
	static const uint8_t start[8] = {0, 0, 0, 7, 0, 0, 0, 1};
	static const uint8_t other[8] = {0, 0, 0, 4, 0, 0, 0, 1};
	static const uint8_t ok[16] = {0, 0, 0, 0, 0, 0, 0x1f, 0x40};
	static const uint8_t fail[16] = {0, 0, 0, 4, 0, 0, 0x1f, 0x40};
	static const uint8_t nonzero[16] = {0, 0, 0, 0, 0, 1, 0x1f, 0x40};
	uint8_t st = MOD_CT_SANE_NORMAL;

	(void)state;
	/* A reply without the request: nothing. */
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, ok, sizeof(ok)), 0);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, start, 8), 0);
	assert_int_equal(st, MOD_CT_SANE_START);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, ok, sizeof(ok)), 8000);
	assert_int_equal(st, MOD_CT_SANE_NORMAL);
	/* Once: the next reply is no answer to it. */
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, ok, sizeof(ok)), 0);
	/* A request of another length leaves the state; another code clears it. */
	mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, start, 8);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, other, 7), 0);
	assert_int_equal(st, MOD_CT_SANE_START);
	mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, other, 8);
	assert_int_equal(st, MOD_CT_SANE_NORMAL);
	/* A failure status, non-zero padding, a short reply: nothing, state cleared. */
	mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, start, 8);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, fail, sizeof(fail)), 0);
	assert_int_equal(st, MOD_CT_SANE_NORMAL);
	mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, start, 8);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, nonzero, sizeof(nonzero)), 0);
	mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, start, 8);
	assert_int_equal(mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, ok, 7), 0);
	assert_int_equal(st, MOD_CT_SANE_NORMAL);
	assert_int_equal(mod_ct_sane_segment(NULL, MOD_CT_DIR_ORIG, start, 8), 0);
}

static void
test_parse_commands(void **state)
{
	struct mod_ct_ftp_cmd c;
	uint8_t v6[16];

	(void)state;
	assert_int_equal(parse("PORT 10,0,0,1,4,1\r\n", ORIG, &c), 1);
	assert_int_equal(c.kind, MOD_CT_FTP_PORT);
	assert_memory_equal(c.addr, client4, 4);
	assert_int_equal(c.port, 1025);
	assert_int_equal(c.off, 5);
	assert_int_equal(c.len, 12);
	/* Case-insensitive, as Linux. */
	assert_int_equal(parse("port 10,0,0,1,200,3\r\n", ORIG, &c), 1);
	assert_int_equal(c.port, 200 * 256 + 3);
	assert_int_equal(parse("EPRT |1|10.0.0.1|6275|\r\n", ORIG, &c), 1);
	assert_int_equal(c.kind, MOD_CT_FTP_EPRT);
	assert_int_equal(c.port, 6275);
	assert_memory_equal(c.addr, client4, 4);
	assert_int_equal(c.off, 5);
	assert_int_equal(c.len, strlen("|1|10.0.0.1|6275|"));
	/* 227 with and without parentheses (RFC 1123). */
	assert_int_equal(parse("227 Entering Passive Mode (192,0,2,7,19,137).\r\n", REPLY, &c), 1);
	assert_int_equal(c.kind, MOD_CT_FTP_PASV);
	assert_memory_equal(c.addr, server4, 4);
	assert_int_equal(c.port, 19 * 256 + 137);
	assert_int_equal(c.len, strlen("192,0,2,7,19,137"));
	assert_int_equal(parse("227 =192,0,2,7,4,1\r\n", REPLY, &c), 1);
	assert_int_equal(c.port, 1025);
	/* 229: the sender's address, the port. */
	assert_int_equal(parse("229 Entering Extended Passive Mode (|||6446|)\r\n", REPLY, &c), 1);
	assert_int_equal(c.kind, MOD_CT_FTP_EPSV);
	assert_memory_equal(c.addr, server4, 4);
	assert_int_equal(c.port, 6446);
	assert_int_equal(c.len, strlen("|||6446|"));
	/* Other lines, and commands of the other side, are no commands. */
	assert_int_equal(parse("USER anonymous\r\n", ORIG, &c), 0);
	assert_int_equal(parse("227 x\r\n", ORIG, &c), 0);
	assert_int_equal(parse("PORT 10,0,0,1,4,1\r\n", REPLY, &c), 0);
	assert_int_equal(parse("230 Login successful.\r\n", REPLY, &c), 0);
	/* IPv6: EPRT |2|, EPSV. */
	inet_pton(AF_INET6, "2001:db8::1", v6);
	assert_int_equal(mod_ct_ftp_parse((const uint8_t *)"EPRT |2|2001:db8::1|5282|\r\n", 27,
				 ORIG, FC_AF_INET6, v6, &c),
		1);
	assert_int_equal(c.family, FC_AF_INET6);
	assert_memory_equal(c.addr, v6, 16);
	assert_int_equal(c.port, 5282);
	assert_int_equal(mod_ct_ftp_parse((const uint8_t *)"229 (|||5000|)\r\n", 16, REPLY,
				 FC_AF_INET6, v6, &c),
		1);
	assert_memory_equal(c.addr, v6, 16);
	/* An EPRT of the other family, PORT on IPv6: malformed. */
	assert_int_equal(mod_ct_ftp_parse((const uint8_t *)"EPRT |1|10.0.0.1|5282|\r\n", 24,
				 ORIG, FC_AF_INET6, v6, &c),
		-EBADMSG);
	assert_int_equal(mod_ct_ftp_parse((const uint8_t *)"PORT 10,0,0,1,4,1\r\n", 19, ORIG,
				 FC_AF_INET6, v6, &c),
		-EBADMSG);
	assert_int_equal(mod_ct_ftp_parse(NULL, 1, ORIG, FC_AF_INET4, client4, &c), -EINVAL);
	assert_int_equal(mod_ct_ftp_parse((const uint8_t *)"x", 1, 2, FC_AF_INET4, client4, &c),
		-EINVAL);
}

static void
test_parse_split_and_hostile(void **state)
{
	static const char *const bad[] = {
		"PORT 10,0,0,1,4\r\n",          /* five numbers */
		"PORT 10,0,0,1,4,1,7\r\n",      /* seven */
		"PORT 10,0,0,256,4,1\r\n",      /* over 255 */
		"PORT 10,0,0,1,4,1000\r\n",     /* over 255 */
		"PORT 10,0,0,1,0,0\r\n",        /* port 0 */
		"PORT 10,,0,1,4,1\r\n",         /* an empty number */
		"PORT 10,0,0,1,4,1 \r\n",       /* junk before CR */
		"PORT 00000010,0,0,1,4,1\r\n",  /* too many digits */
		"PORTX\r\n",                    /* no space */
		"EPRT |1|10.0.0.1|99999|\r\n",  /* port over 65535 */
		"EPRT |1|10.0.0.1||\r\n",       /* no port */
		"EPRT 1|1|10.0.0.1|5|\r\n",     /* a digit as delimiter */
		"EPRT |3|10.0.0.1|5|\r\n",      /* no such family */
		"EPRT |1|10.0.0.300|5|\r\n",
	};
	static const char *const bad_reply[] = {
		"227 Entering Passive Mode\r\n", /* no numbers (Linux drops it too) */
		"229 Entering Extended Passive Mode (|||0|)\r\n",
		"229 (||6446|)\r\n",
	};
	static const char *const partial[] = {
		"P", "PORT", "PORT 10,0,", "PORT 10,0,0,1,4,1", "port 1", "EPRT |1|10.0.0.1|62",
	};
	struct mod_ct_ftp_cmd c;
	uint8_t big[2 * MOD_CT_FTP_LINE_MAX];

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(bad); i++)
		assert_int_equal(parse(bad[i], ORIG, &c), -EBADMSG);
	for (unsigned int i = 0; i < RTE_DIM(bad_reply); i++)
		assert_int_equal(parse(bad_reply[i], REPLY, &c), -EBADMSG);
	/* A command cut by the segment's end: partial. */
	for (unsigned int i = 0; i < RTE_DIM(partial); i++)
		assert_int_equal(parse(partial[i], ORIG, &c), -EAGAIN);
	assert_int_equal(parse("22", REPLY, &c), -EAGAIN);
	assert_int_equal(parse("227 (192,0,2", REPLY, &c), -EAGAIN);
	/* An oversize line without end: malformed, never read past the segment. */
	memset(big, '1', sizeof(big));
	memcpy(big, "PORT ", 5);
	assert_int_equal(mod_ct_ftp_parse(big, sizeof(big), ORIG, FC_AF_INET4, client4, &c),
		-EBADMSG);
	memset(big, ' ', sizeof(big));
	memcpy(big, "227 ", 4);
	assert_int_equal(mod_ct_ftp_parse(big, sizeof(big), REPLY, FC_AF_INET4, server4, &c),
		-EBADMSG);
	/* Every prefix of a good command is partial or the command, never an overread. */
	{
		const char *good = "EPRT |1|10.0.0.1|6275|\r\n";

		for (uint32_t n = 1; n < strlen(good); n++) {
			int rc = mod_ct_ftp_parse((const uint8_t *)good, n, ORIG, FC_AF_INET4,
				client4, &c);

			assert_true(rc == -EAGAIN || rc == 1);
		}
	}
}

static void
test_segments_in_order(void **state)
{
	struct mod_ct_ftp s;
	struct mod_ct_ftp_cmd c;
	const char *user = "USER ftp\r\n", *pass = "PASS x\r\n", *port = "PORT 10,0,0,1,4,1\r\n";
	const char *evil = "PORT 192,0,2,99,0,22\r\n";
	uint32_t seq = 100;

#define SEG(dir, sq, txt)                                                                   \
	mod_ct_ftp_segment(&s, dir, sq, (const uint8_t *)(txt), (uint32_t)strlen(txt),         \
		FC_AF_INET4, (dir) == ORIG ? client4 : server4, &c)

	(void)state;
	memset(&s, 0, sizeof(s));
	/* The first segment is never read (Linux: no line start known yet). */
	assert_int_equal(SEG(ORIG, seq, port), MOD_CT_FTP_R_PASS);
	seq += (uint32_t)strlen(port);
	/* Now at a line start. */
	assert_int_equal(SEG(ORIG, seq, port), MOD_CT_FTP_R_CMD);
	assert_int_equal(c.port, 1025);
	seq += (uint32_t)strlen(port);
	/* A command naming another host (bounce): not expected. */
	assert_int_equal(SEG(ORIG, seq, evil), MOD_CT_FTP_R_FOREIGN);
	seq += (uint32_t)strlen(evil);
	/* A split command: the first part is partial (dropped, nothing remembered). */
	assert_int_equal(SEG(ORIG, seq, "PORT 10,0,"), MOD_CT_FTP_R_PARTIAL);
	/* The rest, out of line: not read. */
	assert_int_equal(SEG(ORIG, seq + 10, "0,1,4,1\r\n"), MOD_CT_FTP_R_PASS);
	/* The retransmission whole: read. */
	assert_int_equal(SEG(ORIG, seq, port), MOD_CT_FTP_R_CMD);
	/* Malformed at a line start: dropped. */
	seq += (uint32_t)strlen(port);
	assert_int_equal(SEG(ORIG, seq, "PORT 1,2\r\n"), MOD_CT_FTP_R_BAD);
	/* A segment out of order (a gap): not read; nor what follows it. */
	assert_int_equal(SEG(ORIG, seq + 1000, port), MOD_CT_FTP_R_PASS);
	assert_int_equal(SEG(ORIG, seq + 1000 + (uint32_t)strlen(port), port), MOD_CT_FTP_R_CMD);
	/* Other lines at a line start are passed. */
	assert_int_equal(SEG(ORIG, seq, user), MOD_CT_FTP_R_PASS);
	assert_int_equal(SEG(ORIG, seq + (uint32_t)strlen(user), pass), MOD_CT_FTP_R_PASS);
	/* The server's side is tracked apart. */
	assert_int_equal(SEG(REPLY, 7, "220 hi\r\n"), MOD_CT_FTP_R_PASS);
	assert_int_equal(SEG(REPLY, 15, "227 (192,0,2,7,4,2)\r\n"), MOD_CT_FTP_R_CMD);
	assert_int_equal(c.port, 1026);
	assert_int_equal(SEG(REPLY, 15 + 21, "227 (10,9,9,9,4,2)\r\n"), MOD_CT_FTP_R_FOREIGN);
	/* No payload: nothing. */
	assert_int_equal(mod_ct_ftp_segment(&s, ORIG, seq, (const uint8_t *)"", 0, FC_AF_INET4,
				 client4, &c),
		MOD_CT_FTP_R_PASS);
#undef SEG
}

static void
test_format(void **state)
{
	static const uint8_t a4[4] = {198, 51, 100, 1};
	uint8_t a6[16];
	char buf[64];

	(void)state;
	assert_int_equal(mod_ct_ftp_format(MOD_CT_FTP_PORT, FC_AF_INET4, a4, 1025, buf, sizeof(buf)),
		(int)strlen("198,51,100,1,4,1"));
	assert_string_equal(buf, "198,51,100,1,4,1");
	mod_ct_ftp_format(MOD_CT_FTP_EPRT, FC_AF_INET4, a4, 6275, buf, sizeof(buf));
	assert_string_equal(buf, "|1|198.51.100.1|6275|");
	inet_pton(AF_INET6, "2001:db8::1", a6);
	mod_ct_ftp_format(MOD_CT_FTP_EPRT, FC_AF_INET6, a6, 80, buf, sizeof(buf));
	assert_string_equal(buf, "|2|2001:db8::1|80|");
	mod_ct_ftp_format(MOD_CT_FTP_EPSV, FC_AF_INET6, a6, 5000, buf, sizeof(buf));
	assert_string_equal(buf, "|||5000|");
	assert_int_equal(mod_ct_ftp_format(MOD_CT_FTP_PASV, FC_AF_INET6, a6, 1, buf, sizeof(buf)),
		-EINVAL);
	assert_int_equal(mod_ct_ftp_format(MOD_CT_FTP_PORT, FC_AF_INET4, a4, 1, buf, 4), -ENOSPC);
	/* What the parser reads back. */
	{
		struct mod_ct_ftp_cmd c;
		char line[96];

		mod_ct_ftp_format(MOD_CT_FTP_PORT, FC_AF_INET4, a4, 40000, buf, sizeof(buf));
		snprintf(line, sizeof(line), "PORT %s\r\n", buf);
		assert_int_equal(mod_ct_ftp_parse((const uint8_t *)line, (uint32_t)strlen(line), ORIG,
					 FC_AF_INET4, a4, &c),
			1);
		assert_int_equal(c.port, 40000);
		assert_memory_equal(c.addr, a4, 4);
	}
}

static void
test_seqadj(void **state)
{
	struct mod_ct_seqadj a;

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_false(mod_ct_seqadj_active(&a));
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 500), 500);
	/* The segment at 1000 grew by 4. */
	mod_ct_seqadj_set(&a, ORIG, 1000, 4);
	assert_true(mod_ct_seqadj_active(&a));
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 1000), 1000); /* itself, retransmitted */
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 900), 900);
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 1030), 1034);
	assert_int_equal(mod_ct_seqadj_seq(&a, REPLY, 1030), 1030);
	/* The server acknowledges in the shifted space: taken back. */
	assert_int_equal(mod_ct_seqadj_ack(&a, REPLY, 1034), 1030);
	assert_int_equal(mod_ct_seqadj_ack(&a, REPLY, 1000), 1000);
	/* A retransmitted rewrite changes nothing; a later one adds. */
	mod_ct_seqadj_set(&a, ORIG, 1000, 4);
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 1030), 1034);
	mod_ct_seqadj_set(&a, ORIG, 2000, -2);
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 2000), 2004);
	assert_int_equal(mod_ct_seqadj_seq(&a, ORIG, 2100), 2102);
	assert_int_equal(mod_ct_seqadj_ack(&a, REPLY, 2102), 2100);
	/* Across the wrap. */
	memset(&a, 0, sizeof(a));
	mod_ct_seqadj_set(&a, REPLY, 0xfffffff0u, 3);
	assert_int_equal(mod_ct_seqadj_seq(&a, REPLY, 0x10), 0x13);
	assert_int_equal(mod_ct_seqadj_ack(&a, ORIG, 0x13), 0x10);
}

static struct mod_ct_exp
exp_make(uint32_t master, uint16_t dport, uint32_t expires)
{
	struct mod_ct_exp e;

	memset(&e, 0, sizeof(e));
	e.tuple.family = FC_AF_INET4;
	memcpy(fc_key_src_w(&e.tuple), server4, 4);
	memcpy(fc_key_dst_w(&e.tuple), client4, 4);
	fc_key_set_proto(&e.tuple, 6);
	fc_key_set_ports(&e.tuple, 0, htons(dport));
	e.master = master;
	e.helper = MOD_CT_HELPER_FTP;
	e.expires = expires;
	return e;
}

static struct fc_key
flow(uint16_t sport, uint16_t dport)
{
	struct mod_ct_exp e = exp_make(0, dport, 0);
	struct fc_key k = e.tuple;

	fc_key_set_ports(&k, htons(sport), htons(dport));
	fc_key_set_flags(&k, FC_KEY_F_DST_LOCAL);
	fc_key_set_in_port(&k, 3);
	return k;
}

static void
test_expect_table(void **state)
{
	struct mod_ct_expect *t = mod_ct_expect_create(4, 1);
	struct mod_ct_expect_stats st;
	struct mod_ct_exp e, out;
	struct fc_key k;

	(void)state;
	assert_non_null(t);
	e = exp_make(1, 1025, 1000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	/* Any source port, local bits and input port; the exact destination port. */
	k = flow(1026, 1026);
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), -ENOENT);
	k = flow(20, 1025);
	/* Looked at without taking it, as often as asked. */
	assert_true(mod_ct_expect_has(t, &k, 10));
	assert_true(mod_ct_expect_has(t, &k, 10));
	assert_false(mod_ct_expect_has(t, &k, 1000));
	assert_false(mod_ct_expect_has(NULL, &k, 10));
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), 0);
	assert_int_equal(out.master, 1);
	/* Consumed once. */
	assert_false(mod_ct_expect_has(t, &k, 10));
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), -ENOENT);
	/* From any source address (IRC's): any source matches, once. */
	e = exp_make(7, 1025, 1000);
	memset(fc_key_src_w(&e.tuple), 0, 4);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	k = flow(20, 1025);
	fc_key_src_w(&k)[0] ^= 0x55;
	assert_true(mod_ct_expect_has(t, &k, 10));
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), 0);
	assert_int_equal(out.master, 7);
	assert_false(mod_ct_expect_has(t, &k, 10));
	e = exp_make(1, 1025, 1000);
	/* Another protocol or source address: no. */
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	fc_key_set_proto(&k, 17);
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), -ENOENT);
	k = flow(20, 1025);
	fc_key_src_w(&k)[3] ^= 1;
	assert_int_equal(mod_ct_expect_take(t, &k, 10, &out), -ENOENT);
	/* Timed out: gone (at take, or by the expiry walk). */
	k = flow(20, 1025);
	assert_int_equal(mod_ct_expect_take(t, &k, 1000, &out), -ENOENT);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	mod_ct_expect_expire(t, 999, 16);
	mod_ct_expect_stats_get(t, &st);
	assert_int_equal(st.active, 1);
	mod_ct_expect_expire(t, 1000, 16);
	mod_ct_expect_stats_get(t, &st);
	assert_int_equal(st.active, 0);
	assert_int_equal(st.expired, 2);
	/* One per master: a newer one evicts the older. */
	e = exp_make(1, 2000, 5000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	e = exp_make(1, 2001, 5000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	mod_ct_expect_stats_get(t, &st);
	assert_int_equal(st.active, 1);
	assert_int_equal(st.evicted, 1);
	k = flow(20, 2000);
	assert_int_equal(mod_ct_expect_take(t, &k, 1, &out), -ENOENT);
	/* The same tuple of another master: refused; of the same: refreshed. */
	e = exp_make(2, 2001, 5000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), -EEXIST);
	e = exp_make(1, 2001, 9000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	/* Full: refused, counted. */
	for (uint32_t m = 10; m < 13; m++) {
		e = exp_make(m, (uint16_t)(3000 + m), 5000);
		assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	}
	e = exp_make(20, 4000, 5000);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), -ENOSPC);
	mod_ct_expect_stats_get(t, &st);
	assert_int_equal(st.full, 1);
	/* A master's go with it. */
	assert_int_equal(mod_ct_expect_remove_master(t, 11), 1);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), 0);
	k = flow(20, 4000);
	assert_int_equal(mod_ct_expect_take(t, &k, 1, &out), 0);
	assert_int_equal(out.master, 20);
	/* Bad arguments. */
	e = exp_make(1, 0, 1);
	assert_int_equal(mod_ct_expect_add(t, &e, 0), -EINVAL);
	assert_int_equal(mod_ct_expect_add(NULL, &e, 0), -EINVAL);
	assert_int_equal(mod_ct_expect_take(t, NULL, 0, &out), -EINVAL);
	assert_null(mod_ct_expect_create(0, 1));
	assert_null(mod_ct_expect_create(4, 0));
	mod_ct_expect_free(t);
	mod_ct_expect_free(NULL);
}

static void
rewrite_case(bool v4, const char *payload, uint32_t off, uint32_t len_old, const char *text)
{
	uint8_t frame[512];
	struct fc_pkt p;
	struct pb b;
	int n, len;
	uint32_t plen = (uint32_t)strlen(payload), tlen = (uint32_t)strlen(text);
	char want[256];

	memset(frame, 0, sizeof(frame));
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	if (v4) {
		struct pb_ipv4 ip = {.src = 0x0a000001, .dst = 0xc0000207};

		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip;

		memset(&ip, 0, sizeof(ip));
		inet_pton(AF_INET6, "2001:db8::1", ip.src);
		inet_pton(AF_INET6, "2001:db8::7", ip.dst);
		pb_ipv6(&b, &ip);
	}
	pb_tcp(&b, 40000, 21, PB_TCP_ACK | PB_TCP_PSH, 1000, 5000, 0);
	pb_payload(&b, payload, plen);
	len = pb_finish(&b);
	assert_true(len > 0);
	assert_int_equal(fc_parse(frame, (uint32_t)len, &p), FC_PARSE_OK);
	n = mod_ct_tcp_rewrite(frame + p.l3_off, sizeof(frame) - p.l3_off, &p, 1004, 4990, off,
		len_old, text, tlen);
	assert_int_equal(n, (int)(p.ip_len - len_old + tlen));
	assert_true(csum_ref_l4_ok(frame + p.l3_off));
	if (v4)
		assert_true(csum_ref_ip4_ok(frame + p.l3_off));
	/* The payload is the edit, the rest in place. */
	snprintf(want, sizeof(want), "%.*s%s%s", (int)off, payload, text, payload + off + len_old);
	assert_memory_equal(frame + p.l4_off + p.tcp_hlen, want, strlen(want));
	/* The numbers. */
	assert_int_equal(frame[p.l4_off + 7], 1004 & 0xff);
	assert_int_equal(frame[p.l4_off + 11], 4990 & 0xff);
	/* It parses again to the new lengths. */
	assert_int_equal(fc_parse(frame, (uint32_t)(p.l3_off + n), &p), FC_PARSE_OK);
	assert_int_equal(p.tcp_dlen, plen - len_old + tlen);
}

static void
test_rewrite(void **state)
{
	const char *port = "PORT 10,0,0,1,4,1\r\n";
	struct fc_pkt p;

	(void)state;
	/* Grow, shrink, odd and even deltas and offsets, both families. */
	rewrite_case(true, port, 5, 12, "198,51,100,1,4,1");
	rewrite_case(true, port, 5, 12, "1,2,3,4,4,1");
	rewrite_case(true, port, 5, 12, "10,0,0,1,4,1");
	rewrite_case(true, "PORT 10,0,0,1,4,1\r\n ", 5, 12, "198,51,100,11,4,1");
	rewrite_case(true, "227 Entering Passive Mode (10,0,0,1,4,1).\r\n", 27, 12,
		"198,51,100,1,4,1");
	rewrite_case(false, "EPRT |2|2001:db8::1|5282|\r\n", 5, 20, "|2|2001:db8:ffff::abcd|5282|");
	rewrite_case(false, "229 (|||5000|)\r\n", 5, 8, "|||50001|");
	/* Numbers only. */
	rewrite_case(true, "NOOP\r\n", 0, 0, "");
	/* Bad edits. */
	memset(&p, 0, sizeof(p));
	assert_int_equal(mod_ct_tcp_rewrite(NULL, 0, &p, 0, 0, 0, 0, NULL, 0), -EINVAL);
	{
		uint8_t frame[256];
		struct pb b;
		int len;
		struct pb_ipv4 ip = {.src = 1, .dst = 2};

		pb_init(&b, frame, sizeof(frame));
		pb_eth(&b, NULL, NULL);
		pb_ipv4(&b, &ip);
		pb_tcp(&b, 1, 2, PB_TCP_ACK, 1, 1, 0);
		pb_payload(&b, "abc", 3);
		len = pb_finish(&b);
		assert_int_equal(fc_parse(frame, (uint32_t)len, &p), FC_PARSE_OK);
		/* Past the payload. */
		assert_int_equal(mod_ct_tcp_rewrite(frame + p.l3_off, 200, &p, 1, 1, 2, 2, "x", 1),
			-EINVAL);
		/* No room. */
		assert_int_equal(mod_ct_tcp_rewrite(frame + p.l3_off, p.ip_len, &p, 1, 1, 0, 1, "xy",
					 2),
			-ENOSPC);
	}
}

/* SACK blocks of the reply direction, moved back as its ACK is. */
static void
test_sack_adjust(void **state)
{
	/* NOP, NOP, SACK with two blocks: [1040, 1060) after the shifted
	 * segment, [900, 950) before it. */
	static const uint8_t opts[20] = {1, 1, 5, 18, 0, 0, 0x04, 0x10, 0, 0, 0x04, 0x24, 0, 0,
		0x03, 0x84, 0, 0, 0x03, 0xb6};
	uint8_t frame[256];
	struct mod_ct_seqadj a;
	struct pb_ipv4 ip = {.src = 0xc0000207, .dst = 0x0a000001};
	struct fc_pkt p;
	struct pb b;
	uint8_t *o;
	int len;

	(void)state;
	memset(&a, 0, sizeof(a));
	mod_ct_seqadj_set(&a, ORIG, 1000, 4);
	memset(frame, 0, sizeof(frame));
	pb_init(&b, frame, sizeof(frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, 21, 40000, PB_TCP_ACK, 5000, 1034, sizeof(opts));
	pb_tcp_opts(&b, opts, sizeof(opts));
	len = pb_finish(&b);
	assert_true(len > 0);
	assert_int_equal(fc_parse(frame, (uint32_t)len, &p), FC_PARSE_OK);
	assert_int_equal(p.tcp_hlen, 40);
	assert_int_equal(mod_ct_tcp_sack_adjust(frame + p.l3_off, &p, &a, REPLY), 2);
	assert_true(csum_ref_l4_ok(frame + p.l3_off));
	o = frame + p.l4_off + 20;
	assert_int_equal(o[6] << 8 | o[7], 1036);  /* 1040 - 4 */
	assert_int_equal(o[10] << 8 | o[11], 1056); /* 1060 - 4 */
	assert_int_equal(o[14] << 8 | o[15], 900);  /* before the shift: as it was */
	assert_int_equal(o[18] << 8 | o[19], 950);
	/* The original direction's SACK blocks are in the reply's space,
	 * which nothing shifted. */
	assert_int_equal(mod_ct_tcp_sack_adjust(frame + p.l3_off, &p, &a, ORIG), 0);
	assert_int_equal(mod_ct_tcp_sack_adjust(NULL, &p, &a, ORIG), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helper_names),
		cmocka_unit_test(test_tftp_parse),
		cmocka_unit_test(test_sip_parse),
		cmocka_unit_test(test_irc_parse),
		cmocka_unit_test(test_sane_segment),
		cmocka_unit_test(test_parse_commands),
		cmocka_unit_test(test_parse_split_and_hostile),
		cmocka_unit_test(test_segments_in_order),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_seqadj),
		cmocka_unit_test(test_expect_table),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_sack_adjust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
