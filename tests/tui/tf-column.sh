#!/bin/sh
# Screen test: a tf(TARGET,SOURCE).FIELD column (C) is on every row, whatever
# its topic, evaluated at the row's time once the transform buffer is built
# in the background (the TF pane's, not opened): map -> base_link's
# translation.x at each row's time is what `bagscope tf --lookup` gives
# there (checked against tf2 in tests/cli/tf.sh); a lookup past the data is
# "-". tmux at 80x24, polling the screen, over a bag python3-rosbag writes
# (tests/tools/mk-columns-bags.py). Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1
bag=$tmp/cols.bag
x_at() { "$bin" tf --lookup map base_link --at "$1" "$bag" 2>/dev/null | awk '{ printf "%.6g", $4 }'; }

start 80 24 "$bag"
wait_for "browser up" '^ +2 1600000000\.500000000 '
keys C
keys -l 'tf(map,base_link).translation.x'
keys Enter
wait_for "titled" '^ +# time +topic +size +1:tf base_link\.x +summary'
wait_for "a /tf row" "^ +1 1600000000\.000000000 /tf +92 +$(x_at 1600000000.0) transforms"
wait_for "a DiagnosticStatus row, at its time" "^ +2 1600000000\.500000000 …tics_toplevel_state +30 +$(x_at 1600000000.5) level"
wait_for "a /chatter row, at its time" "^ +3 1600000000\.700000000 /chatter +11 +$(x_at 1600000000.7) data"
check "the values differ by row" [ "$(x_at 1600000000.5)" != "$(x_at 1600000000.7)" ]
# past the last transform (19 s): tf2 would extrapolate, so the cell is "-"
keys G
wait_for "past the data: missing" '^ +60 1600000019\.700000000 /chatter +12 +- data'
check "the TF pane did not open" sh -c "! $T capture-pane -p -t main | grep -q '^ *TF'"
finish
