/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save import, the values of a rule line's own
 * options — addresses and prefixes (-s/-d), protocols (-p), interfaces
 * (-i/-o), ports (--sport/--dport, multiport), conntrack states, counters.
 * Numbers, addresses, prefixes and port lists are read by the lexical
 * toolkit in iptables' forms; errors quote the whole word. rule_ipt.c puts
 * them into rules; the values of extension options are rule_xval.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rule_ipt_priv.h"

/* Any decimal counter (packets, bytes): digits only. */
bool
rule_ipt_counter_valid(const char *s, size_t len)
{
	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

uint64_t
rule_ipt_counter(const char *s)
{
	return strtoull(s, NULL, 10);
}

/* "[packets:bytes]" */
bool
rule_ipt_counters(const char *s, uint64_t *pkts, uint64_t *bytes)
{
	size_t n = strlen(s);
	const char *colon;

	if (n < 5 || s[0] != '[' || s[n - 1] != ']')
		return false;
	colon = memchr(s, ':', n);
	if (colon == NULL || !rule_ipt_counter_valid(s + 1, (size_t)(colon - s - 1)) ||
		!rule_ipt_counter_valid(colon + 1, (size_t)(s + n - 1 - colon - 1)))
		return false;
	*pkts = strtoull(s + 1, NULL, 10);
	*bytes = strtoull(colon + 1, NULL, 10);
	return true;
}

/* Fix the file's family at the first address, or check it. */
int
rule_ipt_family(struct ipt *p, const struct lex_tok *a, uint8_t family)
{
	if (p->family == 0) {
		p->family = family;
		return 0;
	}
	if (p->family == family)
		return 0;
	return rule_ipt_err(p, a,
		family == FC_AF_INET6 ? "IPv6 address in an IPv4 rule set"
				      : "IPv4 address in an IPv6 rule set");
}

/*
 * -s/-d value: ADDR, ADDR/LEN or ADDR/MASK; host bits are cleared, as
 * iptables does ("bad address", "bad prefix length", "bad netmask",
 * "non-contiguous netmasks are not supported").
 */
int
rule_ipt_prefix(struct ipt *p, const struct lex_tok *a, struct rule *r, struct rule_prefix *pf)
{
	struct lex_prefix lp;
	struct lex_fault f;
	int rc;

	if (strchr(a->s, ',') != NULL)
		return rule_ipt_err(p, a, "address lists are not supported");
	if (lex_prefix(a->s, strlen(a->s),
		    LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK | LEX_PFX_NO_LEAD_ZERO | LEX_PFX_IPT_V4, &lp,
		    &f) != 0)
		return rule_ipt_err(p, a, lex_code_text(f.code));
	memcpy(pf->addr, lp.addr, sizeof(pf->addr));
	pf->len = lp.len;
	rc = rule_ipt_family(p, a, lp.family);
	if (rc < 0)
		return rc;
	r->family = lp.family;
	return 0;
}

/* -p value: a name (any case) or a number 0..255; 0 and "all" mean any. */
int
rule_ipt_proto(struct ipt *p, const struct lex_tok *a, int *proto)
{
	int n = rule_proto_lookup(a->s);

	if (n < 0)
		return rule_ipt_err(p, a, "unknown protocol");
	*proto = n;
	return 0;
}

/* -i/-o: iptables' interface names (a '+' at the end: any name with this start). */
int
rule_ipt_iface(struct ipt *p, const struct lex_tok *a, char *out)
{
	size_t n = strlen(a->s);

	if (n == 0 || n >= RULE_IFNAME_MAX)
		return rule_ipt_err(p, a, "bad interface name");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a->s[i];

		if (c <= 0x20 || c >= 0x7f || c == '/' || c == '"' || c == '\\' || c == '#' ||
			c == '!' || (c == '+' && i != n - 1))
			return rule_ipt_err(p, a, "bad interface name");
	}
	memcpy(out, a->s, n + 1);
	return 0;
}

/*
 * Port values: numbers, or service names as iptables reads them from
 * /etc/services (lex_service_port(): a built-in table of the common
 * names, so a set reads the same on any host); the whole word quoted on
 * error: "bad port", "bad port range", "too many ports".
 */
static int
ports_parse(struct ipt *p, const struct lex_tok *a, const struct lex_port_syntax *sx,
	struct rule_ports *pp)
{
	struct lex_port_range lr[RULE_PORTS_MAX];
	struct lex_fault f;
	unsigned int n;

	memset(pp, 0, sizeof(*pp));
	if (lex_ports(sx, a->s, strlen(a->s), lr, &n, &f) != 0)
		return rule_ipt_err(p, a, f.code == LEX_E_EMPTY_ITEM ? lex_code_text(LEX_E_BAD_PORT) :
									lex_code_text(f.code));
	for (unsigned int i = 0; i < n; i++) {
		pp->r[i].lo = lr[i].lo;
		pp->r[i].hi = lr[i].hi;
	}
	pp->n = (uint16_t)n;
	return 0;
}

/* --sport/--dport value: P, P:Q, P:, :Q or ":" (iptables' tcp/udp/sctp matches). */
int
rule_ipt_portrange(struct ipt *p, const struct lex_tok *a, struct rule_ports *pp)
{
	return ports_parse(p, a, &lex_ports_ipt, pp);
}

/* Multiport list: P or P:Q (P < Q), comma separated, at most 15 ports (a range counts two). */
int
rule_ipt_portlist(struct ipt *p, const struct lex_tok *a, struct rule_ports *pp)
{
	return ports_parse(p, a, &lex_ports_ipt_multi, pp);
}

/* --ctstate / --state value: comma-separated state names, any case. */
int
rule_ipt_ctstate(struct ipt *p, const struct lex_tok *a, uint8_t *set)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} states[] = {
		{"NEW", RULE_CT_NEW},
		{"ESTABLISHED", RULE_CT_ESTABLISHED},
		{"RELATED", RULE_CT_RELATED},
		{"INVALID", RULE_CT_INVALID},
		{"UNTRACKED", RULE_CT_UNTRACKED},
		{"SNAT", RULE_CT_SNAT},
		{"DNAT", RULE_CT_DNAT},
	};
	const char *c = a->s;

	*set = 0;
	for (;;) {
		size_t len = strcspn(c, ",");
		size_t i;

		for (i = 0; i < RTE_DIM(states); i++)
			if (strlen(states[i].name) == len &&
				strncasecmp(states[i].name, c, len) == 0)
				break;
		if (i == RTE_DIM(states))
			return rule_ipt_err(p, a, "bad conntrack state");
		*set |= states[i].bit;
		if (c[len] == '\0')
			return 0;
		c += len + 1;
	}
}

/* ------------------------------------------------------------------------ */
/* Port sets as bitmaps (multiport conjunctions)                             */
/* ------------------------------------------------------------------------ */

void
rule_ipt_bm_set(uint64_t *bm, const struct rule_ports *l)
{
	memset(bm, 0, RULE_IPT_PORT_WORDS * sizeof(*bm));
	for (unsigned int i = 0; i < l->n; i++)
		for (uint32_t v = l->r[i].lo; v <= l->r[i].hi; v++)
			bm[v / 64] |= 1ull << (v % 64);
}

static bool
bm_get(const uint64_t *bm, uint32_t v)
{
	return (bm[v / 64] >> (v % 64)) & 1;
}

/* Runs of ports whose bit is @val; the first RULE_PORTS_MAX go to @out. */
unsigned int
rule_ipt_bm_runs(const uint64_t *bm, bool val, struct rule_ports *out)
{
	unsigned int n = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t v = 0; v < 65536;) {
		uint32_t lo;

		if (bm_get(bm, v) != val) {
			v++;
			continue;
		}
		lo = v;
		while (v < 65536 && bm_get(bm, v) == val)
			v++;
		if (n < RULE_PORTS_MAX) {
			out->r[n].lo = (uint16_t)lo;
			out->r[n].hi = (uint16_t)(v - 1);
		}
		n++;
	}
	out->n = (uint16_t)(n < RULE_PORTS_MAX ? n : RULE_PORTS_MAX);
	return n;
}
