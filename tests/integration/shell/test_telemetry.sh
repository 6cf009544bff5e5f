#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Telemetry: /gufc/stats, /gufc/drops, /gufc/channels, /gufc/rules,
# /gufc/flows, /gufc/recent and /gufc/quota answered through dpdk-telemetry.py with the expected keys, and
# numbers equal to the --stats-json file written at exit (traffic is over
# when they are read).
. "$(dirname "$0")/lib.sh"

TEL=$(command -v dpdk-telemetry.py) || { echo "SKIP: dpdk-telemetry.py missing"; exit 77; }

"$GEN" -o "$W/in.pcap" -n 4 -p 40 --mix udp=100 > /dev/null 2>&1 || fail "gufc-gen"
printf '%s\n' 'drop proto udp dport 53' 'accept proto tcp dport 22' \
	'drop proto udp quota !100000000' \
	'accept proto udp recent_set recent_name U' > "$W/r.rules"
start_gufc $(eal_args "$W/in.pcap" "$W/out.pcap") -- --rules "$W/r.rules" \
	--stats-json "$W/st.json"
wait_rx 40

printf '%s\n' /gufc/stats /gufc/drops /gufc/channels /gufc/rules /gufc/flows,3 /gufc/recent \
	/gufc/quota |
	timeout 30 python3 "$TEL" -f "$PREFIX" > "$W/tel.txt" 2>&1 || {
	cat "$W/tel.txt"
	fail "dpdk-telemetry.py"
}
ask show rules
echo "$ASK" > "$W/rules.txt"
stop_gufc || fail "gufc exit status $?"

python3 - "$W/tel.txt" "$W/st.json" "$W/rules.txt" <<'PY' || fail "telemetry check"
import json, sys

tel = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith('{'):
        tel.update(json.loads(line))
st = json.load(open(sys.argv[2]))

def need(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)

for c in ('/gufc/stats', '/gufc/drops', '/gufc/channels', '/gufc/rules', '/gufc/flows',
          '/gufc/recent', '/gufc/quota'):
    need(isinstance(tel.get(c), dict), c + ' answered')
s = tel['/gufc/stats']
for k in ('rx', 'rx_bytes', 'delivered', 'drops_total', 'hits', 'misses', 'upcalls',
          'flows_created', 'flows_active', 'commits', 'generation', 'transmitted',
          'evictions', 'evictions_early', 'evictions_established', 'evictions_out_of_order',
          'flow_cuckoo_moves'):
    need(k in s, 'stats key ' + k)
for k in ('evictions', 'evictions_early', 'evictions_established', 'evictions_out_of_order'):
    need(s[k] == st['flows'][k], 'JSON flows ' + k)
need(s['rx'] == st['rx'] == 40, 'rx')
need(s['rx_bytes'] == st['rx_bytes'], 'rx_bytes')
need(s['delivered'] == st['delivered'], 'delivered')
need(s['drops_total'] == st['drops_total'] > 0, 'drops_total')
need(s['flows_created'] == st['flows']['created'], 'flows created')
need(s['flows_active'] == st['flows']['active'], 'flows active')
need(s['flow_cuckoo_moves'] == st['flows']['cuckoo_moves'], 'cuckoo moves')
need(s['transmitted'] == st['transmitted'], 'transmitted')
d = tel['/gufc/drops']
need(set(st['drops']) <= set(d), 'every drop reason')
need(all(d[k] == v for k, v in st['drops'].items()), 'drop counts')
need(d['total'] == st['drops_total'], 'drops total')
ch = tel['/gufc/channels']
for k in ('name', 'id', 'kind', 'enqueued', 'consumed', 'drop_full', 'flushed', 'bytes'):
    need(len(ch[k]) == len(st['channels']), 'channel column ' + k)
for i, c in enumerate(st['channels']):
    need(ch['name'][i] == c['name'] and ch['enqueued'][i] == c['enqueued'] and
         ch['consumed'][i] == c['consumed'], 'channel ' + c['name'])
r = tel['/gufc/rules']
need(sum(1 for h in r['hook'] if not h) == len(st['rules']) == 4, 'rules')
for i, x in enumerate(st['rules']):
    need(r['id'][i] == x['id'] and r['packets'][i] == x['packets'] and
         r['bytes'][i] == x['bytes'] and r['rule'][i] == x['rule'] and r['hook'][i] == '',
         'rule %d' % x['id'])
shell = {int(l.split()[0]): int(l.split()[4]) for l in open(sys.argv[3])
         if len(l.split()) > 6 and l.split()[0].isdigit()}
need(all(shell[x['id']] == x['packets'] for x in st['rules']), 'show rules counters')
# The base chains' policies after the rules: telemetry, JSON and the shell agree.
pol = {(x['family'], x['table'], x['hook']): x for x in st['policies']}
shell_pol = {(l.split()[7], l.split()[1], l.split()[8].rstrip(':')): int(l.split()[4])
             for l in open(sys.argv[3]) if len(l.split()) > 9 and l.split()[0] == '-'}
rows = [i for i, h in enumerate(r['hook']) if h]
# filter main's three hooks, nat's dnat and snat chains, per family.
need(sorted((r['family'][i], r['table'][i], r['hook'][i]) for i in rows) ==
     sorted((f, t, h) for f in ('ipv4', 'ipv6')
            for t, h in (('filter', 'input'), ('filter', 'forward'), ('filter', 'output'),
                         ('nat', 'prerouting'), ('nat', 'postrouting'))), 'policy rows')
for i in rows:
    k = (r['family'][i], r['table'][i], r['hook'][i])
    need(r['packets'][i] == pol[k]['packets'] == shell_pol[k] and
         r['bytes'][i] == pol[k]['bytes'], 'policy %s %s %s' % k)
f = tel['/gufc/flows']
need(f['total'] == st['flows']['active'], 'flows total')
for k in ('key', 'dir', 'verdict', 'rule', 'channel', 'packets', 'bytes'):
    need(len(f[k]) == min(3, f['total']), 'flows column ' + k)
rc = tel['/gufc/recent']
lists = st['recent']['lists']
need(len(lists) == 1 and lists[0]['name'] == 'U' and lists[0]['entries'] > 0, 'recent list U')
need(rc['rows'] == lists[0]['entries'] == len(rc['addr']), 'recent rows')
need(sorted(rc['addr']) == sorted(a['addr'] for a in lists[0]['addresses']), 'recent addresses')
need(all(x == 'U' for x in rc['list']), 'recent list names')
need(s['recent_dropped'] == st['recent']['dropped'] == 0, 'recent_dropped')
# The quota the UDP packets past port 53 charged (negated: it never matched).
q = tel['/gufc/quota']
need(q['rows'] == len(st['quota']) == 1 and q['rule'] == [3] and q['match'] == [1] and
     q['bytes'] == [100000000], 'quota row')
charged = sum(x['bytes'] for x in st['rules'] if x['id'] == 4)
need(charged > 0 and q['left'] == [st['quota'][0]['left']] == [100000000 - charged],
     'quota left %s, JSON %s, rule 4 took %d bytes' % (q['left'], st['quota'], charged))
print("telemetry consistent")
PY
echo "PASS"
