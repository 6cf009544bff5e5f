/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_irc.c — the IRC helper's pure part: the DCC
 * offer a client sends to its IRC server ("PRIVMSG nick :\1DCC SEND file
 * ADDR PORT ...\1"), as Linux's nf_conntrack_irc finds it (since its 2022
 * tightening: the message is a PRIVMSG and the CTCP starts its text), and
 * the text a NAT writes in place of the offer's address and port.
 *
 * Pure and stateless. See conntrack_helper.h.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ct_priv.h"

/* Linux's DCC types. */
static const char *const dcc_types[] = {"SEND ", "CHAT ", "MOVE ", "TSEND ", "SCHAT "};

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* Decimal digits at @p s, at most @p max in value: *v, their count (0: none or too big). */
static uint32_t
number(const uint8_t *s, uint32_t len, uint64_t max, uint64_t *v)
{
	uint32_t i = 0;

	*v = 0;
	while (i < len && is_digit(s[i])) {
		*v = *v * 10 + (uint32_t)(s[i++] - '0');
		if (*v > max || i > 10)
			return 0;
	}
	return i;
}

/*
 * After "\1DCC TYPE ": the argument (a file name, "chat"), a space, then
 * "ADDR PORT" in decimal, a newline somewhere after it (Linux's
 * parse_dcc). @return 1 and @p d, or 0.
 */
static int
dcc_args(const uint8_t *s, uint32_t len, uint32_t p, struct mod_ct_irc_dcc *d)
{
	uint64_t addr, port;
	uint32_t n, start, q;

	/* Skip the argument and its space; 12 bytes at least must follow. */
	while (p < len && s[p] != ' ')
		p++;
	p++;
	if (p > len || len - p < 12)
		return 0;
	for (q = p; q < len && s[q] != '\n'; q++)
		;
	if (q >= len)
		return 0;
	start = p;
	n = number(s + p, len - p, UINT32_MAX, &addr);
	if (n == 0)
		return 0;
	p += n;
	while (p < len && s[p] == ' ')
		p++;
	n = number(s + p, len - p, 65535, &port);
	if (n == 0 || port == 0)
		return 0;
	p += n;
	d->addr = (uint32_t)addr;
	d->port = (uint16_t)port;
	d->off = (uint16_t)start;
	d->len = (uint16_t)(p - start);
	return 1;
}

int
mod_ct_irc_parse(const uint8_t *s, uint32_t len, struct mod_ct_irc_dcc *d)
{
	uint32_t p = 0;

	if ((s == NULL && len != 0) || d == NULL)
		return -EINVAL;
	if (len > UINT16_MAX)
		len = UINT16_MAX;
	memset(d, 0, sizeof(*d));
	/* Leading blanks, then the command: PRIVMSG. */
	while (p + 10 < len && (s[p] == ' ' || s[p] == '\r' || s[p] == '\n'))
		p++;
	if (p + 10 >= len || strncasecmp((const char *)s + p, "PRIVMSG ", 8) != 0)
		return 0;
	p += 8;
	/* The text after the first " :" must be the CTCP DCC. */
	for (; p + 26 < len; p++) {
		if (s[p] != ' ' || s[p + 1] != ':')
			continue;
		p += 2;
		if (memcmp(s + p, "\1DCC ", 5) != 0)
			return 0;
		p += 5;
		for (unsigned int i = 0; i < RTE_DIM(dcc_types); i++) {
			uint32_t l = (uint32_t)strlen(dcc_types[i]);

			if (len - p < l || memcmp(s + p, dcc_types[i], l) != 0)
				continue;
			return dcc_args(s, len, p + l, d);
		}
		return 0;
	}
	return 0;
}

int
mod_ct_irc_format(uint32_t addr, uint16_t port, char *buf, unsigned int size)
{
	int n;

	if (buf == NULL || size == 0)
		return -EINVAL;
	n = snprintf(buf, size, "%u %u", addr, port);
	return n < 0 || (unsigned int)n >= size ? -ENOSPC : n;
}
