/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of VLAN sub-interfaces: dp_vlan_rx() splits a device's burst
 * by outer 802.1Q tag among its sub-interfaces (tag stripped, the
 * sub-interface's port as input port), keeps untagged and priority-tagged
 * frames the device's, drops a tag of no sub-interface's VLAN
 * (vlan_unknown); a TX channel with a VLAN id (chan_params::tx_vlan) pushes
 * the tag, or sets the id of an 802.1Q tag the frame has, once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "dp_world.h"

/* Give @p m an 802.1Q tag (TCI @p tci) after its MAC addresses. */
static struct rte_mbuf *
tagged(struct rte_mbuf *m, uint16_t tci)
{
	uint8_t mac[12], *p;

	memcpy(mac, rte_pktmbuf_mtod(m, uint8_t *), sizeof(mac));
	p = (uint8_t *)rte_pktmbuf_prepend(m, 4);
	assert_non_null(p);
	memcpy(p, mac, sizeof(mac));
	p[12] = 0x81;
	p[13] = 0x00;
	p[14] = (uint8_t)(tci >> 8);
	p[15] = (uint8_t)tci;
	return m;
}

/* The EtherType (the outer tag's TPID) of @p m. */
static uint16_t
ethertype(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	return (uint16_t)(p[12] << 8 | p[13]);
}

/* The VLAN id of @p m's outer tag. */
static uint16_t
vid_of(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	return (uint16_t)((p[14] & 0x0f) << 8 | p[15]);
}

/*
 * Device port 0 with VLANs 100 (port 2) and 200 (port 3): a burst mixing
 * them, an untagged frame, a priority-tagged one and VLAN 300: each
 * sub-interface's packets leave by its own input port's default channel,
 * untagged; the device's as they came; VLAN 300 dropped and counted.
 */
static void
test_vlan_rx_split(void **state)
{
	struct dp_vlan_map *map = calloc(1, sizeof(*map));
	struct rte_mbuf *m[6], *o[8];
	uint16_t len;

	(void)state;
	assert_non_null(map);
	world_up(false, 64);
	m[0] = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 1);
	len = (uint16_t)rte_pktmbuf_pkt_len(m[0]);
	load("accept\n");
	W.def_chan[2] = W.ch[0];
	W.def_chan[3] = W.ch[1];
	map->port[100] = 2 + 1;
	map->port[200] = 3 + 1;

	m[1] = tagged(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 2), 100);
	m[2] = tagged(udp4("10.0.0.3", 1000, "10.9.0.1", 53, 3), 300);
	m[3] = tagged(udp4("10.0.0.4", 1000, "10.9.0.1", 53, 4), 0x2000 | 200);
	m[4] = tagged(udp4("10.0.0.2", 1000, "10.9.0.1", 53, 5), 100);
	m[5] = tagged(udp4("10.0.0.6", 1000, "10.9.0.1", 53, 6), 0);
	assert_int_equal(dp_vlan_rx(&W.rx, map, 0, m, 6, NOW), 0);
	rule_engine_quiescent(W.eng, 0);
	assert_int_equal(W.rx.st.rx, 6);
	assert_int_equal(W.rx.st.drops[DP_DROP_VLAN_UNKNOWN], 1);
	assert_int_equal(W.rx.st.vlan_unknown[0], 1);
	assert_int_equal(W.rx.st.vlan_rx[2], 2);
	assert_int_equal(W.rx.st.vlan_rx[3], 1);
	assert_int_equal(W.rx.st.upcalls, 5);
	slow();

	/* The device's: untagged and priority-tagged, as received. */
	assert_int_equal(take(W.out, o, 8), 2);
	assert_int_equal(tag_of(o[0]), 1);
	assert_int_equal(ethertype(o[0]), 0x0800);
	assert_int_equal(tag_of(o[1]), 6);
	assert_int_equal(ethertype(o[1]), 0x8100);
	assert_int_equal(rte_pktmbuf_pkt_len(o[1]), len + 4);
	rte_pktmbuf_free_bulk(o, 2);
	/* VLAN 100's (port 2), in order, untagged. */
	assert_int_equal(take(W.ch[0], o, 8), 2);
	assert_int_equal(tag_of(o[0]), 2);
	assert_int_equal(tag_of(o[1]), 5);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(ethertype(o[i]), 0x0800);
		assert_int_equal(rte_pktmbuf_pkt_len(o[i]), len);
		check_csums(o[i]);
	}
	rte_pktmbuf_free_bulk(o, 2);
	/* VLAN 200's (port 3). */
	assert_int_equal(take(W.ch[1], o, 8), 1);
	assert_int_equal(tag_of(o[0]), 4);
	assert_int_equal(ethertype(o[0]), 0x0800);
	rte_pktmbuf_free(o[0]);
	/* Their flows are keyed by the sub-interfaces' ports. */
	{
		struct rte_mbuf *x = udp4("10.0.0.2", 1000, "10.9.0.1", 53, 0);
		struct fc_key k = key_of(x);
		uint32_t idx;

		rte_pktmbuf_free(x);
		fc_key_set_in_port(&k, 2);
		assert_non_null(entry_of(&k, &idx));
		fc_key_set_in_port(&k, 0);
		assert_null(entry_of(&k, &idx));
	}
	check_accounting();
	free(map);
}

/*
 * A TX channel of VLAN 100: an untagged frame gets the tag pushed after
 * its MAC addresses; the same packet offered again keeps one tag; a frame
 * tagged VLAN 7 (priority 5) leaves as VLAN 100 with its priority; no VLAN
 * id above 4094.
 */
static void
test_vlan_tx_tag(void **state)
{
	struct chan_params p = {.name = "v100", .kind = CHAN_CONS_TX, .ring_size = 256,
				.tx_vlan = 100};
	struct rte_mbuf *m, *o[4];
	uint8_t head[12];
	uint16_t len;
	int id;

	(void)state;
	world_up(false, 64);
	id = chan_create(W.chans, &p);
	assert_true(id > 0);

	m = udp4("10.0.0.1", 1000, "10.9.0.1", 53, 7);
	len = (uint16_t)rte_pktmbuf_pkt_len(m);
	memcpy(head, rte_pktmbuf_mtod(m, uint8_t *), 12);
	assert_int_equal(chan_enqueue_burst(W.chans, (uint32_t)id, 0, &m, 1), 1);
	assert_int_equal(take((uint16_t)id, o, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(o[0]), len + 4);
	assert_memory_equal(rte_pktmbuf_mtod(o[0], uint8_t *), head, 12);
	assert_int_equal(ethertype(o[0]), 0x8100);
	assert_int_equal(vid_of(o[0]), 100);
	assert_int_equal(rte_pktmbuf_mtod(o[0], uint8_t *)[16], 0x08);
	assert_int_equal(tag_of(o[0]), 7);
	/* Offered again (a packet a full ring held back): still one tag. */
	assert_int_equal(chan_enqueue_burst(W.chans, (uint32_t)id, 0, o, 1), 1);
	assert_int_equal(take((uint16_t)id, o, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(o[0]), len + 4);
	assert_int_equal(vid_of(o[0]), 100);
	rte_pktmbuf_free(o[0]);

	m = tagged(udp4("10.0.0.1", 1000, "10.9.0.1", 53, 8), 0xa000 | 7);
	assert_int_equal(chan_enqueue_burst(W.chans, (uint32_t)id, 0, &m, 1), 1);
	assert_int_equal(take((uint16_t)id, o, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(o[0]), len + 4);
	assert_int_equal(vid_of(o[0]), 100);
	assert_int_equal(rte_pktmbuf_mtod(o[0], uint8_t *)[14] & 0xf0, 0xa0);
	assert_int_equal(tag_of(o[0]), 8);
	rte_pktmbuf_free(o[0]);

	p.name = "v4095";
	p.tx_vlan = 4095;
	assert_int_equal(chan_create(W.chans, &p), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_vlan_rx_split, teardown),
		cmocka_unit_test_teardown(test_vlan_tx_tag, teardown),
	};

	return DP_WORLD_MAIN("dp_vlan", tests, NULL, NULL);
}
