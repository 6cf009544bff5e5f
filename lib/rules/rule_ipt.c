/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save import, one rule at a time.
 *
 * A rule line "-A CHAIN ..." / "-I CHAIN [N] ..." is read option by option
 * (rule_ipt_opt.c) into a rule of the model such that the evaluators give
 * netfilter's verdicts; here what needs the whole rule: several matches on
 * one field combined exactly (port sets, state sets), the checks iptables
 * makes at the end of a line, "--ports" as two rules, -s/-d lists as one
 * rule per source and destination. The rules go into their chain at once;
 * the file around them is rule_ipt_load.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_ipt_rl.h"

/* ------------------------------------------------------------------------ */
/* Port sets (the bitmaps: rule_ipt_value.c)                                 */
/* ------------------------------------------------------------------------ */

/*
 * The conjunction of @n port matches on one direction as one (possibly
 * negated) list. @return 1 if it can match, 0 if it never can, or -EINVAL
 * if it needs more ranges than a rule holds.
 */
static int
ports_and(struct ipt *p, const struct ipt_pmatch *const *pm, unsigned int n, struct rule_ports *out,
	bool *neg)
{
	struct rule_ports other;
	unsigned int pos, inv;

	if (n == 1) {
		*out = pm[0]->ports;
		*neg = pm[0]->neg;
		return 1;
	}
	for (unsigned int w = 0; w < RULE_IPT_PORT_WORDS; w++)
		p->bm[w] = ~0ull;
	for (unsigned int i = 0; i < n; i++) {
		rule_ipt_bm_set(p->tmp, &pm[i]->ports);
		for (unsigned int w = 0; w < RULE_IPT_PORT_WORDS; w++)
			p->bm[w] &= pm[i]->neg ? ~p->tmp[w] : p->tmp[w];
	}
	pos = rule_ipt_bm_runs(p->bm, true, out);
	if (pos == 0)
		return 0;
	inv = rule_ipt_bm_runs(p->bm, false, &other);
	if (pos <= RULE_PORTS_MAX && (pos <= inv || inv == 0)) {
		*neg = false;
		return 1;
	}
	if (inv <= RULE_PORTS_MAX) {
		*out = other;
		*neg = true;
		return 1;
	}
	return rule_ipt_err(p, pm[0]->at, "port matches too complex to combine");
}

/* ------------------------------------------------------------------------ */
/* Rule lines                                                                */
/* ------------------------------------------------------------------------ */

bool
rule_ipt_proto_ports(const struct rule *r)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
	       (r->proto == RULE_PROTO_TCP || r->proto == RULE_PROTO_UDP ||
		       r->proto == RULE_PROTO_SCTP || r->proto == RULE_PROTO_DCCP);
}

/* Protocols -m multiport takes (as xt_multiport: UDP-Lite too). */
static bool
multiport_proto(const struct rule *r)
{
	return rule_ipt_proto_ports(r) || ((r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) &&
						  r->proto == RULE_PROTO_UDPLITE);
}

static uint8_t
mod_proto(uint8_t mod)
{
	if (mod == MOD_TCP)
		return RULE_PROTO_TCP;
	if (mod == MOD_UDP)
		return RULE_PROTO_UDP;
	return mod == MOD_DCCP ? RULE_PROTO_DCCP : RULE_PROTO_SCTP;
}

int
rule_ipt_pos(struct ipt *p, uint32_t id, const struct lex_tok *at, bool more)
{
	struct ipt_pos *e;

	if (p->n_pos == p->cap_pos) {
		unsigned int cap = p->cap_pos ? p->cap_pos * 2 : 64;
		struct ipt_pos *n = realloc(p->pos, cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		p->pos = n;
		p->cap_pos = cap;
	}
	e = &p->pos[p->n_pos++];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->line = p->w.line;
	e->col = at->col;
	e->more = more;
	snprintf(e->token, sizeof(e->token), "%s", at->s);
	return 0;
}

/* Is rule @p id the second of a --ports pair? (p->pos is in id order.) */
static bool
pos_more(const struct ipt *p, uint32_t id)
{
	unsigned int lo = 0, hi = p->n_pos;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (p->pos[mid].id == id)
			return p->pos[mid].more;
		if (p->pos[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * "-I CHAIN N": N counts the kernel's rules, and a --ports rule is one
 * there but two here. @return the index in @p c of the kernel's rule @p n
 * (0-based; its rule count: the end), or UINT32_MAX when the chain has
 * fewer rules.
 */
static uint32_t
kernel_index(const struct ipt *p, const struct rule_chain *c, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < c->n_rules; j++) {
		if (pos_more(p, c->rules[j].id))
			continue;
		if (k++ == n)
			return j;
	}
	return k == n ? c->n_rules : UINT32_MAX;
}

/* Combine the ctstate matches of a rule into its one (possibly negated) set. */
static int
rule_ctstate(struct ipt *p, struct ipt_rl *rl)
{
	uint8_t pos = RULE_CT_ALL, negs = 0;
	bool any_pos = false, nat = false;

	if (rl->n_ct == 0)
		return 0;
	rl->r.match |= RULE_M_CTSTATE;
	/* Its place among the matches (a meter before it charges what it refuses): one for all. */
	rl->r.ctstate_at = rule_late_place(&rl->r, rl->ct[0].xi);
	for (unsigned int i = 1; i < rl->n_ct; i++)
		if (rule_late_place(&rl->r, rl->ct[i].xi) != rl->r.ctstate_at)
			return rule_ipt_err(p, rl->ct[i].at,
				"state matches on both sides of a limit, hashlimit, recent, "
				"statistic or connlimit match");
	if (rl->n_ct == 1) {
		rl->r.ctstate = rl->ct[0].set;
		if (rl->ct[0].neg)
			rl->r.neg |= RULE_M_CTSTATE;
		return 0;
	}
	for (unsigned int i = 0; i < rl->n_ct; i++)
		nat |= (rl->ct[i].set & (RULE_CT_SNAT | RULE_CT_DNAT)) != 0;
	if (nat)
		return rule_ipt_err(p, rl->ct_at, "SNAT and DNAT states in several state matches");
	/* A packet is in one state (untracked included). */
	for (unsigned int i = 0; i < rl->n_ct; i++) {
		if (rl->ct[i].neg) {
			negs |= rl->ct[i].set;
		} else {
			pos &= rl->ct[i].set;
			any_pos = true;
		}
	}
	if (any_pos) {
		rl->r.ctstate = pos & (uint8_t)~negs;
		if (rl->r.ctstate == 0)
			return rule_ipt_err(p, rl->ct_at, "state matches can never match together");
	} else {
		rl->r.ctstate = negs;
		rl->r.neg |= RULE_M_CTSTATE;
	}
	return 0;
}

/* Does the rule have a tcp or sctp extension match (which fails on non-first fragments too)? */
static bool
has_l4_xm(const struct rule *r)
{
	for (unsigned int i = 0; i < r->n_xm; i++)
		if (r->xm[i].kind == RULE_XM_TCP || r->xm[i].kind == RULE_XM_SCTP)
			return true;
	return false;
}

/* Where port match @p m counts in @p r's order (struct rule::sport_at, rule_late_order()). */
static uint8_t
pm_place(const struct rule *r, const struct ipt_pmatch *m)
{
	return rule_late_place(r, m->xi);
}

/*
 * The place of direction @p d's port matches @p pm (@p n of them) in @p r:
 * one for all (a match that keeps state between two of them: refused).
 */
static int
pm_places(struct ipt *p, const struct rule *r, const struct ipt_pmatch *const pm[],
	unsigned int n, uint8_t *at)
{
	*at = n > 0 ? pm_place(r, pm[0]) : 0;
	for (unsigned int i = 1; i < n; i++)
		if (pm_place(r, pm[i]) != *at)
			return rule_ipt_err(p, pm[i]->at,
				"port matches of one direction on both sides of a limit, "
				"hashlimit, recent, statistic or connlimit match");
	return 0;
}

/* Apply the port matches of one variant to @r. @return 1, 0 (never matches), -EINVAL. */
static int
rule_ports_variant(struct ipt *p, struct ipt_rl *rl, int either_dir, struct rule *r)
{
	const struct ipt_pmatch *dir[2][IPT_PM_MAX + 2];
	struct ipt_pmatch not_src;
	unsigned int n[2] = {0, 0};
	bool neg = false;
	int rc;

	for (unsigned int i = 0; i < rl->n_pm; i++) {
		const struct ipt_pmatch *m = &rl->pm[i];

		if (m->dir == PM_EITHER) {
			if (!m->neg && pm_place(r, m) != 0)
				return rule_ipt_err(p, m->at,
					"multiport --ports after a limit, hashlimit, recent, "
					"statistic or connlimit match (gufc makes two rules of "
					"--ports: that match would run twice)");
			if (m->neg) {
				/* Neither port in the list. */
				dir[0][n[0]++] = m;
				dir[1][n[1]++] = m;
			} else {
				dir[either_dir][n[either_dir]++] = m;
				/*
				 * The second of the pair takes what the first did not
				 * (source port not in the list): a packet matches one of
				 * the two at most, so actions and stateful matches run
				 * once, as for the one rule.
				 */
				if (either_dir == PM_DST) {
					not_src = *m;
					not_src.neg = true;
					dir[PM_SRC][n[PM_SRC]++] = &not_src;
				}
			}
		} else {
			dir[m->dir][n[m->dir]++] = m;
		}
	}
	for (unsigned int d = 0; d < 2; d++) {
		struct rule_ports *pp = d == PM_SRC ? &r->sport : &r->dport;
		uint8_t at;

		if (n[d] == 0)
			continue;
		/* Its place among the matches (a meter before it charges what it refuses). */
		rc = pm_places(p, r, dir[d], n[d], &at);
		if (rc < 0)
			return rc;
		rc = ports_and(p, dir[d], n[d], pp, &neg);
		if (rc <= 0)
			return rc;
		r->match |= d == PM_SRC ? RULE_M_SPORT : RULE_M_DPORT;
		if (neg)
			r->neg |= d == PM_SRC ? RULE_M_SPORT : RULE_M_DPORT;
		if (d == PM_SRC)
			r->sport_at = at;
		else
			r->dport_at = at;
	}
	if (!(r->match & (RULE_M_SPORT | RULE_M_DPORT)) && rl->pmod != MOD_NONE &&
		!has_l4_xm(r)) {
		/*
		 * A bare -m tcp/udp/sctp still fails on non-first fragments:
		 * a port match of every port keeps that.
		 */
		r->dport.n = 1;
		r->dport.r[0].lo = 0;
		r->dport.r[0].hi = 65535;
		r->match |= RULE_M_DPORT;
		r->dport_at = rl->pmod_xi;
		rule_late_order(r);
	}
	return 1;
}

/* Checks that need the whole rule, then add it (one rule, or two for --ports). */
int
rule_ipt_finish(struct ipt *p, struct ipt_rl *rl)
{
	const struct ipt_pmatch *either = NULL;
	const struct lex_tok *at = rl->target ? rl->target : rl->cmd;
	struct rule_chain *chain;
	unsigned int n_var = 1, added = 0, n_src, n_dst;
	uint32_t pos = rl->at, ins = pos;
	bool first = true;
	int rc, ci;

	rc = rule_ipt_mod_finish(p, rl, true);
	if (rc < 0)
		return rc;
	if (rl->pmod != MOD_NONE &&
		(!rule_ipt_proto_ports(&rl->r) || rl->r.proto != mod_proto(rl->pmod)))
		return rule_ipt_err(p, rl->pmod_at, "protocol match needs the same -p protocol");
	if (rl->multi_at != NULL && !multiport_proto(&rl->r))
		return rule_ipt_err(p, rl->multi_at, "multiport needs -p tcp, udp, udplite, sctp or dccp");
	if (rl->target == NULL)
		rl->r.action = RULE_ACT_COUNT; /* no target: counts packets, decides nothing */
	if ((rl->r.action == RULE_ACT_SNAT || rl->r.action == RULE_ACT_DNAT ||
		    rl->r.action == RULE_ACT_NETMAP) &&
		!(rl->natx.given & 1))
		return rule_ipt_err(p, rl->target,
			rl->r.action == RULE_ACT_SNAT	? "SNAT needs --to-source"
			: rl->r.action == RULE_ACT_DNAT ? "DNAT needs --to-destination"
							: "NETMAP needs --to");
	if (rl->r.nat.port_min != 0 && !rule_ipt_proto_ports(&rl->r))
		return rule_ipt_err(p, rl->target, "NAT ports need -p tcp, udp, sctp or dccp");
	rc = rule_ctstate(p, rl);
	if (rc < 0)
		return rc;
	rc = rule_ipt_ext_finish(p, &rl->r, rl->x_at, at);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < rl->n_pm; i++) {
		if (rl->pm[i].dir != PM_EITHER || rl->pm[i].neg)
			continue;
		if (either != NULL)
			return rule_ipt_err(p, rl->pm[i].at, "only one --ports per rule");
		either = &rl->pm[i];
		/* sport in the list, else dport in it: two rules, see doc/iptables.md. */
		n_var = 2;
	}
	ci = rule_tbl_find(p->s, p->table, rl->chain->s);
	chain = &p->s->t[p->table].chains[ci];
	/* iptables: no input interface where packets have none, no output where not known yet. */
	if ((rl->r.match & RULE_M_IN) &&
		(chain->hooks & (RULE_HOOK_F(RULE_HOOK_OUTPUT) | RULE_HOOK_F(RULE_HOOK_POSTROUTING))))
		return rule_ipt_err(p, rl->if_at[0], "-i cannot be used in OUTPUT or POSTROUTING");
	if ((rl->r.match & RULE_M_OUT) &&
		(chain->hooks & (RULE_HOOK_F(RULE_HOOK_PREROUTING) | RULE_HOOK_F(RULE_HOOK_INPUT))))
		return rule_ipt_err(p, rl->if_at[1], "-o cannot be used in PREROUTING or INPUT");
	if (pos != RULE_POS_END) {
		pos = kernel_index(p, chain, pos);
		if (pos == UINT32_MAX)
			return rule_ipt_err(p,
				&p->args.a[(unsigned int)(rl->chain - p->args.a) + 1],
				"index of insertion too big");
	}
	n_src = rl->n_addr[0] ? rl->n_addr[0] : 1;
	n_dst = rl->n_addr[1] ? rl->n_addr[1] : 1;
	/*
	 * One iptables rule per source and destination (sources outer), each
	 * of one or two rules here (--ports). -I inserts each iptables rule
	 * at N, as iptables-restore does: they end up in reverse order.
	 */
	for (unsigned int k = 0; k < n_src * n_dst * n_var; k++) {
		unsigned int v = k % n_var, si = k / n_var / n_dst, di = k / n_var % n_dst;
		struct rule r = rl->r;
		const char *msg;
		uint32_t id;

		if (v == 0) {
			ins = pos;
			first = true;
		}
		if (rl->n_addr[0] != 0)
			r.src = rl->addr[0][si];
		if (rl->n_addr[1] != 0)
			r.dst = rl->addr[1][di];
		rc = rule_ports_variant(p, rl, v == 0 ? PM_SRC : PM_DST, &r);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		if (rule_check(&r, &msg) < 0)
			return rule_ipt_err(p, at, msg);
		rc = rule_chain_insert(p->s, chain, ins, &r, &id);
		if (rc == 0)
			rc = rule_ipt_pos(p, id, at, !first);
		if (rc < 0)
			return rc == -ENOSPC ? rule_ipt_err(p, at, "too many rules") : rc;
		if (ins != RULE_POS_END)
			ins++;
		first = false;
		added++;
	}
	if (added == 0)
		return rule_ipt_err(p, rl->n_pm ? rl->pm[0].at : rl->cmd,
			"port matches can never match together");
	return 0;
}

int
rule_ipt_rule_line(struct ipt *p, unsigned int first, uint64_t pkts, uint64_t bytes)
{
	const struct ipt_args *as = &p->args;
	const struct rule_chain *c;
	struct ipt_rl *rl;
	unsigned int i = first;
	bool insert = strcmp(as->a[i].s, "-I") == 0 || strcmp(as->a[i].s, "--insert") == 0;
	int rc = 0;

	if (i + 1 == as->n)
		return rule_ipt_err(p, &as->a[i], "missing value");
	c = rule_set_chain_find(p->s, p->table, as->a[i + 1].s);
	if (c == NULL || c->builtin)
		return rule_ipt_err(p, &as->a[i + 1], "unknown chain");
	rl = calloc(1, sizeof(*rl));
	if (rl == NULL)
		return -ENOMEM;
	rule_init(&rl->r);
	rl->r.pkts = pkts;
	rl->r.bytes = bytes;
	rl->cmd = &as->a[i];
	rl->chain = &as->a[i + 1];
	rl->at = insert ? 0 : RULE_POS_END;
	rl->cur_x = -1;
	i += 2;
	if (insert && i < as->n && as->a[i].s[0] >= '0' && as->a[i].s[0] <= '9') {
		uint32_t n;

		if (lex_u32(as->a[i].s, strlen(as->a[i].s), UINT32_MAX - 1, LEX_NUM_NO_LEAD_ZERO, &n,
			    NULL) != 0 ||
			n == 0) {
			rc = rule_ipt_err(p, &as->a[i], "bad rule number");
			goto out;
		}
		rl->at = n - 1;
		i++;
	}
	for (; i < as->n; i++) {
		bool neg = false;

		if (strcmp(as->a[i].s, "!") == 0) {
			if (i + 1 == as->n) {
				rc = rule_ipt_err(p, &as->a[i], "missing option after !");
				goto out;
			}
			if (strcmp(as->a[i + 1].s, "!") == 0) {
				rc = rule_ipt_err(p, &as->a[i + 1], "double negation");
				goto out;
			}
			neg = true;
			i++;
		}
		rc = rule_ipt_opt(p, rl, &i, neg);
		if (rc < 0)
			goto out;
	}
	rc = rule_ipt_finish(p, rl);
out:
	free(rl);
	return rc;
}
