#!/bin/sh
# Run every test program under valgrind's memcheck - the unit tests, the C++
# link test, the fuzz replays - and the CLI: each subcommand over every
# fixture (tests/cli/every-fixture.sh --list; csv on the first topic of each
# bag, where every-fixture.sh, under ASan, takes each topic). Any memory
# error or definite/indirect leak fails the run.
# The runs go JOBS (default: the cores) at a time, each program started
# directly (its libtool wrapper resolved once). memcheck finds the same
# errors without --track-origins=yes at half the cost; a failing run is run
# again with it, so that its report says where an uninitialised value came from.
# Usage (from the build tree): tests/tools/run-valgrind.sh   or   make check-valgrind
# Environment: BUILDDIR (default .), SRCDIR (default the script's parent), JOBS.
BUILDDIR=${BUILDDIR:-.}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect"

# --one PROGRAM ARGS...: one run; prints nothing, or 'FAIL valgrind: ...' and the report
if [ "${1:-}" = --one ]; then
	shift
	log=$(mktemp)
	$VG "$@" >/dev/null 2>"$log"
	rc=$?
	if [ $rc -eq 99 ] || grep -q "^==[0-9]*== " "$log"; then
		$VG --track-origins=yes "$@" >/dev/null 2>"$log"
		{ echo "FAIL valgrind: $*"; grep "^==[0-9]*==" "$log" | head -n 40; } > "$log.report"
		cat "$log.report"
		rm -f "$log.report"
	fi
	rm -f "$log"
	exit 0
fi

# real PROGRAM: the binary behind a libtool wrapper; exports the library path it needs
real() {
	r=$("$BUILDDIR/libtool" --mode=execute sh -c 'echo "$LD_LIBRARY_PATH"; echo "$1"' sh "$1") || return 1
	LD_LIBRARY_PATH=$(echo "$r" | head -n 1)
	export LD_LIBRARY_PATH
	echo "$r" | tail -n 1
}

list=$(mktemp)
trap 'rm -f "$list" "$list.out"' EXIT
for t in "$BUILDDIR"/tests/unit/test-* "$BUILDDIR"/tests/unit/cxx-link "$BUILDDIR"/tests/fuzz/replay-*; do
	case "$t" in *.o|*.c|*.cpp|*.h|*.log|*.trs) continue ;; esac
	[ -x "$t" ] && real "$t" >> "$list"
done
real "$BUILDDIR/src/bagscope" > "$list.b" && B=$(cat "$list.b") && rm -f "$list.b"
BAGSCOPE=$B sh "$SRCDIR/tests/cli/every-fixture.sh" --list | awk -v b="$B" '
	$1 == "cat" && $3 == "csv" { if (csv[$NF]++) next }
	{ print b " " $0 }' >> "$list"
xargs -P "${JOBS:-$(nproc)}" -L 1 sh "$0" --one < "$list" > "$list.out"
cat "$list.out"
runs=$(wc -l < "$list")
fails=$(grep -c '^FAIL valgrind' "$list.out")
# the browser over the images fixture (every picture, damaged frame and point cloud drawn): a
# screen test of its own, beside the runs above
runs=$((runs + 1))
LIBTOOL="$BUILDDIR/libtool" BAGSCOPE="$BUILDDIR/src/bagscope" sh "$SRCDIR/tests/tui/valgrind-images.sh" > "$list.img" 2>&1
case $? in
0|77) ;;
*) echo "FAIL valgrind: the browser over images.bag"; grep -v '^ok' "$list.img" | head -n 60; fails=$((fails + 1)) ;;
esac
rm -f "$list.img"
echo "valgrind: $runs runs, $fails failed"
[ "$fails" -eq 0 ]
