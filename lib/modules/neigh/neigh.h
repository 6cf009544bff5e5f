/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/neigh — a router's neighbours (prefix mod_neigh_): the
 * ports' own addresses, ARP (RFC 826) and IPv6 neighbour discovery
 * (RFC 4861), the neighbour table and the adjacencies the fast path
 * rewrites Ethernet headers from.
 *
 * Three parts:
 *
 *  - Frames (mod_neigh_parse(), mod_neigh_build_*(); pure C, no EAL: also
 *    built for the sanitizer runs and fuzzed): ARP requests and replies,
 *    neighbour solicitations and advertisements, read and written on flat
 *    buffers, checksums included.
 *
 *  - Ports: the MAC, MTU and addresses of each router port
 *    (mod_neigh_port_set(), mod_neigh_port_addr_add()). The module answers
 *    ARP requests and neighbour solicitations for the addresses of the port
 *    they arrive on (solicited-node multicast included) and announces them
 *    (gratuitous ARP, unsolicited neighbour advertisement) once, at the next
 *    mod_neigh_step() after they are added.
 *
 *  - Neighbours and adjacencies, as VPP has them: a neighbour is a next hop
 *    (port, family, address) with a state (incomplete, reachable, stale,
 *    probe, failed) and a MAC; its adjacency is the small read-mostly record
 *    the fast path rewrites a routed packet with (the next hop's MAC, the
 *    port's MAC, the port's MTU, valid or not), updated in place under a
 *    sequence count when the neighbour's MAC or the port's MTU changes: every
 *    cached flow naming the adjacency (fc_action::adj, its index) follows at
 *    once, with no walk over the flows. mod_neigh_adj_get() finds or makes
 *    the neighbour of a next hop (a new one starts resolving: ARP request or
 *    solicitation, retried with exponential backoff) and takes a reference
 *    on its adjacency for the flow entry that caches it; mod_neigh_adj_put()
 *    gives it back. A packet whose adjacency is not valid is handed to
 *    mod_neigh_hold(): it waits in a bounded queue per neighbour and leaves,
 *    in order, once the neighbour answers (dropped and counted when the
 *    queue is full or resolution fails). Learning follows Linux: a request
 *    for one of the port's addresses creates or refreshes its sender
 *    (stale), any ARP or advertisement updates a known neighbour (a changed
 *    MAC is taken: gratuitous ARP), a reply or solicited advertisement
 *    confirms it (reachable); reachable turns stale after reachable_ms, a
 *    referenced stale neighbour is probed (unicast) and fails after
 *    @c probes unanswered probes (its adjacency goes invalid: the next
 *    packet resolves it afresh); an unreferenced one goes after gc_ms idle.
 *
 * Where it sits: above lib/flowcache (family constants) and lib/engine
 * (rule_engine_defer() for grace periods before a neighbour's adjacency
 * index is reused); used by lib/modules/route (through the app's
 * callbacks), lib/datapath (adjacency reads, hold, input) and the app,
 * which gives it a mempool for the frames it makes and a callback that
 * sends them on a port (a TX channel).
 *
 * Threads: the module is the rules lcore's (every function below except
 * the frame codec, mod_neigh_adj_read(), which RX lcores call lock-free
 * between quiescent reports of the engine's readers, and
 * mod_neigh_stats_get(), which anyone may call). Adjacency records live in
 * one array (DPDK memory) indexed 1..max_neigh (0: none); a record is
 * written by the rules lcore only, under its sequence count (even: stable,
 * odd: being written), and its index is reused only after a grace period
 * of the engine's readers once nothing references it.
 */
#ifndef GUFC_NEIGH_H
#define GUFC_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;
struct rule_engine;
struct mod_neigh;

/* ------------------------------------------------------------------------ */
/* Frames (pure C)                                                           */
/* ------------------------------------------------------------------------ */

/** Ethertypes and sizes of the frames. */
#define MOD_NEIGH_ETH_ARP 0x0806
#define MOD_NEIGH_ETH_IPV6 0x86dd
#define MOD_NEIGH_ARP_LEN 60  /**< an ARP frame, padded to Ethernet's minimum */
#define MOD_NEIGH_ND_LEN 86   /**< NS or NA with one link-layer address option */
#define MOD_NEIGH_FRAME_MAX 96 /**< room any built frame fits in */

/** Kinds of message (struct mod_neigh_msg::kind). */
enum mod_neigh_msg_kind {
	MOD_NEIGH_MSG_ARP_REQUEST, /**< ARP request (a gratuitous one: sender == target) */
	MOD_NEIGH_MSG_ARP_REPLY,
	MOD_NEIGH_MSG_NS,          /**< neighbour solicitation (ICMPv6 135) */
	MOD_NEIGH_MSG_NA,          /**< neighbour advertisement (ICMPv6 136) */
	MOD_NEIGH_MSG_ND_OTHER,    /**< router solicitation/advertisement, redirect (133, 134, 137) */
};

/** Neighbour advertisement flags (struct mod_neigh_msg::flags). */
#define MOD_NEIGH_NA_ROUTER 0x80
#define MOD_NEIGH_NA_SOLICITED 0x40
#define MOD_NEIGH_NA_OVERRIDE 0x20

/** One ARP or ND message as mod_neigh_parse() reads it. Addresses in network order. */
struct mod_neigh_msg {
	uint8_t kind;       /**< enum mod_neigh_msg_kind */
	uint8_t family;     /**< FC_AF_INET4 (ARP) or FC_AF_INET6 (ND) */
	uint8_t flags;      /**< NA: MOD_NEIGH_NA_* */
	bool has_lladdr;    /**< @c lladdr is set: ARP's sender, NS's source or NA's
			         target link-layer address option */
	uint8_t eth_dst[6];
	uint8_t eth_src[6];
	uint8_t lladdr[6];  /**< see @c has_lladdr */
	uint8_t src[16];    /**< ARP: sender protocol address; ND: IPv6 source */
	uint8_t dst[16];    /**< ARP: target protocol address; ND: IPv6 destination */
	uint8_t target[16]; /**< ARP: target protocol address; NS, NA: the target */
};

/**
 * Parse an untagged Ethernet frame holding an ARP message (Ethernet and
 * IPv4) or an ICMPv6 neighbour discovery message (hop limit 255, code 0,
 * checksum verified, options walked: a zero-length option or one past the
 * end is malformed).
 * @param frame  the frame from its Ethernet header
 * @param len    bytes at @p frame
 * @param m      receives the message
 * @return 0; -ENOTSUP (neither ARP nor ICMPv6 neighbour discovery),
 *   -EINVAL (malformed).
 * Context: any; pure code.
 */
int mod_neigh_parse(const uint8_t *frame, uint32_t len, struct mod_neigh_msg *m);

/**
 * Write an ARP frame (MOD_NEIGH_ARP_LEN bytes, zero padded).
 * @param buf      at least MOD_NEIGH_ARP_LEN bytes
 * @param op       1 request, 2 reply
 * @param eth_dst  Ethernet destination
 * @param sha      sender hardware address (also the Ethernet source)
 * @param spa      sender protocol address (4 bytes)
 * @param tha      target hardware address (zeros in a request)
 * @param tpa      target protocol address (4 bytes)
 * @return MOD_NEIGH_ARP_LEN.
 * Context: any; pure code.
 */
unsigned int mod_neigh_build_arp(uint8_t *buf, uint16_t op, const uint8_t eth_dst[6],
	const uint8_t sha[6], const uint8_t spa[4], const uint8_t tha[6], const uint8_t tpa[4]);

/**
 * Write a neighbour solicitation for @p target with a source link-layer
 * address option: to its solicited-node multicast address (and MAC), or
 * with @p unicast (a probe) to @p target at that MAC.
 * @param buf      at least MOD_NEIGH_ND_LEN bytes
 * @param eth_src  the port's MAC (also the option's address)
 * @param src      the IPv6 source (one of the port's addresses)
 * @param target   the address to resolve
 * @param unicast  the neighbour's MAC for a probe, or NULL
 * @return MOD_NEIGH_ND_LEN.
 * Context: any; pure code.
 */
unsigned int mod_neigh_build_ns(uint8_t *buf, const uint8_t eth_src[6], const uint8_t src[16],
	const uint8_t target[16], const uint8_t *unicast);

/**
 * Write a neighbour advertisement for @p target (its source) with a target
 * link-layer address option.
 * @param buf      at least MOD_NEIGH_ND_LEN bytes
 * @param eth_src  the port's MAC (also the option's address)
 * @param eth_dst  Ethernet destination
 * @param target   the advertised address
 * @param dst      IPv6 destination (the solicitor, or ff02::1)
 * @param flags    MOD_NEIGH_NA_*
 * @return MOD_NEIGH_ND_LEN.
 * Context: any; pure code.
 */
unsigned int mod_neigh_build_na(uint8_t *buf, const uint8_t eth_src[6], const uint8_t eth_dst[6],
	const uint8_t target[16], const uint8_t dst[16], uint8_t flags);

/* ------------------------------------------------------------------------ */
/* Adjacencies (the fast path's part)                                        */
/* ------------------------------------------------------------------------ */

/**
 * One adjacency: how a packet routed to a neighbour leaves. 32 bytes, two
 * per cache line. Written by the rules lcore under @c seq; read by anyone
 * with mod_neigh_adj_read().
 */
struct mod_neigh_adj {
	uint32_t seq;       /**< even: stable; odd: being written */
	uint8_t valid;      /**< the next hop's MAC is known: rewrite and send */
	uint8_t family;     /**< the next hop's */
	uint16_t port;      /**< output port */
	uint16_t mtu;       /**< the port's MTU (IP datagram bytes) */
	uint8_t dst[6];     /**< the next hop's MAC */
	uint8_t src[6];     /**< the port's MAC */
	uint8_t pad[10];
};

/** The fast path's view of the module: the first member of struct mod_neigh. */
struct mod_neigh_view {
	const struct mod_neigh_adj *adj; /**< indexes 1 .. n_adj - 1 (0: none) */
	uint32_t n_adj;
};

/**
 * Copy adjacency @p idx consistently.
 * @param n    the module
 * @param idx  an adjacency index (fc_action::adj)
 * @param out  receives the copy
 * @return false for index 0, out of range, or a record being written (take
 *   the slow path).
 * Context: any lcore (RX lcores: between the engine's quiescent reports).
 */
static inline bool
mod_neigh_adj_read(const struct mod_neigh *n, uint16_t idx, struct mod_neigh_adj *out)
{
	const struct mod_neigh_view *v = (const struct mod_neigh_view *)(const void *)n;
	const struct mod_neigh_adj *a;
	uint32_t s1, s2;

	if (unlikely(idx == 0 || idx >= v->n_adj))
		return false;
	a = &v->adj[idx];
	s1 = __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE);
	if (unlikely(s1 & 1))
		return false;
	*out = *a;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&a->seq, __ATOMIC_RELAXED);
	return likely(s1 == s2);
}

/* ------------------------------------------------------------------------ */
/* The module                                                                */
/* ------------------------------------------------------------------------ */

/**
 * Why the module drops a packet: X(NAME, "id", "text"), the module's part
 * of the application's drop registry (counted in mod_neigh_stats::drops).
 */
#define MOD_NEIGH_DROP_REASONS(X) \
	X(NEIGH_QUEUE_FULL, "neigh_queue_full", "router: the queue of a next hop being resolved was full") \
	X(NEIGH_FAILED, "neigh_failed", "router: the next hop did not answer ARP/ND (or not before exit)") \
	X(NEIGH_INVALID, "neigh_invalid", "router: malformed ARP or neighbour discovery frame")

/** Drop reasons (see MOD_NEIGH_DROP_REASONS). */
enum mod_neigh_drop {
#define MOD_NEIGH_DROP_ENUM(name, id, text) MOD_NEIGH_DROP_##name,
	MOD_NEIGH_DROP_REASONS(MOD_NEIGH_DROP_ENUM)
#undef MOD_NEIGH_DROP_ENUM
	MOD_NEIGH_DROP__COUNT
};

/** Neighbour states. */
enum mod_neigh_state {
	MOD_NEIGH_INCOMPLETE, /**< resolving: requests sent, no MAC yet */
	MOD_NEIGH_REACHABLE,  /**< confirmed within reachable_ms */
	MOD_NEIGH_STALE,      /**< MAC known, not confirmed lately (still used) */
	MOD_NEIGH_PROBE,      /**< stale and referenced: unicast probes sent */
	MOD_NEIGH_FAILED,     /**< no answer: the adjacency is invalid */
	MOD_NEIGH_STATE__COUNT
};

/** Most addresses per port. */
#define MOD_NEIGH_PORT_ADDRS 8
/** Ports 0 .. MOD_NEIGH_MAX_PORTS - 1. */
#define MOD_NEIGH_MAX_PORTS 32
/** Most neighbours (adjacency indexes are 16-bit, 0 is none). */
#define MOD_NEIGH_MAX 65534

/**
 * Send @p n frames on port @p port (a TX channel). The callee owns them
 * from now on, whether it takes them or counts them dropped.
 */
typedef void (*mod_neigh_send_fn)(void *arg, uint16_t port, struct rte_mbuf **m, unsigned int n);

/** Module parameters. Zero means "default" where one is given. */
/**
 * A packet that waited for a next hop that did not answer (resolution
 * failed): the callee owns @p m (e.g. answers it with an ICMP host
 * unreachable and frees it). It is counted neigh_failed either way.
 */
typedef void (*mod_neigh_unreach_fn)(void *arg, struct rte_mbuf *m);

struct mod_neigh_params {
	uint32_t max_neigh;    /**< neighbours, 1..MOD_NEIGH_MAX; 0 = 1024 */
	uint32_t queue_len;    /**< packets held per unresolved neighbour, 1..1024; 0 = 16 */
	uint32_t reachable_ms; /**< reachable -> stale; 0 = 30000 */
	uint32_t retrans_ms;   /**< first retry of a request or probe (doubles each try); 0 = 1000 */
	uint32_t probes;       /**< requests (or probes) before failing, 1..10; 0 = 3 */
	uint32_t gc_ms;        /**< an unreferenced neighbour idle this long goes; 0 = 60000 */
	struct rte_mempool *pool;  /**< mbufs of the frames the module makes */
	mod_neigh_send_fn send_fn; /**< how frames (and released packets) leave */
	void *send_arg;            /**< its first argument (and unreach_fn's) */
	mod_neigh_unreach_fn unreach_fn; /**< packets whose next hop failed; NULL: freed */
	struct rule_engine *eng;   /**< grace periods before an index is reused
				        (rule_engine_defer()); NULL: reused at once (no readers) */
	int socket_id;             /**< NUMA socket of the adjacency array */
};

/** What a port is to the module. */
struct mod_neigh_port_info {
	bool on;           /**< configured (mod_neigh_port_set()) */
	uint8_t mac[6];
	uint16_t mtu;
	unsigned int n_addr;
	struct {
		uint8_t family; /**< FC_AF_INET4 or FC_AF_INET6 */
		uint8_t depth;  /**< the connected prefix's length */
		uint8_t addr[16];
	} addr[MOD_NEIGH_PORT_ADDRS];
};

/** One neighbour, for listings (mod_neigh_next()). */
struct mod_neigh_info {
	uint16_t adj;       /**< its adjacency index */
	uint16_t port;
	uint8_t family;
	uint8_t state;      /**< enum mod_neigh_state */
	uint8_t probes;     /**< requests or probes sent in this state */
	bool valid;         /**< the adjacency is valid */
	uint8_t addr[16];
	uint8_t mac[6];     /**< when known */
	uint32_t refs;      /**< flow entries naming the adjacency */
	uint32_t queued;    /**< packets waiting */
	uint32_t age_ms;    /**< since the last confirmation or change */
};

/** Counters of the module. */
struct mod_neigh_stats {
	uint64_t consumed;     /**< ARP/ND frames taken in (answered, learned from, ignored) */
	uint64_t arp_req_in, arp_rep_in, ns_in, na_in, nd_other_in;
	uint64_t originated;   /**< frames made: the sum of the next five */
	uint64_t arp_req_out, arp_rep_out, ns_out, na_out, announce_out;
	uint64_t nombuf;       /**< frames not made for want of an mbuf */
	uint64_t resolved;     /**< neighbours that got their first MAC */
	uint64_t failed;       /**< resolutions or probes that got no answer */
	uint64_t mac_changes;  /**< known neighbours whose MAC changed (adjacency rewritten) */
	uint64_t held;         /**< packets queued for a neighbour */
	uint64_t released;     /**< queued packets sent once it answered */
	uint64_t table_full;   /**< next hops that got no neighbour entry */
	uint64_t created, freed;
	uint64_t drops[MOD_NEIGH_DROP__COUNT]; /**< by enum mod_neigh_drop */
	uint32_t entries;      /**< neighbours now */
	uint32_t queued;       /**< packets waiting now */
};

/**
 * Create the module (its neighbour table and adjacency array).
 * @param p  parameters (pool and send_fn are required)
 * @return the module, or NULL with rte_errno EINVAL (bad parameter) or ENOMEM.
 * Context: main lcore.
 */
struct mod_neigh *mod_neigh_create(const struct mod_neigh_params *p);

/**
 * Free the module; packets still held are freed (counted neigh_failed).
 * @param n  the module; NULL is accepted
 * Context: main lcore, no reader left (after rule_engine_free()).
 */
void mod_neigh_free(struct mod_neigh *n);

/**
 * Configure a port (or change its MTU: the port's adjacencies follow).
 * @param n     the module
 * @param port  port id, < MOD_NEIGH_MAX_PORTS
 * @param mac   its MAC
 * @param mtu   its MTU, 68..65535 (IPv6 next hops need 1280)
 * @return 0, -EINVAL.
 * Context: rules lcore (before traffic: main lcore).
 */
int mod_neigh_port_set(struct mod_neigh *n, uint16_t port, const uint8_t mac[6], uint16_t mtu);

/**
 * Give a port an address (where it answers ARP/ND; announced at the next
 * mod_neigh_step()).
 * @param n       the module
 * @param port    a configured port
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    4 or 16 bytes, network order, a host address
 * @param depth   its connected prefix length (1..32, 1..128)
 * @return 0, -EINVAL, -ENODEV (port not configured), -EEXIST (the port has
 *   it), -ENOSPC (MOD_NEIGH_PORT_ADDRS).
 * Context: rules lcore (before traffic: main lcore).
 */
int mod_neigh_port_addr_add(struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *addr, uint8_t depth);

/**
 * Take an address from a port.
 * @param n       the module
 * @param port    the port
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    the address
 * @return 0, -EINVAL, -ENOENT (the port does not have it).
 * Context: rules lcore.
 */
int mod_neigh_port_addr_del(struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *addr);

/**
 * A port as configured.
 * @param n     the module
 * @param port  port id
 * @return the record (read-only, valid until the port changes), or NULL
 *   (NULL module, port out of range).
 * Context: rules lcore, or control for display (fields may change underneath).
 */
const struct mod_neigh_port_info *mod_neigh_port(const struct mod_neigh *n, uint16_t port);

/**
 * The address a port sends from towards @p dst: the first of its addresses
 * of the family whose prefix holds @p dst, else its first of the family.
 * @param n       the module
 * @param port    the port
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param dst     the destination (4 or 16 bytes), or NULL: the first address
 * @param src     receives the address
 * @return 0, -EINVAL, -ENOENT (no address of the family).
 * Context: rules lcore.
 */
int mod_neigh_port_source(const struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *dst, uint8_t *src);

/**
 * Find or make the neighbour @p addr on @p port and take a reference on its
 * adjacency (for one flow entry). A new neighbour starts resolving at once.
 * @param n       the module
 * @param port    a configured port
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param addr    the next hop (4 or 16 bytes)
 * @param now     time, ms
 * @return the adjacency index (1..), or 0: bad argument, port not
 *   configured, or no free entry (counted table_full).
 * Context: rules lcore.
 */
uint16_t mod_neigh_adj_get(struct mod_neigh *n, uint16_t port, uint8_t family,
	const uint8_t *addr, uint32_t now);

/**
 * Give back a reference taken with mod_neigh_adj_get().
 * @param n    the module
 * @param adj  the adjacency index (0 is ignored)
 * Context: rules lcore.
 */
void mod_neigh_adj_put(struct mod_neigh *n, uint16_t adj);

/**
 * Queue a routed packet (NAT and TTL done, Ethernet header to be written)
 * for adjacency @p adj until its neighbour answers; a failed neighbour
 * starts resolving again. A valid adjacency sends it at once. The module
 * owns @p m afterwards: held, sent, or freed and counted
 * (neigh_queue_full, neigh_failed for a neighbour that went).
 * @param n    the module
 * @param adj  the adjacency index
 * @param m    the packet
 * @param now  time, ms
 * @return 0 (held or sent), -ENOSPC (queue full: dropped), -ENOENT (no such
 *   neighbour: dropped).
 * Context: rules lcore.
 */
int mod_neigh_hold(struct mod_neigh *n, uint16_t adj, struct rte_mbuf *m, uint32_t now);

/**
 * Take an ARP or neighbour discovery frame received on @p port: answer it,
 * learn from it, release what waited for the neighbour it resolves. The
 * module owns @p m afterwards (consumed, or dropped as neigh_invalid).
 * @param n     the module
 * @param m     the frame (untagged, from its Ethernet header)
 * @param port  the input port
 * @param now   time, ms
 * @return 0 (consumed), -EINVAL (malformed: dropped and counted).
 * Context: rules lcore.
 */
int mod_neigh_input(struct mod_neigh *n, struct rte_mbuf *m, uint16_t port, uint32_t now);

/**
 * Timers: announcements of new addresses, retries with backoff, reachable
 * -> stale, probes, failures, and removal of idle unreferenced neighbours;
 * at most @p budget neighbours looked at.
 * @param n       the module
 * @param now     time, ms
 * @param budget  work bound
 * @return neighbours looked at, plus frames sent.
 * Context: rules lcore.
 */
unsigned int mod_neigh_step(struct mod_neigh *n, uint32_t now, unsigned int budget);

/**
 * Drop every held packet (exit), counted neigh_failed.
 * @param n  the module
 * @return packets dropped.
 * Context: rules lcore.
 */
unsigned int mod_neigh_flush(struct mod_neigh *n);

/**
 * Walk the neighbours: start with *it = 0, call until -ENOENT.
 * @param n     the module
 * @param it    iterator state
 * @param now   time, ms (for ages)
 * @param info  receives one neighbour
 * @return 0, -ENOENT (end), -EINVAL.
 * Context: rules lcore.
 */
int mod_neigh_next(const struct mod_neigh *n, uint32_t *it, uint32_t now,
	struct mod_neigh_info *info);

/**
 * Name of a state ("incomplete", "reachable", "stale", "probe", "failed").
 * @param state  enum mod_neigh_state
 * @return a static string, "?" out of range.
 * Context: any.
 */
const char *mod_neigh_state_name(unsigned int state);

/**
 * Write the neighbours, one per line: port, address, MAC, state, age,
 * references, queued packets, adjacency.
 * @param n    the module
 * @param f    destination
 * @param now  time, ms
 * @return neighbours written, -EINVAL, -EIO.
 * Context: rules lcore.
 */
int mod_neigh_dump(const struct mod_neigh *n, FILE *f, uint32_t now);

/**
 * Read the counters.
 * @param n   the module (NULL: zeros)
 * @param st  receives them
 * Context: any (values may be slightly stale).
 */
void mod_neigh_stats_get(const struct mod_neigh *n, struct mod_neigh_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_NEIGH_H */
