/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/tools/gufc_eval.c — gufc-eval: what a native rule file decides for
 * flow keys, by the reference evaluator (rule_ref_filter(), the oracle the
 * compiled classifier and the cached verdicts are checked against).
 *
 *   gufc-eval [--ctstate STATE] RULES < KEYS
 *
 * Each input line starts with a flow key in the text form of `show flows`
 * and `show flow` (fc_key_format(): "udp 10.0.0.1:1234 -> 192.0.2.1:53
 * src_local=0 dst_local=1 in_port=0"); whatever follows the key on the
 * line (the rest of a `show flows` line) is ignored. Each line gets one
 * output line: "accept|drop rule=ID|policy channel=NAME" (NAME "-" for the
 * default channel), or "error: ..." for a line that is no key. The filter
 * table's hook follows from the key's local bits, as for the engine.
 *
 * --ctstate gives the connection state the rules see (new, established,
 * related, invalid, untracked; default new): rules that match on it decide
 * as they would for a connection in that state.
 *
 * Pure C: no EAL. Exit status 0, 1 (the rule file did not load), 2 (bad
 * arguments). Used by scripts/soak.sh to check sampled cached verdicts.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowcache.h"
#include "rule_eval.h"
#include "rule_lang.h"
#include "rules.h"

#define EVAL_LINE_MAX 4096

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [--ctstate new|established|related|invalid|untracked] RULES < KEYS\n"
		"Print the reference evaluator's filter verdict for each flow key on stdin\n"
		"(the text form of 'show flows': \"udp 10.0.0.1:1234 -> 192.0.2.1:53 src_local=0\n"
		"dst_local=0 in_port=0\", anything after the key ignored), one line each:\n"
		"\"accept|drop rule=ID|policy channel=NAME\".\n",
		prog);
}

static int
ctstate_parse(const char *s, unsigned int *out)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} states[] = {
		{ "new", RULE_CT_NEW },
		{ "established", RULE_CT_ESTABLISHED },
		{ "related", RULE_CT_RELATED },
		{ "invalid", RULE_CT_INVALID },
		{ "untracked", RULE_CT_UNTRACKED },
	};

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (strcmp(s, states[i].name) == 0) {
			*out = states[i].bit;
			return 0;
		}
	return -EINVAL;
}

/* Cut @p line after the key's last field (in_port=N, else the addresses). */
static void
key_cut(char *line)
{
	char *p = strstr(line, "in_port=");
	char *nl;

	if (p != NULL) {
		p += strlen("in_port=");
		while (*p >= '0' && *p <= '9')
			p++;
		*p = '\0';
		return;
	}
	nl = strpbrk(line, "\r\n");
	if (nl != NULL)
		*nl = '\0';
}

int
main(int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "gufc-eval";
	unsigned int ctstate = RULE_CT_NEW;
	const char *path = NULL;
	char line[EVAL_LINE_MAX];
	struct rule_error err;
	struct rule_set *set;
	unsigned long lineno = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout, prog);
			return 0;
		}
		if (strcmp(argv[i], "--ctstate") == 0) {
			if (i + 1 >= argc || ctstate_parse(argv[i + 1], &ctstate) != 0) {
				fprintf(stderr, "gufc-eval: --ctstate: expected new, established, "
						"related, invalid or untracked\n");
				return 2;
			}
			i++;
			continue;
		}
		if (argv[i][0] == '-' || path != NULL) {
			fprintf(stderr, "gufc-eval: unexpected argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
		path = argv[i];
	}
	if (path == NULL) {
		usage(stderr, prog);
		return 2;
	}
	memset(&err, 0, sizeof(err));
	set = rule_set_load(path, &err);
	if (set == NULL) {
		fprintf(stderr, "gufc-eval: %s:%u:%u: %s '%s'\n", err.file[0] ? err.file : path,
			err.line, err.col, err.msg[0] ? err.msg : strerror(errno), err.token);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		struct rule_result res;
		struct fc_key k;
		size_t pos = 0;
		int rc;

		lineno++;
		key_cut(line);
		if (fc_key_parse(line, &k, &pos) != 0) {
			printf("error: line %lu: not a flow key at offset %zu\n", lineno, pos);
			continue;
		}
		memset(&res, 0, sizeof(res));
		rc = rule_ref_filter(set, &k, ctstate, 0, &res);
		if (rc != 0) {
			printf("error: line %lu: evaluation failed: %s\n", lineno, strerror(-rc));
			continue;
		}
		if (res.rule_id == RULE_ID_POLICY)
			printf("%s rule=policy channel=%s\n",
				res.verdict == RULE_VERDICT_ACCEPT ? "accept" : "drop",
				res.channel[0] ? res.channel : "-");
		else
			printf("%s rule=%u channel=%s\n",
				res.verdict == RULE_VERDICT_ACCEPT ? "accept" : "drop",
				(unsigned int)res.rule_id, res.channel[0] ? res.channel : "-");
	}
	fflush(stdout);
	rule_set_free(set);
	return ferror(stdout) ? 1 : 0;
}
