#!/bin/sh
# Screen test: keys never wait on the network. A bag of 1100 chunks (written
# by Debian's python3-rosbag) behind tests/tools/faultproxy.py, which holds
# every answer 1.5 s, in front of Debian's nginx on 127.0.0.1. A jump (60000G)
# answers at once: the status line says the row while the list shows the rows as
# being fetched and the status line says so; another key is answered while
# that read is still in flight; the rows then fill in from the real index.
# (Rows far from both ends: the first request brings the bag's last bytes.)
# Esc stops the fetching of an index. Skipped (77) without python3-rosbag.
. "$(dirname "$0")/lib.sh"
SRCDIR=$top
. "$(dirname "$0")/remote-lib.sh"
remote_bag --delay 1500
n=$("$bin" info "$tmp/www/chunks.bag" | sed -n 's/^messages: *\([0-9]*\).*/\1/p')
chunks=$("$bin" info "$tmp/www/chunks.bag" | sed -n 's/.*\[\([0-9]*\)\/.*chunks.*/\1/p')
check "the bag has $n messages in $chunks chunks" test "$n" = 80000 -a "${chunks:-0}" -ge 1000
start 160 30 "$P/chunks.bag"
wait_for "opens through the slow proxy" "row 1/80000"
wait_for "the first rows are in" "^ +1 +1500000000.000000000 "
keys 6 0 0 0 0 G
wait_for "60000G is answered at once: the rows are being fetched" "60000 … fetching the index"
# has PATTERN: the screen last captured (shot) shows it
has() { printf '%s\n' "$shot" | grep -Eq -- "$1"; }
shot=$(screen)
check "... while the status line already says the row" has "row 60000/80000"
check "... and that the index is being fetched" has "MB fetched in [0-9]+ requests, fetching"
keys k
wait_for "k is answered while that read is in flight" "row 59999/80000"
shot=$(screen)
check "... the rows still being fetched then" has "fetching the index"
wait_for "the rows fill in from the index" "^ *60000 +1500005999.900000000 "
shot=$(screen)
check "the rows are the local index's" has "^ *59999 +1500005999.800000000 "
keys 7 0 0 0 0 G
wait_for "another jump is answered at once" "row 70000/80000"
shot=$(screen)
check "... its rows being fetched" has "fetching the index"
keys Escape
wait_for "Esc stops the fetching" "stopped fetching the index"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
