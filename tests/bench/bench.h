/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/bench/bench.h — private header of gufc-bench, the in-process
 * benchmark: one binary, one run, a table on stdout and a JSON file.
 *
 * Files: gufc_bench.c (options, EAL, the measurement plan, summary),
 * bench_traffic.c (random rule sets, flow keys, Zipf popularity, frames
 * written into mbufs), bench_app.c (the gufc application context around
 * the real fast path of app/gufc_rx.c and the real rules lcore of
 * app/gufc_slow.c, both linked in unchanged), bench_paths.c (the four
 * per-burst paths: floor, gufc, linear, pipeline, and the timing harness),
 * bench_report.c (table and JSON).
 *
 * Everything runs on one lcore (the main one). Times are TSC cycles
 * (rte_rdtsc); figures are medians of repeats. Nothing here is a test: no
 * figure is compared with a threshold.
 */
#ifndef GUFC_BENCH_H
#define GUFC_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gufc.h"

#define BENCH_BURST 32
#define BENCH_MAX_POINTS 64
#define BENCH_MAX_NOTES 32
#define BENCH_NOTE_LEN 512

/** Traffic popularity. */
enum bench_dist { BENCH_UNIFORM, BENCH_ZIPF, BENCH_DIST__COUNT };

/** The per-packet paths measured side by side. */
enum bench_path { BENCH_FLOOR, BENCH_GUFC, BENCH_LINEAR, BENCH_PIPELINE, BENCH_MARKED,
	BENCH_PATH__COUNT };

/** Run modes. */
enum bench_mode { BENCH_MODE_FULL, BENCH_MODE_QUICK, BENCH_MODE_SMOKE };

/** Sizes and repeats of a run (filled from the mode, then options). */
struct bench_plan {
	enum bench_mode mode;
	bool huge;              /**< EAL memory from hugepages (else 4 KiB pages) */
	unsigned int n_rules;
	uint32_t rules[8];
	unsigned int n_flows;
	uint32_t flows[8];
	unsigned int repeats;
	uint32_t packets;       /**< packets per pass; traces hold one per pass */
	uint64_t pass_budget;   /**< cycles after which a pass of a slow path stops */
	uint32_t setup_flows;   /**< new flows timed for the setup figure */
	unsigned int commits;   /**< commits timed for the commit figure */
	uint32_t commit_flows;  /**< cached flows for the commit figure */
	uint32_t commit_rules;
	uint32_t mem_capacity;  /**< entries for the memory figure */
	uint32_t skip_rules_min; /**< points with rules >= this and ... */
	uint32_t skip_flows_min; /**< ... flows >= this are skipped (0: none) */
	double zipf_s;
	uint32_t seed;
	/**
	 * TCP flows are established connections (handshake seen both ways,
	 * window scale 14): the fast path checks every segment against their
	 * windows; their data segments advance in sequence. Default: the
	 * flows are picked up mid-stream, one way, as before.
	 */
	bool tcp_established;
	uint32_t perflow_rings;  /**< per-flow channel rings live at once (bench_perflow()) */
	bool point_only;         /**< --point: one grid point, no extended twin, memory or per-flow */
	bool profile;            /**< --profile: that point's floor and gufc passes for callgrind, then exit */
};

/** One measured (rules, flows) point. */
struct bench_point {
	uint32_t rules;
	uint32_t flows;          /**< entries in the flow table at measurement */
	uint32_t flows_target;
	uint32_t conns;          /**< connections inserted (forward keys in the trace) */
	double cpp[BENCH_DIST__COUNT][BENCH_PATH__COUNT]; /**< median cycles per packet */
	double setup_flows_per_s; /**< during the warm-up insertion */
	double accept_frac;      /**< packets accepted by the rules (trace, uniform) */
	double matched_frac;     /**< packets decided by a rule, not the policy */
	uint64_t unexpected_upcalls; /**< gufc upcalls during measurement (should be 0) */
	uint64_t trimmed_bursts;     /**< timed bursts left out as preempted */
	/**
	 * tcp_established: the gufc path with the fast path's window check
	 * ([0]) and without it ([1]), median cycles per packet
	 * (bench_measure_win()); 0 otherwise
	 */
	double win_cpp[BENCH_DIST__COUNT][2];
	uint64_t win_upcalls;        /**< upcalls of the passes with the check */
	/** Stage prefixes of the gufc path (enum bench_stage order), uniform; 1000-rule points. */
	double stages[7];
	bool staged;
	bool measured;
	bool ext;                /**< the set of bench_rules_ext(): interfaces, marks, meters */
};

/** Rule-commit figures. */
struct bench_commit {
	uint32_t rules;
	uint32_t flows;
	unsigned int n;
	double p50_us, p99_us, max_us;
	double prepare_p50_us;   /**< clone + edit on the main lcore, not part of the commit */
	double reval_pass_p50_ms; /**< full revalidation pass after a commit (rules lcore) */
	double steady_cpp;       /**< one lcore, both roles: cycles per packet, steady */
	double reval_cpp;        /**< the same while a commit's changes are revalidated */
	double steady_rx_cpp;    /**< RX role alone */
	double reval_rx_cpp;
	double fraction;         /**< steady_cpp / reval_cpp */
	double rx_fraction;      /**< steady_rx_cpp / reval_rx_cpp */
	uint64_t reval_packets;
	uint64_t stale_upcalls;
	uint64_t revalidated;
	bool measured;
};

/** Memory figures. */
struct bench_mem {
	uint32_t capacity;
	double bytes_per_flow[2];  /**< [0] IPv4, [1] IPv6: per table entry at full load */
	double tcp_records[2];     /**< of bytes_per_flow: conntrack's TCP records, each its
				        fast-path line (per connection, shared by its 2 entries) */
	uint64_t tcp_conns[2];     /**< TCP connections with a record at full load */
	uint32_t tcp_record_size;  /**< bytes per TCP connection: its record (one line) */
	uint32_t occupancy[2];
	bool measured;
};

/** Net channels at scale (bench_chan.c). */
struct bench_perflow {
	uint32_t rings;          /**< per-flow rings live at once */
	uint32_t chunks;         /**< memzones the pool grew to */
	uint32_t ring_size;      /**< slots per ring */
	uint32_t bytes_per_ring; /**< shared memory per ring (ring and descriptor) */
	double alloc_ns;         /**< making and giving one ring, growth included */
	double shared_cpp;       /**< delivery to one shared channel: cycles per packet */
	double perflow_cpp;      /**< delivery to per-flow rings: cycles per packet */
	double hot_cpp;          /**< the same among PF_HOT of the rings (in cache) */
	double ratio;            /**< perflow_cpp / shared_cpp */
	bool measured;
};

/** Everything a run measured. */
/** One phase of the paced storm (bench_storm.c): rates per second over its measured part. */
struct bench_storm_phase {
	double hits;         /**< RX lcore hits */
	double created;      /**< flows created (forward entries) */
	double missed;       /**< generated packets the RX ring had no room for */
	double nombuf;       /**< packets due that the pool had no mbuf for */
	double rx_cpu;       /**< CPU time the RX lcore's thread had, per second (1: its core) */
	double rules_cpu;    /**< the same, the rules lcore's */
	double busy_frac;    /**< share of the RX lcore's time in polls that did work */
	double upcall_full;  /**< RX drops: upcall ring full */
	double channel_full; /**< drops: the port's TX channel's ring full */
	double tx_full;      /**< drops: the TX queue refused them (the channel's tx_full) */
	double delivered;    /**< established flows' packets that left the port */
	double delivered_new; /**< new flows' packets that left the port */
	double rx;           /**< packets the RX lcore received */
	double misses;       /**< RX lookups that missed (new flows, and any evicted established one) */
	double upcalls;      /**< misses sent up (the rest: upcall_full) */
	double up_rings;     /**< upcall ring enqueues (each moves the ring's lines across) */
	/*
	 * The RX lcore's cycles by stage (rte_rdtsc() around each stage of each
	 * loop, after the warm-up), fitted by least squares over its loops as
	 * fixed + per-packet-of-each-kind costs (0: the kind did not occur).
	 */
	double gen_per_est;   /**< generator: cycles per established packet made */
	double gen_per_new;   /**< generator: cycles per new-flow packet made */
	double done_fixed;    /**< completions: dp_done_poll() cycles per loop, whatever it took */
	double done_per_tok;  /**< completions: dp_done_poll() cycles per completion taken */
	/**
	 * completions: all of dp_done_poll()'s cycles over the completions
	 * taken (its per-loop part included: what the earlier figure was)
	 */
	double done_mean_per_tok;
	double poll_fixed;    /**< gufc_rx_poll(): cycles per loop, whatever it took */
	double poll_per_hit;  /**< gufc_rx_poll(): cycles per hit */
	double poll_per_up;   /**< gufc_rx_poll(): cycles per upcall (a miss sent up) */
	double poll_per_full; /**< gufc_rx_poll(): cycles per miss dropped, upcall ring full */
	double poll_per_pkt;  /**< gufc_rx_poll(): cycles per packet received, plain mean */
	/*
	 * gufc_rx_poll()'s parts (gufc_rx_poll_timed()): the means per loop of
	 * its own dp_done_poll(), of rte_eth_rx_burst() and of the quiescent
	 * report, and dp_rx_burst() fitted as fixed + per-packet-of-each-kind.
	 */
	double poll_done_mean; /**< dp_done_poll() inside the poll, cycles per loop */
	double poll_rx_mean;   /**< rte_eth_rx_burst(), cycles per loop */
	double poll_qs_mean;   /**< rule_engine_quiescent(), cycles per loop */
	double dp_fixed;       /**< dp_rx_burst(): cycles per loop that received packets */
	double dp_per_hit;     /**< dp_rx_burst(): cycles per hit */
	double dp_per_up;      /**< dp_rx_burst(): cycles per upcall */
	double dp_per_full;    /**< dp_rx_burst(): cycles per miss dropped, upcall ring full */
	double pkts_per_loop;  /**< packets received per loop (mean) */
	double loops;	      /**< RX loops per second (in the fits) */
	double preempted;     /**< RX loops per second left out: the thread lost its core */
};

/** The paced storm (gufc-bench --storm-only). */
struct bench_storm {
	double secs;          /**< measured seconds per phase */
	double load;          /**< established rate as a share of the capacity phase's hits */
	double est_pps;       /**< established packets per second offered (paced phases) */
	double new_pps;       /**< new flows per second offered in the storm (2 x setup) */
	unsigned int up_batch; /**< the RX context's up_batch in the run (struct dp_ctx) */
	bool direct;          /**< the RX lcore sent its hits on a TX queue of its own */
	struct bench_storm_phase setup, capacity, before, during;
	double fraction;      /**< storm_hit_fraction_paced: during.hits / before.hits */
	/** storm_delivered_fraction_paced: during.delivered / before.delivered */
	double delivered_fraction;
	bool valid;           /**< the RX lcore had its core and took "before" without loss */
	bool measured;
};

struct bench_results {
	struct bench_plan plan;
	double tsc_hz;
	unsigned int n_points;
	struct bench_point pt[BENCH_MAX_POINTS];
	double setup_fps[2];       /**< [0] 1k rules, [1] 10k rules */
	uint32_t setup_rules[2];
	uint32_t setup_flows[2];
	struct bench_commit commit;
	struct bench_mem mem;
	struct bench_perflow perflow;
	struct bench_storm storm;
	unsigned int n_notes;
	char note_key[BENCH_MAX_NOTES][64];
	char note[BENCH_MAX_NOTES][BENCH_NOTE_LEN];
	double elapsed_s;
};

void bench_note(struct bench_results *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------ */
/* bench_traffic.c                                                           */
/* ------------------------------------------------------------------------ */

/** A small deterministic RNG (xorshift64*). */
struct bench_rng {
	uint64_t s;
};

void bench_rng_seed(struct bench_rng *r, uint64_t seed);
uint64_t bench_rng_next(struct bench_rng *r);
/** Uniform in [0, n). */
uint32_t bench_rng_below(struct bench_rng *r, uint32_t n);

/**
 * A random filter rule set of @p n rules in chain main (policy accept):
 * random source/destination prefixes inside the traffic's address space,
 * protocols, destination port ranges and lists, some source port ranges;
 * 70% accept, 30% drop. NULL on error.
 */
struct rule_set *bench_rules_make(struct bench_rng *rng, uint32_t n);

/**
 * @p base with what real sets add that the random one lacks: rules that
 * name the input port (@p port, named "wan0"), a mangle PREROUTING chain
 * marking UDP and TCP flows and filter rules matching the marks, and a
 * "-m limit" rule (rate high enough to conform) that about 10% of the
 * flows reach: their entries ask a meter on every packet.
 * @return the new set, or NULL (no memory, or a format or parse error).
 */
struct rule_set *bench_rules_ext(const struct rule_set *base, uint16_t port);

/** A rule of the same distribution (for commits). */
void bench_rule_random(struct bench_rng *rng, struct rule *r);

/**
 * Commits gufc-bench makes: a copy of @p eng's set with one random filter
 * rule replaced by another (bench_set_replaced), or with a rule on top that
 * accepts the @p sixteenth'th /12 of the sources' 10.0.0.0/8 (bench_set_wide:
 * an administrator's change that touches many cached flows without changing
 * most verdicts). NULL on error.
 */
struct rule_set *bench_set_replaced(struct rule_engine *eng, struct bench_rng *rng);
struct rule_set *bench_set_wide(struct rule_engine *eng, uint32_t sixteenth);

/** Draw a random connection's forward key (IPv4 or IPv6). */
void bench_key_random(struct bench_rng *rng, unsigned int family, struct fc_key *k);

/**
 * Write a frame for key @p k (Ethernet, IPv4/IPv6, TCP or UDP; TCP flags
 * @p tcp_flags) into @p buf. @return the frame length.
 */
uint32_t bench_frame_write(uint8_t *buf, uint32_t cap, const struct fc_key *k,
	uint8_t tcp_flags);

/**
 * A TCP segment of key @p k with these numbers, window and, if @p wscale
 * is not negative, a window-scale option; no payload. @return the length.
 */
uint32_t bench_frame_tcp(uint8_t *buf, uint32_t cap, const struct fc_key *k, uint8_t flags,
	uint32_t seq, uint32_t ack, uint16_t win, int wscale);

/** Bytes bench_frame_write() may need. */
#define BENCH_FRAME_MAX 128

/**
 * A trace of @p n indexes into [0, pop): uniform or Zipf(s) over a random
 * permutation of the population. malloc()ed; NULL on error.
 */
uint32_t *bench_trace_make(struct bench_rng *rng, enum bench_dist d, double s, uint32_t pop,
	uint32_t n);

/* ------------------------------------------------------------------------ */
/* bench_app.c: the gufc application around the real fast path              */
/* ------------------------------------------------------------------------ */

/** The process-wide context: EAL objects that live for the whole run. */
struct bench_env {
	struct gufc_app *app;
	struct gufc_lcore *lc;
	struct rte_ring *rx_ring;  /**< the net_ring port's RX ring, filled by the harness */
	struct rte_ring *tx_ring;
	uint16_t port;
	bool port_started;
	struct rte_lpm *lpm;       /**< routes for linear/pipeline (same as the engine's) */
	unsigned int n_routes;
	uint32_t route_addr[256];  /**< host order */
	uint8_t route_depth[256];
	uint16_t route_port[256];
	unsigned int eng_seq;
	bool tcp_established;      /**< bench_engine_fill() opens TCP flows by handshakes */
};

int bench_env_init(struct bench_env *env);

/**
 * Net channels at scale: plan.perflow_rings per-flow rings made and live at
 * once, their memory, and per-flow against shared delivery (res->perflow).
 * @return 0 or -errno (-ENOMEM: the pool could not grow that far).
 */
int bench_perflow(struct bench_env *env, struct bench_results *res);
void bench_env_fini(struct bench_env *env);
/**
 * The paced new-flow storm on two lcores (see bench_storm.c): res->storm,
 * or a note when the EAL has one lcore only.
 * @param secs      measured seconds per phase
 * @param load      established rate as a share of the RX lcore's capacity
 * @param up_batch  the RX context's up_batch, or -1: the app's
 * @param direct    the port has a TX queue for the RX lcore (direct TX);
 *   false: one TX queue (net_pcap's layout), the RX lcore consumes the TX
 *   channel beside the rules lcore (gufc_consume_tx())
 * @return 0 or -errno.
 */
int bench_storm(struct bench_env *env, struct bench_results *res, double secs, double load,
	int up_batch, bool direct);
/** Print res->storm (nothing when not measured). */
void bench_storm_print(const struct bench_results *res, FILE *f);
/** Write res->storm as a JSON object to @p path. @return 0 or -errno. */
int bench_storm_json(const struct bench_results *res, const char *path);

/**
 * Create a rules engine for @p capacity IPv4 entries (@p capacity6 IPv6) with
 * conntrack, the env's routes, and install it in the app (tables, NAT).
 * @return 0 or -errno.
 */
int bench_engine_start(struct bench_env *env, uint32_t capacity, uint32_t capacity6);
/** Free the app's engine (flows flushed first). */
void bench_engine_stop(struct bench_env *env);

/**
 * Commit @p set to the engine and install a classifier compiled from it
 * (synchronously). The engine owns @p set. @return 0 or -errno; on return
 * *build_s is the compile time.
 */
int bench_engine_rules(struct bench_env *env, struct rule_set *set, double *build_s);

/**
 * Insert new connections (forward keys from @p keys, in order) through
 * rule_engine_upcall_burst until the table of @p family holds @p target
 * entries or @p n_keys are used. @return the number of keys inserted;
 * *cycles receives the cycles spent in rule_engine_upcall_burst.
 */
uint32_t bench_engine_fill(struct bench_env *env, unsigned int family, const struct fc_key *keys,
	uint32_t n_keys, uint32_t target, uint64_t *cycles);

/** One pass of every role of the bench lcore (also the app's gufc_lcore_work()). */
unsigned int bench_lcore_work(struct bench_env *env);

/* ------------------------------------------------------------------------ */
/* bench_paths.c                                                             */
/* ------------------------------------------------------------------------ */

/** What the paths of one point share. */
struct bench_ctx {
	struct bench_env *env;
	const struct rule_set *set; /**< linear: the reference evaluator's set */
	const struct rule_cls *cls; /**< pipeline: compiled from the same set */
	struct rte_hash *ct;        /**< floor table = conntrack table: the engine's keys */
	const struct fc_key *keys;  /**< forward keys of the trace population */
	uint32_t n_keys;
	const uint32_t *trace;
	uint32_t trace_len;
	uint32_t pass_len;          /**< packets per pass */
	uint32_t cursor;            /**< where the next pass starts */
	uint64_t trimmed;           /**< preempted bursts left out (see pass_run()) */
	uint64_t pass_budget;
	unsigned int repeats;
	uint32_t now;
	/* marked: the marks a MARK rule would put on each key's packets (0: none) */
	struct dp_marks marks;
	uint32_t *key_mark;
	bool marks_built;
	/* tcp_established: the next sequence number of each key's data segments */
	uint32_t *seq;
	/* ... and the IPv4 entries that had FC_INTEREST_TCP_WIN (by index), for
	 * bench_measure_win(); built on its first pass */
	uint8_t *win_armed;
	uint32_t win_cap;
	/* the NIC's ring a burst ahead of the poll (bench_ring_ahead()): the
	 * burst fed behind the one being polled, if any */
	bool ahead;          /**< a burst waits on the ring */
	bool ahead_marked;   /**< ... with the marked path's marks */
	uint32_t ahead_from; /**< ... of trace[ahead_from..+ahead_req) */
	unsigned int ahead_req;
	/** ... of which on the ring (the marked path keeps DROP flows in the NIC) */
	unsigned int ahead_n;
};

/** Free what the marked path built (ctx->marks, ctx->key_mark). */
void bench_marks_free(struct bench_ctx *ctx);

/**
 * Build the floor/conntrack table: an rte_hash with the flow table's
 * geometry (same slots, hash, flags) holding every key of the engine's
 * IPv4 table. @return the hash or NULL.
 */
struct rte_hash *bench_ct_build(struct bench_env *env, const char *name);

/**
 * Median cycles per packet of every path over ctx->repeats passes of the
 * trace, the paths taking turns pass by pass.
 * @param cpp      receives one figure per enum bench_path
 * @param upcalls  receives the upcalls the gufc path made (0 in steady state)
 */
void bench_measure(struct bench_ctx *ctx, double cpp[BENCH_PATH__COUNT], uint64_t *upcalls);

/**
 * The fast path's TCP window check, side by side (tcp_established): median
 * cycles per packet of the gufc path over ctx->repeats passes with the
 * entries' FC_INTEREST_TCP_WIN as conntrack set it ([0]) and cleared ([1]),
 * taking turns pass by pass. Before each pass (untimed) the same walk over
 * the IPv4 table sets or clears the bit, so both see the same cache state.
 * The bits are left set. @return 0, -ENOMEM.
 * @param upcalls  receives the upcalls of the passes with the check (0:
 *   every segment passed it)
 */
int bench_measure_win(struct bench_ctx *ctx, double cpp[2], uint64_t *upcalls);

/**
 * One burst of the trace from @p from through both roles of the bench lcore,
 * as the app runs them on one lcore: gufc_rx_poll() then gufc_slow_poll().
 * @param rx_cycles  incremented by the cycles of the RX role
 * @return the cycles of both roles.
 */
uint64_t bench_roles_burst(struct bench_ctx *ctx, uint32_t from, uint64_t *rx_cycles);

/** Accepted and rule-matched fractions of the trace (reference evaluator). */
void bench_trace_verdicts(struct bench_ctx *ctx, double *accept, double *matched);

/**
 * One timed burst of trace packets [from, from + *n): cycles spent. A path
 * whose NIC keeps some of them off the CPU (marked: hardware DROP rules)
 * lowers *n to the packets that reached gufc.
 */
typedef uint64_t (*bench_burst_fn)(struct bench_ctx *ctx, uint32_t from, unsigned int *n);

/** Cycles per packet of one pass of @p fn over the next ctx->pass_len trace packets. */
double bench_pass_run(struct bench_ctx *ctx, bench_burst_fn fn);
/** The floor path's burst (rte_hash_lookup_bulk_data on hot keys). */
uint64_t bench_burst_floor(struct bench_ctx *ctx, uint32_t from, unsigned int *n);
/** The gufc path's burst (gufc_rx_poll(), then the untimed consumer). */
uint64_t bench_burst_gufc(struct bench_ctx *ctx, uint32_t from, unsigned int *n);
/**
 * The marked path's burst: the gufc path with the NIC's marks (every ACCEPT
 * flow marked, DROP flows kept in the NIC); *n becomes the packets gufc received.
 */
uint64_t bench_burst_marked(struct bench_ctx *ctx, uint32_t from, unsigned int *n);
/** Put the frames of trace[from..from+n) on the port's RX ring (untimed NIC side). */
int bench_nic_rx(struct bench_ctx *ctx, uint32_t from, unsigned int n);
/**
 * The NIC side of a burst as a real NIC's ring is: ahead of the poll. The
 * ring holds trace[from..from+*np) at its head (fed by the previous call,
 * or now) and the next burst behind it, written now: a poll never finds
 * the ring empty behind its burst, so a path that looks a burst ahead can.
 * @p marked: the marked path's frames (marks set, DROP flows kept in the
 * NIC: *np becomes the packets on the ring for this burst). Untimed.
 * @return 0, or -errno (nothing fed).
 */
int bench_ring_ahead(struct bench_ctx *ctx, uint32_t from, unsigned int *np, bool marked);
/** Take what bench_ring_ahead() fed ahead off the ring: polled, untimed, as its path would. */
void bench_ring_drain(struct bench_ctx *ctx);

/** The stages of the gufc path, measured as cumulative prefixes (bench_stages.c). */
enum bench_stage { BENCH_ST_FLOOR, BENCH_ST_RX, BENCH_ST_PARSE, BENCH_ST_LOCALS,
	BENCH_ST_HASH, BENCH_ST_LOOKUP, BENCH_ST_FULL, BENCH_ST__COUNT };

/**
 * Median cycles per packet of the floor, of each cumulative prefix of the
 * gufc path (RX burst; + parse; + local bits; + input port and hash; +
 * bulk lookup and action copy) and of the whole path, taking turns pass by
 * pass. Uniform trace of @p ctx. @p cpp receives BENCH_ST__COUNT figures.
 */
void bench_stages_measure(struct bench_ctx *ctx, double cpp[BENCH_ST__COUNT]);
/** Name of a stage figure ("floor", "rx", "parse", ...). */
const char *bench_stage_name(unsigned int s);

/** Name of a path ("floor", "gufc", "linear", "pipeline"). */
const char *bench_path_name(unsigned int p);
/** Name of a distribution ("uniform", "zipf"). */
const char *bench_dist_name(unsigned int d);

/* Writes the frames of packets trace[from..from+n) into fresh mbufs. */
int bench_mbufs_fill(struct bench_ctx *ctx, struct rte_mbuf **m, uint32_t from, unsigned int n);

/* ------------------------------------------------------------------------ */
/* bench_report.c                                                            */
/* ------------------------------------------------------------------------ */

/** The summary keys, in order. */
#define BENCH_SUMMARY_KEYS(X) \
	X(gufc_over_floor_1m_flows) \
	X(linear_over_gufc_1k_rules) \
	X(linear_over_gufc_10k_rules) \
	X(pipeline_over_gufc_1k_rules) \
	X(pipeline_over_gufc_10k_rules) \
	X(gufc_10k_over_10_rules) \
	X(setup_flows_per_s_1k_rules) \
	X(commit_p99_us_10k_rules_1m_flows) \
	X(revalidation_throughput_fraction) \
	X(bytes_per_flow_ipv4) \
	X(marked_over_software) \
	X(gufc_ext_over_plain_1k_rules) \
	X(perflow_over_shared_delivery)

void bench_table_print(const struct bench_results *r, FILE *f);
/** Compute the summary (notes added where a figure comes from a stand-in point). */
void bench_summary(struct bench_results *r, double out[]);
int bench_json_write(const struct bench_results *r, const double summary[], const char *path);
/** Re-read @p path and check the summary keys: all there, finite, > 0. @return 0 or -1. */
int bench_json_check(const char *path);

#endif /* GUFC_BENCH_H */
