#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""reply_oracle test: the replies Linux's REJECT sends vs lib/reply's.

Two network namespaces joined by a veth pair: a client and a host whose
iptables/ip6tables INPUT chain REJECTs some ports with several
--reject-with kinds. For each case the client sends one packet (a TCP SYN,
a UDP datagram, an ICMP echo request); tcpdump on the client's side
captures it and the kernel's reply. reply_eval then writes lib/reply's
answer to the captured packet, and the two frames must be equal byte for
byte, except the fields Linux fills from its own state: the IPv4
identification of an ICMP error (and so the IPv4 header checksum, which
must still be right in ours). The host computes its checksums in software
(no TX offload on the veth), sends IPv6 without flow labels
(net.ipv6.auto_flowlabels=0) and limits no ICMP rate, so nothing else may
differ.

Usage: reply_oracle.py --eval REPLY_EVAL
Exit: 0 equal, 1 a difference or error, 77 (skip) when not root, or
network namespaces, iptables or tcpdump are not available.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from nf_util import ns, pcap_read, run

SKIP = 77
TAG = "%d" % (os.getpid() % 100000)
CNS, HNS = "gufc-rc" + TAG, "gufc-rh" + TAG
CDEV, HDEV = "rc" + TAG, "rh" + TAG
CMAC, HMAC = "02:00:00:00:00:0c", "02:00:00:00:00:0d"

# (family, proto, port, --reject-with, reply_eval arguments)
CASES = [
    (4, "tcp", 7001, "tcp-reset", ["rst"]),
    (4, "udp", 7002, "icmp-port-unreachable", ["icmp", "3", "3"]),
    (4, "udp", 7003, "icmp-host-prohibited", ["icmp", "3", "10"]),
    (4, "tcp", 7004, "icmp-admin-prohibited", ["icmp", "3", "13"]),
    (4, "icmp", 0, "icmp-net-unreachable", ["icmp", "3", "0"]),
    (6, "tcp", 7001, "tcp-reset", ["rst"]),
    (6, "udp", 7002, "icmp6-port-unreachable", ["icmp", "1", "4"]),
    (6, "udp", 7003, "icmp6-adm-prohibited", ["icmp", "1", "1"]),
    (6, "tcp", 7004, "icmp6-addr-unreachable", ["icmp", "1", "3"]),
]
ADDR = {4: ("10.77.0.1", "10.77.0.2"), 6: ("fd77::1", "fd77::2")}

SEND = r"""
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
proto, port = sys.argv[2], int(sys.argv[3])
if proto == "icmp":
    # An echo request with its checksum (Linux answers no corrupt packet).
    msg = bytearray([8, 0, 0, 0, 0, 1, 0, 1]) + b"payload!"
    c = sum((msg[i] << 8) | msg[i + 1] for i in range(0, len(msg), 2))
    while c >> 16:
        c = (c & 0xffff) + (c >> 16)
    msg[2:4] = (~c & 0xffff).to_bytes(2, "big")
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(bytes(msg), (sys.argv[1], 0))
else:
    s = socket.socket(fam, socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM)
    s.settimeout(2)
    try:
        s.connect((sys.argv[1], port))
        s.send(b"0123456789")
        s.recv(10)
    except OSError:
        pass
"""


def setup():
    for n in (CNS, HNS):
        run(["ip", "netns", "del", n], check=False)
        run(["ip", "netns", "add", n])
    run(["ip", "link", "add", CDEV, "netns", CNS, "type", "veth", "peer", "name", HDEV,
         "netns", HNS])
    for n, dev, mac, i in ((CNS, CDEV, CMAC, 0), (HNS, HDEV, HMAC, 1)):
        ns(n, ["ip", "link", "set", dev, "address", mac])
        ns(n, ["sysctl", "-qw", "net.ipv6.auto_flowlabels=0"])
        # One error a case: no kernel rate limit in the way.
        ns(n, ["sysctl", "-qw", "net.ipv4.icmp_ratelimit=0"])
        ns(n, ["sysctl", "-qw", "net.ipv6.icmp.ratelimit=0"])
        ns(n, ["ip", "addr", "add", ADDR[4][i] + "/24", "dev", dev])
        ns(n, ["ip", "addr", "add", ADDR[6][i] + "/64", "dev", dev, "nodad"])
        ns(n, ["ethtool", "-K", dev, "tx", "off"], check=False)
        ns(n, ["ip", "link", "set", dev, "up"])
    for fam in (4, 6):
        ns(CNS, ["ip", "neigh", "add", ADDR[fam][1], "lladdr", HMAC, "dev", CDEV])
        ns(HNS, ["ip", "neigh", "add", ADDR[fam][0], "lladdr", CMAC, "dev", HDEV])
    for fam, proto, port, kind, _ in CASES:
        tool = "iptables" if fam == 4 else "ip6tables"
        rule = ["-A", "INPUT", "-p", proto if fam == 4 or proto != "icmp" else "ipv6-icmp"]
        if proto != "icmp":
            rule += ["--dport", str(port)]
        ns(HNS, [tool] + rule + ["-j", "REJECT", "--reject-with", kind])


def cleanup():
    for n in (CNS, HNS):
        run(["ip", "netns", "del", n], check=False)


def one(ev, work, case):
    fam, proto, port, kind, eargs = case
    path = os.path.join(work, "%d-%s-%d.pcap" % (fam, proto, port))
    flt = "ip" if fam == 4 else "ip6 and (tcp or udp or icmp6[0] < 128)"
    cap = subprocess.Popen(["ip", "netns", "exec", CNS, "tcpdump", "-i", CDEV, "-U", "-c", "2",
                            "-w", path, flt], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    ns(CNS, [sys.executable, "-c", SEND, ADDR[fam][1], proto, str(port)])
    try:
        cap.wait(timeout=5)
    except subprocess.TimeoutExpired:
        cap.kill()
        cap.wait()
    fr = pcap_read(path)
    if len(fr) < 2:
        return "%s: captured %d frames, want the packet and the kernel's reply" % (kind, len(fr))
    pkt, kern = fr[0], fr[1]
    r = run([ev, pkt.hex()] + eargs)
    ours = bytes.fromhex(r.stdout.strip()) if r.stdout.strip() != "none" else b""
    if len(ours) != len(kern):
        return "%s: length %d, the kernel's %d\n  ours   %s\n  kernel %s" % (
            kind, len(ours), len(kern), ours.hex(), kern.hex())
    skip = set()
    if fam == 4 and eargs[0] == "icmp":
        # Linux's IP identification, and the header checksum over it.
        skip = {14 + 4, 14 + 5, 14 + 10, 14 + 11}
        h = ours[14:34]
        s = sum((h[i] << 8) | h[i + 1] for i in range(0, 20, 2))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        if s != 0xffff:
            return "%s: our IPv4 header checksum is wrong: %s" % (kind, ours.hex())
    diff = [i for i in range(len(ours)) if i not in skip and ours[i] != kern[i]]
    if diff:
        return "%s: bytes %s differ\n  ours   %s\n  kernel %s" % (
            kind, diff[:16], ours.hex(), kern.hex())
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: reply_oracle: not root")
        return SKIP
    for tool in ("ip", "iptables", "ip6tables", "tcpdump"):
        if shutil.which(tool) is None:
            print("SKIP: reply_oracle: no " + tool)
            return SKIP
    work = tempfile.mkdtemp(prefix="gufc-reply-oracle.")
    try:
        try:
            setup()
        except RuntimeError as e:
            print("SKIP: reply_oracle: the lab cannot be built here: %s" % e)
            return SKIP
        fails = [f for f in (one(a.eval, work, c) for c in CASES) if f is not None]
    finally:
        cleanup()
        shutil.rmtree(work, ignore_errors=True)
    for f in fails:
        print("FAIL: " + f)
    if fails:
        return 1
    print("PASS: %d REJECT replies equal to the kernel's" % len(CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
