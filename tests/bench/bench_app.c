/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench_app.c — the gufc application context the benchmark
 * runs the real fast path in.
 *
 * app/gufc_rx.c (the RX lcore around lib/datapath) and app/gufc_slow.c (the
 * rules lcore) are linked in unchanged; this file plays app/gufc_main.c's
 * part: one struct
 * gufc_app with a mempool, a local-address table, the channel table (a
 * DISCARD default channel), a rules engine with conntrack and routes, and
 * one lcore holding the RX and rules roles. The RX "port" is a net_ring
 * ethdev whose RX ring the harness fills with mbufs before each burst, so
 * gufc_rx_poll() runs exactly as in the app, rte_eth_rx_burst() included.
 *
 * Also defines gufc_logtype, which app/gufc_slow.c and app/gufc_ctl.c log
 * through, and the lcore pass the harness runs (gufc_lcore_work()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bench.h"
#include "gufc_ctl.h"

int gufc_logtype = RTE_LOGTYPE_USER1;

#define BENCH_MBUFS 8191
#define BENCH_MBUF_DATA (RTE_PKTMBUF_HEADROOM + 256)
#define BENCH_RING 1024
#define BENCH_N_ROUTES 64

unsigned int
gufc_lcore_work(struct gufc_lcore *lc, uint32_t now_ms)
{
	struct gufc_app *app = lc->app;
	unsigned int work = 0;

	if (lc->roles & GUFC_ROLE_RX)
		work += gufc_rx_poll(lc, now_ms);
	if (lc->roles & GUFC_ROLE_RULES) {
		work += gufc_slow_poll(app, lc, now_ms);
		work += gufc_consume(app, lc);
	}
	return work;
}

unsigned int
bench_lcore_work(struct bench_env *env)
{
	return gufc_lcore_work(env->lc, 1000);
}

static int
port_init(struct bench_env *env)
{
	struct rte_eth_conf conf;
	int rc;

	env->rx_ring = rte_ring_create("bench_rx", BENCH_RING, (int)rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	env->tx_ring = rte_ring_create("bench_tx", BENCH_RING, (int)rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (env->rx_ring == NULL || env->tx_ring == NULL)
		return -ENOMEM;
	rc = rte_eth_from_rings("bench_port", &env->rx_ring, 1, &env->tx_ring, 1,
		rte_socket_id());
	if (rc < 0)
		return -rte_errno;
	env->port = (uint16_t)rc;
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(env->port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(env->port, 0, BENCH_RING, rte_socket_id(), NULL,
			env->app->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(env->port, 0, BENCH_RING, rte_socket_id(), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(env->port);
	env->port_started = rc == 0;
	return rc;
}

/* Routes: a catch-all for the destination space and random more specific ones. */
static int
routes_init(struct bench_env *env, struct bench_rng *rng)
{
	struct rte_lpm_config lc = {.max_rules = 1024, .number_tbl8s = 512};

	env->lpm = rte_lpm_create("bench_lpm", (int)rte_socket_id(), &lc);
	if (env->lpm == NULL)
		return -ENOMEM;
	env->route_addr[0] = 0xac100000u;
	env->route_depth[0] = 12;
	env->route_port[0] = 0;
	env->n_routes = 1;
	while (env->n_routes < BENCH_N_ROUTES) {
		unsigned int depth = 14 + bench_rng_below(rng, 15);
		uint32_t a = (0xac100000u | bench_rng_below(rng, 1u << 20)) & (~0u << (32 - depth));

		env->route_addr[env->n_routes] = a;
		env->route_depth[env->n_routes] = (uint8_t)depth;
		env->route_port[env->n_routes] = (uint16_t)(1 + bench_rng_below(rng, 3));
		env->n_routes++;
	}
	for (unsigned int i = 0; i < env->n_routes; i++)
		if (rte_lpm_add(env->lpm, env->route_addr[i], env->route_depth[i],
			    env->route_port[i]) != 0)
			return -EINVAL;
	return 0;
}

int
bench_env_init(struct bench_env *env)
{
	struct chan_table_params tp;
	struct gufc_app *app;
	struct gufc_lcore *lc;
	struct bench_rng rng;
	unsigned int priv = DP_MBUF_PRIV_SIZE;
	uint32_t a4 = rte_cpu_to_be_32(0xc0000200u);
	static const uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff};
	int rc;

	memset(env, 0, sizeof(*env));
	bench_rng_seed(&rng, 7);
	app = rte_zmalloc("bench_app", sizeof(*app), RTE_CACHE_LINE_SIZE);
	lc = rte_zmalloc("bench_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE);
	if (app == NULL || lc == NULL)
		goto nomem;
	env->app = app;
	env->lc = lc;
	app->hz = rte_get_tsc_hz();
	app->start_tsc = rte_get_tsc_cycles();
	app->cfg.set.burst = BENCH_BURST;
	app->cfg.set.fragments = GUFC_FRAG_DROP;
	app->cfg.set.non_ip = GUFC_NONIP_DEFAULT;
	app->cfg.set.channel_size = 4096;
	app->pool = rte_pktmbuf_pool_create("bench_mbufs", BENCH_MBUFS, 256, (uint16_t)priv,
		BENCH_MBUF_DATA, (int)rte_socket_id());
	if (app->pool == NULL)
		goto nomem;
	app->locals = fc_locals_create("bench", 16, 16, SOCKET_ID_ANY);
	if (app->locals == NULL)
		goto nomem;
	if (fc_locals_add(app->locals, FC_AF_INET4, (const uint8_t *)&a4, 24) != 0 ||
		fc_locals_add(app->locals, FC_AF_INET6, a6, 48) != 0)
		return -EINVAL;

	memset(&tp, 0, sizeof(tp));
	tp.max_channels = 8;
	tp.socket_id = (int)rte_socket_id();
	tp.def.name = CHAN_DEFAULT_NAME;
	tp.def.kind = CHAN_CONS_DISCARD;
	tp.def.ring_size = 4096;
	/* No per-flow ring at start; bench_perflow() grows the pool on demand. */
	tp.flow_pool_max = CHAN_FLOW_POOL_MAX;
	app->chans = chan_table_create(&tp);
	if (app->chans == NULL)
		return -rte_errno;
	for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++) {
		app->def_chan[p] = CHAN_ID_DEFAULT;
		app->port_chan[p] = DP_CHAN_NONE; /* no TX ports: routes go to the default */
	}

	rc = port_init(env);
	if (rc != 0)
		return rc;
	/* One port, its own pair (gufc_port.c pairs an odd last port with itself). */
	app->ports[env->port].used = true;
	app->ports[env->port].pair = env->port;
	app->n_ports = 1;
	rc = routes_init(env, &rng);
	if (rc != 0)
		return rc;

	lc->app = app;
	lc->lcore_id = rte_lcore_id();
	lc->roles = GUFC_ROLE_RX | GUFC_ROLE_RULES | GUFC_ROLE_MAIN;
	lc->rx_index = 0;
	lc->n_rxq = 1;
	lc->rxq[0].port = env->port;
	lc->rxq[0].queue = 0;
	lc->upcall = rte_ring_create("bench_upcall", 4096, (int)rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	app->ctl = rte_ring_create("bench_ctl", 64, (int)rte_socket_id(), RING_F_SC_DEQ);
	app->to_main = rte_ring_create("bench_to_main", 64, (int)rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (lc->upcall == NULL || app->ctl == NULL || app->to_main == NULL)
		goto nomem;
	app->lc[lc->lcore_id] = lc;
	app->n_lcores = 1;
	app->rx[0] = lc;
	app->n_rx = 1;
	app->rules_lc = lc;
	app->rules_producer = 1;
	return gufc_slow_init(app);
nomem:
	return -ENOMEM;
}

/* Requests for classifier builds the rules lcore left for the main lcore. */
static void
to_main_drop(struct gufc_app *app)
{
	struct gufc_ctl_msg *msg;

	while (rte_ring_sc_dequeue(app->to_main, (void **)&msg) == 0) {
		rule_set_free(msg->set);
		free(msg);
	}
}

void
bench_env_fini(struct bench_env *env)
{
	struct gufc_app *app = env->app;

	if (app == NULL)
		return;
	if (env->lc != NULL)
		bench_engine_stop(env);
	gufc_slow_fini(app);
	if (env->port_started)
		rte_eth_dev_stop(env->port);
	chan_table_free(app->chans);
	fc_locals_free(app->locals);
	rte_lpm_free(env->lpm);
	if (app->to_main != NULL)
		to_main_drop(app);
	rte_ring_free(app->to_main);
	rte_ring_free(app->ctl);
	if (env->lc != NULL)
		rte_ring_free(env->lc->upcall);
	rte_free(env->lc);
	rte_free(app);
	env->app = NULL;
}

/*
 * Port pairing as the app does it (app/gufc_main.c), for the engine's reply
 * ports: the one port is its own pair; the routes' ports 1-3 are none.
 */
static int
bench_port_pair(void *arg, uint16_t port)
{
	const struct gufc_app *app = arg;

	return port < GUFC_MAX_PORTS && app->ports[port].used ? port : -ENOENT;
}

int
bench_engine_start(struct bench_env *env, uint32_t capacity, uint32_t capacity6)
{
	struct gufc_app *app = env->app;
	struct rule_engine_params p;
	struct mod_ct_module_params cp;
	struct mod_route_params rp;
	char name[16];
	int rc;

	snprintf(name, sizeof(name), "b%u", env->eng_seq++);
	memset(&p, 0, sizeof(p));
	p.name = name;
	p.capacity_v4 = capacity;
	p.capacity_v6 = capacity6;
	p.full_policy = FC_FULL_EVICT_IDLE;
	p.max_readers = 1;
	p.socket_id = (int)rte_socket_id();
	p.default_channel = CHAN_ID_DEFAULT;
	p.port_pair_fn = bench_port_pair;
	p.cb_arg = app;
	app->eng = rule_engine_create(&p);
	if (app->eng == NULL)
		return -rte_errno;
	/* The app's stack without NAT: conntrack and routes. */
	memset(&cp, 0, sizeof(cp));
	mod_ct_cfg_init(&cp.cfg);
	app->ctm = mod_ct_module_create(app->eng, &cp);
	if (app->ctm == NULL)
		return -rte_errno;
	memset(&rp, 0, sizeof(rp));
	rp.name = name;
	rp.socket_id = (int)rte_socket_id();
	app->route = mod_route_module_create(app->eng, &rp);
	if (app->route == NULL)
		return -rte_errno;
	app->tab4 = rule_engine_table(app->eng, FC_AF_INET4);
	app->tab6 = rule_engine_table(app->eng, FC_AF_INET6);
	app->nat = NULL;
	gufc_dp_init(app);
	for (unsigned int i = 0; i < env->n_routes; i++) {
		uint32_t a = rte_cpu_to_be_32(env->route_addr[i]);

		rc = mod_route_add(app->route, FC_AF_INET4, (const uint8_t *)&a,
			env->route_depth[i], env->route_port[i]);
		if (rc != 0)
			return rc;
	}
	return rule_engine_reader_register(app->eng, env->lc->rx_index);
}

void
bench_engine_stop(struct bench_env *env)
{
	struct gufc_app *app = env->app;

	if (app->eng == NULL)
		return;
	/* Whatever a pass left in flight goes before the tables do. */
	dp_rx_flush(&env->lc->rx_dp);
	dp_upcall_flush(&env->lc->rx_dp);
	while (rte_ring_count(env->lc->upcall) != 0)
		gufc_slow_poll(app, env->lc, 1000);
	chan_drain_all(app->chans, UINT32_MAX);
	to_main_drop(app);
	rule_engine_reader_unregister(app->eng, env->lc->rx_index);
	rule_engine_free(app->eng);
	mod_route_module_free(app->route);
	mod_ct_module_free(app->ctm);
	app->eng = NULL;
	app->route = NULL;
	app->ctm = NULL;
	app->tab4 = NULL;
	app->tab6 = NULL;
	app->nat = NULL;
	gufc_dp_init(app);
}

int
bench_engine_rules(struct bench_env *env, struct rule_set *set, double *build_s)
{
	struct rule_engine *eng = env->app->eng;
	struct rule_set *want;
	struct rule_cls *cls;
	uint64_t t0;
	uint32_t gen;
	int rc;

	rc = rule_engine_commit(eng, set);
	if (rc != 0)
		return rc;
	want = rule_engine_cls_wanted(eng, &gen);
	if (want == NULL)
		return -rte_errno;
	t0 = rte_rdtsc();
	cls = rule_cls_build(want, "bench", SOCKET_ID_ANY);
	*build_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	rule_set_free(want);
	if (cls == NULL)
		return -rte_errno;
	rc = rule_engine_cls_ready(eng, cls, gen);
	if (rc != 0)
		rule_cls_free(cls);
	return rc;
}

uint32_t
bench_engine_fill(struct bench_env *env, unsigned int family, const struct fc_key *keys,
	uint32_t n_keys, uint32_t target, uint64_t *cycles)
{
	struct gufc_app *app = env->app;
	struct fc_table *t = family == FC_AF_INET4 ? app->tab4 : app->tab6;
	static uint8_t frames[BENCH_BURST][BENCH_FRAME_MAX];
	struct rule_upcall up[BENCH_BURST];
	struct rule_decision dec[BENCH_BURST];
	struct fc_table_stats st;
	uint64_t spent = 0;
	uint32_t done = 0;

	memset(up, 0, sizeof(up));
	while (done < n_keys) {
		unsigned int n = RTE_MIN((uint32_t)BENCH_BURST, n_keys - done);
		unsigned int ki[BENCH_BURST];
		bool open[BENCH_BURST];
		uint64_t t0;

		fc_table_stats_get(t, &st);
		if (st.occupancy >= target)
			break;
		/*
		 * One burst per segment of the opening: a pickup's ACK; or with
		 * tcp_established a handshake (window scale 14 both ways) and the
		 * server's first ACK, which opens its scaled window. A segment the
		 * rules drop never reaches the other side: that connection's
		 * opening ends there, as it would on a wire.
		 */
		for (unsigned int i = 0; i < n; i++)
			open[i] = true;
		for (unsigned int step = 0; step < (env->tcp_established ? 4u : 1u); step++) {
			unsigned int m = 0;

			for (unsigned int i = 0; i < n; i++) {
				const struct fc_key *k = &keys[done + i];
				struct fc_key rk;
				uint32_t len;

				if (!env->tcp_established) {
					len = bench_frame_write(frames[m], BENCH_FRAME_MAX, k,
						0x10 /* ACK: loose pick-up */);
				} else if (!open[i]) {
					continue;
				} else if (fc_key_proto(k) != 6) {
					if (step != 0)
						continue;
					len = bench_frame_write(frames[m], BENCH_FRAME_MAX, k, 0);
				} else {
					static const uint8_t fl[4] = {0x02, 0x12, 0x10, 0x10};

					fc_key_reverse(k, &rk);
					len = bench_frame_tcp(frames[m], BENCH_FRAME_MAX,
						step % 2 ? &rk : k, fl[step], step == 0 ? 0 : 1,
						step == 0 ? 0 : 1, 65535, step < 2 ? 14 : -1);
				}
				fc_parse(frames[m], len, &up[m].pkt);
				fc_locals_mark_burst(app->locals, &up[m].pkt, 1);
				fc_key_set_in_port(&up[m].pkt.key, env->port); /* as the RX path keys it */
				up[m].frame = frames[m];
				up[m].frame_len = len;
				up[m].len = len;
				up[m].in_port = env->port;
				up[m].reason = RULE_UPCALL_MISS;
				ki[m++] = i;
			}
			t0 = rte_rdtsc();
			rule_engine_upcall_burst(app->eng, up, m, dec, 1000);
			spent += rte_rdtsc() - t0;
			for (unsigned int j = 0; j < m; j++)
				if (dec[j].verdict != FC_VERDICT_ACCEPT)
					open[ki[j]] = false;
		}
		done += n;
	}
	*cycles = spent;
	return done;
}
