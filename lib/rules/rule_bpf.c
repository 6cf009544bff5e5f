/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the bpf match's classic BPF program (struct rule_x_bpf) — read
 * as iptables reads "--bytecode N,c jt jf k,..." (what nfbpf_compile
 * prints), checked as Linux checks a classic program before it runs it
 * (known opcodes, jumps forward and within the program, no division by a
 * constant 0, shifts by a constant under 32, scratch memory read only
 * where written on every path, a return at the end, at most 64
 * instructions as xt_bpf), kept encoded in the extension's bytes (or,
 * past them, out of line: rule_xblob.c), written
 * back as iptables-save writes it, and run (rule_bpf_run()) on the packet
 * from its IP header as xt_bpf's bytecode mode runs it: the match holds
 * when the program returns non-zero; a load past the datagram, or a
 * division by a zero X, ends the program with 0. Loads of ancillary data
 * or at negative offsets (SKF_AD_OFF, SKF_NET_OFF, SKF_LL_OFF) are refused:
 * gufc keeps no socket buffer metadata for them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_x_priv.h"

/* Classic BPF opcodes (the instruction set's published numbers). */
#define C_LD	 0x00
#define C_LDX	 0x01
#define C_ST	 0x02
#define C_STX	 0x03
#define C_ALU	 0x04
#define C_JMP	 0x05
#define C_RET	 0x06
#define C_MISC	 0x07
#define S_W	 0x00
#define S_H	 0x08
#define S_B	 0x10
#define M_IMM	 0x00
#define M_ABS	 0x20
#define M_IND	 0x40
#define M_MEM	 0x60
#define M_LEN	 0x80
#define M_MSH	 0xa0
#define O_ADD	 0x00
#define O_SUB	 0x10
#define O_MUL	 0x20
#define O_DIV	 0x30
#define O_OR	 0x40
#define O_AND	 0x50
#define O_LSH	 0x60
#define O_RSH	 0x70
#define O_NEG	 0x80
#define O_MOD	 0x90
#define O_XOR	 0xa0
#define J_JA	 0x00
#define J_JEQ	 0x10
#define J_JGT	 0x20
#define J_JGE	 0x30
#define J_JSET	 0x40
#define SRC_X	 0x08
#define R_A	 0x10
#define MISC_TXA 0x80
#define MEMWORDS 16
/* Loads at or past this offset are ancillary or negative (SKF_*). */
#define ANC_FIRST 0xffe00000u

static bool
code_known(uint16_t c)
{
	switch (c) {
	case C_ALU | O_ADD:
	case C_ALU | O_ADD | SRC_X:
	case C_ALU | O_SUB:
	case C_ALU | O_SUB | SRC_X:
	case C_ALU | O_MUL:
	case C_ALU | O_MUL | SRC_X:
	case C_ALU | O_DIV:
	case C_ALU | O_DIV | SRC_X:
	case C_ALU | O_MOD:
	case C_ALU | O_MOD | SRC_X:
	case C_ALU | O_AND:
	case C_ALU | O_AND | SRC_X:
	case C_ALU | O_OR:
	case C_ALU | O_OR | SRC_X:
	case C_ALU | O_XOR:
	case C_ALU | O_XOR | SRC_X:
	case C_ALU | O_LSH:
	case C_ALU | O_LSH | SRC_X:
	case C_ALU | O_RSH:
	case C_ALU | O_RSH | SRC_X:
	case C_ALU | O_NEG:
	case C_LD | S_W | M_ABS:
	case C_LD | S_H | M_ABS:
	case C_LD | S_B | M_ABS:
	case C_LD | S_W | M_IND:
	case C_LD | S_H | M_IND:
	case C_LD | S_B | M_IND:
	case C_LD | S_W | M_LEN:
	case C_LD | S_W | M_MEM:
	case C_LD | S_W | M_IMM:
	case C_LDX | S_W | M_LEN:
	case C_LDX | S_W | M_MEM:
	case C_LDX | S_W | M_IMM:
	case C_LDX | S_B | M_MSH:
	case C_ST:
	case C_STX:
	case C_MISC:
	case C_MISC | MISC_TXA:
	case C_RET:
	case C_RET | R_A:
	case C_JMP | J_JA:
	case C_JMP | J_JEQ:
	case C_JMP | J_JEQ | SRC_X:
	case C_JMP | J_JGT:
	case C_JMP | J_JGT | SRC_X:
	case C_JMP | J_JGE:
	case C_JMP | J_JGE | SRC_X:
	case C_JMP | J_JSET:
	case C_JMP | J_JSET | SRC_X:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------------------ */
/* Checking                                                                  */
/* ------------------------------------------------------------------------ */

/* @return NULL if Linux would run @p p, else why not. */
static const char *
prog_check(const struct rule_bpf_prog *p)
{
	uint16_t masks[RULE_BPF_MAX], valid = 0;
	unsigned int n = p->n;

	if (n == 0 || n > RULE_BPF_MAX)
		return "bpf: 1 to 64 instructions";
	for (unsigned int pc = 0; pc < n; pc++) {
		const struct rule_bpf_insn *f = &p->insn[pc];
		uint8_t cls = f->code & 0x07;

		if (!code_known(f->code))
			return "bpf: unknown instruction code";
		switch (f->code) {
		case C_ALU | O_DIV:
		case C_ALU | O_MOD:
			if (f->k == 0)
				return "bpf: division by a constant 0";
			break;
		case C_ALU | O_LSH:
		case C_ALU | O_RSH:
			if (f->k >= 32)
				return "bpf: shift by a constant of 32 or more";
			break;
		case C_LD | S_W | M_MEM:
		case C_LDX | S_W | M_MEM:
		case C_ST:
		case C_STX:
			if (f->k >= MEMWORDS)
				return "bpf: scratch memory has 16 words";
			break;
		case C_JMP | J_JA:
			if (f->k >= n - pc - 1)
				return "bpf: a jump past the end";
			break;
		default:
			if (cls == C_JMP && (pc + f->jt + 1 >= n || pc + f->jf + 1 >= n))
				return "bpf: a jump past the end";
			break;
		}
		if ((cls == C_LD || cls == C_LDX) &&
			((f->code & 0xe0) == M_ABS || (f->code & 0xe0) == M_IND ||
				(f->code & 0xe0) == M_MSH) &&
			f->k >= ANC_FIRST)
			return "bpf: ancillary or negative-offset loads (SKF_*) are not supported";
	}
	if ((p->insn[n - 1].code & 0x07) != C_RET)
		return "bpf: the program does not end with a return";
	/* Scratch memory read only where every path stored it. */
	for (unsigned int i = 0; i < n; i++)
		masks[i] = 0xffff;
	for (unsigned int pc = 0; pc < n; pc++) {
		const struct rule_bpf_insn *f = &p->insn[pc];

		valid &= masks[pc];
		switch (f->code) {
		case C_ST:
		case C_STX:
			valid |= (uint16_t)(1u << f->k);
			break;
		case C_LD | S_W | M_MEM:
		case C_LDX | S_W | M_MEM:
			if (!(valid & (1u << f->k)))
				return "bpf: scratch memory read before it is written";
			break;
		case C_JMP | J_JA:
			masks[pc + 1 + f->k] &= valid;
			valid = 0xffff;
			break;
		case C_RET:
		case C_RET | R_A:
			valid = 0xffff;
			break;
		default:
			if ((f->code & 0x07) == C_JMP) {
				masks[pc + 1 + f->jt] &= valid;
				masks[pc + 1 + f->jf] &= valid;
				valid = 0xffff;
			}
			break;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Encoding                                                                  */
/* ------------------------------------------------------------------------ */

/* An encoding being written (RULE_BPF_ENC_MAX holds every program). */
struct bpf_enc {
	uint8_t c[RULE_BPF_ENC_MAX];
	unsigned int len;
};

static void
put(struct bpf_enc *e, uint8_t v)
{
	if (e->len < sizeof(e->c))
		e->c[e->len++] = v;
}

static bool
get_varint(const uint8_t *c, unsigned int len, unsigned int *i, uint32_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift <= 28; shift += 7) {
		uint8_t b;

		if (*i >= len)
			return false;
		b = c[(*i)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if ((shift != 0 && b == 0) || x > UINT32_MAX)
				return false;
			*v = (uint32_t)x;
			return true;
		}
	}
	return false;
}

static int
decode_bytes(const uint8_t *c, unsigned int len, struct rule_bpf_prog *p)
{
	unsigned int i = 1;

	if (len == 0 || c[0] == 0 || c[0] > RULE_BPF_MAX)
		return -EINVAL;
	p->n = c[0];
	for (unsigned int pc = 0; pc < p->n; pc++) {
		struct rule_bpf_insn *f = &p->insn[pc];

		if (i + 3 > len)
			return -EINVAL;
		f->code = c[i];
		f->jt = c[i + 1];
		f->jf = c[i + 2];
		i += 3;
		if (!get_varint(c, len, &i, &f->k))
			return -EINVAL;
	}
	return i == len && prog_check(p) == NULL ? 0 : -EINVAL;
}

int
rule_bpf_decode(const struct rule_x_bpf *b, struct rule_bpf_prog *p)
{
	uint8_t c[RULE_BPF_ENC_MAX];
	int len;

	memset(p, 0, sizeof(*p));
	if (b->len != RULE_X_OUTLINE)
		return b->len > RULE_BPF_CODE_MAX ? -EINVAL : decode_bytes(b->code, b->len, p);
	/* Held out of line: only what does not fit. */
	len = rule_xblob_copy(b->code, c, sizeof(c));
	if (len <= RULE_BPF_CODE_MAX)
		return -EINVAL;
	return decode_bytes(c, (unsigned int)len, p);
}

/* ------------------------------------------------------------------------ */
/* Reading and writing                                                       */
/* ------------------------------------------------------------------------ */

/* An unsigned decimal (what sscanf's %u reads, blanks before it) at most @p max. */
static bool
bpf_number(const char **s, uint32_t max, uint32_t *out)
{
	const char *p = *s;
	unsigned long long v = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (unsigned long long)(*p++ - '0');
		if (v > max)
			return false;
	}
	*s = p;
	*out = (uint32_t)v;
	return true;
}

int
rule_bpf_parse(const char *s, struct rule_x_bpf *b, const char **msg)
{
	struct rule_bpf_prog p;
	struct bpf_enc e;
	const char *t = s;
	uint32_t n;
	unsigned int i = 0;

	memset(b, 0, sizeof(*b));
	e.len = 0;
	memset(&p, 0, sizeof(p));
	if (!bpf_number(&t, UINT16_MAX, &n) || *t != ',') {
		*msg = "bpf: error parsing program length";
		return -EINVAL;
	}
	if (n == 0) {
		*msg = "bpf: illegal zero length program";
		return -EINVAL;
	}
	if (n > RULE_BPF_MAX) {
		*msg = "bpf: number of instructions exceeds maximum (64)";
		return -EINVAL;
	}
	/* As iptables: each ',' not last starts an instruction; text after its 4 numbers is
	 * ignored. */
	while ((t = strchr(t, ',')) != NULL && *++t != '\0') {
		uint32_t code, jt, jf, k;
		const char *q = t;

		if (i >= n) {
			*msg = "bpf: real program length exceeds the encoded length parameter";
			return -EINVAL;
		}
		if (!bpf_number(&q, UINT16_MAX, &code) || !bpf_number(&q, UINT8_MAX, &jt) ||
			!bpf_number(&q, UINT8_MAX, &jf) || !bpf_number(&q, UINT32_MAX, &k)) {
			*msg = "bpf: error in an instruction (CODE JT JF K)";
			return -EINVAL;
		}
		p.insn[i].code = (uint16_t)code;
		p.insn[i].jt = (uint8_t)jt;
		p.insn[i].jf = (uint8_t)jf;
		p.insn[i].k = k;
		i++;
	}
	if (i != n) {
		*msg = "bpf: parsed program length is less than the encoded length parameter";
		return -EINVAL;
	}
	p.n = (uint8_t)n;
	*msg = prog_check(&p);
	if (*msg != NULL)
		return -EINVAL;
	/* Encode: the count, then code, jt, jf and k (varint) per instruction. */
	put(&e, p.n);
	for (i = 0; i < p.n; i++) {
		uint32_t k = p.insn[i].k;

		put(&e, (uint8_t)p.insn[i].code);
		put(&e, p.insn[i].jt);
		put(&e, p.insn[i].jf);
		do {
			put(&e, (uint8_t)((k & 0x7f) | (k > 0x7f ? 0x80 : 0)));
			k >>= 7;
		} while (k != 0);
	}
	if (e.len <= RULE_BPF_CODE_MAX) {
		memcpy(b->code, e.c, e.len);
		b->len = (uint8_t)e.len;
		return 0;
	}
	/* Past the extension's bytes: out of line, held by the set being read into. */
	if (rule_xblob_put(e.c, e.len, b->code, msg) < 0) {
		if (*msg == NULL)
			*msg = "bpf: a program past a rule's 135 bytes needs a rule set to hold it";
		memset(b, 0, sizeof(*b));
		return -EINVAL;
	}
	b->len = RULE_X_OUTLINE;
	return 0;
}

const char *
rule_bpf_check(const struct rule_x_bpf *b)
{
	struct rule_bpf_prog p;

	if (rule_bpf_decode(b, &p) < 0)
		return "bad bpf program";
	for (unsigned int i = b->len == RULE_X_OUTLINE ? RULE_X_REF_BYTES : b->len;
		i < RULE_BPF_CODE_MAX; i++)
		if (b->code[i] != 0)
			return "bad bpf program";
	return NULL;
}

void
rule_bpf_format(struct rule_buf *buf, const struct rule_x_bpf *b)
{
	struct rule_bpf_prog p;

	if (rule_bpf_decode(b, &p) < 0) {
		rule_buf_printf(buf, "\"\"");
		return;
	}
	rule_buf_printf(buf, "\"%u", p.n);
	for (unsigned int i = 0; i < p.n; i++)
		rule_buf_printf(buf, ",%u %u %u %u", p.insn[i].code, p.insn[i].jt, p.insn[i].jf,
			p.insn[i].k);
	rule_buf_printf(buf, "\"");
}

/* ------------------------------------------------------------------------ */
/* Running                                                                   */
/* ------------------------------------------------------------------------ */

/* @p size bytes big-endian at @p off; false past @p len. */
static bool
load(const uint8_t *l3, uint32_t len, uint64_t off, unsigned int size, uint32_t *v)
{
	if (l3 == NULL || off + size > len)
		return false;
	*v = 0;
	for (unsigned int i = 0; i < size; i++)
		*v = *v << 8 | l3[off + i];
	return true;
}

uint32_t
rule_bpf_run(const struct rule_bpf_prog *p, const uint8_t *l3, uint32_t len)
{
	uint32_t a = 0, x = 0, mem[MEMWORDS] = {0}, v;
	unsigned int pc = 0;

	while (pc < p->n) {
		const struct rule_bpf_insn *f = &p->insn[pc++];
		uint32_t src = (f->code & SRC_X) ? x : f->k;
		unsigned int size = (f->code & 0x18) == S_W ? 4 : (f->code & 0x18) == S_H ? 2 : 1;

		switch (f->code & 0x07) {
		case C_LD:
			switch (f->code & 0xe0) {
			case M_ABS:
			case M_IND:
				if (!load(l3, len,
					    (uint64_t)f->k + ((f->code & 0xe0) == M_IND ? x : 0),
					    size, &v))
					return 0;
				a = v;
				break;
			case M_LEN:
				a = len;
				break;
			case M_MEM:
				a = mem[f->k & (MEMWORDS - 1)];
				break;
			default:
				a = f->k;
				break;
			}
			break;
		case C_LDX:
			switch (f->code & 0xe0) {
			case M_MSH:
				if (!load(l3, len, f->k, 1, &v))
					return 0;
				x = (v & 0xf) << 2;
				break;
			case M_LEN:
				x = len;
				break;
			case M_MEM:
				x = mem[f->k & (MEMWORDS - 1)];
				break;
			default:
				x = f->k;
				break;
			}
			break;
		case C_ST:
			mem[f->k & (MEMWORDS - 1)] = a;
			break;
		case C_STX:
			mem[f->k & (MEMWORDS - 1)] = x;
			break;
		case C_ALU:
			switch (f->code & 0xf0) {
			case O_ADD:
				a += src;
				break;
			case O_SUB:
				a -= src;
				break;
			case O_MUL:
				a *= src;
				break;
			case O_DIV:
				if (src == 0)
					return 0;
				a /= src;
				break;
			case O_MOD:
				if (src == 0)
					return 0;
				a %= src;
				break;
			case O_OR:
				a |= src;
				break;
			case O_AND:
				a &= src;
				break;
			case O_XOR:
				a ^= src;
				break;
			case O_LSH:
				a <<= src & 31;
				break;
			case O_RSH:
				a >>= src & 31;
				break;
			default: /* NEG */
				a = 0u - a;
				break;
			}
			break;
		case C_JMP:
			switch (f->code & 0xf0) {
			case J_JA:
				pc += f->k;
				break;
			case J_JEQ:
				pc += a == src ? f->jt : f->jf;
				break;
			case J_JGT:
				pc += a > src ? f->jt : f->jf;
				break;
			case J_JGE:
				pc += a >= src ? f->jt : f->jf;
				break;
			default: /* JSET */
				pc += (a & src) != 0 ? f->jt : f->jf;
				break;
			}
			break;
		case C_RET:
			return (f->code & R_A) ? a : f->k;
		default: /* MISC */
			if (f->code & MISC_TXA)
				a = x;
			else
				x = a;
			break;
		}
	}
	return 0;
}

bool
rule_bpf_match(const struct rule_x_bpf *b, const uint8_t *l3, uint32_t len)
{
	struct rule_bpf_prog p;

	return rule_bpf_decode(b, &p) == 0 && rule_bpf_run(&p, l3, len) != 0;
}
