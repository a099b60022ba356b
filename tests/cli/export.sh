#!/bin/sh
# `bagscope export` checked with the real ROS tools: every exported bag must
# pass `rosbag info`, and rosbag's Python reader must find in it exactly the
# input's selection - topic, time, bytes and whole connection header of
# every message, only the connections that carry them (export-check.py) -
# for every fixture, all three compressions, several inputs merged, topics
# and types (their union), an inclusive time window, a filter,
# --keep-latched, small chunks, and damaged inputs (against a `rosbag
# reindex` of a copy). Then the library's append mode (write-tool append,
# closed and crashed), and the safety cases: an existing OUT, OUT naming an
# input (also through links), a full disk (ulimit -f) and an interrupt
# leave no partial OUT.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR. Skipped (77) without the ROS tools.
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
D=$SRCDIR/tests/data/fixtures
CHECK="$PY $SRCDIR/tests/tools/export-check.py"
TOOL=$BUILDDIR/tests/tools/write-tool
command -v rosbag >/dev/null 2>&1 && $PY "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null ||
	{ echo "ROS tools not installed: skipped"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; [ -f "$T/err" ] && sed 's/^/      /' "$T/err" | head -5; }

# q WORD...: the words quoted for a line of the batch file (shlex)
q() { for w in "$@"; do printf "'%s' " "$(printf '%s' "$w" | sed "s/'/'\\\\''/g")"; done; }

# roundtrip NAME "EXPORT ARGS" "CHECK ARGS" IN...: export to a bag of its own;
# `rosbag info` of it and the comparison are a line of the batch that
# export-check.py runs in one process (check_batch, below)
k=0
roundtrip() {
	name=$1 eargs=$2 cargs=$3
	shift 3
	k=$((k + 1))
	out=$T/out-$k.bag
	# shellcheck disable=SC2086
	if ! "$B" export $eargs -o "$out" "$@" 2>"$T/err"; then bad "$name: export failed"; return; fi
	# shellcheck disable=SC2086
	{ q "$name" "$out" "$@" $cargs; echo --info; } >> "$T/batch"
}
# info_of NAME CHECK ARGS...: a line of the batch that only checks what rosbag info says of the last OUT
info_of() { name=$1; shift; { q "$name" "$out" "$@"; echo --only-info; } >> "$T/batch"; }
# check_batch: run the batch; its ok and FAIL lines count here
check_batch() {
	$CHECK --batch "$T/batch" > "$T/batch.out" 2>&1
	cat "$T/batch.out"
	passed=$((passed + $(grep -c '^ok' "$T/batch.out")))
	failed=$((failed + $(grep -c '^FAIL' "$T/batch.out")))
	[ -s "$T/batch.out" ] || bad "export-check.py --batch: no output"
	rm -f "$T/batch"
}

for f in "$D"/bags/*.bag "$D"/made/freq_times.bag; do
	n=$(basename "$f" .bag)
	roundtrip "whole $n" "" "" "$f"
	case $n in
	empty*) ;;
	*) info_of "$n keeps its compression" --compression-of "$f" ;;
	esac
done
for c in none bz2 lz4; do
	roundtrip "nested_bz2 to $c" "--compression $c" "" "$D/bags/nested_bz2.bag"
	info_of "nested_bz2 to $c: rosbag info says $c" --compression $c
done
roundtrip "three inputs merged" "" "" "$D/bags/basic_none.bag" "$D/bags/nested_bz2.bag" "$D/bags/tf_lz4.bag"
roundtrip "merged, lz4" "--compression lz4" "" "$D/made/freq_times.bag" "$D/bags/basic_none.bag"
roundtrip "topic and type (union)" "--topic /greeting --topic /tf --type std_msgs/Float64" \
	"--topic /greeting --topic /tf --type std_msgs/Float64" "$D/bags/basic_none.bag" "$D/bags/tf_lz4.bag"
roundtrip "time window, inclusive to the ns" "--start 1500000001.000000100 --end 1500000005.000000500" \
	"--start 1500000001000000100 --end 1500000005000000500" "$D/bags/basic_none.bag"
roundtrip "window one ns inside" "--start 1500000001.000000101 --end 1500000005.000000499" \
	"--start 1500000001000000101 --end 1500000005000000499" "$D/bags/basic_none.bag"
roundtrip "filter" "--topic /counter --filter data>3" "--topic /counter --py-filter m.data>3" "$D/bags/basic_none.bag"
roundtrip "filter on a nested field, two bags" "--filter header.frame_id==\"map\"" \
	"--py-filter hasattr(m,'header')and(m.header.frame_id=='map')" "$D/bags/nested_bz2.bag" "$D/bags/tf_lz4.bag"
roundtrip "small chunks" "--chunk-size 1K --compression bz2" "" "$D/bags/basic_none.bag" "$D/bags/nested_bz2.bag"
info_of "small chunks: many chunks" --compression bz2 --min-chunks 6

# --keep-latched: write-sample's latched /point (every tenth message, 2 s early)
"$BUILDDIR"/tests/tools/write-sample "$T/sample.bag" lz4 || exit 1
roundtrip "window without --keep-latched" "--start 1500000003 --end 1500000004" \
	"--start 1500000003000000000 --end 1500000004000000000" "$T/sample.bag"
roundtrip "--keep-latched" "--keep-latched --start 1500000003 --end 1500000004" \
	"--keep-latched --start 1500000003000000000 --end 1500000004000000000" "$T/sample.bag"
roundtrip "--keep-latched ignores the filter" "--keep-latched --start 1500000003 --filter data>5" \
	"--keep-latched --start 1500000003000000000 --py-filter m._type=='std_msgs/Int64'and(m.data>5)" "$T/sample.bag"
check_batch

# the checks below that read with rosbag are lines of a second batch, run at the end
# batch NAME ARGS...: a line of it
batch() { { q "$@"; echo; } >> "$T/batch"; }

# damaged inputs: a clean bag with what recovery finds, a superset of rosbag reindex's
# (one `rosbag reindex` run over copies of both)
mkdir -p "$T/ri-in" "$T/ri"
for f in crashed_none truncated_bz2; do cp "$D/broken/$f.bag" "$T/ri-in/$f.bag"; done
$PY "$(command -v rosbag)" reindex --output-dir="$T/ri" "$T/ri-in/crashed_none.bag" "$T/ri-in/truncated_bz2.bag" >/dev/null 2>&1
for f in crashed_none truncated_bz2; do
	cp "$D/broken/$f.bag" "$T/$f.bag"
	"$B" export -o "$T/out-$f.bag" "$T/$f.bag" 2>"$T/err"
	rc=$?
	want=$(sed -n 's/.*read without its index: \([0-9]*\) messages recovered.*/\1/p' "$T/err")
	lost=$(grep -c "lost" "$T/err")
	if { [ "$lost" -eq 0 ] && [ $rc -eq 0 ]; } || { [ "$lost" -gt 0 ] && [ $rc -eq 1 ]; }; then
		ok "repair $f: exit $rc ($lost lines on what was lost)"
	else
		bad "repair $f: exit $rc with $lost lines on losses"
	fi
	cmp -s "$D/broken/$f.bag" "$T/$f.bag" && ok "repair $f: input untouched" || bad "repair $f: input changed"
	batch "repair $f: rosbag info reads it" "$T/out-$f.bag" --info --only-info
	got=$("$B" cat --count "$T/out-$f.bag")
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "repair $f: $got messages, all that recovery found" ||
		bad "repair $f: $got messages, recovery found $want"
	batch "repair $f: holds every message rosbag reindex recovers" "$T/out-$f.bag" --superset-of "$T/ri/$f.bag"
done

# append: copies of every message (connections reused) and 500 new ones
cp "$D/bags/basic_none.bag" "$T/app.bag"
if "$TOOL" append "$T/app.bag" "$D/bags/basic_none.bag" 500 2>"$T/err"; then
	batch "append: rosbag info reads it" "$T/app.bag" --info --only-info
	batch "append: old messages, copies on the same connections, 500 new" "$T/app.bag" \
		--appended-to "$D/bags/basic_none.bag" --appended 500
else
	bad "append failed"
fi
# a crash during append: recovery reads the old messages and the chunks written since
cp "$D/bags/basic_none.bag" "$T/crash.bag"
"$TOOL" append "$T/crash.bag" "$D/bags/basic_none.bag" 30000 crash 2>"$T/err"
[ $? -eq 3 ] || bad "crash append did not run"
batch "crashed append: unindexed, as rosbag sees it" "$T/crash.bag" --info-fails
n=$("$B" cat --count "$T/crash.bag" 2>/dev/null)
[ "${n:-0}" -gt 1000 ] && ok "crashed append: recovery reads $n messages" || bad "crashed append: recovery reads ${n:-none}"
rm -f "$T/out.bag"
"$B" export -o "$T/out.bag" "$T/crash.bag" 2>"$T/err"
if [ "$("$B" cat --count "$T/out.bag")" = "$n" ]; then
	batch "crashed append: export repairs it, old messages kept" "$T/out.bag" --superset-of "$D/bags/basic_none.bag"
else
	bad "crashed append: export"
fi

# safety: an existing OUT is refused, and replaced with --force
echo keep > "$T/exists.bag"
"$B" export -o "$T/exists.bag" "$D/bags/basic_none.bag" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$T/exists.bag")" = keep ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
	ok "existing OUT refused (exit 2, one line, untouched)" || bad "existing OUT: exit $rc"
"$B" export --force -o "$T/exists.bag" "$D/bags/basic_none.bag" 2>"$T/err" &&
	batch "--force replaces OUT" "$T/exists.bag" --info --only-info || bad "--force"
# OUT naming an input, directly, through a symlink and a hard link
cp "$D/bags/basic_none.bag" "$T/in.bag"
ln -s "$T/in.bag" "$T/sym.bag"
ln "$T/in.bag" "$T/hard.bag"
for o in in sym hard; do
	"$B" export --force -o "$T/$o.bag" "$T/in.bag" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && cmp -s "$T/in.bag" "$D/bags/basic_none.bag" && grep -q "input" "$T/err" &&
		ok "OUT = input ($o) refused, input untouched" || bad "OUT = input ($o): exit $rc"
done
# a full disk: exit 1, one line, nothing left (no OUT, no temporary file)
"$TOOL" big "$T/big.bag" 100000 1000 none || exit 1
mkdir "$T/full"
(ulimit -f 2000; "$B" export --compression none -o "$T/full/out.bag" "$T/big.bag" 2>"$T/err")
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ -z "$(ls "$T/full")" ] &&
	ok "full disk: exit 1, one line, nothing left" || bad "full disk: exit $rc, left: $(ls "$T/full")"
# an interrupt: the same
"$B" export --compression bz2 -o "$T/full/out.bag" "$T/big.bag" 2>"$T/err" &
pid=$!
i=0
while [ -z "$(ls "$T/full")" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q interrupted "$T/err" && [ -z "$(ls "$T/full")" ] &&
	ok "interrupt: exit 1, one line, nothing left" || bad "interrupt: exit $rc, left: $(ls "$T/full")"
# bad command lines
for args in "-o" "--compression zstd -o $T/x.bag $D/bags/basic_none.bag" "--format mcap --compression bz2 -o $T/x.bag $D/bags/basic_none.bag" \
	"--chunk-size 0 -o $T/x.bag $D/bags/basic_none.bag" "--filter data>> -o $T/x.bag $D/bags/basic_none.bag" "$D/bags/basic_none.bag"; do
	# shellcheck disable=SC2086
	"$B" export $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] && [ ! -e "$T/x.bag" ] && ok "bad command line: $args" || bad "bad command line ($args): exit $rc"
done

rm -f "$T/err"
check_batch

echo "export: $passed passed, $failed failed"
[ $failed -eq 0 ]
