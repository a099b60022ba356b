#!/bin/sh
# Times no bag can hold, and counts that are no counts, on the command line:
# `cat --start 2300-01-01` prints nothing and `--end 2300-01-01` everything
# (times beyond int64 nanoseconds are clamped, never overflowed; see
# common/timeparse.h); `-n` takes a positive count only ("-1" is refused like 0).
B=${BAGSCOPE:-src/bagscope}
bag=$(dirname "$0")/../data/fixtures/bags/basic_none.bag
passed=0 failed=0
# count NAME WANT ARGS...: cat's lines (one JSON message each) and exit 0
count() {
	name=$1 want=$2
	shift 2
	got=$("$B" cat --format json "$@" "$bag" 2>&1 | wc -l)
	rc=$("$B" cat --format json "$@" "$bag" >/dev/null 2>&1; echo $?)
	if [ "$got" -eq "$want" ] && [ "$rc" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok    $name"
	else
		failed=$((failed + 1)); echo "FAIL  $name: $got lines, exit $rc; expected $want lines, exit 0"
	fi
}
# refused NAME ARGS...: exit 2 with one line on stderr
refused() {
	name=$1
	shift
	err=$("$B" cat "$@" "$bag" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then
		passed=$((passed + 1)); echo "ok    $name"
	else
		failed=$((failed + 1)); echo "FAIL  $name: exit $rc, stderr '$err'"
	fi
}

all=$("$B" cat --format json "$bag" | wc -l)
[ "$all" -gt 0 ] || { echo "FAIL  no messages in $bag"; exit 1; }
count "--start 2300-01-01: nothing" 0 --start 2300-01-01
count "--end 2300-01-01: everything" "$all" --end 2300-01-01
count "--start 9999-12-31: nothing" 0 --start "9999-12-31 23:59:59Z"
count "--end 9999-12-31: everything" "$all" --end 9999-12-31
count "--start 0000-01-01: everything" "$all" --start 0000-01-01
count "--end 0000-01-01: nothing" 0 --end "0000-01-01 00:00:00Z"
count "--start of 11-digit epoch seconds: nothing" 0 --start 99999999999
count "--end of a huge offset: everything" "$all" --end +99999999999h
count "--start of a huge negative offset: everything" "$all" --start -99999999999h
count "an ordinary range still works" 3 --start +1 --end +2
count "-n 5" 5 -n 5
refused "-n -1 refused" -n -1
refused "-n 0 refused" -n 0
refused "-n 1x refused" -n 1x
refused "-n beyond uint64 refused" -n 99999999999999999999999
refused "a time that is no time" --start 12q
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
