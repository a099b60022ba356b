#!/bin/sh
# Throughput of `bagscope cat` against `rostopic echo -b` on the same bags.
#   bench/cat.sh [MESSAGES]      (default 1000000; run from the build tree)
# Prints messages/s and MB/s (of message payload) for each.
set -e
n=${1:-1000000}
dir=${TMPDIR:-/tmp}
bin=src/bagscope
make -s bench/bench >/dev/null
bench/bench -n "$n" -o "$dir" -b "$bin" -k > /dev/null
bag="$dir/bagscope-bench-$n-none.bag"
payload=$(( n * 8 ))
rate() {    # label, seconds, messages, payload bytes
	awk -v l="$1" -v t="$2" -v m="$3" -v b="$4" \
		'BEGIN { printf "%-34s %7.3f s  %10.0f msg/s  %7.2f MB/s\n", l, t, m / t, b / t / 1e6 }'
}
timed() {   # command...; prints seconds
	s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
}
echo "bag: $bag ($n std_msgs/Int64 messages on 10 topics)"
rate "bagscope cat --format json" "$(timed $bin cat --format json "$bag")" "$n" "$payload"
rate "bagscope cat --format yaml" "$(timed $bin cat --format yaml "$bag")" "$n" "$payload"
one=$($bin info --json "$bag" | python3 -c 'import json,sys; print([t["messages"] for t in json.load(sys.stdin)["topics"] if t["topic"]=="/sensor_0"][0])')
rate "bagscope cat --topic /sensor_0" "$(timed $bin cat --topic /sensor_0 "$bag")" "$one" "$((one * 8))"
if command -v rostopic >/dev/null 2>&1; then
	rate "rostopic echo -b BAG /sensor_0" "$(timed rostopic echo -b "$bag" /sensor_0)" "$one" "$((one * 8))"
fi
real=tests/data/fixtures/foreign/rosbag.js/example.bag
rate "bagscope cat example.bag (yaml)" "$(timed $bin cat "$real")" 8647 868400
if command -v rostopic >/dev/null 2>&1; then
	rate "rostopic echo -b example.bag /tf" "$(timed rostopic echo -b "$real" /tf)" 2688 868400
	rate "bagscope cat --topic /tf example.bag" "$(timed $bin cat --topic /tf "$real")" 2688 868400
fi
rm -f "$bag"
