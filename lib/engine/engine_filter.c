/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the built-in filter stage (order RULE_MOD_ORDER_FILTER, made
 * a module by eng_mods_register()): what a rule set means for a new flow,
 * the packet's ctstate -> verdict, rule, channel name, for both
 * directions, on the key as the filter sees it (the original source, the
 * destination as translated); the modules' classification service
 * (rule_engine_classify_flow(), rule_engine_flow_mark()); a new flow's
 * walks through the classification cache's walk memo.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>

#include "engine_priv.h"

/* The source's local bits: this host's own packet, or a forged local source. */
#define ENG_SRC_BITS (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED)

/* What the filter sees: the original source, the translated destination. */
static void
flow_fkey(struct rule_flow *f)
{
	f->fkey[RULE_DIR_ORIG] = f->xkey;
	if (f->xkey.family == FC_AF_INET4) {
		f->fkey[0].v4.src = f->key.v4.src;
		f->fkey[0].v4.sport = f->key.v4.sport;
		f->fkey[0].v4.flags = (uint8_t)((f->xkey.v4.flags & FC_KEY_F_DST_LOCAL) |
						(f->key.v4.flags & ENG_SRC_BITS));
	} else {
		memcpy(f->fkey[0].v6.src, f->key.v6.src, 16);
		f->fkey[0].v6.sport = f->key.v6.sport;
		f->fkey[0].v6.flags = (uint8_t)((f->xkey.v6.flags & FC_KEY_F_DST_LOCAL) |
						(f->key.v6.flags & ENG_SRC_BITS));
	}
	/* Ports: the packet's own; the reply's, where the replies will arrive. */
	fc_key_set_in_port(&f->fkey[0], fc_key_in_port(&f->key));
	fc_key_reverse(&f->fkey[0], &f->fkey[1]);
	fc_key_set_in_port(&f->fkey[1], rule_engine_out_port(f->eng, f->act[RULE_DIR_ORIG].out_port,
						fc_key_in_port(&f->key)));
}

/*
 * A nat rule, or a nat chain's policy, counts the connections it decides
 * (first packets), as Linux; so do the nat rules passed. Only if the
 * packet got there: no stage before @p s dropped it (the filter walks
 * the source stage of a dropped flow too: a later table may drop), but
 * a packet from this host to itself dropped back in through lo (raw or
 * mangle PREROUTING, INPUT) passed nat POSTROUTING before.
 */
static void
nat_count(struct rule_engine *eng, const struct eng_flow *ef, unsigned int s, unsigned int family)
{
	/* As the filter sees it: a REDIRECT from this host is to this host. */
	uint8_t lb = (uint8_t)((fc_key_flags(&ef->f.key) & FC_KEY_F_SRC_LOCAL) |
			       (fc_key_flags(&ef->f.xkey) & FC_KEY_F_DST_LOCAL));
	const struct rule_eval *ev = &ef->ev[s];

	/* A stage with no nat rule, action or note (no nat chain entered) counts none. */
	if ((s != RULE_STAGE_DST && s != RULE_STAGE_SRC) ||
		(ev->nat_rule_id == RULE_ID_NONE && ev->n_acts == 0 && ev->n_notes == 0))
		return;
	for (unsigned int i = 0; i < s; i++) {
		const struct rule_eval *e = &ef->ev[i];

		/* From this host to itself: nat POSTROUTING came before lo and INPUT. */
		if (i == RULE_STAGE_FILTER && s == RULE_STAGE_SRC &&
			lb == (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL) &&
			(e->hook == RULE_HOOK_PREROUTING || e->hook == RULE_HOOK_INPUT))
			continue;
		if (e->verdict != RULE_VERDICT_ACCEPT)
			return;
	}
	eng_count_nat_walk(eng, ev, family, ef->f.up->len);
}

int
rule_engine_classify_flow(struct rule_flow *f, enum rule_stage stage, const struct rule_eval **res)
{
	struct eng_flow *ef;
	struct rule_engine *eng;
	uint16_t fk_out;
	bool fk_done;

	if (f == NULL || res == NULL || (unsigned int)stage >= RULE_STAGE__COUNT || f->up == NULL)
		return -EINVAL;
	ef = eng_flow_of(f);
	eng = f->eng;
	fk_done = false;
	fk_out = RULE_IF_NONE;
	/* Before its first stage: what the walk memo holds its walk to (filter_on_insert()). */
	if (ef->stages == 0)
		ef->unkept0 = eng_walk_unkept(eng);
	for (unsigned int s = 0; s <= (unsigned int)stage; s++) {
		const struct fc_key *k = &f->key;
		uint16_t out = RULE_IF_NONE;
		unsigned int cs = f->ctstate;
		int rc;

		if (ef->stages & (1u << s))
			continue;
		if (s >= RULE_STAGE_FILTER) {
			/* Once per call: no module runs between this call's stages. */
			if (!fk_done) {
				flow_fkey(f);
				fk_out = eng_out_port_of(eng, f->act[0].out_port, fc_key_in_port(&f->key));
				fk_done = true;
			}
			k = s == RULE_STAGE_FILTER ? &f->fkey[0] : &f->xkey;
			out = fk_out;
			if (f->xdst && cs != 0)
				cs |= RULE_CT_DNAT;
		}
		/* The packet's context from the first stage with something to walk on. */
		if (!ef->pkt_built) {
			if (!eng_stage_walks(eng, s, fc_key_flags(k), eng_stage_ctstate(s, cs))) {
				eng_stage_skip(eng, s, fc_key_flags(k), eng_stage_ctstate(s, cs), k->family,
					&ef->ev[s]);
				ef->stages |= (uint8_t)(1u << s);
				nat_count(eng, ef, s, k->family);
				continue;
			}
			eng_pkt_start(eng, f->up, f->ctstate, &ef->pkt);
			ef->pkt.ctdir = RULE_CTDIR_ORIGINAL;
			ef->pkt_built = true;
		}
		/*
		 * After conntrack: what a helper's expectation made of the
		 * connection, and its counters, which have counted this first
		 * packet (connbytes: Linux's accounting runs with conntrack,
		 * before mangle and nat PREROUTING or OUTPUT).
		 */
		if (s != RULE_STAGE_RAW) {
			ef->pkt.ctstatus = f->ctstatus;
			memcpy(ef->pkt.ct_helper, f->ct_helper, sizeof(ef->pkt.ct_helper));
			ef->pkt.ct_packets[RULE_CTDIR_ORIGINAL] = 1;
			ef->pkt.ct_bytes[RULE_CTDIR_ORIGINAL] = f->up->pkt.ip_len;
		}
		/* Before NAT: the connection's tuples as conntrack made them (no NAT yet). */
		if (s == RULE_STAGE_DST && !f->untracked && f->ctstate != 0) {
			ef->pkt.ct_orig = f->key;
			fc_key_reverse(&f->key, &ef->pkt.ct_repl);
		}
		if (s >= RULE_STAGE_FILTER) {
			ef->pkt.ct_orig = f->key;
			ef->pkt.ct_repl = f->reply_key;
			/* --ctexpire: a new connection's whole timeout (conntrack set it). */
			ef->pkt.ct_expire =
				f->untracked || f->ctstate == 0 ? 0 : (f->timeout + 999) / 1000;
		}
		/* From FORWARD, INPUT, POSTROUTING on: the bytes as Linux has them there. */
		if (s >= RULE_STAGE_FILTER) {
			uint32_t vlen = 0;
			const uint8_t *v = ef->pkt.l3 != NULL ?
				eng_l3_view(eng, f->up, &f->key, &f->fkey[0], &vlen) : NULL;

			if (v != NULL) {
				ef->pkt.l3 = v;
				ef->pkt.l3_cap = vlen;
			}
			if (eng_l3_view_needed(eng, &f->key, &f->fkey[0]))
				ef->pkt.flags |= RULE_PKT_F_L3VIEW;
		}
		rc = eng_pkt_stage(eng, s, &ef->pkt, k, out, cs, &ef->pv, &ef->ev[s]);
		if (rc < 0)
			return rc;
		ef->stages |= (uint8_t)(1u << s);
		nat_count(eng, ef, s, f->key.family);
	}
	*res = &ef->ev[stage];
	return 0;
}

int
rule_engine_flow_mark(struct rule_flow *f, unsigned int dir, uint32_t *mark)
{
	const struct rule_eval *res;
	struct eng_flow *ef;
	int rc;

	if (f == NULL || mark == NULL || dir > RULE_DIR_REPLY)
		return -EINVAL;
	ef = eng_flow_of(f);
	if (dir == RULE_DIR_REPLY) {
		*mark = ef->mark[1];
		return 0;
	}
	if (ef->walked) {
		*mark = ef->mark[0];
		return 0;
	}
	rc = rule_engine_classify_flow(f, RULE_STAGE_DST, &res);
	if (rc < 0)
		return rc;
	*mark = ef->pkt_built ? ef->pkt.mark : 0;
	return 0;
}

/* A channel name (RULE_NAME_MAX with its NUL) into @p dst, of the same size. */
static inline void
chan_name_copy(char dst[RULE_NAME_MAX], const char *src)
{
	size_t n = strnlen(src, RULE_NAME_MAX - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* What the walks of a reply start from (reply_walk()). */
struct reply_ctx {
	struct rule_engine *eng;
	struct rule_flow *f;
	const struct rule_pktfields *sf;
	struct rule_pkt p;
	bool built;
};

/* The context a reply's walk starts from (reply_walk()), arriving on @p in. */
static void
reply_pkt_init(struct rule_flow *f, uint16_t in, const struct rule_pktfields *sf,
	struct rule_pkt *p)
{
	rule_pkt_init(p, &f->reply_key, f->reply_ctstate, f->kflags);
	p->in_port = in;
	p->ctdir = RULE_CTDIR_REPLY;
	/* A reply starts with mark 0 and the connection's mark as the forward walk left it. */
	p->ctmark = eng_flow_of(f)->ctmark;
	p->ct_orig = f->key;
	p->ct_repl = f->reply_key;
	p->ct_packets[RULE_CTDIR_ORIGINAL] = 1;
	p->ct_bytes[RULE_CTDIR_ORIGINAL] = f->up->pkt.ip_len;
	memcpy(p->ct_helper, f->ct_helper, sizeof(p->ct_helper));
	eng_pkt_synth(p, sf);
}

/*
 * The reply's walk through the stages, its packets' ctstate (a tracker's),
 * arriving where the flow leaves and leaving where it came in; stateful
 * matches ask @p pv (NULL: they answer as right after loading).
 */
static int
reply_walk(struct reply_ctx *c, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT],
	unsigned int *d, uint32_t *deps)
{
	struct rule_engine *eng = c->eng;
	struct rule_flow *f = c->f;
	uint16_t fwd_out = eng_out_port_of(eng, f->act[0].out_port, fc_key_in_port(&f->key));
	unsigned int cs = f->reply_ctstate, n = 0;
	struct rule_pkt *p = &c->p;
	int rc;

	c->built = false;
	*deps = 0;
	for (unsigned int s = 0; s < RULE_STAGE__COUNT; s++) {
		bool pre = s < RULE_STAGE_FILTER;
		const struct fc_key *k = pre ? &f->reply_key : &f->fkey[1];

		/* A context from the first stage with something to walk on. */
		if (!c->built) {
			if (!eng_stage_walks(eng, s, fc_key_flags(k), eng_stage_ctstate(s, cs))) {
				eng_stage_skip(eng, s, fc_key_flags(k), eng_stage_ctstate(s, cs), k->family,
					&ev[s]);
				n = s + 1;
				continue;
			}
			reply_pkt_init(f, fwd_out, c->sf, p);
			c->built = true;
		}
		rc = eng_pkt_stage(eng, s, p, k, pre ? RULE_IF_NONE : fc_key_in_port(&f->key), cs,
			pv, &ev[s]);
		if (rc < 0)
			return rc;
		*deps |= ev[s].deps;
		n = s + 1;
		if (ev[s].verdict != RULE_VERDICT_ACCEPT)
			break;
	}
	*d = eng_decider(ev, n);
	return 0;
}

/* reply_walk() as eng_meter_decide_walk() asks it. */
static int
reply_walk_pv(void *arg, struct eng_pv *pv, struct rule_eval ev[RULE_STAGE__COUNT],
	unsigned int *d, uint32_t *deps, struct eng_marks *mk)
{
	struct reply_ctx *c = arg;
	int rc = reply_walk(c, pv, ev, d, deps);

	mk->mark = c->built ? c->p.mark : 0;
	mk->ctmark = c->built ? c->p.ctmark : eng_flow_of(c->f)->ctmark;
	return rc;
}

/*
 * A new flow's action @p a as the walk memo's @p wo made it: the walk's,
 * with what is the connection's own (its NAT slot, record) kept.
 */
static void
memo_act(struct fc_action *a, const struct eng_walk_out *wo)
{
	uint32_t nat_id = a->nat_id, ext = a->ext;

	*a = wo->a;
	a->nat_id = nat_id;
	a->ext = ext;
}

/*
 * The walk memo's key for a new flow's reply walk (reply_verdict()):
 * the context it starts from (with the stand-in's fields @p sf, made up
 * @p unknown, @p guess), the key its filter stage on sees, where it
 * leaves, its ctstate, the entry's action less its own.
 */
static void
reply_walk_in(struct rule_engine *eng, struct rule_flow *f, const struct rule_pktfields *sf,
	unsigned int unknown, bool guess, struct eng_walk_in *in)
{
	eng_walk_in_rest(in);
	/* The context: rule_pkt_init() clears it. */
	reply_pkt_init(f, eng_out_port_of(eng, f->act[0].out_port, fc_key_in_port(&f->key)), sf,
		&in->p);
	in->fk = f->fkey[1];
	in->a = f->act[1];
	in->a.nat_id = 0;
	in->a.ext = 0;
	in->a.gen = 0;
	in->unknown = unknown;
	in->guess = guess;
	in->out = fc_key_in_port(&f->key);
	in->cs = f->reply_ctstate;
	in->kind = ENG_WALK_NEW_REPLY;
}

/*
 * The reply entry's cached verdict (reply_walk()). Per-packet dependencies
 * make it FC_VERDICT_SLOW, but meters the reply passes without their
 * answer counting (a port match written after them refuses it): those
 * each reply charges on the fast path.
 */
static int
reply_verdict(struct rule_engine *eng, struct rule_flow *f)
{
	struct rule_eval ev[RULE_STAGE__COUNT];
	unsigned int d;
	bool guess;
	uint32_t deps = 0;
	struct rule_pktfields sf;
	/* A stand-in's fields (ACK, no MSS option): the class of the reply's ordinary segments. */
	unsigned int unknown = eng_pktclass_rep(eng, &f->reply_key, &f->act[1], &sf, &guess);
	struct reply_ctx c = {.eng = eng, .f = f, .sf = &sf};
	struct eng_walkm_probe pr = {.slot = UINT32_MAX};
	const struct eng_walk_out *wo;
	struct eng_walk_out *o;
	struct eng_walk_in win;
	uint32_t pd0;
	int prog;
	int rc;

	/* The walk kept whole (an earlier connection's reply that started so): what it made. */
	if (eng_walkm_on(eng)) {
		reply_walk_in(eng, f, &sf, unknown, guess, &win);
		if (eng_walkm_find(eng, &win, &wo, &pr)) {
			memo_act(&f->act[1], wo);
			eng_flow_of(f)->trace[1] = wo->trace;
			eng_flow_of(f)->mark[1] = wo->mark;
			eng_flow_of(f)->ctmark = wo->ctmark;
			chan_name_copy(f->chan[1], wo->channel);
			return 0;
		}
	}
	rc = reply_walk(&c, NULL, ev, &d, &deps);
	if (rc < 0)
		return rc;
	pd0 = ENG_DEPS_PER_PACKET(deps);
	f->act[1].rule_id = eng_dec_id(&ev[d], f->key.family);
	f->act[1].verdict =
		ev[d].verdict == RULE_VERDICT_ACCEPT ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
	/* The counters alone: cached up to the counts where it may change (connbytes). */
	if (ENG_DEPS_PER_PACKET(deps) == RULE_DEP_CONNBYTES &&
		eng_cb_ready(eng, (unsigned int)eng_tbl(f->key.family))) {
		f->act[1].flags |= FC_ACT_F_COUNT;
		deps = 0;
	}
	deps = ENG_DEPS_PER_PACKET(deps);
	eng_pktclass_clear(&f->act[1]);
	prog = !(deps & ~ENG_PC_DEPS) ? eng_prog_of_walk(eng, ev, eng_walked(ev, d)) : 0;
	/* Meters only charged: a program that takes their tokens (with the walk's actions). */
	if ((deps & RULE_DEP_METER) && !(deps & ~(RULE_DEP_METER | ENG_PC_DEPS))) {
		struct reply_ctx mc = {.eng = eng, .f = f, .sf = &sf};
		struct fc_action m = f->act[1];

		if (eng_meter_decide_walk(eng, reply_walk_pv, &mc, f->key.family, &m, true) == 1 &&
			m.verdict == f->act[1].verdict && (m.flags & FC_ACT_F_PKTACT)) {
			prog = m.pkt_class;
			deps &= ~RULE_DEP_METER;
		}
	}
	/* Header fields alone: cached for their class (with the walk's program, in it). */
	eng_act_prog(&f->act[1], prog);
	if (deps != 0)
		deps = eng_pktclass_take(eng, &f->reply_key, &f->act[1], deps, &sf, unknown, guess);
	if (deps != 0) {
		eng_act_prog(&f->act[1], 0);
		f->act[1].verdict = FC_VERDICT_SLOW;
	}
	eng_flow_of(f)->trace[1] = eng_trace_of_walk(eng, ev, d, f->key.family);
	if (c.built) {
		eng_flow_of(f)->mark[1] = c.p.mark;
		eng_flow_of(f)->ctmark = c.p.ctmark;
	}
	chan_name_copy(f->chan[1], ev[RULE_STAGE_FILTER].channel);
	/* Kept whole when nothing in it is the packet's own: no dependency, no program. */
	if (pr.slot != UINT32_MAX && pd0 == 0 && prog == 0 &&
		f->act[1].verdict != FC_VERDICT_SLOW &&
		(o = eng_walkm_slot(eng, &pr, &win)) != NULL) {
		o->a = f->act[1];
		o->trace = eng_flow_of(f)->trace[1];
		o->mark = eng_flow_of(f)->mark[1];
		o->ctmark = eng_flow_of(f)->ctmark;
		memcpy(o->channel, f->chan[1], sizeof(o->channel));
	}
	return 0;
}

/* Which outcome of its entry's string predicate (program of @p m) the first packet had. */
static void
str_first(struct rule_engine *eng, struct eng_flow *ef, const struct fc_action *m)
{
	const struct rule_upcall *up = ef->f.up;
	const struct rule_pktprog *p = rule_engine_pktprog(eng, m->pkt_class);
	uint32_t off = up->pkt.l3_off, cap;
	unsigned int leaf;

	const uint8_t *v;
	uint32_t vlen = 0;

	ef->first_leaf = 0;
	if (up->frame == NULL || off >= up->frame_len)
		return;
	cap = up->frame_len - off;
	if (up->pkt.ip_len != 0 && up->pkt.ip_len < cap)
		cap = up->pkt.ip_len;
	v = eng_l3_view(eng, up, &ef->f.key, &ef->f.fkey[0], &vlen);
	if (v == NULL) {
		v = up->frame + off;
		vlen = cap;
	}
	(void)rule_engine_pred_leaf(eng, p->pred, up->frame + off, cap, v, vlen, &leaf);
	ef->first_leaf = (uint8_t)leaf;
	ef->first_pred = p->pred;
}

/*
 * A new flow's entry whose meter picks its list or verdict (program
 * @p prog): the entry counts for the conforming walk's rule and trace (as
 * revalidation would set them); a first packet that found the meter
 * exceeded (its walk's rule and trace the exceeded one's: where the
 * verdict is the same either way) is counted apart on the program once
 * inserted, as the fast path counts such packets.
 */
static void
meter_first(struct rule_engine *eng, struct eng_flow *ef, uint16_t prog)
{
	const struct rule_pktprog *p = rule_engine_pktprog(eng, prog);

	ef->first_turned = 0;
	if (p->meter == 0 || (p->rule[0] == p->rule[1] && p->trace[0] == p->trace[1]))
		return;
	if (ef->f.act[0].rule_id == p->rule[1] && ef->trace[0] == p->trace[1])
		ef->first_turned = prog;
	ef->f.act[0].rule_id = p->rule[0];
	ef->trace[0] = p->trace[0];
}

/*
 * The walk memo's key for the rest of a new flow's original direction
 * (its filter and src stages, and what filter_on_insert() makes of the
 * whole walk): the context its first stage started from, with what
 * rule_engine_classify_flow() has set in it by the filter stage (the
 * connection's status, helper, counts, tuples, timeout), the key its src
 * stage sees (what NAT made of the destination: the filter's is the
 * original source and that), the port -o sees, the ctstate, the entry's
 * action less its own. The stages before (raw, mangle and nat
 * PREROUTING) are the classification cache's for that context when no
 * classification of the flow went around it (eng_flow::unkept0).
 */
static void
orig_walk_in(struct rule_engine *eng, struct eng_flow *ef, struct eng_walk_in *in)
{
	struct rule_flow *f = &ef->f;
	struct rule_pkt *p = &in->p;

	eng_walk_in_rest(in);
	eng_pkt_start(eng, f->up, f->ctstate, p); /* rule_pkt_init() clears it */
	p->ctdir = RULE_CTDIR_ORIGINAL;
	p->ctstatus = f->ctstatus;
	memcpy(p->ct_helper, f->ct_helper, sizeof(p->ct_helper));
	p->ct_packets[RULE_CTDIR_ORIGINAL] = 1;
	p->ct_bytes[RULE_CTDIR_ORIGINAL] = f->up->pkt.ip_len;
	p->ct_orig = f->key;
	p->ct_repl = f->reply_key;
	p->ct_expire = f->untracked || f->ctstate == 0 ? 0 : (f->timeout + 999) / 1000;
	in->fk = f->xkey;
	in->a = f->act[0];
	in->a.nat_id = 0;
	in->a.ext = 0;
	in->a.gen = 0;
	in->out = eng_out_port_of(eng, f->act[0].out_port, fc_key_in_port(&f->key));
	in->cs = f->ctstate;
	in->l3v = eng_l3_view_needed(eng, &f->key, &f->fkey[0]);
	in->fl = (uint8_t)((f->xdst ? ENG_WALK_F_XDST : 0) |
			   (f->untracked ? ENG_WALK_F_UNTRACKED : 0));
	in->kind = ENG_WALK_NEW_ORIG;
}

/* A memo's original direction (orig_walk_in()) taken: as filter_on_insert() would have made it. */
static int
orig_memo_take(struct rule_engine *eng, struct eng_flow *ef, const struct eng_walk_out *wo)
{
	struct rule_flow *f = &ef->f;

	eng_res_copy(&ef->ev[RULE_STAGE_FILTER], &wo->ev[0]);
	eng_res_copy(&ef->ev[RULE_STAGE_SRC], &wo->ev[1]);
	ef->stages |= (uint8_t)((1u << RULE_STAGE_FILTER) | (1u << RULE_STAGE_SRC));
	/* Its nat rules count the connection (rule_engine_classify_flow() would). */
	nat_count(eng, ef, RULE_STAGE_SRC, f->key.family);
	memo_act(&f->act[0], wo);
	ef->mark[0] = wo->mark;
	ef->ctmark = wo->ctmark;
	ef->trace[0] = wo->trace;
	ef->prog_first = 0;
	ef->walked = true;
	chan_name_copy(f->chan[0], wo->channel);
	if (f->act[0].verdict != FC_VERDICT_ACCEPT) {
		f->drop = RULE_DROP_FILTER;
		return 0;
	}
	return f->want_reply ? reply_verdict(eng, f) : 0;
}

/* What filter_on_insert() made of a new flow's original direction, into the memo's slot. */
static void
orig_memo_keep(struct rule_engine *eng, struct eng_flow *ef, const struct eng_walkm_probe *pr,
	const struct eng_walk_in *in)
{
	struct rule_flow *f = &ef->f;
	struct eng_walk_out *o;

	if (pr->slot == UINT32_MAX || (o = eng_walkm_slot(eng, pr, in)) == NULL)
		return;
	o->a = f->act[0];
	o->mark = ef->mark[0];
	o->ctmark = ef->ctmark;
	o->trace = ef->trace[0];
	memcpy(o->channel, f->chan[0], sizeof(o->channel));
	eng_res_copy(&o->ev[0], &ef->ev[RULE_STAGE_FILTER]);
	eng_res_copy(&o->ev[1], &ef->ev[RULE_STAGE_SRC]);
}

int
eng_filter_on_insert(void *priv, struct rule_flow *f)
{
	struct rule_engine *eng = priv;
	struct eng_flow *ef = eng_flow_of(f);
	const struct rule_eval *res;
	struct eng_walkm_probe pr = {.slot = UINT32_MAX};
	const struct eng_walk_out *wo;
	struct eng_walk_in win;
	struct fc_key xk;
	uint32_t all = 0, deps;
	unsigned int d;
	int rc, prog;

	/*
	 * PREROUTING's tables passed it: the input route refuses a martian
	 * (its destination after nat PREROUTING) before INPUT or FORWARD;
	 * the stages walked count it (walk_cut()), none after.
	 */
	rc = rule_engine_classify_flow(f, RULE_STAGE_DST, &res);
	if (rc < 0)
		return rc;
	/* The source checked is the packet's own (nat PREROUTING keeps no forged bit). */
	xk = f->xkey;
	fc_key_set_flags(&xk, fc_key_flags(&xk) | (fc_key_flags(&f->key) & FC_KEY_F_SRC_FORGED));
	if (ef->ev[RULE_STAGE_RAW].verdict == RULE_VERDICT_ACCEPT &&
		ef->ev[RULE_STAGE_DST].verdict == RULE_VERDICT_ACCEPT &&
		rule_engine_martian(&xk, true)) {
		f->act[0].verdict = FC_VERDICT_DROP;
		f->drop = RULE_DROP_MARTIAN;
		/* Another packet may be decided otherwise by PREROUTING: no entry. */
		if (ENG_DEPS_PER_PACKET(ef->ev[RULE_STAGE_RAW].deps | ef->ev[RULE_STAGE_DST].deps))
			f->nocache = true;
		return 0;
	}
	/*
	 * The rest of the walk kept whole (an earlier connection's that
	 * started the same): what it made. Only when no module walked the
	 * filter or src stage before (none does).
	 */
	if (!(ef->stages & ((1u << RULE_STAGE_FILTER) | (1u << RULE_STAGE_SRC))) &&
		eng_walkm_on(eng)) {
		flow_fkey(f);
		orig_walk_in(eng, ef, &win);
		if (eng_walkm_find(eng, &win, &wo, &pr))
			return orig_memo_take(eng, ef, wo);
		/* Kept only if every classification since its first stage was the cache's. */
		pr.unkept = ef->unkept0;
	}
	/* Every stage: a later one (mangle POSTROUTING) may drop too. */
	rc = rule_engine_classify_flow(f, RULE_STAGE_SRC, &res);
	if (rc < 0)
		return rc;
	for (unsigned int s = 0; s < RULE_STAGE__COUNT; s++)
		all |= ef->ev[s].deps;
	deps = ENG_DEPS_PER_PACKET(all);
	/* The flow's packets leave the walk with this mark; the connection's is kept. */
	ef->mark[0] = ef->pkt_built ? ef->pkt.mark : 0;
	ef->ctmark = ef->pkt_built ? ef->pkt.ctmark : 0;
	d = eng_decider(ef->ev, RULE_STAGE__COUNT);
	f->act[0].rule_id = eng_dec_id(&ef->ev[d], f->key.family);
	/* This packet's actions (its walk took the meters' tokens), and the entry's default. */
	prog = eng_prog_of_walk(eng, ef->ev, eng_walked(ef->ev, d));
	ef->prog_first = (uint16_t)(prog > 0 ? prog : 0);
	ef->trace[0] = eng_trace_of_walk(eng, ef->ev, d, f->key.family);
	ef->walked = true;
	eng_act_prog(&f->act[0], prog);
	/* Kept whole by the memo when nothing in it is the packet's own: no dependency, no prog. */
	if (deps != 0 || prog != 0)
		pr.slot = UINT32_MAX;
	/*
	 * Meters reached (this packet took their tokens), one of them
	 * deciding at most: the entry holds the verdict while it conforms (an
	 * accept: a new flow's cached drop holds no deciding meter), the fast
	 * path asks the meter; meters passed in rules that failed later on
	 * (a port match after them) are charged by each packet, the answer
	 * unread, whatever the verdict. Otherwise, where the meter
	 * changes the verdict, the flow is decided per packet (a drop: no
	 * entry; an accept: FC_VERDICT_SLOW).
	 */
	if (eng_pv_meters(&ef->pv, all) && !(deps & ~(RULE_DEP_METER | ENG_PC_DEPS))) {
		struct fc_action m = f->act[0];
		bool acc = ef->ev[d].verdict == RULE_VERDICT_ACCEPT;

		rc = eng_meter_decide(eng, f->up, &f->key, &f->fkey[0], &m, f->ctstate, 0);
		if (rc == 0) {
			deps &= ENG_PC_DEPS; /* a class: below */
		} else if (rc == 1 && (m.flags & FC_ACT_F_PKTACT) &&
			   !rule_engine_pktprog(eng, m.pkt_class)->flip) {
			/* The meter picks the actions only (and whose counters). */
			eng_act_prog(&f->act[0], m.pkt_class);
			meter_first(eng, ef, m.pkt_class);
			deps &= ENG_PC_DEPS; /* a class: below */
		} else if (rc == 1 && m.verdict == FC_VERDICT_ACCEPT && acc) {
			f->act[0].flags &= (uint8_t)~FC_ACT_F_PKTACT;
			f->act[0].flags |= m.flags & FC_ACT_F_PKTACT;
			f->act[0].pkt_class = m.pkt_class;
			if (m.flags & FC_ACT_F_PKTACT)
				meter_first(eng, ef, m.pkt_class);
			deps &= ENG_PC_DEPS; /* a class: below */
		}
	} else if (eng_pv_strs(&ef->pv, all) && !(deps & ~(RULE_DEP_PAYLOAD | ENG_PC_DEPS))) {
		/*
		 * String searches decided: the entry holds every outcome (0: an
		 * accepting one) when this packet was accepted; a drop caches
		 * nothing (no connection is made, as in Linux).
		 */
		struct fc_action m = f->act[0];
		bool acc = ef->ev[d].verdict == RULE_VERDICT_ACCEPT;
		uint32_t tr = 0, pcd = 0;

		/* The walks' header fields of a class: the entry is classed over them (below). */
		rc = eng_str_decide(eng, f->up, &f->key, &f->fkey[0], &m, f->ctstate, 0, &tr, &pcd);
		if (rc == 0) {
			deps = pcd;
		} else if (rc == 1 && m.verdict == FC_VERDICT_ACCEPT && acc) {
			str_first(eng, ef, &m);
			f->act[0].flags |= FC_ACT_F_PKTACT;
			f->act[0].pkt_class = m.pkt_class;
			f->act[0].rule_id = m.rule_id;
			ef->trace[0] = tr;
			deps = pcd;
		}
	}
	if (deps & RULE_DEP_PAYLOAD)
		eng->st.pred_per_packet++;
	chan_name_copy(f->chan[0], ef->ev[RULE_STAGE_FILTER].channel);
	if (ef->ev[d].verdict != RULE_VERDICT_ACCEPT) {
		f->act[0].verdict = FC_VERDICT_DROP;
		f->drop = RULE_DROP_FILTER;
		/* A refusal asked again (connlimit) or answered (REJECT) is the packet's own. */
		if (!ef->pv.connlimit && ef->ev[d].action != RULE_ACT_REJECT)
			orig_memo_keep(eng, ef, &pr, &win);
		/* Another packet of the flow may be decided otherwise: no entry. */
		if (deps != 0)
			f->nocache = true;
		/* A connection connlimit may have refused: Linux asks again for its next packet. */
		if (ef->pv.connlimit)
			f->nocache = true;
		/* REJECT answers every packet, as netfilter does: none is cached. */
		if (ef->ev[d].action == RULE_ACT_REJECT) {
			f->reject = ef->ev[d].reject;
			f->nocache = true;
		}
		return 0;
	}
	/* The counters alone: cached up to the counts where it may change (connbytes). */
	if (deps == RULE_DEP_CONNBYTES && eng_cb_ready(eng, (unsigned int)eng_tbl(f->key.family))) {
		f->act[0].flags |= FC_ACT_F_COUNT;
		deps = 0;
	}
	/* Header fields alone: cached for the first packet's class (a SYN's: a guess, engine_pktclass.c). */
	if (deps != 0) {
		struct rule_pktfields pf;

		eng_pktclass_of_up(f->up, &pf);
		deps = eng_pktclass_take(eng, &f->key, &f->act[0], deps, &pf, 0, true);
	}
	if (deps != 0)
		f->act[0].verdict = FC_VERDICT_SLOW;
	orig_memo_keep(eng, ef, &pr, &win);
	if (!f->want_reply)
		return 0;
	return reply_verdict(eng, f);
}
