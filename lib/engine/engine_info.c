/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the rules engine's counters and introspection — engine
 * counters, per-rule packet/byte counters (the bank: what entries counted
 * for a rule before they left it, less what they had counted before they
 * joined it, packets decided without an entry, connections nat rules
 * translated; plus the live entries' own counters), the flow listing the shell and
 * telemetry print, and the entry lookups modules use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "engine_priv.h"

const char *
rule_upcall_name(unsigned int reason)
{
	static const char *const names[RULE_UPCALL__COUNT] = {"miss", "interest", "stale"};

	return reason < RULE_UPCALL__COUNT ? names[reason] : "?";
}

void
rule_engine_stats_get(const struct rule_engine *eng, struct rule_engine_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (eng == NULL)
		return;
	*st = eng->st;
	st->gen = eng->gen;
	st->cls_gen = eng->cls != NULL ? eng->cls_gen : 0;
	st->pending = eng->pending != NULL ? eng->pending->n : 0;
	st->connlimit_conns = eng_connlimit_count(eng);
	st->hashlimit_meters = eng->n_hlm;
	st->str_preds = eng->n_strs;
	st->u32_preds = eng->n_u32s;
	st->bpf_preds = eng->n_bpfs;
	st->overlay = 0;
	for (uint32_t i = 0; i < eng->n_chg; i++)
		if (eng->cls == NULL || (int32_t)(eng->chg[i].gen - eng->cls_gen) > 0)
			st->overlay++;
}

/* A snapshot: counters by slot (0: the policy, else the rule id), the chains' policies. */
struct rule_counters_snap {
	uint32_t n;
	struct eng_rule_ctr pol[2][RULE_TABLE__COUNT][RULE_HOOK__COUNT];
	struct eng_rule_ctr c[];
};

/* The counter of chain policy id @p id in @p pol ([IPv6][table][hook]), or NULL. */
static struct eng_rule_ctr *
pol_ctr(struct eng_rule_ctr pol[2][RULE_TABLE__COUNT][RULE_HOOK__COUNT], uint32_t id)
{
	uint32_t t = RULE_ID_CHAIN_POLICY_TABLE(id), h = RULE_ID_CHAIN_POLICY_HOOK(id);

	if (!RULE_ID_IS_CHAIN_POLICY(id) || t >= RULE_TABLE__COUNT || h >= RULE_HOOK__COUNT)
		return NULL;
	return &pol[RULE_ID_CHAIN_POLICY_FAMILY(id) == FC_AF_INET6][t][h];
}

/*
 * The packets of the live entries whose trace names rule (or chain policy)
 * @p rule_id, once per time it does; or, with @p snap, of every id of
 * theirs, into the snapshot.
 */
static void
trace_credit(const struct rule_engine *eng, uint32_t rule_id, uint64_t *packets,
	uint64_t *bytes, struct rule_counters_snap *snap)
{
	for (unsigned int ti = 0; ti < 2; ti++) {
		const struct eng_side *s = &eng->side[ti];

		if (eng->t[ti] == NULL)
			continue;
		for (uint32_t i = 0; i < s->cap; i++) {
			const struct eng_side_rec *r = &s->r[i];
			const struct eng_trace *t;
			const struct fc_entry *e;
			uint64_t p, b;

			if (r->slot == 0 || r->trace == 0 || (int32_t)(r->tgen - eng->ctr_gen) < 0)
				continue;
			t = eng_trace_get(eng, r->trace);
			e = fc_table_entry(eng->t[ti], r->slot - 1);
			if (t == NULL || e == NULL)
				continue;
			fc_table_counters(eng->t[ti], r->slot - 1, &p, &b);
			for (uint32_t j = 0; j < t->n; j++) {
				uint32_t id = eng_trace_ids(eng, t)[j];
				struct eng_rule_ctr *c = NULL;

				if (snap != NULL)
					c = id < snap->n ? &snap->c[id] : pol_ctr(snap->pol, id);
				if (c != NULL) {
					c->packets += p;
					c->bytes += b;
				} else if (snap == NULL && id == rule_id) {
					*packets += p;
					*bytes += b;
				}
			}
		}
	}
}

/* Add @p p packets, @p b bytes (two's complement: "less") to @p id's count or snapshot slot. */
static void
pred_move(const struct rule_engine *eng, uint32_t id, uint64_t p, uint64_t b, uint32_t rule_id,
	uint64_t *packets, uint64_t *bytes, struct rule_counters_snap *snap)
{
	struct eng_rule_ctr *c = NULL;

	(void)eng;
	if (id == RULE_ID_NONE)
		return;
	if (snap != NULL) {
		uint32_t slot = id == RULE_ID_POLICY ? 0 : id;

		c = slot < snap->n ? &snap->c[slot] : pol_ctr(snap->pol, id);
		if (c != NULL) {
			c->packets += p;
			c->bytes += b;
		}
	} else if (id == rule_id) {
		*packets += p;
		*bytes += b;
	}
}

/*
 * The packets of string predicates' outcomes but 0 (engine_strpred.h): the
 * entries counted them for outcome 0's rule and trace; they are their own
 * outcome's.
 */
void
eng_pred_credit(const struct rule_engine *eng, uint32_t rule_id, uint64_t *packets,
	uint64_t *bytes, struct rule_counters_snap *snap)
{
	for (uint32_t i = 0; i < eng->n_preds; i++) {
		const struct rule_pred *t = &eng->view.preds[i];

		for (unsigned int l = 1; l < t->n_leaves && l < RULE_PRED_LEAVES; l++) {
			uint64_t p = __atomic_load_n(&eng->view.pred_ctr[i].packets[l], __ATOMIC_RELAXED);
			uint64_t b = __atomic_load_n(&eng->view.pred_ctr[i].bytes[l], __ATOMIC_RELAXED);

			if (p == 0)
				continue;
			for (unsigned int o = 0; o < 2; o++) {
				const struct rule_pred_leaf *lf = &t->leaf[o == 0 ? 0 : l];
				const struct eng_trace *tr = eng_trace_get(eng, lf->trace);
				uint64_t sp = o == 0 ? 0 - p : p, sb = o == 0 ? 0 - b : b;

				pred_move(eng, lf->rule, sp, sb, rule_id, packets, bytes, snap);
				for (uint32_t j = 0; tr != NULL && j < tr->n; j++)
					pred_move(eng, eng_trace_ids(eng, tr)[j], sp, sb, rule_id, packets,
						bytes, snap);
			}
		}
	}
}

/*
 * The packets of metered programs' list 1 (rule_engine_prog_turned()): the
 * entries counted them for the conforming answer's rule and trace; the
 * exceeded meter turned them, and Linux credits the rules their own walk
 * passed (the rule or policy that then decided them).
 */
static void
prog_credit(const struct rule_engine *eng, uint32_t rule_id, uint64_t *packets, uint64_t *bytes,
	struct rule_counters_snap *snap)
{
	for (uint32_t i = 0; i < eng->n_progs; i++) {
		const struct rule_pktprog *pg = &eng->view.progs[i];
		uint64_t p, b;

		if (pg->meter == 0)
			continue;
		p = __atomic_load_n(&eng->view.prog_turned[i].packets, __ATOMIC_RELAXED);
		b = __atomic_load_n(&eng->view.prog_turned[i].bytes, __ATOMIC_RELAXED);
		if (p == 0 || (pg->rule[0] == pg->rule[1] && pg->trace[0] == pg->trace[1]))
			continue;
		for (unsigned int o = 0; o < 2; o++) {
			const struct eng_trace *tr = eng_trace_get(eng, pg->trace[o]);
			uint64_t sp = o == 0 ? 0 - p : p, sb = o == 0 ? 0 - b : b;

			pred_move(eng, pg->rule[o], sp, sb, rule_id, packets, bytes, snap);
			for (uint32_t j = 0; tr != NULL && j < tr->n; j++)
				pred_move(eng, eng_trace_ids(eng, tr)[j], sp, sb, rule_id, packets, bytes,
					snap);
		}
	}
}

/* One more than the largest rule id a trace names (bounded). */
static uint32_t
trace_slots(const struct rule_engine *eng)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < eng->n_trace_pool; i++)
		if (eng->trace_pool[i] < ENG_RULE_CTR_MAX && eng->trace_pool[i] >= n)
			n = eng->trace_pool[i] + 1;
	return n;
}

int
rule_engine_rule_counters(const struct rule_engine *eng, uint32_t rule_id, uint64_t *packets,
	uint64_t *bytes)
{
	uint32_t slot = rule_id == RULE_ID_POLICY ? 0 : rule_id;
	uint64_t p = 0, b = 0;

	if (eng == NULL || packets == NULL || bytes == NULL || rule_id == RULE_ID_NONE)
		return -EINVAL;
	if (RULE_ID_IS_CHAIN_POLICY(rule_id)) {
		const struct eng_rule_ctr *pc =
			pol_ctr((struct eng_rule_ctr(*)[RULE_TABLE__COUNT][RULE_HOOK__COUNT])eng->pctr, rule_id);

		if (pc == NULL) {
			*packets = 0;
			*bytes = 0;
			return 0;
		}
		p = pc->packets;
		b = pc->bytes;
	} else if (slot < eng->n_rctr) {
		p = eng->rctr[slot].packets;
		b = eng->rctr[slot].bytes;
	}
	for (unsigned int ti = 0; ti < 2; ti++) {
		uint32_t next = 0, idx;

		if (eng->t[ti] == NULL)
			continue;
		while (fc_table_iterate(eng->t[ti], &next, NULL, &idx) == 0) {
			const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);

			if (e != NULL && e->act.rule_id == rule_id) {
				uint64_t dp, db;

				eng_ctr_delta(eng, eng->t[ti], idx, e, &dp, &db);
				p += dp;
				b += db;
			}
		}
	}
	if (rule_id != RULE_ID_POLICY) {
		trace_credit(eng, rule_id, &p, &b, NULL);
		eng_pred_credit(eng, rule_id, &p, &b, NULL);
	}
	/* Packets a meter turned: the policy slot too may decide them. */
	prog_credit(eng, rule_id, &p, &b, NULL);
	*packets = p;
	*bytes = b;
	return 0;
}


struct rule_counters_snap *
rule_engine_counters_snap(const struct rule_engine *eng)
{
	struct rule_counters_snap *s;
	uint32_t n = 0;

	if (eng == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* Slots: the bank's, and every rule id a live entry names (bounded). */
	n = eng->n_rctr;
	for (unsigned int ti = 0; ti < 2; ti++) {
		uint32_t next = 0, idx;

		if (eng->t[ti] == NULL)
			continue;
		while (fc_table_iterate(eng->t[ti], &next, NULL, &idx) == 0) {
			const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
			uint32_t slot;

			if (e == NULL || e->act.rule_id == RULE_ID_NONE)
				continue;
			slot = e->act.rule_id == RULE_ID_POLICY ? 0 : e->act.rule_id;
			if (slot < ENG_RULE_CTR_MAX && slot >= n)
				n = slot + 1;
		}
	}
	if (trace_slots(eng) > n)
		n = trace_slots(eng);
	/* And those metered programs credit (the rules that decide what a meter turned). */
	for (uint32_t i = 0; i < eng->n_progs; i++)
		for (unsigned int o = 0; eng->view.progs[i].meter != 0 && o < 2; o++) {
			uint32_t id = eng->view.progs[i].rule[o];

			if (id != RULE_ID_POLICY && id < ENG_RULE_CTR_MAX && id >= n)
				n = id + 1;
		}
	s = calloc(1, sizeof(*s) + (size_t)n * sizeof(s->c[0]));
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->n = n;
	if (eng->n_rctr != 0)
		memcpy(s->c, eng->rctr, (size_t)eng->n_rctr * sizeof(s->c[0]));
	memcpy(s->pol, eng->pctr, sizeof(s->pol));
	for (unsigned int ti = 0; ti < 2; ti++) {
		uint32_t next = 0, idx;

		if (eng->t[ti] == NULL)
			continue;
		while (fc_table_iterate(eng->t[ti], &next, NULL, &idx) == 0) {
			const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
			uint32_t slot;

			uint64_t dp, db;

			struct eng_rule_ctr *c;

			if (e == NULL || e->act.rule_id == RULE_ID_NONE)
				continue;
			slot = e->act.rule_id == RULE_ID_POLICY ? 0 : e->act.rule_id;
			c = slot < n ? &s->c[slot] : pol_ctr(s->pol, e->act.rule_id);
			if (c == NULL)
				continue;
			eng_ctr_delta(eng, eng->t[ti], idx, e, &dp, &db);
			c->packets += dp;
			c->bytes += db;
		}
	}
	trace_credit(eng, RULE_ID_NONE, NULL, NULL, s);
	eng_pred_credit(eng, RULE_ID_NONE, NULL, NULL, s);
	prog_credit(eng, RULE_ID_NONE, NULL, NULL, s);
	return s;
}

int
rule_counters_snap_get(const struct rule_counters_snap *s, uint32_t rule_id, uint64_t *packets,
	uint64_t *bytes)
{
	uint32_t slot = rule_id == RULE_ID_POLICY ? 0 : rule_id;

	if (s == NULL || packets == NULL || bytes == NULL || rule_id == RULE_ID_NONE)
		return -EINVAL;
	if (RULE_ID_IS_CHAIN_POLICY(rule_id)) {
		const struct eng_rule_ctr *pc =
			pol_ctr((struct eng_rule_ctr(*)[RULE_TABLE__COUNT][RULE_HOOK__COUNT])s->pol, rule_id);

		*packets = pc != NULL ? pc->packets : 0;
		*bytes = pc != NULL ? pc->bytes : 0;
		return 0;
	}
	*packets = slot < s->n ? s->c[slot].packets : 0;
	*bytes = slot < s->n ? s->c[slot].bytes : 0;
	return 0;
}

void
rule_counters_snap_free(struct rule_counters_snap *s)
{
	free(s);
}

/* A copy of live entry @p idx of table @p ti, key @p raw (NULL: looked up). */
static bool
info_fill(const struct rule_engine *eng, unsigned int ti, uint32_t idx, const void *raw,
	struct rule_flow_info *info)
{
	const struct fc_table *t = eng->t[ti];
	const struct fc_entry *e = fc_table_entry(t, idx);

	if (raw == NULL)
		raw = fc_table_key(t, idx);
	if (e == NULL || raw == NULL)
		return false;
	memset(&info->key, 0, sizeof(info->key));
	info->key.family = ti == 0 ? FC_AF_INET4 : FC_AF_INET6;
	memcpy(&info->key.v4, raw, fc_table_key_size(t));
	info->idx = idx;
	info->act = e->act;
	info->peer = fc_table_peer(t, idx);
	info->timeout = fc_table_timeout(t, idx);
	info->created = fc_table_created(t, idx);
	info->last_seen = e->last_seen;
	info->ctmark = eng_side_ctmark(eng, ti, idx);
	info->mark = eng_side_fmark(eng, ti, idx);
	info->channel = rule_engine_channel(eng, &info->act, ti, idx);
	fc_table_counters(t, idx, &info->packets, &info->bytes);
	eng_ign_get(eng, ti, idx, &info->ign_packets, &info->ign_bytes);
	return true;
}

/* The iterator: table in bit 32, the table's cursor below. */
int
rule_engine_flow_next(const struct rule_engine *eng, uint64_t *it, const struct rule *match,
	struct rule_flow_info *info)
{
	if (eng == NULL || it == NULL || info == NULL)
		return -EINVAL;
	for (unsigned int ti = (unsigned int)(*it >> 32); ti < 2; ti++) {
		const struct fc_table *t = eng->t[ti];
		uint32_t next = (uint32_t)*it, idx;
		const void *raw;

		if (t == NULL) {
			*it = (uint64_t)(ti + 1) << 32;
			continue;
		}
		while (fc_table_iterate(t, &next, &raw, &idx) == 0) {
			*it = (uint64_t)ti << 32 | next;
			if (!info_fill(eng, ti, idx, raw, info))
				continue;
			if (match != NULL && !rule_match_key(match, &info->key, RULE_CT_IGNORE, 0))
				continue;
			return 0;
		}
		*it = (uint64_t)(ti + 1) << 32;
	}
	return -ENOENT;
}

int
rule_engine_flow_walk(const struct rule_engine *eng, uint64_t *it, uint32_t *budget,
	const struct rule *match, struct rule_flow_info *info)
{
	if (eng == NULL || it == NULL || budget == NULL || info == NULL)
		return -EINVAL;
	for (unsigned int ti = (unsigned int)(*it >> 32); ti < 2; ti++) {
		const struct fc_table *t = eng->t[ti];
		uint32_t next = (uint32_t)*it, idx;
		const void *raw;
		int rc;

		if (t == NULL) {
			*it = (uint64_t)(ti + 1) << 32;
			continue;
		}
		while ((rc = fc_table_walk(t, &next, budget, &raw, &idx)) == 0) {
			*it = (uint64_t)ti << 32 | next;
			if (!info_fill(eng, ti, idx, raw, info))
				continue;
			if (match != NULL && !rule_match_key(match, &info->key, RULE_CT_IGNORE, 0))
				continue;
			return 0;
		}
		if (rc == -EAGAIN) {
			*it = (uint64_t)ti << 32 | next;
			return -EAGAIN;
		}
		*it = (uint64_t)(ti + 1) << 32;
	}
	return -ENOENT;
}

int
rule_engine_flow_lookup(const struct rule_engine *eng, const struct fc_key *k,
	struct rule_flow_info *info)
{
	const struct fc_table *t;
	int ti, idx;

	if (eng == NULL || k == NULL)
		return -EINVAL;
	ti = eng_tbl(k->family);
	if (ti < 0 || (t = eng->t[ti]) == NULL)
		return -ENOENT;
	idx = fc_table_lookup(t, fc_key_raw(k), fc_table_hash(t, fc_key_raw(k)));
	if (idx < 0)
		return -ENOENT;
	if (info != NULL && !info_fill(eng, (unsigned int)ti, (uint32_t)idx, NULL, info))
		return -ENOENT;
	return 0;
}

int
rule_engine_flow_get(const struct rule_engine *eng, unsigned int family, uint32_t idx,
	struct rule_flow_info *info)
{
	int ti = eng_tbl(family);

	if (eng == NULL || info == NULL || ti < 0)
		return -EINVAL;
	if (eng->t[ti] == NULL || !info_fill(eng, (unsigned int)ti, idx, NULL, info))
		return -ENOENT;
	return 0;
}

/* The text of an entry's ct_state from the first module that formats it; "-" if none. */
static void
ct_text(const struct rule_engine *eng, const struct fc_action *a, char *buf, size_t len)
{
	snprintf(buf, len, "-");
	for (unsigned int i = 0; eng != NULL && i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->ct_format != NULL && m->ct_format(m->priv, a, buf, len) > 0)
			return;
		snprintf(buf, len, "-");
	}
}

int
rule_engine_flow_format(const struct rule_engine *eng, const struct rule_flow_info *info,
	char *buf, size_t len)
{
	const struct fc_action *a;
	char key[FC_KEY_STRLEN], ct[48], rule[40], port[24];
	int n;

	if (info == NULL || buf == NULL)
		return -EINVAL;
	a = &info->act;
	if (fc_key_format(&info->key, key, sizeof(key)) < 0)
		return -EINVAL;
	ct_text(eng, a, ct, sizeof(ct));
	if (a->rule_id == RULE_ID_POLICY)
		snprintf(rule, sizeof(rule), "policy");
	else if (RULE_ID_IS_CHAIN_POLICY(a->rule_id))
		snprintf(rule, sizeof(rule), "policy:%s:%s",
			rule_table_name(RULE_ID_CHAIN_POLICY_TABLE(a->rule_id)),
			rule_hook_name(RULE_ID_CHAIN_POLICY_HOOK(a->rule_id)));
	else
		snprintf(rule, sizeof(rule), "%" PRIu32, a->rule_id);
	if (a->out_port == RULE_PORT_PAIRED)
		snprintf(port, sizeof(port), "paired");
	else if (a->out_port == RULE_PORT_LOCAL)
		snprintf(port, sizeof(port), "local");
	else
		snprintf(port, sizeof(port), "%u", a->out_port);
	/* A router's entries name their next hop's adjacency too. */
	if (a->adj != 0)
		snprintf(port + strlen(port), sizeof(port) - strlen(port), " adj=%u", a->adj);
	n = snprintf(buf, len,
		"%s %s verdict=%s rule=%s channel=%" PRIu32 " port=%s ct=%s nat=%s%" PRIu32
		" interest=0x%04x gen=%" PRIu32 " packets=%" PRIu64 " bytes=%" PRIu64,
		key, (a->flags & FC_ACT_F_REPLY) ? "reply" : "orig",
		a->verdict == FC_VERDICT_ACCEPT ? "accept"
		: a->verdict == FC_VERDICT_DROP ? "drop"
						: "slow",
		rule, info->channel, port, ct, (a->flags & FC_ACT_F_NAT) ? "slot" : "none",
		(a->flags & FC_ACT_F_NAT) ? a->nat_id : 0, a->interest, a->gen, info->packets,
		info->bytes);
	/* Segments conntrack ignored: the connection's counters are the rest. */
	if (n >= 0 && (size_t)n < len && info->ign_packets != 0)
		n += snprintf(buf + n, len - (size_t)n,
			" ct_packets=%" PRIu64 " ct_bytes=%" PRIu64 " ignored=%" PRIu64,
			info->packets - RTE_MIN(info->packets, info->ign_packets),
			info->bytes - RTE_MIN(info->bytes, info->ign_bytes), info->ign_packets);
	if (n >= 0 && (size_t)n < len && (info->mark != 0 || info->ctmark != 0))
		n += snprintf(buf + n, len - (size_t)n, " mark=0x%" PRIx32 " ctmark=0x%" PRIx32,
			info->mark, info->ctmark);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len ? -ENOSPC : n;
}
