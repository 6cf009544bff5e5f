/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the module registry's calls that are not per upcall step
 * (on_abort, the entries' ctstate), the rule stages' walks of a packet
 * (eng_pkt_stage(), eng_pkt_verdict()) and the two built-in stages, what a
 * rule set means: filter (order RULE_MOD_ORDER_FILTER, engine_filter.c) and
 * channel (RULE_MOD_ORDER_CHANNEL: names -> ids through the application's
 * callback; a flow accepted into a per-flow channel gets a ring of its
 * own, which both directions share when they name the same channel:
 * engine_chanflow.c).
 * Conntrack, NAT and route are modules of their own (lib/modules), and
 * reach the flow only through struct rule_flow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_random.h>

#include "engine_priv.h"

/* ------------------------------------------------------------------------ */
/* Registry                                                                  */
/* ------------------------------------------------------------------------ */

unsigned int
eng_entry_ctstate(const struct rule_engine *eng, const struct fc_action *a)
{
	/* Decided ahead of its connection's record, for its first reply. */
	if (unlikely(a->flags & FC_ACT_F_AHEAD))
		return RULE_CT_ESTABLISHED;
	return eng_conn_ctstate(eng, a);
}

unsigned int
eng_conn_ctstate(const struct rule_engine *eng, const struct fc_action *a)
{
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;
		unsigned int cs;

		if (m->entry_ctstate != NULL && (cs = m->entry_ctstate(m->priv, a)) != 0)
			return cs;
	}
	return 0;
}

/* The status of an entry's connection (RULE_CTS_*), as the modules know it. */
unsigned int
eng_entry_ctstatus(const struct rule_engine *eng, const struct fc_action *a)
{
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;
		unsigned int s;

		if (m->entry_ctstatus != NULL && (s = m->entry_ctstatus(m->priv, a)) != 0)
			return s;
	}
	return 0;
}

bool
eng_entry_closed(const struct rule_engine *eng, const struct fc_action *a)
{
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->entry_closed != NULL && m->entry_closed(m->priv, a))
			return true;
	}
	return false;
}

/* The idle timeout in force for entry action @p a, stored with @p timeout. */
uint32_t
eng_entry_timeout(const struct rule_engine *eng, const struct fc_action *a, uint32_t timeout)
{
	for (unsigned int i = 0; i < eng->n_to_mods; i++) {
		const struct rule_module *m = &eng->mods[eng->to_mods[i]].m;

		timeout = m->entry_timeout(m->priv, a, timeout);
	}
	return timeout;
}

/* The helper -m helper sees for an entry's connection (its master's), "" if none. */
static void
eng_entry_helper(const struct rule_engine *eng, const struct fc_action *a, char *name, size_t len)
{
	name[0] = '\0';
	for (unsigned int i = 0; i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;
		const char *h;

		if (m->entry_helper != NULL && (h = m->entry_helper(m->priv, a)) != NULL &&
			h[0] != '\0') {
			snprintf(name, len, "%s", h);
			return;
		}
	}
}

/* The flow gets no entry: the modules that saw it release what they took. */
void
eng_abort(struct rule_engine *eng, struct eng_flow *ef)
{
	for (unsigned int i = 0; i < ef->n_ran && i < eng->n_mods; i++) {
		const struct rule_module *m = &eng->mods[i].m;

		if (m->on_abort != NULL)
			m->on_abort(m->priv, &ef->f);
	}
	ef->n_ran = 0;
	eng_chan_flow_undo(eng, ef);
}

/* ------------------------------------------------------------------------ */
/* Rule stages                                                               */
/* ------------------------------------------------------------------------ */

/*
 * A context for packet @p up: the parsed packet's fields, and only what
 * the set's rules read of the rest (eng_pkt_needs()): the frame's header
 * fields, a random number, the clock.
 */
void
eng_pkt_start(const struct rule_engine *eng, const struct rule_upcall *up, unsigned int ctstate,
	struct rule_pkt *p)
{
	uint32_t needs = eng_pkt_needs(eng);

	rule_pkt_init(
		p, &up->pkt.key, ctstate, up->pkt.frag == FC_FRAG_LATER ? RULE_KEY_F_NOPORTS : 0);
	p->in_port = fc_key_in_port(&up->pkt.key);
	p->tcp_flags = up->pkt.tcp_flags;
	p->icmp_type = up->pkt.icmp_type;
	p->icmp_code = up->pkt.icmp_code;
	p->l3_len = up->pkt.ip_len;
	if (up->frame != NULL && (needs & RULE_PKT_NEED_FRAME))
		(void)rule_pkt_parse(p, up->frame, up->frame_len, up->pkt.l3_off,
			up->pkt.frag == FC_FRAG_LATER ? 0 : up->pkt.l4_off);
	else if (eng->router && !eng_up_ttl(up, &p->ttl))
		p->ttl = 64; /* the router's expiry check reads it (the slow path's: dp_l3_slow()) */
	if (needs & RULE_PKT_NEED_RAND)
		p->rand = (uint32_t)rte_rand();
	if (needs & RULE_PKT_NEED_TIME)
		p->time_s = (uint64_t)time(NULL);
}

/*
 * What a walk of @p stage would say where nothing there is worth walking
 * (eng_stage_walks()) for a key of @p family with local bits @p lbits and
 * ctstate @p cs: accept, and the chains it would enter (empty, accepting)
 * each left by its end: their policies count the packet (noted, or the
 * stage's decision).
 */
void
eng_stage_skip(const struct rule_engine *eng, unsigned int stage, unsigned int lbits,
	unsigned int cs, unsigned int family, struct rule_eval *res)
{
	struct rule_step steps[RULE_STEPS_MAX];
	unsigned int primary;
	int n;

	rule_eval_init(res);
	/* No step enters a chain: nothing to merge. */
	if (!((eng->stage_touch[stage] >> eng_stage_bit(lbits, cs)) & 1))
		return;
	primary = rule_stage_table(stage);
	n = rule_stage_steps(stage, lbits, cs, steps);
	for (int i = 0; i < n; i++)
		if (eng->hooks_used[steps[i].table] & RULE_HOOK_F(steps[i].hook))
			(void)rule_eval_merge(res, primary, steps[i].table, steps[i].hook, family,
				true, NULL, RULE_POLICY_ACCEPT);
}

/*
 * Run @p stage on @p p with key @p k: raw sees the state before conntrack
 * (INVALID; a NOTRACK there makes the packet UNTRACKED for the rest).
 */
int
eng_pkt_stage(struct rule_engine *eng, unsigned int stage, struct rule_pkt *p,
	const struct fc_key *k, uint16_t out_port, unsigned int ctstate, struct eng_pv *pv,
	struct rule_eval *res)
{
	p->key = *k;
	p->out_port = out_port;
	/*
	 * A router's forwarded packet: FORWARD and POSTROUTING see its TTL
	 * decremented; an expired one never gets there (the router's time
	 * exceeded: no rule, accept, decided by its TTL).
	 */
	if (eng->router && stage >= RULE_STAGE_FILTER &&
		!(fc_key_flags(k) & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) &&
		rule_pkt_route_dec(p)) {
		rule_eval_init(res);
		res->deps = RULE_DEP_TTL;
		return 0;
	}
	if (stage == RULE_STAGE_RAW)
		p->ctstate = ctstate != 0 ? RULE_CT_INVALID : 0;
	else if (!(p->ctstate & RULE_CT_UNTRACKED))
		p->ctstate = (uint8_t)ctstate;
	/* Nothing worth walking at the stage's hooks: what a walk would say. */
	if (!eng_stage_walks(eng, stage, fc_key_flags(k), p->ctstate)) {
		eng_stage_skip(eng, stage, fc_key_flags(k), p->ctstate, k->family, res);
		return 0;
	}
	return rule_engine_classify(
		eng, (enum rule_stage)stage, p, pv != NULL ? &pv->pv : NULL, res);
}

/* The stage whose result is the verdict: the first that dropped, else filter. */
unsigned int
eng_decider(const struct rule_eval ev[], unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ev[i].verdict != RULE_VERDICT_ACCEPT)
			return i;
	return RULE_STAGE_FILTER;
}

/* ctstate with DNAT for a connection whose destination the filter saw translated. */
static unsigned int
ct_nat_bits(unsigned int ctstate, const struct fc_key *k, const struct fc_key *fk)
{
	if (ctstate == 0 || ctstate == RULE_CT_IGNORE)
		return ctstate;
	if (memcmp(fc_key_dst(k), fc_key_dst(fk), fc_af_addr_len(k->family)) != 0 ||
		fc_key_dport(k) != fc_key_dport(fk))
		ctstate |= RULE_CT_DNAT;
	return ctstate;
}

/* The context of eng_pkt_verdict(), built when a stage first has something to walk. */
static void
pkt_verdict_start(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_action *a, unsigned int ctstate, const struct eng_marks *mk,
	struct rule_pkt *p)
{
	if (up != NULL) {
		eng_pkt_start(eng, up, ctstate, p);
	} else {
		rule_pkt_init(p, k, ctstate, 0);
		p->in_port = fc_key_in_port(k);
		eng_pkt_synth(p, &eng->synth); /* a stand-in's (eng_refilter()) */
	}
	p->ctdir = (a->flags & FC_ACT_F_REPLY) ? RULE_CTDIR_REPLY : RULE_CTDIR_ORIGINAL;
	if (!(a->flags & FC_ACT_F_REPLY))
		p->ct_orig = *k;
	p->mark = 0;
	p->ctmark = mk->ctmark;
	/* A cached flow's connection is confirmed (the first packet's was not yet). */
	p->ctstatus = (uint8_t)eng_entry_ctstatus(eng, a);
	eng_entry_helper(eng, a, p->ct_helper, sizeof(p->ct_helper));
	p->ct_expire = p->ctstatus != 0 ? mk->ct_expire : 0;
	for (unsigned int i = 0; i < 2; i++) {
		p->ct_packets[i] = mk->ct_packets[i];
		p->ct_bytes[i] = mk->ct_bytes[i];
	}
	/* A reply's connection: its original tuple is the reply reversed (without NAT). */
	if (p->ctstatus != 0 && (a->flags & FC_ACT_F_REPLY)) {
		p->ct_repl = *k;
		if (!(a->flags & FC_ACT_F_NAT))
			fc_key_reverse(k, &p->ct_orig);
	}
}

static uint64_t
less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Entry @p idx's (direction @p own) and @p peer's counts less what conntrack ignored. */
static void
conn_less_ignored(const struct rule_engine *eng, unsigned int ti, uint32_t idx, unsigned int own,
	uint32_t peer, struct eng_marks *mk)
{
	uint64_t p, b;

	eng_ign_get(eng, ti, idx, &p, &b);
	mk->ct_packets[own] = less(mk->ct_packets[own], p);
	mk->ct_bytes[own] = less(mk->ct_bytes[own], b);
	if (peer == FC_INDEX_NONE)
		return;
	eng_ign_get(eng, ti, peer, &p, &b);
	mk->ct_packets[own ^ 1] = less(mk->ct_packets[own ^ 1], p);
	mk->ct_bytes[own ^ 1] = less(mk->ct_bytes[own ^ 1], b);
}

void
eng_conn_counts(const struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *a, const struct rule_upcall *up, struct eng_marks *mk)
{
	unsigned int own = (a->flags & FC_ACT_F_REPLY) ? RULE_CTDIR_REPLY : RULE_CTDIR_ORIGINAL;
	const struct fc_entry *e = fc_table_entry(eng->t[ti], idx);
	uint32_t peer = eng_peer(eng, ti, idx);
	const struct fc_entry *pe = peer != FC_INDEX_NONE ? fc_table_entry(eng->t[ti], peer) : NULL;

	memset(mk->ct_packets, 0, sizeof(mk->ct_packets));
	memset(mk->ct_bytes, 0, sizeof(mk->ct_bytes));
	if (e != NULL) {
		fc_table_counters(eng->t[ti], idx, &mk->ct_packets[own], &mk->ct_bytes[own]);
	}
	if (pe != NULL && eng_peer(eng, ti, peer) == idx) {
		fc_table_counters(eng->t[ti], peer, &mk->ct_packets[own ^ 1],
			&mk->ct_bytes[own ^ 1]);
	}
	/* Less what conntrack ignored: the rules count it, the connection not. */
	if (eng->view.ct_ignored[ti] != NULL)
		conn_less_ignored(eng, ti, idx, own,
			pe != NULL && eng_peer(eng, ti, peer) == idx ? peer : FC_INDEX_NONE, mk);
	/* The packet being decided is one of those: the connection's without it. */
	if (eng->cb_pend.ignored)
		return;
	if (up != NULL) {
		mk->ct_packets[own]++;
		mk->ct_bytes[own] += up->pkt.ip_len;
	} else if (eng->cb_pend.on && eng->cb_pend.ti == ti &&
		   (eng->cb_pend.idx == idx || eng->cb_pend.idx == peer)) {
		/* The packet being decided (eng_cb_redecide()): its entry counts it next. */
		unsigned int d = eng->cb_pend.idx == idx ? own : own ^ 1;

		mk->ct_packets[d]++;
		mk->ct_bytes[d] += eng->cb_pend.ip_len;
	}
}

void
eng_pkt_verdict_in(struct rule_engine *eng, const struct fc_key *k, const struct fc_key *fk,
	const struct fc_action *a, unsigned int ctstate, const struct eng_marks *mk,
	struct eng_walk_in *in)
{
	eng_walk_in_rest(in);
	pkt_verdict_start(eng, NULL, k, a, ctstate, mk, &in->p); /* rule_pkt_init() clears it */
	in->fk = *fk;
	in->a = *a;
	in->a.nat_id = 0;
	in->a.ext = 0;
	in->a.gen = 0;
	in->out = eng_out_port_of(eng, a->out_port, fc_key_in_port(k));
	in->cs = (uint8_t)ct_nat_bits(ctstate, k, fk);
	in->l3v = eng_l3_view_needed(eng, k, fk);
}

/*
 * Every stage for one packet of a cached flow (@p a its entry, @p fk the
 * key its filter saw), or for an entry's key alone (@p up NULL: no
 * per-packet fields; the input port is the key's). Nat steps follow the
 * ctstate (rule_stage_steps()); their decisions are not used here.
 */
int
eng_pkt_verdict(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, const struct fc_action *a, unsigned int ctstate,
	struct rule_eval ev[RULE_STAGE__COUNT], unsigned int *decider, uint32_t *deps,
	struct eng_marks *mk, struct eng_pv *pv)
{
	uint16_t in = fc_key_in_port(k); /* the entry's (the packet's) input port */
	uint16_t out = eng_out_port_of(eng, a->out_port, in);
	unsigned int n = 0, cs = ct_nat_bits(ctstate, k, fk);
	bool built = false, viewed = false;
	struct rule_pkt p;
	uint32_t vlen = 0;
	int rc;

	*deps = 0;
	for (unsigned int s = 0; s < RULE_STAGE__COUNT; s++) {
		bool pre = s < RULE_STAGE_FILTER;
		const struct fc_key *sk = pre ? k : fk;
		unsigned int scs = pre ? ctstate : cs;

		/* Stages before the first with something to walk need no context. */
		if (!built) {
			if (!eng_stage_walks(eng, s, fc_key_flags(sk), eng_stage_ctstate(s, scs))) {
				eng_stage_skip(eng, s, fc_key_flags(sk), eng_stage_ctstate(s, scs), k->family,
					&ev[s]);
				n = s + 1;
				continue;
			}
			pkt_verdict_start(eng, up, k, a, ctstate, mk, &p);
			built = true;
		}
		/* From FORWARD, INPUT, POSTROUTING on: the bytes as Linux has them there. */
		if (!pre && !viewed && built) {
			const uint8_t *v = p.l3 != NULL ? eng_l3_view(eng, up, k, fk, &vlen) : NULL;

			viewed = true;
			if (v != NULL) {
				p.l3 = v;
				p.l3_cap = vlen;
			}
			if (eng_l3_view_needed(eng, k, fk))
				p.flags |= RULE_PKT_F_L3VIEW;
		}
		rc = eng_pkt_stage(eng, s, &p, sk, pre ? RULE_IF_NONE : out, scs, pv, &ev[s]);
		if (rc < 0)
			return rc;
		*deps |= ev[s].deps;
		n = s + 1;
		if (ev[s].verdict != RULE_VERDICT_ACCEPT)
			break;
	}
	*decider = eng_decider(ev, n);
	/* Without a walk the packet keeps mark 0 and its connection's mark. */
	mk->mark = built ? p.mark : 0;
	if (built)
		mk->ctmark = p.ctmark;
	return 0;
}

unsigned int
eng_walked(const struct rule_eval ev[], unsigned int decider)
{
	return ev[decider].verdict != RULE_VERDICT_ACCEPT ? decider + 1 : RULE_STAGE__COUNT;
}

/* ------------------------------------------------------------------------ */
/* Channel                                                                   */
/* ------------------------------------------------------------------------ */

int
eng_mods_register(struct rule_engine *eng)
{
	static const struct rule_module builtin[] = {
		{.name = "filter", .order = RULE_MOD_ORDER_FILTER, .on_insert = eng_filter_on_insert},
		{.name = "channel", .order = RULE_MOD_ORDER_CHANNEL,
			.on_insert = eng_channel_on_insert},
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
