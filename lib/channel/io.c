/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/io.c — moving packets: the producers' fast path
 * (chan_enqueue_burst, with its direct TX mode) and the consumers that run
 * in the primary process (discard and pcap drains, the TX consumer, TX
 * dequeue, flush).
 *
 * Producers never lock: one ring enqueue (or one TX burst on a queue of
 * their own) and a few relaxed counter stores per burst, on the producer's
 * own cache line. Consumers in this process take the slot's consumer lock
 * with a try-lock per call, so a drain loop, a TX loop and a control thread
 * deleting the channel are never two consumers of one single-consumer ring.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "chan_priv.h"
#include "channel.h"

/* Send @p n packets on port/queue, up to 4 tries; free what the queue refused. */
static inline unsigned int
chan_tx_send(uint16_t port, uint16_t queue, struct rte_mbuf **m, unsigned int n)
{
	unsigned int sent = 0;

	for (int tries = 0; tries < 4 && sent < n; tries++)
		sent += rte_eth_tx_burst(port, queue, &m[sent], (uint16_t)(n - sent));
	if (unlikely(sent < n))
		rte_pktmbuf_free_bulk(&m[sent], n - sent);
	return sent;
}

/* Direct TX: the producer is the consumer, on a queue of its own. */
static unsigned int
chan_tx_direct(const struct chan_slot *s, struct chan_prod_ctr *pc, uint16_t queue,
	struct rte_mbuf **m, unsigned int n, uint64_t bytes)
{
	unsigned int sent = chan_tx_send(s->tx_port, queue, m, n);

	chan_pc_add(s, &pc->enqueued, n);
	chan_pc_add(s, &pc->bytes, bytes);
	chan_pc_add(s, &pc->direct_consumed, n);
	chan_pc_add(s, &pc->direct_bytes, bytes);
	chan_pc_add(s, &pc->tx_sent, sent);
	if (unlikely(sent < n))
		chan_pc_add(s, &pc->tx_full, n - sent);
	return sent;
}

int
chan_producer_txq_set(struct chan_table *t, uint16_t producer_id, uint16_t port, int queue)
{
	if (t == NULL || producer_id >= CHAN_MAX_PRODUCERS || port >= CHAN_MAX_TX_PORTS ||
		queue < -1 || queue > INT16_MAX)
		return -EINVAL;
	__atomic_store_n(&t->prod[producer_id].txq[port], (int16_t)queue, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Direct TX that keeps what the queue refused (chan_enqueue_burst_hold()):
 * only what went out counts (enqueued, consumed, sent); the caller counts
 * the bytes (the driver may have freed what it sent).
 */
static unsigned int
chan_tx_direct_hold(const struct chan_slot *s, struct chan_prod_ctr *pc, uint16_t queue,
	struct rte_mbuf **m, unsigned int n)
{
	unsigned int sent = 0;

	for (int tries = 0; tries < 4 && sent < n; tries++)
		sent += rte_eth_tx_burst(s->tx_port, queue, &m[sent], (uint16_t)(n - sent));
	if (sent == 0)
		return 0;
	chan_pc_add(s, &pc->enqueued, sent);
	chan_pc_add(s, &pc->direct_consumed, sent);
	chan_pc_add(s, &pc->tx_sent, sent);
	return sent;
}

/*
 * A TX channel of a VLAN sub-interface: give every packet the 802.1Q tag of
 * VLAN @p vid. A frame whose outer tag is 802.1Q already has its VLAN id
 * set (so a packet offered again, held back by a full ring, is tagged
 * once); any other frame gets a tag pushed after its MAC addresses. A frame
 * without 4 bytes of headroom, or with its Ethernet header cut short,
 * is moved to the front for the caller to drop: nothing untagged leaves on
 * the VLAN's parent (pool mbufs always have the headroom).
 * @return the packets that could not be tagged, first in @p m; the tagged
 *   ones follow, in order.
 */
static unsigned int
chan_vlan_tag(struct rte_mbuf **m, unsigned int n, uint16_t vid)
{
	unsigned int nb = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *x = m[i];
		uint8_t *p = rte_pktmbuf_mtod(x, uint8_t *);

		if (likely(x->data_len >= RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN) &&
			p[12] == 0x81 && p[13] == 0x00) {
			p[14] = (uint8_t)((p[14] & 0xf0) | (vid >> 8));
			p[15] = (uint8_t)vid;
			continue;
		}
		if (unlikely(x->data_len < RTE_ETHER_HDR_LEN ||
			     rte_pktmbuf_prepend(x, RTE_VLAN_HLEN) == NULL)) {
			/* to the front, the tagged ones before it shifted one on */
			memmove(&m[nb + 1], &m[nb], (i - nb) * sizeof(m[0]));
			m[nb++] = x;
			continue;
		}
		p = rte_pktmbuf_mtod(x, uint8_t *);
		memmove(p, p + RTE_VLAN_HLEN, 2 * RTE_ETHER_ADDR_LEN);
		p[12] = 0x81;
		p[13] = 0x00;
		p[14] = (uint8_t)(vid >> 8);
		p[15] = (uint8_t)vid;
	}
	return nb;
}

/* The body of chan_enqueue_burst() and chan_enqueue_burst_hold(); @p s: chan_slot_of(t, id). */
static __rte_always_inline unsigned int
chan_enqueue_body(struct chan_table *t, uint32_t id, struct chan_slot *s, uint16_t producer_id,
	struct rte_mbuf **mbufs, unsigned int n, bool hold)
{
	struct chan_prod_ctr *pc;
	uint64_t bytes = 0;
	uint64_t dropped_bytes = 0;
	unsigned int done;
	unsigned int i;

	RTE_ASSERT(t != NULL);
	if (unlikely(n == 0))
		return 0;
	if (unlikely(s == NULL || producer_id >= CHAN_MAX_PRODUCERS || !chan_slot_live(s))) {
		rte_pktmbuf_free_bulk(mbufs, n);
		__atomic_fetch_add(&t->drop_invalid, n, __ATOMIC_RELAXED);
		return hold ? n : 0;
	}

	/* Bytes before the enqueue: once enqueued, the consumer owns the mbufs. */
	for (i = 0; i < n; i++)
		bytes += mbufs[i]->pkt_len;
	pc = chan_desc_prod(s->desc, producer_id);

	if (s->kind == CHAN_CONS_TX && s->tx_port < CHAN_MAX_TX_PORTS) {
		int16_t q = __atomic_load_n(&t->prod[producer_id].txq[s->tx_port],
			__ATOMIC_RELAXED);

		if (q >= 0 && hold) {
			uint64_t sent_bytes = bytes;
			unsigned int sent;

			sent = chan_tx_direct_hold(s, pc, (uint16_t)q, mbufs, n);
			for (i = sent; i < n; i++)
				sent_bytes -= mbufs[i]->pkt_len;
			chan_pc_add(s, &pc->bytes, sent_bytes);
			chan_pc_add(s, &pc->direct_bytes, sent_bytes);
			return sent;
		}
		if (q >= 0)
			return chan_tx_direct(s, pc, (uint16_t)q, mbufs, n, bytes);
	}

	done = rte_ring_mp_enqueue_burst(s->ring, (void **)mbufs, n, NULL);

	if (unlikely(done < n)) {
		/* Held back for the caller unless nobody will ever drain the ring
		 * (an app channel without consumer). */
		if (hold && (s->kind != CHAN_CONS_APP ||
				    __atomic_load_n(&s->desc->attached, __ATOMIC_RELAXED) != 0)) {
			for (i = done; i < n; i++)
				bytes -= mbufs[i]->pkt_len;
			if (done > 0) {
				chan_pc_add(s, &pc->enqueued, done);
				chan_pc_add(s, &pc->bytes, bytes);
				if (s->per_flow)
					chan_flow_ready_set(t, id);
			}
			return done;
		}
		for (i = done; i < n; i++)
			dropped_bytes += mbufs[i]->pkt_len;
		rte_pktmbuf_free_bulk(&mbufs[done], n - done);
		chan_pc_add(s, &pc->drop_full, n - done);
	}
	if (likely(done > 0)) {
		chan_pc_add(s, &pc->enqueued, done);
		chan_pc_add(s, &pc->bytes, bytes - dropped_bytes);
		if (s->per_flow)
			chan_flow_ready_set(t, id);
	}
	return hold ? n : done;
}

/*
 * chan_enqueue_body(), after a VLAN sub-interface's TX channel tagged the
 * packets: what could not be tagged is dropped as invalid (never sent
 * untagged); for @p hold it counts as taken.
 */
static inline unsigned int
chan_enqueue(struct chan_table *t, uint32_t id, uint16_t producer_id, struct rte_mbuf **mbufs,
	unsigned int n, bool hold)
{
	struct chan_slot *s = chan_slot_of(t, id);
	unsigned int bad = 0;

	if (unlikely(s != NULL && s->tx_vlan != 0)) {
		bad = chan_vlan_tag(mbufs, n, s->tx_vlan);
		if (unlikely(bad != 0)) {
			rte_pktmbuf_free_bulk(mbufs, bad);
			__atomic_fetch_add(&t->drop_invalid, bad, __ATOMIC_RELAXED);
		}
	}
	return (hold ? bad : 0) +
	       chan_enqueue_body(t, id, s, producer_id, mbufs + bad, n - bad, hold);
}

unsigned int
chan_enqueue_burst(struct chan_table *t, uint32_t id, uint16_t producer_id, struct rte_mbuf **mbufs,
	unsigned int n)
{
	return chan_enqueue(t, id, producer_id, mbufs, n, false);
}

unsigned int
chan_enqueue_burst_hold(struct chan_table *t, uint32_t id, uint16_t producer_id,
	struct rte_mbuf **mbufs, unsigned int n)
{
	return chan_enqueue(t, id, producer_id, mbufs, n, true);
}

unsigned int
chan_slot_consume(struct chan_slot *s, unsigned int max)
{
	struct rte_mbuf *burst[CHAN_BURST];
	struct chan_desc *d = s->desc;
	unsigned int total = 0;
	uint64_t bytes;
	unsigned int n;
	unsigned int i;

	while (total < max) {
		n = rte_ring_sc_dequeue_burst(
			s->ring, (void **)burst, RTE_MIN(CHAN_BURST, max - total), NULL);
		if (n == 0)
			break;
		bytes = 0;
		for (i = 0; i < n; i++)
			bytes += burst[i]->pkt_len;
		if (s->kind == CHAN_CONS_PCAP && s->pcap != NULL)
			chan_pcap_write(s->pcap, burst, n);
		rte_pktmbuf_free_bulk(burst, n);
		chan_ctr_add(&d->consumed, n);
		chan_ctr_add(&d->consumed_bytes, bytes);
		total += n;
	}
	return total;
}

unsigned int
chan_slot_flush(struct chan_slot *s)
{
	struct rte_mbuf *burst[CHAN_BURST];
	unsigned int total = 0;
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst(s->ring, (void **)burst, CHAN_BURST, NULL)) > 0) {
		rte_pktmbuf_free_bulk(burst, n);
		chan_ctr_add(&s->desc->flushed, n);
		total += n;
	}
	return total;
}

unsigned int
chan_drain(struct chan_table *t, uint32_t id, unsigned int max)
{
	struct chan_slot *s;
	unsigned int n = 0;

	if (t == NULL || (s = chan_slot_of(t, id)) == NULL)
		return 0;
	if (s->kind != CHAN_CONS_DISCARD && s->kind != CHAN_CONS_PCAP)
		return 0;
	if (!rte_spinlock_trylock(&s->cons_lock))
		return 0;
	/* Kind is re-read under the lock: the slot may have been reused. */
	if (chan_slot_live(s) && (s->kind == CHAN_CONS_DISCARD || s->kind == CHAN_CONS_PCAP))
		n = chan_slot_consume(s, max);
	rte_spinlock_unlock(&s->cons_lock);
	return n;
}

unsigned int
chan_drain_all(struct chan_table *t, unsigned int max_per_chan)
{
	unsigned int total = 0;
	uint32_t id, end;

	if (t == NULL)
		return 0;
	end = __atomic_load_n(&t->named_end, __ATOMIC_ACQUIRE);
	for (id = 0; id < end; id++) {
		if (chan_slot_live(&t->slots[id]))
			total += chan_drain(t, id, max_per_chan);
	}
	if (t->flow_ready != NULL)
		total += chan_pool_consume(t, 0, max_per_chan);
	return total;
}

unsigned int
chan_dequeue_burst(struct chan_table *t, uint32_t id, struct rte_mbuf **mbufs, unsigned int n)
{
	struct chan_slot *s;
	unsigned int got = 0;
	uint64_t bytes = 0;
	unsigned int i;

	if (t == NULL || n == 0 || (s = chan_slot_of(t, id)) == NULL)
		return 0;
	if (!rte_spinlock_trylock(&s->cons_lock))
		return 0;
	if (chan_slot_live(s) && s->kind == CHAN_CONS_TX) {
		got = rte_ring_sc_dequeue_burst(s->ring, (void **)mbufs, n, NULL);
		for (i = 0; i < got; i++)
			bytes += mbufs[i]->pkt_len;
		if (got > 0) {
			chan_ctr_add(&s->desc->consumed, got);
			chan_ctr_add(&s->desc->consumed_bytes, bytes);
		}
	}
	rte_spinlock_unlock(&s->cons_lock);
	return got;
}

/* The TX consumer of slot @p s (live, TX, cons_lock held). */
static unsigned int
chan_slot_tx(struct chan_slot *s, unsigned int max)
{
	struct rte_mbuf *m[CHAN_TX_BURST_MAX];
	struct chan_desc *d = s->desc;
	uint64_t bytes = 0;
	unsigned int n, sent, i;

	n = rte_ring_sc_dequeue_burst(s->ring, (void **)m, RTE_MIN(max, (unsigned int)CHAN_TX_BURST_MAX), NULL);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		bytes += m[i]->pkt_len;
	sent = chan_tx_send(s->tx_port, s->tx_queue, m, n);
	chan_ctr_add(&d->consumed, n);
	chan_ctr_add(&d->consumed_bytes, bytes);
	chan_ctr_add(&d->tx_sent, sent);
	if (unlikely(sent < n))
		chan_ctr_add(&d->tx_full, n - sent);
	return n;
}

unsigned int
chan_tx_poll(struct chan_table *t, uint32_t id, unsigned int max)
{
	struct chan_slot *s;
	unsigned int n = 0;

	if (t == NULL || max == 0 || (s = chan_slot_of(t, id)) == NULL)
		return 0;
	if (s->kind != CHAN_CONS_TX || !rte_spinlock_trylock(&s->cons_lock))
		return 0;
	/* Kind is re-read under the lock: the slot may have been reused. */
	if (chan_slot_live(s) && s->kind == CHAN_CONS_TX)
		n = chan_slot_tx(s, max);
	rte_spinlock_unlock(&s->cons_lock);
	return n;
}

unsigned int
chan_consume_all(struct chan_table *t, unsigned int max_tx, unsigned int max_drain)
{
	unsigned int total = 0;
	uint32_t id, end;

	if (t == NULL)
		return 0;
	/* Live slots only: a pass runs between every two RX bursts where the
	 * rules role shares the RX lcore, and most of the table is free. */
	end = __atomic_load_n(&t->named_end, __ATOMIC_ACQUIRE);
	for (id = 0; id < end; id++) {
		const struct chan_slot *s = &t->slots[id];

		if (!chan_slot_live(s))
			continue;
		if (s->kind == CHAN_CONS_TX)
			total += chan_tx_poll(t, id, max_tx);
		else
			total += chan_drain(t, id, max_drain);
	}
	if (t->flow_ready != NULL)
		total += chan_pool_consume(t, max_tx, max_drain);
	return total;
}
