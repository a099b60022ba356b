#!/bin/sh
# make check entry: one offset rule for --start/--end (and the browser's jump
# prompt): +X or X with a unit after the bag's start, -X before its end;
# >X and <X (from the browser's selected message) are refused here with why.
# The counts are python3-rosbag's read_messages() over the same window. A
# bag of relative times (1.0) refuses a date and says to give +offset.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
fail=0
[ -x "$PY" ] && "$PY" "$(dirname "$0")/../tools/has-modules.py" rosbag 2>/dev/null || { echo "offsets.sh: needs python3-rosbag"; exit 1; }
# want BAG FROM_START TO_END...: rosbag's count in [start + FROM_START, end - TO_END]
# for each triple, a line each (one process: one import of rosbag)
want() {
	"$PY" - "$@" <<'PYEOF'
import sys, rosbag, rospy
for path, a, z in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    b = rosbag.Bag(path)
    s = rospy.Time.from_sec(b.get_start_time()) + rospy.Duration.from_sec(float(a))
    e = rospy.Time.from_sec(b.get_end_time()) - rospy.Duration.from_sec(float(z))
    print(sum(1 for _ in b.read_messages(start_time=s, end_time=e)))
PYEOF
}
basic=$D/fixtures/bags/basic_none.bag
freq=$D/fixtures/made/freq_times.bag
counts=$(want "$basic" 2 1.5 "$basic" 0 1.5 "$freq" 2 1.5 "$freq" 0 1.5)
[ "$(echo "$counts" | wc -l)" = 4 ] || { echo "FAIL rosbag's counts: $counts"; fail=1; }
k=0
for bag in "$basic" "$freq"; do
	w=$(echo "$counts" | sed -n "$((k + 1))p")
	w0=$(echo "$counts" | sed -n "$((k + 2))p")
	k=$((k + 2))
	for start in +2 +2s 2s 2000ms +0m2s; do
		got=$("$B" cat --count --start "$start" --end -1.5s "$bag")
		[ "$got" = "$w" ] || { echo "FAIL $bag --start $start --end -1.5s: $got, rosbag $w"; fail=1; }
	done
	got=$("$B" cat --count --end -1.5 "$bag")
	[ "$got" = "$w0" ] || { echo "FAIL $bag --end -1.5: $got, rosbag $w0"; fail=1; }
done
bag=$D/fixtures/bags/basic_none.bag
out=$("$B" cat --count --start '>2s' "$bag" 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "browser's selected message" || { echo "FAIL >2s: $out"; fail=1; }
# a bag of durations since its recorder started: no dates, and it says so
out=$("$B" cat --count --start 2020-01-01 "$D/oldbags/gen_v10.bag" 2>&1)
[ $? -eq 2 ] && echo "$out" | grep -q "this bag has no dates .*give +offset" || { echo "FAIL date on 1.0: $out"; fail=1; }
# there the same rule holds: the window's messages are those of the whole bag within [start + 2, end - 1.5]
w=$("$B" cat --format json "$D/oldbags/gen_v10.bag" | "$PY" -c '
import sys, json
t = [json.loads(l)["time_ns"] for l in sys.stdin]
print(sum(1 for x in t if min(t) + 2e9 <= x <= max(t) - 1.5e9))')
got=$("$B" cat --count --start +2 --end -1.5 "$D/oldbags/gen_v10.bag")
[ "$got" = "$w" ] && [ "$w" -gt 0 ] || { echo "FAIL offsets on 1.0: $got, want $w"; fail=1; }
# tf --every takes a positive duration only
"$B" tf --lookup a b --every -1s "$D/fixtures/bags/tf_lz4.bag" >/dev/null 2>&1 && { echo "FAIL --every -1s"; fail=1; }
[ $fail -eq 0 ] && echo "offsets.sh: ok"
exit $fail
