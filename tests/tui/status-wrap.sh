#!/bin/sh
# Screen test: the status line at 80 columns cuts nothing: a refused filter
# shows its expression with a caret under the column the error names (an
# expression wider than the screen is shifted, the caret with it), a long
# note wraps onto more rows ending in "L: all", and L shows the whole note.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
# caret_under CHAR: the screen's caret row points at CHAR in the row above it
caret_under() {
	screen | awk -v want="$1" '{ if (prev != "" && match($0, /^ *\^/)) { c = RLENGTH; got = substr(prev, c, 1) } prev = $0 }
		END { exit !(got == want) }'
}
fits() { screen | python3 -c 'import sys; sys.exit(max(len(l) for l in sys.stdin.buffer.read().decode().splitlines()) > 80)'; }
start 80 24 "$bag"
wait_for "opens" "row 1/8647"
keys "&" "level >= 4 && nosuch.x == 1" Enter
wait_for "a refused filter shows its expression" "^level >= 4 && nosuch\\.x == 1"
wait_for "... and a caret with the reason" "^ +\\^ no field 'nosuch'"
check "the caret is under the n of nosuch" caret_under n
check "nothing runs past 80 columns" fits
keys "&" C-u "level<1&&level<2&&level<3&&level<4&&level<5&&level<6&&level<7&&level<8&&level<9&&level<10&&zzz>1" Enter
wait_for "a wide expression: shifted" "&&zzz>1\$"
check "the caret stays under the z of zzz" caret_under z
wait_for "a note longer than the rows says where the rest is" "… L: all"
check "nothing runs past 80 columns" fits
keys L
wait_for "L shows the whole note" "last note: filter kept as it was; column [0-9]+:"
wait_for "... with the reason whole" "no field 'zzz' in rosgraph_msgs/Log"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
