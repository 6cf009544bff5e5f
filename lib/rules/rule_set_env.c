/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: what a rule set holds beside its chains — the names of the
 * ports its interface matches see, the ipsets its set matches look in —
 * and the merging of an IPv6 set into an IPv4 one (both families loaded
 * at once, each deciding its own).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rule_priv.h"

/* ------------------------------------------------------------------------ */
/* Port names and ipsets                                                     */
/* ------------------------------------------------------------------------ */

int
rule_set_ports(struct rule_set *s, unsigned int n, const char *const names[])
{
	struct rule_portname *p = NULL;

	if (s == NULL || n >= RULE_IF_LO || (n > 0 && names == NULL))
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (names[i] == NULL || strlen(names[i]) >= RULE_PORTNAME_MAX)
			return -EINVAL;
	if (n > 0) {
		p = calloc(n, sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		for (unsigned int i = 0; i < n; i++)
			memcpy(p[i].name, names[i], strlen(names[i]) + 1);
	}
	free(s->ports);
	s->ports = p;
	s->n_ports = n;
	return 0;
}

const char *
rule_set_port_name(const struct rule_set *s, unsigned int port)
{
	if (s == NULL || port >= s->n_ports)
		return port == RULE_IF_LO ? RULE_IF_LO_NAME : "";
	return s->ports[port].name;
}

unsigned int
rule_set_port_count(const struct rule_set *s)
{
	return s == NULL ? 0 : s->n_ports;
}

struct rule_ifnames
rule_set_ifnames(const struct rule_set *s)
{
	struct rule_ifnames ifn = {0};

	if (s != NULL) {
		ifn.n = s->n_ports;
		ifn.names = s->ports;
	}
	return ifn;
}

const char *
rule_ifnames_get(const struct rule_ifnames *ifn, unsigned int port)
{
	if (ifn == NULL || port >= ifn->n || ifn->names == NULL)
		return port == RULE_IF_LO ? RULE_IF_LO_NAME : "";
	return ifn->names[port].name;
}

static bool
if_known(const struct rule_set *s, const char *pat)
{
	if (rule_if_match(pat, RULE_IF_LO_NAME))
		return true; /* this host's loopback (RULE_IF_LO) */
	for (unsigned int i = 0; i < s->n_ports; i++)
		if (rule_if_match(pat, s->ports[i].name))
			return true;
	return false;
}

const char *
rule_set_unknown_if(const struct rule_set *s, uint64_t *it, uint32_t *rule)
{
	uint64_t k = 0;

	if (s == NULL || it == NULL)
		return NULL;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < s->t[t].n; i++) {
			const struct rule_chain *c = &s->t[t].chains[i];

			for (uint32_t j = 0; j < c->n_rules; j++) {
				const struct rule *r = &c->rules[j];

				for (unsigned int d = 0; d < 2; d++, k++) {
					const char *pat = d == 0 ? r->in_if : r->out_if;

					if (k < *it || !(r->match & (d == 0 ? RULE_M_IN : RULE_M_OUT)) ||
						if_known(s, pat))
						continue;
					*it = k + 1;
					if (rule != NULL)
						*rule = r->id;
					return pat;
				}
			}
		}
	*it = k;
	return NULL;
}

void
rule_set_ipsets(struct rule_set *s, struct rule_ipsets *sets)
{
	if (s == NULL)
		return;
	if (sets != NULL)
		rule_ipsets_ref(sets);
	rule_ipsets_free(s->ipsets);
	s->ipsets = sets;
}

const struct rule_ipsets *
rule_set_ipsets_get(const struct rule_set *s)
{
	return s == NULL ? NULL : s->ipsets;
}

/* ------------------------------------------------------------------------ */
/* Merging two families' sets                                                */
/* ------------------------------------------------------------------------ */

/*
 * Chains and @family's policies of @src into @d, then its rules: all of
 * @family (@pick false), or (@pick) those of @family and those of both
 * families as @family's, the others left out.
 */
static int
merge_into(struct rule_set *d, const struct rule_set *src, unsigned int family, bool pick)
{
	int rc;

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int i = 0; i < src->t[t].n; i++) {
			const struct rule_chain *sc = &src->t[t].chains[i];
			int di = rule_tbl_find(d, t, sc->name);
			struct rule_chain *dc;

			if (di < 0) {
				rc = rule_set_chain_add(d, t, sc->name, sc->hooks, RULE_POLICY_ACCEPT);
				if (rc < 0)
					return rc;
				di = (int)d->t[t].n - 1;
				if (sc->hooks != 0 && t != RULE_TABLE_NAT) {
					/* The other family keeps the default: accept. */
					d->t[t].chains[di].policy = RULE_POLICY_ACCEPT;
					d->t[t].chains[di].policy6 = RULE_POLICY_ACCEPT;
				}
			} else if (d->t[t].chains[di].hooks != sc->hooks &&
				   !(sc->builtin && d->t[t].chains[di].builtin)) {
				return -EINVAL;
			}
			dc = &d->t[t].chains[di];
			/* @family's policy and its counters. */
			if (rule_chain_is_base(dc)) {
				if (family == FC_AF_INET6) {
					dc->policy6 = sc->policy6;
					dc->pkts6 = sc->pkts6;
					dc->bytes6 = sc->bytes6;
				} else {
					dc->policy = sc->policy;
					dc->pkts = sc->pkts;
					dc->bytes = sc->bytes;
				}
			}
		}
	}
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int i = 0; i < src->t[t].n; i++) {
			const struct rule_chain *sc = &src->t[t].chains[i];
			struct rule_chain *dc = &d->t[t].chains[rule_tbl_find(d, t, sc->name)];

			for (uint32_t j = 0; j < sc->n_rules; j++) {
				struct rule r = sc->rules[j];

				if (r.family != family && !(pick && r.family == 0)) {
					if (pick)
						continue;
					return -EINVAL;
				}
				r.family = (uint8_t)family;
				rc = rule_chain_insert(d, dc, RULE_POS_END, &r, NULL);
				if (rc < 0)
					return rc;
			}
		}
	}
	return 0;
}

int
rule_set_merge(struct rule_set *dst, const struct rule_set *src, unsigned int family)
{
	struct rule_set *tmp;
	const char *msg;
	uint32_t bad;
	int rc;

	if (dst == NULL || src == NULL || dst == src ||
		(family != FC_AF_INET4 && family != FC_AF_INET6))
		return -EINVAL;
	tmp = rule_set_clone(dst);
	if (tmp == NULL)
		return -ENOMEM;
	rc = merge_into(tmp, src, family, false);
	if (rc == 0)
		rc = rule_set_check(tmp, &bad, &msg);
	if (rc < 0) {
		rule_set_free(tmp);
		return rc;
	}
	/* Swap the merged tables in; @dst keeps its identity (and log token). */
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		struct rule_tbl x = dst->t[t];

		dst->t[t] = tmp->t[t];
		tmp->t[t] = x;
	}
	dst->next_id = tmp->next_id;
	if (tmp->log != NULL && dst->log != NULL) {
		struct rule_log *l = dst->log;

		dst->log = tmp->log;
		tmp->log = l;
	}
	rule_set_free(tmp);
	return 0;
}

struct rule_set *
rule_set_family(const struct rule_set *s, unsigned int family)
{
	struct rule_set *d;
	const char *msg;
	uint32_t bad;
	int rc;

	if (s == NULL || (family != FC_AF_INET4 && family != FC_AF_INET6)) {
		errno = EINVAL;
		return NULL;
	}
	d = rule_set_create();
	if (d == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = merge_into(d, s, family, true);
	if (rc == 0)
		rc = rule_set_check(d, &bad, &msg);
	if (rc == 0 && s->n_ports > 0) {
		const char **names = calloc(s->n_ports, sizeof(*names));

		if (names == NULL) {
			rc = -ENOMEM;
		} else {
			for (unsigned int i = 0; i < s->n_ports; i++)
				names[i] = s->ports[i].name;
			rc = rule_set_ports(d, s->n_ports, names);
			free(names);
		}
	}
	if (rc < 0) {
		rule_set_free(d);
		errno = -rc;
		return NULL;
	}
	rule_set_ipsets(d, s->ipsets);
	return d;
}
