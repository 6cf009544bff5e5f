#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""corpus_diff test: every rule set of tests/iptables-corpus, Linux vs the gufc binary.

For each corpus file (NAME.v4 / NAME.v6, NAME.ipset loaded first), the
packets are derived from the file itself: the gen list of
scripts/netfilter-oracle.py (a packet per rule and path, near misses,
policies), then the edges of every address prefix (a host inside, one
outside), port and port range (lo-1, lo, hi, hi+1), protocol, ICMP type
and TTL the rules name, then seeded random combinations of those (fixed
seed: every run sends the same packets). Each packet is the first of its
own connection (its tuple is unique in the list); the connections stay
(no flush between packets), so -m connlimit and -m recent see the same
history on both sides.

The lab's two interfaces take the names of the file's two most used
interfaces (`-i`/`-o`; a wildcard `ppp+` gives `ppp0`): the first is the
side packets come in on (l0 in netfilter-oracle.py's lab), the second the
side they are forwarded out of (r0, which also holds 10.255.255.1/30 and
fd4e:464f::1/64, masquerade's address). The rule file is loaded as it is.

Linux: netfilter-oracle.py's lab (namespaces, veths renamed), the file
restored with iptables-restore / ip6tables-restore; the packets are sent
one after another, and what comes out is read: forwarded at the right
(with the tuple after NAT), delivered locally (raw sockets in the
firewall), or nothing (dropped or rejected).

Forged packets (a source of the firewall's own from outside: the
oracle's `forged` word) come first in every list; Linux gets them from
the left like any packet from outside.

gufc: the binary on two net_pcap ports named like the lab's interfaces,
the same local addresses, the file through --iptables / --ip6tables
(--ipset), one packet per burst, in two runs: the forged packets on a
port 0 that does not carry the firewall's own packets, then the others
on a port 0 that does (`port 0 host`: the firewall's own packets arrive
there, gufc having no sockets); forwarded = port 1's TX pcap, delivered
locally = the `local` channel's pcap, a TCP RST or ICMP error about the
packet on port 0's TX pcap = rejected (Linux's replies are dropped by the
oracle's lab, so a reject compares as a drop).

Per file and scenario: packets compared and the first differing packets
with what decided each (Linux: netfilter-oracle.py run on those packets;
gufc: ipt_eval, the reference evaluator, on the same). Differences listed
in EXPECTED (with the reason) are counted, not failed.

Usage: corpus_diff.py --gufc GUFC --oracle netfilter-oracle.py --eval IPT_EVAL
                      --corpus DIR [--full] [--seed N] [-v] [FILE...]
Exit: 0 no unexpected difference, 1 any, 77 (skip) when not root or the
lab cannot be built here.
"""

import argparse
import collections
import importlib.util
import ipaddress
import json
import os
import random
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

# The oracle loader is fastpath_oracle.py's, the pcap helpers nf_util.py's (beside this file).
from fastpath_oracle import load_oracle
from nf_util import pcap_read, pcap_write

SKIP = 77
TAG = b"gufcCD"

def _endpoint(p, lf, gf, locals_):
    """Both delivered it the same way, to another destination."""
    return lf is not None and gf is not None and lf[0] == gf[0] and \
        lf[1] is not None and gf[1] is not None and lf[1][1] != gf[1][1]


# (file name regex, predicate(packet, linux fate, gufc fate, locals), reason):
# the differences by design, counted and not failed.
EXPECTED = [
    (r"^kube-proxy\.v[46]$", _endpoint,
     "-m statistic --mode random picks a service's endpoint per connection, "
     "on each side its own draw"),
]

ICMP4_NAMES = {
    "any": None, "echo-reply": (0, None), "pong": (0, None),
    "destination-unreachable": (3, None), "network-unreachable": (3, 0),
    "host-unreachable": (3, 1), "protocol-unreachable": (3, 2), "port-unreachable": (3, 3),
    "fragmentation-needed": (3, 4), "source-route-failed": (3, 5),
    "network-prohibited": (3, 9), "host-prohibited": (3, 10),
    "communication-prohibited": (3, 13), "source-quench": (4, None), "redirect": (5, None),
    "echo-request": (8, None), "ping": (8, None), "router-advertisement": (9, None),
    "router-solicitation": (10, None), "time-exceeded": (11, None), "ttl-exceeded": (11, None),
    "ttl-zero-during-transit": (11, 0), "ttl-zero-during-reassembly": (11, 1),
    "parameter-problem": (12, None), "ip-header-bad": (12, 0),
    "required-option-missing": (12, 1), "timestamp-request": (13, None),
    "timestamp-reply": (14, None), "address-mask-request": (17, None),
    "address-mask-reply": (18, None),
}
ICMP6_NAMES = {
    "destination-unreachable": (1, None), "no-route": (1, 0),
    "communication-prohibited": (1, 1), "address-unreachable": (1, 3),
    "port-unreachable": (1, 4), "packet-too-big": (2, None), "time-exceeded": (3, None),
    "ttl-exceeded": (3, None), "ttl-zero-during-transit": (3, 0),
    "parameter-problem": (4, None), "bad-header": (4, 0), "unknown-header-type": (4, 1),
    "unknown-option": (4, 2), "echo-request": (128, None), "ping": (128, None),
    "echo-reply": (129, None), "pong": (129, None), "router-solicitation": (133, None),
    "router-advertisement": (134, None), "neighbour-solicitation": (135, None),
    "neighbor-solicitation": (135, None), "neighbour-advertisement": (136, None),
    "neighbor-advertisement": (136, None), "redirect": (137, None),
}
# Protocols whose packets carry ports (UDP-Lite's as UDP's; DCCP's as
# the oracle builds them: a DCCP-Request).
PORTED = (6, 17, 132, 136, 33)

PROTO_NUM = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58, "ipv6-icmp": 58, "sctp": 132,
             "esp": 50, "ah": 51, "gre": 47, "igmp": 2, "vrrp": 112, "ospf": 89,
             "udplite": 136, "dccp": 33, "mh": 135, "ipv6-mh": 135, "ipip": 4, "ipv6": 41,
             "ipcomp": 108, "pim": 103, "l2tp": 115}


# (file name regex, predicate, what is open): differences that are gufc's
# to fix, not by design, known and not fixed yet: printed on every run
# ("open: ..."), failing no run.
# Matches whose answer depends on the packets before: a file with one
# gets no forged packets (derive_packets()).
STATEFUL_MATCHES = {"limit", "hashlimit", "recent", "connlimit", "statistic", "quota",
                    "connbytes"}

OPEN_FATE_DIFFS = [
    # The clashes Linux resolves by remapping the source port
    # (regress/nat-clash.v4) and SNAT's reuse of a live connection's
    # mapping (regress/snat-bysource.v4) are gufc's behaviour too.
]


# (file name regex, what is known): built-in chain policy counters that
# differ while every packet's fate agrees, with their cause (found by
# bisecting the packet list). Not by design: open, printed on every run
# ("known: ..."), failing no run.
KNOWN_COUNTER_DIFFS = [
    (r"^netfilter-testdump\.v4$",
     "filter/mangle FORWARD one more: "
     "the forwarded tcp packet with TTL 1, which Linux drops before the "
     "FORWARD hook (time exceeded) and gufc walks outside router mode"),
    (r"^telecom-edge\.v6$",
     "filter and mangle FORWARD policies count one packet more than Linux's: "
     "the forwarded tcp packet with hop limit 1 (see netfilter-testdump.v4)"),
]


# Built-in chain policy counters that differ by design, and why: what the
# kernel leaves uncounted that gufc counts (packets' fates are the same).
NFT_LAZY_CHAIN = (
    "iptables-nft creates a built-in chain in the kernel only when the file names it "
    "(a ':' line, a rule, a policy): the kernel has no such chain, nothing counts there "
    "(iptables -L -v shows 0); gufc, as iptables-legacy, has every built-in chain of "
    "a table and counts what leaves it by the policy")
NO_CONNTRACK = (
    "no loaded rule needs conntrack (no NAT target, no state match), so Linux hooks "
    "none into the namespace and the nat table, walked from conntrack's NAT hooks, sees "
    "no packet; gufc tracks every connection and walks nat for each first packet")


STAT_RANDOM = (
    "-m statistic --mode random: Linux and gufc each draw their own; a packet one "
    "side's draw takes (a REJECT compares as a drop) meets the policy on the other")


def policy_expected(k, lv, have, tracked, random_stat=False):
    """The reason a policy counter (table, hook) @k that Linux counted as @lv
    differs by design from gufc's, or None."""
    if random_stat:
        return STAT_RANDOM
    if lv != (0, 0):
        return None
    if have is not None and k not in have:
        return NFT_LAZY_CHAIN
    if k[0] == "nat" and not tracked:
        return NO_CONNTRACK
    return None


def tag_of(n):
    return TAG + struct.pack("!H", n)


def number_in(data):
    i = data.find(TAG)
    if i < 0 or i + len(TAG) + 2 > len(data):
        return None
    return struct.unpack("!H", data[i + len(TAG):i + len(TAG) + 2])[0]


# --------------------------------------------------------------------------
# Interfaces: the lab's two take the file's names
# --------------------------------------------------------------------------

def valid_ifname(name):
    """Can a Linux network device have the name @name (dev_valid_name())?"""
    return 0 < len(name) <= 15 and name not in (".", "..") and \
        not any(c in name for c in ":/") and not any(c.isspace() for c in name)


def interface_names(tables):
    """The file's interface names, most used first; a wildcard P+ as P0
    unless a concrete name has that prefix."""
    count = collections.Counter()
    for t in tables.values():
        for rules in t.rules.values():
            for r in rules:
                w = r.words
                for i, x in enumerate(w):
                    if x in ("-i", "-o", "--in-interface", "--out-interface") and i + 1 < len(w):
                        count[w[i + 1]] += 1
    names, wild = [], []
    for name, _ in sorted(count.items(), key=lambda kv: (-kv[1], kv[0])):
        # Not a name a Linux device can have (an alias "eth0:1", "/", a
        # space, more than 15 characters): the rule matches no interface
        # on either side, the lab keeps its own names.
        if name == "lo" or not valid_ifname(name[:-1] if name.endswith("+") else name):
            continue
        if name.endswith("+"):
            wild.append(name[:-1])
        else:
            names.append(name)
    for p in wild:
        if not any(n.startswith(p) for n in names):
            cand = (p + "0")[:15]
            if cand != "lo" and cand not in names:
                names.append(cand)
    return names


def scenarios(names, full):
    """[(in name, out name)] to run."""
    a = names[0] if names else "l0"
    b = names[1] if len(names) > 1 else ("r0" if a != "r0" else "r1x")
    out = [(a, b)]
    if full:
        out.append((b, a))
        for c in names[2:4]:
            out.append((c, a))
    return out


def rename_lab(nfo, lab, in_name, out_name):
    """Give the firewall's l0 and r0 the file's names, routes as before."""
    fw = lab.fw
    mac = lambda b: ":".join("%02x" % x for x in b)  # noqa: E731
    # Through temporary names: the file's names may be the lab's the other way round.
    for old, tmp in (("l0", "cdx-in"), ("r0", "cdx-out")):
        nfo.sh("ip -n %s link set %s down" % (fw, old))
        nfo.sh("ip -n %s link set %s name %s" % (fw, old, tmp))
    for tmp, new in (("cdx-in", in_name), ("cdx-out", out_name)):
        nfo.sh("ip -n %s link set %s name %s" % (fw, tmp, new))
        nfo.sh("ip -n %s link set %s up" % (fw, new))
    with nfo.InNetns(fw):
        for dev in (in_name, out_name):
            with open("/proc/sys/net/ipv4/conf/%s/rp_filter" % dev, "w") as f:
                f.write("0")
    for fam in (4, 6):
        addr, plen, gw = nfo.WAN[fam]
        nfo.sh("ip -n %s -%d addr replace %s/%d dev %s%s" % (fw, fam, addr, plen, out_name,
                                                            " nodad" if fam == 6 else ""))
        nfo.sh("ip -n %s -%d neigh replace %s lladdr %s dev %s nud permanent"
               % (fw, fam, gw, mac(nfo.MAC_R), out_name))
        nfo.sh("ip -n %s -%d route replace default via %s dev %s" % (fw, fam, gw, out_name))
    # The input side's link-local address (REDIRECT of IPv6 takes it): the
    # kernel adds it once the link has its carrier (linkwatch, up to a
    # second after "up"); packets before would find no address.
    ll = link_local(nfo.MAC_FW_L)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        out = nfo.sh("ip -n %s -6 addr show dev %s scope link" % (fw, in_name), check=False)
        if ll in out and "tentative" not in out:
            break
        time.sleep(0.05)


# --------------------------------------------------------------------------
# Packets derived from the rules
# --------------------------------------------------------------------------

def opt_values(words, names):
    """[(value, negated)] of every option of @names in @words."""
    out = []
    for i, w in enumerate(words):
        if w in names and i + 1 < len(words):
            out.append((words[i + 1], i > 0 and words[i - 1] == "!"))
    return out


def proto_number(v):
    v = v.lower()
    if v.isdigit():
        return int(v)
    if v in PROTO_NUM:
        return PROTO_NUM[v]
    try:
        return socket.getprotobyname(v)
    except OSError:
        return None


class Material:
    """What the rules of a file name: addresses, ports, protocols, ..."""

    def __init__(self, family):
        self.family = family
        self.inside, self.outside = [], []   # addresses
        self.ports = set()
        self.protos = {6, 17, 1 if family == 4 else 58}
        self.icmp = set()                    # (type, code)
        self.ttls = set()
        self.tos = set()
        self.flags = set()
        self.stateful = False                # a match whose answer depends on earlier packets

    def add_rule(self, nfo, words):
        fam = self.family
        for i, w in enumerate(words[:-1]):
            if w in ("-m", "--match") and words[i + 1] in STATEFUL_MATCHES:
                self.stateful = True
        for v, _ in opt_values(words, ("-s", "--source", "-d", "--destination",
                                       "--src-range", "--dst-range", "--to-destination",
                                       "--to-source", "--to")):
            for part in re.split(r"[,-]", v) if "-" in v and "/" not in v else v.split(","):
                part = part.split(":")[0] if fam == 4 else part.strip("[]")
                try:
                    net = ipaddress.ip_network(part, strict=False)
                except ValueError:
                    continue
                if net.version != fam:
                    continue
                self.inside.append(nfo.host_in(net, set()))
                if net.num_addresses > 2:
                    self.inside.append(net.broadcast_address - 1)
                if net.prefixlen:
                    try:
                        self.outside.append(nfo.host_outside(net, net.network_address, set()))
                    except ValueError:
                        pass
        for v, _ in opt_values(words, ("--dport", "--sport", "--dports", "--sports", "--ports",
                                       "--destination-port", "--source-port",
                                       "--destination-ports", "--source-ports")):
            try:
                ranges = nfo.port_set(v)
            except ValueError:
                continue
            for lo, hi in ranges:
                for p in (lo - 1, lo, hi, hi + 1):
                    if 1 <= p <= 65535:
                        self.ports.add(p)
        for v, _ in opt_values(words, ("-p", "--protocol")):
            n = proto_number(v)
            if n is not None and n != 0:
                if (n == 1 and fam == 6) or (n == 58 and fam == 4):
                    continue
                self.protos.add(n)
        names = ICMP4_NAMES if fam == 4 else ICMP6_NAMES
        for v, _ in opt_values(words, ("--icmp-type", "--icmpv6-type")):
            t = names.get(v.lower())
            if t is None:
                m = re.match(r"^(\d+)(?:/(\d+))?$", v)
                if not m:
                    continue
                t = (int(m.group(1)), int(m.group(2)) if m.group(2) else None)
            self.icmp.add((t[0], t[1] if t[1] is not None else 0))
            if t[1] is not None:
                self.icmp.add((t[0], t[1] + 1))
        for v, _ in opt_values(words, ("--ttl-eq", "--ttl-lt", "--ttl-gt", "--hl-eq",
                                       "--hl-lt", "--hl-gt")):
            if v.isdigit():
                for t in (int(v) - 1, int(v), int(v) + 1):
                    if 1 <= t <= 255:
                        self.ttls.add(t)
        for v, _ in opt_values(words, ("--dscp", "--tos")):
            try:
                x = int(v.split("/")[0], 0)
            except ValueError:
                continue
            self.tos.add((x << 2) & 0xFF if "--dscp" in words else x & 0xFF)
        if "--syn" in words or "--tcp-flags" in words:
            self.flags.update(("SA", "A", "F", "R", "-", "FSRPAU"))


def usable(a, local, locals_, family):
    """May @a stand on a packet's side (@local: must be the firewall's own)?"""
    if a.version != family or a.is_multicast or a.is_unspecified or a.is_reserved or \
            a.is_loopback or a.is_link_local:
        return False
    if family == 4 and (int(a) & 0xFF in (0, 255) or a.is_private and False):
        return False
    if family == 4 and (a in ipaddress.ip_network("0.0.0.0/8") or
                        a in ipaddress.ip_network("10.255.255.0/30")):
        return False
    if family == 6 and a in ipaddress.ip_network("fd4e:464f::/64"):
        return False
    return (a in locals_) == local


class PacketList:
    def __init__(self, family, locals_):
        self.family = family
        self.locals = set(locals_)
        self.lines = []
        self.front = []     # forged packets: first of all (gufc_fates())
        self.keys = set()

    def add(self, proto, src, dst, sport=None, dport=None, extra="", martian=False,
            forged=False):
        """One packet, unless its connection is in the list already
        (@martian: a multicast source may stand, a martian's; @forged: a
        source of the firewall's own from outside, first in the list)."""
        loc = self.locals
        if src in loc and dst in loc and not forged:
            return False    # the firewall to itself: not modelled in gufc's ports
        if dst.is_multicast or (src.is_multicast and not martian):
            return False
        fam = self.family
        icmp = proto in (1, 58)
        if icmp:
            m = re.search(r"type=(\d+)", extra)
            t = int(m.group(1)) if m else (8 if fam == 4 else 128)
            echo = t in ((8, 0, 13, 14, 17, 18) if fam == 4 else (128, 129))
            if not echo:
                key = (proto, src, dst, t, extra)
            else:
                key = None
        elif proto in PORTED:
            key = (proto, src, dst, sport, dport)
        else:
            key = (proto, src, dst)
        if key is not None:
            if key in self.keys:
                return False
            self.keys.add(key)
        ep = (lambda a, p: ("[%s]" % a if fam == 6 else str(a)) +
              ("" if p is None else ":%d" % p))
        name = {6: "tcp", 17: "udp", 132: "sctp", 136: "udplite", 33: "dccp", 1: "icmp",
                58: "icmpv6"}.get(proto, "proto %d" % proto)
        if proto in PORTED:
            text = "%s %s -> %s" % (name, ep(src, sport), ep(dst, dport))
        else:
            text = "%s %s -> %s" % (name, ep(src, None), ep(dst, None))
        if forged:
            self.front.append((text + " " + extra + " forged").strip())
        else:
            self.lines.append((text + " " + extra).strip())
        return True

    def count(self):
        return len(self.front) + len(self.lines)

    def text(self):
        out = ["local " + " ".join(str(a) for a in sorted(self.locals, key=int))]
        return "\n".join(out + self.front + self.lines) + "\n"


def derive_packets(nfo, tables, family, count, seed):
    """The packet list text for @tables: gen's packets, edges, random ones."""
    gen = nfo.gen_packets(tables, family)
    locals_ = set()
    gen_lines = []
    for raw in gen.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("local "):
            locals_ |= {ipaddress.ip_address(a.strip("[]")) for a in line.split()[1:]}
        elif line:
            gen_lines.append(line)
    # Link-local addresses on the lab's lo take no neighbour discovery: left out.
    locals_ = {a for a in locals_
               if not a.is_multicast and not a.is_loopback and not a.is_link_local}
    d = {k: ipaddress.ip_address(v) for k, v in nfo.DEF[family].items()}
    locals_.add(d["local"])
    pl = PacketList(family, locals_)
    # gen's packets, those gufc's ports can carry.
    for line in gen_lines:
        w = line.split()
        proto = nfo.PROTOS.get(w[0]) if w[0] != "proto" else int(w[1])
        rest = w[1:] if w[0] != "proto" else w[2:]
        ports = proto in PORTED
        try:
            src, sport = nfo.parse_endpoint(rest[0], ports, "gen")
            dst, dport = nfo.parse_endpoint(rest[2], ports, "gen")
        except nfo.OracleError:
            continue
        if not (usable(src, src in locals_, locals_, family) and
                usable(dst, dst in locals_, locals_, family)):
            continue
        pl.add(proto, src, dst, sport, dport, " ".join(rest[3:]))
    mat = Material(family)
    for t in tables.values():
        for rules in t.rules.values():
            for r in rules:
                mat.add_rule(nfo, r.words)
    rng = random.Random(seed)
    inside = sorted({a for a in mat.inside + mat.outside + [d["left"], d["right"],
                                                            d["left2"], d["right2"]]
                     if usable(a, False, locals_, family)}, key=int)
    ports = sorted(mat.ports | {22, 53, 80, 443, 1024, 65535})
    protos = sorted(mat.protos)
    icmps = sorted(mat.icmp | ({(8, 0), (0, 0), (3, 3), (11, 0)} if family == 4 else
                               {(128, 0), (129, 0), (1, 4), (135, 0)}))
    loc = sorted(locals_, key=int)
    sport_next = [20000]

    def fresh_sport():
        sport_next[0] += 1
        return sport_next[0]

    # Edges: every address with the common services, every port both ways.
    for a in inside:
        pl.add(6, d["left"], a, fresh_sport(), 80)
        pl.add(17, a, d["right"], fresh_sport(), 53)
        pl.add(6, a, loc[0], fresh_sport(), 22)
    for p in ports:
        for proto in (6, 17):
            pl.add(proto, d["left"], d["right"], fresh_sport(), p)
            pl.add(proto, d["left2"], loc[0], fresh_sport(), p)
            pl.add(proto, d["left"], d["right2"], p, fresh_sport() % 1000 + 30000)
    for t, c in icmps:
        for dst in (d["right"], loc[0]):
            pl.add(1 if family == 4 else 58, d["left"], dst, extra="type=%d code=%d" % (t, c))
    for proto in protos:
        if proto == 136:
            # UDP-Lite: ports as UDP's, and one malformed (checksum coverage
            # past the datagram's end: INVALID to Linux conntrack).
            for p in ports:
                pl.add(136, d["left"], d["right"], fresh_sport(), p)
                pl.add(136, d["left2"], loc[0], fresh_sport(), p)
            pl.add(136, d["left"], d["right"], fresh_sport(), 53, "cov=4000")
            pl.add(136, d["left2"], loc[0], fresh_sport(), 53, "cov=4000")
        elif proto in (33, 132):
            # DCCP and SCTP: the port edges, forwarded and local.
            for p in ports:
                pl.add(proto, d["left"], d["right"], fresh_sport(), p)
                pl.add(proto, d["left2"], loc[0], fresh_sport(), p)
            if proto == 132:
                # Packets Linux's SCTP tracker starts nothing with (INVALID):
                # DATA, ABORT, an INIT with a verification tag; and one it
                # does start with (HEARTBEAT).
                for p in ports[:3]:
                    for extra in ("chunk=0 vtag=7", "chunk=6 vtag=7", "vtag=7",
                                  "chunk=4 vtag=7"):
                        pl.add(132, d["left"], d["right"], fresh_sport(), p, extra)
        elif proto not in (1, 6, 17, 58):
            pl.add(proto, d["left"], d["right"])
            pl.add(proto, d["left2"], loc[0])
            pl.add(proto, loc[0], d["right2"])
    # Martians from outside, which Linux's input path drops (usable() keeps
    # such addresses out of everything else): IPv4's route after
    # PREROUTING, IPv6's reception.
    ip = ipaddress.ip_address
    if family == 4:
        martians = ((d["left"], ip("0.0.0.0")), (d["left"], ip("127.0.0.1")),
                    (ip("0.0.0.0"), loc[0]), (ip("224.0.0.9"), loc[0]),
                    (ip("255.255.255.255"), loc[0]), (ip("224.0.0.9"), d["right"]),
                    (d["left"], ip("0.1.2.3")), (ip("127.0.0.1"), loc[0]))
    else:
        martians = ((d["left"], ip("::1")), (ip("ff0e::1"), loc[0]),
                    (ip("::ffff:192.0.2.1"), loc[0]), (ip("ff0e::1"), d["right"]),
                    # not forwarded from a link-local source (ip6_forward())
                    (ip("fe80::99"), d["right"]))
    for src, dst in martians:
        pl.add(17, src, dst, fresh_sport(), 53, martian=True)
        pl.add(6, src, dst, fresh_sport(), 80, martian=True)
    # Forged: a source of the firewall's own (a local address, the outside
    # interface's) from outside, never its own packet: IPv4's input route
    # drops it after PREROUTING (accept_local off), IPv6 delivers or
    # forwards it as any packet from outside. Sent first (gufc_fates()).
    # Not where a match's answer depends on the packets before (meters,
    # recent lists, counts): gufc sees the forged packets in a run of their
    # own (gufc_fates()), Linux before the others in one, so the state
    # those packets leave would differ by construction.
    wan = ip(nfo.WAN[family][0])
    forged = [(loc[0], d["right"]), (loc[0], loc[-1]), (wan, d["right"]), (loc[-1], loc[0])]
    if mat.stateful:
        forged = []
    elif family == 6:
        # The inside interface's own link-local address (gufc's port 0 has it).
        forged.append((ip(link_local(nfo.MAC_FW_L)), loc[0]))
    for src, dst in forged:
        pl.add(17, src, dst, fresh_sport(), 53, forged=True)
        pl.add(6, src, dst, fresh_sport(), 80, forged=True)
    for t in sorted(mat.ttls):
        pl.add(6, d["left"], d["right"], fresh_sport(), 22, "ttl=%d" % t)
        pl.add(6, d["left"], loc[0], fresh_sport(), 22, "ttl=%d" % t)
    for tos in sorted(mat.tos):
        pl.add(17, d["left"], d["right"], fresh_sport(), 53, "tos=%d" % tos)
    # Random combinations of the same material.
    tries = 0
    while pl.count() < count and tries < count * 20:
        tries += 1
        cls = rng.choice(("fwd", "fwd", "in", "in", "out"))
        src = rng.choice(loc) if cls == "out" else rng.choice(inside)
        dst = rng.choice(loc) if cls == "in" else rng.choice(inside)
        if src == dst:
            continue
        proto = rng.choice(protos + [6, 6, 17])
        extra = ""
        if rng.random() < 0.15 and mat.ttls:
            extra = "ttl=%d" % rng.choice(sorted(mat.ttls))
        if proto in PORTED:
            sport = rng.choice(ports) if rng.random() < 0.2 else rng.randrange(1024, 65536)
            dport = rng.choice(ports)
            if proto == 6 and mat.flags and rng.random() < 0.2:
                extra += " flags=%s" % rng.choice(sorted(mat.flags))
            pl.add(proto, src, dst, sport, dport, extra)
        elif proto in (1, 58):
            t, c = rng.choice(icmps)
            pl.add(proto, src, dst, extra="type=%d code=%d %s" % (t, c, extra))
        else:
            pl.add(proto, src, dst, extra=extra)
    return pl.text()


# --------------------------------------------------------------------------
# Linux: the lab, all packets in a row
# --------------------------------------------------------------------------

def kernel_chains(nfo, lab, family):
    """{(table, chain)} of the built-in chains the kernel has, or None when
    iptables-save lists what the kernel has (legacy: every built-in chain
    of a loaded table). iptables-nft creates a built-in chain only when the
    restore names it (a ':' line, a rule, a policy), and saves the others
    anyway, with [0:0]."""
    if nfo.BACKEND == "legacy":
        return None
    out = nfo.sh(["nft", "list", "chains", "ip6" if family == 6 else "ip"], ns=lab.fw,
                 check=False)
    have, table = set(), None
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 2 and w[0] == "table":
            table = w[-2] if w[-1] == "{" else w[-1]
        elif len(w) >= 2 and w[0] == "chain" and table is not None:
            have.add((table, w[1]))
    return have


def conntrack_saw(nfo, lab):
    """Did the firewall's conntrack see any packet (its statistics, all
    CPUs)? Linux hooks conntrack into a namespace only when a loaded rule
    needs it (a NAT target, -m state/conntrack, CT, ...); the nat table's
    chains are walked from conntrack's NAT hooks, for a connection's first
    packet: without conntrack they see nothing."""
    out = nfo.sh(["cat", "/proc/net/stat/nf_conntrack"], ns=lab.fw, check=False)
    rows = [ln.split() for ln in out.splitlines()[1:] if ln.strip()]
    # Every column but the first (entries, the same on every row).
    return any(int(x, 16) for r in rows for x in r[1:])


def linux_fates(nfo, text, tables, family, sets, pkts, locals_, names, tag):
    """({n: ('right'|'local', tuple)} of the packets Linux passed,
    {(table, hook): (packets, bytes)} its built-in chains' policies
    counted, the kernel's built-in chains (kernel_chains()), whether its
    conntrack saw packets); @text as it is restored, @tables: as it is
    saved."""
    protos = {(p.family, p.proto) for p in pkts}
    lab = nfo.Lab(tag, False)
    seen = {}
    try:
        lab.setup(locals_, protos)
        rename_lab(nfo, lab, *names)
        if sets:
            with open(sets, encoding="utf-8") as f:
                nfo.sh(["ipset", "restore"], ns=lab.fw, stdin=f.read())
        lab.restore(family, nfo.strip_counters(text), nfo.skeleton(tables))
        unmark(nfo, lab)
        for s in lab.observers:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        lab.ct_flush()
        lab.drain()
        for p in pkts:
            from_fw = p.src in locals_ and not p.forged
            lab.send(p, from_fw, tag_of(p.n) if p.proto != 132 else tag_of(p.n)[:8])
            collect(nfo, lab, seen, 0.002)
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            collect(nfo, lab, seen, 0.05)
        policies = {}
        for name, t in nfo.parse_save(lab.save(family)).items():
            for hook in nfo.BUILTIN.get(name, ()):
                if hook in t.chains:
                    policies[(name, hook)] = tuple(t.chains[hook][1:3])
        have = kernel_chains(nfo, lab, family)
        tracked = conntrack_saw(nfo, lab)
    finally:
        lab.close()
    return seen, policies, have, tracked


def unmark(nfo, lab):
    """Packets from the firewall without the lab's mark: rules that test
    marks (kube-proxy's 0x4000) must see the 0 that gufc's packets have.
    What the firewall sends by itself (REJECT's replies, MLD: no socket
    with a file) is still dropped first, by owner instead of by mark."""
    for fam, tool in ((4, "iptables"), (6, "ip6tables")):
        nfo.sh("%s -t raw -I OUTPUT 1 -m owner ! --uid-owner 0 -j DROP" % tool, ns=lab.fw)
        nfo.sh("%s -t raw -D OUTPUT -m mark ! --mark %d -j DROP" % (tool, nfo.MARK), ns=lab.fw)
        lab.raw[fam].setsockopt(socket.SOL_SOCKET, socket.SO_MARK, 0)
    # Counters from here on: what the lab did while it was built is not the packets'.
    for tool in ("iptables", "ip6tables"):
        for t in ("filter", "nat", "mangle", "raw", "security"):
            subprocess.run(["ip", "netns", "exec", lab.fw, nfo.tool(tool), "-t", t, "-Z"],
                           capture_output=True)


def collect(nfo, lab, seen, timeout):
    r, _, _ = select.select(list(lab.observers), [], [], timeout)
    for s in r:
        kind = lab.observers[s]
        try:
            while True:
                if kind == "raw6":
                    data, anc, _, addr = s.recvmsg(65536, 256)
                else:
                    data, addr = s.recvfrom(65536)
                n = number_in(data)
                if n is None:
                    continue
                if kind == "frame":
                    seen.setdefault(n, ("right", nfo.parse_frame(data)))
                elif kind == "raw4":
                    seen.setdefault(n, ("local", nfo.parse_ip(data, 4)))
                else:
                    dst = None
                    for lvl, typ, cd in anc:
                        if lvl == socket.IPPROTO_IPV6 and typ == socket.IPV6_PKTINFO:
                            dst = ipaddress.IPv6Address(cd[:16])
                    proto = s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL)
                    seen.setdefault(n, ("local", (ipaddress.IPv6Address(addr[0].split("%")[0]),
                                                  dst, proto) +
                                        tuple(nfo.parse_l4_ports(proto, data))))
        except BlockingIOError:
            pass


# --------------------------------------------------------------------------
# gufc: the binary on two net_pcap ports
# --------------------------------------------------------------------------

def frame_of(nfo, p):
    tag = tag_of(p.n) if p.proto != 132 else tag_of(p.n)[:8]
    ip = nfo.build_ip(p, tag)
    ether = 0x0800 if p.family == 4 else 0x86DD
    return nfo.MAC_FW_L + nfo.MAC_L + struct.pack("!H", ether) + ip


def reply_about(nfo, frame, pkts_by_tuple):
    """(packet number, 'rst' | 'icmp T/C') when @frame is a reject's reply."""
    t = nfo.parse_frame(frame)
    if t is None:
        return None
    src, dst, proto, sport, dport = t
    ip = frame[14:]
    l4 = ip[(ip[0] & 15) * 4:] if src.version == 4 else ip[40:]
    if proto == 6 and len(l4) >= 14 and l4[13] & 0x04:
        n = pkts_by_tuple.get((6, dst, src, dport, sport))
        return (n, "rst") if n else None
    if proto in (1, 58) and len(l4) >= 8:
        inner = l4[8:]
        q = nfo.parse_ip(inner, src.version)
        if q is None:
            return None
        n = number_in(inner)
        if n is None:
            qs, qd, qp, qsp, qdp = q
            n = pkts_by_tuple.get((qp, qs, qd, qsp, qdp) if qp in PORTED else (qp, qs, qd))
        return (n, "icmp %d/%d" % (l4[0], l4[1])) if n else None
    return None


def link_local(mac):
    """fe80::/64 address (modified EUI-64) of the 6-byte @mac."""
    eui = bytes([mac[0] ^ 2]) + mac[1:3] + b"\xff\xfe" + mac[3:6]
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + eui))


def gufc_fates(nfo, gufc, work, rules_path, family, sets, pkts, locals_, names, tag):
    """(({n: ('right'|'local'|'reject', detail)}, {(table, hook): (packets,
    bytes)} of the policies), gufc's output) or (None, the error).

    Two runs: the forged packets (a local source from outside, first in the
    list: no connection before them on either side) on a port 0 that does
    not carry the firewall's own packets; then the others on a port 0 that
    does (`host`: gufc has no sockets, the firewall's own packets arrive
    there). Their fates and policy counts add up."""
    forged = [p for p in pkts if p.forged]
    rest = [p for p in pkts if not p.forged]
    out, policies, text = {}, {}, ""
    for part, host in ((forged, False), (rest, True)):
        if not part:
            continue
        res, stdout = gufc_run(nfo, gufc, work, rules_path, family, sets, part, locals_,
                               names, tag, host)
        if res is None:
            return None, stdout
        out.update(res[0])
        for k, (np_, nb) in res[1].items():
            op, ob = policies.get(k, (0, 0))
            policies[k] = (op + np_, ob + nb)
        text += stdout
    return (out, policies), text


def gufc_run(nfo, gufc, work, rules_path, family, sets, pkts, locals_, names, tag, host):
    """gufc_fates() for the packets @pkts, port 0 a `host` port if @host."""
    inp = os.path.join(work, "in.pcap")
    empty = os.path.join(work, "empty.pcap")
    tx0, tx1 = os.path.join(work, "tx0.pcap"), os.path.join(work, "tx1.pcap")
    local = os.path.join(work, "local.pcap")
    cfg = os.path.join(work, "gufc.conf")
    js = os.path.join(work, "stats.json")
    for f in (tx0, tx1, local, js):
        if os.path.exists(f):
            os.unlink(f)
    pcap_write(inp, [frame_of(nfo, p) for p in pkts])
    pcap_write(empty, [])
    with open(cfg, "w", encoding="utf-8") as f:
        f.write("port 0 name %s%s\n" % (names[0], " host" if host else ""))
        f.write("port 1 name %s address %s/%d %s/%d\n" % (
            names[1], nfo.WAN[4][0], nfo.WAN[4][1], nfo.WAN[6][0], nfo.WAN[6][1]))
        # The lab's l0 has the link-local address Linux gives every IPv6
        # interface (EUI-64 of its MAC; REDIRECT of a packet from outside
        # goes to it when the interface has no other): port 0 has it too.
        f.write("port 0 address %s/128\n" % link_local(nfo.MAC_FW_L))
        # The lab's default routes, through the outside (-m rpfilter asks them).
        f.write("route 0.0.0.0/0 port 1\nroute ::/0 port 1\n")
        for a in sorted(locals_, key=lambda a: (a.version, int(a))):
            f.write("local %s\n" % a)
        f.write("channel local kind pcap %s\n" % local)
    cmd = [gufc, "--no-pci", "-l", "0", "--no-huge", "-m", "512",
           "--log-level=lib.*:warning", "--file-prefix", "gufc-cd-%s" % tag,
           "--vdev=net_pcap0,rx_pcap=%s,tx_pcap=%s" % (inp, tx0),
           "--vdev=net_pcap1,rx_pcap=%s,tx_pcap=%s" % (empty, tx1), "--",
           "--config", cfg, "--idle-exit", "300", "--burst", "1", "--stats-json", js,
           "--ip6tables" if family == 6 else "--iptables", rules_path]
    if sets:
        cmd[-2:-2] = ["--ipset", sets]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, "gufc exited %d:\n%s" % (r.returncode, (r.stdout + r.stderr)[-3000:])
    by_tuple = {}
    for p in pkts:
        key = (p.proto, p.src, p.dst, p.sport, p.dport) if p.proto in PORTED else \
            (p.proto, p.src, p.dst)
        by_tuple.setdefault(key, p.n)
    out = {}
    own = set(locals_) | {ipaddress.ip_address(nfo.WAN[4][0]), ipaddress.ip_address(nfo.WAN[6][0]),
                          ipaddress.ip_address(link_local(nfo.MAC_FW_L))}
    for fr in pcap_read(tx1):
        n = number_in(fr)
        if n is not None:
            # Bridge mode passes what INPUT accepts on: local is its destination.
            t = nfo.parse_frame(fr)
            out.setdefault(n, ("local" if t and (t[1] in own or t[1].is_loopback) else "right",
                               t))
    for fr in pcap_read(local):
        n = number_in(fr)
        if n is not None:
            out.setdefault(n, ("local", nfo.parse_frame(fr)))
    for fr in pcap_read(tx0):
        rep = reply_about(nfo, fr, by_tuple)
        if rep is not None:
            out.setdefault(rep[0], ("reject", rep[1]))
    with open(js, encoding="utf-8") as f:
        st = json.load(f)
    fam = "ipv6" if family == 6 else "ipv4"
    policies = {(x["table"], x["hook"].upper()): (x["packets"], x["bytes"])
                for x in st.get("policies", []) if x["family"] == fam}
    return (out, policies), r.stdout


# --------------------------------------------------------------------------
# Comparing, explaining
# --------------------------------------------------------------------------

def fate_text(f):
    if f is None:
        return "dropped"
    kind, detail = f
    if kind == "reject":
        return "rejected (%s)" % detail
    if detail is None:
        return kind
    src, dst, proto, sport, dport = detail
    if proto in PORTED:
        return "%s %s:%d -> %s:%d" % ("forwarded" if kind == "right" else "local", src,
                                      sport, dst, dport)
    return "%s %s -> %s" % ("forwarded" if kind == "right" else "local", src, dst)


def same_fate(p, lf, gf, random_nat=None):
    """Do Linux's fate @lf and gufc's @gf of packet @p agree? A rejected
    packet compares as dropped; a port NAT changed compares equal when both
    changed it (Linux's choice of a free port is its own). With
    @random_nat (a dict: the file has --random or --random-fully NAT) both
    draw the port from the range whatever the original was, so either
    draw can hit the original port by chance: a port one side kept and
    the other changed agrees, counted in @random_nat ("kept": gufc kept
    it, "nat": ports both compared) for run_file()'s check that gufc does
    draw (it must keep no more than chance would)."""
    lk = lf[0] if lf else "drop"
    gk = gf[0] if gf else "drop"
    if gk == "reject":
        gk = "drop"
    if lk != gk:
        return False
    if lk == "drop":
        return True
    lt, gt = lf[1], gf[1]
    if lt is None or gt is None:
        return lt == gt
    if lt[:3] != gt[:3]:
        return False
    if lt[2] not in PORTED:
        return True
    for i, orig in ((3, p.sport), (4, p.dport)):
        if random_nat is not None and lt[i] != gt[i] and (lt[i] == orig or gt[i] == orig):
            random_nat["nat"] += 1
            random_nat["kept"] += gt[i] == orig
            continue
        if random_nat is not None and lt[i] != orig:
            random_nat["nat"] += 1
        if lt[i] != gt[i] and (lt[i] == orig or gt[i] == orig):
            return False
    return True


def expected(fname, p, lf, gf, locals_):
    for rx, pred, why in EXPECTED:
        if re.search(rx, fname) and pred(p, lf, gf, locals_):
            return why
    return None


def ifrewrite(text, names):
    """The file with the scenario's names as l0 / r0 (for ipt_eval's ports)."""
    m = {names[0]: "l0", names[1]: "r0"}
    return re.sub(r"(-[io]|--in-interface|--out-interface) (\S+)",
                  lambda x: "%s %s" % (x.group(1), m.get(x.group(2), x.group(2))), text)


def explain(args, work, text, family, names, sets, plines, nums, tag):
    """{n: (linux's decision, gufc reference evaluator's)} for packets @nums."""
    sub = os.path.join(work, "diff.pkts")
    rules = os.path.join(work, "diff.rules")
    with open(rules, "w", encoding="utf-8") as f:
        f.write(ifrewrite(text, names))
    with open(sub, "w", encoding="utf-8") as f:
        f.write(plines[0] + "\n")
        for n in nums:
            f.write(plines[n] + "\n")
    # The family as the file's name says (a file without addresses or a
    # "Generated by" line would be read as IPv4).
    opt = ["-%d" % family] + (["--ipset", sets] if sets else [])
    try:
        k = subprocess.run([sys.executable, args.oracle, "run", "--tag", tag] + opt +
                           [rules, sub], capture_output=True, text=True, timeout=120)
        kl = [x for x in k.stdout.splitlines() if not x.startswith("counters")]
    except subprocess.TimeoutExpired:
        kl = []
    try:
        g = subprocess.run([args.eval] + opt + [rules, sub], capture_output=True, text=True,
                           timeout=60)
        gl = [x for x in g.stdout.splitlines() if not x.startswith("counters")] or \
            [g.stderr.strip()[-200:]]
    except subprocess.TimeoutExpired:
        gl = []
    return {n: (kl[i] if i < len(kl) else "?", gl[i] if i < len(gl) else "?")
            for i, n in enumerate(nums)}


def canonical(nfo, text, family, sets, counts):
    """@text restored into a scratch namespace and saved again."""
    ns = "cd-canon-%d-%d" % (os.getpid() % 100000, counts["runs"])
    nfo.sh("ip netns add " + ns)
    try:
        if sets:
            with open(sets, encoding="utf-8") as f:
                nfo.sh(["ipset", "restore"], ns=ns, stdin=f.read())
        tool = "ip6tables" if family == 6 else "iptables"
        nfo.sh([tool + "-restore"], ns=ns, stdin=text)
        r = subprocess.run(["ip", "netns", "exec", ns, nfo.tool(tool + "-save")],
                           capture_output=True,
                           text=True, check=True)
        return r.stdout
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def run_file(args, nfo, path, work, counts):
    fname = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    family = 6 if path.endswith(".v6") else 4
    sets = os.path.splitext(path)[0] + ".ipset"
    sets = sets if os.path.exists(sets) else None
    saved = text
    try:
        tables = nfo.parse_save(text, path)
    except nfo.OracleError:
        # Lines the oracle's parser does not take: the file as the kernel saves it.
        saved = canonical(nfo, text, family, sets, counts)
        tables = nfo.parse_save(saved, path)
    names = interface_names(tables)
    is_random = re.search(r"--random(-fully)?\b", text) is not None
    rand_stat = re.search(r"-m statistic\b.*--mode random\b", text) is not None
    seed = args.seed + sum(fname.encode())
    ptext = derive_packets(nfo, tables, family, args.count, seed)
    pk_path = os.path.join(work, "pkts")
    with open(pk_path, "w", encoding="utf-8") as f:
        f.write(ptext)
    locals_, pkts = nfo.parse_packets(pk_path)
    plines = ptext.splitlines()
    bad = 0
    for si, sc in enumerate(scenarios(names, args.full)):
        tag = "cd%dx%d" % (os.getpid() % 100000, counts["runs"])
        counts["runs"] += 1
        lin, lpol, lhave, ltracked = linux_fates(nfo, text, tables, family, sets, pkts,
                                                 locals_, sc, tag)
        gres, stats = gufc_fates(nfo, args.gufc, work, path, family, sets, pkts, locals_, sc,
                                 tag)
        what = "%s [in %s, out %s]" % (fname, sc[0], sc[1])
        if gres is None:
            print("FAIL: %s: %s" % (what, stats))
            return 1
        guf, gpol = gres
        diffs, exp, opened, earlier = [], 0, [], set()
        random_nat = {"nat": 0, "kept": 0} if is_random else None
        for p in pkts:
            lf, gf = lin.get(p.n), guf.get(p.n)
            seen_before = set(earlier)
            earlier.add((p.proto, p.src, p.sport))
            if same_fate(p, lf, gf, random_nat):
                continue
            why = expected(fname, p, lf, gf, locals_)
            if why:
                exp += 1
                continue
            why = [w for rx, pred, w in OPEN_FATE_DIFFS
                   if re.search(rx, fname) and pred(p, lf, gf, locals_, seen_before)]
            if why:
                opened.append((p, lf, gf, why[0]))
                continue
            diffs.append((p, lf, gf))
        if random_nat is not None and random_nat["kept"] > max(2, random_nat["nat"] // 10):
            bad += 1
            print("FAIL: %s: gufc kept the original port of %d of %d translated ports that "
                  "--random/--random-fully NAT draws (Linux draws them)" %
                  (what, random_nat["kept"], random_nat["nat"]), flush=True)
        counts["open"] += len(opened)
        for p, lf, gf, why in opened:
            print("open: %s packet %d: %s: linux %s, gufc %s (%s)" %
                  (fname, p.n, plines[p.n], fate_text(lf), fate_text(gf), why))
        counts["packets"] += len(pkts)
        counts["differ"] += len(diffs)
        counts["expected"] += exp
        # The built-in chains' policies: what the packets left them by
        # (unless a difference by design sends packets other ways).
        pdiffs = [] if exp else [
            (k, lpol.get(k, (0, 0)), gpol.get(k, (0, 0)))
            for k in sorted(lpol)
            if k[0] in tables and k[1] in tables[k[0]].chains and
            lpol[k] != gpol.get(k, (0, 0))]
        pexp = [(k, lv, gv, why) for k, lv, gv in pdiffs
                for why in [policy_expected(k, lv, lhave, ltracked, rand_stat)] if why]
        pdiffs = [d for d in pdiffs
                  if not policy_expected(d[0], d[1], lhave, ltracked, rand_stat)]
        counts["policy_expected"] += len(pexp)
        if args.verbose:
            for k, lv, gv, why in pexp:
                print("  expected: policy %s %s: linux %d packets, gufc %d (%s)" %
                      (k[0], k[1], lv[0], gv[0], why))
        counts["policies"] += len([k for k in lpol if k[0] in tables])
        known = [why for rx, why in KNOWN_COUNTER_DIFFS if re.search(rx, fname)]
        if pdiffs and not diffs and known:
            counts["known"] += 1
            print("known: %s: every packet agrees, %d policy counters differ (open: %s)" %
                  (what, len(pdiffs), known[0]))
            for k, lv, gv in pdiffs:
                print("  policy %s %s: linux %d packets %d bytes, gufc %d packets %d bytes" %
                      (k[0], k[1], lv[0], lv[1], gv[0], gv[1]))
            continue
        if pdiffs and not diffs:
            bad += 1
            print("FAIL: %s: every packet agrees, %d policy counters differ" %
                  (what, len(pdiffs)))
            for k, lv, gv in pdiffs:
                print("  policy %s %s: linux %d packets %d bytes, gufc %d packets %d bytes" %
                      (k[0], k[1], lv[0], lv[1], gv[0], gv[1]))
            continue
        fwd = sum(1 for v in lin.values() if v[0] == "right")
        loc = sum(1 for v in lin.values() if v[0] == "local")
        rej = sum(1 for v in guf.values() if v[0] == "reject")
        line = ("%s: %d packets (Linux: %d forwarded, %d local, %d dropped; gufc rejected "
                "%d), %d differ%s" % (what, len(pkts), fwd, loc, len(pkts) - fwd - loc, rej,
                                      len(diffs), ", %d as expected" % exp if exp else ""))
        if not diffs:
            print("ok: " + line, flush=True)
            continue
        bad += 1
        print("FAIL: " + line, flush=True)
        shown = diffs[:args.show]
        why = explain(args, work, saved, family, sc, sets, plines, [p.n for p, _, _ in shown],
                      tag + "e")
        for p, lf, gf in shown:
            kd, gd = why.get(p.n, ("?", "?"))
            print("  packet %d: %s\n    linux: %s   [%s]\n    gufc:  %s   [ref: %s]" %
                  (p.n, plines[p.n], fate_text(lf), kd.split(" ", 1)[-1], fate_text(gf),
                   gd.split(" ", 1)[-1]))
        if len(diffs) > len(shown):
            print("  ... and %d more" % (len(diffs) - len(shown)))
    return bad


def refused(corpus, fname):
    path = os.path.join(corpus, "expectations")
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == fname and w[1] == "refuse":
                return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gufc", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--extra", help="a directory of more NAME.v4/.v6 files (regression cases)")
    ap.add_argument("--full", action="store_true", help="more packets, more interface orders")
    ap.add_argument("--backend", choices=("nft", "legacy"), default="nft",
                    help="the lab's iptables backend (default nft: Debian 12's iptables)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--count", type=int, default=0, help="packets per file")
    ap.add_argument("--show", type=int, default=4, help="differing packets shown per file")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the policy counter differences known by design")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if not args.count:
        args.count = 600 if args.full else 200
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("iptables-restore"):
        print("SKIP: needs root, ip and iptables")
        return SKIP
    os.environ["NFO_BACKEND"] = args.backend  # the oracle and its runs below
    nfo = load_oracle(args.oracle)
    files = args.files or sorted(
        os.path.join(args.corpus, f) for f in os.listdir(args.corpus)
        if f.endswith((".v4", ".v6")))
    if args.extra and not args.files:
        files += sorted(os.path.join(args.extra, f) for f in os.listdir(args.extra)
                        if f.endswith((".v4", ".v6")))
    work = tempfile.mkdtemp(prefix="gufc-corpus-diff-")
    counts = collections.Counter()
    bad = 0
    t0 = time.monotonic()
    try:
        for path in files:
            fname = os.path.basename(path)
            if refused(args.corpus, fname):
                print("skip: %s: gufc refuses it by design (expectations)" % fname)
                continue
            counts["files"] += 1
            try:
                bad += run_file(args, nfo, path, work, counts)
            except nfo.SkipError as e:
                print("SKIP: %s" % e)
                return SKIP
            except (nfo.OracleError, subprocess.TimeoutExpired, RuntimeError) as e:
                print("FAIL: %s: %s" % (fname, e))
                bad += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("corpus_diff: %d files, %d runs, %d packets compared, %d differ (%d expected), "
          "%d open, %d policy counters compared (%d differ by design, %d runs with known "
          "policy differences), "
          "%d failed runs, %.1f s" % (
              counts["files"], counts["runs"], counts["packets"],
              counts["differ"] + counts["expected"] + counts["open"], counts["expected"],
              counts["open"], counts["policies"], counts["policy_expected"], counts["known"],
              bad,
              time.monotonic() - t0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
