#!/bin/sh
# Screen test: search finds the text the browser shows (the detail's
# "field: value" lines, not only the summaries), smart case, around the end;
# the filter (&) shows only the matching messages with their count, the
# same count as `cat --filter`; Esc, empty filter.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 100 30 "$bag"
wait_for "opens" "row 1/8647"
# "x: 5.54" is how the detail writes a turtlesim/Pose (the summary says x=5.54...)
keys / "x: 5.544" Enter
wait_for "search finds the detail's field: value text" "found 'x: 5.544' at row 21"
wait_for "the detail shows the message found" "^ +x: 5\\.544444561004639"
keys / "SPAWNING" Enter
wait_for "upper case: exact case, so no match" "'SPAWNING' not found"
keys g / "spawning" Enter
wait_for "lower case: any case (smart case)" "found 'spawning' at row 16"
keys G / "rosgraph_msgs/log" Enter
wait_for "a type name matches; past the end, from the start" "found 'rosgraph_msgs/log' at row 1 \\(past the end, from the start\\)"
keys / "turtle[12]/pose" Enter
wait_for "a regex" "found 'turtle\\[12\\]/pose' at row [0-9]+"
n=$("$bin" cat --count --filter 'x > 7' "$bag")
keys "&" "x > 7" Enter
wait_for "the filter's count is cat --filter's ($n)" "Messages +$n of 8647 match the filter: x > 7"
wait_for "the status line says filtered" "row 1/$n filtered"
wait_for "only matching rows" "^ +1 1396293890\\.[0-9]{9} /turtle1/pose"
keys f
wait_for "f reopens the filter prompt with the expression" "filter .*: x > 7"
keys C-u "x >" Enter
wait_for "a bad expression is refused with its place" "filter kept as it was; column [0-9]+:"
keys "&" C-u Enter
wait_for "an empty filter turns it off" "Messages +8647 shown"
keys / Up
wait_for "the prompt's history" "search: turtle"
keys Escape q
wait_for "q quits cleanly" "BROWSER-EXITED 0"
finish
