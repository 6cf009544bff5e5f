/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pktlog/plog_file.c — the files of log channels: libpcap (global
 * header, then a record per packet, microseconds) and pcapng (a section
 * header, one Ethernet interface, then an enhanced packet block per packet
 * with the rule's prefix as its comment option, nanoseconds: if_tsresol
 * 9). Host byte order, as both formats allow (the magic numbers say it).
 */
#include <errno.h>
#include <string.h>

#include "pktlog.h"

static int
wr(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

static int
wr32(FILE *f, uint32_t v)
{
	return wr(f, &v, 4);
}

static int
wr16(FILE *f, uint16_t v)
{
	return wr(f, &v, 2);
}

/* Zero bytes to pad @p n to a multiple of 4. */
static int
pad4(FILE *f, size_t n)
{
	static const uint8_t z[4];

	return (n & 3) ? wr(f, z, 4 - (n & 3)) : 0;
}

int
plog_file_start(FILE *f, enum plog_file_kind kind, uint32_t snaplen)
{
	int rc = 0;

	if (f == NULL)
		return -EIO;
	if (kind == PLOG_PCAP) {
		rc |= wr32(f, 0xa1b2c3d4);
		rc |= wr16(f, 2);
		rc |= wr16(f, 4);
		rc |= wr32(f, 0);
		rc |= wr32(f, 0);
		rc |= wr32(f, snaplen);
		rc |= wr32(f, 1); /* LINKTYPE_ETHERNET */
		return rc != 0 ? -EIO : 0;
	}
	/* Section header block: no options. */
	rc |= wr32(f, 0x0a0d0d0a);
	rc |= wr32(f, 28);
	rc |= wr32(f, 0x1a2b3c4d);
	rc |= wr16(f, 1);
	rc |= wr16(f, 0);
	rc |= wr32(f, 0xffffffff); /* section length unknown */
	rc |= wr32(f, 0xffffffff);
	rc |= wr32(f, 28);
	/* Interface description block: Ethernet, if_tsresol 9 (ns), end of options. */
	rc |= wr32(f, 1);
	rc |= wr32(f, 32);
	rc |= wr16(f, 1);
	rc |= wr16(f, 0);
	rc |= wr32(f, snaplen);
	rc |= wr16(f, 9);
	rc |= wr16(f, 1);
	rc |= wr32(f, 9); /* the value byte 9, then 3 bytes of padding */
	rc |= wr32(f, 0);
	rc |= wr32(f, 32);
	return rc != 0 ? -EIO : 0;
}

int
plog_file_packet(FILE *f, enum plog_file_kind kind, uint64_t ts_ns, const uint8_t *data,
	uint32_t caplen, uint32_t wire_len, const char *comment)
{
	size_t clen = comment != NULL ? strlen(comment) : 0, opts, total;
	int rc = 0;

	if (f == NULL || (data == NULL && caplen != 0))
		return -EIO;
	if (kind == PLOG_PCAP) {
		rc |= wr32(f, (uint32_t)(ts_ns / 1000000000u));
		rc |= wr32(f, (uint32_t)(ts_ns % 1000000000u / 1000u));
		rc |= wr32(f, caplen);
		rc |= wr32(f, wire_len);
		rc |= wr(f, data, caplen);
		return rc != 0 ? -EIO : 0;
	}
	if (clen > 0xffff)
		clen = 0xffff;
	/* opt_comment (1), then opt_endofopt. */
	opts = clen != 0 ? 4 + ((clen + 3) & ~(size_t)3) + 4 : 0;
	total = 28 + ((caplen + 3) & ~3u) + opts + 4;
	rc |= wr32(f, 6);
	rc |= wr32(f, (uint32_t)total);
	rc |= wr32(f, 0); /* interface 0 */
	rc |= wr32(f, (uint32_t)(ts_ns >> 32));
	rc |= wr32(f, (uint32_t)ts_ns);
	rc |= wr32(f, caplen);
	rc |= wr32(f, wire_len);
	rc |= wr(f, data, caplen);
	rc |= pad4(f, caplen);
	if (clen != 0) {
		rc |= wr16(f, 1);
		rc |= wr16(f, (uint16_t)clen);
		rc |= wr(f, comment, clen);
		rc |= pad4(f, clen);
		rc |= wr32(f, 0);
	}
	rc |= wr32(f, (uint32_t)total);
	return rc != 0 ? -EIO : 0;
}
