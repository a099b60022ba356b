#!/bin/sh
# Screen test: a filter stopped with Esc is labelled partial until it runs
# to the end. Over a 300000-message bag (tests/tools/write-tool big), Esc right
# after Enter stops the filter early (it reads every /a message: the index
# alone cannot settle it; the bag is bz2, since over an uncompressed one the
# filter took 30 ms, and once ended before the Esc, which ncurses holds 25 ms
# to tell it from a key's escape sequence; over bz2 it takes 170 ms on an idle
# machine, longer on a loaded one): the list's title and the status line
# say partial, and keep saying it after other keys; running the filter
# again to the end drops the label and counts every match (cat --count).
. "$(dirname "$0")/lib.sh"
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" write-tool-big "$tmp" || exit 1   # write-tool big ... 300000 16 bz2
n=$("$bin" cat --count --filter '$topic == "/a" && data != "zz"' "$tmp/big.bag")
start 120 30 "$tmp/big.bag"
wait_for "opens" "row 1/300000"
keys "&" '$topic == "/a" && data != "zz"' Enter Escape
wait_for "Esc stops the filter early" "filter stopped at [0-9]+%"
wait_for "the title says the rows are partial" "match the filter \\(partial: stopped at [0-9]+%\\)"
keys j k
wait_for "... still after other keys" "match the filter \\(partial: stopped at [0-9]+%\\)"
wait_for "... and the status line too" "row [0-9]+/[0-9]+ filtered, partial"
keys "&" Enter
wait_for "run to the end: every match ($n), no label" "Messages +$n of 300000 match the filter: "
check "... and the status line drops it" sh -c "! $T capture-pane -p -t main | grep -q 'partial'"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
