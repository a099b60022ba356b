#!/bin/sh
# make check entry: `bagscope plot`. --csv against a reduction computed here
# from the real ROS reader (python3-rosbag) with the issue's column
# arithmetic: the same lines, for several widths, a window (--start/--end),
# several series and topics of two connections; the chart's axes, labels
# and legend; refused paths (exit 2, the problem and a caret) and options.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "plot.sh: needs python3-rosbag"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_csv LABEL BAGSCOPE ARGS... -- REFERENCE ARGS...: bagscope's --csv now;
# the reference args are a job for check_all, which computes each job's
# reduction (path,column,t_start_ns,t_end_ns,count,min,max) from python3-rosbag,
# all in one process (one import of rosbag), and compares it byte for byte.
# The reference args: W BAG T0 T1 PATH=TOPIC=EXPR... (T0, T1 '-': the bag's span)
jobs=0
check_csv() {
	label=$1; shift
	jobs=$((jobs + 1))
	args=; while [ "$1" != -- ]; do args="$args '$1'"; shift; done; shift
	eval "\"\$B\" plot --csv $args" > "$tmp/got-$jobs" 2>"$tmp/err" || { echo "FAIL $label: exit $?"; cat "$tmp/err"; fail=1; }
	{ echo "$label"; echo "$tmp/got-$jobs"; for a in "$@"; do echo "$a"; done; echo; } >> "$tmp/jobs"
}
check_all() {
	"$PY" - "$tmp/jobs" "$jobs" <<'PYEOF'
import sys, math, difflib, rosbag

def reference(W, bag, t0, t1, specs):
    W, bag = int(W), rosbag.Bag(bag)
    t0 = int(t0) if t0 != '-' else min(c.start_time for c in bag._chunks).to_nsec()
    t1 = int(t1) if t1 != '-' else max(c.end_time for c in bag._chunks).to_nsec()
    N = t1 - t0 + 1
    out = []
    for spec in specs:
        path, topic, expr = spec.split('=', 2)
        cols = [[] for _ in range(W)]
        for _, m, t in bag.read_messages(topics=[topic]):
            t = t.to_nsec()
            if t < t0 or t > t1:
                continue
            try:
                v = float(eval(expr, {'m': m}))
            except IndexError:
                continue
            if math.isnan(v):
                continue
            cols[(t - t0) * W // N].append(v)
        for c in range(W):
            s, e = t0 + -(-c * N // W), t0 + -(-(c + 1) * N // W) - 1
            mm = '%r,%r' % (min(cols[c]), max(cols[c])) if cols[c] else ','
            out.append('%s,%d,%d,%d,%d,%s\n' % (path, c, s, e, len(cols[c]), mm))
    return ''.join(out)

failed = done = 0
for job in open(sys.argv[1]).read().split('\n\n'):
    if not job.strip():
        continue
    done += 1
    label, got, *args = job.strip('\n').split('\n')
    got = open(got).read()
    try:
        want = reference(args[0], args[1], args[2], args[3], args[4:])
    except Exception as e:
        want = 'reference: %s: %s\n' % (type(e).__name__, e)
    if got != want:
        failed += 1
        print('FAIL ' + label)
        diff = [l for l in difflib.ndiff(got.splitlines(), want.splitlines()) if l[0] in '-+']
        print('\n'.join(diff[:10]))
if done != int(sys.argv[2]):
    print('FAIL %d of %s reductions compared' % (done, sys.argv[2]))
    failed += 1
sys.exit(1 if failed else 0)
PYEOF
}

basic=$D/bags/basic_none.bag
for w in 1 3 7 64; do
	check_csv "basic W=$w" --width $w /value.data /counter.data "$basic" -- \
		$w "$basic" - - '/value.data=/value=m.data' '/counter.data=/counter=m.data'
done
check_csv "window" --width 5 --start 1500000001 --end 1500000004.0000004 /value.data "$basic" -- \
	5 "$basic" 1500000001000000000 1500000004000000400 '/value.data=/value=m.data'
tf=$D/bags/tf_lz4.bag
check_csv "tf two connections" --width 9 '/tf.transforms[-1].transform.rotation.w' '/tf.len(transforms)' "$tf" -- \
	9 "$tf" - - '/tf.transforms[-1].transform.rotation.w=/tf=m.transforms[-1].transform.rotation.w' \
	'/tf.len(transforms)=/tf=len(m.transforms)'
nested=$D/bags/nested_bz2.bag
check_csv "nested" --width 4 '/markers.markers[1].pose.position.x' "$nested" -- \
	4 "$nested" - - '/markers.markers[1].pose.position.x=/markers=m.markers[1].pose.position.x'
check_all || fail=1

# the chart: labels on the top, middle and bottom rows, the x axis, a legend per series
"$B" plot --width 40 --height 8 /counter.data /value.data "$basic" > "$tmp/chart" || fail=1
[ "$(wc -l < "$tmp/chart")" -eq 12 ] || { echo "FAIL chart lines"; cat "$tmp/chart"; fail=1; }
head -1 "$tmp/chart" | grep -q '9.223e+18 ┤' || { echo "FAIL chart top label"; fail=1; }
sed -n 8p "$tmp/chart" | grep -q -- '-9.223e+18 ┤' || { echo "FAIL chart bottom label"; fail=1; }
sed -n 9p "$tmp/chart" | grep -q '└────────────────────$' || { echo "FAIL chart x axis"; fail=1; }
sed -n 10p "$tmp/chart" | grep -q '1500000000.000 *+7.000 s$' || { echo "FAIL chart times"; fail=1; }
# without colour the second series is marked '+' (chart_marker), in the legend and the chart
grep -q '⣿ /counter.data  7 samples' "$tmp/chart" && grep -q '+ /value.data  5 samples' "$tmp/chart" ||
	{ echo "FAIL chart legend"; cat "$tmp/chart"; fail=1; }
# the int64 extremes of /counter are dots on the top and bottom rows
dots() { sed -n "$1p" "$tmp/chart" | sed 's/.*┤//; s/.*│//; s/⠀//g'; }
[ -n "$(dots 1)" ] && [ -n "$(dots 8)" ] && [ -z "$(dots 2)" ] ||
	{ echo "FAIL chart extremes"; cat "$tmp/chart"; fail=1; }

# refused
"$B" plot /value.dat "$basic" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no field 'dat' in std_msgs/Float64" "$tmp/err" && [ "$(sed -n 3p "$tmp/err")" = "                       ^" ] ||
	{ echo "FAIL bad field: $rc"; cat "$tmp/err"; fail=1; }
"$B" plot /nothere.x "$basic" 2> "$tmp/err"; [ $? -eq 2 ] && grep -q "starts with no topic" "$tmp/err" ||
	{ echo "FAIL unknown topic"; fail=1; }
"$B" plot --width 0 /value.data "$basic" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL --width 0"; fail=1; }
"$B" plot /value.data 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL no bag"; fail=1; }
"$B" plot /value.data "$tmp/missing.bag" 2>/dev/null; [ $? -eq 1 ] || { echo "FAIL missing bag"; fail=1; }
"$B" plot --start 1500000005 --end 1500000001 /value.data "$basic" 2>/dev/null; [ $? -eq 2 ] ||
	{ echo "FAIL start after end"; fail=1; }
[ $fail -eq 0 ] && echo "plot.sh: all passed"
exit $fail
