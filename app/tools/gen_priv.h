/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gen_priv.h — what gufc-gen's plan (gen_plan.c) and run
 * (gen_run.c) share: the generator object, each flow's run state and the
 * random-number stream both draw from. Private to app/tools.
 */
#ifndef GUFC_GEN_PRIV_H
#define GUFC_GEN_PRIV_H

#include <stdint.h>

#include "gen.h"

#define GEN_DGRAM_CAP 70000 /* largest datagram before fragmentation, L2 included */
#define GEN_FRAME_CAP (GEN_MTU_MAX + 64)
#define GEN_MIN_FRAME 60 /* Ethernet minimum without FCS */

#define ETH_HLEN   14
#define VLAN_HLEN  4
#define IPV4_HLEN  20
#define IPV6_HLEN  40
#define FRAG6_HLEN 8
#define TCP_HLEN   20
#define UDP_HLEN   8
#define ICMP_HLEN  8

/* Phases of a flow's script. */
enum {
	PH_OPEN,  /* TCP handshake */
	PH_DATA,  /* requests and replies */
	PH_CLOSE, /* TCP FIN or RST */
	PH_DONE,
};

/* The next packet of a flow, drawn before it is due. */
struct gen_desc {
	uint32_t payload;
	uint8_t dir;
	uint8_t flags;
	uint8_t data;
};

/* Run state of one flow; rebuilt from @c seed at each gen_run(). */
struct gen_state {
	uint64_t seed;	 /* plan: this flow's RNG seed */
	uint64_t rng;	 /* splitmix64 state */
	uint64_t t;	 /* time of the pending packet, us from the start */
	uint32_t step;	 /* position within the phase */
	uint32_t seq[2]; /* next TCP sequence number per direction */
	uint32_t ipid;	 /* next IPv4 id / IPv6 fragment identification */
	uint32_t rtt;	 /* us */
	uint32_t echo;	 /* last ICMP request payload, for its reply */
	uint16_t icmp_seq;
	uint8_t phase;
	struct gen_desc next;
};

/* A flow waiting in the time-order heap. */
struct gen_heap_ent {
	uint64_t t;
	uint32_t flow;
};

/*
 * The generator. Owned by its caller (one thread); gen_create() writes the
 * plan, gen_run() the run state, the counters and the buffers.
 */
struct gen {
	struct gen_params p;
	uint64_t packets; /* data packets, resolved */
	uint32_t n;
	struct gen_flow *flows;
	struct gen_state *st;
	struct gen_heap_ent *heap;
	uint32_t heap_n;
	uint64_t last_ts;
	struct gen_stats stats;
	uint8_t dgram[GEN_DGRAM_CAP];
	uint8_t frame[GEN_FRAME_CAP];
};

/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64, small and good enough, one state per stream   */
/* ------------------------------------------------------------------------ */

static inline uint64_t
rng_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (multiply-shift; the bias is far below what matters). */
static inline uint64_t
rng_below(uint64_t *x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(x) * n) >> 64);
}

/* Uniform in [lo, hi]. */
static inline uint32_t
rng_range(uint64_t *x, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)rng_below(x, (uint64_t)hi - lo + 1);
}

#endif /* GUFC_GEN_PRIV_H */
