/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the checks and defaults of a whole extension — what a rule's
 * match or target must have given (its options' tables are rule_x.c's),
 * the protocol and family it needs, the tables and hooks it may sit in.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "rule_x_priv.h"

#define B(i) ((uint16_t)(1u << (i)))

/* ------------------------------------------------------------------------ */
/* Whole extensions                                                          */
/* ------------------------------------------------------------------------ */

void
rule_x_finish(struct rule *r, struct rule_x *x)
{
	const struct rule_xkind *k = &rule_xkinds[x->kind];

	/* A match present with no option: its native-only flag says so. */
	if (x->kind < RULE_XM__END && x->given == 0 && k->n > 0 && k->o[k->n - 1].ipt == NULL)
		x->given = B(k->n - 1);
	switch (x->kind) {
	case RULE_XM_RECENT:
		/* The kernel's defaults, made explicit so that every spelling is one value. */
		if (!(x->given & B(8))) {
			snprintf(x->u.recent.name, sizeof(x->u.recent.name), "DEFAULT");
			x->given |= B(8);
		}
		if (!(x->given & (B(10) | B(11))))
			x->given |= B(10);
		break;
	case RULE_XM_CONNLIMIT:
		if (!(x->given & B(2))) {
			x->u.connlimit.mask = (uint8_t)(r->family == FC_AF_INET6 ? 128 : 32);
			if (r->family != 0)
				x->given |= B(2);
		}
		if (!(x->given & (B(3) | B(4))))
			x->given |= B(3);
		break;
	case RULE_XM_LIMIT:
		if (!(x->given & B(0))) {
			x->u.limit.rate = 3;
			x->u.limit.unit = RULE_RATE_HOUR;
			x->given |= B(0);
		}
		if (!(x->given & B(1))) {
			x->u.limit.burst = 5;
			x->given |= B(1);
		}
		break;
	case RULE_XM_HASHLIMIT:
		/* A byte rate has no burst unless given (netfilter's 0: no refills). */
		if (!(x->given & B(2)) && x->u.hashlimit.unit != RULE_RATE_BYTES) {
			x->u.hashlimit.burst = 5;
			x->given |= B(2);
		}
		/* A byte rate's burst is in bytes however written. */
		if (x->u.hashlimit.unit == RULE_RATE_BYTES)
			x->u.hashlimit.burst_bytes = 0;
		break;
	case RULE_XM_STRING:
		/* Offsets as iptables-save writes them: only those not the default. */
		if (!(x->given & B(4)))
			x->u.str.to = UINT16_MAX;
		if (x->u.str.to == UINT16_MAX)
			x->given &= (uint16_t)~B(4);
		if (x->u.str.from == 0)
			x->given &= (uint16_t)~B(3);
		break;
	case RULE_XT_ECN:
		/* One spelling, iptables-save's: "remove" is ECE and CWR 0, and only that. */
		if (x->given & B(0)) {
			x->given = (uint16_t)((x->given & ~B(0)) | B(1) | B(2));
			x->u.ecn_t.ece = 0;
			x->u.ecn_t.cwr = 0;
		}
		if ((x->given & (B(1) | B(2) | B(3))) == (B(1) | B(2)) && x->u.ecn_t.ece == 0 &&
			x->u.ecn_t.cwr == 0)
			x->given = (uint16_t)((x->given & ~(B(1) | B(2))) | B(0));
		break;
	case RULE_XT_CONNMARK:
		if ((x->given & (B(1) | B(2))) && !(x->given & B(3))) {
			x->u.connmark.nfmask = UINT32_MAX;
			x->given |= B(3);
		}
		if ((x->given & (B(1) | B(2))) && !(x->given & B(4))) {
			x->u.connmark.ctmask = UINT32_MAX;
			x->given |= B(4);
		}
		break;
	default:
		break;
	}
}

static bool
proto_is(const struct rule *r, uint8_t proto)
{
	return (r->match & RULE_M_PROTO) && !(r->neg & RULE_M_PROTO) && r->proto == proto;
}

/*
 * CT --helper NAME: the helpers gufc has (conntrack_helper.h: ftp, tftp,
 * sip, irc, sane), each for its protocol, as Linux finds a helper by name
 * and protocol (-p tcp for ftp, irc and sane, -p udp for tftp, either for sip;
 * irc is IPv4 only, as Linux's); the others Linux has are an error
 * that says so, not a silent accept.
 */
static const char *
ct_helper_check(const struct rule *r, const char *name)
{
#define NOT_BUILT(n) {n, "CT --helper " n ": this helper is not built in gufc (it has ftp, tftp, sip, irc and sane)"}
	static const struct {
		const char *name;
		const char *msg;
	} linux_only[] = {NOT_BUILT("h323"), NOT_BUILT("RAS"),
		NOT_BUILT("Q.931"), NOT_BUILT("H.245"), NOT_BUILT("pptp"),
		NOT_BUILT("amanda"), NOT_BUILT("netbios-ns"), NOT_BUILT("snmp"),
		NOT_BUILT("snmp_trap"), NOT_BUILT("broadcast")};
#undef NOT_BUILT

	if (strcmp(name, "ftp") == 0)
		return proto_is(r, RULE_PROTO_TCP) ? NULL :
			"CT --helper ftp needs -p tcp (a helper serves one protocol)";
	if (strcmp(name, "tftp") == 0)
		return proto_is(r, RULE_PROTO_UDP) ? NULL :
			"CT --helper tftp needs -p udp (a helper serves one protocol)";
	if (strcmp(name, "sane") == 0)
		return proto_is(r, RULE_PROTO_TCP) ? NULL :
			"CT --helper sane needs -p tcp (a helper serves one protocol)";
	if (strcmp(name, "irc") == 0) {
		if (r->family == FC_AF_INET6)
			return "CT --helper irc: Linux's IRC helper is IPv4 only";
		return proto_is(r, RULE_PROTO_TCP) ? NULL :
			"CT --helper irc needs -p tcp (a helper serves one protocol)";
	}
	if (strcmp(name, "sip") == 0)
		return proto_is(r, RULE_PROTO_UDP) || proto_is(r, RULE_PROTO_TCP) ? NULL :
			"CT --helper sip needs -p udp or -p tcp (Linux's SIP helper serves both)";
	for (unsigned int i = 0; i < RTE_DIM(linux_only); i++)
		if (strcasecmp(name, linux_only[i].name) == 0)
			return linux_only[i].msg;
	return "CT --helper: no such helper (gufc has ftp, tftp, sip, irc and sane)";
}

static bool
reject_family_ok(uint8_t with, uint8_t family)
{
	if (with == RULE_REJECT_TCP_RESET || family == 0)
		return true;
	if (family == FC_AF_INET6)
		return with >= RULE_REJECT_ICMP6_NO_ROUTE;
	return with < RULE_REJECT_TCP_RESET;
}

const char *
rule_x_check(const struct rule *r, const struct rule_x *x)
{
	const struct rule_xkind *k;
	uint16_t all;

	if (x->kind == RULE_X_NONE || x->kind >= RULE_X__COUNT || rule_xkinds[x->kind].o == NULL)
		return "bad extension kind";
	k = &rule_xkinds[x->kind];
	all = (uint16_t)((1u << k->n) - 1);
	if ((x->given & ~all) != 0 || (x->neg & ~x->given) != 0 || x->pad != 0 || x->pad2 != 0)
		return "bad extension options";
	for (unsigned int i = 0; i < k->n; i++) {
		if (!(x->given & B(i)))
			continue;
		if (k->o[i].flags & XO_PARSE)
			return "bad extension options";
		if ((x->neg & B(i)) && !(k->o[i].flags & XO_NEG))
			return "option cannot be negated";
		if (x->given & k->o[i].excl)
			return "options exclude each other";
	}
	if (k->need != 0 && !(x->given & k->need))
		return k->need_msg;
	if (k->family != 0 && r->family != 0 && r->family != k->family)
		return "extension of the other address family";
	if (k->proto != 0 && !proto_is(r, k->proto)) {
		/* ICMPv6 may be named 58 or its aliases: the number is what counts. */
		return "extension needs its protocol (-p)";
	}
	switch (x->kind) {
	case RULE_XM_AH:
		/* IPv4's ah match is for -p ah; IPv6's finds the extension header itself. */
		if (r->family == FC_AF_INET4 && !proto_is(r, 51))
			return "extension needs its protocol (-p)";
		break;
	case RULE_XM_ECN:
		/* The kernel's check: the TCP flags only in a rule for TCP. */
		if ((x->given & (B(0) | B(1))) && !proto_is(r, RULE_PROTO_TCP))
			return "ecn --ecn-tcp-ece and --ecn-tcp-cwr need -p tcp";
		break;
	case RULE_XM_CONNBYTES:
		if ((x->given & (B(1) | B(2))) != (B(1) | B(2)))
			return "connbytes needs --connbytes, --connbytes-dir and --connbytes-mode";
		break;
	case RULE_XM_STATISTIC:
		if (x->u.stat.mode == RULE_STAT_RANDOM && (x->given & (B(2) | B(3))))
			return "statistic random takes --probability";
		if (x->u.stat.mode == RULE_STAT_NTH && !(x->given & B(2)))
			return "statistic nth needs --every";
		if (x->u.stat.mode == RULE_STAT_NTH && x->u.stat.packet >= x->u.stat.every)
			return "statistic --packet must be below --every";
		break;
	case RULE_XM_RECENT:
		/* The kernel's checks (set, rcheck, update, remove are options 0-3). */
		if ((x->given & B(6)) && x->u.recent.hitcount > RULE_RECENT_STAMPS)
			return "recent --hitcount above 255 (Linux's maximum)";
		if ((x->given & B(5)) && x->u.recent.seconds == 0)
			return "recent --reap needs --seconds";
		if ((x->given & (B(0) | B(3))) && (x->given & (B(4) | B(5) | B(6) | B(7))))
			return "recent --seconds, --reap, --hitcount and --rttl go with --rcheck or --update";
		break;
	case RULE_XM_HASHLIMIT: {
		const struct rule_x_hashlimit *h = &x->u.hashlimit;
		uint64_t per_s = rx_hl_cost_bytes(rx_hl_byte_cost(h->rate));

		if (h->burst_bytes && h->unit != RULE_RATE_BYTES)
			return "hashlimit burst in bytes needs a byte rate (Nb/s)";
		if (h->unit != RULE_RATE_BYTES || !(x->given & B(2)))
			break;
		/* iptables' checks (it cannot count a burst of a rate under 16b/s). */
		if (per_s == 0)
			return "hashlimit burst needs a byte rate of 16b/s or more";
		if (h->burst < per_s)
			return "hashlimit burst in bytes below the rate's bytes per second";
		break;
	}
	case RULE_XM_TIME:
		if (x->given == 0)
			return "time needs an option";
		break;
	case RULE_XM_STRING:
		/* iptables' checks, then the kernel's (xt_string refuses these). */
		if (!(x->given & B(2)))
			return "string needs --algo (bm or kmp)";
		if (x->u.str.len == 0 || x->u.str.len > RULE_STR_MAX ||
			x->u.str.algo > RULE_STR_KMP)
			return "bad string pattern";
		if (x->u.str.from > x->u.str.to)
			return "string --from is past --to";
		for (unsigned int i = x->u.str.len; i < RULE_STR_MAX; i++)
			if (x->u.str.pat[i] != 0)
				return "bad string pattern";
		break;
	case RULE_XM_U32:
		return rule_u32_check(&x->u.u32);
	case RULE_XM_BPF:
		return rule_bpf_check(&x->u.bpf);
	case RULE_XT_REJECT:
		/* Without --reject-with each family takes its own port unreachable. */
		if ((x->given & B(0)) && !reject_family_ok(x->u.reject.with, r->family))
			return "reject type of the other address family";
		if ((x->given & B(0)) && x->u.reject.with == RULE_REJECT_TCP_RESET &&
			!proto_is(r, RULE_PROTO_TCP))
			return "tcp-reset needs -p tcp";
		break;
	case RULE_XT_TCPMSS:
		/* The kernel's rule: only for TCP SYNs. */
		for (unsigned int i = 0; i < r->n_xm && i < RULE_XM_MAX; i++) {
			const struct rule_x *m = &r->xm[i];

			if (m->kind == RULE_XM_TCP && (m->given & B(0)) && !(m->neg & B(0)) &&
				(m->u.tcp.mask & m->u.tcp.cmp & RULE_TCP_SYN))
				return NULL;
		}
		return "TCPMSS needs --tcp-flags matching SYN (e.g. --tcp-flags SYN,RST SYN)";
	case RULE_XT_CT:
		if (x->given == 0)
			return "CT needs --notrack, --helper or --zone";
		if (x->given & B(2))
			return RULE_X_ZONE_MSG;
		if (x->given & B(1))
			return ct_helper_check(r, x->u.ct_t.helper);
		break;
	case RULE_XT_ECN:
		/* The kernel's check: TCP flags only in a rule for TCP. */
		if ((x->given & (B(0) | B(1) | B(2))) && !proto_is(r, RULE_PROTO_TCP))
			return "ECN --ecn-tcp-remove, --ecn-tcp-ece and --ecn-tcp-cwr need -p tcp";
		break;
	case RULE_XT_SYNPROXY:
		/* Kept and ignored would leave SYN floods unanswered while the set looks loaded. */
		return "SYNPROXY is refused: gufc answers no TCP handshakes (no SYN cookies, no TCP stack)";
	default:
		break;
	}
	return NULL;
}
