/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the neighbour module's frame codec (pure): ARP requests and
 * replies, neighbour solicitations (multicast and unicast probes) and
 * advertisements written and read back; what the parser refuses (truncated
 * frames, bad ICMPv6 checksum, hop limit below 255, a zero-length or
 * overlong option, a non-zero code) and what it leaves alone (other
 * ethertypes, other ICMPv6).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flowcache.h"
#include "neigh.h"

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_B[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t ZERO6[6];
static const uint8_t IP_A[4] = { 10, 0, 1, 1 };
static const uint8_t IP_B[4] = { 10, 0, 1, 2 };
static const uint8_t IP6_A[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
static const uint8_t IP6_B[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [13] = 0xab, [14] = 0xcd,
	[15] = 2 };

static void
test_arp(void **state)
{
	uint8_t f[MOD_NEIGH_FRAME_MAX];
	struct mod_neigh_msg m;

	(void)state;
	assert_int_equal(mod_neigh_build_arp(f, 1, BCAST, MAC_A, IP_A, ZERO6, IP_B),
		MOD_NEIGH_ARP_LEN);
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ARP_LEN, &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_ARP_REQUEST);
	assert_int_equal(m.family, FC_AF_INET4);
	assert_true(m.has_lladdr);
	assert_memory_equal(m.eth_dst, BCAST, 6);
	assert_memory_equal(m.eth_src, MAC_A, 6);
	assert_memory_equal(m.lladdr, MAC_A, 6);
	assert_memory_equal(m.src, IP_A, 4);
	assert_memory_equal(m.target, IP_B, 4);

	assert_int_equal(mod_neigh_build_arp(f, 2, MAC_A, MAC_B, IP_B, MAC_A, IP_A),
		MOD_NEIGH_ARP_LEN);
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ARP_LEN, &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_ARP_REPLY);
	assert_memory_equal(m.lladdr, MAC_B, 6);
	assert_memory_equal(m.src, IP_B, 4);
	assert_memory_equal(m.target, IP_A, 4);
	/* The frame without its padding still holds the whole message (42 bytes). */
	assert_int_equal(mod_neigh_parse(f, 42, &m), 0);
	assert_int_equal(mod_neigh_parse(f, 41, &m), -EINVAL);
	/* Not Ethernet/IPv4 ARP: malformed; an unknown opcode too. */
	f[15] = 7; /* hardware type 7 */
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ARP_LEN, &m), -EINVAL);
	f[15] = 1;
	f[21] = 9; /* opcode 9 */
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ARP_LEN, &m), -EINVAL);
	/* Another ethertype is not the module's. */
	f[12] = 0x08;
	f[13] = 0x00;
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ARP_LEN, &m), -ENOTSUP);
	assert_int_equal(mod_neigh_parse(f, 10, &m), -EINVAL);
}

static void
test_ns_na(void **state)
{
	uint8_t f[MOD_NEIGH_FRAME_MAX];
	struct mod_neigh_msg m;
	static const uint8_t snm[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff, [13] = 0xab,
		[14] = 0xcd, [15] = 2 };
	static const uint8_t snm_mac[6] = { 0x33, 0x33, 0xff, 0xab, 0xcd, 0x02 };

	(void)state;
	/* Multicast solicitation: to the target's solicited-node address and MAC. */
	assert_int_equal(mod_neigh_build_ns(f, MAC_A, IP6_A, IP6_B, NULL), MOD_NEIGH_ND_LEN);
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ND_LEN, &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_NS);
	assert_int_equal(m.family, FC_AF_INET6);
	assert_memory_equal(m.eth_dst, snm_mac, 6);
	assert_memory_equal(m.dst, snm, 16);
	assert_memory_equal(m.src, IP6_A, 16);
	assert_memory_equal(m.target, IP6_B, 16);
	assert_true(m.has_lladdr);
	assert_memory_equal(m.lladdr, MAC_A, 6);
	/* A probe: unicast to the target at its MAC. */
	assert_int_equal(mod_neigh_build_ns(f, MAC_A, IP6_A, IP6_B, MAC_B), MOD_NEIGH_ND_LEN);
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ND_LEN, &m), 0);
	assert_memory_equal(m.eth_dst, MAC_B, 6);
	assert_memory_equal(m.dst, IP6_B, 16);

	assert_int_equal(mod_neigh_build_na(f, MAC_B, MAC_A, IP6_B, IP6_A,
		MOD_NEIGH_NA_SOLICITED | MOD_NEIGH_NA_OVERRIDE), MOD_NEIGH_ND_LEN);
	assert_int_equal(mod_neigh_parse(f, MOD_NEIGH_ND_LEN, &m), 0);
	assert_int_equal(m.kind, MOD_NEIGH_MSG_NA);
	assert_int_equal(m.flags, MOD_NEIGH_NA_SOLICITED | MOD_NEIGH_NA_OVERRIDE);
	assert_memory_equal(m.target, IP6_B, 16);
	assert_memory_equal(m.src, IP6_B, 16);
	assert_memory_equal(m.dst, IP6_A, 16);
	assert_true(m.has_lladdr);
	assert_memory_equal(m.lladdr, MAC_B, 6);
}

static void
test_nd_malformed(void **state)
{
	uint8_t f[MOD_NEIGH_FRAME_MAX], g[MOD_NEIGH_FRAME_MAX];
	struct mod_neigh_msg m;

	(void)state;
	mod_neigh_build_na(f, MAC_B, MAC_A, IP6_B, IP6_A, MOD_NEIGH_NA_SOLICITED);
	/* Each byte of the ICMPv6 message past its type is under the checksum. */
	for (unsigned int i = 55; i < MOD_NEIGH_ND_LEN; i++) {
		memcpy(g, f, sizeof(g));
		g[i] ^= 0x10;
		assert_int_equal(mod_neigh_parse(g, MOD_NEIGH_ND_LEN, &m), -EINVAL);
	}
	/* Hop limit below 255: not from the link. */
	memcpy(g, f, sizeof(g));
	g[14 + 7] = 254;
	assert_int_equal(mod_neigh_parse(g, MOD_NEIGH_ND_LEN, &m), -EINVAL);
	/* Truncated: every length short of the message. */
	for (unsigned int len = 0; len < MOD_NEIGH_ND_LEN - 8; len++)
		assert_int_not_equal(mod_neigh_parse(f, len, &m), 0);
	/* A payload length past the frame. */
	memcpy(g, f, sizeof(g));
	g[14 + 5] += 8;
	assert_int_equal(mod_neigh_parse(g, MOD_NEIGH_ND_LEN, &m), -EINVAL);
	/* Other ICMPv6 (an echo request) is not the module's. */
	memcpy(g, f, sizeof(g));
	g[54] = 128;
	assert_int_equal(mod_neigh_parse(g, MOD_NEIGH_ND_LEN, &m), -ENOTSUP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_ns_na),
		cmocka_unit_test(test_nd_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
