/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_helper.c — the helpers in the conntrack module
 * ("Helpers in the module" in conntrack_helper.h): which connections get a
 * helper (the raw table's -j CT --helper), the FTP helper reading their
 * segments on the slow path, the expectations it makes and the new flows
 * that take them (RELATED), and, behind NAT, the rewrite of the announced
 * address and port with the sequence shift it leaves
 * (mod_ct_module_mangle(), called by the datapath after the NAT rewrite).
 *
 * A helped connection is TCP (FTP) or UDP (TFTP, SIP): its state lives beside
 * the conntrack record, by the same id (struct ct_help, allocated when the
 * helper is assigned, freed with the record). The UDP helpers read the
 * flow after NAT (ct_help_udp(), from a module of its own after the NAT
 * stages): it needs the reply's translated tuple.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "ct_help_priv.h"

#define CHUNK (1u << MOD_CT_FAST_CHUNK_SHIFT)
#define CHUNK_MASK (CHUNK - 1)
#define PROTO_TCP 6
#define PROTO_UDP 17

#define count ct_help_count

int
ct_help_init(struct ct_helpers *h, struct rule_engine *eng)
{
	memset(h, 0, sizeof(*h));
	h->eng = eng;
	h->exp = mod_ct_expect_create(CT_EXP_MAX, CT_FTP_MAX_EXPECTED);
	h->exp_sip = mod_ct_expect_create(CT_EXP_MAX, CT_SIP_MAX_EXPECTED);
	h->exp_sig = mod_ct_expect_create(CT_EXP_MAX, CT_SIP_SIG_MAX_EXPECTED);
	h->exp_irc = mod_ct_expect_create(CT_EXP_MAX, CT_IRC_MAX_EXPECTED);
	h->scratch = malloc(CT_SCRATCH);
	return h->exp == NULL || h->exp_sip == NULL || h->exp_sig == NULL || h->exp_irc == NULL ||
			       h->scratch == NULL ?
		       -ENOMEM :
		       0;
}

void
ct_help_fini(struct ct_helpers *h)
{
	for (unsigned int c = 0; c < MOD_CT_FAST_CHUNKS; c++) {
		if (h->help[c] == NULL)
			continue;
		for (unsigned int i = 0; i < CHUNK; i++)
			free(h->help[c][i]);
		free(h->help[c]);
	}
	mod_ct_expect_free(h->exp);
	mod_ct_expect_free(h->exp_sip);
	mod_ct_expect_free(h->exp_sig);
	mod_ct_expect_free(h->exp_irc);
	free(h->scratch);
	memset(h, 0, sizeof(*h));
}

/*
 * Add expectation @p e to table @p t; once made, the engine hears of it
 * (rule_engine_expect_note()): a tuple it covers whose drop was cached
 * before is decided anew at its next packet, as in Linux where the next
 * packet of a dropped connection is a new one and meets the expectation.
 */
int
ct_help_exp_add(struct ct_helpers *h, struct mod_ct_expect *t, const struct mod_ct_exp *e)
{
	int rc = mod_ct_expect_add(t, e, h->now);

	if (rc == 0)
		rule_engine_expect_note(h->eng, &e->tuple);
	return rc;
}

#define help_of ct_help_of

struct ct_help *
ct_help_of(const struct ct_helpers *h, uint32_t id)
{
	struct ct_help **c = h->help[id >> MOD_CT_FAST_CHUNK_SHIFT];

	return c == NULL ? NULL : c[id & CHUNK_MASK];
}

uint8_t
ct_help_assigned(const struct rule_eval *raw)
{
	uint8_t helper = 0;

	/* The last CT --helper of the walk counts (each sets the template's). */
	for (unsigned int i = 0; i < raw->n_acts && i < RULE_ACTS_MAX; i++) {
		const struct rule_act *a = &raw->acts[i];
		int hl;

		if (a->action != RULE_ACT_CT || a->tgt == NULL || !(a->tgt->given & 2))
			continue;
		hl = mod_ct_helper_find(a->tgt->u.ct_t.helper);
		if (hl > 0)
			helper = (uint8_t)hl;
	}
	return helper;
}

bool
ct_help_wants(const struct ct_helpers *h, const struct rule_flow *f, uint8_t helper)
{
	const struct fc_key *k = &f->up->pkt.key;

	return (helper != MOD_CT_HELPER_NONE && mod_ct_helper_serves(helper, fc_key_proto(k))) ||
	       mod_ct_expect_has(h->exp, k, h->now) || mod_ct_expect_has(h->exp_sip, k, h->now) ||
	       mod_ct_expect_has(h->exp_sig, k, h->now);
	/* (IRC's expectations are TCP: every TCP connection has a record.) */
}

int
ct_help_created(struct ct_helpers *h, struct rule_flow *f, uint32_t id, uint8_t helper,
	struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	struct mod_ct_exp e;
	bool expected = false;

	if (mod_ct_expect_take(h->exp, &f->up->pkt.key, h->now, &e) == 0 ||
		mod_ct_expect_take(h->exp_sip, &f->up->pkt.key, h->now, &e) == 0 ||
		mod_ct_expect_take(h->exp_sig, &f->up->pkt.key, h->now, &e) == 0 ||
		mod_ct_expect_take(h->exp_irc, &f->up->pkt.key, h->now, &e) == 0) {
		c->master_helper = e.helper;
		if (v->ctstate == RULE_CT_NEW)
			v->ctstate = RULE_CT_RELATED;
		f->ctstatus |= RULE_CTS_EXPECTED;
		snprintf(f->ct_helper, sizeof(f->ct_helper), "%s", mod_ct_helper_name(e.helper));
		if (e.nat) {
			memset(&f->exp_dnat, 0, sizeof(f->exp_dnat));
			f->exp_dnat.family = e.tuple.family;
			memcpy(f->exp_dnat.addr_min, e.nat_addr, sizeof(e.nat_addr));
			memcpy(f->exp_dnat.addr_max, e.nat_addr, sizeof(e.nat_addr));
			f->exp_dnat.port_min = f->exp_dnat.port_max = e.nat_port;
			memset(&f->exp_snat, 0, sizeof(f->exp_snat));
			if (e.snat) {
				f->exp_snat.family = e.tuple.family;
				memcpy(f->exp_snat.addr_min, e.snat_addr, sizeof(e.snat_addr));
				memcpy(f->exp_snat.addr_max, e.snat_addr, sizeof(e.snat_addr));
			}
			f->exp_nat = true;
		}
		/* SIP's signalling expectation gives the connection the helper. */
		if ((e.flags & MOD_CT_EXP_F_HELPER) && helper == MOD_CT_HELPER_NONE)
			helper = e.helper;
		expected = true;
		count(&h->st.related);
	}
	/* A helper serves one protocol (Linux finds it by name and protocol). */
	if (helper == MOD_CT_HELPER_NONE ||
		!mod_ct_helper_serves(helper, fc_key_proto(&f->up->pkt.key)))
		return 0;
	/* Linux's IRC helper is IPv4 only. */
	if (helper == MOD_CT_HELPER_IRC && f->up->pkt.key.family != FC_AF_INET4)
		return 0;
	if (h->help[id >> MOD_CT_FAST_CHUNK_SHIFT] == NULL) {
		h->help[id >> MOD_CT_FAST_CHUNK_SHIFT] = calloc(CHUNK, sizeof(struct ct_help *));
		if (h->help[id >> MOD_CT_FAST_CHUNK_SHIFT] == NULL)
			return -ENOMEM;
	}
	free(help_of(h, id));
	h->help[id >> MOD_CT_FAST_CHUNK_SHIFT][id & CHUNK_MASK] = calloc(1, sizeof(struct ct_help));
	if (help_of(h, id) == NULL)
		return -ENOMEM;
	help_of(h, id)->expected = expected;
	c->helper = helper;
	count(&h->st.conns);
	return 0;
}

void
ct_help_interest(const struct ct_helpers *h, const struct mod_ct_conn *c, uint32_t id,
	uint16_t interest[2])
{
	const struct ct_help *hp;
	uint16_t i;

	if (c->helper == MOD_CT_HELPER_NONE || (hp = help_of(h, id)) == NULL)
		return;
	/* Payload to the helper; every packet once a rewrite shifted the numbers;
	 * a UDP helper reads every packet. */
	i = (c->proto != PROTO_TCP || mod_ct_seqadj_active(&hp->adj)) ?
		FC_INTEREST_ALL : FC_INTEREST_TCP_DATA;
	interest[0] |= i;
	interest[1] |= i;
}

const struct fc_pkt *
ct_help_view(const struct ct_helpers *h, const struct mod_ct_conn *c, uint32_t id,
	unsigned int dir, const struct fc_pkt *pkt, struct fc_pkt *tmp)
{
	const struct ct_help *hp;

	if (c->helper == MOD_CT_HELPER_NONE || (hp = help_of(h, id)) == NULL ||
		!mod_ct_seqadj_active(&hp->adj) || !(pkt->tcp_flags & 0x10))
		return pkt;
	*tmp = *pkt;
	tmp->tcp_ack = mod_ct_seqadj_ack(&hp->adj, dir, pkt->tcp_ack);
	return tmp;
}

/* A plan for this packet's rewrite (the oldest one gives way). */
static struct ct_plan *
plan_new(struct ct_helpers *h, const struct rule_upcall *up)
{
	struct ct_plan *p = NULL;

	for (unsigned int i = 0; i < h->n_plan; i++)
		if (h->plan[i].up == up)
			p = &h->plan[i];
	if (p == NULL) {
		if (h->n_plan < CT_PLANS) {
			p = &h->plan[h->n_plan++];
		} else {
			memmove(&h->plan[0], &h->plan[1], (CT_PLANS - 1) * sizeof(h->plan[0]));
			p = &h->plan[CT_PLANS - 1];
		}
	}
	memset(p, 0, sizeof(*p));
	p->up = up;
	p->key = up->pkt.key;
	p->oseq = up->pkt.tcp_seq;
	p->oack = up->pkt.tcp_ack;
	p->odlen = up->pkt.tcp_dlen;
	return p;
}

int
ct_help_plan_edits(struct ct_helpers *h, struct ct_help *hp, const struct rule_upcall *up,
	unsigned int dir, const struct mod_ct_edit *e, unsigned int n)
{
	struct ct_plan *p;
	int32_t delta = 0;

	if (n == 0)
		return 0;
	p = plan_new(h, up);
	n = RTE_MIN(n, (unsigned int)MOD_CT_SIP_EDITS_MAX);
	memcpy(p->edit, e, n * sizeof(e[0]));
	p->n_edit = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++)
		delta += (int32_t)e[i].len_new - (int32_t)e[i].len_old;
	if (fc_key_proto(&up->pkt.key) == PROTO_TCP && delta != 0)
		mod_ct_seqadj_set(&hp->adj, dir, up->pkt.tcp_seq, delta);
	count(&h->st.nat_rewrites);
	return 0;
}

void
ct_help_plan_dport(struct ct_helpers *h, const struct rule_upcall *up, uint16_t port)
{
	struct ct_plan *p = NULL;

	for (unsigned int i = 0; i < h->n_plan; i++)
		if (h->plan[i].up == up && memcmp(&h->plan[i].key, &up->pkt.key, sizeof(up->pkt.key)) == 0)
			p = &h->plan[i];
	if (p == NULL)
		p = plan_new(h, up);
	p->udp_dport = port;
}

/*
 * Plan this packet's rewrite behind NAT: payload bytes [@p off, @p off +
 * @p len_old) become @p text (@p n bytes), and the connection's sequence
 * numbers in direction @p dir shift by the difference from this segment on.
 */
static void
plan_edit(struct ct_helpers *h, struct ct_help *hp, const struct rule_upcall *up, unsigned int dir,
	uint32_t off, uint32_t len_old, const char *text, int n)
{
	struct mod_ct_edit e;

	memset(&e, 0, sizeof(e));
	e.off = (uint16_t)off;
	e.len_old = (uint16_t)len_old;
	e.len_new = (uint8_t)RTE_MIN((size_t)n, sizeof(e.text));
	memcpy(e.text, text, e.len_new);
	ct_help_plan_edits(h, hp, up, dir, &e, 1);
}

#define other_key ct_help_other_key

void
ct_help_other_key(struct ct_helpers *h, const struct rule_flow *f, struct fc_key *k)
{
	struct rule_flow_info info;
	uint32_t idx = f->idx[f->dir ^ 1];

	if (idx != FC_INDEX_NONE &&
		rule_engine_flow_get(h->eng, f->up->pkt.key.family, idx, &info) == 0) {
		*k = info.key;
		return;
	}
	fc_key_reverse(&f->up->pkt.key, k);
}

/*
 * A command that announced the sender's address: the expectation (behind
 * NAT for the address and port the peer will use) and the rewrite.
 * @return 0, or a drop reason.
 */
static unsigned int
ftp_expect(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	const struct mod_ct_ftp_cmd *cmd)
{
	const struct fc_pkt *pkt = &f->up->pkt;
	unsigned int dir = f->dir, alen = fc_af_addr_len(pkt->key.family);
	bool nat = (f->act[dir].flags & FC_ACT_F_NAT) != 0;
	struct mod_ct_exp e;
	struct fc_key ok;
	uint16_t port = cmd->port;
	char text[64];
	int rc = -EEXIST, n;

	/* The data connection comes from the peer, to the sender as the peer sees it. */
	other_key(h, f, &ok);
	memset(&e, 0, sizeof(e));
	e.tuple.family = pkt->key.family;
	memcpy(fc_key_src_w(&e.tuple), fc_key_src(&ok), alen);
	memcpy(fc_key_dst_w(&e.tuple), fc_key_dst(&ok), alen);
	fc_key_set_proto(&e.tuple, PROTO_TCP);
	e.helper = MOD_CT_HELPER_FTP;
	e.master = id;
	e.expires = h->now + CT_FTP_EXP_TIMEOUT_MS;
	nat = nat && (memcmp(fc_key_dst(&ok), cmd->addr, alen) != 0);
	if (nat) {
		memcpy(e.nat_addr, cmd->addr, alen);
		e.nat_port = cmd->port;
		e.nat = true;
	}
	/* The announced port, else the next one no other master expects (nf_nat_ftp). */
	for (unsigned int tries = 0; tries < (nat ? 128u : 1u) && port != 0; tries++, port++) {
		fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16(port));
		rc = ct_help_exp_add(h, h->exp, &e);
		if (rc != -EEXIST)
			break;
	}
	if (rc < 0)
		return RULE_DROP_CT_HELPER; /* Linux: "cannot add expectation" */
	count(&h->st.commands);
	if (!nat)
		return 0;
	n = mod_ct_ftp_format(cmd->kind, pkt->key.family, fc_key_dst(&ok), port,
		text, sizeof(text));
	if (n < 0) {
		count(&h->st.nat_failed);
		return RULE_DROP_NAT_ERROR;
	}
	plan_edit(h, hp, f->up, dir, cmd->off, cmd->len, text, n);
	return 0;
}

/*
 * IRC (nf_conntrack_irc, nf_nat_irc): a DCC offer of the client's own
 * address (as it sent it, or as NAT made it) expects a connection from
 * any address to the client as the outside sees it; behind NAT the offer
 * is rewritten to that address and a free port. @return 0 or a drop reason.
 */
static unsigned int
irc_expect(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	const struct mod_ct_irc_dcc *d)
{
	const struct fc_pkt *pkt = &f->up->pkt;
	bool nat = (f->act[f->dir].flags & FC_ACT_F_NAT) != 0;
	uint32_t own, seen, out_addr;
	struct mod_ct_exp e;
	struct fc_key rk;
	uint16_t port = d->port;
	char text[24];
	int rc = -EEXIST, n;

	other_key(h, f, &rk); /* the reply entry: rk's destination is the client as seen */
	memcpy(&own, fc_key_src(&pkt->key), 4);
	memcpy(&seen, fc_key_dst(&rk), 4);
	if (d->addr != rte_be_to_cpu_32(own) && d->addr != rte_be_to_cpu_32(seen)) {
		count(&h->st.foreign); /* Linux: "forged DCC command" */
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.tuple.family = FC_AF_INET4;
	memcpy(fc_key_dst_w(&e.tuple), &seen, 4); /* from any address */
	fc_key_set_proto(&e.tuple, PROTO_TCP);
	e.helper = MOD_CT_HELPER_IRC;
	e.master = id;
	e.expires = h->now + CT_IRC_EXP_TIMEOUT_MS;
	if (nat) {
		/* follow_master: to the client's own address and offered port,
		 * from the address the client sends to (its server). */
		e.nat = true;
		memcpy(e.nat_addr, &own, 4);
		e.nat_port = d->port;
		e.snat = true;
		memcpy(e.snat_addr, fc_key_dst(&pkt->key), 4);
	}
	for (unsigned int tries = 0; tries < (nat ? 128u : 1u) && port != 0; tries++, port++) {
		fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16(port));
		rc = ct_help_exp_add(h, h->exp_irc, &e);
		if (rc != -EEXIST)
			break;
	}
	if (rc < 0)
		return RULE_DROP_CT_HELPER;
	count(&h->st.commands);
	if (!nat)
		return 0;
	out_addr = rte_be_to_cpu_32(seen);
	n = mod_ct_irc_format(out_addr, port, text, sizeof(text));
	if (n < 0) {
		count(&h->st.nat_failed);
		return RULE_DROP_NAT_ERROR;
	}
	plan_edit(h, hp, f->up, f->dir, d->off, d->len, text, n);
	return 0;
}

/*
 * SANE (nf_conntrack_sane): the port a SANE_NET_START reply announces
 * expects the client's data connection: from the client to the server as
 * the connection's original direction names them, TCP, that port, 300 s,
 * one per connection. No rewrite (Linux has no nf_nat_sane: the data
 * connection goes through the nat table as any flow). @return 0 or a drop
 * reason.
 */
static unsigned int
sane_expect(struct ct_helpers *h, struct rule_flow *f, uint32_t id, uint16_t port)
{
	const struct fc_pkt *pkt = &f->up->pkt;
	unsigned int alen = fc_af_addr_len(pkt->key.family);
	struct mod_ct_exp e;
	struct fc_key ok;

	/* The original direction's key: the other entry's, this being a reply. */
	other_key(h, f, &ok);
	memset(&e, 0, sizeof(e));
	e.tuple.family = pkt->key.family;
	memcpy(fc_key_src_w(&e.tuple), fc_key_src(&ok), alen);
	memcpy(fc_key_dst_w(&e.tuple), fc_key_dst(&ok), alen);
	fc_key_set_proto(&e.tuple, PROTO_TCP);
	fc_key_set_ports(&e.tuple, 0, rte_cpu_to_be_16(port));
	e.helper = MOD_CT_HELPER_SANE;
	e.master = id;
	e.expires = h->now + CT_SANE_EXP_TIMEOUT_MS;
	if (ct_help_exp_add(h, h->exp, &e) < 0)
		return RULE_DROP_CT_HELPER; /* Linux: "cannot add expectation" */
	count(&h->st.commands);
	return 0;
}

void
ct_help_packet(struct ct_helpers *h, struct rule_flow *f, const struct mod_ct_conn *c,
	uint32_t id)
{
	const struct rule_upcall *up = f->up;
	const struct fc_pkt *pkt = &up->pkt;
	unsigned int dir = f->dir, drop = 0;
	struct ct_help *hp;
	struct mod_ct_ftp_cmd cmd;
	enum mod_ct_ftp_result r;
	uint32_t pay;

	if (c->proto != PROTO_TCP || (hp = help_of(h, id)) == NULL)
		return;
	/* Linux's helper sees what the filter accepted, once traffic went both ways. */
	if (pkt->tcp_dlen != 0 && f->act[dir].verdict != FC_VERDICT_DROP &&
		(c->flags & MOD_CT_C_REPLIED) && up->frame != NULL) {
		pay = (uint32_t)pkt->l4_off + pkt->tcp_hlen;
		if (c->helper == MOD_CT_HELPER_SANE) {
			uint16_t port;

			if (pay + pkt->tcp_dlen <= up->frame_len) {
				count(&h->st.segments);
				port = mod_ct_sane_segment(&hp->sane_state, dir, up->frame + pay,
					pkt->tcp_dlen);
				if (port != 0)
					drop = sane_expect(h, f, id, port);
			}
		} else if (c->helper == MOD_CT_HELPER_SIP) {
			struct fc_key ok, rk;

			/* SIP over TCP: the whole messages a segment holds. */
			if (pay + pkt->tcp_dlen <= up->frame_len) {
				count(&h->st.segments);
				if (dir == RULE_DIR_ORIG) {
					ok = pkt->key;
					other_key(h, f, &rk);
				} else {
					rk = pkt->key;
					other_key(h, f, &ok);
				}
				ct_help_sip_tcp(h, f, id, hp, dir, up->frame + pay, pkt->tcp_dlen, &ok,
					&rk);
				if (f->drop != 0)
					return; /* counted */
			}
		} else if (c->helper == MOD_CT_HELPER_IRC) {
			struct mod_ct_irc_dcc d;

			/* IRC: the client's segments only, each on its own. */
			if (dir == RULE_DIR_ORIG && pay + pkt->tcp_dlen <= up->frame_len) {
				count(&h->st.segments);
				if (mod_ct_irc_parse(up->frame + pay, pkt->tcp_dlen, &d) == 1)
					drop = irc_expect(h, f, id, hp, &d);
			}
		} else if (pay + pkt->tcp_dlen <= up->frame_len) {
			count(&h->st.segments);
			r = mod_ct_ftp_segment(&hp->ftp, dir, pkt->tcp_seq, up->frame + pay,
				pkt->tcp_dlen, pkt->key.family, fc_key_src(&pkt->key), &cmd);
			if (r == MOD_CT_FTP_R_CMD)
				drop = ftp_expect(h, f, id, hp, &cmd);
			else if (r == MOD_CT_FTP_R_FOREIGN)
				count(&h->st.foreign);
			else if (r == MOD_CT_FTP_R_PARTIAL || r == MOD_CT_FTP_R_BAD)
				drop = RULE_DROP_CT_HELPER;
		}
	}
	if (drop != 0) {
		if (drop == RULE_DROP_CT_HELPER)
			count(&h->st.dropped);
		f->drop = (uint8_t)drop;
		return;
	}
	/* Behind a length-changing rewrite every packet's numbers move. */
	if (mod_ct_seqadj_active(&hp->adj)) {
		struct ct_plan *p = NULL;

		for (unsigned int i = 0; i < h->n_plan; i++)
			if (h->plan[i].up == up && h->plan[i].key.family != 0 &&
				memcmp(&h->plan[i].key, &pkt->key, sizeof(pkt->key)) == 0)
				p = &h->plan[i];
		if (p == NULL || p->oseq != pkt->tcp_seq)
			p = plan_new(h, up);
		p->seq = mod_ct_seqadj_seq(&hp->adj, dir, pkt->tcp_seq);
		p->ack = (pkt->tcp_flags & 0x10) ? mod_ct_seqadj_ack(&hp->adj, dir, pkt->tcp_ack) :
						   pkt->tcp_ack;
		p->adjust = true;
		p->dir = (uint8_t)dir;
		p->adj = hp->adj;
	}
}

static bool
addr_eq(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	return memcmp(a, b, len) == 0;
}

/*
 * TFTP (nf_conntrack_tftp, nf_nat_tftp): a read or write request expects
 * the answer, from the reply's source, any port, to its destination and
 * port; behind NAT translated to the client's own address and port.
 */
static void
tftp_packet(struct ct_helpers *h, struct rule_flow *f, uint32_t id, const uint8_t *pay,
	uint32_t plen, const struct fc_key *ok, const struct fc_key *rk)
{
	unsigned int alen = fc_af_addr_len(ok->family);
	struct mod_ct_exp e;

	if (mod_ct_tftp_parse(pay, plen) <= 0)
		return;
	memset(&e, 0, sizeof(e));
	e.tuple.family = ok->family;
	memcpy(fc_key_src_w(&e.tuple), fc_key_src(rk), alen);
	memcpy(fc_key_dst_w(&e.tuple), fc_key_dst(rk), alen);
	fc_key_set_proto(&e.tuple, PROTO_UDP);
	fc_key_set_ports(&e.tuple, 0, fc_key_dport(rk));
	e.helper = MOD_CT_HELPER_TFTP;
	e.master = id;
	e.expires = h->now + CT_TFTP_EXP_TIMEOUT_MS;
	/* nf_nat_tftp: the answer goes to the client's own address and port,
	 * from the address the client asked. */
	if (!addr_eq(fc_key_dst(rk), fc_key_src(ok), alen) ||
		fc_key_dport(rk) != fc_key_sport(ok) ||
		!addr_eq(fc_key_src(rk), fc_key_dst(ok), alen)) {
		e.nat = true;
		memcpy(e.nat_addr, fc_key_src(ok), alen);
		e.nat_port = rte_be_to_cpu_16(fc_key_sport(ok));
		if (!addr_eq(fc_key_src(rk), fc_key_dst(ok), alen)) {
			e.snat = true;
			memcpy(e.snat_addr, fc_key_dst(ok), alen);
		}
	}
	if (ct_help_exp_add(h, h->exp, &e) < 0) {
		/* Linux: "cannot add expectation": the request is dropped. */
		count(&h->st.dropped);
		f->drop = RULE_DROP_CT_HELPER;
		return;
	}
	count(&h->st.commands);
}

void
ct_help_udp(struct ct_helpers *h, struct rule_flow *f, const struct mod_ct_conn *c,
	uint32_t id, bool first)
{
	const struct rule_upcall *up = f->up;
	const struct fc_pkt *pkt = &up->pkt;
	unsigned int dir = first ? RULE_DIR_ORIG : f->dir;
	struct ct_help *hp;
	struct fc_key ok, rk;
	uint32_t pay, end;

	if ((hp = help_of(h, id)) == NULL || up->frame == NULL ||
		f->act[dir].verdict == FC_VERDICT_DROP || fc_key_proto(&pkt->key) != PROTO_UDP)
		return;
	/* The UDP payload: after the 8-byte header, to the datagram's end. */
	pay = (uint32_t)pkt->l4_off + 8;
	end = (uint32_t)pkt->l3_off + pkt->ip_len;
	if (pkt->l4_off == 0 || pay > end || end > up->frame_len)
		return;
	count(&h->st.segments);
	/* The connection's two tuples: the original (client -> server as the
	 * client sent it) and the reply (server -> client as the server sees
	 * it, after NAT). */
	if (first) {
		ok = f->key;
		rk = f->reply_key;
	} else if (dir == RULE_DIR_ORIG) {
		ok = pkt->key;
		other_key(h, f, &rk);
	} else {
		rk = pkt->key;
		other_key(h, f, &ok);
	}
	if (c->helper == MOD_CT_HELPER_TFTP)
		tftp_packet(h, f, id, up->frame + pay, end - pay, &ok, &rk);
	else if (c->helper == MOD_CT_HELPER_SIP)
		ct_help_sip(h, f, id, hp, dir, up->frame + pay, end - pay, &ok, &rk);
}

void
ct_help_gone(struct ct_helpers *h, uint32_t id)
{
	struct ct_help **c = h->help[id >> MOD_CT_FAST_CHUNK_SHIFT];

	if (c == NULL || c[id & CHUNK_MASK] == NULL)
		return;
	free(c[id & CHUNK_MASK]);
	c[id & CHUNK_MASK] = NULL;
	mod_ct_expect_remove_master(h->exp, id);
	mod_ct_expect_remove_master(h->exp_sip, id);
	mod_ct_expect_remove_master(h->exp_sig, id);
	mod_ct_expect_remove_master(h->exp_irc, id);
}

unsigned int
ct_help_step(struct ct_helpers *h, uint32_t now, unsigned int budget)
{
	h->now = now;
	return mod_ct_expect_expire(h->exp, now, budget) +
	       mod_ct_expect_expire(h->exp_sip, now, budget) +
	       mod_ct_expect_expire(h->exp_sig, now, budget) +
	       mod_ct_expect_expire(h->exp_irc, now, budget);
}

/* ------------------------------------------------------------------------ */
/* The rewrite, on the packet                                                */
/* ------------------------------------------------------------------------ */

int
ct_help_mangle(struct ct_helpers *h, struct rte_mbuf *m, const struct fc_pkt *pkt)
{
	struct ct_plan *p = NULL, c;
	uint32_t need, have, seq, ack, pay, dlen = 0;
	int32_t delta = 0;
	bool tcp = fc_key_proto(&pkt->key) == PROTO_TCP;
	unsigned int i;
	int n, nt = 0;

	for (i = 0; i < h->n_plan; i++)
		if (&h->plan[i].up->pkt == pkt && h->plan[i].oseq == pkt->tcp_seq &&
			h->plan[i].oack == pkt->tcp_ack && h->plan[i].odlen == pkt->tcp_dlen &&
			memcmp(&h->plan[i].key, &pkt->key, sizeof(pkt->key)) == 0) {
			p = &h->plan[i];
			break;
		}
	if (p == NULL)
		return 0;
	/* Consumed: the plan goes whatever happens. */
	c = *p;
	memmove(&h->plan[i], &h->plan[i + 1], (h->n_plan - i - 1) * sizeof(h->plan[0]));
	h->n_plan--;
	seq = c.adjust ? c.seq : pkt->tcp_seq;
	ack = c.adjust ? c.ack : pkt->tcp_ack;
	if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0)
		goto fail;
	/* The new payload, whole, from the edits (a UDP datagram's always). */
	if (c.n_edit != 0 || !tcp) {
		pay = (uint32_t)pkt->l4_off + (tcp ? pkt->tcp_hlen : 8u);
		dlen = tcp ? pkt->tcp_dlen : (uint32_t)pkt->l3_off + pkt->ip_len - pay;
		if ((uint32_t)pkt->l3_off + pkt->ip_len > rte_pktmbuf_data_len(m) ||
			pay + dlen > rte_pktmbuf_data_len(m))
			goto fail;
		nt = mod_ct_edit_apply(rte_pktmbuf_mtod_offset(m, uint8_t *, pay), dlen, c.edit,
			c.n_edit, h->scratch, CT_SCRATCH);
		if (nt < 0)
			goto fail;
		delta = nt - (int32_t)dlen;
	}
	need = (uint32_t)pkt->l3_off + pkt->ip_len + (uint32_t)RTE_MAX(delta, 0);
	have = rte_pktmbuf_data_len(m);
	if (need > have && rte_pktmbuf_append(m, (uint16_t)(need - have)) == NULL)
		goto fail;
	if (tcp)
		n = mod_ct_tcp_rewrite(rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off),
			rte_pktmbuf_data_len(m) - pkt->l3_off, pkt, seq, ack, 0,
			c.n_edit != 0 ? dlen : 0, (const char *)h->scratch, (uint32_t)nt);
	else if (c.udp_dport != 0 && pkt->l4_off + 8u > rte_pktmbuf_data_len(m))
		n = -EINVAL;
	else {
		/* The checksum is computed again over the new header too. */
		if (c.udp_dport != 0) {
			uint8_t *udp = rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l4_off);

			udp[2] = (uint8_t)(c.udp_dport >> 8);
			udp[3] = (uint8_t)c.udp_dport;
		}
		n = mod_ct_udp_rewrite(rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off),
			rte_pktmbuf_data_len(m) - pkt->l3_off, pkt, 0, dlen, h->scratch,
			(uint32_t)nt);
	}
	if (n < 0)
		goto fail;
	if (tcp && c.adjust && (pkt->tcp_flags & 0x10))
		(void)mod_ct_tcp_sack_adjust(rte_pktmbuf_mtod_offset(m, uint8_t *, pkt->l3_off), pkt,
			&c.adj, c.dir);
	have = rte_pktmbuf_data_len(m);
	if (have > pkt->l3_off + (uint32_t)n)
		rte_pktmbuf_trim(m, (uint16_t)(have - pkt->l3_off - (uint32_t)n));
	return 0;
fail:
	count(&h->st.nat_failed);
	return -ENOSPC;
}
