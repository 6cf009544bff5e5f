#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/unit/tools/eval_cli.sh — the gufc-eval binary end to end: the
# reference evaluator's verdict, rule and channel for flow keys in the text
# form of `show flows` (rest of the line ignored), the hook from the local
# bits, ctstate-dependent rules under --ctstate; a line that is no key gets
# an error line of its own; a bad rule file exits 1 naming the place; bad
# arguments exit 2.
#
# Usage: eval_cli.sh PATH/TO/gufc-eval

set -u
ev="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cat > "$tmp/r.rules" <<'R'
accept channel app proto udp dport 53
drop proto tcp dport 23
accept proto tcp dport 22 ctstate established
drop proto tcp dport 22
accept
R
cat > "$tmp/keys" <<'K'
udp 10.0.0.1:4000 -> 192.0.2.1:53 src_local=0 dst_local=0 in_port=0 orig verdict=accept rule=0 channel=9 port=paired
tcp 10.0.0.1:4000 -> 192.0.2.1:23 src_local=0 dst_local=1 in_port=1
tcp [2001:db8::1]:5000 -> [2001:db8::2]:80 src_local=0 dst_local=0 in_port=0
tcp 10.0.0.1:4000 -> 192.0.2.1:22 src_local=0 dst_local=0 in_port=0
not a key
K
"$ev" "$tmp/r.rules" < "$tmp/keys" > "$tmp/out" 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
printf '%s\n' "accept rule=1 channel=app" "drop rule=2 channel=-" "accept rule=5 channel=-" \
	"drop rule=4 channel=-" > "$tmp/want4"
head -n 4 "$tmp/out" > "$tmp/got4"
cmp -s "$tmp/want4" "$tmp/got4" || fail "verdicts: $(cat "$tmp/out")"
sed -n 5p "$tmp/out" | grep -q '^error: line 5: not a flow key' || fail "bad line: $(sed -n 5p "$tmp/out")"
[ "$(wc -l < "$tmp/out")" -eq 5 ] || fail "one output line per input line"

echo "tcp 10.0.0.1:4000 -> 192.0.2.1:22 src_local=0 dst_local=0 in_port=0" |
	"$ev" --ctstate established "$tmp/r.rules" | grep -q '^accept rule=3 ' ||
	fail "--ctstate established"

printf 'accept proto tcp dport 99999\n' > "$tmp/bad.rules"
"$ev" "$tmp/bad.rules" < /dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "bad rule file: exit status"
grep -q 'bad.rules:1:' "$tmp/err" || fail "bad rule file: no place in '$(cat "$tmp/err")'"
"$ev" < /dev/null 2>/dev/null
[ $? -eq 2 ] || fail "no rule file: exit 2 expected"
"$ev" --ctstate bogus "$tmp/r.rules" < /dev/null 2>/dev/null
[ $? -eq 2 ] || fail "--ctstate bogus: exit 2 expected"
"$ev" --help | grep -q 'Usage' || fail "--help"
echo "gufc-eval: verdicts, rules, channels, hooks from the local bits, --ctstate, bad input"
