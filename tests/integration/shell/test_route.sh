#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A route added at the prompt reaches a flow already in the cache. Two ports:
# port 0 reads a FIFO the test feeds (TX to out0.pcap), port 1 only
# transmits (out1.pcap). Batch 1 of one UDP flow has no route and leaves on
# the paired port 1; then "route add DST/32 port 0" and, once the rules lcore
# reports the cached flow re-routed, batch 2 must leave on port 0 - with no
# flush, the flow keeps its entry (one flow created).
. "$(dirname "$0")/lib.sh"

N1=64
N2=64
"$GEN" -o "$W/in.pcap" -n 1 -p $((N1 + N2)) --mix udp=100 --no-replies --size 100 \
	> /dev/null 2>&1 || fail "gufc-gen"
pcap_split "$W/in.pcap" $N1 "$W/b1" "$W/b2" || fail "split"
head -c 24 "$W/in.pcap" > "$W/empty.pcap"
# the flow's destination: the first frame's IPv4 destination
dst=$(python3 -c '
import socket, sys
d = open(sys.argv[1], "rb").read()
f = d[40:]
assert f[12:14] == b"\x08\x00", "expected an untagged IPv4 frame"
print(socket.inet_ntoa(f[30:34]))' "$W/b1") || fail "destination"

mkfifo "$W/rx"
exec 3<>"$W/rx"
FD_OPEN="3"
cat "$W/b1" >&3

start_gufc --no-huge -m 1024 --no-pci --file-prefix "$PREFIX" -l 0,1 \
	"--vdev=net_pcap0,rx_pcap=$W/rx,tx_pcap=$W/out0.pcap" \
	"--vdev=net_pcap1,rx_pcap=$W/empty.pcap,tx_pcap=$W/out1.pcap" \
	-- --burst 32 --stats-json "$W/st.json"
wait_rx $N1
ask route add "$dst/32" port 0
echo "$ASK" | grep -q "^route $dst/32 added" || fail "route add: $ASK"
for _ in $(seq 1 150); do
	ask show stats
	echo "$ASK" | grep -Eq "^route changes +[0-9]+ rerouted, [0-9]+ walks\$" &&
		[ "$(echo "$ASK" | awk '$1 == "route" && $2 == "changes" { print $3 }')" -ge 1 ] && break
	sleep 0.2
done
echo "$ASK" | grep "^route changes"
[ "$(echo "$ASK" | awk '$1 == "route" && $2 == "changes" { print $3 }')" -ge 1 ] ||
	fail "the cached flow was not re-routed"
cat "$W/b2" >&3
exec 3>&-
FD_OPEN="4"
wait_rx $((N1 + N2))
stop_gufc || fail "gufc exit status $?"
[ "$(pcap_count "$W/out1.pcap")" = "$N1" ] || fail "port 1 sent $(pcap_count "$W/out1.pcap"), expected $N1"
[ "$(pcap_count "$W/out0.pcap")" = "$N2" ] || fail "port 0 sent $(pcap_count "$W/out0.pcap"), expected $N2"
[ "$(json_get "$W/st.json" "j['flows']['created']")" = "1" ] || fail "flows created != 1"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
echo "PASS"
