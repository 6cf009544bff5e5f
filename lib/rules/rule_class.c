/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — packet classes of a rule set's per-packet header tests.
 *
 * A walk reads a TCP segment's flags byte only through tests
 * (flags & mask) == cmp (--tcp-flags, --syn, SYNPROXY's SYN/ACK test,
 * -m ecn's ECE and CWR tests), each possibly negated. Two flag bytes that
 * give every test of the set the same result walk the set identically
 * (all else equal): they are in one class. The classes are numbered
 * densely by refining the partition one distinct test at a time, so a set
 * has at most 256 classes.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rules.h"

/* SYNPROXY answers (flags & (SYN|ACK|FIN|RST)) == SYN or == ACK. */
#define RULE_SYNPROXY_MASK (RULE_TCP_SYN | RULE_TCP_ACK | RULE_TCP_FIN | RULE_TCP_RST)

/* Refine class table @p cls (of @p n classes) by test (f & m) == c. */
static unsigned int
refine(uint8_t cls[256], uint8_t m, uint8_t c)
{
	int16_t map[512];
	unsigned int nn = 0;

	memset(map, 0xff, sizeof(map));
	for (unsigned int f = 0; f < 256; f++) {
		unsigned int k = (unsigned int)cls[f] * 2 + ((f & m) == c);

		if (map[k] < 0)
			map[k] = (int16_t)nn++;
		cls[f] = (uint8_t)map[k];
	}
	return nn;
}

/* Refine by test (m, c) unless applied already (@p seen: a bit per pair). */
static unsigned int
add_test(uint8_t cls[256], unsigned int n, uint64_t seen[1024], uint8_t m, uint8_t c)
{
	unsigned int v = (unsigned int)m << 8 | c;

	/* Never true (cmp outside mask) or always true (mask 0): no information. */
	if ((c & ~m) != 0 || m == 0 || (seen[v / 64] >> (v % 64) & 1) || n == 256)
		return n;
	seen[v / 64] |= UINT64_C(1) << (v % 64);
	return refine(cls, m, c);
}

unsigned int
rule_set_tcpflag_classes(const struct rule_set *s, uint8_t cls[256], uint8_t rep[256])
{
	uint64_t seen[1024]; /* (mask, cmp) pairs applied */
	unsigned int n = 1;

	memset(seen, 0, sizeof(seen));
	memset(cls, 0, 256);
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *ch = rule_set_chain_at(s, (enum rule_table)t, ci);

			for (uint32_t ri = 0; ri < ch->n_rules; ri++) {
				const struct rule *r = &ch->rules[ri];

				for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
					const struct rule_x *x = &r->xm[i];

					if (x->kind == RULE_XM_TCP && (x->given & 1))
						n = add_test(cls, n, seen, x->u.tcp.mask,
							x->u.tcp.cmp);
					/* -m ecn's TCP tests read the flags byte's ECE and CWR. */
					if (x->kind == RULE_XM_ECN && (x->given & 1))
						n = add_test(cls, n, seen, RULE_TCP_ECE, RULE_TCP_ECE);
					if (x->kind == RULE_XM_ECN && (x->given & 2))
						n = add_test(cls, n, seen, RULE_TCP_CWR, RULE_TCP_CWR);
				}
				if (r->action == RULE_ACT_SYNPROXY) {
					n = add_test(cls, n, seen, RULE_SYNPROXY_MASK,
						RULE_TCP_SYN);
					n = add_test(cls, n, seen, RULE_SYNPROXY_MASK,
						RULE_TCP_ACK);
				}
			}
		}
	}
	/* The first flag byte of each class stands for it. */
	for (int f = 255; f >= 0; f--)
		rep[cls[f]] = (uint8_t)f;
	return n;
}
