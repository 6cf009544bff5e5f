/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_main.c — gufc's entry point: EAL, arguments and config, the rule
 * set, the mempool, ports, channels, the rules engine, the run loop of
 * every lcore (their roles: gufc_roles.c), and the orderly shutdown (stop
 * RX, drain every ring through to the consumers, final statistics,
 * accounting check, free).
 *
 * Roles (see --help): RX lcores poll queues and run the fast path; the
 * rules lcore runs the slow path and the channel consumers; the main lcore
 * runs control (classifier builds, statistics, idle exit, the shell). One
 * lcore may hold several roles: each lcore runs the same loop over its roles.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pdump.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "gufc_ctl.h"
#include "gufc_eal.h"

static struct gufc_app *the_app;
/* SIGINT/SIGTERM seen (from EAL's start on: one during set-up stops gufc once it runs). */
static volatile sig_atomic_t stop_signals;
/* The runtime directory, for a second SIGINT/SIGTERM (gufc_eal_rundir_remove()). */
static char eal_rundir[PATH_MAX];

/*
 * Signals only set flags; the main lcore acts on them (main_duties()). A
 * second SIGINT or SIGTERM while gufc stops (one that does not stop, or a
 * user who will not wait) ends it at once: its runtime directory removed,
 * then the signal's default action.
 */
static void
on_signal(int sig)
{
	if (sig == SIGHUP) {
		if (the_app != NULL)
			the_app->reload_req = 1;
		return;
	}
	if (stop_signals++ != 0) {
		gufc_eal_rundir_remove(eal_rundir);
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (the_app != NULL)
		the_app->quit = 1;
}

/* ------------------------------------------------------------------------ */
/* Channels and engine                                                       */
/* ------------------------------------------------------------------------ */

static int
eng_channel_fn(void *arg, const char *name)
{
	struct gufc_app *app = arg;

	return chan_lookup(app->chans, name);
}

/* The paired port (RULE_PORT_PAIRED), where a connection's replies are expected. */
static int
eng_port_pair_fn(void *arg, uint16_t port)
{
	const struct gufc_app *app = arg;

	if (port >= GUFC_MAX_PORTS || !app->ports[port].used)
		return -ENOENT;
	return app->ports[port].pair;
}

/* -m rpfilter's question: the port the routes send @p addr to. */
static uint16_t
eng_route_fn(void *arg, uint8_t family, const uint8_t *addr)
{
	const struct gufc_app *app = arg;

	if (app->route == NULL)
		return RULE_PORT_PAIRED;
	return mod_route_lookup(app->route, family, addr);
}

/*
 * Masquerade source address: the egress port's address of the family
 * ("port N address ..."); for a port without one, the most specific
 * "local" prefix of the family (its first host when it is a network).
 * REDIRECT (RULE_PORT_LOCAL): the input port's own address or none.
 */
static int
eng_port_addr_fn(void *arg, uint16_t port, uint16_t in_port, uint8_t family, uint8_t *addr)
{
	struct gufc_app *app = arg;
	const struct lex_prefix *best = NULL;

	if (gufc_router_masq_addr(app, port, in_port, family, addr) == 0)
		return 0;
	if (port == RULE_PORT_LOCAL)
		return -EADDRNOTAVAIL;
	for (unsigned int i = 0; i < app->cfg.n_locals; i++) {
		const struct lex_prefix *p = &app->cfg.locals[i];

		if (p->family != family)
			continue;
		if (best == NULL || p->len > best->len)
			best = p;
	}
	if (best == NULL)
		return -ENOENT;
	memcpy(addr, best->addr, fc_af_addr_len(family));
	/* A prefix rather than a host address: its first host (10.0.0.0/8 -> 10.0.0.1). */
	if (best->len < fc_af_max_depth(family))
		addr[fc_af_addr_len(family) - 1] |= 1;
	return 0;
}

/*
 * The rules engine and its modules, in netfilter's order by their own
 * orders: conntrack (unless off), NAT (with bindings), route.
 */
static int
engine_init(struct gufc_app *app)
{
	const struct gufc_settings *s = &app->cfg.set;
	struct rule_engine_params p;
	struct mod_route_params rp;
	uint32_t nat_seed = (uint32_t)rte_rand();
	int rc;

	memset(&p, 0, sizeof(p));
	p.name = "gufc";
	p.capacity_v4 = s->flows;
	p.capacity_v6 = s->flows;
	p.full_policy = (enum fc_full_policy)s->full_policy;
	p.max_readers = app->n_rx;
	p.socket_id = (int)rte_socket_id();
	p.untracked_timeout = s->flow_timeout;
	p.default_channel = CHAN_ID_DEFAULT;
	p.channel_fn = eng_channel_fn;
	if (app->chan_flow_pool != 0) { /* a per-flow channel in the config */
		p.chan_flow_alloc_fn = gufc_chan_flow_alloc;
		p.chan_flow_free_fn = gufc_chan_flow_free;
	}
	p.port_pair_fn = eng_port_pair_fn;
	p.route_fn = eng_route_fn;
	p.cb_arg = app;
	app->eng = rule_engine_create(&p);
	if (app->eng == NULL) {
		GUFC_LOG(ERR, "rules engine: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (gufc_router_init(app) != 0) /* ports' addresses, MTUs; router mode's neighbours */
		return -EINVAL;
	if (s->conntrack != 0) {
		struct mod_ct_module_params cp;

		memset(&cp, 0, sizeof(cp));
		mod_ct_cfg_init(&cp.cfg);
		cp.cfg.tcp_strict = s->tcp_strict != 0 || s->tcp_loose == 0;
		cp.cfg.tcp_be_liberal = s->tcp_be_liberal != 0;
		cp.cfg.tcp_max_retrans = (uint8_t)s->tcp_max_retrans;
		memcpy(cp.cfg.timeout, s->ct_timeout, sizeof(cp.cfg.timeout));
		app->ctm = mod_ct_module_create(app->eng, &cp);
		if (app->ctm == NULL) {
			GUFC_LOG(ERR, "conntrack: %s", rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	if (s->nat_bindings != 0) {
		struct mod_nat_module_params np;

		memset(&np, 0, sizeof(np));
		np.max_bindings = s->nat_bindings;
		np.seed = nat_seed;
		np.locals = app->locals;
		np.port_addr_fn = eng_port_addr_fn;
		np.cb_arg = app;
		app->natm = mod_nat_module_create(app->eng, &np);
		if (app->natm == NULL) {
			GUFC_LOG(ERR, "nat: %s", rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	memset(&rp, 0, sizeof(rp));
	rp.name = "gufc";
	rp.socket_id = (int)rte_socket_id();
	/* Always able to take adjacencies: "set mode" may turn router mode on. */
	rp.adj_get_fn = gufc_router_adj_get;
	rp.adj_put_fn = gufc_router_adj_put;
	rp.adj_arg = app;
	app->route = mod_route_module_create(app->eng, &rp);
	if (app->route == NULL) {
		GUFC_LOG(ERR, "routes: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	(void)mod_route_router_set(app->route, app->cfg.set.mode == GUFC_MODE_ROUTER);
	/* Without memory for a class table the walks still see the decrement (per packet). */
	(void)rule_engine_router_set(app->eng, app->cfg.set.mode == GUFC_MODE_ROUTER);
	app->tab4 = rule_engine_table(app->eng, FC_AF_INET4);
	app->tab6 = rule_engine_table(app->eng, FC_AF_INET6);
	app->nat = mod_nat_module_table(app->natm);
	/* Connected routes, then configured ones, then the routing rules. */
	rc = gufc_router_routes(app);
	return rc != 0 ? rc : gufc_router_prules(app);
}

/* Load the configured rule set (before anything starts). NULL with *rc set on error. */
static struct rule_set *
rules_load(struct gufc_app *app, int *rc)
{
	const struct gufc_config *cfg = &app->cfg;
	struct rule_error err;
	struct rule_set *set;
	char msg[512];

	memset(&err, 0, sizeof(err));
	*rc = gufc_ipsets_load(app, &err);
	if (*rc != 0) {
		rule_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "gufc: %s\n", *rc == -ENOMEM ? "ipsets: no memory" : msg);
		return NULL;
	}
	/* No rules: accept everything. */
	set = gufc_rules_load(app, cfg->rules_file[0] != '\0' ? cfg->rules_file : NULL,
		cfg->ipt_file[0] != '\0' ? cfg->ipt_file : NULL,
		cfg->ipt6_file[0] != '\0' ? cfg->ipt6_file : NULL, &err, stderr);
	if (set == NULL) {
		rule_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "gufc: %s\n", msg);
		*rc = -EINVAL;
	}
	return set;
}

/* First commit and classifier, synchronously, before the lcores start. */
static int
rules_install(struct gufc_app *app, struct rule_set *set)
{
	int rc;

	/* Port names exist once the ports do. */
	gufc_port_names_init(app);
	rc = gufc_rules_ports(app, set, stderr);
	if (rc == 0)
		rc = gufc_channels_for_rules(app, set);
	if (rc != 0) {
		rule_set_free(set);
		return rc;
	}
	return gufc_ctl_install(app, set);
}

/* ------------------------------------------------------------------------ */
/* Run loop                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * One pass of every role of @p lc but MAIN's (also app->lcore_work). Each
 * role's pass is timed (one rte_rdtsc() per role and pass) into its busy or
 * idle cycles (gufc_cycles.h): busy when it handled packets.
 */
static unsigned int
lcore_work(struct gufc_lcore *lc, uint32_t now)
{
	struct gufc_app *app = lc->app;
	unsigned int work = 0, n;
	uint64_t t0 = rte_rdtsc(), t1;

	if ((lc->roles & GUFC_ROLE_RX) && !lc->rx_done) {
		n = gufc_rx_poll(lc, now);
		/* TX channels without direct TX: not behind the rules lcore's work. */
		if (!(lc->roles & GUFC_ROLE_RULES) && app->n_ring_tx != 0)
			n += gufc_consume_tx(app, lc);
		t1 = rte_rdtsc();
		gufc_cycles_add(&lc->st.cyc[GUFC_CYC_RX], t1 - t0, n != 0);
		t0 = t1;
		work += n;
	}
	if (lc->roles & GUFC_ROLE_RULES) {
		n = gufc_slow_poll(app, lc, now);
		n += gufc_consume(app, lc);
		t1 = rte_rdtsc();
		gufc_cycles_add(&lc->st.cyc[GUFC_CYC_RULES], t1 - t0, n != 0);
		work += n;
	}
	return work;
}

/* Cycles the RX and rules roles of @p lc have counted so far. */
static uint64_t
worker_cycles(const struct gufc_lcore *lc)
{
	return gufc_cycles_total(&lc->st.cyc[GUFC_CYC_RX]) +
		gufc_cycles_total(&lc->st.cyc[GUFC_CYC_RULES]);
}

static uint64_t
last_rx_tsc(const struct gufc_app *app)
{
	uint64_t last = app->start_tsc;

	for (unsigned int i = 0; i < app->n_rx; i++) {
		uint64_t t = __atomic_load_n(&app->rx[i]->st.last_rx_tsc, __ATOMIC_RELAXED);

		if (t > last)
			last = t;
	}
	return last;
}

/*
 * Has every RX lcore polled its queues empty since @p since? A file's
 * replay on a loaded host may leave an RX lcore unscheduled for longer
 * than --idle-exit: no packet arrived, but nobody looked either.
 */
static bool
rx_seen_idle(const struct gufc_app *app, uint64_t since)
{
	for (unsigned int i = 0; i < app->n_rx; i++)
		if (__atomic_load_n(&app->rx[i]->st.last_empty_tsc, __ATOMIC_RELAXED) <= since)
			return false;
	return true;
}

struct main_state {
	uint64_t next_tsc;
	uint64_t next_stats_tsc;
	bool shell;
};

/* The main role's periodic work. @return the things it did (0: an idle pass). */
static unsigned int
main_duties(struct gufc_app *app, struct main_state *ms)
{
	const struct gufc_settings *s = &app->cfg.set;
	uint64_t tsc = rte_get_tsc_cycles();
	uint64_t idle_tsc;
	unsigned int work = 0;
	int rc;

	if (tsc < ms->next_tsc)
		return 0;
	ms->next_tsc = tsc + app->hz / 1000;
	gufc_ctl_main_poll(app);
	work += (unsigned int)gufc_telemetry_poll(app);
	/* LOG lines and log channels: after forwarding, a bounded amount per pass. */
	work += gufc_log_poll(app, 512);
	if (ms->shell) {
		rc = gufc_shell_poll(app);
		if (rc < 0)
			app->quit = 1;
		else
			work += (unsigned int)rc;
	}
	if (s->stats_period != 0 && tsc >= ms->next_stats_tsc) {
		if (ms->next_stats_tsc != 0)
			gufc_stats_line(app, stdout);
		ms->next_stats_tsc = tsc + app->hz * s->stats_period;
		work++;
	}
	if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) != GUFC_PHASE_RUN)
		return work;
	if (app->reload_req) {
		app->reload_req = 0;
		(void)gufc_reload(app); /* logged and counted */
		work++;
	}
	if (app->quit) {
		GUFC_LOG(INFO, "stopping: signal or shell");
		__atomic_store_n(&app->phase, GUFC_PHASE_STOP_RX, __ATOMIC_RELEASE);
		return work;
	}
	/* The shell may have run the lcore's other roles meanwhile: read the clock again. */
	tsc = rte_get_tsc_cycles();
	idle_tsc = last_rx_tsc(app) + app->hz / 1000 * s->idle_exit;
	if (s->idle_exit != 0 && tsc > idle_tsc && rx_seen_idle(app, idle_tsc) &&
		!gufc_slow_busy(app) &&
		(tsc > idle_tsc + app->hz / 1000 * GUFC_APP_WAIT_MS || !gufc_slow_app_pending(app))) {
		GUFC_LOG(INFO, "stopping: no packet for %u ms", s->idle_exit);
		__atomic_store_n(&app->phase, GUFC_PHASE_STOP_RX, __ATOMIC_RELEASE);
	}
	return work;
}

static bool
all_rx_done(const struct gufc_app *app)
{
	for (unsigned int i = 0; i < app->n_rx; i++)
		if (!__atomic_load_n(&app->rx[i]->rx_done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

static int
lcore_loop(void *arg)
{
	struct gufc_lcore *lc = arg;
	struct gufc_app *app = lc->app;
	struct main_state ms = { 0 };
	int rc;

	if (lc->roles & GUFC_ROLE_RX) {
		rc = rule_engine_reader_register(app->eng, lc->rx_index);
		if (rc != 0) {
			GUFC_LOG(ERR, "lcore %u: reader register: %s", lc->lcore_id, strerror(-rc));
			__atomic_store_n(&lc->rx_done, 1, __ATOMIC_RELEASE);
		}
	}
	if (lc->roles & GUFC_ROLE_MAIN)
		ms.shell = app->cfg.interactive || app->cfg.script_file[0] != '\0';
	while (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) != GUFC_PHASE_DONE) {
		int phase = __atomic_load_n(&app->phase, __ATOMIC_ACQUIRE);
		uint64_t it0 = 0, w0 = 0;
		unsigned int work;

		/* The main role's cycles: an RX lcore without it reads no clock for them. */
		if (lc->roles & GUFC_ROLE_MAIN) {
			it0 = rte_rdtsc();
			w0 = worker_cycles(lc);
		}

		/* Stopping: RX ends once what it holds or keeps waiting went on. */
		if ((lc->roles & GUFC_ROLE_RX) && !lc->rx_done && phase != GUFC_PHASE_RUN &&
			gufc_rx_idle(lc, gufc_now_ms(app))) {
			rule_engine_reader_unregister(app->eng, lc->rx_index);
			__atomic_store_n(&lc->rx_done, 1, __ATOMIC_RELEASE);
		}
		work = lcore_work(lc, gufc_now_ms(app));
		lc->st.loops++;
		lc->st.busy_loops += work != 0;
		if ((lc->roles & GUFC_ROLE_RULES) && phase == GUFC_PHASE_STOP_RX && work == 0 &&
			all_rx_done(app) && !gufc_slow_busy(app)) {
			gufc_slow_flush(app, lc);
			/* The flows still cached end here for the collector (ports still up). */
			gufc_ipfix_stop(app, gufc_now_ms(app));
			__atomic_store_n(&app->phase, GUFC_PHASE_DONE, __ATOMIC_RELEASE);
		}
		if (lc->roles & GUFC_ROLE_MAIN) {
			unsigned int mwork = main_duties(app, &ms);

			if (lc->roles == GUFC_ROLE_MAIN)
				rte_delay_us_sleep(200);
			/* The pass's cycles the other roles did not count (a shell command
			 * runs them while it waits for the rules lcore). */
			gufc_cycles_add(&lc->st.cyc[GUFC_CYC_MAIN],
				rte_rdtsc() - it0 - (worker_cycles(lc) - w0), mwork != 0);
		}
	}
	if ((lc->roles & GUFC_ROLE_RX) && !lc->rx_done) {
		rule_engine_reader_unregister(app->eng, lc->rx_index);
		lc->rx_done = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* main                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * Per-connection order across the slow path (struct dp_pending): RX lcore
 * @p lc's table of upcalls in flight, its wait queues (pending-queue
 * packets) and its completion counter (a cache line of its own, which
 * the rules lcore writes). Upcalls in
 * flight are at most what its upcall ring holds, plus what it holds back
 * (lossless) and the rules lcore's batch, plus the tokens not taken yet,
 * at most one pass of its queues' bursts beyond that: both sized with room.
 */
static int
pending_init(struct gufc_app *app, struct gufc_lcore *lc)
{
	uint32_t inflight = app->cfg.set.upcall_ring * 2 + (lc->n_rxq + 4) * GUFC_BURST_MAX;
	uint32_t wait_cap = app->cfg.set.pending_queue;
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
	void *mem;

	lc->done = rte_zmalloc_socket("gufc_done", sizeof(*lc->done), RTE_CACHE_LINE_SIZE, socket);
	mem = rte_zmalloc_socket("gufc_pending", dp_pending_memsize(inflight, wait_cap),
		RTE_CACHE_LINE_SIZE, socket);
	if (lc->done == NULL || mem == NULL) {
		GUFC_LOG(ERR, "completion counter / pending table of RX lcore %u: %s",
			lc->lcore_id, rte_strerror(rte_errno));
		rte_free(mem);
		rte_free(lc->done);
		lc->done = NULL;
		return -1;
	}
	lc->pend = dp_pending_init(mem, inflight, wait_cap);
	lc->flat = rte_malloc_socket("gufc_flat", (size_t)DP_BURST_MAX * DP_FLAT_MAX,
		RTE_CACHE_LINE_SIZE, socket);
	if (lc->flat == NULL)
		GUFC_LOG(WARNING, "RX lcore %u: no memory for flat copies of chained upcalls: "
			"the slow path's matches read a jumbo frame's first segment only",
			lc->lcore_id);
	return 0;
}

static int
setup(struct gufc_app *app, struct rule_set *set)
{
	const struct gufc_settings *s = &app->cfg.set;
	char name[RTE_RING_NAMESIZE];
	unsigned int priv = DP_MBUF_PRIV_SIZE;
	int rc;

	app->pool = rte_pktmbuf_pool_create("gufc_mbufs", s->mbufs, 256, (uint16_t)priv,
		RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (app->pool == NULL) {
		GUFC_LOG(ERR, "mbuf pool (%u mbufs): %s", s->mbufs, rte_strerror(rte_errno));
		goto fail_set;
	}
	/* TX queues: queue 0, plus whatever a configured TX channel names. */
	gufc_chan_txq_plan(app);
	gufc_direct_tx_plan(app);
	rc = gufc_ports_init(app);
	if (rc != 0)
		goto fail_set;
	gufc_queues_assign(app);
	app->lossless = gufc_lossless_decide(app);
	for (uint16_t p = 0; app->lossless && p < GUFC_MAX_PORTS; p++) {
		if (app->ports[p].vlan) {
			GUFC_LOG(ERR, "--lossless on: not with VLAN sub-interfaces (port %u); "
				"nothing started", p);
			goto fail_set;
		}
	}

	app->locals = fc_locals_create("gufc", GUFC_MAX_LOCALS, GUFC_MAX_LOCALS,
		(int)rte_socket_id());
	if (app->locals == NULL) {
		GUFC_LOG(ERR, "local-address table: %s", rte_strerror(rte_errno));
		goto fail_set;
	}
	/* A local source is this host's own on a `host` port only: elsewhere forged. */
	{
		uint64_t host = 0;

		RTE_BUILD_BUG_ON(GUFC_MAX_PORTS > 64); /* the table's mask has 64 ports */
		for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
			if (app->cfg.port[p].host)
				host |= UINT64_C(1) << p;
		fc_locals_host_ports_set(app->locals, host);
	}
	for (unsigned int i = 0; i < app->cfg.n_locals; i++) {
		const struct lex_prefix *p = &app->cfg.locals[i];

		rc = fc_locals_add(app->locals, p->family, p->addr, p->len);
		if (rc != 0 && rc != -EEXIST) {
			GUFC_LOG(ERR, "local prefix %u: %s", i + 1, strerror(-rc));
			goto fail_set;
		}
	}
	if (gufc_chan_init(app) != 0 || gufc_direct_tx_assign(app) != 0)
		goto fail_set;
	if (engine_init(app) != 0 || gufc_ipfix_init(app) != 0)
		goto fail_set;
	if (gufc_offload_policy_init(app) != 0)
		goto fail_set;
	if (rules_install(app, set) != 0)
		return -1;

	for (unsigned int i = 0; i < app->n_rx; i++) {
		snprintf(name, sizeof(name), "gufc_up%u", i);
		app->rx[i]->upcall = rte_ring_create(name, s->upcall_ring,
			(int)rte_lcore_to_socket_id(app->rx[i]->lcore_id),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (app->rx[i]->upcall == NULL) {
			GUFC_LOG(ERR, "upcall ring: %s", rte_strerror(rte_errno));
			return -1;
		}
		if (pending_init(app, app->rx[i]) != 0)
			return -1;
	}
	if (gufc_ctl_init(app) != 0)
		return -1;
	gufc_dp_init(app);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (app->lc[i] != NULL) {
			gufc_router_dp(app, &app->lc[i]->rx_dp);
			gufc_router_dp(app, &app->lc[i]->slow_dp);
		}
	if (gufc_log_init(app) != 0)
		return -1;
	return gufc_slow_init(app);

fail_set:
	rule_set_free(set);
	return -1;
}

static void
describe(const struct gufc_app *app)
{
	char buf[256];
	int n = 0;

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct gufc_lcore *lc = app->lc[i];

		if (lc == NULL)
			continue;
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%u:%s%s%s", n ? " " : "", i,
			(lc->roles & GUFC_ROLE_MAIN) ? "M" : "",
			(lc->roles & GUFC_ROLE_RULES) ? "R" : "", (lc->roles & GUFC_ROLE_RX) ? "X" : "");
		if (n >= (int)sizeof(buf))
			break;
	}
	GUFC_LOG(INFO, "lcores (M main, R rules, X rx): %s; %u port(s), burst %u, flows %u%s",
		buf, app->n_ports, app->cfg.set.burst, app->cfg.set.flows,
		app->lossless ? ", lossless (full rings hold RX back)" : "");
}

static void
teardown(struct gufc_app *app)
{
	gufc_ctl_fini(app);
	gufc_slow_fini(app);
	gufc_log_free(app);
	for (unsigned int i = 0; i < app->n_rx; i++) {
		rte_ring_free(app->rx[i]->upcall);
		rte_free(app->rx[i]->done);
		rte_free(app->rx[i]->pend);
		rte_free(app->rx[i]->flat);
	}
	/* The engine first: it calls its modules until it goes. */
	rule_engine_free(app->eng);
	gufc_router_fini(app);
	gufc_ipfix_fini(app);
	mod_route_module_free(app->route);
	mod_nat_module_free(app->natm);
	mod_ct_module_free(app->ctm);
	chan_table_free(app->chans);
	fc_locals_free(app->locals);
	rule_ipsets_free(app->ipsets);
	app->ipsets = NULL;
	rte_mempool_free(app->pool);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		rte_free(app->lc[i]);
}

int
main(int argc, char **argv)
{
	struct gufc_app *app;
	struct gufc_totals tot;
	struct rule_set *set;
	bool ok;
	int rc;

	/* From here a SIGINT/SIGTERM ends gufc through gufc_eal_end() (at the
	 * latest once EAL and the set-up are done), and a closed stdout does
	 * not kill it before then (SIGPIPE: writes fail instead). */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	gufc_vdevs_note(argc, argv);
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "gufc: EAL initialization failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= rc;
	argv += rc;
	argv[0] = argv[-rc];
	gufc_eal_rundir_save(eal_rundir, sizeof(eal_rundir));
	if (gufc_vdevs_check() != 0) {
		gufc_eal_end();
		return 1;
	}
	gufc_logtype = rte_log_register_type_and_pick_level("gufc.app", RTE_LOG_INFO);
	/* dpdk-dumpcap / dpdk-pdump attach as secondary processes and ask for
	 * copies of a port's packets: this primary must answer them. Without
	 * multi-process (--no-shconf, --in-memory) there is nobody to answer. */
	if (rte_pdump_init() != 0)
		GUFC_LOG(NOTICE, "packet capture (dpdk-dumpcap) not available: %s",
			rte_strerror(rte_errno));
	else if (!rte_eal_has_hugepages())
		GUFC_LOG(INFO, "packet capture (dpdk-dumpcap) needs gufc on hugepages: not with "
			"--no-huge");
	/* A SIGHUP before the app exists is ignored (not fatal); later ones wait for the main loop. */
	signal(SIGHUP, on_signal);

	app = calloc(1, sizeof(*app));
	if (app == NULL)
		goto fail_eal;
	gufc_settings_init(&app->cfg.set);
	app->cfg.rules_lcore = -1;
	rc = gufc_opts_parse(&app->cfg, argc, argv);
	if (rc == 0 && app->cfg.config_file[0] != '\0')
		rc = gufc_config_load(&app->cfg, app->cfg.config_file);
	if (rc != 0) {
		free(app);
		gufc_eal_end();
		return rc > 0 ? 0 : 2;
	}
	if (app->cfg.pcap_dir[0] != '\0') {
		struct stat sb;

		if (stat(app->cfg.pcap_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "gufc: --channel-pcap-dir: '%s' is not a directory\n",
				app->cfg.pcap_dir);
			free(app);
			gufc_eal_end();
			return 2;
		}
	}
	set = rules_load(app, &rc);
	if (set == NULL) {
		rule_ipsets_free(app->ipsets);
		free(app);
		gufc_eal_end();
		return rc == -EINVAL ? 2 : 1;
	}
	if (gufc_roles_assign(app) != 0) {
		rule_set_free(set);
		teardown(app);
		free(app);
		gufc_eal_end();
		return 2;
	}
	app->hz = rte_get_tsc_hz();
	app->start_tsc = rte_get_tsc_cycles();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		app->epoch_ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	}
	app->lcore_work = lcore_work;
	the_app = app;
	if (stop_signals != 0)
		app->quit = 1;

	if (setup(app, set) != 0) {
		gufc_ports_fini(app);
		teardown(app);
		free(app);
		gufc_eal_end();
		return 1;
	}
	describe(app);
	if (gufc_telemetry_init(app) != 0)
		GUFC_LOG(WARNING, "telemetry commands /gufc/* not available");

	app->phase = GUFC_PHASE_RUN;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (app->lc[i] == NULL || i == rte_get_main_lcore())
			continue;
		rc = rte_eal_remote_launch(lcore_loop, app->lc[i], i);
		if (rc != 0) {
			GUFC_LOG(ERR, "lcore %u: launch failed", i);
			app->quit = 1;
		}
	}
	if (app->cfg.interactive || app->cfg.script_file[0] != '\0') {
		rc = gufc_shell_start(app,
			app->cfg.script_file[0] != '\0' ? app->cfg.script_file : NULL,
			app->cfg.interactive);
		if (rc == -ENOTSUP)
			GUFC_LOG(WARNING, "no shell in this build: -i/--script ignored");
		else if (rc != 0)
			GUFC_LOG(ERR, "shell: %s", strerror(-rc));
	}
	lcore_loop(app->lc[rte_get_main_lcore()]);
	rte_eal_mp_wait_lcore();
	gufc_telemetry_fini(app);
	gufc_shell_stop(app);

	/* Everything stopped and drained: consume what is left, close ports. */
	while (chan_drain_all(app->chans, 1024) != 0)
		;
	gufc_ports_fini(app);
	gufc_ctl_drain(app);
	gufc_log_fini(app); /* the last records: lines and log channels complete */

	gufc_stats_sum(app, &tot);
	tot.pool_size = app->pool->size;
	tot.pool_avail = rte_mempool_avail_count(app->pool);
	tot.pool_ok = tot.pool_avail == tot.pool_size;
	ok = gufc_stats_summary(app, &tot, stdout);
	if (app->cfg.stats_json[0] != '\0') {
		rc = gufc_stats_json(app, &tot, app->cfg.stats_json);
		if (rc != 0)
			GUFC_LOG(ERR, "--stats-json %s: %s", app->cfg.stats_json, strerror(-rc));
	}
	rc = ok ? app->exit_code : 3; /* exit_code: e.g. a --script error */
	teardown(app);
	the_app = NULL;
	free(app);
	rte_pdump_uninit();
	gufc_eal_end();
	return rc;

fail_eal:
	gufc_eal_end();
	return 1;
}
