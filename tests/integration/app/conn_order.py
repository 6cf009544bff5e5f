#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Per-connection order of a replay: each connection's packets (both
directions) in the output capture must be the input's, in the input's
order. That is the order a NIC keeps; the order across connections is
not compared. Frames are decoded by pcap_check; a packet is known by its
5-tuple, TCP flags, length and IP ID (gufc-gen numbers each flow's
packets), so a packet lost, added or moved within its connection shows.

  conn_order.py PCAP_CHECK IN.pcap OUT.pcap

Exit 0 when every connection matches, 1 (the first few named) otherwise.
app_test.py's filewait test uses conn_seqs() and first_bad().
"""
import collections
import subprocess
import sys


def read(check, path):
    """Packets of @path as pcap_check decodes them: (proto, src, sport, dst, dport, flags,
    len, id)."""
    r = subprocess.run([check, path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("pcap_check %s: %s" % (path, r.stderr))
    out = []
    for line in r.stdout.splitlines():
        f = line.split()
        out.append((f[1], f[2], int(f[3]), f[4], int(f[5]), f[7], int(f[6]), int(f[10])))
    return out


def conn_seqs(pk):
    """Packets per connection (both directions, keyed by protocol and the sorted ends),
    each connection's in their order. @pk: tuples as read() makes them."""
    seqs = collections.defaultdict(list)
    for p in pk:
        a, b = (p[1], p[2]), (p[3], p[4])
        seqs[(p[0],) + tuple(sorted((a, b)))].append(p)
    return seqs


def first_bad(want, got):
    """The connections of @want whose packets in @got differ (missing, extra, moved)."""
    return [k for k in want if got.get(k) != want[k]]


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: conn_order.py PCAP_CHECK IN.pcap OUT.pcap\n")
        return 2
    want = conn_seqs(read(sys.argv[1], sys.argv[2]))
    got = conn_seqs(read(sys.argv[1], sys.argv[3]))
    bad = first_bad(want, got)
    moved = [k for k in bad if sorted(got.get(k, [])) == sorted(want[k])]
    print("%d connections, %d differ (%d only in their order)" % (len(want), len(bad),
                                                                   len(moved)))
    for k in bad[:3]:
        print("  %s\n    got  %s\n    want %s" % (k, [p[5:] for p in got.get(k, [])],
                                                   [p[5:] for p in want[k]]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
