/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_log.c — LOG and NFLOG, the application's half. The datapath
 * (RX lcores for cached flows, the rules lcore for the slow path) puts a
 * record per logged packet on one bounded multi-producer ring (struct
 * dp_logrec: a copy of the packet and the rule's options); the main lcore
 * drains it here, at a lower priority than forwarding:
 *
 *  - LOG: the line Linux writes (lib/pktlog), through rte_log under the log
 *    type gufc.log at the rule's --log-level (syslog 0..7 = RTE_LOG_EMERG
 *    ..DEBUG). Linux's LOG writes every line the rule's matches let through
 *    (a -m limit before it is what bounds them) and the syslog daemon
 *    bounds the rest (journald: 10,000 messages per 30 s); the drain keeps
 *    the same bound, "log-lines" per "log-interval" ms, and counts the
 *    lines over it as suppressed (a line "N log lines suppressed" follows
 *    the window), never the packets;
 *  - the packet to a log channel, a pcap or pcapng file: LOG's ("log
 *    target NAME") and NFLOG's by group ("log group N NAME"; NFLOG writes
 *    no line, as in Linux). pcapng carries the rule's prefix as the
 *    packet's comment.
 *
 * A full ring is a counted loss of the record (log_dropped, per rule),
 * never of the packet.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gufc.h"

/* Per-rule counts of logged records: open addressing on the rule id. */
#define LOG_RULES 1024

struct gufc_logchan {
	FILE *f;
	uint64_t written;
};

struct gufc_log {
	struct rte_ring *ring;
	struct rte_mempool *pool;
	struct gufc_logchan ch[GUFC_LOG_CHANS_MAX];
	struct gufc_log_stats st;
	int logtype;
	uint64_t win_tsc;      /* start of the current log-lines window */
	uint32_t win_lines;    /* lines written in it */
	uint64_t win_supp;     /* lines suppressed in it */
	struct {
		uint32_t rule_id; /* 0: free (rule ids start at 1) */
		uint64_t logged;
	} rules[LOG_RULES];
};

/* The syslog level @p lvl (0..7) as an rte_log level. */
static uint32_t
rte_level(uint8_t lvl)
{
	return (uint32_t)(lvl > 7 ? 7 : lvl) + RTE_LOG_EMERG;
}

int
gufc_log_init(struct gufc_app *app)
{
	const struct gufc_settings *s = &app->cfg.set;
	const struct gufc_log_cfg *lc = &app->cfg.log;
	struct gufc_log *lg;
	unsigned int ring = s->log_ring < 64 ? 64 : s->log_ring;
	int socket = (int)rte_socket_id();

	lg = rte_zmalloc("gufc_log", sizeof(*lg), RTE_CACHE_LINE_SIZE);
	if (lg == NULL)
		return -ENOMEM;
	app->log = lg;
	lg->logtype = rte_log_register_type_and_pick_level("gufc.log", RTE_LOG_DEBUG);
	if (lg->logtype < 0)
		lg->logtype = RTE_LOGTYPE_USER1;
	lg->ring = rte_ring_create("gufc_log", rte_align32pow2(ring), socket, RING_F_SC_DEQ);
	lg->pool = rte_pktmbuf_pool_create("gufc_log_mbufs", rte_align32pow2(ring) * 2 - 1, 64,
		(uint16_t)DP_LOG_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (lg->ring == NULL || lg->pool == NULL) {
		GUFC_LOG(ERR, "log ring: %s", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < lc->n_chans; i++) {
		lg->ch[i].f = fopen(lc->chan[i].file, "wb");
		if (lg->ch[i].f == NULL ||
			plog_file_start(lg->ch[i].f, (enum plog_file_kind)lc->chan[i].kind, 65535) != 0) {
			GUFC_LOG(ERR, "log channel %s: %s: %s", lc->chan[i].name, lc->chan[i].file,
				strerror(errno));
			return -EIO;
		}
	}
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		struct gufc_lcore *l = app->lc[i];

		if (l == NULL)
			continue;
		l->rx_dp.log_ring = lg->ring;
		l->rx_dp.log_pool = lg->pool;
		l->slow_dp.log_ring = lg->ring;
		l->slow_dp.log_pool = lg->pool;
		for (unsigned int p = 0; p < DP_MAX_PORTS && p < GUFC_MAX_PORTS; p++) {
			l->rx_dp.port_mtu[p] = app->ports[p].mtu;
			l->slow_dp.port_mtu[p] = app->ports[p].mtu;
		}
	}
	lg->win_tsc = rte_rdtsc();
	return 0;
}

/* Count one record of rule @p id. */
static void
rule_count(struct gufc_log *lg, uint32_t id)
{
	uint32_t i = (id * 2654435761u) & (LOG_RULES - 1);

	for (unsigned int k = 0; k < LOG_RULES; k++, i = (i + 1) & (LOG_RULES - 1)) {
		if (lg->rules[i].rule_id == id || lg->rules[i].rule_id == 0) {
			lg->rules[i].rule_id = id;
			lg->rules[i].logged++;
			return;
		}
	}
}

/* The name of port @p p for IN=/OUT=; NULL for none. */
static const char *
port_name(const struct gufc_app *app, uint16_t p)
{
	if (p >= GUFC_MAX_PORTS || !app->ports[p].used)
		return NULL;
	return app->ports[p].ifname[0] != '\0' ? app->ports[p].ifname : app->ports[p].name;
}

/*
 * IN= and OUT= as Linux fills them at the rule's hook: an input device
 * but for locally generated packets (OUTPUT, and a local source at
 * POSTROUTING), an output device from FORWARD on, none for packets to
 * this host; lo for a packet from this host to itself (OUT=lo at OUTPUT
 * and POSTROUTING, IN=lo back in at PREROUTING and INPUT).
 */
static void
devices(const struct gufc_app *app, const struct dp_logrec *r, const char **in, const char **out)
{
	uint16_t o = r->out_port;
	bool local_src = (r->key_flags & FC_KEY_F_SRC_LOCAL) != 0;

	*in = NULL;
	*out = NULL;
	if ((r->key_flags & (FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) ==
		(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL)) {
		/* From this host to itself: out through lo, back in through it. */
		if (r->spec.hook == RULE_HOOK_OUTPUT || r->spec.hook == RULE_HOOK_POSTROUTING)
			*out = RULE_IF_LO_NAME;
		else
			*in = RULE_IF_LO_NAME;
		return;
	}
	if (r->spec.hook != RULE_HOOK_OUTPUT && !(local_src && r->spec.hook == RULE_HOOK_POSTROUTING))
		*in = port_name(app, r->in_port);
	if (r->spec.hook == RULE_HOOK_FORWARD || r->spec.hook == RULE_HOOK_OUTPUT ||
		r->spec.hook == RULE_HOOK_POSTROUTING) {
		if (o == RULE_PORT_LOCAL)
			return;
		if (o == RULE_PORT_PAIRED || o >= GUFC_MAX_PORTS || !app->ports[o].used)
			o = r->in_port < GUFC_MAX_PORTS ? app->ports[r->in_port].pair : o;
		*out = port_name(app, o);
	}
}

/* The LOG line of record @p m, within the log-lines budget. */
static void
log_line(struct gufc_app *app, struct gufc_log *lg, struct rte_mbuf *m, const struct dp_logrec *r)
{
	const struct gufc_settings *s = &app->cfg.set;
	char line[PLOG_LINE_MAX];
	static uint8_t lo_frame[RTE_MBUF_DEFAULT_BUF_SIZE];
	struct plog_pkt p = {
		.frame = rte_pktmbuf_mtod(m, const uint8_t *),
		.len = rte_pktmbuf_data_len(m),
		.l3_off = r->l3_off,
		.mark = r->mark,
	};
	uint64_t now = rte_rdtsc();

	if (now - lg->win_tsc >= (uint64_t)s->log_interval * (rte_get_tsc_hz() / 1000)) {
		if (lg->win_supp != 0)
			rte_log(RTE_LOG_WARNING, (uint32_t)lg->logtype,
				"%" PRIu64 " log lines suppressed (log-lines %u per %u ms)\n",
				lg->win_supp, s->log_lines, s->log_interval);
		lg->win_tsc = now;
		lg->win_lines = 0;
		lg->win_supp = 0;
	}
	if (lg->win_lines >= s->log_lines) {
		lg->win_supp++;
		lg->st.suppressed++;
		return;
	}
	lg->win_lines++;
	devices(app, r, &p.in, &p.out);
	/* Back in through lo: Linux's loopback header, zero addresses (MAC=00:..:00:08:00). */
	if (p.in != NULL && strcmp(p.in, RULE_IF_LO_NAME) == 0 && p.len > p.l3_off &&
		p.l3_off >= 14) {
		uint32_t n = RTE_MIN(p.len - p.l3_off, (uint32_t)sizeof(lo_frame) - 14);

		memset(lo_frame, 0, 12);
		memcpy(lo_frame + 12, p.frame + p.l3_off - 2, 2); /* the EtherType */
		memcpy(lo_frame + 14, p.frame + p.l3_off, n);
		p.frame = lo_frame;
		p.len = 14 + n;
		p.l3_off = 14;
	}
	if (plog_line(line, sizeof(line), r->spec.prefix, r->spec.flags, &p) < 0)
		return;
	rte_log(rte_level(r->spec.level), (uint32_t)lg->logtype, "%s\n", line);
	lg->st.lines++;
}

/* The channel record @p r goes to: -1 none. */
static int
chan_of(const struct gufc_log_cfg *lc, const struct dp_logrec *r)
{
	int any = -1;

	if (r->spec.kind == RULE_PKTOP_LOG)
		return (int)lc->target - 1;
	for (unsigned int i = 0; i < lc->n_groups; i++) {
		if (lc->group[i].group == r->spec.group)
			return lc->group[i].chan;
		if (lc->group[i].group == GUFC_LOG_GROUP_ANY)
			any = lc->group[i].chan;
	}
	return any;
}

static void
log_chan(struct gufc_app *app, struct gufc_log *lg, struct rte_mbuf *m, const struct dp_logrec *r)
{
	const struct gufc_log_cfg *lc = &app->cfg.log;
	int ci = chan_of(lc, r);
	uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE];
	const uint8_t *data;
	uint64_t ns;
	uint32_t len;

	if (ci < 0) {
		if (r->spec.kind == RULE_PKTOP_NFLOG)
			lg->st.no_chan++;
		return;
	}
	len = rte_pktmbuf_pkt_len(m) < sizeof(buf) ? rte_pktmbuf_pkt_len(m) : sizeof(buf);
	data = rte_pktmbuf_read(m, 0, len, buf);
	ns = app->epoch_ms * 1000000ull +
	     (r->tsc - app->start_tsc) * 1000000000ull / rte_get_tsc_hz();
	if (data == NULL || plog_file_packet(lg->ch[ci].f, (enum plog_file_kind)lc->chan[ci].kind,
		ns, data, len, r->wire_len, r->spec.prefix) != 0) {
		lg->st.errors++;
		return;
	}
	lg->ch[ci].written++;
	lg->st.written++;
}

unsigned int
gufc_log_poll(struct gufc_app *app, unsigned int budget)
{
	struct gufc_log *lg = app->log;
	struct rte_mbuf *m[32];
	unsigned int done = 0;

	if (lg == NULL)
		return 0;
	while (done < budget) {
		unsigned int n = rte_ring_sc_dequeue_burst(lg->ring, (void **)m, RTE_DIM(m), NULL);

		if (n == 0)
			break;
		for (unsigned int i = 0; i < n; i++) {
			const struct dp_logrec *r = dp_logrec(m[i]);

			lg->st.drained++;
			rule_count(lg, r->spec.rule_id);
			if (r->spec.kind == RULE_PKTOP_LOG)
				log_line(app, lg, m[i], r);
			log_chan(app, lg, m[i], r);
			rte_pktmbuf_free(m[i]);
		}
		done += n;
	}
	return done;
}

void
gufc_log_fini(struct gufc_app *app)
{
	struct gufc_log *lg = app->log;

	if (lg == NULL)
		return;
	if (lg->ring != NULL)
		while (gufc_log_poll(app, 1024) != 0)
			;
	if (lg->win_supp != 0)
		rte_log(RTE_LOG_WARNING, (uint32_t)lg->logtype, "%" PRIu64 " log lines suppressed\n",
			lg->win_supp);
	lg->win_supp = 0;
	for (unsigned int i = 0; i < GUFC_LOG_CHANS_MAX; i++)
		if (lg->ch[i].f != NULL) {
			if (fclose(lg->ch[i].f) != 0)
				lg->st.errors++;
			lg->ch[i].f = NULL;
		}
	/* Counters stay for the summary; the ring and pool go at teardown (gufc_log_free()). */
}

void
gufc_log_free(struct gufc_app *app)
{
	struct gufc_log *lg = app->log;

	if (lg == NULL)
		return;
	gufc_log_fini(app);
	rte_ring_free(lg->ring);
	rte_mempool_free(lg->pool);
	rte_free(lg);
	app->log = NULL;
}

void
gufc_log_stats_get(const struct gufc_app *app, uint64_t queued, uint64_t dropped,
	struct gufc_log_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (app->log != NULL)
		*st = app->log->st;
	st->queued = queued;
	st->dropped = dropped;
}

/* Per spec (rule, kind, group): records dropped before the ring, and logged. */
static uint64_t
rule_logged(const struct gufc_log *lg, uint32_t id)
{
	for (unsigned int i = 0; i < LOG_RULES; i++)
		if (lg->rules[i].rule_id == id)
			return lg->rules[i].logged;
	return 0;
}

uint64_t
gufc_log_rule_logged(const struct gufc_app *app, uint32_t rule_id)
{
	return app->log != NULL ? rule_logged(app->log, rule_id) : 0;
}

void
gufc_log_dump(const struct gufc_app *app, FILE *f)
{
	const struct gufc_log *lg = app->log;
	struct rule_logspec sp;
	uint64_t dropped;

	fprintf(f, "%8s %-6s %6s %12s %12s  %s\n", "rule", "target", "group", "logged", "dropped",
		"prefix");
	for (uint32_t id = 0; lg != NULL &&
		rule_engine_logspec_get(app->eng, id, &sp, &dropped) == 0; id++) {
		char grp[12] = "-";

		if (sp.kind == RULE_PKTOP_NFLOG)
			snprintf(grp, sizeof(grp), "%u", sp.group);
		fprintf(f, "%8u %-6s %6s %12" PRIu64 " %12" PRIu64 "  \"%s\"\n", sp.rule_id,
			sp.kind == RULE_PKTOP_LOG ? "LOG" : "NFLOG", grp, rule_logged(lg, sp.rule_id),
			dropped, sp.prefix);
	}
}

void
gufc_log_json(const struct gufc_app *app, uint64_t queued, uint64_t dropped_all, FILE *f)
{
	struct gufc_log_stats st;
	struct rule_logspec sp;
	uint64_t dropped;
	bool first = true;

	gufc_log_stats_get(app, queued, dropped_all, &st);
	fprintf(f, "\"log\": {\"logged\": %" PRIu64 ", \"log_dropped\": %" PRIu64
		", \"drained\": %" PRIu64 ", \"lines\": %" PRIu64 ", \"lines_suppressed\": %" PRIu64
		", \"channel_packets\": %" PRIu64 ", \"no_channel\": %" PRIu64
		", \"channel_errors\": %" PRIu64 ", \"rules\": [",
		st.queued, st.dropped, st.drained, st.lines, st.suppressed, st.written, st.no_chan,
		st.errors);
	for (uint32_t id = 0; app->log != NULL && app->eng != NULL &&
		rule_engine_logspec_get(app->eng, id, &sp, &dropped) == 0; id++) {
		fprintf(f, "%s{\"rule\": %u, \"target\": \"%s\", \"group\": %u, \"logged\": %" PRIu64
			", \"log_dropped\": %" PRIu64 "}", first ? "" : ", ", sp.rule_id,
			sp.kind == RULE_PKTOP_LOG ? "LOG" : "NFLOG", sp.group,
			rule_logged(app->log, sp.rule_id), dropped);
		first = false;
	}
	fprintf(f, "]}");
}
