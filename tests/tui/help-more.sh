#!/bin/sh
# Screen test: the help says "more below" or "more above" only where there
# is more: at 80x24 its first page has more below only, its last more above
# only, one between both; at 200x80 it fits and says neither.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 80 24 "$bag"
wait_for "opens" "row 1/8647"
keys "?"
wait_for "the first page: more below only" "more below; bagscope\\(1\\) has the rest"
keys j
wait_for "a page between: more below and above" "more below and above"
keys G
wait_for "the last page: more above only" "more above; bagscope\\(1\\) has the rest"
check "... and the last rows are the panes" sh -c "$T capture-pane -p -t main | grep -q '^  Help  *this screen'"
keys q
wait_for "any other key closes it" "row 1/8647"
start 200 80 "$bag"
wait_for "opens tall" "row 1/8647"
keys "?"
wait_for "all of it fits: no more either way" "^  bagscope\\(1\\) has the rest"
keys q q
wait_for "quits" "BROWSER-EXITED 0"
finish
