#!/bin/sh
# make check entry: `plot TOPIC` without a field is refused with an example
# path of that topic's own type, and that example plots (every topic of
# rosbag.js's example.bag and of the images fixture); a series whose samples
# are all infinite says so instead of "min -, max -".
B=${BAGSCOPE:-src/bagscope}
D=$(dirname "$0")/../data/fixtures
fail=0
for bag in "$D/foreign/rosbag.js/example.bag" "$D/made/freq_times.bag"; do
	for topic in $("$B" info --json "$bag" | /usr/bin/python3 -c 'import sys, json; [print(t["topic"]) for t in json.load(sys.stdin)["topics"]]'); do
		msg=$("$B" plot "$topic" "$bag" 2>&1) && { echo "FAIL plot $topic: accepted"; fail=1; continue; }
		eg=$(printf '%s\n' "$msg" | sed -n 's/.*(e\.g\. \([^ ]*\))$/\1/p' | head -1)
		[ -n "$eg" ] || { echo "FAIL plot $topic: no example in: $msg"; fail=1; continue; }
		"$B" plot --width 40 "$eg" "$bag" > /dev/null 2>&1 || { echo "FAIL the example $eg does not plot"; fail=1; }
	done
done
bag=$D/foreign/rosbag.js/example.bag
out=$(NO_COLOR=1 "$B" plot --width 60 /turtle1/pose.x /turtle2/pose.x "/turtle1/pose.y / 0" "$bag")
printf '%s\n' "$out" | grep -q "^ *x /turtle1/pose.y / 0  1344 samples, none finite: all are inf" ||
	{ echo "FAIL an all-inf series is not explained: $out"; fail=1; }
# without colour the second series has its own marker, in the legend and the chart
printf '%s\n' "$out" | grep -q "^ *+ /turtle2/pose.x  1344 samples, min " || { echo "FAIL no marker in the legend"; fail=1; }
printf '%s\n' "$out" | grep -Eq "[┤│].*\+" || { echo "FAIL no marker in the chart"; fail=1; }
[ $fail -eq 0 ] && echo "plot-hints.sh: ok"
exit $fail
