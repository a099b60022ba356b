#!/bin/sh
# Screen test: a lone rosbag2 .db3 (no metadata.yaml; Python's own sqlite3
# writes it, tests/tools/mk-lone-db3.py through made-bags.sh: 1,000,000 rows,
# three on /a for each on /b) opens without a pass over its messages table,
# so the first screen shows its topics' counts and rates as pending ("?"),
# never the open's estimate (500000 each), and its total as one
# ("~1000000"); the background pass that gives the rates then counts them:
# 750000 and 250000, 1000000 in all.
# Skipped (77) without tmux or python3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
sh "$(dirname "$0")/../tools/made-bags.sh" mk-lone-db3.py "$tmp" || exit 1
start 140 40 "$tmp/lone.db3"
wait_for "first screen: /a's count and rate pending" "/a +std_msgs/msg/Int32 +\\? +\\? +1"
wait_for "first screen: /b's too" "/b +std_msgs/msg/Int32 +\\? +\\? +1"
wait_for "and the title's total as an estimate" "lone\\.db3  ~1000000 messages"
wait_for "then /a's exact count and rate" "/a +std_msgs/msg/Int32 +750000 +[0-9.]+ Hz +1"
wait_for "and /b's" "/b +std_msgs/msg/Int32 +250000 +[0-9.]+ Hz +1"
wait_for "and the title's total, exact" "lone\\.db3  1000000 messages"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
