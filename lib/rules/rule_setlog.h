/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — a rule set's change log: which rules a set changed since the
 * commit it was cloned from (read by the rules engine's commit).
 *
 * Part of rules.h (which includes it; include rules.h).
 */
#ifndef GUFC_RULE_SETLOG_H
#define GUFC_RULE_SETLOG_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Change log, read by the rules engine's commit to know which rules a new
 * set changed. A set that was committed carries an empty log with a unique
 * token (rule_set_log_start()); rule_set_clone() copies the log, so a clone
 * (or a clone of a clone) lists every rule touched since that commit: rules
 * inserted (new content), removed (old content), replaced (both). Chain
 * hooks and policies are not logged: the engine compares them itself. Sets
 * not cloned from a committed set have no log. The log is owned by its set
 * and written by the rule_set_* editing functions only.
 */

/** One logged rule: its table and its content (old or new). */
struct rule_log_ent {
	uint8_t table; /**< enum rule_table */
	struct rule r;
};

/** Most entries a log holds; past that it only says "overflow". */
#define RULE_LOG_MAX 4096

/** A set's change log (rule_set_log()). Read-only to users. */
struct rule_log {
	uint64_t token;   /**< identity of the committed ancestor */
	uint32_t adds;    /**< rules inserted */
	uint32_t removes; /**< rules removed */
	bool overflow;    /**< more than RULE_LOG_MAX entries: content unknown */
	uint32_t n;       /**< entries in @c e */
	uint32_t cap;     /**< allocated entries */
	struct rule_log_ent *e;
};

/**
 * Give @p s an empty log with a fresh unique token: the set is being
 * committed.
 * @param s  the set
 * @return 0, or -ENOMEM (the set then has no log: the next commit of a
 *   clone of it counts as "everything changed").
 * Context: the set's owner (the rules lcore, for a committed set).
 */
int rule_set_log_start(struct rule_set *s);

/**
 * The change log of @p s.
 * @param s  the set
 * @return the log (valid until the set's next edit), or NULL if it has none.
 * Context: any thread holding @p s read-only.
 */
const struct rule_log *rule_set_log(const struct rule_set *s);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_SETLOG_H */
