#!/bin/sh
# make check entry: the transform buffer and `bagscope tf` against tf2 itself.
# Bags made by python3-rosbag (tests/tools/mk-tf-bags.py: reparenting, a cycle,
# static/dynamic mixes, out-of-order and repeated stamps, refused transforms,
# tf/tfMessage) and the fixtures with TF are read twice: by python3-rosbag,
# whose transforms feed Debian's libtf2 BufferCore (tests/tools/tf2-ref.cpp,
# compiled here), and by the library (tests/tools/tf-lookups). Every lookup
# between every pair of frames at the edges' stamps, one nanosecond past
# them, time 0 and random exact times must give the same outcome: the same
# exception, or the same stamp and values within 1e-9. Then the CLI: the
# tree, --json, --dot, --lookup --at (text and JSON equal to the library's),
# --every CSV, exit 1 and one line on a lookup error, the warnings.
B=${BAGSCOPE:-src/bagscope}
BUILD=${BUILDDIR:-.}
SRC=${SRCDIR:-.}
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$SRCDIR/tests/tools/has-modules.py" rosbag tf2_msgs.msg 2>/dev/null || { echo "tf.sh: needs python3-rosbag, python3-tf2-msgs"; exit 1; }
[ -f /usr/include/tf2/buffer_core.h ] || { echo "tf.sh: needs libtf2-dev (scripts/setup.sh --test)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SRCDIR=$SRC sh "$SRC/tests/tools/made-bags.sh" tf2-ref.cpp "$tmp" -ltf2 -lrostime || { echo "tf.sh: cannot build tf2-ref"; exit 1; }
SRCDIR=$SRC sh "$SRC/tests/tools/made-bags.sh" mk-tf-bags.py "$tmp" || exit 1

ko() { echo "FAIL: $*"; fail=1; }

# compare REF OURS: same outcome per line, stamps exact, numbers within 1e-9
compare() {
	"$PY" - "$1" "$2" <<'PYEOF'
import sys
a, b = open(sys.argv[1]).read().split('\n'), open(sys.argv[2]).read().split('\n')
if len(a) != len(b):
    sys.exit('%d lines from tf2, %d from bagscope' % (len(a), len(b)))
bad = 0
for i, (x, y) in enumerate(zip(a, b)):
    x, y = x.split(), y.split()
    ok = x[:3] == y[:3] and len(x) == len(y) and all(abs(float(p) - float(q)) <= 1e-9 for p, q in zip(x[3:], y[3:]))
    if not ok:
        bad += 1
        if bad <= 5:
            print('line %d: tf2 %s, bagscope %s' % (i + 1, ' '.join(x), ' '.join(y)))
sys.exit(1 if bad else 0)
PYEOF
}

n=0
"$PY" "$SRC/tests/tools/tf-dump.py" --to "$tmp" 40 "$tmp"/tf_*.bag "$SRC/tests/data/fixtures/bags/tf_lz4.bag"
for bag in "$tmp"/tf_*.bag "$SRC/tests/data/fixtures/bags/tf_lz4.bag"; do
	name=$(basename "$bag" .bag)
	[ -f "$tmp/$name.in" ] || { ko "$name: tf-dump"; continue; }
	"$tmp/tf2-ref" < "$tmp/$name.in" > "$tmp/$name.ref" 2>/dev/null || { ko "$name: tf2-ref"; continue; }
	"$BUILD/tests/tools/tf-lookups" "$bag" < "$tmp/$name.in" > "$tmp/$name.out" || { ko "$name: tf-lookups"; continue; }
	compare "$tmp/$name.ref" "$tmp/$name.out" || ko "$name: lookups differ from tf2's"
	q=$(grep -c '^Q' "$tmp/$name.in")
	okn=$(grep -c '^OK' "$tmp/$name.ref")
	echo "$name: $q lookups ($okn transforms, the rest tf2 exceptions) equal to tf2's"
	n=$((n + q))
done
[ "$n" -gt 9000 ] || ko "only $n lookups compared"

basic=$tmp/tf_basic.bag
# the tree: roots, children indented under parents, static marks, rates, callerids
"$B" tf "$basic" > "$tmp/tree" 2> "$tmp/tree.err" || ko "tf tree exit $?"
grep -q '^map$' "$tmp/tree" || ko "tree: root map"
grep -q '^  odom  dynamic  50 msgs  10.00 Hz  stamps 1500000000.000123464 .. 1500000004.900123464' "$tmp/tree" || ko "tree: odom line"
grep -q '^    base_link  dynamic  250 msgs  50.00 Hz' "$tmp/tree" || ko "tree: base_link line"
grep -q '^      laser  static  1 msg  node /pub_tf_static$' "$tmp/tree" || ko "tree: static laser"
[ -s "$tmp/tree.err" ] && ko "tree: warnings on a clean bag: $(cat "$tmp/tree.err")"

# --json equals what python3-rosbag says of each frame; the same read writes
# rec.q, the record-time lookups the plot checks below use
"$B" tf --json "$basic" > "$tmp/json" || ko "tf --json"
"$PY" - "$basic" "$tmp/json" "$tmp/rec.q" <<'PYEOF' || ko "tf --json differs from python3-rosbag"
import json, sys, rosbag
want = {}
with rosbag.Bag(sys.argv[1]) as bag, open(sys.argv[3], 'w') as rec:
    for topic, msg, t in bag.read_messages():
        if topic in ('/tf', '/tf_static'):
            rec.write('Q\tmap\tbase_link\t%d\t%d\n' % (t.secs, t.nsecs))
        for tr in msg.transforms:
            w = want.setdefault(tr.child_frame_id, {'parent': tr.header.frame_id, 'count': 0, 'stamps': []})
            w['count'] += 1
            w['stamps'].append(tr.header.stamp.to_nsec())
            w['static'] = topic == '/tf_static'
got = {f['name']: f for f in json.load(open(sys.argv[2]))['frames']}
for name, w in want.items():
    g = got[name]
    assert g['parent'] == w['parent'] and g['count'] == w['count'] and g['static'] == w['static'], name
    if not w['static']:
        s = sorted(w['stamps'])
        assert g['first_stamp_ns'] == s[0] and g['last_stamp_ns'] == s[-1], name
        assert g['largest_gap_ns'] == max(b - a for a, b in zip(s, s[1:])), name
assert got['map']['parent'] is None and len(got) == len(want) + 1
PYEOF

"$B" tf --dot "$basic" > "$tmp/dot" || ko "tf --dot"
grep -q '^  "odom" -> "base_link" \[label="50.00 Hz' "$tmp/dot" || ko "dot: edge"
grep -q '^  "base_link" -> "laser" \[label="static"\];' "$tmp/dot" || ko "dot: static edge"

# --lookup --at: several times, in order, the same numbers as the library's (tf2-checked above)
t1=1500000001.010123457
t2=1500000002.5
"$B" tf --json --lookup map laser --at $t1 --at $t2 --at 0 "$basic" > "$tmp/look" || ko "lookup exit"
[ "$(wc -l < "$tmp/look")" = 3 ] || ko "lookup: three results"
{ grep '^T' "$tmp/tf_basic.in"; printf 'Q\tmap\tlaser\t1500000001\t10123457\nQ\tmap\tlaser\t1500000002\t500000000\nQ\tmap\tlaser\t0\t0\n'; } \
	| "$tmp/tf2-ref" > "$tmp/look.ref"
"$PY" - "$tmp/look" "$tmp/look.ref" <<'PYEOF' || ko "lookup --json differs from tf2"
import json, sys
for line, ref in zip(open(sys.argv[1]), open(sys.argv[2])):
    j, r = json.loads(line), ref.split()
    assert r[0] == 'OK' and j['stamp_ns'] == int(r[1]) * 10**9 + int(r[2]), (line, ref)
    assert all(abs(a - float(b)) <= 1e-9 for a, b in zip(j['translation'] + j['rotation'], r[3:])), (line, ref)
PYEOF
"$B" tf --lookup map laser --at $t2 "$basic" | grep -q '^time 1500000002.500000000  translation [-0-9.e]* [-0-9.e]* [-0-9.e]*  rotation [-0-9.e ]*  rpy [-0-9.e]* [-0-9.e]* [-0-9.e]*$' \
	|| ko "lookup text form"

# errors: exit 1 and one line with tf2's meaning
"$B" tf --lookup map laser --at 1400000000 "$basic" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$tmp/e")" = 1 ] && grep -q 'ExtrapolationException: Lookup would require extrapolation into the past' "$tmp/e" \
	|| ko "extrapolation: exit $rc, $(cat "$tmp/e")"
"$B" tf --lookup map nowhere "$basic" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q 'LookupException: "nowhere" passed to lookupTransform argument source_frame does not exist' "$tmp/e" || ko "unknown frame: exit $rc"
"$B" tf --lookup other map "$tmp/tf_reparent.bag" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc = 1 ] && grep -q "ConnectivityException: Could not find a connection between 'other' and 'map'" "$tmp/e" || ko "connectivity: exit $rc"

# --every: one row per step inside the data, each equal to --at at that time
"$B" tf --lookup map base_link --every 0.25 --start 1500000001 --end 1500000002 "$basic" > "$tmp/csv" || ko "every exit"
[ "$(head -1 "$tmp/csv")" = "time_ns,x,y,z,qx,qy,qz,qw,roll,pitch,yaw" ] || ko "every: header"
[ "$(wc -l < "$tmp/csv")" = 6 ] || ko "every: 5 rows, got $(($(wc -l < "$tmp/csv") - 1))"
row=$(sed -n 4p "$tmp/csv")
"$B" tf --lookup map base_link --json --at 1500000001.5 "$basic" > "$tmp/one"
"$PY" - "$row" "$tmp/one" <<'PYEOF' || ko "every row differs from --at"
import json, sys
r, j = sys.argv[1].split(','), json.load(open(sys.argv[2]))
assert int(r[0]) == j['stamp_ns'] == 1500000001500000000
assert [float(x) for x in r[1:]] == j['translation'] + j['rotation'] + j['rpy']
PYEOF

# warnings, one line each
"$B" tf "$tmp/tf_reparent.bag" > /dev/null 2> "$tmp/w"
grep -q "warning: frame base_link has 2 parents over time: odom, map" "$tmp/w" || ko "warning: two parents"
grep -q "warning: 2 disconnected trees, rooted at map, world" "$tmp/w" || ko "warning: several trees"
grep -q "warning: 100 frame ids with a leading '/'" "$tmp/w" || ko "warning: leading slash: $(cat "$tmp/w")"
"$B" tf "$tmp/tf_cycle.bag" > "$tmp/o" 2> "$tmp/w"
grep -q "warning: cycle of parents: b -> a -> c -> b" "$tmp/w" || ko "warning: cycle"
grep -q "^frames in a cycle of parents:" "$tmp/o" || ko "tree: cycle heading"
"$B" tf "$tmp/tf_mixed.bag" > /dev/null 2> "$tmp/w"
grep -q "warning: [0-9]* stamps running backwards on a connection" "$tmp/w" || ko "warning: backwards"
grep -q "warning: 2 stamps far from their record time" "$tmp/w" || ko "warning: far stamps"
grep -q "warning: 4 transforms refused" "$tmp/w" || ko "warning: refused"
[ "$(grep -c . "$tmp/w")" = "$(grep -c '^bagscope: tf: warning: ' "$tmp/w")" ] || ko "warnings: one line each"

# --topic narrows the sources
"$B" tf --json --topic /tf_static "$basic" | "$PY" -c 'import json,sys; f=json.load(sys.stdin)["frames"]; assert sorted(x["name"] for x in f) == ["base_link", "camera", "laser"], f' \
	|| ko "--topic"
# message paths: plot's tf(TARGET,SOURCE).FIELD is sampled at each TF message's
# record time; one column's count, min and max equal tf2's lookups at those times
{ grep '^T' "$tmp/tf_basic.in"; cat "$tmp/rec.q"; } | "$tmp/tf2-ref" > "$tmp/rec.ref"
for field in translation.x:3 rotation.w:9 yaw:yaw; do
	name=${field%%:*}
	"$B" plot --csv --width 1 "tf(map,base_link).$name" "$basic" > "$tmp/plot" || ko "plot tf(map,base_link).$name"
	"$PY" - "$tmp/rec.ref" "$tmp/plot" "${field#*:}" <<'PYEOF' || ko "plot tf(map,base_link).$name differs from tf2"
import math, sys
col = sys.argv[3]
vals = []
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] != 'OK':
        continue
    x, y, z, w = (float(v) for v in f[6:10])
    if col == 'yaw':
        # tf2's Matrix3x3::getRPY yaw for a unit quaternion
        vals.append(math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
    else:
        vals.append(float(f[int(col)]))
row = open(sys.argv[2]).read().strip().rsplit(',', 3)
count, lo, hi = int(row[1]), float(row[2]), float(row[3])
assert count == len(vals) > 200, (count, len(vals))
assert abs(lo - min(vals)) < 1e-9 and abs(hi - max(vals)) < 1e-9, (lo, hi, min(vals), max(vals))
PYEOF
done
"$B" plot --csv "tf(map,base_link).foo" "$basic" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "tf(...) has no field 'foo'" "$tmp/e" || ko "plot tf path with a bad field: exit $rc"

# usage
"$B" tf --at 0 "$basic" > /dev/null 2>&1; [ $? = 2 ] || ko "--at without --lookup: exit 2"
exit $fail
