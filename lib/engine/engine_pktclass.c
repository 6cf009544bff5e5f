/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: entries cached for a TCP flag class.
 *
 * A flow whose walk read the TCP flags and no other per-packet field
 * (--tcp-flags, --syn before the ESTABLISHED accept: NULL and XMAS scan
 * drops) is not decided packet by packet. At each commit the set's flags
 * tests give a 256-entry table, flag byte -> class (rule_set_tcpflag_classes());
 * the entry caches the verdict of its walk together with the class of the
 * flags that walk saw (fc_action::pkt_class: the class in the low byte,
 * the table's serial in the high one; ENG_M0_CLASSED). The fast path looks
 * the packet's class up and compares (rule_engine_class_ok()): equal, the
 * cached verdict holds; otherwise the packet goes up and is decided on its
 * own, the entry kept (a RST in an ACK flow goes up alone).
 *
 * Which flags a walk sees: a real packet's; on an entry's key alone
 * (refiltering after a commit or a ctstate change, a reply entry made with
 * the connection's first packet), a stand-in: a flag byte of the entry's
 * class while that class is current, else ACK (the flags of almost every
 * segment of a connection). A class taken from a flow's first segment (a
 * SYN, a SYN/ACK) that is not an ordinary segment's (ACK without SYN, FIN
 * or RST) is a guess (ENG_M0_CLASS_GUESS): the entry's first ordinary
 * segment of another class takes the entry over (it is refiltered with
 * that segment's flags) instead of going up alone each time; an odd
 * segment (a FIN, a RST) never takes an entry over.
 *
 * Tables: one current (view.flagclass), replaced only when a commit's
 * tests give another table, the old one freed after a grace period. An
 * entry of an older table fails the serial (and generation) check on the
 * fast path and is refiltered on the slow path or by revalidation.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

#define ENG_TCP_ACK 0x10
/* SYN, FIN, RST, ACK: an ordinary segment has ACK alone of these. */
#define ENG_TCP_ODD_MASK 0x17

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

int
eng_pktclass_commit(struct rule_engine *eng)
{
	const struct rule_flagclass *old = cur(eng);
	struct rule_flagclass *fc;
	uint8_t cls[256], rep[256];
	unsigned int n = rule_set_tcpflag_classes(eng->set, cls, rep);

	if (old != NULL && old->n == n && memcmp(old->cls, cls, sizeof(cls)) == 0)
		return 0;
	fc = malloc(sizeof(*fc));
	if (fc != NULL) {
		fc->gen = eng->gen;
		fc->serial = (uint8_t)(old != NULL ? old->serial + 1 : 1);
		fc->n = (uint16_t)n;
		memcpy(fc->cls, cls, sizeof(cls));
		memcpy(fc->rep, rep, sizeof(rep));
	}
	/* Without memory: no table, so no entry is classed (decided per packet). */
	__atomic_store_n(&eng->view.flagclass, fc, __ATOMIC_RELEASE);
	if (old != NULL && eng_retire(eng, (void *)(uintptr_t)old) < 0)
		ENG_LOG(DEBUG, "%s: no memory to retire a flag class table", eng->name);
	return fc != NULL ? 0 : -ENOMEM;
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
	       (uint8_t)(a->pkt_class >> 8) == fc->serial && (int32_t)(a->gen - fc->gen) >= 0;
}

bool
eng_pktclass_holds(const struct rule_engine *eng, const struct fc_action *a, uint8_t flags)
{
	return eng_pktclass_current(eng, a) && cur(eng)->cls[flags] == (uint8_t)a->pkt_class;
}

uint8_t
eng_pktclass_rep(const struct rule_engine *eng, const struct fc_key *k, const struct fc_action *a,
	bool *guess)
{
	*guess = false;
	if (fc_key_proto(k) != IPPROTO_TCP)
		return 0;
	if (eng_pktclass_current(eng, a)) {
		*guess = (a->mod[0] & ENG_M0_CLASS_GUESS) != 0;
		return cur(eng)->rep[(uint8_t)a->pkt_class];
	}
	return ENG_TCP_ACK;
}

void
eng_pktclass_clear(struct fc_action *a)
{
	if (!(a->mod[0] & ENG_M0_CLASSED))
		return;
	a->mod[0] &= (uint8_t)~(ENG_M0_CLASSED | ENG_M0_CLASS_GUESS);
	a->pkt_class = 0;
}

uint32_t
eng_pktclass_take(struct rule_engine *eng, const struct fc_key *k, struct fc_action *a,
	uint32_t pd, uint8_t flags, bool guess)
{
	const struct rule_flagclass *fc = cur(eng);

	eng_pktclass_clear(a);
	if (pd != RULE_DEP_TCPFLAGS || fc == NULL || (a->flags & (FC_ACT_F_METER | FC_ACT_F_PKTACT)))
		return pd;
	a->mod[0] |= ENG_M0_CLASSED;
	/* A guess only where ordinary segments are of another class. */
	if (guess && fc_key_proto(k) == IPPROTO_TCP && fc->cls[flags] != fc->cls[ENG_TCP_ACK])
		a->mod[0] |= ENG_M0_CLASS_GUESS;
	a->pkt_class = (uint16_t)((unsigned int)fc->serial << 8 | fc->cls[flags]);
	eng->st.classed++;
	return 0;
}
