/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/ipfix: the encoder (pure C, no EAL) — IPFIX messages (RFC
 * 7011 §3: message header, sets, template records, data records) of the two
 * templates ipfix.h lists. Big-endian writes into the caller's buffer; a
 * record that does not fit leaves the message as it was (-ENOSPC).
 */
#include <errno.h>
#include <string.h>

#include "ipfix.h"

#define IPFIX_VERSION	10
#define SET_ID_TEMPLATE 2
#define IE_ENTERPRISE	0x8000

/** One field specifier: element id, length, enterprise (0: IANA). */
struct ipfix_field {
	uint16_t ie;
	uint16_t len;
	bool ent;
};

/* The template fields in record order; addresses' lengths are per family. */
#define ADDR_LEN 0 /* placeholder: 4 or 16 */
static const struct ipfix_field fields[] = {
	{8, ADDR_LEN, false},	/* sourceIPv4Address / sourceIPv6Address (27) */
	{12, ADDR_LEN, false},	/* destinationIPv4Address / destinationIPv6Address (28) */
	{7, 2, false},		/* sourceTransportPort */
	{11, 2, false},		/* destinationTransportPort */
	{4, 1, false},		/* protocolIdentifier */
	{225, ADDR_LEN, false}, /* postNATSourceIPv4Address / postNATSourceIPv6Address (281) */
	{226, ADDR_LEN, false}, /* postNATDestinationIPv4Address / ...IPv6Address (282) */
	{227, 2, false},	/* postNAPTSourceTransportPort */
	{228, 2, false},	/* postNAPTDestinationTransportPort */
	{1, 8, false},		/* octetDeltaCount */
	{2, 8, false},		/* packetDeltaCount */
	{152, 8, false},	/* flowStartMilliseconds */
	{153, 8, false},	/* flowEndMilliseconds */
	{136, 1, false},	/* flowEndReason */
	{89, 1, false},		/* forwardingStatus */
	{MOD_IPFIX_IE_RULE_ID, 4, true},
	{MOD_IPFIX_IE_DROP_REASON, 1, true},
	{MOD_IPFIX_IE_DIRECTION, 1, true},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The IPv6 element ids of the four address fields (by position). */
static uint16_t
field_ie(unsigned int i, unsigned int family)
{
	if (family != 6)
		return fields[i].ie;
	switch (fields[i].ie) {
	case 8:
		return 27;
	case 12:
		return 28;
	case 225:
		return 281;
	case 226:
		return 282;
	default:
		return fields[i].ie;
	}
}

static uint16_t
field_len(unsigned int i, unsigned int family)
{
	return fields[i].len == ADDR_LEN ? (family == 6 ? 16 : 4) : fields[i].len;
}

size_t
mod_ipfix_rec_size(unsigned int family)
{
	size_t n = 0;

	if (family != 4 && family != 6)
		return 0;
	for (unsigned int i = 0; i < N_FIELDS; i++)
		n += field_len(i, family);
	return n;
}

/* Template record of one family: header + specifiers (+ enterprise numbers). */
static size_t
tmpl_size(void)
{
	size_t n = 4;

	for (unsigned int i = 0; i < N_FIELDS; i++)
		n += fields[i].ent ? 8 : 4;
	return n;
}

const char *
mod_ipfix_end_name(unsigned int reason)
{
	static const char *const names[] = {
		[MOD_IPFIX_END_IDLE] = "idle",
		[MOD_IPFIX_END_ACTIVE] = "active",
		[MOD_IPFIX_END_EOF] = "eof",
		[MOD_IPFIX_END_FORCED] = "forced",
		[MOD_IPFIX_END_RESOURCES] = "resources",
	};

	if (reason >= sizeof(names) / sizeof(names[0]) || names[reason] == NULL)
		return "?";
	return names[reason];
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

static uint8_t *
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *
put32(uint8_t *p, uint32_t v)
{
	p = put16(p, (uint16_t)(v >> 16));
	return put16(p, (uint16_t)v);
}

static uint8_t *
put64(uint8_t *p, uint64_t v)
{
	p = put32(p, (uint32_t)(v >> 32));
	return put32(p, (uint32_t)v);
}

int
mod_ipfix_enc_init(struct mod_ipfix_enc *e, void *buf, size_t cap, uint32_t domain, uint32_t pen)
{
	if (e == NULL || buf == NULL || cap < MOD_IPFIX_MSG_MIN || cap > UINT16_MAX || pen == 0)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->buf = buf;
	e->cap = (uint32_t)cap;
	e->domain = domain;
	e->pen = pen;
	return 0;
}

/* Close the open set: write its length. */
static void
set_close(struct mod_ipfix_enc *e)
{
	if (e->set_off == 0)
		return;
	put16(e->buf + e->set_off + 2, (uint16_t)(e->len - e->set_off));
	e->set_off = 0;
	e->set_id = 0;
}

/*
 * Make room for @p need bytes in a set of id @p set_id: open the message and
 * the set when needed. @return the write position, or NULL (no room: nothing
 * changed).
 */
static uint8_t *
reserve(struct mod_ipfix_enc *e, uint16_t set_id, size_t need)
{
	size_t len = e->len ? e->len : MOD_IPFIX_HDR_LEN;
	bool new_set = e->len == 0 || e->set_id != set_id;

	if (new_set)
		need += MOD_IPFIX_SET_HDR_LEN;
	if (len + need > e->cap)
		return NULL;
	if (e->len == 0) {
		e->len = MOD_IPFIX_HDR_LEN;
		e->n_recs = 0;
		e->has_tmpl = false;
	}
	if (new_set) {
		set_close(e);
		e->set_off = e->len;
		e->set_id = set_id;
		put16(e->buf + e->len, set_id);
		put16(e->buf + e->len + 2, 0);
		e->len += MOD_IPFIX_SET_HDR_LEN;
	}
	return e->buf + e->len;
}

static uint8_t *
tmpl_write(const struct mod_ipfix_enc *e, uint8_t *p, unsigned int family)
{
	p = put16(p, family == 6 ? MOD_IPFIX_TMPL_V6 : MOD_IPFIX_TMPL_V4);
	p = put16(p, (uint16_t)N_FIELDS);
	for (unsigned int i = 0; i < N_FIELDS; i++) {
		p = put16(p, (uint16_t)(field_ie(i, family) | (fields[i].ent ? IE_ENTERPRISE : 0)));
		p = put16(p, field_len(i, family));
		if (fields[i].ent)
			p = put32(p, e->pen);
	}
	return p;
}

int
mod_ipfix_enc_templates(struct mod_ipfix_enc *e)
{
	size_t need = 2 * tmpl_size();
	uint8_t *p;

	if (e == NULL || e->buf == NULL)
		return -EINVAL;
	p = reserve(e, SET_ID_TEMPLATE, need);
	if (p == NULL)
		return -ENOSPC;
	p = tmpl_write(e, p, 4);
	p = tmpl_write(e, p, 6);
	e->len = (uint32_t)(p - e->buf);
	e->has_tmpl = true;
	return 0;
}

int
mod_ipfix_enc_record(struct mod_ipfix_enc *e, const struct mod_ipfix_rec *r)
{
	unsigned int alen;
	uint8_t *p;

	if (e == NULL || e->buf == NULL || r == NULL || (r->family != 4 && r->family != 6))
		return -EINVAL;
	alen = r->family == 6 ? 16 : 4;
	p = reserve(e, r->family == 6 ? MOD_IPFIX_TMPL_V6 : MOD_IPFIX_TMPL_V4,
		mod_ipfix_rec_size(r->family));
	if (p == NULL)
		return -ENOSPC;
	memcpy(p, r->src, alen);
	p += alen;
	memcpy(p, r->dst, alen);
	p += alen;
	p = put16(p, r->sport);
	p = put16(p, r->dport);
	*p++ = r->proto;
	memcpy(p, r->post_src, alen);
	p += alen;
	memcpy(p, r->post_dst, alen);
	p += alen;
	p = put16(p, r->post_sport);
	p = put16(p, r->post_dport);
	p = put64(p, r->octets);
	p = put64(p, r->packets);
	p = put64(p, r->start_ms);
	p = put64(p, r->end_ms);
	*p++ = r->end_reason;
	*p++ = r->fwd_status;
	p = put32(p, r->rule_id);
	*p++ = r->drop_reason;
	*p++ = r->reply;
	e->len = (uint32_t)(p - e->buf);
	e->n_recs++;
	return 0;
}

uint32_t
mod_ipfix_enc_records(const struct mod_ipfix_enc *e)
{
	return e != NULL && e->len != 0 ? e->n_recs : 0;
}

bool
mod_ipfix_enc_open(const struct mod_ipfix_enc *e)
{
	return e != NULL && e->len != 0;
}

size_t
mod_ipfix_enc_finish(struct mod_ipfix_enc *e, uint32_t export_s)
{
	size_t len;
	uint8_t *p;

	if (e == NULL || e->len == 0)
		return 0;
	set_close(e);
	len = e->len;
	p = put16(e->buf, IPFIX_VERSION);
	p = put16(p, (uint16_t)len);
	p = put32(p, export_s);
	p = put32(p, e->seq);
	put32(p, e->domain);
	e->seq += e->n_recs;
	e->n_recs = 0;
	e->len = 0;
	return len;
}
