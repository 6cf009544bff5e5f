/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_port.c — a backend bound to an ethdev port: creation,
 * the capability probe (rte_flow_validate on representative rules for both
 * families), counters, and the rule calls every user goes through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "offload.h"
#include "ofl_priv.h"

RTE_LOG_REGISTER(ofl_logtype, gufc.offload, NOTICE);

const char *
ofl_backend_name(enum ofl_backend b)
{
	switch (b) {
	case OFL_BACKEND_OFF:
		return "off";
	case OFL_BACKEND_RTEFLOW:
		return "rteflow";
	case OFL_BACKEND_SWNIC:
		return "swnic";
	}
	return "?";
}

int
ofl_backend_parse(const char *s, struct ofl_port_params *p)
{
	if (s == NULL || p == NULL)
		return -EINVAL;
	if (strcmp(s, "off") == 0) {
		p->backend = OFL_BACKEND_OFF;
		return 0;
	}
	if (strcmp(s, "rteflow") == 0) {
		p->backend = OFL_BACKEND_RTEFLOW;
		return 0;
	}
	if (strncmp(s, "swnic", 5) == 0) {
		if (s[5] == '\0') {
			p->backend = OFL_BACKEND_SWNIC;
			p->swnic_size = 0;
			return 0;
		}
		if (s[5] == ':' && s[6] >= '0' && s[6] <= '9') {
			char *end;
			unsigned long v = strtoul(s + 6, &end, 10);

			if (*end != '\0' || v == 0 || v > (1u << 24))
				return -EINVAL;
			p->backend = OFL_BACKEND_SWNIC;
			p->swnic_size = (uint32_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Rule calls                                                                */
/* ------------------------------------------------------------------------ */

int
ofl_port_rule_validate(struct ofl_port *op, const struct ofl_flow_spec *s,
	struct rte_flow_error *err)
{
	if (op == NULL || s == NULL)
		return -EINVAL;
	return op->ops->validate(op->be, &s->attr, s->pattern, s->actions, err);
}

void *
ofl_port_rule_create(struct ofl_port *op, const struct ofl_flow_spec *s,
	struct rte_flow_error *err)
{
	void *r;

	if (op == NULL || s == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL, "null");
		return NULL;
	}
	r = op->ops->create(op->be, &s->attr, s->pattern, s->actions, err);
	if (r == NULL) {
		op->create_failed++;
		return NULL;
	}
	op->rules_created++;
	op->rules++;
	return r;
}

int
ofl_port_rule_destroy(struct ofl_port *op, void *rule, struct rte_flow_error *err)
{
	int rc;

	if (op == NULL || rule == NULL)
		return -EINVAL;
	rc = op->ops->destroy(op->be, rule, err);
	if (rc == 0) {
		op->rules_destroyed++;
		op->rules--;
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Probe                                                                     */
/* ------------------------------------------------------------------------ */

static void
probe_key(unsigned int fam, struct fc_key *k)
{
	static const uint8_t s6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t d6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

	memset(k, 0, sizeof(*k));
	if (fam == 0) {
		k->family = FC_AF_INET4;
		k->v4.src = RTE_BE32(0xc0000201); /* 192.0.2.1 */
		k->v4.dst = RTE_BE32(0xc6336401); /* 198.51.100.1 */
		k->v4.sport = RTE_BE16(1024);
		k->v4.dport = RTE_BE16(80);
		k->v4.proto = 6;
	} else {
		k->family = FC_AF_INET6;
		memcpy(k->v6.src, s6, 16);
		memcpy(k->v6.dst, d6, 16);
		k->v6.sport = RTE_BE16(1024);
		k->v6.dport = RTE_BE16(80);
		k->v6.proto = 6;
	}
}

static int
probe_one(struct ofl_port *op, unsigned int fam, uint8_t verdict, bool count, bool age)
{
	struct ofl_flow_req r;
	struct ofl_flow_spec s;
	struct rte_flow_error err;
	int rc;

	memset(&r, 0, sizeof(r));
	probe_key(fam, &r.key);
	ofl_port_req(op, &r);
	r.verdict = verdict;
	r.count = count;
	r.age = age;
	r.age_timeout = 30;
	/* The widest mark the policy makes: 32 bits. */
	r.mark = dp_mark_make(fam, DP_MARK_IDX_MASK, 0xff);
	rc = ofl_flow_translate(&r, &s);
	if (rc < 0)
		return rc;
	memset(&err, 0, sizeof(err));
	rc = ofl_port_rule_validate(op, &s, &err);
	if (rc < 0)
		OFL_LOG(DEBUG, "port %u: probe %s %s%s%s refused: %s", op->port_id,
			fam ? "ipv6" : "ipv4", verdict == FC_VERDICT_DROP ? "drop" : "mark",
			count ? "+count" : "", age ? "+age" : "",
			err.message ? err.message : "(no message)");
	return rc;
}

static void
probe(struct ofl_port *op)
{
	for (unsigned int f = 0; f < 2; f++) {
		uint32_t c = 0;
		int rc = probe_one(op, f, FC_VERDICT_ACCEPT, false, false);
		uint8_t base;

		op->probe_err[f] = rc;
		if (rc == 0)
			c |= OFL_CAP_MARK;
		if (probe_one(op, f, FC_VERDICT_DROP, false, false) == 0)
			c |= OFL_CAP_DROP;
		base = (c & OFL_CAP_MARK) ? FC_VERDICT_ACCEPT : FC_VERDICT_DROP;
		if (c != 0 && probe_one(op, f, base, true, false) == 0)
			c |= OFL_CAP_COUNT;
		if (c != 0 && probe_one(op, f, base, false, true) == 0)
			c |= OFL_CAP_AGE;
		op->caps[f] = c;
	}
}

/*
 * The RSS action of MARK rules on a multi-queue port: what the port itself
 * was configured with (hash functions, key, every RX queue), so a marked
 * flow lands where RSS would have put it. Without a readable key the
 * action names none (the port's default), like the configuration did.
 */
static void
rss_init(struct ofl_port *op)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_eth_rss_conf rc;

	op->n_rxq = 1;
	if (rte_eth_dev_info_get(op->port_id, &info) != 0 || info.nb_rx_queues <= 1)
		return;
	op->n_rxq = RTE_MIN(info.nb_rx_queues, (uint16_t)OFL_RSS_QUEUES_MAX);
	for (uint16_t q = 0; q < op->n_rxq; q++)
		op->rss_queues[q] = q;
	memset(&op->rss, 0, sizeof(op->rss));
	op->rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
	op->rss.queue_num = op->n_rxq;
	op->rss.queue = op->rss_queues;
	if (rte_eth_dev_conf_get(op->port_id, &conf) == 0)
		op->rss.types = conf.rx_adv_conf.rss_conf.rss_hf;
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = op->rss_key;
	rc.rss_key_len = (uint8_t)RTE_MIN(info.hash_key_size ? info.hash_key_size : 40,
		OFL_RSS_KEY_MAX);
	if (rte_eth_dev_rss_hash_conf_get(op->port_id, &rc) == 0 && rc.rss_key_len != 0) {
		op->rss.key = op->rss_key;
		op->rss.key_len = rc.rss_key_len;
		if (rc.rss_hf != 0)
			op->rss.types = rc.rss_hf;
	}
}

void
ofl_port_req(const struct ofl_port *op, struct ofl_flow_req *r)
{
	if (op->n_rxq > 1) {
		r->rss = &op->rss;
		r->queue = 0;
	} else {
		r->rss = NULL;
		r->queue = 0;
	}
}

struct ofl_port *
ofl_port_create(uint16_t port_id, const struct ofl_port_params *p)
{
	struct ofl_port *op;

	if (p == NULL || !rte_eth_dev_is_valid_port(port_id) ||
		(p->backend != OFL_BACKEND_RTEFLOW && p->backend != OFL_BACKEND_SWNIC)) {
		rte_errno = EINVAL;
		return NULL;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	op->port_id = port_id;
	op->backend = p->backend;
	rss_init(op);
	if (p->backend == OFL_BACKEND_RTEFLOW) {
		op->ops = &ofl_rteflow_ops;
		op->be = ofl_rteflow_init(port_id);
	} else {
		op->ops = &ofl_swnic_ops;
		op->be = ofl_swnic_init(port_id, p->swnic_size, p->socket_id);
	}
	if (op->be == NULL) {
		int e = rte_errno;

		free(op);
		rte_errno = e;
		return NULL;
	}
	probe(op);
	return op;
}

void
ofl_port_free(struct ofl_port *op)
{
	if (op == NULL)
		return;
	op->ops->fini(op->be);
	free(op);
}

int
ofl_port_caps_format(const struct ofl_port *op, char *buf, size_t len)
{
	static const char *const names[] = {"mark", "drop", "count", "age"};
	size_t off = 0;
	int n;

	if (op == NULL || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	for (unsigned int f = 0; f < 2; f++) {
		bool first = true;

		n = snprintf(buf + off, len - off, "%s%s ", f ? "; " : "", f ? "ipv6" : "ipv4");
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
		for (unsigned int b = 0; b < RTE_DIM(names); b++) {
			if (!(op->caps[f] & (1u << b)))
				continue;
			n = snprintf(buf + off, len - off, "%s%s", first ? "" : ",", names[b]);
			if (n < 0 || (size_t)n >= len - off)
				return -ENOSPC;
			off += (size_t)n;
			first = false;
		}
		if (first) {
			n = snprintf(buf + off, len - off, "none");
			if (n < 0 || (size_t)n >= len - off)
				return -ENOSPC;
			off += (size_t)n;
		}
	}
	return (int)off;
}

int
ofl_port_stats_get(const struct ofl_port *op, struct ofl_port_stats *st)
{
	if (op == NULL || st == NULL)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->rules_created = op->rules_created;
	st->rules_destroyed = op->rules_destroyed;
	st->create_failed = op->create_failed;
	st->rules = op->rules;
	if (op->backend == OFL_BACKEND_SWNIC) {
		ofl_swnic_stats(op->be, st);
	} else {
		st->hw_dropped = op->hw_dropped_seen;
		st->hw_dropped_bytes = op->hw_dropped_bytes_seen;
	}
	return 0;
}
