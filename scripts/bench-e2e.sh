#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end forwarding benchmark: gufc against dpdk-testpmd (io mode, the
# I/O ceiling) on identical virtual ports — net_pcap replaying a pcap of
# 64-byte packets of N flows forever (infinite_rx=1) into net_null — with one
# forwarding lcore each (plus the main lcore; gufc's main and rules lcores
# share it). The two are alternated ROUNDS times; each run's rate is the
# median of its per-second forwarding rates (packets transmitted on the
# net_null port; for gufc, packets delivered) after a warm-up. Prints both Mpps and
# the ratio; writes JSON (key gufc_over_testpmd).
#
# Then the new-flow storm, gufc alone on 2 lcores (RX lcore; main and rules
# share the other), all live-like ports (infinite_rx, --lossless off: a
# new flow the full upcall ring cannot take is dropped, as a NIC's would
# be, rather than holding the hits behind it back): (1) a trace of new
# flows only (more distinct flows than the cache holds, so every packet is
# a flow to set up): e2e_setup_flows_per_s, the median per-second count of
# flows created end to end (RX lcore, upcall, rules lcore, insert); (2)
# established flows only: their hit rate before the storm (packets
# transmitted per second); (3) the same established flows mixed with new
# flows at twice (1) (the mix sized from (1) and (2)): their hit rate during
# the storm. storm_hit_fraction = (3) / (2). Keys in the JSON beside the
# storm's own rates. The mix is replayed as fast as the RX lcore takes it,
# like (1) and (2) (net_pcap has no pacing): the RX lcore is saturated, so
# every new-flow packet takes the place of a hit, and new flows at a share
# S of the trace cap the fraction at 1 - S even when a new-flow packet
# costs the RX lcore no more than a hit (storm_hit_fraction_at_hit_cost).
# From the fraction F and S follows what a new-flow packet does cost the
# RX lcore, in established packets: (1 - S) (1 / F - 1) / S
# (storm_rx_new_flow_cost_in_hits). With S from (1) and (2) as below, 0.9
# needs that cost under 0.11 (1 - S) / S.
#
# Then the same storm from a paced source (gufc-bench --storm-only, in
# process, on the same two lcores: the RX lcore fed by a TSC-paced
# generator, established flows at half its measured capacity, new flows at
# twice the measured setup rate on top): storm_hit_fraction_paced and
# storm_delivered_fraction_paced (the established packets that left the
# port, the RX lcore transmitting its hits itself), with
# storm_paced_valid false when the RX lcore did not have its core (its
# thread's CPU time under 0.9 s a second) or lost established packets
# before the storm; the whole result under storm_paced.
#
# Usage: scripts/bench-e2e.sh [--flows N] [--rounds R] [--seconds S] [--json FILE]
#                             [--no-storm | --storm-only]
# Run after the README's set-up (it builds into build/ if needed).
set -euo pipefail
cd "$(dirname "$0")/.."

flows=10000
rounds=3
secs=10
json=out/bench-e2e.json
storm=1
peer=1
while [ $# -gt 0 ]; do
	case $1 in
	--no-storm) storm=0; shift ;;
	--storm-only) peer=0; shift ;;
	--flows) flows=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	-h|--help) sed -n '3,40p' "$0"; exit 0 ;;
	*) echo "bench-e2e.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $flows$rounds$secs in *[!0-9]*) echo "bench-e2e.sh: --flows, --rounds and --seconds take numbers" >&2; exit 2 ;; esac
[ "$secs" -ge 3 ] || { echo "bench-e2e.sh: --seconds must be at least 3" >&2; exit 2; }

[ -x build/app/gufc ] || { bash scripts/deps.sh; [ -f build/build.ninja ] || meson setup build; ninja -C build; }
[ "$peer" = 0 ] || command -v dpdk-testpmd >/dev/null ||
	{ echo "bench-e2e.sh: dpdk-testpmd not found (package dpdk)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$json")"
pcap=$work/bench.pcap
build/app/tools/gufc-gen -o "$pcap" -n "$flows" -p $((flows * 4)) --bench --seed 1 2>/dev/null
pkts=$((flows * 4))
mbufs=$(( (pkts + 16384) | 1023 ))
mem=$(( mbufs * 3 / 1024 + 1024 ))
eal_common=(--no-huge -m "$mem" --no-pci --log-level='lib.*:warning'
	--vdev="net_pcap0,rx_pcap=$pcap,infinite_rx=1" --vdev=net_null0,no-rx=1)

# median of numbers on stdin, skipping the first (warm-up) sample
median() {
	tail -n +2 | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

run_testpmd() {
	{ timeout -s INT "$secs" dpdk-testpmd -l 0,1 --file-prefix "e2e-tpm-$$" \
		"${eal_common[@]}" -- --forward-mode=io --nb-cores=1 --stats-period 1 \
		--total-num-mbufs="$mbufs" 2>&1 || true; } |
		awk '/Tx-pps:/ {n++; if (n % 2 == 0) print $2}' | awk '$1 > 0' | median
}

run_gufc() {
	{ timeout -s INT "$secs" build/app/gufc -l 0,1 --file-prefix "e2e-gufc-$$" \
		"${eal_common[@]}" -- --stats-period 1 --set mbufs="$mbufs" --conntrack off 2>&1 ||
		true; } | sed -n 's/^stats: .* delivered \([0-9]*\) .*/\1/p' |
		awk 'NR > 1 {print $1 - prev} {prev = $1}' | awk '$1 > 0' | median
}

# A run that reported no rate (it failed to start, say) is retried twice,
# then left out of the medians rather than counted as 0 pps.
measure() {
	local v
	for _ in 1 2 3; do
		v=$("$1")
		case $v in 0 | 0.0 | '') echo "bench-e2e.sh: $1 reported no rate, retrying" >&2 ;; *) echo "$v"; return ;; esac
	done
	echo 0
}
declare -a tp=() gf=()
if [ "$peer" = 1 ]; then
	for r in $(seq 1 "$rounds"); do
		t=$(measure run_testpmd)
		g=$(measure run_gufc)
		[ "$t" = 0 ] || tp+=("$t")
		[ "$g" = 0 ] || gf+=("$g")
		echo "round $r: testpmd $t pps, gufc $g pps"
	done
	[ ${#tp[@]} -gt 0 ] && [ ${#gf[@]} -gt 0 ] ||
		{ echo "bench-e2e.sh: no successful run of testpmd or gufc" >&2; exit 1; }

fi

# ---- the storm ----------------------------------------------------------
# gufc -l 0,1 on TRACE with extra gufc arguments for S + 8 seconds (the
# replay loads its trace into mbufs first); prints the per-second
# deltas of FIELD ("created" or "tx") from --stats-period 1, one per line;
# its final statistics go to $work/TRACE-NAME.json (the RX lcore's busy
# cycles, timed per pass with rte_rdtsc(), and its packets).
storm_run() {
	local trace=$1 field=$2 mb=$3
	shift 3
	{ timeout -s INT $((secs + 8)) build/app/gufc -l 0,1 --file-prefix "e2e-storm-$$" --no-huge \
		-m $((mb * 3 / 1024 + 1024)) --no-pci --log-level='lib.*:warning' \
		--vdev="net_pcap0,rx_pcap=$trace,infinite_rx=1" --vdev=net_null0,no-rx=1 -- \
		--stats-period 1 --stats-json "$work/$(basename "$trace" .pcap).json" \
		--set mbufs="$mb" --conntrack off --flows 2048 --lossless off "$@" 2>&1 ||
		true; } | tee "$work/storm.log" | sed -n "s/^stats: .* $field \([0-9]*\).*/\1/p" |
		awk 'NR > 1 {print $1 - prev} {prev = $1}' | awk '$1 > 0'
}
est_pps=0; storm_pps=0; setup=0; mix_pps=0; storm_share=0
if [ "$storm" = 1 ]; then
	snew=$work/storm-new.pcap
	sest=$work/storm-est.pcap
	smix=$work/storm-mix.pcap
	# New flows: 100k distinct flows (to 198.51.100.0/24) through a cache of
	# 2,048 per family: each packet misses, is set up, and evicts another
	# (established flows, hot, are not the oldest idle: they stay).
	build/app/tools/gufc-gen -o "$snew" -n 100000 -p 100000 --bench --seed 2 \
		--dst 198.51.100.0/24 2>/dev/null
	# Established: 1,000 flows (to 192.0.2.0/24), cached after the first round.
	build/app/tools/gufc-gen -o "$sest" -n 1000 -p 64000 --bench --seed 3 2>/dev/null
	printf 'accept channel storm dst 198.51.100.0/24\naccept\n' > "$work/storm.rules"
	printf 'channel storm kind discard\nrules %s\n' "$work/storm.rules" > "$work/storm.conf"
	setup=$(storm_run "$snew" created $((100000 + 16384)) --config "$work/storm.conf" | median)
	est_pps=$(storm_run "$sest" tx $((64000 + 16384)) --config "$work/storm.conf" | median)
	[ -n "$setup" ] && [ -n "$est_pps" ] ||
		{ echo "bench-e2e.sh: a storm run reported nothing" >&2; exit 1; }
	# New flows at twice the setup rate, if RX keeps its pace: their share.
	storm_share=$(python3 -c "import sys; s, e = float(sys.argv[1]), float(sys.argv[2]);
print(min(0.5, 2 * s / e) if e > 0 else 0.5)" "$setup" "$est_pps")
	nmix=$(python3 - "$sest" "$snew" "$smix" "$storm_share" <<'PY'
import struct, sys
def recs(p):
    d = open(p, "rb").read()
    e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, out = 24, []
    while off + 16 <= len(d):
        n = struct.unpack(e + "I", d[off + 8:off + 12])[0]
        out.append(d[off:off + 16 + n])
        off += 16 + n
    return d[:24], out
hdr, est = recs(sys.argv[1])
_, new = recs(sys.argv[2])
share = float(sys.argv[4])
# Interleave: after each established packet, new ones while their share is
# below target; rounds of the established flows until the new ones are used
# (300k packets at most: the replay holds the trace in mbufs; new flows
# beyond the cache still churn it).
out, k, total = [], 0, 0
rounds = est * max(2, int(len(new) * (1 - share) / max(share, 1e-9) / len(est)) + 1)
for r in rounds[:300000]:
    out.append(r)
    total += 1
    while k < len(new) and k < share * (total + k) / (1 - share):
        out.append(new[k])
        k += 1
open(sys.argv[3], "wb").write(hdr + b"".join(out))
print(len(out))
PY
)
	nmix=$((nmix + 16384))
	mix_pps=$(storm_run "$smix" tx "$nmix" --config "$work/storm.conf" | median)
	case $mix_pps in '' | 0) echo "bench-e2e.sh: the storm run reported nothing:" >&2
		grep -E "^stats|rror" "$work/storm.log" | head >&2; exit 1 ;; esac
	storm_pps=$(python3 -c "import sys; print(float(sys.argv[1]) * float(sys.argv[2]) / (1 - float(sys.argv[2])))" "$mix_pps" "$storm_share")
	echo "storm: setup $setup flows/s end to end; established hits $est_pps pps before," \
		"$mix_pps pps during new flows at $storm_pps pps (share $storm_share)"
	# The paced storm, in process (its own JSON beside this one's).
	rm -f "$work/storm-paced.json"
	if [ -x build/tests/bench/gufc-bench ]; then
		build/tests/bench/gufc-bench --storm-only --lcores 0,1 --mem 2048 \
			--storm-seconds "$(( secs / 2 > 1 ? secs / 2 : 2 ))" \
			--json "$work/storm-paced.json" | grep -v '^note' || true
	fi
fi

python3 - "$json" "$flows" "$rounds" "$secs" "${tp[*]:-}" "${gf[*]:-}" "$storm" "$setup" \
	"$est_pps" "$mix_pps" "$storm_pps" "$storm_share" "$work/storm-est.json" \
	"$work/storm-mix.json" "$work/storm-paced.json" <<'PY'
import json, os, statistics, sys
out, flows, rounds, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tp = [float(x) for x in sys.argv[5].split()]
gf = [float(x) for x in sys.argv[6].split()]
res = {"flows": flows, "rounds": rounds, "seconds": secs, "packet_bytes": 64}
if tp and gf:
    t, g = statistics.median(tp), statistics.median(gf)
    ratio = g / t if t > 0 else 0.0
    print(f"testpmd io: {t / 1e6:.2f} Mpps   gufc: {g / 1e6:.2f} Mpps   gufc/testpmd: {ratio:.3f}")
    res.update({"testpmd_pps": tp, "gufc_pps": gf, "testpmd_mpps": t / 1e6, "gufc_mpps": g / 1e6,
                "gufc_over_testpmd": ratio})
if sys.argv[7] == "1":
    setup, est, mix, spps, share = (float(x or 0) for x in sys.argv[8:13])
    frac = mix / est if est > 0 else 0.0
    # The RX lcore is saturated in both runs and receives the mix in the
    # trace's proportions: est x (cost of a hit) = R x ((1 - share) x (cost
    # of a hit) + share x (cost of a new-flow packet)), R = mix / (1 - share).
    # Hence what a new-flow packet costs it, in established packets, and the
    # fraction it would give if it cost what a hit costs (1 - share).
    cap = 1 - share
    miss_cost = cap * (1 / frac - 1) / share if frac > 0 and share > 0 else 0.0
    print(f"storm: e2e_setup_flows_per_s {setup:.0f} (target >= 0.8 of gufc-bench's "
          f"setup_flows_per_s), storm_hit_fraction {frac:.3f} (target >= 0.9; "
          f"{cap:.3f} if a new-flow packet cost the RX lcore what a hit costs; it costs "
          f"{miss_cost:.2f} hits)")
    # The same from the RX lcore's own clock: its busy cycles per packet it
    # received, established only (2) and the mix (3), whole runs.
    def rx_cycles(path):
        try:
            st = json.load(open(path))
        except (OSError, ValueError):
            return 0.0
        busy = sum(lc["rx"]["busy_cycles"] for lc in st.get("lcores", []) if "rx" in lc)
        return busy / st["rx"] if st.get("rx") else 0.0
    c_est, c_mix = rx_cycles(sys.argv[13]), rx_cycles(sys.argv[14])
    c_new = (c_mix - cap * c_est) / share if c_est > 0 and c_mix > 0 and share > 0 else 0.0
    if c_new > 0:
        print(f"storm: RX lcore busy cycles per packet: {c_est:.0f} established only, "
              f"{c_mix:.0f} in the mix, so {c_new:.0f} per new-flow packet "
              f"({c_new / c_est:.2f} established ones)")
        res.update({"storm_rx_cycles_per_established_pkt": c_est,
                    "storm_rx_cycles_per_mix_pkt": c_mix,
                    "storm_rx_cycles_per_new_flow_pkt": c_new})
    res.update({"e2e_setup_flows_per_s": setup, "storm_hit_fraction": frac,
                "storm_established_pps_before": est, "storm_established_pps_during": mix,
                "storm_new_flows_pps": spps, "storm_new_share": share,
                "storm_hit_fraction_at_hit_cost": cap, "storm_rx_new_flow_cost_in_hits": miss_cost})
    try:
        paced = json.load(open(sys.argv[15]))
    except (OSError, ValueError):
        paced = None
    if paced:
        delivered = paced.get("storm_delivered_fraction_paced", 0.0)
        print(f"storm (paced): storm_hit_fraction_paced {paced['storm_hit_fraction_paced']:.3f}, "
              f"storm_delivered_fraction_paced {delivered:.3f} "
              f"(targets >= 0.9){'' if paced['valid'] else ', NOT VALID on this run'}")
        res.update({"storm_hit_fraction_paced": paced["storm_hit_fraction_paced"],
                    "storm_delivered_fraction_paced": delivered,
                    "storm_paced_valid": paced["valid"], "storm_paced": paced})
json.dump(res, open(out, "w"), indent=2)
print(f"wrote {out}")
PY
