#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Bad shell input: every bad command prints an error naming the bad token,
# and nothing changes (rules, pending edits, channels, locals, routes,
# ports are the same before and after).
. "$(dirname "$0")/lib.sh"

"$GEN" -o "$W/in.pcap" -n 4 -p 40 --mix udp=100 > /dev/null 2>&1 || fail "gufc-gen"
printf '%s\n' 'drop proto udp dport 53' 'accept proto tcp dport 22' > "$W/r.rules"
start_gufc $(eal_args "$W/in.pcap" "$W/out.pcap") -- --rules "$W/r.rules"
wait_rx 40

snapshot() {
	local s=

	for what in rules pending channels locals routes ports; do
		ask show $what
		s="$s$ASK"$'\n'
	done
	SNAP=$s
}
snapshot
before=$SNAP

# command | the token its error must name
while IFS='|' read -r line tok; do
	[ -n "$line" ] || continue
	ask "$line"
	echo "$ASK" | grep -q "error: .*: '$tok'\$" ||
		fail "'$line': error does not name '$tok': $ASK"
	[ "$(echo "$ASK" | grep -c error)" = 1 ] || fail "'$line': $ASK"
done <<'CMDS'
bogus|bogus
show bogus|bogus
show flows limit x|x
show flows filter proto foo|foo
show flow udp 1.2.3:4 -> 5.6.7.8:9|1.2.3:4
rule add drop proto udpx|udpx
rule add chain nochain drop proto udp|nochain
rule add pos 0 drop|0
rule add drop proto udp dport 53 sport|sport
rule del 99|99
rule del abc|abc
rule replace 1 drop dport 53|dport
rule replace 77 drop|77
rule load foo x|foo
rule frob|frob
channel create bad!name kind discard|bad!name
channel create c1 kind nope|nope
channel create c1 kind tx 7|7
channel create c1 kind discard size 3|3
channel del nochan|nochan
channel del default|default
channel del tx-port0|tx-port0
local add 10.0.0.0/99|10.0.0.0/99
local del 10.9.0.0/16|10.9.0.0/16
route add 10.0.0.0/8 port 9|9
route add 10.0.0.0/8 gate 1|gate
route del 10.0.0.0/8|10.0.0.0/8
route add 10.0.0.0/8 via 10.5.0.1|10.5.0.1
route add 10.0.0.0/8 via 2001:db8::1|2001:db8::1
port 9 name x|9
port 0 name bad!name|bad!name
port 0 color red|color
port 0 host|host
port 0 mtu 20|20
port 0 name|name
port 0 address 10.0.0.0/24|10.0.0.0/24
port 0 address 10.1.1.1/24 10.1.1.1/24|10.1.1.1/24
port 0 address 10.1.1.1/24 2001:db8::zz/64|2001:db8::zz/64
port 0 address 10.1.1.1/24 2001:db8::1/64 mtu 1000|2001:db8::1/64
port 0 address del 10.1.1.1/24|10.1.1.1/24
log level nosuch.type debug|nosuch.type
log level gufc.app loud|loud
flush flowz|flowz
commit now|now
quit now|now
help nothing|nothing
CMDS

snapshot
[ "$SNAP" = "$before" ] || { diff <(echo "$before") <(echo "$SNAP"); fail "state changed"; }
echo "$SNAP" | grep -q "^nothing pending" || fail "a failed edit left pending changes"

# An iptables file: a rule line's malformed counters are an error at their
# place, nothing loaded; a chain line's load as 0 with a warning at theirs
# (iptables-restore without -c never reads them; Linux loads the file).
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]' \
	'[1_1] -A INPUT -j ACCEPT' 'COMMIT' > "$W/rc.rules"
ask rule load iptables "$W/rc.rules"
echo "$ASK" | grep -q "error: .*rc.rules:5:1: bad counters" || fail "rule counters: $ASK"
snapshot
[ "$SNAP" = "$before" ] || fail "a refused file changed the state"
printf '%s\n' '*filter' ':INPUT ACCEPT [0_0]' ':FORWARD DROP [x:1]' ':OUTPUT ACCEPT [0:0]' \
	'COMMIT' > "$W/cc.rules"
ask rule load iptables "$W/cc.rules"
echo "$ASK" | grep -q "warning: .*cc.rules:2:15: bad chain counters, loaded as 0 .*'\[0_0\]' (and 1 more lines)" ||
	fail "chain counters: $ASK"
ask show pending
echo "$ASK" | grep -q "^nothing pending" && fail "the file with chain counters did not load"
ask rollback
stop_gufc || fail "gufc exit status $?"
echo "PASS"
