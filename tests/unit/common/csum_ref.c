/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/common/csum_ref.c — the unit tests' reference Internet
 * checksum (csum_ref.h): byte by byte, independent of lib/.
 */
#include "csum_ref.h"

uint32_t
csum_ref_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		sum += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
	return sum;
}

uint16_t
csum_ref_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t
csum_ref_pseudo(const uint8_t *l3, uint8_t proto, uint32_t l4len)
{
	bool v4 = (l3[0] >> 4) == 4;

	/* IPv4: source and destination at 12..19; IPv6: at 8..39. */
	return csum_ref_add(0, l3 + (v4 ? 12 : 8), v4 ? 8 : 32) + proto + (l4len >> 16) +
	       (l4len & 0xffff);
}

bool
csum_ref_ip4_ok(const uint8_t *ip)
{
	return csum_ref_fold(csum_ref_add(0, ip, (size_t)(ip[0] & 0xf) * 4)) == 0xffff;
}

bool
csum_ref_l4_ok(const uint8_t *l3)
{
	bool v4 = (l3[0] >> 4) == 4;
	uint32_t hl = v4 ? (uint32_t)(l3[0] & 0xf) * 4 : 40;
	uint32_t len = v4 ? (uint32_t)(l3[2] << 8 | l3[3]) - hl : (uint32_t)(l3[4] << 8 | l3[5]);
	uint8_t proto = l3[v4 ? 9 : 6];
	uint32_t sum = csum_ref_add(0, l3 + hl, len);

	if (!(v4 && proto == 1)) /* ICMP has no pseudo-header */
		sum += csum_ref_pseudo(l3, proto, len);
	return csum_ref_fold(sum) == 0xffff;
}
