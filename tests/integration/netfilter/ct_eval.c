/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ct_eval: gufc's side of "netfilter-oracle.py conv": whole TCP
 * conversations and SCTP associations through the rules engine with the
 * conntrack module, each segment decided as the datapath decides it
 * (dp_rx_burst()'s checks on a cached entry: stale, interest, the
 * conntrack window check, the SCTP tag and chunk check; the slow path
 * otherwise), printed exactly as the oracle prints what Linux did:
 *
 *   ct_eval FRAMES
 *
 * FRAMES is what "netfilter-oracle.py frames CONVS" writes: a "conv NAME
 * CLIENT CPORT SERVER SPORT loose=L be_liberal=B max_retrans=M [proto=132]"
 * line starting each conversation (a fresh engine with those conntrack
 * settings; proto=132: an SCTP association), then one "N DIR HEX" line
 * per segment, and "wait N" lines (N seconds pass: the engine's clock moves
 * and it ages its entries; " timeout_established=N" on the conv line sets
 * that timeout, in seconds); with NAT (the oracle's nat=), " dnat=ADDR,PORT" and
 * " snat=ADDR,PORT" or " masq=ADDR,PORT" after them (and " invalid=accept":
 * the first rule accepts; " connbytes=FROM:[TO],DIR,MODE": the established
 * rule with that connbytes match): gufc's "dnat to" and
 * "snat to" rules (masquerade's address is given, so it is a snat here)
 * before the filter rules, and each accepted segment rewritten as the
 * datapath does (mod_nat_apply(), the slot of the decision or of the
 * cached entry). The rule set is the
 * oracle's, in gufc's language: invalid dropped (rule 1), new (2),
 * established (3) and related (4) accepted, the rest dropped by the
 * policy, so the deciding rule tells the segment's ctstate. Output per
 * segment: "N DIR CTSTATE VERDICT STATE", STATE being the TCP or SCTP state of the
 * conversation's connection after the segment, "-" if none; with NAT,
 * " to=SRC:SPORT>DST:DPORT" after an accepted segment (what it carries
 * after the rewrite) and " crc=bad" after that for an SCTP packet whose
 * CRC32c is then wrong, as the oracle prints them; on stderr at
 * the end, how many segments the cached entries decided (the fast path).
 *
 * Needs EAL (the flow tables): started with --no-huge --no-pci.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "conntrack.h"
#include "gufc_eal.h"
#include "engine.h"
#include "nat.h"
#include "rule_lang.h"
#include "rules.h"

#define LINE_MAX_LEN 8192
#define FRAME_MAX 4096

static const char rules_text[] = "policy drop\n"
				 "drop ctstate invalid\n"
				 "accept ctstate new\n"
				 "accept ctstate established\n"
				 "accept ctstate related\n";
/* The oracle's invalid=accept: the first rule accepts. */
static const char rules_text_inv[] = "policy drop\n"
				 "accept ctstate invalid\n"
				 "accept ctstate new\n"
				 "accept ctstate established\n"
				 "accept ctstate related\n";

struct conv {
	struct rule_engine *eng;
	struct mod_ct_module *ct;
	struct mod_nat_module *nat; /* with nat rules only */
	bool has_nat;
	struct fc_key keys[2]; /* client -> server, server -> client */
	uint32_t rule_of[5];   /* rule ids of the four rules */
	uint32_t now;
	unsigned int seq;
	uint64_t segments; /* over all conversations */
	uint64_t fast;     /* of those: decided by the cached entry */
};

static void
conv_end(struct conv *cv)
{
	if (cv->eng != NULL) {
		rule_engine_reader_unregister(cv->eng, 0);
		rule_engine_free(cv->eng);
	}
	mod_ct_module_free(cv->ct);
	mod_nat_module_free(cv->nat);
	cv->eng = NULL;
	cv->ct = NULL;
	cv->nat = NULL;
}

static int
addr_key(struct fc_key *k, const char *a, unsigned int ap, const char *b, unsigned int bp,
	uint8_t proto)
{
	memset(k, 0, sizeof(*k));
	if (inet_pton(AF_INET, a, &k->v4.src) == 1 && inet_pton(AF_INET, b, &k->v4.dst) == 1) {
		k->family = FC_AF_INET4;
		k->v4.sport = htons((uint16_t)ap);
		k->v4.dport = htons((uint16_t)bp);
		k->v4.proto = proto;
		return 0;
	}
	if (inet_pton(AF_INET6, a, k->v6.src) == 1 && inet_pton(AF_INET6, b, k->v6.dst) == 1) {
		k->family = FC_AF_INET6;
		k->v6.sport = htons((uint16_t)ap);
		k->v6.dport = htons((uint16_t)bp);
		k->v6.proto = proto;
		return 0;
	}
	return -EINVAL;
}

/*
 * The nat rules of a conv line's " KIND=ADDR,PORT" (KIND dnat, snat, masq)
 * appended to @p out (@p cap bytes): gufc's rules for what the oracle adds.
 */
static int
nat_rules(const char *line, const char *cli, const char *srv, unsigned int sp, uint8_t proto,
	char *out, size_t cap)
{
	static const char *const kinds[] = {" dnat=", " snat=", " masq="};
	const char *pn = proto == 132 ? "sctp" : "tcp";
	size_t n = strlen(out);

	for (unsigned int i = 0; i < 3; i++) {
		const char *k = strstr(line, kinds[i]);
		char addr[64];
		unsigned int port;
		bool v6;
		int w;

		if (k == NULL)
			continue;
		if (sscanf(k + 6, "%63[^,],%u", addr, &port) != 2)
			return -EINVAL;
		v6 = strchr(addr, ':') != NULL;
		if (i == 0)
			w = snprintf(out + n, cap - n, "dnat to %s%s%s:%u proto %s dst %s dport %u\n",
				v6 ? "[" : "", addr, v6 ? "]" : "", port, pn, srv, sp);
		else
			w = snprintf(out + n, cap - n, "snat to %s%s%s:%u proto %s src %s\n",
				v6 ? "[" : "", addr, v6 ? "]" : "", port, pn, cli);
		if (w < 0 || (size_t)w >= cap - n)
			return -EINVAL;
		n += (size_t)w;
	}
	return 0;
}

/*
 * The oracle's connbytes=FROM:[TO],DIR,MODE: the established rule of rule
 * set @p text (@p cap bytes) with gufc's connbytes match.
 */
static int
cb_rule(char *text, size_t cap, const char *spec)
{
	static const char est[] = "accept ctstate established\n";
	char range[48], dir[16], mode[16], tail[256];
	char *at = strstr(text, est);

	if (at == NULL ||
		sscanf(spec, "%47[0-9:],%15[a-z],%15[a-z]", range, dir, mode) != 3)
		return -EINVAL;
	snprintf(tail, sizeof(tail), "%s", at + sizeof(est) - 1);
	if ((size_t)(at - text) + sizeof(est) + strlen(range) + strlen(dir) + strlen(mode) + 64 +
			strlen(tail) > cap)
		return -ENOSPC;
	sprintf(at, "accept ctstate established connbytes %s connbytes_dir %s connbytes_mode %s\n%s",
		range, dir, mode, tail);
	return 0;
}

/* "conv NAME CLIENT CPORT SERVER SPORT loose=L be_liberal=B max_retrans=M" */
static int
conv_start(struct conv *cv, const char *line)
{
	char text[1024];
	char name[128], cli[64], srv[64];
	unsigned int cp, sp, loose, liberal, retrans;
	struct rule_engine_params ep;
	struct mod_ct_module_params cp_;
	struct rule_error err;
	struct rule_set *s;
	char ename[17];
	const char *pr = strstr(line, " proto=");
	const char *te = strstr(line, " timeout_established=");
	const char *cb = strstr(line, " connbytes=");
	uint8_t proto = pr != NULL ? (uint8_t)atoi(pr + 7) : 6;

	if (sscanf(line, "conv %127s %63s %u %63s %u loose=%u be_liberal=%u max_retrans=%u", name,
		    cli, &cp, srv, &sp, &loose, &liberal, &retrans) != 8 ||
		addr_key(&cv->keys[0], cli, cp, srv, sp, proto) < 0 ||
		addr_key(&cv->keys[1], srv, sp, cli, cp, proto) < 0) {
		fprintf(stderr, "ct_eval: bad line: %s\n", line);
		return -EINVAL;
	}
	conv_end(cv);
	memset(&ep, 0, sizeof(ep));
	snprintf(ename, sizeof(ename), "cte%u", cv->seq++);
	ep.name = ename;
	ep.capacity_v4 = 256;
	ep.capacity_v6 = 256;
	ep.full_policy = FC_FULL_REFUSE;
	ep.max_readers = 1;
	ep.socket_id = SOCKET_ID_ANY;
	cv->eng = rule_engine_create(&ep);
	if (cv->eng == NULL) {
		fprintf(stderr, "ct_eval: engine: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	memset(&cp_, 0, sizeof(cp_));
	mod_ct_cfg_init(&cp_.cfg);
	cp_.cfg.tcp_strict = loose == 0;
	cp_.cfg.tcp_be_liberal = liberal != 0;
	cp_.cfg.tcp_max_retrans = (uint8_t)(retrans > 255 ? 255 : retrans);
	if (te != NULL)
		cp_.cfg.timeout[MOD_CT_TO_TCP_ESTABLISHED] =
			(uint32_t)strtoul(te + 21, NULL, 10) * 1000u;
	cv->ct = mod_ct_module_create(cv->eng, &cp_);
	if (cv->ct == NULL) {
		fprintf(stderr, "ct_eval: conntrack: %s\n", rte_strerror(rte_errno));
		return -EINVAL;
	}
	text[0] = '\0';
	if (nat_rules(line, cli, srv, sp, proto, text, sizeof(text)) < 0 ||
		strlen(text) + sizeof(rules_text) > sizeof(text)) {
		fprintf(stderr, "ct_eval: bad nat in: %s\n", line);
		return -EINVAL;
	}
	cv->has_nat = text[0] != '\0';
	if (cv->has_nat) {
		struct mod_nat_module_params np;

		memset(&np, 0, sizeof(np));
		np.max_bindings = 64;
		np.seed = 1;
		cv->nat = mod_nat_module_create(cv->eng, &np);
		if (cv->nat == NULL) {
			fprintf(stderr, "ct_eval: nat: %s\n", rte_strerror(rte_errno));
			return -EINVAL;
		}
	}
	strcat(text, strstr(line, " invalid=accept") != NULL ? rules_text_inv : rules_text);
	if (cb != NULL && cb_rule(text, sizeof(text), cb + 11) < 0) {
		fprintf(stderr, "ct_eval: bad connbytes in: %s\n", line);
		return -EINVAL;
	}
	if (rule_engine_reader_register(cv->eng, 0) < 0) {
		fprintf(stderr, "ct_eval: reader: %s\n", rte_strerror(rte_errno));
		return -EINVAL;
	}
	s = rule_set_parse(text, "ct_eval", &err);
	if (s == NULL) {
		char buf[256];

		rule_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "ct_eval: %s\n", buf);
		return -EINVAL;
	}
	/* The rules' ids, in order: they tell the ctstate. */
	for (unsigned int i = 0; i < 4; i++) {
		const struct rule_chain *c = rule_set_chain_at(s, RULE_TABLE_FILTER, 0);

		if (c == NULL || c->n_rules != 4) {
			fprintf(stderr, "ct_eval: unexpected rule set\n");
			rule_set_free(s);
			return -EINVAL;
		}
		cv->rule_of[i + 1] = c->rules[i].id;
	}
	if (rule_engine_commit(cv->eng, s) < 0)
		return -EINVAL;
	return 0;
}

static int
unhex(const char *h, uint8_t *out, uint32_t max)
{
	uint32_t n = 0;
	unsigned int b;

	while (h[0] != '\0' && h[0] != '\n' && h[1] != '\0') {
		if (n == max || sscanf(h, "%2x", &b) != 1)
			return -EINVAL;
		out[n++] = (uint8_t)b;
		h += 2;
	}
	return (int)n;
}

/* The TCP state of the conversation's connection, "-" if none. */
static const char *
conv_state(const struct conv *cv)
{
	struct rule_flow_info fi;
	struct mod_ct_conn c;

	for (unsigned int i = 0; i < 2; i++)
		if (rule_engine_flow_lookup(cv->eng, &cv->keys[i], &fi) == 0 &&
			mod_ct_module_conn_get(cv->ct, &fi.act, &c) == 0)
			return mod_ct_state_name(c.state);
	return "-";
}

/* The SCTP check of an entry with FC_INTEREST_SCTP, as the datapath asks it (dp_sctp_bad()). */
static bool
sctp_fast(const struct conv *cv, const struct fc_action *a, const struct fc_pkt *p,
	const uint8_t *frame, uint32_t len)
{
	uint32_t l4 = p->l4_off, end = (uint32_t)p->l3_off + p->ip_len;

	if (fc_key_proto(&p->key) != 132 || l4 == 0 || p->frag != FC_FRAG_NONE || end > len ||
		l4 > end)
		return false;
	return mod_ct_sctp_fast_check(mod_ct_module_fast(cv->ct), a, frame + l4, end - l4);
}

/*
 * " to=SRC:SPORT>DST:DPORT" of @p frame (@p len bytes, parsed as @p p)
 * after NAT slot @p slot (RULE_NAT_NONE: none), " crc=bad" after it for
 * an SCTP packet whose CRC32c is wrong.
 */
static void
print_nat(const struct conv *cv, const uint8_t *frame, uint32_t len, const struct fc_pkt *p,
	uint32_t slot)
{
	static uint8_t f[FRAME_MAX];
	char a[2][INET6_ADDRSTRLEN];
	const uint8_t *l3 = f + p->l3_off, *l4 = f + p->l4_off;
	bool v4 = p->key.family == FC_AF_INET4;
	uint32_t l4len = (uint32_t)p->l3_off + p->ip_len - p->l4_off;

	memcpy(f, frame, len);
	if (slot != RULE_NAT_NONE &&
		mod_nat_apply(mod_nat_module_table(cv->nat), slot, f + p->l3_off, len - p->l3_off,
			p) != 0) {
		printf(" to=refused");
		return;
	}
	inet_ntop(v4 ? AF_INET : AF_INET6, l3 + (v4 ? 12 : 8), a[0], sizeof(a[0]));
	inet_ntop(v4 ? AF_INET : AF_INET6, l3 + (v4 ? 16 : 24), a[1], sizeof(a[1]));
	printf(v4 ? " to=%s:%u>%s:%u" : " to=[%s]:%u>[%s]:%u", a[0], l4[0] << 8 | l4[1], a[1],
		l4[2] << 8 | l4[3]);
	if (fc_key_proto(&p->key) == 132) {
		uint32_t crc = 0xffffffffu;

		for (uint32_t i = 0; i < l4len; i++) {
			crc ^= i >= 8 && i < 12 ? 0 : l4[i];
			for (int k = 0; k < 8; k++)
				crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
		}
		if (~crc != ((uint32_t)l4[8] | (uint32_t)l4[9] << 8 | (uint32_t)l4[10] << 16 |
				    (uint32_t)l4[11] << 24))
			printf(" crc=bad");
	}
}

/* One segment, as dp_rx_burst() and the slow path decide it. */
static int
segment(struct conv *cv, unsigned int n, char dir, const uint8_t *frame, uint32_t len)
{
	struct fc_table *t;
	struct rule_upcall up;
	struct rule_decision d;
	struct fc_action a;
	const void *key;
	uint32_t sig, idx, rule, slot = RULE_NAT_NONE;
	uint64_t hit = 0;
	bool fast = false;
	unsigned int ct = MOD_CT_FAST_PASS, fam;
	const char *cs = "untracked";

	memset(&up, 0, sizeof(up));
	if (fc_parse(frame, len, &up.pkt) != FC_PARSE_OK) {
		printf("%u error unparsable frame\n", n);
		return -EINVAL;
	}
	cv->now++;
	fam = up.pkt.key.family == FC_AF_INET6;
	t = rule_engine_table(cv->eng, up.pkt.key.family);
	key = fc_key_raw(&up.pkt.key);
	sig = fc_table_hash(t, key);
	fc_table_lookup_bulk(t, 0, &key, &sig, 1, &hit, &a, &idx);
	up.reason = RULE_UPCALL_MISS;
	if (hit & 1) {
		if (rule_engine_stale(cv->eng, &a, &up.pkt.key))
			up.reason = RULE_UPCALL_STALE;
		else if (a.verdict == FC_VERDICT_SLOW)
			up.reason = RULE_UPCALL_MISS;
		else if (rule_engine_wants(&a, &up.pkt) ||
			 ((a.interest & FC_INTEREST_TCP_WIN) &&
				 (ct = mod_ct_fast_check(mod_ct_module_fast(cv->ct), &a,
					  &up.pkt)) == MOD_CT_FAST_SLOW) ||
			 ((a.interest & FC_INTEREST_SCTP) && !sctp_fast(cv, &a, &up.pkt, frame, len)))
			up.reason = RULE_UPCALL_INTEREST;
		/* connbytes: counts reaching the entry's limits go up, an
		 * ignored segment's never (its connection's stay as they are). */
		else if (ct != MOD_CT_FAST_IGNORED && (a.flags & FC_ACT_F_COUNT) &&
			 rule_engine_count_due(cv->eng, t, fam, idx, up.pkt.ip_len))
			up.reason = RULE_UPCALL_INTEREST;
		else
			fast = true;
	}
	cv->segments++;
	if (fast) {
		cv->fast++;
		/* Ignored by conntrack: counted, its idle time kept, its connection's
		 * counters left as they are (the datapath's). IP bytes, as it counts. */
		fc_table_touch(t, idx, up.pkt.ip_len,
			ct == MOD_CT_FAST_IGNORED ? fc_table_last_seen(t, idx) : cv->now);
		if (ct == MOD_CT_FAST_IGNORED)
			(void)rule_engine_ct_ignored(cv->eng, fam, idx, up.pkt.ip_len);
		rule = a.rule_id;
		d.verdict = a.verdict;
		if (a.flags & FC_ACT_F_NAT)
			slot = a.nat_id;
	} else {
		up.frame = frame;
		up.frame_len = len;
		up.len = up.pkt.ip_len;
		rule_engine_upcall_burst(cv->eng, &up, 1, &d, cv->now);
		rule = d.rule_id;
		slot = d.nat_slot;
	}
	rule_engine_quiescent(cv->eng, 0);
	rule_engine_step(cv->eng, cv->now, 64);
	for (unsigned int i = 1; i <= 4; i++)
		if (rule == cv->rule_of[i])
			cs = i == 1 ? "invalid" : i == 2 ? "new" : i == 3 ? "established" : "related";
	printf("%u %c %s %s %s", n, dir, cs, d.verdict == FC_VERDICT_ACCEPT ? "accept" : "drop",
		conv_state(cv));
	if (cv->has_nat && d.verdict == FC_VERDICT_ACCEPT)
		print_nat(cv, frame, len, &up.pkt, slot);
	printf("\n");
	if (getenv("CT_EVAL_DEBUG") != NULL) {
		/* The connection as the module keeps it, fast-path progress folded in. */
		struct rule_flow_info fi;
		struct mod_ct_conn c;
		char buf[MOD_CT_FORMAT_MAX];

		for (unsigned int i = 0; i < 2; i++)
			if (rule_engine_flow_lookup(cv->eng, &cv->keys[i], &fi) == 0 &&
				mod_ct_module_conn_get(cv->ct, &fi.act, &c) == 0 &&
				mod_ct_conn_format(&c, buf, sizeof(buf)) > 0) {
				fprintf(stderr, "%u %s %s last=%u/%u maxack=%u/%u\n", n,
					fast ? "fast" : "slow", buf, c.tcp.last_index,
					c.tcp.last_dir, c.tcp.side[0].maxack, c.tcp.side[1].maxack);
				break;
			}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char prefix[64], line[LINE_MAX_LEN];
	char *eal_argv[] = {argv[0], "--no-huge", "-m", "256", "--no-pci", "--file-prefix", prefix,
		"--log-level", "*:error", NULL};
	static uint8_t frame[FRAME_MAX];
	struct conv cv;
	FILE *f;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FRAMES\n", argv[0]);
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "ct_eval_%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "ct_eval: EAL: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	f = fopen(argv[1], "r");
	if (f == NULL) {
		perror(argv[1]);
		gufc_eal_end();
		return 2;
	}
	memset(&cv, 0, sizeof(cv));
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		unsigned int n;
		char dir, hex[LINE_MAX_LEN];
		int len;

		if (strncmp(line, "conv ", 5) == 0) {
			rc = conv_start(&cv, line);
			continue;
		}
		/* "wait N": N seconds pass, the engine ages its entries. */
		if (sscanf(line, "wait %u", &n) == 1 && cv.eng != NULL) {
			cv.now += n * 1000u;
			for (unsigned int i = 0; i < 256; i++) {
				rule_engine_quiescent(cv.eng, 0);
				rule_engine_step(cv.eng, cv.now, 64);
			}
			continue;
		}
		if (sscanf(line, "%u %c %8191s", &n, &dir, hex) != 3 || cv.eng == NULL ||
			(len = unhex(hex, frame, sizeof(frame))) <= 0) {
			fprintf(stderr, "ct_eval: bad line: %s", line);
			rc = -EINVAL;
			break;
		}
		rc = segment(&cv, n, dir, frame, (uint32_t)len);
	}
	fclose(f);
	fprintf(stderr, "ct_eval: %" PRIu64 " segments, %" PRIu64 " decided on the fast path\n",
		cv.segments, cv.fast);
	conv_end(&cv);
	gufc_eal_end();
	return rc == 0 ? 0 : 1;
}
