/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat/nat_binding.c — the NAT table: creation, bindings for
 * SNAT, DNAT and MASQUERADE (address choice, source-port allocation with
 * unique reply tuples), the target counters, and the counters and dump
 * the shell shows. The per-packet rewrite, mod_nat_apply(), is inline in
 * nat.h and only reads the slots a bind fills (nat_csum.c).
 *
 * Pure C (no EAL, plain heap memory), so it runs under ASan/UBSan. Only the
 * rules lcore writes a table; nat.h says how slots are published to and
 * reclaimed from the RX lcores. A candidate translation is free when its
 * reply tuple is in neither tuple index (nat_index.c) and the optional busy
 * callback (the flow table) does not know it either.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_jhash.h>

#include "nat_priv.h"

/*
 * Source ports searched when the target gives no range, as Linux does
 * (nf_nat's port classes): a port below 512 stays below 512, one of
 * 512..1023 goes to 600..1023, any other to 1024..65535.
 */
#define PORT_LOW_MIN  1
#define PORT_LOW_MAX  511
#define PORT_MID_MIN  600
#define PORT_MID_MAX  1023
#define PORT_HIGH_MIN 1024
#define PORT_HIGH_MAX 65535

static_assert(offsetof(struct mod_nat, dp) == 0, "mod_nat_apply() needs the view first");
static_assert(sizeof(struct mod_nat_rewrite) == 64, "one rewrite slot per cache line");

static inline void
cnt_add64(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

static inline void
cnt_set32(uint32_t *c, uint32_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Build a normalized key; ports in network order. */
static void
key_build(struct fc_key *k, uint8_t family, uint8_t proto, const uint8_t *src, const uint8_t *dst,
	uint16_t sport, uint16_t dport, uint8_t flags)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	memcpy(fc_key_src_w(k), src, fc_af_addr_len(family));
	memcpy(fc_key_dst_w(k), dst, fc_af_addr_len(family));
	fc_key_set_ports(k, sport, dport);
	if (family == FC_AF_INET4)
		k->v4.proto = proto;
	else
		k->v6.proto = proto;
	fc_key_set_flags(k, flags);
}

/* ------------------------------------------------------------------------ */
/* Address ranges                                                            */
/* ------------------------------------------------------------------------ */

/*
 * Number of addresses in [lo, hi] (big-endian, @p len bytes, lo <= hi),
 * saturated at UINT64_MAX: larger IPv6 ranges use their first 2^64 - 1.
 */
static uint64_t
addr_count(const uint8_t *lo, const uint8_t *hi, uint32_t len)
{
	uint8_t d[16];
	uint64_t v = 0;
	int borrow = 0;
	uint32_t i;

	for (i = len; i-- > 0;) {
		int x = (int)hi[i] - (int)lo[i] - borrow;

		borrow = x < 0;
		d[i] = (uint8_t)(x + (borrow ? 256 : 0));
	}
	for (i = 0; i + 8 < len; i++)
		if (d[i] != 0)
			return UINT64_MAX;
	for (i = len > 8 ? len - 8 : 0; i < len; i++)
		v = v << 8 | d[i];
	return v == UINT64_MAX ? UINT64_MAX : v + 1;
}

/* out = base + off (big-endian, @p len bytes); the caller keeps it in range. */
static void
addr_add(const uint8_t *base, uint64_t off, uint8_t *out, uint32_t len)
{
	unsigned int carry = 0;
	uint32_t i;

	for (i = len; i-- > 0;) {
		unsigned int x = base[i] + (unsigned int)(off & 0xff) + carry;

		out[i] = (uint8_t)x;
		carry = x >> 8;
		off >>= 8;
	}
}

/* A target's ranges are sane: addresses (when @p need_addr) and ports. */
static bool
target_valid(const struct rule_nat *t, uint8_t family, bool need_addr)
{
	if (need_addr) {
		if (t->family != family)
			return false;
		if (memcmp(t->addr_min, t->addr_max, fc_af_addr_len(family)) > 0)
			return false;
	} else if (t->family != 0 && t->family != family) {
		return false;
	}
	return t->port_min == 0 || t->port_min <= t->port_max;
}

/* ------------------------------------------------------------------------ */
/* Target counters                                                           */
/* ------------------------------------------------------------------------ */

/*
 * Counters of target (@p action, addresses @p lo..@p hi, the port range of
 * @p ports); masquerade passes the outgoing address as a one-address
 * target. When full, recycles the least recently used entry without
 * bindings (not one this bind already took: tgt_clock ticks once per bind);
 * NAT_TGT_NONE if there is none (the target is then not counted).
 */
static uint16_t
target_get(struct mod_nat *nat, uint8_t action, uint8_t family, const uint8_t *lo,
	const uint8_t *hi, const struct rule_nat *ports)
{
	struct rule_nat key;
	struct nat_target *e;
	uint32_t i, pick = NAT_NONE;

	memset(&key, 0, sizeof(key));
	key.family = family;
	memcpy(key.addr_min, lo, fc_af_addr_len(family));
	memcpy(key.addr_max, hi, fc_af_addr_len(family));
	if (ports != NULL && ports->port_min != 0) {
		key.port_min = ports->port_min;
		key.port_max = ports->port_max;
	}
	for (i = 0; i < nat->n_targets; i++) {
		e = &nat->tgt[i];
		if (e->st.action == action && memcmp(&e->st.nat, &key, sizeof(key)) == 0) {
			e->last_use = nat->tgt_clock;
			return (uint16_t)i;
		}
	}
	if (nat->n_targets < nat->max_targets) {
		pick = nat->n_targets;
		cnt_set32(&nat->st.targets, ++nat->n_targets);
	} else {
		for (i = 0; i < nat->n_targets; i++) {
			e = &nat->tgt[i];
			if (e->st.active == 0 && e->last_use != nat->tgt_clock &&
				(pick == NAT_NONE || e->last_use < nat->tgt[pick].last_use))
				pick = i;
		}
		if (pick == NAT_NONE)
			return NAT_TGT_NONE;
	}
	e = &nat->tgt[pick];
	memset(e, 0, sizeof(*e));
	e->st.action = action;
	e->st.nat = key;
	e->last_use = nat->tgt_clock;
	return (uint16_t)pick;
}

static struct nat_target *
target_at(struct mod_nat *nat, uint16_t i)
{
	return i == NAT_TGT_NONE ? NULL : &nat->tgt[i];
}

/* ------------------------------------------------------------------------ */
/* Create / free                                                             */
/* ------------------------------------------------------------------------ */

struct mod_nat *
mod_nat_create(const struct mod_nat_params *p)
{
	struct mod_nat *nat;
	uint32_t nb, i, ix;
	void *mem = NULL;

	if (p == NULL || p->max_bindings == 0 || p->max_bindings > MOD_NAT_BINDINGS_MAX ||
		p->max_targets > NAT_TARGETS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	nat = calloc(1, sizeof(*nat));
	if (nat == NULL)
		goto nomem;
	nat->max_bindings = p->max_bindings;
	nat->seed = p->seed;
	nat->max_probes = p->max_probes != 0 ? p->max_probes : NAT_PROBES_DEFAULT;
	nat->max_targets = p->max_targets != 0 ? p->max_targets : NAT_TARGETS_DEFAULT;
	nat->is_local = p->is_local;
	nat->busy = p->busy;
	nat->cb_arg = p->cb_arg;

	if (posix_memalign(
		    &mem, 64, sizeof(struct mod_nat_rewrite) * 2 * (size_t)nat->max_bindings))
		goto nomem;
	nat->slots = mem;
	memset(nat->slots, 0, sizeof(struct mod_nat_rewrite) * 2 * (size_t)nat->max_bindings);
	nat->dp.slots = nat->slots;
	nat->dp.n_slots = 2 * nat->max_bindings;

	nat->b = calloc(nat->max_bindings, sizeof(*nat->b));
	nat->tgt = calloc(nat->max_targets, sizeof(*nat->tgt));
	if (nat->b == NULL || nat->tgt == NULL)
		goto nomem;
	for (nb = 16; nb < nat->max_bindings; nb <<= 1)
		;
	nat->bkt_mask = nb - 1;
	for (ix = 0; ix < IDX__COUNT; ix++) {
		nat->bkt[ix] = malloc(sizeof(uint32_t) * nb);
		if (nat->bkt[ix] == NULL)
			goto nomem;
		for (i = 0; i < nb; i++)
			nat->bkt[ix][i] = NAT_NONE;
	}
	nat->bkt_src = malloc(sizeof(uint32_t) * nb);
	if (nat->bkt_src == NULL)
		goto nomem;
	for (i = 0; i < nb; i++)
		nat->bkt_src[i] = NAT_NONE;
	/* free list in id order: the first bindings get the first slots */
	for (i = 0; i < nat->max_bindings; i++) {
		nat->b[i].next[IDX_REPLY] = i + 1 < nat->max_bindings ? i + 1 : NAT_NONE;
		nat->b[i].next[IDX_ORIG] = NAT_NONE;
		nat->b[i].next_src = NAT_NONE;
	}
	nat->free_head = 0;
	nat->st.capacity = nat->max_bindings;
	return nat;

nomem:
	mod_nat_free(nat);
	errno = ENOMEM;
	return NULL;
}

void
mod_nat_free(struct mod_nat *nat)
{
	if (nat == NULL)
		return;
	free(nat->bkt[IDX_REPLY]);
	free(nat->bkt[IDX_ORIG]);
	free(nat->bkt_src);
	free(nat->tgt);
	free(nat->b);
	free(nat->slots);
	free(nat);
}

/* ------------------------------------------------------------------------ */
/* Binding                                                                   */
/* ------------------------------------------------------------------------ */

/* What a bind decided so far. Ports in network order unless said. */
struct nat_plan {
	const struct fc_key *orig;
	uint8_t family;
	uint8_t proto;
	uint8_t echo; /* ICMP echo: the identifier is the "port" */
	uint32_t alen;
	uint8_t dst[16];   /* translated destination */
	uint16_t dport;	   /* translated destination port (echo: its type and code) */
	uint8_t dst_local; /* FC_KEY_F_DST_LOCAL of the translated key, or 0 */
	uint32_t port_lo;  /* source port search range, host order ... */
	uint32_t port_n;   /* ... and its size; 0: nothing to search */
	bool specified;	   /* the target gave the port range (else a class of ports) */
	bool random;       /* --random, --random-fully: never keep the original port */
	uint8_t src[16];   /* chosen source */
	uint16_t sport;	   /* chosen source port / identifier */
	uint8_t src_local; /* FC_KEY_F_SRC_LOCAL of the translated key, or 0 */
};

/* Local bit of a translated address: the original's if unchanged or unknown. */
static bool
addr_is_local(const struct mod_nat *nat, uint8_t family, const uint8_t *addr,
	const uint8_t *orig_addr, bool orig_local)
{
	if (nat->is_local == NULL || memcmp(addr, orig_addr, fc_af_addr_len(family)) == 0)
		return orig_local;
	return nat->is_local(nat->cb_arg, family, addr);
}

/*
 * The address of range @p t a DNAT gives a connection from @p src to
 * @p dst, as Linux picks it (nf_nat's choice among several addresses): a
 * lookup3 hash of the source (four 32-bit words, IPv4's first), seeded
 * with the destination's last word (0 with --persistent), scaled into the
 * range word by word from the top, each word chosen folded into the hash
 * (not with --persistent); a word below the range's top opens the next
 * words to their whole span (so an IPv6 range whose words differ may give
 * an address outside it, as the kernel's does). Deterministic, so a destination range
 * spreads connections the way the kernel does and the same client meets
 * the same server.
 */
static void
pick_addr(const struct rule_nat *t, const uint8_t *src, const uint8_t *dst, uint32_t alen,
	bool snat, uint8_t *out)
{
	bool persistent = (t->flags & RULE_NAT_F_PERSISTENT) != 0, full = false;
	uint32_t key[4] = {0, 0, 0, 0}, seed, j, lo, hi, dist, v;

	memcpy(key, src, alen);
	memcpy(&seed, dst + alen - 4, 4);
	j = rte_jhash_32b(key, 4, persistent ? 0 : seed);
	for (uint32_t i = 0; i < alen / 4; i++) {
		memcpy(&lo, t->addr_min + 4 * i, 4);
		memcpy(&hi, t->addr_max + 4 * i, 4);
		lo = full ? 0 : ntohl(lo);
		dist = full ? UINT32_MAX : ntohl(hi) - lo + 1;
		v = htonl(lo + (uint32_t)(((uint64_t)j * dist) >> 32));
		memcpy(out + 4 * i, &v, 4);
		if (v != hi)
			full = true;
		/*
		 * The destination's word: for DNAT the one just chosen (the
		 * kernel's tuple holds it by now), for SNAT the destination's own.
		 */
		if (!persistent) {
			uint32_t dw;

			memcpy(&dw, dst + 4 * i, 4);
			j ^= snat ? dw : v;
		}
	}
}

static void
plan_dst(const struct mod_nat *nat, const struct rule_nat *dnat, struct nat_plan *pl)
{
	const struct fc_key *o = pl->orig;
	uint32_t pn, dp;

	memcpy(pl->dst, fc_key_dst(o), pl->alen);
	pl->dport = fc_key_dport(o);
	if (dnat != NULL) {
		pick_addr(dnat, fc_key_src(o), fc_key_dst(o), pl->alen, false, pl->dst);
		if (nat_proto_has_ports(pl->proto) && dnat->port_min != 0) {
			dp = ntohs(fc_key_dport(o));
			if (dp < dnat->port_min || dp > dnat->port_max ||
				(dnat->flags & (RULE_NAT_F_RANDOM | RULE_NAT_F_RANDOM_FULLY))) {
				pn = (uint32_t)dnat->port_max - dnat->port_min + 1;
				dp = dnat->port_min + nat_tuple_hash(nat, 0x504f5254, o) % pn;
			}
			pl->dport = htons((uint16_t)dp);
		}
	}
	if (addr_is_local(nat, pl->family, pl->dst, fc_key_dst(o),
		    (fc_key_flags(o) & FC_KEY_F_DST_LOCAL) != 0))
		pl->dst_local = FC_KEY_F_DST_LOCAL;
}

/* Source port/identifier search range (host order) into pl->port_lo/port_n. */
static void
plan_ports(const struct rule_nat *ports, struct nat_plan *pl)
{
	uint32_t sp = ntohs(fc_key_sport(pl->orig));

	if (pl->echo) {
		pl->port_lo = 0;
		pl->port_n = 65536;
	} else if (!nat_proto_has_ports(pl->proto)) {
		pl->port_lo = 0;
		pl->port_n = 0;
	} else if (ports != NULL && ports->port_min != 0) {
		pl->port_lo = ports->port_min;
		pl->port_n = (uint32_t)ports->port_max - ports->port_min + 1;
		pl->specified = true;
	} else if (sp <= PORT_LOW_MAX) {
		pl->port_lo = PORT_LOW_MIN;
		pl->port_n = PORT_LOW_MAX - PORT_LOW_MIN + 1;
	} else if (sp < PORT_HIGH_MIN) {
		pl->port_lo = PORT_MID_MIN;
		pl->port_n = PORT_MID_MAX - PORT_MID_MIN + 1;
	} else {
		pl->port_lo = PORT_HIGH_MIN;
		pl->port_n = PORT_HIGH_MAX - PORT_HIGH_MIN + 1;
	}
}

/* The translated forward key for source (src, sport). */
static void
plan_fwd_key(const struct nat_plan *pl, const uint8_t *src, uint16_t sport, uint8_t src_local,
	struct fc_key *fwd)
{
	/* An ICMP query's dport is its type and code (plan_dst() keeps it). */
	key_build(fwd, pl->family, pl->proto, src, pl->dst, sport, pl->dport,
		src_local | pl->dst_local);
	fc_key_set_in_port(fwd, fc_key_in_port(pl->orig));
}

/* Is source (src, sport) free: its reply tuple unknown to both indexes and the table? */
static bool
plan_try(const struct mod_nat *nat, const struct nat_plan *pl, const uint8_t *src, uint16_t sport,
	uint8_t src_local)
{
	struct fc_key fwd, reply;

	plan_fwd_key(pl, src, sport, src_local, &fwd);
	fc_key_reverse(&fwd, &reply);
	if (nat_index_has(nat, IDX_REPLY, &reply) || nat_index_has(nat, IDX_ORIG, &reply))
		return false;
	return nat->busy == NULL || !nat->busy(nat->cb_arg, &reply);
}

/*
 * Choose the source: addresses from @p lo .. @p lo + n_addr - 1 starting at
 * index @p first, on each the original port if in range, then the range
 * from a hashed start; at most max_probes candidates in all.
 * @return 0 with pl->src/sport/src_local set, or -ENOSPC.
 */
static int
plan_src(const struct mod_nat *nat, const uint8_t *lo, uint64_t n_addr, uint64_t first,
	struct nat_plan *pl)
{
	const struct fc_key *o = pl->orig;
	uint16_t sp_be = fc_key_sport(o);
	uint32_t sp = ntohs(sp_be), budget = nat->max_probes, start = 0, i, port;
	/* Out of a class (no range given) a free port is kept all the same. */
	bool keep = pl->port_n == 0 ||
		    (!pl->random && (!pl->specified || (sp >= pl->port_lo &&
							   sp - pl->port_lo < pl->port_n)));
	bool o_local = (fc_key_flags(o) & FC_KEY_F_SRC_LOCAL) != 0;
	uint8_t addr[16], flag;
	uint64_t j;

	if (pl->port_n != 0)
		start = nat_tuple_hash(nat, 0x53504f52, o) % pl->port_n;
	for (j = 0; j < n_addr && budget > 0; j++) {
		addr_add(lo, (first + j) % n_addr, addr, pl->alen);
		flag = 0;
		if (addr_is_local(nat, pl->family, addr, fc_key_src(o), o_local))
			flag = FC_KEY_F_SRC_LOCAL;
		if (keep) {
			budget--;
			if (plan_try(nat, pl, addr, sp_be, flag)) {
				port = sp;
				goto found;
			}
		}
		for (i = 0; i < pl->port_n && budget > 0; i++) {
			port = pl->port_lo + (start + i) % pl->port_n;
			if (keep && port == sp)
				continue;
			budget--;
			if (plan_try(nat, pl, addr, htons((uint16_t)port), flag))
				goto found;
		}
	}
	return -ENOSPC;

found:
	memcpy(pl->src, addr, pl->alen);
	pl->sport = htons((uint16_t)port);
	pl->src_local = flag;
	return 0;
}

/* Is @p a within lo..hi (@p len bytes, big-endian)? */
static bool
addr_in(const uint8_t *a, const uint8_t *lo, const uint8_t *hi, uint32_t len)
{
	return memcmp(a, lo, len) >= 0 && memcmp(a, hi, len) <= 0;
}

/* Is source (addr, port: network order) in the source range lo..hi and @p ports' range? */
static bool
src_in_range(const struct nat_plan *pl, const uint8_t *addr, uint16_t port, const uint8_t *lo,
	const uint8_t *hi, const struct rule_nat *ports)
{
	uint16_t p = ntohs(port);

	if (!addr_in(addr, lo, hi, pl->alen))
		return false;
	return ports == NULL || ports->port_min == 0 || !nat_proto_has_ports(pl->proto) ||
	       (p >= ports->port_min && p <= ports->port_max);
}

/*
 * Linux's first choice for a source translation (nf_nat's
 * find_appropriate_src()): a connection from the protocol, source address
 * and port of a live binding gets that binding's translated source
 * (address and port) again when it lies in the range (lo..hi, @p ports'
 * range if it has one) and makes a free tuple with this connection's
 * destination. The newest such binding in range decides; if its source
 * is taken towards this destination, the usual search follows. The caller
 * asks only for a source outside the range and without --random or
 * --random-fully. @return true with pl->src/sport/src_local set.
 */
static bool
plan_by_source(const struct mod_nat *nat, const uint8_t *lo, const uint8_t *hi,
	const struct rule_nat *ports, struct nat_plan *pl)
{
	const struct fc_key *o = pl->orig;
	const struct fc_key *r;
	uint32_t id = NAT_NONE;
	uint8_t flag;

	while ((id = nat_src_index_next(nat, o, id)) != NAT_NONE) {
		r = &nat->b[id].key[IDX_REPLY]; /* its translated source is the replies' destination */
		if (!src_in_range(pl, fc_key_dst(r), nat_reply_src_port(r), lo, hi, ports))
			continue;
		flag = addr_is_local(nat, pl->family, fc_key_dst(r), fc_key_src(o),
			       (fc_key_flags(o) & FC_KEY_F_SRC_LOCAL) != 0)
			       ? FC_KEY_F_SRC_LOCAL
			       : 0;
		if (!plan_try(nat, pl, fc_key_dst(r), nat_reply_src_port(r), flag))
			return false;
		memcpy(pl->src, fc_key_dst(r), pl->alen);
		pl->sport = nat_reply_src_port(r);
		pl->src_local = flag;
		return true;
	}
	return false;
}

/* Argument checks of mod_nat_bind(). */
static int
bind_check(const struct fc_key *orig, const struct rule_nat *dnat, const struct rule_nat *snat,
	const uint8_t *masq_addr, bool null_ok)
{
	if (orig->family != FC_AF_INET4 && orig->family != FC_AF_INET6)
		return -EINVAL;
	if (dnat == NULL && snat == NULL && masq_addr == NULL && !null_ok)
		return -EINVAL;
	if (dnat != NULL && !target_valid(dnat, orig->family, true))
		return -EINVAL;
	if (snat != NULL && !target_valid(snat, orig->family, masq_addr == NULL))
		return -EINVAL;
	return 0;
}

/*
 * mod_nat_bind(); @p null_ok: no target at all is Linux's null binding
 * (mod_nat_bind_clash()), flagged MOD_NAT_F_CLASH.
 */
static int
bind_do(struct mod_nat *nat, const struct fc_key *orig, const struct rule_nat *dnat,
	const struct rule_nat *snat, const uint8_t *masq_addr, bool null_ok,
	struct mod_nat_binding_result *res)
{
	struct nat_plan pl;
	struct nat_binding *b;
	struct nat_target *td, *ts;
	uint16_t tgt_dst = NAT_TGT_NONE, tgt_src = NAT_TGT_NONE;
	uint64_t n_addr = 1, first = 0;
	const uint8_t *lo;
	struct fc_key fwd;
	uint32_t id;
	uint8_t flags = 0;
	const uint8_t *hi = NULL;
	bool found = false;
	int ret;

	if (nat == NULL || orig == NULL || res == NULL)
		return -EINVAL;
	ret = bind_check(orig, dnat, snat, masq_addr, null_ok);
	if (ret != 0)
		return ret;
	if (nat->free_head == NAT_NONE) {
		cnt_add64(&nat->st.table_full, 1);
		return -ENOBUFS;
	}

	nat->tgt_clock++;
	memset(&pl, 0, sizeof(pl));
	pl.orig = orig;
	pl.family = orig->family;
	pl.proto = fc_key_proto(orig);
	pl.echo = nat_key_is_echo(orig);
	pl.alen = fc_af_addr_len(orig->family);

	if (dnat != NULL) {
		flags |= MOD_NAT_F_DNAT;
		tgt_dst = target_get(
			nat, RULE_ACT_DNAT, pl.family, dnat->addr_min, dnat->addr_max, dnat);
	}
	plan_dst(nat, dnat, &pl);

	if (masq_addr != NULL) {
		flags |= MOD_NAT_F_MASQ;
		lo = masq_addr;
		hi = masq_addr;
		tgt_src =
			target_get(nat, RULE_ACT_MASQUERADE, pl.family, masq_addr, masq_addr, snat);
	} else if (snat != NULL) {
		flags |= MOD_NAT_F_SNAT;
		lo = snat->addr_min;
		hi = snat->addr_max;
		n_addr = addr_count(snat->addr_min, snat->addr_max, pl.alen);
		/*
		 * The first address tried is the one Linux picks for the
		 * connection (pick_addr(): the source hashed with the destination
		 * after DNAT; with --persistent the source alone, one outside
		 * address per inside host); one outside its range (IPv6's word
		 * by word pick) starts from a hash of the source.
		 */
		{
			uint8_t a[16];

			uint16_t sp = ntohs(fc_key_sport(orig));

			/* Linux keeps a source already in the range (and its port in its range). */
			if (memcmp(fc_key_src(orig), snat->addr_min, pl.alen) >= 0 &&
				memcmp(fc_key_src(orig), snat->addr_max, pl.alen) <= 0 &&
				(snat->port_min == 0 || !nat_proto_has_ports(pl.proto) ||
					(sp >= snat->port_min && sp <= snat->port_max)))
				memcpy(a, fc_key_src(orig), pl.alen);
			else
				pick_addr(snat, fc_key_src(orig), pl.dst, pl.alen, true, a);
			if (memcmp(a, snat->addr_min, pl.alen) >= 0 &&
				memcmp(a, snat->addr_max, pl.alen) <= 0)
				first = addr_count(snat->addr_min, a, pl.alen) - 1;
			else
				first = nat_addr_hash64(nat, 0x534e4154, fc_key_src(orig), NULL,
						pl.alen) % n_addr;
			first %= n_addr;
		}
		tgt_src = target_get(
			nat, RULE_ACT_SNAT, pl.family, snat->addr_min, snat->addr_max, snat);
	} else {
		lo = fc_key_src(orig); /* source kept unless it clashes */
		if (dnat == NULL)
			flags |= MOD_NAT_F_CLASH;
	}
	plan_ports(snat, &pl);
	/* Linux's NF_NAT_RANGE_PROTO_RANDOM_ALL: the port is drawn, free or not. */
	pl.random = snat != NULL && pl.port_n != 0 &&
		    (snat->flags & (RULE_NAT_F_RANDOM | RULE_NAT_F_RANDOM_FULLY)) != 0;
	/* A source outside the range: an earlier connection's mapping first. */
	if (hi != NULL && !(snat != NULL && (snat->flags & (RULE_NAT_F_RANDOM |
							       RULE_NAT_F_RANDOM_FULLY))) &&
		!src_in_range(&pl, fc_key_src(orig), fc_key_sport(orig), lo, hi, snat))
		found = plan_by_source(nat, lo, hi, snat, &pl);

	ts = target_at(nat, tgt_src);
	td = target_at(nat, tgt_dst);
	ret = found ? 0 : plan_src(nat, lo, n_addr, first, &pl);
	if (ret != 0) {
		cnt_add64(&nat->st.exhausted, 1);
		if (ts != NULL)
			cnt_add64(&ts->st.exhausted, 1);
		else if (td != NULL)
			cnt_add64(&td->st.exhausted, 1);
		return ret;
	}
	if (pl.sport != fc_key_sport(orig))
		flags |= MOD_NAT_F_REMAPPED;

	id = nat->free_head;
	b = &nat->b[id];
	nat->free_head = b->next[IDX_REPLY];
	b->key[IDX_ORIG] = *orig;
	plan_fwd_key(&pl, pl.src, pl.sport, pl.src_local, &fwd);
	fc_key_reverse(&fwd, &b->key[IDX_REPLY]);
	b->tgt_dst = tgt_dst;
	b->tgt_src = tgt_src;
	b->flags = flags;
	b->state = NAT_ACTIVE;
	nat_index_add(nat, IDX_REPLY, id);
	nat_index_add(nat, IDX_ORIG, id);
	nat_src_index_add(nat, id);

	/* Both slots are complete before the caller can publish their ids. */
	nat_slot_fill(&nat->slots[MOD_NAT_SLOT_FWD(id)], orig, &fwd);
	fc_key_reverse(orig, &fwd); /* the reply as it must leave: reverse of orig */
	nat_slot_fill(&nat->slots[MOD_NAT_SLOT_REPLY(id)], &b->key[IDX_REPLY], &fwd);

	cnt_add64(&nat->st.allocated, 1);
	cnt_set32(&nat->st.active, nat->st.active + 1);
	if (flags & MOD_NAT_F_REMAPPED)
		cnt_add64(&nat->st.remapped, 1);
	if (td != NULL) {
		cnt_set32(&td->st.active, td->st.active + 1);
		cnt_add64(&td->st.allocated, 1);
	}
	if (ts != NULL) {
		cnt_set32(&ts->st.active, ts->st.active + 1);
		cnt_add64(&ts->st.allocated, 1);
	}
	return mod_nat_binding_get(nat, id, res);
}

int
mod_nat_bind(struct mod_nat *nat, const struct fc_key *orig, const struct rule_nat *dnat,
	const struct rule_nat *snat, const uint8_t *masq_addr, struct mod_nat_binding_result *res)
{
	return bind_do(nat, orig, dnat, snat, masq_addr, false, res);
}

int
mod_nat_bind_clash(struct mod_nat *nat, const struct fc_key *orig,
	struct mod_nat_binding_result *res)
{
	struct fc_key reply;
	uint8_t proto;

	if (nat == NULL || orig == NULL || res == NULL ||
		(orig->family != FC_AF_INET4 && orig->family != FC_AF_INET6))
		return -EINVAL;
	/* Only a translated connection can hold the reply tuple of an untranslated one. */
	if (nat->st.active == 0)
		return -EALREADY;
	fc_key_reverse(orig, &reply);
	if (!nat_index_has(nat, IDX_REPLY, &reply) && !nat_index_has(nat, IDX_ORIG, &reply))
		return -EALREADY;
	proto = fc_key_proto(orig);
	if (!nat_proto_has_ports(proto) && !nat_key_is_echo(orig))
		return -EPROTONOSUPPORT;
	return bind_do(nat, orig, NULL, NULL, NULL, true, res);
}

int
mod_nat_unbind(struct mod_nat *nat, uint32_t binding)
{
	struct nat_binding *b;
	struct nat_target *t;

	if (nat == NULL || binding >= nat->max_bindings)
		return -EINVAL;
	b = &nat->b[binding];
	if (b->state != NAT_ACTIVE)
		return -ENOENT;
	nat_index_del(nat, IDX_REPLY, binding);
	nat_index_del(nat, IDX_ORIG, binding);
	nat_src_index_del(nat, binding);
	b->state = NAT_RETIRED;
	cnt_set32(&nat->st.active, nat->st.active - 1);
	cnt_set32(&nat->st.retired, nat->st.retired + 1);
	t = target_at(nat, b->tgt_dst);
	if (t != NULL)
		cnt_set32(&t->st.active, t->st.active - 1);
	t = target_at(nat, b->tgt_src);
	if (t != NULL)
		cnt_set32(&t->st.active, t->st.active - 1);
	return 0;
}

int
mod_nat_release(struct mod_nat *nat, uint32_t binding)
{
	struct nat_binding *b;

	if (nat == NULL || binding >= nat->max_bindings)
		return -EINVAL;
	b = &nat->b[binding];
	if (b->state == NAT_FREE)
		return -ENOENT;
	if (b->state == NAT_ACTIVE)
		return -EBUSY;
	b->state = NAT_FREE;
	b->next[IDX_REPLY] = nat->free_head;
	b->next[IDX_ORIG] = NAT_NONE;
	nat->free_head = binding;
	cnt_set32(&nat->st.retired, nat->st.retired - 1);
	return 0;
}

int
mod_nat_binding_get(const struct mod_nat *nat, uint32_t binding, struct mod_nat_binding_result *res)
{
	const struct nat_binding *b;

	if (nat == NULL || res == NULL || binding >= nat->max_bindings)
		return -EINVAL;
	b = &nat->b[binding];
	if (b->state != NAT_ACTIVE)
		return -ENOENT;
	memset(res, 0, sizeof(*res));
	res->binding = binding;
	res->fwd_slot = MOD_NAT_SLOT_FWD(binding);
	res->reply_slot = MOD_NAT_SLOT_REPLY(binding);
	res->flags = b->flags;
	res->orig = b->key[IDX_ORIG];
	res->reply = b->key[IDX_REPLY];
	fc_key_reverse(&b->key[IDX_REPLY], &res->fwd);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Counters and dump                                                         */
/* ------------------------------------------------------------------------ */

void
mod_nat_stats_get(const struct mod_nat *nat, struct mod_nat_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (nat == NULL)
		return;
	s->allocated = __atomic_load_n(&nat->st.allocated, __ATOMIC_RELAXED);
	s->exhausted = __atomic_load_n(&nat->st.exhausted, __ATOMIC_RELAXED);
	s->table_full = __atomic_load_n(&nat->st.table_full, __ATOMIC_RELAXED);
	s->remapped = __atomic_load_n(&nat->st.remapped, __ATOMIC_RELAXED);
	s->active = __atomic_load_n(&nat->st.active, __ATOMIC_RELAXED);
	s->retired = __atomic_load_n(&nat->st.retired, __ATOMIC_RELAXED);
	s->capacity = nat->st.capacity;
	s->targets = __atomic_load_n(&nat->st.targets, __ATOMIC_RELAXED);
}

int
mod_nat_target_stats_get(
	const struct mod_nat *nat, unsigned int i, struct mod_nat_target_stats *out)
{
	const struct nat_target *e;

	if (nat == NULL || out == NULL)
		return -EINVAL;
	if (i >= __atomic_load_n(&nat->st.targets, __ATOMIC_RELAXED))
		return -ENOENT;
	e = &nat->tgt[i];
	out->action = e->st.action;
	out->nat = e->st.nat;
	out->active = __atomic_load_n(&e->st.active, __ATOMIC_RELAXED);
	out->allocated = __atomic_load_n(&e->st.allocated, __ATOMIC_RELAXED);
	out->exhausted = __atomic_load_n(&e->st.exhausted, __ATOMIC_RELAXED);
	return 0;
}

/* "192.0.2.1-192.0.2.4 ports 1024-2047" */
static void
dump_target(FILE *f, const struct mod_nat_target_stats *t)
{
	char lo[INET6_ADDRSTRLEN], hi[INET6_ADDRSTRLEN];
	int af = t->nat.family == FC_AF_INET4 ? AF_INET : AF_INET6;

	if (inet_ntop(af, t->nat.addr_min, lo, sizeof(lo)) == NULL ||
		inet_ntop(af, t->nat.addr_max, hi, sizeof(hi)) == NULL)
		return;
	fprintf(f, "target %s %s", rule_action_name(t->action), lo);
	if (strcmp(lo, hi) != 0)
		fprintf(f, "-%s", hi);
	if (t->nat.port_min != 0)
		fprintf(f, " ports %u-%u", t->nat.port_min, t->nat.port_max);
	fprintf(f, ": active %u allocated %" PRIu64 " exhausted %" PRIu64 "\n", t->active,
		t->allocated, t->exhausted);
}

/* "dnat,snat,remapped" */
static void
flags_text(uint8_t flags, char *buf, size_t len)
{
	static const struct {
		uint8_t flag;
		const char *name;
	} names[] = {
		{MOD_NAT_F_DNAT, "dnat"},
		{MOD_NAT_F_SNAT, "snat"},
		{MOD_NAT_F_MASQ, "masquerade"},
		{MOD_NAT_F_REMAPPED, "remapped"},
		{MOD_NAT_F_CLASH, "clash"},
	};
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < RTE_DIM(names); i++) {
		if (!(flags & names[i].flag) || off >= len)
			continue;
		off += (size_t)snprintf(
			buf + off, len - off, "%s%s", off != 0 ? "," : "", names[i].name);
	}
}

int
mod_nat_dump(const struct mod_nat *nat, FILE *f)
{
	struct mod_nat_target_stats t;
	struct mod_nat_binding_result r;
	struct mod_nat_stats s;
	char ko[FC_KEY_STRLEN], kf[FC_KEY_STRLEN], fl[48];
	unsigned int i;
	uint32_t id;
	int n = 0;

	if (nat == NULL || f == NULL)
		return -EINVAL;
	mod_nat_stats_get(nat, &s);
	fprintf(f,
		"nat: active %u retired %u capacity %u allocated %" PRIu64 " exhausted %" PRIu64
		" table_full %" PRIu64 " remapped %" PRIu64 "\n",
		s.active, s.retired, s.capacity, s.allocated, s.exhausted, s.table_full,
		s.remapped);
	for (i = 0; mod_nat_target_stats_get(nat, i, &t) == 0; i++)
		dump_target(f, &t);
	for (id = 0; id < nat->max_bindings; id++) {
		if (mod_nat_binding_get(nat, id, &r) != 0)
			continue;
		if (fc_key_format(&r.orig, ko, sizeof(ko)) < 0 ||
			fc_key_format(&r.fwd, kf, sizeof(kf)) < 0)
			continue;
		flags_text(r.flags, fl, sizeof(fl));
		fprintf(f, "binding %u: %s => %s [%s]\n", id, ko, kf, fl);
		n++;
	}
	if (ferror(f))
		return -EIO;
	return n;
}
