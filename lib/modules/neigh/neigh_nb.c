/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh/neigh_nb.c — the neighbour state machine (neigh.h):
 * references from flow entries, packets held while a next hop resolves
 * and released in order once it answers, learning from what arrives, and
 * the timers (retries with exponential backoff, reachable -> stale,
 * probes of referenced stale neighbours, failure, removal of idle
 * unreferenced ones).
 *
 * A held packet leaves before the adjacency turns valid, so an RX lcore
 * cannot send a later packet of the flow ahead of it; packets upcalled
 * meanwhile find it valid on the slow path and follow.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "neigh_priv.h"

static struct nb_ent *
nb_of_adj(struct mod_neigh *n, uint16_t adj)
{
	struct nb_ent *e;

	if (adj == 0 || adj > n->p.max_neigh)
		return NULL;
	e = &n->ent[adj - 1];
	return e->used == NB_LIVE ? e : NULL;
}

static struct rte_mbuf **
nb_queue(struct mod_neigh *n, const struct nb_ent *e)
{
	return &n->q[(size_t)nb_slot(n, e) * n->p.queue_len];
}

void
nb_drop_queue(struct mod_neigh *n, struct nb_ent *e, bool failed)
{
	struct rte_mbuf **q = nb_queue(n, e);

	while (e->qlen > 0) {
		if (failed && n->p.unreach_fn != NULL)
			n->p.unreach_fn(n->p.send_arg, q[e->qhead]);
		else
			rte_pktmbuf_free(q[e->qhead]);
		e->qhead = (e->qhead + 1) % n->p.queue_len;
		e->qlen--;
		n->st.drops[MOD_NEIGH_DROP_NEIGH_FAILED]++;
		n->st.queued--;
	}
	e->qhead = 0;
}

/* Send what waited, in order, with the neighbour's MAC (the adjacency is not valid yet). */
static void
nb_release_queue(struct mod_neigh *n, struct nb_ent *e)
{
	struct rte_mbuf **q = nb_queue(n, e);
	struct rte_mbuf *burst[32];
	unsigned int k = 0;

	while (e->qlen > 0) {
		burst[k++] = q[e->qhead];
		e->qhead = (e->qhead + 1) % n->p.queue_len;
		e->qlen--;
		n->st.queued--;
		n->st.released++;
		if (k == RTE_DIM(burst) || e->qlen == 0) {
			nb_send_held(n, e->port, e->mac, n->ports[e->port].mac, burst, k);
			k = 0;
		}
	}
	e->qhead = 0;
}

/* Start (or restart) resolution: one request now, retries from the timer. */
static void
nb_resolve(struct mod_neigh *n, struct nb_ent *e, uint32_t now)
{
	e->state = MOD_NEIGH_INCOMPLETE;
	e->probes = 1;
	e->confirmed = now;
	e->timer = now + n->p.retrans_ms;
	nb_adj_write(n, e);
	nb_solicit(n, e, false);
}

static void
nb_fail(struct mod_neigh *n, struct nb_ent *e, uint32_t now)
{
	e->state = MOD_NEIGH_FAILED;
	e->confirmed = now;
	e->timer = 0;
	n->st.failed++;
	nb_adj_write(n, e);
	nb_drop_queue(n, e, true);
}

uint16_t
mod_neigh_adj_get(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr,
	uint32_t now)
{
	struct nb_ent *e;

	if (n == NULL || addr == NULL || port >= MOD_NEIGH_MAX_PORTS || fc_af_index(family) < 0 ||
		!n->ports[port].on)
		return 0;
	e = nb_find(n, port, family, addr);
	if (e == NULL) {
		e = nb_alloc(n, port, family, addr);
		if (e == NULL)
			return 0;
		nb_resolve(n, e, now);
	}
	e->refs++;
	return nb_adj_idx(n, e);
}

void
mod_neigh_adj_put(struct mod_neigh *n, uint16_t adj)
{
	struct nb_ent *e;

	if (n == NULL || adj == 0 || adj > n->p.max_neigh)
		return;
	e = &n->ent[adj - 1];
	if (e->used == NB_LIVE && e->refs > 0)
		e->refs--;
}

int
mod_neigh_hold(struct mod_neigh *n, uint16_t adj, struct rte_mbuf *m, uint32_t now)
{
	struct nb_ent *e = n != NULL ? nb_of_adj(n, adj) : NULL;

	if (e == NULL) {
		rte_pktmbuf_free(m);
		if (n != NULL)
			n->st.drops[MOD_NEIGH_DROP_NEIGH_FAILED]++;
		return -ENOENT;
	}
	if (n->adj[adj].valid) {
		/* It became valid since the caller looked. */
		nb_send_held(n, e->port, e->mac, n->ports[e->port].mac, &m, 1);
		return 0;
	}
	if (e->state == MOD_NEIGH_FAILED)
		nb_resolve(n, e, now);
	if (e->qlen == n->p.queue_len) {
		rte_pktmbuf_free(m);
		n->st.drops[MOD_NEIGH_DROP_NEIGH_QUEUE_FULL]++;
		return -ENOSPC;
	}
	nb_queue(n, e)[(e->qhead + e->qlen) % n->p.queue_len] = m;
	e->qlen++;
	n->st.held++;
	n->st.queued++;
	return 0;
}

/*
 * What arrived says @p addr on @p port has @p mac: create the neighbour
 * (@p create: a request for one of our addresses), or update a known one;
 * @p confirm: a reply to us (reachable), else stale.
 */
void
nb_learn(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr,
	const uint8_t mac[6], bool create, bool confirm, uint32_t now)
{
	struct nb_ent *e = nb_find(n, port, family, addr);
	bool had = e != NULL && e->has_mac;
	bool same;

	if (e == NULL) {
		if (!create)
			return;
		e = nb_alloc(n, port, family, addr);
		if (e == NULL)
			return;
	}
	same = had && memcmp(e->mac, mac, 6) == 0;
	if (had && !same)
		n->st.mac_changes++;
	else if (!had)
		n->st.resolved++;
	memcpy(e->mac, mac, 6);
	e->has_mac = true;
	e->probes = 0;
	e->timer = 0;
	e->confirmed = now;
	/* A request with the MAC we know does not undo a confirmation. */
	if (confirm)
		e->state = MOD_NEIGH_REACHABLE;
	else if (!(same && e->state == MOD_NEIGH_REACHABLE))
		e->state = MOD_NEIGH_STALE;
	/* What waited leaves before the adjacency reads valid: from then on the
	 * RX lcores send the flows' later packets themselves (test_neigh's
	 * test_release_before_valid). */
	nb_release_queue(n, e);
	nb_adj_write(n, e);
}

/* One neighbour's timers. @return frames sent. */
static unsigned int
nb_tick(struct mod_neigh *n, struct nb_ent *e, uint32_t now)
{
	uint32_t idle = now - e->confirmed;

	switch (e->state) {
	case MOD_NEIGH_INCOMPLETE:
	case MOD_NEIGH_PROBE:
		if ((int32_t)(now - e->timer) < 0)
			return 0;
		if (e->probes >= n->p.probes) {
			nb_fail(n, e, now);
			return 0;
		}
		e->timer = now + (n->p.retrans_ms << e->probes);
		e->probes++;
		return nb_solicit(n, e, e->state == MOD_NEIGH_PROBE);
	case MOD_NEIGH_REACHABLE:
		if (idle >= n->p.reachable_ms) {
			e->state = MOD_NEIGH_STALE;
			e->confirmed = now;
		}
		return 0;
	case MOD_NEIGH_STALE:
		if (e->refs > 0 && idle >= n->p.reachable_ms) {
			/* Still used: make sure it is still there. */
			e->state = MOD_NEIGH_PROBE;
			e->probes = 1;
			e->timer = now + n->p.retrans_ms;
			return nb_solicit(n, e, true);
		}
		if (e->refs == 0 && idle >= n->p.gc_ms)
			nb_release(n, e);
		return 0;
	default: /* FAILED */
		if (e->refs == 0 && e->qlen == 0 && idle >= n->p.gc_ms)
			nb_release(n, e);
		return 0;
	}
}

unsigned int
mod_neigh_step(struct mod_neigh *n, uint32_t now, unsigned int budget)
{
	unsigned int work = 0;

	if (n == NULL)
		return 0;
	for (uint16_t p = 0; p < MOD_NEIGH_MAX_PORTS; p++)
		if (n->announce[p]) {
			n->announce[p] = false;
			nb_announce(n, p);
			work++;
		}
	for (unsigned int i = 0; i < budget && i < n->p.max_neigh; i++) {
		struct nb_ent *e = &n->ent[n->cursor];

		n->cursor = (n->cursor + 1) % n->p.max_neigh;
		if (e->used == NB_LIVE)
			work += 1 + nb_tick(n, e, now);
	}
	return work;
}

unsigned int
mod_neigh_flush(struct mod_neigh *n)
{
	uint64_t before;

	if (n == NULL)
		return 0;
	before = n->st.drops[MOD_NEIGH_DROP_NEIGH_FAILED];
	for (uint32_t i = 0; i < n->p.max_neigh; i++)
		if (n->ent[i].qlen > 0)
			nb_drop_queue(n, &n->ent[i], false);
	return (unsigned int)(n->st.drops[MOD_NEIGH_DROP_NEIGH_FAILED] - before);
}
