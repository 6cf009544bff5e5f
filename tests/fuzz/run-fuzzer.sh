#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run one libFuzzer target for a bounded time over a scratch copy of its seed
# corpus (the committed corpus is never modified). Exit non-zero on a crash.
set -euo pipefail
exe=$(realpath "$1")
seeds=$2
secs=${FUZZ_SECONDS:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A finding's input is kept where the run started (meson: the build
# directory), named after the target, so that it can be replayed.
artifacts=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
mkdir -p "$artifacts"
mkdir -p "$work/corpus"
if [ -d "$seeds" ]; then
	cp -r "$seeds"/. "$work/corpus"/
fi
cd "$work"
# libFuzzer's own error exit code is 77, which meson reads as "skipped": 1.
"$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-artifact_prefix="$artifacts/$(basename "$exe")-" \
	-print_final_stats=1 "$work/corpus"
