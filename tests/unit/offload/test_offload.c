/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of drivers/offload: translation of IPv4/IPv6 flows into
 * rte_flow patterns and actions; the software NIC's rte_flow subset (what it
 * accepts, what it refuses and how); its bounded table; its RX callback on a
 * net_ring port (marks, drops counted as hw_dropped, COUNT); the policy
 * (heavy hitters under a threshold and a maximum, table-full fallback,
 * removal when a flow goes, mark validation) and commit coherence (a flow
 * whose DROP is in hardware stops being dropped once a commit accepts it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "offload.h"
#include "pkt_build.h"
#include "rule_lang.h"

static struct rte_mempool *pool;
static int seq;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct fc_key
key4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct fc_key k;

	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET4;
	inet_pton(AF_INET, src, &k.v4.src);
	inet_pton(AF_INET, dst, &k.v4.dst);
	k.v4.sport = htons(sport);
	k.v4.dport = htons(dport);
	k.v4.proto = proto;
	return k;
}

static struct fc_key
key6(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct fc_key k;

	memset(&k, 0, sizeof(k));
	k.family = FC_AF_INET6;
	inet_pton(AF_INET6, src, k.v6.src);
	inet_pton(AF_INET6, dst, k.v6.dst);
	k.v6.sport = htons(sport);
	k.v6.dport = htons(dport);
	k.v6.proto = proto;
	return k;
}

/* A frame of the flow @k (TCP/UDP/SCTP), optionally an IPv4 first fragment. */
static struct rte_mbuf *
frame(const struct fc_key *k, bool mf)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t buf[256];
	struct pb b;
	int len;
	uint8_t proto = k->family == FC_AF_INET4 ? k->v4.proto : k->v6.proto;
	uint16_t sp = ntohs(k->family == FC_AF_INET4 ? k->v4.sport : k->v6.sport);
	uint16_t dp = ntohs(k->family == FC_AF_INET4 ? k->v4.dport : k->v6.dport);

	assert_non_null(m);
	pb_init(&b, buf, sizeof(buf));
	pb_eth(&b, NULL, NULL);
	if (k->family == FC_AF_INET4) {
		struct pb_ipv4 ip = {0};

		ip.src = ntohl(k->v4.src);
		ip.dst = ntohl(k->v4.dst);
		ip.mf = mf;
		pb_ipv4(&b, &ip);
	} else {
		struct pb_ipv6 ip;

		memset(&ip, 0, sizeof(ip));
		memcpy(ip.src, k->v6.src, 16);
		memcpy(ip.dst, k->v6.dst, 16);
		pb_ipv6(&b, &ip);
	}
	if (proto == 6)
		pb_tcp(&b, sp, dp, PB_TCP_ACK, 1, 1, 0);
	else if (proto == 17)
		pb_udp(&b, sp, dp);
	else
		pb_sctp(&b, sp, dp, 7);
	pb_payload(&b, NULL, 20);
	len = pb_finish(&b);
	assert_true(len > 0);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), buf, (size_t)len);
	/* Whatever a previous user left: the model owns the FDIR bits. */
	m->ol_flags |= RTE_MBUF_F_RX_FDIR_ID;
	m->hash.fdir.hi = 0xdeadbeef;
	return m;
}

/* A net_ring port whose RX ring the test fills. */
struct ring_port {
	uint16_t id;
	struct rte_ring *rx;
	struct rte_ring *tx;
};

static void
ring_port_create(struct ring_port *rp)
{
	struct rte_eth_conf conf;
	char name[32];
	int id;

	memset(&conf, 0, sizeof(conf));
	snprintf(name, sizeof(name), "ofl_rx%d", seq);
	rp->rx = rte_ring_create(name, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "ofl_tx%d", seq);
	rp->tx = rte_ring_create(name, 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(rp->rx);
	assert_non_null(rp->tx);
	snprintf(name, sizeof(name), "net_ofl%d", seq++);
	id = rte_eth_from_rings(name, &rp->rx, 1, &rp->tx, 1, SOCKET_ID_ANY);
	assert_true(id >= 0);
	rp->id = (uint16_t)id;
	assert_int_equal(rte_eth_dev_configure(rp->id, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(rp->id, 0, 64, SOCKET_ID_ANY, NULL, pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(rp->id, 0, 64, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(rp->id), 0);
}

static void
ring_port_free(struct ring_port *rp)
{
	rte_eth_dev_stop(rp->id);
	rte_eth_dev_close(rp->id);
	rte_ring_free(rp->rx);
	rte_ring_free(rp->tx);
}

/* Put @p n frames on the port and receive them: @return packets rx_burst returned. */
static uint16_t
rx(const struct ring_port *rp, struct rte_mbuf **in, unsigned int n, struct rte_mbuf **out)
{
	assert_int_equal(rte_ring_enqueue_burst(rp->rx, (void **)in, n, NULL), n);
	return rte_eth_rx_burst(rp->id, 0, out, 32);
}

static struct ofl_port *
swnic(const struct ring_port *rp, uint32_t size)
{
	struct ofl_port_params pp = {.backend = OFL_BACKEND_SWNIC, .swnic_size = size,
		.socket_id = SOCKET_ID_ANY};
	struct ofl_port *op = ofl_port_create(rp->id, &pp);

	assert_non_null(op);
	return op;
}

static struct rule_engine *
mk_engine(void)
{
	return eng_stack_test_engine("ofl", 256, 256, false, 0);
}

static void
load(struct rule_engine *eng, const char *text)
{
	eng_stack_load(eng, text, false);
}

/* The slow path creates the flow's entry; @return its verdict. */
static uint8_t
flow(struct rule_engine *eng, const struct fc_key *k, uint32_t now)
{
	struct rule_upcall u;
	struct rule_decision d;

	memset(&u, 0, sizeof(u));
	u.pkt.key = *k;
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	assert_int_equal(rule_engine_upcall_burst(eng, &u, 1, &d, now), 1);
	return d.verdict;
}

static uint32_t
entry_idx(struct rule_engine *eng, const struct fc_key *k)
{
	struct fc_table *t = rule_engine_table(eng, k->family);
	int i = fc_table_lookup(t, &k->v4, fc_table_hash(t, &k->v4));

	assert_true(i >= 0);
	return (uint32_t)i;
}

/* @p n packets of flow @k as the RX lcore counts them. */
static void
hits(struct rule_engine *eng, const struct fc_key *k, unsigned int n, uint32_t now)
{
	struct fc_table *t = rule_engine_table(eng, k->family);
	uint32_t idx = entry_idx(eng, k);

	for (unsigned int i = 0; i < n; i++)
		fc_table_touch(t, idx, 100, now);
}

/* ------------------------------------------------------------------------ */
/* Translation                                                               */
/* ------------------------------------------------------------------------ */

static void
test_translate_v4_tcp(void **state)
{
	struct ofl_flow_req r = {0};
	struct ofl_flow_spec s;
	const struct rte_flow_item_ipv4 *ip, *ipm;
	const struct rte_flow_item_tcp *tcp, *tcpm;
	const struct rte_flow_item_eth *eth, *ethm;

	(void)state;
	r.key = key4(6, "10.0.0.1", 1234, "10.0.0.2", 80);
	r.verdict = FC_VERDICT_ACCEPT;
	r.mark = 0x05000007;
	r.queue = 0;
	assert_int_equal(ofl_flow_translate(&r, &s), 0);
	assert_int_equal(s.attr.ingress, 1);
	assert_int_equal(s.attr.group, 0);
	assert_int_equal(s.pattern[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	eth = s.pattern[0].spec;
	ethm = s.pattern[0].mask;
	assert_int_equal(eth->hdr.ether_type, htons(0x0800));
	assert_int_equal(ethm->hdr.ether_type, 0xffff);
	assert_int_equal(s.pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	ip = s.pattern[1].spec;
	ipm = s.pattern[1].mask;
	assert_int_equal(ip->hdr.src_addr, r.key.v4.src);
	assert_int_equal(ip->hdr.dst_addr, r.key.v4.dst);
	assert_int_equal(ip->hdr.next_proto_id, 6);
	assert_int_equal(ipm->hdr.src_addr, 0xffffffff);
	assert_int_equal(ipm->hdr.dst_addr, 0xffffffff);
	assert_int_equal(ipm->hdr.next_proto_id, 0xff);
	assert_int_equal(ipm->hdr.fragment_offset, htons(0x3fff));
	assert_int_equal(ip->hdr.fragment_offset, 0);
	assert_int_equal(ipm->hdr.type_of_service, 0);
	assert_int_equal(ipm->hdr.time_to_live, 0);
	assert_int_equal(s.pattern[2].type, RTE_FLOW_ITEM_TYPE_TCP);
	tcp = s.pattern[2].spec;
	tcpm = s.pattern[2].mask;
	assert_int_equal(tcp->hdr.src_port, htons(1234));
	assert_int_equal(tcp->hdr.dst_port, htons(80));
	assert_int_equal(tcpm->hdr.src_port, 0xffff);
	assert_int_equal(tcpm->hdr.dst_port, 0xffff);
	assert_int_equal(tcpm->hdr.tcp_flags, 0);
	assert_null(s.pattern[2].last);
	assert_int_equal(s.pattern[3].type, RTE_FLOW_ITEM_TYPE_END);
	assert_int_equal(s.actions[0].type, RTE_FLOW_ACTION_TYPE_MARK);
	assert_int_equal(((const struct rte_flow_action_mark *)s.actions[0].conf)->id, 0x05000007);
	assert_int_equal(s.actions[1].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	assert_int_equal(((const struct rte_flow_action_queue *)s.actions[1].conf)->index, 0);
	assert_int_equal(s.actions[2].type, RTE_FLOW_ACTION_TYPE_END);
}

static void
test_translate_v6_udp_drop(void **state)
{
	struct ofl_flow_req r = {0};
	struct ofl_flow_spec s;
	const struct rte_flow_item_ipv6 *ip, *ipm;
	const struct rte_flow_item_udp *udp, *udpm;
	const struct rte_flow_item_eth *eth;
	uint8_t ones[16];

	(void)state;
	memset(ones, 0xff, sizeof(ones));
	r.key = key6(17, "2001:db8::1", 5353, "2001:db8::2", 53);
	r.verdict = FC_VERDICT_DROP;
	r.count = true;
	r.age = true;
	r.age_timeout = 30;
	assert_int_equal(ofl_flow_translate(&r, &s), 0);
	eth = s.pattern[0].spec;
	assert_int_equal(eth->hdr.ether_type, htons(0x86dd));
	assert_int_equal(s.pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV6);
	ip = s.pattern[1].spec;
	ipm = s.pattern[1].mask;
	assert_memory_equal(ip->hdr.src_addr, r.key.v6.src, 16);
	assert_memory_equal(ip->hdr.dst_addr, r.key.v6.dst, 16);
	assert_memory_equal(ipm->hdr.src_addr, ones, 16);
	assert_memory_equal(ipm->hdr.dst_addr, ones, 16);
	assert_int_equal(ip->hdr.proto, 17);
	assert_int_equal(ipm->hdr.proto, 0xff);
	assert_int_equal(ipm->hdr.vtc_flow, 0);
	assert_int_equal(ipm->hdr.payload_len, 0);
	assert_int_equal(s.pattern[2].type, RTE_FLOW_ITEM_TYPE_UDP);
	udp = s.pattern[2].spec;
	udpm = s.pattern[2].mask;
	assert_int_equal(udp->hdr.src_port, htons(5353));
	assert_int_equal(udp->hdr.dst_port, htons(53));
	assert_int_equal(udpm->hdr.src_port, 0xffff);
	assert_int_equal(udpm->hdr.dgram_len, 0);
	assert_int_equal(s.pattern[3].type, RTE_FLOW_ITEM_TYPE_END);
	assert_int_equal(s.actions[0].type, RTE_FLOW_ACTION_TYPE_DROP);
	assert_int_equal(s.actions[1].type, RTE_FLOW_ACTION_TYPE_COUNT);
	assert_int_equal(s.actions[2].type, RTE_FLOW_ACTION_TYPE_AGE);
	assert_int_equal(((const struct rte_flow_action_age *)s.actions[2].conf)->timeout, 30);
	assert_int_equal(s.actions[3].type, RTE_FLOW_ACTION_TYPE_END);
}

static void
test_translate_bad(void **state)
{
	struct ofl_flow_req r = {0};
	struct ofl_flow_spec s;

	(void)state;
	r.key = key4(1, "10.0.0.1", 0, "10.0.0.2", 0);
	r.verdict = FC_VERDICT_ACCEPT;
	assert_int_equal(ofl_flow_translate(&r, &s), -ENOTSUP); /* ICMP */
	r.key = key4(132, "10.0.0.1", 1, "10.0.0.2", 2);
	assert_int_equal(ofl_flow_translate(&r, &s), 0);
	assert_int_equal(s.pattern[2].type, RTE_FLOW_ITEM_TYPE_SCTP);
	r.verdict = FC_VERDICT_SLOW;
	assert_int_equal(ofl_flow_translate(&r, &s), -EINVAL);
	r.verdict = FC_VERDICT_ACCEPT;
	r.key.family = 0;
	assert_int_equal(ofl_flow_translate(&r, &s), -EINVAL);
	assert_int_equal(ofl_flow_translate(NULL, &s), -EINVAL);
	assert_int_equal(ofl_flow_translate(&r, NULL), -EINVAL);
}

/* ------------------------------------------------------------------------ */
/* swnic: the rte_flow subset                                                */
/* ------------------------------------------------------------------------ */

static void
test_swnic_validate_accepts(void **state)
{
	struct ring_port rp;
	struct ofl_port *op;
	static const uint8_t protos[] = {6, 17, 132};
	char caps[128];

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	assert_int_equal(op->caps[0], OFL_CAP_MARK | OFL_CAP_DROP | OFL_CAP_COUNT | OFL_CAP_AGE);
	assert_int_equal(op->caps[1], OFL_CAP_MARK | OFL_CAP_DROP | OFL_CAP_COUNT | OFL_CAP_AGE);
	assert_true(ofl_port_caps_format(op, caps, sizeof(caps)) > 0);
	assert_string_equal(caps, "ipv4 mark,drop,count,age; ipv6 mark,drop,count,age");
	for (unsigned int f = 0; f < 2; f++) {
		for (unsigned int p = 0; p < RTE_DIM(protos); p++) {
			for (unsigned int v = 0; v < 2; v++) {
				struct ofl_flow_req r = {0};
				struct ofl_flow_spec s;
				struct rte_flow_error err;

				r.key = f ? key6(protos[p], "2001:db8::1", 1, "2001:db8::2", 2) :
					    key4(protos[p], "10.0.0.1", 1, "10.0.0.2", 2);
				r.verdict = v ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT;
				r.count = true;
				r.age = v;
				r.age_timeout = 5;
				r.mark = 0xff123456;
				assert_int_equal(ofl_flow_translate(&r, &s), 0);
				assert_int_equal(ofl_port_rule_validate(op, &s, &err), 0);
			}
		}
	}
	ofl_port_free(op);
	ring_port_free(&rp);
}

/* One refusal case: mutate a valid MARK+QUEUE IPv4 TCP rule. */
struct refusal {
	const char *what;
	void (*mutate)(struct ofl_flow_spec *s, void *scratch);
	int rc;
	enum rte_flow_error_type type;
};

static void m_group(struct ofl_flow_spec *s, void *x) { (void)x; s->attr.group = 1; }
static void m_prio(struct ofl_flow_spec *s, void *x) { (void)x; s->attr.priority = 3; }
static void m_egress(struct ofl_flow_spec *s, void *x) { (void)x; s->attr.ingress = 0; s->attr.egress = 1; }
static void m_transfer(struct ofl_flow_spec *s, void *x) { (void)x; s->attr.transfer = 1; }
static void m_partial_src(struct ofl_flow_spec *s, void *x)
{
	(void)x;
	s->ip_mask.v4.hdr.src_addr = htonl(0xffffff00);
}
static void m_tos(struct ofl_flow_spec *s, void *x) { (void)x; s->ip_mask.v4.hdr.type_of_service = 0xfc; }
static void m_range(struct ofl_flow_spec *s, void *x)
{
	struct rte_flow_item_tcp *last = x;

	*last = s->l4_spec.tcp;
	last->hdr.dst_port = htons(90);
	s->pattern[2].last = last;
}
static void m_partial_port(struct ofl_flow_spec *s, void *x)
{
	(void)x;
	s->l4_mask.tcp.hdr.dst_port = htons(0xff00);
}
static void m_tcp_flags(struct ofl_flow_spec *s, void *x) { (void)x; s->l4_mask.tcp.hdr.tcp_flags = 0x02; }
static void m_eth_mac(struct ofl_flow_spec *s, void *x)
{
	(void)x;
	memset(&s->eth_mask.hdr.dst_addr, 0xff, 6);
}
static void m_vlan(struct ofl_flow_spec *s, void *x)
{
	(void)x;
	s->pattern[1].type = RTE_FLOW_ITEM_TYPE_VLAN;
}
static void m_no_l4(struct ofl_flow_spec *s, void *x) { (void)x; s->pattern[2].type = RTE_FLOW_ITEM_TYPE_END; }
static void m_wild_ip(struct ofl_flow_spec *s, void *x) { (void)x; s->pattern[1].spec = NULL; s->pattern[1].mask = NULL; }
/* RSS over queues 0 and 1 of a one-queue port (scratch holds the conf). */
static void m_rss(struct ofl_flow_spec *s, void *x)
{
	static const uint16_t q[2] = {0, 1};
	struct rte_flow_action_rss *rss = x;

	memset(rss, 0, sizeof(*rss));
	rss->queue = q;
	rss->queue_num = 2;
	s->actions[1].type = RTE_FLOW_ACTION_TYPE_RSS;
	s->actions[1].conf = rss;
}
static void m_queue1(struct ofl_flow_spec *s, void *x) { (void)x; s->queue.index = 1; }
static void m_no_fate(struct ofl_flow_spec *s, void *x) { (void)x; s->actions[1].type = RTE_FLOW_ACTION_TYPE_END; }
static void m_mark_drop(struct ofl_flow_spec *s, void *x) { (void)x; s->actions[1].type = RTE_FLOW_ACTION_TYPE_DROP; s->actions[1].conf = NULL; }
static void m_proto_clash(struct ofl_flow_spec *s, void *x) { (void)x; s->ip_spec.v4.hdr.next_proto_id = 17; }

static void
test_swnic_validate_refuses(void **state)
{
	static struct rte_flow_action_rss scratch[2];
	static const struct refusal cases[] = {
		{"group", m_group, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP},
		{"priority", m_prio, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY},
		{"egress", m_egress, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS},
		{"transfer", m_transfer, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER},
		{"partial src mask", m_partial_src, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK},
		{"tos", m_tos, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK},
		{"port range", m_range, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST},
		{"partial port mask", m_partial_port, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK},
		{"tcp flags", m_tcp_flags, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK},
		{"eth mac", m_eth_mac, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK},
		{"vlan item", m_vlan, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM},
		{"no l4", m_no_l4, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM},
		{"wildcard ip", m_wild_ip, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_SPEC},
		{"rss to a missing queue", m_rss, -EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF},
		{"queue 1", m_queue1, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF},
		{"no fate", m_no_fate, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_NUM},
		{"mark+drop", m_mark_drop, -ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION},
		{"proto clash", m_proto_clash, -EINVAL, RTE_FLOW_ERROR_TYPE_ITEM},
	};
	struct ring_port rp;
	struct ofl_port *op;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	for (unsigned int i = 0; i < RTE_DIM(cases); i++) {
		struct ofl_flow_req r = {0};
		struct ofl_flow_spec s;
		struct rte_flow_error err;
		int rc;

		r.key = key4(6, "10.0.0.1", 1234, "10.0.0.2", 80);
		r.verdict = FC_VERDICT_ACCEPT;
		r.mark = 1;
		assert_int_equal(ofl_flow_translate(&r, &s), 0);
		cases[i].mutate(&s, scratch);
		memset(&err, 0, sizeof(err));
		rc = ofl_port_rule_validate(op, &s, &err);
		if (rc != cases[i].rc || err.type != cases[i].type)
			fail_msg("%s: rc %d type %d (want %d, %d): %s", cases[i].what, rc, err.type,
				cases[i].rc, cases[i].type, err.message ? err.message : "");
		assert_non_null(err.message);
		/* create refuses the same way and installs nothing */
		assert_null(ofl_port_rule_create(op, &s, &err));
	}
	assert_int_equal(op->rules, 0);
	ofl_port_free(op);
	ring_port_free(&rp);
}

static void
test_swnic_table_full(void **state)
{
	struct ring_port rp;
	struct ofl_port *op;
	void *rules[5];
	struct ofl_port_stats st;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 4);
	for (unsigned int i = 0; i < 5; i++) {
		struct ofl_flow_req r = {0};
		struct ofl_flow_spec s;
		struct rte_flow_error err;

		r.key = key4(17, "10.0.0.1", (uint16_t)(1000 + i), "10.0.0.2", 53);
		r.verdict = FC_VERDICT_DROP;
		assert_int_equal(ofl_flow_translate(&r, &s), 0);
		memset(&err, 0, sizeof(err));
		rules[i] = ofl_port_rule_create(op, &s, &err);
		if (i < 4) {
			assert_non_null(rules[i]);
		} else {
			assert_null(rules[i]);
			assert_int_equal(rte_errno, ENOSPC);
			assert_int_equal(err.type, RTE_FLOW_ERROR_TYPE_HANDLE);
			/* a free slot makes room again */
			assert_int_equal(ofl_port_rule_destroy(op, rules[0], &err), 0);
			rules[i] = ofl_port_rule_create(op, &s, &err);
			assert_non_null(rules[i]);
			/* the same pattern twice is refused */
			assert_null(ofl_port_rule_create(op, &s, &err));
			assert_int_equal(rte_errno, EEXIST);
		}
	}
	assert_int_equal(ofl_port_stats_get(op, &st), 0);
	assert_int_equal(st.rules, 4);
	assert_int_equal(st.capacity, 4);
	assert_int_equal(st.create_failed, 2);
	ofl_port_free(op);
	ring_port_free(&rp);
}

/* ------------------------------------------------------------------------ */
/* swnic: the RX callback                                                    */
/* ------------------------------------------------------------------------ */

static void *
install(struct ofl_port *op, const struct fc_key *k, uint8_t verdict, uint32_t mark, bool count)
{
	struct ofl_flow_req r = {0};
	struct ofl_flow_spec s;
	struct rte_flow_error err;
	void *h;

	r.key = *k;
	r.verdict = verdict;
	r.mark = mark;
	r.count = count;
	assert_int_equal(ofl_flow_translate(&r, &s), 0);
	h = ofl_port_rule_create(op, &s, &err);
	assert_non_null(h);
	return h;
}

static void
test_swnic_rx(void **state)
{
	struct ring_port rp;
	struct ofl_port *op;
	struct fc_key km = key4(6, "10.0.0.1", 1234, "10.0.0.2", 80);
	struct fc_key kd = key6(17, "2001:db8::1", 5000, "2001:db8::2", 53);
	struct fc_key kc = key4(132, "10.0.0.3", 7, "10.0.0.4", 8);
	struct fc_key kn = key4(6, "10.0.0.1", 1235, "10.0.0.2", 80);
	struct rte_mbuf *in[6], *out[32];
	struct ofl_port_stats st;
	struct ofl_count c;
	struct rte_flow_error err;
	void *hd, *hc;
	uint32_t mark;
	uint16_t n;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	install(op, &km, FC_VERDICT_ACCEPT, 0x01000005, false);
	hd = install(op, &kd, FC_VERDICT_DROP, 0, true);
	hc = install(op, &kc, FC_VERDICT_ACCEPT, 0x02000009, true);

	in[0] = frame(&km, false);
	in[1] = frame(&kd, false);
	in[2] = frame(&kn, false);
	in[3] = frame(&kd, false);
	in[4] = frame(&kc, false);
	in[5] = frame(&km, true); /* a first fragment: the rule says "not a fragment" */
	n = rx(&rp, in, 6, out);
	assert_int_equal(n, 4); /* two DROPs freed inside rx_burst */
	assert_ptr_equal(out[0], in[0]);
	assert_true(dp_mbuf_mark(out[0], &mark));
	assert_int_equal(mark, 0x01000005);
	assert_true(out[0]->ol_flags & RTE_MBUF_F_RX_FDIR);
	assert_ptr_equal(out[1], in[2]);
	assert_false(dp_mbuf_mark(out[1], &mark)); /* stale bits cleared */
	assert_ptr_equal(out[2], in[4]);
	assert_true(dp_mbuf_mark(out[2], &mark));
	assert_int_equal(mark, 0x02000009);
	assert_ptr_equal(out[3], in[5]);
	assert_false(dp_mbuf_mark(out[3], &mark));

	assert_int_equal(ofl_port_stats_get(op, &st), 0);
	assert_int_equal(st.hw_matched, 4);
	assert_int_equal(st.hw_marked, 2);
	assert_int_equal(st.hw_dropped, 2);
	assert_int_equal(st.hw_dropped_bytes, 2 * in[1]->pkt_len);
	assert_int_equal(op->ops->query_count(op->be, hd, &c, &err), 0);
	assert_int_equal(c.packets, 2);
	assert_int_equal(op->ops->query_count(op->be, hc, &c, &err), 0);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.bytes, out[2]->pkt_len);
	rte_pktmbuf_free_bulk(out, n);
	/* every mbuf came back: two freed by the "NIC", four by us */
	assert_int_equal(rte_mempool_in_use_count(pool), 0);

	/* after destroy the drop flow passes */
	assert_int_equal(ofl_port_rule_destroy(op, hd, &err), 0);
	in[0] = frame(&kd, false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	rte_pktmbuf_free(out[0]);
	ofl_port_free(op);
	ring_port_free(&rp);
}

/*
 * A port with two RX queues: MARK rules carry the port's RSS action
 * (probe included), so a marked flow stays on the queue RSS gave it; the
 * model refuses an RSS action naming a queue the port does not have.
 */
static void
test_swnic_rss(void **state)
{
	struct rte_ring *rxr[2], *txr[2];
	struct rte_eth_conf conf;
	struct ofl_port *op;
	struct fc_key km = key4(17, "10.0.0.1", 1234, "10.0.0.2", 53);
	struct ofl_flow_req r = {0};
	struct ofl_flow_spec sp;
	struct rte_flow_action_rss bad;
	struct rte_flow_error err;
	struct rte_mbuf *in[1], *out[8];
	uint16_t qs[2] = {0, 7}, id;
	uint32_t mark;
	char name[32];
	int rc;
	void *h;

	(void)state;
	for (int q = 0; q < 2; q++) {
		snprintf(name, sizeof(name), "ofl_rss_rx%d_%d", seq, q);
		rxr[q] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ofl_rss_tx%d_%d", seq, q);
		txr[q] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(rxr[q]);
		assert_non_null(txr[q]);
	}
	snprintf(name, sizeof(name), "net_oflrss%d", seq++);
	rc = rte_eth_from_rings(name, rxr, 2, txr, 2, SOCKET_ID_ANY);
	assert_true(rc >= 0);
	id = (uint16_t)rc;
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(id, 2, 2, &conf), 0);
	for (uint16_t q = 0; q < 2; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(id, q, 64, SOCKET_ID_ANY, NULL, pool), 0);
		assert_int_equal(rte_eth_tx_queue_setup(id, q, 64, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(id), 0);
	{
		struct ofl_port_params pp = {.backend = OFL_BACKEND_SWNIC, .swnic_size = 8,
			.socket_id = SOCKET_ID_ANY};

		op = ofl_port_create(id, &pp);
	}
	assert_non_null(op);
	assert_int_equal(op->n_rxq, 2);
	assert_true(op->caps[0] & OFL_CAP_MARK); /* the probe went with RSS */

	r.key = km;
	r.verdict = FC_VERDICT_ACCEPT;
	r.mark = 0x01000003;
	ofl_port_req(op, &r);
	assert_non_null(r.rss);
	assert_int_equal(ofl_flow_translate(&r, &sp), 0);
	assert_int_equal(sp.actions[1].type, RTE_FLOW_ACTION_TYPE_RSS);
	assert_int_equal(((const struct rte_flow_action_rss *)sp.actions[1].conf)->queue_num, 2);
	h = ofl_port_rule_create(op, &sp, &err);
	assert_non_null(h);

	/* The flow arrives on queue 1 (where RSS put it): marked, still there. */
	in[0] = frame(&km, false);
	assert_int_equal(rte_ring_enqueue_burst(rxr[1], (void **)in, 1, NULL), 1);
	assert_int_equal(rte_eth_rx_burst(id, 1, out, 8), 1);
	assert_true(dp_mbuf_mark(out[0], &mark));
	assert_int_equal(mark, 0x01000003);
	rte_pktmbuf_free(out[0]);

	/* RSS over a queue the port does not have: refused. */
	bad = *r.rss;
	bad.queue = qs;
	bad.queue_num = 2;
	r.rss = &bad;
	r.key.v4.sport = 99;
	assert_int_equal(ofl_flow_translate(&r, &sp), 0);
	assert_true(ofl_port_rule_validate(op, &sp, &err) < 0);

	assert_int_equal(ofl_port_rule_destroy(op, h, &err), 0);
	ofl_port_free(op);
	rte_eth_dev_stop(id);
	rte_eth_dev_close(id);
	for (int q = 0; q < 2; q++) {
		rte_ring_free(rxr[q]);
		rte_ring_free(txr[q]);
	}
}

/* ------------------------------------------------------------------------ */
/* Policy                                                                    */
/* ------------------------------------------------------------------------ */

static struct ofl_policy *
mk_policy(struct rule_engine *eng, struct ofl_port **op, uint32_t max, uint32_t pps)
{
	struct ofl_policy_params pp;
	struct ofl_policy *pol;

	memset(&pp, 0, sizeof(pp));
	pp.eng = eng;
	pp.ports = op;
	pp.n_ports = 1;
	pp.max_flows = max;
	pp.pps_threshold = pps;
	pp.interval_ms = 100;
	pol = ofl_policy_create(&pp);
	assert_non_null(pol);
	return pol;
}

static void
test_policy_heavy_hitters(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct ring_port rp;
	struct ofl_port *op;
	struct ofl_policy *pol;
	struct ofl_policy_stats st;
	struct fc_key k[6];
	struct rte_mbuf *in[1], *out[32];
	struct fc_action a;
	unsigned int fam;
	uint32_t idx = 0, mark = 0, mark0;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 64);
	pol = mk_policy(eng, &op, 2, 1000);
	for (unsigned int i = 0; i < 6; i++) {
		k[i] = i < 5 ? key4(6, "10.0.0.1", (uint16_t)(2000 + i), "10.0.0.2", 80) :
			       key4(1, "10.0.0.1", 0, "10.0.0.2", 0); /* ICMP: not offloadable */
		fc_key_set_in_port(&k[i], rp.id); /* received there: its rule goes there */
		assert_int_equal(flow(eng, &k[i], 10), FC_VERDICT_ACCEPT);
	}
	/* First visit: baseline. */
	assert_int_equal(ofl_policy_scan(pol, 10, 4096), 6);
	/* One second later: flows 0-2 and the ICMP flow at 1500 pps, 3 at 999, 4 at 0. */
	for (unsigned int i = 0; i < 3; i++)
		hits(eng, &k[i], 1500, 500);
	hits(eng, &k[3], 999, 500);
	hits(eng, &k[5], 1500, 500);
	assert_int_equal(ofl_policy_scan(pol, 1010, 4096), 6);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.candidates, 3);
	assert_int_equal(st.capped, 1); /* max_flows 2 */
	assert_int_equal(st.queued, 2);
	assert_int_equal(st.offloaded, 0); /* queued, not executed: nothing in the NIC yet */
	assert_int_equal(op->rules, 0);
	assert_int_equal(ofl_policy_execute(pol, 16), 2);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.offloaded, 2);
	assert_int_equal(st.in_hw, 2);
	assert_int_equal(op->rules, 2);
	assert_true(ofl_policy_in_hw(pol, &k[0]));
	assert_true(ofl_policy_in_hw(pol, &k[1]));
	assert_false(ofl_policy_in_hw(pol, &k[2]));
	assert_false(ofl_policy_in_hw(pol, &k[3]));
	assert_false(ofl_policy_in_hw(pol, &k[5]));

	/* A packet of flow 0 comes marked; the mark names its live entry. */
	in[0] = frame(&k[0], false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	assert_true(dp_mbuf_mark(out[0], &mark));
	assert_true(dp_mark_check(ofl_policy_marks(pol), mark, &fam, &idx));
	assert_int_equal(fam, 0);
	assert_int_equal(idx, entry_idx(eng, &k[0]));
	assert_true(fc_table_entry_read(rule_engine_table(eng, FC_AF_INET4), idx, &a));
	assert_int_equal(a.verdict, FC_VERDICT_ACCEPT);
	rte_pktmbuf_free(out[0]);
	mark0 = mark;
	/* A forged mark (other tag, other index, other table) does not. */
	assert_false(dp_mark_check(ofl_policy_marks(pol), mark ^ (1u << 24), &fam, &idx));
	assert_false(dp_mark_check(ofl_policy_marks(pol), mark | DP_MARK_IDX_MASK, &fam, &idx));
	assert_false(dp_mark_check(ofl_policy_marks(pol), mark | DP_MARK_V6, &fam, &idx));
	assert_false(dp_mark_check(ofl_policy_marks(pol), 0, &fam, &idx));

	/* Flow 0 goes (aging): its mark dies at once, its rule when the queue runs. */
	hits(eng, &k[1], 1, 200000);
	rule_engine_step(eng, 100000, 1024);
	assert_false(ofl_policy_in_hw(pol, &k[0]));
	in[0] = frame(&k[0], false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	assert_true(dp_mbuf_mark(out[0], &mark)); /* the NIC still marks ... */
	assert_false(dp_mark_check(ofl_policy_marks(pol), mark, &fam, &idx)); /* ... in vain */
	rte_pktmbuf_free(out[0]);
	ofl_policy_execute(pol, 16);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_true(st.removed_gone >= 1);
	assert_int_equal(st.removed, st.removed_gone);
	in[0] = frame(&k[0], false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	assert_false(dp_mbuf_mark(out[0], &mark)); /* rule destroyed */
	rte_pktmbuf_free(out[0]);

	/* The same flow again, at the same index: offloaded with another tag. */
	assert_int_equal(flow(eng, &k[0], 100001), FC_VERDICT_ACCEPT);
	if (entry_idx(eng, &k[0]) == (mark0 & DP_MARK_IDX_MASK) && !ofl_policy_in_hw(pol, &k[0]) &&
		ofl_policy_offload(pol, &k[0]) == 0) {
		in[0] = frame(&k[0], false);
		assert_int_equal(rx(&rp, in, 1, out), 1);
		assert_true(dp_mbuf_mark(out[0], &mark));
		assert_int_not_equal(mark, mark0);
		assert_true(dp_mark_check(ofl_policy_marks(pol), mark, &fam, &idx));
		assert_false(dp_mark_check(ofl_policy_marks(pol), mark0, &fam, &idx));
		rte_pktmbuf_free(out[0]);
	}
	eng_stack_free(eng);
	ofl_policy_free(pol);
	assert_int_equal(op->rules, 0);
	ofl_port_free(op);
	ring_port_free(&rp);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_policy_full_fallback(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct ring_port rp;
	struct ofl_port *op;
	struct ofl_policy *pol;
	struct ofl_policy_stats st;
	struct fc_key k[3];

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 2); /* the NIC holds two rules; the policy would take 8 */
	pol = mk_policy(eng, &op, 8, 1000);
	for (unsigned int i = 0; i < 3; i++) {
		k[i] = key4(17, "10.0.0.1", (uint16_t)(3000 + i), "10.0.0.9", 53);
		fc_key_set_in_port(&k[i], rp.id);
		assert_int_equal(flow(eng, &k[i], 10), FC_VERDICT_ACCEPT);
	}
	/* The same flow received on a port without offload: no port to put it in. */
	{
		struct fc_key other = k[0];

		fc_key_set_in_port(&other, (uint16_t)(rp.id + 1));
		assert_int_equal(flow(eng, &other, 10), FC_VERDICT_ACCEPT);
		assert_int_equal(ofl_policy_offload(pol, &other), -EINVAL);
		assert_false(ofl_policy_in_hw(pol, &other));
	}
	assert_int_equal(ofl_policy_offload(pol, &k[0]), 0);
	assert_int_equal(ofl_policy_offload(pol, &k[1]), 0);
	assert_int_equal(ofl_policy_offload(pol, &k[1]), -EEXIST);
	assert_int_equal(ofl_policy_offload(pol, &k[2]), -EIO);
	assert_false(ofl_policy_in_hw(pol, &k[2]));
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.offload_full, 1);
	assert_int_equal(st.offload_refused, 0);
	assert_int_equal(st.offloaded, 2);
	assert_int_equal(st.in_hw, 2);
	/* Not retried by scans while the entry lives, however hot. */
	ofl_policy_scan(pol, 10, 4096);
	for (unsigned int i = 0; i < 3; i++)
		hits(eng, &k[i], 5000, 20);
	ofl_policy_scan(pol, 1010, 4096);
	ofl_policy_execute(pol, 16);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.offload_full, 1);
	assert_int_equal(st.in_hw, 2);
	/* A flow gone cold leaves (threshold / 2, hysteresis). */
	hits(eng, &k[0], 5000, 1500);
	hits(eng, &k[1], 100, 1500);
	ofl_policy_scan(pol, 2010, 4096);
	ofl_policy_execute(pol, 16);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.removed_cold, 1);
	assert_false(ofl_policy_in_hw(pol, &k[1]));
	/* Removal by API frees NIC room. */
	assert_int_equal(ofl_policy_remove(pol, &k[0]), 0);
	assert_int_equal(ofl_policy_remove(pol, &k[0]), -ENOENT);
	assert_int_equal(op->rules, 0);
	eng_stack_free(eng);
	ofl_policy_free(pol);
	ofl_port_free(op);
	ring_port_free(&rp);
}

/*
 * A connection's reply entry in hardware moves to the port its first reply
 * came on (engine.h "Input ports"): the policy takes the old index out of
 * hardware at once (its mark dies), as for an entry that went.
 */
static void
test_policy_moved_entry(void **state)
{
	struct rule_engine *eng;
	struct ring_port rp;
	struct ofl_port *op;
	struct ofl_policy *pol;
	struct ofl_policy_stats st;
	struct fc_key fwd = key4(17, "10.0.0.1", 5000, "10.0.0.2", 53), rep, moved;
	struct rule_upcall u;
	struct rule_decision d;
	struct rte_mbuf *in[1], *out[32];
	uint32_t mark = 0, idx = 0;
	unsigned int fam;

	(void)state;
	eng = eng_stack_test_engine("oflmv", 256, 64, true, 0);
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	pol = mk_policy(eng, &op, 8, 1000);
	/* The query comes on the ring port, its reply is expected there (no pairing). */
	fc_key_set_in_port(&fwd, rp.id);
	assert_int_equal(flow(eng, &fwd, 10), FC_VERDICT_ACCEPT);
	fc_key_reverse(&fwd, &rep);
	assert_int_equal(ofl_policy_offload(pol, &rep), 0);
	assert_true(ofl_policy_in_hw(pol, &rep));
	in[0] = frame(&rep, false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	assert_true(dp_mbuf_mark(out[0], &mark));
	assert_true(dp_mark_check(ofl_policy_marks(pol), mark, &fam, &idx));
	rte_pktmbuf_free(out[0]);

	/* The first reply arrives on another port: the entry moves there. */
	moved = rep;
	fc_key_set_in_port(&moved, (uint16_t)(rp.id + 1));
	memset(&u, 0, sizeof(u));
	u.pkt.key = moved;
	u.in_port = (uint16_t)(rp.id + 1);
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	assert_int_equal(rule_engine_upcall_burst(eng, &u, 1, &d, 20), 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	entry_idx(eng, &moved); /* (asserts it is there) */
	assert_false(ofl_policy_in_hw(pol, &rep));
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	assert_int_equal(st.removed_gone, 1);
	/* Its old mark is dead at once, its rule gone once the queue runs. */
	in[0] = frame(&rep, false);
	assert_int_equal(rx(&rp, in, 1, out), 1);
	assert_true(dp_mbuf_mark(out[0], &mark)); /* the NIC still marks ... */
	assert_false(dp_mark_check(ofl_policy_marks(pol), mark, &fam, &idx)); /* ... in vain */
	rte_pktmbuf_free(out[0]);
	ofl_policy_execute(pol, 16);
	assert_int_equal(op->rules, 0);
	eng_stack_free(eng);
	ofl_policy_free(pol);
	ofl_port_free(op);
	ring_port_free(&rp);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/*
 * A helper's expectation (rule_engine_expect_note()) makes a new flow's
 * cached drop of the expected tuple stale: commit_sync takes its hardware
 * DROP out, so its next packet reaches software; another flow's stays.
 */
static void
test_expect_coherence(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct ring_port rp;
	struct ofl_port *op;
	struct ofl_policy *pol;
	struct fc_key kd = key4(6, "10.0.0.1", 4000, "10.0.0.2", 1025);
	struct fc_key ko = key4(6, "10.0.0.1", 4001, "10.0.0.2", 1026);
	struct fc_key exp = kd;
	uint32_t before;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	pol = mk_policy(eng, &op, 16, 1000);
	fc_key_set_in_port(&kd, rp.id);
	fc_key_set_in_port(&ko, rp.id);
	load(eng, "drop proto tcp\npolicy accept\n");
	assert_int_equal(flow(eng, &kd, 10), FC_VERDICT_DROP);
	assert_int_equal(flow(eng, &ko, 10), FC_VERDICT_DROP);
	assert_int_equal(ofl_policy_offload(pol, &kd), 0);
	assert_int_equal(ofl_policy_offload(pol, &ko), 0);
	assert_true(ofl_policy_in_hw(pol, &kd));
	/* Nothing expected: nothing leaves. */
	assert_int_equal(ofl_policy_commit_sync(pol), 0);
	/* Any source port, as a helper expects it. */
	fc_key_set_ports(&exp, 0, fc_key_dport(&kd));
	before = rule_engine_expect_count(eng);
	rule_engine_expect_note(eng, &exp);
	assert_int_not_equal(rule_engine_expect_count(eng), before);
	assert_int_equal(ofl_policy_commit_sync(pol), 1);
	assert_false(ofl_policy_in_hw(pol, &kd));
	assert_true(ofl_policy_in_hw(pol, &ko));
	eng_stack_free(eng);
	ofl_policy_free(pol);
	ofl_port_free(op);
	ring_port_free(&rp);
}

static void
test_commit_coherence(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct ring_port rp;
	struct ofl_port *op;
	struct ofl_policy *pol;
	struct ofl_policy_stats st;
	struct ofl_port_stats ps;
	struct fc_key kd = key4(17, "10.0.0.1", 4000, "10.0.0.2", 53);
	struct fc_key ko = key4(17, "10.0.0.1", 4001, "10.0.0.2", 54);
	struct rte_mbuf *in[2], *out[32];
	struct rule_set *s;
	uint64_t t0, t1;
	unsigned int removed;

	(void)state;
	ring_port_create(&rp);
	op = swnic(&rp, 16);
	pol = mk_policy(eng, &op, 16, 1000);
	fc_key_set_in_port(&kd, rp.id);
	fc_key_set_in_port(&ko, rp.id);
	load(eng, "drop proto udp dport 53\ndrop proto udp dport 54\npolicy accept\n");
	assert_int_equal(flow(eng, &kd, 10), FC_VERDICT_DROP);
	assert_int_equal(flow(eng, &ko, 10), FC_VERDICT_DROP);
	assert_int_equal(ofl_policy_offload(pol, &kd), 0);
	assert_int_equal(ofl_policy_offload(pol, &ko), 0);
	in[0] = frame(&kd, false);
	in[1] = frame(&ko, false);
	assert_int_equal(rx(&rp, in, 2, out), 0); /* both dropped by the "NIC" */

	/* The commit deletes the rule dropping port 53; the rule for 54 stays. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_set_rule_del_id(s, 1), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	t0 = rte_rdtsc_precise();
	removed = ofl_policy_commit_sync(pol);
	t1 = rte_rdtsc_precise();
	print_message("commit_sync: %u of 2 DROP rules removed in %.2f us\n", removed,
		(double)(t1 - t0) * 1e6 / (double)rte_get_tsc_hz());
	assert_false(ofl_policy_in_hw(pol, &kd));
	in[0] = frame(&kd, false);
	in[1] = frame(&ko, false);
	assert_int_equal(rx(&rp, in, 2, out), 1); /* the next packet of 53 is not dropped */
	assert_ptr_equal(out[0], in[0]);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(ofl_port_stats_get(op, &ps), 0);
	assert_int_equal(ps.hw_dropped, 3);
	assert_int_equal(ofl_policy_stats_get(pol, &st), 0);
	/* Only the flow the commit changed left the NIC. */
	assert_int_equal(removed, 1);
	assert_int_equal(st.removed_commit, 1);
	assert_true(ofl_policy_in_hw(pol, &ko));
	eng_stack_free(eng);
	ofl_policy_free(pol);
	ofl_port_free(op);
	ring_port_free(&rp);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_translate_v4_tcp),
		cmocka_unit_test(test_translate_v6_udp_drop),
		cmocka_unit_test(test_translate_bad),
		cmocka_unit_test(test_swnic_validate_accepts),
		cmocka_unit_test(test_swnic_validate_refuses),
		cmocka_unit_test(test_swnic_table_full),
		cmocka_unit_test(test_swnic_rx),
		cmocka_unit_test(test_swnic_rss),
		cmocka_unit_test(test_policy_heavy_hitters),
		cmocka_unit_test(test_policy_full_fallback),
		cmocka_unit_test(test_policy_moved_entry),
		cmocka_unit_test(test_commit_coherence),
		cmocka_unit_test(test_expect_coherence),
	};

	return GUFC_TEST_POOL_MAIN("offload", "0", &pool, 1023, 0, tests);
}
