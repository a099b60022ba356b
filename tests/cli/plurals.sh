#!/bin/sh
# make check entry: no "1 messages", "1 chunks", "1 bytes" ... in what the
# CLI prints (stdout and stderr) over every fixture: the fixture bags, the
# made and broken ones, the foreign ones, the old formats and the MCAP files,
# for info, info --freq, check, check --quick, stats, tf, log, diag and cat's
# messages. Counts come through one rule, BAG_S() (bagscope/common.h).
# A count of 1 before a plural word fails, so do singular counts above 1.
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data
fail=0 ones=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

i=0
for f in "$D"/fixtures/bags/*.bag "$D"/fixtures/made/*.bag "$D"/fixtures/broken/*.bag \
         "$D"/fixtures/foreign/rosbag.js/*.bag "$D"/oldbags/*.bag "$D"/mcap/*.mcap; do
	for sub in "info" "info --freq" "check" "check --quick" "stats" "tf" "log" "diag" "cat --count"; do
		i=$((i + 1))
		printf '%s\t%s\t%s\n' "$i" "$sub" "$f"
	done
done > "$tmp/list"
runs=$(wc -l < "$tmp/list")
# each run's stdout and stderr in its own file, several at once
# shellcheck disable=SC2016
tr '\n' '\0' < "$tmp/list" | xargs -0 -n 1 -P 4 sh -c 'IFS="	"; set -- $1; IFS=" "; "$0" $2 "$3" > "'"$tmp"'/out.$1" 2>&1 < /dev/null' "$B"
while IFS='	' read -r n sub f; do
	out="$tmp/out.$n"
	[ -f "$out" ] || { echo "FAIL $sub $f: not run"; fail=1; continue; }
	# a 1 that counts (not 0.1, 1/1 or 21) and then a word
	grep -aE '(^|[ ([])1 [a-z]+\b' "$out" > "$tmp/one"
	ones=$((ones + $(wc -l < "$tmp/one")))
	# plural words after it (words whose singular ends in s are not plurals)
	if grep -aE '(^|[ ([])1 [a-z]+s\b' "$tmp/one" |
	   grep -avE '1 (is|was|has|does|its|this|status|plus|class|less|process|bus)\b' > "$tmp/bad"; then
		echo "FAIL $sub $f:"; cat "$tmp/bad"; fail=1
	fi
	# and the reverse: "2 message," (a count above 1 with a singular noun)
	# (not a compound: "2 chunk headers")
	if grep -aE '(^|[ ([])([02-9]|[0-9]{2,}) (message|chunk|connection|record|byte|problem|topic)\b[^_/]' "$out" |
	   grep -avE '[0-9] (message|chunk|connection|record|byte|problem|topic) [a-z]+s\b' > "$tmp/bad"; then
		echo "FAIL $sub $f (a singular after a count):"; cat "$tmp/bad"; fail=1
	fi
done < "$tmp/list"
# the scan saw counts of 1: it cannot pass by seeing none
[ "$ones" -gt 10 ] || { echo "FAIL: only $ones lines with a count of 1 in $runs runs"; fail=1; }
[ $fail -eq 0 ] && echo "plurals.sh: ok ($runs runs, $ones lines with a count of 1)"
exit $fail
