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
# Usage: scripts/bench-e2e.sh [--flows N] [--rounds R] [--seconds S] [--json FILE]
# Run after the README's set-up (it builds into build/ if needed).
set -euo pipefail
cd "$(dirname "$0")/.."

flows=10000
rounds=3
secs=10
json=out/bench-e2e.json
while [ $# -gt 0 ]; do
	case $1 in
	--flows) flows=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0"; exit 0 ;;
	*) echo "bench-e2e.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $flows$rounds$secs in *[!0-9]*) echo "bench-e2e.sh: --flows, --rounds and --seconds take numbers" >&2; exit 2 ;; esac
[ "$secs" -ge 3 ] || { echo "bench-e2e.sh: --seconds must be at least 3" >&2; exit 2; }

[ -x build/app/gufc ] || { bash scripts/deps.sh; [ -f build/build.ninja ] || meson setup build; ninja -C build; }
command -v dpdk-testpmd >/dev/null || { echo "bench-e2e.sh: dpdk-testpmd not found (package dpdk)" >&2; exit 1; }

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
declare -a tp gf
for r in $(seq 1 "$rounds"); do
	t=$(measure run_testpmd)
	g=$(measure run_gufc)
	[ "$t" = 0 ] || tp+=("$t")
	[ "$g" = 0 ] || gf+=("$g")
	echo "round $r: testpmd $t pps, gufc $g pps"
done
[ ${#tp[@]} -gt 0 ] && [ ${#gf[@]} -gt 0 ] ||
	{ echo "bench-e2e.sh: no successful run of testpmd or gufc" >&2; exit 1; }

python3 - "$json" "$flows" "$rounds" "$secs" "${tp[*]}" "${gf[*]}" <<'PY'
import json, statistics, sys
out, flows, rounds, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tp = [float(x) for x in sys.argv[5].split()]
gf = [float(x) for x in sys.argv[6].split()]
t, g = statistics.median(tp), statistics.median(gf)
ratio = g / t if t > 0 else 0.0
print(f"testpmd io: {t / 1e6:.2f} Mpps   gufc: {g / 1e6:.2f} Mpps   gufc/testpmd: {ratio:.3f}")
json.dump({"flows": flows, "rounds": rounds, "seconds": secs, "packet_bytes": 64,
           "testpmd_pps": tp, "gufc_pps": gf, "testpmd_mpps": t / 1e6, "gufc_mpps": g / 1e6,
           "gufc_over_testpmd": ratio}, open(out, "w"), indent=2)
print(f"wrote {out}")
PY
