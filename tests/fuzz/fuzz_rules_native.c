/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/fuzz/fuzz_rules_native.c — libFuzzer target for the native rule
 * language (rule_set_parse()).
 *
 * Each input is a rule file. A parse must never crash or leak; a refusal
 * says EINVAL with a line of the text, a column and a message (or ENOMEM),
 * and the same refusal comes without an error report; an accepted set is
 * valid rule by rule, formats to text that parses back to an equal set
 * (and the same text), and evaluates every key like that copy.
 */
#include "fuzz_rules_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_error err;
	struct rule_set *s, *again;
	char *text = fz_text(data, size);
	int e;

	s = rule_set_parse(text, "fuzz", &err);
	e = errno;
	again = rule_set_parse(text, NULL, NULL);
	CHECK((s == NULL) == (again == NULL));
	if (s == NULL) {
		fz_check_error(&err, e, text);
	} else {
		fz_check_equal(s, again);
		fz_check_roundtrip(s, data, size);
	}
	rule_set_free(s);
	rule_set_free(again);
	free(text);
	return 0;
}
