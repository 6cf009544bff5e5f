#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of the gufc binary on net_pcap (suite 'integration').

  app_test.py TEST --build BUILDDIR --src SRCDIR

TEST is one of: rules, conntrack, nat, iptables, consumer, badargs, perflow (each a
meson test of its own; see tests/integration/app/meson.build).

Every run of gufc replays an input pcap through one net_pcap port (rx_pcap,
tx_pcap) until --idle-exit, and every run is checked for its exit status
and its --stats-json accounting: rx == delivered + sum(drops), the mempool
whole. Output pcaps are read with pcap_check (libpcap and a header decoder
of its own, not gufc's parser); input pcaps are either gufc-gen's (with its
--flows-file) or written here (pcap_write) from hand-built frames.

Python 3 standard library only. Exit 0 pass, 1 fail, 77 skip.
"""

import argparse
import collections
import hashlib
import ipaddress
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import eal_dirs  # noqa: E402

SKIP = 77
EAL_BASE = ["--no-pci", "-l", "0", "--log-level=lib.*:warning"]


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


# --------------------------------------------------------------------------
# Frames and pcap writing
# --------------------------------------------------------------------------

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")


def csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def l4_frame(proto, src, sport, dst, dport, flags="", payload=b"", ident=0, icmp_type=None,
             seq=1000, ack=0):
    """An Ethernet frame: IPv4 or IPv6 (from the addresses), TCP/UDP/ICMP/SCTP."""
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    v6 = s.version == 6
    if proto == "tcp":
        bits = sum({"F": 1, "S": 2, "R": 4, "P": 8, "A": 16, "U": 32, "E": 64, "C": 128}[c]
                   for c in flags)
        hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, bits, 65535, 0, 0)
        l4, pn = hdr + payload, 6
    elif proto == "udp":
        l4, pn = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload, 17
    elif proto in ("icmp", "icmpv6"):
        pn = 58 if v6 else 1
        t = icmp_type if icmp_type is not None else (128 if v6 else 8)
        l4 = struct.pack("!BBHHH", t, 0, 0, sport, 1) + payload
    elif proto == "sctp":
        # common header + INIT chunk (checksum left 0: nobody verifies it here)
        init = struct.pack("!BBHIIHHI", 1, 0, 20, 0x1234, 65535, 1, 1, 1)
        l4, pn = struct.pack("!HHII", sport, dport, 0, 0) + init, 132
    else:
        l4, pn = payload, int(proto)
    if v6:
        pseudo = s.packed + d.packed + struct.pack("!IxxxB", len(l4), pn)
    else:
        pseudo = s.packed + d.packed + struct.pack("!xBH", pn, len(l4))
    if pn in (6, 17) or pn == 58:
        ck = csum(pseudo + l4)
        if pn == 17 and ck == 0:
            ck = 0xFFFF
        off = {6: 16, 17: 6, 58: 2}[pn]
        l4 = l4[:off] + struct.pack("!H", ck) + l4[off + 2:]
    elif pn == 1:
        l4 = l4[:2] + struct.pack("!H", csum(l4)) + l4[4:]
    if v6:
        ip = struct.pack("!IHBB", 0x60000000 | (ident & 0xFFFFF), len(l4), pn, 64) + \
            s.packed + d.packed
        return MAC_B + MAC_A + b"\x86\xdd" + ip + l4
    ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(l4), ident & 0xFFFF, 0, 64, pn, 0) + \
        s.packed + d.packed
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return MAC_B + MAC_A + b"\x08\x00" + ip + l4


def pcap_write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i * 10, len(fr), len(fr)))
            f.write(fr)


# --------------------------------------------------------------------------
# Running things
# --------------------------------------------------------------------------

class Ctx:
    def __init__(self, args, name):
        self.build = os.path.abspath(args.build)
        self.src = os.path.abspath(args.src)
        self.gufc = os.path.join(self.build, "app", "gufc")
        self.gen = os.path.join(self.build, "app", "tools", "gufc-gen")
        self.consume = os.path.join(self.build, "app", "tools", "gufc-consume")
        self.check = os.path.join(self.build, "tests", "integration", "app", "pcap_check")
        self.ipt_eval = os.path.join(self.build, "tests", "integration", "netfilter", "ipt_eval")
        self.name = name
        self.work = tempfile.mkdtemp(prefix="gufc-app-%s-" % name)
        # EAL file prefixes: their directories are removed at exit if a gufc left them.
        self.prefixes = eal_dirs.Prefixes("gufc-it-%s-%d-" % (name, os.getpid()) + "%d")

    def path(self, *p):
        return os.path.join(self.work, *p)

    def prefix(self):
        return self.prefixes.new()

    def gufc_run(self, inp, gufc_args, tag, huge=False, expect_rc=0, timeout=60):
        """Replay @inp through gufc; return (stats dict, tx pcap, pcap dir, stdout+stderr)."""
        tx = self.path(tag + ".tx.pcap")
        pdir = self.path(tag + ".out")
        os.makedirs(pdir, exist_ok=True)
        js = self.path(tag + ".stats.json")
        eal = EAL_BASE + ["--file-prefix", self.prefix()]
        if not huge:
            eal += ["--no-huge", "-m", "512"]
        cmd = [self.gufc] + eal + ["--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx), "--",
                                   "--idle-exit", "300", "--flows", "4096",
                                   "--channel-pcap-dir", pdir, "--stats-json", js] + gufc_args
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
        check(r.returncode == expect_rc, "%s: gufc exit %d, expected %d\n%s\n%s" %
              (tag, r.returncode, expect_rc, " ".join(cmd), out[-3000:]))
        stats = load_stats(js, tag)
        return stats, tx, pdir, out

    def pcap_read(self, path):
        """Packets of a pcap, as pcap_check decodes them (dicts)."""
        r = subprocess.run([self.check, path], capture_output=True, text=True, timeout=30)
        check(r.returncode == 0, "pcap_check %s: %s" % (path, r.stderr))
        pk = []
        for line in r.stdout.splitlines():
            f = line.split()
            pk.append({"proto": f[1], "src": f[2], "sport": int(f[3]), "dst": f[4],
                       "dport": int(f[5]), "len": int(f[6]), "flags": f[7], "ipck": f[8],
                       "l4ck": f[9], "id": int(f[10])})
        return pk


def load_stats(js, tag):
    check(os.path.exists(js), "%s: no --stats-json file" % tag)
    with open(js, encoding="utf-8") as f:
        s = json.load(f)
    drops = sum(s["drops"].values())
    check(drops == s["drops_total"], "%s: drops_total %d != sum of drops %d" %
          (tag, s["drops_total"], drops))
    check(s["rx"] == s["delivered"] + drops,
          "%s: accounting: rx %d != delivered %d + drops %d" % (tag, s["rx"], s["delivered"],
                                                                drops))
    check(s["accounting"]["ok"], "%s: accounting not ok in JSON" % tag)
    check(s["mempool"]["whole"], "%s: mempool not whole" % tag)
    return s


def tup(p):
    return (p["proto"], p["src"], p["sport"], p["dst"], p["dport"])


def chan(stats, name):
    for c in stats["channels"]:
        if c["name"] == name:
            return c
    raise Fail("no channel %s in stats" % name)


def nz_drops(stats):
    return {k: v for k, v in stats["drops"].items() if v}


def write(ctx, name, text):
    p = ctx.path(name)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)
    return p


# --------------------------------------------------------------------------
# rules: rules in, expected packets out per channel
# --------------------------------------------------------------------------

# The rule set, as text and as the test's own model of it (first match):
# (action, proto number or None, src prefix or None, sport set, dport set).
RULES_TEXT = """\
policy drop
accept channel web proto tcp dport 80
accept channel web proto tcp sport 80
accept channel dns proto udp dport 53
drop src 10.0.128.0/17
accept proto udp sport 53
accept proto icmp
accept proto tcp dport 22
accept proto tcp sport 22 src 192.0.2.0/25
drop proto udp
accept ipv6 proto tcp sport 443
"""
RULES_MODEL = [
    ("web", "tcp", None, None, {80}),
    ("web", "tcp", None, {80}, None),
    ("dns", "udp", None, None, {53}),
    ("drop", None, "10.0.128.0/17", None, None),
    ("tx", "udp", None, {53}, None),
    ("tx", "icmp", None, None, None),
    ("tx", "tcp", None, None, {22}),
    ("tx", "tcp", "192.0.2.0/25", {22}, None),
    ("drop", "udp", None, None, None),
    ("tx", "tcp", "::/0", {443}, None),
]


def model_verdict(p):
    a = ipaddress.ip_address(p["src"])
    for act, proto, src, sports, dports in RULES_MODEL:
        if proto is not None and p["proto"] != proto:
            continue
        if src is not None:
            n = ipaddress.ip_network(src)
            if a.version != n.version or a not in n:
                continue
        if sports is not None and p["sport"] not in sports:
            continue
        if dports is not None and p["dport"] not in dports:
            continue
        return act
    return "drop"  # policy


def flows_file(path):
    """gufc-gen's flow list: (proto, src, sport, dst, dport) -> frames."""
    flows = {}
    rx = re.compile(r"^\d+ (\S+) (\S+) -> (\S+) .* frames=(\d+)")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = rx.match(line)
            if not m:
                continue

            def ep(s):
                h, _, port = s.rpartition(":")
                return h.strip("[]"), int(port)
            (s, sp), (d, dp) = ep(m.group(2)), ep(m.group(3))
            flows[(m.group(1), s, sp, d, dp)] = int(m.group(4))
    return flows


def flow_of(p, flows):
    """The flow-list key of an input packet (either direction), or None."""
    proto = {"icmp6": "icmpv6"}.get(p["proto"], p["proto"])
    s, d = str(ipaddress.ip_address(p["src"])), str(ipaddress.ip_address(p["dst"]))
    if proto in ("icmp", "icmpv6"):
        for k in flows:
            if k[0] == proto and k[2] == p["sport"] and {k[1], k[3]} == {s, d}:
                return k
        return None
    for k in ((proto, s, p["sport"], d, p["dport"]), (proto, d, p["dport"], s, p["sport"])):
        if k in flows:
            return k
    return None


def test_rules(ctx):
    inp, ff = ctx.path("in.pcap"), ctx.path("in.flows")
    r = subprocess.run([ctx.gen, "-o", inp, "--flows-file", ff, "--flows", "80", "--packets",
                        "800", "--mix", "tcp=50,udp=40,icmp=10", "--ipv6", "20", "--seed", "11"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    flows = flows_file(ff)
    check(len(flows) == 80, "flow list has %d flows, expected 80" % len(flows))
    pk = ctx.pcap_read(inp)
    # Every input packet belongs to a listed flow, and each flow has its frames.
    per_flow = {}
    for p in pk:
        k = flow_of(p, flows)
        check(k is not None, "input packet %s is in no listed flow" % (tup(p),))
        per_flow[k] = per_flow.get(k, 0) + 1
    for k, n in flows.items():
        check(per_flow.get(k, 0) == n, "flow %s: %d frames in the pcap, list says %d" %
              (k, per_flow.get(k, 0), n))
    expect = {"web": [], "dns": [], "tx": [], "drop": []}
    for p in pk:
        expect[model_verdict(p)].append(tup(p) + (p["len"],))
    check(all(expect[k] for k in expect), "traffic does not exercise every verdict: %s" %
          {k: len(v) for k, v in expect.items()})

    rules = write(ctx, "t.rules", RULES_TEXT)
    cfg = write(ctx, "t.conf", "rules %s\nchannel web kind pcap web.pcap\n" % rules)
    stats, tx, pdir, _ = ctx.gufc_run(inp, ["--config", cfg, "--conntrack", "off"], "rules")
    check(stats["rx"] == len(pk), "rx %d, input has %d" % (stats["rx"], len(pk)))
    check(nz_drops(stats) == {"filter": len(expect["drop"])},
          "drops %s, expected filter %d" % (nz_drops(stats), len(expect["drop"])))
    got = {"web": ctx.pcap_read(os.path.join(pdir, "web.pcap")),
           "dns": ctx.pcap_read(os.path.join(pdir, "dns.pcap")),  # created by the rules
           "tx": ctx.pcap_read(tx)}
    for name, pkts in got.items():
        g = sorted(tup(p) + (p["len"],) for p in pkts)
        e = sorted(expect[name])
        if g != e:
            extra = [x for x in g if x not in e][:5]
            missing = [x for x in e if x not in g][:5]
            raise Fail("channel %s: %d packets, expected %d; extra %s missing %s" %
                       (name, len(g), len(e), extra, missing))
        check(all(p["ipck"] in ("ok", "-") and p["l4ck"] in ("ok", "none", "-") for p in pkts),
              "channel %s: bad checksum in output" % name)
    check(chan(stats, "web")["consumed"] == len(expect["web"]), "web channel count")
    check(chan(stats, "dns")["consumed"] == len(expect["dns"]), "dns channel count")
    check(stats["transmitted"] == len(expect["tx"]), "transmitted %d, expected %d" %
          (stats["transmitted"], len(expect["tx"])))
    print("rules: %d packets: web %d, dns %d, tx %d, dropped %d: as the rules say" %
          (len(pk), len(expect["web"]), len(expect["dns"]), len(expect["tx"]),
           len(expect["drop"])))


# --------------------------------------------------------------------------
# conntrack: handshake, data, close; unsolicited SYN; strict vs loose
# --------------------------------------------------------------------------

CT_RULES = """\
policy drop
accept ctstate established,related
accept proto tcp src 10.0.0.0/8 ctstate new
"""


def ct_frames():
    C, S = "10.0.0.1", "192.0.2.10"
    seq = [  # (direction, flags, payload, expected delivered)
        ("c", "S", b""), ("s", "SA", b""), ("c", "A", b""), ("c", "PA", b"GET / HTTP/1.0\r\n"),
        ("s", "PA", b"HTTP/1.0 200 OK\r\n"), ("c", "FA", b""), ("s", "FA", b""), ("c", "A", b""),
    ]
    fr, exp = [], []
    for i, (d, fl, pl) in enumerate(seq):
        a = (C, 40000, S, 80) if d == "c" else (S, 80, C, 40000)
        fr.append(l4_frame("tcp", a[0], a[1], a[2], a[3], fl, pl, ident=i + 1))
        exp.append(("tcp", a[0], a[1], a[2], a[3], fl))
    # An unsolicited SYN from the server side: new, not from 10/8: policy drop.
    fr.append(l4_frame("tcp", "192.0.2.20", 5555, C, 22, "S", ident=100))
    # A stray ACK from the client side: loose picks it up (new, accepted),
    # strict calls it invalid (no rule accepts it: policy drop).
    fr.append(l4_frame("tcp", "10.0.0.2", 40001, S, 80, "A", ident=101))
    return fr, exp, ("tcp", "10.0.0.2", 40001, S, 80, "A")


def test_conntrack(ctx):
    fr, exp, stray = ct_frames()
    inp = ctx.path("ct.pcap")
    pcap_write(inp, fr)
    rules = write(ctx, "ct.rules", CT_RULES)
    for mode in ("loose", "strict"):
        extra = ["--tcp-strict"] if mode == "strict" else []
        stats, tx, _, _ = ctx.gufc_run(inp, ["--rules", rules] + extra, "ct-" + mode)
        out = [tup(p) + (p["flags"],) for p in ctx.pcap_read(tx)]
        want = exp + ([stray] if mode == "loose" else [])
        check(out == want, "%s: TX has\n  %s\nexpected\n  %s" %
              (mode, "\n  ".join(map(str, out)), "\n  ".join(map(str, want))))
        d = nz_drops(stats)
        n_drop = 1 if mode == "loose" else 2
        check(stats["rx"] == len(fr) and sum(d.values()) == n_drop and
              d.get("filter", 0) + d.get("ct_invalid", 0) == n_drop,
              "%s: rx %d drops %s, expected %d filter/ct_invalid drops" %
              (mode, stats["rx"], d, n_drop))
        check(d.get("filter", 0) >= 1, "%s: the unsolicited SYN is not a filter drop: %s" %
              (mode, d))
        print("conntrack %s: %d delivered in order, drops %s" % (mode, len(out), d))


# --------------------------------------------------------------------------
# connbytes: a cached connection's verdict flips at the counts the rule names
# --------------------------------------------------------------------------

CB_RULES = """\
drop proto udp connbytes 3:4 connbytes_dir original connbytes_mode packets
accept
"""


def test_connbytes(ctx):
    C, S = "10.0.0.1", "192.0.2.10"
    # (direction, delivered): the client's packets 3 and 4 are dropped, and
    # so is the reply between them (the original count is 3 then).
    seq = [("c", True), ("s", True), ("c", True), ("c", False), ("s", False), ("c", False),
           ("c", True), ("s", True)] + [("c", True)] * 6
    fr, want = [], []
    for i, (d, ok) in enumerate(seq):
        a = (C, 5000, S, 53) if d == "c" else (S, 53, C, 5000)
        fr.append(l4_frame("udp", a[0], a[1], a[2], a[3], payload=b"12345678", ident=i + 1))
        if ok:
            want.append(("udp",) + a)
    inp = ctx.path("cb.pcap")
    pcap_write(inp, fr)
    rules = write(ctx, "cb.rules", CB_RULES)
    stats, tx, _, _ = ctx.gufc_run(inp, ["--rules", rules], "connbytes")
    out = [tup(p) for p in ctx.pcap_read(tx)]
    check(out == want, "TX has\n  %s\nexpected\n  %s" %
          ("\n  ".join(map(str, out)), "\n  ".join(map(str, want))))
    d = nz_drops(stats)
    check(stats["rx"] == len(fr) and d == {"filter": 3},
          "rx %d drops %s, expected 3 filter drops" % (stats["rx"], d))
    # Decided again twice (at the third and the fifth packet), not per packet
    # (a replay's burst waits behind the first packet's upcall: the slow path
    # serves those packets from the entry, checking its counts the same way;
    # tests/unit/datapath's test_connbytes covers the fast path).
    sp = stats["slow_path"]
    check(sp["count_redecided"] == 2, "count_redecided %d, expected 2" % sp["count_redecided"])
    print("connbytes: %d delivered in order, decided again %d times" %
          (len(out), sp["count_redecided"]))


# --------------------------------------------------------------------------
# NAT: DNAT (port forward) and SNAT, both directions, checksums
# --------------------------------------------------------------------------

NAT_RULES = """\
dnat to 10.0.0.5:8080 proto tcp dst 192.0.2.1 dport 80
snat to 203.0.113.1:5000 proto udp src 10.1.0.0/16
"""


def quoted_of_icmp(path):
    """The headers quoted by the ICMPv4 errors of a pcap, read here (not by gufc):
    (proto, src, sport, dst, dport, quoted IPv4 checksum ok, quoted UDP checksum ok)."""
    out = []
    with open(path, "rb") as f:
        d = f.read()
    end = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off = 24
    while off + 16 <= len(d):
        incl = struct.unpack(end + "I", d[off + 8:off + 12])[0]
        fr = d[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(fr) < 14 + 20 + 8 + 28 or fr[12:14] != b"\x08\x00" or fr[23] != 1:
            continue
        icmp = 14 + (fr[14] & 15) * 4
        if fr[icmp] not in (3, 11, 12):
            continue
        ip = fr[icmp + 8:]
        ihl = (ip[0] & 15) * 4
        src, dst = str(ipaddress.ip_address(ip[12:16])), str(ipaddress.ip_address(ip[16:20]))
        sport, dport = struct.unpack("!HH", ip[ihl:ihl + 4])
        ip_ok = csum(ip[:ihl]) == 0
        udp_ok = None
        if ip[9] == 17:
            tot = struct.unpack("!H", ip[2:4])[0]
            seg = ip[ihl:tot]
            pseudo = ip[12:20] + struct.pack("!xBH", 17, len(seg))
            udp_ok = len(seg) == tot - ihl and csum(pseudo + seg) == 0
        out.append(({6: "tcp", 17: "udp"}.get(ip[9], str(ip[9])), src, sport, dst, dport,
                    ip_ok, udp_ok))
    return out


def test_nat(ctx):
    CL, PUB, SRV = "198.51.100.7", "192.0.2.1", "10.0.0.5"
    IN1, IN2, OUT = "10.1.2.3", "10.1.2.4", "198.51.100.9"
    fr, exp = [], []

    def add(pkt, want, **kw):
        fr.append(l4_frame(*pkt, ident=len(fr) + 1, **kw))
        if want is not None:
            exp.append(want)
    # DNAT: the client talks to PUB:80; the server's replies come from SRV:8080.
    fwd = ("tcp", CL, 40000, PUB, 80)
    fwd_t = ("tcp", CL, 40000, SRV, 8080)
    rep = ("tcp", SRV, 8080, CL, 40000)
    rep_t = ("tcp", PUB, 80, CL, 40000)
    for who, fl, pl in (("c", "S", b""), ("s", "SA", b""), ("c", "A", b""),
                        ("c", "PA", b"hello"), ("s", "PA", b"world!"), ("c", "FA", b""),
                        ("s", "FA", b""), ("c", "A", b"")):
        if who == "c":
            add(fwd + (fl, pl), fwd_t)
        else:
            add(rep + (fl, pl), rep_t)
    # SNAT: IN1:5353 -> OUT:53 leaves as 203.0.113.1:5000; the reply comes back.
    add(("udp", IN1, 5353, OUT, 53, "", b"query"), ("udp", "203.0.113.1", 5000, OUT, 53))
    add(("udp", OUT, 53, "203.0.113.1", 5000, "", b"answer"), ("udp", OUT, 53, IN1, 5353))
    # A second inside host wanting the same translated tuple: no free NAT tuple.
    add(("udp", IN2, 5353, OUT, 53, "", b"query2"), None)
    # A router beyond says "unreachable" about the translated query: the error
    # reaches IN1 as the error of the query IN1 sent (quoted header translated
    # back, every checksum valid).
    RTR = "198.51.100.250"
    quoted = l4_frame("udp", "203.0.113.1", 5000, OUT, 53, payload=b"query", ident=77)[14:]
    add(("icmp", RTR, 0, "203.0.113.1", 0, "", quoted), ("icmp", RTR, 0, IN1, 3), icmp_type=3)
    inp = ctx.path("nat.pcap")
    pcap_write(inp, fr)
    rules = write(ctx, "nat.rules", NAT_RULES)
    cfg = write(ctx, "nat.conf", "local %s\nrules %s\n" % (PUB, rules))
    stats, tx, _, _ = ctx.gufc_run(inp, ["--config", cfg], "nat")
    pk = ctx.pcap_read(tx)
    out = [tup(p) for p in pk]
    check(out == exp, "TX has\n  %s\nexpected\n  %s" % ("\n  ".join(map(str, out)),
                                                       "\n  ".join(map(str, exp))))
    bad = [(tup(p), p["ipck"], p["l4ck"]) for p in pk if p["ipck"] != "ok" or p["l4ck"] != "ok"]
    check(not bad, "checksums wrong after NAT: %s" % bad)
    d = nz_drops(stats)
    check(d == {"nat_exhausted": 1}, "drops %s, expected nat_exhausted 1" % d)
    inner = quoted_of_icmp(tx)
    check(inner == [("udp", IN1, 5353, OUT, 53, True, True)],
          "quoted headers of the ICMP errors sent: %s" % inner)
    if shutil.which("tshark"):
        r = subprocess.run(["tshark", "-r", tx, "-o", "tcp.check_checksum:TRUE", "-o",
                            "udp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                            "-Y", "ip.checksum.status == 0 || tcp.checksum.status == 0 || "
                            "udp.checksum.status == 0", "-T", "fields", "-e", "frame.number"],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.strip() == "",
              "tshark finds bad checksums in frames: %s %s" % (r.stdout, r.stderr[-500:]))
    print("nat: %d packets translated both ways, checksums valid, drops %s" % (len(out), d))


# --------------------------------------------------------------------------
# iptables: gufc's per-packet verdicts vs the reference evaluator
# --------------------------------------------------------------------------

def parse_pkts(path):
    """The oracle's packet list: (locals, [packet dict or None per line])."""
    locs, pk = [], []

    def ep(s):
        m = re.match(r"^\[?([^\]]+?)\]?(?::(\d+))?$", s)
        if s.startswith("["):
            m2 = re.match(r"^\[([^\]]+)\](?::(\d+))?$", s)
            return m2.group(1), int(m2.group(2) or 0)
        if s.count(":") == 1:
            h, p = s.split(":")
            return h, int(p)
        return m.group(1), 0
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "local":
                locs += line[1:]
                continue
            kw = dict(x.split("=", 1) for x in line if "=" in x)
            words = [x for x in line if "=" not in x]
            p = {"n": len(pk) + 1, "proto": words[0], "kw": kw,
                 "line": raw.split("#", 1)[0].strip()}
            if words[0] == "proto":
                p["num"] = words[1]
                words = words[1:]
            p["src"], p["sport"] = ep(words[1])
            p["dst"], p["dport"] = ep(words[3])
            pk.append(p)
    return locs, pk


def pkt_frame(p):
    """A first packet of a new connection, or None when it would not be NEW."""
    n = p["n"]
    if p["proto"] == "tcp":
        fl = p["kw"].get("flags", "S")
        if fl != "S":
            return None
        return l4_frame("tcp", p["src"], p["sport"], p["dst"], p["dport"], "S", ident=n)
    if p["proto"] in ("udp", "sctp"):
        return l4_frame(p["proto"], p["src"], p["sport"], p["dst"], p["dport"], ident=n)
    if p["proto"] in ("icmp", "icmpv6"):
        t = int(p["kw"].get("type", 128 if p["proto"] == "icmpv6" else 8))
        if t not in (8, 128) or int(p["kw"].get("code", 0)) != 0:
            return None
        return l4_frame(p["proto"], p["src"], int(p["kw"].get("id", n)), p["dst"], 0,
                        ident=n)
    return l4_frame(p["num"], p["src"], 0, p["dst"], 0, ident=n)


def in_range(addr, spec):
    """addr within an oracle 'to=' address part (A or A-B)."""
    a = ipaddress.ip_address(addr)
    lo, _, hi = spec.partition("-")
    lo, hi = ipaddress.ip_address(lo.strip("[]")), ipaddress.ip_address((hi or lo).strip("[]"))
    return lo <= a <= hi


def split_to(spec):
    """'to=' spec -> (address part, (port lo, port hi) or None)."""
    if spec.startswith("["):
        m = re.match(r"^(\[[^\]]+\](?:-\[[^\]]+\])?)(?::(\d+)(?:-(\d+))?)?$", spec)
    else:
        m = re.match(r"^([^:]+)(?::(\d+)(?:-(\d+))?)?$", spec)
    ports = None
    if m.group(2):
        ports = (int(m.group(2)), int(m.group(3) or m.group(2)))
    return m.group(1), ports


def ipt_case(ctx, rules_file, tag):
    r = subprocess.run([sys.executable, os.path.join(ctx.src, "scripts", "netfilter-oracle.py"),
                        "gen", rules_file], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "%s: oracle gen: %s" % (tag, r.stderr))
    pkts = write(ctx, tag + ".pkts", r.stdout)
    locs, pk = parse_pkts(pkts)
    e = subprocess.run([ctx.ipt_eval, rules_file, pkts], capture_output=True, text=True,
                       timeout=60)
    check(e.returncode in (0, 1), "%s: ipt_eval: %s" % (tag, e.stderr))
    ref = {}
    for line in e.stdout.splitlines():
        f = line.split()
        if f and f[0] == "counters":  # the list's counters, after the packets
            continue
        ref[int(f[0])] = f[1:]
    frames, used = [], []
    for p in pk:
        fr = pkt_frame(p)
        if fr is not None and ref.get(p["n"], ["", "error"])[1] in ("accept", "drop"):
            frames.append(fr)
            used.append(p)
    check(len(used) >= 10, "%s: only %d usable packets" % (tag, len(used)))
    inp = ctx.path(tag + ".pcap")
    pcap_write(inp, frames)
    # The firewall's own packets arrive on port 0 too (a host port: gufc has no sockets).
    cfg = write(ctx, tag + ".conf", "port 0 host\n" + "".join("local %s\n" % a for a in locs))
    stats, tx, _, _ = ctx.gufc_run(inp, ["--config", cfg, "--iptables", rules_file], tag)
    out = {p["id"]: p for p in ctx.pcap_read(tx)}
    diffs, n_acc, n_nat = [], 0, 0
    for p in used:
        rf = ref[p["n"]]
        verdict = rf[1]
        ident = p["n"] & (0xFFFF if ":" not in p["src"] else 0xFFFFF)
        o = out.get(ident)
        if (o is not None) != (verdict == "accept"):
            diffs.append("packet %d %s %s:%d -> %s:%d: reference %s, gufc %s" %
                         (p["n"], p["proto"], p["src"], p["sport"], p["dst"], p["dport"],
                          " ".join(rf), "accept" if o is not None else "drop"))
            continue
        if o is None:
            continue
        n_acc += 1
        # NAT stages of the reference: check the translated tuple.
        src, sport, dst, dport = p["src"], p["sport"], p["dst"], p["dport"]
        for i, w in enumerate(rf):
            if w not in ("dnat", "snat", "masquerade"):
                continue
            n_nat += 1
            to = [x[3:] for x in rf[i + 1:i + 4] if x.startswith("to=")]
            ports = [x[6:] for x in rf[i + 1:i + 4] if x.startswith("ports=")]
            addr_ok = True
            if w == "dnat":
                a, pr = split_to(to[0])
                addr_ok = in_range(o["dst"], a) and (pr is None or p["proto"] not in (
                    "tcp", "udp", "sctp") or pr[0] <= o["dport"] <= pr[1])
                dst, dport = o["dst"], o["dport"]
            elif w == "snat":
                a, pr = split_to(to[0])
                addr_ok = in_range(o["src"], a) and (pr is None or p["proto"] not in (
                    "tcp", "udp", "sctp") or pr[0] <= o["sport"] <= pr[1])
                src, sport = o["src"], o["sport"]
            else:
                addr_ok = any(ipaddress.ip_address(o["src"]) in
                              ipaddress.ip_network(a, strict=False) for a in locs)
                if ports and p["proto"] in ("tcp", "udp"):
                    lo, _, hi = ports[0].partition("-")
                    addr_ok = addr_ok and int(lo) <= o["sport"] <= int(hi or lo)
                src, sport = o["src"], o["sport"]
            if not addr_ok:
                diffs.append("packet %d: %s out of the reference's range: got %s:%d -> %s:%d" %
                             (p["n"], " ".join(rf[i:i + 4]), o["src"], o["sport"], o["dst"],
                              o["dport"]))
        if p["proto"] in ("tcp", "udp"):
            if (o["src"], o["sport"], o["dst"], o["dport"]) != (
                    str(ipaddress.ip_address(src)), sport, str(ipaddress.ip_address(dst)),
                    dport) and not any(w in rf for w in ("dnat", "snat", "masquerade")):
                diffs.append("packet %d changed without NAT: %s" % (p["n"], tup(o)))
        if o["ipck"] not in ("ok", "-") or o["l4ck"] not in ("ok", "none", "-"):
            diffs.append("packet %d: bad checksum out (%s %s)" % (p["n"], o["ipck"], o["l4ck"]))
    check(stats["rx"] == len(used), "%s: rx %d of %d" % (tag, stats["rx"], len(used)))
    check(not diffs, "%s: %d of %d packets differ from the reference evaluator:\n  %s" %
          (tag, len(diffs), len(used), "\n  ".join(diffs)))
    print("iptables %s: %d packets (%d accepted, %d NAT stages) agree with ipt_eval" %
          (tag, len(used), n_acc, n_nat))
    ipt_counters(ctx, rules_file, tag, locs, used)


def ipt_counters(ctx, rules_file, tag, locs, used):
    """The real gufc's counters (the stats JSON: every rule line's packets, each
    chain policy's) against ipt_eval's for the same packets, those not from the
    firewall's own addresses (ipt_eval counts no packet from the firewall to
    itself): what the engine credits from its caches against what the walks
    passed, which the netfilter oracle checks against Linux."""
    sub = [p for p in used if p["src"] not in locs]
    pk_file = write(ctx, tag + ".ctr.pkts", "".join("local %s\n" % a for a in locs) +
                    "".join(p["line"] + "\n" for p in sub))
    e = subprocess.run([ctx.ipt_eval, rules_file, pk_file], capture_output=True, text=True,
                       timeout=60)
    check(e.returncode == 0, "%s: ipt_eval: %s" % (tag, e.stderr))
    want = {}
    for line in e.stdout.splitlines():
        f = line.split()
        if f and f[0] == "counters":
            want[" ".join(f[1:4])] = int(f[4])
    inp = ctx.path(tag + ".ctr.pcap")
    pcap_write(inp, [pkt_frame(p) for p in sub])
    cfg = write(ctx, tag + ".ctr.conf", "".join("local %s\n" % a for a in locs))
    stats, _, _, _ = ctx.gufc_run(inp, ["--config", cfg, "--iptables", rules_file],
                                  tag + "-ctr")
    n_lines = sum(1 for line in open(rules_file, encoding="utf-8")
                  if re.match(r"^\s*(\[\d+:\d+\]\s*)?(-A|--append)\s", line))
    check(len(stats["rules"]) == n_lines, "%s: %d rules for %d rule lines" %
          (tag, len(stats["rules"]), n_lines))
    got = {}
    for r in stats["rules"]:  # an import numbers its rules in the file's order
        if r["packets"]:
            got["%s rule %d" % (r["table"], r["id"])] = r["packets"]
    fam = "ipv6" if any(":" in p["src"] for p in sub) else "ipv4"
    tables = {w.split()[0][1:] for w in open(rules_file, encoding="utf-8") if w.startswith("*")}
    for x in stats["policies"]:
        if x["packets"] and x["family"] == fam and x["table"] in tables:
            got["%s policy %s" % (x["table"], x["hook"].upper())] = x["packets"]
    diffs = ["%s: gufc %d, reference %d" % (k, got.get(k, 0), want.get(k, 0))
             for k in sorted(set(got) | set(want)) if got.get(k, 0) != want.get(k, 0)]
    check(not diffs, "%s: counters differ from the reference evaluator's:\n  %s" %
          (tag, "\n  ".join(diffs)))
    print("iptables %s: %d counters of %d packets agree with ipt_eval" % (tag, len(want),
                                                                           len(sub)))


def data_of(text):
    """A packet list's data=TEXT: bytes as they are, "|hex|" blocks as bytes."""
    out, parts = bytearray(), text.split("|")
    for i, part in enumerate(parts):
        out += bytes.fromhex(part) if i % 2 else part.encode("latin-1")
    return bytes(out)


def test_string(ctx):
    """-m string in the gufc binary: flows of many packets whose payloads match
    and not (tests/integration/netfilter/string-flows.*, which the netfilter
    oracle checks against Linux), each packet's verdict and every rule's
    counters against ipt_eval's for the same bytes (the oracle's tag, then the
    data), and the packets after each flow's first decided on the fast path
    (the flow to port 7000 reaches two searches: one predicate; the flow to
    port 7001 a search and a meter: per packet, counted). One
    lcore: the flows' first packets and 32 of another flow fill the first
    burst, whose upcalls are done before the next burst is read."""
    stats = payload_flows(ctx, "string")
    check(stats["string"]["searches"] >= 4 and stats["string"]["per_packet"] >= 1,
          "string: searches/per_packet counters: %s" % stats["string"])


def test_u32(ctx):
    """-m u32 in the gufc binary, as test_string: u32-flows.* (checked against
    Linux by the netfilter oracle), the flow to port 7000 reaching two u32
    matches (one predicate), the flow to port 7001 a u32 match and a meter
    (per packet, counted)."""
    stats = payload_flows(ctx, "u32")
    check(stats["string"]["u32"] >= 5 and stats["string"]["per_packet"] >= 1,
          "u32: u32/per_packet counters: %s" % stats["string"])


def test_bpf(ctx):
    """-m bpf in the gufc binary, as test_u32: bpf-flows.* (checked against Linux
    by the netfilter oracle)."""
    stats = payload_flows(ctx, "bpf")
    check(stats["string"]["bpf"] >= 4 and stats["string"]["per_packet"] >= 1,
          "bpf: bpf/per_packet counters: %s" % stats["string"])


def payload_flows(ctx, name):
    """NAME-flows.rules/.pkts through gufc vs ipt_eval (see test_string); the stats."""
    nf = os.path.join(ctx.src, "tests", "integration", "netfilter")
    rules = os.path.join(nf, name + "-flows.rules")
    pkts = os.path.join(nf, name + "-flows.pkts")
    e = subprocess.run([ctx.ipt_eval, rules, pkts], capture_output=True, text=True, timeout=60)
    check(e.returncode == 0, "%s: ipt_eval: %s" % (name, e.stderr))
    ref, want = {}, {}
    for line in e.stdout.splitlines():
        f = line.split()
        if f[0] == "counters":
            want["%s rule %s" % (f[1], f[3])] = int(f[4])
        else:
            ref[int(f[0])] = f[2]
    firsts, rest, used, flows, per_packet = [], [], [], set(), 0
    for raw in open(pkts, encoding="utf-8"):
        w = raw.split("#", 1)[0].split()
        if not w or w[0] in ("keep-conntrack", "local"):
            continue
        n = len(used) + 1
        kw = dict(x.split("=", 1) for x in w if "=" in x)
        src, sport = w[1].split(":")
        dst, dport = w[3].split(":")
        data = b"NFO!" + bytes(4) + data_of(kw.get("data", ""))
        fr = l4_frame(w[0], src, int(sport), dst, int(dport), payload=data, ident=n)
        (rest if (src, sport, dst, dport) in flows else firsts).append(fr)
        used.append((n, raw.split("#", 1)[0].strip()))
        flows.add((src, sport, dst, dport))
        per_packet += dport == "7001" and len(rest) > 0 and fr is rest[-1]
    fill = [l4_frame("udp", "10.1.0.9", 5009, "10.9.0.2", 9, payload=b"filler", ident=1000 + i)
            for i in range(32)]
    inp = ctx.path(name + ".pcap")
    pcap_write(inp, firsts + fill + rest)
    last = "filter rule %d" % sum(1 for x in open(rules, encoding="utf-8") if x.startswith("-A"))
    want[last] = want.get(last, 0) + len(fill)  # the last rule accepts the filler
    stats, tx, _, _ = ctx.gufc_run(inp, ["--iptables", rules], name)
    out = {p["id"] for p in ctx.pcap_read(tx)}
    diffs = ["packet %d (%s): reference %s, gufc %s" % (n, line, ref.get(n),
             "accept" if n in out else "drop")
             for n, line in used if (n in out) != (ref.get(n) == "accept")]
    got = {"%s rule %d" % (r["table"], r["id"]): r["packets"] for r in stats["rules"]
           if r["packets"]}
    diffs += ["%s: gufc %d, reference %d" % (k, got.get(k, 0), want.get(k, 0))
              for k in sorted(set(got) | set(want)) if got.get(k, 0) != want.get(k, 0)]
    check(not diffs, "%s: gufc differs from the reference evaluator:\n  %s" %
          (name, "\n  ".join(diffs)))
    # The first burst went up; after it only the predicate-and-meter flow's
    # packets (its first a hit sent up, the others waiting behind it: not hits).
    slow, hits = stats["slow_path"]["packets"], stats["cache"]["hits"]
    want_hits = len(rest) + len(firsts) + len(fill) - 32 - (per_packet - 1)
    check(slow == 32 + per_packet and hits == want_hits,
          "%s: %d slow-path packets, %d hits; expected %d and %d" %
          (name, slow, hits, 32 + per_packet, want_hits) + " %s" % stats["string"])
    print("%s: %d packets of %d flows and %d counters agree with ipt_eval; %d on the "
          "slow path" % (name, len(used), len(flows), len(want), slow))
    return stats


def test_iptables(ctx):
    for name in ("host", "router"):
        ipt_case(ctx, os.path.join(ctx.src, "config", "iptables", name + ".rules"), name)


# --------------------------------------------------------------------------
# consumer: gufc with hugepages, an app channel, gufc-consume attached
# --------------------------------------------------------------------------

def test_consumer(ctx):
    if os.geteuid() != 0:
        raise Fail("needs root to set up hugepages")
    hp = "/proc/sys/vm/nr_hugepages"
    with open(hp) as f:
        saved = int(f.read())
    mounted_here = False
    gufc = None
    pfx = ctx.prefix()
    try:
        if saved < 256:
            with open(hp, "w") as f:
                f.write("256\n")
        with open(hp) as f:
            now = int(f.read())
        check(now >= 256, "could not reserve 256 hugepages (nr_hugepages is %d)" % now)
        with open("/proc/mounts") as f:
            if not any(l.split()[2] == "hugetlbfs" for l in f if len(l.split()) > 2):
                os.makedirs("/dev/hugepages", exist_ok=True)
                r = subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"],
                                   capture_output=True, text=True)
                check(r.returncode == 0, "mount hugetlbfs: %s" % r.stderr)
                mounted_here = True
        # A finite replay: every packet goes to the app channel (its ring holds
        # them all), gufc-consume takes exactly that many, and gufc's
        # --idle-exit can only fire once the ring is empty again.
        inp = ctx.path("in.pcap")
        r = subprocess.run([ctx.gen, "-o", inp, "--flows", "100", "--packets", "3000", "--mix",
                            "tcp=50,udp=40,icmp=10", "--ipv6", "20", "--seed", "5"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
        in_pk = ctx.pcap_read(inp)
        n = len(in_pk)
        check(n < 8191, "input too large for the ring: %d" % n)
        rules = write(ctx, "app.rules", "accept channel app1\n")
        cfg = write(ctx, "app.conf", "rules %s\nchannel app1 kind app size 8192\n" % rules)
        js, tx, log = ctx.path("stats.json"), ctx.path("tx.pcap"), ctx.path("gufc.log")
        cmd = [ctx.gufc] + EAL_BASE + ["--file-prefix", pfx, "-m", "256",
               "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx), "--",
               "--config", cfg, "--flows", "4096", "--stats-json", js, "--idle-exit", "300"]
        with open(log, "w") as lf:
            gufc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            with open(log) as lf:
                text = lf.read()
            if "lcores (M main" in text:
                break
            check(gufc.poll() is None, "gufc exited early (%s):\n%s" % (gufc.returncode, text))
            check(time.monotonic() < deadline, "gufc did not start:\n%s" % text)
            time.sleep(0.1)
        check("--no-huge" not in " ".join(cmd), "not on hugepages")
        cons_out = ctx.path("consumer.pcap")
        c = subprocess.run([ctx.consume, "--proc-type=secondary", "--file-prefix", pfx, "-l",
                            "1", "--no-pci", "--log-level=lib.*:warning", "--",
                            "--channel", "app1", "-o", cons_out, "--count", str(n),
                            "--attach-wait", "5000", "--idle-timeout", "20000"],
                           capture_output=True, text=True, timeout=60)
        check(c.returncode == 0, "gufc-consume exit %d:\n%s%s" % (c.returncode, c.stdout,
                                                                 c.stderr))
        check("received %d packets" % n in c.stdout and "stopped: count" in c.stdout,
              "gufc-consume: %s" % c.stdout)
        pk = ctx.pcap_read(cons_out)
        key = lambda p: tup(p) + (p["len"], p["flags"], p["id"])
        check(sorted(map(key, pk)) == sorted(map(key, in_pk)),
              "consumer pcap (%d packets) differs from the input (%d)" % (len(pk), n))
        try:
            rc = gufc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise Fail("gufc did not --idle-exit after the consumer drained its channel")
        with open(log) as lf:
            text = lf.read()
        check(rc == 0, "gufc exit %d:\n%s" % (rc, text[-3000:]))
        gufc = None
        stats = load_stats(js, "consumer")
        a = chan(stats, "app1")
        check(stats["rx"] == n and stats["delivered"] == n, "rx %d delivered %d, expected %d" %
              (stats["rx"], stats["delivered"], n))
        check(a["kind"] == "app" and a["consumed"] == n and a["enqueued"] == n and
              a["flushed"] == 0, "app1: %s, expected %d consumed" % (a, n))
        print("consumer: gufc-consume (secondary, hugepages) received all %d packets of app1; "
              "gufc exited with the accounting whole" % n)
    finally:
        if gufc is not None:
            gufc.kill()
            gufc.wait()
        for d in ("/dev/hugepages",):
            for fn in os.listdir(d) if os.path.isdir(d) else []:
                if fn.startswith(pfx):
                    os.unlink(os.path.join(d, fn))
        shutil.rmtree("/var/run/dpdk/" + pfx, ignore_errors=True)
        if mounted_here:
            subprocess.run(["umount", "/dev/hugepages"])
        with open(hp, "w") as f:
            f.write("%d\n" % saved)


# --------------------------------------------------------------------------
# badargs: bad command lines and config files exit 2 and say where
# --------------------------------------------------------------------------

BAD_CLI = [  # (arguments after "--", words the message must contain)
    (["--flows", "abc"], ["--flows", "abc"]),
    (["--flows", "10"], ["--flows", "'10'"]),
    (["--burst", "0"], ["--burst"]),
    (["--rxq", "99"], ["--rxq"]),
    (["--conntrack", "maybe"], ["--conntrack", "maybe"]),
    (["--full-policy", "lru"], ["--full-policy", "lru"]),
    (["--set", "nosuch=1"], ["--set", "nosuch"]),
    (["--set", "flows"], ["--set", "flows"]),
    (["--set", "timeout.udp=0"], ["--set", "'0'"]),
    (["--bogus"], ["--bogus"]),
    (["--rules"], ["--rules", "needs a value"]),
    (["--rules", "a.rules", "--iptables", "b.rules"], ["--rules", "--iptables"]),
    (["--channel-pcap-dir", "/nonexistent/dir"], ["--channel-pcap-dir", "/nonexistent/dir"]),
    (["--rules-lcore", "x"], ["--rules-lcore", "x"]),
    (["--rx-lcores", "5"], ["--rx-lcores"]),
    (["junk"], ["junk"]),
    (["--rules", "/nonexistent.rules"], ["/nonexistent.rules"]),
    (["--config", "/nonexistent.conf"], ["/nonexistent.conf"]),
]

BAD_CONF = [  # (file text, line, token, message words)
    ("local 300.1.1.1/8\n", 1, "300.1.1.1/8", "bad prefix"),
    ("# comment\n\nchannel web kind bogus\n", 3, "bogus", "unknown channel kind"),
    ("set flows 10\n", 1, "10", "flows"),
    ("set nosuch 1\n", 1, "nosuch", "unknown setting"),
    ("local 10.0.0.0/8\nfrobnicate\n", 2, "frobnicate", "unknown keyword"),
    ("channel web kind pcap web.pcap size 1000\n", 1, "1000", "power of two"),
    ("route 10.0.0.0/8 port x\n", 1, "x", "expected a number"),
    ("channel bad/name kind discard\n", 1, "bad/name", "bad channel name"),
    ("channel a kind discard\nchannel a kind discard\n", 2, "a", "declared twice"),
    ("local 10.0.0.0/8 extra\n", 1, "extra", "unexpected token"),
    ("set conntrack sometimes\n", 1, "sometimes", "on or off"),
    ("channel t kind tx 1:x\n", 1, "x", "expected a number"),
    ("port 0 name inside\n", 1, "0", "no such port"),
    ("set mode switch\n", 1, "switch", "bridge or router"),
    ("route 10.0.0.0/8 via 10.1.1.1\n", 1, "10.1.1.1", "no port address's prefix holds"),
    ("route 10.0.0.0/8 via 2001:db8::1\n", 1, "2001:db8::1", "another family"),
    ("route 10.0.0.0/8 gate 1\n", 1, "gate", "expected 'port' or 'via'"),
    ("set neigh-probes 20\n", 1, "20", "neigh-probes"),
    # A flow keeps its idle timeout exactly below 2^23 ms, in whole seconds above.
    ("set timeout.tcp_established 8388609\n", 1, "8388609", "whole seconds"),
    ("set flow-timeout 2147484000\n", 1, "2147484000", "at most 2147483000 ms"),
    ("port 2 vlan 0 parent 0\n", 1, "0", "VLAN id: 1..4094"),
    ("port 2 vlan 4095 parent 0\n", 1, "4095", "VLAN id: 1..4094"),
    ("port 2 vlan 100 parent 0\n", 1, "0", "no such parent port"),
    ("port 2 name x vlan 100 parent 0\n", 1, "2", "no such port"),
    # Policy routing (doc/config.md "Policy routing").
    ("route table 255 10.0.0.0/8 port 0\n", 1, "255", "bad table"),
    ("route table 12ab! 10.0.0.0/8 port 0\n", 1, "12ab!", "bad table"),
    ("route-rule fwmark 0x3/0x1 table main\n", 1, "0x3/0x1", "outside the mask"),
    ("route-rule fwmark 1 table wan1\n", 1, "wan1", "unknown table"),
    ("route-rule from 10.0.0.1/8 table main\n", 1, "10.0.0.1/8", "bad prefix"),
    ("route-rule from 10.0.0.0/8 to 2001:db8::/32 table main\n", 1, "2001:db8::/32",
     "another family"),
    ("route-rule pref 5 fwmark 1\n", 1, "1", "missing the rule's action"),
    ("route-rule pref 5 fwmark 1 table main\nroute-rule pref 5 fwmark 1 table main\n", 2,
     "route-rule", "the same rule again"),
    ("route-rule iif lan table main\n", 1, "lan", "no port of that name"),
    ("route-rule fwmark 1 table main bogus\n", 1, "bogus", "unexpected word after"),
    ("route-rule fwmark 1 tos 0x10 table main\n", 1, "tos", "tos/dsfield not supported"),
    ("route-rule dsfield 0x10 table main\n", 1, "dsfield", "a cached flow has no TOS"),
    ("route-rule fwmark 1 bogus 2 table main\n", 1, "bogus", "expected pref, not, from"),
    ("route-rule pref 10 goto 5\n", 1, "5", "goto goes to a later pref"),
    ("route-rule pref 10 goto x\n", 1, "x", "bad goto pref"),
    ("route-rule pref 32766 table main\n", 1, "route-rule", "the main table's own rule"),
    ("route-rule ipproto nosuch table main\n", 1, "nosuch", "bad ipproto"),
    ("route-rule ipproto 256 table main\n", 1, "256", "bad ipproto"),
    ("route-rule dport 90-80 table main\n", 1, "90-80", "bad port range"),
    ("route-rule sport 70000 table main\n", 1, "70000", "bad port range"),
    ("route-rule sport 1-2-3 table main\n", 1, "1-2-3", "bad port range"),
    ("route-rule oif 1 table main\n", 1, "oif", "never matches a forwarded packet"),
]

# VLAN sub-interfaces of a device (port 0: --vdev net_null0): (text, line, token, words)
BAD_VLAN_CONF = [
    ("port 0 vlan 100 parent 0\n", 1, "0", "a device has this port id"),
    ("port 2 vlan 100 parent 0\nport 3 vlan 100 parent 0\n", 2, "100",
     "another port is this VLAN of this parent"),
    ("port 2 vlan 100 parent 0\nport 3 vlan 200 parent 2\n", 2, "2",
     "a VLAN sub-interface itself"),
    ("port 2 vlan 100 parent 0\nport 2 vlan 200 parent 0\n", 2, "200",
     "a VLAN sub-interface already"),
    ("port 2 vlan 100 parent 0 mtu 9601\n", 1, "9601", "mtu: 68..9600"),
]


def test_badargs(ctx):
    fails = []
    eal = [ctx.gufc] + EAL_BASE + ["--no-huge", "-m", "64"]
    for args, words in BAD_CLI:
        r = subprocess.run(eal + ["--file-prefix", ctx.prefix(), "--"] + args,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 2 or not all(w in r.stderr for w in words):
            fails.append("gufc -- %s: exit %d, stderr %r (want exit 2 naming %s)" %
                         (" ".join(args), r.returncode, r.stderr.strip()[-300:], words))
    for i, (text, line, tok, words) in enumerate(BAD_CONF):
        p = write(ctx, "bad%d.conf" % i, text)
        ln = text.splitlines()[line - 1]
        m = re.search(r"(?<!\S)%s(?!\S)" % re.escape(tok), ln)
        col = (m.start() if m else ln.rindex(tok)) + 1
        r = subprocess.run(eal + ["--file-prefix", ctx.prefix(), "--", "--config", p],
                           capture_output=True, text=True, timeout=30)
        want = "%s:%d:%d:" % (p, line, col)
        if r.returncode != 2 or want not in r.stderr or "'%s'" % tok not in r.stderr or \
                words not in r.stderr:
            fails.append("config %r: exit %d, stderr %r (want exit 2, %s ... '%s', %s)" %
                         (text, r.returncode, r.stderr.strip()[-300:], want, tok, words))
    for i, (text, line, tok, words) in enumerate(BAD_VLAN_CONF):
        p = write(ctx, "badvlan%d.conf" % i, text)
        ln = text.splitlines()[line - 1]
        m = re.search(r"(?<!\S)%s(?!\S)" % re.escape(tok), ln)
        col = (m.start() if m else ln.rindex(tok)) + 1
        r = subprocess.run(eal + ["--file-prefix", ctx.prefix(), "--vdev=net_null0", "--",
                                  "--config", p], capture_output=True, text=True, timeout=30)
        want = "%s:%d:%d:" % (p, line, col)
        if r.returncode != 2 or want not in r.stderr or "'%s'" % tok not in r.stderr or \
                words not in r.stderr:
            fails.append("config %r: exit %d, stderr %r (want exit 2, %s ... '%s', %s)" %
                         (text, r.returncode, r.stderr.strip()[-300:], want, tok, words))
    # A bad rule file: file:line and the token.
    p = write(ctx, "bad.rules", "policy drop\naccept proto tcp dport 99999\n")
    r = subprocess.run(eal + ["--file-prefix", ctx.prefix(), "--", "--rules", p],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 2 or "%s:2:" % p not in r.stderr or "99999" not in r.stderr:
        fails.append("bad rule file: exit %d, stderr %r" % (r.returncode, r.stderr.strip()))
    # A --vdev whose driver refuses it (a missing rx_pcap file): a setup error naming it,
    # not a gufc running on the ports that did come up.
    good = write(ctx, "good.pcap", "")
    pcap_write(good, [l4_frame("udp", "10.0.0.1", 1000, "192.0.2.1", 53)])
    missing = ctx.path("no-such-file.pcap")
    r = subprocess.run(eal + ["--file-prefix", ctx.prefix(),
                              "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % good,
                              "--vdev=net_pcap1,rx_pcap=%s,tx_pcap=/dev/null" % missing,
                              "--", "--idle-exit", "200"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 1 or "net_pcap1" not in r.stderr or "nothing started" not in r.stderr \
            or "summary" in r.stdout:
        fails.append("missing rx_pcap: exit %d, stderr %r (want exit 1 naming net_pcap1)" %
                     (r.returncode, r.stderr.strip()[-300:]))
    # gufc-consume's own arguments (parsed before EAL: no hugepages needed).
    for args, words in ((["--channel", "a", "-o", "x.pcap", "--count", "x"], ["--count", "x"]),
                        (["--channel"], ["--channel", "needs a value"]),
                        (["--channel", "a", "-o", "x.pcap", "--bogus"], ["--bogus"]),
                        (["-o", "x.pcap"], ["--channel"]),
                        (["--channel", "a"], ["--output"]),
                        (["--channel", "a", "-o", "x.pcap", "--snaplen", "10"], ["--snaplen"]),
                        (["--channel", "a", "-o", "x.pcap", "--idle-timeout", "-1"],
                         ["--idle-timeout", "-1"])):
        r = subprocess.run([ctx.consume, "--no-pci", "--"] + args, capture_output=True,
                           text=True, timeout=30)
        if r.returncode != 2 or not all(w in r.stderr for w in words):
            fails.append("gufc-consume -- %s: exit %d, stderr %r" %
                         (" ".join(args), r.returncode, r.stderr.strip()))
    r = subprocess.run([ctx.consume, "--help"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0 or "--channel" not in r.stdout:
        fails.append("gufc-consume --help: exit %d" % r.returncode)
    check(not fails, "%d bad-argument cases wrong:\n  %s" % (len(fails), "\n  ".join(fails)))
    print("badargs: %d command lines, %d config files, a rule file and gufc-consume's "
          "arguments: exit 2 with the place named" % (len(BAD_CLI),
                                                      len(BAD_CONF) + len(BAD_VLAN_CONF)))


# --------------------------------------------------------------------------
# perflow: a pcap channel whose flows each get a ring of their own
# --------------------------------------------------------------------------

PF_RULES = """\
accept channel pf proto udp
accept
"""


def test_perflow(ctx):
    """Five UDP flows into `channel pf kind pcap pf.pcap perflow 3` with
    `set perflow-max 3`: the first three (in arrival order) get pf.0, pf.1,
    pf.2 (a reply shares its flow's ring), the pool is then at its cap and
    the last two stay on pf, counted as fallbacks; every packet ends in the
    parent's pcap file."""
    counts = [2, 3, 4, 5, 6]
    frames, ident = [], 0
    # First packets in flow order (that is the allocation order), then the rest.
    for rnd in range(max(counts)):
        for i, n in enumerate(counts):
            if rnd < n:
                ident += 1
                frames.append(l4_frame("udp", "10.0.0.%d" % (i + 1), 1000, "192.0.2.1", 53,
                                       payload=b"x" * (10 + i), ident=ident))
    ident += 1
    frames.append(l4_frame("udp", "192.0.2.1", 53, "10.0.0.1", 1000, payload=b"reply",
                           ident=ident))
    inp = ctx.path("pf.pcap.in")
    pcap_write(inp, frames)
    rules = write(ctx, "pf.rules", PF_RULES)
    cfg = write(ctx, "pf.conf", "rules %s\nchannel pf kind pcap pf.pcap perflow 3\n"
                "set perflow-max 3\n" % rules)
    stats, _, pdir, _ = ctx.gufc_run(inp, ["--config", cfg], "perflow")
    check(stats["rx"] == len(frames), "rx %d, input has %d" % (stats["rx"], len(frames)))
    check(nz_drops(stats) == {}, "drops %s, expected none" % nz_drops(stats))
    want = {"pf.0": counts[0] + 1, "pf.1": counts[1], "pf.2": counts[2],
            "pf": counts[3] + counts[4]}
    for name, n in want.items():
        c = chan(stats, name)
        check(c["enqueued"] == n and c["consumed"] == n,
              "channel %s: enqueued %d consumed %d, expected %d" %
              (name, c["enqueued"], c["consumed"], n))
        check(c["kind"] == "pcap", "channel %s is %s, expected pcap" % (name, c["kind"]))
    names = [c["name"] for c in stats["channels"]]
    check(not any(n.startswith("pf.") and n not in want for n in names),
          "unexpected per-flow channels: %s" % names)
    pf = stats["perflow"]
    check(pf["given"] == 3 and pf["fallback"] == 2 and pf["live"] == 3 and
          pf["refused_cap"] == 2 and pf["rings"] == 3 and pf["cap"] == 3,
          "perflow counters %s, expected given 3, fallback 2, live 3, refused at the cap 2" %
          pf)
    got = ctx.pcap_read(os.path.join(pdir, "pf.pcap"))
    check(len(got) == len(frames), "pf.pcap has %d packets, expected %d" %
          (len(got), len(frames)))
    per_src = {}
    for p in got:
        per_src[p["src"]] = per_src.get(p["src"], 0) + 1
    for i, n in enumerate(counts):
        src = "10.0.0.%d" % (i + 1)
        check(per_src.get(src, 0) == n, "pf.pcap: %d packets from %s, expected %d" %
              (per_src.get(src, 0), src, n))
    print("perflow: %s, fallback %d, all %d packets in pf.pcap" %
          ({k: chan(stats, k)["enqueued"] for k in want}, pf["fallback"], len(got)))


def test_perflow_scale(ctx):
    """3,000 UDP flows into a pcap channel with perflow: more per-flow rings
    than a pool of 1,024 ever held. The pool starts with one chunk and grows
    on demand: every flow gets a ring of its own (pf.0 .. pf.2999, two
    packets each), nothing falls back, every packet ends in pf.pcap. Then
    the same with `set perflow-max 2000`: the first 2,000 flows get rings,
    the pool refuses the rest at its cap (counted) and they stay on pf."""
    n_flows = 3000
    frames, ident = [], 0
    # Two packets per flow, every flow's first before any second (allocation order).
    for rnd in range(2):
        for i in range(n_flows):
            ident += 1
            frames.append(l4_frame("udp", "10.%d.%d.%d" % (1 + i // 65536, (i // 256) % 256,
                                                           i % 256), 2000,
                                   "192.0.2.9", 53, payload=b"y" * (8 + rnd), ident=ident))
    inp = ctx.path("pfs.pcap.in")
    pcap_write(inp, frames)
    rules = write(ctx, "pfs.rules", PF_RULES)
    for cap, tag in ((0, "perflow-scale"), (2000, "perflow-cap")):
        conf = "rules %s\nchannel pf kind pcap %s.pcap perflow 16\n" % (rules, tag)
        if cap:
            conf += "set perflow-max %d\n" % cap
        cfg = write(ctx, tag + ".conf", conf)
        stats, _, pdir, _ = ctx.gufc_run(inp, ["--config", cfg, "--conntrack", "off",
                                               "--flows", "8192"], tag, timeout=120)
        check(stats["rx"] == len(frames), "%s: rx %d, input has %d" %
              (tag, stats["rx"], len(frames)))
        check(nz_drops(stats) == {}, "%s: drops %s, expected none" % (tag, nz_drops(stats)))
        pf = stats["perflow"]
        given = min(n_flows, cap) if cap else n_flows
        check(pf["given"] == given and pf["fallback"] == n_flows - given,
              "%s: perflow %s, expected given %d, fallback %d" %
              (tag, pf, given, n_flows - given))
        check(pf["live"] == given and pf["in_use"] == given,
              "%s: perflow %s: %d live rings expected" % (tag, pf, given))
        check(pf["rings"] >= given and pf["rings"] <= (cap or 1 << 30) and
              pf["chunks"] >= (given + 1023) // 1024,
              "%s: perflow %s: the pool did not grow to %d rings" % (tag, pf, given))
        check(pf["refused_cap"] == n_flows - given and pf["refused_nomem"] == 0,
              "%s: perflow %s: refusals" % (tag, pf))
        check(pf["bytes_per_ring"] > 256 * 8, "%s: bytes per ring %d" %
              (tag, pf["bytes_per_ring"]))
        per = [c for c in stats["channels"] if c["name"].startswith("pf.")]
        check(len(per) == given, "%s: %d per-flow channels listed, expected %d" %
              (tag, len(per), given))
        bad = [c["name"] for c in per if c["enqueued"] != 2 or c["consumed"] != 2]
        check(not bad, "%s: per-flow channels without their 2 packets: %s" % (tag, bad[:5]))
        parent = chan(stats, "pf")
        check(parent["enqueued"] == 2 * (n_flows - given),
              "%s: pf enqueued %d, expected %d" % (tag, parent["enqueued"],
                                                   2 * (n_flows - given)))
        got = ctx.pcap_read(os.path.join(pdir, tag + ".pcap"))
        check(len(got) == len(frames), "%s: %s.pcap has %d packets, expected %d" %
              (tag, tag, len(got), len(frames)))
        print("%s: %d per-flow rings (%d chunks, %d bytes each), fallback %d, refused at "
              "the cap %d, all %d packets in %s.pcap" %
              (tag, pf["in_use"], pf["chunks"], pf["bytes_per_ring"], pf["fallback"],
               pf["refused_cap"], len(got), tag))


LL_RULES = """\
accept channel web proto tcp dport 80
drop proto udp dport 123
accept ctstate established,related
accept channel rest
"""


def pcap_multiset(path):
    """The frames of a pcap as a multiset (Counter of their SHA-1s)."""
    c = collections.Counter()
    with open(path, "rb") as f:
        h = f.read(24)
        if len(h) < 24:
            return c
        e = "<" if h[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        while True:
            r = f.read(16)
            if len(r) < 16:
                break
            incl = struct.unpack(e + "IIII", r)[2]
            c[hashlib.sha1(f.read(incl)).hexdigest()] += 1
    return c


def test_lossless(ctx):
    """Lossless replay: two capture files (>= 100k packets, >= 500 flows, each
    flow in one file) as the two RX queues of one port, replayed with tiny
    upcall and channel rings (so full rings hold RX back) on every lcore
    layout (-l 0; -l 0-1; three lcores, two of them RX lcores), with and
    without --offload swnic, conntrack on and off: no upcall_full or
    channel_full, and per output (the TX pcap, each channel's pcap) the same
    packets, as a multiset, with the same verdict counters as the first run
    of its conntrack setting."""
    ins = []
    for i in (1, 2):
        inp = ctx.path("ll%d.pcap" % i)
        r = subprocess.run([ctx.gen, "-o", inp, "-n", "250", "-p", "50000", "--seed", str(10 + i),
                            "--ipv6", "20", "--zipf", "1.0", "--rtt", "50-2000",
                            "--src", "10.%d.0.0/16" % i, "--src6", "2001:db8:%d::/64" % (i * 2 + 1)],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
        ins.append(inp)
    rules = write(ctx, "ll.rules", LL_RULES)
    cpus = sorted(os.sched_getaffinity(0))
    a, b = cpus[0], cpus[1 % len(cpus)]
    layouts = [("l0", ["-l", "%d" % a], []),
               ("l01", ["--lcores", "0@%d,1@%d" % (a, b)], []),
               ("l012", ["--lcores", "0@%d,1@%d,2@%d" % (a, b, b)], ["--rx-lcores", "1,2"])]
    ref = {}
    held = 0
    for ct in ("on", "off"):
        for ofl in ("off", "swnic"):
            for name, eal, extra in layouts:
                tag = "ll-%s-ct%s-%s" % (name, ct, ofl)
                tx = ctx.path(tag + ".tx.pcap")
                pdir = ctx.path(tag + ".out")
                os.makedirs(pdir, exist_ok=True)
                js = ctx.path(tag + ".stats.json")
                cmd = ([ctx.gufc, "--no-pci", "--log-level=lib.*:warning", "--no-huge", "-m", "512",
                        "--file-prefix", ctx.prefix()] + eal +
                       ["--vdev=net_pcap0,rx_pcap=%s,rx_pcap=%s,tx_pcap=%s" % (ins[0], ins[1], tx),
                        "--", "--rxq", "2", "--idle-exit", "300", "--flows", "4096",
                        "--channel-pcap-dir", pdir, "--stats-json", js, "--rules", rules,
                        "--set", "upcall-ring=64", "--set", "channel-size=64",
                        "--conntrack", ct, "--offload", ofl] + extra)
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                check(r.returncode == 0, "%s: gufc exit %d\n%s\n%s" %
                      (tag, r.returncode, " ".join(cmd), (r.stdout + r.stderr)[-3000:]))
                check("lossless" in r.stdout + r.stderr, "%s: lossless not chosen for files" % tag)
                st = load_stats(js, tag)
                check(st["rx"] >= 100000, "%s: rx %d" % (tag, st["rx"]))
                check(st["lossless"]["on"], "%s: lossless off in the JSON" % tag)
                d = nz_drops(st)
                check("upcall_full" not in d and "channel_full" not in d,
                      "%s: ring-full drops %s" % (tag, d))
                held += st["lossless"]["held_bursts"]
                # A hardware DROP rule drops what the filter would have.
                verdicts = dict(d)
                verdicts["filter"] = verdicts.get("filter", 0) + verdicts.pop("hw_drop", 0)
                outs = {"tx": pcap_multiset(tx)}
                for f in sorted(os.listdir(pdir)):
                    outs[f] = pcap_multiset(os.path.join(pdir, f))
                got = (st["delivered"], verdicts, outs)
                if ct not in ref:
                    ref[ct] = (tag, got)
                    print("%s: rx %d delivered %d drops %s outputs %s" %
                          (tag, st["rx"], st["delivered"], verdicts,
                           {k: sum(v.values()) for k, v in outs.items()}))
                    continue
                rtag, want = ref[ct]
                check(got[0] == want[0] and got[1] == want[1],
                      "%s: delivered %d drops %s; %s: delivered %d drops %s" %
                      (tag, got[0], got[1], rtag, want[0], want[1]))
                check(set(got[2]) == set(want[2]), "%s: outputs %s, %s: %s" %
                      (tag, sorted(got[2]), rtag, sorted(want[2])))
                for k in want[2]:
                    diff = (got[2][k] - want[2][k]) + (want[2][k] - got[2][k])
                    check(not diff, "%s: output %s differs from %s's in %d packets" %
                          (tag, k, rtag, sum(diff.values())))
                print("%s: same outputs as %s (held bursts %d)" %
                      (tag, rtag, st["lossless"]["held_bursts"]))
    check(held > 0, "no run ever held a burst back: the rings were never full")
    lossless_replay(ctx, rules, a, b)


def lossless_replay(ctx, rules, a, b):
    """A replay from memory (net_pcap infinite_rx) is lossless under auto
    too: 2,000 new UDP flows, 4 packets each, replayed endlessly on two
    lcores with a 64-slot upcall ring, stopped by SIGINT after 2 s: lossless
    chosen, full rings held RX back, no upcall_full or pending_full, every
    packet received delivered or dropped by a rule, one upcall a flow."""
    inp = ctx.path("llinf.pcap")
    r = subprocess.run([ctx.gen, "-o", inp, "-n", "2000", "-p", "8000", "--bench", "--seed", "7"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    js = ctx.path("llinf.stats.json")
    cmd = [ctx.gufc, "--no-pci", "--log-level=lib.*:warning", "--no-huge", "-m", "512",
           "--file-prefix", ctx.prefix(), "--lcores", "0@%d,1@%d" % (a, b),
           "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % inp, "--vdev=net_null0,no-rx=1", "--",
           "--flows", "16384", "--stats-json", js, "--rules", rules,
           "--set", "upcall-ring=64", "--set", "mbufs=24575"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = ""
    # The replay starts with the lcores (their line, after the set-up).
    for line in p.stdout:
        out += line
        if "lcores (" in line:
            break
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    out += p.communicate(timeout=60)[0]
    check(p.returncode == 0, "infinite_rx: gufc exit %d\n%s" % (p.returncode, out[-3000:]))
    check("lossless" in out, "infinite_rx: lossless not chosen for a replay from memory")
    st = load_stats(js, "infinite_rx")
    d = nz_drops(st)
    check(st["lossless"]["on"], "infinite_rx: lossless off in the JSON")
    check("upcall_full" not in d and "pending_full" not in d,
          "infinite_rx: ring-full drops %s" % d)
    check(st["rx"] == st["delivered"] + st["drops_total"] and st["rx"] >= 8000,
          "infinite_rx: rx %d delivered %d drops %d" % (st["rx"], st["delivered"], st["drops_total"]))
    print("infinite_rx: rx %d delivered %d upcalls %d waited %d held bursts %d, drops %s" %
          (st["rx"], st["delivered"], st["slow_path"]["upcalls"], st["slow_path"]["waited"],
           st["lossless"]["held_bursts"], d))




STORM_RULES = """\
policy drop
accept ctstate established,related
accept ctstate new
"""


def conn_seqs(pk):
    """Packets of a pcap per connection (both directions), each in its order."""
    seqs = collections.defaultdict(list)
    for p in pk:
        a, b = (p["src"], p["sport"]), (p["dst"], p["dport"])
        seqs[(p["proto"],) + tuple(sorted((a, b)))].append(tup(p) + (p["flags"], p["len"],
                                                                      p["id"]))
    return seqs


def test_filewait(ctx):
    """Packets behind their connection's upcall, read from a file, on two
    lcores (RX on one, the rules lcore on the other): from a regular file
    they wait on the RX lcore as a live port's do (setting file-wait auto),
    so a connection sends up about one upcall, few or none behind it,
    every packet is delivered and each connection's packets leave in their
    order; with file-wait off they go up behind the upcall (nothing waits),
    and so they do from a FIFO, whose read may block, even with file-wait on.
    A last pass, file-wait off with the smallest channel ring (64) and
    wait queue (64), has the channels fill: the held decisions and upcalls
    keep each connection's order there too (conn_order.py compares)."""
    conns = 2000
    inp = ctx.path("storm.pcap")
    r = subprocess.run([ctx.gen, "-o", inp, "-n", str(conns), "--mix", "tcp=100", "-p",
                        str(conns), "--size", "1", "--rtt", "2000-20000", "--seed", "7"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    in_pk = ctx.pcap_read(inp)
    want = conn_seqs(in_pk)
    check(len(want) == conns, "the storm has %d connections, expected %d" % (len(want), conns))
    rules = write(ctx, "storm.rules", STORM_RULES)
    cpus = sorted(os.sched_getaffinity(0))
    lcores = "0@%d,1@%d" % (cpus[0], cpus[1 % len(cpus)])
    fifo = ctx.path("storm.fifo")
    os.mkfifo(fifo)
    for tag, src, fw in (("file", inp, "auto"), ("file-off", inp, "off"),
                         ("fifo", fifo, "on"), ("tight", inp, "off")):
        tx, js = ctx.path(tag + ".tx.pcap"), ctx.path(tag + ".stats.json")
        cmd = ([ctx.gufc, "--no-pci", "--log-level=lib.*:warning", "--no-huge", "-m", "512",
                "--file-prefix", ctx.prefix(), "--lcores", lcores,
                "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (src, tx), "--",
                "--idle-exit", "300", "--flows", "65536", "--stats-json", js,
                "--rules", rules, "--set", "file-wait=" + fw])
        if tag == "tight":
            cmd += ["--set", "channel-size=64", "--set", "pending-queue=64"]
        feed = None
        if src == fifo:
            feed = subprocess.Popen(["sh", "-c", 'exec cat "$1" > "$2"', "sh", inp, fifo])
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        finally:
            if feed is not None:
                feed.wait(timeout=30)
        check(r.returncode == 0, "%s: gufc exit %d\n%s\n%s" %
              (tag, r.returncode, " ".join(cmd), (r.stdout + r.stderr)[-3000:]))
        st = load_stats(js, tag)
        sp = st["slow_path"]
        check(st["rx"] == len(in_pk) and st["delivered"] == st["rx"] and not nz_drops(st),
              "%s: rx %d of %d, delivered %d, drops %s" %
              (tag, st["rx"], len(in_pk), st["delivered"], nz_drops(st)))
        got = conn_seqs(ctx.pcap_read(tx))
        bad = [k for k in want if got.get(k) != want[k]]
        if tag == "tight":
            # The same check by the standalone checker (its own decoding).
            rc = subprocess.run([sys.executable, os.path.join(ctx.src, "tests", "integration",
                                                              "app", "conn_order.py"),
                                 ctx.check, inp, tx], capture_output=True, text=True,
                                timeout=120)
            check((rc.returncode != 0) == bool(bad), "tight: conn_order.py says %s" %
                  rc.stdout.strip())
        check(not bad, "%s: %d connections' packets out of their order or missing, e.g. "
              "%s:\n  got  %s\n  want %s" % (tag, len(bad), bad[:1], got.get(bad[0]) if bad
                                               else None, want[bad[0]] if bad else None))
        if tag == "file":
            # A packet run again after its connection's upcall may go up
            # once more (a SYN/ACK that missed), the rest behind it: rare
            # (0 in most runs), where going up behind is 4-6 a connection.
            check(sp["pending"] <= conns // 2 and sp["upcalls"] <= 2 * conns and
                  sp["waited"] > 0 and sp["waiting"] == 0,
                  "%s: upcall_pending %d, upcalls %d, waited %d, waiting %d: expected "
                  "about one upcall a connection, few behind one, some waited, none left" %
                  (tag, sp["pending"], sp["upcalls"], sp["waited"], sp["waiting"]))
        else:
            check(sp["waited"] == 0, "%s: %d packets waited on the RX lcore" %
                  (tag, sp["waited"]))
        print("%s (file-wait %s): %d connections, %.2f upcalls each (%d behind one), "
              "%d waited, %d bursts held for a full ring, each connection in order" %
              (tag, fw, conns, sp["upcalls"] / conns, sp["pending"], sp["waited"],
               st["lossless"]["held_bursts"]))

# Link types of real captures, and how each one's frames are written.
LT_ETH, LT_RAW, LT_NULL, LT_SLL, LT_SLL2 = 1, 101, 0, 113, 276


def pcap_frames(path):
    """The frames of an Ethernet pcap (list of bytes)."""
    out = []
    with open(path, "rb") as f:
        h = f.read(24)
        e = "<" if h[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        while True:
            r = f.read(16)
            if len(r) < 16:
                break
            out.append(f.read(struct.unpack(e + "IIII", r)[2]))
    return out


def cooked(lt, fr, i):
    """Ethernet frame @fr as a frame of link type @lt (the i-th of the capture)."""
    et, l3 = fr[12:14], fr[14:]
    # packet types as Linux sees them: 0 to us, 4 sent by us, 1 broadcast
    ptype = 4 if i % 3 == 1 else 0
    if lt == LT_SLL:
        return struct.pack("!HHH", ptype, 1, 6) + fr[6:12] + b"\0\0" + et + l3
    if lt == LT_SLL2:
        return et + b"\0\0" + struct.pack("!IHBB", 2, 1, ptype, 6) + fr[6:12] + b"\0\0" + l3
    if lt == LT_RAW:
        return l3
    af = 2 if et == b"\x08\x00" else 30
    return struct.pack("<I" if i % 2 else ">I", af) + l3   # NULL: either byte order


def pcap_write_lt(path, lt, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, lt))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i * 10, len(fr), len(fr)))
            f.write(fr)


def pcapng_write(path, lt, frames):
    """A pcapng file (Wireshark's default format): one section, one interface."""
    def block(t, body):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", t, n) + body + struct.pack("<I", n)
    with open(path, "wb") as f:
        f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        f.write(block(1, struct.pack("<HHI", lt, 0, 0)))
        for i, fr in enumerate(frames):
            f.write(block(6, struct.pack("<IIIII", 0, 0, i * 10, len(fr), len(fr)) + fr))


def test_linktypes(ctx):
    """Captures that are not Ethernet pcaps (tcpdump -i any: Linux cooked SLL
    and SLL2; raw IP; BSD loopback; pcapng) replay as their Ethernet original
    does: the same packets out (EtherType and everything after it), the same
    counters; a link type gufc cannot read stops it, naming the file."""
    inp = ctx.path("lt-eth.pcap")
    r = subprocess.run([ctx.gen, "-o", inp, "-n", "60", "-p", "3000", "--seed", "77",
                        "--ipv6", "30", "--mix", "tcp=60,udp=30,icmp=10"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    frames = pcap_frames(inp)
    check(len(frames) >= 3000, "gufc-gen wrote %d frames" % len(frames))
    rules = write(ctx, "lt.rules", "drop proto udp dport 1024-20000\n"
                  "drop proto tcp dport 443\n")

    def run(path, tag):
        stats, tx, _, out = ctx.gufc_run(path, ["--rules", rules], tag)
        body = collections.Counter(hashlib.sha1(fr[12:]).hexdigest()
                                   for fr in pcap_frames(tx))
        return stats, body, out

    ref, ref_body, _ = run(inp, "lt-eth")
    check(ref["delivered"] > 0 and nz_drops(ref), "reference run: nothing delivered or "
          "nothing dropped: %s" % nz_drops(ref))
    cases = [("sll", LT_SLL, False), ("sll2", LT_SLL2, False), ("raw", LT_RAW, False),
             ("null", LT_NULL, False), ("ng-eth", LT_ETH, True), ("ng-sll", LT_SLL, True)]
    for name, lt, ng in cases:
        path = ctx.path("lt-%s.%s" % (name, "pcapng" if ng else "pcap"))
        fr = frames if lt == LT_ETH else [cooked(lt, f, i) for i, f in enumerate(frames)]
        (pcapng_write if ng else pcap_write_lt)(path, lt, fr)
        st, body, out = run(path, "lt-" + name)
        check(st["rx"] == ref["rx"] and st["delivered"] == ref["delivered"],
              "%s: rx %d delivered %d, Ethernet original: rx %d delivered %d" %
              (name, st["rx"], st["delivered"], ref["rx"], ref["delivered"]))
        check(nz_drops(st) == nz_drops(ref), "%s: drops %s, Ethernet original %s" %
              (name, nz_drops(st), nz_drops(ref)))
        check(body == ref_body, "%s: %d frames out differ from the Ethernet original's" %
              (name, sum((body - ref_body).values()) + sum((ref_body - body).values())))
        if lt != LT_ETH:
            check("capture: its frames" in out, "%s: no notice of the link type:\n%s" %
                  (name, out[-1500:]))
    # 802.11 radiotap (127): refused at start, the file and the type named
    bad = ctx.path("lt-wifi.pcap")
    pcap_write_lt(bad, 127, frames[:10])
    r = subprocess.run([ctx.gufc] + EAL_BASE + ["--no-huge", "-m", "512", "--file-prefix",
                        ctx.prefix(), "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" %
                        (bad, ctx.path("lt-wifi.tx.pcap")), "--", "--idle-exit", "300"],
                       capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    check(r.returncode != 0 and "lt-wifi.pcap: link type" in out and "(127)" in out,
          "radiotap capture: exit %d, output:\n%s" % (r.returncode, out[-1500:]))
    print("linktypes: %d frames; SLL, SLL2, raw IP, NULL, pcapng (Ethernet, SLL) as the "
          "Ethernet original (delivered %d, drops %s); radiotap refused" %
          (len(frames), ref["delivered"], nz_drops(ref)))


# --------------------------------------------------------------------------
# TCP flags tests: cached for the flags' class, not decided per packet
# --------------------------------------------------------------------------

FLAGS_HEAD = """*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
"""


def test_tcpflags(ctx):
    """A replay of TCP connections through NULL/XMAS scan drops at the top of
    FORWARD (and, statefully, FIN drops before the ESTABLISHED accept): every
    verdict as the rules say, no packet decided per packet on the slow path,
    and the upcalls a handful per connection above the same replay's without
    the flags rules (before, every packet of such a flow went up)."""
    n_flows = 100
    inp = ctx.path("tf.pcap")
    r = subprocess.run([ctx.gen, "-o", inp, "-n", str(n_flows), "-p", "10000", "--mix", "tcp=100",
                        "--seed", "3"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
    in_pk = ctx.pcap_read(inp)
    n_fin = sum(1 for p in in_pk if "F" in p["flags"])
    check(n_fin > 0, "the replay has no FIN")
    cases = [
        ("base", "-A FORWARD -j ACCEPT\n", 0),
        ("scan", "-A FORWARD -p tcp --tcp-flags ALL NONE -j DROP\n"
                 "-A FORWARD -p tcp --tcp-flags ALL FIN,PSH,URG -j DROP\n"
                 "-A FORWARD -p tcp --tcp-flags SYN,FIN SYN,FIN -j DROP\n"
                 "-A FORWARD -j ACCEPT\n", 0),
        ("ctbase", "-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n"
                   "-A FORWARD -p tcp --syn -j ACCEPT\n-A FORWARD -j DROP\n", 0),
        ("ctfin", "-A FORWARD -p tcp --tcp-flags FIN FIN -j DROP\n"
                  "-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT\n"
                  "-A FORWARD -p tcp --syn -j ACCEPT\n-A FORWARD -j DROP\n", n_fin),
    ]
    up = {}
    for tag, body, drops in cases:
        rules = write(ctx, "tf-%s.v4" % tag, FLAGS_HEAD + body + "COMMIT\n")
        stats, tx, _, _ = ctx.gufc_run(inp, ["--iptables", rules], "tf-" + tag)
        sp = stats["slow_path"]
        d = nz_drops(stats)
        check(stats["rx"] == len(in_pk) and sum(d.values()) == drops and
              d.get("filter", 0) == drops,
              "%s: rx %d drops %s, expected %d filter drops" % (tag, stats["rx"], d, drops))
        out = ctx.pcap_read(tx)
        check(len(out) == len(in_pk) - drops and not any("F" in p["flags"] for p in out if drops),
              "%s: %d forwarded, expected %d" % (tag, len(out), len(in_pk) - drops))
        check(sp["per_packet"] == 0, "%s: %d packets decided per packet" % (tag, sp["per_packet"]))
        up[tag] = sp["upcalls"]
        print("tcpflags %s: %d packets, %d dropped; upcalls %d (flag class %d, classed %d, "
              "taken over %d)" % (tag, len(in_pk), drops, sp["upcalls"], sp["class"],
                                  sp["classed"], sp["class_taken"]))
    check(up["scan"] <= up["base"] + 2 * n_flows,
          "scan: %d upcalls, base %d: more than two a connection" % (up["scan"], up["base"]))
    # Each FIN goes up alone (its class is not the connection's), and a
    # handful more per connection.
    check(up["ctfin"] <= up["ctbase"] + n_fin + 3 * n_flows,
          "ctfin: %d upcalls, ctbase %d, %d FINs" % (up["ctfin"], up["ctbase"], n_fin))


FORGED_V4 = """*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -p udp
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p udp -m udp --dport 53 -j DROP
COMMIT
"""


def test_forged(ctx):
    """A local source from a port that does not carry this host's own
    packets (no `host` on it) is forged: IPv4's is a martian (counted under
    `martian`, every packet of the flow, after raw PREROUTING saw it), IPv6's
    is forwarded as any packet from outside (no OUTPUT rule sees it). On a
    `host` port the same packets are this host's own: OUTPUT drops them.
    Two ports, the packets on either: the port they arrive on decides."""
    me4 = [l4_frame("udp", "192.0.2.1", 4000, "198.51.100.9", 53, ident=i) for i in (1, 2, 3)]
    me6 = [l4_frame("udp", "2001:db8::1", 4000, "2001:db8:9::9", 53, ident=i) for i in (4, 5)]
    other = [l4_frame("udp", "192.0.2.7", 4000, "198.51.100.9", 53, ident=6)]
    inp = ctx.path("forged.pcap")
    pcap_write(inp, me4 + me6 + other)
    empty = ctx.path("forged-empty.pcap")
    pcap_write(empty, [])
    rules = write(ctx, "forged.v4", FORGED_V4)
    rules6 = write(ctx, "forged.v6", FORGED_V4.replace("*raw\n:PREROUTING ACCEPT [0:0]\n"
                                                       ":OUTPUT ACCEPT [0:0]\n"
                                                       "-A PREROUTING -p udp\nCOMMIT\n", ""))
    for inport, hostport in ((0, None), (0, 0), (1, 1), (1, 0)):
        host = inport == hostport
        tag = "forged-in%d-host%s" % (inport, hostport)
        cfg = write(ctx, tag + ".conf", "port 0 name in0\nport 1 name in1\nlocal 192.0.2.1\n"
                    "local 2001:db8::1\n" +
                    ("port %d host\n" % hostport if hostport is not None else ""))
        rx = [inp if p == inport else empty for p in (0, 1)]
        tx = [ctx.path("%s.tx%d.pcap" % (tag, p)) for p in (0, 1)]
        js = ctx.path(tag + ".json")
        cmd = [ctx.gufc] + EAL_BASE + ["--file-prefix", ctx.prefix(), "--no-huge", "-m", "512"]
        cmd += ["--vdev=net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (p, rx[p], tx[p]) for p in (0, 1)]
        cmd += ["--", "--idle-exit", "300", "--flows", "4096", "--stats-json", js,
                "--config", cfg, "--iptables", rules, "--ip6tables", rules6]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "%s: gufc exit %d\n%s" % (tag, r.returncode,
                                                          (r.stdout + r.stderr)[-3000:]))
        stats = load_stats(js, tag)
        # Accepted packets leave by the pair of the port they came on.
        out = sorted(p["src"] for p in ctx.pcap_read(tx[1 - inport]))
        d = nz_drops(stats)
        raw = [x for x in stats["rules"] if x.get("table") == "raw"]
        hosts = [p["port"] for p in stats["ports"] if p["host"]]
        check(hosts == ([] if hostport is None else [hostport]), "%s: host ports %s" %
              (tag, hosts))
        if host:
            check(out == ["192.0.2.7"], "%s: TX sources %s" % (tag, out))
            check(d == {"filter": 5}, "%s: drops %s, expected filter 5" % (tag, d))
            check(raw and raw[0]["packets"] == 1, "%s: raw PREROUTING %s" % (tag, raw))
        else:
            check(out == ["192.0.2.7", "2001:db8::1", "2001:db8::1"],
                  "%s: TX sources %s" % (tag, out))
            check(d == {"martian": 3}, "%s: drops %s, expected martian 3" % (tag, d))
            check(raw and raw[0]["packets"] == 4, "%s: raw PREROUTING %s" % (tag, raw))
    print("forged: martian 3 and 2 forwarded off a host port, OUTPUT's on one, either port")


TESTS = {"linktypes": test_linktypes, "forged": test_forged, "rules": test_rules, "conntrack": test_conntrack,
         "connbytes": test_connbytes, "nat": test_nat,
         "iptables": test_iptables, "string": test_string, "u32": test_u32, "bpf": test_bpf, "consumer": test_consumer, "badargs": test_badargs,
         "perflow": test_perflow, "perflow_scale": test_perflow_scale,
         "lossless": test_lossless, "tcpflags": test_tcpflags, "filewait": test_filewait}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=sorted(TESTS))
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda sig, _f: sys.exit(128 + sig))
    ctx = Ctx(args, args.test)
    for tool in (ctx.gufc, ctx.gen, ctx.consume, ctx.check):
        if not os.access(tool, os.X_OK):
            print("FAIL: %s not built" % tool)
            return 1
    t0 = time.monotonic()
    ok = False
    try:
        TESTS[args.test](ctx)
        ok = True
    except Fail as e:
        print("FAIL: %s: %s" % (args.test, e))
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s: timed out: %s" % (args.test, " ".join(map(str, e.cmd))))
    finally:
        if args.keep or not ok:
            print("work directory: %s" % ctx.work)
        else:
            shutil.rmtree(ctx.work, ignore_errors=True)
    print("%s: %s in %.1f s" % (args.test, "ok" if ok else "FAILED", time.monotonic() - t0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
