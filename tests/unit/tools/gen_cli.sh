#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/unit/tools/gen_cli.sh — the gufc-gen binary end to end: the same
# seed writes a byte-identical pcap and another seed a different one; the
# flow list has one line per flow; bad arguments exit 2 with a message naming
# the argument; --help exits 0 and documents every option.
#
# Usage: gen_cli.sh PATH/TO/gufc-gen

set -u
gen="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

common="-n 50 -p 500 --ipv6 20 --vlan 10 --qinq 10 --frag 50 --rst 20 --zipf 1"

# shellcheck disable=SC2086
"$gen" -o "$tmp/a.pcap" $common --seed 7 --flows-file "$tmp/a.flows" 2>"$tmp/a.err" ||
	fail "run a: $(cat "$tmp/a.err")"
# shellcheck disable=SC2086
"$gen" -o "$tmp/b.pcap" $common --seed 7 2>/dev/null || fail "run b"
# shellcheck disable=SC2086
"$gen" -o "$tmp/c.pcap" $common --seed 8 2>/dev/null || fail "run c"
cmp -s "$tmp/a.pcap" "$tmp/b.pcap" || fail "same seed, different pcaps"
cmp -s "$tmp/a.pcap" "$tmp/c.pcap" && fail "different seeds, same pcap"
grep -q "^gufc-gen: wrote [0-9]* packets" "$tmp/a.err" || fail "no summary: $(cat "$tmp/a.err")"
[ "$(grep -vc '^#' "$tmp/a.flows")" -eq 50 ] || fail "flows file: not 50 flows"
magic=$(od -An -tx1 -N4 "$tmp/a.pcap" | tr -d ' ')
[ "$magic" = "d4c3b2a1" ] || fail "not a pcap (magic $magic)"

"$gen" -o "$tmp/bench.pcap" --bench -n 10 -p 30 2>/dev/null || fail "bench run"
# 24-byte file header, then 30 x (16-byte record header + 64-byte frame)
[ "$(wc -c <"$tmp/bench.pcap")" -eq $((24 + 30 * 80)) ] || fail "bench: wrong size"

# bad arguments: exit 2, the message names the argument
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$gen" -o "$tmp/x.pcap" $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "'$args': exit $rc, want 2"
	grep -qF -- "$want" "$tmp/err" || fail "'$args': message does not name '$want': $(cat "$tmp/err")"
done <<'CASES'
-n 0|-n/--flows '0'
--ipv6 150|--ipv6 '150'
--mix tcp=1,xyz=3|unknown kind 'xyz'
--src 10.0.0.0/40|--src '10.0.0.0/40'
--dport-set 22,abc|'abc' is not a port
--size 5-1|--size '5-1'
--rtt 0|--rtt '0'
--nope|'--nope'
-n 10 -p 5|-p/--packets 5
--bench --ipv6 10|--bench
--vlan 70 --qinq 40|--vlan 70 + --qinq 40
-n 30000 --mix udp=1 --src 10.0.0.1/32 --dst 10.0.0.2/32 --dport-set 53|distinct
CASES
"$gen" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF -- "-o/--output" "$tmp/err" || fail "missing -o not reported"

"$gen" --help >"$tmp/help" || fail "--help exit status"
for o in --output --flows --packets --mix --ipv6 --vlan --qinq --frag --rst --zipf --seed \
	--size --rtt --src --dst --src6 --dst6 --dport-set --no-replies --mtu --flows-file --bench \
	--help; do
	grep -q -- "$o" "$tmp/help" || fail "--help does not document $o"
done
echo "gen_cli: ok"
