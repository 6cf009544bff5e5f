/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine/engine_cb.h — the callbacks the app gives the rules engine
 * in struct rule_engine_params (engine.h): channels, per-flow channels,
 * port pairing and routes. Each is called on the rules lcore.
 */

#ifndef GUFC_ENGINE_CB_H
#define GUFC_ENGINE_CB_H

#include <stdint.h>

/**
 * Channel resolution: the id of channel @p name ("" never comes here: that
 * is the default channel). @return the id, or -ENOENT (the flow then goes
 * to the default channel, counted).
 */
typedef int (*rule_channel_fn)(void *arg, const char *name);

/**
 * Per-flow channels: give a new flow accepted into channel @p channel (an
 * id from rule_channel_fn, or the default) a channel of its own, when
 * @p channel is marked per-flow. Called once per flow (connection) on the
 * rules lcore, after every module's on_insert.
 * @return the per-flow channel's id; -ENOTSUP when @p channel is not
 *   per-flow (the flow keeps it, not counted); any other -errno (e.g.
 *   -ENOSPC: the pool is empty) keeps the flow on @p channel, counted in
 *   struct rule_engine_stats::chan_flow_fallback.
 */
typedef int (*rule_chan_flow_alloc_fn)(void *arg, uint16_t channel);

/**
 * Return a per-flow channel that rule_chan_flow_alloc_fn gave: called once
 * both entries of its flow are gone and a grace period of the engine's
 * readers has passed (no RX lcore can still enqueue to it), or at once for
 * a flow no reader ever saw (its insert failed). Whatever is left in the
 * ring is the callee's to drain or count.
 * @return 0; -EBUSY: try again later (e.g. a consumer is still attached);
 *   other -errno: given up, counted in chan_flow_free_fail.
 */
typedef int (*rule_chan_flow_free_fn)(void *arg, uint32_t id);

/**
 * Port pairing: the port paired with @p port, where accepted packets with
 * no route go (RULE_PORT_PAIRED; testpmd-like 0<->1). Called on the rules
 * lcore to predict the port a connection's replies arrive on.
 * @return the paired port; -ENOENT: @p port is no port (a route to it
 *   leaves by the input port's pair, as the datapath sends it).
 */
typedef int (*rule_port_pair_fn)(void *arg, uint16_t port);

/**
 * Routes, for -m rpfilter: the port a packet to @p addr would leave by.
 * Called on the rules lcore while a packet is classified.
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order
 * @return a port id; RULE_PORT_PAIRED: no route (such a packet leaves by
 *   its input port's pair, so the way back to a source without a route is
 *   the port it came in on).
 */
typedef uint16_t (*rule_route_fn)(void *arg, uint8_t family, const uint8_t *addr);

#endif /* GUFC_ENGINE_CB_H */
