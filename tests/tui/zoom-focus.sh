#!/bin/sh
# Screen test: z zooms the detail and gives it the keys: Enter folds the
# field under its cursor (before, the keys went to the hidden list), and
# Esc brings the panes back.
. "$(dirname "$0")/lib.sh"
start 100 30 "$top/tests/data/fixtures/foreign/rosbag.js/example.bag"
wait_for "opens" "row 1/8647"
wait_for "the detail shows the first message" "^ +- header: std_msgs/Header"
keys z
wait_for "z zooms the detail" "^ Detail: decoded"
keys Enter
wait_for "Enter folds the field under the zoomed detail's cursor" "^ +\\+ header: std_msgs/Header"
keys Escape
wait_for "Esc: the panes again" "Connections +9/9"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
