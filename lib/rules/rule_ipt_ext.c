/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: iptables-save import, the extension matches and targets:
 * their options through the option tables (rule_x_priv.h), the sets -m set
 * names (they must be loaded), and the matches and targets gufc refuses,
 * each with the reason it cannot apply.
 */
#include <errno.h>
#include <string.h>

#include "rule_ipt_priv.h"

/* Matches that cannot apply to gufc, and why. */
static const struct {
	const char *name;
	const char *msg;
} refused_matches[] = {
	{"owner", "gufc has no local sockets, so no packet has an owner (-m owner)"},
	{"socket", "gufc has no local sockets (-m socket)"},
	{"cgroup", "gufc has no local sockets, so no packet has a cgroup (-m cgroup)"},
	{"policy", "gufc terminates no IPsec: it has no policies for -m policy to look at"},
	{"physdev", "gufc has no Linux bridge: no bridge ports for -m physdev (-i/-o match gufc's own ports)"},
	{"ipvs", "gufc has no IPVS (-m ipvs)"},
	{"osf", "passive OS fingerprinting is not supported (-m osf)"},
	{"nfacct", "nfacct objects are not supported (-m nfacct)"},
	{"devgroup", "gufc's ports are DPDK ports: they have no Linux device group (-m devgroup; match -i/-o)"},
	{"cluster", "gufc shares no load among cluster nodes: no node mask to match (-m cluster)"},
	{"connlabel", "gufc's connections carry no labels, only a mark (-m connlabel; use -m connmark)"},
	{"rateest", "gufc has no rate estimators: -j RATEEST is refused too (-m rateest; use -m limit or hashlimit)"},
	{"realm", "gufc's routes have no realms (-m realm)"},
	{"cpu", "the CPU that handles a packet is not a rule input: an lcore takes a flow by RSS (-m cpu)"},
};

/* Targets that cannot apply to gufc, and why. */
static const struct {
	const char *name;
	const char *msg;
} refused_targets[] = {
	{"QUEUE", "gufc has no user-space queues: deliver to a channel (accept channel NAME)"},
	{"NFQUEUE", "gufc has no user-space queues: deliver to a channel (accept channel NAME)"},
	{"TPROXY", "gufc has no local sockets (TPROXY)"},
	{"TEE", "packet duplication is not supported (TEE)"},
	{"SECMARK", "gufc has no SELinux (SECMARK)"},
	{"CONNSECMARK", "gufc has no SELinux (CONNSECMARK)"},
	{"ULOG", "ULOG is gone from Linux: use NFLOG"},
	{"AUDIT", "gufc has no Linux audit subsystem to record to (AUDIT): use LOG or NFLOG"},
	{"IDLETIMER", "gufc has no sysfs idle timers (IDLETIMER)"},
	{"LED", "gufc drives no LED triggers (LED)"},
	{"HMARK", "hash marks are not supported: a flow's lcore and channel are not picked by mark (HMARK)"},
	{"RATEEST", "gufc has no rate estimators (RATEEST; use -m limit or hashlimit)"},
};

/*
 * Target extensions: -j NAME means the extension even when a chain has
 * that name (iptables looks targets up first), so these can neither be
 * jumped to nor declared.
 */
/* clang-format off */
static const char *const ipt_targets[] = {
	"ACCEPT", "DROP", "RETURN", "QUEUE", "SNAT", "DNAT", "MASQUERADE", "REDIRECT",
	"NETMAP", "LOG", "NFLOG", "ULOG", "NFQUEUE", "REJECT", "MARK", "CONNMARK",
	"CONNSECMARK", "SECMARK", "CT", "NOTRACK", "TRACE", "TPROXY", "TCPMSS", "TCPOPTSTRIP",
	"CLASSIFY", "DSCP", "TOS", "TTL", "HL", "ECN", "SET", "AUDIT", "CHECKSUM",
	"IDLETIMER", "LED", "RATEEST", "TEE", "SYNPROXY", "CLUSTERIP", "HMARK",
};
/* clang-format on */

bool
rule_ipt_is_target(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(ipt_targets); i++)
		if (strcmp(ipt_targets[i], name) == 0)
			return true;
	return false;
}

const char *
rule_ipt_match_refused(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(refused_matches); i++)
		if (strcmp(refused_matches[i].name, name) == 0)
			return refused_matches[i].msg;
	return NULL;
}

const char *
rule_ipt_target_refused(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(refused_targets); i++)
		if (strcmp(refused_targets[i].name, name) == 0)
			return refused_targets[i].msg;
	return NULL;
}

/* A set named by -m set or -j SET must be loaded, with enough dimensions. */
static int
set_loaded(struct ipt *p, const struct rule_x_set *ref, const struct lex_tok *name,
	const struct lex_tok *dirs)
{
	const struct rule_ipsets *sets = p->o != NULL ? p->o->sets : NULL;
	int idx = rule_ipsets_find(sets, ref->name);

	if (idx < 0)
		return rule_ipt_err(p, name, "set not loaded (give its ipset file)");
	if (ref->ndims > rule_ipsets_dims(sets, idx))
		return rule_ipt_err(p, dirs, "more dimensions than the set has");
	return 0;
}

int
rule_ipt_xopt(struct ipt *p, struct rule *r, struct rule_x *x, unsigned int oi, unsigned int *i,
	bool neg)
{
	const struct rule_xopt *o = &rule_xkinds[x->kind].o[oi];
	const struct lex_tok *opt = &p->args.a[*i], *w[2] = {NULL, NULL};
	unsigned int nw = rule_x_opt_words(o), ri = (o->flags & XO_PARSE) ? o->alias : oi;
	const char *v[2] = {NULL, NULL};
	struct rule_xerr e = {NULL, 0};
	uint8_t fam = r->family;
	char cut[64];
	int rc;

	if (neg && !(o->flags & XO_NEG))
		return rule_ipt_err(p, opt, "option cannot be negated");
	if (x->given & (1u << ri))
		return rule_ipt_err(p, opt, "option given twice");
	if (x->given & o->excl)
		return rule_ipt_err(p, opt, "option excludes one given before");
	for (unsigned int k = 0; k < nw; k++) {
		if (*i + 1 >= p->args.n)
			return rule_ipt_err(p, k == 0 ? opt : w[0], "missing value");
		w[k] = &p->args.a[++*i];
		if (k == 0 && (o->flags & XO_NEG) && strcmp(w[0]->s, "!") == 0)
			return rule_ipt_err(p, w[0], RULE_IPT_OLD_NEG);
		v[k] = w[k]->s;
	}
	/* iptables cuts a LOG prefix to the kernel's 29 bytes without a word. */
	if (nw > 0 && o->vt == VT_STR && (o->flags & XO_TRUNC) && strlen(v[0]) >= o->size) {
		if (o->size > sizeof(cut))
			return rule_ipt_err(p, w[0], "too long");
		memcpy(cut, v[0], o->size - 1u);
		cut[o->size - 1u] = '\0';
		v[0] = cut;
	}
	if (nw > 0) {
		rc = rule_xval_parse(o, v, r, x, &e);
		if (rc < 0)
			return rule_ipt_err(p, w[e.word], e.msg);
		if (r->family != fam) {
			rc = rule_ipt_family(p, w[0], r->family);
			if (rc < 0)
				return rc;
		}
	} else {
		rule_xval_parse(o, v, r, x, &e);
	}
	x->given |= (uint16_t)(1u << ri);
	if (neg)
		x->neg |= (uint16_t)(1u << ri);
	if (o->vt == VT_SETREF)
		return set_loaded(p, (const struct rule_x_set *)(const void *)((const uint8_t *)x +
								   o->off),
			w[0], w[1]);
	return 0;
}

int
rule_ipt_ext_finish(struct ipt *p, struct rule *r, const struct lex_tok *const x_at[],
	const struct lex_tok *at)
{
	const char *msg;

	for (unsigned int i = 0; i < r->n_xm; i++) {
		rule_x_finish(r, &r->xm[i]);
		msg = rule_x_check(r, &r->xm[i]);
		if (msg != NULL)
			return rule_ipt_err(p, x_at[i], msg);
	}
	if (r->tgt.kind != RULE_X_NONE) {
		rule_x_finish(r, &r->tgt);
		msg = rule_x_check(r, &r->tgt);
		if (msg != NULL)
			return rule_ipt_err(p, at, msg);
		if (r->tgt.given == 0)
			memset(&r->tgt, 0, sizeof(r->tgt)); /* no options: one value for "none" */
	}
	return 0;
}
