#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gufc as a router on a stick: one net_tap port (port 0) is an 802.1Q
trunk, VLAN sub-interfaces of it carry two subnets (router_lib.Gateway
with vlans: the client on VLAN 100, the server on VLAN 200, on Linux VLAN
devices of the tap where the kernel has them, else behind an 802.1Q
switch):

  vlan    ping of the gateway's VLAN addresses and through it (IPv4, IPv6),
          TCP transfers both ways, an iptables rule with -i naming a VLAN
          sub-interface drops one direction only, frames tagged with a VLAN
          no sub-interface has are dropped under vlan_unknown (counted on
          the parent), untagged frames stay the parent's; the sub-interfaces'
          counters in show ports, the JSON and /gufc/ports
"""

import re
import struct
import sys

from router_lib import (CLIENT4, CLIENT6, GW_IN4, GW_IN6, GW_OUT4, GW_OUT6, SERVER4,
                        SERVER6, Fail, Gateway, check, main)
from router_test import ping, transfer, wait_line

VLAN_CONF = """set mode router
port 0 name trunk
port 2 vlan 100 parent 0 address 10.0.1.1/24 2001:db8:1::1/64
port 3 vlan 200 parent 0 name srv200 address 10.0.2.1/24 2001:db8:2::1/64
"""

# The server's connections to the client's port 5003 are dropped as they
# come in on VLAN 200 (-i srv200); the client's to the server are not.
VLAN_IPT = """*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -i srv200 -p tcp --dport 5003 -j DROP
COMMIT
"""


def frame(vid, dst_ip):
    """An ICMP echo request to @dst_ip tagged VLAN @vid (None: untagged)."""
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 1, 0,
                     bytes([10, 0, 9, 9]), bytes(int(x) for x in dst_ip.split(".")))
    icmp = struct.pack("!BBHHH", 8, 0, 0xf7fe, 1, 0)
    tag = struct.pack("!HH", 0x8100, vid) if vid is not None else b""
    return b"\xff" * 6 + bytes.fromhex("020000000909") + tag + b"\x08\x00" + ip + icmp


def t_vlan(build):
    with Gateway(build, VLAN_CONF, VLAN_IPT, vlans=(100, 200), rules_kw="iptables") as gw:
        for dst in (GW_IN4, GW_IN6, GW_OUT4, GW_OUT6):
            r = ping(gw, dst)
            check(r.returncode == 0, "ping %s: %s" % (dst, r.stdout))
        for dst in (SERVER4, SERVER6):
            r = ping(gw, dst)
            check(r.returncode == 0 and re.search(r"(ttl|hlim)=63", r.stdout),
                  "ping %s through the VLANs: %s" % (dst, r.stdout))
        r = gw.server(["ping", "-4", "-c", "2", "-i", "0.2", "-W", "2", CLIENT4], check_rc=False)
        check(r.returncode == 0, "server -> client: %s" % r.stdout)
        # TCP both ways (VLAN 100 -> 200 and 200 -> 100), IPv4 and IPv6.
        got, _ = transfer(gw, SERVER4, 5001, 8)
        check(got[3] == CLIENT4, "the server saw %s" % got[3])
        transfer(gw, SERVER6, 5001, 4)
        got, _ = transfer(gw, CLIENT4, 5002, 8, src_ns=gw.sns, dst_ns=gw.cns)
        check(got[3] == SERVER4, "the client saw %s" % got[3])
        # -i srv200 (the VLAN 200 sub-interface): the server's connection
        # to the client's port 5003 is dropped; the client's to the
        # server's 5003 goes through.
        conn = ("import socket, sys\n"
                "try:\n"
                "    socket.create_connection((sys.argv[1], 5003), timeout=2)\n"
                "    print('CONNECTED')\n"
                "except OSError as e:\n"
                "    print('FAILED', type(e).__name__)\n")
        lst = ("import socket\n"
               "s = socket.socket()\n"
               "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
               "s.bind(('', 5003))\n"
               "s.listen(4)\n"
               "print('LISTEN', flush=True)\n"
               "s.settimeout(20)\n"
               "c, _ = s.accept()\n")
        cl = gw.python(gw.cns, lst)
        sl = gw.python(gw.sns, lst)
        wait_line(cl, "LISTEN")
        wait_line(sl, "LISTEN")
        r = gw.client([sys.executable, "-c", conn, SERVER4])
        check("CONNECTED" in r.stdout, "client -> server:5003: " + r.stdout)
        r = gw.server([sys.executable, "-c", conn, CLIENT4])
        check("FAILED" in r.stdout, "server -> client:5003 (-i srv200 DROP): " + r.stdout)
        for p in (cl, sl):
            p.kill()
            p.wait()
        flows = gw.shell("show flows proto tcp")
        check("in_port=2" in flows and "in_port=3" in flows,
              "no flows in on the VLAN ports:\n" + flows)
        # VLAN 300 has no sub-interface: dropped, counted on the parent.
        # An untagged frame is the parent's (no address there: not answered).
        gw.trunk_send([frame(300, GW_IN4)] * 5 + [frame(None, GW_IN4)])
        ports = gw.shell("show ports")
        rows = {l.split()[0]: l for l in ports.splitlines() if l.split() and l.split()[0].isdigit()}
        check("vlan 100 of port 0" in rows.get("2", "") and "srv200" in rows.get("3", "") and
              "trunk.100" in rows.get("2", ""), "show ports:\n" + ports)
        chans = gw.shell("show channels")
        check(re.search(r"tx-port2\b.*port 0\.100 queue", chans) and
              re.search(r"tx-port3\b.*port 0\.200 queue", chans), "show channels:\n" + chans)
        tel = gw.telemetry(["/gufc/ports"])
        gw.stop()
        st = gw.stats()
        check(st["drops"]["vlan_unknown"] == 5, "vlan_unknown: %s" % st["drops"]["vlan_unknown"])
        check(st["drops"]["filter"] >= 1, "filter drops: %s" % st["drops"]["filter"])
        jp = {p["port"]: p for p in st["ports"]}
        check(jp[0]["vlan_unknown"] == 5 and jp[0]["vlan"] == 0, "port 0: %s" % jp[0])
        for p, vid in ((2, 100), (3, 200)):
            check(jp[p]["vlan"] == vid and jp[p]["parent"] == 0 and jp[p]["vlan_rx"] > 1000 and
                  jp[p]["vlan_tx"] > 1000, "port %d: %s" % (p, jp[p]))
        if tel is not None:
            t = tel["/gufc/ports"]
            check(t["vlan"] == [0, 100, 200] and t["vlan_unknown"][0] >= 5,
                  "/gufc/ports: %s" % t)
        how = "Linux VLAN devices" if gw.linux_vlans else "an 802.1Q switch (no 8021q here)"
    print("vlan: router on a stick over VLANs 100 and 200 of one tap (%s): ping, TCP both "
          "ways, -i srv200 drops one direction, VLAN 300 dropped (vlan_unknown 5)" % how)


TESTS = {"vlan": t_vlan}

if __name__ == "__main__":
    try:
        sys.exit(main(TESTS, sys.argv))
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
