/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drivers/offload/ofl_policy.c — which flows go to hardware, and keeping
 * hardware coherent with the flow cache.
 *
 *  - Scan (ofl_policy_scan): a rotating cursor over both flow tables
 *    measures each entry's packet rate between visits; heavy hitters are
 *    queued for offload, offloaded flows whose action changed or that went
 *    cold are queued for removal.
 *  - Queue and executor (ofl_policy_execute): requests wait in a FIFO and
 *    are executed later, bounded per call; the RX path never calls here.
 *  - Removal: module "offload"'s on_remove (the entry goes) clears the
 *    flow's mark at once (see offload.h "Marks") and queues the destroy.
 *  - Coherence (ofl_policy_commit_sync): after a commit, DROP rules of flows
 *    the commit may change are destroyed synchronously.
 *
 * Single-threaded: everything runs on the control thread (rules lcore),
 * which is also the flow tables' writer. Shared with RX lcores: only the
 * marks' tags in the tables' entries (fc_table_mark_tag_set(): release stores here,
 * acquire loads there).
 * Per entry index state (rates, tags, hardware slot) lives in arrays sized
 * from the table capacity plus the table's headroom.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "offload.h"
#include "ofl_priv.h"

#define OFL_MAX_PORTS 32

enum { HW_FREE, HW_PENDING, HW_ACTIVE };
enum { REQ_ADD, REQ_DEL };

/** A flow in hardware (or on its way there). */
struct ofl_hw {
	struct fc_key key;
	void *rule[OFL_MAX_PORTS];          /**< per port, NULL where not installed */
	struct ofl_count seen[OFL_MAX_PORTS]; /**< COUNT values already accounted */
	uint32_t idx;
	uint32_t mark;    /**< ACCEPT: the mark; DROP: 0 */
	uint32_t sgen;    /**< bumped each time the slot is reused */
	uint8_t fam;
	uint8_t verdict;
	uint8_t state;
	uint8_t count;    /**< rules carry COUNT */
};

/** Per entry index: rate measurement and offload memory. */
struct ofl_rate {
	uint64_t pkts;    /**< entry packets at the last visit */
	uint32_t t;       /**< time of the last visit */
	uint32_t created; /**< entry creation time: tells a new flow in the slot */
	uint32_t slot;    /**< hardware slot + 1, 0 if none */
	uint8_t valid;
	uint8_t no_offload; /**< refused by every port: not tried again for this entry */
	uint8_t tag;      /**< last mark tag used at this index */
};

struct ofl_req {
	uint32_t slot;
	uint32_t sgen;
	uint32_t op;
};

struct ofl_policy {
	struct dp_marks marks; /* first: ofl_policy_marks() */
	struct ofl_policy_params p;
	struct ofl_port *ports[OFL_MAX_PORTS];
	struct fc_table *t[2];
	struct ofl_rate *rate[2];
	struct ofl_hw *hw;
	uint32_t *free_slots;
	uint32_t n_free;
	struct ofl_req *q;
	uint32_t q_head, q_tail, q_len;
	uint32_t cursor;
	unsigned int cur_tbl;
	struct ofl_policy_stats st;
};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static const void *
key_raw(const struct fc_key *k)
{
	return &k->v4;
}

static void
key_from_raw(unsigned int fam, const void *raw, struct fc_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = fam ? FC_AF_INET6 : FC_AF_INET4;
	memcpy(&k->v4, raw, fam ? sizeof(struct fc_key_v6) : sizeof(struct fc_key_v4));
}

static int
key_index(const struct ofl_policy *pol, const struct fc_key *k, unsigned int *fam)
{
	unsigned int f;
	int i;

	if (k->family != FC_AF_INET4 && k->family != FC_AF_INET6)
		return -EINVAL;
	f = OFL_FAM(k->family);
	i = fc_table_lookup(pol->t[f], key_raw(k), fc_table_hash(pol->t[f], key_raw(k)));
	if (i < 0)
		return i;
	if ((uint32_t)i >= pol->marks.cap[f])
		return -ERANGE;
	*fam = f;
	return i;
}

static bool
q_push(struct ofl_policy *pol, uint32_t slot, uint32_t op)
{
	struct ofl_req *r;

	if (pol->q_len == pol->p.queue_size) {
		pol->st.queue_full++;
		return false;
	}
	r = &pol->q[pol->q_tail];
	r->slot = slot;
	r->sgen = pol->hw[slot].sgen;
	r->op = op;
	pol->q_tail = (pol->q_tail + 1) % pol->p.queue_size;
	pol->q_len++;
	pol->st.queued++;
	return true;
}

/* Destroy the rules of slot @s on every port (COUNT read first for hw_drop). */
static void
hw_destroy_rules(struct ofl_policy *pol, struct ofl_hw *h)
{
	for (unsigned int i = 0; i < pol->p.n_ports; i++) {
		struct ofl_port *op = pol->ports[i];
		struct rte_flow_error err;

		if (h->rule[i] == NULL)
			continue;
		if (h->count && h->verdict == FC_VERDICT_DROP && op->backend != OFL_BACKEND_SWNIC) {
			struct ofl_count c;

			if (op->ops->query_count(op->be, h->rule[i], &c, &err) == 0) {
				op->hw_dropped_seen += c.packets - h->seen[i].packets;
				op->hw_dropped_bytes_seen += c.bytes - h->seen[i].bytes;
			}
		}
		if (ofl_port_rule_destroy(op, h->rule[i], &err) < 0)
			OFL_LOG(DEBUG, "port %u: destroy failed: %s", op->port_id,
				err.message ? err.message : "?");
		h->rule[i] = NULL;
	}
}

/* Release slot @s: its index forgets it, the slot returns to the free list. */
static void
hw_release(struct ofl_policy *pol, uint32_t s)
{
	struct ofl_hw *h = &pol->hw[s];

	if (h->idx < pol->marks.cap[h->fam] && pol->rate[h->fam][h->idx].slot == s + 1)
		pol->rate[h->fam][h->idx].slot = 0;
	h->state = HW_FREE;
	h->sgen++;
	pol->free_slots[pol->n_free++] = s;
	pol->st.removed++;
}

/* Clear the mark first: from now on no packet takes the flow's entry by it. */
static void
hw_unmark(struct ofl_policy *pol, struct ofl_hw *h)
{
	if (h->mark != 0 && h->idx < pol->marks.cap[h->fam] &&
		fc_table_mark_tag(pol->t[h->fam], h->idx) == dp_mark_tag(h->mark))
		(void)fc_table_mark_tag_set(pol->t[h->fam], h->idx, 0);
}

/*
 * Take slot @s out of hardware: unmark now, destroy now (@sync) or queue the
 * destroy (a full queue destroys now: a removal is never lost). DROP rules
 * are always destroyed now: no hardware drop outlives the entry that
 * decided it (a MARK rule is harmless once unmarked).
 */
static void
hw_remove(struct ofl_policy *pol, uint32_t s, bool sync)
{
	struct ofl_hw *h = &pol->hw[s];

	if (h->verdict == FC_VERDICT_DROP)
		sync = true;
	hw_unmark(pol, h);
	if (!sync && h->state == HW_ACTIVE && q_push(pol, s, REQ_DEL)) {
		/* Index forgets it now; the slot is released by the executor. */
		if (pol->rate[h->fam][h->idx].slot == s + 1)
			pol->rate[h->fam][h->idx].slot = 0;
		h->state = HW_PENDING;
		h->idx = UINT32_MAX;
		return;
	}
	hw_destroy_rules(pol, h);
	hw_release(pol, s);
}

static bool
eligible(const struct ofl_policy *pol, unsigned int fam, const struct fc_key *k,
	const struct fc_action *a)
{
	uint8_t proto = fc_key_proto(k);
	uint32_t need;

	if (a->verdict == FC_VERDICT_ACCEPT) {
		if (pol->p.no_mark)
			return false;
		need = OFL_CAP_MARK;
	} else if (a->verdict == FC_VERDICT_DROP) {
		if (pol->p.no_drop)
			return false;
		need = OFL_CAP_DROP;
	} else {
		return false;
	}
	/* NAT needs header offsets the marked path does not compute; a packet
	 * program (a meter, LOG, rewrites), its packets; connbytes limits, its
	 * counters (a NIC drop counts nothing). */
	if (a->flags & (FC_ACT_F_NAT | FC_ACT_F_PKTACT | FC_ACT_F_COUNT))
		return false;
	/* A drop for a class of TCP flags only: the NIC would drop the others too. */
	if (a->verdict == FC_VERDICT_DROP && (a->mod[0] & RULE_ACT_M0_CLASSED))
		return false;
	if (proto != 6 && proto != 17 && proto != 132)
		return false;
	if (rule_engine_stale(pol->p.eng, a, k))
		return false;
	for (unsigned int i = 0; i < pol->p.n_ports; i++)
		if (pol->ports[i]->port_id == fc_key_in_port(k) &&
			(pol->ports[i]->caps[fam] & need) == need)
			return true;
	return false;
}

/* Start offloading entry @idx: take a slot, set its mark, queue the creation. */
static int
hw_add(struct ofl_policy *pol, unsigned int fam, uint32_t idx, const struct fc_key *k,
	const struct fc_action *a)
{
	struct ofl_rate *r = &pol->rate[fam][idx];
	struct ofl_hw *h;
	uint32_t s;

	if (pol->n_free == 0) {
		pol->st.capped++;
		return -ENOSPC;
	}
	s = pol->free_slots[--pol->n_free];
	h = &pol->hw[s];
	h->key = *k;
	h->idx = idx;
	h->fam = (uint8_t)fam;
	h->verdict = a->verdict;
	h->state = HW_PENDING;
	h->count = 0;
	memset(h->rule, 0, sizeof(h->rule));
	memset(h->seen, 0, sizeof(h->seen));
	h->mark = 0;
	if (a->verdict == FC_VERDICT_ACCEPT) {
		if (++r->tag == 0)
			r->tag = 1;
		h->mark = dp_mark_make(fam, idx, r->tag);
	}
	if (!q_push(pol, s, REQ_ADD)) {
		h->state = HW_FREE;
		h->sgen++;
		pol->free_slots[pol->n_free++] = s;
		return -ENOBUFS;
	}
	r->slot = s + 1;
	/* No packet carries the mark before the rule exists: publish it now. */
	if (h->mark != 0)
		(void)fc_table_mark_tag_set(pol->t[fam], idx, dp_mark_tag(h->mark));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Module "offload"                                                          */
/* ------------------------------------------------------------------------ */

static void
pol_on_remove(void *priv, const struct rule_flow_gone *g)
{
	struct ofl_policy *pol = priv;
	unsigned int fam;
	int idx;
	uint32_t s;

	if (pol->n_free == pol->p.max_flows)
		return; /* nothing in hardware: no lookup */
	idx = key_index(pol, &g->key, &fam);
	if (idx < 0)
		return;
	/* The entry is going: its index's rate state is void either way. */
	s = pol->rate[fam][idx].slot;
	pol->rate[fam][idx].valid = 0;
	pol->rate[fam][idx].no_offload = 0;
	if (s == 0)
		return;
	pol->st.removed_gone++;
	hw_remove(pol, s - 1, false);
}

/*
 * An entry moved to another input port (a connection's reply entry, see
 * engine.h "Input ports"): its old index leaves hardware like a removed
 * entry's; the new one is measured afresh.
 */
static void
pol_on_move(void *priv, const struct rule_flow_moved *mv)
{
	struct ofl_policy *pol = priv;
	unsigned int fam;
	uint32_t s;

	if (mv->key.family != FC_AF_INET4 && mv->key.family != FC_AF_INET6)
		return;
	fam = OFL_FAM(mv->key.family);
	if (mv->old_idx >= pol->marks.cap[fam])
		return;
	s = pol->rate[fam][mv->old_idx].slot;
	pol->rate[fam][mv->old_idx].valid = 0;
	pol->rate[fam][mv->old_idx].no_offload = 0;
	if (s == 0)
		return;
	pol->st.removed_gone++;
	hw_remove(pol, s - 1, false);
}

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                 */
/* ------------------------------------------------------------------------ */

struct ofl_policy *
ofl_policy_create(const struct ofl_policy_params *p)
{
	struct ofl_policy *pol;
	struct rule_module m;
	int rc;

	if (p == NULL || p->eng == NULL || p->n_ports > OFL_MAX_PORTS ||
		(p->n_ports > 0 && p->ports == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (unsigned int i = 0; i < p->n_ports; i++) {
		if (p->ports[i] == NULL) {
			rte_errno = EINVAL;
			return NULL;
		}
	}
	pol = calloc(1, sizeof(*pol));
	if (pol == NULL)
		goto nomem;
	pol->p = *p;
	if (pol->p.max_flows == 0)
		pol->p.max_flows = 1024;
	if (pol->p.pps_threshold == 0)
		pol->p.pps_threshold = 1000;
	if (pol->p.interval_ms == 0)
		pol->p.interval_ms = 100;
	if (pol->p.queue_size == 0)
		pol->p.queue_size = 4096;
	/* Each flow needs at most one request in flight, plus its removal. */
	if (pol->p.queue_size < 2 * pol->p.max_flows)
		pol->p.queue_size = 2 * pol->p.max_flows;
	memcpy(pol->ports, p->ports, p->n_ports * sizeof(p->ports[0]));
	for (unsigned int f = 0; f < 2; f++) {
		struct fc_table_stats ts;

		pol->t[f] = rule_engine_table(p->eng, f ? FC_AF_INET6 : FC_AF_INET4);
		if (pol->t[f] == NULL) {
			rte_errno = EINVAL;
			goto fail;
		}
		fc_table_stats_get(pol->t[f], &ts);
		/* Entry indexes go past the capacity by the table's headroom (1/8, >= 64). */
		pol->marks.cap[f] = RTE_MIN(ts.capacity + ts.capacity / 4 + 256, DP_MARK_IDX_MASK + 1);
		pol->marks.tab[f] = pol->t[f];
		pol->rate[f] = calloc(pol->marks.cap[f], sizeof(struct ofl_rate));
		if (pol->rate[f] == NULL)
			goto nomem;
	}
	pol->hw = calloc(pol->p.max_flows, sizeof(*pol->hw));
	pol->free_slots = calloc(pol->p.max_flows, sizeof(uint32_t));
	pol->q = calloc(pol->p.queue_size, sizeof(*pol->q));
	if (pol->hw == NULL || pol->free_slots == NULL || pol->q == NULL)
		goto nomem;
	for (uint32_t i = 0; i < pol->p.max_flows; i++)
		pol->free_slots[pol->n_free++] = pol->p.max_flows - 1 - i;

	memset(&m, 0, sizeof(m));
	m.name = "offload";
	m.order = 1000;
	m.on_remove = pol_on_remove;
	m.on_move = pol_on_move;
	m.priv = pol;
	rc = rule_engine_module_register(p->eng, &m);
	if (rc < 0) {
		rte_errno = -rc;
		goto fail;
	}
	return pol;
nomem:
	rte_errno = ENOMEM;
fail:
	if (pol != NULL) {
		int e = rte_errno;

		for (unsigned int f = 0; f < 2; f++)
			free(pol->rate[f]);
		free(pol->hw);
		free(pol->free_slots);
		free(pol->q);
		free(pol);
		rte_errno = e;
	}
	return NULL;
}

void
ofl_policy_free(struct ofl_policy *pol)
{
	if (pol == NULL)
		return;
	/* Marks left in live entries (the tables may be gone already) name
	 * their own flow's entry: the table withdraws each when its entry goes. */
	for (uint32_t s = 0; s < pol->p.max_flows; s++)
		if (pol->hw[s].state != HW_FREE)
			hw_destroy_rules(pol, &pol->hw[s]);
	for (unsigned int f = 0; f < 2; f++)
		free(pol->rate[f]);
	free(pol->hw);
	free(pol->free_slots);
	free(pol->q);
	free(pol);
}

/* ------------------------------------------------------------------------ */
/* Executor                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Create slot @s's rule on the flow's input port (the key holds it: the
 * same 5-tuple on another port is another flow, another entry, another
 * mark). @return ports that took it (0 or 1).
 */
static unsigned int
exec_add(struct ofl_policy *pol, uint32_t s)
{
	struct ofl_hw *h = &pol->hw[s];
	unsigned int ok = 0;

	for (unsigned int i = 0; i < pol->p.n_ports; i++) {
		struct ofl_port *op = pol->ports[i];
		uint32_t caps = op->caps[h->fam];
		uint32_t need = h->verdict == FC_VERDICT_DROP ? OFL_CAP_DROP : OFL_CAP_MARK;
		struct ofl_flow_req r;
		struct ofl_flow_spec spec;
		struct rte_flow_error err;

		if (op->port_id != fc_key_in_port(&h->key) || (caps & need) != need)
			continue;
		memset(&r, 0, sizeof(r));
		r.key = h->key;
		r.verdict = h->verdict;
		r.mark = h->mark;
		ofl_port_req(op, &r);
		/* COUNT keeps DROP flows alive in the cache (scan) and feeds hw_drop. */
		r.count = (caps & OFL_CAP_COUNT) != 0;
		if (ofl_flow_translate(&r, &spec) < 0)
			continue;
		memset(&err, 0, sizeof(err));
		h->rule[i] = ofl_port_rule_create(op, &spec, &err);
		if (h->rule[i] == NULL) {
			if (rte_errno == ENOSPC || rte_errno == ENOMEM)
				pol->st.offload_full++;
			else
				pol->st.offload_refused++;
			continue;
		}
		h->count = r.count;
		ok++;
	}
	return ok;
}

unsigned int
ofl_policy_execute(struct ofl_policy *pol, unsigned int budget)
{
	unsigned int done = 0;

	if (pol == NULL)
		return 0;
	while (done < budget && pol->q_len > 0) {
		struct ofl_req rq = pol->q[pol->q_head];
		struct ofl_hw *h = &pol->hw[rq.slot];

		pol->q_head = (pol->q_head + 1) % pol->p.queue_size;
		pol->q_len--;
		done++;
		if (h->sgen != rq.sgen || h->state != HW_PENDING)
			continue; /* cancelled (its flow went before we got to it) */
		if (rq.op == REQ_DEL) {
			hw_destroy_rules(pol, h);
			hw_release(pol, rq.slot);
			continue;
		}
		if (exec_add(pol, rq.slot) == 0) {
			/* Refused everywhere: the flow stays in software, not retried. */
			uint32_t created = fc_table_created(pol->t[h->fam], h->idx);

			pol->rate[h->fam][h->idx].no_offload = 1;
			if (created != 0)
				pol->rate[h->fam][h->idx].created = created;
			hw_unmark(pol, h);
			if (pol->rate[h->fam][h->idx].slot == rq.slot + 1)
				pol->rate[h->fam][h->idx].slot = 0;
			h->state = HW_FREE;
			h->sgen++;
			pol->free_slots[pol->n_free++] = rq.slot;
			continue;
		}
		h->state = HW_ACTIVE;
		pol->st.offloaded++;
	}
	return done;
}

/* ------------------------------------------------------------------------ */
/* Scan                                                                      */
/* ------------------------------------------------------------------------ */

/* An offloaded DROP flow: fold new hardware hits into the entry (keeps it from aging). */
static void
drop_refresh(struct ofl_policy *pol, struct ofl_hw *h, uint32_t now)
{
	uint64_t dp = 0, db = 0;

	if (!h->count)
		return;
	for (unsigned int i = 0; i < pol->p.n_ports; i++) {
		struct ofl_port *op = pol->ports[i];
		struct rte_flow_error err;
		struct ofl_count c;

		if (h->rule[i] == NULL || op->ops->query_count(op->be, h->rule[i], &c, &err) < 0)
			continue;
		dp += c.packets - h->seen[i].packets;
		db += c.bytes - h->seen[i].bytes;
		if (op->backend != OFL_BACKEND_SWNIC) {
			op->hw_dropped_seen += c.packets - h->seen[i].packets;
			op->hw_dropped_bytes_seen += c.bytes - h->seen[i].bytes;
		}
		h->seen[i] = c;
	}
	/*
	 * The RX lcore never sees these packets, so the entry is touched here
	 * (plain stores, like the RX lcore's own): at worst one in-flight
	 * packet's increment is lost.
	 */
	if (dp != 0)
		fc_table_touch(pol->t[h->fam], h->idx, (uint32_t)RTE_MIN(db, (uint64_t)UINT32_MAX),
			now);
}

static void
scan_one(struct ofl_policy *pol, unsigned int fam, const void *raw, uint32_t idx, uint32_t now)
{
	const struct fc_entry *e = fc_table_entry(pol->t[fam], idx);
	uint32_t created = fc_table_created(pol->t[fam], idx);
	struct ofl_rate *r;
	struct fc_key k;
	uint64_t pps, packets;
	uint32_t dt;

	if (e == NULL || idx >= pol->marks.cap[fam])
		return;
	packets = fc_table_packets(pol->t[fam], idx);
	r = &pol->rate[fam][idx];
	if (!r->valid || r->created != created) {
		/* A new flow in an offloaded index (on_remove should have said). */
		if (r->valid && r->slot != 0)
			hw_remove(pol, r->slot - 1, false);
		if (r->created != created)
			r->no_offload = 0;
		r->valid = 1;
		r->created = created;
		r->pkts = packets;
		r->t = now;
		return;
	}
	if (packets < r->pkts) { /* another flow took the index unnoticed */
		r->pkts = packets;
		r->t = now;
		return;
	}
	dt = now - r->t;
	if (dt < pol->p.interval_ms)
		return;
	if (r->slot != 0) {
		struct ofl_hw *h = &pol->hw[r->slot - 1];

		if (h->state == HW_ACTIVE && h->verdict == FC_VERDICT_DROP)
			drop_refresh(pol, h, now);
	}
	pps = (packets - r->pkts) * 1000 / dt;
	r->pkts = packets;
	r->t = now;

	if (r->slot != 0) {
		uint32_t s = r->slot - 1;
		struct ofl_hw *h = &pol->hw[s];

		if (h->state != HW_ACTIVE)
			return;
		if (e->act.verdict != h->verdict || (e->act.flags & FC_ACT_F_NAT)) {
			pol->st.removed_changed++;
			hw_remove(pol, s, false);
		} else if (h->verdict == FC_VERDICT_ACCEPT && pps * 2 < pol->p.pps_threshold) {
			pol->st.removed_cold++;
			hw_remove(pol, s, false);
		}
		return;
	}
	if (pps < pol->p.pps_threshold || r->no_offload)
		return;
	key_from_raw(fam, raw, &k);
	if (!eligible(pol, fam, &k, &e->act))
		return;
	pol->st.candidates++;
	hw_add(pol, fam, idx, &k, &e->act);
}

unsigned int
ofl_policy_scan(struct ofl_policy *pol, uint32_t now, unsigned int budget)
{
	unsigned int visited = 0, ends = 0;
	uint32_t left = budget; /* table slots, free ones included (fc_table_walk()) */

	if (pol == NULL)
		return 0;
	while (ends < 2) {
		const void *raw;
		uint32_t idx;
		int rc = fc_table_walk(pol->t[pol->cur_tbl], &pol->cursor, &left, &raw, &idx);

		if (rc == -EAGAIN)
			break;
		if (rc < 0) {
			pol->cur_tbl ^= 1;
			pol->cursor = 0;
			ends++;
			continue;
		}
		visited++;
		scan_one(pol, pol->cur_tbl, raw, idx, now);
	}
	pol->st.scanned += visited;
	return visited;
}

/* ------------------------------------------------------------------------ */
/* Direct control and coherence                                              */
/* ------------------------------------------------------------------------ */

int
ofl_policy_offload(struct ofl_policy *pol, const struct fc_key *key)
{
	const struct fc_entry *e;
	unsigned int fam;
	uint32_t s;
	int idx, rc;

	if (pol == NULL || key == NULL)
		return -EINVAL;
	idx = key_index(pol, key, &fam);
	if (idx < 0)
		return idx == -ERANGE ? -EINVAL : -ENOENT;
	e = fc_table_entry(pol->t[fam], (uint32_t)idx);
	if (e == NULL)
		return -ENOENT;
	if (pol->rate[fam][idx].slot != 0)
		return -EEXIST;
	if (!eligible(pol, fam, key, &e->act))
		return -EINVAL;
	rc = hw_add(pol, fam, (uint32_t)idx, key, &e->act);
	if (rc < 0)
		return rc;
	s = pol->rate[fam][idx].slot - 1;
	while (pol->q_len > 0 && pol->hw[s].state == HW_PENDING)
		ofl_policy_execute(pol, pol->q_len);
	return pol->rate[fam][idx].slot != 0 ? 0 : -EIO;
}

int
ofl_policy_remove(struct ofl_policy *pol, const struct fc_key *key)
{
	unsigned int fam;
	uint32_t s;
	int idx;

	if (pol == NULL || key == NULL)
		return -EINVAL;
	idx = key_index(pol, key, &fam);
	if (idx < 0 || pol->rate[fam][idx].slot == 0)
		return -ENOENT;
	s = pol->rate[fam][idx].slot - 1;
	hw_remove(pol, s, true);
	return 0;
}

unsigned int
ofl_policy_commit_sync(struct ofl_policy *pol)
{
	uint64_t t0 = rte_rdtsc(), dt;
	unsigned int n = 0;

	if (pol == NULL)
		return 0;
	for (uint32_t s = 0; s < pol->p.max_flows; s++) {
		struct ofl_hw *h = &pol->hw[s];
		const struct fc_entry *e;

		if (h->state == HW_FREE || h->verdict != FC_VERDICT_DROP ||
			h->idx == UINT32_MAX)
			continue;
		e = fc_table_entry(pol->t[h->fam], h->idx);
		if (e != NULL && !rule_engine_stale(pol->p.eng, &e->act, &h->key))
			continue;
		hw_remove(pol, s, true);
		pol->st.removed_commit++;
		n++;
	}
	/* What a commit waits for before it is acknowledged (destroys included). */
	dt = rte_rdtsc() - t0;
	pol->st.commit_syncs++;
	pol->st.commit_sync_cycles_last = dt;
	if (dt > pol->st.commit_sync_cycles_max)
		pol->st.commit_sync_cycles_max = dt;
	return n;
}

bool
ofl_policy_in_hw(const struct ofl_policy *pol, const struct fc_key *key)
{
	unsigned int fam;
	int idx;

	if (pol == NULL || key == NULL)
		return false;
	idx = key_index(pol, key, &fam);
	return idx >= 0 && pol->rate[fam][idx].slot != 0;
}

int
ofl_policy_stats_get(const struct ofl_policy *pol, struct ofl_policy_stats *st)
{
	if (pol == NULL || st == NULL)
		return -EINVAL;
	*st = pol->st;
	st->in_hw = pol->p.max_flows - pol->n_free;
	st->pending = pol->q_len;
	return 0;
}
