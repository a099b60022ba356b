#!/bin/sh
# Run the unit tests, the fuzz replays and the CLI on every fixture under
# valgrind: any memory error or definite/indirect leak fails the run.
# Usage (from the build tree): tests/run-valgrind.sh   or   make check-valgrind
# Environment: BUILDDIR (default .), SRCDIR (default the script's parent).
BUILDDIR=${BUILDDIR:-.}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
LIBTOOL="$BUILDDIR/libtool"
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect --track-origins=yes"
fails=0
runs=0

vg() {
	runs=$((runs + 1))
	log=$(mktemp)
	"$LIBTOOL" --mode=execute $VG "$@" >/dev/null 2>"$log"
	rc=$?
	if [ $rc -eq 99 ] || grep -q "^==[0-9]*== " "$log"; then
		echo "FAIL valgrind: $*"
		grep "^==[0-9]*==" "$log" | head -n 40
		fails=$((fails + 1))
	fi
	rm -f "$log"
}

for t in "$BUILDDIR"/tests/unit/test-*; do
	case "$t" in *.o|*.c|*.h|*.log|*.trs) continue ;; esac
	[ -x "$t" ] && vg "$t"
done
for t in header open msgdef decode expr; do
	[ -x "$BUILDDIR/tests/fuzz/replay-$t" ] && vg "$BUILDDIR/tests/fuzz/replay-$t"
done
B="$BUILDDIR/src/bagscope"
for f in "$SRCDIR"/tests/data/fixtures/bags/*.bag "$SRCDIR"/tests/data/fixtures/broken/*.bag \
         "$SRCDIR"/tests/data/fixtures/foreign/rosbag.js/*.bag; do
	case "$f" in *large_lz4*|*/example*.bag) quick=1 ;; *) quick=0 ;; esac
	vg "$B" info "$f"
	vg "$B" info --json --freq "$f"
	vg "$B" check "$f"
	vg "$B" cat --format json -n 50 "$f"
	[ $quick -eq 0 ] && vg "$B" cat --format yaml "$f"
done
echo "valgrind: $runs runs, $fails failed"
[ $fails -eq 0 ]
