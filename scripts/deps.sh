#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages gufc needs to build, test and run.
# Idempotent: skips apt when everything is already installed. Run as root.
set -euo pipefail

pkgs=(dpdk dpdk-dev libdpdk-dev meson ninja-build pkg-config gcc clang
	libclang-rt-14-dev libcmocka-dev libnuma-dev libpcap-dev python3
	iproute2 iptables ipset nftables conntrack iputils-ping curl ethtool
	tcpdump tshark)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
fi
