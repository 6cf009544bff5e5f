/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rules — what a rule set is evaluated with beside its rules: the
 * names of the ports its -i/-o patterns match, the ipsets its set matches
 * look up, and the other family's file merged beside it.
 *
 * Part of rules.h (which includes it; include rules.h).
 */
#ifndef GUFC_RULE_ENV_H
#define GUFC_RULE_ENV_H

#ifdef __cplusplus
extern "C" {
#endif


/**
 * Give the set the names of the ports (interfaces) its rules' -i/-o
 * patterns are matched against: port @c i is @p names[i]. A copy is kept;
 * clones keep it; evaluators and the classifier read it (the classifier
 * when it is built: set the names before building). Ports without a name
 * (i >= @p n, RULE_IF_NONE) have the name "", but RULE_IF_LO, this host's
 * loopback, "lo".
 * @param s      the set
 * @param n      number of ports (less than RULE_IF_LO)
 * @param names  @p n names, each shorter than RULE_PORTNAME_MAX
 * @return 0; -EINVAL (NULL, a name too long), -ENOMEM (the old names stay).
 * Context: main lcore.
 */
int rule_set_ports(struct rule_set *s, unsigned int n, const char *const names[]);

/**
 * The name of port @p port in the set ("" if it has none; "lo" for RULE_IF_LO).
 * @param s     the set
 * @param port  a port number, or RULE_IF_NONE
 * @return the name (valid until the next rule_set_ports() on @p s).
 * Context: any thread holding @p s read-only.
 */
const char *rule_set_port_name(const struct rule_set *s, unsigned int port);

/** Number of named ports of the set. Context: any. */
unsigned int rule_set_port_count(const struct rule_set *s);

/** A port name (rule_set_ports()). */
struct rule_portname {
	char name[RULE_PORTNAME_MAX];
};

/**
 * The names of the ports, as a rule set holds them: what hash:net,iface
 * ipset members are matched with (the packet's input or output port's
 * name). A view: valid while its holder (the set, a classifier) is.
 */
struct rule_ifnames {
	unsigned int n;                    /**< ports named */
	const struct rule_portname *names; /**< port i's name, i < n */
};

/**
 * The port names of the set, as a view.
 * @param s  the set, or NULL (no names)
 * @return the view (valid until the next rule_set_ports() on @p s).
 * Context: any thread holding @p s read-only.
 */
struct rule_ifnames rule_set_ifnames(const struct rule_set *s);

/**
 * The name of port @p port in @p ifn ("" for none: NULL, RULE_IF_NONE, past the last;
 * "lo" for RULE_IF_LO).
 * @param ifn   the names, or NULL
 * @param port  a port number, or RULE_IF_NONE
 * @return the name.
 * Context: any.
 */
const char *rule_ifnames_get(const struct rule_ifnames *ifn, unsigned int port);

/**
 * Does interface pattern @p pat ("eth0", or "eth+" for every name that
 * starts with "eth"; "+" matches every name, "" included) match @p name?
 * iptables' rule.
 * @param pat   the pattern (struct rule::in_if / out_if)
 * @param name  an interface name ("" for none)
 * @return true on a match.
 * Context: any.
 */
bool rule_if_match(const char *pat, const char *name);

/**
 * The first interface pattern of the set's rules that matches none of its
 * port names nor "lo" (netfilter loads such rules: they never match until a
 * port of that name exists). Iterate with @p it starting at 0.
 * @param s      the set
 * @param it     iterator, 0 to start
 * @param rule   receives the rule's id
 * @return the pattern, or NULL when there are no more.
 * Context: any thread holding @p s read-only.
 */
const char *rule_set_unknown_if(const struct rule_set *s, uint64_t *it, uint32_t *rule);

/** ipsets (named address, network, address-and-port and port sets); rule_lang.h loads them. */
struct rule_ipsets;

/**
 * Attach ipsets to the set (the -m set matches and SET targets name
 * them): the set takes a reference, dropping the one it held. Clones share
 * them.
 * @param s     the set
 * @param sets  the ipsets, or NULL for none
 * Context: main lcore.
 */
void rule_set_ipsets(struct rule_set *s, struct rule_ipsets *sets);

/**
 * Take another reference to ipsets (a holder that outlives the rule set,
 * e.g. a compiled classifier).
 * @param sets  the ipsets (not NULL)
 * Context: any.
 */
void rule_ipsets_ref(struct rule_ipsets *sets);

/**
 * Drop a reference to ipsets (rule_lang.h's loaders give the first one);
 * the last one frees them.
 * @param sets  the ipsets; NULL is accepted
 * Context: the owner of the reference.
 */
void rule_ipsets_free(struct rule_ipsets *sets);

/**
 * The first set name a rule of @p s uses (-m set, SET target) that its
 * attached ipsets do not have, or have with fewer dimensions than the rule
 * asks for: iptables-restore refuses such rules.
 * @param s     the set
 * @param rule  receives the rule's id
 * @return the name, or NULL if every set is there.
 * Context: any thread holding @p s read-only.
 */
const char *rule_set_ipset_missing(const struct rule_set *s, uint32_t *rule);

/**
 * The ipsets attached to the set.
 * @param s  the set
 * @return them, or NULL.
 * Context: any thread holding @p s read-only.
 */
const struct rule_ipsets *rule_set_ipsets_get(const struct rule_set *s);

/**
 * Merge the rules of @p src (one address family's rule set, e.g. an
 * ip6tables import) into @p dst (the other family's): chains of the same
 * name in the same table are one chain holding both families' rules (each
 * rule keeps its family, so packets of one family see only their rules),
 * chains only in @p src are added, and base chains take @p family's policy
 * from @p src. All or nothing.
 * @param dst     the set merged into
 * @param src     the set merged from (not modified)
 * @param family  FC_AF_INET4 or FC_AF_INET6: the family of @p src's rules
 * @return 0; -EINVAL (bad arguments, a rule of @p src of another family, a
 *   chain that is a base chain in one set and not in the other), -EBUSY (a
 *   hook claimed by differently named chains), -ELOOP, -ENOSPC, -ENOMEM.
 * Context: main lcore.
 */
int rule_set_merge(struct rule_set *dst, const struct rule_set *src, unsigned int family);

/**
 * One family's part of a set: its chains, @p family's policies (the other
 * family's accept), the rules of @p family and those of both families
 * (made @p family's), port names and ipsets; what rule_set_merge() puts
 * back beside another file of the other family.
 * @param s       the set
 * @param family  FC_AF_INET4 or FC_AF_INET6
 * @return a new set, or NULL with errno EINVAL (a rule of both families
 *   that cannot be @p family's) or ENOMEM.
 * Context: main lcore.
 */
struct rule_set *rule_set_family(const struct rule_set *s, unsigned int family);

#ifdef __cplusplus
}
#endif

#endif /* GUFC_RULE_ENV_H */
