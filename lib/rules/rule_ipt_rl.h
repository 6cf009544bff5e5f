/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: one iptables rule line being parsed, shared by rule_ipt.c
 * (the whole rule: checks, port variants, adding it) and rule_ipt_opt.c
 * (its options, one at a time).
 */
#ifndef GUFC_RULE_IPT_RL_H
#define GUFC_RULE_IPT_RL_H

#include "rule_ipt_priv.h"


#define IPT_PM_MAX    8	 /**< port matches in one rule */
#define IPT_CT_MAX    8	 /**< ctstate matches in one rule */
#define IPT_ALIST_MAX 64 /**< addresses in one -s or -d list */

enum ipt_mod {
	MOD_NONE,
	MOD_TCP,
	MOD_UDP,
	MOD_SCTP,
	MOD_DCCP,
	MOD_MULTIPORT,
	MOD_CONNTRACK,
	MOD_STATE,
	MOD_COMMENT,
	MOD_X, /**< an extension kind (ipt_rl::cur_kind) */
};

enum ipt_optid {
	O_SRC,
	O_DST,
	O_PROTO,
	O_JUMP,
	O_GOTO,
	O_MATCH,
	O_COUNTERS,
	O_IN,
	O_OUT,
	O_FRAG,
	O_SPORT,
	O_DPORT,
	O_SPORTS,
	O_DPORTS,
	O_PORTS,
	O_CTSTATE,
	O_STATE,
	O_COMMENT,
};


/** One port match: --sport/--dport, or one multiport option. */
struct ipt_pmatch {
	uint8_t dir; /**< PM_SRC, PM_DST or PM_EITHER (--ports) */
	bool neg;
	struct rule_ports ports;
	const struct lex_tok *at; /**< the option, for errors */
	uint8_t xi; /**< extension matches written before its match (struct rule::sport_at) */
};

enum { PM_SRC, PM_DST, PM_EITHER };

/** A rule line being parsed. */
struct ipt_rl {
	struct rule r;		      /**< matches, action, target, comment */
	const struct lex_tok *cmd;    /**< the -A/-I word */
	const struct lex_tok *chain;  /**< the chain's word */
	uint32_t at;		      /**< -I position (0-based), RULE_POS_END for -A */
	unsigned int seen;	      /**< 1 << O_* of single-use options given */
	const struct lex_tok *target; /**< -j/-g value, NULL if none */
	unsigned int tkind;	      /**< target kind whose options follow, RULE_X_NONE */
	struct rule_x natx;	      /**< NAT targets: options given (values in r.nat) */
	uint8_t pmod;		      /**< MOD_TCP/UDP/SCTP/DCCP loaded (explicitly or not) */
	const struct lex_tok *pmod_at;
	uint8_t pmod_xi;	/**< extension matches before it (-m, or the implicit load) */
	uint8_t multi_xi;	/**< extension matches before the last -m multiport */
	unsigned int pmod_seen; /**< 1 << O_SPORT / O_DPORT given to it */
	uint8_t cur;		/**< module of the last -m */
	unsigned int cur_kind;	/**< its extension kind (options beyond the 7-tuple) */
	int cur_x;		/**< its instance in r.xm, -1 while none */
	const struct lex_tok *x_at[RULE_XM_MAX]; /**< the word each extension match came from */
	const struct lex_tok *cur_at;
	bool cur_used;			/**< the last -m got an option */
	/* Modules a later -m left waiting for their option (1 << MOD_*), as
	 * iptables reads "-m state -m udp --dport 53 --state NEW". */
	unsigned int open;
	const struct lex_tok *open_at[MOD_X];
	bool cur_ct;			/**< the last -m got its --ctstate/--state */
	const struct lex_tok *multi_at; /**< first -m multiport, for errors */
	const struct lex_tok *if_at[2]; /**< the -i and -o words, for errors */
	unsigned int n_pm;
	struct ipt_pmatch pm[IPT_PM_MAX];
	unsigned int n_ct;
	struct {
		uint8_t set;
		bool neg;
		uint8_t xi; /**< extension matches before its -m (rule::ctstate_at) */
		const struct lex_tok *at; /**< the option, for errors */
	} ct[IPT_CT_MAX];
	uint8_t mod_xi[MOD_X]; /**< per module: extension matches before its last -m */
	const struct lex_tok *ct_at;
	bool has_comment;
	/* -s/-d a,b,...: one rule per source and destination, as iptables
	 * adds them (sources outer); n_addr 0 while no list was given. */
	unsigned int n_addr[2];
	struct rule_prefix addr[2][IPT_ALIST_MAX];
};

/* rule_ipt.c */

/** Does the rule match one protocol that has ports (tcp, udp, sctp)? */
bool rule_ipt_proto_ports(const struct rule *r);
/** Checks that need the whole rule, then add it. @return 0, -EINVAL, -ENOMEM. */
int rule_ipt_finish(struct ipt *p, struct ipt_rl *rl);

/* rule_ipt_opt.c */

/**
 * The last -m got no option where it needs one: at the next -m it waits
 * for one; at the end of the rule (@p end) that, and any module still
 * waiting, is an error at its -m. @return 0 or -EINVAL.
 */
int rule_ipt_mod_finish(struct ipt *p, struct ipt_rl *rl, bool end);
/** One option at a[*i] (and its values), @p neg if a '!' came before it. @return 0, -EINVAL, -ENOMEM. */
int rule_ipt_opt(struct ipt *p, struct ipt_rl *rl, unsigned int *i, bool neg);

#endif /* GUFC_RULE_IPT_RL_H */
