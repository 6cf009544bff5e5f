#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gufc's policy routing between real Linux hosts (router_lib.Gateway: a
client behind port 0, a server behind port 1, router mode):

  prouting  the server also holds 10.9.0.1, which only routing table "wan"
            reaches (via the server); mangle PREROUTING marks TCP to port
            5001 0x1 (saved in the connmark, restored on the replies), a
            rule `fwmark 0x1/0xff table wan` routes the marks: a TCP
            transfer to 10.9.0.1:5001 goes through (its replies, marked 0x1
            too, fall through table wan, which has no route to the client,
            to main), while a ping of 10.9.0.1 (unmarked) gets ICMP net
            unreachable; a `to 10.8.0.0/24 prohibit` rule answers a ping
            with ICMP administratively prohibited (route_prohibit); a rule
            added and deleted at run time in the shell; show routes,
            show route-rules (hits), ipproto and dport rules in the shell
            (oif refused), the JSON's route_rules, and every
            table's routes in the JSON's routes and /gufc/routes.
  prouting_linux
            the oracle: the same iptables rules and the same routing rules
            (`ip rule`, `ip route ... table 100`) in a Linux router between
            the same hosts; the same three outcomes (net unreachable, the
            marked transfer, administratively prohibited), and the ping the
            ipproto icmp rule routes.
  prouting_cmp
            UDP conversations (one 5-tuple each, so the flow is cached)
            through gufc while rules and routes change (CMP_STEPS): a
            reply whose restored mark picks an unreachable, prohibit or
            blackhole rule (the server gets the ICMP error, the original
            still goes); a rule turning a cached flow's route into each
            drop and back; a route deleted from a rule's table and added
            back; goto (to a rule, unresolved, past main); user rules at
            main's pref 32766 (after main, as Linux adds them); IPv6's
            drops of a cached flow and back (ICMPv6). Each step's
            outcome (answered, no answer, the ICMP type/code the host's
            socket got) must be CMP_WANT's.
  prouting_cmp_linux
            the same steps through a Linux router (`ip rule`, `ip -6 rule`
            for IPv6's, `ip route ... table 100`): the same outcomes, CMP_WANT.
"""

import os
import subprocess
import sys

from router_lib import CLIENT4, GW_IN4, Gateway, check, main, sh
from router_test import BASE_CONF, SINK, SOURCE, linux_router, ping, wait_line

PR_CONF = BASE_CONF + """route table wan 10.9.0.0/24 via 10.0.2.2
route-rule pref 100 fwmark 0x1/0xff table wan
route-rule pref 200 to 10.8.0.0/24 prohibit
"""

# The same rules for gufc and for the Linux router (iptables-restore).
PR_IPT = """*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -j CONNMARK --restore-mark
-A PREROUTING -p tcp --dport 5001 -j MARK --set-mark 0x1
-A PREROUTING -j CONNMARK --save-mark
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
"""

PING = r"""
import subprocess, sys
r = subprocess.run(["ping", "-4", "-c", "1", "-W", "2", sys.argv[1]], stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True)
print("DONE", r.stdout.replace("\n", " | "), flush=True)
"""


def outcomes(ping_out, transfer_fn):
    """The three outcomes both routers must give (@ping_out(dst): ping's output)."""
    out = ping_out("10.9.0.1")
    check("From %s" % GW_IN4 in out and "net unreachable" in out.lower(),
          "ping 10.9.0.1 (unmarked): no net unreachable from the gateway:\n" + out)
    got = transfer_fn("10.9.0.1", 5001, 4)
    check(got[3] == CLIENT4, "the server saw %s" % got[3])
    out = ping_out("10.8.0.1")
    check("From %s" % GW_IN4 in out and "filtered" in out.lower(),
          "ping 10.8.0.1: no administratively prohibited:\n" + out)


def transfer(gw, dst, port, mb):
    sink = gw.python(gw.sns, SINK, dst, str(port))
    wait_line(sink, "LISTEN")
    src = gw.python(gw.cns, SOURCE, dst, str(port), str(mb))
    sent = wait_line(src, "SENT", timeout=60)
    got = wait_line(sink, "GOT", timeout=10)
    src.wait(5)
    sink.wait(5)
    check(sent[1] == got[1] and sent[2] == got[2],
          "transfer to %s:%d: sent %s, received %s" % (dst, port, sent, got))
    return got


def t_prouting(build):
    with Gateway(build, PR_CONF, PR_IPT, rules_kw="iptables") as gw:
        gw.server(["ip", "link", "set", "lo", "up"])
        gw.server(["ip", "addr", "add", "10.9.0.1/32", "dev", "lo"])
        # Unmarked: main has no route to 10.9.0.0/24; marked 0x1: table wan
        # routes it to the server; prohibit: "Packet filtered".
        outcomes(lambda dst: ping(gw, dst, count=1).stdout,
                 lambda dst, port, mb: transfer(gw, dst, port, mb))
        out = gw.shell("show routes")
        check("table wan (1000): 1 route" in out and "10.9.0.0/24 port 1 via 10.0.2.2" in out,
              "show routes:\n" + out)
        out = gw.shell("show route-rules")
        lines = out.strip().splitlines()
        check(len(lines) == 3 and lines[0].startswith("100:") and
              "fwmark 0x1/0xff lookup wan" in lines[0] and "to 10.8.0.0/24 prohibit" in lines[1]
              and lines[2].startswith("32766:") and "lookup main" in lines[2],
              "show route-rules:\n" + out)
        hits = [int(l.rsplit("hits", 1)[1]) for l in lines]
        check(hits[0] >= 1 and hits[1] >= 1, "hits: %s" % hits)
        # At run time: every ICMP echo to 10.9.0.1 is routed by table wan.
        out = gw.shell("route-rule add pref 50 to 10.9.0.1/32 table wan")
        check("added" in out, "route-rule add: " + out)
        r = ping(gw, "10.9.0.1", count=2)
        check(r.returncode == 0, "ping 10.9.0.1 by the new rule:\n" + r.stdout)
        out = gw.shell("route-rule add pref 50 to 10.9.0.1/32 table wan")
        check("the same rule" in out, "route-rule add twice: " + out)
        out = gw.shell("route-rule del to 10.9.0.1/32 table wan")
        check("deleted" in out, "route-rule del: " + out)
        # ipproto: ICMP to 10.9.0.1 by table wan (a TCP port range rule beside it).
        out = gw.shell("route-rule add pref 60 ipproto icmp to 10.9.0.1/32 table wan\n"
                       "route-rule add pref 61 ipproto tcp dport 5002-5003 blackhole")
        check(out.count("added") == 2, "route-rule add ipproto: " + out)
        r = ping(gw, "10.9.0.1", count=2)
        check(r.returncode == 0, "ping 10.9.0.1 by the ipproto rule:\n" + r.stdout)
        out = gw.shell("show route-rules")
        check("60:" in out and "to 10.9.0.1/32 ipproto icmp lookup wan" in out and
              "61:" in out and "ipproto tcp dport 5002-5003 blackhole" in out,
              "show route-rules (ipproto):\n" + out)
        out = gw.shell("route-rule del ipproto icmp to 10.9.0.1/32 table wan\n"
                       "route-rule del ipproto tcp dport 5002-5003 blackhole")
        check(out.count("deleted") == 2, "route-rule del ipproto: " + out)
        out = gw.shell("route-rule add oif 1 table main")
        check("never matches a forwarded packet" in out, "route-rule add oif: " + out)
        out = gw.shell("route-rule add table nosuch")
        check("no such table" in out, "route-rule add table nosuch: " + out)
        tel = gw.telemetry(["/gufc/routes"])
        gw.stop()
        st = gw.stats()
        # Every table's routes, main's first, each with its table.
        rt = st["routes"]
        check(rt and rt[0]["table"] == 254 and rt[0]["table_name"] == "main" and
              {"prefix": "10.9.0.0/24", "port": 1, "via": "10.0.2.2", "connected": False,
               "table": 1000, "table_name": "wan"} in rt, "JSON routes: %s" % rt)
        if tel is not None:
            tr = tel["/gufc/routes"]
            check(tr["prefix"] == [r["prefix"] for r in rt] and
                  tr["table"] == [r["table"] for r in rt] and
                  tr["table_name"] == [r["table_name"] for r in rt], "tel routes: %s" % tr)
        check(st["drops"].get("route_prohibit", 0) >= 1, "drops: %s" % st["drops"])
        rr = st["route_rules"]
        check([x["pref"] for x in rr] == [100, 200, 32766] and rr[0]["hits"] >= 1,
              "JSON route_rules: %s" % rr)


def t_prouting_linux(build):
    tag = "prl"
    rns = "%s%d-r" % (tag, os.getpid() % 100000)
    sns = "%s%d-s" % (tag, os.getpid() % 100000)

    def body(spawn, flush_raw):
        for args in (["ip", "route", "add", "10.9.0.0/24", "via", "10.0.2.2", "table", "100"],
                     ["ip", "rule", "add", "pref", "100", "fwmark", "0x1/0xff", "table", "100"],
                     ["ip", "rule", "add", "pref", "200", "to", "10.8.0.0/24", "prohibit"]):
            sh(["ip", "netns", "exec", rns] + args)
        sh(["ip", "netns", "exec", sns, "ip", "addr", "add", "10.9.0.1/32", "dev", "lo"])

        def ping_out(dst):
            p = spawn(False, PING, dst)
            w = wait_line(p, "DONE", timeout=15)
            p.wait(5)
            return " ".join(w)

        def transfer_fn(dst, port, mb):
            sink = spawn(True, SINK, dst, str(port))
            wait_line(sink, "LISTEN")
            src = spawn(False, SOURCE, dst, str(port), str(mb))
            sent = wait_line(src, "SENT", timeout=60)
            got = wait_line(sink, "GOT", timeout=10)
            src.wait(5)
            sink.wait(5)
            check(sent[1] == got[1] and sent[2] == got[2], "linux transfer: %s %s" % (sent, got))
            return got

        outcomes(ping_out, transfer_fn)
        # The ipproto rule gufc's shell adds: ICMP to 10.9.0.1 by table 100, as gufc.
        sh(["ip", "netns", "exec", rns, "ip", "rule", "add", "pref", "60", "ipproto", "icmp",
            "to", "10.9.0.1/32", "table", "100"])
        out = ping_out("10.9.0.1")
        check(" 0% packet loss" in out, "linux: ping 10.9.0.1 by the ipproto rule: " + out)
        print("linux: net unreachable, the marked transfer by table 100, prohibit, "
              "ipproto icmp: as gufc")

    linux_router(tag, ("tcp", None), 5001, body, nat=False, v6=False,
                 texts={"4": PR_IPT, "6": "*filter\nCOMMIT\n"})


# prouting_cmp: marks for the reply-drop conversations (UDP to 6001..6003),
# kept in the connmark and restored on their replies.
CMP_IPT = """*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -j CONNMARK --restore-mark
-A PREROUTING -p udp --dport 6001 -j MARK --set-mark 0x2
-A PREROUTING -p udp --dport 6002 -j MARK --set-mark 0x3
-A PREROUTING -p udp --dport 6003 -j MARK --set-mark 0x4
-A PREROUTING -j CONNMARK --save-mark
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
"""

# A UDP conversation of one 5-tuple (source port argv[3]): each line on
# stdin sends that line and prints "R LINE ok" (echoed), "R LINE icmpT/C"
# or "icmp6T/C" (the ICMP error the socket got: IP_RECVERR, IPV6_RECVERR)
# or "R LINE none".
CMP_CLIENT = r"""
import select, socket, struct, sys, time
v6 = ":" in sys.argv[1]
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
LVL, RECVERR, ORIGIN = (41, 25, 3) if v6 else (socket.SOL_IP, 11, 2)  # IPV6_/IP_RECVERR
s.setsockopt(LVL, RECVERR, 1)
s.bind(("::" if v6 else "0.0.0.0", int(sys.argv[3])))
s.connect((sys.argv[1], int(sys.argv[2])))

def errs():
    out = []
    while True:
        try:
            _, anc, _, _ = s.recvmsg(2048, 512, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return out
        for lvl, typ, data in anc:
            e = struct.unpack_from("=IBBBBII", data)
            if lvl == LVL and typ == RECVERR and e[1] == ORIGIN:  # SO_EE_ORIGIN_ICMP(6)
                out.append("icmp%s%d/%d" % ("6" if v6 else "", e[2], e[3]))

def drain():
    errs()
    while select.select([s], [], [], 0)[0]:
        try:
            s.recv(2048, socket.MSG_DONTWAIT)
        except BlockingIOError:
            break
        except OSError:
            pass

print("READY", flush=True)
for line in sys.stdin:
    n = line.strip().encode()
    drain()
    s.send(n)
    res, end = "none", time.time() + 1.5
    p = select.poll()
    p.register(s, select.POLLIN | select.POLLERR)
    while time.time() < end and p.poll(max(0.0, end - time.time()) * 1000):
        e = errs()
        if e:
            res = e[0]
            break
        try:
            if s.recv(2048, socket.MSG_DONTWAIT) == n:
                res = "ok"
                break
        except OSError:
            pass
    print("R", n.decode(), res, flush=True)
"""

# The server: a UDP echo on each port of argv[1:] (PORT or PORT@ADDRESS: on
# that address only, so that its replies come from it; IP_RECVERR: the ICMP
# errors its replies got); "stat P" on stdin prints "STAT P GOT ICMP,..."
# (datagrams received on port P, the errors of its replies) and clears them.
CMP_SERVER = r"""
import select, socket, struct, sys
socks, got, icmp = {}, {}, {}
for a in sys.argv[1:]:
    port, _, addr = a.partition("@")
    s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
    if ":" not in addr:
        s.setsockopt(socket.SOL_IP, 11, 1)
    s.bind((addr or "0.0.0.0", int(port)))
    a = port
    socks[s.fileno()] = (s, a)
    got[a], icmp[a] = 0, []
p = select.poll()
for fd in socks:
    p.register(fd, select.POLLIN | select.POLLERR)
p.register(sys.stdin.fileno(), select.POLLIN)
print("READY", flush=True)
while True:
    for fd, ev in p.poll():
        if fd == sys.stdin.fileno():
            w = sys.stdin.readline().split()
            if not w:
                sys.exit(0)
            print("STAT", w[1], got[w[1]], ",".join(icmp[w[1]]) or "-", flush=True)
            got[w[1]], icmp[w[1]] = 0, []
            continue
        s, a = socks[fd]
        while True:
            try:
                _, anc, _, _ = s.recvmsg(2048, 512, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
            except (BlockingIOError, OSError):
                break
            for lvl, typ, data in anc:
                e = struct.unpack_from("=IBBBBII", data)
                if lvl == socket.SOL_IP and typ == 11 and e[1] == 2:
                    icmp[a].append("icmp%d/%d" % (e[2], e[3]))
        try:
            b, peer = s.recvfrom(2048, socket.MSG_DONTWAIT)
        except OSError:
            continue
        got[a] += 1
        s.sendto(b, peer)
"""

CMP_PORTS = ("6001", "6002", "6003", "6010", "6011", "6020", "6021", "6022", "6030",
             "6031@10.9.0.1", "6040@::")

# The steps: ("rule", "add"|"del", `ip rule` words, {T}: the table),
# ("route", "add"|"del", prefix, gateway) in that table, ("send", name,
# dst, dport, sport): one datagram of that conversation (its outcome),
# ("server", name, port): what the server got on that port since the last.
CMP_STEPS = [
    # A reply dropped by its own restored mark (the original goes on).
    ("rule", "add", "pref 150 from 10.0.2.0/24 fwmark 0x2/0xff unreachable"),
    ("rule", "add", "pref 151 from 10.0.2.0/24 fwmark 0x3/0xff prohibit"),
    ("rule", "add", "pref 152 from 10.0.2.0/24 fwmark 0x4/0xff blackhole"),
    ("send", "reply unreachable", "10.0.2.2", 6001, 40001),
    ("server", "reply unreachable: server", "6001"),
    ("send", "reply prohibit", "10.0.2.2", 6002, 40002),
    ("server", "reply prohibit: server", "6002"),
    ("send", "reply blackhole", "10.0.2.2", 6003, 40003),
    ("server", "reply blackhole: server", "6003"),
    # A cached flow whose route a rule turns into a drop, and back.
    ("send", "walk: before", "10.0.2.2", 6010, 40010),
    ("rule", "add", "pref 40 ipproto udp dport 6010 prohibit"),
    ("send", "walk: prohibit", "10.0.2.2", 6010, 40010),
    ("rule", "del", "pref 40 ipproto udp dport 6010 prohibit"),
    ("send", "walk: prohibit gone", "10.0.2.2", 6010, 40010),
    ("rule", "add", "pref 40 ipproto udp dport 6010 unreachable"),
    ("send", "walk: unreachable", "10.0.2.2", 6010, 40010),
    ("rule", "del", "pref 40 ipproto udp dport 6010 unreachable"),
    ("send", "walk: unreachable gone", "10.0.2.2", 6010, 40010),
    ("rule", "add", "pref 40 ipproto udp dport 6010 blackhole"),
    ("send", "walk: blackhole", "10.0.2.2", 6010, 40010),
    ("rule", "del", "pref 40 ipproto udp dport 6010 blackhole"),
    ("send", "walk: blackhole gone", "10.0.2.2", 6010, 40010),
    # The route a rule's table gave goes (the next rule drops), and comes back.
    ("route", "add", "10.0.2.2/32", "10.0.2.2"),
    ("rule", "add", "pref 45 ipproto udp dport 6011 table {T}"),
    ("rule", "add", "pref 46 ipproto udp dport 6011 prohibit"),
    ("send", "route: in table", "10.0.2.2", 6011, 40011),
    ("route", "del", "10.0.2.2/32", "10.0.2.2"),
    ("send", "route: gone", "10.0.2.2", 6011, 40011),
    ("route", "add", "10.0.2.2/32", "10.0.2.2"),
    ("send", "route: back", "10.0.2.2", 6011, 40011),
    # goto: over a prohibit rule to a rule that looks main up; that rule
    # gone (unresolved: skipped, the prohibit rule drops); back.
    ("rule", "add", "pref 80 ipproto udp dport 6020 prohibit"),
    ("rule", "add", "pref 90 ipproto udp dport 6020 table main"),
    ("rule", "add", "pref 70 ipproto udp dport 6020 goto 90"),
    ("send", "goto: over prohibit", "10.0.2.2", 6020, 40020),
    ("rule", "del", "pref 90 ipproto udp dport 6020 table main"),
    ("send", "goto: unresolved", "10.0.2.2", 6020, 40020),
    ("rule", "add", "pref 90 ipproto udp dport 6020 table main"),
    ("send", "goto: resolved again", "10.0.2.2", 6020, 40020),
    # goto past main's pref: main skipped, the rule there decides.
    ("rule", "add", "pref 33000 ipproto udp dport 6021 unreachable"),
    ("rule", "add", "pref 71 ipproto udp dport 6021 goto 33000"),
    ("send", "goto: past main", "10.0.2.2", 6021, 40021),
    # An unresolved goto past main: skipped, main routes.
    ("rule", "add", "pref 72 ipproto udp dport 6022 goto 34000"),
    ("send", "goto: unresolved past main", "10.0.2.2", 6022, 40022),
    # A user rule at 32766 comes after main's (Linux adds it after the
    # rules of its pref): main routes first; what main lacks, it routes.
    ("rule", "add", "pref 32766 ipproto udp dport 6030 prohibit"),
    ("send", "32766: main first", "10.0.2.2", 6030, 40030),
    ("rule", "add", "pref 32766 to 10.9.0.1/32 table {T}"),
    ("send", "32766: after main", "10.9.0.1", 6031, 40031),
    # IPv6: a cached flow's route turned into each drop and back (ICMPv6
    # administratively prohibited, no route).
    ("send", "v6 walk: before", "2001:db8:2::2", 6040, 40040),
    ("rule", "add", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 prohibit"),
    ("send", "v6 walk: prohibit", "2001:db8:2::2", 6040, 40040),
    ("rule", "del", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 prohibit"),
    ("send", "v6 walk: prohibit gone", "2001:db8:2::2", 6040, 40040),
    ("rule", "add", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 unreachable"),
    ("send", "v6 walk: unreachable", "2001:db8:2::2", 6040, 40040),
    ("rule", "del", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 unreachable"),
    ("send", "v6 walk: unreachable gone", "2001:db8:2::2", 6040, 40040),
    ("rule", "add", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 blackhole"),
    ("send", "v6 walk: blackhole", "2001:db8:2::2", 6040, 40040),
    ("rule", "del", "pref 41 to 2001:db8:2::2/128 ipproto udp dport 6040 blackhole"),
    ("send", "v6 walk: blackhole gone", "2001:db8:2::2", 6040, 40040),
]

CMP_WANT = {
    "reply unreachable": "none", "reply unreachable: server": "1 icmp3/0",
    "reply prohibit": "none", "reply prohibit: server": "1 icmp3/13",
    "reply blackhole": "none", "reply blackhole: server": "1 -",
    "walk: before": "ok", "walk: prohibit": "icmp3/13", "walk: prohibit gone": "ok",
    "walk: unreachable": "icmp3/0", "walk: unreachable gone": "ok",
    "walk: blackhole": "none", "walk: blackhole gone": "ok",
    "route: in table": "ok", "route: gone": "icmp3/13", "route: back": "ok",
    "goto: over prohibit": "ok", "goto: unresolved": "icmp3/13", "goto: resolved again": "ok",
    "goto: past main": "icmp3/0", "goto: unresolved past main": "ok",
    "32766: main first": "ok", "32766: after main": "ok",
    "v6 walk: before": "ok", "v6 walk: prohibit": "icmp61/1", "v6 walk: prohibit gone": "ok",
    "v6 walk: unreachable": "icmp61/0", "v6 walk: unreachable gone": "ok",
    "v6 walk: blackhole": "none", "v6 walk: blackhole gone": "ok",
}


def cmp_run(rule, route, spawn):
    """CMP_STEPS: @rule(op, words), @route(op, prefix, gw) change the
    router (each followed by a second's wait: the walk over cached flows,
    and Linux's ICMP error rate limit of one a second past a burst);
    @spawn(server, code, *args) a process with stdin in the server's or
    the client's namespace. Checks each outcome against CMP_WANT."""
    import time

    server = spawn(True, CMP_SERVER, *CMP_PORTS)
    wait_line(server, "READY")
    clients, got = {}, {}
    try:
        for st in CMP_STEPS:
            if st[0] in ("rule", "route"):
                (rule if st[0] == "rule" else route)(*st[1:])
                time.sleep(1.0)
            elif st[0] == "server":
                server.stdin.write("stat %s\n" % st[2])
                server.stdin.flush()
                w = wait_line(server, "STAT")
                got[st[1]] = "%s %s" % (w[2], w[3])
            else:
                key = (st[2], st[3], st[4])
                if key not in clients:
                    clients[key] = spawn(False, CMP_CLIENT, *[str(x) for x in key])
                    wait_line(clients[key], "READY")
                c = clients[key]
                c.stdin.write("x%d\n" % len(got))
                c.stdin.flush()
                got[st[1]] = wait_line(c, "R", timeout=10)[2]
    finally:
        for p in [server] + list(clients.values()):
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(5)
            except Exception:
                p.kill()
    for k in got:
        print("%-28s %s" % (k, got[k]))
    bad = ["%s: %s, not %s" % (k, got.get(k), CMP_WANT[k]) for k in CMP_WANT
           if got.get(k) != CMP_WANT[k]]
    check(not bad, "steps unlike Linux's:\n  " + "\n  ".join(bad))


def t_prouting_cmp(build):
    with Gateway(build, PR_CONF, CMP_IPT, rules_kw="iptables") as gw:
        gw.server(["ip", "link", "set", "lo", "up"])
        gw.server(["ip", "addr", "add", "10.9.0.1/32", "dev", "lo"])

        def rule(op, words):
            out = gw.shell("route-rule %s %s" % (op, words.replace("{T}", "wan")))
            check(("added" if op == "add" else "deleted") in out,
                  "route-rule %s %s: %s" % (op, words, out))

        def route(op, prefix, via):
            cmd = ("route add table wan %s via %s" % (prefix, via) if op == "add" else
                   "route del table wan %s" % prefix)
            out = gw.shell(cmd)
            check("error" not in out.lower() and "bad" not in out.lower(), cmd + ": " + out)

        def spawn(server, code, *args):
            return gw.python(gw.sns if server else gw.cns, code, *args)

        cmp_run(rule, route, spawn)
        out = gw.shell("route-rule add fwmark 0x1 tos 0x10 table wan")
        check("tos/dsfield not supported" in out, "route-rule add tos: " + out)
        out = gw.shell("show route-rules")
        lines = [l for l in out.strip().splitlines() if l.startswith("32766:")]
        check(len(lines) == 3 and "lookup main" in lines[0] and "prohibit" in lines[1],
              "show route-rules (32766: main first):\n" + out)


def t_prouting_cmp_linux(build):
    tag = "prc"
    rns = "%s%d-r" % (tag, os.getpid() % 100000)
    sns = "%s%d-s" % (tag, os.getpid() % 100000)
    cns = "%s%d-c" % (tag, os.getpid() % 100000)

    def body(_spawn, flush_raw):
        sh(["ip", "netns", "exec", rns, "ip", "route", "add", "10.9.0.0/24", "via", "10.0.2.2",
            "table", "100"])
        sh(["ip", "netns", "exec", sns, "ip", "addr", "add", "10.9.0.1/32", "dev", "lo"])

        def rule(op, words):
            sh(["ip", "netns", "exec", rns, "ip"] + (["-6"] if ":" in words else []) +
               ["rule", op] + words.replace("{T}", "100").split())

        def route(op, prefix, via):
            sh(["ip", "netns", "exec", rns, "ip", "route", op, prefix] +
               (["via", via] if op == "add" else []) + ["table", "100"])

        def spawn(server, code, *args):
            return subprocess.Popen(["ip", "netns", "exec", sns if server else cns,
                                     sys.executable, "-u", "-c", code] + list(args),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)

        cmp_run(rule, route, spawn)
        out = sh(["ip", "netns", "exec", rns, "ip", "rule", "show"]).stdout
        lines = [l for l in out.strip().splitlines() if l.startswith("32766:")]
        check(len(lines) == 3 and "lookup main" in lines[0] and "prohibit" in lines[1],
              "linux: ip rule show (32766: main first):\n" + out)
        print("linux: the steps' outcomes are CMP_WANT's")

    linux_router(tag, ("udp", None), 6001, body, nat=False, v6=True,
                 texts={"4": CMP_IPT, "6": "*filter\nCOMMIT\n"})


if __name__ == "__main__":
    sys.exit(main({"prouting": t_prouting, "prouting_linux": t_prouting_linux,
                   "prouting_cmp": t_prouting_cmp,
                   "prouting_cmp_linux": t_prouting_cmp_linux}, sys.argv))
