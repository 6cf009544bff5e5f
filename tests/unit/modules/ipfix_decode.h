/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small IPFIX decoder of the tests' own (not lib/modules/ipfix's code):
 * reads messages (RFC 7011 §3), learns templates from template sets and
 * decodes data records by them into field lists, so the encoder and the
 * module are checked against the wire format, not against themselves.
 */
#ifndef GUFC_TEST_IPFIX_DECODE_H
#define GUFC_TEST_IPFIX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEC_MAX_FIELDS 32
#define DEC_MAX_TMPL   4
#define DEC_MAX_RECS   256

struct dec_field {
	uint16_t ie; /**< without the enterprise bit */
	uint16_t len;
	uint32_t pen; /**< 0: IANA */
};

struct dec_tmpl {
	uint16_t id;
	uint16_t n;
	struct dec_field f[DEC_MAX_FIELDS];
};

/** A decoded data record: the template's fields and their bytes. */
struct dec_rec {
	uint16_t tmpl;
	uint32_t msg_seq; /**< sequence number of its message */
	uint16_t n;
	struct dec_field f[DEC_MAX_FIELDS];
	uint8_t v[DEC_MAX_FIELDS][16];
};

struct dec_state {
	struct dec_tmpl tmpl[DEC_MAX_TMPL];
	unsigned int n_tmpl;
	unsigned int tmpl_sets; /**< template sets seen */
	struct dec_rec rec[DEC_MAX_RECS];
	unsigned int n_rec;
	unsigned int messages;
	uint32_t last_export;
	uint32_t last_seq;
	uint32_t last_domain;
};

/** Decode one message into @p s. @return 0, or -1 with a reason in @p why. */
int dec_message(struct dec_state *s, const uint8_t *msg, size_t len, const char **why);

/** Field @p ie (IANA, or @p pen's) of a record as an unsigned number; false if absent. */
bool dec_u64(const struct dec_rec *r, uint16_t ie, uint32_t pen, uint64_t *v);

/** Field @p ie's bytes (addresses); NULL if absent. @p len receives its length. */
const uint8_t *dec_bytes(const struct dec_rec *r, uint16_t ie, uint16_t *len);

#endif /* GUFC_TEST_IPFIX_DECODE_H */
