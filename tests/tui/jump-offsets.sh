#!/bin/sh
# Screen test: the jump prompt's one offset rule (as --start/--end take it):
# +10s and 10s after the bag's start, -5s before its end, >1s and <1s from the
# selected message. Each lands on the row python3-rosbag's own read gives for
# that time (the first message at or after it). A bag of relative times (1.0)
# refuses a date with a note to give +offset.
. "$(dirname "$0")/lib.sh"
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
"$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
# the 1-based row of the first message at or after start + A (A >= 0) or end -
# B (when A is empty), for each A:B given; one read of the bag for them all
rows=$("$PY" - "$bag" 10: 11: 9: :5 3: <<'PYEOF'
import sys, rosbag
t = sorted(x.to_nsec() for _, _, x in rosbag.Bag(sys.argv[1]).read_messages(raw=True))
for arg in sys.argv[2:]:
    a, b = arg.split(':')
    at = t[0] + round(float(a) * 1e9) if a else t[-1] - round(float(b) * 1e9)
    print(sum(1 for x in t if x < at) + 1)
PYEOF
) || exit 1
set -- $rows
r10=$1 r11=$2 r9=$3 e5=$4 r3=$5
start 200 50 "$bag"
wait_for "opens" "row 1/8647"
keys t "+10s" Enter
wait_for "+10s: 10 s after the start" "row $r10/8647"
keys g t "10s" Enter
wait_for "10s: the same" "row $r10/8647"
keys t ">1s" Enter
wait_for ">1s: 1 s on from there" "row $r11/8647"
keys t "<2s" Enter
wait_for "<2s: 2 s back from there" "row $r9/8647"
keys t "-5s" Enter
wait_for "-5s: 5 s before the end" "row $e5/8647"
keys t "+3" Enter
wait_for "+3 (no unit): after the start too" "row $r3/8647"
start 120 30 "$top/tests/data/oldbags/gen_v10.bag"
wait_for "a 1.0 bag opens" "row 1/23"
keys t "2020-01-01 00:00:00" Enter
wait_for "a date: the bag has none, give +offset" "this bag has no dates .*give \\+offset"
keys t "+2" Enter
# the first message at or after +2: one past those --end +1.999999999 keeps
wait_for "+2 goes 2 s in" "row $(($("$bin" cat --count --end +1.999999999 "$top/tests/data/oldbags/gen_v10.bag") + 1))/23"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
