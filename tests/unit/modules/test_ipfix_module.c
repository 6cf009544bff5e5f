/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the IPFIX module on the rules engine with the app's modules
 * (tests/unit/common/eng_stack.c): flows driven through the slow path and
 * the fast path's counters, the messages the module sends read back with
 * the tests' own decoder. Records per direction when flows age (idle), close
 * (FIN: end of flow), are flushed (forced) or evicted (lack of resources);
 * active and idle timeouts on live flows with delta counts that add up;
 * post-NAT addresses; drops; the shutdown export; templates first and
 * refreshed; a failing sender counted.
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

#include "eal_test.h"
#include "eng_stack.h"
#include "ipfix.h"
#include "ipfix_decode.h"
#include "rule_lang.h"

#define EPOCH	1700000000000ull
#define PEN	MOD_IPFIX_PEN_DOC
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10

/* ------------------------------------------------------------------------ */
/* The world: an engine, the module, the messages it sent                    */
/* ------------------------------------------------------------------------ */

#define MSGS_MAX 64

static struct {
	uint8_t msg[MSGS_MAX][MOD_IPFIX_MSG_DEFAULT];
	size_t len[MSGS_MAX];
	unsigned int n;
	int fail; /* the sender's answer when non-zero */
} sent;

static int
capture(void *arg, const uint8_t *msg, size_t len)
{
	(void)arg;
	if (sent.fail != 0)
		return sent.fail;
	assert_true(sent.n < MSGS_MAX);
	assert_true(len <= MOD_IPFIX_MSG_DEFAULT);
	memcpy(sent.msg[sent.n], msg, len);
	sent.len[sent.n++] = len;
	return 0;
}

struct world {
	struct rule_engine *eng;
	struct mod_ipfix_module *ipfix;
	struct dec_state *dec;
	unsigned int decoded; /* messages already given to the decoder */
};

static void
world_init(struct world *w, uint32_t cap, enum fc_full_policy pol, const char *rules,
	const struct mod_ipfix_params *ip)
{
	struct eng_stack_params p;
	struct mod_ipfix_params mp;

	memset(w, 0, sizeof(*w));
	memset(&sent, 0, sizeof(sent));
	eng_stack_test_params(&p, cap, 64, true, 64);
	p.eng.full_policy = pol;
	p.eng.default_channel = 0;
	w->eng = eng_stack_test_create(&p, "ti");
	if (ip != NULL)
		mp = *ip;
	else
		memset(&mp, 0, sizeof(mp));
	mp.epoch_ms = EPOCH;
	mp.send = capture;
	w->ipfix = mod_ipfix_module_create(w->eng, &mp);
	assert_non_null(w->ipfix);
	eng_stack_load(w->eng, rules, false);
	w->dec = calloc(1, sizeof(*w->dec));
	assert_non_null(w->dec);
}

static void
world_fini(struct world *w)
{
	eng_stack_free(w->eng);
	mod_ipfix_module_free(w->ipfix);
	free(w->dec);
}

/* Decode what was sent since the last call. */
static void
decode_new(struct world *w)
{
	const char *why = NULL;

	for (; w->decoded < sent.n; w->decoded++)
		if (dec_message(w->dec, sent.msg[w->decoded], sent.len[w->decoded], &why) != 0)
			fail_msg("message %u: %s", w->decoded, why);
}

/* One packet as the RX lcore sees it: a cached hit counts, anything else is upcalled. */
static struct rule_decision
pkt(struct world *w, uint8_t proto, const char *src, uint16_t sport, const char *dst,
	uint16_t dport, uint8_t tcp_flags, uint32_t len, uint32_t now)
{
	struct rule_upcall u;
	struct fc_table *t = rule_engine_table(w->eng, FC_AF_INET4);
	const void *keys[1];
	uint32_t sig, idx;
	struct fc_action a;
	struct rule_decision d;
	uint64_t hit;

	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET4;
	inet_pton(AF_INET, src, &u.pkt.key.v4.src);
	inet_pton(AF_INET, dst, &u.pkt.key.v4.dst);
	u.pkt.key.v4.sport = htons(sport);
	u.pkt.key.v4.dport = htons(dport);
	u.pkt.key.v4.proto = proto;
	u.pkt.tcp_flags = tcp_flags;
	u.len = len;
	keys[0] = &u.pkt.key.v4;
	sig = fc_table_hash(t, &u.pkt.key.v4);
	fc_table_lookup_bulk(t, 0, keys, &sig, 1, &hit, &a, &idx);
	u.reason = RULE_UPCALL_MISS;
	if (hit & 1) {
		if (rule_engine_stale(w->eng, &a, &u.pkt.key)) {
			u.reason = RULE_UPCALL_STALE;
		} else if (rule_engine_wants(&a, &u.pkt) || a.verdict == FC_VERDICT_SLOW ||
			   /* A SYN/ACK the line could take: not these, without numbers. */
			   ((a.interest & FC_INTEREST_TCP_WIN) && (tcp_flags & TCP_SYN))) {
			u.reason = RULE_UPCALL_INTEREST;
		} else {
			memset(&d, 0, sizeof(d));
			d.verdict = a.verdict;
			fc_table_touch(t, idx, len, now);
			return d;
		}
	}
	assert_int_equal(rule_engine_upcall_burst(w->eng, &u, 1, &d, now), 1);
	return d;
}

static struct rule_decision
udp(struct world *w, const char *src, uint16_t sport, const char *dst, uint16_t dport, uint32_t now)
{
	return pkt(w, 17, src, sport, dst, dport, 0, 100, now);
}

/* The engine's background work (aging, the module's step) from @p from to @p to. */
static void
run(struct world *w, uint32_t from, uint32_t to)
{
	for (uint32_t t = from; t <= to; t += 50)
		rule_engine_step(w->eng, t, 1024);
}

/* The record of a direction: source address's last byte and source port. */
static const struct dec_rec *
find(const struct world *w, const char *src, uint16_t sport, unsigned int nth)
{
	uint8_t a[4];
	uint16_t len;

	inet_pton(AF_INET, src, a);
	for (unsigned int i = 0; i < w->dec->n_rec; i++) {
		const struct dec_rec *r = &w->dec->rec[i];
		const uint8_t *s = dec_bytes(r, 8, &len);
		uint64_t sp;

		if (s != NULL && memcmp(s, a, 4) == 0 && dec_u64(r, 7, 0, &sp) && sp == sport &&
			nth-- == 0)
			return r;
	}
	return NULL;
}

static uint64_t
u64(const struct dec_rec *r, uint16_t ie, uint32_t pen)
{
	uint64_t v = 0;

	assert_non_null(r);
	assert_true(dec_u64(r, ie, pen, &v));
	return v;
}

static void
addr_is(const struct dec_rec *r, uint16_t ie, const char *want)
{
	uint8_t a[4];
	uint16_t len;
	const uint8_t *b = dec_bytes(r, ie, &len);

	inet_pton(AF_INET, want, a);
	assert_non_null(b);
	assert_int_equal(len, 4);
	assert_memory_equal(b, a, 4);
}

/* ------------------------------------------------------------------------ */
/* Flows that end                                                            */
/* ------------------------------------------------------------------------ */

/* A UDP flow and its replies age out: two records, idle, times and counts exact. */
static void
test_aged(void **state)
{
	struct world w;
	struct mod_ipfix_stats st;
	const struct dec_rec *o, *r;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept proto udp\n", NULL);
	for (uint32_t t = 10; t <= 30; t += 10)
		assert_int_equal(
			udp(&w, "10.0.0.1", 1000, "10.0.0.2", 53, t).verdict, FC_VERDICT_ACCEPT);
	udp(&w, "10.0.0.2", 53, "10.0.0.1", 1000, 40);
	udp(&w, "10.0.0.2", 53, "10.0.0.1", 1000, 50);
	run(&w, 100, 1000);
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 0);     /* alive: nothing yet */
	assert_int_equal(w.dec->tmpl_sets, 1); /* but the templates went at once */
	run(&w, 130000, 132000);	       /* past udp_replied (120 s) */
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 2);
	o = find(&w, "10.0.0.1", 1000, 0);
	r = find(&w, "10.0.0.2", 53, 0);
	assert_non_null(o);
	assert_non_null(r);
	assert_int_equal(u64(o, 2, 0), 3);
	assert_int_equal(u64(o, 1, 0), 300);
	assert_int_equal(u64(o, 152, 0), EPOCH + 10);
	assert_int_equal(u64(o, 153, 0), EPOCH + 30);
	assert_int_equal(u64(o, 136, 0), MOD_IPFIX_END_IDLE);
	assert_int_equal(u64(o, 89, 0), MOD_IPFIX_FWD_FORWARDED);
	assert_int_equal(u64(o, 4, 0), 17);
	assert_int_equal(u64(o, 11, 0), 53);
	assert_int_equal(u64(o, MOD_IPFIX_IE_RULE_ID, PEN), 1);
	assert_int_equal(u64(o, MOD_IPFIX_IE_DIRECTION, PEN), 0);
	assert_int_equal(u64(o, MOD_IPFIX_IE_DROP_REASON, PEN), 0);
	addr_is(o, 225, "10.0.0.1"); /* not translated: post = pre */
	addr_is(o, 226, "10.0.0.2");
	assert_int_equal(u64(r, 2, 0), 2);
	assert_int_equal(u64(r, 153, 0), EPOCH + 50);
	assert_int_equal(u64(r, MOD_IPFIX_IE_DIRECTION, PEN), 1);
	assert_int_equal(u64(r, 136, 0), MOD_IPFIX_END_IDLE);
	mod_ipfix_stats_get(w.ipfix, &st);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.records_end[MOD_IPFIX_END_IDLE], 2);
	assert_int_equal(st.messages, sent.n);
	assert_int_equal(st.templates, 1);
	assert_int_equal(st.send_failed, 0);
	world_fini(&w);
}

/* A TCP connection that closed with FIN, then aged: end of flow detected. */
static void
test_fin(void **state)
{
	struct world w;
	const char *c = "10.0.0.1", *s = "10.0.0.2";

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", NULL);
	pkt(&w, 6, c, 4000, s, 80, TCP_SYN, 60, 10);
	pkt(&w, 6, s, 80, c, 4000, TCP_SYN | TCP_ACK, 60, 11);
	pkt(&w, 6, c, 4000, s, 80, TCP_ACK, 60, 12);
	pkt(&w, 6, c, 4000, s, 80, TCP_ACK, 1000, 13);
	pkt(&w, 6, c, 4000, s, 80, TCP_FIN | TCP_ACK, 60, 14);
	pkt(&w, 6, s, 80, c, 4000, TCP_FIN | TCP_ACK, 60, 15);
	pkt(&w, 6, c, 4000, s, 80, TCP_ACK, 60, 16);
	run(&w, 200000, 202000); /* past time_wait (120 s) */
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 2);
	assert_int_equal(u64(find(&w, c, 4000, 0), 136, 0), MOD_IPFIX_END_EOF);
	assert_int_equal(u64(find(&w, c, 4000, 0), 2, 0), 5);
	assert_int_equal(u64(find(&w, c, 4000, 0), 1, 0), 1240);
	assert_int_equal(u64(find(&w, s, 80, 0), 136, 0), MOD_IPFIX_END_EOF);
	assert_int_equal(u64(find(&w, s, 80, 0), 2, 0), 2);
	world_fini(&w);
}

/* Flushed flows end forced; a full cache's evicted flows lack resources. */
static void
test_flush_and_evict(void **state)
{
	struct world w;
	char src[32];

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", NULL);
	udp(&w, "10.0.0.1", 1, "10.0.0.2", 2, 5);
	assert_true(rule_engine_flush(w.eng) >= 1);
	run(&w, 2000, 2000); /* the module sends what waited */
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 1); /* the reply direction saw no packet */
	assert_int_equal(u64(find(&w, "10.0.0.1", 1, 0), 136, 0), MOD_IPFIX_END_FORCED);
	world_fini(&w);

	/* 64 entries: 32 flows with their reply entries fill it, the next evict. */
	world_init(&w, 64, FC_FULL_EVICT_IDLE, "accept\n", NULL);
	for (unsigned int i = 0; i < 40; i++) {
		snprintf(src, sizeof(src), "10.0.1.%u", i);
		udp(&w, src, 1000, "10.0.0.2", 2, 10 + i);
	}
	run(&w, 2000, 2000);
	decode_new(&w);
	assert_true(w.dec->n_rec >= 8);
	for (unsigned int i = 0; i < w.dec->n_rec; i++)
		assert_int_equal(u64(&w.dec->rec[i], 136, 0), MOD_IPFIX_END_RESOURCES);
	world_fini(&w);
}

/* A dropped flow: forwarding status "dropped: ACL deny", reason filter, its rule. */
static void
test_drop(void **state)
{
	struct world w;
	const struct dec_rec *r;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "drop proto udp dport 53\naccept\n", NULL);
	for (uint32_t t = 1; t <= 4; t++)
		assert_int_equal(
			udp(&w, "10.0.0.1", 9, "10.0.0.2", 53, t).verdict, FC_VERDICT_DROP);
	rule_engine_flush(w.eng);
	assert_int_equal(mod_ipfix_flush(w.ipfix, 10), 0);
	decode_new(&w);
	r = find(&w, "10.0.0.1", 9, 0);
	assert_int_equal(u64(r, 2, 0), 4);
	assert_int_equal(u64(r, 89, 0), MOD_IPFIX_FWD_DROP_ACL);
	assert_int_equal(u64(r, MOD_IPFIX_IE_DROP_REASON, PEN), RULE_DROP_FILTER);
	assert_int_equal(u64(r, MOD_IPFIX_IE_RULE_ID, PEN), 1);
	world_fini(&w);
}

/* SNAT: the original direction's post-NAT source, the reply's post-NAT destination. */
static void
test_nat(void **state)
{
	struct world w;
	const struct dec_rec *o, *r;
	uint64_t port;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "snat to 203.0.113.1 src 10.0.0.0/8\naccept\n", NULL);
	udp(&w, "10.0.0.1", 5000, "198.51.100.9", 53, 1);
	udp(&w, "10.0.0.1", 5000, "198.51.100.9", 53, 2);
	o = NULL;
	rule_engine_flush(w.eng); /* no reply yet: one record */
	mod_ipfix_flush(w.ipfix, 3);
	decode_new(&w);
	o = find(&w, "10.0.0.1", 5000, 0);
	addr_is(o, 225, "203.0.113.1");
	addr_is(o, 226, "198.51.100.9");
	port = u64(o, 227, 0);
	assert_int_equal(u64(o, 228, 0), 53);

	/* Now with a reply: it arrives for the translated address. */
	udp(&w, "10.0.0.1", 5001, "198.51.100.9", 53, 10);
	{
		struct rule_flow_info fi;
		uint64_t it = 0;
		uint16_t rport = 0;

		while (rule_engine_flow_next(w.eng, &it, NULL, &fi) == 0)
			if (fi.act.flags & FC_ACT_F_REPLY)
				rport = ntohs(fc_key_dport(&fi.key));
		assert_int_not_equal(rport, 0);
		udp(&w, "198.51.100.9", 53, "203.0.113.1", rport, 11);
		rule_engine_flush(w.eng);
		mod_ipfix_flush(w.ipfix, 12);
		decode_new(&w);
		r = find(&w, "198.51.100.9", 53, 0);
		addr_is(r, 12, "203.0.113.1");
		addr_is(r, 225, "198.51.100.9");
		addr_is(r, 226, "10.0.0.1");
		assert_int_equal(u64(r, 228, 0), 5001);
		assert_int_equal(u64(r, 11, 0), rport);
	}
	(void)port;
	world_fini(&w);
}

/* ------------------------------------------------------------------------ */
/* Flows that live on                                                        */
/* ------------------------------------------------------------------------ */

/* Active timeout: a record every second with what is new; deltas add up. */
static void
test_active(void **state)
{
	struct mod_ipfix_params p = {.active_timeout = 1000, .sweep_interval = 100};
	struct world w;
	uint64_t pk = 0, by = 0;
	unsigned int n = 0, t;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", &p);
	for (t = 10; t < 3500; t += 10) {
		pkt(&w, 17, "10.0.0.1", 7, "10.0.0.2", 8, 0, 50 + t % 7, t);
		rule_engine_step(w.eng, t, 1024);
	}
	decode_new(&w);
	assert_true(w.dec->n_rec >= 2);
	for (unsigned int i = 0; i < w.dec->n_rec; i++) {
		assert_int_equal(u64(&w.dec->rec[i], 136, 0), MOD_IPFIX_END_ACTIVE);
		if (i > 0) /* each starts where the one before was exported */
			assert_true(u64(&w.dec->rec[i], 152, 0) > u64(&w.dec->rec[i - 1], 152, 0));
	}
	rule_engine_flush(w.eng);
	mod_ipfix_flush(w.ipfix, t);
	decode_new(&w);
	for (unsigned int i = 0; i < w.dec->n_rec; i++) {
		pk += u64(&w.dec->rec[i], 2, 0);
		by += u64(&w.dec->rec[i], 1, 0);
	}
	assert_int_equal(u64(&w.dec->rec[w.dec->n_rec - 1], 136, 0), MOD_IPFIX_END_FORCED);
	for (t = 10; t < 3500; t += 10, n++)
		by -= 50 + t % 7;
	assert_int_equal(pk, n);
	assert_int_equal(by, 0);
	world_fini(&w);
}

/* Idle timeout: a record once the flow rests, the entry lives on; then only what is new. */
static void
test_idle(void **state)
{
	struct mod_ipfix_params p = {.idle_timeout = 500, .sweep_interval = 100};
	struct world w;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", &p);
	udp(&w, "10.0.0.1", 7, "10.0.0.2", 8, 10);
	udp(&w, "10.0.0.1", 7, "10.0.0.2", 8, 20);
	run(&w, 100, 400);
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 0);
	run(&w, 600, 2000);
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 1);
	assert_int_equal(u64(&w.dec->rec[0], 136, 0), MOD_IPFIX_END_IDLE);
	assert_int_equal(u64(&w.dec->rec[0], 2, 0), 2);
	udp(&w, "10.0.0.1", 7, "10.0.0.2", 8, 2100);
	assert_int_equal(mod_ipfix_export_all(w.ipfix, 2200), 1);
	assert_int_equal(mod_ipfix_export_all(w.ipfix, 2300), 0); /* nothing new */
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 2);
	assert_int_equal(u64(&w.dec->rec[1], 136, 0), MOD_IPFIX_END_FORCED);
	assert_int_equal(u64(&w.dec->rec[1], 2, 0), 1);
	world_fini(&w);
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

/* Templates first, then every refresh interval; a refused message is counted, lost. */
static void
test_templates_and_failures(void **state)
{
	struct mod_ipfix_params p = {.template_refresh = 1000, .domain = 9};
	struct mod_ipfix_stats st;
	struct world w;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", &p);
	run(&w, 0, 0);
	run(&w, 500, 500);
	run(&w, 1000, 1000);
	decode_new(&w);
	assert_int_equal(w.dec->tmpl_sets, 2);
	assert_int_equal(w.dec->last_domain, 9);
	mod_ipfix_stats_get(w.ipfix, &st);
	assert_int_equal(st.templates, 2);

	/* The sender refuses: the records are lost, counted; the sequence moves on. */
	sent.fail = -EIO;
	udp(&w, "10.0.0.1", 1, "10.0.0.2", 2, 1100);
	udp(&w, "10.0.0.1", 3, "10.0.0.2", 4, 1100);
	rule_engine_flush(w.eng);
	assert_int_equal(mod_ipfix_flush(w.ipfix, 1200), -EIO);
	mod_ipfix_stats_get(w.ipfix, &st);
	assert_int_equal(st.send_failed, 1);
	assert_int_equal(st.records_lost, 2);
	assert_int_equal(st.records, 2);
	sent.fail = 0;
	udp(&w, "10.0.0.1", 5, "10.0.0.2", 6, 1300);
	rule_engine_flush(w.eng);
	assert_int_equal(mod_ipfix_flush(w.ipfix, 1400), 0);
	decode_new(&w);
	assert_int_equal(w.dec->n_rec, 1);
	assert_int_equal(w.dec->last_seq, 2); /* the two lost records are counted in */
	mod_ipfix_stats_get(w.ipfix, &st);
	assert_int_equal(st.messages, sent.n);
	world_fini(&w);
}

static void
test_bad_args(void **state)
{
	struct mod_ipfix_params p;
	struct mod_ipfix_stats st;
	struct world w;

	(void)state;
	world_init(&w, 64, FC_FULL_REFUSE, "accept\n", NULL);
	memset(&p, 0, sizeof(p));
	assert_null(mod_ipfix_module_create(w.eng, &p)); /* no sender */
	p.send = capture;
	p.msg_size = 100;
	assert_null(mod_ipfix_module_create(w.eng, &p));
	p.msg_size = 0;
	assert_null(mod_ipfix_module_create(NULL, &p));
	assert_null(mod_ipfix_module_create(w.eng, &p)); /* "ipfix" is taken */
	assert_int_equal(mod_ipfix_flush(NULL, 0), -EINVAL);
	assert_int_equal(mod_ipfix_export_all(NULL, 0), -EINVAL);
	mod_ipfix_stats_get(NULL, &st);
	assert_int_equal(st.records, 0);
	mod_ipfix_module_free(NULL);
	world_fini(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aged),
		cmocka_unit_test(test_fin),
		cmocka_unit_test(test_flush_and_evict),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_nat),
		cmocka_unit_test(test_active),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_templates_and_failures),
		cmocka_unit_test(test_bad_args),
	};

	if (gufc_test_eal_init("ipfix_module", "0") != 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
