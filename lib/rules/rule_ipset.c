/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: ipsets — the named sets "-m set --match-set" looks packets up
 * in, read from the files "ipset save" writes ("create NAME TYPE ..." and
 * "add NAME ENTRY ..." lines): hash:ip, hash:net, hash:ip,port,
 * hash:net,port, hash:ip,port,ip, hash:net,iface and bitmap:port, IPv4
 * and IPv6, with per-entry timeouts counted from the load. A loaded collection is reference counted: rule sets that use it
 * share it (rule_set_ipsets()). Lookups are rule_ipsets_test(); "-j SET"
 * changes members with rule_ipsets_apply(), from the one thread that
 * looks members up (the engine's rules lcore); names and types never change.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rule_lang.h"
#include "rule_priv.h"
#include "rule_x_priv.h"

enum ipset_type {
	IPSET_HASH_IP,
	IPSET_HASH_NET,
	IPSET_HASH_IP_PORT,
	IPSET_HASH_NET_PORT,
	IPSET_HASH_IP_PORT_IP,
	IPSET_HASH_NET_IFACE,
	IPSET_BITMAP_PORT,
};

static const char *const ipset_types[] = {
	[IPSET_HASH_IP] = "hash:ip",
	[IPSET_HASH_NET] = "hash:net",
	[IPSET_HASH_IP_PORT] = "hash:ip,port",
	[IPSET_HASH_NET_PORT] = "hash:net,port",
	[IPSET_HASH_IP_PORT_IP] = "hash:ip,port,ip",
	[IPSET_HASH_NET_IFACE] = "hash:net,iface",
	[IPSET_BITMAP_PORT] = "bitmap:port",
};

/* What a type's members are made of (bitmap:port aside). */
#define IPSET_NET   1u /**< the first address is a network (a prefix length per member) */
#define IPSET_PORT  2u /**< a protocol and port second */
#define IPSET_ADDR2 4u /**< a second address third */
#define IPSET_IFACE 8u /**< an interface name second */

static const uint8_t ipset_shape[] = {
	[IPSET_HASH_IP] = 0,
	[IPSET_HASH_NET] = IPSET_NET,
	[IPSET_HASH_IP_PORT] = IPSET_PORT,
	[IPSET_HASH_NET_PORT] = IPSET_NET | IPSET_PORT,
	[IPSET_HASH_IP_PORT_IP] = IPSET_PORT | IPSET_ADDR2,
	[IPSET_HASH_NET_IFACE] = IPSET_NET | IPSET_IFACE,
	[IPSET_BITMAP_PORT] = 0,
};

/** Longest interface name a member holds (Linux's IFNAMSIZ less its NUL). */
#define IPSET_IFNAME_MAX 16

/**
 * One member: an address (a prefix for the net types), a port with its
 * protocol, a second address, an interface name (hash:net,iface: @c wild
 * makes it a prefix of the names it matches). Unused fields are zero.
 */
struct ipset_ent {
	uint8_t addr[16];
	uint8_t addr2[16];
	uint8_t len;
	uint8_t proto;
	uint16_t port;
	uint8_t wild; /**< hash:net,iface "wildcard": @c iface is a prefix */
	char iface[IPSET_IFNAME_MAX];
	uint64_t expires; /**< wall-clock second it expires at, 0: never */
};

struct ipset {
	char name[RULE_XNAME_MAX];
	uint8_t type;   /**< enum ipset_type */
	uint8_t family; /**< FC_AF_INET4/6; 0 for bitmap:port */
	uint16_t port_min, port_max; /**< bitmap:port range */
	uint32_t timeout;            /**< default entry timeout, 0: none */
	uint32_t n, cap;
	struct ipset_ent *e; /**< sorted (len, addr, proto, port) once loaded */
	uint64_t *bits;      /**< bitmap:port: one bit per port */
	uint64_t *bit_exp;   /**< bitmap:port: per-port expiry (NULL without timeouts) */
};

struct rule_ipsets {
	unsigned int refs;
	unsigned int n;
	struct ipset *s;
};

/* ------------------------------------------------------------------------ */
/* Lifetime                                                                  */
/* ------------------------------------------------------------------------ */

void
rule_ipsets_ref(struct rule_ipsets *sets)
{
	__atomic_add_fetch(&sets->refs, 1, __ATOMIC_RELAXED);
}

void
rule_ipsets_free(struct rule_ipsets *sets)
{
	if (sets == NULL || __atomic_sub_fetch(&sets->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (unsigned int i = 0; i < sets->n; i++) {
		free(sets->s[i].e);
		free(sets->s[i].bits);
		free(sets->s[i].bit_exp);
	}
	free(sets->s);
	free(sets);
}

unsigned int
rule_ipsets_count(const struct rule_ipsets *sets)
{
	return sets == NULL ? 0 : sets->n;
}

const char *
rule_ipsets_name(const struct rule_ipsets *sets, unsigned int i)
{
	return sets == NULL || i >= sets->n ? NULL : sets->s[i].name;
}

int
rule_ipsets_find(const struct rule_ipsets *sets, const char *name)
{
	for (unsigned int i = 0; sets != NULL && i < sets->n; i++)
		if (strcmp(sets->s[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Dimensions of a set's members: address, port or interface, second address. */
static unsigned int
set_dims(const struct ipset *st)
{
	return 1 + !!(ipset_shape[st->type] & (IPSET_PORT | IPSET_IFACE)) +
	       !!(ipset_shape[st->type] & IPSET_ADDR2);
}

unsigned int
rule_ipsets_dims(const struct rule_ipsets *sets, int idx)
{
	if (sets == NULL || idx < 0 || (unsigned int)idx >= sets->n)
		return 0;
	return set_dims(&sets->s[idx]);
}

/* ------------------------------------------------------------------------ */
/* Lookups                                                                   */
/* ------------------------------------------------------------------------ */

static int
ent_cmp(const void *a, const void *b)
{
	const struct ipset_ent *x = a, *y = b;
	int c;

	if (x->len != y->len)
		return (int)x->len - (int)y->len;
	c = memcmp(x->addr, y->addr, sizeof(x->addr));
	if (c != 0)
		return c;
	if (x->proto != y->proto)
		return (int)x->proto - (int)y->proto;
	if (x->port != y->port)
		return (int)x->port - (int)y->port;
	c = memcmp(x->addr2, y->addr2, sizeof(x->addr2));
	if (c != 0)
		return c;
	c = strncmp(x->iface, y->iface, sizeof(x->iface));
	if (c != 0)
		return c;
	return (int)x->wild - (int)y->wild;
}

static bool
alive(uint64_t expires, uint64_t now)
{
	return expires == 0 || now == 0 || now < expires;
}

/* Does member @p e's interface (a name, or a prefix when wild) match @p name? */
static bool
iface_match(const struct ipset_ent *e, const char *name)
{
	if (e->wild)
		return strncmp(e->iface, name, strnlen(e->iface, sizeof(e->iface))) == 0;
	return strlen(name) < sizeof(e->iface) && strncmp(e->iface, name, sizeof(e->iface)) == 0;
}

/*
 * hash:net,iface: the first member of @p k's network (len, addr) whose
 * interface matches @p name, live at @p now or (@p any) whether or not;
 * -1 if none. The members of a network are adjacent (the
 * interface sorts last; @p k's is empty, so it sorts first).
 */
static int64_t
iface_find(const struct ipset *st, const struct ipset_ent *k, const char *name, uint64_t now,
	bool any)
{
	uint32_t lo = 0, hi = st->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ent_cmp(&st->e[mid], k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < st->n && st->e[lo].len == k->len &&
	       memcmp(st->e[lo].addr, k->addr, sizeof(k->addr)) == 0;
		lo++)
		if (iface_match(&st->e[lo], name) && (any || alive(st->e[lo].expires, now)))
			return lo;
	return -1;
}

/* A live member equal to @p k; for hash:net,iface, one matching @p name (iface_find()). */
static bool
ent_find(const struct ipset *st, const struct ipset_ent *k, const char *name, uint64_t now)
{
	const struct ipset_ent *e;

	if (st->n == 0)
		return false;
	if (ipset_shape[st->type] & IPSET_IFACE)
		return iface_find(st, k, name, now, false) >= 0;
	e = bsearch(k, st->e, st->n, sizeof(*st->e), ent_cmp);
	return e != NULL && alive(e->expires, now);
}

static void
mask_to(uint8_t *a, unsigned int len)
{
	for (unsigned int i = len; i < 128; i++)
		a[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
}

/*
 * The member a packet stands for in set @p st (the fields @p ref names;
 * @p ifn: the names of its ports): 1 with @p key filled (len: the host's;
 * a hash:net caller sets its own), 0 when the packet has no such member
 * (another family, no ports, no input or output port of a name), -EINVAL
 * for fewer dimensions than the set needs.
 */
static int
pkt_member(const struct ipset *st, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, struct ipset_ent *key)
{
	const struct fc_key *k = &p->key;
	uint8_t proto = fc_key_proto(k);
	bool dst = ref->dirs & 1;

	memset(key, 0, sizeof(*key));
	if (st->type == IPSET_BITMAP_PORT) {
		if ((proto != RULE_PROTO_TCP && proto != RULE_PROTO_UDP && proto != RULE_PROTO_SCTP &&
			    proto != 136) ||
			(p->flags & RULE_PKT_F_NOPORTS))
			return 0;
		key->port = ntohs(dst ? fc_key_dport(k) : fc_key_sport(k));
		return key->port >= st->port_min && key->port <= st->port_max;
	}
	if (k->family != st->family)
		return 0;
	memcpy(key->addr, dst ? fc_key_dst(k) : fc_key_src(k), fc_af_addr_len(k->family));
	key->len = (uint8_t)fc_af_max_depth(k->family);
	if (ipset_shape[st->type] & IPSET_PORT) {
		bool pdst;

		if (ref->ndims < set_dims(st))
			return -EINVAL;
		pdst = (ref->dirs >> 1) & 1;
		key->proto = proto;
		if (proto == RULE_PROTO_TCP || proto == RULE_PROTO_UDP || proto == RULE_PROTO_SCTP ||
			proto == 136) {
			if (p->flags & RULE_PKT_F_NOPORTS)
				return 0;
			key->port = ntohs(pdst ? fc_key_dport(k) : fc_key_sport(k));
		} else if (proto == 1 || proto == 58) {
			key->port = (uint16_t)(p->icmp_type << 8 | p->icmp_code);
		}
	}
	if (ipset_shape[st->type] & IPSET_ADDR2)
		memcpy(key->addr2, (ref->dirs >> 2) & 1 ? fc_key_dst(k) : fc_key_src(k),
			fc_af_addr_len(k->family));
	if (ipset_shape[st->type] & IPSET_IFACE) {
		/* src: the input interface, dst: the output one (Linux: none is no member). */
		const char *name;

		if (ref->ndims < set_dims(st))
			return -EINVAL;
		name = rule_ifnames_get(ifn, (ref->dirs >> 1) & 1 ? p->out_port : p->in_port);
		if (name[0] == '\0' || strlen(name) >= sizeof(key->iface))
			return 0;
		memcpy(key->iface, name, strlen(name) + 1);
	}
	return 1;
}

int
rule_ipsets_test(const struct rule_ipsets *sets, const struct rule_x_set *ref,
	const struct rule_pkt *p, const struct rule_ifnames *ifn)
{
	int idx = rule_ipsets_find(sets, ref->name);
	const struct ipset *st;
	struct ipset_ent key;
	uint8_t lens[129] = {0};
	uint8_t addr[16];
	char name[IPSET_IFNAME_MAX];
	int rc;

	if (idx < 0)
		return -ENOENT;
	st = &sets->s[idx];
	rc = pkt_member(st, ref, p, ifn, &key);
	if (rc <= 0)
		return rc;
	if (st->type == IPSET_BITMAP_PORT) {
		if (!(st->bits[key.port / 64] & (1ull << (key.port % 64))))
			return 0;
		return st->bit_exp == NULL || alive(st->bit_exp[key.port], p->time_s);
	}
	/* The interface is matched by ent_find() (a member's may be a prefix). */
	memcpy(name, key.iface, sizeof(name));
	memset(key.iface, 0, sizeof(key.iface));
	if (!(ipset_shape[st->type] & IPSET_NET))
		return ent_find(st, &key, name, p->time_s);
	/* hash:net, hash:net,port, hash:net,iface: every prefix length present, longest first. */
	memcpy(addr, key.addr, sizeof(addr));
	for (uint32_t i = 0; i < st->n; i++)
		lens[st->e[i].len] = 1;
	for (int len = 128; len >= 0; len--) {
		if (!lens[len])
			continue;
		memcpy(key.addr, addr, sizeof(addr));
		mask_to(key.addr, (unsigned int)len);
		key.len = (uint8_t)len;
		if (ent_find(st, &key, name, p->time_s))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Changes at run time (-j SET)                                              */
/* ------------------------------------------------------------------------ */

/* Where @p k is in the sorted members, or where it would go (*found false). */
static uint32_t
ent_pos(const struct ipset *st, const struct ipset_ent *k, bool *found)
{
	uint32_t lo = 0, hi = st->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = ent_cmp(&st->e[mid], k);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/*
 * Add (@p add) or delete the packet's member of one set. An add keeps a
 * live member as it is unless @p exist (then its timeout starts again);
 * a member past its timeout counts as absent. A hash:net member is the
 * packet's address under the longest prefix length the set holds (the
 * host's when it holds none), as the kernel's set does.
 */
static int
set_change(struct ipset *st, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, bool add, bool exist, uint32_t timeout)
{
	uint64_t exp = st->timeout != 0 && timeout != 0 ? p->time_s + timeout : 0;
	struct ipset_ent key;
	bool found;
	uint32_t at;
	int rc = pkt_member(st, ref, p, ifn, &key);

	if (rc <= 0)
		return rc;
	if (st->type == IPSET_BITMAP_PORT) {
		uint64_t bit = 1ull << (key.port % 64);
		bool live = (st->bits[key.port / 64] & bit) &&
			    (st->bit_exp == NULL || alive(st->bit_exp[key.port], p->time_s));

		if (!add) {
			st->bits[key.port / 64] &= ~bit;
			return live ? 1 : 0;
		}
		if (live && !exist)
			return 0;
		if (exp != 0 && st->bit_exp == NULL) {
			st->bit_exp = calloc(65536, sizeof(*st->bit_exp));
			if (st->bit_exp == NULL)
				return -ENOMEM;
		}
		st->bits[key.port / 64] |= bit;
		if (st->bit_exp != NULL)
			st->bit_exp[key.port] = exp;
		return live ? 0 : 1;
	}
	if (ipset_shape[st->type] & IPSET_NET) {
		uint8_t len = 0;

		for (uint32_t i = 0; i < st->n; i++)
			if (st->e[i].len > len)
				len = st->e[i].len;
		if (len != 0 && len < key.len) {
			key.len = len;
			mask_to(key.addr, len);
		}
	}
	at = ent_pos(st, &key, &found);
	if (!found && (ipset_shape[st->type] & IPSET_IFACE)) {
		/* As the kernel's: a wildcard member holding the name is the member. */
		struct ipset_ent net = key;
		int64_t w;

		memset(net.iface, 0, sizeof(net.iface));
		w = iface_find(st, &net, key.iface, 0, true);
		if (w >= 0) {
			at = (uint32_t)w;
			found = true;
		}
	}
	if (!add) {
		bool live = found && alive(st->e[at].expires, p->time_s);

		if (found) {
			memmove(&st->e[at], &st->e[at + 1], (st->n - at - 1) * sizeof(*st->e));
			st->n--;
		}
		return live ? 1 : 0;
	}
	if (found) {
		bool live = alive(st->e[at].expires, p->time_s);

		if (live && !exist)
			return 0;
		st->e[at].expires = exp;
		return live ? 0 : 1;
	}
	if (st->n == st->cap) {
		uint32_t cap = st->cap ? st->cap * 2 : 16;
		struct ipset_ent *ne = realloc(st->e, cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		st->e = ne;
		st->cap = cap;
	}
	memmove(&st->e[at + 1], &st->e[at], (st->n - at) * sizeof(*st->e));
	key.expires = exp;
	st->e[at] = key;
	st->n++;
	return 1;
}

int
rule_ipsets_apply(struct rule_ipsets *sets, const struct rule_x *tgt, const struct rule_pkt *p,
	const struct rule_ifnames *ifn)
{
	const struct rule_x_set_t *t = &tgt->u.set_t;
	bool exist = tgt->given & 8;
	int changed = 0;

	if (sets == NULL || tgt->kind != RULE_XT_SET)
		return -EINVAL;
	for (unsigned int i = 0; i < 2; i++) {
		const struct rule_x_set *ref = i == 0 ? &t->add : &t->del;
		int idx, rc;

		if (!(tgt->given & (1u << i)))
			continue;
		idx = rule_ipsets_find(sets, ref->name);
		if (idx < 0)
			return -ENOENT;
		rc = set_change(&sets->s[idx], ref, p, ifn, i == 0, exist,
			(tgt->given & 4) ? t->timeout : sets->s[idx].timeout);
		if (rc < 0)
			return rc;
		changed |= rc << i;
	}
	return changed;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */
/* ------------------------------------------------------------------------ */

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

/* create NAME TYPE [family inet|inet6] [range A-B] [timeout N] [other options] */
static int
line_create(struct ipset_parser *p)
{
	struct ipset *st;
	unsigned int type;

	if (p->n < 3)
		return perr(p, &p->t[p->n - 1], "missing value");
	if (strlen(p->t[1].s) >= RULE_XNAME_MAX || p->t[1].s[0] == '\0')
		return perr(p, &p->t[1], "bad set name");
	if (rule_ipsets_find(p->sets, p->t[1].s) >= 0)
		return perr(p, &p->t[1], "set created twice");
	for (type = 0; type < RTE_DIM(ipset_types); type++)
		if (strcmp(ipset_types[type], p->t[2].s) == 0)
			break;
	if (type == RTE_DIM(ipset_types))
		return perr(p, &p->t[2], "ipset type not supported");
	if (p->sets->n == p->cap) {
		unsigned int cap = p->cap ? p->cap * 2 : 8;
		struct ipset *ns = realloc(p->sets->s, cap * sizeof(*ns));

		if (ns == NULL)
			return -ENOMEM;
		p->sets->s = ns;
		p->cap = cap;
	}
	st = &p->sets->s[p->sets->n];
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", p->t[1].s);
	st->type = (uint8_t)type;
	st->family = type == IPSET_BITMAP_PORT ? 0 : FC_AF_INET4;
	for (unsigned int i = 3; i < p->n; i++) {
		const char *o = p->t[i].s;
		bool val = i + 1 < p->n;
		uint32_t v;

		if (strcmp(o, "family") == 0 && val && type != IPSET_BITMAP_PORT) {
			i++;
			if (strcmp(p->t[i].s, "inet") == 0)
				st->family = FC_AF_INET4;
			else if (strcmp(p->t[i].s, "inet6") == 0)
				st->family = FC_AF_INET6;
			else
				return perr(p, &p->t[i], "expected inet or inet6");
		} else if (strcmp(o, "range") == 0 && val && type == IPSET_BITMAP_PORT) {
			struct lex_port_range r;
			unsigned int cnt;
			static const struct lex_port_syntax rs = {.range = '-', .max = 1};

			i++;
			if (lex_ports(&rs, p->t[i].s, strlen(p->t[i].s), &r, &cnt, NULL) != 0)
				return perr(p, &p->t[i], "bad port range");
			st->port_min = r.lo;
			st->port_max = r.hi;
		} else if (strcmp(o, "timeout") == 0 && val) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &st->timeout))
				return perr(p, &p->t[i], "bad timeout");
		} else if ((strcmp(o, "hashsize") == 0 || strcmp(o, "maxelem") == 0 ||
				   strcmp(o, "bucketsize") == 0 || strcmp(o, "initval") == 0) &&
			   val) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &v))
				return perr(p, &p->t[i], "bad number");
		} else if (strcmp(o, "comment") == 0 || strcmp(o, "counters") == 0 ||
			   strcmp(o, "skbinfo") == 0 || strcmp(o, "forceadd") == 0) {
			/* Entry annotations: they change no lookup. */
		} else {
			return perr(p, &p->t[i], "ipset option not supported");
		}
	}
	if (type == IPSET_BITMAP_PORT) {
		if (st->port_max == 0)
			return perr(p, &p->t[2], "bitmap:port needs a range");
		st->bits = calloc(65536 / 64, sizeof(*st->bits));
		if (st->bits == NULL)
			return -ENOMEM;
	}
	p->sets->n++;
	return 0;
}

static int
ent_add(struct ipset *st, const struct ipset_ent *e)
{
	if (st->n == st->cap) {
		uint32_t cap = st->cap ? st->cap * 2 : 16;
		struct ipset_ent *ne = realloc(st->e, cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		st->e = ne;
		st->cap = cap;
	}
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
 * "A[/LEN],IFACE" or "A,[PROTO:]PORT,B" as the set's type has it. 0, or
 * -EINVAL with the error reported.
 */
static int
entry_parse(struct ipset_parser *p, const struct ipset *st, struct ipset_ent *e)
{
	unsigned int shape = ipset_shape[st->type];
	unsigned int want = set_dims(st);
	const struct lex_tok *t = &p->t[2];
	char buf[128], *part[3];
	unsigned int n = 0;
	uint8_t len2;

	if (strlen(t->s) >= sizeof(buf))
		return perr(p, t, "bad entry");
	snprintf(buf, sizeof(buf), "%s", t->s);
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
	if ((shape & IPSET_ADDR2) && !addr_of(st, part[2], false, e->addr2, &len2))
		return perr(p, t, "bad address");
	return 0;
}

/* add NAME ENTRY [timeout N] [comment TEXT] [packets N bytes N] [wildcard] ... */
static int
line_add(struct ipset_parser *p)
{
	struct ipset_ent e;
	struct ipset *st;
	uint32_t timeout;
	bool wild = false;
	int idx;

	if (p->n < 3)
		return perr(p, &p->t[p->n - 1], "missing value");
	idx = rule_ipsets_find(p->sets, p->t[1].s);
	if (idx < 0)
		return perr(p, &p->t[1], "set not created");
	st = &p->sets->s[idx];
	timeout = st->timeout;
	for (unsigned int i = 3; i < p->n; i++) {
		const char *o = p->t[i].s;

		if (strcmp(o, "timeout") == 0 && i + 1 < p->n) {
			if (!u32_of(p->t[++i].s, UINT32_MAX, &timeout))
				return perr(p, &p->t[i], "bad timeout");
		} else if ((strcmp(o, "comment") == 0 || strcmp(o, "packets") == 0 ||
				   strcmp(o, "bytes") == 0) &&
			   i + 1 < p->n) {
			i++;
		} else if (strcmp(o, "nomatch") == 0) {
			return perr(p, &p->t[i], "nomatch entries are not supported");
		} else if (strcmp(o, "wildcard") == 0 && st->type == IPSET_HASH_NET_IFACE) {
			wild = true;
		} else {
			return perr(p, &p->t[i], "ipset option not supported");
		}
	}
	memset(&e, 0, sizeof(e));
	e.expires = timeout != 0 ? p->now + timeout : 0;
	if (st->type == IPSET_BITMAP_PORT) {
		struct lex_port_range r;
		unsigned int cnt;
		static const struct lex_port_syntax rs = {.range = '-', .max = 1};

		if (lex_ports(&rs, p->t[2].s, strlen(p->t[2].s), &r, &cnt, NULL) != 0 ||
			r.lo < st->port_min || r.hi > st->port_max)
			return perr(p, &p->t[2], "bad port");
		if (timeout != 0 && st->bit_exp == NULL) {
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
	if (entry_parse(p, st, &e) < 0)
		return -EINVAL;
	e.wild = wild;
	return ent_add(st, &e);
}

static int
parse_line(struct ipset_parser *p, char *line)
{
	struct lex_fault f;

	if (lex_split(&ipset_syntax, line, line, p->t, &p->n, &f) != 0)
		return lex_fail_fault(&p->w, 1, line, &f, NULL);
	if (p->n == 0 || p->t[0].s[0] == '#')
		return 0;
	if (strcmp(p->t[0].s, "create") == 0 || strcmp(p->t[0].s, "-N") == 0)
		return line_create(p);
	if (strcmp(p->t[0].s, "add") == 0 || strcmp(p->t[0].s, "-A") == 0)
		return line_add(p);
	return perr(p, &p->t[0], "only create and add lines are supported");
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
				qsort(st->e, st->n, sizeof(*st->e), ent_cmp);
			/* Re-adding a member keeps one (the last timeout wins only in a real ipset). */
			for (uint32_t j = 0; j < st->n; j++)
				if (m == 0 || ent_cmp(&st->e[m - 1], &st->e[j]) != 0)
					st->e[m++] = st->e[j];
			st->n = m;
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

const char *
rule_set_ipset_missing(const struct rule_set *s, uint32_t *rule)
{
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < s->t[t].n; i++) {
			const struct rule_chain *c = &s->t[t].chains[i];

			for (uint32_t j = 0; j < c->n_rules; j++) {
				const struct rule *r = &c->rules[j];
				const struct rule_x_set *refs[RULE_XM_MAX + 2];
				unsigned int n = 0;

				for (unsigned int x = 0; x < r->n_xm && x < RULE_XM_MAX; x++)
					if (r->xm[x].kind == RULE_XM_SET)
						refs[n++] = &r->xm[x].u.set;
				if (r->tgt.kind == RULE_XT_SET) {
					if (r->tgt.given & 1)
						refs[n++] = &r->tgt.u.set_t.add;
					if (r->tgt.given & 2)
						refs[n++] = &r->tgt.u.set_t.del;
				}
				for (unsigned int k = 0; k < n; k++) {
					int idx = rule_ipsets_find(s->ipsets, refs[k]->name);
					if (idx < 0 || refs[k]->ndims > rule_ipsets_dims(s->ipsets, idx)) {
						if (rule != NULL)
							*rule = r->id;
						return refs[k]->name;
					}
				}
			}
		}
	return NULL;
}
