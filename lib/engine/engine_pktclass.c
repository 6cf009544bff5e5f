/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: entries cached for a packet class.
 *
 * A flow whose walk read per-packet header fields and nothing else per
 * packet (--tcp-flags, --syn, -m ttl/hl, -m tos/dscp, -m ecn --ecn-ip-ect,
 * -m length, -m tcpmss before the ESTABLISHED accept: NULL and XMAS scan
 * drops, small-packet drops, TTL and DSCP policies; with string, u32 or
 * bpf matches too: the class with the predicate, over the fields every
 * outcome's walk read) is not decided packet by packet. At each commit the set's tests give a class table per field
 * (rule_set_tcpflag_classes(), rule_set_field_classes(): a 256-entry table
 * for the flag byte, the TTL and the TOS byte, interval bounds for the IP
 * length and the MSS option, none / a value / a later fragment). The
 * classes of the 8-bit fields separate every two received values that a
 * test answers differently after any sequence of the set's rewrites
 * (-j TTL, HL, DSCP, TOS), so the class of the packet as received decides
 * the walk. An entry caches the verdict of its walk together with the
 * joint class of the values that walk saw over the fields it read
 * (fc_action::pkt_class: the id in the low byte, the table's serial in the
 * high one; ENG_M0_CLASSED; where pkt_class names the entry's packet
 * program, FC_ACT_F_PKTACT: a rewrite, a LOG, a meter, the class is in a program of
 * its own, the same lists with struct rule_pktprog::cls, read through
 * rule_engine_class_of()): each subset of the fields has its own range
 * of ids (struct rule_flagclass::base, mask_of), allocated by size, fewest
 * fields first, while they fit in the 4,096 ids (RULE_PC_IDS); a walk whose fields have
 * no range (too many classes together) is decided per packet, as are the
 * fields a table cannot hold (more than RULE_FC_BOUNDS bounds, more
 * compositions of rewrites than kept). The fast path looks the packet's
 * class up and compares (rule_engine_class_ok()): equal, the cached
 * verdict holds; otherwise the packet goes up and is decided on its own,
 * the entry kept (a RST in an ACK flow, a TTL-1 probe, a CE mark go up
 * alone).
 *
 * Which values a walk sees: a real packet's; on an entry's key alone
 * (refiltering after a commit or a ctstate change, a reply entry made with
 * the connection's first packet), a stand-in: values of the entry's class
 * while that class is current, else ACK for the flags (the flags of
 * almost every segment of a connection) and 0 for the other fields. A
 * class taken from a flow's first segment (a SYN, a SYN/ACK) that is not
 * an ordinary segment's (ACK without SYN, FIN or RST, no MSS option, any
 * length), or from a stand-in's made-up values, is a guess
 * (ENG_M0_CLASS_GUESS): the entry's first ordinary packet of another
 * class takes the entry over (it is refiltered with that packet's fields)
 * instead of going up alone each time; an odd segment (a FIN, a RST)
 * never takes an entry over.
 *
 * Tables: one current (view.flagclass), replaced only when a commit's
 * tests give another table, the old one freed after a grace period. An
 * entry of an older table fails the serial (and generation) check on the
 * fast path and is refiltered on the slow path or by revalidation.
 */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

#define ENG_TCP_ACK 0x10
/* SYN, FIN, RST, ACK: an ordinary segment has ACK alone of these. */
#define ENG_TCP_ODD_MASK 0x17

/* The fields of the per-packet dependencies a class stands for. */
static unsigned int
mask_of_deps(uint32_t pd)
{
	return ((pd & RULE_DEP_TCPFLAGS) ? 1u << RULE_PC_FLAGS : 0) |
	       ((pd & RULE_DEP_TTL) ? 1u << RULE_PC_TTL : 0) |
	       ((pd & RULE_DEP_TOS) ? 1u << RULE_PC_TOS : 0) |
	       ((pd & RULE_DEP_LENGTH) ? 1u << RULE_PC_LEN : 0) |
	       ((pd & RULE_DEP_MSS) ? 1u << RULE_PC_MSS : 0);
}

bool
rule_engine_pkt_fields(const struct fc_pkt *p, const uint8_t *frame, uint32_t len, bool whole,
	bool want_mss, struct rule_pktfields *pf)
{
	const uint8_t *ip = frame + p->l3_off, *t;
	uint32_t n, hlen;

	pf->flags = p->tcp_flags;
	pf->len = p->ip_len;
	pf->mss_st = 1;
	pf->mss = 0;
	/* As rule_pkt_parse() reads them. */
	if (p->key.family == FC_AF_INET4 && (uint64_t)p->l3_off + 20 <= len) {
		pf->tos = ip[1];
		pf->ttl = ip[8];
	} else if (p->key.family == FC_AF_INET6 && (uint64_t)p->l3_off + 40 <= len) {
		pf->tos = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		pf->ttl = ip[7];
	} else {
		return false;
	}
	if (!want_mss)
		return true;
	if (p->frag == FC_FRAG_LATER) {
		pf->mss_st = 0;
		return true;
	}
	if (fc_key_proto(&p->key) != IPPROTO_TCP || p->l4_off == 0 || p->l4_off < p->l3_off)
		return true;
	if (p->l4_off >= len || len - p->l4_off < 20)
		return whole;
	t = frame + p->l4_off;
	n = len - p->l4_off;
	hlen = (uint32_t)(t[12] >> 4) * 4;
	if (hlen > n) {
		if (!whole)
			return false;
		hlen = n;
	}
	/* The options as the walk's parse reads them (the last MSS option wins). */
	for (uint32_t i = 20; i < hlen;) {
		if (t[i] == 0)
			break;
		if (t[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen || t[i + 1] < 2 || i + t[i + 1] > hlen)
			break;
		if (t[i] == 2 && t[i + 1] == 4) {
			pf->mss = (uint16_t)(t[i + 2] << 8 | t[i + 3]);
			pf->mss_st = 2;
		}
		i += t[i + 1];
	}
	return true;
}

bool
rule_engine_class_ok_slow(const struct rule_flagclass *fc, unsigned int m, unsigned int id,
	const struct fc_pkt *p, const uint8_t *frame, uint32_t len, bool whole)
{
	struct rule_pktfields pf;

	if (!rule_engine_pkt_fields(p, frame, len, whole, (m >> RULE_PC_MSS) & 1, &pf))
		return false;
	return rule_pktclass_id(fc, m, &pf) == (int)id;
}

void
eng_pktclass_of_up(const struct rule_upcall *up, struct rule_pktfields *pf)
{
	memset(pf, 0, sizeof(*pf));
	pf->flags = up->pkt.tcp_flags;
	pf->len = up->pkt.ip_len;
	pf->mss_st = 1;
	if (up->frame == NULL ||
		!rule_engine_pkt_fields(&up->pkt, up->frame, up->frame_len, true, true, pf)) {
		/* No header to read: values no class of those fields is taken from. */
		pf->mss_st = 0xff;
	}
}

/* Are @p pf's values of the fields of @p m real (not a missing header's)? */
static bool
fields_known(const struct rule_pktfields *pf, unsigned int m)
{
	return pf->mss_st != 0xff || !(m & ~(1u << RULE_PC_FLAGS));
}

bool
eng_pktclass_ordinary(uint8_t flags)
{
	return (flags & ENG_TCP_ODD_MASK) == ENG_TCP_ACK;
}

static const struct rule_flagclass *
cur(const struct rule_engine *eng)
{
	return eng->view.flagclass;
}

/* Ids for each subset of fields, fewest fields first, while they fit. */
static void
alloc_ids(struct rule_flagclass *fc)
{
	unsigned int next = 0;

	for (unsigned int m = 0; m < RULE_PC_MASKS; m++)
		fc->base[m] = RULE_PC_NO_BASE;
	memset(fc->mask_of, 0, sizeof(fc->mask_of));
	for (unsigned int bits = 1; bits <= RULE_PC__COUNT; bits++)
		for (unsigned int m = 1; m < RULE_PC_MASKS; m++) {
			unsigned int size = 1;

			if ((unsigned int)__builtin_popcount(m) != bits)
				continue;
			for (unsigned int f = 0; f < RULE_PC__COUNT && size != 0; f++)
				if (m & 1u << f)
					size = size * fc->nf[f] > RULE_PC_IDS ? 0 : size * fc->nf[f];
			if (size == 0 || next + size > RULE_PC_IDS)
				continue;
			fc->base[m] = (uint16_t)next;
			memset(&fc->mask_of[next], (int)m, size);
			next += size;
			/* Each field of the subset a digit, the first the lowest. */
			size = 1;
			for (unsigned int f = 0; f < RULE_PC__COUNT; f++)
				if (m & 1u << f) {
					fc->stride[m][f] = (uint16_t)size;
					size *= fc->nf[f];
				}
		}
}

int
eng_pktclass_commit(struct rule_engine *eng)
{
	const struct rule_flagclass *old = cur(eng);
	struct rule_flagclass *fc = calloc(1, sizeof(*fc));
	const size_t body = offsetof(struct rule_flagclass, n);

	if (fc != NULL) {
		fc->n = (uint16_t)rule_set_tcpflag_classes(eng->set, fc->cls, fc->rep);
		rule_set_field_classes(eng->set, eng->router, &fc->f);
		fc->nf[RULE_PC_FLAGS] = fc->n;
		fc->nf[RULE_PC_TTL] = fc->f.n_ttl;
		fc->nf[RULE_PC_TOS] = fc->f.n_tos;
		fc->nf[RULE_PC_LEN] = fc->f.n_len_b == 0xff ? 0 : (uint16_t)(fc->f.n_len_b + 1);
		/* A later fragment, no option, then the intervals. */
		fc->nf[RULE_PC_MSS] = fc->f.n_mss_b == 0xff ? 0 : (uint16_t)(fc->f.n_mss_b + 3);
		alloc_ids(fc);
		if (old != NULL && memcmp((const char *)old + body, (const char *)fc + body,
					   sizeof(*fc) - body) == 0) {
			free(fc);
			return 0;
		}
		fc->gen = eng->gen;
		fc->serial = (uint8_t)(old != NULL ? old->serial % RULE_PC_SERIALS + 1 : 1);
	}
	/* Without memory: no table, so no entry is classed (decided per packet). */
	__atomic_store_n(&eng->view.flagclass, fc, __ATOMIC_RELEASE);
	if (old != NULL && eng_retire(eng, (void *)(uintptr_t)old) < 0)
		ENG_LOG(DEBUG, "%s: no memory to retire a packet class table", eng->name);
	return fc != NULL ? 0 : -ENOMEM;
}

int
rule_engine_router_set(struct rule_engine *eng, bool on)
{
	if (eng == NULL)
		return -EINVAL;
	if (eng->router == on)
		return 0;
	eng->router = on;
	/* The decrement is one more rewrite before FORWARD's tests: other TTL classes. */
	return eng->set != NULL ? eng_pktclass_commit(eng) : 0;
}

void
eng_pktclass_fini(struct rule_engine *eng)
{
	free((void *)(uintptr_t)eng->view.flagclass);
	eng->view.flagclass = NULL;
}

bool
eng_pktclass_current(const struct rule_engine *eng, const struct fc_action *a)
{
	const struct rule_flagclass *fc = cur(eng);

	return (a->mod[0] & ENG_M0_CLASSED) && fc != NULL &&
	       rule_pc_serial(rule_engine_class_of(eng, a)) == fc->serial &&
	       (int32_t)(a->gen - fc->gen) >= 0;
}

bool
eng_pktclass_holds(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktfields *pf)
{
	const struct rule_flagclass *fc = cur(eng);
	unsigned int id = rule_pc_id(rule_engine_class_of(eng, a)), m;

	if (!eng_pktclass_current(eng, a))
		return false;
	m = fc->mask_of[id];
	return fields_known(pf, m) && rule_pktclass_id(fc, m, pf) == (int)id;
}

bool
eng_pktclass_known(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktfields *pf)
{
	return eng_pktclass_current(eng, a) &&
	       fields_known(pf, cur(eng)->mask_of[rule_pc_id(rule_engine_class_of(eng, a))]);
}

unsigned int
eng_pktclass_rep(const struct rule_engine *eng, const struct fc_key *k, const struct fc_action *a,
	struct rule_pktfields *pf, bool *guess)
{
	const struct rule_flagclass *fc = cur(eng);
	unsigned int unknown = RULE_PC_MASKS - 1, m, r;

	*guess = false;
	memset(pf, 0, sizeof(*pf));
	pf->mss_st = 1;
	pf->flags = fc_key_proto(k) == IPPROTO_TCP ? ENG_TCP_ACK : 0;
	/* A router's: a TTL that does not expire at its decrement (a packet that never gets to FORWARD). */
	if (eng->router)
		pf->ttl = 64;
	/* A connection's ordinary segments: ACK, no MSS option. */
	unknown &= ~((1u << RULE_PC_FLAGS) | (1u << RULE_PC_MSS));
	if (!eng_pktclass_current(eng, a))
		return unknown;
	*guess = (a->mod[0] & ENG_M0_CLASS_GUESS) != 0;
	m = fc->mask_of[rule_pc_id(rule_engine_class_of(eng, a))];
	r = rule_pc_id(rule_engine_class_of(eng, a)) - fc->base[m];
	/* The id's digits, field by field: a value of each class. */
	for (unsigned int f = 0; f < RULE_PC__COUNT; f++) {
		unsigned int c;

		if (!(m & 1u << f))
			continue;
		c = r % fc->nf[f];
		r /= fc->nf[f];
		unknown &= ~(1u << f);
		switch (f) {
		case RULE_PC_FLAGS:
			pf->flags = fc_key_proto(k) == IPPROTO_TCP ? fc->rep[c] : 0;
			break;
		case RULE_PC_TTL:
			pf->ttl = fc->f.ttl_rep[c];
			break;
		case RULE_PC_TOS:
			pf->tos = fc->f.tos_rep[c];
			break;
		case RULE_PC_LEN:
			pf->len = c == 0 ? 0 : fc->f.len_b[c - 1];
			break;
		default:
			/* A later fragment's class: its walk sees no option (and no class of it). */
			pf->mss_st = c < 2 ? 1 : 2;
			pf->mss = c < 2 ? 0 : (c == 2 ? 0 : fc->f.mss_b[c - 3]);
			break;
		}
	}
	return unknown;
}

void
eng_pktclass_clear(struct fc_action *a)
{
	if (!(a->mod[0] & ENG_M0_CLASSED))
		return;
	a->mod[0] &= (uint8_t)~(ENG_M0_CLASSED | ENG_M0_CLASS_GUESS);
	/* A program keeps naming its lists (its class is not read any more). */
	if (!(a->flags & FC_ACT_F_PKTACT))
		a->pkt_class = 0;
}

uint32_t
eng_pktclass_take(struct rule_engine *eng, const struct fc_key *k, struct fc_action *a,
	uint32_t pd, const struct rule_pktfields *pf, unsigned int unknown, bool guess)
{
	const struct rule_flagclass *fc = cur(eng);
	struct rule_pktfields ord;
	unsigned int m = mask_of_deps(pd);
	struct rule_pktprog prog;
	int id, oid, pid = 0;

	eng_pktclass_clear(a);
	if ((pd & ~ENG_PC_DEPS) || fc == NULL || !fields_known(pf, m))
		return pd;
	id = rule_pktclass_id(fc, m, pf);
	if (id < 0) {
		eng->st.class_unfit++;
		return pd;
	}
	/*
	 * With a packet program: the class in a program of its own (the same
	 * lists, or the same predicate: its outcomes hold for the class's packets,
	 * the fast path checks the class before it searches).
	 */
	if (a->flags & FC_ACT_F_PKTACT) {
		prog = *rule_engine_pktprog(eng, a->pkt_class);
		prog.cls = rule_pc_make(fc->serial, (unsigned int)id);
		pid = eng_prog_intern(eng, &prog);
		if (pid < 0)
			return pd;
	}
	a->mod[0] |= ENG_M0_CLASSED;
	/*
	 * A guess where its values are made up, or where a first segment's
	 * are not an ordinary segment's (ACK, no MSS option, a length of its own).
	 */
	ord = *pf;
	ord.flags = ENG_TCP_ACK;
	ord.mss_st = 1;
	oid = rule_pktclass_id(fc, m, &ord);
	/* A router's expired TTL is no flow's own: the first packet of another TTL takes over. */
	if ((m & unknown) || (guess && fc_key_proto(k) == IPPROTO_TCP &&
				     (oid != id || (m & 1u << RULE_PC_LEN))) ||
		(eng->router && (m & 1u << RULE_PC_TTL) && pf->ttl <= 1))
		a->mod[0] |= ENG_M0_CLASS_GUESS;
	if (pid > 0)
		a->pkt_class = (uint16_t)pid;
	else
		a->pkt_class = rule_pc_make(fc->serial, (unsigned int)id);
	eng->st.classed++;
	return 0;
}
