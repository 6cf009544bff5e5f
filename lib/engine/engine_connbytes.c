/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — "-m connbytes" on cached flows. A decision that read the
 * connection's counters holds until they reach the next count at which a
 * connbytes match of the set answers otherwise. The entry is cached with
 * FC_ACT_F_COUNT and per-slot limits on its own counters
 * (rule_engine_view::count_limit): the packet that reaches them goes up
 * once (rule_engine_count_due()), the entry and its peer are decided again
 * with the counters of the moment and get their next limits. Limits are
 * conservative: an early upcall only decides the same again.
 *
 * The counters are the entries' own (packets, and bytes of IP datagrams,
 * as the fast path counts them): no per-packet work beyond one compare.
 * Less what conntrack ignored (rule_engine_view::ct_ignored, kept apart):
 * Linux's accounting leaves those segments out, the rules count them.
 * The limits stay on the entries' own counters, which grow at least as
 * fast as the connection's: a limit is reached no later than the
 * connection's count it stands for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "engine_priv.h"

/* Largest and smallest IP packets (avgpkt: how fast an average can move). */
#define CB_IP_MAX 65535u
#define CB_IP_MIN 20u

bool
eng_cb_ready(struct rule_engine *eng, unsigned int ti)
{
	uint32_t n;
	struct rule_count_limit *l;

	if (eng->t[ti] == NULL)
		return false;
	if (eng->view.count_limit[ti] != NULL)
		return true;
	n = ((const struct fc_table_view *)(const void *)eng->t[ti])->n_slots;
	l = calloc(n, sizeof(*l)); /* 0: every packet goes up until armed */
	if (l == NULL)
		return false;
	__atomic_store_n(&eng->view.count_limit[ti], l, __ATOMIC_RELEASE);
	return true;
}

void
eng_cb_free(struct rule_engine *eng)
{
	for (unsigned int ti = 0; ti < 2; ti++) {
		free(eng->view.count_limit[ti]);
		eng->view.count_limit[ti] = NULL;
	}
	for (unsigned int ti = 0; ti < 2; ti++) {
		free(eng->view.ct_ignored[ti]);
		eng->view.ct_ignored[ti] = NULL;
	}
	free(eng->cb);
	eng->cb = NULL;
	eng->n_cb = eng->cap_cb = 0;
}

bool
eng_ign_ready(struct rule_engine *eng, unsigned int ti)
{
	uint32_t n;
	struct rule_ct_ignored *c;

	if (eng->view.ct_ignored[ti] != NULL)
		return true;
	/* 16 bytes a slot: only for a set that reads the connection's counters. */
	if (eng->t[ti] == NULL || eng_cb_none(eng))
		return false;
	n = ((const struct fc_table_view *)(const void *)eng->t[ti])->n_slots;
	c = calloc(n, sizeof(*c));
	if (c == NULL)
		return false;
	__atomic_store_n(&eng->view.ct_ignored[ti], c, __ATOMIC_RELEASE);
	return true;
}

void
eng_ign_count(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t len)
{
	/* Without memory the connection counts it, as before. */
	if (eng_ign_ready(eng, ti))
		(void)rule_engine_ct_ignored(eng, ti, idx, len);
}

void
eng_ign_reset(struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	struct rule_ct_ignored *c = eng->view.ct_ignored[ti];

	if (c != NULL) {
		__atomic_store_n(&c[idx].packets, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c[idx].bytes, 0, __ATOMIC_RELAXED);
	}
}

void
eng_ign_move(struct rule_engine *eng, unsigned int ti, uint32_t from, uint32_t to)
{
	struct rule_ct_ignored *c = eng->view.ct_ignored[ti];

	if (c != NULL) {
		__atomic_store_n(&c[to].packets, c[from].packets, __ATOMIC_RELAXED);
		__atomic_store_n(&c[to].bytes, c[from].bytes, __ATOMIC_RELAXED);
	}
}

void
eng_ign_get(const struct rule_engine *eng, unsigned int ti, uint32_t idx, uint64_t *packets,
	uint64_t *bytes)
{
	const struct rule_ct_ignored *c = eng->view.ct_ignored[ti];

	*packets = c != NULL ? __atomic_load_n(&c[idx].packets, __ATOMIC_RELAXED) : 0;
	*bytes = c != NULL ? __atomic_load_n(&c[idx].bytes, __ATOMIC_RELAXED) : 0;
}

/* The set's connbytes matches, once per generation. */
static void
cb_collect(struct rule_engine *eng)
{
	const struct rule_set *s = eng->set;

	if (eng->cb_gen == eng->gen + 1)
		return;
	eng->n_cb = 0;
	for (unsigned int t = 0; s != NULL && t < RULE_TABLE__COUNT; t++) {
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int i = 0; i < nc; i++) {
			const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, i);

			for (uint32_t j = 0; c != NULL && j < c->n_rules; j++) {
				const struct rule *r = &c->rules[j];

				for (unsigned int x = 0; x < r->n_xm && x < RULE_XM_MAX; x++) {
					if (r->xm[x].kind != RULE_XM_CONNBYTES)
						continue;
					if (eng->n_cb == eng->cap_cb) {
						uint32_t cap = eng->cap_cb ? eng->cap_cb * 2 : 8;
						void *p = realloc(eng->cb, cap * sizeof(*eng->cb));

						if (p == NULL) {
							/* Not all of them: limits of 0, every packet goes up. */
							eng->n_cb = UINT32_MAX;
							return;
						}
						eng->cb = p;
						eng->cap_cb = cap;
					}
					eng->cb[eng->n_cb++] = r->xm[x].u.connbytes;
				}
			}
		}
	}
	eng->cb_gen = eng->gen + 1;
}

bool
eng_cb_none(struct rule_engine *eng)
{
	cb_collect(eng);
	return eng->n_cb == 0;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* floor(n / d) for n, d > 0, at least 1, at most UINT64_MAX. */
static uint64_t
steps(unsigned __int128 n, unsigned __int128 d)
{
	unsigned __int128 q = n / d;

	if (q == 0)
		return 1;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/*
 * How much the counter @p *bytes selects (0: packets, 1: bytes) must grow
 * before match @p m may answer otherwise, from P packets and B bytes (its
 * direction's); 0: never.
 */
static uint64_t
cb_distance(const struct rule_x_connbytes *m, uint64_t P, uint64_t B, unsigned int *bytes)
{
	uint64_t lo = m->lo, hi = m->hi, v;
	uint64_t up = 0, dn = 0;

	*bytes = m->mode == RULE_CB_BYTES;
	if (m->mode != RULE_CB_AVGPKT) {
		v = m->mode == RULE_CB_BYTES ? B : P;
		if (v < lo)
			return lo - v;
		if (v <= hi && hi != UINT64_MAX)
			return hi + 1 - v;
		return 0;
	}
	/* avgpkt: packets before the average B / P can cross lo or hi + 1. */
	if (P == 0)
		return 1;
	v = B / P;
	if (v < lo) {
		if (lo >= CB_IP_MAX)
			return 0;
		return steps((unsigned __int128)lo * P - B, CB_IP_MAX - lo);
	}
	if (v <= hi) {
		if (hi < CB_IP_MAX - 1)
			up = steps((unsigned __int128)(hi + 1) * P - B, CB_IP_MAX - hi - 1);
		if (lo > CB_IP_MIN)
			dn = steps((unsigned __int128)B - (unsigned __int128)lo * P + 1, lo - CB_IP_MIN);
		if (up == 0 || (dn != 0 && dn < up))
			up = dn;
		return up;
	}
	if (hi + 1 <= CB_IP_MIN)
		return 0;
	return steps((unsigned __int128)B - (unsigned __int128)(hi + 1) * P + 1,
		hi + 1 - CB_IP_MIN);
}

/* Slot @p idx's limits; @p dir its direction (RULE_CTDIR_*), @p mk the connection's counts. */
static void
cb_slot_arm(struct rule_engine *eng, unsigned int ti, uint32_t idx, unsigned int dir,
	const struct eng_marks *mk)
{
	const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
	struct rule_count_limit *l = &eng->view.count_limit[ti][idx];
	uint64_t own[2], lim[2] = {UINT64_MAX, UINT64_MAX};

	if (e == NULL)
		return;
	fc_table_counters(eng->t[ti], idx, &own[0], &own[1]);
	if (eng->cb_pend.on && eng->cb_pend.ti == ti && eng->cb_pend.idx == idx) {
		own[0]++;
		own[1] += eng->cb_pend.len;
	}
	for (uint32_t i = 0; eng->n_cb != UINT32_MAX && i < eng->n_cb; i++) {
		const struct rule_x_connbytes *m = &eng->cb[i];
		uint64_t P, B, d;
		unsigned int u;

		if (m->dir == RULE_CTDIR_BOTH) {
			P = mk->ct_packets[0] + mk->ct_packets[1];
			B = mk->ct_bytes[0] + mk->ct_bytes[1];
		} else if (m->dir == dir) {
			P = mk->ct_packets[dir];
			B = mk->ct_bytes[dir];
		} else {
			continue;
		}
		d = cb_distance(m, P, B, &u);
		if (d == 0)
			continue;
		/* Both directions: one of the two has grown by half of it first. */
		if (m->dir == RULE_CTDIR_BOTH)
			d = d / 2 + (d & 1);
		d = sat_add(own[u], d);
		if (d < lim[u])
			lim[u] = d;
	}
	if (eng->n_cb == UINT32_MAX)
		lim[0] = lim[1] = 0;
	__atomic_store_n(&l->packets, lim[0], __ATOMIC_RELEASE);
	__atomic_store_n(&l->bytes, lim[1], __ATOMIC_RELEASE);
}

void
eng_cb_arm(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct rule_upcall *up)
{
	const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
	uint32_t peer = eng_peer(eng, ti, idx);
	bool pend = eng->cb_pend.on;
	struct eng_marks mk;
	unsigned int dir;

	if (e == NULL || !eng_cb_ready(eng, ti))
		return;
	if (up != NULL) {
		eng->cb_pend.on = true;
		eng->cb_pend.ti = (uint8_t)ti;
		eng->cb_pend.idx = idx;
		eng->cb_pend.ip_len = up->pkt.ip_len;
		eng->cb_pend.len = up->len;
	}
	cb_collect(eng);
	eng_conn_counts(eng, ti, idx, &e->act, NULL, &mk);
	dir = (e->act.flags & FC_ACT_F_REPLY) ? RULE_CTDIR_REPLY : RULE_CTDIR_ORIGINAL;
	cb_slot_arm(eng, ti, idx, dir, &mk);
	if (peer != FC_INDEX_NONE && eng_peer(eng, ti, peer) == idx)
		cb_slot_arm(eng, ti, peer, dir ^ 1, &mk);
	if (up != NULL)
		eng->cb_pend.on = pend;
}

void
eng_cb_count_alone(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t len,
	uint32_t now)
{
	const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
	uint32_t tgen, tr;

	if (e == NULL)
		return;
	cb_collect(eng);
	if (eng->n_cb == 0)
		return;
	/* The entry's rule and trace would count it: they give it back. */
	if (eng_ctr_live(eng, &e->act))
		eng_rule_count(eng, e->act.rule_id, UINT64_MAX, 0 - (uint64_t)len);
	tr = eng_side_trace(eng, ti, idx, &tgen);
	if (tr != 0 && (int32_t)(tgen - eng->ctr_gen) >= 0)
		eng_trace_count(eng, tr, UINT64_MAX, 0 - (uint64_t)len);
	fc_table_touch(eng->t[ti], idx, len, now);
}

void
eng_cb_redecide(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_key *k,
	const struct rule_upcall *up)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);
	uint32_t peer = eng_peer(eng, ti, idx);
	const struct fc_entry *pe;
	struct fc_action a;
	struct eng_cb_pend pend;

	if (e == NULL)
		return;
	eng->st.count_redecided++;
	pend = eng->cb_pend;
	eng->cb_pend.on = true; /* this packet, entry @p idx's next (as eng_old_flow() says) */
	eng->cb_pend.ti = (uint8_t)ti;
	eng->cb_pend.idx = idx;
	eng->cb_pend.ip_len = up->pkt.ip_len;
	eng->cb_pend.len = up->len;
	a = e->act;
	if (eng_refilter(eng, ti, idx, k, &a) < 0)
		a.verdict = FC_VERDICT_SLOW;
	eng_entry_set(eng, ti, idx, &a, eng_timeout(eng, ti, idx));
	pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
	if (pe != NULL && eng_peer(eng, ti, peer) == idx && (pe->act.flags & FC_ACT_F_COUNT)) {
		const void *raw = fc_table_key(t, peer);
		struct fc_key pk;

		if (raw != NULL) {
			memset(&pk, 0, sizeof(pk));
			pk.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
			memcpy(&pk.v4, raw, fc_table_key_size(t));
			a = pe->act;
			if (eng_refilter(eng, ti, peer, &pk, &a) < 0)
				a.verdict = FC_VERDICT_SLOW;
			eng_entry_set(eng, ti, peer, &a, eng_timeout(eng, ti, peer));
		}
	}
	eng->cb_pend = pend;
}
