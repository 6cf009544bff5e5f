#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rewrite_oracle test: the bytes Linux forwards after mangle rewrites vs gufc's.

Three network namespaces in a row, sender - router - receiver, joined by
veth pairs. The router forwards (ip_forward) and rewrites in its mangle
table: DSCP, TOS (--set-tos, --and-tos, --or-tos, --xor-tos), TTL
(--ttl-set, --ttl-dec, --ttl-inc) and HL, at PREROUTING, FORWARD and
POSTROUTING, each rule on its own UDP port. The sender writes hand-built
frames (AF_PACKET); the receiver reads what the router forwarded. The same
frames then go through the gufc binary (net_pcap, bridge mode) loaded with
the same rules. Per packet the two must agree on the TOS / traffic class,
on the TTL / hop limit (Linux's router takes one off before FORWARD: a
rule at PREROUTING leaves gufc's one above Linux's, a rule after it
Linux's own value - gufc in bridge mode does not route-decrement), on the
payload, and both IPv4 header checksums must verify.

TCPMSS (--set-mss, --clamp-mss-to-pmtu at FORWARD and POSTROUTING) on TCP
SYNs without an MSS option (Linux adds one: at most 536 for IPv4, 1220 for
IPv6), with one (lowered only), with other options, and with data after the
header (left alone): the IP length and the whole TCP header must be the
same bytes, the TCP checksum must verify in both.

ECN (--ecn-tcp-remove, --ecn-tcp-ece/--ecn-tcp-cwr N, --ecn-ip-ect N; IPv4)
on SYNs with and without ECE and CWR, ECN fields 0 to 3: the TCP segment,
the TOS byte and both checksums must be the same.

Usage: rewrite_oracle.py --gufc GUFC
Exit: 0 equal, 1 a difference or error, 77 (skip) when not root, or
network namespaces or iptables are not available.
"""

import argparse
import ipaddress
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from nf_util import csum, mac, ns, pcap_read, pcap_write, run

SKIP = 77
TAG = "%d" % (os.getpid() % 100000)
SNS, RNS, DNS = "gufc-ws" + TAG, "gufc-wr" + TAG, "gufc-wd" + TAG
SDEV, R1DEV, R2DEV, DDEV = "ws" + TAG, "wr1" + TAG, "wr2" + TAG, "wd" + TAG
SMAC, R1MAC, R2MAC, DMAC = ("02:00:00:00:00:2a", "02:00:00:00:00:2b", "02:00:00:00:00:2c",
                            "02:00:00:00:00:2d")
S4, R14, R24, D4 = "10.79.1.1", "10.79.1.2", "10.79.2.2", "10.79.2.1"
S6, R16, R26, D6 = "fd79:1::1", "fd79:1::2", "fd79:2::2", "fd79:2::1"

# (family, chain, port, target options); the packets to PORT get it.
RULES = [
    (4, "PREROUTING", 1001, ["DSCP", "--set-dscp", "0x2e"]),
    (4, "PREROUTING", 1002, ["TOS", "--set-tos", "0x10/0x3f"]),
    (4, "POSTROUTING", 1003, ["TOS", "--and-tos", "0x0f"]),
    (4, "FORWARD", 1004, ["TOS", "--or-tos", "0x08"]),
    (4, "FORWARD", 1005, ["TOS", "--xor-tos", "0x44"]),
    (4, "FORWARD", 1006, ["TTL", "--ttl-set", "9"]),
    (4, "PREROUTING", 1007, ["TTL", "--ttl-dec", "2"]),
    (4, "POSTROUTING", 1008, ["TTL", "--ttl-inc", "5"]),
    (4, "FORWARD", 1009, ["DSCP", "--set-dscp-class", "AF41"]),
    (6, "PREROUTING", 1001, ["DSCP", "--set-dscp-class", "EF"]),
    (6, "FORWARD", 1006, ["HL", "--hl-set", "7"]),
    (6, "PREROUTING", 1007, ["HL", "--hl-dec", "3"]),
    (6, "POSTROUTING", 1008, ["HL", "--hl-inc", "1"]),
]

# TCPMSS: (family, chain, port, target options); SYNs to PORT get it.
TCP_RULES = [
    (4, "FORWARD", 2001, ["TCPMSS", "--set-mss", "1300"]),
    (4, "POSTROUTING", 2002, ["TCPMSS", "--clamp-mss-to-pmtu"]),
    (6, "FORWARD", 2001, ["TCPMSS", "--set-mss", "1300"]),
    (6, "POSTROUTING", 2002, ["TCPMSS", "--clamp-mss-to-pmtu"]),
]
# ECN: (family, chain, port, target options); SYNs to PORT get it (ECN_SYNS).
ECN_RULES = [
    (4, "FORWARD", 2003, ["ECN", "--ecn-tcp-remove"]),
    (4, "PREROUTING", 2004, ["ECN", "--ecn-tcp-ece", "1", "--ecn-tcp-cwr", "0",
                             "--ecn-ip-ect", "2"]),
    (4, "POSTROUTING", 2005, ["ECN", "--ecn-tcp-cwr", "1"]),
    (4, "FORWARD", 2006, ["ECN", "--ecn-ip-ect", "0"]),
]
# (TCP flags, TOS byte) of the SYNs sent to each ECN rule.
ECN_SYNS = [(0x02, 0x00), (0xc2, 0x03), (0x42, 0x01), (0x82, 0x02), (0xc2, 0xfe)]
# (TCP options, data bytes) of the SYNs sent to each TCPMSS rule.
SYNS = [
    (b"", 0),                                    # no option: Linux adds one
    (b"\x02\x04\x05\xb4", 0),                    # MSS 1460: lowered
    (b"\x02\x04\x01\x00", 0),                    # MSS 256: kept
    (b"\x01\x01\x04\x02\x01\x03\x03\x07", 0),    # NOP NOP SACK-OK NOP WS: MSS added first
    (b"", 12),                                   # data after the header: left alone
]

SEND = r"""
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for h in sys.argv[2:]:
    s.send(bytes.fromhex(h))
    time.sleep(0.01)
"""

RECV = r"""
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
s.settimeout(0.5)
end = time.time() + float(sys.argv[2])
out = open(sys.argv[3], "w")
while time.time() < end:
    try:
        d, a = s.recvfrom(65535)
    except socket.timeout:
        continue
    if a[2] != socket.PACKET_OUTGOING and d[12:14] in (b"\x08\x00", b"\x86\xdd"):
        out.write(d.hex() + "\n")
        out.flush()
"""


def udp_frame(fam, dport, tos, ttl, n):
    src, dst = (S4, D4) if fam == 4 else (S6, D6)
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    payload = b"rw-%s-%d-%d" % (TAG.encode(), dport, n)
    l4 = struct.pack("!HHHH", 5000 + n, dport, 8 + len(payload), 0) + payload
    if fam == 6:
        pseudo = s.packed + d.packed + struct.pack("!IxxxB", len(l4), 17)
    else:
        pseudo = s.packed + d.packed + struct.pack("!xBH", 17, len(l4))
    l4 = l4[:6] + struct.pack("!H", csum(pseudo + l4) or 0xFFFF) + l4[8:]
    eth = mac(R1MAC) + mac(SMAC)
    if fam == 6:
        ip = struct.pack("!IHBB", 0x60000000 | tos << 20, len(l4), 17, ttl) + s.packed + d.packed
        return eth + b"\x86\xdd" + ip + l4
    ip = struct.pack("!BBHHHBBH", 0x45, tos, 20 + len(l4), n, 0, ttl, 17, 0) + s.packed + \
        d.packed
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return eth + b"\x08\x00" + ip + l4


def tcp_syn(fam, dport, sport, opts, data, flags=0x02, tos=0):
    src, dst = (S4, D4) if fam == 4 else (S6, D6)
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    hl = 20 + len(opts)
    l4 = struct.pack("!HHIIBBHHH", sport, dport, 1000 + sport, 0, (hl // 4) << 4, flags,
                     64240, 0, 0) + opts + b"d" * data
    if fam == 6:
        pseudo = s.packed + d.packed + struct.pack("!IxxxB", len(l4), 6)
    else:
        pseudo = s.packed + d.packed + struct.pack("!xBH", 6, len(l4))
    l4 = l4[:16] + struct.pack("!H", csum(pseudo + l4)) + l4[18:]
    eth = mac(R1MAC) + mac(SMAC)
    if fam == 6:
        ip = struct.pack("!IHBB", 0x60000000, len(l4), 6, 64) + s.packed + d.packed
        return eth + b"\x86\xdd" + ip + l4
    ip = struct.pack("!BBHHHBBH", 0x45, tos, 20 + len(l4), sport, 0, 64, 6, 0) + s.packed + \
        d.packed
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return eth + b"\x08\x00" + ip + l4


def tcp_fields(fr):
    """(family, sport, IP length, TCP segment, TCP checksum ok, TOS, IPv4 checksum ok) of a
    TCP frame, or None."""
    ip = fr[14:]
    if fr[12:14] == b"\x08\x00" and ip[9] == 6:
        ihl, end = (ip[0] & 15) * 4, struct.unpack("!H", ip[2:4])[0]
        fam, seg, tos, ipck = 4, ip[ihl:end], ip[1], csum(ip[:ihl]) == 0
        pseudo = ip[12:20] + struct.pack("!xBH", 6, len(seg))
    elif fr[12:14] == b"\x86\xdd" and ip[6] == 6:
        end = 40 + struct.unpack("!H", ip[4:6])[0]
        fam, seg, tos, ipck = 6, ip[40:end], 0, True
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(seg), 6)
    else:
        return None
    if len(seg) < 20 or not 2001 <= struct.unpack("!H", seg[2:4])[0] <= 2006:
        return None
    return (fam, struct.unpack("!H", seg[0:2])[0], end, seg, csum(pseudo + seg) == 0, tos,
            ipck)


def fields(fr):
    """(family, dport, tos, ttl, payload, ipv4 checksum ok) of a frame."""
    if fr[12:14] == b"\x08\x00":
        ip = fr[14:]
        ihl = (ip[0] & 15) * 4
        return (4, struct.unpack("!H", ip[ihl + 2:ihl + 4])[0], ip[1], ip[8],
                ip[ihl + 8:struct.unpack("!H", ip[2:4])[0]], csum(ip[:ihl]) == 0)
    ip = fr[14:]
    w = struct.unpack("!I", ip[:4])[0]
    return (6, struct.unpack("!H", ip[42:44])[0], (w >> 20) & 0xFF, ip[7],
            ip[48:40 + struct.unpack("!H", ip[4:6])[0]], True)


def setup():
    for n in (SNS, RNS, DNS):
        run(["ip", "netns", "del", n], check=False)
        run(["ip", "netns", "add", n])
    run(["ip", "link", "add", SDEV, "netns", SNS, "type", "veth", "peer", "name", R1DEV,
         "netns", RNS])
    run(["ip", "link", "add", R2DEV, "netns", RNS, "type", "veth", "peer", "name", DDEV,
         "netns", DNS])
    for n, dev, m, a4, a6 in ((SNS, SDEV, SMAC, S4, S6), (RNS, R1DEV, R1MAC, R14, R16),
                              (RNS, R2DEV, R2MAC, R24, R26), (DNS, DDEV, DMAC, D4, D6)):
        ns(n, ["ip", "link", "set", dev, "address", m])
        ns(n, ["ip", "addr", "add", a4 + "/24", "dev", dev])
        ns(n, ["ip", "addr", "add", a6 + "/64", "dev", dev, "nodad"])
        ns(n, ["ip", "link", "set", dev, "up"])
    ns(RNS, ["sysctl", "-qw", "net.ipv4.ip_forward=1"])
    ns(RNS, ["sysctl", "-qw", "net.ipv6.conf.all.forwarding=1"])
    ns(RNS, ["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0"], check=False)
    ns(RNS, ["sysctl", "-qw", "net.ipv4.conf.%s.rp_filter=0" % R1DEV], check=False)
    ns(RNS, ["ip", "neigh", "add", D4, "lladdr", DMAC, "dev", R2DEV])
    ns(RNS, ["ip", "neigh", "add", D6, "lladdr", DMAC, "dev", R2DEV])
    ns(RNS, ["ip", "neigh", "add", S4, "lladdr", SMAC, "dev", R1DEV])
    ns(RNS, ["ip", "neigh", "add", S6, "lladdr", SMAC, "dev", R1DEV])
    for fam, chain, port, tgt in RULES:
        tool = "iptables" if fam == 4 else "ip6tables"
        ns(RNS, [tool, "-t", "mangle", "-A", chain, "-p", "udp", "--dport", str(port), "-j"] +
           tgt)
    for fam, chain, port, tgt in TCP_RULES + ECN_RULES:
        tool = "iptables" if fam == 4 else "ip6tables"
        ns(RNS, [tool, "-t", "mangle", "-A", chain, "-p", "tcp", "--dport", str(port),
                 "--tcp-flags", "SYN,RST", "SYN", "-j"] + tgt)


def cleanup():
    for n in (SNS, RNS, DNS):
        run(["ip", "netns", "del", n], check=False)


def save(tool):
    return ns(RNS, [tool + "-save", "-t", "mangle"]).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gufc", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("iptables") or \
            not shutil.which("ip6tables"):
        print("SKIP: needs root, ip, iptables and ip6tables")
        return SKIP
    work = tempfile.mkdtemp(prefix="gufc-rw-oracle-")
    ok = False
    try:
        try:
            setup()
        except RuntimeError as e:
            print("SKIP: %s" % e)
            return SKIP
        frames = []
        for fam, chain, port, tgt in RULES:
            for n, (tos, ttl) in enumerate(((0x00, 64), (0xff, 10), (0x13, 200))):
                frames.append(udp_frame(fam, port, tos, ttl, n))
        syns = []
        for fam, chain, port, tgt in TCP_RULES:
            for opts, data in SYNS:
                syns.append(tcp_syn(fam, port, 6000 + len(syns), opts, data))
        for fam, chain, port, tgt in ECN_RULES:
            for flags, tos in ECN_SYNS:
                syns.append(tcp_syn(fam, port, 6000 + len(syns), b"", 0, flags, tos))
        frames += syns
        cap = os.path.join(work, "linux.hex")
        rx = subprocess.Popen(["ip", "netns", "exec", DNS, "python3", "-c", RECV, DDEV, "3",
                               cap])
        time.sleep(0.5)
        ns(SNS, ["python3", "-c", SEND, SDEV] + [fr.hex() for fr in frames])
        rx.wait(timeout=20)
        with open(cap) as f:
            linux = [bytes.fromhex(ln.strip()) for ln in f if ln.strip()]
        # Only the test's datagrams (the namespaces' own ND/MLD traffic aside).
        linux_tcp = {tcp_fields(fr)[:2]: tcp_fields(fr) for fr in linux
                     if tcp_fields(fr) is not None}
        linux = [fr for fr in linux if b"rw-" + TAG.encode() in fr]
        v4, v6 = os.path.join(work, "r.v4"), os.path.join(work, "r.v6")
        with open(v4, "w") as f:
            f.write(save("iptables"))
        with open(v6, "w") as f:
            f.write(save("ip6tables"))
        inp, tx = os.path.join(work, "in.pcap"), os.path.join(work, "tx.pcap")
        pcap_write(inp, frames)
        r = run([args.gufc, "--no-pci", "-l", "0", "--no-huge", "-m", "512",
                 "--log-level=lib.*:warning", "--file-prefix", "gufc-rw-%s" % TAG,
                 "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx), "--",
                 "--idle-exit", "300", "--iptables", v4, "--ip6tables", v6], check=False,
                timeout=60)
        if r.returncode != 0:
            print("gufc failed:\n%s" % r.stdout[-3000:])
            return 1
        ours = pcap_read(tx)
        ours_tcp = {tcp_fields(fr)[:2]: tcp_fields(fr) for fr in ours
                    if tcp_fields(fr) is not None}
        ours = [fr for fr in ours if tcp_fields(fr) is None]
        key = lambda fr: (fields(fr)[0], fields(fr)[4])
        lk = {key(fr): fields(fr) for fr in linux}
        gk = {key(fr): fields(fr) for fr in ours}
        # A TTL/HL set after Linux's decrement (FORWARD, POSTROUTING) is the same value
        # in both; anything else leaves gufc's (bridge: no decrement) one above Linux's.
        set_after = {(fam, port) for fam, chain, port, tgt in RULES
                     if chain != "PREROUTING" and tgt[1] in ("--ttl-set", "--hl-set")}
        bad = 0
        for fr in syns:
            k = tcp_fields(fr)[:2]
            l, g = linux_tcp.get(k), ours_tcp.get(k)
            if l is None or g is None:
                print("SYN %s: linux %s, gufc %s" % (k, l is not None, g is not None))
                bad += 1
            elif l[2:] != g[2:] or not l[4] or not l[6]:
                print("SYN %s: linux ip length %d tcp %s csum %s tos 0x%02x; gufc ip length %d "
                      "tcp %s csum %s tos 0x%02x ip csum %s" % (k, l[2], l[3].hex(), l[4], l[5],
                                                                g[2], g[3].hex(), g[4], g[5],
                                                                g[6]))
                bad += 1
        for fr in frames:
            if fr in syns:
                continue
            k = key(fr)
            l, g = lk.get(k), gk.get(k)
            if l is None or g is None:
                print("packet %s: linux %s, gufc %s" % (k, l is not None, g is not None))
                bad += 1
                continue
            fam, port = l[0], l[1]
            want_ttl = l[3] if (fam, port) in set_after else l[3] + 1
            if l[2] != g[2] or want_ttl != g[3] or not l[5] or not g[5]:
                print("packet %s: linux tos 0x%02x ttl %d csum %s; gufc tos 0x%02x ttl %d "
                      "csum %s (want ttl %d)" % (k, l[2], l[3], l[5], g[2], g[3], g[5],
                                                  want_ttl))
                bad += 1
        print("rewrite_oracle: %d packets compared (Linux forwarded %d frames and %d SYNs, "
              "gufc %d and %d), %d differences" % (len(frames), len(linux), len(linux_tcp),
                                                   len(ours), len(ours_tcp), bad))
        ok = bad == 0
    finally:
        cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
