#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gufc as the gateway of two Linux hosts (as root):
#
#   client netns                 gufc (router mode)                server netns
#   10.0.1.2/24  --- tap ---  port 0 "inside"  port 1 "outside"  --- tap ---  198.51.100.2/24
#   2001:db8:1::2/64          10.0.1.1/24      198.51.100.1/24               2001:db8:2::2/64
#                             2001:db8:1::1/64 2001:db8:2::1/64
#
# The hosts are network namespaces, each with one end of a net_tap port
# (--vdev=net_tap0,iface=... moved into the namespace). gufc masquerades
# the client's connections to the outside (SNAT to 198.51.100.1) and
# forwards 198.51.100.1:8080 to the client's web server (DNAT). The demo
# pings through the gateway, fetches a 64 MB file from the server with curl
# (python3 -m http.server), fetches the client's page from the server
# through the port forward, measures TCP throughput with iperf3 (when
# installed), and shows the flows, neighbours and routes in gufc's shell. Everything it started goes away at the end, also on Ctrl-C.
#
# Usage: scripts/gateway-demo.sh [MB]   (MB: the size of the file, default 64)
# Installs what it needs (scripts/deps.sh: iproute2, python3, curl, ping);
# iperf3 if installed (a 5 s throughput run); builds build/ when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${1:-64}
[ "$(id -u)" = 0 ] || { echo "gateway-demo: run as root (namespaces, taps)" >&2; exit 1; }
bash scripts/deps.sh
for p in ip python3 curl ping; do
	command -v "$p" >/dev/null || { echo "gateway-demo: $p is missing" >&2; exit 1; }
done
[ -f build/build.ninja ] || meson setup build
ninja -C build app/gufc >/dev/null

T=$$
CNS=gw-client-$T SNS=gw-server-$T CTAP=gwc$T STAP=gws$T PREFIX=gufc-demo-$T
W=$(mktemp -d /tmp/gufc-demo.XXXXXX)
GUFC_PID= PIDS=

cleanup() {
	trap - EXIT INT TERM
	exec 4>&- 2>/dev/null || true
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	if [ -n "$GUFC_PID" ] && kill -0 "$GUFC_PID" 2>/dev/null; then
		kill -INT "$GUFC_PID" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$GUFC_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$GUFC_PID" 2>/dev/null || true
	fi
	ip netns del "$CNS" 2>/dev/null || true
	ip netns del "$SNS" 2>/dev/null || true
	rm -rf "$W" "/var/run/dpdk/$PREFIX"
}
trap cleanup EXIT
trap 'echo; echo "gateway-demo: interrupted, cleaning up"; exit 130' INT TERM

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
in_c() { ip netns exec "$CNS" "$@"; }
in_s() { ip netns exec "$SNS" "$@"; }

# gufc's shell: a command, then its output up to a marker.
N=0
gsh() {
	N=$((N + 1))
	printf 'echo @@%d@@\n%s\necho @@end%d@@\n' "$N" "$1" "$N" >&4
	for _ in $(seq 200); do
		grep -q "^@@end$N@@" "$W/gufc.out" && break
		sleep 0.05
	done
	echo "gufc> $1"
	sed -n "/^@@$N@@\$/,/^@@end$N@@\$/p" "$W/gufc.out" | sed '1d;$d'
}

cat > "$W/gateway.conf" <<EOF
set mode router
port 0 name inside address 10.0.1.1/24 2001:db8:1::1/64
port 1 name outside address 198.51.100.1/24 2001:db8:2::1/64
rules gateway.rules
EOF
cat > "$W/gateway.rules" <<EOF
policy drop
accept ctstate established,related
accept proto icmp
accept proto icmpv6
accept src 10.0.1.0/24 comment "inside to anywhere"
accept src 2001:db8:1::/64
accept proto tcp dst 10.0.1.2 dport 8000 comment "the port forward"
dnat to 10.0.1.2:8000 proto tcp dst 198.51.100.1 dport 8080 comment "port forward"
masquerade src 10.0.1.0/24 comment "SNAT to the outside port's address"
EOF

say "starting gufc (router mode, net_tap ports $CTAP and $STAP)"
ip netns add "$CNS"
ip netns add "$SNS"
mkfifo "$W/cmd"
exec 4<>"$W/cmd"
build/app/gufc --no-huge -m 1024 --no-pci --file-prefix "$PREFIX" -l 0,1 \
	--log-level='lib.*:warning' --vdev="net_tap0,iface=$CTAP" --vdev="net_tap1,iface=$STAP" \
	-- --config "$W/gateway.conf" -i <"$W/cmd" >"$W/gufc.out" 2>&1 &
GUFC_PID=$!
for _ in $(seq 100); do ip link show "$STAP" >/dev/null 2>&1 && break; sleep 0.1; done
gsh "show ports"

say "client and server namespaces"
ip link set "$CTAP" netns "$CNS"
ip link set "$STAP" netns "$SNS"
in_c ip link set "$CTAP" address 02:00:00:00:01:02
in_s ip link set "$STAP" address 02:00:00:00:02:02
in_c ip link set lo up
in_s ip link set lo up
in_c ip addr add 10.0.1.2/24 dev "$CTAP"
in_c ip addr add 2001:db8:1::2/64 dev "$CTAP" nodad
in_s ip addr add 198.51.100.2/24 dev "$STAP"
in_s ip addr add 2001:db8:2::2/64 dev "$STAP" nodad
in_c ip link set "$CTAP" up
in_s ip link set "$STAP" up
in_c ip route add default via 10.0.1.1
in_c ip -6 route add default via 2001:db8:1::1
# The server has no route back to 10.0.1.0/24: it only ever sees the
# gateway's outside address (masquerade).
in_s ip -6 route add default via 2001:db8:2::1
echo "client: 10.0.1.2, 2001:db8:1::2 (default via gufc); server: 198.51.100.2, 2001:db8:2::2"

say "ping the gateway and through it (TTL / hop limit one lower)"
in_c ping -c 2 -i 0.3 10.0.1.1
in_c ping -c 3 -i 0.3 198.51.100.2
in_c ping -6 -c 3 -i 0.3 2001:db8:2::2

say "HTTP: the client fetches ${MB} MB from the server (masqueraded)"
mkdir -p "$W/www-server" "$W/www-client"
head -c $((MB * 1024 * 1024)) /dev/urandom >"$W/www-server/blob"
echo "hello from the client's web server, reached through gufc's port forward" \
	>"$W/www-client/index.html"
(cd "$W/www-server" && exec ip netns exec "$SNS" python3 -m http.server 80 --bind 198.51.100.2 \
	>/dev/null 2>&1) &
PIDS="$PIDS $!"
(cd "$W/www-client" && exec ip netns exec "$CNS" python3 -m http.server 8000 --bind 10.0.1.2 \
	>/dev/null 2>&1) &
PIDS="$PIDS $!"
for _ in $(seq 50); do
	in_s python3 -c 'import socket; socket.create_connection(("198.51.100.2", 80), 1)' \
		2>/dev/null && break
	sleep 0.1
done
in_c curl -s --max-time 120 -o "$W/blob" -w 'fetched %{size_download} bytes in %{time_total} s: %{speed_download} bytes/s\n' \
	http://198.51.100.2/blob
if cmp -s "$W/blob" "$W/www-server/blob"; then
	echo "the file arrived intact (cmp)"
else
	echo "the file differs!"; exit 1
fi
gsh "show flows proto tcp"

say "port forward: the server fetches http://198.51.100.1:8080/ (DNAT to 10.0.1.2:8000)"
for _ in $(seq 50); do
	in_c python3 -c 'import socket; socket.create_connection(("10.0.1.2", 8000), 1)' \
		2>/dev/null && break
	sleep 0.1
done
in_s curl -s --max-time 20 http://198.51.100.1:8080/
gsh "show flows proto tcp dport 8080"

if command -v iperf3 >/dev/null; then
	say "throughput: iperf3, client -> server, 5 s (masqueraded TCP through gufc)"
	in_s iperf3 -s -1 -B 198.51.100.2 >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	sleep 0.5
	in_c iperf3 -c 198.51.100.2 -t 5 -f m --connect-timeout 5000 | grep -E "sender|receiver"
fi

say "gufc's view"
gsh "show neighbours"
gsh "show routes"
gsh "show stats"

say "done: stopping gufc"
printf 'quit\n' >&4
wait "$GUFC_PID" || true
GUFC_PID=
sed -n '/gufc summary/,/^transmitted/p' "$W/gufc.out"
grep -E '^(accounting|mempool)' "$W/gufc.out"
