/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_config.c — the config file: a line-oriented grammar (doc/config.md)
 * of local prefixes, routes, channels, rule files, ipsets, port names and
 * settings. Loading is
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

/* port N name NAME: the name rules' -i/-o give the port (default: the PMD's). */
static int
cfg_port(struct cfg_ctx *c, struct gufc_config *cfg)
{
	const char *why;
	uint32_t port;
	int rc;

	if ((rc = cfg_need(c, 4)) != 0)
		return rc;
	if ((rc = cfg_u32(c, 1, GUFC_MAX_PORTS - 1, &port)) != 0)
		return rc;
	if (strcmp(c->tok[2].s, "name") != 0)
		return cfg_err(c, c->tok[2].col, "expected 'name'", c->tok[2].s);
	if (c->n > 4)
		return cfg_err(c, c->tok[4].col, "unexpected token", c->tok[4].s);
	why = gufc_port_name_check(c->tok[3].s);
	if (why != NULL)
		return cfg_err(c, c->tok[3].col, why, c->tok[3].s);
	for (unsigned int i = 0; i < GUFC_MAX_PORTS; i++)
		if (i != port && strcmp(cfg->port_names[i], c->tok[3].s) == 0)
			return cfg_err(c, c->tok[3].col, "another port has this name", c->tok[3].s);
	snprintf(cfg->port_names[port], sizeof(cfg->port_names[port]), "%s", c->tok[3].s);
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
	if (strcmp(kw, "route") == 0) {
		uint32_t port;

		if ((rc = cfg_need(c, 4)) != 0)
			return rc;
		if ((rc = cfg_prefix(c, 1, &p)) != 0)
			return rc;
		if (strcmp(c->tok[2].s, "port") != 0)
			return cfg_err(c, c->tok[2].col, "expected 'port'", c->tok[2].s);
		if ((rc = cfg_u32(c, 3, GUFC_MAX_PORTS - 1, &port)) != 0)
			return rc;
		if (c->n > 4)
			return cfg_err(c, c->tok[4].col, "unexpected token", c->tok[4].s);
		if (cfg->n_routes == GUFC_MAX_ROUTES)
			return cfg_err(c, c->tok[1].col, "too many routes", c->tok[1].s);
		cfg->routes[cfg->n_routes].pfx = p;
		cfg->routes[cfg->n_routes].port = (uint16_t)port;
		cfg->n_routes++;
		return 0;
	}
	if (strcmp(kw, "channel") == 0)
		return cfg_channel(c, cfg);
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
	if (strcmp(kw, "port") == 0)
		return cfg_port(c, cfg);
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
	struct cfg_ctx c;
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
		*cfg = *tmp;
	free(tmp);
	return rc;
}
