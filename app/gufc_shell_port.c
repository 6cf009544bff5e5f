/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell_port.c — the shell's "port" command: a port's name,
 * addresses and MTU at run time (the config file's "port" line, plus
 * "address del"). Every word is checked before anything changes; the MTU
 * goes to the device as the config's line sets it (a device that refuses
 * it changes nothing), then the addresses: one the rules lcore refuses
 * undoes the ones this command added, and its MTU.
 *
 * Context: main lcore.
 */

#include <errno.h>
#include <string.h>

#include "gufc_shell_priv.h"

static bool
port_keyword(const char *w)
{
	return strcmp(w, "name") == 0 || strcmp(w, "address") == 0 || strcmp(w, "mtu") == 0;
}

static int
addr_err(struct sh_ctx *c, int rc, const char *tok, const char *why)
{
	if (rc == -ENOENT)
		return sh_err(c, rc, tok, "the port does not have this address");
	if (why != NULL)
		return sh_err(c, rc, tok, "%s", why);
	return sh_err(c, rc, tok, "%s", strerror(-rc));
}

int
sh_cmd_port(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct lex_prefix addr[MOD_NEIGH_PORT_ADDRS];
	const char *atok[MOD_NEIGH_PORT_ADDRS];
	const char *name = NULL, *why = NULL, *mtu_tok = NULL;
	uint16_t old_mtu = 0;
	struct rule_set *ws = NULL;
	unsigned int i = 2, n_addr = 0, done;
	uint32_t port, mtu = 0;
	bool del = false;
	int rc;

	if (l->n < 2)
		return sh_err(c, -EINVAL, l->tok[0], "missing port number");
	if (sh_u32(l->tok[1], &port) != 0 || port >= GUFC_MAX_PORTS || !c->app->ports[port].used)
		return sh_err(c, -ENODEV, l->tok[1], "no such port");
	if (l->n < 3)
		return sh_err(c, -EINVAL, l->tok[1], "expected name, address or mtu");
	while (i < l->n) {
		const char *w = l->tok[i];

		/* Cached flows hold keys made with it: set at start only. */
		if (strcmp(w, "host") == 0)
			return sh_err(
				c, -EINVAL, w, "host: start time only (the config's port line)");
		if (i + 1 >= l->n)
			return sh_err(c, -EINVAL, w, "missing value");
		if (strcmp(w, "name") == 0) {
			name = l->tok[i + 1];
			if (gufc_port_name_check(name, &why) != 0)
				return sh_err(c, -EINVAL, name, "%s", why);
			for (unsigned int p = 0; p < GUFC_MAX_PORTS; p++)
				if (p != port && c->app->ports[p].used &&
					strcmp(c->app->ports[p].ifname, name) == 0)
					return sh_err(c, -EEXIST, name, "port %u has this name", p);
			i += 2;
		} else if (strcmp(w, "mtu") == 0) {
			mtu_tok = l->tok[i + 1];
			if (sh_u32(mtu_tok, &mtu) != 0 || mtu < GUFC_MTU_MIN || mtu > GUFC_MTU_MAX)
				return sh_err(c, -EINVAL, mtu_tok, "mtu: 68..9600");
			i += 2;
		} else if (strcmp(w, "address") == 0) {
			i++;
			if (strcmp(l->tok[i], "add") == 0 || strcmp(l->tok[i], "del") == 0) {
				del = strcmp(l->tok[i], "del") == 0;
				if (++i >= l->n)
					return sh_err(c, -EINVAL, l->tok[i - 1], "missing address");
			}
			for (; i < l->n && !port_keyword(l->tok[i]); i++) {
				const char *t = l->tok[i];

				if (n_addr == MOD_NEIGH_PORT_ADDRS)
					return sh_err(c, -ENOSPC, t, "a port has at most 8 addresses");
				if (lex_prefix(t, strlen(t), LEX_PFX_HOST_KEEP, &addr[n_addr], NULL) != 0)
					return sh_err(c, -EINVAL, t, "bad address (ADDR/LEN)");
				atok[n_addr++] = t;
			}
		} else {
			return sh_err(c, -EINVAL, w, "expected name, address or mtu");
		}
	}
	/* A new name reaches the rules through the pending set: made before any change. */
	if (name != NULL && (rc = sh_working_set(c, &ws)) != 0)
		return rc;
	/* Checks the rules lcore repeats: here for a message naming the word. */
	for (unsigned int k = 0; k < n_addr && !del; k++) {
		rc = gufc_port_addr_check(&c->app->cfg, (uint16_t)port, &addr[k], &why);
		for (unsigned int j = 0; rc == 0 && j < k; j++)
			if (addr[j].family == addr[k].family &&
				memcmp(addr[j].addr, addr[k].addr, sizeof(addr[k].addr)) == 0) {
				rc = -EEXIST;
				why = "address given twice";
			}
		if (rc != 0)
			return addr_err(c, rc, atok[k], why);
		if (addr[k].family == LEX_AF_INET6 && mtu != 0 && mtu < 1280)
			return sh_err(c, -ERANGE, atok[k], "IPv6 needs an MTU of 1280 at least");
	}
	/* The MTU first (a device may refuse it): addresses after, undone on failure. */
	if (mtu != 0) {
		char why_dev[160];

		old_mtu = c->app->ports[port].mtu;
		rc = gufc_ctl_port_mtu(c->app, (uint16_t)port, (uint16_t)mtu, why_dev,
			sizeof(why_dev));
		if (rc == -ERANGE)
			return sh_err(c, rc, NULL, "the port has an IPv6 address: MTU 1280 at least");
		if (rc != 0 && why_dev[0] != '\0')
			return sh_err(c, rc, mtu_tok, "mtu: %s", why_dev);
		if (rc != 0)
			return sh_err(c, rc, mtu_tok, "mtu: %s", strerror(-rc));
	}
	for (done = 0; done < n_addr; done++) {
		rc = gufc_ctl_port_addr(c->app, (uint16_t)port, &addr[done], !del);
		if (rc != 0) {
			const char *bad = atok[done];

			if (!del) /* undo this command's additions */
				while (done-- > 0)
					gufc_ctl_port_addr(c->app, (uint16_t)port, &addr[done], false);
			if (mtu != 0) { /* and its MTU */
				char ignored[8];

				(void)gufc_ctl_port_mtu(c->app, (uint16_t)port, old_mtu, ignored,
					sizeof(ignored));
			}
			return addr_err(c, rc, bad, NULL);
		}
	}
	if (name != NULL) {
		rc = gufc_ctl_port_name(c->app, (uint16_t)port, name);
		if (rc != 0)
			return sh_err(c, rc, name, "%s", strerror(-rc));
		/* What rules' -i/-o match: the pending set learns it, commit applies it. */
		snprintf(c->app->ports[port].ifname, sizeof(c->app->ports[port].ifname), "%s", name);
		rc = gufc_rules_ports(c->app, ws, c->out);
		if (rc != 0)
			return sh_err(c, rc, NULL, "%s", strerror(-rc));
	}
	fprintf(c->out, "port %u:", port);
	if (name != NULL)
		fprintf(c->out, " name %s", name);
	if (n_addr != 0)
		fprintf(c->out, " %u address%s %s", n_addr, n_addr == 1 ? "" : "es",
			del ? "deleted" : "added");
	if (mtu != 0)
		fprintf(c->out, " mtu %u", mtu);
	if (name != NULL)
		fprintf(c->out, " (rules: 'commit' applies the name)");
	fprintf(c->out, "\n");
	return 0;
}

/*
 * "set KEY VALUE": the settings of the config's "set" lines. Only "mode"
 * changes at run time (bridge <-> router, cached flows flushed); the others
 * are start-time and say so.
 */
int
sh_cmd_set(struct sh_ctx *c)
{
	const struct sh_line *l = c->l;
	struct gufc_settings s = c->app->cfg.set;
	const char *why = NULL;
	unsigned int flushed;
	int rc;

	if (l->n != 3)
		return sh_err(c, -EINVAL, l->n > 3 ? l->tok[3] : l->tok[l->n - 1],
			"usage: set KEY VALUE");
	rc = gufc_setting_set(&s, l->tok[1], l->tok[2], false, &why);
	if (rc == -ENOENT)
		return sh_err(c, rc, l->tok[1], "no such setting");
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", why != NULL ? why : "bad value");
	if (strcmp(l->tok[1], "mode") != 0)
		return sh_err(c, -EPERM, l->tok[1],
			"set at start only (the config's 'set' line or --set); 'mode' changes at run time");
	if (s.mode == c->app->cfg.set.mode) {
		fprintf(c->out, "mode %s already\n", l->tok[2]);
		return 0;
	}
	rc = gufc_ctl_mode(c->app, (enum gufc_mode)s.mode, &flushed);
	if (rc != 0)
		return sh_err(c, rc, l->tok[2], "%s", strerror(-rc));
	fprintf(c->out, "mode %s: %u flows flushed\n", l->tok[2], flushed);
	return 0;
}
