#!/bin/sh
# Screen test: the browser opens a rosbag2 sqlite3 file (.db3, written by
# Python's own sqlite3 module: tests/tools/db3-write.py --many) together with
# a bag, as one timeline: every row, the .db3's topics beside the bag's, and
# its last message's CDR decoded (std_msgs/msg/Int32 from message_definitions).
# Skipped (77) without tmux or python3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
python3 "$top/tests/tools/db3-write.py" --many "$tmp/rec.db3" 70000 || exit 1
start 140 40 "$tmp/rec.db3" "$top/tests/data/fixtures/bags/basic_none.bag"
# 70000 messages in the .db3 (two spans), 23 in the bag (which is older)
wait_for "one timeline over the two files" "row 1/70023"
wait_for "the bag's topics beside the .db3's" "/greeting"
wait_for "the .db3's topics" "/t3"
keys G
wait_for "the last row" "row 70023/70023"
wait_for "its CDR decoded in the detail pane" "data: 69999"
keys q
finish
