#!/bin/sh
# Screen test: W writes the marked range of the shown topics (and the
# filter) to a bag through the library's export. Two marks, one topic
# hidden, a file name typed at the prompt; the bag written must hold exactly
# the shown topics' messages between the two marks (inclusive), read back by
# rosbag's own reader, and the status line must say so.
. "$(dirname "$0")/lib.sh"
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
[ -x "$PY" ] && "$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
out=$tmp/cut.bag
start 120 35 "$bag"
wait_for "opens" "row 1/8647"
keys W
wait_for "W without marks says what to do" "no marks: mark the first and the last message"
keys 1 0 0 j m
wait_for "first mark" "marked \(1 mark[;)]"
keys 2 0 0 0 j m
wait_for "second mark" "marked \(2 marks"
# hide /rosout: the write takes the shown topics only
keys g x
wait_for "/rosout hidden" "Connections +8/9 topics shown"
keys W
wait_for "W asks for a file name, offering one" "write the marked range .*example-[0-9]+-[0-9]+\.bag"
keys C-u
keys -l "$out"
keys Enter
wait_for "the status line says what was written" "wrote .*cut\.bag: [0-9]+ messages on [0-9]+ connections"
check "the bag is there" test -s "$out"
"$bin" cat --format json --topic /rosout "$bag" > /dev/null
check "it holds the shown topics between the marks, as rosbag reads it" "$PY" - "$bag" "$out" <<'PYEOF'
import sys, rosbag
src, cut = sys.argv[1], sys.argv[2]
rows = [(t.to_nsec(), topic) for topic, m, t in rosbag.Bag(src).read_messages()]
rows.sort(key=lambda r: r[0])
got = [(t.to_nsec(), topic) for topic, m, t in rosbag.Bag(cut).read_messages()]
t0, t1 = got[0][0], got[-1][0]
want = [r for r in rows if t0 <= r[0] <= t1 and r[1] != '/rosout']
ok = sorted(got) == sorted(want) and all(topic != '/rosout' for _, topic in got) and len(got) > 1500
sys.exit(0 if ok else 1)
PYEOF
# the marks are row 101 and row 2101 of all topics: their times bound the bag written
check "the range runs from the first mark to the last" "$PY" - "$bag" "$out" <<'PYEOF'
import sys, rosbag
rows = sorted(t.to_nsec() for _, _, t in rosbag.Bag(sys.argv[1]).read_messages())
got = [t.to_nsec() for _, _, t in rosbag.Bag(sys.argv[2]).read_messages()]
sys.exit(0 if min(got) >= rows[100] and max(got) <= rows[2100] else 1)
PYEOF
keys W
wait_for "a second W offers a name again" "write the marked range"
keys C-u
keys -l "$out"
keys Enter
wait_for "an existing file is not replaced unasked" "replace it\\? .*cut\.bag exists"
keys Escape
wait_for "Esc keeps it" "Messages +[0-9]+ shown"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
