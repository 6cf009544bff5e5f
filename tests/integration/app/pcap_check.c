/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap_check: read a pcap with libpcap and print one line per packet, with
 * its own minimal header decoding (independent of gufc's parser), for the
 * app integration tests:
 *
 *   N PROTO SRC SPORT DST DPORT LEN FLAGS IPCK L4CK ID
 *
 * PROTO: tcp, udp, icmp, icmp6, frag (an IP fragment), or the protocol
 * number; nonip for anything else. Ports: TCP/UDP ports; ICMP echo: the
 * identifier and the type. LEN: frame length. FLAGS: TCP flags as letters
 * (F S R P A U), "-" otherwise. IPCK: the IPv4 header checksum, ok or bad
 * ("-" for IPv6). L4CK: the TCP/UDP/ICMP checksum over the whole datagram
 * (with the pseudo-header), ok, bad, none (UDP/IPv4 checksum 0) or "-"
 * (fragments, truncated captures). ID: the IPv4 identification or the IPv6
 * flow label (which tests use to tag packets: NAT changes neither). Exit 0, or 1 when the file cannot be
 * read. Links libpcap only.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += rd16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void
flags_str(uint8_t f, char *out)
{
	static const char letters[] = "FSRPAU";
	int n = 0;

	for (int b = 0; b < 6; b++)
		if (f & (1u << b))
			out[n++] = letters[b];
	if (n == 0)
		out[n++] = '.';
	out[n] = '\0';
}

static void
one(unsigned long idx, const uint8_t *p, uint32_t caplen, uint32_t len)
{
	char src[INET6_ADDRSTRLEN] = "-", dst[INET6_ADDRSTRLEN] = "-";
	char flags[8] = "-", proto_s[16];
	const char *ipck = "-", *l4ck = "-";
	unsigned int sport = 0, dport = 0;
	uint32_t off = 12, l4len = 0, ps = 0, id = 0;
	const uint8_t *l4 = NULL;
	uint16_t et;
	uint8_t proto;
	int frag = 0, v6 = 0;

	if (caplen < 14)
		goto nonip;
	et = rd16(p + off);
	off += 2;
	while ((et == 0x8100 || et == 0x88a8) && caplen >= off + 4) {
		et = rd16(p + off + 2);
		off += 4;
	}
	if (et == 0x0800 && caplen >= off + 20) {
		const uint8_t *ip = p + off;
		uint32_t ihl = (ip[0] & 0xf) * 4u, tot = rd16(ip + 2);

		if (ihl < 20 || caplen < off + ihl)
			goto nonip;
		ipck = fold(sum16(ip, ihl, 0)) == 0xffff ? "ok" : "bad";
		inet_ntop(AF_INET, ip + 12, src, sizeof(src));
		inet_ntop(AF_INET, ip + 16, dst, sizeof(dst));
		proto = ip[9];
		id = rd16(ip + 4);
		frag = (rd16(ip + 6) & 0x3fff) != 0;
		l4 = ip + ihl;
		l4len = tot > ihl ? tot - ihl : 0;
		ps = sum16(ip + 12, 8, 0) + proto + l4len;
	} else if (et == 0x86dd && caplen >= off + 40) {
		const uint8_t *ip = p + off;

		v6 = 1;
		inet_ntop(AF_INET6, ip + 8, src, sizeof(src));
		inet_ntop(AF_INET6, ip + 24, dst, sizeof(dst));
		proto = ip[6];
		id = ((uint32_t)(ip[1] & 0xf) << 16) | rd16(ip + 2);
		l4 = ip + 40;
		l4len = rd16(ip + 4);
		if (proto == 44) { /* fragment header */
			frag = 1;
			proto = ip[40];
		}
		ps = sum16(ip + 8, 32, 0) + proto + l4len;
	} else {
		goto nonip;
	}
	if (l4 + l4len > p + caplen)
		l4len = 0; /* truncated: no checksum */
	snprintf(proto_s, sizeof(proto_s), "%u", proto);
	if (frag) {
		snprintf(proto_s, sizeof(proto_s), "frag");
	} else if (proto == 6 && l4len >= 20) {
		snprintf(proto_s, sizeof(proto_s), "tcp");
		sport = rd16(l4);
		dport = rd16(l4 + 2);
		flags_str(l4[13], flags);
		l4ck = fold(sum16(l4, l4len, ps)) == 0xffff ? "ok" : "bad";
	} else if (proto == 17 && l4len >= 8) {
		snprintf(proto_s, sizeof(proto_s), "udp");
		sport = rd16(l4);
		dport = rd16(l4 + 2);
		if (!v6 && rd16(l4 + 6) == 0)
			l4ck = "none";
		else
			l4ck = fold(sum16(l4, l4len, ps)) == 0xffff ? "ok" : "bad";
	} else if ((proto == 1 || proto == 58) && l4len >= 8) {
		snprintf(proto_s, sizeof(proto_s), proto == 1 ? "icmp" : "icmp6");
		sport = rd16(l4 + 4);
		dport = l4[0];
		l4ck = fold(sum16(l4, l4len, proto == 1 ? 0 : ps)) == 0xffff ? "ok" : "bad";
	}
	printf("%lu %s %s %u %s %u %u %s %s %s %u\n", idx, proto_s, src, sport, dst, dport, len,
		flags, ipck, l4ck, id);
	return;
nonip:
	printf("%lu nonip - 0 - 0 %u - - - 0\n", idx, len);
}

int
main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned long n = 0;
	pcap_t *pc;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_check FILE.pcap\n");
		return 2;
	}
	pc = pcap_open_offline(argv[1], err);
	if (pc == NULL) {
		fprintf(stderr, "pcap_check: %s: %s\n", argv[1], err);
		return 1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, "pcap_check: %s: not Ethernet\n", argv[1]);
		pcap_close(pc);
		return 1;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1)
		one(n++, data, h->caplen, h->len);
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "pcap_check: %s: %s\n", argv[1], pcap_geterr(pc));
		pcap_close(pc);
		return 1;
	}
	pcap_close(pc);
	return 0;
}
