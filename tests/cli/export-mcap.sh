#!/bin/sh
# `bagscope export --format mcap` read back by an independent MCAP reader:
# the TypeScript @mcap/core (with lz4js for lz4 chunks), installed with npm
# at the first run (tests/tools/node-setup.sh). mcap-check.cjs checks
# the file's structure and CRCs and compares every message and connection
# with rosbag's Python reader's view of the same selection (bag-dump.py):
# the inputs themselves, or for a selection the bag export of the same
# arguments (which export.sh checks against the inputs).
# Skipped (77) without node and npm, without network for the first install,
# or without the ROS tools.
# Environment: BAGSCOPE, SRCDIR, BUILDDIR.
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
B=${BAGSCOPE:-src/bagscope}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILDDIR=${BUILDDIR:-.}
D=$SRCDIR/tests/data/fixtures
command -v rosbag >/dev/null 2>&1 && $PY "$SRCDIR/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "ROS tools not installed: skipped"; exit 77; }
. "$SRCDIR/tests/tools/node-setup.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$T/err" | head -8; }

# mcap NAME COMPRESSION "ARGS" IN...: export to MCAP, to be checked against
# the inputs (no ARGS) or against the bag export with the same ARGS; the
# dumps and the checks of every case run at the end, each tool once (check_all)
k=0
mcap() {
	name=$1 comp=$2 args=$3
	shift 3
	k=$((k + 1))
	out=$T/out-$k
	# shellcheck disable=SC2086
	if ! "$B" export --format mcap $args -o "$out.mcap" "$@" 2>"$T/err"; then bad "$name: export"; return; fi
	if [ -n "$args" ]; then
		# shellcheck disable=SC2086
		"$B" export $args -o "$out.bag" "$@" 2>"$T/err" || { bad "$name: bag export"; return; }
		set -- "$out.bag"
	fi
	(IFS=$(printf '\t'); echo "$out.jsonl	$*") >> "$T/dumps"
	printf '%s\t%s\t%s\t%s\n' "$name" "$out.mcap" "$out.jsonl" "$comp" >> "$T/checks"
}
check_all() {
	$PY "$SRCDIR/tests/tools/bag-dump.py" --batch "$T/dumps" 2>"$T/err" || { bad "bag-dump.py"; return; }
	node "$SRCDIR/tests/tools/mcap-check.cjs" --batch "$T/checks" > "$T/checks.out" 2>&1
	cat "$T/checks.out"
	passed=$((passed + $(grep -c '^ok' "$T/checks.out")))
	failed=$((failed + $(grep -c '^FAIL' "$T/checks.out")))
	[ "$(grep -c '^ok\|^FAIL' "$T/checks.out")" -eq "$(wc -l < "$T/checks")" ] || { cp "$T/checks.out" "$T/err"; bad "mcap-check.cjs --batch"; }
}

for f in "$D"/bags/*.bag "$D"/made/freq_times.bag; do
	n=$(basename "$f" .bag)
	mcap "$n, lz4" lz4 "--compression lz4" "$f"
	mcap "$n, none" none "--compression none" "$f"
done
mcap "bz2 input: lz4 by default" lz4 "" "$D/bags/nested_bz2.bag"
mcap "none input: none by default" none "" "$D/bags/basic_none.bag"
mcap "three inputs merged" lz4 "" "$D/bags/basic_none.bag" "$D/bags/nested_bz2.bag" "$D/bags/tf_lz4.bag"
mcap "small chunks" lz4 "--chunk-size 1K --compression lz4" "$D/bags/nested_bz2.bag" "$D/bags/tf_lz4.bag"
mcap "window and topics" none "--start 1500000001.000000100 --end 1500000005.000000500 --topic /greeting --type std_msgs/Float64" "$D/bags/basic_none.bag"
mcap "filter" none "--filter data>3 --topic /counter" "$D/bags/basic_none.bag"
"$BUILDDIR"/tests/tools/write-sample "$T/sample.bag" bz2 || exit 1
mcap "--keep-latched" lz4 "--keep-latched --start 1500000003" "$T/sample.bag"
check_all
"$B" export --format mcap --compression bz2 -o "$T/bz2.mcap" "$D/bags/basic_none.bag" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/bz2.mcap" ] && ok "bz2 refused for MCAP (exit 2)" || bad "bz2 for MCAP: exit $rc"

echo "export-mcap: $passed passed, $failed failed"
[ $failed -eq 0 ]
