#!/usr/bin/env python3
"""mk-chunks-bag.py DIR - DIR/chunks.bag, written by Debian's python3-rosbag:
80,000 std_msgs/Int64 messages on /n, 10 a second, in 4 KiB chunks (many
chunks and index records to fetch: the remote screen tests,
tests/tui/remote-lib.sh)."""
import sys

import genpy
import rosbag
from std_msgs.msg import Int64

with rosbag.Bag(sys.argv[1] + '/chunks.bag', 'w', chunk_threshold=4096) as b:
    for i in range(80000):
        b.write('/n', Int64(i), genpy.Time(1500000000 + i // 10, (i % 10) * 100000000))
