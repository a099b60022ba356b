#!/bin/sh
# Screen test: a refused filter never changes the active one. With x > 7
# active, an expression naming an unknown field is refused with the types
# tried, and one with a syntax error with its column; both times the list
# still shows x > 7's rows (as many as cat --filter counts).
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
n=$("$bin" cat --count --filter 'x > 7' "$bag")
start 200 50 "$bag"
wait_for "opens" "row 1/8647"
keys "&" "x > 7" Enter
wait_for "the filter runs ($n rows, as cat --filter)" "Messages +$n of 8647 match the filter: x > 7"
keys "&" C-u "nosuch > 1" Enter
wait_for "an unknown field is refused, naming the types tried" \
	"\\^ no field 'nosuch' in [a-z_]+/[A-Za-z]+.*types tried: [a-z_]+/[A-Za-z]+, "
wait_for "... and the working filter stays" "Messages +$n of 8647 match the filter: x > 7"
check "... with its rows" sh -c "$T capture-pane -p -t main | grep -q 'row 1/$n filtered'"
keys "&" C-u "x >" Enter
wait_for "a syntax error is refused with its column" "filter kept as it was; column [0-9]+:"
wait_for "... and the working filter stays" "Messages +$n of 8647 match the filter: x > 7"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
