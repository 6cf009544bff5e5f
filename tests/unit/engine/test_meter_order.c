/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of a meter written before a port match (issue 11): netfilter
 * evaluates a rule's matches in their order, so "-m limit" (a hashlimit
 * bucket) takes a token from every packet that reaches it, also from the
 * packets a later "--dport" then refuses. The engine caches such flows
 * with "charge the meter and go on" (a program's rule_pktprog::pre): the
 * fast path takes the tokens, no packet goes up for it. On the app's
 * module stack (tests/unit/common/eng_stack.c).
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

#include "eal_test.h"
#include "eng_stack.h"
#include "rule_lang.h"

static int eng_seq;

static struct rule_upcall
up4(uint8_t proto, const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct rule_upcall u;

	memset(&u, 0, sizeof(u));
	u.pkt.key.family = FC_AF_INET4;
	inet_pton(AF_INET, src, &u.pkt.key.v4.src);
	inet_pton(AF_INET, dst, &u.pkt.key.v4.dst);
	u.pkt.key.v4.sport = htons(sport);
	u.pkt.key.v4.dport = htons(dport);
	u.pkt.key.v4.proto = proto;
	u.pkt.ip_len = 100;
	u.len = 100;
	u.reason = RULE_UPCALL_MISS;
	return u;
}

static int
pair_fn(void *arg, uint16_t port)
{
	(void)arg;
	return port < 2 ? port ^ 1 : -ENOENT;
}

static struct rule_engine *
mk_engine_ct(bool ct)
{
	struct eng_stack_params p;
	char name[16];
	struct rule_engine *eng;

	memset(&p, 0, sizeof(p));
	snprintf(name, sizeof(name), "mo%d", eng_seq++);
	p.eng.name = name;
	p.eng.capacity_v4 = 256;
	p.eng.capacity_v6 = 64;
	p.eng.full_policy = FC_FULL_REFUSE;
	p.eng.default_channel = 1;
	p.eng.port_pair_fn = pair_fn;
	p.conntrack = ct;
	eng = eng_stack_create(&p);
	assert_non_null(eng);
	return eng;
}

static struct rule_engine *
mk_engine(void)
{
	return mk_engine_ct(false);
}

/* A packet as lib/datapath takes it: a hit on a usable entry is decided here (meters, programs). */
static struct rule_decision
rx(struct rule_engine *eng, struct rule_upcall u, uint32_t now)
{
	return eng_stack_rx(eng, u, now, NULL);
}

/* Does the cached entry of @p u's flow charge a meter on the fast path (no upcall)? */
static void
assert_charges(struct rule_engine *eng, const struct rule_upcall *u, unsigned int n_pre)
{
	const struct fc_entry *e = eng_stack_entry(eng, &u->pkt.key);
	const struct rule_pktprog *p;

	assert_non_null(e);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_true(e->act.flags & FC_ACT_F_PKTACT);
	p = rule_engine_pktprog(eng, e->act.pkt_class);
	assert_int_equal(p->n_pre, n_pre);
}

/*
 * "-m limit" before "--dport 22" (native: the order written): two packets
 * to port 23 take the burst of 2 (each refused by the port match after
 * taking its token), so the first packet to port 22 finds the bucket
 * empty and the next rule drops it, as in Linux. The flow to port 23 is
 * cached: its second packet takes its token on the fast path. The meter's
 * rule counts neither (it matched neither).
 */
static void
test_limit_before_port(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_upcall b = up4(6, "10.0.0.1", 1000, "10.0.0.2", 23);
	struct rule_upcall a = up4(6, "10.0.0.1", 1001, "10.0.0.2", 22);
	struct rule_decision d;
	uint64_t pk = 0, by = 0;

	(void)state;
	eng_stack_load(eng,
		"accept proto tcp limit 1/hour limit_burst 2 dport 22\n"
		"drop proto tcp dport 22\n",
		true);
	d = eng_stack_decide(eng, b, 1); /* token 1, in the walk */
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_charges(eng, &b, 1);
	d = rx(eng, b, 2); /* token 2, on the fast path */
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, a, 3); /* the bucket is empty: rule 1 fails, rule 2 drops */
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(rule_engine_rule_counters(eng, 1, &pk, &by), 0);
	assert_int_equal(pk, 0);
	eng_stack_free(eng);
}

/*
 * The port match written first ("dport 22" before "limit"): packets to
 * port 23 never reach the meter (as before, and as Linux), so the flow to
 * port 22 finds its whole burst.
 */
static void
test_port_before_limit(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_upcall b = up4(6, "10.0.0.1", 1000, "10.0.0.2", 23);
	struct rule_upcall a = up4(6, "10.0.0.1", 1001, "10.0.0.2", 22);
	const struct fc_entry *e;

	(void)state;
	eng_stack_load(eng,
		"accept proto tcp dport 22 limit 1/hour limit_burst 2\n"
		"drop proto tcp dport 22\n",
		true);
	assert_int_equal(rx(eng, b, 1).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, b, 2).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &b.pkt.key);
	assert_non_null(e);
	assert_false(e->act.flags & FC_ACT_F_PKTACT);
	assert_int_equal(rx(eng, a, 3).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, a, 4).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rx(eng, a, 5).verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

/*
 * A hashlimit bucket per source (kept as a meter: expire 3 hours), written
 * before "--dport 53", in a user chain reached by a jump: the source's
 * packets to other ports drain its bucket; another source keeps its own.
 * Then two such rules and a deciding meter in one walk: the flow to port
 * 9 charges both earlier meters and is decided by the third; each bucket
 * ran dry as Linux's would.
 */
static void
test_hashlimit_chain_and_several(void **state)
{
	struct rule_engine *eng = mk_engine();
	struct rule_upcall o1 = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54);
	struct rule_upcall d1 = up4(17, "10.0.0.1", 1001, "10.0.0.2", 53);
	struct rule_upcall d3 = up4(17, "10.0.0.3", 1001, "10.0.0.2", 53);
	struct rule_upcall n9 = up4(17, "10.0.0.1", 1002, "10.0.0.2", 9);
	struct rule_upcall n7 = up4(17, "10.0.0.1", 1003, "10.0.0.2", 7);
	struct rule_decision d;

	(void)state;
	eng_stack_load(eng,
		"jump C proto udp\n"
		"chain C\n"
		"accept proto udp hashlimit_upto 1/hour hashlimit_burst 2 hashlimit_mode srcip "
		"hashlimit_name H hashlimit_htable_expire 10800000 dport 53\n"
		"drop proto udp dport 53\n"
		"accept proto udp limit 1/hour limit_burst 3 dport 7\n"
		"drop proto udp dport 7\n"
		"drop proto udp limit 1/hour limit_burst 1 dport 8\n"
		"accept proto udp limit 1/hour limit_burst 1 dport 9\n"
		"drop proto udp dport 9\n",
		true);
	/* o1 (port 54) charges H(10.0.0.1) twice: the bucket is empty. */
	d = eng_stack_decide(eng, o1, 1);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	d = rx(eng, o1, 2);
	assert_int_equal(d.flags, RULE_DEC_F_CACHED);
	assert_int_equal(rx(eng, d1, 3).verdict, FC_VERDICT_DROP);
	/* Another source: its own, full bucket. */
	assert_int_equal(rx(eng, d3, 4).verdict, FC_VERDICT_ACCEPT);
	/*
	 * o1's walk charged the meters of ports 7, 8 and 9 too (two packets:
	 * port 7's burst of 3 has one left, 8's and 9's are empty since o1's
	 * first packet): o1 charges 4 meters on the fast path.
	 */
	assert_charges(eng, &o1, 4);
	/*
	 * Port 9: H, port 7's and port 8's meters charged (port 7's last
	 * token), port 9's decides: empty since o1, so the next rule drops.
	 */
	d = rx(eng, n9, 5);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* Port 7: its meter is empty now, the rule after it drops. */
	assert_int_equal(rx(eng, n7, 6).verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

/*
 * Replies pass the meter too (FORWARD sees both directions): a tracked
 * connection to port 80 takes a token with its SYN and with each reply,
 * whose entry charges the meter on its own (not decided per packet), so
 * a connection to port 22 finds the burst of 3 gone.
 */
static void
test_reply_charges(void **state)
{
	struct rule_engine *eng = mk_engine_ct(true);
	struct rule_upcall syn = up4(6, "10.0.0.1", 1000, "10.0.0.2", 80);
	struct rule_upcall rep = up4(6, "10.0.0.2", 80, "10.0.0.1", 1000);
	struct rule_upcall syn22 = up4(6, "10.0.0.1", 1001, "10.0.0.2", 22);
	const struct fc_entry *e;

	(void)state;
	syn.pkt.tcp_flags = 0x02;
	syn22.pkt.tcp_flags = 0x02;
	rep.pkt.tcp_flags = 0x12; /* SYN|ACK */
	rep.pkt.key.v4.in_port = 1;
	rep.in_port = 1;
	eng_stack_load(eng,
		"accept proto tcp limit 1/hour limit_burst 3 dport 22\n"
		"drop proto tcp dport 22\n",
		true);
	assert_int_equal(eng_stack_decide(eng, syn, 1).verdict, FC_VERDICT_ACCEPT); /* token 1 */
	e = eng_stack_entry(eng, &rep.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(e->act.verdict, FC_VERDICT_SLOW);
	assert_charges(eng, &rep, 1);
	assert_int_equal(rx(eng, rep, 2).verdict, FC_VERDICT_ACCEPT); /* token 2 */
	rep.pkt.tcp_flags = 0x10; /* ACK */
	assert_int_equal(rx(eng, rep, 3).verdict, FC_VERDICT_ACCEPT); /* token 3 */
	assert_int_equal(rx(eng, syn22, 4).verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

/*
 * "-m recent --set" before "--dport 53": the packet to port 54 adds its
 * source (the match ran, as in Linux) and the rule fails at the port; the
 * next rule's --rcheck then finds it and drops. Written the other way
 * round, the port match stops the packet before the list: accepted.
 */
static void
test_recent_before_port(void **state)
{
	struct rule_upcall o = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54);
	const char *sets[2] = {
		"accept proto udp recent_set recent_name R dport 53\n"
		"drop proto udp recent_rcheck recent_name R\n",
		"accept proto udp dport 53 recent_set recent_name R\n"
		"drop proto udp recent_rcheck recent_name R\n",
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_engine *eng = mk_engine();

		eng_stack_load(eng, sets[i], true);
		assert_int_equal(
			rx(eng, o, 1).verdict, i == 0 ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT);
		eng_stack_free(eng);
	}
}

/*
 * iptables' order: "-m hashlimit ... -m udp --dport 53" keeps the port match
 * after the meter, "-m udp --dport 53 -m hashlimit" before it, and both
 * read back as written; native text keeps it too.
 */
static void
test_order_kept(void **state)
{
	static const char *const lines[] = {
		"-A INPUT -p udp -m hashlimit --hashlimit-upto 1/min --hashlimit-burst 2 "
		"--hashlimit-mode srcip --hashlimit-name ORDER -m udp --dport 53 -j ACCEPT",
		"-A INPUT -p udp -m udp --dport 53 -m limit --limit 1/min -j ACCEPT",
		"-A INPUT -p tcp -m tcp --sport 5 -m limit --limit 1/min -m multiport --dports 7,9 "
		"-j ACCEPT",
	};
	/* As the export writes them (names quoted): the order is kept. */
	static const char *const saved[] = {
		" -p udp -m hashlimit --hashlimit-upto 1/min --hashlimit-burst 2 "
		"--hashlimit-mode srcip --hashlimit-name \"ORDER\" -m udp --dport 53 -j ACCEPT",
		" -p udp -m udp --dport 53 -m limit --limit 1/min --limit-burst 5 -j ACCEPT",
		" -p tcp -m tcp --sport 5 -m limit --limit 1/min --limit-burst 5 "
		"-m multiport --dports 7,9 -j ACCEPT",
	};
	const char *native[] = {"accept proto udp limit 1/min limit_burst 5 dport 53",
		"accept proto udp dport 53 limit 1/min limit_burst 5",
		"accept proto udp string \"x\" string_algo bm dport 53"};
	const char *string_first = "accept proto udp dport 53 string \"x\" string_algo bm";
	char text[1024], out[1024];
	struct rule_error err;
	struct rule r;

	(void)state;
	for (unsigned int i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct rule_set *s;
		const struct rule_chain *c;

		snprintf(text, sizeof(text), "*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n",
			lines[i]);
		s = rule_set_parse_iptables_af(text, "t", FC_AF_INET4, &err);
		assert_non_null(s);
		c = rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_INPUT);
		assert_non_null(c);
		assert_int_equal(c->n_rules, 1);
		assert_int_equal(c->rules[0].dport_at, i == 1 ? 0 : 1);
		assert_int_equal(c->rules[0].sport_at, 0);
		assert_true(rule_format_iptables(&c->rules[0], FC_AF_INET4, out, sizeof(out)) > 0);
		assert_string_equal(out, saved[i]);
		rule_set_free(s);
	}
	for (unsigned int i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
		assert_int_equal(rule_parse(native[i], &r, &err), 0);
		/* A string match leaves no state: the port match's place does not count. */
		assert_int_equal(r.dport_at, i == 0 ? 1 : 0);
		assert_true(rule_format(&r, out, sizeof(out)) > 0);
		assert_string_equal(out, i == 2 ? string_first : native[i]);
	}
}

/*
 * A ctstate match after a meter (issue 11): "limit ... ctstate new" takes
 * a token from every packet reaching it, also from the untracked ones the
 * state match then refuses. The untracked flow's entry charges the meter
 * on the fast path; written before the meter, the state match stops the
 * flow first (no meter to charge).
 */
static void
test_limit_before_ctstate(void **state)
{
	struct rule_upcall b = up4(6, "10.0.0.1", 1000, "10.0.0.2", 23);
	const char *sets[2] = {
		"accept proto tcp limit 1/hour limit_burst 2 ctstate new\n",
		"accept proto tcp ctstate new limit 1/hour limit_burst 2\n",
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_engine *eng = mk_engine();
		const struct fc_entry *e;
		struct rule_decision d;

		eng_stack_load(eng, sets[i], true);
		d = eng_stack_decide(eng, b, 1);
		assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
		if (i == 0) {
			assert_charges(eng, &b, 1);
			d = rx(eng, b, 2);
			assert_int_equal(d.flags, RULE_DEC_F_CACHED);
		} else {
			e = eng_stack_entry(eng, &b.pkt.key);
			assert_non_null(e);
			assert_false(e->act.flags & FC_ACT_F_PKTACT);
		}
		eng_stack_free(eng);
	}
}

/*
 * Tracked connections: "limit ... ctstate established" before "accept
 * ctstate new". Two connections' SYNs (NEW) take the burst of 2 and are
 * refused by the state match (the next rule accepts them), so the first
 * connection's SYN|ACK (ESTABLISHED) finds the bucket empty and the last
 * rule drops it, as in Linux. The state match written first: the SYNs
 * never reach the meter, the reply takes a token and passes.
 */
static void
test_ctstate_tracked(void **state)
{
	const char *sets[2] = {
		"accept proto tcp limit 1/hour limit_burst 2 ctstate established\n"
		"accept proto tcp ctstate new\n"
		"drop proto tcp\n",
		"accept proto tcp ctstate established limit 1/hour limit_burst 2\n"
		"accept proto tcp ctstate new\n"
		"drop proto tcp\n",
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_engine *eng = mk_engine_ct(true);
		struct rule_upcall syn = up4(6, "10.0.0.1", 1000, "10.0.0.2", 80);
		struct rule_upcall syn2 = up4(6, "10.0.0.1", 1001, "10.0.0.2", 80);
		struct rule_upcall rep = up4(6, "10.0.0.2", 80, "10.0.0.1", 1000);

		syn.pkt.tcp_flags = 0x02;
		syn2.pkt.tcp_flags = 0x02;
		rep.pkt.tcp_flags = 0x12; /* SYN|ACK */
		rep.pkt.key.v4.in_port = 1;
		rep.in_port = 1;
		eng_stack_load(eng, sets[i], true);
		assert_int_equal(rx(eng, syn, 1).verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(rx(eng, syn2, 2).verdict, FC_VERDICT_ACCEPT);
		assert_int_equal(rx(eng, rep, 3).verdict,
			i == 0 ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT);
		eng_stack_free(eng);
	}
}

/*
 * "-m recent --set" before a state match: the untracked packet adds its
 * source, the state match refuses it, the next rule's --rcheck drops it.
 * The state match first: nothing is added, the packet is accepted.
 */
static void
test_recent_before_ctstate(void **state)
{
	struct rule_upcall o = up4(17, "10.0.0.1", 1000, "10.0.0.2", 54);
	const char *sets[2] = {
		"accept proto udp recent_set recent_name R ctstate new\n"
		"drop proto udp recent_rcheck recent_name R\n",
		"accept proto udp ctstate new recent_set recent_name R\n"
		"drop proto udp recent_rcheck recent_name R\n",
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct rule_engine *eng = mk_engine();

		eng_stack_load(eng, sets[i], true);
		assert_int_equal(
			rx(eng, o, 1).verdict, i == 0 ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT);
		eng_stack_free(eng);
	}
}

/*
 * iptables' order for state matches: "-m limit ... -m conntrack --ctstate"
 * and "-m recent ... -m state --state" keep the state match after the
 * meter and read back as written (a state match saves as conntrack);
 * before a match that leaves no state, the place does not count. State
 * matches on both sides of a meter are refused at the second; native
 * text keeps the place, and refuses src_local/dst_local after a meter.
 */
static void
test_ctstate_order_kept(void **state)
{
	static const char *const lines[] = {
		"-A INPUT -p udp -m limit --limit 1/min -m conntrack --ctstate NEW -j ACCEPT",
		"-A INPUT -m recent --set --name R --rsource -m state --state NEW,ESTABLISHED "
		"-j ACCEPT",
		"-A INPUT -m conntrack --ctstate NEW -m limit --limit 1/min -j ACCEPT",
		"-A INPUT -m mark --mark 0x1 -m conntrack --ctstate NEW -j ACCEPT",
	};
	static const char *const saved[] = {
		" -p udp -m limit --limit 1/min --limit-burst 5 -m conntrack --ctstate NEW -j ACCEPT",
		" -m recent --set --name \"R\" --rsource "
		"-m conntrack --ctstate NEW,ESTABLISHED -j ACCEPT",
		" -m conntrack --ctstate NEW -m limit --limit 1/min --limit-burst 5 -j ACCEPT",
		" -m conntrack --ctstate NEW -m mark --mark 0x1 -j ACCEPT",
	};
	static const uint8_t at[] = {1, 1, 0, 0};
	const char *native[] = {"accept proto udp limit 1/min limit_burst 5 ctstate new",
		"accept proto udp ctstate new limit 1/min limit_burst 5"};
	char text[1024], out[1024];
	struct rule_error err;
	struct rule_set *s;
	struct rule r;

	(void)state;
	for (unsigned int i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const struct rule_chain *c;

		snprintf(text, sizeof(text), "*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n",
			lines[i]);
		s = rule_set_parse_iptables_af(text, "t", FC_AF_INET4, &err);
		assert_non_null(s);
		c = rule_set_hook_chain(s, RULE_TABLE_FILTER, RULE_HOOK_INPUT);
		assert_non_null(c);
		assert_int_equal(c->n_rules, 1);
		assert_int_equal(c->rules[0].ctstate_at, at[i]);
		assert_true(rule_format_iptables(&c->rules[0], FC_AF_INET4, out, sizeof(out)) > 0);
		assert_string_equal(out, saved[i]);
		rule_set_free(s);
	}
	s = rule_set_parse_iptables_af("*filter\n:INPUT ACCEPT [0:0]\n"
				       "-A INPUT -m state --state NEW -m limit --limit 1/min "
				       "-m conntrack --ctstate NEW -j ACCEPT\nCOMMIT\n",
		"t", FC_AF_INET4, &err);
	assert_null(s);
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.msg, "both sides"));
	assert_string_equal(err.token, "--ctstate");
	for (unsigned int i = 0; i < sizeof(native) / sizeof(native[0]); i++) {
		assert_int_equal(rule_parse(native[i], &r, &err), 0);
		assert_int_equal(r.ctstate_at, i == 0 ? 1 : 0);
		assert_true(rule_format(&r, out, sizeof(out)) > 0);
		assert_string_equal(out, native[i]);
	}
	assert_int_equal(rule_parse("accept limit 1/min dst_local yes", &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "write dst_type LOCAL"));
	assert_int_equal(err.col, 20);
	assert_int_equal(rule_parse("accept limit 1/min limit_burst 5 dst_type LOCAL", &r, &err), 0);
	assert_int_equal(r.n_xm, 2);
	assert_int_equal(r.xm[1].kind, RULE_XM_ADDRTYPE);
}

/*
 * "-m quota" (native "quota N"): one countdown for every flow of the rule.
 * Flow a's first packet takes 100 of 250 in the walk, its second 100 on
 * the fast path (its entry holds the quota as a meter); flow b's first
 * (100 > 50) empties it and the next rule drops it; a's next packets drop
 * on the fast path, a 40-byte one too (it would have fitted in the 50
 * left, but an emptied quota lets nothing through, as xt_quota). Negated:
 * the flow passes while the bytes last. A reload numbering the rules anew
 * makes the quota whole again.
 */
static void
test_quota(void **state)
{
	static const char *const rules = "accept proto udp quota 250\n"
					 "drop proto udp\n"
					 "drop proto tcp quota !150\n";
	struct rule_engine *eng = mk_engine();
	struct rule_upcall a = up4(17, "10.0.0.1", 1000, "10.0.0.2", 53);
	struct rule_upcall b = up4(17, "10.0.0.3", 1001, "10.0.0.2", 53);
	struct rule_upcall t = up4(6, "10.0.0.1", 1002, "10.0.0.2", 80);
	struct rule_upcall small = a;
	struct rule_quota_info qi;
	const struct fc_entry *e;
	struct rule_decision d;
	bool slow = true;

	(void)state;
	small.pkt.ip_len = 40;
	small.len = 40;
	eng_stack_load(eng, rules, true);
	assert_int_equal(eng_stack_decide(eng, a, 1).verdict, FC_VERDICT_ACCEPT);
	e = eng_stack_entry(eng, &a.pkt.key);
	assert_non_null(e);
	assert_int_not_equal(rule_engine_act_meter(eng, &e->act), 0);
	d = eng_stack_rx(eng, a, 2, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(rule_engine_quota_info(eng, 0, &qi), 0);
	assert_int_equal(qi.rule_id, 1);
	assert_int_equal(qi.bytes, 250);
	assert_int_equal(qi.left, 50);
	assert_int_equal(rule_engine_quota_info(eng, 1, &qi), -ENOENT);
	assert_int_equal(eng_stack_decide(eng, b, 3).verdict, FC_VERDICT_DROP);
	assert_int_equal(rule_engine_quota_info(eng, 0, &qi), 0);
	assert_int_equal(qi.left, 0);
	d = eng_stack_rx(eng, small, 4, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	assert_int_equal(eng_stack_rx(eng, a, 5, NULL).verdict, FC_VERDICT_DROP);
	/* ! --quota 150: 100 fits (not dropped), the next 100 does not (dropped). */
	assert_int_equal(eng_stack_decide(eng, t, 6).verdict, FC_VERDICT_ACCEPT);
	d = eng_stack_rx(eng, t, 7, &slow);
	assert_false(slow);
	assert_int_equal(d.verdict, FC_VERDICT_DROP);
	/* A set numbered anew: whole again. */
	eng_stack_load(eng, rules, true);
	assert_int_equal(eng_stack_rx(eng, a, 8, NULL).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_rx(eng, a, 9, NULL).verdict, FC_VERDICT_ACCEPT);
	assert_int_equal(eng_stack_rx(eng, a, 10, NULL).verdict, FC_VERDICT_DROP);
	eng_stack_free(eng);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_before_port),
		cmocka_unit_test(test_quota),
		cmocka_unit_test(test_port_before_limit),
		cmocka_unit_test(test_hashlimit_chain_and_several),
		cmocka_unit_test(test_recent_before_port),
		cmocka_unit_test(test_reply_charges),
		cmocka_unit_test(test_order_kept),
		cmocka_unit_test(test_limit_before_ctstate),
		cmocka_unit_test(test_ctstate_tracked),
		cmocka_unit_test(test_recent_before_ctstate),
		cmocka_unit_test(test_ctstate_order_kept),
	};

	if (gufc_test_eal_init("meter_order", "0") < 0)
		return 1;
	return gufc_test_eal_end(cmocka_run_group_tests(tests, NULL, NULL));
}
