/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_module.c — the conntrack module: the state
 * machine of conntrack.c and ct_tcp.c as a struct rule_module of the rules
 * engine (see "The module" in conntrack.h).
 *
 * A UDP, ICMP or other connection lives, packed, in fc_action::ct_state of
 * its two entries. A TCP connection lives in a record of this module, one
 * cache line that is also the fast path's (struct mod_ct_fast_line: the
 * rules lcore works on a struct mod_ct_conn it loads from it and stores
 * back); both entries carry the record's id. So does an SCTP association
 * (its verification tags, which the fast path checks, in the line's first
 * words; never armed), and a UDP connection with
 * a helper or a master (a helper's state is kept by record id; its line is
 * never armed). Lines come in chunks
 * allocated on the rules lcore as ids are first used; a freed id waits for
 * a grace period of the engine's readers (an RX lcore may still write its
 * line) before it is used again. Everything else comes through struct
 * rule_flow and the engine's services (the RELATED lookup of an ICMP
 * error's quoted packet is rule_engine_flow_lookup_any(): a connection is
 * one per tuple, whatever the ports its entries have).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "conntrack.h"
#include "ct_help_priv.h"
#include "engine.h"

#define CHUNK (1u << MOD_CT_FAST_CHUNK_SHIFT)
#define CHUNK_MASK (CHUNK - 1)
#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_SCTP 132

struct mod_ct_module {
	struct rule_engine *eng;
	struct mod_ct_cfg cfg;
	uint32_t max_tcp;  /* ids 1 .. max_tcp */
	uint32_t next_id;  /* the lowest id never used */
	uint32_t *free_ids; /* ids back from their grace period, as a stack */
	uint32_t n_free;
	uint32_t cap_free;
	int socket;
	struct mod_ct_fast fast; /* the records (fast-path lines) by id, chunked */
	struct mod_ct_module_stats st; /* written by the rules lcore, read relaxed */
	struct ct_helpers hlp;         /* helpers and expectations (ct_helper.c) */
};

static void
count(uint64_t *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

static struct mod_ct_fast_line *
line_of(const struct mod_ct_module *ct, uint32_t id)
{
	return &ct->fast.chunk[id >> MOD_CT_FAST_CHUNK_SHIFT][id & CHUNK_MASK];
}

/* The record (line) of an entry's connection, or NULL. */
static struct mod_ct_fast_line *
entry_rec(const struct mod_ct_module *ct, const struct fc_action *a)
{
	uint32_t id = mod_ct_entry_id(a);

	if (id == 0 || id > ct->max_tcp || ct->fast.chunk[id >> MOD_CT_FAST_CHUNK_SHIFT] == NULL)
		return NULL;
	return line_of(ct, id);
}

static void
entry_set_id(struct fc_action *a, uint32_t id)
{
	a->ct_state = MOD_CT_ENTRY_ID;
	a->ext = id;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

static int
chunk_alloc(struct mod_ct_module *ct, uint32_t c)
{
	struct mod_ct_fast_line *lines;

	lines = rte_zmalloc_socket("ct_fast", CHUNK * sizeof(*lines), RTE_CACHE_LINE_SIZE,
		ct->socket);
	if (lines == NULL)
		return -ENOMEM;
	/* Readers find the lines only through ids published after this. */
	__atomic_store_n(&ct->fast.chunk[c], lines, __ATOMIC_RELEASE);
	return 0;
}

/* A free record id, or 0 (none left, or no memory). */
static uint32_t
id_alloc(struct mod_ct_module *ct)
{
	uint32_t id;

	if (ct->n_free != 0)
		return ct->free_ids[--ct->n_free];
	if (ct->next_id > ct->max_tcp)
		return 0;
	id = ct->next_id;
	if (ct->fast.chunk[id >> MOD_CT_FAST_CHUNK_SHIFT] == NULL &&
		chunk_alloc(ct, id >> MOD_CT_FAST_CHUNK_SHIFT) < 0)
		return 0;
	ct->next_id++;
	return id;
}

/* Id @p val is free again (no reader can hold it any more). */
static void
id_release(void *arg, uint64_t val)
{
	struct mod_ct_module *ct = arg;
	uint32_t id = (uint32_t)val;
	bool tcp, sctp;

	ct_help_gone(&ct->hlp, id);

	tcp = (line_of(ct, id)->rc_flags & MOD_CT_FAST_RC_TCP) != 0;
	sctp = !tcp && (line_of(ct, id)->rc_flags & MOD_CT_FAST_RC_SCTP) != 0;
	memset(line_of(ct, id), 0, sizeof(struct mod_ct_fast_line));
	if (ct->n_free == ct->cap_free) {
		uint32_t cap = ct->cap_free ? ct->cap_free * 2 : 1024;
		uint32_t *n = realloc(ct->free_ids, cap * sizeof(*n));

		if (n == NULL)
			return; /* never used again: counted as tracked for ever */
		ct->free_ids = n;
		ct->cap_free = cap;
	}
	ct->free_ids[ct->n_free++] = id;
	if (tcp)
		__atomic_store_n(&ct->st.tcp_conns, ct->st.tcp_conns - 1, __ATOMIC_RELAXED);
	if (sctp)
		__atomic_store_n(&ct->st.sctp_conns, ct->st.sctp_conns - 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------ */
/* The fast path's line                                                      */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* Callbacks                                                                 */
/* ------------------------------------------------------------------------ */

/* An entry's connection (a copy, the fast path's progress folded in); false if none. */
static bool
entry_conn(const struct mod_ct_module *ct, const struct fc_action *a, struct mod_ct_conn *c)
{
	const struct mod_ct_fast_line *r = entry_rec(ct, a);

	if (r != NULL) {
		mod_ct_fast_load(r, c, true);
		return c->state != MOD_CT_S_NONE;
	}
	if (a->ct_state & MOD_CT_ENTRY_ID)
		return false;
	return mod_ct_conn_unpack(a->ct_state, c) == 0 && c->state != MOD_CT_S_NONE;
}

static unsigned int
entry_dir(const struct fc_action *a)
{
	return (a->flags & FC_ACT_F_REPLY) ? MOD_CT_DIR_REPLY : MOD_CT_DIR_ORIG;
}

/*
 * Mark both entries of connection @p c as not established yet (a TCP
 * connection before its first reply: SYN_SENT, SYN_SENT2; a non-TCP flow
 * without reply) or not: a full table evicts the former first
 * (FC_ACT_F_EARLY). From the first reply on the state may move on the fast
 * path, which cannot rewrite the entries: by then they are never early.
 */
static void
ct_mark_early(struct rule_flow *f, const struct mod_ct_conn *c)
{
	bool early = c->state == MOD_CT_S_SYN_SENT || c->state == MOD_CT_S_SYN_SENT2 ||
		((c->state == MOD_CT_S_OPEN || c->proto == PROTO_SCTP) &&
			!(c->flags & MOD_CT_C_REPLIED));

	for (unsigned int d = 0; d < 2; d++)
		f->act[d].flags = (uint8_t)((f->act[d].flags & ~FC_ACT_F_EARLY) |
			(early ? FC_ACT_F_EARLY : 0));
}

/*
 * An entry's connection's state, flags, protocol and helpers (the fast
 * path's progress folded in; nothing else of @p c is written); false if
 * none.
 */
static bool
entry_peek(const struct mod_ct_module *ct, const struct fc_action *a, struct mod_ct_conn *c)
{
	const struct mod_ct_fast_line *r = entry_rec(ct, a);

	if (r != NULL) {
		mod_ct_fast_peek(r, c);
		return c->state != MOD_CT_S_NONE;
	}
	if (a->ct_state & MOD_CT_ENTRY_ID)
		return false;
	return mod_ct_conn_unpack(a->ct_state, c) == 0 && c->state != MOD_CT_S_NONE;
}

/* The ctstate packets taking the fast path get from an entry; 0 if untracked. */
static unsigned int
ct_entry_ctstate(void *priv, const struct fc_action *a)
{
	const struct mod_ct_module *ct = priv;
	const struct mod_ct_fast_line *r = entry_rec(ct, a);
	struct mod_ct_conn c;

	if (r != NULL)
		return mod_ct_fast_ctstate(r, entry_dir(a)); /* as stored */
	if ((a->ct_state & MOD_CT_ENTRY_ID) || mod_ct_conn_unpack(a->ct_state, &c) < 0)
		return 0;
	return mod_ct_conn_ctstate(&c, entry_dir(a));
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

	if (!entry_peek(priv, a, &c))
		return 0;
	if (c.flags & MOD_CT_C_REPLIED)
		s |= RULE_CTS_SEEN_REPLY;
	if ((c.state >= MOD_CT_S_ESTABLISHED && c.state <= MOD_CT_S_TIME_WAIT) ||
		(c.state == MOD_CT_S_OPEN && (c.flags & MOD_CT_C_REPLIED)) ||
		(c.proto == PROTO_SCTP && (c.flags & MOD_CT_C_ASSURED)))
		s |= RULE_CTS_ASSURED;
	if (c.master_helper != 0)
		s |= RULE_CTS_EXPECTED;
	return s;
}

/*
 * The idle timeout in force: the fast path may have moved a TCP connection
 * (its state, the data it left unacknowledged, its retransmission count)
 * since its entries were stored with @p timeout.
 */
static uint32_t
ct_entry_timeout(void *priv, const struct fc_action *a, uint32_t timeout)
{
	const struct mod_ct_module *ct = priv;
	const struct mod_ct_fast_line *l = entry_rec(ct, a);

	if (l == NULL || l->rc_state == MOD_CT_S_NONE || !(l->rc_flags & MOD_CT_FAST_RC_TCP))
		return timeout;
	/* The common case, cheaply: an assured ESTABLISHED connection whose
	 * state and retransmission count the fast path left alone keeps its
	 * timeout (no cap there depends on the windows). */
	if (l->rc_state == MOD_CT_S_ESTABLISHED && (l->rc_flags & MOD_CT_C_ASSURED) &&
		__atomic_load_n(&l->fp_retrans, __ATOMIC_RELAXED) == l->rc_retrans &&
		(!(__atomic_load_n(&l->mode, __ATOMIC_RELAXED) & MOD_CT_FAST_M_ST_OK) ||
			__atomic_load_n(&l->fp_state, __ATOMIC_RELAXED) == l->rc_state))
		return timeout;
	return mod_ct_fast_tcp_timeout(&ct->cfg, l);
}

/* -m helper: the helper of the master that expected the entry's connection (Linux). */
static const char *
ct_entry_helper(void *priv, const struct fc_action *a)
{
	const struct mod_ct_fast_line *r = entry_rec(priv, a);

	return r != NULL ? mod_ct_helper_name(r->rc_helper >> 4) : NULL;
}

/* A TCP connection closed (TIME_WAIT, CLOSE) while its entries linger. */
static bool
ct_entry_closed(void *priv, const struct fc_action *a)
{
	struct mod_ct_conn c;

	if (!entry_peek(priv, a, &c))
		return false;
	return c.state == MOD_CT_S_TIME_WAIT || c.state == MOD_CT_S_CLOSE;
}

static int
ct_format(void *priv, const struct fc_action *a, char *buf, size_t len)
{
	struct mod_ct_conn c;

	int n;

	if (!entry_conn(priv, a, &c))
		return 0;
	n = mod_ct_conn_format(&c, buf, len);
	if (n != -ENOSPC)
		return n;
	/* A listing's short field: the state, flags and helpers without the windows. */
	n = snprintf(buf, len, "%s %s%s%s%s%s%s", mod_ct_state_name(c.state),
		(c.flags & MOD_CT_C_REPLIED) ? "replied" : "unreplied",
		(c.flags & MOD_CT_C_ASSURED) ? " assured" : "",
		c.helper != 0 ? " helper=" : "", mod_ct_helper_name(c.helper),
		c.master_helper != 0 ? " expected=" : "", mod_ct_helper_name(c.master_helper));
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
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
				count(&ct->st.related);
				return RULE_CT_RELATED;
			}
		}
	}
	return RULE_CT_INVALID;
}

static void
count_verdict(struct mod_ct_module *ct, const struct mod_ct_verdict *v)
{
	if (v->ctstate == RULE_CT_INVALID && v->why < MOD_CT_WHY__COUNT)
		count(&ct->st.invalid[v->why]);
	if (v->flags & MOD_CT_VF_IGNORED)
		count(&ct->st.ignored);
	if (v->flags & MOD_CT_VF_REOPEN)
		count(&ct->st.reopened);
	if (v->flags & MOD_CT_VF_REMOVE)
		count(&ct->st.removed);
}

/*
 * Did the raw table (PREROUTING, OUTPUT) make this packet untracked (-j CT
 * --notrack, -j NOTRACK)? Raw runs before conntrack: it sees INVALID, as in
 * Linux where the packet has no connection yet.
 */
static bool
ct_notrack(struct rule_flow *f, uint8_t *helper)
{
	const struct rule_eval *raw;

	f->ctstate = RULE_CT_NEW; /* tracked so far: raw sees INVALID */
	*helper = 0;
	if (rule_engine_classify_flow(f, RULE_STAGE_RAW, &raw) < 0)
		return false;
	/* -j CT --helper: the connection's helper (Linux's template). */
	*helper = ct_help_assigned(raw);
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
	const struct rule_upcall *up = f->up;
	struct mod_ct_verdict v;
	struct mod_ct_conn c;
	uint32_t id = 0;
	uint8_t helper, proto;
	int rc;

	/* Decided without an entry by the engine (non-first fragments): untracked. */
	if (f->nocache)
		return 0;
	/* NOTRACK: conntrack leaves the flow alone (UNTRACKED to the later tables). */
	if (ct_notrack(f, &helper)) {
		f->ctstate = 0;
		f->untracked = true;
		__atomic_store_n(&ct->st.notrack, ct->st.notrack + 1, __ATOMIC_RELAXED);
		return 0;
	}
	f->ctstate = 0;
	if (mod_ct_icmp_is_error(&up->pkt)) {
		/* Errors belong to a connection or to none: never cached. */
		f->ctstate = (uint8_t)icmp_error_state(ct, f);
		f->untracked = true;
		f->nocache = true;
		return 0;
	}
	rc = mod_ct_new(&ct->cfg, &up->pkt, up->frame, up->frame_len, &c, &v);
	if (rc < 0)
		return rc;
	proto = fc_key_proto(&up->pkt.key);
	if ((v.flags & MOD_CT_VF_CREATED) &&
		(proto == PROTO_TCP || proto == PROTO_SCTP ||
			(proto == PROTO_UDP && ct_help_wants(&ct->hlp, f, helper)))) {
		id = id_alloc(ct);
		c.proto = proto;
		if (id == 0 && proto != PROTO_UDP) {
			/* No record left: as Linux when its table is full, no connection. */
			count(&ct->st.tcp_full);
			v.ctstate = RULE_CT_INVALID;
			v.flags = 0;
		} else if (id == 0) {
			/* UDP: tracked packed, without its helper or master. */
			count(&ct->st.tcp_full);
			c.proto = 0;
		} else if (ct_help_created(&ct->hlp, f, id, helper, &c, &v) == 0) {
			/* An expectation taken (RELATED), a helper given: its interest. */
			ct_help_interest(&ct->hlp, &c, id, v.interest);
			if (c.helper == MOD_CT_HELPER_SIP && c.proto == PROTO_UDP)
				v.timeout = CT_SIP_TIMEOUT_MS; /* Linux's sip_timeout */
		}
	}
	count_verdict(ct, &v);
	f->ctstate = v.ctstate;
	if (!(v.flags & MOD_CT_VF_CREATED)) {
		f->untracked = true;
		/*
		 * Left untracked (ICMPv6 neighbour discovery, MLD): UNTRACKED to
		 * the tables after raw, as Linux's untracked template, so the nat
		 * tables do not see it (they see connections' first packets).
		 */
		if (v.ctstate == 0)
			f->ctstate = RULE_CT_UNTRACKED;
		/* INVALID: a later packet may still open a connection. */
		if (v.ctstate == RULE_CT_INVALID)
			f->nocache = true;
		return 0;
	}
	if (id != 0) {
		/* Stored, and armed now when the first packet already lets the fast path
		 * check the next ones (a pickup's seen side). */
		mod_ct_fast_arm(line_of(ct, id), &c,
			(v.interest[0] | v.interest[1]) & FC_INTEREST_TCP_WIN, ct->cfg.tcp_be_liberal);
		if (proto == PROTO_TCP)
			__atomic_store_n(&ct->st.tcp_conns, ct->st.tcp_conns + 1, __ATOMIC_RELAXED);
		if (proto == PROTO_SCTP)
			__atomic_store_n(&ct->st.sctp_conns, ct->st.sctp_conns + 1, __ATOMIC_RELAXED);
	}
	for (unsigned int d = 0; d < 2; d++) {
		if (id != 0)
			entry_set_id(&f->act[d], id);
		else
			f->act[d].ct_state = mod_ct_conn_pack(&c);
		f->act[d].interest |= v.interest[d];
	}
	ct_mark_early(f, &c);
	f->timeout = v.timeout;
	f->want_reply = true;
	/* Its first reply may be the fast path's if the engine says so (ct_on_synack()). */
	f->synack = id != 0 && proto == PROTO_TCP && mod_ct_fast_synack_ok(&c, ct->cfg.tcp_be_liberal);
	/* The reply entry's cached verdict: replies of a connection are ESTABLISHED. */
	f->reply_ctstate = (uint8_t)mod_ct_conn_ctstate(&c, MOD_CT_DIR_REPLY);
	return 0;
}

/*
 * The engine stored the original entry of a new connection (on_insert set
 * struct rule_flow::synack) with its action for the connection's first
 * reply: arm the line for the fast path to take the SYN/ACK
 * (mod_ct_fast_synack()) and give both entries the interest for it.
 */
static int
ct_on_synack(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	struct mod_ct_fast_line *l = entry_rec(ct, &f->act[RULE_DIR_ORIG]);
	uint16_t interest[2];
	struct mod_ct_conn c;

	if (l == NULL)
		return -ENOENT;
	mod_ct_fast_load(l, &c, false);
	if (!mod_ct_fast_synack_ok(&c, ct->cfg.tcp_be_liberal))
		return -EAGAIN;
	mod_ct_fast_arm(l, &c, true, ct->cfg.tcp_be_liberal);
	mod_ct_fast_synack_interest(interest);
	for (unsigned int d = 0; d < 2; d++)
		f->act[d].interest = interest[d] | f->interest_kept[d];
	count(&ct->st.synack_armed);
	return 0;
}

/* The flow got no entry: its record was never seen by a reader. */
static void
ct_on_abort(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	uint32_t id = mod_ct_entry_id(&f->act[RULE_DIR_ORIG]);

	if (id == 0 || entry_rec(ct, &f->act[RULE_DIR_ORIG]) == NULL)
		return;
	id_release(ct, id); /* the helper's part too */
	/* On abort the two entries hold the same id: release it once. */
	for (unsigned int d = 0; d < 2; d++) {
		f->act[d].ct_state = 0;
		f->act[d].ext = 0;
	}
}

static void
ct_on_remove(void *priv, const struct rule_flow_gone *g)
{
	struct mod_ct_module *ct = priv;
	uint32_t id = mod_ct_entry_id(&g->act);

	/* The original direction's entry owns the record. */
	if (id == 0 || (g->act.flags & FC_ACT_F_REPLY) || entry_rec(ct, &g->act) == NULL)
		return;
	mod_ct_fast_arm(line_of(ct, id), NULL, false, false);
	line_of(ct, id)->rc_state = MOD_CT_S_NONE;
	if (rule_engine_defer(ct->eng, id_release, ct, id) < 0)
		return; /* no memory: the id is not used again */
}

static int
ct_on_packet(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	const struct rule_upcall *up = f->up;
	uint32_t id = mod_ct_entry_id(&f->act[f->dir]);
	const struct fc_pkt *pkt = &up->pkt;
	struct mod_ct_verdict v;
	struct mod_ct_conn packed, *c = &packed;
	struct fc_pkt view;
	int rc;

	if (id != 0) {
		const struct mod_ct_fast_line *l = entry_rec(ct, &f->act[f->dir]);

		if (l == NULL || l->rc_state == MOD_CT_S_NONE)
			return 0;
		/* A SYN/ACK the fast path may take: taken before the load, or not at all. */
		mod_ct_fast_hold(line_of(ct, id));
		mod_ct_fast_load(l, c, true);
		/* Behind a helper's rewrite, the ACK as the other side counts. */
		pkt = ct_help_view(&ct->hlp, c, id, f->dir, pkt, &view);
	} else {
		if (mod_ct_conn_unpack(f->act[f->dir].ct_state, &packed) < 0 ||
			packed.state == MOD_CT_S_NONE)
			return 0;
	}
	rc = mod_ct_packet(&ct->cfg, c, f->dir, pkt, up->frame, up->frame_len, &v);
	if (rc < 0)
		return rc;
	count_verdict(ct, &v);
	f->ctstate = v.ctstate;
	/* What Linux's trackers accept without refreshing the timer renews no
	 * idle time here either: TCP's ignored segments (NF_ACCEPT before
	 * nf_ct_refresh_acct(): a SYN or SYN/ACK the state cannot explain, old
	 * data or a very old ACK below the windows, a small overshoot of the
	 * window, a challenge ACK in LAST_ACK), SCTP's (a retransmitted INIT
	 * in CLOSED, a HEARTBEAT of a new path); nor an INVALID one (Linux's
	 * -NF_ACCEPT: no connection). */
	if ((v.flags & MOD_CT_VF_IGNORED) || v.ctstate == RULE_CT_INVALID)
		f->no_renew = true;
	if (v.flags & (MOD_CT_VF_REOPEN | MOD_CT_VF_REMOVE)) {
		/* The record as the packet left it; the line's mode as it was. */
		if (id != 0)
			mod_ct_fast_store(line_of(ct, id), c);
		f->reopen = (v.flags & MOD_CT_VF_REOPEN) != 0;
		f->remove = true;
		return 0;
	}
	if (id != 0) {
		/* The helper reads what conntrack accepted. */
		if (v.ctstate != RULE_CT_INVALID)
			ct_help_packet(&ct->hlp, f, c, id);
		ct_help_interest(&ct->hlp, c, id, v.interest);
		/* Linux's sip_timeout, refreshed by each packet (over TCP, by each
		 * segment with payload of an established connection). */
		if (c->helper == MOD_CT_HELPER_SIP &&
			(c->proto == PROTO_UDP ||
				(f->up->pkt.tcp_dlen != 0 && c->state == MOD_CT_S_ESTABLISHED)))
			v.timeout = CT_SIP_TIMEOUT_MS;
		mod_ct_fast_arm(line_of(ct, id), c,
			(v.interest[0] | v.interest[1]) & FC_INTEREST_TCP_WIN, ct->cfg.tcp_be_liberal);
	}
	for (unsigned int d = 0; d < 2; d++)
		if (v.interest[d] != (f->act[d].interest & ~f->interest_kept[d]))
			v.flags |= MOD_CT_VF_CHANGED; /* e.g. what folding the fast path's progress moved */
	if (v.timeout != f->timeout)
		v.flags |= MOD_CT_VF_CHANGED;
	if (v.flags & MOD_CT_VF_CHANGED) {
		for (unsigned int d = 0; d < 2; d++) {
			if (id == 0)
				f->act[d].ct_state = mod_ct_conn_pack(c);
			f->act[d].interest = v.interest[d] | f->interest_kept[d];
		}
		ct_mark_early(f, c);
		f->timeout = v.timeout;
		f->store = true;
	}
	if (v.flags & MOD_CT_VF_CTSTATE)
		f->refilter = true;
	return 0;
}

/*
 * The helpers that read a flow once NAT decided it (Linux's helpers run
 * after NAT): TFTP's request, SIP's messages. A module of its own, after the NAT stages.
 */
static int
ct_help_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	const struct mod_ct_fast_line *l = entry_rec(ct, &f->act[RULE_DIR_ORIG]);
	struct mod_ct_conn c;

	if (l == NULL)
		return 0;
	/* Most records have no helper (a TCP connection's never here): no load. */
	mod_ct_fast_peek(l, &c);
	if (c.helper == MOD_CT_HELPER_NONE || c.proto != PROTO_UDP)
		return 0;
	mod_ct_fast_load(l, &c, true);
	if (c.helper != MOD_CT_HELPER_NONE && c.proto == PROTO_UDP)
		ct_help_udp(&ct->hlp, f, &c, mod_ct_entry_id(&f->act[RULE_DIR_ORIG]), true);
	return 0;
}

static int
ct_help_on_packet(void *priv, struct rule_flow *f)
{
	struct mod_ct_module *ct = priv;
	const struct mod_ct_fast_line *l = entry_rec(ct, &f->act[f->dir]);
	struct mod_ct_conn c;

	if (l == NULL)
		return 0;
	mod_ct_fast_peek(l, &c);
	if (c.helper == MOD_CT_HELPER_NONE || c.proto != PROTO_UDP)
		return 0;
	mod_ct_fast_load(l, &c, true);
	if (c.state != MOD_CT_S_NONE && c.helper != MOD_CT_HELPER_NONE &&
		c.proto == PROTO_UDP &&
		f->ctstate != RULE_CT_INVALID && !f->remove)
		ct_help_udp(&ct->hlp, f, &c, mod_ct_entry_id(&f->act[f->dir]), false);
	return 0;
}

/* Expectations that timed out go; the helpers' clock is the engine's. */
static unsigned int
ct_step(void *priv, uint32_t now, unsigned int budget)
{
	struct mod_ct_module *ct = priv;

	return ct_help_step(&ct->hlp, now, budget);
}

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

/* Two entries per connection: half the capacities of the engine's tables. */
static uint32_t
default_max_tcp(const struct rule_engine *eng)
{
	uint64_t n = 0;

	for (unsigned int f = 0; f < 2; f++) {
		struct fc_table *t = rule_engine_table(eng, f == 0 ? FC_AF_INET4 : FC_AF_INET6);
		struct fc_table_stats st;

		if (t == NULL)
			continue;
		fc_table_stats_get(t, &st);
		n += st.capacity / 2;
	}
	if (n == 0)
		n = 1;
	return n >= MOD_CT_ID_MAX ? MOD_CT_ID_MAX - 1 : (uint32_t)n;
}

struct mod_ct_module *
mod_ct_module_create(struct rule_engine *eng, const struct mod_ct_module_params *p)
{
	struct mod_ct_module *ct;
	struct rule_module m;
	int rc;

	if (eng == NULL || p == NULL || p->max_tcp >= MOD_CT_ID_MAX) {
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
		ct->cfg.tcp_be_liberal = p->cfg.tcp_be_liberal;
		if (p->cfg.tcp_max_retrans != 0)
			ct->cfg.tcp_max_retrans = p->cfg.tcp_max_retrans;
	}
	ct->max_tcp = p->max_tcp != 0 ? p->max_tcp : default_max_tcp(eng);
	ct->next_id = 1;
	ct->socket = (int)rte_socket_id();
	rc = mod_ct_cfg_check(&ct->cfg);
	if (rc == 0)
		rc = ct_help_init(&ct->hlp, eng);
	if (rc == 0) {
		memset(&m, 0, sizeof(m));
		m.name = "conntrack";
		m.order = RULE_MOD_ORDER_CT;
		m.flags = RULE_MOD_F_OWN_INTEREST;
		m.on_insert = ct_on_insert;
		m.on_abort = ct_on_abort;
		m.on_packet = ct_on_packet;
		m.on_remove = ct_on_remove;
		m.on_synack = ct_on_synack;
		m.entry_ctstate = ct_entry_ctstate;
		m.entry_ctstatus = ct_entry_ctstatus;
		m.entry_helper = ct_entry_helper;
		m.entry_closed = ct_entry_closed;
		m.step = ct_step;
		m.ct_format = ct_format;
		m.entry_timeout = ct_entry_timeout;
		m.priv = ct;
		rc = rule_engine_module_register(eng, &m);
	}
	if (rc == 0) {
		memset(&m, 0, sizeof(m));
		m.name = "ct_helper";
		m.order = RULE_MOD_ORDER_NAT_SRC + 10;
		m.on_insert = ct_help_on_insert;
		m.on_packet = ct_help_on_packet;
		m.priv = ct;
		rc = rule_engine_module_register(eng, &m);
		if (rc < 0)
			rule_engine_module_unregister(eng, "conntrack");
	}
	if (rc < 0) {
		ct_help_fini(&ct->hlp);
		free(ct);
		rte_errno = -rc;
		return NULL;
	}
	return ct;
}

void
mod_ct_module_free(struct mod_ct_module *ct)
{
	if (ct == NULL)
		return;
	for (unsigned int c = 0; c < MOD_CT_FAST_CHUNKS; c++)
		rte_free(ct->fast.chunk[c]);
	free(ct->free_ids);
	ct_help_fini(&ct->hlp);
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
	for (unsigned int i = 0; i < MOD_CT_WHY__COUNT; i++)
		st->invalid[i] = __atomic_load_n(&ct->st.invalid[i], __ATOMIC_RELAXED);
	st->ignored = __atomic_load_n(&ct->st.ignored, __ATOMIC_RELAXED);
	st->reopened = __atomic_load_n(&ct->st.reopened, __ATOMIC_RELAXED);
	st->removed = __atomic_load_n(&ct->st.removed, __ATOMIC_RELAXED);
	st->tcp_conns = __atomic_load_n(&ct->st.tcp_conns, __ATOMIC_RELAXED);
	st->tcp_full = __atomic_load_n(&ct->st.tcp_full, __ATOMIC_RELAXED);
	st->sctp_conns = __atomic_load_n(&ct->st.sctp_conns, __ATOMIC_RELAXED);
	st->notrack = __atomic_load_n(&ct->st.notrack, __ATOMIC_RELAXED);
	st->synack_armed = __atomic_load_n(&ct->st.synack_armed, __ATOMIC_RELAXED);
}

int
mod_ct_module_conn_get(const struct mod_ct_module *ct, const struct fc_action *a,
	struct mod_ct_conn *c)
{
	if (ct == NULL || a == NULL || c == NULL)
		return -EINVAL;
	return entry_conn(ct, a, c) ? 0 : -ENOENT;
}

struct mod_ct_fast *
mod_ct_module_fast(struct mod_ct_module *ct)
{
	return ct != NULL ? &ct->fast : NULL;
}

int
mod_ct_module_mangle(struct mod_ct_module *ct, struct rte_mbuf *m, const struct fc_pkt *pkt)
{
	if (ct == NULL || m == NULL || pkt == NULL)
		return -EINVAL;
	if (ct->hlp.n_plan == 0)
		return 0;
	return ct_help_mangle(&ct->hlp, m, pkt);
}

void
mod_ct_module_helper_stats_get(const struct mod_ct_module *ct, struct mod_ct_helper_stats *st)
{
	const struct mod_ct_helper_stats *h;

	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (ct == NULL)
		return;
	h = &ct->hlp.st;
	st->conns = __atomic_load_n(&h->conns, __ATOMIC_RELAXED);
	st->segments = __atomic_load_n(&h->segments, __ATOMIC_RELAXED);
	st->commands = __atomic_load_n(&h->commands, __ATOMIC_RELAXED);
	st->foreign = __atomic_load_n(&h->foreign, __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
	st->nat_rewrites = __atomic_load_n(&h->nat_rewrites, __ATOMIC_RELAXED);
	st->nat_failed = __atomic_load_n(&h->nat_failed, __ATOMIC_RELAXED);
	st->related = __atomic_load_n(&h->related, __ATOMIC_RELAXED);
	mod_ct_expect_stats_get(ct->hlp.exp, &st->exp);
	{
		struct mod_ct_expect_stats x;

		const struct mod_ct_expect *more[] = {ct->hlp.exp_sip, ct->hlp.exp_sig,
			ct->hlp.exp_irc};

		for (unsigned int t = 0; t < RTE_DIM(more); t++) {
			mod_ct_expect_stats_get(more[t], &x);
			st->exp.created += x.created;
			st->exp.matched += x.matched;
			st->exp.expired += x.expired;
			st->exp.evicted += x.evicted;
			st->exp.removed += x.removed;
			st->exp.full += x.full;
			st->exp.active += x.active;
			st->exp.capacity += x.capacity;
		}
	}
}
