#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""fastpath_oracle test: Linux netfilter vs the gufc binary, fast path included.

netfilter_oracle compares the kernel with gufc's reference evaluator, one
packet at a time through the rule walk. Here the same rule files and
packet lists go through the whole gufc binary (net_pcap, bridge mode: the
packets are forwarded) instead, so a flow's later packets are decided by
its cached entry on the fast path (meters: -m limit, hashlimit buckets,
byte rates included; connbytes limits), and the engine's own first-packet
walk decides the first (connbytes before the filter: cbpre, cbnat). The frames are the oracle's own (its build_ip()),
read one per RX burst (--burst 1) so that a flow's first packet is decided
and cached before the next one arrives.

Per packet, the kernel's verdict (scripts/netfilter-oracle.py run: accept
or drop in FORWARD) must be gufc's (forwarded to the TX pcap or not); for
the COUNTED cases, each rule's packets and bytes (and each policy's of
the file's tables) the kernel's (iptables-save -c) too: for the metered
ones, the packets a meter turned on the fast path count where Linux's
walk puts them, not on the rule the flow's entry accepts with. For
the cases marked "cached", no packet may go up because its entry decides
per packet: the stats JSON's slow_path.per_packet must be 0 (before byte
meters, every hlbytes packet of a byte-rate flow went up); for those of
UPCALLS, the slow path's upcalls at most the packet list's flows and
packets of another class (fieldstring: header fields of a class with
string, u32 and bpf matches, each class cached with the predicate;
bpflong: a 64-instruction bpf program and u32 tests at iptables' limits,
held out of line, on the fast path).

Usage: fastpath_oracle.py --gufc GUFC --oracle netfilter-oracle.py --tests DIR [CASE...]
Exit: 0 equal, 1 a difference or error, 77 (skip) when not root, or the
oracle cannot run here (namespaces, iptables).
"""

import argparse
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from nf_util import pcap_read, pcap_write

SKIP = 77
TAG = b"gufcFP"

# (rule file stem, the flows' later packets stay on the fast path)
CASES = [
    ("hlbytes", True),
    ("tcpflags", True),
    ("fieldclass", True),
    ("fieldrw", True),
    ("fieldmeter", True),
    ("quota", True),
    ("limitturn", True),
    ("fieldstring", True),
    ("bpflong", True),
    ("hashlimit", False),
    ("cbpre", False),
    ("cbnat", False),
    ("natident", False),
    ("icmpquery", True),
    ("icmpquery6", True),
    ("icmptype", True),
    ("icmptype6", True),
    ("nodeinfo6", True),
]
# Cases whose rule counters (and the policies of the file's tables) must be
# the kernel's too: the cached entries count their packets for the rules;
# a metered entry's packets that its meter turned (limitturn's limits,
# quota, hashlimit and hlbytes buckets) for the rules their own walk
# passed, as Linux counts.
COUNTED = ("tcpflags", "fieldclass", "fieldrw", "fieldmeter", "fieldstring", "icmpquery",
           "icmpquery6", "icmptype", "icmptype6", "nodeinfo6", "quota", "hashlimit", "hlbytes", "limitturn")
# Cases whose upcalls are bounded by the packet list: at most one per flow
# (its first packet) and one per packet of a class other than its entry's
# (packets that only waited behind their flow's upcall not counted).
UPCALLS = {"fieldstring": 3 + 4}
# Cases whose "-m quota" countdowns end with these bytes left (the stats
# JSON's quota rows: {(rule, match): left}).
QUOTA_LEFT = {"quota": {(1, 1): 0, (3, 1): 0, (4, 1): 0, (5, 1): 928}}


def counter_diffs(rules, kern, st, family):
    """Differences between the kernel's counters and the stats JSON's
    (@family 4 or 6: the file's, whose policies count)."""
    with open(rules, encoding="utf-8") as f:
        tables = {ln[1:].strip() for ln in f if ln.startswith("*")}
    got = {}
    for r in st.get("rules", []):
        if r["packets"]:
            got["%s rule %d" % (r["table"], r["id"])] = (r["packets"], r["bytes"])
    for p in st.get("policies", []):
        if p["packets"] and p["family"] == "ipv%d" % family and p["table"] in tables:
            got["%s policy %s" % (p["table"], p["hook"].upper())] = (p["packets"], p["bytes"])
    return ["%s: linux %s, gufc %s" % (k, kern.get(k), got.get(k))
            for k in sorted(set(kern) | set(got)) if kern.get(k) != got.get(k)]


def load_oracle(path):
    spec = importlib.util.spec_from_file_location("nf_oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def frame_of(nfo, p):
    """An Ethernet frame of packet @p p carrying TAG and its number."""
    ip = nfo.build_ip(p, TAG + struct.pack("!H", p.n))
    ether = 0x0800 if p.family == 4 else 0x86DD
    return bytes.fromhex("020000000002020000000001") + struct.pack("!H", ether) + ip


def number_of(frame):
    i = frame.find(TAG)
    return struct.unpack("!H", frame[i + len(TAG):i + len(TAG) + 2])[0] if i >= 0 else None


def kernel_verdicts(oracle, rules, pkts, tag, counters=None):
    """{packet number: 'accept' | 'drop'} from the kernel; None to skip.
    @counters, a dict, receives {"TABLE rule K" or "TABLE policy CHAIN": (packets, bytes)}."""
    r = subprocess.run([sys.executable, oracle, "run", "--tag", tag, rules, pkts],
                       capture_output=True, text=True, timeout=120)
    if r.returncode == SKIP:
        return None
    if r.returncode not in (0, 1):
        raise RuntimeError("the oracle failed (exit %d):\n%s" % (r.returncode, r.stderr))
    out = {}
    for line in r.stdout.splitlines():
        w = line.split()
        if len(w) == 6 and w[0] == "counters" and counters is not None:
            counters[" ".join(w[1:4])] = (int(w[4]), int(w[5]))
            continue
        if len(w) >= 3 and w[0].isdigit() and w[1] != "error":
            out[int(w[0])] = w[2]
        elif len(w) >= 2 and w[0].isdigit():
            raise RuntimeError("the oracle: %s" % line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gufc", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--tests", required=True)
    ap.add_argument("cases", nargs="*", help="rule file stems of CASES to run (default: all)")
    args = ap.parse_args()
    unknown = set(args.cases) - {c[0] for c in CASES}
    if unknown:
        print("FAIL: no such case: %s" % " ".join(sorted(unknown)))
        return 1
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("iptables-restore"):
        print("SKIP: needs root, ip and iptables")
        return SKIP
    nfo = load_oracle(args.oracle)
    work = tempfile.mkdtemp(prefix="gufc-fp-oracle-")
    bad = 0
    try:
        for n, (stem, cached) in enumerate(CASES):
            if args.cases and stem not in args.cases:
                continue
            rules = os.path.join(args.tests, stem + ".rules")
            pkts = os.path.join(args.tests, stem + ".pkts")
            kctr = {}
            kern = kernel_verdicts(args.oracle, rules, pkts, "fp%dx%d" % (os.getpid(), n), kctr)
            if kern is None:
                print("SKIP: the oracle cannot run here")
                return SKIP
            _, plist = nfo.parse_packets(pkts)
            with open(rules, encoding="utf-8") as f:
                family = nfo.detect_family(f.read())
            inp = os.path.join(work, stem + ".in.pcap")
            tx = os.path.join(work, stem + ".tx.pcap")
            js = os.path.join(work, stem + ".json")
            pcap_write(inp, [frame_of(nfo, p) for p in plist])
            r = subprocess.run(
                [args.gufc, "--no-pci", "-l", "0", "--no-huge", "-m", "512",
                 "--log-level=lib.*:warning", "--file-prefix", "gufc-fp-%d" % os.getpid(),
                 "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx), "--",
                 "--idle-exit", "300", "--burst", "1",
                 "--iptables" if family == 4 else "--ip6tables", rules,
                 "--stats-json", js], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                print("FAIL: %s: gufc exited %d:\n%s" % (stem, r.returncode,
                                                         (r.stdout + r.stderr)[-3000:]))
                bad += 1
                continue
            sent = {number_of(fr) for fr in pcap_read(tx)}
            diffs = 0
            for p in plist:
                want = kern.get(p.n)
                got = "accept" if p.n in sent else "drop"
                if want != got:
                    print("  %s packet %d (line %d): linux %s, gufc %s" %
                          (stem, p.n, p.lineno, want, got))
                    diffs += 1
            with open(js, encoding="utf-8") as f:
                st = json.load(f)
            sp, cache = st["slow_path"], st["cache"]
            per_packet = sp["per_packet"]
            line = ("%s: %d packets, %d differ; cache hits %d, misses %d; upcalls %d "
                    "(interest %d, per packet %d, flag class %d)" %
                    (stem, len(plist), diffs, cache["hits"], cache["misses"], sp["upcalls"],
                     sp["interest"], per_packet, sp["class"]))
            if stem in COUNTED:
                cdiffs = counter_diffs(rules, kctr, st, family)
                for c in cdiffs:
                    print("  %s counters %s" % (stem, c))
                diffs += len(cdiffs)
                line += "; counters %s" % ("differ" if cdiffs else "equal")
            if stem in QUOTA_LEFT:
                left = {(q["rule"], q["match"]): q["left"] for q in st.get("quota", [])}
                if left != QUOTA_LEFT[stem]:
                    line += "; quota left %s, want %s" % (left, QUOTA_LEFT[stem])
                    diffs += 1
            most = UPCALLS.get(stem)
            if most is not None and sp["upcalls"] - sp["pending"] > most:
                line += " (want at most %d upcalls but those that waited)" % most
                diffs += 1
            if diffs or (cached and (per_packet != 0 or cache["hits"] == 0)):
                print("FAIL: " + line + (" (want no per-packet upcall)" if cached else ""))
                bad += 1
            else:
                print("ok: " + line, flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        bad += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
