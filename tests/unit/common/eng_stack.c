/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine stack of eng_stack.h: stacks are kept in a list keyed by
 * their engine (tests are single-threaded when they build and free them);
 * the tests' usual engine, their upcalls; rule sets from native text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_memory.h>

#include "classifier.h"
#include "eng_stack.h"
#include "rule_lang.h"

struct eng_stack {
	struct eng_stack *next;
	struct rule_engine *eng;
	struct mod_ct_module *ct;
	struct mod_nat_module *nat;
	struct mod_route *route;
};

static struct eng_stack *stacks;

static struct eng_stack *
find(const struct rule_engine *eng)
{
	for (struct eng_stack *s = stacks; s != NULL; s = s->next)
		if (s->eng == eng)
			return s;
	return NULL;
}

static void
stack_free(struct eng_stack *s)
{
	rule_engine_free(s->eng);
	mod_route_module_free(s->route);
	mod_nat_module_free(s->nat);
	mod_ct_module_free(s->ct);
	free(s);
}

struct rule_engine *
eng_stack_create(const struct eng_stack_params *p)
{
	struct eng_stack *s = calloc(1, sizeof(*s));
	struct mod_route_params rp;
	int err;

	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->eng = rule_engine_create(&p->eng);
	if (s->eng == NULL)
		goto fail;
	if (p->conntrack) {
		struct mod_ct_module_params cp;

		memset(&cp, 0, sizeof(cp));
		cp.cfg = p->ct;
		s->ct = mod_ct_module_create(s->eng, &cp);
		if (s->ct == NULL)
			goto fail;
	}
	if (p->nat_bindings != 0) {
		struct mod_nat_module_params np;

		memset(&np, 0, sizeof(np));
		np.max_bindings = p->nat_bindings;
		np.seed = p->nat_seed;
		np.locals = p->locals;
		np.port_addr_fn = p->port_addr_fn;
		np.cb_arg = p->nat_arg;
		s->nat = mod_nat_module_create(s->eng, &np);
		if (s->nat == NULL)
			goto fail;
	}
	memset(&rp, 0, sizeof(rp));
	rp.name = p->eng.name;
	rp.max_routes_v4 = p->max_routes_v4;
	rp.max_routes_v6 = p->max_routes_v6;
	rp.socket_id = p->eng.socket_id;
	s->route = mod_route_module_create(s->eng, &rp);
	if (s->route == NULL)
		goto fail;
	s->next = stacks;
	stacks = s;
	return s->eng;
fail:
	err = rte_errno;
	stack_free(s);
	rte_errno = err;
	return NULL;
}

void
eng_stack_free(struct rule_engine *eng)
{
	for (struct eng_stack **pp = &stacks; *pp != NULL; pp = &(*pp)->next) {
		struct eng_stack *s = *pp;

		if (s->eng == eng) {
			*pp = s->next;
			stack_free(s);
			return;
		}
	}
	rule_engine_free(eng);
}

struct mod_ct_module *
eng_stack_ct(const struct rule_engine *eng)
{
	struct eng_stack *s = find(eng);

	return s != NULL ? s->ct : NULL;
}

struct mod_nat_module *
eng_stack_natm(const struct rule_engine *eng)
{
	struct eng_stack *s = find(eng);

	return s != NULL ? s->nat : NULL;
}

const struct mod_nat *
eng_stack_nat(const struct rule_engine *eng)
{
	return mod_nat_module_table(eng_stack_natm(eng));
}

struct mod_route *
eng_stack_route(const struct rule_engine *eng)
{
	struct eng_stack *s = find(eng);

	return s != NULL ? s->route : NULL;
}

int
eng_stack_cls_catch_up(struct rule_engine *eng)
{
	static unsigned int n;
	char name[16];
	uint32_t gen;
	struct rule_set *w = rule_engine_cls_wanted(eng, &gen);
	struct rule_cls *c;

	if (w == NULL)
		return -1;
	snprintf(name, sizeof(name), "tc%u", n++);
	c = rule_cls_build(w, name, SOCKET_ID_ANY);
	rule_set_free(w);
	if (c == NULL)
		return -1;
	return rule_engine_cls_ready(eng, c, gen) == 0 ? 0 : -1;
}

void
eng_stack_test_params(
	struct eng_stack_params *p, uint32_t cap_v4, uint32_t cap_v6, bool conntrack, uint32_t nat)
{
	memset(p, 0, sizeof(*p));
	p->eng.capacity_v4 = cap_v4;
	p->eng.capacity_v6 = cap_v6;
	p->eng.full_policy = FC_FULL_REFUSE;
	p->eng.default_channel = 1;
	p->conntrack = conntrack;
	p->nat_bindings = nat;
	p->nat_seed = 1;
}

struct rule_engine *
eng_stack_test_create(const struct eng_stack_params *p, const char *prefix)
{
	static unsigned int n;
	struct eng_stack_params q = *p;
	struct rule_engine *eng;
	char name[16];

	snprintf(name, sizeof(name), "%s%u", prefix, n++);
	q.eng.name = name;
	eng = eng_stack_create(&q);
	if (eng == NULL)
		fail_msg("engine %s: %s", name, rte_strerror(rte_errno));
	return eng;
}

int
eng_stack_pair01(void *arg, uint16_t port)
{
	(void)arg;
	return port < 2 ? port ^ 1 : -ENOENT;
}

struct rule_engine *
eng_stack_test_engine(
	const char *prefix, uint32_t cap_v4, uint32_t cap_v6, bool conntrack, uint32_t nat)
{
	struct eng_stack_params p;

	eng_stack_test_params(&p, cap_v4, cap_v6, conntrack, nat);
	return eng_stack_test_create(&p, prefix);
}

struct rule_upcall
eng_stack_up4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport,
	uint16_t in_port)
{
	struct rule_upcall u;

	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET4;
	if (inet_pton(AF_INET, src, &u.pkt.key.v4.src) != 1 ||
		inet_pton(AF_INET, dst, &u.pkt.key.v4.dst) != 1)
		fail_msg("not IPv4 addresses: %s, %s", src, dst);
	u.pkt.key.v4.sport = htons(sport);
	u.pkt.key.v4.dport = htons(dport);
	u.pkt.key.v4.proto = proto;
	u.pkt.key.v4.in_port = in_port; /* the key holds the input port */
	u.in_port = in_port;
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	return u;
}

struct rule_upcall
eng_stack_seg4(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t tf,
	uint32_t seq, uint32_t ack, uint16_t dlen)
{
	struct rule_upcall u;

	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET4;
	u.pkt.key.v4.src = htonl(src);
	u.pkt.key.v4.dst = htonl(dst);
	u.pkt.key.v4.sport = htons(sport);
	u.pkt.key.v4.dport = htons(dport);
	u.pkt.key.v4.proto = 6;
	u.pkt.tcp_flags = tf;
	u.pkt.tcp_opt = FC_TCP_OPT_PLAIN;
	u.pkt.tcp_win = 1000;
	u.pkt.tcp_seq = seq;
	u.pkt.tcp_ack = ack;
	u.pkt.tcp_dlen = dlen;
	u.pkt.ip_len = (uint16_t)(40 + dlen);
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	return u;
}

struct rule_set *
eng_stack_rules(const char *text, bool ports)
{
	static const char *const names[] = {"p0", "p1"};
	struct rule_error err;
	struct rule_set *s = rule_set_parse(text, "test", &err);

	if (s == NULL) {
		char buf[256];

		rule_error_format(&err, buf, sizeof(buf));
		fail_msg("%s", buf);
	}
	if (ports)
		assert_int_equal(rule_set_ports(s, 2, names), 0);
	return s;
}

void
eng_stack_load(struct rule_engine *eng, const char *text, bool ports)
{
	assert_int_equal(rule_engine_commit(eng, eng_stack_rules(text, ports)), 0);
}

struct rule_decision
eng_stack_decide(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	struct rule_decision d;

	assert_int_equal(rule_engine_upcall_burst(eng, &u, 1, &d, now), 1);
	return d;
}

/* Would the RX lcore send the hit of @p a up, for a reason of its interest? */
static bool
rx_wanted(struct rule_engine *eng, const struct rule_upcall *u, struct fc_table *t, uint32_t idx,
	const struct fc_action *a)
{
	struct mod_ct_module *ct = eng_stack_ct(eng);

	if (rule_engine_wants(a, &u->pkt) || a->verdict == FC_VERDICT_SLOW)
		return true;
	if ((a->mod[0] & RULE_ACT_M0_CLASSED) &&
		!rule_engine_class_ok(eng, a, &u->pkt, u->frame, u->frame_len, true))
		return true;
	/* A SYN of a window-checked entry: a reply entry's SYN/ACK the line may take. */
	if ((a->interest & FC_INTEREST_TCP_WIN) && (u->pkt.tcp_flags & 0x02))
		return ct == NULL || !(a->flags & FC_ACT_F_REPLY) ||
		       !mod_ct_fast_synack(mod_ct_fast_line_of(mod_ct_module_fast(ct), a), &u->pkt,
			       u->frame, u->frame_len);
	if ((a->interest & FC_INTEREST_TCP_WIN) &&
		(ct == NULL || !mod_ct_fast_check(mod_ct_module_fast(ct), a, &u->pkt)))
		return true;
	return (a->flags & FC_ACT_F_COUNT) &&
	       rule_engine_count_due(eng, t, u->pkt.key.family == FC_AF_INET6, idx, u->len);
}

struct rule_decision
eng_stack_rx(struct rule_engine *eng, struct rule_upcall u, uint32_t now, bool *slow)
{
	struct fc_table *t = rule_engine_table(eng, u.pkt.key.family);
	const void *keys[1] = {&u.pkt.key.v4};
	uint32_t sig = fc_table_hash(t, &u.pkt.key.v4), idx;
	struct fc_action a;
	struct rule_decision d;
	uint64_t hit;

	fc_table_lookup_bulk(t, 0, keys, &sig, 1, &hit, &a, &idx);
	if (!(hit & 1)) {
		u.reason = RULE_UPCALL_MISS;
	} else if (rule_engine_stale(eng, &a, &u.pkt.key)) {
		u.reason = RULE_UPCALL_STALE;
	} else if (rx_wanted(eng, &u, t, idx, &a)) {
		u.reason = RULE_UPCALL_INTEREST;
	} else {
		memset(&d, 0, sizeof(d));
		if (a.flags & FC_ACT_F_PKTACT) {
			const struct rule_pktprog *p = rule_engine_pktprog(eng, a.pkt_class);
			unsigned int list;

			assert_int_equal(p->pred, 0);
			d.verdict = rule_engine_pktprog_take(eng, &a, p, 0, u.pkt.ip_len, &list);
		} else {
			d.verdict = a.verdict;
		}
		d.rule_id = a.rule_id;
		d.channel = rule_engine_channel(eng, &a, u.pkt.key.family == FC_AF_INET6, idx);
		d.out_port = a.out_port;
		d.nat_slot = (a.flags & FC_ACT_F_NAT) ? a.nat_id : RULE_NAT_NONE;
		d.flags = RULE_DEC_F_CACHED;
		fc_table_touch(t, idx, u.len, now);
		if (slow != NULL)
			*slow = false;
		return d;
	}
	if (slow != NULL)
		*slow = true;
	return eng_stack_decide(eng, u, now);
}

const struct fc_entry *
eng_stack_entry_idx(struct rule_engine *eng, const struct fc_key *k, uint32_t *idx)
{
	struct fc_table *t = rule_engine_table(eng, k->family);
	int i = fc_table_lookup(t, &k->v4, fc_table_hash(t, &k->v4));

	if (i < 0)
		return NULL;
	if (idx != NULL)
		*idx = (uint32_t)i;
	return fc_table_entry(t, (uint32_t)i);
}

const struct fc_entry *
eng_stack_entry(struct rule_engine *eng, const struct fc_key *k)
{
	return eng_stack_entry_idx(eng, k, NULL);
}

struct rule_upcall
eng_stack_frame_upcall(const uint8_t *f, uint32_t len)
{
	struct rule_upcall u;

	memset(&u, 0, sizeof(u));
	assert_int_equal(fc_parse(f, len, &u.pkt), FC_PARSE_OK);
	u.frame = f;
	u.frame_len = len;
	u.len = len;
	u.reason = RULE_UPCALL_MISS;
	return u;
}

void
eng_stack_settle(struct rule_engine *eng, uint32_t now)
{
	struct rule_engine_stats st;
	unsigned int rounds = 0;

	do {
		rule_engine_step(eng, now, 64);
		rule_engine_stats_get(eng, &st);
		assert_true(++rounds < 1000);
	} while (st.pending != 0);
}
