#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""netfilter_conntrack test: Linux conntrack vs gufc's on whole TCP conversations
and SCTP associations (sctp.conv).

For every conversation list (*.conv next to this script), runs
"netfilter-oracle.py conv" (the segments through Linux netfilter in network
namespaces) and ct_eval (the same segments, as "netfilter-oracle.py frames"
writes them, through gufc's rules engine and conntrack module, the fast
path's window check included) and compares their lines: per segment the
ctstate, the verdict and the connection's TCP state afterwards; for a
conversation with nat= (sctp-nat.conv), also the forwarded packet's
addresses and ports after NAT and whether its SCTP CRC32c is right.

With --gen FIRST-LAST:COUNT, also the random conversations that
"netfilter-oracle.py convgen SEED COUNT" writes for each seed (handshakes
with and without window scaling, simultaneous opens, pickups, IPv4 and
IPv6, data both ways, retransmissions, reordering, keepalives, SACK, stray
and out-of-window segments, RSTs, FINs, reopening; some with loose=0,
be_liberal=1 or max_retrans).

Exit: 0 all equal, 1 any difference or error (the differing segments are
printed with both answers), 77 (skip) when not root or when namespaces or
iptables do not work here.
"""

import argparse
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77


def segment_lines(path):
    """The segment lines of a conversation list, in order, with their conversation."""
    out, conv = [], "?"
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if line.startswith("conv "):
                conv = line.split()[1]
            elif line and not line.startswith("wait "):
                out.append("%s:%d (%s): %s" % (os.path.basename(path), lineno, conv, line))
    return out


def run(cmd, timeout):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "",
                                           (e.stderr or "") + "\ntimed out")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--tests", required=True, help="this directory")
    ap.add_argument("--gen", default="", metavar="FIRST-LAST:COUNT",
                    help="also convgen's lists for these seeds, COUNT conversations each")
    args = ap.parse_args()
    gen = []
    if args.gen:
        try:
            seeds, count = args.gen.split(":")
            first, last = (int(x) for x in seeds.split("-"))
            gen = [(seed, int(count)) for seed in range(first, last + 1)]
        except ValueError:
            print("FAIL: --gen %r: expected FIRST-LAST:COUNT" % args.gen)
            return 1
    signal.signal(signal.SIGTERM, lambda sig, _f: sys.exit(128 + sig))

    if os.geteuid() != 0:
        print("SKIP: netfilter_conntrack: needs root (network namespaces and iptables)")
        return SKIP
    files = sorted(glob.glob(os.path.join(args.tests, "*.conv")))
    if not files:
        print("FAIL: no conversation lists in %s" % args.tests)
        return 1
    tag = "c%d" % os.getpid()
    failures, segments = 0, 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nfo-conv-") as work:
        lists = [(conv, os.path.relpath(conv)) for conv in files]
        for seed, count in gen:
            conv = os.path.join(work, "gen%d.conv" % seed)
            r = run([sys.executable, args.oracle, "convgen", str(seed), str(count)], 60)
            if r.returncode != 0:
                print("FAIL: convgen %d %d: %s" % (seed, count, r.stderr.strip()))
                failures += 1
                continue
            with open(conv, "w", encoding="utf-8") as f:
                f.write(r.stdout)
            lists.append((conv, "convgen %d %d" % (seed, count)))
        for n, (conv, what) in enumerate(lists, 1):
            frames = os.path.join(work, "frames%d.txt" % n)
            r = run([sys.executable, args.oracle, "frames", conv], 60)
            if r.returncode != 0:
                print("FAIL: %s: frames: %s" % (what, r.stderr.strip()))
                failures += 1
                continue
            with open(frames, "w", encoding="utf-8") as f:
                f.write(r.stdout)
            k = run([sys.executable, args.oracle, "conv", "--tag", "%sx%d" % (tag, n), conv], 240)
            if k.returncode == SKIP:
                why = k.stderr.strip().splitlines()[-1] if k.stderr.strip() else ""
                print("SKIP: netfilter_conntrack: " + why.replace("netfilter-oracle: skip: ", ""))
                return SKIP
            g = run([args.eval, frames], 60)
            if k.returncode not in (0, 1) or g.returncode != 0:
                print("FAIL: %s: oracle exit %d, ct_eval exit %d:\n%s%s" % (
                    what, k.returncode, g.returncode, k.stderr, g.stderr))
                failures += 1
                continue
            kl, gl, sl = k.stdout.splitlines(), g.stdout.splitlines(), segment_lines(conv)
            segments += len(sl)
            diffs = []
            for i in range(max(len(kl), len(gl), len(sl))):
                kv = kl[i] if i < len(kl) else "(missing)"
                gv = gl[i] if i < len(gl) else "(missing)"
                if kv != gv or " error " in kv:
                    diffs.append((sl[i] if i < len(sl) else "?", kv, gv))
            if diffs:
                failures += 1
                print("FAIL: %s: %d of %d segments differ" % (what, len(diffs), len(sl)))
                for s, kv, gv in diffs:
                    print("  segment %s\n    linux: %s\n    gufc:  %s" % (s, kv, gv))
            else:
                print("ok: %s: %d segments agree (%s)" % (what, len(sl), g.stderr.strip()),
                      flush=True)
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith("nfo-") and "-%sx" % tag in name:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
    print("netfilter_conntrack: %d lists, %d segments, %d failed, %.1f s"
          % (len(files) + len(gen), segments, failures, time.monotonic() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
