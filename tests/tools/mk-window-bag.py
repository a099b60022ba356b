#!/usr/bin/env python3
"""mk-window-bag.py DIR - DIR/w.bag, written by Debian's python3-rosbag: 50,000
std_msgs/String messages on /s, 50 a second, in 128 KiB chunks (the remote
time-window export's bag, tests/cli/remote-window.sh)."""
import sys

import genpy
import rosbag
from std_msgs.msg import String

with rosbag.Bag(sys.argv[1] + '/w.bag', 'w', chunk_threshold=131072) as b:
    for i in range(50000):
        b.write('/s', String('%06d ' % i + 'x' * 200), genpy.Time(1500000000 + i // 50, (i % 50) * 20000000))
