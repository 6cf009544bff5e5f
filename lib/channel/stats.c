/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/stats.c — reading the counters: one channel (producers summed),
 * one producer, the totals over every channel past and present (the
 * accounting invariant), and the one-line and table formats the shell and
 * telemetry print.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "chan_priv.h"
#include "channel.h"

/* Longest pcap path tail shown in the consumer column. */
#define CHAN_FMT_PATH_MAX 28

#define CHAN_FMT_COLS "%-20s %5s %-7s %-28s %8s %8s %12s %12s %12s %12s"

static void
chan_desc_sum(struct chan_desc *d, struct chan_stats *st)
{
	unsigned int i;

	for (i = 0; i < chan_desc_n_prod(d); i++) {
		const struct chan_prod_ctr *pc = chan_desc_prod(d, i);

		st->enqueued += chan_ctr_read(&pc->enqueued);
		st->enq_bytes += chan_ctr_read(&pc->bytes);
		st->drop_full += chan_ctr_read(&pc->drop_full);
		st->consumed += chan_ctr_read(&pc->direct_consumed);
		st->consumed_bytes += chan_ctr_read(&pc->direct_bytes);
		st->tx_sent += chan_ctr_read(&pc->tx_sent);
		st->tx_full += chan_ctr_read(&pc->tx_full);
	}
	st->consumed += chan_ctr_read(&d->consumed);
	st->consumed_bytes += chan_ctr_read(&d->consumed_bytes);
	st->flushed += chan_ctr_read(&d->flushed);
	st->tx_sent += chan_ctr_read(&d->tx_sent);
	st->tx_full += chan_ctr_read(&d->tx_full);
}

/* Counters of live slot @p s; caller holds ctl_lock (the ring stays). */
static void
chan_stats_locked(const struct chan_slot *s, struct chan_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	chan_desc_sum(s->desc, stats);
	stats->in_ring = rte_ring_count(s->ring);
	stats->ring_size = s->desc->ring_size;
	stats->attached = __atomic_load_n(&s->desc->attached, __ATOMIC_RELAXED);
}

int
chan_stats_get(struct chan_table *t, uint32_t id, struct chan_stats *stats)
{
	const struct chan_slot *s;
	int ret = 0;

	if (t == NULL || stats == NULL || id >= t->n_named + t->flow_max)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	s = chan_slot_of(t, id);
	if (s != NULL && chan_slot_live(s))
		chan_stats_locked(s, stats);
	else
		ret = -ENOENT;
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_producer_stats_get(const struct chan_table *t, uint32_t id, uint16_t producer_id,
	uint64_t *enqueued, uint64_t *bytes, uint64_t *drop_full)
{
	const struct chan_prod_ctr *pc;
	const struct chan_slot *s;

	if (t == NULL || id >= t->n_named + t->flow_max || producer_id >= CHAN_MAX_PRODUCERS)
		return -EINVAL;
	s = chan_slot_of(t, id);
	if (s == NULL || !chan_slot_live(s))
		return -ENOENT;
	pc = chan_desc_prod(s->desc, producer_id);
	if (enqueued != NULL)
		*enqueued = chan_ctr_read(&pc->enqueued);
	if (bytes != NULL)
		*bytes = chan_ctr_read(&pc->bytes);
	if (drop_full != NULL)
		*drop_full = chan_ctr_read(&pc->drop_full);
	return 0;
}

int
chan_totals_get(struct chan_table *t, struct chan_totals *tot)
{
	struct chan_stats st;
	uint32_t id;

	if (t == NULL || tot == NULL)
		return -EINVAL;
	memset(tot, 0, sizeof(*tot));
	memset(&st, 0, sizeof(st));
	rte_spinlock_lock(&t->ctl_lock);
	/*
	 * Descriptors of free slots hold zeros (their counters were retired),
	 * so summing every slot counts each packet once.
	 */
	for (id = 0; id < t->n_named + t->n_flow; id++) {
		const struct chan_slot *s = chan_slot_of(t, id);

		chan_desc_sum(s->desc, &st);
		if (s->ring != NULL)
			tot->in_ring += rte_ring_count(s->ring);
		if (chan_slot_live(s)) {
			if (s->per_flow)
				tot->flow_channels++;
			else
				tot->channels++;
		}
	}
	tot->enqueued = st.enqueued + t->retired.enqueued;
	tot->enq_bytes = st.enq_bytes + t->retired.enq_bytes;
	tot->drop_full = st.drop_full + t->retired.drop_full;
	tot->consumed = st.consumed + t->retired.consumed;
	tot->consumed_bytes = st.consumed_bytes + t->retired.consumed_bytes;
	tot->flushed = st.flushed + t->retired.flushed;
	tot->tx_sent = st.tx_sent + t->retired.tx_sent;
	tot->tx_full = st.tx_full + t->retired.tx_full;
	tot->drop_invalid = __atomic_load_n(&t->drop_invalid, __ATOMIC_RELAXED);
	tot->drops[CHAN_DROP_CHANNEL_FULL] = tot->drop_full;
	tot->drops[CHAN_DROP_CHANNEL_INVALID] = tot->drop_invalid;
	tot->drops[CHAN_DROP_FLUSHED] = tot->flushed;
	tot->drops[CHAN_DROP_TX_FULL] = tot->tx_full;
	tot->flow_alloc = t->flow_alloc;
	tot->flow_free = t->flow_free_count;
	tot->flow_alloc_fail = t->flow_alloc_cap + t->flow_alloc_nomem;
	tot->flow_pool_size = t->n_flow;
	rte_spinlock_unlock(&t->ctl_lock);
	return 0;
}

/* The consumer column. */
static void
chan_format_consumer(const struct chan_slot *s, char *buf, size_t len)
{
	const struct chan_desc *d = s->desc;
	const char *path;
	size_t plen;

	switch (s->kind) {
	case CHAN_CONS_PCAP:
		path = s->pcap != NULL ? chan_pcap_path(s->pcap) : "";
		plen = strlen(path);
		if (plen > CHAN_FMT_PATH_MAX)
			snprintf(buf, len, "...%s", path + plen - (CHAN_FMT_PATH_MAX - 3));
		else
			snprintf(buf, len, "%s", path);
		break;
	case CHAN_CONS_TX:
		if (d->tx_vlan != 0)
			snprintf(buf, len, "port %u.%u queue %u", d->tx_port,
				d->tx_vlan & 0xfffu, d->tx_queue);
		else
			snprintf(buf, len, "port %u queue %u", d->tx_port, d->tx_queue);
		break;
	case CHAN_CONS_APP:
		if (__atomic_load_n(&d->attached, __ATOMIC_RELAXED) != 0)
			snprintf(buf, len, "attached pid %d", (int)d->owner_pid);
		else
			snprintf(buf, len, "detached");
		break;
	default:
		snprintf(buf, len, "-");
		break;
	}
}

int
chan_format(struct chan_table *t, uint32_t id, char *buf, size_t len)
{
	char cons[CHAN_FMT_PATH_MAX + 4];
	char num[6][24];
	char idbuf[12];
	struct chan_stats st;
	const struct chan_slot *s;
	int ret;

	if (t == NULL || buf == NULL || len == 0 || id >= t->n_named + t->flow_max)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	s = chan_slot_of(t, id);
	if (s == NULL || !chan_slot_live(s)) {
		rte_spinlock_unlock(&t->ctl_lock);
		return -ENOENT;
	}
	chan_stats_locked(s, &st);
	chan_format_consumer(s, cons, sizeof(cons));
	snprintf(num[0], sizeof(num[0]), "%" PRIu32, st.ring_size);
	snprintf(num[1], sizeof(num[1]), "%" PRIu32, st.in_ring);
	snprintf(num[2], sizeof(num[2]), "%" PRIu64, st.enqueued);
	snprintf(num[3], sizeof(num[3]), "%" PRIu64, st.consumed);
	snprintf(num[4], sizeof(num[4]), "%" PRIu64, st.drop_full);
	snprintf(num[5], sizeof(num[5]), "%" PRIu64, st.flushed);
	snprintf(idbuf, sizeof(idbuf), "%u", id);
	ret = snprintf(buf, len, CHAN_FMT_COLS, s->desc->name, idbuf,
		chan_kind_name((enum chan_cons_kind)s->kind), cons, num[0], num[1], num[2], num[3],
		num[4], num[5]);
	rte_spinlock_unlock(&t->ctl_lock);
	if (ret < 0)
		return -EINVAL;
	if ((size_t)ret >= len)
		return -ENOSPC;
	return ret;
}

int
chan_dump(struct chan_table *t, FILE *f, uint32_t max_flow)
{
	char line[CHAN_FORMAT_LEN];
	struct chan_flow_pool fp;
	struct chan_totals tot;
	uint32_t listed = 0;
	int id;

	if (t == NULL || f == NULL)
		return -EINVAL;
	fprintf(f, CHAN_FMT_COLS "\n", "name", "id", "kind", "consumer", "ring", "used", "enqueued",
		"consumed", "drop_full", "flushed");
	for (id = chan_next(t, 0); id >= 0; id = chan_next(t, (unsigned int)id + 1)) {
		if ((uint32_t)id >= t->n_named && listed++ >= max_flow)
			break;
		if (chan_format(t, (uint32_t)id, line, sizeof(line)) >= 0)
			fprintf(f, "%s\n", line);
	}
	chan_flow_pool_get(t, &fp);
	if (fp.max != 0)
		fprintf(f,
			"per-flow pool: in use %" PRIu32 " free %" PRIu32 " rings %" PRIu32
			" cap %" PRIu32 " ring %" PRIu32 " slots, %" PRIu32
			" bytes per ring, chunks %" PRIu32 ", refused: cap %" PRIu64
			" memory %" PRIu64 "\n",
			fp.in_use, fp.free, fp.rings, fp.max, fp.ring_size, fp.bytes_per_ring,
			fp.chunks, fp.refused_cap, fp.refused_nomem);
	chan_totals_get(t, &tot);
	fprintf(f,
		"total: channels %" PRIu32 " per-flow %" PRIu32 "/%" PRIu32 " enqueued %" PRIu64
		" consumed %" PRIu64 " flushed %" PRIu64 " in_ring %" PRIu64 " drop_full %" PRIu64
		" drop_invalid %" PRIu64 " flow_alloc_fail %" PRIu64 "\n",
		tot.channels, tot.flow_channels, tot.flow_pool_size, tot.enqueued, tot.consumed,
		tot.flushed, tot.in_ring, tot.drop_full, tot.drop_invalid, tot.flow_alloc_fail);
	if (ferror(f))
		return -EIO;
	return 0;
}

int
chan_backlog_get(struct chan_table *t, struct chan_backlog *b)
{
	uint32_t end;
	uint32_t id;

	if (t == NULL || b == NULL)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	end = t->n_named + __atomic_load_n(&t->n_flow, __ATOMIC_ACQUIRE);
	for (id = 0; id < end; id++) {
		const struct chan_slot *s = chan_slot_of(t, id);
		uint32_t n;

		if (s == NULL || !chan_slot_live(s) || s->ring == NULL)
			continue;
		n = rte_ring_count(s->ring);
		if (n == 0)
			continue;
		if (s->kind != CHAN_CONS_APP)
			b->primary += n;
		else if (__atomic_load_n(&s->desc->attached, __ATOMIC_RELAXED) != 0)
			b->app_attached += n;
		else
			b->app_detached += n;
	}
	return 0;
}

uint64_t
chan_flush_app(struct chan_table *t)
{
	uint64_t total = 0;
	uint32_t end;
	uint32_t id;

	if (t == NULL)
		return 0;
	end = t->n_named + __atomic_load_n(&t->n_flow, __ATOMIC_ACQUIRE);
	for (id = 0; id < end; id++) {
		const struct chan_slot *s = chan_slot_of(t, id);
		int rc;

		if (s == NULL || !chan_slot_live(s) || s->kind != CHAN_CONS_APP ||
			rte_ring_count(s->ring) == 0)
			continue;
		rc = chan_flush(t, id); /* -EBUSY: a consumer is attached */
		if (rc > 0)
			total += (uint64_t)rc;
	}
	return total;
}
