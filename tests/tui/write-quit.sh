#!/bin/sh
# Screen test: q while W writes asks first. Over a 300000-message bz2 bag
# the whole range is marked and written; q at once asks while the write
# runs, and the browser stays: the write finishes and is a bag of every
# message, as info counts. Then q during a second write and q again quits,
# cancelling it: nothing is left at its name.
. "$(dirname "$0")/lib.sh"
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" write-tool-big "$tmp" || exit 1   # write-tool big ... 300000 16 bz2
start 120 30 "$tmp/big.bag"
wait_for "opens" "row 1/300000"
keys m G m
wait_for "two marks" "marked \\(2 marks"
keys W C-u "$tmp/out.bag" Enter q
wait_for "q during the write asks first" "a write is running: q again cancels it and quits"
wait_for "the browser stays and the write ends" "wrote .*out\\.bag: 300000 messages"
check "the written bag has every message" sh -c "'$bin' info '$tmp/out.bag' | grep -q '^messages: *300000'"
keys W C-u "$tmp/second.bag" Enter q
wait_for "asks again" "a write is running: q again"
keys q
wait_for "q again quits" "BROWSER-EXITED 0"
check "the cancelled write left nothing" [ ! -e "$tmp/second.bag" ]
finish
