/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/lex: values — unsigned numbers, IPv4/IPv6 addresses, prefixes (with
 * the host-bits policy as a parameter), port ranges and lists. Every parser
 * takes the text as (pointer, length), refuses anything but the whole text,
 * and names its fault (enum lex_code) with the part at fault.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lex.h"

static int
fault(struct lex_fault *f, unsigned int code, size_t at, size_t len)
{
	if (f != NULL) {
		f->code = (uint8_t)code;
		f->at = at;
		f->tok = at;
		f->len = len;
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

static int
digit_of(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return (unsigned int)d < base ? d : -1;
}

int
lex_u32(const char *s, size_t len, uint32_t max, unsigned int flags, uint32_t *v,
	struct lex_fault *f)
{
	unsigned int base = 10;
	size_t i = 0;
	uint64_t x = 0;
	bool big = false;

	if (len == 0)
		return fault(f, LEX_E_NOT_NUMBER, 0, 0);
	if ((flags & LEX_NUM_NO_LEAD_ZERO) && len > 1 && s[0] == '0')
		return fault(f, LEX_E_NOT_NUMBER, 0, len);
	if ((flags & LEX_NUM_C) && s[0] == '0' && len > 1) {
		if (s[1] == 'x' || s[1] == 'X') {
			base = 16;
			i = 2;
			if (len == 2)
				return fault(f, LEX_E_NOT_NUMBER, 0, len);
		} else {
			base = 8;
			i = 1;
		}
	}
	for (; i < len; i++) {
		int d = digit_of(s[i], base);

		if (d < 0)
			return fault(f, LEX_E_NOT_NUMBER, 0, len);
		/* Keep reading past the limit: a bad digit later is still "not a number". */
		if (!big)
			x = x * base + (uint64_t)d;
		big |= x > max;
	}
	if (big)
		return fault(f, LEX_E_RANGE, 0, len);
	*v = (uint32_t)x;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Addresses and prefixes                                                    */
/* ------------------------------------------------------------------------ */

int
lex_addr(const char *s, size_t len, uint8_t *family, uint8_t addr[16], struct lex_fault *f)
{
	char tmp[LEX_ADDR_STRLEN];
	bool v6 = memchr(s, ':', len) != NULL;

	*family = v6 ? LEX_AF_INET6 : LEX_AF_INET4;
	memset(addr, 0, 16);
	if (len == 0 || len >= sizeof(tmp) || memchr(s, '\0', len) != NULL)
		return fault(f, LEX_E_BAD_ADDR, 0, len);
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, tmp, addr) != 1) {
		memset(addr, 0, 16);
		return fault(f, LEX_E_BAD_ADDR, 0, len);
	}
	return 0;
}

/* One part of an iptables IPv4 address: 0..255, strtoul's base 0 without a sign. */
static bool
ipt_v4_part(const char *s, size_t len, uint8_t *out)
{
	unsigned int base = 10, v = 0;
	size_t i = 0;

	if (len > 1 && s[0] == '0') {
		base = 8;
		i = 1;
		if (s[1] == 'x' || s[1] == 'X') {
			base = 16;
			i = 2;
		}
	}
	if (i == len && base != 8)
		return false; /* empty, or "0x" alone */
	for (; i < len; i++) {
		unsigned int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned int)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned int)(s[i] - 'a' + 10);
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned int)(s[i] - 'A' + 10);
		else
			return false;
		if (d >= base)
			return false;
		v = v * base + d;
		if (v > 255)
			return false;
	}
	*out = (uint8_t)v;
	return true;
}

/* An IPv4 address as iptables reads it (LEX_PFX_IPT_V4). */
static bool
ipt_v4(const char *s, size_t len, uint8_t addr[16])
{
	unsigned int n = 0;
	size_t start = 0;

	memset(addr, 0, 16);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4 || !ipt_v4_part(s + start, i - start, &addr[n])) {
			memset(addr, 0, 16);
			return false;
		}
		n++;
		start = i + 1;
	}
	return true;
}

int
lex_addr_format(unsigned int family, const uint8_t *addr, char *buf, size_t len)
{
	if (lex_af_len(family) == 0 || buf == NULL ||
		inet_ntop(family == LEX_AF_INET6 ? AF_INET6 : AF_INET, addr, buf,
			(socklen_t)len) == NULL)
		return -EINVAL;
	return (int)strlen(buf);
}

/* Prefix length of a netmask, or -1 if its ones are not contiguous. */
static int
mask_len(const uint8_t *m, unsigned int nbytes)
{
	unsigned int len = 0, i = 0;

	for (; i < nbytes && m[i] == 0xff; i++)
		len += 8;
	if (i < nbytes) {
		uint8_t b = m[i];

		while (b & 0x80) {
			len++;
			b = (uint8_t)(b << 1);
		}
		if (b != 0)
			return -1;
		for (i++; i < nbytes; i++)
			if (m[i] != 0)
				return -1;
	}
	return (int)len;
}

/* The length after the '/' at @p slash: a number, or with LEX_PFX_NETMASK a mask. */
static int
prefix_len(const char *s, size_t len, size_t slash, unsigned int flags, uint8_t family,
	unsigned int *bits, struct lex_fault *f)
{
	const char *m = s + slash + 1;
	size_t mlen = len - slash - 1;
	unsigned int max = lex_af_len(family) * 8;
	uint32_t v;

	if ((flags & LEX_PFX_NETMASK) &&
		memchr(m, family == LEX_AF_INET6 ? ':' : '.', mlen) != NULL) {
		uint8_t mfam, mask[16];
		int ml;

		if (lex_addr(m, mlen, &mfam, mask, NULL) != 0 || mfam != family)
			return fault(f, LEX_E_BAD_MASK, 0, len);
		ml = mask_len(mask, lex_af_len(family));
		if (ml < 0)
			return fault(f, LEX_E_MASK_HOLES, 0, len);
		*bits = (unsigned int)ml;
		return 0;
	}
	if (lex_u32(m, mlen, max, (flags & LEX_PFX_NO_LEAD_ZERO) ? LEX_NUM_NO_LEAD_ZERO : LEX_NUM_DEC,
		    &v, NULL) != 0)
		return fault(f, LEX_E_BAD_LEN, 0, len);
	*bits = v;
	return 0;
}

int
lex_prefix(const char *s, size_t len, unsigned int flags, struct lex_prefix *p,
	struct lex_fault *f)
{
	const char *slash = memchr(s, '/', len);
	size_t alen = slash != NULL ? (size_t)(slash - s) : len;
	unsigned int bits;
	uint8_t family;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((flags & LEX_PFX_IPT_V4) && alen > 0 && memchr(s, ':', alen) == NULL) {
		family = LEX_AF_INET4;
		if (!ipt_v4(s, alen, p->addr))
			return fault(f, LEX_E_BAD_ADDR, 0, len);
	} else if (lex_addr(s, alen, &family, p->addr, NULL) != 0) {
		return fault(f, LEX_E_BAD_ADDR, 0, len);
	}
	bits = lex_af_len(family) * 8;
	if (slash != NULL) {
		rc = prefix_len(s, len, alen, flags, family, &bits, f);
		if (rc != 0)
			return rc;
	}
	for (unsigned int b = bits; b < 128; b++) {
		uint8_t bit = (uint8_t)(0x80u >> (b % 8));

		if (!(p->addr[b / 8] & bit) || (flags & LEX_PFX_HOST_KEEP))
			continue;
		if (!(flags & LEX_PFX_HOST_CLEAR))
			return fault(f, LEX_E_HOST_BITS, 0, len);
		p->addr[b / 8] &= (uint8_t)~bit;
	}
	p->family = family;
	p->len = (uint8_t)bits;
	return 0;
}

int
lex_prefix_format(const struct lex_prefix *p, char *buf, size_t len)
{
	char a[LEX_ADDR_STRLEN];
	int n;

	if (lex_addr_format(p->family, p->addr, a, sizeof(a)) < 0)
		return -EINVAL;
	n = snprintf(buf, len, "%s/%u", a, p->len);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len ? -ENOSPC : n;
}

/* ------------------------------------------------------------------------ */
/* Ports                                                                     */
/* ------------------------------------------------------------------------ */

const struct lex_port_syntax lex_ports_native = {
	.range = '-', .list = ',', .range_weight = 1, .max = 16,
};
const struct lex_port_syntax lex_ports_nat = {
	.range = '-', .nonzero = true, .range_weight = 1, .max = 1,
};
const struct lex_port_syntax lex_ports_ipt = {
	.range = ':', .open_ends = true, .no_lead_zero = true, .names = true, .range_weight = 1,
	.max = 1,
};
const struct lex_port_syntax lex_ports_ipt_multi = {
	.range = ':', .list = ',', .strict = true, .no_lead_zero = true, .names = true,
	.range_weight = 2, .max = 15,
};

/* Service names seen in rule sets, with their IANA ports (netbase's names and aliases). */
static const struct {
	const char *name;
	uint16_t port;
} services[] = {
	{"ftp-data", 20}, {"ftp", 21}, {"ssh", 22}, {"telnet", 23}, {"smtp", 25},
	{"domain", 53}, {"bootps", 67}, {"bootpc", 68}, {"tftp", 69}, {"gopher", 70},
	{"finger", 79}, {"http", 80}, {"www", 80}, {"kerberos", 88}, {"pop3", 110},
	{"sunrpc", 111}, {"auth", 113}, {"ident", 113}, {"ntp", 123}, {"netbios-ns", 137},
	{"netbios-dgm", 138}, {"netbios-ssn", 139}, {"imap", 143}, {"imap2", 143},
	{"snmp", 161}, {"snmp-trap", 162}, {"bgp", 179}, {"ldap", 389}, {"https", 443},
	{"microsoft-ds", 445}, {"submissions", 465}, {"smtps", 465}, {"isakmp", 500},
	{"syslog", 514}, {"printer", 515}, {"submission", 587}, {"ldaps", 636}, {"rsync", 873},
	{"imaps", 993}, {"pop3s", 995}, {"openvpn", 1194}, {"ms-sql-s", 1433}, {"nfs", 2049},
	{"mysql", 3306}, {"ms-wbt-server", 3389}, {"epmd", 4369}, {"ipsec-nat-t", 4500},
	{"sip", 5060}, {"xmpp-client", 5222}, {"xmpp-server", 5269}, {"postgresql", 5432},
	{"http-alt", 8080},
};

bool
lex_service_port(const char *s, size_t len, uint16_t *port)
{
	for (size_t i = 0; i < sizeof(services) / sizeof(services[0]); i++)
		if (strlen(services[i].name) == len && memcmp(services[i].name, s, len) == 0) {
			*port = services[i].port;
			return true;
		}
	return false;
}
const struct lex_port_syntax lex_ports_ipt_nat = {
	.range = '-', .nonzero = true, .no_lead_zero = true, .range_weight = 1, .max = 1,
};

/* One end of a range; an empty end is @p open (a missing end), or an error. */
static bool
port_end(const struct lex_port_syntax *sx, const char *s, size_t len, int open, uint16_t *port)
{
	uint32_t v;

	if (len == 0 && open >= 0) {
		*port = (uint16_t)open;
		return true;
	}
	if (sx->names && len != 0 && !(s[0] >= '0' && s[0] <= '9'))
		return lex_service_port(s, len, port);
	if (lex_u32(s, len, 65535, sx->no_lead_zero ? LEX_NUM_NO_LEAD_ZERO : LEX_NUM_DEC, &v,
		    NULL) != 0 || (sx->nonzero && v == 0))
		return false;
	*port = (uint16_t)v;
	return true;
}

/* One item [s, s+len) at offset @p at of the whole text. */
static int
port_item(const struct lex_port_syntax *sx, const char *s, size_t len, size_t at,
	struct lex_port_range *r, struct lex_fault *f)
{
	const char *sep = memchr(s, sx->range, len);

	if (sep == NULL) {
		if (!port_end(sx, s, len, -1, &r->lo))
			return fault(f, LEX_E_BAD_PORT, at, len);
		r->hi = r->lo;
		return 0;
	}
	if (!port_end(sx, s, (size_t)(sep - s), sx->open_ends ? 0 : -1, &r->lo) ||
		!port_end(sx, sep + 1, len - (size_t)(sep - s) - 1, sx->open_ends ? 65535 : -1,
			&r->hi))
		return fault(f, LEX_E_BAD_PORT, at, len);
	if (r->lo > r->hi || (sx->strict && r->lo == r->hi))
		return fault(f, LEX_E_BAD_RANGE, at, len);
	return 0;
}

int
lex_ports(const struct lex_port_syntax *sx, const char *s, size_t len,
	struct lex_port_range *out, unsigned int *n, struct lex_fault *f)
{
	unsigned int used = 0;
	size_t at = 0;

	*n = 0;
	for (;;) {
		const char *item = s + at;
		size_t ilen = 0;
		unsigned int weight;
		int rc;

		while (at + ilen < len && (sx->list == '\0' || item[ilen] != sx->list))
			ilen++;
		if (ilen == 0 && sx->list != '\0')
			return fault(f, LEX_E_EMPTY_ITEM, 0, len);
		weight = memchr(item, sx->range, ilen) != NULL ? sx->range_weight : 1;
		if (used + weight > sx->max)
			return fault(f, LEX_E_TOO_MANY_PORTS, at, ilen);
		rc = port_item(sx, item, ilen, at, &out[*n], f);
		if (rc != 0)
			return rc;
		used += weight;
		(*n)++;
		at += ilen;
		if (at >= len)
			return 0;
		at++; /* the list separator */
		if (at == len)
			return fault(f, LEX_E_EMPTY_ITEM, 0, len);
	}
}
