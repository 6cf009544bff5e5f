/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack private: the helpers' part of the conntrack module
 * (ct_helper.c), as ct_module.c calls it. Rules lcore only.
 */
#ifndef GUFC_CT_HELP_PRIV_H
#define GUFC_CT_HELP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "conntrack.h"
#include "engine.h"

/* Linux's FTP and TFTP expectation policies: one per master, 300 s. */
#define CT_FTP_MAX_EXPECTED 1
#define CT_FTP_EXP_TIMEOUT_MS 300000u
#define CT_TFTP_EXP_TIMEOUT_MS 300000u
/* Linux's SIP policy: media expectations 180 s (4 per class per master:
 * here 12 per master in a table of their own); the signalling connection
 * lives 3600 s after its last packet (sip_timeout). */
#define CT_SIP_MAX_EXPECTED 12
#define CT_SIP_EXP_TIMEOUT_MS 180000u
#define CT_SIP_TIMEOUT_MS 3600000u
/* Linux's SIP signalling class: one per master. */
#define CT_SIP_SIG_MAX_EXPECTED 1
/* Linux's IRC policy: max_dcc_channels 8, dcc_timeout 300 s. */
#define CT_IRC_MAX_EXPECTED 8
#define CT_IRC_EXP_TIMEOUT_MS 300000u
/* Linux's SANE policy: one per master, 300 s. */
#define CT_SANE_EXP_TIMEOUT_MS 300000u
/* Expectations held at once. */
#define CT_EXP_MAX 4096u
/* Upcalls of one burst whose packets the helper rewrites. */
#define CT_PLANS 64

/* A helped connection: the helper's memory, and the NAT shift it caused. */
struct ct_help {
	struct mod_ct_ftp ftp;
	struct mod_ct_seqadj adj;
	uint32_t sip_invite_cseq; /* SIP: the CSeq of the last INVITE that expected media */
	bool sip_invite;          /* ... valid */
	uint32_t sip_register_cseq; /* SIP: the CSeq of the last REGISTER that expected */
	bool sip_register;          /* ... valid */
	bool expected;              /* the connection took an expectation (it registers nothing) */
	uint16_t sip_forced_dport;  /* SIP: the port a request's Via named (Linux's forced_dport) */
	uint8_t sane_state;       /* SANE: MOD_CT_SANE_* */
};

/*
 * What mod_ct_module_mangle() does to one upcalled packet: found by the
 * upcall's parse (its address, then its key and numbers: an upcall array
 * slot is reused by later bursts).
 */
struct ct_plan {
	const struct rule_upcall *up;
	struct fc_key key; /* the packet's key, sequence, ack and length */
	uint32_t oseq;
	uint32_t oack;
	uint16_t odlen;
	uint32_t seq;      /* with adjust: the TCP sequence number it leaves with */
	uint32_t ack;      /* and the acknowledgment number */
	bool adjust;
	uint8_t dir;       /* with adjust: the segment's direction ... */
	struct mod_ct_seqadj adj; /* ... and the connection's shift (SACK blocks) */
	uint16_t udp_dport; /* not 0: the UDP destination port it leaves with */
	uint8_t n_edit;    /* payload edits, in order of offset */
	struct mod_ct_edit edit[MOD_CT_SIP_EDITS_MAX];
};

/* Room to build a rewritten payload in. */
#define CT_SCRATCH (65536u + MOD_CT_SIP_EDITS_MAX * 64u)

struct ct_helpers {
	struct rule_engine *eng;
	struct mod_ct_expect *exp;     /* FTP's and TFTP's expectations */
	struct mod_ct_expect *exp_sip; /* SIP's media expectations (a per-master limit of their own) */
	struct mod_ct_expect *exp_sig; /* SIP's signalling expectations (REGISTER: one per master) */
	struct mod_ct_expect *exp_irc; /* IRC's DCC expectations (from any address) */
	struct ct_help **help[MOD_CT_FAST_CHUNKS]; /* by record id, chunked */
	uint32_t now;                               /* the engine's clock, from step */
	struct ct_plan plan[CT_PLANS];
	unsigned int n_plan;
	uint8_t *scratch; /* CT_SCRATCH bytes: a payload being rewritten */
	struct mod_ct_helper_stats st; /* written by the rules lcore, read relaxed */
};

int ct_help_init(struct ct_helpers *h, struct rule_engine *eng);
void ct_help_fini(struct ct_helpers *h);

/* The raw table's helper for a new flow (-j CT --helper): 0 none. */
uint8_t ct_help_assigned(const struct rule_eval *raw);

/*
 * Does a new UDP flow need a record: the raw table gave it a helper of
 * UDP's (@p helper), or it takes an expectation?
 */
bool ct_help_wants(const struct ct_helpers *h, const struct rule_flow *f, uint8_t helper);

/*
 * A TCP connection (or a UDP one ct_help_wants()) was created (record @p id, @p c and @p v as mod_ct_new()
 * made them): take the expectation it may match (RELATED, its DNAT), give
 * it the raw table's helper @p helper. @return 0 or -ENOMEM.
 */
int ct_help_created(struct ct_helpers *h, struct rule_flow *f, uint32_t id, uint8_t helper,
	struct mod_ct_conn *c, struct mod_ct_verdict *v);

/* The interest a helped connection adds to its entries. */
void ct_help_interest(const struct ct_helpers *h, const struct mod_ct_conn *c, uint32_t id,
	uint16_t interest[2]);

/*
 * The packet conntrack sees for a helped connection: its ACK moved back to
 * the other side's own space (a rewrite shifted it). @return @p pkt or @p tmp.
 */
const struct fc_pkt *ct_help_view(const struct ct_helpers *h, const struct mod_ct_conn *c,
	uint32_t id, unsigned int dir, const struct fc_pkt *pkt, struct fc_pkt *tmp);

/*
 * A packet of a helped connection the state machine accepted: read it,
 * expect, plan its rewrite; a segment to drop gets f->drop.
 */
void ct_help_packet(struct ct_helpers *h, struct rule_flow *f, const struct mod_ct_conn *c,
	uint32_t id);

/*
 * A packet of a helped UDP connection (TFTP, SIP), once NAT decided it
 * (@p first: the flow's first packet, on insertion): a TFTP request the
 * filter accepted expects the answer, a SIP message's session description
 * its media streams; what Linux drops gets f->drop.
 */
void ct_help_udp(struct ct_helpers *h, struct rule_flow *f, const struct mod_ct_conn *c,
	uint32_t id, bool first);

/* The helper state of connection @p id, or NULL. */
struct ct_help *ct_help_of(const struct ct_helpers *h, uint32_t id);
/**
 * Add expectation @p e to table @p t of @p h, and tell the engine, so that
 * a cached drop of a tuple it covers is decided anew. @return as
 * mod_ct_expect_add().
 */
int ct_help_exp_add(struct ct_helpers *h, struct mod_ct_expect *t, const struct mod_ct_exp *e);

/* The other entry's key (the peer's view of the connection), or the packet's reversed. */
void ct_help_other_key(struct ct_helpers *h, const struct rule_flow *f, struct fc_key *k);

/*
 * Plan the rewrite of the upcalled packet of @p up: the payload edits @p e
 * (in order); on a TCP connection the sequence numbers in direction @p dir
 * shift by their total from this segment on. @return 0.
 */
int ct_help_plan_edits(struct ct_helpers *h, struct ct_help *hp, const struct rule_upcall *up,
	unsigned int dir, const struct mod_ct_edit *e, unsigned int n);

/* Plan the UDP destination port the upcalled packet of @p up leaves with. */
void ct_help_plan_dport(struct ct_helpers *h, const struct rule_upcall *up, uint16_t port);

/*
 * SIP (ct_help_sip.c): one message of a helped connection in direction
 * @p dir, payload @p pay (@p plen bytes), the connection's original and
 * reply tuples @p ok, @p rk; what Linux drops gets f->drop.
 */
void ct_help_sip(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	unsigned int dir, const uint8_t *pay, uint32_t plen, const struct fc_key *ok,
	const struct fc_key *rk);

/*
 * SIP over TCP: the whole messages a segment holds (Content-Length after
 * the headers' blank line), each as ct_help_sip() reads one; the edits of
 * all of them shift the connection's sequence numbers once.
 */
void ct_help_sip_tcp(struct ct_helpers *h, struct rule_flow *f, uint32_t id, struct ct_help *hp,
	unsigned int dir, const uint8_t *pay, uint32_t plen, const struct fc_key *ok,
	const struct fc_key *rk);

static inline void
ct_help_count(uint64_t *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

/* Apply the plan made for the packet parsed as @p pkt, if any. @return 0, -ENOSPC. */
struct rte_mbuf;
int ct_help_mangle(struct ct_helpers *h, struct rte_mbuf *m, const struct fc_pkt *pkt);

/* Connection @p id went (its record is released after a grace period). */
void ct_help_gone(struct ct_helpers *h, uint32_t id);

/* Expire expectations. */
unsigned int ct_help_step(struct ct_helpers *h, uint32_t now, unsigned int budget);

#endif /* GUFC_CT_HELP_PRIV_H */
