/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules private: the ipsets' layout, shared by the lookups and changes
 * (rule_ipset.c) and the reader of "ipset save" files (rule_ipset_load.c).
 */
#ifndef GUFC_RULE_IPSET_PRIV_H
#define GUFC_RULE_IPSET_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rule_priv.h"

enum ipset_type {
	IPSET_HASH_IP,
	IPSET_HASH_NET,
	IPSET_HASH_IP_PORT,
	IPSET_HASH_NET_PORT,
	IPSET_HASH_IP_PORT_IP,
	IPSET_HASH_IP_PORT_NET,
	IPSET_HASH_NET_IFACE,
	IPSET_BITMAP_PORT,
	IPSET_BITMAP_IP,
	IPSET_LIST_SET,
	IPSET__TYPES
};

/* What a type's members are made of (bitmap:port and list:set aside). */
#define IPSET_NET   1u  /**< the first address is a network (a prefix length per member) */
#define IPSET_PORT  2u  /**< a protocol and port second */
#define IPSET_ADDR2 4u  /**< a second address third */
#define IPSET_IFACE 8u  /**< an interface name second */
#define IPSET_NET2  16u /**< the second address is a network */

extern const char *const ipset_types[IPSET__TYPES];
extern const uint8_t ipset_shape[IPSET__TYPES];

/** Does the type take "nomatch" members (a network in it, as Linux's)? */
static inline bool
ipset_nomatch_ok(unsigned int type)
{
	return (ipset_shape[type] & (IPSET_NET | IPSET_NET2)) != 0;
}

/** Longest interface name a member holds (Linux's IFNAMSIZ less its NUL). */
#define IPSET_IFNAME_MAX 16

/** Members a list:set holds at most (its "size"; Linux's default 8). */
#define IPSET_LIST_MAX 64

/**
 * One member: an address (a prefix for the net types), a port with its
 * protocol, a second address (a prefix for hash:ip,port,net), an
 * interface name (hash:net,iface: @c wild makes it a prefix of the names
 * it matches). Unused fields are zero. @c nomatch is not part of the
 * member's identity: it says the member is an exception (the lookup that
 * finds it first answers "not in the set").
 */
struct ipset_ent {
	uint8_t addr[16];
	uint8_t addr2[16];
	uint8_t len;
	uint8_t len2;
	uint8_t proto;
	uint8_t nomatch;
	uint16_t port;
	uint8_t wild; /**< hash:net,iface "wildcard": @c iface is a prefix */
	char iface[IPSET_IFNAME_MAX];
	uint64_t expires; /**< wall-clock second it expires at, 0: never */
};

struct ipset {
	char name[RULE_XNAME_MAX];
	uint8_t type;    /**< enum ipset_type */
	uint8_t family;  /**< FC_AF_INET4/6; 0 for bitmap:port and list:set */
	uint8_t netmask; /**< hash:ip, bitmap:ip: addresses kept under this prefix */
	uint16_t port_min, port_max; /**< bitmap:port range */
	uint32_t ip_min, ip_max;     /**< bitmap:ip range (host order) */
	uint32_t timeout;            /**< default entry timeout, 0: none */
	bool timeouts;               /**< made with "timeout" (0 too): members may time out */
	uint32_t maxelem;            /**< members it may hold (the hash types) */
	uint32_t n, cap;
	struct ipset_ent *e; /**< sorted (ent_cmp) once loaded */
	uint32_t lens[2][129]; /**< members per prefix length, first and second address */
	uint64_t *bits;      /**< bitmap:port: one bit per port */
	uint64_t *bit_exp;   /**< bitmap:port: per-port expiry (NULL without timeouts) */
	/* list:set: the member sets, in order, and when each expires (0: never) */
	uint32_t n_list, list_size;
	uint16_t list[IPSET_LIST_MAX];
	uint64_t list_exp[IPSET_LIST_MAX];
};

struct rule_ipsets {
	unsigned int refs;
	unsigned int n;
	struct ipset *s;
};

/** Total order of members (the flag nomatch and the expiry left out). */
int ipset_ent_cmp(const void *a, const void *b);

/** Clear the bits of @p a past the first @p len. */
void ipset_mask_to(uint8_t *a, unsigned int len);

/** Room for one more member in @p st's array (doubled when full). @return 0, -ENOMEM. */
int ipset_ent_room(struct ipset *st);

/** Count @p e's prefix lengths in (@p d 1) or out of (@p d -1) the set's tallies. */
void ipset_lens_count(struct ipset *st, const struct ipset_ent *e, int d);

#endif /* GUFC_RULE_IPSET_PRIV_H */
