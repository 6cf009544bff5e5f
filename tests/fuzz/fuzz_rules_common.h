/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_rules_common.h — checks shared by the two rule-parser
 * fuzz targets (fuzz_rules_native.c, fuzz_rules_ipt.c): the input as a
 * NUL-terminated text, the shape of an error report, set equality, a
 * native-language round trip, and evaluation of a few keys. Violations
 * abort(), which libFuzzer reports as a crash.
 */
#ifndef GUFC_FUZZ_RULES_COMMON_H
#define GUFC_FUZZ_RULES_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rule_lang.h"
#include "rules.h"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

/* The input up to its first NUL, as a string (caller frees). */
static char *
fz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	CHECK(t != NULL);
	memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

static unsigned int
fz_lines(const char *t)
{
	unsigned int n = 1;

	for (; *t != '\0'; t++)
		n += *t == '\n';
	return n;
}

/* A syntax error names a line of the text, a column, a message; strings are terminated. */
static void
fz_check_error(const struct rule_error *e, int err, const char *text)
{
	CHECK(err == EINVAL || err == ENOMEM);
	CHECK(memchr(e->file, '\0', sizeof(e->file)) != NULL);
	CHECK(memchr(e->token, '\0', sizeof(e->token)) != NULL);
	CHECK(memchr(e->msg, '\0', sizeof(e->msg)) != NULL);
	CHECK(e->msg[0] != '\0');
	if (err != EINVAL)
		return;
	CHECK(e->line > 0);
	CHECK(e->line <= fz_lines(text));
	CHECK(e->col > 0);
}

static void
fz_check_equal(const struct rule_set *a, const struct rule_set *b)
{
	CHECK(rule_set_rule_count(a) == rule_set_rule_count(b));
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		CHECK(rule_set_chain_count(a, t) == rule_set_chain_count(b, t));
		for (unsigned int i = 0; i < rule_set_chain_count(a, t); i++) {
			const struct rule_chain *ca = rule_set_chain_at(a, t, i);
			const struct rule_chain *cb = rule_set_chain_at(b, t, i);

			CHECK(strcmp(ca->name, cb->name) == 0);
			CHECK(ca->hooks == cb->hooks && ca->builtin == cb->builtin);
			CHECK(ca->policy == cb->policy && ca->policy6 == cb->policy6);
			CHECK(ca->n_rules == cb->n_rules);
			for (uint32_t j = 0; j < ca->n_rules; j++) {
				CHECK(rule_check(&ca->rules[j], NULL) == 0);
				CHECK(rule_equal(&ca->rules[j], &cb->rules[j]));
			}
		}
	}
}

/* Native text of a set (caller frees). */
static char *
fz_format(const struct rule_set *s)
{
	size_t len = 1 << 16;

	for (;;) {
		char *buf = malloc(len);
		int n;

		CHECK(buf != NULL);
		n = rule_set_format(s, buf, len);
		if (n >= 0) {
			CHECK((size_t)n == strlen(buf));
			return buf;
		}
		CHECK(n == -ENOSPC);
		free(buf);
		CHECK(len < (1u << 28));
		len *= 2;
	}
}

/* Keys built from the input bytes (and some fixed ones), all families and local bits. */
static void
fz_key(const uint8_t *data, size_t size, unsigned int i, struct fc_key *k)
{
	uint8_t b[40];

	for (size_t j = 0; j < sizeof(b); j++)
		b[j] = size ? data[(i * 7 + j) % size] : (uint8_t)(i + j);
	memset(k, 0, sizeof(*k));
	if (i & 1) {
		k->family = FC_AF_INET6;
		memcpy(k->v6.src, b, 16);
		memcpy(k->v6.dst, b + 16, 16);
		memcpy(&k->v6.sport, b + 32, 2);
		memcpy(&k->v6.dport, b + 34, 2);
		k->v6.proto = (uint8_t)(i & 2 ? 6 : 17);
		k->v6.flags = (uint8_t)(i >> 2 & 3);
		fc_key_v6_normalize(&k->v6);
	} else {
		k->family = FC_AF_INET4;
		memcpy(&k->v4.src, b, 4);
		memcpy(&k->v4.dst, b + 4, 4);
		memcpy(&k->v4.sport, b + 8, 2);
		memcpy(&k->v4.dport, b + 10, 2);
		k->v4.proto = (uint8_t)(i & 2 ? 6 : i & 4 ? 1 : 17);
		k->v4.flags = (uint8_t)(i >> 2 & 3);
		fc_key_v4_normalize(&k->v4);
	}
}

/* A packet context from the input bytes: flags, ICMP, TTL, length, marks, ports. */
static void
fz_pkt(const uint8_t *data, size_t size, unsigned int i, const struct fc_key *k, unsigned int ct,
	struct rule_pkt *p)
{
	uint8_t b[16];

	for (size_t j = 0; j < sizeof(b); j++)
		b[j] = size ? data[(i * 11 + j + 3) % size] : (uint8_t)(i * j);
	rule_pkt_init(p, k, ct, i % 5 == 0 ? RULE_KEY_F_NOPORTS : 0);
	p->tcp_flags = b[0];
	p->icmp_type = b[1];
	p->icmp_code = b[2] & 15;
	p->ttl = b[3];
	p->l3_len = (uint16_t)(b[4] << 8 | b[5]);
	p->mark = b[6] & 0x3f;
	p->in_port = b[7] & 4 ? RULE_IF_NONE : b[7] & 3;
	p->out_port = b[8] & 4 ? RULE_IF_NONE : b[8] & 3;
	p->rand = (uint32_t)b[9] << 24 | b[10];
	if (b[11] & 1) {
		p->flags |= RULE_PKT_F_MSS;
		p->tcp_mss = (uint16_t)(b[12] << 4);
	}
}

/* Every stage of both sets gives a packet context the same result. */
static void
fz_check_stages(const struct rule_set *a, const struct rule_set *b, const uint8_t *data,
	size_t size, unsigned int i, const struct fc_key *k, unsigned int ct)
{
	struct rule_pkt pa, pb;

	fz_pkt(data, size, i, k, ct, &pa);
	pb = pa;
	for (unsigned int st = 0; st < RULE_STAGE__COUNT; st++) {
		struct rule_eval ea, eb;
		int ra = rule_ref_eval(a, (enum rule_stage)st, &pa, NULL, &ea);
		int rb = rule_ref_eval(b, (enum rule_stage)st, &pb, NULL, &eb);

		CHECK(ra == rb);
		if (ra < 0)
			return;
		CHECK(ea.verdict == eb.verdict && ea.action == eb.action && ea.hook == eb.hook);
		CHECK(ea.table == eb.table && ea.reject == eb.reject && ea.deps == eb.deps);
		CHECK(ea.nat_action == eb.nat_action && ea.n_acts == eb.n_acts);
		CHECK(pa.mark == pb.mark && pa.ctstate == pb.ctstate && pa.ttl == pb.ttl);
		for (unsigned int j = 0; j < ea.n_acts; j++)
			CHECK(ea.acts[j].action == eb.acts[j].action);
		if (ea.verdict != RULE_VERDICT_ACCEPT)
			return;
	}
}

/* Both sets give every key the same verdict, hook, channel and translation. */
static void
fz_check_eval(const struct rule_set *a, const struct rule_set *b, const uint8_t *data, size_t size)
{
	static const unsigned int cts[] = {0, RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_INVALID};

	for (unsigned int i = 0; i < 16; i++) {
		struct rule_result ra, rb;
		struct rule_nat_result na, nb;
		unsigned int ct = cts[i % 4], kf = i % 5 == 0 ? RULE_KEY_F_NOPORTS : 0;
		struct fc_key k;

		fz_key(data, size, i, &k);
		fz_check_stages(a, b, data, size, i, &k, ct);
		CHECK(rule_ref_filter(a, &k, ct, kf, &ra) == 0);
		CHECK(rule_ref_filter(b, &k, ct, kf, &rb) == 0);
		CHECK(ra.verdict == rb.verdict && ra.hook == rb.hook);
		CHECK(strcmp(ra.channel, rb.channel) == 0);
		for (unsigned int st = RULE_NAT_DST; st <= RULE_NAT_SRC; st++) {
			CHECK(rule_ref_nat(a, st, &k, ct, kf, &na) == 0);
			CHECK(rule_ref_nat(b, st, &k, ct, kf, &nb) == 0);
			CHECK(na.action == nb.action && na.hook == nb.hook);
			CHECK(na.nat.family == nb.nat.family);
			CHECK(na.nat.port_min == nb.nat.port_min);
			CHECK(na.nat.port_max == nb.nat.port_max);
			CHECK(memcmp(na.nat.addr_min, nb.nat.addr_min, 16) == 0);
			CHECK(memcmp(na.nat.addr_max, nb.nat.addr_max, 16) == 0);
		}
	}
}

/*
 * A valid set: its clone is equal; its native text parses back to an equal
 * set whose text is the same (a fixed point); both evaluate alike.
 */
static void
fz_check_roundtrip(const struct rule_set *s, const uint8_t *data, size_t size)
{
	struct rule_set *c = rule_set_clone(s), *r;
	struct rule_error err;
	char *t1, *t2;

	CHECK(c != NULL);
	fz_check_equal(s, c);
	rule_set_free(c);
	t1 = fz_format(s);
	r = rule_set_parse(t1, "formatted", &err);
	CHECK(r != NULL);
	fz_check_equal(s, r);
	t2 = fz_format(r);
	CHECK(strcmp(t1, t2) == 0);
	fz_check_eval(s, r, data, size);
	rule_set_free(r);
	free(t1);
	free(t2);
}

#endif /* GUFC_FUZZ_RULES_COMMON_H */
