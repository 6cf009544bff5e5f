/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the reference evaluator — a linear, first-match walk of the
 * chains with netfilter's semantics, table by table in netfilter's hook
 * order, running non-terminal actions on the way. Slow on purpose and kept
 * forever: it is the oracle the compiled classifier and the cached
 * verdicts are tested against, so it favours being obviously right over
 * being fast. The stages, rule_apply() and the merging of a table's
 * decision into a result are shared with the classifier.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rule_x_priv.h"

/* ------------------------------------------------------------------------ */
/* Stages                                                                    */
/* ------------------------------------------------------------------------ */

#define STEP(t, h) \
	(struct rule_step) { RULE_TABLE_##t, RULE_HOOK_##h }

int
rule_stage_steps(unsigned int stage, unsigned int lbits, unsigned int ctstate,
	struct rule_step steps[])
{
	bool sl = lbits & FC_KEY_F_SRC_LOCAL, dl = lbits & FC_KEY_F_DST_LOCAL;
	/*
	 * Nat sees a connection's first packet: not one of a known or untracked
	 * one. A RELATED first packet (a connection a helper expected) is one,
	 * as in Linux (an ICMP error is decided without the nat tables).
	 */
	bool nat = ctstate == RULE_CT_IGNORE ||
		   !(ctstate & (RULE_CT_ESTABLISHED | RULE_CT_INVALID | RULE_CT_UNTRACKED));
	int n = 0;

	switch (stage) {
	case RULE_STAGE_RAW:
		steps[n++] = sl ? STEP(RAW, OUTPUT) : STEP(RAW, PREROUTING);
		return n;
	case RULE_STAGE_DST:
		if (sl) {
			steps[n++] = STEP(MANGLE, OUTPUT);
			if (nat)
				steps[n++] = STEP(NAT, OUTPUT);
		} else {
			steps[n++] = STEP(MANGLE, PREROUTING);
			if (nat)
				steps[n++] = STEP(NAT, PREROUTING);
		}
		return n;
	case RULE_STAGE_FILTER:
		if (sl) {
			steps[n++] = STEP(FILTER, OUTPUT);
			steps[n++] = STEP(SECURITY, OUTPUT);
			if (!dl)
				return n;
			/*
			 * To a local address: out through mangle POSTROUTING
			 * (nat POSTROUTING is the source stage's), then back in
			 * through lo, where raw and mangle PREROUTING see it
			 * (conntrack and nat already did at OUTPUT: it has its
			 * connection, no nat walk).
			 */
			steps[n++] = STEP(MANGLE, POSTROUTING);
			steps[n++] = STEP(RAW, PREROUTING);
			steps[n++] = STEP(MANGLE, PREROUTING);
		}
		if (dl) {
			steps[n++] = STEP(MANGLE, INPUT);
			steps[n++] = STEP(FILTER, INPUT);
			steps[n++] = STEP(SECURITY, INPUT);
		} else {
			steps[n++] = STEP(MANGLE, FORWARD);
			steps[n++] = STEP(FILTER, FORWARD);
			steps[n++] = STEP(SECURITY, FORWARD);
		}
		return n;
	case RULE_STAGE_SRC:
		if (dl && !sl) {
			if (nat)
				steps[n++] = STEP(NAT, INPUT);
		} else if (dl && sl) {
			/* Its mangle POSTROUTING came before lo (the filter stage's). */
			if (nat)
				steps[n++] = STEP(NAT, POSTROUTING);
		} else {
			steps[n++] = STEP(MANGLE, POSTROUTING);
			if (nat)
				steps[n++] = STEP(NAT, POSTROUTING);
		}
		return n;
	default:
		return -EINVAL;
	}
}

unsigned int
rule_stage_table(unsigned int stage)
{
	switch (stage) {
	case RULE_STAGE_RAW:
		return RULE_TABLE_RAW;
	case RULE_STAGE_FILTER:
		return RULE_TABLE_FILTER;
	default:
		return RULE_TABLE_NAT;
	}
}

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

void
rule_eval_init(struct rule_eval *res)
{
	/* notes[] and acts[] are valid up to n_notes and n_acts: not cleared
	 * (most of the result's bytes; the slow path makes several a packet). */
	memset(res, 0, offsetof(struct rule_eval, notes));
	res->verdict = RULE_VERDICT_ACCEPT;
	res->action = RULE_ACT_ACCEPT;
	res->nat_action = RULE_ACT_ACCEPT;
	res->rule_id = RULE_ID_NONE;
	res->nat_rule_id = RULE_ID_NONE;
}

void
rule_term_of(const struct rule *r, struct rule_term *t)
{
	memset(t, 0, sizeof(*t));
	t->rule_id = r->id;
	t->action = r->action;
	memcpy(t->channel, r->channel, sizeof(t->channel));
	t->nat = r->nat;
	t->tgt = r->tgt.kind != RULE_X_NONE ? &r->tgt : NULL;
}

static uint8_t
reject_default(const struct rule_x *tgt, unsigned int family)
{
	if (tgt != NULL && (tgt->given & 1))
		return tgt->u.reject.with;
	return family == FC_AF_INET6 ? RULE_REJECT_ICMP6_PORT_UNREACHABLE
				     : RULE_REJECT_ICMP_PORT_UNREACHABLE;
}

void
rule_eval_note(struct rule_eval *res, uint32_t id, unsigned int table)
{
	if (res->n_notes >= RULE_NOTES_MAX) {
		res->notes_lost++;
		return;
	}
	res->notes[res->n_notes].id = id;
	res->notes[res->n_notes].table = (uint8_t)table;
	res->n_notes++;
}

int
rule_eval_merge(struct rule_eval *res, unsigned int primary, unsigned int table, unsigned int hook,
	unsigned int family, bool entered, const struct rule_term *t, unsigned int policy)
{
	bool drop;

	if (!entered)
		return 0;
	if (table == RULE_TABLE_NAT) {
		res->nat_hook = (uint8_t)hook;
		if (t == NULL) {
			res->nat_rule_id = RULE_ID_POLICY;
			if (policy != RULE_POLICY_DROP)
				return 0;
			/* A DROP policy: the new connection no rule took goes, as in Linux. */
			res->verdict = RULE_VERDICT_DROP;
			res->table = (uint8_t)table;
			res->hook = (uint8_t)hook;
			res->rule_id = RULE_ID_POLICY;
			res->action = RULE_ACT_DROP;
			res->tgt = NULL;
			res->reject = RULE_REJECT_NONE;
			res->channel[0] = '\0';
			return 1;
		}
		res->nat_rule_id = t->rule_id;
		res->nat_action = t->action;
		if (t->action != RULE_ACT_ACCEPT)
			res->nat = t->nat;
		return 0;
	}
	drop = t == NULL ? policy == RULE_POLICY_DROP : t->action != RULE_ACT_ACCEPT;
	if (!drop && table != primary) {
		/* Another table's accept: the packet goes on; its rule or policy counts it. */
		rule_eval_note(res, t == NULL ? RULE_ID_CHAIN_POLICY(family, table, hook) : t->rule_id,
			table);
		return 0;
	}
	/* A decision this one replaces (filter OUTPUT's accept, then INPUT's) counted it. */
	if (res->rule_id != RULE_ID_NONE)
		rule_eval_note(res,
			res->rule_id == RULE_ID_POLICY
				? RULE_ID_CHAIN_POLICY(family, res->table, res->hook)
				: res->rule_id,
			res->table);
	res->verdict = drop ? RULE_VERDICT_DROP : RULE_VERDICT_ACCEPT;
	res->table = (uint8_t)table;
	res->hook = (uint8_t)hook;
	res->rule_id = t == NULL ? RULE_ID_POLICY : t->rule_id;
	res->action = t == NULL ? (drop ? RULE_ACT_DROP : RULE_ACT_ACCEPT) : t->action;
	res->tgt = t == NULL ? NULL : t->tgt;
	res->reject = res->action == RULE_ACT_REJECT ? reject_default(res->tgt, family)
						      : RULE_REJECT_NONE;
	if (drop) {
		res->channel[0] = '\0';
		return 1;
	}
	/* A local packet accepted at OUTPUT keeps its channel unless INPUT names one. */
	if (t != NULL && t->channel[0] != '\0')
		memcpy(res->channel, t->channel, sizeof(res->channel));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Actions                                                                   */
/* ------------------------------------------------------------------------ */

static void
record(const struct rule *r, unsigned int table, unsigned int hook, const struct rule_pkt *p,
	struct rule_eval *res)
{
	struct rule_act *a;

	if (res->n_acts >= RULE_ACTS_MAX) {
		res->acts_lost++;
		return;
	}
	a = &res->acts[res->n_acts++];
	a->rule_id = r->id;
	a->action = r->action;
	a->table = (uint8_t)table;
	a->hook = (uint8_t)hook;
	a->mark = p->mark;
	a->tgt = r->tgt.kind != RULE_X_NONE ? &r->tgt : NULL;
}

static bool
tracked(const struct rule_pkt *p)
{
	return (p->ctstate & (RULE_CT_NEW | RULE_CT_ESTABLISHED | RULE_CT_RELATED)) != 0;
}

static uint8_t
ttl_op(const struct rule_x *x, uint8_t ttl)
{
	unsigned int v = x->u.ttl.value;

	if (x->given & 1)
		return (uint8_t)v;
	if (x->given & 2)
		return ttl > v ? (uint8_t)(ttl - v) : 0;
	return ttl + v > 255 ? 255 : (uint8_t)(ttl + v);
}

int
rule_apply(const struct rule *r, unsigned int table, unsigned int hook, struct rule_pkt *p,
	struct rule_eval *res)
{
	const struct rule_x *x = &r->tgt;
	uint8_t f;

	switch (r->action) {
	case RULE_ACT_MARK:
		p->mark = (p->mark & ~x->u.mark.mask) ^ x->u.mark.value;
		break;
	case RULE_ACT_CONNMARK:
		if (!tracked(p))
			break;
		if (x->given & 1)
			p->ctmark = (p->ctmark & ~x->u.connmark.mask) ^ x->u.connmark.value;
		else if (x->given & 2)
			p->ctmark = (p->ctmark & ~x->u.connmark.ctmask) ^
				    (p->mark & x->u.connmark.nfmask);
		else
			p->mark = (p->mark & ~x->u.connmark.nfmask) ^
				  (p->ctmark & x->u.connmark.ctmask);
		break;
	case RULE_ACT_CT:
		if (!(x->given & 1))
			break;
		/* fall through */
	case RULE_ACT_NOTRACK:
		p->ctstate = RULE_CT_UNTRACKED;
		break;
	case RULE_ACT_DSCP:
		p->tos = (uint8_t)((p->tos & 0x03) | x->u.dscp.dscp << 2);
		break;
	case RULE_ACT_TOS:
		p->tos = (uint8_t)((p->tos & ~x->u.tos.mask) ^ x->u.tos.value);
		break;
	case RULE_ACT_TTL:
	case RULE_ACT_HL:
		p->ttl = ttl_op(x, p->ttl);
		break;
	case RULE_ACT_ECN:
		/* Later rules see the rewritten fields (the kernel's order: IP, then TCP). */
		if (x->given & 8)
			p->tos = (uint8_t)((p->tos & ~3u) | (x->u.ecn_t.ect & 3u));
		if (fc_key_proto(&p->key) == RULE_PROTO_TCP && !(p->flags & RULE_PKT_F_NOPORTS)) {
			if (x->given & (1 | 2))
				p->tcp_flags = (uint8_t)((p->tcp_flags & ~RULE_TCP_ECE) |
							 (x->u.ecn_t.ece ? RULE_TCP_ECE : 0));
			if (x->given & (1 | 4))
				p->tcp_flags = (uint8_t)((p->tcp_flags & ~RULE_TCP_CWR) |
							 (x->u.ecn_t.cwr ? RULE_TCP_CWR : 0));
		}
		break;
	case RULE_ACT_SYNPROXY:
		res->deps |= RULE_DEP_TCPFLAGS;
		f = p->tcp_flags & (RULE_TCP_SYN | RULE_TCP_ACK | RULE_TCP_FIN | RULE_TCP_RST);
		if (!(p->flags & RULE_PKT_F_NOPORTS) && (f == RULE_TCP_SYN || f == RULE_TCP_ACK))
			return 1;
		return 0;
	case RULE_ACT_SET:
		/* Every packet that reaches it changes the sets: decided per packet. */
		res->deps |= RULE_DEP_SET;
		break;
	case RULE_ACT_LOG:
	case RULE_ACT_NFLOG:
	case RULE_ACT_TCPMSS:
	case RULE_ACT_CHECKSUM:
	case RULE_ACT_CLASSIFY:
	case RULE_ACT_COUNT:
		break;
	default:
		return 1; /* terminal */
	}
	record(r, table, hook, p, res);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Walking one table                                                         */
/* ------------------------------------------------------------------------ */

struct frame {
	const struct rule_chain *chain;
	uint32_t next; /**< rule to resume at */
};

/*
 * Walk @table at @hook: *dec receives the deciding terminal rule (NULL for
 * the policy), *base the base chain entered (NULL if none).
 */
static int
walk_chains(const struct rule_set *s, unsigned int table, unsigned int hook, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res, const struct rule **dec,
	const struct rule_chain **base)
{
	struct frame stack[RULE_DEPTH_MAX];
	const struct rule_chain *c;
	unsigned int sp = 0;
	uint32_t i = 0;
	int rc;

	if (s == NULL || p == NULL || fc_af_index(p->key.family) < 0 ||
		hook >= RULE_HOOK__COUNT || !(rule_table_hooks(table) & RULE_HOOK_F(hook)))
		return -EINVAL;
	c = rule_set_hook_chain(s, table, hook);
	*dec = NULL;
	*base = c;
	if (c == NULL)
		return 0;
	for (;;) {
		const struct rule *r;

		if (i >= c->n_rules)
			goto chain_end;
		r = &c->rules[i++];
		rc = rule_match_pkt(s, r, p, pv, &res->deps);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		switch (r->action) {
		case RULE_ACT_JUMP:
			if (sp == RULE_DEPTH_MAX)
				return -ELOOP;
			rule_eval_note(res, r->id, table);
			stack[sp].chain = c;
			stack[sp].next = i;
			sp++;
			c = rule_set_chain_find(s, table, r->chain);
			if (c == NULL)
				return -EINVAL;
			i = 0;
			continue;
		case RULE_ACT_GOTO:
			rule_eval_note(res, r->id, table);
			c = rule_set_chain_find(s, table, r->chain);
			if (c == NULL)
				return -EINVAL;
			i = 0;
			continue;
		case RULE_ACT_RETURN:
			rule_eval_note(res, r->id, table);
			goto chain_end;
		default:
			if (r->action == RULE_ACT_SET && pv != NULL && pv->act != NULL)
				pv->act(pv->arg, r, p);
			if (rule_apply(r, table, hook, p, res) == 0)
				continue;
			if (!rule_action_in_table(r->action, table))
				return -EINVAL; /* not a valid set */
			*dec = r;
			return 0;
		}
	chain_end:
		/* Back in the hook: the base chain's policy decides. */
		if (sp == 0)
			return 0;
		sp--;
		c = stack[sp].chain;
		i = stack[sp].next;
	}
}

/* walk_chains() with the ports the packet has at @hook (rule_pkt_lo_ports()), the caller's after. */
static int
walk(const struct rule_set *s, unsigned int table, unsigned int hook, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res, const struct rule **dec,
	const struct rule_chain **base)
{
	uint16_t in, out;
	int rc;

	if (p == NULL)
		return -EINVAL;
	in = p->in_port;
	out = p->out_port;
	rule_pkt_lo_ports(p, hook);
	rc = walk_chains(s, table, hook, p, pv, res, dec, base);
	p->in_port = in;
	p->out_port = out;
	return rc;
}

static int
eval_hook(const struct rule_set *s, unsigned int primary, unsigned int table, unsigned int hook,
	struct rule_pkt *p, const struct rule_providers *pv, struct rule_eval *res)
{
	const struct rule_chain *base;
	const struct rule *r;
	struct rule_term t;
	int rc;

	rc = walk(s, table, hook, p, pv, res, &r, &base);
	if (rc < 0)
		return rc;
	if (r != NULL)
		rule_term_of(r, &t);
	return rule_eval_merge(res, primary, table, hook, p->key.family, base != NULL,
		r != NULL ? &t : NULL, base != NULL ? rule_chain_policy(base, p->key.family) : 0);
}

int
rule_ref_eval_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	struct rule_pkt *p, const struct rule_providers *pv, struct rule_eval *res)
{
	if (res == NULL || (unsigned int)table >= RULE_TABLE__COUNT)
		return -EINVAL;
	return eval_hook(s, table, table, hook, p, pv, res);
}

int
rule_ref_eval(const struct rule_set *s, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res)
{
	struct rule_step steps[RULE_STEPS_MAX];
	unsigned int primary = rule_stage_table(stage);
	int n, rc;

	if (s == NULL || p == NULL || res == NULL || fc_af_index(p->key.family) < 0)
		return -EINVAL;
	rule_eval_init(res);
	n = rule_stage_steps(stage, fc_key_flags(&p->key), p->ctstate, steps);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		rc = eval_hook(s, primary, steps[i].table, steps[i].hook, p, pv, res);
		if (rc < 0)
			return rc;
		if (rc > 0)
			break;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The key-only interface                                                    */
/* ------------------------------------------------------------------------ */

int
rule_ref_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	const struct fc_key *k, unsigned int ctstate, unsigned int kflags, const struct rule **rule,
	const struct rule_chain **chain)
{
	const struct rule_chain *base;
	struct rule_eval res;
	struct rule_pkt p;
	int rc;

	if (s == NULL || k == NULL || rule == NULL || (unsigned int)table >= RULE_TABLE__COUNT)
		return -EINVAL;
	rule_pkt_init(&p, k, ctstate, kflags);
	rule_eval_init(&res);
	rc = walk(s, table, hook, &p, NULL, &res, rule, &base);
	if (chain != NULL)
		*chain = rc == 0 ? base : NULL;
	return rc;
}

int
rule_ref_filter(const struct rule_set *s, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res)
{
	struct rule_eval ev;
	struct rule_pkt p;
	uint8_t f;
	int rc;

	if (s == NULL || k == NULL || res == NULL || fc_af_index(k->family) < 0)
		return -EINVAL;
	rule_pkt_init(&p, k, ctstate, kflags);
	rule_eval_init(&ev);
	f = fc_key_flags(k);
	if (f & FC_KEY_F_SRC_LOCAL) {
		rc = eval_hook(s, RULE_TABLE_FILTER, RULE_TABLE_FILTER, RULE_HOOK_OUTPUT, &p, NULL, &ev);
		if (rc == 0 && (f & FC_KEY_F_DST_LOCAL))
			rc = eval_hook(s, RULE_TABLE_FILTER, RULE_TABLE_FILTER, RULE_HOOK_INPUT, &p,
				NULL, &ev);
	} else {
		rc = eval_hook(s, RULE_TABLE_FILTER, RULE_TABLE_FILTER,
			(f & FC_KEY_F_DST_LOCAL) ? RULE_HOOK_INPUT : RULE_HOOK_FORWARD, &p, NULL, &ev);
	}
	if (rc < 0)
		return rc;
	memset(res, 0, sizeof(*res));
	res->verdict = ev.verdict;
	res->hook = ev.hook;
	res->reject = ev.reject;
	res->rule_id = ev.rule_id;
	memcpy(res->channel, ev.channel, sizeof(res->channel));
	return 0;
}

int
rule_ref_nat(const struct rule_set *s, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res)
{
	struct rule_eval ev;
	struct rule_pkt p;
	enum rule_hook hook;
	uint8_t f;
	int rc;

	if (s == NULL || k == NULL || res == NULL || fc_af_index(k->family) < 0 ||
		(stage != RULE_NAT_DST && stage != RULE_NAT_SRC))
		return -EINVAL;
	f = fc_key_flags(k);
	if (stage == RULE_NAT_DST)
		hook = (f & FC_KEY_F_SRC_LOCAL) ? RULE_HOOK_OUTPUT : RULE_HOOK_PREROUTING;
	else
		hook = (f & FC_KEY_F_DST_LOCAL) && !(f & FC_KEY_F_SRC_LOCAL)
			       ? RULE_HOOK_INPUT
			       : RULE_HOOK_POSTROUTING;
	rule_pkt_init(&p, k, ctstate, kflags);
	rule_eval_init(&ev);
	rc = eval_hook(s, RULE_TABLE_NAT, RULE_TABLE_NAT, hook, &p, NULL, &ev);
	if (rc < 0)
		return rc;
	memset(res, 0, sizeof(*res));
	res->hook = (uint8_t)hook;
	res->action = ev.nat_action;
	res->rule_id = ev.nat_rule_id;
	res->nat = ev.nat;
	return 0;
}
