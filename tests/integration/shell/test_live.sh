#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A rule change at the prompt reaches the very next packet. The RX port reads
# a FIFO, so the test decides when packets arrive: batch 1 of a flow (a
# multiple of the burst, so that every burst completes), wait until gufc
# counted it, "rule add drop ..." + "commit" at the prompt (stdin is a pipe),
# wait for the acknowledgement, then batch 2. Every batch-1 packet must be in
# the TX pcap, no batch-2 packet; the rule's counter and the filter drops
# must be exactly batch 2.
. "$(dirname "$0")/lib.sh"

N1=64
N2=64
"$GEN" -o "$W/in.pcap" -n 1 -p $((N1 + N2)) --mix udp=100 --no-replies --size 100 \
	> /dev/null 2>&1 || fail "gufc-gen"
pcap_split "$W/in.pcap" $N1 "$W/b1" "$W/b2" || fail "split"

mkfifo "$W/rx"
exec 3<>"$W/rx"
FD_OPEN="3"
cat "$W/b1" >&3

# Two lcores: RX on lcore 1 (it may block reading the FIFO), main and rules
# on lcore 0 with the shell.
start_gufc $(eal_args "$W/rx" "$W/out.pcap" 0,1) -- --burst 32 --stats-json "$W/st.json"
wait_rx $N1
ask rule add drop proto udp
ask commit
echo "$ASK" | grep -q "^committed: generation" || fail "commit: $ASK"
# The acknowledgement came: now the next packets.
cat "$W/b2" >&3
exec 3>&-
FD_OPEN="4"
wait_rx $((N1 + N2))
ask show rules
echo "$ASK"
pk=$(echo "$ASK" | awk '$NF == "udp" && $(NF-1) == "proto" && $(NF-2) == "drop" { print $5 }')
[ "$pk" = "$N2" ] || fail "rule counter $pk, expected $N2"
stop_gufc || fail "gufc exit status $?"
[ "$(json_get "$W/st.json" "j['drops']['filter']")" = "$N2" ] || fail "filter drops != $N2"
[ "$(pcap_count "$W/out.pcap")" = "$N1" ] || fail "TX pcap has $(pcap_count "$W/out.pcap") packets, expected $N1"
[ "$(json_get "$W/st.json" "j['accounting']['ok']")" = "True" ] || fail "accounting"
echo "PASS"
