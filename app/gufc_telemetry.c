/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_telemetry.c — gufc's rte_telemetry commands: /gufc/stats,
 * /gufc/drops, /gufc/channels, /gufc/rules, /gufc/flows (param: how
 * many flows, default 32), /gufc/offload, /gufc/lcores, /gufc/ipfix,
 * /gufc/ports, /gufc/neighbours, /gufc/routes and /gufc/recent.
 * dpdk-telemetry.py -f PREFIX queries them (so does scripts/gufc-prometheus.py).
 *
 * Telemetry callbacks run in the telemetry library's socket thread, which
 * is no lcore: a callback posts its request to the main lcore and waits.
 * The main lcore answers from its loop (gufc_telemetry_poll(), about every
 * millisecond) with the control layer's collectors (gufc_ctl.h), the ones
 * the shell's "show" prints from, so both give the same numbers. After gufc_telemetry_fini()
 * requests get an error (the commands stay registered: telemetry has no
 * way to unregister).
 *
 * Layout: flat dicts of numbers; lists (channels, rules, flows) are dicts
 * of columns, one array per field, index i of every array is row i
 * (telemetry containers cannot nest dicts).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_telemetry.h>

#include "gufc_ctl.h"

#define TEL_FLOWS_DEFAULT 32
#define TEL_ROWS_MAX 128 /* the reply must fit telemetry's 16 KiB buffer */
#define TEL_POLICY_ROWS 34 /* /gufc/rules: the built-in hooks of all tables, per family */
#define TEL_WAIT_MS 5000

struct tel_req {
	const char *cmd;
	const char *params;
	struct rte_tel_data *d;
	int rc;
	int done;
};

/** The mailbox between the telemetry thread and the main lcore. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct gufc_app *app; /**< NULL: not serving */
	struct tel_req *req;  /**< posted, not yet taken by the main lcore */
	bool registered;
} tel = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* ------------------------------------------------------------------------ */
/* Answers (main lcore)                                                      */
/* ------------------------------------------------------------------------ */

static int
tel_stats(struct gufc_app *app, struct tel_req *r)
{
	struct rte_tel_data *d = r->d;
	struct gufc_totals t;
	const struct gufc_sum *s = &t.sum;

	gufc_stats_sum(app, &t);
	rte_tel_data_start_dict(d);
#define U(name, val) rte_tel_data_add_dict_u64(d, name, (uint64_t)(val))
	U("rx", s->rx);
	U("rx_bytes", s->rx_bytes);
	U("delivered", t.delivered);
	U("drops_total", t.drops_total);
	U("in_ring", t.ct.in_ring);
	U("lossless_held", s->ll_held);
	U("lossless_held_bursts", s->ll_bursts);
	U("upcall_enqueues", s->up_rings);
	U("upcalls_kept", s->up_kept);
	U("rx_kept", s->rx_kept);
	U("rx_kept_idle", s->rx_kept_idle);
	U("hits", s->hits);
	U("misses", s->misses);
	U("upcalls", s->upcalls);
	U("upcall_stale", s->upcall_stale);
	U("upcall_interest", s->upcall_interest);
	U("upcall_per_packet", s->upcall_per_packet);
	U("upcall_class", s->upcall_class);
	U("upcall_pending", s->upcall_pending);
	U("upcall_uncounted", s->upcall_uncounted);
	U("waited", s->waited);
	U("waiting", s->waiting);
	U("slow_packets", s->slow_pkts);
	U("upcall_fast", s->upcall_fast);
	U("classify_cls", t.es.classify_cls);
	U("classify_ref", t.es.classify_ref);
	U("clsc_hits", t.es.clsc_hits);
	U("clsc_misses", t.es.clsc_misses);
	U("clsc_uncacheable", t.es.clsc_uncacheable);
	U("clsc_skipped", t.es.clsc_skipped);
	U("clsc_flushes", t.es.clsc_flushes);
	U("clsc_walk_hits", t.es.clsc_walk_hits);
	U("clsc_new_hits", t.es.clsc_new_hits);
	U("refilter_kept", t.es.refilter_kept);
	U("synack_ahead", t.es.synack_ahead);
	U("synack_settled", t.es.synack_settled);
	U("synack_plain_not", t.es.synack_plain_not);
	U("ct_synack_armed", t.cts.synack_armed);
	U("ct_synack_fast", s->ct_synack_fast);
	U("flows_created", t.es.flows);
	U("flows_replies", t.es.replies);
	U("flows_removed", t.es.removed);
	U("reply_moved", t.es.reply_moved);
	U("reply_guessed", t.es.reply_guessed);
	U("port_mismatch", t.es.port_mismatch);
	U("rule_trace_lost", t.es.trace_lost);
	U("flows_active", t.t4.occupancy + t.t6.occupancy);
	U("flows_active_v4", t.t4.occupancy);
	U("flows_active_v6", t.t6.occupancy);
	U("flows_capacity", t.t4.capacity);
	U("perflow_given", t.es.chan_flows);
	U("perflow_fallback", t.es.chan_flow_fallback);
	U("perflow_in_use", t.fp.in_use);
	U("perflow_free", t.fp.free);
	U("perflow_rings", t.fp.rings);
	U("perflow_cap", t.fp.max);
	U("perflow_bytes_per_ring", t.fp.bytes_per_ring);
	U("perflow_refused_cap", t.fp.refused_cap);
	U("perflow_refused_nomem", t.fp.refused_nomem);
	U("evictions", t.t4.evictions + t.t6.evictions);
	U("evictions_early", t.t4.evict_early + t.t6.evict_early);
	U("evictions_established",
		t.t4.evictions + t.t6.evictions - t.t4.evict_early - t.t6.evict_early);
	U("evictions_out_of_order", t.t4.evict_est_early + t.t6.evict_est_early);
	U("flows_refused", t.t4.refused + t.t6.refused);
	U("flows_refused_grace", t.t4.refused_grace + t.t6.refused_grace);
	U("flow_cuckoo_moves", t.t4.moves + t.t6.moves);
	U("commits", t.es.commits);
	U("recent_dropped", t.es.recent_dropped);
	U("hashlimit_dropped", t.es.hashlimit_dropped);
	U("hashlimit_meters", t.es.hashlimit_meters);
	U("connlimit_conns", t.es.connlimit_conns);
	U("connlimit_checks", t.es.connlimit_checks);
	U("string_searches", t.es.str_preds);
	U("u32_matches", t.es.u32_preds);
	U("bpf_programs", t.es.bpf_preds);
	U("string_per_packet", t.es.pred_per_packet);
	U("flows_classed", t.es.classed);
	U("class_taken", t.es.class_taken);
	U("class_unfit", t.es.class_unfit);
	U("set_added", t.es.set_added);
	U("set_deleted", t.es.set_deleted);
	U("set_failed", t.es.set_failed);
	U("generation", t.es.gen);
	U("revalidated", t.es.revalidated);
	U("count_redecided", t.es.count_redecided);
	U("cached_drops", t.es.cached_drops);
	U("drops_expected", t.es.drops_expected);
	U("reval_pending", t.es.pending);
	U("refreshed", t.es.refreshed);
	U("icmp_related", t.cts.related);
	U("conntrack_notrack", t.cts.notrack);
	U("icmp_related_nat", t.nats.related_nat);
	U("ct_tcp_conns", t.cts.tcp_conns);
	U("ct_tcp_refused", t.cts.tcp_full);
	U("ct_sctp_conns", t.cts.sctp_conns);
	U("ct_ignored", t.cts.ignored);
	U("ct_ignored_fast", s->ct_ignored_fast);
	U("ct_reopened", t.cts.reopened);
	U("ct_removed", t.cts.removed);
	U("ct_helper_conns", t.cth.conns);
	U("ct_helper_segments", t.cth.segments);
	U("ct_helper_commands", t.cth.commands);
	U("ct_helper_foreign", t.cth.foreign);
	U("ct_helper_dropped", t.cth.dropped);
	U("ct_helper_nat_rewrites", t.cth.nat_rewrites);
	U("ct_helper_nat_failed", t.cth.nat_failed);
	U("ct_helper_related", t.cth.related);
	U("ct_expect_created", t.cth.exp.created);
	U("ct_expect_matched", t.cth.exp.matched);
	U("ct_expect_expired", t.cth.exp.expired);
	U("ct_expect_active", t.cth.exp.active);
	for (unsigned int w = 1; w < MOD_CT_WHY__COUNT; w++) {
		char name[48];

		snprintf(name, sizeof(name), "ct_invalid_%s", mod_ct_why_name(w));
		U(name, t.cts.invalid[w]);
	}
	U("rerouted", t.rts.rerouted);
	U("route_walks", t.rts.route_walks);
	U("frag_in", s->frag_in);
	U("frag_datagrams", s->frag_out);
	U("frag_failed", s->frag_dropped);
	U("transmitted", s->tx_pkts);
	U("non_ip_passed", s->non_ip_pass);
	U("logged", s->log_queued);
	U("log_dropped", s->log_dropped);
	U("rewritten", s->rewritten);
	U("rewrite_skipped", s->rewrite_skipped);
	U("reject_replies", s->reject_replies);
	U("reject_suppressed", s->reject_suppressed);
	U("reloads_ok", t.reload.ok);
	U("reloads_failed", t.reload.failed);
	rte_tel_data_add_dict_string(d, "mode", gufc_mode_name(app));
	U("l3_slow", s->l3_slow);
	U("held", s->held);
	U("echo_replies", s->echo_replies);
	U("local_in", s->local_in);
	U("icmp_errors", s->icmp_errors);
	U("icmp_suppressed", s->icmp_suppressed);
	U("frag_datagrams_routed", s->frag_datagrams);
	U("frag_made", s->frag_made);
	U("originated", t.originated);
	U("neigh_in", s->neigh_in);
	U("neigh_consumed", t.nb.consumed);
	U("neigh_originated", t.nb.originated);
	U("arp_req_in", t.nb.arp_req_in);
	U("arp_rep_in", t.nb.arp_rep_in);
	U("ns_in", t.nb.ns_in);
	U("na_in", t.nb.na_in);
	U("arp_req_out", t.nb.arp_req_out);
	U("arp_rep_out", t.nb.arp_rep_out);
	U("ns_out", t.nb.ns_out);
	U("na_out", t.nb.na_out);
	U("announce_out", t.nb.announce_out);
	U("neighbours", t.nb.entries);
	U("neigh_resolved", t.nb.resolved);
	U("neigh_failed", t.nb.failed);
	U("neigh_mac_changes", t.nb.mac_changes);
	U("neigh_queued", t.nb.queued);
#undef U
	return 0;
}

static int
tel_drops(struct gufc_app *app, struct tel_req *r)
{
	struct gufc_totals t;

	gufc_stats_sum(app, &t);
	rte_tel_data_start_dict(r->d);
	for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++)
		if (gufc_drop_valid(d))
			rte_tel_data_add_dict_u64(r->d, gufc_drop_id(d), t.sum.drops[d]);
	rte_tel_data_add_dict_u64(r->d, "total", t.drops_total);
	return 0;
}

/* Columns: a dict of arrays. */
struct tel_cols {
	unsigned int n;
	const char *name[16];
	struct rte_tel_data *col[16];
};

static struct rte_tel_data *
tel_col(struct tel_cols *c, const char *name, enum rte_tel_value_type type)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	if (a == NULL || c->n == RTE_DIM(c->col)) {
		rte_tel_data_free(a);
		return NULL;
	}
	rte_tel_data_start_array(a, type);
	c->name[c->n] = name;
	c->col[c->n++] = a;
	return a;
}

/* Hand the columns to @p d (or free them on error). */
static int
tel_cols_end(struct tel_cols *c, struct rte_tel_data *d, int rc)
{
	for (unsigned int i = 0; i < c->n; i++) {
		if (rc == 0 && rte_tel_data_add_dict_container(d, c->name[i], c->col[i], 0) == 0)
			continue;
		rte_tel_data_free(c->col[i]);
	}
	return rc;
}

static int
tel_channels(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *name, *kind, *id, *enq, *cons, *full, *flushed, *bytes, *in_ring;
	unsigned int n = 0;

	rte_tel_data_start_dict(r->d);
	name = tel_col(&c, "name", RTE_TEL_STRING_VAL);
	id = tel_col(&c, "id", RTE_TEL_U64_VAL);
	kind = tel_col(&c, "kind", RTE_TEL_STRING_VAL);
	enq = tel_col(&c, "enqueued", RTE_TEL_U64_VAL);
	cons = tel_col(&c, "consumed", RTE_TEL_U64_VAL);
	full = tel_col(&c, "drop_full", RTE_TEL_U64_VAL);
	flushed = tel_col(&c, "flushed", RTE_TEL_U64_VAL);
	bytes = tel_col(&c, "bytes", RTE_TEL_U64_VAL);
	in_ring = tel_col(&c, "in_ring", RTE_TEL_U64_VAL);
	if (in_ring == NULL)
		return tel_cols_end(&c, r->d, -ENOMEM);
	/* Named channels; per-flow ones are summed in /gufc/stats (perflow_*). */
	for (int i = chan_next_named(app->chans, 0); i >= 0 && n < TEL_ROWS_MAX;
		i = chan_next_named(app->chans, (unsigned int)i + 1)) {
		struct chan_info ci;
		struct chan_stats cs;

		if (chan_info_get(app->chans, (uint32_t)i, &ci) != 0 ||
			chan_stats_get(app->chans, (uint32_t)i, &cs) != 0)
			continue;
		rte_tel_data_add_array_string(name, ci.name);
		rte_tel_data_add_array_u64(id, (uint64_t)i);
		rte_tel_data_add_array_string(kind, chan_kind_name(ci.kind));
		rte_tel_data_add_array_u64(enq, cs.enqueued);
		rte_tel_data_add_array_u64(cons, cs.consumed);
		rte_tel_data_add_array_u64(full, cs.drop_full);
		rte_tel_data_add_array_u64(flushed, cs.flushed);
		rte_tel_data_add_array_u64(bytes, cs.enq_bytes);
		rte_tel_data_add_array_u64(in_ring, cs.in_ring);
		n++;
	}
	return tel_cols_end(&c, r->d, 0);
}

static int
tel_rules(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *id, *table, *chain, *pos, *pk, *by, *text, *hook, *fam;
	struct gufc_rule_row *rows;
	unsigned int n;
	int rc;

	/* The policies (17 hooks per family at most) come on top of the rules. */
	rc = gufc_collect_rules(app, &rows, &n, TEL_ROWS_MAX - TEL_POLICY_ROWS);
	if (rc != 0)
		return rc;
	rte_tel_data_start_dict(r->d);
	id = tel_col(&c, "id", RTE_TEL_U64_VAL);
	table = tel_col(&c, "table", RTE_TEL_STRING_VAL);
	chain = tel_col(&c, "chain", RTE_TEL_STRING_VAL);
	pos = tel_col(&c, "pos", RTE_TEL_U64_VAL);
	pk = tel_col(&c, "packets", RTE_TEL_U64_VAL);
	by = tel_col(&c, "bytes", RTE_TEL_U64_VAL);
	text = tel_col(&c, "rule", RTE_TEL_STRING_VAL);
	/* "" for a rule; a policy's row: its hook and family ("rule": its policy, "id": 0). */
	hook = tel_col(&c, "hook", RTE_TEL_STRING_VAL);
	fam = tel_col(&c, "family", RTE_TEL_STRING_VAL);
	if (text == NULL || hook == NULL || fam == NULL) {
		free(rows);
		return tel_cols_end(&c, r->d, -ENOMEM);
	}
	for (unsigned int i = 0; i < n; i++) {
		rows[i].text[RTE_TEL_MAX_STRING_LEN - 1] = '\0';
		bool pol = rows[i].hook < RULE_HOOK__COUNT;

		rte_tel_data_add_array_u64(id, pol ? 0 : rows[i].id);
		rte_tel_data_add_array_string(hook, pol ? rule_hook_name(rows[i].hook) : "");
		rte_tel_data_add_array_string(fam, !pol ? ""
					      : rows[i].family == FC_AF_INET6 ? "ipv6" : "ipv4");
		rte_tel_data_add_array_string(table, rule_table_name(rows[i].table));
		rte_tel_data_add_array_string(chain, rows[i].chain);
		rte_tel_data_add_array_u64(pos, rows[i].pos);
		rte_tel_data_add_array_u64(pk, rows[i].packets);
		rte_tel_data_add_array_u64(by, rows[i].bytes);
		rte_tel_data_add_array_string(text, rows[i].text);
	}
	free(rows);
	rte_tel_data_add_dict_u64(r->d, "generation", rule_engine_generation(app->eng));
	return tel_cols_end(&c, r->d, 0);
}

static int
tel_flows(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *key, *verdict, *rule, *chan, *pk, *by, *dir, *cpk, *cby;
	struct gufc_flow_row *rows;
	uint32_t limit = TEL_FLOWS_DEFAULT;
	uint64_t total;
	unsigned int n;
	int rc;

	if (r->params != NULL && r->params[0] != '\0' &&
		(lex_u32(r->params, strlen(r->params), UINT32_MAX, LEX_NUM_C, &limit, NULL) != 0 ||
			limit == 0))
		return -EINVAL;
	limit = RTE_MIN(limit, (uint32_t)TEL_ROWS_MAX);
	rc = gufc_collect_flows(app, NULL, NULL, limit, &rows, &n, &total);
	if (rc != 0)
		return rc;
	rte_tel_data_start_dict(r->d);
	rte_tel_data_add_dict_u64(r->d, "total", total);
	key = tel_col(&c, "key", RTE_TEL_STRING_VAL);
	dir = tel_col(&c, "dir", RTE_TEL_STRING_VAL);
	verdict = tel_col(&c, "verdict", RTE_TEL_STRING_VAL);
	rule = tel_col(&c, "rule", RTE_TEL_U64_VAL);
	chan = tel_col(&c, "channel", RTE_TEL_U64_VAL);
	pk = tel_col(&c, "packets", RTE_TEL_U64_VAL);
	by = tel_col(&c, "bytes", RTE_TEL_U64_VAL);
	cpk = tel_col(&c, "ct_packets", RTE_TEL_U64_VAL);
	cby = tel_col(&c, "ct_bytes", RTE_TEL_U64_VAL);
	if (by == NULL || cpk == NULL || cby == NULL) {
		free(rows);
		return tel_cols_end(&c, r->d, -ENOMEM);
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct fc_action *a = &rows[i].info.act;

		rte_tel_data_add_array_string(key, rows[i].key);
		rte_tel_data_add_array_string(dir, (a->flags & FC_ACT_F_REPLY) ? "reply" : "orig");
		rte_tel_data_add_array_string(verdict, a->verdict == FC_VERDICT_ACCEPT ? "accept" :
			a->verdict == FC_VERDICT_DROP ? "drop" : "slow");
		rte_tel_data_add_array_u64(rule, a->rule_id);
		rte_tel_data_add_array_u64(chan, rows[i].info.channel);
		rte_tel_data_add_array_u64(pk, rows[i].info.packets);
		rte_tel_data_add_array_u64(by, rows[i].info.bytes);
		/* The connection's (connbytes): less the segments conntrack ignored. */
		rte_tel_data_add_array_u64(cpk, rows[i].info.packets -
			RTE_MIN(rows[i].info.packets, rows[i].info.ign_packets));
		rte_tel_data_add_array_u64(cby, rows[i].info.bytes -
			RTE_MIN(rows[i].info.bytes, rows[i].info.ign_bytes));
	}
	free(rows);
	return tel_cols_end(&c, r->d, 0);
}

/* /gufc/offload: backend, summed port counters, policy counters; caps per port. */
static int
tel_offload(struct gufc_app *app, struct tel_req *r)
{
	struct rte_tel_data *d = r->d;
	struct gufc_totals t;
	const struct ofl_policy_stats *p = &t.ofl.pol;
	char key[32], caps[128];

	gufc_stats_sum(app, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "backend",
		ofl_backend_name((enum ofl_backend)(app->cfg.set.offload & 3)));
#define U(name, val) rte_tel_data_add_dict_u64(d, name, (uint64_t)(val))
	U("hw_classified", t.sum.hw_classified);
	U("hw_fallback", t.sum.hw_fallback);
	U("hw_dropped", t.ofl.port.hw_dropped);
	U("hw_matched", t.ofl.port.hw_matched);
	U("hw_marked", t.ofl.port.hw_marked);
	U("rules", t.ofl.port.rules);
	U("rules_created", t.ofl.port.rules_created);
	U("rules_destroyed", t.ofl.port.rules_destroyed);
	U("create_failed", t.ofl.port.create_failed);
	U("scanned", p->scanned);
	U("candidates", p->candidates);
	U("capped", p->capped);
	U("queued", p->queued);
	U("queue_full", p->queue_full);
	U("offloaded", p->offloaded);
	U("offload_refused", p->offload_refused);
	U("offload_full", p->offload_full);
	U("removed", p->removed);
	U("removed_gone", p->removed_gone);
	U("removed_changed", p->removed_changed);
	U("removed_cold", p->removed_cold);
	U("removed_commit", p->removed_commit);
	U("commit_syncs", p->commit_syncs);
	rte_tel_data_add_dict_u64(d, "commit_sync_ns_last",
		(uint64_t)(gufc_cyc_us(app, p->commit_sync_cycles_last) * 1000.0));
	rte_tel_data_add_dict_u64(d, "commit_sync_ns_max",
		(uint64_t)(gufc_cyc_us(app, p->commit_sync_cycles_max) * 1000.0));
	U("in_hw", p->in_hw);
	U("pending", p->pending);
#undef U
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		if (app->ofl[pid] == NULL || ofl_port_caps_format(app->ofl[pid], caps,
			sizeof(caps)) < 0)
			continue;
		snprintf(key, sizeof(key), "port%u_caps", pid);
		rte_tel_data_add_dict_string(d, key, caps);
	}
	return 0;
}

/* /gufc/lcores: one row per lcore and role it holds: cycles busy and idle. */
static int
tel_lcores(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *lcore, *roles, *role, *busy, *idle;
	char rt[4];

	rte_tel_data_start_dict(r->d);
	lcore = tel_col(&c, "lcore", RTE_TEL_U64_VAL);
	roles = tel_col(&c, "roles", RTE_TEL_STRING_VAL);
	role = tel_col(&c, "role", RTE_TEL_STRING_VAL);
	busy = tel_col(&c, "busy_cycles", RTE_TEL_U64_VAL);
	idle = tel_col(&c, "idle_cycles", RTE_TEL_U64_VAL);
	if (idle == NULL)
		return tel_cols_end(&c, r->d, -ENOMEM);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		for (unsigned int k = 0; k < GUFC_CYC__COUNT; k++) {
			struct gufc_cycles cy = lc->st.cyc[k];

			if (!gufc_holds_role(lc->roles, k))
				continue;
			rte_tel_data_add_array_u64(lcore, i);
			rte_tel_data_add_array_string(roles, gufc_roles_text(lc->roles, rt));
			rte_tel_data_add_array_string(role, gufc_cyc_role_name(k));
			rte_tel_data_add_array_u64(busy, cy.busy);
			rte_tel_data_add_array_u64(idle, cy.idle);
		}
	}
	rte_tel_data_add_dict_u64(r->d, "tsc_hz", app->hz);
	return tel_cols_end(&c, r->d, 0);
}

/* /gufc/ipfix: the exporter's counters (all 0 and enabled 0 when off). */
static int
tel_ipfix(struct gufc_app *app, struct tel_req *r)
{
	struct gufc_ipfix_totals t;
	struct rte_tel_data *d = r->d;
	char key[32];

	gufc_ipfix_totals(app, &t);
	rte_tel_data_start_dict(d);
#define U(name, val) rte_tel_data_add_dict_u64(d, name, (uint64_t)(val))
	U("enabled", t.on);
	U("records", t.st.records);
	for (unsigned int k = MOD_IPFIX_END_IDLE; k <= MOD_IPFIX_END_RESOURCES; k++) {
		snprintf(key, sizeof(key), "records_%s", mod_ipfix_end_name(k));
		U(key, t.st.records_end[k]);
	}
	U("messages", t.st.messages);
	U("bytes", t.st.bytes);
	U("templates", t.st.templates);
	U("send_failed", t.st.send_failed);
	U("records_lost", t.st.records_lost);
	U("frames", t.io.frames);
	U("nombuf", t.io.nombuf);
	U("tx_full", t.io.tx_full);
	U("write_errors", t.io.write_err);
	U("sweeps", t.st.sweeps);
#undef U
	return 0;
}

/* /gufc/log: LOG/NFLOG counters, and per LOG/NFLOG rule its records logged and dropped. */
static int
tel_log(struct gufc_app *app, struct tel_req *r)
{
	struct rte_tel_data *d = r->d;
	struct gufc_log_stats ls;
	struct gufc_totals t;
	struct rule_logspec sp;
	uint64_t dropped, logged;
	char key[48];

	gufc_stats_sum(app, &t);
	gufc_log_stats_get(app, t.sum.log_queued, t.sum.log_dropped, &ls);
	rte_tel_data_start_dict(d);
#define U(name, val) rte_tel_data_add_dict_u64(d, name, (uint64_t)(val))
	U("logged", ls.queued);
	U("log_dropped", ls.dropped);
	U("drained", ls.drained);
	U("lines", ls.lines);
	U("lines_suppressed", ls.suppressed);
	U("channel_packets", ls.written);
	U("no_channel", ls.no_chan);
	U("channel_errors", ls.errors);
	for (uint32_t id = 0; id < 64 && rule_engine_logspec_get(app->eng, id, &sp, &dropped) == 0;
		id++) {
		logged = gufc_log_rule_logged(app, sp.rule_id);
		snprintf(key, sizeof(key), "rule_%u_logged", sp.rule_id);
		U(key, logged);
		snprintf(key, sizeof(key), "rule_%u_log_dropped", sp.rule_id);
		U(key, dropped);
	}
#undef U
	return 0;
}

/* /gufc/ports: one row per port: name, device, MAC, MTUs (routing, device), addresses. */
static int
tel_ports(struct gufc_app *app, struct tel_req *r)
{
	struct gufc_port_cfg *pc = calloc(GUFC_MAX_PORTS, sizeof(*pc));
	struct tel_cols c = { 0 };
	struct rte_tel_data *port, *name, *dev, *mac, *mtu, *dmtu, *pair, *host, *addrs;
	struct rte_tel_data *vlan, *parent, *vrx, *vtx, *vdrop, *vunk;
	int rc;

	rte_tel_data_start_dict(r->d);
	port = tel_col(&c, "port", RTE_TEL_U64_VAL);
	name = tel_col(&c, "name", RTE_TEL_STRING_VAL);
	dev = tel_col(&c, "device", RTE_TEL_STRING_VAL);
	mac = tel_col(&c, "mac", RTE_TEL_STRING_VAL);
	mtu = tel_col(&c, "mtu", RTE_TEL_U64_VAL);
	dmtu = tel_col(&c, "dev_mtu", RTE_TEL_U64_VAL);
	pair = tel_col(&c, "pair", RTE_TEL_U64_VAL);
	host = tel_col(&c, "host", RTE_TEL_U64_VAL);
	vlan = tel_col(&c, "vlan", RTE_TEL_U64_VAL);
	parent = tel_col(&c, "parent", RTE_TEL_U64_VAL);
	vrx = tel_col(&c, "vlan_rx", RTE_TEL_U64_VAL);
	vtx = tel_col(&c, "vlan_tx", RTE_TEL_U64_VAL);
	vdrop = tel_col(&c, "vlan_tx_drops", RTE_TEL_U64_VAL);
	vunk = tel_col(&c, "vlan_unknown", RTE_TEL_U64_VAL);
	addrs = tel_col(&c, "addresses", RTE_TEL_STRING_VAL);
	if (addrs == NULL || pc == NULL) {
		free(pc);
		return tel_cols_end(&c, r->d, -ENOMEM);
	}
	rc = gufc_collect_ports(app, pc);
	for (uint16_t p = 0; rc == 0 && p < GUFC_MAX_PORTS; p++) {
		char m[18], a[MOD_NEIGH_PORT_ADDRS * LEX_PREFIX_STRLEN];
		struct gufc_vlan_counts vc;

		if (!app->ports[p].used)
			continue;
		gufc_mac_text(app->ports[p].mac.addr_bytes, m);
		gufc_port_addrs_text(&pc[p], a, sizeof(a));
		rte_tel_data_add_array_u64(port, p);
		rte_tel_data_add_array_string(name, pc[p].name);
		rte_tel_data_add_array_string(dev, app->ports[p].name);
		rte_tel_data_add_array_string(mac, m);
		rte_tel_data_add_array_u64(mtu, pc[p].mtu);
		rte_tel_data_add_array_u64(dmtu, gufc_port_dev_mtu_now(app, p));
		rte_tel_data_add_array_u64(pair, app->ports[p].pair);
		rte_tel_data_add_array_u64(host, pc[p].host ? 1 : 0);
		gufc_port_vlan_counts(app, p, &vc);
		rte_tel_data_add_array_u64(vlan, app->ports[p].vid);
		rte_tel_data_add_array_u64(parent, app->ports[p].dev);
		rte_tel_data_add_array_u64(vrx, vc.rx);
		rte_tel_data_add_array_u64(vtx, vc.tx);
		rte_tel_data_add_array_u64(vdrop, vc.tx_drops);
		rte_tel_data_add_array_u64(vunk, vc.unknown);
		rte_tel_data_add_array_string(addrs, a);
	}
	free(pc);
	return tel_cols_end(&c, r->d, rc);
}

/* /gufc/neighbours: one row per neighbour (at most TEL_ROWS_MAX). */
static int
tel_neighbours(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *port, *addr, *mac, *state, *age, *refs, *queued, *adj;
	struct mod_neigh_info *rows = NULL;
	unsigned int n = 0;
	int rc;

	rte_tel_data_start_dict(r->d);
	port = tel_col(&c, "port", RTE_TEL_U64_VAL);
	addr = tel_col(&c, "address", RTE_TEL_STRING_VAL);
	mac = tel_col(&c, "mac", RTE_TEL_STRING_VAL);
	state = tel_col(&c, "state", RTE_TEL_STRING_VAL);
	age = tel_col(&c, "age_ms", RTE_TEL_U64_VAL);
	refs = tel_col(&c, "refs", RTE_TEL_U64_VAL);
	queued = tel_col(&c, "queued", RTE_TEL_U64_VAL);
	adj = tel_col(&c, "adj", RTE_TEL_U64_VAL);
	if (adj == NULL)
		return tel_cols_end(&c, r->d, -ENOMEM);
	rc = gufc_collect_neighbours(app, &rows, &n, TEL_ROWS_MAX);
	for (unsigned int i = 0; rc == 0 && i < n; i++) {
		char a[LEX_ADDR_STRLEN], m[18] = "";

		lex_addr_format(rows[i].family, rows[i].addr, a, sizeof(a));
		if (rows[i].state != MOD_NEIGH_INCOMPLETE && rows[i].state != MOD_NEIGH_FAILED)
			gufc_mac_text(rows[i].mac, m);
		rte_tel_data_add_array_u64(port, rows[i].port);
		rte_tel_data_add_array_string(addr, a);
		rte_tel_data_add_array_string(mac, m);
		rte_tel_data_add_array_string(state, mod_neigh_state_name(rows[i].state));
		rte_tel_data_add_array_u64(age, rows[i].age_ms);
		rte_tel_data_add_array_u64(refs, rows[i].refs);
		rte_tel_data_add_array_u64(queued, rows[i].queued);
		rte_tel_data_add_array_u64(adj, rows[i].adj);
	}
	free(rows);
	return tel_cols_end(&c, r->d, rc);
}

/* /gufc/routes: one row per route, every table's (at most TEL_ROWS_MAX). */
static int
tel_routes(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *pfx, *port, *via, *conn, *tbl, *tname;
	struct gufc_route_row *rows = NULL;
	unsigned int n = 0;
	int rc;

	rte_tel_data_start_dict(r->d);
	pfx = tel_col(&c, "prefix", RTE_TEL_STRING_VAL);
	port = tel_col(&c, "port", RTE_TEL_U64_VAL);
	via = tel_col(&c, "via", RTE_TEL_STRING_VAL);
	conn = tel_col(&c, "connected", RTE_TEL_U64_VAL);
	tbl = tel_col(&c, "table", RTE_TEL_U64_VAL);
	tname = tel_col(&c, "table_name", RTE_TEL_STRING_VAL);
	if (tname == NULL)
		return tel_cols_end(&c, r->d, -ENOMEM);
	rc = gufc_collect_route_rows(app, &rows, &n, TEL_ROWS_MAX);
	for (unsigned int i = 0; rc == 0 && i < n; i++) {
		const struct mod_route_info *ri = &rows[i].ri;
		struct lex_prefix p = { .family = ri->family, .len = ri->depth };
		char ps[LEX_PREFIX_STRLEN], gw[LEX_ADDR_STRLEN] = "";

		memcpy(p.addr, ri->addr, sizeof(p.addr));
		lex_prefix_format(&p, ps, sizeof(ps));
		if (ri->nh.via)
			lex_addr_format(p.family, ri->nh.gw, gw, sizeof(gw));
		rte_tel_data_add_array_string(pfx, ps);
		rte_tel_data_add_array_u64(port, ri->nh.port);
		rte_tel_data_add_array_string(via, gw);
		rte_tel_data_add_array_u64(conn, (ri->flags & MOD_ROUTE_F_CONNECTED) != 0);
		rte_tel_data_add_array_u64(tbl, rows[i].table);
		rte_tel_data_add_array_string(tname, rows[i].name);
	}
	free(rows);
	return tel_cols_end(&c, r->d, rc);
}

/* /gufc/route_rules: one row per routing rule, the implicit main rule included. */
static int
tel_route_rules(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *pref, *rule, *hits;
	struct gufc_prule_row *rows = NULL;
	unsigned int n = 0;
	int rc;

	rte_tel_data_start_dict(r->d);
	pref = tel_col(&c, "pref", RTE_TEL_U64_VAL);
	rule = tel_col(&c, "rule", RTE_TEL_STRING_VAL);
	hits = tel_col(&c, "hits", RTE_TEL_U64_VAL);
	if (hits == NULL)
		return tel_cols_end(&c, r->d, -ENOMEM);
	rc = gufc_collect_prule_rows(app, &rows, &n, TEL_ROWS_MAX);
	for (unsigned int i = 0; rc == 0 && i < n; i++) {
		rte_tel_data_add_array_u64(pref, rows[i].pref);
		rte_tel_data_add_array_string(rule, rows[i].text);
		rte_tel_data_add_array_u64(hits, rows[i].hits);
	}
	free(rows);
	return tel_cols_end(&c, r->d, rc);
}

/* /gufc/recent: one row per address of a "-m recent" list (at most TEL_ROWS_MAX). */
static int
tel_recent(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *list, *addr, *ttl, *hits, *last, *first;
	struct gufc_recent_row *rows;
	unsigned int n, total;
	int rc;

	rc = gufc_collect_recent(app, TEL_ROWS_MAX, &rows, &n, &total);
	if (rc != 0)
		return rc;
	rte_tel_data_start_dict(r->d);
	list = tel_col(&c, "list", RTE_TEL_STRING_VAL);
	addr = tel_col(&c, "addr", RTE_TEL_STRING_VAL);
	ttl = tel_col(&c, "ttl", RTE_TEL_U64_VAL);
	hits = tel_col(&c, "hits", RTE_TEL_U64_VAL);
	last = tel_col(&c, "last_ms_ago", RTE_TEL_U64_VAL);
	first = tel_col(&c, "first_ms_ago", RTE_TEL_U64_VAL);
	if (first == NULL) {
		free(rows);
		return tel_cols_end(&c, r->d, -ENOMEM);
	}
	for (unsigned int i = 0; i < n; i++) {
		/* An empty list is a row with no address. */
		rte_tel_data_add_array_string(list, rows[i].name);
		rte_tel_data_add_array_string(addr, rows[i].has ? rows[i].addr : "");
		rte_tel_data_add_array_u64(ttl, rows[i].e.ttl);
		rte_tel_data_add_array_u64(hits, rows[i].e.hits);
		rte_tel_data_add_array_u64(last, rows[i].last_ms);
		rte_tel_data_add_array_u64(first, rows[i].first_ms);
	}
	free(rows);
	rte_tel_data_add_dict_u64(r->d, "rows", total);
	return tel_cols_end(&c, r->d, 0);
}

static int
tel_quota(struct gufc_app *app, struct tel_req *r)
{
	struct tel_cols c = { 0 };
	struct rte_tel_data *rule, *match, *bytes, *left;
	struct rule_quota_info *rows;
	unsigned int n;
	int rc;

	rc = gufc_collect_quota(app, &rows, &n);
	if (rc != 0)
		return rc;
	rte_tel_data_start_dict(r->d);
	rule = tel_col(&c, "rule", RTE_TEL_U64_VAL);
	match = tel_col(&c, "match", RTE_TEL_U64_VAL);
	bytes = tel_col(&c, "bytes", RTE_TEL_U64_VAL);
	left = tel_col(&c, "left", RTE_TEL_U64_VAL);
	if (left == NULL) {
		free(rows);
		return tel_cols_end(&c, r->d, -ENOMEM);
	}
	for (unsigned int i = 0; i < n && i < TEL_ROWS_MAX; i++) {
		rte_tel_data_add_array_u64(rule, rows[i].rule_id);
		rte_tel_data_add_array_u64(match, rows[i].xi + 1u);
		rte_tel_data_add_array_u64(bytes, rows[i].bytes);
		rte_tel_data_add_array_u64(left, rows[i].left);
	}
	free(rows);
	rte_tel_data_add_dict_u64(r->d, "rows", n);
	return tel_cols_end(&c, r->d, 0);
}

static int
tel_answer(struct gufc_app *app, struct tel_req *r)
{
	if (strcmp(r->cmd, "/gufc/ports") == 0)
		return tel_ports(app, r);
	if (strcmp(r->cmd, "/gufc/neighbours") == 0)
		return tel_neighbours(app, r);
	if (strcmp(r->cmd, "/gufc/routes") == 0)
		return tel_routes(app, r);
	if (strcmp(r->cmd, "/gufc/route_rules") == 0)
		return tel_route_rules(app, r);
	if (strcmp(r->cmd, "/gufc/stats") == 0)
		return tel_stats(app, r);
	if (strcmp(r->cmd, "/gufc/drops") == 0)
		return tel_drops(app, r);
	if (strcmp(r->cmd, "/gufc/channels") == 0)
		return tel_channels(app, r);
	if (strcmp(r->cmd, "/gufc/rules") == 0)
		return tel_rules(app, r);
	if (strcmp(r->cmd, "/gufc/flows") == 0)
		return tel_flows(app, r);
	if (strcmp(r->cmd, "/gufc/offload") == 0)
		return tel_offload(app, r);
	if (strcmp(r->cmd, "/gufc/lcores") == 0)
		return tel_lcores(app, r);
	if (strcmp(r->cmd, "/gufc/ipfix") == 0)
		return tel_ipfix(app, r);
	if (strcmp(r->cmd, "/gufc/log") == 0)
		return tel_log(app, r);
	if (strcmp(r->cmd, "/gufc/recent") == 0)
		return tel_recent(app, r);
	if (strcmp(r->cmd, "/gufc/quota") == 0)
		return tel_quota(app, r);
	return -ENOENT;
}

int
gufc_telemetry_poll(struct gufc_app *app)
{
	struct tel_req *r;

	if (__atomic_load_n(&tel.req, __ATOMIC_ACQUIRE) == NULL)
		return 0;
	pthread_mutex_lock(&tel.lock);
	r = tel.req;
	tel.req = NULL;
	pthread_mutex_unlock(&tel.lock);
	if (r == NULL)
		return 0;
	r->rc = tel_answer(app, r);
	pthread_mutex_lock(&tel.lock);
	r->done = 1;
	pthread_cond_broadcast(&tel.cond);
	pthread_mutex_unlock(&tel.lock);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Callbacks (telemetry thread)                                              */
/* ------------------------------------------------------------------------ */

static int
tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_req r = { .cmd = cmd, .params = params, .d = d };
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += TEL_WAIT_MS / 1000;
	pthread_mutex_lock(&tel.lock);
	/* One request at a time (one thread per telemetry client). */
	while (tel.app != NULL && tel.req != NULL)
		if (pthread_cond_timedwait(&tel.cond, &tel.lock, &deadline) != 0)
			break;
	if (tel.app == NULL || tel.req != NULL) {
		pthread_mutex_unlock(&tel.lock);
		return -EAGAIN;
	}
	__atomic_store_n(&tel.req, &r, __ATOMIC_RELEASE);
	while (!r.done) {
		/* Not taken yet and gufc stops or hangs: withdraw. Taken: wait for the answer. */
		if (tel.req == &r && tel.app == NULL)
			break;
		if (pthread_cond_timedwait(&tel.cond, &tel.lock, &deadline) == ETIMEDOUT) {
			if (tel.req == &r)
				break;
			deadline.tv_sec++;
		}
	}
	if (!r.done) {
		tel.req = NULL;
		r.rc = -EAGAIN;
	}
	pthread_cond_broadcast(&tel.cond);
	pthread_mutex_unlock(&tel.lock);
	return r.rc;
}

int
gufc_telemetry_init(struct gufc_app *app)
{
	static const struct {
		const char *cmd;
		const char *help;
	} cmds[] = {
		{ "/gufc/stats", "gufc counters (the shell's 'show stats'). No parameters" },
		{ "/gufc/drops", "gufc drops by reason. No parameters" },
		{ "/gufc/channels", "gufc channels and their counters, as columns. No parameters" },
		{ "/gufc/rules", "gufc committed rules with packet/byte counters, as columns. "
			"No parameters" },
		{ "/gufc/flows", "gufc flows, as columns. Parameter: how many (default 32, "
			"at most 128)" },
		{ "/gufc/offload", "gufc offload: backend, capabilities per port, hardware and "
			"policy counters (the shell's 'show offload'). No parameters" },
		{ "/gufc/lcores", "gufc busy and idle TSC cycles per lcore and role, as columns "
			"(the shell's 'show lcores'). No parameters" },
		{ "/gufc/ipfix", "gufc IPFIX export counters (the shell's 'show ipfix'). "
			"No parameters" },
		{ "/gufc/log", "gufc LOG/NFLOG counters, per rule logged and log_dropped "
			"(the shell's 'show log'). No parameters" },
		{ "/gufc/ports", "gufc ports: name, device, MAC, MTU, addresses, as columns "
			"(the shell's 'show ports'). No parameters" },
		{ "/gufc/neighbours", "gufc router mode's neighbours (ARP/ND), as columns, at "
			"most 128 (the shell's 'show neighbours'). No parameters" },
		{ "/gufc/routes", "gufc routes of every table, main's first, as columns, at most "
			"128 (the shell's 'show routes'). No parameters" },
		{ "/gufc/route_rules", "gufc routing rules: pref, rule, hits, as columns "
			"(the shell's 'show route-rules'). No parameters" },
		{ "/gufc/recent", "gufc -m recent lists, a row per address, as columns, at most 128 "
			"(the shell's 'show recent'). No parameters" },
		{ "/gufc/quota", "gufc -m quota countdowns: rule, match, bytes, left, as columns, "
			"at most 128. No parameters" },
	};
	int rc;

	if (!tel.registered) {
		for (unsigned int i = 0; i < RTE_DIM(cmds); i++) {
			rc = rte_telemetry_register_cmd(cmds[i].cmd, tel_cb, cmds[i].help);
			if (rc != 0)
				return rc < 0 ? rc : -rc;
		}
		tel.registered = true;
	}
	pthread_mutex_lock(&tel.lock);
	tel.app = app;
	pthread_mutex_unlock(&tel.lock);
	return 0;
}

void
gufc_telemetry_fini(struct gufc_app *app)
{
	RTE_SET_USED(app);
	pthread_mutex_lock(&tel.lock);
	tel.app = NULL;
	pthread_cond_broadcast(&tel.cond);
	pthread_mutex_unlock(&tel.lock);
}
