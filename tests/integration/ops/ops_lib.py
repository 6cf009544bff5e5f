# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the operations tests (ops_test.py): gufc started in the
background with its shell on a pipe, its RX port optionally on a FIFO the
test feeds; readers of pcap, pcapng and the frames' 5-tuples written here
(not gufc's); a DPDK telemetry client; a strict parser of the Prometheus
text exposition format; hugepages for the capture test.

Python 3 standard library only.
"""

import ipaddress
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import eal_dirs  # noqa: E402

SKIP = 77
EAL_BASE = ["--no-pci", "--log-level=lib.*:warning"]


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


# --------------------------------------------------------------------------
# pcap, pcapng, frames
# --------------------------------------------------------------------------

PCAP_HDR = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)


def pcap_records(path):
    """(header bytes, [record bytes with their 16-byte header]) of a classic pcap."""
    with open(path, "rb") as f:
        d = f.read()
    check(len(d) >= 24, "%s: not a pcap" % path)
    end = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, recs = 24, []
    while off + 16 <= len(d):
        incl = struct.unpack(end + "I", d[off + 8:off + 12])[0]
        recs.append(d[off:off + 16 + incl])
        off += 16 + incl
    return d[:24], recs


def pcap_frames(path):
    """Frames of a classic pcap (bytes each)."""
    return [r[16:] for r in pcap_records(path)[1]]


def pcapng_packets(path):
    """[(direction, frame)] of a pcapng's enhanced packet blocks; direction
    'in', 'out' or None (no epb_flags)."""
    with open(path, "rb") as f:
        d = f.read()
    out, off, end = [], 0, "<"
    while off + 12 <= len(d):
        btype, blen = struct.unpack(end + "II", d[off:off + 8])
        if btype == 0x0A0D0D0A:
            end = "<" if d[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack(end + "II", d[off:off + 8])
        check(blen >= 12 and off + blen <= len(d), "%s: bad pcapng block at %d" % (path, off))
        if btype == 6:
            caplen = struct.unpack(end + "I", d[off + 20:off + 24])[0]
            frame = d[off + 28:off + 28 + caplen]
            o = off + 28 + ((caplen + 3) & ~3)
            direction = None
            while o + 4 <= off + blen - 4:
                code, olen = struct.unpack(end + "HH", d[o:o + 4])
                if code == 0:
                    break
                if code == 2 and olen == 4:
                    flags = struct.unpack(end + "I", d[o + 4:o + 8])[0]
                    direction = {1: "in", 2: "out"}.get(flags & 3)
                o += 4 + ((olen + 3) & ~3)
            out.append((direction, frame))
        off += blen
    return out


def frame_ip_len(fr):
    """The IP datagram's length of an Ethernet frame (what iptables, and so
    gufc's flow and rule counters, count), from its header; 0 if not IP."""
    eth = struct.unpack("!H", fr[12:14])[0]
    off = 14
    while eth in (0x8100, 0x88A8):
        eth = struct.unpack("!H", fr[off + 2:off + 4])[0]
        off += 4
    if eth == 0x0800:
        return struct.unpack("!H", fr[off + 2:off + 4])[0]
    if eth == 0x86DD:
        return 40 + struct.unpack("!H", fr[off + 4:off + 6])[0]
    return 0


def frame_tuple(fr):
    """(proto, src, sport, dst, dport) of an Ethernet frame as gufc keys it
    (ICMP, as Linux conntrack's tuple: a query's identifier (echo; ICMPv4
    timestamp, information, address mask) or 0, then type << 8 | code),
    or None for anything else."""
    eth = struct.unpack("!H", fr[12:14])[0]
    off = 14
    while eth in (0x8100, 0x88A8):
        eth = struct.unpack("!H", fr[off + 2:off + 4])[0]
        off += 4
    if eth == 0x0800:
        ihl = (fr[off] & 0xF) * 4
        proto = fr[off + 9]
        src = str(ipaddress.IPv4Address(fr[off + 12:off + 16]))
        dst = str(ipaddress.IPv4Address(fr[off + 16:off + 20]))
        l4 = off + ihl
        icmp = proto == 1
    elif eth == 0x86DD:
        proto = fr[off + 6]
        src = str(ipaddress.IPv6Address(fr[off + 8:off + 24]))
        dst = str(ipaddress.IPv6Address(fr[off + 24:off + 40]))
        l4 = off + 40
        icmp = proto == 58
    else:
        return None
    if proto in (6, 17, 132):
        sport, dport = struct.unpack("!HH", fr[l4:l4 + 4])
    elif icmp:
        t, c = fr[l4], fr[l4 + 1]
        query = (0, 8, 13, 14, 15, 16, 17, 18) if proto == 1 else (128, 129)
        sport = struct.unpack("!H", fr[l4 + 4:l4 + 6])[0] if t in query else 0
        dport = t << 8 | c
    else:
        sport = dport = 0
    return (proto, src, sport, dst, dport)


def frame_tcp_flags(fr):
    t = frame_tuple(fr)
    if t is None or t[0] != 6:
        return 0
    off = 14
    eth = struct.unpack("!H", fr[12:14])[0]
    l4 = off + ((fr[off] & 0xF) * 4 if eth == 0x0800 else 40)
    return fr[l4 + 13]


# --------------------------------------------------------------------------
# Running gufc
# --------------------------------------------------------------------------

class Ctx:
    def __init__(self, args, name):
        self.build = os.path.abspath(args.build)
        self.src = os.path.abspath(args.src)
        self.gufc = os.path.join(self.build, "app", "gufc")
        self.gen = os.path.join(self.build, "app", "tools", "gufc-gen")
        self.exporter = os.path.join(self.src, "scripts", "gufc-prometheus.py")
        self.name = name
        self.work = tempfile.mkdtemp(prefix="gufc-ops-%s-" % name)
        # EAL file prefixes: their directories are removed at exit if a gufc left them.
        self.prefixes = eal_dirs.Prefixes("gufc-ops-%s-%d-" % (name, os.getpid()) + "%d")

    def path(self, *p):
        return os.path.join(self.work, *p)

    def prefix(self):
        return self.prefixes.new()

    def write(self, name, text):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def gen_pcap(self, name, *opts):
        out = self.path(name)
        r = subprocess.run([self.gen, "-o", out] + list(opts), capture_output=True, text=True)
        check(r.returncode == 0, "gufc-gen: %s" % r.stderr)
        return out


class Gufc:
    """gufc in the background: shell on a pipe (-i), output in a log file."""

    def __init__(self, ctx, eal, args, tag, wrap=()):
        self.ctx = ctx
        self.prefix = ctx.prefix()
        self.log = ctx.path(tag + ".log")
        self.cmd = list(wrap) + [ctx.gufc] + EAL_BASE + ["--file-prefix", self.prefix] + eal + \
            ["--"] + args + ["-i"]
        self.lf = open(self.log, "w")
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=self.lf,
                                  stderr=subprocess.STDOUT, text=True)
        self.mark = 0
        self.wait_for(r"lcores \(M main")

    def text(self):
        with open(self.log) as f:
            return f.read()

    def wait_for(self, pattern, timeout=30):
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        while True:
            t = self.text()
            m = rx.search(t)
            if m:
                return m
            check(self.p.poll() is None, "gufc exited (%s) before '%s':\n%s" %
                  (self.p.returncode, pattern, t[-3000:]))
            check(time.monotonic() < deadline, "gufc: no '%s' in %d s:\n%s" %
                  (pattern, timeout, t[-3000:]))
            time.sleep(0.05)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def ask(self, line):
        """Run a shell command; return what it printed."""
        self.mark += 1
        b, e = "@@begin%d" % self.mark, "@@end%d" % self.mark
        self.send("echo " + b)
        self.send(line)
        self.send("echo " + e)
        self.wait_for("^%s$" % e)
        t = self.text()
        return t[t.index(b + "\n") + len(b) + 1:t.index(e + "\n")]

    def stat(self, name):
        for line in self.ask("show stats").splitlines():
            f = line.split()
            if f and f[0] == name:
                return int(f[1])
        raise Fail("no '%s' in show stats" % name)

    def wait_rx(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            rx = self.stat("rx")
            if rx == n:
                return
            check(time.monotonic() < deadline, "rx did not reach %d (now %d)" % (n, rx))
            time.sleep(0.1)

    def quit(self, expect_rc=0, timeout=60):
        self.send("quit")
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Fail("gufc did not stop")
        self.lf.close()
        check(rc == expect_rc, "gufc exit %d, expected %d:\n%s" % (rc, expect_rc,
                                                                   self.text()[-3000:]))

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.lf.close()


def load_stats(js):
    check(os.path.exists(js), "no --stats-json file")
    with open(js) as f:
        s = json.load(f)
    drops = sum(s["drops"].values())
    check(s["rx"] == s["delivered"] + drops, "accounting: rx %d != delivered %d + drops %d" %
          (s["rx"], s["delivered"], drops))
    check(s["accounting"]["ok"] and s["mempool"]["whole"], "accounting or mempool not ok")
    return s


# --------------------------------------------------------------------------
# Telemetry and the exposition format
# --------------------------------------------------------------------------

def telemetry(prefix, commands):
    """{command: answer} from gufc's telemetry socket (the v2 protocol)."""
    path = os.path.join("/var/run/dpdk", prefix, "dpdk_telemetry.v2")
    out = {}
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(10)
        s.connect(path)
        size = json.loads(s.recv(1024).decode())["max_output_len"]
        for c in commands:
            s.send(c.encode())
            out[c] = json.loads(s.recv(size).decode())[c]
    return out


NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
SAMPLE = re.compile(r"^(%s)(\{(.*)\})? (\S+)$" % NAME)
LABEL_PAIR = re.compile(r'(%s)="((?:[^"\\]|\\.)*)"(,|$)' % LABEL)


def parse_exposition(text):
    """Parse strictly; return {name: {"type", "help", "samples": {labels tuple: value}}}."""
    fams, current = {}, None
    check(text.endswith("\n"), "exposition does not end with a newline")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = "line %d: %r" % (n, line)
        check(line != "", "empty line: " + where)
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            check(re.fullmatch(NAME, name) and help_text, "bad HELP: " + where)
            check(name not in fams, "family declared twice: " + where)
            fams[name] = {"help": help_text, "type": None, "samples": {}}
            current = name
            continue
        if line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            check(name == current and fams[name]["type"] is None and not fams[name]["samples"],
                  "TYPE must follow its HELP: " + where)
            check(kind in ("counter", "gauge"), "type counter or gauge: " + where)
            check(kind != "counter" or name.endswith("_total"),
                  "a counter's name ends in _total: " + where)
            fams[name]["type"] = kind
            continue
        check(not line.startswith("#"), "unexpected comment: " + where)
        m = SAMPLE.match(line)
        check(m, "bad sample: " + where)
        name, labels_text, value = m.group(1), m.group(3), m.group(4)
        check(name == current and fams[name]["type"], "sample outside its family: " + where)
        labels = []
        if labels_text:
            pos = 0
            while pos < len(labels_text):
                lm = LABEL_PAIR.match(labels_text, pos)
                check(lm, "bad labels: " + where)
                v = re.sub(r"\\(.)", lambda x: {"n": "\n"}.get(x.group(1), x.group(1)),
                           lm.group(2))
                labels.append((lm.group(1), v))
                pos = lm.end()
        check(len({k for k, _ in labels}) == len(labels), "label repeated: " + where)
        try:
            v = float(value)
        except ValueError:
            raise Fail("bad value: " + where)
        key = tuple(sorted(labels))
        check(key not in fams[name]["samples"], "sample repeated: " + where)
        if fams[name]["type"] == "counter":
            check(v >= 0, "negative counter: " + where)
        fams[name]["samples"][key] = v
    for name, fam in fams.items():
        check(fam["type"] is not None and fam["samples"], "family %s has no TYPE or samples" %
              name)
    return fams


def metric(fams, name, **labels):
    check(name in fams, "no metric %s" % name)
    key = tuple(sorted((k, str(v)) for k, v in labels.items()))
    check(key in fams[name]["samples"], "no sample %s%s" % (name, dict(key)))
    return fams[name]["samples"][key]


# --------------------------------------------------------------------------
# Hugepages (the capture test)
# --------------------------------------------------------------------------

class Hugepages:
    """A hugetlbfs mount of the test's own, and enough free 2 MiB pages: the
    pool is raised by what is missing, never lowered; pages never unmounted
    but the test's own."""

    def __init__(self, ctx, pages):
        if os.geteuid() != 0:
            raise Skip("needs root for hugepages")
        self.dir = ctx.path("huge")
        os.makedirs(self.dir)
        free = self.free()
        if free < pages:
            with open("/proc/sys/vm/nr_hugepages") as f:
                total = int(f.read())
            with open("/proc/sys/vm/nr_hugepages", "w") as f:
                f.write("%d\n" % (total + pages - free))
        check(self.free() >= pages, "could not get %d free hugepages (%d free)" %
              (pages, self.free()))
        r = subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", self.dir],
                           capture_output=True, text=True)
        check(r.returncode == 0, "mount hugetlbfs: %s" % r.stderr)
        self.mounted = True

    @staticmethod
    def free():
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("HugePages_Free:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        if not getattr(self, "mounted", False):
            return
        for fn in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, fn))
        subprocess.run(["umount", self.dir])
        self.mounted = False
