/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the rules engine — the slow path the rules lcore runs, as a
 * library (no lcores, no ports, no mbufs). Creation, readers, grace
 * periods (rule_engine_defer()), entry updates with the per-rule counter
 * bookkeeping, and entries that go (aging, eviction, flush, deletion),
 * which take their peer and per-flow channel with them and are shown to
 * every module's on_remove. Aging is the engine's own (eng_age()): a
 * connection is idle only when both of its entries are. Upcalls:
 * engine_upcall.c; walking a cached entry again: engine_refilter.c; the
 * module registry and the built-in stages:
 * engine_mods.c; commits and revalidation: engine_commit.c; counters and
 * listing: engine_info.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "engine_priv.h"

RTE_LOG_REGISTER(rule_engine_logtype, gufc.engine, NOTICE);

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */
/* ------------------------------------------------------------------------ */

void
eng_rule_count(struct rule_engine *eng, uint32_t rule_id, uint64_t packets, uint64_t bytes)
{
	uint32_t i = rule_id == RULE_ID_POLICY ? 0 : rule_id;

	if (packets == 0 && bytes == 0)
		return;
	if (RULE_ID_IS_CHAIN_POLICY(rule_id)) {
		uint32_t t = RULE_ID_CHAIN_POLICY_TABLE(rule_id), h = RULE_ID_CHAIN_POLICY_HOOK(rule_id);
		unsigned int f = RULE_ID_CHAIN_POLICY_FAMILY(rule_id) == FC_AF_INET6;

		if (t < RULE_TABLE__COUNT && h < RULE_HOOK__COUNT) {
			eng->pctr[f][t][h].packets += packets;
			eng->pctr[f][t][h].bytes += bytes;
		}
		return;
	}
	if (i >= eng->n_rctr) {
		uint32_t n = eng->n_rctr ? eng->n_rctr : 64;
		struct eng_rule_ctr *p;

		if (i >= ENG_RULE_CTR_MAX)
			return;
		while (n <= i)
			n *= 2;
		if (n > ENG_RULE_CTR_MAX)
			n = ENG_RULE_CTR_MAX;
		p = realloc(eng->rctr, (size_t)n * sizeof(*p));
		if (p == NULL)
			return;
		memset(&p[eng->n_rctr], 0, (size_t)(n - eng->n_rctr) * sizeof(*p));
		eng->rctr = p;
		eng->n_rctr = n;
	}
	eng->rctr[i].packets += packets;
	eng->rctr[i].bytes += bytes;
}

void
eng_ctr_switch(struct rule_engine *eng, const struct fc_table *t, uint32_t idx,
	const struct fc_entry *e, const struct fc_action *a)
{
	uint32_t was = eng_ctr_live(eng, &e->act) ? e->act.rule_id : RULE_ID_NONE;
	uint32_t will = a != NULL && eng_ctr_live(eng, a) ? a->rule_id : RULE_ID_NONE;
	uint64_t p, b;

	if (was == will)
		return;
	fc_table_counters(t, idx, &p, &b);
	if (was != RULE_ID_NONE)
		eng_rule_count(eng, was, p, b);
	if (will != RULE_ID_NONE)
		eng_rule_count(eng, will, 0 - p, 0 - b);
}

uint16_t
eng_channel(struct rule_engine *eng, const char *name)
{
	int id;

	if (name[0] == '\0' || eng->p.channel_fn == NULL)
		return eng->p.default_channel;
	id = eng->p.channel_fn(eng->p.cb_arg, name);
	if (id < 0 || id > UINT16_MAX) {
		eng->st.channel_unknown++;
		return eng->p.default_channel;
	}
	return (uint16_t)id;
}

/*
 * Channel @p name for a packet of entry @p idx that may hold a per-flow
 * channel: the flow keeps its own ring as long as its rule still names the
 * ring's parent (the entry's fc_action::channel).
 */
uint32_t
eng_channel_keep(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *a, const char *name)
{
	uint16_t id = eng_channel(eng, name);
	uint32_t fc;

	if ((a->mod[0] & ENG_M0_CHAN_FLOW) && id == a->channel) {
		fc = eng_flow_chan(eng, ti, idx);
		if (fc != RULE_CHAN_NONE)
			return fc;
	}
	return id;
}

void
eng_filter_key(const struct rule_engine *eng, const struct fc_key *k, const struct fc_action *a,
	struct fc_key *fk)
{
	uint8_t fl = a->mod[0] & (ENG_M0_FK_SRC_LOCAL | ENG_M0_FK_DST_LOCAL);
	bool done = false;

	*fk = *k;
	if (!(a->flags & FC_ACT_F_NAT))
		return;
	/* The destination as the modules translated it; the local bits as the filter saw them. */
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->filter_key != NULL) {
			m->filter_key(m->priv, a, fk);
			done = true;
		}
	}
	if (done)
		fc_key_set_flags(fk, fl);
}

/*
 * The connection of live entry @p idx has mark @p ctmark now: both entries
 * hold it. When it changed, the other direction's cached verdict is
 * decided again under it (its packets would see the new mark).
 */
void
eng_ctmark_store(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t ctmark)
{
	uint32_t peer = eng_peer(eng, ti, idx);
	const struct fc_entry *pe;
	const void *raw;
	struct fc_action a;
	struct fc_key k;

	if (eng_side_ctmark(eng, ti, idx) == ctmark)
		return;
	/* Without memory for the record the connection keeps its old mark. */
	if (eng_side_marks_set(eng, ti, idx, eng_side_fmark(eng, ti, idx), ctmark) < 0) {
		ENG_LOG(DEBUG, "%s: no memory for a connection mark", eng->name);
		return;
	}
	pe = peer != FC_INDEX_NONE ? fc_table_entry(eng->t[ti], peer) : NULL;
	raw = pe != NULL ? fc_table_key(eng->t[ti], peer) : NULL;
	if (raw == NULL || eng_peer(eng, ti, peer) != idx)
		return;
	memset(&k, 0, sizeof(k));
	k.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&k.v4, raw, fc_table_key_size(eng->t[ti]));
	a = pe->act;
	if (eng_side_marks_set(eng, ti, peer, eng_side_fmark(eng, ti, peer), ctmark) < 0) {
		/* The peer cannot hold it: its packets are decided one by one. */
		a.verdict = FC_VERDICT_SLOW;
		eng_entry_set(eng, ti, peer, &a, eng_timeout(eng, ti, peer));
		return;
	}
	/* One level: the peer's walk may set the mark once more; it is kept, not chased. */
	if (eng_refilter(eng, ti, peer, &k, &a) < 0)
		a.verdict = FC_VERDICT_SLOW;
	eng_entry_set(eng, ti, peer, &a, eng_timeout(eng, ti, peer));
}

/*
 * Replace an entry's action. When its rule changes (or the entry was
 * validated under rule ids no longer current), what it counted so far is
 * folded into the old rule's counter (or dropped): the new rule counts
 * from now on.
 */
void
eng_entry_set(struct rule_engine *eng, unsigned int ti, uint32_t idx, const struct fc_action *a,
	uint32_t timeout)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);

	if (e == NULL)
		return;
	eng_ctr_switch(eng, t, idx, e, a);
	/* Window-checked: the fast path counts the segments conntrack ignores apart. */
	if (unlikely(a->interest & (FC_INTEREST_TCP_WIN | FC_INTEREST_SCTP)) &&
		eng->view.ct_ignored[ti] == NULL)
		(void)eng_ign_ready(eng, ti);
	/* Its limits before the action that names them. */
	if (a->flags & FC_ACT_F_COUNT)
		eng_cb_arm(eng, ti, idx, NULL);
	fc_table_update(t, idx, a, timeout);
}

int
rule_engine_flow_update(struct rule_engine *eng, unsigned int family, uint32_t idx,
	const struct fc_action *a, uint32_t timeout)
{
	int ti = eng_tbl(family);
	const struct fc_entry *e;
	struct fc_action old, n;

	if (eng == NULL || a == NULL || ti < 0)
		return -EINVAL;
	e = eng->t[ti] != NULL ? fc_table_entry(eng->t[ti], idx) : NULL;
	if (e == NULL)
		return -ENOENT;
	old = e->act;
	n = *a;
	/* Interest it adds stays through a RULE_MOD_F_OWN_INTEREST module's on_packet. */
	eng_set_extra_interest(&n, eng_extra_interest(&old) | (a->interest & ~old.interest));
	eng_entry_set(eng, (unsigned int)ti, idx, &n, timeout);
	eng_reply_follow(eng, (unsigned int)ti, idx, &old, &n);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Grace periods                                                             */
/* ------------------------------------------------------------------------ */

static struct eng_retire *
retire_push(struct rule_engine *eng)
{
	struct eng_retire *r;

	if (eng->n_ret == eng->cap_ret) {
		uint32_t cap = eng->cap_ret ? eng->cap_ret * 2 : 64;
		struct eng_retire *p = realloc(eng->ret, cap * sizeof(*p));

		if (p == NULL)
			return NULL;
		eng->ret = p;
		eng->cap_ret = cap;
	}
	r = &eng->ret[eng->n_ret++];
	memset(r, 0, sizeof(*r));
	r->token = rte_rcu_qsbr_start(eng->qsv);
	r->chan = -1;
	return r;
}

int
eng_retire(struct rule_engine *eng, void *ptr)
{
	struct eng_retire *r = retire_push(eng);

	if (r == NULL)
		return -ENOMEM;
	r->ptr = ptr;
	return 0;
}

void
rule_engine_expect_note(struct rule_engine *eng, const struct fc_key *k)
{
	uint32_t e;

	if (eng == NULL || k == NULL ||
		(k->family != FC_AF_INET4 && k->family != FC_AF_INET6))
		return;
	e = eng->view.exp_epoch + 1;
	if (e == 0)
		e = 1;
	/* The slot first: a reader that sees the new count finds it (release). */
	__atomic_store_n(&eng->view.exp_slots[rule_engine_exp_slot(k)], e, __ATOMIC_RELAXED);
	__atomic_store_n(&eng->view.exp_epoch, e, __ATOMIC_RELEASE);
}

int
rule_engine_defer(struct rule_engine *eng, rule_defer_fn fn, void *arg, uint64_t val)
{
	struct eng_retire *r;

	if (eng == NULL || fn == NULL)
		return -EINVAL;
	r = retire_push(eng);
	if (r == NULL)
		return -ENOMEM;
	r->fn = fn;
	r->arg = arg;
	r->val = val;
	return 0;
}

/* A per-flow channel goes back to the app after a grace period. */
int
eng_retire_chan(struct rule_engine *eng, uint32_t chan)
{
	struct eng_retire *r = retire_push(eng);

	if (r == NULL)
		return -ENOMEM;
	r->chan = chan;
	return 0;
}

/* @return false when a per-flow channel must be retried later (-EBUSY). */
static bool
retire_now(struct rule_engine *eng, const struct eng_retire *r)
{
	if (r->chan >= 0 && eng->p.chan_flow_free_fn != NULL) {
		int rc = eng->p.chan_flow_free_fn(eng->p.cb_arg, (uint32_t)r->chan);

		if (rc == -EBUSY)
			return false;
		if (rc < 0)
			eng->st.chan_flow_free_fail++;
		else
			eng->st.chan_flow_freed++;
	}
	free(r->ptr);
	if (r->fn != NULL)
		r->fn(r->arg, r->val);
	return true;
}

void
eng_retire_poll(struct rule_engine *eng)
{
	uint32_t busy[32];
	uint32_t done = 0, n_busy = 0;

	/* Tokens grow: stop at the first grace period still running. */
	while (done < eng->n_ret && n_busy < RTE_DIM(busy) &&
		rte_rcu_qsbr_check(eng->qsv, eng->ret[done].token, false) == 1) {
		if (!retire_now(eng, &eng->ret[done]))
			busy[n_busy++] = (uint32_t)eng->ret[done].chan;
		done++;
	}
	if (done == 0)
		return;
	memmove(eng->ret, &eng->ret[done], (eng->n_ret - done) * sizeof(*eng->ret));
	eng->n_ret -= done;
	/* Channels whose consumer is still attached: again after another grace period. */
	for (uint32_t i = 0; i < n_busy; i++)
		if (eng_retire_chan(eng, busy[i]) < 0)
			eng->st.chan_flow_free_fail++;
}

/* ------------------------------------------------------------------------ */
/* Entries that go                                                           */
/* ------------------------------------------------------------------------ */

static void
gone_one(struct rule_engine *eng, unsigned int ti, const struct fc_key *k, uint32_t idx,
	const struct fc_entry *e, const struct fc_key *peer_k)
{
	struct rule_flow_gone g;
	uint32_t fc;

	/* No reader can reach the entry after a grace period: the ring goes then. */
	fc = eng_flow_chan(eng, ti, idx);
	if ((e->act.mod[0] & ENG_M0_CHAN_OWN) && fc != RULE_CHAN_NONE &&
		eng_retire_chan(eng, fc) < 0) {
		eng->st.chan_flow_free_fail++;
		ENG_LOG(DEBUG, "%s: per-flow channel %u leaks (no memory)", eng->name, fc);
	}
	/* A slot is free with no per-flow channel: its next entry starts clean. */
	if (fc != RULE_CHAN_NONE)
		eng_flow_chan_set(eng, ti, idx, RULE_CHAN_NONE);

	eng_ctr_switch(eng, eng->t[ti], idx, e, NULL);
	eng_trace_gone(eng, ti, idx, e);
	eng->st.removed++;
	g.key = *k;
	g.act = e->act;
	if (peer_k != NULL)
		g.peer_key = *peer_k;
	else
		memset(&g.peer_key, 0, sizeof(g.peer_key));
	fc_table_counters(eng->t[ti], idx, &g.packets, &g.bytes);
	g.idx = idx;
	g.created = fc_table_created(eng->t[ti], idx);
	g.last_seen = e->last_seen;
	g.why = eng->gone_why;
	for (unsigned int i = 0; i < eng->n_mods; i++)
		if (eng->mods[i].m.on_remove != NULL)
			eng->mods[i].m.on_remove(eng->mods[i].m.priv, &g);
	eng_side_drop(eng, ti, idx);
}

static void
raw_key(const struct fc_table *t, const void *raw, unsigned int ti, struct fc_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&k->v4, raw, fc_table_key_size(t));
}

/*
 * Entry @idx goes (it is still live): account it and its peer, delete the
 * peer. Modules release what the entries held from on_remove. The caller
 * (or the table) deletes @idx itself.
 */
static void
flow_gone(struct rule_engine *eng, struct fc_table *t, unsigned int ti, const void *raw,
	uint32_t idx, const struct fc_entry *e)
{
	struct fc_key k, pkey;
	uint32_t peer = eng_peer(eng, ti, idx);
	const struct fc_entry *pe = NULL;

	raw_key(t, raw, ti, &k);
	if (peer != FC_INDEX_NONE) {
		const void *pk = fc_table_key(t, peer);

		pe = fc_table_entry(t, peer);
		if (pe != NULL && pk != NULL && eng_peer(eng, ti, peer) == idx)
			raw_key(t, pk, ti, &pkey);
		else
			pe = NULL;
	}
	gone_one(eng, ti, &k, idx, e, pe != NULL ? &pkey : NULL);
	if (pe != NULL) {
		gone_one(eng, ti, &pkey, peer, pe, &k);
		fc_table_delete(t, peer);
	}
}

static void
table_remove_cb(struct fc_table *t, const void *key, uint32_t idx, const struct fc_entry *e,
	void *arg)
{
	struct rule_engine *eng = arg;

	/* The table removes entries on its own when it evicts, or for a flush. */
	eng->gone_why = eng->flushing ? RULE_GONE_FLUSHED : RULE_GONE_TABLE;
	flow_gone(eng, t, t == eng->t[0] ? 0 : 1, key, idx, e);
}

static void
eng_flow_delete_why(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint8_t why)
{
	struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);
	const void *raw = fc_table_key(t, idx);

	if (e == NULL || raw == NULL)
		return;
	eng->gone_why = why;
	flow_gone(eng, t, ti, raw, idx, e);
	fc_table_delete(t, idx);
}

void
eng_flow_delete(struct rule_engine *eng, unsigned int ti, uint32_t idx)
{
	eng_flow_delete_why(eng, ti, idx, RULE_GONE_DELETED);
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                  */
/* ------------------------------------------------------------------------ */

static int
tables_create(struct rule_engine *eng)
{
	for (unsigned int ti = 0; ti < 2; ti++) {
		struct fc_table_params tp = {0};
		char name[48];

		tp.capacity = ti == 0 ? eng->p.capacity_v4 : eng->p.capacity_v6;
		if (tp.capacity == 0)
			continue;
		snprintf(name, sizeof(name), "%s_f%c", eng->name, ti == 0 ? '4' : '6');
		tp.name = name;
		tp.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
		tp.max_readers = eng->p.max_readers;
		tp.full_policy = eng->p.full_policy;
		tp.socket_id = eng->p.socket_id;
		tp.remove_cb = table_remove_cb;
		tp.remove_arg = eng;
		eng->t[ti] = fc_table_create(&tp);
		if (eng->t[ti] == NULL)
			return -rte_errno;
		if (eng->p.chan_flow_alloc_fn != NULL) {
			/* Per-flow channels: a 32-bit id per slot, none to begin with. */
			uint32_t n_slots =
				((const struct fc_table_view *)(const void *)eng->t[ti])->n_slots;

			eng->view.flow_chan[ti] = malloc(n_slots * sizeof(uint32_t));
			if (eng->view.flow_chan[ti] == NULL)
				return -ENOMEM;
			memset(eng->view.flow_chan[ti], 0xff, n_slots * sizeof(uint32_t));
		}
	}
	return 0;
}

static int
params_apply(struct rule_engine *eng, const struct rule_engine_params *p)
{
	size_t nl;

	if (p == NULL || p->name == NULL)
		return -EINVAL;
	nl = strnlen(p->name, 17);
	if (nl == 0 || nl > 16 || (p->capacity_v4 == 0 && p->capacity_v6 == 0))
		return -EINVAL;
	eng->p = *p;
	snprintf(eng->name, sizeof(eng->name), "%s", p->name);
	eng->p.name = eng->name;
	if (eng->p.max_readers == 0)
		eng->p.max_readers = 1;
	if (eng->p.untracked_timeout == 0)
		eng->p.untracked_timeout = 30000;
	if (eng->p.max_pending == 0)
		eng->p.max_pending = 256;
	if ((p->chan_flow_alloc_fn == NULL) != (p->chan_flow_free_fn == NULL))
		return -EINVAL;
	return 0;
}

struct rule_engine *
rule_engine_create(const struct rule_engine_params *p)
{
	struct rule_engine *eng;
	size_t sz;
	int rc;

	eng = rte_zmalloc_socket("rule_engine", sizeof(*eng), RTE_CACHE_LINE_SIZE,
		p != NULL ? p->socket_id : SOCKET_ID_ANY);
	if (eng == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = params_apply(eng, p);
	if (rc < 0)
		goto fail;
	sz = rte_rcu_qsbr_get_memsize(eng->p.max_readers);
	eng->qsv = rte_zmalloc_socket("rule_engine_qsbr", sz, RTE_CACHE_LINE_SIZE,
		eng->p.socket_id);
	rc = -ENOMEM;
	if (eng->qsv == NULL || rte_rcu_qsbr_init(eng->qsv, eng->p.max_readers) != 0)
		goto fail;
	rc = tables_create(eng);
	if (rc == 0) {
		eng->view.exp_slots = rte_zmalloc_socket("rule_engine_exp",
			RULE_EXP_SLOTS * sizeof(*eng->view.exp_slots), RTE_CACHE_LINE_SIZE,
			eng->p.socket_id);
		if (eng->view.exp_slots == NULL)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = eng_meters_init(eng);
	if (rc == 0)
		rc = eng_pktact_init(eng);
	if (rc == 0)
		rc = eng_strs_init(eng);
	if (rc == 0)
		rc = eng_clsc_init(eng);
	if (rc < 0)
		goto fail;
	rc = eng_commit_init(eng);
	if (rc < 0)
		goto fail;
	rc = eng_mods_register(eng);
	if (rc < 0)
		goto fail;
	return eng;
fail:
	rule_engine_free(eng);
	rte_errno = -rc;
	return NULL;
}

void
rule_engine_free(struct rule_engine *eng)
{
	if (eng == NULL)
		return;
	/* Entries go without on_remove; what waited for a grace period runs now. */
	for (unsigned int ti = 0; ti < 2; ti++)
		fc_table_free(eng->t[ti]);
	for (uint32_t i = 0; i < eng->n_ret; i++) {
		free(eng->ret[i].ptr);
		if (eng->ret[i].fn != NULL)
			eng->ret[i].fn(eng->ret[i].arg, eng->ret[i].val);
	}
	free(eng->ret);
	eng_commit_fini(eng);
	free(eng->rctr);
	eng_side_fini(eng);
	eng_trace_fini(eng);
	for (unsigned int ti = 0; ti < 2; ti++)
		free(eng->view.flow_chan[ti]);
	eng_cb_free(eng);
	eng_meters_fini(eng);
	rte_free(eng->view.exp_slots);
	eng_pktact_fini(eng);
	eng_strs_fini(eng);
	eng_clsc_fini(eng);
	rte_free(eng->qsv);
	rte_free(eng);
}

struct fc_table *
rule_engine_table(const struct rule_engine *eng, unsigned int family)
{
	int ti = eng_tbl(family);

	return eng == NULL || ti < 0 ? NULL : eng->t[ti];
}

const struct rule_recent *
rule_engine_recent(const struct rule_engine *eng)
{
	return eng != NULL ? eng->recent : NULL;
}

const struct rule_hashlimit *
rule_engine_hashlimit(const struct rule_engine *eng)
{
	return eng != NULL ? eng->hashlimit : NULL;
}

const struct rule_set *
rule_engine_rules(const struct rule_engine *eng)
{
	return eng == NULL ? NULL : eng->set;
}

/*
 * The modules' indexes that eng_entry_timeout() and rule_engine_step() run
 * (after each change of the list).
 */
static void
eng_mods_indexed(struct rule_engine *eng)
{
	eng->n_to_mods = 0;
	eng->n_step_mods = 0;
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		if (eng->mods[i].m.entry_timeout != NULL)
			eng->to_mods[eng->n_to_mods++] = (uint8_t)i;
		if (eng->mods[i].m.step != NULL)
			eng->step_mods[eng->n_step_mods++] = (uint8_t)i;
	}
}

int
rule_engine_module_register(struct rule_engine *eng, const struct rule_module *m)
{
	unsigned int pos;

	if (eng == NULL || m == NULL || m->name == NULL ||
		(m->on_insert == NULL && m->on_abort == NULL && m->on_packet == NULL &&
			m->on_remove == NULL && m->on_move == NULL && m->entry_ctstate == NULL &&
			m->filter_key == NULL && m->ct_format == NULL && m->step == NULL))
		return -EINVAL;
	for (unsigned int i = 0; i < eng->n_mods; i++)
		if (strcmp(eng->mods[i].m.name, m->name) == 0)
			return -EEXIST;
	if (eng->n_mods == RULE_MODULES_MAX)
		return -ENOSPC;
	/* Stable: equal orders keep registration order. */
	for (pos = eng->n_mods; pos > 0 && eng->mods[pos - 1].m.order > m->order; pos--)
		eng->mods[pos] = eng->mods[pos - 1];
	eng->mods[pos].m = *m;
	eng->n_mods++;
	eng_mods_indexed(eng);
	return 0;
}

int
rule_engine_module_unregister(struct rule_engine *eng, const char *name)
{
	if (eng == NULL || name == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		if (strcmp(eng->mods[i].m.name, name) != 0)
			continue;
		memmove(&eng->mods[i], &eng->mods[i + 1],
			(eng->n_mods - i - 1) * sizeof(eng->mods[0]));
		eng->n_mods--;
		eng_mods_indexed(eng);
		return 0;
	}
	return -ENOENT;
}

int
rule_engine_reader_register(struct rule_engine *eng, unsigned int reader_id)
{
	if (eng == NULL || reader_id >= eng->p.max_readers)
		return -EINVAL;
	for (unsigned int ti = 0; ti < 2; ti++)
		if (eng->t[ti] != NULL && fc_table_reader_register(eng->t[ti], reader_id) < 0)
			return -EINVAL;
	if (rte_rcu_qsbr_thread_register(eng->qsv, reader_id) != 0)
		return -EINVAL;
	rte_rcu_qsbr_thread_online(eng->qsv, reader_id);
	return 0;
}

int
rule_engine_reader_unregister(struct rule_engine *eng, unsigned int reader_id)
{
	if (eng == NULL || reader_id >= eng->p.max_readers)
		return -EINVAL;
	rte_rcu_qsbr_thread_offline(eng->qsv, reader_id);
	rte_rcu_qsbr_thread_unregister(eng->qsv, reader_id);
	for (unsigned int ti = 0; ti < 2; ti++)
		if (eng->t[ti] != NULL)
			fc_table_reader_unregister(eng->t[ti], reader_id);
	return 0;
}

void
rule_engine_quiescent(struct rule_engine *eng, unsigned int reader_id)
{
	rte_rcu_qsbr_quiescent(eng->qsv, reader_id);
	for (unsigned int ti = 0; ti < 2; ti++)
		if (eng->t[ti] != NULL)
			fc_table_quiescent(eng->t[ti], reader_id);
}

/* Is @p a more recent than @p b (signed 32-bit difference, as the table's idle time)? */
static inline bool
time_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/*
 * Aging, the engine's own (instead of fc_table_age()): Linux refreshes a
 * connection on traffic in either direction, so an entry is idle only
 * when it and its peer both are: its idle time counts from the later of
 * the two last_seen. Both go together (flow_gone()). Examines at most
 * @p budget slots, free ones included (fc_table_walk()), from a rotating
 * cursor, so one call is bounded work however large and empty the table;
 * after a full sweep the next one waits ENG_AGE_SWEEP_MS, so an idle,
 * empty table costs little.
 */
#define ENG_AGE_SWEEP_MS 100

static unsigned int
eng_age(struct rule_engine *eng, unsigned int ti, uint32_t now, unsigned int budget)
{
	struct fc_table *t = eng->t[ti];
	uint32_t cur = eng->age_cursor[ti], left, idx;
	unsigned int removed = 0;

	if (cur == 0) {
		if (eng->age_swept[ti] && (int32_t)(now - eng->age_sweep_start[ti]) <
			ENG_AGE_SWEEP_MS)
			return 0;
		eng->age_sweep_start[ti] = now;
		eng->age_swept[ti] = true;
	}
	left = budget;
	for (;;) {
		const struct fc_entry *e, *pe;
		uint32_t last, peer, timeout;
		int rc = fc_table_walk(t, &cur, &left, NULL, &idx);

		if (rc == -EAGAIN)
			break;
		if (rc != 0) {
			cur = 0;
			break;
		}
		e = fc_table_entry(t, idx);
		timeout = eng_timeout(eng, ti, idx);
		if (e == NULL || timeout == 0)
			continue;
		if (unlikely(e->act.flags & FC_ACT_F_AHEAD))
			eng_synack_settle(eng, ti, idx);
		timeout = eng_entry_timeout(eng, &e->act, timeout);
		last = __atomic_load_n(&e->last_seen, __ATOMIC_RELAXED);
		peer = eng_peer(eng, ti, idx);
		pe = peer != FC_INDEX_NONE ? fc_table_entry(t, peer) : NULL;
		if (pe != NULL && eng_peer(eng, ti, peer) == idx) {
			uint32_t pl = __atomic_load_n(&pe->last_seen, __ATOMIC_RELAXED);

			if (time_after(pl, last))
				last = pl;
		}
		if ((int32_t)(now - last) <= 0 || (uint32_t)(now - last) <= timeout)
			continue;
		eng->st.aged += pe != NULL && eng_peer(eng, ti, peer) == idx ? 2 : 1;
		eng_flow_delete_why(eng, ti, idx, RULE_GONE_AGED);
		removed++;
	}
	eng->age_cursor[ti] = cur;
	eng->st.walk_slots += budget - left;
	return removed;
}

unsigned int
rule_engine_step(struct rule_engine *eng, uint32_t now, unsigned int budget)
{
	unsigned int work = 0;

	if (eng == NULL)
		return 0;
	eng_retire_poll(eng);
	for (unsigned int ti = 0; ti < 2; ti++)
		if (eng->t[ti] != NULL) {
			eng_age(eng, ti, now, budget / 4 + 1);
			work += budget / 4 + 1;
		}
	work += eng_revalidate(eng, budget / 2 + 1);
	for (unsigned int i = 0; i < eng->n_step_mods; i++) {
		const struct rule_module *m = &eng->mods[eng->step_mods[i]].m;

		work += m->step(m->priv, now, budget / 4 + 1);
	}
	return work;
}

unsigned int
rule_engine_flush(struct rule_engine *eng)
{
	unsigned int n = 0;

	if (eng == NULL)
		return 0;
	eng->flushing = true;
	for (unsigned int ti = 0; ti < 2; ti++)
		if (eng->t[ti] != NULL)
			n += fc_table_flush(eng->t[ti]);
	eng->flushing = false;
	return n;
}
