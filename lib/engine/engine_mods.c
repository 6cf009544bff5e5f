/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the rules engine's built-in modules, registered in netfilter's
 * order: conntrack (mod_ct_*), nat destination stage (DNAT: the translated
 * key is what later modules see), route (mod_route.c), filter (the packet's
 * ctstate -> verdict, rule, channel name, for both directions), nat source
 * stage (SNAT/MASQUERADE after an accept, one binding for both stages) and
 * channel (names -> ids through the application's callback; a flow accepted
 * into a per-flow channel gets a ring of its own, which both directions
 * share when they name the same channel).
 */
#include <errno.h>
#include <string.h>

#include "engine_priv.h"

/* ------------------------------------------------------------------------ */
/* Conntrack                                                                 */
/* ------------------------------------------------------------------------ */

unsigned int
eng_conn_ctstate(const struct rule_engine *eng, const struct fc_action *a)
{
	struct mod_ct_conn c;

	if (!eng->p.conntrack || mod_ct_conn_unpack(a->ct_state, &c) < 0 ||
		c.state == MOD_CT_S_NONE)
		return 0;
	return mod_ct_conn_ctstate(&c, (a->flags & FC_ACT_F_REPLY) ? MOD_CT_DIR_REPLY
								   : MOD_CT_DIR_ORIG);
}

static int
ct_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	struct mod_ct_verdict v;
	int rc;

	if (!eng->p.conntrack)
		return 0;
	rc = mod_ct_new(&eng->ct, &f->up->pkt, &ef->conn, &v);
	if (rc < 0)
		return rc;
	f->ctstate = v.ctstate;
	if (!(v.flags & MOD_CT_VF_CREATED)) {
		/* INVALID: a later packet may still open a connection. */
		if (v.ctstate == RULE_CT_INVALID)
			ef->nocache = true;
		return 0;
	}
	for (unsigned int d = 0; d < 2; d++) {
		f->act[d].ct_state = mod_ct_conn_pack(&ef->conn);
		f->act[d].interest |= v.interest[d];
	}
	f->timeout = v.timeout;
	f->want_reply = true;
	return 0;
}

static int
ct_on_packet(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	struct mod_ct_verdict v;
	int rc;

	if (!eng->p.conntrack || mod_ct_conn_unpack(f->act[f->dir].ct_state, &ef->conn) < 0 ||
		ef->conn.state == MOD_CT_S_NONE)
		return 0;
	rc = mod_ct_packet(&eng->ct, &ef->conn, f->dir, &f->up->pkt, &v);
	if (rc < 0)
		return rc;
	f->ctstate = v.ctstate;
	if (v.flags & MOD_CT_VF_REOPEN) {
		ef->reopen = true;
		f->remove = true;
		return 0;
	}
	if (v.flags & MOD_CT_VF_CHANGED) {
		for (unsigned int d = 0; d < 2; d++) {
			f->act[d].ct_state = mod_ct_conn_pack(&ef->conn);
			f->act[d].interest = v.interest[d] | eng_extra_interest(&f->act[d]);
		}
		f->timeout = v.timeout;
		ef->ct_changed = true;
	}
	if (v.flags & MOD_CT_VF_CTSTATE)
		f->refilter = true;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* NAT                                                                       */
/* ------------------------------------------------------------------------ */

/* Undo a binding no reader ever saw. */
void
eng_nat_drop_binding(struct rule_engine *eng, struct eng_flow *ef)
{
	if (ef->binding == RULE_NAT_NONE)
		return;
	mod_nat_unbind(eng->nat, ef->binding);
	mod_nat_release(eng->nat, ef->binding);
	ef->binding = RULE_NAT_NONE;
}

/* NAT applies to flows that make a connection (or to all without conntrack). */
static bool
nat_applies(const struct rule_engine *eng, const struct eng_flow *ef)
{
	return eng->nat != NULL && (!eng->p.conntrack || ef->conn.state != MOD_CT_S_NONE);
}

static int
nat_bind_err(struct rule_flow *f, int rc)
{
	f->drop = rc == -ENOSPC || rc == -ENOBUFS ? RULE_DROP_NAT_EXHAUSTED : RULE_DROP_NAT_ERROR;
	return 0;
}

static int
nat_dst_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	struct mod_nat_binding_result nb;
	struct rule_nat_result res;
	int rc;

	if (!nat_applies(eng, ef))
		return 0;
	rc = eng_classify_nat(eng, RULE_NAT_DST, &f->key, f->ctstate, f->kflags, &res);
	if (rc < 0)
		return rc;
	if (res.action != RULE_ACT_DNAT)
		return 0;
	rc = mod_nat_bind(eng->nat, &f->key, &res.nat, NULL, NULL, &nb);
	if (rc < 0)
		return nat_bind_err(f, rc);
	ef->binding = nb.binding;
	ef->dnat = true;
	ef->dnat_tgt = res.nat;
	f->xkey = nb.fwd;
	f->reply_key = nb.reply;
	f->want_reply = true;
	return 0;
}

static int
nat_src_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	struct mod_nat_binding_result nb;
	struct rule_nat_result res;
	uint8_t masq[16];
	const uint8_t *masq_p = NULL;
	int rc;

	if (!nat_applies(eng, ef))
		return 0;
	rc = eng_classify_nat(eng, RULE_NAT_SRC, &f->xkey, f->ctstate, f->kflags, &res);
	if (rc < 0)
		return rc;
	if (res.action == RULE_ACT_SNAT || res.action == RULE_ACT_MASQUERADE) {
		if (res.action == RULE_ACT_MASQUERADE) {
			if (eng->p.port_addr_fn == NULL ||
				eng->p.port_addr_fn(eng->p.cb_arg, f->act[RULE_DIR_ORIG].out_port,
					f->up->in_port, f->key.family, masq) < 0) {
				f->drop = RULE_DROP_NAT_ERROR;
				return 0;
			}
			masq_p = masq;
		}
		/* One binding holds both stages: redo the DNAT one with the source. */
		eng_nat_drop_binding(eng, ef);
		rc = mod_nat_bind(eng->nat, &f->key, ef->dnat ? &ef->dnat_tgt : NULL, &res.nat,
			masq_p, &nb);
		if (rc < 0)
			return nat_bind_err(f, rc);
		ef->binding = nb.binding;
		if (ef->dnat && (nb.fwd.family != f->xkey.family ||
					 (f->xkey.family == FC_AF_INET4
						 ? nb.fwd.v4.dst != f->xkey.v4.dst ||
							 nb.fwd.v4.dport != f->xkey.v4.dport
						 : memcmp(nb.fwd.v6.dst, f->xkey.v6.dst, 16) != 0 ||
							 nb.fwd.v6.dport != f->xkey.v6.dport))) {
			/* The destination choice is a hash of the original: cannot differ. */
			eng_nat_drop_binding(eng, ef);
			f->drop = RULE_DROP_NAT_ERROR;
			return 0;
		}
		f->reply_key = nb.reply;
		f->want_reply = true;
	} else if (ef->binding == RULE_NAT_NONE) {
		return 0;
	} else {
		rc = mod_nat_binding_get(eng->nat, ef->binding, &nb);
		if (rc < 0)
			return rc;
	}
	f->act[RULE_DIR_ORIG].flags |= FC_ACT_F_NAT;
	f->act[RULE_DIR_ORIG].nat_id = nb.fwd_slot;
	f->act[RULE_DIR_REPLY].flags |= FC_ACT_F_NAT;
	f->act[RULE_DIR_REPLY].nat_id = nb.reply_slot;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Filter                                                                    */
/* ------------------------------------------------------------------------ */

static uint8_t
key_flags(const struct fc_key *k)
{
	return k->family == FC_AF_INET4 ? k->v4.flags : k->v6.flags;
}

static int
filter_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	struct rule_result res;
	unsigned int cs;
	int rc;

	/* What the filter sees: the original source, the translated destination. */
	ef->fkey[RULE_DIR_ORIG] = f->xkey;
	if (f->xkey.family == FC_AF_INET4) {
		ef->fkey[0].v4.src = f->key.v4.src;
		ef->fkey[0].v4.sport = f->key.v4.sport;
		ef->fkey[0].v4.flags = (uint8_t)((f->xkey.v4.flags & FC_KEY_F_DST_LOCAL) |
						 (f->key.v4.flags & FC_KEY_F_SRC_LOCAL));
	} else {
		memcpy(ef->fkey[0].v6.src, f->key.v6.src, 16);
		ef->fkey[0].v6.sport = f->key.v6.sport;
		ef->fkey[0].v6.flags = (uint8_t)((f->xkey.v6.flags & FC_KEY_F_DST_LOCAL) |
						 (f->key.v6.flags & FC_KEY_F_SRC_LOCAL));
	}
	fc_key_reverse(&ef->fkey[0], &ef->fkey[1]);

	rc = eng_classify_filter(eng, &ef->fkey[0], f->ctstate, f->kflags, &res);
	if (rc < 0)
		return rc;
	f->act[0].rule_id = res.rule_id;
	snprintf(ef->chan[0], sizeof(ef->chan[0]), "%s", res.channel);
	if (res.verdict != RULE_VERDICT_ACCEPT) {
		f->act[0].verdict = FC_VERDICT_DROP;
		f->drop = RULE_DROP_FILTER;
		return 0;
	}
	if (!f->want_reply)
		return 0;
	/* The reply entry's cached verdict: replies of a connection are ESTABLISHED. */
	cs = ef->conn.state != MOD_CT_S_NONE ? mod_ct_conn_ctstate(&ef->conn, MOD_CT_DIR_REPLY)
					     : 0;
	rc = eng_classify_filter(eng, &ef->fkey[1], cs, f->kflags, &res);
	if (rc < 0)
		return rc;
	f->act[1].rule_id = res.rule_id;
	f->act[1].verdict = res.verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT
							       : FC_VERDICT_DROP;
	snprintf(ef->chan[1], sizeof(ef->chan[1]), "%s", res.channel);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Channel                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A per-flow channel for a flow accepted into one marked per-flow: the
 * forward entry owns it (returns it when the flow goes, flow_gone()); the
 * reply entry shares it when its rule names the same channel. Pool empty:
 * the flow stays on the parent, counted.
 */
static void
chan_flow_give(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	uint16_t parent = f->act[RULE_DIR_ORIG].channel;
	int id;

	if (eng->p.chan_flow_alloc_fn == NULL || ef->nocache ||
		f->act[RULE_DIR_ORIG].verdict != FC_VERDICT_ACCEPT)
		return;
	id = eng->p.chan_flow_alloc_fn(eng->p.cb_arg, parent);
	if (id == -ENOTSUP)
		return;
	if (id < 0 || id > UINT16_MAX) {
		eng->st.chan_flow_fallback++;
		return;
	}
	eng->st.chan_flows++;
	ef->chan_flow = id;
	ef->chan_parent = parent;
	for (unsigned int d = 0; d < 2; d++) {
		struct fc_action *a = &f->act[d];

		if (d == RULE_DIR_REPLY && (!f->want_reply || a->channel != parent))
			continue;
		a->channel = (uint16_t)id;
		a->mod[0] |= ENG_M0_CHAN_FLOW;
		eng_set_chan_parent(a, parent);
	}
	f->act[RULE_DIR_ORIG].mod[0] |= ENG_M0_CHAN_OWN;
}

/* Take back the per-flow channel of a flow that got no entry (the decision goes to the parent). */
void
eng_chan_flow_undo(struct rule_engine *eng, struct eng_flow *ef)
{
	struct rule_flow *f = &ef->f;
	int rc;

	if (ef->chan_flow < 0)
		return;
	for (unsigned int d = 0; d < 2; d++) {
		struct fc_action *a = &f->act[d];

		if (!(a->mod[0] & ENG_M0_CHAN_FLOW) || a->channel != (uint16_t)ef->chan_flow)
			continue;
		a->channel = ef->chan_parent;
		a->mod[0] &= (uint8_t)~(ENG_M0_CHAN_FLOW | ENG_M0_CHAN_OWN);
		eng_set_chan_parent(a, 0);
	}
	/* A reply entry inserted before the forward one failed was visible: grace period. */
	rc = eng_retire_chan(eng, (uint16_t)ef->chan_flow);
	if (rc < 0)
		eng->st.chan_flow_free_fail++;
	ef->chan_flow = -1;
}

static int
channel_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);

	for (unsigned int d = 0; d < 2; d++)
		f->act[d].channel = eng_channel(eng, ef->chan[d]);
	chan_flow_give(eng, ef);
	/* The local bits of the keys the filter saw, for the stale check. */
	if (f->act[0].flags & FC_ACT_F_NAT)
		for (unsigned int d = 0; d < 2; d++)
			f->act[d].mod[0] |= key_flags(&ef->fkey[d]) &
					    (ENG_M0_FK_SRC_LOCAL | ENG_M0_FK_DST_LOCAL);
	return 0;
}

int
eng_mods_register(struct rule_engine *eng)
{
	static const struct rule_module builtin[] = {
		{.name = "conntrack", .order = RULE_MOD_ORDER_CT, .on_insert = ct_on_insert,
			.on_packet = ct_on_packet},
		{.name = "nat_dst", .order = RULE_MOD_ORDER_NAT_DST,
			.on_insert = nat_dst_on_insert},
		{.name = "route", .order = RULE_MOD_ORDER_ROUTE, .on_insert = mod_route_on_insert},
		{.name = "filter", .order = RULE_MOD_ORDER_FILTER, .on_insert = filter_on_insert},
		{.name = "nat_src", .order = RULE_MOD_ORDER_NAT_SRC,
			.on_insert = nat_src_on_insert},
		{.name = "channel", .order = RULE_MOD_ORDER_CHANNEL,
			.on_insert = channel_on_insert},
	};

	for (unsigned int i = 0; i < RTE_DIM(builtin); i++) {
		struct rule_module m = builtin[i];
		int rc;

		m.priv = eng;
		rc = rule_engine_module_register(eng, &m);
		if (rc < 0)
			return rc;
	}
	return 0;
}
