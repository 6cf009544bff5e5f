/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: ipsets — the named sets "-m set --match-set" looks packets up
 * in (the sets themselves are read from "ipset save" files by
 * rule_ipset_load.c): hash:ip, hash:net, hash:ip,port, hash:net,port,
 * hash:ip,port,ip, hash:ip,port,net, hash:net,iface, bitmap:ip,
 * bitmap:port and list:set, IPv4 and IPv6, with per-entry timeouts counted
 * from the load and "nomatch" exceptions in the types with a network. A
 * loaded collection is reference counted: rule sets that use it share it
 * (rule_set_ipsets()). Lookups are rule_ipsets_test(); "-j SET" changes
 * members with rule_ipsets_apply(), from the one thread that looks
 * members up (the engine's rules lcore); names and types never change.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipset_priv.h"
#include "rule_lang.h"

const char *const ipset_types[IPSET__TYPES] = {
	[IPSET_HASH_IP] = "hash:ip",
	[IPSET_HASH_NET] = "hash:net",
	[IPSET_HASH_IP_PORT] = "hash:ip,port",
	[IPSET_HASH_NET_PORT] = "hash:net,port",
	[IPSET_HASH_IP_PORT_IP] = "hash:ip,port,ip",
	[IPSET_HASH_IP_PORT_NET] = "hash:ip,port,net",
	[IPSET_HASH_NET_IFACE] = "hash:net,iface",
	[IPSET_BITMAP_PORT] = "bitmap:port",
	[IPSET_BITMAP_IP] = "bitmap:ip",
	[IPSET_LIST_SET] = "list:set",
};

const uint8_t ipset_shape[IPSET__TYPES] = {
	[IPSET_HASH_IP] = 0,
	[IPSET_HASH_NET] = IPSET_NET,
	[IPSET_HASH_IP_PORT] = IPSET_PORT,
	[IPSET_HASH_NET_PORT] = IPSET_NET | IPSET_PORT,
	[IPSET_HASH_IP_PORT_IP] = IPSET_PORT | IPSET_ADDR2,
	[IPSET_HASH_IP_PORT_NET] = IPSET_PORT | IPSET_ADDR2 | IPSET_NET2,
	[IPSET_HASH_NET_IFACE] = IPSET_NET | IPSET_IFACE,
	[IPSET_BITMAP_PORT] = 0,
	[IPSET_BITMAP_IP] = 0,
	[IPSET_LIST_SET] = 0,
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
	/* A list:set passes the rule's dimensions to its members. */
	if (st->type == IPSET_LIST_SET)
		return 3;
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

int
ipset_ent_cmp(const void *a, const void *b)
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
	if (x->len2 != y->len2)
		return (int)x->len2 - (int)y->len2;
	c = memcmp(x->addr2, y->addr2, sizeof(x->addr2));
	if (c != 0)
		return c;
	c = strncmp(x->iface, y->iface, sizeof(x->iface));
	if (c != 0)
		return c;
	return (int)x->wild - (int)y->wild;
}

void
ipset_mask_to(uint8_t *a, unsigned int len)
{
	for (unsigned int i = len; i < 128; i++)
		a[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
}

int
ipset_ent_room(struct ipset *st)
{
	uint32_t cap;
	struct ipset_ent *ne;

	if (st->n < st->cap)
		return 0;
	cap = st->cap ? st->cap * 2 : 16;
	ne = realloc(st->e, cap * sizeof(*ne));
	if (ne == NULL)
		return -ENOMEM;
	st->e = ne;
	st->cap = cap;
	return 0;
}

void
ipset_lens_count(struct ipset *st, const struct ipset_ent *e, int d)
{
	if (ipset_shape[st->type] & IPSET_NET)
		st->lens[0][e->len] += (uint32_t)d;
	if (ipset_shape[st->type] & IPSET_NET2)
		st->lens[1][e->len2] += (uint32_t)d;
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

		if (ipset_ent_cmp(&st->e[mid], k) < 0)
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

/* The live member equal to @p k; for hash:net,iface, one matching @p name (iface_find()). */
static const struct ipset_ent *
ent_find(const struct ipset *st, const struct ipset_ent *k, const char *name, uint64_t now)
{
	const struct ipset_ent *e;
	int64_t i;

	if (st->n == 0)
		return NULL;
	if (ipset_shape[st->type] & IPSET_IFACE) {
		i = iface_find(st, k, name, now, false);
		return i >= 0 ? &st->e[i] : NULL;
	}
	e = bsearch(k, st->e, st->n, sizeof(*st->e), ipset_ent_cmp);
	return e != NULL && alive(e->expires, now) ? e : NULL;
}

/*
 * The first live member a lookup of @p k finds, as Linux's hash types
 * look: the networks the set holds from the longest prefix to the
 * shortest, the first address's outside, the second's inside (@p k's
 * addresses are the packet's, whole); NULL when none holds it.
 */
static const struct ipset_ent *
ent_lookup(const struct ipset *st, struct ipset_ent *k, const char *name, uint64_t now)
{
	unsigned int shape = ipset_shape[st->type];
	int hi1 = (shape & IPSET_NET) ? 128 : k->len, lo1 = (shape & IPSET_NET) ? 0 : k->len;
	int hi2 = (shape & IPSET_NET2) ? 128 : k->len2, lo2 = (shape & IPSET_NET2) ? 0 : k->len2;
	uint8_t a1[16], a2[16];

	if (!(shape & (IPSET_NET | IPSET_NET2)))
		return ent_find(st, k, name, now);
	memcpy(a1, k->addr, sizeof(a1));
	memcpy(a2, k->addr2, sizeof(a2));
	for (int i = hi1; i >= lo1; i--) {
		if ((shape & IPSET_NET) && st->lens[0][i] == 0)
			continue;
		for (int j = hi2; j >= lo2; j--) {
			const struct ipset_ent *e;

			if ((shape & IPSET_NET2) && st->lens[1][j] == 0)
				continue;
			memcpy(k->addr, a1, sizeof(a1));
			ipset_mask_to(k->addr, (unsigned int)i);
			k->len = (uint8_t)i;
			memcpy(k->addr2, a2, sizeof(a2));
			ipset_mask_to(k->addr2, (unsigned int)j);
			k->len2 = (uint8_t)j;
			e = ent_find(st, k, name, now);
			if (e != NULL)
				return e;
		}
	}
	return NULL;
}

/*
 * The member a packet stands for in set @p st (the fields @p ref names;
 * @p ifn: the names of its ports): 1 with @p key filled (len: the host's,
 * or the set's netmask; len2: 0, or the host's where the second address
 * is a network), 0 when the packet has no such member (another family,
 * no ports, no input or output port of a name, outside a bitmap's range),
 * -EINVAL for fewer dimensions than the set needs. The interface is
 * returned in @p key's iface.
 */
static int
pkt_member(const struct ipset *st, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, struct ipset_ent *key)
{
	const struct fc_key *k = &p->key;
	uint8_t proto = fc_key_proto(k);
	unsigned int shape = ipset_shape[st->type];
	bool dst = ref->dirs & 1;

	memset(key, 0, sizeof(*key));
	if (st->type == IPSET_BITMAP_PORT) {
		if ((proto != RULE_PROTO_TCP && proto != RULE_PROTO_UDP && proto != RULE_PROTO_SCTP &&
			    proto != RULE_PROTO_UDPLITE) ||
			(p->flags & RULE_PKT_F_NOPORTS))
			return 0;
		key->port = ntohs(dst ? fc_key_dport(k) : fc_key_sport(k));
		return key->port >= st->port_min && key->port <= st->port_max;
	}
	if (k->family != st->family)
		return 0;
	if (ref->ndims < set_dims(st))
		return -EINVAL;
	memcpy(key->addr, dst ? fc_key_dst(k) : fc_key_src(k), fc_af_addr_len(k->family));
	key->len = (uint8_t)fc_af_max_depth(k->family);
	if (st->type == IPSET_BITMAP_IP) {
		uint32_t a;

		memcpy(&a, key->addr, 4);
		a = ntohl(a);
		if (a < st->ip_min || a > st->ip_max)
			return 0;
	}
	if (st->netmask != 0 && !(shape & IPSET_NET)) {
		key->len = st->netmask;
		ipset_mask_to(key->addr, st->netmask);
	}
	if (shape & IPSET_PORT) {
		bool pdst = (ref->dirs >> 1) & 1;

		key->proto = proto;
		if (proto == RULE_PROTO_TCP || proto == RULE_PROTO_UDP || proto == RULE_PROTO_SCTP ||
			proto == RULE_PROTO_UDPLITE) {
			if (p->flags & RULE_PKT_F_NOPORTS)
				return 0;
			key->port = ntohs(pdst ? fc_key_dport(k) : fc_key_sport(k));
		} else if (proto == 1 || proto == 58) {
			key->port = (uint16_t)(p->icmp_type << 8 | p->icmp_code);
		}
	}
	if (shape & IPSET_ADDR2) {
		memcpy(key->addr2, (ref->dirs >> 2) & 1 ? fc_key_dst(k) : fc_key_src(k),
			fc_af_addr_len(k->family));
		if (shape & IPSET_NET2)
			key->len2 = (uint8_t)fc_af_max_depth(k->family);
	}
	if (shape & IPSET_IFACE) {
		/* src: the input interface, dst: the output one (Linux: none is no member). */
		const char *name = rule_ifnames_get(ifn, (ref->dirs >> 1) & 1 ? p->out_port : p->in_port);

		if (name[0] == '\0' || strlen(name) >= sizeof(key->iface))
			return 0;
		memcpy(key->iface, name, strlen(name) + 1);
	}
	return 1;
}

/* One set's answer (not a list:set): 1, 0, or pkt_member()'s error. */
static int
set_test(const struct ipset *st, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, bool return_nomatch)
{
	const struct ipset_ent *e;
	struct ipset_ent key;
	char name[IPSET_IFNAME_MAX];
	int rc = pkt_member(st, ref, p, ifn, &key);

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
	e = ent_lookup(st, &key, name, p->time_s);
	if (e == NULL)
		return 0;
	/* --return-nomatch turns the answer of a type that has exceptions over. */
	if (return_nomatch && ipset_nomatch_ok(st->type))
		return e->nomatch ? 1 : 0;
	return e->nomatch ? 0 : 1;
}

int
rule_ipsets_test_x(const struct rule_ipsets *sets, const struct rule_x_set *ref,
	const struct rule_pkt *p, const struct rule_ifnames *ifn, bool return_nomatch)
{
	int idx = rule_ipsets_find(sets, ref->name);
	const struct ipset *st;

	if (idx < 0)
		return -ENOENT;
	st = &sets->s[idx];
	if (st->type != IPSET_LIST_SET)
		return set_test(st, ref, p, ifn, return_nomatch);
	/* A list:set: its members in order, the first that holds the packet. */
	for (uint32_t i = 0; i < st->n_list; i++)
		if (alive(st->list_exp[i], p->time_s) &&
			set_test(&sets->s[st->list[i]], ref, p, ifn, return_nomatch) == 1)
			return 1;
	return 0;
}

int
rule_ipsets_test(const struct rule_ipsets *sets, const struct rule_x_set *ref,
	const struct rule_pkt *p, const struct rule_ifnames *ifn)
{
	return rule_ipsets_test_x(sets, ref, p, ifn, false);
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
		int c = ipset_ent_cmp(&st->e[mid], k);

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

/* The longest prefix length dimension @p d of the set holds, else @p host. */
static uint8_t
longest_len(const struct ipset *st, unsigned int d, uint8_t host)
{
	for (int len = host; len >= 0; len--)
		if (st->lens[d][len] != 0)
			return (uint8_t)len;
	return host;
}

/*
 * Add (@p add) or delete the packet's member of one set (not a list:set).
 * An add keeps a live member as it is unless @p exist (then its timeout
 * starts again and an exception becomes a member); a member past its
 * timeout counts as absent. A network is the packet's address under the
 * longest prefix length the set holds (the host's when it holds none), as
 * the kernel's set does. @p took: the set took the add (Linux's success:
 * added, or refreshed with --exist), which ends a list:set's search.
 * Returns 1 (added, or deleted a live member), 0, or a negative errno
 * (-ENOSPC: the set holds maxelem members).
 */
static int
set_change(struct ipset *st, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, bool add, bool exist, uint32_t timeout, bool *took)
{
	uint64_t exp = st->timeouts && timeout != 0 ? p->time_s + timeout : 0;
	struct ipset_ent key;
	bool found;
	uint32_t at;
	int rc = pkt_member(st, ref, p, ifn, &key);

	*took = false;
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
		*took = true;
		return live ? 0 : 1;
	}
	if (ipset_shape[st->type] & IPSET_NET) {
		key.len = longest_len(st, 0, key.len);
		ipset_mask_to(key.addr, key.len);
	}
	if (ipset_shape[st->type] & IPSET_NET2) {
		key.len2 = longest_len(st, 1, key.len2);
		ipset_mask_to(key.addr2, key.len2);
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
			ipset_lens_count(st, &st->e[at], -1);
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
		st->e[at].nomatch = 0;
		*took = true;
		return live ? 0 : 1;
	}
	if (st->n >= st->maxelem)
		return -ENOSPC;
	if (ipset_ent_room(st) < 0)
		return -ENOMEM;
	memmove(&st->e[at + 1], &st->e[at], (st->n - at) * sizeof(*st->e));
	key.expires = exp;
	st->e[at] = key;
	st->n++;
	ipset_lens_count(st, &key, 1);
	*took = true;
	return 1;
}

/*
 * One --add-set or --del-set of "-j SET" on set @p idx. A list:set adds to
 * the first member set that takes the add, deletes from the first that
 * held the member, as Linux's (a member set of another family, with fewer
 * dimensions or full is passed over).
 */
static int
change(struct rule_ipsets *sets, int idx, const struct rule_x_set *ref, const struct rule_pkt *p,
	const struct rule_ifnames *ifn, bool add, bool exist, int64_t timeout)
{
	struct ipset *st = &sets->s[idx];
	bool took;

	if (st->type != IPSET_LIST_SET)
		return set_change(st, ref, p, ifn, add, exist,
			timeout >= 0 ? (uint32_t)timeout : st->timeout, &took);
	for (uint32_t i = 0; i < st->n_list; i++) {
		struct ipset *m = &sets->s[st->list[i]];
		int rc;

		if (!alive(st->list_exp[i], p->time_s))
			continue;
		rc = set_change(m, ref, p, ifn, add, exist,
			timeout >= 0 ? (uint32_t)timeout : m->timeout, &took);
		if (rc == -ENOMEM)
			return rc;
		if (add ? took : rc == 1)
			return rc;
	}
	return 0;
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
		rc = change(sets, idx, ref, p, ifn, i == 0, exist,
			(tgt->given & 4) ? (int64_t)t->timeout : -1);
		if (rc < 0)
			return rc;
		changed |= rc << i;
	}
	return changed;
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
