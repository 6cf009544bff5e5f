/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gen.h — the core of gufc-gen, the traffic generator behind the
 * demo, the tests and the benchmarks.
 *
 * Two steps: gen_create() plans the flows (kinds, families, VLAN tags,
 * endpoints, popularity, packet counts) from a seeded RNG, then gen_run()
 * plays them out in time order and hands every frame to a callback (the tool
 * writes a pcap, the unit test checks each frame against the parser). Same
 * parameters and seed, same frames, byte for byte. gen_opts_parse() turns a
 * command line into parameters. Pure C: no EAL, no DPDK, no libpcap; frames
 * are built with tests/unit/flowcache/pkt_build.
 */
#ifndef GUFC_GEN_H
#define GUFC_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flow kinds, the --mix keys. */
enum gen_kind {
	GEN_KIND_TCP,  /**< handshake, data both ways, FIN or RST close */
	GEN_KIND_UDP,  /**< request/response datagrams, maybe fragmented */
	GEN_KIND_ICMP, /**< echo request/reply (ICMPv6 echo over IPv6) */
	GEN_KIND__COUNT
};

/** How a TCP flow ends (struct gen_flow::close). */
enum gen_close {
	GEN_CLOSE_NONE,	      /**< not TCP */
	GEN_CLOSE_FIN_CLIENT, /**< client FIN/ACK, server FIN/ACK, client ACK */
	GEN_CLOSE_FIN_SERVER, /**< the same, started by the server */
	GEN_CLOSE_RST_CLIENT, /**< client RST/ACK */
	GEN_CLOSE_RST_SERVER, /**< server RST/ACK */
};

/** Direction of a packet: client to server, or the reply direction. */
#define GEN_DIR_FWD 0
#define GEN_DIR_REV 1

/** Fragment kind of a frame (struct gen_pkt::frag). */
#define GEN_FRAG_NONE  0
#define GEN_FRAG_FIRST 1
#define GEN_FRAG_LATER 2

/** Most server ports in --dport-set. */
#define GEN_MAX_DPORTS 64
/** Most flows. */
#define GEN_MAX_FLOWS (1u << 24)
/** Largest payload (--size); fragmented datagrams stay below 64 KiB. */
#define GEN_MAX_SIZE 65000
/** MTU bounds (IP packet bytes). */
#define GEN_MTU_MIN 68
#define GEN_MTU_MAX 9216
/** Frame length in --bench mode. */
#define GEN_BENCH_FRAME 64
/** Largest --rtt, us (10 s). */
#define GEN_MAX_RTT 10000000u
/** Timestamp of the first possible packet: 2024-01-01T00:00:00Z, in us. */
#define GEN_EPOCH_US 1704067200000000ull

/** An address pool: a prefix of either family. */
struct gen_prefix {
	uint8_t family;	  /**< 4 or 6 */
	uint8_t len;	  /**< prefix length */
	uint8_t addr[16]; /**< network order; IPv4 in the first 4 bytes */
};

/**
 * Generator parameters. gen_params_default() fills the defaults; the
 * command line (gen_opts_parse()) overrides them. Percentages are shares of
 * flows in [0, 100]; counts are exact (rounded to the nearest flow).
 */
struct gen_params {
	uint32_t flows;			 /**< -n: number of flows */
	uint64_t packets;		 /**< -p: data packets in all (0: 10 per flow) */
	uint32_t mix[GEN_KIND__COUNT];	 /**< --mix: relative weights of the kinds */
	double ipv6_pct;		 /**< --ipv6: flows over IPv6 */
	double vlan_pct;		 /**< --vlan: flows with one 802.1Q tag */
	double qinq_pct;		 /**< --qinq: flows with 802.1ad + 802.1Q tags */
	double frag_pct;		 /**< --frag: UDP flows with fragmented datagrams */
	double rst_pct;			 /**< --rst: TCP flows closed by RST */
	double zipf;			 /**< --zipf: exponent, 0 = uniform popularity */
	uint64_t seed;			 /**< --seed */
	uint32_t size_min;		 /**< --size: payload bytes, lower bound */
	uint32_t size_max;		 /**< --size: upper bound (inclusive) */
	struct gen_prefix src4;		 /**< --src: client IPv4 pool */
	struct gen_prefix dst4;		 /**< --dst: server IPv4 pool */
	struct gen_prefix src6;		 /**< --src6: client IPv6 pool */
	struct gen_prefix dst6;		 /**< --dst6: server IPv6 pool */
	uint16_t dports[GEN_MAX_DPORTS]; /**< --dport-set; empty: per-kind defaults */
	uint32_t n_dports;
	bool no_replies;  /**< --no-replies: client-to-server packets only */
	uint32_t mtu;	  /**< --mtu: largest IP packet */
	uint32_t rtt_min; /**< --rtt: each flow's round trip, us, lower bound */
	uint32_t rtt_max; /**< --rtt: upper bound (inclusive) */
	bool rtt_kept;	  /**< --rtt given: every flow keeps a round trip of the range
			   *   (otherwise busy flows get shorter ones to fit the span) */
	bool bench;	  /**< --bench: 64-byte frames, rounds, no handshakes */
};

/**
 * One planned flow. Written by gen_create() (plan) and gen_run() (the
 * counters at the end); read by callers through gen_flow().
 */
struct gen_flow {
	uint8_t src[16];  /**< client address, network order (IPv4: first 4 bytes) */
	uint8_t dst[16];  /**< server address */
	uint16_t sport;	  /**< client port; ICMP: the echo identifier */
	uint16_t dport;	  /**< server port; ICMP: the echo identifier */
	uint8_t family;	  /**< 4 or 6 */
	uint8_t proto;	  /**< IP protocol: 6, 17, 1 or 58 */
	uint8_t kind;	  /**< enum gen_kind */
	uint8_t close;	  /**< enum gen_close */
	uint8_t n_vlan;	  /**< 0, 1 (802.1Q) or 2 (802.1ad outer, 802.1Q inner) */
	uint8_t frag;	  /**< 1: every datagram exceeds the MTU and is fragmented */
	uint16_t vlan[2]; /**< VLAN ids, outer first */
	uint32_t rank;	  /**< popularity rank, 1 = most popular */
	uint32_t data;	  /**< data packets: requests and replies (datagrams, not fragments) */
	uint32_t frames;  /**< frames emitted by the last gen_run() */
	uint64_t bytes;	  /**< frame bytes emitted by the last gen_run() */
};

/** What gen_run() tells the callback about each frame. */
struct gen_pkt {
	uint64_t ts_us;	   /**< time stamp, us since the Unix epoch, strictly increasing */
	uint32_t flow;	   /**< flow index */
	uint8_t dir;	   /**< GEN_DIR_FWD or GEN_DIR_REV */
	uint8_t tcp_flags; /**< TCP flags, 0 for other protocols */
	uint8_t frag;	   /**< GEN_FRAG_* */
	uint8_t data;	   /**< 1 on a data packet (on every fragment of a data datagram) */
	uint32_t payload;  /**< L4 payload bytes of the packet (of the whole datagram if fragmented)
			    */
	uint32_t frag_id;  /**< fragments: the IPv4/IPv6 identification */
	uint32_t dgram;	   /**< fragments: bytes of the whole datagram past the IP header(s) */
};

/** Totals of one run. */
struct gen_stats {
	uint64_t frames;    /**< frames emitted */
	uint64_t bytes;	    /**< frame bytes */
	uint64_t data;	    /**< data packets (datagrams) */
	uint64_t control;   /**< TCP handshake and close packets */
	uint64_t fragments; /**< frames that are fragments */
	uint64_t first_us;  /**< first time stamp */
	uint64_t last_us;   /**< last time stamp */
	uint32_t flows[GEN_KIND__COUNT];
	uint32_t flows_v6;   /**< flows over IPv6 */
	uint32_t flows_vlan; /**< single-tagged flows */
	uint32_t flows_qinq; /**< double-tagged flows */
	uint32_t flows_frag; /**< UDP flows sending fragments */
	uint32_t flows_rst;  /**< TCP flows closed by RST */
};

/**
 * Callback for each frame, in time order.
 * @param pkt    what the frame is
 * @param frame  the Ethernet frame (no FCS), valid during the call only
 * @param len    its length
 * @param arg    gen_run()'s @p arg
 * @return 0 to go on; anything else stops gen_run(), which returns it.
 */
typedef int (*gen_emit_fn)(
	const struct gen_pkt *pkt, const uint8_t *frame, uint32_t len, void *arg);

struct gen;

/** Fill @p p with the defaults. Context: any thread. */
void gen_params_default(struct gen_params *p);

/**
 * Check parameters and plan the flows.
 * @param p       parameters (copied)
 * @param err     receives a one-line reason on failure (may be NULL)
 * @param errlen  size of @p err
 * @return the generator, or NULL with errno set: EINVAL (bad parameters),
 *   ENOSPC (the pools cannot hold that many distinct flows), ENOMEM.
 * Context: any thread.
 */
struct gen *gen_create(const struct gen_params *p, char *err, size_t errlen);

/** Free a generator; NULL is accepted. */
void gen_free(struct gen *g);

/** Number of flows. */
uint32_t gen_flow_count(const struct gen *g);

/** Flow @p i (0 <= i < gen_flow_count()), or NULL. */
const struct gen_flow *gen_flow(const struct gen *g, uint32_t i);

/**
 * Emit every frame of every flow, in time order, through @p fn. May be
 * called again: each run starts over and emits the same frames.
 * @return 0, the callback's non-zero value, or -EIO if a frame could not be
 *   built (a bug: parameters were checked by gen_create()).
 * Context: the thread that owns @p g.
 */
int gen_run(struct gen *g, gen_emit_fn fn, void *arg);

/** Totals of the plan and of the last gen_run(). */
void gen_stats_get(const struct gen *g, struct gen_stats *s);

/**
 * Write the flows as text, one line per flow, after a header line:
 * "<index> <proto> <src>:<sport> -> <dst>:<dport> key=value..." with
 * IPv6 addresses in brackets (the first part reads as fc_key_format()).
 * @return 0 or -errno.
 */
int gen_flows_dump(const struct gen *g, FILE *f);

/** Name of a kind ("tcp", "udp", "icmp"), or "?". */
const char *gen_kind_name(unsigned int kind);

/* ------------------------------------------------------------------------ */
/* Command line                                                              */
/* ------------------------------------------------------------------------ */

/** What the command line asks for besides the generator parameters. */
struct gen_opts {
	struct gen_params params;
	const char *output;	/**< -o: pcap file, "-" for stdout */
	const char *flows_file; /**< --flows-file, or NULL */
	bool help;		/**< -h/--help given: print gen_usage() and exit 0 */
};

/**
 * Parse a gufc-gen command line (getopt_long; resets getopt's state, so it
 * may be called more than once).
 * @param argc, argv  as main() got them
 * @param o           receives the options (defaults where not given)
 * @param err         receives a one-line message naming the bad argument
 * @param errlen      size of @p err
 * @return 0, or -EINVAL with @p err filled.
 */
int gen_opts_parse(int argc, char **argv, struct gen_opts *o, char *err, size_t errlen);

/** Print the --help text to @p f. */
void gen_usage(FILE *f, const char *prog);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_GEN_H */
