#!/bin/sh
# The index-only timeline against the C++ rosbag open: `info --freq` (every
# topic's times in order from the index, then each topic's median rate)
# against `cpp_rosbag open` (Bag::open reading the whole index, plus a View),
# on the 4M-message bench bags (bench/mkbag: none, lz4). Runs alternate
# (ours, C++, ours, ...) RUNS times (default 5); CPU is user+sys, the figure
# that holds on a loaded machine; wall and peak RSS are printed too, and the
# peak per message.
#   bench/timeline.sh [DIR]        (run from the build tree; DIR keeps the bags)
# BIG=1 adds a 40M-message lz4 bag (bench/mkbag -n 40000000, 4.7 GB, made
# once in DIR): the ratio must hold at ten times the size.
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-bench}
runs=${RUNS:-5}
bin=$(pwd)/src/bagscope
mkdir -p "$dir"
make -s bench/mkbag >/dev/null
. "$(dirname "$0")/yardstick.sh"
[ -n "$cpp" ] || exit 1
sizes="none lz4"
[ -z "${BIG:-}" ] || sizes="$sizes 40m-lz4"
for c in none lz4; do
	[ -f "$dir/bench-$c.bag" ] || bench/mkbag -d "$(dirname "$0")/defs" -c $c "$dir/bench-$c.bag"
done
[ -z "${BIG:-}" ] || [ -f "$dir/bench-40m-lz4.bag" ] ||
	bench/mkbag -n 40000000 -d "$(dirname "$0")/defs" -c lz4 "$dir/bench-40m-lz4.bag"
# one run: "cpu_s wall_s peak_kB"
run() { /usr/bin/time -f "%U %S %e %M" -o "$dir/.t" "$@" >/dev/null 2>&1; awk '{ print $1 + $2, $3, $4 }' "$dir/.t"; }
med() { sort -n | awk '{ c[NR] = $1; w[NR] = $2; m = $3 > m ? $3 : m } END { i = int((NR + 1) / 2); print c[i], w[i], m }'; }
for c in $sizes; do
	bag="$dir/bench-$c.bag"
	n=$("$bin" info --json "$bag" | python3 -c 'import json, sys; print(json.load(sys.stdin)["messages"])')
	: > "$dir/.a"; : > "$dir/.b"
	i=0
	while [ $i -lt "$runs" ]; do
		run "$bin" info --freq "$bag" >> "$dir/.a"
		run "$cpp" open "$bag" >> "$dir/.b"
		i=$((i + 1))
	done
	a=$(med < "$dir/.a"); b=$(med < "$dir/.b")
	echo "$c $n $a $b" | awk '{ printf "== %s (%d messages)\n  info --freq     CPU %.3f s  wall %.3f s  peak %4d MB (%.1f B/message)\n  C++ rosbag open CPU %.3f s  wall %.3f s  peak %4d MB\n  ratio (CPU) %.3f x\n", $1, $2, $3, $4, $5 / 1024, $5 * 1024 / $2, $6, $7, $8 / 1024, $3 / $6 }'
done
