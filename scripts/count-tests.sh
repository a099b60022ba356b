#!/bin/sh
# Sum the results of `make check` in the given build trees (default: this
# one) into one line 'N passed, N failed'. cmocka programs count their test
# cases, scripts that print their own 'N passed, N failed' line count those,
# anything else counts as one test. EXTRA_PASSED / EXTRA_FAILED add counts
# from runs outside make check (valgrind).
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- .
passed=${EXTRA_PASSED:-0} failed=${EXTRA_FAILED:-0}
for dir in "$@"; do
	[ -d "$dir/tests" ] || continue
	for trs in $(find "$dir/tests" -name '*.trs'); do
		log=${trs%.trs}.log
		result=$(sed -n 's/^:test-result: //p' "$trs" | head -1)
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" 2>/dev/null | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" 2>/dev/null | tail -1)
		if [ -z "$p" ]; then
			line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -1)
			p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
			f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
		fi
		case "$result" in
		SKIP) continue ;;
		PASS|XFAIL) [ -n "$p" ] || p=1 ;;
		*) [ -n "$f" ] && [ "$f" -gt 0 ] || f=1 ;;
		esac
		passed=$((passed + ${p:-0}))
		failed=$((failed + ${f:-0}))
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
