#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Jumbo frames through gufc in router mode between real Linux hosts
(router_lib.Gateway: a client and a server namespace, each behind a veth
pair whose root end is a net_pcap port of gufc, both links at MTU 9000 as
a Linux gateway's with `ip link set mtu 9000`; not net_tap: DPDK 22.11's
net_tap takes frames of 1522 bytes at most):

  jumbo       ping -s 8000 -M do through the gateway and of the gateway
              itself (IPv4, IPv6); a TCP transfer and 8,000-byte UDP
              datagrams through masquerade (the hosts' kernels check every
              checksum); the datagrams span several mbufs in gufc
  jumbo_pmtu  the same client at MTU 9000, the server's link at 1500: a
              datagram with DF gets ICMP fragmentation needed with MTU
              1500 (IPv6: packet too big), one without DF is fragmented,
              and the server's fragmented answer comes back whole
  jumbo_tap   mtu 9000 on net_tap refused at start, and at run time by the
              shell's "port 0 mtu 9000" (nothing changed) (DPDK 22.11's net_tap
              takes frames of 1522 bytes at most)

Run by meson as router_jumbo, router_jumbo_pmtu and router_jumbo_tap; root only (77 where
namespaces or taps are not available).
"""

import re
import sys

from router_lib import (GW_IN4, GW_IN6, GW_OUT4, SERVER4, SERVER6, Fail, Gateway, Skip, check,
                        main)
from router_test import ACCEPT, UDP_CLIENT, UDP_ECHO, ping, transfer, wait_line

JUMBO_CONF = """set mode router
port 0 name inside address 10.0.1.1/24 2001:db8:1::1/64 mtu 9000
port 1 name outside address 10.0.2.1/24 2001:db8:2::1/64 mtu %d
"""


def t_jumbo(build):
    rules = ACCEPT + "masquerade src 10.0.1.0/24\n"
    with Gateway(build, JUMBO_CONF % 9000, rules, link="veth", mtu=9000) as gw:
        # The gateway itself answers a jumbo echo request, as Linux does.
        for dst in (GW_IN4, GW_IN6):
            r = ping(gw, dst, ("-s", "8000", "-M", "do"), count=2)
            check(" 0% packet loss" in r.stdout and "8008 bytes from" in r.stdout,
                  "ping -s 8000 of the gateway %s:\n%s" % (dst, r.stdout))
        # Through it, DF set: no fragment anywhere (IPv4 masqueraded).
        for dst in (SERVER4, SERVER6):
            r = ping(gw, dst, ("-s", "8000", "-M", "do"), count=3)
            check(" 0% packet loss" in r.stdout and re.search(r"8008 bytes from .*(ttl|hlim)=63", r.stdout),
                  "ping -s 8000 -M do %s:\n%s" % (dst, r.stdout))
        # UDP datagrams of 8,000 bytes through masquerade, echoed.
        srv = gw.python(gw.sns, UDP_ECHO, SERVER4, "5353")
        wait_line(srv, "LISTEN")
        cl = gw.python(gw.cns, UDP_CLIENT, SERVER4, "5353", "50", "8000")
        w = wait_line(cl, "UDP", timeout=60)
        peers = wait_line(srv, "PEERS", timeout=10)
        check(int(w[1]) == 50, "udp 8000 bytes: %s of 50 echoed (%s lost)" % (w[1], w[2]))
        check(peers[1:] == [GW_OUT4], "udp: the server saw %s, not %s" % (peers[1:], GW_OUT4))
        # TCP through masquerade (MSS 8960: full segments span mbufs).
        got, _ = transfer(gw, SERVER4, 5001, 16)
        check(got[3] == GW_OUT4, "masquerade: the server saw %s, not %s" % (got[3], GW_OUT4))
        got, _ = transfer(gw, SERVER6, 5001, 8)
        gw.stop()
        st = gw.stats()
        for k in ("nat_error", "l3_error", "frag_needed"):
            check(st["drops"][k] == 0, "%s: %s" % (k, {d: v for d, v in st["drops"].items()
                                                         if v}))
        check(st["router"]["frag_datagrams"] == 0, "fragmented: %s" % st["router"])
    print("jumbo: ping -s 8000 -M do of and through the gateway, 8000-byte UDP and a TCP "
          "transfer through masquerade at MTU 9000")


def port_mtus(ports, port):
    """(routing MTU, device MTU) of @port in 'show ports'."""
    row = [ln.split() for ln in ports.splitlines() if ln.split()[:1] == [str(port)]]
    check(row and len(row[0]) > 8, "no port %d in show ports: %s" % (port, ports))
    return int(row[0][7]), int(row[0][8])


def t_jumbo_pmtu(build):
    with Gateway(build, JUMBO_CONF % 1500, ACCEPT, link="veth", mtu=(9000, 1500)) as gw:
        # Both MTUs in show ports: port 0's device at 9000, port 1's its own.
        ports = gw.shell("show ports")
        check(port_mtus(ports, 0) == (9000, 9000) and port_mtus(ports, 1) == (1500, 1500),
              "show ports: mtu and dev_mtu: " + ports)
        r = ping(gw, SERVER4, ("-s", "8000", "-M", "do"), count=1)
        check("From %s" % GW_IN4 in r.stdout and re.search(r"mtu\s*=\s*1500", r.stdout),
              "DF set: no frag needed with mtu 1500 from the gateway:\n" + r.stdout)
        r = ping(gw, SERVER6, ("-s", "8000", "-M", "do"), count=1)
        check("From %s" % GW_IN6 in r.stdout and re.search(r"mtu\s*=\s*1500", r.stdout),
              "IPv6: no packet too big with mtu 1500 from the gateway:\n" + r.stdout)
        # The client's kernel took the MTU from the error (a route exception).
        for dst in (SERVER4, SERVER6):
            r = gw.client(["ip", "route", "get", dst])
            check("mtu 1500" in r.stdout, "the client learned no path MTU: " + r.stdout)
        # DF clear: the gateway fragments; the server's answer, fragmented at
        # 1500 by the server, comes back whole (reassembled, 8028 bytes at 9000).
        r = ping(gw, SERVER4, ("-s", "8000", "-M", "dont"), count=3)
        check(" 0% packet loss" in r.stdout and "8008 bytes from" in r.stdout,
              "ping -s 8000 without DF:\n" + r.stdout)
        gw.stop()
        st = gw.stats()
        check(st["drops"]["frag_needed"] >= 2, "frag_needed: %d" % st["drops"]["frag_needed"])
        check([(p["mtu"], p["dev_mtu"]) for p in st["ports"]] == [(9000, 9000), (1500, 1500)],
              "JSON ports: %s" % st["ports"])
        check(st["router"]["frag_datagrams"] >= 3 and st["router"]["frag_made"] >= 18,
              "fragmented: %s" % st["router"])
    print("jumbo_pmtu: frag needed / packet too big with mtu 1500, a datagram without DF "
          "fragmented")


def t_jumbo_tap(build):
    """An MTU the device cannot take is refused at start, as `ip link set
    mtu` refuses it: DPDK 22.11's net_tap declares frames of 1522 bytes."""
    gw = Gateway(build, JUMBO_CONF % 9000, ACCEPT)
    try:
        gw.start()
        raise Skip("this DPDK's net_tap takes mtu 9000")
    except Fail:
        out = gw.output()
        check(re.search(r"port 0 \(net_tap0\): mtu 9000: the device takes frames of \d+ "
                        r"bytes at most \(MTU \d+\); nothing started", out),
              "no refusal of mtu 9000 on net_tap:\n" + out[-2000:])
        check(gw.proc.wait(10) == 1, "exit status %s" % gw.proc.returncode)
    finally:
        gw.cleanup()
    # At run time the shell's "port N mtu M" does what the config's line
    # does: refused with the device's limit, nothing changed (the routing
    # MTU, the addresses of the same command); a value the device takes
    # (at or under 1500: the device's own) is applied.
    gw = Gateway(build, JUMBO_CONF.replace(" mtu 9000", "") % 1500, ACCEPT)
    try:
        gw.start()
        out = gw.shell("port 0 mtu 9000 address 10.0.9.1/24")
        check(re.search(r"error: mtu: the device takes frames of \d+ bytes at most "
                        r"\(MTU \d+\): '9000'", out), "no refusal of mtu 9000 at run time: " + out)
        ports = gw.shell("show ports")
        row = [ln for ln in ports.splitlines() if ln.split()[:1] == ["0"]]
        check(row and " 1500 " in row[0] and "10.0.9.1" not in row[0],
              "the refused command changed port 0: " + ports)
        out = gw.shell("port 0 mtu 1400")
        check("port 0: mtu 1400" in out, "mtu 1400 at run time: " + out)
        ports = gw.shell("show ports")
        row = [ln for ln in ports.splitlines() if ln.split()[:1] == ["0"]]
        check(row and " 1400 " in row[0], "mtu 1400 not applied: " + ports)
        # The routing MTU 1400, the device its own (1500).
        check(port_mtus(ports, 0) == (1400, 1500), "mtu and dev_mtu: " + ports)
    finally:
        gw.cleanup()
    print("jumbo_tap: mtu 9000 on DPDK's net_tap refused at start and at run time "
          "(shell 'port 0 mtu 9000': nothing changed), mtu 1400 applied")


TESTS = {"jumbo": t_jumbo, "jumbo_pmtu": t_jumbo_pmtu, "jumbo_tap": t_jumbo_tap}

if __name__ == "__main__":
    sys.exit(main(TESTS, sys.argv))
