#!/bin/sh
# Screen test: the detail tree names the constant an integer field's value
# stands for, from the message's own definition: DiagnosticStatus's level
# 0 (OK), 1 (WARN), 2 (ERROR), 3 (STALE) as diagnostic_msgs declares them;
# a field without constants (a /tf header's seq) shows its value alone. tmux at 80x24, polling
# the screen, over a bag python3-rosbag writes (tests/tools/mk-columns-bags.py).
# Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1

start 80 24 "$tmp/cols.bag"
wait_for "browser up" '^ Messages'
keys j
wait_for "level 0 is OK" '^ +level: 0 \(OK\)$'
keys j j j
wait_for "level 1 is WARN" '^ +level: 1 \(WARN\)$'
keys j j j
wait_for "level 2 is ERROR" '^ +level: 2 \(ERROR\)$'
keys j j j
wait_for "level 3 is STALE" '^ +level: 3 \(STALE\)$'
wait_for "a string field as it is" '^ +name: "motor"$'
keys j j z
wait_for "seq has no constants" '^ +seq: 0$'
finish
