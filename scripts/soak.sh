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
# conntrack too. Woven into the trace, a SYN flood of spoofed random
# sources (one SYN after every third packet, none answered) that overflows
# the cache on its own while the trace's connections are established and
# carrying data.
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
# acknowledged with a new generation; every 5 s, once the commit's
# background revalidation is done (telemetry reval_pending 0), cached flows
# sampled from `show flows` (UDP to port 53, TCP to port 80, any) must hold
# the verdict (and, accepted, the channel) the reference evaluator gives
# their keys under the rule set just committed (gufc-eval): no verdict
# older than the commit that changed it; every second, no established
# entry was evicted while not-established ones remained (telemetry
# evictions_out_of_order stays 0), and at the end (evict policy) the flood
# did overflow the cache (evictions_early > 0); every packet the secondary consumer received from the app channel
# must be one the rule set naming that channel sends there (sampled
# output); RSS stays flat after the warm-up (a third of the run; at most
# 16 MiB of growth); at the end gufc exits 0, which means the accounting
# rx == delivered + drops holds exactly and the mempool is whole, and the
# JSON says so. Figures go to --json.
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
	-h|--help) sed -n '3,41p' "$0"; exit 0 ;;
	*) echo "soak.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case $secs in '' | *[!0-9]*) echo "soak.sh: --seconds takes a number" >&2; exit 2 ;; esac
[ "$secs" -ge 10 ] || { echo "soak.sh: --seconds must be at least 10" >&2; exit 2; }
for t in app/gufc app/tools/gufc-gen app/tools/gufc-consume app/tools/gufc-eval; do
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
# The segments one after the other, with a SYN flood of spoofed sources
# woven in: after every third packet, a SYN from a random address of
# 198.18.0.0/15 (a random port) to 192.0.2.0/24 port 80, which nothing
# answers: enough new flows to overflow the cache on its own.
python3 - "$work/trace.pcap" "$work"/seg?.pcap <<'PY'
import random, struct, sys


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def syn(rng):
    src = bytes([198, 18 + rng.randrange(2), rng.randrange(256), rng.randrange(1, 255)])
    dst = bytes([192, 0, 2, rng.randrange(1, 255)])
    tcp = struct.pack("!HHIIBBHHH", rng.randrange(1024, 65536), 80, rng.getrandbits(32), 0,
                      5 << 4, 0x02, 64240, 0, 0)
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, rng.getrandbits(16), 0x4000, 64, 6, 0, src,
                     dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return bytes.fromhex("020000000002020000000001" "0800") + ip + tcp


rng = random.Random(12)
out = open(sys.argv[1], "wb")
n = 0
for i, p in enumerate(sys.argv[2:]):
    d = open(p, "rb").read()
    if i == 0:
        out.write(d[:24])
    off = 24
    while off + 16 <= len(d):
        ln = int.from_bytes(d[off + 8:off + 12], "little")
        out.write(d[off:off + 16 + ln])
        n += 1
        if n % 3 == 0:
            f = syn(rng)
            out.write(d[off:off + 8] + struct.pack("<II", len(f), len(f)) + f)
        off += 16 + ln
PY

python3 - "$build" "$work" "$secs" "$json" "$policy" <<'PY'
import json, os, re, signal, socket, subprocess, sys, time

build, work, secs, out_json, policy = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], \
    sys.argv[5]
gufc = os.path.join(build, "app", "gufc")
consume = os.path.join(build, "app", "tools", "gufc-consume")
evaluator = os.path.join(build, "app", "tools", "gufc-eval")
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
# The trace holds both sides: the servers (192.0.2.0/24) are this host, their
# packets arrive on port 0, a host port.
open(conf, "w").write("rules %s\nchannel app kind app\nchannel web kind discard\n"
                      "local 192.0.2.0/24\nport 0 host\n" % os.path.join(work, "a.rules"))
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
# --lossless off: the replay stands for a live port (full rings drop).
args = ["--", "--config", conf, "--flows", "4096", "--full-policy", policy, "--offload", "swnic",
        "--lossless", "off",
        "--set", "mbufs=%d" % mbufs, "--set", "offload-pps=50", "--stats-json", stats_json, "-i"]
outf = open(os.path.join(work, "out.txt"), "w")
p = subprocess.Popen(eal + args, stdin=subprocess.PIPE, stdout=outf, stderr=subprocess.STDOUT,
                     text=True)
mark = 0
cons_pcaps = []
checked = {"flows": 0, "stale_gen": 0, "mismatch": 0, "rounds": 0, "walk_ms_max": 0.0,
           "app_packets": 0}
KEY_RE = re.compile(r"^((?:tcp|udp|sctp|icmp|icmpv6|proto \d+) \S+ -> \S+ src_local=\d "
                    r"dst_local=\d in_port=\d+) (orig|reply) verdict=(\w+) rule=(\S+) "
                    r"channel=(\d+) .* gen=(\d+) ")


def reference(rules_file, keys):
    """The reference evaluator's verdict and channel for each key (gufc-eval)."""
    r = subprocess.run([evaluator, rules_file], input="".join(k + "\n" for k in keys),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        violation("gufc-eval %s: exit %d: %s" % (rules_file, r.returncode, r.stderr[-300:]))
        return None
    out = r.stdout.splitlines()
    if len(out) != len(keys):
        violation("gufc-eval: %d answers for %d keys" % (len(out), len(keys)))
        return None
    return [l.split() for l in out]


def verdict_check(sec, gen, rs):
    """After the commit of rule set @rs (generation @gen) and its
    revalidation: sampled cached verdicts against the reference evaluator."""
    t0 = time.monotonic()
    while True:
        tel = telemetry("/gufc/stats")
        if isinstance(tel, dict) and tel.get("generation", 0) >= gen and \
                tel.get("reval_pending", 1) == 0:
            break
        if time.monotonic() - t0 > 10:
            violation("second %d: revalidation of generation %d not done after 10 s (%s)" %
                      (sec, gen, tel if not isinstance(tel, dict) else
                       {k: tel.get(k) for k in ("generation", "reval_pending")}))
            return
        time.sleep(0.02)
    checked["walk_ms_max"] = max(checked["walk_ms_max"], (time.monotonic() - t0) * 1000)
    rows = []
    for sel in ("proto udp dport 53 limit 48", "proto tcp dport 80 limit 48", "limit 48"):
        text = ask("show flows " + sel)
        if text is None:
            violation("second %d: show flows %s not answered" % (sec, sel))
            return
        for line in text.splitlines():
            m = KEY_RE.match(line.strip())
            if m:
                rows.append(m.groups())
    # Channel names to ids (the cached entry names its channel by id).
    ids = {"-": "0"}
    for line in (ask("show channels") or "").splitlines():
        f = line.split()
        if len(f) > 2 and f[1].isdigit():
            ids[f[0]] = f[1]
    ref = reference(os.path.join(work, rs + ".rules"), [r[0] for r in rows])
    if ref is None:
        return
    checked["rounds"] += 1
    for (key, dirn, verdict, rule, chan, egen), rv in zip(rows, ref):
        if verdict == "slow":
            continue
        checked["flows"] += 1
        if int(egen) < gen:
            checked["stale_gen"] += 1
        want_chan = ids.get(rv[2].split("=", 1)[1], "?") if len(rv) > 2 else "?"
        if rv[0] != verdict or (verdict == "accept" and chan != want_chan):
            checked["mismatch"] += 1
            violation("second %d: generation %d (rules %s): cached %s entry %s says %s "
                      "channel %s (gen %s), the reference evaluator %s (channel %s)" %
                      (sec, gen, rs, dirn, key, verdict, chan, egen, " ".join(rv), want_chan))


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
cur_rs = None
ooo_seen = False
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
        cur_rs = "b" if sec % 2 else "a"
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
        # Each attach writes a pcap of its own (checked at the end); its
        # log tells when it attached: a loaded host may take seconds to
        # start a secondary process, and a SIGINT before the attach would
        # be a test artefact, not a fault of gufc's.
        cons_log = os.path.join(work, "cons%d.log" % sec)
        cons_pcaps.append(os.path.join(work, "app%d.pcap" % sec))
        cons = subprocess.Popen([consume, "--file-prefix", prefix, "--proc-type=secondary",
                                 "--lcores", "7@%d" % min(os.sched_getaffinity(0)), "--no-pci",
                                 "--log-level=lib.*:warning", "--", "--channel", "app",
                                 "-o", cons_pcaps[-1], "--attach-wait", "30000"],
                                stdout=subprocess.DEVNULL, stderr=open(cons_log, "w"),
                                text=True)
        cons_t = time.monotonic()
    if cons is not None and time.monotonic() - cons_t >= 2:
        attached = "attached to channel" in open(cons_log).read()
        if attached or time.monotonic() - cons_t >= 40 or cons.poll() is not None:
            cons.send_signal(signal.SIGINT)
            try:
                rc = cons.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cons.kill()
                rc = -1
            if rc != 0 or not attached:
                violation("second %d: gufc-consume %s, exit %s: %s" %
                          (sec, "attached" if attached else "never attached", rc,
                           open(cons_log).read()[-500:]))
            attaches += 1
            cons = None
    if sec % 5 == 3 and cur_rs is not None:
        verdict_check(sec, gen_last, cur_rs)
    # Polls: shell and telemetry, counters only grow, in flight bounded.
    st = ask("show stats")
    tel = telemetry("/gufc/stats")
    polls += 1
    if st is None or not isinstance(tel, dict):
        violation("second %d: shell or telemetry did not answer" % sec)
    else:
        for k in ("rx", "delivered", "drops_total", "flows_created", "commits",
                  "evictions_early", "evictions_out_of_order"):
            if tel.get(k, 0) < last.get(k, 0):
                violation("second %d: %s went back: %d -> %d" % (sec, k, last[k], tel[k]))
            last[k] = tel.get(k, 0)
        # The SYN flood: its not-established entries go before any established one.
        if tel.get("evictions_out_of_order", 0) != 0 and not ooo_seen:
            ooo_seen = True
            violation("second %d: %d established flow entries evicted while not-established "
                      "ones remained (evictions: %d not established, %d established)" %
                      (sec, tel["evictions_out_of_order"], tel.get("evictions_early", 0),
                       tel.get("evictions_established", 0)))
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
# Sampled output: every packet the consumer got from the app channel is one
# that rule set "a" (the only one naming it) sends there.
app_keys = []
for path in cons_pcaps:
    try:
        d = open(path, "rb").read()
    except OSError:
        continue
    off = 24
    while off + 16 <= len(d):
        n = int.from_bytes(d[off + 8:off + 12], "little")
        fr = d[off + 16:off + 16 + n]
        off += 16 + n
        et = fr[12:14]
        if et == b"\x08\x00" and len(fr) >= 14 + 28:
            ihl = (fr[14] & 15) * 4
            proto, src, dst = fr[23], ".".join(map(str, fr[26:30])), ".".join(map(str, fr[30:34]))
            l4 = 14 + ihl
            fam = 4
        elif et == b"\x86\xdd" and len(fr) >= 14 + 48:
            import ipaddress
            proto = fr[20]
            src = "[%s]" % ipaddress.IPv6Address(fr[22:38])
            dst = "[%s]" % ipaddress.IPv6Address(fr[38:54])
            l4 = 54
            fam = 6
        else:
            violation("app channel: a frame that is no IP packet")
            continue
        if proto != 17:
            violation("app channel: protocol %d from %s" % (proto, src))
            continue
        sp, dp = int.from_bytes(fr[l4:l4 + 2], "big"), int.from_bytes(fr[l4 + 2:l4 + 4], "big")
        local = lambda a: int(fam == 4 and a.startswith("192.0.2."))
        app_keys.append("udp %s:%d -> %s:%d src_local=%d dst_local=%d in_port=0" %
                        (src, sp, dst, dp, local(src), local(dst)))
if app_keys:
    sample = app_keys[::max(1, len(app_keys) // 2000)]
    ref = reference(os.path.join(work, "a.rules"), sample)
    for k, rv in zip(sample, ref or []):
        if rv[0] != "accept" or rv[2] != "channel=app":
            violation("app channel: packet %s is not one rule set a sends there (%s)" %
                      (k, " ".join(rv)))
    checked["app_packets"] = len(sample)
grow = (max(rss) - min(rss)) if rss else 0
if grow > 16 * 1024:
    violation("RSS grew %d KiB after the warm-up (%d -> %d)" % (grow, rss[0], rss[-1]))
res = {"seconds": secs, "full_policy": policy, "hugepages": huge, "commits": commits,
       "generation": gen_last, "route_changes": routes, "consumer_attaches": attaches,
       "polls": polls, "rss_kib_after_warmup": [min(rss or [0]), max(rss or [0])],
       "verdict_checks": checked,
       "violations": violations}
try:
    s = json.load(open(stats_json))
    res.update({"rx": s["rx"], "delivered": s["delivered"], "drops": s["drops"],
                "accounting_ok": s["accounting"]["ok"], "mempool_whole": s["mempool"]["whole"],
                "flows_created": s["flows"]["created"], "evictions": s["flows"].get("evictions"),
                "evictions_early": s["flows"]["evictions_early"],
                "evictions_established": s["flows"]["evictions_established"],
                "evictions_out_of_order": s["flows"]["evictions_out_of_order"],
                "cache_hit_rate": s["cache"]["hit_rate"]})
    if s["flows"]["evictions_out_of_order"] != 0 and not ooo_seen:
        violation("JSON: %d established flow entries evicted while not-established ones "
                  "remained" % s["flows"]["evictions_out_of_order"])
    if policy == "evict" and s["flows"]["evictions_early"] == 0:
        violation("JSON: no not-established entry was evicted (the SYN flood did not "
                  "overflow the cache, or the eviction order is broken)")
    if not (s["accounting"]["ok"] and s["mempool"]["whole"]):
        violation("JSON: accounting %s, mempool whole %s" % (s["accounting"]["ok"],
                                                             s["mempool"]["whole"]))
except (OSError, ValueError, KeyError) as e:
    violation("no usable --stats-json: %s" % e)
json.dump(res, open(out_json, "w"), indent=2)
print("soak: %d s, %s packets in, %d commits, %d route changes, %d consumer attaches, "
      "RSS %s KiB after warm-up; %d sampled flows checked against the reference "
      "evaluator in %d rounds (revalidation done within %.0f ms), %d app-channel packets "
      "checked; %d violation(s); %s" %
      (secs, res.get("rx", "?"), commits, routes, attaches, res["rss_kib_after_warmup"],
       checked["flows"], checked["rounds"], checked["walk_ms_max"], checked["app_packets"],
       len(violations), out_json))
sys.exit(1 if violations else 0)
PY
