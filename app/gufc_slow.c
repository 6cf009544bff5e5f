/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_slow.c — the rules lcore: the slow path and the consumers.
 *
 * Each pass: apply control messages (rule commits, routes, classifiers built
 * in the background on the main lcore's side), drain every RX lcore's upcall
 * ring in bursts (fragments are reassembled with rte_ip_frag first, so port
 * rules see every fragment's datagram), let the rules engine decide
 * (rule_engine_upcall_burst), apply the decisions (NAT rewrite, channel or
 * named drop), do bounded background work (rule_engine_step: aging,
 * revalidation) and ask for a classifier rebuild when the engine wants one.
 *
 * Channel consumers also run here (gufc_consume): TX channels are dequeued
 * and sent with rte_eth_tx_burst on their port/queue (the only lcore that
 * transmits, so one TX queue per port suffices); pcap and discard channels
 * are drained with chan_drain_all. APP channels belong to their secondary
 * process.
 *
 * Per-flow channels: the engine asks (gufc_chan_flow_alloc) when a flow is
 * accepted into a channel; for one declared "perflow" the flow gets a ring
 * of its own from the pool, "<parent>.<n>", with the parent's consumer. The
 * engine gives it back (gufc_chan_flow_free) once both entries of the flow
 * are gone and no RX lcore can still enqueue to it; whatever is left in the
 * ring is drained by the consumer (pcap, discard: delivered) or flushed
 * (tx, app: counted as the "flushed" drop through the channel totals).
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gufc.h"

#define SLOW_TX_MAX (CHAN_MAX_CHANNELS + CHAN_FLOW_POOL_MAX)
#define FRAG_BUCKETS 1024
#define FRAG_BUCKET_ENTRIES 16
#define FRAG_MAX_ENTRIES 4096
#define STEP_BUDGET 128

struct slow_tx {
	uint16_t chan;
	uint16_t port;
	uint16_t queue;
};

/** Rules-lcore state. Owner: the rules lcore (created and freed by main). */
struct gufc_slow {
	struct rte_ip_frag_tbl *frag;
	struct rte_ip_frag_death_row dr;
	uint64_t next_expire_tsc;
	uint64_t next_tx_refresh_tsc;
	uint64_t next_cls_tsc;
	uint64_t next_step_tsc;
	bool cls_outstanding; /**< a CLS_WANTED is with the main lcore */
	unsigned int n_tx;
	struct slow_tx tx[SLOW_TX_MAX];
	int txport_hi; /**< highest channel id tx_refresh() wrote into app->chan_txport */
};

unsigned int
gufc_drop_from_rule(unsigned int d)
{
	switch (d) {
	case RULE_DROP_NONE:
	case RULE_DROP_FILTER:
		return GUFC_DROP_FILTER;
	case RULE_DROP_CT_INVALID:
		return GUFC_DROP_CT_INVALID;
	case RULE_DROP_NAT_EXHAUSTED:
		return GUFC_DROP_NAT_EXHAUSTED;
	case RULE_DROP_NAT_ERROR:
		return GUFC_DROP_NAT_ERROR;
	case RULE_DROP_MODULE:
		return GUFC_DROP_MODULE;
	case RULE_DROP_BAD_PACKET:
		return GUFC_DROP_BAD_PACKET;
	case RULE_DROP_CT_CLASH:
		return GUFC_DROP_CT_CLASH;
	default:
		return GUFC_DROP_ENGINE_ERROR;
	}
}

int
gufc_slow_init(struct gufc_app *app)
{
	struct gufc_slow *s;

	s = rte_zmalloc("gufc_slow", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	if (app->cfg.set.fragments == GUFC_FRAG_REASSEMBLE) {
		uint64_t cycles = app->hz / 1000 * app->cfg.set.frag_timeout;

		s->frag = rte_ip_frag_table_create(FRAG_BUCKETS, FRAG_BUCKET_ENTRIES,
			FRAG_MAX_ENTRIES, cycles, (int)rte_socket_id());
		if (s->frag == NULL) {
			GUFC_LOG(ERR, "fragment table: %s", rte_strerror(rte_errno));
			rte_free(s);
			return -ENOMEM;
		}
	}
	app->slow = s;
	return 0;
}

void
gufc_slow_fini(struct gufc_app *app)
{
	struct gufc_slow *s = app->slow;

	if (s == NULL)
		return;
	if (s->frag != NULL)
		rte_ip_frag_table_destroy(s->frag);
	rte_free(s);
	app->slow = NULL;
}

/* Free the death row, counting each fragment on it as a failed one. */
static void
death_row_free(struct gufc_slow *s, struct gufc_stats *st)
{
	if (s->dr.cnt == 0)
		return;
	st->drops[GUFC_DROP_FRAG_FAILED] += s->dr.cnt;
	st->frag_dropped += s->dr.cnt;
	rte_ip_frag_free_death_row(&s->dr, 0);
}

void
gufc_slow_flush(struct gufc_app *app, struct gufc_lcore *lc)
{
	struct gufc_slow *s = app->slow;
	uint32_t freed;

	/* App channels nobody drains any more: free what is left (flushed). */
	for (int id = chan_next(app->chans, 0); id >= 0; id = chan_next(app->chans, id + 1)) {
		struct chan_info ci;

		if (chan_info_get(app->chans, (uint16_t)id, &ci) == 0 && ci.kind == CHAN_CONS_APP)
			(void)chan_flush(app->chans, (uint16_t)id); /* -EBUSY: consumer attached */
	}
	if (s == NULL || s->frag == NULL)
		return;
	do {
		rte_ip_frag_table_del_expired_entries(s->frag, &s->dr, UINT64_MAX);
		freed = s->dr.cnt;
		death_row_free(s, &lc->st);
	} while (freed != 0);
}

/*
 * Give a fragment to reassembly. @return the datagram when this fragment
 * completed one (parsed again into its meta), else NULL (held, or dropped
 * and counted).
 */
static struct rte_mbuf *
reassemble(struct gufc_app *app, struct gufc_lcore *lc, struct rte_mbuf *m, uint64_t tsc)
{
	struct gufc_slow *s = app->slow;
	struct gufc_stats *st = &lc->st;
	struct gufc_meta *meta = gufc_meta(m);
	struct fc_pkt *p = &meta->pkt;
	struct rte_mbuf *d;
	enum fc_parse_result r;

	st->frag_in++;
	m->l2_len = p->l3_off;
	if (p->key.family == FC_AF_INET4) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, p->l3_off);

		m->l3_len = rte_ipv4_hdr_len(ip);
		d = rte_ipv4_frag_reassemble_packet(s->frag, &s->dr, m, tsc, ip);
	} else {
		struct rte_ipv6_hdr *ip6 =
			rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, p->l3_off);
		struct rte_ipv6_fragment_ext *fh = rte_ipv6_frag_get_ipv6_fragment_header(ip6);

		if (fh == NULL) {
			/* Extension headers before the fragment header: not supported. */
			st->drops[GUFC_DROP_FRAG_FAILED]++;
			st->frag_dropped++;
			rte_pktmbuf_free(m);
			return NULL;
		}
		m->l3_len = sizeof(*ip6) + sizeof(*fh);
		d = rte_ipv6_frag_reassemble_packet(s->frag, &s->dr, m, tsc, ip6, fh);
	}
	death_row_free(s, st);
	if (d == NULL)
		return NULL;
	st->frag_out++;
	if (p->key.family == FC_AF_INET4) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(d, struct rte_ipv4_hdr *, d->l2_len);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	meta = gufc_meta(d);
	r = fc_parse_mbuf(d, &meta->pkt);
	if (r != FC_PARSE_OK) {
		st->drops[r >= FC_PARSE_ERR_BASE ? GUFC_DROP_PARSE_RES(r) : GUFC_DROP_FRAG_FAILED]++;
		rte_pktmbuf_free(d);
		return NULL;
	}
	fc_locals_mark_burst(app->locals, &meta->pkt, 1);
	meta->res = FC_PARSE_OK;
	meta->why = RULE_UPCALL_MISS;
	return d;
}

/* NAT rewrite in the slow path: may linearize a chained packet first. */
static int
slow_nat(struct gufc_app *app, struct rte_mbuf *m, const struct fc_pkt *pkt, uint32_t slot,
	bool icmp_err)
{
	int rc;

	for (int tries = 0; tries < 2; tries++) {
		uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off);
		uint32_t len = rte_pktmbuf_data_len(m) - pkt->l3_off;

		rc = icmp_err ? mod_nat_icmp_error(app->nat, slot, l3, len) :
				mod_nat_apply(app->nat, slot, l3, len, pkt);
		if (rc == 0 || m->nb_segs == 1 || rte_pktmbuf_linearize(m) != 0)
			break;
	}
	return rc;
}

/* Decide and deliver a batch of upcalled packets (fragments already reassembled). */
static void
slow_decide(struct gufc_app *app, struct gufc_lcore *lc, struct rte_mbuf **m, unsigned int n,
	uint32_t now)
{
	struct rule_upcall up[GUFC_BURST_MAX];
	struct rule_decision dec[GUFC_BURST_MAX];
	struct rte_mbuf *out[GUFC_BURST_MAX];
	struct rte_mbuf *dropped[GUFC_BURST_MAX];
	uint16_t dest[GUFC_BURST_MAX];
	struct gufc_stats *st = &lc->st;
	unsigned int no = 0, nd = 0;
	unsigned int i;

	if (n == 0)
		return;
	st->slow_pkts += n;
	for (i = 0; i < n; i++) {
		struct gufc_meta *meta = gufc_meta(m[i]);

		up[i].pkt = meta->pkt;
		up[i].frame = rte_pktmbuf_mtod(m[i], const uint8_t *);
		up[i].frame_len = rte_pktmbuf_data_len(m[i]);
		up[i].len = m[i]->pkt_len;
		up[i].in_port = m[i]->port;
		up[i].reason = meta->why;
	}
	rule_engine_upcall_burst(app->eng, up, n, dec, now);
	for (i = 0; i < n; i++) {
		const struct rule_decision *d = &dec[i];

		if (d->verdict != FC_VERDICT_ACCEPT) {
			st->drops[gufc_drop_from_rule(d->drop)]++;
			dropped[nd++] = m[i];
			continue;
		}
		if (d->nat_slot != RULE_NAT_NONE &&
			slow_nat(app, m[i], &up[i].pkt, d->nat_slot,
				(d->flags & RULE_DEC_F_ICMP_ERR) != 0) != 0) {
			st->drops[GUFC_DROP_NAT_ERROR]++;
			dropped[nd++] = m[i];
			continue;
		}
		out[no] = m[i];
		dest[no++] = gufc_dest(app, d->channel, d->out_port, m[i]->port);
	}
	gufc_deliver(app, st, (uint16_t)app->rules_producer, out, dest, no);
	if (nd != 0)
		rte_pktmbuf_free_bulk(dropped, nd);
}

static unsigned int
slow_upcalls(struct gufc_app *app, struct gufc_lcore *lc, struct rte_ring *r, uint32_t now,
	uint64_t tsc)
{
	struct rte_mbuf *m[GUFC_BURST_MAX];
	struct rte_mbuf *batch[GUFC_BURST_MAX];
	unsigned int n, nb = 0;

	n = rte_ring_sc_dequeue_burst(r, (void **)m, app->cfg.set.burst, NULL);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t res = gufc_meta(m[i])->res;

		if (res == FC_PARSE_FRAG_FIRST || res == FC_PARSE_FRAG_LATER) {
			struct rte_mbuf *d = reassemble(app, lc, m[i], tsc);

			if (d != NULL)
				batch[nb++] = d;
		} else {
			batch[nb++] = m[i];
		}
	}
	slow_decide(app, lc, batch, nb, now);
	return n;
}

/* Control messages from the main lcore (and classifier builder threads). */
static void
slow_control(struct gufc_app *app)
{
	struct gufc_slow *s = app->slow;
	struct gufc_ctl_msg *msg;

	while (rte_ring_sc_dequeue(app->ctl, (void **)&msg) == 0) {
		switch (msg->type) {
		case GUFC_CTL_COMMIT:
			msg->result = rule_engine_commit(app->eng, msg->set);
			msg->set = NULL;
			gufc_offload_commit(app); /* no stale hardware DROP once acknowledged */
			s->next_cls_tsc = 0; /* ask for a classifier at once */
			break;
		case GUFC_CTL_CLS_READY:
			if (msg->cls != NULL && rule_engine_cls_ready(app->eng, msg->cls, msg->gen) != 0)
				rule_cls_free(msg->cls);
			s->cls_outstanding = false;
			s->next_cls_tsc = 0;
			free(msg);
			continue;
		case GUFC_CTL_ROUTE_ADD:
			msg->result = mod_route_add(app->route, msg->route.pfx.family,
				msg->route.pfx.addr, msg->route.pfx.len, msg->route.port);
			break;
		case GUFC_CTL_CALL:
			msg->result = msg->fn(app, msg->arg);
			break;
		case GUFC_CTL_ROUTE_DEL:
			msg->result = mod_route_del(app->route, msg->route.pfx.family,
				msg->route.pfx.addr, msg->route.pfx.len);
			break;
		default:
			msg->result = -EINVAL;
			break;
		}
		__atomic_store_n(&msg->done, 1, __ATOMIC_RELEASE);
	}
}

/* Ask the main lcore for a classifier when the engine's is behind. */
static void
slow_cls_request(struct gufc_app *app, uint64_t tsc)
{
	struct gufc_slow *s = app->slow;
	struct gufc_ctl_msg *msg;
	struct rule_set *set;
	uint32_t gen;

	if (s->cls_outstanding || tsc < s->next_cls_tsc)
		return;
	s->next_cls_tsc = tsc + app->hz / 20;
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
	s->cls_outstanding = true;
}

unsigned int
gufc_slow_poll(struct gufc_app *app, struct gufc_lcore *lc, uint32_t now)
{
	struct gufc_slow *s = app->slow;
	uint64_t tsc = rte_get_tsc_cycles();
	unsigned int work = 0;

	slow_control(app);
	for (unsigned int i = 0; i < app->n_rx; i++)
		work += slow_upcalls(app, lc, app->rx[i]->upcall, now, tsc);
	if (s->frag != NULL && tsc >= s->next_expire_tsc) {
		s->next_expire_tsc = tsc + app->hz / 100;
		rte_ip_frag_table_del_expired_entries(s->frag, &s->dr, tsc);
		death_row_free(s, &lc->st);
	}
	/* Background work when idle, else about every millisecond. */
	if (work == 0 || tsc >= s->next_step_tsc) {
		s->next_step_tsc = tsc + app->hz / 1000;
		rule_engine_step(app->eng, now, STEP_BUDGET);
	}
	gufc_offload_poll(app, now); /* heavy hitters to hardware, about every ms */
	slow_cls_request(app, tsc);
	return work;
}

/*
 * Rebuild the list of TX channels (named and per-flow) and the channel ->
 * port map the RX lcores transmit directly from.
 */
static void
tx_refresh(struct gufc_app *app)
{
	struct gufc_slow *s = app->slow;
	struct chan_info info;
	unsigned int n = 0;
	int prev = -1;

	for (int id = chan_next(app->chans, 0); id >= 0;
		id = chan_next(app->chans, (unsigned int)id + 1)) {
		bool tx = chan_info_get(app->chans, (uint16_t)id, &info) == 0 &&
			info.kind == CHAN_CONS_TX;

		if (app->chan_txport != NULL) {
			for (int gap = prev + 1; gap < id; gap++)
				__atomic_store_n(&app->chan_txport[gap], UINT16_MAX, __ATOMIC_RELAXED);
			__atomic_store_n(&app->chan_txport[id], tx ? info.tx_port : UINT16_MAX,
				__ATOMIC_RELAXED);
		}
		prev = id;
		if (!tx || n >= SLOW_TX_MAX)
			continue;
		s->tx[n].chan = (uint16_t)id;
		s->tx[n].port = info.tx_port;
		s->tx[n].queue = info.tx_queue;
		n++;
	}
	if (app->chan_txport != NULL) {
		for (int gap = prev + 1; gap <= s->txport_hi; gap++)
			__atomic_store_n(&app->chan_txport[gap], UINT16_MAX, __ATOMIC_RELAXED);
		s->txport_hi = prev;
	}
	s->n_tx = n;
}

unsigned int
gufc_consume(struct gufc_app *app, struct gufc_lcore *lc)
{
	struct gufc_slow *s = app->slow;
	struct rte_mbuf *m[GUFC_BURST_MAX];
	uint64_t tsc = rte_get_tsc_cycles();
	unsigned int work = 0;

	if (tsc >= s->next_tx_refresh_tsc) {
		s->next_tx_refresh_tsc = tsc + app->hz / 10;
		tx_refresh(app);
	}
	for (unsigned int i = 0; i < s->n_tx; i++) {
		const struct slow_tx *t = &s->tx[i];
		unsigned int n = chan_dequeue_burst(app->chans, t->chan, m, GUFC_BURST_MAX);
		unsigned int sent = 0;

		if (n == 0)
			continue;
		work += n;
		for (int tries = 0; tries < 4 && sent < n; tries++)
			sent += rte_eth_tx_burst(t->port, t->queue, &m[sent], (uint16_t)(n - sent));
		lc->st.tx_pkts += sent;
		if (sent < n) {
			lc->st.drops[GUFC_DROP_TX_FULL] += n - sent;
			rte_pktmbuf_free_bulk(&m[sent], n - sent);
		}
	}
	work += chan_drain_all(app->chans, 256);
	return work;
}

bool
gufc_slow_busy(struct gufc_app *app)
{
	bool stopping = __atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) != GUFC_PHASE_RUN;
	uint64_t now = rte_get_tsc_cycles();

	for (unsigned int i = 0; i < app->n_rx; i++)
		if (rte_ring_count(app->rx[i]->upcall) != 0)
			return true;
	for (int id = chan_next(app->chans, 0); id >= 0; id = chan_next(app->chans, id + 1)) {
		struct chan_info ci;
		struct chan_stats cs;

		if (chan_info_get(app->chans, (uint16_t)id, &ci) != 0 ||
			chan_stats_get(app->chans, (uint16_t)id, &cs) != 0 || cs.in_ring == 0)
			continue;
		if (ci.kind != CHAN_CONS_APP)
			return true;
		/* Another process drains it: only worth waiting for when stopping,
		 * with a consumer attached, and not forever. */
		if (!stopping || cs.attached == 0)
			continue;
		if (app->app_grace_tsc == 0)
			app->app_grace_tsc = now + app->hz / 1000 * GUFC_APP_GRACE_MS;
		if (now < app->app_grace_tsc)
			return true;
	}
	return false;
}

int
gufc_chan_flow_alloc(void *arg, uint16_t channel)
{
	struct gufc_app *app = arg;

	if (channel >= RTE_DIM(app->chan_perflow) || !app->chan_perflow[channel])
		return -ENOTSUP;
	return chan_flow_alloc(app->chans, channel);
}

int
gufc_chan_flow_free(void *arg, uint16_t id)
{
	struct gufc_app *app = arg;
	int rc = chan_flow_free(app->chans, id);

	/* A TX channel's id may come back as another kind: rebuild the TX map soon. */
	if (rc == 0 && app->slow != NULL)
		app->slow->next_tx_refresh_tsc = 0;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Control API (main lcore)                                                  */
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
		if (lc != NULL && (lc->roles & ~GUFC_ROLE_MAIN))
			gufc_lcore_work(lc, gufc_now_ms(app));
		else
			rte_delay_us_sleep(100);
		if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) == GUFC_PHASE_DONE &&
			!__atomic_load_n(&msg->done, __ATOMIC_ACQUIRE))
			return -ESHUTDOWN; /* the rules lcore is gone */
	}
	return msg->result;
}

int
gufc_channels_for_rules(struct gufc_app *app, const struct rule_set *set)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		for (unsigned int c = 0; c < rule_set_chain_count(set, t); c++) {
			const struct rule_chain *ch = rule_set_chain_at(set, t, c);

			for (uint32_t i = 0; i < ch->n_rules; i++) {
				const char *name = ch->rules[i].channel;
				struct chan_params p;
				char path[GUFC_PATH_MAX + CHAN_NAMESIZE + 8];
				int rc;

				if (name[0] == '\0' || chan_lookup(app->chans, name) >= 0)
					continue;
				memset(&p, 0, sizeof(p));
				p.name = name;
				p.ring_size = app->cfg.set.channel_size;
				if (app->cfg.pcap_dir[0] != '\0') {
					snprintf(path, sizeof(path), "%s/%s.pcap", app->cfg.pcap_dir,
						name);
					p.kind = CHAN_CONS_PCAP;
					p.pcap_path = path;
				} else {
					p.kind = CHAN_CONS_DISCARD;
				}
				rc = chan_create(app->chans, &p);
				if (rc < 0) {
					GUFC_LOG(ERR, "channel '%s' named by rule %u: %s", name,
						ch->rules[i].id, strerror(-rc));
					return rc;
				}
				GUFC_LOG(INFO, "channel '%s' (named by rule %u): %s%s%s", name,
					ch->rules[i].id, chan_kind_name(p.kind),
					p.kind == CHAN_CONS_PCAP ? " " : "",
					p.kind == CHAN_CONS_PCAP ? path : "");
			}
		}
	}
	return 0;
}

int
gufc_ctl_commit(struct gufc_app *app, struct rule_set *set)
{
	struct gufc_ctl_msg msg;
	int rc;

	if (set == NULL)
		return -EINVAL;
	rc = gufc_channels_for_rules(app, set);
	if (rc != 0) {
		rule_set_free(set);
		return rc;
	}
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
