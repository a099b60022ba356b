#!/bin/sh
# Sum the results of `make check` in the given build trees (default: this
# one) into one line 'N passed, N failed'. cmocka programs count their test
# cases, scripts that print their own 'N passed, N failed' line count those,
# anything else counts as one test. EXTRA_PASSED / EXTRA_FAILED add counts
# from runs outside make check (valgrind). One awk reads every .trs and .log
# (a few processes per file took 3 s at the end of test.sh).
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- .
for dir in "$@"; do
	[ -d "$dir/tests" ] && find "$dir/tests" -name '*.trs'
done | awk -v passed="${EXTRA_PASSED:-0}" -v failed="${EXTRA_FAILED:-0}" '
	# last(FILE, RE): the last line of FILE matching RE, or ""
	function last(file, re,    line, found) {
		found = ""
		while ((getline line < file) > 0)
			if (line ~ re) found = line
		close(file)
		return found
	}
	# num(S, RE): the digits of the first match of RE in S ("" if none)
	function num(s, re) {
		if (!match(s, re)) return ""
		s = substr(s, RSTART, RLENGTH)
		gsub(/[^0-9]/, "", s)
		return s
	}
	{
		trs = $0; lf = substr(trs, 1, length(trs) - 4) ".log"
		result = last(trs, "^:test-result: ")
		sub(/^:test-result: /, "", result); sub(/ .*/, "", result)
		p = num(last(lf, "^\\[  PASSED  \\] [0-9]+ test"), "[0-9]+ test")
		f = num(last(lf, "^\\[  FAILED  \\] [0-9]+ test"), "[0-9]+ test")
		if (p == "") {
			line = last(lf, "^[0-9]+ passed, [0-9]+ failed")
			p = num(line, "^[0-9]+ passed")
			f = num(line, "[0-9]+ failed")
		}
		if (result == "SKIP") next
		if (result == "PASS" || result == "XFAIL") { if (p == "") p = 1 }
		else if (f == "" || f + 0 == 0) f = 1
		passed += p; failed += f
	}
	END {
		printf "%d passed, %d failed\n", passed, failed
		exit failed > 0
	}'
