#!/bin/sh
# Screen test: the list's time column cycles with r through epoch, relative
# and time of day ("12:26:40.500"), the time of day in UTC or, after Z, in
# local time (TZ=Asia/Tokyo here: 21:26:40.500), as the status line's date;
# tmux at 80x24, polling the screen, over a bag python3-rosbag writes
# (tests/tools/mk-columns-bags.py). Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1

START_ENV="NO_COLOR=1 TZ=Asia/Tokyo" start 80 24 "$tmp/cols.bag"
wait_for "epoch times first" '^ +2 1600000000\.500000000 '
keys r
wait_for "relative times" '^ +2 \+ ?0\.500000000 '
keys r
wait_for "times of day, UTC" '^ +2 12:26:40\.500 '
wait_for "the title says so" 'Messages .*times of day, UTC'
keys Z
wait_for "times of day, local" '^ +2 21:26:40\.500 '
wait_for "as the status line's date" '2020-09-13 21:26:40\.000 JST'
keys r
wait_for "back to epoch times" '^ +2 1600000000\.500000000 '
finish
