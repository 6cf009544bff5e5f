/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the IPFIX encoder (lib/modules/ipfix, pure): messages read
 * back with the tests' own decoder (ipfix_decode.c) — header, templates
 * (element ids, lengths, enterprise numbers), records of both families
 * field by field, sets per template, sequence numbers, a full buffer, bad
 * arguments — and one message checked byte for byte.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipfix.h"
#include "ipfix_decode.h"

#define PEN 32473

static struct dec_state *
dec_new(void)
{
	struct dec_state *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	return s;
}

static void
decode(struct dec_state *s, const uint8_t *buf, size_t len)
{
	const char *why = NULL;

	if (dec_message(s, buf, len, &why) != 0)
		fail_msg("decode: %s", why);
}

static struct mod_ipfix_rec
rec4(uint8_t last, uint64_t packets)
{
	struct mod_ipfix_rec r;

	memset(&r, 0, sizeof(r));
	r.family = 4;
	r.proto = 17;
	memcpy(r.src, (uint8_t[]){10, 0, 0, last}, 4);
	memcpy(r.dst, (uint8_t[]){192, 0, 2, 7}, 4);
	memcpy(r.post_src, (uint8_t[]){203, 0, 113, 1}, 4);
	memcpy(r.post_dst, r.dst, 4);
	r.sport = 1000 + last;
	r.dport = 53;
	r.post_sport = 20000 + last;
	r.post_dport = 53;
	r.packets = packets;
	r.octets = packets * 100;
	r.start_ms = 1700000000123ull;
	r.end_ms = 1700000004567ull;
	r.end_reason = MOD_IPFIX_END_IDLE;
	r.fwd_status = MOD_IPFIX_FWD_FORWARDED;
	r.rule_id = 7;
	return r;
}

static void
check_rec(const struct dec_rec *d, const struct mod_ipfix_rec *r)
{
	unsigned int alen = r->family == 6 ? 16 : 4;
	uint16_t ies[4] = {8, 12, 225, 226}, len;
	const uint8_t *want[4] = {r->src, r->dst, r->post_src, r->post_dst};
	uint64_t v;

	assert_int_equal(d->tmpl, r->family == 6 ? MOD_IPFIX_TMPL_V6 : MOD_IPFIX_TMPL_V4);
	if (r->family == 6) {
		ies[0] = 27;
		ies[1] = 28;
		ies[2] = 281;
		ies[3] = 282;
	}
	for (unsigned int i = 0; i < 4; i++) {
		const uint8_t *b = dec_bytes(d, ies[i], &len);

		assert_non_null(b);
		assert_int_equal(len, alen);
		assert_memory_equal(b, want[i], alen);
	}
#define EQ(ie, pen, val)                                                                           \
	do {                                                                                       \
		assert_true(dec_u64(d, ie, pen, &v));                                              \
		assert_int_equal(v, (uint64_t)(val));                                              \
	} while (0)
	EQ(7, 0, r->sport);
	EQ(11, 0, r->dport);
	EQ(4, 0, r->proto);
	EQ(227, 0, r->post_sport);
	EQ(228, 0, r->post_dport);
	EQ(1, 0, r->octets);
	EQ(2, 0, r->packets);
	EQ(152, 0, r->start_ms);
	EQ(153, 0, r->end_ms);
	EQ(136, 0, r->end_reason);
	EQ(89, 0, r->fwd_status);
	EQ(MOD_IPFIX_IE_RULE_ID, PEN, r->rule_id);
	EQ(MOD_IPFIX_IE_DROP_REASON, PEN, r->drop_reason);
	EQ(MOD_IPFIX_IE_DIRECTION, PEN, r->reply);
#undef EQ
}

static void
test_templates(void **state)
{
	static const uint16_t v4[] = {
		8, 12, 7, 11, 4, 225, 226, 227, 228, 1, 2, 152, 153, 136, 89, 1, 2, 3};
	static const uint16_t v6[] = {
		27, 28, 7, 11, 4, 281, 282, 227, 228, 1, 2, 152, 153, 136, 89, 1, 2, 3};
	struct dec_state *s = dec_new();
	struct mod_ipfix_enc e;
	uint8_t buf[1400];
	size_t len;

	(void)state;
	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 42, PEN), 0);
	assert_false(mod_ipfix_enc_open(&e));
	assert_int_equal(mod_ipfix_enc_templates(&e), 0);
	assert_true(mod_ipfix_enc_open(&e));
	len = mod_ipfix_enc_finish(&e, 1700000000);
	assert_true(len > 16);
	decode(s, buf, len);
	assert_int_equal(s->last_export, 1700000000);
	assert_int_equal(s->last_seq, 0);
	assert_int_equal(s->last_domain, 42);
	assert_int_equal(s->tmpl_sets, 1);
	assert_int_equal(s->n_tmpl, 2);
	for (unsigned int t = 0; t < 2; t++) {
		const struct dec_tmpl *tp = &s->tmpl[t];
		const uint16_t *want = t == 0 ? v4 : v6;

		assert_int_equal(tp->id, t == 0 ? MOD_IPFIX_TMPL_V4 : MOD_IPFIX_TMPL_V6);
		assert_int_equal(tp->n, 18);
		for (unsigned int i = 0; i < tp->n; i++) {
			assert_int_equal(tp->f[i].ie, want[i]);
			assert_int_equal(tp->f[i].pen, i >= 15 ? PEN : 0);
		}
	}
	assert_false(mod_ipfix_enc_open(&e));
	assert_int_equal(mod_ipfix_enc_finish(&e, 1), 0); /* nothing open */
	free(s);
}

static void
test_records(void **state)
{
	struct dec_state *s = dec_new();
	struct mod_ipfix_enc e;
	struct mod_ipfix_rec r[3];
	uint8_t buf[1400];
	size_t len;

	(void)state;
	r[0] = rec4(1, 5);
	r[1] = rec4(2, 0xfedcba9876ull);
	r[1].reply = 1;
	r[1].fwd_status = MOD_IPFIX_FWD_DROP_ACL;
	r[1].drop_reason = 1;
	r[1].rule_id = 0xffffffffu;
	memset(&r[2], 0, sizeof(r[2]));
	r[2].family = 6;
	r[2].proto = 6;
	for (unsigned int i = 0; i < 16; i++) {
		r[2].src[i] = (uint8_t)(0x20 + i);
		r[2].dst[i] = (uint8_t)(0x40 + i);
		r[2].post_src[i] = (uint8_t)(0x60 + i);
		r[2].post_dst[i] = (uint8_t)(0x80 + i);
	}
	r[2].sport = 443;
	r[2].dport = 65535;
	r[2].post_sport = 1;
	r[2].post_dport = 2;
	r[2].packets = 3;
	r[2].octets = 4500;
	r[2].start_ms = 1;
	r[2].end_ms = UINT64_MAX;
	r[2].end_reason = MOD_IPFIX_END_EOF;
	r[2].fwd_status = 0xc3; /* consumed: for us */

	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 1, PEN), 0);
	assert_int_equal(mod_ipfix_enc_templates(&e), 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(mod_ipfix_enc_record(&e, &r[i]), 0);
	assert_int_equal(mod_ipfix_enc_records(&e), 3);
	len = mod_ipfix_enc_finish(&e, 5);
	assert_int_equal(len, 16 + 4 + 2 * (4 + 18 * 4 + 3 * 4) + 4 + 2 * mod_ipfix_rec_size(4) +
				      4 + mod_ipfix_rec_size(6));
	decode(s, buf, len);
	assert_int_equal(s->n_rec, 3);
	for (unsigned int i = 0; i < 3; i++)
		check_rec(&s->rec[i], &r[i]);
	assert_int_equal(mod_ipfix_rec_size(4), 65);
	assert_int_equal(mod_ipfix_rec_size(6), 113);
	assert_int_equal(mod_ipfix_rec_size(5), 0);
	free(s);
}

/* Records in separate sets when the template changes: v4, v6, v4 = three sets. */
static void
test_sets_and_sequence(void **state)
{
	struct dec_state *s = dec_new();
	struct mod_ipfix_enc e;
	struct mod_ipfix_rec r4 = rec4(9, 1), r6 = rec4(9, 1);
	uint8_t buf[400];
	unsigned int n = 0, total = 0;
	size_t len;

	(void)state;
	r6.family = 6;
	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 3, PEN), 0);
	/* Without templates the decoder needs them first: one message of them. */
	{
		uint8_t tb[1400];
		struct mod_ipfix_enc te;

		assert_int_equal(mod_ipfix_enc_init(&te, tb, sizeof(tb), 3, PEN), 0);
		assert_int_equal(mod_ipfix_enc_templates(&te), 0);
		decode(s, tb, mod_ipfix_enc_finish(&te, 1));
	}
	assert_int_equal(mod_ipfix_enc_record(&e, &r4), 0);
	assert_int_equal(mod_ipfix_enc_record(&e, &r6), 0);
	assert_int_equal(mod_ipfix_enc_record(&e, &r4), 0);
	len = mod_ipfix_enc_finish(&e, 2);
	assert_int_equal(len, 16 + 3 * 4 + 2 * 65 + 113);
	decode(s, buf, len);
	assert_int_equal(s->n_rec, 3);
	assert_int_equal(s->rec[1].tmpl, MOD_IPFIX_TMPL_V6);
	assert_int_equal(s->last_seq, 0);
	total = 3;

	/* Fill a small buffer: it takes what fits, refuses the rest unchanged. */
	while (mod_ipfix_enc_record(&e, &r4) == 0)
		n++;
	assert_int_equal(n, (sizeof(buf) - 16 - 4) / 65);
	assert_int_equal(mod_ipfix_enc_record(&e, &r6), -ENOSPC);
	assert_int_equal(mod_ipfix_enc_templates(&e), -ENOSPC);
	len = mod_ipfix_enc_finish(&e, 3);
	assert_int_equal(len, 16 + 4 + n * 65);
	decode(s, buf, len);
	assert_int_equal(s->n_rec, total + n);
	assert_int_equal(s->last_seq, total); /* records of the earlier messages */
	total += n;
	assert_int_equal(mod_ipfix_enc_record(&e, &r6), 0);
	decode(s, buf, mod_ipfix_enc_finish(&e, 4));
	assert_int_equal(s->last_seq, total);
	free(s);
}

/* One message checked byte for byte: header, set header, the first fields. */
static void
test_bytes(void **state)
{
	static const uint8_t want[] = {
		0x00, 0x0a, 0x00, 0x55,	      /* version 10, length 16 + 4 + 65 */
		0x65, 0x53, 0xf1, 0x00,	      /* export time 1700000000 */
		0x00, 0x00, 0x00, 0x00,	      /* sequence 0 */
		0x00, 0x00, 0x00, 0x07,	      /* domain 7 */
		0x01, 0x00, 0x00, 0x45,	      /* set 256, length 69 */
		10, 0, 0, 4, 192, 0, 2, 7,    /* addresses */
		0x03, 0xec, 0x00, 0x35, 17,   /* ports 1004, 53; UDP */
		203, 0, 113, 1, 192, 0, 2, 7, /* post-NAT addresses */
		0x4e, 0x24, 0x00, 0x35,	      /* post-NAT ports 20004, 53 */
		0, 0, 0, 0, 0, 0, 0x01, 0x90, /* octets 400 */
		0, 0, 0, 0, 0, 0, 0, 4,	      /* packets 4 */
	};
	struct mod_ipfix_enc e;
	struct mod_ipfix_rec r = rec4(4, 4);
	uint8_t buf[512];

	(void)state;
	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 7, PEN), 0);
	assert_int_equal(mod_ipfix_enc_record(&e, &r), 0);
	assert_int_equal(mod_ipfix_enc_finish(&e, 1700000000), 85);
	assert_memory_equal(buf, want, sizeof(want));
	/* The tail: times, reason, status, rule, drop reason, direction. */
	assert_int_equal(buf[85 - 8], MOD_IPFIX_END_IDLE);
	assert_int_equal(buf[85 - 7], MOD_IPFIX_FWD_FORWARDED);
	assert_int_equal(buf[85 - 3], 7);
}

static void
test_bad_args(void **state)
{
	struct mod_ipfix_enc e;
	struct mod_ipfix_rec r = rec4(1, 1);
	uint8_t buf[1400];

	(void)state;
	assert_int_equal(mod_ipfix_enc_init(NULL, buf, sizeof(buf), 0, PEN), -EINVAL);
	assert_int_equal(mod_ipfix_enc_init(&e, NULL, sizeof(buf), 0, PEN), -EINVAL);
	assert_int_equal(mod_ipfix_enc_init(&e, buf, MOD_IPFIX_MSG_MIN - 1, 0, PEN), -EINVAL);
	assert_int_equal(mod_ipfix_enc_init(&e, buf, 70000, 0, PEN), -EINVAL);
	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 0, 0), -EINVAL);
	assert_int_equal(mod_ipfix_enc_init(&e, buf, sizeof(buf), 0, PEN), 0);
	r.family = 5;
	assert_int_equal(mod_ipfix_enc_record(&e, &r), -EINVAL);
	assert_int_equal(mod_ipfix_enc_record(&e, NULL), -EINVAL);
	assert_int_equal(mod_ipfix_enc_record(NULL, &r), -EINVAL);
	assert_int_equal(mod_ipfix_enc_templates(NULL), -EINVAL);
	assert_false(mod_ipfix_enc_open(&e));
	assert_int_equal(mod_ipfix_enc_records(NULL), 0);
	assert_int_equal(mod_ipfix_enc_finish(NULL, 0), 0);
	assert_string_equal(mod_ipfix_end_name(MOD_IPFIX_END_ACTIVE), "active");
	assert_string_equal(mod_ipfix_end_name(0), "?");
	assert_string_equal(mod_ipfix_end_name(99), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_sets_and_sequence),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
