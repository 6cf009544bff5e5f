/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule-commit coherence test (DESIGN.md "Rule updates without stale
 * verdicts"): random packets from a pool of tuples (so flows repeat), flow
 * inserts, random rule adds / deletes / replaces / policy changes and whole
 * reloads committed through rule_engine_commit(), the compiled classifier
 * rebuilt only now and then (and installed late), background revalidation
 * steps in between. The fast path is simulated as the app runs it:
 * fc_table_lookup_bulk(), then rule_engine_stale() on hits, then
 * rule_engine_upcall_burst() for misses and stale hits. Every packet's
 * verdict and channel must equal the reference evaluator's on the set in
 * force when it arrived (conntrack off, no NAT: the oracle is stateless):
 * every rule stage walked by rule_ref_eval() on the packet's context (input
 * port, the paired output port, TCP flags), with rules that match input
 * ports, TCP flags and a mark a mangle chain sets, so that decisions that
 * depend on the packet are decided per packet. After revalidation has
 * caught up no entry may be stale and every cached verdict must equal the
 * oracle's. How many packets took the fast path and how many staleness
 * forced to the slow path is printed, and both must happen. (Rule sets with
 * extension matches make rte_acl builds slower: fewer steps per seed.)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_memory.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "engine_hit.h"
#include "rule_lang.h"

#define N_TUPLES 300
#define BURST 8

static uint64_t rng_state;

static void
seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static uint32_t
rn(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

static const char *const chan_names[] = {"c0", "c1", "c2", "c3"};
static const char *const port_names[] = {"p0", "p1"};

static int
chan_fn(void *arg, const char *name)
{
	(void)arg;
	for (unsigned int i = 0; i < RTE_DIM(chan_names); i++)
		if (strcmp(name, chan_names[i]) == 0)
			return 10 + (int)i;
	return -ENOENT;
}

static uint16_t
chan_id(const char *name)
{
	return name[0] == '\0' ? 1 : (uint16_t)chan_fn(NULL, name);
}

/* ------------------------------------------------------------------------ */
/* Random rules and tuples                                                   */
/* ------------------------------------------------------------------------ */

static void
rand_prefix(struct rule_prefix *p, uint8_t net)
{
	p->len = (uint8_t)(29 + rn(4));
	p->addr[0] = 10;
	p->addr[1] = 0;
	p->addr[2] = net;
	p->addr[3] = (uint8_t)(rn(8) & (0xff << (32 - p->len)));
}

static void
rand_rule(struct rule *r, bool allow_jump)
{
	rule_init(r);
	r->action = rn(3) == 0 ? RULE_ACT_DROP : RULE_ACT_ACCEPT;
	if (allow_jump && rn(8) == 0) {
		r->action = RULE_ACT_JUMP;
		snprintf(r->chain, sizeof(r->chain), "u1");
	}
	if (r->action == RULE_ACT_ACCEPT && rn(2))
		snprintf(r->channel, sizeof(r->channel), "%s", chan_names[rn(4)]);
	if (rn(2)) {
		r->match |= RULE_M_SRC;
		r->family = FC_AF_INET4;
		rand_prefix(&r->src, 0);
	}
	if (rn(2)) {
		r->match |= RULE_M_DST;
		r->family = FC_AF_INET4;
		rand_prefix(&r->dst, 1);
	}
	if (rn(2)) {
		r->match |= RULE_M_PROTO;
		r->proto = rn(2) ? 6 : 17;
		if (rn(2)) {
			uint16_t lo = (uint16_t)(1 + rn(8));

			r->match |= RULE_M_DPORT;
			r->dport.n = 1;
			r->dport.r[0].lo = lo;
			r->dport.r[0].hi = (uint16_t)(lo + rn(3));
		}
	}
	if (r->match != 0 && rn(5) == 0)
		r->neg = r->match & (uint8_t)(1u << rn(5));
	r->neg &= r->match;
	if (r->match & RULE_M_DPORT)
		r->neg &= (uint8_t)~RULE_M_PROTO; /* ports need a positive proto */
	if (rn(6) == 0)
		r->dst_local = rn(2) ? RULE_LOCAL_YES : RULE_LOCAL_NO;
	if (rn(8) == 0) {
		/* An input port by name. */
		r->match |= RULE_M_IN;
		snprintf(r->in_if, sizeof(r->in_if), "%s", rn(2) ? "p0" : "p+");
		if (rn(3) == 0)
			r->neg |= RULE_M_IN;
	}
	if ((r->match & RULE_M_PROTO) && r->proto == 6 && !(r->neg & RULE_M_PROTO) && rn(10) == 0) {
		/* TCP flags: a per-packet dependency (entries cached for a flag class). */
		static const uint8_t tests[][2] = {
			{0x12, 0x02}, /* SYN,ACK SYN */
			{0x3f, 0x00}, /* ALL NONE */
			{0x3f, 0x29}, /* ALL FIN,PSH,URG */
			{0x03, 0x03}, /* SYN,FIN SYN,FIN */
			{0x04, 0x04}, /* RST RST */
			{0x17, 0x02}, /* --syn */
		};
		struct rule_x *x = &r->xm[r->n_xm++];
		unsigned int t = rn(RTE_DIM(tests));

		x->kind = RULE_XM_TCP;
		x->given = 1; /* --tcp-flags */
		x->u.tcp.mask = tests[t][0];
		x->u.tcp.cmp = tests[t][1];
		x->neg = rn(3) == 0 ? 1 : 0;
	}
	if (rn(16) == 0) {
		/* The mark the mangle chain sets. */
		struct rule_x *x = &r->xm[r->n_xm++];

		x->kind = RULE_XM_MARK;
		x->given = 1;
		x->u.mark.value = 1;
		x->u.mark.mask = 0xffffffff;
		x->neg = rn(2) == 0 ? 1 : 0;
	}
	{
		const char *msg = NULL;

		if (rule_check(r, &msg) < 0)
			fail_msg("bad random rule: %s", msg);
	}
}

static struct fc_key tuples[N_TUPLES];
static const uint8_t tcp_flag_sets[] = {0x02, 0x10, 0x12, 0x11, 0x18, 0x10, 0x18, 0x00,
	0x29, 0x14, 0x03, 0x04};

static void
make_tuples(void)
{
	for (unsigned int i = 0; i < N_TUPLES; i++) {
		struct fc_key *k = &tuples[i];

		memset(k, 0, sizeof(*k));
		k->family = FC_AF_INET4;
		k->v4.src = htonl(0x0a000000u | rn(8));
		k->v4.dst = htonl(0x0a000100u | rn(8));
		k->v4.proto = rn(2) ? 6 : 17;
		k->v4.sport = htons((uint16_t)(1000 + rn(3)));
		k->v4.dport = htons((uint16_t)(1 + rn(8)));
		k->v4.flags = (uint8_t)rn(4);
		k->v4.in_port = (uint16_t)rn(2); /* the same tuple on two ports: two flows */
	}
}

/* A random edit of @s: add, delete, replace or a policy flip. */
static void
rand_edit(struct rule_set *s)
{
	const char *cn = rn(4) == 0 ? "u1" : RULE_CHAIN_MAIN;
	const struct rule_chain *c = rule_set_chain_find(s, RULE_TABLE_FILTER, cn);
	unsigned int op = rn(10);
	struct rule r;

	if (op < 4 || c->n_rules == 0) {
		rand_rule(&r, c->name[0] == 'm');
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, cn, rn(c->n_rules + 1), &r,
					 NULL),
			0);
	} else if (op < 6) {
		assert_int_equal(rule_set_rule_del_id(s, c->rules[rn(c->n_rules)].id), 0);
	} else if (op < 9) {
		rand_rule(&r, c->name[0] == 'm');
		assert_int_equal(rule_set_rule_replace(s, c->rules[rn(c->n_rules)].id, &r), 0);
	} else {
		c = rule_set_chain_find(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN);
		assert_int_equal(rule_set_chain_policy(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN,
					 c->policy == RULE_POLICY_DROP ? RULE_POLICY_ACCEPT
								       : RULE_POLICY_DROP),
			0);
	}
}

/* ------------------------------------------------------------------------ */
/* The simulation                                                            */
/* ------------------------------------------------------------------------ */

struct sim {
	struct rule_engine *eng;
	struct rule_set *oracle; /* a copy of the set in force */
	struct rule_cls *late_cls;
	uint32_t late_gen;
	unsigned int late_wait;
	uint64_t fast, stale, miss, packets, commits, full_reloads;
	uint32_t now;
};

static void
check_one(const struct sim *s, const struct fc_key *k, uint8_t tcp_flags, uint8_t verdict,
	uint16_t channel)
{
	struct rule_eval ev[RULE_STAGE__COUNT];
	unsigned int d = RULE_STAGE_FILTER;
	char buf[FC_KEY_STRLEN];
	struct rule_pkt p;

	/* The engine's walk with conntrack off: every stage, the first drop decides. */
	rule_pkt_init(&p, k, 0, 0);
	p.in_port = fc_key_in_port(k);
	p.out_port = p.in_port ^ 1; /* no route: the paired port */
	p.tcp_flags = tcp_flags;
	for (unsigned int st = 0; st < RULE_STAGE__COUNT; st++) {
		assert_int_equal(rule_ref_eval(s->oracle, (enum rule_stage)st, &p, NULL, &ev[st]),
			0);
		if (ev[st].verdict != RULE_VERDICT_ACCEPT) {
			d = st;
			break;
		}
	}
	fc_key_format(k, buf, sizeof(buf));
	if ((ev[d].verdict == RULE_VERDICT_ACCEPT) != (verdict == FC_VERDICT_ACCEPT))
		fail_msg("packet %" PRIu64 " %s flags %#x: verdict %u, oracle %u (rule %u) at gen %u",
			s->packets, buf, tcp_flags, verdict, ev[d].verdict, ev[d].rule_id,
			rule_engine_generation(s->eng));
	if (verdict == FC_VERDICT_ACCEPT && channel != chan_id(ev[RULE_STAGE_FILTER].channel))
		fail_msg("packet %" PRIu64 " %s: channel %u, oracle %u", s->packets, buf, channel,
			chan_id(ev[RULE_STAGE_FILTER].channel));
}

static void
burst(struct sim *s)
{
	struct fc_table *t = rule_engine_table(s->eng, FC_AF_INET4);
	const void *keys[BURST];
	uint32_t sigs[BURST], idx[BURST];
	uint8_t tf[BURST];
	struct fc_action acts[BURST];
	struct rule_upcall up[BURST];
	struct rule_decision dec[BURST];
	struct fc_key k[BURST];
	unsigned int n = 1 + rn(BURST), nu = 0;
	uint64_t hit;

	for (unsigned int i = 0; i < n; i++) {
		k[i] = tuples[rn(N_TUPLES)];
		tf[i] = k[i].v4.proto == 6 ? tcp_flag_sets[rn(RTE_DIM(tcp_flag_sets))] : 0;
		keys[i] = &k[i].v4;
		sigs[i] = fc_table_hash(t, &k[i].v4);
	}
	fc_table_lookup_bulk(t, 0, keys, sigs, n, &hit, acts, idx);
	for (unsigned int i = 0; i < n; i++) {
		s->packets++;
		if (hit & (UINT64_C(1) << i)) {
			struct fc_pkt fp = {.tcp_flags = tf[i]};

			/* Conntrack is off: no interest bits to honour; a flag class, as lib/datapath. */
			if (!rule_engine_stale(s->eng, &acts[i], &k[i]) &&
				acts[i].verdict != FC_VERDICT_SLOW &&
				(!(acts[i].mod[0] & RULE_ACT_M0_CLASSED) ||
					rule_engine_class_ok(s->eng, &acts[i], &fp, NULL, 0, true))) {
				s->fast++;
				fc_table_touch(t, idx[i], 64, s->now);
				check_one(s, &k[i], tf[i], acts[i].verdict, acts[i].channel);
				continue;
			}
			s->stale++;
		} else {
			s->miss++;
		}
		memset(&up[nu], 0, sizeof(up[nu]));
		up[nu].pkt.key = k[i];
		up[nu].pkt.tcp_flags = tf[i];
		up[nu].in_port = fc_key_in_port(&k[i]);
		up[nu].len = 64;
		up[nu].reason = (hit & (UINT64_C(1) << i)) ? RULE_UPCALL_STALE : RULE_UPCALL_MISS;
		nu++;
	}
	assert_int_equal(rule_engine_upcall_burst(s->eng, up, nu, dec, s->now), nu);
	for (unsigned int i = 0; i < nu; i++)
		check_one(s, &up[i].pkt.key, up[i].pkt.tcp_flags, dec[i].verdict, dec[i].channel);
}

static void
build_cls(struct sim *s, bool late)
{
	uint32_t gen;
	struct rule_set *w = rule_engine_cls_wanted(s->eng, &gen);
	struct rule_cls *c;

	if (w == NULL) {
		assert_int_equal(rte_errno, EALREADY);
		return;
	}
	c = rule_cls_build(w, "coh", SOCKET_ID_ANY);
	rule_set_free(w);
	assert_non_null(c);
	if (late && s->late_cls == NULL) {
		s->late_cls = c;
		s->late_gen = gen;
		s->late_wait = 1 + rn(3);
		return;
	}
	assert_int_equal(rule_engine_cls_ready(s->eng, c, gen), 0);
}

static void
commit(struct sim *s)
{
	struct rule_set *n;
	unsigned int edits = 1 + rn(3);

	if (rn(25) == 0) {
		/* A whole reload: no descendant, "everything changed". */
		char *buf = malloc(1 << 20);
		struct rule_error err;

		assert_non_null(buf);
		assert_true(rule_set_format(s->oracle, buf, 1 << 20) > 0);
		n = rule_set_parse(buf, "reload", &err);
		free(buf);
		assert_non_null(n);
		assert_int_equal(rule_set_ports(n, 2, port_names), 0);
		s->full_reloads++;
	} else {
		n = rule_set_clone(rule_engine_rules(s->eng));
		assert_non_null(n);
		for (unsigned int i = 0; i < edits; i++)
			rand_edit(n);
	}
	rule_set_free(s->oracle);
	s->oracle = rule_set_clone(n);
	assert_non_null(s->oracle);
	assert_int_equal(rule_engine_commit(s->eng, n), 0);
	s->commits++;
	if (s->late_cls != NULL && --s->late_wait == 0) {
		int rc = rule_engine_cls_ready(s->eng, s->late_cls, s->late_gen);

		if (rc == -ESTALE)
			rule_cls_free(s->late_cls);
		else
			assert_int_equal(rc, 0);
		s->late_cls = NULL;
	}
}

/* Revalidate until the pending list is empty, then check every entry. */
static void
settle(struct sim *s)
{
	struct fc_table *t = rule_engine_table(s->eng, FC_AF_INET4);
	struct rule_engine_stats st;
	uint32_t next = 0, idx;
	const void *raw;
	unsigned int rounds = 0;

	do {
		rule_engine_step(s->eng, s->now, 64);
		rule_engine_stats_get(s->eng, &st);
		assert_true(++rounds < 100000);
	} while (st.pending != 0);
	while (fc_table_iterate(t, &next, &raw, &idx) == 0) {
		const struct fc_entry *e = fc_table_entry(t, idx);
		struct fc_key k;

		memset(&k, 0, sizeof(k));
		k.family = FC_AF_INET4;
		memcpy(&k.v4, raw, sizeof(k.v4));
		assert_false(rule_engine_stale(s->eng, &e->act, &k));
		/* An entry decided per packet holds no verdict to check. */
		if (e->act.verdict == FC_VERDICT_SLOW)
			continue;
		if (!(e->act.mod[0] & RULE_ACT_M0_CLASSED)) {
			check_one(s, &k, k.v4.proto == 6 ? 0x02 : 0, e->act.verdict, e->act.channel);
			continue;
		}
		/* A classed entry: its verdict, for every flag set of its class. */
		for (unsigned int f = 0; f < RTE_DIM(tcp_flag_sets); f++) {
			struct fc_pkt fp = {.tcp_flags = tcp_flag_sets[f]};

			if (rule_engine_class_ok(s->eng, &e->act, &fp, NULL, 0, true))
				check_one(s, &k, fp.tcp_flags, e->act.verdict, e->act.channel);
		}
	}
}

static struct rule_set *
initial_set(void)
{
	struct rule_error err;
	struct rule_set *s = rule_set_parse("table mangle\n"
					    "chain P hook prerouting\n"
					    "mark set_mark 0x1 proto tcp dport 1-3\n",
		"initial", &err);
	struct rule r;

	assert_non_null(s);
	assert_int_equal(rule_set_ports(s, 2, port_names), 0);
	assert_int_equal(rule_set_chain_add(s, RULE_TABLE_FILTER, "u1", 0, RULE_POLICY_ACCEPT), 0);
	for (int i = 0; i < 12; i++) {
		rand_rule(&r, false);
		assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, i % 3 ? "main" : "u1",
					 RULE_POS_END, &r, NULL),
			0);
	}
	return s;
}

static void
run(uint64_t sd, unsigned int steps, bool with_cls)
{
	struct eng_stack_params p;
	struct sim s;

	seed(sd);
	make_tuples();
	memset(&s, 0, sizeof(s));
	eng_stack_test_params(&p, 4096, 0, false, 0);
	p.eng.channel_fn = chan_fn;
	p.eng.port_pair_fn = eng_stack_pair01;
	s.eng = eng_stack_test_create(&p, "coh");
	assert_int_equal(rule_engine_reader_register(s.eng, 0), 0);
	s.oracle = initial_set();
	assert_int_equal(rule_engine_commit(s.eng, rule_set_clone(s.oracle)), 0);
	if (with_cls)
		build_cls(&s, false);

	for (unsigned int i = 0; i < steps; i++) {
		unsigned int what = rn(100);

		s.now += 1;
		if (what < 70)
			burst(&s);
		else if (what < 82)
			commit(&s);
		else if (what < 95)
			rule_engine_step(s.eng, s.now, 1 + rn(32));
		else if (what < 99 && with_cls)
			build_cls(&s, rn(2) == 0);
		else
			settle(&s);
		rule_engine_quiescent(s.eng, 0);
	}
	settle(&s);
	printf("coherence seed %" PRIu64 "%s: %" PRIu64 " packets: %" PRIu64 " fast, %" PRIu64
	       " forced slow by staleness, %" PRIu64 " misses; %" PRIu64 " commits (%" PRIu64
	       " reloads)\n",
		sd, with_cls ? "" : " (no classifier)", s.packets, s.fast, s.stale, s.miss,
		s.commits, s.full_reloads);
	assert_true(s.fast > 0);
	assert_true(s.stale > 0);
	{
		struct rule_engine_stats st;

		rule_engine_stats_get(s.eng, &st);
		printf("  engine: %" PRIu64 " cls / %" PRIu64 " reference classifications, %" PRIu64
		       " revalidated, %" PRIu64 " refreshed, %" PRIu64 " full commits, %" PRIu64
		       " cached for a flag class (%" PRIu64 " taken over)\n",
			st.classify_cls, st.classify_ref, st.revalidated, st.refreshed,
			st.commits_full, st.classed, st.class_taken);
		if (with_cls)
			assert_true(st.classify_cls > 0 && st.classify_ref > 0);
		/* The random flags tests make entries cached for a class. */
		assert_true(st.classed > 0);
	}
	rule_cls_free(s.late_cls);
	rule_set_free(s.oracle);
	rule_engine_reader_unregister(s.eng, 0);
	eng_stack_free(s.eng);
}

static void
test_coherence(void **state)
{
	(void)state;
	for (uint64_t sd = 1; sd <= 4; sd++)
		run(sd, 8000, true);
}

static void
test_coherence_no_cls(void **state)
{
	(void)state;
	run(99, 10000, false);
}

/* The change log: a clone of a committed set lists what it touched. */
static void
test_commit_small(void **state)
{
	struct eng_stack_params p;
	struct rule_engine *eng;
	struct rule_engine_stats st;
	struct rule_set *s;
	struct rule r;

	(void)state;
	eng_stack_test_params(&p, 64, 0, false, 0);
	p.eng.full_policy = FC_FULL_EVICT_IDLE;
	p.eng.default_channel = 0;
	eng = eng_stack_test_create(&p, "cohsmall");
	s = rule_set_clone(rule_engine_rules(eng));
	rule_init(&r);
	r.action = RULE_ACT_DROP;
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, "main", 0, &r, NULL), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.commits_full, 0);
	assert_int_equal(st.pending, 1);
	/* A set that is no descendant counts as "everything". */
	assert_int_equal(rule_engine_commit(eng, rule_set_create()), 0);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.commits_full, 1);
	eng_stack_free(eng);
}

/* Commit a clone of @p eng's set with the first rule of @p text appended (logged). */
static uint32_t
commit_add(struct rule_engine *eng, const char *text)
{
	struct rule_set *t = eng_stack_rules(text, false);
	struct rule_set *s = rule_set_clone(rule_engine_rules(eng));
	const struct rule_chain *c = rule_set_chain_find(t, RULE_TABLE_FILTER, RULE_CHAIN_MAIN);
	uint32_t id;

	assert_non_null(c);
	assert_non_null(s);
	assert_int_equal(rule_set_rule_add(s, RULE_TABLE_FILTER, RULE_CHAIN_MAIN, RULE_POS_END,
				 &c->rules[0], &id),
		0);
	rule_set_free(t);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	return id;
}

/*
 * A logged commit whose rules read no classed field and name no list or
 * table keeps the packet classes and the hashlimit tables without walking
 * the set; one whose rules do redoes them: a TTL test, a TCP flags test
 * and a hashlimit match added one commit each are in force after it, and a
 * removed hashlimit rule takes its table along. (Fails when the commit
 * takes such a rule for one that reads nothing: the classes and tables
 * stay the old ones.)
 */
static void
test_commit_redo(void **state)
{
	struct eng_stack_params p;
	const struct rule_engine_view *v;
	const struct rule_flagclass *fc;
	struct rule_hashlimit_info hi;
	struct rule_engine_stats st;
	struct rule_engine *eng;
	struct rule_set *s;
	uint32_t id;

	(void)state;
	eng_stack_test_params(&p, 64, 0, false, 0);
	eng = eng_stack_test_create(&p, "cohredo");
	v = (const struct rule_engine_view *)(const void *)eng;
	eng_stack_load(eng, "accept proto udp dport 53\n", false);
	fc = v->flagclass;
	assert_non_null(fc);
	assert_int_equal(fc->f.n_ttl, 1);
	assert_int_equal(fc->n, 1);
	/* Reads nothing classed: the same table (it would be an equal one anyway). */
	(void)commit_add(eng, "drop proto udp dport 99\n");
	assert_ptr_equal(v->flagclass, fc);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.commits_full, 1); /* the load */
	/* A TTL test: two TTL classes. */
	(void)commit_add(eng, "drop proto udp ttl_lt 10\n");
	fc = v->flagclass;
	assert_int_equal(fc->f.n_ttl, 2);
	assert_int_equal(fc->n, 1);
	/* A flags test: two flag classes. */
	(void)commit_add(eng, "drop proto tcp dport 81 tcp_flags syn,ack syn\n");
	fc = v->flagclass;
	assert_int_equal(fc->n, 2);
	assert_int_equal(fc->f.n_ttl, 2);
	/* A hashlimit table is made at the commit that adds its rule ... */
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), -ENOENT);
	id = commit_add(eng, "accept proto udp hashlimit_upto 1/hour hashlimit_burst 2 "
			     "hashlimit_mode srcip hashlimit_name H\n");
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), 0);
	assert_string_equal(hi.name, "H");
	/* ... kept by one that reads nothing ... */
	(void)commit_add(eng, "drop proto udp dport 98\n");
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), 0);
	/* ... and dropped by the one that removes its rule. */
	s = rule_set_clone(rule_engine_rules(eng));
	assert_non_null(s);
	assert_int_equal(rule_set_rule_del_id(s, id), 0);
	assert_int_equal(rule_engine_commit(eng, s), 0);
	assert_int_equal(rule_hashlimit_info(rule_engine_hashlimit(eng), 0, &hi), -ENOENT);
	rule_engine_stats_get(eng, &st);
	assert_int_equal(st.commits_full, 1);
	assert_int_equal(st.hashlimit_dropped, 2); /* its IPv4 and IPv6 tables */
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_small),
		cmocka_unit_test(test_commit_redo),
		cmocka_unit_test(test_coherence),
		cmocka_unit_test(test_coherence_no_cls),
	};

	if (gufc_test_eal_init("coherence", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
