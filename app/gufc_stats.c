/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_stats.c — reading the counters: per-lcore counters (the app's
 * and the datapath contexts') summed, the channel totals, the engine's and
 * the tables' figures, gathered into the drop registry of gufc_drops.h; the
 * periodic line, the final summary (with the accounting invariant
 * rx == delivered + sum(drops)) and the same as JSON.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_mempool.h>

#include "gufc_ctl.h"

static const char *const drop_ids[GUFC_DROP_PARSE] = {
#define GUFC_DROP_ID(name, id, text) [GUFC_DROP_##name] = id,
	GUFC_DROPS(GUFC_DROP_ID)
#undef GUFC_DROP_ID
};
static const char *const drop_texts[GUFC_DROP_PARSE] = {
#define GUFC_DROP_TEXT(name, id, text) [GUFC_DROP_##name] = text,
	GUFC_DROPS(GUFC_DROP_TEXT)
#undef GUFC_DROP_TEXT
};

const char *
gufc_drop_id(unsigned int d)
{
	static char parse_ids[FC_PARSE__COUNT][48];

	if (d < GUFC_DROP_PARSE)
		return drop_ids[d];
	if (!gufc_drop_valid(d))
		return NULL;
	d -= GUFC_DROP_PARSE;
	if (parse_ids[d][0] == '\0')
		snprintf(parse_ids[d], sizeof(parse_ids[d]), "parse_%s", fc_parse_result_id(d));
	return parse_ids[d];
}

const char *
gufc_drop_text(unsigned int d)
{
	if (d < GUFC_DROP_PARSE)
		return drop_texts[d];
	if (!gufc_drop_valid(d))
		return "?";
	return fc_parse_result_name(d - GUFC_DROP_PARSE);
}

/*
 * The registry, list by list (gufc_drops.h): each library's counters are
 * indexed by its own enum, the app's by enum gufc_drop.
 */
static void
drops_gather(struct gufc_app *app, struct gufc_totals *t, const struct dp_stats *dp)
{
	struct gufc_sum *s = &t->sum;

#define FROM_RULE(name, id, text) s->drops[GUFC_DROP_##name] += dp->rule_drops[RULE_DROP_##name];
	RULE_DROP_REASONS(FROM_RULE)
#undef FROM_RULE
#define FROM_DP(name, id, text) s->drops[GUFC_DROP_##name] += dp->drops[DP_DROP_##name];
	DP_DROP_REASONS(FROM_DP)
#undef FROM_DP
#define FROM_NEIGH(name, id, text) \
	s->drops[GUFC_DROP_##name] += t->nb.drops[MOD_NEIGH_DROP_##name];
	MOD_NEIGH_DROP_REASONS(FROM_NEIGH)
#undef FROM_NEIGH
#define FROM_CHAN(name, id, text) s->drops[GUFC_DROP_##name] += t->ct.drops[CHAN_DROP_##name];
	CHAN_DROP_REASONS(FROM_CHAN)
#undef FROM_CHAN
	for (unsigned int r = FC_PARSE_ERR_BASE; r < FC_PARSE__COUNT; r++)
		s->drops[GUFC_DROP_PARSE_RES(r)] += dp->parse_drops[r];
	/* Whatever sits in a ring is not delivered (yet). At exit only app
	 * channels can hold packets (gufc_slow_busy() waited for the rest). */
	if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) == GUFC_PHASE_DONE)
		s->drops[GUFC_DROP_APP_UNCONSUMED] = t->ct.in_ring;
	/* Fragments that went into a datagram (the datagram counts once). */
	if (s->frag_in > s->frag_out + s->frag_dropped)
		s->drops[GUFC_DROP_FRAG_MERGED] = s->frag_in - s->frag_out - s->frag_dropped;
	/* Packets a hardware DROP rule took never reached rte_eth_rx_burst()'s
	 * caller: they count as received and dropped (hw_drop). */
	s->drops[GUFC_DROP_HW_DROP] = t->ofl.port.hw_dropped;
}

void
gufc_stats_sum(struct gufc_app *app, struct gufc_totals *t)
{
	struct gufc_sum *s = &t->sum;
	struct dp_stats dp;

	memset(t, 0, sizeof(*t));
	memset(&dp, 0, sizeof(dp));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];
		const struct gufc_stats *l;

		if (lc == NULL)
			continue;
		l = &lc->st;
		dp_stats_add(&dp, &lc->rx_dp.st);
		dp_stats_add(&dp, &lc->slow_dp.st);
		s->frag_in += l->frag_in;
		s->frag_out += l->frag_out;
		s->frag_dropped += l->frag_dropped;
		s->loops += l->loops;
		s->busy_loops += l->busy_loops;
		for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++)
			s->drops[d] += l->drops[d];
	}
	s->rx = dp.rx;
	s->rx_bytes = dp.rx_bytes;
	s->hits = dp.hits;
	s->misses = dp.misses;
	s->upcalls = dp.upcalls;
	s->upcall_stale = dp.upcall_stale;
	s->upcall_interest = dp.upcall_interest;
	s->upcall_per_packet = dp.upcall_per_packet;
	s->upcall_class = dp.upcall_class;
	s->ct_synack_fast = dp.ct_synack_fast;
	s->ct_ignored_fast = dp.ct_ignored_fast;
	s->upcall_pending = dp.upcall_pending;
	s->upcall_uncounted = dp.upcall_uncounted;
	s->waited = dp.waited;
	s->waiting = dp.waiting;
	s->slow_pkts = dp.slow_pkts;
	s->upcall_fast = dp.upcall_fast;
	s->fwd_pkts = dp.fwd_pkts;
	s->non_ip_pass = dp.non_ip_pass;
	s->hw_classified = dp.hw_classified;
	s->hw_fallback = dp.hw_fallback;
	s->ll_held = dp.ll_held;
	s->ll_bursts = dp.ll_bursts;
	s->up_rings = dp.up_rings;
	s->up_kept = dp.up_stashed;
	s->rx_kept = dp.kept;
	s->rx_kept_idle = dp.kept_idle;
	s->neigh_in = dp.neigh_in;
	s->l3_slow = dp.l3_slow;
	s->held = dp.held;
	s->echo_replies = dp.echo_replies;
	s->local_in = dp.local_in;
	s->icmp_errors = dp.icmp_errors;
	s->icmp_suppressed = dp.icmp_suppressed;
	s->frag_datagrams = dp.frag_datagrams;
	s->frag_made = dp.frag_made;
	s->log_queued = dp.log_queued;
	s->log_dropped = dp.log_dropped;
	s->rewritten = dp.rewritten;
	s->rewrite_skipped = dp.rewrite_skipped;
	s->reject_replies = dp.reject_replies;
	s->reject_suppressed = dp.reject_suppressed;
	s->originated = dp.originated;
	mod_neigh_stats_get(app->neigh, &t->nb);
	t->originated = dp.originated + t->nb.originated;
	chan_totals_get(app->chans, &t->ct);
	chan_flow_pool_get(app->chans, &t->fp);
	s->tx_pkts = t->ct.tx_sent;
	gufc_offload_totals(app, &t->ofl);
	drops_gather(app, t, &dp);
	s->rx += t->ofl.port.hw_dropped;
	s->rx_bytes += t->ofl.port.hw_dropped_bytes;
	/*
	 * Delivered: what channel consumers took (less what TX refused: a drop)
	 * and, in router mode, the ARP/ND frames the neighbour module took in,
	 * less the packets gufc made itself (they were never received).
	 */
	t->delivered = t->ct.consumed - RTE_MIN(t->ct.consumed, t->ct.tx_full) + t->nb.consumed;
	t->delivered -= RTE_MIN(t->delivered, t->originated);
	for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++)
		t->drops_total += s->drops[d];
	if (app->tab4 != NULL)
		fc_table_stats_get(app->tab4, &t->t4);
	if (app->tab6 != NULL)
		fc_table_stats_get(app->tab6, &t->t6);
	if (app->eng != NULL)
		rule_engine_stats_get(app->eng, &t->es);
	mod_ct_module_stats_get(app->ctm, &t->cts);
	mod_ct_module_helper_stats_get(app->ctm, &t->cth);
	mod_nat_module_stats_get(app->natm, &t->nats);
	mod_route_stats_get(app->route, &t->rts);
	gufc_ipfix_totals(app, &t->ipfix);
	t->reload = app->reload;
}

const char *
gufc_roles_text(unsigned int roles, char buf[4])
{
	unsigned int n = 0;

	if (roles & GUFC_ROLE_MAIN)
		buf[n++] = 'M';
	if (roles & GUFC_ROLE_RULES)
		buf[n++] = 'R';
	if (roles & GUFC_ROLE_RX)
		buf[n++] = 'X';
	buf[n] = '\0';
	return buf;
}

void
gufc_lcores_dump(const struct gufc_app *app, FILE *f, bool detail)
{
	char line[128], roles[4];

	if (detail)
		fprintf(f, "%5s %-5s %-6s %20s %20s %8s\n", "lcore", "roles", "role", "busy cycles",
			"idle cycles", "busy");
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];
		struct gufc_cycles all = { 0, 0 };
		int n = 0;

		if (lc == NULL)
			continue;
		gufc_roles_text(lc->roles, roles);
		for (unsigned int r = 0; r < GUFC_CYC__COUNT; r++) {
			struct gufc_cycles c = lc->st.cyc[r]; /* a copy: the lcore moves on */

			if (!gufc_holds_role(lc->roles, r))
				continue;
			gufc_cycles_acc(&all, &c);
			if (detail) {
				char id[8];

				snprintf(id, sizeof(id), "%u", i);
				gufc_cycles_format(line, sizeof(line), r, &c);
				/* The lcore and its roles on its first row. */
				fprintf(f, "%5s %-5s %s\n", n == 0 ? id : "", n == 0 ? roles : "", line);
				n = 1;
			} else {
				n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s %.1f%%",
					n ? ", " : "", gufc_cyc_role_name(r),
					100.0 * gufc_cycles_share(&c));
			}
		}
		if (detail) {
			fprintf(f, "%5s %-5s %-6s %20" PRIu64 " %20" PRIu64 " %7.2f%%\n", "", "", "all",
				all.busy, all.idle, 100.0 * gufc_cycles_share(&all));
		} else {
			char what[32];

			snprintf(what, sizeof(what), "lcore %u (%s) busy", i, roles);
			fprintf(f, "%-28s %13.1f%%  (%s)\n", what, 100.0 * gufc_cycles_share(&all),
				line);
		}
	}
	if (detail)
		fprintf(f, "TSC %" PRIu64 " Hz; busy: passes that handled packets (rx, rules) or a "
			"request (main)\n", app->hz);
}

static double
hit_rate(const struct gufc_totals *t)
{
	uint64_t l = t->sum.hits + t->sum.misses;

	return l ? 100.0 * (double)t->sum.hits / (double)l : 0.0;
}

/* Share of received packets the NIC classified (marked and taken, or dropped), %. */
static double
hw_share(const struct gufc_totals *t)
{
	uint64_t hw = t->sum.hw_classified + t->ofl.port.hw_dropped;

	return t->sum.rx ? 100.0 * (double)hw / (double)t->sum.rx : 0.0;
}

void
gufc_stats_line(struct gufc_app *app, FILE *f)
{
	static uint64_t last_rx, last_tsc;
	struct gufc_totals t;
	uint64_t tsc = rte_get_tsc_cycles();
	double dt;

	gufc_stats_sum(app, &t);
	dt = last_tsc ? (double)(tsc - last_tsc) / (double)app->hz : 0;
	fprintf(f,
		"stats: rx %" PRIu64 " (%.0f pps) delivered %" PRIu64 " drops %" PRIu64
		" flows %u hit %.1f%% upcalls %" PRIu64 " created %" PRIu64 " tx %" PRIu64 "\n",
		t.sum.rx, dt > 0 ? (double)(t.sum.rx - last_rx) / dt : 0.0, t.delivered,
		t.drops_total, t.t4.occupancy + t.t6.occupancy, hit_rate(&t), t.sum.upcalls,
		t.es.flows, t.sum.tx_pkts);
	fflush(f);
	last_rx = t.sum.rx;
	last_tsc = tsc;
}

bool
gufc_accounting_ok(const struct gufc_totals *t)
{
	return t->sum.rx == t->delivered + t->drops_total;
}

bool
gufc_stats_summary(struct gufc_app *app, const struct gufc_totals *t, FILE *f)
{
	const struct gufc_sum *s = &t->sum;
	const struct rule_set *set = app->eng ? rule_engine_rules(app->eng) : NULL;
	bool ok = gufc_accounting_ok(t);

	fprintf(f, "\n================ gufc summary ================\n");
	fprintf(f, "%-28s %14" PRIu64 "  (%" PRIu64 " bytes)\n", "rx packets", s->rx, s->rx_bytes);
	fprintf(f, "%-28s %14" PRIu64 "\n", "delivered", t->delivered);
	fprintf(f, "%-28s %14" PRIu64 "\n", "dropped", t->drops_total);
	for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++)
		if (gufc_drop_valid(d) && s->drops[d] != 0)
			fprintf(f, "  %-26s %14" PRIu64 "  %s\n", gufc_drop_id(d), s->drops[d],
				gufc_drop_text(d));
	fprintf(f, "%-28s %14" PRIu64 "  (reply entries %" PRIu64 ", removed %" PRIu64 ")\n",
		"flows created", t->es.flows, t->es.replies, t->es.removed);
	fprintf(f, "%-28s %14u  (ipv4 %u, ipv6 %u, capacity %u each, cuckoo moves %" PRIu64 ")\n",
		"flow entries now", t->t4.occupancy + t->t6.occupancy, t->t4.occupancy,
		t->t6.occupancy, t->t4.capacity, t->t4.moves + t->t6.moves);
	fprintf(f, "%-28s %14" PRIu64 "  (refused %" PRIu64 ", of which %" PRIu64
		" while every spare slot waited for the RX lcores)\n", "flows evicted",
		t->t4.evictions + t->t6.evictions, t->t4.refused + t->t6.refused,
		t->t4.refused_grace + t->t6.refused_grace);
	fprintf(f, "%-28s %14" PRIu64 "  (established %" PRIu64 ", of which %" PRIu64
		" while not-established entries remained: out of order)\n",
		"  not established", t->t4.evict_early + t->t6.evict_early,
		t->t4.evictions + t->t6.evictions - t->t4.evict_early - t->t6.evict_early,
		t->t4.evict_est_early + t->t6.evict_est_early);
	fprintf(f, "%-28s %13.1f%%  (hits %" PRIu64 ", misses %" PRIu64 ")\n", "cache hit rate",
		hit_rate(t), s->hits, s->misses);
	fprintf(f, "%-28s %14" PRIu64 "  (stale %" PRIu64 ", interest %" PRIu64
		", per packet %" PRIu64 ", flag class %" PRIu64 ", behind their connection's %" PRIu64
		", uncounted %" PRIu64 ")\n",
		"upcalls", s->upcalls, s->upcall_stale, s->upcall_interest, s->upcall_per_packet,
		s->upcall_class, s->upcall_pending, s->upcall_uncounted);
	fprintf(f, "%-28s %14" PRIu64 "  (behind their connection's upcall)\n", "waited",
		s->waited);
	fprintf(f, "%-28s %14" PRIu64 "  (classifier %" PRIu64 ", reference %" PRIu64
		", behind their connection's on the fast path's code %" PRIu64 ")\n",
		"slow-path packets", s->slow_pkts, t->es.classify_cls, t->es.classify_ref,
		s->upcall_fast);
	fprintf(f, "%-28s %14" PRIu64 "  (walked and kept %" PRIu64 ", per packet %" PRIu64
		", around the cache %" PRIu64 ", emptied %" PRIu64 " times, whole walks %" PRIu64
		", new flows' whole walks %" PRIu64 ")\n",
		"classifier results reused", t->es.clsc_hits, t->es.clsc_misses,
		t->es.clsc_uncacheable, t->es.clsc_skipped, t->es.clsc_flushes,
		t->es.clsc_walk_hits, t->es.clsc_new_hits);
	if (t->es.refilter_kept != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (their connection's ctstate changed, their walk would not)\n",
			"entries kept, not refiltered", t->es.refilter_kept);
	if (t->es.synack_ahead != 0 || t->es.synack_plain_not != 0 || s->ct_synack_fast != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (taken on the fast path; connections armed for it %" PRIu64
			", decided ahead %" PRIu64 ", settled by aging %" PRIu64
			", walk not plain %" PRIu64 ")\n",
			"first replies (SYN/ACK)", s->ct_synack_fast, t->cts.synack_armed,
			t->es.synack_ahead, t->es.synack_settled, t->es.synack_plain_not);
	if (t->es.reply_moved != 0 || t->es.port_mismatch != 0 || t->es.reply_guessed != 0)
		fprintf(f,
			"%-28s %14" PRIu64 "  (reply entries moved to their replies' port %" PRIu64
			", keyed where earlier replies came %" PRIu64 ")\n",
			"port mismatch packets", t->es.port_mismatch, t->es.reply_moved,
			t->es.reply_guessed);
	if (t->es.trace_lost != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (non-deciding rules miss their packets)\n",
			"rule traces lost", t->es.trace_lost);
	if (s->frag_in != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (datagrams %" PRIu64 ")\n",
			"fragments reassembled", s->frag_in, s->frag_out);
	if (app->ctm != NULL) {
		uint64_t inv = 0;

		for (unsigned int w = 0; w < MOD_CT_WHY__COUNT; w++)
			inv += t->cts.invalid[w];
		fprintf(f, "%-28s %14" PRIu64 "  (refused %" PRIu64 ", ignored segments %" PRIu64
			", reopened %" PRIu64 ", removed by rst %" PRIu64 ", sctp associations %" PRIu64
			")\n", "tcp connections now",
			t->cts.tcp_conns, t->cts.tcp_full, t->cts.ignored, t->cts.reopened,
			t->cts.removed, t->cts.sctp_conns);
		if (s->ct_ignored_fast != 0)
			fprintf(f, "%-28s %14" PRIu64 "  (accepted, no idle time renewed)\n",
				"ignored on the fast path", s->ct_ignored_fast);
		if (inv != 0) {
			fprintf(f, "%-28s %14" PRIu64 "  (", "conntrack invalid", inv);
			for (unsigned int w = 1, k = 0; w < MOD_CT_WHY__COUNT; w++)
				if (t->cts.invalid[w] != 0)
					fprintf(f, "%s%s %" PRIu64, k++ ? ", " : "", mod_ct_why_name(w),
						t->cts.invalid[w]);
			fprintf(f, ")\n");
		}
	}
	if (s->non_ip_pass != 0)
		fprintf(f, "%-28s %14" PRIu64 "\n", "non-ip passed", s->non_ip_pass);
	fprintf(f, "%-28s %14" PRIu64 "\n", "transmitted (tx channels)", s->tx_pkts);
	if (app->lossless)
		fprintf(f, "%-28s %14" PRIu64 "  (times a full ring held RX back)\n",
			"lossless: held bursts", s->ll_bursts);
	if (t->ofl.on) {
		const struct ofl_policy_stats *p = &t->ofl.pol;

		fprintf(f, "%-28s %13.1f%%  (marked %" PRIu64 ", hw_drop %" PRIu64
			", mark fallback %" PRIu64 ")\n", "hw classified", hw_share(t),
			s->hw_classified, t->ofl.port.hw_dropped, s->hw_fallback);
		fprintf(f, "%-28s %14" PRIu64 "  (refused %" PRIu64 ", table full %" PRIu64
			", capped %" PRIu64 ", in hw now %u)\n", "flows offloaded", p->offloaded,
			p->offload_refused, p->offload_full, p->capped, p->in_hw);
		fprintf(f, "%-28s %14" PRIu64 "  (gone %" PRIu64 ", changed %" PRIu64 ", cold %"
			PRIu64 ", commit %" PRIu64 ")\n", "flows back to software", p->removed,
			p->removed_gone, p->removed_changed, p->removed_cold, p->removed_commit);
		fprintf(f, "%-28s %14" PRIu64 "  (max %.1f us before the acknowledgement)\n",
			"commit syncs", p->commit_syncs, gufc_cyc_us(app, p->commit_sync_cycles_max));
	}

	if (t->ipfix.on)
		fprintf(f, "%-28s %14" PRIu64 "  (messages %" PRIu64 ", templates %" PRIu64
			", lost messages %" PRIu64 ")\n", "ipfix records", t->ipfix.st.records,
			t->ipfix.st.messages, t->ipfix.st.templates, t->ipfix.st.send_failed);
	if (t->reload.ok + t->reload.failed != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (failed %" PRIu64 ")\n", "rule reloads (SIGHUP)",
			t->reload.ok, t->reload.failed);
	if (s->reject_replies + s->reject_suppressed != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (suppressed %" PRIu64 ")\n", "reject replies",
			s->reject_replies, s->reject_suppressed);
	if (s->log_queued + s->log_dropped != 0) {
		struct gufc_log_stats ls;

		gufc_log_stats_get(app, s->log_queued, s->log_dropped, &ls);
		fprintf(f, "%-28s %14" PRIu64 "  (log_dropped %" PRIu64 ", lines %" PRIu64
			", suppressed %" PRIu64 ", to log channels %" PRIu64 ")\n", "logged (LOG, NFLOG)",
			ls.queued, ls.dropped, ls.lines, ls.suppressed, ls.written);
	}
	if (s->rewritten + s->rewrite_skipped != 0)
		fprintf(f, "%-28s %14" PRIu64 "  (skipped %" PRIu64 ")\n", "rewritten packets",
			s->rewritten, s->rewrite_skipped);
	if (app->neigh != NULL)
		gufc_router_stats_text(t, f, 28);
	gufc_lcores_dump(app, f, false);

	fprintf(f, "\nchannels:\n  %-18s %-8s %12s %12s %10s %10s\n", "name", "kind", "enqueued",
		"consumed", "full", "flushed");
	for (int id = chan_next_named(app->chans, 0); id >= 0;
		id = chan_next_named(app->chans, (unsigned int)id + 1)) {
		struct chan_info ci;
		struct chan_stats cs;

		if (chan_info_get(app->chans, (uint32_t)id, &ci) != 0 ||
			chan_stats_get(app->chans, (uint32_t)id, &cs) != 0)
			continue;
		fprintf(f, "  %-18s %-8s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
			ci.name, chan_kind_name(ci.kind), cs.enqueued, cs.consumed, cs.drop_full,
			cs.flushed);
	}
	if (t->fp.max != 0)
		fprintf(f,
			"  per-flow channels: in use %" PRIu32 ", free %" PRIu32 ", cap %" PRIu32
			", %" PRIu32 " bytes per ring; given %" PRIu64 ", fallback %" PRIu64
			" (refused: cap %" PRIu64 ", memory %" PRIu64 ")\n",
			t->fp.in_use, t->fp.free, t->fp.max, t->fp.bytes_per_ring, t->es.chan_flows,
			t->es.chan_flow_fallback, t->fp.refused_cap, t->fp.refused_nomem);

	if (set != NULL && rule_set_rule_count(set) != 0) {
		/* One walk of the flows for all rules (NULL: no memory, zeros printed). */
		struct rule_counters_snap *snap = rule_engine_counters_snap(app->eng);

		fprintf(f,
			"\nrules (packets each rule counted, deciding or passed):\n"
			"  %6s %12s  %-10s %s\n",
			"id", "packets", "chain", "rule");
		for (unsigned int tb = 0; tb < RULE_TABLE__COUNT; tb++)
			for (unsigned int c = 0; c < rule_set_chain_count(set, tb); c++) {
				const struct rule_chain *ch = rule_set_chain_at(set, tb, c);

				for (uint32_t i = 0; i < ch->n_rules; i++) {
					char txt[RULE_TEXT_MAX];
					uint64_t pk = 0, by = 0;

					rule_counters_snap_get(snap, ch->rules[i].id, &pk, &by);
					if (rule_format(&ch->rules[i], txt, sizeof(txt)) < 0)
						strcpy(txt, "?");
					fprintf(f, "  %6u %12" PRIu64 "  %-10s %s\n", ch->rules[i].id,
						pk, ch->name, txt);
				}
			}
		rule_counters_snap_free(snap);
	}

	fprintf(f, "\naccounting: rx %" PRIu64 " == delivered %" PRIu64 " + drops %" PRIu64 ": ",
		s->rx, t->delivered, t->drops_total);
	if (ok)
		fprintf(f, "OK\n");
	else
		fprintf(f, "VIOLATED (discrepancy %" PRId64 ", %" PRIu64 " still in rings)\n",
			(int64_t)(s->rx - t->delivered - t->drops_total), t->ct.in_ring);
	fprintf(f, "mempool: %s (%u of %u mbufs free)\n", t->pool_ok ? "whole" : "NOT WHOLE",
		t->pool_avail, t->pool_size);
	fflush(f);
	return ok;
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int
gufc_stats_json(struct gufc_app *app, const struct gufc_totals *t, const char *path)
{
	const struct gufc_sum *s = &t->sum;
	const struct rule_set *set = app->eng ? rule_engine_rules(app->eng) : NULL;
	struct rule_counters_snap *snap;
	bool first = true;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"rx\": %" PRIu64 ",\n  \"rx_bytes\": %" PRIu64 ",\n", s->rx,
		s->rx_bytes);
	fprintf(f, "  \"delivered\": %" PRIu64 ",\n  \"drops_total\": %" PRIu64 ",\n",
		t->delivered, t->drops_total);
	fprintf(f, "  \"drops\": {");
	for (unsigned int d = 0; d < GUFC_DROP__COUNT; d++) {
		if (!gufc_drop_valid(d))
			continue;
		fprintf(f, "%s\n    \"%s\": %" PRIu64, first ? "" : ",", gufc_drop_id(d),
			s->drops[d]);
		first = false;
	}
	fprintf(f, "\n  },\n");
	fprintf(f,
		"  \"flows\": {\"created\": %" PRIu64 ", \"replies\": %" PRIu64
		", \"removed\": %" PRIu64 ", \"active\": %u, \"active_v4\": %u, \"active_v6\": %u"
		", \"capacity\": %u, \"evictions\": %" PRIu64 ", \"evictions_early\": %" PRIu64
		", \"evictions_established\": %" PRIu64 ", \"evictions_out_of_order\": %" PRIu64
		", \"aged\": %" PRIu64
		", \"refused\": %" PRIu64 ", \"refused_grace\": %" PRIu64
		", \"cuckoo_moves\": %" PRIu64 ", \"reply_moved\": %" PRIu64
		", \"reply_guessed\": %" PRIu64 "},\n",
		t->es.flows, t->es.replies, t->es.removed, t->t4.occupancy + t->t6.occupancy,
		t->t4.occupancy, t->t6.occupancy, t->t4.capacity, t->t4.evictions + t->t6.evictions,
		t->t4.evict_early + t->t6.evict_early,
		t->t4.evictions + t->t6.evictions - t->t4.evict_early - t->t6.evict_early,
		t->t4.evict_est_early + t->t6.evict_est_early, t->t4.aged + t->t6.aged + t->es.aged,
		t->t4.refused + t->t6.refused,
		t->t4.refused_grace + t->t6.refused_grace, t->t4.moves + t->t6.moves,
		t->es.reply_moved, t->es.reply_guessed);
	fprintf(f,
		"  \"perflow\": {\"given\": %" PRIu64 ", \"fallback\": %" PRIu64
		", \"freed\": %" PRIu64 ", \"free_failed\": %" PRIu64 ", \"live\": %u"
		", \"rings\": %" PRIu32 ", \"in_use\": %" PRIu32 ", \"free\": %" PRIu32
		", \"cap\": %" PRIu32 ", \"chunks\": %" PRIu32 ", \"ring_size\": %" PRIu32
		", \"bytes_per_ring\": %" PRIu32 ", \"refused_cap\": %" PRIu64
		", \"refused_nomem\": %" PRIu64 "},\n",
		t->es.chan_flows, t->es.chan_flow_fallback, t->es.chan_flow_freed,
		t->es.chan_flow_free_fail, t->ct.flow_channels, t->fp.rings, t->fp.in_use,
		t->fp.free, t->fp.max, t->fp.chunks, t->fp.ring_size, t->fp.bytes_per_ring,
		t->fp.refused_cap, t->fp.refused_nomem);
	fprintf(f,
		"  \"cache\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
		", \"hit_rate\": %.4f},\n",
		s->hits, s->misses, hit_rate(t) / 100.0);
	fprintf(f,
		"  \"slow_path\": {\"upcalls\": %" PRIu64 ", \"stale\": %" PRIu64
		", \"interest\": %" PRIu64 ", \"per_packet\": %" PRIu64
		", \"class\": %" PRIu64 ", \"classed\": %" PRIu64 ", \"class_taken\": %" PRIu64
		", \"class_unfit\": %" PRIu64 ", \"pending\": %" PRIu64 ", \"uncounted\": %" PRIu64
		", \"waited\": %" PRIu64 ", \"waiting\": %" PRIu64
		", \"packets\": %" PRIu64 ", \"upcall_fast\": %" PRIu64
		", \"classify_cls\": %" PRIu64
		", \"classify_ref\": %" PRIu64 ", \"commits\": %" PRIu64 ", \"generation\": %u"
		", \"port_mismatch\": %" PRIu64 ", \"rule_trace_lost\": %" PRIu64 ", \"clsc_hits\": %" PRIu64
		", \"clsc_misses\": %" PRIu64 ", \"clsc_uncacheable\": %" PRIu64
		", \"clsc_skipped\": %" PRIu64 ", \"clsc_flushes\": %" PRIu64
		", \"clsc_walk_hits\": %" PRIu64 ", \"clsc_new_hits\": %" PRIu64
		", \"refilter_kept\": %" PRIu64 ", \"synack_ahead\": %" PRIu64
		", \"synack_settled\": %" PRIu64 ", \"synack_plain_not\": %" PRIu64
		", \"cached_drops\": %" PRIu64 ", \"drops_expected\": %" PRIu64
		", \"count_redecided\": %" PRIu64 "},\n",
		s->upcalls, s->upcall_stale, s->upcall_interest, s->upcall_per_packet,
		s->upcall_class, t->es.classed, t->es.class_taken, t->es.class_unfit,
		s->upcall_pending, s->upcall_uncounted, s->waited,
		s->waiting, s->slow_pkts, s->upcall_fast,
		t->es.classify_cls,
		t->es.classify_ref, t->es.commits, t->es.gen, t->es.port_mismatch,
		t->es.trace_lost, t->es.clsc_hits, t->es.clsc_misses, t->es.clsc_uncacheable,
		t->es.clsc_skipped, t->es.clsc_flushes, t->es.clsc_walk_hits, t->es.clsc_new_hits,
		t->es.refilter_kept,
		t->es.synack_ahead,
		t->es.synack_settled, t->es.synack_plain_not, t->es.cached_drops,
		t->es.drops_expected, t->es.count_redecided);
	fprintf(f,
		"  \"fragments\": {\"in\": %" PRIu64 ", \"datagrams\": %" PRIu64
		", \"failed\": %" PRIu64 "},\n",
		s->frag_in, s->frag_out, s->frag_dropped);
	fprintf(f,
		"  \"conntrack\": {\"icmp_related\": %" PRIu64 ", \"notrack\": %" PRIu64
		", \"tcp_conns\": %" PRIu64
		", \"tcp_refused\": %" PRIu64 ", \"ignored\": %" PRIu64 ", \"reopened\": %" PRIu64
		", \"removed\": %" PRIu64 ", \"sctp_conns\": %" PRIu64
		", \"synack_armed\": %" PRIu64 ", \"synack_fast\": %" PRIu64
		", \"ignored_fast\": %" PRIu64 ", \"invalid\": {",
		t->cts.related, t->cts.notrack, t->cts.tcp_conns, t->cts.tcp_full, t->cts.ignored,
		t->cts.reopened, t->cts.removed, t->cts.sctp_conns, t->cts.synack_armed,
		s->ct_synack_fast, s->ct_ignored_fast);
	for (unsigned int w = 1; w < MOD_CT_WHY__COUNT; w++)
		fprintf(f, "%s\"%s\": %" PRIu64, w > 1 ? ", " : "", mod_ct_why_name(w),
			t->cts.invalid[w]);
	fprintf(f, "}, \"helper\": {\"conns\": %" PRIu64 ", \"segments\": %" PRIu64
		", \"commands\": %" PRIu64 ", \"foreign\": %" PRIu64 ", \"dropped\": %" PRIu64
		", \"nat_rewrites\": %" PRIu64 ", \"nat_failed\": %" PRIu64 ", \"related\": %" PRIu64
		", \"expectations\": {\"created\": %" PRIu64 ", \"matched\": %" PRIu64
		", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64 ", \"removed\": %" PRIu64
		", \"full\": %" PRIu64 ", \"active\": %u}}},\n",
		t->cth.conns, t->cth.segments, t->cth.commands, t->cth.foreign, t->cth.dropped,
		t->cth.nat_rewrites, t->cth.nat_failed, t->cth.related, t->cth.exp.created,
		t->cth.exp.matched, t->cth.exp.expired, t->cth.exp.evicted, t->cth.exp.removed,
		t->cth.exp.full, t->cth.exp.active);
	fprintf(f, "  \"transmitted\": %" PRIu64 ",\n  \"non_ip_passed\": %" PRIu64 ",\n",
		s->tx_pkts, s->non_ip_pass);
	fprintf(f, "  \"reject\": {\"replies\": %" PRIu64 ", \"suppressed\": %" PRIu64 "},\n",
		s->reject_replies, s->reject_suppressed);
	fprintf(f, "  ");
	gufc_log_json(app, s->log_queued, s->log_dropped, f);
	fprintf(f, ",\n  ");
	gufc_recent_json(app, t, f);
	fprintf(f, ",\n  \"rewrite\": {\"packets\": %" PRIu64 ", \"skipped\": %" PRIu64 "},\n",
		s->rewritten, s->rewrite_skipped);
	fprintf(f, "  \"lossless\": {\"on\": %s, \"held_bursts\": %" PRIu64 ", \"held\": %" PRIu64
		"},\n", app->lossless ? "true" : "false", s->ll_bursts, s->ll_held);
	fprintf(f, "  \"upcall_ring\": {\"enqueues\": %" PRIu64 ", \"kept\": %" PRIu64 "},\n",
		s->up_rings, s->up_kept);
	fprintf(f, "  \"rx_ahead\": {\"kept\": %" PRIu64 ", \"idle_flushes\": %" PRIu64 "},\n",
		s->rx_kept, s->rx_kept_idle);
	{
		const struct ofl_policy_stats *p = &t->ofl.pol;
		const struct ofl_port_stats *ps = &t->ofl.port;

		fprintf(f,
			"  \"offload\": {\"backend\": \"%s\", \"ports\": %u, \"hw_classified\": %"
			PRIu64 ", \"hw_fallback\": %" PRIu64 ", \"hw_dropped\": %" PRIu64
			", \"hw_share\": %.4f,\n    \"hw_matched\": %" PRIu64 ", \"hw_marked\": %"
			PRIu64 ", \"rules_created\": %" PRIu64 ", \"rules_destroyed\": %" PRIu64
			", \"create_failed\": %" PRIu64 ", \"rules\": %u,\n",
			ofl_backend_name((enum ofl_backend)(app->cfg.set.offload & 3)),
			t->ofl.n_ports, s->hw_classified, s->hw_fallback, ps->hw_dropped,
			hw_share(t) / 100.0, ps->hw_matched, ps->hw_marked, ps->rules_created,
			ps->rules_destroyed, ps->create_failed, ps->rules);
		fprintf(f,
			"    \"scanned\": %" PRIu64 ", \"candidates\": %" PRIu64 ", \"capped\": %"
			PRIu64 ", \"queued\": %" PRIu64 ", \"queue_full\": %" PRIu64
			", \"offloaded\": %" PRIu64 ", \"offload_refused\": %" PRIu64
			", \"offload_full\": %" PRIu64 ",\n    \"removed\": %" PRIu64
			", \"removed_gone\": %" PRIu64 ", \"removed_changed\": %" PRIu64
			", \"removed_cold\": %" PRIu64 ", \"removed_commit\": %" PRIu64
			", \"in_hw\": %u, \"pending\": %u,\n    \"commit_syncs\": %" PRIu64
			", \"commit_sync_us_last\": %.1f, \"commit_sync_us_max\": %.1f},\n",
			p->scanned, p->candidates, p->capped, p->queued, p->queue_full, p->offloaded,
			p->offload_refused, p->offload_full, p->removed, p->removed_gone,
			p->removed_changed, p->removed_cold, p->removed_commit, p->in_hw, p->pending,
			p->commit_syncs, gufc_cyc_us(app, p->commit_sync_cycles_last),
			gufc_cyc_us(app, p->commit_sync_cycles_max));
	}

	fprintf(f, "  \"reloads\": {\"ok\": %" PRIu64 ", \"failed\": %" PRIu64
		", \"last_rules\": %u, \"last_generation\": %u, \"last_us\": %" PRIu64 "},\n",
		t->reload.ok, t->reload.failed, t->reload.last_rules, t->reload.last_gen,
		t->reload.last_us);
	{
		const struct mod_ipfix_stats *x = &t->ipfix.st;

		fprintf(f, "  \"ipfix\": {\"enabled\": %s, \"records\": %" PRIu64, t->ipfix.on ?
			"true" : "false", x->records);
		for (unsigned int r = MOD_IPFIX_END_IDLE; r <= MOD_IPFIX_END_RESOURCES; r++)
			fprintf(f, ", \"records_%s\": %" PRIu64, mod_ipfix_end_name(r),
				x->records_end[r]);
		fprintf(f, ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"templates\": %"
			PRIu64 ",\n    \"send_failed\": %" PRIu64 ", \"records_lost\": %" PRIu64
			", \"frames\": %" PRIu64 ", \"nombuf\": %" PRIu64 ", \"tx_full\": %" PRIu64
			", \"write_errors\": %" PRIu64 ", \"sweeps\": %" PRIu64 "},\n", x->messages,
			x->bytes, x->templates, x->send_failed, x->records_lost, t->ipfix.io.frames,
			t->ipfix.io.nombuf, t->ipfix.io.tx_full, t->ipfix.io.write_err, x->sweeps);
	}
	fprintf(f, "  \"tsc_hz\": %" PRIu64 ",\n  \"lcores\": [", app->hz);
	first = true;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];
		struct gufc_cycles all = { 0, 0 };
		char roles[4];

		if (lc == NULL)
			continue;
		fprintf(f, "%s\n    {\"lcore\": %u, \"roles\": \"%s\"", first ? "" : ",", i,
			gufc_roles_text(lc->roles, roles));
		for (unsigned int r = 0; r < GUFC_CYC__COUNT; r++) {
			struct gufc_cycles c = lc->st.cyc[r];

			if (!gufc_holds_role(lc->roles, r))
				continue;
			gufc_cycles_acc(&all, &c);
			fprintf(f, ", \"%s\": {\"busy_cycles\": %" PRIu64 ", \"idle_cycles\": %" PRIu64
				"}", gufc_cyc_role_name(r), c.busy, c.idle);
		}
		fprintf(f, ", \"busy_share\": %.4f}", gufc_cycles_share(&all));
		first = false;
	}
	fprintf(f, "\n  ],\n");

	fprintf(f, "  \"channels\": [");
	first = true;
	/* Named channels, then per-flow ones (live at exit). */
	for (int id = chan_next(app->chans, 0); id >= 0;
		id = chan_next(app->chans, (unsigned int)id + 1)) {
		struct chan_info ci;
		struct chan_stats cs;

		if (chan_info_get(app->chans, (uint32_t)id, &ci) != 0 ||
			chan_stats_get(app->chans, (uint32_t)id, &cs) != 0)
			continue;
		fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
		json_str(f, ci.name);
		fprintf(f,
			", \"id\": %d, \"kind\": \"%s\", \"enqueued\": %" PRIu64
			", \"consumed\": %" PRIu64 ", \"drop_full\": %" PRIu64
			", \"flushed\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			id, chan_kind_name(ci.kind), cs.enqueued, cs.consumed, cs.drop_full,
			cs.flushed, cs.enq_bytes);
		first = false;
	}
	fprintf(f, "\n  ],\n  \"rules\": [");
	first = true;
	snap = set != NULL ? rule_engine_counters_snap(app->eng) : NULL;
	for (unsigned int tb = 0; set != NULL && tb < RULE_TABLE__COUNT; tb++)
		for (unsigned int c = 0; c < rule_set_chain_count(set, tb); c++) {
			const struct rule_chain *ch = rule_set_chain_at(set, tb, c);

			for (uint32_t i = 0; i < ch->n_rules; i++) {
				char txt[RULE_TEXT_MAX];
				uint64_t pk = 0, by = 0;

				rule_counters_snap_get(snap, ch->rules[i].id, &pk, &by);
				if (rule_format(&ch->rules[i], txt, sizeof(txt)) < 0)
					strcpy(txt, "?");
				fprintf(f, "%s\n    {\"id\": %u, \"table\": \"%s\", \"chain\": ",
					first ? "" : ",", ch->rules[i].id, rule_table_name(tb));
				json_str(f, ch->name);
				fprintf(f, ", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64
					", \"rule\": ", pk, by);
				json_str(f, txt);
				fputc('}', f);
				first = false;
			}
		}
	/* The built-in chains' policies: what they decided (their imported counts are the set's). */
	fprintf(f, "\n  ],\n  \"policies\": [");
	first = true;
	for (unsigned int fam = 0; snap != NULL && fam < 2; fam++)
		for (unsigned int tb = 0; tb < RULE_TABLE__COUNT; tb++)
			for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
				unsigned int af = fam == 0 ? FC_AF_INET4 : FC_AF_INET6;
				uint64_t pk = 0, by = 0;

				if (!(rule_table_hooks(tb) & RULE_HOOK_F(h)))
					continue;
				rule_counters_snap_get(snap, RULE_ID_CHAIN_POLICY(af, tb, h), &pk, &by);
				fprintf(f,
					"%s\n    {\"family\": \"%s\", \"table\": \"%s\", \"hook\": "
					"\"%s\", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
					first ? "" : ",", fam == 0 ? "ipv4" : "ipv6",
					rule_table_name(tb), rule_hook_name(h), pk, by);
				first = false;
			}
	rule_counters_snap_free(snap);
	fprintf(f, "\n  ],\n");
	gufc_router_json(app, t, f);
	fprintf(f,
		"  \"accounting\": {\"ok\": %s, \"discrepancy\": %" PRId64 "},\n"
		"  \"mempool\": {\"whole\": %s, \"size\": %u, \"available\": %u}\n}\n",
		gufc_accounting_ok(t) ? "true" : "false",
		(int64_t)(s->rx - t->delivered - t->drops_total), t->pool_ok ? "true" : "false",
		t->pool_size, t->pool_avail);
	if (fclose(f) != 0)
		return -errno;
	return 0;
}
