/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_offload.c — wires drivers/offload into gufc (doc/offload.md):
 * one struct ofl_port per ethdev port after queue setup (its capability
 * report logged at start), the heavy-hitter policy after the engine, its
 * periodic scan/execute and the commit coherence hook on the rules lcore,
 * the counters for the summary, JSON, "show offload" and /gufc/offload.
 *
 * Ownership: the port states and the policy belong to struct gufc_app;
 * created on the main lcore before the lcores launch, driven by the rules
 * lcore only, freed on the main lcore once every lcore stopped (their last
 * counters frozen into app->ofl_final first). The RX lcores only read
 * app->dp_marks (dp_mark_check()).
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "gufc.h"

/* Entries a policy pass visits, requests it executes. */
#define OFL_SCAN_BUDGET 1024
#define OFL_EXEC_BUDGET 64

static enum ofl_backend
backend_of(const struct gufc_app *app)
{
	return (enum ofl_backend)(app->cfg.set.offload & 3);
}

int
gufc_offload_ports_init(struct gufc_app *app)
{
	struct ofl_port_params p;
	char caps[128];

	if (backend_of(app) == OFL_BACKEND_OFF)
		return 0;
	memset(&p, 0, sizeof(p));
	p.backend = backend_of(app);
	p.swnic_size = app->cfg.set.offload >> 2;
	p.socket_id = (int)rte_socket_id();
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		if (app->ports[pid].vlan) {
			GUFC_LOG(ERR, "port %u: offload: not with VLAN sub-interfaces (the NIC's "
				"rules would see the parent's tagged frames); nothing started", pid);
			return -ENOTSUP;
		}
	}
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		struct ofl_port *op;

		if (!app->ports[pid].used)
			continue;
		op = ofl_port_create(pid, &p);
		if (op == NULL) {
			GUFC_LOG(ERR, "port %u: offload %s: %s", pid, ofl_backend_name(p.backend),
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		app->ofl[pid] = op;
		if (ofl_port_caps_format(op, caps, sizeof(caps)) < 0)
			strcpy(caps, "?");
		GUFC_LOG(INFO, "port %u: offload %s: %s%s%s", pid, ofl_backend_name(p.backend), caps,
			op->probe_err[0] != 0 ? "; ipv4 mark probe: " : "",
			op->probe_err[0] != 0 ? strerror(-op->probe_err[0]) : "");
	}
	return 0;
}

int
gufc_offload_policy_init(struct gufc_app *app)
{
	const struct gufc_settings *s = &app->cfg.set;
	struct ofl_port *ports[GUFC_MAX_PORTS];
	struct ofl_policy_params pp;
	unsigned int n = 0;

	if (backend_of(app) == OFL_BACKEND_OFF)
		return 0;
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++)
		if (app->ofl[pid] != NULL)
			ports[n++] = app->ofl[pid];
	memset(&pp, 0, sizeof(pp));
	pp.eng = app->eng;
	pp.ports = ports; /* copied by the policy */
	pp.n_ports = n;
	pp.max_flows = s->offload_max;
	pp.pps_threshold = s->offload_pps;
	pp.interval_ms = s->offload_interval;
	app->ofl_pol = ofl_policy_create(&pp);
	if (app->ofl_pol == NULL) {
		GUFC_LOG(ERR, "offload policy: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	app->dp_marks = ofl_policy_marks(app->ofl_pol);
	GUFC_LOG(INFO, "offload policy: flows >= %u pps (measured over >= %u ms), %u in hardware "
		"at most, %u port(s)", s->offload_pps, s->offload_interval, s->offload_max, n);
	return 0;
}

unsigned int
gufc_offload_poll(struct gufc_app *app, uint32_t now)
{
	uint64_t tsc;
	unsigned int work;

	if (app->ofl_pol == NULL)
		return 0;
	tsc = rte_get_tsc_cycles();
	if (tsc < app->ofl_next_tsc)
		return 0;
	app->ofl_next_tsc = tsc + app->hz / 1000;
	/* A helper expected a connection: a hardware drop of its tuple goes back to software. */
	if (rule_engine_expect_count(app->eng) != app->ofl_exp_count) {
		app->ofl_exp_count = rule_engine_expect_count(app->eng);
		work = ofl_policy_commit_sync(app->ofl_pol);
		if (work != 0)
			GUFC_LOG(DEBUG, "expectation: %u hardware DROP rule(s) taken out", work);
	} else {
		work = 0;
	}
	work += ofl_policy_scan(app->ofl_pol, now, OFL_SCAN_BUDGET);
	work += ofl_policy_execute(app->ofl_pol, OFL_EXEC_BUDGET);
	return work;
}

void
gufc_offload_commit(struct gufc_app *app)
{
	unsigned int n;

	if (app->ofl_pol == NULL)
		return;
	n = ofl_policy_commit_sync(app->ofl_pol);
	if (n != 0)
		GUFC_LOG(DEBUG, "commit: %u hardware DROP rule(s) taken out", n);
}

static void
totals_live(const struct gufc_app *app, struct gufc_ofl_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->on = backend_of(app) != OFL_BACKEND_OFF;
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		struct ofl_port_stats ps;

		if (app->ofl[pid] == NULL || ofl_port_stats_get(app->ofl[pid], &ps) != 0)
			continue;
		t->n_ports++;
		t->port.rules_created += ps.rules_created;
		t->port.rules_destroyed += ps.rules_destroyed;
		t->port.create_failed += ps.create_failed;
		t->port.hw_matched += ps.hw_matched;
		t->port.hw_marked += ps.hw_marked;
		t->port.hw_dropped += ps.hw_dropped;
		t->port.hw_dropped_bytes += ps.hw_dropped_bytes;
		t->port.rules += ps.rules;
		t->port.capacity += ps.capacity;
	}
	if (app->ofl_pol != NULL)
		ofl_policy_stats_get(app->ofl_pol, &t->pol);
}

void
gufc_offload_totals(const struct gufc_app *app, struct gufc_ofl_totals *t)
{
	if (app->ofl_frozen)
		*t = app->ofl_final;
	else
		totals_live(app, t);
}

void
gufc_offload_fini(struct gufc_app *app)
{
	struct ofl_policy_stats pst;

	if (app->ofl_frozen)
		return;
	/* Policy counters before the policy goes; port counters after its rules went. */
	memset(&pst, 0, sizeof(pst));
	if (app->ofl_pol != NULL)
		ofl_policy_stats_get(app->ofl_pol, &pst);
	app->dp_marks = NULL;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (app->lc[i] != NULL)
			app->lc[i]->rx_dp.marks = NULL; /* RX stopped: no reader left */
	/* The engine keeps a module pointing at the policy: only rule_engine_free()
	 * (no callbacks) may touch the engine from here on. */
	ofl_policy_free(app->ofl_pol);
	app->ofl_pol = NULL;
	totals_live(app, &app->ofl_final);
	app->ofl_final.pol = pst;
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		ofl_port_free(app->ofl[pid]);
		app->ofl[pid] = NULL;
	}
	app->ofl_frozen = true;
}

void
gufc_offload_dump(const struct gufc_app *app, FILE *f)
{
	struct gufc_ofl_totals t;
	const struct ofl_policy_stats *p = &t.pol;

	gufc_offload_totals(app, &t);
	fprintf(f, "%-20s %s", "backend", ofl_backend_name(backend_of(app)));
	if (backend_of(app) == OFL_BACKEND_SWNIC)
		fprintf(f, " (table %u rules per port)",
			(app->cfg.set.offload >> 2) ? (app->cfg.set.offload >> 2) : 1024);
	fprintf(f, "\n");
	if (!t.on)
		return;
	fprintf(f, "%-20s >= %u pps over >= %u ms, at most %u flows\n", "policy",
		app->cfg.set.offload_pps, app->cfg.set.offload_interval, app->cfg.set.offload_max);
	fprintf(f, "%4s %-40s %8s %10s %10s %10s %12s %12s\n", "port", "capabilities", "rules",
		"created", "destroyed", "failed", "hw_marked", "hw_dropped");
	for (uint16_t pid = 0; pid < GUFC_MAX_PORTS; pid++) {
		const struct ofl_port *op = app->ofl[pid];
		struct ofl_port_stats ps;
		char caps[128];

		if (op == NULL || ofl_port_stats_get(op, &ps) != 0)
			continue;
		if (ofl_port_caps_format(op, caps, sizeof(caps)) < 0)
			strcpy(caps, "?");
		fprintf(f, "%4u %-40s %8u %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %12" PRIu64 "\n", pid, caps, ps.rules, ps.rules_created,
			ps.rules_destroyed, ps.create_failed, ps.hw_marked, ps.hw_dropped);
	}
	fprintf(f, "%-20s %u in hardware, %u pending\n", "flows", p->in_hw, p->pending);
	fprintf(f, "%-20s %" PRIu64 " scanned, %" PRIu64 " candidates, %" PRIu64 " capped, %"
		PRIu64 " queue full\n", "scans", p->scanned, p->candidates, p->capped,
		p->queue_full);
	fprintf(f, "%-20s %" PRIu64 " (refused %" PRIu64 ", table full %" PRIu64 ")\n",
		"offloaded", p->offloaded, p->offload_refused, p->offload_full);
	fprintf(f, "%-20s %" PRIu64 " (gone %" PRIu64 ", changed %" PRIu64 ", cold %" PRIu64
		", commit %" PRIu64 ")\n", "removed", p->removed, p->removed_gone,
		p->removed_changed, p->removed_cold, p->removed_commit);
	fprintf(f, "%-20s %" PRIu64 " (last %.1f us, max %.1f us)\n", "commit syncs",
		p->commit_syncs, gufc_cyc_us(app, p->commit_sync_cycles_last),
		gufc_cyc_us(app, p->commit_sync_cycles_max));
}
