#!/bin/sh
# The robot commands on the 4M-message bench bags (bench/mkbag: 800k /tf,
# 200k /rosout, 133k /diagnostics), the issue's figures:
#   tf tree (uncompressed, lz4), 10,000 lookups after the buffer is built
#   (`tf --lookup odom base_link --every 1`: one a second over the 10,000 s
#   bag, the time beyond the tree's), log --level warn, diag --summary, and
#   the buffer's bytes per stored transform (tf --json stats);
# and for comparison the same tree and lookups through Debian's python3-tf2
# (tf2_py.BufferCore) fed by python3-rosbag.
# Each bagscope figure is the median of RUNS runs (default 3); the python one
# runs once. Wall and CPU (user+sys) seconds, peak RSS.
#   bench/robot.sh [DIR]   (from the build tree; DIR holds bench-{none,lz4}.bag,
#                           default /work/benchbags; made by bench/mkbag if absent)
set -e
dir=${1:-/work/benchbags}
runs=${RUNS:-3}
bin=$(pwd)/src/bagscope
mkdir -p "$dir"
for c in none lz4; do
	[ -f "$dir/bench-$c.bag" ] || { make -s bench/mkbag && bench/mkbag -c $c -d "$(dirname "$0")/defs" "$dir/bench-$c.bag"; }
done

# median of RUNS runs: "wall s (cpu s cpu, N MB)"
secs() {
	f=$(mktemp)
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %U %S %M" -a -o "$f" "$@" > /dev/null
		i=$((i + 1))
	done
	sort -n "$f" | awk '{ w[NR] = $1; c[NR] = $2 + $3; m = $4 > m ? $4 : m }
		END { k = int((NR + 1) / 2); printf "%.2f s (%.2f s cpu, %d MB)", w[k], c[k], m / 1024 }'
	rm -f "$f"
}

none=$dir/bench-none.bag
lz4=$dir/bench-lz4.bag
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tf tree, uncompressed:          $(secs "$bin" tf "$none")"
echo "tf tree, lz4:                   $(secs "$bin" tf "$lz4")"
echo "tf tree + 10,000 lookups:       $(secs "$bin" tf --lookup odom base_link --every 1 --start +0.5 "$none")"
echo "  rows: $("$bin" tf --lookup odom base_link --every 1 --start +0.5 "$none" 2>/dev/null | tail -n +2 | wc -l)"
echo "log --level warn, uncompressed: $(secs "$bin" log --level warn "$none")"
echo "log --level warn, lz4:          $(secs "$bin" log --level warn "$lz4")"
echo "diag --summary, uncompressed:   $(secs "$bin" diag --summary "$none")"
echo "diag --summary, lz4:            $(secs "$bin" diag --summary "$lz4")"
"$bin" tf --json "$none" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
print("tf buffer: %d bytes for %d stored transforms (%d received): %.2f bytes per transform"
      % (s["memory_bytes"], s["stored"], s["transforms"], s["memory_bytes"] / max(s["stored"], 1)))'

echo "python3-tf2 fed by python3-rosbag (once):"
/usr/bin/time -f "  %e s wall (%U s user, %S s sys, %M KB)" /usr/bin/python3 - "$none" <<'PYEOF'
import sys, time, rosbag, rospy, tf2_py
t0 = time.time()
buf = tf2_py.BufferCore(rospy.Duration(100000000))
n = 0
with rosbag.Bag(sys.argv[1]) as bag:
    start, end = bag.get_start_time(), bag.get_end_time()
    for topic, msg, t in bag.read_messages(topics=['/tf', '/tf_static']):
        for tr in msg.transforms:
            buf.set_transform(tr, 'bag') if topic == '/tf' else buf.set_transform_static(tr, 'bag')
            n += 1
t1 = time.time()
ok = 0
for k in range(10000):
    try:
        buf.lookup_transform_core('odom', 'base_link', rospy.Time.from_sec(start + k))
        ok += 1
    except Exception:
        pass
t2 = time.time()
print('  %d transforms read and set in %.2f s; %d of 10,000 lookups in %.2f s' % (n, t1 - t0, ok, t2 - t1))
PYEOF
