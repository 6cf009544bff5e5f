/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: packet programs (engine_pktact.h) — the operations a walk's
 * non-terminal actions ask of each packet (LOG, NFLOG, TOS, DSCP, TTL, HL,
 * CHECKSUM, TCPMSS), turned into lists and interned, with the log
 * specifications they name, in tables the RX lcores read. Both tables
 * are open-addressed hash indexes over append-only arrays, written by the
 * rules lcore only; an entry is never changed once an id names it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "engine_priv.h"

/* Index slots: a power of two, twice the table. */
#define PROG_SLOTS (2 * RULE_PKTPROGS_MAX)
#define SPEC_SLOTS (2 * RULE_LOGSPECS_MAX)

int
eng_pktact_init(struct rule_engine *eng)
{
	eng->view.progs = rte_zmalloc_socket("eng_progs",
		sizeof(*eng->view.progs) * RULE_PKTPROGS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.specs = rte_zmalloc_socket("eng_specs",
		sizeof(*eng->view.specs) * RULE_LOGSPECS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.spec_dropped = rte_zmalloc_socket("eng_spec_drops",
		sizeof(uint64_t) * RULE_LOGSPECS_MAX, RTE_CACHE_LINE_SIZE, eng->p.socket_id);
	eng->view.prog_turned = rte_zmalloc_socket("eng_prog_turned",
		sizeof(*eng->view.prog_turned) * RULE_PKTPROGS_MAX, RTE_CACHE_LINE_SIZE,
		eng->p.socket_id);
	eng->prog_ix = calloc(PROG_SLOTS, sizeof(*eng->prog_ix));
	eng->spec_ix = calloc(SPEC_SLOTS, sizeof(*eng->spec_ix));
	if (eng->view.progs == NULL || eng->view.specs == NULL || eng->view.spec_dropped == NULL ||
		eng->view.prog_turned == NULL || eng->prog_ix == NULL || eng->spec_ix == NULL)
		return -ENOMEM;
	return 0;
}

void
eng_pktact_fini(struct rule_engine *eng)
{
	rte_free(eng->view.progs);
	rte_free(eng->view.specs);
	rte_free(eng->view.spec_dropped);
	rte_free(eng->view.prog_turned);
	free(eng->prog_ix);
	free(eng->spec_ix);
}

/* Rule ids are numbered anew: programs, specs and counters start over (as meters). */
void
eng_pktact_reset(struct rule_engine *eng)
{
	for (uint32_t i = 0; i < eng->n_progs; i++) {
		__atomic_store_n(&eng->view.prog_turned[i].packets, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&eng->view.prog_turned[i].bytes, 0, __ATOMIC_RELAXED);
	}
	eng->n_progs = 0;
	eng->n_specs = 0;
	eng_strs_reset(eng);
	memset(eng->prog_ix, 0, PROG_SLOTS * sizeof(*eng->prog_ix));
	memset(eng->spec_ix, 0, SPEC_SLOTS * sizeof(*eng->spec_ix));
	for (unsigned int i = 0; i < RULE_LOGSPECS_MAX; i++)
		__atomic_store_n(&eng->view.spec_dropped[i], 0, __ATOMIC_RELAXED);
}

/* FNV-1a over @p len bytes. */
static uint32_t
fnv(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* The spec id of @p s (interned). @return it, or -ENOSPC. */
static int
spec_intern(struct rule_engine *eng, const struct rule_logspec *s)
{
	uint32_t h = fnv(s, sizeof(*s)), i;

	for (i = h & (SPEC_SLOTS - 1);; i = (i + 1) & (SPEC_SLOTS - 1)) {
		uint32_t id = eng->spec_ix[i];

		if (id == 0)
			break;
		if (memcmp(&eng->view.specs[id - 1], s, sizeof(*s)) == 0)
			return (int)(id - 1);
	}
	if (eng->n_specs == RULE_LOGSPECS_MAX)
		return -ENOSPC;
	eng->view.specs[eng->n_specs] = *s;
	__atomic_store_n(&eng->view.spec_dropped[eng->n_specs], 0, __ATOMIC_RELAXED);
	/* Readers of the table (listings) see a spec whole once counted. */
	__atomic_store_n(&eng->n_specs, eng->n_specs + 1, __ATOMIC_RELEASE);
	eng->spec_ix[i] = eng->n_specs;
	return (int)(eng->n_specs - 1);
}

int
eng_prog_intern(struct rule_engine *eng, const struct rule_pktprog *p)
{
	uint32_t h = fnv(p, sizeof(*p)), i;

	for (i = h & (PROG_SLOTS - 1);; i = (i + 1) & (PROG_SLOTS - 1)) {
		uint32_t id = eng->prog_ix[i];

		if (id == 0)
			break;
		if (memcmp(&eng->view.progs[id - 1], p, sizeof(*p)) == 0)
			return (int)id;
	}
	if (eng->n_progs == RULE_PKTPROGS_MAX) {
		eng->pst.prog_full++;
		return -ENOSPC;
	}
	eng->view.progs[eng->n_progs] = *p;
	__atomic_store_n(&eng->view.prog_turned[eng->n_progs].packets, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&eng->view.prog_turned[eng->n_progs].bytes, 0, __ATOMIC_RELAXED);
	eng->prog_ix[i] = ++eng->n_progs;
	/* Readers find it through an entry inserted or updated after this (release there). */
	return (int)eng->n_progs;
}

/* Syslog level of a LOG rule: --log-level, else 4 (warning), as iptables. */
static uint8_t
log_level(const struct rule_x *x)
{
	return (x->given & 1) ? x->u.log.level : 4;
}

/* The operation of one recorded action; kind NONE for actions that are not packet operations. */
static int
act_op(struct rule_engine *eng, const struct rule_act *ra, struct rule_pktop *op)
{
	const struct rule_x *x = ra->tgt;
	struct rule_logspec s;
	int id;

	memset(op, 0, sizeof(*op));
	if (x == NULL)
		return 0;
	switch (ra->action) {
	case RULE_ACT_LOG:
	case RULE_ACT_NFLOG:
		memset(&s, 0, sizeof(s));
		s.rule_id = ra->rule_id;
		s.hook = ra->hook;
		if (ra->action == RULE_ACT_LOG) {
			s.kind = RULE_PKTOP_LOG;
			s.level = log_level(x);
			s.flags = (uint8_t)((x->given >> 2) & 0x1f);
			memcpy(s.prefix, x->u.log.prefix, sizeof(x->u.log.prefix));
		} else {
			s.kind = RULE_PKTOP_NFLOG;
			s.group = x->u.nflog.group;
			s.threshold = x->u.nflog.threshold;
			s.snaplen = (x->given & (4 | 8)) ? x->u.nflog.range : 0;
			memcpy(s.prefix, x->u.nflog.prefix, sizeof(s.prefix) - 1);
		}
		s.prefix[sizeof(s.prefix) - 1] = '\0';
		id = spec_intern(eng, &s);
		if (id < 0)
			return id;
		op->kind = s.kind;
		op->ref = (uint32_t)id;
		op->mark = ra->mark;
		op->a = ra->hook == RULE_HOOK_INPUT || ra->hook == RULE_HOOK_FORWARD ||
			ra->hook == RULE_HOOK_POSTROUTING ||
			(ra->hook == RULE_HOOK_OUTPUT && (ra->table == RULE_TABLE_FILTER ||
							   ra->table == RULE_TABLE_SECURITY));
		/* A router's forwarded packet is logged there with its TTL decremented. */
		op->late = ra->hook == RULE_HOOK_FORWARD || ra->hook == RULE_HOOK_POSTROUTING;
		return 0;
	case RULE_ACT_DSCP:
		op->kind = RULE_PKTOP_TOS;
		op->a = 0xfc;
		op->b = (uint8_t)(x->u.dscp.dscp << 2);
		return 0;
	case RULE_ACT_TOS:
		op->kind = RULE_PKTOP_TOS;
		op->a = x->u.tos.mask;
		op->b = x->u.tos.value;
		return 0;
	case RULE_ACT_TTL:
	case RULE_ACT_HL:
		op->kind = ra->action == RULE_ACT_TTL ? RULE_PKTOP_TTL : RULE_PKTOP_HL;
		op->a = (x->given & 1) ? 0 : (x->given & 2) ? 1 : 2;
		op->b = x->u.ttl.value;
		op->late = ra->hook == RULE_HOOK_FORWARD || ra->hook == RULE_HOOK_POSTROUTING;
		return 0;
	case RULE_ACT_CHECKSUM:
		op->kind = RULE_PKTOP_CHECKSUM;
		return 0;
	case RULE_ACT_TCPMSS:
		op->kind = RULE_PKTOP_TCPMSS;
		op->ref = (x->given & 1) ? x->u.tcpmss.mss : 0;
		return 0;
	case RULE_ACT_ECN:
		/* --ecn-tcp-remove: ECE and CWR to 0 (rule_x_finish()'s spelling). */
		op->kind = RULE_PKTOP_ECN;
		if (x->given & 1)
			op->a = RULE_TCP_ECE | RULE_TCP_CWR;
		if (x->given & 2) {
			op->a |= RULE_TCP_ECE;
			op->b |= x->u.ecn_t.ece ? RULE_TCP_ECE : 0;
		}
		if (x->given & 4) {
			op->a |= RULE_TCP_CWR;
			op->b |= x->u.ecn_t.cwr ? RULE_TCP_CWR : 0;
		}
		if (x->given & 8)
			op->ref = 4u | (x->u.ecn_t.ect & 3u);
		return 0;
	default:
		return 0;
	}
}

int
eng_walk_ops(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n,
	struct rule_pktop ops[RULE_PKTOPS_MAX], uint8_t *n_ops)
{
	unsigned int k = 0;

	for (unsigned int s = 0; s < n; s++) {
		if (ev[s].acts_lost != 0)
			eng->pst.ops_lost += ev[s].acts_lost;
		for (unsigned int i = 0; i < ev[s].n_acts && i < RULE_ACTS_MAX; i++) {
			struct rule_pktop op;

			if (act_op(eng, &ev[s].acts[i], &op) < 0) {
				eng->pst.ops_lost++;
				continue;
			}
			if (op.kind == RULE_PKTOP_NONE)
				continue;
			if (k == RULE_PKTOPS_MAX) {
				eng->pst.ops_lost++;
				continue;
			}
			ops[k++] = op;
		}
	}
	*n_ops = (uint8_t)k;
	return (int)k;
}

/* Has list @p ops a rewrite for after the router's TTL decrement? */
static bool
ops_late(const struct rule_pktop *ops, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ops[i].late && ops[i].kind >= RULE_PKTOP_TOS)
			return true;
	return false;
}

/* Does list @p ops change the packet? */
static bool
ops_rewrite(const struct rule_pktop *ops, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ops[i].kind >= RULE_PKTOP_TOS)
			return true;
	return false;
}

int
eng_prog_make(struct rule_engine *eng, uint16_t meter, bool flip, const struct rule_pktop ops0[],
	unsigned int n0, const struct rule_pktop ops1[], unsigned int n1)
{
	return eng_prog_make_pre(eng, NULL, 0, meter, flip, ops0, n0, ops1, n1);
}

int
eng_prog_make_pre(struct rule_engine *eng, const uint16_t pre[], unsigned int n_pre,
	uint16_t meter, bool flip, const struct rule_pktop ops0[], unsigned int n0,
	const struct rule_pktop ops1[], unsigned int n1)
{
	return eng_prog_make_meter(eng, pre, n_pre, meter, flip, ops0, n0, ops1, n1, NULL, NULL);
}

int
eng_prog_make_meter(struct rule_engine *eng, const uint16_t pre[], unsigned int n_pre,
	uint16_t meter, bool flip, const struct rule_pktop ops0[], unsigned int n0,
	const struct rule_pktop ops1[], unsigned int n1, const uint32_t rule[2],
	const uint32_t trace[2])
{
	struct rule_pktprog p;

	if (n0 == 0 && n1 == 0 && !flip && n_pre == 0 && meter == 0)
		return 0;
	if (n_pre > RULE_PKTPROG_PRE_MAX)
		return -ENOSPC;
	memset(&p, 0, sizeof(p));
	p.n_pre = (uint8_t)n_pre;
	if (n_pre != 0)
		memcpy(p.pre, pre, n_pre * sizeof(pre[0]));
	p.meter = meter;
	p.flip = flip ? 1 : 0;
	p.n[0] = (uint8_t)n0;
	memcpy(p.op[0], ops0, n0 * sizeof(ops0[0]));
	if (meter != 0) {
		p.n[1] = (uint8_t)n1;
		memcpy(p.op[1], ops1, n1 * sizeof(ops1[0]));
		if (rule != NULL)
			memcpy(p.rule, rule, sizeof(p.rule));
		if (trace != NULL)
			memcpy(p.trace, trace, sizeof(p.trace));
	}
	p.rewrite = (uint8_t)((ops_rewrite(p.op[0], p.n[0]) ? 1 : 0) |
			      (ops_rewrite(p.op[1], p.n[1]) ? 2 : 0));
	p.late = (uint8_t)((ops_late(p.op[0], p.n[0]) ? 1 : 0) | (ops_late(p.op[1], p.n[1]) ? 2 : 0));
	return eng_prog_intern(eng, &p);
}

int
eng_prog_of_walk(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n)
{
	struct rule_pktop ops[RULE_PKTOPS_MAX];
	uint8_t k;

	if (eng_walk_ops(eng, ev, n, ops, &k) == 0)
		return 0;
	return eng_prog_make(eng, 0, false, ops, k, NULL, 0);
}

void
eng_act_prog(struct fc_action *a, int prog)
{
	a->flags &= (uint8_t)~FC_ACT_F_PKTACT;
	if (prog <= 0)
		return;
	a->flags |= FC_ACT_F_PKTACT;
	eng_pktclass_clear(a); /* pkt_class names the program now */
	a->pkt_class = (uint16_t)prog;
}

int
rule_engine_logspec_get(const struct rule_engine *eng, uint32_t id, struct rule_logspec *spec,
	uint64_t *dropped)
{
	if (eng == NULL || spec == NULL)
		return -EINVAL;
	if (id >= __atomic_load_n(&eng->n_specs, __ATOMIC_ACQUIRE))
		return -ENOENT;
	*spec = eng->view.specs[id];
	if (dropped != NULL)
		*dropped = __atomic_load_n(&eng->view.spec_dropped[id], __ATOMIC_RELAXED);
	return 0;
}

void
rule_engine_pktact_stats_get(const struct rule_engine *eng, struct rule_engine_pktact_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (eng == NULL)
		return;
	*st = eng->pst;
	st->progs = eng->n_progs;
	st->specs = eng->n_specs;
}
