#!/bin/sh
# Screen test: a time jump never waits on the network. The bag of
# remote-keys.sh behind tests/tools/faultproxy.py, whose answers the test
# holds (--delay-file) while the browser jumps with t to +6000 s, into a
# group whose index is not fetched: the jump is answered at once (the
# cursor on that group's first row, its rows being fetched), which it could
# not be if the main thread waited for the answer held. Released, the index
# comes in and the cursor moves to the exact row, the local index's. The
# same for the 10 s step (>), and a key pressed while a jump waits decides
# where the cursor goes. Skipped (77) without python3-rosbag.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/remote-lib.sh"
echo 1500 >"$tmp/delay"
remote_bag --delay-file "$tmp/delay"
has() { printf '%s\n' "$shot" | grep -Eq -- "$1"; }
# the row of the status line within 80 rows before row R (the first of R's group of ~73, or R)
near() { echo "row ($(seq -s '|' $(($1 - 80)) "$1"))/80000"; }

start 160 30 "$P/chunks.bag"
wait_for "opens through the slow proxy" "row 1/80000"
wait_for "the first rows are in" "^ +1 +1500000000.000000000 +/n +8 data=0 "
echo 600000 >"$tmp/delay"
keys t
wait_for "t asks where to" "jump \(\+10s"
keys -l "+6000"
keys Enter
wait_for "t +6000 is answered with the answers held: on its group's first row" "$(near 60001)"
shot=$(screen)
check "... its rows being fetched" has "… fetching the index"
check "... and the status line says so" has "fetching \(Esc: stop\)"
echo 0 >"$tmp/delay"
wait_for "released, the index comes in: the exact row" "row 60001/80000"
wait_for "... the local index's" "^ *60001 +1500006000.000000000 +/n +8 data=60000$"

keys 1 0 0 0 0 G
wait_for "10000G" "^ *10000 +1500000999.900000000 +/n +8 data=9999( |$)"
echo 600000 >"$tmp/delay"
keys '>'
wait_for "> (10 s on) with the answers held: near row 10100 (or on it, its index read ahead)" "$(near 10100)"
echo 0 >"$tmp/delay"
wait_for "released: the exact row 10 s on" "row 10100/80000"
wait_for "... the local index's" "^ *10100 +1500001009.900000000 +/n +8 data=10099$"

# anew, the index not read ahead yet
keys q
wait_for "quits" "BROWSER-EXITED 0"
echo 1500 >"$tmp/delay"
start 160 30 "$P/chunks.bag"
wait_for "opens again" "^ +1 +1500000000.000000000 +/n +8 data=0 "
echo 600000 >"$tmp/delay"
keys t
wait_for "t asks again" "jump \(\+10s"
keys -l "+4500"
keys Enter
wait_for "t +4500 with the answers held" "$(near 45001)"
wait_for "... its rows being fetched" "… fetching the index"
row=$(screen | sed -n 's/.*row \([0-9]*\)\/80000.*/\1/p')
row=$((row - 1))
keys k
wait_for "k is answered while the jump waits" "row $row/80000"
echo 0 >"$tmp/delay"
wait_for "released: the rows come in, the browser idle" "ready, [0-9.]+ MB fetched in [0-9]+ requests +\? help"
shot=$(screen)
check "... the key pressed while the jump waited decided the row ($row)" has "row $row/80000"
check "... its row the local index's" has "^ *$row +150000[0-9]{4}.[0-9]00000000 +/n +8 data=$((row - 1))( |$)"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
