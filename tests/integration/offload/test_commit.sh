#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A rule change while a flow is in "hardware" (--offload swnic): no stale
# verdict. Two runs, RX from a FIFO the test feeds (tests/integration/shell's
# lib.sh), one UDP flow:
#  1. accepted, offloaded as MARK: "rule add drop" + "commit" at the prompt;
#     no packet fed after the acknowledgement may be delivered;
#  2. dropped by the policy, offloaded as a hardware DROP: "rule add accept"
#     + "commit"; every packet fed after the acknowledgement is delivered
#     (ofl_policy_commit_sync took the DROP rule out before the ack).
# Batch 1 is fed in chunks over ~4 s, the rate window is 1.5 s: the flow is
# offloaded during batch 1 (its later chunks are marked) and not yet cold
# (idle for a window) at the commit, which follows the last chunk at once.
# usage: test_commit.sh GUFC GUFC_GEN LIB_SH
LIB=${3:?usage: $0 GUFC GUFC_GEN LIB_SH}
# shellcheck source=../shell/lib.sh
. "$LIB" "$1" "$2"

CH=16   # chunks of batch 1
CN=32   # packets per chunk
N1=$((CH * CN))
N2=64
"$GEN" -o "$W/in.pcap" -n 1 -p $((N1 + N2)) --mix udp=100 --no-replies --size 100 \
	> /dev/null 2>&1 || fail "gufc-gen"
python3 - "$W/in.pcap" "$W/b" $CN $CH <<'PY' || fail "split"
import struct, sys
d = open(sys.argv[1], 'rb').read()
end = '<' if d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
off, recs = 24, []
while off + 16 <= len(d):
    incl = struct.unpack(end + 'I', d[off + 8:off + 12])[0]
    recs.append(d[off:off + 16 + incl])
    off += 16 + incl
cn, ch = int(sys.argv[3]), int(sys.argv[4])
for i in range(ch):
    open('%s1.%d' % (sys.argv[2], i), 'wb').write((d[:24] if i == 0 else b'') +
                                                  b''.join(recs[i * cn:(i + 1) * cn]))
open(sys.argv[2] + '2', 'wb').write(b''.join(recs[ch * cn:]))
PY

# run TAG RULES_FILE CHANGE -> $W/TAG.pcap, $W/TAG.json
run() {
	local tag=$1 rules=$2 change=$3 i

	rm -f "$W/rx" "$W/cmd"
	mkfifo "$W/rx"
	exec 3<>"$W/rx"
	FD_OPEN="3"
	cat "$W/b1.0" >&3
	start_gufc $(eal_args "$W/rx" "$W/$tag.pcap" 0,1) -- --burst 32 --conntrack off \
		--rules "$rules" --offload swnic --set offload-pps=1 --set offload-interval=1500 \
		--stats-json "$W/$tag.json"
	wait_rx $CN
	for i in $(seq 1 $((CH - 1))); do
		sleep 0.25
		cat "$W/b1.$i" >&3
	done
	wait_rx $N1
	for _ in $(seq 1 200); do
		ask show offload
		echo "$ASK" | grep -Eq "^flows +1 in hardware" && break
		sleep 0.1
	done
	echo "$ASK"
	echo "$ASK" | grep -Eq "^flows +1 in hardware" || fail "$tag: flow not offloaded"
	ask rule add "$change"
	ask commit
	echo "$ASK" | grep -q "^committed: generation" || fail "$tag: commit: $ASK"
	cat "$W/b2" >&3
	exec 3>&-
	FD_OPEN="4"
	wait_rx $((N1 + N2))
	ask show offload
	echo "$ASK"
	stop_gufc || fail "$tag: gufc exit status $?"
	[ "$(json_get "$W/$tag.json" "j['accounting']['ok']")" = "True" ] || fail "$tag: accounting"
}

# 1. accept -> drop: batch 1 delivered (partly marked), batch 2 all dropped.
printf 'policy accept\n' > "$W/accept.rules"
run mark "$W/accept.rules" "drop proto udp"
[ "$(pcap_count "$W/mark.pcap")" = "$N1" ] ||
	fail "mark: $(pcap_count "$W/mark.pcap") packets delivered, expected $N1"
[ "$(json_get "$W/mark.json" "j['drops']['filter']")" = "$N2" ] || fail "mark: filter drops != $N2"
[ "$(json_get "$W/mark.json" "j['offload']['hw_classified'] > 0")" = "True" ] ||
	fail "mark: no packet classified by the model"

# 2. drop -> accept: batch 1 dropped (partly by the model), batch 2 all delivered.
printf 'policy drop\n' > "$W/drop.rules"
run drop "$W/drop.rules" "accept proto udp"
[ "$(pcap_count "$W/drop.pcap")" = "$N2" ] ||
	fail "drop: $(pcap_count "$W/drop.pcap") packets delivered, expected $N2"
[ "$(json_get "$W/drop.json" "j['offload']['hw_dropped'] > 0")" = "True" ] ||
	fail "drop: no packet dropped by the model"
[ "$(json_get "$W/drop.json" "j['offload']['removed_commit']")" = "1" ] ||
	fail "drop: the hardware DROP was not taken out by the commit"
[ "$(json_get "$W/drop.json" "j['offload']['commit_syncs'] >= 1")" = "True" ] ||
	fail "drop: the commit's hardware sync was not counted"
echo "hardware sync before the acknowledgement: $(json_get "$W/drop.json" \
	"j['offload']['commit_sync_us_max']") us (destroying 1 DROP rule)"
echo "PASS"
