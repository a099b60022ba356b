#!/bin/sh
# Screen test: at 80 columns a bag's long path is cut in its middle ("…"),
# keeping its start and its file name, so that the title still shows the
# message count and the whole duration; a span of years reads in days.
. "$(dirname "$0")/lib.sh"
dir=$tmp/recordings/2020-09-13/robot-alpha/outdoor-run-with-a-rather-long-name/day-one
mkdir -p "$dir"
cp "$top/tests/data/fixtures/foreign/rosbag.js/example.bag" "$dir/example.bag"
start 80 24 "$dir/example.bag"
wait_for "opens" "row 1/8647"
wait_for "the path is cut in the middle, the count and the duration stay whole" \
	"^ bagscope  /.{5,}….*/example\\.bag  8647 messages  [0-9]+\\.[0-9] s *$"
check "the title fits the row" [ "$(screen | head -1 | sed 's/ *$//' | wc -m)" -le 81 ]
keys q
wait_for "q quits" "BROWSER-EXITED 0"
# two bags three years apart: the span in days, not 103706216.2 s
start 120 30 "$top/tests/data/fixtures/foreign/rosbag.js/example.bag" "$top/tests/data/fixtures/bags/nested_bz2.bag"
wait_for "a long span in a unit that fits" "^ bagscope  2 bags  8662 messages  1200\\.3 days  example\\.bag, nested_bz2\\.bag"
keys q
wait_for "two bags: q quits" "BROWSER-EXITED 0"
finish
