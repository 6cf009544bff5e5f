/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_module.c — the conntrack module: the state
 * machine of conntrack.c as a struct rule_module of the rules engine (see
 * "The module" in conntrack.h). A connection lives, packed, in
 * fc_action::ct_state of its two entries; everything else it needs comes
 * through struct rule_flow and the engine's services (the RELATED lookup
 * of an ICMP error's quoted packet is rule_engine_flow_lookup_any(): a
 * connection is one per tuple, whatever the ports its entries have).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "conntrack.h"
#include "engine.h"

struct mod_ct_module {
	struct rule_engine *eng;
	struct mod_ct_cfg cfg;
	struct mod_ct_module_stats st; /* written by the rules lcore, read relaxed */
};

/*
 * Mark both entries of connection @p c as not established yet (a TCP
 * handshake, a non-TCP flow without reply) or not: a full table evicts the
 * former first (FC_ACT_F_EARLY).
 */
static void
ct_mark_early(struct rule_flow *f, const struct mod_ct_conn *c)
{
	bool early = c->state == MOD_CT_S_SYN_SENT || c->state == MOD_CT_S_SYN_RECV ||
		c->state == MOD_CT_S_SYN_SENT2 ||
		(c->state == MOD_CT_S_OPEN && !(c->flags & MOD_CT_C_REPLIED));

	for (unsigned int d = 0; d < 2; d++)
		f->act[d].flags = (uint8_t)((f->act[d].flags & ~FC_ACT_F_EARLY) |
			(early ? FC_ACT_F_EARLY : 0));
}

/* The ctstate packets taking the fast path get from an entry; 0 if untracked. */
static unsigned int
ct_entry_ctstate(void *priv, const struct fc_action *a)
{
	struct mod_ct_conn c;

	RTE_SET_USED(priv);
	if (mod_ct_conn_unpack(a->ct_state, &c) < 0 || c.state == MOD_CT_S_NONE)
		return 0;
	return mod_ct_conn_ctstate(&c, (a->flags & FC_ACT_F_REPLY) ? MOD_CT_DIR_REPLY
								   : MOD_CT_DIR_ORIG);
}

/*
 * The status -m conntrack --ctstatus sees: CONFIRMED once the connection
 * has an entry, SEEN_REPLY once a reply came, ASSURED for an established
 * TCP connection (or one closing after it) and for another protocol's
 * that had a reply.
 */
static unsigned int
ct_entry_ctstatus(void *priv, const struct fc_action *a)
{
	struct mod_ct_conn c;
	unsigned int s = RULE_CTS_CONFIRMED;

	RTE_SET_USED(priv);
	if (mod_ct_conn_unpack(a->ct_state, &c) < 0 || c.state == MOD_CT_S_NONE)
		return 0;
	if (c.flags & MOD_CT_C_REPLIED)
		s |= RULE_CTS_SEEN_REPLY;
	if ((c.state >= MOD_CT_S_ESTABLISHED && c.state <= MOD_CT_S_TIME_WAIT) ||
		(c.state == MOD_CT_S_OPEN && (c.flags & MOD_CT_C_REPLIED)))
		s |= RULE_CTS_ASSURED;
	return s;
}

static int
ct_format(void *priv, const struct fc_action *a, char *buf, size_t len)
{
	struct mod_ct_conn c;

	RTE_SET_USED(priv);
	if (mod_ct_conn_unpack(a->ct_state, &c) < 0 || c.state == MOD_CT_S_NONE)
		return 0;
	return mod_ct_conn_format(&c, buf, len);
}

/*
 * Is the quoted packet of an ICMP error part of a tracked connection? The
 * local bits of the quoted packet are unknown: all four are tried, both
 * directions, on any input port (the error's own first). The entry found, and whether the error travels its way (its
 * key is the quoted packet reversed, the usual case), go to the flow for
 * the NAT module.
 */
static unsigned int
icmp_error_state(struct mod_ct_module *ct, struct rule_flow *f)
{
	const struct rule_upcall *up = f->up;
	struct rule_flow_info info;
	struct fc_key in, cand;

	if (up->frame == NULL ||
		mod_ct_icmp_inner_key(up->frame, up->frame_len, &up->pkt, &in) < 0)
		return RULE_CT_INVALID;
	fc_key_set_in_port(&in, up->in_port);
	for (unsigned int fl = 0; fl < 4; fl++) {
		for (unsigned int rev = 0; rev < 2; rev++) {
			fc_key_set_flags(&in, (uint8_t)fl);
			if (rev)
				fc_key_reverse(&in, &cand);
			else
				cand = in;
			if (rule_engine_flow_lookup_any(ct->eng, &cand, &info) == 0 &&
				ct_entry_ctstate(ct, &info.act) != 0) {
				f->related = true;
				f->rel_way = rev != 0;
				f->rel_act = info.act;
				__atomic_store_n(&ct->st.related, ct->st.related + 1,
					__ATOMIC_RELAXED);
				return RULE_CT_RELATED;
			}
		}
	}
	return RULE_CT_INVALID;
}

/*
 * Did the raw table (PREROUTING, OUTPUT) make this packet untracked (-j CT
 * --notrack, -j NOTRACK)? Raw runs before conntrack: it sees INVALID, as in
 * Linux where the packet has no connection yet.
 */
static bool
ct_notrack(struct rule_flow *f)
{
	const struct rule_eval *raw;

	f->ctstate = RULE_CT_NEW; /* tracked so far: raw sees INVALID */
	if (rule_engine_classify_flow(f, RULE_STAGE_RAW, &raw) < 0)
		return false;
	for (unsigned int i = 0; i < raw->n_acts && i < RULE_ACTS_MAX; i++) {
		const struct rule_act *a = &raw->acts[i];

		if (a->action == RULE_ACT_NOTRACK ||
			(a->action == RULE_ACT_CT && a->tgt != NULL && (a->tgt->given & 1)))
			return true;
	}
	return false;
}

static int
ct_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	int rc;

	/* Decided without an entry by the engine (non-first fragments): untracked. */
	if (f->nocache)
		return 0;
	/* NOTRACK: conntrack leaves the flow alone (UNTRACKED to the later tables). */
	if (ct_notrack(f)) {
		f->ctstate = 0;
		f->untracked = true;
		__atomic_store_n(&ct->st.notrack, ct->st.notrack + 1, __ATOMIC_RELAXED);
		return 0;
	}
	f->ctstate = 0;
	if (mod_ct_icmp_is_error(&f->up->pkt)) {
		/* Errors belong to a connection or to none: never cached. */
		f->ctstate = (uint8_t)icmp_error_state(ct, f);
		f->untracked = true;
		f->nocache = true;
		return 0;
	}
	rc = mod_ct_new(&ct->cfg, &f->up->pkt, &c, &v);
	if (rc < 0)
		return rc;
	f->ctstate = v.ctstate;
	if (!(v.flags & MOD_CT_VF_CREATED)) {
		f->untracked = true;
		/* INVALID: a later packet may still open a connection. */
		if (v.ctstate == RULE_CT_INVALID)
			f->nocache = true;
		return 0;
	}
	for (unsigned int d = 0; d < 2; d++) {
		f->act[d].ct_state = mod_ct_conn_pack(&c);
		f->act[d].interest |= v.interest[d];
	}
	ct_mark_early(f, &c);
	f->timeout = v.timeout;
	f->want_reply = true;
	/* The reply entry's cached verdict: replies of a connection are ESTABLISHED. */
	f->reply_ctstate = (uint8_t)mod_ct_conn_ctstate(&c, MOD_CT_DIR_REPLY);
	return 0;
}

static int
ct_on_packet(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	int rc;

	if (mod_ct_conn_unpack(f->act[f->dir].ct_state, &c) < 0 || c.state == MOD_CT_S_NONE)
		return 0;
	rc = mod_ct_packet(&ct->cfg, &c, f->dir, &f->up->pkt, &v);
	if (rc < 0)
		return rc;
	f->ctstate = v.ctstate;
	if (v.flags & MOD_CT_VF_REOPEN) {
		f->reopen = true;
		f->remove = true;
		return 0;
	}
	if (v.flags & MOD_CT_VF_CHANGED) {
		for (unsigned int d = 0; d < 2; d++) {
			f->act[d].ct_state = mod_ct_conn_pack(&c);
			f->act[d].interest = v.interest[d] | f->interest_kept[d];
		}
		ct_mark_early(f, &c);
		f->timeout = v.timeout;
		f->store = true;
	}
	if (v.flags & MOD_CT_VF_CTSTATE)
		f->refilter = true;
	return 0;
}

struct mod_ct_module *
mod_ct_module_create(struct rule_engine *eng, const struct mod_ct_module_params *p)
{
	struct mod_ct_module *ct;
	struct rule_module m;
	int rc;

	if (eng == NULL || p == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	ct = calloc(1, sizeof(*ct));
	if (ct == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ct->eng = eng;
	ct->cfg = p->cfg;
	if (ct->cfg.timeout[0] == 0) {
		mod_ct_cfg_init(&ct->cfg);
		ct->cfg.tcp_strict = p->cfg.tcp_strict;
	}
	rc = mod_ct_cfg_check(&ct->cfg);
	if (rc == 0) {
		memset(&m, 0, sizeof(m));
		m.name = "conntrack";
		m.order = RULE_MOD_ORDER_CT;
		m.flags = RULE_MOD_F_OWN_INTEREST;
		m.on_insert = ct_on_insert;
		m.on_packet = ct_on_packet;
		m.entry_ctstate = ct_entry_ctstate;
		m.entry_ctstatus = ct_entry_ctstatus;
		m.ct_format = ct_format;
		m.priv = ct;
		rc = rule_engine_module_register(eng, &m);
	}
	if (rc < 0) {
		free(ct);
		rte_errno = -rc;
		return NULL;
	}
	return ct;
}

void
mod_ct_module_free(struct mod_ct_module *ct)
{
	free(ct);
}

void
mod_ct_module_stats_get(const struct mod_ct_module *ct, struct mod_ct_module_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (ct == NULL)
		return;
	st->related = __atomic_load_n(&ct->st.related, __ATOMIC_RELAXED);
	st->notrack = __atomic_load_n(&ct->st.notrack, __ATOMIC_RELAXED);
}
