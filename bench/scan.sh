#!/bin/sh
# Whole-bag passes (the scan engine) against the C++ rosbag library, on the
# 4M-message bench bags of real ROS types (bench/mkbag: none, lz4, bz2):
#   - decode every message: `bagscope check` (records, chunks, index, every
#     message decoded) and `bagscope cat --format json > /dev/null`, against
#     `cpp_rosbag read` (a rosbag::View copying every message's bytes out);
#   - a filter on one float field of the 1.33 M /imu/data messages
#     (`cat --topic /imu/data --filter 'linear_acceleration.x > 0.5' --count`),
#     against `rosbag filter` with the same test (timed on a 1 % bag and scaled,
#     since it needs tens of minutes on the full one);
#   - `stats` (index pass, and with the header scan).
# Runs are alternated (ours, C++, ours, C++ ...) since the machine is noisy;
# each figure is the median of RUNS (default 3). Peak memory from /usr/bin/time.
#   bench/scan.sh [DIR]        (run from the build tree; DIR keeps the bags)
# Needs ../shared/bench/cpp_rosbag.cpp built as its README says, found as
# $CPP_ROSBAG or DIR/cpp_rosbag (built here if g++ and the library are there).
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-bench}
runs=${RUNS:-3}
bin=$(pwd)/src/bagscope
mkdir -p "$dir"
make -s bench/mkbag >/dev/null
. "$(dirname "$0")/yardstick.sh"
for c in none lz4 bz2; do
	[ -f "$dir/bench-$c.bag" ] || bench/mkbag -d "$(dirname "$0")/defs" -c $c "$dir/bench-$c.bag"
done

# time_of CMD...: "seconds peak_kB" of one run, output to /dev/null
time_of() {
	/usr/bin/time -f "%e %M" -o "$dir/.time" "$@" >/dev/null 2>"$dir/.err" || {
		cat "$dir/.err" >&2; echo "failed: $*" >&2; exit 1; }
	cat "$dir/.time"
}
# median of the first fields of stdin lines; prints "median_s peak_kB"
median() { sort -n | awk '{ t[NR] = $1; m = $2 > m ? $2 : m } END { printf "%.3f %d", t[int((NR + 1) / 2)], m }'; }

compare() {   # label, bag, our command...
	label=$1 bag=$2
	shift 2
	: > "$dir/.ours"
	: > "$dir/.cpp"
	i=0
	while [ $i -lt "$runs" ]; do
		time_of "$@" >> "$dir/.ours"
		[ -n "$cpp" ] && time_of "$cpp" read "$bag" >> "$dir/.cpp"
		i=$((i + 1))
	done
	ours=$(median < "$dir/.ours")
	if [ -n "$cpp" ]; then
		theirs=$(median < "$dir/.cpp")
		echo "$label $ours $theirs" | awk '{ printf "  %-34s %7.3f s %6d MB   C++ read %7.3f s %4d MB   ratio %.2f\n",
			$1, $2, $3 / 1024, $4, $5 / 1024, $2 / $4 }'
	else
		echo "$label $ours" | awk '{ printf "  %-34s %7.3f s %6d MB\n", $1, $2, $3 / 1024 }'
	fi
}

for c in none lz4 bz2; do
	bag="$dir/bench-$c.bag"
	echo "== $c: $(du -hL "$bag" | cut -f1), 4,000,000 messages"
	compare check "$bag" "$bin" check "$bag"
	compare cat-json "$bag" "$bin" cat --format json "$bag"
done

bag="$dir/bench-none.bag"
expr='linear_acceleration.x > 0.5'
echo "== filter on /imu/data (1.33 M messages): $expr"
: > "$dir/.ours"
i=0
while [ $i -lt "$runs" ]; do
	time_of "$bin" cat --topic /imu/data --filter "$expr" --count "$bag" >> "$dir/.ours"
	i=$((i + 1))
done
ours=$(median < "$dir/.ours")
echo "  bagscope cat --filter --count       $(echo "$ours" | awk '{ printf "%.3f s %d MB", $1, $2 / 1024 }')   ($("$bin" cat --topic /imu/data --filter "$expr" --count "$bag") match)"
if command -v rosbag >/dev/null 2>&1; then
	small="$dir/bench-small.bag"
	[ -f "$small" ] || bench/mkbag -d "$(dirname "$0")/defs" -n 40000 "$small"
	rm -f "$dir/filtered.bag"
	t=$(time_of rosbag filter "$small" "$dir/filtered.bag" "topic == '/imu/data' and m.linear_acceleration.x > 0.5" | cut -d' ' -f1)
	echo "$t $ours" | awk '{ full = $1 * 100; printf "  rosbag filter, 1 %% bag (40,000)    %.3f s; scaled to the full bag %.0f s: %.0f x slower\n", $1, full, full / $2 }'
fi

echo "== stats"
compare "stats --index" "$bag" "$bin" stats --index "$bag"
compare "stats" "$bag" "$bin" stats "$bag"
