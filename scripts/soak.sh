#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak and fault run: gufc under churn for N seconds (600 by default), checked
# as it runs; exits non-zero on any violation.
#
# Traffic: an endless replay (net_pcap infinite_rx, a live-like port) of a
# trace made of segments of short-lived TCP, UDP and ICMP flows with Zipf
# popularity, each segment with other flows (the popular head moves as the
# replay goes), into net_null. The cache holds fewer flows than the trace
# (full-policy evict, or refuse with --refuse), offload is on (swnic), and
# conntrack too.
#
# Faults, while it runs: a rule commit every second through the shell,
# alternating two rule sets that flip the verdict and the channel of live
# flows (UDP to port 53: an app channel, then dropped; TCP to port 80: a
# discard channel, then the paired port); a route added or deleted every
# 3 s; with hugepages, a secondary-process consumer (gufc-consume) attaching
# to the app channel for 2 s every 5 s; the shell ("show stats") and
# telemetry (/gufc/stats) polled every second.
#
# Checks: every second, counters only grow, and what is in flight
# (rx - delivered - drops) stays within the mbuf pool; every commit is
# acknowledged with a new generation; RSS stays flat after the warm-up (a
# third of the run; at most 16 MiB of growth); at the end gufc exits 0,
# which means the accounting rx == delivered + drops holds exactly and the
# mempool is whole, and the JSON says so. Figures go to --json.
#
# Usage: scripts/soak.sh [--seconds N] [--build DIR] [--json FILE] [--refuse]
set -euo pipefail
cd "$(dirname "$0")/.."

secs=600
build=build
json=out/soak.json
policy=evict
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) secs=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--refuse) policy=refuse; shift ;;
	-h|--help) sed -n '3,29p' "$0"; exit 0 ;;
	*) echo "soak.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $secs in '' | *[!0-9]*) echo "soak.sh: --seconds takes a number" >&2; exit 2 ;; esac
[ "$secs" -ge 10 ] || { echo "soak.sh: --seconds must be at least 10" >&2; exit 2; }
for t in app/gufc app/tools/gufc-gen app/tools/gufc-consume; do
	[ -x "$build/$t" ] || { echo "soak.sh: $build/$t not built" >&2; exit 1; }
done
mkdir -p "$(dirname "$json")"
work=$(mktemp -d /tmp/gufc-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Segments with other flows and seeds: the popular head moves.
for i in 1 2 3 4; do
	"$build/app/tools/gufc-gen" -o "$work/seg$i.pcap" -n 2000 -p 20000 --seed "$((40 + i))" \
		--mix tcp=60,udp=30,icmp=10 --zipf 1.1 --rtt 100-2000 --ipv6 10 \
		--src "10.$i.0.0/16" >/dev/null 2>&1
done
python3 - "$work/trace.pcap" "$work"/seg?.pcap <<'PY'
import sys
out = open(sys.argv[1], "wb")
for i, p in enumerate(sys.argv[2:]):
    d = open(p, "rb").read()
    out.write(d if i == 0 else d[24:])
PY

python3 - "$build" "$work" "$secs" "$json" "$policy" <<'PY'
import json, os, re, signal, socket, subprocess, sys, time

build, work, secs, out_json, policy = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], \
    sys.argv[5]
gufc = os.path.join(build, "app", "gufc")
consume = os.path.join(build, "app", "tools", "gufc-consume")
prefix = "soak%d" % os.getpid()
violations = []


def violation(msg):
    print("VIOLATION: " + msg, flush=True)
    violations.append(msg)


def huge_ok():
    try:
        mi = open("/proc/meminfo").read()
        free = int(re.search(r"HugePages_Free:\s+(\d+)", mi).group(1))
        size = int(re.search(r"Hugepagesize:\s+(\d+)", mi).group(1))
        mounted = any(l.split()[2] == "hugetlbfs" for l in open("/proc/mounts") if
                      len(l.split()) > 2)
        return mounted and free * size >= 1024 * 1024
    except (OSError, AttributeError):
        return False


huge = huge_ok()
rules = {
    "a": "accept channel app proto udp dport 53\naccept channel web proto tcp dport 80\naccept\n",
    "b": "drop proto udp dport 53\naccept proto tcp dport 80\naccept\n",
}
for k, v in rules.items():
    open(os.path.join(work, k + ".rules"), "w").write(v)
conf = os.path.join(work, "soak.conf")
open(conf, "w").write("rules %s\nchannel app kind app\nchannel web kind discard\n"
                      "local 192.0.2.0/24\n" % os.path.join(work, "a.rules"))
# The replay holds the whole trace in mbufs; gufc's own traffic needs more.
n_trace, d = 0, open(os.path.join(work, "trace.pcap"), "rb").read()
off = 24
while off + 16 <= len(d):
    n_trace += 1
    off += 16 + int.from_bytes(d[off + 8:off + 12], "little")
mbufs = n_trace + 32768
eal = [gufc, "-l", "0,1", "--file-prefix", prefix, "--no-pci", "--log-level=lib.*:warning",
       "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % os.path.join(work, "trace.pcap"),
       "--vdev=net_null0,no-rx=1"]
eal += ["-m", "1024"] if huge else ["--no-huge", "-m", "1536"]
stats_json = os.path.join(work, "stats.json")
args = ["--", "--config", conf, "--flows", "4096", "--full-policy", policy, "--offload", "swnic",
        "--set", "mbufs=%d" % mbufs, "--set", "offload-pps=50", "--stats-json", stats_json, "-i"]
outf = open(os.path.join(work, "out.txt"), "w")
p = subprocess.Popen(eal + args, stdin=subprocess.PIPE, stdout=outf, stderr=subprocess.STDOUT,
                     text=True)
mark = 0


def ask(line, timeout=10.0):
    """Run a shell command; return what it printed (between markers)."""
    global mark
    mark += 1
    p.stdin.write("echo @@b%d\n%s\necho @@e%d\n" % (mark, line, mark))
    p.stdin.flush()
    end = time.monotonic() + timeout
    pat = re.compile(r"^@@b%d$(.*?)^@@e%d$" % (mark, mark), re.S | re.M)
    while time.monotonic() < end:
        m = pat.search(open(os.path.join(work, "out.txt")).read())
        if m:
            return m.group(1)
        if p.poll() is not None:
            break
        time.sleep(0.05)
    return None


def telemetry(cmd):
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    try:
        s.connect(path)
        s.recv(16384)
        s.send(cmd.encode())
        return json.loads(s.recv(1 << 20).decode()).get(cmd)
    except (OSError, ValueError):
        return None
    finally:
        s.close()


def rss_kb():
    try:
        for l in open("/proc/%d/status" % p.pid):
            if l.startswith("VmRSS:"):
                return int(l.split()[1])
    except OSError:
        pass
    return None


# Wait for the start (the replay loads its trace first).
t0 = time.monotonic()
while ask("show stats", timeout=2) is None:
    if p.poll() is not None or time.monotonic() - t0 > 60:
        print(open(os.path.join(work, "out.txt")).read()[-3000:])
        sys.exit("soak.sh: gufc did not start")
start = time.monotonic()
last = {}
rss = []
commits = gens = routes = attaches = polls = 0
gen_last = 0
cons = None
sec = 0
while time.monotonic() - start < secs:
    sec += 1
    # A commit: the other rule set.
    r = ask("rule load native %s" % os.path.join(work, ("b" if sec % 2 else "a") + ".rules"))
    c = ask("commit")
    m = re.search(r"committed: generation (\d+)", c or "")
    if r is None or not m:
        violation("second %d: commit not acknowledged: %r %r" % (sec, r, c))
    else:
        commits += 1
        g = int(m.group(1))
        if g <= gen_last:
            violation("second %d: generation %d after %d" % (sec, g, gen_last))
        gen_last = g
    if sec % 3 == 0:
        verb = "add 203.0.113.0/24 port 1" if sec % 6 == 0 else "del 203.0.113.0/24"
        if ask("route " + verb) is None:
            violation("second %d: route %s not answered" % (sec, verb))
        routes += 1
    # The secondary consumer: attaches for 2 s every 5 s.
    if huge and sec % 5 == 1 and cons is None:
        # An lcore id of its own: mempool caches are per lcore id, and the
        # consumer frees gufc's mbufs (lcores 0 and 1 are gufc's).
        cons = subprocess.Popen([consume, "--file-prefix", prefix, "--proc-type=secondary",
                                 "--lcores", "7@%d" % min(os.sched_getaffinity(0)), "--no-pci", "--log-level=lib.*:warning", "--", "--channel",
                                 "app", "-o", os.path.join(work, "app.pcap"), "-q",
                                 "--attach-wait", "2000"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        cons_t = time.monotonic()
    if cons is not None and time.monotonic() - cons_t >= 2:
        cons.send_signal(signal.SIGINT)
        try:
            rc = cons.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cons.kill()
            rc = -1
        if rc != 0:
            violation("second %d: gufc-consume exit %s: %s" % (sec, rc, cons.stderr.read()[-500:]))
        attaches += 1
        cons = None
    # Polls: shell and telemetry, counters only grow, in flight bounded.
    st = ask("show stats")
    tel = telemetry("/gufc/stats")
    polls += 1
    if st is None or not isinstance(tel, dict):
        violation("second %d: shell or telemetry did not answer" % sec)
    else:
        for k in ("rx", "delivered", "drops_total", "flows_created", "commits"):
            if tel.get(k, 0) < last.get(k, 0):
                violation("second %d: %s went back: %d -> %d" % (sec, k, last[k], tel[k]))
            last[k] = tel.get(k, 0)
        flight = tel["rx"] - tel["delivered"] - tel["drops_total"]
        if flight < 0 or flight > mbufs:
            violation("second %d: in flight %d (rx %d delivered %d drops %d)" %
                      (sec, flight, tel["rx"], tel["delivered"], tel["drops_total"]))
    k = rss_kb()
    if k is not None and time.monotonic() - start >= secs / 3:
        rss.append(k)
    time.sleep(max(0.0, start + sec - time.monotonic()))

if cons is not None:
    cons.send_signal(signal.SIGINT)
    cons.wait(timeout=10)
p.stdin.write("quit\n")
p.stdin.flush()
try:
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    rc = -9
if rc != 0:
    violation("gufc exit status %d (3: accounting or mempool)" % rc)
    print(open(os.path.join(work, "out.txt")).read()[-3000:])
grow = (max(rss) - min(rss)) if rss else 0
if grow > 16 * 1024:
    violation("RSS grew %d KiB after the warm-up (%d -> %d)" % (grow, rss[0], rss[-1]))
res = {"seconds": secs, "full_policy": policy, "hugepages": huge, "commits": commits,
       "generation": gen_last, "route_changes": routes, "consumer_attaches": attaches,
       "polls": polls, "rss_kib_after_warmup": [min(rss or [0]), max(rss or [0])],
       "violations": violations}
try:
    s = json.load(open(stats_json))
    res.update({"rx": s["rx"], "delivered": s["delivered"], "drops": s["drops"],
                "accounting_ok": s["accounting"]["ok"], "mempool_whole": s["mempool"]["whole"],
                "flows_created": s["flows"]["created"], "evictions": s["flows"].get("evictions"),
                "cache_hit_rate": s["cache"]["hit_rate"]})
    if not (s["accounting"]["ok"] and s["mempool"]["whole"]):
        violation("JSON: accounting %s, mempool whole %s" % (s["accounting"]["ok"],
                                                             s["mempool"]["whole"]))
except (OSError, ValueError, KeyError) as e:
    violation("no usable --stats-json: %s" % e)
json.dump(res, open(out_json, "w"), indent=2)
print("soak: %d s, %s packets in, %d commits, %d route changes, %d consumer attaches, "
      "RSS %s KiB after warm-up, %d violation(s); %s" %
      (secs, res.get("rx", "?"), commits, routes, attaches, res["rss_kib_after_warmup"],
       len(violations), out_json))
sys.exit(1 if violations else 0)
PY
