/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_ipfix.c — IPFIX flow export (lib/modules/ipfix) wired to the
 * outside: the config's "ipfix collector ADDR:PORT ..." sends each message
 * as one UDP datagram built here (Ethernet, IPv4 or IPv6, UDP) on TX queue 0
 * of the chosen port, and "ipfix file FILE ..." appends messages to an
 * IPFIX file (RFC 5655: the messages one after the other).
 *
 * The messages are sent by the rules lcore, which runs the module (its
 * on_remove and step callbacks) and is also the only lcore that transmits
 * on queue 0 (the TX channels' consumer), so no queue is shared. They are
 * not packets gufc received: they go straight to the queue, not through a
 * channel, so the accounting rx == delivered + sum(drops) is about received
 * packets only; a message the queue refuses is a lost message, counted
 * (show ipfix, /gufc/ipfix, the JSON's "ipfix").
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "gufc.h"

#define IPFIX_SPORT MOD_IPFIX_PORT

/* UDP: one datagram on queue 0 of the configured port. */
static int
send_udp(void *arg, const uint8_t *msg, size_t len)
{
	struct gufc_app *app = arg;
	const struct gufc_ipfix_cfg *c = &app->cfg.ipfix;
	struct gufc_ipfix_io *io = &app->ipfix_io;
	size_t l3 = c->family == LEX_AF_INET6 ? sizeof(struct rte_ipv6_hdr)
					      : sizeof(struct rte_ipv4_hdr);
	size_t hdr = sizeof(struct rte_ether_hdr) + l3 + sizeof(struct rte_udp_hdr);
	struct rte_mbuf *m = rte_pktmbuf_alloc(app->pool);
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	uint8_t *p;

	if (m == NULL) {
		io->nombuf++;
		return -ENOMEM;
	}
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(hdr + len));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -EMSGSIZE;
	}
	eth = (struct rte_ether_hdr *)p;
	memcpy(eth->dst_addr.addr_bytes, c->mac, RTE_ETHER_ADDR_LEN);
	rte_ether_addr_copy(&app->ports[c->port].mac, &eth->src_addr);
	udp = (struct rte_udp_hdr *)(p + sizeof(*eth) + l3);
	udp->src_port = rte_cpu_to_be_16(IPFIX_SPORT);
	udp->dst_port = rte_cpu_to_be_16(c->dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len));
	udp->dgram_cksum = 0;
	memcpy(udp + 1, msg, len);
	if (c->family == LEX_AF_INET6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = udp->dgram_len;
		ip6->proto = IPPROTO_UDP;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, c->src, 16);
		memcpy(ip6->dst_addr, c->dst, 16);
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip6, udp);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(l3 + sizeof(*udp) + len));
		ip->packet_id = rte_cpu_to_be_16(io->ip_id++);
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, c->src, 4);
		memcpy(&ip->dst_addr, c->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	}
	if (rte_eth_tx_burst(c->port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		io->tx_full++;
		return -EBUSY;
	}
	io->frames++;
	return 0;
}

/* File: append the message (flushed, so the file is readable while gufc runs). */
static int
send_file(void *arg, const uint8_t *msg, size_t len)
{
	struct gufc_app *app = arg;

	if (fwrite(msg, 1, len, app->ipfix_file) != len || fflush(app->ipfix_file) != 0) {
		app->ipfix_io.write_err++;
		clearerr(app->ipfix_file);
		return -EIO;
	}
	return 0;
}

/* The source address of datagrams: "source", else the first "local" of the family. */
static int
source_pick(struct gufc_app *app)
{
	struct gufc_ipfix_cfg *c = &app->cfg.ipfix;

	if (c->src_set)
		return 0;
	for (unsigned int i = 0; i < app->cfg.n_locals; i++) {
		const struct lex_prefix *p = &app->cfg.locals[i];

		if (p->family != c->family)
			continue;
		memcpy(c->src, p->addr, sizeof(c->src));
		/* A network rather than a host: its first host. */
		if (p->len < fc_af_max_depth(p->family))
			c->src[lex_af_len(p->family) - 1] |= 1;
		return 0;
	}
	return -ENOENT;
}

int
gufc_ipfix_init(struct gufc_app *app)
{
	struct gufc_ipfix_cfg *c = &app->cfg.ipfix;
	struct mod_ipfix_params p;

	if (c->mode == GUFC_IPFIX_OFF)
		return 0;
	memset(&p, 0, sizeof(p));
	if (c->mode == GUFC_IPFIX_UDP) {
		if (!app->ports[c->port].used) {
			GUFC_LOG(ERR, "ipfix: port %u is not in use", c->port);
			return -ENODEV;
		}
		if (source_pick(app) != 0) {
			GUFC_LOG(ERR, "ipfix: no source address: give 'source ADDR' or a 'local' "
				      "prefix of the collector's family");
			return -EINVAL;
		}
		p.send = send_udp;
		p.template_refresh = c->template_refresh * 1000u;
	} else {
		app->ipfix_file = fopen(c->file, "wb");
		if (app->ipfix_file == NULL) {
			int rc = -errno;

			GUFC_LOG(ERR, "ipfix file %s: %s", c->file, strerror(errno));
			return rc;
		}
		p.send = send_file;
		p.template_refresh = 0; /* a file has them once, at its start */
	}
	p.send_arg = app;
	p.epoch_ms = app->epoch_ms;
	p.active_timeout = c->active_timeout * 1000u;
	p.idle_timeout = c->idle_timeout * 1000u;
	p.domain = c->domain;
	p.pen = c->pen;
	app->ipfix = mod_ipfix_module_create(app->eng, &p);
	if (app->ipfix == NULL) {
		GUFC_LOG(ERR, "ipfix: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	{
		char d[256];

		gufc_ipfix_describe(app, d, sizeof(d));
		GUFC_LOG(INFO, "ipfix: %s", d);
	}
	return 0;
}

void
gufc_ipfix_stop(struct gufc_app *app, uint32_t now)
{
	int n;

	if (app->ipfix == NULL)
		return;
	n = mod_ipfix_export_all(app->ipfix, now);
	GUFC_LOG(DEBUG, "ipfix: %d records of live flows at stop", n);
}

void
gufc_ipfix_fini(struct gufc_app *app)
{
	mod_ipfix_module_free(app->ipfix);
	app->ipfix = NULL;
	if (app->ipfix_file != NULL)
		fclose(app->ipfix_file);
	app->ipfix_file = NULL;
}

void
gufc_ipfix_totals(const struct gufc_app *app, struct gufc_ipfix_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->on = app->cfg.ipfix.mode != GUFC_IPFIX_OFF;
	mod_ipfix_stats_get(app->ipfix, &t->st);
	t->io = app->ipfix_io;
}

int
gufc_ipfix_describe(const struct gufc_app *app, char *buf, size_t len)
{
	const struct gufc_ipfix_cfg *c = &app->cfg.ipfix;
	char dst[LEX_ADDR_STRLEN], src[LEX_ADDR_STRLEN], act[24], idle[24], tmo[64];

	strcpy(act, "off");
	strcpy(idle, "off");
	if (c->active_timeout != 0)
		snprintf(act, sizeof(act), "%u s", c->active_timeout);
	if (c->idle_timeout != 0)
		snprintf(idle, sizeof(idle), "%u s", c->idle_timeout);
	snprintf(tmo, sizeof(tmo), "active timeout %s, idle timeout %s", act, idle);
	switch (c->mode) {
	case GUFC_IPFIX_UDP:
		lex_addr_format(c->family, c->dst, dst, sizeof(dst));
		lex_addr_format(c->family, c->src, src, sizeof(src));
		return snprintf(buf, len,
			"collector %s%s%s:%u via port %u (source %s), %s, "
			"templates every %u s, domain %u",
			c->family == LEX_AF_INET6 ? "[" : "", dst,
			c->family == LEX_AF_INET6 ? "]" : "", c->dport, c->port, src, tmo,
			c->template_refresh, c->domain);
	case GUFC_IPFIX_FILE:
		return snprintf(buf, len, "file %s, %s, domain %u", c->file, tmo, c->domain);
	default:
		return snprintf(buf, len, "off");
	}
}

void
gufc_ipfix_dump(const struct gufc_app *app, FILE *f)
{
	struct gufc_ipfix_totals t;
	const struct mod_ipfix_stats *s = &t.st;
	char d[256];

	gufc_ipfix_totals(app, &t);
	gufc_ipfix_describe(app, d, sizeof(d));
	fprintf(f, "ipfix: %s\n", d);
	if (!t.on)
		return;
	fprintf(f,
		"%-12s %12" PRIu64 "  (idle %" PRIu64 ", active %" PRIu64 ", eof %" PRIu64
		", forced %" PRIu64 ", resources %" PRIu64 ")\n",
		"records", s->records, s->records_end[MOD_IPFIX_END_IDLE],
		s->records_end[MOD_IPFIX_END_ACTIVE], s->records_end[MOD_IPFIX_END_EOF],
		s->records_end[MOD_IPFIX_END_FORCED], s->records_end[MOD_IPFIX_END_RESOURCES]);
	fprintf(f, "%-12s %12" PRIu64 "  (%" PRIu64 " bytes)\n", "messages", s->messages, s->bytes);
	fprintf(f, "%-12s %12" PRIu64 "\n", "templates", s->templates);
	fprintf(f,
		"%-12s %12" PRIu64 "  messages (%" PRIu64 " records): no mbuf %" PRIu64
		", tx queue full %" PRIu64 ", write errors %" PRIu64 "\n",
		"drops", s->send_failed, s->records_lost, t.io.nombuf, t.io.tx_full,
		t.io.write_err);
	fprintf(f, "%-12s %12" PRIu64 "\n", "sweeps", s->sweeps);
}
