#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run gufc on the bundled sample, from a fresh Debian 12 machine (as root):
#   1. install packages (scripts/deps.sh),
#   2. configure and build (build/),
#   3. generate a sample pcap with gufc-gen (mixed TCP/UDP/ICMP, IPv4 and
#      IPv6, VLAN tags, fragments; seeded, so the same every time),
#   4. replay it through gufc on net_pcap with config/gufc.conf and
#      config/sample.rules; gufc exits once the pcap is done (--idle-exit).
# Output under out/: sample.pcap (input), tx.pcap (what left the port),
# one pcap per pcap channel (web.pcap), stats.json (final statistics).
# Extra arguments go to gufc (after its "--"); GUFC_EAL adds EAL options.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build

mkdir -p out
build/app/tools/gufc-gen -o out/sample.pcap --flows 400 --packets 4000 \
	--mix tcp=60,udp=30,icmp=10 --ipv6 20 --vlan 10 --frag 5 --seed 42

# One lcore: RX, the rules lcore and the main lcore share it, so a replay at
# full speed still lets the slow path insert flows between bursts.
build/app/gufc --no-huge -m 1024 --no-pci --file-prefix "gufc-run-$$" -l 0 \
	--log-level='lib.*:warning' ${GUFC_EAL:-} \
	--vdev=net_pcap0,rx_pcap=out/sample.pcap,tx_pcap=out/tx.pcap -- \
	--config config/gufc.conf --idle-exit 500 --channel-pcap-dir out \
	--stats-json out/stats.json "$@"
