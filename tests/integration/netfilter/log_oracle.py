#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""log_oracle test: the lines Linux's LOG target writes vs lib/pktlog's.

Two network namespaces joined by a veth pair: a sender and a host whose
iptables/ip6tables INPUT chains LOG every packet, each kind of packet with
its own prefix and options (--log-tcp-sequence, --log-tcp-options,
--log-ip-options, --log-macdecode). The sender writes hand-built frames
onto its veth (AF_PACKET: the frames exactly as built, checksums right);
the kernel's lines are read back from /dev/kmsg (nf_log_all_netns is set
for the test, so a namespace may log, and put back afterwards). log_eval
then writes lib/pktlog's line for each of the same frames, arriving on the
host's veth at INPUT; the two must be equal, text for text.

Usage: log_oracle.py --eval LOG_EVAL
Exit: 0 equal, 1 a difference or error, 77 (skip) when not root, or
network namespaces, iptables or a readable /dev/kmsg are not available.
"""

import argparse
import ipaddress
import os
import shutil
import struct
import sys
import tempfile
import time

from nf_util import csum, mac, ns, run

SKIP = 77
TAG = "%d" % (os.getpid() % 100000)
CNS, HNS = "gufc-lc" + TAG, "gufc-lh" + TAG
CDEV, HDEV = "lc" + TAG, "lh" + TAG
CMAC, HMAC = "02:00:00:00:00:1c", "02:00:00:00:00:1d"
A4, H4 = "10.78.0.1", "10.78.0.2"
A6, H6 = "fd78::1", "fd78::2"
ALL_NETNS = "/proc/sys/net/netfilter/nf_log_all_netns"

# (prefix, iptables command, match, PLOG_F_* flags); MARKS: marks set in mangle
# PREROUTING (the line's MARK=) for the packets of rule index i.
RULES = [
    ("la%s: " % TAG, "iptables", ["-p", "tcp", "--dport", "22"], ["--log-tcp-sequence",
                                                                   "--log-tcp-options"], 3),
    ("lb%s: " % TAG, "iptables", ["-p", "tcp", "--dport", "80"], [], 0),
    ("lc%s: " % TAG, "iptables", ["-p", "udp"], ["--log-macdecode"], 16),
    ("ld%s: " % TAG, "iptables", ["-p", "icmp"], ["--log-ip-options"], 4),
    ("le%s: " % TAG, "ip6tables", ["-p", "udp"], [], 0),
    ("lf%s: " % TAG, "ip6tables", ["-p", "tcp"], ["--log-tcp-sequence"], 1),
    ("lg%s: " % TAG, "ip6tables", ["-p", "ipv6-icmp", "--icmpv6-type", "echo-request"], [], 0),
    ("lh%s: " % TAG, "iptables", ["-p", "tcp", "--dport", "54"], ["--log-tcp-sequence"], 1),
    ("li%s: " % TAG, "ip6tables", ["-p", "ipv6-icmp", "--icmpv6-type", "echo-reply"], [], 0),
]
MARKS = {7: 0x2a, 8: 0x8000001f}

SEND = r"""
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for h in sys.argv[2:]:
    s.send(bytes.fromhex(h))
    time.sleep(0.01)
"""


def frame(src, dst, proto, l4, tos=0, ident=0, df=False, opts=b"", ttl=64, tc=0, flow=0):
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if s.version == 6:
        pseudo = s.packed + d.packed + struct.pack("!IxxxB", len(l4), proto)
    else:
        pseudo = s.packed + d.packed + struct.pack("!xBH", proto, len(l4))
    off = {6: 16, 17: 6, 58: 2, 1: 2}[proto]
    l4 = l4[:off] + b"\0\0" + l4[off + 2:]
    ck = csum(l4) if proto == 1 else csum(pseudo + l4)
    l4 = l4[:off] + struct.pack("!H", ck) + l4[off + 2:]
    eth = mac(HMAC) + mac(CMAC)
    if s.version == 6:
        ip = struct.pack("!IHBB", 0x60000000 | tc << 20 | flow, len(l4), proto, ttl) + \
            s.packed + d.packed
        return eth + b"\x86\xdd" + ip + l4
    ihl = 5 + len(opts) // 4
    ip = struct.pack("!BBHHHBBH", 0x40 | ihl, tos, ihl * 4 + len(l4), ident,
                     0x4000 if df else 0, ttl, proto, 0) + s.packed + d.packed + opts
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return eth + b"\x08\x00" + ip + l4


def tcp(sport, dport, flags, seq, ack, win=64240, opts=b"", res=0):
    doff = 5 + len(opts) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, doff << 4 | res, flags, win, 0,
                       0) + opts


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def cases():
    """(frame, rule index) of every packet sent."""
    synopt = bytes.fromhex("020405b40402080a0000000100000000") + bytes.fromhex("01030307")
    return [
        (frame(A4, H4, 6, tcp(40000, 22, 0x02, 0x01020304, 0, opts=synopt), ident=7238,
               df=True), 0),
        (frame(A4, H4, 6, tcp(40001, 22, 0x18, 5, 9, win=501), tos=0xb8, ident=7), 0),
        (frame(A4, H4, 6, tcp(40002, 80, 0xc2, 77, 0, res=0x0e), ident=8, df=True), 1),
        (frame(A4, H4, 6, tcp(40003, 80, 0x11, 78, 79), ident=9, ttl=3), 1),
        (frame(A4, H4, 17, udp(5353, 53, b"query"), ident=10), 2),
        (frame(A4, H4, 1, struct.pack("!BBHHH", 8, 0, 0, 1, 2) + b"ping", ident=11), 3),
        (frame(A4, H4, 1, struct.pack("!BBHHH", 8, 0, 0, 3, 4), ident=12,
               opts=bytes.fromhex("94040000")), 3),
        (frame(A6, H6, 17, udp(5353, 53, b"query6"), tc=0x28, flow=0x12345), 4),
        (frame(A6, H6, 6, tcp(40010, 443, 0x02, 99, 0), ttl=5), 5),
        (frame(A6, H6, 58, struct.pack("!BBHHH", 128, 0, 0, 5, 6) + b"ping6"), 6),
        (frame(A4, H4, 6, tcp(40011, 54, 0x02, 7, 0), ident=13), 7),
        (frame(A6, H6, 58, struct.pack("!BBHHH", 129, 0, 0, 7, 8) + b"pong6"), 8),
    ]


def setup():
    for n in (CNS, HNS):
        run(["ip", "netns", "del", n], check=False)
        run(["ip", "netns", "add", n])
    run(["ip", "link", "add", CDEV, "netns", CNS, "type", "veth", "peer", "name", HDEV,
         "netns", HNS])
    for n, dev, m, a4, a6 in ((CNS, CDEV, CMAC, A4, A6), (HNS, HDEV, HMAC, H4, H6)):
        ns(n, ["ip", "link", "set", dev, "address", m])
        ns(n, ["ip", "addr", "add", a4 + "/24", "dev", dev])
        ns(n, ["ip", "addr", "add", a6 + "/64", "dev", dev, "nodad"])
        ns(n, ["ip", "link", "set", dev, "up"])
    ns(HNS, ["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0"], check=False)
    for i, (prefix, tool, match, opts, _) in enumerate(RULES):
        if i in MARKS:
            ns(HNS, [tool, "-t", "mangle", "-A", "PREROUTING"] + match +
               ["-j", "MARK", "--set-mark", "0x%x" % MARKS[i]])
        ns(HNS, [tool, "-A", "INPUT"] + match +
           ["-j", "LOG", "--log-prefix", prefix] + opts)


def cleanup():
    for n in (CNS, HNS):
        run(["ip", "netns", "del", n], check=False)


def kmsg_lines(fd):
    """The messages of the kernel log records with one of our prefixes, in order."""
    out = []
    while True:
        try:
            rec = os.read(fd, 8192)
        except BlockingIOError:
            break
        except OSError:  # a record overwritten meanwhile (EPIPE): go on
            continue
        if not rec:
            break
        msg = rec.decode(errors="replace").split(";", 1)[-1].split("\n", 1)[0]
        if any(msg.startswith(r[0]) for r in RULES):
            out.append(msg)
    return out


def pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)))
            f.write(fr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("iptables") or \
            not shutil.which("ip6tables") or not os.path.exists(ALL_NETNS):
        print("SKIP: needs root, ip, iptables, ip6tables and netfilter logging")
        return SKIP
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(fd, 0, os.SEEK_END)
    except OSError as e:
        print("SKIP: /dev/kmsg: %s" % e)
        return SKIP
    with open(ALL_NETNS) as f:
        old = f.read().strip()
    work = tempfile.mkdtemp(prefix="gufc-log-oracle-")
    ok = False
    try:
        try:
            with open(ALL_NETNS, "w") as f:
                f.write("1")
            setup()
        except (OSError, RuntimeError) as e:
            print("SKIP: %s" % e)
            return SKIP
        cs = cases()
        ns(CNS, ["python3", "-c", SEND, CDEV] + [fr.hex() for fr, _ in cs])
        kern = []
        for _ in range(50):
            time.sleep(0.1)
            kern += kmsg_lines(fd)
            if len(kern) >= len(cs):
                break
        path = os.path.join(work, "frames.pcap")
        pcap(path, [fr for fr, _ in cs])
        r = run([args.eval, path, HDEV] + ["%s:%d:%d" % (RULES[i][0], RULES[i][4], MARKS.get(i, 0))
                                     for _, i in cs])
        ours = r.stdout.splitlines()
        # The kernel log keeps each message's trailing space; compare as written.
        bad = 0
        if len(kern) != len(cs):
            print("kernel wrote %d lines for %d packets" % (len(kern), len(cs)))
            bad += 1
        for k, o in zip(kern, ours):
            if k.rstrip() != o.rstrip():
                print("kernel: %s\ngufc:   %s" % (k, o))
                bad += 1
        print("log_oracle: %d packets, %d lines compared, %d differences" %
              (len(cs), min(len(kern), len(ours)), bad))
        ok = bad == 0
    finally:
        cleanup()
        with open(ALL_NETNS, "w") as f:
            f.write(old)
        os.close(fd)
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
