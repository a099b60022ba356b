#!/bin/sh
# Screen test: the search's scope, highlight and progress. "PATH=~TEXT"
# looks in one field's detail lines only; the matches are in reverse video
# in the list; a long search shows its progress with the time left, and Esc
# cancels it.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 120 30 "$bag"
wait_for "opens" "row 1/8647"
keys / "turtle2" Enter
wait_for "unscoped, a /rosout text mentions it first" "found 'turtle2' at row 2 "
keys g / "transforms[0].child_frame_id=~turtle2" Enter
wait_for "scoped to a field path, the search lands on /tf" "found 'transforms\\[0\\]\\.child_frame_id=~turtle2' at row 23 "
wait_for "where that field holds the text" "child_frame_id: \"turtle2\""
keys g / "nosuchfield=~turtle2" Enter
wait_for "a path no message has: not found" "'nosuchfield=~turtle2' not found"
keys g / "b=255" Enter
wait_for "found" "found 'b=255' at row 9 "
# the other rows' summaries show the match in reverse video (ESC [7m)
i=0
until $T capture-pane -p -e -t main | grep -q "$(printf '\033')\\[7mb=255"; do
	i=$((i + 1)); [ $i -lt 200 ] || break; sleep 0.05
done
check "the list highlights the matches" [ $i -lt 200 ]
keys Escape q
wait_for "q quits" "BROWSER-EXITED 0"
# progress: 20000 strings of 3000 bytes of control characters, each written escaped to be searched
"$tools/write-tool" big "$tmp/big.bag" 20000 3000 none >/dev/null || exit 1
start 120 30 "$tmp/big.bag"
wait_for "opens the big bag" "row 1/20000"
# each run of letters of "msgs/data" is in a name (std_msgs/String, data), so it could be in the
# text outside the strings: no byte prefilter decides
keys / "msgs/data" Enter
wait_for "a long search shows its progress and the time left" "searching 'msgs/data': [0-9]+%, [0-9.]+ s left"
keys Escape
wait_for "Esc cancels it" "search cancelled"
keys q
wait_for "q quits" "BROWSER-EXITED 0"
finish
