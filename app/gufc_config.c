/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_config.c — the config file: a line-oriented grammar (doc/config.md)
 * of local prefixes, routes, channels, rule files and settings. Loading is
 * all or nothing: the file is parsed into a copy of the configuration, which
 * replaces the caller's only if every line is good. Errors say
 * FILE:LINE:COL, why, and the offending token.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "gufc.h"

#define CFG_MAX_TOK 16
#define CFG_LINE_MAX 4096

struct cfg_tok {
	char text[GUFC_PATH_MAX];
	unsigned int col;
};

struct cfg_ctx {
	const char *file;
	unsigned int line;
	char dir[GUFC_PATH_MAX];
	unsigned int n;
	struct cfg_tok tok[CFG_MAX_TOK];
};

static int
cfg_err(const struct cfg_ctx *c, unsigned int col, const char *msg, const char *token)
{
	fprintf(stderr, "%s:%u:%u: %s", c->file, c->line, col, msg);
	if (token != NULL)
		fprintf(stderr, ": '%s'", token);
	fputc('\n', stderr);
	return -EINVAL;
}

/* Split a line into tokens ("..." quotes one; '#' outside quotes ends the line). */
static int
cfg_tokenize(struct cfg_ctx *c, const char *line)
{
	const char *p = line;

	c->n = 0;
	for (;;) {
		unsigned int len = 0;
		unsigned int col;
		struct cfg_tok *t;

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || *p == '#')
			return 0;
		col = (unsigned int)(p - line) + 1;
		if (c->n == CFG_MAX_TOK)
			return cfg_err(c, col, "too many tokens", NULL);
		t = &c->tok[c->n++];
		t->col = col;
		if (*p == '"') {
			p++;
			while (*p != '"') {
				if (*p == '\0' || *p == '\n')
					return cfg_err(c, col, "unterminated quote", NULL);
				if (len + 1 >= sizeof(t->text))
					return cfg_err(c, col, "token too long", NULL);
				t->text[len++] = *p++;
			}
			p++;
		} else {
			while (*p != '\0' && !isspace((unsigned char)*p) && *p != '#') {
				if (len + 1 >= sizeof(t->text))
					return cfg_err(c, col, "token too long", NULL);
				t->text[len++] = *p++;
			}
		}
		t->text[len] = '\0';
	}
}

int
gufc_prefix_parse(const char *s, struct gufc_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	size_t alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	unsigned long len;
	char *end;

	if (alen == 0 || alen >= INET6_ADDRSTRLEN)
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->family = FC_AF_INET4;
		len = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->family = FC_AF_INET6;
		len = 128;
	} else {
		return -EINVAL;
	}
	if (slash != NULL) {
		unsigned long max = len;

		if (slash[1] == '\0' || !isdigit((unsigned char)slash[1]))
			return -EINVAL;
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno != 0 || *end != '\0' || len > max)
			return -EINVAL;
	}
	p->len = (uint8_t)len;
	/* Host bits are cleared, not refused: "10.1.2.3/8" means 10.0.0.0/8. */
	for (unsigned int b = p->len; b < (p->family == FC_AF_INET4 ? 32u : 128u); b++)
		p->addr[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	return 0;
}

int
gufc_prefix_format(const struct gufc_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (inet_ntop(p->family == FC_AF_INET4 ? AF_INET : AF_INET6, p->addr, a, sizeof(a)) ==
		NULL)
		return -EINVAL;
	return snprintf(buf, len, "%s/%u", a, p->len);
}

static int
cfg_u32(const struct cfg_ctx *c, unsigned int i, uint32_t max, uint32_t *out)
{
	const char *s = c->tok[i].text;
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return cfg_err(c, c->tok[i].col, "expected a number", s);
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return cfg_err(c, c->tok[i].col, "number out of range", s);
	*out = (uint32_t)v;
	return 0;
}

static int
cfg_need(const struct cfg_ctx *c, unsigned int n)
{
	if (c->n < n)
		return cfg_err(c, c->tok[c->n - 1].col, "missing value after",
			c->tok[c->n - 1].text);
	return 0;
}

static int
cfg_path(const struct cfg_ctx *c, unsigned int i, bool relative_to_file, char *out)
{
	const char *s = c->tok[i].text;
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

static bool
chan_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > CHAN_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

static int
cfg_channel(struct cfg_ctx *c, struct gufc_config *cfg)
{
	struct gufc_chan_cfg ch;
	unsigned int i;
	int kind;
	int rc;

	memset(&ch, 0, sizeof(ch));
	if ((rc = cfg_need(c, 4)) != 0)
		return rc;
	if (!chan_name_ok(c->tok[1].text))
		return cfg_err(c, c->tok[1].col,
			"bad channel name (1..16 of A-Z a-z 0-9 _ - .)", c->tok[1].text);
	for (i = 0; i < cfg->n_chans; i++)
		if (strcmp(cfg->chans[i].name, c->tok[1].text) == 0)
			return cfg_err(c, c->tok[1].col, "channel declared twice", c->tok[1].text);
	if (cfg->n_chans == GUFC_MAX_CHANNELS_CFG)
		return cfg_err(c, c->tok[1].col, "too many channels", c->tok[1].text);
	strcpy(ch.name, c->tok[1].text);
	if (strcmp(c->tok[2].text, "kind") != 0)
		return cfg_err(c, c->tok[2].col, "expected 'kind'", c->tok[2].text);
	kind = chan_kind_parse(c->tok[3].text);
	if (kind < 0)
		return cfg_err(c, c->tok[3].col, "unknown channel kind (discard|pcap|tx|app)",
			c->tok[3].text);
	ch.kind = (enum chan_cons_kind)kind;
	i = 4;
	if (ch.kind == CHAN_CONS_PCAP) {
		if ((rc = cfg_need(c, 5)) != 0)
			return rc;
		if ((rc = cfg_path(c, 4, false, ch.pcap)) != 0)
			return rc;
		i = 5;
	} else if (ch.kind == CHAN_CONS_TX) {
		char *colon;
		uint32_t v;

		if ((rc = cfg_need(c, 5)) != 0)
			return rc;
		colon = strchr(c->tok[4].text, ':');
		if (colon != NULL) {
			struct cfg_ctx sub = *c;

			*colon = '\0';
			strcpy(sub.tok[4].text, colon + 1);
			sub.tok[4].col += (unsigned int)(colon - c->tok[4].text) + 1;
			if ((rc = cfg_u32(&sub, 4, GUFC_MAX_RXQ * 4, &v)) != 0)
				return rc;
			ch.tx_queue = (uint16_t)v;
			ch.tx_queue_set = true;
		}
		if ((rc = cfg_u32(c, 4, GUFC_MAX_PORTS - 1, &v)) != 0)
			return rc;
		ch.tx_port = (uint16_t)v;
		i = 5;
	}
	while (i < c->n) {
		const struct cfg_tok *t = &c->tok[i];

		if (strcmp(t->text, "size") == 0) {
			uint32_t v;

			if ((rc = cfg_need(c, i + 2)) != 0)
				return rc;
			if ((rc = cfg_u32(c, i + 1, CHAN_RING_SIZE_MAX, &v)) != 0)
				return rc;
			if (v < CHAN_RING_SIZE_MIN || (v & (v - 1)) != 0)
				return cfg_err(c, c->tok[i + 1].col,
					"ring size must be a power of two", c->tok[i + 1].text);
			ch.size = v;
			i += 2;
		} else if (strcmp(t->text, "perflow") == 0) {
			uint32_t v;

			ch.perflow = true;
			i++;
			/* An optional count: rings this channel adds to the shared pool. */
			if (i < c->n && c->tok[i].text[0] >= '0' && c->tok[i].text[0] <= '9') {
				if ((rc = cfg_u32(c, i, CHAN_FLOW_POOL_MAX, &v)) != 0)
					return rc;
				if (v == 0)
					return cfg_err(c, c->tok[i].col,
						"per-flow pool must be 1..1024", c->tok[i].text);
				ch.perflow_pool = v;
				i++;
			}
		} else {
			return cfg_err(c, t->col, "unexpected token", t->text);
		}
	}
	cfg->chans[cfg->n_chans++] = ch;
	return 0;
}

static int
cfg_line(struct cfg_ctx *c, struct gufc_config *cfg, bool *rules_seen)
{
	const char *kw = c->tok[0].text;
	struct gufc_prefix p;
	int rc;

	if (strcmp(kw, "local") == 0) {
		if ((rc = cfg_need(c, 2)) != 0)
			return rc;
		if (c->n > 2)
			return cfg_err(c, c->tok[2].col, "unexpected token", c->tok[2].text);
		if (gufc_prefix_parse(c->tok[1].text, &p) != 0 || p.len == 0)
			return cfg_err(c, c->tok[1].col, "bad prefix", c->tok[1].text);
		if (cfg->n_locals == GUFC_MAX_LOCALS)
			return cfg_err(c, c->tok[1].col, "too many local prefixes", c->tok[1].text);
		cfg->locals[cfg->n_locals++] = p;
		return 0;
	}
	if (strcmp(kw, "route") == 0) {
		uint32_t port;

		if ((rc = cfg_need(c, 4)) != 0)
			return rc;
		if (gufc_prefix_parse(c->tok[1].text, &p) != 0)
			return cfg_err(c, c->tok[1].col, "bad prefix", c->tok[1].text);
		if (strcmp(c->tok[2].text, "port") != 0)
			return cfg_err(c, c->tok[2].col, "expected 'port'", c->tok[2].text);
		if ((rc = cfg_u32(c, 3, GUFC_MAX_PORTS - 1, &port)) != 0)
			return rc;
		if (c->n > 4)
			return cfg_err(c, c->tok[4].col, "unexpected token", c->tok[4].text);
		if (cfg->n_routes == GUFC_MAX_ROUTES)
			return cfg_err(c, c->tok[1].col, "too many routes", c->tok[1].text);
		cfg->routes[cfg->n_routes].pfx = p;
		cfg->routes[cfg->n_routes].port = (uint16_t)port;
		cfg->n_routes++;
		return 0;
	}
	if (strcmp(kw, "channel") == 0)
		return cfg_channel(c, cfg);
	if (strcmp(kw, "rules") == 0 || strcmp(kw, "iptables") == 0) {
		bool ipt = kw[0] == 'i';

		if ((rc = cfg_need(c, 2)) != 0)
			return rc;
		if (c->n > 2)
			return cfg_err(c, c->tok[2].col, "unexpected token", c->tok[2].text);
		if (*rules_seen)
			return cfg_err(c, c->tok[0].col, "a rule set was already given", kw);
		*rules_seen = true;
		/* The command line's rule set wins over the config's. */
		if (cfg->rules_file[0] != '\0' || cfg->ipt_file[0] != '\0')
			return 0;
		return cfg_path(c, 1, true, ipt ? cfg->ipt_file : cfg->rules_file);
	}
	if (strcmp(kw, "set") == 0) {
		const char *err;

		if ((rc = cfg_need(c, 3)) != 0)
			return rc;
		if (c->n > 3)
			return cfg_err(c, c->tok[3].col, "unexpected token", c->tok[3].text);
		rc = gufc_setting_set(&cfg->set, c->tok[1].text, c->tok[2].text, false, &err);
		if (rc == -ENOENT)
			return cfg_err(c, c->tok[1].col, "unknown setting", c->tok[1].text);
		if (rc != 0)
			return cfg_err(c, c->tok[2].col, err, c->tok[2].text);
		return 0;
	}
	return cfg_err(c, c->tok[0].col, "unknown keyword", kw);
}

int
gufc_config_load(struct gufc_config *cfg, const char *path)
{
	struct gufc_config *tmp;
	struct cfg_ctx c;
	char line[CFG_LINE_MAX];
	bool rules_seen = false;
	char dcopy[GUFC_PATH_MAX];
	FILE *f;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.file = path;
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(c.dir, sizeof(c.dir), "%s", dirname(dcopy));
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return rc;
	}
	tmp = malloc(sizeof(*tmp));
	if (tmp == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	*tmp = *cfg;
	while (fgets(line, sizeof(line), f) != NULL) {
		c.line++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			rc = cfg_err(&c, 1, "line too long", NULL);
			break;
		}
		rc = cfg_tokenize(&c, line);
		if (rc != 0)
			break;
		if (c.n == 0)
			continue;
		rc = cfg_line(&c, tmp, &rules_seen);
		if (rc != 0)
			break;
	}
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		rc = -EIO;
	}
	fclose(f);
	if (rc == 0)
		*cfg = *tmp;
	free(tmp);
	return rc;
}
