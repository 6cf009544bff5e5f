#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-rule counters across a one-family reload: IPv4 and IPv6 UDP through an
# iptables and an ip6tables file, then "rule load iptables" of another IPv4
# file and "commit" at the prompt. The new IPv4 rules start at 0 (a reload
# starts over, as iptables-restore does); the IPv6 rules keep what they
# counted ("show rules ip6tables", iptables-save -c style), as ip6tables
# keeps its counters when iptables-restore loads a file on a Linux host.
. "$(dirname "$0")/lib.sh"

"$GEN" -o "$W/in.pcap" -n 12 -p 48 --mix udp=100 --ipv6 50 --no-replies --seed 3 \
	> /dev/null 2>&1 || fail "gufc-gen"
total=$(pcap_count "$W/in.pcap")
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD DROP [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'-A FORWARD -p udp -j ACCEPT' 'COMMIT' > "$W/v4.rules"
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD DROP [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'-A FORWARD -p udp -m comment --comment v4b -j ACCEPT' 'COMMIT' > "$W/v4b.rules"
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD DROP [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'-A FORWARD -p udp -j ACCEPT' 'COMMIT' > "$W/v6.rules"

# The port reads the file once, then nothing: gufc stays at its prompt.
# shellcheck disable=SC2046
start_gufc $(eal_args "$W/in.pcap" "$W/out.pcap" 0,1) -- --iptables "$W/v4.rules" \
	--ip6tables "$W/v6.rules" --stats-json "$W/st.json"
wait_rx "$total"

# "[P:B] -A FORWARD -p udp ... -j ACCEPT" of a family's export: "P B" into
# $CTR (not in $(...): ask's marker counter must survive).
udp_ctr() {
	ask show rules "$1"
	CTR=$(echo "$ASK" | sed -n 's/^\[\([0-9]*\):\([0-9]*\)\] -A FORWARD -p udp.*-j ACCEPT$/\1 \2/p')
}
udp_ctr iptables
v4=$CTR
udp_ctr ip6tables
v6=$CTR
[ -n "$v4" ] && [ -n "$v6" ] || fail "no counters in the exports ('$v4', '$v6')"
[ "${v4% *}" -gt 0 ] && [ "${v6% *}" -gt 0 ] || fail "both families should count: '$v4', '$v6'"
[ $(( ${v4% *} + ${v6% *} )) = "$total" ] || fail "$v4 + $v6 != $total packets"

ask rule load iptables "$W/v4b.rules"
ask commit
echo "$ASK" | grep -q "^committed: generation" || fail "commit: $ASK"
udp_ctr iptables
v4n=$CTR
udp_ctr ip6tables
v6n=$CTR
[ "$v4n" = "0 0" ] || fail "the reloaded IPv4 rule counts '$v4n', expected 0 0"
[ "$v6n" = "$v6" ] || fail "IPv6 counters '$v6n' after the IPv4 reload, expected '$v6'"
stop_gufc || fail "gufc exit status $?"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
echo "PASS"
