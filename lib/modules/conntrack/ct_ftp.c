/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_ftp.c — the helpers' pure parts: helper names,
 * the FTP command parser and the FTP helper's line tracking (what Linux's
 * nf_conntrack_ftp reads, and how: in order, from line starts), the text a
 * NAT writes in place of a command's address, and the sequence-number
 * adjustment a length-changing rewrite leaves (Linux's seqadj).
 *
 * Pure and stateless (the caller owns every struct). See conntrack_helper.h.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ct_priv.h"

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const helper_names[MOD_CT_HELPER__COUNT] = {
	[MOD_CT_HELPER_NONE] = "",
	[MOD_CT_HELPER_FTP] = "ftp",
	[MOD_CT_HELPER_TFTP] = "tftp",
	[MOD_CT_HELPER_SIP] = "sip",
	[MOD_CT_HELPER_IRC] = "irc",
	[MOD_CT_HELPER_SANE] = "sane",
};

static const uint8_t helper_protos[MOD_CT_HELPER__COUNT] = {
	[MOD_CT_HELPER_FTP] = 6,
	[MOD_CT_HELPER_TFTP] = 17,
	[MOD_CT_HELPER_SIP] = 17,
	[MOD_CT_HELPER_IRC] = 6,
	[MOD_CT_HELPER_SANE] = 6,
};

/* Linux's helpers (nf_conntrack_*.c), those gufc has not among them. */
static const char *const linux_helpers[] = {
	"ftp", "tftp", "sip", "h323", "ras", "q.931", "h.245", "irc", "pptp", "amanda",
	"netbios-ns", "snmp", "snmp_trap", "sane", "broadcast",
};

bool
mod_ct_helper_known(const char *name)
{
	if (name == NULL)
		return false;
	for (unsigned int i = 0; i < RTE_DIM(linux_helpers); i++)
		if (strcasecmp(name, linux_helpers[i]) == 0)
			return true;
	return false;
}

int
mod_ct_helper_find(const char *name)
{
	if (name == NULL || name[0] == '\0')
		return -EINVAL;
	for (unsigned int h = 1; h < MOD_CT_HELPER__COUNT; h++)
		if (strcmp(name, helper_names[h]) == 0)
			return (int)h;
	return mod_ct_helper_known(name) ? -ENOTSUP : -ENOENT;
}

const char *
mod_ct_helper_name(unsigned int h)
{
	return h < MOD_CT_HELPER__COUNT ? helper_names[h] : "";
}

uint8_t
mod_ct_helper_proto(unsigned int h)
{
	return h < MOD_CT_HELPER__COUNT ? helper_protos[h] : 0;
}

bool
mod_ct_helper_serves(unsigned int h, uint8_t proto)
{
	/* Linux registers "sip" for UDP and for TCP. */
	if (h == MOD_CT_HELPER_SIP)
		return proto == 17 || proto == 6;
	return proto != 0 && mod_ct_helper_proto(h) == proto;
}

/* ------------------------------------------------------------------------ */
/* Parser                                                                    */
/* ------------------------------------------------------------------------ */

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/*
 * @p n numbers of at most @p max each, separated by @p sep, from @p s,
 * ended by @p term (0: any other character). @return characters of the
 * numbers (the terminator excluded), 0 if they do not parse or the line
 * ends first.
 */
static unsigned int
numbers(const uint8_t *s, uint32_t len, uint32_t *v, unsigned int n, uint8_t sep, uint8_t term,
	uint32_t max)
{
	unsigned int i = 0, digits = 0;

	memset(v, 0, n * sizeof(*v));
	for (uint32_t p = 0; p < len; p++) {
		uint8_t c = s[p];

		if (is_digit(c)) {
			if (++digits > 5)
				return 0;
			v[i] = v[i] * 10 + (uint32_t)(c - '0');
			if (v[i] > max)
				return 0;
			continue;
		}
		if (digits == 0)
			return 0; /* an empty number */
		if (c == sep) {
			if (i + 1 == n)
				return 0; /* one number too many */
			i++;
			digits = 0;
			continue;
		}
		if (i + 1 == n && (term == 0 || c == term))
			return p;
		return 0;
	}
	return 0;
}

/* A port up to @p delim from @p s; @return the index after the delimiter, 0 if none. */
static unsigned int
port_to(const uint8_t *s, uint32_t len, unsigned int start, uint8_t delim, uint16_t *port)
{
	uint32_t v = 0;

	for (uint32_t p = start; p < len && p - start <= 5; p++) {
		if (s[p] == delim) {
			if (v == 0 || p == start)
				return 0;
			*port = (uint16_t)v;
			return p + 1;
		}
		if (!is_digit(s[p]))
			return 0;
		v = v * 10 + (uint32_t)(s[p] - '0');
		if (v > 65535)
			return 0;
	}
	return 0;
}

static bool
delim_ok(uint8_t d)
{
	return !is_digit(d) && d >= 33 && d <= 126;
}

/* h1,h2,h3,h4,p1,p2 into @p cmd. @return length, 0 if bad. */
static unsigned int
rfc959(const uint8_t *s, uint32_t len, uint8_t term, struct mod_ct_ftp_cmd *cmd)
{
	uint32_t v[6];
	unsigned int n = numbers(s, len, v, 6, ',', term, 255);

	if (n == 0 || (v[4] | v[5]) == 0)
		return 0;
	cmd->family = FC_AF_INET4;
	for (unsigned int i = 0; i < 4; i++)
		cmd->addr[i] = (uint8_t)v[i];
	cmd->port = (uint16_t)(v[4] << 8 | v[5]);
	return n;
}

/* |1|a.b.c.d|port| or |2|v6|port|. @return length, 0 if bad. */
static unsigned int
eprt(const uint8_t *s, uint32_t len, uint8_t family, struct mod_ct_ftp_cmd *cmd)
{
	uint8_t d;
	unsigned int n;

	if (len <= 3 || !delim_ok(s[0]) || s[2] != s[0])
		return 0;
	d = s[0];
	if (s[1] != (family == FC_AF_INET4 ? '1' : '2'))
		return 0;
	if (family == FC_AF_INET4) {
		uint32_t v[4];

		n = numbers(s + 3, len - 3, v, 4, '.', d, 255);
		if (n == 0)
			return 0;
		for (unsigned int i = 0; i < 4; i++)
			cmd->addr[i] = (uint8_t)v[i];
	} else {
		char text[INET6_ADDRSTRLEN];

		for (n = 0; 3 + n < len && s[3 + n] != d; n++)
			if (n + 1 >= sizeof(text))
				return 0;
		if (3 + n >= len || n == 0)
			return 0;
		memcpy(text, s + 3, n);
		text[n] = '\0';
		if (inet_pton(AF_INET6, text, cmd->addr) != 1)
			return 0;
	}
	cmd->family = family;
	return port_to(s, len, 3 + n + 1, d, &cmd->port);
}

/* |||port| (the sender's address). @return length, 0 if bad. */
static unsigned int
epsv(const uint8_t *s, uint32_t len, struct mod_ct_ftp_cmd *cmd)
{
	if (len <= 3 || !delim_ok(s[0]) || s[1] != s[0] || s[2] != s[0])
		return 0;
	return port_to(s, len, 3, s[0], &cmd->port);
}

int
mod_ct_ftp_parse(const uint8_t *data, uint32_t len, unsigned int dir, uint8_t family,
	const uint8_t *sender, struct mod_ct_ftp_cmd *cmd)
{
	static const char *const pat[2][2] = {{"PORT", "EPRT"}, {"227 ", "229 "}};
	const uint8_t *nl;
	uint32_t line, i;
	unsigned int kind = 0, n = 0;
	bool complete;

	if (data == NULL || sender == NULL || cmd == NULL || dir > MOD_CT_DIR_REPLY ||
		(family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	if (len == 0)
		return 0;
	/* The line: up to its newline, or all there is (then it may be cut). */
	nl = memchr(data, '\n', RTE_MIN(len, (uint32_t)MOD_CT_FTP_LINE_MAX));
	complete = nl != NULL;
	line = complete ? (uint32_t)(nl - data) + 1 : RTE_MIN(len, (uint32_t)MOD_CT_FTP_LINE_MAX);
	for (unsigned int p = 0; p < 2 && kind == 0; p++) {
		if (line <= 4) {
			/* Shorter than the pattern: a command may follow. */
			if (strncasecmp((const char *)data, pat[dir][p], line) == 0 && !complete)
				return -EAGAIN;
			continue;
		}
		if (strncasecmp((const char *)data, pat[dir][p], 4) == 0)
			kind = dir == MOD_CT_DIR_ORIG ? MOD_CT_FTP_PORT + p : MOD_CT_FTP_PASV + p;
	}
	if (kind == 0)
		return 0;
	memset(cmd, 0, sizeof(*cmd));
	cmd->kind = (uint8_t)kind;
	cmd->family = family;
	memcpy(cmd->addr, sender, fc_af_addr_len(family));
	/* Where the numbers start: after the first space (PORT, EPRT), the
	 * first digit (227, RFC 1123: the parentheses are not reliable), the
	 * first '(' (229). */
	for (i = 4; i < line; i++) {
		uint8_t c = data[i];

		if (kind == MOD_CT_FTP_PASV ? is_digit(c) :
					      c == (kind == MOD_CT_FTP_EPSV ? '(' : ' '))
			break;
	}
	if (i >= line)
		return complete || line == MOD_CT_FTP_LINE_MAX ? -EBADMSG : -EAGAIN;
	if (kind != MOD_CT_FTP_PASV)
		i++;
	switch (kind) {
	case MOD_CT_FTP_PORT:
		n = family == FC_AF_INET4 ? rfc959(data + i, line - i, '\r', cmd) : 0;
		break;
	case MOD_CT_FTP_PASV:
		n = family == FC_AF_INET4 ? rfc959(data + i, line - i, 0, cmd) : 0;
		break;
	case MOD_CT_FTP_EPRT:
		n = eprt(data + i, line - i, family, cmd);
		break;
	default:
		n = epsv(data + i, line - i, cmd);
		break;
	}
	if (n == 0)
		return complete || line == MOD_CT_FTP_LINE_MAX ? -EBADMSG : -EAGAIN;
	cmd->off = (uint16_t)i;
	cmd->len = (uint16_t)n;
	return 1;
}

int
mod_ct_ftp_format(unsigned int kind, uint8_t family, const uint8_t *addr, uint16_t port,
	char *buf, unsigned int size)
{
	char a[INET6_ADDRSTRLEN];
	int n;

	if (addr == NULL || buf == NULL || (family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	switch (kind) {
	case MOD_CT_FTP_PORT:
	case MOD_CT_FTP_PASV:
		if (family != FC_AF_INET4)
			return -EINVAL;
		n = snprintf(buf, size, "%u,%u,%u,%u,%u,%u", addr[0], addr[1], addr[2], addr[3],
			port >> 8, port & 0xff);
		break;
	case MOD_CT_FTP_EPRT:
		if (inet_ntop(family == FC_AF_INET4 ? AF_INET : AF_INET6, addr, a, sizeof(a)) ==
			NULL)
			return -EINVAL;
		n = snprintf(buf, size, "|%c|%s|%u|", family == FC_AF_INET4 ? '1' : '2', a, port);
		break;
	case MOD_CT_FTP_EPSV:
		n = snprintf(buf, size, "|||%u|", port);
		break;
	default:
		return -EINVAL;
	}
	if (n < 0 || (unsigned int)n >= size)
		return -ENOSPC;
	return n;
}

/* ------------------------------------------------------------------------ */
/* Line tracking                                                             */
/* ------------------------------------------------------------------------ */

static bool
at_line_start(const struct mod_ct_ftp *s, unsigned int dir, uint32_t seq)
{
	for (unsigned int i = 0; i < s->n_nl[dir] && i < MOD_CT_FTP_NL_SEQS; i++)
		if (s->nl_seq[dir][i] == seq)
			return true;
	return false;
}

/* Remember @p seq as a line start; the older of two goes for a newer one. */
static void
remember_nl(struct mod_ct_ftp *s, unsigned int dir, uint32_t seq)
{
	unsigned int oldest;

	if (at_line_start(s, dir, seq))
		return;
	if (s->n_nl[dir] < MOD_CT_FTP_NL_SEQS) {
		s->nl_seq[dir][s->n_nl[dir]++] = seq;
		return;
	}
	oldest = mod_ct_seq_after(s->nl_seq[dir][1], s->nl_seq[dir][0]) ? 0 : 1;
	if (mod_ct_seq_after(seq, s->nl_seq[dir][oldest]))
		s->nl_seq[dir][oldest] = seq;
}

enum mod_ct_ftp_result
mod_ct_ftp_segment(struct mod_ct_ftp *s, unsigned int dir, uint32_t seq, const uint8_t *data,
	uint32_t len, uint8_t family, const uint8_t *sender, struct mod_ct_ftp_cmd *cmd)
{
	enum mod_ct_ftp_result r = MOD_CT_FTP_R_PASS;
	int rc;

	if (s == NULL || data == NULL || len == 0 || dir > MOD_CT_DIR_REPLY)
		return MOD_CT_FTP_R_PASS;
	if (at_line_start(s, dir, seq)) {
		rc = mod_ct_ftp_parse(data, len, dir, family, sender, cmd);
		if (rc == -EAGAIN)
			return MOD_CT_FTP_R_PARTIAL;
		if (rc < 0)
			return MOD_CT_FTP_R_BAD;
		if (rc == 1)
			r = cmd->family == family &&
					memcmp(cmd->addr, sender, fc_af_addr_len(family)) == 0 ?
				MOD_CT_FTP_R_CMD :
				MOD_CT_FTP_R_FOREIGN;
	}
	if (data[len - 1] == '\n')
		remember_nl(s, dir, seq + len);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Sequence adjustment                                                       */
/* ------------------------------------------------------------------------ */

void
mod_ct_seqadj_set(struct mod_ct_seqadj *a, unsigned int dir, uint32_t seq, int32_t delta)
{
	if (a == NULL || dir > 1 || delta == 0)
		return;
	/* A first rewrite, or one of a later segment, moves the position. */
	if (a->before[dir] == a->after[dir] || mod_ct_seq_after(seq, a->pos[dir])) {
		a->pos[dir] = seq;
		a->before[dir] = a->after[dir];
		a->after[dir] += delta;
	}
}

uint32_t
mod_ct_seqadj_seq(const struct mod_ct_seqadj *a, unsigned int dir, uint32_t seq)
{
	if (a == NULL || dir > 1)
		return seq;
	return seq + (uint32_t)(mod_ct_seq_after(seq, a->pos[dir]) ? a->after[dir] : a->before[dir]);
}

uint32_t
mod_ct_seqadj_ack(const struct mod_ct_seqadj *a, unsigned int dir, uint32_t ack)
{
	unsigned int o = dir ^ 1;
	int32_t off;

	if (a == NULL || dir > 1)
		return ack;
	off = mod_ct_seq_after(ack - (uint32_t)a->before[o], a->pos[o]) ? a->after[o] :
									    a->before[o];
	return ack - (uint32_t)off;
}

/* ------------------------------------------------------------------------ */
/* Segment rewrite                                                           */
/* ------------------------------------------------------------------------ */

/* One's complement sum of @p n bytes as big-endian 16-bit words (odd: zero pad). */
static uint32_t
ones_sum(const uint8_t *p, uint32_t n)
{
	uint32_t s = 0;

	for (; n > 1; p += 2, n -= 2)
		s += (uint32_t)p[0] << 8 | p[1];
	if (n != 0)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* @p acc (a sum) plus the change of one 16-bit word from @p o to @p n. */
static uint32_t
word_delta(uint32_t acc, uint16_t o, uint16_t n)
{
	return acc + (uint16_t)~o + n;
}

static uint32_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

int
mod_ct_tcp_rewrite(uint8_t *l3, uint32_t room, const struct fc_pkt *pkt, uint32_t seq,
	uint32_t ack, uint32_t off, uint32_t len_old, const char *text, uint32_t len_new)
{
	uint32_t l4 = (uint32_t)pkt->l4_off - pkt->l3_off, pay, dlen, tlen_old, tlen_new, e;
	uint32_t n_new, acc, oseq, oack;
	uint8_t *tcp;
	bool v4;

	if (l3 == NULL || pkt == NULL || (len_new != 0 && text == NULL) ||
		fc_key_proto(&pkt->key) != PROTO_TCP || pkt->frag == FC_FRAG_LATER ||
		pkt->l4_off <= pkt->l3_off)
		return -EINVAL;
	v4 = pkt->key.family == FC_AF_INET4;
	pay = l4 + pkt->tcp_hlen;
	dlen = pkt->tcp_dlen;
	if (pkt->tcp_hlen < 20 || pkt->ip_len < pay || pkt->ip_len - pay != dlen ||
		off > dlen || len_old > dlen - off || pkt->ip_len > room)
		return -EINVAL;
	n_new = pkt->ip_len - len_old + len_new;
	if (n_new > room || n_new > 65535)
		return -ENOSPC;
	tcp = l3 + l4;
	tlen_old = pkt->ip_len - l4;
	tlen_new = n_new - l4;
	acc = (uint16_t)~rd16(tcp + 16);
	/* The edited tail, from an even offset of the TCP header. */
	e = (pkt->tcp_hlen + off) & ~1u;
	if (len_old != 0 || len_new != 0) {
		acc += (uint16_t)~ones_sum(tcp + e, tlen_old - e);
		memmove(tcp + pkt->tcp_hlen + off + len_new, tcp + pkt->tcp_hlen + off + len_old,
			dlen - off - len_old);
		if (len_new != 0)
			memcpy(tcp + pkt->tcp_hlen + off, text, len_new);
		acc += ones_sum(tcp + e, tlen_new - e);
		/* The pseudo-header's TCP length. */
		acc = word_delta(acc, (uint16_t)tlen_old, (uint16_t)tlen_new);
	}
	oseq = rd32(tcp + 4);
	oack = rd32(tcp + 8);
	acc = word_delta(acc, (uint16_t)(oseq >> 16), (uint16_t)(seq >> 16));
	acc = word_delta(acc, (uint16_t)oseq, (uint16_t)seq);
	acc = word_delta(acc, (uint16_t)(oack >> 16), (uint16_t)(ack >> 16));
	acc = word_delta(acc, (uint16_t)oack, (uint16_t)ack);
	wr16(tcp + 4, (uint16_t)(seq >> 16));
	wr16(tcp + 6, (uint16_t)seq);
	wr16(tcp + 8, (uint16_t)(ack >> 16));
	wr16(tcp + 10, (uint16_t)ack);
	wr16(tcp + 16, (uint16_t)~fold(acc));
	if (n_new != pkt->ip_len) {
		if (v4) {
			uint32_t h = (uint16_t)~rd16(l3 + 10);

			h = word_delta(h, rd16(l3 + 2), (uint16_t)n_new);
			wr16(l3 + 2, (uint16_t)n_new);
			wr16(l3 + 10, (uint16_t)~fold(h));
		} else {
			wr16(l3 + 4, (uint16_t)(n_new - 40));
		}
	}
	return (int)n_new;
}

int
mod_ct_udp_rewrite(uint8_t *l3, uint32_t room, const struct fc_pkt *pkt, uint32_t off,
	uint32_t len_old, const uint8_t *text, uint32_t len_new)
{
	uint32_t l4 = (uint32_t)pkt->l4_off - pkt->l3_off, dlen, n_new, ulen, sum;
	uint8_t *udp;
	bool v4;

	if (l3 == NULL || pkt == NULL || (len_new != 0 && text == NULL) ||
		fc_key_proto(&pkt->key) != PROTO_UDP || pkt->frag != FC_FRAG_NONE ||
		pkt->l4_off <= pkt->l3_off)
		return -EINVAL;
	v4 = pkt->key.family == FC_AF_INET4;
	if (pkt->ip_len < l4 + 8 || pkt->ip_len > room)
		return -EINVAL;
	dlen = pkt->ip_len - l4 - 8;
	if (off > dlen || len_old > dlen - off)
		return -EINVAL;
	n_new = pkt->ip_len - len_old + len_new;
	if (n_new > room || n_new > 65535 || (!v4 && n_new - 40 > 65535))
		return -ENOSPC;
	udp = l3 + l4;
	memmove(udp + 8 + off + len_new, udp + 8 + off + len_old, dlen - off - len_old);
	if (len_new != 0)
		memcpy(udp + 8 + off, text, len_new);
	ulen = n_new - l4;
	wr16(udp + 4, (uint16_t)ulen);
	if (!v4 || rd16(udp + 6) != 0) {
		/* The pseudo-header, then the datagram with its checksum zeroed. */
		wr16(udp + 6, 0);
		sum = v4 ? ones_sum(l3 + 12, 8) : ones_sum(l3 + 8, 32);
		sum += PROTO_UDP + (ulen >> 16) + (ulen & 0xffff) + ones_sum(udp, ulen);
		sum = (uint16_t)~fold(sum);
		wr16(udp + 6, (uint16_t)(sum == 0 ? 0xffff : sum));
	}
	if (v4) {
		uint32_t h = (uint16_t)~rd16(l3 + 10);

		h = word_delta(h, rd16(l3 + 2), (uint16_t)n_new);
		wr16(l3 + 2, (uint16_t)n_new);
		wr16(l3 + 10, (uint16_t)~fold(h));
	} else {
		wr16(l3 + 4, (uint16_t)(n_new - 40));
	}
	return (int)n_new;
}

int
mod_ct_tcp_sack_adjust(uint8_t *l3, const struct fc_pkt *pkt, const struct mod_ct_seqadj *a,
	unsigned int dir)
{
	uint32_t l4, n, i, sz, j, old_sum, acc, e, ne;
	uint8_t *tcp, *o;
	int changed = 0;

	if (l3 == NULL || pkt == NULL || a == NULL || dir > 1 || pkt->l4_off <= pkt->l3_off ||
		fc_key_proto(&pkt->key) != PROTO_TCP)
		return -EINVAL;
	if (pkt->tcp_hlen <= 20)
		return 0;
	l4 = (uint32_t)pkt->l4_off - pkt->l3_off;
	tcp = l3 + l4;
	o = tcp + 20;
	n = (uint32_t)pkt->tcp_hlen - 20;
	/* A block need not start on an even offset: the checksum follows the
	 * whole option area (a multiple of 4 bytes from an even offset). */
	old_sum = ones_sum(o, n);
	for (i = 0; i < n;) {
		if (o[i] == 0) /* end of the options */
			break;
		if (o[i] == 1) { /* NOP */
			i++;
			continue;
		}
		if (n - i < 2 || o[i + 1] < 2 || o[i + 1] > n - i)
			break;
		sz = o[i + 1];
		/* SACK (kind 5): blocks of two edges in the other side's space,
		 * moved back as the acknowledgment number is. */
		if (o[i] == 5 && sz >= 10 && (sz - 2) % 8 == 0) {
			for (j = i + 2; j + 4 <= i + sz; j += 4) {
				e = (uint32_t)o[j] << 24 | (uint32_t)o[j + 1] << 16 |
				    (uint32_t)o[j + 2] << 8 | o[j + 3];
				ne = mod_ct_seqadj_ack(a, dir, e);
				if (ne == e)
					continue;
				o[j] = (uint8_t)(ne >> 24);
				o[j + 1] = (uint8_t)(ne >> 16);
				o[j + 2] = (uint8_t)(ne >> 8);
				o[j + 3] = (uint8_t)ne;
				changed++;
			}
		}
		i += sz;
	}
	if (changed != 0) {
		acc = (uint16_t)~rd16(tcp + 16);
		acc += (uint16_t)~old_sum + ones_sum(o, n);
		wr16(tcp + 16, (uint16_t)~fold(acc));
	}
	return changed;
}
