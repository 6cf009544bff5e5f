/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/gufc_shell.c — gufc's shell: the librte_cmdline prompt (-i), --script
 * FILE, and the dispatcher every command line goes through.
 *
 * One path for all: the cmdline instances below only give completion and
 * help for the command words; each joins the words it matched and hands the
 * line to gufc_shell_exec(), which tokenizes it, names the bad token on
 * error, and calls the control API (gufc_ctl_*, the libraries' *_format and
 * *_dump). --script runs the same function line by line. The prompt is
 * polled from the main lcore's loop (gufc_shell_poll(): poll(2) with a zero
 * timeout, then cmdline_in()), so the data path never waits for a human.
 *
 * Replaces the weak defaults of gufc_shell_hook.c. Context: main lcore.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>
#include <cmdline_socket.h>

#include "gufc_shell_priv.h"

int gufc_shell_logtype;

#define SH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, gufc_shell_logtype, "gufc.shell: " fmt "\n", ##__VA_ARGS__)

/** Shell state. Owner: the main lcore. */
static struct {
	struct gufc_app *app;
	struct cmdline *cl;
	bool tty;      /**< stdin is a terminal: raw mode, prompt and echo */
	int devnull;   /**< cmdline output when stdin is not a terminal */
	bool quit;     /**< "quit", EOF */
} sh = { .devnull = -1 };

/* ------------------------------------------------------------------------ */
/* Dispatcher                                                                */
/* ------------------------------------------------------------------------ */

static int sh_cmd_help(struct sh_ctx *c);

static int
sh_cmd_echo(struct sh_ctx *c)
{
	fprintf(c->out, "%s\n", sh_rest(c->l, 1));
	return 0;
}

static int
sh_cmd_quit(struct sh_ctx *c)
{
	if (c->l->n > 1)
		return sh_err(c, -EINVAL, c->l->tok[1], "quit takes no argument");
	if (sh_pending() != NULL)
		fprintf(c->out, "uncommitted rule changes discarded\n");
	sh.quit = true;
	c->app->quit = 1;
	return 0;
}

struct sh_cmd {
	const char *name;
	int (*fn)(struct sh_ctx *c);
	const char *usage;
};

static const struct sh_cmd sh_cmds[] = {
	{ "show", sh_cmd_show,
		"show stats|ports|neighbours|drops|channels|locals|routes|pending|offload|lcores|ipfix|log|recent\n"
		"show routes [table T]                main's routes, then each other table's (or table T's)\n"
		"show route-rules                     routing rules in order, with the new flows each routed\n"
		"show rules                           committed rules with packet/byte counters\n"
		"show rules iptables|ip6tables        the same as iptables-save -c writes it\n"
		"show flows [limit N] [filter] [MATCH...]   flows; MATCH: rule match words\n"
		"show flow TUPLE                      one flow, e.g. udp 10.0.0.1:53 -> 192.0.2.1:53" },
	{ "rule", sh_cmd_rule,
		"rule add [chain C] [pos N] RULE...   add to the pending set (pos: 1 = first)\n"
		"rule del ID                          delete from the pending set\n"
		"rule replace ID RULE...              replace in the pending set, keeping ID\n"
		"rule load native FILE                the pending set becomes FILE's\n"
		"rule load iptables|ip6tables FILE    FILE's rules and policies replace that family's" },
	{ "commit", sh_cmd_commit, "commit                               apply the pending set atomically" },
	{ "rollback", sh_cmd_rollback, "rollback                             discard the pending set" },
	{ "channel", sh_cmd_channel,
		"channel create NAME kind discard|pcap FILE|tx PORT[:QUEUE]|app [size N] [perflow]\n"
		"channel del NAME" },
	{ "local", sh_cmd_local, "local add|del PREFIX" },
	{ "route", sh_cmd_route,
		"route add [table T] PREFIX port N | route add [table T] PREFIX via GATEWAY\n"
		"route del [table T] PREFIX           T: a number, main, or a name (made by its first route)" },
	{ "route-rule", sh_cmd_prule,
		"route-rule add|del [pref P] [not] [from PFX] [to PFX] [fwmark V[/M]] [iif PORT]\n"
		"                   [ipproto P] [sport N[-M]] [dport N[-M]]\n"
		"                   table T|goto P|blackhole|unreachable|prohibit   as ip rule (show route-rules)" },
	{ "port", sh_cmd_port,
		"port N [name NAME] [address [add|del] PREFIX...] [mtu M]   e.g. port 1 address 10.0.2.1/24\n"
		"                                     (a new name reaches rules' -i/-o at the next commit)" },
	{ "set", sh_cmd_set, "set mode bridge|router                switch mode (cached flows are flushed)" },
	{ "flush", sh_cmd_flush, "flush flows                          remove every cached flow" },
	{ "log", sh_cmd_log, "log level TYPE LEVEL                 TYPE: gufc.app, gufc.*, ...; LEVEL: debug..emerg" },
	{ "echo", sh_cmd_echo, "echo TEXT" },
	{ "help", sh_cmd_help, "help [COMMAND]" },
	{ "quit", sh_cmd_quit, "quit                                 stop gufc (like SIGINT)" },
	{ "exit", sh_cmd_quit, NULL },
};

static int
sh_cmd_help(struct sh_ctx *c)
{
	for (unsigned int i = 0; i < RTE_DIM(sh_cmds); i++) {
		if (sh_cmds[i].usage == NULL)
			continue;
		if (c->l->n > 1 && strcmp(c->l->tok[1], sh_cmds[i].name) != 0)
			continue;
		fprintf(c->out, "%s\n", sh_cmds[i].usage);
		if (c->l->n > 1)
			return 0;
	}
	if (c->l->n > 1)
		return sh_err(c, -ENOENT, c->l->tok[1], "no such command");
	fprintf(c->out, "Rule edits go to a pending copy of the rule set; 'commit' applies it.\n");
	return 0;
}

static int
sh_exec(struct gufc_app *app, const char *line, FILE *out, const char *where)
{
	struct sh_line *l;
	struct sh_ctx c;
	unsigned int bad = 0;
	int rc;

	c.app = app;
	c.out = out;
	c.where = where;
	if (strlen(line) >= SH_LINE_MAX) {
		c.l = NULL;
		return sh_err(&c, -E2BIG, NULL, "line longer than %u characters", SH_LINE_MAX - 1);
	}
	l = malloc(sizeof(*l));
	if (l == NULL)
		return sh_err(&c, -ENOMEM, NULL, "out of memory");
	c.l = l;
	snprintf(l->copy, sizeof(l->copy), "%s", line);
	for (size_t n = strlen(l->copy); n > 0 && strchr(" \t\r\n", l->copy[n - 1]) != NULL; n--)
		l->copy[n - 1] = '\0';
	line = l->copy;
	rc = sh_tokenize(line, l, &bad);
	if (rc != 0) {
		rc = sh_err(&c, rc, line + bad, rc == -E2BIG ? "too many or too long words" :
			"unterminated quote");
		goto out;
	}
	if (l->n == 0)
		goto out;
	for (unsigned int i = 0; i < RTE_DIM(sh_cmds); i++)
		if (strcmp(l->tok[0], sh_cmds[i].name) == 0) {
			SH_LOG(DEBUG, "%s%s", where, line);
			rc = sh_cmds[i].fn(&c);
			goto out;
		}
	rc = sh_err(&c, -ENOENT, l->tok[0], "unknown command (try 'help')");
out:
	fflush(out);
	free(l);
	return rc;
}

int
gufc_shell_exec(struct gufc_app *app, const char *line, FILE *out)
{
	return sh_exec(app, line, out, "");
}

/* ------------------------------------------------------------------------ */
/* --script                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Run a script: each line as typed at the prompt. The first failing line
 * stops the script and gufc (exit status 2); what earlier lines committed
 * stays, uncommitted edits are dropped.
 */
static int
sh_script(struct gufc_app *app, const char *path)
{
	struct lex_error err;
	struct lex_reader rd;
	char msg[LEX_ERR_FILE_MAX + LEX_ERR_MSG_MAX + 16];
	char *text, *line;
	int rc = 0;

	text = lex_file_read(path, &err);
	if (text == NULL) {
		rc = -errno;
		lex_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "gufc: --script %s\n", msg);
		return rc;
	}
	lex_reader_init(&rd, text);
	while (!sh.quit && (rc = lex_reader_next(&rd, &line, NULL)) == 1) {
		char where[GUFC_PATH_MAX + 32];

		snprintf(where, sizeof(where), "%s:%u: ", path, rd.line);
		rc = sh_exec(app, line, stdout, where);
		if (rc != 0) {
			fprintf(stderr, "gufc: %s:%u: script stopped\n", path, rd.line);
			break;
		}
	}
	if (rc == 1)
		rc = 0; /* stopped by 'quit' */
	lex_reader_fini(&rd);
	free(text);
	if (rc == 0 && sh_pending() != NULL)
		printf("%s: warning: uncommitted rule changes (type 'commit')\n", path);
	fflush(stdout);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* cmdline: completion and help for the command words                        */
/* ------------------------------------------------------------------------ */

struct sh_res {
	cmdline_fixed_string_t w0;
	cmdline_fixed_string_t w1;
	cmdline_multi_string_t rest;
};

#define SH_W0 0x1
#define SH_W1 0x2
#define SH_REST 0x4

/* Every instance lands here: join the matched words, run the line. */
static void
sh_cl_cb(void *res, struct cmdline *cl, void *data)
{
	const struct sh_res *r = res;
	unsigned int mask = (unsigned int)(uintptr_t)data;
	char line[sizeof(r->w0) + sizeof(r->w1) + sizeof(r->rest) + 4];

	RTE_SET_USED(cl);
	snprintf(line, sizeof(line), "%s%s%s%s%s", (mask & SH_W0) ? r->w0 : "",
		(mask & SH_W1) ? " " : "", (mask & SH_W1) ? r->w1 : "",
		(mask & SH_REST) && (mask & SH_W0) ? " " : "", (mask & SH_REST) ? r->rest : "");
	gufc_shell_exec(sh.app, line, stdout);
	if (sh.quit && sh.cl != NULL)
		cmdline_quit(sh.cl);
}

/*
 * The specific instances exist for completion and help only: each ends in
 * this token, which never parses, so that at execution only the catch-all
 * instance (last) matches (cmdline refuses a line two instances match) and
 * gufc_shell_exec() names the bad word of any line.
 */
static int
sh_end_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res, unsigned int size)
{
	RTE_SET_USED(tk);
	RTE_SET_USED(buf);
	RTE_SET_USED(res);
	RTE_SET_USED(size);
	return -1;
}

static int
sh_end_nb(cmdline_parse_token_hdr_t *tk)
{
	RTE_SET_USED(tk);
	return 0;
}

static int
sh_end_help(cmdline_parse_token_hdr_t *tk, char *buf, unsigned int size)
{
	RTE_SET_USED(tk);
	snprintf(buf, size, "[end]");
	return 0;
}

static struct cmdline_token_ops sh_end_ops = {
	.parse = sh_end_parse,
	.complete_get_nb = sh_end_nb,
	.get_help = sh_end_help,
};
static cmdline_parse_token_hdr_t t_end = { .ops = &sh_end_ops, .offset = 0 };

#define SH_TOK(var, field, str) \
	static cmdline_parse_token_string_t var = TOKEN_STRING_INITIALIZER(struct sh_res, field, str)

SH_TOK(t_show, w0, "show");
SH_TOK(t_show_what, w1,
	"stats#ports#neighbours#neighbors#flows#flow#rules#channels#drops#locals#routes#route-rules#pending#"
	"offload#lcores#ipfix#log");
SH_TOK(t_rule, w0, "rule");
SH_TOK(t_rule_op, w1, "add#del#replace#load");
SH_TOK(t_commit, w0, "commit");
SH_TOK(t_rollback, w0, "rollback");
SH_TOK(t_channel, w0, "channel");
SH_TOK(t_channel_op, w1, "create#del");
SH_TOK(t_local, w0, "local");
SH_TOK(t_addel, w1, "add#del");
SH_TOK(t_route, w0, "route");
SH_TOK(t_prule, w0, "route-rule");
SH_TOK(t_port, w0, "port");
SH_TOK(t_flush, w0, "flush");
SH_TOK(t_set, w0, "set");
SH_TOK(t_flows, w1, "flows");
SH_TOK(t_log, w0, "log");
SH_TOK(t_level, w1, "level");
SH_TOK(t_echo, w0, "echo");
SH_TOK(t_help, w0, "help");
SH_TOK(t_quit, w0, "quit#exit");
SH_TOK(t_rest, rest, TOKEN_STRING_MULTI);

#define SH_INST(var, mask, help, ...) \
	static cmdline_parse_inst_t var = { \
		.f = sh_cl_cb, \
		.data = (void *)(uintptr_t)(mask), \
		.help_str = help, \
		.tokens = { __VA_ARGS__, &t_end, NULL }, \
	}

SH_INST(i_show, SH_W0 | SH_W1,
	"show stats|ports|neighbours|rules|channels|drops|locals|routes|route-rules|pending | "
	"show flows [limit N] [filter] [MATCH...] | show flow TUPLE",
	(void *)&t_show, (void *)&t_show_what);
SH_INST(i_rule, SH_W0 | SH_W1 | SH_REST,
	"rule add [chain C] [pos N] RULE | rule del ID | rule replace ID RULE | "
	"rule load native|iptables|ip6tables FILE",
	(void *)&t_rule, (void *)&t_rule_op, (void *)&t_rest);
SH_INST(i_commit, SH_W0, "commit: apply the pending rule set", (void *)&t_commit);
SH_INST(i_rollback, SH_W0, "rollback: discard the pending rule set", (void *)&t_rollback);
SH_INST(i_channel, SH_W0 | SH_W1 | SH_REST,
	"channel create NAME kind discard|pcap FILE|tx PORT[:Q]|app [size N] [perflow] | channel del NAME",
	(void *)&t_channel, (void *)&t_channel_op, (void *)&t_rest);
SH_INST(i_local, SH_W0 | SH_W1 | SH_REST, "local add|del PREFIX", (void *)&t_local,
	(void *)&t_addel, (void *)&t_rest);
SH_INST(i_route, SH_W0 | SH_W1 | SH_REST,
	"route add PREFIX port N | route add PREFIX via GATEWAY | route del PREFIX",
	(void *)&t_route, (void *)&t_addel, (void *)&t_rest);
SH_INST(i_prule, SH_W0 | SH_W1 | SH_REST,
	"route-rule add|del [pref P] [not] [from PFX] [to PFX] [fwmark V[/M]] [iif PORT] "
	"[ipproto P] [sport N[-M]] [dport N[-M]] table T|goto P|blackhole|unreachable|prohibit",
	(void *)&t_prule, (void *)&t_addel, (void *)&t_rest);
SH_INST(i_port, SH_W0 | SH_REST, "port N [name NAME] [address [add|del] PREFIX...] [mtu M]",
	(void *)&t_port, (void *)&t_rest);
SH_INST(i_set, SH_W0 | SH_REST, "set mode bridge|router", (void *)&t_set, (void *)&t_rest);
SH_INST(i_flush, SH_W0 | SH_W1, "flush flows: remove every cached flow", (void *)&t_flush,
	(void *)&t_flows);
SH_INST(i_log, SH_W0 | SH_W1 | SH_REST, "log level TYPE LEVEL", (void *)&t_log,
	(void *)&t_level, (void *)&t_rest);
SH_INST(i_echo, SH_W0 | SH_REST, "echo TEXT", (void *)&t_echo, (void *)&t_rest);
SH_INST(i_help, SH_W0, "help [COMMAND]: usage", (void *)&t_help);
SH_INST(i_quit, SH_W0, "quit: stop gufc", (void *)&t_quit);
/* Last: the one that runs every line (see t_end). */
static cmdline_parse_inst_t i_any = {
	.f = sh_cl_cb,
	.data = (void *)(uintptr_t)SH_REST,
	.help_str = "",
	.tokens = { (void *)&t_rest, NULL },
};

static cmdline_parse_ctx_t sh_ctx_list[] = {
	&i_show, &i_rule, &i_commit, &i_rollback, &i_channel, &i_local, &i_route, &i_prule, &i_port,
	&i_set, &i_flush, &i_log, &i_echo, &i_help, &i_quit, &i_any, NULL,
};

/* ------------------------------------------------------------------------ */
/* Hooks (app/gufc_shell_hook.c documents the contract)                      */
/* ------------------------------------------------------------------------ */

int
gufc_shell_start(struct gufc_app *app, const char *script, bool interactive)
{
	int rc;

	sh.app = app;
	if (gufc_shell_logtype == 0)
		gufc_shell_logtype = rte_log_register_type_and_pick_level("gufc.shell",
			RTE_LOG_INFO);
	if (script != NULL) {
		rc = sh_script(app, script);
		if (rc != 0) {
			sh_pending_free();
			app->exit_code = 2;
			app->quit = 1;
			return 0; /* reported; gufc stops */
		}
	}
	if (!interactive || sh.quit)
		return 0;
	sh.tty = isatty(STDIN_FILENO) != 0;
	if (sh.tty) {
		printf("gufc shell: 'help' lists the commands, TAB completes, 'quit' stops gufc\n");
		fflush(stdout);
		sh.cl = cmdline_stdin_new(sh_ctx_list, "gufc> ");
	} else {
		/* A pipe: no prompt, no echo; command output still goes to stdout. */
		sh.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (sh.devnull < 0)
			return -errno;
		sh.cl = cmdline_new(sh_ctx_list, "", STDIN_FILENO, sh.devnull);
	}
	if (sh.cl == NULL) {
		SH_LOG(ERR, "cannot start the prompt");
		return -ENOMEM;
	}
	return 0;
}

int
gufc_shell_poll(struct gufc_app *app)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[256];
	ssize_t n;

	RTE_SET_USED(app);
	if (sh.quit)
		return -1;
	if (sh.cl == NULL)
		return 0;
	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0) {
		SH_LOG(INFO, "end of input: stopping");
		sh.quit = true;
		return -1;
	}
	if (cmdline_in(sh.cl, buf, (int)n) < 0 || sh.quit)
		return -1;
	return 1;
}

void
gufc_shell_stop(struct gufc_app *app)
{
	RTE_SET_USED(app);
	if (sh.cl != NULL) {
		if (sh.tty)
			cmdline_stdin_exit(sh.cl);
		else
			cmdline_free(sh.cl);
		sh.cl = NULL;
	}
	if (sh.devnull >= 0) {
		close(sh.devnull);
		sh.devnull = -1;
	}
	sh_pending_free();
}
