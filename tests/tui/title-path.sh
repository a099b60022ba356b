#!/bin/sh
# Screen test: at 80 columns a bag's long path is cut in its middle ("…"),
# keeping its start and its file name, so that the title still shows the
# message count and the whole duration.
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
finish
