#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# -m hashlimit and -m recent state on the real gufc binary: a bucket of 4
# per source for UDP 443 (the rest of each such flow dropped by the next
# rule), every other UDP source set in a recent list; the stats JSON lists
# the list's addresses and the table's buckets; "show recent" prints them.
. "$(dirname "$0")/lib.sh"

"$GEN" -o "$W/in.pcap" -n 8 -p 60 --mix udp=100 --no-replies --seed 1 \
	--flows-file "$W/flows.txt" > /dev/null || fail "gufc-gen"
drops=$(awk '!/^#/ && $5 ~ /:443$/ { sub("frames=", "", $10); if ($10 > 4) n += $10 - 4 }
	END { print n + 0 }' "$W/flows.txt")
buckets=$(awk '!/^#/ && $5 ~ /:443$/ { split($3, a, ":"); s[a[1]] = 1 } END { print length(s) }' \
	"$W/flows.txt")
seen=$(awk '!/^#/ && $5 !~ /:443$/ { split($3, a, ":"); s[a[1]] = 1 } END { print length(s) }' \
	"$W/flows.txt")
[ "$drops" -gt 0 ] && [ "$seen" -gt 0 ] || fail "generator gave no 443 or no other flows"

printf '%s\n' \
	'rule add accept proto udp dport 443 hashlimit_upto 1/hour hashlimit_burst 4 hashlimit_mode srcip hashlimit_name H' \
	'rule add drop proto udp dport 443' \
	'rule add accept proto udp recent_set recent_name SEEN' \
	'commit' 'show recent' > "$W/s.txt"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out.pcap") -- --script "$W/s.txt" --idle-exit 300 \
	--stats-json "$W/st.json" > "$W/out.txt" 2>&1 || fail "gufc exit status $?"
# The script's "show recent" may run while packets are still read: its lines, not its numbers.
grep -Eq "^hashlimit H \(ipv4\): [0-9]+ buckets of at most 65536, rate 1/hour burst 4" \
	"$W/out.txt" || fail "show recent does not list the table"
grep -Eq "^(recent SEEN: [0-9]+ addresses|no recent lists)" "$W/out.txt" ||
	fail "show recent does not list the lists"
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "$drops" ] || fail "filter drops != $drops"
[ "$(json_get "$W/st.json" "j['hashlimit']['tables'][0]['buckets']")" = "$buckets" ] ||
	fail "hashlimit buckets != $buckets"
[ "$(json_get "$W/st.json" "j['recent']['lists'][0]['name']")" = "SEEN" ] || fail "no list SEEN"
[ "$(json_get "$W/st.json" "j['recent']['lists'][0]['entries']")" = "$seen" ] ||
	fail "SEEN holds not $seen addresses"
[ "$(json_get "$W/st.json" "len(j['recent']['lists'][0]['addresses'])")" = "$seen" ] ||
	fail "SEEN lists not $seen addresses"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
echo "PASS"
