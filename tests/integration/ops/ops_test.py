#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of what an operator runs against gufc (suite 'integration').

  ops_test.py TEST --build BUILDDIR --src SRCDIR

TEST is one of:
  pdump    dpdk-dumpcap captures a running gufc's port (hugepages: a secondary
           process shares the primary's memory) while the test replays a pcap
           into it (a veth in a namespace of its own); the capture's received
           packets are exactly the frames gufc received, its sent ones gufc's
           TX pcap;
  ipfix    IPFIX records over UDP through a port and in an IPFIX file, decoded
           by tshark's cflow dissector, against the replayed pcap (per flow
           direction: packets and bytes) and gufc's own counters (totals,
           per-rule counters, drops, show ipfix);
  metrics  scripts/gufc-prometheus.py scraped with urllib, the exposition
           format parsed strictly, the numbers against the telemetry answers
           around the scrape; the per-lcore busy/idle cycles in show lcores,
           /gufc/lcores, the metrics and the JSON;
  reload   kill -HUP after the rules file changed: the next packets get the
           new verdicts; a broken file leaves the rules, counted; the same
           for an iptables file named by the config.

Exit 0 pass, 1 fail, 77 skip.
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ops_lib import (PCAP_HDR, SKIP, Ctx, Fail, Gufc, Hugepages, Skip, check,  # noqa: E402
                     frame_ip_len, frame_tcp_flags, frame_tuple, load_stats, metric, parse_exposition,
                     pcap_frames, pcap_records, pcapng_packets, telemetry)


def cleanup_runtime(prefix):
    shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


# --------------------------------------------------------------------------
# pdump: dpdk-dumpcap against a running gufc
# --------------------------------------------------------------------------

# Frames [first, first + count) of a pcap onto a link.
INJECT = """
import socket, sys
sys.path.insert(0, sys.argv[1])
from ops_lib import pcap_frames
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[2], 0))
first, count = int(sys.argv[4]), int(sys.argv[5])
for f in pcap_frames(sys.argv[3])[first:first + count]:
    s.send(f)
"""
# Frames injected before gufc must have read them all: net_pcap's capture
# ring on the veth holds a few dozen frames of its snap length, and a
# whole pcap sent at once overflows it while gufc's RX lcore waits for a
# CPU on a loaded host (the kernel drops them: imissed).
INJECT_CHUNK = 16


def test_pdump(ctx):
    """gufc's port reads a veth in a network namespace of the test's own
    (net_pcap rx_iface_in), so the test decides when the pcap is replayed:
    once dpdk-dumpcap captures. (A FIFO would not do: the capture's own
    net_pcap opens the port's files too and would read it.)"""
    dumpcap, ip = shutil.which("dpdk-dumpcap"), shutil.which("ip")
    if dumpcap is None or ip is None:
        raise Skip("dpdk-dumpcap (Debian package dpdk) or ip (iproute2) missing")
    hp = Hugepages(ctx, 320)
    ns = "gufc-ops-%d" % os.getpid()
    nsx = [ip, "netns", "exec", ns]
    g = d = None
    try:
        for c in (["netns", "add", ns], ["-n", ns, "link", "add", "rx0", "type", "veth", "peer",
                                          "name", "inj0"]):
            r = subprocess.run([ip] + c, capture_output=True, text=True)
            if r.returncode != 0:
                raise Skip("no network namespace with a veth pair: %s" % r.stderr.strip())
        # Nothing but the test's frames on the link: no IPv6 chatter, no addresses.
        for c in (["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                  ["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"],
                  [ip, "link", "set", "rx0", "up"], [ip, "link", "set", "inj0", "up"]):
            r = subprocess.run(nsx + c, capture_output=True, text=True)
            check(r.returncode == 0, "%s: %s" % (" ".join(c), r.stderr))
        inp = ctx.gen_pcap("in.pcap", "-n", "24", "-p", "240", "--ipv6", "25", "--seed", "11")
        want = pcap_frames(inp)
        n = len(want)
        tx, js = ctx.path("tx.pcap"), ctx.path("stats.json")
        g = Gufc(ctx, ["-l", "0,1", "--huge-dir", hp.dir,
                       "--vdev=net_pcap0,rx_iface_in=rx0,tx_pcap=%s" % tx],
                 ["--flows", "4096", "--set", "mbufs=4095", "--stats-json", js], "pdump",
                 wrap=nsx)
        check("--no-huge" not in g.cmd, "gufc must run on hugepages here")
        cap, dlog = ctx.path("cap.pcapng"), ctx.path("dumpcap.log")
        # Line-buffered, so that "Capturing on" shows when it is printed.
        unbuf = ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []
        with open(dlog, "w") as lf:
            d = subprocess.Popen(nsx + unbuf + [dumpcap, "--file-prefix=" + g.prefix, "-i",
                                                "net_pcap0", "-w", cap, "-c", str(2 * n)],
                                 stdout=lf, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            with open(dlog) as f:
                dtext = f.read()
            if "Capturing on" in dtext:
                break
            check(d.poll() is None, "dpdk-dumpcap exited (%s):\n%s" % (d.returncode, dtext))
            check(time.monotonic() < deadline, "dpdk-dumpcap did not start:\n%s" % dtext)
            time.sleep(0.05)
        for first in range(0, n, INJECT_CHUNK):
            r = subprocess.run(nsx + [sys.executable, "-c", INJECT, os.path.dirname(
                os.path.abspath(__file__)), "inj0", inp, str(first), str(INJECT_CHUNK)],
                capture_output=True, text=True, timeout=30)
            check(r.returncode == 0, "injecting the pcap: %s" % r.stderr)
            g.wait_rx(min(n, first + INJECT_CHUNK))
        try:
            rc = d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise Fail("dpdk-dumpcap did not capture %d packets" % (2 * n))
        with open(dlog) as f:
            dtext = f.read()
        check(rc == 0, "dpdk-dumpcap exit %d:\n%s" % (rc, dtext))
        d = None
        g.quit()
        stats = load_stats(js)
        check(stats["rx"] == n, "gufc received %d, expected %d" % (stats["rx"], n))
        pk = pcapng_packets(cap)
        rx = [f for dirn, f in pk if dirn == "in"]
        out = [f for dirn, f in pk if dirn == "out"]
        check(len(rx) == n, "capture holds %d received packets, gufc received %d" % (len(rx), n))
        check(rx == want, "the captured received packets differ from the frames gufc received")
        sent = pcap_frames(tx)
        check(len(sent) == n and out == sent,
              "the captured sent packets (%d) differ from gufc's TX pcap (%d)" %
              (len(out), len(sent)))
        print("pdump: dpdk-dumpcap captured all %d packets gufc received and the %d it sent, "
              "byte for byte, in order" % (n, len(sent)))
    finally:
        if d is not None and d.poll() is None:
            d.kill()
            d.wait()
        if g is not None:
            g.kill()
            cleanup_runtime(g.prefix)
        subprocess.run([ip, "netns", "del", ns], capture_output=True)
        hp.close()


# --------------------------------------------------------------------------
# ipfix: records decoded by tshark against the pcap and gufc's counters
# --------------------------------------------------------------------------

def ts(text):
    """tshark's absolute time ("Dec  3, 2026 14:09:23.626000000 UTC") as epoch seconds."""
    base, frac = " ".join(text.split()).rsplit(".", 1)
    dt = datetime.datetime.strptime(base, "%b %d, %Y %H:%M:%S")
    return dt.replace(tzinfo=datetime.timezone.utc).timestamp() + int(frac.split()[0]) / 1e9


def tshark_ipfix(path, extra):
    """Messages of a capture or IPFIX file as tshark's cflow dissector decodes them."""
    env = dict(os.environ, TZ="UTC")
    r = subprocess.run(["tshark", "-r", path, "-T", "json", "--no-duplicate-keys"] + extra,
                       capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "tshark -r %s: %s" % (path, r.stderr))
    msgs = []
    for p in json.loads(r.stdout or "[]"):
        cf = p["_source"]["layers"].get("cflow")
        if cf is None:
            continue
        m = {"seq": int(cf["cflow.sequence"]), "domain": int(cf["cflow.od_id"]),
             "export": int(cf["cflow.timestamp_tree"]["cflow.exporttime"]), "templates": 0,
             "records": []}
        for k, v in cf.items():
            if not k.startswith("Set "):
                continue
            for s in v if isinstance(v, list) else [v]:
                if s["cflow.flowset_id"] == "2":
                    m["templates"] += 1
                    continue
                for fk, fv in s.items():
                    if fk.startswith("Flow "):
                        m["records"].append(fv)
        msgs.append(m)
    return msgs


def record(fv):
    """One decoded record as a dict of plain values."""
    v6 = "cflow.srcaddrv6" in fv
    ent = fv["cflow.enterprise_private_entry"]
    fs = fv["Forwarding Status"]
    tt = fv["cflow.timedelta_tree"]
    post = "_source_ipv6" if v6 else "source_ipv4"
    return {
        "key": (int(fv["cflow.protocol"]), fv["cflow.srcaddrv6" if v6 else "cflow.srcaddr"],
                int(fv["cflow.srcport"]), fv["cflow.dstaddrv6" if v6 else "cflow.dstaddr"],
                int(fv["cflow.dstport"])),
        "post_src": fv["cflow.post_nat%s_address" % post],
        "post_dst": fv["cflow.post_nat%s_address" % post.replace("source", "destination")],
        "packets": int(fv["cflow.packets"]),
        "octets": int(fv["cflow.octets"]),
        "start": ts(tt["cflow.abstimestart"]),
        "end": ts(tt["cflow.abstimeend"]),
        "reason": int(fv["cflow.flow_end_reason"]),
        "fwd": int(fs["cflow.forwarding_status"]),
        "rule": int(ent[0].replace(":", ""), 16),
        "drop": int(ent[1], 16),
        "reply": int(ent[2], 16),
    }


def ipfix_check(ctx, tag, msgs, frames, stats, t0, t1):
    """Records against the replayed frames and gufc's counters; returns the records."""
    check(msgs, "%s: no IPFIX message" % tag)
    check(msgs[0]["templates"] == 1, "%s: the first message has no template set" % tag)
    recs, seq = [], 0
    for m in msgs:
        check(m["seq"] == seq, "%s: sequence number %d, expected %d" % (tag, m["seq"], seq))
        seq += len(m["records"])
        recs += [record(fv) for fv in m["records"]]
    want, flags = {}, {}
    for fr in frames:
        t = frame_tuple(fr)
        p, b = want.get(t, (0, 0))
        want[t] = (p + 1, b + frame_ip_len(fr))
        conn = min(t, (t[0], t[3], t[4], t[1], t[2]))  # a connection's two directions
        flags[conn] = flags.get(conn, 0) | frame_tcp_flags(fr)
    got = {}
    for r in recs:
        p, b = got.get(r["key"], (0, 0))
        got[r["key"]] = (p + r["packets"], b + r["octets"])
        check(t0 - 1 <= r["start"] <= r["end"] <= t1 + 1,
              "%s: record times %.3f..%.3f outside the run %.3f..%.3f" %
              (tag, r["start"], r["end"], t0, t1))
        check(r["post_src"] == r["key"][1] and r["post_dst"] == r["key"][3],
              "%s: post-NAT addresses of an untranslated flow" % tag)
        k = r["key"]
        closed = k[0] == 6 and flags.get(min(k, (k[0], k[3], k[4], k[1], k[2])), 0) & 0x05
        check(r["reason"] == (3 if closed else 4),
              "%s: flowEndReason %d for %s (closed: %s)" % (tag, r["reason"], r["key"],
                                                          bool(closed)))
        check((r["fwd"] == 2) == (r["drop"] == 1), "%s: forwarding status %d, drop reason %d" %
              (tag, r["fwd"], r["drop"]))
    check(got == want, "%s: per-direction packets/bytes differ from the pcap: %d directions "
          "in the pcap, %d in the records; first differences: %s" %
          (tag, len(want), len(got),
           [(k, want.get(k), got.get(k)) for k in set(want) | set(got)
            if want.get(k) != got.get(k)][:4]))
    total = sum(r["packets"] for r in recs)
    check(total == stats["rx"], "%s: records count %d packets, gufc received %d" %
          (tag, total, stats["rx"]))
    # IPFIX octets are IP octets (RFC 7012 octetDeltaCount), the port's rx_bytes frames
    check(sum(r["octets"] for r in recs) == sum(frame_ip_len(fr) for fr in frames),
          "%s: bytes" % tag)
    for rule in stats["rules"]:
        n = sum(r["packets"] for r in recs if r["rule"] == rule["id"])
        check(n == rule["packets"], "%s: rule %d decided %d packets, records say %d" %
              (tag, rule["id"], rule["packets"], n))
    dropped = sum(r["packets"] for r in recs if r["drop"])
    check(dropped == stats["drops"]["filter"] > 0, "%s: dropped packets %d, filter drops %d" %
          (tag, dropped, stats["drops"]["filter"]))
    x = stats["ipfix"]
    check(x["enabled"] and x["records"] == len(recs) and x["send_failed"] == 0,
          "%s: JSON ipfix %s, %d records decoded" % (tag, x, len(recs)))
    check(x["records_eof"] + x["records_forced"] == len(recs) and x["records_eof"] > 0,
          "%s: end reasons %s" % (tag, x))
    check(x["messages"] == len(msgs) and x["templates"] == 1, "%s: %d messages decoded, JSON %s"
          % (tag, len(msgs), x))
    return recs


BAD_IPFIX = [  # (config text, line, column, message, token)
    ("ipfix collector 300.1.1.1:4739\n", 1, 17, "bad collector address", "300.1.1.1:4739"),
    ("ipfix collector 192.0.2.9:0\n", 1, 27, "collector port: 1..65535", "0"),
    ("ipfix collector [2001:db8::9]:x\n", 1, 31, "collector port: 1..65535", "x"),
    ("ipfix collector 192.0.2.9 port 9\n", 1, 32, "no such port", "9"),
    ("ipfix collector 192.0.2.9 active-timeout soon\n", 1, 42, "", "soon"),
    ("ipfix collector 192.0.2.9 source 2001:db8::1\n", 1, 34,
     "source: an address of the collector's family", "2001:db8::1"),
    ("ipfix collector 192.0.2.9 mac 00:11\n", 1, 31, "bad MAC address", "00:11"),
    ("ipfix collector 192.0.2.9 pen 0\n", 1, 31, "pen: a non-zero number", "0"),
    ("ipfix collector 192.0.2.9 colour blue\n", 1, 27, "unknown ipfix option", "colour"),
    ("ipfix collector 192.0.2.9 domain\n", 1, 27, "missing value after", "domain"),
    ("ipfix file f.ipfix mac 00:11:22:33:44:55\n", 1, 20, "only for 'ipfix collector'", "mac"),
    ("ipfix udp 192.0.2.9\n", 1, 7, "expected 'collector' or 'file'", "udp"),
    ("ipfix file\n", 1, 7, "missing value after", "file"),
    ("ipfix file a.ipfix\nipfix file b.ipfix\n", 2, 1, "ipfix given twice", "ipfix"),
]


def ipfix_bad_input(ctx, empty):
    """Bad "ipfix" lines: exit 2 naming FILE:LINE:COL and the word; nothing starts."""
    for i, (text, line, col, msg, tok) in enumerate(BAD_IPFIX):
        cfg = ctx.write("bad%d.conf" % i, text)
        pfx = ctx.prefix()
        r = subprocess.run([ctx.gufc, "--no-pci", "--no-huge", "-m", "512", "-l", "0",
                            "--log-level=lib.*:warning", "--file-prefix", pfx,
                            "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % empty, "--",
                            "--config", cfg], capture_output=True, text=True, timeout=60)
        cleanup_runtime(pfx)
        want = "%s:%d:%d: %s" % (cfg, line, col, msg)
        check(r.returncode == 2 and want in r.stderr and "'%s'" % tok in r.stderr,
              "%r: exit %d, expected 2 and '%s ... '%s'':\n%s" % (text, r.returncode, want, tok,
                                                                  r.stderr[-800:]))
    # A collector with no source address: refused at start (no 'local', no 'source').
    cfg = ctx.write("nosrc.conf", "ipfix collector 192.0.2.9\n")
    pfx = ctx.prefix()
    r = subprocess.run([ctx.gufc, "--no-pci", "--no-huge", "-m", "512", "-l", "0",
                        "--log-level=lib.*:warning", "--file-prefix", pfx,
                        "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % empty, "--",
                        "--config", cfg], capture_output=True, text=True, timeout=60)
    cleanup_runtime(pfx)
    check(r.returncode == 1 and "ipfix: no source address" in r.stdout + r.stderr,
          "no source address: exit %d\n%s" % (r.returncode, (r.stdout + r.stderr)[-800:]))


def test_ipfix(ctx):
    if shutil.which("tshark") is None:
        raise Skip("tshark missing")
    inp = ctx.gen_pcap("in.pcap", "-n", "60", "-p", "700", "--ipv6", "25", "--seed", "21")
    frames = pcap_frames(inp)
    empty = ctx.path("empty.pcap")
    with open(empty, "wb") as f:
        f.write(PCAP_HDR)
    # A drop that leaves no packet without a flow entry (a dropped echo request would
    # leave its replies INVALID, decided without an entry, in no record).
    rules = ctx.write("r.rules", "drop proto udp dport 53\naccept proto tcp\naccept\n")
    ipfix_bad_input(ctx, empty)
    runs = {
        "udp": "ipfix collector 192.0.2.200:4739 port 1 source 192.0.2.1 domain 7\n",
        "file": "ipfix file %s domain 7\n" % ctx.path("flows.ipfix"),
    }
    for tag, line in runs.items():
        # The clients (10/8) are this host: their packets arrive on port 0, a host port.
        cfg = ctx.write(tag + ".conf", "local 10.0.0.0/8\nport 0 host\nrules %s\n%s" %
                        (rules, line))
        tx0, tx1, js = ctx.path(tag + ".tx0.pcap"), ctx.path(tag + ".tx1.pcap"), \
            ctx.path(tag + ".json")
        pfx = ctx.prefix()
        cmd = [ctx.gufc, "--no-pci", "--no-huge", "-m", "512", "-l", "0",
               "--log-level=lib.*:warning", "--file-prefix", pfx,
               "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx0),
               "--vdev=net_pcap1,rx_pcap=%s,tx_pcap=%s" % (empty, tx1), "--",
               "--config", cfg, "--idle-exit", "300", "--flows", "4096", "--stats-json", js]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        t1 = time.time()
        cleanup_runtime(pfx)
        check(r.returncode == 0, "%s: gufc exit %d:\n%s" % (tag, r.returncode,
                                                           (r.stdout + r.stderr)[-3000:]))
        check("ipfix records" in r.stdout, "%s: no ipfix line in the summary" % tag)
        stats = load_stats(js)
        if tag == "udp":
            msgs = tshark_ipfix(tx1, ["-Y", "ip.src==192.0.2.1 && ip.dst==192.0.2.200 && cflow",
                                      "-d", "udp.port==4739,cflow"])
            check(stats["ipfix"]["frames"] == len(msgs), "udp: %d frames sent, %d decoded" %
                  (stats["ipfix"]["frames"], len(msgs)))
        else:
            msgs = tshark_ipfix(ctx.path("flows.ipfix"), [])
        check(all(m["domain"] == 7 for m in msgs), "%s: observation domain" % tag)
        recs = ipfix_check(ctx, tag, msgs, frames, stats, t0, t1)
        print("ipfix %s: %d messages, %d records (%d eof, %d forced) decoded by tshark; per "
              "direction packets and bytes equal the pcap's (%d packets); per-rule counters, "
              "filter drops and totals equal gufc's" %
              (tag, len(msgs), len(recs), sum(x["reason"] == 3 for x in recs),
               sum(x["reason"] == 4 for x in recs), stats["rx"]))


# --------------------------------------------------------------------------
# metrics: the Prometheus exporter, and the lcore cycles it shows
# --------------------------------------------------------------------------

TEL = ["/gufc/stats", "/gufc/drops", "/gufc/channels", "/gufc/rules", "/gufc/offload",
       "/gufc/lcores", "/gufc/ipfix"]


def lcore_cycles(tel):
    lc = tel["/gufc/lcores"]
    return {(str(lc["lcore"][i]), lc["role"][i]): (lc["busy_cycles"][i], lc["idle_cycles"][i])
            for i in range(len(lc["lcore"]))}


def test_metrics(ctx):
    inp = ctx.gen_pcap("in.pcap", "-n", "40", "-p", "500", "--ipv6", "20", "--seed", "31")
    n = len(pcap_frames(inp))
    rules = ctx.write("r.rules", "drop proto udp dport 53\naccept\n")
    cfg = ctx.write("m.conf", "rules %s\nipfix file %s\nchannel web kind discard\n" %
                    (rules, ctx.path("f.ipfix")))
    js = ctx.path("stats.json")
    g = Gufc(ctx, ["--no-huge", "-m", "512", "-l", "0,1",
                   "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, ctx.path("tx.pcap"))],
             ["--config", cfg, "--offload", "swnic", "--stats-json", js], "metrics")
    exp = None
    try:
        g.wait_rx(n)
        elog = ctx.path("exporter.log")
        with open(elog, "w") as lf:
            exp = subprocess.Popen([sys.executable, ctx.exporter, "--file-prefix", g.prefix,
                                    "--listen", "127.0.0.1:0"], stdout=lf,
                                   stderr=subprocess.STDOUT)
        deadline, port = time.monotonic() + 20, None
        while port is None:
            with open(elog) as f:
                t = f.read()
            if "serving http://" in t:
                port = int(t.split("serving http://127.0.0.1:")[1].split("/")[0])
                break
            check(exp.poll() is None, "exporter exited:\n" + t)
            check(time.monotonic() < deadline, "exporter did not start:\n" + t)
            time.sleep(0.05)
        url = "http://127.0.0.1:%d" % port
        a = telemetry(g.prefix, TEL)
        with urllib.request.urlopen(url + "/metrics", timeout=10) as resp:
            ctype = resp.headers["Content-Type"]
            body = resp.read().decode()
        b = telemetry(g.prefix, TEL)
        check(ctype.startswith("text/plain") and "version=0.0.4" in ctype,
              "content type %s" % ctype)
        fams = parse_exposition(body)
        try:
            urllib.request.urlopen(url + "/nosuch", timeout=10)
            raise Fail("/nosuch answered")
        except urllib.error.HTTPError as e:
            check(e.code == 404, "/nosuch: %d" % e.code)

        # Traffic is over: every counter but the cycles is the same before,
        # in and after the scrape.
        s = a["/gufc/stats"]
        check(s == {k: v for k, v in b["/gufc/stats"].items()}, "stats moved during the scrape")
        check(s["rx"] == n, "rx %d, expected %d" % (s["rx"], n))
        check(metric(fams, "gufc_up") == 1, "gufc_up")
        pairs = [("gufc_rx_packets_total", "rx"), ("gufc_rx_bytes_total", "rx_bytes"),
                 ("gufc_delivered_packets_total", "delivered"),
                 ("gufc_cache_hits_total", "hits"), ("gufc_cache_misses_total", "misses"),
                 ("gufc_upcalls_total", "upcalls"), ("gufc_flows_created_total", "flows_created"),
                 ("gufc_rule_generation", "generation"), ("gufc_rule_commits_total", "commits"),
                 ("gufc_slow_path_packets_total", "slow_packets"),
                 ("gufc_flow_cuckoo_moves_total", "flow_cuckoo_moves")]
        for name, key in pairs:
            check(metric(fams, name) == s[key], "%s %s != %s %s" %
                  (name, metric(fams, name), key, s[key]))
        check(metric(fams, "gufc_flow_entries", family="ipv4") == s["flows_active_v4"] and
              metric(fams, "gufc_flow_entries", family="ipv6") == s["flows_active_v6"],
              "flow entries")
        check(fams["gufc_flow_entries"]["type"] == "gauge" and
              fams["gufc_rx_packets_total"]["type"] == "counter", "types")
        check(abs(metric(fams, "gufc_cache_hit_ratio") -
                  s["hits"] / (s["hits"] + s["misses"])) < 1e-9, "hit ratio")
        drops = a["/gufc/drops"]
        for reason, v in drops.items():
            if reason != "total":
                check(metric(fams, "gufc_dropped_packets_total", reason=reason) == v,
                      "drops %s" % reason)
        check(sum(fams["gufc_dropped_packets_total"]["samples"].values()) == drops["total"] > 0,
              "drops total")
        ch = a["/gufc/channels"]
        for i, name in enumerate(ch["name"]):
            for col, m in (("enqueued", "gufc_channel_enqueued_packets_total"),
                           ("consumed", "gufc_channel_consumed_packets_total"),
                           ("drop_full", "gufc_channel_full_drops_total"),
                           ("bytes", "gufc_channel_bytes_total"),
                           ("in_ring", "gufc_channel_in_ring_packets")):
                check(metric(fams, m, channel=name, kind=ch["kind"][i]) == ch[col][i],
                      "channel %s %s" % (name, col))
        ru = a["/gufc/rules"]
        check(sum(1 for h in ru["hook"] if not h) == 2, "two rules")
        # The base chains' policies after the rules.
        check(sorted((f, t, h) for f, t, h in zip(ru["family"], ru["table"], ru["hook"]) if h) ==
              sorted((f, t, h) for f in ("ipv4", "ipv6")
                     for t, h in (("filter", "input"), ("filter", "forward"),
                                  ("filter", "output"), ("nat", "prerouting"),
                                  ("nat", "postrouting"))),
              "the policies of filter main's hooks and nat's dnat and snat, per family")
        for i, rid in enumerate(ru["id"]):
            if ru["hook"][i]:
                lab = dict(family=ru["family"][i], table=ru["table"][i], hook=ru["hook"][i],
                           chain=ru["chain"][i])
                check(metric(fams, "gufc_policy_packets_total", **lab) == ru["packets"][i] and
                      metric(fams, "gufc_policy_bytes_total", **lab) == ru["bytes"][i],
                      "policy %s" % ru["hook"][i])
                continue
            lab = dict(id=rid, table=ru["table"][i], chain=ru["chain"][i])
            check(metric(fams, "gufc_rule_packets_total", **lab) == ru["packets"][i] and
                  metric(fams, "gufc_rule_bytes_total", **lab) == ru["bytes"][i], "rule %d" % rid)
        off = a["/gufc/offload"]
        check(metric(fams, "gufc_offload_info", backend="swnic") == 1, "offload backend")
        for key in ("hw_classified", "hw_fallback", "rules_created", "offloaded"):
            check(metric(fams, "gufc_offload_%s_total" % key) == off[key], "offload " + key)
        check(metric(fams, "gufc_offload_rules") == off["rules"], "offload rules")
        # The exporter works on timers (active-timeout records of flows that
        # live on, records of flows that age out), not only on traffic: on a
        # slow host a minute passes and it writes again. Its counters only
        # grow, so the scrape's lie between the readings around it.
        ip, ipb = a["/gufc/ipfix"], b["/gufc/ipfix"]
        check(ip["enabled"] == 1, "ipfix enabled")
        for key, m in (("templates", "gufc_ipfix_templates_total"),
                       ("messages", "gufc_ipfix_messages_total")):
            check(ip[key] <= metric(fams, m) <= ipb[key],
                  "ipfix %s: %s <= %s <= %s" % (key, ip[key], metric(fams, m), ipb[key]))

        # Cycles move all the time: before <= scrape <= after, per lcore and role.
        ca, cb = lcore_cycles(a), lcore_cycles(b)
        check(set(ca) == {("0", "main"), ("0", "rules"), ("1", "rx")},
              "lcores and roles: %s" % sorted(ca))
        for (lcore, role), (busy, idle) in ca.items():
            sb = metric(fams, "gufc_lcore_busy_cycles_total", lcore=lcore, role=role)
            si = metric(fams, "gufc_lcore_idle_cycles_total", lcore=lcore, role=role)
            check(busy <= sb <= cb[(lcore, role)][0] and idle <= si <= cb[(lcore, role)][1],
                  "cycles of lcore %s %s: %s <= %s,%s <= %s" % (lcore, role, (busy, idle), sb, si,
                                                               cb[(lcore, role)]))
            check(sb > 0 and si > 0, "lcore %s %s: busy and idle cycles both counted" %
                  (lcore, role))
        for lcore in ("0", "1"):
            ratio = metric(fams, "gufc_lcore_busy_ratio", lcore=lcore)
            check(0 < ratio < 1, "busy ratio of lcore %s: %s" % (lcore, ratio))

        # The shell's table: the same lcores and roles, numbers at least the telemetry's.
        table = g.ask("show lcores")
        rows, cur = {}, None
        for line in table.splitlines()[1:]:
            f = line.split()
            if not f or f[0] == "TSC":
                continue
            if f[0].isdigit():
                cur = f[0]
                f = f[2:]
            rows[(cur, f[0])] = (int(f[1]), int(f[2]), float(f[3].rstrip("%")))
        for k, (busy, idle) in cb.items():
            check(k in rows and rows[k][0] >= busy and rows[k][1] >= idle,
                  "show lcores %s: %s, telemetry %s" % (k, rows.get(k), (busy, idle)))
        check(("0", "all") in rows and ("1", "all") in rows, "show lcores: 'all' rows")
        st = g.ask("show stats")
        check("lcore 0 (MR) busy" in st and "lcore 1 (X) busy" in st, "show stats: lcore lines")
        g.quit()
        js_stats = load_stats(js)
        lj = {x["lcore"]: x for x in js_stats["lcores"]}
        check(set(lj) == {0, 1} and lj[0]["roles"] == "MR" and lj[1]["roles"] == "X",
              "JSON lcores %s" % js_stats["lcores"])
        check(lj[1]["rx"]["busy_cycles"] >= cb[("1", "rx")][0] and
              0 < lj[1]["busy_share"] < 1 and js_stats["tsc_hz"] > 0, "JSON lcore 1 %s" % lj[1])
        # gufc is gone: the exporter says so.
        with urllib.request.urlopen(url + "/metrics", timeout=10) as resp:
            down = parse_exposition(resp.read().decode())
        check(metric(down, "gufc_up") == 0 and len(down) == 1, "gufc_up after gufc stopped")
        print("metrics: %d families, %d samples parsed strictly; counters equal /gufc/*, cycles "
              "between the readings around the scrape; show lcores, JSON consistent" %
              (len(fams), sum(len(x["samples"]) for x in fams.values())))
    finally:
        if exp is not None:
            exp.terminate()
            exp.wait()
        g.kill()
        cleanup_runtime(g.prefix)


# --------------------------------------------------------------------------
# reload: kill -HUP
# --------------------------------------------------------------------------

def replace(path, text):
    """Change a file the way editors do: write a copy, rename it over."""
    with open(path + ".new", "w") as f:
        f.write(text)
    os.rename(path + ".new", path)


def rule_rows(g):
    return [f for f in (line.split() for line in g.ask("show rules").splitlines())
            if len(f) > 6 and f[0].isdigit() and f[1] in ("filter", "nat")]


def test_reload(ctx):
    inp = ctx.gen_pcap("in.pcap", "-n", "1", "-p", "128", "--mix", "udp=100", "--no-replies",
                       "--size", "100")
    hdr, recs = pcap_records(inp)
    n1, n2 = 64, len(recs) - 64
    # Ids restart at 1 in every file: the flow's rule (2) is not the drop rule's id (1).
    rules = ctx.write("r.rules", "accept proto tcp\naccept\n")
    fifo = ctx.path("rx.fifo")
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR)
    tx, js = ctx.path("tx.pcap"), ctx.path("stats.json")
    os.write(fd, hdr + b"".join(recs[:n1]))
    g = Gufc(ctx, ["--no-huge", "-m", "512", "-l", "0,1",
                   "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (fifo, tx)],
             ["--rules", rules, "--burst", "32", "--stats-json", js], "reload")
    try:
        g.wait_rx(n1)
        replace(rules, "drop proto udp\naccept\n")
        os.kill(g.p.pid, signal.SIGHUP)
        m = g.wait_for(r"reload \(SIGHUP\): 2 rules from %s \(native\) committed: generation "
                       r"(\d+), load and commit \d+ us" % rules)
        gen = int(m.group(1))
        os.write(fd, b"".join(recs[n1:]))
        g.wait_rx(n1 + n2)
        rows = rule_rows(g)
        check(len(rows) == 2 and rows[0][-3:] == ["drop", "proto", "udp"] and
              int(rows[0][4]) == n2, "after the reload the drop rule decided %s, expected %d"
              % (rows[:1], n2))
        # A broken file: refused, counted, the rules stay.
        replace(rules, "drop proto udp\nacept\n")
        os.kill(g.p.pid, signal.SIGHUP)
        g.wait_for(r"reload \(SIGHUP\) failed: %s:2:1: .*'acept'.*the running rules stay "
                   r"\(generation %d\)" % (rules, gen))
        check(rule_rows(g)[0][-3:] == ["drop", "proto", "udp"], "rules changed by a bad file")
        st = g.ask("show stats")
        check("reloads (SIGHUP)     1 ok, 1 failed (last: 2 rules, generation %d" % gen in st,
              "show stats: %s" % st)
        tel = telemetry(g.prefix, ["/gufc/stats", "/gufc/rules"])["/gufc/stats"]
        check(tel["reloads_ok"] == 1 and tel["reloads_failed"] == 1 and tel["generation"] == gen,
              "telemetry reloads %s" % tel)
        os.close(fd)
        fd = -1
        g.quit()
        s = load_stats(js)
        check(s["reloads"]["ok"] == 1 and s["reloads"]["failed"] == 1 and
              s["reloads"]["last_generation"] == gen, "JSON reloads %s" % s["reloads"])
        check(s["drops"]["filter"] == n2, "filter drops %d, expected %d" %
              (s["drops"]["filter"], n2))
        check(len(pcap_frames(tx)) == n1, "TX pcap: %d packets, expected %d" %
              (len(pcap_frames(tx)), n1))
    finally:
        if fd >= 0:
            os.close(fd)
        g.kill()
        cleanup_runtime(g.prefix)

    # iptables, named by the config: the reload reads it again.
    ipt = ctx.write("r.ipt", "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
                    ":OUTPUT ACCEPT [0:0]\n-A FORWARD -p udp --dport 53 -j DROP\nCOMMIT\n")
    cfg = ctx.write("i.conf", "iptables %s\n" % os.path.basename(ipt))
    empty = ctx.path("empty.pcap")
    with open(empty, "wb") as f:
        f.write(PCAP_HDR)
    g = Gufc(ctx, ["--no-huge", "-m", "512", "-l", "0",
                   "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, ctx.path("tx2.pcap"))],
             ["--config", cfg], "reload-ipt")
    try:
        check(len(rule_rows(g)) == 1, "iptables: one rule at start")
        replace(ipt, "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
                "-A FORWARD -p udp --dport 53 -j DROP\n-A FORWARD -p tcp --dport 22 -j ACCEPT\n"
                "-A INPUT -p icmp -j ACCEPT\nCOMMIT\n")
        os.kill(g.p.pid, signal.SIGHUP)
        g.wait_for(r"reload \(SIGHUP\): 3 rules from %s \(iptables\) committed" % ipt)
        rows = rule_rows(g)
        check(len(rows) == 3, "iptables: %d rules after the reload, expected 3" % len(rows))
        # -m owner is refused (gufc has no local sockets), naming line 2.
        replace(ipt, "*filter\n-A OUTPUT -m owner --uid-owner 1000 -j ACCEPT\nCOMMIT\n")
        os.kill(g.p.pid, signal.SIGHUP)
        g.wait_for(r"reload \(SIGHUP\) failed: %s:2:.*the running rules stay" % ipt)
        check(rule_rows(g) == rows, "iptables: a bad file changed the rules")
        g.quit()
    finally:
        g.kill()
        cleanup_runtime(g.prefix)
    # Both families and the ipsets, named by the config: the reload reads all three
    # again, and a set the new rules name must be in the new ipset file.
    ipt = ctx.write("b.ipt", "*filter\n-A FORWARD -m set --match-set blk src -j DROP\nCOMMIT\n")
    ip6 = ctx.write("b6.ipt", "*filter\n-A FORWARD -p udp --dport 53 -j DROP\nCOMMIT\n")
    sets = ctx.write("b.ipset", "create blk hash:ip family inet\nadd blk 192.0.2.1\n")
    cfg = ctx.write("b.conf", "iptables b.ipt\nip6tables b6.ipt\nipset b.ipset\n")
    g = Gufc(ctx, ["--no-huge", "-m", "512", "-l", "0",
                   "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, ctx.path("tx3.pcap"))],
             ["--config", cfg], "reload-both")
    try:
        check(len(rule_rows(g)) == 2, "both families: two rules at start")
        replace(sets, "create blk hash:ip family inet\nadd blk 192.0.2.1\n"
                "create blk2 hash:net family inet\nadd blk2 198.51.100.0/24\n")
        replace(ipt, "*filter\n-A FORWARD -m set --match-set blk src -j DROP\n"
                "-A FORWARD -m set --match-set blk2 dst -j DROP\nCOMMIT\n")
        replace(ip6, "*filter\n-A FORWARD -p udp --dport 53 -j DROP\n"
                "-A FORWARD -p udp --dport 123 -j DROP\nCOMMIT\n")
        os.kill(g.p.pid, signal.SIGHUP)
        g.wait_for(r"reload \(SIGHUP\): 4 rules from %s \(iptables\) \+ %s \(ip6tables\) "
                   r"with the ipsets of %s committed" % (ipt, ip6, sets))
        rows = rule_rows(g)
        check(len(rows) == 4, "both families: %d rules after the reload, expected 4" % len(rows))
        # A rule naming a set the ipset file lacks: refused whole, the old sets kept.
        replace(ipt, "*filter\n-A FORWARD -m set --match-set nosuch src -j DROP\nCOMMIT\n")
        os.kill(g.p.pid, signal.SIGHUP)
        g.wait_for(r"reload \(SIGHUP\) failed: .*nosuch.*the running rules stay")
        check(rule_rows(g) == rows, "both families: a bad file changed the rules")
        g.quit()
    finally:
        g.kill()
        cleanup_runtime(g.prefix)
    print("reload: kill -HUP committed the changed native file (the next %d packets dropped "
          "by the new rule) and iptables file; broken files refused, counted, rules kept" % n2)


TESTS = {"pdump": test_pdump, "ipfix": test_ipfix, "metrics": test_metrics,
         "reload": test_reload}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=sorted(TESTS))
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda sig, _f: sys.exit(128 + sig))
    ctx = Ctx(args, args.test)
    for tool in (ctx.gufc, ctx.gen):
        if not os.access(tool, os.X_OK):
            print("SKIP: %s not built" % tool)
            return SKIP
    t0 = time.monotonic()
    ok = skipped = False
    try:
        TESTS[args.test](ctx)
        ok = True
    except Skip as e:
        print("SKIP: %s: %s" % (args.test, e))
        skipped = True
    except Fail as e:
        print("FAIL: %s: %s" % (args.test, e))
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s: timed out: %s" % (args.test, " ".join(map(str, e.cmd))))
    if args.keep or not (ok or skipped):
        print("work directory: %s" % ctx.work)
    else:
        shutil.rmtree(ctx.work, ignore_errors=True)
    if skipped:
        return SKIP
    print("%s: %s in %.1f s" % (args.test, "ok" if ok else "FAILED", time.monotonic() - t0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
