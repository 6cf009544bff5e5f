/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the payload matches' evaluators (-m string, -m u32, -m bpf):
 * the reference search and tests the slow path runs, and the decoded
 * forms an evaluator that runs per packet starts from. Included by
 * rule_eval.h; not on its own.
 */
#ifndef GUFC_RULE_PAYLOAD_H
#define GUFC_RULE_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "rules.h"

/**
 * Does a string match's pattern occur in a packet, as xt_string finds it:
 * wholly between offsets @c from and @c to of the IP header (a match may
 * end at @c to, not past it) and within the datagram; with @p icase
 * letters compare as the kernel's toupper() folds them (ASCII and
 * Latin-1). The reference search: plain, obviously right.
 * @param st     the match's options
 * @param icase  --icase
 * @param l3     the IP header's first byte (may be NULL when @p len is 0)
 * @param len    bytes of the datagram at @p l3
 * @return true if found.
 * Context: any.
 */
bool rule_str_find(const struct rule_x_string *st, bool icase, const uint8_t *l3, uint32_t len);

/**
 * Do a u32 match's tests pass on a packet, as xt_u32 decides: each test
 * reads the big-endian 32-bit word at its first number's offset of the IP
 * header, applies its operators ("@" moves the base by the value so far
 * and reads at the next number's offset from it; shifts are of 31 at
 * most), and passes when the value lies in one of its ranges; a
 * read past the datagram fails the match. The reference evaluator: reads
 * the encoded tests as it goes (the fast path's is engine_strpred.h's).
 * @param u    the tests (without "!")
 * @param l3   the IP header's first byte (may be NULL when @p len is 0)
 * @param len  bytes of the datagram at @p l3
 * @return true if every test passes.
 * Context: any.
 */
bool rule_u32_match(const struct rule_x_u32 *u, const uint8_t *l3, uint32_t len);

/** u32 tests decoded (rule_u32_decode()), for an evaluator that runs per packet. */
struct rule_u32_prog {
	uint8_t ntests;
	struct rule_u32_test {
		uint8_t nnums, nvals;
		uint8_t op[RULE_U32_MAX]; /**< RULE_U32_* before number i (i >= 1) */
		uint32_t num[RULE_U32_MAX];
		uint32_t lo[RULE_U32_MAX], hi[RULE_U32_MAX];
	} t[RULE_U32_MAX];
};

/**
 * Decode u32 tests.
 * @param u  the encoded tests
 * @param p  receives them (every byte written: compared with memcmp)
 * @return 0, or -EINVAL if @p u is not well formed.
 * Context: any.
 */
int rule_u32_decode(const struct rule_x_u32 *u, struct rule_u32_prog *p);

/** One classic BPF instruction. */
struct rule_bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

/** A bpf match's program decoded (rule_bpf_decode()), checked as Linux checks it. */
struct rule_bpf_prog {
	uint8_t n; /**< instructions, 1..RULE_BPF_MAX */
	struct rule_bpf_insn insn[RULE_BPF_MAX];
};

/**
 * Decode a bpf match's program (and check it again).
 * @param b  the encoded program
 * @param p  receives it (every byte written: compared with memcmp)
 * @return 0, or -EINVAL if @p b is not a well-formed, valid program.
 * Context: any.
 */
int rule_bpf_decode(const struct rule_x_bpf *b, struct rule_bpf_prog *p);

/**
 * Run a checked classic BPF program on a packet from its IP header, as
 * xt_bpf's bytecode mode does: A and X start at 0, loads are big-endian
 * and end the program with 0 past the datagram, as does a division by a
 * zero X; shifts by X count modulo 32.
 * @param p    the program (rule_bpf_decode())
 * @param l3   the IP header's first byte (may be NULL when @p len is 0)
 * @param len  bytes of the datagram at @p l3 (BPF_LEN's value)
 * @return what the program returns (the match holds when not 0).
 * Context: any lcore (lock-free; no allocation).
 */
uint32_t rule_bpf_run(const struct rule_bpf_prog *p, const uint8_t *l3, uint32_t len);

/** Does a bpf match's program return non-zero on a packet? (the reference: decodes, runs) */
bool rule_bpf_match(const struct rule_x_bpf *b, const uint8_t *l3, uint32_t len);

/** The kernel's toupper() (lib/ctype.c's Latin-1 table): @p c folded for --icase. */
static inline uint8_t
rule_str_fold(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7))
		return (uint8_t)(c - 0x20);
	return c;
}

#endif /* GUFC_RULE_PAYLOAD_H */
