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
            show route-rules (hits) and the JSON's route_rules.
"""

import sys

from router_lib import CLIENT4, GW_IN4, Gateway, check, main
from router_test import BASE_CONF, SINK, SOURCE, ping, wait_line

PR_CONF = BASE_CONF + """route table wan 10.9.0.0/24 via 10.0.2.2
route-rule pref 100 fwmark 0x1/0xff table wan
route-rule pref 200 to 10.8.0.0/24 prohibit
"""

PR_RULES = """policy accept
table mangle
chain P hook prerouting
connmark restore_mark
mark set_mark 0x1 proto tcp dport 5001
connmark save_mark
"""


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
    with Gateway(build, PR_CONF, PR_RULES) as gw:
        gw.server(["ip", "link", "set", "lo", "up"])
        gw.server(["ip", "addr", "add", "10.9.0.1/32", "dev", "lo"])
        # Unmarked: main has no route to 10.9.0.0/24.
        r = ping(gw, "10.9.0.1", count=1)
        check("From %s" % GW_IN4 in r.stdout and "net unreachable" in r.stdout.lower(),
              "ping 10.9.0.1 (unmarked): no net unreachable from the gateway:\n" + r.stdout)
        # Marked 0x1: table wan routes it to the server.
        got = transfer(gw, "10.9.0.1", 5001, 4)
        check(got[3] == CLIENT4, "the server saw %s" % got[3])
        # prohibit: ICMP administratively prohibited (ping: "Packet filtered").
        r = ping(gw, "10.8.0.1", count=1)
        check("From %s" % GW_IN4 in r.stdout and "filtered" in r.stdout.lower(),
              "ping 10.8.0.1: no administratively prohibited:\n" + r.stdout)
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
        out = gw.shell("route-rule add table nosuch")
        check("no such table" in out, "route-rule add table nosuch: " + out)
        gw.stop()
        st = gw.stats()
        check(st["drops"].get("route_prohibit", 0) >= 1, "drops: %s" % st["drops"])
        rr = st["route_rules"]
        check([x["pref"] for x in rr] == [100, 200, 32766] and rr[0]["hits"] >= 1,
              "JSON route_rules: %s" % rr)


if __name__ == "__main__":
    sys.exit(main({"prouting": t_prouting}, sys.argv))
