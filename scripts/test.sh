#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite, from a fresh Debian 12 machine:
#   1. install packages (scripts/deps.sh),
#   2. build with gcc and run the unit and integration suites,
#   3. rebuild the pure (no-EAL) code under ASan+UBSan and run its tests,
#   4. build the libFuzzer targets with clang and run each for a bounded time.
# Ends with one line "N passed, N failed" summed from meson's counts.
# Environment: FUZZ_SECONDS (default 60), BUILD_PREFIX (default "build").
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
prefix=${BUILD_PREFIX:-build}
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}

bash scripts/deps.sh || { echo "test.sh: package installation failed"; exit 1; }

status=0
broken=0
dirs=()

# stage NAME DIR MESON_SETUP_ARGS... -- MESON_TEST_ARGS...
stage() {
	local name=$1 dir=$2
	shift 2
	local setup=() testargs=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do setup+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	testargs=("$@")
	echo "=== $name ($dir)"
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "${setup[@]}" >"$dir.setup.log" 2>&1 || {
			cat "$dir.setup.log"; echo "test.sh: $name: meson setup failed"; status=1; broken=$((broken + 1)); return; }
	fi
	if ! ninja -C "$dir" >"$dir.ninja.log" 2>&1; then
		tail -n 60 "$dir.ninja.log"; echo "test.sh: $name: build failed"; status=1; broken=$((broken + 1)); return
	fi
	dirs+=("$dir")
	meson test -C "$dir" --print-errorlogs "${testargs[@]}" || status=1
}

stage "gcc: unit and integration" "$prefix" -- --suite unit --suite integration
stage "asan+ubsan: pure unit tests" "$prefix-san" \
	-Db_sanitize=address,undefined -Db_lundef=false -Dpure_only=true -- --suite pure
CC=clang stage "libFuzzer (${FUZZ_SECONDS}s per target)" "$prefix-fuzz" \
	-Dfuzz=true -Dpure_only=true -- --suite fuzz

python3 - "$broken" "${dirs[@]}" <<'PY'
import json, sys, os
ok = skip = 0
bad = int(sys.argv[1])  # stages that did not build count as failures
for d in sys.argv[2:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        continue
    for line in open(log):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif r == "SKIP":
            skip += 1
        else:
            bad += 1
print(f"{ok} passed, {bad} failed, {skip} skipped")
PY
exit $status
