#!/bin/sh
# Screen test: Esc stops the fetch in flight, not only what is queued. The
# bag of remote-keys.sh behind tests/tools/faultproxy.py, whose delay the
# test sets as it goes (--delay-file): 1.5 s per answer while the browser
# opens, then 10 minutes, so that a read in flight never ends by itself.
# Esc must then bring the browser back to idle (the status line no longer
# says it fetches, which it does until the read running has stopped), the
# rows say they were not fetched, and nothing of the stopped read is kept:
# with the delay back to none, a key fetches again and the rows are the
# local index's, no chunk counted unreadable. Twice: while a group's index
# is fetched, and while chunks are (or, if the read-ahead of the index got
# there first, the index again). Skipped (77) without python3-rosbag.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/remote-lib.sh"
echo 1500 >"$tmp/delay"
remote_bag --delay-file "$tmp/delay"
has() { printf '%s\n' "$shot" | grep -Eq -- "$1"; }
lacks() { ! has "$1"; }
# the status line of an idle browser: the bytes fetched, nothing being fetched or decoded
IDLE='ready, [0-9.]+ MB fetched in [0-9]+ requests +\? help'

start 160 30 "$P/chunks.bag"
wait_for "opens through the slow proxy" "row 1/80000"
wait_for "the first rows are in" "^ +1 +1500000000.000000000 +/n +8 data=0 "
echo 600000 >"$tmp/delay"
keys 6 0 0 0 0 G
wait_for "60000G: the group's index is being fetched" "60000 … fetching the index"
wait_for "... and the status line says so" "fetching \(Esc: stop\)"
keys Escape
wait_for "Esc: the fetching stops" "stopped fetching the index"
wait_for "... the browser is idle: the read in flight has stopped" "$IDLE"
shot=$(screen)
check "... the rows say they were not fetched" has "60000 … not fetched \(Esc stopped it\)"
echo 0 >"$tmp/delay"
keys k
wait_for "a key fetches again: the rows are the local index's" "^ *59999 +1500005999.800000000 +/n +8 data=59998$"
wait_for "... and idle again" "$IDLE"
shot=$(screen)
check "... the row after it too" has "^ *60000 +1500005999.900000000 +/n +8 data=59999$"
check "... no chunk counted unreadable" lacks "unreadable"

echo 600000 >"$tmp/delay"
keys 2 0 0 0 0 G
wait_for "20000G: what it needs is being fetched" "decoding|fetching \(Esc: stop\)"
keys Escape
wait_for "Esc: the fetching stops" "stopped fetching the (rows|index)"
wait_for "... the browser is idle: the read in flight has stopped" "$IDLE"
echo 0 >"$tmp/delay"
keys j
wait_for "a key fetches again: the rows are right" "^ *20001 +1500002000.000000000 +/n +8 data=20000$"
wait_for "... and the selected row's detail" "^ *20000 +1500001999.900000000 +/n +8 data=19999 +data: 20000$"
wait_for "... and idle again" "$IDLE"
shot=$(screen)
check "... no chunk counted unreadable" lacks "unreadable"
check "... no index called damaged" lacks "indexed from its data|do not match"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
