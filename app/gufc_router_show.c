/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_router_show.c — ports, neighbours, routes and router mode's
 * counters as the shell, the summary and the stats JSON print them (the
 * telemetry commands read the same collectors: gufc_collect_ports(),
 * gufc_collect_neighbours(), gufc_collect_route_rows()).
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "gufc_ctl.h"

#define ROWS_MAX 65536

const char *
gufc_mode_name(const struct gufc_app *app)
{
	return app->cfg.set.mode == GUFC_MODE_ROUTER ? "router" : "bridge";
}

int
gufc_port_addrs_text(const struct gufc_port_cfg *pc, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < pc->n_addr; i++) {
		char a[LEX_PREFIX_STRLEN];
		int w;

		lex_prefix_format(&pc->addr[i], a, sizeof(a));
		w = snprintf(buf + off, len - off, "%s%s", i ? " " : "", a);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return (int)off;
}

void
gufc_mac_text(const uint8_t *mac, char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		mac[4], mac[5]);
}

void
gufc_router_stats_text(const struct gufc_totals *t, FILE *f, int w)
{
	const struct gufc_sum *s = &t->sum;
	const struct mod_neigh_stats *nb = &t->nb;

	fprintf(f, "%-*s %" PRIu64 " (held %" PRIu64 ", ICMP errors %" PRIu64
		", suppressed %" PRIu64 ", echo replies %" PRIu64 ", local %" PRIu64 ")\n", w,
		"router slow path", s->l3_slow, s->held, s->icmp_errors, s->icmp_suppressed,
		s->echo_replies, s->local_in);
	fprintf(f, "%-*s %" PRIu64 " datagrams into %" PRIu64 " fragments\n", w,
		"router fragmented", s->frag_datagrams, s->frag_made);
	fprintf(f, "%-*s %" PRIu64 " in (arp %" PRIu64 "/%" PRIu64 ", ns/na %" PRIu64 "/%" PRIu64
		"), %" PRIu64 " out (arp %" PRIu64 "/%" PRIu64 ", ns/na %" PRIu64 "/%" PRIu64
		", announce %" PRIu64 ")\n", w, "arp/nd frames", s->neigh_in, nb->arp_req_in,
		nb->arp_rep_in, nb->ns_in, nb->na_in, nb->originated, nb->arp_req_out,
		nb->arp_rep_out, nb->ns_out, nb->na_out, nb->announce_out);
	fprintf(f, "%-*s %u now, %" PRIu64 " resolved, %" PRIu64 " failed, %" PRIu64
		" MAC changes, %u packets waiting (%" PRIu64 " held, %" PRIu64 " released)\n", w,
		"neighbours", nb->entries, nb->resolved, nb->failed, nb->mac_changes, nb->queued,
		nb->held, nb->released);
	fprintf(f, "%-*s %" PRIu64 "\n", w, "originated", t->originated);
}

int
gufc_show_ports(struct gufc_app *app, FILE *f)
{
	struct gufc_port_cfg *pc = calloc(GUFC_MAX_PORTS, sizeof(*pc));
	int rc;

	if (pc == NULL)
		return -ENOMEM;
	rc = gufc_collect_ports(app, pc);
	if (rc != 0) {
		free(pc);
		return rc;
	}
	fprintf(f, "%4s %-16s %-16s %3s %3s %4s %-17s %5s %7s %-5s %12s %12s %10s %10s  %s\n",
		"port", "name", "device", "rxq", "txq", "pair", "mac", "mtu", "dev_mtu", "link", "ipackets",
		"opackets", "imissed", "errors", "addresses");
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		const struct gufc_port *gp = &app->ports[p];
		struct rte_eth_stats es;
		struct rte_eth_link link;
		struct gufc_vlan_counts vc;
		char vl[32] = "";
		char mac[RTE_ETHER_ADDR_FMT_SIZE], addrs[MOD_NEIGH_PORT_ADDRS * LEX_PREFIX_STRLEN];

		if (!gp->used)
			continue;
		memset(&es, 0, sizeof(es));
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(gp->dev, &link);
		gufc_port_vlan_counts(app, p, &vc);
		if (gp->vlan) {
			/* no device: its own counters; errors: what its TX channel dropped */
			es.ipackets = vc.rx;
			es.opackets = vc.tx;
			es.oerrors = vc.tx_drops;
		} else {
			rte_eth_stats_get(p, &es);
		}
		rte_ether_format_addr(mac, sizeof(mac), &gp->mac);
		gufc_port_addrs_text(&pc[p], addrs, sizeof(addrs));
		if (gp->vlan)
			snprintf(vl, sizeof(vl), "  (vlan %u of port %u)", gp->vid, gp->dev);
		else if (gp->vmap != NULL)
			snprintf(vl, sizeof(vl), "  (vlan_unknown %" PRIu64 ")", vc.unknown);
		fprintf(f,
			"%4u %-16s %-16s %3u %3u %4u %-17s %5u %7u %-5s %12" PRIu64 " %12" PRIu64
			" %10" PRIu64 " %10" PRIu64 "  %s%s%s\n",
			p, gp->ifname, gp->name, gp->n_rxq, gp->n_txq, gp->pair, mac, pc[p].mtu,
			gufc_port_dev_mtu_now(app, p), link.link_status ? "up" : "down", es.ipackets, es.opackets, es.imissed,
			es.ierrors + es.oerrors + es.rx_nombuf, addrs[0] != '\0' ? addrs : "-",
			pc[p].host ? "  (host)" : "", vl);
	}
	free(pc);
	return 0;
}

void
gufc_port_vlan_counts(struct gufc_app *app, uint16_t p, struct gufc_vlan_counts *v)
{
	struct chan_stats cs;

	memset(v, 0, sizeof(*v));
	for (unsigned int i = 0; p < GUFC_MAX_PORTS && i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		v->rx += __atomic_load_n(&lc->rx_dp.st.vlan_rx[p], __ATOMIC_RELAXED);
		v->unknown += __atomic_load_n(&lc->rx_dp.st.vlan_unknown[p], __ATOMIC_RELAXED);
	}
	if (p < GUFC_MAX_PORTS && app->ports[p].vlan && app->chans != NULL &&
		app->port_chan[p] != DP_CHAN_NONE &&
		chan_stats_get(app->chans, app->port_chan[p], &cs) == 0) {
		v->tx = cs.tx_sent;
		v->tx_drops = cs.drop_full + cs.tx_full;
	}
}

int
gufc_show_neighbours(struct gufc_app *app, FILE *f)
{
	struct mod_neigh_info *rows;
	unsigned int n;
	int rc;

	if (app->neigh == NULL) {
		fprintf(f, "no neighbours: mode bridge (set mode router)\n");
		return 0;
	}
	rc = gufc_collect_neighbours(app, &rows, &n, ROWS_MAX);
	if (rc != 0)
		return rc;
	fprintf(f, "%4s %-39s %-17s %-10s %8s %6s %6s %5s\n", "port", "address", "mac", "state",
		"age_s", "refs", "queued", "adj");
	for (unsigned int i = 0; i < n; i++) {
		const struct mod_neigh_info *ni = &rows[i];
		struct lex_prefix a = { .family = ni->family };
		char as[LEX_ADDR_STRLEN], mac[18] = "-";

		memcpy(a.addr, ni->addr, sizeof(a.addr));
		lex_addr_format(a.family, a.addr, as, sizeof(as));
		if (ni->state != MOD_NEIGH_INCOMPLETE && ni->state != MOD_NEIGH_FAILED)
			gufc_mac_text(ni->mac, mac);
		fprintf(f, "%4u %-39s %-17s %-10s %8.1f %6u %6u %5u\n", ni->port, as, mac,
			mod_neigh_state_name(ni->state), ni->age_ms / 1000.0, ni->refs, ni->queued,
			ni->adj);
	}
	fprintf(f, "%u neighbour%s\n", n, n == 1 ? "" : "s");
	free(rows);
	return 0;
}

int
gufc_show_routes(struct gufc_app *app, FILE *f)
{
	struct gufc_route_row *rows;
	unsigned int n, shown = 0;
	int rc;

	rc = gufc_collect_route_rows(app, &rows, &n, ROWS_MAX);
	if (rc != 0)
		return rc;
	/* The main table's (the other tables': gufc_show_route_tables()). */
	for (unsigned int i = 0; i < n && rows[i].table == MOD_ROUTE_TABLE_MAIN; i++, shown++) {
		const struct mod_route_info *ri = &rows[i].ri;
		struct lex_prefix p = { .family = ri->family, .len = ri->depth };
		char ps[LEX_PREFIX_STRLEN], gw[LEX_ADDR_STRLEN];

		memcpy(p.addr, ri->addr, sizeof(p.addr));
		lex_prefix_format(&p, ps, sizeof(ps));
		fprintf(f, "%s port %u", ps, ri->nh.port);
		if (ri->nh.via) {
			lex_addr_format(p.family, ri->nh.gw, gw, sizeof(gw));
			fprintf(f, " via %s", gw);
		}
		fprintf(f, "%s\n", (ri->flags & MOD_ROUTE_F_CONNECTED) ? " connected" : "");
	}
	if (shown == 0)
		fprintf(f, "no routes\n");
	free(rows);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Stats JSON                                                                */
/* ------------------------------------------------------------------------ */

void
gufc_router_json(struct gufc_app *app, const struct gufc_totals *t, FILE *f)
{
	const struct gufc_sum *s = &t->sum;
	const struct mod_neigh_stats *nb = &t->nb;
	struct gufc_port_cfg *pc = calloc(GUFC_MAX_PORTS, sizeof(*pc));
	struct mod_neigh_info *nrows = NULL;
	struct gufc_route_row *rrows = NULL;
	struct gufc_prule_row *prows = NULL;
	unsigned int nn = 0, nr = 0, np = 0;
	bool first = true;

	fprintf(f, "  \"mode\": \"%s\",\n", gufc_mode_name(app));
	fprintf(f, "  \"router\": {\"l3_slow\": %" PRIu64 ", \"held\": %" PRIu64
		", \"echo_replies\": %" PRIu64 ", \"local_in\": %" PRIu64 ", \"icmp_errors\": %"
		PRIu64 ", \"icmp_suppressed\": %" PRIu64 ", \"frag_datagrams\": %" PRIu64
		", \"frag_made\": %" PRIu64 ", \"originated\": %" PRIu64 ",\n", s->l3_slow, s->held,
		s->echo_replies, s->local_in, s->icmp_errors, s->icmp_suppressed, s->frag_datagrams,
		s->frag_made, t->originated);
	fprintf(f, "    \"neigh_in\": %" PRIu64 ", \"neigh_consumed\": %" PRIu64
		", \"arp_req_in\": %" PRIu64 ", \"arp_rep_in\": %" PRIu64 ", \"ns_in\": %" PRIu64
		", \"na_in\": %" PRIu64 ", \"nd_other_in\": %" PRIu64 ",\n    \"neigh_originated\": %"
		PRIu64 ", \"arp_req_out\": %" PRIu64 ", \"arp_rep_out\": %" PRIu64 ", \"ns_out\": %"
		PRIu64 ", \"na_out\": %" PRIu64 ", \"announce_out\": %" PRIu64 ", \"nombuf\": %"
		PRIu64 ",\n", s->neigh_in, nb->consumed, nb->arp_req_in, nb->arp_rep_in, nb->ns_in,
		nb->na_in, nb->nd_other_in, nb->originated, nb->arp_req_out, nb->arp_rep_out,
		nb->ns_out, nb->na_out, nb->announce_out, nb->nombuf);
	fprintf(f, "    \"neighbours\": %u, \"resolved\": %" PRIu64 ", \"failed\": %" PRIu64
		", \"mac_changes\": %" PRIu64 ", \"neigh_held\": %" PRIu64 ", \"released\": %" PRIu64
		", \"queued\": %u, \"table_full\": %" PRIu64 "},\n", nb->entries, nb->resolved,
		nb->failed, nb->mac_changes, nb->held, nb->released, nb->queued, nb->table_full);

	fprintf(f, "  \"ports\": [");
	if (pc != NULL && gufc_collect_ports(app, pc) == 0)
		for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
			char mac[18];

			struct gufc_vlan_counts vc;

			if (!app->ports[p].used)
				continue;
			gufc_mac_text(app->ports[p].mac.addr_bytes, mac);
			gufc_port_vlan_counts(app, p, &vc);
			fprintf(f,
				"%s\n    {\"port\": %u, \"name\": \"%s\", \"device\": \"%s\", "
				"\"mac\": \"%s\", \"mtu\": %u, \"dev_mtu\": %u, \"pair\": %u, "
				"\"host\": %s, \"vlan\": %u, \"parent\": %u, \"vlan_rx\": %" PRIu64
				", \"vlan_tx\": %" PRIu64 ", \"vlan_tx_drops\": %" PRIu64
				", \"vlan_unknown\": %" PRIu64 ", \"addresses\": [",
				first ? "" : ",", p, pc[p].name, app->ports[p].name, mac, pc[p].mtu,
				gufc_port_dev_mtu_now(app, p), app->ports[p].pair, pc[p].host ? "true" : "false",
				app->ports[p].vid, app->ports[p].dev, vc.rx, vc.tx, vc.tx_drops, vc.unknown);
			for (unsigned int i = 0; i < pc[p].n_addr; i++) {
				char a[LEX_PREFIX_STRLEN];

				lex_prefix_format(&pc[p].addr[i], a, sizeof(a));
				fprintf(f, "%s\"%s\"", i ? ", " : "", a);
			}
			fprintf(f, "]}");
			first = false;
		}
	free(pc);
	fprintf(f, "\n  ],\n  \"neighbours\": [");
	if (gufc_collect_neighbours(app, &nrows, &nn, ROWS_MAX) != 0)
		nn = 0;
	for (unsigned int i = 0; i < nn; i++) {
		const struct mod_neigh_info *ni = &nrows[i];
		char a[LEX_ADDR_STRLEN], mac[18] = "";

		lex_addr_format(ni->family, ni->addr, a, sizeof(a));
		if (ni->state != MOD_NEIGH_INCOMPLETE && ni->state != MOD_NEIGH_FAILED)
			gufc_mac_text(ni->mac, mac);
		fprintf(f, "%s\n    {\"port\": %u, \"address\": \"%s\", \"mac\": \"%s\", "
			"\"state\": \"%s\", \"valid\": %s, \"age_ms\": %u, \"refs\": %u, "
			"\"queued\": %u, \"adj\": %u}", i ? "," : "", ni->port, a, mac,
			mod_neigh_state_name(ni->state), ni->valid ? "true" : "false", ni->age_ms,
			ni->refs, ni->queued, ni->adj);
	}
	free(nrows);
	fprintf(f, "\n  ],\n  \"routes\": [");
	if (gufc_collect_route_rows(app, &rrows, &nr, ROWS_MAX) != 0)
		nr = 0;
	for (unsigned int i = 0; i < nr; i++) {
		const struct mod_route_info *ri = &rrows[i].ri;
		struct lex_prefix p = { .family = ri->family, .len = ri->depth };
		char ps[LEX_PREFIX_STRLEN], gw[LEX_ADDR_STRLEN] = "";

		memcpy(p.addr, ri->addr, sizeof(p.addr));
		lex_prefix_format(&p, ps, sizeof(ps));
		if (ri->nh.via)
			lex_addr_format(p.family, ri->nh.gw, gw, sizeof(gw));
		fprintf(f, "%s\n    {\"prefix\": \"%s\", \"port\": %u, \"via\": %s%s%s, "
			"\"connected\": %s, \"table\": %" PRIu32 ", \"table_name\": \"%s\"}",
			i ? "," : "", ps, ri->nh.port, ri->nh.via ? "\"" : "",
			ri->nh.via ? gw : "null", ri->nh.via ? "\"" : "",
			(ri->flags & MOD_ROUTE_F_CONNECTED) ? "true" : "false", rrows[i].table,
			rrows[i].name);
	}
	free(rrows);
	fprintf(f, "\n  ],\n  \"route_rules\": [");
	if (gufc_collect_prule_rows(app, &prows, &np, GUFC_MAX_PRULES + 1) != 0)
		np = 0;
	for (unsigned int i = 0; i < np; i++)
		fprintf(f, "%s\n    {\"pref\": %u, \"rule\": \"%s\", \"hits\": %" PRIu64 "}",
			i ? "," : "", prows[i].pref, prows[i].text, prows[i].hits);
	free(prows);
	fprintf(f, "\n  ],\n");
}
