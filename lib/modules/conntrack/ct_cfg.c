/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_cfg.c — the conntrack module's configuration:
 * defaults, the check of a configuration, and the names of timeouts and of
 * the reasons a packet is invalid (the shell, telemetry and JSON print them).
 * Pure; part of conntrack.c's core (doc/conntrack.md).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "ct_priv.h"

/* ------------------------------------------------------------------------ */
/* Configuration                                                             */
/* ------------------------------------------------------------------------ */

static const char *const timeout_names[MOD_CT_TO__COUNT] = {
#define MOD_CT_TO_NAME(name, text, ms) [MOD_CT_TO_##name] = text,
	MOD_CT_TIMEOUTS(MOD_CT_TO_NAME)
#undef MOD_CT_TO_NAME
};

static const uint32_t timeout_defaults[MOD_CT_TO__COUNT] = {
#define MOD_CT_TO_DEFAULT(name, text, ms) [MOD_CT_TO_##name] = ms,
	MOD_CT_TIMEOUTS(MOD_CT_TO_DEFAULT)
#undef MOD_CT_TO_DEFAULT
};

static const char *const why_names[MOD_CT_WHY__COUNT] = {
#define MOD_CT_WHY_NAME(name, text) [MOD_CT_WHY_##name] = text,
	MOD_CT_INVALID_REASONS(MOD_CT_WHY_NAME)
#undef MOD_CT_WHY_NAME
};

void
mod_ct_cfg_init(struct mod_ct_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tcp_strict = false;
	cfg->tcp_be_liberal = false;
	cfg->tcp_max_retrans = MOD_CT_MAX_RETRANS_DEFAULT;
	memcpy(cfg->timeout, timeout_defaults, sizeof(cfg->timeout));
}

int
mod_ct_cfg_check(const struct mod_ct_cfg *cfg)
{
	unsigned int i;

	if (cfg == NULL)
		return -EINVAL;
	for (i = 0; i < MOD_CT_TO__COUNT; i++)
		if (cfg->timeout[i] == 0)
			return -EINVAL;
	return 0;
}

const char *
mod_ct_timeout_name(unsigned int to)
{
	if (to >= MOD_CT_TO__COUNT)
		return "?";
	return timeout_names[to];
}

const char *
mod_ct_why_name(unsigned int why)
{
	if (why >= MOD_CT_WHY__COUNT)
		return "?";
	return why_names[why];
}

int
mod_ct_timeout_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return -EINVAL;
	for (i = 0; i < MOD_CT_TO__COUNT; i++)
		if (strcmp(name, timeout_names[i]) == 0)
			return (int)i;
	return -ENOENT;
}
