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

# 1b. The chains' policy counts across the same one-family load: every
#    packet leaves FORWARD by its end (no rules), so each family's FORWARD
#    policy counts that family's packets. After "rule load iptables" of a
#    file with its own policy counters, IPv4's are the file's, IPv6's are
#    still what they counted (the export, "show rules"), as ip6tables
#    keeps its counters when iptables-restore loads a file on a Linux host.
exec 4>&-
rm -f "$W/cmd"
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'COMMIT' > "$W/p4.rules"
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [7:700]' ':OUTPUT ACCEPT [0:0]' \
	'COMMIT' > "$W/p4b.rules"
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'COMMIT' > "$W/p6.rules"
# shellcheck disable=SC2046
start_gufc $(eal_args "$W/in.pcap" "$W/outp.pcap" 0,1) -- --iptables "$W/p4.rules" \
	--ip6tables "$W/p6.rules" --stats-json "$W/stp.json"
wait_rx "$total"
fwd_pol() { # "P B" of family tool $1's filter FORWARD policy, into $CTR
	ask show rules "$1"
	CTR=$(echo "$ASK" | sed -n 's/^:FORWARD ACCEPT \[\([0-9]*\):\([0-9]*\)\]$/\1 \2/p')
}
fwd_pol iptables
p4=$CTR
fwd_pol ip6tables
p6=$CTR
[ -n "$p4" ] && [ -n "$p6" ] && [ "${p4% *}" -gt 0 ] && [ "${p6% *}" -gt 0 ] ||
	fail "FORWARD policies should count: '$p4', '$p6'"
[ $(( ${p4% *} + ${p6% *} )) = "$total" ] || fail "policies $p4 + $p6 != $total packets"
ask rule load iptables "$W/p4b.rules"
ask commit
echo "$ASK" | grep -q "^committed: generation" || fail "commit: $ASK"
fwd_pol iptables
p4n=$CTR
fwd_pol ip6tables
p6n=$CTR
echo "FORWARD policy before: ipv4 '$p4' ipv6 '$p6'; after the IPv4 load: '$p4n' '$p6n'"
[ "$p4n" = "7 700" ] || fail "the reloaded IPv4 policy counts '$p4n', expected the file's 7 700"
[ "$p6n" = "$p6" ] || fail "IPv6 FORWARD policy '$p6n' after the IPv4 load, expected '$p6'"
# The native listing's policy rows (imported counts and what was counted since) agree.
ask show rules
echo "$ASK" | grep -Eq "^ +- filter +FORWARD +- +${p6% *} +${p6#* }  policy ipv6 forward: accept\$" ||
	fail "show rules: no filter FORWARD ipv6 policy row with $p6: $ASK"
echo "$ASK" | grep -Eq "^ +- filter +FORWARD +- +7 +700  policy ipv4 forward: accept\$" ||
	fail "show rules: no filter FORWARD ipv4 policy row with 7 700: $ASK"
stop_gufc || fail "gufc exit status $?"
[ "$(json_get "$W/stp.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"

# 2. What iptables -L -v counts besides the deciding rule: a jump counts every
#    packet that takes it, RETURN and a rule without a target those that pass
#    them, each built-in chain's policy the packets that leave it by its end
#    (mangle's ACCEPT ones too): in "show rules iptables", in "show rules"
#    (the policies after the rules) and in the JSON's "policies". The IPv4
#    packets: UDP to ports 53 (RETURN), 123 (accepted) and 443 (the policy).
exec 4>&-
rm -f "$W/cmd"
printf '%s\n' '*mangle' ':PREROUTING ACCEPT [0:0]' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' \
	':OUTPUT ACCEPT [0:0]' ':POSTROUTING ACCEPT [0:0]' 'COMMIT' \
	'*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]' \
	':udpchk - [0:0]' '-A FORWARD -p udp -j udpchk' '-A FORWARD -p udp --dport 1:200 -j ACCEPT' \
	'-A udpchk -p udp --dport 53 -j RETURN' '-A udpchk -p udp' 'COMMIT' > "$W/j4.rules"
# shellcheck disable=SC2046
start_gufc $(eal_args "$W/in.pcap" "$W/out2.pcap" 0,1) -- --iptables "$W/j4.rules" \
	--stats-json "$W/st2.json"
wait_rx "$total"
ask show rules iptables
ipt=$ASK
ctr() { # "P B" of the export's rule line $1
	echo "$ipt" | awk -v r="$1" '{ c = $1; $1 = ""; sub(/^ /, "") }
		$0 == r { gsub(/[][]/, "", c); sub(/:/, " ", c); print c }'
}
pol() { # "P B" of table $1's built-in chain $2
	echo "$ipt" | awk -v t="*$1" -v ch=":$2" '$0 == t { in_t = 1 } $0 == "COMMIT" { in_t = 0 }
		in_t && $1 == ch && $2 == "ACCEPT" { c = $3; gsub(/[][]/, "", c); sub(/:/, " ", c); print c }'
}
jump=$(ctr '-A FORWARD -p udp -j udpchk')
acc=$(ctr '-A FORWARD -p udp -m udp --dport 1:200 -j ACCEPT')
ret=$(ctr '-A udpchk -p udp -m udp --dport 53 -j RETURN')
none=$(ctr '-A udpchk -p udp')
fwd=$(pol filter FORWARD)
mpre=$(pol mangle PREROUTING)
mpost=$(pol mangle POSTROUTING)
echo "jump '$jump' accept '$acc' return '$ret' no target '$none' FORWARD policy '$fwd'" \
	"mangle PREROUTING '$mpre' POSTROUTING '$mpost'"
[ -n "$jump" ] && [ -n "$acc" ] && [ -n "$ret" ] && [ -n "$none" ] && [ -n "$fwd" ] ||
	fail "missing counters in: $ipt"
[ "${jump% *}" = "${v4% *}" ] || fail "the jump counts ${jump% *}, expected ${v4% *} (every IPv4 packet)"
[ $(( ${ret% *} + ${none% *} )) = "${jump% *}" ] || fail "RETURN $ret + no target $none != jump $jump"
[ $(( ${ret#* } + ${none#* } )) = "${jump#* }" ] || fail "RETURN + no target bytes != jump's"
[ $(( ${acc% *} + ${fwd% *} )) = "${jump% *}" ] || fail "ACCEPT $acc + policy $fwd != jump $jump"
[ $(( ${acc#* } + ${fwd#* } )) = "${jump#* }" ] || fail "ACCEPT + policy bytes != jump's"
[ "${ret% *}" -gt 0 ] && [ "${none% *}" -gt 0 ] && [ "${acc% *}" -gt 0 ] && [ "${fwd% *}" -gt 0 ] ||
	fail "every counter should count: return $ret, no target $none, accept $acc, policy $fwd"
# Mangle's chains: every IPv4 packet leaves PREROUTING and POSTROUTING by their end.
[ "$mpre" = "$jump" ] && [ "$mpost" = "$jump" ] ||
	fail "mangle PREROUTING '$mpre' / POSTROUTING '$mpost', expected '$jump'"
# The native listing shows the same policies.
ask show rules
echo "$ASK" | grep -Eq "^ +- mangle +PREROUTING +- +${mpre% *} +${mpre#* }  policy ipv4 prerouting: accept\$" ||
	fail "show rules: no mangle PREROUTING policy row with $mpre: $ASK"
echo "$ASK" | grep -Eq "^ +- filter +FORWARD +- +${fwd% *} +${fwd#* }  policy ipv4 forward: accept\$" ||
	fail "show rules: no filter FORWARD policy row with $fwd: $ASK"
stop_gufc || fail "gufc exit status $?"
[ "$(json_get "$W/st2.json" "[p['packets'] for p in j['policies'] if p['family'] == 'ipv4' and p['table'] == 'mangle' and p['hook'] == 'prerouting'][0]")" = "${mpre% *}" ] ||
	fail "JSON policies: mangle prerouting"
[ "$(json_get "$W/st2.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
echo "PASS"
