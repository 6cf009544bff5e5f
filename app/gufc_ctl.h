/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_ctl.h — the control layer: the one API the config loader, the
 * shell and telemetry call once they have parsed their input.
 *
 *  - gufc_ctl.c: the control client (main lcore) and server (rules lcore)
 *    over the control ring: rule-set commits, routes, local addresses,
 *    flushes, classifier builds in the background, and gufc_ctl_call() for
 *    anything else only the rules lcore may touch;
 *  - gufc_chan.c: channels — the one channel grammar (config "channel ..."
 *    and shell "channel create ..."), the one pcap-path builder, the channel
 *    table at start, channels created and deleted at run time, the channels
 *    a rule set names;
 *  - gufc_collect.c: the collectors shell and telemetry print from (rules
 *    with their counters, flows), so both give the same numbers;
 *  - gufc_router.c: ports as a router sees them (names, addresses, MTUs),
 *    router mode's wiring (the neighbour module, the local channel) and
 *    its collectors (neighbours, routes).
 *
 * Order: gufc_chan.c, gufc_collect.c and gufc_router.c call gufc_ctl.c,
 * never the other way; none of them calls the shell, telemetry, the config loader or main.
 * Context: main lcore, except where a function says rules lcore.
 */
#ifndef GUFC_CTL_H
#define GUFC_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gufc.h"

/* ------------------------------------------------------------------------ */
/* Control ring (gufc_ctl.c)                                                 */
/* ------------------------------------------------------------------------ */

/** Control messages, main lcore -> rules lcore. */
enum gufc_ctl_type {
	GUFC_CTL_COMMIT,    /**< new rule set: rule_engine_commit() */
	GUFC_CTL_CLS_READY, /**< classifier built: rule_engine_cls_ready() (rules lcore frees msg) */
	GUFC_CTL_ROUTE_ADD,
	GUFC_CTL_ROUTE_DEL,
	GUFC_CTL_CLS_WANTED, /**< rules lcore -> main: build a classifier from @c set */
	GUFC_CTL_CALL,       /**< run @c fn(app, @c arg) on the rules lcore (gufc_ctl_call()) */
};

/** A function run on the rules lcore for the control plane. @return 0 or -errno. */
typedef int (*gufc_ctl_fn)(struct gufc_app *app, void *arg);

/**
 * A control message. Synchronous ones (COMMIT, ROUTE_*, CALL) are owned by
 * the sender, which waits for @c done; CLS_READY and CLS_WANTED are owned
 * by the receiver, which frees them.
 */
struct gufc_ctl_msg {
	enum gufc_ctl_type type;
	struct rule_set *set;
	struct rule_cls *cls;
	uint32_t gen;
	struct gufc_route route;
	int result;          /**< written by the rules lcore */
	volatile int done;   /**< set by the rules lcore when applied */
	struct gufc_app *app; /**< CLS_WANTED: for the builder thread */
	gufc_ctl_fn fn;      /**< CALL */
	void *arg;           /**< CALL */
};

/**
 * Create the control rings (app->ctl, app->to_main).
 * @param app  the application
 * @return 0, or -ENOMEM (logged).
 * Context: main lcore, before the lcores start.
 */
int gufc_ctl_init(struct gufc_app *app);

/**
 * Free the messages left on the control rings once nobody serves them
 * (waits for classifier builder threads first); waiting senders get
 * -ESHUTDOWN. Safe to call more than once.
 * @param app  the application
 * Context: main lcore, the other lcores stopped.
 */
void gufc_ctl_drain(struct gufc_app *app);

/**
 * gufc_ctl_drain(), then free the rings.
 * @param app  the application
 * Context: main lcore, the other lcores stopped.
 */
void gufc_ctl_fini(struct gufc_app *app);

/**
 * Apply the messages of the control ring: commits, routes, calls,
 * classifiers built in the background.
 * @param app  the application
 * Context: rules lcore, once per pass.
 */
void gufc_ctl_serve(struct gufc_app *app);

/**
 * Ask the main lcore for a classifier when the engine's is behind (at most
 * every 50 ms, one request at a time).
 * @param app  the application
 * @param tsc  the current TSC
 * Context: rules lcore.
 */
void gufc_ctl_cls_request(struct gufc_app *app, uint64_t tsc);

/**
 * Start a builder thread for each classifier the rules lcore asked for.
 * @param app  the application
 * Context: main lcore's loop.
 */
void gufc_ctl_main_poll(struct gufc_app *app);

/**
 * The first commit, before the lcores start: swap @p set in and build its
 * classifier synchronously. The channels @p set names must exist
 * (gufc_channels_for_rules()).
 * @param app  the application
 * @param set  the rule set (ownership passes, whatever the result)
 * @return 0 or the error of rule_engine_commit(); a classifier that cannot
 *   be built is logged (the reference evaluator decides meanwhile).
 * Context: main lcore, before the lcores start.
 */
int gufc_ctl_install(struct gufc_app *app, struct rule_set *set);

/**
 * Commit a rule set: the rules lcore swaps it in and the classifier is
 * rebuilt in the background. Waits until the rules lcore applied it (the
 * calling lcore keeps doing its other roles meanwhile). The channels the
 * set names must exist: gufc_chan_commit() creates them first.
 * @param app  the application
 * @param set  the rule set (ownership passes, whatever the result)
 * @return 0, -EINVAL (NULL set), -EBUSY (control ring full), -ESHUTDOWN,
 *   or the error of rule_engine_commit().
 */
int gufc_ctl_commit(struct gufc_app *app, struct rule_set *set);

/**
 * Add or delete a route (applied by the rules lcore; cached flows follow in
 * the background).
 * @param app  the application
 * @param r    the route (the port must exist, also to delete)
 * @param add  add, else delete
 * @return 0, -ENODEV (no such port), -EINVAL (bad prefix), -ENOENT (no
 *   such route to delete), -ENOSPC, -EBUSY, -ESHUTDOWN.
 */
int gufc_ctl_route(struct gufc_app *app, const struct gufc_route *r, bool add);

/**
 * Add or delete a route in the route module (what GUFC_CTL_ROUTE_* apply):
 * a port, or a gateway; connected routes are flagged so.
 * @param app  the application
 * @param r    the route
 * @param add  add (or replace), else delete
 * @return 0, or mod_route_add_nh()'s / mod_route_del()'s -errno.
 * Context: rules lcore (before the lcores start: main lcore).
 */
int gufc_ctl_route_apply(struct gufc_app *app, const struct gufc_route *r, bool add);

/* Policy routing (gufc_prule.c; doc/config.md "Policy routing"). */

/**
 * Parse a routing rule's words (the config's "route-rule" line and the
 * shell's "route-rule add|del" after their keyword).
 * @param cfg  the configuration (port names, for iif)
 * @param tok  the words
 * @param n    how many
 * @param pr   receives the rule
 * @param bad  receives the index of the word at fault
 * @param why  receives the reason
 * @return 0, -EINVAL, -EEXIST (the main table's own rule).
 */
int gufc_prule_parse(const struct gufc_config *cfg, const char *const *tok, unsigned int n,
	struct gufc_prule *pr, unsigned int *bad, const char **why);

/**
 * A route's "table T": @p id a number (0: main), or @p name a name.
 * @return 0, -EINVAL (0, 253, 255, past 4294967294, a bad name).
 */
int gufc_route_table_arg(const char *s, uint32_t *id, char name[MOD_ROUTE_NAME_MAX]);

/**
 * Add or delete a routing rule in the route module (a delete without pref:
 * the first rule equal but for its pref, as `ip rule del`).
 * @return 0, -ENOENT (no such table name; no such rule to delete), or
 *   mod_route_rule_add()'s / mod_route_rule_del()'s -errno.
 * Context: rules lcore (before the lcores start: main lcore).
 */
int gufc_ctl_prule_apply(struct gufc_app *app, const struct gufc_prule *pr, bool add);

/** gufc_ctl_prule_apply() on the rules lcore (gufc_ctl_call()). */
int gufc_ctl_prule(struct gufc_app *app, const struct gufc_prule *pr, bool add);

/**
 * The config's routing rules, in order, after its routes (start).
 * @return 0, or the first failure's -errno (logged).
 */
int gufc_router_prules(struct gufc_app *app);

/** A routing rule as listings show it (gufc_collect_prule_rows()). */
struct gufc_prule_row {
	uint32_t pref;
	bool implicit;     /**< the main table's own rule */
	uint64_t hits;     /**< new flows (either direction) it routed or dropped */
	char text[200];    /**< mod_route_rule_format() */
};

/**
 * The routing rules, in order, the implicit main rule included (at most
 * @p max); *@p rows is the caller's to free.
 * @return 0, -ENOMEM, gufc_ctl_call()'s -errno.
 */
int gufc_collect_prule_rows(struct gufc_app *app, struct gufc_prule_row **rows, unsigned int *n,
	unsigned int max);

/** "show route-rules": "PREF:<tab>RULE  hits N" per rule. @return 0 or -errno. */
int gufc_show_route_rules(struct gufc_app *app, FILE *f);

/**
 * "show routes": the tables other than main, each "table NAME (ID): N
 * routes" then its routes; with @p table (a number, main or a name) that
 * table's routes alone.
 * @return 0, -EINVAL (bad table), -ENOENT (no such table), -errno.
 */
int gufc_show_route_tables(struct gufc_app *app, const char *table, FILE *f);

/**
 * Run @p fn(app, @p arg) on the rules lcore and wait for it (directly when
 * the caller is the rules lcore): the way the control layer reads or
 * changes what only the rules lcore may touch.
 * @param app  the application
 * @param fn   the function
 * @param arg  its argument
 * @return fn's result, or -EINVAL (no @p fn), -EBUSY (control ring full),
 *   -ESHUTDOWN.
 */
int gufc_ctl_call(struct gufc_app *app, gufc_ctl_fn fn, void *arg);

/**
 * A copy of the committed rule set (for edits that will be committed).
 * @param app  the application
 * @param out  receives the copy (the caller owns it)
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_ctl_rules_clone(struct gufc_app *app, struct rule_set **out);

/**
 * Add or delete a local prefix: the local-address table that new flows'
 * local bits come from, and the configuration's list masquerade picks its
 * address from (cached flows keep their bits).
 * @param app  the application
 * @param p    the prefix
 * @param add  add, else delete
 * @return 0, -EEXIST (already local), -ENOENT (not a local prefix),
 *   -ENOSPC (table full), -EINVAL, or an error of gufc_ctl_call().
 */
int gufc_ctl_local(struct gufc_app *app, const struct lex_prefix *p, bool add);

/**
 * Remove every cached flow.
 * @param app  the application
 * @param n    receives the number of entries removed
 * @return 0, or an error of gufc_ctl_call().
 */
int gufc_ctl_flush(struct gufc_app *app, unsigned int *n);

/* ------------------------------------------------------------------------ */
/* Channels (gufc_chan.c)                                                    */
/* ------------------------------------------------------------------------ */

/** What is wrong with a channel description: the word, the part of it, why. */
struct gufc_chan_err {
	unsigned int word; /**< index of the word at fault in the caller's words */
	unsigned int off;  /**< the part at fault starts this many bytes into it ... */
	unsigned int len;  /**< ... and is this long (0: to the end of the word) */
	const char *msg;   /**< static text */
};

/**
 * The channel grammar, one for the config file and the shell:
 *
 *   NAME kind discard|app|pcap FILE|tx PORT[:QUEUE] { size N | perflow [N] }
 *
 * NAME is 1..16 of A-Z a-z 0-9 _ - .; N of size a power of two; perflow's N
 * (rings it adds to the per-flow pool) 1..1024. Numbers are decimal, 0x
 * hexadecimal or 0 octal.
 *
 * @param w      the words of the line (lex_split())
 * @param n      how many
 * @param first  index of NAME (the word before it, "channel" or "create",
 *   is what a missing name is reported at); a kind's FILE or PORT[:QUEUE]
 *   is word @p first + 3
 * @param c      receives the description (zeroed first)
 * @param e      receives what is wrong
 * @return 0, or -EINVAL (@p e filled).
 */
int gufc_chan_parse(const struct lex_tok *w, unsigned int n, unsigned int first,
	struct gufc_chan_cfg *c, struct gufc_chan_err *e);

/**
 * The path of a pcap file: @p file as given when absolute or when there is
 * no --channel-pcap-dir, else under that directory. The one builder for
 * configured channels, channels created in the shell and channels a rule
 * names ("NAME.pcap").
 * @param cfg   the configuration (pcap_dir)
 * @param file  the file as written
 * @param out   receives the path
 * @param len   size of @p out
 * @return 0, or -ENAMETOOLONG.
 */
int gufc_chan_pcap_path(const struct gufc_config *cfg, const char *file, char *out, size_t len);

/**
 * Assign the lcore roles (RX, rules, main) from the configuration and EAL's
 * lcores (app/gufc_roles.c). Errors are printed.
 * @return 0, or -EINVAL (a bad list, a role without an lcore), -ENOMEM.
 */
int gufc_roles_assign(struct gufc_app *app);

/** Spread every used port's RX queues over the RX lcores, round robin. */
void gufc_queues_assign(struct gufc_app *app);

/**
 * Give each port that has TX queues to spare one per RX lcore (direct TX),
 * after the queues TX channels name; before the ports start.
 */
void gufc_direct_tx_plan(struct gufc_app *app);

/** Tell the channel table each RX lcore's own TX queue per port. @return 0 or the error. */
int gufc_direct_tx_assign(struct gufc_app *app);

/** Lossless or not: as configured, or (auto) when every receiving port reads a file. */
bool gufc_lossless_decide(const struct gufc_app *app);

/**
 * Give the ports the TX queues configured TX channels name (before the
 * ports start).
 * @param app  the application (cfg.chans read, ports[].n_txq raised)
 */
void gufc_chan_txq_plan(struct gufc_app *app);

/**
 * Create the channel table: the default channel (configured or DISCARD),
 * the configured channels, one TX channel per port (queue 0), the default
 * channel of each input port, and the per-flow pool the "perflow" channels
 * ask for. Errors are logged.
 * @param app  the application (ports started)
 * @return 0, -ENODEV (a TX channel's port does not exist), or the error of
 *   chan_table_create()/chan_create().
 */
int gufc_chan_init(struct gufc_app *app);

/**
 * Create a channel at run time (the shell).
 * @param app  the application
 * @param c    the description (gufc_chan_parse())
 * @return the channel id, or -ENODEV (no such port), -ERANGE (no such TX
 *   queue on the port), -ENOTSUP (perflow with a count: the pool is sized
 *   at start), -ENOSPC (perflow without a per-flow pool), -ENAMETOOLONG
 *   (pcap path), or chan_create()'s -EEXIST, -EINVAL (bad name or
 *   parameters), -ENOMEM, -EIO.
 */
int gufc_chan_add(struct gufc_app *app, const struct gufc_chan_cfg *c);

/** Why a channel cannot be deleted (gufc_chan_del()). */
struct gufc_chan_busy {
	enum {
		GUFC_CHAN_BUSY_NONE,
		GUFC_CHAN_BUSY_DEFAULT,  /**< the default channel */
		GUFC_CHAN_BUSY_PORT,     /**< the TX channel of @c port */
		GUFC_CHAN_BUSY_PENDING,  /**< rule @c rule_id of the uncommitted set names it */
		GUFC_CHAN_BUSY_RULE,     /**< committed rule @c rule_id names it */
		GUFC_CHAN_BUSY_FLOWS,    /**< cached flows use it */
		GUFC_CHAN_BUSY_RX,       /**< an RX lcore did not finish its burst in time */
		GUFC_CHAN_BUSY_CONSUMER, /**< a consumer is attached or per-flow rings are in use */
	} why;
	uint32_t rule_id;
	uint16_t port;
};

/**
 * Delete a channel no rule, flow or port uses, once no RX lcore can still
 * hold an action naming it.
 * @param app      the application
 * @param name     the channel
 * @param pending  rules not committed yet that must not name it (may be NULL)
 * @param busy     receives why not, for -EPERM and -EBUSY
 * @return 0, -ENOENT (no such channel), -EPERM (default or port channel),
 *   -EBUSY (@p busy says why), or an error of gufc_ctl_call()/chan_delete().
 */
int gufc_chan_del(struct gufc_app *app, const char *name, const struct rule_set *pending,
	struct gufc_chan_busy *busy);

/**
 * Create the channels a rule set names that do not exist yet: a pcap file
 * "NAME.pcap" under --channel-pcap-dir, else a discard channel.
 * @param app  the application
 * @param set  the rule set
 * @return 0, or the error of chan_create() (logged).
 */
int gufc_channels_for_rules(struct gufc_app *app, const struct rule_set *set);

/**
 * Commit a rule set the way the shell and the config do: the channels it
 * names are created, then gufc_ctl_commit().
 * @param app  the application
 * @param set  the rule set (ownership passes, whatever the result)
 * @return as gufc_ctl_commit(), or the error of gufc_channels_for_rules().
 */
int gufc_chan_commit(struct gufc_app *app, struct rule_set *set);

/* ------------------------------------------------------------------------ */
/* Collectors (gufc_collect.c)                                               */
/* ------------------------------------------------------------------------ */

/**
 * One rule with its counters, as "show rules" and /gufc/rules give it; or
 * (@c hook below RULE_HOOK__COUNT) a built-in chain's policy: the base
 * chain of @c table at @c hook, the packets that left it by its end.
 */
struct gufc_rule_row {
	uint32_t id;  /**< rule id; a policy's: RULE_ID_CHAIN_POLICY() */
	uint8_t table;
	uint8_t hook; /**< a policy's hook; RULE_HOOK__COUNT for a rule */
	uint8_t family; /**< a policy's: FC_AF_INET4 or FC_AF_INET6 (each has its own) */
	uint32_t pos; /**< 1-based position in its chain (0: a policy) */
	char chain[RULE_NAME_MAX];
	uint64_t packets;
	uint64_t bytes;
	char text[RULE_TEXT_MAX]; /**< the rule; a policy's "accept" or "drop" */
};

/**
 * Read the committed rules and their counters (on the rules lcore), then
 * per family the policies of the hooks that have a base chain (each its
 * imported counters plus what it counted).
 * @param app   the application
 * @param rows  receives a malloc'ed array (the caller frees it)
 * @param n     receives the number of rows
 * @param max   most rule rows (the policies come on top)
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_rules(struct gufc_app *app, struct gufc_rule_row **rows, unsigned int *n,
	unsigned int max);

/**
 * The committed rules of one family as iptables-save -c writes them, each
 * rule's counters its imported ones plus what gufc counted (on the rules
 * lcore).
 * @param app     the application
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @param text    receives the text (free() it)
 * @return 0, -ENOMEM, -EINVAL, or an error of gufc_ctl_call().
 */
int gufc_collect_iptables(struct gufc_app *app, unsigned int family, char **text);

/** One flow, as "show flows" and /gufc/flows give it. */
struct gufc_flow_row {
	struct rule_flow_info info;
	char key[FC_KEY_STRLEN];
	char text[512]; /**< rule_engine_flow_format() */
};

/**
 * Read up to @p max flows (on the rules lcore).
 * @param app    the application
 * @param match  only flows this rule's matches accept (NULL: all)
 * @param exact  only the flow of this key, local bits aside (NULL: any)
 * @param max    most rows
 * @param rows   receives a malloc'ed array (the caller frees it)
 * @param n      receives the number of rows
 * @param total  receives the number of flows that matched (>= @p n)
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_flows(struct gufc_app *app, const struct rule *match, const struct fc_key *exact,
	unsigned int max, struct gufc_flow_row **rows, unsigned int *n, uint64_t *total);

/** Most rows "show recent" prints. */
#define GUFC_RECENT_ROWS_MAX 1024

/** One address of a "-m recent" list, or (has == 0) an empty list. */
struct gufc_recent_row {
	char name[RULE_XNAME_MAX];   /**< the list */
	uint32_t entries;            /**< addresses the list holds */
	int has;                     /**< 1: @c e is an address of it */
	struct rule_recent_entry e;
	char addr[46];               /**< e's address as text (INET6_ADDRSTRLEN) */
	uint64_t last_ms;            /**< how long ago its newest stamp was */
	uint64_t first_ms;           /**< how long ago its oldest stamp held was */
};

/**
 * Read the "-m recent" lists (on the rules lcore): a row per address,
 * least recently set or updated first per list, a row per empty list.
 * @param app   the application
 * @param max   most rows
 * @param rows  receives a malloc'ed array (the caller frees it)
 * @param n     receives the number of rows
 * @param total receives the number of rows there were (>= @p n)
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_recent(struct gufc_app *app, unsigned int max, struct gufc_recent_row **rows,
	unsigned int *n, unsigned int *total);

/**
 * Read the "-m hashlimit" tables (on the rules lcore), one row each.
 * @param app   the application
 * @param rows  receives a malloc'ed array (the caller frees it; NULL for none)
 * @param n     receives the number of rows
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_hashlimit(struct gufc_app *app, struct rule_hashlimit_info **rows,
	unsigned int *n);

/**
 * Read the "-m quota" countdowns (on the rules lcore), one row each
 * (rule_engine_quota_info()); as gufc_collect_hashlimit().
 */
int gufc_collect_quota(struct gufc_app *app, struct rule_quota_info **rows, unsigned int *n);

/**
 * Print the recent lists and hashlimit tables (the shell's "show recent").
 * @param app  the application
 * @param f    where
 * @return 0, or an error of the collectors.
 */
int gufc_show_recent(struct gufc_app *app, FILE *f);

/**
 * Write the recent lists, hashlimit tables and connlimit counts as JSON
 * members ("recent": {...}, "hashlimit": {...}, "connlimit": {...}; no
 * trailing comma) for --stats-json.
 * @param app  the application
 * @param t    the totals (the dropped counts)
 * @param f    where
 * Context: main lcore, once the other lcores stopped (reads the engine directly).
 */
void gufc_recent_json(const struct gufc_app *app, const struct gufc_totals *t, FILE *f);

/* ------------------------------------------------------------------------ */
/* Ports and router mode (gufc_router.c)                                     */
/* ------------------------------------------------------------------------ */

/**
 * Is @p name a port name (1..15 of A-Z a-z 0-9 _ - . : @, as rules' -i/-o name it)?
 * @param name  the name
 * @param why   receives the reason on error (static text)
 * @return 0, -EINVAL.
 */
int gufc_port_name_check(const char *name, const char **why);

/**
 * May @p port get address @p a (ADDR/LEN: a unicast host address, not its
 * prefix's network, broadcast or subnet-router address, on no port yet,
 * room on the port)?
 * @param cfg   the configuration (the ports' addresses)
 * @param port  the port
 * @param a     the address and its connected prefix length
 * @param why   receives the reason on error (static text)
 * @return 0, -EINVAL, -EEXIST (a port has it), -ENOSPC (MOD_NEIGH_PORT_ADDRS).
 */
int gufc_port_addr_check(const struct gufc_config *cfg, uint16_t port, const struct lex_prefix *a,
	const char **why);

/**
 * The port a gateway is reached by: the one whose address prefix holds it
 * (the longest such prefix).
 * @param cfg     the configuration
 * @param family  LEX_AF_INET4 or LEX_AF_INET6
 * @param gw      the gateway
 * @return the port, -ENOENT (no prefix holds it), -EEXIST (it is a port's own address).
 */
int gufc_port_of_gw(const struct gufc_config *cfg, uint8_t family, const uint8_t *gw);

/**
 * Ports at start: MTUs, the port addresses into the local-address table,
 * and in router mode the neighbour module (ports, addresses) and the
 * "local" channel (created as a discard channel unless configured).
 * @param app  the application (ports started, channels and engine created)
 * @return 0 or -errno (logged).
 * Context: main lcore, before traffic.
 */
int gufc_router_init(struct gufc_app *app);

/**
 * The connected routes of the port addresses, then the configured routes.
 * @param app  the application (route module created)
 * @return 0 or -errno (logged).
 * Context: main lcore, before traffic.
 */
int gufc_router_routes(struct gufc_app *app);

/** A datapath context's ICMP budget, and in router mode its router fields. */
void gufc_router_dp(const struct gufc_app *app, struct dp_ctx *c);

/** gufc_ctl_mode()'s request (rules lcore). */
struct gufc_mode_arg {
	enum gufc_mode mode;
	unsigned int flushed;
};

/**
 * Switch between bridge and router mode at run time ("set mode"): in
 * router mode the neighbour module (made on the first switch) answers and
 * resolves, the route module takes adjacencies, the datapath rewrites;
 * then every cached flow is flushed so that the next packets set them up
 * in the new mode (connections' conntrack state goes with them, as after
 * "flush flows"). Packets waiting for a next hop are dropped when leaving
 * router mode (neigh_failed).
 * @param app      the application
 * @param mode     the new mode (the current one: nothing happens)
 * @param flushed  receives the number of flows flushed
 * @return 0, -ENOMEM (neighbour table or "local" channel), or an error of
 *   gufc_ctl_call(); on error the mode is unchanged.
 * Context: main lcore (the shell).
 */
int gufc_ctl_mode(struct gufc_app *app, enum gufc_mode mode, unsigned int *flushed);

/** Free the neighbour module. Context: main lcore, after rule_engine_free(). */
void gufc_router_fini(struct gufc_app *app);

/** Route module callbacks (mod_route_params::adj_get_fn / adj_put_fn), @p arg the app. */
uint16_t gufc_router_adj_get(void *arg, uint16_t port, uint8_t family, const uint8_t *addr);
void gufc_router_adj_put(void *arg, uint16_t adj);

/**
 * Masquerade's address: the first address of @p family of output port
 * @p port (RULE_PORT_PAIRED: the input port's pair; RULE_PORT_LOCAL: the
 * input port).
 * @param app      the application
 * @param port     the output port or marker
 * @param in_port  the input port
 * @param family   LEX_AF_INET4 or LEX_AF_INET6
 * @param addr     receives it
 * @return 0, -ENOENT (the port has no address of the family).
 * Context: rules lcore.
 */
int gufc_router_masq_addr(const struct gufc_app *app, uint16_t port, uint16_t in_port,
	uint8_t family, uint8_t *addr);

/**
 * Give a port an address, or take it (the local address, the connected
 * route and, in router mode, where the port answers ARP/ND; announced).
 * @param app   the application
 * @param port  the port
 * @param a     the address and its connected prefix length
 * @param add   add, else delete
 * @return 0, -ENODEV (no such port), gufc_port_addr_check()'s errors,
 *   -ENOENT (the port does not have it), or an error of gufc_ctl_call().
 */
int gufc_ctl_port_addr(struct gufc_app *app, uint16_t port, const struct lex_prefix *a, bool add);

/**
 * The port named @p name ("port N name NAME").
 * @param cfg   the configuration
 * @param name  the name
 * @return the port, -ENOENT.
 */
int gufc_port_by_name(const struct gufc_config *cfg, const char *name);

/**
 * Name a port (or rename it).
 * @param app   the application
 * @param port  the port
 * @param name  the name (gufc_port_name_check())
 * @return 0, -ENODEV, -EINVAL, -EEXIST (another port has it), or an error of
 *   gufc_ctl_call().
 */
int gufc_ctl_port_name(struct gufc_app *app, uint16_t port, const char *name);

/**
 * Set @p port's MTU as the config's "port N mtu M" sets it at start: the
 * device's (gufc_port_dev_mtu(): @p mtu above 1500, else the device's own)
 * and the MTU gufc routes with (its adjacencies follow at once). A device
 * that refuses it leaves both as they were.
 * @param app   the application
 * @param port  the port
 * @param mtu   GUFC_MTU_MIN..GUFC_MTU_MAX
 * @param[out] why  a device's refusal, in words (@p n bytes; "" otherwise)
 * @return 0, -ENODEV, -EINVAL, -ERANGE (under 1280 on a port with an IPv6
 *   address), a device's refusal (-EINVAL, -ENOTSUP, the PMD's: @p why),
 *   or an error of gufc_ctl_call().
 */
int gufc_ctl_port_mtu(struct gufc_app *app, uint16_t port, uint16_t mtu, char *why, size_t n);

/**
 * Read every port's configuration (on the rules lcore, or directly once it
 * is gone), @c mtu the one in use.
 * @param app  the application
 * @param pc   receives GUFC_MAX_PORTS entries
 * @return 0, or an error of gufc_ctl_call().
 */
int gufc_collect_ports(struct gufc_app *app, struct gufc_port_cfg *pc);

/**
 * Read up to @p max neighbours (on the rules lcore); none in bridge mode.
 * @param app   the application
 * @param rows  receives a malloc'ed array (the caller frees it)
 * @param n     receives the number of rows
 * @param max   most rows
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_neighbours(struct gufc_app *app, struct mod_neigh_info **rows, unsigned int *n,
	unsigned int max);

/** A route as listings show it, with its table (gufc_collect_route_rows()). */
struct gufc_route_row {
	struct mod_route_info ri;
	uint32_t table;                 /**< MOD_ROUTE_TABLE_MAIN, or another table's id */
	char name[MOD_ROUTE_NAME_MAX];  /**< the table's name ("main"; "" made by number) */
};

/**
 * Read up to @p max routes (on the rules lcore): the main table's, then
 * each other table's, in the order `show routes` lists them.
 * @param app   the application
 * @param rows  receives a malloc'ed array (the caller frees it)
 * @param n     receives the number of rows
 * @param max   most rows
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_collect_route_rows(struct gufc_app *app, struct gufc_route_row **rows, unsigned int *n,
	unsigned int max);

/* ------------------------------------------------------------------------ */
/* Ports, neighbours, routes as text and JSON (gufc_router_show.c)           */
/* ------------------------------------------------------------------------ */

/** "bridge" or "router". */
const char *gufc_mode_name(const struct gufc_app *app);

/**
 * A port's addresses, "10.0.1.1/24 2001:db8:1::1/64".
 * @return the length, -ENOSPC (cut).
 */
int gufc_port_addrs_text(const struct gufc_port_cfg *pc, char *buf, size_t len);

/** A port's VLAN counters (gufc_port_vlan_counts()). */
struct gufc_vlan_counts {
	uint64_t rx;       /**< VLAN sub-interface: packets received (its parent's, tagged) */
	uint64_t tx;       /**< VLAN sub-interface: packets its TX channel sent (tagged) */
	uint64_t tx_drops; /**< VLAN sub-interface: packets its TX channel dropped (ring, queue full) */
	uint64_t unknown;  /**< a device: frames tagged with a VLAN it has no sub-interface for */
};

/** Port @p p's VLAN counters (zeros for a device without sub-interfaces). */
void gufc_port_vlan_counts(struct gufc_app *app, uint16_t p, struct gufc_vlan_counts *v);

/** A MAC as "02:00:00:00:00:01". */
void gufc_mac_text(const uint8_t *mac, char buf[18]);

/** Router mode's counters, as lines with labels @p w wide (show stats, summary). */
void gufc_router_stats_text(const struct gufc_totals *t, FILE *f, int w);

/**
 * "show ports", "show neighbours", "show routes".
 * @return 0, -ENOMEM, or an error of gufc_ctl_call().
 */
int gufc_show_ports(struct gufc_app *app, FILE *f);
int gufc_show_neighbours(struct gufc_app *app, FILE *f);
int gufc_show_routes(struct gufc_app *app, FILE *f);

/** The stats JSON's "mode", "router", "ports", "neighbours" and "routes" members. */
void gufc_router_json(struct gufc_app *app, const struct gufc_totals *t, FILE *f);

#endif /* GUFC_CTL_H */
