#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gufc against OVS-DPDK, side by side, on the same virtual ports, cores,
# memory and pcaps, with dpdk-testpmd (io mode) as the I/O ceiling.
#
# Usage: scripts/bench-peers.sh [--quick] [options]     (as root; --help lists them)
#
# Run from a clone after the README's set-up. This wrapper installs what the
# run needs from Debian 12 (scripts/deps.sh, openvswitch-switch-dpdk,
# python3-matplotlib), builds build/ if needed, mounts a private hugetlbfs
# under a temporary directory, and hands over to scripts/bench-peers.py,
# which generates the pcaps and rule sets, checks the rule translation, runs
# the scenarios in alternating rounds and writes the JSON and the PNG.
# Whatever happens (an error, Ctrl-C), the processes it started are stopped,
# the mount is removed and the temporary directory deleted. nr_hugepages is
# raised when too few pages are free, never lowered.
set -euo pipefail
cd "$(dirname "$0")/.."

case " $* " in
*" -h "* | *" --help "*) exec python3 scripts/bench-peers.py --help --work - ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench-peers.sh: run as root (hugepages, mount)" >&2; exit 1; }

bash scripts/deps.sh
need=()
for p in openvswitch-switch-dpdk python3-matplotlib; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "bench-peers: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq "${need[@]}" >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }
fi
if [ ! -x build/app/gufc ] || [ ! -x build/app/tools/gufc-gen ]; then
	[ -f build/build.ninja ] || meson setup build
	ninja -C build
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gufc-peers.XXXXXX")
mkdir -p "$work/pids" "$work/huge"

# Stop what is still running (only the processes bench-peers.py started and
# recorded under pids/), unmount, delete the directory and the DPDK runtime
# directories of its file prefixes.
cleanup() {
	local f pid
	for f in "$work"/pids/*; do
		[ -e "$f" ] || continue
		pid=${f##*/}
		kill -TERM "$pid" 2>/dev/null || true
	done
	for f in "$work"/pids/*; do
		[ -e "$f" ] || continue
		pid=${f##*/}
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	if [ -s "$work/prefixes" ]; then
		while read -r p; do [ -n "$p" ] && rm -rf "/var/run/dpdk/$p"; done <"$work/prefixes"
	fi
	if mountpoint -q "$work/huge"; then
		umount "$work/huge" 2>/dev/null || umount -l "$work/huge" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount -t hugetlbfs -o pagesize=2M nodev "$work/huge"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" scripts/bench-peers.py --work "$work" "$@"
