/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the reference evaluator — a linear, first-match walk of the
 * chains with netfilter's semantics. Slow on purpose and kept forever: it
 * is the oracle the compiled classifier and the cached verdicts are tested
 * against, so it favours being obviously right over being fast.
 */
#include <errno.h>
#include <string.h>

#include "rule_priv.h"

struct frame {
	const struct rule_chain *chain;
	uint32_t next; /**< rule to resume at */
};

int
rule_ref_hook(const struct rule_set *s, enum rule_table table, enum rule_hook hook,
	const struct fc_key *k, unsigned int ctstate, unsigned int kflags, const struct rule **rule,
	const struct rule_chain **chain)
{
	struct frame stack[RULE_DEPTH_MAX];
	const struct rule_chain *c;
	unsigned int sp = 0;
	uint32_t i = 0;

	if (s == NULL || k == NULL || rule == NULL ||
		fc_af_index(k->family) < 0 ||
		(unsigned int)hook >= RULE_HOOK__COUNT ||
		!(rule_table_hooks(table) & RULE_HOOK_F(hook)))
		return -EINVAL;
	c = rule_set_hook_chain(s, table, hook);
	*rule = NULL;
	if (chain != NULL)
		*chain = c;
	if (c == NULL)
		return 0;
	for (;;) {
		const struct rule *r;

		if (i >= c->n_rules)
			goto chain_end;
		r = &c->rules[i++];
		if (!rule_match_key(r, k, ctstate, kflags))
			continue;
		switch (r->action) {
		case RULE_ACT_JUMP:
			if (sp == RULE_DEPTH_MAX)
				return -ELOOP;
			stack[sp].chain = c;
			stack[sp].next = i;
			sp++;
			/* fall through */
		case RULE_ACT_GOTO:
			c = rule_set_chain_find(s, table, r->chain);
			if (c == NULL)
				return -EINVAL;
			i = 0;
			continue;
		case RULE_ACT_RETURN:
			goto chain_end;
		default:
			*rule = r;
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

static int
filter_hook(const struct rule_set *s, enum rule_hook hook, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_result *res)
{
	const struct rule_chain *base;
	const struct rule *r;
	int rc;

	memset(res, 0, sizeof(*res));
	res->hook = (uint8_t)hook;
	rc = rule_ref_hook(s, RULE_TABLE_FILTER, hook, k, ctstate, kflags, &r, &base);
	if (rc < 0)
		return rc;
	if (r == NULL) {
		/* Filter hooks always enter a chain (main by default). */
		res->verdict = base != NULL && base->policy == RULE_POLICY_DROP
				       ? RULE_VERDICT_DROP
				       : RULE_VERDICT_ACCEPT;
		res->rule_id = RULE_ID_POLICY;
		return 0;
	}
	res->rule_id = r->id;
	switch (r->action) {
	case RULE_ACT_ACCEPT:
		res->verdict = RULE_VERDICT_ACCEPT;
		memcpy(res->channel, r->channel, sizeof(res->channel));
		return 0;
	case RULE_ACT_DROP:
		res->verdict = RULE_VERDICT_DROP;
		return 0;
	default:
		return -EINVAL; /* a nat action in the filter table: not a valid set */
	}
}

int
rule_ref_filter(const struct rule_set *s, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags, struct rule_result *res)
{
	struct rule_result out;
	uint8_t f;
	int rc;

	if (s == NULL || k == NULL || res == NULL ||
		(k->family != FC_AF_INET4 && k->family != FC_AF_INET6))
		return -EINVAL;
	f = fc_key_flags(k);
	if (!(f & FC_KEY_F_SRC_LOCAL))
		return filter_hook(s,
			(f & FC_KEY_F_DST_LOCAL) ? RULE_HOOK_INPUT : RULE_HOOK_FORWARD, k, ctstate,
			kflags, res);
	if (!(f & FC_KEY_F_DST_LOCAL))
		return filter_hook(s, RULE_HOOK_OUTPUT, k, ctstate, kflags, res);
	/* Local to local: OUTPUT, then INPUT, as a looped-back packet. */
	rc = filter_hook(s, RULE_HOOK_OUTPUT, k, ctstate, kflags, &out);
	if (rc < 0)
		return rc;
	if (out.verdict == RULE_VERDICT_DROP) {
		*res = out;
		return 0;
	}
	rc = filter_hook(s, RULE_HOOK_INPUT, k, ctstate, kflags, res);
	if (rc == 0 && res->verdict == RULE_VERDICT_ACCEPT && res->channel[0] == '\0')
		memcpy(res->channel, out.channel, sizeof(res->channel));
	return rc;
}

int
rule_ref_nat(const struct rule_set *s, enum rule_nat_stage stage, const struct fc_key *k,
	unsigned int ctstate, unsigned int kflags, struct rule_nat_result *res)
{
	const struct rule_chain *base;
	const struct rule *r;
	enum rule_hook hook;
	uint8_t f;
	int rc;

	if (s == NULL || k == NULL || res == NULL ||
		fc_af_index(k->family) < 0 ||
		(stage != RULE_NAT_DST && stage != RULE_NAT_SRC))
		return -EINVAL;
	f = fc_key_flags(k);
	if (stage == RULE_NAT_DST)
		hook = (f & FC_KEY_F_SRC_LOCAL) ? RULE_HOOK_OUTPUT : RULE_HOOK_PREROUTING;
	else
		hook = (f & FC_KEY_F_DST_LOCAL) && !(f & FC_KEY_F_SRC_LOCAL)
			       ? RULE_HOOK_INPUT
			       : RULE_HOOK_POSTROUTING;
	memset(res, 0, sizeof(*res));
	res->hook = (uint8_t)hook;
	res->action = RULE_ACT_ACCEPT;
	rc = rule_ref_hook(s, RULE_TABLE_NAT, hook, k, ctstate, kflags, &r, &base);
	if (rc < 0)
		return rc;
	if (base == NULL) {
		res->rule_id = RULE_ID_NONE;
		return 0;
	}
	if (r == NULL) {
		res->rule_id = RULE_ID_POLICY;
		return 0;
	}
	res->rule_id = r->id;
	res->action = r->action;
	switch (r->action) {
	case RULE_ACT_ACCEPT:
		return 0;
	case RULE_ACT_DNAT:
	case RULE_ACT_SNAT:
	case RULE_ACT_MASQUERADE:
		res->nat = r->nat;
		return 0;
	default:
		return -EINVAL; /* drop in the nat table: not a valid set */
	}
}
