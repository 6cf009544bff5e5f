/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the rule model — names of actions, tables, hooks, protocols
 * and reject kinds; where each action may stand; rule_init/rule_check/
 * rule_equal; interface patterns; and rule_match_key(), the "could this
 * rule match this key" test of the flow cache (the exact match on a whole
 * packet is rule_xeval.c's). Rule sets are in rule_set.c, extension
 * options in rule_x.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "rule_x_priv.h"

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const action_names[RULE_ACT__COUNT] = {
	[RULE_ACT_ACCEPT] = "accept",
	[RULE_ACT_DROP] = "drop",
	[RULE_ACT_JUMP] = "jump",
	[RULE_ACT_GOTO] = "goto",
	[RULE_ACT_RETURN] = "return",
	[RULE_ACT_DNAT] = "dnat",
	[RULE_ACT_SNAT] = "snat",
	[RULE_ACT_MASQUERADE] = "masquerade",
	[RULE_ACT_REJECT] = "reject",
	[RULE_ACT_REDIRECT] = "redirect",
	[RULE_ACT_NETMAP] = "netmap",
	[RULE_ACT_LOG] = "log",
	[RULE_ACT_NFLOG] = "nflog",
	[RULE_ACT_MARK] = "mark",
	[RULE_ACT_CONNMARK] = "connmark",
	[RULE_ACT_TCPMSS] = "tcpmss",
	[RULE_ACT_CT] = "ct",
	[RULE_ACT_NOTRACK] = "notrack",
	[RULE_ACT_CHECKSUM] = "checksum",
	[RULE_ACT_DSCP] = "dscp",
	[RULE_ACT_TOS] = "tos",
	[RULE_ACT_CLASSIFY] = "classify",
	[RULE_ACT_TTL] = "ttl",
	[RULE_ACT_HL] = "hl",
	[RULE_ACT_SYNPROXY] = "synproxy",
	[RULE_ACT_SET] = "set",
	[RULE_ACT_COUNT] = "count",
	[RULE_ACT_ECN] = "ecn",
};

static const char *const table_names[RULE_TABLE__COUNT] = {
	[RULE_TABLE_FILTER] = "filter",
	[RULE_TABLE_NAT] = "nat",
	[RULE_TABLE_MANGLE] = "mangle",
	[RULE_TABLE_RAW] = "raw",
	[RULE_TABLE_SECURITY] = "security",
};

static const char *const reject_names[RULE_REJECT__COUNT] = {
	[RULE_REJECT_NONE] = "default",
#define REJECT_NAME(name, text) [RULE_REJECT_##name] = text,
	RULE_REJECT_KINDS(REJECT_NAME)
#undef REJECT_NAME
};

/* Protocol names iptables-save may print (netbase's /etc/protocols) and aliases. */
static const struct {
	const char *name;
	uint8_t number;
} netbase_protos[] = {
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

static const char *const hook_names[RULE_HOOK__COUNT] = {
	[RULE_HOOK_PREROUTING] = "prerouting",
	[RULE_HOOK_INPUT] = "input",
	[RULE_HOOK_FORWARD] = "forward",
	[RULE_HOOK_OUTPUT] = "output",
	[RULE_HOOK_POSTROUTING] = "postrouting",
};

static const struct {
	const char *name;
	uint8_t number;
} proto_names[] = {
	{"icmp", 1},
	{"igmp", 2},
	{"tcp", RULE_PROTO_TCP},
	{"udp", RULE_PROTO_UDP},
	{"gre", 47},
	{"esp", 50},
	{"ah", 51},
	{"icmpv6", 58},
	{"sctp", RULE_PROTO_SCTP},
	{"udplite", 136},
};

const char *
rule_action_name(unsigned int action)
{
	return action < RULE_ACT__COUNT ? action_names[action] : "?";
}

const char *
rule_table_name(unsigned int table)
{
	return table < RULE_TABLE__COUNT ? table_names[table] : "?";
}

const char *
rule_hook_name(unsigned int hook)
{
	return hook < RULE_HOOK__COUNT ? hook_names[hook] : "?";
}

const char *
rule_proto_netbase_name(uint8_t proto)
{
	for (size_t i = 1; i < RTE_DIM(netbase_protos); i++) /* not "all" */
		if (netbase_protos[i].number == proto)
			return netbase_protos[i].name;
	return NULL;
}

const char *
rule_proto_name(uint8_t proto)
{
	for (size_t i = 0; i < RTE_DIM(proto_names); i++)
		if (proto_names[i].number == proto)
			return proto_names[i].name;
	return NULL;
}

int
rule_proto_number(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(proto_names); i++)
		if (strcmp(proto_names[i].name, name) == 0)
			return proto_names[i].number;
	return -1;
}

int
rule_proto_lookup(const char *name)
{
	uint64_t v = 0;
	char *end;

	if (name[0] >= '0' && name[0] <= '9') {
		if (name[0] == '0' && name[1] != '\0')
			return -1;
		v = strtoul(name, &end, 10);
		return *end == '\0' && v <= 255 ? (int)v : -1;
	}
	for (size_t i = 0; i < RTE_DIM(netbase_protos); i++)
		if (strcasecmp(netbase_protos[i].name, name) == 0)
			return netbase_protos[i].number;
	return -1;
}

const char *
rule_reject_name(unsigned int with)
{
	return with < RULE_REJECT__COUNT ? reject_names[with] : "?";
}

unsigned int
rule_table_hooks(unsigned int table)
{
	switch (table) {
	case RULE_TABLE_FILTER:
	case RULE_TABLE_SECURITY:
		return RULE_HOOKS_FILTER;
	case RULE_TABLE_NAT:
		return RULE_HOOKS_NAT;
	case RULE_TABLE_MANGLE:
		return RULE_HOOKS_ALL;
	case RULE_TABLE_RAW:
		return RULE_HOOKS_RAW;
	default:
		return 0;
	}
}

bool
rule_action_in_table(unsigned int action, unsigned int table)
{
	unsigned int k;

	if (table >= RULE_TABLE__COUNT)
		return false;
	switch (action) {
	case RULE_ACT_ACCEPT:
	case RULE_ACT_JUMP:
	case RULE_ACT_GOTO:
	case RULE_ACT_RETURN:
	case RULE_ACT_COUNT:
		return true;
	case RULE_ACT_DROP:
		return table != RULE_TABLE_NAT;
	case RULE_ACT_NOTRACK:
		return table == RULE_TABLE_RAW;
	default:
		k = rule_x_kind_of_action(action);
		return k != RULE_X_NONE && (rule_xkinds[k].tables & (1u << table)) != 0;
	}
}

unsigned int
rule_action_hooks(unsigned int action)
{
	unsigned int k = rule_x_kind_of_action(action);

	if (action == RULE_ACT_NOTRACK)
		return RULE_HOOKS_RAW;
	if (k == RULE_X_NONE || rule_xkinds[k].hooks == 0)
		return RULE_HOOKS_ALL;
	return rule_xkinds[k].hooks;
}

bool
rule_action_terminal(unsigned int action)
{
	switch (action) {
	case RULE_ACT_ACCEPT:
	case RULE_ACT_DROP:
	case RULE_ACT_REJECT:
	case RULE_ACT_DNAT:
	case RULE_ACT_SNAT:
	case RULE_ACT_MASQUERADE:
	case RULE_ACT_REDIRECT:
	case RULE_ACT_NETMAP:
		return true;
	default:
		return false;
	}
}

bool
rule_action_nat(unsigned int action)
{
	return action == RULE_ACT_DNAT || action == RULE_ACT_SNAT ||
	       action == RULE_ACT_MASQUERADE || action == RULE_ACT_REDIRECT ||
	       action == RULE_ACT_NETMAP;
}

bool
rule_name_valid(const char *name)
{
	size_t n;

	if (name == NULL || name[0] == '\0' || name[0] == '-' || name[0] == '.')
		return false;
	for (n = 0; name[n] != '\0'; n++) {
		char c = name[n];

		if (n >= RULE_NAME_MAX - 1)
			return false;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

bool
rule_chain_name_valid(const char *name)
{
	size_t n;

	/* As iptables: any printable character but blanks, not starting with
	 * '-' or '!'; gufc also keeps quotes and '#' out (its own languages
	 * read them as strings and comments) and '.' first (a channel file). */
	if (name == NULL || name[0] == '\0' || name[0] == '-' || name[0] == '!' || name[0] == '.')
		return false;
	for (n = 0; name[n] != '\0'; n++) {
		unsigned char c = (unsigned char)name[n];

		if (n >= RULE_NAME_MAX - 1 || c <= ' ' || c >= 0x7f || c == '"' || c == '\'' ||
			c == '#')
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* Interfaces                                                                */
/* ------------------------------------------------------------------------ */

bool
rule_if_match(const char *pat, const char *name)
{
	size_t n = strnlen(pat, RULE_IFNAME_MAX);

	if (n > 0 && pat[n - 1] == '+')
		return strncmp(pat, name, n - 1) == 0;
	return strcmp(pat, name) == 0;
}

/* An interface pattern: 1..15 bytes, no blank, '/', or control byte; '+' only last. */
static bool
if_valid(const char *pat)
{
	size_t n = strnlen(pat, RULE_IFNAME_MAX);

	if (n == 0 || n >= RULE_IFNAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)pat[i];

		if (c <= 0x20 || c >= 0x7f || c == '/' || c == '"' || c == '\\' || c == '#' ||
			c == '!' || (c == '+' && i != n - 1))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* Rules                                                                     */
/* ------------------------------------------------------------------------ */

void
rule_init(struct rule *r)
{
	memset(r, 0, sizeof(*r));
	r->action = RULE_ACT_ACCEPT;
}

static bool
prefix_valid(const struct rule_prefix *p, unsigned int family)
{
	unsigned int nb = fc_af_addr_len(family);

	if (nb == 0 || p->len > nb * 8)
		return false;
	if (p->len % 8 != 0 && (p->addr[p->len / 8] & (0xff >> (p->len % 8))) != 0)
		return false;
	for (unsigned int i = (p->len + 7) / 8; i < 16; i++)
		if (p->addr[i] != 0)
			return false;
	return true;
}

static bool
ports_valid(const struct rule_ports *p)
{
	if (p->n == 0 || p->n > RULE_PORTS_MAX)
		return false;
	for (unsigned int i = 0; i < p->n; i++)
		if (p->r[i].lo > p->r[i].hi)
			return false;
	return true;
}

static bool
bytes_zero(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != 0)
			return false;
	return true;
}

static int
nat_check(const struct rule *r, const char **msg)
{
	const struct rule_nat *n = &r->nat;
	bool noaddr = r->action == RULE_ACT_MASQUERADE || r->action == RULE_ACT_REDIRECT;
	unsigned int nb, allowed;

	if (!rule_action_nat(r->action)) {
		if (n->family != 0 || n->port_min != 0 || n->port_max != 0 || n->flags != 0) {
			*msg = "nat target on a rule that does not translate";
			return -EINVAL;
		}
		return 0;
	}
	switch (r->action) {
	case RULE_ACT_DNAT:
		allowed = RULE_NAT_F_RANDOM | RULE_NAT_F_PERSISTENT;
		break;
	case RULE_ACT_SNAT:
		allowed = RULE_NAT_F_RANDOM | RULE_NAT_F_RANDOM_FULLY | RULE_NAT_F_PERSISTENT;
		break;
	case RULE_ACT_MASQUERADE:
		allowed = RULE_NAT_F_RANDOM | RULE_NAT_F_RANDOM_FULLY;
		break;
	case RULE_ACT_REDIRECT:
		allowed = RULE_NAT_F_RANDOM;
		break;
	default:
		allowed = RULE_NAT_F_NETMAP;
		break;
	}
	if ((n->flags & ~allowed) != 0 ||
		(r->action == RULE_ACT_NETMAP) != ((n->flags & RULE_NAT_F_NETMAP) != 0)) {
		*msg = "bad nat options";
		return -EINVAL;
	}
	if (n->port_min > n->port_max || (n->port_min == 0) != (n->port_max == 0) ||
		(r->action == RULE_ACT_NETMAP && n->port_min != 0)) {
		*msg = "bad nat port range";
		return -EINVAL;
	}
	if (noaddr) {
		if (n->family != 0) {
			*msg = r->action == RULE_ACT_MASQUERADE ? "masquerade takes no address"
								: "redirect takes no address";
			return -EINVAL;
		}
		return 0;
	}
	/* DNAT/SNAT to a port alone (":P"): the connection's address is kept. */
	if (n->family == 0 && n->port_min != 0 && r->action != RULE_ACT_NETMAP) {
		if (!bytes_zero(n->addr_min, 0, 16) || !bytes_zero(n->addr_max, 0, 16)) {
			*msg = "bad nat address range";
			return -EINVAL;
		}
		return 0;
	}
	nb = fc_af_addr_len(n->family);
	if (nb == 0) {
		*msg = "missing nat address";
		return -EINVAL;
	}
	if (r->family != n->family) {
		*msg = "address family mismatch";
		return -EINVAL;
	}
	if (!bytes_zero(n->addr_min, nb, 16) || !bytes_zero(n->addr_max, nb, 16) ||
		memcmp(n->addr_min, n->addr_max, nb) > 0) {
		*msg = "bad nat address range";
		return -EINVAL;
	}
	return 0;
}

static bool
proto_has_ports(const struct rule *r)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
	       (r->proto == RULE_PROTO_TCP || r->proto == RULE_PROTO_UDP ||
		       r->proto == RULE_PROTO_SCTP || r->proto == RULE_PROTO_UDPLITE ||
		       r->proto == RULE_PROTO_DCCP);
}

static int
ext_check(const struct rule *r, const char **msg)
{
	static const struct rule_x none;
	unsigned int want = rule_x_kind_of_action(r->action);

	if (r->n_xm > RULE_XM_MAX) {
		*msg = "too many extension matches";
		return -EINVAL;
	}
	for (unsigned int i = 0; i < RULE_XM_MAX; i++) {
		const struct rule_x *x = &r->xm[i];

		if (i >= r->n_xm) {
			if (memcmp(x, &none, sizeof(none)) != 0) {
				*msg = "bad extension matches";
				return -EINVAL;
			}
			continue;
		}
		if (x->kind == RULE_X_NONE || x->kind >= RULE_XM__END) {
			*msg = "bad extension match";
			return -EINVAL;
		}
		*msg = rule_x_check(r, x);
		if (*msg != NULL)
			return -EINVAL;
	}
	if (r->tgt.kind == RULE_X_NONE) {
		if (memcmp(&r->tgt, &none, sizeof(none)) != 0 ||
			(want != RULE_X_NONE && !rule_action_nat(r->action) &&
				rule_xkinds[want].need != 0)) {
			*msg = want != RULE_X_NONE && rule_xkinds[want].need_msg != NULL
				       ? rule_xkinds[want].need_msg
				       : "bad target options";
			return -EINVAL;
		}
	} else {
		if (r->tgt.kind != want || rule_action_nat(r->action)) {
			*msg = "target options of another action";
			return -EINVAL;
		}
		*msg = rule_x_check(r, &r->tgt);
		if (*msg != NULL)
			return -EINVAL;
	}
	if (want != RULE_X_NONE && rule_xkinds[want].family != 0 && r->family != 0 &&
		r->family != rule_xkinds[want].family) {
		*msg = "target of the other address family";
		return -EINVAL;
	}
	if (want != RULE_X_NONE && rule_xkinds[want].proto != 0 &&
		!((r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
			r->proto == rule_xkinds[want].proto)) {
		*msg = "target needs its protocol (-p)";
		return -EINVAL;
	}
	return 0;
}

static int
rule_check_msg(const struct rule *r, const char **msg)
{
	size_t n;

	if (r->action >= RULE_ACT__COUNT) {
		*msg = "bad action";
		return -EINVAL;
	}
	if (r->family != 0 && fc_af_addr_len(r->family) == 0) {
		*msg = "bad family";
		return -EINVAL;
	}
	if ((r->neg & ~r->match) != 0) {
		*msg = "bad match flags";
		return -EINVAL;
	}
	if (r->src_local > RULE_LOCAL_NO || r->dst_local > RULE_LOCAL_NO) {
		*msg = "bad local match";
		return -EINVAL;
	}
	if (((r->match & RULE_M_SRC) && !prefix_valid(&r->src, r->family)) ||
		((r->match & RULE_M_DST) && !prefix_valid(&r->dst, r->family))) {
		*msg = "bad prefix";
		return -EINVAL;
	}
	if (((r->match & RULE_M_IN) && !if_valid(r->in_if)) ||
		((r->match & RULE_M_OUT) && !if_valid(r->out_if)) ||
		(!(r->match & RULE_M_IN) && r->in_if[0] != '\0') ||
		(!(r->match & RULE_M_OUT) && r->out_if[0] != '\0')) {
		*msg = "bad interface name";
		return -EINVAL;
	}
	if (r->match & (RULE_M_SPORT | RULE_M_DPORT)) {
		if (!proto_has_ports(r)) {
			*msg = "port match needs proto tcp, udp, udplite, sctp or dccp";
			return -EINVAL;
		}
		if (((r->match & RULE_M_SPORT) && !ports_valid(&r->sport)) ||
			((r->match & RULE_M_DPORT) && !ports_valid(&r->dport))) {
			*msg = "bad port list";
			return -EINVAL;
		}
	}
	/* A port match's place: after a match that keeps state (rule_late_order()), or none. */
	if ((!(r->match & RULE_M_SPORT) && r->sport_at != 0) ||
		(!(r->match & RULE_M_DPORT) && r->dport_at != 0) ||
		(r->sport_at != 0 && (r->sport_at > r->n_xm || r->sport_at > RULE_XM_MAX ||
					     !rule_x_ordered(r->xm[r->sport_at - 1].kind))) ||
		(r->dport_at != 0 && (r->dport_at > r->n_xm || r->dport_at > RULE_XM_MAX ||
					     !rule_x_ordered(r->xm[r->dport_at - 1].kind)))) {
		*msg = "bad port match position";
		return -EINVAL;
	}
	if ((!(r->match & RULE_M_CTSTATE) && r->ctstate_at != 0) ||
		(r->ctstate_at != 0 && (r->ctstate_at > r->n_xm || r->ctstate_at > RULE_XM_MAX ||
					       !rule_x_ordered(r->xm[r->ctstate_at - 1].kind)))) {
		*msg = "bad ctstate match position";
		return -EINVAL;
	}
	if ((r->match & RULE_M_CTSTATE) && (r->ctstate == 0 || (r->ctstate & ~RULE_CT_ALL))) {
		*msg = "bad ctstate set";
		return -EINVAL;
	}
	if (nat_check(r, msg) < 0)
		return -EINVAL;
	if (r->action == RULE_ACT_JUMP || r->action == RULE_ACT_GOTO) {
		if (!rule_chain_name_valid(r->chain)) {
			*msg = "bad chain name";
			return -EINVAL;
		}
	} else if (r->chain[0] != '\0') {
		*msg = "chain name on a rule that does not jump";
		return -EINVAL;
	}
	if (r->channel[0] != '\0' &&
		(r->action != RULE_ACT_ACCEPT || !rule_name_valid(r->channel))) {
		*msg = "bad channel";
		return -EINVAL;
	}
	n = strnlen(r->comment, RULE_COMMENT_MAX);
	if (n == RULE_COMMENT_MAX) {
		*msg = "comment too long";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r->comment[i];

		if (c < 0x20 || c == 0x7f) {
			*msg = "control character in comment";
			return -EINVAL;
		}
	}
	return ext_check(r, msg);
}

int
rule_check(const struct rule *r, const char **msg)
{
	const char *m = NULL;
	int rc;

	if (r == NULL) {
		m = "no rule";
		rc = -EINVAL;
	} else {
		rc = rule_check_msg(r, &m);
	}
	if (msg != NULL)
		*msg = m;
	return rc;
}

static bool
prefix_equal(const struct rule_prefix *a, const struct rule_prefix *b, unsigned int family)
{
	return a->len == b->len && memcmp(a->addr, b->addr, fc_af_addr_len(family)) == 0;
}

static bool
ports_equal(const struct rule_ports *a, const struct rule_ports *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned int i = 0; i < a->n && i < RULE_PORTS_MAX; i++)
		if (a->r[i].lo != b->r[i].lo || a->r[i].hi != b->r[i].hi)
			return false;
	return true;
}

bool
rule_equal(const struct rule *a, const struct rule *b)
{
	if (a->action != b->action || a->family != b->family || a->match != b->match ||
		a->neg != b->neg || a->src_local != b->src_local || a->dst_local != b->dst_local ||
		a->n_xm != b->n_xm || a->pkts != b->pkts || a->bytes != b->bytes)
		return false;
	if ((a->match & RULE_M_PROTO) && a->proto != b->proto)
		return false;
	if ((a->match & RULE_M_CTSTATE) && a->ctstate != b->ctstate)
		return false;
	if ((a->match & RULE_M_SRC) && !prefix_equal(&a->src, &b->src, a->family))
		return false;
	if ((a->match & RULE_M_DST) && !prefix_equal(&a->dst, &b->dst, a->family))
		return false;
	if ((a->match & RULE_M_SPORT) && !ports_equal(&a->sport, &b->sport))
		return false;
	if ((a->match & RULE_M_DPORT) && !ports_equal(&a->dport, &b->dport))
		return false;
	if (a->sport_at != b->sport_at || a->dport_at != b->dport_at ||
		a->ctstate_at != b->ctstate_at)
		return false;
	if ((a->match & RULE_M_IN) && strncmp(a->in_if, b->in_if, RULE_IFNAME_MAX) != 0)
		return false;
	if ((a->match & RULE_M_OUT) && strncmp(a->out_if, b->out_if, RULE_IFNAME_MAX) != 0)
		return false;
	if (rule_action_nat(a->action)) {
		if (a->nat.family != b->nat.family || a->nat.flags != b->nat.flags ||
			a->nat.port_min != b->nat.port_min || a->nat.port_max != b->nat.port_max ||
			memcmp(a->nat.addr_min, b->nat.addr_min, sizeof(a->nat.addr_min)) != 0 ||
			memcmp(a->nat.addr_max, b->nat.addr_max, sizeof(a->nat.addr_max)) != 0)
			return false;
	}
	if ((a->action == RULE_ACT_JUMP || a->action == RULE_ACT_GOTO) &&
		strncmp(a->chain, b->chain, RULE_NAME_MAX) != 0)
		return false;
	if (strncmp(a->channel, b->channel, RULE_NAME_MAX) != 0)
		return false;
	if (a->n_xm <= RULE_XM_MAX && memcmp(a->xm, b->xm, a->n_xm * sizeof(a->xm[0])) != 0)
		return false;
	if (memcmp(&a->tgt, &b->tgt, sizeof(a->tgt)) != 0)
		return false;
	return strncmp(a->comment, b->comment, RULE_COMMENT_MAX) == 0;
}

/* ------------------------------------------------------------------------ */
/* Matching a key                                                            */
/* ------------------------------------------------------------------------ */

bool
rule_prefix_match(const uint8_t *addr, const struct rule_prefix *p)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (memcmp(addr, p->addr, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((addr[full] ^ p->addr[full]) & (uint8_t)(0xff00 >> rest)) == 0;
}

static bool
ports_match(const struct rule_ports *p, uint16_t port)
{
	for (unsigned int i = 0; i < p->n && i < RULE_PORTS_MAX; i++)
		if (port >= p->r[i].lo && port <= p->r[i].hi)
			return true;
	return false;
}

static bool
local_match(uint8_t want, bool is_local)
{
	return want == RULE_LOCAL_ANY || (want == RULE_LOCAL_YES) == is_local;
}

bool
rule_ctstate_match(const struct rule *r, unsigned int ctstate)
{
	bool neg = r->neg & RULE_M_CTSTATE;

	if (!(r->match & RULE_M_CTSTATE) || ctstate == RULE_CT_IGNORE)
		return true;
	if ((ctstate & RULE_CT_STATES) == 0)
		ctstate |= RULE_CT_UNTRACKED;
	return ((ctstate & r->ctstate) != 0) != neg;
}

/* The key fields of a rule (struct rule or struct rule_keym) against key @p k. */
static inline bool
key_fields_match(uint8_t family, uint8_t src_local, uint8_t dst_local, uint8_t match, uint8_t rneg,
	uint8_t rproto, const struct rule_prefix *rsrc, const struct rule_prefix *rdst,
	const struct rule_ports *rsport, const struct rule_ports *rdport, const struct fc_key *k,
	unsigned int kflags)
{
	const uint8_t *src, *dst;
	uint16_t sport, dport;
	uint8_t proto, flags;
	bool neg;

	if (fc_af_index(k->family) < 0)
		return false;
	src = fc_key_src(k);
	dst = fc_key_dst(k);
	sport = fc_key_sport(k);
	dport = fc_key_dport(k);
	proto = fc_key_proto(k);
	flags = fc_key_flags(k);
	if (family != 0 && family != k->family)
		return false;
	/* A forged local source (from outside) is this host's address all the same. */
	if (!local_match(src_local, flags & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED)) ||
		!local_match(dst_local, flags & FC_KEY_F_DST_LOCAL))
		return false;
	if (match & RULE_M_SRC) {
		neg = rneg & RULE_M_SRC;
		if (rule_prefix_match(src, rsrc) == neg)
			return false;
	}
	if (match & RULE_M_DST) {
		neg = rneg & RULE_M_DST;
		if (rule_prefix_match(dst, rdst) == neg)
			return false;
	}
	if (match & RULE_M_PROTO) {
		neg = rneg & RULE_M_PROTO;
		if ((proto == rproto) == neg)
			return false;
	}
	if (match & (RULE_M_SPORT | RULE_M_DPORT)) {
		/* Netfilter: no ports, no port match, negated or not. */
		if (kflags & RULE_KEY_F_NOPORTS)
			return false;
		if (match & RULE_M_SPORT) {
			neg = rneg & RULE_M_SPORT;
			if (ports_match(rsport, ntohs(sport)) == neg)
				return false;
		}
		if (match & RULE_M_DPORT) {
			neg = rneg & RULE_M_DPORT;
			if (ports_match(rdport, ntohs(dport)) == neg)
				return false;
		}
	}
	return true;
}

bool
rule_match_key(
	const struct rule *r, const struct fc_key *k, unsigned int ctstate, unsigned int kflags)
{
	/* A port match after an extension match is checked in its place (rule_match_ext()). */
	uint8_t match = (uint8_t)(r->match & ~rule_late_ports(r));

	if (!key_fields_match(r->family, r->src_local, r->dst_local, match, r->neg, r->proto,
		    &r->src, &r->dst, &r->sport, &r->dport, k, kflags))
		return false;
	/* So is a ctstate match after one. */
	return rule_late_ctstate(r) || rule_ctstate_match(r, ctstate);
}

bool
rule_match_key_ports(const struct rule *r, unsigned int which, const struct fc_key *k,
	unsigned int kflags)
{
	uint8_t match = (uint8_t)(r->match & which & (RULE_M_SPORT | RULE_M_DPORT));

	if (match == 0)
		return true;
	return key_fields_match(0, RULE_LOCAL_ANY, RULE_LOCAL_ANY, match, r->neg, 0, NULL, NULL,
		&r->sport, &r->dport, k, kflags);
}

bool
rule_x_ordered(unsigned int kind)
{
	switch (kind) {
	case RULE_XM_LIMIT:
	case RULE_XM_QUOTA:
	case RULE_XM_HASHLIMIT:
	case RULE_XM_RECENT:
	case RULE_XM_STATISTIC:
	case RULE_XM_CONNLIMIT:
		return true;
	default:
		return false;
	}
}

uint8_t
rule_late_place(const struct rule *r, unsigned int at)
{
	if (at > r->n_xm)
		at = r->n_xm;
	while (at > 0 && !rule_x_ordered(r->xm[at - 1].kind))
		at--;
	return (uint8_t)at;
}

void
rule_late_order(struct rule *r)
{
	r->sport_at = (r->match & RULE_M_SPORT) ? rule_late_place(r, r->sport_at) : 0;
	r->dport_at = (r->match & RULE_M_DPORT) ? rule_late_place(r, r->dport_at) : 0;
	r->ctstate_at = (r->match & RULE_M_CTSTATE) ? rule_late_place(r, r->ctstate_at) : 0;
}

void
rule_keym_of(const struct rule *r, struct rule_keym *m)
{
	const uint8_t keyf = RULE_M_SRC | RULE_M_DST | RULE_M_PROTO | RULE_M_SPORT | RULE_M_DPORT;

	memset(m, 0, sizeof(*m));
	m->family = r->family;
	m->proto = r->proto;
	m->src_local = r->src_local;
	m->dst_local = r->dst_local;
	/* A late port match: the rule acts on packets of any port (rule_match_key()). */
	m->match = r->match & keyf & (uint8_t)~rule_late_ports(r);
	m->neg = r->neg & keyf;
	m->src = r->src;
	m->dst = r->dst;
	m->sport = r->sport;
	m->dport = r->dport;
}

bool
rule_keym_match(const struct rule_keym *m, const struct fc_key *k, unsigned int kflags)
{
	return key_fields_match(m->family, m->src_local, m->dst_local, m->match, m->neg, m->proto,
		&m->src, &m->dst, &m->sport, &m->dport, k, kflags);
}
