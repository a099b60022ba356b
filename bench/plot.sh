#!/bin/sh
# Plot speed, on the 4M-message bench bags (1.33 M sensor_msgs/Imu):
#   - `bagscope plot --csv /imu/data.linear_acceleration.x` over the bags
#     written uncompressed, with lz4 and with bz2, against the C++ rosbag
#     library reading every message of the same bag (`cpp_rosbag read`);
#   - zooming in the browser: the plot pane opened on the uncompressed bag
#     at 160x45, reduced, then + and - pressed; each key's time (handling and
#     drawing) as the browser reports it (BAGSCOPE_TIMING);
#   - showing one 640x480 camera frame at 160x45 cells (bench/bench-image).
# Each figure is the median of RUNS (default 1: the machine is shared).
#   bench/plot.sh [DIR]     (run from the build tree; DIR holds bench-{none,lz4,bz2}.bag
#                            and cpp_rosbag, default /work/benchdata)
set -e
dir=${1:-/work/benchdata}
runs=${RUNS:-1}
bin=$(pwd)/src/bagscope
cpp=${CPP_ROSBAG:-$dir/cpp_rosbag}
path=/imu/data.linear_acceleration.x
[ -x "$cpp" ] || { echo "(no $cpp: C++ figures left out)"; cpp=; }

# median seconds of RUNS runs of a command (output to /dev/null)
secs() {
	i=0; : > "$dir/.plot-times"
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f "%e %M" -a -o "$dir/.plot-times" "$@" > /dev/null
		i=$((i + 1))
	done
	sort -n "$dir/.plot-times" | awk '{ t[NR] = $1; m = $2 > m ? $2 : m } END { printf "%.2f s %d MB", t[int((NR + 1) / 2)], m / 1024 }'
	rm -f "$dir/.plot-times"
}

echo "== plot --csv $path"
for c in none lz4 bz2; do
	bag=$dir/bench-$c.bag
	[ -f "$bag" ] || { echo "  (no $bag)"; continue; }
	ours=$(secs "$bin" plot --csv "$path" "$bag")
	theirs=-
	[ -n "$cpp" ] && theirs=$(secs "$cpp" read "$bag")
	echo "  $c: bagscope $ours;  C++ read-all $theirs" | awk '{ print } $4 + 0 > 0 && $8 + 0 > 0 { printf "     ratio %.2f\n", $3 / $8 }'
done

echo "== browser zoom (160x45, bench-none)"
if command -v tmux > /dev/null && [ -f "$dir/bench-none.bag" ]; then
	sock=bagscope-plotbench-$$
	T="tmux -L $sock"
	log=$dir/.plot-timing
	trap '$T kill-server 2>/dev/null || true' EXIT
	$T -f /dev/null new-session -d -s b -x 160 -y 45 \
		"env TERM=xterm-256color LC_ALL=C.UTF-8 BAGSCOPE_TIMING='$log' '$bin' '$dir/bench-none.bag'"
	wait_screen() { i=0; while [ $i -lt 1200 ] && ! $T capture-pane -p -t b | grep -Eq -- "$1"; do i=$((i + 1)); sleep 0.05; done; }
	wait_screen "row 1/"
	$T send-keys -t b p; $T send-keys -t b -l "$path"; $T send-keys -t b Enter
	start=$(date +%s.%N)
	wait_screen "1333333 samples"
	echo "  reduced in the background in $(echo "$(date +%s.%N) - $start" | bc | cut -c1-5) s (polled)"
	for k in + + + + + + - - - + + } } { -; do $T send-keys -t b "$k"; sleep 0.2; done
	$T send-keys -t b q; sleep 0.3
	awk '/^key (\+|-|\{|\})/ { n++; s += $3; if ($3 > m) m = $3 }
	     END { if (n) printf "  zoom/pan keys: mean %.2f ms, max %.2f ms (%d keys)\n", s / n, m, n }' "$log"
	rm -f "$log"
else
	echo "  (needs tmux and bench-none.bag)"
fi

echo "== one camera frame"
make -s bench/bench-image > /dev/null
bench/bench-image 20
