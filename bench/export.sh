#!/bin/sh
# `bagscope export` against the C++ rosbag library copying every message of
# a rosbag::View into a new bag (../shared/bench/cpp_rosbag.cpp copy, which
# keeps the input's compression), on the 4M-message bench bags (bench/mkbag):
#   - the whole lz4 bag to lz4            (issue 12: <= 0.25 x the C++ time)
#   - the whole bz2 bag to bz2            (<= 0.5 x, both cores)
#   - a 10 % time window of the uncompressed bag, uncompressed (<= 0.3 s)
# with peak memory from /usr/bin/time (bounded by the chunk size and the
# pools, not by the bag). Runs alternate (ours, C++, ...); each figure is
# the median of RUNS (default 3). Outputs go to DIR and are removed.
#   bench/export.sh [DIR]     (run from the build tree; DIR keeps the bags)
# The C++ yardstick is $CPP_ROSBAG or DIR/cpp_rosbag, built as bench/scan.sh
# builds it; the bags are DIR/bench-{none,lz4,bz2}.bag, made by bench/mkbag
# when missing.
set -e
dir=${1:-${TMPDIR:-/tmp}/bagscope-bench}
runs=${RUNS:-3}
bin=$(pwd)/src/bagscope
# the program itself, not libtool's wrapper script (its fork and exec of sed
# would weigh on a 0.3 s figure)
if [ -x "$(pwd)/src/.libs/bagscope" ]; then
	bin=$(pwd)/src/.libs/bagscope
	LD_LIBRARY_PATH=$(pwd)/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
mkdir -p "$dir"
. "$(dirname "$0")/yardstick.sh"
for c in none lz4 bz2; do
	if [ ! -f "$dir/bench-$c.bag" ]; then
		make -s bench/mkbag >/dev/null
		bench/mkbag -d "$(dirname "$0")/defs" -c $c "$dir/bench-$c.bag"
	fi
done
out=$dir/export-out
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

# time_of OUTFILE CMD...: "seconds peak_kB" of one run; OUTFILE removed before and after
time_of() {
	o=$1
	shift
	rm -f "$o"
	/usr/bin/time -f "%e %M" -o "$dir/.time" "$@" >/dev/null 2>"$dir/.err" || {
		cat "$dir/.err" >&2; echo "failed: $*" >&2; exit 1; }
	rm -f "$o"
	cat "$dir/.time"
}
# median of the first fields of stdin lines; prints "median_s peak_kB"
median() { sort -n | awk '{ t[NR] = $1; m = $2 > m ? $2 : m } END { printf "%.3f %d", t[int((NR + 1) / 2)], m }'; }

# compare LABEL BAG CPP_OUT_NAME OUR_ARGS...: ours and cpp_rosbag copy, alternating
compare() {
	label=$1 bag=$2 cname=$3
	shift 3
	: > "$dir/.ours"
	: > "$dir/.cpp"
	i=0
	while [ $i -lt "$runs" ]; do
		time_of "$out/ours.bag" "$bin" export "$@" -o "$out/ours.bag" "$bag" >> "$dir/.ours"
		[ -n "$cpp" ] && time_of "$out/$cname" "$cpp" copy "$bag" "$out/$cname" >> "$dir/.cpp"
		i=$((i + 1))
	done
	ours=$(median < "$dir/.ours")
	if [ -n "$cpp" ]; then
		theirs=$(median < "$dir/.cpp")
		echo "$label $ours $theirs" | awk '{ printf "  %-26s %7.3f s %5d MB   C++ copy %7.3f s %4d MB   ratio %.2f\n",
			$1, $2, $3 / 1024, $4, $5 / 1024, $2 / $4 }'
	else
		echo "$label $ours" | awk '{ printf "  %-26s %7.3f s %5d MB\n", $1, $2, $3 / 1024 }'
	fi
}

echo "== whole bag, same compression (4,000,000 messages)"
compare lz4-to-lz4 "$dir/bench-lz4.bag" copy-lz4.bag --compression lz4
compare bz2-to-bz2 "$dir/bench-bz2.bag" copy-bz2.bag --compression bz2

echo "== 10 % time window of the uncompressed bag, uncompressed"
bag=$dir/bench-none.bag
: > "$dir/.ours"
i=0
while [ $i -lt "$runs" ]; do
	time_of "$out/win.bag" "$bin" export --start 50% --end 60% --compression none -o "$out/win.bag" "$bag" >> "$dir/.ours"
	i=$((i + 1))
done
"$bin" export --start 50% --end 60% --compression none -o "$out/win.bag" "$bag"
n=$("$bin" cat --count "$out/win.bag")
echo "window $(median < "$dir/.ours") $n" | awk '{ printf "  %-26s %7.3f s %5d MB   (%d messages)\n", $1, $2, $3 / 1024, $4 }'
