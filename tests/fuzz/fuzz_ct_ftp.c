/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_ct_ftp.c — libFuzzer target for the FTP helper's pure
 * parts (lib/modules/conntrack/ct_ftp.c), the TFTP helper's request
 * check (ct_tftp.c), the SIP reader (ct_sip.c), the IRC DCC reader
 * (ct_irc.c) and the SANE reader (ct_sane.c): the command parser on any bytes
 * in both directions and families, the line tracking over the input cut
 * into segments, and the segment rewrite of a parsed command, whose TCP
 * and IPv4 checksums must verify afterwards; and the SACK blocks of any
 * option bytes moved back as a sequence shift says, the checksum intact.
 * Never a read or write out of bounds (ASan), never undefined behaviour
 * (UBSan).
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conntrack.h"
#include "ct_priv.h"

static const uint8_t a4[4] = {10, 0, 0, 1};
static const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};

/* A frame: Ethernet, IPv4, TCP (no options), then @p pay. @return its length. */
static uint32_t
frame_of(uint8_t *f, const uint8_t *pay, uint32_t n)
{
	uint32_t s = 0, tl = 20 + n;
	uint8_t *ip = f + 14, *tcp = ip + 20;

	memset(f, 0, 14 + 40);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + tl) >> 8);
	ip[3] = (uint8_t)(20 + tl);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, a4, 4);
	ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = 7;
	for (unsigned int i = 0; i < 20; i += 2)
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	ip[10] = (uint8_t)(~s >> 8);
	ip[11] = (uint8_t)~s;
	tcp[0] = 0x9c, tcp[1] = 0x40, tcp[3] = 21;
	tcp[7] = 1;
	tcp[11] = 2;
	tcp[12] = 0x50;
	tcp[13] = 0x18;
	tcp[14] = 0xff;
	memcpy(tcp + 20, pay, n);
	s = 0;
	for (unsigned int i = 12; i < 20; i += 2)
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	s += 6 + tl;
	for (uint32_t i = 0; i + 1 < tl; i += 2)
		s += (uint32_t)tcp[i] << 8 | tcp[i + 1];
	if (tl & 1)
		s += (uint32_t)tcp[tl - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	tcp[16] = (uint8_t)(~s >> 8);
	tcp[17] = (uint8_t)~s;
	return 14 + 20 + tl;
}

static uint32_t
sum_tcp(const uint8_t *ip)
{
	uint32_t s = 0, tl = (uint32_t)(ip[2] << 8 | ip[3]) - 20;
	const uint8_t *tcp = ip + 20;

	for (unsigned int i = 12; i < 20; i += 2)
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	s += 6 + tl;
	for (uint32_t i = 0; i + 1 < tl; i += 2)
		s += (uint32_t)tcp[i] << 8 | tcp[i + 1];
	if (tl & 1)
		s += (uint32_t)tcp[tl - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mod_ct_ftp_cmd cmd;
	struct mod_ct_ftp st;
	uint8_t *copy, f[2048];
	uint32_t seq = 1000, off = 0;

	if (size > 1400)
		return 0;
	/* An exact-size copy: ASan sees any read past the end. */
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	/* The TFTP helper's request check: the opcode, nothing past the end. */
	{
		int op = mod_ct_tftp_parse(copy, (uint32_t)size);

		if (op < 0 || op > MOD_CT_TFTP_WRQ ||
			(op != 0) != (size >= 2 && copy[0] == 0 && (copy[1] == 1 || copy[1] == 2)))
			abort();
	}
	/* The SANE reader: any bytes both ways, any state. */
	for (uint8_t st0 = 0; st0 < 2; st0++) {
		uint8_t st = st0;

		mod_ct_sane_segment(&st, MOD_CT_DIR_ORIG, copy, (uint32_t)size);
		mod_ct_sane_segment(&st, MOD_CT_DIR_REPLY, copy, (uint32_t)size);
		if (st > MOD_CT_SANE_START)
			abort();
	}
	/* The IRC DCC reader: an offer lies inside the payload, its port not 0. */
	{
		struct mod_ct_irc_dcc dcc;

		if (mod_ct_irc_parse(copy, (uint32_t)size, &dcc) == 1 &&
			(dcc.port == 0 || dcc.len == 0 || (size_t)dcc.off + dcc.len > size))
			abort();
	}
	/* The SIP reader, both families: what it reports stays in range. */
	for (unsigned int fam = 0; fam < 2; fam++) {
		struct mod_ct_sip_msg sm;
		int r = mod_ct_sip_parse(copy, (uint32_t)size, fam ? FC_AF_INET6 : FC_AF_INET4, &sm);

		if (r > 1 || r < -EBADMSG || sm.n_media > MOD_CT_SIP_MEDIA_MAX ||
			sm.method >= MOD_CT_SIP_METHODS)
			abort();
		for (unsigned int i = 0; r == 1 && i < sm.n_media; i++)
			if (sm.media[i].port < 1024 || sm.media[i].type == 0 ||
				sm.media[i].type > MOD_CT_SIP_IMAGE ||
				sm.media[i].port_off + sm.media[i].port_len > size ||
				sm.media[i].c_off + sm.media[i].c_len > size)
				abort();
		/* Its rewrite behind NAT: edits in order, inside the message. */
		{
			static const uint8_t in4[16] = {10, 0, 0, 1}, out4[16] = {198, 51, 100, 1},
					     peer[16] = {192, 0, 2, 7};
			struct mod_ct_sip_conn sc = {.family = fam ? FC_AF_INET6 : FC_AF_INET4,
				.proto = 17, .sport = 5060, .dport = 5060, .osport = 5060,
				.odport = 1024};
			struct mod_ct_sip_media_nat mn[MOD_CT_SIP_MEDIA_MAX];
			struct mod_ct_edit ed[MOD_CT_SIP_EDITS_MAX];
			static uint8_t out[4096];
			int n = 0, w;

			memcpy(sc.src, in4, 16);
			memcpy(sc.dst, peer, 16);
			memcpy(sc.osrc, peer, 16);
			memcpy(sc.odst, out4, 16);
			if (fam) {
				sc.src[0] = sc.odst[0] = 0xfd;
				sc.dst[0] = sc.osrc[0] = 0x20;
			}
			memset(mn, 0, sizeof(mn));
			for (unsigned int i = 0; r == 1 && i < sm.n_media; i++) {
				memcpy(mn[i].addr, sc.odst, 16);
				mn[i].new_port = i & 1;
				mn[i].port = 65534;
			}
			if (r == 1 && sm.sdp)
				n = mod_ct_sip_nat_sdp(copy, (uint32_t)size, sc.family, &sm, mn, ed, 0,
					MOD_CT_SIP_EDITS_MAX);
			if (n >= 0)
				n = mod_ct_sip_nat_headers(copy, (uint32_t)size, &sc, ed,
					(unsigned int)n, MOD_CT_SIP_EDITS_MAX);
			if (n > MOD_CT_SIP_EDITS_MAX || (n < 0 && n != -EBADMSG && n != -ENOSPC))
				abort();
			for (int i = 0; i < n; i++)
				if ((i > 0 && ed[i].off < ed[i - 1].off + ed[i - 1].len_old) ||
					ed[i].off + ed[i].len_old > size || ed[i].len_new > sizeof(ed[i].text))
					abort();
			/* The REGISTER reader's walk: every Contact, its parameters. */
			{
				uint32_t at = 0, moff, mlen, v, guard = 0;
				uint8_t a[16], proto;
				uint16_t port;
				bool in_hdr = false;

				while (ct_sip_header_uri(copy, (uint32_t)size, &at, CT_SIP_H_CONTACT,
					       sc.family, &in_hdr, &moff, &mlen, a, &port) > 0) {
					if (moff + mlen > size || at > size || port < 1024 || ++guard > size)
						abort();
					(void)ct_sip_param_transport(copy, (uint32_t)size, moff + mlen, 17,
						&proto);
					(void)ct_sip_param_num(copy, (uint32_t)size, moff + mlen, "expires=",
						&v);
				}
				if (ct_sip_header_num(copy, (uint32_t)size, CT_SIP_H_EXPIRES, &moff, &mlen,
					    &v) == 1 &&
					moff + mlen > size)
					abort();
			}
			w = n > 0 ? mod_ct_edit_apply(copy, (uint32_t)size, ed, (unsigned int)n, out,
					    sizeof(out)) :
				    0;
			if (w < 0)
				abort();
		}
	}
	for (unsigned int dir = 0; dir < 2; dir++) {
		if (mod_ct_ftp_parse(copy, (uint32_t)size, dir, FC_AF_INET4, a4, &cmd) == 1 &&
			(cmd.off + cmd.len > size || cmd.port == 0))
			abort();
		if (mod_ct_ftp_parse(copy, (uint32_t)size, dir, FC_AF_INET6, a6, &cmd) == 1 &&
			(cmd.off + cmd.len > size || cmd.port == 0))
			abort();
	}
	/* Line tracking: the input as segments cut at each 0x00 byte. */
	memset(&st, 0, sizeof(st));
	while (off < size) {
		const uint8_t *z = memchr(copy + off, 0, size - off);
		uint32_t n = z != NULL ? (uint32_t)(z - copy) - off + 1 : (uint32_t)size - off;

		(void)mod_ct_ftp_segment(&st, off & 1, seq, copy + off, n, FC_AF_INET4, a4, &cmd);
		seq += n;
		off += n;
	}
	/* A parsed command rewritten: checksums still verify, lengths right. */
	if (mod_ct_ftp_parse(copy, (uint32_t)size, 0, FC_AF_INET4, a4, &cmd) == 1) {
		static const uint8_t to[4] = {198, 51, 100, 123};
		char text[64];
		int n = mod_ct_ftp_format(cmd.kind, FC_AF_INET4, to, cmd.port, text, sizeof(text));
		uint32_t len = frame_of(f, copy, (uint32_t)size);
		struct fc_pkt p;
		int r;

		if (n < 0 || fc_parse(f, len, &p) != FC_PARSE_OK)
			abort();
		r = mod_ct_tcp_rewrite(f + 14, sizeof(f) - 14, &p, 77, 88, cmd.off, cmd.len, text,
			(uint32_t)n);
		if (r != (int)(p.ip_len - cmd.len + (uint32_t)n) || sum_tcp(f + 14) != 0xffff)
			abort();
	}
	/* The input's first bytes as TCP options: SACK blocks moved back as a
	 * shifted connection's ACKs are, and the checksum still verifies. */
	if (size >= 4) {
		uint32_t k = (size < 40 ? (uint32_t)size : 40) & ~3u, len = frame_of(f, copy, (uint32_t)size);
		uint8_t *tcp = f + 34;
		struct mod_ct_seqadj adj;
		struct fc_pkt p;
		uint32_t sum;

		tcp[12] = (uint8_t)((5 + k / 4) << 4);
		tcp[16] = tcp[17] = 0;
		sum = sum_tcp(f + 14);
		tcp[16] = (uint8_t)(~sum >> 8);
		tcp[17] = (uint8_t)~sum;
		memset(&adj, 0, sizeof(adj));
		mod_ct_seqadj_set(&adj, 0, 0x100, 7);
		mod_ct_seqadj_set(&adj, 1, 0x80000000u, -3);
		if (fc_parse(f, len, &p) == FC_PARSE_OK && p.tcp_hlen == 20 + k)
			for (unsigned int dir = 0; dir < 2; dir++)
				if (mod_ct_tcp_sack_adjust(f + 14, &p, &adj, dir) < 0 ||
					sum_tcp(f + 14) != 0xffff)
					abort();
	}
	free(copy);
	return 0;
}
