/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh/neigh.c — the neighbour module's frame of reference:
 * creation and freeing, the ports (MAC, MTU, addresses), the neighbour
 * index (a chained hash on port, family and address over the slots; slot i
 * owns adjacency i + 1), adjacency writes under their sequence count,
 * releasing a slot after a grace period, listings and counters. The state
 * machine is neigh_nb.c's, the frames neigh_io.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "engine.h"
#include "neigh_priv.h"

static_assert(sizeof(struct mod_neigh_adj) == 32, "an adjacency is 32 bytes");

static const char *const state_names[MOD_NEIGH_STATE__COUNT] = {
	[MOD_NEIGH_INCOMPLETE] = "incomplete", [MOD_NEIGH_REACHABLE] = "reachable",
	[MOD_NEIGH_STALE] = "stale", [MOD_NEIGH_PROBE] = "probe", [MOD_NEIGH_FAILED] = "failed",
};

const char *
mod_neigh_state_name(unsigned int state)
{
	return state < MOD_NEIGH_STATE__COUNT ? state_names[state] : "?";
}

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

struct mod_neigh *
mod_neigh_create(const struct mod_neigh_params *p)
{
	struct mod_neigh *n;
	uint32_t nb = 1;

	if (p == NULL || p->pool == NULL || p->send_fn == NULL || p->max_neigh > MOD_NEIGH_MAX ||
		p->queue_len > 1024 || p->probes > 10) {
		rte_errno = EINVAL;
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		goto nomem;
	n->p = *p;
	if (n->p.max_neigh == 0)
		n->p.max_neigh = 1024;
	if (n->p.queue_len == 0)
		n->p.queue_len = 16;
	if (n->p.reachable_ms == 0)
		n->p.reachable_ms = 30000;
	if (n->p.retrans_ms == 0)
		n->p.retrans_ms = 1000;
	if (n->p.probes == 0)
		n->p.probes = 3;
	if (n->p.gc_ms == 0)
		n->p.gc_ms = 60000;
	while (nb < n->p.max_neigh * 2)
		nb <<= 1;
	n->bucket_mask = nb - 1;
	n->adj = rte_zmalloc_socket("gufc_neigh_adj", sizeof(*n->adj) * (n->p.max_neigh + 1),
		RTE_CACHE_LINE_SIZE, p->socket_id);
	n->ent = calloc(n->p.max_neigh, sizeof(*n->ent));
	n->bucket = calloc(nb, sizeof(*n->bucket));
	n->q = calloc((size_t)n->p.max_neigh * n->p.queue_len, sizeof(*n->q));
	if (n->adj == NULL || n->ent == NULL || n->bucket == NULL || n->q == NULL) {
		mod_neigh_free(n);
		goto nomem;
	}
	/* Free list in slot order: slot 0 (adjacency 1) first. */
	for (uint32_t i = n->p.max_neigh; i > 0; i--) {
		n->ent[i - 1].next = n->free_head;
		n->free_head = (uint16_t)i;
	}
	n->view.adj = n->adj;
	n->view.n_adj = n->p.max_neigh + 1;
	return n;
nomem:
	rte_errno = ENOMEM;
	return NULL;
}

void
mod_neigh_free(struct mod_neigh *n)
{
	if (n == NULL)
		return;
	if (n->ent != NULL && n->q != NULL)
		mod_neigh_flush(n);
	rte_free(n->adj);
	free(n->ent);
	free(n->bucket);
	free(n->q);
	free(n);
}

/* ------------------------------------------------------------------------ */
/* Ports                                                                     */
/* ------------------------------------------------------------------------ */

int
mod_neigh_port_set(struct mod_neigh *n, uint16_t port, const uint8_t mac[6], uint16_t mtu)
{
	struct mod_neigh_port_info *pi;
	bool changed;

	if (n == NULL || mac == NULL || port >= MOD_NEIGH_MAX_PORTS || mtu < 68)
		return -EINVAL;
	pi = &n->ports[port];
	changed = pi->on && (pi->mtu != mtu || memcmp(pi->mac, mac, 6) != 0);
	pi->on = true;
	memcpy(pi->mac, mac, 6);
	pi->mtu = mtu;
	if (!changed)
		return 0;
	/* The port's adjacencies follow at once. */
	for (uint32_t i = 0; i < n->p.max_neigh; i++)
		if (n->ent[i].used == NB_LIVE && n->ent[i].port == port)
			nb_adj_write(n, &n->ent[i]);
	return 0;
}

static int
addr_index(const struct mod_neigh_port_info *pi, uint8_t family, const uint8_t *addr)
{
	unsigned int alen = fc_af_addr_len(family);

	for (unsigned int i = 0; i < pi->n_addr; i++)
		if (pi->addr[i].family == family && memcmp(pi->addr[i].addr, addr, alen) == 0)
			return (int)i;
	return -1;
}

int
mod_neigh_port_addr_add(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr,
	uint8_t depth)
{
	struct mod_neigh_port_info *pi;
	unsigned int alen = fc_af_addr_len(family);

	if (n == NULL || addr == NULL || port >= MOD_NEIGH_MAX_PORTS || alen == 0 || depth == 0 ||
		depth > alen * 8)
		return -EINVAL;
	pi = &n->ports[port];
	if (!pi->on)
		return -ENODEV;
	if (addr_index(pi, family, addr) >= 0)
		return -EEXIST;
	if (pi->n_addr == MOD_NEIGH_PORT_ADDRS)
		return -ENOSPC;
	memset(&pi->addr[pi->n_addr], 0, sizeof(pi->addr[0]));
	pi->addr[pi->n_addr].family = family;
	pi->addr[pi->n_addr].depth = depth;
	memcpy(pi->addr[pi->n_addr].addr, addr, alen);
	pi->n_addr++;
	n->announce[port] = true;
	return 0;
}

int
mod_neigh_port_addr_del(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	struct mod_neigh_port_info *pi;
	int i;

	if (n == NULL || addr == NULL || port >= MOD_NEIGH_MAX_PORTS || fc_af_index(family) < 0)
		return -EINVAL;
	pi = &n->ports[port];
	i = addr_index(pi, family, addr);
	if (i < 0)
		return -ENOENT;
	memmove(&pi->addr[i], &pi->addr[i + 1], sizeof(pi->addr[0]) * (pi->n_addr - (unsigned)i - 1));
	pi->n_addr--;
	return 0;
}

const struct mod_neigh_port_info *
mod_neigh_port(const struct mod_neigh *n, uint16_t port)
{
	if (n == NULL || port >= MOD_NEIGH_MAX_PORTS)
		return NULL;
	return &n->ports[port];
}

bool
nb_port_has(const struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	return port < MOD_NEIGH_MAX_PORTS && addr_index(&n->ports[port], family, addr) >= 0;
}

/* Do the first @p depth bits of @p a and @p b agree? */
static bool
prefix_holds(const uint8_t *a, const uint8_t *b, unsigned int depth)
{
	unsigned int bytes = depth / 8, bits = depth % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	return bits == 0 || ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

int
mod_neigh_port_source(const struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *dst, uint8_t *src)
{
	const struct mod_neigh_port_info *pi;
	int first = -1;

	if (n == NULL || src == NULL || port >= MOD_NEIGH_MAX_PORTS || fc_af_index(family) < 0)
		return -EINVAL;
	pi = &n->ports[port];
	for (unsigned int i = 0; i < pi->n_addr; i++) {
		if (pi->addr[i].family != family)
			continue;
		if (first < 0)
			first = (int)i;
		if (dst != NULL && prefix_holds(pi->addr[i].addr, dst, pi->addr[i].depth)) {
			first = (int)i;
			break;
		}
	}
	if (first < 0)
		return -ENOENT;
	memcpy(src, pi->addr[first].addr, fc_af_addr_len(family));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The index and the slots                                                   */
/* ------------------------------------------------------------------------ */

static uint32_t
nb_hash(const struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	uint32_t h = rte_jhash(addr, fc_af_addr_len(family), (uint32_t)port << 8 | family);

	return h & n->bucket_mask;
}

struct nb_ent *
nb_find(const struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	unsigned int alen = fc_af_addr_len(family);
	uint16_t i = n->bucket[nb_hash(n, port, family, addr)];

	while (i != 0) {
		struct nb_ent *e = &n->ent[i - 1];

		if (e->port == port && e->family == family && memcmp(e->addr, addr, alen) == 0)
			return e;
		i = e->next;
	}
	return NULL;
}

struct nb_ent *
nb_alloc(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	uint32_t b = nb_hash(n, port, family, addr);
	struct nb_ent *e;
	uint16_t slot1 = n->free_head;

	if (slot1 == 0) {
		n->st.table_full++;
		return NULL;
	}
	e = &n->ent[slot1 - 1];
	n->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->used = NB_LIVE;
	e->port = port;
	e->family = family;
	memcpy(e->addr, addr, fc_af_addr_len(family));
	e->next = n->bucket[b];
	n->bucket[b] = slot1;
	n->st.created++;
	n->st.entries++;
	nb_adj_write(n, e);
	return e;
}

static void
nb_slot_free(void *arg, uint64_t slot)
{
	struct mod_neigh *n = arg;
	struct nb_ent *e = &n->ent[slot];

	e->used = NB_FREE;
	e->next = n->free_head;
	n->free_head = (uint16_t)(slot + 1);
}

/* Out of the index at once; the slot (its adjacency index) after a grace period. */
void
nb_release(struct mod_neigh *n, struct nb_ent *e)
{
	uint32_t b = nb_hash(n, e->port, e->family, e->addr);
	uint32_t slot = nb_slot(n, e);
	uint16_t *pp = &n->bucket[b];

	if (n->p.eng != NULL && rule_engine_defer(n->p.eng, nb_slot_free, n, slot) != 0)
		return; /* no memory for the deferral: try again at the next pass */
	nb_drop_queue(n, e, false);
	while (*pp != 0 && *pp != slot + 1)
		pp = &n->ent[*pp - 1].next;
	if (*pp != 0)
		*pp = e->next;
	e->used = NB_GOING;
	e->has_mac = false;
	nb_adj_write(n, e);
	n->st.freed++;
	n->st.entries--;
	if (n->p.eng == NULL)
		nb_slot_free(n, slot);
}

/* Publish the slot's adjacency (readers see the old or the new record). */
void
nb_adj_write(struct mod_neigh *n, const struct nb_ent *e)
{
	struct mod_neigh_adj *a = &n->adj[nb_adj_idx(n, e)];
	const struct mod_neigh_port_info *pi = &n->ports[e->port];
	uint32_t s = a->seq;

	__atomic_store_n(&a->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	a->valid = e->used == NB_LIVE && e->has_mac && e->state != MOD_NEIGH_INCOMPLETE &&
		e->state != MOD_NEIGH_FAILED;
	a->family = e->family;
	a->port = e->port;
	a->mtu = pi->mtu;
	memcpy(a->dst, e->mac, 6);
	memcpy(a->src, pi->mac, 6);
	__atomic_store_n(&a->seq, s + 2, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------ */
/* Listings and counters                                                     */
/* ------------------------------------------------------------------------ */

int
mod_neigh_next(const struct mod_neigh *n, uint32_t *it, uint32_t now, struct mod_neigh_info *info)
{
	if (n == NULL || it == NULL || info == NULL)
		return -EINVAL;
	while (*it < n->p.max_neigh) {
		const struct nb_ent *e = &n->ent[(*it)++];

		if (e->used != NB_LIVE)
			continue;
		memset(info, 0, sizeof(*info));
		info->adj = nb_adj_idx(n, e);
		info->port = e->port;
		info->family = e->family;
		info->state = e->state;
		info->probes = e->probes;
		info->valid = n->adj[info->adj].valid != 0;
		memcpy(info->addr, e->addr, sizeof(info->addr));
		if (e->has_mac)
			memcpy(info->mac, e->mac, 6);
		info->refs = e->refs;
		info->queued = e->qlen;
		info->age_ms = now - e->confirmed;
		return 0;
	}
	return -ENOENT;
}

int
mod_neigh_dump(const struct mod_neigh *n, FILE *f, uint32_t now)
{
	struct mod_neigh_info ni;
	uint32_t it = 0;
	int count = 0;

	if (n == NULL || f == NULL)
		return -EINVAL;
	if (fprintf(f, "%4s %-39s %-17s %-10s %8s %6s %6s %5s\n", "port", "address", "mac",
		    "state", "age_s", "refs", "queued", "adj") < 0)
		return -EIO;
	while (mod_neigh_next(n, &it, now, &ni) == 0) {
		char a[INET6_ADDRSTRLEN], mac[18] = "-";

		inet_ntop(ni.family == FC_AF_INET4 ? AF_INET : AF_INET6, ni.addr, a, sizeof(a));
		if (ni.state != MOD_NEIGH_INCOMPLETE && (ni.mac[0] | ni.mac[1] | ni.mac[2] |
			ni.mac[3] | ni.mac[4] | ni.mac[5]) != 0)
			snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", ni.mac[0],
				ni.mac[1], ni.mac[2], ni.mac[3], ni.mac[4], ni.mac[5]);
		if (fprintf(f, "%4u %-39s %-17s %-10s %8.1f %6u %6u %5u\n", ni.port, a, mac,
			    mod_neigh_state_name(ni.state), ni.age_ms / 1000.0, ni.refs, ni.queued,
			    ni.adj) < 0)
			return -EIO;
		count++;
	}
	return count;
}

void
mod_neigh_stats_get(const struct mod_neigh *n, struct mod_neigh_stats *st)
{
	if (st == NULL)
		return;
	if (n == NULL) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = n->st;
}
