#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""connbytes and the TCP segments conntrack ignores, through the gufc
binary (router mode between a client and a server namespace) and through a
Linux router, with the same frames: TCP conversations written segment by
segment (CONVS: real sequence and acknowledgement numbers, so conntrack
checks each against the windows) are sent from the hosts' interfaces by
AF_PACKET sockets, each one once the one before it came out or not (so
both routers see the same segments in the same order), with the hosts'
own TCP and SCTP kept out (INPUT drops them there: no resets, no
ABORTs); and an SCTP association (SCTP_CONV) the same way.

  ctacct        gufc; each segment's verdict (forwarded or not) must be
                WANT's, and the filter rules' counters (packets, bytes)
                RULE_COUNTS'
  ctacct_linux  the same frames and rules through a Linux router: the
                same verdicts and counters

-m connbytes reads the connection's counters, which leave out a segment
conntrack ignores (old data below the windows, a SYN in ESTABLISHED, an
ACK older than the window allows; SCTP: an INIT retransmitted in CLOSED,
a HEARTBEAT with another path's tag), while the rule that accepts it counts
it (doc/conntrack.md "Ignored segments and the idle time"): with ignored
segments counted, the ignored segments themselves and the segments after
them meet the range's end early and are dropped.
"""

import json
import os
import struct
import subprocess
import sys
import time

from router_lib import (CLIENT4, CLIENT_MAC, GW_IN4, GW_OUT4, SERVER4, SERVER_MAC, Gateway,
                        check, main, sh)
from router_test import BASE_CONF, linux_router, wait_line

RULES = """*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p tcp -m tcp --dport 80 -m connbytes --connbytes 0:5 --connbytes-dir original --connbytes-mode packets -j ACCEPT
-A FORWARD -p tcp -m tcp --sport 80 -m connbytes --connbytes 0:5 --connbytes-dir original --connbytes-mode packets -j ACCEPT
-A FORWARD -p tcp -m tcp --dport 81 -m connbytes --connbytes 0:6 --connbytes-dir both --connbytes-mode packets -j ACCEPT
-A FORWARD -p tcp -m tcp --sport 81 -m connbytes --connbytes 0:6 --connbytes-dir both --connbytes-mode packets -j ACCEPT
-A FORWARD -p tcp -m tcp --dport 82 -m connbytes --connbytes 0:400 --connbytes-dir original --connbytes-mode bytes -j ACCEPT
-A FORWARD -p tcp -m tcp --sport 82 -m connbytes --connbytes 0:400 --connbytes-dir original --connbytes-mode bytes -j ACCEPT
-A FORWARD -p sctp -m sctp --dport 36412 -m connbytes --connbytes 0:5 --connbytes-dir original --connbytes-mode packets -j ACCEPT
-A FORWARD -p sctp -m sctp --sport 36412 -m connbytes --connbytes 0:5 --connbytes-dir original --connbytes-mode packets -j ACCEPT
-A FORWARD -p tcp -j DROP
-A FORWARD -p sctp -j DROP
COMMIT
"""

C, S = 1000000, 3000000  # the client's and the server's initial sequence numbers

# (client port, server port, [(">" client to server or "<", flags, seq,
# ack, payload length, forwarded)]): ctacct.conv's conversations (the
# netfilter_conntrack test's, against ct_eval) as frames.
CONVS = [
    # Original direction, packets 0:5: old data twice and a SYN in
    # ESTABLISHED are ignored (not counted, but accepted by the rule).
    (40200, 80, [
        (">", "S", C, 0, 0, True),                   # 1
        ("<", "SA", S, C + 1, 0, True),
        (">", "A", C + 1, S + 1, 0, True),           # 2
        (">", "PA", C + 1, S + 1, 100, True),        # 3
        ("<", "A", S + 1, C + 101, 0, True),
        (">", "PA", C - 200000, S + 1, 100, True),   # old data: ignored, 3
        (">", "PA", C - 200000, S + 1, 100, True),   # again
        (">", "S", C + 7000, 0, 0, True),            # SYN in ESTABLISHED: ignored
        (">", "PA", C + 101, S + 1, 100, True),      # 4 (7 with the ignored)
        (">", "PA", C + 201, S + 1, 100, True),      # 5
        ("<", "A", S + 1, C + 301, 0, True),
        (">", "PA", C + 301, S + 1, 100, False),     # 6: past the range
    ]),
    # Both directions, packets 0:6: an ACK older than the window allows.
    (40201, 81, [
        (">", "S", C, 0, 0, True),                   # 1
        ("<", "SA", S, C + 1, 0, True),              # 2
        (">", "A", C + 1, S + 1, 0, True),           # 3
        (">", "PA", C + 1, S + 1, 100, True),        # 4
        ("<", "A", S + 1, C + 101, 0, True),         # 5
        ("<", "A", S + 1, C - 100000, 0, True),      # very old ACK: ignored, 5
        ("<", "A", S + 1, C - 100000, 0, True),      # again
        (">", "PA", C + 101, S + 1, 100, True),      # 6 (8 with the ignored)
        ("<", "A", S + 1, C + 201, 0, False),        # 7: past the range
    ]),
    # Original direction, bytes 0:400 (IP bytes): old data twice.
    (40202, 82, [
        (">", "S", C, 0, 0, True),                   # 40
        ("<", "SA", S, C + 1, 0, True),
        (">", "A", C + 1, S + 1, 0, True),           # 80
        (">", "PA", C + 1, S + 1, 100, True),        # 220
        ("<", "A", S + 1, C + 101, 0, True),
        (">", "PA", C - 200000, S + 1, 100, True),   # old data: ignored, 220
        (">", "PA", C - 200000, S + 1, 100, True),   # again
        (">", "PA", C + 101, S + 1, 100, True),      # 360 (640 with the ignored)
        (">", "PA", C + 201, S + 1, 100, False),     # 500: past the range
    ]),
]

# An SCTP association (client port 5000 to 36412; (direction, verification
# tag, chunks as netfilter-oracle.py's conversations name them,
# forwarded)), original direction, packets 0:5: a retransmitted INIT (in
# CLOSED) and HEARTBEATs with another tag (a new path's) are ignored, as
# Linux's SCTP tracker leaves them out of the accounting.
SCTP_CONV = (5000, 36412, [
    (">", 0, ["init:0x11111111"], True),           # 1
    (">", 0, ["init:0x11111111"], True),           # retransmitted: ignored, 1
    ("<", 0x11111111, ["initack:0x22222222"], True),
    (">", 0x22222222, ["cookie"], True),           # 2
    ("<", 0x11111111, ["cookieack"], True),
    (">", 0x22222222, ["data"], True),             # 3
    ("<", 0x11111111, ["sack"], True),
    (">", 0x99999999, ["hb"], True),               # another path's: ignored, 3
    (">", 0x99999999, ["hb"], True),               # again
    (">", 0x22222222, ["data"], True),             # 4 (7 with the ignored)
    (">", 0x22222222, ["data"], True),             # 5
    (">", 0x22222222, ["data"], False),            # 6: past the range
])

# Each FORWARD rule's (packets, bytes): the ACCEPT rules count the ignored
# segments they accept (40-byte headers, 100-byte payloads).
RULE_COUNTS = [(8, 820), (3, 120), (4, 360), (4, 160), (6, 640), (2, 80), (8, 380), (3, 136),
               (3, 320), (1, 52)]

# AF_PACKET on interface argv[1]: "send HEX" sends a frame; "wait ID SEC"
# prints "SEEN" when an IPv4 TCP frame of IP id ID arrives within SEC
# seconds (TCP or SCTP; frames already queued count), else "NONE".
RAW_IO = r"""
import select, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
print("READY", flush=True)
for line in sys.stdin:
    w = line.split()
    if w[0] == "send":
        s.send(bytes.fromhex(w[1]))
        print("SENT", flush=True)
        continue
    want, end, res = int(w[1]), time.time() + float(w[2]), "NONE"
    while res == "NONE":
        t = end - time.time()
        if t <= 0 or not select.select([s], [], [], t)[0]:
            break
        b, addr = s.recvfrom(65535)
        if (addr[2] != socket.PACKET_OUTGOING and len(b) >= 34 and b[12:14] == b"\x08\x00"
                and b[23] in (6, 132) and struct.unpack("!H", b[18:20])[0] == want):
            res = "SEEN"
    print(res, flush=True)
"""

FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10}


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def load_oracle():
    """scripts/netfilter-oracle.py as a module (its SCTP chunks and CRC32c)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                        "scripts", "netfilter-oracle.py")
    spec = importlib.util.spec_from_file_location("nf_oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def frame(dmac, smac, src, dst, sport, dport, flags, seq, ack, plen, ipid, nfo=None):
    """An Ethernet frame of a TCP segment (no options, window 65160), or
    with @nfo (the oracle module) of an SCTP packet: @seq its verification
    tag, @flags its chunks' names."""
    sa, da = bytes(map(int, src.split("."))), bytes(map(int, dst.split(".")))
    if nfo is not None:
        l4 = struct.pack("!HHII", sport, dport, seq, 0) + b"".join(
            nfo.sctp_chunk(ch, ipid, "SCTP_CONV") for ch in flags)
        l4 = l4[:8] + struct.pack("<I", nfo.crc32c(l4)) + l4[12:]
        proto = 132
    else:
        fl = 0
        for ch in flags:
            fl |= FLAGS[ch]
        l4 = struct.pack("!HHIIHHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                         5 << 12 | fl, 65160, 0, 0) + bytes((ipid + i) & 0xFF for i in range(plen))
        c = csum(sa + da + struct.pack("!BBH", 0, 6, len(l4)) + l4)
        l4 = l4[:16] + struct.pack("!H", c) + l4[18:]
        proto = 6
    tcp = l4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ipid, 0x4000, 64, proto, 0, sa, da)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return bytes.fromhex(dmac.replace(":", "")) + bytes.fromhex(smac.replace(":", "")) + \
        b"\x08\x00" + ip + tcp


def run_convs(nsexec, cif, sif, cmac, smac):
    """Sends CONVS' segments from the client's interface @cif and the
    server's @sif (namespaces by @nsexec(side, args)), each after the one
    before came out or not; returns the verdicts, one list per conversation."""
    for side, gw in (("c", GW_IN4), ("s", GW_OUT4)):
        # The hosts' TCP stays out (no resets for the segments they receive);
        # the routers learn both hosts (ARP) before the first segment.
        sh(nsexec(side, ["iptables", "-A", "INPUT", "-p", "tcp", "-j", "DROP"]))
        sh(nsexec(side, ["iptables", "-A", "INPUT", "-p", "132", "-j", "DROP"]))
        sh(nsexec(side, ["ping", "-c", "1", "-W", "2", gw]), check_rc=False)
    sh(nsexec("c", ["ping", "-c", "2", "-i", "0.2", "-W", "2", SERVER4]), check_rc=False)
    gmac = {}
    for side, gw in (("c", GW_IN4), ("s", GW_OUT4)):
        out = sh(nsexec(side, ["ip", "-j", "neigh", "show", gw])).stdout
        gmac[side] = json.loads(out)[0]["lladdr"]
    io = {}
    for side, ifn in (("c", cif), ("s", sif)):
        io[side] = subprocess.Popen(nsexec(side, [sys.executable, "-u", "-c", RAW_IO, ifn]),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        wait_line(io[side], "READY")

    def say(side, line, word):
        io[side].stdin.write(line + "\n")
        io[side].stdin.flush()
        return wait_line(io[side], word, timeout=10)[0]

    got, ipid, nfo = [], 1000, load_oracle()
    convs = all_convs()
    try:
        for n, (cport, sport, segs) in enumerate(convs):
            got.append([])
            sctp = nfo if n == len(CONVS) else None
            for d, flags, seq, ack, plen, _ in segs:
                ipid += 1
                if d == ">":
                    f = frame(gmac["c"], cmac, CLIENT4, SERVER4, cport, sport, flags, seq, ack,
                              plen, ipid, sctp)
                    tx, rx = "c", "s"
                else:
                    f = frame(gmac["s"], smac, SERVER4, CLIENT4, sport, cport, flags, seq, ack,
                              plen, ipid, sctp)
                    tx, rx = "s", "c"
                say(tx, "send " + f.hex(), "SENT")
                got[-1].append(say(rx, "wait %d 1.0" % ipid, "") == "SEEN")
    finally:
        for p in io.values():
            p.stdin.close()
            p.wait(5)
    return got


def all_convs():
    """CONVS, then SCTP_CONV in their form (chunks for flags, the tag for seq)."""
    return CONVS + [(SCTP_CONV[0], SCTP_CONV[1],
                     [(d, ch, tag, 0, 0, fw) for d, tag, ch, fw in SCTP_CONV[2]])]


def verdicts_check(got, who):
    lines, bad = [], []
    for (cport, sport, segs), g in zip(all_convs(), got):
        for i, (seg, v) in enumerate(zip(segs, g)):
            what = ("tag=0x%x %s" % (seg[2], " ".join(seg[1])) if isinstance(seg[1], list) else
                    "%s seq=%d ack=%d len=%d" % (seg[1], seg[2], seg[3], seg[4]))
            lines.append("%d->%d #%d %s %s: %s" % (cport, sport, i + 1, seg[0], what,
                                                   "forwarded" if v else "dropped"))
            if v != seg[5]:
                bad.append(lines[-1] + " (want %s)" % ("forwarded" if seg[5] else "dropped"))
    print("\n".join(lines))
    check(not bad, "%s: verdicts:\n  %s" % (who, "\n  ".join(bad)))


def t_ctacct(build):
    conf = BASE_CONF + "set conntrack on\n"
    with Gateway(build, conf, RULES, rules_kw="iptables") as gw:
        def nsexec(side, args):
            return ["ip", "netns", "exec", gw.cns if side == "c" else gw.sns] + args

        got = run_convs(nsexec, gw.ctap, gw.stap, CLIENT_MAC, SERVER_MAC)
        gw.stop()
        st = gw.stats()
        verdicts_check(got, "gufc")
        rows = sorted((r for r in st.get("rules", []) if r["table"] == "filter"),
                      key=lambda r: r["id"])
        counts = [(r["packets"], r["bytes"]) for r in rows]
        print("gufc rule counters:", counts)
        check(counts == RULE_COUNTS, "gufc rule counters %s, want %s" % (counts, RULE_COUNTS))
        # Old data and the old ACKs on the fast path (its window check), the SYN
        # in ESTABLISHED on the slow path.
        ct = st["conntrack"]
        print("gufc conntrack: ignored %d, ignored_fast %d" % (ct["ignored"], ct["ignored_fast"]))
        check(ct["ignored_fast"] >= 1 and ct["ignored"] >= 1, "conntrack: %s" % ct)


def t_ctacct_linux(build):
    tag = "cta"
    pid = os.getpid() % 100000
    cns, rns, sns = "%s%d-c" % (tag, pid), "%s%d-r" % (tag, pid), "%s%d-s" % (tag, pid)

    def body(_spawn, _flush_raw):
        sh(["ip", "netns", "exec", rns, "sysctl", "-qw", "net.netfilter.nf_conntrack_acct=1"])

        def nsexec(side, args):
            return ["ip", "netns", "exec", cns if side == "c" else sns] + args

        mac = {}
        for side in ("c", "s"):
            mac[side] = sh(nsexec(side, ["cat", "/sys/class/net/eth0/address"])).stdout.strip()
        got = run_convs(nsexec, "eth0", "eth0", mac["c"], mac["s"])
        verdicts_check(got, "linux")
        out = sh(["ip", "netns", "exec", rns, "iptables", "-L", "FORWARD", "-v", "-x",
                  "-n"]).stdout.splitlines()[2:]
        counts = [(int(l.split()[0]), int(l.split()[1])) for l in out if l.strip()]
        print("linux rule counters:", counts)
        check(counts == RULE_COUNTS, "linux rule counters %s, want %s" % (counts, RULE_COUNTS))
        print("linux: the verdicts and counters are gufc's")

    linux_router(tag, ("tcp", None), 80, body, nat=False, v6=False,
                 texts={"4": RULES, "6": "*filter\nCOMMIT\n"})


if __name__ == "__main__":
    sys.exit(main({"ctacct": t_ctacct, "ctacct_linux": t_ctacct_linux}, sys.argv))
