/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/datapath — gufc's per-packet burst pipeline, the one place where a
 * packet's fate is applied.
 *
 * The fast path, dp_rx_burst(), is a list of early exits per burst:
 *
 *   0. offload (optional): a packet the NIC (or the software NIC model)
 *      marked names its flow entry; when the mark is live and the entry's
 *      action current, plain ACCEPT and not interested in this packet, the
 *      packet skips parse, hash and lookup;
 *   1. fc_parse_burst (prefetching), fc_locals_mark_burst, the burst's
 *      input port written into every key (it is part of the key: a flow
 *      seen on two ports is two flows), the keys of each family hashed in
 *      bulk; fragments, non-IP packets and parse errors leave here
 *      (upcall, default channel or a named drop, per setting);
 *   2. fc_table_lookup_bulk on the IPv4 and the IPv6 table;
 *   3. per hit: stale (a rule commit newer than the entry may change it)?
 *      interesting to a module (conntrack wants SYN/FIN/RST)? -> upcall;
 *      else the cached verdict, the NAT rewrite, fc_table_touch and the
 *      counters;
 *   4. grouping per destination channel, one chan_enqueue_burst() per
 *      channel, in order of first appearance (dp_deliver_burst()).
 *
 * A context with rx_ahead (dp_rx_burst_ahead()) runs step 1 of a burst a
 * poll before steps 2-4, while the burst before it is applied, so that
 * its lookups find their buckets fetched; nothing is decided in step 1,
 * and bursts are applied in the order received.
 *
 * Misses, stale or interesting hits and fragments go to the slow path on
 * the context's SPSC upcall ring, the parse result riding in the mbuf's
 * private area (struct dp_meta). The slow path hands them back, fragments
 * reassembled, to dp_upcall_burst(): the rules engine decides
 * (rule_engine_upcall_burst) and the same code applies the decisions
 * (named drop, NAT rewrite including ICMP errors of translated
 * connections, delivery). So a packet is delivered one way only:
 * dp_deliver_burst() -> chan_enqueue_burst(), whose direct TX mode covers
 * a producer transmitting on a TX queue of its own.
 *
 * The library knows no lcores, ports beyond their ids, shell or settings
 * file: the application sets up one struct dp_ctx per producer (an RX
 * lcore, the rules lcore) with the tables, engine, NAT table, locals,
 * channel table, offload marks, per-port channel maps, ids and upcall ring,
 * and reads the context's counters. No locks, allocation, syscalls or stdio.
 *
 * Router mode (struct dp_ctx::router; doc/config.md "Router mode"): ports
 * have addresses and the packets of routed flows leave with the Ethernet
 * addresses of their next hop's adjacency (fc_action::adj, read from
 * lib/modules/neigh under its sequence count: a neighbour's new MAC
 * reaches every cached flow at once) and a TTL or hop limit one lower
 * (IPv4 header checksum updated incrementally). On a hit the fast path
 * checks, before any rewrite, that the adjacency is valid, the TTL above 1
 * and the datagram within the egress MTU; anything else goes to the slow
 * path, which holds packets for a next hop still resolving
 * (mod_neigh_hold()), sends ICMP time exceeded, ICMP fragmentation needed
 * (DF set) or ICMPv6 packet too big (rate-limited, from the input port's
 * address, on the input port's TX channel, quoting the packet as it
 * arrived), or fragments an IPv4 datagram without DF. Echo requests to the
 * router's own addresses that the rules accept are answered in place (the
 * request becomes the reply); other accepted local traffic goes to the
 * local channel. ARP frames and ICMPv6 neighbour discovery (untagged) go
 * to the slow path and on to the neighbour module, before any rule. A
 * routed flow without adjacency (no route) is dropped. VLAN tags are kept
 * as they came (only the MAC addresses are rewritten). Bridge mode
 * (router 0) is the bump in the wire: no rewrite, no TTL change.
 *
 * REJECT (either mode): a packet a REJECT rule dropped (the decision's
 * reject kind) is answered on the slow path with the ICMP/ICMPv6 error or
 * TCP reset lib/reply writes, out of its input port's TX channel, ICMP
 * within the same budget as the router's errors (struct dp_ctx::icmp).
 *
 * Accounting: every mbuf given to dp_rx_burst() or dp_upcall_burst() is,
 * exactly once, handed to chan_enqueue_burst() (counted fwd_pkts), put on
 * the upcall ring (upcalls), handed to the neighbour module (neigh_in:
 * consumed there, or dropped under its reasons; held: sent or dropped
 * later), or freed under a named reason: the datapath's own
 * (DP_DROP_REASONS), the engine's (RULE_DROP_REASONS: the cached or the
 * slow path's verdict) or the parser's (FC_PARSE_RESULTS errors). Packets
 * the datapath makes itself (ICMP errors, the fragments beyond the first
 * of a datagram) are counted in originated.
 *
 * Lossless contexts (struct dp_ctx::lossless: replaying files, where the
 * input can wait): what an upcall ring or a channel ring did not take is
 * not dropped but held in the context (struct dp_hold), decided and
 * rewritten, in order; the caller stops feeding the context bursts while
 * it holds packets (dp_held()) and offers them again first
 * (dp_hold_retry()). Nothing of a burst is reordered: what a ring took is
 * a prefix of what was offered to it, the rest waits for the next try.
 * Nor is a connection across the two lcores: while packets wait for a
 * channel, the burst's upcalls wait behind them (the slow path could
 * deliver a later packet of their connection first), and the slow path
 * posts the completions of held decisions once they are delivered
 * (dp_upcall_done(): else the connection's next packets could take the
 * fast path ahead of them).
 */
#ifndef GUFC_DATAPATH_H
#define GUFC_DATAPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>

#include "channel.h"
#include "flowcache.h"
#include "engine.h"
#include "nat.h"
#include "conntrack.h"
#include "neigh.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_ring;

/** Most packets in one burst (fc_table_lookup_bulk() takes at most 64). */
#define DP_BURST_MAX 64
/** Ports 0..DP_MAX_PORTS-1: the size of the per-port channel maps. */
#define DP_MAX_PORTS 32
/** Longest frame struct dp_ctx::flat holds (an MTU of 9600, Ethernet, two VLAN tags). */
#define DP_FLAT_MAX 9728u
/** "No channel": struct dp_ctx::port_chan of a port that does not exist. */
#define DP_CHAN_NONE UINT16_MAX

/**
 * The datapath's own drop reasons, X(NAME, "id", "text"): its part of the
 * application's drop registry. Counted in struct dp_stats::drops.
 */
#define DP_DROP_REASONS(X) \
	X(NON_IP, "non_ip", "not IPv4/IPv6 (non-ip drop)") \
	X(FRAGMENT, "fragment", "IP fragment (fragments drop)") \
	X(UPCALL_FULL, "upcall_full", "upcall ring to the rules lcore full") \
	X(PENDING_FULL, "pending_full", "no room to wait for its connection's upcall") \
	X(NO_ROUTE, "no_route", "router mode: no route, or no neighbour entry, to the destination (ICMP unreachable sent)") \
	X(NOT_FORWARDED, "not_forwarded", "router mode: multicast, broadcast or IPv6 link-local destination (not forwarded)") \
	X(TTL_EXCEEDED, "ttl_exceeded", "router mode: TTL or hop limit expired (ICMP time exceeded sent)") \
	X(FRAG_NEEDED, "frag_needed", "router mode: over the egress MTU, DF set or IPv6 (ICMP sent)") \
	X(L3_ERROR, "l3_error", "router mode: headers beyond the first segment, or fragmenting failed") \
	X(VLAN_UNKNOWN, "vlan_unknown", "802.1Q tag of a VLAN the port has no sub-interface for")

/** Drop reasons (see DP_DROP_REASONS). */
enum dp_drop {
#define DP_DROP_ENUM(name, id, text) DP_DROP_##name,
	DP_DROP_REASONS(DP_DROP_ENUM)
#undef DP_DROP_ENUM
	DP_DROP__COUNT
};

/**
 * struct dp_meta::why of a frame for the neighbour module (ARP, ICMPv6
 * neighbour discovery; router mode), beside enum rule_upcall_reason.
 */
#define DP_UPCALL_NEIGH 0x80

/** What dp_rx_burst() does with IP fragments (struct dp_ctx::frag_mode). */
enum dp_frag_mode {
	DP_FRAG_UPCALL, /**< to the slow path (which reassembles them) */
	DP_FRAG_DROP,   /**< dropped: DP_DROP_FRAGMENT */
};

/** What dp_rx_burst() does with non-IP frames (struct dp_ctx::non_ip_mode). */
enum dp_nonip_mode {
	DP_NONIP_PASS, /**< to the input port's default channel (counted non_ip_pass) */
	DP_NONIP_DROP, /**< dropped: DP_DROP_NON_IP */
};

/* ------------------------------------------------------------------------ */
/* Marks                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * A mark names a flow entry: bits 0..22 the entry index, bit 23 the table
 * (IPv6), bits 24..31 a tag that changes each time that index is offloaded
 * (never 0, so a valid mark is never 0). The offload policy
 * (drivers/offload) keeps, per entry index, the tag of the one mark
 * currently valid in the entry's own cache line (the top byte of struct
 * fc_entry::seq, fc_table_mark_tag_set()): the slot and family need no
 * storing, they are which entry of which table the mark names. The RX path
 * accepts a marked packet only if that byte == the mark's tag: one load
 * from the line the packet reads its action from anyway, no key compare,
 * no other line. Why that is sound:
 * the policy withdraws the mark in the engine's on_remove callback, which
 * runs before the entry is deleted (and the table zeroes it when the entry
 * goes and when the slot is filled again); the entry's slot is reused only
 * after an RCU grace period, which waits for every RX lcore that might have
 * read the old word to report quiescence. A packet marked by a rule still
 * in the NIC (its destroy queued) carries the old tag and fails the check,
 * and so does a packet marked long ago in an RX ring when the index has
 * been offloaded again since.
 * NICs with 24-bit marks (mlx5 without extended metadata) refuse the probe's
 * 32-bit mark: the port then reports no OFL_CAP_MARK.
 */
#define DP_MARK_IDX_MASK 0x007fffffu
#define DP_MARK_V6 0x00800000u
#define DP_MARK_TAG_SHIFT 24

/** Build a mark. */
static inline uint32_t
dp_mark_make(unsigned int fam, uint32_t idx, uint8_t tag)
{
	return (idx & DP_MARK_IDX_MASK) | (fam ? DP_MARK_V6 : 0) |
		((uint32_t)tag << DP_MARK_TAG_SHIFT);
}

/**
 * The RX fast path's view of the marks: the first member of the offload
 * policy (ofl_policy_marks()). Set once by the policy; the marks themselves
 * live in the tables' entries (their tags, struct fc_entry::seq's top byte: written by the
 * control thread, release stores; read by RX lcores, acquire loads).
 */
struct dp_marks {
	const struct fc_table *tab[2]; /**< the IPv4 and IPv6 tables whose slots marks name */
	uint32_t cap[2];               /**< per table: indexes below it may carry a mark */
};

/** The tag of @p mark (what the entry keeps, fc_table_mark_tag()). */
static inline uint8_t
dp_mark_tag(uint32_t mark)
{
	return (uint8_t)(mark >> DP_MARK_TAG_SHIFT);
}

/**
 * The mark a NIC put on a packet, if any (RTE_MBUF_F_RX_FDIR_ID).
 * Context: any lcore.
 */
static inline bool
dp_mbuf_mark(const struct rte_mbuf *m, uint32_t *mark)
{
	if (likely(!(m->ol_flags & RTE_MBUF_F_RX_FDIR_ID)))
		return false;
	*mark = m->hash.fdir.hi;
	return true;
}

/**
 * The table (0: IPv4, 1: IPv6) and entry index a mark names, checked or not
 * (dp_mark_check() checks; the RX path also uses it to prefetch).
 * Context: any.
 */
static inline void
dp_mark_split(uint32_t mark, unsigned int *fam, uint32_t *idx)
{
	*fam = (mark & DP_MARK_V6) ? 1 : 0;
	*idx = mark & DP_MARK_IDX_MASK;
}

/**
 * Does @p mark name a live offloaded entry? On success gives the table
 * (0: IPv4, 1: IPv6) and entry index.
 * Context: RX lcore registered with the engine, between quiescent reports.
 */
static inline bool
dp_mark_check(const struct dp_marks *mk, uint32_t mark, unsigned int *fam, uint32_t *idx)
{
	unsigned int f;
	uint32_t i;

	dp_mark_split(mark, &f, &i);

	/* Tag 0 is never made: without this, mark 0 (or any tag-0 mark) would
	 * equal the 0 of a slot nobody offloaded. */
	if (unlikely(mk == NULL || dp_mark_tag(mark) == 0 || i >= mk->cap[f]))
		return false;
	if (fc_table_mark_tag(mk->tab[f], i) != dp_mark_tag(mark))
		return false;
	*fam = f;
	*idx = i;
	return true;
}

/**
 * The parse result of an upcalled packet, in the mbuf's private area: the
 * mempool's private size must be at least DP_MBUF_PRIV_SIZE. Written by
 * dp_rx_burst() before the upcall; the slow path reads it, may rewrite it
 * (a reassembled datagram, parsed again) and dp_upcall_burst() reads it.
 * A packet waiting behind its connection's upcall (dp_pending.h) keeps
 * its first pass's @c pkt and @c conn here for its second pass.
 */
struct dp_meta {
	struct fc_pkt pkt; /**< parsed, local bits and input port set (the slow path's
			        in_port: a reassembled datagram keeps its fragments') */
	uint8_t res;       /**< enum fc_parse_result: FC_PARSE_OK, a fragment, or
			        FC_PARSE_NOT_IP (an ARP frame, with DP_UPCALL_NEIGH) */
	uint8_t why;       /**< enum rule_upcall_reason, or DP_UPCALL_NEIGH */
	uint8_t pend;      /**< 1: the RX context counts this upcall pending under
			        @c conn; the slow path owes it a completion (dp_done_collect()) */
	uint8_t behind;    /**< 1: it went up only because an upcall of its connection
			        was in flight (counted upcall_pending): with struct
			        dp_ctx::up_fast, dp_upcall_burst() tries the fast path's
			        code on it first */
	uint64_t conn;     /**< with @c pend: the connection (dp_conn_hash()) */
};

/** Private area an mbuf pool needs for struct dp_meta. */
#define DP_MBUF_PRIV_SIZE RTE_ALIGN(sizeof(struct dp_meta), RTE_MBUF_PRIV_ALIGN)

/**
 * The meta data of mbuf @p m (its private area).
 * @param m  an mbuf of a pool with DP_MBUF_PRIV_SIZE private bytes
 * @return the meta data.
 * Context: any.
 */
static inline struct dp_meta *
dp_meta(struct rte_mbuf *m)
{
	return (struct dp_meta *)rte_mbuf_to_priv(m);
}

/* Pending connections: per-connection order across the slow path (dp_pending.h). */
#include "dp_pending.h"

/**
 * Counters of one context. Written by the context's thread only (plain
 * increments), read by anyone (dp_stats_add()); whole values on 64-bit.
 */
struct dp_stats {
	uint64_t rx;		  /**< packets given to dp_rx_burst() */
	uint64_t rx_bytes;	  /**< their bytes */
	uint64_t hits;		  /**< lookups that found an entry */
	uint64_t misses;	  /**< lookups that did not */
	uint64_t upcalls;	  /**< packets put on the upcall ring */
	uint64_t upcall_stale;	  /**< hits upcalled as stale */
	uint64_t upcall_interest; /**< hits upcalled for a module's interest */
	uint64_t upcall_per_packet; /**< hits upcalled: their entry decides each packet there */
	uint64_t upcall_class;	  /**< hits upcalled: header fields outside their entry's class */
	uint64_t ct_synack_fast;  /**< SYN/ACKs conntrack took on the fast path (mod_ct_fast_synack()) */
	uint64_t ct_ignored_fast; /**< TCP segments conntrack's window check passed as ignored
				       (MOD_CT_FAST_IGNORED): counted, no idle time renewed */
	uint64_t slow_pkts;	  /**< packets dp_upcall_burst() decided */
	uint64_t upcall_fast;	  /**< of them, packets behind their connection's upcall that
				       the fast path's code decided there (struct dp_ctx::up_fast),
				       not the engine */
	uint64_t fwd_pkts;	  /**< packets handed to chan_enqueue_burst() */
	uint64_t non_ip_pass;	  /**< non-IP frames to the default channel */
	uint64_t hw_classified;	  /**< marked packets that skipped parse and lookup */
	uint64_t hw_fallback;	  /**< marked packets the mark check sent on to software */
	uint64_t neigh_in;	  /**< router: ARP/ND frames handed to the neighbour module */
	uint64_t l3_slow;	  /**< router: hits sent to the slow path (next hop resolving,
				       TTL expiring, over the MTU) */
	uint64_t held;		  /**< router: packets handed to mod_neigh_hold() */
	uint64_t echo_replies;	  /**< router: echo requests to us answered (in place) */
	uint64_t local_in;	  /**< router: accepted local packets to the local channel */
	uint64_t icmp_errors;	  /**< router: ICMP errors sent (time exceeded, too big) */
	uint64_t icmp_suppressed; /**< router: ICMP errors not sent (rate limit, no source
				       address, no mbuf, or none allowed: RFC 1812 4.3.2.7) */
	uint64_t frag_datagrams;  /**< router: datagrams fragmented for the egress MTU */
	uint64_t frag_made;	  /**< router: fragments they became */
	uint64_t reject_replies;  /**< REJECT: ICMP errors and TCP resets sent */
	uint64_t reject_suppressed; /**< REJECT: replies not sent (rate limit, not allowed
				       about this packet, no mbuf, a kind of the other family) */
	uint64_t originated;	  /**< packets made here: ICMP errors (router's, REJECT's),
				       TCP resets, fragments beyond the first */
	uint64_t log_queued;	  /**< LOG/NFLOG records put on the log ring */
	uint64_t log_dropped;	  /**< LOG/NFLOG records lost: ring full, no mbuf, no ring
				       (the packet itself goes on) */
	uint64_t rewritten;	  /**< packets a rewrite target changed (TOS, DSCP, TTL, HL,
				       CHECKSUM, TCPMSS) */
	uint64_t rewrite_skipped; /**< rewrites not done: a chained packet without room for
				       its headers in its first segment, headers cut short,
				       a fragment, or not TCP/UDP for CHECKSUM */
	uint64_t drops[DP_DROP__COUNT];	       /**< by enum dp_drop */
	uint64_t rule_drops[RULE_DROP__COUNT]; /**< verdicts applied, by enum rule_drop */
	uint64_t parse_drops[FC_PARSE__COUNT]; /**< parse errors, by enum fc_parse_result */
	uint64_t upcall_pending;  /**< packets upcalled behind their connection's upcall */
	uint64_t upcall_uncounted; /**< upcalls no pending slot or FIFO entry counted (never
				        expected): their connection's later packets do not wait */
	uint64_t waited;	  /**< packets that waited for their connection's upcall */
	uint64_t waiting;	  /**< packets waiting now (a gauge) */
	uint64_t ll_held;	  /**< lossless: packets held back now (a gauge) */
	uint64_t up_rings;	  /**< upcall ring enqueues (upcalls / up_rings: upcalls per enqueue) */
	uint64_t up_stashed;	  /**< upcalls kept for the next ring enqueue now (a gauge;
				       struct dp_ctx::up_batch) */
	uint64_t ll_bursts;	  /**< lossless: times a ring was full and packets were held */
	uint64_t kept;		  /**< packets received and kept for the next poll now (a
				       gauge; struct dp_ctx::rx_ahead) */
	uint64_t kept_idle;	  /**< kept bursts a poll that received nothing applied
				       (dp_rx_flush()) rather than the next burst's */
	/** VLAN sub-interfaces (dp_vlan_rx()): packets received, per sub-interface's port. */
	uint64_t vlan_rx[DP_MAX_PORTS];
	/** Per port with sub-interfaces: tags of no sub-interface's VLAN (dropped). */
	uint64_t vlan_unknown[DP_MAX_PORTS];
};

/**
 * Packets a lossless context decided but could not hand on yet: for
 * channels (with their destinations) and for the upcall ring, each list in
 * the order the packets came. At most DP_BURST_MAX in all: a context holds
 * what one burst left over and takes no new burst until it is gone.
 */
struct dp_hold {
	uint16_t n_out;			    /**< packets in out[] / dest[] */
	uint16_t n_up;			    /**< packets in up[] */
	uint32_t dest[DP_BURST_MAX];	    /**< channel of each out[] */
	struct rte_mbuf *out[DP_BURST_MAX]; /**< for channels */
	struct rte_mbuf *up[DP_BURST_MAX];  /**< for the upcall ring */
};

/** The most upcalls a context keeps for one ring enqueue (struct dp_ctx::up_batch). */
#define DP_UPSTASH_MAX 32
/** Bursts after which a context's kept upcalls go on the ring, however few. */
#define DP_UPSTASH_BURSTS 4

/**
 * Upcalls a context keeps for its next ring enqueue (struct
 * dp_ctx::up_batch), oldest first, and what it knows of the ring's room.
 * The datapath's; read by no other thread (the gauge is st.up_stashed).
 */
struct dp_upstash {
	uint16_t n;	/**< upcalls in m[] */
	uint16_t bursts; /**< bursts since the oldest was kept */
	/**
	 * Free entries the ring had at its last read (an enqueue's free space
	 * or rte_ring_free_count()): the slow path only makes room, so what
	 * is free now is at least this; read again when it is not enough.
	 */
	uint32_t free;
	struct rte_mbuf *m[DP_UPSTASH_MAX];
};

/** The keys of one family in a received burst: which packets, their keys, their hashes. */
struct dp_rxfam {
	unsigned int n;                   /**< keys */
	unsigned int sel[DP_BURST_MAX];   /**< the packet (index in the burst) of each key */
	const void *keys[DP_BURST_MAX];   /**< the keys (in struct dp_rxprep::pkts) */
	uint32_t sigs[DP_BURST_MAX];      /**< their fc_table_hash() */
};

/**
 * A received burst after step 1 (parsed, local bits and input port set,
 * keys hashed, first buckets fetched), before steps 2-4; or, @c raw, only
 * fetched (step 0's marked packets among it: steps 0 and 1 run with the
 * rest). On the stack of dp_rx_burst(); a context's two (struct
 * dp_ctx::keep) for dp_rx_burst_ahead(). The datapath's.
 */
struct dp_rxprep {
	unsigned int n;        /**< packets (0: none kept) */
	uint16_t in_port;      /**< the port it came from */
	uint8_t raw;           /**< 1: steps 0 and 1 not done yet */
	uint32_t now;          /**< its poll's coarse time */
	uint64_t other;        /**< packets outside both families (fragments, non-IP,
				    ND, parse errors), decided with steps 2-4 */
	struct rte_mbuf **m;   /**< the packets (@c mst when kept) */
	struct dp_rxfam fam[2]; /**< IPv4, IPv6 */
	uint8_t res[DP_BURST_MAX];         /**< enum fc_parse_result of each */
	struct fc_pkt pkts[DP_BURST_MAX];  /**< each one parsed */
	struct rte_mbuf *mst[DP_BURST_MAX]; /**< a kept burst's packets */
};

/**
 * The slow path's ICMP error budget (router mode): a token bucket of
 * @c rate errors per second, at most @c burst at once. Set @c rate and
 * @c burst; the datapath keeps the rest.
 */
struct dp_icmp_limit {
	uint32_t rate;    /**< per second; 0: no ICMP errors at all (REJECT's included) */
	uint32_t burst;   /**< bucket size, errors */
	uint64_t tokens;  /**< milli-errors in the bucket */
	uint32_t last_ms; /**< time of the last refill */
};

/**
 * One datapath instance: what one producer (an RX lcore, or the rules
 * lcore applying decisions) works with, and its counters.
 *
 * Owner: the application, which fills the configuration fields before the
 * first burst (zero the whole struct first) and keeps what they point to
 * alive while bursts run. The datapath reads them and writes @c st only.
 * One thread at a time uses a context.
 */
struct dp_ctx {
	struct rule_engine *eng;    /**< decides upcalls; stale checks */
	struct fc_table *tab4;      /**< rule_engine_table(eng, FC_AF_INET4) */
	struct fc_table *tab6;      /**< rule_engine_table(eng, FC_AF_INET6) */
	const struct mod_nat *nat;  /**< NAT table (mod_nat_apply()), or NULL: no NAT */
	/**
	 * Conntrack's TCP window view (mod_ct_module_fast()), or NULL: every
	 * segment of an entry with FC_INTEREST_TCP_WIN goes to the slow path.
	 */
	struct mod_ct_fast *ct_fast;
	/** Conntrack module: its helpers' rewrites (mod_ct_module_mangle()), or NULL. */
	struct mod_ct_module *ct;
	const struct fc_locals *locals; /**< local addresses (the key's local bits) */
	struct chan_table *chans;   /**< where packets are delivered */
	const struct dp_marks *marks; /**< offload marks view, or NULL: step 0 off */
	/** Per input port: the channel of accepted packets with no channel and no route. */
	const uint16_t *def_chan;
	/** Per output port: its TX channel, or DP_CHAN_NONE (no such port). */
	const uint16_t *port_chan;
	struct rte_ring *upcall;    /**< SP enqueue ring to the slow path (dp_rx_burst()) */
	uint16_t reader_id;         /**< engine reader id (table lookups) */
	uint16_t producer_id;       /**< channel producer id (delivery) */
	uint8_t frag_mode;          /**< enum dp_frag_mode */
	uint8_t non_ip_mode;        /**< enum dp_nonip_mode */
	/**
	 * Hold back what a full upcall or channel ring did not take instead of
	 * dropping it (see dp_hold_retry()); the caller then feeds no burst
	 * while dp_held(). Channels use chan_enqueue_burst_hold().
	 */
	bool lossless;
	/**
	 * Not lossless: upcalls are kept on the context (struct dp_upstash)
	 * until this many are ready (at most DP_UPSTASH_MAX), or
	 * DP_UPSTASH_BURSTS bursts have passed since the oldest, or the caller
	 * calls dp_upcall_flush() (do so after a poll that received nothing):
	 * one ring enqueue for several bursts' upcalls, so the ring's lines
	 * (which the slow path's dequeues write) cross to this core once for
	 * them, and the slow path dequeues them in one burst. 0 or 1: each
	 * burst's upcalls go on the ring at its end. A stashed upcall is
	 * counted pending as any other: its connection's next packets wait
	 * behind it.
	 */
	uint8_t up_batch;
	/**
	 * RX contexts: upcalls in flight per connection (see struct
	 * dp_pending), or NULL: no per-connection order across the slow path.
	 * With it, @c done.
	 */
	struct dp_pending *pend;
	/** With @c pend: the slow path's completion counter for this context. */
	struct dp_done *done;
	/**
	 * With @c done: TSC cycles dp_done_poll() lets pass between two reads
	 * of the counter while no packet waits and the FIFO is under half
	 * full (0: it reads at every call). Each read after the slow path
	 * moved it brings its line over from the slow path's core: a few
	 * microseconds' completions read at once bring it once.
	 */
	uint64_t done_gap;
	uint64_t done_tsc; /**< the datapath's: its last read of @c done */
	/**
	 * With @c pend: packets behind an upcall of their connection wait on
	 * the context (true), or go up behind it (false: for an input that
	 * may block the context's thread, a file or a FIFO, where waiting
	 * packets would wait for the next packet to arrive).
	 */
	bool pend_wait;
	/**
	 * Slow path: a packet that went up behind its connection's upcall
	 * (dp_meta::behind) whose flow has an entry by then is decided by the
	 * fast path's code in its place among the burst's packets, as had it
	 * waited on the RX context; what that code would send up the engine
	 * decides. Counted upcall_fast. false: the engine decides every upcall.
	 */
	bool up_fast;
	uint8_t router;             /**< router mode (needs @c neigh), else bridge */
	/** Router: adjacencies (RX), ports, hold and input (slow path). */
	struct mod_neigh *neigh;
	uint16_t local_chan;        /**< router: accepted local traffic's channel */
	struct dp_icmp_limit icmp;  /**< router, slow path: ICMP errors budget */
	/** LOG/NFLOG records (struct dp_logrec mbufs), MP/SC; NULL: records are lost, counted */
	struct rte_ring *log_ring;
	struct rte_mempool *log_pool; /**< their mbufs (DP_LOG_PRIV_SIZE private bytes) */
	uint16_t port_mtu[DP_MAX_PORTS]; /**< TCPMSS --clamp-mss-to-pmtu: per port (0: 1500) */
	/**
	 * Slow path: DP_BURST_MAX * DP_FLAT_MAX bytes where dp_upcall_burst()
	 * copies a chained packet whole (a jumbo frame), so that the walks'
	 * string, u32 and bpf matches and the header view read the whole
	 * datagram; NULL: they read its first segment. The app's, written by
	 * the slow path only.
	 */
	uint8_t *flat;
	struct dp_stats st __rte_cache_aligned; /**< written by the datapath */
	struct dp_hold hold;        /**< lossless: what waits for room (datapath's) */
	/**
	 * Lossless slow path: completions of upcalls whose decisions the hold
	 * keeps, owed to the RX context's counter @c owed_to and posted when
	 * dp_hold_retry() has delivered them (dp_upcall_done()): until then
	 * their connections' next packets must not take the fast path.
	 */
	struct dp_done *owed_to;
	uint32_t owed;
	struct dp_upstash ups;      /**< @c up_batch: upcalls not on the ring yet (datapath's) */
	/**
	 * RX contexts on live ports, not lossless (the app's rx-ahead
	 * setting): dp_rx_burst_ahead() keeps each received burst, step 1
	 * done, until the next call (or dp_rx_flush()), and applies it then,
	 * after the next burst's step 1: its lookups find their buckets
	 * fetched. false: it is dp_rx_burst().
	 */
	bool rx_ahead;
	uint8_t keep_i;             /**< @c keep[keep_i]: the burst kept (its n 0: none) */
	struct dp_rxprep keep[2];   /**< rx_ahead: the kept burst, and the next one's room */
};

/**
 * A LOG or NFLOG record: a copy of the packet as the rule saw it (the
 * mbuf's data, at most the spec's snap length) with this in its private
 * area. Made by the datapath (dp_rx_burst(), dp_upcall_burst()) on the
 * context's log ring; the consumer (the application) frees the mbuf.
 */
struct dp_logrec {
	struct rule_logspec spec; /**< the rule's LOG / NFLOG options */
	uint64_t tsc;             /**< rte_rdtsc() when it was made */
	uint32_t wire_len;        /**< the packet's length (the copy may be shorter) */
	uint16_t in_port;         /**< input port */
	uint16_t out_port;        /**< the decision's output port, or a RULE_PORT_* marker */
	uint16_t l3_off;          /**< IP header offset in the copy */
	uint8_t key_flags;        /**< the key's FC_KEY_F_* local bits */
	uint32_t mark;            /**< the packet's mark when the rule ran (rule_pktop::mark) */
};

/** Private area the log ring's mbuf pool needs. */
#define DP_LOG_PRIV_SIZE RTE_ALIGN(sizeof(struct dp_logrec), RTE_MBUF_PRIV_ALIGN)

/**
 * The record of log mbuf @p m. @param m a log ring's mbuf @return it.
 * Context: any.
 */
static inline struct dp_logrec *
dp_logrec(struct rte_mbuf *m)
{
	return (struct dp_logrec *)rte_mbuf_to_priv(m);
}

/**
 * Packets a lossless context holds back (0 for any other).
 * @param c  the context
 * @return the number held.
 * Context: the context's thread.
 */
static inline unsigned int
dp_held(const struct dp_ctx *c)
{
	return (unsigned int)c->hold.n_out + c->hold.n_up;
}

/**
 * Offer what a lossless context holds to its channels and upcall ring
 * again, in order; what still does not fit stays held.
 *
 * @param c  the context
 * @return the number of packets still held (0: the context may take a
 *   burst again).
 * Context: the context's thread.
 */
unsigned int dp_hold_retry(struct dp_ctx *c);

/**
 * Put the upcalls a context keeps (struct dp_ctx::up_batch) on its upcall
 * ring now, in order; what the ring refuses is dropped (upcall_full) and
 * no longer counted pending, as at the end of a burst.
 *
 * @param c  the context
 * Context: the context's thread.
 */
void dp_upcall_flush(struct dp_ctx *c);

/**
 * Upcalls a context keeps for its next ring enqueue (0 without up_batch).
 * @param c  the context
 * @return the number kept.
 * Context: the context's thread.
 */
static inline unsigned int
dp_upcall_stashed(const struct dp_ctx *c)
{
	return c->ups.n;
}

/**
 * Channel for an accepted packet received on @p in_port: the flow's named
 * channel; else the TX channel of its routed port; else (no route, or to
 * this host) the input port's default channel.
 *
 * @param c         the context (its channel maps)
 * @param channel   the decision's channel (CHAN_ID_DEFAULT: none named)
 * @param out_port  the decision's output port (or a RULE_PORT_* marker)
 * @param in_port   the input port
 * @return the channel id.
 * Context: any.
 */
static inline uint32_t
dp_dest(const struct dp_ctx *c, uint32_t channel, uint16_t out_port, uint16_t in_port)
{
	if (channel != CHAN_ID_DEFAULT)
		return channel;
	if (out_port < DP_MAX_PORTS && c->port_chan[out_port] != DP_CHAN_NONE)
		return c->port_chan[out_port];
	return c->def_chan[in_port & (DP_MAX_PORTS - 1)];
}

/**
 * Run the fast path over one received burst (steps 0-4 above). The
 * datapath owns every mbuf afterwards: delivered, upcalled or freed (or,
 * lossless, held: see dp_hold_retry()). A lossless context must not be
 * given a burst while dp_held() is not 0.
 *
 * @param c        the context (a registered engine reader: @c reader_id)
 * @param in_port  the port the burst came from
 * @param m        the packets
 * @param n        how many, at most DP_BURST_MAX
 * @param now      coarse time (the engine's unit, ms), for fc_table_touch()
 * @return the number of packets handed to channels.
 * Context: the context's thread, a registered reader of the engine between
 *   two quiescent reports (rule_engine_quiescent()).
 */
unsigned int dp_rx_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m,
	unsigned int n, uint32_t now);

/**
 * dp_rx_burst() a poll late, for contexts with @c rx_ahead (else it is
 * dp_rx_burst()): step 1 of this burst (or, with marked packets among it,
 * their entry lines and frames fetched), then steps 2-4 of the burst the
 * last call kept, whose buckets that call's step 1 fetched; this burst is
 * kept in its place. Bursts are applied
 * in the order received, never overtaken: dp_rx_burst() applies a kept
 * burst first; dp_rx_reinject()'s packets (waiting since before it came)
 * go before it. A kept burst waits at most one poll: call dp_rx_flush()
 * at every poll that receives nothing, and before the context stops. Same
 * ownership and contract as dp_rx_burst(); not for lossless contexts, nor
 * for an input that may block (a file): a kept burst would wait on it.
 *
 * @param c        the context
 * @param in_port  the port the burst came from
 * @param m        the packets (copied: the array is the caller's again)
 * @param n        how many, at most DP_BURST_MAX; 0: as dp_rx_flush()
 * @param now      coarse time (ms)
 * @return the number of packets handed to channels (of the burst applied).
 * Context: as dp_rx_burst().
 */
unsigned int dp_rx_burst_ahead(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **m,
	unsigned int n, uint32_t now);

/**
 * Apply the burst dp_rx_burst_ahead() kept, if any (counted kept_idle).
 * @param c  the context
 * @return the number of packets handed to channels.
 * Context: as dp_rx_burst().
 */
unsigned int dp_rx_flush(struct dp_ctx *c);

/**
 * Packets @p c keeps for the next poll (dp_rx_burst_ahead()).
 * Context: the context's thread.
 */
static inline unsigned int
dp_rx_kept(const struct dp_ctx *c)
{
	return c->keep[c->keep_i].n;
}

/**
 * Deliver packets grouped by destination: one chan_enqueue_burst() per
 * distinct channel of @p dest, in order of first appearance, the packets
 * of each in their order. Counted in fwd_pkts; what a channel drops is
 * counted by the channel (enum chan_drop). A lossless context offers them
 * with chan_enqueue_burst_hold() and holds what a channel did not take
 * (counted in fwd_pkts once taken).
 *
 * @param c     the context (its channel table and producer id)
 * @param m     the packets
 * @param dest  their channels
 * @param n     how many, at most DP_BURST_MAX
 * @return the number the channels took (enqueued, or sent by direct TX).
 * Context: the context's thread.
 */
unsigned int dp_deliver_burst(struct dp_ctx *c, struct rte_mbuf **m, const uint32_t *dest,
	unsigned int n);

/**
 * Add one context's counters to a sum.
 * @param sum  the sum (zero it before the first call)
 * @param s    a context's counters (read while they move: each value whole)
 * Context: any.
 */
void dp_stats_add(struct dp_stats *sum, const struct dp_stats *s);

#ifdef __cplusplus
}
#endif

/* The slow path's side: deciding upcalls, posting completions (dp_upcall.h). */
#include "dp_upcall.h"

/* VLAN sub-interfaces on RX (dp_vlan.h). */
#include "dp_vlan.h"

/* The RX side of pending connections: completions read, waiting packets run (dp_wait.h). */
#include "dp_wait.h"

#endif /* GUFC_DATAPATH_H */
