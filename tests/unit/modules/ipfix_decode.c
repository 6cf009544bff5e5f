/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' IPFIX decoder (ipfix_decode.h): message header checks, template
 * sets learnt, data sets decoded field by field; anything inconsistent
 * (lengths, unknown template, trailing bytes) is an error.
 */
#include <string.h>

#include "ipfix_decode.h"

static uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
rd32(const uint8_t *p)
{
	return rd16(p) << 16 | rd16(p + 2);
}

static struct dec_tmpl *
tmpl_find(struct dec_state *s, uint16_t id)
{
	for (unsigned int i = 0; i < s->n_tmpl; i++)
		if (s->tmpl[i].id == id)
			return &s->tmpl[i];
	return NULL;
}

static int
tmpl_set(struct dec_state *s, const uint8_t *p, size_t len, const char **why)
{
	size_t off = 0;

	s->tmpl_sets++;
	while (off + 4 <= len) {
		struct dec_tmpl t;

		memset(&t, 0, sizeof(t));
		t.id = (uint16_t)rd16(p + off);
		t.n = (uint16_t)rd16(p + off + 2);
		off += 4;
		if (t.id < 256 || t.n == 0 || t.n > DEC_MAX_FIELDS) {
			*why = "bad template header";
			return -1;
		}
		for (unsigned int i = 0; i < t.n; i++) {
			if (off + 4 > len) {
				*why = "template truncated";
				return -1;
			}
			t.f[i].ie = (uint16_t)(rd16(p + off) & 0x7fff);
			t.f[i].len = (uint16_t)rd16(p + off + 2);
			if (rd16(p + off) & 0x8000) {
				if (off + 8 > len) {
					*why = "enterprise number truncated";
					return -1;
				}
				t.f[i].pen = rd32(p + off + 4);
				off += 4;
			}
			if (t.f[i].len == 0 || t.f[i].len > 16) {
				*why = "field length";
				return -1;
			}
			off += 4;
		}
		if (tmpl_find(s, t.id) != NULL)
			*tmpl_find(s, t.id) = t;
		else if (s->n_tmpl < DEC_MAX_TMPL)
			s->tmpl[s->n_tmpl++] = t;
	}
	if (off != len) {
		*why = "template set has trailing bytes";
		return -1;
	}
	return 0;
}

static int
data_set(struct dec_state *s, uint16_t id, const uint8_t *p, size_t len, uint32_t seq,
	const char **why)
{
	const struct dec_tmpl *t = tmpl_find(s, id);
	size_t rlen = 0, off = 0;

	if (t == NULL) {
		*why = "data set of an unknown template";
		return -1;
	}
	for (unsigned int i = 0; i < t->n; i++)
		rlen += t->f[i].len;
	while (off + rlen <= len) {
		struct dec_rec *r;

		if (s->n_rec == DEC_MAX_RECS) {
			*why = "too many records for the test decoder";
			return -1;
		}
		r = &s->rec[s->n_rec++];
		memset(r, 0, sizeof(*r));
		r->tmpl = id;
		r->msg_seq = seq;
		r->n = t->n;
		for (unsigned int i = 0; i < t->n; i++) {
			r->f[i] = t->f[i];
			memcpy(r->v[i], p + off, t->f[i].len);
			off += t->f[i].len;
		}
	}
	if (off != len) {
		*why = "data set has trailing bytes";
		return -1;
	}
	return 0;
}

int
dec_message(struct dec_state *s, const uint8_t *msg, size_t len, const char **why)
{
	size_t off = 16;

	if (len < 16 || rd16(msg) != 10) {
		*why = "not an IPFIX message";
		return -1;
	}
	if (rd16(msg + 2) != len) {
		*why = "message length field";
		return -1;
	}
	s->messages++;
	s->last_export = rd32(msg + 4);
	s->last_seq = rd32(msg + 8);
	s->last_domain = rd32(msg + 12);
	while (off < len) {
		uint16_t id, slen;

		if (off + 4 > len) {
			*why = "set header truncated";
			return -1;
		}
		id = (uint16_t)rd16(msg + off);
		slen = (uint16_t)rd16(msg + off + 2);
		if (slen < 4 || off + slen > len) {
			*why = "set length";
			return -1;
		}
		if (id == 2) {
			if (tmpl_set(s, msg + off + 4, slen - 4u, why) != 0)
				return -1;
		} else if (id >= 256) {
			if (data_set(s, id, msg + off + 4, slen - 4u, s->last_seq, why) != 0)
				return -1;
		} else {
			*why = "unexpected set id";
			return -1;
		}
		off += slen;
	}
	return 0;
}

bool
dec_u64(const struct dec_rec *r, uint16_t ie, uint32_t pen, uint64_t *v)
{
	for (unsigned int i = 0; i < r->n; i++) {
		if (r->f[i].ie != ie || r->f[i].pen != pen)
			continue;
		*v = 0;
		for (unsigned int b = 0; b < r->f[i].len; b++)
			*v = *v << 8 | r->v[i][b];
		return true;
	}
	return false;
}

const uint8_t *
dec_bytes(const struct dec_rec *r, uint16_t ie, uint16_t *len)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (r->f[i].ie == ie && r->f[i].pen == 0) {
			*len = r->f[i].len;
			return r->v[i];
		}
	return NULL;
}
