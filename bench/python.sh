#!/bin/sh
# The Python package against python3-rosbag on the 4M-message bench bag
# (bench/mkbag, uncompressed; 1.33 M /imu/data messages):
#   - Bag.read of /imu/data.linear_acceleration.x and header.stamp into numpy,
#     against rosbag's read_messages on /imu/data with attribute access;
#   - every message decoded (Bag.messages) against rosbag's read_messages.
# rosbag is pure Python and needs minutes for the whole bag, so it runs on a
# time window of WINDOW percent of the bag (default 10), and bagscope on the
# same window as well as on the whole bag; ratios are per message. Each
# figure is one process's wall and CPU time and peak RSS.
#   bench/python.sh [DIR]     (run from the build tree after make; DIR keeps the bags)
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-bench}
window=${WINDOW:-10}
bag=$dir/bench-none.bag
mkdir -p "$dir"
[ -f "$bag" ] || { make -s bench/mkbag >/dev/null; bench/mkbag -d "$(dirname "$0")/defs" -c none "$bag"; }
venv=$dir/python-venv
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
BAGSCOPE_BUILDDIR=$(pwd) "$venv/bin/pip" install --quiet --no-build-isolation --no-index --no-deps --force-reinstall \
	"$(dirname "$0")/../python"
run() {   # NAME: one measurement in its own process
	"$venv/bin/python" - "$bag" "$window" "$1" <<'PY'
import resource, sys, time
bag_path, window, what = sys.argv[1], float(sys.argv[2]), sys.argv[3]
import bagscope
with bagscope.open(bag_path) as b:
    s, e = b.start_ns, b.end_ns
lo, hi = (s, s + int((e - s) * window / 100)) if what.endswith('window') else (None, None)
t0, c0 = time.time(), time.process_time()
n = 0
if what.startswith('read'):
    with bagscope.open(bag_path) as b:
        cols = b.read(['/imu/data.linear_acceleration.x', 'header.stamp'], start=lo, end=hi)
    n = len(cols['time_ns'])
elif what.startswith('rosread'):
    import rosbag
    xs, ts = [], []
    with rosbag.Bag(bag_path) as b:
        for _, m, t in b.read_messages(topics=['/imu/data'], start_time=None if lo is None else
                                       __import__('rospy').Time(nsecs=lo), end_time=None if hi is None else
                                       __import__('rospy').Time(nsecs=hi)):
            xs.append(m.linear_acceleration.x)
            ts.append(m.header.stamp.to_nsec())
    n = len(xs)
elif what.startswith('iter'):
    with bagscope.open(bag_path) as b:
        for m in b.messages(start=lo, end=hi):
            n += 1
elif what.startswith('rositer'):
    import rosbag, rospy
    with rosbag.Bag(bag_path) as b:
        for _ in b.read_messages(start_time=None if lo is None else rospy.Time(nsecs=lo),
                                 end_time=None if hi is None else rospy.Time(nsecs=hi)):
            n += 1
wall, cpu = time.time() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print('%-16s %9d msgs  wall %7.2f s  CPU %7.2f s  %6.0f ns/msg CPU  peak %5d MB' % (what, n, wall, cpu,
      cpu / max(n, 1) * 1e9, peak))
PY
}
echo "== $bag, window $window %"
for w in read_all read_window rosread_window iter_all iter_window rositer_window; do run $w; done | tee "$dir/.python-bench"
awk '{ ns[$1] = $10 } END {
	printf "read():  %.0f x python3-rosbag per message (CPU)\n", ns["rosread_window"] / ns["read_window"]
	printf "iterate: %.1f x python3-rosbag per message (CPU)\n", ns["rositer_window"] / ns["iter_window"] }' "$dir/.python-bench"
