/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_sane.c — the SANE helper's pure part: on a
 * connection to a saned (the SANE network scanner protocol), a client's
 * SANE_NET_START request and the success reply that follows, which
 * announces the port of the image data connection; as Linux's
 * nf_conntrack_sane reads them. See conntrack_helper.h.
 */

#include <errno.h>

#include "ct_priv.h"

#define SANE_NET_START 7u

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint16_t
mod_ct_sane_segment(uint8_t *state, unsigned int dir, const uint8_t *data, uint32_t len)
{
	if (state == NULL || (data == NULL && len != 0))
		return 0;
	if (dir == MOD_CT_DIR_ORIG) {
		/* A request is exactly its code and a handle (8 bytes); others are left alone. */
		if (len == 8)
			*state = be32(data) == SANE_NET_START ? MOD_CT_SANE_START : MOD_CT_SANE_NORMAL;
		return 0;
	}
	if (*state != MOD_CT_SANE_START)
		return 0;
	/* The reply to SANE_NET_START: status 0, 16 zero bits, the port. */
	*state = MOD_CT_SANE_NORMAL;
	if (len < 8 || be32(data) != 0 || data[4] != 0 || data[5] != 0)
		return 0;
	return (uint16_t)(data[6] << 8 | data[7]);
}
