/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_sctp.c — SCTP associations as Linux's SCTP
 * tracker follows them: the chunks' basic checks, the first packet's
 * (out-of-the-blue chunks, an INIT's tag), the verification tag of every
 * packet with its exceptions (RFC 9260 8.5.1: INIT, ABORT and SHUTDOWN
 * COMPLETE with or without the T bit, COOKIE ECHO; HEARTBEATs learning the
 * tags of a new path), the states each chunk moves the association
 * through, the tags INIT and INIT ACK announce, ASSURED on ESTABLISHED,
 * and the state's timeout.
 *
 * Pure: conntrack.c dispatches SCTP packets here; the module keeps an
 * association in a record (ct_module.c) and the fast path checks the tag
 * and the chunks of the packets it serves (mod_ct_sctp_fast_check()).
 * Behaviour for users: doc/conntrack.md.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ct_priv.h"
#include "fc_crc32c.h"

/* Chunk types (RFC 9260 3.2) the tracker tells apart. */
#define CID_DATA 0
#define CID_INIT 1
#define CID_INIT_ACK 2
#define CID_HEARTBEAT 4
#define CID_HEARTBEAT_ACK 5
#define CID_ABORT 6
#define CID_SHUTDOWN 7
#define CID_SHUTDOWN_ACK 8
#define CID_ERROR 9
#define CID_COOKIE_ECHO 10
#define CID_COOKIE_ACK 11
#define CID_SHUTDOWN_COMPLETE 14

#define BIT(t) (1u << (t))
/* The T bit of ABORT and SHUTDOWN COMPLETE: the sender's own tag was reflected. */
#define CHUNK_FLAG_T 0x01
#define SCTP_HLEN 12
#define CHUNK_HLEN 4
#define INIT_HLEN 16 /* an INIT's or INIT ACK's fixed part: Initiate Tag first */

/* Chunks whose tag is checked by their own rule (or not at all). */
#define OWN_TAG_RULE                                                                         \
	(BIT(CID_INIT) | BIT(CID_SHUTDOWN_COMPLETE) | BIT(CID_COOKIE_ECHO) | BIT(CID_ABORT) | \
		BIT(CID_SHUTDOWN_ACK) | BIT(CID_HEARTBEAT) | BIT(CID_HEARTBEAT_ACK))

/*
 * The tracker's states, in its order: the association's state is
 * MOD_CT_S_SCTP_CLOSED + (s - S_CL); S_NO is no association yet, S_IV a
 * chunk the state does not allow.
 */
enum { S_NO, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_HS, S_IV };

/* Chunk kinds with a row in the table below. */
enum {
	K_INIT, K_INIT_ACK, K_ABORT, K_SHUTDOWN, K_SHUTDOWN_ACK, K_ERROR, K_COOKIE_ECHO,
	K_COOKIE_ACK, K_SHUTDOWN_COMPLETE, K_HEARTBEAT, K_HEARTBEAT_ACK, K__COUNT
};

/*
 * Where a chunk of a kind, sent in a direction, takes the association from
 * each state (columns S_NO .. S_HS), as Linux's tracker has it.
 */
static const uint8_t next_state[2][K__COUNT][S_IV] = {
	[MOD_CT_DIR_ORIG] = {
		/*                      NO    CL    CW    CE    ES    SS    SR    SA    HS */
		[K_INIT] =              {S_CL, S_CL, S_CW, S_CE, S_ES, S_CL, S_CL, S_SA, S_CW},
		[K_INIT_ACK] =          {S_CL, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_CL},
		[K_ABORT] =             {S_CL, S_CL, S_CL, S_CL, S_CL, S_CL, S_CL, S_CL, S_CL},
		[K_SHUTDOWN] =          {S_CL, S_CL, S_CW, S_CE, S_SS, S_SS, S_SR, S_SA, S_CL},
		[K_SHUTDOWN_ACK] =      {S_SA, S_CL, S_CW, S_CE, S_ES, S_SA, S_SA, S_SA, S_SA},
		[K_ERROR] =             {S_CL, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_CL},
		[K_COOKIE_ECHO] =       {S_CL, S_CL, S_CE, S_CE, S_ES, S_SS, S_SR, S_SA, S_CL},
		[K_COOKIE_ACK] =        {S_CL, S_CL, S_CW, S_ES, S_ES, S_SS, S_SR, S_SA, S_CL},
		[K_SHUTDOWN_COMPLETE] = {S_CL, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_CL, S_CL},
		[K_HEARTBEAT] =         {S_HS, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_HS},
		[K_HEARTBEAT_ACK] =     {S_CL, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_HS},
	},
	[MOD_CT_DIR_REPLY] = {
		/*                      NO    CL    CW    CE    ES    SS    SR    SA    HS */
		[K_INIT] =              {S_IV, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_IV},
		[K_INIT_ACK] =          {S_IV, S_CW, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_IV},
		[K_ABORT] =             {S_IV, S_CL, S_CL, S_CL, S_CL, S_CL, S_CL, S_CL, S_IV},
		[K_SHUTDOWN] =          {S_IV, S_CL, S_CW, S_CE, S_SR, S_SS, S_SR, S_SA, S_IV},
		[K_SHUTDOWN_ACK] =      {S_IV, S_CL, S_CW, S_CE, S_ES, S_SA, S_SA, S_SA, S_IV},
		[K_ERROR] =             {S_IV, S_CL, S_CW, S_CL, S_ES, S_SS, S_SR, S_SA, S_IV},
		[K_COOKIE_ECHO] =       {S_IV, S_CL, S_CE, S_CE, S_ES, S_SS, S_SR, S_SA, S_IV},
		[K_COOKIE_ACK] =        {S_IV, S_CL, S_CW, S_ES, S_ES, S_SS, S_SR, S_SA, S_IV},
		[K_SHUTDOWN_COMPLETE] = {S_IV, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_CL, S_IV},
		[K_HEARTBEAT] =         {S_IV, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_HS},
		[K_HEARTBEAT_ACK] =     {S_IV, S_CL, S_CW, S_CE, S_ES, S_SS, S_SR, S_SA, S_ES},
	},
};

/* The row of chunk @p type, or -1: a chunk that moves no state (DATA, SACK, ...). */
static int
chunk_kind(uint8_t type)
{
	switch (type) {
	case CID_INIT: return K_INIT;
	case CID_INIT_ACK: return K_INIT_ACK;
	case CID_ABORT: return K_ABORT;
	case CID_SHUTDOWN: return K_SHUTDOWN;
	case CID_SHUTDOWN_ACK: return K_SHUTDOWN_ACK;
	case CID_ERROR: return K_ERROR;
	case CID_COOKIE_ECHO: return K_COOKIE_ECHO;
	case CID_COOKIE_ACK: return K_COOKIE_ACK;
	case CID_SHUTDOWN_COMPLETE: return K_SHUTDOWN_COMPLETE;
	case CID_HEARTBEAT: return K_HEARTBEAT;
	case CID_HEARTBEAT_ACK: return K_HEARTBEAT_ACK;
	default: return -1;
	}
}

static unsigned int
next(unsigned int dir, unsigned int s, uint8_t type)
{
	int k = chunk_kind(type);

	return k < 0 ? s : next_state[dir][k][s];
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The tracker's state of connection @p c (S_NO for none). */
static unsigned int
st_of(const struct mod_ct_conn *c)
{
	return ct_is_sctp_state(c->state) ? c->state - MOD_CT_S_SCTP_CLOSED + S_CL : S_NO;
}

static uint8_t
state_of(unsigned int s)
{
	return s == S_NO ? MOD_CT_S_NONE : (uint8_t)(MOD_CT_S_SCTP_CLOSED + s - S_CL);
}

/* An SCTP packet as the tracker reads it: its header at p, len bytes on. */
struct sctp_view {
	const uint8_t *p;
	uint32_t len;
	uint32_t vtag;
	uint32_t map; /* the types (below 32) of its chunks */
	bool whole;   /* the whole packet is at p: its CRC32c can be checked */
};

/*
 * The chunks' basic checks (Linux's do_basic_checks()): at least one; none
 * of length 0; COOKIE ECHO and COOKIE ACK only first; INIT, INIT ACK and
 * SHUTDOWN COMPLETE only alone. A chunk header cut by the end ends the
 * walk, as Linux's.
 */
static bool
chunks_ok(struct sctp_view *w)
{
	uint32_t off, clen, n = 0;
	bool alone = false;
	uint8_t type;

	w->map = 0;
	for (off = SCTP_HLEN; off + CHUNK_HLEN <= w->len; off += (clen + 3) & ~3u, n++) {
		type = w->p[off];
		clen = (uint32_t)w->p[off + 2] << 8 | w->p[off + 3];
		if (type == CID_INIT || type == CID_INIT_ACK || type == CID_SHUTDOWN_COMPLETE)
			alone = true;
		if (clen == 0 ||
			(n != 0 && (alone || type == CID_COOKIE_ECHO || type == CID_COOKIE_ACK)))
			return false;
		if (type < 32)
			w->map |= BIT(type);
	}
	return n != 0;
}

/* The Initiate Tag of the INIT or INIT ACK chunk at @p off; false if cut. */
static bool
init_tag(const struct sctp_view *w, uint32_t off, uint32_t *tag)
{
	if (off + CHUNK_HLEN + INIT_HLEN > w->len)
		return false;
	*tag = rd32(w->p + off + CHUNK_HLEN);
	return true;
}

/*
 * The first packet (Linux's sctp_new()): each chunk must move the NONE
 * state; the tags it tells are noted (an INIT's, with tag 0 itself, for
 * the replies; a HEARTBEAT's for its own direction; any other's for the
 * replies, which answer an out-of-the-blue packet with it).
 */
static bool
first_ok(struct mod_ct_conn *c, const struct sctp_view *w)
{
	uint32_t off, clen, tag;
	unsigned int s;
	uint8_t type;

	memset(&c->sctp, 0, sizeof(c->sctp));
	for (off = SCTP_HLEN; off + CHUNK_HLEN <= w->len; off += (clen + 3) & ~3u) {
		type = w->p[off];
		clen = (uint32_t)w->p[off + 2] << 8 | w->p[off + 3];
		s = next(MOD_CT_DIR_ORIG, S_NO, type);
		if (s == S_NO || s == S_IV)
			return false;
		if (type == CID_INIT) {
			if (w->vtag != 0 || !init_tag(w, off, &tag))
				return false;
			c->sctp.vtag[MOD_CT_DIR_REPLY] = tag;
		} else if (type == CID_HEARTBEAT) {
			c->sctp.vtag[MOD_CT_DIR_ORIG] = w->vtag;
		} else {
			c->sctp.vtag[MOD_CT_DIR_REPLY] = w->vtag;
		}
	}
	return true;
}

/*
 * A HEARTBEAT (@p ack false) or HEARTBEAT ACK from @p dir: the tag it
 * carries is learnt if none is known; another tag is a new path's
 * (multihoming): a HEARTBEAT with it passes, ignored, and the ACK from
 * the other side that follows takes the new tag. @return 1 take the chunk,
 * 0 skip it (ignored), -1 invalid.
 */
static int
heartbeat(struct mod_ct_conn *c, unsigned int dir, const struct sctp_view *w, bool ack,
	bool *ignore)
{
	struct mod_ct_sctp *t = &c->sctp;
	uint8_t hb_dir = dir == MOD_CT_DIR_REPLY ? MOD_CT_SC_HB_REPLY : 0;

	if (t->vtag[dir] == 0) {
		t->vtag[dir] = w->vtag;
		return 1;
	}
	if (w->vtag == t->vtag[dir]) {
		t->flags &= (uint8_t)~MOD_CT_SC_HB_FAILED;
		return 1;
	}
	if ((w->map & BIT(CID_DATA)) || *ignore)
		return -1;
	if (!ack) {
		t->flags = (uint8_t)((t->flags & ~MOD_CT_SC_HB_REPLY) | MOD_CT_SC_HB_FAILED | hb_dir);
		*ignore = true;
		return 0;
	}
	if (!(t->flags & MOD_CT_SC_HB_FAILED) || (t->flags & MOD_CT_SC_HB_REPLY) == hb_dir)
		return -1;
	t->flags &= (uint8_t)~MOD_CT_SC_HB_FAILED;
	t->vtag[dir] = w->vtag;
	t->vtag[dir ^ 1] = 0;
	return 1;
}

/*
 * One packet through the tracker (Linux's nf_conntrack_sctp_packet()):
 * @p first for the packet that creates the connection. Moves @p c in
 * place chunk by chunk, as Linux does (an invalid chunk after a valid one
 * leaves the valid one's move). @return MOD_CT_WHY_NONE (valid; *ignore:
 * accepted without renewing the timeout) or why it is invalid.
 */
static unsigned int
track(struct mod_ct_conn *c, unsigned int dir, bool first, struct sctp_view *w, bool *ignore)
{
	struct mod_ct_sctp *t = &c->sctp;
	uint32_t off, clen, tag, known;
	unsigned int s, old;
	uint8_t type, fl;
	int hb;

	*ignore = false;
	if (!chunks_ok(w))
		return MOD_CT_WHY_SCTP;
	if (first) {
		/* Out of the blue (RFC 9260 8.4): nothing to start. */
		if (w->map & (BIT(CID_ABORT) | BIT(CID_SHUTDOWN_COMPLETE) | BIT(CID_COOKIE_ACK)))
			return MOD_CT_WHY_SCTP;
		if (!first_ok(c, w))
			return MOD_CT_WHY_SCTP;
		c->state = MOD_CT_S_NONE;
	}
	if (!(w->map & OWN_TAG_RULE) && w->vtag != t->vtag[dir])
		return MOD_CT_WHY_SCTP_VTAG;

	for (off = SCTP_HLEN; off + CHUNK_HLEN <= w->len; off += (clen + 3) & ~3u) {
		type = w->p[off];
		fl = w->p[off + 1];
		clen = (uint32_t)w->p[off + 2] << 8 | w->p[off + 3];
		switch (type) {
		case CID_INIT:
			if (w->vtag != 0)
				return MOD_CT_WHY_SCTP_VTAG;
			break;
		case CID_ABORT:
		case CID_SHUTDOWN_COMPLETE:
			if (w->vtag != t->vtag[(fl & CHUNK_FLAG_T) ? dir ^ 1 : dir])
				return MOD_CT_WHY_SCTP_VTAG;
			break;
		case CID_COOKIE_ECHO:
			if (w->vtag != t->vtag[dir])
				return MOD_CT_WHY_SCTP_VTAG;
			break;
		case CID_COOKIE_ACK:
			t->flags &= (uint8_t)~(MOD_CT_SC_INIT | MOD_CT_SC_INIT << 1);
			break;
		case CID_HEARTBEAT:
		case CID_HEARTBEAT_ACK:
			hb = heartbeat(c, dir, w, type == CID_HEARTBEAT_ACK, ignore);
			if (hb < 0)
				return MOD_CT_WHY_SCTP_VTAG;
			if (hb == 0)
				continue;
			break;
		default:
			break;
		}
		old = st_of(c);
		s = next(dir, old, type);
		if (s == S_IV)
			return MOD_CT_WHY_SCTP;
		if (type == CID_INIT) {
			if (!init_tag(w, off, &tag))
				return MOD_CT_WHY_SCTP;
			if ((t->flags & (MOD_CT_SC_INIT << dir)) &&
				(t->flags & (MOD_CT_SC_INIT << (dir ^ 1))))
				t->flags &= (uint8_t)~(MOD_CT_SC_INIT << (dir ^ 1));
			t->flags |= (uint8_t)(MOD_CT_SC_INIT << dir);
			t->vtag[dir ^ 1] = tag;
			/* A retransmitted INIT renews nothing (a reused port or a NAT
			 * in front cannot keep the connection alive for ever). */
			if (s == S_CL && old == S_CL && !first)
				*ignore = true;
		} else if (type == CID_INIT_ACK) {
			if (!init_tag(w, off, &tag))
				return MOD_CT_WHY_SCTP;
			known = t->vtag[dir ^ 1];
			if (!(t->flags & (MOD_CT_SC_INIT << (dir ^ 1))) && known != 0 && known != tag)
				return MOD_CT_WHY_SCTP_VTAG;
			/* INITs both ways (a collision): the tag must be the one known. */
			if ((t->flags & (MOD_CT_SC_INIT << dir)) &&
				(t->flags & (MOD_CT_SC_INIT << (dir ^ 1))) && known != tag)
				return MOD_CT_WHY_SCTP_VTAG;
			t->vtag[dir ^ 1] = tag;
		}
		c->state = state_of(s);
		if (s != old && s == S_ES)
			c->flags |= MOD_CT_C_ASSURED;
	}
	return MOD_CT_WHY_NONE;
}

/* The packet's SCTP header and chunks within the frame; false if none. */
static bool
view(const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len, struct sctp_view *w)
{
	uint32_t l4 = pkt->l4_off, end = (uint32_t)pkt->l3_off + pkt->ip_len;

	if (frame == NULL || l4 == 0 || pkt->frag == FC_FRAG_LATER || l4 + SCTP_HLEN > frame_len ||
		l4 + SCTP_HLEN > end)
		return false;
	/* A first fragment (or a frame cut short) holds part of the packet. */
	w->whole = end <= frame_len && pkt->frag == FC_FRAG_NONE;
	if (end > frame_len)
		end = frame_len;
	w->p = frame + l4;
	w->len = end - l4;
	w->vtag = rd32(w->p + 4);
	return true;
}

/*
 * Linux's sctp_error() with nf_conntrack_checksum=1 (its default) at
 * PREROUTING, where every packet gufc tracks comes in: a packet whose
 * CRC32c is wrong is INVALID before any other check, first packets and
 * later ones alike. gufc reads no checksum offload flags, so it verifies
 * every packet, as Linux does one received without a verified checksum
 * (CHECKSUM_NONE). A packet it holds only part of (a first fragment)
 * cannot be checked; Linux checks the reassembled packet.
 */
static bool
crc_bad(const struct sctp_view *w)
{
	return w->whole && !fc_sctp_crc_ok(w->p, w->len);
}

void
ct_sctp_new(const struct mod_ct_cfg *cfg, const struct fc_pkt *pkt, const uint8_t *frame,
	uint32_t frame_len, struct mod_ct_conn *c, struct mod_ct_verdict *v)
{
	struct sctp_view w;
	unsigned int why;
	bool ignore;

	(void)cfg;
	memset(c, 0, sizeof(*c));
	if (!view(pkt, frame, frame_len, &w)) {
		/* Nothing to read (no frame): an association in CLOSED, tags unknown. */
		c->state = MOD_CT_S_SCTP_CLOSED;
	} else {
		why = crc_bad(&w) ? MOD_CT_WHY_SCTP_CRC : track(c, MOD_CT_DIR_ORIG, true, &w, &ignore);
		if (why != MOD_CT_WHY_NONE) {
			memset(c, 0, sizeof(*c));
			v->ctstate = RULE_CT_INVALID;
			v->why = (uint8_t)why;
			return;
		}
	}
	c->proto = PROTO_SCTP;
	v->ctstate = RULE_CT_NEW;
	v->flags = MOD_CT_VF_CREATED | MOD_CT_VF_CHANGED;
}

void
ct_sctp_packet(const struct mod_ct_cfg *cfg, struct mod_ct_conn *c, unsigned int dir,
	const struct fc_pkt *pkt, const uint8_t *frame, uint32_t frame_len,
	struct mod_ct_verdict *v)
{
	struct sctp_view w;
	unsigned int why;
	bool ignore = false;

	(void)cfg;
	if (view(pkt, frame, frame_len, &w)) {
		why = crc_bad(&w) ? MOD_CT_WHY_SCTP_CRC : track(c, dir, false, &w, &ignore);
		if (why != MOD_CT_WHY_NONE) {
			v->ctstate = RULE_CT_INVALID;
			v->why = (uint8_t)why;
			return;
		}
	}
	v->ctstate = ct_pkt_ctstate(c, dir);
	if (dir == MOD_CT_DIR_REPLY)
		c->flags |= MOD_CT_C_REPLIED;
	if (ignore)
		v->flags |= MOD_CT_VF_IGNORED;
}

uint32_t
ct_sctp_timeout(const struct mod_ct_cfg *cfg, const struct mod_ct_conn *c)
{
	static const uint8_t to[] = {
		[S_CL - S_CL] = MOD_CT_TO_SCTP_CLOSED,
		[S_CW - S_CL] = MOD_CT_TO_SCTP_COOKIE_WAIT,
		[S_CE - S_CL] = MOD_CT_TO_SCTP_COOKIE_ECHOED,
		[S_ES - S_CL] = MOD_CT_TO_SCTP_ESTABLISHED,
		[S_SS - S_CL] = MOD_CT_TO_SCTP_SHUTDOWN_SENT,
		[S_SR - S_CL] = MOD_CT_TO_SCTP_SHUTDOWN_RECD,
		[S_SA - S_CL] = MOD_CT_TO_SCTP_SHUTDOWN_ACK_SENT,
		[S_HS - S_CL] = MOD_CT_TO_SCTP_HEARTBEAT_SENT,
	};

	/* NONE: Linux's "new" timeout, CLOSED's. */
	if (!ct_is_sctp_state(c->state))
		return cfg->timeout[MOD_CT_TO_SCTP_CLOSED];
	return cfg->timeout[to[c->state - MOD_CT_S_SCTP_CLOSED]];
}
