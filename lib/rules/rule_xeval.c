/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: what a rule's matches mean for a packet context — the whole
 * rule (rule_match_pkt(): 7-tuple, ctstate, interfaces, then the extension
 * matches in order, a port or ctstate match written after one in its
 * place) and each extension kind, as netfilter's matches decide it;
 * stateful kinds go to the caller's provider or take the answer of a
 * fresh state (rule_x_fresh()). Each match also says which per-packet
 * fields it looked at (RULE_DEP_*). Shared by the reference evaluator
 * (rule_ref.c) and, through rule_match_ext(), the compiled classifier.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "rule_x_priv.h"

#define OPT(x, i) (((x)->given >> (i)) & 1)
#define NEG(x, i) ((((x)->neg >> (i)) & 1) != 0)

/*
 * Does key @p k (with RULE_KEY_F_* @p kflags) hold an ICMP message's type
 * and code? An ICMP key of its family does, in dport (type << 8 | code,
 * fc_parse()), for every type (queries, their replies, errors and the
 * rest); a non-first fragment's has no ICMP header.
 */
static bool
key_icmp_fixed(const struct fc_key *k, unsigned int kflags)
{
	unsigned int proto = fc_key_proto(k);

	if (kflags & RULE_KEY_F_NOPORTS)
		return false;
	return (k->family == FC_AF_INET4 && proto == 1) || (k->family == FC_AF_INET6 && proto == 58);
}

void
rule_pkt_init(struct rule_pkt *p, const struct fc_key *k, unsigned int ctstate,
	unsigned int kflags)
{
	memset(p, 0, sizeof(*p));
	p->key = *k;
	p->in_port = RULE_IF_NONE;
	p->out_port = RULE_IF_NONE;
	p->ctstate = (uint8_t)ctstate;
	p->flags = (uint8_t)(kflags & RULE_PKT_F_NOPORTS);
	/* The key's type and code: a context on the key alone has the packets'. */
	if (key_icmp_fixed(k, kflags)) {
		uint16_t tc = ntohs(fc_key_dport(k));

		p->icmp_type = (uint8_t)(tc >> 8);
		p->icmp_code = (uint8_t)tc;
	}
}

static const char *const dep_names[RULE_DEP__COUNT] = {
#define DEP_NAME(name, text) [RULE_DEP_BIT_##name] = text,
	RULE_DEPS(DEP_NAME)
#undef DEP_NAME
};

const char *
rule_dep_name(unsigned int bit)
{
	return bit < RULE_DEP__COUNT ? dep_names[bit] : "?";
}

bool
rule_x_stateful(unsigned int kind)
{
	switch (kind) {
	case RULE_XM_STATISTIC:
	case RULE_XM_RECENT:
	case RULE_XM_CONNLIMIT:
	case RULE_XM_LIMIT:
	case RULE_XM_QUOTA:
	case RULE_XM_HASHLIMIT:
	case RULE_XM_SET:
	case RULE_XM_RPFILTER:
		return true;
	default:
		return false;
	}
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static bool
in_range(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v >= lo && v <= hi;
}

static bool
bit(const uint8_t *map, unsigned int i)
{
	return (map[i / 8] >> (i % 8)) & 1;
}

/* addrtype of an address of the key (one RULE_ADDRTYPE_* bit). */
static uint16_t
addr_type(const struct fc_key *k, bool dst)
{
	const uint8_t *a = dst ? fc_key_dst(k) : fc_key_src(k);
	/* A forged local source (from outside) is this host's address all the same. */
	uint8_t lbit = dst ? FC_KEY_F_DST_LOCAL : (FC_KEY_F_SRC_LOCAL | FC_KEY_F_SRC_FORGED);
	static const uint8_t zero[16];

	if (memcmp(a, zero, fc_af_addr_len(k->family)) == 0)
		return RULE_ADDRTYPE_UNSPEC;
	if (k->family == FC_AF_INET4) {
		if (a[0] >= 224 && a[0] <= 239)
			return RULE_ADDRTYPE_MULTICAST;
		if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255)
			return RULE_ADDRTYPE_BROADCAST;
	} else if (a[0] == 0xff) {
		return RULE_ADDRTYPE_MULTICAST;
	}
	if (fc_key_flags(k) & lbit)
		return RULE_ADDRTYPE_LOCAL;
	/* Loopback addresses are this host's whatever the table says: Linux's lo holds them. */
	if (k->family == FC_AF_INET4 ? a[0] == 127 : memcmp(a, zero, 15) == 0 && a[15] == 1)
		return RULE_ADDRTYPE_LOCAL;
	return RULE_ADDRTYPE_UNICAST;
}

static bool
prefix_in(const struct fc_key *t, bool dst, const struct rule_prefix *pf)
{
	if (t->family == 0)
		return false;
	return rule_prefix_match(dst ? fc_key_dst(t) : fc_key_src(t), pf);
}

static bool
has_ct(const struct rule_pkt *p)
{
	return p->ct_orig.family != 0;
}

/* Days since the epoch -> day of the month (1..31). */
static unsigned int
month_day(uint64_t days)
{
	/* Civil date from days, proleptic Gregorian (Howard Hinnant's method). */
	int64_t z = (int64_t)days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned int doe = (unsigned int)(z - era * 146097);
	unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned int mp = (5 * doy + 2) / 153;

	return doy - (153 * mp + 2) / 5 + 1;
}

static bool
time_match(const struct rule_x *x, uint64_t t)
{
	const struct rule_x_time *tm = &x->u.time;
	uint32_t start = OPT(x, 0) ? tm->start : 0, stop = OPT(x, 1) ? tm->stop : 86399;
	uint64_t days = t / 86400;
	uint32_t sod = (uint32_t)(t % 86400);
	bool overnight = start > stop;

	/* --datestart, --datestop: both ends in, as xt_time. */
	if ((OPT(x, 7) && t < tm->date_start) || (OPT(x, 8) && t > tm->date_stop))
		return false;
	if (overnight ? (sod < start && sod > stop) : (sod < start || sod > stop))
		return false;
	/* --contiguous: after midnight, the days are the range's first day's. */
	if (overnight && OPT(x, 6) && sod <= stop && days > 0)
		days--;
	if (OPT(x, 2)) {
		unsigned int wd = (unsigned int)((days + 3) % 7) + 1; /* Mon 1 .. Sun 7 */

		if (((tm->weekdays >> wd) & 1) == NEG(x, 2))
			return false;
	}
	if (OPT(x, 3)) {
		unsigned int md = month_day(days);

		if (((tm->monthdays >> md) & 1) == NEG(x, 3))
			return false;
	}
	return true;
}

static int
x_ipv6header(const struct rule_x *x, const struct rule_pkt *p)
{
	uint8_t want = x->u.ip6h.headers, inv = NEG(x, 0) ? want : 0, have = p->ip6_hdrs;

	if (OPT(x, 1))
		return ((have ^ want ^ inv) & want) == 0;
	return inv != 0 ? have != want : have == want;
}

/*
 * -m ecn as xt_ecn: the IP header's ECN field (IPv4 TOS or IPv6 traffic
 * class, low two bits), then ECE and CWR of the TCP header (the rule is
 * for -p tcp; a later fragment has no TCP header to look at).
 */
static int
x_ecn(const struct rule_x *x, const struct rule_pkt *p, uint32_t *deps)
{
	if (OPT(x, 2)) {
		*deps |= RULE_DEP_TOS;
		if (((p->tos & 0x03) == x->u.ecn.ect) == NEG(x, 2))
			return 0;
	}
	if (!OPT(x, 0) && !OPT(x, 1))
		return 1;
	*deps |= RULE_DEP_TCPFLAGS;
	if (p->flags & RULE_PKT_F_NOPORTS)
		return 0;
	if (OPT(x, 0) && ((p->tcp_flags & RULE_TCP_ECE) != 0) == NEG(x, 0))
		return 0;
	return !OPT(x, 1) || ((p->tcp_flags & RULE_TCP_CWR) != 0) != NEG(x, 1);
}

static int
x_sctp(const struct rule_x *x, const struct rule_pkt *p)
{
	const struct rule_x_sctp *c = &x->u.sctp;
	bool any = false, all = true, only = true;

	if (p->flags & RULE_PKT_F_NOPORTS)
		return 0;
	if (!OPT(x, 0))
		return 1;
	for (unsigned int i = 0; i < 256; i++) {
		bool want = bit(c->chunks, i), have = bit(p->sctp_chunks, i);

		if (want && have)
			any = true;
		if (want && !have)
			all = false;
		if (have && !want)
			only = false;
	}
	switch (c->mode) {
	case RULE_SCTP_ANY:
		return any != NEG(x, 0);
	case RULE_SCTP_ONLY:
		return only != NEG(x, 0);
	default:
		return all != NEG(x, 0);
	}
}

static int
x_conntrack(const struct rule_x *x, const struct rule_pkt *p)
{
	const struct rule_x_conntrack *c = &x->u.ct;
	const struct fc_key *o = &p->ct_orig, *rp = &p->ct_repl;

	if (!has_ct(p))
		return 0;
	if (OPT(x, 0) && (fc_key_proto(o) == c->proto) == NEG(x, 0))
		return 0;
	if (OPT(x, 1) && prefix_in(o, false, &c->orig_src) == NEG(x, 1))
		return 0;
	if (OPT(x, 2) && prefix_in(o, true, &c->orig_dst) == NEG(x, 2))
		return 0;
	if (OPT(x, 3) && prefix_in(rp, false, &c->repl_src) == NEG(x, 3))
		return 0;
	if (OPT(x, 4) && prefix_in(rp, true, &c->repl_dst) == NEG(x, 4))
		return 0;
	if (OPT(x, 5) &&
		in_range(ntohs(fc_key_sport(o)), c->orig_sport[0], c->orig_sport[1]) == NEG(x, 5))
		return 0;
	if (OPT(x, 6) &&
		in_range(ntohs(fc_key_dport(o)), c->orig_dport[0], c->orig_dport[1]) == NEG(x, 6))
		return 0;
	if (OPT(x, 7) &&
		in_range(ntohs(fc_key_sport(rp)), c->repl_sport[0], c->repl_sport[1]) == NEG(x, 7))
		return 0;
	if (OPT(x, 8) &&
		in_range(ntohs(fc_key_dport(rp)), c->repl_dport[0], c->repl_dport[1]) == NEG(x, 8))
		return 0;
	if (OPT(x, 9) && ((p->ctstatus & c->status) != 0) == NEG(x, 9))
		return 0;
	if (OPT(x, 10) && in_range(p->ct_expire, c->expire[0], c->expire[1]) == NEG(x, 10))
		return 0;
	if (OPT(x, 11) && p->ctdir != c->dir)
		return 0;
	return 1;
}

static int
x_connbytes(const struct rule_x *x, const struct rule_pkt *p)
{
	const struct rule_x_connbytes *c = &x->u.connbytes;
	uint64_t pk, by, what;

	if (!has_ct(p))
		return 0;
	switch (c->dir) {
	case RULE_CTDIR_ORIGINAL:
		pk = p->ct_packets[0];
		by = p->ct_bytes[0];
		break;
	case RULE_CTDIR_REPLY:
		pk = p->ct_packets[1];
		by = p->ct_bytes[1];
		break;
	default:
		pk = p->ct_packets[0] + p->ct_packets[1];
		by = p->ct_bytes[0] + p->ct_bytes[1];
		break;
	}
	what = c->mode == RULE_CB_PACKETS ? pk : c->mode == RULE_CB_BYTES ? by : pk ? by / pk : 0;
	return in_range(what, c->lo, c->hi) != NEG(x, 0);
}

static int
x_eui64(const struct rule_pkt *p)
{
	const uint8_t *src = fc_key_src(&p->key);
	uint8_t eui[8];

	if (!(p->flags & RULE_PKT_F_MAC) || p->key.family != FC_AF_INET6)
		return 0;
	memcpy(eui, p->mac_src, 3);
	eui[3] = 0xff;
	eui[4] = 0xfe;
	memcpy(eui + 5, p->mac_src + 3, 3);
	eui[0] ^= 0x02;
	return memcmp(src + 8, eui, 8) == 0;
}

/* ------------------------------------------------------------------------ */
/* Stateful matches without a provider                                       */
/* ------------------------------------------------------------------------ */

int
rule_x_nth_step(const struct rule_x *x, uint32_t *count)
{
	uint32_t every = x->u.stat.every != 0 ? x->u.stat.every : 1;
	bool hit = *count % every == x->u.stat.packet;

	*count = (*count + 1) % every;
	return hit != NEG(x, 2);
}

int
rule_x_fresh(const struct rule_ipsets *sets, const struct rule_ifnames *ifn, const struct rule *r,
	unsigned int xi, const struct rule_pkt *p)
{
	const struct rule_x *x = &r->xm[xi];
	int rc;

	switch (x->kind) {
	case RULE_XM_STATISTIC:
		if (x->u.stat.mode == RULE_STAT_RANDOM)
			return ((p->rand & 0x7fffffffu) < x->u.stat.prob) != NEG(x, 1);
		/* The first packet to reach it: packet number 0 of every N. */
		return (x->u.stat.packet == 0) != NEG(x, 2);
	case RULE_XM_RECENT:
		/* An empty list: --set adds and matches, the others find nothing. */
		for (unsigned int i = 0; i < 4; i++)
			if (OPT(x, i))
				return (i == 0) != NEG(x, i);
		return 0;
	case RULE_XM_CONNLIMIT:
		return OPT(x, 1) ? 1 > x->u.connlimit.limit : 1 <= x->u.connlimit.limit;
	case RULE_XM_LIMIT:
		return 1;
	case RULE_XM_QUOTA:
		/* A whole quota: the packet fits in it (or not). */
		return (x->u.quota.bytes >= p->l3_len) != NEG(x, 0);
	case RULE_XM_HASHLIMIT:
		return OPT(x, 0);
	case RULE_XM_SET:
		rc = rule_ipsets_test_x(sets, &x->u.set, p, ifn, OPT(x, 1));
		return (rc == 1) != NEG(x, 0);
	case RULE_XM_RPFILTER:
		return !OPT(x, 3);
	default:
		return 0;
	}
}

bool
rule_str_find(const struct rule_x_string *st, bool icase, const uint8_t *l3, uint32_t len)
{
	uint32_t end = len < st->to ? len : st->to;

	if (st->len == 0 || st->from > end || end - st->from < st->len)
		return false;
	for (uint32_t i = st->from; i + st->len <= end; i++) {
		uint32_t j = 0;

		if (icase)
			while (j < st->len && rule_str_fold(l3[i + j]) == rule_str_fold(st->pat[j]))
				j++;
		else
			while (j < st->len && l3[i + j] == st->pat[j])
				j++;
		if (j == st->len)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------ */
/* One extension match                                                       */
/* ------------------------------------------------------------------------ */

static int
x_match(const struct rule_ipsets *sets, const struct rule_ifnames *ifn, const struct rule *r,
	unsigned int xi, const struct rule_pkt *p, const struct rule_providers *pv, uint32_t *deps)
{
	const struct rule_x *x = &r->xm[xi];
	const struct fc_key *k = &p->key;
	bool later = p->flags & RULE_PKT_F_NOPORTS;
	int rc;

	if (rule_x_stateful(x->kind)) {
		/* connlimit: the connection's count, decided with the connection (no per-packet dep). */
		if (x->kind != RULE_XM_CONNLIMIT)
			*deps |= x->kind == RULE_XM_SET	       ? RULE_DEP_SET
				 : x->kind == RULE_XM_RPFILTER ? RULE_DEP_ROUTE
							       : RULE_DEP_METER;
		if (pv != NULL && pv->match != NULL) {
			rc = pv->match(pv->arg, r, xi, p);
			if (rc != -ENOTSUP)
				return rc;
		}
		return rule_x_fresh(sets, ifn, r, xi, p);
	}
	switch (x->kind) {
	case RULE_XM_STRING:
		/* The engine may answer for it (a cached entry's two outcomes). */
		*deps |= RULE_DEP_PAYLOAD;
		if (pv != NULL && pv->match != NULL) {
			rc = pv->match(pv->arg, r, xi, p);
			if (rc != -ENOTSUP)
				return rc;
		}
		return rule_str_find(&x->u.str, OPT(x, 5), p->l3, p->l3 != NULL ? p->l3_cap : 0) !=
		       NEG(x, 0);
	case RULE_XM_U32:
		/* As a string match: a predicate of the packet's bytes. */
		*deps |= RULE_DEP_PAYLOAD;
		if (pv != NULL && pv->match != NULL) {
			rc = pv->match(pv->arg, r, xi, p);
			if (rc != -ENOTSUP)
				return rc;
		}
		return rule_u32_match(&x->u.u32, p->l3, p->l3 != NULL ? p->l3_cap : 0) != NEG(x, 0);
	case RULE_XM_BPF:
		*deps |= RULE_DEP_PAYLOAD;
		if (pv != NULL && pv->match != NULL) {
			rc = pv->match(pv->arg, r, xi, p);
			if (rc != -ENOTSUP)
				return rc;
		}
		return rule_bpf_match(&x->u.bpf, p->l3, p->l3 != NULL ? p->l3_cap : 0);
	case RULE_XM_ADDRTYPE:
		if (OPT(x, 0) && ((addr_type(k, false) & x->u.addrtype.src) != 0) == NEG(x, 0))
			return 0;
		return !OPT(x, 1) || ((addr_type(k, true) & x->u.addrtype.dst) != 0) != NEG(x, 1);
	case RULE_XM_TCP:
		*deps |= RULE_DEP_TCPFLAGS;
		if (later)
			return 0;
		if (OPT(x, 0) &&
			((p->tcp_flags & x->u.tcp.mask) == x->u.tcp.cmp) == NEG(x, 0))
			return 0;
		if (OPT(x, 2)) {
			*deps |= RULE_DEP_TCPOPT;
			return bit(p->tcp_opts, x->u.tcp.option) != NEG(x, 2);
		}
		return 1;
	case RULE_XM_SCTP:
		*deps |= RULE_DEP_SCTP;
		return x_sctp(x, p);
	case RULE_XM_ICMP:
	case RULE_XM_ICMP6:
		/*
		 * Where the key holds the type and code, every packet of the
		 * flow has the context's (rule_pkt_init(), fc_parse()): decided
		 * once per flow.
		 */
		if (!key_icmp_fixed(k, p->flags))
			*deps |= RULE_DEP_ICMP;
		if (later)
			return 0;
		if (x->u.icmp.any)
			return !NEG(x, 0);
		return (p->icmp_type == x->u.icmp.type &&
			       in_range(p->icmp_code, x->u.icmp.code_min, x->u.icmp.code_max)) !=
		       NEG(x, 0);
	case RULE_XM_IPRANGE: {
		unsigned int nb = fc_af_addr_len(k->family);
		const struct rule_x_iprange *ir = &x->u.iprange;

		if (OPT(x, 0) && (memcmp(fc_key_src(k), ir->src_min, nb) >= 0 &&
					 memcmp(fc_key_src(k), ir->src_max, nb) <= 0) == NEG(x, 0))
			return 0;
		return !OPT(x, 1) || (memcmp(fc_key_dst(k), ir->dst_min, nb) >= 0 &&
					     memcmp(fc_key_dst(k), ir->dst_max, nb) <= 0) != NEG(x, 1);
	}
	case RULE_XM_MAC:
		*deps |= RULE_DEP_MAC;
		if (!(p->flags & RULE_PKT_F_MAC))
			return 0;
		return (memcmp(p->mac_src, x->u.mac.src, 6) == 0) != NEG(x, 0);
	case RULE_XM_MARK:
		*deps |= RULE_DEP_MARK;
		return ((p->mark & x->u.mark.mask) == x->u.mark.value) != NEG(x, 0);
	case RULE_XM_CONNMARK:
		*deps |= RULE_DEP_CTMARK;
		return ((p->ctmark & x->u.mark.mask) == x->u.mark.value) != NEG(x, 0);
	case RULE_XM_CONNTRACK:
		*deps |= RULE_DEP_CT;
		return x_conntrack(x, p);
	case RULE_XM_TCPMSS:
		*deps |= RULE_DEP_MSS;
		if (later)
			return 0;
		if (!(p->flags & RULE_PKT_F_MSS))
			return NEG(x, 0);
		return in_range(p->tcp_mss, x->u.range.lo, x->u.range.hi) != NEG(x, 0);
	case RULE_XM_LENGTH:
		*deps |= RULE_DEP_LENGTH;
		return in_range(p->l3_len, x->u.range.lo, x->u.range.hi) != NEG(x, 0);
	case RULE_XM_TTL:
	case RULE_XM_HL:
		*deps |= RULE_DEP_TTL;
		if (OPT(x, 0))
			return (p->ttl == x->u.ttl.value) != NEG(x, 0);
		if (OPT(x, 1))
			return p->ttl < x->u.ttl.value;
		return p->ttl > x->u.ttl.value;
	case RULE_XM_FRAGMENT:
		*deps |= RULE_DEP_FRAG;
		return later != NEG(x, 0);
	case RULE_XM_RT:
		*deps |= RULE_DEP_IP6HDR;
		if (!(p->ip6_hdrs & RULE_IP6H_ROUTE))
			return 0;
		if (OPT(x, 0) && (p->rt_type == x->u.rt.type) == NEG(x, 0))
			return 0;
		if (OPT(x, 1) && in_range(p->rt_segsleft, x->u.rt.segsleft[0], x->u.rt.segsleft[1]) ==
					 NEG(x, 1))
			return 0;
		return !OPT(x, 2) || (p->rt_len == x->u.rt.len) != NEG(x, 2);
	case RULE_XM_FRAG:
		*deps |= RULE_DEP_FRAG;
		if (!(p->flags & RULE_PKT_F_FRAGHDR))
			return 0;
		if (OPT(x, 0) && in_range(p->frag_id, x->u.frag.id[0], x->u.frag.id[1]) == NEG(x, 0))
			return 0;
		if (OPT(x, 1) && (p->frag_hdrlen == x->u.frag.len) == NEG(x, 1))
			return 0;
		if (OPT(x, 2) && !(p->frag_flags & RULE_FRAG_F_RES))
			return 0;
		if (OPT(x, 3) && !(p->frag_flags & RULE_FRAG_F_FIRST))
			return 0;
		if (OPT(x, 4) && !(p->frag_flags & RULE_FRAG_F_MORE))
			return 0;
		return !OPT(x, 5) || !(p->frag_flags & (RULE_FRAG_F_FIRST | RULE_FRAG_F_MORE));
	case RULE_XM_IPV6HEADER:
		*deps |= RULE_DEP_IP6HDR;
		return x_ipv6header(x, p);
	case RULE_XM_HBH:
	case RULE_XM_DST: {
		bool hop = x->kind == RULE_XM_HBH;

		*deps |= RULE_DEP_IP6HDR;
		if (!(p->ip6_hdrs & (hop ? RULE_IP6H_HOP : RULE_IP6H_DST)))
			return 0;
		return !OPT(x, 0) ||
		       ((hop ? p->hbh_len : p->dst_len) == x->u.optlen.len) != NEG(x, 0);
	}
	case RULE_XM_IPCOMP:
	case RULE_XM_ESP:
	case RULE_XM_AH:
		*deps |= RULE_DEP_SPI;
		if (later || !(p->flags & RULE_PKT_F_SPI) ||
			(x->kind == RULE_XM_AH && k->family == FC_AF_INET6 &&
				!(p->ip6_hdrs & RULE_IP6H_AH)))
			return 0;
		return !OPT(x, 0) || in_range(p->spi, x->u.range.lo, x->u.range.hi) != NEG(x, 0);
	case RULE_XM_MH:
		*deps |= RULE_DEP_IP6HDR;
		if (later)
			return 0;
		return !OPT(x, 0) || (p->mh_type == x->u.ttl.value) != NEG(x, 0);
	case RULE_XM_EUI64:
		*deps |= RULE_DEP_MAC;
		return x_eui64(p);
	case RULE_XM_PKTTYPE:
		*deps |= RULE_DEP_PKTTYPE;
		return (p->pkttype == x->u.pkttype.type) != NEG(x, 0);
	case RULE_XM_TIME:
		*deps |= RULE_DEP_TIME;
		return time_match(x, p->time_s);
	case RULE_XM_DSCP:
		*deps |= RULE_DEP_TOS;
		return ((p->tos >> 2) == x->u.dscp.dscp) != NEG(x, 0);
	case RULE_XM_TOS:
		*deps |= RULE_DEP_TOS;
		return ((p->tos & x->u.tos.mask) == x->u.tos.value) != NEG(x, 0);
	case RULE_XM_ECN:
		return x_ecn(x, p, deps);
	case RULE_XM_CONNBYTES:
		*deps |= RULE_DEP_CONNBYTES;
		return x_connbytes(x, p);
	case RULE_XM_HELPER: {
		size_t hl = strnlen(p->ct_helper, sizeof(p->ct_helper));

		*deps |= RULE_DEP_CT;
		if (hl == 0)
			return NEG(x, 0);
		return (strncmp(p->ct_helper, x->u.helper.name, hl) == 0) != NEG(x, 0);
	}
	default:
		return -EINVAL;
	}
}

/* ------------------------------------------------------------------------ */
/* Whole rules                                                               */
/* ------------------------------------------------------------------------ */

bool
rule_has_ext(const struct rule *r)
{
	return r->n_xm > 0 ||
	       ((r->match & RULE_M_CTSTATE) && (r->ctstate & (RULE_CT_SNAT | RULE_CT_DNAT)));
}

/* What extension match @p x reads beyond the key, the ctstate and the parsed packet. */
static uint32_t
x_needs(const struct rule_x *x)
{
	switch (x->kind) {
	case RULE_XM_ADDRTYPE:
	case RULE_XM_IPRANGE:
	case RULE_XM_ICMP:
	case RULE_XM_ICMP6:
	case RULE_XM_MARK:
	case RULE_XM_CONNMARK:
	case RULE_XM_CONNTRACK:
	case RULE_XM_HELPER:
	case RULE_XM_CONNBYTES:
	case RULE_XM_FRAGMENT:
	case RULE_XM_LIMIT:
	case RULE_XM_CONNLIMIT:
		return 0;
	case RULE_XM_HASHLIMIT:
		/* A byte rate costs each packet its length. */
		return x->u.hashlimit.unit == RULE_RATE_BYTES ? RULE_PKT_NEED_FRAME : 0;
	case RULE_XM_TCP:
		return OPT(x, 2) ? RULE_PKT_NEED_FRAME : 0; /* options: flags are the packet's */
	case RULE_XM_STATISTIC:
		return x->u.stat.mode == RULE_STAT_RANDOM ? RULE_PKT_NEED_RAND : 0;
	case RULE_XM_TIME:
		return RULE_PKT_NEED_TIME;
	case RULE_XM_SET:
		return RULE_PKT_NEED_FRAME | RULE_PKT_NEED_TIME;
	default:
		/* Header fields (TTL, TOS, MAC, options, extension headers, ...). */
		return RULE_PKT_NEED_FRAME;
	}
}

uint32_t
rule_pkt_needs(const struct rule *r)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++)
		n |= x_needs(&r->xm[i]);
	/* -j SET: the timeouts of the members it adds count from the clock. */
	if (r->action == RULE_ACT_SET)
		n |= RULE_PKT_NEED_TIME;
	return n;
}

uint32_t
rule_set_pkt_needs(const struct rule_set *s)
{
	uint32_t n = 0;

	if (s == NULL)
		return RULE_PKT_NEED_ALL;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, 0);
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int i = 0; c != NULL && i < nc; i++)
			for (uint32_t j = 0; j < c[i].n_rules && n != RULE_PKT_NEED_ALL; j++)
				n |= rule_pkt_needs(&c[i].rules[j]);
	}
	return n;
}

/* Does an extension match of kind @p kind leave the key's addresses and ports alone? */
static bool
x_key_blind(unsigned int kind)
{
	switch (kind) {
	case RULE_XM_TCP:
	case RULE_XM_SCTP:
	case RULE_XM_ICMP:
	case RULE_XM_ICMP6:
	case RULE_XM_MAC:
	case RULE_XM_MARK:
	case RULE_XM_CONNMARK:
	case RULE_XM_STATISTIC:
	case RULE_XM_LIMIT:
	case RULE_XM_QUOTA:
	case RULE_XM_TCPMSS:
	case RULE_XM_LENGTH:
	case RULE_XM_TTL:
	case RULE_XM_HL:
	case RULE_XM_FRAGMENT:
	case RULE_XM_RT:
	case RULE_XM_FRAG:
	case RULE_XM_IPV6HEADER:
	case RULE_XM_HBH:
	case RULE_XM_DST:
	case RULE_XM_ESP:
	case RULE_XM_AH:
	case RULE_XM_IPCOMP:
	case RULE_XM_MH:
	case RULE_XM_PKTTYPE:
	case RULE_XM_TIME:
	case RULE_XM_DSCP:
	case RULE_XM_TOS:
	case RULE_XM_ECN:
	case RULE_XM_CONNBYTES:
	case RULE_XM_HELPER:
	case RULE_XM_STRING:
	case RULE_XM_U32:
	case RULE_XM_BPF:
		return true;
	default:
		return false;
	}
}

uint32_t
rule_key_reads(const struct rule *r)
{
	uint32_t n = 0;

	if (r->match & RULE_M_SRC)
		n |= RULE_READS_SRC;
	if (r->match & RULE_M_SPORT)
		n |= RULE_READS_SPORT;
	for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++)
		if (!x_key_blind(r->xm[i].kind))
			return RULE_READS_ALL;
	return n;
}

uint32_t
rule_set_key_reads(const struct rule_set *s)
{
	uint32_t n = 0;

	if (s == NULL)
		return RULE_READS_ALL;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		const struct rule_chain *c = rule_set_chain_at(s, (enum rule_table)t, 0);
		unsigned int nc = rule_set_chain_count(s, (enum rule_table)t);

		for (unsigned int i = 0; c != NULL && i < nc; i++)
			for (uint32_t j = 0; j < c[i].n_rules && n != RULE_READS_ALL; j++)
				n |= rule_key_reads(&c[i].rules[j]);
	}
	return n;
}

int
rule_match_ext(const struct rule_ipsets *sets, const struct rule_ifnames *ifn,
	const struct rule *r, const struct rule_pkt *p, const struct rule_providers *pv,
	uint32_t *deps)
{
	uint32_t d = 0;
	int rc = 1;

	if ((r->match & RULE_M_CTSTATE) && (r->ctstate & (RULE_CT_SNAT | RULE_CT_DNAT)) &&
		!rule_late_ctstate(r)) {
		d |= RULE_DEP_CTSNAT;
		if (!rule_ctstate_match(r, p->ctstate))
			rc = 0;
	}
	for (unsigned int i = 0; rc == 1 && i < r->n_xm && i < RULE_XM_MAX; i++) {
		unsigned int late;

		rc = x_match(sets, ifn, r, i, p, pv, &d);
		if (rc > 1)
			rc = 1;
		/* A port or ctstate match written after this one: checked here, in order. */
		late = rule_late_ports(r);
		if (rc != 1 || (late == 0 && !rule_late_ctstate(r)))
			continue;
		late &= (r->sport_at == i + 1 ? RULE_M_SPORT : 0u) |
			(r->dport_at == i + 1 ? RULE_M_DPORT : 0u);
		if (late != 0 && !rule_match_key_ports(r, late, &p->key, p->flags))
			rc = 0;
		if (rc == 1 && rule_late_ctstate(r) && r->ctstate_at == i + 1) {
			if (r->ctstate & (RULE_CT_SNAT | RULE_CT_DNAT))
				d |= RULE_DEP_CTSNAT;
			if (!rule_ctstate_match(r, p->ctstate))
				rc = 0;
		}
	}
	if (deps != NULL)
		*deps |= d;
	return rc;
}

int
rule_match_pkt(const struct rule_set *s, const struct rule *r, const struct rule_pkt *p,
	const struct rule_providers *pv, uint32_t *deps)
{
	const struct fc_key *k = &p->key;
	struct rule_ifnames ifn;
	bool neg;

	if (!rule_match_key(r, k, (r->ctstate & (RULE_CT_SNAT | RULE_CT_DNAT)) ? RULE_CT_IGNORE
									      : p->ctstate,
		    p->flags))
		return 0;
	if (r->match & RULE_M_IN) {
		neg = r->neg & RULE_M_IN;
		if (rule_if_match(r->in_if, rule_set_port_name(s, p->in_port)) == neg)
			return 0;
	}
	if (r->match & RULE_M_OUT) {
		neg = r->neg & RULE_M_OUT;
		if (rule_if_match(r->out_if, rule_set_port_name(s, p->out_port)) == neg)
			return 0;
	}
	ifn = rule_set_ifnames(s);
	return rule_match_ext(rule_set_ipsets_get(s), &ifn, r, p, pv, deps);
}
