/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/channel/table.c — the channel table: the shared directory memzone, named
 * channels (create, delete, lookup, iterate) and the end of a channel's life
 * (drain or flush, counters folded into the totals). The per-flow ring pool
 * is pool.c.
 *
 * Control functions serialize on the table's ctl_lock. Changes to a
 * descriptor's control fields also take the directory lock, which secondary
 * processes take to attach, so a channel never disappears under an
 * attaching consumer and is never deleted while one is attached.
 * Lock order: ctl_lock, then a slot's cons_lock, then the directory lock.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "chan_priv.h"
#include "channel.h"

RTE_LOG_REGISTER(chan_logtype, gufc.channel, NOTICE);

static const char *const chan_kind_names[CHAN_CONS__COUNT] = {
	[CHAN_CONS_DISCARD] = "discard",
	[CHAN_CONS_PCAP] = "pcap",
	[CHAN_CONS_TX] = "tx",
	[CHAN_CONS_APP] = "app",
};

const char *
chan_kind_name(enum chan_cons_kind kind)
{
	if ((unsigned int)kind >= CHAN_CONS__COUNT)
		return "?";
	return chan_kind_names[kind];
}

int
chan_kind_parse(const char *s)
{
	unsigned int k;

	if (s == NULL)
		return -EINVAL;
	for (k = 0; k < CHAN_CONS__COUNT; k++) {
		if (strcmp(s, chan_kind_names[k]) == 0)
			return (int)k;
	}
	return -EINVAL;
}

/*
 * A user-given name: 1..CHAN_NAME_MAX characters of [A-Za-z0-9_.-], not
 * ending in '.' followed by digits (the form of per-flow names).
 */
static bool
chan_name_valid(const char *name)
{
	const char *dot;
	size_t len;
	size_t i;

	if (name == NULL)
		return false;
	len = strnlen(name, CHAN_NAME_MAX + 1);
	if (len == 0 || len > CHAN_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-')
			return false;
	}
	dot = strrchr(name, '.');
	if (dot != NULL && dot[1] != '\0') {
		for (i = 1; dot[i] != '\0'; i++) {
			if (!isdigit((unsigned char)dot[i]))
				return true;
		}
		return false;
	}
	return true;
}

static bool
chan_ring_size_valid(uint32_t size)
{
	return rte_is_power_of_2(size) && size >= CHAN_RING_SIZE_MIN && size <= CHAN_RING_SIZE_MAX;
}

/* Live channel (named or per-flow) called @p name, or -ENOENT. */
static int
chan_find(const struct chan_table *t, const char *name)
{
	uint32_t id;

	for (id = 0; id < t->n_named; id++) {
		if (chan_slot_live(&t->slots[id]) && strcmp(t->slots[id].desc->name, name) == 0)
			return (int)id;
	}
	for (id = t->n_named; id < t->n_named + t->n_flow; id++) {
		const struct chan_slot *s = chan_slot_of(t, id);

		if (s != NULL && chan_slot_live(s) && strcmp(s->desc->name, name) == 0)
			return (int)id;
	}
	return -ENOENT;
}

/* Check a named channel's parameters; 0, -EINVAL, -ENOTSUP or -EEXIST. */
static int
chan_params_check(const struct chan_table *t, const struct chan_params *p)
{
	uint32_t ring_size = p->ring_size != 0 ? p->ring_size : CHAN_DEFAULT_RING_SIZE;

	if (!chan_name_valid(p->name))
		return -EINVAL;
	if ((unsigned int)p->kind >= CHAN_CONS__COUNT)
		return -EINVAL;
	if (!chan_ring_size_valid(ring_size))
		return -EINVAL;
	if (p->kind == CHAN_CONS_PCAP && (p->pcap_path == NULL || p->pcap_path[0] == '\0'))
		return -EINVAL;
	if (p->kind == CHAN_CONS_TX && p->tx_vlan > 4094)
		return -EINVAL;
	if (chan_find(t, p->name) >= 0)
		return -EEXIST;
	return 0;
}

/* Move the counters of a dead channel into the totals and zero them. */
void
chan_retire_counters(struct chan_table *t, struct chan_desc *d)
{
	struct chan_retired *r = &t->retired;
	unsigned int i;

	for (i = 0; i < chan_desc_n_prod(d); i++) {
		struct chan_prod_ctr *pc = chan_desc_prod(d, i);

		r->enqueued += chan_ctr_read(&pc->enqueued);
		r->enq_bytes += chan_ctr_read(&pc->bytes);
		r->drop_full += chan_ctr_read(&pc->drop_full);
		r->consumed += chan_ctr_read(&pc->direct_consumed);
		r->consumed_bytes += chan_ctr_read(&pc->direct_bytes);
		r->tx_sent += chan_ctr_read(&pc->tx_sent);
		r->tx_full += chan_ctr_read(&pc->tx_full);
		__atomic_store_n(&pc->enqueued, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->bytes, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->drop_full, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->direct_consumed, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->direct_bytes, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->tx_sent, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->tx_full, 0, __ATOMIC_RELAXED);
	}
	r->consumed += chan_ctr_read(&d->consumed);
	r->consumed_bytes += chan_ctr_read(&d->consumed_bytes);
	r->flushed += chan_ctr_read(&d->flushed);
	r->tx_sent += chan_ctr_read(&d->tx_sent);
	r->tx_full += chan_ctr_read(&d->tx_full);
	__atomic_store_n(&d->consumed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->consumed_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->flushed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->tx_sent, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->tx_full, 0, __ATOMIC_RELAXED);
}

/*
 * Take the descriptor away from attaching consumers before a channel ends.
 * @return 0, or -EBUSY if a live consumer is attached (unless @p force).
 */
int
chan_desc_close(struct chan_table *t, struct chan_desc *d, bool force)
{
	int ret = 0;

	rte_spinlock_lock(&t->dir->lock);
	if (!force && d->attached != 0 && chan_pid_alive(d->owner_pid)) {
		ret = -EBUSY;
	} else {
		d->state = CHAN_DESC_FREE;
		d->attached = 0;
		d->owner_pid = 0;
	}
	rte_spinlock_unlock(&t->dir->lock);
	return ret;
}

/*
 * End a channel whose descriptor is closed: stop producers from seeing it,
 * empty its ring (the consumer runs one last time for DISCARD and PCAP, the
 * rest is flushed) and fold its counters into the totals.
 */
void
chan_slot_finish(struct chan_table *t, struct chan_slot *s)
{
	__atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
	rte_spinlock_lock(&s->cons_lock);
	if (s->kind == CHAN_CONS_DISCARD || s->kind == CHAN_CONS_PCAP)
		chan_slot_consume(s, UINT32_MAX);
	chan_slot_flush(s); /* whatever a consumer could not take */
	rte_spinlock_unlock(&s->cons_lock);
	chan_retire_counters(t, s->desc);
}

/* Create named channel @p id (a free slot). Caller holds ctl_lock or owns @p t. */
static int
chan_create_at(struct chan_table *t, uint16_t id, const struct chan_params *p)
{
	char ring_name[RTE_RING_NAMESIZE];
	struct chan_slot *s = &t->slots[id];
	struct chan_pcap *pcap = NULL;
	struct rte_ring *ring;
	struct chan_desc *d;
	uint32_t ring_size;
	int ret;

	ret = chan_params_check(t, p);
	if (ret < 0)
		return ret;
	ring_size = p->ring_size != 0 ? p->ring_size : CHAN_DEFAULT_RING_SIZE;

	snprintf(ring_name, sizeof(ring_name), "%s%s", CHAN_RING_PREFIX, p->name);
	ring = rte_ring_create(ring_name, ring_size, t->socket_id, RING_F_SC_DEQ);
	if (ring == NULL) {
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		CHAN_LOG(DEBUG, "ring %s: %s", ring_name, rte_strerror(rte_errno));
		return ret;
	}
	if (p->kind == CHAN_CONS_PCAP) {
		int err = 0;

		pcap = chan_pcap_open(p->pcap_path,
			p->pcap_snaplen != 0 ? p->pcap_snaplen : CHAN_PCAP_SNAPLEN_DEFAULT, &err);
		if (pcap == NULL) {
			ret = -err;
			goto fail_ring;
		}
	}

	d = s->desc;
	rte_spinlock_lock(&t->dir->lock);
	memset(container_of(d, struct chan_named_desc, d), 0, sizeof(struct chan_named_desc));
	d->chunk = CHAN_CHUNK_NONE;
	d->id = id;
	d->parent = id;
	d->kind = (uint8_t)p->kind;
	d->tx_port = p->tx_port;
	d->tx_queue = p->tx_queue;
	d->tx_vlan = p->kind == CHAN_CONS_TX ? p->tx_vlan : 0;
	d->ring_size = ring_size;
	snprintf(d->ring_name, sizeof(d->ring_name), "%s", ring_name);
	snprintf(d->name, sizeof(d->name), "%s", p->name);
	d->state = CHAN_DESC_LIVE;
	rte_spinlock_unlock(&t->dir->lock);

	s->ring = ring;
	s->kind = (uint8_t)p->kind;
	s->tx_port = p->tx_port;
	s->tx_queue = p->tx_queue;
	s->tx_vlan = p->kind == CHAN_CONS_TX ? p->tx_vlan : 0;
	s->per_flow = 0;
	s->parent = id;
	s->children = 0;
	s->flow_seq = 0;
	s->pcap = pcap;
	__atomic_store_n(&s->live, 1, __ATOMIC_RELEASE);
	if ((uint32_t)id >= t->named_end)
		__atomic_store_n(&t->named_end, (uint32_t)id + 1, __ATOMIC_RELEASE);
	return id;

fail_ring:
	rte_ring_free(ring);
	return ret;
}

struct chan_table *
chan_table_create(const struct chan_table_params *p)
{
	struct chan_params def;
	struct chan_table *t;
	uint32_t flow_max;
	size_t dir_size;
	uint32_t i;
	int ret;

	if (p == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		rte_errno = E_RTE_SECONDARY;
		return NULL;
	}
	flow_max = p->flow_pool_max != 0 ? p->flow_pool_max : p->flow_pool_size;
	if (p->max_channels > CHAN_MAX_CHANNELS || p->flow_pool_size > CHAN_FLOW_POOL_MAX ||
		flow_max > CHAN_FLOW_POOL_MAX || flow_max < p->flow_pool_size ||
		(p->flow_ring_size != 0 && !chan_ring_size_valid(p->flow_ring_size))) {
		rte_errno = EINVAL;
		return NULL;
	}

	t = rte_zmalloc_socket("chan_table", sizeof(*t), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->n_named = p->max_channels != 0 ? p->max_channels : CHAN_DEFAULT_MAX_CHANNELS;
	t->flow_max = flow_max;
	t->flow_chunk = CHAN_FLOW_CHUNK;
	t->flow_ring_size =
		p->flow_ring_size != 0 ? p->flow_ring_size : CHAN_DEFAULT_FLOW_RING_SIZE;
	t->flow_free_head = UINT32_MAX;
	t->socket_id = p->socket_id;
	rte_spinlock_init(&t->ctl_lock);
	for (i = 0; i < CHAN_MAX_PRODUCERS; i++)
		for (uint32_t port = 0; port < CHAN_MAX_TX_PORTS; port++)
			t->prod[i].txq[port] = -1; /* no direct TX until asked */

	t->slots = rte_zmalloc_socket(
		"chan_slots", t->n_named * sizeof(t->slots[0]), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (t->slots == NULL) {
		ret = ENOMEM;
		goto fail;
	}

	dir_size = sizeof(struct chan_dir) + t->n_named * sizeof(struct chan_named_desc);
	t->mz = rte_memzone_reserve(CHAN_DIR_MZ_NAME, dir_size, p->socket_id, 0);
	if (t->mz == NULL) {
		ret = rte_errno == EEXIST ? EEXIST : ENOMEM;
		goto fail;
	}
	t->dir = t->mz->addr;
	memset(t->dir, 0, dir_size);
	t->dir->n_desc = t->n_named;
	t->dir->flow_chunk = t->flow_chunk;
	t->dir->flow_max = t->flow_max;
	rte_spinlock_init(&t->dir->lock);

	for (i = 0; i < t->n_named; i++) {
		struct chan_slot *s = &t->slots[i];

		s->desc = &t->dir->desc[i].d;
		s->desc->id = i;
		s->desc->chunk = CHAN_CHUNK_NONE;
		s->parent = (uint16_t)i;
		rte_spinlock_init(&s->cons_lock);
	}

	/* The per-flow pool: what is asked for now, more later up to the cap. */
	ret = chan_pool_init(t, p->flow_pool_size);
	if (ret != 0)
		goto fail;

	def = p->def;
	if (def.name == NULL)
		def.name = CHAN_DEFAULT_NAME;
	ret = chan_create_at(t, CHAN_ID_DEFAULT, &def);
	if (ret < 0) {
		ret = -ret;
		goto fail;
	}

	__atomic_store_n(&t->dir->magic, CHAN_DIR_MAGIC, __ATOMIC_RELEASE);
	return t;

fail:
	chan_table_free(t);
	rte_errno = ret;
	return NULL;
}

void
chan_table_free(struct chan_table *t)
{
	uint32_t id;

	if (t == NULL)
		return;
	if (t->dir != NULL)
		__atomic_store_n(&t->dir->magic, 0, __ATOMIC_RELEASE);
	/* First empty every ring, named ones then the per-flow pool, before any
	 * pcap file closes: per-flow PCAP channels write to their parent's file. */
	for (id = 0; t->slots != NULL && id < t->n_named; id++) {
		struct chan_slot *s = &t->slots[id];

		if (chan_slot_live(s)) {
			chan_desc_close(t, s->desc, true);
			chan_slot_finish(t, s);
		}
	}
	chan_pool_free(t);
	if (t->slots != NULL) {
		for (id = 0; id < t->n_named; id++) {
			struct chan_slot *s = &t->slots[id];

			chan_pcap_close(s->pcap);
			s->pcap = NULL;
			rte_ring_free(s->ring);
			s->ring = NULL;
		}
	}
	rte_memzone_free(t->mz);
	rte_free(t->slots);
	rte_free(t);
}

int
chan_create(struct chan_table *t, const struct chan_params *p)
{
	uint32_t id;
	int ret;

	if (t == NULL || p == NULL)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	ret = chan_params_check(t, p);
	if (ret < 0)
		goto out;
	ret = -ENOSPC;
	for (id = 0; id < t->n_named; id++) {
		if (t->slots[id].ring == NULL) {
			ret = chan_create_at(t, (uint16_t)id, p);
			break;
		}
	}
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

/* After a delete: the consumers' scan ends at the highest live slot again. */
static void
chan_named_end_update(struct chan_table *t)
{
	uint32_t end = t->named_end;

	while (end > 0 && !chan_slot_live(&t->slots[end - 1]))
		end--;
	__atomic_store_n(&t->named_end, end, __ATOMIC_RELEASE);
}

int
chan_delete(struct chan_table *t, uint32_t id)
{
	struct chan_slot *s;
	int ret;

	if (t == NULL || id >= t->n_named)
		return -EINVAL;
	if (id == CHAN_ID_DEFAULT)
		return -EPERM;
	rte_spinlock_lock(&t->ctl_lock);
	s = &t->slots[id];
	if (!chan_slot_live(s)) {
		ret = -ENOENT;
		goto out;
	}
	if (s->children > 0) {
		ret = -EBUSY;
		goto out;
	}
	ret = chan_desc_close(t, s->desc, false);
	if (ret < 0)
		goto out;
	chan_slot_finish(t, s);
	chan_pcap_close(s->pcap);
	s->pcap = NULL;
	rte_ring_free(s->ring);
	s->ring = NULL;
	chan_named_end_update(t);
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_lookup(struct chan_table *t, const char *name)
{
	int ret;

	if (t == NULL || name == NULL)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	ret = chan_find(t, name);
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_next_named(const struct chan_table *t, unsigned int from)
{
	uint32_t id;

	if (t == NULL)
		return -EINVAL;
	for (id = from; id < t->n_named; id++) {
		if (chan_slot_live(&t->slots[id]))
			return (int)id;
	}
	return -ENOENT;
}

int
chan_next(const struct chan_table *t, unsigned int from)
{
	uint32_t end;
	uint32_t id;
	int ret;

	if (t == NULL)
		return -EINVAL;
	ret = chan_next_named(t, from);
	if (ret >= 0)
		return ret;
	end = t->n_named + __atomic_load_n(&t->n_flow, __ATOMIC_ACQUIRE);
	for (id = RTE_MAX(from, t->n_named); id < end; id++) {
		const struct chan_slot *s = chan_slot_of(t, id);

		if (s != NULL && chan_slot_live(s))
			return (int)id;
	}
	return -ENOENT;
}

int
chan_info_get(struct chan_table *t, uint32_t id, struct chan_info *info)
{
	const struct chan_slot *s;
	const struct chan_desc *d;
	int ret = 0;

	if (t == NULL || info == NULL || id >= t->n_named + t->flow_max)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	s = chan_slot_of(t, id);
	if (s == NULL || !chan_slot_live(s)) {
		ret = -ENOENT;
		goto out;
	}
	d = s->desc;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", d->name);
	info->id = id;
	info->parent = s->parent;
	info->per_flow = s->per_flow != 0;
	info->kind = (enum chan_cons_kind)s->kind;
	info->ring_size = d->ring_size;
	info->tx_port = d->tx_port;
	info->tx_queue = d->tx_queue;
	info->tx_vlan = d->tx_vlan;
	info->flow_children = s->children;
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}

int
chan_flush(struct chan_table *t, uint32_t id)
{
	struct chan_slot *s;
	struct chan_desc *d;
	bool claimed = false;
	int ret;

	if (t == NULL || id >= t->n_named + t->flow_max)
		return -EINVAL;
	rte_spinlock_lock(&t->ctl_lock);
	s = chan_slot_of(t, id);
	if (s == NULL || !chan_slot_live(s)) {
		ret = -ENOENT;
		goto out;
	}
	d = s->desc;
	if (s->kind == CHAN_CONS_APP) {
		/* Become the channel's consumer for the time of the flush. */
		rte_spinlock_lock(&t->dir->lock);
		if (d->attached != 0 && chan_pid_alive(d->owner_pid)) {
			ret = -EBUSY;
		} else {
			d->attached = 1;
			d->owner_pid = (int32_t)getpid();
			claimed = true;
			ret = 0;
		}
		rte_spinlock_unlock(&t->dir->lock);
		if (ret < 0)
			goto out;
	}
	rte_spinlock_lock(&s->cons_lock);
	ret = (int)chan_slot_flush(s);
	rte_spinlock_unlock(&s->cons_lock);
	if (claimed) {
		rte_spinlock_lock(&t->dir->lock);
		d->attached = 0;
		d->owner_pid = 0;
		rte_spinlock_unlock(&t->dir->lock);
	}
out:
	rte_spinlock_unlock(&t->ctl_lock);
	return ret;
}
