#!/bin/sh
# Run the unit tests, the fuzz replays and every subcommand on every fixture
# (tests/cli/every-fixture.sh --list) under valgrind: any memory error or definite/indirect leak fails the run.
# Usage (from the build tree): tests/tools/run-valgrind.sh   or   make check-valgrind
# Environment: BUILDDIR (default .), SRCDIR (default the script's parent).
BUILDDIR=${BUILDDIR:-.}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
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
for t in header open msgdef decode expr media; do
	[ -x "$BUILDDIR/tests/fuzz/replay-$t" ] && vg "$BUILDDIR/tests/fuzz/replay-$t"
done
B="$BUILDDIR/src/bagscope"
# every subcommand over every fixture: the list tests/cli/every-fixture.sh runs
list=$(mktemp)
BAGSCOPE=$B sh "$SRCDIR/tests/cli/every-fixture.sh" --list > "$list"
while read -r line; do
	# shellcheck disable=SC2086
	vg "$B" $line
done < "$list"
rm -f "$list"
# the browser over the images fixture: every picture, damaged frame and point cloud drawn
runs=$((runs + 1))
LIBTOOL="$LIBTOOL" BAGSCOPE="$B" sh "$SRCDIR/tests/tui/valgrind-images.sh" > /tmp/vg-images.$$ 2>&1
case $? in
0|77) ;;
*) echo "FAIL valgrind: the browser over images.bag"; grep -v '^ok' /tmp/vg-images.$$ | head -n 60; fails=$((fails + 1)) ;;
esac
rm -f /tmp/vg-images.$$
echo "valgrind: $runs runs, $fails failed"
[ $fails -eq 0 ]
