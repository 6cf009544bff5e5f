/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine/engine_martian.c — addresses Linux's input path drops as
 * martians (rule_engine_martian(), drop reason `martian`): the filter
 * module asks after PREROUTING's tables (IPv4), the upcall before any
 * hook (IPv6).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "engine.h"

/*
 * Martians (rule_engine_martian()). IPv4, the input route's checks, in
 * their order: a multicast or limited-broadcast source; then the limited
 * broadcast (or 0.0.0.0 to 0.0.0.0) is a broadcast, not a martian; then a
 * source or destination 0.0.0.0 (the rest of 0.0.0.0/8 is routed, as
 * Linux has it since 5.3) or in 127.0.0.0/8. A multicast destination
 * takes the multicast input path instead: not checked here. IPv6,
 * reception's checks: a multicast or loopback source, the loopback
 * destination, a multicast destination of interface-local or reserved
 * (0) scope (an IPv4-mapped source passes: the kernel delivers it).
 * A forged local source (FC_KEY_F_SRC_FORGED): an IPv4 martian (Linux's
 * fib_validate_source() with accept_local off), for IPv6 none. IPv6
 * forwarding, after PREROUTING: a link-local (fe80::/10) or unspecified
 * source is not forwarded (Linux's ip6_forward() drops it before the
 * FORWARD hook; it answers a link-local source with an ICMPv6 error, which
 * gufc does not send; where the packet would leave by the port it came in
 * on Linux redirects instead, which gufc does not model).
 */
static bool
martian4(uint32_t s, uint32_t d)
{
	if ((d >> 28) == 0xe)
		return false;
	if ((s >> 28) == 0xe || s == UINT32_MAX)
		return true;
	if (d == UINT32_MAX || (s == 0 && d == 0))
		return false;
	return s == 0 || d == 0 || (s >> 24) == 127 || (d >> 24) == 127;
}

static bool
martian6(const uint8_t s[16], const uint8_t d[16])
{
	static const uint8_t lo[16] = {[15] = 1};

	if (s[0] == 0xff || memcmp(s, lo, 16) == 0 || memcmp(d, lo, 16) == 0)
		return true;
	return d[0] == 0xff && (d[1] & 0x0f) <= 1;
}

/* An IPv6 source ip6_forward() refuses: link-local or unspecified. */
static bool
unforwardable6(const uint8_t s[16], const uint8_t d[16])
{
	static const uint8_t any[16];

	if (d[0] == 0xff)
		return false;
	return (s[0] == 0xfe && (s[1] & 0xc0) == 0x80) || memcmp(s, any, 16) == 0;
}

bool
rule_engine_martian(const struct fc_key *k, bool stage_dst)
{
	if (fc_key_flags(k) & FC_KEY_F_SRC_LOCAL)
		return false;
	/*
	 * A source of this host's from a port that does not carry its own
	 * packets: the input route's source check refuses it (accept_local
	 * off), whatever the destination; IPv6 has no such check.
	 */
	if (k->family == FC_AF_INET4)
		return stage_dst &&
		       ((fc_key_flags(k) & FC_KEY_F_SRC_FORGED) ||
			       martian4(rte_be_to_cpu_32(k->v4.src), rte_be_to_cpu_32(k->v4.dst)));
	if (stage_dst)
		return !(fc_key_flags(k) & FC_KEY_F_DST_LOCAL) &&
		       unforwardable6(k->v6.src, k->v6.dst);
	return martian6(k->v6.src, k->v6.dst);
}
