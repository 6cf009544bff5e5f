/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: the stateful matches' state a walk and the meters share
 * (engine_meter.c, engine_connbytes.c, engine_strpred.c): what a meter was
 * made for, hashlimit buckets kept as meters, "statistic --mode nth"
 * counters, the providers a walk asks, and a packet on its way to an entry
 * (connbytes). Private to lib/engine; included by engine_priv.h.
 */
#ifndef GUFC_ENGINE_PV_H
#define GUFC_ENGINE_PV_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

struct rule_engine;

/** What a meter was made for (engine_meter.c): one rule's limit match. */
struct eng_meter_key {
	uint32_t rule_id;
	uint32_t rate;
	uint32_t burst;
	uint8_t xi;   /**< the match's index in the rule */
	uint8_t unit; /**< RULE_RATE_*, or ENG_METER_QUOTA */
	uint64_t quota; /**< a quota's bytes as the rule gives them (else 0) */
};

/** eng_meter_key::unit of a "-m quota" match's meter. */
#define ENG_METER_QUOTA 0xff

/** A hashlimit bucket kept as a meter (engine_meter.c): its table and key. */
struct eng_hl_meter {
	char name[RULE_XNAME_MAX];
	uint8_t family;
	uint8_t key[RULE_HASHLIMIT_KEY_LEN];
	uint16_t meter;
};

/** The state of one "-m statistic --mode nth" match (engine_meter.c). */
struct eng_nth {
	uint32_t rule_id;
	uint32_t every;
	uint32_t packet;
	uint32_t count; /**< packets that reached it, modulo every (rule_x_nth_step()) */
	uint8_t xi;     /**< the match's index in the rule */
};

/** Meter consultations a walk records (struct eng_pv::reach). */
#define ENG_REACH_MAX 8

/** A stateful-match provider for a walk (engine_meter.c). */
enum eng_pv_mode {
	ENG_PV_TAKE,      /**< a packet: meters take a token */
	ENG_PV_CONFORM,   /**< a cached verdict: every meter conforms (but eng_pv::flip) */
};
struct eng_pv {
	struct rule_providers pv; /**< first: what the evaluators get */
	struct rule_engine *eng;
	uint8_t mode;             /**< enum eng_pv_mode */
	uint8_t n_meter;          /**< meters the walk reached (1: @c meter) */
	uint8_t other;            /**< other stateful matches it reached (fresh answers) */
	uint8_t connlimit;        /**< it reached a connlimit match */
	uint16_t meter;
	/*
	 * Every meter the walk consulted, in order (a meter twice: twice), the
	 * first ENG_REACH_MAX; n_reach counts all (saturating).
	 */
	uint8_t n_reach;
	uint16_t reach[ENG_REACH_MAX];
	uint16_t flip;            /**< ENG_PV_CONFORM: meter + 1 answered "exceeded" (0: none) */
	uint8_t n_str;            /**< string searches and u32 tests the walk reached (1: @c str;
				       RULE_PRED_U32 set: a u32 test) */
	uint16_t str;
	/* A question about string searches (eng_str_decide()): the answers given so far. */
	bool asking;              /**< answer from @c ans (else the packet's bytes say) */
	uint8_t n_ans;
	uint16_t ans_str[RULE_PRED_LEAVES];
	uint8_t ans_val[RULE_PRED_LEAVES];
	int32_t unknown;          /**< the first search reached without an answer, or -1 */
};

/** A packet on its way to entry @c idx, not counted by it yet (connbytes). */
struct eng_cb_pend {
	bool on;
	uint8_t ti;
	uint32_t idx;
	uint32_t ip_len; /**< its IP bytes */
	uint32_t len;    /**< its length as the entry counts it */
	/** conntrack ignored it (eng_old_flow()): its connection does not count
	 *  it, nor does a walk's connbytes (Linux's accounting) */
	bool ignored;
};

#endif
