/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/test_ct_module.c — the conntrack module in the rules
 * engine (lib/modules/conntrack/ct_module.c), with EAL: TCP records (the
 * id in the entries, allocation, the limit, release after a grace period
 * of the readers and reuse, release on abort), the fast path's window
 * check on the entries' copies with the progress folded back, the
 * counters, mod_ct_module_conn_get() and bad arguments.
 *
 * Segments are frames built with pkt_build; each goes through what the
 * datapath does (lookup, interest, mod_ct_fast_check(), else the slow
 * path's rule_engine_upcall_burst()).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>

#include "eal_test.h"
#include "eng_stack.h"
#include "pkt_build.h"
#include "rule_lang.h"

#define C0 1000u
#define S0 5000u
#define FRAME_MAX 512

struct world {
	struct rule_engine *eng;
	struct mod_ct_module *ct;
	uint32_t now;
	uint8_t frame[FRAME_MAX];
	uint32_t len;
};

static void
world_up(struct world *w, uint32_t max_tcp, const char *rules)
{
	memset(w, 0, sizeof(*w));
	w->eng = eng_stack_test_engine("ctm", 64, 64, false, 0);
	/* The module of its own, with the record limit under test. */
	{
		struct mod_ct_module_params cp;

		memset(&cp, 0, sizeof(cp));
		cp.max_tcp = max_tcp;
		w->ct = mod_ct_module_create(w->eng, &cp);
	}
	assert_non_null(w->ct);
	assert_int_equal(rule_engine_reader_register(w->eng, 0), 0);
	eng_stack_load(w->eng, rules, false);
	w->now = 1000;
}

static void
world_down(struct world *w)
{
	rule_engine_reader_unregister(w->eng, 0);
	eng_stack_free(w->eng);
	mod_ct_module_free(w->ct);
}

/* A TCP segment between 10.0.0.1:1234 (client, @p from_client) and 10.0.0.2:80. */
static struct fc_pkt
seg(struct world *w, bool from_client, uint8_t flags, uint32_t seq, uint32_t ack, uint16_t len)
{
	struct pb_ipv4 ip = {.src = from_client ? 0x0a000001 : 0x0a000002,
		.dst = from_client ? 0x0a000002 : 0x0a000001};
	struct fc_pkt p;
	struct pb b;
	int n;

	pb_init(&b, w->frame, sizeof(w->frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_tcp(&b, from_client ? 1234 : 80, from_client ? 80 : 1234, flags, seq, ack, 0);
	pb_tcp_win(&b, from_client ? 2000 : 3000);
	if (len != 0)
		pb_payload(&b, NULL, len);
	n = pb_finish(&b);
	assert_true(n > 0);
	w->len = (uint32_t)n;
	assert_int_equal(fc_parse(w->frame, w->len, &p), FC_PARSE_OK);
	return p;
}

/*
 * What the datapath does with @p p; *fast tells whether the cached entry
 * decided. A hit the entry decides is counted on it, its idle time renewed
 * unless the window check passed it as ignored (MOD_CT_FAST_IGNORED).
 */
static struct rule_decision
rx(struct world *w, struct fc_pkt p, bool *fast)
{
	struct fc_table *t = rule_engine_table(w->eng, FC_AF_INET4);
	const void *key = &p.key.v4;
	uint32_t sig = fc_table_hash(t, key), idx;
	unsigned int ct = MOD_CT_FAST_PASS;
	struct rule_upcall up;
	struct rule_decision d;
	struct fc_action a;
	uint64_t hit = 0;

	w->now++;
	*fast = false;
	fc_table_lookup_bulk(t, 0, &key, &sig, 1, &hit, &a, &idx);
	memset(&up, 0, sizeof(up));
	up.reason = RULE_UPCALL_MISS;
	if (hit & 1) {
		up.reason = RULE_UPCALL_INTEREST;
		if (!rule_engine_stale(w->eng, &a, &p.key) && a.verdict != FC_VERDICT_SLOW &&
			!rule_engine_wants(&a, &p) &&
			(!(a.interest & FC_INTEREST_TCP_WIN) ||
				(ct = mod_ct_fast_check(mod_ct_module_fast(w->ct), &a, &p)) !=
					MOD_CT_FAST_SLOW) &&
			(!(a.interest & FC_INTEREST_SCTP) ||
				mod_ct_sctp_fast_check(mod_ct_module_fast(w->ct), &a,
					w->frame + p.l4_off, w->len - p.l4_off))) {
			memset(&d, 0, sizeof(d));
			d.verdict = a.verdict;
			d.rule_id = a.rule_id;
			*fast = true;
			fc_table_touch(t, idx, p.ip_len,
				ct == MOD_CT_FAST_IGNORED ? fc_table_last_seen(t, idx) : w->now);
			return d;
		}
	}
	up.pkt = p;
	up.frame = w->frame;
	up.frame_len = w->len;
	up.len = w->len;
	assert_int_equal(rule_engine_upcall_burst(w->eng, &up, 1, &d, w->now), 1);
	return d;
}

/* The connection of the client's key, or state NONE. */
static struct mod_ct_conn
conn_of(struct world *w, const struct fc_pkt *p, struct fc_action *a)
{
	struct rule_flow_info fi;
	struct mod_ct_conn c;

	memset(&c, 0, sizeof(c));
	if (rule_engine_flow_lookup(w->eng, &p->key, &fi) == 0) {
		if (a != NULL)
			*a = fi.act;
		if (mod_ct_module_conn_get(w->ct, &fi.act, &c) < 0)
			memset(&c, 0, sizeof(c));
	}
	return c;
}

/* Let a grace period of the (one, idle) reader pass and deferred work run. */
static void
grace(struct world *w)
{
	for (unsigned int i = 0; i < 4; i++) {
		rule_engine_quiescent(w->eng, 0);
		rule_engine_step(w->eng, w->now, 64);
	}
}

static const char *accept_all = "accept\n";
static const char *stateful = "accept ctstate established\n"
			      "drop ctstate invalid\n"
			      "accept proto tcp dport 80 ctstate new\n"
			      "policy drop\n";

/* ------------------------------------------------------------------------ */

static void
test_records(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct fc_action a;
	struct fc_pkt p;
	struct world w;
	uint32_t id1, id2;
	bool fast;

	(void)state;
	world_up(&w, 2, accept_all);
	/* Two connections fit; their entries carry record ids 1 and 2. */
	p = seg(&w, true, PB_TCP_SYN, C0, 0, 0);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	assert_int_equal(conn_of(&w, &p, &a).state, MOD_CT_S_SYN_SENT);
	id1 = mod_ct_entry_id(&a);
	assert_true(id1 != 0);
	p.key.v4.sport = htons(1235);
	d = rx(&w, p, &fast);
	assert_int_equal(conn_of(&w, &p, &a).state, MOD_CT_S_SYN_SENT);
	id2 = mod_ct_entry_id(&a);
	assert_true(id2 != 0 && id2 != id1);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 2);
	/* A third does not: INVALID, no entry, counted. */
	p.key.v4.sport = htons(1236);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	assert_int_equal(rule_engine_flow_lookup(w.eng, &p.key, NULL), -ENOENT);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_full, 1);
	assert_int_equal(st.tcp_conns, 2);

	/* The first connection is refused (RST before any reply): it goes ... */
	p = seg(&w, false, PB_TCP_RST | PB_TCP_ACK, 0, C0 + 1, 0);
	d = rx(&w, p, &fast);
	assert_false(fast);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	p = seg(&w, true, PB_TCP_SYN, C0, 0, 0);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_NONE);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.removed, 1);
	/* ... and its record comes back only after a grace period. */
	assert_int_equal(st.tcp_conns, 2);
	grace(&w);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 1);
	/* Now a new connection gets it again. */
	p.key.v4.sport = htons(1237);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	assert_int_equal(conn_of(&w, &p, &a).state, MOD_CT_S_SYN_SENT);
	assert_int_equal(mod_ct_entry_id(&a), id1);
	world_down(&w);
}

/*
 * An SCTP packet between 10.0.0.1:5000 (client, @p from_client) and
 * 10.0.0.2:36412: tag @p vtag, one chunk of @p type (an INIT or INIT ACK
 * with Initiate Tag @p itag; 20 bytes).
 */
static struct fc_pkt
sctp_seg(struct world *w, bool from_client, uint32_t vtag, uint8_t type, uint32_t itag)
{
	struct pb_ipv4 ip = {.src = from_client ? 0x0a000001 : 0x0a000002,
		.dst = from_client ? 0x0a000002 : 0x0a000001};
	uint8_t ch[20] = {type, 0, 0, 20, (uint8_t)(itag >> 24), (uint8_t)(itag >> 16),
		(uint8_t)(itag >> 8), (uint8_t)itag};
	struct fc_pkt p;
	struct pb b;
	int n;

	pb_init(&b, w->frame, sizeof(w->frame));
	pb_eth(&b, NULL, NULL);
	pb_ipv4(&b, &ip);
	pb_sctp(&b, from_client ? 5000 : 36412, from_client ? 36412 : 5000, vtag);
	pb_payload(&b, ch, sizeof(ch));
	n = pb_finish(&b);
	assert_true(n > 0);
	w->len = (uint32_t)n;
	assert_int_equal(fc_parse(w->frame, w->len, &p), FC_PARSE_OK);
	return p;
}

/*
 * SCTP associations live in records (counted in sctp_conns; beyond the
 * limit INVALID, counted in tcp_full), their tags in the record: after
 * the handshake DATA with the right tag is the cached entry's, with
 * another tag the slow path's (INVALID); the record goes with the flow.
 */
static void
test_sctp_records(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct fc_action a;
	struct fc_pkt p;
	struct world w;
	bool fast;

	(void)state;
	world_up(&w, 1, accept_all);
	p = sctp_seg(&w, true, 0, 1, 0x1000);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	assert_int_equal(conn_of(&w, &p, &a).state, MOD_CT_S_SCTP_CLOSED);
	assert_true(mod_ct_entry_id(&a) != 0);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.sctp_conns, 1);
	assert_int_equal(st.tcp_conns, 0);
	/* No record left for another association. */
	p.key.v4.sport = htons(5001);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_full, 1);
	/* The handshake, on the slow path. */
	d = rx(&w, sctp_seg(&w, false, 0x1000, 2, 0x2000), &fast);
	assert_false(fast);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	d = rx(&w, sctp_seg(&w, true, 0x2000, 10, 0), &fast);
	assert_false(fast);
	d = rx(&w, sctp_seg(&w, false, 0x1000, 11, 0), &fast);
	assert_false(fast);
	p = sctp_seg(&w, true, 0x2000, 0, 0);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_SCTP_ESTABLISHED);
	assert_true(conn_of(&w, &p, NULL).flags & MOD_CT_C_ASSURED);
	/* DATA: the cached entry's with the tag, INVALID without. */
	d = rx(&w, p, &fast);
	assert_true(fast);
	d = rx(&w, sctp_seg(&w, false, 0x1000, 3, 0), &fast);
	assert_true(fast);
	d = rx(&w, sctp_seg(&w, true, 0x2001, 0, 0), &fast);
	assert_false(fast);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.invalid[MOD_CT_WHY_SCTP_VTAG], 1);
	/* An ABORT: CLOSED, the record kept with the entries. */
	d = rx(&w, sctp_seg(&w, false, 0x1000, 6, 0), &fast);
	assert_false(fast);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_SCTP_CLOSED);
	grace(&w);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.sctp_conns, 1);
	world_down(&w);
}

/*
 * What Linux's SCTP tracker accepts without refreshing its timer renews no
 * idle time here: an INIT retransmitted in CLOSED (counted ct_ignored)
 * leaves the entries' last hit at the first INIT's, so the association
 * ages out 10 s (sctp_closed) after that INIT, not after the
 * retransmission; a packet that is not ignored (the reply's INIT ACK)
 * renews it. Fails with every accepted packet renewing.
 */
static void
test_sctp_ignored_renew(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct fc_pkt p;
	struct world w;
	bool fast;

	(void)state;
	world_up(&w, 4, accept_all);
	p = sctp_seg(&w, true, 0, 1, 0x1000);
	d = rx(&w, p, &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	w.now += 6000;
	d = rx(&w, sctp_seg(&w, true, 0, 1, 0x1000), &fast);
	assert_false(fast);
	assert_int_not_equal(d.ctstate, RULE_CT_INVALID);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.ignored, 1);
	w.now += 5000; /* 11 s after the first INIT, 5 s after the second */
	for (unsigned int i = 0; i < 1024; i++)
		rule_engine_step(w.eng, w.now, 64);
	p = sctp_seg(&w, true, 0, 1, 0x1000);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_NONE);
	grace(&w);

	/* Again, answered 6 s on: the INIT ACK renews (COOKIE_WAIT's 3 s from it). */
	d = rx(&w, sctp_seg(&w, true, 0, 1, 0x1000), &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	w.now += 6000;
	d = rx(&w, sctp_seg(&w, false, 0x1000, 2, 0x2000), &fast);
	assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
	w.now += 2000;
	for (unsigned int i = 0; i < 1024; i++)
		rule_engine_step(w.eng, w.now, 64);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_SCTP_COOKIE_WAIT);
	world_down(&w);
}

/* Three days, in the engine's milliseconds (tcp_established is five). */
#define DAYS3 (3u * 86400u * 1000u)

/* Age the engine's entries at w->now. */
static void
age(struct world *w)
{
	for (unsigned int i = 0; i < 1024; i++)
		rule_engine_step(w->eng, w->now, 64);
}

/*
 * TCP segments Linux's conntrack accepts and ignores renew no idle time
 * (it returns NF_ACCEPT before nf_ct_refresh_acct()): old data far below
 * the windows, passed on the fast path as ignored (MOD_CT_FAST_IGNORED),
 * and a SYN of the original side in ESTABLISHED, ignored on the slow path
 * (ct_ignored), both three days after the last data, leave the entries'
 * last hit where it was: the connection ages out five days after that
 * data. An in-window segment at three days renews. Fails with either
 * ignored segment renewing.
 */
static void
test_tcp_ignored_renew(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct fc_pkt p;
	struct world w;
	uint32_t cs = C0 + 1, ss = S0 + 1;
	bool fast;

	(void)state;
	world_up(&w, 0, accept_all);
	for (unsigned int round = 0; round < 2; round++) {
		d = rx(&w, seg(&w, true, PB_TCP_SYN, C0, 0, 0), &fast);
		assert_int_equal(d.ctstate, RULE_CT_NEW);
		d = rx(&w, seg(&w, false, PB_TCP_SYN | PB_TCP_ACK, S0, C0 + 1, 0), &fast);
		d = rx(&w, seg(&w, true, PB_TCP_ACK, C0 + 1, S0 + 1, 0), &fast);
		cs = C0 + 1;
		ss = S0 + 1;
		d = rx(&w, seg(&w, true, PB_TCP_ACK | PB_TCP_PSH, cs, ss, 100), &fast);
		assert_true(fast);
		cs += 100;
		d = rx(&w, seg(&w, false, PB_TCP_ACK, ss, cs, 0), &fast);
		assert_true(fast);
		p = seg(&w, true, PB_TCP_ACK, cs, ss, 0);
		assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_ESTABLISHED);
		w.now += DAYS3;
		if (round == 0) {
			/* Old data, acknowledged long ago: passed, ignored. */
			d = rx(&w, seg(&w, true, PB_TCP_ACK | PB_TCP_PSH, cs - 1000000, ss, 100),
				&fast);
			assert_true(fast);
			assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
			/* A SYN in ESTABLISHED: the slow path ignores it. */
			d = rx(&w, seg(&w, true, PB_TCP_SYN, C0 + 70000, 0, 0), &fast);
			assert_false(fast);
			assert_int_equal(d.ctstate, RULE_CT_ESTABLISHED);
			mod_ct_module_stats_get(w.ct, &st);
			assert_int_equal(st.ignored, 1);
		} else {
			/* New data in the window: it renews. */
			d = rx(&w, seg(&w, true, PB_TCP_ACK | PB_TCP_PSH, cs, ss, 100), &fast);
			assert_true(fast);
		}
		w.now += DAYS3;
		age(&w);
		if (round == 0) {
			assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_NONE);
			grace(&w);
		} else {
			assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_ESTABLISHED);
		}
	}
	world_down(&w);
}

static void
test_abort_and_flush(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct fc_pkt p;
	struct world w;
	bool fast;

	(void)state;
	/* A SYN the filter drops is cached as a drop, without connection: no record. */
	world_up(&w, 0, stateful);
	p = seg(&w, true, PB_TCP_SYN, C0, 0, 0);
	p.key.v4.dport = htons(81);
	d = rx(&w, p, &fast);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 0);
	/* A flush removes every connection; records come back after the grace period. */
	p.key.v4.dport = htons(80);
	d = rx(&w, p, &fast);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 1);
	rule_engine_flush(w.eng);
	grace(&w);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 0);
	world_down(&w);
}

static void
test_fast_path(void **state)
{
	struct mod_ct_module_stats st;
	struct rule_decision d;
	struct mod_ct_conn c;
	struct fc_action a;
	struct fc_pkt p;
	struct world w;
	uint32_t cs = C0 + 1, ss = S0 + 1;
	bool fast;

	(void)state;
	world_up(&w, 0, stateful);
	d = rx(&w, seg(&w, true, PB_TCP_SYN, C0, 0, 0), &fast);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(&w, seg(&w, false, PB_TCP_SYN | PB_TCP_ACK, S0, C0 + 1, 0), &fast);
	assert_false(fast);
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs, ss, 0), &fast);
	assert_true(fast); /* SYN_RECV: the handshake's last ACK, on the fast path */
	p = seg(&w, true, PB_TCP_ACK, cs, ss, 0);
	c = conn_of(&w, &p, &a);
	assert_int_equal(c.state, MOD_CT_S_ESTABLISHED);
	assert_true(c.flags & MOD_CT_C_ASSURED);
	assert_true(a.interest & FC_INTEREST_TCP_WIN);
	assert_false(a.interest & FC_INTEREST_TCP_FIN);
	assert_false(a.flags & FC_ACT_F_EARLY); /* replied: no longer early */

	/* Data both ways within the windows: the cached entries decide. */
	for (unsigned int i = 0; i < 20; i++) {
		d = rx(&w, seg(&w, true, PB_TCP_ACK | PB_TCP_PSH, cs, ss, 100), &fast);
		assert_true(fast);
		cs += 100;
		d = rx(&w, seg(&w, false, PB_TCP_ACK, ss, cs, 50), &fast);
		assert_true(fast);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		ss += 50;
	}
	/* The record has not moved; the connection as read has (the progress folded in). */
	c = conn_of(&w, &p, NULL);
	assert_int_equal(c.tcp.side[MOD_CT_DIR_ORIG].end, cs);
	assert_int_equal(c.tcp.side[MOD_CT_DIR_REPLY].end, ss);

	/* Beyond the window: the fast path cannot vouch for it, the slow path drops it. */
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs + 1000000, ss, 10), &fast);
	assert_false(fast);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	/* An ACK of data the server never sent: the same. */
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs, ss + 10, 0), &fast);
	assert_false(fast);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	/* A retransmission goes to the slow path, which accepts it. */
	d = rx(&w, seg(&w, false, PB_TCP_ACK, ss - 50, cs, 50), &fast);
	assert_false(fast);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	/* A segment without ACK: INVALID (flags). */
	d = rx(&w, seg(&w, true, 0, cs, 0, 0), &fast);
	assert_false(fast);
	assert_int_equal(d.ctstate, RULE_CT_INVALID);
	/* And after all that, the fast path again. */
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs, ss, 10), &fast);
	assert_true(fast);
	cs += 10;

	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.invalid[MOD_CT_WHY_SEQ], 1);
	assert_int_equal(st.invalid[MOD_CT_WHY_ACK], 1);
	assert_int_equal(st.invalid[MOD_CT_WHY_FLAGS], 1);
	assert_int_equal(st.tcp_conns, 1);

	/* Close: the fast path moves the state, FINs included. */
	d = rx(&w, seg(&w, true, PB_TCP_FIN | PB_TCP_ACK, cs, ss, 0), &fast);
	assert_true(fast);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_FIN_WAIT);
	d = rx(&w, seg(&w, false, PB_TCP_FIN | PB_TCP_ACK, ss, cs + 1, 0), &fast);
	assert_true(fast);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_LAST_ACK);
	/* The FIN again: a retransmission, the slow path's. */
	d = rx(&w, seg(&w, false, PB_TCP_FIN | PB_TCP_ACK, ss, cs + 1, 0), &fast);
	assert_false(fast);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs + 1, ss + 1, 0), &fast);
	assert_true(fast);
	c = conn_of(&w, &p, NULL);
	assert_int_equal(c.state, MOD_CT_S_TIME_WAIT);
	assert_true(c.tcp.side[MOD_CT_DIR_ORIG].flags & MOD_CT_TS_CLOSE_INIT);
	/* A new SYN reopens the tuple (closed by a FIN, as the fast path
	 * recorded): the old record goes, a new one comes. */
	d = rx(&w, seg(&w, true, PB_TCP_SYN, C0 + 500000, 0, 0), &fast);
	assert_int_equal(d.ctstate, RULE_CT_NEW);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_SYN_SENT);
	grace(&w);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.reopened, 1);
	assert_int_equal(st.tcp_conns, 1);

	/* Two upcalls for the whole connection: the SYN and the first reply. */
	cs = C0 + 500001;
	d = rx(&w, seg(&w, false, PB_TCP_SYN | PB_TCP_ACK, S0, cs, 0), &fast);
	assert_false(fast);
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs, ss = S0 + 1, 0), &fast);
	assert_true(fast);
	d = rx(&w, seg(&w, true, PB_TCP_ACK | PB_TCP_PSH, cs, ss, 100), &fast);
	assert_true(fast);
	cs += 100;
	d = rx(&w, seg(&w, true, PB_TCP_FIN | PB_TCP_ACK, cs, ss, 0), &fast);
	assert_true(fast);
	d = rx(&w, seg(&w, false, PB_TCP_FIN | PB_TCP_ACK, ss, cs + 1, 0), &fast);
	assert_true(fast);
	d = rx(&w, seg(&w, true, PB_TCP_ACK, cs + 1, ss + 1, 0), &fast);
	assert_true(fast);
	c = conn_of(&w, &p, &a);
	assert_int_equal(c.state, MOD_CT_S_TIME_WAIT);
	/* Its entries still hold the timeout the slow path stored (SYN_RECV's);
	 * aging asks the module for the one in force, TIME_WAIT's. */
	w.now += 100000; /* 100 s: beyond SYN_RECV's 60 s, within TIME_WAIT's 120 s */
	for (unsigned int i = 0; i < 1024; i++)
		rule_engine_step(w.eng, w.now, 64);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_TIME_WAIT);
	w.now += 30000;
	for (unsigned int i = 0; i < 1024; i++)
		rule_engine_step(w.eng, w.now, 64);
	assert_int_equal(conn_of(&w, &p, NULL).state, MOD_CT_S_NONE);
	grace(&w);
	mod_ct_module_stats_get(w.ct, &st);
	assert_int_equal(st.tcp_conns, 0);
	world_down(&w);
}

static void
test_bad_args(void **state)
{
	struct mod_ct_module_params cp;
	struct mod_ct_conn c;
	struct fc_action a;
	struct world w;
	struct mod_ct_module_stats st;

	(void)state;
	world_up(&w, 0, accept_all);
	memset(&cp, 0, sizeof(cp));
	assert_null(mod_ct_module_create(NULL, &cp));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(mod_ct_module_create(w.eng, NULL));
	cp.max_tcp = MOD_CT_ID_MAX;
	assert_null(mod_ct_module_create(w.eng, &cp));
	assert_int_equal(rte_errno, EINVAL);
	memset(&a, 0, sizeof(a));
	assert_int_equal(mod_ct_module_conn_get(NULL, &a, &c), -EINVAL);
	assert_int_equal(mod_ct_module_conn_get(w.ct, NULL, &c), -EINVAL);
	assert_int_equal(mod_ct_module_conn_get(w.ct, &a, NULL), -EINVAL);
	/* An untracked entry, and an id no record has. */
	assert_int_equal(mod_ct_module_conn_get(w.ct, &a, &c), -ENOENT);
	a.ct_state = MOD_CT_ENTRY_ID;
	a.ext = 5;
	assert_int_equal(mod_ct_module_conn_get(w.ct, &a, &c), -ENOENT);
	assert_null(mod_ct_module_fast(NULL));
	assert_non_null(mod_ct_module_fast(w.ct));
	mod_ct_module_stats_get(NULL, &st);
	assert_int_equal(st.tcp_conns, 0);
	mod_ct_module_stats_get(w.ct, NULL);
	mod_ct_module_free(NULL);
	world_down(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_sctp_records),
		cmocka_unit_test(test_sctp_ignored_renew),
		cmocka_unit_test(test_tcp_ignored_renew),
		cmocka_unit_test(test_abort_and_flush),
		cmocka_unit_test(test_fast_path),
		cmocka_unit_test(test_bad_args),
	};

	if (gufc_test_eal_init("ct_module", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
