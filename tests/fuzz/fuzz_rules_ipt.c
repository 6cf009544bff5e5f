/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_rules_ipt.c — libFuzzer target for the iptables-save
 * importer (rule_set_parse_iptables()).
 *
 * Each input is an iptables-save file or iptables-restore input (and is
 * also read as an "ipset save" file, which must not crash either). An
 * import must never crash or leak; a refusal says EINVAL with a line of the
 * text, a column and a message (or ENOMEM), and the same refusal comes
 * without an error report or with the family the import settled on; an
 * accepted set has every rule of one family, every hook-claiming chain
 * named after its netfilter chain, is valid rule by rule, survives the
 * native language (equal set, same text, same evaluation on keys and on
 * packet contexts through every stage) and the iptables export of its
 * family (written back and read again: the same native text). A set
 * without rules has the family its policies say (an "ip6tables-save"
 * header's file keeps IPv6 policies, which only the ip6tables export
 * carries).
 */
#include "fuzz_rules_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const hook_chain[RULE_HOOK__COUNT] = {
	[RULE_HOOK_PREROUTING] = "PREROUTING", [RULE_HOOK_INPUT] = "INPUT",
	[RULE_HOOK_FORWARD] = "FORWARD", [RULE_HOOK_OUTPUT] = "OUTPUT",
	[RULE_HOOK_POSTROUTING] = "POSTROUTING",
};

/* Every rule of one family; returns it (0 for a set without rules). */
static unsigned int
check_imported(const struct rule_set *s)
{
	unsigned int family = 0;

	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++)
		for (unsigned int i = 0; i < rule_set_chain_count(s, t); i++) {
			const struct rule_chain *c = rule_set_chain_at(s, t, i);

			CHECK(!c->builtin || c->n_rules == 0);
			for (unsigned int h = 0; h < RULE_HOOK__COUNT; h++)
				if (c->hooks & RULE_HOOK_F(h))
					CHECK((rule_table_hooks(t) & RULE_HOOK_F(h)) &&
						strcmp(c->name, hook_chain[h]) == 0);
			for (uint32_t j = 0; j < c->n_rules; j++) {
				const struct rule *r = &c->rules[j];

				CHECK(r->family == FC_AF_INET4 || r->family == FC_AF_INET6);
				CHECK(family == 0 || family == r->family);
				family = r->family;
				CHECK(r->src_local == RULE_LOCAL_ANY &&
					r->dst_local == RULE_LOCAL_ANY);
				CHECK(r->channel[0] == '\0');
			}
		}
	return family;
}

/* The same rule count, chains and policies (both families). */
static int
same_policies(const struct rule_set *a, const struct rule_set *b)
{
	if (rule_set_rule_count(a) != rule_set_rule_count(b))
		return 0;
	for (unsigned int t = 0; t < RULE_TABLE__COUNT; t++) {
		if (rule_set_chain_count(a, t) != rule_set_chain_count(b, t))
			return 0;
		for (unsigned int i = 0; i < rule_set_chain_count(a, t); i++) {
			const struct rule_chain *ca = rule_set_chain_at(a, t, i);
			const struct rule_chain *cb = rule_set_chain_at(b, t, i);

			if (strcmp(ca->name, cb->name) != 0 || ca->policy != cb->policy ||
				ca->policy6 != cb->policy6)
				return 0;
		}
	}
	return 1;
}

/*
 * The family a set without rules was read as: only its policies say (an
 * "ip6tables-save" header gives IPv4 ACCEPT and the file's IPv6 policies).
 * The family's export is the one that carries them. 0: either (the
 * policies read the same as IPv4 and as IPv6).
 */
static unsigned int
policy_family(const struct rule_set *s, const char *text)
{
	static const unsigned int fams[] = {FC_AF_INET4, FC_AF_INET6};
	unsigned int found = 0, n = 0;

	for (unsigned int i = 0; i < 2; i++) {
		struct rule_set *f = rule_set_parse_iptables_af(text, NULL, fams[i], NULL);

		/* Its "-6" lines, skipped as IPv4, may not read as IPv6. */
		if (f != NULL && same_policies(s, f)) {
			found = fams[i];
			n++;
		}
		rule_set_free(f);
	}
	/* Naming the family it settled on changes nothing. */
	CHECK(n > 0);
	return n == 1 ? found : 0;
}

/* Written back as iptables-save text and read again: the same set, in native words. */
static void
check_export(const struct rule_set *s, unsigned int family)
{
	size_t len = 1 << 16;
	struct rule_set *back;
	char *buf, *t1, *t2;
	int n;

	for (;;) {
		buf = malloc(len);
		CHECK(buf != NULL);
		n = rule_set_format_iptables(s, family, buf, len);
		if (n >= 0)
			break;
		CHECK(n == -ENOSPC && len < (1u << 28));
		free(buf);
		len *= 2;
	}
	back = rule_set_parse_iptables_opts(buf, "export",
		&(struct rule_ipt_opts){.family = family, .sets = NULL}, NULL);
	CHECK(back != NULL);
	fz_check_eval(s, back, (const uint8_t *)buf, (size_t)n);
	/* A file without *filter imports to gufc's defaults; the export writes *filter. */
	if (rule_set_chain_find(s, RULE_TABLE_FILTER, "INPUT") != NULL) {
		t1 = fz_format(s);
		t2 = fz_format(back);
		CHECK(strcmp(t1, t2) == 0);
		free(t1);
		free(t2);
	}
	free(buf);
	rule_set_free(back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_error err;
	struct rule_set *s, *again;
	char *text = fz_text(data, size);
	unsigned int family;
	int e;

	{
		/* The same text as an ipset file: never a crash, a refusal says where. */
		struct rule_ipsets *sets = rule_ipsets_parse(text, "fuzz", 1000, &err);

		if (sets == NULL && errno == EINVAL)
			fz_check_error(&err, EINVAL, text);
		rule_ipsets_free(sets);
	}
	s = rule_set_parse_iptables(text, "fuzz", &err);
	e = errno;
	again = rule_set_parse_iptables(text, NULL, NULL);
	CHECK((s == NULL) == (again == NULL));
	if (s == NULL) {
		fz_check_error(&err, e, text);
		goto out;
	}
	fz_check_equal(s, again);
	family = check_imported(s);
	if (family == 0)
		family = policy_family(s, text);
	if (family != 0) {
		/* Naming the family it settled on changes nothing. */
		struct rule_set *f = rule_set_parse_iptables_af(text, NULL, family, NULL);

		CHECK(f != NULL);
		fz_check_equal(s, f);
		rule_set_free(f);
	}
	fz_check_roundtrip(s, data, size);
	check_export(s, family ? family : FC_AF_INET4);
out:
	rule_set_free(s);
	rule_set_free(again);
	free(text);
	return 0;
}
