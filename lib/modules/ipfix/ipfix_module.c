/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/ipfix: the engine module — flow entries to IPFIX records.
 *
 * State per entry index of each table (struct ipfix_slot, sized by the
 * table's slots): what was reported of the entry so far (packets, bytes,
 * when the next record starts) and whether a TCP FIN or RST was seen. A
 * slot belongs to the entry created at @c created; on_remove clears it.
 *
 * Records come from:
 *  - on_remove: the entry went; its packets since its last record, with a
 *    flowEndReason from why it went (aged: idle, or end of flow when FIN
 *    or RST was seen; evicted: lack of resources; flushed or deleted:
 *    forced end, or end of flow after FIN/RST);
 *  - step: a bounded sweep of the live flows (rule_engine_flow_next()),
 *    one every sweep_interval, reporting flows past the active timeout
 *    (and, if set, flows idle past the idle timeout); it also sends a
 *    message whose first record waited flush_interval, and the templates
 *    when they are due;
 *  - mod_ipfix_export_all(): every live flow, when the exporter stops
 *    (forced end, or end of flow for a connection that saw FIN or RST).
 *
 * Context: rules lcore (the engine's callbacks and the functions of
 * ipfix.h), mod_ipfix_stats_get() excepted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "engine.h"
#include "ipfix.h"

#define SLOT_USED   0x01
#define SLOT_FIN    0x02 /* FIN or RST seen in either direction */
#define ORDER_IPFIX (RULE_MOD_ORDER_CHANNEL + 100)
#define TCP_FIN	    0x01
#define TCP_RST	    0x04

/** What was reported of one entry. */
struct ipfix_slot {
	uint64_t packets; /**< reported so far */
	uint64_t bytes;
	uint32_t created; /**< the entry's creation time: whose slot this is */
	uint32_t since;	  /**< engine time the next record starts at */
	uint8_t flags;	  /**< SLOT_* */
};

struct mod_ipfix_module {
	struct rule_engine *eng;
	struct mod_ipfix_params p;
	struct mod_ipfix_enc enc;
	uint8_t *buf;
	struct ipfix_slot *slot[2]; /**< per table (IPv4, IPv6) */
	uint32_t n_slots[2];
	uint32_t now;	    /**< the latest engine time seen (on_remove has none) */
	uint32_t first_rec; /**< when the open message got its first record */
	uint32_t last_tmpl; /**< when the templates were last sent */
	bool tmpl_sent;	    /**< templates were sent once */
	bool tmpl_in_msg;   /**< the open message holds them */
	bool sweeping;
	uint64_t sweep_it;    /**< rule_engine_flow_next() position */
	uint32_t sweep_start; /**< when the current (or last) sweep started */
	struct mod_ipfix_stats st;
};

/* Milliseconds from @p then to @p now on the engine's wrapping clock; 0 if @p then is later. */
static uint32_t
elapsed(uint32_t now, uint32_t then)
{
	int32_t d = (int32_t)(now - then);

	return d > 0 ? (uint32_t)d : 0;
}

/* Note the engine's time: the latest of what was seen. */
static uint32_t
clock_at(struct mod_ipfix_module *m, uint32_t now)
{
	if ((int32_t)(now - m->now) > 0)
		m->now = now;
	return m->now;
}

static int
tbl(unsigned int family)
{
	return family == 4 ? 0 : family == 6 ? 1 : -1;
}

/* The slot of entry @p idx, or NULL (no table, index out of range). */
static struct ipfix_slot *
slot_of(struct mod_ipfix_module *m, unsigned int family, uint32_t idx)
{
	int t = tbl(family);

	if (t < 0 || m->slot[t] == NULL || idx >= m->n_slots[t])
		return NULL;
	return &m->slot[t][idx];
}

/* The slot of the entry created at @p created, made fresh if it was another's. */
static struct ipfix_slot *
slot_get(struct mod_ipfix_module *m, unsigned int family, uint32_t idx, uint32_t created)
{
	struct ipfix_slot *s = slot_of(m, family, idx);

	if (s != NULL && (!(s->flags & SLOT_USED) || s->created != created)) {
		memset(s, 0, sizeof(*s));
		s->flags = SLOT_USED;
		s->created = created;
		s->since = created;
	}
	return s;
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t
export_time(const struct mod_ipfix_module *m, uint32_t now)
{
	return (uint32_t)((m->p.epoch_ms + now) / 1000);
}

int
mod_ipfix_flush(struct mod_ipfix_module *m, uint32_t now)
{
	uint32_t n;
	size_t len;
	int rc;

	if (m == NULL)
		return -EINVAL;
	now = clock_at(m, now);
	n = mod_ipfix_enc_records(&m->enc);
	len = mod_ipfix_enc_finish(&m->enc, export_time(m, now));
	if (len == 0)
		return 0;
	rc = m->p.send(m->p.send_arg, m->buf, len);
	if (rc < 0) {
		m->st.send_failed++;
		m->st.records_lost += n;
		if (m->tmpl_in_msg)
			m->tmpl_sent = false; /* again with the next message */
	} else {
		m->st.messages++;
		m->st.bytes += len;
		if (m->tmpl_in_msg)
			m->st.templates++;
	}
	m->tmpl_in_msg = false;
	return rc < 0 ? rc : 0;
}

static bool
tmpl_due(const struct mod_ipfix_module *m, uint32_t now)
{
	if (!m->tmpl_sent)
		return true;
	return m->p.template_refresh != 0 && elapsed(now, m->last_tmpl) >= m->p.template_refresh;
}

/* Put the templates at the start of a new message. */
static void
tmpl_add(struct mod_ipfix_module *m, uint32_t now)
{
	if (mod_ipfix_enc_templates(&m->enc) != 0)
		return; /* cannot happen: msg_size holds them */
	m->tmpl_in_msg = true;
	m->tmpl_sent = true;
	m->last_tmpl = now;
}

static void
emit(struct mod_ipfix_module *m, const struct mod_ipfix_rec *r, uint32_t now)
{
	for (int tries = 0; tries < 2; tries++) {
		if (!mod_ipfix_enc_open(&m->enc)) {
			if (tmpl_due(m, now))
				tmpl_add(m, now);
			m->first_rec = now;
		}
		if (mod_ipfix_enc_record(&m->enc, r) == 0) {
			m->st.records++;
			m->st.records_end[r->end_reason < 6 ? r->end_reason : 0]++;
			return;
		}
		(void)mod_ipfix_flush(m, now); /* full: send it, then a new one */
	}
}

/* ------------------------------------------------------------------------ */
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

static void
key_side(const struct fc_key *k, struct mod_ipfix_rec *r, bool post)
{
	size_t alen = fc_af_addr_len(k->family);

	memcpy(post ? r->post_src : r->src, fc_key_src(k), alen);
	memcpy(post ? r->post_dst : r->dst, fc_key_dst(k), alen);
	if (post) {
		r->post_sport = rte_be_to_cpu_16(fc_key_sport(k));
		r->post_dport = rte_be_to_cpu_16(fc_key_dport(k));
	} else {
		r->sport = rte_be_to_cpu_16(fc_key_sport(k));
		r->dport = rte_be_to_cpu_16(fc_key_dport(k));
	}
}

/*
 * A record of entry @p k / @p a. The packet after translation is the peer
 * entry's key reversed (the reply entry of a translated connection is the
 * translated tuple turned around).
 */
static void
rec_fill(const struct mod_ipfix_module *m, const struct fc_key *k, const struct fc_action *a,
	const struct fc_key *peer, struct mod_ipfix_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->family = k->family;
	r->proto = fc_key_proto(k);
	key_side(k, r, false);
	if ((a->flags & FC_ACT_F_NAT) && peer != NULL && peer->family == k->family) {
		struct fc_key rev;

		fc_key_reverse(peer, &rev);
		key_side(&rev, r, true);
	} else {
		key_side(k, r, true);
	}
	/* A chain's policy is "the policy" (gufcRuleId 0xffffffff), whichever chain. */
	r->rule_id = RULE_ID_IS_CHAIN_POLICY(a->rule_id) ? RULE_ID_POLICY : a->rule_id;
	r->reply = (a->flags & FC_ACT_F_REPLY) ? 1 : 0;
	if (a->verdict == FC_VERDICT_DROP) {
		r->fwd_status = MOD_IPFIX_FWD_DROP_ACL;
		r->drop_reason = RULE_DROP_FILTER;
	} else {
		r->fwd_status = MOD_IPFIX_FWD_FORWARDED;
	}
	(void)m;
}

/*
 * Report what entry @p s has not reported yet: packets/bytes in total,
 * from its slot's start to @p end. @return true if a record went out.
 */
static bool
report(struct mod_ipfix_module *m, struct mod_ipfix_rec *r, struct ipfix_slot *s, uint64_t packets,
	uint64_t bytes, uint32_t start, uint32_t end, uint8_t reason, uint32_t now)
{
	if (s != NULL) {
		if (packets <= s->packets)
			return false;
		r->packets = packets - s->packets;
		r->octets = bytes - s->bytes;
		start = s->since;
	} else {
		if (packets == 0)
			return false;
		r->packets = packets;
		r->octets = bytes;
	}
	if ((int32_t)(end - start) < 0)
		end = start;
	r->start_ms = m->p.epoch_ms + start;
	r->end_ms = m->p.epoch_ms + end;
	r->end_reason = reason;
	emit(m, r, now);
	return true;
}

static uint8_t
gone_reason(uint8_t why, bool closed)
{
	switch (why) {
	case RULE_GONE_AGED:
		return closed ? MOD_IPFIX_END_EOF : MOD_IPFIX_END_IDLE;
	case RULE_GONE_TABLE:
		return MOD_IPFIX_END_RESOURCES;
	default:
		return closed ? MOD_IPFIX_END_EOF : MOD_IPFIX_END_FORCED;
	}
}

/* ------------------------------------------------------------------------ */
/* Engine callbacks                                                          */
/* ------------------------------------------------------------------------ */

/* TCP flows: show the module the FIN and RST packets (closed vs idle). */
static int
ipfix_on_insert(void *priv, struct rule_flow *f)
{
	RTE_SET_USED(priv);
	if (f->nocache || fc_key_proto(&f->key) != 6)
		return 0;
	for (unsigned int d = 0; d < 2; d++)
		f->act[d].interest |= FC_INTEREST_TCP_FIN | FC_INTEREST_TCP_RST;
	return 0;
}

static int
ipfix_on_packet(void *priv, struct rule_flow *f)
{
	struct mod_ipfix_module *m = priv;
	struct rule_flow_info info;

	if (!(f->up->pkt.tcp_flags & (TCP_FIN | TCP_RST)))
		return 0;
	for (unsigned int d = 0; d < 2; d++) {
		struct ipfix_slot *s;

		if (f->idx[d] == FC_INDEX_NONE ||
			rule_engine_flow_get(m->eng, f->key.family, f->idx[d], &info) != 0)
			continue;
		s = slot_get(m, f->key.family, f->idx[d], info.created);
		if (s != NULL)
			s->flags |= SLOT_FIN;
	}
	return 0;
}

/* An entry moved to another input port: its record state follows it. */
static void
ipfix_on_move(void *priv, const struct rule_flow_moved *mv)
{
	struct mod_ipfix_module *m = priv;
	struct ipfix_slot *from = slot_of(m, mv->key.family, mv->old_idx);
	struct ipfix_slot *to = slot_of(m, mv->key.family, mv->idx);

	if (from == NULL || to == NULL || from == to)
		return;
	*to = *from;
	memset(from, 0, sizeof(*from));
}

static void
ipfix_on_remove(void *priv, const struct rule_flow_gone *g)
{
	struct mod_ipfix_module *m = priv;
	struct ipfix_slot *s = slot_of(m, g->key.family, g->idx);
	struct mod_ipfix_rec r;
	bool mine = s != NULL && (s->flags & SLOT_USED) && s->created == g->created;
	bool closed = mine && (s->flags & SLOT_FIN);

	rec_fill(m, &g->key, &g->act, g->peer_key.family != 0 ? &g->peer_key : NULL, &r);
	report(m, &r, mine ? s : NULL, g->packets, g->bytes, g->created, g->last_seen,
		gone_reason(g->why, closed), clock_at(m, g->last_seen));
	if (s != NULL)
		memset(s, 0, sizeof(*s));
}

/* A live flow: a record if a timeout says so (or @p force). @return true if one went. */
static bool
live_check(struct mod_ipfix_module *m, const struct rule_flow_info *info, uint32_t now, bool force)
{
	struct ipfix_slot *s = slot_get(m, info->key.family, info->idx, info->created);
	struct rule_flow_info peer;
	const struct fc_key *pk = NULL;
	struct mod_ipfix_rec r;
	uint8_t reason;

	if (s == NULL || info->packets <= s->packets)
		return false;
	if (force) /* a connection that closed ended, whatever is left of its entry */
		reason = (s->flags & SLOT_FIN) ? MOD_IPFIX_END_EOF : MOD_IPFIX_END_FORCED;
	else if (m->p.idle_timeout != 0 && elapsed(now, info->last_seen) >= m->p.idle_timeout)
		reason = MOD_IPFIX_END_IDLE;
	else if (m->p.active_timeout != 0 && elapsed(now, s->since) >= m->p.active_timeout)
		reason = MOD_IPFIX_END_ACTIVE;
	else
		return false;
	if (info->peer != FC_INDEX_NONE &&
		rule_engine_flow_get(m->eng, info->key.family, info->peer, &peer) == 0)
		pk = &peer.key;
	rec_fill(m, &info->key, &info->act, pk, &r);
	if (!report(m, &r, s, info->packets, info->bytes, info->created, info->last_seen, reason,
		    now))
		return false;
	s->packets = info->packets;
	s->bytes = info->bytes;
	/* The next record starts with the next packet, at the earliest now. */
	s->since = reason == MOD_IPFIX_END_IDLE ? info->last_seen : now;
	return true;
}

static unsigned int
ipfix_step(void *priv, uint32_t now, unsigned int budget)
{
	struct mod_ipfix_module *m = priv;
	struct rule_flow_info info;
	unsigned int work = 0;
	uint32_t left;

	now = clock_at(m, now);
	if (tmpl_due(m, now)) {
		/* A message of its own, so that a collector learns them at once. */
		(void)mod_ipfix_flush(m, now);
		tmpl_add(m, now);
		(void)mod_ipfix_flush(m, now);
		work++;
	}
	if (mod_ipfix_enc_open(&m->enc) && elapsed(now, m->first_rec) >= m->p.flush_interval) {
		(void)mod_ipfix_flush(m, now);
		work++;
	}
	if (m->p.active_timeout == 0 && m->p.idle_timeout == 0)
		return work;
	if (!m->sweeping) {
		if (elapsed(now, m->sweep_start) < m->p.sweep_interval && m->st.sweeps != 0)
			return work;
		m->sweeping = true;
		m->sweep_it = 0;
		m->sweep_start = now;
	}
	/* Bounded by table slots examined, free ones included. */
	left = budget > work ? budget - work : 0;
	for (;;) {
		int rc = rule_engine_flow_walk(m->eng, &m->sweep_it, &left, NULL, &info);

		if (rc == -EAGAIN)
			break;
		if (rc != 0) {
			m->sweeping = false;
			m->st.sweeps++;
			break;
		}
		live_check(m, &info, now, false);
	}
	return budget > work ? budget - left : work;
}

/* ------------------------------------------------------------------------ */
/* API                                                                       */
/* ------------------------------------------------------------------------ */

int
mod_ipfix_export_all(struct mod_ipfix_module *m, uint32_t now)
{
	struct rule_flow_info info;
	uint64_t it = 0;
	int n = 0;

	if (m == NULL)
		return -EINVAL;
	now = clock_at(m, now);
	while (rule_engine_flow_next(m->eng, &it, NULL, &info) == 0)
		n += live_check(m, &info, now, true);
	(void)mod_ipfix_flush(m, now);
	return n;
}

void
mod_ipfix_stats_get(const struct mod_ipfix_module *m, struct mod_ipfix_stats *st)
{
	if (st == NULL)
		return;
	if (m == NULL) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = m->st;
}

/* Slots of a table: the first index fc_table_slot() refuses (binary search). */
static uint32_t
table_slots(const struct fc_table *t)
{
	uint64_t lo = 0, hi = (uint64_t)UINT32_MAX + 1;

	if (t == NULL)
		return 0;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (fc_table_slot(t, (uint32_t)mid) != NULL)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

void
mod_ipfix_module_free(struct mod_ipfix_module *m)
{
	if (m == NULL)
		return;
	free(m->slot[0]);
	free(m->slot[1]);
	free(m->buf);
	free(m);
}

struct mod_ipfix_module *
mod_ipfix_module_create(struct rule_engine *eng, const struct mod_ipfix_params *p)
{
	static const unsigned int families[2] = {FC_AF_INET4, FC_AF_INET6};
	struct mod_ipfix_module *m;
	struct rule_module mod;
	int rc = -ENOMEM;

	if (eng == NULL || p == NULL || p->send == NULL ||
		(p->msg_size != 0 &&
			(p->msg_size < MOD_IPFIX_MSG_MIN || p->msg_size > UINT16_MAX))) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->eng = eng;
	m->p = *p;
	if (m->p.msg_size == 0)
		m->p.msg_size = MOD_IPFIX_MSG_DEFAULT;
	if (m->p.pen == 0)
		m->p.pen = MOD_IPFIX_PEN_DOC;
	if (m->p.flush_interval == 0)
		m->p.flush_interval = 1000;
	if (m->p.sweep_interval == 0)
		m->p.sweep_interval = 1000;
	m->buf = malloc(m->p.msg_size);
	if (m->buf == NULL)
		goto fail;
	rc = mod_ipfix_enc_init(&m->enc, m->buf, m->p.msg_size, m->p.domain, m->p.pen);
	if (rc != 0)
		goto fail;
	rc = -ENOMEM;
	for (unsigned int t = 0; t < 2; t++) {
		m->n_slots[t] = table_slots(rule_engine_table(eng, families[t]));
		if (m->n_slots[t] == 0)
			continue;
		m->slot[t] = calloc(m->n_slots[t], sizeof(struct ipfix_slot));
		if (m->slot[t] == NULL)
			goto fail;
	}
	memset(&mod, 0, sizeof(mod));
	mod.name = "ipfix";
	mod.order = ORDER_IPFIX;
	mod.on_insert = ipfix_on_insert;
	mod.on_packet = ipfix_on_packet;
	mod.on_remove = ipfix_on_remove;
	mod.on_move = ipfix_on_move;
	mod.step = ipfix_step;
	mod.priv = m;
	rc = rule_engine_module_register(eng, &mod);
	if (rc != 0)
		goto fail;
	return m;
fail:
	mod_ipfix_module_free(m);
	rte_errno = -rc;
	return NULL;
}
