/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: "-m connlimit" counts (engine_priv.h, eng_connlimit_*()),
 * as Linux's nf_conncount keeps them: per rule and match, the connections
 * that reached it, grouped by their source (--connlimit-daddr: their
 * destination) under --connlimit-mask. A walk that reaches the match
 * counts its group's connections that are still live (an entry of the
 * engine holds their original tuple and does not drop: a connection the
 * filter dropped never became one; and the connection is not closed, TCP
 * TIME_WAIT or CLOSE, as nf_conncount skips those), forgetting the others, and adds its
 * own connection to the group if it is not there yet: the count includes
 * it. --connlimit-above N matches above N, --connlimit-upto N up to N.
 *
 * The answer is the connection's, not the packet's: a flow is decided at
 * its first packet and cached with that verdict (no per-packet
 * dependency), and revalidation asks again with the flow counted among
 * the live ones, as Linux answers a later packet of the connection (it
 * finds itself in the list). Counts start over when rule ids are numbered
 * anew (a set that is no descendant of the running one), as
 * iptables-restore gives each rule new counts. Rules lcore only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

#define OPT(x, i) (((x)->given >> (i)) & 1)
#define CL_NONE UINT32_MAX
#define CL_CHAINS 1024u

/* The options of -m connlimit, by index. */
enum { CO_UPTO, CO_ABOVE, CO_MASK, CO_SADDR, CO_DADDR };

struct cl_conn {
	uint32_t rule_id;
	uint8_t xi;
	uint8_t family;
	uint8_t addr[16];   /* the group: the address under the mask */
	struct fc_key key;  /* the connection's original tuple, as its entry is keyed */
	uint32_t next;      /* chain, or the free list */
};

struct eng_connlimit {
	uint32_t head[CL_CHAINS];
	struct cl_conn *c;
	uint32_t n, cap, hwm, free;
};

void
eng_connlimit_free(struct rule_engine *eng)
{
	if (eng->connlimit != NULL)
		free(eng->connlimit->c);
	free(eng->connlimit);
	eng->connlimit = NULL;
}

void
eng_connlimit_reset(struct rule_engine *eng)
{
	struct eng_connlimit *cl = eng->connlimit;

	if (cl == NULL)
		return;
	memset(cl->head, 0xff, sizeof(cl->head));
	cl->n = 0;
	cl->hwm = 0;
	cl->free = CL_NONE;
}

static uint32_t
group_hash(uint32_t rule_id, unsigned int xi, unsigned int family, const uint8_t *addr)
{
	uint32_t h = 2166136261u ^ rule_id;

	h = (h ^ xi) * 16777619u;
	h = (h ^ family) * 16777619u;
	for (unsigned int i = 0; i < 16; i++)
		h = (h ^ addr[i]) * 16777619u;
	return h % CL_CHAINS;
}

/* Is the connection of @p k live: an entry keyed so that does not drop, not closed (TCP
   TIME_WAIT, CLOSE)? */
static bool
conn_live(const struct rule_engine *eng, const struct fc_key *k)
{
	struct rule_flow_info fi;

	if (rule_engine_flow_lookup_any(eng, k, &fi) != 0)
		return false;
	return fi.act.verdict != FC_VERDICT_DROP && !eng_entry_closed(eng, &fi.act);
}

static int
conn_add(struct eng_connlimit *cl, uint32_t chain, const struct cl_conn *c)
{
	uint32_t i;

	if (cl->free != CL_NONE) {
		i = cl->free;
		cl->free = cl->c[i].next;
	} else {
		if (cl->hwm == cl->cap) {
			uint32_t cap = cl->cap ? cl->cap * 2 : 64;
			struct cl_conn *p = realloc(cl->c, cap * sizeof(*p));

			if (p == NULL)
				return -ENOMEM;
			cl->c = p;
			cl->cap = cap;
		}
		i = cl->hwm++;
	}
	cl->c[i] = *c;
	cl->c[i].next = cl->head[chain];
	cl->head[chain] = i;
	cl->n++;
	return 0;
}

int
eng_connlimit_match(struct rule_engine *eng, const struct rule *r, unsigned int xi,
	const struct rule_pkt *p, bool add)
{
	const struct rule_x *x = &r->xm[xi];
	const struct fc_key *k = p->ct_orig.family != 0 ? &p->ct_orig : &p->key;
	struct eng_connlimit *cl = eng->connlimit;
	unsigned int len = p->key.family == FC_AF_INET6 ? 16 : 4;
	unsigned int bits = OPT(x, CO_MASK) && x->u.connlimit.mask < len * 8
		? x->u.connlimit.mask : len * 8;
	struct cl_conn me = {.rule_id = r->id, .xi = (uint8_t)xi, .family = p->key.family};
	uint32_t chain, prev = CL_NONE, i, count = 0;
	bool self = false;

	if (cl == NULL) {
		cl = calloc(1, sizeof(*cl));
		if (cl == NULL)
			return -ENOMEM;
		eng->connlimit = cl;
		eng_connlimit_reset(eng);
	}
	/* The group: the packet's source (--connlimit-daddr: destination) under the mask. */
	memcpy(me.addr, OPT(x, CO_DADDR) ? fc_key_dst(&p->key) : fc_key_src(&p->key), len);
	for (unsigned int b = 0; b < len; b++) {
		if (bits >= 8)
			bits -= 8;
		else {
			me.addr[b] &= (uint8_t)(0xff00 >> bits);
			bits = 0;
		}
	}
	me.key = *k;
	chain = group_hash(me.rule_id, xi, me.family, me.addr);
	for (i = cl->head[chain]; i != CL_NONE;) {
		struct cl_conn *c = &cl->c[i];
		uint32_t next = c->next;

		if (c->rule_id != me.rule_id || c->xi != me.xi || c->family != me.family ||
			memcmp(c->addr, me.addr, sizeof(me.addr)) != 0) {
			prev = i;
		} else if (memcmp(&c->key, &me.key, sizeof(me.key)) == 0) {
			self = true;
			count++;
			prev = i;
		} else if (conn_live(eng, &c->key)) {
			count++;
			prev = i;
		} else {
			/* Gone (or never confirmed): forgotten, as nf_conncount's gc. */
			if (prev == CL_NONE)
				cl->head[chain] = next;
			else
				cl->c[prev].next = next;
			c->next = cl->free;
			cl->free = i;
			cl->n--;
		}
		i = next;
	}
	if (!self) {
		count++;
		if (add && conn_add(cl, chain, &me) < 0)
			return -ENOMEM;
	}
	eng->st.connlimit_checks++;
	return OPT(x, CO_ABOVE) ? count > x->u.connlimit.limit : count <= x->u.connlimit.limit;
}

uint32_t
eng_connlimit_count(const struct rule_engine *eng)
{
	return eng->connlimit != NULL ? eng->connlimit->n : 0;
}
