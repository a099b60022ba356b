#!/bin/sh
# Set everything up on a fresh Debian machine and run the whole test suite:
# once as built, once more built with AddressSanitizer and UBSan (in a copy
# of the tree under build-asan/), and the programs under valgrind. Ends with
# the wall and CPU time of each phase, and one line 'N passed, N failed'.
#
# The phases overlap where they can: the packages only the tests need (apt's
# and npm's) install while both trees are built; the ASan build is made while
# this tree is configured and built and the as-built suite runs (configure,
# and the screen and CLI tests, leave the cores idle at times); the ASan suite
# starts when its build ends, beside the as-built suite's last tests (which
# wait on proxies and screens more than they compute); and valgrind (on the
# as-built programs) starts when the as-built suite ends, beside the ASan
# suite. The ASan copy takes the generated configure and Makefile.in along
# instead of running autoreconf again.
# BAGSCOPE_NO_ASAN=1 / BAGSCOPE_NO_VALGRIND=1 leave those phases out.
cd "$(dirname "$0")" || exit 1
# the bags python3-rosbag writes for the tests, made once for both trees (tests/tools/made-bags.sh)
BAGSCOPE_MADE=$(pwd)/tests/made
export BAGSCOPE_MADE
J=$(nproc)
# tests run three per core: many wait on a screen, a server or a fault proxy
TJ=$((J * 3))
asan=build-asan

# the phases, each run as its own process so that /usr/bin/time measures it
case ${1:-} in
--check)
	exec make -j"$TJ" check >/dev/null 2>&1 ;;
--asan-build)
	rm -rf "$asan" && mkdir -p "$asan" || exit 1
	{ git ls-files; ls -d configure Makefile.in aclocal.m4 config.h.in build-aux m4; } |
		tar -cf - -T - | tar -xf - -C "$asan" || exit 1
	# -O1 -g1: half the compile time of -O2 -g; the line tables are what ASan's reports need
	cd "$asan" && ./configure -q --enable-asan CFLAGS="-O1 -g1" >/dev/null 2>&1 && make -j"$J" >/dev/null 2>&1 &&
		exec make -j"$J" check TESTS= >/dev/null 2>&1
	exit 1 ;;
--asan-check)
	cd "$asan" && exec make -j"$TJ" check >/dev/null 2>&1 ;;
--valgrind)
	exec tests/tools/run-valgrind.sh > tests/valgrind.out 2>&1 ;;
--packages)
	# what only running the tests needs: Debian's packages, then npm's (tests/tools/node-setup.sh's sets)
	scripts/setup.sh --test-packages || exit 1
	for set in mcap s3; do
		(NODE_SET=$set BUILDDIR=. . tests/tools/node-setup.sh) >/dev/null 2>&1
	done
	exit 0 ;;
esac

T0=$(date +%s)
times=$(mktemp) || exit 1
trap 'rm -f "$times" "$times.setup" "$times.stop" "$times.pkg" "$times.pkgrc"' EXIT
# phase NAME: run this script with --NAME, noting its wall and CPU seconds
phase() {
	/usr/bin/time -a -o "$times" -f "$1 %e %U %S" sh "$0" "--$1"
}

status=0
asan_on=; [ "${BAGSCOPE_NO_ASAN:-}" = "" ] && asan_on=1
scripts/setup.sh --test --bootstrap || exit 1
# what only running the tests needs (on a fresh machine, a minute of apt and
# npm, mostly download and unpacking) installs beside the builds; the suites
# wait for it: its phase holds a lock on $times.pkg till it ends
exec 8>"$times.pkg" && flock 8 || exit 1
{ phase packages 8>&-; echo $? > "$times.pkgrc"; } &
exec 8>&-
# packages_ready: after the packages phase, whether it succeeded
packages_ready() {
	flock "$times.pkg" true && [ "$(cat "$times.pkgrc" 2>/dev/null)" = 0 ]
}
# the ASan copy is configured and built from the bootstrapped tree, beside
# this tree's configure and build (configure leaves one core idle), then its
# suite run (not if this tree's build failed)
asan_phases() {
	phase asan-build || { echo "the ASan build failed"; return 1; }
	packages_ready && [ ! -e "$times.stop" ] && phase asan-check
}
[ -z "$asan_on" ] || { asan_phases & asan_job=$!; }
# a failed build waits for the ASan copy's, so that nothing is left running
scripts/setup.sh --build || { touch "$times.stop"; [ -z "$asan_on" ] || wait "$asan_job"; exit 1; }
T1=$(date +%s)
# the setup's CPU: this shell's children so far (the second line of `times`)
times > "$times.setup"
setup_cpu=$(awk 'NR == 2 { split($0, f, /[ms ]+/); printf "%.1f", f[1] * 60 + f[2] + f[3] * 60 + f[4] }' "$times.setup")

if ! packages_ready; then
	echo "the packages the tests need did not install"
	touch "$times.stop"
	[ -z "$asan_on" ] || wait "$asan_job"
	exit 1
fi
vg_on=; [ "${BAGSCOPE_NO_VALGRIND:-}" = "" ] && command -v valgrind >/dev/null 2>&1 && vg_on=1
phase check || status=1
# valgrind needs only the as-built tree: it starts at once, beside the ASan suite
[ -z "$vg_on" ] || { phase valgrind & vg=$!; }
[ -z "$asan_on" ] || wait "$asan_job" || status=1
# memory errors and leaks under valgrind (the as-built tree)
vg_passed=0 vg_failed=0
if [ -n "$vg_on" ]; then
	wait "$vg"
	grep '^FAIL' tests/valgrind.out | head -20
	line=$(tail -1 tests/valgrind.out)
	runs=$(echo "$line" | sed -n 's/^valgrind: \([0-9]*\) runs, \([0-9]*\) failed.*/\1/p')
	vg_failed=$(echo "$line" | sed -n 's/^valgrind: \([0-9]*\) runs, \([0-9]*\) failed.*/\2/p')
	if [ -z "$runs" ]; then runs=0; vg_failed=1; fi
	vg_passed=$((runs - vg_failed))
	[ "$vg_failed" -eq 0 ] || status=1
fi
for dir in . "$asan"; do
	[ -d "$dir/tests" ] || continue
	grep -h -E '^(FAIL|ERROR)' $(find "$dir/tests" -name '*.log') 2>/dev/null | sed "s|^|$dir: |" | head -30
done
# the time of each phase (they overlap: the total is less than their sum)
{
	echo "setup $((T1 - T0)) $setup_cpu 0"
	cat "$times"
} | awk -v total=$(($(date +%s) - T0)) '
	/^Command / { next }   # time notes a phase that failed on a line of its own
	{ printf "%-11s %5.0f s wall %7.1f s CPU\n", $1, $2, $3 + $4; cpu += $3 + $4 }
	END { printf "%-11s %5.0f s wall %7.1f s CPU (%d cores)\n", "total", total, cpu, '"$J"' }'
EXTRA_PASSED=$vg_passed EXTRA_FAILED=$vg_failed scripts/count-tests.sh . "$asan" || status=1
exit $status
