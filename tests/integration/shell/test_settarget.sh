#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# -j SET on the real gufc binary: every UDP source is added to an ipset
# loaded with --ipset, flows to port 443 from a member then dropped by a
# later -m set rule; the stats JSON and "show recent" count the members
# added, each source once (a re-add of a live member changes nothing).
. "$(dirname "$0")/lib.sh"

"$GEN" -o "$W/in.pcap" -n 8 -p 60 --mix udp=100 --no-replies --seed 1 \
	--flows-file "$W/flows.txt" > /dev/null || fail "gufc-gen"
seen=$(awk '!/^#/ { split($3, a, ":"); s[a[1]] = 1 } END { print length(s) }' "$W/flows.txt")
[ "$seen" -gt 0 ] || fail "generator gave no flows"
printf 'create SEEN hash:ip family inet\n' > "$W/sets.txt"
printf '%s\n' 'set proto udp add_set SEEN src' 'drop proto udp dport 443 match_set SEEN src' \
	'accept proto udp' > "$W/rules.txt"
printf 'show recent\n' > "$W/s.txt"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out.pcap") -- --ipset "$W/sets.txt" --rules "$W/rules.txt" \
	--script "$W/s.txt" \
	--idle-exit 300 --stats-json "$W/st.json" > "$W/out.txt" 2>&1 || fail "gufc exit status $?"
grep -q "does not change the ipsets" "$W/out.txt" && fail "the old SET warning is still given"
# The script's "show recent" may run while packets are still read: its line, not its numbers.
grep -Eq "^ipsets changed by -j SET: [0-9]+ added, 0 deleted, 0 failed" "$W/out.txt" ||
	fail "show recent does not count the SET changes"
[ "$(json_get "$W/st.json" "j['ipset_target']['added']")" = "$seen" ] ||
	fail "SET added not $seen members"
[ "$(json_get "$W/st.json" "j['ipset_target']['failed']")" = "0" ] || fail "SET failures"
# Every packet to 443 finds its source added (by its own walk, before the match).
drops=$(awk '!/^#/ && $5 ~ /:443$/ { sub("frames=", "", $10); n += $10 } END { print n + 0 }' \
	"$W/flows.txt")
[ "$drops" -gt 0 ] || fail "generator gave no flows to 443"
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "$drops" ] || fail "filter drops != $drops"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
# No rules file: the shell's rules find the loaded ipsets too.
printf 'rule add drop proto udp dport 443 match_set SEEN src\ncommit\n' > "$W/s2.txt"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out2.pcap") -- --ipset "$W/sets.txt" --script "$W/s2.txt" \
	--idle-exit 300 > "$W/out2.txt" 2>&1 || fail "gufc exit status $? (no rules file)"
grep -q "no such ipset" "$W/out2.txt" && fail "the shell's rule did not find the ipset"
grep -q "committed" "$W/out2.txt" || fail "the shell's rule naming an ipset was not committed"
echo "PASS"
