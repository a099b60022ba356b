#!/bin/sh
# Set everything up on a fresh Debian machine and run the whole test suite:
# once as built, once more built with AddressSanitizer and UBSan (in a copy
# of the tree under build-asan/), and the programs under valgrind. Ends with
# one line 'N passed, N failed'.
cd "$(dirname "$0")"
scripts/setup.sh --test || exit 1
make -j"$(nproc)" check >/dev/null 2>&1
status=$?
asan=build-asan
if [ "${BAGSCOPE_NO_ASAN:-}" = "" ]; then
	rm -rf "$asan" && mkdir -p "$asan"
	git ls-files | tar -cf - -T - | tar -xf - -C "$asan"
	( cd "$asan" && autoreconf -fi >/dev/null 2>&1 && ./configure -q --enable-asan >/dev/null &&
	  make -j"$(nproc)" >/dev/null 2>&1 && make -j"$(nproc)" check >/dev/null 2>&1 ) || status=1
fi
# memory errors and leaks under valgrind (the as-built tree)
vg_passed=0 vg_failed=0
if [ "${BAGSCOPE_NO_VALGRIND:-}" = "" ] && command -v valgrind >/dev/null 2>&1; then
	tests/tools/run-valgrind.sh > tests/valgrind.out 2>&1
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
EXTRA_PASSED=$vg_passed EXTRA_FAILED=$vg_failed scripts/count-tests.sh . "$asan" || status=1
exit $status
