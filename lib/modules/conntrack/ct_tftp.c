/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/conntrack/ct_tftp.c — the TFTP helper's pure part: which
 * packets of a TFTP connection open a transfer (a read or write request,
 * RFC 1350), as Linux's nf_conntrack_tftp decides it. What the helper then
 * expects is the module's (ct_helper.c). See conntrack_helper.h.
 */

#include <errno.h>

#include "ct_priv.h"

int
mod_ct_tftp_parse(const uint8_t *data, uint32_t len)
{
	unsigned int op;

	if (len < 2)
		return 0;
	if (data == NULL)
		return -EINVAL;
	op = (unsigned int)data[0] << 8 | data[1];
	return op == MOD_CT_TFTP_RRQ || op == MOD_CT_TFTP_WRQ ? (int)op : 0;
}
