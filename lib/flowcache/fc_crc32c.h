/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache: CRC32c (Castagnoli, RFC 9260 appendix A), the checksum of
 * an SCTP packet, for conntrack's check of every SCTP packet (slow path
 * and fast path alike). The CPU's CRC32c instruction where the build has
 * it (x86 SSE4.2, Arm's CRC extension): one instruction per 8 bytes; a
 * bit-by-bit loop elsewhere. Pure: no EAL, no tables.
 */
#ifndef GUFC_FC_CRC32C_H
#define GUFC_FC_CRC32C_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#elif defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#endif

/**
 * The CRC32c register after @p len bytes at @p p, from register @p crc
 * (reflected, no final inversion: start from 0xffffffff and invert the
 * end for the standard CRC).
 */
static inline uint32_t
fc_crc32c_update(uint32_t crc, const uint8_t *p, uint32_t len)
{
#if defined(__SSE4_2__) && defined(__x86_64__)
	uint64_t c = crc, w, x[4];

	for (; len >= 32; p += 32, len -= 32) {
		memcpy(x, p, 32);
		c = _mm_crc32_u64(c, x[0]);
		c = _mm_crc32_u64(c, x[1]);
		c = _mm_crc32_u64(c, x[2]);
		c = _mm_crc32_u64(c, x[3]);
	}
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
	for (; len > 0; p++, len--)
		crc = _mm_crc32_u8(crc, *p);
	return crc;
#elif defined(__ARM_FEATURE_CRC32)
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		crc = __crc32cd(crc, w);
	}
	for (; len > 0; p++, len--)
		crc = __crc32cb(crc, *p);
	return crc;
#else
	for (; len > 0; p++, len--) {
		crc ^= *p;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return crc;
#endif
}

/**
 * The CRC32c an SCTP packet of @p len bytes (at least 12, the common
 * header at @p sctp) must carry: over the whole packet with the checksum
 * field taken as zero.
 */
static inline uint32_t
fc_sctp_crc(const uint8_t *sctp, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t crc = fc_crc32c_update(0xffffffffu, sctp, 8);

	crc = fc_crc32c_update(crc, zero, 4);
	return ~fc_crc32c_update(crc, sctp + 12, len - 12);
}

/**
 * Does the SCTP packet of @p len bytes (at least 12) at @p sctp carry the
 * right CRC32c? The field holds it least significant byte first.
 */
static inline bool
fc_sctp_crc_ok(const uint8_t *sctp, uint32_t len)
{
	uint32_t stored = (uint32_t)sctp[8] | (uint32_t)sctp[9] << 8 |
			  (uint32_t)sctp[10] << 16 | (uint32_t)sctp[11] << 24;

	return stored == fc_sctp_crc(sctp, len);
}

#endif
