/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_roles.c — lcore roles (RX, rules, main: --help), the RX lcores'
 * queues, their own TX queues (direct TX) and the lossless decision: the
 * layout gufc_main.c's set-up runs with.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "gufc_ctl.h"

/* ------------------------------------------------------------------------ */
/* Roles                                                                     */
/* ------------------------------------------------------------------------ */

static int
parse_lcore_list(const char *s, bool *set)
{
	const char *p = s;

	while (*p != '\0') {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b;

		if (end == p || a >= RTE_MAX_LCORE)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b >= RTE_MAX_LCORE || b < a)
				return -EINVAL;
			p = end;
		}
		for (unsigned long i = a; i <= b; i++)
			set[i] = true;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -EINVAL;
	}
	return 0;
}

static struct gufc_lcore *
lcore_get(struct gufc_app *app, unsigned int id)
{
	struct gufc_lcore *lc = app->lc[id];

	if (lc != NULL)
		return lc;
	lc = rte_zmalloc_socket("gufc_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
		(int)rte_lcore_to_socket_id(id));
	if (lc == NULL)
		return NULL;
	lc->lcore_id = id;
	lc->app = app;
	app->lc[id] = lc;
	app->n_lcores++;
	return lc;
}

int
gufc_roles_assign(struct gufc_app *app)
{
	unsigned int main_id = rte_get_main_lcore();
	unsigned int workers[RTE_MAX_LCORE];
	unsigned int n_workers = 0;
	bool rx_set[RTE_MAX_LCORE] = { false };
	unsigned int id;
	int rules;

	RTE_LCORE_FOREACH_WORKER(id)
	workers[n_workers++] = id;

	rules = app->cfg.rules_lcore;
	if (rules >= 0 && !rte_lcore_is_enabled((unsigned int)rules)) {
		fprintf(stderr, "gufc: --rules-lcore: lcore %d is not enabled (EAL -l)\n", rules);
		return -EINVAL;
	}
	if (app->cfg.rx_lcores[0] != '\0') {
		if (parse_lcore_list(app->cfg.rx_lcores, rx_set) != 0) {
			fprintf(stderr, "gufc: --rx-lcores: bad lcore list '%s'\n",
				app->cfg.rx_lcores);
			return -EINVAL;
		}
		for (id = 0; id < RTE_MAX_LCORE; id++)
			if (rx_set[id] && !rte_lcore_is_enabled(id)) {
				fprintf(stderr,
					"gufc: --rx-lcores: lcore %u is not enabled (EAL -l)\n", id);
				return -EINVAL;
			}
		if (rules < 0) {
			/* Rules on the first enabled lcore that is no RX lcore, else main. */
			rules = (int)main_id;
			if (rx_set[main_id])
				for (unsigned int w = 0; w < n_workers; w++)
					if (!rx_set[workers[w]]) {
						rules = (int)workers[w];
						break;
					}
		}
	} else {
		if (n_workers == 0) {
			rx_set[main_id] = true;
			if (rules < 0)
				rules = (int)main_id;
		} else if (n_workers == 1 || (rules >= 0 && (unsigned int)rules == main_id)) {
			for (unsigned int w = 0; w < n_workers; w++)
				if ((int)workers[w] != rules)
					rx_set[workers[w]] = true;
			if (rules < 0)
				rules = (int)main_id;
		} else {
			if (rules < 0)
				rules = (int)workers[0];
			for (unsigned int w = 0; w < n_workers; w++)
				if ((int)workers[w] != rules)
					rx_set[workers[w]] = true;
		}
		if (!rx_set[main_id] && rte_lcore_count() > 1) {
			bool any = false;

			for (id = 0; id < RTE_MAX_LCORE; id++)
				any |= rx_set[id];
			if (!any)
				rx_set[rules] = true;
		}
	}

	if (lcore_get(app, main_id) == NULL)
		return -ENOMEM;
	app->lc[main_id]->roles |= GUFC_ROLE_MAIN;
	if (lcore_get(app, (unsigned int)rules) == NULL)
		return -ENOMEM;
	app->lc[rules]->roles |= GUFC_ROLE_RULES;
	app->rules_lc = app->lc[rules];
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		struct gufc_lcore *lc;

		if (!rx_set[id])
			continue;
		if (app->n_rx == GUFC_MAX_RX_LCORES) {
			fprintf(stderr, "gufc: --rx-lcores: at most %u RX lcores\n",
				GUFC_MAX_RX_LCORES);
			return -EINVAL;
		}
		lc = lcore_get(app, id);
		if (lc == NULL)
			return -ENOMEM;
		lc->roles |= GUFC_ROLE_RX;
		lc->rx_index = app->n_rx;
		app->rx[app->n_rx++] = lc;
	}
	if (app->n_rx == 0) {
		fprintf(stderr, "gufc: no RX lcore\n");
		return -EINVAL;
	}
	app->rules_producer = app->n_rx;
	return 0;
}

/* Spread every port's RX queues over the RX lcores, round robin. */
void
gufc_queues_assign(struct gufc_app *app)
{
	unsigned int next = 0;

	for (uint16_t q = 0; q < GUFC_MAX_RXQ; q++)
		for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
			struct gufc_lcore *lc;

			if (!app->ports[p].used || q >= app->ports[p].n_rxq)
				continue;
			lc = app->rx[next++ % app->n_rx];
			lc->rxq[lc->n_rxq].port = p;
			lc->rxq[lc->n_rxq].queue = q;
			lc->n_rxq++;
		}
}


/*
 * TX queues of the RX lcores' own: after the queues TX channels name, one
 * per RX lcore on every port that has enough, so an RX lcore transmits a TX
 * channel's packets itself. Ports with too few queues (net_pcap has one)
 * keep the ring path: the rules lcore transmits for them.
 */
void
gufc_direct_tx_plan(struct gufc_app *app)
{
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		struct gufc_port *port = &app->ports[p];
		struct rte_eth_dev_info info;
		uint16_t base = port->n_txq ? port->n_txq : 1;

		port->direct_base = 0;
		/* Runs before gufc_ports_init() marks ports used. */
		if (!rte_eth_dev_is_valid_port(p) || rte_eth_dev_info_get(p, &info) != 0)
			continue;
		if ((uint32_t)base + app->n_rx > info.max_tx_queues)
			continue;
		port->direct_base = base;
		port->n_txq = (uint16_t)(base + app->n_rx);
	}
}

/* Give each RX lcore (producer i) its own TX queue on the ports that have them. */
int
gufc_direct_tx_assign(struct gufc_app *app)
{
	for (unsigned int i = 0; i < app->n_rx; i++) {
		for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
			const struct gufc_port *port = &app->ports[p];
			int rc = chan_producer_txq_set(app->chans, (uint16_t)i, p,
				port->used && port->direct_base != 0 ? port->direct_base + (int)i : -1);

			if (rc != 0) {
				GUFC_LOG(ERR, "port %u: direct TX queue of RX lcore %u: %s", p, i,
					strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

/*
 * Lossless (backpressure instead of ring-full drops) when asked, or, for
 * "auto", when every port that receives reads a file or replays one from
 * memory (net_pcap infinite_rx): a replay can wait, a live port cannot (its
 * NIC would drop instead, uncounted by gufc).
 */
bool
gufc_lossless_decide(const struct gufc_app *app)
{
	unsigned int files = 0, live = 0;

	if (app->cfg.set.lossless != GUFC_AUTO)
		return app->cfg.set.lossless == GUFC_ON;
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++) {
		if (!app->ports[p].used)
			continue;
		/* A device's burst split among its VLANs cannot be held back part way. */
		if (app->ports[p].vlan)
			return false;
		files += app->ports[p].rx_src == GUFC_RX_FILE ||
			 app->ports[p].rx_src == GUFC_RX_REPLAY;
		live += app->ports[p].rx_src == GUFC_RX_LIVE;
	}
	return files != 0 && live == 0;
}
