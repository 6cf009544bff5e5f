/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reply_eval — what lib/reply answers a frame with, for the netfilter
 * reply oracle (reply_oracle.py): the frame in hex on the command line,
 * the reply (an ICMP/ICMPv6 error of TYPE and CODE, or a TCP reset) in hex
 * on stdout, or "none" when no reply may be sent.
 *
 * Usage: reply_eval FRAME_HEX rst|icmp [TYPE CODE]
 * Exit: 0, 2 bad arguments or a frame that does not parse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowcache.h"
#include "reply.h"

int
main(int argc, char **argv)
{
	static uint8_t frame[4096], out[REPLY_FRAME_MAX];
	struct reply_spec s;
	struct fc_pkt p;
	size_t hl;
	uint32_t len;
	int n;

	if (argc < 3 || (strcmp(argv[2], "rst") != 0 && (strcmp(argv[2], "icmp") != 0 || argc < 5))) {
		fprintf(stderr, "usage: reply_eval FRAME_HEX rst|icmp [TYPE CODE]\n");
		return 2;
	}
	hl = strlen(argv[1]);
	if (hl % 2 != 0 || hl / 2 > sizeof(frame))
		return 2;
	len = (uint32_t)(hl / 2);
	for (uint32_t i = 0; i < len; i++) {
		unsigned int v;

		if (sscanf(argv[1] + 2 * i, "%2x", &v) != 1)
			return 2;
		frame[i] = (uint8_t)v;
	}
	if (fc_parse(frame, len, &p) >= FC_PARSE_ERR_BASE)
		return 2;
	memset(&s, 0, sizeof(s));
	s.kind = argv[2][0] == 'r' ? REPLY_TCP_RST : REPLY_ICMP;
	if (s.kind == REPLY_ICMP) {
		s.type = (uint8_t)atoi(argv[3]);
		s.code = (uint8_t)atoi(argv[4]);
	}
	n = reply_build(out, sizeof(out), frame, len, &p, &s);
	if (n < 0) {
		printf("none\n");
		return 0;
	}
	for (int i = 0; i < n; i++)
		printf("%02x", out[i]);
	printf("\n");
	return 0;
}
