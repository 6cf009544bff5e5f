/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/common/csum_ref.h — the Internet checksum (RFC 1071) computed
 * the slow, obvious way, for the unit tests to check what lib/ writes
 * (NAT rewrites, REJECT replies, helpers' payload edits, built frames)
 * against: a sum of big-endian 16-bit words, an odd last byte as a high
 * byte, folded to 16 bits. One copy for every test (csum_ref.c); nothing
 * in lib/ is used, so a fault there cannot hide in the reference.
 */
#ifndef GUFC_CSUM_REF_H
#define GUFC_CSUM_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * @p sum plus the @p len bytes at @p p as big-endian 16-bit words (an odd
 * last byte is the high byte of a word), not folded.
 */
uint32_t csum_ref_add(uint32_t sum, const void *p, size_t len);

/** @p sum folded to 16 bits (end-around carry), not complemented. */
uint16_t csum_ref_fold(uint32_t sum);

/**
 * The pseudo-header's sum (addresses, protocol @p proto, length @p l4len)
 * of the IPv4 or IPv6 header at @p l3 (its version nibble says which).
 */
uint32_t csum_ref_pseudo(const uint8_t *l3, uint8_t proto, uint32_t l4len);

/** Does the IPv4 header at @p ip (its IHL's length) sum to 0xffff? */
bool csum_ref_ip4_ok(const uint8_t *ip);

/**
 * Does the transport header and payload after the IP header at @p l3
 * (IPv4: its IHL and total length; IPv6: a 40-byte header, no extension
 * headers, the payload length; the protocol from the header) verify with
 * its pseudo-header (TCP, UDP, UDP-Lite with full coverage, DCCP, ICMPv6;
 * ICMP without one)?
 */
bool csum_ref_l4_ok(const uint8_t *l3);

#endif /* GUFC_CSUM_REF_H */
