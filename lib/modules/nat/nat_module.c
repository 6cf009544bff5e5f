/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/modules/nat/nat_module.c — the NAT module: the table of
 * nat_binding.c as two stages of the rules engine, nat_dst and nat_src
 * (see "The module" in nat.h). One binding serves both stages: nat_dst
 * binds a DNAT, nat_src redoes the binding with the source translation
 * too. Bindings of flows that got no entry are released at once; those of
 * entries that go are unbound at once and released after a grace period of
 * the engine's readers (rule_engine_defer()): only then may their rewrite
 * slots be reused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "engine.h"
#include "nat.h"

RTE_LOG_REGISTER(mod_nat_logtype, gufc.nat, NOTICE);
#define NAT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, mod_nat_logtype, "nat: " fmt "\n", ##__VA_ARGS__)

struct mod_nat_module {
	struct rule_engine *eng;
	struct mod_nat *nat;
	struct mod_nat_module_params p;
	struct mod_nat_module_stats st; /* written by the rules lcore, read relaxed */
	/* The flow being inserted: from nat_dst's on_insert to the next. */
	uint32_t binding;            /* its binding, or RULE_NAT_NONE */
	bool dnat;                   /* the destination was translated ... */
	struct rule_nat dnat_tgt;    /* ... to this target */
};

/* ------------------------------------------------------------------------ */
/* Table callbacks                                                           */
/* ------------------------------------------------------------------------ */

/*
 * Is a translated address this host's: a local address, or loopback
 * (127.0.0.0/8, ::1), which Linux's lo holds: REDIRECT of a packet from
 * this host goes there, and the packet comes back in to INPUT.
 */
static bool
nat_is_local(void *arg, uint8_t family, const uint8_t *addr)
{
	const struct mod_nat_module *m = arg;
	static const uint8_t lo6[16] = {[15] = 1};

	if (family == FC_AF_INET4 && addr[0] == 127)
		return true;
	if (family == FC_AF_INET6 && memcmp(addr, lo6, sizeof(lo6)) == 0)
		return true;
	return fc_locals_match(m->p.locals, family, addr);
}

/*
 * A candidate reply key the flow table already holds (a flow NAT does not
 * know), on any input port: a tuple is one connection's whatever the port.
 */
static bool
nat_busy(void *arg, const struct fc_key *key)
{
	const struct mod_nat_module *m = arg;

	return rule_engine_flow_lookup_any(m->eng, key, NULL) == 0;
}

/* ------------------------------------------------------------------------ */
/* Bindings                                                                  */
/* ------------------------------------------------------------------------ */

/* Undo the binding of the flow being inserted (no reader ever saw it). */
static void
drop_binding(struct mod_nat_module *m)
{
	if (m->binding == RULE_NAT_NONE)
		return;
	mod_nat_unbind(m->nat, m->binding);
	mod_nat_release(m->nat, m->binding);
	m->binding = RULE_NAT_NONE;
}

static void
release_cb(void *arg, uint64_t binding)
{
	struct mod_nat_module *m = arg;

	mod_nat_release(m->nat, (uint32_t)binding);
}

static int
bind_err(struct rule_flow *f, int rc)
{
	f->drop = rc == -ENOSPC || rc == -ENOBUFS ? RULE_DROP_NAT_EXHAUSTED : RULE_DROP_NAT_ERROR;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Targets                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A REDIRECT or NETMAP target as the single-address DNAT/SNAT target it
 * means for this flow: REDIRECT to the input port's address (loopback for
 * a locally generated packet), NETMAP to the target's prefix with the
 * address's own host bits. @return 0, or -errno (no port address).
 */
static int
nat_target(const struct mod_nat_module *m, const struct rule_flow *f, unsigned int action,
	const struct rule_nat *t, const uint8_t *addr, struct rule_nat *out)
{
	unsigned int len = fc_af_addr_len(f->key.family);

	*out = *t;
	out->family = f->key.family;
	if (action == RULE_ACT_REDIRECT) {
		if (fc_key_flags(&f->key) & FC_KEY_F_SRC_LOCAL) {
			memset(out->addr_min, 0, sizeof(out->addr_min));
			if (len == 4)
				out->addr_min[0] = 127, out->addr_min[3] = 1;
			else
				out->addr_min[15] = 1;
		} else if (m->p.port_addr_fn == NULL ||
			   m->p.port_addr_fn(m->p.cb_arg, RULE_PORT_LOCAL, f->up->in_port,
				   f->key.family, out->addr_min) < 0) {
			return -EADDRNOTAVAIL;
		}
		memcpy(out->addr_max, out->addr_min, sizeof(out->addr_max));
		return 0;
	}
	/* NETMAP: the prefix's bits are those min and max share. */
	for (unsigned int i = 0; i < len; i++) {
		uint8_t mask = (uint8_t)~(t->addr_min[i] ^ t->addr_max[i]);

		out->addr_min[i] = (uint8_t)((t->addr_min[i] & mask) | (addr[i] & ~mask));
	}
	memcpy(out->addr_max, out->addr_min, sizeof(out->addr_max));
	out->flags &= (uint8_t)~RULE_NAT_F_NETMAP;
	return 0;
}

/*
 * A port-only DNAT/SNAT target (--to-destination :P): the flow's own
 * address @addr as a one-address target, the ports mapped (nf_nat with
 * NF_NAT_RANGE_PROTO_SPECIFIED alone keeps the address).
 */
static void
keep_addr(const struct rule_flow *f, const uint8_t *addr, struct rule_nat *t)
{
	unsigned int len = fc_af_addr_len(f->key.family);

	t->family = f->key.family;
	memset(t->addr_min, 0, sizeof(t->addr_min));
	memcpy(t->addr_min, addr, len);
	memcpy(t->addr_max, t->addr_min, sizeof(t->addr_max));
}

/* ------------------------------------------------------------------------ */
/* Stage nat_dst                                                             */
/* ------------------------------------------------------------------------ */

static int
nat_dst_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_nat_module *m = priv;
	struct mod_nat_binding_result nb;
	const struct rule_eval *res, *raw;
	struct rule_nat tgt;
	int rc;

	m->binding = RULE_NAT_NONE;
	m->dnat = false;
	/* NAT applies to flows that make a connection (or to all without a tracker). */
	if (f->nocache || f->untracked)
		return 0;
	/* A connection a helper expected behind NAT: the master's translation (nf_nat_ftp). */
	if (f->exp_nat) {
		tgt = f->exp_dnat;
		goto bind;
	}
	rc = rule_engine_classify_flow(f, RULE_STAGE_DST, &res);
	if (rc < 0)
		return rc;
	/* Dropped before nat PREROUTING or OUTPUT (raw, mangle): no translation to try. */
	if (res->verdict != RULE_VERDICT_ACCEPT)
		return 0;
	rc = rule_engine_classify_flow(f, RULE_STAGE_RAW, &raw);
	if (rc < 0)
		return rc;
	if (raw->verdict != RULE_VERDICT_ACCEPT)
		return 0;
	if (res->nat_action == RULE_ACT_REDIRECT || res->nat_action == RULE_ACT_NETMAP) {
		if (nat_target(m, f, res->nat_action, &res->nat, fc_key_dst(&f->key), &tgt) < 0) {
			f->drop = RULE_DROP_NAT_ERROR;
			return 0;
		}
	} else if (res->nat_action == RULE_ACT_DNAT) {
		tgt = res->nat;
		if (tgt.family == 0)
			keep_addr(f, fc_key_dst(&f->key), &tgt);
	} else {
		return 0;
	}
bind:
	rc = mod_nat_bind(m->nat, &f->key, &tgt, NULL, NULL, &nb);
	if (rc < 0)
		return bind_err(f, rc);
	m->binding = nb.binding;
	m->dnat = true;
	m->dnat_tgt = tgt;
	f->xkey = nb.fwd;
	/*
	 * Translated only when the destination changed: a DNAT to the address
	 * and port the packet has already leaves the connection without
	 * ctstate DNAT, as nf_nat sets IPS_DST_NAT only for a new tuple.
	 */
	f->xdst = memcmp(fc_key_dst(&f->xkey), fc_key_dst(&f->key),
			  fc_af_addr_len(f->key.family)) != 0 ||
		  fc_key_dport(&f->xkey) != fc_key_dport(&f->key);
	f->reply_key = nb.reply;
	f->want_reply = true;
	return 0;
}

static void
nat_on_abort(void *priv, struct rule_flow *f)
{
	RTE_SET_USED(f);
	drop_binding(priv);
}

/* An entry went: its binding's tuple is free at once, its slots after a grace period. */
static void
nat_on_remove(void *priv, const struct rule_flow_gone *g)
{
	struct mod_nat_module *m = priv;
	uint32_t b;

	if (!(g->act.flags & FC_ACT_F_NAT))
		return;
	b = MOD_NAT_SLOT_BINDING(g->act.nat_id);
	/* The peer's turn finds the binding unbound already. */
	if (mod_nat_unbind(m->nat, b) == 0 && rule_engine_defer(m->eng, release_cb, m, b) < 0)
		NAT_LOG(DEBUG, "binding %u leaks (no memory)", b);
}

/* The destination side the filter saw for a translated entry: its slot's. */
static void
nat_filter_key(void *priv, const struct fc_action *a, struct fc_key *fk)
{
	const struct mod_nat_module *m = priv;
	const struct mod_nat_view *v = (const struct mod_nat_view *)(const void *)m->nat;
	const struct mod_nat_rewrite *rw = &v->slots[a->nat_id];

	memcpy(fc_key_dst_w(fk), rw->dst, fc_af_addr_len(fk->family));
	fc_key_set_ports(fk, fc_key_sport(fk), rw->dport);
}

/* ------------------------------------------------------------------------ */
/* Stage nat_src                                                             */
/* ------------------------------------------------------------------------ */

/*
 * An ICMP error decided without an entry: RELATED to a translated
 * connection and travelling the way of the entry conntrack found, it is
 * translated like that connection and leaves its way.
 */
static void
icmp_error(struct mod_nat_module *m, struct rule_flow *f)
{
	struct fc_action *a = &f->act[RULE_DIR_ORIG];

	if (!f->related || !f->rel_way || !(f->rel_act.flags & FC_ACT_F_NAT))
		return;
	a->flags |= FC_ACT_F_NAT;
	a->nat_id = f->rel_act.nat_id;
	a->out_port = f->rel_act.out_port;
	a->adj = f->rel_act.adj; /* a router's next hop of that way too (route.h: route_adj) */
	f->dec_flags |= RULE_DEC_F_ICMP_ERR;
	__atomic_store_n(&m->st.related_nat, m->st.related_nat + 1, __ATOMIC_RELAXED);
}

/* Did the binding keep the destination nat_dst chose? */
static bool
same_dst(const struct fc_key *a, const struct fc_key *b)
{
	return a->family == b->family &&
	       memcmp(fc_key_dst(a), fc_key_dst(b), fc_af_addr_len(a->family)) == 0 &&
	       fc_key_dport(a) == fc_key_dport(b);
}

static int
nat_src_on_insert(void *priv, struct rule_flow *f)
{
	struct mod_nat_module *m = priv;
	struct mod_nat_binding_result nb;
	const struct rule_eval *res = NULL;
	const struct rule_nat *snat = NULL;
	struct rule_nat tgt;
	uint8_t masq[16];
	const uint8_t *masq_p = NULL;
	int rc;

	if (f->nocache) {
		icmp_error(m, f);
		return 0;
	}
	if (f->untracked)
		return 0;
	/* A connection a helper expected behind NAT: the master's translation
	 * both ways, none of the nat table (Linux's follow_master). */
	if (f->exp_nat) {
		if (f->exp_snat.family == 0)
			goto keep;
		snat = &f->exp_snat;
		goto bind;
	}
	rc = rule_engine_classify_flow(f, RULE_STAGE_SRC, &res);
	if (rc < 0)
		return rc;
	if (res->nat_action == RULE_ACT_SNAT || res->nat_action == RULE_ACT_MASQUERADE)
		snat = &res->nat;
	if (res->nat_action == RULE_ACT_SNAT && res->nat.family == 0) {
		tgt = res->nat;
		keep_addr(f, fc_key_src(&f->key), &tgt);
		snat = &tgt;
	}
	if (res->nat_action == RULE_ACT_NETMAP) {
		/* Source NETMAP: the source's host bits under the target's prefix. */
		if (nat_target(m, f, RULE_ACT_NETMAP, &res->nat, fc_key_src(&f->key), &tgt) < 0) {
			f->drop = RULE_DROP_NAT_ERROR;
			return 0;
		}
		snat = &tgt;
	}
bind:
	if (snat != NULL || (res != NULL && res->nat_action == RULE_ACT_MASQUERADE)) {
		if (res != NULL && res->nat_action == RULE_ACT_MASQUERADE &&
			(fc_key_flags(&f->key) & FC_KEY_F_SRC_LOCAL) &&
			(fc_key_flags(&f->xkey) & FC_KEY_F_DST_LOCAL)) {
			/*
			 * This host's packet to itself (a DNAT in OUTPUT to one of
			 * its addresses): it leaves through lo, whose source choice
			 * for one of the host's addresses is that address (IPv6's
			 * rule 1; IPv4's lo-held address matching it).
			 */
			memcpy(masq, fc_key_dst(&f->xkey), fc_af_addr_len(f->key.family));
			masq_p = masq;
		} else if (res != NULL && res->nat_action == RULE_ACT_MASQUERADE) {
			if (m->p.port_addr_fn == NULL ||
				m->p.port_addr_fn(m->p.cb_arg, f->act[RULE_DIR_ORIG].out_port,
					f->up->in_port, f->key.family, masq) < 0) {
				f->drop = RULE_DROP_NAT_ERROR;
				return 0;
			}
			masq_p = masq;
		}
		/* One binding holds both stages: redo the DNAT one with the source. */
		drop_binding(m);
		rc = mod_nat_bind(m->nat, &f->key, m->dnat ? &m->dnat_tgt : NULL, snat, masq_p,
			&nb);
		if (rc < 0)
			return bind_err(f, rc);
		m->binding = nb.binding;
		if (m->dnat && !same_dst(&nb.fwd, &f->xkey)) {
			/* The destination choice is a hash of the original: cannot differ. */
			drop_binding(m);
			f->drop = RULE_DROP_NAT_ERROR;
			return 0;
		}
		f->reply_key = nb.reply;
		f->want_reply = true;
		goto done;
	}
keep:
	if (m->binding == RULE_NAT_NONE) {
		/*
		 * No translation, but the connection's tuple may be a translated
		 * one's: Linux's null binding remaps its source port (the
		 * connection passes, ctstate SNAT) rather than clash.
		 */
		if (!f->want_reply || f->exp_nat)
			return 0;
		rc = mod_nat_bind_clash(m->nat, &f->key, &nb);
		if (rc == -EALREADY || rc == -EPROTONOSUPPORT)
			return 0; /* free as it is, or the engine's clash */
		if (rc < 0)
			return bind_err(f, rc);
		m->binding = nb.binding;
		f->reply_key = nb.reply;
		goto done;
	}
	rc = mod_nat_binding_get(m->nat, m->binding, &nb);
	if (rc < 0)
		return rc;
done:
	f->act[RULE_DIR_ORIG].flags |= FC_ACT_F_NAT;
	f->act[RULE_DIR_ORIG].nat_id = nb.fwd_slot;
	f->act[RULE_DIR_REPLY].flags |= FC_ACT_F_NAT;
	f->act[RULE_DIR_REPLY].nat_id = nb.reply_slot;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                 */
/* ------------------------------------------------------------------------ */

struct mod_nat_module *
mod_nat_module_create(struct rule_engine *eng, const struct mod_nat_module_params *p)
{
	struct mod_nat_params np;
	struct mod_nat_module *m;
	struct rule_module dst, src;
	int rc;

	if (eng == NULL || p == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->eng = eng;
	m->p = *p;
	m->binding = RULE_NAT_NONE;
	memset(&np, 0, sizeof(np));
	np.max_bindings = p->max_bindings;
	np.seed = p->seed;
	np.is_local = p->locals != NULL ? nat_is_local : NULL;
	np.busy = nat_busy;
	np.cb_arg = m;
	m->nat = mod_nat_create(&np);
	if (m->nat == NULL) {
		rc = -(errno ? errno : ENOMEM);
		goto fail;
	}
	memset(&dst, 0, sizeof(dst));
	dst.name = "nat_dst";
	dst.order = RULE_MOD_ORDER_NAT_DST;
	dst.on_insert = nat_dst_on_insert;
	dst.on_abort = nat_on_abort;
	dst.on_remove = nat_on_remove;
	dst.filter_key = nat_filter_key;
	dst.priv = m;
	memset(&src, 0, sizeof(src));
	src.name = "nat_src";
	src.order = RULE_MOD_ORDER_NAT_SRC;
	src.on_insert = nat_src_on_insert;
	src.priv = m;
	/* Both or neither. */
	rc = rule_engine_module_register(eng, &dst);
	if (rc < 0)
		goto fail;
	rc = rule_engine_module_register(eng, &src);
	if (rc < 0) {
		rule_engine_module_unregister(eng, dst.name);
		goto fail;
	}
	return m;
fail:
	mod_nat_free(m->nat);
	free(m);
	rte_errno = -rc;
	return NULL;
}

void
mod_nat_module_free(struct mod_nat_module *m)
{
	if (m == NULL)
		return;
	mod_nat_free(m->nat);
	free(m);
}

const struct mod_nat *
mod_nat_module_table(const struct mod_nat_module *m)
{
	return m == NULL ? NULL : m->nat;
}

void
mod_nat_module_stats_get(const struct mod_nat_module *m, struct mod_nat_module_stats *st)
{
	if (st == NULL)
		return;
	memset(st, 0, sizeof(*st));
	if (m == NULL)
		return;
	st->related_nat = __atomic_load_n(&m->st.related_nat, __ATOMIC_RELAXED);
}
