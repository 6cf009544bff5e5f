/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: packet programs, part of engine.h's manual (included at its
 * end) — what a cached entry does to each of its packets beyond the
 * verdict: the non-terminal targets that report or change packets (LOG,
 * NFLOG, TOS, DSCP, TTL, HL, CHECKSUM, ECN; TCPMSS on the slow path only).
 *
 * A walk records the non-terminal actions that ran (struct rule_eval::acts);
 * the engine turns those of LOG ... TCPMSS into a list of packet operations
 * and interns it as a program (deduplicated by content). An entry whose
 * walk ran some carries FC_ACT_F_PKTACT and fc_action::pkt_class = program
 * + 1: every packet that hits it runs the program on the RX lcore (a log
 * record onto a bounded ring, rewrites with incremental checksums), never
 * on the slow path. Where one meter (-m limit) decides which actions run
 * (the usual "-m limit -j LOG"), the program holds both lists, the meter
 * and whether it also flips the verdict (a metered entry without actions
 * gets a program of that alone): the RX lcore takes a token per packet
 * and runs the list of the answer. Meters the walk passed without their answer
 * counting (a rule whose port match, after the meter, refuses the flow)
 * are charged first, in order (rule_pktprog::pre): a program may hold
 * only those. Packets the slow path decides get the exact program
 * of their own walk (struct rule_decision::pkt_prog, ::pkt_list).
 *
 * Log specifications (what a LOG or NFLOG rule says: prefix, level,
 * flags, group, snap length, the rule and hook) are interned the same way;
 * an operation names one. Programs and specifications live as long as the
 * engine; a commit of a set that is no descendant of the running one
 * starts them over (as meters: entries naming old ones are stale and run
 * nothing before revalidation). When a table is full, a flow's actions
 * are not carried out, counted (struct rule_engine_pktact_stats).
 */
#ifndef GUFC_ENGINE_PKTACT_H
#define GUFC_ENGINE_PKTACT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of packet operations (struct rule_pktop::kind). */
enum rule_pktop_kind {
	RULE_PKTOP_NONE,
	RULE_PKTOP_LOG,      /**< a log line (and log channel) record of spec @c ref; @c a 1:
				  the rule ran after the destination NAT (INPUT, FORWARD,
				  POSTROUTING; filter and security OUTPUT), so the record
				  shows the destination as translated, as Linux's */
	RULE_PKTOP_NFLOG,    /**< a record for NFLOG group of spec @c ref; @c a as LOG's */
	RULE_PKTOP_TOS,      /**< TOS / traffic class = (tos & ~@c a) ^ @c b (TOS, DSCP) */
	RULE_PKTOP_TTL,      /**< IPv4 TTL: @c a 0 set, 1 minus, 2 plus @c b (floor 0, ceiling 255) */
	RULE_PKTOP_HL,       /**< IPv6 hop limit, the same */
	RULE_PKTOP_CHECKSUM, /**< fill in the TCP/UDP checksum */
	RULE_PKTOP_TCPMSS,   /**< TCP SYN: MSS option to @c ref, or 0: the route's MTU less
				  the headers; only lowered, added (at most 536 / 1220) to
				  a SYN without one and without data (slow path only) */
	RULE_PKTOP_ECN,      /**< ECN target: IPv4 ECN field to @c ref & 3 when @c ref & 4;
				  then, for TCP, flags = (flags & ~@c a) | @c b (ECE, CWR) */
};

/** One packet operation. */
struct rule_pktop {
	uint8_t kind; /**< enum rule_pktop_kind */
	uint8_t a, b; /**< operands (see the kinds) */
	/**
	 * TTL, HL, LOG, NFLOG: 1 when the rule ran at FORWARD or POSTROUTING,
	 * which in a router come after its own TTL (hop limit) decrement, as
	 * in Linux (ip_forward() takes one off before the FORWARD hook): the
	 * datapath applies a rewrite to the decremented value and logs a
	 * forwarded packet with it (none that expired there). 0 otherwise.
	 */
	uint8_t late;
	uint32_t ref; /**< LOG, NFLOG: the spec id; TCPMSS: the MSS */
	uint32_t mark; /**< LOG, NFLOG: the packet's mark when the rule ran (MARK= of the line) */
};

/** Most operations a program list holds (more: the rest are lost, counted). */
#define RULE_PKTOPS_MAX 8
/** Most programs of an engine; fc_action::pkt_class names one plus 1. */
#define RULE_PKTPROGS_MAX 4096
/** Most meters a program charges before its deciding one (rule_pktprog::pre). */
#define RULE_PKTPROG_PRE_MAX 4
/** Most log specifications of an engine. */
#define RULE_LOGSPECS_MAX 1024

/**
 * A packet program: one or two lists of operations. Immutable once an entry
 * or a decision names it. Owned by the engine (rules lcore writes it before
 * any entry names it; RX lcores read it).
 */
struct rule_pktprog {
	uint16_t meter;  /**< meter + 1 whose answer picks the list: conforming [0],
			      exceeded [1]; 0: list 0 always */
	uint8_t flip;    /**< an exceeded meter also gives the entry's other verdict */
	uint8_t rewrite; /**< bit l: list l changes the packet */
	uint8_t n[2];    /**< operations per list */
	uint8_t late;    /**< bit l: list l has a late operation (rule_pktop::late) */
	uint8_t n_pre;   /**< meters in @c pre */
	uint16_t pred;   /**< string predicate + 1 (engine_strpred.h): its outcome gives
			      the verdict, rule and program (this one has no lists);
			      0: none (never with @c meter) */
	uint16_t cls;    /**< an entry's class (engine_pktclass.c: serial << 8 | id) when
			      the entry is RULE_ACT_M0_CLASSED: its pkt_class names this
			      program; 0 otherwise */
	/**
	 * Meters (ids, not + 1) every packet charges before @c meter, in the
	 * walk's order, their answers not read: the walk passed them in rules
	 * that a later match refused either way (a "-m limit" written before
	 * a "--dport" the flow's port fails takes a token in Linux: "charge
	 * and go on"). Never with @c pred.
	 */
	uint16_t pre[RULE_PKTPROG_PRE_MAX];
	struct rule_pktop op[2][RULE_PKTOPS_MAX];
	/**
	 * With @c meter: the deciding rule (counter id, as fc_action::rule_id)
	 * and trace (engine_trace.c; 0: none) of each answer, conforming [0]
	 * and exceeded [1]. The entry counts every packet for [0]'s; those of
	 * list 1 are counted apart too (rule_engine_view::prog_turned) and
	 * move to [1]'s when counters are read, as Linux credits a packet the
	 * meter turned to the rules its own walk passes. Read by the rules
	 * lcore only; 0 without @c meter.
	 */
	uint32_t rule[2];
	uint32_t trace[2];
};

/** A program's packets of list 1 (those an exceeded meter turned), counted apart. */
struct rule_prog_ctr {
	uint64_t packets;
	uint64_t bytes;
} __rte_cache_aligned;

/** struct rule_logspec::flags: LOG's options. */
#define RULE_LOGF_TCPSEQ 0x01   /**< --log-tcp-sequence */
#define RULE_LOGF_TCPOPT 0x02   /**< --log-tcp-options */
#define RULE_LOGF_IPOPT 0x04    /**< --log-ip-options */
#define RULE_LOGF_UID 0x08      /**< --log-uid (gufc has no sockets: never a UID) */
#define RULE_LOGF_MACDECODE 0x10 /**< --log-macdecode */

/** What one LOG or NFLOG rule logs. A plain value (copied into each record). */
struct rule_logspec {
	uint32_t rule_id;
	uint8_t kind;     /**< RULE_PKTOP_LOG or RULE_PKTOP_NFLOG */
	uint8_t level;    /**< LOG: syslog level 0..7 (--log-level; default 4, warning) */
	uint8_t flags;    /**< RULE_LOGF_* */
	uint8_t hook;     /**< enum rule_hook the rule ran at */
	uint16_t group;   /**< NFLOG: --nflog-group */
	uint16_t threshold; /**< NFLOG: --nflog-threshold (records go one by one) */
	uint32_t snaplen; /**< NFLOG: --nflog-range / --nflog-size; 0: whole packet */
	char prefix[64];  /**< --log-prefix (29 characters at most), --nflog-prefix */
};

/** Counters of the program and spec tables. */
struct rule_engine_pktact_stats {
	uint32_t progs;      /**< programs in use */
	uint32_t specs;      /**< log specifications in use */
	uint64_t prog_full;  /**< flows whose actions found the program table full (not done) */
	uint64_t ops_lost;   /**< operations past RULE_PKTOPS_MAX or the walk's record (not done) */
};

/**
 * The program an entry names (FC_ACT_F_PKTACT) or a decision does.
 * @param eng    the engine
 * @param class  fc_action::pkt_class or rule_decision::pkt_prog (program + 1; not 0)
 * @return the program.
 * Context: any lcore (lock-free).
 */
static inline const struct rule_pktprog *
rule_engine_pktprog(const struct rule_engine *eng, uint16_t class)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	return &v->progs[class - 1];
}

/**
 * The meter that decides what a cached entry does with a packet (its verdict
 * or its program's list): its program's rule_pktprog::meter.
 * @param eng  the engine
 * @param a    the entry's action
 * @return the meter + 1, or 0: none.
 * Context: any lcore (lock-free).
 */
static inline uint16_t
rule_engine_act_meter(const struct rule_engine *eng, const struct fc_action *a)
{
	if (a->flags & FC_ACT_F_PKTACT)
		return rule_engine_pktprog(eng, a->pkt_class)->meter;
	return 0;
}

/**
 * A log specification.
 * @param eng  the engine
 * @param id   struct rule_pktop::ref of a LOG or NFLOG operation
 * @return the specification.
 * Context: any lcore (lock-free).
 */
static inline const struct rule_logspec *
rule_engine_logspec(const struct rule_engine *eng, uint32_t id)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	return &v->specs[id];
}

/**
 * Count a log record of spec @p id that could not be queued (ring full, no
 * mbuf): per rule, read by rule_engine_logspec_dropped().
 * @param eng  the engine
 * @param id   the spec
 * Context: any lcore (lock-free).
 */
static inline void
rule_engine_logspec_drop(const struct rule_engine *eng, uint32_t id)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;

	__atomic_fetch_add(&v->spec_dropped[id], 1, __ATOMIC_RELAXED);
}

/**
 * For a packet of an entry with FC_ACT_F_PKTACT: which list of its program
 * runs for it (the meters in rule_pktprog::pre take a token each,
 * then the deciding meter takes one) and the verdict. Not for
 * a program with a string predicate (rule_engine_pred_leaf()).
 * @param eng   the engine
 * @param a     the entry's action
 * @param p     its program (rule_engine_pktprog())
 * @param now   TSC cycles (0: read here when a meter needs it)
 * @param len   the packet's IP length (fc_pkt::ip_len), for byte meters
 * @param list  receives the list to run (0 or 1)
 * @return FC_VERDICT_ACCEPT or FC_VERDICT_DROP.
 * Context: any lcore (lock-free).
 */
static inline uint8_t
rule_engine_pktprog_ask(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktprog *p, uint64_t now, uint32_t len, unsigned int *list)
{
	if (unlikely(p->n_pre != 0)) {
		/* Meters passed in rules that failed later on: a token each, the answer unread. */
		if (now == 0)
			now = rte_rdtsc();
		for (unsigned int i = 0; i < p->n_pre && i < RULE_PKTPROG_PRE_MAX; i++)
			(void)rule_engine_meter_take(eng, p->pre[i], now, len);
	}
	if (p->meter == 0) {
		*list = 0;
		return a->verdict;
	}
	if (rule_engine_meter_take(eng, (uint16_t)(p->meter - 1), now != 0 ? now : rte_rdtsc(),
		    len)) {
		*list = 0;
		return a->verdict;
	}
	*list = 1;
	if (!p->flip)
		return a->verdict;
	return a->verdict == FC_VERDICT_ACCEPT ? FC_VERDICT_DROP : FC_VERDICT_ACCEPT;
}

/**
 * Count a packet of an entry running program @p class that took list 1
 * (its meter exceeded): the entry counts it for the conforming answer's
 * rule and trace, the counters move it to the exceeded one's when read.
 * @param eng    the engine
 * @param class  fc_action::pkt_class (program + 1)
 * @param bytes  its IP length, as the entry counts it
 * Context: any lcore (lock-free; one relaxed atomic add per counter).
 */
static inline void
rule_engine_prog_turned(const struct rule_engine *eng, uint16_t class, uint32_t bytes)
{
	const struct rule_engine_view *v = (const struct rule_engine_view *)(const void *)eng;
	struct rule_prog_ctr *c = &v->prog_turned[class - 1];

	__atomic_fetch_add(&c->packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
}

/**
 * rule_engine_pktprog_ask() for a packet the entry counts (a hit): a
 * packet of list 1 is counted apart as well (rule_engine_prog_turned()),
 * for the exceeded answer's rule and trace.
 * Context: any lcore (lock-free).
 */
static inline uint8_t
rule_engine_pktprog_take(const struct rule_engine *eng, const struct fc_action *a,
	const struct rule_pktprog *p, uint64_t now, uint32_t len, unsigned int *list)
{
	uint8_t v = rule_engine_pktprog_ask(eng, a, p, now, len, list);

	if (unlikely(*list != 0))
		rule_engine_prog_turned(eng, a->pkt_class, len);
	return v;
}

/**
 * Copy log specification @p id (valid: below the count in use).
 * @param eng      the engine
 * @param id       the spec
 * @param spec     receives it
 * @param dropped  receives its records not queued (may be NULL)
 * @return 0, -ENOENT (no such spec), -EINVAL.
 * Context: any (a spec is never changed; the table starts over after a
 *   commit of an unrelated set).
 */
int rule_engine_logspec_get(const struct rule_engine *eng, uint32_t id,
	struct rule_logspec *spec, uint64_t *dropped);

/**
 * Counters of the program and specification tables.
 * @param eng  the engine
 * @param st   receives them
 * Context: any (values may be a little behind).
 */
void rule_engine_pktact_stats_get(const struct rule_engine *eng,
	struct rule_engine_pktact_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_ENGINE_PKTACT_H */
