/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the tables of "-m hashlimit" (rule_eval.h,
 * rule_hashlimit_*()): one table per --hashlimit-name and family, made
 * with the options of the first rule that names it when a rule set is
 * loaded (rule_hashlimit_load()), as netfilter makes it with the first
 * rule's, or else by the first match that reaches it; per table a token bucket per key (the
 * --hashlimit-mode fields: addresses under srcmask/dstmask, ports), at
 * most --hashlimit-htable-max of them, each forgotten --hashlimit-htable-
 * expire ms after its last packet by a sweep every --hashlimit-htable-
 * gcinterval ms. A bucket is a theoretical arrival time (GCRA), which
 * answers as netfilter's credit counter: full after loading, one token
 * per packet, refilled at the rate, at most --hashlimit-burst. A byte rate
 * (Nb/s) is netfilter's byte mode, kept as netfilter keeps it: a credit
 * of one second, a packet costing its IP length in 16-byte chunks (at
 * most the whole credit), refilled continuously, and --hashlimit-burst
 * (bytes) as a count of whole refills the bucket may take when the credit
 * runs short (never given back). Pure: the caller gives the time.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "rule_x_priv.h"

#define OPT(x, i) (((x)->given >> (i)) & 1)

/* The options of -m hashlimit, by index in the kind's option table. */
enum { HO_UPTO, HO_ABOVE, HO_BURST, HO_MODE, HO_SRCMASK, HO_DSTMASK, HO_NAME, HO_SIZE, HO_MAX,
	HO_GCINTERVAL, HO_EXPIRE };

#define HL_NONE UINT32_MAX

struct hl_key {
	uint8_t src[16], dst[16];
	uint16_t sport, dport; /* network order */
};

_Static_assert(sizeof(struct hl_key) == RULE_HASHLIMIT_KEY_LEN, "hashlimit key size");

struct hl_entry {
	struct hl_key k;
	uint32_t next;  /* chain, or the free list */
	uint32_t refills; /* byte mode: whole refills left (the burst) */
	uint64_t tat;   /* when the bucket is full again; byte mode: the credit */
	uint64_t seen;  /* the last packet */
};

/*
 * Byte mode's credit: a second's worth is HL_BYTE_FULL (netfilter's with
 * HZ 250 or 1000: 2^25 * 125), a 16-byte chunk costs the rate's cost
 * (rx_hl_byte_cost()) scaled to it.
 */
#define HL_BYTE_FULL RULE_HASHLIMIT_CREDIT

struct hl_table {
	char name[RULE_XNAME_MAX];
	uint8_t family;
	struct rule_hashlimit_cfg cfg;
	uint64_t interval, tolerance; /* ticks per token; (burst - 1) * interval;
					 byte mode: credit per chunk, 0 */
	uint64_t next_gc;
	uint32_t n, cap, hwm, free; /* live buckets; slots; slots ever used; free list */
	uint32_t *head;   /* cfg.size chains */
	struct hl_entry *e;
};

struct rule_hashlimit {
	struct hl_table **t;
	uint32_t n, cap;
};

struct rule_hashlimit *
rule_hashlimit_new(void)
{
	return calloc(1, sizeof(struct rule_hashlimit));
}

static void
table_free(struct hl_table *t)
{
	if (t == NULL)
		return;
	free(t->head);
	free(t->e);
	free(t);
}

void
rule_hashlimit_free(struct rule_hashlimit *h)
{
	if (h == NULL)
		return;
	for (uint32_t i = 0; i < h->n; i++)
		table_free(h->t[i]);
	free(h->t);
	free(h);
}

void
rule_hashlimit_cfg_of(const struct rule_x *x, unsigned int family, struct rule_hashlimit_cfg *c)
{
	const struct rule_x_hashlimit *hx = &x->u.hashlimit;
	unsigned int full = family == FC_AF_INET6 ? 128 : 32;

	memset(c, 0, sizeof(*c));
	c->rate = hx->rate;
	c->unit = hx->unit;
	c->burst = hx->burst != 0 ? hx->burst : 1;
	if (hx->unit == RULE_RATE_BYTES) {
		/* Refills of a second's credit: the burst's bytes over the rate's, rounded up. */
		uint64_t per_s = rx_hl_cost_bytes(rx_hl_byte_cost(hx->rate));

		c->chunk_cost = (uint32_t)((uint64_t)rx_hl_byte_cost(hx->rate) * HL_BYTE_FULL >> 32);
		c->burst = 0;
		if (OPT(x, HO_BURST) && per_s != 0)
			c->burst = (uint32_t)((hx->burst + per_s - 1) / per_s);
	}
	c->mode = OPT(x, HO_MODE) ? hx->mode : 0;
	c->srcmask = (uint8_t)(OPT(x, HO_SRCMASK) && hx->srcmask < full ? hx->srcmask : full);
	c->dstmask = (uint8_t)(OPT(x, HO_DSTMASK) && hx->dstmask < full ? hx->dstmask : full);
	c->size = OPT(x, HO_SIZE) && hx->size != 0 ? hx->size : RULE_HASHLIMIT_SIZE;
	c->max = OPT(x, HO_MAX) && hx->max != 0 ? hx->max : 8 * c->size;
	c->gcinterval = OPT(x, HO_GCINTERVAL) && hx->gcinterval != 0 ? hx->gcinterval : 1000;
	c->expire = OPT(x, HO_EXPIRE) && hx->expire != 0 ? hx->expire : 10000;
	/* iptables' defaults for a byte rate: 15 s, 60 s with a burst. */
	if (hx->unit == RULE_RATE_BYTES && !(OPT(x, HO_EXPIRE) && hx->expire != 0))
		c->expire = OPT(x, HO_BURST) ? 60000 : 15000;
}

static struct hl_table *
table_find(const struct rule_hashlimit *h, const char *name, unsigned int family)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->t[i]->family == family && strncmp(h->t[i]->name, name, RULE_XNAME_MAX) == 0)
			return h->t[i];
	return NULL;
}

static struct hl_table *
table_get(struct rule_hashlimit *h, const struct rule_x *x, unsigned int family, uint64_t now,
	uint64_t hz)
{
	static const uint64_t secs[] = {1, 60, 3600, 86400};
	struct hl_table *t = table_find(h, x->u.hashlimit.name, family);

	if (t != NULL)
		return t;
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 4;
		struct hl_table **p = realloc(h->t, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		h->t = p;
		h->cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	memcpy(t->name, x->u.hashlimit.name, strnlen(x->u.hashlimit.name, RULE_XNAME_MAX - 1));
	t->family = (uint8_t)family;
	rule_hashlimit_cfg_of(x, family, &t->cfg);
	t->head = malloc(t->cfg.size * sizeof(*t->head));
	if (t->head == NULL) {
		free(t);
		return NULL;
	}
	memset(t->head, 0xff, t->cfg.size * sizeof(*t->head));
	t->free = HL_NONE;
	if (t->cfg.unit == RULE_RATE_BYTES) {
		t->interval = t->cfg.chunk_cost;
		t->tolerance = 0;
	} else {
		t->interval = t->cfg.rate != 0
			? hz * secs[t->cfg.unit < RTE_DIM(secs) ? t->cfg.unit : 0] / t->cfg.rate : 0;
		if (t->interval == 0)
			t->interval = 1;
		t->tolerance = t->interval * (t->cfg.burst - 1);
	}
	t->next_gc = now + (uint64_t)t->cfg.gcinterval * hz / 1000;
	h->t[h->n++] = t;
	return t;
}

/* Keep the first @p bits bits of @p a (@p len bytes). */
static void
mask_bits(uint8_t *a, unsigned int len, unsigned int bits)
{
	for (unsigned int i = 0; i < len; i++) {
		if (bits >= 8) {
			bits -= 8;
			continue;
		}
		a[i] &= (uint8_t)(0xff00 >> bits);
		bits = 0;
	}
}

/* The bucket key of @p p in table @p t, as netfilter builds it. */
static void
key_of(const struct hl_table *t, const struct rule_pkt *p, struct hl_key *hk)
{
	const struct fc_key *k = &p->key;
	unsigned int len = k->family == FC_AF_INET6 ? 16 : 4;
	uint8_t proto = fc_key_proto(k);

	memset(hk, 0, sizeof(*hk));
	if (t->cfg.mode & RULE_HL_SRCIP) {
		memcpy(hk->src, fc_key_src(k), len);
		mask_bits(hk->src, len, t->cfg.srcmask);
	}
	if (t->cfg.mode & RULE_HL_DSTIP) {
		memcpy(hk->dst, fc_key_dst(k), len);
		mask_bits(hk->dst, len, t->cfg.dstmask);
	}
	if (!(t->cfg.mode & (RULE_HL_SRCPORT | RULE_HL_DSTPORT)))
		return;
	/* Ports of the protocols that have them at the L4 header's start; 0 otherwise. */
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		if (p->flags & RULE_PKT_F_NOPORTS)
			return;
		if (t->cfg.mode & RULE_HL_SRCPORT)
			hk->sport = fc_key_sport(k);
		if (t->cfg.mode & RULE_HL_DSTPORT)
			hk->dport = fc_key_dport(k);
		return;
	case IPPROTO_ESP:
	case IPPROTO_AH:
		/* The SPI's two halves stand where the ports would be. */
		if (!(p->flags & RULE_PKT_F_SPI))
			return;
		if (t->cfg.mode & RULE_HL_SRCPORT)
			hk->sport = htons((uint16_t)(p->spi >> 16));
		if (t->cfg.mode & RULE_HL_DSTPORT)
			hk->dport = htons((uint16_t)p->spi);
		return;
	default:
		return;
	}
}

static uint32_t
key_hash(const struct hl_table *t, const struct hl_key *hk)
{
	const uint8_t *b = (const uint8_t *)hk;
	uint32_t hv = 2166136261u;

	for (size_t i = 0; i < sizeof(*hk); i++)
		hv = (hv ^ b[i]) * 16777619u;
	return hv % t->cfg.size;
}

/* Unlink entry @p i of chain @p c (prev @p prev, or HL_NONE at the head) to the free list. */
static void
entry_unlink(struct hl_table *t, uint32_t c, uint32_t prev, uint32_t i)
{
	if (prev == HL_NONE)
		t->head[c] = t->e[i].next;
	else
		t->e[prev].next = t->e[i].next;
	t->e[i].next = t->free;
	t->free = i;
	t->n--;
}

/* Forget the buckets whose last packet is @p expire ms old or older. */
static void
table_gc(struct hl_table *t, uint64_t now, uint64_t hz)
{
	uint64_t age = (uint64_t)t->cfg.expire * hz / 1000;

	for (uint32_t c = 0; c < t->cfg.size && t->n != 0; c++) {
		uint32_t prev = HL_NONE, i = t->head[c];

		while (i != HL_NONE) {
			uint32_t next = t->e[i].next;

			if (now - t->e[i].seen >= age)
				entry_unlink(t, c, prev, i);
			else
				prev = i;
			i = next;
		}
	}
}

static struct hl_entry *
entry_get(struct hl_table *t, const struct hl_key *hk, uint64_t now)
{
	uint32_t c = key_hash(t, hk), i;
	struct hl_entry *e;

	for (i = t->head[c]; i != HL_NONE; i = t->e[i].next)
		if (memcmp(&t->e[i].k, hk, sizeof(*hk)) == 0)
			return &t->e[i];
	if (t->n >= t->cfg.max)
		return NULL;
	if (t->free != HL_NONE) {
		i = t->free;
		t->free = t->e[i].next;
	} else {
		if (t->hwm == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 16;
			struct hl_entry *p;

			if (cap > t->cfg.max)
				cap = t->cfg.max;
			p = realloc(t->e, cap * sizeof(*p));
			if (p == NULL)
				return NULL;
			t->e = p;
			t->cap = cap;
		}
		i = t->hwm++;
	}
	e = &t->e[i];
	*e = (struct hl_entry){.k = *hk, .next = t->head[c], .tat = now, .seen = now};
	if (t->cfg.unit == RULE_RATE_BYTES) {
		e->tat = HL_BYTE_FULL; /* full */
		e->refills = t->cfg.burst;
	}
	t->head[c] = i;
	t->n++;
	return e;
}

/*
 * Byte mode: refill bucket @p e for the time since its last packet, then
 * take a packet of @p len bytes (IP length). @return true under the rate.
 */
static bool
byte_take(const struct hl_table *t, struct hl_entry *e, uint32_t len, uint64_t now, uint64_t hz)
{
	uint64_t delta = now > e->seen ? now - e->seen : 0;
	uint64_t cost = ((uint64_t)(len >> 4) + 1) * t->interval;

	if (delta >= hz)
		e->tat = HL_BYTE_FULL;
	else if (delta != 0)
		e->tat += HL_BYTE_FULL * delta / hz;
	if (e->tat > HL_BYTE_FULL)
		e->tat = HL_BYTE_FULL;
	if (cost > HL_BYTE_FULL)
		cost = HL_BYTE_FULL;
	if (e->tat < cost && e->refills != 0) {
		e->refills--;
		e->tat = HL_BYTE_FULL;
	}
	if (e->tat < cost)
		return false;
	e->tat -= cost;
	return true;
}

int
rule_hashlimit_key(struct rule_hashlimit *h, const struct rule_x *x, const struct rule_pkt *p,
	uint64_t now, uint64_t hz, uint8_t key[RULE_HASHLIMIT_KEY_LEN],
	struct rule_hashlimit_cfg *cfg)
{
	struct hl_table *t;
	struct hl_key hk;

	if (h == NULL || (t = table_get(h, x, p->key.family, now, hz)) == NULL)
		return -ENOMEM;
	key_of(t, p, &hk);
	memcpy(key, &hk, sizeof(hk));
	*cfg = t->cfg;
	return 0;
}

int
rule_hashlimit_match(struct rule_hashlimit *h, const struct rule_x *x, const struct rule_pkt *p,
	uint64_t now, uint64_t hz)
{
	struct hl_table *t;
	struct hl_entry *e;
	struct hl_key hk;
	uint64_t tat;
	bool under;

	if (h == NULL || (t = table_get(h, x, p->key.family, now, hz)) == NULL)
		return -ENOMEM;
	if (now >= t->next_gc) {
		table_gc(t, now, hz);
		t->next_gc = now + (uint64_t)t->cfg.gcinterval * hz / 1000;
	}
	key_of(t, p, &hk);
	e = entry_get(t, &hk, now);
	if (e == NULL)
		return -ENOSPC;
	if (t->cfg.unit == RULE_RATE_BYTES) {
		under = byte_take(t, e, p->l3_len, now, hz);
		e->seen = now;
		return OPT(x, HO_ABOVE) ? !under : under;
	}
	e->seen = now;
	tat = e->tat > now ? e->tat : now;
	under = tat - now <= t->tolerance;
	if (under)
		e->tat = tat + t->interval;
	/* --hashlimit-upto matches under the rate, --hashlimit-above over it. */
	return OPT(x, HO_ABOVE) ? !under : under;
}

bool
rule_names_state(const struct rule *r)
{
	for (unsigned int xi = 0; xi < r->n_xm; xi++)
		if (r->xm[xi].kind == RULE_XM_RECENT || r->xm[xi].kind == RULE_XM_HASHLIMIT)
			return true;
	return false;
}

/* Does a rule of @p s have a match of @p kind named @p name (recent or hashlimit)? */
bool
rule_set_names_match(const struct rule_set *s, unsigned int kind, const char *name)
{
	if (s == NULL)
		return false;
	for (unsigned int tb = 0; tb < RULE_TABLE__COUNT; tb++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)tb);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)tb, ci);

			for (uint32_t ri = 0; ri < c->n_rules; ri++) {
				const struct rule *r = &c->rules[ri];

				for (unsigned int xi = 0; xi < r->n_xm; xi++) {
					const struct rule_x *x = &r->xm[xi];
					const char *n = kind == RULE_XM_RECENT ? x->u.recent.name
									: x->u.hashlimit.name;

					if (x->kind == kind && strncmp(n, name, RULE_XNAME_MAX) == 0)
						return true;
				}
			}
		}
	}
	return false;
}

unsigned int
rule_hashlimit_load(struct rule_hashlimit *h, const struct rule_set *s, uint64_t now, uint64_t hz)
{
	unsigned int gone = 0;
	uint32_t j = 0;

	if (h == NULL)
		return 0;
	for (uint32_t i = 0; i < h->n; i++) {
		if (rule_set_names_match(s, RULE_XM_HASHLIMIT, h->t[i]->name)) {
			h->t[j++] = h->t[i];
		} else {
			table_free(h->t[i]);
			gone++;
		}
	}
	h->n = j;
	if (s == NULL)
		return gone;
	/* The new names' tables, with their first rule's settings, both families. */
	for (unsigned int tb = 0; tb < RULE_TABLE__COUNT; tb++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)tb);

		for (unsigned int ci = 0; ci < nc; ci++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)tb, ci);

			for (uint32_t ri = 0; ri < c->n_rules; ri++) {
				const struct rule *r = &c->rules[ri];

				for (unsigned int xi = 0; xi < r->n_xm; xi++) {
					if (r->xm[xi].kind != RULE_XM_HASHLIMIT)
						continue;
					/* Without memory, the table is made when a packet reaches it. */
					if (r->family != FC_AF_INET6)
						(void)table_get(h, &r->xm[xi], FC_AF_INET4, now, hz);
					if (r->family != FC_AF_INET4)
						(void)table_get(h, &r->xm[xi], FC_AF_INET6, now, hz);
				}
			}
		}
	}
	return gone;
}

int
rule_hashlimit_info(const struct rule_hashlimit *h, unsigned int i,
	struct rule_hashlimit_info *info)
{
	const struct hl_table *t;

	if (h == NULL || i >= h->n)
		return -ENOENT;
	t = h->t[i];
	memset(info, 0, sizeof(*info));
	memcpy(info->name, t->name, sizeof(info->name));
	info->family = t->family;
	info->cfg = t->cfg;
	info->buckets = t->n;
	return 0;
}
