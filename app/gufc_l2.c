/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_l2.c — captures that are not Ethernet.
 *
 * net_pcap hands gufc each frame of its rx_pcap files as it is in the
 * file, whatever the file's link type; gufc's parser reads Ethernet. A
 * capture taken with "tcpdump -i any" is Linux cooked (SLL, or SLL2 with
 * tcpdump 4.99), one from a tunnel or a VPN interface raw IP, one from a
 * BSD loopback "null": read as Ethernet, every frame would be garbage.
 * At start each rx_pcap file's link type is read (gufc_port.c, with
 * libpcap: pcap and pcapng alike): Ethernet needs nothing; the types above are turned into
 * Ethernet frames as the RX lcore receives them, the cooked header's
 * protocol as the EtherType, its link-layer address as the source and its
 * packet type as the destination (the port's own address for unicast);
 * any other type stops gufc with the file and the type named.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "gufc.h"

#define SLL_HLEN  16
#define SLL2_HLEN 20

/* Linux's packet types (the cooked header's pkttype). */
#define SLL_BROADCAST 1
#define SLL_MULTICAST 2

static const char *const l2_names[] = {
	[GUFC_L2_ETH] = "Ethernet",
	[GUFC_L2_SLL] = "Linux cooked (SLL)",
	[GUFC_L2_SLL2] = "Linux cooked v2 (SLL2)",
	[GUFC_L2_RAW] = "raw IP",
	[GUFC_L2_NULL] = "BSD loopback (NULL)",
	[GUFC_L2_LOOP] = "OpenBSD loopback (LOOP)",
};

const char *
gufc_l2_name(unsigned int l2)
{
	return l2 < RTE_DIM(l2_names) && l2_names[l2] != NULL ? l2_names[l2] : "?";
}

/* The EtherType of a raw IP packet at @p d (@p len bytes): by its version. */
static rte_be16_t
raw_type(const uint8_t *d, uint32_t len)
{
	if (len == 0)
		return 0;
	if ((d[0] >> 4) == 4)
		return RTE_BE16(RTE_ETHER_TYPE_IPV4);
	if ((d[0] >> 4) == 6)
		return RTE_BE16(RTE_ETHER_TYPE_IPV6);
	return 0;
}

/* A loopback header's address family (either byte order) as an EtherType. */
static rte_be16_t
af_type(const uint8_t *d)
{
	uint32_t le = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
		      (uint32_t)d[3] << 24;
	uint32_t be = rte_bswap32(le);
	uint32_t af = le < 256 ? le : be;

	if (af == 2)
		return RTE_BE16(RTE_ETHER_TYPE_IPV4);
	/* AF_INET6: Linux 10, the BSDs 24, 28, 30 */
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return RTE_BE16(RTE_ETHER_TYPE_IPV6);
	return 0;
}

/*
 * The destination address a frame of packet type @p sll (-1: unknown)
 * carrying @p type at @p l3 (@p len bytes) had: broadcast and multicast
 * as IP maps them, the port's own address otherwise.
 */
static void
dst_of(const struct gufc_port *p, int sll, rte_be16_t type, const uint8_t *l3, uint32_t len,
	struct rte_ether_addr *d)
{
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= 20) {
		const uint8_t *a = l3 + 16;

		if ((a[0] & 0xf0) == 0xe0) {
			const uint8_t m[6] = {0x01, 0x00, 0x5e, a[1] & 0x7f, a[2], a[3]};

			memcpy(d->addr_bytes, m, 6);
			return;
		}
		if (sll == SLL_BROADCAST || (a[0] & a[1] & a[2] & a[3]) == 0xff) {
			memset(d->addr_bytes, 0xff, 6);
			return;
		}
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && len >= 40 && l3[24] == 0xff) {
		const uint8_t m[6] = {0x33, 0x33, l3[36], l3[37], l3[38], l3[39]};

		memcpy(d->addr_bytes, m, 6);
		return;
	} else if (sll == SLL_BROADCAST || sll == SLL_MULTICAST) {
		memset(d->addr_bytes, 0xff, 6);
		return;
	}
	*d = p->mac;
}

/* Turn one frame of kind @p l2 into Ethernet in place. */
static void
to_eth(const struct gufc_port *p, unsigned int l2, struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	struct rte_ether_hdr e;
	int sll = -1;

	memset(&e, 0, sizeof(e));
	switch (l2) {
	case GUFC_L2_SLL:
		if (len < SLL_HLEN)
			return; /* the parser counts it truncated */
		sll = d[0] << 8 | d[1];
		if ((d[4] << 8 | d[5]) == RTE_ETHER_ADDR_LEN)
			memcpy(e.src_addr.addr_bytes, d + 6, RTE_ETHER_ADDR_LEN);
		memcpy(&e.ether_type, d + 14, 2);
		rte_pktmbuf_adj(m, SLL_HLEN - sizeof(e));
		break;
	case GUFC_L2_SLL2:
		if (len < SLL2_HLEN)
			return;
		sll = d[10];
		if (d[11] == RTE_ETHER_ADDR_LEN)
			memcpy(e.src_addr.addr_bytes, d + 12, RTE_ETHER_ADDR_LEN);
		memcpy(&e.ether_type, d, 2);
		rte_pktmbuf_adj(m, SLL2_HLEN - sizeof(e));
		break;
	case GUFC_L2_RAW:
		e.ether_type = raw_type(d, len);
		if (rte_pktmbuf_prepend(m, sizeof(e)) == NULL)
			return;
		break;
	default: /* NULL, LOOP: a 4-byte address family */
		if (len < 4)
			return;
		e.ether_type = af_type(d);
		if (rte_pktmbuf_prepend(m, sizeof(e) - 4) == NULL)
			return;
		break;
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	dst_of(p, sll, e.ether_type, d + sizeof(e), rte_pktmbuf_data_len(m) - sizeof(e),
		&e.dst_addr);
	memcpy(d, &e, sizeof(e));
}

void
gufc_l2_rx(const struct gufc_app *app, const struct gufc_rxq *rq, struct rte_mbuf **m,
	unsigned int n)
{
	const struct gufc_port *p = &app->ports[rq->port];
	unsigned int l2 = p->l2[rq->queue];

	if (l2 == GUFC_L2_ETH)
		return;
	for (unsigned int i = 0; i < n; i++)
		to_eth(p, l2, m[i]);
}
