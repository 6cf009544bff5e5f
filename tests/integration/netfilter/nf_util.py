# SPDX-License-Identifier: BSD-3-Clause
"""What the netfilter oracle tests share (log_oracle, rewrite_oracle,
reply_oracle, fastpath_oracle, corpus_diff): running a command, in a
network namespace or not, the Internet checksum, MAC addresses from text,
and classic pcap files written for gufc's net_pcap input and read back
from its output.
"""

import os
import struct
import subprocess


def run(args, check=True, **kw):
    """Run @args, stdout and stderr together as text; raise on failure with @check."""
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stdout.strip()))
    return r


def ns(name, args, check=True):
    """run() in network namespace @name."""
    return run(["ip", "netns", "exec", name] + args, check)


def csum(data):
    """The Internet checksum of @data (odd lengths padded with a zero byte)."""
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def mac(t):
    """"aa:bb:cc:dd:ee:ff" as 6 bytes."""
    return bytes.fromhex(t.replace(":", ""))


def pcap_write(path, frames):
    """An Ethernet pcap of @frames (microsecond stamps 0, 1, 2, ...)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 0, i, len(fr), len(fr)))
            f.write(fr)


def pcap_read(path):
    """The frames of a classic pcap of either byte order; [] when there is no file."""
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        d = f.read()
    end = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, out = 24, []
    while off + 16 <= len(d):
        incl = struct.unpack(end + "I", d[off + 8:off + 12])[0]
        out.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return out
