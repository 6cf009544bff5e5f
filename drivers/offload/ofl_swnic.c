/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_swnic.c — the software NIC model: a backend that
 * implements the rte_flow subset gufc emits, with a bounded exact-match
 * table, and classifies packets in an RX callback on the wrapped port (see
 * offload.h for why a callback rather than a vdev PMD).
 *
 * Subset: ingress, group 0, priority 0; pattern ETH (type exact or absent)
 * / IPV4 (src, dst exact; next_proto_id exact or absent; fragment_offset
 * spec 0 mask 0x3fff or absent) | IPV6 (src, dst exact; proto exact or
 * absent) / TCP | UDP | SCTP (ports exact) / END, VOID anywhere; actions
 * MARK + QUEUE(0) or DROP, optionally COUNT and AGE. Anything else (ranges,
 * wildcards, partial masks, other items or actions, queues other than 0)
 * is refused with an rte_flow_error, ENOTSUP, pointing at the culprit, as a
 * PMD does. A full table refuses creation with ENOSPC and
 * RTE_FLOW_ERROR_TYPE_HANDLE.
 *
 * The "hardware": an RX callback on every RX queue parses each packet with
 * its own minimal parser (untagged Ethernet, IPv4 without fragments or IPv6
 * without extension headers, TCP/UDP/SCTP ports), looks the 5-tuple up and
 * on a hit: MARK sets mbuf->hash.fdir.hi and RTE_MBUF_F_RX_FDIR |
 * RTE_MBUF_F_RX_FDIR_ID (the callback owns those bits: it clears them on a
 * miss); DROP frees the packet and counts it in hw_dropped, so
 * rx == delivered + drops holds once the app adds hw_dropped as hw_drop;
 * COUNT counts packets and bytes; AGE records the last hit. QUEUE is
 * recorded but a model sitting behind the port's queues cannot move packets
 * between them: only QUEUE(0) is accepted, documenting a single-queue NIC.
 * RSS (the port's queues, outer Toeplitz) is accepted and leaves a packet on
 * the queue the port's own RSS gave it, which is what that action does.
 *
 * Concurrency: the control thread creates and destroys rules (one writer);
 * RX callbacks read rule slots under a per-slot sequence lock and treat a
 * slot being rewritten as a miss (a NIC updating a rule may miss too).
 * Counters of a rule are atomic adds (several queues may hit it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "offload.h"
#include "ofl_priv.h"

#define SW_MAX_QUEUES 64
#define SW_FATE_QUEUE 1
#define SW_FATE_DROP 2
#define SW_FATE_RSS 3
#define SW_HDR_MAX 128
#define SW_DROP_BATCH 64

/** Exact-match key: the 5-tuple and family. IPv4 addresses in the first 4 bytes. */
struct sw_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t family;
	uint8_t any_proto; /**< IP item had no next-protocol mask (L4 item decides) */
	uint8_t frag_ok;   /**< fragment_offset not matched: first fragments match */
};

/** What a rule does. */
struct sw_act {
	uint32_t mark;
	uint32_t age_timeout;
	uint16_t queue;
	uint8_t fate;
	uint8_t has_mark;
	uint8_t count;
	uint8_t age;
};

/** One rule slot. seq: even stable, odd being written; live says in use. */
struct sw_rule {
	uint32_t seq;
	uint8_t live;
	struct sw_key key;
	struct sw_act act;
	uint64_t pkts;   /**< atomic */
	uint64_t bytes;  /**< atomic */
	uint64_t last_hit; /**< tsc, relaxed */
	uint64_t created;
} __rte_cache_aligned;

/** Per-queue counters, written by that queue's RX callback. */
struct sw_qstats {
	uint64_t matched;
	uint64_t marked;
	uint64_t dropped;
	uint64_t dropped_bytes;
} __rte_cache_aligned;

struct ofl_swnic {
	uint16_t port_id;
	uint16_t n_q;
	uint32_t size;      /**< rules that fit */
	uint32_t used;
	uint32_t mask;      /**< slots - 1 (slots: power of 2 >= 2 * size) */
	uint32_t max_probe; /**< longest probe distance ever used (grows only) */
	uint32_t seed;
	struct sw_rule *slots;
	const struct rte_eth_rxtx_callback *cb[SW_MAX_QUEUES];
	struct sw_qstats qs[SW_MAX_QUEUES];
};

/* ------------------------------------------------------------------------ */
/* The rte_flow subset                                                       */
/* ------------------------------------------------------------------------ */

static bool
all_ones(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static int
refuse(struct rte_flow_error *err, enum rte_flow_error_type type, const void *cause,
	const char *msg)
{
	return rte_flow_error_set(err, ENOTSUP, type, cause, msg);
}

static int
parse_attr(const struct rte_flow_attr *attr, struct rte_flow_error *err)
{
	if (attr == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, NULL,
			"no attributes");
	if (attr->group != 0)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr, "groups not supported");
	if (attr->priority != 0)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
			"priorities not supported");
	if (attr->egress)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, attr, "egress not supported");
	if (attr->transfer)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
			"transfer not supported");
	if (!attr->ingress)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr, "ingress only");
	return 0;
}

/* Next item that is not VOID. */
static const struct rte_flow_item *
next_item(const struct rte_flow_item *it)
{
	while (it->type == RTE_FLOW_ITEM_TYPE_VOID)
		it++;
	return it;
}

static int
parse_eth(const struct rte_flow_item *it, uint16_t *type, struct rte_flow_error *err)
{
	struct rte_flow_item_eth m;

	*type = 0;
	if (it->spec == NULL)
		return it->mask == NULL ? 0 : refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, it,
			"eth mask without spec");
	m = it->mask != NULL ? *(const struct rte_flow_item_eth *)it->mask : rte_flow_item_eth_mask;
	if (m.hdr.ether_type == RTE_BE16(0xffff)) {
		*type = rte_be_to_cpu_16(((const struct rte_flow_item_eth *)it->spec)->hdr.ether_type);
		m.hdr.ether_type = 0;
	}
	/* The default eth mask matches addresses: refused like any partial match. */
	if (!all_zero(&m, sizeof(m)))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"eth: only the type, exactly");
	return 0;
}

static int
parse_ipv4(const struct rte_flow_item *it, struct sw_key *k, struct rte_flow_error *err)
{
	const struct rte_flow_item_ipv4 *s = it->spec;
	struct rte_flow_item_ipv4 m;

	if (s == NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, it, "ipv4: addresses required");
	m = it->mask != NULL ? *(const struct rte_flow_item_ipv4 *)it->mask :
			       rte_flow_item_ipv4_mask;
	if (m.hdr.src_addr != RTE_BE32(0xffffffff) || m.hdr.dst_addr != RTE_BE32(0xffffffff))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"ipv4: exact addresses only");
	memcpy(k->src, &s->hdr.src_addr, 4);
	memcpy(k->dst, &s->hdr.dst_addr, 4);
	m.hdr.src_addr = 0;
	m.hdr.dst_addr = 0;
	k->any_proto = 1;
	if (m.hdr.next_proto_id == 0xff) {
		k->proto = s->hdr.next_proto_id;
		k->any_proto = 0;
		m.hdr.next_proto_id = 0;
	}
	k->frag_ok = 1;
	if (m.hdr.fragment_offset == RTE_BE16(0x3fff) && s->hdr.fragment_offset == 0) {
		k->frag_ok = 0;
		m.hdr.fragment_offset = 0;
	}
	if (!all_zero(&m, sizeof(m)))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"ipv4: unsupported field or partial mask");
	k->family = FC_AF_INET4;
	return 0;
}

static int
parse_ipv6(const struct rte_flow_item *it, struct sw_key *k, struct rte_flow_error *err)
{
	const struct rte_flow_item_ipv6 *s = it->spec;
	struct rte_flow_item_ipv6 m;

	if (s == NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, it, "ipv6: addresses required");
	m = it->mask != NULL ? *(const struct rte_flow_item_ipv6 *)it->mask :
			       rte_flow_item_ipv6_mask;
	if (!all_ones(m.hdr.src_addr, 16) || !all_ones(m.hdr.dst_addr, 16))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"ipv6: exact addresses only");
	memcpy(k->src, s->hdr.src_addr, 16);
	memcpy(k->dst, s->hdr.dst_addr, 16);
	memset(m.hdr.src_addr, 0, 16);
	memset(m.hdr.dst_addr, 0, 16);
	k->any_proto = 1;
	if (m.hdr.proto == 0xff) {
		k->proto = s->hdr.proto;
		k->any_proto = 0;
		m.hdr.proto = 0;
	}
	if (!all_zero(&m, sizeof(m)))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"ipv6: unsupported field or partial mask");
	k->family = FC_AF_INET6;
	return 0;
}

/* TCP, UDP and SCTP: ports exact, nothing else. Ports lead all three headers. */
static int
parse_l4(const struct rte_flow_item *it, struct sw_key *k, struct rte_flow_error *err)
{
	union {
		struct rte_flow_item_tcp tcp;
		struct rte_flow_item_udp udp;
		struct rte_flow_item_sctp sctp;
	} m;
	const void *dmask;
	size_t sz;
	uint8_t proto;
	const uint16_t *sp;

	switch (it->type) {
	case RTE_FLOW_ITEM_TYPE_TCP:
		proto = 6, sz = sizeof(m.tcp), dmask = &rte_flow_item_tcp_mask;
		break;
	case RTE_FLOW_ITEM_TYPE_UDP:
		proto = 17, sz = sizeof(m.udp), dmask = &rte_flow_item_udp_mask;
		break;
	default:
		proto = 132, sz = sizeof(m.sctp), dmask = &rte_flow_item_sctp_mask;
		break;
	}
	if (it->spec == NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, it, "l4: ports required");
	memset(&m, 0, sizeof(m));
	memcpy(&m, it->mask != NULL ? it->mask : dmask, sz);
	/* src_port and dst_port are the first 4 bytes of each. */
	if (!all_ones(&m, 4))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it, "l4: exact ports only");
	memset(&m, 0, 4);
	if (!all_zero(&m, sz))
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			"l4: fields other than ports not supported");
	if (!k->any_proto && k->proto != proto)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, it,
			"l4 item contradicts the ip protocol");
	k->proto = proto;
	k->any_proto = 0;
	sp = it->spec;
	k->sport = sp[0];
	k->dport = sp[1];
	return 0;
}

static int
parse_pattern(const struct rte_flow_item pattern[], struct sw_key *k, struct rte_flow_error *err)
{
	const struct rte_flow_item *it;
	uint16_t etype;
	int rc;

	memset(k, 0, sizeof(*k));
	if (pattern == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
			"no pattern");
	it = next_item(pattern);
	if (it->type != RTE_FLOW_ITEM_TYPE_ETH)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM, it, "pattern must start with eth");
	if (it->last != NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_LAST, it, "ranges not supported");
	rc = parse_eth(it, &etype, err);
	if (rc < 0)
		return rc;
	it = next_item(it + 1);
	if (it->last != NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_LAST, it, "ranges not supported");
	if (it->type == RTE_FLOW_ITEM_TYPE_IPV4 &&
		(etype == 0 || etype == RTE_ETHER_TYPE_IPV4))
		rc = parse_ipv4(it, k, err);
	else if (it->type == RTE_FLOW_ITEM_TYPE_IPV6 &&
		(etype == 0 || etype == RTE_ETHER_TYPE_IPV6))
		rc = parse_ipv6(it, k, err);
	else
		rc = refuse(err, RTE_FLOW_ERROR_TYPE_ITEM, it, "expected ipv4 or ipv6 after eth");
	if (rc < 0)
		return rc;
	it = next_item(it + 1);
	if (it->last != NULL)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM_LAST, it, "ranges not supported");
	if (it->type != RTE_FLOW_ITEM_TYPE_TCP && it->type != RTE_FLOW_ITEM_TYPE_UDP &&
		it->type != RTE_FLOW_ITEM_TYPE_SCTP)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM, it, "expected tcp, udp or sctp");
	rc = parse_l4(it, k, err);
	if (rc < 0)
		return rc;
	it = next_item(it + 1);
	if (it->type != RTE_FLOW_ITEM_TYPE_END)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ITEM, it, "items after l4 not supported");
	return 0;
}

static int
parse_actions(const struct rte_flow_action actions[], uint16_t n_q, struct sw_act *a,
	struct rte_flow_error *err)
{
	const struct rte_flow_action *ac;

	memset(a, 0, sizeof(*a));
	if (actions == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
			"no actions");
	for (ac = actions; ac->type != RTE_FLOW_ACTION_TYPE_END; ac++) {
		switch (ac->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			break;
		case RTE_FLOW_ACTION_TYPE_MARK:
			if (ac->conf == NULL || a->has_mark)
				return rte_flow_error_set(err, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac, "mark: one, with an id");
			a->has_mark = 1;
			a->mark = ((const struct rte_flow_action_mark *)ac->conf)->id;
			break;
		case RTE_FLOW_ACTION_TYPE_QUEUE:
			if (ac->conf == NULL || a->fate != 0)
				return rte_flow_error_set(err, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
					"queue: one fate, with a queue");
			a->queue = ((const struct rte_flow_action_queue *)ac->conf)->index;
			if (a->queue != 0)
				return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
					"single-queue model: only queue 0");
			a->fate = SW_FATE_QUEUE;
			break;
		case RTE_FLOW_ACTION_TYPE_RSS: {
			/*
			 * The model sits behind the port's own RSS: a packet is
			 * already on the queue the hash gave it, which is where an
			 * RSS action with the port's queues would leave it. Queues
			 * must exist; the hash (key, types) is the port's.
			 */
			const struct rte_flow_action_rss *rss = ac->conf;

			if (rss == NULL || a->fate != 0 || rss->queue_num == 0 || rss->queue == NULL)
				return rte_flow_error_set(err, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
					"rss: one fate, with queues");
			if (rss->level > 1 || (rss->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
						      rss->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ))
				return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
					"rss: outer Toeplitz only");
			for (uint32_t i = 0; i < rss->queue_num; i++)
				if (rss->queue[i] >= n_q)
					return rte_flow_error_set(err, EINVAL,
						RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
						"rss: no such queue");
			a->fate = SW_FATE_RSS;
			break;
		}
		case RTE_FLOW_ACTION_TYPE_DROP:
			if (a->fate != 0)
				return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
					ac, "one fate action only");
			a->fate = SW_FATE_DROP;
			break;
		case RTE_FLOW_ACTION_TYPE_COUNT:
			if (a->count)
				return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
					ac, "one count only");
			a->count = 1;
			break;
		case RTE_FLOW_ACTION_TYPE_AGE:
			if (ac->conf == NULL || a->age ||
				((const struct rte_flow_action_age *)ac->conf)->timeout == 0)
				return rte_flow_error_set(err, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, ac,
					"age: one, with a timeout");
			a->age = 1;
			a->age_timeout = ((const struct rte_flow_action_age *)ac->conf)->timeout;
			break;
		default:
			return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION, ac, "action not supported");
		}
	}
	if (a->fate == 0)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION_NUM, actions,
			"a fate action (queue, rss or drop) is required");
	if (a->has_mark && a->fate == SW_FATE_DROP)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION, actions, "mark with drop");
	return 0;
}

static int
sw_parse(const struct ofl_swnic *sw, const struct rte_flow_attr *attr,
	const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	struct sw_key *k, struct sw_act *a, struct rte_flow_error *err)
{
	int rc = parse_attr(attr, err);

	if (rc == 0)
		rc = parse_pattern(pattern, k, err);
	if (rc == 0)
		rc = parse_actions(actions, sw->n_q, a, err);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                 */
/* ------------------------------------------------------------------------ */

/* Only the 5-tuple and family take part in the hash: they are what packets have. */
static inline uint32_t
sw_hash(const struct ofl_swnic *sw, const struct sw_key *k)
{
	return rte_hash_crc(k, offsetof(struct sw_key, any_proto), sw->seed);
}

static inline bool
sw_key_eq(const struct sw_key *a, const struct sw_key *b)
{
	return memcmp(a, b, offsetof(struct sw_key, any_proto)) == 0;
}

static int
sw_validate(void *be, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *err)
{
	struct sw_key k;
	struct sw_act a;

	return sw_parse(be, attr, pattern, actions, &k, &a, err);
}

static void
slot_write_begin(struct sw_rule *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void
slot_write_end(struct sw_rule *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

static void *
sw_create(void *be, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *err)
{
	struct ofl_swnic *sw = be;
	struct sw_key k;
	struct sw_act a;
	struct sw_rule *r = NULL;
	uint32_t h, d;

	if (sw_parse(sw, attr, pattern, actions, &k, &a, err) < 0)
		return NULL;
	/* A pattern that left the protocol open cannot be exact: L4 made it exact. */
	h = sw_hash(sw, &k);
	for (d = 0; d <= sw->max_probe; d++) {
		struct sw_rule *s = &sw->slots[(h + d) & sw->mask];

		if (s->live && sw_key_eq(&s->key, &k)) {
			rte_flow_error_set(err, EEXIST, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				"a rule with this pattern exists");
			return NULL;
		}
	}
	if (sw->used >= sw->size) {
		rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
			"flow table full");
		return NULL;
	}
	/* At least half the slots are free: the walk ends. */
	for (d = 0;; d++) {
		r = &sw->slots[(h + d) & sw->mask];
		if (!r->live)
			break;
	}
	slot_write_begin(r);
	r->key = k;
	r->act = a;
	__atomic_store_n(&r->pkts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->bytes, 0, __ATOMIC_RELAXED);
	r->created = rte_get_tsc_cycles();
	__atomic_store_n(&r->last_hit, r->created, __ATOMIC_RELAXED);
	r->live = 1;
	slot_write_end(r);
	if (d > sw->max_probe)
		__atomic_store_n(&sw->max_probe, d, __ATOMIC_RELEASE);
	__atomic_store_n(&sw->used, sw->used + 1, __ATOMIC_RELAXED);
	return r;
}

static struct sw_rule *
sw_handle(struct ofl_swnic *sw, void *rule, struct rte_flow_error *err)
{
	struct sw_rule *r = rule;

	if (r == NULL || r < sw->slots || r > &sw->slots[sw->mask] || !r->live) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, rule, "no such rule");
		return NULL;
	}
	return r;
}

static int
sw_destroy(void *be, void *rule, struct rte_flow_error *err)
{
	struct ofl_swnic *sw = be;
	struct sw_rule *r = sw_handle(sw, rule, err);

	if (r == NULL)
		return -EINVAL;
	slot_write_begin(r);
	r->live = 0;
	slot_write_end(r);
	__atomic_store_n(&sw->used, sw->used - 1, __ATOMIC_RELAXED);
	return 0;
}

static int
sw_query_count(void *be, void *rule, struct ofl_count *c, struct rte_flow_error *err)
{
	struct ofl_swnic *sw = be;
	struct sw_rule *r = sw_handle(sw, rule, err);

	if (r == NULL)
		return -EINVAL;
	if (!r->act.count)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION, NULL, "rule has no count");
	c->packets = __atomic_load_n(&r->pkts, __ATOMIC_RELAXED);
	c->bytes = __atomic_load_n(&r->bytes, __ATOMIC_RELAXED);
	return 0;
}

static int
sw_query_age(void *be, void *rule, bool *aged, uint32_t *idle_s, struct rte_flow_error *err)
{
	struct ofl_swnic *sw = be;
	struct sw_rule *r = sw_handle(sw, rule, err);
	uint64_t idle;

	if (r == NULL)
		return -EINVAL;
	if (!r->act.age)
		return refuse(err, RTE_FLOW_ERROR_TYPE_ACTION, NULL, "rule has no age");
	idle = (rte_get_tsc_cycles() - __atomic_load_n(&r->last_hit, __ATOMIC_RELAXED)) /
		rte_get_tsc_hz();
	*idle_s = (uint32_t)RTE_MIN(idle, (uint64_t)0xffffff);
	*aged = idle >= r->act.age_timeout;
	return 0;
}

static void
sw_fini(void *be)
{
	struct ofl_swnic *sw = be;

	if (sw == NULL)
		return;
	for (uint16_t q = 0; q < sw->n_q; q++) {
		if (sw->cb[q] != NULL && rte_eth_remove_rx_callback(sw->port_id, q, sw->cb[q]) == 0)
			rte_free((void *)(uintptr_t)sw->cb[q]);
	}
	rte_free(sw->slots);
	rte_free(sw);
}

const struct ofl_ops ofl_swnic_ops = {
	.name = "swnic",
	.validate = sw_validate,
	.create = sw_create,
	.destroy = sw_destroy,
	.query_count = sw_query_count,
	.query_age = sw_query_age,
	.fini = sw_fini,
};

/* ------------------------------------------------------------------------ */
/* The "hardware": classification in rte_eth_rx_burst()                      */
/* ------------------------------------------------------------------------ */

/* The model's own parser: untagged IPv4/IPv6, TCP/UDP/SCTP ports. */
static bool
sw_pkt_key(const struct rte_mbuf *m, struct sw_key *k, bool *frag_first)
{
	uint8_t buf[SW_HDR_MAX];
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)SW_HDR_MAX);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, buf);
	uint32_t l4;
	uint16_t et;

	if (p == NULL || len < 14 + 20)
		return false;
	et = (uint16_t)(p[12] << 8 | p[13]);
	memset(k, 0, sizeof(*k));
	*frag_first = false;
	if (et == RTE_ETHER_TYPE_IPV4) {
		uint16_t fo;

		if ((p[14] >> 4) != 4 || (p[14] & 0xf) < 5)
			return false;
		fo = (uint16_t)((p[20] << 8 | p[21]) & 0x3fff);
		if (fo & 0x1fff)
			return false; /* no L4 header: never matches a 5-tuple */
		*frag_first = fo != 0;
		l4 = 14 + (uint32_t)(p[14] & 0xf) * 4;
		k->family = FC_AF_INET4;
		k->proto = p[23];
		memcpy(k->src, p + 26, 4);
		memcpy(k->dst, p + 30, 4);
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (len < 14 + 40 || (p[14] >> 4) != 6)
			return false;
		l4 = 14 + 40;
		k->family = FC_AF_INET6;
		k->proto = p[20];
		memcpy(k->src, p + 22, 16);
		memcpy(k->dst, p + 38, 16);
	} else {
		return false;
	}
	if (k->proto != 6 && k->proto != 17 && k->proto != 132)
		return false;
	if (l4 + 4 > len)
		return false;
	memcpy(&k->sport, p + l4, 2);
	memcpy(&k->dport, p + l4 + 2, 2);
	return true;
}

/* Look a packet's key up; on a hit copy the rule's action. */
static struct sw_rule *
sw_lookup(const struct ofl_swnic *sw, const struct sw_key *k, bool frag_first, struct sw_act *a)
{
	uint32_t h = sw_hash(sw, k);
	uint32_t maxp = __atomic_load_n(&sw->max_probe, __ATOMIC_ACQUIRE);

	for (uint32_t d = 0; d <= maxp; d++) {
		struct sw_rule *r = &sw->slots[(h + d) & sw->mask];
		uint32_t s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
		bool hit;

		if (s1 & 1)
			continue;
		hit = r->live && sw_key_eq(&r->key, k) && (!frag_first || r->key.frag_ok);
		*a = r->act;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (hit && __atomic_load_n(&r->seq, __ATOMIC_RELAXED) == s1)
			return r;
	}
	return NULL;
}

static uint16_t
sw_rx_cb(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb_pkts,
	uint16_t max_pkts, void *user_param)
{
	struct ofl_swnic *sw = user_param;
	struct sw_qstats *qs = &sw->qs[queue];
	struct rte_mbuf *dropped[SW_DROP_BATCH];
	uint16_t nd = 0, n = 0;
	uint64_t now = 0;

	RTE_SET_USED(port_id);
	RTE_SET_USED(max_pkts);
	for (uint16_t i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = pkts[i];
		struct sw_rule *r = NULL;
		struct sw_key k;
		struct sw_act a;
		bool ff;

		m->ol_flags &= ~(RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID);
		if (__atomic_load_n(&sw->used, __ATOMIC_RELAXED) != 0 && sw_pkt_key(m, &k, &ff))
			r = sw_lookup(sw, &k, ff, &a);
		if (r == NULL) {
			pkts[n++] = m;
			continue;
		}
		qs->matched++;
		if (a.count) {
			__atomic_fetch_add(&r->pkts, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&r->bytes, m->pkt_len, __ATOMIC_RELAXED);
		}
		if (a.age) {
			if (now == 0)
				now = rte_get_tsc_cycles();
			__atomic_store_n(&r->last_hit, now, __ATOMIC_RELAXED);
		}
		if (a.fate == SW_FATE_DROP) {
			qs->dropped++;
			qs->dropped_bytes += m->pkt_len;
			dropped[nd++] = m;
			if (nd == SW_DROP_BATCH) {
				rte_pktmbuf_free_bulk(dropped, nd);
				nd = 0;
			}
			continue;
		}
		if (a.has_mark) {
			m->hash.fdir.hi = a.mark;
			m->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
			qs->marked++;
		}
		pkts[n++] = m;
	}
	if (nd != 0)
		rte_pktmbuf_free_bulk(dropped, nd);
	return n;
}

void *
ofl_swnic_init(uint16_t port_id, uint32_t size, int socket_id)
{
	struct rte_eth_dev_info info;
	struct ofl_swnic *sw;
	uint32_t slots;

	if (size == 0)
		size = 1024;
	if (size > (1u << 24) || rte_eth_dev_info_get(port_id, &info) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (info.nb_rx_queues > SW_MAX_QUEUES) {
		rte_errno = EINVAL;
		return NULL;
	}
	sw = rte_zmalloc_socket("ofl_swnic", sizeof(*sw), RTE_CACHE_LINE_SIZE, socket_id);
	if (sw == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	slots = rte_align32pow2(size * 2);
	sw->slots = rte_zmalloc_socket("ofl_swnic_tbl", sizeof(*sw->slots) * slots,
		RTE_CACHE_LINE_SIZE, socket_id);
	if (sw->slots == NULL) {
		rte_free(sw);
		rte_errno = ENOMEM;
		return NULL;
	}
	sw->port_id = port_id;
	sw->size = size;
	sw->mask = slots - 1;
	sw->seed = 0x9e3779b9u;
	for (uint16_t q = 0; q < info.nb_rx_queues; q++) {
		sw->cb[q] = rte_eth_add_rx_callback(port_id, q, sw_rx_cb, sw);
		if (sw->cb[q] == NULL) {
			int e = rte_errno ? rte_errno : ENOTSUP;

			sw->n_q = q;
			sw_fini(sw);
			rte_errno = e;
			return NULL;
		}
	}
	sw->n_q = info.nb_rx_queues;
	return sw;
}

void
ofl_swnic_stats(const void *be, struct ofl_port_stats *st)
{
	const struct ofl_swnic *sw = be;

	for (uint16_t q = 0; q < sw->n_q; q++) {
		st->hw_matched += __atomic_load_n(&sw->qs[q].matched, __ATOMIC_RELAXED);
		st->hw_marked += __atomic_load_n(&sw->qs[q].marked, __ATOMIC_RELAXED);
		st->hw_dropped += __atomic_load_n(&sw->qs[q].dropped, __ATOMIC_RELAXED);
		st->hw_dropped_bytes += __atomic_load_n(&sw->qs[q].dropped_bytes, __ATOMIC_RELAXED);
	}
	st->capacity = sw->size;
}
