#!/bin/sh
# Run every test program under valgrind's memcheck - the unit tests, the C++
# link test, the fuzz replays - and the CLI: each subcommand over every
# fixture (tests/cli/every-fixture.sh --list, grouped into one process per
# command line below; csv on the first topic of each bag, where
# every-fixture.sh, under ASan, takes each topic); tf, log and diag on bags
# made by python3-rosbag (as tests/cli/tf.sh and log.sh make them); and the
# fixtures read as http:// URLs from Debian's nginx on 127.0.0.1 (grouped the
# same way). Any memory error or definite/indirect leak fails the run.
# The runs go JOBS (default: the cores) at a time, each program started
# directly (bagscope's libtool wrapper resolved once). memcheck finds the same
# errors without --track-origins=yes at half the cost, and without reading
# the inlined calls' debug info (0.2 s a start); a failing run is run again
# with both, so that its report says where an uninitialised value came from,
# through inlined functions.
# Usage (from the build tree): tests/tools/run-valgrind.sh   or   make check-valgrind
# Environment: BUILDDIR (default .), SRCDIR (default the script's parent), JOBS.
BUILDDIR=$(cd "${BUILDDIR:-.}" && pwd)
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found: skipped"; exit 77; }
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect"

# --one PROGRAM ARGS...: one run; prints nothing, or 'FAIL valgrind: ...' and the report
if [ "${1:-}" = --one ]; then
	shift
	log=$(mktemp)
	$VG --read-inline-info=no "$@" >/dev/null 2>"$log"
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

# The test programs are linked by the compiler alone, with the library's
# directory as their runpath (Makefile.am): each is the binary itself.
# bagscope, which is installed, is libtool's wrapper script in front of
# src/.libs/bagscope, run directly here: it finds the uninstalled library
# through LD_LIBRARY_PATH, as make check's TESTS_ENVIRONMENT runs it.
# (Asking libtool --mode=execute cost 70 ms of CPU a program.)
LD_LIBRARY_PATH=$BUILDDIR/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

list=$(mktemp)
trap 'rm -f "$list" "$list.out" "$list.fx"' EXIT
for t in "$BUILDDIR"/tests/unit/test-* "$BUILDDIR"/tests/unit/cxx-link "$BUILDDIR"/tests/fuzz/replay-*; do
	case "$t" in *.o|*.c|*.cpp|*.h|*.log|*.trs) continue ;; esac
	[ -x "$t" ] && echo "$t" >> "$list"
done
B=$BUILDDIR/src/.libs/bagscope
[ -x "$B" ] || B=$BUILDDIR/src/bagscope
# Each command line of every-fixture.sh's list runs once over many files in
# one process, since valgrind's start (about 0.5 s of CPU) costs more than
# a fixture's work: info, defs and check take each file on its own; the
# commands that merge their bags into one timeline (cat, tf, log, diag) take
# together the files that open, and each file that does not open alone.
# rosbag.js's example-bz2.bag and example-lz4.bag hold example.bag's 8,647
# messages: cat's yaml run reads all three (the decompressors), its json and
# hex runs example.bag alone (2 s of CPU each less).
BAGSCOPE=$B sh "$SRCDIR/tests/cli/every-fixture.sh" --list > "$list.fx"
bad=
for f in $(awk '{ print $NF }' "$list.fx" | sort -u); do
	"$B" info "$f" >/dev/null 2>&1 || bad="$bad $f"
done
awk -v b="$B" -v bad="$bad" '
	BEGIN { n = split(bad, f, " "); for (i = 1; i <= n; i++) broken[f[i]] = 1 }
	$1 == "cat" && $3 == "csv" { if (csv[$NF]++) next }
	$1 == "cat" && ($3 == "json" || $3 == "hex") && $NF ~ /\/example-(bz2|lz4)\.bag$/ { next }
	{
		file = $NF; $NF = ""; cmd = substr($0, 1, length($0) - 1)
		if ($1 != "info" && $1 != "defs" && $1 != "check" && (file in broken)) { print b " " cmd " " file; next }
		if (!(cmd in files)) order[++k] = cmd
		files[cmd] = files[cmd] " " file
	}
	END { for (i = 1; i <= k; i++) print b " " order[i] files[order[i]] }' "$list.fx" >> "$list"
rm -f "$list.fx"
PY=/usr/bin/python3   # Debian's, with python3-rosbag (not a python3 earlier on PATH)
# tf, log and diag where there are frames, /rosout and diagnostics to read
gen=$(mktemp -d) && chmod 755 "$gen"   # nginx workers run as another user
fails=0
if "$PY" "$SRCDIR/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg rosgraph_msgs.msg tf2_msgs.msg 2>/dev/null &&
   SRCDIR=$SRCDIR sh "$SRCDIR/tests/tools/made-bags.sh" mk-tf-bags.py "$gen" >/dev/null &&
   SRCDIR=$SRCDIR sh "$SRCDIR/tests/tools/made-bags.sh" mk-robot-bags.py "$gen" >/dev/null; then
	basic=$gen/tf_basic.bag
	{
		# the tree of each bag alone; --json and --dot, whose own code is the
		# output's format, over the four together (one valgrind start each)
		for f in "$gen"/tf_*.bag; do
			echo "$B tf $f"
		done
		echo "$B tf --json" "$gen"/tf_*.bag
		echo "$B tf --dot" "$gen"/tf_*.bag
		echo "$B tf --json --lookup map laser --at 1500000002.5 --at 0 $basic"
		echo "$B tf --lookup map nowhere $basic"
		echo "$B tf --lookup map base_link --every 0.25 $basic"
		echo "$B tf --lookup a c $gen/tf_cycle.bag"
		echo "$B plot --csv tf(map,base_link).yaw $basic"
		echo "$B log $gen/log.bag"
		echo "$B log --format json --level warn --node plan|contr --grep step $gen/log.bag"
		echo "$B log --summary $gen/log.bag"
		echo "$B diag $gen/diag.bag"
		echo "$B diag --json $gen/diag.bag"
		echo "$B diag --summary $gen/diag.bag"
		echo "$B diag --level error --name motor $gen/diag.bag"
	} >> "$list"
else
	echo "FAIL: python3-rosbag did not make the tf, log and diag bags (scripts/setup.sh --test)"
	fails=1
fi

# bags opened as URLs: the HTTP byte source and its block cache, over the
# fixtures served by nginx (skipped when nginx is not installed); info and
# check take every URL in one run, cat the ones that open together and each
# other alone, as for the files above
nginx=
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
	. "$SRCDIR/tests/tools/nginx.sh"
	mkdir -p "$gen/www"
	cp -r "$SRCDIR/tests/data/fixtures/bags" "$SRCDIR/tests/data/fixtures/broken" "$gen/www/"
	nginx_start "$gen/www" "$gen/nginx"
	nginx=1
	url=http://127.0.0.1:$NGINX_PORT
	urls= good= 
	for f in "$gen"/www/bags/*.bag "$gen"/www/broken/*.bag; do
		u=$url/${f#"$gen/www/"}
		urls="$urls $u"
		if "$B" info "$f" >/dev/null 2>&1; then good="$good $u"; else echo "$B cat --format json $u" >> "$list"; fi
	done
	{
		echo "$B info$urls"
		echo "$B check$urls"
		echo "$B cat --format json$good"
		echo "$B --cache-size 1M cat --format hex $url/bags/large_lz4.bag"
		echo "$B info $url/bags/no-such.bag"
		# arguments refused after a first bag: a bad --cache-size
		echo "$B info $url/bags/basic_none.bag --cache-size 1"
		echo "$B tf $url/bags/tf_lz4.bag"
		echo "$B diag $url/bags/tf_lz4.bag"
	} >> "$list"
fi
# Where each check costs fifty times as much, the unit tests whose cost is
# their sample count take a tenth of the samples (tests/unit/scale.h: 40
# needles per corpus, 30,000 random doubles, 10,000 connections, a cut
# every 10 bytes ...), and the two whose point is a big file are skipped.
# Each line of the list is split at its spaces: no argument above holds one.
# The browser over the images fixture (every picture, damaged frame and point
# cloud drawn), a screen test of its own, runs beside the list: run after it,
# alone, it left a core idle at the end of ./test.sh.
# images ORIGINS: that screen test, valgrind's --track-origins=ORIGINS, its output in $list.img
images() {
	VG=$VG VG_ORIGINS=$1 BAGSCOPE=$B sh "$SRCDIR/tests/tui/valgrind-images.sh" > "$list.img" 2>&1
}
images no &
img=$!
TEST_SCALE=10 xargs -P "${JOBS:-$(nproc)}" -L 1 sh "$0" --one < "$list" > "$list.out"
cat "$list.out"
runs=$(wc -l < "$list")
fails=$((fails + $(grep -c '^FAIL valgrind' "$list.out")))

# vg PROGRAM ARGS...: one more run, here and now
vg() {
	runs=$((runs + 1))
	sh "$0" --one "$@" > "$list.one"
	[ -s "$list.one" ] && { cat "$list.one"; fails=$((fails + 1)); }
	rm -f "$list.one"
}
# an s3:// glob whose listing fails, refused after a first bag (its environment set here)
if [ -n "$nginx" ]; then
	AWS_ENDPOINT_URL=$url AWS_ACCESS_KEY_ID=integ AWS_SECRET_ACCESS_KEY=integ
	export AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
	vg "$B" info "$url/bags/basic_none.bag" "s3://bk/none/*.bag"
	unset AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
	nginx_stop
fi
rm -rf "$gen"
# the browser over the images fixture, started before the list (below)
runs=$((runs + 1))
wait "$img"
case $? in
0|77) ;;
*)	images yes   # again, for a report that says where a value came from
	echo "FAIL valgrind: the browser over images.bag"; grep -v '^ok' "$list.img" | head -n 60; fails=$((fails + 1)) ;;
esac
rm -f "$list.img"
echo "valgrind: $runs runs, $fails failed"
[ "$fails" -eq 0 ]
