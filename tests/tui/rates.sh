#!/bin/sh
# Screen test: the connections pane's rate is bagscope's one rate
# (bag_rate_hz: n - 1 periods over the topic's first-to-last span, as
# `bagscope stats` gives it), in a unit that fits. example.bag's /rosout (10
# messages in 0.2 s) is 44.8 Hz, not rosbag's median 1.6 kHz, so sorting by
# rate puts /tf (125 Hz) first; topics whose messages share one time have no
# rate ("-"), not 0.0 Hz.
. "$(dirname "$0")/lib.sh"
D=$top/tests/data/fixtures
start 200 50 "$D/foreign/rosbag.js/example.bag"
wait_for "opens" "row 1/8647"
wait_for "/rosout at stats' rate" "/rosout +rosgraph_msgs/Log +10 +44\\.8 Hz +3"
wait_for "/tf at stats' rate" "/tf +tf/tfMessage +2688 +125\\.0 Hz +2"
keys Tab s s
wait_for "sorted by rate: /tf first" "^ \\[x\\] +/tf +tf/tfMessage"
start 200 50 "$D/made/freq_times.bag"
wait_for "opens freq_times" "row 1/72"
wait_for "/pairs: 9 messages in 0.4 s" "/pairs +std_msgs/Int32 +9 +20\\.0 Hz"
wait_for "/odd: 7 messages in 4 s" "/odd +std_msgs/Int32 +7 +1\\.5 Hz"
wait_for "/same: every message at one time, no rate" "/same +std_msgs/Int32 +5 +- +1"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
