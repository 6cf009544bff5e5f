/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/flowcache/locals.c — the local-address table: which addresses are this
 * host's own. It fills the two local bits of the keys (src_local = OUTPUT,
 * dst_local = INPUT, neither = FORWARD) for a whole burst at once; a local
 * source is OUTPUT's on the ports that carry this host's own packets only
 * (a mask of input ports), elsewhere forged (FC_KEY_F_SRC_FORGED).
 *
 * Lookups use rte_lpm (IPv4) and rte_lpm6 (IPv6); a next hop of 1 means
 * "local", nothing else is ever stored. LPM cannot enumerate its rules, so
 * the table also keeps its own sorted list of the configured prefixes for
 * dump, count and duplicate/absent detection. Prefixes are stored with their
 * host bits cleared (as LPM does), so 10.1.2.3/8 and 10.0.0.0/8 are the same.
 *
 * Ownership and concurrency:
 *  - struct fc_locals is created and freed by the main lcore; one control
 *    thread at a time calls add/del (no lock: the caller serializes writers).
 *  - Readers (fc_locals_match, fc_locals_mark_burst, any lcore) touch only
 *    the LPM tables, never the prefix list; fc_locals_count reads a counter.
 *  - No RCU is attached (choice of this unit). rte_lpm/rte_lpm6 change a
 *    lookup entry with single 32-bit stores, so a concurrent reader gets the
 *    old or the new answer for addresses under the prefix being changed, and
 *    addresses under other prefixes are unaffected. The one hazard left is
 *    the one rte_lpm documents for tbl8 groups (prefixes longer than /24):
 *    a group freed by a delete may be reused by a following add while a
 *    reader still follows the old pointer, so that one lookup may answer
 *    wrongly for an address under the deleted prefix. Local addresses change
 *    rarely, by an administrator; an application that needs strict answers
 *    during such changes should quiesce readers (its RCU) between a delete
 *    and the next add.
 *  - The table is freed only after every reader is gone.
 *
 * A prefilter keeps most lookups off the LPM tables. rte_lpm's first level
 * is 64 MiB and rte_lpm6 walks several levels, so on real traffic (source
 * addresses from the whole Internet) each lookup tends to miss the caches,
 * twice per packet, while a host has a handful of local prefixes. Each
 * family has a 65,536-bit map (8 KiB, cache resident): IPv4 by the
 * address's top 16 bits, exact (a prefix shorter than /16 sets the range it
 * covers); IPv6 by a hash of the address's first 48 bits (a prefix of /32
 * to /47 sets the bit of every /48 it covers; one shorter than /32 makes
 * every IPv6 address a candidate). A clear bit means "not local" without
 * a lookup; a set bit sends the address to LPM, which decides. The writer
 * sets an added prefix's bits after the LPM add and rebuilds the map from
 * the prefix list after a delete (bits only ever go from set to clear once
 * LPM no longer holds the prefix), storing whole words: a reader sees the
 * old or the new word, and either one gives LPM's answer.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "flowcache.h"

/** The only next hop stored: "this address is local". */
#define LOCALS_NH 1

/*
 * Longest user name. LPM object names derive from it ("fc4_<name>",
 * "fc6_<name>"), and rte_lpm6 derives its rule hash and that hash's ring
 * from those, which must fit DPDK's 32-byte memzone names.
 */
#define LOCALS_NAME_MAX 16

/** Addresses per LPM bulk lookup: src and dst of up to this many packets. */
#define LOCALS_BURST 32

/** rte_lpm6 needs up to this many tbl8 groups for one /128 prefix. */
#define LOCALS_V6_TBL8_PER_RULE 13
/** Most tbl8 groups rte_lpm6 accepts. */
#define LOCALS_V6_TBL8_MAX (1u << 21)

/** Bits of each family's prefilter (see the top of the file). */
#define LOCALS_FILT_BITS 65536u
#define LOCALS_FILT_WORDS (LOCALS_FILT_BITS / 64)
/** IPv6 prefixes at least this long set one /48's bit each. */
#define LOCALS_FILT_V6_DEPTH 48
/** IPv6 prefixes shorter than this make every address a candidate. */
#define LOCALS_FILT_V6_MIN 32

/** One configured prefix (address in network order, host bits cleared). */
struct locals_prefix {
	uint8_t addr[16];
	uint8_t depth;
};

/** The prefixes of one family, kept sorted by address then depth. */
struct locals_list {
	struct locals_prefix *p;
	uint32_t n; /**< written by the writer, read by fc_locals_count() */
	uint32_t max;
};

struct fc_locals {
	struct rte_lpm *lpm4;  /**< NULL when max_v4 == 0 */
	struct rte_lpm6 *lpm6; /**< NULL when max_v6 == 0 */
	struct locals_list v4;
	struct locals_list v6;
	char name[LOCALS_NAME_MAX + 1];
	/** Every IPv6 address is a candidate (a prefix shorter than /32). */
	uint8_t v6_all;
	/** Ports whose local sources are this host's own (bit N: port N; all ones: every port). */
	uint64_t host_ports;
	/** Prefilters: a clear bit means not local (read word by word). */
	uint64_t filt4[LOCALS_FILT_WORDS] __rte_cache_aligned;
	uint64_t filt6[LOCALS_FILT_WORDS] __rte_cache_aligned;
};

/* Prefilter bit of an IPv4 address (host order). */
static inline uint32_t
filt4_bit(uint32_t ip)
{
	return ip >> 16;
}

/* Prefilter bit of the /48 that @p addr (16 bytes, network order) is in. */
static inline uint32_t
filt6_bit(const uint8_t *addr)
{
	uint64_t x = 0;

	for (unsigned int i = 0; i < 6; i++)
		x = (x << 8) | addr[i];
	return (uint32_t)((x * UINT64_C(0x9e3779b97f4a7c15)) >> 48);
}

static inline bool
filt_test(const uint64_t *f, uint32_t bit)
{
	return (__atomic_load_n(&f[bit / 64], __ATOMIC_RELAXED) >> (bit % 64)) & 1;
}

/* Set the bits of one prefix in @p f (a private copy or the live map: whole words). */
static void
filt_add(uint64_t *f, uint8_t *v6_all, int family, const uint8_t *addr, uint8_t depth)
{
	uint64_t first, count;

	if (family == FC_AF_INET4) {
		uint32_t ip;

		memcpy(&ip, addr, sizeof(ip));
		first = filt4_bit(rte_be_to_cpu_32(ip));
		count = depth >= 16 ? 1 : UINT64_C(1) << (16 - depth);
		for (uint64_t b = first; b < first + count; b++)
			__atomic_store_n(&f[b / 64], f[b / 64] | (UINT64_C(1) << (b % 64)),
				__ATOMIC_RELEASE);
		return;
	}
	if (depth < LOCALS_FILT_V6_MIN) {
		__atomic_store_n(v6_all, 1, __ATOMIC_RELEASE);
		return;
	}
	count = depth >= LOCALS_FILT_V6_DEPTH ? 1 :
		UINT64_C(1) << (LOCALS_FILT_V6_DEPTH - depth);
	for (uint64_t i = 0; i < count; i++) {
		uint8_t a[16];
		uint64_t x = 0;
		uint32_t b;

		/* The i-th /48 under the prefix: bits 32..47 of the address. */
		memcpy(a, addr, sizeof(a));
		for (unsigned int k = 0; k < 6; k++)
			x = (x << 8) | a[k];
		x |= i;
		for (int k = 5; k >= 0; k--, x >>= 8)
			a[k] = (uint8_t)x;
		b = filt6_bit(a);
		__atomic_store_n(&f[b / 64], f[b / 64] | (UINT64_C(1) << (b % 64)),
			__ATOMIC_RELEASE);
	}
}

/* After a delete: the family's map rebuilt from its prefix list. */
static void
filt_rebuild(struct fc_locals *l, int family)
{
	const struct locals_list *ls = family == FC_AF_INET4 ? &l->v4 : &l->v6;
	uint64_t *live = family == FC_AF_INET4 ? l->filt4 : l->filt6;
	uint64_t fresh[LOCALS_FILT_WORDS];
	uint8_t all = 0;

	memset(fresh, 0, sizeof(fresh));
	for (uint32_t i = 0; i < ls->n; i++)
		filt_add(fresh, &all, family, ls->p[i].addr, ls->p[i].depth);
	for (unsigned int w = 0; w < LOCALS_FILT_WORDS; w++)
		if (live[w] != fresh[w])
			__atomic_store_n(&live[w], fresh[w], __ATOMIC_RELEASE);
	if (family == FC_AF_INET6)
		__atomic_store_n(&l->v6_all, all, __ATOMIC_RELEASE);
}

static struct locals_list *
family_list(struct fc_locals *l, int family)
{
	return family == FC_AF_INET4 ? &l->v4 : &l->v6;
}

static void
mask_prefix(uint8_t *addr, unsigned int len, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		if (depth >= 8) {
			depth -= 8;
			continue;
		}
		addr[i] &= (uint8_t)(0xff00 >> depth);
		depth = 0;
	}
}

static int
prefix_cmp(const struct locals_prefix *a, const uint8_t *addr, uint8_t depth)
{
	int c = memcmp(a->addr, addr, sizeof(a->addr));

	if (c != 0)
		return c;
	return (int)a->depth - (int)depth;
}

/*
 * Binary search. Returns true if found; *at is its index, or where it
 * would be inserted.
 */
static bool
list_find(const struct locals_list *ls, const uint8_t *addr, uint8_t depth, uint32_t *at)
{
	uint32_t lo = 0, hi = ls->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = prefix_cmp(&ls->p[mid], addr, depth);

		if (c == 0) {
			*at = mid;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}

static int
check_args(const struct fc_locals *l, int family, const uint8_t *addr, uint8_t depth)
{
	if (l == NULL || addr == NULL)
		return -EINVAL;
	if (family != FC_AF_INET4 && family != FC_AF_INET6)
		return -EINVAL;
	if (depth == 0 || depth > fc_af_max_depth(family))
		return -EINVAL;
	return 0;
}

/* What a failed rte_lpm{,6}_create() means for our caller: EEXIST, EINVAL or ENOMEM. */
static int
lpm_create_errno(void)
{
	if (rte_errno == EEXIST || rte_errno == EINVAL)
		return rte_errno;
	return ENOMEM;
}

struct fc_locals *
fc_locals_create(const char *name, uint32_t max_v4, uint32_t max_v6, int socket)
{
	char n4[RTE_LPM_NAMESIZE], n6[RTE_LPM6_NAMESIZE];
	struct fc_locals *l = NULL;
	size_t len;
	int err;

	if (name == NULL || socket < SOCKET_ID_ANY || (max_v4 == 0 && max_v6 == 0)) {
		rte_errno = EINVAL;
		return NULL;
	}
	len = strnlen(name, LOCALS_NAME_MAX + 1);
	if (len == 0 || len > LOCALS_NAME_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	snprintf(n4, sizeof(n4), "fc4_%s", name);
	snprintf(n6, sizeof(n6), "fc6_%s", name);

	/* Either half existing means the name is taken, even if we skip it. */
	if (rte_lpm_find_existing(n4) != NULL || rte_lpm6_find_existing(n6) != NULL) {
		rte_errno = EEXIST;
		return NULL;
	}

	l = rte_zmalloc_socket("fc_locals", sizeof(*l), RTE_CACHE_LINE_SIZE, socket);
	if (l == NULL) {
		err = ENOMEM;
		goto fail;
	}
	memcpy(l->name, name, len);
	l->host_ports = UINT64_MAX;
	l->v4.max = max_v4;
	l->v6.max = max_v6;

	if (max_v4 > 0) {
		struct rte_lpm_config cfg = {
			.max_rules = max_v4,
			/* only prefixes longer than /24 use a tbl8 group, one each */
			.number_tbl8s = RTE_MIN(max_v4, (uint32_t)RTE_LPM_MAX_TBL8_NUM_GROUPS),
		};

		l->v4.p = rte_zmalloc_socket("fc_locals_v4", sizeof(*l->v4.p) * max_v4, 0, socket);
		if (l->v4.p == NULL) {
			err = ENOMEM;
			goto fail;
		}
		l->lpm4 = rte_lpm_create(n4, socket, &cfg);
		if (l->lpm4 == NULL) {
			err = lpm_create_errno();
			goto fail;
		}
	}
	if (max_v6 > 0) {
		struct rte_lpm6_config cfg = {
			.max_rules = max_v6,
			.number_tbl8s =
				(uint32_t)RTE_MIN((uint64_t)max_v6 * LOCALS_V6_TBL8_PER_RULE,
					(uint64_t)LOCALS_V6_TBL8_MAX),
		};

		l->v6.p = rte_zmalloc_socket("fc_locals_v6", sizeof(*l->v6.p) * max_v6, 0, socket);
		if (l->v6.p == NULL) {
			err = ENOMEM;
			goto fail;
		}
		l->lpm6 = rte_lpm6_create(n6, socket, &cfg);
		if (l->lpm6 == NULL) {
			err = lpm_create_errno();
			goto fail;
		}
	}
	return l;

fail:
	fc_locals_free(l);
	rte_errno = err;
	return NULL;
}

void
fc_locals_free(struct fc_locals *l)
{
	if (l == NULL)
		return;
	rte_lpm_free(l->lpm4);
	rte_lpm6_free(l->lpm6);
	rte_free(l->v4.p);
	rte_free(l->v6.p);
	rte_free(l);
}

int
fc_locals_add(struct fc_locals *l, int family, const uint8_t *addr, uint8_t depth)
{
	struct locals_prefix pfx;
	struct locals_list *ls;
	uint32_t at, ip;
	int ret;

	ret = check_args(l, family, addr, depth);
	if (ret < 0)
		return ret;

	memset(&pfx, 0, sizeof(pfx));
	memcpy(pfx.addr, addr, fc_af_addr_len(family));
	mask_prefix(pfx.addr, fc_af_addr_len(family), depth);
	pfx.depth = depth;

	ls = family_list(l, family);
	if (list_find(ls, pfx.addr, depth, &at))
		return -EEXIST;
	if (ls->n >= ls->max)
		return -ENOSPC;

	if (family == FC_AF_INET4) {
		memcpy(&ip, pfx.addr, sizeof(ip));
		ret = rte_lpm_add(l->lpm4, rte_be_to_cpu_32(ip), depth, LOCALS_NH);
	} else {
		ret = rte_lpm6_add(l->lpm6, pfx.addr, depth, LOCALS_NH);
	}
	if (ret < 0)
		return ret == -ENOSPC ? -ENOSPC : -EINVAL;

	memmove(&ls->p[at + 1], &ls->p[at], sizeof(ls->p[0]) * (ls->n - at));
	ls->p[at] = pfx;
	__atomic_store_n(&ls->n, ls->n + 1, __ATOMIC_RELEASE);
	/* LPM first, then the prefilter: a set bit always finds LPM ready. */
	filt_add(family == FC_AF_INET4 ? l->filt4 : l->filt6, &l->v6_all, family, pfx.addr,
		depth);
	return 0;
}

int
fc_locals_del(struct fc_locals *l, int family, const uint8_t *addr, uint8_t depth)
{
	uint8_t masked[16] = {0};
	struct locals_list *ls;
	uint32_t at, ip;
	int ret;

	ret = check_args(l, family, addr, depth);
	if (ret < 0)
		return ret;

	memcpy(masked, addr, fc_af_addr_len(family));
	mask_prefix(masked, fc_af_addr_len(family), depth);

	ls = family_list(l, family);
	if (!list_find(ls, masked, depth, &at))
		return -ENOENT;

	if (family == FC_AF_INET4) {
		memcpy(&ip, masked, sizeof(ip));
		ret = rte_lpm_delete(l->lpm4, rte_be_to_cpu_32(ip), depth);
	} else {
		ret = rte_lpm6_delete(l->lpm6, masked, depth);
	}
	if (ret < 0)
		return ret == -ENOENT ? -ENOENT : -EINVAL;

	memmove(&ls->p[at], &ls->p[at + 1], sizeof(ls->p[0]) * (ls->n - at - 1));
	__atomic_store_n(&ls->n, ls->n - 1, __ATOMIC_RELEASE);
	filt_rebuild(l, family);
	return 0;
}

bool
fc_locals_match(const struct fc_locals *l, int family, const uint8_t *addr)
{
	uint32_t ip, nh;

	if (l == NULL || addr == NULL)
		return false;
	if (family == FC_AF_INET4) {
		if (l->lpm4 == NULL)
			return false;
		memcpy(&ip, addr, sizeof(ip));
		ip = rte_be_to_cpu_32(ip);
		if (!filt_test(l->filt4, filt4_bit(ip)))
			return false;
		return rte_lpm_lookup(l->lpm4, ip, &nh) == 0 && nh == LOCALS_NH;
	}
	if (family == FC_AF_INET6) {
		if (l->lpm6 == NULL)
			return false;
		if (!__atomic_load_n(&l->v6_all, __ATOMIC_RELAXED) &&
			!filt_test(l->filt6, filt6_bit(addr)))
			return false;
		return rte_lpm6_lookup(l->lpm6, addr, &nh) == 0 && nh == LOCALS_NH;
	}
	return false;
}

void
fc_locals_host_ports_set(struct fc_locals *l, uint64_t mask)
{
	if (l != NULL)
		__atomic_store_n(&l->host_ports, mask, __ATOMIC_RELAXED);
}

uint64_t
fc_locals_host_ports(const struct fc_locals *l)
{
	return l == NULL ? UINT64_MAX : __atomic_load_n(&l->host_ports, __ATOMIC_RELAXED);
}

/*
 * The bit a local source gets on input port @p port: SRC_LOCAL where the
 * port carries this host's own packets, SRC_FORGED elsewhere.
 */
static inline uint8_t
src_bit(uint64_t host, uint16_t port)
{
	bool own = host == UINT64_MAX || (port < 64 && ((host >> port) & 1));

	return own ? FC_KEY_F_SRC_LOCAL : FC_KEY_F_SRC_FORGED;
}

static inline uint8_t
local_bits(uint64_t host, uint16_t port, bool dst)
{
	return dst ? FC_KEY_F_DST_LOCAL : src_bit(host, port);
}

static inline bool
v4_hop_local(uint32_t hop)
{
	return (hop & RTE_LPM_LOOKUP_SUCCESS) && (hop & 0x00ffffff) == LOCALS_NH;
}

/*
 * One chunk of at most LOCALS_BURST packets: clear the bits, gather the
 * addresses the prefilter cannot rule out (with the packet and side each
 * came from), one bulk lookup per family, set the bits LPM confirms. On
 * traffic of a forwarder nothing is gathered and LPM is not touched.
 */
static void
mark_chunk(const struct fc_locals *l, struct fc_pkt *pkts, unsigned int n)
{
	uint32_t ip4[2 * LOCALS_BURST + 3], hop4[2 * LOCALS_BURST + 3];
	uint8_t ip6[2 * LOCALS_BURST][RTE_LPM6_IPV6_ADDR_SIZE];
	int32_t hop6[2 * LOCALS_BURST];
	uint8_t at4[2 * LOCALS_BURST], at6[2 * LOCALS_BURST]; /* packet << 1 | is_dst */
	const uint8_t clear =
		(uint8_t) ~(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL | FC_KEY_F_SRC_FORGED);
	bool v6_all = __atomic_load_n(&l->v6_all, __ATOMIC_RELAXED) != 0;
	uint64_t host = __atomic_load_n(&l->host_ports, __ATOMIC_RELAXED);
	unsigned int i, n4 = 0, n6 = 0;

	RTE_ASSERT(n <= LOCALS_BURST);

	for (i = 0; i < n; i++) {
		struct fc_key *k = &pkts[i].key;

		if (k->family == FC_AF_INET4) {
			uint32_t s = rte_be_to_cpu_32(k->v4.src), d = rte_be_to_cpu_32(k->v4.dst);

			k->v4.flags &= clear;
			if (filt_test(l->filt4, filt4_bit(s))) {
				ip4[n4] = s;
				at4[n4++] = (uint8_t)(i << 1);
			}
			if (filt_test(l->filt4, filt4_bit(d))) {
				ip4[n4] = d;
				at4[n4++] = (uint8_t)(i << 1 | 1);
			}
		} else if (k->family == FC_AF_INET6) {
			k->v6.flags &= clear;
			if (v6_all || filt_test(l->filt6, filt6_bit(k->v6.src))) {
				memcpy(ip6[n6], k->v6.src, RTE_LPM6_IPV6_ADDR_SIZE);
				at6[n6++] = (uint8_t)(i << 1);
			}
			if (v6_all || filt_test(l->filt6, filt6_bit(k->v6.dst))) {
				memcpy(ip6[n6], k->v6.dst, RTE_LPM6_IPV6_ADDR_SIZE);
				at6[n6++] = (uint8_t)(i << 1 | 1);
			}
		}
	}

	if (n4 > 0 && l->lpm4 != NULL) {
		/* Four addresses per vector lookup (misses read 0, never LOCALS_NH);
		 * the tail is padded with 0.0.0.0 and its answers ignored. */
		for (i = n4; i % 4 != 0; i++)
			ip4[i] = 0;
		for (i = 0; i < n4; i += 4) {
			xmm_t ip;

			memcpy(&ip, &ip4[i], sizeof(ip));
			rte_lpm_lookupx4(l->lpm4, ip, &hop4[i], 0);
		}
		for (i = 0; i < n4; i++)
			if (hop4[i] == LOCALS_NH) {
				struct fc_key_v4 *k = &pkts[at4[i] >> 1].key.v4;

				k->flags |= local_bits(host, k->in_port, at4[i] & 1);
			}
	}

	if (n6 > 0 && l->lpm6 != NULL) {
		rte_lpm6_lookup_bulk_func(l->lpm6, ip6, hop6, n6);
		for (i = 0; i < n6; i++)
			if (hop6[i] == LOCALS_NH) {
				struct fc_key_v6 *k = &pkts[at6[i] >> 1].key.v6;

				k->flags |= local_bits(host, k->in_port, at6[i] & 1);
			}
	}
}

void
fc_locals_mark_burst(const struct fc_locals *l, struct fc_pkt *pkts, unsigned int n)
{
	unsigned int i;

	RTE_ASSERT(l != NULL && (pkts != NULL || n == 0));

	/* No local address at all (a plain forwarder): no lookup can say yes. */
	if (__atomic_load_n(&l->v4.n, __ATOMIC_RELAXED) == 0 &&
		__atomic_load_n(&l->v6.n, __ATOMIC_RELAXED) == 0) {
		const uint8_t clear =
			(uint8_t) ~(FC_KEY_F_SRC_LOCAL | FC_KEY_F_DST_LOCAL | FC_KEY_F_SRC_FORGED);

		for (i = 0; i < n; i++) {
			if (pkts[i].key.family == FC_AF_INET4)
				pkts[i].key.v4.flags &= clear;
			else if (pkts[i].key.family == FC_AF_INET6)
				pkts[i].key.v6.flags &= clear;
		}
		return;
	}
	for (i = 0; i < n; i += LOCALS_BURST)
		mark_chunk(l, pkts + i, RTE_MIN(n - i, (unsigned int)LOCALS_BURST));
}

static int
dump_list(const struct locals_list *ls, int af, FILE *f)
{
	char text[INET6_ADDRSTRLEN];
	uint32_t i;

	for (i = 0; i < ls->n; i++) {
		if (inet_ntop(af, ls->p[i].addr, text, sizeof(text)) == NULL)
			return -EINVAL;
		if (fprintf(f, "%s/%u\n", text, ls->p[i].depth) < 0)
			return -EIO;
	}
	return (int)ls->n;
}

int
fc_locals_dump(const struct fc_locals *l, FILE *f)
{
	int n4, n6;

	if (l == NULL || f == NULL)
		return -EINVAL;
	n4 = dump_list(&l->v4, AF_INET, f);
	if (n4 < 0)
		return n4;
	n6 = dump_list(&l->v6, AF_INET6, f);
	if (n6 < 0)
		return n6;
	return n4 + n6;
}

unsigned int
fc_locals_count(const struct fc_locals *l, int family)
{
	if (l == NULL)
		return 0;
	if (family == FC_AF_INET4)
		return __atomic_load_n(&l->v4.n, __ATOMIC_ACQUIRE);
	if (family == FC_AF_INET6)
		return __atomic_load_n(&l->v6.n, __ATOMIC_ACQUIRE);
	return 0;
}
