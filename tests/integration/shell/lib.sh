# SPDX-License-Identifier: BSD-3-Clause
# tests/integration/shell/lib.sh — helpers of the shell/telemetry integration
# tests: a scratch directory, gufc started in the background with its stdin on
# a FIFO the test writes commands into, waiting for output with a timeout,
# and cleanup (trap) of everything the test started.
#
# Usage: . lib.sh GUFC GUFC_GEN

GUFC=${1:?usage: $0 GUFC GUFC_GEN}
GEN=${2:?usage: $0 GUFC GUFC_GEN}
[ -x "$GUFC" ] || { echo "no gufc binary: $GUFC"; exit 1; }
[ -x "$GEN" ] || { echo "SKIP: no gufc-gen (libpcap missing)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

W=$(mktemp -d /tmp/gufc-shell-test.XXXXXX)
PREFIX=gst$$
GUFC_PID=
FD_OPEN=

cleanup() {
	local rc=$?

	# Our own descriptors first (EOF for gufc), then our own process.
	for fd in $FD_OPEN; do eval "exec $fd>&-"; done
	# gufc ends on SIGTERM, removing its runtime directory; one that does
	# not is killed and the directory removed here. Ended by a signal
	# (meson's timeout SIGKILLs the group half a second after its SIGTERM),
	# the grace is short.
	if [ -n "$GUFC_PID" ] && kill -0 "$GUFC_PID" 2>/dev/null; then
		kill -TERM "$GUFC_PID" 2>/dev/null
		for _ in $(seq 1 "$GRACE"); do
			kill -0 "$GUFC_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$GUFC_PID" 2>/dev/null
	fi
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- gufc output ($W/out.txt)"
		tail -n 60 "$W/out.txt" 2>/dev/null
	fi
	rm -rf "$W" "/var/run/dpdk/$PREFIX" 2>/dev/null
	exit $rc
}
GRACE=10
trap cleanup EXIT
trap 'GRACE=2; exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

# EAL arguments for a single pcap port: eal_args RX TX [LCORES]
eal_args() {
	echo "--no-huge -m 1024 --no-pci --file-prefix $PREFIX -l ${3:-0}" \
		"--vdev=net_pcap0,rx_pcap=$1,tx_pcap=$2"
}

# Start gufc in the background, stdin from the FIFO $W/cmd (kept open on fd 4).
# start_gufc EAL_ARGS -- GUFC_ARGS...
start_gufc() {
	mkfifo "$W/cmd"
	exec 4<>"$W/cmd"
	FD_OPEN="$FD_OPEN 4"
	# shellcheck disable=SC2068
	timeout -s KILL 120 "$GUFC" $@ -i < "$W/cmd" > "$W/out.txt" 2>&1 3>&- 4>&- &
	GUFC_PID=$!
}

# Send one command line to the running gufc.
cmd() {
	printf '%s\n' "$*" >&4
}

# Wait until the output has a line matching the (grep -E) pattern; at most 30 s.
wait_out() {
	for _ in $(seq 1 300); do
		grep -Eq "$1" "$W/out.txt" && return 0
		kill -0 "$GUFC_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "no output matching '$1'"
}

# Run a command; what it printed goes to $ASK (call it outside $(...): the
# marker counter must survive).
MARK=0
ASK=
ask() {
	MARK=$((MARK + 1))
	cmd "echo @@begin$MARK"
	cmd "$*"
	cmd "echo @@end$MARK"
	wait_out "^@@end$MARK\$"
	ASK=$(sed -n "/^@@begin$MARK\$/,/^@@end$MARK\$/p" "$W/out.txt" | sed '1d;$d')
}

# rx counter of "show stats", into $RX.
rx_now() {
	ask show stats
	RX=$(echo "$ASK" | awk '$1 == "rx" { print $2 }')
}

# Wait until "show stats" counts N received packets; at most 30 s.
wait_rx() {
	for _ in $(seq 1 150); do
		rx_now
		[ "$RX" = "$1" ] && return 0
		sleep 0.2
	done
	fail "rx did not reach $1 (now $RX)"
}

# Stop gufc with "quit" and return its exit status.
stop_gufc() {
	local rc

	cmd quit
	wait "$GUFC_PID"
	rc=$?
	GUFC_PID=
	return $rc
}

# Split a pcap: pcap_split IN N FIRST REST. FIRST is a pcap of IN's first N
# packets; REST holds the other records without a file header (to append to
# a FIFO that FIRST opened).
pcap_split() {
	python3 - "$@" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
end = '<' if d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
off, recs = 24, []
while off + 16 <= len(d):
    incl = struct.unpack(end + 'I', d[off + 8:off + 12])[0]
    recs.append(d[off:off + 16 + incl])
    off += 16 + incl
n = int(sys.argv[2])
open(sys.argv[3], 'wb').write(d[:24] + b''.join(recs[:n]))
open(sys.argv[4], 'wb').write(b''.join(recs[n:]))
PY
}

# Number of packets in a pcap file.
pcap_count() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
end = '<' if d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
off, n = 24, 0
while off + 16 <= len(d):
    incl = struct.unpack(end + 'I', d[off + 8:off + 12])[0]
    off += 16 + incl
    n += 1
print(n)
PY
}

# A field of the --stats-json file: json_get FILE PYTHON-EXPR (j is the object).
json_get() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
