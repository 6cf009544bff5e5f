/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/unit/modules/ct_short.h — short names the conntrack tests write
 * their segment tables with: directions, TCP flags and tracker states.
 */
#ifndef GUFC_TEST_CT_SHORT_H
#define GUFC_TEST_CT_SHORT_H

#include "conntrack.h"
#include "pkt_build.h"

#define O MOD_CT_DIR_ORIG
#define R MOD_CT_DIR_REPLY

/* TCP flags. */
#define F_FIN PB_TCP_FIN
#define F_SYN PB_TCP_SYN
#define F_RST PB_TCP_RST
#define F_PSH PB_TCP_PSH
#define F_ACK PB_TCP_ACK
#define F_URG 0x20
#define F_SA  (F_SYN | F_ACK)
#define F_FA  (F_FIN | F_ACK)
#define F_RA  (F_RST | F_ACK)
#define F_PA  (F_PSH | F_ACK)

/* States, short. */
#define NO MOD_CT_S_NONE
#define SS MOD_CT_S_SYN_SENT
#define SR MOD_CT_S_SYN_RECV
#define ES MOD_CT_S_ESTABLISHED
#define FW MOD_CT_S_FIN_WAIT
#define CW MOD_CT_S_CLOSE_WAIT
#define LA MOD_CT_S_LAST_ACK
#define TW MOD_CT_S_TIME_WAIT
#define CL MOD_CT_S_CLOSE
#define S2 MOD_CT_S_SYN_SENT2
#define OP MOD_CT_S_OPEN

#endif /* GUFC_TEST_CT_SHORT_H */
