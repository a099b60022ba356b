#!/bin/sh
# make check entry: `bagscope stats --json` against figures computed here from
# the real ROS reader (python3-rosbag): per topic the message count, first and
# last time, nearest-rank period p50/p99/max, gaps over 5 x p50 (count and the
# three largest), bytes, and for Header types the latency percentiles, seq
# drops and stamps going backwards; the rate as (n - 1) / (last - first). Also `--index` (no bytes or header keys).
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "stats.sh: needs python3-rosbag"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# bagscope's figures for each bag, then one Python process (one import of
# rosbag) checks them all: arguments BAG JSON BAG JSON...
set --
n=0
for bag in "$D"/bags/*.bag "$D"/foreign/rosbag.js/example.bag "$D"/made/freq_times.bag; do
	[ -f "$bag" ] || continue
	n=$((n + 1))
	"$B" stats --json "$bag" > "$tmp/$n.json" || { echo "FAIL stats $bag: exit $?"; fail=1; continue; }
	set -- "$@" "$bag" "$tmp/$n.json"
done
"$PY" - "$@" <<'PYEOF' || fail=1
import sys, json, rosbag
from collections import defaultdict
def rank(v, p):
    r = (len(v) * p + 99) // 100
    return v[max(r, 1) - 1]
def problems(bag, got):
    """What bagscope's figures GOT get wrong for BAG."""
    times, size, hdr, types = defaultdict(list), defaultdict(int), defaultdict(list), {}
    for topic, raw, t in rosbag.Bag(bag).read_messages(raw=True):
        times[topic].append(t.to_nsec())
        size[topic] += len(raw[1])
        types.setdefault(topic, raw[0])
    for topic, m, t in rosbag.Bag(bag).read_messages():
        if m._slot_types and m._slot_types[0] == 'std_msgs/Header':
            hdr[topic].append((t.to_nsec(), m.header.seq, m.header.stamp.to_nsec()))
    want = {}
    for topic, ts in times.items():
        ts.sort()
        w = {'messages': len(ts), 'first_ns': ts[0], 'last_ns': ts[-1], 'bytes': size[topic]}
        per = sorted(b - a for a, b in zip(ts, ts[1:]))
        if per:
            p50 = rank(per, 50)
            w['period_ns'] = {'p50': p50, 'p99': rank(per, 99), 'max': per[-1]}
            gaps = sorted(((b - a, a) for a, b in zip(ts, ts[1:]) if b - a > 5 * p50), key=lambda g: (-g[0], g[1]))
            w['gaps'] = {'count': len(gaps), 'largest': [{'start_ns': s, 'length_ns': l} for l, s in gaps[:3]]}
        if topic in hdr and len(hdr[topic]) == len(ts):
            h = hdr[topic]
            lat = sorted(t - s for t, _, s in h)
            w['latency_ns'] = {'p50': rank(lat, 50), 'p99': rank(lat, 99), 'max': lat[-1]}
            w['seq_drops'] = sum(b - a - 1 for (_, a, _), (_, b, _) in zip(h, h[1:]) if b > a + 1)
            w['stamps_backwards'] = sum(1 for (_, _, a), (_, _, b) in zip(h, h[1:]) if b < a)
        want[topic] = w
    tops = {t['topic']: t for t in got['topics']}
    bad = []
    if set(tops) != set(want):
        bad.append('topics %r, expected %r' % (sorted(tops), sorted(want)))
    for topic, w in want.items():
        g = tops.get(topic, {})
        for k, v in w.items():
            if g.get(k) != v:
                bad.append('%s %s: %r, expected %r' % (topic, k, g.get(k), v))
        # bagscope's one rate: n - 1 periods over the first-to-last span (0 without a span)
        span = w['last_ns'] - w['first_ns']
        rate = (w['messages'] - 1) * 1e9 / span if span > 0 else 0
        if abs(g.get('rate_hz', 0) - rate) > 1e-12 * max(rate, 1):
            bad.append('%s rate_hz %r' % (topic, g.get('rate_hz')))
    return bad
failed = 0
for bag, out in zip(sys.argv[1::2], sys.argv[2::2]):
    try:
        bad = problems(bag, json.load(open(out)))
    except Exception as e:
        bad = ['%s: %s' % (type(e).__name__, e)]
    if bad:
        print('FAIL stats %s:\n  %s' % (bag, '\n  '.join(bad[:8])))
        failed += 1
sys.exit(1 if failed else 0)
PYEOF
"$B" stats --index --json "$D/bags/basic_none.bag" | grep -q '"bytes"' && { echo "FAIL --index read messages"; fail=1; }
"$B" stats "$D/bags/tf_lz4.bag" | grep -q "latency" || { echo "FAIL text form"; fail=1; }
# the text form's rate in a unit that fits (example.bag's /rosout: 10 messages in 0.2 s, not rosbag's 1.6 kHz)
"$B" stats --index "$D/foreign/rosbag.js/example.bag" | grep -A2 '^/rosout ' | grep -q "rate       44.8 Hz$" ||
	{ echo "FAIL /rosout's rate"; fail=1; }
"$B" stats --index "$D/made/freq_times.bag" | grep -A2 '^/same ' | grep -q "rate       - (every message at one time)" ||
	{ echo "FAIL /same's rate"; fail=1; }
[ $fail -eq 0 ] && echo "stats.sh: ok"
exit $fail
