/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_rteflow.c — the rte_flow backend: the translated
 * arrays go to the port's PMD through rte_flow_validate / rte_flow_create /
 * rte_flow_destroy / rte_flow_query. The backend state is the port id.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_flow.h>

#include "offload.h"
#include "ofl_priv.h"

static int
rf_validate(void *be, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *err)
{
	const struct ofl_rteflow *rf = be;
	int rc = rte_flow_validate(rf->port_id, attr, pattern, actions, err);

	return rc < 0 ? rc : 0;
}

static void *
rf_create(void *be, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct rte_flow_error *err)
{
	const struct ofl_rteflow *rf = be;

	return rte_flow_create(rf->port_id, attr, pattern, actions, err);
}

static int
rf_destroy(void *be, void *rule, struct rte_flow_error *err)
{
	const struct ofl_rteflow *rf = be;

	return rte_flow_destroy(rf->port_id, rule, err);
}

static int
rf_query_count(void *be, void *rule, struct ofl_count *c, struct rte_flow_error *err)
{
	const struct ofl_rteflow *rf = be;
	struct rte_flow_query_count q = {.reset = 0};
	const struct rte_flow_action a[2] = {
		{.type = RTE_FLOW_ACTION_TYPE_COUNT},
		{.type = RTE_FLOW_ACTION_TYPE_END},
	};
	int rc = rte_flow_query(rf->port_id, rule, a, &q, err);

	if (rc < 0)
		return rc;
	c->packets = q.hits_set ? q.hits : 0;
	c->bytes = q.bytes_set ? q.bytes : 0;
	return 0;
}

static int
rf_query_age(void *be, void *rule, bool *aged, uint32_t *idle_s, struct rte_flow_error *err)
{
	const struct ofl_rteflow *rf = be;
	struct rte_flow_query_age q = {0};
	const struct rte_flow_action a[2] = {
		{.type = RTE_FLOW_ACTION_TYPE_AGE},
		{.type = RTE_FLOW_ACTION_TYPE_END},
	};
	int rc = rte_flow_query(rf->port_id, rule, a, &q, err);

	if (rc < 0)
		return rc;
	*aged = q.aged;
	*idle_s = q.sec_since_last_hit_valid ? q.sec_since_last_hit : 0;
	return 0;
}

static void
rf_fini(void *be)
{
	free(be);
}

const struct ofl_ops ofl_rteflow_ops = {
	.name = "rteflow",
	.validate = rf_validate,
	.create = rf_create,
	.destroy = rf_destroy,
	.query_count = rf_query_count,
	.query_age = rf_query_age,
	.fini = rf_fini,
};

void *
ofl_rteflow_init(uint16_t port_id)
{
	struct ofl_rteflow *rf = calloc(1, sizeof(*rf));

	if (rf == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rf->port_id = port_id;
	return rf;
}
