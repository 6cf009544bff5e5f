#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prometheus exporter of a running gufc.

  gufc-prometheus.py --file-prefix PREFIX --listen ADDR:PORT
  gufc-prometheus.py --file-prefix PREFIX --once      # print one scrape and exit

Serves GET /metrics in the Prometheus text exposition format (version
0.0.4). Each scrape opens gufc's DPDK telemetry socket
(RUNTIME_DIR/PREFIX/dpdk_telemetry.v2, the protocol dpdk-telemetry.py
speaks), asks /gufc/stats, /gufc/drops, /gufc/channels, /gufc/rules,
/gufc/offload, /gufc/lcores and /gufc/ipfix, and turns the answers into
metric families with HELP and TYPE lines: counters (names ending in
_total) for what only grows, gauges for the rest. gufc_up is 1 when gufc
answered, else 0 and nothing else is exported. Python 3 standard library
only.
"""

import argparse
import http.server
import json
import os
import socket
import sys

SOCKET_NAME = "dpdk_telemetry.v2"
COMMANDS = ("/gufc/stats", "/gufc/drops", "/gufc/channels", "/gufc/rules", "/gufc/offload",
            "/gufc/lcores", "/gufc/ipfix")


def runtime_dir():
    """DPDK's runtime directory, as EAL picks it."""
    if os.getuid() == 0:
        return "/var/run/dpdk"
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")


def telemetry_query(path, commands, timeout=5.0):
    """Ask each command on one connection. Returns {command: answer or None}."""
    out = {}
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(timeout)
        s.connect(path)
        info = json.loads(s.recv(1024).decode())
        size = int(info.get("max_output_len", 16384))
        for cmd in commands:
            s.send(cmd.encode())
            reply = json.loads(s.recv(size).decode())
            out[cmd] = reply.get(cmd)
    return out


# --------------------------------------------------------------------------
# Metric families
# --------------------------------------------------------------------------

class Families:
    """Metric families in the order they were first used; samples per family."""

    def __init__(self):
        self.fams = {}

    def add(self, name, kind, help_text, value, labels=None):
        fam = self.fams.setdefault(name, {"type": kind, "help": help_text, "samples": []})
        if fam["type"] != kind:
            raise ValueError("metric %s is both %s and %s" % (name, fam["type"], kind))
        fam["samples"].append((labels or {}, value))

    def render(self):
        lines = []
        for name, fam in self.fams.items():
            lines.append("# HELP %s %s" % (name, escape_help(fam["help"])))
            lines.append("# TYPE %s %s" % (name, fam["type"]))
            for labels, value in fam["samples"]:
                lines.append("%s%s %s" % (name, render_labels(labels), render_value(value)))
        return "\n".join(lines) + "\n"


def escape_help(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def escape_label(text):
    return str(text).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def render_labels(labels):
    if not labels:
        return ""
    return "{" + ",".join('%s="%s"' % (k, escape_label(v)) for k, v in labels.items()) + "}"


def render_value(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    return repr(float(v))


# /gufc/stats key -> (metric, type, help, labels)
STATS = [
    ("rx", "gufc_rx_packets_total", "counter", "Packets received (hardware drops included).", None),
    ("rx_bytes", "gufc_rx_bytes_total", "counter", "Bytes received.", None),
    ("delivered", "gufc_delivered_packets_total", "counter",
     "Packets delivered to a channel's consumer.", None),
    ("in_ring", "gufc_in_ring_packets", "gauge", "Packets waiting in channel rings now.", None),
    ("hits", "gufc_cache_hits_total", "counter", "Flow cache hits on the fast path.", None),
    ("misses", "gufc_cache_misses_total", "counter", "Flow cache misses on the fast path.", None),
    ("upcalls", "gufc_upcalls_total", "counter",
     "Packets handed to the rules lcore (misses, stale and interest hits).", None),
    ("upcall_stale", "gufc_upcalls_stale_total", "counter",
     "Upcalls of hits a newer commit may change.", None),
    ("upcall_interest", "gufc_upcalls_interest_total", "counter",
     "Upcalls of hits a module asked to see.", None),
    ("upcall_per_packet", "gufc_upcalls_per_packet_total", "counter",
     "Upcalls of hits whose entry decides each packet on the slow path.", None),
    ("upcall_class", "gufc_upcalls_class_total", "counter",
     "Upcalls of hits whose TCP flags are outside their entry's flag class.", None),
    ("slow_packets", "gufc_slow_path_packets_total", "counter",
     "Packets decided by the rules lcore.", None),
    ("upcall_fast", "gufc_slow_path_fast_code_total", "counter",
     "Of them, packets behind their connection's upcall the fast path's code decided.", None),
    ("classify_cls", "gufc_classifications_total", "counter",
     "New-flow classifications, by evaluator.", {"by": "classifier"}),
    ("classify_ref", "gufc_classifications_total", "counter",
     "New-flow classifications, by evaluator.", {"by": "reference"}),
    ("clsc_hits", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "hit"}),
    ("clsc_misses", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "miss"}),
    ("clsc_uncacheable", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "per_packet"}),
    ("clsc_skipped", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "skipped"}),
    ("clsc_walk_hits", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "whole_walk"}),
    ("clsc_new_hits", "gufc_classifier_cache_total", "counter",
     "Classifier walks, by what the classification cache did.", {"result": "new_whole_walk"}),
    ("clsc_flushes", "gufc_classifier_cache_flushes_total", "counter",
     "Times the classification cache was emptied (commits, classifier installs).", None),
    ("refilter_kept", "gufc_refilters_saved_total", "counter",
     "Entries a change of their connection's ctstate left as they were (their walk would not change).",
     None),
    ("ct_synack_fast", "gufc_ct_synack_fast_total", "counter",
     "First replies (SYN/ACKs) conntrack took on the fast path.", None),
    ("ct_ignored_fast", "gufc_ct_ignored_fast_total", "counter",
     "TCP segments the fast path passed as ignored (below the windows): no idle time renewed.",
     None),
    ("ct_synack_armed", "gufc_ct_synack_armed_total", "counter",
     "New TCP connections armed at their SYN for the fast path to take their SYN/ACK.", None),
    ("synack_ahead", "gufc_synack_ahead_total", "counter",
     "New TCP connections whose original entry got its established action at the SYN.", None),
    ("synack_settled", "gufc_synack_settled_total", "counter",
     "Connections decided ahead whose entries aging made established once their reply was taken.",
     None),
    ("synack_plain_not", "gufc_synack_plain_not_total", "counter",
     "New TCP connections left on two upcalls: their established walk was not plain.", None),
    ("flows_created", "gufc_flows_created_total", "counter", "Flows created (forward entries).",
     None),
    ("flows_replies", "gufc_flow_reply_entries_total", "counter", "Reply entries created.", None),
    ("reply_moved", "gufc_reply_entries_moved_total", "counter",
     "Reply entries moved to the port their connection's first reply came on.", None),
    ("reply_guessed", "gufc_reply_entries_guessed_total", "counter",
     "Reply entries keyed on the port earlier connections' first replies came on.", None),
    ("flows_removed", "gufc_flow_entries_removed_total", "counter",
     "Flow entries removed (aged, evicted, flushed, deleted).", None),
    ("flows_active_v4", "gufc_flow_entries", "gauge", "Flow entries in the cache now.",
     {"family": "ipv4"}),
    ("flows_active_v6", "gufc_flow_entries", "gauge", "Flow entries in the cache now.",
     {"family": "ipv6"}),
    ("flows_capacity", "gufc_flow_entries_capacity", "gauge",
     "Flow cache capacity per family.", None),
    ("evictions", "gufc_flow_evictions_total", "counter",
     "Flow entries evicted from a full cache.", None),
    ("evictions_early", "gufc_flow_evictions_by_kind_total", "counter",
     "Flow entries evicted from a full cache, by kind (established or not yet).",
     {"kind": "not_established"}),
    ("evictions_established", "gufc_flow_evictions_by_kind_total", "counter",
     "Flow entries evicted from a full cache, by kind (established or not yet).",
     {"kind": "established"}),
    ("evictions_out_of_order", "gufc_flow_evictions_out_of_order_total", "counter",
     "Established flow entries evicted while not-established ones remained.", None),
    ("flow_cuckoo_moves", "gufc_flow_cuckoo_moves_total", "counter",
     "Flow table keys moved to their other bucket to make room for an insert.", None),
    ("commits", "gufc_rule_commits_total", "counter", "Rule-set commits.", None),
    ("generation", "gufc_rule_generation", "gauge", "Generation of the committed rule set.", None),
    ("revalidated", "gufc_flows_revalidated_total", "counter",
     "Flow entries re-run through the filter after commits.", None),
    ("refreshed", "gufc_flows_refreshed_total", "counter",
     "Flow entries a commit could not change, moved to its generation.", None),
    ("icmp_related", "gufc_icmp_errors_related_total", "counter",
     "ICMP errors found related to a connection.", None),
    ("icmp_related_nat", "gufc_icmp_errors_translated_total", "counter",
     "Related ICMP errors translated back.", None),
    ("rerouted", "gufc_flows_rerouted_total", "counter",
     "Cached flows re-routed after route changes.", None),
    ("route_walks", "gufc_route_walks_total", "counter",
     "Background walks of the cache after route changes.", None),
    ("frag_in", "gufc_fragments_total", "counter", "Fragments given to reassembly.", None),
    ("frag_datagrams", "gufc_fragment_datagrams_total", "counter", "Datagrams reassembled.",
     None),
    ("frag_failed", "gufc_fragments_failed_total", "counter",
     "Fragments dropped on their own (reassembly failed).", None),
    ("transmitted", "gufc_transmitted_packets_total", "counter",
     "Packets transmitted by TX channels.", None),
    ("non_ip_passed", "gufc_non_ip_passed_packets_total", "counter",
     "Non-IP frames passed to the default destination.", None),
    ("reloads_ok", "gufc_rule_reloads_total", "counter", "Rule-set reloads on SIGHUP, by result.",
     {"result": "ok"}),
    ("reloads_failed", "gufc_rule_reloads_total", "counter",
     "Rule-set reloads on SIGHUP, by result.", {"result": "failed"}),
    ("reject_replies", "gufc_reject_replies_total", "counter",
     "REJECT: replies (ICMP errors, TCP resets), by result.", {"result": "sent"}),
    ("reject_suppressed", "gufc_reject_replies_total", "counter",
     "REJECT: replies (ICMP errors, TCP resets), by result.", {"result": "suppressed"}),
    # Router mode (zeros in bridge mode).
    ("l3_slow", "gufc_router_slow_path_packets_total", "counter",
     "Router: cache hits sent to the slow path (next hop resolving, TTL, MTU).", None),
    ("echo_replies", "gufc_router_echo_replies_total", "counter",
     "Router: echo requests to its addresses answered.", None),
    ("local_in", "gufc_router_local_packets_total", "counter",
     "Router: accepted packets to its addresses sent to the local channel.", None),
    ("icmp_errors", "gufc_router_icmp_errors_total", "counter",
     "Router: ICMP errors sent, by result.", {"result": "sent"}),
    ("icmp_suppressed", "gufc_router_icmp_errors_total", "counter",
     "Router: ICMP errors sent, by result.", {"result": "suppressed"}),
    ("frag_made", "gufc_router_fragments_made_total", "counter",
     "Router: fragments made for the egress MTU.", None),
    ("originated", "gufc_originated_packets_total", "counter",
     "Packets gufc made itself (ICMP errors, fragments, ARP/ND frames).", None),
    ("neigh_in", "gufc_neigh_frames_in_total", "counter",
     "Router: ARP and neighbour discovery frames received.", None),
    ("neigh_originated", "gufc_neigh_frames_out_total", "counter",
     "Router: ARP and neighbour discovery frames sent.", None),
    ("neighbours", "gufc_neighbours", "gauge", "Router: neighbour table entries now.", None),
    ("neigh_resolved", "gufc_neigh_resolved_total", "counter",
     "Router: neighbours that got their first MAC.", None),
    ("neigh_failed", "gufc_neigh_failed_total", "counter",
     "Router: resolutions or probes without answer.", None),
    ("neigh_mac_changes", "gufc_neigh_mac_changes_total", "counter",
     "Router: known neighbours whose MAC changed.", None),
    ("neigh_queued", "gufc_neigh_queued_packets", "gauge",
     "Router: packets waiting for a next hop now.", None),
]

CHANNEL_COLS = [
    ("enqueued", "gufc_channel_enqueued_packets_total", "counter", "Packets put in the channel."),
    ("consumed", "gufc_channel_consumed_packets_total", "counter",
     "Packets its consumer took."),
    ("drop_full", "gufc_channel_full_drops_total", "counter",
     "Packets dropped because its ring was full."),
    ("flushed", "gufc_channel_flushed_packets_total", "counter",
     "Packets flushed from its ring undelivered."),
    ("bytes", "gufc_channel_bytes_total", "counter", "Bytes put in the channel."),
    ("in_ring", "gufc_channel_in_ring_packets", "gauge", "Packets in its ring now."),
]

OFFLOAD_COUNTERS = [
    ("hw_classified", "Marked packets that skipped parse and lookup."),
    ("hw_fallback", "Marked packets the mark check sent to the software path."),
    ("hw_dropped", "Packets a hardware DROP rule dropped."),
    ("hw_matched", "Packets hardware rules matched."),
    ("hw_marked", "Packets the NIC marked."),
    ("rules_created", "Hardware rules created."),
    ("rules_destroyed", "Hardware rules destroyed."),
    ("create_failed", "Hardware rule creations that failed."),
    ("offloaded", "Flows the policy put in hardware."),
    ("offload_refused", "Flows the NIC refused."),
    ("offload_full", "Flows left in software because the NIC table was full."),
    ("removed", "Flows taken out of hardware."),
    ("commit_syncs", "Commits that synchronized hardware rules."),
]
OFFLOAD_GAUGES = [
    ("rules", "Hardware rules now."),
    ("in_hw", "Flows in hardware now."),
    ("pending", "Flows queued for hardware."),
]


def columns(d):
    """Rows of a telemetry answer made of columns (dict of equally long lists)."""
    cols = {k: v for k, v in d.items() if isinstance(v, list)}
    n = min((len(v) for v in cols.values()), default=0)
    return [{k: v[i] for k, v in cols.items()} for i in range(n)]


def collect(answers):
    """Metric families from the telemetry answers."""
    f = Families()
    stats = answers.get("/gufc/stats")
    f.add("gufc_up", "gauge", "1 if gufc answered on its telemetry socket.", 1 if stats else 0)
    if not stats:
        return f
    for key, name, kind, help_text, labels in STATS:
        if key in stats:
            f.add(name, kind, help_text, int(stats[key]), labels)
    looked = stats.get("hits", 0) + stats.get("misses", 0)
    f.add("gufc_cache_hit_ratio", "gauge", "Cache hits over lookups since start (0..1).",
          stats.get("hits", 0) / looked if looked else 0.0)

    drops = answers.get("/gufc/drops") or {}
    for reason, n in drops.items():
        if reason != "total":
            f.add("gufc_dropped_packets_total", "counter", "Packets dropped, by reason.", int(n),
                  {"reason": reason})

    for row in columns(answers.get("/gufc/channels") or {}):
        labels = {"channel": row.get("name", ""), "kind": row.get("kind", "")}
        for col, name, kind, help_text in CHANNEL_COLS:
            if col in row:
                f.add(name, kind, help_text, int(row[col]), labels)

    for row in columns(answers.get("/gufc/rules") or {}):
        if row.get("hook"):
            # A built-in chain's policy: the packets that left the chain by its end.
            labels = {"family": row.get("family", ""), "table": row.get("table", ""),
                      "hook": row.get("hook", ""), "chain": row.get("chain", "")}
            f.add("gufc_policy_packets_total", "counter",
                  "Packets each base chain's policy decided or let through.",
                  int(row.get("packets", 0)), labels)
            f.add("gufc_policy_bytes_total", "counter",
                  "Bytes each base chain's policy decided or let through.",
                  int(row.get("bytes", 0)), labels)
            continue
        labels = {"id": row.get("id"), "table": row.get("table", ""), "chain": row.get("chain", "")}
        f.add("gufc_rule_packets_total", "counter",
              "Packets each committed rule counted (decided or passed).",
              int(row.get("packets", 0)), labels)
        f.add("gufc_rule_bytes_total", "counter",
              "Bytes each committed rule counted (decided or passed).",
              int(row.get("bytes", 0)), labels)

    off = answers.get("/gufc/offload")
    if off:
        f.add("gufc_offload_info", "gauge", "The offload backend (label).", 1,
              {"backend": off.get("backend", "")})
        for key, help_text in OFFLOAD_COUNTERS:
            if key in off:
                f.add("gufc_offload_%s_total" % key, "counter", help_text, int(off[key]))
        for key, help_text in OFFLOAD_GAUGES:
            if key in off:
                f.add("gufc_offload_%s" % key, "gauge", help_text, int(off[key]))

    lc = answers.get("/gufc/lcores")
    if lc:
        share = {}
        for row in columns(lc):
            labels = {"lcore": row["lcore"], "role": row["role"]}
            f.add("gufc_lcore_busy_cycles_total", "counter",
                  "TSC cycles of loop passes that did work, per lcore and role.",
                  int(row["busy_cycles"]), labels)
            f.add("gufc_lcore_idle_cycles_total", "counter",
                  "TSC cycles of loop passes that found nothing to do, per lcore and role.",
                  int(row["idle_cycles"]), labels)
            b, i = share.get(row["lcore"], (0, 0))
            share[row["lcore"]] = (b + int(row["busy_cycles"]), i + int(row["idle_cycles"]))
        for lcore, (b, i) in share.items():
            f.add("gufc_lcore_busy_ratio", "gauge",
                  "Busy share of the lcore's cycles since start (0..1); "
                  "rate() the cycle counters for a window.", b / (b + i) if b + i else 0.0,
                  {"lcore": lcore})
        if "tsc_hz" in lc:
            f.add("gufc_tsc_hz", "gauge", "TSC frequency of the cycle counters.",
                  int(lc["tsc_hz"]))

    ipfix = answers.get("/gufc/ipfix")
    if ipfix and ipfix.get("enabled"):
        for reason in ("idle", "active", "eof", "forced", "resources"):
            f.add("gufc_ipfix_records_total", "counter", "IPFIX records exported, by flowEndReason.",
                  int(ipfix.get("records_" + reason, 0)), {"end_reason": reason})
        f.add("gufc_ipfix_messages_total", "counter", "IPFIX messages sent.", int(ipfix["messages"]))
        f.add("gufc_ipfix_bytes_total", "counter", "Bytes of IPFIX messages sent.",
              int(ipfix["bytes"]))
        f.add("gufc_ipfix_templates_total", "counter", "IPFIX template sets sent.",
              int(ipfix["templates"]))
        f.add("gufc_ipfix_dropped_messages_total", "counter",
              "IPFIX messages lost (no mbuf, TX queue full, write error).",
              int(ipfix["send_failed"]))
        f.add("gufc_ipfix_lost_records_total", "counter", "IPFIX records in lost messages.",
              int(ipfix["records_lost"]))
    return f


def scrape(path):
    try:
        answers = telemetry_query(path, COMMANDS)
    except (OSError, ValueError) as e:
        sys.stderr.write("gufc-prometheus: %s: %s\n" % (path, e))
        answers = {}
    return collect(answers).render()


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------

def make_handler(path):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?")[0] == "/metrics":
                body = scrape(path).encode()
                ctype = "text/plain; version=0.0.4; charset=utf-8"
                code = 200
            elif self.path == "/":
                body = b"gufc exporter: /metrics\n"
                ctype, code = "text/plain; charset=utf-8", 200
            else:
                body, ctype, code = b"not found\n", "text/plain; charset=utf-8", 404
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):
            pass

    return Handler


def parse_listen(text):
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise argparse.ArgumentTypeError("--listen: expected ADDR:PORT, got '%s'" % text)
    return host.strip("[]") or "0.0.0.0", int(port)


def main():
    ap = argparse.ArgumentParser(description="Prometheus exporter of gufc's telemetry")
    ap.add_argument("--file-prefix", default="rte", help="gufc's EAL --file-prefix")
    ap.add_argument("--listen", type=parse_listen, default=("127.0.0.1", 9469),
                    help="ADDR:PORT to serve /metrics on (default 127.0.0.1:9469)")
    ap.add_argument("--once", action="store_true", help="print one scrape and exit")
    args = ap.parse_args()
    path = os.path.join(runtime_dir(), args.file_prefix, SOCKET_NAME)
    if args.once:
        sys.stdout.write(scrape(path))
        return 0
    host, port = args.listen
    server_cls = http.server.ThreadingHTTPServer
    if ":" in host:
        class V6(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6
        server_cls = V6
    srv = server_cls((host, port), make_handler(path))
    sys.stderr.write("gufc-prometheus: serving http://%s:%d/metrics from %s\n" %
                     (host, srv.server_address[1], path))
    sys.stderr.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
