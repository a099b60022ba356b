#!/bin/sh
# Screen test: a lone rosbag2 .db3 (no metadata.yaml; Python's own sqlite3
# writes it: 1,000,000 rows, three on /a for each on /b) opens without a pass
# over its messages table, so the first screen shows its topics' counts and
# rates as pending ("?"), never the open's estimate (500000 each), and its
# total as one ("~1000000"); the background pass that gives the rates then
# counts them: 750000 and 250000, 1000000 in all.
# Skipped (77) without tmux or python3.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
python3 -c '
import sqlite3, sys
d = sqlite3.connect(sys.argv[1])
d.executescript("""CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT,
  offered_qos_profiles TEXT);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
INSERT INTO topics VALUES (1, "/a", "std_msgs/msg/Int32", "cdr", "");
INSERT INTO topics VALUES (2, "/b", "std_msgs/msg/Int32", "cdr", "");""")
d.executemany("INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)",
              ((2 if i % 4 == 3 else 1, 1700000000000000000 + i * 1000000, b"\0\1\0\0" + i.to_bytes(4, "little"))
               for i in range(1000000)))
d.commit()' "$tmp/lone.db3" || exit 1
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
