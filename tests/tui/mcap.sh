#!/bin/sh
# Screen test: the browser opens MCAP files (ros1 profile with a summary,
# ros2 profile without one, both written by npm's @mcap/core: tests/data/mcap)
# together with a bag, as one timeline: every message's row, the topics of
# all three, and ROS 2 fields decoded. Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
D=$top/tests/data
start 140 40 "$D/mcap/ros1-lz4.mcap" "$D/mcap/ros2-zstd-nosummary.mcap" "$D/fixtures/bags/basic_none.bag"
# 40 + 40 messages in the MCAP files, 23 in the bag
wait_for "one timeline over the three files" "row 1/103"
wait_for "the bag's topics beside the MCAP ones" "/greeting"
wait_for "MCAP topics" "/sample"
keys G
wait_for "the last row" "row 103/103"
# the last row is the ROS 2 file's, decoded in the detail pane (builtin_interfaces/Time's nanosec)
wait_for "ROS 2 fields decoded" "nanosec: 140000000"
wait_for "a ROS 2 bounded string" 'tag: "t29"'
keys q
finish
