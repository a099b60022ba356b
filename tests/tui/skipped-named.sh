#!/bin/sh
# Screen test: a file that does not open beside a good bag is skipped and
# named on the status line, even at 80 columns, before the reason; the log
# (L) says why in full.
. "$(dirname "$0")/lib.sh"
printf 'garbage, no bag\n' > "$tmp/not-a-bag.bag"
start 80 24 "$top/tests/data/fixtures/foreign/rosbag.js/example.bag" "$tmp/not-a-bag.bag"
wait_for "the good bag opens" "row 1/8647"
wait_for "the skipped file is named at 80 columns" "skipped not-a-bag\\.bag \\(L: the log\\)"
keys L
wait_for "the log gives the reason" "skipped: .*not-a-bag\\.bag.*ROSBAG"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
