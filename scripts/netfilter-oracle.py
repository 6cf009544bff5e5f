#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""netfilter-oracle: ask the Linux kernel what netfilter decides.

Loads an iptables-save file (tables filter, nat, mangle, raw, security;
IPv4 or IPv6; or an iptables-restore input with -I CHAIN [N], -N, -F, -X,
-Z, -P lines, as gufc's importer takes it) into a firewall network namespace, sends each packet of a
packet list through it and reports, per packet, what netfilter really did:
the verdict, the deciding rule (by file position) or the chain policy, and
the NAT decision of each NAT stage. gufc's reference evaluator is tested against it
(tests/integration/netfilter/ipt_eval.c prints the same format).

Commands:
  netfilter-oracle.py run [-4|-6] [-v] [--tag T] [--ipset FILE] RULES PACKETS
                                                   (FILE: "ipset save" text the
                                                    firewall loads first)
  netfilter-oracle.py gen [-4|-6] RULES            (print a packet list)
  netfilter-oracle.py conv [-v] [--tag T] CONVS    (whole TCP conversations and
                                                    SCTP associations,
                                                    see "Conversations" below)
  netfilter-oracle.py frames CONVS                 (their frames, in hex)
  netfilter-oracle.py convgen SEED [COUNT]         (random conversations)

Lab (namespaces created per run, removed on exit, also on failure/signal):
  nfo-l-T  --l1 [veth] l0--  nfo-fw-T  --r0 [veth] r1--  nfo-r-T
The left and right hosts have no addresses and IPv6 disabled; they send
nothing. The firewall forwards, has rp_filter off, its "local" addresses
(from the packet list) on lo, 10.255.255.1/30 and fd4e:464f::1/64 on r0
(reserved: don't use these two subnets in packet lists) and a default route
via the right host (static neighbour entries: nothing waits for ARP/ND).
The file is loaded with iptables-restore (ip6tables-restore for IPv6);
the other family gets the file's built-in chains without rules and with
ACCEPT policies (an ip6tables left alone, as gufc's importer has it). A
raw OUTPUT rule (first, left out of every snapshot) drops everything the
firewall sends by itself (RSTs and ICMP errors of REJECT, MLD) so only
test packets touch the counters. Rules see the interfaces l0 (where
packets from the left come in), r0 (where forwarded packets and those the
firewall sends leave) and lo (a packet from the firewall to itself).

Per packet: conntrack is flushed (ctnetlink, so every packet is NEW),
counters are snapshot (iptables-save -c), the packet is injected (AF_PACKET
from the left host into the firewall, or an IP_HDRINCL raw socket inside
the firewall for packets from a local address), the oracle waits until
the counters show a drop or the packet shows up (at the right host, or on
a raw socket inside the firewall for local delivery), then snapshots
again. The counter deltas say which rules matched; walking the chains
(jumps, gotos, RETURN, chain ends) with "matched = its counter went up"
gives the deciding rule, and the walk must account for every counter
change exactly, or the packet is reported as an error. The delivered
packet is checked against the verdict and the NAT target (addresses and
ports within the range, masquerade to r0's address).

Packet list format (one packet per line, '#' starts a comment):
  local ADDR [ADDR...]          addresses of the firewall itself
  keep-conntrack                from here on, conntrack is not flushed before
                                each packet: the connections of the packets
                                before stay (-m connlimit counts them)
  tcp SRC:PORT -> DST:PORT [flags=S] [mss=N]  (flags from FSRPAUEC, default S, - none;
                                           mss: an MSS option)
  udp SRC:PORT -> DST:PORT
  sctp SRC:PORT -> DST:PORT                (an INIT chunk)
  dccp SRC:PORT -> DST:PORT                (a DCCP-Request, 48-bit sequence numbers)
  icmp SRC -> DST [type=8] [code=0] [id=N] (echo request by default)
  icmpv6 SRC -> DST [type=128] [code=0] [id=N]
  proto N SRC -> DST
  (any of them: [ttl=N], the IP TTL or hop limit, 64 by default;
   [tos=N], the IPv4 TOS byte or IPv6 traffic class (DSCP and ECN), 0
   by default; proto 108: [cpi=N], an IPComp header with that CPI before
   the tag; but
   sctp: [data=TEXT], bytes the datagram carries after the 8-byte tag
   that follows the transport header: TEXT as it is, with "|hex|"
   blocks for other bytes (|20| a blank, |23| a '#'), for -m string;
   sctp: [chunk=N], the type of its one chunk instead of INIT (a chunk of
   that type whose value is the tag), [vtag=N], the common header's
   verification tag, 0 by default)
IPv6 addresses are written in brackets: [2001:db8::1]:80, [2001:db8::1].
The hook follows from the local addresses: dst local -> INPUT, src local
-> OUTPUT (sent from inside the firewall), both -> OUTPUT then INPUT,
neither -> FORWARD (injected from the left, towards the right).
For the key of an ICMP echo (and of an ICMP timestamp, information or
address mask request or reply) the identifier stands in for both ports
(default id: the packet's number); for other ICMP types sport is
type << 8 | code and dport 0. Every packet is meant to be the first of a
new connection (conntrack state NEW): a TCP SYN, UDP, an SCTP INIT, a
DCCP-Request, an
ICMP echo request, another protocol. The kernel sees other TCP flags or
ICMP error types without an embedded packet differently (INVALID, or
picked up mid-stream); gufc's evaluator is asked with NEW regardless.
[forged] (a word of its own, any protocol): the source is one of the
firewall's addresses, yet the packet comes from outside (injected from
the left): IPv4's input route drops it as a martian after PREROUTING
(accept_local off, Linux's default), IPv6 takes it as any packet from
outside. Loopback addresses used in packets must be listed as local like the
others (the lab does not add them: lo has them), and such packets must
come from the firewall (a loopback destination from outside is a
martian, dropped before any table).

"gen" writes a packet list for a rule file: per rule and per base chain
that reaches it (the matches of the jumps on the way merged in), packets
meant to match it (two sets of default addresses, udp too when the rule
names no protocol), a near miss, and a packet per base chain meant to
meet its policy; the addresses such packets need as the firewall's own
become "local" lines. A heuristic: earlier rules may shadow later ones,
and --ctstate other than NEW can never match.

Output, one line per packet, numbered from 1 in list order:
  N HOOK VERDICT DECIDER [NATHOOK ACTION rule=K [to=SPEC|ports=P]]...
  HOOK     the hook that decided: input, forward or output for the filter
           table's verdict; any hook where raw, mangle or security dropped,
           or where a nat chain's DROP policy did
  VERDICT  accept or drop (REJECT counts as drop)
  DECIDER  rule=K (K: the K-th rule line of the file, counting every
           -A and -I line of every table from 1) or policy
  then, in order dst stage (prerouting or output) and src stage
  (postrouting or input), each NAT stage that a rule decided:
  ACTION   dnat/snat with to=ADDR[-ADDR][:PORT[-PORT]] (IPv6 addresses
           in brackets; to=:PORT[-PORT] for a port-only target, the
           address kept), masquerade [ports=P[-Q]], or accept (a nat ACCEPT:
           no translation). A stage that ended in its policy is not printed.
  N error MESSAGE when the kernel's behaviour could not be pinned down.
Then what the list's packets added to the counters (iptables-save -c after
each, less before it), sorted, only those that moved; a packet of the
other family is left out (one from the firewall to itself counts its way
back in through lo too):
  counters TABLE rule K PACKETS BYTES     (K as above: every rule the
                                           packets passed, jumps, RETURN,
                                           LOG, ... included)
  counters TABLE policy CHAIN PACKETS BYTES   (a built-in chain's policy)
Bytes are IP datagram lengths.
Exit status: 0 when every packet got a decision, 1 if any error, 2 on
usage or setup problems, 77 when the lab cannot be built (not root, no
namespaces or iptables): the caller may treat that as "skip".

Python 3 standard library only.
"""

import argparse
import ctypes
import ipaddress
import os
import select
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time

EXIT_SKIP = 77
# The iptables backend: "nft" (the iptables / ip6tables commands as the
# system names them: Debian 12's default, iptables-nft) or "legacy"
# (iptables-legacy: x_tables). NFO_BACKEND in the environment or --backend
# picks it; every iptables command of the lab goes through tool().
BACKEND = os.environ.get("NFO_BACKEND", "nft")


def tool(name):
    """@name (iptables, ip6tables-restore, ...) for the backend in use."""
    if BACKEND != "legacy":
        return name
    base, _, rest = name.partition("-")
    if base not in ("iptables", "ip6tables"):
        return name
    return base + "-legacy" + ("-" + rest if rest else "")


MARK = 0x4E464F  # "NFO": the mark of packets the oracle sends from the firewall
MAGIC = b"NFO!"

MAC_FW_L = bytes.fromhex("024e46000001")
MAC_L = bytes.fromhex("024e46000002")
MAC_FW_R = bytes.fromhex("024e46000003")
MAC_R = bytes.fromhex("024e46000004")
WAN = {4: ("10.255.255.1", 30, "10.255.255.2"), 6: ("fd4e:464f::1", 64, "fd4e:464f::2")}

FILTER_HOOKS = ("INPUT", "FORWARD", "OUTPUT")
NAT_HOOKS = ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING")
MANGLE_HOOKS = ("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING")
BUILTIN = {"filter": FILTER_HOOKS, "nat": NAT_HOOKS, "mangle": MANGLE_HOOKS,
           "raw": ("PREROUTING", "OUTPUT"), "security": FILTER_HOOKS}
# Tables whose DROP (or REJECT) decides a packet besides filter.
DROP_TABLES = ("raw", "mangle", "security")
TERMINAL = {"ACCEPT", "DROP", "REJECT", "QUEUE", "NFQUEUE", "DNAT", "SNAT", "MASQUERADE",
            "REDIRECT", "NETMAP", "TPROXY", "SYNPROXY"}
# The oracle's own rule (raw OUTPUT, first): what the firewall sends by itself dies.
OWN_RULE = ("-m", "mark", "!", "--mark", "0x%x" % MARK, "-j", "DROP")

PROTOS = {"tcp": 6, "udp": 17, "sctp": 132, "udplite": 136, "dccp": 33, "icmp": 1, "icmpv6": 58}
PROTO_NAMES = {6: "tcp", 17: "udp", 132: "sctp", 136: "udplite", 33: "dccp", 1: "icmp",
               58: "icmpv6"}
PORT_PROTOS = (6, 17, 132, 136, 33)


class OracleError(Exception):
    """A problem with the input or the lab (not with one packet)."""


class SkipError(Exception):
    """The lab cannot be built here."""


def log(msg):
    print("netfilter-oracle: " + msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Packet lists
# --------------------------------------------------------------------------

class Packet:
    """One test packet of a packet list."""

    def __init__(self, n, lineno):
        self.n = n
        self.lineno = lineno
        self.family = 4
        self.proto = 6
        self.src = None
        self.dst = None
        self.sport = 0
        self.dport = 0
        self.flags = "S"
        self.ttl = 64
        self.tos = 0
        self.cpi = None
        self.cov = 0
        self.mss = None
        self.icmp_type = None
        self.icmp_code = 0
        self.icmp_id = None
        self.data = b""
        self.forged = False
        self.chunk = 1
        self.vtag = 0

    def name(self):
        return PROTO_NAMES.get(self.proto, "proto %d" % self.proto)

    def is_echo(self):
        """Echo, or another query that carries an identifier (ICMP timestamp,
        information, address mask; ICMPv6 node information, whose Qtype is
        in its place): Linux conntrack keys them all by it."""
        return (self.family, self.icmp_type) in ((6, 128), (6, 129), (6, 139), (6, 140)) or \
            self.family == 4 and self.icmp_type in (0, 8, 13, 14, 15, 16, 17, 18)


def parse_endpoint(text, with_port, where):
    """ADDR, [V6], ADDR:PORT or [V6]:PORT -> (ip_address, port)."""
    port = 0
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise OracleError("%s: missing ']' in %r" % (where, text))
        addr, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise OracleError("%s: bad endpoint %r" % (where, text))
            port = rest[1:]
        elif with_port:
            raise OracleError("%s: %r needs a port" % (where, text))
    elif with_port:
        if text.count(":") != 1:
            raise OracleError("%s: %r: write IPv6 as [ADDR]:PORT" % (where, text))
        addr, port = text.split(":")
    else:
        addr = text
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        raise OracleError("%s: bad address %r" % (where, addr)) from None
    if with_port:
        try:
            port = int(port)
        except ValueError:
            raise OracleError("%s: bad port in %r" % (where, text)) from None
        if not 0 <= port <= 65535:
            raise OracleError("%s: port out of range in %r" % (where, text))
    elif port:
        raise OracleError("%s: %r: ports only for tcp, udp, udplite, sctp and dccp"
                          % (where, text))
    return ip, port


def parse_data(text, where):
    """data=TEXT: the bytes as they are, "|hex|" blocks as the bytes they spell."""
    out, parts = bytearray(), text.split("|")
    if len(parts) % 2 == 0:
        raise OracleError("%s: data: a '|' block is not closed" % where)
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out += part.encode("latin-1")
            continue
        try:
            out += bytes.fromhex(part)
        except ValueError:
            raise OracleError("%s: data: bad hex %r" % (where, part)) from None
    return bytes(out)


def parse_packets(path):
    """Read a packet list: (set of local addresses, [Packet])."""
    locals_, pkts = set(), []
    keep_ct = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for lineno, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, lineno)
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        w = line.split()
        if w == ["keep-conntrack"]:
            keep_ct = True
            continue
        if w[0] == "local":
            for a in w[1:]:
                try:
                    locals_.add(ipaddress.ip_address(a.strip("[]")))
                except ValueError:
                    raise OracleError("%s: bad address %r" % (where, a)) from None
            continue
        p = Packet(len(pkts) + 1, lineno)
        p.keep_ct = keep_ct
        if w[0] == "proto":
            if len(w) < 2 or not w[1].isdigit() or not 0 <= int(w[1]) <= 255:
                raise OracleError("%s: 'proto' needs a number 0..255" % where)
            p.proto = int(w[1])
            w = w[2:]
        elif w[0] in PROTOS:
            p.proto = PROTOS[w[0]]
            w = w[1:]
        else:
            raise OracleError("%s: unknown protocol %r" % (where, w[0]))
        if len(w) < 3 or w[1] != "->":
            raise OracleError("%s: expected 'SRC -> DST'" % where)
        ports = p.proto in PORT_PROTOS
        p.src, p.sport = parse_endpoint(w[0], ports, where)
        p.dst, p.dport = parse_endpoint(w[2], ports, where)
        if p.src.version != p.dst.version:
            raise OracleError("%s: addresses of two families" % where)
        p.family = p.src.version
        for opt in w[3:]:
            key, _, val = opt.partition("=")
            if opt == "forged":
                p.forged = True
            elif key == "flags" and p.proto == 6:
                if val == "-":  # no flag at all (a NULL scan's)
                    val = ""
                elif not val or any(c not in "FSRPAUEC" for c in val):
                    raise OracleError("%s: bad TCP flags %r" % (where, val))
                p.flags = val
            elif key == "mss" and p.proto == 6:
                if not val.isdigit() or not 0 <= int(val) <= 65535:
                    raise OracleError("%s: bad MSS %r" % (where, val))
                p.mss = int(val)
            elif key == "data" and p.proto != 132:
                p.data = parse_data(val, where)
            elif key == "ttl":
                if not val.isdigit() or not 1 <= int(val) <= 255:
                    raise OracleError("%s: bad TTL %r" % (where, val))
                p.ttl = int(val)
            elif key == "cov" and p.proto == 136:
                # UDP-Lite checksum coverage (0: the whole datagram); past
                # the datagram's end makes the packet malformed.
                if not val.isdigit() or not 0 <= int(val) <= 65535:
                    raise OracleError("%s: bad coverage %r" % (where, val))
                p.cov = int(val)
            elif key == "chunk" and p.proto == 132:
                if not val.isdigit() or not 0 <= int(val) <= 255:
                    raise OracleError("%s: bad SCTP chunk type %r" % (where, val))
                p.chunk = int(val)
            elif key == "vtag" and p.proto == 132:
                if not val.isdigit() or not 0 <= int(val) <= 0xFFFFFFFF:
                    raise OracleError("%s: bad SCTP verification tag %r" % (where, val))
                p.vtag = int(val)
            elif key == "cpi" and p.proto == 108:
                if not val.isdigit() or not 0 <= int(val) <= 65535:
                    raise OracleError("%s: bad CPI %r" % (where, val))
                p.cpi = int(val)
            elif key == "tos":
                try:
                    v = int(val, 0)
                except ValueError:
                    raise OracleError("%s: bad TOS %r" % (where, val)) from None
                if not 0 <= v <= 255:
                    raise OracleError("%s: bad TOS %r" % (where, val))
                p.tos = v
            elif key in ("type", "code", "id") and p.proto in (1, 58):
                try:
                    v = int(val, 0)
                except ValueError:
                    raise OracleError("%s: bad %s %r" % (where, key, val)) from None
                if not 0 <= v <= (65535 if key == "id" else 255):
                    raise OracleError("%s: %s out of range" % (where, key))
                setattr(p, {"type": "icmp_type", "code": "icmp_code", "id": "icmp_id"}[key], v)
            else:
                raise OracleError("%s: unknown option %r" % (where, opt))
        if p.proto == 1 and p.family != 4 or p.proto == 58 and p.family != 6:
            raise OracleError("%s: icmp is IPv4, icmpv6 IPv6" % where)
        if p.proto in (1, 58):
            if p.icmp_type is None:
                p.icmp_type = 8 if p.proto == 1 else 128
            if p.icmp_id is None:
                p.icmp_id = p.n & 0xFFFF
        pkts.append(p)
    return locals_, pkts


# --------------------------------------------------------------------------
# iptables-save text
# --------------------------------------------------------------------------

COUNTERS = "["


def split_counters(line):
    """'[p:b] rest' -> (p, rest); (None, line) without counters."""
    pk, _, rest = split_counters_pb(line)
    return pk, rest


def split_counters_pb(line):
    """'[p:b] rest' -> (p, b, rest); (None, None, line) without counters."""
    if line.startswith(COUNTERS):
        end = line.find("]")
        if end > 0:
            v = line[1:end].split(":")
            pk = int(v[0]) if v[0].isdigit() else 0
            by = int(v[1]) if len(v) > 1 and v[1].isdigit() else 0
            return pk, by, line[end + 1:].strip()
    return None, None, line


class Rule:
    """A rule line: chain, target, target options, counter."""

    def __init__(self, chain, words, pkts=0, nbytes=0):
        self.chain = chain
        self.words = words
        self.pkts = pkts
        self.bytes = nbytes
        self.target = None
        self.goto = False
        self.targs = {}
        for i, wd in enumerate(words):
            if wd in ("-j", "--jump", "-g", "--goto") and i + 1 < len(words):
                self.target = words[i + 1]
                self.goto = wd in ("-g", "--goto")
                rest = words[i + 2:]
                for j, t in enumerate(rest):
                    if t.startswith("--"):
                        val = rest[j + 1] if j + 1 < len(rest) and \
                            not rest[j + 1].startswith("--") else ""
                        self.targs[t] = val
                break


class Table:
    """One table of an iptables-save text: chains (policy, counter) and rules."""

    def __init__(self, name):
        self.name = name
        self.chains = {}   # name -> [policy, packets, bytes]
        self.rules = {}    # chain -> [Rule]
        self.file_no = {}  # chain -> [rule line number in the file]


# Restore commands gufc's importer takes besides -A (-D, -R and -E it
# refuses, so none of the files compared has them).
APPEND, INSERT = ("-A", "--append"), ("-I", "--insert")
CHAIN_CMDS = {"-N": "N", "--new-chain": "N", "-F": "F", "--flush": "F", "-X": "X",
              "--delete-chain": "X", "-Z": "Z", "--zero": "Z", "-P": "P", "--policy": "P"}
ADDR_OPTS = {"-s": 0, "--source": 0, "--src": 0, "-d": 1, "--destination": 1, "--dst": 1}


def split_addrs(words):
    """The rules one rule line makes, as iptables does: one per source and
    destination of "-s A,B" / "-d C,D" lists (sources outer): [words]."""
    lists = [None, None]
    for i, wd in enumerate(words[:-1]):
        if wd in ADDR_OPTS and "," in words[i + 1]:
            lists[ADDR_OPTS[wd]] = (i + 1, words[i + 1].split(","))
    out = []
    for s in (lists[0][1] if lists[0] else [None]):
        for d in (lists[1][1] if lists[1] else [None]):
            w = list(words)
            if s is not None:
                w[lists[0][0]] = s
            if d is not None:
                w[lists[1][0]] = d
            out.append(w)
    return out


def chain_cmd(cur, cmd, words, where):
    """-N NAME, -F [NAME], -X [NAME], -Z [NAME], -P NAME POLICY on table @cur."""
    name = words[1] if len(words) > 1 else None
    if cmd in "NP" and name is None:
        raise OracleError("%s: %s needs a chain" % (where, words[0]))
    if cmd == "N":
        if name in cur.chains:
            raise OracleError("%s: chain %s exists" % (where, name))
        cur.chains[name] = ["-", 0, 0]
        cur.rules[name], cur.file_no[name] = [], []
        return
    if name is not None and name not in cur.chains:
        raise OracleError("%s: chain %s not declared" % (where, name))
    names = [name] if name is not None else list(cur.chains)
    if cmd == "P":
        if len(words) < 3:
            raise OracleError("%s: -P needs a policy" % where)
        cur.chains[name][0] = words[2]
    elif cmd == "F":
        for c in names:
            cur.rules[c], cur.file_no[c] = [], []
    elif cmd == "Z":
        for c in names:
            cur.chains[c][1:] = [0, 0]
            for r in cur.rules[c]:
                r.pkts = r.bytes = 0
    else:  # X: user chains, empty
        for c in names:
            if c in BUILTIN.get(cur.name, ()):
                if name is not None:
                    raise OracleError("%s: cannot delete built-in chain %s" % (where, c))
                continue
            if cur.rules[c]:
                raise OracleError("%s: chain %s is not empty" % (where, c))
            del cur.chains[c], cur.rules[c], cur.file_no[c]


def parse_save(text, where="iptables-save"):
    """Parse iptables-save text, or an iptables-restore input as gufc's
    importer takes it (-A, -I CHAIN [N], -N, -F, -X, -Z, -P): {table: Table},
    each chain's rules in the kernel's order. Rule lines (-A and -I) are
    numbered in text order; a line naming several addresses makes a rule
    for each, all of that number (-A appends them in order, -I inserts each
    at N, so they end up in reverse order, as iptables-restore does)."""
    tables, cur, n = {}, None, 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        at = "%s:%d" % (where, lineno)
        if not line or line.startswith("#"):
            continue
        if line.startswith("*"):
            cur = tables.setdefault(line[1:], Table(line[1:]))
            continue
        if cur is None:
            raise OracleError("%s: line outside a table" % at)
        if line == "COMMIT":
            cur = None
            continue
        if line.startswith(":"):
            w = line[1:].split()
            pk, by = 0, 0
            if len(w) > 2:
                pk, by, _ = split_counters_pb(w[2])
            cur.chains[w[0]] = [w[1] if len(w) > 1 else "-", pk or 0, by or 0]
            cur.rules.setdefault(w[0], [])
            cur.file_no.setdefault(w[0], [])
            continue
        pk, by, rest = split_counters_pb(line)
        try:
            words = shlex.split(rest)
        except ValueError as e:
            raise OracleError("%s: %s" % (at, e)) from None
        if words and words[0] in CHAIN_CMDS and pk is None:
            chain_cmd(cur, CHAIN_CMDS[words[0]], words, at)
            continue
        if len(words) < 2 or words[0] not in APPEND + INSERT:
            raise OracleError("%s: only -A, -I, -N, -F, -X, -Z and -P lines are supported" % at)
        n += 1
        chain, body, pos = words[1], words[2:], None
        if chain not in cur.chains:
            raise OracleError("%s: chain %s not declared" % (at, chain))
        if words[0] in INSERT:
            pos = 0
            if body and body[0].isdigit():
                pos = int(body[0]) - 1
                body = body[1:]
                if pos < 0 or pos > len(cur.rules[chain]):
                    raise OracleError("%s: index of insertion too big" % at)
        for w in split_addrs(body):
            r = Rule(chain, w, pk or 0, by or 0)
            if pos is None:
                cur.rules[chain].append(r)
                cur.file_no[chain].append(n)
            else:
                cur.rules[chain].insert(pos, r)
                cur.file_no[chain].insert(pos, n)
    if cur is not None:
        raise OracleError("%s: table %s without COMMIT" % (where, cur.name))
    return tables


def strip_counters(text):
    """The file without [p:b] counters (iptables-restore without -c keeps none)."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(":"):
            w = line.split()
            line = " ".join(w[:2])
        else:
            _, line = split_counters(line)
        out.append(line)
    return "\n".join(out) + "\n"


def detect_family(text):
    """The family gufc's importer picks: a "Generated by ip6tables-save" /
    "iptables-save" header, else the first address, else IPv4."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("# Generated by ip6tables-save"):
            return 6
        if line.startswith("# Generated by iptables-save"):
            return 4
    for line in text.splitlines():
        _, rest = split_counters(line.strip())
        if not rest.startswith("-"):
            continue
        try:
            words = shlex.split(rest)
        except ValueError:
            continue
        for i, wd in enumerate(words[:-1]):
            if wd in ("-s", "--source", "-d", "--destination", "--to-source",
                      "--to-destination"):
                v = words[i + 1].strip("[").split("/")[0].split("]")[0]
                if "-" in v:
                    v = v.split("-")[0]
                if words[i].startswith("--to") and v.count(":") == 1:
                    v = v.split(":")[0]
                try:
                    return ipaddress.ip_address(v).version
                except ValueError:
                    pass
    return 4


def skeleton(tables):
    """Built-in chains of @tables with ACCEPT policies, no rules, no user chains."""
    out = []
    for t in tables.values():
        if t.name not in BUILTIN:
            continue
        out.append("*" + t.name)
        for c in BUILTIN[t.name]:
            if c in t.chains:
                out.append(":%s ACCEPT [0:0]" % c)
        out.append("COMMIT")
    return "\n".join(out) + "\n"


# NAT targets, printed the way ipt_eval prints struct rule_nat.

def parse_nat_spec(spec):
    """--to-source/--to-destination value -> (amin, amax, pmin, pmax); the
    addresses None for a port-only target (":P[-Q]", "[]:P[-Q]": the
    packet's own address is kept)."""
    ports = None
    if spec.startswith("["):
        end = spec.find("]")
        addrs, rest = spec[1:end], spec[end + 1:]
        if rest.startswith("-["):  # [A]-[B][:P]
            end2 = rest.find("]")
            addrs += "-" + rest[2:end2]
            rest = rest[end2 + 1:]
        if rest.startswith(":"):
            ports = rest[1:]
    elif spec.count(":") == 1:
        addrs, ports = spec.split(":")
    else:
        addrs = spec
    lo, _, hi = addrs.partition("-")
    amin = ipaddress.ip_address(lo) if lo else None
    amax = ipaddress.ip_address(hi) if hi else amin
    pmin = pmax = 0
    if ports:
        a, _, b = ports.partition("-")
        pmin = int(a)
        pmax = int(b) if b else pmin
    return amin, amax, pmin, pmax


def fmt_addr(a):
    return "[%s]" % a if a.version == 6 else str(a)


def fmt_ports(pmin, pmax):
    return "%d" % pmin if pmin == pmax else "%d-%d" % (pmin, pmax)


def fmt_nat_spec(amin, amax, pmin, pmax):
    s = "" if amin is None else fmt_addr(amin) if amin == amax else \
        "%s-%s" % (fmt_addr(amin), fmt_addr(amax))
    if pmin:
        s += ":" + fmt_ports(pmin, pmax)
    return s


def parse_to_ports(val):
    a, _, b = val.replace(":", "-").partition("-")
    lo = int(a)
    return lo, int(b) if b else lo


# --------------------------------------------------------------------------
# Frames
# --------------------------------------------------------------------------

def csum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


_CRC32C = []


def crc32c(data):
    if not _CRC32C:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _CRC32C.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC32C[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def build_ip(p, tag):
    """The IP datagram of packet @p, carrying @tag (8 bytes) to find it again,
    then its data= bytes (not for SCTP)."""
    src, dst = p.src.packed, p.dst.packed
    if p.proto != 132:
        tag = tag + p.data
    if p.family == 4:
        pseudo = lambda ln: src + dst + struct.pack("!BBH", 0, p.proto, ln)  # noqa: E731
    else:
        pseudo = lambda ln: src + dst + struct.pack("!IxxxB", ln, p.proto)  # noqa: E731
    if p.proto == 6:
        fl = sum(1 << "FSRPAUEC".index(c) for c in set(p.flags))
        ack = 1 if "A" in p.flags else 0
        opts = b"" if p.mss is None else struct.pack("!BBH", 2, 4, p.mss)
        hdr = struct.pack("!HHIIHHHH", p.sport, p.dport, 0x10000000 + p.n, ack,
                          ((5 + len(opts) // 4) << 12) | fl, 65535, 0, 0) + opts
        l4 = hdr + tag
        c = csum16(pseudo(len(l4)) + l4)
        l4 = l4[:16] + struct.pack("!H", c) + l4[18:]
    elif p.proto == 17:
        l4 = struct.pack("!HHHH", p.sport, p.dport, 8 + len(tag), 0) + tag
        c = csum16(pseudo(len(l4)) + l4) or 0xFFFF
        l4 = l4[:6] + struct.pack("!H", c) + l4[8:]
    elif p.proto == 136:
        l4 = struct.pack("!HHHH", p.sport, p.dport, p.cov, 0) + tag
        covered = l4 if p.cov == 0 else l4[:p.cov]
        # The pseudo-header as Linux's conntrack checks it (with
        # nf_conntrack_checksum=1, on PREROUTING): it passes UDP's protocol
        # number, not UDP-Lite's (RFC 3828), so a checksum right by the RFC
        # makes the packet INVALID to it. gufc verifies no L4 checksum: the
        # packets carry the one Linux takes, to compare what the rules do.
        ps = pseudo(len(l4))
        ps = ps[:9] + b"\x11" + ps[10:] if p.family == 4 else ps[:39] + b"\x11"
        c = csum16(ps + covered) or 0xFFFF
        l4 = l4[:6] + struct.pack("!H", c) + l4[8:]
    elif p.proto == 33:
        # DCCP-Request (RFC 4340 5.1, 5.2): the generic header with X=1 and
        # 48-bit sequence number p.n, data offset 5 (with the service code),
        # checksum coverage 0 (all), the checksum over the pseudo-header.
        hdr = struct.pack("!HHBBHBBHIL", p.sport, p.dport, 5, 0, 0, 0x01, 0, 0, p.n, 0)
        l4 = hdr + tag
        c = csum16(pseudo(len(l4)) + l4)
        l4 = l4[:6] + struct.pack("!H", c) + l4[8:]
    elif p.proto == 132:
        # INIT chunk: tag = initiate tag + a_rwnd, so it is findable.
        itag, rwnd = struct.unpack("!II", tag)
        if p.chunk == 1:
            chunk = struct.pack("!BBHIIHHI", 1, 0, 20, itag, rwnd, 1, 1, 0x1000 + p.n)
        else:
            # Another chunk type (chunk=N): the tag is its value.
            chunk = struct.pack("!BBH", p.chunk, 0, 12) + tag
        l4 = struct.pack("!HHII", p.sport, p.dport, p.vtag, 0) + chunk
        l4 = l4[:8] + struct.pack("<I", crc32c(l4)) + l4[12:]
    elif p.proto in (1, 58):
        if p.is_echo():
            rest = struct.pack("!HH", p.icmp_id, p.n & 0xFFFF)
        else:
            rest = b"\0\0\0\0"
        l4 = struct.pack("!BBH", p.icmp_type, p.icmp_code, 0) + rest + tag
        c = csum16((pseudo(len(l4)) if p.proto == 58 else b"") + l4)
        l4 = l4[:2] + struct.pack("!H", c) + l4[4:]
    elif p.proto == 108 and p.cpi is not None:
        l4 = struct.pack("!BBH", 0, 0, p.cpi) + tag
    else:
        l4 = tag
    if p.family == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, p.tos, 20 + len(l4), p.n & 0xFFFF, 0x4000, p.ttl,
                         p.proto, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum16(ip)) + ip[12:]
    else:
        ip = struct.pack("!IHBB16s16s", 0x60000000 | p.tos << 20 | (p.n & 0xFFFFF), len(l4),
                         p.proto, p.ttl,
                         src, dst)
    return ip + l4


def parse_l4_ports(proto, l4):
    if proto in PORT_PROTOS and len(l4) >= 4:
        return struct.unpack("!HH", l4[:4])
    return 0, 0


def parse_frame(frame):
    """Ethernet frame -> (src, dst, proto, sport, dport) or None."""
    if len(frame) < 14:
        return None
    et = struct.unpack("!H", frame[12:14])[0]
    return parse_ip(frame[14:], 4 if et == 0x0800 else 6 if et == 0x86DD else 0)


def parse_ip(d, family):
    if family == 4 and len(d) >= 20 and d[0] >> 4 == 4:
        ihl = (d[0] & 15) * 4
        return (ipaddress.IPv4Address(d[12:16]), ipaddress.IPv4Address(d[16:20]), d[9]) + \
            tuple(parse_l4_ports(d[9], d[ihl:]))
    if family == 6 and len(d) >= 40 and d[0] >> 4 == 6:
        return (ipaddress.IPv6Address(d[8:24]), ipaddress.IPv6Address(d[24:40]), d[6]) + \
            tuple(parse_l4_ports(d[6], d[40:]))
    return None


# --------------------------------------------------------------------------
# Namespaces
# --------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


class InNetns:
    """with InNetns(name): ... runs (and creates sockets) in that namespace."""

    def __init__(self, name):
        self.name = name
        self.orig = None

    def __enter__(self):
        self.orig = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        fd = os.open("/run/netns/" + self.name, os.O_RDONLY)
        try:
            _setns(fd)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        _setns(self.orig)
        os.close(self.orig)


def sh(cmd, ns=None, stdin=None, check=True):
    """Run a command (in namespace @ns); returns stdout."""
    argv = cmd if isinstance(cmd, list) else cmd.split()
    argv = [tool(argv[0])] + argv[1:]
    if ns is not None:
        argv = ["ip", "netns", "exec", ns] + argv
    r = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise OracleError("'%s' failed: %s" % (" ".join(argv), r.stderr.strip()))
    return r.stdout


def write_sysctl(path, val):
    with open("/proc/sys/" + path.replace(".", "/"), "w") as f:
        f.write(str(val))


CT_FLUSH = 0x0102  # NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_DELETE


class Lab:
    """The three namespaces, the loaded rules and the sockets around them."""

    def __init__(self, tag, verbose):
        self.tag = tag
        self.verbose = verbose
        self.fw = "nfo-fw-" + tag
        self.left = "nfo-l-" + tag
        self.right = "nfo-r-" + tag
        self.created = []
        self.socks = []
        self.observers = {}  # socket -> kind ("frame", "raw4", "raw6")
        self.seq = 0

    # -- setup / teardown --

    def close(self):
        for s in self.socks:
            s.close()
        self.socks = []
        for ns in reversed(self.created):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.created = []

    def setup(self, locals_, protos):
        for ns in (self.fw, self.left, self.right):
            if os.path.exists("/run/netns/" + ns):
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            r = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True)
            if r.returncode != 0:
                raise SkipError("cannot create network namespaces: " + r.stderr.strip())
            self.created.append(ns)
        for ns in (self.left, self.right):
            with InNetns(ns):
                write_sysctl("net.ipv6.conf.all.disable_ipv6", 1)
                write_sysctl("net.ipv6.conf.default.disable_ipv6", 1)
        with InNetns(self.fw):
            for k, v in (("net.ipv4.ip_forward", 1), ("net.ipv4.conf.all.rp_filter", 0),
                         ("net.ipv4.conf.default.rp_filter", 0),
                         # Linux's default: a source of the firewall's own
                         # from outside (a "forged" packet) is a martian.
                         ("net.ipv4.conf.all.accept_local", 0),
                         ("net.ipv4.conf.default.accept_local", 0),
                         ("net.ipv4.conf.all.send_redirects", 0),
                         ("net.ipv4.conf.default.send_redirects", 0),
                         ("net.ipv6.conf.all.forwarding", 1),
                         ("net.ipv6.conf.all.accept_dad", 0),
                         ("net.ipv6.conf.default.accept_dad", 0),
                         ("net.ipv6.conf.default.accept_ra", 0),
                         ("net.ipv6.conf.default.router_solicitations", 0),
                         # -m connbytes reads the connections' counters (its
                         # rule turns them on too).
                         ("net.netfilter.nf_conntrack_acct", 1)):
                write_sysctl(k, v)
        # Everything the firewall sends on its own (RST, ICMP errors, MLD)
        # is dropped before the filter table sees it.
        for ipt in ("iptables", "ip6tables"):
            r = subprocess.run(["ip", "netns", "exec", self.fw, tool(ipt), "-t", "raw", "-A",
                                "OUTPUT", "-m", "mark", "!", "--mark", str(MARK), "-j", "DROP"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SkipError("%s does not work in a namespace: %s" % (tool(ipt),
                                                                         r.stderr.strip()))
        fw, left, right = self.fw, self.left, self.right
        mac = lambda b: ":".join("%02x" % x for x in b)  # noqa: E731
        for cmd in (
                "ip -n %s link add l0 address %s type veth peer name l1 address %s netns %s"
                % (fw, mac(MAC_FW_L), mac(MAC_L), left),
                "ip -n %s link add r0 address %s type veth peer name r1 address %s netns %s"
                % (fw, mac(MAC_FW_R), mac(MAC_R), right),
                "ip -n %s link set lo up" % fw,
                "ip -n %s link set l0 up" % fw,
                "ip -n %s link set r0 up" % fw,
                "ip -n %s link set l1 up" % left,
                "ip -n %s link set r1 up" % right):
            r = subprocess.run(cmd.split(), capture_output=True, text=True)
            if r.returncode != 0:
                raise SkipError("'%s' failed: %s" % (cmd, r.stderr.strip()))
        with InNetns(fw):
            for dev in ("lo", "l0", "r0"):
                write_sysctl("net.ipv4.conf.%s.rp_filter" % dev, 0)
        for fam in (4, 6):
            addr, plen, gw = WAN[fam]
            sh("ip -n %s -%d addr add %s/%d dev r0%s" % (fw, fam, addr, plen,
                                                       " nodad" if fam == 6 else ""))
            sh("ip -n %s -%d neigh replace %s lladdr %s dev r0 nud permanent"
               % (fw, fam, gw, mac(MAC_R)))
            sh("ip -n %s -%d route add default via %s dev r0" % (fw, fam, gw))
        for a in sorted(locals_, key=lambda a: (a.version, a)):
            if a.is_loopback:
                continue  # on lo already
            sh("ip -n %s addr add %s/%d dev lo" % (fw, a, a.max_prefixlen))
        # Sockets: injection at the left, sniffer at the right, raw
        # sockets for local delivery inside the firewall, ctnetlink.
        with InNetns(left):
            self.inject = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            self.inject.bind(("l1", 0))
            self.socks.append(self.inject)
        with InNetns(right):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
            s.bind(("r1", 0))
            self._observer(s, "frame")
        with InNetns(fw):
            self.raw = {}
            for fam, af in ((4, socket.AF_INET), (6, socket.AF_INET6)):
                self.raw[fam] = socket.socket(af, socket.SOCK_RAW, socket.IPPROTO_RAW)
                self.raw[fam].setsockopt(socket.SOL_SOCKET, socket.SO_MARK, MARK)
                self.socks.append(self.raw[fam])
            for fam, proto in sorted(protos):
                if fam == 4:
                    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, proto)
                    self._observer(s, "raw4")
                else:
                    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, proto)
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVPKTINFO, 1)
                    self._observer(s, "raw6")
            try:
                self.nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETFILTER
                self.nl.bind((0, 0))
                self.socks.append(self.nl)
                self.ct_flush()
            except (OSError, OracleError) as e:
                raise SkipError("cannot flush conntrack (ctnetlink): %s" % e) from None

    def _observer(self, s, kind):
        s.setblocking(False)
        self.observers[s] = kind
        self.socks.append(s)

    def restore(self, family, text, other_text):
        ipt = {4: "iptables", 6: "ip6tables"}
        sh([ipt[family] + "-restore"], ns=self.fw, stdin=text)
        if other_text.strip():
            sh([ipt[10 - family] + "-restore"], ns=self.fw, stdin=other_text)
        for fam in (4, 6):
            out = self.save(fam)
            if "--mark 0x%x" % MARK not in out:  # the file replaced raw
                sh("%s -t raw -I OUTPUT 1 -m mark ! --mark %d -j DROP" % (ipt[fam], MARK),
                   ns=self.fw)

    # -- per packet --

    def save(self, family):
        with InNetns(self.fw):
            r = subprocess.run([tool("ip6tables-save" if family == 6 else "iptables-save"),
                                "-c"],
                               capture_output=True, text=True)
        if r.returncode != 0:
            raise OracleError("iptables-save failed: " + r.stderr.strip())
        return r.stdout

    def snapshot(self, family):
        """The kernel's tables ({table: Table}) without the oracle's own rule."""
        k = parse_save(self.save(family))
        raw = k.get("raw")
        if raw is not None:
            rules = raw.rules.get("OUTPUT", [])
            for i, r in enumerate(rules):
                if tuple(r.words) == OWN_RULE:
                    del rules[i]
                    break
        return k

    def ct_flush(self):
        self.seq += 1
        msg = struct.pack("=IHHII", 20, CT_FLUSH, 1 | 4, self.seq, 0) + \
            struct.pack("!BBH", 0, 0, 0)
        self.nl.send(msg)
        while True:
            data = self.nl.recv(65536)
            ln, typ, _, seq, _ = struct.unpack("=IHHII", data[:16])
            if typ == 2 and seq == self.seq:  # NLMSG_ERROR (an ack when 0)
                err = struct.unpack("=i", data[16:20])[0]
                if err not in (0, -2):  # -ENOENT: nothing to flush
                    raise OracleError("conntrack flush failed: %s" % os.strerror(-err))
                return

    def drain(self):
        for s in self.observers:
            try:
                while True:
                    s.recv(65536)
            except BlockingIOError:
                pass

    def send(self, p, from_fw, tag):
        datagram = build_ip(p, tag)
        if from_fw:
            try:
                self.raw[p.family].sendto(datagram, (str(p.dst), 0))
            except PermissionError:
                pass  # netfilter dropped it on the way out: the counters say where
        else:
            et = b"\x08\x00" if p.family == 4 else b"\x86\xdd"
            self.inject.send(MAC_FW_L + MAC_L + et + datagram)

    def observe(self, tag, timeout):
        """Wait up to @timeout s for the tagged packet: (where, tuple) or None."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select(list(self.observers), [], [], max(left, 0))
            for s in r:
                kind = self.observers[s]
                try:
                    while True:
                        if kind == "raw6":
                            data, anc, _, addr = s.recvmsg(65536, 256)
                        else:
                            data, addr = s.recvfrom(65536)
                        if tag not in data:
                            continue
                        if kind == "frame":
                            return "right", parse_frame(data)
                        if kind == "raw4":
                            return "local", parse_ip(data, 4)
                        dst = None
                        for lvl, typ, cd in anc:
                            if lvl == socket.IPPROTO_IPV6 and typ == socket.IPV6_PKTINFO:
                                dst = ipaddress.IPv6Address(cd[:16])
                        proto = s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL)
                        return "local", (ipaddress.IPv6Address(addr[0].split("%")[0]), dst,
                                         proto) + tuple(parse_l4_ports(proto, data))
                except BlockingIOError:
                    pass
            if left <= 0:
                return None


# --------------------------------------------------------------------------
# Deciding from counters
# --------------------------------------------------------------------------

class Walk:
    """Counter deltas of one table and the chain walks that explain them."""

    def __init__(self, before, after):
        self.t = after
        self.rd = {c: [a.pkts - b.pkts for a, b in zip(after.rules[c], before.rules[c])]
                   for c in after.rules}
        self.pd = {c: after.chains[c][1] - before.chains[c][1] for c in after.chains}
        self.used_r = {c: [0] * len(v) for c, v in self.rd.items()}
        self.used_p = {c: 0 for c in self.pd}

    def entered(self, base):
        return base in self.t.chains and (self.pd[base] > 0 or any(self.rd[base]))

    def walk(self, base):
        """Walk base chain @base: ('rule', chain, i, Rule) or ('policy', base, policy)."""
        stack, c, i, steps = [], base, 0, 0
        while True:
            steps += 1
            if steps > 100000 or len(stack) > 64:
                raise OracleError("chain walk does not end (loop?)")
            rules = self.t.rules[c]
            if i >= len(rules):
                if not stack:
                    self.used_p[base] += 1
                    return ("policy", base, self.t.chains[base][0])
                c, i = stack.pop()
                continue
            r = rules[i]
            if self.rd[c][i] <= 0:
                i += 1
                continue
            self.used_r[c][i] += 1
            i += 1
            tg = r.target
            if tg is None or (tg not in TERMINAL and tg != "RETURN" and tg not in self.t.chains):
                continue  # no target, or a non-terminating one (LOG, MARK, ...)
            if tg in self.t.chains:
                if not r.goto:
                    stack.append((c, i))
                c, i = tg, 0
                continue
            if tg == "RETURN":
                if not stack:
                    self.used_p[base] += 1
                    return ("policy", base, self.t.chains[base][0])
                c, i = stack.pop()
                continue
            return ("rule", c, i - 1, r)

    def unexplained(self):
        """Counter changes the walks did not account for, as text."""
        bad = []
        for c, v in self.rd.items():
            for i, d in enumerate(v):
                if d != self.used_r[c][i]:
                    bad.append("%s %s rule %d: counter +%d, walk %d" %
                               (self.t.name, c, i + 1, d, self.used_r[c][i]))
        for c, d in self.pd.items():
            if c in BUILTIN.get(self.t.name, ()) and d != self.used_p[c]:
                bad.append("%s %s policy: counter +%d, walk %d" % (self.t.name, c, d,
                                                                  self.used_p[c]))
        return bad


class Decision:
    def __init__(self):
        self.error = None
        self.hook = None      # filter hook that decided
        self.verdict = None
        self.rule = None      # file rule number, None for policy
        self.nat = []         # [(stage hook, action, rule number, Rule)]
        self.local_in = False  # delivered locally (INPUT accepted)
        self.looped = False    # from the firewall to itself: it reached INPUT through lo


def decide(p, from_fw, locals_, before, after):
    """Read the decision of packet @p from two snapshots ({table: Table})."""
    d = Decision()
    walks = {name: Walk(before[name], after[name]) for name in BUILTIN if name in after}
    filt, nat = walks.get("filter"), walks.get("nat")
    drops = []  # (hook, rule number or None) where raw, mangle or security dropped

    def nat_stage(hook):
        if nat is None or not nat.entered(hook):
            return
        res = nat.walk(hook)
        if res[0] == "policy" and res[2] != "ACCEPT":
            # A nat chain's DROP policy: the new connection no rule took goes.
            drops.append((hook.lower(), None))
        elif res[0] == "rule":
            _, c, i, r = res
            d.nat.append((hook.lower(), r.target, nat.t.file_no[c][i], r))

    def filter_hook(hook):
        if filt is None or not filt.entered(hook):
            return None
        res = filt.walk(hook)
        if res[0] == "policy":
            return hook.lower(), "accept" if res[2] == "ACCEPT" else "drop", None
        _, c, i, r = res
        return hook.lower(), "accept" if r.target == "ACCEPT" else "drop", filt.t.file_no[c][i]

    # Raw, mangle and security: a walk per hook their counters show the packet met.
    for name in DROP_TABLES:
        w = walks.get(name)
        for hook in BUILTIN[name] if w is not None else ():
            if not w.entered(hook):
                continue
            res = w.walk(hook)
            if res[0] == "policy" and res[2] != "ACCEPT":
                drops.append((hook.lower(), None))
            elif res[0] == "rule" and res[3].target != "ACCEPT":
                drops.append((hook.lower(), w.t.file_no[res[1]][res[2]]))
    if from_fw:
        nat_stage("OUTPUT")
        out = filter_hook("OUTPUT")
        res = out
        if out is not None and out[1] == "accept":
            nat_stage("POSTROUTING")
            inp = filter_hook("INPUT")
            if inp is not None:
                res = inp
                d.local_in = inp[1] == "accept"
                d.looped = True
    else:
        nat_stage("PREROUTING")
        inp, fwd = filter_hook("INPUT"), filter_hook("FORWARD")
        if inp is not None and fwd is not None:
            d.error = "both INPUT and FORWARD counters moved"
            return d
        res = inp or fwd
        if res is not None and res[1] == "accept":
            nat_stage("INPUT" if inp else "POSTROUTING")
            d.local_in = inp is not None
    if len(drops) > 1:
        d.error = "dropped twice? %s" % drops
        return d
    if drops:
        if res is not None and res[1] == "drop":
            d.error = "dropped by filter and by %s" % drops[0][0]
            return d
        res = (drops[0][0], "drop", drops[0][1])
    if res is None:
        d.error = "no filter counter moved (packet lost before the filter table?)"
        return d
    d.hook, d.verdict, d.rule = res
    bad = [b for w in walks.values() for b in w.unexplained()]
    if bad:
        d.error = "counters the walk cannot explain: " + "; ".join(bad)
    return d


def nat_text(stage, action, num, r):
    s = " %s %s rule=%d" % (stage, action.lower(), num)
    if action in ("DNAT", "SNAT"):
        spec = r.targs.get("--to-destination" if action == "DNAT" else "--to-source", "")
        s += " to=" + fmt_nat_spec(*parse_nat_spec(spec))
    elif action in ("MASQUERADE", "REDIRECT") and r.targs.get("--to-ports"):
        s += " ports=" + fmt_ports(*parse_to_ports(r.targs["--to-ports"]))
    return s


def check_delivery(p, d, seen, family, locals_):
    """Does what arrived agree with the decision? None, or the problem."""
    if d.verdict == "drop":
        return "dropped by the counters, yet delivered" if seen else None
    if seen is None:
        return "accepted by the counters, never delivered"
    where, tup = seen
    if tup is None:
        return "delivered packet unreadable"
    if (where == "local") != d.local_in:
        return "delivered %s, expected %s" % (where, "local" if d.local_in else "right")
    src, dst, proto, sport, dport = tup
    want = {"src": (p.src, p.sport), "dst": (p.dst, p.dport)}
    for stage, action, _, r in d.nat:
        if action in ("DNAT", "SNAT"):
            side = "dst" if action == "DNAT" else "src"
            spec = r.targs.get("--to-destination" if side == "dst" else "--to-source", "")
            want[side] = parse_nat_spec(spec)
            if want[side][0] is None:  # port only: the address kept
                orig = p.dst if side == "dst" else p.src
                want[side] = (orig, orig) + want[side][2:]
        elif action == "MASQUERADE":
            lo, hi = parse_to_ports(r.targs["--to-ports"]) if r.targs.get("--to-ports") else (0, 0)
            if where == "right":
                a = ipaddress.ip_address(WAN[family][0])
                want["src"] = (a, a, lo, hi)
            elif not (src.is_loopback or src in locals_):
                # Out through lo: an address of the firewall's own.
                return "masqueraded to %s, not a local address" % src
            else:
                want["src"] = None
        elif action == "REDIRECT":
            want["dst"] = None
        elif action == "NETMAP":
            # The target's prefix, the address's own host bits.
            side = "dst" if stage in ("prerouting", "output") else "src"
            net = ipaddress.ip_network(r.targs.get("--to", ""), strict=False)
            orig = p.dst if side == "dst" else p.src
            host = int(orig) & int(net.hostmask)
            a = ipaddress.ip_address(int(net.network_address) | host)
            want[side] = (a, p.dport if side == "dst" else p.sport)
    for side, got in (("src", (src, sport)), ("dst", (dst, dport))):
        w = want[side]
        if w is None:
            continue
        if len(w) == 2:
            ok = got[0] == w[0] and (proto not in PORT_PROTOS or got[1] == w[1])
        else:
            orig = p.src if side == "src" else p.dst
            orig_port = p.sport if side == "src" else p.dport
            ok = w[0] <= got[0] <= w[1] and got[0].version == orig.version
            if proto in PORT_PROTOS:
                ok = ok and (w[2] <= got[1] <= w[3] if w[2] else got[1] == orig_port)
        if not ok:
            return "delivered with %s %s:%d, not as the NAT decision says" % (side, got[0],
                                                                               got[1])
    return None


def run_packet(lab, p, locals_, family_tables, verbose):
    from_fw = p.src in locals_ and not p.forged
    # "keep-conntrack" lists keep the connections the packets before made
    # (connlimit counts them); the first packet still starts from none.
    if p.n == 1 or not getattr(p, "keep_ct", False):
        lab.ct_flush()
    lab.drain()

    def snap():
        k = lab.snapshot(p.family)
        for name, t in family_tables[p.family].items():
            if name in k:
                k[name].file_no = t.file_no
        return k

    before = snap()
    lab.seq += 1
    tag = MAGIC + struct.pack("!I", (os.getpid() << 16 ^ lab.seq) & 0xFFFFFFFF)
    if p.proto == 132:
        tag = tag[4:] + MAGIC
    lab.send(p, from_fw, tag)
    seen = None
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        seen = lab.observe(tag, 0.005)
        if seen is not None:
            break
        d = decide(p, from_fw, locals_, before, snap())
        if d.error is None and d.verdict == "drop":
            break
    after = snap()
    d = decide(p, from_fw, locals_, before, after)
    if d.error is None and d.verdict == "accept" and seen is None:
        seen = lab.observe(tag, 1.0)
    if d.error is None:
        d.error = check_delivery(p, d, seen, p.family, locals_)
    if verbose:
        log("packet %d: %s %s -> %s seen=%s" % (p.n, p.name(), p.src, p.dst, seen))
    # Its counts (counter_lines()), a packet from the firewall to itself's
    # included (POSTROUTING, then raw and mangle PREROUTING on lo, INPUT).
    counted = (before, after) if d.error is None else None
    if d.error is not None:
        return "%d error %s" % (p.n, d.error), counted
    line = "%d %s %s %s" % (p.n, d.hook, d.verdict,
                            "policy" if d.rule is None else "rule=%d" % d.rule)
    for nat in d.nat:
        line += nat_text(*nat)
    return line, counted


def counter_lines(deltas, tables):
    """What the packets added to the file's counters (iptables-save -c after
    each, less before it; @deltas: the (before, after) snapshots of those
    counted), the ones that moved: "counters TABLE rule N P B" per rule line
    of the file (N: its number among the file's rule lines), "counters TABLE
    policy CHAIN P B" per built-in chain, sorted."""
    per_line, per_chain = {}, {}
    for before, after in deltas:
        for name, t in tables.items():
            a, b = after.get(name), before.get(name)
            if a is None or b is None:
                continue
            for c, nos in t.file_no.items():
                ar, br = a.rules.get(c, []), b.rules.get(c, [])
                if len(ar) != len(nos) or len(br) != len(nos):
                    raise OracleError("table %s chain %s: the kernel's rules are not the "
                                      "file's" % (name, c))
                for no, x, y in zip(nos, ar, br):
                    pk, by = per_line.get((name, no), (0, 0))
                    per_line[(name, no)] = (pk + x.pkts - y.pkts, by + x.bytes - y.bytes)
            for c in BUILTIN.get(name, ()):
                if c in a.chains and c in b.chains:
                    pk, by = per_chain.get((name, c), (0, 0))
                    per_chain[(name, c)] = (pk + a.chains[c][1] - b.chains[c][1],
                                            by + a.chains[c][2] - b.chains[c][2])
    out = ["counters %s rule %d %d %d" % (name, no, pk, by)
           for (name, no), (pk, by) in per_line.items() if pk or by]
    out += ["counters %s policy %s %d %d" % (name, c, pk, by)
            for (name, c), (pk, by) in per_chain.items() if pk or by]
    return sorted(out)


def cmd_run(args):
    with open(args.rules, encoding="utf-8") as f:
        text = f.read()
    tables = parse_save(text, args.rules)
    for name in tables:
        if name not in BUILTIN:
            raise OracleError("%s: table %s is not supported" % (args.rules, name))
    family = args.family or detect_family(text)
    locals_, pkts = parse_packets(args.packets)
    if os.geteuid() != 0:
        raise SkipError("needs root (network namespaces, iptables)")
    for cmd in ("ip", "iptables-restore", "iptables-save", "ip6tables-restore",
                "ip6tables-save"):
        if not any(os.access(os.path.join(d, tool(cmd)), os.X_OK)
                   for d in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/sbin"]):
            raise SkipError("%s not found" % tool(cmd))
    protos = {(p.family, p.proto) for p in pkts}
    lab = Lab(args.tag or str(os.getpid()), args.verbose)
    rc = 0
    t0 = time.monotonic()
    try:
        lab.setup(locals_, protos)
        if args.ipset:
            # The sets first: iptables-restore refuses a rule naming one not there.
            with open(args.ipset, encoding="utf-8") as f:
                sh(["ipset", "restore"], ns=lab.fw, stdin=f.read())
        lab.restore(family, strip_counters(text), skeleton(tables))
        # The kernel's view must be the file's, rule for rule.
        for fam in (4, 6):
            k = lab.snapshot(fam)
            want = tables if fam == family else parse_save(skeleton(tables))
            for name, t in want.items():
                if name not in BUILTIN:
                    continue
                kt = k.get(name)
                for c, rules in t.rules.items():
                    if kt is None or len(kt.rules.get(c, [])) != len(rules):
                        raise OracleError("%s: the kernel's %s %s has other rules than the file"
                                          % (args.rules, name, c))
        family_tables = {family: tables, 10 - family: parse_save(skeleton(tables))}
        deltas = []
        for p in pkts:
            line, counted = run_packet(lab, p, locals_, family_tables, args.verbose)
            if " error " in line:
                rc = 1
                log("%s:%d: %s" % (args.packets, p.lineno, line))
            print(line, flush=True)
            if counted is not None and p.family == family:
                deltas.append(counted)
        for line in counter_lines(deltas, tables):
            print(line, flush=True)
    finally:
        lab.close()
    if args.verbose:
        log("%d packets in %.1f s" % (len(pkts), time.monotonic() - t0))
    return rc


# --------------------------------------------------------------------------
# Conversations (commands "conv" and "frames"): whole TCP connections
# --------------------------------------------------------------------------
#
# A conversation list holds whole TCP connections, segment by segment, in
# both directions, stray and out-of-window segments included. "conv" sends
# them through the firewall namespace, which forwards between a client on
# the left and a server on the right under a fixed rule set that shows the
# ctstate of every segment in its counters:
#
#   -A FORWARD -m conntrack --ctstate INVALID -j DROP       (invalid)
#   -A FORWARD -m conntrack --ctstate NEW -j ACCEPT         (new)
#   -A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT (established)
#   -A FORWARD -m conntrack --ctstate RELATED -j ACCEPT     (related)
#   policy DROP                                             (untracked)
#
# and prints, per segment, its ctstate, the verdict and the TCP state of
# the connection's conntrack entry afterwards ("-" if there is none), read
# with ctnetlink. Conntrack is flushed at the start of each conversation
# only, so a conversation's segments meet the state its earlier segments
# left. "frames" prints the same segments as Ethernet frames in hex, for
# gufc's side of the comparison (tests/integration/netfilter/ct_eval.c).
#
# Conversation list format ('#' starts a comment):
#   conv NAME CLIENT:PORT -> SERVER:PORT [isn=C,S] [loose=0|1] [be_liberal=0|1]
#        [max_retrans=N] [timeout_established=SECONDS]
#   > FLAGS seq=E [ack=E] [win=N] [len=N] [mss=N] [wscale=N] [sackperm] [ts]
#          [sack=E-E[,E-E...]]
#   < FLAGS ...
#   wait SECONDS
# '>' is a segment from the client, '<' one from the server. FLAGS are
# letters of FSRPAUEC, or "-" for none. E is a number, or c, s (the
# client's and the server's initial sequence numbers from isn=, default
# 1000 and 5000) with an optional +N or -N, modulo 2^32. ack defaults to 0,
# win to 65535, len (payload bytes) to 0. The settings after the addresses
# are the conntrack sysctls of that conversation (Linux's defaults
# otherwise). "wait N" (1..30) lets N seconds pass before the next segment
# (the real time on Linux's side; "frames" writes the line on, for
# ct_eval's clock): with a short timeout_established, a connection can
# expire within a conversation. IPv6 addresses in brackets, as in packet lists.
#
# SCTP associations: "conv NAME CLIENT:PORT -> SERVER:PORT proto=sctp",
# then one line per packet:
#   > VTAG CHUNK [CHUNK...]
# VTAG the common header's verification tag (a number); CHUNK one of
# init:TAG, initack:TAG (with that Initiate Tag), cookie, cookieack, data,
# sack, hb, hback, abort, abort:t, shutdown, shutdownack, shutcomp,
# shutcomp:t (T bit set), error, type:N (type N, 4 bytes of value), zero:N
# (type N, length 0), bundled in that order, then optionally "crc=bad"
# (the packet's CRC32c sent wrong: one bit off). STATE is then the SCTP
# state.
#
# NAT (TCP or SCTP): "nat=dnat:ADDR:PORT" adds, for that conversation,
# "-t nat -A PREROUTING -p P -d SERVER --dport SPORT -j DNAT
# --to-destination ADDR:PORT"; "nat=snat:ADDR:PORT" a POSTROUTING SNAT of
# the client's packets to ADDR:PORT; "nat=masq:PORT" a POSTROUTING
# MASQUERADE --to-ports PORT (to r0's address); dnat and one of the others
# may be given together. The server's packets ('<') are then sent as the
# server sees the connection: from the DNAT target, to the SNAT or
# masquerade address and port; every forwarded packet is found by its IP
# id (flow label), and its line gets what it carried after NAT:
#   N DIR CTSTATE VERDICT STATE to=SRC:SPORT>DST:DPORT
# with " crc=bad" after it for an SCTP packet whose CRC32c is wrong.
# "invalid=accept" makes the INVALID rule ACCEPT for that conversation
# (VERDICT "accept" with CTSTATE "invalid"): Linux forwards such a packet
# untranslated, its connection being none. "connbytes=FROM:[TO],DIR,MODE"
# (DIR original, reply or both; MODE packets, bytes or avgpkt) adds
# "-m connbytes --connbytes FROM:[TO] --connbytes-dir DIR --connbytes-mode
# MODE" to the ESTABLISHED rule: an established segment out of that range
# meets the policy (CTSTATE "untracked", VERDICT "drop"), so the lines
# show what the connection's counters (nf_conntrack_acct) were then.
#
# Output, one line per segment, numbered from 1 over the whole list:
#   N DIR CTSTATE VERDICT STATE
# e.g. "3 > established accept ESTABLISHED"; "N error MESSAGE" when the
# kernel's answer could not be read.

CONV_CTSTATES = {1: "invalid", 2: "new", 3: "established", 4: "related"}
TCP_CT_STATES = ("NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT", "CLOSE_WAIT",
                 "LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2")
CONV_SYSCTLS = {"loose": ("nf_conntrack_tcp_loose", 1),
                "be_liberal": ("nf_conntrack_tcp_be_liberal", 0),
                "max_retrans": ("nf_conntrack_tcp_max_retrans", 3),
                "timeout_established": ("nf_conntrack_tcp_timeout_established", 432000)}


def conv_rules():
    """The fixed rule set of "conv", for both families."""
    return ("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
            "-A FORWARD -m conntrack --ctstate INVALID -j DROP\n"
            "-A FORWARD -m conntrack --ctstate NEW -j ACCEPT\n"
            "-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
            "-A FORWARD -m conntrack --ctstate RELATED -j ACCEPT\nCOMMIT\n")


class Segment:
    """One TCP segment of a conversation."""

    def __init__(self, n, lineno, frm_client):
        self.n = n
        self.lineno = lineno
        self.frm_client = frm_client
        self.flags = ""
        self.seq = 0
        self.ack = 0
        self.win = 65535
        self.dlen = 0
        self.opts = b""
        self.bad_crc = False  # SCTP: its CRC32c sent wrong ("crc=bad")
        self.wait = 0         # seconds to wait before sending it ("wait N" lines)


# SCTP chunks of a conversation's packets, by name: (type, flags, value bytes).
# init:TAG and initack:TAG carry an INIT's fixed part with that Initiate
# Tag; :t sets ABORT's and SHUTDOWN COMPLETE's T bit; type:N is a chunk of
# type N with 4 bytes of value, zero:N one of type N and length 0.
SCTP_CHUNKS = {"data": 0, "init": 1, "initack": 2, "sack": 3, "hb": 4, "hback": 5,
               "abort": 6, "shutdown": 7, "shutdownack": 8, "error": 9, "cookie": 10,
               "cookieack": 11, "shutcomp": 14}
SCTP_CT_STATES = ("NONE", "CLOSED", "COOKIE_WAIT", "COOKIE_ECHOED", "ESTABLISHED",
                  "SHUTDOWN_SENT", "SHUTDOWN_RECD", "SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT")


def sctp_chunk(text, n, where):
    """The bytes of one chunk of an SCTP conversation line (see SCTP_CHUNKS)."""
    name, _, arg = text.partition(":")
    try:
        if name == "type":
            return struct.pack("!BBHI", int(arg, 0) & 0xFF, 0, 8, n)
        if name == "zero":
            return struct.pack("!BBHI", int(arg, 0) & 0xFF, 0, 0, n)
        typ = SCTP_CHUNKS[name]
        if typ in (1, 2):
            # Initiate Tag, a_rwnd, streams out and in, initial TSN.
            return struct.pack("!BBHIIHHI", typ, 0, 20, int(arg, 0) & 0xFFFFFFFF, 65536, 1, 1,
                               0x1000 + n)
        if arg not in ("", "t") or (arg == "t" and typ not in (6, 14)):
            raise ValueError
        fl = 1 if arg == "t" else 0
        if typ in (6, 11, 14):
            return struct.pack("!BBH", typ, fl, 4)
        if typ == 0:
            # TSN, stream, sequence, payload protocol, 4 bytes of data.
            return struct.pack("!BBHIHHII", 0, 3, 20, 0x1000 + n, 0, n & 0xFFFF, 0, n)
        if typ == 3:
            return struct.pack("!BBHIIHH", 3, 0, 16, 0x1000 + n, 65536, 0, 0)
        return struct.pack("!BBHI", typ, fl, 8, n)
    except (KeyError, ValueError):
        raise OracleError("%s: bad SCTP chunk %r" % (where, text)) from None


class Conversation:
    def __init__(self, name, lineno):
        self.name = name
        self.lineno = lineno
        self.proto = 6      # or 132: SCTP (proto=sctp)
        self.client = None  # (ip, port)
        self.server = None
        self.isn = (1000, 5000)
        self.sysctl = {k: v[1] for k, v in CONV_SYSCTLS.items()}
        self.segs = []
        self.nat = {}       # "dnat" / "snat": (ip, port); "masq": (WAN address, port)
        self.invalid_accept = False  # invalid=accept: the INVALID rule accepts
        self.connbytes = None  # connbytes=RANGE,DIR,MODE: the ESTABLISHED rule's connbytes
        self.wait = 0       # "wait N" lines not yet given to a segment

    def family(self):
        return self.client[0].version

    def seen_by_server(self):
        """(client, server) as the server sees them, after NAT."""
        cli = self.nat.get("snat") or self.nat.get("masq") or self.client
        return cli, self.nat.get("dnat") or self.server


def parse_conv_connbytes(val, where):
    """connbytes=FROM:[TO],DIR,MODE: (from, to or None, dir, mode)."""
    w = val.split(",")
    rng = w[0].partition(":") if w else ("", "", "")
    if (len(w) != 3 or not rng[0].isdigit() or rng[1] != ":" or
            not (rng[2] == "" or rng[2].isdigit()) or
            w[1] not in ("original", "reply", "both") or
            w[2] not in ("packets", "bytes", "avgpkt")):
        raise OracleError("%s: bad connbytes=%s (FROM:[TO],original|reply|both,"
                          "packets|bytes|avgpkt)" % (where, val))
    return (int(rng[0]), int(rng[2]) if rng[2] else None, w[1], w[2])


def conv_number(text, conv, where):
    """E: a number, or c/s with +N/-N."""
    base, rest = 0, text
    if text[:1] in ("c", "s"):
        base = conv.isn[0] if text[0] == "c" else conv.isn[1]
        rest = text[1:]
        if rest and rest[0] not in "+-":
            raise OracleError("%s: bad number %r" % (where, text))
    try:
        return (base + (int(rest, 0) if rest else 0)) & 0xFFFFFFFF
    except ValueError:
        raise OracleError("%s: bad number %r" % (where, text)) from None


def tcp_options(seg_opts):
    """TCP option bytes (padded with NOPs to 4) of [(kind, value)]."""
    out = b""
    for kind, val in seg_opts:
        if kind == "mss":
            out += struct.pack("!BBH", 2, 4, val)
        elif kind == "sackperm":
            out += b"\x04\x02"
        elif kind == "wscale":
            out += b"\x01" + struct.pack("!BBB", 3, 3, val)
        elif kind == "ts":
            out += b"\x01\x01" + struct.pack("!BBII", 8, 10, val, 0)
        elif kind == "sack":
            out += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * len(val))
            for lo, hi in val:
                out += struct.pack("!II", lo, hi)
    while len(out) % 4:
        out += b"\x01"
    if len(out) > 40:
        raise OracleError("TCP options longer than 40 bytes")
    return out


def parse_conv(path):
    """Read a conversation list: [Conversation]."""
    convs, cur, n = [], None, 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for lineno, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, lineno)
        w = raw.split("#", 1)[0].split()
        if not w:
            continue
        if w[0] == "conv":
            if len(w) < 5 or w[3] != "->":
                raise OracleError("%s: expected 'conv NAME CLIENT:PORT -> SERVER:PORT'" % where)
            cur = Conversation(w[1], lineno)
            cur.client = parse_endpoint(w[2], True, where)
            cur.server = parse_endpoint(w[4], True, where)
            if cur.client[0].version != cur.server[0].version:
                raise OracleError("%s: addresses of two families" % where)
            for opt in w[5:]:
                key, _, val = opt.partition("=")
                if key == "isn" and val.count(",") == 1:
                    try:
                        cur.isn = tuple(int(x, 0) & 0xFFFFFFFF for x in val.split(","))
                    except ValueError:
                        raise OracleError("%s: bad isn %r" % (where, val)) from None
                elif key in CONV_SYSCTLS and val.isdigit():
                    cur.sysctl[key] = int(val)
                elif key == "proto" and val == "sctp":
                    cur.proto = 132
                elif key == "invalid" and val == "accept":
                    cur.invalid_accept = True
                elif key == "connbytes":
                    cur.connbytes = parse_conv_connbytes(val, where)
                elif key == "nat" and val.partition(":")[0] in ("dnat", "snat", "masq"):
                    kind, _, spec = val.partition(":")
                    if kind in cur.nat or (kind != "dnat" and ("snat" in cur.nat or
                                                              "masq" in cur.nat)):
                        raise OracleError("%s: %s given twice" % (where, opt))
                    if kind == "masq":
                        if not spec.isdigit() or not 0 < int(spec) < 65536:
                            raise OracleError("%s: bad port in %r" % (where, opt))
                        wan = ipaddress.ip_address(WAN[cur.family()][0])
                        cur.nat[kind] = (wan, int(spec))
                    else:
                        ep = parse_endpoint(spec, True, where)
                        if ep[0].version != cur.family():
                            raise OracleError("%s: %r: another family" % (where, opt))
                        cur.nat[kind] = ep
                else:
                    raise OracleError("%s: unknown option %r" % (where, opt))
            convs.append(cur)
            continue
        if w[0] == "wait":
            # "wait N": N seconds (1..30) pass before the next segment.
            if cur is None or len(w) != 2 or not w[1].isdigit() or not 0 < int(w[1]) <= 30:
                raise OracleError("%s: expected 'wait SECONDS' (1..30) in a conversation"
                                  % where)
            cur.wait += int(w[1])
            continue
        if w[0] not in (">", "<"):
            raise OracleError("%s: expected 'conv', '>', '<' or 'wait'" % where)
        if cur is None:
            raise OracleError("%s: segment before any 'conv' line" % where)
        if cur.proto == 132:
            # "> VTAG CHUNK..." (SCTP_CHUNKS): the common header's tag, the chunks.
            if len(w) < 3:
                raise OracleError("%s: expected '> VTAG CHUNK...'" % where)
            n += 1
            s = Segment(n, lineno, w[0] == ">")
            s.seq = conv_number(w[1], cur, where)
            # "crc=bad" after the chunks: the packet's CRC32c sent wrong.
            s.bad_crc = w[-1] == "crc=bad"
            chunks = w[2:-1] if s.bad_crc else w[2:]
            if not chunks:
                raise OracleError("%s: expected '> VTAG CHUNK...'" % where)
            s.opts = b"".join(sctp_chunk(t, n, where) for t in chunks)
            s.wait, cur.wait = cur.wait, 0
            cur.segs.append(s)
            continue
        if len(w) < 2 or (w[1] != "-" and any(c not in "FSRPAUEC" for c in w[1])):
            raise OracleError("%s: bad TCP flags" % where)
        n += 1
        s = Segment(n, lineno, w[0] == ">")
        s.flags = "" if w[1] == "-" else w[1]
        opts, seen = [], set()
        for opt in w[2:]:
            key, _, val = opt.partition("=")
            if key in seen:
                raise OracleError("%s: %s given twice" % (where, key))
            seen.add(key)
            if key in ("seq", "ack"):
                setattr(s, key, conv_number(val, cur, where))
            elif key in ("win", "len", "mss", "wscale"):
                if not val.isdigit():
                    raise OracleError("%s: bad %s %r" % (where, key, val))
                v = int(val)
                lim = {"win": 65535, "len": 1400, "mss": 65535, "wscale": 255}[key]
                if v > lim:
                    raise OracleError("%s: %s above %d" % (where, key, lim))
                if key == "win":
                    s.win = v
                elif key == "len":
                    s.dlen = v
                else:
                    opts.append((key, v))
            elif key in ("sackperm", "ts") and not val:
                opts.append((key, 1 + s.n))
            elif key == "sack" and val:
                blocks = []
                for b in val.split(","):
                    lo, _, hi = b.partition("-")
                    blocks.append((conv_number(lo, cur, where), conv_number(hi, cur, where)))
                if len(blocks) > 3:
                    raise OracleError("%s: at most 3 SACK blocks" % where)
                opts.append(("sack", blocks))
            else:
                raise OracleError("%s: unknown option %r" % (where, opt))
        if "seq" not in seen:
            raise OracleError("%s: seq= missing" % where)
        s.opts = tcp_options(opts)
        s.wait, cur.wait = cur.wait, 0
        cur.segs.append(s)
    return convs


def conv_frame(conv, s):
    """The Ethernet frame of segment @s, as its sender puts it on the wire."""
    cli, srv = conv.seen_by_server()
    src, dst = (conv.client, conv.server) if s.frm_client else (srv, cli)
    fam = conv.family()
    if conv.proto == 132:
        # SCTP: seq is the verification tag, opts the chunks.
        tcp = struct.pack("!HHII", src[1], dst[1], s.seq, 0) + s.opts
        crc = crc32c(tcp) ^ (0x80000000 if s.bad_crc else 0)
        tcp = tcp[:8] + struct.pack("<I", crc) + tcp[12:]
    else:
        fl = sum(1 << "FSRPAUEC".index(c) for c in set(s.flags))
        hlen = 20 + len(s.opts)
        payload = bytes((s.n + i) & 0xFF for i in range(s.dlen))
        tcp = struct.pack("!HHIIHHHH", src[1], dst[1], s.seq, s.ack, (hlen // 4) << 12 | fl,
                          s.win, 0, 0) + s.opts + payload
        if fam == 4:
            pseudo = src[0].packed + dst[0].packed + struct.pack("!BBH", 0, 6, len(tcp))
        else:
            pseudo = src[0].packed + dst[0].packed + struct.pack("!IxxxB", len(tcp), 6)
        c = csum16(pseudo + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    if fam == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), s.n & 0xFFFF, 0x4000, 64,
                         conv.proto, 0, src[0].packed, dst[0].packed)
        ip = ip[:10] + struct.pack("!H", csum16(ip)) + ip[12:]
        et = b"\x08\x00"
    else:
        ip = struct.pack("!IHBB16s16s", 0x60000000 | (s.n & 0xFFFFF), len(tcp), conv.proto, 64,
                         src[0].packed, dst[0].packed)
        et = b"\x86\xdd"
    macs = MAC_FW_L + MAC_L if s.frm_client else MAC_FW_R + MAC_R
    return macs + et + ip + tcp


def conv_seen(frame, conv, s):
    """Is @frame segment @s, forwarded (its IP id or flow label, addresses, ports)?
    With NAT, only its IP id or flow label: what it carries is conv_nat_text()'s."""
    if len(frame) < 14 + 24:  # an SCTP packet of one short chunk is 36 bytes of IPv4
        return False
    src, dst = (conv.client, conv.server) if s.frm_client else (conv.server, conv.client)
    d = frame[14:]
    if conv.family() == 4:
        if frame[12:14] != b"\x08\x00" or d[0] != 0x45 or d[9] != conv.proto:
            return False
        ident = struct.unpack("!H", d[4:6])[0]
        ok = ident == s.n & 0xFFFF and d[12:16] == src[0].packed and d[16:20] == dst[0].packed
        t = d[20:]
    else:
        if len(d) < 44 or frame[12:14] != b"\x86\xdd" or d[0] >> 4 != 6 or d[6] != conv.proto:
            return False
        label = struct.unpack("!I", d[0:4])[0] & 0xFFFFF
        ok = label == s.n & 0xFFFFF and d[8:24] == src[0].packed and d[24:40] == dst[0].packed
        t = d[40:]
    if conv.nat:
        return (ident == s.n & 0xFFFF if conv.family() == 4 else label == s.n & 0xFFFFF) \
            and len(t) >= 4
    return ok and len(t) >= 4 and struct.unpack("!HH", t[:4]) == (src[1], dst[1])


def conv_nat_text(frame, conv):
    """' to=SRC:SPORT>DST:DPORT' of a forwarded frame, ' crc=bad' after it for
    an SCTP packet whose CRC32c is wrong (netfilter-oracle's NAT conversations)."""
    d = frame[14:]
    if conv.family() == 4:
        ln = struct.unpack("!H", d[2:4])[0]
        src, dst, t = ipaddress.ip_address(d[12:16]), ipaddress.ip_address(d[16:20]), d[20:ln]
        fmt = "%s:%d"
    else:
        ln = struct.unpack("!H", d[4:6])[0]
        src, dst, t = ipaddress.ip_address(d[8:24]), ipaddress.ip_address(d[24:40]), d[40:40 + ln]
        fmt = "[%s]:%d"
    sp, dp = struct.unpack("!HH", t[:4])
    out = " to=" + fmt % (src, sp) + ">" + fmt % (dst, dp)
    if conv.proto == 132 and (len(t) < 12 or
                              crc32c(t[:8] + b"\0\0\0\0" + t[12:]) !=
                              struct.unpack("<I", t[8:12])[0]):
        out += " crc=bad"
    return out


def nla_walk(data):
    """Netlink attributes of @data: [(type without flags, payload)]."""
    out, off = [], 0
    while off + 4 <= len(data):
        ln, typ = struct.unpack_from("=HH", data, off)
        if ln < 4:
            break
        out.append((typ & 0x3FFF, data[off + 4:off + ln]))
        off += (ln + 3) & ~3
    return out


def ct_entry(attrs):
    """(src, dst, proto, sport, dport, tcp state name or None) of a ctnetlink entry."""
    src = dst = None
    proto = sport = dport = 0
    state = None
    for typ, val in attrs:
        if typ == 1:  # CTA_TUPLE_ORIG
            for t2, v2 in nla_walk(val):
                if t2 == 1:  # CTA_TUPLE_IP
                    for t3, v3 in nla_walk(v2):
                        if t3 in (1, 3):
                            src = ipaddress.ip_address(v3)
                        elif t3 in (2, 4):
                            dst = ipaddress.ip_address(v3)
                elif t2 == 2:  # CTA_TUPLE_PROTO
                    for t3, v3 in nla_walk(v2):
                        if t3 == 1:
                            proto = v3[0]
                        elif t3 == 2:
                            sport = struct.unpack("!H", v3[:2])[0]
                        elif t3 == 3:
                            dport = struct.unpack("!H", v3[:2])[0]
        elif typ == 4:  # CTA_PROTOINFO
            for t2, v2 in nla_walk(val):
                if t2 in (1, 3):  # CTA_PROTOINFO_TCP, CTA_PROTOINFO_SCTP
                    names = TCP_CT_STATES if t2 == 1 else SCTP_CT_STATES
                    for t3, v3 in nla_walk(v2):
                        if t3 == 1 and v3:
                            state = names[v3[0]] if v3[0] < len(names) else "?"
    return src, dst, proto, sport, dport, state


def ct_dump(lab, family):
    """The firewall's conntrack entries of @family (ctnetlink dump)."""
    lab.seq += 1
    af = socket.AF_INET if family == 4 else socket.AF_INET6
    lab.nl.send(struct.pack("=IHHII", 20, 1 << 8 | 1, 1 | 0x300, lab.seq, 0) +
                struct.pack("!BBH", af, 0, 0))
    out = []
    while True:
        data = lab.nl.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            ln, typ, _, seq, _ = struct.unpack_from("=IHHII", data, off)
            if ln < 16:
                return out
            if seq == lab.seq:
                if typ == 3:  # NLMSG_DONE
                    return out
                if typ == 2:  # NLMSG_ERROR
                    err = struct.unpack_from("=i", data, off + 16)[0]
                    if err:
                        raise OracleError("conntrack dump failed: %s" % os.strerror(-err))
                    return out
                out.append(ct_entry(nla_walk(data[off + 20:off + ln])))
            off += (ln + 3) & ~3


def conv_state(lab, conv):
    """TCP state of the conversation's entry (either orientation), or '-'."""
    ends = {conv.client, conv.server}
    for src, dst, proto, sport, dport, state in ct_dump(lab, conv.family()):
        if proto == conv.proto and {(src, sport), (dst, dport)} == ends:
            return state or "?"
    return "-"


class ConvLab:
    """The lab of "conv": sockets on both hosts, routes back to the clients."""

    def __init__(self, lab, convs):
        self.lab = lab
        fw = lab.fw
        mac = ":".join("%02x" % x for x in MAC_L)
        for a in sorted({c.client[0] for c in convs}, key=lambda a: (a.version, a)):
            sh("ip -n %s -%d route replace %s/%d dev l0" % (fw, a.version, a, a.max_prefixlen))
            sh("ip -n %s -%d neigh replace %s lladdr %s dev l0 nud permanent"
               % (fw, a.version, a, mac))
        self.inject, self.sniff = {}, {}
        for side, ns, dev in (("left", lab.left, "l1"), ("right", lab.right, "r1")):
            with InNetns(ns):
                i = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
                i.bind((dev, 0))
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
                s.bind((dev, 0))
                s.setblocking(False)
            lab.socks += [i, s]
            self.inject[side], self.sniff[side] = i, s
        sh(["iptables-restore"], ns=fw, stdin=conv_rules())
        sh(["ip6tables-restore"], ns=fw, stdin=conv_rules())
        for ipt in ("iptables", "ip6tables"):
            sh("%s -t mangle -A OUTPUT -m mark ! --mark %d -j DROP" % (ipt, MARK), ns=fw)

    def drain(self):
        for s in self.sniff.values():
            try:
                while True:
                    s.recv(65536)
            except BlockingIOError:
                pass

    def counters(self, family):
        t = parse_save(self.lab.save(family)).get("filter")
        if t is None or len(t.rules.get("FORWARD", [])) != 4:
            raise OracleError("the kernel's FORWARD chain is not the conv rule set")
        return [r.pkts for r in t.rules["FORWARD"]] + [t.chains["FORWARD"][1]]

    def seen(self, conv, s, timeout):
        """Wait up to @timeout s for segment @s on the far side: its frame, or None."""
        sock = self.sniff["right" if s.frm_client else "left"]
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select([sock], [], [], max(left, 0))
            if r:
                try:
                    while True:
                        data, addr = sock.recvfrom(65536)
                        if addr[2] != socket.PACKET_OUTGOING and conv_seen(data, conv, s):
                            return data
                except BlockingIOError:
                    pass
            if left <= 0:
                return None

    def segment(self, conv, s):
        """Send segment @s; its output line."""
        fam = conv.family()
        self.drain()
        before = self.counters(fam)
        self.inject["left" if s.frm_client else "right"].send(conv_frame(conv, s))
        seen, deadline, delta = None, time.monotonic() + 2.0, None
        while time.monotonic() < deadline:
            seen = self.seen(conv, s, 0.01)
            delta = [a - b for a, b in zip(self.counters(fam), before)]
            if seen or delta[0] or delta[4]:
                break
        if seen and not any(delta[1:4]):
            delta = [a - b for a, b in zip(self.counters(fam), before)]
        hit = [i for i, d in enumerate(delta) if d]
        d = ">" if s.frm_client else "<"
        if len(hit) != 1 or delta[hit[0]] != 1:
            return "%d error counters moved %s" % (s.n, delta)
        rule = hit[0] + 1
        verdict = "accept" if rule in (2, 3, 4) or (rule == 1 and conv.invalid_accept) \
            else "drop"
        if (verdict == "accept") != (seen is not None):
            if verdict == "accept":
                seen = self.seen(conv, s, 1.0)
            if (verdict == "accept") != (seen is not None):
                return "%d error verdict %s but %s" % (s.n, verdict,
                                                       "forwarded" if seen else "not forwarded")
        cs = CONV_CTSTATES.get(rule, "untracked")
        return "%d %s %s %s %s%s" % (s.n, d, cs, verdict, conv_state(self.lab, conv),
                                     conv_nat_text(seen, conv) if conv.nat and seen else "")

    def nat_rules(self, conv):
        """The nat table of @conv (none when it has no nat=), its INVALID rule's target."""
        fw, fam = self.lab.fw, conv.family()
        ipt = "iptables" if fam == 4 else "ip6tables"
        sh("%s -R FORWARD 1 -m conntrack --ctstate INVALID -j %s"
           % (ipt, "ACCEPT" if conv.invalid_accept else "DROP"), ns=fw)
        cb = ""
        if conv.connbytes:
            lo, hi, cdir, mode = conv.connbytes
            cb = (" -m connbytes --connbytes %d:%s --connbytes-dir %s --connbytes-mode %s"
                  % (lo, "" if hi is None else hi, cdir, mode))
        sh("%s -R FORWARD 3 -m conntrack --ctstate ESTABLISHED%s -j ACCEPT" % (ipt, cb), ns=fw)
        sh("%s -t nat -F" % ipt, ns=fw)
        proto = "sctp" if conv.proto == 132 else "tcp"
        ep = (lambda a, p: "%s:%d" % (a, p)) if fam == 4 else (lambda a, p: "[%s]:%d" % (a, p))
        if "dnat" in conv.nat:
            sh("%s -t nat -A PREROUTING -p %s -d %s --dport %d -j DNAT --to-destination %s"
               % (ipt, proto, conv.server[0], conv.server[1], ep(*conv.nat["dnat"])), ns=fw)
        if "snat" in conv.nat:
            sh("%s -t nat -A POSTROUTING -p %s -s %s -j SNAT --to-source %s"
               % (ipt, proto, conv.client[0], ep(*conv.nat["snat"])), ns=fw)
        if "masq" in conv.nat:
            sh("%s -t nat -A POSTROUTING -p %s -o r0 -j MASQUERADE --to-ports %d"
               % (ipt, proto, conv.nat["masq"][1]), ns=fw)


def cmd_conv(args):
    convs = parse_conv(args.conv)
    if os.geteuid() != 0:
        raise SkipError("needs root (network namespaces, iptables)")
    lab = Lab(args.tag or str(os.getpid()), args.verbose)
    rc = 0
    try:
        lab.setup(set(), set())
        cl = ConvLab(lab, convs)
        for conv in convs:
            with InNetns(lab.fw):
                for key, (name, _) in CONV_SYSCTLS.items():
                    write_sysctl("net.netfilter." + name, conv.sysctl[key])
            cl.nat_rules(conv)
            lab.ct_flush()
            for s in conv.segs:
                if s.wait:
                    time.sleep(s.wait)
                line = cl.segment(conv, s)
                if " error " in line:
                    rc = 1
                    log("%s:%d: %s" % (args.conv, s.lineno, line))
                print(line, flush=True)
    finally:
        lab.close()
    return rc


def cmd_frames(args):
    for conv in parse_conv(args.conv):
        print("conv %s %s %d %s %d loose=%d be_liberal=%d max_retrans=%d%s" % (
            conv.name, conv.client[0], conv.client[1], conv.server[0], conv.server[1],
            conv.sysctl["loose"], conv.sysctl["be_liberal"], conv.sysctl["max_retrans"],
            " proto=132" if conv.proto == 132 else "") +
              (" timeout_established=%d" % conv.sysctl["timeout_established"]
               if conv.sysctl["timeout_established"] != CONV_SYSCTLS["timeout_established"][1]
               else "") +
              (" invalid=accept" if conv.invalid_accept else "") +
              (" connbytes=%d:%s,%s,%s" % (conv.connbytes[0], "" if conv.connbytes[1] is None
                                           else conv.connbytes[1], conv.connbytes[2],
                                           conv.connbytes[3]) if conv.connbytes else "") +
              "".join(" %s=%s,%d" % (k, v[0], v[1]) for k, v in sorted(conv.nat.items())))
        for s in conv.segs:
            if s.wait:
                print("wait %d" % s.wait)
            print("%d %s %s" % (s.n, ">" if s.frm_client else "<", conv_frame(conv, s).hex()))
    return 0


# --------------------------------------------------------------------------
# Random conversations (command "convgen")
# --------------------------------------------------------------------------
#
# "convgen SEED [COUNT]" writes COUNT (default 10) random conversations in
# the conversation list format, reproducible from SEED: two endpoints that
# keep the usual TCP variables (next sequence number to send, the oldest
# unacknowledged one, what they received, their window and window scale)
# exchange data and ACKs within each other's windows, with, at random,
# retransmissions, duplicate ACKs, window updates (zero windows included),
# SACK blocks, keepalives, and segments that do not fit: beyond the window,
# just past its edge, below it, ACKs of data never sent, invalid flag
# combinations, stray SYNs, RSTs in and out of window; some open mid-stream
# (pickup), some simultaneously; most close with FINs in either order.
# Segments that do not fit change nothing at the endpoints (the firewall
# drops what conntrack calls invalid).

class GenSide:
    def __init__(self, rng, isn):
        self.isn = isn
        self.nxt = isn        # next sequence number to send
        self.una = isn        # oldest not acknowledged by the peer
        self.rcv = 0          # next expected from the peer
        self.win = rng.choice((502, 509, 1024, 8192, 65535))
        self.wscale = rng.choice((None, 0, 2, 7, 9, 14))
        self.sent = []        # (seq, len) of data sent


def gen_conversation(rng, idx, family):
    """One random conversation: its lines."""
    if family == 4:
        cli, srv = "192.0.2.%d:%d" % (10 + idx % 200, 30000 + idx), "198.51.100.%d:%d" % (
            10 + idx % 100, rng.choice((80, 443, 22, 8080)))
    else:
        cli, srv = "[2001:db8:e1::%x]:%d" % (10 + idx, 30000 + idx), "[2001:db8:e2::%x]:%d" % (
            10 + idx, rng.choice((80, 443)))
    c = GenSide(rng, rng.getrandbits(32))
    s = GenSide(rng, rng.getrandbits(32))
    opts = []
    if rng.random() < 0.15:
        opts.append("loose=0")
    if rng.random() < 0.1:
        opts.append("be_liberal=1")
    if rng.random() < 0.1:
        opts.append("max_retrans=%d" % rng.randint(0, 3))
    lines = ["", ("conv gen%d %s -> %s isn=%d,%d %s" % (idx, cli, srv, c.isn, s.isn,
                                                      " ".join(opts))).rstrip()]
    M = 0xFFFFFFFF

    def num(v):
        return "%d" % (v & M)

    def scaled(x, y):
        # window scaling holds only if both SYNs carried the option
        if x.wscale is None or y.wscale is None:
            return 0
        return min(x.wscale, 14)

    def out(x, flags, seq, ack=None, win=None, dlen=0, extra=""):
        d = ">" if x is c else "<"
        parts = [d, flags or "-", "seq=" + num(seq)]
        if ack is not None:
            parts.append("ack=" + num(ack))
        parts.append("win=%d" % (x.win if win is None else win))
        if dlen:
            parts.append("len=%d" % dlen)
        if extra:
            parts.append(extra)
        lines.append(" ".join(parts))

    def send_data(x, y, n):
        room = (x.una + (y.win << scaled(y, x))) - x.nxt
        n = max(0, min(n, room & M if room < (1 << 31) else 0, 1400))
        if n == 0:
            return False
        out(x, rng.choice(("A", "PA")), x.nxt, y_ack(x), dlen=n)
        x.sent.append((x.nxt, n))
        x.nxt = (x.nxt + n) & M
        y.rcv = x.nxt
        return True

    def y_ack(x):
        return x.rcv

    def ack(x, y, win=None):
        if win is not None:
            x.win = win
        out(x, "A", x.nxt, x.rcv)
        y.una = x.rcv

    # Opening.
    mode = rng.random()
    syn_opts = lambda x: "mss=1460 sackperm" + (" wscale=%d" % x.wscale if x.wscale is not None else "")
    if mode < 0.12:
        # picked up mid-stream: no SYN seen
        c.nxt = c.una = (c.isn + 1) & M
        s.nxt = s.una = (s.isn + 1) & M
        c.rcv, s.rcv = s.nxt, c.nxt
        c.wscale = s.wscale = None
    elif mode < 0.2:
        out(c, "S", c.nxt, win=64240, extra=syn_opts(c))
        out(s, "S", s.nxt, win=65160, extra=syn_opts(s))
        c.nxt = (c.nxt + 1) & M
        s.nxt = (s.nxt + 1) & M
        c.rcv, s.rcv = s.nxt, c.nxt
        out(c, "SA", c.isn, c.rcv, win=64240, extra=syn_opts(c))
        out(s, "SA", s.isn, s.rcv, win=65160, extra=syn_opts(s))
        c.una, s.una = c.nxt, s.nxt
    else:
        out(c, "S", c.nxt, win=64240, extra=syn_opts(c))
        if rng.random() < 0.2:
            out(c, "S", c.nxt, win=64240, extra=syn_opts(c))
        c.nxt = (c.nxt + 1) & M
        s.rcv = c.nxt
        out(s, "SA", s.nxt, s.rcv, win=65160, extra=syn_opts(s))
        s.nxt = (s.nxt + 1) & M
        c.rcv = s.nxt
        c.una = c.nxt
        ack(c, s)
    # The middle.
    closed = False
    for _ in range(rng.randint(10, 70)):
        x, y = (c, s) if rng.random() < 0.55 else (s, c)
        r = rng.random()
        if r < 0.35:
            if not send_data(x, y, rng.randint(1, 1400)):
                ack(y, x)
        elif r < 0.55:
            ack(x, y, win=rng.choice((x.win, x.win, min(65535, x.win + 17), max(1, x.win - 100), 0))
                if rng.random() < 0.3 else None)
        elif r < 0.62 and x.sent:
            seq, n = rng.choice(x.sent[-8:])
            out(x, "PA", seq, x.rcv, dlen=n)  # retransmission
        elif r < 0.66:
            out(x, "A", x.nxt, x.rcv)  # duplicate ACK / keepalive-ish
            if rng.random() < 0.5:
                out(x, "A", (x.nxt - 1) & M, x.rcv, dlen=rng.choice((0, 1)))
        elif r < 0.70 and y.sent:
            seq, n = y.sent[-1]
            out(x, "A", x.nxt, x.rcv, extra="sack=%s-%s" % (
                num(seq), num(seq + n + rng.choice((0, 0, 1, 5000)))))
        elif r < 0.80:
            # does not fit
            k = rng.randint(0, 7)
            edge = y.una + (y.win << scaled(y, x))
            if k == 0:
                out(x, "PA", rng.getrandbits(32), x.rcv, dlen=100)
            elif k == 1:
                out(x, "PA", x.nxt + (2 << 20), x.rcv, dlen=50)
            elif k == 2:
                out(x, "PA", edge + rng.choice((1, 100, 70000, 140000)), x.rcv, dlen=10)
            elif k == 3:
                out(x, "A", x.nxt, x.rcv + rng.choice((1, 1000, 1 << 20)))
            elif k == 4:
                out(x, "A", x.nxt, rng.getrandbits(32))
            elif k == 5:
                out(x, rng.choice(("-", "F", "SF", "SR", "FPU", "SAU", "RU")), x.nxt, x.rcv)
            elif k == 6:
                out(x, "PA", x.nxt - (3 << 20), x.rcv, dlen=20)
            else:
                out(x, "S", rng.getrandbits(32), win=1024)
        elif r < 0.83:
            # a RST: in window (exact), in window (inexact), or out of window
            k = rng.randint(0, 2)
            seq = x.nxt if k == 0 else x.nxt + rng.randint(1, 3000) if k == 1 else \
                rng.getrandbits(32)
            out(x, rng.choice(("R", "RA")), seq, x.rcv if rng.random() < 0.5 else None, win=0)
            if k == 0:
                closed = True
                break
        elif r < 0.85 and x is s:
            out(x, "SA", s.isn, (c.isn + 1) & M, win=65160)  # a late SYN/ACK
        else:
            ack(x, y)
    if closed:
        if rng.random() < 0.5:
            out(c, "S", c.nxt + 100000, win=64240)  # a new SYN on the tuple
        return lines
    # Closing, either side first; sometimes simultaneous.
    x, y = (c, s) if rng.random() < 0.6 else (s, c)
    out(x, "FA", x.nxt, x.rcv)
    x.nxt = (x.nxt + 1) & M
    y.rcv = x.nxt
    if rng.random() < 0.25:
        out(y, "FA", y.nxt, (y.rcv - 1) & M)  # crosses the other FIN
        y.nxt = (y.nxt + 1) & M
        x.rcv = y.nxt
        ack(x, y)
        ack(y, x)
    else:
        ack(y, x)
        if rng.random() < 0.5:
            send_data(y, x, rng.randint(1, 500))
            ack(x, y)
        out(y, "FA", y.nxt, y.rcv)
        y.nxt = (y.nxt + 1) & M
        x.rcv = y.nxt
        ack(x, y)
    if rng.random() < 0.3:
        out(c, "S", c.nxt + 100000, win=64240)  # reopens in TIME_WAIT
        out(s, "SA", s.nxt + 200000, (c.nxt + 100001) & M, win=65160)
    return lines


def cmd_convgen(args):
    import random
    rng = random.Random(args.seed)
    print("# generated by netfilter-oracle.py convgen %d %d" % (args.seed, args.count))
    for i in range(args.count):
        for line in gen_conversation(rng, i + 1, 6 if rng.random() < 0.2 else 4):
            print(line)
    return 0


# --------------------------------------------------------------------------
# Packet list generator
# --------------------------------------------------------------------------

DEF = {
    4: {"left": "192.0.2.77", "right": "198.51.100.77", "local": "198.18.0.1",
        "left2": "10.77.0.77", "right2": "172.31.0.77"},
    6: {"left": "2001:db8:e1::77", "right": "2001:db8:e2::77", "local": "2001:db8:fffe::1",
        "left2": "fd77::77", "right2": "2001:db8:e3::77"},
}


def opt_value(words, names):
    """(value, negated) of the first option in @names, or (None, False)."""
    for i, wd in enumerate(words):
        if wd in names and i + 1 < len(words):
            return words[i + 1], i > 0 and words[i - 1] == "!"
    return None, False


def port_set(val):
    """'22', '1024:', '80,443,8000:8080' -> [(lo, hi)]."""
    out = []
    for part in val.split(","):
        lo, colon, hi = part.partition(":")
        lo = int(lo) if lo else 0
        out.append((lo, (int(hi) if hi else 65535) if colon else lo))
    return out


def port_outside(ranges):
    """A port in none of @ranges (near the first one)."""
    inside = lambda p: any(lo <= p <= hi for lo, hi in ranges)  # noqa: E731
    for p in list(range(ranges[0][1] + 1, 65536)) + list(range(ranges[0][0] - 1, 0, -1)):
        if not inside(p):
            return p
    return 0


def host_in(net, avoid, k=1):
    """A host address inside @net, not in @avoid."""
    if net.num_addresses == 1:
        return net.network_address
    for j in range(k, k + 64):
        if j >= net.num_addresses:
            break
        a = net.network_address + j
        if a not in avoid:
            return a
    return net.network_address + min(k, net.num_addresses - 1)


def local_in(net):
    """The address of @net the firewall takes as its own: the top host (the
    other kinds of packets use the bottom ones)."""
    if net.num_addresses <= 2 or net.is_loopback:
        return host_in(net, set())
    return net.broadcast_address - 1


def host_outside(net, default, avoid):
    if default not in net and default not in avoid:
        return default
    if net.prefixlen == 0:
        return default
    flip = 1 << (net.max_prefixlen - net.prefixlen)
    a = ipaddress.ip_address(int(net.network_address) ^ flip)
    return host_in(ipaddress.ip_network("%s/%d" % (a, net.prefixlen)), avoid)


def reach(tables):
    """{(table, chain): {base chain: [paths]}}, a path being the jump/goto
    rules that lead there from the base chain (up to 4 paths per base)."""
    out = {}
    for tname, t in tables.items():
        if tname not in BUILTIN:
            continue
        for base in BUILTIN[tname]:
            if base not in t.chains:
                continue
            todo = [(base, [])]
            while todo:
                c, path = todo.pop(0)
                paths = out.setdefault((tname, c), {}).setdefault(base, [])
                if len(paths) >= 4:
                    continue
                paths.append(path)
                for r in t.rules.get(c, []):
                    if r.target in t.chains and r not in path and len(path) < 8:
                        todo.append((r.target, path + [r]))
    return out


# Which kinds of packets meet a table's hook.
# The first is the usual one; the others are tried when they need no rule
# address to become one of the firewall's own (a /32 or /128 would take
# it away from the packets of the usual kind).
HOOK_CLASS = {("filter", "INPUT"): ("in",), ("filter", "FORWARD"): ("fwd",),
              ("filter", "OUTPUT"): ("out",), ("nat", "PREROUTING"): ("fwd", "in"),
              ("nat", "POSTROUTING"): ("fwd", "out"), ("nat", "OUTPUT"): ("out",),
              ("nat", "INPUT"): ("in",)}
LOCAL_SIDE = {"in": "dst", "out": "src"}
FIELDS = ("proto", "src", "dst", "sport", "dport")


def merge_fields(words_list, family):
    """Fields of several rules on a path, the later ones winning."""
    f = rule_fields([], family)
    for words in words_list:
        g = rule_fields(words, family)
        for k in FIELDS:
            if g[k] is not None and (k != "proto" or "-p" in words or "--protocol" in words):
                f[k], f[k + "_neg"] = g[k], g[k + "_neg"]
    return f


def gen_packets(tables, family):
    """A packet list that tries every rule: per rule and per base chain that
    reaches it, packets meant to match it (the matches of the jumps on the
    way merged in; two sets of default addresses; udp as well when the rule
    names no protocol) and a near miss; per base chain, a packet meant to
    meet its policy. A heuristic, not a solver: earlier rules may shadow."""
    d = {k: ipaddress.ip_address(v) for k, v in DEF[family].items()}
    locals_ = {d["local"]}
    reached = reach(tables)
    specs = []  # (class, fields, alternative defaults, comment)
    for tname in ("filter", "nat"):
        t = tables.get(tname)
        if t is None:
            continue
        for c, rules in t.rules.items():
            for base, paths in sorted(reached.get((tname, c), {}).items()):
                via = "" if c == base else " via %s" % base
                for path in paths:
                    for k, cls in enumerate(HOOK_CLASS[(tname, base)]):
                        gen_rule_specs(specs, t, c, rules, path, cls, k == 0, via, family)
        for base in BUILTIN[tname]:
            if base in t.chains:
                for cls in HOOK_CLASS[(tname, base)]:
                    specs.append((cls, {"proto": 17, "sport": [(1, 1)], "dport": [(9, 9)]},
                                  False, "%s %s, towards the policy" % (tname, base)))
    return specs_to_text(specs, d, locals_, family)


def gen_rule_specs(specs, t, c, rules, path, cls, primary, via, family):
    """Packets for the rules of chain @c reached through @path by @cls packets."""
    for i, r in enumerate(rules):
        what = "rule %d (%s %s%s)" % (t.file_no[c][i], t.name, c, via)
        f = merge_fields([j.words for j in path] + [r.words], family)
        net = f.get(LOCAL_SIDE.get(cls, ""))
        if not primary and net is not None and net.num_addresses == 1:
            continue
        if not primary:
            what += " from %s" % ("the firewall" if cls == "out" else "outside, to it")
        specs.append((cls, f, False, what + ", match"))
        specs.append((cls, f, True, what + ", match, other addresses"))
        if "-p" not in r.words and "--protocol" not in r.words:
            specs.append((cls, dict(f, proto=17, proto_neg=False), False, what + ", match, udp"))
        miss = near_miss(f)
        if miss is not None:
            specs.append((cls, miss, False, what + ", near miss"))


def specs_to_text(specs, d, locals_, family):
    """The packet list of @specs, without duplicates."""
    # Local addresses first: INPUT destinations and OUTPUT sources. Not
    # 0.0.0.0/8 or :: (a rule's "-d 0.0.0.0/32"): Linux routes no packet
    # to such a destination (a martian, dropped before any filter), so it
    # cannot be the firewall's own.
    for cls, f, _, _ in specs:
        side = LOCAL_SIDE.get(cls)
        if side and f.get(side) is not None and not f[side + "_neg"]:
            a = local_in(f[side])
            if not (a.is_unspecified or
                    (a.version == 4 and a in ipaddress.ip_network("0.0.0.0/8"))):
                locals_.add(a)
    # Loopback addresses are the firewall's own: such packets are sent from it.
    for cls, f, _, _ in specs:
        for side in ("src", "dst"):
            if f.get(side) is not None and not f[side + "_neg"] and f[side].is_loopback:
                locals_.add(host_in(f[side], set()))
    lines = ["# generated by netfilter-oracle.py gen", "local " + " ".join(
        str(a) for a in sorted(locals_, key=int))]
    done = set()
    for cls, f, alt, comment in specs:
        n = len(done) + 1
        sig = packet_text(0, cls, f, d, locals_, family, alt)
        if sig in done:
            continue
        done.add(sig)
        lines.append("%s  # %d: %s" % (packet_text(n, cls, f, d, locals_, family, alt), n,
                                       comment))
    return "\n".join(lines) + "\n"


def rule_fields(words, family):
    f = {"proto": 6, "proto_neg": False, "src": None, "src_neg": False, "dst": None,
         "dst_neg": False, "sport": None, "sport_neg": False, "dport": None, "dport_neg": False}
    v, neg = opt_value(words, ("-p", "--protocol"))
    if v is not None:
        num = {"all": 0, "icmp": 1, "tcp": 6, "udp": 17, "sctp": 132, "dccp": 33,
               "icmpv6": 58, "ipv6-icmp": 58}.get(v.lower(), int(v) if v.isdigit() else 6)
        f["proto"], f["proto_neg"] = (6 if num == 0 else num), neg and num != 0
    for side, names in (("src", ("-s", "--source")), ("dst", ("-d", "--destination"))):
        v, neg = opt_value(words, names)
        if v is not None:
            try:
                net = ipaddress.ip_network(v, strict=False)
            except ValueError:
                continue
            if net.version == family:
                f[side], f[side + "_neg"] = net, neg
    for side, names in (("sport", ("--sport", "--source-port", "--sports", "--source-ports",
                                   "--ports")),
                        ("dport", ("--dport", "--destination-port", "--dports",
                                   "--destination-ports"))):
        v, neg = opt_value(words, names)
        if v is not None:
            try:
                f[side], f[side + "_neg"] = port_set(v), neg
            except ValueError:
                pass
    return f


def near_miss(f):
    """The rule's packet with its first match turned off, or None."""
    g = dict(f)
    if f["dport"] is not None:
        g["dport_neg"] = not f["dport_neg"]
    elif f["sport"] is not None:
        g["sport_neg"] = not f["sport_neg"]
    elif f["dst"] is not None and f["dst"].prefixlen:
        g["dst_neg"] = not f["dst_neg"]
    elif f["src"] is not None and f["src"].prefixlen:
        g["src_neg"] = not f["src_neg"]
    elif f["proto"] != 6 or f["proto_neg"]:
        g["proto_neg"] = not f["proto_neg"]
    else:
        return None
    return g


def packet_text(n, cls, f, d, locals_, family, alt=False):
    proto = f.get("proto", 6)
    if f.get("proto_neg"):
        proto = 17 if proto == 6 else 6
    if proto in (1, 58) and (proto == 1) != (family == 4):
        proto = 6
    not_local = set(locals_)
    addrs = {}
    for side in ("src", "dst"):
        want_local = (cls, side) in (("in", "dst"), ("out", "src"))
        default = d["local"] if want_local else \
            d[("left" if side == "src" else "right") + ("2" if alt else "")]
        net, neg = f.get(side), f.get(side + "_neg")
        avoid = set() if want_local else not_local
        if net is None:
            a = default
        elif neg:
            a = host_outside(net, default, avoid)
        elif want_local or net.is_loopback:
            a = local_in(net)
        else:
            a = host_in(net, avoid)
        if want_local and a not in locals_:
            a = d["local"]
        if a.is_loopback and a not in locals_:
            a = default
        addrs[side] = a
    # The kernel drops loopback destinations that come from outside.
    if addrs["dst"].is_loopback and addrs["src"] not in locals_:
        addrs["src"] = addrs["dst"]
    ports = {}
    for side, default in (("sport", 40000 + n), ("dport", 9)):
        v, neg = f.get(side), f.get(side + "_neg")
        if v is None:
            ports[side] = default
        elif neg:
            ports[side] = port_outside(v)
        else:
            ports[side] = v[0][0]
    ep = lambda a, port: (fmt_addr(a) + ("" if port is None else ":%d" % port))  # noqa: E731
    if proto in PORT_PROTOS:
        return "%s %s -> %s" % (PROTO_NAMES[proto], ep(addrs["src"], ports["sport"]),
                                ep(addrs["dst"], ports["dport"]))
    name = PROTO_NAMES.get(proto, "proto %d" % proto)
    return "%s %s -> %s" % (name, ep(addrs["src"], None), ep(addrs["dst"], None))


def cmd_gen(args):
    with open(args.rules, encoding="utf-8") as f:
        text = f.read()
    tables = parse_save(text, args.rules)
    sys.stdout.write(gen_packets(tables, args.family or detect_family(text)))
    return 0


# --------------------------------------------------------------------------

def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def main(argv):
    global BACKEND
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("nft", "legacy"), default=BACKEND,
                    help="iptables backend of the lab (default: nft, or NFO_BACKEND)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "gen"):
        sp = sub.add_parser(name)
        g = sp.add_mutually_exclusive_group()
        g.add_argument("-4", dest="family", action="store_const", const=4)
        g.add_argument("-6", dest="family", action="store_const", const=6)
        sp.add_argument("rules")
        if name == "run":
            sp.add_argument("packets")
            sp.add_argument("-v", "--verbose", action="store_true")
            sp.add_argument("--tag", help="namespace name suffix (default: the pid)")
            sp.add_argument("--ipset", help="an \"ipset save\" file loaded into the "
                            "firewall namespace before the rules (-m set, -j SET)")
    sp = sub.add_parser("convgen")
    sp.add_argument("seed", type=int)
    sp.add_argument("count", type=int, nargs="?", default=10)
    for name in ("conv", "frames"):
        sp = sub.add_parser(name)
        sp.add_argument("conv", help="conversation list")
        if name == "conv":
            sp.add_argument("-v", "--verbose", action="store_true")
            sp.add_argument("--tag", help="namespace name suffix (default: the pid)")
    args = ap.parse_args(argv)
    BACKEND = args.backend
    os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    try:
        return {"run": cmd_run, "gen": cmd_gen, "conv": cmd_conv, "frames": cmd_frames,
                "convgen": cmd_convgen}[args.cmd](args)
    except SkipError as e:
        log("skip: %s" % e)
        return EXIT_SKIP
    except (OracleError, OSError) as e:
        log("error: %s" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
