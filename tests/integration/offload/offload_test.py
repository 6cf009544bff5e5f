#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of --offload swnic on the real gufc (suite 'integration').

  offload_test.py TEST --build BUILDDIR --src SRCDIR

TEST: same (outputs with and without offload are the same packets, and the
"hardware" classified a share of them), tablefull (swnic:4 with more heavy
flows: refusals counted, outputs still the same), aging (short flow timeouts:
every offloaded flow leaves hardware when its entry ages), bytes (short
frames padded to Ethernet's 60 bytes: rule and policy counters count IP
datagrams, the same with offload as without).

Reuses tests/integration/app/app_test.py's helpers: every run checks the exit
status and the --stats-json accounting rx == delivered + sum(drops) (hw_drop
included) and a whole mempool. The live rule-change test is test_commit.sh.
"""

import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
import app_test as at  # noqa: E402

# A low threshold: every flow of a pcap replay is a heavy hitter.
OFL = ["--set", "offload-pps=1", "--set", "offload-interval=1"]

RULES = """\
policy accept
drop proto udp dport 53
drop src 10.0.128.0/17
"""


def gen(ctx, name, flows, packets, mix="tcp=40,udp=60", seed=5, extra=()):
    p = ctx.path(name)
    r = subprocess.run([ctx.gen, "-o", p, "--flows", str(flows), "--packets", str(packets),
                        "--mix", mix, "--seed", str(seed)] + list(extra),
                       capture_output=True, text=True, timeout=60)
    at.check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    return p


def outputs(ctx, tx):
    return sorted(at.tup(p) + (p["len"], p["id"], p["flags"]) for p in ctx.pcap_read(tx))


def hw_share(st):
    o = st["offload"]
    return (o["hw_classified"] + o["hw_dropped"]) / float(st["rx"]) if st["rx"] else 0.0


def pair(ctx, inp, tag, extra, ofl):
    rules = at.write(ctx, tag + ".rules", RULES)
    base = ["--rules", rules] + extra
    s0, tx0, _, _ = ctx.gufc_run(inp, base, tag + "-off")
    s1, tx1, _, out = ctx.gufc_run(inp, base + ofl, tag + "-on")
    at.check(s0["rx"] == s1["rx"], "%s: rx %d without offload, %d with" %
             (tag, s0["rx"], s1["rx"]))
    a, b = outputs(ctx, tx0), outputs(ctx, tx1)
    if a != b:
        extra_ = [x for x in b if x not in a][:5]
        missing = [x for x in a if x not in b][:5]
        raise at.Fail("%s: %d packets out with offload, %d without; extra %s missing %s" %
                      (tag, len(b), len(a), extra_, missing))
    at.check(s0["drops_total"] == s1["drops_total"], "%s: drops %s vs %s" %
             (tag, at.nz_drops(s0), at.nz_drops(s1)))
    at.check(s1["offload"]["backend"] == "swnic", "%s: backend %s" %
             (tag, s1["offload"]["backend"]))
    at.check("offload swnic" in out, "%s: no capability report in the log" % tag)
    return s0, s1


def test_same(ctx):
    inp = gen(ctx, "same.pcap", 24, 30000)
    for ct in ("off", "on"):
        _, s1 = pair(ctx, inp, "same-ct" + ct, ["--conntrack", ct], OFL + ["--offload", "swnic"])
        o = s1["offload"]
        print("same (conntrack %s): rx %d, hw share %.1f%% (marked %d, hw_drop %d, fallback "
              "%d), offloaded %d" % (ct, s1["rx"], 100 * hw_share(s1), o["hw_classified"],
                                     o["hw_dropped"], o["hw_fallback"], o["offloaded"]))
        at.check(o["offloaded"] > 0, "conntrack %s: no flow offloaded" % ct)
        at.check(hw_share(s1) > 0, "conntrack %s: nothing classified by hardware" % ct)
        at.check(s1["drops"]["hw_drop"] == o["hw_dropped"], "hw_drop != hw_dropped")


def test_tablefull(ctx):
    inp = gen(ctx, "full.pcap", 32, 30000, seed=9)
    _, s1 = pair(ctx, inp, "full", ["--conntrack", "off"], OFL + ["--offload", "swnic:4"])
    o = s1["offload"]
    print("tablefull: offloaded %d, table full %d, hw share %.1f%%" %
          (o["offloaded"], o["offload_full"], 100 * hw_share(s1)))
    at.check(o["offload_full"] > 0, "swnic:4: no refusal counted (%s)" % o)
    at.check(o["offloaded"] > 0, "swnic:4: nothing offloaded")


def test_aging(ctx):
    inp = gen(ctx, "age.pcap", 16, 20000, mix="udp=100", seed=3)
    rules = at.write(ctx, "age.rules", "policy accept\n")
    s, _, _, _ = ctx.gufc_run(inp, ["--rules", rules, "--conntrack", "off", "--set",
                                    "flow-timeout=50", "--idle-exit", "1500", "--offload",
                                    "swnic"] + OFL, "aging")
    o = s["offload"]
    print("aging: offloaded %d, removed %d (gone %d, cold %d), in hw at exit %d, flows "
          "created %d removed %d" % (o["offloaded"], o["removed"], o["removed_gone"],
                                     o["removed_cold"], o["in_hw"], s["flows"]["created"],
                                     s["flows"]["removed"]))
    at.check(o["offloaded"] > 0, "nothing offloaded")
    at.check(s["flows"]["active"] == 0 and s["flows"]["removed"] == s["flows"]["created"],
             "flows did not all age: %s" % s["flows"])
    # Measured before shutdown took the policy down: every rule went with its flow
    # (idle flows go cold first, a rule still there when its entry ages goes with it).
    at.check(o["in_hw"] == 0, "%d flows still in hardware after every flow aged" % o["in_hw"])
    at.check(o["removed"] == o["offloaded"], "removed %d != offloaded %d" %
             (o["removed"], o["offloaded"]))


def test_bytes(ctx):
    # Payloads of 0-6 bytes: every frame is padded (a 40-byte TCP ACK rides in
    # 46 bytes), so a marked packet counted as its frame less 14 counts more.
    inp = gen(ctx, "bytes.pcap", 8, 60000, mix="tcp=50,udp=50", seed=5, extra=("--size", "0-6"))
    rules = at.write(ctx, "bytes.rules",
                     "policy accept\naccept proto tcp\naccept proto udp dport 123\n")
    base = ["--rules", rules, "--conntrack", "off"]
    s0, _, _, _ = ctx.gufc_run(inp, base, "bytes-off")
    s1, _, _, _ = ctx.gufc_run(inp, base + OFL + ["--offload", "swnic"], "bytes-on")
    o = s1["offload"]
    print("bytes: rx %d, marked %d; rules %s; forward policy %s" %
          (s1["rx"], o["hw_classified"],
           [(x["packets"], x["bytes"]) for x in s1["rules"]],
           [(x["packets"], x["bytes"]) for x in s1["policies"]
            if x["table"] == "filter" and x["hook"] == "forward" and x["family"] == "ipv4"]))
    at.check(o["hw_classified"] > 0, "nothing classified by hardware")
    at.check(s0["rx_bytes"] == s1["rx_bytes"], "rx_bytes %d vs %d" %
             (s0["rx_bytes"], s1["rx_bytes"]))
    # Every frame is padded: datagrams are less than frames less 14.
    total = sum(x["bytes"] for x in s0["rules"]) + sum(x["bytes"] for x in s0["policies"]
                                                       if x["table"] == "filter")
    at.check(0 < total < s0["rx_bytes"] - 14 * s0["rx"],
             "counted %d bytes, frames less 14 are %d" % (total, s0["rx_bytes"] - 14 * s0["rx"]))
    for what in ("rules", "policies"):
        a = [(x.get("id"), x.get("hook"), x["packets"], x["bytes"]) for x in s0[what]]
        b = [(x.get("id"), x.get("hook"), x["packets"], x["bytes"]) for x in s1[what]]
        at.check(a == b, "%s counters differ with offload: %s vs %s" % (what, a, b))


TESTS = {"same": test_same, "tablefull": test_tablefull, "aging": test_aging,
         "bytes": test_bytes}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=sorted(TESTS))
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    ctx = at.Ctx(args, "ofl-" + args.test)
    ok = False
    try:
        TESTS[args.test](ctx)
        ok = True
    except at.Fail as e:
        print("FAIL: %s: %s" % (args.test, e))
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s: timed out: %s" % (args.test, " ".join(map(str, e.cmd))))
    finally:
        if args.keep or not ok:
            print("work directory: %s" % ctx.work)
        else:
            shutil.rmtree(ctx.work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
