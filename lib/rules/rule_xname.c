/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules: the name tables of extension option values (ICMP types, TCP
 * flags, SCTP chunks, TOS names, rate units), shared by the value reader
 * and writer (rule_xval.c).
 */
#include "rule_x_priv.h"

const struct rx_icmp_name rx_icmp4_names[] = {
	{"echo-reply", 0, 0, 255}, {"pong", 0, 0, 255},
	{"destination-unreachable", 3, 0, 255}, {"network-unreachable", 3, 0, 0},
	{"host-unreachable", 3, 1, 1}, {"protocol-unreachable", 3, 2, 2},
	{"port-unreachable", 3, 3, 3}, {"fragmentation-needed", 3, 4, 4},
	{"source-route-failed", 3, 5, 5}, {"network-unknown", 3, 6, 6},
	{"host-unknown", 3, 7, 7}, {"network-prohibited", 3, 9, 9},
	{"host-prohibited", 3, 10, 10}, {"TOS-network-unreachable", 3, 11, 11},
	{"TOS-host-unreachable", 3, 12, 12}, {"communication-prohibited", 3, 13, 13},
	{"host-precedence-violation", 3, 14, 14}, {"precedence-cutoff", 3, 15, 15},
	{"source-quench", 4, 0, 255}, {"redirect", 5, 0, 255}, {"network-redirect", 5, 0, 0},
	{"host-redirect", 5, 1, 1}, {"TOS-network-redirect", 5, 2, 2},
	{"TOS-host-redirect", 5, 3, 3}, {"echo-request", 8, 0, 255}, {"ping", 8, 0, 255},
	{"router-advertisement", 9, 0, 255}, {"router-solicitation", 10, 0, 255},
	{"time-exceeded", 11, 0, 255}, {"ttl-exceeded", 11, 0, 255},
	{"ttl-zero-during-transit", 11, 0, 0}, {"ttl-zero-during-reassembly", 11, 1, 1},
	{"parameter-problem", 12, 0, 255}, {"ip-header-bad", 12, 0, 0},
	{"required-option-missing", 12, 1, 1}, {"timestamp-request", 13, 0, 255},
	{"timestamp-reply", 14, 0, 255}, {"address-mask-request", 17, 0, 255},
	{"address-mask-reply", 18, 0, 255}, {NULL, 0, 0, 0},
};

const struct rx_icmp_name rx_icmp6_names[] = {
	{"destination-unreachable", 1, 0, 255}, {"no-route", 1, 0, 0},
	{"communication-prohibited", 1, 1, 1}, {"beyond-scope", 1, 2, 2},
	{"address-unreachable", 1, 3, 3}, {"port-unreachable", 1, 4, 4},
	{"failed-policy", 1, 5, 5}, {"reject-route", 1, 6, 6},
	{"packet-too-big", 2, 0, 255}, {"time-exceeded", 3, 0, 255},
	{"ttl-exceeded", 3, 0, 255}, {"ttl-zero-during-transit", 3, 0, 0},
	{"ttl-zero-during-reassembly", 3, 1, 1}, {"parameter-problem", 4, 0, 255},
	{"bad-header", 4, 0, 0}, {"unknown-header-type", 4, 1, 1}, {"unknown-option", 4, 2, 2},
	{"echo-request", 128, 0, 255}, {"ping", 128, 0, 255}, {"echo-reply", 129, 0, 255},
	{"pong", 129, 0, 255}, {"mld-listener-query", 130, 0, 255},
	{"mld-listener-report", 131, 0, 255}, {"mld-listener-done", 132, 0, 255},
	{"mld-listener-reduction", 132, 0, 255}, {"router-solicitation", 133, 0, 255},
	{"router-advertisement", 134, 0, 255}, {"neighbour-solicitation", 135, 0, 255},
	{"neighbor-solicitation", 135, 0, 255}, {"neighbour-advertisement", 136, 0, 255},
	{"neighbor-advertisement", 136, 0, 255}, {"redirect", 137, 0, 255}, {NULL, 0, 0, 0},
};

const struct rule_xname rx_xn_tcpflags[] = {
	{"FIN", RULE_TCP_FIN}, {"SYN", RULE_TCP_SYN}, {"RST", RULE_TCP_RST},
	{"PSH", RULE_TCP_PSH}, {"ACK", RULE_TCP_ACK}, {"URG", RULE_TCP_URG},
	{"ECE", RULE_TCP_ECE}, {"CWR", RULE_TCP_CWR}, {"ALL", 0x3f}, {"NONE", 0}, XNAMES_END,
};

const struct rule_xname rx_xn_chunks[] = {
	{"DATA", 0}, {"INIT", 1}, {"INIT_ACK", 2}, {"SACK", 3}, {"HEARTBEAT", 4},
	{"HEARTBEAT_ACK", 5}, {"ABORT", 6}, {"SHUTDOWN", 7}, {"SHUTDOWN_ACK", 8},
	{"ERROR", 9}, {"COOKIE_ECHO", 10}, {"COOKIE_ACK", 11}, {"ECN_ECNE", 12},
	{"ECN_CWR", 13}, {"SHUTDOWN_COMPLETE", 14}, {"ASCONF", 193}, {"ASCONF_ACK", 128},
	{"FORWARD_TSN", 192}, XNAMES_END,
};

const struct rule_xname rx_xn_chunkmode[] = {
	{"all", RULE_SCTP_ALL}, {"any", RULE_SCTP_ANY}, {"only", RULE_SCTP_ONLY}, XNAMES_END,
};

const struct rule_xname rx_xn_tos[] = {
	{"Minimize-Delay", 0x10}, {"Maximize-Throughput", 0x08}, {"Maximize-Reliability", 0x04},
	{"Minimize-Cost", 0x02}, {"Normal-Service", 0x00}, XNAMES_END,
};

const char *const rx_rate_units[RX_RATE_UNITS] = {"sec", "min", "hour", "day"};
const char *const rx_rate_words[RX_RATE_UNITS] = {"second", "minute", "hour", "day"};

