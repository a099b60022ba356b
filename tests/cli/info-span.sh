#!/bin/sh
# CLI test: info's duration over a bag spanning 1970 to 2106 (2^32 s, past a
# 32-bit int), as `rosbag info` (Debian's python3-rosbag) writes it; the bag
# is written by python3-rosbag too. Skipped (77) without it.
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
command -v rosbag >/dev/null 2>&1 && /usr/bin/python3 "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "python3-rosbag not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top/tests/tools/pyref.py" - "$tmp/span.bag" <<'PY' || exit 1
import sys, rosbag, genpy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], 'w') as b:
    b.write('/a', String(data='first'), genpy.Time(0, 1000))
    b.write('/a', String(data='last'), genpy.Time(4294967295, 999999999))
PY
want=$(TZ=UTC "$top/tests/tools/pyref.py" "$(command -v rosbag)" info "$tmp/span.bag" 2>/dev/null | grep '^duration:')
got=$(TZ=UTC "$bin" info "$tmp/span.bag" | grep '^duration:')
echo "rosbag:   $want"
echo "bagscope: $got"
[ -n "$want" ] && [ "$got" = "$want" ] || { echo "FAIL info's duration differs from rosbag info's"; exit 1; }
echo "ok    info's duration over 2^32 s is rosbag info's"
