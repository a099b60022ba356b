#!/usr/bin/env python3
"""mk-lone-db3.py DIR - DIR/lone.db3: a rosbag2 SQLite file without its
metadata.yaml, written by Python's own sqlite3 (not by bagscope): 1,000,000
rows, three on /a (std_msgs/msg/Int32) for each on /b, 1 ms apart (the lone
.db3's screen test, tests/tui/rosbag2-counts.sh)."""
import sqlite3
import sys

d = sqlite3.connect(sys.argv[1] + "/lone.db3")
d.executescript("""CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT, type TEXT, serialization_format TEXT,
  offered_qos_profiles TEXT);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER, timestamp INTEGER, data BLOB);
INSERT INTO topics VALUES (1, "/a", "std_msgs/msg/Int32", "cdr", "");
INSERT INTO topics VALUES (2, "/b", "std_msgs/msg/Int32", "cdr", "");""")
d.executemany("INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)",
              ((2 if i % 4 == 3 else 1, 1700000000000000000 + i * 1000000, b"\0\1\0\0" + i.to_bytes(4, "little"))
               for i in range(1000000)))
# rosbag2's index on the timestamps, built once the rows are in (as each row went in, it took
# twice the CPU)
d.execute("CREATE INDEX timestamp_idx ON messages (timestamp ASC)")
d.commit()
