/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_prule.c — policy routing's words (doc/config.md "Policy
 * routing"): the one grammar of a routing rule, which the config file's
 * "route-rule" lines and the shell's "route-rule add|del" share, a route's
 * "table T", and applying both to the route module (lib/modules/route) on
 * the rules lcore.
 *
 *   [pref P] [not] [from PFX|all] [to PFX|all] [fwmark V[/M]] [iif PORT]
 *   [ipproto PROTO] [sport N[-M]] [dport N[-M]]
 *   table T | lookup T | goto P | blackhole | unreachable | prohibit
 *
 * T is a number (1..4294967294, not 253 or 255), "main" or a name; PORT a
 * port number or a port's name; PROTO a number (1..255) or a name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gufc_ctl.h"

int
gufc_route_table_arg(const char *s, uint32_t *id, char name[MOD_ROUTE_NAME_MAX])
{
	struct lex_fault f;
	size_t n = strlen(s);

	name[0] = '\0';
	*id = 0;
	if (n > 0 && s[0] >= '0' && s[0] <= '9') {
		if (lex_u32(s, n, UINT32_MAX - 1, LEX_NUM_C, id, &f) != 0 || *id == 0 ||
			*id == 253 || *id == 255)
			return -EINVAL;
		if (*id == MOD_ROUTE_TABLE_MAIN)
			*id = 0;
		return 0;
	}
	if (strcmp(s, "main") == 0)
		return 0;
	if (n == 0 || n >= MOD_ROUTE_NAME_MAX || strcmp(s, "local") == 0 ||
		strcmp(s, "default") == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' ||
			    s[i] == '.'))
			return -EINVAL;
	memcpy(name, s, n + 1);
	return 0;
}

/* PFX or "all" into the rule's from (@p to false) or to. */
static int
pfx_arg(const char *s, struct mod_route_rule *r, bool to)
{
	struct lex_prefix p;

	if (strcmp(s, "all") == 0)
		return 0;
	if (lex_prefix(s, strlen(s), 0, &p, NULL) != 0)
		return -EINVAL;
	if ((r->from_set || r->to_set) && r->family != p.family)
		return -EINVAL;
	r->family = p.family;
	if (to) {
		r->to_set = true;
		r->to_len = p.len;
		memcpy(r->to, p.addr, sizeof(r->to));
	} else {
		r->from_set = true;
		r->from_len = p.len;
		memcpy(r->from, p.addr, sizeof(r->from));
	}
	return 0;
}

static int
port_arg(const struct gufc_config *cfg, const char *s, uint16_t *port)
{
	struct lex_fault f;
	uint32_t v;

	if (s[0] >= '0' && s[0] <= '9') {
		if (lex_u32(s, strlen(s), GUFC_MAX_PORTS - 1, LEX_NUM_C, &v, &f) != 0)
			return -EINVAL;
		*port = (uint16_t)v;
		return 0;
	}
	for (uint16_t p = 0; p < GUFC_MAX_PORTS; p++)
		if (strcmp(cfg->port[p].name, s) == 0) {
			*port = p;
			return 0;
		}
	return -ENOENT;
}

/* `ipproto` names (netbase's) and numbers 1..255. @return the number, or -1. */
static int
proto_arg(const char *s)
{
	static const struct {
		const char *name;
		uint8_t num;
	} names[] = {
		{"icmp", 1}, {"tcp", 6}, {"udp", 17}, {"dccp", 33}, {"gre", 47}, {"esp", 50},
		{"ah", 51}, {"ipv6-icmp", 58}, {"sctp", 132}, {"udplite", 136},
	};
	struct lex_fault f;
	uint32_t v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].num;
	if (lex_u32(s, strlen(s), 255, LEX_NUM_DEC, &v, &f) != 0 || v == 0)
		return -1;
	return (int)v;
}

/* `sport`/`dport`: N or N-M (N <= M), 0..65535. */
static int
range_arg(const char *s, uint16_t out[2])
{
	static const struct lex_port_syntax sx = { .range = '-', .max = 1, .range_weight = 1 };
	struct lex_port_range pr;
	unsigned int n;

	if (lex_ports(&sx, s, strlen(s), &pr, &n, NULL) != 0 || n != 1)
		return -EINVAL;
	out[0] = pr.lo;
	out[1] = pr.hi;
	return 0;
}

int
gufc_prule_parse(const struct gufc_config *cfg, const char *const *tok, unsigned int n,
	struct gufc_prule *pr, unsigned int *bad, const char **why)
{
	struct mod_route_rule *r = &pr->r;
	struct lex_fault f;
	bool acted = false;
	unsigned int i = 0, goto_at = 0;

	memset(pr, 0, sizeof(*pr));
	r->iif = MOD_ROUTE_IIF_ANY;
	r->mask = UINT32_MAX;
	*why = NULL;
	while (i < n) {
		const char *w = tok[i];
		const char *v = i + 1 < n ? tok[i + 1] : NULL;

		*bad = i;
		if (acted) {
			*why = "unexpected word after the rule's action";
			return -EINVAL;
		}
		if (strcmp(w, "not") == 0) {
			r->invert = true;
			i++;
			continue;
		}
		if (strcmp(w, "blackhole") == 0 || strcmp(w, "unreachable") == 0 ||
			strcmp(w, "prohibit") == 0) {
			r->action = w[0] == 'b'   ? MOD_ROUTE_ACT_BLACKHOLE :
				    w[0] == 'u' ? MOD_ROUTE_ACT_UNREACHABLE :
						  MOD_ROUTE_ACT_PROHIBIT;
			acted = true;
			i++;
			continue;
		}
		if (strcmp(w, "oif") == 0 || strcmp(w, "oifname") == 0) {
			*why = "oif never matches a forwarded packet (Linux: local ones by a bound "
			       "device)";
			return -EINVAL;
		}
		if (strcmp(w, "tos") == 0 || strcmp(w, "dsfield") == 0) {
			*why = "tos/dsfield not supported (a cached flow has no TOS; Linux routes "
			       "each packet by it)";
			return -EINVAL;
		}
		if (strcmp(w, "pref") != 0 && strcmp(w, "priority") != 0 &&
			strcmp(w, "from") != 0 && strcmp(w, "to") != 0 && strcmp(w, "fwmark") != 0 &&
			strcmp(w, "iif") != 0 && strcmp(w, "table") != 0 && strcmp(w, "lookup") != 0 &&
			strcmp(w, "ipproto") != 0 && strcmp(w, "sport") != 0 &&
			strcmp(w, "dport") != 0 && strcmp(w, "goto") != 0) {
			*why = "expected pref, not, from, to, fwmark, iif, ipproto, sport, dport, "
			       "table, goto, blackhole, unreachable or prohibit";
			return -EINVAL;
		}
		if (v == NULL) {
			*why = "missing value after";
			return -EINVAL;
		}
		*bad = i + 1;
		if (strcmp(w, "goto") == 0) {
			if (lex_u32(v, strlen(v), UINT32_MAX, LEX_NUM_C, &r->table, &f) != 0 ||
				r->table == 0) {
				*why = "bad goto pref (1..4294967295)";
				return -EINVAL;
			}
			r->action = MOD_ROUTE_ACT_GOTO;
			acted = true;
			goto_at = i + 1;
		} else if (strcmp(w, "ipproto") == 0) {
			int pn = proto_arg(v);

			if (pn < 0) {
				*why = "bad ipproto (1..255 or a name: tcp, udp, icmp, ipv6-icmp, "
				       "sctp, udplite, dccp, gre, esp, ah)";
				return -EINVAL;
			}
			r->ipproto = (uint8_t)pn;
		} else if (strcmp(w, "sport") == 0 || strcmp(w, "dport") == 0) {
			bool d = w[0] == 'd';

			if (range_arg(v, d ? r->dport : r->sport) != 0) {
				*why = "bad port range (N or N-M, 0..65535, N <= M)";
				return -EINVAL;
			}
			if (d)
				r->dport_set = true;
			else
				r->sport_set = true;
		} else if (w[0] == 'p') {
			if (lex_u32(v, strlen(v), UINT32_MAX, LEX_NUM_C, &r->pref, &f) != 0 ||
				r->pref == 0) {
				*why = "bad pref (1..4294967295)";
				return -EINVAL;
			}
			pr->pref_given = true;
		} else if (strcmp(w, "from") == 0 || strcmp(w, "to") == 0) {
			if (pfx_arg(v, r, w[0] == 't') != 0) {
				*why = "bad prefix (host bits set, or another family than "
				       "the rule's)";
				return -EINVAL;
			}
		} else if (w[0] == 'f') {
			const char *sl = strchr(v, '/');
			size_t vl = sl != NULL ? (size_t)(sl - v) : strlen(v);

			if (lex_u32(v, vl, UINT32_MAX, LEX_NUM_C, &r->mark, &f) != 0 ||
				(sl != NULL && lex_u32(sl + 1, strlen(sl + 1), UINT32_MAX,
						       LEX_NUM_C, &r->mask, &f) != 0)) {
				*why = "bad fwmark (V or V/M, numbers)";
				return -EINVAL;
			}
			if ((r->mark & ~r->mask) != 0) {
				*why = "bad fwmark: the value has bits outside the mask";
				return -EINVAL;
			}
			r->mark_set = true;
		} else if (w[0] == 'i') {
			int rc = port_arg(cfg, v, &r->iif);

			if (rc != 0) {
				*why = rc == -ENOENT ? "no port of that name" : "bad port";
				return -EINVAL;
			}
		} else {
			if (gufc_route_table_arg(v, &r->table, pr->table_name) != 0) {
				*why = "bad table (1..4294967294 but 253 and 255, main, or a name)";
				return -EINVAL;
			}
			if (r->table == 0 && pr->table_name[0] == '\0')
				r->table = MOD_ROUTE_TABLE_MAIN;
			r->action = MOD_ROUTE_ACT_TABLE;
			acted = true;
		}
		i += 2;
	}
	if (!acted) {
		*bad = n > 0 ? n - 1 : 0;
		*why = "missing the rule's action (table T, goto P, blackhole, unreachable or "
		       "prohibit)";
		return -EINVAL;
	}
	if (r->action == MOD_ROUTE_ACT_GOTO && pr->pref_given && r->table <= r->pref) {
		*bad = goto_at;
		*why = "goto goes to a later pref (more than the rule's)";
		return -EINVAL;
	}
	if (pr->pref_given && r->action == MOD_ROUTE_ACT_TABLE && r->pref == MOD_ROUTE_PREF_MAIN &&
		r->table == MOD_ROUTE_TABLE_MAIN && !r->from_set && !r->to_set && !r->mark_set &&
		r->iif == MOD_ROUTE_IIF_ANY && r->ipproto == 0 && !r->sport_set && !r->dport_set &&
		!r->invert) {
		*why = "that is the main table's own rule (always there)";
		return -EEXIST;
	}
	return 0;
}

/* The table number of a name (made on a route, @p create). */
static int
table_of(struct gufc_app *app, const char *name, uint32_t table, bool create, uint32_t *id)
{
	if (name[0] == '\0') {
		*id = table != 0 ? table : MOD_ROUTE_TABLE_MAIN;
		return 0;
	}
	return mod_route_table_named(app->route, name, create, id);
}

int
gufc_ctl_prule_apply(struct gufc_app *app, const struct gufc_prule *pr, bool add)
{
	struct mod_route_rule r = pr->r;
	int rc;

	if (r.action == MOD_ROUTE_ACT_TABLE) {
		rc = table_of(app, pr->table_name, r.table, false, &r.table);
		if (rc != 0)
			return rc;
	}
	if (add)
		return mod_route_rule_add(app->route, &r, pr->pref_given);
	if (!pr->pref_given) {
		/* `ip rule del` without pref: the first rule equal but for it. */
		struct mod_route_rule_info ri;
		uint32_t it = 0;

		while (mod_route_rule_next(app->route, &it, &ri) == 0) {
			if (ri.implicit)
				continue;
			r.pref = ri.r.pref;
			if (mod_route_rule_del(app->route, &r) == 0)
				return 0;
		}
		return -ENOENT;
	}
	return mod_route_rule_del(app->route, &r);
}

/* gufc_ctl_prule()'s call on the rules lcore. */
struct prule_call {
	const struct gufc_prule *pr;
	bool add;
};

static int
prule_fn(struct gufc_app *app, void *arg)
{
	const struct prule_call *c = arg;

	return gufc_ctl_prule_apply(app, c->pr, c->add);
}

int
gufc_ctl_prule(struct gufc_app *app, const struct gufc_prule *pr, bool add)
{
	struct prule_call c = { .pr = pr, .add = add };

	return gufc_ctl_call(app, prule_fn, &c);
}

int
gufc_router_prules(struct gufc_app *app)
{
	for (unsigned int i = 0; i < app->cfg.n_prules; i++) {
		const struct gufc_prule *pr = &app->cfg.prules[i];
		int rc = gufc_ctl_prule_apply(app, pr, true);

		if (rc != 0) {
			char line[256] = "";

			(void)mod_route_rule_format(app->route, &pr->r, line, sizeof(line));
			GUFC_LOG(ERR, "route-rule %s: %s", line,
				rc == -ENOENT ? "no such table" : strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Listings: shell, telemetry, JSON                                          */
/* ------------------------------------------------------------------------ */

/* What prule_rows_fn() collects on the rules lcore. */
struct prule_rows_arg {
	struct gufc_prule_row *rows;
	unsigned int n, max;
};

/* On the rules lcore; once it is gone (the summary, the JSON at exit) directly. */
static int
prule_call(struct gufc_app *app, gufc_ctl_fn fn, void *arg)
{
	if (__atomic_load_n(&app->phase, __ATOMIC_ACQUIRE) == GUFC_PHASE_DONE)
		return fn(app, arg);
	return gufc_ctl_call(app, fn, arg);
}

static int
prule_rows_fn(struct gufc_app *app, void *arg)
{
	struct prule_rows_arg *a = arg;
	struct mod_route_rule_info ri;
	uint32_t it = 0;

	while (a->n < a->max && mod_route_rule_next(app->route, &it, &ri) == 0) {
		struct gufc_prule_row *r = &a->rows[a->n++];

		r->pref = ri.r.pref;
		r->hits = ri.hits;
		r->implicit = ri.implicit;
		if (mod_route_rule_format(app->route, &ri.r, r->text, sizeof(r->text)) < 0)
			r->text[0] = '\0';
	}
	return 0;
}

int
gufc_collect_prule_rows(struct gufc_app *app, struct gufc_prule_row **rows, unsigned int *n,
	unsigned int max)
{
	struct prule_rows_arg a = { .max = max };
	int rc;

	*rows = NULL;
	*n = 0;
	a.rows = calloc(max ? max : 1, sizeof(*a.rows));
	if (a.rows == NULL)
		return -ENOMEM;
	rc = prule_call(app, prule_rows_fn, &a);
	if (rc != 0) {
		free(a.rows);
		return rc;
	}
	*rows = a.rows;
	*n = a.n;
	return 0;
}

int
gufc_show_route_rules(struct gufc_app *app, FILE *f)
{
	struct gufc_prule_row *rows;
	unsigned int n;
	int rc = gufc_collect_prule_rows(app, &rows, &n, GUFC_MAX_PRULES + 1);

	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%u:\t%s  hits %" PRIu64 "\n", rows[i].pref, rows[i].text, rows[i].hits);
	free(rows);
	return 0;
}

/* The routes of the other tables (or of one) into a memory stream, on the rules lcore. */
struct tables_dump_arg {
	const char *name;   /* one table: its name, or NULL */
	uint32_t table;     /* ... or its number (0: every other table) */
	char *buf;
	size_t len;
};

static int
tables_dump_fn(struct gufc_app *app, void *arg)
{
	struct tables_dump_arg *a = arg;
	FILE *f = open_memstream(&a->buf, &a->len);
	uint32_t it = 0, id, nr;
	int rc = 0;

	if (f == NULL)
		return -ENOMEM;
	if (a->name != NULL || a->table != 0) {
		id = a->table;
		if (a->name != NULL)
			rc = mod_route_table_named(app->route, a->name, false, &id);
		if (rc == 0)
			rc = mod_route_table_dump(app->route, id, f);
		if (rc == 0)
			fprintf(f, "no routes\n");
		rc = rc < 0 ? rc : 0;
	} else {
		while (mod_route_table_next(app->route, &it, &id, &nr) == 0) {
			const char *nm = mod_route_table_name(app->route, id);

			fprintf(f, "table %s%s%" PRIu32 "%s: %" PRIu32 " route%s\n",
				nm != NULL ? nm : "", nm != NULL && nm[0] ? " (" : "", id,
				nm != NULL && nm[0] ? ")" : "", nr, nr == 1 ? "" : "s");
			(void)mod_route_table_dump(app->route, id, f);
		}
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	return rc;
}

int
gufc_show_route_tables(struct gufc_app *app, const char *table, FILE *f)
{
	struct tables_dump_arg a = { 0 };
	char name[MOD_ROUTE_NAME_MAX];
	int rc;

	if (table != NULL) {
		if (gufc_route_table_arg(table, &a.table, name) != 0)
			return -EINVAL;
		if (a.table == 0 && name[0] == '\0')
			return gufc_show_routes(app, f); /* main */
		if (name[0] != '\0')
			a.name = name;
	}
	rc = prule_call(app, tables_dump_fn, &a);
	if (rc == 0 && a.buf != NULL)
		fputs(a.buf, f);
	free(a.buf);
	return rc;
}
