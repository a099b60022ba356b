#!/bin/sh
# Screen test: the browser fits an 80x24 terminal: every pane keeps rows,
# the hex dump fits its pane (8 bytes a line, the ASCII column kept), the
# help scrolls, z zooms the detail, relative times keep a fixed width, and
# an empty bag shows no 1970 date; a pane title too wide loses whole key
# hints, never one cut short.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 80 24 "$bag"
wait_for "opens at 80x24" "row 1/8647"
wait_for "the connections pane" "Connections +9/9"
wait_for "its title keeps whole key hints: [s] sort, which does not fit, left out" "Connections +9/9 topics shown  sort: name   \\[x\\] toggle \\[o\\] only \\[a\\] all\$"
wait_for "the list" "Messages +8647 shown"
wait_for "the detail below it, with rows" "^ +- header: std_msgs/Header"
wait_for "the timeline" "^ timeline "
check "nothing runs past 80 columns" sh -c "$T capture-pane -p -t main | python3 -c 'import sys; sys.exit(max(len(l.rstrip(chr(10))) for l in sys.stdin.buffer.read().decode().splitlines()) > 80)'"
keys H
wait_for "hex: 8 bytes a line and the ASCII column" "^ +00000008 +([0-9a-f]{2} ){7}[0-9a-f]{2} +\\|.{8}\\|\$"
keys z
wait_for "z zooms the detail to the screen" "^ Detail: hex"
check "zoomed: the list is gone" sh -c "! $T capture-pane -p -t main | grep -q 'Messages  8647'"
keys z "?"
wait_for "help fits and says it scrolls" "bagscope keys +\\(j/k, PgDn/PgUp scroll"
keys G
wait_for "help scrolls to its end" "^ +q +quit"
keys Escape r
wait_for "relative times, fixed width" "^ +1 \\+ 0\\.000000000 /rosout"
keys q
wait_for "quits" "BROWSER-EXITED 0"
start 80 24 "$top/tests/data/fixtures/bags/empty_none.bag"
wait_for "an empty bag opens" "no messages shown"
check "and shows no 1970 date" sh -c "! $T capture-pane -p -t main | grep -q 1970"
keys q
wait_for "empty: quits" "BROWSER-EXITED 0"
finish
