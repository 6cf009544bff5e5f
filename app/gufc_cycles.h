/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_cycles.h — busy and idle TSC cycles of an lcore's roles, the
 * way testpmd's and OVS's pmd-stats-show count them: each loop iteration
 * of a role is timed once (rte_rdtsc() around it, never per packet) and
 * its cycles go to "busy" when the iteration did work (packets received,
 * decided or consumed; a shell or telemetry request answered), else to
 * "idle". busy / (busy + idle) is how loaded the role keeps its lcore.
 *
 * Pure (no EAL): the counting and the arithmetic the displays share, so
 * they are unit-tested alone (tests/unit/app). Owner: the lcore whose
 * struct gufc_stats holds them writes; readers (shell, telemetry, JSON)
 * read plain 64-bit values, possibly a loop behind.
 */
#ifndef GUFC_CYCLES_H
#define GUFC_CYCLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Roles timed per lcore, in display order. */
enum gufc_cyc_role {
	GUFC_CYC_RX,	/**< RX: port bursts and the fast path */
	GUFC_CYC_RULES, /**< rules: upcalls, background work, channel consumers */
	GUFC_CYC_MAIN,	/**< main: control (shell, telemetry, statistics, reloads) */
	GUFC_CYC__COUNT
};

/** Busy and idle cycles of one role on one lcore. */
struct gufc_cycles {
	uint64_t busy;
	uint64_t idle;
};

/** Count one iteration of @p cycles, busy or not. */
static inline void
gufc_cycles_add(struct gufc_cycles *c, uint64_t cycles, bool busy)
{
	if (busy)
		c->busy += cycles;
	else
		c->idle += cycles;
}

/** Cycles counted at all. */
static inline uint64_t
gufc_cycles_total(const struct gufc_cycles *c)
{
	return c->busy + c->idle;
}

/** @p a += @p b. */
static inline void
gufc_cycles_acc(struct gufc_cycles *a, const struct gufc_cycles *b)
{
	a->busy += b->busy;
	a->idle += b->idle;
}

/** Busy share in 0..1 (0 when nothing was counted). */
static inline double
gufc_cycles_share(const struct gufc_cycles *c)
{
	uint64_t t = gufc_cycles_total(c);

	return t != 0 ? (double)c->busy / (double)t : 0.0;
}

/** Busy share between two readings @p before and @p after (0 when equal). */
static inline double
gufc_cycles_share_delta(const struct gufc_cycles *before, const struct gufc_cycles *after)
{
	struct gufc_cycles d = {after->busy - before->busy, after->idle - before->idle};

	return gufc_cycles_share(&d);
}

/** Name of a role ("rx", "rules", "main"; "?" out of range). */
static inline const char *
gufc_cyc_role_name(unsigned int r)
{
	static const char *const names[GUFC_CYC__COUNT] = {"rx", "rules", "main"};

	return r < GUFC_CYC__COUNT ? names[r] : "?";
}

/**
 * One line of "show lcores": "  rx     busy CYC  idle CYC  SHARE%".
 * @return characters written (snprintf's), negative on error.
 */
static inline int
gufc_cycles_format(char *buf, size_t len, unsigned int role, const struct gufc_cycles *c)
{
	return snprintf(buf, len, "%-6s %20llu %20llu %7.2f%%", gufc_cyc_role_name(role),
		(unsigned long long)c->busy, (unsigned long long)c->idle,
		100.0 * gufc_cycles_share(c));
}

#endif /* GUFC_CYCLES_H */
