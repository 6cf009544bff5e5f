/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/lex: the tokenizer under the four syntaxes gufc's
 * languages use (words, columns, quotes, escapes, comments, negations, and
 * every fault with the byte it is reported at), splitting in place, numbers,
 * addresses, prefixes under each host-bits policy, port ranges and lists in
 * the native and iptables forms, the line reader, file reading and the
 * error text. Table-driven; negative cases name the exact position.
 * Pure test: no EAL, so it also runs under ASan/UBSan.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lex.h"

/* The syntaxes of the languages (as the callers define them). */
static const struct lex_syntax sx_native = {
	.quote = LEX_QUOTE_WORD, .escape = LEX_ESC_QUOTE, .comment = LEX_COMMENT_ANY,
	.negation = true, .refuse_ctrl = true, .max_words = 8,
};
static const struct lex_syntax sx_config = {
	.blanks = " \t\r\n", .quote = LEX_QUOTE_WORD, .comment = LEX_COMMENT_ANY, .max_words = 4,
	.max_len = 8,
};
static const struct lex_syntax sx_shell = {
	.blanks = " \t\r\n", .quote = LEX_QUOTE_JOIN, .comment = LEX_COMMENT_WORD, .max_words = 4,
};
static const struct lex_syntax sx_ipt = {
	.quote = LEX_QUOTE_SPLIT, .escape = LEX_ESC_ANY, .refuse_ctrl = true, .max_words = 4,
};

#define MAXW 8

/* The words as "[!]TEXT@COL" joined by spaces ('q' after the column if quoted). */
static void
words_text(const struct lex_tok *t, unsigned int n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s@%u%s", i ? " " : "",
			t[i].neg ? "!" : "", t[i].s, t[i].col, t[i].quoted ? "q" : "");
}

struct split_case {
	const struct lex_syntax *sx;
	const char *line;
	const char *words;  /**< expected words, or NULL for a fault */
	unsigned int code;  /**< fault */
	unsigned int col;   /**< fault column (at + 1) */
	const char *token;  /**< fault token */
};

static const struct split_case split_cases[] = {
	/* native: blanks, '#', quotes with \" \\ escapes, '!' */
	{&sx_native, "accept proto tcp", "accept@1 proto@8 tcp@14", 0, 0, NULL},
	{&sx_native, "  a\tb  ", "a@3 b@5", 0, 0, NULL},
	{&sx_native, "", "", 0, 0, NULL},
	{&sx_native, "# all comment", "", 0, 0, NULL},
	{&sx_native, "a b#c d", "a@1 b@3", 0, 0, NULL},
	{&sx_native, "src !10.0.0.0/8", "src@1 !10.0.0.0/8@6", 0, 0, NULL},
	{&sx_native, "src ! 10.0.0.0/8", "src@1 !10.0.0.0/8@7", 0, 0, NULL},
	{&sx_native, "comment \"a b\" x", "comment@1 a b@9q x@15", 0, 0, NULL},
	{&sx_native, "c \"q\\\"x\\\\y\"#z", "c@1 q\"x\\y@3q", 0, 0, NULL},
	{&sx_native, "c !\"neg\"", "c@1 !neg@4q", 0, 0, NULL},
	{&sx_native, "a\"b\" c", "a\"b\"@1 c@6", 0, 0, NULL},
	{&sx_native, "accept\x01", NULL, LEX_E_CTRL, 7, ""},
	{&sx_native, "a b\nc", NULL, LEX_E_CTRL, 4, ""},
	{&sx_native, "src !!10.0.0.0/8 x", NULL, LEX_E_DOUBLE_NEG, 5, "!!10.0.0.0/8"},
	{&sx_native, "src ! !x", NULL, LEX_E_DOUBLE_NEG, 7, "!x"},
	{&sx_native, "src !", NULL, LEX_E_NEG_ALONE, 5, "!"},
	{&sx_native, "src ! # c", NULL, LEX_E_NEG_ALONE, 5, "!"},
	{&sx_native, "comment \"abc", NULL, LEX_E_UNTERMINATED, 9, "abc"},
	{&sx_native, "comment \"a\\qb\"", NULL, LEX_E_BAD_ESCAPE, 11, "\\q"},
	{&sx_native, "comment \"ab\\", NULL, LEX_E_BAD_ESCAPE, 12, "\\"},
	{&sx_native, "comment \"a\"b c", NULL, LEX_E_JUNK, 12, "b"},
	{&sx_native, "1 2 3 4 5 6 7 8 9#x", NULL, LEX_E_TOO_MANY, 17, "9"},
	{&sx_native, "1 2 3 4 5 6 7 8 !9", NULL, LEX_E_TOO_MANY, 18, "9"},
	/* config: no escapes, no negation, a length limit */
	{&sx_config, "set flows 10 # c", "set@1 flows@5 10@11", 0, 0, NULL},
	{&sx_config, "rules \"a b\\c\"\r", "rules@1 a b\\c@7q", 0, 0, NULL},
	{&sx_config, "!x", "!x@1", 0, 0, NULL},
	{&sx_config, "rules \"a b", NULL, LEX_E_UNTERMINATED, 7, "a b"},
	{&sx_config, "a b c d e", NULL, LEX_E_TOO_MANY, 9, "e"},
	{&sx_config, "a 123456789 b", NULL, LEX_E_TOO_LONG, 3, "123456789"},
	{&sx_config, "a \"123456789\"", NULL, LEX_E_TOO_LONG, 3, "\"123456789\""},
	{&sx_config, "a 12345678", "a@1 12345678@3", 0, 0, NULL},
	/* shell: quoted parts join, '#' only at a word's start */
	{&sx_shell, "echo a\"b c\"d", "echo@1 ab cd@6q", 0, 0, NULL},
	{&sx_shell, "echo a#b #c", "echo@1 a#b@6", 0, 0, NULL},
	{&sx_shell, "echo \"#x\" y", "echo@1 #x@6q y@11", 0, 0, NULL},
	{&sx_shell, "echo \"\"", "echo@1 @6q", 0, 0, NULL},
	{&sx_shell, "echo a\"bc", NULL, LEX_E_UNTERMINATED, 7, "bc"},
	{&sx_shell, "a b c d e f", NULL, LEX_E_TOO_MANY, 9, "e"},
	/* ipt: quotes anywhere, any escape, a closing quote ends the word, no comments */
	{&sx_ipt, "--comment \"a \\\"b\\\\\"", "--comment@1 a \"b\\@11q", 0, 0, NULL},
	{&sx_ipt, "x\"a b\"y", "xa b@1q y@7", 0, 0, NULL},
	{&sx_ipt, "a #b", "a@1 #b@3", 0, 0, NULL},
	{&sx_ipt, "a \"open", NULL, LEX_E_UNTERMINATED, 3, "open"},
	{&sx_ipt, "a \"ends\\", NULL, LEX_E_UNTERMINATED, 3, "ends\\"},
	{&sx_ipt, "a b c d e", NULL, LEX_E_TOO_MANY, 9, "e"},
	{&sx_ipt, "a\tb\x7f\x1f", NULL, LEX_E_CTRL, 5, ""},
};

static void
test_split(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		const struct split_case *c = &split_cases[i];
		struct lex_tok t[MAXW];
		struct lex_fault f;
		char out[128], got[256];
		unsigned int n = 99;
		int rc;

		memset(&f, 0, sizeof(f));
		rc = lex_split(c->sx, c->line, out, t, &n, &f);
		if (c->words != NULL) {
			if (rc != 0)
				fail_msg("'%s': %s at %zu", c->line, lex_code_text(f.code), f.at);
			words_text(t, n, got, sizeof(got));
			if (strcmp(got, c->words) != 0)
				fail_msg("'%s': got '%s', want '%s'", c->line, got, c->words);
			continue;
		}
		snprintf(got, sizeof(got), "%.*s", (int)f.len, c->line + f.tok);
		if (rc != -EINVAL || f.code != c->code || f.at + 1 != c->col ||
			strcmp(got, c->token) != 0)
			fail_msg("'%s': rc %d, %s at col %zu '%s'; want %s at col %u '%s'", c->line,
				rc, lex_code_text(f.code), f.at + 1, got, lex_code_text(c->code),
				c->col, c->token);
	}
}

/* Splitting in place gives the same words (and faults) as into a separate buffer. */
static void
test_split_in_place(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		const struct split_case *c = &split_cases[i];
		struct lex_tok t1[MAXW], t2[MAXW];
		struct lex_fault f1, f2;
		char out[128], line[128], w1[256], w2[256];
		unsigned int n1, n2;
		int rc1, rc2;

		snprintf(line, sizeof(line), "%s", c->line);
		rc1 = lex_split(c->sx, c->line, out, t1, &n1, &f1);
		rc2 = lex_split(c->sx, line, line, t2, &n2, &f2);
		assert_int_equal(rc1, rc2);
		if (rc1 != 0) {
			assert_int_equal(f1.code, f2.code);
			assert_int_equal(f1.at, f2.at);
			continue;
		}
		words_text(t1, n1, w1, sizeof(w1));
		words_text(t2, n2, w2, sizeof(w2));
		assert_string_equal(w1, w2);
	}
}

struct num_case {
	const char *s;
	uint32_t max;
	unsigned int flags;
	int code; /**< 0: ok */
	uint32_t v;
};

static const struct num_case num_cases[] = {
	{"0", 10, LEX_NUM_DEC, 0, 0},
	{"4294967295", UINT32_MAX, LEX_NUM_DEC, 0, UINT32_MAX},
	{"4294967296", UINT32_MAX, LEX_NUM_DEC, LEX_E_RANGE, 0},
	{"99999999999999999999999", UINT32_MAX, LEX_NUM_DEC, LEX_E_RANGE, 0},
	{"99999999999999999999x", UINT32_MAX, LEX_NUM_DEC, LEX_E_NOT_NUMBER, 0},
	{"011", 100, LEX_NUM_DEC, 0, 11},
	{"256", 255, LEX_NUM_DEC, LEX_E_RANGE, 0},
	{"", 10, LEX_NUM_DEC, LEX_E_NOT_NUMBER, 0},
	{"-1", 10, LEX_NUM_C, LEX_E_NOT_NUMBER, 0},
	{"+1", 10, LEX_NUM_C, LEX_E_NOT_NUMBER, 0},
	{" 1", 10, LEX_NUM_C, LEX_E_NOT_NUMBER, 0},
	{"1a", 100, LEX_NUM_DEC, LEX_E_NOT_NUMBER, 0},
	{"0x1F", 100, LEX_NUM_C, 0, 31},
	{"0x", 100, LEX_NUM_C, LEX_E_NOT_NUMBER, 0},
	{"010", 100, LEX_NUM_C, 0, 8},
	{"08", 100, LEX_NUM_C, LEX_E_NOT_NUMBER, 0},
	{"0x1F", 100, LEX_NUM_DEC, LEX_E_NOT_NUMBER, 0},
	{"08", 100, LEX_NUM_NO_LEAD_ZERO, LEX_E_NOT_NUMBER, 0},
	{"0", 100, LEX_NUM_NO_LEAD_ZERO, 0, 0},
	{"80", 100, LEX_NUM_NO_LEAD_ZERO, 0, 80},
};

static void
test_numbers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
		const struct num_case *c = &num_cases[i];
		struct lex_fault f = { 0 };
		uint32_t v = 12345;
		int rc = lex_u32(c->s, strlen(c->s), c->max, c->flags, &v, &f);

		if (c->code == 0) {
			if (rc != 0 || v != c->v)
				fail_msg("'%s': rc %d v %u, want %u", c->s, rc, v, c->v);
			continue;
		}
		if (rc != -EINVAL || f.code != c->code || f.at != 0 || v != 12345)
			fail_msg("'%s': rc %d %s, want %s", c->s, rc, lex_code_text(f.code),
				lex_code_text((unsigned int)c->code));
	}
	/* Only [s, s+len) is read. */
	{
		uint32_t v;

		assert_int_equal(lex_u32("12345", 2, 100, LEX_NUM_DEC, &v, NULL), 0);
		assert_int_equal(v, 12);
	}
}

struct pfx_case {
	const char *s;
	unsigned int flags;
	int code;        /**< 0: ok */
	const char *out; /**< lex_prefix_format() of the result */
};

static const struct pfx_case pfx_cases[] = {
	{"10.0.0.0/8", LEX_PFX_HOST_REFUSE, 0, "10.0.0.0/8"},
	{"10.1.2.3", LEX_PFX_HOST_REFUSE, 0, "10.1.2.3/32"},
	{"10.1.2.3/8", LEX_PFX_HOST_REFUSE, LEX_E_HOST_BITS, NULL},
	{"10.1.2.3/8", LEX_PFX_HOST_CLEAR, 0, "10.0.0.0/8"},
	{"10.1.2.3/8", LEX_PFX_HOST_KEEP, 0, "10.1.2.3/8"},
	{"0.0.0.0/0", LEX_PFX_HOST_REFUSE, 0, "0.0.0.0/0"},
	{"2001:db8::/32", LEX_PFX_HOST_REFUSE, 0, "2001:db8::/32"},
	{"2001:db8::1", LEX_PFX_HOST_REFUSE, 0, "2001:db8::1/128"},
	{"2001:db8::1/64", LEX_PFX_HOST_CLEAR, 0, "2001:db8::/64"},
	{"::ffff:1.2.3.4/128", LEX_PFX_HOST_REFUSE, 0, "::ffff:1.2.3.4/128"},
	{"10.0.0.300", LEX_PFX_HOST_CLEAR, LEX_E_BAD_ADDR, NULL},
	{"", LEX_PFX_HOST_CLEAR, LEX_E_BAD_ADDR, NULL},
	{"/8", LEX_PFX_HOST_CLEAR, LEX_E_BAD_ADDR, NULL},
	{"host.example", LEX_PFX_HOST_CLEAR, LEX_E_BAD_ADDR, NULL},
	{"10.0.0.0/33", LEX_PFX_HOST_CLEAR, LEX_E_BAD_LEN, NULL},
	{"::/129", LEX_PFX_HOST_CLEAR, LEX_E_BAD_LEN, NULL},
	{"10.0.0.0/", LEX_PFX_HOST_CLEAR, LEX_E_BAD_LEN, NULL},
	{"10.0.0.0/8/8", LEX_PFX_HOST_CLEAR, LEX_E_BAD_LEN, NULL},
	{"10.0.0.0/08", LEX_PFX_HOST_CLEAR, 0, "10.0.0.0/8"},
	{"10.0.0.0/08", LEX_PFX_HOST_CLEAR | LEX_PFX_NO_LEAD_ZERO, LEX_E_BAD_LEN, NULL},
	{"10.0.0.0/255.0.0.0", LEX_PFX_HOST_CLEAR, LEX_E_BAD_LEN, NULL},
	{"10.9.0.0/255.255.0.0", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, 0, "10.9.0.0/16"},
	{"10.0.0.0/255.0.255.0", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, LEX_E_MASK_HOLES, NULL},
	{"10.0.0.0/255.0.0.300", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, LEX_E_BAD_MASK, NULL},
	{"2001:db8::/ffff:ffff::", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, 0, "2001:db8::/32"},
	{"2001:db8::/ff00:ff00::", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, LEX_E_MASK_HOLES, NULL},
	{"2001:db8::/24", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK, 0, "2001:d00::/24"},
	/* IPv4 as iptables reads it: short forms, octal and hex parts */
	{"10.1", LEX_PFX_HOST_CLEAR, LEX_E_BAD_ADDR, NULL},
	{"0/0", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "0.0.0.0/0"},
	{"10/8", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "10.0.0.0/8"},
	{"172.16.0/24", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "172.16.0.0/24"},
	{"10.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "10.1.0.0/32"},
	{"10", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "10.0.0.0/32"},
	{"10.1.2.3", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "10.1.2.3/32"},
	{"010.1.1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "8.1.1.1/32"},
	{"0x0a.0X1.00.0", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "10.1.0.0/32"},
	{"10.1/255.255.0.0", LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK | LEX_PFX_IPT_V4, 0,
		"10.1.0.0/16"},
	{"2001:db8::/32", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, 0, "2001:db8::/32"},
	{"10..1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"10.1.1.1.", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"10.1.1.1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{".10/8", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"256/8", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"08.1.1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"0x.1.1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"0x100.1.1.1", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"+1.2.3.4", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"/8", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
	{"host.example", LEX_PFX_HOST_CLEAR | LEX_PFX_IPT_V4, LEX_E_BAD_ADDR, NULL},
};

static void
test_prefixes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pfx_cases) / sizeof(pfx_cases[0]); i++) {
		const struct pfx_case *c = &pfx_cases[i];
		struct lex_fault f = { 0 };
		struct lex_prefix p;
		char buf[LEX_PREFIX_STRLEN];
		int rc = lex_prefix(c->s, strlen(c->s), c->flags, &p, &f);

		if (c->code == 0) {
			if (rc != 0)
				fail_msg("'%s': %s", c->s, lex_code_text(f.code));
			assert_true(lex_prefix_format(&p, buf, sizeof(buf)) > 0);
			if (strcmp(buf, c->out) != 0)
				fail_msg("'%s': got %s, want %s", c->s, buf, c->out);
			continue;
		}
		if (rc != -EINVAL || f.code != c->code || f.at != 0 || f.len != strlen(c->s))
			fail_msg("'%s': rc %d %s, want %s over the whole text", c->s, rc,
				lex_code_text(f.code), lex_code_text((unsigned int)c->code));
	}
}

static void
test_addresses(void **state)
{
	uint8_t fam, a[16], want[16] = { 192, 0, 2, 1 };
	char buf[LEX_ADDR_STRLEN];
	struct lex_fault f;

	(void)state;
	assert_int_equal(lex_addr("192.0.2.1", 9, &fam, a, NULL), 0);
	assert_int_equal(fam, LEX_AF_INET4);
	assert_memory_equal(a, want, 16);
	assert_int_equal(lex_addr("192.0.2.1:80", 9, &fam, a, NULL), 0);
	assert_int_equal(lex_addr("2001:db8::1", 11, &fam, a, NULL), 0);
	assert_int_equal(fam, LEX_AF_INET6);
	assert_int_equal(lex_addr_format(fam, a, buf, sizeof(buf)), 11);
	assert_string_equal(buf, "2001:db8::1");
	assert_int_equal(lex_addr("2001:db8::1x", 12, &fam, a, &f), -EINVAL);
	assert_int_equal(f.code, LEX_E_BAD_ADDR);
	assert_int_equal(fam, LEX_AF_INET6);
	assert_int_equal(lex_addr("1.2.3", 5, &fam, a, &f), -EINVAL);
	assert_int_equal(fam, LEX_AF_INET4);
	assert_int_equal(lex_addr("", 0, &fam, a, &f), -EINVAL);
	assert_int_equal(lex_addr_format(5, a, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(lex_addr("2001:db8::1", 11, &fam, a, NULL), 0);
	assert_int_equal(lex_addr_format(LEX_AF_INET6, a, buf, 4), -EINVAL);
	assert_int_equal(lex_af_len(LEX_AF_INET4), 4);
	assert_int_equal(lex_af_len(LEX_AF_INET6), 16);
	assert_int_equal(lex_af_len(0), 0);
}

struct port_case {
	const struct lex_port_syntax *sx;
	const char *s;
	const char *want;  /**< "lo-hi,lo-hi", or NULL for a fault */
	unsigned int code;
	unsigned int at;   /**< fault offset */
	const char *token; /**< fault token */
};

static const struct port_case port_cases[] = {
	{&lex_ports_native, "22", "22-22", 0, 0, NULL},
	{&lex_ports_native, "22,80,8000-8080", "22-22,80-80,8000-8080", 0, 0, NULL},
	{&lex_ports_native, "0-65535", "0-65535", 0, 0, NULL},
	{&lex_ports_native, "5-5", "5-5", 0, 0, NULL},
	{&lex_ports_native, "65536", NULL, LEX_E_BAD_PORT, 0, "65536"},
	{&lex_ports_native, "22,90-80", NULL, LEX_E_BAD_RANGE, 3, "90-80"},
	{&lex_ports_native, "22,,80", NULL, LEX_E_EMPTY_ITEM, 0, "22,,80"},
	{&lex_ports_native, "22,", NULL, LEX_E_EMPTY_ITEM, 0, "22,"},
	{&lex_ports_native, "", NULL, LEX_E_EMPTY_ITEM, 0, ""},
	{&lex_ports_native, "1-", NULL, LEX_E_BAD_PORT, 0, "1-"},
	{&lex_ports_native, "1-2-3", NULL, LEX_E_BAD_PORT, 0, "1-2-3"},
	{&lex_ports_native, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", NULL,
		LEX_E_TOO_MANY_PORTS, 39, "17"},
	{&lex_ports_nat, "1024-65535", "1024-65535", 0, 0, NULL},
	{&lex_ports_nat, "0-10", NULL, LEX_E_BAD_PORT, 0, "0-10"},
	{&lex_ports_nat, "9-8", NULL, LEX_E_BAD_RANGE, 0, "9-8"},
	{&lex_ports_nat, "1,2", NULL, LEX_E_BAD_PORT, 0, "1,2"},
	{&lex_ports_ipt, "22", "22-22", 0, 0, NULL},
	{&lex_ports_ipt, "1024:", "1024-65535", 0, 0, NULL},
	{&lex_ports_ipt, ":1023", "0-1023", 0, 0, NULL},
	{&lex_ports_ipt, ":", "0-65535", 0, 0, NULL},
	{&lex_ports_ipt, "7:7", "7-7", 0, 0, NULL},
	{&lex_ports_ipt, "90:80", NULL, LEX_E_BAD_RANGE, 0, "90:80"},
	{&lex_ports_ipt, "022", NULL, LEX_E_BAD_PORT, 0, "022"},
	{&lex_ports_ipt, "ssh", "22-22", 0, 0, NULL},
	{&lex_ports_ipt, "ftp-data:ftp", "20-21", 0, 0, NULL},
	{&lex_ports_ipt, "SSH", NULL, LEX_E_BAD_PORT, 0, "SSH"},
	{&lex_ports_ipt, "no-such-service", NULL, LEX_E_BAD_PORT, 0, "no-such-service"},
	{&lex_ports_native, "ssh", NULL, LEX_E_BAD_PORT, 0, "ssh"},
	{&lex_ports_ipt_multi, "domain,http:https,5432", "53-53,80-443,5432-5432", 0, 0, NULL},
	{&lex_ports_ipt, "22-23", NULL, LEX_E_BAD_PORT, 0, "22-23"},
	{&lex_ports_ipt_multi, "22,80:90", "22-22,80-90", 0, 0, NULL},
	{&lex_ports_ipt_multi, "80:80", NULL, LEX_E_BAD_RANGE, 0, "80:80"},
	{&lex_ports_ipt_multi, "80:", NULL, LEX_E_BAD_PORT, 0, "80:"},
	{&lex_ports_ipt_multi, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "1-1,2-2,3-3,4-4,5-5,6-6,7-7,"
		"8-8,9-9,10-10,11-11,12-12,13-13,14-14,15-15", 0, 0, NULL},
	{&lex_ports_ipt_multi, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", NULL,
		LEX_E_TOO_MANY_PORTS, 36, "16"},
	{&lex_ports_ipt_multi, "1:2,3:4,5:6,7:8,9:10,11:12,13:14,15", "1-2,3-4,5-6,7-8,9-10,"
		"11-12,13-14,15-15", 0, 0, NULL},
	{&lex_ports_ipt_multi, "1:2,3:4,5:6,7:8,9:10,11:12,13:14,15:16", NULL,
		LEX_E_TOO_MANY_PORTS, 33, "15:16"},
	{&lex_ports_ipt_nat, "1000-2000", "1000-2000", 0, 0, NULL},
	{&lex_ports_ipt_nat, "01000", NULL, LEX_E_BAD_PORT, 0, "01000"},
};

static void
test_ports(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(port_cases) / sizeof(port_cases[0]); i++) {
		const struct port_case *c = &port_cases[i];
		struct lex_port_range r[16];
		struct lex_fault f = { 0 };
		char got[512];
		unsigned int n;
		size_t o = 0;
		int rc = lex_ports(c->sx, c->s, strlen(c->s), r, &n, &f);

		if (c->want != NULL) {
			if (rc != 0)
				fail_msg("'%s': %s at %zu", c->s, lex_code_text(f.code), f.at);
			got[0] = '\0';
			for (unsigned int k = 0; k < n; k++)
				o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%u-%u", k ? "," : "",
					r[k].lo, r[k].hi);
			if (strcmp(got, c->want) != 0)
				fail_msg("'%s': got %s, want %s", c->s, got, c->want);
			continue;
		}
		snprintf(got, sizeof(got), "%.*s", (int)f.len, c->s + f.tok);
		if (rc != -EINVAL || f.code != c->code || f.at != c->at || strcmp(got, c->token) != 0)
			fail_msg("'%s': %s at %zu '%s'; want %s at %u '%s'", c->s,
				lex_code_text(f.code), f.at, got, lex_code_text(c->code), c->at,
				c->token);
	}
}

static void
test_reader(void **state)
{
	static const struct {
		const char *text;
		const char *lines; /**< lines joined by '|' */
	} cases[] = {
		{"", ""},
		{"a", "a"},
		{"a\n", "a"},
		{"a\r\nb\r\n", "a|b"},
		{"a\n\nb", "a||b"},
		{"a\n\n", "a|"},
		{"\n", ""},
		{"x\r\r\n", "x\r"},
	};
	struct lex_reader r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[64] = "";
		size_t o = 0, len;
		unsigned int n = 0;
		char *line;
		int rc;

		lex_reader_init(&r, cases[i].text);
		while ((rc = lex_reader_next(&r, &line, &len)) == 1) {
			assert_int_equal(len, strlen(line));
			assert_int_equal(r.line, ++n);
			line[0] = line[0]; /* writable */
			o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s", n > 1 ? "|" : "",
				line);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(lex_reader_next(&r, &line, NULL), 0);
		lex_reader_fini(&r);
		if (strcmp(got, cases[i].lines) != 0)
			fail_msg("%zu: got '%s', want '%s'", i, got, cases[i].lines);
	}
	lex_reader_fini(NULL);
}

static void
test_file_read(void **state)
{
	char path[] = "/tmp/test_lex.XXXXXX";
	struct lex_error err;
	char *text;
	FILE *fp;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite("one\ntwo\nab\0cd\n", 1, 14, fp), 14);
	fclose(fp);
	text = lex_file_read(path, &err);
	assert_null(text);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.col, 3);
	assert_string_equal(err.msg, "NUL byte in file");

	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("hello\n", fp);
	fclose(fp);
	text = lex_file_read(path, &err);
	assert_non_null(text);
	assert_string_equal(text, "hello\n");
	free(text);
	unlink(path);

	text = lex_file_read(path, &err);
	assert_null(text);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg, strerror(ENOENT));
	assert_null(lex_file_read(NULL, NULL));
	assert_int_equal(errno, EINVAL);
}

static void
test_errors(void **state)
{
	struct lex_error e;
	struct lex_where w = { .file = "f.rules", .line = 3, .err = &e };
	struct lex_fault f = { .code = LEX_E_BAD_PORT, .at = 4, .tok = 4, .len = 2 };
	char buf[256], longtok[200];

	(void)state;
	assert_int_equal(lex_fail(&w, 7, "tokenX", 5, "bad thing"), -EINVAL);
	assert_int_equal(lex_error_format(&e, buf, sizeof(buf)), 31);
	assert_string_equal(buf, "f.rules:3:7: bad thing: 'token'");
	assert_int_equal(lex_fail_fault(&w, 10, "ab, xy", &f, NULL), -EINVAL);
	lex_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "f.rules:3:14: bad port: 'xy'");
	assert_int_equal(lex_fail_fault(&w, 10, "ab, xy", &f, "own words"), -EINVAL);
	assert_string_equal(e.msg, "own words");
	/* Parts that are empty or zero are left out. */
	w.file = NULL;
	w.line = 0;
	lex_fail(&w, 0, NULL, 0, "just this");
	lex_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "just this");
	w.line = 2;
	lex_fail(&w, 0, "", 0, "m");
	lex_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "2: m");
	/* Tokens are truncated to fit; formatting reports truncation. */
	memset(longtok, 'x', sizeof(longtok));
	lex_fail(&w, 1, longtok, sizeof(longtok), "long");
	assert_int_equal(strlen(e.token), LEX_ERR_TOKEN_MAX - 1);
	assert_int_equal(lex_error_format(&e, buf, 10), -ENOSPC);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(lex_error_format(NULL, buf, 10), -EINVAL);
	assert_int_equal(lex_error_format(&e, buf, 0), -EINVAL);
	/* No error to fill: still -EINVAL. */
	w.err = NULL;
	assert_int_equal(lex_fail(&w, 1, "x", 1, "m"), -EINVAL);
	assert_int_equal(lex_fail(NULL, 1, "x", 1, "m"), -EINVAL);
	/* Every code has its text. */
	for (unsigned int c = 0; c < LEX_E__COUNT; c++)
		assert_true(lex_code_text(c)[0] != '\0');
	assert_string_equal(lex_code_text(LEX_E__COUNT), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_in_place),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_file_read),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
