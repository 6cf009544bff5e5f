/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/flowcache/fc_wire.h: the field loads and stores and
 * the Internet checksum the slow path's packet builders and readers use
 * (replies, neighbour frames, the rules' packet context), against the
 * tests' reference (common/csum_ref.c): random buffers of every length up
 * to a jumbo frame's, odd lengths included (the last byte is the high byte
 * of a word), random starting sums, and both families' pseudo-headers;
 * fc_crc32c.h's CRC32c (SCTP's) against a bit-by-bit reference, every
 * length to 300 bytes and random ones to 9,600, at every alignment.
 * Pure test: no EAL, so it also runs under ASan/UBSan.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "csum_ref.h"
#include "fc_crc32c.h"
#include "fc_wire.h"

/* Fixed-seed PRNG (splitmix64), so failures reproduce. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
fill(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)rng();
}

/* Loads and stores are big-endian at any alignment. */
static void
test_fields(void **state)
{
	uint8_t b[8] = { 0 };

	(void)state;
	fc_wr16(b + 1, 0xa1b2);
	assert_int_equal(b[1], 0xa1);
	assert_int_equal(b[2], 0xb2);
	assert_int_equal(fc_rd16(b + 1), 0xa1b2);
	fc_wr32(b + 3, 0x01020304);
	assert_memory_equal(b + 3, "\x01\x02\x03\x04", 4);
	assert_int_equal(fc_rd32(b + 3), 0x01020304);
}

/* The sum of every length, odd ones included, folds as the reference's. */
static void
test_sum_lengths(void **state)
{
	static uint8_t buf[9600];

	(void)state;
	fill(buf, sizeof(buf));
	for (uint32_t len = 0; len <= 300; len++) {
		uint32_t start = (uint32_t)rng() & 0xffff;

		assert_int_equal((uint16_t)~fc_csum_fold(fc_csum_add(start, buf, len)),
			csum_ref_fold(csum_ref_add(start, buf, len)));
	}
	for (unsigned int i = 0; i < 200; i++) {
		uint32_t len = (uint32_t)(rng() % sizeof(buf)), off = (uint32_t)(rng() % 7);

		if (off + len > sizeof(buf))
			len = (uint32_t)sizeof(buf) - off;
		assert_int_equal((uint16_t)~fc_csum_fold(fc_csum_add(0, buf + off, len)),
			csum_ref_fold(csum_ref_add(0, buf + off, len)));
	}
}

/* An odd last byte is a word's high byte: one byte 0x01 sums to 0x0100. */
static void
test_sum_odd_byte(void **state)
{
	const uint8_t one[3] = { 0x00, 0x00, 0x01 };

	(void)state;
	assert_int_equal(fc_csum_add(0, one + 2, 1), 0x0100);
	assert_int_equal(fc_csum_add(0, one, 3), 0x0100);
	assert_int_equal(fc_csum_fold(0x0100), 0xfeff);
}

/* A datagram checksummed with the library's sum verifies with the reference. */
static void
test_pseudo(void **state)
{
	static uint8_t pkt[40 + 1500];

	(void)state;
	for (unsigned int i = 0; i < 400; i++) {
		const int v4 = (int)(i & 1);
		const uint32_t hl = v4 ? 20 : 40;
		const uint32_t l4len = 8 + (uint32_t)(rng() % (sizeof(pkt) - 48));
		uint8_t *l4 = pkt + hl;
		uint16_t c;

		fill(pkt, hl + l4len);
		pkt[0] = v4 ? 0x45 : 0x60;
		/* UDP: the checksum at 6, zero while summing. */
		l4[6] = 0;
		l4[7] = 0;
		c = fc_csum_fold(fc_csum_add(fc_csum_pseudo(pkt, v4, 17, l4len), l4, l4len));
		fc_wr16(l4 + 6, c);
		assert_int_equal(csum_ref_fold(csum_ref_add(csum_ref_pseudo(pkt, 17, l4len), l4,
					 l4len)),
			0xffff);
	}
}

/* CRC32c bit by bit (RFC 9260 appendix A), the reference. */
static uint32_t
crc_ref(const uint8_t *p, size_t len, bool skip_field)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= skip_field && i >= 8 && i < 12 ? 0 : p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

static void
test_crc32c(void **state)
{
	static uint8_t buf[9600 + 8];
	const uint8_t *check = (const uint8_t *)"123456789";
	uint32_t c;

	(void)state;
	/* The check value of the CRC-32C catalogue entry. */
	assert_int_equal(~fc_crc32c_update(0xffffffffu, check, 9), 0xe3069283u);
	for (size_t len = 12; len <= 9600; len = len < 300 ? len + 1 : len + 1 + rng() % 700) {
		size_t at = rng() % 8;
		uint8_t *p = buf + at;

		fill(p, len);
		c = fc_sctp_crc(p, (uint32_t)len);
		assert_int_equal(c, crc_ref(p, len, true));
		assert_int_equal(~fc_crc32c_update(0xffffffffu, p, (uint32_t)len),
			crc_ref(p, len, false));
		/* Stored least significant byte first: right; one bit off: wrong. */
		p[8] = (uint8_t)c;
		p[9] = (uint8_t)(c >> 8);
		p[10] = (uint8_t)(c >> 16);
		p[11] = (uint8_t)(c >> 24);
		assert_true(fc_sctp_crc_ok(p, (uint32_t)len));
		p[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
		assert_false(fc_sctp_crc_ok(p, (uint32_t)len));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_sum_lengths),
		cmocka_unit_test(test_sum_odd_byte),
		cmocka_unit_test(test_pseudo),
		cmocka_unit_test(test_crc32c),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
