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
# a time-valued series (header.stamp) is labelled with UTC times of day: its min and max are
# python3-rosbag's stamps at the precision shown (HH:MM:SS, or MM:SS.d... when labels are < 1 s apart)
out=$("$B" plot --width 40 /rosout.header.stamp "$bag")
check_time=$(printf '%s\n' "$out" | /usr/bin/python3 -c "
import sys, re, math, time, rosbag
s = [m.header.stamp.to_sec() for _, m, _ in rosbag.Bag('$bag').read_messages(topics=['/rosout'])]
got = re.search(r'10 samples, min (\S+), max (\S+)$', sys.stdin.read(), re.M)
def f(v, shown):
    if '.' not in shown:
        return time.strftime('%H:%M:%S', time.gmtime(v))
    d = len(shown.split('.')[1])
    return time.strftime('%M:%S', time.gmtime(v)) + '.%0*d' % (d, math.floor((v % 1) * 10 ** d))
print('ok' if got and got.group(1) == f(min(s), got.group(1)) and got.group(2) == f(max(s), got.group(2)) else 'bad')")
[ "$check_time" = ok ] || { echo "FAIL time labels: $out"; fail=1; }
[ $fail -eq 0 ] && echo "plot-hints.sh: ok"
exit $fail
