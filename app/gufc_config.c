/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_config.c — the config file: a line-oriented grammar (doc/config.md)
 * of local prefixes, ports (names, addresses, MTUs), routes (to a port or
 * via a gateway), channels, rule files, ipsets and settings. Loading is
 * all or nothing: the file is parsed into a copy of the configuration, which
 * replaces the caller's only if every line is good. Errors say
 * FILE:LINE:COL, why, and the offending token.
 *
 * The text is read with the lexical toolkit (lib/lex: file, lines, words,
 * numbers, prefixes); channel lines go to the control layer's one channel
 * grammar (gufc_chan_parse()).
 */

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "gufc_ctl.h"

#define CFG_MAX_TOK 16
/** Longest line, "\n" included. */
#define CFG_LINE_MAX 4096

/** The config file's words: blanks, "..." strings (no escapes), '#' comments. */
static const struct lex_syntax cfg_syntax = {
	.blanks = " \t\r\n",
	.quote = LEX_QUOTE_WORD,
	.escape = LEX_ESC_NONE,
	.comment = LEX_COMMENT_ANY,
	.max_words = CFG_MAX_TOK,
	.max_len = GUFC_PATH_MAX - 1,
};

struct cfg_ctx {
	struct lex_where w;
	struct lex_error err;
	unsigned int rules_seen; /* 1 rules, 2 iptables, 4 ip6tables */
	bool ipset_seen;
	bool cli_rules;          /* the command line gave a rule set: the config's is ignored */
	bool cli_ipset;
	char dir[GUFC_PATH_MAX];
	unsigned int n;
	struct lex_tok tok[CFG_MAX_TOK];
	/** Where each route's gateway was written (routes "via": checked at the end). */
	struct {
		unsigned int line, col;
		char text[LEX_ADDR_STRLEN];
	} via[GUFC_MAX_ROUTES];
};

/* Print "FILE:LINE:COL: MSG: 'TOKEN'" (no token part when @p token is NULL). */
static int
cfg_err(struct cfg_ctx *c, unsigned int col, const char *msg, const char *token)
{
	char buf[LEX_ERR_FILE_MAX + LEX_ERR_TOKEN_MAX + LEX_ERR_MSG_MAX + 32];

	lex_fail(&c->w, col, token, token != NULL ? strlen(token) : 0, msg);
	lex_error_format(&c->err, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
	return -EINVAL;
}

static int
cfg_tokenize(struct cfg_ctx *c, char *line)
{
	struct lex_fault f;

	if (lex_split(&cfg_syntax, line, line, c->tok, &c->n, &f) == 0)
		return 0;
	return cfg_err(c, (unsigned int)f.at + 1,
		f.code == LEX_E_UNTERMINATED ? "unterminated quote" : lex_code_text(f.code), NULL);
}

static int
cfg_u32(struct cfg_ctx *c, unsigned int i, uint32_t max, uint32_t *out)
{
	const char *s = c->tok[i].s;
	struct lex_fault f;

	if (lex_u32(s, strlen(s), max, LEX_NUM_C, out, &f) != 0)
		return cfg_err(c, c->tok[i].col, lex_code_text(f.code), s);
	return 0;
}

static int
cfg_need(struct cfg_ctx *c, unsigned int n)
{
	if (c->n < n)
		return cfg_err(c, c->tok[c->n - 1].col, "missing value after", c->tok[c->n - 1].s);
	return 0;
}

/* Token @p i as a prefix (host bits cleared). */
static int
cfg_prefix(struct cfg_ctx *c, unsigned int i, struct lex_prefix *p)
{
	const char *s = c->tok[i].s;

	if (lex_prefix(s, strlen(s), LEX_PFX_HOST_CLEAR, p, NULL) != 0)
		return cfg_err(c, c->tok[i].col, "bad prefix", s);
	return 0;
}

static int
cfg_path(struct cfg_ctx *c, unsigned int i, bool relative_to_file, char *out)
{
	const char *s = c->tok[i].s;
	int n;

	if (*s == '\0')
		return cfg_err(c, c->tok[i].col, "empty file name", s);
	if (relative_to_file && s[0] != '/')
		n = snprintf(out, GUFC_PATH_MAX, "%s/%s", c->dir, s);
	else
		n = snprintf(out, GUFC_PATH_MAX, "%s", s);
	if (n < 0 || n >= GUFC_PATH_MAX)
		return cfg_err(c, c->tok[i].col, "file name too long", s);
	return 0;
}

/* channel NAME kind KIND ...: gufc_chan_parse()'s grammar, then the config's own checks. */
static int
cfg_channel(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_chan_cfg ch;
	struct gufc_chan_err e;
	char tok[GUFC_PATH_MAX];

	if (gufc_chan_parse(c->tok, c->n, 1, &ch, &e) != 0) {
		snprintf(tok, sizeof(tok), "%.*s", e.len ? (int)e.len : (int)sizeof(tok),
			c->tok[e.word].s + e.off);
		return cfg_err(c, c->tok[e.word].col + e.off, e.msg, tok);
	}
	for (unsigned int i = 0; i < cfg->n_chans; i++)
		if (strcmp(cfg->chans[i].name, ch.name) == 0)
			return cfg_err(c, c->tok[1].col, "channel declared twice", c->tok[1].s);
	if (cfg->n_chans == GUFC_MAX_CHANNELS_CFG)
		return cfg_err(c, c->tok[1].col, "too many channels", c->tok[1].s);
	cfg->chans[cfg->n_chans++] = ch;
	return 0;
}

/* "ADDR[:PORT]" or "[ADDR6]:PORT" of token @p i. */
static int
cfg_ipfix_collector(struct cfg_ctx *c, unsigned int i, struct gufc_ipfix_cfg *x)
{
	const char *s = c->tok[i].s, *a = s, *colon;
	size_t alen = strlen(s);
	uint32_t port = MOD_IPFIX_PORT;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (close[1] != '\0' && close[1] != ':'))
			return cfg_err(c, c->tok[i].col, "expected [ADDR]:PORT", s);
		a = s + 1;
		alen = (size_t)(close - a);
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = strrchr(s, ':');
		/* A bare IPv6 address has more than one ':': no port then. */
		if (colon != NULL && strchr(s, ':') != colon)
			colon = NULL;
		if (colon != NULL)
			alen = (size_t)(colon - s);
	}
	if (lex_addr(a, alen, &x->family, x->dst, NULL) != 0)
		return cfg_err(c, c->tok[i].col, "bad collector address", s);
	if (colon != NULL) {
		struct lex_fault f;

		if (lex_u32(colon + 1, strlen(colon + 1), UINT16_MAX, LEX_NUM_C, &port, &f) != 0 ||
			port == 0)
			return cfg_err(c, c->tok[i].col + (unsigned int)(colon + 1 - s),
				"collector port: 1..65535", colon + 1);
	}
	x->dport = (uint16_t)port;
	return 0;
}

/*
 * ipfix collector ADDR[:PORT] [port N] [source ADDR] [mac MAC] [OPTION...]
 * ipfix file FILE [OPTION...]
 * OPTION: active-timeout S, idle-timeout S, template-refresh S (collector),
 * domain N, pen N.
 */
static int
cfg_ipfix(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_ipfix_cfg x;
	uint32_t v;
	int rc;

	if (cfg->ipfix.mode != GUFC_IPFIX_OFF)
		return cfg_err(c, c->tok[0].col, "ipfix given twice", c->tok[0].s);
	if ((rc = cfg_need(c, 3)) != 0)
		return rc;
	memset(&x, 0, sizeof(x));
	memset(x.mac, 0xff, sizeof(x.mac));
	x.active_timeout = 60;
	x.pen = MOD_IPFIX_PEN_DOC;
	if (strcmp(c->tok[1].s, "collector") == 0) {
		x.mode = GUFC_IPFIX_UDP;
		x.template_refresh = 60;
		if ((rc = cfg_ipfix_collector(c, 2, &x)) != 0)
			return rc;
	} else if (strcmp(c->tok[1].s, "file") == 0) {
		x.mode = GUFC_IPFIX_FILE;
		if ((rc = cfg_path(c, 2, false, x.file)) != 0)
			return rc;
	} else {
		return cfg_err(c, c->tok[1].col, "expected 'collector' or 'file'", c->tok[1].s);
	}
	for (unsigned int i = 3; i < c->n; i += 2) {
		const char *o = c->tok[i].s;
		bool udp_only = strcmp(o, "port") == 0 || strcmp(o, "source") == 0 ||
			strcmp(o, "mac") == 0 || strcmp(o, "template-refresh") == 0;

		if (udp_only && x.mode != GUFC_IPFIX_UDP)
			return cfg_err(c, c->tok[i].col, "only for 'ipfix collector'", o);
		if ((rc = cfg_need(c, i + 2)) != 0)
			return rc;
		if (strcmp(o, "source") == 0) {
			uint8_t fam;

			if (lex_addr(c->tok[i + 1].s, strlen(c->tok[i + 1].s), &fam, x.src, NULL) != 0 ||
				fam != x.family)
				return cfg_err(c, c->tok[i + 1].col,
					"source: an address of the collector's family", c->tok[i + 1].s);
			x.src_set = true;
			continue;
		}
		if (strcmp(o, "mac") == 0) {
			struct rte_ether_addr ea;

			if (rte_ether_unformat_addr(c->tok[i + 1].s, &ea) != 0)
				return cfg_err(c, c->tok[i + 1].col, "bad MAC address", c->tok[i + 1].s);
			memcpy(x.mac, ea.addr_bytes, sizeof(x.mac));
			continue;
		}
		if (strcmp(o, "port") == 0) {
			if ((rc = cfg_u32(c, i + 1, GUFC_MAX_PORTS - 1, &v)) != 0)
				return rc;
			if (!rte_eth_dev_is_valid_port((uint16_t)v))
				return cfg_err(c, c->tok[i + 1].col, "no such port", c->tok[i + 1].s);
			x.port = (uint16_t)v;
			continue;
		}
		if (strcmp(o, "active-timeout") != 0 && strcmp(o, "idle-timeout") != 0 &&
			strcmp(o, "template-refresh") != 0 && strcmp(o, "domain") != 0 &&
			strcmp(o, "pen") != 0)
			return cfg_err(c, c->tok[i].col, "unknown ipfix option", o);
		if ((rc = cfg_u32(c, i + 1, o[0] == 'd' || o[0] == 'p' ? UINT32_MAX : 86400,
			&v)) != 0)
			return rc;
		if (o[0] == 'a')
			x.active_timeout = v;
		else if (o[0] == 'i')
			x.idle_timeout = v;
		else if (o[0] == 't')
			x.template_refresh = v;
		else if (o[0] == 'd')
			x.domain = v;
		else if (v == 0)
			return cfg_err(c, c->tok[i + 1].col, "pen: a non-zero number", c->tok[i + 1].s);
		else
			x.pen = v;
	}
	if (x.mode == GUFC_IPFIX_UDP && !rte_eth_dev_is_valid_port(x.port))
		return cfg_err(c, c->tok[2].col, "no port 0 to send through (give 'port N')",
			c->tok[2].s);
	cfg->ipfix = x;
	return 0;
}

/*
 * route [table T] PREFIX port N | route [table T] PREFIX via GATEWAY (its
 * port: checked at the end). T: a number, main, or a name (the table is
 * made by its first route).
 */
static int
cfg_route(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_route r;
	unsigned int b = 1; /* the prefix's word */
	uint32_t port;
	int rc;

	memset(&r, 0, sizeof(r));
	if (c->n > 1 && strcmp(c->tok[1].s, "table") == 0) {
		if ((rc = cfg_need(c, 3)) != 0)
			return rc;
		if (gufc_route_table_arg(c->tok[2].s, &r.table, r.table_name) != 0)
			return cfg_err(c, c->tok[2].col,
				"bad table (1..4294967294 but 253 and 255, main, or a name)",
				c->tok[2].s);
		b = 3;
	}
	if ((rc = cfg_need(c, b + 3)) != 0)
		return rc;
	if ((rc = cfg_prefix(c, b, &r.pfx)) != 0)
		return rc;
	if (strcmp(c->tok[b + 1].s, "port") == 0) {
		if ((rc = cfg_u32(c, b + 2, GUFC_MAX_PORTS - 1, &port)) != 0)
			return rc;
		r.port = (uint16_t)port;
	} else if (strcmp(c->tok[b + 1].s, "via") == 0) {
		uint8_t fam;

		if (lex_addr(c->tok[b + 2].s, strlen(c->tok[b + 2].s), &fam, r.gw, NULL) != 0)
			return cfg_err(c, c->tok[b + 2].col, "bad gateway address",
				c->tok[b + 2].s);
		if (fam != r.pfx.family)
			return cfg_err(c, c->tok[b + 2].col,
				"gateway of another family than the prefix", c->tok[b + 2].s);
		r.via = true;
	} else {
		return cfg_err(c, c->tok[b + 1].col, "expected 'port' or 'via'", c->tok[b + 1].s);
	}
	if (c->n > b + 3)
		return cfg_err(c, c->tok[b + 3].col, "unexpected token", c->tok[b + 3].s);
	if (cfg->n_routes == GUFC_MAX_ROUTES)
		return cfg_err(c, c->tok[b].col, "too many routes", c->tok[b].s);
	c->via[cfg->n_routes].line = c->w.line;
	c->via[cfg->n_routes].col = c->tok[b + 2].col;
	snprintf(c->via[cfg->n_routes].text, sizeof(c->via[0].text), "%s", c->tok[b + 2].s);
	cfg->routes[cfg->n_routes++] = r;
	return 0;
}

/*
 * route-rule [pref P] [not] [from PFX] [to PFX] [fwmark V[/M]] [iif PORT]
 * table T|blackhole|unreachable|prohibit (gufc_prule_parse()). A table
 * named must have a route on an earlier line; iif a port named earlier
 * (or a number).
 */
static int
cfg_prule(struct cfg_ctx *c, struct gufc_config *cfg)
{
	const char *w[CFG_MAX_TOK];
	struct gufc_prule pr;
	const char *why;
	unsigned int bad, i;
	int rc;

	for (i = 1; i < c->n; i++)
		w[i - 1] = c->tok[i].s;
	rc = gufc_prule_parse(cfg, w, c->n - 1, &pr, &bad, &why);
	if (rc != 0) {
		i = c->n > 1 && rc != -EEXIST ? bad + 1 : 0;
		return cfg_err(c, c->tok[i].col, why, c->tok[i].s);
	}
	if (pr.table_name[0] != '\0') {
		bool known = false;

		for (i = 0; i < cfg->n_routes && !known; i++)
			known = strcmp(cfg->routes[i].table_name, pr.table_name) == 0;
		if (!known) {
			for (i = 1; i < c->n && strcmp(c->tok[i].s, pr.table_name) != 0; i++)
				;
			return cfg_err(c, c->tok[i < c->n ? i : 0].col,
				"unknown table (no 'route table NAME ...' line before)",
				pr.table_name);
		}
	}
	for (i = 0; i < cfg->n_prules; i++) {
		const struct gufc_prule *o = &cfg->prules[i];

		if (pr.pref_given && o->pref_given && memcmp(&o->r, &pr.r, sizeof(pr.r)) == 0 &&
			strcmp(o->table_name, pr.table_name) == 0)
			return cfg_err(c, c->tok[0].col,
				"the same rule again (as ip rule add refuses)", c->tok[0].s);
	}
	if (cfg->n_prules == GUFC_MAX_PRULES)
		return cfg_err(c, c->tok[0].col, "too many route-rule lines", c->tok[0].s);
	cfg->prules[cfg->n_prules++] = pr;
	return 0;
}

/*
 * port N vlan VID parent P ...: port N (an id no device has) is the VLAN
 * sub-interface of device port P for 802.1Q VLAN VID (Linux's "ip link add
 * link P name N type vlan id VID"). Words 2..5 of the line.
 */
static int
cfg_port_vlan(struct cfg_ctx *c, struct gufc_config *cfg, uint32_t port)
{
	struct gufc_port_cfg *pc = &cfg->port[port];
	uint32_t vid, parent;
	int rc;

	if (c->n < 6 || strcmp(c->tok[4].s, "parent") != 0)
		return cfg_err(c, c->tok[c->n < 5 ? c->n - 1 : 4].col,
			"expected 'port N vlan VID parent P'", c->tok[c->n < 5 ? c->n - 1 : 4].s);
	if (rte_eth_dev_is_valid_port((uint16_t)port))
		return cfg_err(c, c->tok[1].col,
			"a device has this port id: a VLAN sub-interface takes an id of its own",
			c->tok[1].s);
	if ((rc = cfg_u32(c, 3, UINT16_MAX, &vid)) != 0)
		return rc;
	if (vid == 0 || vid > DP_VLAN_MAX)
		return cfg_err(c, c->tok[3].col, "VLAN id: 1..4094", c->tok[3].s);
	if ((rc = cfg_u32(c, 5, UINT16_MAX, &parent)) != 0)
		return rc;
	if (parent < GUFC_MAX_PORTS && cfg->port[parent].vid != 0)
		return cfg_err(c, c->tok[5].col,
			"the parent is a VLAN sub-interface itself (QinQ is not supported)",
			c->tok[5].s);
	if (parent >= GUFC_MAX_PORTS || !rte_eth_dev_is_valid_port((uint16_t)parent))
		return cfg_err(c, c->tok[5].col, "no such parent port", c->tok[5].s);
	if (pc->vid != 0 && (pc->vid != vid || pc->parent != parent))
		return cfg_err(c, c->tok[3].col,
			"port is a VLAN sub-interface already (of another VLAN or parent)",
			c->tok[3].s);
	for (uint32_t p = 0; p < GUFC_MAX_PORTS; p++)
		if (p != port && cfg->port[p].vid == vid && cfg->port[p].parent == parent)
			return cfg_err(c, c->tok[3].col,
				"another port is this VLAN of this parent already", c->tok[3].s);
	pc->vid = (uint16_t)vid;
	pc->parent = (uint16_t)parent;
	return 0;
}

/*
 * port N [vlan VID parent P] [name NAME] [address PREFIX ...] [mtu M] [host]:
 * several lines add up. host: the port carries this host's own packets (a
 * local source there is locally generated; on any other port it is
 * forged: fc_locals). vlan: cfg_port_vlan().
 */
static int
cfg_port(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_port_cfg *pc;
	const char *why = NULL;
	uint32_t port, v;
	unsigned int i = 2;
	int rc;

	if ((rc = cfg_need(c, 3)) != 0)
		return rc;
	if ((rc = cfg_u32(c, 1, GUFC_MAX_PORTS - 1, &port)) != 0)
		return rc;
	pc = &cfg->port[port];
	if (strcmp(c->tok[2].s, "vlan") == 0) {
		if ((rc = cfg_port_vlan(c, cfg, port)) != 0)
			return rc;
		i = 6;
	} else if (!rte_eth_dev_is_valid_port((uint16_t)port) && pc->vid == 0) {
		return cfg_err(c, c->tok[1].col, "no such port (a VLAN sub-interface: "
			"'port N vlan VID parent P' first)", c->tok[1].s);
	}
	while (i < c->n) {
		const char *o = c->tok[i].s;

		if (strcmp(o, "name") == 0) {
			if ((rc = cfg_need(c, i + 2)) != 0)
				return rc;
			if (gufc_port_name_check(c->tok[i + 1].s, &why) != 0)
				return cfg_err(c, c->tok[i + 1].col, why, c->tok[i + 1].s);
			rc = gufc_port_by_name(cfg, c->tok[i + 1].s);
			if (rc >= 0 && rc != (int)port)
				return cfg_err(c, c->tok[i + 1].col, "another port has this name",
					c->tok[i + 1].s);
			snprintf(pc->name, sizeof(pc->name), "%s", c->tok[i + 1].s);
			i += 2;
		} else if (strcmp(o, "mtu") == 0) {
			if ((rc = cfg_need(c, i + 2)) != 0)
				return rc;
			if ((rc = cfg_u32(c, i + 1, UINT16_MAX, &v)) != 0)
				return rc;
			if (v < GUFC_MTU_MIN || v > GUFC_MTU_MAX)
				return cfg_err(c, c->tok[i + 1].col, "mtu: 68..9600", c->tok[i + 1].s);
			pc->mtu = (uint16_t)v;
			i += 2;
		} else if (strcmp(o, "host") == 0) {
			pc->host = true;
			i++;
		} else if (strcmp(o, "address") == 0) {
			if ((rc = cfg_need(c, i + 2)) != 0)
				return rc;
			for (i++; i < c->n && strcmp(c->tok[i].s, "name") != 0 &&
				  strcmp(c->tok[i].s, "mtu") != 0 &&
				  strcmp(c->tok[i].s, "address") != 0 &&
				  strcmp(c->tok[i].s, "host") != 0;
				i++) {
				struct lex_prefix a;
				const char *t = c->tok[i].s;

				if (lex_prefix(t, strlen(t), LEX_PFX_HOST_KEEP, &a, NULL) != 0)
					return cfg_err(c, c->tok[i].col, "bad address (ADDR/LEN)", t);
				if (gufc_port_addr_check(cfg, (uint16_t)port, &a, &why) != 0)
					return cfg_err(c, c->tok[i].col, why, t);
				pc->addr[pc->n_addr++] = a;
			}
		} else {
			return cfg_err(c, c->tok[i].col, strcmp(o, "vlan") == 0 ?
				"'vlan VID parent P' comes right after the port number" :
				"expected name, address, mtu or host", o);
		}
	}
	return 0;
}

/* A log channel's index by name, -1 if none. */
static int
cfg_logchan_find(const struct gufc_log_cfg *l, const char *name)
{
	for (unsigned int i = 0; i < l->n_chans; i++)
		if (strcmp(l->chan[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * log channel NAME kind pcap|pcapng file FILE
 * log target NAME          (LOG rules' packets also go to NAME)
 * log group N|any NAME     (NFLOG group N's packets go to NAME)
 */
static int
cfg_log(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_log_cfg *l = &cfg->log;
	const char *what;
	uint32_t g;
	int rc, ci;

	if ((rc = cfg_need(c, 3)) != 0)
		return rc;
	what = c->tok[1].s;
	if (strcmp(what, "channel") == 0) {
		const char *name = c->tok[2].s;
		unsigned int i = l->n_chans;

		if (c->n != 7 || strcmp(c->tok[3].s, "kind") != 0 || strcmp(c->tok[5].s, "file") != 0)
			return cfg_err(c, c->tok[c->n > 3 ? 3 : 2].col,
				"expected 'log channel NAME kind pcap|pcapng file FILE'",
				c->tok[c->n > 3 ? 3 : 2].s);
		if (name[0] == '\0' || strlen(name) > CHAN_NAME_MAX)
			return cfg_err(c, c->tok[2].col, "bad log channel name", name);
		if (cfg_logchan_find(l, name) >= 0)
			return cfg_err(c, c->tok[2].col, "log channel defined twice", name);
		if (i == GUFC_LOG_CHANS_MAX)
			return cfg_err(c, c->tok[2].col, "too many log channels", name);
		if (strcmp(c->tok[4].s, "pcap") == 0)
			l->chan[i].kind = PLOG_PCAP;
		else if (strcmp(c->tok[4].s, "pcapng") == 0)
			l->chan[i].kind = PLOG_PCAPNG;
		else
			return cfg_err(c, c->tok[4].col, "log channel kind must be pcap or pcapng",
				c->tok[4].s);
		if ((rc = cfg_path(c, 6, true, l->chan[i].file)) != 0)
			return rc;
		snprintf(l->chan[i].name, sizeof(l->chan[i].name), "%s", name);
		l->n_chans++;
		return 0;
	}
	if (strcmp(what, "target") == 0) {
		if (c->n > 3)
			return cfg_err(c, c->tok[3].col, "unexpected token", c->tok[3].s);
		ci = cfg_logchan_find(l, c->tok[2].s);
		if (ci < 0)
			return cfg_err(c, c->tok[2].col, "no such log channel (define it first)",
				c->tok[2].s);
		l->target = (uint8_t)(ci + 1);
		return 0;
	}
	if (strcmp(what, "group") == 0) {
		if ((rc = cfg_need(c, 4)) != 0)
			return rc;
		if (c->n > 4)
			return cfg_err(c, c->tok[4].col, "unexpected token", c->tok[4].s);
		if (strcmp(c->tok[2].s, "any") == 0)
			g = GUFC_LOG_GROUP_ANY;
		else if ((rc = cfg_u32(c, 2, UINT16_MAX, &g)) != 0)
			return rc;
		ci = cfg_logchan_find(l, c->tok[3].s);
		if (ci < 0)
			return cfg_err(c, c->tok[3].col, "no such log channel (define it first)",
				c->tok[3].s);
		for (unsigned int i = 0; i < l->n_groups; i++)
			if (l->group[i].group == g)
				return cfg_err(c, c->tok[2].col, "log group given twice", c->tok[2].s);
		if (l->n_groups == GUFC_LOG_GROUPS_MAX)
			return cfg_err(c, c->tok[2].col, "too many log groups", c->tok[2].s);
		l->group[l->n_groups].group = g;
		l->group[l->n_groups].chan = (uint8_t)ci;
		l->n_groups++;
		return 0;
	}
	return cfg_err(c, c->tok[1].col, "expected log channel, log target or log group", what);
}

/* After the last line: the port of each route "via" (port lines may follow routes). */
static int
cfg_routes_resolve(struct cfg_ctx *c, struct gufc_config *cfg)
{
	for (unsigned int i = 0; i < cfg->n_routes; i++) {
		struct gufc_route *r = &cfg->routes[i];
		int port;

		if (!r->via)
			continue;
		port = gufc_port_of_gw(cfg, r->pfx.family, r->gw);
		if (port >= 0) {
			r->port = (uint16_t)port;
			continue;
		}
		c->w.line = c->via[i].line;
		return cfg_err(c, c->via[i].col, port == -EEXIST ?
			"the gateway is one of this host's port addresses" :
			"no port address's prefix holds the gateway", c->via[i].text);
	}
	return 0;
}

static int
cfg_line(struct cfg_ctx *c, struct gufc_config *cfg)
{
	const char *kw = c->tok[0].s;
	struct lex_prefix p;
	int rc;

	if (strcmp(kw, "local") == 0) {
		if ((rc = cfg_need(c, 2)) != 0)
			return rc;
		if (c->n > 2)
			return cfg_err(c, c->tok[2].col, "unexpected token", c->tok[2].s);
		if ((rc = cfg_prefix(c, 1, &p)) != 0)
			return rc;
		if (p.len == 0)
			return cfg_err(c, c->tok[1].col, "bad prefix", c->tok[1].s);
		if (cfg->n_locals == GUFC_MAX_LOCALS)
			return cfg_err(c, c->tok[1].col, "too many local prefixes", c->tok[1].s);
		cfg->locals[cfg->n_locals++] = p;
		return 0;
	}
	if (strcmp(kw, "route") == 0)
		return cfg_route(c, cfg);
	if (strcmp(kw, "route-rule") == 0)
		return cfg_prule(c, cfg);
	if (strcmp(kw, "port") == 0)
		return cfg_port(c, cfg);
	if (strcmp(kw, "channel") == 0)
		return cfg_channel(c, cfg);
	if (strcmp(kw, "ipfix") == 0)
		return cfg_ipfix(c, cfg);
	if (strcmp(kw, "log") == 0)
		return cfg_log(c, cfg);
	if (strcmp(kw, "rules") == 0 || strcmp(kw, "iptables") == 0 ||
		strcmp(kw, "ip6tables") == 0) {
		/* rules: the native set; iptables and ip6tables: one family each. */
		unsigned int kind = kw[0] == 'r' ? 1 : kw[2] == '6' ? 4 : 2;
		char *dst = kind == 1 ? cfg->rules_file : kind == 2 ? cfg->ipt_file : cfg->ipt6_file;

		if ((rc = cfg_need(c, 2)) != 0)
			return rc;
		if (c->n > 2)
			return cfg_err(c, c->tok[2].col, "unexpected token", c->tok[2].s);
		if ((c->rules_seen & kind) || (kind == 1 && c->rules_seen) ||
			(kind != 1 && (c->rules_seen & 1)))
			return cfg_err(c, c->tok[0].col, "a rule set was already given", kw);
		c->rules_seen |= kind;
		/* The command line's rule set wins over the config's. */
		if (c->cli_rules)
			return 0;
		return cfg_path(c, 1, true, dst);
	}
	if (strcmp(kw, "ipset") == 0) {
		if ((rc = cfg_need(c, 2)) != 0)
			return rc;
		if (c->n > 2)
			return cfg_err(c, c->tok[2].col, "unexpected token", c->tok[2].s);
		if (c->ipset_seen)
			return cfg_err(c, c->tok[0].col,
				"ipsets were already given (ipset save writes every set in one file)",
				kw);
		c->ipset_seen = true;
		if (c->cli_ipset)
			return 0;
		return cfg_path(c, 1, true, cfg->ipset_file);
	}
	if (strcmp(kw, "set") == 0) {
		const char *err;

		if ((rc = cfg_need(c, 3)) != 0)
			return rc;
		if (c->n > 3)
			return cfg_err(c, c->tok[3].col, "unexpected token", c->tok[3].s);
		rc = gufc_setting_set(&cfg->set, c->tok[1].s, c->tok[2].s, false, &err);
		if (rc == -ENOENT)
			return cfg_err(c, c->tok[1].col, "unknown setting", c->tok[1].s);
		if (rc != 0)
			return cfg_err(c, c->tok[2].col, err, c->tok[2].s);
		return 0;
	}
	return cfg_err(c, c->tok[0].col, "unknown keyword", kw);
}

int
gufc_config_load(struct gufc_config *cfg, const char *path)
{
	struct gufc_config *tmp = NULL;
	struct lex_reader rd;
	static struct cfg_ctx c; /* (its route table is large: not on the stack) */
	char dcopy[GUFC_PATH_MAX];
	char *text, *line;
	size_t len;
	int rc;

	memset(&c, 0, sizeof(c));
	c.w.file = path;
	c.w.err = &c.err;
	c.cli_rules = cfg->rules_file[0] != '\0' || cfg->ipt_file[0] != '\0' ||
		      cfg->ipt6_file[0] != '\0';
	c.cli_ipset = cfg->ipset_file[0] != '\0';
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(c.dir, sizeof(c.dir), "%s", dirname(dcopy));
	text = lex_file_read(path, &c.err);
	if (text == NULL) {
		char buf[LEX_ERR_FILE_MAX + LEX_ERR_MSG_MAX + 32];

		rc = -errno;
		lex_error_format(&c.err, buf, sizeof(buf));
		fprintf(stderr, "%s\n", buf);
		return rc;
	}
	tmp = malloc(sizeof(*tmp));
	if (tmp == NULL) {
		free(text);
		return -ENOMEM;
	}
	*tmp = *cfg;
	lex_reader_init(&rd, text);
	while ((rc = lex_reader_next(&rd, &line, &len)) == 1) {
		c.w.line = rd.line;
		if (len >= CFG_LINE_MAX - 1) {
			rc = cfg_err(&c, 1, "line too long", NULL);
			break;
		}
		rc = cfg_tokenize(&c, line);
		if (rc != 0)
			break;
		if (c.n == 0)
			continue;
		rc = cfg_line(&c, tmp);
		if (rc != 0)
			break;
	}
	lex_reader_fini(&rd);
	free(text);
	if (rc == 0)
		rc = cfg_routes_resolve(&c, tmp);
	if (rc == 0)
		*cfg = *tmp;
	free(tmp);
	return rc;
}
