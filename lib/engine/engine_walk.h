/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine, private: a packet's walk through the rule stages (its
 * context, each stage, the verdict of all of them, its marks and
 * connection counters) and the built-in stages' entry points
 * (engine_mods.c, engine_filter.c, engine_connbytes.c). Part of
 * engine_priv.h, which includes it where these follow from what it
 * declares before; include engine_priv.h, not this.
 */
#ifndef GUFC_ENGINE_WALK_H
#define GUFC_ENGINE_WALK_H

/* engine_mods.c: the module registry's calls and the built-in stages. */
int eng_mods_register(struct rule_engine *eng);
/* engine_filter.c: the filter stage's on_insert (a new flow's walks, both directions). */
int eng_filter_on_insert(void *priv, struct rule_flow *f);

/*
 * The port a rule's -o sees for an entry's output port: the one its packets
 * leave by (rule_engine_out_port(): the route's, or the input port's pair);
 * none for packets to this host.
 */
static inline uint16_t
eng_out_port_of(const struct rule_engine *eng, uint16_t out, uint16_t in)
{
	if (out == RULE_PORT_LOCAL || in == RULE_IF_NONE)
		return RULE_IF_NONE;
	return rule_engine_out_port(eng, out, in);
}

/* The ctstate stage @p stage's tables see (as eng_pkt_stage() sets it), for a fresh context. */
static inline unsigned int
eng_stage_ctstate(unsigned int stage, unsigned int ctstate)
{
	if (stage == RULE_STAGE_RAW)
		return ctstate != 0 ? RULE_CT_INVALID : 0;
	return ctstate;
}

/* The header fields @p pf in a context of an entry's key alone. */
static inline void
eng_pkt_synth(struct rule_pkt *p, const struct rule_pktfields *pf)
{
	p->tcp_flags = pf->flags;
	p->ttl = pf->ttl;
	p->tos = pf->tos;
	p->l3_len = pf->len;
	if (pf->mss_st == 2) {
		p->tcp_mss = pf->mss;
		p->flags |= RULE_PKT_F_MSS;
	}
}

/*
 * What a walk of @p stage would say where nothing there is worth walking
 * (eng_stage_walks()) for a key of @p family with local bits @p lbits and
 * ctstate @p cs: accept, and the chains it would enter (empty, accepting)
 * each left by its end: their policies count the packet (noted, or the
 * stage's decision). engine_mods.c.
 */
void eng_stage_skip(const struct rule_engine *eng, unsigned int stage, unsigned int lbits,
	unsigned int cs, unsigned int family, struct rule_eval *res);
void eng_pkt_start(const struct rule_engine *eng, const struct rule_upcall *up,
	unsigned int ctstate, struct rule_pkt *p);
int eng_pkt_stage(struct rule_engine *eng, unsigned int stage, struct rule_pkt *p,
	const struct fc_key *k, uint16_t out_port, unsigned int ctstate, struct eng_pv *pv,
	struct rule_eval *res);
unsigned int eng_decider(const struct rule_eval ev[], unsigned int n);
/*
 * The counter id of stage result @p ev's decision for a packet of
 * @p family, as an entry keeps it in fc_action::rule_id: its rule, its
 * chain's policy (RULE_ID_CHAIN_POLICY() of the table and hook that
 * decided), or RULE_ID_NONE.
 */
static inline uint32_t
eng_dec_id(const struct rule_eval *ev, unsigned int family)
{
	return ev->rule_id == RULE_ID_POLICY ? RULE_ID_CHAIN_POLICY(family, ev->table, ev->hook)
					     : ev->rule_id;
}
/* Stages a packet walked: through the first that dropped (@p decider), else all. */
unsigned int eng_walked(const struct rule_eval ev[], unsigned int decider);
/** A packet's marks: its own (0 off the wire) and its connection's; its seconds left. */
struct eng_marks {
	uint32_t mark;
	uint32_t ctmark;
	uint32_t ct_expire; /**< in: seconds the connection has left (0: none known) */
	/** in: the connection's packets and IP bytes per direction (RULE_CTDIR_*), this
	 *  packet included (connbytes; eng_conn_counts()) */
	uint64_t ct_packets[2];
	uint64_t ct_bytes[2];
};
/*
 * Fill @p mk's connection counters for entry @p idx of table @p ti (action
 * @p a) and its peer, plus packet @p up (NULL: none). Entries count frames:
 * their IP bytes are the frames' less an Ethernet header each.
 */
void eng_conn_counts(const struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_action *a, const struct rule_upcall *up, struct eng_marks *mk);
/*
 * connbytes (engine_connbytes.c). eng_cb_ready(): can table @p ti's entries
 * be cached with FC_ACT_F_COUNT (the limits are allocated on first use)?
 * eng_cb_arm(): set the limits of entry @p idx and its peer from the
 * connection's counters (and the pending packet, eng->cb_pend, or @p up
 * for a new flow's first packet). eng_cb_redecide(): a packet of entry
 * @p idx reached its limits: decide the entry and its peer again.
 * eng_cb_free(): at the engine's end.
 */
bool eng_cb_ready(struct rule_engine *eng, unsigned int ti);
/* Has the set no connbytes match (nothing reads a context's connection counts)? */
bool eng_cb_none(struct rule_engine *eng);
void eng_cb_arm(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct rule_upcall *up);
void eng_cb_redecide(struct rule_engine *eng, unsigned int ti, uint32_t idx,
	const struct fc_key *k, const struct rule_upcall *up);
void eng_cb_free(struct rule_engine *eng);
/*
 * A packet of entry @p idx decided on its own (per packet) in a set with
 * connbytes matches: its connection's counters count it as a hit would
 * (the entry's), its rule counters stay its walk's alone.
 */
void eng_cb_count_alone(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t len,
	uint32_t now);
/*
 * Segments conntrack ignored (struct rule_engine_view::ct_ignored): counted
 * by their entry, not by its connection. eng_ign_ready(): allocate table
 * @p ti's counters (with its first window-checked entry, so that the fast
 * path can count them, once the set has a connbytes match: the only reader
 * of the connection's counters in a decision; false without memory or
 * without such a match). eng_ign_count(): entry @p idx counted one of
 * @p len bytes (the counters allocated on first use).
 * eng_ign_reset(): a new entry in slot @p idx. eng_ign_move(): the entry
 * moved (eng_side_move()). eng_ign_get(): entry @p idx's, 0 without.
 */
bool eng_ign_ready(struct rule_engine *eng, unsigned int ti);
void eng_ign_count(struct rule_engine *eng, unsigned int ti, uint32_t idx, uint32_t len);
void eng_ign_reset(struct rule_engine *eng, unsigned int ti, uint32_t idx);
void eng_ign_move(struct rule_engine *eng, unsigned int ti, uint32_t from, uint32_t to);
void eng_ign_get(const struct rule_engine *eng, unsigned int ti, uint32_t idx,
	uint64_t *packets, uint64_t *bytes);
int eng_pkt_verdict(struct rule_engine *eng, const struct rule_upcall *up, const struct fc_key *k,
	const struct fc_key *fk, const struct fc_action *a, unsigned int ctstate,
	struct rule_eval ev[RULE_STAGE__COUNT], unsigned int *decider, uint32_t *deps,
	struct eng_marks *mk, struct eng_pv *pv);
#endif /* GUFC_ENGINE_WALK_H */
