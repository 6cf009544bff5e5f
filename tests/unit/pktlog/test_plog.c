/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/pktlog (pure): the LOG line of fixed frames compared
 * with the line Linux's LOG target writes for them (the expected texts
 * follow the kernel's field order and formats: IN/OUT, MAC, IPv4 and IPv6
 * fields, TCP with and without --log-tcp-sequence/--log-tcp-options, UDP,
 * ICMP echo and an error with its quoted header, IPv4 options, truncated
 * headers, --log-macdecode, OUTPUT without MAC, the mark), and the pcap
 * and pcapng files of log channels read back (block lengths, the prefix
 * as the packet's comment).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pktlog.h"

#define MACS 0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02
#define MACLINE "MAC=02:00:00:00:00:01:02:00:00:00:00:02:08:00 "

/* 10.0.0.2:40000 -> 192.0.2.1:22 SYN with MSS, SACK-permitted, timestamps, window scale. */
static const uint8_t tcp_syn[] = {
	MACS, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x3c, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
	10, 0, 0, 2, 192, 0, 2, 1,
	0x9c, 0x40, 0x00, 0x16, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, 0xa0, 0x02, 0xfa, 0xf0,
	0, 0, 0, 0,
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 0, 0x01, 0x03,
	0x03, 0x07,
};

/* The same host: an ACK+PSH with ECE, TOS 0xb8 (EF), no DF, a second fragment-free packet. */
static const uint8_t tcp_psh[] = {
	MACS, 0x08, 0x00,
	0x45, 0xb8, 0x00, 0x28, 0x00, 0x07, 0x00, 0x00, 0x3f, 0x06, 0x00, 0x00,
	10, 0, 0, 2, 192, 0, 2, 1,
	0x9c, 0x40, 0x00, 0x16, 0, 0, 0, 9, 0, 0, 0, 5, 0x50, 0x58, 0x01, 0xf5, 0, 0, 0, 0,
};

/* IPv6 UDP 2001:db8::1:1234 -> 2001:db8::2:53, 8 bytes of payload, hop limit 64. */
static const uint8_t udp6[] = {
	MACS, 0x86, 0xdd,
	0x60, 0x00, 0x00, 0x00, 0x00, 0x10, 0x11, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	0x04, 0xd2, 0x00, 0x35, 0x00, 0x10, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
};

/* ICMP echo request 10.0.0.2 -> 192.0.2.1, id 1 seq 2. */
static const uint8_t echo4[] = {
	MACS, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
	10, 0, 0, 2, 192, 0, 2, 1,
	0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02,
};

/* ICMP port unreachable 192.0.2.1 -> 10.0.0.2 quoting a UDP datagram to port 53. */
static const uint8_t unreach4[] = {
	MACS, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x38, 0x00, 0x02, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
	192, 0, 2, 1, 10, 0, 0, 2,
	0x03, 0x03, 0x00, 0x00, 0, 0, 0, 0,
	0x45, 0x00, 0x00, 0x24, 0x12, 0x34, 0x00, 0x00, 0x3f, 0x11, 0x00, 0x00,
	10, 0, 0, 2, 192, 0, 2, 1,
	0x30, 0x39, 0x00, 0x35, 0x00, 0x10, 0x00, 0x00,
};

/* IPv4 with a router-alert option (IHL 6), protocol 47 (GRE). */
static const uint8_t gre_opt[] = {
	MACS, 0x08, 0x00,
	0x46, 0x00, 0x00, 0x20, 0x00, 0x03, 0x20, 0x00, 0x40, 0x2f, 0x00, 0x00,
	10, 0, 0, 2, 192, 0, 2, 1, 0x94, 0x04, 0x00, 0x00,
	0, 0, 0x08, 0x00, 0, 0, 0, 0,
};

static void
expect(const uint8_t *f, size_t len, const char *prefix, unsigned int flags, const char *in,
	const char *out, uint32_t mark, const char *want)
{
	char line[PLOG_LINE_MAX];
	struct plog_pkt p = {
		.frame = f, .len = (uint32_t)len, .l3_off = 14, .in = in, .out = out, .mark = mark};
	int n = plog_line(line, sizeof(line), prefix, flags, &p);

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(line, want);
}

static void
test_tcp(void **state)
{
	(void)state;
	expect(tcp_syn, sizeof(tcp_syn), "SSH: ", 0, "eth0", NULL, 0,
		"SSH: IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=60 TOS=0x00 "
		"PREC=0x00 TTL=64 ID=7238 DF PROTO=TCP SPT=40000 DPT=22 WINDOW=64240 RES=0x00 SYN "
		"URGP=0 ");
	expect(tcp_syn, sizeof(tcp_syn), "", PLOG_F_TCPSEQ | PLOG_F_TCPOPT | PLOG_F_UID, "eth0",
		"eth1", 0,
		"IN=eth0 OUT=eth1 " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=60 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=7238 DF PROTO=TCP SPT=40000 DPT=22 SEQ=16909060 ACK=0 WINDOW=64240 "
		"RES=0x00 SYN URGP=0 OPT (020405B40402080A000000010000000001030307) ");
	/* TOS 0xb8: TOS= shows the low bits but ECN (0x18), PREC= the top three (0xa0). */
	expect(tcp_psh, sizeof(tcp_psh), "x ", 0, "eth0", "eth1", 0x10,
		"x IN=eth0 OUT=eth1 " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=40 TOS=0x18 "
		"PREC=0xA0 TTL=63 ID=7 PROTO=TCP SPT=40000 DPT=22 WINDOW=501 RES=0x00 ECE ACK PSH "
		"URGP=0 MARK=0x10 ");
	/* OUTPUT: no input device, no MAC. */
	expect(tcp_psh, sizeof(tcp_psh), "", 0, NULL, "eth1", 0,
		"IN= OUT=eth1 SRC=10.0.0.2 DST=192.0.2.1 LEN=40 TOS=0x18 PREC=0xA0 TTL=63 ID=7 "
		"PROTO=TCP SPT=40000 DPT=22 WINDOW=501 RES=0x00 ECE ACK PSH URGP=0 ");
	/* Cut in the TCP header. */
	expect(tcp_syn, 14 + 20 + 10, "", 0, "eth0", NULL, 0,
		"IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=60 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=7238 DF PROTO=TCP INCOMPLETE [10 bytes] ");
	/* Cut in the options with --log-tcp-options. */
	expect(tcp_syn, 14 + 20 + 30, "", PLOG_F_TCPOPT, "eth0", NULL, 0,
		"IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=60 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=7238 DF PROTO=TCP SPT=40000 DPT=22 WINDOW=64240 RES=0x00 SYN URGP=0 "
		"OPT (TRUNCATED)");
	/* Cut in the IP header. */
	expect(tcp_syn, 14 + 12, "", 0, "eth0", NULL, 0, "IN=eth0 OUT= " MACLINE "TRUNCATED");
}

static void
test_udp6(void **state)
{
	(void)state;
	expect(udp6, sizeof(udp6), "dns ", 0, "eth0", "eth1", 0,
		"dns IN=eth0 OUT=eth1 MAC=02:00:00:00:00:01:02:00:00:00:00:02:86:dd "
		"SRC=2001:0db8:0000:0000:0000:0000:0000:0001 "
		"DST=2001:0db8:0000:0000:0000:0000:0000:0002 LEN=56 TC=0 HOPLIMIT=64 FLOWLBL=0 "
		"PROTO=UDP SPT=1234 DPT=53 LEN=16 ");
	expect(udp6, sizeof(udp6), "", PLOG_F_MACDECODE, "eth0", NULL, 0,
		"IN=eth0 OUT= MACSRC=02:00:00:00:00:02 MACDST=02:00:00:00:00:01 MACPROTO=86dd "
		"SRC=2001:0db8:0000:0000:0000:0000:0000:0001 "
		"DST=2001:0db8:0000:0000:0000:0000:0000:0002 LEN=56 TC=0 HOPLIMIT=64 FLOWLBL=0 "
		"PROTO=UDP SPT=1234 DPT=53 LEN=16 ");
}

static void
test_icmp(void **state)
{
	(void)state;
	expect(echo4, sizeof(echo4), "ping ", 0, "eth0", NULL, 0,
		"ping IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=28 TOS=0x00 "
		"PREC=0x00 TTL=64 ID=1 PROTO=ICMP TYPE=8 CODE=0 ID=1 SEQ=2 ");
	expect(unreach4, sizeof(unreach4), "", 0, "eth1", "eth0", 0,
		"IN=eth1 OUT=eth0 " MACLINE "SRC=192.0.2.1 DST=10.0.0.2 LEN=56 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=2 PROTO=ICMP TYPE=3 CODE=3 [SRC=10.0.0.2 DST=192.0.2.1 LEN=36 TOS=0x00 "
		"PREC=0x00 TTL=63 ID=4660 PROTO=UDP SPT=12345 DPT=53 LEN=16 ] ");
	/* An error too short for its quote. */
	expect(unreach4, 14 + 20 + 8 + 10, "", 0, "eth1", NULL, 0,
		"IN=eth1 OUT= " MACLINE "SRC=192.0.2.1 DST=10.0.0.2 LEN=56 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=2 PROTO=ICMP TYPE=3 CODE=3 INCOMPLETE [18 bytes] ");
}

static void
test_ipopt(void **state)
{
	(void)state;
	expect(gre_opt, sizeof(gre_opt), "", 0, "eth0", NULL, 0,
		"IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=32 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=3 MF PROTO=47 ");
	expect(gre_opt, sizeof(gre_opt), "", PLOG_F_IPOPT, "eth0", NULL, 0,
		"IN=eth0 OUT= " MACLINE "SRC=10.0.0.2 DST=192.0.2.1 LEN=32 TOS=0x00 PREC=0x00 "
		"TTL=64 ID=3 MF OPT (94040000) PROTO=47 ");
}

static void
test_bounds(void **state)
{
	char small[24];
	struct plog_pkt p = {.frame = tcp_syn, .len = sizeof(tcp_syn), .l3_off = 14, .in = "eth0"};
	int n;

	(void)state;
	assert_int_equal(plog_line(NULL, 10, "", 0, &p), -EINVAL);
	assert_int_equal(plog_line(small, sizeof(small), "", 0, NULL), -EINVAL);
	n = plog_line(small, sizeof(small), "a long prefix here: ", 0, &p);
	assert_int_equal(n, (int)sizeof(small) - 1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void
test_pcapng(void **state)
{
	uint8_t buf[4096];
	size_t n, off;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(plog_file_start(f, PLOG_PCAPNG, 65535), 0);
	assert_int_equal(plog_file_packet(f, PLOG_PCAPNG, 1700000000123456789ull, tcp_syn,
				 sizeof(tcp_syn), sizeof(tcp_syn), "SSH: "), 0);
	assert_int_equal(plog_file_packet(f, PLOG_PCAPNG, 1700000000123456790ull, echo4, 20,
				 sizeof(echo4), NULL), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* Section header, interface description, two enhanced packet blocks. */
	assert_int_equal(rd32(buf), 0x0a0d0d0a);
	assert_int_equal(rd32(buf + 8), 0x1a2b3c4d);
	off = rd32(buf + 4);
	assert_int_equal(rd32(buf + off), 1);
	assert_int_equal(rd32(buf + off + 8) & 0xffff, 1); /* Ethernet */
	off += rd32(buf + off + 4);
	assert_int_equal(rd32(buf + off), 6);
	assert_int_equal(rd32(buf + off + 20), sizeof(tcp_syn));
	assert_int_equal(rd32(buf + off + 24), sizeof(tcp_syn));
	assert_memory_equal(buf + off + 28, tcp_syn, sizeof(tcp_syn));
	{
		size_t o = off + 28 + ((sizeof(tcp_syn) + 3) & ~(size_t)3);

		assert_int_equal(buf[o], 1); /* opt_comment */
		assert_int_equal(buf[o + 2], 5);
		assert_memory_equal(buf + o + 4, "SSH: ", 5);
	}
	assert_int_equal(rd32(buf + off + rd32(buf + off + 4) - 4), rd32(buf + off + 4));
	off += rd32(buf + off + 4);
	assert_int_equal(rd32(buf + off), 6);
	assert_int_equal(rd32(buf + off + 4), 28 + 20 + 4); /* no options */
	assert_int_equal(rd32(buf + off + 20), 20);
	assert_int_equal(rd32(buf + off + 24), sizeof(echo4));
	off += rd32(buf + off + 4);
	assert_int_equal(off, n);
}

static void
test_pcap(void **state)
{
	uint8_t buf[512];
	size_t n;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(plog_file_start(f, PLOG_PCAP, 2048), 0);
	assert_int_equal(plog_file_packet(f, PLOG_PCAP, 1500000000000001000ull, echo4,
				 sizeof(echo4), sizeof(echo4), "ignored"), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, 24 + 16 + sizeof(echo4));
	assert_int_equal(rd32(buf), 0xa1b2c3d4);
	assert_int_equal(rd32(buf + 16), 2048);
	assert_int_equal(rd32(buf + 24), 1500000000u);
	assert_int_equal(rd32(buf + 28), 1u); /* microseconds */
	assert_int_equal(rd32(buf + 32), sizeof(echo4));
	assert_memory_equal(buf + 40, echo4, sizeof(echo4));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_udp6),
		cmocka_unit_test(test_icmp),
		cmocka_unit_test(test_ipopt),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_pcap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
