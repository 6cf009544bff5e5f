#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration test of LOG and NFLOG through the gufc binary on net_pcap.

  log_test.py --build BUILDDIR --src SRCDIR

An iptables file with a LOG rule behind "-m limit", a LOG rule with
--log-tcp-sequence and an NFLOG rule, a replay of hand-built frames, and
checks of what came out: exactly the log lines Linux would write for the
packets the limit lets through (the text computed here from the frames, in
the kernel's format), every TCP packet's line, no line for NFLOG, a pcapng
log channel carrying each logged packet with its rule's prefix as the
packet's comment, the counters (logged, log_dropped, lines, per rule) in
the stats JSON, and the accounting. Python 3 standard library only.
Exit 0 pass, 1 fail.
"""

import argparse
import ipaddress
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import app_test as at  # noqa: E402

IPT = """*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p udp -m udp --dport 53 -m limit --limit 1/hour --limit-burst 5 -j LOG --log-prefix "dns: "
-A FORWARD -p tcp -m tcp --dport 22 -j LOG --log-prefix "ssh: " --log-tcp-sequence --log-level 6
-A FORWARD -p icmp -j NFLOG --nflog-group 5 --nflog-prefix "icmp"
COMMIT
"""


def mac_text(fr):
    return ":".join("%02x" % b for b in fr[:14])


def expected_line(prefix, fr, tcpseq=False):
    """The LOG line Linux writes for IPv4 frame @fr forwarded wan0 -> wan0."""
    ip = fr[14:]
    ihl = (ip[0] & 15) * 4
    tot, ident, fo = struct.unpack("!HHH", ip[2:8])
    s = "%sIN=wan0 OUT=wan0 MAC=%s SRC=%s DST=%s LEN=%d TOS=0x%02X PREC=0x%02X TTL=%d ID=%d " % (
        prefix, mac_text(fr), ipaddress.ip_address(ip[12:16]), ipaddress.ip_address(ip[16:20]),
        tot, ip[1] & 0x1E, ip[1] & 0xE0, ip[8], ident)
    if fo & 0x4000:
        s += "DF "
    l4 = ip[ihl:]
    if ip[9] == 17:
        sp, dp, ln = struct.unpack("!HHH", l4[:6])
        return s + "PROTO=UDP SPT=%d DPT=%d LEN=%d " % (sp, dp, ln)
    sp, dp, seq, ack = struct.unpack("!HHII", l4[:12])
    s += "PROTO=TCP SPT=%d DPT=%d " % (sp, dp)
    if tcpseq:
        s += "SEQ=%d ACK=%d " % (seq, ack)
    s += "WINDOW=%d RES=0x%02x " % (struct.unpack("!H", l4[14:16])[0], (l4[12] & 0x0E) << 2)
    names = ["CWR", "ECE", "URG", "ACK", "PSH", "RST", "SYN", "FIN"]
    for i, n in enumerate(names):
        if l4[13] & (0x80 >> i):
            s += n + " "
    return s + "URGP=%d " % struct.unpack("!H", l4[18:20])[0]


def pcapng_packets(path):
    """(data, comment) of each enhanced packet block of a pcapng file."""
    with open(path, "rb") as f:
        d = f.read()
    out, off = [], 0
    at.check(d[:4] == b"\x0a\x0d\x0d\x0a", "%s: not pcapng" % path)
    while off + 12 <= len(d):
        btype, blen = struct.unpack("<II", d[off:off + 8])
        at.check(blen >= 12 and off + blen <= len(d), "%s: bad block at %d" % (path, off))
        at.check(struct.unpack("<I", d[off + blen - 4:off + blen])[0] == blen,
                 "%s: block lengths differ at %d" % (path, off))
        if btype == 6:
            caplen, wire = struct.unpack("<II", d[off + 20:off + 28])
            data = d[off + 28:off + 28 + caplen]
            o = off + 28 + ((caplen + 3) & ~3)
            comment = None
            while o + 4 <= off + blen - 4:
                code, ln = struct.unpack("<HH", d[o:o + 4])
                if code == 0:
                    break
                if code == 1:
                    comment = d[o + 4:o + 4 + ln].decode()
                o += 4 + ((ln + 3) & ~3)
            out.append((data, wire, comment))
        off += blen
    at.check(off == len(d), "%s: trailing bytes" % path)
    return out


def run(ctx):
    frames, dns, ssh, icmp = [], [], [], []
    for i in range(12):
        fr = at.l4_frame("udp", "10.0.0.1", 40000, "192.0.2.1", 53, payload=b"q%02d" % i,
                         ident=100 + i)
        frames.append(fr)
        dns.append(fr)
    for i in range(6):
        fr = at.l4_frame("tcp", "10.0.0.2", 41000 + i % 2, "192.0.2.1", 22, flags="S" if i < 2
                         else "A", ident=200 + i, seq=1000 + i, ack=0 if i < 2 else 77)
        frames.append(fr)
        ssh.append(fr)
    for i in range(4):
        fr = at.l4_frame("icmp", "10.0.0.3", 7, "192.0.2.1", 0, ident=300 + i)
        frames.append(fr)
        icmp.append(fr)
    inp = ctx.path("log.pcap")
    at.pcap_write(inp, frames)
    ipt = at.write(ctx, "log.v4", IPT)
    lc = ctx.path("log.pcapng")
    cfg = at.write(ctx, "log.conf", "port 0 name wan0\nlog channel lc kind pcapng file %s\n"
                   "log target lc\nlog group 5 lc\n" % lc)
    stats, tx, _pdir, out = ctx.gufc_run(inp, ["--config", cfg, "--iptables", ipt,
                                              "--conntrack", "off"], "log")
    lines = [ln for ln in out.splitlines() if "IN=wan0" in ln]
    want = [expected_line("dns: ", fr) for fr in dns[:5]] + \
        [expected_line("ssh: ", fr, tcpseq=True) for fr in ssh]
    at.check(sorted(lines) == sorted(want),
             "log lines differ:\n got:\n  %s\n want:\n  %s" % ("\n  ".join(lines),
                                                              "\n  ".join(want)))
    # Every packet was forwarded: LOG and NFLOG are not terminal.
    at.check(len(ctx.pcap_read(tx)) == len(frames), "not every packet was forwarded")
    lg = stats.get("log")
    at.check(lg is not None, "stats JSON: no log object")
    at.check(lg["logged"] == 5 + len(ssh) + len(icmp) and lg["log_dropped"] == 0,
             "stats JSON log: %s" % lg)
    at.check(lg["lines"] == 5 + len(ssh) and lg["channel_packets"] == lg["logged"],
             "stats JSON log: %s" % lg)
    per = {(r["rule"], r["target"]): r["logged"] for r in lg["rules"]}
    at.check(sorted(per.values()) == sorted([5, len(ssh), len(icmp)]),
             "per-rule logged: %s" % lg["rules"])
    # The log channel: each logged packet, whole, its rule's prefix as the comment.
    got = pcapng_packets(lc)
    at.check(len(got) == lg["logged"], "log channel: %d packets" % len(got))
    by = {}
    for data, wire, comment in got:
        at.check(wire == len(data), "log channel: a packet cut short")
        by.setdefault(comment, []).append(data)
    at.check(sorted(by.get("dns: ", [])) == sorted(dns[:5]), "log channel: the dns packets")
    at.check(sorted(by.get("ssh: ", [])) == sorted(ssh), "log channel: the ssh packets")
    at.check(sorted(by.get("icmp", [])) == sorted(icmp), "log channel: the icmp packets")


IPT_LO = """*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A OUTPUT -o lo -p udp -m udp --dport 5353 -j LOG --log-prefix "outlo: "
-A PREROUTING -i lo -p udp -m udp --dport 5353 -j LOG --log-prefix "prelo: "
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -p udp -m udp --dport 5353 -j LOG --log-prefix "inlo: "
-A INPUT ! -i lo -p udp -m udp --dport 5353 -j LOG --log-prefix "inwan: "
COMMIT
"""


def lo_line(prefix, fr, out):
    """Linux's line for a packet from the host to itself: OUT=lo leaving
    (no MAC), IN=lo back in with the loopback's zero MAC header (a Linux
    host's LOG lines, checked in a namespace)."""
    ip = fr[14:]
    tot, ident = struct.unpack("!HH", ip[2:6])
    sp, dp, ln = struct.unpack("!HHH", ip[20:26])
    head = "%sIN= OUT=lo " % prefix if out else \
        "%sIN=lo OUT= MAC=00:00:00:00:00:00:00:00:00:00:00:00:08:00 " % prefix
    return head + ("SRC=%s DST=%s LEN=%d TOS=0x00 PREC=0x00 TTL=%d ID=%d PROTO=UDP SPT=%d "
                   "DPT=%d LEN=%d " % (ipaddress.ip_address(ip[12:16]),
                                       ipaddress.ip_address(ip[16:20]), tot, ip[8], ident,
                                       sp, dp, ln))


def run_lo(ctx):
    """-o lo and -i lo: LOG lines of packets from this host to itself and
    from elsewhere, as Linux writes them."""
    me = [at.l4_frame("udp", "192.0.2.1", 40000 + i, "192.0.2.1", 5353, ident=500 + i)
          for i in range(3)]
    other = [at.l4_frame("udp", "10.0.0.9", 40100, "192.0.2.1", 5353, ident=600)]
    inp = ctx.path("lo.pcap")
    at.pcap_write(inp, me + other)
    ipt = at.write(ctx, "lo.v4", IPT_LO)
    # This host's own packets arrive on port 0 (a host port: gufc has no sockets).
    cfg = at.write(ctx, "lo.conf", "port 0 name wan0 host\nlocal 192.0.2.1\n")
    _stats, _tx, _pdir, out = ctx.gufc_run(inp, ["--config", cfg, "--iptables", ipt,
                                                "--conntrack", "off"], "lo")
    lines = [ln[ln.index(p):] for ln in out.splitlines()
             for p in ("outlo: ", "prelo: ", "inlo: ", "inwan: ") if p + "IN=" in ln]
    want = [lo_line("outlo: ", fr, True) for fr in me] + \
        [lo_line("prelo: ", fr, False) for fr in me] + \
        [lo_line("inlo: ", fr, False) for fr in me] + \
        ["inwan: IN=wan0 OUT= MAC=%s " % mac_text(other[0]) +
         lo_line("", other[0], True)[len("IN= OUT=lo "):]]
    at.check(sorted(lines) == sorted(want),
             "lo log lines differ:\n got:\n  %s\n want:\n  %s" % ("\n  ".join(lines),
                                                                 "\n  ".join(want)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    ctx = at.Ctx(args, "log")
    ok = False
    try:
        run(ctx)
        run_lo(ctx)
        ok = True
    except at.Fail as e:
        print("FAIL: log: %s" % e)
    finally:
        if args.keep or not ok:
            print("work directory: %s" % ctx.work)
        else:
            shutil.rmtree(ctx.work, ignore_errors=True)
    print("log: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
