#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --script: a rule added and committed by the script before traffic decides
# every packet of the flows it matches (drop counter, rule counter, TX pcap);
# a bad line names the line and the token, stops the script and gufc (exit
# status 2) and applies nothing of itself nor of the uncommitted lines before;
# a rule with a 64-instruction bpf program (past a rule's own bytes: the
# pending set holds it) is added, shown back and decides as the short one.
. "$(dirname "$0")/lib.sh"

"$GEN" -o "$W/in.pcap" -n 6 -p 60 --mix udp=100 --no-replies --seed 1 \
	--flows-file "$W/flows.txt" > /dev/null || fail "gufc-gen"
total=$(awk '!/^#/ { sub("frames=", "", $10); n += $10 } END { print n }' "$W/flows.txt")
dns=$(awk '!/^#/ && $5 ~ /:53$/ { sub("frames=", "", $10); n += $10 } END { print n + 0 }' \
	"$W/flows.txt")
[ "$dns" -gt 0 ] && [ "$dns" -lt "$total" ] || fail "generator gave $dns of $total to port 53"

# 1. One lcore: the script runs before the main loop polls RX; packets read
#    while the commit is applied are decided after it.
printf '%s\n' '# drop DNS' 'rule add drop proto udp dport 53' 'show pending' 'commit' \
	'show rules' > "$W/s1.txt"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out.pcap") -- --script "$W/s1.txt" --idle-exit 300 \
	--stats-json "$W/st.json" > "$W/out.txt" 2>&1 || fail "gufc exit status $?"
grep -q "^committed: generation" "$W/out.txt" || fail "no commit acknowledgement"
[ "$(json_get "$W/st.json" "j['rx']")" = "$total" ] || fail "rx"
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "$dns" ] || fail "filter drops != $dns"
[ "$(json_get "$W/st.json" "[r['packets'] for r in j['rules'] if r['rule'] == 'drop proto udp dport 53'][0]")" = "$dns" ] ||
	fail "rule counter != $dns"
[ "$(pcap_count "$W/out.pcap")" = "$((total - dns))" ] || fail "TX pcap != $((total - dns))"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"

# 2. A bad line: named with its line and token; nothing of it nor of the
#    uncommitted edit before it applies; exit status 2.
printf '%s\n' 'show stats' 'rule add drop proto udp dport 53' 'rule add drop proto udpx' \
	'commit' > "$W/s2.txt"
rm -f "$W/st.json"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out2.pcap") -- --script "$W/s2.txt" --idle-exit 300 \
	--stats-json "$W/st.json" > "$W/out.txt" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "exit status $rc, expected 2"
grep -qF "s2.txt:3: error: rule: unknown protocol: 'udpx'" "$W/out.txt" ||
	fail "error does not name line 3 and 'udpx'"
grep -q "^committed" "$W/out.txt" && fail "the script went on after the error"
[ "$(json_get "$W/st.json" "len(j['rules'])")" = "0" ] || fail "a rule was applied"
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "0" ] || fail "packets were dropped"

# 3. xt_bpf's longest program (64 instructions, returning 1) through rule add.
prog="64$(for i in $(seq 1 63); do printf ',0 0 0 %u' $((4000000000 + i)); done),6 0 0 1"
rule="drop proto udp dport 53 bpf_bytecode \"$prog\""
printf '%s\n' "rule add $rule" 'commit' 'show rules' > "$W/s3.txt"
rm -f "$W/st.json"
# shellcheck disable=SC2046
"$GUFC" $(eal_args "$W/in.pcap" "$W/out3.pcap") -- --script "$W/s3.txt" --idle-exit 300 \
	--stats-json "$W/st.json" > "$W/out.txt" 2>&1 || fail "long program: gufc exit status $?"
grep -qF "$prog" "$W/out.txt" || { cat "$W/out.txt" | cut -c1-300; fail "show rules does not show the program back"; }
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "$dns" ] || fail "long program: filter drops != $dns"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "long program: accounting"
echo "PASS"
