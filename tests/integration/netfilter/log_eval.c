/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_eval — lib/pktlog's LOG line for each frame of a pcap, for the
 * log_oracle test to compare with the lines Linux's LOG target wrote for
 * the same frames.
 *
 *   log_eval FILE.pcap IN PREFIX:FLAGS:MARK...
 *
 * One PREFIX:FLAGS:MARK argument per frame, in order (FLAGS: lib/pktlog's
 * PLOG_F_* bits, decimal; MARK: the packet's mark, decimal); the frames
 * arrived on IN and were logged at INPUT (no OUT=). Prints one line per
 * frame. Exit 0, or 1 on a bad file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktlog.h"

int
main(int argc, char **argv)
{
	uint8_t hdr[24], rec[16], frame[65536];
	FILE *f;
	int i = 3;

	if (argc < 3) {
		fprintf(stderr, "usage: log_eval FILE.pcap IN PREFIX:FLAGS:MARK...\n");
		return 1;
	}
	f = fopen(argv[1], "rb");
	if (f == NULL || fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		fprintf(stderr, "log_eval: cannot read %s\n", argv[1]);
		return 1;
	}
	while (i < argc && fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		uint32_t caplen;
		char line[PLOG_LINE_MAX], prefix[64];
		const char *mcolon = strrchr(argv[i], ':'), *colon = NULL;
		struct plog_pkt p = {.frame = frame, .l3_off = 14, .in = argv[2]};
		unsigned int flags;

		for (const char *c = argv[i]; mcolon != NULL && c < mcolon; c++)
			if (*c == ':')
				colon = c;
		memcpy(&caplen, rec + 8, 4);
		if (caplen > sizeof(frame) || colon == NULL ||
			fread(frame, 1, caplen, f) != caplen) {
			fprintf(stderr, "log_eval: bad record or argument %d\n", i);
			return 1;
		}
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(colon - argv[i]), argv[i]);
		flags = (unsigned int)strtoul(colon + 1, NULL, 10);
		p.mark = (uint32_t)strtoul(mcolon + 1, NULL, 10);
		p.len = caplen;
		if (plog_line(line, sizeof(line), prefix, flags, &p) < 0)
			return 1;
		printf("%s\n", line);
		i++;
	}
	fclose(f);
	return 0;
}
