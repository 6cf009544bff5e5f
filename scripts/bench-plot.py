#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Render gufc-bench's JSON (--json FILE) as PNG charts.

  scripts/bench-plot.py bench.json [OUTDIR]

Writes into OUTDIR (default: the JSON file's directory):
  bench-rules.png  cycles/packet vs rule count at the largest measured flow
                   count (floor, gufc, linear, pipeline; uniform and Zipf)
  bench-flows.png  cycles/packet vs flow count at each rule count (floor,
                   gufc, linear, pipeline, and gufc with NIC marks; uniform)

Needs matplotlib; when it is missing the Debian package python3-matplotlib
is installed with apt-get (as root, or through sudo).
"""

import importlib
import json
import os
import shutil
import subprocess
import sys

PATHS = ["floor", "gufc", "linear", "pipeline"]
STYLE = {
    "floor": dict(color="0.5", marker="s", linestyle=":"),
    "gufc": dict(color="tab:blue", marker="o", linestyle="-"),
    "linear": dict(color="tab:red", marker="^", linestyle="--"),
    "pipeline": dict(color="tab:green", marker="D", linestyle="-."),
    "marked": dict(color="tab:purple", marker="v", linestyle="-"),
}


SYSTEM_PYTHON = "/usr/bin/python3"


def system_has_matplotlib():
    return os.path.exists(SYSTEM_PYTHON) and subprocess.call(
        [SYSTEM_PYTHON, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0


def need_matplotlib():
    """Import matplotlib, installing Debian's package if needed; the package
    lives in the system Python, so re-run under it when this one differs."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if not system_has_matplotlib():
        cmd = ["apt-get", "install", "-y", "-qq", "python3-matplotlib"]
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        if sudo and shutil.which("sudo") is None:
            sys.exit("bench-plot: matplotlib missing; install python3-matplotlib")
        print("bench-plot: installing python3-matplotlib", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.call(sudo + cmd, env=env) != 0:
            subprocess.call(sudo + ["apt-get", "update", "-qq"], env=env)
            if subprocess.call(sudo + cmd, env=env) != 0:
                sys.exit("bench-plot: could not install python3-matplotlib")
    importlib.invalidate_caches()
    try:
        import matplotlib  # noqa: F401,F811
        return
    except ImportError:
        pass
    if os.environ.get("BENCH_PLOT_REEXEC") is None and system_has_matplotlib():
        os.environ["BENCH_PLOT_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit("bench-plot: matplotlib not importable by %s" % sys.executable)


def count_label(v):
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return "%dM" % (v >> 20)
    if v >= 1024 and v % 1024 == 0:
        return "%dK" % (v >> 10)
    return str(v)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else (os.path.dirname(src) or ".")
    with open(src) as f:
        data = json.load(f)
    need_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [p for p in data["points"] if p.get("measured")]
    if not pts:
        sys.exit("bench-plot: no measured points in %s" % src)
    rules = sorted({p["rules"] for p in pts})
    flows = sorted({p["flows"] for p in pts})
    title = "gufc-bench (%s)" % data.get("mode", "?")
    os.makedirs(out, exist_ok=True)

    def at(r, fl):
        for p in pts:
            if p["rules"] == r and p["flows"] == fl:
                return p
        return None

    # Cycles/packet vs rule count, at the largest flow count with every rule count
    # measured (else the largest one measured at all).
    full = [fl for fl in flows if all(at(r, fl) for r in rules)]
    fl_sel = max(full) if full else max(flows)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, dist in zip(axes, ("uniform", "zipf")):
        for path in PATHS:
            xs, ys = [], []
            for r in rules:
                p = at(r, fl_sel)
                v = p and p["cycles_per_packet"][dist][path]
                if v:
                    xs.append(r)
                    ys.append(v)
            if xs:
                ax.plot(xs, ys, label=path, **STYLE[path])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rules")
        ax.set_title("%s traffic, %s flows" % (dist, count_label(fl_sel)))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("cycles per packet (median)")
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    p1 = os.path.join(out, "bench-rules.png")
    fig.savefig(p1, dpi=110)
    plt.close(fig)

    # Cycles/packet vs flow count: one panel per rule count.
    fig, axes = plt.subplots(1, len(rules), figsize=(4 * len(rules), 4.4), sharey=True,
                             squeeze=False)
    for ax, r in zip(axes[0], rules):
        for path in PATHS + ["marked"]:
            xs, ys = [], []
            for fl in flows:
                p = at(r, fl)
                v = p and p["cycles_per_packet"]["uniform"][path]
                if v:
                    xs.append(fl)
                    ys.append(v)
            if xs:
                ax.plot(xs, ys, label=path, **STYLE[path])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(flows)
        ax.set_xticklabels([count_label(v) for v in flows])
        ax.set_xlabel("flows")
        ax.set_title("%d rules, uniform" % r)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("cycles per packet (median)")
    axes[0][0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    p2 = os.path.join(out, "bench-flows.png")
    fig.savefig(p2, dpi=110)
    plt.close(fig)
    print(p1)
    print(p2)


if __name__ == "__main__":
    main()
