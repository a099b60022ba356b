#!/bin/sh
# Screen test (issue 18): a 4-byte message that would expand to 2^32
# elements (tests/tools/write-bounds nested) shows in the detail pane as not
# decoding, at once, and q ends the browser without waiting on its worker;
# a topic holding bidirectional controls shows them escaped (\u202e).
. "$(dirname "$0")/lib.sh"
W=$tools/write-bounds
[ -x "$W" ] || { echo "write-bounds not built: skipped"; exit 77; }
"$W" nested "$tmp/nested.bag" && "$W" bidi "$tmp/bidi.bag" || { echo "FAIL  write-bounds"; exit 1; }
start 220 30 "$tmp/nested.bag"
wait_for "opens" "row 1/1"
wait_for "the detail says the message does not decode, and why" "expands to more than 65600 elements"
keys q
wait_for "q ends the browser at once" "BROWSER-EXITED 0"
start 120 30 "$tmp/bidi.bag"
wait_for "the topic's U+202E is escaped" '/bidi\\u202etxt\.exe'
check "no raw bidirectional control on the screen" sh -c "! $T capture-pane -p -t main | grep -q \"\$(printf '\\342\\200\\256')\""
keys q
wait_for "q" "BROWSER-EXITED 0"
finish
