/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_help_sip.c — the SIP helper in the conntrack
 * module (nf_conntrack_sip and nf_nat_sip with Linux's defaults:
 * sip_direct_media=1, sip_direct_signalling=1): the media streams a
 * session description announces become expectations; behind NAT the
 * message is rewritten (ct_sip_nat.c plans the edits, ct_help_mangle()
 * applies them after the NAT rewrite of the headers) and the expected
 * media get the NAT binding that brings them to the announcing host.
 * Rules lcore only.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>

#include "ct_help_priv.h"
#include "ct_priv.h"

#define count ct_help_count

/* How many even ports past the announced one a NATed stream may take. */
#define SIP_PORT_TRIES 512u

/* The longest registration the clock's wrap lets an expectation hold (s). */
#define SIP_EXPIRES_MAX 2000000u

static bool
addr_eq(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	return memcmp(a, b, len) == 0;
}

/*
 * Linux's two tuples for a message in direction @p dir: this direction as
 * it was sent, the other as its sender sees it.
 */
static void
sip_conn(struct mod_ct_sip_conn *c, const struct fc_key *ok, const struct fc_key *rk,
	unsigned int dir)
{
	const struct fc_key *t = dir == RULE_DIR_ORIG ? ok : rk,
			    *o = dir == RULE_DIR_ORIG ? rk : ok;
	unsigned int alen = fc_af_addr_len(ok->family);

	memset(c, 0, sizeof(*c));
	c->family = ok->family;
	c->proto = fc_key_proto(ok);
	memcpy(c->src, fc_key_src(t), alen);
	memcpy(c->dst, fc_key_dst(t), alen);
	c->sport = rte_be_to_cpu_16(fc_key_sport(t));
	c->dport = rte_be_to_cpu_16(fc_key_dport(t));
	memcpy(c->osrc, fc_key_src(o), alen);
	memcpy(c->odst, fc_key_dst(o), alen);
	c->osport = rte_be_to_cpu_16(fc_key_sport(o));
	c->odport = rte_be_to_cpu_16(fc_key_dport(o));
}

/* Is the connection translated (Linux's IPS_NAT_MASK)? */
static bool
sip_natted(const struct mod_ct_sip_conn *c)
{
	unsigned int alen = fc_af_addr_len(c->family);

	return !addr_eq(c->src, c->odst, alen) || !addr_eq(c->dst, c->osrc, alen) ||
	       c->sport != c->odport || c->dport != c->osport;
}

/*
 * A stream at the sender's own address, without NAT: RTP (the even port)
 * and RTCP (the next) from the other side's address, any port. @return 0,
 * or -1 (no room: drop).
 */
static int
media_expect(struct ct_helpers *h, uint32_t id, const struct mod_ct_sip_conn *c,
	const struct mod_ct_sip_media *md)
{
	unsigned int alen = fc_af_addr_len(c->family);
	uint32_t base = md->port & ~1u;
	struct mod_ct_exp e;
	int r = 0;

	memset(&e, 0, sizeof(e));
	e.tuple.family = c->family;
	memcpy(fc_key_src_w(&e.tuple), c->osrc, alen);
	memcpy(fc_key_dst_w(&e.tuple), md->addr, alen);
	fc_key_set_proto(&e.tuple, 17);
	e.helper = MOD_CT_HELPER_SIP;
	e.master = id;
	e.expires = h->now + CT_SIP_EXP_TIMEOUT_MS;
	for (uint32_t p = base; p <= base + 1; p++) {
		fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16((uint16_t)p));
		r = ct_help_exp_add(h, h->exp_sip, &e);
		if (r == -EEXIST)
			return 0; /* another call expects the stream: Linux skips it */
		if (r < 0)
			return -1;
	}
	count(&h->st.commands);
	return 0;
}

/*
 * A stream at the sender's own address on a translated connection
 * (nf_nat_sdp_media): expected at the address the other side knows the
 * sender by, the announced even port or the next free pair, with a DNAT
 * binding back to the announced address and port (and, when the sender
 * sent to a translated address, an SNAT binding from that one). @p mn
 * receives the address and port the description must announce.
 * @return 0, or -1 (no free pair, no room: drop).
 */
static int
media_expect_nat(struct ct_helpers *h, uint32_t id, const struct mod_ct_sip_conn *c,
	const struct mod_ct_sip_media *md, struct mod_ct_sip_media_nat *mn)
{
	unsigned int alen = fc_af_addr_len(c->family);
	uint16_t base = md->port & (uint16_t)~1u, p = base;
	struct mod_ct_exp e, rtcp;
	unsigned int tries;
	int r = -1;

	/* "Connection will come from reply": the sender's outside address. */
	memcpy(mn->addr, addr_eq(c->src, c->odst, alen) ? md->addr : c->odst, alen);
	memset(&e, 0, sizeof(e));
	e.tuple.family = c->family;
	memcpy(fc_key_src_w(&e.tuple), c->osrc, alen);
	memcpy(fc_key_dst_w(&e.tuple), mn->addr, alen);
	fc_key_set_proto(&e.tuple, 17);
	e.helper = MOD_CT_HELPER_SIP;
	e.master = id;
	e.expires = h->now + CT_SIP_EXP_TIMEOUT_MS;
	e.nat = true;
	memcpy(e.nat_addr, md->addr, alen);
	if (!addr_eq(c->dst, c->osrc, alen)) {
		e.snat = true;
		memcpy(e.snat_addr, c->dst, alen);
	}
	for (tries = 0; tries < SIP_PORT_TRIES && p != 0; tries++, p = (uint16_t)(p + 2)) {
		fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16(p));
		e.nat_port = base;
		r = ct_help_exp_add(h, h->exp_sip, &e);
		if (r == -EEXIST)
			continue;
		if (r < 0)
			break;
		rtcp = e;
		fc_key_set_ports(&rtcp.tuple, 0, rte_cpu_to_be_16((uint16_t)(p + 1)));
		rtcp.nat_port = (uint16_t)(base + 1);
		r = ct_help_exp_add(h, h->exp_sip, &rtcp);
		if (r == 0)
			break;
		mod_ct_expect_remove(h->exp_sip, &e.tuple, id);
		if (r != -EEXIST)
			break;
	}
	if (r != 0)
		return -1; /* Linux: "all ports in use for SDP media" */
	count(&h->st.commands);
	mn->new_port = p != base;
	mn->port = p;
	return 0;
}

/*
 * A REGISTER (process_register_request, nf_nat_sip_expect): the phone's
 * Contact, at its own address, becomes a permanent expectation, inactive
 * until the registrar's answer: incoming signalling from the registrar's
 * address (sip_direct_signalling), any port, to the Contact's address and
 * port over the connection's transport, for 3600 s. Behind NAT it is
 * expected at the phone's outside address (and the masquerade's port when
 * the Contact names the phone's source port), the next free port if taken,
 * with a DNAT binding back; the Contact is rewritten to it.
 * @return 0, or -1: drop.
 */
static int
register_request(struct ct_helpers *h, uint32_t id, struct ct_help *hp,
	const struct mod_ct_sip_conn *c, bool nat, const uint8_t *pay, uint32_t plen,
	const struct mod_ct_sip_msg *m, struct mod_ct_edit *ed, int *n)
{
	unsigned int alen = fc_af_addr_len(c->family);
	uint32_t expires = 0, moff, mlen, at = 0, v;
	uint8_t addr[16], proto;
	struct mod_ct_exp e;
	uint16_t port, p;
	unsigned int tries;
	int r = -1;

	if (hp->expected)
		return 0; /* an expected connection registers nothing (Linux) */
	if (ct_sip_header_num(pay, plen, CT_SIP_H_EXPIRES, &moff, &mlen, &v) == 1)
		expires = v;
	r = ct_sip_header_uri(
		pay, plen, &at, CT_SIP_H_CONTACT, c->family, NULL, &moff, &mlen, addr, &port);
	if (r <= 0)
		return r;
	if (!addr_eq(addr, c->src, alen))
		return 0; /* a third-party registration: not expected */
	if (ct_sip_param_transport(pay, plen, moff + mlen, c->proto, &proto) == 0)
		return 0;
	if (ct_sip_param_num(pay, plen, moff + mlen, "expires=", &v) == 1)
		expires = v;
	if (expires != 0) {
		memset(&e, 0, sizeof(e));
		e.tuple.family = c->family;
		memcpy(fc_key_src_w(&e.tuple), c->osrc, alen);
		memcpy(fc_key_dst_w(&e.tuple), addr, alen);
		fc_key_set_proto(&e.tuple, proto);
		e.helper = MOD_CT_HELPER_SIP;
		e.flags = MOD_CT_EXP_F_PERMANENT | MOD_CT_EXP_F_INACTIVE | MOD_CT_EXP_F_HELPER;
		e.master = id;
		e.expires = h->now + CT_SIP_TIMEOUT_MS;
		p = port;
		if (nat) {
			/* "Connection will come from reply": the outside address; the
			 * masquerade's port when the Contact is the source port. */
			if (!addr_eq(c->src, c->odst, alen))
				memcpy(fc_key_dst_w(&e.tuple), c->odst, alen);
			if (port == (c->forced_dport != 0 ? c->forced_dport : c->sport))
				p = c->odport;
			e.nat = true;
			memcpy(e.nat_addr, addr, alen);
			e.nat_port = port;
			if (!addr_eq(c->dst, c->osrc, alen)) {
				e.snat = true;
				memcpy(e.snat_addr, c->dst, alen);
			}
		}
		r = -1;
		for (tries = 0; tries < (nat ? SIP_PORT_TRIES : 1u) && p != 0; tries++, p++) {
			fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16(p));
			r = ct_help_exp_add(h, h->exp_sig, &e);
			if (r != -EEXIST)
				break;
		}
		if (r != 0)
			return -1;
		count(&h->st.commands);
		if (nat && (!addr_eq(fc_key_dst(&e.tuple), addr, alen) || p != port)) {
			char buf[64];
			int w = ct_sip_fmt_addr_port(
				c->family, fc_key_dst(&e.tuple), p, buf, sizeof(buf));

			if (w < 0 || ct_sip_edit_add(ed, (unsigned int *)n, MOD_CT_SIP_EDITS_MAX,
					     moff, mlen, buf, (uint32_t)w) < 0)
				return -1;
		}
	}
	hp->sip_register_cseq = m->cseq;
	hp->sip_register = true;
	return 0;
}

/*
 * The registrar's answer to the last REGISTER (process_register_response):
 * a 2xx activates the expectation of a Contact it lists at the phone's
 * address (as the registrar sees it) for its expires= (else Expires:); a
 * failure, an expiry of 0 or no such Contact takes it back. @return 0, -1: drop.
 */
static int
register_response(struct ct_helpers *h, uint32_t id, struct ct_help *hp,
	const struct mod_ct_sip_conn *c, const uint8_t *pay, uint32_t plen,
	const struct mod_ct_sip_msg *m)
{
	unsigned int alen = fc_af_addr_len(c->family);
	uint32_t expires = 0, moff, mlen, at = 0, v;
	uint8_t addr[16], proto;
	struct fc_key t;
	bool in_hdr = false;
	uint16_t port;
	int r;

	if (!hp->sip_register || hp->sip_register_cseq != m->cseq || m->status < 200)
		return 0;
	if (m->status <= 299) {
		if (ct_sip_header_num(pay, plen, CT_SIP_H_EXPIRES, &moff, &mlen, &v) == 1)
			expires = v;
		for (;;) {
			uint32_t ce = expires;

			r = ct_sip_header_uri(pay, plen, &at, CT_SIP_H_CONTACT, c->family, &in_hdr,
				&moff, &mlen, addr, &port);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
			if (!addr_eq(addr, c->dst, alen) ||
				ct_sip_param_transport(pay, plen, moff + mlen, c->proto, &proto) ==
					0)
				continue;
			if (ct_sip_param_num(pay, plen, moff + mlen, "expires=", &v) == 1)
				ce = v;
			if (ce == 0)
				break;
			memset(&t, 0, sizeof(t));
			t.family = c->family;
			memcpy(fc_key_src_w(&t), c->src, alen);
			memcpy(fc_key_dst_w(&t), addr, alen);
			fc_key_set_proto(&t, proto);
			fc_key_set_ports(&t, 0, rte_cpu_to_be_16(port));
			if (mod_ct_expect_refresh(h->exp_sig, &t, id,
				    h->now + (ce > SIP_EXPIRES_MAX ? SIP_EXPIRES_MAX : ce) *
						     1000u) == 0)
				return 0;
		}
	}
	mod_ct_expect_remove_master(h->exp_sig, id);
	return 0;
}

/* Drop the message as Linux does (counted). */ /* Drop the message as Linux does (counted). */
static void
sip_drop(struct ct_helpers *h, struct rule_flow *f, bool nat)
{
	count(nat ? &h->st.nat_failed : &h->st.dropped);
	f->drop = nat ? RULE_DROP_NAT_ERROR : RULE_DROP_CT_HELPER;
}

/*
 * One SIP message (Linux's process_sip_msg): its expectations, and behind
 * NAT its edits, added to @p ed (*n of them) at offset @p base of the
 * payload. @return 0, or -1: f->drop is set.
 */
static int
sip_message(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	const struct mod_ct_sip_conn *cn, bool nat, const uint8_t *pay, uint32_t plen,
	uint32_t base, struct mod_ct_edit *ed, unsigned int *n)
{
	struct mod_ct_edit le[MOD_CT_SIP_EDITS_MAX];
	struct mod_ct_sip_media_nat mn[MOD_CT_SIP_MEDIA_MAX];
	struct mod_ct_sip_conn cc = *cn, *c = &cc;
	struct mod_ct_sip_msg m;
	unsigned int alen = fc_af_addr_len(c->family);
	int r, k = 0;

	/* A request whose (UDP) Via names the sender's address and another
	 * port: the port it listens on (Linux's forced_dport, Cisco phones). */
	if (plen < 8 || strncasecmp((const char *)pay, "SIP/2.0 ", 8) != 0) {
		uint32_t at = 0, moff, mlen;
		uint8_t a[16];
		uint16_t port;

		if (ct_sip_header_uri(pay, plen, &at, CT_SIP_H_VIA_UDP, c->family, NULL, &moff,
			    &mlen, a, &port) > 0 &&
			port != c->sport && addr_eq(a, c->src, alen))
			hp->sip_forced_dport = port;
	}
	c->forced_dport = hp->sip_forced_dport;

	r = mod_ct_sip_parse(pay, plen, c->family, &m);
	if (r < 0) {
		/* Linux drops what it cannot parse (no CSeq, a bad media port, ...). */
		sip_drop(h, f, false);
		return -1;
	}
	if (r > 0) {
		if (!m.response && (m.method == MOD_CT_SIP_BYE || m.method == MOD_CT_SIP_INVITE)) {
			mod_ct_expect_remove_master(h->exp_sip, id);
			hp->sip_invite = false;
		}
		if (m.response && m.status >= 300 && hp->sip_invite &&
			m.cseq == hp->sip_invite_cseq &&
			(m.method == MOD_CT_SIP_INVITE || m.method == MOD_CT_SIP_UPDATE ||
				m.method == MOD_CT_SIP_PRACK)) {
			mod_ct_expect_remove_master(h->exp_sip, id);
			hp->sip_invite = false;
		}
		for (unsigned int i = 0; i < m.n_media; i++) {
			const struct mod_ct_sip_media *md = &m.media[i];

			memset(&mn[i], 0, sizeof(mn[i]));
			memcpy(mn[i].addr, md->addr, alen);
			if (!addr_eq(md->addr, c->src, alen))
				continue; /* media of another host: not expected (direct media) */
			if ((nat ? media_expect_nat(h, id, c, md, &mn[i])
				 : media_expect(h, id, c, md)) < 0) {
				sip_drop(h, f, false);
				return -1;
			}
		}
		if (!m.response && m.method == MOD_CT_SIP_INVITE && m.sdp) {
			hp->sip_invite_cseq = m.cseq;
			hp->sip_invite = true;
		}
		if (m.method == MOD_CT_SIP_REGISTER &&
			(m.response ? register_response(h, id, hp, c, pay, plen, &m)
				    : register_request(h, id, hp, c, nat, pay, plen, &m, le, &k)) <
				0) {
			sip_drop(h, f, false);
			return -1;
		}
		if (nat && m.sdp)
			k = mod_ct_sip_nat_sdp(pay, plen, c->family, &m, mn, le, (unsigned int)k,
				MOD_CT_SIP_EDITS_MAX);
	}
	if (!nat)
		return 0;
	/* nf_nat_sip: every message of a translated connection. */
	if (k >= 0)
		k = mod_ct_sip_nat_headers(pay, plen, c, le, (unsigned int)k, MOD_CT_SIP_EDITS_MAX);
	if (k < 0 || *n + (unsigned int)k > MOD_CT_SIP_EDITS_MAX) {
		sip_drop(h, f, true);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		ed[*n] = le[i];
		ed[*n].off = (uint16_t)(ed[*n].off + base);
		(*n)++;
	}
	return 0;
}

void
ct_help_sip(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	unsigned int dir, const uint8_t *pay, uint32_t plen, const struct fc_key *ok,
	const struct fc_key *rk)
{
	struct mod_ct_edit ed[MOD_CT_SIP_EDITS_MAX];
	struct mod_ct_sip_conn c;
	unsigned int n = 0;
	bool nat;

	/* Linux reads nothing shorter than "SIP/2.0 200". */
	if (plen < 11)
		return;
	sip_conn(&c, ok, rk, dir);
	nat = sip_natted(&c);
	if (sip_message(h, f, id, hp, &c, nat, pay, plen, 0, ed, &n) != 0)
		return;
	ct_help_plan_edits(h, hp, f->up, dir, ed, n);
	/* Answers go to the port the phone listens on (nf_nat_sip). */
	if (nat && dir == RULE_DIR_REPLY && hp->sip_forced_dport != 0)
		ct_help_plan_dport(h, f->up, hp->sip_forced_dport);
}

/*
 * The end of the SIP message at @p s (Linux's sip_help_tcp): after its
 * Content-Length header's digits, the first blank line, then that many
 * bytes. @return its length; 0: no Content-Length or blank line (nothing
 * more is read); > @p len: the message goes on in a later segment.
 */
static uint64_t
tcp_msg_len(const uint8_t *s, uint32_t len)
{
	uint32_t moff, mlen, clen, e;

	if (ct_sip_header_num(s, len, CT_SIP_H_CONTENT_LENGTH, &moff, &mlen, &clen) != 1 ||
		mlen == 0)
		return 0;
	for (e = moff + mlen; e + 4 <= len; e++)
		if (s[e] == '\r' && s[e + 1] == '\n' && s[e + 2] == '\r' && s[e + 3] == '\n')
			return (uint64_t)e + 4 + clen;
	return 0;
}

void
ct_help_sip_tcp(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	unsigned int dir, const uint8_t *pay, uint32_t plen, const struct fc_key *ok,
	const struct fc_key *rk)
{
	struct mod_ct_edit ed[MOD_CT_SIP_EDITS_MAX];
	struct mod_ct_sip_conn c;
	unsigned int n = 0;
	uint32_t at = 0;
	bool nat;

	if (plen < 11)
		return;
	sip_conn(&c, ok, rk, dir);
	nat = sip_natted(&c);
	/* Each whole message in turn; a message cut by the segment's end is
	 * left alone, and so is all that follows it (Linux). */
	while (at < plen) {
		uint64_t ml = tcp_msg_len(pay + at, plen - at);

		if (ml == 0 || ml > plen - at)
			break;
		if (sip_message(h, f, id, hp, &c, nat, pay + at, (uint32_t)ml, at, ed, &n) < 0)
			return;
		at += (uint32_t)ml;
	}
	ct_help_plan_edits(h, hp, f->up, dir, ed, n);
}
