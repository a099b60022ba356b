#!/bin/sh
# Every subcommand over every fixture bag and MCAP file (tests/data/mcap): a crash (a signal, or a sanitizer's
# report in an --enable-asan build) fails the run; exit statuses 0 and 1 (a
# bag that cannot be read) are both fine. tests/tools/run-valgrind.sh runs the same
# list under valgrind.
#   every-fixture.sh            run them with $BAGSCOPE (make check)
#   every-fixture.sh --list     print one command line per line (arguments only)
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../data/fixtures
B=${BAGSCOPE:-src/bagscope}

list() {
	for f in "$FIX"/bags/*.bag "$FIX"/made/*.bag "$FIX"/broken/*.bag "$FIX"/foreign/rosbag.js/*.bag \
	         "$HERE"/../data/mcap/*.mcap; do
		for sub in "info" "info --json" "info --freq" "info --json --freq" \
		           "cat --format yaml" "cat --format json" "cat --format hex" \
		           "defs" "defs --tree" "check" "check --quick" \
		           "tf" "tf --json" "log" "diag --json"; do
			echo "$sub $f"
		done
		# csv prints one topic: each of the bag's topics in turn
		"$B" info --json "$f" 2>/dev/null | grep -o '"topic":"[^"]*"' | cut -d'"' -f4 |
		while read -r topic; do
			echo "cat --format csv --topic $topic $f"
		done
	done
}

if [ "${1:-}" = "--list" ]; then
	list
	exit 0
fi
runs=0 fails=0
err=$(mktemp)
list > "$err.list"
while read -r line; do
	runs=$((runs + 1))
	# shellcheck disable=SC2086
	"$B" $line >/dev/null 2>"$err"
	rc=$?
	if [ $rc -gt 1 ] || { [ -s "$err" ] && grep -q -E 'Sanitizer|runtime error:' "$err"; }; then
		echo "FAIL (exit $rc): bagscope $line"
		head -n 20 "$err"
		fails=$((fails + 1))
	fi
done < "$err.list"
rm -f "$err" "$err.list"
echo "every fixture: $runs runs, $fails failed"
[ $fails -eq 0 ]
