/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: reading "ipset save" (and "ipset restore") files into the
 * ipsets rule_ipset.c looks packets up in: "create NAME TYPE [options]"
 * and "add NAME ENTRY [options]" lines. Options that change no lookup
 * (hashsize, comments, counters, skb info) are read and left; an option
 * or a type gufc does not carry out is an error with its line and column,
 * and nothing of the file is loaded then.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipset_priv.h"
#include "rule_lang.h"
#include "rule_x_priv.h"

#define IPSET_WORDS_MAX 64

static const struct lex_syntax ipset_syntax = {
	.blanks = " \t",
	.quote = LEX_QUOTE_SPLIT,
	.escape = LEX_ESC_ANY,
	.comment = LEX_COMMENT_NONE,
	.refuse_ctrl = true,
	.max_words = IPSET_WORDS_MAX,
};

struct ipset_parser {
	struct rule_ipsets *sets;
	struct lex_where w;
	uint64_t now;
	unsigned int cap;
	unsigned int n;
	bool exist; /**< the line has -exist (-!): no error for what exists already */
	struct lex_tok t[IPSET_WORDS_MAX];
};

static int
perr(struct ipset_parser *p, const struct lex_tok *t, const char *msg)
{
	return lex_fail(&p->w, t->col, t->s, strlen(t->s), msg);
}

static bool
u32_of(const char *s, uint32_t max, uint32_t *v)
{
	return lex_u32(s, strlen(s), max, LEX_NUM_C, v, NULL) == 0;
}

/* A bitmap:ip's range: "A-B" or "A/LEN" of IPv4, at most 65,536 addresses. */
static bool
ip_range_of(const char *s, uint32_t *lo, uint32_t *hi)
{
	const char *dash = strchr(s, '-');
	struct lex_prefix a, b;
	uint32_t x, y;

	if (dash != NULL) {
		if (lex_prefix(s, (size_t)(dash - s), LEX_PFX_HOST_REFUSE, &a, NULL) != 0 ||
			lex_prefix(dash + 1, strlen(dash + 1), LEX_PFX_HOST_REFUSE, &b, NULL) != 0 ||
			a.family != LEX_AF_INET4 || b.family != LEX_AF_INET4 || a.len != 32 ||
			b.len != 32)
			return false;
		memcpy(&x, a.addr, 4);
		memcpy(&y, b.addr, 4);
		x = ntohl(x);
		y = ntohl(y);
	} else {
		if (lex_prefix(s, strlen(s), LEX_PFX_HOST_CLEAR, &a, NULL) != 0 ||
			a.family != LEX_AF_INET4)
			return false;
		memcpy(&x, a.addr, 4);
		x = ntohl(x);
		/* (a shift by 32 is undefined: a /32 is its own address) */
		y = a.len >= 32 ? x : x | (uint32_t)(UINT32_MAX >> a.len);
	}
	*lo = x;
	*hi = y;
	return x <= y;
}

/*
 * create NAME TYPE [family inet|inet6] [range R] [netmask N] [timeout N]
 * [maxelem N] [size N] [other options that change no lookup]
 */
static int
line_create(struct ipset_parser *p)
{
	struct ipset *st;
	unsigned int type;
	bool ranged = false;

	if (p->n < 3)
		return perr(p, &p->t[p->n - 1], "missing value");
	if (strlen(p->t[1].s) >= RULE_XNAME_MAX || p->t[1].s[0] == '\0')
		return perr(p, &p->t[1], "bad set name");
	for (type = 0; type < IPSET__TYPES; type++)
		if (strcmp(ipset_types[type], p->t[2].s) == 0)
			break;
	if (type == IPSET__TYPES)
		return perr(p, &p->t[2], "ipset type not supported");
	if (rule_ipsets_find(p->sets, p->t[1].s) >= 0) {
		/* -exist: a set of the name and type is kept as it is (as ipset's). */
		if (p->exist && p->sets->s[rule_ipsets_find(p->sets, p->t[1].s)].type == type)
			return 0;
		return perr(p, &p->t[1], p->exist ? "set exists with another type" : "set created twice");
	}
	if (p->sets->n == p->cap) {
		unsigned int cap = p->cap ? p->cap * 2 : 8;
		struct ipset *ns = realloc(p->sets->s, cap * sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		p->sets->s = ns;
		p->cap = cap;
	}
	if (p->sets->n >= UINT16_MAX)
		return perr(p, &p->t[1], "too many sets");
	st = &p->sets->s[p->sets->n];
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", p->t[1].s);
	st->type = (uint8_t)type;
	st->family = type == IPSET_BITMAP_PORT || type == IPSET_LIST_SET ? 0 : FC_AF_INET4;
	st->maxelem = 65536;
	st->list_size = 8;
	for (unsigned int i = 3; i < p->n; i++) {
		const char *o = p->t[i].s;
		bool val = i + 1 < p->n;
		uint32_t v;

		if (strcmp(o, "family") == 0 && val && st->family != 0) {
			i++;
			if (strcmp(p->t[i].s, "inet") == 0)
				st->family = FC_AF_INET4;
			else if (strcmp(p->t[i].s, "inet6") == 0 && type != IPSET_BITMAP_IP)
				st->family = FC_AF_INET6;
			else
				return perr(p, &p->t[i],
					type == IPSET_BITMAP_IP ? "bitmap:ip is IPv4 only"
								: "expected inet or inet6");
		} else if (strcmp(o, "range") == 0 && val && type == IPSET_BITMAP_PORT) {
			struct lex_port_range r;
			unsigned int cnt;
			static const struct lex_port_syntax rs = {.range = '-', .max = 1};

			i++;
			if (lex_ports(&rs, p->t[i].s, strlen(p->t[i].s), &r, &cnt, NULL) != 0)
				return perr(p, &p->t[i], "bad port range");
			st->port_min = r.lo;
			st->port_max = r.hi;
			ranged = true;
		} else if (strcmp(o, "range") == 0 && val && type == IPSET_BITMAP_IP) {
			if (!ip_range_of(p->t[++i].s, &st->ip_min, &st->ip_max))
				return perr(p, &p->t[i], "bad address range");
			ranged = true;
		} else if (strcmp(o, "netmask") == 0 && val &&
			   (type == IPSET_HASH_IP || type == IPSET_BITMAP_IP)) {
			if (!u32_of(p->t[++i].s, 128, &v) || v == 0)
				return perr(p, &p->t[i], "bad netmask");
			st->netmask = (uint8_t)v;
		} else if (strcmp(o, "timeout") == 0 && val) {
			/* "timeout 0": members may time out, by default they do not. */
			if (!u32_of(p->t[++i].s, UINT32_MAX, &st->timeout))
				return perr(p, &p->t[i], "bad timeout");
			st->timeouts = true;
		} else if (strcmp(o, "maxelem") == 0 && val) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &st->maxelem) || st->maxelem == 0)
				return perr(p, &p->t[i], "bad number");
		} else if (strcmp(o, "size") == 0 && val && type == IPSET_LIST_SET) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &v) || v == 0)
				return perr(p, &p->t[i], "bad number");
			/* Linux takes any size from 4 up; gufc holds up to IPSET_LIST_MAX members. */
			st->list_size = v < 4 ? 4 : v > IPSET_LIST_MAX ? IPSET_LIST_MAX : v;
		} else if ((strcmp(o, "hashsize") == 0 || strcmp(o, "bucketsize") == 0 ||
				   strcmp(o, "initval") == 0) &&
			   val) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &v))
				return perr(p, &p->t[i], "bad number");
		} else if (strcmp(o, "comment") == 0 || strcmp(o, "counters") == 0 ||
			   strcmp(o, "skbinfo") == 0 || strcmp(o, "forceadd") == 0) {
			/* Entry annotations, and what a full set does with one more -j SET add. */
		} else {
			return perr(p, &p->t[i], "ipset option not supported");
		}
	}
	if ((type == IPSET_BITMAP_PORT || type == IPSET_BITMAP_IP) && !ranged)
		return perr(p, &p->t[2], "a bitmap needs a range");
	if (type == IPSET_BITMAP_PORT) {
		st->bits = calloc(65536 / 64, sizeof(*st->bits));
		if (st->bits == NULL)
			return -ENOMEM;
	}
	if (st->netmask > fc_af_max_depth(st->family))
		return perr(p, &p->t[2], "netmask longer than the family's addresses");
	if (st->netmask == fc_af_max_depth(st->family))
		st->netmask = 0;
	if (type == IPSET_BITMAP_IP) {
		unsigned int shift = st->netmask != 0 ? 32u - st->netmask : 0;

		if (((uint64_t)st->ip_max - st->ip_min) >> shift >= 65536)
			return perr(p, &p->t[2], "bitmap:ip holds at most 65536 addresses (or networks)");
		st->maxelem = 65536;
	}
	p->sets->n++;
	return 0;
}

static int
ent_add(struct ipset_parser *p, struct ipset *st, const struct ipset_ent *e)
{
	if (st->n >= st->maxelem)
		return perr(p, &p->t[2], "the set is full (its maxelem)");
	if (ipset_ent_room(st) < 0)
		return -ENOMEM;
	st->e[st->n++] = *e;
	return 0;
}

/*
 * The ICMP (@p v6: ICMPv6) type and code "ipset save" writes by name:
 * iptables' names of one code, and of a type without codes (code 0);
 * not iptables' aliases (ping, pong, neighbor-*) nor a whole type of
 * several codes (ipset knows no such name).
 */
static bool
icmp_named(const char *s, bool v6, uint16_t *port)
{
	static const char *const plain4[] = {"echo-reply", "source-quench", "echo-request",
		"router-advertisement", "router-solicitation", "timestamp-request",
		"timestamp-reply", "address-mask-request", "address-mask-reply"};
	static const char *const plain6[] = {"packet-too-big", "echo-request", "echo-reply",
		"router-solicitation", "router-advertisement", "neighbour-solicitation",
		"neighbour-advertisement", "redirect"};
	const struct rx_icmp_name *n = v6 ? rx_icmp6_names : rx_icmp4_names;
	const char *const *plain = v6 ? plain6 : plain4;
	size_t np = v6 ? RTE_DIM(plain6) : RTE_DIM(plain4);

	for (; n->name != NULL; n++) {
		bool ok = n->code_min == n->code_max;

		if (strcmp(n->name, s) != 0)
			continue;
		for (size_t i = 0; !ok && i < np; i++)
			ok = strcmp(plain[i], s) == 0;
		if (!ok)
			return false;
		*port = (uint16_t)(n->type << 8 | n->code_min);
		return true;
	}
	return false;
}

/* The part of "A,proto:port" after the comma. */
static bool
proto_port(const char *s, struct ipset_ent *e)
{
	const char *colon = strchr(s, ':');
	char pname[16];
	uint32_t v;
	int pn;

	e->proto = RULE_PROTO_TCP;
	if (colon != NULL) {
		if ((size_t)(colon - s) >= sizeof(pname))
			return false;
		memcpy(pname, s, (size_t)(colon - s));
		pname[colon - s] = '\0';
		pn = rule_proto_lookup(pname);
		if (pn <= 0)
			return false;
		e->proto = (uint8_t)pn;
		s = colon + 1;
	}
	if (e->proto == 1 || e->proto == 58) {
		/* icmp:TYPE/CODE or a name of one type and code */
		uint32_t t, c = 0;
		const char *slash = strchr(s, '/');

		if (!(s[0] >= '0' && s[0] <= '9'))
			return icmp_named(s, e->proto == 58, &e->port);
		if (lex_u32(s, slash ? (size_t)(slash - s) : strlen(s), 255, LEX_NUM_DEC, &t, NULL) !=
				0 ||
			(slash != NULL && !u32_of(slash + 1, 255, &c)))
			return false;
		e->port = (uint16_t)(t << 8 | c);
		return true;
	}
	if (!u32_of(s, 65535, &v))
		return false;
	/* A protocol without ports takes the pseudo port 0 only (as ipset). */
	if (e->proto != RULE_PROTO_TCP && e->proto != RULE_PROTO_UDP &&
		e->proto != RULE_PROTO_SCTP && e->proto != 136 && v != 0)
		return false;
	e->port = (uint16_t)v;
	return true;
}

/*
 * One address of an entry: a network (@p net) or a host of the set's
 * family; /0 only in hash:net,iface (as Linux's types).
 */
static bool
addr_of(const struct ipset *st, const char *s, bool net, uint8_t *addr, uint8_t *len)
{
	struct lex_prefix lp;

	if (lex_prefix(s, strlen(s), LEX_PFX_HOST_CLEAR, &lp, NULL) != 0 ||
		lp.family != st->family ||
		(lp.len == 0 && !(ipset_shape[st->type] & IPSET_IFACE)) ||
		(!net && lp.len != fc_af_max_depth(lp.family)))
		return false;
	memcpy(addr, lp.addr, sizeof(lp.addr));
	*len = lp.len;
	return true;
}

/*
 * The interface of a hash:net,iface entry: a name of 1 to 15 characters
 * (Linux's); "physdev:NAME" (a bridge port's name) is refused: gufc has no
 * Linux bridge (its bridge mode is a bump in the wire between its own
 * ports), so no packet has one.
 */
static int
iface_of(struct ipset_parser *p, const char *s, struct ipset_ent *e)
{
	const struct lex_tok *t = &p->t[2];

	if (strncmp(s, "physdev:", 8) == 0)
		return perr(p, t,
			"physdev: members (bridge ports) are not supported: gufc has no Linux bridge");
	if (s[0] == '\0' || strlen(s) >= sizeof(e->iface) || strchr(s, '/') != NULL)
		return perr(p, t, "bad interface name");
	memcpy(e->iface, s, strlen(s) + 1);
	return 0;
}

/*
 * The member an "add" line's entry names: "A", "A/LEN", "A[/LEN],[PROTO:]PORT",
 * "A[/LEN],IFACE", "A,[PROTO:]PORT,B[/LEN]" as the set's type has it. 0, or
 * -EINVAL with the error reported.
 */
static int
entry_parse(struct ipset_parser *p, const struct ipset *st, const char *text, struct ipset_ent *e)
{
	unsigned int shape = ipset_shape[st->type];
	unsigned int want = 1 + !!(shape & (IPSET_PORT | IPSET_IFACE)) + !!(shape & IPSET_ADDR2);
	const struct lex_tok *t = &p->t[2];
	char buf[128], *part[3];
	unsigned int n = 0;
	uint8_t len2;

	if (strlen(text) >= sizeof(buf))
		return perr(p, t, "bad entry");
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *c = buf; n < 3; n++) {
		part[n] = c;
		c = strchr(c, ',');
		if (c == NULL) {
			n++;
			break;
		}
		*c++ = '\0';
	}
	if (n != want || strchr(part[n - 1], ',') != NULL)
		return perr(p, t, "bad entry");
	if (!addr_of(st, part[0], shape & IPSET_NET, e->addr, &e->len))
		return perr(p, t, (shape & IPSET_NET) ? "bad network" : "bad address");
	if ((shape & IPSET_PORT) && !proto_port(part[1], e))
		return perr(p, t, "bad protocol or port");
	if ((shape & IPSET_IFACE) && iface_of(p, part[1], e) < 0)
		return -EINVAL;
	if ((shape & IPSET_ADDR2) && !addr_of(st, part[2], shape & IPSET_NET2, e->addr2, &len2))
		return perr(p, t, (shape & IPSET_NET2) ? "bad network" : "bad address");
	if (shape & IPSET_NET2)
		e->len2 = len2;
	return 0;
}

/*
 * hash:ip and bitmap:ip: the addresses an entry names, "A", "A-B" or
 * "A/LEN" (every address of it, as ipset adds them), under the set's
 * netmask; at most 65,536 a line.
 */
static int
hosts_add(struct ipset_parser *p, struct ipset *st, struct ipset_ent *e)
{
	const char *s = p->t[2].s;
	unsigned int max = fc_af_max_depth(st->family);
	unsigned int keep = st->netmask != 0 ? st->netmask : max;
	uint32_t lo, hi, step;

	if (strchr(s, '-') == NULL && strchr(s, '/') == NULL) {
		if (!addr_of(st, s, false, e->addr, &e->len))
			return perr(p, &p->t[2], "bad address");
		if (st->type == IPSET_BITMAP_IP) {
			uint32_t a;

			memcpy(&a, e->addr, 4);
			if (ntohl(a) < st->ip_min || ntohl(a) > st->ip_max)
				return perr(p, &p->t[2], "address outside the set's range");
		}
		e->len = (uint8_t)keep;
		ipset_mask_to(e->addr, keep);
		return ent_add(p, st, e);
	}
	if (st->family != FC_AF_INET4 || !ip_range_of(s, &lo, &hi))
		return perr(p, &p->t[2], "bad address range");
	if (st->type == IPSET_BITMAP_IP && (lo < st->ip_min || hi > st->ip_max))
		return perr(p, &p->t[2], "addresses outside the set's range");
	step = keep == 32 ? 1 : 1u << (32 - keep);
	lo &= ~(step - 1);
	if (((uint64_t)hi - lo) / step >= 65536)
		return perr(p, &p->t[2], "more than 65536 addresses in one entry");
	for (uint64_t a = lo; a <= hi; a += step) {
		uint32_t be = htonl((uint32_t)a);
		int rc;

		memset(e->addr, 0, sizeof(e->addr));
		memcpy(e->addr, &be, 4);
		e->len = (uint8_t)keep;
		rc = ent_add(p, st, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* list:set: add L SET [before|after OTHER] */
static int
list_add(struct ipset_parser *p, struct ipset *st, unsigned int at_tok, int where,
	uint64_t expires)
{
	int m = rule_ipsets_find(p->sets, p->t[2].s);
	uint32_t pos = st->n_list;

	if (m < 0)
		return perr(p, &p->t[2], "set not created");
	if (p->sets->s[m].type == IPSET_LIST_SET)
		return perr(p, &p->t[2], "a list:set cannot hold a list:set");
	for (uint32_t i = 0; i < st->n_list; i++)
		if (st->list[i] == (uint16_t)m)
			return perr(p, &p->t[2], "set already in the list");
	if (st->n_list >= st->list_size)
		return perr(p, &p->t[2], "the list is full (its size)");
	if (where != 0) {
		int o = rule_ipsets_find(p->sets, p->t[at_tok].s);

		for (pos = 0; pos < st->n_list && (o < 0 || st->list[pos] != (uint16_t)o); pos++)
			;
		if (pos == st->n_list)
			return perr(p, &p->t[at_tok], "set not in the list");
		if (where > 0)
			pos++;
	}
	memmove(&st->list[pos + 1], &st->list[pos], (st->n_list - pos) * sizeof(st->list[0]));
	memmove(&st->list_exp[pos + 1], &st->list_exp[pos],
		(st->n_list - pos) * sizeof(st->list_exp[0]));
	st->list[pos] = (uint16_t)m;
	st->list_exp[pos] = expires;
	st->n_list++;
	return 0;
}

/*
 * add NAME ENTRY [timeout N] [nomatch] [comment TEXT] [packets N bytes N]
 * [skbmark M] [skbprio P] [skbqueue Q] [wildcard] [before|after SET]
 */
static int
add_into(struct ipset_parser *p, struct ipset *st)
{
	struct ipset_ent e;
	uint32_t timeout = st->timeout;
	bool wild = false, nomatch = false;
	unsigned int at_tok = 0;
	int where = 0;

	for (unsigned int i = 3; i < p->n; i++) {
		const char *o = p->t[i].s;

		if (strcmp(o, "timeout") == 0 && i + 1 < p->n) {
			if (!st->timeouts)
				return perr(p, &p->t[i],
					"timeout on a set created without timeout (as ipset refuses it)");
			if (!u32_of(p->t[++i].s, UINT32_MAX, &timeout))
				return perr(p, &p->t[i], "bad timeout");
		} else if ((strcmp(o, "comment") == 0 || strcmp(o, "packets") == 0 ||
				   strcmp(o, "bytes") == 0 || strcmp(o, "skbmark") == 0 ||
				   strcmp(o, "skbprio") == 0 || strcmp(o, "skbqueue") == 0) &&
			   i + 1 < p->n) {
			i++;
		} else if (strcmp(o, "nomatch") == 0) {
			if (!ipset_nomatch_ok(st->type))
				return perr(p, &p->t[i],
					"nomatch needs a set type with a network (hash:net, hash:net,port, "
					"hash:ip,port,net, hash:net,iface)");
			nomatch = true;
		} else if (strcmp(o, "wildcard") == 0 && st->type == IPSET_HASH_NET_IFACE) {
			wild = true;
		} else if ((strcmp(o, "before") == 0 || strcmp(o, "after") == 0) &&
			   st->type == IPSET_LIST_SET && i + 1 < p->n && where == 0) {
			where = o[0] == 'b' ? -1 : 1;
			at_tok = ++i;
		} else {
			return perr(p, &p->t[i], "ipset option not supported");
		}
	}
	memset(&e, 0, sizeof(e));
	e.expires = timeout != 0 ? p->now + timeout : 0;
	if (st->type == IPSET_LIST_SET)
		return list_add(p, st, at_tok, where, e.expires);
	if (st->type == IPSET_BITMAP_PORT) {
		struct lex_port_range r;
		unsigned int cnt;
		static const struct lex_port_syntax rs = {.range = '-', .max = 1};

		if (lex_ports(&rs, p->t[2].s, strlen(p->t[2].s), &r, &cnt, NULL) != 0 ||
			r.lo < st->port_min || r.hi > st->port_max)
			return perr(p, &p->t[2], "bad port");
		if (e.expires != 0 && st->bit_exp == NULL) {
			st->bit_exp = calloc(65536, sizeof(*st->bit_exp));
			if (st->bit_exp == NULL)
				return -ENOMEM;
		}
		for (uint32_t v = r.lo; v <= r.hi; v++) {
			st->bits[v / 64] |= 1ull << (v % 64);
			if (st->bit_exp != NULL)
				st->bit_exp[v] = e.expires;
		}
		return 0;
	}
	if (st->type == IPSET_HASH_IP || st->type == IPSET_BITMAP_IP)
		return hosts_add(p, st, &e);
	if (entry_parse(p, st, p->t[2].s, &e) < 0)
		return -EINVAL;
	e.wild = wild;
	e.nomatch = nomatch;
	return ent_add(p, st, &e);
}

static int
line_add(struct ipset_parser *p)
{
	int idx;

	if (p->n < 3)
		return perr(p, &p->t[p->n - 1], "missing value");
	idx = rule_ipsets_find(p->sets, p->t[1].s);
	if (idx < 0)
		return perr(p, &p->t[1], "set not created");
	return add_into(p, &p->sets->s[idx]);
}

static void
set_contents_free(struct ipset *st)
{
	free(st->e);
	free(st->bits);
	free(st->bit_exp);
	st->e = NULL;
	st->bits = NULL;
	st->bit_exp = NULL;
}

/*
 * del NAME ENTRY: the members the entry names (as an add line names them)
 * leave the set; one that is not there is an error, as in ipset, unless
 * -exist.
 */
static int
line_del(struct ipset_parser *p)
{
	struct ipset *st, tmp;
	int idx, rc;

	if (p->n < 3)
		return perr(p, &p->t[p->n - 1], "missing value");
	idx = rule_ipsets_find(p->sets, p->t[1].s);
	if (idx < 0)
		return perr(p, &p->t[1], "set not created");
	st = &p->sets->s[idx];
	/* The entry parsed into an empty set of the same kind, then taken out. */
	tmp = *st;
	tmp.e = NULL;
	tmp.n = tmp.cap = 0;
	tmp.bits = NULL;
	tmp.bit_exp = NULL;
	tmp.n_list = 0;
	tmp.maxelem = UINT32_MAX;
	tmp.list_size = IPSET_LIST_MAX;
	if (st->type == IPSET_BITMAP_PORT) {
		tmp.bits = calloc(65536 / 64, sizeof(*tmp.bits));
		if (tmp.bits == NULL)
			return -ENOMEM;
	}
	rc = add_into(p, &tmp);
	for (uint32_t j = 0; rc == 0 && j < tmp.n; j++) {
		uint32_t k;

		for (k = 0; k < st->n && ipset_ent_cmp(&st->e[k], &tmp.e[j]) != 0; k++)
			;
		if (k == st->n) {
			if (!p->exist)
				rc = perr(p, &p->t[2], "not in the set");
			continue;
		}
		st->e[k] = st->e[--st->n];
	}
	for (uint32_t w = 0; rc == 0 && tmp.bits != NULL && w < 65536 / 64; w++) {
		if ((st->bits[w] & tmp.bits[w]) != tmp.bits[w] && !p->exist)
			rc = perr(p, &p->t[2], "not in the set");
		st->bits[w] &= ~tmp.bits[w];
	}
	for (uint32_t j = 0; rc == 0 && j < tmp.n_list; j++) {
		uint32_t k;

		for (k = 0; k < st->n_list && st->list[k] != tmp.list[j]; k++)
			;
		if (k == st->n_list) {
			if (!p->exist)
				rc = perr(p, &p->t[2], "set not in the list");
			continue;
		}
		memmove(&st->list[k], &st->list[k + 1], (st->n_list - k - 1) * sizeof(st->list[0]));
		memmove(&st->list_exp[k], &st->list_exp[k + 1],
			(st->n_list - k - 1) * sizeof(st->list_exp[0]));
		st->n_list--;
	}
	set_contents_free(&tmp);
	return rc;
}

/* flush [NAME]: the set's members (every set's) go; the sets stay. */
static int
line_flush(struct ipset_parser *p)
{
	int idx = -1;

	if (p->n > 2)
		return perr(p, &p->t[2], "unexpected word");
	if (p->n == 2 && (idx = rule_ipsets_find(p->sets, p->t[1].s)) < 0)
		return perr(p, &p->t[1], "set not created");
	for (unsigned int i = 0; i < p->sets->n; i++) {
		struct ipset *st = &p->sets->s[i];

		if (idx >= 0 && i != (unsigned int)idx)
			continue;
		st->n = 0;
		st->n_list = 0;
		if (st->bits != NULL)
			memset(st->bits, 0, 65536 / 8);
	}
	return 0;
}

/* Is set @p i a member of a list:set? */
static bool
listed(const struct rule_ipsets *sets, unsigned int i)
{
	for (unsigned int l = 0; l < sets->n; l++)
		for (uint32_t k = 0; k < sets->s[l].n_list; k++)
			if (sets->s[l].list[k] == i)
				return true;
	return false;
}

/* destroy [NAME]: the set (every set) goes; one a list:set holds stays, an error (as ipset's "in use"). */
static int
line_destroy(struct ipset_parser *p)
{
	int idx = -1;

	if (p->n > 2)
		return perr(p, &p->t[2], "unexpected word");
	if (p->n == 2 && (idx = rule_ipsets_find(p->sets, p->t[1].s)) < 0)
		return perr(p, &p->t[1], "set not created");
	if (idx < 0) {
		for (unsigned int i = 0; i < p->sets->n; i++)
			set_contents_free(&p->sets->s[i]);
		p->sets->n = 0;
		return 0;
	}
	if (listed(p->sets, (unsigned int)idx))
		return perr(p, &p->t[1], "set in use by a list:set");
	set_contents_free(&p->sets->s[idx]);
	memmove(&p->sets->s[idx], &p->sets->s[idx + 1],
		(p->sets->n - (unsigned int)idx - 1) * sizeof(p->sets->s[0]));
	p->sets->n--;
	for (unsigned int l = 0; l < p->sets->n; l++)
		for (uint32_t k = 0; k < p->sets->s[l].n_list; k++)
			if (p->sets->s[l].list[k] > idx)
				p->sets->s[l].list[k]--;
	return 0;
}

/* rename FROM TO; swap A B (the members change places, the names stay; same type and family). */
static int
line_rename_swap(struct ipset_parser *p, bool swap)
{
	int a, b;

	if (p->n != 3)
		return perr(p, &p->t[p->n < 3 ? p->n - 1 : 3],
			p->n < 3 ? "missing value" : "unexpected word");
	a = rule_ipsets_find(p->sets, p->t[1].s);
	if (a < 0)
		return perr(p, &p->t[1], "set not created");
	b = rule_ipsets_find(p->sets, p->t[2].s);
	if (!swap) {
		if (b >= 0)
			return perr(p, &p->t[2], "a set of that name exists");
		if (strlen(p->t[2].s) >= RULE_XNAME_MAX || p->t[2].s[0] == '\0')
			return perr(p, &p->t[2], "bad set name");
		snprintf(p->sets->s[a].name, sizeof(p->sets->s[a].name), "%s", p->t[2].s);
		return 0;
	}
	if (b < 0)
		return perr(p, &p->t[2], "set not created");
	if (p->sets->s[a].type != p->sets->s[b].type || p->sets->s[a].family != p->sets->s[b].family)
		return perr(p, &p->t[2], "sets of another type or family cannot be swapped");
	{
		struct ipset t = p->sets->s[a];
		char na[RULE_XNAME_MAX], nb[RULE_XNAME_MAX];

		memcpy(na, p->sets->s[a].name, sizeof(na));
		memcpy(nb, p->sets->s[b].name, sizeof(nb));
		p->sets->s[a] = p->sets->s[b];
		p->sets->s[b] = t;
		memcpy(p->sets->s[a].name, na, sizeof(na));
		memcpy(p->sets->s[b].name, nb, sizeof(nb));
	}
	return 0;
}

static int
parse_line(struct ipset_parser *p, char *line)
{
	struct lex_fault f;

	if (lex_split(&ipset_syntax, line, line, p->t, &p->n, &f) != 0)
		return lex_fail_fault(&p->w, 1, line, &f, NULL);
	if (p->n == 0 || p->t[0].s[0] == '#')
		return 0;
	/* -exist (-!) may stand anywhere on a line, as on ipset's command line. */
	p->exist = false;
	for (unsigned int i = 1, j = 1; i <= p->n; i++) {
		if (i < p->n && (strcmp(p->t[i].s, "-exist") == 0 || strcmp(p->t[i].s, "-!") == 0)) {
			p->exist = true;
			continue;
		}
		if (i == p->n) {
			p->n = j;
			break;
		}
		p->t[j++] = p->t[i];
	}
	if (strcmp(p->t[0].s, "create") == 0 || strcmp(p->t[0].s, "-N") == 0)
		return line_create(p);
	if (strcmp(p->t[0].s, "add") == 0 || strcmp(p->t[0].s, "-A") == 0)
		return line_add(p);
	if (strcmp(p->t[0].s, "del") == 0 || strcmp(p->t[0].s, "-D") == 0)
		return line_del(p);
	if (strcmp(p->t[0].s, "flush") == 0 || strcmp(p->t[0].s, "-F") == 0)
		return line_flush(p);
	if (strcmp(p->t[0].s, "destroy") == 0 || strcmp(p->t[0].s, "-X") == 0)
		return line_destroy(p);
	if (strcmp(p->t[0].s, "rename") == 0 || strcmp(p->t[0].s, "-E") == 0)
		return line_rename_swap(p, false);
	if (strcmp(p->t[0].s, "swap") == 0 || strcmp(p->t[0].s, "-W") == 0)
		return line_rename_swap(p, true);
	return perr(p, &p->t[0],
		"expected create, add, del, flush, destroy, rename or swap (as ipset restore)");
}

struct rule_ipsets *
rule_ipsets_parse(const char *text, const char *name, uint64_t now_s, struct rule_error *err)
{
	struct ipset_parser p = {.w = {.file = name, .err = err}, .now = now_s};
	struct lex_reader rd;
	char *line;
	int rc;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (text == NULL) {
		errno = EINVAL;
		return NULL;
	}
	p.sets = calloc(1, sizeof(*p.sets));
	if (p.sets == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p.sets->refs = 1;
	lex_reader_init(&rd, text);
	while ((rc = lex_reader_next(&rd, &line, NULL)) == 1) {
		p.w.line = rd.line;
		rc = parse_line(&p, line);
		if (rc < 0)
			break;
	}
	lex_reader_fini(&rd);
	if (rc == 0)
		for (unsigned int i = 0; i < p.sets->n; i++) {
			struct ipset *st = &p.sets->s[i];
			uint32_t m = 0;

			if (st->n > 1)
				qsort(st->e, st->n, sizeof(*st->e), ipset_ent_cmp);
			/* Re-adding a member keeps one (the last timeout wins only in a real ipset). */
			for (uint32_t j = 0; j < st->n; j++)
				if (m == 0 || ipset_ent_cmp(&st->e[m - 1], &st->e[j]) != 0)
					st->e[m++] = st->e[j];
			st->n = m;
			for (uint32_t j = 0; j < st->n; j++)
				ipset_lens_count(st, &st->e[j], 1);
		}
	if (rc < 0) {
		rule_ipsets_free(p.sets);
		if (rc == -ENOMEM && err != NULL)
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		errno = -rc;
		return NULL;
	}
	return p.sets;
}

struct rule_ipsets *
rule_ipsets_load(const char *path, uint64_t now_s, struct rule_error *err)
{
	struct rule_ipsets *s;
	char *text = lex_file_read(path, err);
	int e;

	if (text == NULL)
		return NULL;
	s = rule_ipsets_parse(text, path, now_s, err);
	e = s == NULL ? errno : 0;
	free(text);
	errno = e;
	return s;
}

