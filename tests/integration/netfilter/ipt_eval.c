/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ipt_eval: what gufc's reference evaluator decides for a packet list,
 * printed exactly as scripts/netfilter-oracle.py prints what Linux
 * netfilter decides, so that the integration test is a diff.
 *
 *   ipt_eval [-4|-6] RULES PACKETS
 *
 * RULES is an iptables-save file, loaded with rule_set_parse_iptables_af();
 * PACKETS is the oracle's packet list (see the oracle's header). Per packet,
 * one context (struct rule_pkt: the lab's interfaces as ports l0, r0 and
 * lo, TCP flags and MSS, ICMP type and code, the IP length and TTL of the
 * frame the oracle builds) through rule_ref_eval()'s stages: raw (ctstate
 * INVALID, as before conntrack), dst (mangle and nat PREROUTING or
 * OUTPUT), the key translated as the kernel would (DNAT: the first address
 * of the range; the port kept when inside the port range, else its first
 * port) with its local bits recomputed, filter (mangle, filter, security),
 * then, if accepted, src. The verdict is the first drop of any stage, else
 * the filter table's. Every packet is the first of a new connection.
 * "-m statistic --mode nth" counts the list's packets in order, as the
 * kernel does (nth_match()). The context holds the datagram's bytes as
 * the oracle builds them (build_ip(): headers, its tag with the 4 bytes
 * that differ per run as zeros, then the data= bytes) for -m string.
 *
 * After the packets, the counters they added, as the oracle prints them:
 * per rule line and built-in chain policy of the file's tables, what the
 * walks passed (decisions, nat decisions, acting rules, jumps, RETURN,
 * other tables' accepts and policies), with each packet's IP length;
 * packets of the other family are not counted (see count_walk()'s
 * caller). The stages
 * after raw see the ctstate conntrack would give the packet
 * (kernel_ctstate()).
 *
 * Rule ids of the imported set are mapped back to file positions (the
 * n-th rule line, "-A" or "-I", of the file: the oracle's numbers) by the
 * line the importer says made each (struct rule_ipt_opts.placed); a line
 * of several rules (addresses, --ports) counts for all of them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rule_lang.h"
#include "rules.h"

#define MAX_LOCALS 256
#define LINE_MAX_LEN 4096

struct addr {
	uint8_t family; /* FC_AF_INET4/6 */
	uint8_t a[16];
};

struct pkt {
	unsigned int n;
	unsigned int lineno;
	uint8_t proto;
	uint8_t tcp_flags;
	int mss;               /* -1: no MSS option */
	int ttl;               /* the IP TTL or hop limit (64 unless ttl=N) */
	int tos;               /* the IPv4 TOS or IPv6 traffic class (0 unless tos=N) */
	int cpi;               /* proto 108: the IPComp header's CPI (-1: no header) */
	int cov;               /* proto 136: UDP-Lite checksum coverage (0: all) */
	struct addr src, dst;
	uint16_t sport, dport; /* host order; icmp: see key_build() */
	int icmp_type, icmp_code, icmp_id;
	uint8_t data[1024];    /* data=: bytes after the oracle's 8-byte tag */
	unsigned int data_len;
	bool forged; /* "forged": a source of the firewall's own, from outside */
};

/* The lab's interfaces as gufc ports. */
enum { PORT_L0, PORT_R0, PORT_LO };
static const char *const port_names[] = {"l0", "r0", "lo"};

static struct addr locals[MAX_LOCALS];
static unsigned int n_locals;

/* ------------------------------------------------------------------------ */
/* Files                                                                     */
/* ------------------------------------------------------------------------ */

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *n = realloc(buf, cap + 65536);

			if (n == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = n;
			cap += 65536;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);

		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Is word @p w at @p l + @p i, followed by a blank? */
static bool
word_at(const char *l, size_t len, size_t i, const char *w)
{
	size_t n = strlen(w);

	return len - i > n && strncmp(l + i, w, n) == 0 && (l[i + n] == ' ' || l[i + n] == '\t');
}

/* Is this line of an iptables-save or -restore file a rule line ("[p:b] -A ...", "-I ...")? */
static bool
is_rule_line(const char *l, size_t len)
{
	size_t i = 0;

	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < len && l[i] == '[') {
		while (i < len && l[i] != ']')
			i++;
		i++;
		while (i < len && (l[i] == ' ' || l[i] == '\t'))
			i++;
	}
	return i < len && (word_at(l, len, i, "-A") || word_at(l, len, i, "--append") ||
				  word_at(l, len, i, "-I") || word_at(l, len, i, "--insert"));
}

/* ------------------------------------------------------------------------ */
/* Rule ids -> file positions                                                */
/* ------------------------------------------------------------------------ */

static uint8_t
set_family(const struct rule_set *s)
{
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < rule_set_chain_count(s, t); i++) {
			const struct rule_chain *c = rule_set_chain_at(s, t, i);

			if (c->n_rules > 0)
				return c->rules[0].family;
		}
	return 0;
}

static struct rule_ipsets *ipsets; /* --ipset FILE: what -m set reads and -j SET changes */
static struct rule_ifnames set_ifn; /* the rule set's port names (hash:net,iface) */

/* ------------------------------------------------------------------------ */
/* Counters                                                                  */
/* ------------------------------------------------------------------------ */

/* Rule lines of a file counted at most. */
#define RULE_LINES_MAX 4096

struct ctr {
	uint64_t packets;
	uint64_t bytes;
};

static uint8_t line_table[RULE_LINES_MAX];  /* per rule line: its table */
static bool table_in_file[RULE_TABLE__COUNT]; /* the file has "*TABLE" (the kernel too) */
static unsigned int file_family;            /* the file's family: the counters are its */
static struct ctr line_ctr[RULE_LINES_MAX]; /* per rule line: what the list added */
static struct ctr pol_ctr[RULE_TABLE__COUNT][RULE_HOOK__COUNT];

/* One packet of @p len bytes passed rule @p id (or a chain's policy: RULE_ID_CHAIN_POLICY()). */
static void
count_id(uint32_t id, const uint32_t *pos, uint32_t n_pos, unsigned int len)
{
	struct ctr *c = NULL;

	if (RULE_ID_IS_CHAIN_POLICY(id)) {
		uint32_t t = RULE_ID_CHAIN_POLICY_TABLE(id), h = RULE_ID_CHAIN_POLICY_HOOK(id);

		if (t < RULE_TABLE__COUNT && h < RULE_HOOK__COUNT)
			c = &pol_ctr[t][h];
	} else if (id != RULE_ID_NONE && id < n_pos && pos[id] < RULE_LINES_MAX) {
		c = &line_ctr[pos[id]];
	}
	if (c != NULL) {
		c->packets++;
		c->bytes += len;
	}
}

/*
 * What a packet's walk of stages ev[from..n) passed, as the kernel counts it:
 * each stage's decision (a rule or a chain's policy), the nat decisions,
 * the rules that acted without deciding and the notes (jumps, RETURN,
 * other tables' accepts and policies, decisions a later table replaced).
 */
static void
count_walk(const struct rule_eval ev[], unsigned int from, unsigned int n, const uint32_t *pos,
	uint32_t n_pos, unsigned int len, unsigned int family)
{
	for (unsigned int st = from; st < n; st++) {
		const struct rule_eval *e = &ev[st];

		if (e->rule_id != RULE_ID_NONE)
			count_id(e->rule_id == RULE_ID_POLICY
					 ? RULE_ID_CHAIN_POLICY(family, e->table, e->hook)
					 : e->rule_id,
				pos, n_pos, len);
		/* A nat DROP policy that decided the stage was counted as its decision. */
		if ((st == RULE_STAGE_DST || st == RULE_STAGE_SRC) &&
			e->nat_rule_id != RULE_ID_NONE &&
			!(e->table == RULE_TABLE_NAT && e->rule_id == RULE_ID_POLICY &&
				e->verdict != RULE_VERDICT_ACCEPT))
			count_id(e->nat_rule_id == RULE_ID_POLICY
					 ? RULE_ID_CHAIN_POLICY(family, RULE_TABLE_NAT, e->nat_hook)
					 : e->nat_rule_id,
				pos, n_pos, len);
		for (unsigned int i = 0; i < e->n_acts && i < RULE_ACTS_MAX; i++)
			count_id(e->acts[i].rule_id, pos, n_pos, len);
		for (unsigned int i = 0; i < e->n_notes && i < RULE_NOTES_MAX; i++)
			count_id(e->notes[i].id, pos, n_pos, len);
	}
}

/* The counters that moved, as netfilter-oracle.py prints them (its sort order aside). */
static void
print_counters(void)
{
	for (unsigned int k = 1; k < RULE_LINES_MAX; k++)
		if ((line_ctr[k].packets != 0 || line_ctr[k].bytes != 0) &&
			table_in_file[line_table[k]])
			printf("counters %s rule %u %" PRIu64 " %" PRIu64 "\n",
				rule_table_name(line_table[k]), k, line_ctr[k].packets,
				line_ctr[k].bytes);
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++) {
			char name[16];
			const char *hn = rule_hook_name(h);
			unsigned int i;

			if ((pol_ctr[t][h].packets == 0 && pol_ctr[t][h].bytes == 0) ||
				!table_in_file[t])
				continue;
			for (i = 0; hn[i] != '\0' && i < sizeof(name) - 1; i++)
				name[i] = (char)toupper((unsigned char)hn[i]);
			name[i] = '\0';
			printf("counters %s policy %s %" PRIu64 " %" PRIu64 "\n", rule_table_name(t),
				name, pol_ctr[t][h].packets, pol_ctr[t][h].bytes);
		}
}

/* What the importer said made each rule: rule id, file line (struct rule_ipt_opts.placed). */
struct placed {
	uint32_t id;
	unsigned int line;
};

static struct placed *placed;
static unsigned int n_placed, cap_placed;
static bool placed_nomem;

static void
on_placed(void *arg, uint32_t id, unsigned int line)
{
	(void)arg;
	if (n_placed == cap_placed) {
		unsigned int cap = cap_placed ? cap_placed * 2 : 256;
		struct placed *n = realloc(placed, cap * sizeof(*n));

		if (n == NULL) {
			placed_nomem = true;
			return;
		}
		placed = n;
		cap_placed = cap;
	}
	placed[n_placed++] = (struct placed){.id = id, .line = line};
}

/*
 * Fill pos[id] with the file position (the n-th rule line, -A or -I, of the
 * file) of every rule of @s, from the lines the importer placed them at.
 * @return 0, or -1 after printing why.
 */
static int
map_positions(const struct rule_set *s, const char *text, uint32_t **pos_out, uint32_t *n_pos)
{
	unsigned int n_lines = 1, k = 0, *kth;
	uint32_t max_id = 0, *pos = NULL;
	int rc = -1;

	for (const char *c = text; *c != '\0'; c++)
		n_lines += *c == '\n';
	kth = calloc(n_lines + 1, sizeof(*kth));
	if (kth == NULL || placed_nomem)
		goto nomem;
	/* Line number -> its number among the rule lines (0: no rule line). */
	for (unsigned int ln = 1; *text != '\0'; ln++) {
		const char *e = strchr(text, '\n');
		size_t len = e != NULL ? (size_t)(e - text) : strlen(text);

		if (is_rule_line(text, len))
			kth[ln] = ++k;
		text += len + (e != NULL);
	}
	for (unsigned int i = 0; i < n_placed; i++)
		if (placed[i].id > max_id)
			max_id = placed[i].id;
	pos = calloc(max_id + 1, sizeof(*pos));
	if (pos == NULL)
		goto nomem;
	for (unsigned int i = 0; i < n_placed; i++) {
		unsigned int ln = placed[i].line;

		if (ln > n_lines || kth[ln] == 0) {
			fprintf(stderr, "ipt_eval: rule %u placed at line %u, no rule line\n",
				placed[i].id, ln);
			goto out;
		}
		pos[placed[i].id] = kth[ln];
	}
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < rule_set_chain_count(s, t); i++) {
			const struct rule_chain *c = rule_set_chain_at(s, t, i);

			for (uint32_t j = 0; j < c->n_rules; j++) {
				uint32_t id = c->rules[j].id;

				if (id > max_id || pos[id] == 0) {
					fprintf(stderr, "ipt_eval: chain %s: rule %u has no line\n",
						c->name, id);
					goto out;
				}
				if (pos[id] < RULE_LINES_MAX)
					line_table[pos[id]] = (uint8_t)t;
			}
		}
	*pos_out = pos;
	*n_pos = max_id + 1;
	pos = NULL;
	rc = 0;
	goto out;
nomem:
	fprintf(stderr, "ipt_eval: no memory\n");
out:
	free(pos);
	free(kth);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Packet lists                                                              */
/* ------------------------------------------------------------------------ */

static bool
proto_has_ports(uint8_t p)
{
	return p == 6 || p == 17 || p == 132 || p == 136 || p == 33;
}

static bool
addr_parse(const char *s, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->a) == 1) {
		a->family = FC_AF_INET4;
		return true;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1) {
		a->family = FC_AF_INET6;
		return true;
	}
	return false;
}

/* ADDR, [V6], ADDR:PORT, [V6]:PORT. */
static bool
endpoint_parse(char *s, bool with_port, struct addr *a, uint16_t *port)
{
	char *p = NULL;

	*port = 0;
	if (s[0] == '[') {
		char *e = strchr(s, ']');

		if (e == NULL)
			return false;
		*e = '\0';
		if (e[1] == ':')
			p = e + 2;
		else if (e[1] != '\0')
			return false;
		s++;
	} else if (with_port) {
		p = strchr(s, ':');
		if (p == NULL || strchr(p + 1, ':') != NULL)
			return false;
		*p++ = '\0';
	}
	if ((p != NULL) != with_port)
		return false;
	if (p != NULL) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (*p == '\0' || *end != '\0' || v > 65535)
			return false;
		*port = (uint16_t)v;
	}
	return addr_parse(s, a);
}

static bool
is_local(const struct addr *a)
{
	for (unsigned int i = 0; i < n_locals; i++)
		if (locals[i].family == a->family &&
			memcmp(locals[i].a, a->a, a->family == FC_AF_INET4 ? 4 : 16) == 0)
			return true;
	return false;
}

static bool keep_ct; /* the list said keep-conntrack (else the oracle flushes per packet) */

/*
 * Parse one line of a packet list. @return 1 (a packet), 0 (nothing:
 * blank, comment, local line), -1 (bad line, message printed).
 */
/* data=TEXT: bytes as they are, "|hex|" blocks as bytes (the oracle's parse_data()). */
static bool
data_parse(const char *s, struct pkt *p)
{
	bool hex = false;

	for (; *s != '\0'; s++) {
		unsigned int v;

		if (*s == '|') {
			hex = !hex;
			continue;
		}
		if (p->data_len == sizeof(p->data))
			return false;
		if (!hex) {
			p->data[p->data_len++] = (uint8_t)*s;
			continue;
		}
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
			sscanf(s, "%2x", &v) != 1)
			return false;
		p->data[p->data_len++] = (uint8_t)v;
		s++;
	}
	return !hex;
}

static int
packet_parse(char *line, const char *path, unsigned int lineno, struct pkt *p)
{
	char *w[16], *save = NULL, *c = strchr(line, '#');
	unsigned int n = 0, i = 0;

	if (c != NULL)
		*c = '\0';
	for (char *t = strtok_r(line, " \t\r\n", &save); t != NULL;
		t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == RTE_DIM(w))
			goto bad;
		w[n++] = t;
	}
	if (n == 0)
		return 0;
	/* From here on the oracle keeps conntrack between packets: connections stay. */
	if (n == 1 && strcmp(w[0], "keep-conntrack") == 0) {
		keep_ct = true;
		return 0;
	}
	if (strcmp(w[0], "local") == 0) {
		for (i = 1; i < n; i++) {
			char *a = w[i];
			size_t l = strlen(a);

			if (a[0] == '[' && l > 2 && a[l - 1] == ']') {
				a[l - 1] = '\0';
				a++;
			}
			if (n_locals == MAX_LOCALS || !addr_parse(a, &locals[n_locals]))
				goto bad;
			n_locals++;
		}
		return 0;
	}
	memset(p, 0, sizeof(*p));
	p->lineno = lineno;
	p->icmp_type = -1;
	p->icmp_id = -1;
	p->mss = -1;
	p->cpi = -1;
	p->ttl = 64;
	p->tcp_flags = RULE_TCP_SYN;
	if (strcmp(w[0], "proto") == 0) {
		char *end;
		unsigned long v;

		if (n < 2)
			goto bad;
		v = strtoul(w[1], &end, 10);
		if (*w[1] == '\0' || *end != '\0' || v > 255)
			goto bad;
		p->proto = (uint8_t)v;
		i = 2;
	} else {
		static const struct {
			const char *name;
			uint8_t num;
		} names[] = {{"tcp", 6}, {"udp", 17}, {"sctp", 132}, {"udplite", 136}, {"dccp", 33},
			{"icmp", 1}, {"icmpv6", 58}};
		size_t j;

		for (j = 0; j < RTE_DIM(names); j++)
			if (strcmp(w[0], names[j].name) == 0)
				break;
		if (j == RTE_DIM(names))
			goto bad;
		p->proto = names[j].num;
		i = 1;
	}
	if (n < i + 3 || strcmp(w[i + 1], "->") != 0 ||
		!endpoint_parse(w[i], proto_has_ports(p->proto), &p->src, &p->sport) ||
		!endpoint_parse(w[i + 2], proto_has_ports(p->proto), &p->dst, &p->dport) ||
		p->src.family != p->dst.family)
		goto bad;
	for (i += 3; i < n; i++) {
		char *eq = strchr(w[i], '='), *end;
		unsigned long v;

		if (strcmp(w[i], "forged") == 0) {
			p->forged = true;
			continue;
		}
		if (eq == NULL)
			goto bad;
		*eq = '\0';
		if (strcmp(w[i], "flags") == 0 && p->proto == 6) {
			static const char letters[] = "FSRPAUEC";

			p->tcp_flags = 0;
			/* "-": no flag at all (a NULL scan's) */
			for (const char *c2 = eq + 1; strcmp(eq + 1, "-") != 0 && *c2 != '\0'; c2++) {
				const char *at = strchr(letters, *c2);

				if (at == NULL)
					goto bad;
				p->tcp_flags |= (uint8_t)(1u << (at - letters));
			}
			continue;
		}
		if (strcmp(w[i], "data") == 0 && p->proto != 132) {
			if (!data_parse(eq + 1, p))
				goto bad;
			continue;
		}
		if (strcmp(w[i], "cov") == 0 && p->proto == 136) {
			v = strtoul(eq + 1, &end, 10);
			if (eq[1] == '\0' || *end != '\0' || v > 65535)
				goto bad;
			p->cov = (int)v;
			continue;
		}
		/* An SCTP packet's chunk type and verification tag are conntrack's
		 * (a packet that starts nothing): the evaluator asks with NEW. */
		if ((strcmp(w[i], "chunk") == 0 || strcmp(w[i], "vtag") == 0) && p->proto == 132) {
			v = strtoul(eq + 1, &end, 10);
			if (eq[1] == '\0' || *end != '\0' || v > UINT32_MAX)
				goto bad;
			continue;
		}
		if (strcmp(w[i], "cpi") == 0 && p->proto == 108) {
			v = strtoul(eq + 1, &end, 10);
			if (eq[1] == '\0' || *end != '\0' || v > 65535)
				goto bad;
			p->cpi = (int)v;
			continue;
		}
		if (strcmp(w[i], "tos") == 0) {
			v = strtoul(eq + 1, &end, 0);
			if (eq[1] == '\0' || *end != '\0' || v > 255)
				goto bad;
			p->tos = (int)v;
			continue;
		}
		if (strcmp(w[i], "ttl") == 0) {
			v = strtoul(eq + 1, &end, 10);
			if (eq[1] == '\0' || *end != '\0' || v < 1 || v > 255)
				goto bad;
			p->ttl = (int)v;
			continue;
		}
		if (strcmp(w[i], "mss") == 0 && p->proto == 6) {
			v = strtoul(eq + 1, &end, 10);
			if (eq[1] == '\0' || *end != '\0' || v > 65535)
				goto bad;
			p->mss = (int)v;
			continue;
		}
		if (p->proto != 1 && p->proto != 58)
			goto bad;
		v = strtoul(eq + 1, &end, 0);
		if (eq[1] == '\0' || *end != '\0')
			goto bad;
		if (strcmp(w[i], "type") == 0 && v <= 255)
			p->icmp_type = (int)v;
		else if (strcmp(w[i], "code") == 0 && v <= 255)
			p->icmp_code = (int)v;
		else if (strcmp(w[i], "id") == 0 && v <= 65535)
			p->icmp_id = (int)v;
		else
			goto bad;
	}
	if ((p->proto == 1 && p->src.family != FC_AF_INET4) ||
		(p->proto == 58 && p->src.family != FC_AF_INET6))
		goto bad;
	return 1;
bad:
	fprintf(stderr, "ipt_eval: %s:%u: bad packet line\n", path, lineno);
	return -1;
}

/* The key of packet @p (local bits from the local addresses). */
static void
key_build(const struct pkt *p, struct fc_key *k)
{
	uint16_t sport = p->sport, dport = p->dport;
	uint8_t flags = 0;

	if (p->proto == 1 || p->proto == 58) {
		int type = p->icmp_type >= 0 ? p->icmp_type : (p->proto == 1 ? 8 : 128);
		int id = p->icmp_id >= 0 ? p->icmp_id : (int)(p->n & 0xffff);
		bool echo = fc_icmp_has_id(p->proto == 1 ? FC_AF_INET4 : FC_AF_INET6, (uint8_t)type);

		/* As fc_parse(): the query's identifier, type << 8 | code. */
		sport = echo ? (uint16_t)id : 0;
		dport = (uint16_t)(type << 8 | p->icmp_code);
	}
	/* A local source from outside is forged: not the firewall's own packet. */
	if (is_local(&p->src))
		flags |= p->forged ? FC_KEY_F_SRC_FORGED : FC_KEY_F_SRC_LOCAL;
	if (is_local(&p->dst))
		flags |= FC_KEY_F_DST_LOCAL;
	memset(k, 0, sizeof(*k));
	k->family = p->src.family;
	if (k->family == FC_AF_INET4) {
		memcpy(&k->v4.src, p->src.a, 4);
		memcpy(&k->v4.dst, p->dst.a, 4);
		k->v4.sport = htons(sport);
		k->v4.dport = htons(dport);
		k->v4.proto = p->proto;
		k->v4.flags = flags;
		fc_key_v4_normalize(&k->v4);
	} else {
		memcpy(k->v6.src, p->src.a, 16);
		memcpy(k->v6.dst, p->dst.a, 16);
		k->v6.sport = htons(sport);
		k->v6.dport = htons(dport);
		k->v6.proto = p->proto;
		k->v6.flags = flags;
		fc_key_v6_normalize(&k->v6);
	}
}

/* Rewrite the destination of @k as DNAT to @nat would, then redo its local bits. */
static void
key_dnat(struct fc_key *k, const struct rule_nat *nat)
{
	bool v4 = k->family == FC_AF_INET4;
	uint8_t proto = v4 ? k->v4.proto : k->v6.proto;
	uint16_t *dport = v4 ? &k->v4.dport : &k->v6.dport;
	uint8_t *flags = v4 ? &k->v4.flags : &k->v6.flags;
	struct addr a = {.family = k->family};

	if (nat->port_min != 0 && proto_has_ports(proto) &&
		(ntohs(*dport) < nat->port_min || ntohs(*dport) > nat->port_max))
		*dport = htons(nat->port_min);
	if (nat->family == 0)
		return; /* port only (--to-destination :P): the address kept */
	memcpy(v4 ? (void *)&k->v4.dst : (void *)k->v6.dst, nat->addr_min, v4 ? 4 : 16);
	memcpy(a.a, nat->addr_min, v4 ? 4 : 16);
	*flags &= (uint8_t)~FC_KEY_F_DST_LOCAL;
	if (is_local(&a))
		*flags |= FC_KEY_F_DST_LOCAL;
}

/* ------------------------------------------------------------------------ */
/* Output, in the oracle's words                                             */
/* ------------------------------------------------------------------------ */

static void
print_addr(uint8_t family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(family == FC_AF_INET4 ? AF_INET : AF_INET6, a, buf, sizeof(buf));
	printf(family == FC_AF_INET4 ? "%s" : "[%s]", buf);
}

static void
print_ports(uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		printf("%u", lo);
	else
		printf("%u-%u", lo, hi);
}

static void
print_nat(unsigned int hook, unsigned int action, uint32_t rule_id, const struct rule_nat *n,
	const uint32_t *pos)
{
	if (rule_id == RULE_ID_NONE || rule_id == RULE_ID_POLICY)
		return;
	printf(" %s %s rule=%u", rule_hook_name(hook), rule_action_name(action), pos[rule_id]);
	if (action == RULE_ACT_DNAT || action == RULE_ACT_SNAT) {
		size_t alen = n->family == FC_AF_INET4 ? 4 : 16;

		printf(" to=");
		if (n->family != 0) /* else port only: ":P" */
			print_addr(n->family, n->addr_min);
		if (n->family != 0 && memcmp(n->addr_min, n->addr_max, alen) != 0) {
			printf("-");
			print_addr(n->family, n->addr_max);
		}
		if (n->port_min != 0) {
			printf(":");
			print_ports(n->port_min, n->port_max);
		}
	} else if ((action == RULE_ACT_MASQUERADE || action == RULE_ACT_REDIRECT) &&
		   n->port_min != 0) {
		printf(" ports=");
		print_ports(n->port_min, n->port_max);
	}
}

/* The IP length of the datagram the oracle builds for @p (its build_ip()). */
static uint16_t
ip_len(const struct pkt *p)
{
	unsigned int l4;

	switch (p->proto) {
	case 6:
		l4 = 20 + (p->mss >= 0 ? 4 : 0) + 8;
		break;
	case 17:
	case 136:
		l4 = 16;
		break;
	case 132:
		l4 = 32;
		break;
	case 33: /* a DCCP-Request: 16-byte generic header, service code */
		l4 = 20 + 8;
		break;
	case 1:
	case 58:
		l4 = 16;
		break;
	default:
		l4 = p->proto == 108 && p->cpi >= 0 ? 12 : 8;
		break;
	}
	return (uint16_t)(l4 + p->data_len + (p->src.family == FC_AF_INET4 ? 20 : 40));
}

static uint16_t
csum16(const uint8_t *b, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put16(uint8_t *b, unsigned int v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/*
 * The datagram the oracle's build_ip() sends for @p: its IP header, the
 * transport header, the tag ("NFO!" and 4 bytes that differ per run,
 * zeros here) and the data= bytes. The transport checksum covers the
 * per-run bytes: it is left zero (a string match must not look there).
 * @return its length.
 */
static unsigned int
datagram_build(const struct pkt *p, uint8_t *b, size_t cap)
{
	unsigned int hl = p->src.family == FC_AF_INET4 ? 20 : 40, len = ip_len(p), l4 = hl;

	if (len > cap)
		return 0;
	memset(b, 0, len);
	if (hl == 20) {
		b[0] = 0x45;
		b[1] = (uint8_t)p->tos;
		put16(b + 2, len);
		put16(b + 4, p->n & 0xffff);
		b[6] = 0x40;
		b[8] = (uint8_t)p->ttl;
		b[9] = p->proto;
		memcpy(b + 12, p->src.a, 4);
		memcpy(b + 16, p->dst.a, 4);
		put16(b + 10, csum16(b, 20, 0));
	} else {
		b[0] = (uint8_t)(0x60 | p->tos >> 4);
		b[1] = (uint8_t)((p->tos & 0x0f) << 4 | ((p->n >> 16) & 0x0f));
		put16(b + 2, p->n & 0xffff);
		put16(b + 4, len - 40);
		b[6] = p->proto;
		b[7] = (uint8_t)p->ttl;
		memcpy(b + 8, p->src.a, 16);
		memcpy(b + 24, p->dst.a, 16);
	}
	switch (p->proto) {
	case 6: {
		unsigned int doff = 5 + (p->mss >= 0 ? 1 : 0);

		put16(b + l4, p->sport);
		put16(b + l4 + 2, p->dport);
		put16(b + l4 + 4, 0x1000);
		put16(b + l4 + 6, p->n & 0xffff);
		b[l4 + 11] = (p->tcp_flags & RULE_TCP_ACK) ? 1 : 0;
		b[l4 + 12] = (uint8_t)(doff << 4);
		b[l4 + 13] = p->tcp_flags;
		put16(b + l4 + 14, 65535);
		if (p->mss >= 0) {
			b[l4 + 20] = 2;
			b[l4 + 21] = 4;
			put16(b + l4 + 22, (unsigned int)p->mss);
		}
		l4 += doff * 4;
		break;
	}
	case 17:
	case 136:
		put16(b + l4, p->sport);
		put16(b + l4 + 2, p->dport);
		put16(b + l4 + 4, p->proto == 17 ? len - hl : (unsigned int)p->cov);
		l4 += 8;
		break;
	case 1:
	case 58:
		b[l4] = (uint8_t)(p->icmp_type >= 0 ? p->icmp_type : p->proto == 1 ? 8 : 128);
		b[l4 + 1] = (uint8_t)p->icmp_code;
		/* The identifier where it keys the message (the oracle's is_echo()). */
		if (fc_icmp_has_id(p->proto == 1 ? FC_AF_INET4 : FC_AF_INET6, b[l4])) {
			put16(b + l4 + 4, (unsigned int)(p->icmp_id >= 0 ? p->icmp_id : (int)(p->n & 0xffff)));
			put16(b + l4 + 6, p->n & 0xffff);
		}
		l4 += 8;
		break;
	case 108:
		if (p->cpi >= 0) {
			put16(b + l4 + 2, (unsigned int)p->cpi);
			l4 += 4;
		}
		break;
	case 33:
		put16(b + l4, p->sport);
		put16(b + l4 + 2, p->dport);
		b[l4 + 4] = 5;
		b[l4 + 8] = 0x01; /* Request, X=1 */
		put16(b + l4 + 14, p->n & 0xffff);
		l4 += 20;
		break;
	default:
		break;
	}
	if (p->proto != 132) {
		memcpy(b + l4, "NFO!", 4);
		memcpy(b + l4 + 8, p->data, p->data_len);
	}
	return len;
}

/* The packet's context as the lab's firewall sees it at its first hook. */
static void
pkt_context(const struct pkt *p, const struct fc_key *k, struct rule_pkt *pk)
{
	static const uint8_t mac_l[6] = {0x02, 0x4e, 0x46, 0x00, 0x00, 0x02};
	bool from_fw = fc_key_flags(k) & FC_KEY_F_SRC_LOCAL;

	static uint8_t dgram[2048];

	rule_pkt_init(pk, k, RULE_CT_NEW, 0);
	pk->in_port = from_fw ? RULE_IF_NONE : PORT_L0;
	pk->l3_len = ip_len(p);
	pk->l3_cap = datagram_build(p, dgram, sizeof(dgram));
	pk->l3 = pk->l3_cap != 0 ? dgram : NULL;
	pk->ttl = (uint8_t)p->ttl;
	pk->tos = (uint8_t)p->tos;
	pk->time_s = (uint64_t)time(NULL); /* the kernel's clock: -m time, ipset timeouts */
	if (p->proto == 108 && p->cpi >= 0) {
		pk->spi = (uint32_t)p->cpi;
		pk->flags |= RULE_PKT_F_SPI;
	}
	if (p->proto == 6) {
		pk->tcp_flags = p->tcp_flags;
		pk->tcp_opts[0] |= p->mss >= 0 ? 1u << 2 : 0;
		if (p->mss >= 0) {
			pk->tcp_mss = (uint16_t)p->mss;
			pk->flags |= RULE_PKT_F_MSS;
		}
	}
	if (p->proto == 1 || p->proto == 58) {
		pk->icmp_type = (uint8_t)(p->icmp_type >= 0 ? p->icmp_type : p->proto == 1 ? 8 : 128);
		pk->icmp_code = (uint8_t)p->icmp_code;
	}
	if (!from_fw) {
		memcpy(pk->mac_src, mac_l, 6);
		pk->flags |= RULE_PKT_F_MAC;
	}
}

/* Output port of a packet with key @k after routing: r0, lo (from the firewall to itself), none. */
static uint16_t
route_port(const struct fc_key *k)
{
	uint8_t f = fc_key_flags(k);

	if (f & FC_KEY_F_DST_LOCAL)
		return (f & FC_KEY_F_SRC_LOCAL) ? PORT_LO : RULE_IF_NONE;
	return PORT_R0;
}

/*
 * "-m statistic --mode nth" as netfilter counts: one counter per rule and
 * match, from the file's loading on, stepped by every packet that reaches
 * it (the oracle loads the file once per packet list, and so does this).
 * "-m recent" lists as netfilter keeps them (rule_recent_match()), the
 * packets taken to come 1 ms apart (the oracle's replay is about as fast:
 * rule files use --seconds far above the list's length). "-m hashlimit"
 * tables likewise (rule_hashlimit_match(); rule files use rates far below
 * the replay's, so no bucket refills during it). "-m quota" counts down
 * per rule and match as netfilter does (quota_match()), and so does a
 * slow "-m limit"'s burst (limit_match()). The other stateful matches
 * take their answers right after loading.
 */
struct nth_ctr {
	uint32_t rule_id;
	unsigned int xi;
	uint32_t count;
};

static struct nth_ctr nth_ctrs[256];
static unsigned int n_nth;
static struct rule_recent *recent;
static struct rule_hashlimit *hashlimit;
static uint64_t recent_now; /* ms: the packet's number */

/*
 * "-m connlimit": every packet of a list is a new connection; the oracle
 * flushes conntrack before each unless the list says "keep-conntrack",
 * and then the kernel keeps the ones it accepted (UDP: never closed
 * during the replay); a
 * match counts, per rule and match, the accepted connections that reached
 * it from the same masked source (or destination), plus the packet's own.
 */
struct cl_conn {
	uint32_t rule_id;
	unsigned int xi;
	struct fc_key key;
};
static struct cl_conn cl_conns[1024], cl_pending[8];
static unsigned int n_cl, n_cl_pending;

static bool
cl_same_group(const struct rule_x *x, const struct fc_key *a, const struct fc_key *b)
{
	unsigned int len = a->family == FC_AF_INET6 ? 16 : 4;
	unsigned int bits = (x->given & 4) && x->u.connlimit.mask < len * 8 ? x->u.connlimit.mask
									 : len * 8;
	bool dst = (x->given & 16) != 0; /* --connlimit-daddr */
	const uint8_t *pa = dst ? fc_key_dst(a) : fc_key_src(a);
	const uint8_t *pb = dst ? fc_key_dst(b) : fc_key_src(b);

	if (a->family != b->family)
		return false;
	for (unsigned int i = 0; i < len && bits > 0; i++) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff00 >> bits);

		if ((pa[i] & m) != (pb[i] & m))
			return false;
		bits = bits >= 8 ? bits - 8 : 0;
	}
	return true;
}

static int
cl_match(const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	const struct rule_x *x = &r->xm[xi];
	uint32_t count = 1;

	for (unsigned int i = 0; i < n_cl; i++)
		if (cl_conns[i].rule_id == r->id && cl_conns[i].xi == xi &&
			cl_same_group(x, &cl_conns[i].key, &p->key))
			count++;
	if (n_cl_pending < sizeof(cl_pending) / sizeof(cl_pending[0]))
		cl_pending[n_cl_pending++] = (struct cl_conn){.rule_id = r->id, .xi = xi, .key = p->key};
	return (x->given & 2) ? count > x->u.connlimit.limit : count <= x->u.connlimit.limit;
}

/* "-m quota": the bytes left per rule and match, from the file's loading on. */
struct quota_left {
	uint32_t rule_id;
	unsigned int xi;
	uint64_t left;
};
static struct quota_left quotas[64];
static unsigned int n_quotas;

static int
quota_match(const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	const struct rule_x *x = &r->xm[xi];
	struct quota_left *q = NULL;
	bool fits;

	for (unsigned int i = 0; i < n_quotas && q == NULL; i++)
		if (quotas[i].rule_id == r->id && quotas[i].xi == xi)
			q = &quotas[i];
	if (q == NULL) {
		if (n_quotas == sizeof(quotas) / sizeof(quotas[0]))
			return -ENOSPC;
		q = &quotas[n_quotas++];
		*q = (struct quota_left){.rule_id = r->id, .xi = xi, .left = x->u.quota.bytes};
	}
	fits = q->left >= p->l3_len;
	q->left = fits ? q->left - p->l3_len : 0;
	return fits != ((x->neg & 1) != 0);
}

/*
 * "-m limit" at a token a minute or slower: its burst counts down per rule
 * and match from the file's loading on (no token comes back during a
 * replay); a faster one answers as right after loading (conforming).
 */
static struct quota_left limits[64];
static unsigned int n_limits;

static int
limit_match(const struct rule *r, unsigned int xi)
{
	const struct rule_x_limit *l = &r->xm[xi].u.limit;
	struct quota_left *q = NULL;

	if (l->unit == RULE_RATE_SEC || l->unit == RULE_RATE_BYTES)
		return -ENOTSUP;
	for (unsigned int i = 0; i < n_limits && q == NULL; i++)
		if (limits[i].rule_id == r->id && limits[i].xi == xi)
			q = &limits[i];
	if (q == NULL) {
		if (n_limits == sizeof(limits) / sizeof(limits[0]))
			return -ENOSPC;
		q = &limits[n_limits++];
		*q = (struct quota_left){.rule_id = r->id, .xi = xi, .left = l->burst};
	}
	if (q->left == 0)
		return 0;
	q->left--;
	return 1;
}

static int
nth_match(void *arg, const struct rule *r, unsigned int xi, const struct rule_pkt *p)
{
	const struct rule_x *x = &r->xm[xi];
	struct nth_ctr *c = NULL;

	(void)arg;
	if (x->kind == RULE_XM_QUOTA)
		return quota_match(r, xi, p);
	if (x->kind == RULE_XM_LIMIT)
		return limit_match(r, xi);
	if (x->kind == RULE_XM_RECENT) {
		if (recent == NULL && (recent = rule_recent_new()) == NULL)
			return -ENOMEM;
		return rule_recent_match(recent, x, p, recent_now, 1000);
	}
	if (x->kind == RULE_XM_CONNLIMIT)
		return cl_match(r, xi, p);
	if (x->kind == RULE_XM_HASHLIMIT) {
		if (hashlimit == NULL && (hashlimit = rule_hashlimit_new()) == NULL)
			return -ENOMEM;
		return rule_hashlimit_match(hashlimit, x, p, recent_now, 1000);
	}
	if (x->kind != RULE_XM_STATISTIC || x->u.stat.mode != RULE_STAT_NTH)
		return -ENOTSUP;
	for (unsigned int i = 0; i < n_nth && c == NULL; i++)
		if (nth_ctrs[i].rule_id == r->id && nth_ctrs[i].xi == xi)
			c = &nth_ctrs[i];
	if (c == NULL) {
		if (n_nth == sizeof(nth_ctrs) / sizeof(nth_ctrs[0]))
			return -ENOSPC;
		c = &nth_ctrs[n_nth++];
		*c = (struct nth_ctr){.rule_id = r->id, .xi = xi, .count = 0};
	}
	return rule_x_nth_step(x, &c->count);
}

/* -j SET: the sets change at once, the rest of the walk sees them changed (as the engine's). */
static void
set_act(void *arg, const struct rule *r, const struct rule_pkt *p)
{
	(void)arg;
	(void)rule_ipsets_apply(ipsets, &r->tgt, p, &set_ifn);
}

static const struct rule_providers nth_pv = {.arg = NULL, .match = nth_match, .act = set_act};


/*
 * The ctstate conntrack gives packet @p with no connection before it: NEW
 * for what can open one (a SYN, a bare ACK picked up mid-stream as
 * nf_conntrack_tcp_loose does, UDP, an SCTP INIT, an ICMP query);
 * INVALID for TCP flags that cannot (a SYN-ACK, FIN, RST, none, a
 * combination tcp_error() refuses) and ICMP errors or replies; UNTRACKED
 * for ICMPv6 neighbour discovery and MLD. The nat chains see only NEW.
 */
static unsigned int
kernel_ctstate(const struct pkt *p)
{
	uint8_t f = p->tcp_flags & (uint8_t)~(RULE_TCP_ECE | RULE_TCP_CWR | RULE_TCP_URG);

	switch (p->proto) {
	case 6:
		/*
		 * Of the flags tcp_error() lets through (URG aside), those that
		 * open a connection: SYN, and ACK (with or without PSH).
		 */
		return f == RULE_TCP_SYN || f == RULE_TCP_ACK || f == (RULE_TCP_ACK | RULE_TCP_PSH)
			       ? RULE_CT_NEW
			       : RULE_CT_INVALID;
	case 1:
		return p->icmp_type < 0 || p->icmp_type == 8 || p->icmp_type == 13 ||
				       p->icmp_type == 15 || p->icmp_type == 17
			       ? RULE_CT_NEW
			       : RULE_CT_INVALID;
	case 58:
		if (p->icmp_type < 0 || p->icmp_type == 128 || p->icmp_type == 139)
			return RULE_CT_NEW;
		if ((p->icmp_type >= 130 && p->icmp_type <= 137) || p->icmp_type == 143)
			return RULE_CT_UNTRACKED;
		return RULE_CT_INVALID;
	default:
		return RULE_CT_NEW;
	}
}

/*
 * "-m connbytes": the connections of a list in the original direction, as
 * the kernel's accounting (nf_conntrack_acct) counts them: this packet
 * included. Without "keep-conntrack" every packet is a connection's
 * first; with it, a connection is kept once a packet of it was accepted
 * (one whose first packet was dropped was never confirmed).
 */
struct cb_conn {
	struct fc_key key;
	uint64_t packets;
	uint64_t bytes;
};
static struct cb_conn cb_conns[1024];
static unsigned int n_cb;

static struct cb_conn *
cb_find(const struct fc_key *k)
{
	for (unsigned int i = 0; i < n_cb; i++)
		if (memcmp(&cb_conns[i].key, k, sizeof(*k)) == 0)
			return &cb_conns[i];
	return NULL;
}

/*
 * ICMP queries under "keep-conntrack": the connections the kernel keeps,
 * as its ICMP tuple (identifier, type, code) and the reply tuple (the
 * reply's type) key them. A query the way of an accepted request belongs
 * to it (NEW until a reply passed, then ESTABLISHED), a reply the other
 * way is ESTABLISHED; anything else is kernel_ctstate()'s.
 */
struct icmp_conn {
	struct fc_key key; /* the request's */
	bool replied;
};
static struct icmp_conn icmp_conns[256];
static unsigned int n_icmp;

/* The connection of ICMP query key @p k, or NULL; *reply: @p k is its reply's. */
static struct icmp_conn *
icmp_find(const struct fc_key *k, bool *reply)
{
	struct fc_key r;

	if (!fc_key_icmp_query(k))
		return NULL;
	fc_key_reverse(k, &r);
	for (unsigned int i = 0; i < n_icmp; i++) {
		*reply = memcmp(&icmp_conns[i].key, &r, sizeof(r)) == 0;
		if (*reply || memcmp(&icmp_conns[i].key, k, sizeof(*k)) == 0)
			return &icmp_conns[i];
	}
	return NULL;
}

static int
eval_packet(const struct rule_set *s, const struct pkt *p, const uint32_t *pos, uint32_t n_pos)
{
	struct icmp_conn *ic;
	bool ic_reply = false;
	struct cb_conn *cb;
	struct fc_key ck;
	struct rule_eval ev[RULE_STAGE__COUNT];
	unsigned int decider = RULE_STAGE_FILTER, n = 0;
	struct rule_pkt pk;
	struct fc_key k;
	bool from_fw, xdst;
	int rc = 0;

	recent_now = p->n;
	n_cl_pending = 0;
	key_build(p, &k);
	from_fw = fc_key_flags(&k) & FC_KEY_F_SRC_LOCAL;
	pkt_context(p, &k, &pk);
	ck = k;
	cb = keep_ct ? cb_find(&ck) : NULL;
	ic = keep_ct ? icmp_find(&k, &ic_reply) : NULL;
	pk.ct_orig = k;
	fc_key_reverse(&k, &pk.ct_repl);
	pk.ct_packets[RULE_CTDIR_ORIGINAL] = (cb != NULL ? cb->packets : 0) + 1;
	pk.ct_bytes[RULE_CTDIR_ORIGINAL] = (cb != NULL ? cb->bytes : 0) + ip_len(p);
	xdst = false;
	for (unsigned int st = 0; st < RULE_STAGE__COUNT; st++) {
		/* PREROUTING knows no output port; OUTPUT's is routed already. */
		pk.out_port = st < RULE_STAGE_FILTER && !from_fw ? RULE_IF_NONE : route_port(&k);
		if (st == RULE_STAGE_RAW)
			pk.ctstate = RULE_CT_INVALID;
		else if (ic != NULL)
			pk.ctstate = ic_reply || ic->replied ? RULE_CT_ESTABLISHED : RULE_CT_NEW;
		else if (!(pk.ctstate & RULE_CT_UNTRACKED))
			pk.ctstate = kernel_ctstate(p) | (xdst ? RULE_CT_DNAT : 0);
		/* Both ends local: the packet comes back in through lo. */
		if (st == RULE_STAGE_FILTER && (fc_key_flags(&k) & FC_KEY_F_DST_LOCAL) && from_fw)
			pk.in_port = PORT_LO;
		pk.key = k;
		rc = rule_ref_eval(s, (enum rule_stage)st, &pk, &nth_pv, &ev[st]);
		if (rc < 0)
			goto err;
		n = st + 1;
		if (ev[st].verdict != RULE_VERDICT_ACCEPT) {
			decider = st;
			break;
		}
		if (st == RULE_STAGE_DST && (ev[st].nat_action == RULE_ACT_DNAT ||
						    ev[st].nat_action == RULE_ACT_NETMAP)) {
			struct rule_nat t = ev[st].nat;

			/* NETMAP: the target's prefix, the address's own host bits. */
			for (unsigned int i = 0; ev[st].nat_action == RULE_ACT_NETMAP &&
						 i < fc_af_addr_len(k.family);
				i++) {
				uint8_t mask = (uint8_t)~(t.addr_min[i] ^ t.addr_max[i]);

				t.addr_min[i] = (uint8_t)((t.addr_min[i] & mask) |
							  (fc_key_dst(&k)[i] & ~mask));
			}
			if (ev[st].nat_action == RULE_ACT_NETMAP)
				t.port_min = 0;
			key_dnat(&k, &t);
			/* ctstate DNAT from here on: only when something changed (IPS_DST_NAT). */
			xdst = memcmp(fc_key_dst(&k), fc_key_dst(&pk.ct_orig),
				       fc_af_addr_len(k.family)) != 0 ||
			       fc_key_dport(&k) != fc_key_dport(&pk.ct_orig);
			if ((fc_key_flags(&k) & FC_KEY_F_DST_LOCAL) && from_fw)
				pk.in_port = PORT_LO;
		}
	}
	/* An accepted packet is a connection the kernel keeps: the counts it reached hold it. */
	for (unsigned int i = 0; keep_ct && i < n_cl_pending &&
				 ev[decider].verdict == RULE_VERDICT_ACCEPT &&
				 n_cl < sizeof(cl_conns) / sizeof(cl_conns[0]);
		i++)
		cl_conns[n_cl++] = cl_pending[i];
	n_cl_pending = 0;
	/* An accepted query opens its connection, an accepted reply answers it. */
	if (keep_ct && ev[decider].verdict == RULE_VERDICT_ACCEPT) {
		if (ic != NULL && ic_reply)
			ic->replied = true;
		else if (ic == NULL && fc_key_icmp_query(&k) && kernel_ctstate(p) == RULE_CT_NEW &&
			 n_icmp < sizeof(icmp_conns) / sizeof(icmp_conns[0]))
			icmp_conns[n_icmp++] = (struct icmp_conn){.key = ck};
	}
	if (cb != NULL) {
		cb->packets++;
		cb->bytes += ip_len(p);
	} else if (keep_ct && ev[decider].verdict == RULE_VERDICT_ACCEPT &&
		   n_cb < sizeof(cb_conns) / sizeof(cb_conns[0])) {
		cb_conns[n_cb++] = (struct cb_conn){.key = ck, .packets = 1, .bytes = ip_len(p)};
	}
	/*
	 * Its counts: a packet of the file's family (the other's chains are
	 * the lab's skeleton). One from the firewall to itself dropped back
	 * in through lo (raw or mangle PREROUTING, INPUT) had passed nat
	 * POSTROUTING, the source stage, before: it counts there too.
	 */
	if (k.family == file_family) {
		count_walk(ev, 0, n, pos, n_pos, ip_len(p), k.family);
		if (from_fw && (fc_key_flags(&k) & FC_KEY_F_DST_LOCAL) &&
			decider == RULE_STAGE_FILTER && ev[decider].verdict != RULE_VERDICT_ACCEPT &&
			(ev[decider].hook == RULE_HOOK_PREROUTING ||
				ev[decider].hook == RULE_HOOK_INPUT)) {
			pk.key = k;
			rc = rule_ref_eval(s, RULE_STAGE_SRC, &pk, &nth_pv, &ev[RULE_STAGE_SRC]);
			if (rc < 0)
				goto err;
			count_walk(ev, RULE_STAGE_SRC, RULE_STAGE_SRC + 1, pos, n_pos, ip_len(p),
				k.family);
		}
	}
	printf("%u %s %s ", p->n, rule_hook_name(ev[decider].hook),
		ev[decider].verdict == RULE_VERDICT_ACCEPT ? "accept" : "drop");
	if (ev[decider].rule_id == RULE_ID_POLICY)
		printf("policy");
	else
		printf("rule=%u", pos[ev[decider].rule_id]);
	/* The nat decisions the packet met: dst before any drop after it, src if accepted. */
	if (n > RULE_STAGE_DST && (decider > RULE_STAGE_DST || ev[RULE_STAGE_DST].verdict ==
								      RULE_VERDICT_ACCEPT))
		print_nat(ev[RULE_STAGE_DST].nat_hook, ev[RULE_STAGE_DST].nat_action,
			ev[RULE_STAGE_DST].nat_rule_id, &ev[RULE_STAGE_DST].nat, pos);
	if (n == RULE_STAGE__COUNT && ev[RULE_STAGE_SRC].verdict == RULE_VERDICT_ACCEPT)
		print_nat(ev[RULE_STAGE_SRC].nat_hook, ev[RULE_STAGE_SRC].nat_action,
			ev[RULE_STAGE_SRC].nat_rule_id, &ev[RULE_STAGE_SRC].nat, pos);
	printf("\n");
	return 0;
err:
	printf("%u error evaluator: %s\n", p->n, strerror(-rc));
	return -1;
}

/* ------------------------------------------------------------------------ */

static void
usage(void)
{
	fprintf(stderr, "usage: ipt_eval [-4|-6] [--ipset FILE] RULES PACKETS\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	unsigned int family = 0, lineno = 0, n = 0;
	struct rule_error err;
	struct rule_set *s;
	uint32_t *pos = NULL, n_pos = 0;
	char line[LINE_MAX_LEN], *text;
	const char *rules, *packets;
	int argi = 1, rc = 0;
	FILE *f;

	if (argi < argc && strcmp(argv[argi], "-4") == 0) {
		family = FC_AF_INET4;
		argi++;
	} else if (argi < argc && strcmp(argv[argi], "-6") == 0) {
		family = FC_AF_INET6;
		argi++;
	}
	if (argc - argi == 4 && strcmp(argv[argi], "--ipset") == 0) {
		ipsets = rule_ipsets_load(argv[argi + 1], 0, &err);
		if (ipsets == NULL) {
			char msg[512];

			rule_error_format(&err, msg, sizeof(msg));
			fprintf(stderr, "ipt_eval: %s\n", msg);
			return 2;
		}
		argi += 2;
	}
	if (argc - argi != 2)
		usage();
	rules = argv[argi];
	packets = argv[argi + 1];
	text = read_file(rules);
	if (text == NULL) {
		fprintf(stderr, "ipt_eval: %s: %s\n", rules, strerror(errno));
		return 2;
	}
	s = rule_set_parse_iptables_opts(text, rules,
		&(struct rule_ipt_opts){.family = family, .sets = ipsets, .placed = on_placed},
		&err);
	if (s == NULL) {
		char msg[512];

		rule_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "ipt_eval: import failed: %s\n", msg);
		free(text);
		return 2;
	}
	if (family == 0)
		family = set_family(s);
	file_family = family;
	/* The tables the file has: the kernel has no others (gufc's nat has built-in chains). */
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		char head[16];
		const char *at = text;
		size_t hl;

		snprintf(head, sizeof(head), "*%s", rule_table_name(t));
		hl = strlen(head);
		while ((at = strstr(at, head)) != NULL) {
			if ((at == text || at[-1] == '\n') &&
				(at[hl] == '\n' || at[hl] == '\r' || at[hl] == ' ' || at[hl] == '\0'))
				table_in_file[t] = true;
			at += hl;
		}
	}
	if (rule_set_ports(s, RTE_DIM(port_names), port_names) < 0) {
		fprintf(stderr, "ipt_eval: no memory\n");
		rc = 2;
		goto out;
	}
	set_ifn = rule_set_ifnames(s);
	if (family != 0 && map_positions(s, text, &pos, &n_pos) < 0) {
		rc = 2;
		goto out;
	}
	/* The hashlimit tables, with their first rules' settings, as the kernel loads them. */
	hashlimit = rule_hashlimit_new();
	if (hashlimit == NULL) {
		fprintf(stderr, "ipt_eval: no memory\n");
		rc = 2;
		goto out;
	}
	(void)rule_hashlimit_load(hashlimit, s, 0, 1000);
	f = fopen(packets, "r");
	if (f == NULL) {
		fprintf(stderr, "ipt_eval: %s: %s\n", packets, strerror(errno));
		rc = 2;
		goto out;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		struct pkt p;
		int r;

		lineno++;
		r = packet_parse(line, packets, lineno, &p);
		if (r < 0) {
			rc = 2;
			break;
		}
		if (r == 0)
			continue;
		p.n = ++n;
		if (eval_packet(s, &p, pos, n_pos) < 0)
			rc = 1;
	}
	fclose(f);
	print_counters();
out:
	free(pos);
	free(placed);
	rule_hashlimit_free(hashlimit);
	rule_set_free(s);
	rule_ipsets_free(ipsets);
	free(text);
	return rc;
}
