#!/bin/sh
# Screen test: what the timeline draws over the bag's span, on its events
# row (under the summed strip, once there is something to draw): the
# search's matches (◆) as n finds them,
# marks (▼) where they are, and while a filter is on a row of the filter's
# density, its count cat --filter's. Columns are counted from the strip's
# start: the first message's column is 0, the last one's the last.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 80 24 "$bag"
wait_for "opens" "row 1/8647"
check "no events row while there is nothing to draw" sh -c "! $T capture-pane -p -t main | grep -q '^ ▼mark'"
# the last /rosout message (row 8603 of 8647) is near the end of the span
keys / "Spawning" Enter
wait_for "a search finds" "found 'Spawning' at row 16 "
wait_for "its match is drawn near the start" "^ ▼mark ◆hit ✖bad +◆ *$"
keys G m
wait_for "m marks the last message" "^ ▼mark ◆hit ✖bad +◆ +▼$"
keys g m
wait_for "and the first: a mark wins over a hit in its column" "^ ▼mark ◆hit ✖bad +▼ +▼$"
keys m
wait_for "m again unmarks it: the hit shows again" "^ ▼mark ◆hit ✖bad +◆ +▼$"
n=$("$bin" cat --count --filter 'x > 7' "$bag")
keys "&" "x > 7" Enter
wait_for "a filter: the filter's count" "Messages +$n of 8647 match the filter: x > 7"
wait_for "its row in the timeline, with its count" "^ filter $n +[^ ]"
# its strip is not blank exactly in the columns of cat --filter's messages' times
"$bin" info "$bag" >/dev/null
"$bin" cat --format json --filter 'x > 7' "$bag" | sed 's/.*"time_ns":\([0-9]*\).*/\1/' >"$tmp/times"
"$bin" cat --format json "$bag" | sed -n '1s/.*"time_ns":\([0-9]*\).*/\1/p;$s/.*"time_ns":\([0-9]*\).*/\1/p' >"$tmp/span"
screen >"$tmp/screen"
check "the filter's strip has a mark where its messages are, and only there" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().split("\n")
first = next(l for l in lines if l.startswith(" timeline"))
label = re.match(r" timeline( [0-9]+-[0-9]+/[0-9]+)? +", first).end()
strip = next(l for l in lines if l.startswith(" filter "))[label:].ljust(80 - label)
w = len(strip)
start, end = (int(t) for t in open(sys.argv[3]).read().split())
want = {min(w - 1, int((int(t) - start) / (end - start) * w)) for t in open(sys.argv[2]).read().split()}
got = {i for i, c in enumerate(strip) if c != " "}
assert got == want, (sorted(got ^ want), w)' "$tmp/screen" "$tmp/times" "$tmp/span"
keys "&" C-u Enter
wait_for "the filter off" "Messages +8647 shown"
check "its row goes" sh -c "! $T capture-pane -p -t main | grep -q '^ filter '"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
