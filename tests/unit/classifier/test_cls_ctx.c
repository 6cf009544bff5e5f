/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the compiled classifier on whole packet contexts
 * (rule_cls_eval(), rule_eval.h) against the reference evaluator
 * (rule_ref_eval()), the oracle: random rule sets of all five tables with
 * interfaces, extension matches (marks, TCP flags, ICMP types, lengths,
 * TTLs, sets, meters, addrtype, conntrack tuples, ...), non-terminal
 * actions (LOG, MARK, CONNMARK, NOTRACK, DSCP, ...), REJECT and
 * guarded jumps, written in the native language; random packet contexts
 * for every stage. The whole result must be equal (verdict, deciding
 * rule, NAT, actions run in order, dependencies) and so must the updated
 * contexts, with and without a provider of stateful matches. A set the
 * classifier says reads no ports (rule_cls_reads_ports()) gives every
 * context the same result on other input and output ports.
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

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "classifier.h"
#include "eal_test.h"
#include "rule_lang.h"

static uint64_t rng_state;

static void
seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 7;
}

static uint32_t
rn(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

static bool
chance(unsigned int pct)
{
	return rn(100) < pct;
}

/* ------------------------------------------------------------------------ */
/* Random rule sets, as text                                                 */
/* ------------------------------------------------------------------------ */

static const char *const ports_names[] = {"eth0", "eth1", "ppp0", "lo"};
static const char *const v4_pfx[] = {"10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24",
	"192.0.2.7", "198.51.100.0/25", "0.0.0.0/0"};
static const char *const v6_pfx[] = {"2001:db8::/32", "2001:db8:1::/48", "fd00::/8",
	"2001:db8::7", "::/0"};
static const char *const ifs[] = {"eth0", "eth+", "ppp0", "lo", "+", "nosuch0", "e+"};

/* A chain being written: its table and the hooks it can be reached from. */
struct gen {
	char *buf;
	size_t len;
	size_t cap;
	unsigned int table;
	unsigned int hooks;
	bool v6;    /**< the rule is IPv6 */
	unsigned int nx; /**< extension matches written for the rule */
	int proto;  /**< the rule's protocol (tcp 6, udp 17, icmp 1/58), 0 none */
};

static void
out(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < g->cap - g->len)
			break;
		g->cap = g->cap * 2 + (size_t)n;
		g->buf = realloc(g->buf, g->cap);
		assert_non_null(g->buf);
	}
	g->len += (size_t)n;
}

static const char *
neg(unsigned int pct)
{
	return chance(pct) ? "!" : "";
}

/* Another extension match, with probability @pct, while the rule has room. */
static bool
xok(struct gen *g, unsigned int pct)
{
	if (g->nx >= RULE_XM_MAX - 1 || !chance(pct))
		return false;
	g->nx++;
	return true;
}

/* Generate sets without -i/-o and the extension matches that read addresses. */
static bool no_ports;

/* The matches of one rule. */
static void
gen_matches(struct gen *g)
{
	g->nx = 0;
	g->v6 = chance(40);
	g->proto = 0;
	out(g, " %s", g->v6 ? "ipv6" : "ipv4");
	if (chance(60)) {
		static const int protos[] = {6, 17, 1};

		g->proto = protos[rn(3)];
		if (g->proto == 1 && g->v6)
			g->proto = 58;
		out(g, " proto %d", g->proto);
	}
	if (chance(20))
		out(g, " src %s%s", neg(20), g->v6 ? v6_pfx[rn(5)] : v4_pfx[rn(6)]);
	if (chance(20))
		out(g, " dst %s%s", neg(20), g->v6 ? v6_pfx[rn(5)] : v4_pfx[rn(6)]);
	if (!no_ports && chance(25) && !(g->hooks & ~(RULE_HOOK_F(RULE_HOOK_PREROUTING) |
					 RULE_HOOK_F(RULE_HOOK_INPUT) | RULE_HOOK_F(RULE_HOOK_FORWARD))))
		out(g, " in %s%s", neg(25), ifs[rn(7)]);
	if (!no_ports && chance(20) && !(g->hooks & ~(RULE_HOOK_F(RULE_HOOK_FORWARD) |
					 RULE_HOOK_F(RULE_HOOK_OUTPUT) |
					 RULE_HOOK_F(RULE_HOOK_POSTROUTING))))
		out(g, " out %s%s", neg(25), ifs[rn(7)]);
	if ((g->proto == 6 || g->proto == 17) && chance(40))
		out(g, " dport %s%s", neg(20), chance(50) ? "22,80,443" : "1000-2000");
	if (chance(15))
		out(g, " src_local %s", chance(50) ? "yes" : "no");
	if (chance(25)) {
		static const char *const cts[] = {"new", "established,related", "invalid",
			"untracked", "new,dnat", "snat,dnat", "established"};

		out(g, " ctstate %s%s", neg(20), cts[rn(7)]);
	}
	/* extension matches (those that read nothing of the source or ports only) */
	if (no_ports) {
		if (xok(g, 10))
			out(g, " mark %s0x%x/0x%x", neg(20), rn(4), chance(50) ? 3 : 0xff);
		if (xok(g, 5))
			out(g, " connmark %s0x%x", neg(20), rn(3));
		if (g->proto == 6 && xok(g, 17))
			out(g, " tcp_flags %ssyn,rst,ack,fin syn", neg(20));
		if (xok(g, 7))
			out(g, " length %s%u:%u", neg(20), rn(100), 100 + rn(1400));
		return;
	}
	if (xok(g, 10))
		out(g, " mark %s0x%x/0x%x", neg(20), rn(4), chance(50) ? 3 : 0xff);
	if (xok(g, 5))
		out(g, " connmark %s0x%x", neg(20), rn(3));
	if (g->proto == 6 && xok(g, 17))
		out(g, " tcp_flags %ssyn,rst,ack,fin syn", neg(20));
	if (g->proto == 6 && xok(g, 5))
		out(g, " tcp_option %s%u", neg(20), 2 + rn(7));
	if (g->proto == 1 && xok(g, 20))
		out(g, " icmp_type %s%s", neg(20), chance(50) ? "echo-request" : "3/4");
	if (g->proto == 58 && xok(g, 20))
		out(g, " icmpv6_type %s%s", neg(20), chance(50) ? "128" : "destination-unreachable");
	if (xok(g, 7))
		out(g, " length %s%u:%u", neg(20), rn(100), 100 + rn(1400));
	if (xok(g, 7))
		out(g, g->v6 ? " hl_%s %u" : " ttl_%s %u", chance(50) ? "eq" : "gt", rn(128));
	if (xok(g, 5))
		out(g, " dscp %s0x%x", neg(20), rn(4) * 8);
	if (xok(g, 5))
		out(g, " limit %u/min", 1 + rn(10));
	if (xok(g, 5))
		out(g, " statistic_mode random statistic_probability %s0.5", neg(20));
	if (xok(g, 4))
		out(g, " recent_%s recent_name \"L%u\"", chance(50) ? "set" : "rcheck", rn(2));
	if (xok(g, 4))
		out(g, " connlimit_above %u", rn(3));
	if (xok(g, 4))
		out(g, " match_set %s%s %s", neg(20), g->v6 ? "n6" : "n4", chance(50) ? "src" : "dst");
	if ((g->proto == 6 || g->proto == 17) && xok(g, 3))
		out(g, " match_set %sp dst", neg(20));
	if (xok(g, 4)) {
		static const char *const dirs[] = {"src,src", "src,dst", "dst,dst", "dst,src"};

		out(g, " match_set %s%s %s", neg(20), g->v6 ? "i6" : "i4", dirs[rn(4)]);
	}
	if (xok(g, 5))
		out(g, " dst_type %s%s", neg(20), chance(50) ? "local" : "multicast,broadcast");
	if (!g->v6 && xok(g, 4))
		out(g, " src_range %s10.0.0.5-10.0.0.200", neg(20));
	if (!g->v6 && xok(g, 4))
		out(g, " %sfragment", neg(30));
	if (xok(g, 3))
		out(g, " pkt_type %sbroadcast", neg(20));
	if (g->proto == 6 && xok(g, 4))
		out(g, " tcpmss %s500:1400", neg(20));
	if (xok(g, 3))
		out(g, " ctorigdst %s%s ctdir %s", neg(20), g->v6 ? "2001:db8::/32" : "10.0.0.0/8",
			chance(50) ? "original" : "reply");
	if (xok(g, 2))
		out(g, " helper %sftp", neg(20));
	if (xok(g, 2))
		out(g, " connbytes %s1000 connbytes_dir both connbytes_mode bytes", neg(20));
	if (xok(g, 2))
		out(g, " rpfilter_invert");
	if (xok(g, 2))
		out(g, " timestart 08:00:00 timestop 18:00:00");
	if (xok(g, 2))
		out(g, " mac_source %s02:00:00:00:00:01", neg(20));
	if (g->v6 && xok(g, 2))
		out(g, " rt_type %s0", neg(20));
}

/* One rule of a chain: an action allowed there, then matches. */
static void
gen_rule(struct gen *g, const char *const *users, unsigned int n_users)
{
	unsigned int t = g->table, k = rn(100);
	size_t at = g->len;

	if (t == RULE_TABLE_NAT) {
		bool pre = g->hooks == RULE_HOOK_F(RULE_HOOK_PREROUTING);
		bool post = g->hooks == RULE_HOOK_F(RULE_HOOK_POSTROUTING);

		if (k < 25 && pre)
			out(g, "dnat to %s", "10.9.9.9");
		else if (k < 30 && pre)
			out(g, "redirect");
		else if (k < 45 && post)
			out(g, "snat to 192.0.2.99");
		else if (k < 55 && post)
			out(g, "masquerade");
		else if (k < 60 && (pre || post))
			out(g, "netmap to 10.8.0.0/16");
		else if (k < 75 && n_users > 0)
			out(g, "%s %s", chance(70) ? "jump" : "goto", users[rn(n_users)]);
		else if (k < 85)
			out(g, "return");
		else
			out(g, "accept");
	} else {
		bool io = !(g->hooks & ~RULE_HOOKS_FILTER);

		if (k < 15)
			out(g, "accept");
		else if (k < 28)
			out(g, "drop");
		else if (k < 33 && io && t != RULE_TABLE_RAW)
			out(g, "reject");
		else if (k < 50 && n_users > 0)
			out(g, "%s %s", chance(70) ? "jump" : "goto", users[rn(n_users)]);
		else if (k < 56)
			out(g, "return");
		else if (k < 62)
			out(g, "log log_prefix \"p%u \"", rn(10));
		else if (k < 68)
			out(g, "mark set_xmark 0x%x/0x%x", rn(4), chance(50) ? 3 : 0xff);
		else if (k < 72)
			out(g, "connmark %s", chance(50) ? "save_mark" : "restore_mark");
		else if (k < 75)
			out(g, "count");
		else if (k < 78)
			out(g, "nflog nflog_group %u", rn(4));
		else if (k < 83 && t == RULE_TABLE_RAW && chance(50))
			out(g, "notrack");
		else if (k < 83 && t == RULE_TABLE_RAW) {
			/* A helper serves one protocol: the rule names it. */
			out(g, "ct ct_helper %s", chance(50) ? "ftp proto 6" : "tftp proto 17");
			return;
		}
		else if (k < 86 && t == RULE_TABLE_MANGLE)
			out(g, "dscp set_dscp 0x%x", rn(8));
		else if (k < 89 && t == RULE_TABLE_MANGLE)
			out(g, "tos set_tos 0x10/0x3f");
		else if (k < 92 && t == RULE_TABLE_MANGLE)
			out(g, "%s", "ttl ttl_dec 1 ipv4");
		else
			out(g, "accept");
	}
	/* The action may already fix the family or protocol; let the matches agree. */
	if (strstr(g->buf + at, "ipv4") != NULL || strstr(g->buf + at, "dnat to") != NULL ||
		strstr(g->buf + at, "snat to") != NULL || strstr(g->buf + at, "netmap") != NULL) {
		out(g, " src_local %s", "any");
		if (chance(50))
			out(g, " proto %d", 17);
		return;
	}
	gen_matches(g);
}

struct tdef {
	unsigned int table;
	const char *name;
	const char *hooks[5];
};

/* The text of a random set over all tables. */
static char *
gen_set(unsigned int per_chain)
{
	static const struct tdef defs[] = {
		{RULE_TABLE_RAW, "raw", {"prerouting", "output"}},
		{RULE_TABLE_MANGLE, "mangle", {"prerouting", "input", "forward", "output",
						      "postrouting"}},
		{RULE_TABLE_NAT, "nat", {"prerouting", "input", "output", "postrouting"}},
		{RULE_TABLE_FILTER, "filter", {"input", "forward", "output"}},
		{RULE_TABLE_SECURITY, "security", {"input", "forward", "output"}},
	};
	struct gen g = {.cap = 1 << 16};

	g.buf = malloc(g.cap);
	assert_non_null(g.buf);
	g.buf[0] = '\0';
	for (unsigned int d = 0; d < RTE_DIM(defs); d++) {
		const struct tdef *td = &defs[d];
		char users[3][16];
		const char *up[3];
		unsigned int nu = td->table == RULE_TABLE_NAT ? 0 : 1 + rn(3);

		if (chance(15))
			continue;
		out(&g, "table %s\n", td->name);
		for (unsigned int u = 0; u < nu; u++) {
			snprintf(users[u], sizeof(users[u]), "U%s%u", td->name, u);
			up[u] = users[u];
		}
		/* User chains first (their rules may jump only to later ones: no loops). */
		for (unsigned int u = 0; u < nu; u++) {
			out(&g, "chain %s\n", users[u]);
			g.table = td->table;
			g.hooks = RULE_HOOKS_FILTER & RULE_HOOKS_ALL; /* reached from many hooks */
			g.hooks = td->table == RULE_TABLE_RAW ? RULE_HOOKS_RAW : rule_table_hooks(td->table);
			for (unsigned int r = 0; r < per_chain / 2; r++) {
				gen_rule(&g, up + u + 1, nu - u - 1);
				out(&g, "\n");
			}
		}
		for (unsigned int h = 0; h < 5 && td->hooks[h] != NULL; h++) {
			static const char *const pol[] = {"", " policy drop", " policy4 drop policy6 accept"};

			out(&g, "chain B%s%u hook %s%s\n", td->name, h, td->hooks[h],
				td->table == RULE_TABLE_NAT ? "" : pol[rn(3)]);
			g.table = td->table;
			for (unsigned int k = 0; k < RULE_HOOK__COUNT; k++)
				if (strcmp(rule_hook_name(k), td->hooks[h]) == 0)
					g.hooks = RULE_HOOK_F(k);
			for (unsigned int r = 0; r < per_chain; r++) {
				gen_rule(&g, up, nu);
				out(&g, "\n");
			}
		}
	}
	return g.buf;
}

/* ------------------------------------------------------------------------ */
/* Random packet contexts                                                    */
/* ------------------------------------------------------------------------ */

static void
rand_addr(bool six, uint8_t *a)
{
	static const uint8_t v4[][4] = {{10, 0, 0, 7}, {10, 1, 2, 3}, {192, 0, 2, 7},
		{192, 0, 2, 200}, {198, 51, 100, 1}, {198, 51, 100, 200}, {224, 0, 0, 5},
		{255, 255, 255, 255}, {0, 0, 0, 0}, {10, 0, 0, 100}};
	static const uint8_t v6[][16] = {
		{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7},
		{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9},
		{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		{0x20, 0x01, 0x0d, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

	memset(a, 0, 16);
	if (six)
		memcpy(a, v6[rn(RTE_DIM(v6))], 16);
	else
		memcpy(a, v4[rn(RTE_DIM(v4))], 4);
}

static void
rand_pkt(struct rule_pkt *p)
{
	static const uint8_t protos[] = {6, 17, 1, 58, 47};
	static const uint16_t ports[] = {22, 80, 443, 1000, 1500, 2001, 53, 9};
	static const uint8_t cts[] = {0, RULE_CT_NEW, RULE_CT_ESTABLISHED, RULE_CT_RELATED,
		RULE_CT_INVALID, RULE_CT_UNTRACKED, RULE_CT_NEW | RULE_CT_DNAT,
		RULE_CT_ESTABLISHED | RULE_CT_SNAT, RULE_CT_IGNORE};
	bool v6 = chance(40);
	struct fc_key k;
	uint8_t src[16], dst[16];

	memset(&k, 0, sizeof(k));
	k.family = v6 ? FC_AF_INET6 : FC_AF_INET4;
	rand_addr(v6, src);
	rand_addr(v6, dst);
	memcpy(fc_key_src_w(&k), src, v6 ? 16 : 4);
	memcpy(fc_key_dst_w(&k), dst, v6 ? 16 : 4);
	fc_key_set_proto(&k, protos[rn(RTE_DIM(protos))]);
	fc_key_set_ports(&k, htons(ports[rn(8)]), htons(ports[rn(8)]));
	fc_key_set_flags(&k, (uint8_t)rn(4));
	rule_pkt_init(p, &k, cts[rn(RTE_DIM(cts))], chance(5) ? RULE_KEY_F_NOPORTS : 0);
	p->in_port = chance(20) ? RULE_IF_NONE : chance(10) ? RULE_IF_LO : (uint16_t)rn(5);
	p->out_port = chance(30) ? RULE_IF_NONE : chance(10) ? RULE_IF_LO : (uint16_t)rn(5);
	p->mark = rn(5);
	p->ctmark = rn(3);
	p->tcp_flags = (uint8_t)(chance(50) ? RULE_TCP_SYN : rn(64));
	p->icmp_type = (uint8_t)(chance(50) ? (v6 ? 128 : 8) : 3);
	p->icmp_code = (uint8_t)rn(5);
	p->l3_len = (uint16_t)rn(1600);
	p->ttl = (uint8_t)rn(256);
	p->tos = (uint8_t)(rn(4) * 32);
	p->pkttype = (uint8_t)rn(3);
	if (chance(50)) {
		p->flags |= RULE_PKT_F_MSS;
		p->tcp_mss = (uint16_t)(400 + rn(1200));
	}
	if (chance(50)) {
		p->flags |= RULE_PKT_F_MAC;
		p->mac_src[0] = 2;
		p->mac_src[5] = (uint8_t)rn(2);
	}
	p->tcp_opts[0] = (uint8_t)rn(256);
	if (chance(70)) {
		p->ct_orig = k;
		fc_key_reverse(&k, &p->ct_repl);
	}
	p->ctdir = (uint8_t)rn(2);
	p->ct_bytes[0] = rn(3000);
	p->ct_packets[0] = 1 + rn(10);
	if (chance(20))
		snprintf(p->ct_helper, sizeof(p->ct_helper), "ftp");
	if (v6 && chance(20)) {
		p->ip6_hdrs = RULE_IP6H_ROUTE;
		p->rt_type = (uint8_t)rn(2);
	}
	p->rand = rn(UINT32_MAX);
	p->time_s = 1700000000ull + rn(7 * 86400);
}

/* A provider whose answer is a function of its arguments: both evaluators see the same. */
static int
hash_provider(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	uint64_t h = (uint64_t)r->id * 31 + xi * 7 + p->mark * 13 + fc_key_proto(&p->key) + p->ttl;

	(*(uint64_t *)arg)++;
	return (h % 3) != 0;
}

/* ------------------------------------------------------------------------ */
/* Comparing                                                                 */
/* ------------------------------------------------------------------------ */

static void
same(const struct rule_eval *a, const struct rule_eval *b, const struct rule_pkt *pa,
	const struct rule_pkt *pb, const char *text, unsigned int stage)
{
	bool ok = a->verdict == b->verdict && a->action == b->action && a->reject == b->reject &&
		  a->table == b->table && a->hook == b->hook && a->rule_id == b->rule_id &&
		  a->nat_action == b->nat_action && a->nat_hook == b->nat_hook &&
		  a->nat_rule_id == b->nat_rule_id && memcmp(&a->nat, &b->nat, sizeof(a->nat)) == 0 &&
		  a->deps == b->deps && a->n_acts == b->n_acts && a->acts_lost == b->acts_lost &&
		  a->n_notes == b->n_notes && a->notes_lost == b->notes_lost &&
		  strcmp(a->channel, b->channel) == 0 && (a->tgt == NULL) == (b->tgt == NULL) &&
		  (a->tgt == NULL || memcmp(a->tgt, b->tgt, sizeof(*a->tgt)) == 0) &&
		  pa->mark == pb->mark && pa->ctmark == pb->ctmark && pa->ctstate == pb->ctstate &&
		  pa->tos == pb->tos && pa->ttl == pb->ttl;

	for (unsigned int i = 0; ok && i < a->n_acts; i++)
		ok = a->acts[i].rule_id == b->acts[i].rule_id &&
		     a->acts[i].action == b->acts[i].action && a->acts[i].table == b->acts[i].table &&
		     a->acts[i].hook == b->acts[i].hook &&
		     (a->acts[i].tgt == NULL) == (b->acts[i].tgt == NULL) &&
		     (a->acts[i].tgt == NULL ||
			     memcmp(a->acts[i].tgt, b->acts[i].tgt, sizeof(*a->acts[i].tgt)) == 0);
	/* What the walks passed (jumps, RETURN, other tables' accepts): the counters. */
	for (unsigned int i = 0; ok && i < a->n_notes && i < RULE_NOTES_MAX; i++)
		ok = a->notes[i].id == b->notes[i].id && a->notes[i].table == b->notes[i].table;
	if (ok)
		return;
	fail_msg("stage %u, packet ctstate %#x flags %#x lbits %#x in %u out %u mark %u: "
		 "ref verdict %u rule %u table %u hook %u nat %u/%u deps %#x acts %u notes %u "
		 "mark %u; cls verdict %u rule %u table %u hook %u nat %u/%u deps %#x acts %u "
		 "notes %u mark %u\n%s",
		stage, pa->ctstate, pa->flags, fc_key_flags(&pa->key), pa->in_port, pa->out_port,
		pa->mark, a->verdict, a->rule_id, a->table, a->hook, a->nat_action, a->nat_rule_id,
		a->deps, a->n_acts, a->n_notes, pa->mark, b->verdict, b->rule_id, b->table, b->hook,
		b->nat_action, b->nat_rule_id, b->deps, b->n_acts, b->n_notes, pb->mark, text);
}

struct tally {
	uint64_t evals;
	uint64_t drops;
	uint64_t by_rule;
	uint64_t acts;
	uint64_t notes;
	uint64_t nat;
	uint64_t provider;
	uint64_t portless; /**< evaluations checked again on other ports (a set reading none) */
};

static void
compare_set(const char *text, struct rule_ipsets *sets, unsigned int n_pkts, struct tally *t)
{
	struct rule_providers pv = {.arg = &t->provider, .match = hash_provider};
	struct rule_error err;
	struct rule_set *s = rule_set_parse(text, "gen", &err);
	struct rule_cls *c;

	if (s == NULL)
		fail_msg("%u:%u: %s '%s'\n%s", err.line, err.col, err.msg, err.token, text);
	assert_int_equal(rule_set_ports(s, RTE_DIM(ports_names), ports_names), 0);
	rule_set_ipsets(s, sets);
	c = rule_cls_build(s, "ctx", SOCKET_ID_ANY);
	if (c == NULL)
		fail_msg("rule_cls_build: %s\n%s", rte_strerror(rte_errno), text);
	for (unsigned int i = 0; i < n_pkts; i++) {
		struct rule_pkt p0, pa, pb;
		struct rule_eval ra, rb;
		unsigned int stage = rn(RULE_STAGE__COUNT);
		const struct rule_providers *use = chance(50) ? &pv : NULL;

		rand_pkt(&p0);
		pa = p0;
		pb = p0;
		assert_int_equal(rule_ref_eval(s, stage, &pa, use, &ra), 0);
		assert_int_equal(rule_cls_eval(c, stage, &pb, use, &rb), 0);
		same(&ra, &rb, &pa, &pb, text, stage);
		/* A set that reads no ports (rule_cls_reads_ports()): other ports, the same result. */
		if (!rule_cls_reads_ports(c)) {
			struct rule_pkt pc = p0;
			struct rule_eval rc;

			pc.in_port = (uint16_t)(chance(20) ? RULE_IF_NONE : rn(RTE_DIM(ports_names) + 2));
			pc.out_port = (uint16_t)(chance(20) ? RULE_IF_NONE : rn(RTE_DIM(ports_names) + 2));
			assert_int_equal(rule_ref_eval(s, stage, &pc, use, &rc), 0);
			pc.in_port = pa.in_port;
			pc.out_port = pa.out_port;
			same(&ra, &rc, &pa, &pc, text, stage);
			t->portless++;
		}
		t->evals++;
		t->drops += ra.verdict == RULE_VERDICT_DROP;
		t->by_rule += ra.rule_id != RULE_ID_NONE && ra.rule_id != RULE_ID_POLICY;
		t->acts += ra.n_acts;
		t->notes += ra.n_notes;
		t->nat += ra.nat_action != RULE_ACT_ACCEPT;
	}
	/* A burst gives what single packets give. */
	{
		struct rule_pkt pk[40], pr[40], *pp[40];
		struct rule_eval rb[40], ra;
		unsigned int stage = rn(RULE_STAGE__COUNT);

		for (unsigned int i = 0; i < 40; i++) {
			rand_pkt(&pk[i]);
			pr[i] = pk[i];
			pp[i] = &pk[i];
		}
		assert_int_equal(rule_cls_eval_bulk(c, stage, pp, 40, NULL, rb), 40);
		for (unsigned int i = 0; i < 40; i++) {
			assert_int_equal(rule_ref_eval(s, stage, &pr[i], NULL, &ra), 0);
			same(&ra, &rb[i], &pr[i], &pk[i], text, stage);
		}
	}
	rule_cls_free(c);
	rule_set_free(s);
}

static const char ipset_text[] = "create n4 hash:net family inet\n"
				 "add n4 10.0.0.0/24\n"
				 "add n4 192.0.2.0/28\n"
				 "create n6 hash:net family inet6\n"
				 "add n6 2001:db8::/64\n"
				 "create p bitmap:port range 0-65535\n"
				 "add p 22\n"
				 "add p 443\n"
				 "create i4 hash:net,iface family inet\n"
				 "add i4 10.0.0.0/8,eth0\n"
				 "add i4 192.0.2.0/24,ppp0\n"
				 "add i4 0.0.0.0/0,lo\n"
				 "add i4 10.1.0.0/16,eth wildcard\n"
				 "create i6 hash:net,iface family inet6\n"
				 "add i6 2001:db8::/32,eth1\n"
				 "add i6 ::/0,ppp0\n";

static void
test_random_contexts(void **state)
{
	struct tally t = {0};
	struct rule_error err;
	struct rule_ipsets *sets = rule_ipsets_parse(ipset_text, "sets", 0, &err);

	(void)state;
	assert_non_null(sets);
	for (unsigned int i = 0; i < 60; i++) {
		char *text;

		seed(500 + i);
		text = gen_set(4 + i % 9);
		compare_set(text, sets, 1500, &t);
		free(text);
	}
	/* Sets that read no ports: their results do not depend on them. */
	no_ports = true;
	for (unsigned int i = 0; i < 12; i++) {
		char *text;

		seed(900 + i);
		text = gen_set(4 + i % 9);
		compare_set(text, sets, 800, &t);
		free(text);
	}
	no_ports = false;
	rule_ipsets_free(sets);
	printf("  %" PRIu64 " evaluations: %.1f%% dropped, %.1f%% by a rule, %.2f actions each, "
	       "%.2f notes each, %" PRIu64 " translated, %" PRIu64 " provider calls, %" PRIu64
	       " checked on other ports\n",
		t.evals, 100.0 * (double)t.drops / (double)t.evals,
		100.0 * (double)t.by_rule / (double)t.evals, (double)t.acts / (double)t.evals,
		(double)t.notes / (double)t.evals, t.nat, t.provider, t.portless);
	/* The sets did things: drops, rules, actions, translations, providers. */
	assert_true(t.drops * 100 > t.evals * 5);
	assert_true(t.by_rule * 100 > t.evals * 10);
	assert_true(t.acts > t.evals / 10);
	assert_true(t.notes > t.evals / 10);
	assert_true(t.nat > 0);
	assert_true(t.provider > 0);
	assert_true(t.portless > 0);
}

/* Known answers for the new parts, independent of the oracle. */
static void
test_known_ctx(void **state)
{
	static const char text[] = "table mangle\n"
				   "chain P hook prerouting\n"
				   "mark set_xmark 0x5/0xff in eth+ proto tcp\n"
				   "log log_prefix \"m \" mark 0x5\n"
				   "table filter\n"
				   "chain I hook input policy drop\n"
				   "accept mark 0x5 proto tcp tcp_flags syn,rst,ack,fin syn\n"
				   "reject with tcp-reset proto tcp\n";
	static const char *const names[] = {"eth0", "lo"};
	struct rule_error err;
	struct rule_set *s = rule_set_parse(text, "k", &err);
	struct rule_cls *c;
	struct rule_eval res;
	struct rule_pkt p, q;
	struct fc_key k;

	(void)state;
	assert_non_null(s);
	assert_int_equal(rule_set_ports(s, 2, names), 0);
	c = rule_cls_build(s, "known", SOCKET_ID_ANY);
	assert_non_null(c);
	assert_int_equal(fc_key_parse("tcp 192.0.2.1:1000 -> 192.0.2.2:22 src_local=0 dst_local=1", &k, NULL),
		0);
	rule_pkt_init(&p, &k, RULE_CT_NEW, 0);
	p.in_port = 0;
	p.tcp_flags = RULE_TCP_SYN;
	q = p;
	/* mangle PREROUTING marks the packet and logs it */
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_DST, &p, NULL, &res), 0);
	assert_int_equal(p.mark, 5);
	assert_int_equal(res.n_acts, 2);
	assert_int_equal(res.acts[0].action, RULE_ACT_MARK);
	assert_int_equal(res.acts[1].action, RULE_ACT_LOG);
	assert_string_equal(res.acts[1].tgt->u.log.prefix, "m ");
	assert_true(res.deps & RULE_DEP_MARK);
	/* ... which the filter sees: a SYN is accepted, a bare ACK rejected with a RST */
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_FILTER, &p, NULL, &res), 0);
	assert_int_equal(res.verdict, RULE_VERDICT_ACCEPT);
	assert_true(res.deps & RULE_DEP_TCPFLAGS);
	p.tcp_flags = RULE_TCP_ACK;
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_FILTER, &p, NULL, &res), 0);
	assert_int_equal(res.verdict, RULE_VERDICT_DROP);
	assert_int_equal(res.action, RULE_ACT_REJECT);
	assert_int_equal(res.reject, RULE_REJECT_TCP_RESET);
	/* unmarked (arrived on lo): even a SYN is rejected */
	q.in_port = 1;
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_DST, &q, NULL, &res), 0);
	assert_int_equal(q.mark, 0);
	assert_int_equal(res.n_acts, 0);
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_FILTER, &q, NULL, &res), 0);
	assert_int_equal(res.rule_id, 4);
	assert_int_equal(res.action, RULE_ACT_REJECT);
	/* a port whose name the set does not know is named "": no eth+ */
	q = p;
	q.mark = 0;
	q.in_port = 7;
	assert_int_equal(rule_cls_eval(c, RULE_STAGE_DST, &q, NULL, &res), 0);
	assert_int_equal(q.mark, 0);
	rule_cls_free(c);
	rule_set_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_ctx),
		cmocka_unit_test(test_random_contexts),
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (gufc_test_eal_init("clsctx", "0") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return gufc_test_eal_end(rc);
}
