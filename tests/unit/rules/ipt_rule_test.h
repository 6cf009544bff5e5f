/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/rules/ipt_rule_test.h — what the tests of one iptables match
 * share (test_string.c, test_u32.c, test_bpf.c): one INPUT rule loaded in
 * iptables' words, a set written in either language, the rule line of an
 * export, and the round trip every rule of theirs must survive. Pure (no
 * EAL): ipt_rule_test.c, linked into each.
 */
#ifndef GUFC_IPT_RULE_TEST_H
#define GUFC_IPT_RULE_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "rule_lang.h"
#include "rule_x_priv.h"
#include "rules.h"

#define HEAD "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"

/** @p s written as iptables-save writes it (@p ipt) or in the native language; free() it. */
char *dump(const struct rule_set *s, bool ipt);
/** A filter table of the one rule "-A INPUT @p rule", IPv4; NULL and @p err if refused. */
struct rule_set *load(const char *rule, struct rule_error *err);
/** The rule line of INPUT in iptables export @p exp, into @p out. */
void rule_line(const char *exp, char *out, size_t n);
/**
 * The round trip of INPUT rule @p in (@p what names it in failures): it
 * loads, its export's rule line is @p want, the export reads back to the
 * same native text, and so does the native text itself. With @p held >= 0,
 * rule_xblob_count() is @p held while the set and both read-backs live
 * (a program held out of line is held once). @return the set loaded, for
 * the caller to free.
 */
struct rule_set *rule_roundtrip(const char *in, const char *want, int held, const char *what);

/** One case of rule_roundtrips(): INPUT rule @c in and its export's rule line @c out. */
struct rule_rt_case {
	const char *in, *out;
};

/** rule_roundtrip() of each of the @p n cases @p c (no held count), "case N" in failures. */
void rule_roundtrips(const struct rule_rt_case *c, size_t n);

/**
 * Does the FORWARD rule "@p matches -j DROP" drop a NEW UDP datagram
 * 192.0.2.1:100 -> 198.51.100.1:200 of 48 bytes whose payload is
 * "\x13BitTorrent protocol" (in a 74-byte frame, padding after it), as the
 * reference evaluator decides it? A refused rule fails the test with
 * @p what; so does an evaluation that does not depend on the payload.
 */
bool payload_drops(const char *matches, const char *what);

#endif /* GUFC_IPT_RULE_TEST_H */
