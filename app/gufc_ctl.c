/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_ctl.c — the control client and server (gufc_ctl.h): how the
 * main lcore (config loader, shell, telemetry) changes what only the rules
 * lcore may touch.
 *
 * Server (rules lcore, gufc_ctl_serve() once per pass): applies the messages
 * of the control ring — rule-set commits, classifiers built in the
 * background, route changes and calls (gufc_ctl_call()) — and asks the main
 * lcore for a classifier when the engine's is behind (gufc_ctl_cls_request()).
 *
 * Client (main lcore): gufc_ctl_commit/route/call send a message and wait
 * for the rules lcore's answer, keeping the caller's other roles running
 * meanwhile (app->lcore_work, set by main); gufc_ctl_main_poll() starts a
 * classifier builder thread for each request of the rules lcore, which
 * hands its result back through the control ring. On top of the call:
 * copying the committed rule set, local prefixes, flushing flows. Before
 * the lcores start, gufc_ctl_install() commits the first rule set directly.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "gufc_ctl.h"

/* ------------------------------------------------------------------------ */
/* Rings                                                                     */
/* ------------------------------------------------------------------------ */

int
gufc_ctl_init(struct gufc_app *app)
{
	app->ctl = rte_ring_create("gufc_ctl", 256, (int)rte_socket_id(), RING_F_SC_DEQ);
	app->to_main = rte_ring_create("gufc_to_main", 16, (int)rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (app->ctl == NULL || app->to_main == NULL) {
		GUFC_LOG(ERR, "control rings: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

void
gufc_ctl_drain(struct gufc_app *app)
{
	struct gufc_ctl_msg *msg;

	while (__atomic_load_n(&app->cls_building, __ATOMIC_ACQUIRE) != 0)
		rte_delay_us_sleep(1000);
	while (app->ctl != NULL && rte_ring_sc_dequeue(app->ctl, (void **)&msg) == 0) {
		if (msg->type == GUFC_CTL_CLS_READY) {
			rule_cls_free(msg->cls);
			free(msg);
		} else {
			rule_set_free(msg->set);
			msg->result = -ESHUTDOWN;
			__atomic_store_n(&msg->done, 1, __ATOMIC_RELEASE);
		}
	}
	while (app->to_main != NULL && rte_ring_sc_dequeue(app->to_main, (void **)&msg) == 0) {
		rule_set_free(msg->set);
		free(msg);
	}
}

void
gufc_ctl_fini(struct gufc_app *app)
{
	gufc_ctl_drain(app);
	rte_ring_free(app->ctl);
	rte_ring_free(app->to_main);
	app->ctl = NULL;
	app->to_main = NULL;
}

/* ------------------------------------------------------------------------ */
/* Server (rules lcore)                                                      */
/* ------------------------------------------------------------------------ */

void
gufc_ctl_serve(struct gufc_app *app)
{
	struct gufc_ctl_msg *msg;

	while (rte_ring_sc_dequeue(app->ctl, (void **)&msg) == 0) {
		switch (msg->type) {
		case GUFC_CTL_COMMIT:
			msg->result = rule_engine_commit(app->eng, msg->set);
			msg->set = NULL;
			gufc_offload_commit(app); /* no stale hardware DROP once acknowledged */
			app->next_cls_tsc = 0; /* ask for a classifier at once */
			break;
		case GUFC_CTL_CLS_READY:
			if (msg->cls != NULL && rule_engine_cls_ready(app->eng, msg->cls, msg->gen) != 0)
				rule_cls_free(msg->cls);
			app->cls_outstanding = false;
			app->next_cls_tsc = 0;
			free(msg);
			continue;
		case GUFC_CTL_ROUTE_ADD:
			msg->result = gufc_ctl_route_apply(app, &msg->route, true);
			break;
		case GUFC_CTL_CALL:
			msg->result = msg->fn(app, msg->arg);
			break;
		case GUFC_CTL_ROUTE_DEL:
			msg->result = gufc_ctl_route_apply(app, &msg->route, false);
			break;
		default:
			msg->result = -EINVAL;
			break;
		}
		__atomic_store_n(&msg->done, 1, __ATOMIC_RELEASE);
	}
}

int
gufc_ctl_route_apply(struct gufc_app *app, const struct gufc_route *r, bool add)
{
	struct mod_route_nh nh = { .port = r->port, .via = r->via };
	uint32_t table = r->table != 0 ? r->table : MOD_ROUTE_TABLE_MAIN;

	/* A table by name: made by its first route (doc/config.md "Policy routing"). */
	if (r->table_name[0] != '\0') {
		int rc = mod_route_table_named(app->route, r->table_name, add, &table);

		if (rc != 0)
			return rc;
	}
	if (!add)
		return mod_route_table_del(app->route, table, r->pfx.family, r->pfx.addr,
			r->pfx.len);
	if (r->via)
		memcpy(nh.gw, r->gw, sizeof(nh.gw));
	return mod_route_table_add(app->route, table, r->pfx.family, r->pfx.addr, r->pfx.len, &nh,
		r->connected ? MOD_ROUTE_F_CONNECTED : 0);
}

void
gufc_ctl_cls_request(struct gufc_app *app, uint64_t tsc)
{
	struct gufc_ctl_msg *msg;
	struct rule_set *set;
	uint32_t gen;

	if (app->cls_outstanding || tsc < app->next_cls_tsc)
		return;
	app->next_cls_tsc = tsc + app->hz / 20;
	set = rule_engine_cls_wanted(app->eng, &gen);
	if (set == NULL)
		return;
	msg = calloc(1, sizeof(*msg));
	if (msg == NULL) {
		rule_set_free(set);
		return;
	}
	msg->type = GUFC_CTL_CLS_WANTED;
	msg->set = set;
	msg->gen = gen;
	if (rte_ring_sp_enqueue(app->to_main, msg) != 0) {
		rule_set_free(set);
		free(msg);
		return;
	}
	app->cls_outstanding = true;
}

/* ------------------------------------------------------------------------ */
/* Client (main lcore)                                                       */
/* ------------------------------------------------------------------------ */

static void *
cls_builder(void *arg)
{
	struct gufc_ctl_msg *msg = arg;
	struct gufc_app *app = msg->app;

	msg->cls = rule_cls_build(msg->set, "gufc", SOCKET_ID_ANY);
	if (msg->cls == NULL)
		GUFC_LOG(WARNING, "classifier build (generation %u) failed: %s", msg->gen,
			rte_strerror(rte_errno));
	rule_set_free(msg->set);
	msg->set = NULL;
	msg->type = GUFC_CTL_CLS_READY;
	while (rte_ring_mp_enqueue(app->ctl, msg) != 0)
		usleep(1000);
	__atomic_fetch_sub(&app->cls_building, 1, __ATOMIC_RELEASE);
	return NULL;
}

void
gufc_ctl_main_poll(struct gufc_app *app)
{
	struct gufc_ctl_msg *msg;
	pthread_t th;

	while (rte_ring_sc_dequeue(app->to_main, (void **)&msg) == 0) {
		msg->app = app;
		__atomic_fetch_add(&app->cls_building, 1, __ATOMIC_ACQUIRE);
		if (pthread_create(&th, NULL, cls_builder, msg) != 0) {
			__atomic_fetch_sub(&app->cls_building, 1, __ATOMIC_RELEASE);
			/* Tell the rules lcore, which asks again later. */
			rule_set_free(msg->set);
			msg->set = NULL;
			msg->cls = NULL;
			msg->type = GUFC_CTL_CLS_READY;
			if (rte_ring_mp_enqueue(app->ctl, msg) != 0)
				free(msg);
			continue;
		}
		pthread_detach(th);
	}
}

/* Send a synchronous message and wait, doing the caller's other roles meanwhile. */
static int
ctl_send_wait(struct gufc_app *app, struct gufc_ctl_msg *msg)
{
	unsigned int id = rte_lcore_id();
	struct gufc_lcore *lc = id < RTE_MAX_LCORE ? app->lc[id] : NULL;

	if (rte_ring_mp_enqueue(app->ctl, msg) != 0)
		return -EBUSY;
	while (!__atomic_load_n(&msg->done, __ATOMIC_ACQUIRE)) {
		if (lc != NULL && (lc->roles & ~GUFC_ROLE_MAIN) && app->lcore_work != NULL)
			app->lcore_work(lc, gufc_now_ms(app));
		else
			rte_delay_us_sleep(100);
		if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) == GUFC_PHASE_DONE &&
			!__atomic_load_n(&msg->done, __ATOMIC_ACQUIRE))
			return -ESHUTDOWN; /* the rules lcore is gone */
	}
	return msg->result;
}

int
gufc_ctl_commit(struct gufc_app *app, struct rule_set *set)
{
	struct gufc_ctl_msg msg;
	int rc;

	if (set == NULL)
		return -EINVAL;
	memset(&msg, 0, sizeof(msg));
	msg.type = GUFC_CTL_COMMIT;
	msg.set = set;
	rc = ctl_send_wait(app, &msg);
	if (rc == -EBUSY)
		rule_set_free(set);
	return rc;
}

int
gufc_ctl_route(struct gufc_app *app, const struct gufc_route *r, bool add)
{
	struct gufc_ctl_msg msg;

	if (r->port >= GUFC_MAX_PORTS || !app->ports[r->port].used)
		return -ENODEV;
	memset(&msg, 0, sizeof(msg));
	msg.type = add ? GUFC_CTL_ROUTE_ADD : GUFC_CTL_ROUTE_DEL;
	msg.route = *r;
	return ctl_send_wait(app, &msg);
}

int
gufc_ctl_call(struct gufc_app *app, gufc_ctl_fn fn, void *arg)
{
	unsigned int id = rte_lcore_id();
	struct gufc_ctl_msg msg;

	if (fn == NULL)
		return -EINVAL;
	/* On the rules lcore itself, between two of its passes: call directly. */
	if (id < RTE_MAX_LCORE && app->lc[id] != NULL && (app->lc[id]->roles & GUFC_ROLE_RULES))
		return fn(app, arg);
	memset(&msg, 0, sizeof(msg));
	msg.type = GUFC_CTL_CALL;
	msg.fn = fn;
	msg.arg = arg;
	return ctl_send_wait(app, &msg);
}

int
gufc_ctl_install(struct gufc_app *app, struct rule_set *set)
{
	struct rule_set *want;
	uint32_t gen;
	int rc;

	rc = rule_engine_commit(app->eng, set);
	if (rc != 0)
		return rc;
	want = rule_engine_cls_wanted(app->eng, &gen);
	if (want != NULL) {
		struct rule_cls *cls = rule_cls_build(want, "gufc", (int)rte_socket_id());

		rule_set_free(want);
		if (cls == NULL) {
			GUFC_LOG(WARNING, "classifier: %s (the reference evaluator decides)",
				rte_strerror(rte_errno));
		} else if (rule_engine_cls_ready(app->eng, cls, gen) != 0) {
			rule_cls_free(cls);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Operations on the rules lcore                                             */
/* ------------------------------------------------------------------------ */

static int
clone_fn(struct gufc_app *app, void *arg)
{
	struct rule_set **out = arg;

	*out = rule_set_clone(rule_engine_rules(app->eng));
	return *out == NULL ? -ENOMEM : 0;
}

int
gufc_ctl_rules_clone(struct gufc_app *app, struct rule_set **out)
{
	*out = NULL;
	return gufc_ctl_call(app, clone_fn, out);
}

struct local_arg {
	const struct lex_prefix *pfx;
	bool add;
};

/* The table and the configuration's copy (masquerade reads it on this lcore). */
static int
local_fn(struct gufc_app *app, void *arg)
{
	const struct local_arg *a = arg;
	const struct lex_prefix *p = a->pfx;
	struct gufc_config *cfg = &app->cfg;
	int rc;

	if (a->add) {
		if (cfg->n_locals == GUFC_MAX_LOCALS)
			return -ENOSPC;
		rc = fc_locals_add(app->locals, p->family, p->addr, p->len);
		if (rc == 0)
			cfg->locals[cfg->n_locals++] = *p;
		return rc;
	}
	rc = fc_locals_del(app->locals, p->family, p->addr, p->len);
	for (unsigned int i = 0; rc == 0 && i < cfg->n_locals; i++)
		if (cfg->locals[i].family == p->family && cfg->locals[i].len == p->len &&
			memcmp(cfg->locals[i].addr, p->addr, sizeof(p->addr)) == 0) {
			cfg->locals[i] = cfg->locals[--cfg->n_locals];
			break;
		}
	return rc;
}

int
gufc_ctl_local(struct gufc_app *app, const struct lex_prefix *p, bool add)
{
	struct local_arg a = { .pfx = p, .add = add };

	return gufc_ctl_call(app, local_fn, &a);
}

static int
flush_fn(struct gufc_app *app, void *arg)
{
	*(unsigned int *)arg = rule_engine_flush(app->eng);
	return 0;
}

int
gufc_ctl_flush(struct gufc_app *app, unsigned int *n)
{
	*n = 0;
	return gufc_ctl_call(app, flush_fn, n);
}
