#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per forwarded packet, stage by stage, end to end.

Runs gufc (or dpdk-testpmd io) under callgrind on the ports of
scripts/bench-e2e.sh and bench-peers (net_pcap replaying a gufc-gen --bench
pcap with infinite_rx=1 into net_null, no-rx=1), turns instrumentation on
after a warm-up, dumps after a window, and prints what each stage costs per
forwarded packet. Instructions do not depend on the load of the machine,
cycles do: this is the count to compare trees with on a shared host.

  scripts/profile-e2e.py                         gufc, one lcore, --conntrack off
  scripts/profile-e2e.py --lcores 2              gufc -l 0,1 (RX on 1, main+rules on 0)
  scripts/profile-e2e.py --rules FILE            gufc with rules (conntrack on)
  scripts/profile-e2e.py --testpmd               dpdk-testpmd io on the same ports

Packets: net_pcap's infinite_rx always fills the burst, so the packets are
the RX bursts counted (calls of the datapath's dp_rx_burst(), or of the
PMD's RX function for testpmd) times the burst size.

Time-based work: the rules role runs a background step of GUFC_STEP_BUDGET
slots about every millisecond. callgrind slows gufc down some 50 times, so
that step runs about once per pass instead of once per ~200 bursts: its
row is printed apart ("millisecond step, as profiled") and left out of the
native estimate, which counts it at the rate of a native run instead
(--native-mpps, per packet: its instructions per call / packets per ms).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
GUFC = os.path.join(ROOT, "build/app/gufc")
GEN = os.path.join(ROOT, "build/app/tools/gufc-gen")

# librte_net_pcap's infinite RX and librte_net_null's TX burst (no symbols
# in Debian's build: matched by library and position in the call graph).
LIB_RX, LIB_TX = "librte_net_pcap", "librte_net_null"


def annotate(path):
    """{function: inclusive Ir}, {caller: {callee: (Ir, calls)}} of one
    callgrind file, and the per-line calls of gufc_slow.c's two steps."""
    # (Run from /: from the source tree, callgrind_annotate lists some
    # functions twice, under their relative and their absolute file names.)
    path = os.path.abspath(path)
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=calling", "--show=Ir",
                          path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd="/").stdout
    incl, calls, cur = {}, {}, None
    pat = re.compile(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?([*>])\s+(.*?)"
                     r"(?: \(([\d,]+)x\))?(?: \[(.*)\])?$")
    for line in out.splitlines():
        m = pat.match(line)
        if not m:
            continue
        ir = int(m.group(1).replace(",", ""))
        name = re.sub(r"^.*/", "", m.group(3))
        if name.startswith("???:"):
            lib = os.path.basename(m.group(5) or "").split(".so")[0]
            name = lib + ":" + name[4:]
        if m.group(2) == "*":
            cur = name
            incl[name] = incl.get(name, 0) + ir
        elif cur is not None:
            n = int(m.group(4).replace(",", "")) if m.group(4) else 0
            a = calls.setdefault(cur, {}).get(name, (0, 0))
            calls[cur][name] = (a[0] + ir, a[1] + n)
    steps = []
    out = subprocess.run(["callgrind_annotate", "--auto=yes", "--show-percs=no", "--show=Ir", path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd="/").stdout
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+=> .*gufc_slow\.c:slow_step \(([\d,]+)x\)", line)
        if m:
            steps.append((int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))))
    return incl, calls, steps


# Functions whose D1 and LL misses --cache-sim prints (inclusive), per packet.
MISS_FUNCS = ("gufc_rx.c:gufc_rx_poll", "dp_rx.c:dp_rx_burst", "parse.c:fc_parse_burst",
              "table_bkt.c:fc_table_lookup_bulk", "dp_rx.c:dp_apply_family",
              "dp_rx.c:dp_apply_general", "dp_rx.c:dp_deliver_burst")


def misses(path):
    """{function: (D1 misses, LL misses)} inclusive, reads and writes, of
    MISS_FUNCS in one callgrind file run with --cache-sim=yes."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--show-percs=no",
                          "--show=D1mr,D1mw,DLmr,DLmw", os.path.abspath(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd="/").stdout
    res = {}
    pat = re.compile(r"^\s*([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+(\S+)")
    for line in out.splitlines():
        m = pat.match(line)
        if not m:
            continue
        name = re.sub(r"^.*/", "", m.group(5))
        if name in MISS_FUNCS:
            v = [int(m.group(i).replace(",", "")) for i in range(1, 5)]
            a = res.get(name, (0, 0))
            res[name] = (a[0] + v[0] + v[1], a[1] + v[2] + v[3])
    return res


def total_ir(path):
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    return 0


def by_lib(d, lib):
    return sum(v for k, v in d.items() if k.startswith(lib + ":"))


def callee_calls(calls, callee_pred):
    return sum(n for d in calls.values() for k, (v, n) in d.items() if callee_pred(k))


def stages(files, burst):
    """Rows (stage, Ir per packet) of the RX lcore's thread (every role, on
    one lcore); the Ir of the other threads apart (another lcore polling:
    under callgrind, which runs one thread at a time, what it counts
    follows the scheduling, not the packets)."""
    incl, calls, steps, tot, other = {}, {}, [], 0, 0
    for path in files:
        i, c, s = annotate(path)
        t = total_ir(path)
        if not ("dp_rx.c:dp_rx_burst" in i or by_lib(i, LIB_RX)):
            other += t
            continue
        tot += t
        for k, v in i.items():
            incl[k] = incl.get(k, 0) + v
        for k, d in c.items():
            for kk, (v, n) in d.items():
                a = calls.setdefault(k, {}).get(kk, (0, 0))
                calls[k][kk] = (a[0] + v, a[1] + n)
        steps += s
    g = incl.get
    gufc = "gufc_main.c:lcore_loop" in incl
    bursts = callee_calls(calls, lambda k: k == "dp_rx.c:dp_rx_burst") if gufc else \
        callee_calls(calls, lambda k: k.startswith(LIB_RX + ":"))
    pk = bursts * burst
    if pk == 0:
        sys.exit("profile-e2e: no RX burst in the profile")
    # The PMDs' entry points: the functions others call (inclusive of their callees).
    rx = max((v for k, v in incl.items() if k.startswith(LIB_RX + ":")), default=0)
    tx = max((v for k, v in incl.items() if k.startswith(LIB_TX + ":")), default=0)
    rows = []
    if not gufc:
        rows = [("rx burst (net_pcap)", rx), ("tx burst (net_null: mbuf frees)", tx),
                ("the forwarding loop", tot - rx - tx)]
        return pk, tot, other, rows, None
    # The lookup lived in table.c with rte_hash, in table_bkt.c since the table's own buckets.
    lookup = (g("table.c:fc_table_hash_bulk", 0) + g("table.c:fc_table_lookup_bulk", 0) +
              g("table_bkt.c:fc_table_lookup_bulk", 0))
    common = g("dp_rx.c:dp_rx_burst", 0)
    deliver = g("dp_rx.c:dp_deliver_burst", 0)
    # TX bursts of the channel consumers (ring path) vs the producers' own (direct TX).
    tx_cons = sum(v for k, d in calls.items() if k.startswith("io.c:chan_")
                  and k not in ("io.c:chan_enqueue",) for kk, (v, n) in d.items()
                  if kk.startswith(LIB_TX + ":"))
    cons = g("gufc_slow.c:gufc_consume", 0)
    slow = g("gufc_slow.c:gufc_slow_poll", 0)
    poll = g("gufc_rx.c:gufc_rx_poll", 0)
    ms_step = steps[0] if steps else (0, 0)
    idle_step = steps[1] if len(steps) > 1 else (0, 0)
    rows = [
        ("rx burst (net_pcap)", rx),
        ("parse", g("parse.c:fc_parse_burst", 0)),
        ("local bits", g("locals.c:fc_locals_mark_burst", 0)),
        ("hash + lookup (buckets, key, entry, action copy)", lookup),
        ("apply (checks, verdict, counters)", g("dp_rx.c:dp_apply_family", 0) - lookup),
        ("  of which the general path (NAT, meters, ...)", g("dp_rx.c:dp_apply_general", 0)),
        ("burst bookkeeping (dp_rx_burst's own)", common - g("parse.c:fc_parse_burst", 0)
         - g("locals.c:fc_locals_mark_burst", 0) - g("dp_rx.c:dp_apply_family", 0) - deliver),
        ("delivery (channel enqueue, counters)", deliver - (tx - tx_cons)),
        ("tx burst (net_null: mbuf frees)", tx),
        ("RX role's loop (done poll, quiescent, clock)", poll - rx - common),
        ("channel consumers' pass (without TX)", cons - tx_cons),
        ("rules role: idle step (per pass)", idle_step[0]),
        ("rules role: the rest of its pass", slow - ms_step[0] - idle_step[0]),
        ("main role, lcore loop, cycle accounting", tot - poll - slow - cons),
    ]
    ms = (ms_step[0], ms_step[1])
    if poll == 0:
        sys.exit("profile-e2e: no RX role in the RX thread's profile")
    return pk, tot, other, rows, ms


def gen_pcap(work, flows):
    pcap = os.path.join(work, "bench.pcap")
    subprocess.run([GEN, "-o", pcap, "-n", str(flows), "-p", str(flows * 4), "--bench",
                    "--seed", "1"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return pcap, flows * 4


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lcores", type=int, choices=(1, 2), default=1)
    p.add_argument("--rules", help="gufc rules file (default: none, --conntrack off)")
    p.add_argument("--testpmd", action="store_true", help="profile dpdk-testpmd io instead")
    p.add_argument("--burst", type=int, default=32)
    p.add_argument("--flows", type=int, default=10000)
    p.add_argument("--warmup", type=float, default=25.0, help="seconds before counting")
    p.add_argument("--seconds", type=float, default=15.0, help="seconds counted")
    p.add_argument("--native-mpps", type=float, default=7.0,
                   help="native rate the millisecond step is counted at (default 7)")
    p.add_argument("--gufc", default=GUFC, help="the gufc binary (default build/app/gufc)")
    p.add_argument("--cache-sim", action="store_true",
                   help="callgrind's cache simulation: D1 and LL misses per packet too")
    p.add_argument("--keep", help="keep the callgrind files in this directory")
    p.add_argument("--analyze", metavar="DIR",
                   help="print the table of a run kept with --keep (same options)")
    a = p.parse_args()
    if a.analyze:
        report(a, a.analyze)
        return

    work = a.keep or tempfile.mkdtemp(prefix="gufc-prof-")
    os.makedirs(work, exist_ok=True)
    pcap, pkts = gen_pcap(work, a.flows)
    mbufs = (pkts + 16384) | 1023
    prefix = "gufc-prof-%d" % os.getpid()
    eal = ["--no-huge", "-m", str(mbufs * 3 // 1024 + 1024), "--no-pci", "--file-prefix", prefix,
           "--log-level", "lib.*:warning",
           "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "--vdev=net_null0,no-rx=1"]
    if a.testpmd:
        cmd = ["dpdk-testpmd", "-l", "0,1"] + eal + [
            "--", "--forward-mode=io", "--nb-cores=1", "--stats-period", "3600",
            "--total-num-mbufs=%d" % mbufs, "--burst=%d" % a.burst, "--auto-start"]
    else:
        cmd = [a.gufc, "-l", "0" if a.lcores == 1 else "0,1"] + eal + [
            "--", "--flows", "65536", "--set", "mbufs=%d" % mbufs, "--burst", str(a.burst)]
        cmd += ["--rules", a.rules] if a.rules else ["--conntrack", "off"]
    out = os.path.join(work, "callgrind.out")
    vg = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out,
          "--separate-threads=yes"] + (["--cache-sim=yes"] if a.cache_sim else [])
    log = open(os.path.join(work, "run.log"), "w")
    proc = subprocess.Popen(vg + cmd, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.PIPE if a.testpmd else subprocess.DEVNULL)
    ctl = lambda *x: subprocess.run(["callgrind_control"] + list(x) + [str(proc.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(a.warmup)
        if proc.poll() is not None:
            sys.exit("profile-e2e: the run ended early, see %s" % log.name)
        ctl("-z")
        ctl("-i", "on")
        time.sleep(a.seconds)
        ctl("-d")
        ctl("-i", "off")
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        # The run's DPDK runtime directory stays behind otherwise.
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
    report(a, work)
    if not a.keep:
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)


def report(a, work):
    files = sorted(os.path.join(work, f) for f in os.listdir(work)
                   if f.startswith("callgrind.out.1"))
    if not files:
        sys.exit("profile-e2e: no dump in %s" % work)
    pk, tot, other, rows, ms = stages(files, a.burst)
    what = "testpmd io" if a.testpmd else "gufc, %d lcore%s, %s" % (
        a.lcores, "s" if a.lcores > 1 else "", "rules " + a.rules if a.rules else "--conntrack off")
    print("%s: %d packets forwarded while counted (burst %d)" % (what, pk, a.burst))
    print("%-48s %10s" % ("stage", "Ir/packet"))
    for name, v in rows:
        print("%-48s %10.1f" % (name, v / pk))
    if ms is not None:
        ms_ir, ms_calls = ms
        per_call = ms_ir / ms_calls if ms_calls else 0
        native = per_call / (a.native_mpps * 1000.0)
        print("%-48s %10.1f" % ("millisecond step, as profiled (%d calls)" % ms_calls, ms_ir / pk))
        print("%-48s %10.1f" % ("all, as profiled", tot / pk))
        print("%-48s %10.1f" % ("millisecond step at %.1f Mpps native" % a.native_mpps, native))
        print("%-48s %10.1f" % ("all, native estimate", (tot - ms_ir) / pk + native))
    else:
        print("%-48s %10.1f" % ("all", tot / pk))
    if getattr(a, "cache_sim", False):
        acc = {}
        for path in files:
            for k, v in misses(path).items():
                b = acc.get(k, (0, 0))
                acc[k] = (b[0] + v[0], b[1] + v[1])
        print("%-48s %10s %10s" % ("inclusive, per packet", "D1 misses", "LL misses"))
        for k in MISS_FUNCS:
            if k in acc:
                print("%-48s %10.2f %10.2f" % (k, acc[k][0] / pk, acc[k][1] / pk))
    if other:
        print("the other threads (polling lcore, EAL's): %.1f Ir/packet, as callgrind "
              "scheduled them" % (other / pk))


if __name__ == "__main__":
    main()
