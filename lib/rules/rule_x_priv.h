/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: the extension option tables (rule_x.c) and the value
 * codecs (rule_xval.c) that both rule languages share. Each extension kind
 * (rule_ext.h) is a list of options; an option has its iptables spelling
 * ("--hl-eq"), its native keyword ("hl_eq"), a value type, and where its
 * value lives in struct rule_x::u (or, for the NAT targets, in struct
 * rule::nat). The iptables import reads "-m KIND --opt VALUE", the native
 * language "opt VALUE", both through rule_xval_parse(); the formatters
 * write them back through rule_xval_format(), so every option round-trips
 * the same way in both languages.
 */
#ifndef GUFC_RULE_X_PRIV_H
#define GUFC_RULE_X_PRIV_H

#include <string.h>

#include "lex.h"
#include "rule_priv.h"

/** Value types. */
enum rule_vt {
	VT_FLAG,      /**< no value: the option's bit says it all */
	VT_UINT,      /**< unsigned number (decimal, or 0x hex), @c size bytes, <= @c arg (0: any) */
	VT_HEX,       /**< as VT_UINT, written in hex */
	VT_MARK,      /**< VALUE[/MASK], two u32 (mask defaults to all ones); hex */
	VT_XMARK,     /**< MARK/CONNMARK --set-xmark and its spellings (see @c arg: XM_*) */
	VT_RANGE,     /**< A[:B] into two numbers of @c size bytes (B defaults to A, or to
			   the maximum when @c arg is 1: "A:" and ":B" allowed) */
	VT_NAMES,     /**< comma-separated names of @c names: OR of their values */
	VT_NAME,      /**< one name of @c names (or a number when @c arg is 1) */
	VT_STR,       /**< a string of at most @c size - 1 bytes */
	VT_PREFIX,    /**< ADDR[/LEN|/MASK] into a struct rule_prefix (sets the family) */
	VT_ADDR,      /**< an address (a mask), 16 bytes (sets the family) */
	VT_ARANGE,    /**< A-B: two 16-byte addresses, @c off and @c off + 16 */
	VT_MAC,       /**< xx:xx:xx:xx:xx:xx */
	VT_RATE,      /**< N/UNIT: u32 rate at @c off, u8 unit at @c off + 4; with @c arg 1
			   also Nb/s, Nkb/s, Nmb/s, Ngb/s (bytes per second, RULE_RATE_BYTES) */
	VT_HLBURST,   /**< hashlimit burst: u32 N, or with b/kb/mb/gb bytes (a byte rate's) */
	VT_PROB,      /**< 0..1 probability, u32 scaled by 2^31 */
	VT_ICMP,      /**< ICMP type (@c arg: 4 or 6): name, T or T/C; struct rule_x_icmp */
	VT_TCPFLAGS,  /**< two words: MASK COMP flag lists; two u8 */
	VT_SYN,       /**< --syn: tcp flags FIN,SYN,RST,ACK SYN (option @c arg's fields) */
	VT_SETREF,    /**< two words: NAME DIR[,DIR...] (name, dirs, ndims at @c off) */
	VT_CHUNKS,    /**< two words: all|any|only CHUNK[,CHUNK...]; struct rule_x_sctp */
	VT_TOD,       /**< HH:MM[:SS]: u32 seconds of the day */
	VT_DATE,      /**< YYYY[-MM[-DD[Thh[:mm[:ss]]]]], UTC, 1970..2038 as iptables:
			   u32 seconds since the epoch; written in full */
	VT_CLASS,     /**< MAJOR:MINOR in hex: u32 */
	VT_TOS,       /**< TOS target (@c arg: XM_*): VALUE[/MASK] or a TOS name; two u8 */
	VT_PROTO,     /**< a protocol name or number: u8 */
	VT_NAT_TO,    /**< --to-source/--to-destination: struct rule::nat */
	VT_NAT_PORTS, /**< --to-ports P[-Q]: struct rule::nat ports */
	VT_NETMAP,    /**< --to ADDR/LEN: struct rule::nat range, RULE_NAT_F_NETMAP */
	VT_NATFLAG,   /**< a RULE_NAT_F_* flag (@c arg) in struct rule::nat */
	VT_STRPAT,    /**< a string match's pattern, struct rule_x_string: as --string
			   (the bytes as they are) or, @c arg 1, as --hex-string ("|..|"
			   hex blocks, \\ literals); written as either (rule_x_opt_written()) */
	VT_U32,       /**< u32 tests, struct rule_x_u32 (rule_u32.c): read and written as
			   iptables (numbers in hex, "&&" between tests, "," between ranges) */
	VT_BPF,       /**< a bpf program, struct rule_x_bpf (rule_bpf.c): "N,c jt jf k,...";
			   @c arg 1: --object-pinned, refused (eBPF) */
};

/** Spellings VT_XMARK and VT_TOS read (struct rule_xopt::arg). */
enum { XM_XSET, XM_SET, XM_AND, XM_OR, XM_XOR };

/** struct rule_xopt::flags. */
#define XO_NEG 0x01     /**< may be negated */
#define XO_PARSE 0x02   /**< read only: written as option @c alias (e.g. --syn) */
#define XO_NAT 0x04     /**< the value lives in struct rule::nat, not in rule_x::u */
#define XO_LOWER 0x08   /**< names are written in lower case in iptables form too */
#define XO_TRUNC 0x10   /**< iptables form: a string too long is cut to fit, as iptables does */

/** A name and its value (name tables of VT_NAME/VT_NAMES; the first of a value is written). */
struct rule_xname {
	const char *name;
	uint32_t value;
};

/** A name table, NULL-terminated. */
#define XNAMES_END {NULL, 0}

/*
 * Why CT --zone (--zone-orig, --zone-reply, native ct_zone) is refused: in
 * Linux a zone makes one tuple several connections, picked per packet and
 * direction by raw rules; a gufc connection is its tuple, on any port (a
 * packet of a tracked tuple arriving on another port is that connection's).
 */
#define RULE_X_ZONE_MSG "CT --zone: gufc has no conntrack zones: one connection per tuple, whatever the port"


/** One option of an extension kind. */
struct rule_xopt {
	const char *ipt;   /**< iptables spelling ("--hl-eq"), or NULL (native only) */
	const char *ipt2;  /**< another iptables spelling, or NULL */
	const char *nat;   /**< native keyword */
	uint8_t vt;        /**< enum rule_vt */
	uint8_t flags;     /**< XO_* */
	uint8_t alias;     /**< XO_PARSE: the option it stands for */
	uint8_t size;      /**< bytes of the value (number widths, string capacity) */
	uint16_t off;      /**< offset of the value in struct rule_x::u */
	uint16_t excl;     /**< options that cannot be given with this one */
	uint64_t arg;      /**< type-specific (bounds, spellings, flags) */
	const struct rule_xname *names;
};

/** One extension kind. */
struct rule_xkind {
	const char *ipt;   /**< -m name / -j name ("addrtype", "LOG") */
	uint8_t family;    /**< 0, FC_AF_INET4 or FC_AF_INET6 only */
	uint8_t proto;     /**< the -p it needs (tcp, sctp, icmp, ...), 0 none */
	uint8_t n;         /**< options */
	uint8_t action;    /**< targets: the enum rule_action it belongs to */
	uint16_t need;     /**< at least one of these options must be given (0: none) */
	uint16_t tables;   /**< targets: tables allowed (bit per enum rule_table) */
	uint16_t hooks;    /**< targets: hooks it may be reached from (0: any) */
	const char *need_msg; /**< message when @c need is not met */
	const struct rule_xopt *o;
};

/** The kind table, indexed by enum rule_x_kind (entry 0 unused). */
extern const struct rule_xkind rule_xkinds[RULE_X__COUNT];

/** The kind of -m @p name (iptables module, or native "fragment"), or RULE_X_NONE. */
unsigned int rule_x_kind_of_match(const char *name);

/** The target kind of -j @p name ("LOG"), or RULE_X_NONE. */
unsigned int rule_x_kind_of_target(const char *name);

/** The target kind of action @p action, or RULE_X_NONE (actions without options). */
unsigned int rule_x_kind_of_action(unsigned int action);

/**
 * Find the option a word names.
 * @param kind    enum rule_x_kind
 * @param word    "--hl-eq" (iptables) or "hl_eq" (native)
 * @param native  which spelling
 * @return the option index, or -1.
 */
int rule_x_opt_find(unsigned int kind, const char *word, bool native);

/**
 * Find the iptables option a word abbreviates, as getopt_long reads a
 * unique prefix of a long option ("--to" for DNAT's --to-destination).
 * @param kind  enum rule_x_kind
 * @param word  "--" and at least one more character
 * @return the option index; -1 if no option starts so, -2 if several do.
 */
int rule_x_opt_prefix(unsigned int kind, const char *word);

/**
 * Find the match option a native keyword names, in any match kind.
 * @param word  the keyword
 * @param kind  receives the kind
 * @return the option index, or -1.
 */
int rule_x_native_match(const char *word, unsigned int *kind);

/** Words of value an option takes (0, 1 or 2). */
unsigned int rule_x_opt_words(const struct rule_xopt *o);

/** Why a value was refused: the message and which of its words. */
struct rule_xerr {
	const char *msg;
	unsigned int word;
};

/**
 * Read the value of option @p o into @p x (or @p r's NAT target). The
 * family of addresses is checked against, or sets, r->family.
 * @param o   the option
 * @param v   its words (rule_x_opt_words())
 * @param r   the rule
 * @param x   the extension being filled
 * @param e   receives the reason on failure
 * @return 0, or -EINVAL.
 */
int rule_xval_parse(const struct rule_xopt *o, const char *const v[], struct rule *r,
	struct rule_x *x, struct rule_xerr *e);

/**
 * Write the value of option @p o (its words, space-separated; nothing for
 * a flag).
 * @param b       the buffer
 * @param o       the option
 * @param r       the rule (family, NAT target)
 * @param x       the extension
 * @param native  lower-case names for the native language
 */
void rule_xval_format(struct rule_buf *b, const struct rule_xopt *o, const struct rule *r,
	const struct rule_x *x, bool native);

/**
 * Write the NAT target options of @p r (addresses, ports, flags) through
 * its kind's option table, in the native or the iptables spelling.
 * @param b       the buffer
 * @param r       a rule whose action is a NAT action
 * @param native  the native language's names, else iptables'
 */
void rule_x_nat_format(struct rule_buf *b, const struct rule *r, bool native);

/**
 * Check an extension of @p r: a known kind, options of that kind only,
 * exclusions, required options, family and protocol.
 * @return NULL if fine, else a static message.
 */
const char *rule_x_check(const struct rule *r, const struct rule_x *x);

/**
 * Finish an extension after its options were read: defaults the kernel
 * fills in (a recent list's name, masks). Call before rule_x_check().
 * @param r  the rule
 * @param x  the extension
 */
void rule_x_finish(struct rule *r, struct rule_x *x);

/**
 * The option that writes option @p i of @p x: itself, but for a string
 * pattern that --string cannot show (rule_x_str_hex()): --hex-string.
 */
const struct rule_xopt *rule_x_opt_written(const struct rule_x *x, unsigned int i);

/**
 * Is a pattern written as --hex-string? As iptables-save decides: a byte
 * that is not printable ASCII, or a last byte '\\'; and the pattern "!",
 * which iptables-save writes as --string "!" that a restore (quotes
 * stripped) reads as a negation: as hex it reads back.
 */
static inline bool
rule_x_str_hex(const uint8_t *pat, unsigned int len)
{
	for (unsigned int i = 0; i < len; i++)
		if (pat[i] < 0x20 || pat[i] > 0x7e)
			return true;
	if (len == 1 && pat[0] == '!')
		return true;
	return len > 0 && pat[len - 1] == '\\';
}

/* rule_xblob.c: programs held out of line. */
/** struct rule_x_bpf::len, rule_x_u32::len of a program held out of line (code: its reference). */
#define RULE_X_OUTLINE 0xff
/** Bytes of a reference at the start of the extension's code (digest, length); the rest zero. */
#define RULE_X_REF_BYTES 10
/**
 * Put an encoding in the table, held by the rule set being parsed into
 * (rule_xblob_parse_set()).
 * @param c    the encoding
 * @param len  its bytes
 * @param ref  receives the reference (RULE_X_REF_BYTES)
 * @param msg  receives the reason on failure (NULL for -ENOSPC: the caller names the program)
 * @return 0, -ENOSPC (no set to hold it), -EEXIST, -ENOMEM, -EINVAL.
 */
int rule_xblob_put(const uint8_t *c, unsigned int len, uint8_t *ref, const char **msg);
/** Copy the encoding of reference @p ref (at most @p cap bytes). @return its length, or -ENOENT. */
int rule_xblob_copy(const uint8_t *ref, uint8_t *out, unsigned int cap);
/** Programs in the table (tests: 0 once every set holding one is freed). */
unsigned int rule_xblob_count(void);

/* rule_u32.c: the u32 match's tests. */
/**
 * Read u32 tests as iptables reads them ("0>>22&0x3C@12>>26&0x3F=0", blanks
 * between the tokens, numbers as strtoul with base 0).
 * @param s    the text
 * @param u    receives them (every byte written)
 * @param msg  receives the reason on failure
 * @return 0, or -EINVAL.
 */
int rule_u32_parse(const char *s, struct rule_x_u32 *u, const char **msg);

/** Write u32 tests as iptables-save does, quotes included. */
void rule_u32_format(struct rule_buf *b, const struct rule_x_u32 *u);

/** Are encoded u32 tests well formed (rule_x_check())? @return NULL, or why not. */
const char *rule_u32_check(const struct rule_x_u32 *u);

/* rule_bpf.c: the bpf match's program. */
/**
 * Read a classic BPF program as iptables reads --bytecode and check it as
 * Linux does.
 * @param s    the text ("4,48 0 0 9,21 0 1 6,6 0 0 1,6 0 0 0")
 * @param b    receives it (every byte written)
 * @param msg  receives the reason on failure
 * @return 0, or -EINVAL.
 */
int rule_bpf_parse(const char *s, struct rule_x_bpf *b, const char **msg);

/** Write a bpf program as iptables-save does, quotes included. */
void rule_bpf_format(struct rule_buf *buf, const struct rule_x_bpf *b);

/** Is an encoded bpf program well formed and valid? @return NULL, or why not. */
const char *rule_bpf_check(const struct rule_x_bpf *b);

/** Name tables shared with the evaluator and the formatters. */
extern const struct rule_xname rule_xn_reject[];


/* rule_xname.c: name tables of values. */
/** ICMP names: type, codes (iptables' tables). */
struct rx_icmp_name {
	const char *name;
	uint8_t type, code_min, code_max;
};
/*
 * hashlimit's byte mode as netfilter keeps it: a rate of @p bytes per
 * second is a cost per 16-byte chunk, UINT32_MAX / (chunks per second + 1)
 * (iptables' conversion), and that cost stands for the rate it gives back
 * (the bytes a second's credit holds, what a burst is counted in).
 */
static inline uint32_t
rx_hl_byte_cost(uint32_t bytes)
{
	return UINT32_MAX / ((bytes >> 4) + 1);
}

static inline uint64_t
rx_hl_cost_bytes(uint32_t cost)
{
	uint64_t r = cost != 0 ? UINT32_MAX / cost : UINT32_MAX;

	return (r - 1) << 4;
}

/* An unsigned value of @p size bytes (1, 2, 4, 8) in an option's field: the largest, write, read. */
static inline uint64_t
rx_width_max(unsigned int size)
{
	return size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

static inline void
rx_put(void *p, unsigned int size, uint64_t v)
{
	switch (size) {
	case 1: {
		uint8_t x = (uint8_t)v;

		memcpy(p, &x, 1);
		break;
	}
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(p, &x, 4);
		break;
	}
	default:
		memcpy(p, &v, 8);
		break;
	}
}

static inline uint64_t
rx_get(const void *p, unsigned int size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		return x;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		return x;
	}
	default: {
		uint64_t x;

		memcpy(&x, p, 8);
		return x;
	}
	}
}

#define RX_RATE_UNITS 4
extern const struct rx_icmp_name rx_icmp4_names[];
extern const struct rx_icmp_name rx_icmp6_names[];
extern const struct rule_xname rx_xn_tcpflags[];
extern const struct rule_xname rx_xn_chunks[];
extern const struct rule_xname rx_xn_chunkmode[];
extern const struct rule_xname rx_xn_tos[];
extern const char *const rx_rate_units[RX_RATE_UNITS];
extern const char *const rx_rate_words[RX_RATE_UNITS];

/** Does a rule of @p s have a match of @p kind (recent, hashlimit) named @p name? (rule_hashlimit.c) */
bool rule_set_names_match(const struct rule_set *s, unsigned int kind, const char *name);

#endif /* GUFC_RULE_X_PRIV_H */
