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


if __name__ == "__main__":
    sys.exit(main({"prouting": t_prouting, "prouting_linux": t_prouting_linux}, sys.argv))
