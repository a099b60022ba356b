#!/bin/sh
# Screen test: W offers a file name no file has yet (base-T0-T1.bag, then
# base-T0-T1-2.bag once that exists), and a name typed over an existing file
# asks first: n (or Esc) keeps the file as it was, y replaces it with the
# marked range (read back by python3-rosbag).
. "$(dirname "$0")/lib.sh"
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
[ -x "$PY" ] && "$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
cd "$tmp" || exit 1           # the browser's directory: where offered names land
start 120 35 "$bag"
wait_for "opens" "row 1/8647"
keys 1 0 j m
wait_for "first mark" "marked \(1 mark[;)]"
keys 1 0 j m
wait_for "second mark" "marked \(2 marks"
keys W
wait_for "W offers a name" "write the marked range .*example-[0-9]+-[0-9]+\.bag"
file=$(screen | sed -n 's/.*\(example-[0-9]*-[0-9]*\.bag\).*/\1/p' | head -1)
keys Escape
echo "not a bag" > "$tmp/$file"
keys W
wait_for "once it exists, W offers another" "write the marked range .*${file%.bag}-2\.bag"
keys C-u
keys -l "$file"
keys Enter
wait_for "a name over an existing file asks first" "replace it\\? \\(y: yes; n, Esc: no\\): +\\($file exists\\)"
keys n Enter
wait_for "n keeps it" "not written: $file kept"
check "the file is as it was" grep -qx "not a bag" "$tmp/$file"
keys W C-u
keys -l "$file"
keys Enter
wait_for "asked again" "replace it\\?"
keys y Enter
wait_for "y replaces it" "wrote $file: 11 messages"
check "rosbag reads the 11 messages there" "$PY" -c "
import sys, rosbag
sys.exit(0 if rosbag.Bag('$tmp/$file').get_message_count() == 11 else 1)"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
