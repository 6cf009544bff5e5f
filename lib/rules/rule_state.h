/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — the run-time state of stateful matches: the lists of
 * "-m recent", the tables of "-m hashlimit", and the ipsets as "-m set"
 * tests them and "-j SET" changes them.
 *
 * Part of rule_eval.h (which includes it; include rules.h). The state is
 * the caller's (struct rule_providers): the engine keeps it on its rules
 * lcore; the reference evaluator works without it (rule_x_fresh()).
 */
#ifndef GUFC_RULE_STATE_H
#define GUFC_RULE_STATE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Addresses one "-m recent" list holds (netfilter's ip_list_tot default). */
#define RULE_RECENT_ENTRIES 100
/** Hits remembered per address: the largest --hitcount Linux takes. Linux
 *  keeps per list the next power of two above its largest --hitcount
 *  (at least ip_pkt_list_tot, 20); keeping more changes no answer, since
 *  a check only needs the newest --hitcount stamps. */
#define RULE_RECENT_STAMPS 255

/** The lists of "-m recent" matches, one per --name (rule_recent_match()). */
struct rule_recent;

/**
 * Empty lists.
 * @return the lists, or NULL without memory.
 * Context: any.
 */
struct rule_recent *rule_recent_new(void);

/**
 * Free lists made by rule_recent_new().
 * @param rr  the lists, or NULL
 * Context: any (the caller owns @p rr).
 */
void rule_recent_free(struct rule_recent *rr);

/**
 * One packet reaches "-m recent" match @p x, as netfilter's recent match
 * decides and changes its list (made empty the first time its name is
 * seen): the source address (--rdest: destination) under --mask, with
 * --rttl also its TTL, is looked up; --set adds it (the least recently
 * set or updated of RULE_RECENT_ENTRIES addresses gives way) or stamps it
 * and matches; --remove deletes it and matches if it was there; --rcheck
 * and --update match if it holds a stamp (--hitcount: that many) newer
 * than --seconds; --update then stamps it; --reap also deletes the list's
 * least recently stamped address if its newest stamp is older than
 * --seconds. A list keeps the last RULE_RECENT_STAMPS stamps per address.
 * @param rr   the lists
 * @param x    the match (kind RULE_XM_RECENT)
 * @param p    the packet (key, ttl)
 * @param now  the time, in ticks, never decreasing between calls
 * @param hz   ticks per second
 * @return 1 (match) or 0, negation applied; -ENOMEM if a new list could
 *   not be made.
 * Context: any (the caller owns @p rr).
 */
int rule_recent_match(struct rule_recent *rr, const struct rule_x *x, const struct rule_pkt *p,
	uint64_t now, uint64_t hz);

/** One "-m recent" list as rule_recent_info() shows it. */
struct rule_recent_info {
	char name[RULE_XNAME_MAX];
	uint32_t entries;     /**< addresses held (at most RULE_RECENT_ENTRIES) */
};

/** One address of a list (rule_recent_entry()). */
struct rule_recent_entry {
	uint8_t family;       /**< FC_AF_INET4 or FC_AF_INET6 */
	uint8_t ttl;          /**< the TTL it was last set or updated with */
	uint16_t hits;        /**< stamps held (up to RULE_RECENT_STAMPS) */
	uint8_t addr[16];     /**< under the list's mask, network order */
	uint64_t last;        /**< its newest stamp, in the caller's ticks */
	uint64_t first;       /**< its oldest stamp held */
};

/**
 * List @p i (0 ..) of @p rr.
 * @param rr    the lists, or NULL (none)
 * @param i     its index
 * @param info  receives its name and size
 * @return 0; -ENOENT past the last.
 * Context: any (the caller owns @p rr).
 */
int rule_recent_info(const struct rule_recent *rr, unsigned int i, struct rule_recent_info *info);

/**
 * Address @p j (0 ..) of list @p i of @p rr, least recently set or updated first.
 * @param rr  the lists
 * @param i   the list
 * @param j   the address
 * @param e   receives it
 * @return 0; -ENOENT past the last.
 * Context: any (the caller owns @p rr).
 */
int rule_recent_entry(const struct rule_recent *rr, unsigned int i, unsigned int j,
	struct rule_recent_entry *e);

/**
 * Drop the lists no rule of @p s names any more (-m recent --name), as
 * netfilter frees a list with its last rule; the others are kept.
 * @param rr  the lists, or NULL
 * @param s   the rule set now loaded, or NULL (drops every list)
 * @return how many lists were dropped.
 * Context: any (the caller owns @p rr; @p s read-only).
 */
unsigned int rule_recent_prune(struct rule_recent *rr, const struct rule_set *s);

/** Buckets a hashlimit table is made with when --hashlimit-htable-size is not given. */
#define RULE_HASHLIMIT_SIZE 8192

/** The settings of a hashlimit table (those of the first match that makes it). */
struct rule_hashlimit_cfg {
	uint32_t rate;       /**< tokens per unit */
	uint8_t unit;        /**< RULE_RATE_* */
	uint8_t mode;        /**< RULE_HL_* (0: one bucket for every packet) */
	uint8_t srcmask;     /**< prefix length of the source address (srcip) */
	uint8_t dstmask;     /**< prefix length of the destination (dstip) */
	uint32_t burst;      /**< bucket depth, tokens; byte rate: whole refills of the credit */
	uint32_t chunk_cost; /**< byte rate: what a 16-byte chunk costs of the credit
				  (RULE_HASHLIMIT_CREDIT a second), as Linux charges it */
	uint32_t size;       /**< hash chains (--hashlimit-htable-size; RULE_HASHLIMIT_SIZE) */
	uint32_t max;        /**< most buckets (--hashlimit-htable-max; 8 * size) */
	uint32_t gcinterval; /**< ms between sweeps (1000) */
	uint32_t expire;     /**< ms a bucket lives after its last packet (10000) */
};

/**
 * A byte-rate bucket's credit, a second's worth, in Linux's units
 * (CREDITS_PER_JIFFY_BYTES * HZ: 2^25 * 125 with HZ 100, 250 or 1000).
 */
#define RULE_HASHLIMIT_CREDIT (UINT64_C(125) << 25)

/** One hashlimit table as rule_hashlimit_info() shows it. */
struct rule_hashlimit_info {
	char name[RULE_XNAME_MAX];
	uint8_t family;
	struct rule_hashlimit_cfg cfg;
	uint32_t buckets;    /**< buckets held now */
};

/** The tables of "-m hashlimit" matches, one per --hashlimit-name and family. */
struct rule_hashlimit;

/**
 * No tables.
 * @return the tables, or NULL without memory.
 * Context: any.
 */
struct rule_hashlimit *rule_hashlimit_new(void);

/**
 * Free tables made by rule_hashlimit_new().
 * @param h  the tables, or NULL
 * Context: any (the caller owns @p h).
 */
void rule_hashlimit_free(struct rule_hashlimit *h);

/**
 * The table settings match @p x asks for, defaults filled in.
 * @param x       the match (kind RULE_XM_HASHLIMIT)
 * @param family  FC_AF_INET4 or FC_AF_INET6 (the masks' full length)
 * @param c       receives them
 * Context: any.
 */
void rule_hashlimit_cfg_of(const struct rule_x *x, unsigned int family,
	struct rule_hashlimit_cfg *c);

/**
 * One packet reaches "-m hashlimit" match @p x, as netfilter's hashlimit
 * decides: its table (--hashlimit-name and the packet's family; made with
 * @p x's settings the first time) sweeps out the buckets idle for
 * --hashlimit-htable-expire ms when --hashlimit-htable-gcinterval ms have
 * passed since its last sweep (rule_hashlimit_load() makes the tables of a
 * loaded set first); the packet's bucket (the --hashlimit-mode
 * fields: addresses under srcmask/dstmask; ports of TCP, UDP, UDP-Lite,
 * SCTP and DCCP, the SPI of ESP and AH, 0 for others) is made full if new
 * and gives a token if it has one. --hashlimit-upto matches when it had
 * one, --hashlimit-above when it had not.
 * @param h    the tables
 * @param x    the match (kind RULE_XM_HASHLIMIT)
 * @param p    the packet (key; spi)
 * @param now  the time, in ticks, never decreasing between calls
 * @param hz   ticks per second
 * @return 1 (match) or 0; -ENOSPC when the table holds --hashlimit-htable-max
 *   buckets and the packet needs a new one (netfilter drops such a packet);
 *   -ENOMEM without memory.
 * Context: any (the caller owns @p h).
 */
int rule_hashlimit_match(struct rule_hashlimit *h, const struct rule_x *x,
	const struct rule_pkt *p, uint64_t now, uint64_t hz);

/** Bytes of a hashlimit bucket key (rule_hashlimit_key()). */
#define RULE_HASHLIMIT_KEY_LEN 36

/**
 * The bucket key of packet @p p in the table of match @p x (made with
 * @p x's settings if new), and the table's settings: what
 * rule_hashlimit_match() would look up, for a caller that keeps the
 * bucket's tokens itself (the rules engine's meters).
 * @param h    the tables
 * @param x    the match (kind RULE_XM_HASHLIMIT)
 * @param p    the packet
 * @param now  the time, in ticks (a new table's first sweep)
 * @param hz   ticks per second
 * @param key  receives the key (equal keys: the same bucket of the table)
 * @param cfg  receives the table's settings
 * @return 0, or -ENOMEM.
 * Context: any (the caller owns @p h).
 */
int rule_hashlimit_key(struct rule_hashlimit *h, const struct rule_x *x, const struct rule_pkt *p,
	uint64_t now, uint64_t hz, uint8_t key[RULE_HASHLIMIT_KEY_LEN],
	struct rule_hashlimit_cfg *cfg);

/**
 * A rule set is loaded: drop the tables no rule of @p s names any more
 * (--hashlimit-name), as netfilter frees a table with its last rule, and
 * make the tables of names new to @p s with the settings of the first rule
 * (tables in enum rule_table order, chains and rules in order) that names
 * each, for each family the rule may see; kept tables keep their buckets
 * and settings.
 * @param h    the tables, or NULL
 * @param s    the rule set now loaded, or NULL (drops every table)
 * @param now  the time, in ticks (the new tables' first sweep is due a
 *   --hashlimit-htable-gcinterval later)
 * @param hz   ticks per second
 * @return how many tables were dropped.
 * Context: any (the caller owns @p h; @p s read-only).
 */
unsigned int rule_hashlimit_load(struct rule_hashlimit *h, const struct rule_set *s,
	uint64_t now, uint64_t hz);

/**
 * Does rule @p r name a recent list or a hashlimit table (-m recent
 * --name, -m hashlimit --hashlimit-name)? A set that differs from the one
 * loaded only by rules for which this is false names the same lists and
 * tables: rule_recent_prune() and rule_hashlimit_load() would change
 * nothing, and the rules engine's commit skips their walks of the set.
 * @param r  the rule
 * Context: any.
 */
bool rule_names_state(const struct rule *r);

/**
 * Table @p i (0 ..) of @p h.
 * @param h     the tables, or NULL (none)
 * @param i     its index
 * @param info  receives its name, family, settings and size
 * @return 0; -ENOENT past the last.
 * Context: any (the caller owns @p h).
 */
int rule_hashlimit_info(const struct rule_hashlimit *h, unsigned int i,
	struct rule_hashlimit_info *info);

/**
 * Look a packet up in an ipset: the fields @p ref names (source or
 * destination address, port; hash:net,iface: the name of the input port
 * for src, of the output port for dst) of @p p. Entries whose timeout
 * passed (p->time_s, when not 0) are absent. A packet without the port a
 * hash:net,iface lookup names (a locally generated packet's input, an
 * output not known yet) is in no such set, as in Linux. The networks of a
 * set are tried from the longest prefix to the shortest; the first member
 * found decides: a "nomatch" member (an exception) answers 0.
 * @param sets  the ipsets
 * @param ref   the set and dimensions
 * @param p     the packet
 * @param ifn   the port names (rule_set_ifnames()), or NULL (no names)
 * @return 1 if the set holds the packet's fields, 0 if not, -ENOENT (no
 *   such set), -EINVAL (fewer dimensions than the set needs).
 * Context: any.
 */
int rule_ipsets_test(const struct rule_ipsets *sets, const struct rule_x_set *ref,
	const struct rule_pkt *p, const struct rule_ifnames *ifn);

/**
 * rule_ipsets_test() as "-m set" asks it: with @p return_nomatch
 * (--return-nomatch), a set type that holds exceptions ("nomatch"
 * members: the types with a network) answers 1 for a packet whose lookup
 * finds an exception first and 0 for one that finds a plain member, as
 * Linux's; other types answer as without it. A list:set answers 1 when
 * one of its live member sets, asked in order, answers 1.
 * Context: any.
 */
int rule_ipsets_test_x(const struct rule_ipsets *sets, const struct rule_x_set *ref,
	const struct rule_pkt *p, const struct rule_ifnames *ifn, bool return_nomatch);

/**
 * Carry out a "-j SET" target for a packet: add the fields its --add-set
 * names (a live member stays as it is unless --exist, which starts its
 * timeout again; --timeout, else the set's default, for a set made with
 * timeouts), delete those its --del-set names. A packet without such
 * fields (another family, no ports) changes nothing.
 * @param sets  the ipsets (changed in place: every rule set sharing them sees it)
 * @param tgt   the target's options (kind RULE_XT_SET)
 * @param p     the packet (p->time_s: the clock timeouts count in)
 * @param ifn   the port names (hash:net,iface members), or NULL
 * @return what changed: 1 a member was added (or came back past its
 *   timeout), 2 one was deleted, both, 0 nothing; -ENOENT (no such set),
 *   -EINVAL (fewer dimensions than the set needs), -ENOMEM.
 * Context: the one thread that looks @p sets up while it runs (the engine's
 *   rules lcore); names and types do not change, so others may read those.
 */
int rule_ipsets_apply(struct rule_ipsets *sets, const struct rule_x *tgt,
	const struct rule_pkt *p, const struct rule_ifnames *ifn);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_STATE_H */
