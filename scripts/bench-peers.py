#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gufc against OVS-DPDK side by side, with dpdk-testpmd io as the ceiling.

Run it through scripts/bench-peers.sh (as root): the wrapper installs the
packages, builds, mounts a private hugetlbfs and passes --work DIR.

Every system gets the same ports (net_pcap replaying a gufc-gen pcap into
net_null), the same two cores (MAIN, FWD), the same hugepage memory
(--socket-mem/--socket-limit M, --in-memory) and the same pcap:

  gufc     RX lcore on FWD; main and rules lcores share MAIN (the rules
           lcore runs the slow path; the RX lcore transmits on a TX queue
           of its own, net_null having enough)
  gufc1    gufc with every role in one loop on FWD
  ovs      ovs-vswitchd-dpdk, its PMD thread on FWD, the rest on MAIN
  testpmd  io forwarding on FWD: the I/O ceiling

The rate of a run is what the system transmitted on the net_null port over a
fixed window after a warm-up, read from the DPDK telemetry socket of its
process (/ethdev/stats) the same way for all of them. Scenarios run in
rounds, the systems taking turns; a figure is the median over the rounds.

Each scenario's rule set is generated once and written both as gufc's native
rules and as OpenFlow flows for OVS; before the rounds, gufc and OVS run a
sample pcap once into tx pcaps and must forward the same multiset of
packets.
"""

import argparse
import collections
import ipaddress
import json
import os
import random
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
GUFC = os.path.join(ROOT, "build/app/gufc")
GEN = os.path.join(ROOT, "build/app/tools/gufc-gen")
TESTPMD = "dpdk-testpmd"
VSWITCHD = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
SNAT_ADDR, SNAT_PORTS = "203.0.113.1", (20000, 60000)
OVS_MAX_MBUFS = 262144  # OVS's shared mempool (MAX_NB_MBUF in lib/netdev-dpdk.c)
SYSTEMS = ("gufc", "gufc1", "ovs", "testpmd")
LABELS = {"gufc": "gufc (RX core + shared main core)", "gufc1": "gufc, one core",
          "ovs": "OVS-DPDK 3.1", "testpmd": "testpmd io (ceiling)"}

# The targets of issue 14 (all "at least").
TARGETS = {
    "gufc_over_ovs_fwd": 4.0,
    "gufc_over_ovs_ct_1k_rules": 10.0,
    "gufc_over_ovs_snat": 10.0,
    "gufc_over_ovs_storm": 5.0,
    "gufc_over_testpmd": 0.5,
}


def log(msg):
    print("bench-peers: " + msg, flush=True)


class Fail(Exception):
    pass


# --------------------------------------------------------------------------
# Inputs and scenarios
# --------------------------------------------------------------------------

class Input:
    """A pcap made by gufc-gen, replayed forever from memory (infinite_rx)
    or read once from the file (too many packets for OVS's mempool).
    Inputs with both directions of TCP are reordered by causal()."""

    def __init__(self, name, gen, infinite, warm_pkts=0, per_conn=0, replies=False):
        self.name, self.gen, self.infinite, self.replies = name, gen, infinite, replies
        self.warm_pkts, self.per_conn = warm_pkts, per_conn
        self.pcap = self.flows_file = None
        self.packets = self.flows = 0


class Scenario:
    def __init__(self, name, title, inp, conntrack=True, drops=0, snat=False, storm=False):
        self.name, self.title, self.inp = name, title, inp
        self.conntrack, self.drops, self.snat, self.storm = conntrack, drops, snat, storm
        self.rules = self.rules_file = self.sample_pcap = None
        self.sample_packets = 0

    def systems(self, wanted):
        """testpmd sets up no connections: no ceiling for the storm (it
        reads the file at several Mpps). gufc runs the storm in both
        layouts: read from a file, its RX lcore holds back when the upcall
        ring is full (lossless replay, on by itself when every RX port is
        a file), so two lcores lose nothing either."""
        s = [x for x in SYSTEMS if x in wanted]
        return [x for x in s if x != "testpmd"] if self.storm else s

    def gufc(self):
        """The gufc system whose figure is the scenario's gufc figure."""
        return "gufc"


def make_inputs(a):
    f1m, r1m, sc = a.flows_1m, a.rounds_1m, a.storm_conns
    return {
        "b10k": Input("b10k", ["-n", "10000", "-p", "40000", "--bench"], True),
        "b100k": Input("b100k", ["-n", "100000", "-p", "100000", "--bench"], True),
        "b1m": Input("b1m", ["-n", str(f1m), "-p", str(f1m * r1m), "--bench"], False,
                     warm_pkts=f1m + f1m // 10),
        # TCP with replies on the same port: round trips long enough that no
        # reply shares an RX burst with its request (causality at replay speed)
        "tcp": Input("tcp", ["-n", "10000", "--mix", "tcp=100", "-p", "100000",
                             "--size", "6", "--rtt", "10000-40000"], True, replies=True),
        "storm": Input("storm", ["-n", str(sc), "--mix", "tcp=100", "-p", str(sc),
                                 "--size", "1", "--rtt", "2000-20000"], False,
                       warm_pkts=sc * 7 // 20, per_conn=7, replies=True),
    }


def make_scenarios(inputs, a):
    s = [
        Scenario("fwd", "forward only (no rules, no conntrack), 10k UDP flows", inputs["b10k"],
                 conntrack=False),
        Scenario("ct", "conntrack, 10k UDP flows", inputs["b10k"]),
        Scenario("ct_1k_rules", "conntrack + 1,000 five-tuple drop rules", inputs["b10k"],
                 drops=1000),
        Scenario("ct_10k_rules", "conntrack + 10,000 five-tuple drop rules", inputs["b10k"],
                 drops=10000),
        Scenario("snat", "conntrack + SNAT of every flow", inputs["b10k"], snat=True),
        Scenario("ct_100k_flows", "conntrack, 100k UDP flows", inputs["b100k"]),
        Scenario("ct_1m_flows", "conntrack, %s UDP flows (read from the file)"
                 % count(a.flows_1m), inputs["b1m"]),
        Scenario("tcp", "conntrack, 10k TCP connections (handshake, data, close), replayed",
                 inputs["tcp"]),
        Scenario("storm", "new-connection storm: %s short TCP connections + 1,000 rules"
                 % count(a.storm_conns), inputs["storm"], drops=1000, storm=True),
    ]
    return {x.name: x for x in s}


def count(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


# --------------------------------------------------------------------------
# pcap files (classic libpcap format, either byte order, us or ns)
# --------------------------------------------------------------------------

PCAP_MAGICS = (0xa1b2c3d4, 0xa1b23c4d)


def pcap_records(path):
    """Yield (record header, frame) for each packet of a pcap file."""
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24:
            return
        if struct.unpack("<I", gh[:4])[0] in PCAP_MAGICS:
            end = "<"
        elif struct.unpack(">I", gh[:4])[0] in PCAP_MAGICS:
            end = ">"
        else:
            raise Fail("%s: not a pcap file" % path)
        while True:
            h = f.read(16)
            if len(h) < 16:
                return
            incl = struct.unpack(end + "IIII", h)[2]
            yield h, f.read(incl)


def pcap_head(src, dst, n):
    """Copy the first n packets of src into dst; return how many."""
    k = 0
    with open(src, "rb") as f, open(dst, "wb") as o:
        o.write(f.read(24))
        for h, d in pcap_records(src):
            if k == n:
                break
            o.write(h)
            o.write(d)
            k += 1
    return k


def causal(src, dst, gap=64):
    """Copy src to dst, holding back each TCP SYN/ACK (and the packets of
    its connection after it) until `gap` packets after its SYN. Replayed at
    full speed, a SYN and its SYN/ACK closer than that can land in one RX
    burst, and OVS runs conntrack over a whole burst before it commits the
    SYN's connection: the SYN/ACK finds no connection and is invalid, an
    artefact of replaying both directions on one port (on a wire the server
    answers only after the SYN went through). Few connections overlap in
    the capture's first milliseconds, where this happens. The order within
    each connection is kept. Returns (packets, SYN/ACKs still closer than
    `gap` because the file ended)."""
    import heapq
    with open(src, "rb") as f:
        data = f.read()
    if struct.unpack("<I", data[:4])[0] not in PCAP_MAGICS:
        raise Fail("%s: not a little-endian pcap file" % src)
    out, syn, held, heap, seq = [], {}, {}, [], 0

    def release():
        while heap and heap[0][0] <= len(out):
            _, _, key = heapq.heappop(heap)
            out.extend(held.pop(key))

    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        rec = (off, 16 + incl)
        off += 16 + incl
        fr = data[rec[0] + 16:rec[0] + 16 + incl]
        release()
        if incl < 54 or fr[12:14] != b"\x08\x00" or fr[23] != 6:
            out.append(rec)
            continue
        l4 = 14 + (fr[14] & 15) * 4
        a, b = fr[26:30] + fr[l4:l4 + 2], fr[30:34] + fr[l4 + 2:l4 + 4]
        key = a + b if a < b else b + a
        flags = fr[l4 + 13] & 0x12
        if key in held:
            held[key].append(rec)
        elif flags == 0x12 and key in syn and len(out) - syn[key] < gap:
            held[key] = [rec]
            seq += 1
            heapq.heappush(heap, (syn[key] + gap, seq, key))
        else:
            if flags == 0x02:
                syn[key] = len(out)
            out.append(rec)
    short = len(heap)
    while heap:
        _, _, key = heapq.heappop(heap)
        out.extend(held.pop(key))
    with open(dst, "wb") as o:
        o.write(data[:24])
        for off, ln in out:
            o.write(data[off:off + ln])
    return len(out), short


def parse_ipv4(fr):
    """(proto, src, dst, sport, dport, tcp flags) of an untagged IPv4
    frame, or None."""
    if len(fr) < 34 or fr[12:14] != b"\x08\x00":
        return None
    ihl = (fr[14] & 15) * 4
    proto = fr[23]
    l4 = 14 + ihl
    sport = dport = flags = 0
    if proto in (6, 17) and len(fr) >= l4 + 4:
        sport, dport = struct.unpack("!HH", fr[l4:l4 + 4])
        if proto == 6 and len(fr) >= l4 + 14:
            flags = fr[l4 + 13]
    return proto, fr[26:30], fr[30:34], sport, dport, flags


def csum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def checksums_ok(fr):
    """IPv4 header and TCP/UDP checksums of a frame are right."""
    ihl = (fr[14] & 15) * 4
    if csum16(fr[14:14 + ihl]) != 0xffff:
        return False
    tot = struct.unpack("!H", fr[16:18])[0]
    proto = fr[23]
    l4 = fr[14 + ihl:14 + tot]
    if proto not in (6, 17) or (proto == 17 and l4[6:8] == b"\0\0"):
        return True
    pseudo = fr[26:34] + struct.pack("!BBH", 0, proto, len(l4))
    return csum16(pseudo + l4) == 0xffff


# --------------------------------------------------------------------------
# Rule sets: one model, two renderings
# --------------------------------------------------------------------------

class RuleSet:
    """policy drop; accept ctstate established,related; the drop rules
    (five-tuple, exact); accept ctstate new; optionally SNAT of every flow.
    Without conntrack: no rules at all (gufc --conntrack off)."""

    def __init__(self, conntrack, drops=(), snat=False):
        self.conntrack, self.drops, self.snat = conntrack, list(drops), snat

    def count(self):
        return len(self.drops) + 2 if self.conntrack else 0

    def gufc_text(self):
        if not self.conntrack:
            return ""
        out = ["# generated by scripts/bench-peers.py", "policy drop",
               "accept ctstate established,related"]
        for (p, s, d, sp, dp) in self.drops:
            out.append("drop proto %s src %s dst %s sport %d dport %d" % (p, s, d, sp, dp))
        out.append("accept ctstate new")
        if self.snat:
            out.append("snat to %s:%d-%d" % (SNAT_ADDR, SNAT_PORTS[0], SNAT_PORTS[1]))
        return "\n".join(out) + "\n"

    def ovs_flows(self, inp=1, out=2):
        """OpenFlow flows, first match = highest priority, for traffic from
        port inp to port out (the direction the benchmark sends)."""
        if not self.conntrack:
            return "table=0,priority=100,in_port=%d,actions=output:%d\n" % (inp, out)
        nat = ",nat" if self.snat else ""
        commit = "ct(commit,nat(src=%s:%d-%d))" % ((SNAT_ADDR,) + SNAT_PORTS) \
            if self.snat else "ct(commit)"
        fl = [
            "table=0,priority=100,ip,in_port=%d,actions=ct(table=1,zone=0%s)" % (inp, nat),
            "table=0,priority=100,ipv6,in_port=%d,actions=ct(table=1,zone=0%s)" % (inp, nat),
            # gufc passes non-IP frames to the paired port (setting non-ip pass)
            "table=0,priority=50,in_port=%d,actions=output:%d" % (inp, out),
        ]
        prio = 60000
        fl.append("table=1,priority=%d,ct_state=+trk+est,actions=output:%d" % (prio, out))
        fl.append("table=1,priority=%d,ct_state=+trk+rel,actions=output:%d" % (prio, out))
        for (p, s, d, sp, dp) in self.drops:
            prio -= 1
            fl.append("table=1,priority=%d,%s,nw_src=%s,nw_dst=%s,tp_src=%d,tp_dst=%d,"
                      "actions=drop" % (prio, p, s, d, sp, dp))
        prio -= 1
        # a new connection is committed (tracked) when accepted; the SNAT
        # target is IPv4, so IPv6 has no accept rule there, as in gufc
        for fam in ("ip",) if self.snat else ("ip", "ipv6"):
            fl.append("table=1,priority=%d,ct_state=+trk+new,%s,actions=%s,output:%d"
                      % (prio, fam, commit, out))
        fl.append("table=1,priority=0,actions=drop")  # policy drop
        return "\n".join(fl) + "\n"


def read_flows(path):
    """Client-side 5-tuples of a gufc-gen --flows-file."""
    out = set()
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            s, sp = w[2].rsplit(":", 1)
            d, dp = w[4].rsplit(":", 1)
            out.add((w[1], s, d, int(sp), int(dp)))
    return out


def pcap_client_flows(path):
    """Client-side 5-tuples opened in a pcap (UDP packets, TCP SYNs), in
    order of appearance."""
    seen, have = [], set()
    for _, fr in pcap_records(path):
        k = parse_ipv4(fr)
        if k is None:
            continue
        proto, s, d, sp, dp, flags = k
        if proto == 17:
            name = "udp"
        elif proto == 6 and flags & 0x12 == 0x02:
            name = "tcp"
        else:
            continue
        t = (name, str(ipaddress.IPv4Address(s)), str(ipaddress.IPv4Address(d)), sp, dp)
        if t not in have:
            have.add(t)
            seen.append(t)
    return seen


def make_drops(n, hits, sample_flows, all_flows, proto, rng):
    """n five-tuple drop rules: `hits` flows of the sample pcap blocked both
    ways (two rules each: they drop real traffic), the rest random tuples
    from the same address and port pools that match no flow of the input."""
    hits = min(hits, len(sample_flows), n // 2)
    rules = []
    for (p, s, d, sp, dp) in rng.sample(sample_flows, hits):
        rules += [(p, s, d, sp, dp), (p, d, s, dp, sp)]
    dports = [53, 123, 443] if proto == "udp" else [22, 80, 443]
    taken = set(rules)
    while len(rules) < n:
        t = (proto, "10.0.%d.%d" % (rng.randrange(256), rng.randrange(1, 255)),
             "192.0.2.%d" % rng.randrange(1, 255), rng.randrange(32768, 61000),
             rng.choice(dports))
        if t in all_flows or t in taken:
            continue
        taken.add(t)
        rules.append(t)
    rng.shuffle(rules)
    return rules


# --------------------------------------------------------------------------
# Processes, telemetry
# --------------------------------------------------------------------------

class Procs:
    """Child processes, each recorded as WORK/pids/PID so that the shell
    wrapper can stop what is left if this script dies."""

    def __init__(self, work):
        self.dir = os.path.join(work, "pids")
        self.live = []

    def start(self, argv, logpath, env=None):
        with open(logpath, "ab") as logf:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                                 stderr=subprocess.STDOUT, env=env, start_new_session=True)
        open(os.path.join(self.dir, str(p.pid)), "w").close()
        self.live.append(p)
        return p

    def stop(self, p, sig=signal.SIGINT, timeout=30):
        if p.poll() is None:
            try:
                p.send_signal(sig)
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        try:
            os.unlink(os.path.join(self.dir, str(p.pid)))
        except FileNotFoundError:
            pass
        if p in self.live:
            self.live.remove(p)
        return p.returncode

    def stop_all(self):
        for p in list(self.live):
            self.stop(p, signal.SIGTERM, 10)


class Telemetry:
    """Client of a DPDK process's telemetry socket (v2)."""

    def __init__(self, prefix, proc, timeout=90):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        end = time.monotonic() + timeout
        self.s = None
        while True:
            if proc is not None and proc.poll() is not None:
                raise Fail("process exited (status %s) before its telemetry came up"
                           % proc.returncode)
            if os.path.exists(path):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                try:
                    s.connect(path)
                    s.recv(4096)
                    self.s = s
                    return
                except OSError:
                    s.close()
            if time.monotonic() > end:
                raise Fail("no telemetry socket %s after %d s" % (path, timeout))
            time.sleep(0.05)

    def q(self, cmd):
        self.s.send(cmd.encode())
        r = json.loads(self.s.recv(1 << 20).decode())
        return r.get(cmd.split(",")[0])

    def port(self, name):
        for i in self.q("/ethdev/list") or []:
            info = self.q("/ethdev/info,%d" % i) or {}
            if info.get("name") == name:
                return i
        return None

    def close(self):
        if self.s is not None:
            self.s.close()


# --------------------------------------------------------------------------
# The systems
# --------------------------------------------------------------------------

class Bench:
    def __init__(self, a):
        self.a = a
        self.work = a.work
        self.huge = os.path.join(a.work, "huge")
        self.procs = Procs(a.work)
        self.main_core, self.fwd_core = a.cores
        self.seq = 0

    def prefix(self, sysname):
        """A unique DPDK file prefix, recorded for the wrapper's clean-up."""
        self.seq += 1
        p = "gufc-peers-%d-%s-%d" % (os.getpid(), sysname, self.seq)
        with open(os.path.join(self.work, "prefixes"), "a") as f:
            f.write(p + "\n")
        return p

    def eal(self, prefix):
        m = str(self.a.mem)
        return ["--in-memory", "--huge-dir", self.huge, "--socket-mem", m, "--socket-limit", m,
                "--no-pci", "--file-prefix", prefix, "--log-level", "lib.*:warning"]

    @staticmethod
    def rx_devargs(inp, pcap=None):
        a = "net_pcap0,rx_pcap=" + (pcap or inp.pcap)
        return a + ",infinite_rx=1" if (inp.infinite and pcap is None) else a

    @staticmethod
    def mbufs(inp, once=False):
        n = inp.packets + 16384 if (inp.infinite and not once) else 32768
        return n | 1023

    @staticmethod
    def flows_cap(scn):
        """gufc's cache per family: room for every connection's two
        entries, twice over."""
        cap = 65536
        while cap < 4 * scn.inp.flows:
            cap <<= 1
        return cap

    def logpath(self, what):
        return os.path.join(self.work, "%s.log" % what)

    # --- gufc ---------------------------------------------------------
    def gufc_argv(self, scn, prefix, rx, tx, one_lcore, once, extra=()):
        """On two lcores the RX lcore polls on FWD and the main and rules
        lcores share MAIN (the rules lcore runs the slow path); on
        one lcore every role runs in one loop on FWD."""
        cores = str(self.fwd_core) if one_lcore else "%d,%d" % (self.main_core, self.fwd_core)
        argv = [GUFC, "-l", cores] + self.eal(prefix) + ["--vdev=" + rx, "--vdev=" + tx, "--"]
        if scn.rules.conntrack:
            argv += ["--rules", scn.rules_file]
        else:
            argv += ["--conntrack", "off"]
        argv += ["--flows", str(self.flows_cap(scn)), "--set",
                 "mbufs=%d" % self.mbufs(scn.inp, once)]
        return argv + list(extra)

    def start_gufc(self, scn, prefix, tag, one_lcore):
        stats = os.path.join(self.work, "%s.json" % tag)
        argv = self.gufc_argv(scn, prefix, self.rx_devargs(scn.inp), "net_null0,no-rx=1",
                              one_lcore, False, ["--stats-json", stats])
        p = self.procs.start(argv, self.logpath(tag))

        def conns(tel):
            return (tel.q("/gufc/stats") or {}).get("flows_created", 0)
        return p, conns, stats

    # --- testpmd ------------------------------------------------------
    def start_testpmd(self, scn, prefix, tag):
        inp = scn.inp
        argv = [TESTPMD, "-l", "%d,%d" % (self.main_core, self.fwd_core)] + self.eal(prefix) + [
            "--vdev=" + self.rx_devargs(inp), "--vdev=net_null0,no-rx=1", "--",
            "--forward-mode=io", "--nb-cores=1", "--stats-period", "3600",
            "--total-num-mbufs=%d" % self.mbufs(inp)]
        return self.procs.start(argv, self.logpath(tag))

    # --- OVS ----------------------------------------------------------
    def ovs_cmd(self, ovs, argv, timeout=120):
        r = subprocess.run(argv, env=ovs["env"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        if r.returncode != 0:
            raise Fail("%s: %s" % (" ".join(argv[:3]), r.stdout.decode().strip()[-800:]))
        return r.stdout.decode()

    def vsctl(self, ovs, *args):
        return self.ovs_cmd(ovs, ["ovs-vsctl", "--db=unix:" + ovs["db"], "--timeout=120"]
                            + list(args))

    def appctl(self, ovs, *args):
        return self.ovs_cmd(ovs, ["ovs-appctl", "-t", ovs["ctl"]] + list(args))

    def start_ovs(self, scn, prefix, tag, rx, tx, hold):
        """ovsdb-server and ovs-vswitchd-dpdk in a private run directory;
        flows first, then the ports. With @hold the PMD mask starts on a
        core that does not exist, so nothing is polled until everything is
        in place: OVS's first packets would otherwise meet a port its
        ofproto layer does not know yet ("miss with failed upcall") and be
        dropped. Adding the PMD reconfigures the ports (one more TX queue),
        which reopens a file-read net_pcap port at its start but fails on
        an infinite_rx one: those start with the PMD (what is lost in the
        first milliseconds falls in the warm-up)."""
        rundir = os.path.join(self.work, "ovs-" + tag)
        os.makedirs(rundir)
        env = dict(os.environ)
        for k in ("OVS_RUNDIR", "OVS_DBDIR", "OVS_LOGDIR", "OVS_SYSCONFDIR"):
            env[k] = rundir
        ovs = {"dir": rundir, "env": env, "db": os.path.join(rundir, "db.sock"),
               "ctl": os.path.join(rundir, "vswitchd.ctl"),
               "dbctl": os.path.join(rundir, "ovsdb.ctl"), "procs": [],
               "bridge": "gpb%d" % (os.getpid() % 100000)}
        try:
            conf = os.path.join(rundir, "conf.db")
            self.ovs_cmd(ovs, ["ovsdb-tool", "create", conf, SCHEMA])
            p = self.procs.start(["ovsdb-server", conf, "--remote=punix:" + ovs["db"],
                                  "--unixctl=" + ovs["dbctl"],
                                  "--log-file=" + os.path.join(rundir, "ovsdb-server.log"),
                                  "-vconsole:off"], self.logpath(tag + "-ovsdb"), env)
            ovs["procs"].append(p)
            end = time.monotonic() + 30
            while not os.path.exists(ovs["db"]):
                if p.poll() is not None or time.monotonic() > end:
                    raise Fail("ovsdb-server did not start (%s)" % self.logpath(tag + "-ovsdb"))
                time.sleep(0.05)
            extra = "--no-pci --huge-dir %s --file-prefix %s --log-level=lib.*:warning" % (
                self.huge, prefix)
            nowhere = 1 << (os.cpu_count() or 64)
            m = str(self.a.mem)
            self.vsctl(ovs, "--no-wait", "init", "--", "set", "Open_vSwitch", ".",
                       "other_config:dpdk-init=true",
                       "other_config:dpdk-socket-mem=" + m,
                       "other_config:dpdk-socket-limit=" + m,
                       "other_config:dpdk-extra=" + extra,
                       "other_config:dpdk-lcore-mask=0x%x" % (1 << self.main_core),
                       "other_config:pmd-cpu-mask=0x%x"
                       % (nowhere if hold else 1 << self.fwd_core))
            v = self.procs.start([VSWITCHD, "unix:" + ovs["db"], "--unixctl=" + ovs["ctl"],
                                  "--log-file=" + os.path.join(rundir, "ovs-vswitchd.log"),
                                  "-vconsole:off"], self.logpath(tag), env)
            ovs["procs"].append(v)
            br = ovs["bridge"]
            self.vsctl(ovs, "add-br", br, "--", "set", "bridge", br, "datapath_type=netdev",
                       "fail_mode=secure")
            flows = os.path.join(rundir, "flows.txt")
            with open(flows, "w") as f:
                f.write(scn.rules.ovs_flows())
            self.ovs_cmd(ovs, ["ovs-ofctl", "add-flows", br, flows], timeout=600)
            self.vsctl(ovs, "add-port", br, "p1", "--", "set", "Interface", "p1", "type=dpdk",
                       "options:dpdk-devargs=" + tx, "ofport_request=2")
            self.vsctl(ovs, "add-port", br, "p0", "--", "set", "Interface", "p0", "type=dpdk",
                       "options:dpdk-devargs=" + rx, "ofport_request=1")
            for port, want in (("p0", "1"), ("p1", "2")):
                got = self.vsctl(ovs, "get", "Interface", port, "ofport").strip()
                if got != want:
                    err = self.vsctl(ovs, "get", "Interface", port, "error").strip()
                    raise Fail("OVS port %s not added (ofport %s): %s" % (port, got, err))
            if hold:
                self.vsctl(ovs, "set", "Open_vSwitch", ".",
                           "other_config:pmd-cpu-mask=0x%x" % (1 << self.fwd_core))
        except BaseException:
            self.stop_ovs(ovs)
            raise
        return ovs

    def stop_ovs(self, ovs):
        """ovs-vswitchd first (it closes its DPDK ports), then ovsdb-server."""
        for p, ctl in zip(reversed(ovs["procs"]), (ovs["ctl"], ovs["dbctl"])
                          [2 - len(ovs["procs"]):]):
            if p.poll() is None:
                try:
                    subprocess.run(["ovs-appctl", "-t", ctl, "exit"], env=ovs["env"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=30)
                except subprocess.TimeoutExpired:
                    pass
            self.procs.stop(p, signal.SIGTERM, 30)
        ovs["procs"] = []

    def pmd_stats(self, ovs):
        try:
            return parse_pmd_stats(self.appctl(ovs, "dpif-netdev/pmd-stats-show"))
        except (Fail, subprocess.TimeoutExpired):
            return {}

    # --- one measured run ---------------------------------------------
    def run(self, scn, sysname, rnd):
        """Start a system on the scenario, sample its ports, stop it.
        Returns a dict with the window's rates."""
        tag = "%s-%s-r%d" % (scn.name, sysname, rnd)
        prefix = self.prefix(sysname)
        ovs = p = stats = conns = None
        try:
            if sysname in ("gufc", "gufc1"):
                p, conns, stats = self.start_gufc(scn, prefix, tag, sysname == "gufc1")
            elif sysname == "testpmd":
                p = self.start_testpmd(scn, prefix, tag)
            else:
                ovs = self.start_ovs(scn, prefix, tag, self.rx_devargs(scn.inp),
                                     "net_null0,no-rx=1", not scn.inp.infinite)
                p = ovs["procs"][-1]

                def conns(_tel, ovs=ovs):
                    return int(self.appctl(ovs, "dpctl/ct-get-nconns").split()[0])
            tel = Telemetry(prefix, p)
            try:
                res = self.sample(scn, tel, p, conns if scn.storm else None)
            finally:
                tel.close()
            if ovs is not None:
                res["ovs_pmd_stats"] = self.pmd_stats(ovs)
        finally:
            if ovs is not None:
                self.stop_ovs(ovs)
            elif p is not None:
                self.procs.stop(p)
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        if stats and os.path.exists(stats):
            with open(stats) as f:
                res["gufc_stats"] = gufc_summary(json.load(f))
        return res

    def sample(self, scn, tel, proc, conns):
        """Poll the RX and TX ports' counters; the window starts after the
        warm-up (seconds for a replay from memory; for a file, once its
        first round of flows, or 5 % of a storm, was read) and lasts
        --seconds, or until a file is nearly read."""
        inp, a = scn.inp, self.a
        end = time.monotonic() + 90
        rx = tx = None
        while rx is None or tx is None:
            rx, tx = tel.port("net_pcap0"), tel.port("net_null0")
            if time.monotonic() > end:
                raise Fail("ports net_pcap0/net_null0 not found in telemetry")
            time.sleep(0.1)
        samples, first, start = [], None, None
        sched0 = {}
        deadline = time.monotonic() + a.max_wait
        while True:
            if proc.poll() is not None:
                raise Fail("process exited (status %s) during the run" % proc.returncode)
            r, t = tel.q("/ethdev/stats,%d" % rx), tel.q("/ethdev/stats,%d" % tx)
            s = {"t": time.monotonic(), "rx": r["ipackets"], "tx": t["opackets"]}
            if conns is not None:
                s["conns"] = conns(tel)
            samples.append(s)
            if first is None and s["rx"] > 0:
                first = s
            if first is not None and start is None and s["rx"] >= inp.warm_pkts and \
                    (not inp.infinite or s["t"] >= first["t"] + a.warmup):
                start = s
                sched0 = sched_snapshot(proc.pid)
            if start is not None and s["t"] >= start["t"] + a.seconds:
                break
            if not inp.infinite and first is not None and s["rx"] >= 0.98 * inp.packets:
                break
            if time.monotonic() > deadline:
                break
            time.sleep(a.interval)
        if start is None:
            raise Fail("no steady state within %d s (rx %d packets, warm-up %d)"
                       % (a.max_wait, samples[-1]["rx"], inp.warm_pkts))
        sched1, sched1_t = sched_snapshot(proc.pid), time.monotonic()
        win = [s for s in samples if s["t"] >= start["t"] and
               (inp.infinite or s["rx"] < 0.98 * inp.packets)]
        stop = win[-1]
        dt = stop["t"] - start["t"]
        if dt < 0.5:
            raise Fail("window too short (%.2f s): the file ran out; raise --rounds-1m or "
                       "--storm-conns" % dt)
        res = {"window_s": round(dt, 3), "pps": (stop["tx"] - start["tx"]) / dt,
               "rx_pps": (stop["rx"] - start["rx"]) / dt,
               "warmup_s": round(start["t"] - first["t"], 3)}
        if scn.storm:
            res["conns_per_s"] = (stop["conns"] - start["conns"]) / dt
        # What the host gave the threads: on a shared or small host, a
        # pinned lcore waiting for its CPU is time the pipeline stalls.
        res["threads"] = sched_window(sched0, sched1, sched1_t - start["t"])
        return res

    # --- translation check --------------------------------------------
    def check(self, scn):
        """gufc and OVS once over the sample pcap into tx pcaps: the same
        packets must come out."""
        inp, sample, n = scn.inp, scn.sample_pcap, scn.sample_packets
        out = {}
        # gufc on one lcore (RX, slow path, main in one loop): exits when done
        prefix = self.prefix("gufc")
        gpcap = os.path.join(self.work, "check-%s-gufc.pcap" % scn.name)
        glog = self.logpath("check-%s-gufc" % scn.name)
        argv = self.gufc_argv(scn, prefix, self.rx_devargs(inp, sample),
                              "net_pcap1,tx_pcap=" + gpcap, True, True,
                              ["--idle-exit", "500", "--set", "upcall-ring=65536"])
        p = self.procs.start(argv, glog)
        try:
            rc = p.wait(self.a.max_wait * 2)
        except subprocess.TimeoutExpired:
            raise Fail("gufc did not finish the sample (%s)" % glog)
        finally:
            self.procs.stop(p)
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        if rc != 0:
            raise Fail("gufc exited %d on the sample (%s)" % (rc, glog))
        # OVS: the same, stopped once every packet came through
        prefix = self.prefix("ovs")
        opcap = os.path.join(self.work, "check-%s-ovs.pcap" % scn.name)
        ovs = self.start_ovs(scn, prefix, "check-%s-ovs" % scn.name,
                             self.rx_devargs(inp, sample), "net_pcap1,tx_pcap=" + opcap, True)
        try:
            tel = Telemetry(prefix, ovs["procs"][-1])
            try:
                rx, tx = tel.port("net_pcap0"), tel.port("net_pcap1")
                last, still, end = None, 0, time.monotonic() + self.a.max_wait * 2
                while True:
                    r = tel.q("/ethdev/stats,%d" % rx)["ipackets"]
                    t = tel.q("/ethdev/stats,%d" % tx)["opackets"]
                    still = still + 1 if (r, t) == last else 0
                    last = (r, t)
                    if r >= n and still >= 5:
                        break
                    if time.monotonic() > end:
                        raise Fail("OVS did not finish the sample (rx, tx %s of %d)"
                                   % (last, n))
                    time.sleep(0.2)
            finally:
                tel.close()
            out["ovs_pmd_stats"] = self.pmd_stats(ovs)
            self.vsctl(ovs, "del-port", ovs["bridge"], "p1")  # closes the pcap: flushed
        finally:
            self.stop_ovs(ovs)
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        out.update(compare(sample, gpcap, opcap, scn.rules.snat))
        out["failed_upcalls"] = out["ovs_pmd_stats"].get("miss with failed upcall", 0)
        if out["failed_upcalls"]:
            out["same"] = False
        return out


def parse_pmd_stats(text):
    """The PMD thread's counters from dpif-netdev/pmd-stats-show."""
    d = {}
    for line in text.split("main thread:")[0].splitlines():
        if ":" not in line or line.startswith("pmd thread"):
            continue
        k, v = line.split(":", 1)
        w = v.split()
        if w:
            try:
                d[k.strip()] = float(w[0]) if "." in w[0] else int(w[0])
            except ValueError:
                pass
    return d


def gufc_summary(js):
    """The numbers of gufc's --stats-json worth keeping per run: the
    slow path's upcalls (those behind their connection's upcall too, and
    of them those the fast path's code decided on the rules lcore), the
    times a full upcall ring held RX back, each lcore's busy share."""
    keep = {}
    src = js.get("stats", js) if isinstance(js.get("stats"), dict) else js
    for k in ("rx", "delivered", "drops_total", "flows_created", "upcalls", "evictions"):
        if k in src:
            keep[k] = src[k]
    flows = js.get("flows")
    if isinstance(flows, dict) and "created" in flows:
        keep["flows_created"] = flows["created"]
    sp = js.get("slow_path")
    if isinstance(sp, dict):
        for k in ("upcalls", "pending", "waited", "upcall_fast"):
            if k in sp:
                keep["upcalls" if k == "upcalls" else
                     "upcalls_fast" if k == "upcall_fast" else "upcalls_" + k] = sp[k]
    ll = js.get("lossless")
    if isinstance(ll, dict) and "held_bursts" in ll:
        keep["held_bursts"] = ll["held_bursts"]
    hz = js.get("tsc_hz")
    if isinstance(js.get("lcores"), list) and hz:
        keep["lcores"] = [dict({"lcore": lc.get("lcore"), "roles": lc.get("roles")},
                               **{r: {"busy_s": round(v["busy_cycles"] / hz, 3),
                                      "idle_s": round(v["idle_cycles"] / hz, 3)}
                                  for r, v in lc.items() if isinstance(v, dict)})
                          for lc in js["lcores"]]
    drops = js.get("drops")
    if isinstance(drops, dict):
        keep["drops"] = {k: v for k, v in drops.items() if v}
    return keep


def sched_snapshot(pid):
    """Each thread of @pid: (name, ns on a CPU, ns runnable but waiting for
    one, involuntary switches) from /proc (schedstat: the kernel's own
    accounting). Empty where /proc does not have it."""
    snap = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return snap
    for tid in tids:
        d = "/proc/%d/task/%s/" % (pid, tid)
        try:
            with open(d + "comm") as f:
                name = f.read().strip()
            with open(d + "schedstat") as f:
                run, wait = (int(x) for x in f.read().split()[:2])
            with open(d + "status") as f:
                st = f.read()
            nv = int(st.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        except (OSError, ValueError, IndexError):
            continue
        snap[tid] = (name, run, wait, nv)
    return snap


def sched_window(a, b, dt):
    """The threads that ran or waited over a window of @dt seconds between
    two sched_snapshot()s: the share of the window each spent on a CPU and
    waiting for one (a thread pinned to a core that others' work shares),
    and how often it was preempted."""
    out = []
    for tid, (name, run, wait, nv) in sorted(b.items()):
        if tid not in a or dt <= 0:
            continue
        r, w = (run - a[tid][1]) / 1e9 / dt, (wait - a[tid][2]) / 1e9 / dt
        if r >= 0.02 or w >= 0.02:
            out.append({"thread": name, "tid": int(tid), "run_share": round(r, 3),
                        "runq_wait_share": round(w, 3), "preempted": nv - a[tid][3]})
    return out


def compare(sample, gpcap, opcap, nat):
    """Multisets of the frames each system forwarded. Under SNAT the two
    pick different ports, so frames are compared without source address,
    source port and checksums; every translated frame must carry the NAT
    address, a port of the range and correct checksums, and both must use
    as many distinct translated tuples."""
    def norm(fr):
        k = parse_ipv4(fr) if nat else None
        if k is None:
            return fr
        ihl = (fr[14] & 15) * 4
        b = bytearray(fr)
        b[24:30] = b"\0" * 6  # IP checksum, source address
        l4 = 14 + ihl
        b[l4:l4 + 2] = b"\0\0"  # source port
        at = l4 + (16 if k[0] == 6 else 6)
        b[at:at + 2] = b"\0\0"  # TCP/UDP checksum
        return bytes(b)

    def load(path):
        frames = [d for _, d in pcap_records(path)] if os.path.exists(path) else []
        bad, tuples = 0, set()
        if nat:
            for fr in frames:
                k = parse_ipv4(fr)
                ok = k is not None and str(ipaddress.IPv4Address(k[1])) == SNAT_ADDR and \
                    SNAT_PORTS[0] <= k[3] <= SNAT_PORTS[1] and checksums_ok(fr)
                bad += not ok
                if k is not None:
                    tuples.add(k[:5])
        return frames, collections.Counter(norm(f) for f in frames), bad, len(tuples)

    n_in = sum(1 for _ in pcap_records(sample))
    gf, g, gbad, gt = load(gpcap)
    of, o, obad, ot = load(opcap)
    res = {"packets": n_in, "gufc_forwarded": len(gf), "ovs_forwarded": len(of),
           "only_gufc": sum((g - o).values()), "only_ovs": sum((o - g).values())}
    res["same"] = res["only_gufc"] == 0 and res["only_ovs"] == 0 and len(gf) > 0
    if nat:
        res.update({"gufc_bad_nat": gbad, "ovs_bad_nat": obad, "gufc_nat_tuples": gt,
                    "ovs_nat_tuples": ot})
        res["same"] = res["same"] and gbad == 0 and obad == 0 and gt == ot
    return res


# --------------------------------------------------------------------------
# Set-up
# --------------------------------------------------------------------------

def meminfo():
    d = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            d[k] = int(v.split()[0])
    return d


def ensure_hugepages(mem_mb):
    """Enough free hugepages for one system at a time: nr_hugepages is
    raised when too few are free, never lowered."""
    mi = meminfo()
    size_kb = mi.get("Hugepagesize", 2048)
    need = (mem_mb * 1024) // size_kb + 64
    free, total = mi.get("HugePages_Free", 0), mi.get("HugePages_Total", 0)
    if free >= need:
        return None
    want = total + (need - free)
    with open("/proc/sys/vm/nr_hugepages", "w") as f:
        f.write(str(want))
    mi = meminfo()
    if mi.get("HugePages_Free", 0) < need:
        raise Fail("only %d free hugepages after raising nr_hugepages to %d (need %d): "
                   "not enough free memory" % (mi.get("HugePages_Free", 0), want, need))
    log("nr_hugepages raised from %d to %d (left so: other DPDK programs may use them; "
        "'echo %d > /proc/sys/vm/nr_hugepages' gives them back)" % (total, want, total))
    return (total, want)


def generate(inputs, used, work, seed):
    for inp in inputs.values():
        if inp.name not in used:
            continue
        inp.pcap = os.path.join(work, inp.name + ".pcap")
        inp.flows_file = os.path.join(work, inp.name + ".flows")
        raw = inp.pcap + ".gen" if inp.replies else inp.pcap
        r = subprocess.run([GEN, "-o", raw, "--seed", str(seed), "--flows-file",
                            inp.flows_file] + inp.gen, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise Fail("gufc-gen %s: %s" % (" ".join(inp.gen), r.stderr.decode().strip()))
        msg = r.stderr.decode()
        inp.packets = int(msg.split("wrote ")[1].split()[0])
        inp.flows = int(msg.split("s: ")[1].split()[0])
        if inp.replies:
            inp.packets, short = causal(raw, inp.pcap)
            os.unlink(raw)
            if short:
                log("%s: %d SYN/ACKs at the end of the file stay within 64 packets of their "
                    "SYN" % (inp.name, short))
        if inp.infinite and inp.packets + 8192 > OVS_MAX_MBUFS:
            raise Fail("%s: %d packets do not fit OVS's mempool for a replay from memory"
                       % (inp.name, inp.packets))
        log("%s: %d packets, %d flows (%s)" % (inp.name, inp.packets, inp.flows,
                                               "replayed from memory" if inp.infinite
                                               else "read from the file"))


def build_rules(scns, work, seed, sample_packets):
    """Each scenario's rule set, once; the sample pcap for its check."""
    rng = random.Random(seed)
    all_flows = {}
    for scn in scns:
        inp = scn.inp
        scn.sample_pcap = os.path.join(work, "sample-%s.pcap" % inp.name)
        if not os.path.exists(scn.sample_pcap):
            pcap_head(inp.pcap, scn.sample_pcap, sample_packets)
        scn.sample_packets = sum(1 for _ in pcap_records(scn.sample_pcap))
        drops = []
        if scn.drops:
            if inp.name not in all_flows:
                all_flows[inp.name] = read_flows(inp.flows_file)
            proto = "tcp" if scn.storm or inp.name == "tcp" else "udp"
            sample = pcap_client_flows(scn.sample_pcap)
            hits = min(100, max(1, len(sample) // 50))
            drops = make_drops(scn.drops, hits, sample, all_flows[inp.name], proto, rng)
        scn.rules = RuleSet(scn.conntrack, drops, scn.snat)
        scn.rules_file = os.path.join(work, "%s.rules" % scn.name)
        with open(scn.rules_file, "w") as f:
            f.write(scn.rules.gufc_text())


# --------------------------------------------------------------------------
# Report, plot
# --------------------------------------------------------------------------

def median(xs):
    return statistics.median(xs) if xs else None


def report(a, scns, runs, checks, hp):
    out = {"machine": machine(), "settings": {
        "rounds": a.rounds, "warmup_s": a.warmup, "window_s": a.seconds, "mem_mb": a.mem,
        "cores": {"main": a.cores[0], "fwd": a.cores[1]}, "seed": a.seed, "quick": a.quick,
        "systems": a.systems, "date": time.strftime("%Y-%m-%d")},
        "scenarios": {}, "checks": checks, "targets": TARGETS, "runs": runs}
    if hp:
        out["nr_hugepages_raised"] = {"from": hp[0], "to": hp[1]}
    print()
    print("%-14s %6s %9s %9s %9s %9s %9s %9s  %s" % (
        "scenario", "unit", "gufc", "gufc1", "OVS", "testpmd", "gufc/OVS", "target", ""))
    for scn in scns:
        key = "conns_per_s" if scn.storm else "pps"
        scale = 1.0 if scn.storm else 1e6
        e = {"title": scn.title, "unit": "conn/s" if scn.storm else "Mpps",
             "input": scn.inp.name, "flows": scn.inp.flows, "packets": scn.inp.packets,
             "from_memory": scn.inp.infinite, "rules": scn.rules.count(),
             "gufc_system": scn.gufc()}
        if scn.storm:
            e["packets_per_connection"] = scn.inp.per_conn
        med = {}
        for s in scn.systems(a.systems):
            rs = [r for r in runs if r["scenario"] == scn.name and r["system"] == s
                  and r.get(key) is not None]
            med[s] = median([r[key] for r in rs])
            e[s] = med[s] / scale if med[s] is not None else None
            e[s + "_runs"] = [round(r[key] / scale, 4) for r in rs]
            if scn.storm and rs:
                e[s + "_mpps"] = median([r["pps"] for r in rs]) / 1e6
        g = med.get(scn.gufc())
        e["gufc"] = g / scale if g else None
        for s, name in ((scn.gufc(), "gufc"), ("gufc1", "gufc1")):
            if med.get(s) and med.get("ovs"):
                e[name + "_over_ovs"] = med[s] / med["ovs"]
                out[name + "_over_ovs_" + scn.name] = e[name + "_over_ovs"]
            if med.get(s) and med.get("testpmd"):
                e[name + "_over_testpmd"] = med[s] / med["testpmd"]
        out["scenarios"][scn.name] = e
        ratio = e.get("gufc_over_ovs")
        tgt = TARGETS.get("gufc_over_ovs_" + scn.name)
        verdict = ("met" if ratio >= tgt else "MISSED") if tgt and ratio else ""

        def fmt(v):
            return "-" if v is None else ("%.0f" % v if scn.storm else "%.2f" % v)
        print("%-14s %6s %9s %9s %9s %9s %9s %9s  %s" % (
            scn.name, e["unit"], fmt(e.get("gufc")), fmt(e.get("gufc1")),
            fmt(e.get("ovs")), fmt(e.get("testpmd")), "%.2f" % ratio if ratio else "-",
            ">= %g" % tgt if tgt else "", verdict))
    fwd = out["scenarios"].get("fwd", {})
    if fwd.get("gufc_over_testpmd") is not None:
        out["gufc_over_testpmd"] = fwd["gufc_over_testpmd"]
        t = TARGETS["gufc_over_testpmd"]
        print("gufc_over_testpmd (fwd): %.3f, target >= %g: %s" % (
            out["gufc_over_testpmd"], t, "met" if out["gufc_over_testpmd"] >= t else "MISSED"))
    if fwd.get("gufc1_over_testpmd") is not None:
        out["gufc1_over_testpmd"] = fwd["gufc1_over_testpmd"]
    print("Mpps: delivered on the net_null port; conn/s: connections set up per second "
          "(gufc1: gufc on one core)")
    for name, c in checks.items():
        print("check %-13s %s: %d packets in, gufc forwarded %d, OVS %d, only gufc %d, "
              "only OVS %d%s" % (name, "same" if c["same"] else "DIFFERENT", c["packets"],
                                 c["gufc_forwarded"], c["ovs_forwarded"], c["only_gufc"],
                                 c["only_ovs"], ", OVS failed upcalls %d" % c["failed_upcalls"]
                                 if c.get("failed_upcalls") else ""))
    return out


def machine():
    m = {"cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    m["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    for name, argv in (("ovs", [VSWITCHD, "--version"]),
                       ("dpdk", ["dpkg-query", "-W", "-f", "${Version}", "dpdk"])):
        try:
            m[name] = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     timeout=10).stdout.decode().split("\n")[0].strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    return m


def plot(res, path, systems):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sc = res["scenarios"]
    mp = [n for n, e in sc.items() if e["unit"] == "Mpps"]
    st = [n for n, e in sc.items() if e["unit"] == "conn/s"]
    color = {"gufc": "tab:blue", "gufc1": "tab:cyan", "ovs": "tab:orange", "testpmd": "0.8"}
    panels = [p for p in ((mp, 1.0, "Mpps delivered (median of the rounds)",
                           "throughput: net_pcap -> net_null, 64-byte frames"),
                          (st, 1000.0, "thousand connections set up per second",
                           "new-connection storm")) if p[0]]
    fig, axes = plt.subplots(1, len(panels), figsize=(2.5 + 1.3 * len(mp) + 3 * bool(st), 5),
                             gridspec_kw={"width_ratios": [max(len(p[0]), 1.5)
                                                           for p in panels]},
                             squeeze=False)
    for ax, (names, scale, ylabel, title) in zip(axes[0], panels):
        order = [s for s in ("testpmd", "gufc", "gufc1", "ovs")
                 if s in systems and any(sc[n].get(s + "_runs") for n in names)]
        w = 0.8 / max(len(order), 1)
        for i, s in enumerate(order):
            ys = [(sc[n].get(s) or 0) / scale if sc[n].get(s + "_runs") else 0
                  for n in names]
            xs = [j + (i - (len(order) - 1) / 2) * w for j in range(len(names))]
            bars = ax.bar(xs, ys, w, color=color[s], label=LABELS[s])
            if s == "testpmd":
                continue
            for rect, y in zip(bars, ys):
                if y:
                    ax.annotate("%.2f" % y if y < 10 else "%.0f" % y,
                                (rect.get_x() + rect.get_width() / 2, y), ha="center",
                                va="bottom", fontsize=6)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(["%s\ngufc/OVS %s" % (n, "%.1f" % sc[n]["gufc_over_ovs"]
                                                 if sc[n].get("gufc_over_ovs") else "-")
                            for n in names], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        if ax is axes[0][0]:
            ax.legend(fontsize=7)
    m = res["machine"]
    fig.suptitle("gufc vs OVS-DPDK, one polling core each (%d CPUs, %s)"
                 % (m.get("cpus", 0), res["settings"]["date"]), fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save_logs(work, dest):
    os.makedirs(dest, exist_ok=True)
    for d, _, files in os.walk(work):
        if os.path.abspath(d).startswith(os.path.join(work, "huge")):
            continue
        for f in files:
            if f.endswith((".log", ".rules", ".json")) or f == "flows.txt":
                rel = os.path.relpath(os.path.join(d, f), work).replace(os.sep, "_")
                shutil.copyfile(os.path.join(d, f), os.path.join(dest, rel))


# --------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(
        prog="scripts/bench-peers.sh",
        description="gufc vs OVS-DPDK (and testpmd io) on the same virtual ports, cores, "
        "memory and pcaps. Scenarios: fwd, ct, ct_1k_rules, ct_10k_rules, snat, "
        "ct_100k_flows, ct_1m_flows, tcp, storm.")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: fwd, ct_1k_rules and a 200k-connection storm, one round, "
                   "short windows (about two minutes)")
    p.add_argument("--scenarios", help="comma-separated subset of the scenarios")
    p.add_argument("--rounds", type=int, help="rounds per scenario (default 3)")
    p.add_argument("--warmup", type=float, help="seconds before the window (default 3)")
    p.add_argument("--seconds", type=float, help="measurement window in seconds (default 5)")
    p.add_argument("--mem", type=int, default=2048,
                   help="hugepage MB each system may use (default 2048)")
    p.add_argument("--cores", default="0,1",
                   help="MAIN,FWD: the polling thread runs on FWD, the rest on MAIN "
                   "(default 0,1)")
    p.add_argument("--flows-1m", type=int, default=1000000,
                   help="flows of ct_1m_flows (default 1000000)")
    p.add_argument("--rounds-1m", type=int, default=12,
                   help="packets per flow in ct_1m_flows's file (default 12)")
    p.add_argument("--storm-conns", type=int,
                   help="connections of the storm (default 1000000; --quick 200000)")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help="which systems to run (default %s)" % ",".join(SYSTEMS))
    p.add_argument("--no-check", action="store_true", help="skip the translation checks")
    p.add_argument("--seed", type=int, default=1, help="seed of pcaps and rules (default 1)")
    p.add_argument("--json", help="output JSON (default out/bench-peers.json; "
                   "--quick: out/bench-peers-quick.json)")
    p.add_argument("--png", help="output PNG (default doc/bench/bench-peers.png; "
                   "--quick: out/bench-peers-quick.png)")
    p.add_argument("--logs", help="copy every process's log into this directory at the end")
    p.add_argument("--work", required=True, help=argparse.SUPPRESS)
    a = p.parse_args()
    q = a.quick
    a.rounds = a.rounds or (1 if q else 3)
    a.warmup = a.warmup if a.warmup is not None else (1.0 if q else 3.0)
    a.seconds = a.seconds if a.seconds is not None else (2.0 if q else 5.0)
    a.storm_conns = a.storm_conns or (200000 if q else 1000000)
    a.json = a.json or os.path.join(ROOT, "out", "bench-peers-quick.json" if q
                                    else "bench-peers.json")
    a.png = a.png or os.path.join(ROOT, "out/bench-peers-quick.png" if q
                                  else "doc/bench/bench-peers.png")
    a.interval = 0.2
    a.max_wait = 120
    try:
        a.cores = [int(x) for x in a.cores.split(",")]
        if len(a.cores) != 2 or a.cores[0] == a.cores[1]:
            raise ValueError
    except ValueError:
        p.error("--cores takes two different core numbers, e.g. 0,1")
    if a.rounds < 1 or a.warmup < 0 or a.seconds < 1 or a.mem < 1024:
        p.error("--rounds >= 1, --warmup >= 0, --seconds >= 1 and --mem >= 1024")
    if a.flows_1m < 1000 or a.rounds_1m < 3 or a.storm_conns < 1000:
        p.error("--flows-1m >= 1000, --rounds-1m >= 3, --storm-conns >= 1000")
    a.systems = [s for s in a.systems.split(",") if s]
    if not a.systems or any(s not in SYSTEMS for s in a.systems):
        p.error("--systems: a list of " + ", ".join(SYSTEMS))
    return a


def main():
    a = parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
    inputs = make_inputs(a)
    allscn = make_scenarios(inputs, a)
    if a.scenarios:
        names = [n for n in a.scenarios.split(",") if n]
        bad = [n for n in names if n not in allscn]
        if bad:
            sys.exit("bench-peers: unknown scenario(s) %s; known: %s"
                     % (",".join(bad), ",".join(allscn)))
    elif a.quick:
        names = ["fwd", "ct_1k_rules", "storm"]
    else:
        names = list(allscn)
    scns = [allscn[n] for n in names]
    for tool in (GUFC, GEN):
        if not os.access(tool, os.X_OK):
            sys.exit("bench-peers: %s missing: build first (ninja -C build)" % tool)
    if "ovs" in a.systems and not os.access(VSWITCHD, os.X_OK):
        sys.exit("bench-peers: %s missing (package openvswitch-switch-dpdk)" % VSWITCHD)
    b = Bench(a)
    try:
        hp = ensure_hugepages(a.mem)
        generate(inputs, {s.inp.name for s in scns}, a.work, a.seed)
        build_rules(scns, a.work, a.seed, 70000)
        checks = {}
        if not a.no_check and "ovs" in a.systems:
            done = set()
            for scn in scns:
                key = (scn.inp.name, scn.rules.gufc_text())
                if key in done:
                    continue
                done.add(key)
                log("check %s: %d packets through gufc and OVS" % (scn.name,
                                                                  scn.sample_packets))
                checks[scn.name] = b.check(scn)
                if not checks[scn.name]["same"]:
                    log("check %s: the two forwarded DIFFERENT packets: %s"
                        % (scn.name, json.dumps(checks[scn.name])))
        runs = []
        for rnd in range(1, a.rounds + 1):
            for scn in scns:
                for sysname in scn.systems(a.systems):
                    try:
                        r = b.run(scn, sysname, rnd)
                    except Fail as e:
                        log("round %d %s %s: %s" % (rnd, scn.name, sysname, e))
                        r = {"error": str(e)}
                    r.update({"scenario": scn.name, "system": sysname, "round": rnd})
                    runs.append(r)
                    if "pps" in r:
                        extra = " (%.0f conn/s)" % r["conns_per_s"] if scn.storm else ""
                        # The polling threads (they want a CPU all the time).
                        busy = [t for t in r.get("threads", [])
                                if t["run_share"] + t["runq_wait_share"] >= 0.5]
                        if busy:
                            extra += "; polling threads waited for a CPU %s of the window" % \
                                "/".join("%.0f%%" % (100 * t["runq_wait_share"]) for t in busy)
                        log("round %d %-14s %-8s %7.3f Mpps%s" % (rnd, scn.name, sysname,
                                                                   r["pps"] / 1e6, extra))
        res = report(a, scns, runs, checks, hp)
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
        log("wrote " + a.json)
        try:
            plot(res, a.png, a.systems)
            log("wrote " + a.png)
        except ImportError:
            log("matplotlib missing (package python3-matplotlib): no PNG")
        failed = [n for n, c in checks.items() if not c["same"]]
        if failed:
            log("translation check failed: " + ", ".join(failed))
            return 1
        return 0
    except Fail as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted: stopping what runs and cleaning up")
        return 130
    finally:
        b.procs.stop_all()
        if a.logs:
            save_logs(a.work, a.logs)


if __name__ == "__main__":
    sys.exit(main())
