/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine — the engine's internals for stateful matches and packet
 * programs: connlimit counts, meters, string searches and the header view
 * they read, the classifier's result cache, and the packet programs cached
 * entries run. Part of engine_priv.h, which includes this header: include
 * engine_priv.h.
 */
#ifndef GUFC_ENGINE_PROG_PRIV_H
#define GUFC_ENGINE_PROG_PRIV_H

#ifndef GUFC_ENGINE_PRIV_H
#error "include engine_priv.h, not engine_prog_priv.h"
#endif

/* engine_connlimit.c: "-m connlimit" as Linux's nf_conncount counts. */
struct eng_connlimit;
/* Match @p xi of @p r (kind connlimit) for packet @p p; @p add: count its connection in.
   @return 1, 0, -ENOMEM. */
int eng_connlimit_match(struct rule_engine *eng, const struct rule *r, unsigned int xi,
	const struct rule_pkt *p, bool add);
void eng_connlimit_reset(struct rule_engine *eng);
void eng_connlimit_free(struct rule_engine *eng);
/* Connections the counts hold. */
uint32_t eng_connlimit_count(const struct rule_engine *eng);

/* engine_meter.c */
int eng_meters_init(struct rule_engine *eng);
void eng_meters_fini(struct rule_engine *eng);
void eng_meters_reset(struct rule_engine *eng);
/** Meters across a commit of @p ns that numbers rules anew (engine_meter.c). */
void eng_meters_renumber(struct rule_engine *eng, const struct rule_set *old,
	const struct rule_set *ns);
void eng_pv_init(struct eng_pv *pv, struct rule_engine *eng, enum eng_pv_mode mode);

/*
 * Can a cached verdict hold @p deps with the meters @p pv saw (meters,
 * nothing else; eng_meter_decide() tells whether one decides at most)?
 */
static inline bool
eng_pv_meters(const struct eng_pv *pv, uint32_t deps)
{
	return (deps & RULE_DEP_METER) && pv->n_meter >= 1 && pv->n_reach <= ENG_REACH_MAX &&
	       pv->n_str == 0 && pv->other == 0;
}

/* ... or with the string searches it saw (and no meter, nothing else)? */
static inline bool
eng_pv_strs(const struct eng_pv *pv, uint32_t deps)
{
	return (deps & RULE_DEP_PAYLOAD) && pv->n_str >= 1 && pv->n_meter == 0 && pv->other == 0;
}

/* engine_strpred.c: "-m string" searches (engine_strpred.h). */
int eng_strs_init(struct rule_engine *eng);
void eng_strs_fini(struct rule_engine *eng);
void eng_strs_reset(struct rule_engine *eng);
/*
 * A string match reached by walk @p pv (its provider's answer: 1, 0, or
 * -ENOTSUP: search) on packet @p p (its header view: RULE_PKT_F_L3VIEW).
 */
int eng_str_match(struct eng_pv *pv, const struct rule *r, unsigned int xi,
	const struct rule_pkt *p);
/*
 * The header view (rule_engine_l3_view()) of packet @p up at the hooks
 * after PREROUTING, for key @p k whose filter key is @p fk (the
 * destination as translated, the filter's local bits): a router's
 * forwarded packet (neither local bit of @p fk) has its TTL (hop limit)
 * one less, a translated destination (address, TCP/UDP port; SCTP left
 * alone) is written in, checksums fixed. @return the view (the engine's
 * buffer; *len its bytes), or NULL when the packet needs none (or is too
 * long for one: RULE_L3VIEW_MAX; it is read as received).
 */
const uint8_t *eng_l3_view(struct rule_engine *eng, const struct rule_upcall *up,
	const struct fc_key *k, const struct fc_key *fk, uint32_t *len);
/*
 * Does a packet of key @p k (filter key @p fk) read a header view at the
 * hooks after PREROUTING? A walk then sets RULE_PKT_F_L3VIEW, with the
 * packet's bytes or without (an entry's key alone): the questions its
 * searches ask are the view's either way, as the fast path answers them.
 */
bool eng_l3_view_needed(const struct rule_engine *eng, const struct fc_key *k,
	const struct fc_key *fk);
/*
 * Rule counters: move the packets of the predicates' outcomes but 0 from
 * outcome 0's rule and trace to theirs; into @p snap, or for @p rule_id
 * alone (engine_info.c).
 */
void eng_pred_credit(const struct rule_engine *eng, uint32_t rule_id, uint64_t *packets,
	uint64_t *bytes, struct rule_counters_snap *snap);

/* engine_clscache.c: the classifier's results reused across connections. */
struct eng_clsc;
int eng_clsc_init(struct rule_engine *eng);
void eng_clsc_fini(struct rule_engine *eng);
/* Forget every result (a commit, another classifier). */
void eng_clsc_flush(struct rule_engine *eng);
/* rule_cls_eval() with eng->cls, through the cache. */
int eng_clsc_eval(struct rule_engine *eng, enum rule_stage stage, struct rule_pkt *p,
	const struct rule_providers *pv, struct rule_eval *res);
struct eng_walk_in;
struct eng_walk_out;
/* Where a walk memo's lookup looked, for the walk it missed (eng_walkm_keep()). */
struct eng_walkm_probe {
	uint32_t slot;   /**< UINT32_MAX: nothing to keep */
	uint32_t hash;
	uint64_t unkept; /**< classifications the cache had not kept, before the walk */
};
/*
 * A whole walk from @p in (projected here) kept by the memo, asked once
 * eng_walkm_on() said it may be (before @p in is built): true with
 * @p out pointing at what it made (valid until the next eng_walkm_slot()
 * or flush); else @p pr says where eng_walkm_slot() keeps it. Counted
 * by @p in's kind (clsc_walk_hits, clsc_new_hits).
 */
bool eng_walkm_find(struct rule_engine *eng, struct eng_walk_in *in,
	const struct eng_walk_out **out, struct eng_walkm_probe *pr);
/*
 * Where to keep the walk looked up by @p pr from @p in (the caller fills
 * it at once), or NULL: not kept (a classification of it was not the
 * cache's, since eng_walk_unkept() said pr->unkept; another generation).
 */
struct eng_walk_out *eng_walkm_slot(struct rule_engine *eng, const struct eng_walkm_probe *pr,
	const struct eng_walk_in *in);
/* May the walk memo be asked (a classifier for the whole set, the cache not resting)? */
bool eng_walkm_on(const struct rule_engine *eng);
/* Classifications the cache did not answer or keep, traces and operations lost, so far. */
uint64_t eng_walk_unkept(const struct rule_engine *eng);
/* A stage's result as far as its notes and actions go (what a cache hit copies). */
void eng_res_copy(struct rule_eval *dst, const struct rule_eval *src);

/* engine_pktact.c: packet programs and log specs (engine_pktact.h). */
int eng_pktact_init(struct rule_engine *eng);
void eng_pktact_fini(struct rule_engine *eng);
void eng_pktact_reset(struct rule_engine *eng);
/* Intern program @p p. @return its id + 1 (a pkt_class), or -ENOSPC (counted). */
int eng_prog_intern(struct rule_engine *eng, const struct rule_pktprog *p);
/* The packet operations of the actions of walk @p ev[0..n). @return how many. */
int eng_walk_ops(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n,
	struct rule_pktop ops[RULE_PKTOPS_MAX], uint8_t *n_ops);
/* A program of lists @p ops0 and (with @p meter) @p ops1. @return id + 1, 0 (nothing
   to do), -ENOSPC. */
int eng_prog_make(struct rule_engine *eng, uint16_t meter, bool flip, const struct rule_pktop ops0[],
	unsigned int n0, const struct rule_pktop ops1[], unsigned int n1);
/*
 * The same with meters @p pre (@p n_pre, at most RULE_PKTPROG_PRE_MAX) that
 * every packet charges first, their answers unread (rule_pktprog::pre): a
 * program even without operations or a flip. @return as eng_prog_make(),
 * -ENOSPC for too many.
 */
int eng_prog_make_pre(struct rule_engine *eng, const uint16_t pre[], unsigned int n_pre,
	uint16_t meter, bool flip, const struct rule_pktop ops0[], unsigned int n0,
	const struct rule_pktop ops1[], unsigned int n1);
/*
 * The same, where @p meter decides: @p rule and @p trace, the deciding rule
 * and trace of its conforming [0] and exceeded [1] answers (NULL: none),
 * which the counters credit each list's packets to (rule_pktprog::rule).
 */
int eng_prog_make_meter(struct rule_engine *eng, const uint16_t pre[], unsigned int n_pre,
	uint16_t meter, bool flip, const struct rule_pktop ops0[], unsigned int n0,
	const struct rule_pktop ops1[], unsigned int n1, const uint32_t rule[2],
	const uint32_t trace[2]);
/* The meter-less program of walk @p ev[0..n). @return id + 1, 0, -ENOSPC. */
int eng_prog_of_walk(struct rule_engine *eng, const struct rule_eval ev[], unsigned int n);
/* Give action @p a program @p prog (id + 1; <= 0: none): FC_ACT_F_PKTACT and pkt_class. */
void eng_act_prog(struct fc_action *a, int prog);

#endif /* GUFC_ENGINE_PROG_PRIV_H */
