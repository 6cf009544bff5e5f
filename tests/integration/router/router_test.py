#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gufc as the router of real Linux hosts (router_lib.Gateway: a client and
a server namespace over net_tap ports):

  ping    IPv4/IPv6 echo to the gateway's addresses and through it (TTL /
          hop limit one lower), time exceeded for TTL 1
  tcp     a 64 MB IPv4 and a 16 MB IPv6 transfer, SHA-256 compared
  udp     datagrams echoed through the gateway, IPv4 and IPv6
  nat     masquerade (the server, without a route back, sees the gateway's
          egress address) and a DNAT port forward on the gateway's address
  commit  a rule commit cuts a live TCP connection at its next packet
  pmtu    a smaller MTU on the egress port: fragmentation needed / packet
          too big reach the sender, whose transfers complete; a datagram
          without DF is fragmented
  reject  REJECT answers: TCP resets (IPv4, IPv6), ICMP/ICMPv6 port
          unreachable, ICMP host prohibited from the gateway's address, a
          port unreachable from the gateway's own address for a packet to it
  unreach no route: ICMP net unreachable (ICMPv6 no route); a connected
          address nobody answers: host (address) unreachable; multicast
          not forwarded
  mode    "set mode router" / "set mode bridge" at run time, and the
          settings "set" refuses
  neigh   the server changes its MAC: the router learns it from the
          gratuitous ARP and the unsolicited neighbour advertisement, and
          the cached IPv4 and IPv6 flows follow at once
  ftp     FTP through a FORWARD DROP / ESTABLISHED,RELATED rule set with
          masquerade and CT --helper ftp in raw: passive and active
          transfers (IPv4 PASV/PORT, IPv6 EPSV/EPRT) complete and their
          data connections are RELATED; a passive data connection whose
          tuple was dropped (and cached) before its 227 gets through at
          its retry (drops_expected); without the CT rule the passive
          data connection is refused
  ttl     TTL / HL targets in mangle FORWARD and POSTROUTING act after the
          router's own decrement (as Linux's ip_forward), one in PREROUTING
          before it and before the expiry check (a set to 1: time
          exceeded), on the first (slow path) and later (cached) packets
  ftp_linux  the same through a Linux router (nf_conntrack_ftp, nf_nat_ftp)
          with the same rules as iptables: the behaviour gufc matches
  tftp    TFTP (RFC 1350) through a FORWARD DROP / ESTABLISHED,RELATED rule
          set with masquerade and CT --helper tftp in raw: read requests
          over IPv4 and IPv6 complete (the server answers from a port of its
          own, the answer is RELATED); without the CT rule the answer is
          refused
  tftp_linux  the same through a Linux router (nf_conntrack_tftp,
          nf_nat_tftp) with the same rules as iptables
  sip     a SIP call over UDP (IPv4, IPv6) through a FORWARD DROP /
          ESTABLISHED,RELATED rule set with CT --helper sip in raw, no NAT:
          the INVITE's and the 200 OK's SDP make the callee's RTP and the
          caller's RTCP RELATED; without the CT rule both are refused
  sip_linux  the same through a Linux router (nf_conntrack_sip)
  sip_nat a SIP call from behind masquerade (IPv4, IPv6): the INVITE's Via,
          From, Contact and SDP arrive with the gateway's address and port,
          the answer's Via, received=, rport= and From go back to the
          caller's own, byte for byte what nf_nat_sip writes; the callee's
          RTP reaches the caller through the gateway and the caller's RTCP
          the callee; then the caller REGISTERs (its Contact becomes the
          gateway's) and the registrar's call from another port of its
          address reaches it (sip_direct_signalling); over TCP, a REGISTER
          and an OPTIONS in one segment are rewritten (the stream's
          numbers follow) and the registrar's connection to the Contact
          reaches the phone; a phone sending from another port than the one
          its Via names gets its answers there (forced_dport)
  sip_nat_linux  the same through a Linux router (nf_conntrack_sip,
          nf_nat_sip): the oracle
  irc     an IRC DCC SEND offer through masquerade with CT --helper irc:
          the offer is rewritten to the gateway's outside address and the
          peer's connection reaches the client; without the CT rule the
          offer is unchanged and the connection refused
  irc_linux  the same through a Linux router (nf_conntrack_irc, nf_nat_irc)

Usage: router_test.py TEST --build BUILD_DIR (exit 77: namespaces impossible)
"""

import os
import re
import select
import sys
import time

from router_lib import (CLIENT4, CLIENT6, GW_IN4, GW_IN6, GW_OUT4, GW_OUT6, SERVER4,
                        SERVER6, Fail, Gateway, Skip, check, main)

EXPORTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts",
                        "gufc-prometheus.py")

BASE_CONF = """set mode router
port 0 name inside address 10.0.1.1/24 2001:db8:1::1/64
port 1 name outside address 10.0.2.1/24 2001:db8:2::1/64
"""

ACCEPT = "policy accept\n"

# A TCP sink: accept one connection, read to EOF, print bytes, SHA-256, peer.
SINK = r"""
import hashlib, socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
print("LISTEN", flush=True)
c, peer = s.accept()
h, n = hashlib.sha256(), 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
    n += len(b)
c.sendall(h.hexdigest().encode())
c.close()
print("GOT", n, h.hexdigest(), peer[0], flush=True)
"""

# A TCP source: connect, send N MB of seeded data, print bytes, SHA-256, seconds.
SOURCE = r"""
import hashlib, random, socket, sys, time
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
mb = int(sys.argv[3])
rnd = random.Random(7)
block = bytes(rnd.getrandbits(8) for _ in range(1 << 16))
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=30)
h = hashlib.sha256()
t0 = time.time()
for i in range(mb * 16):
    b = block[i % 251:] + block[:i % 251]
    c.sendall(b)
    h.update(b)
c.shutdown(socket.SHUT_WR)
echo = c.recv(64).decode()
dt = time.time() - t0
print("SENT", mb * 16 * len(block), h.hexdigest(), "%.3f" % dt, echo, flush=True)
"""

# UDP echo server; at "quit" it prints the source addresses it saw: "PEERS a b".
UDP_ECHO = r"""
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
print("LISTEN", flush=True)
peers = set()
while True:
    b, peer = s.recvfrom(65535)
    if b == b"quit":
        break
    peers.add(peer[0])
    s.sendto(b, peer)
print("PEERS", " ".join(sorted(peers)), flush=True)
"""

UDP_CLIENT = r"""
import os, socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.settimeout(1.0)
ok = lost = 0
# argv[3] datagrams; of argv[4] random bytes each if given, else of 6 to 1,200.
size = int(sys.argv[4]) if len(sys.argv) > 4 else 0
for i in range(int(sys.argv[3])):
    msg = os.urandom(size) if size else ("%06d" % i).encode() * (1 + i % 200)
    for attempt in range(3):
        s.sendto(msg, (sys.argv[1], int(sys.argv[2])))
        try:
            b, _ = s.recvfrom(65535)
        except socket.timeout:
            lost += 1
            continue
        if b == msg:
            ok += 1
        break
s.sendto(b"quit", (sys.argv[1], int(sys.argv[2])))
print("UDP", ok, lost, flush=True)
"""

# Line echo server and a client that waits for a go file between messages.
ECHO = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
print("LISTEN", flush=True)
c, _ = s.accept()
while True:
    b = c.recv(4096)
    if not b:
        break
    c.sendall(b)
"""

CHATTER = r"""
import os, socket, sys, time
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
c.settimeout(2.0)
for i in range(20):
    c.sendall(b"hello %d\n" % i)
    if c.recv(100) != b"hello %d\n" % i:
        print("BAD", i, flush=True)
        sys.exit(1)
print("READY", flush=True)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.02)
c.sendall(b"after\n")
try:
    b = c.recv(100)
    print("ALIVE", b, flush=True)
except socket.timeout:
    print("CUT", flush=True)
"""


# A small FTP server (RFC 959 and 2428, what ftplib sends): one file, "f",
# of N seeded bytes; PORT/EPRT (it connects back) and PASV/EPSV; one session.
FTPD = r"""
import random, socket, sys
host, size = sys.argv[1], int(sys.argv[2])
pasv_port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
data = random.Random(11).randbytes(size)
ls = socket.socket(fam, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((host, 21))
ls.listen(4)
print("LISTEN", flush=True)
while True:
    c, peer = ls.accept()
    f = c.makefile("rwb")
    def say(t):
        f.write((t + "\r\n").encode()); f.flush()
    say("220 gufc test ftpd")
    active, pasv = None, None
    for line in f:
        cmd, _, arg = line.decode().strip().partition(" ")
        cmd = cmd.upper()
        if cmd in ("USER", "PASS", "TYPE"):
            say("331 ok" if cmd == "USER" else "230 ok" if cmd == "PASS" else "200 ok")
        elif cmd == "PORT":
            n = [int(x) for x in arg.split(",")]
            active = ("%d.%d.%d.%d" % tuple(n[:4]), n[4] * 256 + n[5])
            say("200 PORT ok")
        elif cmd == "EPRT":
            d = arg[0]
            _, _, a, p, _ = arg.split(d)
            active = (a, int(p))
            say("200 EPRT ok")
        elif cmd in ("PASV", "EPSV"):
            pasv = socket.socket(fam, socket.SOCK_STREAM)
            pasv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            pasv.bind((host, pasv_port))
            pasv.listen(1)
            p = pasv.getsockname()[1]
            if cmd == "PASV":
                say("227 Entering Passive Mode (%s,%d,%d)." % (host.replace(".", ","), p >> 8, p & 255))
            else:
                say("229 Entering Extended Passive Mode (|||%d|)" % p)
        elif cmd == "RETR":
            try:
                if pasv is not None:
                    pasv.settimeout(10)
                    d, _ = pasv.accept()
                else:
                    d = socket.create_connection(active, timeout=10)
            except OSError as e:
                say("425 no data connection")
                print("NODATA", e, flush=True)
                pasv = active = None
                continue
            say("150 sending")
            d.sendall(data)
            d.close()
            pasv = active = None
            say("226 done")
            print("SENT", cmd, peer[0], flush=True)
        elif cmd == "QUIT":
            say("221 bye")
            break
        else:
            say("502 no")
    c.close()
"""

# An FTP client (ftplib): fetch "f" passive or active (argv[2]); SHA-256.
FTP_GET = r"""
import ftplib, hashlib, socket, sys
host, mode = sys.argv[1], sys.argv[2]
ftp = ftplib.FTP()
ftp.connect(host, 21, timeout=float(sys.argv[3]))
ftp.login("ftp", "x")
ftp.set_pasv(mode == "passive")
h, n = hashlib.sha256(), [0]
def got(b):
    h.update(b); n[0] += len(b)
try:
    ftp.retrbinary("RETR f", got)
    print("GOT", n[0], h.hexdigest(), flush=True)
except (OSError, ftplib.Error) as e:
    print("FAILED", type(e).__name__, flush=True)
try:
    ftp.quit()
except (OSError, ftplib.Error):
    pass
"""

# A passive data connection tried too early (argv[2]: the server's passive
# port, argv[3]: the client's source port): a SYN before PASV (dropped, and
# the drop cached for its tuple), then after the 227 the same tuple again,
# which must get through (the expectation takes the cached drop back).
FTP_EARLY = r"""
import ftplib, hashlib, socket, sys
host, dport, sport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def data_sock(timeout):
    d = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    d.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    d.bind(("", sport))
    d.settimeout(timeout)
    return d
ftp = ftplib.FTP()
ftp.connect(host, 21, timeout=10)
ftp.login("ftp", "x")
ftp.voidcmd("TYPE I")
d = data_sock(1.5)
try:
    d.connect((host, dport))
    print("EARLY connected (unexpected)", flush=True)
except OSError as e:
    print("EARLY", type(e).__name__, flush=True)
d.close()
resp = ftp.sendcmd("PASV")
port = ftplib.parse227(resp)[1]
d = data_sock(8)
try:
    d.connect((host, port))
except OSError as e:
    print("FAILED", type(e).__name__, flush=True)
    sys.exit(0)
ftp.sendcmd("RETR f")
h, n = hashlib.sha256(), 0
while True:
    b = d.recv(65536)
    if not b:
        break
    h.update(b)
    n += len(b)
d.close()
ftp.voidresp()
print("GOT", n, h.hexdigest(), flush=True)
ftp.quit()
"""

FTP_SIZE = 1 << 20


def wait_line(proc, word, timeout=15):
    deadline = time.time() + timeout
    lines = []
    while time.time() < deadline:
        # A process that neither prints nor ends must not hold the test past its deadline.
        if not select.select([proc.stdout], [], [], max(0.0, deadline - time.time()))[0]:
            break
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith(word):
            return line.split()
    raise Fail("no '%s' line: %s" % (word, "".join(lines)))


def transfer(gw, dst, port, mb, listen=None, src_ns=None, dst_ns=None):
    """TCP transfer of @mb MB from @src_ns (the client's) to @dst_ns (the
    server's); (sink words, source words).
    @listen: (address, port) the sink listens on, if not @dst, @port."""
    sink = gw.python(dst_ns or gw.sns, SINK, *(listen or (dst, str(port))))
    wait_line(sink, "LISTEN")
    src = gw.python(src_ns or gw.cns, SOURCE, dst, str(port), str(mb))
    sent = wait_line(src, "SENT", timeout=90)
    got = wait_line(sink, "GOT", timeout=10)
    src.wait(5)
    sink.wait(5)
    check(sent[1] == got[1] and sent[2] == got[2],
          "transfer to %s: sent %s %s, received %s %s" % (dst, sent[1], sent[2], got[1], got[2]))
    check(sent[4] == got[2], "the server's digest did not come back")
    return got, sent


def ping(gw, dst, extra=(), count=3):
    fam = ["-6"] if ":" in dst else ["-4"]
    return gw.client(["ping"] + fam + ["-c", str(count), "-i", "0.2", "-W", "2"] + list(extra)
                     + [dst], check_rc=False)


def t_tapqueues(build):
    """Two lcores, net_tap ports and no --rxq: net_tap takes only equal RX
    and TX queue counts, and the RX lcore's own TX queue (direct TX) makes
    two TX queues; gufc raises the RX queues to match by itself, says so,
    and routes both ways."""
    with Gateway(build, BASE_CONF, ACCEPT, lcores="0,1", rxq=False) as gw:
        for dst in (SERVER4, SERVER6):
            r = ping(gw, dst)
            check(r.returncode == 0, "ping %s: %s" % (dst, r.stdout))
        r = gw.server(["ping", "-4", "-c", "2", "-i", "0.2", "-W", "2", CLIENT4], check_rc=False)
        check(r.returncode == 0, "server -> client: %s" % r.stdout)
        gw.stop()
        out = gw.summary
        check(re.search(r"1 RX and 2 TX queues refused; the device takes equal counts: 2 of "
                        r"each", gw.output()), "no equal-count layout:\n" + gw.output()[-3000:])
        st = gw.stats()
        check(st["rx"] > 0 and "accounting: rx" in out, "stats: %s" % out[-2000:])
    print("tapqueues: -l 0,1 on two net_tap ports without --rxq: 2 RX and 2 TX queues "
          "each, routed both ways")


def t_ping(build):
    with Gateway(build, BASE_CONF, ACCEPT) as gw:
        for dst in (GW_IN4, GW_IN6, GW_OUT4, GW_OUT6):
            r = ping(gw, dst)
            check(r.returncode == 0, "ping %s: %s" % (dst, r.stdout))
            check(re.search(r"(ttl|hlim)=64", r.stdout), "ping %s: TTL not 64: %s" % (dst, r.stdout))
        for dst in (SERVER4, SERVER6):
            r = ping(gw, dst)
            check(r.returncode == 0, "ping %s: %s" % (dst, r.stdout))
            check(re.search(r"(ttl|hlim)=63", r.stdout),
                  "ping %s through the gateway: TTL not one lower: %s" % (dst, r.stdout))
        # The server sees the client's packets one hop further too.
        r = gw.server(["ping", "-4", "-c", "2", "-i", "0.2", "-W", "2", CLIENT4], check_rc=False)
        check(r.returncode == 0 and "ttl=63" in r.stdout, "server -> client: %s" % r.stdout)
        r = ping(gw, SERVER4, ("-t", "1"), count=1)
        check("From %s" % GW_IN4 in r.stdout and "exceeded" in r.stdout,
              "TTL 1: no time exceeded from the gateway: %s" % r.stdout)
        r = ping(gw, SERVER6, ("-t", "1"), count=1)
        check("From %s" % GW_IN6 in r.stdout and "exceeded" in r.stdout.lower(),
              "hop limit 1: no time exceeded from the gateway: %s" % r.stdout)
        neigh = gw.shell("show neighbours")
        for a in (CLIENT4, CLIENT6, SERVER4, SERVER6):
            check(re.search(r"\s%s\s+[0-9a-f:]{17}" % re.escape(a), neigh),
                  "no resolved neighbour %s:\n%s" % (a, neigh))
        # Ports and routes at run time: an address, a route via a gateway on it.
        out = gw.shell("port 1 address 10.0.3.1/24 mtu 1400\n"
                       "route add 10.9.0.0/16 via 10.0.3.7")
        check("error" not in out, out)
        check(re.search(r"outside .* 1400 .*10\.0\.3\.1/24", gw.shell("show ports")),
              "show ports: " + gw.shell("show ports"))
        routes = gw.shell("show routes")
        check("10.0.3.0/24 port 1 connected" in routes and
              "10.9.0.0/16 port 1 via 10.0.3.7" in routes, "show routes: " + routes)
        r = ping(gw, "10.0.3.1", count=1)
        check(r.returncode == 0, "ping of the new address: " + r.stdout)
        out = gw.shell("route del 10.9.0.0/16\nport 1 address del 10.0.3.1/24 mtu 1500")
        check("error" not in out, out)
        check("10.0.3." not in gw.shell("show routes"), "the connected route stayed")
        tel = gw.telemetry(["/gufc/ports", "/gufc/neighbours", "/gufc/routes", "/gufc/stats"])
        metrics = gw.scrape(EXPORTER)
        gw.stop()
        st = gw.stats()
        if tel is not None:
            check(tel["/gufc/ports"]["name"] == [p["name"] for p in st["ports"]], "tel ports")
            check(tel["/gufc/ports"]["addresses"][1] == " ".join(st["ports"][1]["addresses"]),
                  "tel port addresses")
            check(tel["/gufc/routes"]["prefix"] == [r["prefix"] for r in st["routes"]],
                  "tel routes")
            check(sorted(tel["/gufc/neighbours"]["address"]) ==
                  sorted(n["address"] for n in st["neighbours"]), "tel neighbours")
            check(tel["/gufc/stats"]["mode"] == "router", "tel mode")
        check(metrics.get("gufc_router_echo_replies_total") == st["router"]["echo_replies"] and
              metrics.get('gufc_router_icmp_errors_total{result="sent"}') ==
              st["router"]["icmp_errors"], "metrics: %s" % {
                  k: v for k, v in metrics.items() if "router" in k})
        check(st["mode"] == "router", "mode")
        check(st["router"]["echo_replies"] >= 12, "echo replies: %s" % st["router"])
        check(st["router"]["icmp_errors"] >= 2, "icmp errors: %s" % st["router"])
        check(st["drops"]["ttl_exceeded"] >= 2, "ttl_exceeded drops")
        check(len(st["ports"]) == 2 and st["ports"][0]["name"] == "inside", "ports in JSON")


def t_ttl(build):
    # Echo replies from the server come back through FORWARD and POSTROUTING: a
    # set there is what the client sees (not one less). A set in PREROUTING
    # comes before the router's own decrement: the server sees one less.
    rules = ("table mangle\n"
             "chain F hook forward\nttl ttl_set 9 ipv4 proto icmp src %s\n"
             "chain P hook postrouting\nhl hl_set 7 ipv6 proto icmpv6 src %s\n"
             "chain R hook prerouting\nttl ttl_set 20 ipv4 proto icmp src %s\n"
             "table filter\npolicy accept\n" % (SERVER4, SERVER6, CLIENT4))
    with Gateway(build, BASE_CONF, rules) as gw:
        for who, dst, want in ((gw.client, SERVER4, "ttl=9"), (gw.client, SERVER6, "ttl=7"),
                               (gw.server, CLIENT4, "ttl=19")):
            fam = ["-6"] if ":" in dst else ["-4"]
            r = who(["ping"] + fam + ["-c", "4", "-i", "0.2", "-W", "2", dst], check_rc=False)
            check(r.returncode == 0, "ping %s: %s" % (dst, r.stdout))
            seen = re.findall(r"(?:ttl|hlim)=\d+", r.stdout)
            check(len(seen) == 4 and all(s == want for s in seen),
                  "ping %s: replies want %s: %s" % (dst, want, r.stdout))
        gw.stop()
    # A PREROUTING set to 1 comes before the expiry check: time exceeded for
    # every packet, the first (slow path) and the later ones (cached flow).
    rules = ("table mangle\nchain R hook prerouting\nttl ttl_set 1 ipv4 proto icmp src %s\n"
             "table filter\npolicy accept\n" % CLIENT4)
    with Gateway(build, BASE_CONF, rules) as gw:
        r = ping(gw, SERVER4, count=3)
        n = len(re.findall(r"From %s.*[Tt]ime to live exceeded" % re.escape(GW_IN4), r.stdout))
        check(n == 3 and " 0 received" in r.stdout,
              "PREROUTING ttl_set 1: want 3 time exceeded, 0 replies: %s" % r.stdout)
        gw.stop()
        check(gw.stats()["drops"]["ttl_exceeded"] == 3, "ttl_exceeded drops")


# Echo requests of one ICMP id (one flow) with the TTLs (hop limits) of
# argv[2], one at a time: per request "R" (its reply), "X" (time exceeded
# for it) or "-" (nothing within 0.6 s). With argv[3] "udp": UDP datagrams
# of one flow to port 9 instead ("U": port unreachable for it).
TTL_PROBE = r"""
import select, socket, struct, sys, time
dst, ttls = sys.argv[1], [int(t) for t in sys.argv[2].split(",")]
v6, ident = ":" in dst, 0x4747
udp = len(sys.argv) > 3 and sys.argv[3] == "udp"
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_RAW,
                  socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
u = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("::" if v6 else "0.0.0.0", ident))
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
out = []
for seq, ttl in enumerate(ttls):
    body = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, ident, seq) + b"gufc-ttl"
    for k in (s, u):
        if v6:
            k.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
        else:
            k.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
    if not v6:
        body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    if udp:
        u.sendto(b"gufc-ttl %d" % seq, (dst, 9))
    else:
        s.sendto(body, (dst, 0))
    want = (ident, 9) if udp else (ident, seq)
    got, end = "-", time.time() + 0.6
    while got == "-" and time.time() < end:
        if not select.select([s], [], [], max(0, end - time.time()))[0]:
            break
        b = s.recv(2000)
        if not v6:
            b = b[(b[0] & 15) * 4:]
        if not udp and b[0] in (0, 129) and struct.unpack("!HH", b[4:8]) == (ident, seq):
            got = "R"
        elif b[0] in ((3, 1) if v6 else (11, 3)):
            inner = b[8:]
            off = (40 if v6 else (inner[0] & 15) * 4) + (0 if udp else 4)
            if struct.unpack("!HH", inner[off:off + 4]) == want:
                got = "X" if b[0] == (3 if v6 else 11) else "U"
    out.append("%d%s" % (ttl, got))
print(" ".join(out), flush=True)
"""

# TTLs at the boundaries of TTLFWD_RULES: FORWARD and POSTROUTING see one less.
TTLFWD_PROBES = {"4": "65,65,64,3,3,2,2,1,10,11,64,65,1,3",
                 "6": "64,64,3,2,2,1,41,42,41,64,1",
                 "u": "64,64,1,64,1,2",
                 "g": "5,6,4,5,1"}


def ttlfwd_texts():
    """The same rules as iptables-restore input, IPv4 and IPv6."""
    return {"4": "*mangle\n:POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -s %s -p icmp -m ttl --ttl-eq 9 -j DROP\nCOMMIT\n"
                 "*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -s %s -p icmp -m ttl --ttl-lt 2 -j DROP\n"
                 "-A FORWARD -s %s -p icmp -m ttl --ttl-eq 63 -j DROP\n"
                 "-A FORWARD -s %s -p udp --dport 9 -j DROP\n"
                 ":INPUT ACCEPT [0:0]\n-A INPUT -d %s -p icmp -m ttl --ttl-eq 5 -j DROP\n"
                 "COMMIT\n" % (CLIENT4, CLIENT4, CLIENT4, CLIENT4, GW_IN4),
            "6": "*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -s %s -p ipv6-icmp -m hl --hl-eq 1 -j DROP\n"
                 "-A FORWARD -s %s -p ipv6-icmp -m hl --hl-eq 40 -j DROP\nCOMMIT\n"
                 % (CLIENT6, CLIENT6)}


TTLFWD_RULES = ("table mangle\nchain P hook postrouting\n"
                "drop ipv4 proto icmp src %s ttl_eq 9\n"
                "table filter\npolicy accept\nchain F hook forward policy accept\n"
                "drop ipv4 proto icmp src %s ttl_lt 2\n"
                "drop ipv4 proto icmp src %s ttl_eq 63\n"
                "drop ipv4 proto udp src %s dport 9\n"
                "drop ipv6 proto icmpv6 src %s hl_eq 1\n"
                "drop ipv6 proto icmpv6 src %s hl_eq 40\n"
                "chain I hook input policy accept\n"
                "drop ipv4 proto icmp dst %s ttl_eq 5\n"
                % (CLIENT4, CLIENT4, CLIENT4, CLIENT4, CLIENT6, CLIENT6, GW_IN4))


def ttl_probe(spawn):
    """TTLFWD_PROBES from the client: {"4": answers, "6": answers, ...}."""
    got = {}
    for fam, dst in (("4", SERVER4), ("6", SERVER6), ("u", SERVER4), ("g", GW_IN4)):
        p = spawn(TTL_PROBE, dst, TTLFWD_PROBES[fam], "udp" if fam == "u" else "icmp")
        out, _ = p.communicate(timeout=30)
        check(p.returncode == 0, "probe %s: %s" % (dst, out))
        got[fam] = out.strip()
    return got


def t_ttlfwd(build):
    """FORWARD and POSTROUTING -m ttl/-m hl see the TTL decremented, and an
    expired packet never reaches them (time exceeded): the answers of gufc
    in router mode are a Linux router's with the same rules, the first
    packet of the flow and its later ones (cached, classed by TTL: no
    per-packet upcall)."""
    want = {"4": "65R 65R 64- 3R 3R 2- 2- 1X 10- 11R 64- 65R 1X 3R",
            "6": "64R 64R 3R 2- 2- 1X 41- 42R 41- 64R 1X",
            # A flow dropped by a rule without a TTL test: expired, time exceeded.
            "u": "64- 64- 1X 64- 1X 2-",
            # To the router itself (INPUT): not decremented, never expired.
            "g": "5- 6R 4R 5- 1R"}
    linux = {}

    def body(spawn, flush_raw):
        linux.update(ttl_probe(lambda *a: spawn(False, *a)))

    try:
        linux_router("ttlf", ("udp", None), 9, body, nat=False, texts=ttlfwd_texts())
        print("linux: %s" % linux)
        check(linux == want, "linux router: %s, want %s" % (linux, want))
    except Skip as e:
        print("linux router skipped (%s): checked against the expected answers" % e)
    with Gateway(build, BASE_CONF, TTLFWD_RULES) as gw:
        got = ttl_probe(lambda *a: gw.python(gw.cns, *a))
        print("gufc: %s" % got)
        check(got == want, "gufc router: %s, want %s" % (got, want))
        gw.stop()
        st = gw.stats()
        sp = st["slow_path"]
        print("slow path: %s" % {k: sp[k] for k in ("upcalls", "per_packet", "class", "classed",
                                                     "class_taken")})
        check(sp["per_packet"] == 0, "per-packet upcalls: %s" % sp)
        check(sp["classed"] >= 2, "no entry classed by its TTL: %s" % sp)
        check(st["drops"]["ttl_exceeded"] == 6, "ttl_exceeded drops: %s" % st["drops"])
        hits = st["cache"]["hits"]
        check(hits >= 4, "cache hits: %s" % hits)


# TTLs at the boundaries of TTLVIEW_RULES ("u": UDP to the gateway's port 9, DNAT'd to the server).
TTLVIEW_PROBES = {"4": "21,20,31,30,41,40,1,64",
                  "6": "21,20,64,1",
                  "u": "21,22,20,1"}


def ttlview_texts():
    """u32 and string matches at FORWARD and POSTROUTING, after the router's
    TTL decrement and a DNAT, as iptables-restore input."""
    return {"4": "*nat\n:PREROUTING ACCEPT [0:0]\n"
                 "-A PREROUTING -d %s -p udp --dport 9 -j DNAT --to-destination %s\nCOMMIT\n"
                 "*mangle\n:POSTROUTING ACCEPT [0:0]\n"
                 "-A POSTROUTING -s %s -p icmp -m u32 --u32 \"5&0xFF=40\" -j DROP\nCOMMIT\n"
                 "*filter\n:FORWARD ACCEPT [0:0]\n"
                 "-A FORWARD -s %s -p icmp -m u32 --u32 \"5&0xFF=20\" -j DROP\n"
                 "-A FORWARD -s %s -p icmp -m string --algo bm --from 8 --to 9 "
                 "--hex-string \"|1e|\" -j DROP\n"
                 "-A FORWARD -s %s -p udp -m u32 --u32 \"16=0x0a000202&&5&0xFF=20\" -j DROP\n"
                 "-A FORWARD -s %s -p udp -m u32 --u32 \"16=0x0a000101\" -j DROP\n"
                 "COMMIT\n" % (GW_IN4, SERVER4, CLIENT4, CLIENT4, CLIENT4, CLIENT4, CLIENT4),
            "6": "*filter\n:FORWARD ACCEPT [0:0]\n"
                 "-A FORWARD -s %s -p ipv6-icmp -m u32 --u32 \"4&0xFF=20\" -j DROP\nCOMMIT\n"
                 % CLIENT6}


TTLVIEW_RULES = ("dnat to %s ipv4 proto udp dst %s dport 9\n"
                 "table mangle\nchain P hook postrouting\n"
                 "drop ipv4 proto icmp src %s u32 \"5&0xFF=40\"\n"
                 "table filter\npolicy accept\nchain F hook forward policy accept\n"
                 "drop ipv4 proto icmp src %s u32 \"5&0xFF=20\"\n"
                 "drop ipv4 proto icmp src %s hex_string \"|1e|\" string_algo bm "
                 "string_from 8 string_to 9\n"
                 "drop ipv4 proto udp src %s u32 \"16=0x0a000202&&5&0xFF=20\"\n"
                 "drop ipv4 proto udp src %s u32 \"16=0x0a000101\"\n"
                 "drop ipv6 proto icmpv6 src %s u32 \"4&0xFF=20\"\n"
                 % (SERVER4, GW_IN4, CLIENT4, CLIENT4, CLIENT4, CLIENT4, CLIENT4, CLIENT6))


def ttlview_probe(spawn):
    """TTLVIEW_PROBES from the client: {"4": answers, "6": ..., "u": ...}."""
    got = {}
    for fam, dst in (("4", SERVER4), ("6", SERVER6), ("u", GW_IN4)):
        p = spawn(TTL_PROBE, dst, TTLVIEW_PROBES[fam], "udp" if fam == "u" else "icmp")
        out, _ = p.communicate(timeout=30)
        check(p.returncode == 0, "probe %s: %s" % (dst, out))
        got[fam] = out.strip()
    return got


def t_ttlview(build):
    """u32 and string matches at FORWARD and POSTROUTING read the header as a
    Linux router has it there: the TTL one less (checksum fixed), and after
    a PREROUTING DNAT the destination translated (a test of the address
    the packet was sent to never matches there); the answers of gufc in
    router mode are a Linux router's with the same rules."""
    want = {"4": "21- 20R 31- 30R 41- 40R 1X 64R",
            "6": "21- 20R 64R 1X",
            "u": "21- 22U 20U 1X"}
    linux = {}

    def body(spawn, flush_raw):
        linux.update(ttlview_probe(lambda *a: spawn(False, *a)))

    try:
        linux_router("ttlv", ("udp", None), 9, body, nat=False, texts=ttlview_texts())
        print("linux: %s" % linux)
        check(linux == want, "linux router: %s, want %s" % (linux, want))
    except Skip as e:
        print("linux router skipped (%s): checked against the expected answers" % e)
    with Gateway(build, BASE_CONF, TTLVIEW_RULES) as gw:
        got = ttlview_probe(lambda *a: gw.python(gw.cns, *a))
        print("gufc: %s" % got)
        check(got == want, "gufc router: %s, want %s" % (got, want))
        gw.stop()
        sp = gw.stats()["slow_path"]
        print("slow path: %s" % {k: sp[k] for k in ("upcalls", "per_packet", "classed")})
        check(sp["per_packet"] == 0, "per-packet upcalls: %s" % sp)


def t_tcp(build):
    with Gateway(build, BASE_CONF, ACCEPT) as gw:
        for dst, mb in ((SERVER4, 64), (SERVER6, 16)):
            got, sent = transfer(gw, dst, 5001, mb)
            secs = float(sent[3])
            print("tcp %s: %s bytes in %.2f s: %.0f Mbit/s" % (
                dst, got[1], secs, int(got[1]) * 8 / secs / 1e6))
            check(got[3] == (CLIENT4 if ":" not in dst else CLIENT6),
                  "the server saw %s" % got[3])
        flows = gw.shell("show flows proto tcp")
        check("in_port=0" in flows and "adj=" in flows, "no routed TCP flow:\n" + flows)
        gw.stop()


def t_udp(build):
    with Gateway(build, BASE_CONF, ACCEPT) as gw:
        for dst in (SERVER4, SERVER6):
            srv = gw.python(gw.sns, UDP_ECHO, dst, "5353")
            wait_line(srv, "LISTEN")
            cl = gw.python(gw.cns, UDP_CLIENT, dst, "5353", "300")
            w = wait_line(cl, "UDP", timeout=60)
            srv.wait(5)
            check(int(w[1]) == 300, "udp to %s: %s of 300 echoed (%s lost)" % (dst, w[1], w[2]))
        gw.stop()


def t_nat(build):
    rules = ACCEPT + ("dnat to %s:80 proto tcp dst %s dport 8080\n"
                      "masquerade src 10.0.1.0/24\n" % (SERVER4, GW_IN4))
    with Gateway(build, BASE_CONF, rules, server_default_route=False) as gw:
        # Masquerade: the server has no route to the client's network.
        got, _ = transfer(gw, SERVER4, 5001, 4)
        check(got[3] == GW_OUT4, "masquerade: the server saw %s, not %s" % (got[3], GW_OUT4))
        # Port forward on the gateway's inside address.
        got, _ = transfer(gw, GW_IN4, 8080, 4, listen=(SERVER4, "80"))
        check(got[3] == GW_OUT4, "dnat: the server saw %s" % got[3])
        # The client only ever talked to the gateway's address.
        flows = gw.shell("show flows proto tcp dport 8080")
        check("dnat" in flows or "nat=" in flows, "no DNAT flow:\n" + flows)
        gw.stop()
        st = gw.stats()
        # Only the hosts' multicast (MLD reports, ...), which a router does not forward.
        check(st["drops_total"] == st["drops"]["not_forwarded"], "drops: %s" % {
            k: v for k, v in st["drops"].items() if v})


def ftp_rules(helper):
    """-P FORWARD DROP, ESTABLISHED,RELATED, the control port, masquerade on
    the egress, and (@helper) CT --helper ftp in raw."""
    r = ("policy drop\n"
         "accept ctstate established,related\n"
         "accept proto tcp dport 21 ctstate new out outside\n"
         "accept proto icmpv6\n"
         "masquerade src 10.0.1.0/24 out outside\n"
         "masquerade src 2001:db8:1::/64 out outside\n")
    if helper:
        r += "table raw\nchain pre hook prerouting\nct ct_helper ftp proto tcp dport 21\n"
    return r


def t_ftp(build):
    import hashlib
    import random

    want = hashlib.sha256(random.Random(11).randbytes(FTP_SIZE)).hexdigest()
    with Gateway(build, BASE_CONF, ftp_rules(True), server_default_route=False) as gw:
        for host in (SERVER4, SERVER6):
            srv = gw.python(gw.sns, FTPD, host, str(FTP_SIZE))
            wait_line(srv, "LISTEN")
            for mode in ("passive", "active"):
                cl = gw.python(gw.cns, FTP_GET, host, mode, "10")
                w = wait_line(cl, "GOT", timeout=30)
                cl.wait(10)
                check(int(w[1]) == FTP_SIZE and w[2] == want,
                      "ftp %s %s: got %s %s" % (host, mode, w[1], w[2]))
                print("ftp %s %s: %s bytes, SHA-256 equal" % (host, mode, w[1]))
            srv.kill()
            srv.wait()
        # A data connection's tuple dropped before its 227 meets the expectation.
        srv = gw.python(gw.sns, FTPD, SERVER4, str(FTP_SIZE), "30021")
        wait_line(srv, "LISTEN")
        cl = gw.python(gw.cns, FTP_EARLY, SERVER4, "30021", "40021")
        w = wait_line(cl, "EARLY", timeout=30)
        check(w[1] == "TimeoutError", "the early data SYN was not dropped: %s" % w)
        w = wait_line(cl, "GOT", timeout=30)
        cl.wait(10)
        check(int(w[1]) == FTP_SIZE and w[2] == want, "ftp early: got %s %s" % (w[1], w[2]))
        print("ftp passive, the data tuple dropped before the 227: %s bytes" % w[1])
        srv.kill()
        srv.wait()
        flows = gw.shell("show flows proto tcp")
        check("helper=ftp" in flows, "no control connection with the helper:\n" + flows)
        check(flows.count("expected=ftp") >= 4,
              "the data connections are not RELATED (expected=ftp):\n" + flows)
        stats = gw.shell("show stats")
        print("\n".join(l for l in stats.splitlines() if l.startswith(("helpers", "expect"))))
        gw.stop()
        st = gw.stats()["conntrack"]["helper"]
        check(st["related"] >= 5 and st["nat_rewrites"] >= 2 and st["nat_failed"] == 0,
              "helper counters: %s" % st)
        sp = gw.stats()["slow_path"]
        check(sp["drops_expected"] >= 1, "no cached drop taken back: %s" % sp)
    # Without the CT rule nothing is expected: the data connection is refused.
    with Gateway(build, BASE_CONF, ftp_rules(False), server_default_route=False) as gw:
        srv = gw.python(gw.sns, FTPD, SERVER4, str(FTP_SIZE))
        wait_line(srv, "LISTEN")
        cl = gw.python(gw.cns, FTP_GET, SERVER4, "passive", "3")
        w = wait_line(cl, "FAILED", timeout=30)
        cl.wait(10)
        srv.kill()
        srv.wait()
        print("ftp without the helper: data connection refused (%s)" % w[1])
        gw.stop()


def linux_router(tag, raw, port, body, nat=True, v6=True, texts=None):
    """A Linux router between a client and a server namespace (the
    addresses of gufc's tests) with -P FORWARD DROP, RELATED,ESTABLISHED,
    NEW to UDP/TCP @port (@raw[0]: "tcp" or "udp") on the egress,
    masquerade (@nat; else the server routes back through the router),
    and in raw the CT rule @raw[1] (None: none; IPv4 only without @v6);
    then body(spawn, flush_raw) runs; @texts ({"4": ..., "6": ...}): these
    rule sets instead. Skips without iptables."""
    import shutil
    import subprocess

    from router_lib import sh

    if shutil.which("iptables") is None or shutil.which("ip6tables") is None:
        raise Skip("no iptables")
    tag = tag + "%d" % (os.getpid() % 100000)
    cns, rns, sns = tag + "-c", tag + "-r", tag + "-s"
    nss = (cns, rns, sns)

    def ns(n, args, check_rc=True):
        return sh(["ip", "netns", "exec", n] + args, check_rc)

    def spawn(server, code, *args):
        return subprocess.Popen(["ip", "netns", "exec", sns if server else cns, sys.executable,
                                 "-u", "-c", code] + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def rules():
        for cmd, fam in (("iptables-restore", "4"), ("ip6tables-restore", "6")):
            src = "10.0.1.0/24" if fam == "4" else "2001:db8:1::/64"
            # @raw[0]: "tcp", "udp" or both ("udp+tcp").
            protos = raw[0].split("+")
            text = ("*raw\n" + "".join("-A PREROUTING -p %s --dport %d -j CT --helper %s\n"
                                        % (p, port, raw[1]) for p in protos
                                        if raw[1] and (v6 or fam == "4")) + "COMMIT\n"
                    "*nat\n" + ("-A POSTROUTING -s %s -o out -j MASQUERADE\n" % src if nat else "")
                    + "COMMIT\n"
                    "*filter\n:FORWARD DROP [0:0]\n"
                    "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
                    + "".join("-A FORWARD -o out -p %s --dport %d -m conntrack --ctstate NEW "
                              "-j ACCEPT\n" % (p, port) for p in protos) + "COMMIT\n")
            if texts is not None:
                text = texts[fam]
            r = subprocess.run(["ip", "netns", "exec", rns, cmd], input=text, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                raise Skip("%s: %s" % (cmd, r.stdout.strip()))

    def flush_raw():
        ns(rns, ["iptables", "-t", "raw", "-F"])
        ns(rns, ["ip6tables", "-t", "raw", "-F"])
        ns(rns, ["conntrack", "-F"], check_rc=False)

    try:
        for n in nss:
            subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)
            sh(["ip", "netns", "add", n])
            ns(n, ["ip", "link", "set", "lo", "up"])
        sh(["ip", "link", "add", "in", "netns", rns, "type", "veth", "peer", "name", "eth0",
            "netns", cns])
        sh(["ip", "link", "add", "out", "netns", rns, "type", "veth", "peer", "name", "eth0",
            "netns", sns])
        for n, dev, a4, a6 in ((cns, "eth0", CLIENT4, CLIENT6), (rns, "in", GW_IN4, GW_IN6),
                               (rns, "out", GW_OUT4, GW_OUT6), (sns, "eth0", SERVER4, SERVER6)):
            ns(n, ["ip", "addr", "add", a4 + "/24", "dev", dev])
            ns(n, ["ip", "addr", "add", a6 + "/64", "dev", dev, "nodad"])
            ns(n, ["ip", "link", "set", dev, "up"])
        ns(cns, ["ip", "route", "add", "default", "via", GW_IN4])
        ns(cns, ["ip", "-6", "route", "add", "default", "via", GW_IN6])
        if not nat:
            ns(sns, ["ip", "route", "add", "default", "via", GW_OUT4])
            ns(sns, ["ip", "-6", "route", "add", "default", "via", GW_OUT6])
        ns(rns, ["sysctl", "-qw", "net.ipv4.ip_forward=1"])
        ns(rns, ["sysctl", "-qw", "net.ipv6.conf.all.forwarding=1"])
        rules()
        body(spawn, flush_raw)
    finally:
        for n in nss:
            subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)


def t_ftp_linux(build):
    """The same FTP transfers through a Linux router (nf_conntrack_ftp and
    nf_nat_ftp) with the same rule set as iptables: what gufc must match."""
    import hashlib
    import random

    want = hashlib.sha256(random.Random(11).randbytes(FTP_SIZE)).hexdigest()

    def body(spawn, flush_raw):
        for host in (SERVER4, SERVER6):
            srv = spawn(True, FTPD, host, str(FTP_SIZE))
            wait_line(srv, "LISTEN")
            for mode in ("passive", "active"):
                cl = spawn(False, FTP_GET, host, mode, "10")
                w = wait_line(cl, "GOT", timeout=30)
                cl.wait(10)
                check(w[2] == want, "linux ftp %s %s: %s" % (host, mode, w))
                print("linux: ftp %s %s: %s bytes, SHA-256 equal" % (host, mode, w[1]))
            srv.kill()
            srv.wait()
        # The data tuple dropped before the 227: Linux keeps nothing of it.
        srv = spawn(True, FTPD, SERVER4, str(FTP_SIZE), "30021")
        wait_line(srv, "LISTEN")
        cl = spawn(False, FTP_EARLY, SERVER4, "30021", "40021")
        w = wait_line(cl, "EARLY", timeout=30)
        check(w[1] == "TimeoutError", "linux: the early data SYN was not dropped: %s" % w)
        w = wait_line(cl, "GOT", timeout=30)
        cl.wait(10)
        check(w[2] == want, "linux ftp early: %s" % w)
        print("linux: ftp passive, the data tuple dropped before the 227: %s bytes" % w[1])
        srv.kill()
        srv.wait()
        flush_raw()
        srv = spawn(True, FTPD, SERVER4, str(FTP_SIZE))
        wait_line(srv, "LISTEN")
        cl = spawn(False, FTP_GET, SERVER4, "passive", "3")
        w = wait_line(cl, "FAILED", timeout=30)
        cl.wait(10)
        srv.kill()
        srv.wait()
        print("linux: ftp without the helper: data connection refused (%s)" % w[1])

    linux_router("ftpl", ("tcp", "ftp"), 21, body)


# A small TFTP server (RFC 1350): read requests for one file of N seeded
# bytes, each answered from a port of its own; a request at a time.
TFTPD = r"""
import random, socket, struct, sys
host, size = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
data = random.Random(13).randbytes(size)
ls = socket.socket(fam, socket.SOCK_DGRAM)
ls.bind((host, 69))
print("LISTEN", flush=True)
while True:
    req, peer = ls.recvfrom(600)
    if struct.unpack("!H", req[:2])[0] != 1:
        continue
    t = socket.socket(fam, socket.SOCK_DGRAM)
    t.bind((host, 0))
    t.settimeout(1)
    block, ok = 1, True
    while ok:
        chunk = data[(block - 1) * 512:block * 512]
        for _ in range(5):
            t.sendto(struct.pack("!HH", 3, block & 0xffff) + chunk, peer)
            try:
                a, frm = t.recvfrom(100)
            except socket.timeout:
                continue
            if frm == peer and a[:2] == b"\0\4" and struct.unpack("!H", a[2:4])[0] == block & 0xffff:
                break
        else:
            ok = False
            print("NOACK", block, flush=True)
        if len(chunk) < 512:
            break
        block += 1
    t.close()
    if ok:
        print("SENT", peer[0], flush=True)
"""

# A TFTP client: read "f" (octet) from argv[1]; the SHA-256 of what came.
TFTP_GET = r"""
import hashlib, socket, struct, sys
host, tmo = sys.argv[1], float(sys.argv[2])
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.settimeout(tmo)
rrq = b"\0\1f\0octet\0"
h, n, want, server = hashlib.sha256(), 0, 1, None
s.sendto(rrq, (host, 69))
try:
    while True:
        d, frm = s.recvfrom(600)
        if server is None:
            server = frm
        if frm != server or d[:2] != b"\0\3":
            continue
        blk = struct.unpack("!H", d[2:4])[0]
        s.sendto(struct.pack("!HH", 4, blk), server)
        if blk != want & 0xffff:
            continue
        h.update(d[4:]); n += len(d) - 4; want += 1
        if len(d) - 4 < 512:
            break
    print("GOT", n, h.hexdigest(), "from-port", server[1], flush=True)
except socket.timeout:
    print("FAILED timeout", flush=True)
"""

TFTP_SIZE = 200 * 512 + 100


def tftp_rules(helper):
    """-P FORWARD DROP, ESTABLISHED,RELATED, UDP port 69, masquerade on the
    egress, and (@helper) CT --helper tftp in raw."""
    r = ("policy drop\n"
         "accept ctstate established,related\n"
         "accept proto udp dport 69 ctstate new out outside\n"
         "accept proto icmpv6\n"
         "masquerade src 10.0.1.0/24 out outside\n"
         "masquerade src 2001:db8:1::/64 out outside\n")
    if helper:
        r += "table raw\nchain pre hook prerouting\nct ct_helper tftp proto udp dport 69\n"
    return r


def t_tftp(build):
    import hashlib
    import random

    want = hashlib.sha256(random.Random(13).randbytes(TFTP_SIZE)).hexdigest()
    with Gateway(build, BASE_CONF, tftp_rules(True), server_default_route=False) as gw:
        for host in (SERVER4, SERVER6):
            srv = gw.python(gw.sns, TFTPD, host, str(TFTP_SIZE))
            wait_line(srv, "LISTEN")
            cl = gw.python(gw.cns, TFTP_GET, host, "5")
            w = wait_line(cl, "GOT", timeout=60)
            cl.wait(10)
            check(int(w[1]) == TFTP_SIZE and w[2] == want, "tftp %s: got %s" % (host, w))
            sent = wait_line(srv, "SENT", timeout=10)
            print("tftp %s: %s bytes from port %s, SHA-256 equal; the server saw %s"
                  % (host, w[1], w[4], sent[1]))
            check(sent[1] in (GW_OUT4, GW_OUT6), "not masqueraded: %s" % sent[1])
            srv.kill()
            srv.wait()
        flows = gw.shell("show flows proto udp")
        check("helper=tftp" in flows, "no request connection with the helper:\n" + flows)
        check(flows.count("expected=tftp") >= 2,
              "the transfers are not RELATED (expected=tftp):\n" + flows)
        stats = gw.shell("show stats")
        print("\n".join(l for l in stats.splitlines() if l.startswith(("helpers", "expect"))))
        gw.stop()
        st = gw.stats()["conntrack"]["helper"]
        check(st["related"] >= 2 and st["commands"] >= 2 and st["dropped"] == 0,
              "helper counters: %s" % st)
    # Without the CT rule nothing is expected: the answer is refused.
    with Gateway(build, BASE_CONF, tftp_rules(False), server_default_route=False) as gw:
        srv = gw.python(gw.sns, TFTPD, SERVER4, str(TFTP_SIZE))
        wait_line(srv, "LISTEN")
        cl = gw.python(gw.cns, TFTP_GET, SERVER4, "3")
        w = wait_line(cl, "FAILED", timeout=30)
        cl.wait(10)
        srv.kill()
        srv.wait()
        print("tftp without the helper: the answer is refused (%s)" % w[1])
        gw.stop()


def t_tftp_linux(build):
    """The same TFTP reads through a Linux router (nf_conntrack_tftp and
    nf_nat_tftp) with the same rule set as iptables: what gufc must match."""
    import hashlib
    import random

    want = hashlib.sha256(random.Random(13).randbytes(TFTP_SIZE)).hexdigest()

    def body(spawn, flush_raw):
        for host in (SERVER4, SERVER6):
            srv = spawn(True, TFTPD, host, str(TFTP_SIZE))
            wait_line(srv, "LISTEN")
            cl = spawn(False, TFTP_GET, host, "5")
            w = wait_line(cl, "GOT", timeout=60)
            cl.wait(10)
            check(w[2] == want, "linux tftp %s: %s" % (host, w))
            sent = wait_line(srv, "SENT", timeout=10)
            print("linux: tftp %s: %s bytes from port %s, SHA-256 equal; the server saw %s"
                  % (host, w[1], w[4], sent[1]))
            srv.kill()
            srv.wait()
        flush_raw()
        srv = spawn(True, TFTPD, SERVER4, str(TFTP_SIZE))
        wait_line(srv, "LISTEN")
        cl = spawn(False, TFTP_GET, SERVER4, "3")
        w = wait_line(cl, "FAILED", timeout=30)
        cl.wait(10)
        srv.kill()
        srv.wait()
        print("linux: tftp without the helper: the answer is refused (%s)" % w[1])

    linux_router("tftpl", ("udp", "tftp"), 69, body)


# A SIP callee: answers one INVITE with 200 OK and its media at port 50000,
# then sends RTP to the caller's announced port and listens for its RTCP.
SIP_UAS = r"""
import socket, sys, time
host = sys.argv[1]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
ipv = "IP6" if ":" in host else "IP4"
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((host, 5060))
rtp = socket.socket(fam, socket.SOCK_DGRAM)
rtp.bind((host, 50000))
rtcp = socket.socket(fam, socket.SOCK_DGRAM)
rtcp.bind((host, 50001))
rtcp.settimeout(0.2)
print("LISTEN", flush=True)
msg, peer = sig.recvfrom(4096)
lines = msg.decode().split("\r\n")
cseq = [l for l in lines if l.lower().startswith("cseq:")][0]
port = int([l for l in lines if l.startswith("m=audio ")][0].split()[1])
caddr = [l for l in lines if l.startswith("c=IN ")][0].split()[2]
sdp = "v=0\r\no=- 2 2 IN %s %s\r\ns=-\r\nc=IN %s %s\r\nt=0 0\r\nm=audio 50000 RTP/AVP 0\r\n" % (ipv, host, ipv, host)
sig.sendto(("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP x\r\n%s\r\nContent-Type: application/sdp\r\n"
            "Content-Length: %d\r\n\r\n%s" % (cseq, len(sdp), sdp)).encode(), peer)
got = 0
for _ in range(25):
    rtp.sendto(b"rtp", (caddr, port))
    try:
        rtcp.recvfrom(100)
        got = 1
    except socket.timeout:
        pass
print("UAS rtcp=%d" % got, flush=True)
"""

# A SIP caller: INVITE with its media at port 40000, then RTCP from 40001
# to the callee's announced port + 1 while listening for the callee's RTP.
SIP_UAC = r"""
import socket, sys
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
ipv = "IP6" if ":" in host else "IP4"
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((me, 0))
sig.settimeout(5)
rtp = socket.socket(fam, socket.SOCK_DGRAM)
rtp.bind((me, 40000))
rtp.settimeout(0.2)
rtcp = socket.socket(fam, socket.SOCK_DGRAM)
rtcp.bind((me, 40001))
sdp = "v=0\r\no=- 1 1 IN %s %s\r\ns=-\r\nc=IN %s %s\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\n" % (ipv, me, ipv, me)
h = host if fam == socket.AF_INET else "[%s]" % host
sig.sendto(("INVITE sip:bob@%s SIP/2.0\r\nVia: SIP/2.0/UDP x\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\n"
            "Content-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s" % (h, len(sdp), sdp)).encode(),
           (host, 5060))
try:
    ans = sig.recv(4096).decode()
except socket.timeout:
    print("UAC no-answer", flush=True)
    sys.exit(0)
port = int([l for l in ans.split("\r\n") if l.startswith("m=audio ")][0].split()[1])
got = 0
for _ in range(25):
    rtcp.sendto(b"rtcp", (host, port + 1))
    try:
        rtp.recvfrom(100)
        got = 1
    except socket.timeout:
        pass
print("UAC %s rtp=%d" % (ans.split("\r\n")[0].split()[1], got), flush=True)
"""


def sip_call(spawn_server, spawn_client, host, me):
    """One call: (the caller's words, the callee's words)."""
    srv = spawn_server(SIP_UAS, host)
    wait_line(srv, "LISTEN")
    cl = spawn_client(SIP_UAC, host, me)
    c = wait_line(cl, "UAC", timeout=30)
    s = wait_line(srv, "UAS", timeout=30)
    cl.wait(10)
    srv.wait(10)
    return c, s


def sip_rules(helper):
    """-P FORWARD DROP, ESTABLISHED,RELATED, UDP port 5060 out, and
    (@helper) CT --helper sip in raw; no NAT (the server routes back)."""
    r = ("policy drop\n"
         "accept ctstate established,related\n"
         "accept proto udp dport 5060 ctstate new out outside\n"
         "accept proto icmpv6\n")
    if helper:
        r += "table raw\nchain pre hook prerouting\nct ct_helper sip proto udp dport 5060\n"
    return r


def t_sip(build):
    with Gateway(build, BASE_CONF, sip_rules(True)) as gw:
        for host, me in ((SERVER4, CLIENT4), (SERVER6, CLIENT6)):
            c, s = sip_call(lambda *a: gw.python(gw.sns, *a), lambda *a: gw.python(gw.cns, *a),
                            host, me)
            print("sip %s: answer %s, callee's RTP %s, caller's RTCP %s" % (host, c[1], c[2], s[1]))
            check(c[1] == "200" and c[2] == "rtp=1" and s[1] == "rtcp=1",
                  "sip %s: %s / %s" % (host, c, s))
        flows = gw.shell("show flows proto udp")
        check("helper=sip" in flows, "no signalling connection with the helper:\n" + flows)
        check(flows.count("expected=sip") >= 4, "the media are not RELATED:\n" + flows)
        gw.stop()
        st = gw.stats()["conntrack"]["helper"]
        check(st["related"] >= 4 and st["dropped"] == 0, "helper counters: %s" % st)
    # Without the CT rule the media are refused both ways.
    with Gateway(build, BASE_CONF, sip_rules(False)) as gw:
        c, s = sip_call(lambda *a: gw.python(gw.sns, *a), lambda *a: gw.python(gw.cns, *a),
                        SERVER4, CLIENT4)
        check(c[1] == "200" and c[2] == "rtp=0" and s[1] == "rtcp=0", "%s / %s" % (c, s))
        print("sip without the helper: media refused (%s, %s)" % (c[2], s[1]))
        gw.stop()


def t_sip_linux(build):
    """The same calls through a Linux router (nf_conntrack_sip, its
    defaults) with the same rule set as iptables."""
    def body(spawn, flush_raw):
        for host, me in ((SERVER4, CLIENT4), (SERVER6, CLIENT6)):
            c, s = sip_call(lambda *a: spawn(True, *a), lambda *a: spawn(False, *a), host, me)
            print("linux: sip %s: answer %s, callee's RTP %s, caller's RTCP %s"
                  % (host, c[1], c[2], s[1]))
            check(c[1] == "200" and c[2] == "rtp=1" and s[1] == "rtcp=1",
                  "linux sip %s: %s / %s" % (host, c, s))
        flush_raw()
        c, s = sip_call(lambda *a: spawn(True, *a), lambda *a: spawn(False, *a), SERVER4, CLIENT4)
        check(c[1] == "200" and c[2] == "rtp=0" and s[1] == "rtcp=0", "%s / %s" % (c, s))
        print("linux: sip without the helper: media refused (%s, %s)" % (c[2], s[1]))

    linux_router("sipl", ("udp", "sip"), 5060, body, nat=False)



# SIP behind a masquerade: a caller whose INVITE names its own address in
# Via, From, Contact and the session description, and a callee that answers
# with the Via it got (rport and received filled in, RFC 3581) and its
# media at port 50000. Each side prints the message as it arrived (hex).
def sip_invite(host, me, me_port, from_port, sdp_addr):
    """The INVITE as the caller writes it (@me_port: Via and Contact;
    @from_port: None for no port in From)."""
    v6 = ":" in host
    b = (lambda a: "[%s]" % a) if v6 else (lambda a: a)
    ipv = "IP6" if v6 else "IP4"
    sdp = ("v=0\r\no=- 1 1 IN %s %s\r\ns=-\r\nc=IN %s %s\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\n"
           % (ipv, sdp_addr, ipv, sdp_addr))
    frm = b(me) + ("" if from_port is None else ":%d" % from_port)
    return ("INVITE sip:bob@%s SIP/2.0\r\nVia: SIP/2.0/UDP %s:%d;branch=z9hG4bK1;rport\r\n"
            "From: <sip:alice@%s>;tag=1\r\nTo: <sip:bob@%s>\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\n"
            "Contact: <sip:alice@%s:%d>\r\nContent-Type: application/sdp\r\n"
            "Content-Length: %d\r\n\r\n%s" % (b(host), b(me), me_port, frm, b(host), b(me),
                                              me_port, len(sdp), sdp))


def sip_answer(invite, host, peer, peer_port):
    """The callee's 200 OK to @invite as it arrived from @peer:@peer_port."""
    v6 = ":" in host
    ipv = "IP6" if v6 else "IP4"
    lines = invite.split("\r\n")
    hdr = lambda n: [l for l in lines if l.lower().startswith(n.lower() + ":")][0]
    via = hdr("Via").replace(";rport", ";rport=%d" % peer_port) + ";received=%s" % peer
    sdp = ("v=0\r\no=- 2 2 IN %s %s\r\ns=-\r\nc=IN %s %s\r\nt=0 0\r\nm=audio 50000 RTP/AVP 0\r\n"
           % (ipv, host, ipv, host))
    return ("SIP/2.0 200 OK\r\n%s\r\n%s\r\n%s;tag=2\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\n"
            "Contact: <sip:bob@%s:5060>\r\nContent-Type: application/sdp\r\n"
            "Content-Length: %d\r\n\r\n%s" % (via, hdr("From"), hdr("To"),
                                              "[%s]" % host if v6 else host, len(sdp), sdp))


SIP_NAT_COMMON = r"""
import socket, sys
def sip_invite(host, me, me_port, from_port, sdp_addr):
%s
def sip_answer(invite, host, peer, peer_port):
%s
"""

SIP_UAS_NAT = r"""
host = sys.argv[1]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((host, 5060))
rtp = socket.socket(fam, socket.SOCK_DGRAM)
rtp.bind((host, 50000))
rtcp = socket.socket(fam, socket.SOCK_DGRAM)
rtcp.bind((host, 50001))
rtcp.settimeout(0.2)
print("LISTEN", flush=True)
msg, peer = sig.recvfrom(4096)
inv = msg.decode()
print("INV", peer[0], peer[1], msg.hex(), flush=True)
lines = inv.split("\r\n")
port = int([l for l in lines if l.startswith("m=audio ")][0].split()[1])
caddr = [l for l in lines if l.startswith("c=IN ")][0].split()[2]
sig.sendto(sip_answer(inv, host, peer[0], peer[1]).encode(), peer)
got = 0
for _ in range(25):
    rtp.sendto(b"rtp", (caddr, port))
    try:
        rtcp.recvfrom(100)
        got = 1
    except socket.timeout:
        pass
print("UAS rtcp=%d" % got, flush=True)
"""

SIP_UAC_NAT = r"""
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((me, 5060))
sig.settimeout(5)
rtp = socket.socket(fam, socket.SOCK_DGRAM)
rtp.bind((me, 40000))
rtp.settimeout(0.2)
rtcp = socket.socket(fam, socket.SOCK_DGRAM)
rtcp.bind((me, 40001))
sig.sendto(sip_invite(host, me, 5060, None, me).encode(), (host, 5060))
try:
    ans = sig.recv(4096)
except socket.timeout:
    print("UAC no-answer", flush=True)
    sys.exit(0)
print("ANS", ans.hex(), flush=True)
port = int([l for l in ans.decode().split("\r\n") if l.startswith("m=audio ")][0].split()[1])
got = 0
for _ in range(25):
    rtcp.sendto(b"rtcp", (host, port + 1))
    try:
        rtp.recvfrom(100)
        got = 1
    except socket.timeout:
        pass
print("UAC %s rtp=%d" % (ans.decode().split("\r\n")[0].split()[1], got), flush=True)
"""


def sip_nat_scripts():
    import inspect
    import textwrap

    body = lambda f: textwrap.indent(
        textwrap.dedent("".join(inspect.getsourcelines(f)[0][1:])), "    ")
    common = SIP_NAT_COMMON % (body(sip_invite), body(sip_answer))
    return common + SIP_UAS_NAT, common + SIP_UAC_NAT


def sip_nat_call(spawn_server, spawn_client, host, me, gw):
    """A call from behind the masquerade: what each side received must be
    what Linux's nf_nat_sip makes of it (the caller's addresses in Via,
    From, Contact and the SDP become the gateway's, the answer's go back),
    and the media flow both ways. Returns a line to print."""
    uas, uac = sip_nat_scripts()
    srv = spawn_server(uas, host)
    wait_line(srv, "LISTEN")
    cl = spawn_client(uac, host, me)
    inv = wait_line(srv, "INV", timeout=30)
    ans = wait_line(cl, "ANS", timeout=30)
    c = wait_line(cl, "UAC", timeout=30)
    s = wait_line(srv, "UAS", timeout=30)
    cl.wait(10)
    srv.wait(10)
    got_inv, got_ans = bytes.fromhex(inv[3]).decode(), bytes.fromhex(ans[1]).decode()
    check(inv[1] == gw, "sip nat %s: not masqueraded: %s" % (host, inv[1:3]))
    mp = int(inv[2])
    want_inv = sip_invite(host, gw, mp, mp, gw)
    check(got_inv == want_inv, "sip nat %s: the INVITE arrived as\n%r\nnot\n%r"
          % (host, got_inv, want_inv))
    want_ans = sip_answer(sip_invite(host, me, 5060, 5060, me), host, me, 5060)
    check(got_ans == want_ans, "sip nat %s: the answer arrived as\n%r\nnot\n%r"
          % (host, got_ans, want_ans))
    check(c[1] == "200" and c[2] == "rtp=1" and s[1] == "rtcp=1",
          "sip nat %s: media %s / %s" % (host, c, s))
    return ("sip nat %s: INVITE from %s:%d rewritten as Linux does, answer restored, "
            "callee's RTP %s, caller's RTCP %s" % (host, gw, mp, c[2], s[1]))



def sip_register(host, me, port):
    """The phone's REGISTER (@me:@port in Via and Contact)."""
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    return ("REGISTER sip:%s SIP/2.0\r\nVia: SIP/2.0/UDP %s:%d;branch=r1\r\n"
            "From: <sip:alice@%s>;tag=1\r\nTo: <sip:alice@%s>\r\nCall-ID: r1\r\n"
            "CSeq: 1 REGISTER\r\nContact: <sip:alice@%s:%d>\r\nExpires: 600\r\n"
            "Content-Length: 0\r\n\r\n" % (b(host), b(me), port, b(host), b(host), b(me), port))


def sip_register_answer(host, me, port):
    """The registrar's 200 OK to a REGISTER from @me:@port."""
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    return ("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP %s:%d;branch=r1\r\nCSeq: 1 REGISTER\r\n"
            "Contact: <sip:alice@%s:%d>;expires=600\r\nContent-Length: 0\r\n\r\n"
            % (b(me), port, b(me), port))


def sip_incoming(host, contact):
    """The registrar's call to the registered @contact ("ADDR:PORT"), from port 5070."""
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    return ("INVITE sip:alice@%s SIP/2.0\r\nVia: SIP/2.0/UDP %s:5070;branch=i1\r\n"
            "From: <sip:bob@%s>;tag=9\r\nTo: <sip:alice@%s>\r\nCall-ID: i1\r\nCSeq: 1 INVITE\r\n"
            "Content-Length: 0\r\n\r\n" % (contact, b(host), b(host), contact))


# A registrar: answers one REGISTER, then calls the Contact it registered
# from another port of its address (the incoming call of sip_direct_signalling).
SIP_REGISTRAR = r"""
import socket, sys, time
host = sys.argv[1]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((host, 5060))
call = socket.socket(fam, socket.SOCK_DGRAM)
call.bind((host, 5070))
print("LISTEN", flush=True)
msg, peer = sig.recvfrom(4096)
print("REG", peer[0], peer[1], msg.hex(), flush=True)
contact = [l for l in msg.decode().split("\r\n") if l.startswith("Contact:")][0]
contact = contact.split("@", 1)[1].rstrip(">")
a, p = contact.rsplit(":", 1)
sig.sendto(sip_register_answer(host, a.strip("[]"), int(p)).encode(), peer)
time.sleep(0.5)
call.sendto(sip_incoming(host, contact).encode(), (a.strip("[]"), int(p)))
print("CALL", flush=True)
"""

# A phone: registers its own address, then waits for the call.
SIP_PHONE = r"""
import socket, sys
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((me, 5060))
sig.settimeout(5)
sig.sendto(sip_register(host, me, 5060).encode(), (host, 5060))
try:
    print("ANS", sig.recv(4096).hex(), flush=True)
    inv, frm = sig.recvfrom(4096)
    print("INV", frm[0], frm[1], inv.hex(), flush=True)
except socket.timeout:
    print("ANS none", flush=True)
    print("INV none", flush=True)
"""


def sip_register_call(spawn_server, spawn_client, host, me, gw):
    """REGISTER from behind the masquerade, then a call from the registrar
    (another port of its address) to the registered Contact: what each side
    receives must be what nf_nat_sip makes of it, and the call must arrive."""
    import inspect
    import textwrap

    body = lambda f: textwrap.indent(
        textwrap.dedent("".join(inspect.getsourcelines(f)[0][1:])), "    ")
    common = ("import socket, sys\n" + "".join(
        "def %s(%s):\n%s\n" % (f.__name__, ", ".join(inspect.signature(f).parameters), body(f))
        for f in (sip_register, sip_register_answer, sip_incoming)))
    srv = spawn_server(common + SIP_REGISTRAR, host)
    wait_line(srv, "LISTEN")
    cl = spawn_client(common + SIP_PHONE, host, me)
    reg = wait_line(srv, "REG", timeout=30)
    ans = wait_line(cl, "ANS", timeout=30)
    inv = wait_line(cl, "INV", timeout=30)
    cl.wait(10)
    srv.wait(10)
    check(reg[1] == gw, "sip register %s: not masqueraded: %s" % (host, reg[1:3]))
    mp = int(reg[2])
    got = bytes.fromhex(reg[3]).decode()
    check(got == sip_register(host, gw, mp),
          "sip register %s: the REGISTER arrived as\n%r" % (host, got))
    check(ans[1] != "none" and bytes.fromhex(ans[1]).decode() == sip_register_answer(host, me, 5060),
          "sip register %s: the answer arrived as %s" % (host, ans[1:]))
    check(inv[1] != "none", "sip register %s: the registrar's call did not arrive" % host)
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    got = bytes.fromhex(inv[3]).decode()
    check(inv[1] == host and got == sip_incoming(host, "%s:5060" % b(me)),
          "sip register %s: the call arrived from %s as\n%r" % (host, inv[1:3], got))
    return ("sip register %s: Contact %s:%d registered, the registrar's call from port 5070 "
            "reached the phone with its URI restored" % (host, gw, mp))


def sip_tcp_msgs(host, via, contact):
    """A REGISTER (Contact @contact "ADDR:PORT", over TCP) and an OPTIONS
    in one segment, both with Via @via "ADDR:PORT"."""
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    return ("REGISTER sip:%s SIP/2.0\r\nVia: SIP/2.0/TCP %s;branch=t1\r\nCSeq: 1 REGISTER\r\n"
            "Contact: <sip:alice@%s;transport=tcp>\r\nExpires: 60\r\nContent-Length: 0\r\n\r\n"
            "OPTIONS sip:%s SIP/2.0\r\nVia: SIP/2.0/TCP %s;branch=t2\r\nCSeq: 2 OPTIONS\r\n"
            "Content-Length: 0\r\n\r\n" % (b(host), via, contact, b(host), via))


def sip_tcp_answer(via, contact):
    return ("SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP %s;branch=t1\r\nCSeq: 1 REGISTER\r\n"
            "Contact: <sip:alice@%s;transport=tcp>;expires=60\r\nContent-Length: 0\r\n\r\n"
            % (via, contact))


# SIP over TCP: the registrar reads both messages, answers the REGISTER,
# then connects to the registered Contact (TCP).
SIP_TCP_REGISTRAR = r"""
import socket, sys, time
host = sys.argv[1]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
ls = socket.socket(fam, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((host, 5060))
ls.listen(1)
print("LISTEN", flush=True)
c, peer = ls.accept()
c.settimeout(5)
data = b""
while not data.endswith(b"CSeq: 2 OPTIONS\r\nContent-Length: 0\r\n\r\n"):
    d = c.recv(4096)
    if not d:
        break
    data += d
print("REG", peer[0], peer[1], data.hex(), flush=True)
lines = data.decode().split("\r\n")
via = [l for l in lines if l.startswith("Via:")][0].split()[2].split(";")[0]
contact = [l for l in lines if l.startswith("Contact:")][0].split("@", 1)[1].split(";")[0]
c.sendall(sip_tcp_answer(via, contact).encode())
time.sleep(0.5)
a, p = contact.rsplit(":", 1)
t = socket.socket(fam, socket.SOCK_STREAM)
t.settimeout(5)
try:
    t.connect((a.strip("[]"), int(p)))
    print("CALL ok", flush=True)
except OSError as e:
    print("CALL failed", e, flush=True)
time.sleep(0.5)
"""

SIP_TCP_PHONE = r"""
import socket, sys
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
b = (lambda a: "[%s]" % a) if fam == socket.AF_INET6 else (lambda a: a)
ls = socket.socket(fam, socket.SOCK_STREAM)
ls.bind((me, 5062))
ls.listen(1)
ls.settimeout(8)
s = socket.socket(fam, socket.SOCK_STREAM)
s.bind((me, 0))
port = s.getsockname()[1]
s.settimeout(5)
s.connect((host, 5060))
s.sendall(sip_tcp_msgs(host, "%s:%d" % (b(me), port), "%s:5062" % b(me)).encode())
ans = b""
try:
    while not ans.endswith(b"\r\n\r\n"):
        d = s.recv(4096)
        if not d:
            break
        ans += d
    print("ANS", port, ans.hex(), flush=True)
    c, frm = ls.accept()
    print("INCOMING", frm[0], flush=True)
except socket.timeout:
    print("ANS", port, ans.hex() or "none", flush=True)
    print("INCOMING none", flush=True)
"""


def sip_tcp_call(spawn_server, spawn_client, host, me, gw):
    """SIP over TCP from behind the masquerade: two messages in one segment
    rewritten (the sequence numbers follow: the answer and the rest of the
    stream arrive), the answer's Via restored, and the registrar's TCP
    connection to the registered Contact reaches the phone."""
    import inspect
    import textwrap

    body = lambda f: textwrap.indent(
        textwrap.dedent("".join(inspect.getsourcelines(f)[0][1:])), "    ")
    common = ("import socket, sys\n" + "".join(
        "def %s(%s):\n%s\n" % (f.__name__, ", ".join(inspect.signature(f).parameters), body(f))
        for f in (sip_tcp_msgs, sip_tcp_answer)))
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    srv = spawn_server(common + SIP_TCP_REGISTRAR, host)
    wait_line(srv, "LISTEN")
    cl = spawn_client(common + SIP_TCP_PHONE, host, me)
    reg = wait_line(srv, "REG", timeout=30)
    ans = wait_line(cl, "ANS", timeout=30)
    inc = wait_line(cl, "INCOMING", timeout=30)
    call = wait_line(srv, "CALL", timeout=30)
    cl.wait(10)
    srv.wait(10)
    check(reg[1] == gw, "sip tcp %s: not masqueraded: %s" % (host, reg[1:3]))
    mp, cp = int(reg[2]), int(ans[1])
    got = bytes.fromhex(reg[3]).decode()
    want = sip_tcp_msgs(host, "%s:%d" % (b(gw), mp), "%s:5062" % b(gw))
    check(got == want, "sip tcp %s: the segment arrived as\n%r\nnot\n%r" % (host, got, want))
    got = bytes.fromhex(ans[2]).decode() if ans[2] != "none" else ""
    want = sip_tcp_answer("%s:%d" % (b(me), cp), "%s:5062" % b(gw))
    check(got == want, "sip tcp %s: the answer arrived as\n%r\nnot\n%r" % (host, got, want))
    check(call[1] == "ok" and inc[1] != "none",
          "sip tcp %s: the registrar's connection: %s / %s" % (host, call, inc))
    return ("sip tcp %s: REGISTER and OPTIONS in one segment rewritten, answer restored, "
            "the registrar's connection to %s:5062 reached the phone" % (host, gw))


def sip_forced_msgs(host, me, gw, port, peer_port):
    """An OPTIONS from port 51000 whose Via names @me:5060, and the answer
    (@gw:@peer_port as the server saw it) as the server writes it."""
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    opt = ("OPTIONS sip:%s SIP/2.0\r\nVia: SIP/2.0/UDP %s:5060;rport\r\nCSeq: 1 OPTIONS\r\n"
           "Content-Length: 0\r\n\r\n" % (b(host), b(me)))
    ans = ("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP %s:5060;rport=%d;received=%s\r\n"
           "Contact: <sip:alice@%s:%d>\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
           % (b(me), peer_port, gw, b(gw), port))
    return opt, ans


SIP_FORCED_UAS = r"""
import socket, sys
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
sig = socket.socket(fam, socket.SOCK_DGRAM)
sig.bind((host, 5060))
print("LISTEN", flush=True)
msg, peer = sig.recvfrom(4096)
print("OPT", peer[0], peer[1], msg.hex(), flush=True)
sig.sendto(sip_forced_msgs(host, me, peer[0], peer[1], peer[1])[1].encode(), peer)
"""

SIP_FORCED_UAC = r"""
import socket, sys
host, me = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
lis = socket.socket(fam, socket.SOCK_DGRAM)
lis.bind((me, 5060))
lis.settimeout(5)
snd = socket.socket(fam, socket.SOCK_DGRAM)
snd.bind((me, 51000))
snd.sendto(sip_forced_msgs(host, me, me, 0, 0)[0].encode(), (host, 5060))
try:
    print("ANS", lis.recv(4096).hex(), flush=True)
except socket.timeout:
    print("ANS none", flush=True)
"""


def sip_forced_call(spawn_server, spawn_client, host, me, gw):
    """A phone that sends from port 51000 but listens on 5060, the port its
    Via names (Linux's forced_dport): the answer reaches 5060, the phone's
    outside address:port in it mapped to its own address and 5060."""
    import inspect
    import textwrap

    body = textwrap.indent(textwrap.dedent("".join(inspect.getsourcelines(sip_forced_msgs)[0][1:])),
                           "    ")
    common = "def sip_forced_msgs(host, me, gw, port, peer_port):\n%s\n" % body
    srv = spawn_server(common + SIP_FORCED_UAS, host, me)
    wait_line(srv, "LISTEN")
    cl = spawn_client(common + SIP_FORCED_UAC, host, me)
    opt = wait_line(srv, "OPT", timeout=30)
    ans = wait_line(cl, "ANS", timeout=30)
    cl.wait(10)
    srv.wait(10)
    check(opt[1] == gw, "sip forced %s: not masqueraded: %s" % (host, opt[1:3]))
    want_opt, _ = sip_forced_msgs(host, me, gw, 0, 0)
    got = bytes.fromhex(opt[3]).decode()
    check(got == want_opt, "sip forced %s: the OPTIONS arrived as\n%r" % (host, got))
    b = (lambda a: "[%s]" % a) if ":" in host else (lambda a: a)
    _, ans_sent = sip_forced_msgs(host, me, gw, int(opt[2]), int(opt[2]))
    want = ans_sent.replace("<sip:alice@%s:%s>" % (b(gw), opt[2]), "<sip:alice@%s:5060>" % b(me))
    got = bytes.fromhex(ans[1]).decode() if ans[1] != "none" else "none"
    check(got == want, "sip forced %s: the answer at port 5060: %r\nnot %r" % (host, got, want))
    return ("sip forced_dport %s: the answer to %s:%s reached the phone's port 5060, "
            "its Contact mapped there" % (host, gw, opt[2]))

def sip_nat_rules():
    """-P FORWARD DROP, ESTABLISHED,RELATED, UDP 5060 out, masquerade on the
    egress, CT --helper sip in raw."""
    return ("policy drop\n"
            "accept ctstate established,related\n"
            "accept proto udp dport 5060 ctstate new out outside\n"
            "accept proto tcp dport 5060 ctstate new out outside\n"
            "accept proto icmpv6\n"
            "masquerade src 10.0.1.0/24 out outside\n"
            "masquerade src 2001:db8:1::/64 out outside\n"
            "table raw\nchain pre hook prerouting\nct ct_helper sip proto udp dport 5060\n"
            "ct ct_helper sip proto tcp dport 5060\n")


def t_sip_nat(build):
    with Gateway(build, BASE_CONF, sip_nat_rules(), server_default_route=False) as gw:
        for host, me, out in ((SERVER4, CLIENT4, GW_OUT4), (SERVER6, CLIENT6, GW_OUT6)):
            print(sip_nat_call(lambda *a: gw.python(gw.sns, *a),
                               lambda *a: gw.python(gw.cns, *a), host, me, out))
            print(sip_register_call(lambda *a: gw.python(gw.sns, *a),
                                    lambda *a: gw.python(gw.cns, *a), host, me, out))
            print(sip_tcp_call(lambda *a: gw.python(gw.sns, *a),
                               lambda *a: gw.python(gw.cns, *a), host, me, out))
            print(sip_forced_call(lambda *a: gw.python(gw.sns, *a),
                                  lambda *a: gw.python(gw.cns, *a), host, me, out))
        flows = gw.shell("show flows proto udp")
        check(flows.count("expected=sip") >= 4, "the media are not RELATED:\n" + flows)
        gw.stop()
        st = gw.stats()["conntrack"]["helper"]
        check(st["nat_rewrites"] >= 4 and st["nat_failed"] == 0 and st["dropped"] == 0,
              "helper counters: %s" % st)


def t_sip_nat_linux(build):
    """The same calls through a Linux router (nf_conntrack_sip, nf_nat_sip)
    with masquerade: the oracle for the bytes gufc writes."""
    def body(spawn, flush_raw):
        for host, me, out in ((SERVER4, CLIENT4, GW_OUT4), (SERVER6, CLIENT6, GW_OUT6)):
            print("linux: " + sip_nat_call(lambda *a: spawn(True, *a),
                                           lambda *a: spawn(False, *a), host, me, out))
            print("linux: " + sip_register_call(lambda *a: spawn(True, *a),
                                                lambda *a: spawn(False, *a), host, me, out))
            print("linux: " + sip_tcp_call(lambda *a: spawn(True, *a),
                                           lambda *a: spawn(False, *a), host, me, out))
            print("linux: " + sip_forced_call(lambda *a: spawn(True, *a),
                                              lambda *a: spawn(False, *a), host, me, out))

    linux_router("sipn", ("udp+tcp", "sip"), 5060, body, nat=True)

# An IRC server that takes one client, reads its DCC SEND offer and, as the
# peer of the offer, connects to the address and port it names.
IRCD = r"""
import socket, sys
host = sys.argv[1]
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((host, 6667))
ls.listen(1)
print("LISTEN", flush=True)
c, peer = ls.accept()
c.sendall(b":srv 001 alice :welcome\r\n")
f = c.makefile("rb")
for line in f:
    if b"\1DCC SEND" in line:
        w = line.split(b"\1")[1].split()
        addr = socket.inet_ntoa(int(w[3]).to_bytes(4, "big"))
        port = int(w[4])
        print("OFFER", addr, port, flush=True)
        try:
            d = socket.create_connection((addr, port), timeout=5)
            d.sendall(b"dcc-data")
            d.close()
            print("SENT", flush=True)
        except OSError as e:
            print("NOCONN", type(e).__name__, flush=True)
        break
c.close()
"""

# An IRC client: offers a DCC SEND of its own address, port 40000, and
# waits for the connection; prints what came and from where.
IRC_CLIENT = r"""
import socket, sys
host, me, tmo = sys.argv[1], sys.argv[2], float(sys.argv[3])
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.bind((me, 40000))
ls.listen(1)
ls.settimeout(tmo)
c = socket.create_connection((host, 6667), timeout=5)
c.recv(100)
addr = int.from_bytes(socket.inet_aton(me), "big")
c.sendall(("PRIVMSG bob :\1DCC SEND f %d 40000 8\1\r\n" % addr).encode())
try:
    d, peer = ls.accept()
    print("GOT", d.recv(100).decode(), peer[0], flush=True)
except socket.timeout:
    print("FAILED timeout", flush=True)
c.close()
"""


def irc_rules(helper):
    """-P FORWARD DROP, ESTABLISHED,RELATED, TCP port 6667 out, masquerade
    on the egress, and (@helper) CT --helper irc in raw."""
    r = ("policy drop\n"
         "accept ctstate established,related\n"
         "accept proto tcp dport 6667 ctstate new out outside\n"
         "masquerade src 10.0.1.0/24 out outside\n")
    if helper:
        r += "table raw\nchain pre hook prerouting\nct ct_helper irc proto tcp dport 6667\n"
    return r


def irc_dcc(spawn_server, spawn_client, tmo):
    srv = spawn_server(IRCD, SERVER4)
    wait_line(srv, "LISTEN")
    cl = spawn_client(IRC_CLIENT, SERVER4, CLIENT4, tmo)
    offer = wait_line(srv, "OFFER", timeout=20)
    w = wait_line(cl, "GOT" if tmo == "10" else "FAILED", timeout=30)
    cl.wait(10)
    srv.kill()
    srv.wait()
    return offer, w


def t_irc(build):
    with Gateway(build, BASE_CONF, irc_rules(True), server_default_route=False) as gw:
        offer, w = irc_dcc(lambda *a: gw.python(gw.sns, *a), lambda *a: gw.python(gw.cns, *a),
                           "10")
        print("irc: the server saw the offer %s %s; the client got %s from %s"
              % (offer[1], offer[2], w[1], w[2]))
        check(offer[1] == GW_OUT4, "the offer was not rewritten: %s" % offer)
        check(w[1] == "dcc-data", "dcc: %s" % w)
        stats = gw.shell("show stats")
        print("\n".join(l for l in stats.splitlines() if l.startswith(("helpers", "expect"))))
        gw.stop()
        st = gw.stats()["conntrack"]["helper"]
        check(st["related"] >= 1 and st["nat_rewrites"] >= 1 and st["nat_failed"] == 0,
              "helper counters: %s" % st)
    with Gateway(build, BASE_CONF, irc_rules(False), server_default_route=False) as gw:
        offer, w = irc_dcc(lambda *a: gw.python(gw.sns, *a), lambda *a: gw.python(gw.cns, *a),
                           "3")
        print("irc without the helper: offer %s unchanged, the connection refused"
              % offer[1])
        check(offer[1] == CLIENT4, "rewritten without the helper: %s" % offer)
        gw.stop()


def t_irc_linux(build):
    """The same DCC through a Linux router (nf_conntrack_irc, nf_nat_irc)."""
    def body(spawn, flush_raw):
        offer, w = irc_dcc(lambda *a: spawn(True, *a), lambda *a: spawn(False, *a), "10")
        print("linux: irc: the server saw the offer %s %s; the client got %s from %s"
              % (offer[1], offer[2], w[1], w[2]))
        check(offer[1] == GW_OUT4 and w[1] == "dcc-data", "linux irc: %s / %s" % (offer, w))
        flush_raw()
        offer, w = irc_dcc(lambda *a: spawn(True, *a), lambda *a: spawn(False, *a), "3")
        print("linux: irc without the helper: offer %s unchanged, the connection refused"
              % offer[1])

    # Linux's IRC helper is IPv4 only (ip6tables refuses CT --helper irc).
    linux_router("ircl", ("tcp", "irc"), 6667, body, v6=False)


def t_commit(build):
    with Gateway(build, BASE_CONF, ACCEPT) as gw:
        go = gw.dir + "/go"
        srv = gw.python(gw.sns, ECHO, SERVER4, "7000")
        wait_line(srv, "LISTEN")
        cl = gw.python(gw.cns, CHATTER, SERVER4, "7000", go)
        wait_line(cl, "READY")
        out = gw.shell("rule add pos 1 drop proto tcp dport 7000\ncommit")
        check("error" not in out, "commit: " + out)
        open(go, "w").close()
        w = wait_line(cl, "", timeout=10)
        check(w[0] == "CUT", "the connection lived on: %s" % w)
        srv.kill()
        drops = gw.shell("show drops")
        m = re.search(r"^filter\s+(\d+)", drops, re.M)
        check(m and int(m.group(1)) >= 1, "no filter drop:\n" + drops)
        gw.stop()


def t_pmtu(build):
    conf = BASE_CONF + "port 1 mtu 1280\n"
    with Gateway(build, conf, ACCEPT) as gw:
        for dst in (SERVER4, SERVER6):
            got, sent = transfer(gw, dst, 5002, 8)
        r = gw.client(["ip", "route", "get", SERVER4])
        check("mtu 1280" in gw.client(["ip", "route", "show", "cache"], check_rc=False).stdout
              or "mtu 1280" in r.stdout, "the client learned no path MTU: " + r.stdout)
        # DF clear: the gateway fragments.
        r = ping(gw, SERVER4, ("-M", "dont", "-s", "1400"), count=2)
        check(r.returncode == 0, "ping without DF: " + r.stdout)
        gw.stop()
        st = gw.stats()
        check(st["drops"]["frag_needed"] >= 2, "frag_needed: %d" % st["drops"]["frag_needed"])
        check(st["router"]["icmp_errors"] >= 2, "icmp errors: %s" % st["router"])
        check(st["router"]["frag_datagrams"] >= 2 and st["router"]["frag_made"] >= 4,
              "fragmented: %s" % st["router"])


def t_neigh(build):
    with Gateway(build, BASE_CONF, ACCEPT) as gw:
        for dst in (SERVER4, SERVER6):
            r = ping(gw, dst, count=2)
            check(r.returncode == 0, r.stdout)
        before = gw.shell("show neighbours")
        pings = [gw.spawn(gw.cns, ["ping", "-4" if ":" not in dst else "-6", "-c", "30", "-i",
                                   "0.1", "-W", "1", dst]) for dst in (SERVER4, SERVER6)]
        time.sleep(1.0)
        # The server announces its new MAC (arp_notify, ndisc_notify).
        gw.server(["ip", "link", "set", gw.stap, "address", "02:00:5e:10:00:99"])
        for dst, p in zip((SERVER4, SERVER6), pings):
            out, _ = p.communicate(timeout=30)
            m = re.search(r"(\d+) received", out)
            check(m and int(m.group(1)) >= 29,
                  "pings to %s lost over the MAC change:\n%s" % (dst, out))
        after = gw.shell("show neighbours")
        for dst in (SERVER4, SERVER6):
            check(re.search(r"%s\s+02:00:5e:10:00:99" % re.escape(dst), after),
                  "the new MAC of %s is not in the table:\nbefore:\n%s\nafter:\n%s" % (
                      dst, before, after))
        gw.stop()
        st = gw.stats()
        check(st["router"]["mac_changes"] >= 2, "mac_changes: %s" % st["router"])


CONNECT = r"""
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
kind = socket.SOCK_STREAM if sys.argv[3] == "tcp" else socket.SOCK_DGRAM
s = socket.socket(fam, kind)
s.settimeout(5)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    if kind == socket.SOCK_DGRAM:
        s.send(b"hello")
        s.recv(100)
    print("OPEN", flush=True)
except ConnectionRefusedError:
    print("REFUSED", flush=True)
except socket.timeout:
    print("TIMEOUT", flush=True)
"""


def t_reject(build):
    rules = (ACCEPT + "reject with tcp-reset proto tcp dport 7001\n"
             "reject proto udp dport 7002\n"
             "reject with icmp-host-prohibited proto icmp dst %s\n"
             "reject proto tcp dst %s dport 7003\n" % (SERVER4, GW_IN4))
    with Gateway(build, BASE_CONF, rules) as gw:
        # TCP: a reset (the kernel takes it only from the server's address and port).
        for dst, port, proto in ((SERVER4, 7001, "tcp"), (SERVER6, 7001, "tcp"),
                                 (SERVER4, 7002, "udp"), (SERVER6, 7002, "udp"),
                                 (GW_IN4, 7003, "tcp")):
            p = gw.python(gw.cns, CONNECT, dst, str(port), proto)
            w = wait_line(p, "", timeout=15)
            p.wait(5)
            check(w[0] == "REFUSED", "%s %s:%d: %s, not refused" % (proto, dst, port, w[0]))
        # ICMP: host prohibited, from the gateway's address on the client's side.
        r = ping(gw, SERVER4, count=1)
        check("From %s" % GW_IN4 in r.stdout and "Prohibited" in r.stdout,
              "ping: no host prohibited from the gateway:\n" + r.stdout)
        # Other traffic passes.
        r = ping(gw, SERVER6, count=1)
        check(r.returncode == 0, "ping6: " + r.stdout)
        gw.stop()
        st = gw.stats()
        check(st["reject"]["replies"] >= 6, "reject replies: %s" % st["reject"])
        check(st["drops"]["filter"] >= 6, "filter drops: %d" % st["drops"]["filter"])


def t_unreach(build):
    conf = BASE_CONF + "set neigh-retrans 200\nset neigh-probes 2\n"
    with Gateway(build, conf, ACCEPT) as gw:
        # No route: net unreachable (ICMPv6 no route), from the gateway.
        for dst, word in (("10.99.0.1", "Net Unreachable"), ("2001:db8:99::1", "No route")):
            r = ping(gw, dst, count=2)
            check("From %s" % (GW_IN4 if ":" not in dst else GW_IN6) in r.stdout and
                  word.lower() in r.stdout.lower(),
                  "ping %s: no '%s' from the gateway:\n%s" % (dst, word, r.stdout))
        # A connected address nobody answers: host (address) unreachable once
        # resolution fails, for the packets that waited.
        for dst, word in (("10.0.2.77", "Host Unreachable"), ("2001:db8:2::77", "Address unreachable")):
            r = ping(gw, dst, ("-W", "5"), count=1)
            check("From %s" % (GW_IN4 if ":" not in dst else GW_IN6) in r.stdout and
                  word.lower() in r.stdout.lower(),
                  "ping %s: no '%s' from the gateway:\n%s" % (dst, word, r.stdout))
        # A multicast destination is not forwarded, and gets no error.
        gw.client(["ping", "-4", "-c", "1", "-W", "1", "-t", "8", "239.1.2.3"], check_rc=False)
        gw.stop()
        st = gw.stats()
        check(st["drops"]["no_route"] >= 4, "no_route: %s" % st["drops"])
        check(st["drops"]["not_forwarded"] >= 1, "not_forwarded: %s" % st["drops"])
        check(st["drops"]["neigh_failed"] >= 2, "neigh_failed: %s" % st["drops"])
        check(st["router"]["icmp_errors"] >= 6, "icmp errors: %s" % st["router"])


def t_mode(build):
    conf = BASE_CONF.replace("set mode router", "set mode bridge")
    with Gateway(build, conf, ACCEPT) as gw:
        # A bridge answers no ARP: the gateway's address is nobody's.
        r = ping(gw, GW_IN4, count=1)
        check(r.returncode != 0, "bridge mode answered a ping of its address:\n" + r.stdout)
        check("no neighbours" in gw.shell("show neighbours"), "bridge: a neighbour table")
        for line, err in (("set mode sideways", "sideways"), ("set icmp-rate 5", "start only"),
                          ("set nosuch 1", "no such setting"), ("set mode", "usage")):
            out = gw.shell(line)
            check("error" in out and err in out, "'%s': %s" % (line, out))
        out = gw.shell("set mode router")
        check("error" not in out and "flushed" in out, "set mode router: " + out)
        stats = gw.shell("show stats")
        check(re.search(r"^mode\s+router$", stats, re.M), "show stats: " + stats)
        for dst in (GW_IN4, GW_IN6, SERVER4, SERVER6):
            r = ping(gw, dst)
            check(r.returncode == 0, "router mode, ping %s:\n%s" % (dst, r.stdout))
            if dst in (SERVER4, SERVER6):
                check(re.search(r"(ttl|hlim)=63", r.stdout), "TTL not one lower:\n" + r.stdout)
        got, _ = transfer(gw, SERVER4, 5003, 2)
        check("mode router already" in gw.shell("set mode router"), "set twice")
        # Back to a bridge: the gateway stops answering; the flows were flushed.
        out = gw.shell("set mode bridge")
        check("error" not in out and "flushed" in out, "set mode bridge: " + out)
        gw.client(["ip", "neigh", "flush", "all"], check_rc=False)
        r = ping(gw, GW_IN4, count=1)
        check(r.returncode != 0, "bridge again, the gateway answered:\n" + r.stdout)
        # And router mode once more: the kept neighbour module answers again.
        gw.shell("set mode router")
        r = ping(gw, SERVER4)
        check(r.returncode == 0 and "ttl=63" in r.stdout, "router again:\n" + r.stdout)
        gw.stop()
        st = gw.stats()
        check(st["mode"] == "router", "mode in JSON: %s" % st["mode"])


TESTS = {"ftp": t_ftp, "ftp_linux": t_ftp_linux, "tftp": t_tftp, "tftp_linux": t_tftp_linux, "sip": t_sip, "sip_linux": t_sip_linux, "sip_nat": t_sip_nat, "sip_nat_linux": t_sip_nat_linux, "irc": t_irc, "irc_linux": t_irc_linux, "unreach": t_unreach, "mode": t_mode, "reject": t_reject, "ping": t_ping, "ttl": t_ttl, "ttlfwd": t_ttlfwd, "ttlview": t_ttlview, "tcp": t_tcp, "udp": t_udp, "nat": t_nat, "commit": t_commit,
         "pmtu": t_pmtu, "neigh": t_neigh, "tapqueues": t_tapqueues}

if __name__ == "__main__":
    sys.exit(main(TESTS, sys.argv))
