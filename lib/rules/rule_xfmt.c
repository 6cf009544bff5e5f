/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the values of extension options written back, the same way
 * by both rule languages (rule_xval_format()), so that every option read
 * by rule_xval_parse() (rule_xval.c) round-trips exactly.
 */
#include <string.h>

#include "rule_x_priv.h"

/* Write a NAT target as its language does. */
static void
buf_nat_target(struct rule_buf *b, const struct rule_nat *n, bool native)
{

	char lo[LEX_ADDR_STRLEN] = "", hi[LEX_ADDR_STRLEN] = "";
	bool range = memcmp(n->addr_min, n->addr_max, sizeof(n->addr_min)) != 0;
	bool v6 = n->family == FC_AF_INET6;

	if (n->family != 0) {
		lex_addr_format(n->family, n->addr_min, lo, sizeof(lo));
		lex_addr_format(n->family, n->addr_max, hi, sizeof(hi));
	}
	if (n->family == 0) {
		/* The port alone, the address kept: ":P[-Q]". */
	} else if (!v6 || (n->port_min == 0 && !native)) {
		rule_buf_printf(b, "%s%s%s", lo, range ? "-" : "", range ? hi : "");
	} else if (native) {
		rule_buf_printf(b, "[%s]", lo);
		if (range)
			rule_buf_printf(b, "-[%s]", hi);
	} else {
		rule_buf_printf(b, "[%s%s%s]", lo, range ? "-" : "", range ? hi : "");
	}
	if (n->port_min != 0) {
		rule_buf_printf(b, ":%u", n->port_min);
		if (n->port_max != n->port_min)
			rule_buf_printf(b, "-%u", n->port_max);
	}
}

/* ------------------------------------------------------------------------ */
/* Formatting                                                                */
/* ------------------------------------------------------------------------ */

static void
buf_name(struct rule_buf *b, const char *name, bool lower)
{
	for (const char *c = name; *c != '\0'; c++)
		rule_buf_printf(b, "%c",
			lower && *c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
}

static void
buf_names(struct rule_buf *b, const struct rule_xname *t, uint32_t set, bool lower)
{
	const char *sep = "";
	uint32_t done = 0;

	if (set == 0) {
		for (unsigned int i = 0; t[i].name != NULL; i++)
			if (t[i].value == 0) {
				buf_name(b, t[i].name, lower);
				return;
			}
	}
	for (unsigned int i = 0; t[i].name != NULL; i++) {
		uint32_t v = t[i].value;

		/* Single bits only, each once (aliases and "ALL" are read, not written). */
		if (v == 0 || (v & (v - 1)) != 0 || !(set & v) || (done & v))
			continue;
		done |= v;
		rule_buf_printf(b, "%s", sep);
		buf_name(b, t[i].name, lower);
		sep = ",";
	}
}

static void
buf_range(struct rule_buf *b, const struct rule_xopt *o, const uint8_t *at)
{
	uint64_t lo = rx_get(at, o->size), hi = rx_get(at + o->size, o->size);

	/* With @c arg 1 a lone number is a lower bound (p_range()). */
	if (o->arg == 1 ? hi == rx_width_max(o->size) : lo == hi)
		rule_buf_printf(b, "%llu", (unsigned long long)lo);
	else
		rule_buf_printf(b, "%llu:%llu", (unsigned long long)lo, (unsigned long long)hi);
}

static void
buf_string(struct rule_buf *b, const char *s, bool native)
{
	/* Both languages read "..." with \" and \\ escaped. */
	(void)native;
	rule_buf_printf(b, "\"");
	for (const char *c = s; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			rule_buf_printf(b, "\\%c", *c);
		else
			rule_buf_printf(b, "%c", *c);
	}
	rule_buf_printf(b, "\"");
}

/*
 * A string match's pattern as iptables-save writes it: "|hex|" when
 * rule_x_str_hex() says so, else the text with '"' and '\\' escaped.
 */
static void
buf_strpat(struct rule_buf *b, const struct rule_x_string *st)
{
	rule_buf_printf(b, "\"");
	if (rule_x_str_hex(st->pat, st->len)) {
		rule_buf_printf(b, "|");
		for (unsigned int i = 0; i < st->len && i < RULE_STR_MAX; i++)
			rule_buf_printf(b, "%02x", st->pat[i]);
		rule_buf_printf(b, "|");
	} else {
		for (unsigned int i = 0; i < st->len && i < RULE_STR_MAX; i++) {
			if (st->pat[i] == '"' || st->pat[i] == '\\')
				rule_buf_printf(b, "\\");
			rule_buf_printf(b, "%c", st->pat[i]);
		}
	}
	rule_buf_printf(b, "\"");
}

/* A byte count in the largest of b, kb, mb, gb that writes it exactly. */
static void
buf_bytes(struct rule_buf *b, uint64_t n, const char *tail)
{
	static const char *const units[] = {"", "k", "m", "g"};
	unsigned int u = 0;

	while (u + 1 < RTE_DIM(units) && n != 0 && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	rule_buf_printf(b, "%llu%s%s", (unsigned long long)n, units[u], tail);
}

static void
buf_setref(struct rule_buf *b, const struct rule_x_set *sr)
{
	rule_buf_printf(b, "%s ", sr->name);
	for (unsigned int i = 0; i < sr->ndims; i++)
		rule_buf_printf(b, "%s%s", i ? "," : "", (sr->dirs >> i) & 1 ? "dst" : "src");
}

void
rule_xval_format(struct rule_buf *b, const struct rule_xopt *o, const struct rule *r,
	const struct rule_x *x, bool native)
{
	const uint8_t *at = (const uint8_t *)x + o->off;
	bool lower = native || (o->flags & XO_LOWER);
	char a[LEX_ADDR_STRLEN] = "", c[LEX_ADDR_STRLEN] = "";
	uint8_t fam = r->family != 0 ? r->family : FC_AF_INET4;

	switch (o->vt) {
	case VT_FLAG:
	case VT_SYN:
	case VT_NATFLAG:
		return;
	case VT_NAT_TO:
		buf_nat_target(b, &r->nat, native);
		return;
	default:
		break;
	}
	switch (o->vt) {
	case VT_UINT:
		rule_buf_printf(b, "%llu", (unsigned long long)rx_get(at, o->size));
		break;
	case VT_HEX:
		rule_buf_printf(b, "0x%llx", (unsigned long long)rx_get(at, o->size));
		break;
	case VT_MARK:
		rule_buf_printf(b, "0x%x", (unsigned int)rx_get(at, 4));
		if (rx_get(at + 4, 4) != UINT32_MAX)
			rule_buf_printf(b, "/0x%x", (unsigned int)rx_get(at + 4, 4));
		break;
	case VT_XMARK:
		rule_buf_printf(b, "0x%x/0x%x", (unsigned int)rx_get(at, 4), (unsigned int)rx_get(at + 4, 4));
		break;
	case VT_TOS:
		rule_buf_printf(b, "0x%02x/0x%02x", at[0], at[1]);
		break;
	case VT_RANGE:
		buf_range(b, o, at);
		break;
	case VT_NAMES:
		buf_names(b, o->names, (uint32_t)rx_get(at, o->size), lower);
		break;
	case VT_NAME: {
		uint64_t v = rx_get(at, o->size);
		unsigned int i;

		for (i = 0; o->names[i].name != NULL; i++)
			if (o->names[i].value == v)
				break;
		if (o->names[i].name != NULL)
			buf_name(b, o->names[i].name, lower);
		else
			rule_buf_printf(b, "%llu", (unsigned long long)v);
		break;
	}
	case VT_STR:
		buf_string(b, (const char *)at, native);
		break;
	case VT_STRPAT:
		buf_strpat(b, (const struct rule_x_string *)(const void *)at);
		break;
	case VT_U32:
		rule_u32_format(b, (const struct rule_x_u32 *)(const void *)at);
		break;
	case VT_BPF:
		rule_bpf_format(b, (const struct rule_x_bpf *)(const void *)at);
		break;
	case VT_PREFIX: {
		const struct rule_prefix *pf = (const void *)at;

		lex_addr_format(fam, pf->addr, a, sizeof(a));
		rule_buf_printf(b, "%s", a);
		if (pf->len != fc_af_max_depth(fam))
			rule_buf_printf(b, "/%u", pf->len);
		break;
	}
	case VT_ADDR:
		lex_addr_format(fam, at, a, sizeof(a));
		rule_buf_printf(b, "%s", a);
		break;
	case VT_ARANGE:
		lex_addr_format(fam, at, a, sizeof(a));
		lex_addr_format(fam, at + 16, c, sizeof(c));
		rule_buf_printf(b, "%s-%s", a, c);
		break;
	case VT_MAC:
		rule_buf_printf(b, "%02X:%02X:%02X:%02X:%02X:%02X", at[0], at[1], at[2], at[3],
			at[4], at[5]);
		break;
	case VT_RATE:
		if (at[4] == RULE_RATE_BYTES) {
			buf_bytes(b, rx_get(at, 4), "b/s");
			break;
		}
		rule_buf_printf(b, "%u/%s", (unsigned int)rx_get(at, 4),
			at[4] < RTE_DIM(rx_rate_units) ? rx_rate_units[at[4]] : "sec");
		break;
	case VT_HLBURST:
		if (x->u.hashlimit.unit == RULE_RATE_BYTES)
			buf_bytes(b, rx_get(at, 4), "b");
		else
			rule_buf_printf(b, "%llu", (unsigned long long)rx_get(at, 4));
		break;
	case VT_PROB:
		rule_buf_printf(b, "%.11f", (double)rx_get(at, 4) / 2147483648.0);
		break;
	case VT_ICMP: {
		const struct rule_x_icmp *ic = (const void *)at;

		if (ic->any)
			rule_buf_printf(b, "any");
		else if (ic->code_min == 0 && ic->code_max == 0xff)
			rule_buf_printf(b, "%u", ic->type);
		else
			rule_buf_printf(b, "%u/%u", ic->type, ic->code_min);
		break;
	}
	case VT_TCPFLAGS:
		buf_names(b, rx_xn_tcpflags, at[0], lower);
		rule_buf_printf(b, " ");
		buf_names(b, rx_xn_tcpflags, at[1], lower);
		break;
	case VT_SETREF:
		buf_setref(b, (const struct rule_x_set *)(const void *)at);
		break;
	case VT_CHUNKS: {
		const struct rule_x_sctp *cs = (const void *)at;
		const char *sep = "";
		bool any = false;

		buf_name(b, rx_xn_chunkmode[cs->mode < 3 ? cs->mode : 0].name, false);
		rule_buf_printf(b, " ");
		for (unsigned int v = 0; v < 256; v++) {
			if (!(cs->chunks[v / 8] & (1u << (v % 8))))
				continue;
			for (unsigned int i = 0; rx_xn_chunks[i].name != NULL; i++)
				if (rx_xn_chunks[i].value == v) {
					rule_buf_printf(b, "%s", sep);
					buf_name(b, rx_xn_chunks[i].name, lower);
					sep = ",";
					any = true;
				}
		}
		if (!any)
			buf_name(b, "NONE", lower);
		break;
	}
	case VT_TOD: {
		unsigned int t = (unsigned int)rx_get(at, 4);

		rule_buf_printf(b, "%02u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
		break;
	}
	case VT_DATE: {
		/* As iptables-save writes it: the ISO 8601 "T" form, UTC. */
		uint32_t t = (uint32_t)rx_get(at, 4);
		int64_t z = (int64_t)(t / 86400) + 719468;
		int64_t era = z / 146097;
		unsigned int doe = (unsigned int)(z - era * 146097);
		unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
		unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
		unsigned int mp = (5 * doy + 2) / 153;
		unsigned int d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
		int64_t y = (int64_t)yoe + era * 400 + (m <= 2);

		rule_buf_printf(b, "%04lld-%02u-%02uT%02u:%02u:%02u", (long long)y, m, d,
			t % 86400 / 3600, t % 3600 / 60, t % 60);
		break;
	}
	case VT_CLASS: {
		unsigned int cl = (unsigned int)rx_get(at, 4);

		rule_buf_printf(b, "%04x:%04x", cl >> 16, cl & 0xffff);
		break;
	}
	case VT_PROTO: {
		const char *pn = rule_proto_name(at[0]);

		if (pn != NULL)
			rule_buf_printf(b, "%s", pn);
		else
			rule_buf_printf(b, "%u", at[0]);
		break;
	}
	case VT_NAT_PORTS:
		rule_buf_printf(b, "%u", r->nat.port_min);
		if (r->nat.port_max != r->nat.port_min)
			rule_buf_printf(b, "-%u", r->nat.port_max);
		break;
	case VT_NETMAP: {
		unsigned int len = 0, nb = fc_af_addr_len(r->nat.family);

		while (len < nb * 8 &&
			((r->nat.addr_min[len / 8] ^ r->nat.addr_max[len / 8]) & (0x80 >> (len % 8))) ==
				0)
			len++;
		lex_addr_format(r->nat.family, r->nat.addr_min, a, sizeof(a));
		rule_buf_printf(b, "%s/%u", a, len);
		break;
	}
	default:
		break;
	}
}

/* The option as written back (a pattern needing hex: --hex-string). */
const struct rule_xopt *
rule_x_opt_written(const struct rule_x *x, unsigned int i)
{
	const struct rule_xopt *o = &rule_xkinds[x->kind].o[i];

	if (o->vt == VT_STRPAT && rule_x_str_hex(x->u.str.pat, x->u.str.len))
		return o + 1;
	return o;
}

void
rule_x_nat_format(struct rule_buf *b, const struct rule *r, bool native)
{
	const struct rule_xkind *k = &rule_xkinds[rule_x_kind_of_action(r->action)];
	struct rule_x none;

	memset(&none, 0, sizeof(none));
	for (unsigned int i = 0; i < k->n; i++) {
		const struct rule_xopt *o = &k->o[i];
		const char *name = native ? o->nat : o->ipt;

		if (o->vt == VT_NATFLAG) {
			if (r->nat.flags & o->arg)
				rule_buf_printf(b, " %s", name);
			continue;
		}
		if ((o->vt == VT_NAT_PORTS && r->nat.port_min == 0) ||
			(o->vt == VT_NAT_TO && r->nat.family == 0 && r->nat.port_min == 0) ||
			(o->vt == VT_NETMAP && r->nat.family == 0))
			continue;
		rule_buf_printf(b, " %s ", name);
		rule_xval_format(b, o, r, &none, native);
	}
}
