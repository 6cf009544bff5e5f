# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the router tests (router_test.py, router_jumbo.py): two Linux
hosts in network namespaces, a client and a server, with gufc in router
mode as their gateway over two net_tap ports (or net_pcap ports on veth
pairs: Gateway(link="veth"), for MTUs a tap cannot take); gufc's shell on
a pipe; programs run in a namespace; cleanup of everything started.

Gateway(vlans=(A, B)): one net_tap port (port 0) is a VLAN trunk; the
client is on VLAN A and the server on VLAN B, so gufc's VLAN
sub-interfaces carry both subnets over one device. Where the kernel has
802.1Q devices (8021q), the tap is the client's and the hosts' interfaces
are Linux VLAN devices on it (TAP.A in the client's namespace, TAP.B moved
to the server's); else each host is on an access port of an 802.1Q switch
(VLAN_SWITCH, a userspace switch in a namespace of its own: the trunk is
the tap, the access ports veth pairs to the hosts).

Addresses: client 10.0.1.2/24 and 2001:db8:1::2/64 behind port 0
(10.0.1.1, 2001:db8:1::1), server 10.0.2.2/24 and 2001:db8:2::2/64 behind
port 1 (10.0.2.1, 2001:db8:2::1).

Python 3 standard library only; needs root (namespaces, taps).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77

CLIENT4, CLIENT6 = "10.0.1.2", "2001:db8:1::2"
SERVER4, SERVER6 = "10.0.2.2", "2001:db8:2::2"
GW_IN4, GW_IN6 = "10.0.1.1", "2001:db8:1::1"
GW_OUT4, GW_OUT6 = "10.0.2.1", "2001:db8:2::1"
CLIENT_MAC, SERVER_MAC = "02:00:00:00:01:02", "02:00:00:00:02:02"


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def sh(args, check_rc=True, timeout=30, **kw):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout, **kw)
    if check_rc and r.returncode != 0:
        raise Fail("%s: rc %d: %s" % (" ".join(args), r.returncode, r.stdout.strip()))
    return r


def linux_vlans_possible():
    """Can this kernel make 802.1Q VLAN devices (ip link add ... type vlan)?"""
    ns = "gufcvlanprobe%d" % os.getpid()
    if subprocess.run(["ip", "netns", "add", ns], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        return False
    try:
        r = subprocess.run(["ip", "-n", ns, "link", "add", "p0", "type", "veth", "peer", "name",
                            "p1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode != 0:
            return False
        return subprocess.run(["ip", "-n", ns, "link", "add", "link", "p0", "name", "p0.5",
                               "type", "vlan", "id", "5"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def namespaces_possible():
    """None, or why network namespaces and taps cannot be used here."""
    if os.geteuid() != 0:
        return "not root"
    if shutil.which("ip") is None:
        return "no ip(8)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    name = "gufcprobe%d" % os.getpid()
    r = subprocess.run(["ip", "netns", "add", name], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        return "ip netns add: " + r.stdout.decode(errors="replace").strip()
    subprocess.run(["ip", "netns", "del", name])
    return None


# An 802.1Q switch (python3 -c VLAN_SWITCH TRUNK VID=IFACE...): frames from
# the trunk tagged VID go untagged to VID's access port, an access port's
# frames to the trunk with its tag pushed; other frames are dropped. The
# kernel moves a received tag into the packet's auxiliary data (and a frame
# sent on the tap with its tag in the bytes leaves as written).
VLAN_SWITCH = r"""
import select, socket, struct, sys
SOL_PACKET, PACKET_AUXDATA, TP_STATUS_VLAN_VALID = 263, 8, 0x10
def sock(ifn):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifn, 0))
    return s
trunk = sock(sys.argv[1])
vid_of, port_of = {}, {}
for a in sys.argv[2:]:
    v, ifn = a.split("=")
    s = sock(ifn)
    vid_of[s], port_of[int(v)] = int(v), s
print("READY", flush=True)
while True:
    for s in select.select([trunk] + list(vid_of), [], [])[0]:
        data, anc, _, addr = s.recvmsg(1 << 16, socket.CMSG_SPACE(20))
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        if s is not trunk:
            trunk.send(data[:12] + struct.pack("!HH", 0x8100, vid_of[s]) + data[12:])
            continue
        vid = None
        for lvl, typ, d in anc:
            if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
                st, _, _, _, _, tci, _ = struct.unpack("IIIHHHH", d[:20])
                if st & TP_STATUS_VLAN_VALID:
                    vid = tci & 0xfff
        if vid is None and data[12:14] == b"\x81\x00":
            vid, data = struct.unpack("!H", data[14:16])[0] & 0xfff, data[:12] + data[16:]
        if vid in port_of:
            port_of[vid].send(data)
"""


class Gateway:
    """gufc as the router of a client and a server namespace."""

    def __init__(self, build, config, rules, server_default_route=True, lcores="0,1",
                 rxq=True, link="tap", mtu=1500, vlans=None, rules_kw="rules"):
        self.gufc = os.path.join(build, "app", "gufc")
        check(os.access(self.gufc, os.X_OK), "no gufc binary: " + self.gufc)
        self.tag = "%d" % (os.getpid() % 100000)
        self.cns, self.sns = "gufc-c" + self.tag, "gufc-s" + self.tag
        self.ctap, self.stap = "gc" + self.tag, "gs" + self.tag
        self.prefix = "gufc-router-" + self.tag
        self.dir = tempfile.mkdtemp(prefix="gufc-router.")
        self.proc = None
        self.out = None
        self.mark = 0
        self.server_default_route = server_default_route
        self.lcores = lcores
        self.rxq = rxq  # False: no --rxq, the layout gufc picks for net_tap
        # "tap": net_tap ports; "veth": net_pcap on the root end of a veth
        # pair (rx_iface_in, tx_iface) whose other end is the host's, both
        # ends at @mtu (a tuple: the client's link, the server's); one
        # lcore (one TX queue per net_pcap port)
        self.link = link
        self.mtu = mtu if isinstance(mtu, tuple) else (mtu, mtu)
        # (client's VLAN, server's VLAN): one tap, a trunk to VLAN_SWITCH in
        # namespace wns, the hosts on veth pairs to its access ports
        self.vlans = vlans
        self.wns, self.wtap = "gufc-w" + self.tag, "gw" + self.tag
        self.switch = None
        # Linux VLAN devices where the kernel has them, else the switch
        self.linux_vlans = bool(vlans) and linux_vlans_possible()
        if self.linux_vlans:
            self.ctap = "%s.%d" % (self.wtap, vlans[0])
            self.stap = "%s.%d" % (self.wtap, vlans[1])
        if link == "veth":
            self.lcores = lcores = "0"
        self.json = os.path.join(self.dir, "stats.json")
        with open(os.path.join(self.dir, "gufc.conf"), "w") as f:
            f.write(config)
            f.write("\n%s %s\n" % (rules_kw, os.path.join(self.dir, "gw.rules")))
        with open(os.path.join(self.dir, "gw.rules"), "w") as f:
            f.write(rules)
        self.summary = ""

    # -- lifecycle -------------------------------------------------------

    def start(self):
        for ns in (self.cns, self.sns) + ((self.wns,) if self.vlans else ()):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
            sh(["ip", "netns", "add", ns])
        self.out = open(os.path.join(self.dir, "out.txt"), "w+")
        # net_tap wants as many RX as TX queues: two lcores give two TX
        # queues per port, so two RX queues (rxq=False: gufc finds that out).
        rxq = ["--rxq", str(len(self.lcores.split(",")))] if self.rxq else []
        if self.link == "veth":
            vdevs = []
            for i, (tap, ns, mtu) in enumerate(((self.ctap, self.cns, self.mtu[0]),
                                                (self.stap, self.sns, self.mtu[1]))):
                root = "r" + tap
                subprocess.run(["ip", "link", "del", root], stderr=subprocess.DEVNULL)
                sh(["ip", "link", "add", root, "mtu", str(mtu), "type", "veth", "peer",
                    "name", tap, "mtu", str(mtu)])
                sh(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % root])
                sh(["ip", "link", "set", root, "up"])
                vdevs.append("--vdev=net_pcap%d,rx_iface_in=%s,tx_iface=%s" % (i, root, root))
        elif self.vlans:
            vdevs = ["--vdev=net_tap0,iface=%s" % self.wtap]
        else:
            vdevs = ["--vdev=net_tap0,iface=%s" % self.ctap,
                     "--vdev=net_tap1,iface=%s" % self.stap]
        args = [self.gufc, "--no-huge", "-m", "1024", "--no-pci", "--file-prefix",
                self.prefix, "-l", self.lcores, "--log-level=lib.*:warning"] + vdevs + [
                "--"] + rxq + [
                "--config", os.path.join(self.dir, "gufc.conf"), "--stats-json", self.json,
                "-i"]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True)
        for _ in range(100):
            if self._link_exists(self.wtap if self.vlans else self.stap):
                break
            if self.proc.poll() is not None:
                raise Fail("gufc exited at start:\n" + self.output())
            time.sleep(0.1)
        else:
            raise Fail("the tap interfaces did not appear")
        self.shell("echo started")  # gufc runs: ports started
        if self.vlans and self.linux_vlans:
            self._linux_vlans()
        elif self.vlans:
            self._vlan_switch()
        for tap, ns, mac, a4, a6, gw4, gw6 in (
                (self.ctap, self.cns, CLIENT_MAC, CLIENT4, CLIENT6, GW_IN4, GW_IN6),
                (self.stap, self.sns, SERVER_MAC, SERVER4, SERVER6, GW_OUT4, GW_OUT6)):
            if not self.vlans:
                sh(["ip", "link", "set", tap, "netns", ns])
            # net_tap gives the host side the port's MAC: a MAC of its own.
            self.ns(ns, ["ip", "link", "set", tap, "address", mac])
            if self.vlans and not self.linux_vlans:
                # A veth hands on TCP/UDP with the checksum and the
                # segmentation left to its peer: the switch reads frames,
                # so the host makes whole ones, as on a wire.
                self.ns(ns, ["ethtool", "-K", tap, "tx", "off", "tso", "off", "gso", "off"])
            if self.link == "veth":
                self.ns(ns, ["ip", "link", "set", tap, "mtu",
                             str(self.mtu[0 if ns == self.cns else 1])])
                # A veth sends TCP/UDP with the checksum left to its peer
                # (CHECKSUM_PARTIAL): gufc reads the frames, so the host
                # computes its checksums, as on a wire.
                self.ns(ns, ["ethtool", "-K", tap, "tx", "off"])
            self.ns(ns, ["ip", "link", "set", "lo", "up"])
            # Announce a new MAC (gratuitous ARP, unsolicited NA) as hosts may.
            self.ns(ns, ["sysctl", "-qw", "net.ipv4.conf.all.arp_notify=1"])
            self.ns(ns, ["sysctl", "-qw", "net.ipv6.conf.all.ndisc_notify=1"])
            self.ns(ns, ["sysctl", "-qw", "net.ipv6.conf.default.ndisc_notify=1"])
            self.ns(ns, ["ip", "addr", "add", a4 + "/24", "dev", tap])
            self.ns(ns, ["ip", "addr", "add", a6 + "/64", "dev", tap, "nodad"])
            self.ns(ns, ["ip", "link", "set", tap, "up"])
            if ns == self.cns or self.server_default_route:
                self.ns(ns, ["ip", "route", "add", "default", "via", gw4])
                self.ns(ns, ["ip", "-6", "route", "add", "default", "via", gw6])

    def _linux_vlans(self):
        """The tap in the client's namespace, a VLAN device on it for each
        host (the server's moved to its namespace)."""
        sh(["ip", "link", "set", self.wtap, "netns", self.cns])
        self.ns(self.cns, ["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % self.wtap])
        self.ns(self.cns, ["ip", "link", "set", self.wtap, "up"])
        for tap, vid in ((self.ctap, self.vlans[0]), (self.stap, self.vlans[1])):
            self.ns(self.cns, ["ip", "link", "add", "link", self.wtap, "name", tap, "type",
                               "vlan", "id", str(vid)])
        self.ns(self.cns, ["ip", "link", "set", self.stap, "netns", self.sns])

    def trunk_ns(self):
        """The namespace the trunk (the tap) is in."""
        return self.cns if self.linux_vlans else self.wns

    def _vlan_switch(self):
        """The trunk (the tap) in the switch's namespace, a veth pair from
        each access port to its host, and the switch."""
        sh(["ip", "link", "set", self.wtap, "netns", self.wns])
        ports = []
        for tap, ns, vid in ((self.ctap, self.cns, self.vlans[0]),
                             (self.stap, self.sns, self.vlans[1])):
            acc = "w" + tap
            sh(["ip", "link", "add", tap, "netns", ns, "type", "veth", "peer", "name", acc,
                "netns", self.wns])
            ports.append("%d=%s" % (vid, acc))
        for ifn in [self.wtap] + [p.split("=")[1] for p in ports]:
            self.ns(self.wns, ["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % ifn])
            self.ns(self.wns, ["ip", "link", "set", ifn, "up"])
        self.switch = self.python(self.wns, VLAN_SWITCH, self.wtap, *ports)
        line = self.switch.stdout.readline()
        check(line.startswith("READY"), "the VLAN switch did not start: " + line)

    def trunk_send(self, frames):
        """Send raw Ethernet frames (bytes, tags in them) to gufc on the trunk."""
        code = ("import socket, sys\n"
                "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
                "s.bind((sys.argv[1], 0))\n"
                "for h in sys.argv[2:]:\n"
                "    s.send(bytes.fromhex(h))\n")
        self.ns(self.trunk_ns(), [sys.executable, "-c", code, self.wtap] +
                [f.hex() for f in frames])

    def stop(self):
        """Quit gufc; its summary; the accounting must hold."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise Fail("gufc did not stop on quit")
        rc = self.proc.returncode
        self.proc = None
        self.summary = self.output()
        check(rc == 0, "gufc exit status %d" % rc)
        check("accounting: rx" in self.summary and ": OK" in self.summary.split(
            "accounting: rx")[1].splitlines()[0], "accounting violated")

    def cleanup(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.switch is not None:
            self.switch.kill()
            self.switch.wait()
            self.switch = None
        for ns in (self.cns, self.sns) + ((self.wns,) if self.vlans else ()):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        if self.link == "veth":
            for tap in (self.ctap, self.stap):
                subprocess.run(["ip", "link", "del", "r" + tap], stderr=subprocess.DEVNULL)
        if self.out is not None:
            self.out.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree("/var/run/dpdk/" + self.prefix, ignore_errors=True)

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.dump()
            self.cleanup()
            raise
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            self.dump()
        self.cleanup()
        return False

    # -- gufc ------------------------------------------------------------

    def output(self):
        self.out.flush()
        with open(self.out.name) as f:
            return f.read()

    def dump(self):
        try:
            text = self.output()
        except (OSError, ValueError, AttributeError):
            return
        print("---- gufc output (last 80 lines)")
        print("\n".join(text.splitlines()[-80:]))

    def shell(self, command, timeout=20):
        """Run a shell command in gufc; what it printed."""
        self.mark += 1
        begin, end = "@@begin%d@@" % self.mark, "@@end%d@@" % self.mark
        self.proc.stdin.write("echo %s\n%s\necho %s\n" % (begin, command, end))
        self.proc.stdin.flush()
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.output()
            if end in text and begin in text:
                return text.split(begin, 1)[1].split(end, 1)[0]
            if self.proc.poll() is not None:
                raise Fail("gufc exited during '%s'" % command)
            time.sleep(0.05)
        raise Fail("no answer to '%s'" % command)

    def telemetry(self, commands):
        """Answers of telemetry @commands (dict by command), None without
        dpdk-telemetry.py."""
        tool = shutil.which("dpdk-telemetry.py")
        if tool is None:
            return None
        r = subprocess.run([sys.executable, tool, "-f", self.prefix],
                           input="\n".join(commands) + "\n", stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30)
        answers = {}
        for line in r.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                answers.update(json.loads(line))
        for c in commands:
            check(isinstance(answers.get(c), dict), "telemetry %s: %s" % (c, r.stdout[-500:]))
        return answers

    def scrape(self, exporter):
        """One /metrics scrape through scripts/gufc-prometheus.py: {sample: value}."""
        import urllib.request

        log = os.path.join(self.dir, "exporter.log")
        with open(log, "w") as lf:
            p = subprocess.Popen([sys.executable, exporter, "--file-prefix", self.prefix,
                                  "--listen", "127.0.0.1:0"], stdout=lf, stderr=subprocess.STDOUT)
        try:
            deadline, port = time.time() + 20, None
            while port is None:
                with open(log) as f:
                    t = f.read()
                if "serving http://127.0.0.1:" in t:
                    port = int(t.split("serving http://127.0.0.1:")[1].split("/")[0])
                    break
                check(p.poll() is None and time.time() < deadline, "exporter: " + t)
                time.sleep(0.05)
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
                body = r.read().decode()
        finally:
            p.kill()
            p.wait()
        samples = {}
        for line in body.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                samples[name] = float(value)
        return samples

    def stats(self):
        """The final --stats-json (after stop())."""
        with open(self.json) as f:
            return json.load(f)

    # -- hosts -----------------------------------------------------------

    def _link_exists(self, name):
        return subprocess.run(["ip", "link", "show", name], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0

    def ns(self, ns, args, check_rc=True, timeout=30):
        return sh(["ip", "netns", "exec", ns] + args, check_rc, timeout)

    def client(self, args, check_rc=True, timeout=30):
        return self.ns(self.cns, args, check_rc, timeout)

    def server(self, args, check_rc=True, timeout=30):
        return self.ns(self.sns, args, check_rc, timeout)

    def spawn(self, ns, args):
        """A process in namespace @ns (stdout piped, text)."""
        return subprocess.Popen(["ip", "netns", "exec", ns] + args, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.PIPE, text=True)

    def python(self, ns, code, *args):
        """python3 -c CODE ARGS... in namespace @ns, spawned."""
        return self.spawn(ns, [sys.executable, "-u", "-c", code] + list(args))


def main(tests, argv):
    """Run test @argv[1] of @tests (name -> fn(build))."""
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("test", choices=sorted(tests))
    ap.add_argument("--build", required=True)
    a = ap.parse_args(argv[1:])
    why = namespaces_possible()
    if why is not None:
        print("SKIP: network namespaces impossible here: " + why)
        return SKIP
    try:
        tests[a.test](a.build)
    except Skip as e:
        print("SKIP: %s" % e)
        return SKIP
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    print("PASS: router_%s" % a.test)
    return 0
