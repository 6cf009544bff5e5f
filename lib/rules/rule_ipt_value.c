/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save import, the values of a rule line — addresses and
 * prefixes (-s/-d), protocols (-p), ports (--sport/--dport, multiport),
 * conntrack states, NAT targets (--to-*), counters. Numbers, addresses,
 * prefixes and port lists are read by the lexical toolkit in iptables'
 * forms; errors quote the whole word. rule_ipt.c puts them into rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rule_ipt_priv.h"

/* Protocol names iptables-save may print (netbase's /etc/protocols) and aliases. */
static const struct {
	const char *name;
	uint8_t number;
} ipt_protos[] = {
	/* clang-format off */
	{"all", 0}, {"icmp", 1}, {"igmp", 2}, {"ggp", 3}, {"ipencap", 4}, {"st", 5},
	{"tcp", 6}, {"egp", 8}, {"igp", 9}, {"pup", 12}, {"udp", 17}, {"hmp", 20},
	{"xns-idp", 22}, {"rdp", 27}, {"iso-tp4", 29}, {"dccp", 33}, {"xtp", 36},
	{"ddp", 37}, {"idpr-cmtp", 38}, {"ipv6", 41}, {"ipv6-route", 43},
	{"ipv6-frag", 44}, {"idrp", 45}, {"rsvp", 46}, {"gre", 47}, {"esp", 50},
	{"ah", 51}, {"skip", 57}, {"ipv6-icmp", 58}, {"icmpv6", 58}, {"ipv6-nonxt", 59},
	{"ipv6-opts", 60}, {"rspf", 73}, {"vmtp", 81}, {"eigrp", 88}, {"ospf", 89},
	{"ax.25", 93}, {"ipip", 94}, {"etherip", 97}, {"encap", 98}, {"pim", 103},
	{"ipcomp", 108}, {"vrrp", 112}, {"l2tp", 115}, {"isis", 124}, {"sctp", 132},
	{"fc", 133}, {"mobility-header", 135}, {"ipv6-mh", 135}, {"mh", 135},
	{"udplite", 136}, {"mpls-in-ip", 137}, {"manet", 138}, {"hip", 139},
	{"shim6", 140}, {"wesp", 141}, {"rohc", 142}, {"ethernet", 143},
	/* clang-format on */
};

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

/* "[packets:bytes]" */
bool
rule_ipt_counters_valid(const char *s)
{
	size_t n = strlen(s);
	const char *colon;

	if (n < 5 || s[0] != '[' || s[n - 1] != ']')
		return false;
	colon = memchr(s, ':', n);
	if (colon == NULL)
		return false;
	return rule_ipt_counter_valid(s + 1, (size_t)(colon - s - 1)) &&
	       rule_ipt_counter_valid(colon + 1, (size_t)(s + n - 1 - colon - 1));
}

/* Fix the file's family at the first address, or check it. */
static int
family_use(struct ipt *p, const struct lex_tok *a, uint8_t family)
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
	if (lex_prefix(a->s, strlen(a->s), LEX_PFX_HOST_CLEAR | LEX_PFX_NETMASK | LEX_PFX_NO_LEAD_ZERO,
		    &lp, &f) != 0)
		return rule_ipt_err(p, a, lex_code_text(f.code));
	memcpy(pf->addr, lp.addr, sizeof(pf->addr));
	pf->len = lp.len;
	rc = family_use(p, a, lp.family);
	if (rc < 0)
		return rc;
	r->family = lp.family;
	return 0;
}

/* -p value: a name (any case) or a number 0..255; 0 and "all" mean any. */
int
rule_ipt_proto(struct ipt *p, const struct lex_tok *a, int *proto)
{
	char low[32];
	size_t n = strlen(a->s);
	uint32_t v;

	if (lex_u32(a->s, n, 255, LEX_NUM_NO_LEAD_ZERO, &v, NULL) == 0) {
		*proto = (int)v;
		return 0;
	}
	if (n >= sizeof(low))
		return rule_ipt_err(p, a, "unknown protocol");
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(a->s[i] >= 'A' && a->s[i] <= 'Z' ? a->s[i] - 'A' + 'a' : a->s[i]);
	for (size_t i = 0; i < RTE_DIM(ipt_protos); i++)
		if (strcmp(ipt_protos[i].name, low) == 0) {
			*proto = ipt_protos[i].number;
			return 0;
		}
	return rule_ipt_err(p, a, "unknown protocol");
}

/*
 * Port values (numbers only: service names would depend on /etc/services),
 * the whole word quoted on error: "bad port", "bad port range", "too many
 * ports".
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
		uint8_t bit; /* 0: exists in netfilter, not in the model */
	} states[] = {
		{"NEW", RULE_CT_NEW},
		{"ESTABLISHED", RULE_CT_ESTABLISHED},
		{"RELATED", RULE_CT_RELATED},
		{"INVALID", RULE_CT_INVALID},
		{"UNTRACKED", 0},
		{"SNAT", 0},
		{"DNAT", 0},
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
		if (states[i].bit == 0)
			return rule_ipt_err(p, a, "conntrack state not supported");
		*set |= states[i].bit;
		if (c[len] == '\0')
			return 0;
		c += len + 1;
	}
}

/* NAT port range "P" or "P-Q", 1..65535. */
bool
rule_ipt_natports(const char *s, struct rule_nat *n)
{
	struct lex_port_range r;
	unsigned int cnt;

	if (lex_ports(&lex_ports_ipt_nat, s, strlen(s), &r, &cnt, NULL) != 0)
		return false;
	n->port_min = r.lo;
	n->port_max = r.hi;
	return true;
}

/* "A" or "A-B" in [s, s+len) into the NAT target (same family for both). */
static bool
natrange_parse(const char *s, size_t len, struct rule_nat *n)
{
	const char *dash = memchr(s, '-', len);
	uint8_t f1, f2;

	if (dash == NULL) {
		if (lex_addr(s, len, &f1, n->addr_min, NULL) != 0)
			return false;
		memcpy(n->addr_max, n->addr_min, sizeof(n->addr_max));
		n->family = f1;
		return true;
	}
	if (lex_addr(s, (size_t)(dash - s), &f1, n->addr_min, NULL) != 0 ||
		lex_addr(dash + 1, len - (size_t)(dash - s) - 1, &f2, n->addr_max, NULL) != 0 ||
		f1 != f2)
		return false;
	n->family = f1;
	return memcmp(n->addr_min, n->addr_max, fc_af_addr_len(f1)) <= 0;
}

/*
 * --to-source / --to-destination value. IPv4: A[-B][:P[-Q]]. IPv6 (as
 * ip6tables prints it): A, A-B, or [A]:P[-Q], [A-B]:P[-Q].
 */
int
rule_ipt_nat(struct ipt *p, const struct lex_tok *a, struct rule *r)
{
	struct rule_nat *n = &r->nat;
	const char *s = a->s, *ports = NULL;
	size_t alen;
	int rc;

	memset(n, 0, sizeof(*n));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return rule_ipt_err(p, a, "bad NAT address");
		s++;
		alen = (size_t)(end - s);
		if (end[1] == ':')
			ports = end + 2;
	} else {
		const char *colon = strchr(s, ':');

		if (colon != NULL && strchr(colon + 1, ':') == NULL) {
			/* One colon: IPv4 address and ports. */
			alen = (size_t)(colon - s);
			ports = colon + 1;
		} else {
			alen = strlen(s);
		}
	}
	if (alen == 0)
		return rule_ipt_err(p, a, "NAT address required");
	if (!natrange_parse(s, alen, n))
		return rule_ipt_err(p, a, "bad NAT address");
	if (ports != NULL && !rule_ipt_natports(ports, n))
		return rule_ipt_err(p, a, "bad NAT port range");
	rc = family_use(p, a, n->family);
	if (rc < 0)
		return rc;
	if (r->family != 0 && r->family != n->family)
		return rule_ipt_err(p, a, "address family mismatch");
	r->family = n->family;
	return 0;
}
