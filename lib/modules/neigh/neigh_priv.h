/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh private: the module's layout, shared by neigh.c (life
 * cycle, ports, the neighbour index, adjacency writes, listings), neigh_nb.c
 * (the neighbour state machine: references, held packets, learning,
 * timers) and neigh_io.c (frames in and out). The public face is neigh.h.
 */
#ifndef GUFC_NEIGH_PRIV_H
#define GUFC_NEIGH_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "flowcache.h"
#include "neigh.h"

struct rte_mbuf;

/** Slot states. */
#define NB_FREE 0
#define NB_LIVE 1
#define NB_GOING 2 /**< out of the index, its adjacency index waits for a grace period */

/** One neighbour; slot i has adjacency i + 1. Rules lcore only. */
struct nb_ent {
	uint8_t used;      /**< NB_* */
	uint8_t family;
	uint8_t state;     /**< enum mod_neigh_state */
	uint8_t probes;    /**< requests or probes sent in this state */
	uint16_t port;
	uint16_t next;     /**< index chain or free list: slot + 1, 0 = end */
	uint8_t addr[16];
	uint8_t mac[6];
	bool has_mac;
	uint32_t refs;     /**< flow entries naming the adjacency */
	uint32_t confirmed; /**< ms: last confirmation, learning or state change */
	uint32_t timer;    /**< ms: next retry or probe */
	uint32_t qhead;    /**< first held packet in the slot's queue */
	uint32_t qlen;     /**< held packets */
};

/** The module. Rules lcore only, but for the adjacency array (RX lcores read). */
struct mod_neigh {
	struct mod_neigh_view view; /**< first member (neigh.h) */
	struct mod_neigh_params p;
	struct mod_neigh_adj *adj;  /**< max_neigh + 1 records (DPDK memory) */
	struct nb_ent *ent;         /**< max_neigh slots */
	uint16_t *bucket;           /**< index heads: slot + 1, 0 = empty */
	uint32_t bucket_mask;
	uint16_t free_head;         /**< slot + 1, 0 = none */
	struct rte_mbuf **q;        /**< queue_len held packets per slot */
	struct mod_neigh_port_info ports[MOD_NEIGH_MAX_PORTS];
	bool announce[MOD_NEIGH_MAX_PORTS]; /**< addresses to announce at the next step */
	uint32_t cursor;            /**< mod_neigh_step()'s walk */
	struct mod_neigh_stats st;
};

/* neigh.c */
struct nb_ent *nb_find(const struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *addr);
struct nb_ent *nb_alloc(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr);
void nb_release(struct mod_neigh *n, struct nb_ent *e);
void nb_adj_write(struct mod_neigh *n, const struct nb_ent *e);
bool nb_port_has(const struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr);

static inline uint32_t
nb_slot(const struct mod_neigh *n, const struct nb_ent *e)
{
	return (uint32_t)(e - n->ent);
}

static inline uint16_t
nb_adj_idx(const struct mod_neigh *n, const struct nb_ent *e)
{
	return (uint16_t)(nb_slot(n, e) + 1);
}

/* neigh_nb.c */
void nb_learn(struct mod_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr,
	const uint8_t mac[6], bool create, bool confirm, uint32_t now);
void nb_drop_queue(struct mod_neigh *n, struct nb_ent *e, bool failed);

/* neigh_io.c */
void nb_send_frame(struct mod_neigh *n, uint16_t port, const uint8_t *frame, unsigned int len,
	uint64_t *ctr);
bool nb_solicit(struct mod_neigh *n, const struct nb_ent *e, bool unicast);
void nb_announce(struct mod_neigh *n, uint16_t port);
void nb_send_held(struct mod_neigh *n, uint16_t port, const uint8_t mac[6], const uint8_t src[6],
	struct rte_mbuf **m, unsigned int cnt);

#endif /* GUFC_NEIGH_PRIV_H */
