/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/lex — gufc's lexical toolkit: the one place that reads text. Every
 * text gufc takes from a person goes through it: the config file, shell
 * commands and --script, the native rule language, the iptables-save
 * import, flow keys ("show flow").
 *
 *  - errors: struct lex_error says where and why, printed as
 *    "FILE:LINE:COL: MSG: 'TOKEN'"; columns count bytes from 1 (a tab is
 *    one column). Value parsers report a struct lex_fault: a named reason
 *    (enum lex_code, one X-list) and the part of the value at fault, which
 *    the caller turns into an error at the value's column;
 *  - text: lex_file_read() reads a whole file (a NUL byte is an error with
 *    its position), struct lex_reader walks it line by line, counting lines;
 *  - words: lex_split() cuts a line into words by a struct lex_syntax (the
 *    blanks, the quoting, escapes, '#' comments, '!' negations, limits) —
 *    each language is one syntax value, not one more tokenizer;
 *  - values: unsigned numbers with range checks, IPv4/IPv6 addresses,
 *    prefixes (host bits refused, cleared or kept: a parameter), port
 *    ranges and lists in the native ("22,80,8000-8080") and iptables
 *    ("a:b", multiport) forms.
 *
 * Pure C on the C library alone (no EAL, no DPDK header): it is built in
 * every tree, runs under ASan/UBSan and is linked into the fuzz targets.
 * Nothing here keeps state between calls; every function may run on any
 * thread (Context: any). Allocation happens only in lex_file_read() and in
 * the line reader's buffer.
 */
#ifndef GUFC_LEX_H
#define GUFC_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Named reasons, X(NAME, "message"): one list makes enum lex_code
 * (LEX_E_NAME) and the messages of lex_code_text(). The messages are the
 * ones every language prints unless it words a reason its own way.
 */
#define LEX_CODES(X) \
	X(NONE, "no error") \
	X(CTRL, "control character") \
	X(NUL, "NUL byte in file") \
	X(TOO_MANY, "too many tokens") \
	X(TOO_LONG, "token too long") \
	X(UNTERMINATED, "unterminated string") \
	X(BAD_ESCAPE, "bad escape") \
	X(JUNK, "junk after string") \
	X(DOUBLE_NEG, "double negation") \
	X(NEG_ALONE, "missing value") \
	X(NOT_NUMBER, "expected a number") \
	X(RANGE, "number out of range") \
	X(BAD_ADDR, "bad address") \
	X(BAD_LEN, "bad prefix length") \
	X(HOST_BITS, "host bits set") \
	X(BAD_MASK, "bad netmask") \
	X(MASK_HOLES, "non-contiguous netmasks are not supported") \
	X(BAD_PORT, "bad port") \
	X(BAD_RANGE, "bad port range") \
	X(EMPTY_ITEM, "empty list item") \
	X(TOO_MANY_PORTS, "too many ports")

enum lex_code {
#define LEX_CODE_ENUM(name, text) LEX_E_##name,
	LEX_CODES(LEX_CODE_ENUM)
#undef LEX_CODE_ENUM
	LEX_E__COUNT
};

/**
 * The message of a reason.
 * @param code  enum lex_code
 * @return a static string; "unknown error" for a code out of range.
 * Context: any.
 */
const char *lex_code_text(unsigned int code);

/**
 * Why a value or a line was refused, and which part of it. Offsets are
 * bytes from the start of the text the parser was given.
 */
struct lex_fault {
	uint8_t code; /**< enum lex_code */
	size_t at;    /**< where to point: the error's column is the text's + @c at */
	size_t tok;   /**< the text to quote starts here ... */
	size_t len;   /**< ... and is this long (0: quote nothing) */
};

/** Sizes of struct lex_error's strings, NUL included. */
#define LEX_ERR_FILE_MAX 256
#define LEX_ERR_TOKEN_MAX 64
#define LEX_ERR_MSG_MAX 96

/**
 * Where and why reading failed. @c line and @c col are 1-based (columns
 * count bytes; a tab is one column); 0 when the error is not about a
 * position (a file that cannot be read: @c file and @c msg only). @c token
 * is the offending text, or for a missing value the word that wanted it,
 * truncated to fit; "" when there is nothing to quote. The rule languages
 * call it struct rule_error (rule_lang.h).
 */
struct lex_error {
	char file[LEX_ERR_FILE_MAX];
	unsigned int line;
	unsigned int col;
	char token[LEX_ERR_TOKEN_MAX];
	char msg[LEX_ERR_MSG_MAX];
};

/**
 * Format an error as "FILE:LINE:COL: MSG: 'TOKEN'"; parts that are empty
 * or zero are left out ("FILE: MSG" for a file that cannot be opened).
 * @param e    the error
 * @param buf  receives the text, NUL-terminated (truncated if need be)
 * @param len  size of @p buf
 * @return characters written (excluding the NUL), -ENOSPC if truncated,
 *   -EINVAL if @p e or @p buf is NULL or @p len is 0.
 * Context: any.
 */
int lex_error_format(const struct lex_error *e, char *buf, size_t len);

/** Where errors are being reported: the text being read and the error to fill. */
struct lex_where {
	const char *file;      /**< file name, or NULL */
	unsigned int line;     /**< line being read (1-based), 0: none */
	struct lex_error *err; /**< receives errors; NULL: errors are only returned */
};

/**
 * Report an error at column @p col of the current line: fill @p w->err
 * (when there is one) with the file, the line, @p col, the token
 * [@p tok, @p tok + @p len) truncated to fit, and @p msg.
 * @param w    where (its @c err may be NULL)
 * @param col  1-based column, 0 for none
 * @param tok  the text to quote (may be NULL when @p len is 0)
 * @param len  its length in bytes
 * @param msg  the message
 * @return -EINVAL, always (so that callers can return it).
 * Context: any.
 */
int lex_fail(const struct lex_where *w, unsigned int col, const char *tok, size_t len,
	const char *msg);

/**
 * Report a fault of a value (or of a line) that starts at column @p col:
 * the error's column is @p col + @p f->at, its token the text the fault
 * names in @p text, its message @p msg or, when NULL, lex_code_text().
 * @param w     where
 * @param col   column of @p text[0] (1 for a whole line)
 * @param text  the value or line the fault is about
 * @param f     the fault
 * @param msg   the message, or NULL for the reason's own
 * @return -EINVAL, always.
 * Context: any.
 */
int lex_fail_fault(const struct lex_where *w, unsigned int col, const char *text,
	const struct lex_fault *f, const char *msg);

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Read a whole file into a NUL-terminated buffer (text files only).
 * @param path  file to read
 * @param err   if not NULL, receives the error: the file name and the
 *   strerror() text (line 0), or the line and column of a NUL byte
 * @return the text (the caller frees it), or NULL with errno set: EINVAL (a
 *   NUL byte, or @p path NULL), ENOMEM, or the errno of opening or reading.
 * Context: any thread that may block on file I/O.
 */
char *lex_file_read(const char *path, struct lex_error *err);

/**
 * A line reader over a NUL-terminated text. Lines end with "\n"; the "\n"
 * and one "\r" before it are not part of the line. Owner: its caller; the
 * text must stay valid while the reader is used.
 */
struct lex_reader {
	const char *next;  /**< start of the next line, NULL at the end */
	unsigned int line; /**< number of the line last returned (1-based), 0 before */
	char *buf;         /**< the line last returned, writable, NUL-terminated */
	size_t cap;        /**< size of @c buf */
};

/**
 * Start reading @p text.
 * @param r     the reader
 * @param text  NUL-terminated text (not copied)
 * Context: any.
 */
void lex_reader_init(struct lex_reader *r, const char *text);

/**
 * The next line, copied into the reader's buffer (callers may modify it).
 * @param r     the reader
 * @param line  receives the line, valid until the next call
 * @param len   if not NULL, receives its length
 * @return 1 with a line, 0 at the end of the text, -ENOMEM.
 * Context: any.
 */
int lex_reader_next(struct lex_reader *r, char **line, size_t *len);

/**
 * Free the reader's buffer (the reader may be initialized again).
 * @param r  the reader (NULL: nothing)
 * Context: any.
 */
void lex_reader_fini(struct lex_reader *r);

/* ------------------------------------------------------------------------ */
/* Words                                                                     */
/* ------------------------------------------------------------------------ */

/** How quotes work in a syntax. */
enum lex_quote {
	LEX_QUOTE_NONE,  /**< '"' is an ordinary byte */
	/**
	 * A word that starts with '"' is a string up to the closing quote; a
	 * blank, a comment or the end of the line must follow it (LEX_E_JUNK).
	 * Elsewhere '"' is an ordinary byte.
	 */
	LEX_QUOTE_WORD,
	/** Quoted parts anywhere in a word, joined with the rest ("a b"c is one word). */
	LEX_QUOTE_JOIN,
	/** Quoted parts anywhere in a word; a closing quote ends the word (iptables-restore). */
	LEX_QUOTE_SPLIT,
};

/** Backslashes inside quotes. */
enum lex_escape {
	LEX_ESC_NONE,  /**< a backslash is an ordinary byte */
	LEX_ESC_QUOTE, /**< \" and \\ only; any other is LEX_E_BAD_ESCAPE */
	LEX_ESC_ANY,   /**< a backslash takes the next byte literally */
};

/** Where '#' starts a comment (outside quotes; the comment runs to the end of the line). */
enum lex_comment {
	LEX_COMMENT_NONE, /**< never: '#' is an ordinary byte */
	LEX_COMMENT_WORD, /**< at the start of a word only */
	LEX_COMMENT_ANY,  /**< anywhere: it also ends the word it is in */
};

/** A language's words: one value per language, read-only. */
struct lex_syntax {
	const char *blanks;     /**< bytes that separate words; NULL: space and tab */
	uint8_t quote;          /**< enum lex_quote */
	uint8_t escape;         /**< enum lex_escape */
	uint8_t comment;        /**< enum lex_comment */
	bool negation;          /**< a '!' before a word (blanks may follow it) negates the word */
	bool refuse_ctrl;       /**< control bytes but tab anywhere in the line: LEX_E_CTRL */
	unsigned int max_words; /**< most words (LEX_E_TOO_MANY past that); at least 1 */
	unsigned int max_len;   /**< longest word in bytes, decoded (LEX_E_TOO_LONG); 0: no limit */
};

/** One word of a line. */
struct lex_tok {
	char *s;          /**< the word, NUL-terminated: quotes, escapes and its '!' removed */
	unsigned int col; /**< 1-based column of its first byte in the line ('!' not counted) */
	bool neg;         /**< a '!' came before it */
	bool quoted;      /**< it has a quoted part */
};

/**
 * Split @p line into words. Faults (@p f): LEX_E_CTRL at the control byte
 * (checked first, over the whole line); LEX_E_TOO_MANY and LEX_E_TOO_LONG
 * at the word, quoting it up to a blank or comment; LEX_E_UNTERMINATED at
 * the opening quote, quoting what follows it; LEX_E_BAD_ESCAPE at the
 * backslash (two bytes); LEX_E_JUNK at the byte after the closing quote;
 * LEX_E_DOUBLE_NEG at the second '!' (or the first of "!!"); LEX_E_NEG_ALONE
 * at a last '!' with no word after it.
 *
 * @param sx    the syntax
 * @param line  NUL-terminated line (no "\n" expected: it is a blank or, with
 *   refuse_ctrl, a control byte)
 * @param out   receives the words' text; at least strlen(@p line) + 1 bytes;
 *   may be @p line itself (decoded in place: the line is then lost)
 * @param t     receives the words, @p sx->max_words entries
 * @param n     receives the number of words (on error: those before the fault)
 * @param f     if not NULL, receives the fault, offsets in @p line
 * @return 0, or -EINVAL (fault) when the line breaks the syntax.
 * Context: any.
 */
int lex_split(const struct lex_syntax *sx, const char *line, char *out, struct lex_tok *t,
	unsigned int *n, struct lex_fault *f);

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

/** Number forms (flags of lex_u32()). */
#define LEX_NUM_DEC 0x0          /**< decimal digits */
#define LEX_NUM_C 0x1            /**< as C: "0x" hexadecimal, a leading "0" octal, else decimal */
#define LEX_NUM_NO_LEAD_ZERO 0x2 /**< decimal without a leading zero ("08" is refused, as iptables) */

/**
 * Read an unsigned number that is all of [@p s, @p s + @p len) (no sign, no
 * blank). Faults: LEX_E_NOT_NUMBER (empty, a byte that is no digit of the
 * form, a leading zero refused), LEX_E_RANGE (more than @p max); the whole
 * text is quoted.
 * @param s      the text (need not be NUL-terminated)
 * @param len    its length
 * @param max    largest value allowed
 * @param flags  LEX_NUM_*
 * @param v      receives the value
 * @param f      if not NULL, receives the fault
 * @return 0, or -EINVAL (fault).
 * Context: any.
 */
int lex_u32(const char *s, size_t len, uint32_t max, unsigned int flags, uint32_t *v,
	struct lex_fault *f);

/* ------------------------------------------------------------------------ */
/* Addresses and prefixes                                                    */
/* ------------------------------------------------------------------------ */

/** Address families (the values of flowcache's FC_AF_INET4/6). */
#define LEX_AF_INET4 4
#define LEX_AF_INET6 6

/** Longest text of an address (IPv6 with an IPv4 tail), NUL included. */
#define LEX_ADDR_STRLEN 46
/** Longest text of a prefix ("ADDR/128"), NUL included. */
#define LEX_PREFIX_STRLEN (LEX_ADDR_STRLEN + 4)

/** Address bytes of @p family: 4, 16, or 0 for anything else. Context: any. */
static inline unsigned int
lex_af_len(unsigned int family)
{
	return family == LEX_AF_INET4 ? 4u : family == LEX_AF_INET6 ? 16u : 0u;
}

/**
 * Read an address that is all of [@p s, @p s + @p len): IPv6 when it has a
 * ':', else dotted IPv4. Fault: LEX_E_BAD_ADDR (the whole text).
 * @param s       the text
 * @param len     its length
 * @param family  receives LEX_AF_INET4 or LEX_AF_INET6 (also on a fault: the
 *   family the text looked like)
 * @param addr    receives the address in network order (16 bytes written;
 *   an IPv4 address in bytes 0..3, the rest zero)
 * @param f       if not NULL, receives the fault
 * @return 0, or -EINVAL (fault).
 * Context: any.
 */
int lex_addr(const char *s, size_t len, uint8_t *family, uint8_t addr[16], struct lex_fault *f);

/**
 * Write an address as text (inet_ntop()'s form).
 * @param family  LEX_AF_INET4 or LEX_AF_INET6
 * @param addr    the address, network order
 * @param buf     receives the text (LEX_ADDR_STRLEN is always enough)
 * @param len     size of @p buf
 * @return characters written, or -EINVAL (bad family, @p buf too small).
 * Context: any.
 */
int lex_addr_format(unsigned int family, const uint8_t *addr, char *buf, size_t len);

/** An address prefix. */
struct lex_prefix {
	uint8_t family;   /**< LEX_AF_INET4 or LEX_AF_INET6 */
	uint8_t addr[16]; /**< network order; IPv4 in bytes 0..3, the rest zero */
	uint8_t len;      /**< prefix length, 0..32 or 0..128 */
};

/** What lex_prefix() does with bits set past the length ("10.1.2.3/8"). */
#define LEX_PFX_HOST_REFUSE 0x0 /**< an error, LEX_E_HOST_BITS (the native rule language) */
#define LEX_PFX_HOST_CLEAR 0x1  /**< cleared: 10.0.0.0/8 (config, shell, iptables) */
#define LEX_PFX_HOST_KEEP 0x2   /**< kept as written (a generator's base address) */
/** Other lex_prefix() flags. */
#define LEX_PFX_NETMASK 0x4     /**< "ADDR/MASK" with a mask of the address's form too */
#define LEX_PFX_NO_LEAD_ZERO 0x8 /**< a length without a leading zero ("/08" refused, as iptables) */
/**
 * IPv4 as iptables reads it (xtables' numeric parse): one to four
 * dot-separated parts, each 0..255 in decimal, octal (leading 0) or hex
 * (0x), the missing trailing parts zero: "10/8" is 10.0.0.0/8, "172.16.0"
 * is 172.16.0.0, "010.1.1.1" is 8.1.1.1.
 */
#define LEX_PFX_IPT_V4 0x10

/**
 * Read "ADDR", "ADDR/LEN" (and with LEX_PFX_NETMASK "ADDR/MASK") that is
 * all of [@p s, @p s + @p len); without a length the prefix is the host
 * (32 or 128). Faults, all quoting the whole text: LEX_E_BAD_ADDR,
 * LEX_E_BAD_LEN (not a number, more than the family allows),
 * LEX_E_BAD_MASK (a mask that is no address of the family),
 * LEX_E_MASK_HOLES (a mask whose ones are not contiguous),
 * LEX_E_HOST_BITS (LEX_PFX_HOST_REFUSE).
 * @param s      the text
 * @param len    its length
 * @param flags  one LEX_PFX_HOST_* policy, or'ed with other LEX_PFX_* flags
 * @param p      receives the prefix
 * @param f      if not NULL, receives the fault
 * @return 0, or -EINVAL (fault).
 * Context: any.
 */
int lex_prefix(const char *s, size_t len, unsigned int flags, struct lex_prefix *p,
	struct lex_fault *f);

/**
 * Write a prefix as "ADDR/LEN".
 * @param p    the prefix
 * @param buf  receives the text (LEX_PREFIX_STRLEN is always enough)
 * @param len  size of @p buf
 * @return characters written, -ENOSPC if truncated, -EINVAL (bad family).
 * Context: any.
 */
int lex_prefix_format(const struct lex_prefix *p, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Ports                                                                     */
/* ------------------------------------------------------------------------ */

/** An inclusive port range, host order. */
struct lex_port_range {
	uint16_t lo;
	uint16_t hi;
};

/** How a port range or list is written: one value per form, read-only. */
struct lex_port_syntax {
	char range;            /**< between the two ends of a range */
	char list;             /**< between items; '\0': one range, no list */
	bool open_ends;        /**< a range may leave out an end (0 and 65535): "P:", ":Q", ":" */
	bool strict;           /**< a range needs lo < hi (else lo <= hi) */
	bool nonzero;          /**< ports start at 1 */
	bool no_lead_zero;     /**< numbers are written without a leading zero */
	bool names;            /**< service names too ("ssh", "domain": lex_service_port()) */
	uint8_t range_weight;  /**< what a range counts against @c max (a port counts 1) */
	unsigned int max;      /**< most items, by weight (LEX_E_TOO_MANY_PORTS) */
};

/**
 * The port of a well-known service name, as iptables finds it in netbase's
 * /etc/services ("ssh" 22, "domain" 53, "https" 443, ...), from a table of
 * its common names built in, so a rule set reads the same on any host.
 * @param s    the name (case matters, as for getservbyname())
 * @param len  its length
 * @param port receives the port
 * @return true if @p s names a service. Context: any.
 */
bool lex_service_port(const char *s, size_t len, uint16_t *port);

/** The native rule language: "22", "8000-8080", "22,80,8000-8080", 16 items at most. */
extern const struct lex_port_syntax lex_ports_native;
/** A NAT port range: "P" or "P-Q", from 1. */
extern const struct lex_port_syntax lex_ports_nat;
/** iptables --sport/--dport: "P", "P:Q", "P:", ":Q", ":". */
extern const struct lex_port_syntax lex_ports_ipt;
/** iptables multiport: "P,P:Q,...", lo < hi, 15 ports at most (a range counts 2). */
extern const struct lex_port_syntax lex_ports_ipt_multi;
/** iptables --to-ports and --to-*'s ports: "P" or "P-Q", from 1, no leading zero. */
extern const struct lex_port_syntax lex_ports_ipt_nat;

/**
 * Read a port range or list that is all of [@p s, @p s + @p len). Faults:
 * LEX_E_EMPTY_ITEM (quoting the whole list), and quoting the item at fault:
 * LEX_E_TOO_MANY_PORTS (the first item past the limit), LEX_E_BAD_PORT (not a
 * port number, or 0 where ports start at 1), LEX_E_BAD_RANGE (ends in the
 * wrong order).
 * @param sx   the form
 * @param s    the text
 * @param len  its length
 * @param out  receives the items, in text order (room for @p sx->max)
 * @param n    receives the number of items
 * @param f    if not NULL, receives the fault
 * @return 0, or -EINVAL (fault).
 * Context: any.
 */
int lex_ports(const struct lex_port_syntax *sx, const char *s, size_t len,
	struct lex_port_range *out, unsigned int *n, struct lex_fault *f);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_LEX_H */
