# SPDX-License-Identifier: BSD-3-Clause
"""EAL runtime directories of the gufc processes an integration test starts.

A primary process's EAL leaves <runtime dir>/dpdk/<file prefix> (config,
fbarray_*, mp_socket) until it ends through gufc_eal_end(). gufc does so
on SIGINT/SIGTERM too, but a test harness that is itself ended (meson's
timeout sends SIGTERM to the test's process group, then SIGKILL) kills the
gufc it runs (subprocess.run kills its child on any exception), and a gufc
that was killed leaves its directory. A harness records every prefix it
hands out (Prefixes.new()); at exit (atexit: also after sys.exit() from a
SIGTERM handler) the directories of those whose primary is gone are
removed. A directory whose config file a live primary still locks is kept.
A harness that has no SIGTERM handler of its own gets one that ends it
with sys.exit(), so that its cleanup runs.
"""

import atexit
import fcntl
import os
import shutil
import signal
import sys


def rundir(prefix):
    """The runtime directory EAL gives @prefix (root: /var/run/dpdk)."""
    base = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


def remove_if_dead(prefix):
    """Remove @prefix's runtime directory unless a live primary holds it.
    Returns True when no directory is left."""
    d = rundir(prefix)
    if not os.path.isdir(d):
        return True
    try:
        fd = os.open(os.path.join(d, "config"), os.O_RDWR)
    except FileNotFoundError:
        fd = None
    except OSError:
        return False
    if fd is not None:
        try:
            # EAL write-locks the start of its config file while the primary lives.
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        finally:
            os.close(fd)
    shutil.rmtree(d, ignore_errors=True)
    return not os.path.isdir(d)


class Prefixes:
    """File prefixes handed out by one harness, cleaned up at its exit."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.runs = 0
        self.given = []
        atexit.register(self.cleanup)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, lambda sig, _f: sys.exit(128 + sig))

    def new(self):
        self.runs += 1
        p = self.fmt % self.runs
        self.given.append(p)
        return p

    def cleanup(self):
        for p in self.given:
            remove_if_dead(p)
