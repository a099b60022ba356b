#!/bin/sh
# Screen test: the rosout pane (E) in the real browser in tmux at 80x24
# (polling the screen, never a fixed sleep), over a bag python3-rosbag writes
# (tests/tools/mk-robot-bags.py: /rosout with every level, each message again
# on /rosout_agg). E opens it and it fills in from the scan: 401 messages
# (the /rosout_agg copies once); e / E go to the next and previous error and
# the message list follows (the selected row's time); w to the next warning;
# + raises the minimum level (and - lowers it); x hides the cursor's node,
# a shows all; / (the list's search) moves the list and the pane follows;
# Esc closes. The lines and counts are those of
# `bagscope log` (checked against python3-rosbag in tests/cli/log.sh).
# Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-robot-bags.py "$tmp" || exit 1
bag=$tmp/log.bag
n=$("$bin" log "$bag" | grep -c '^2020')
errors=$("$bin" log --level error "$bag" | grep -c '^2020')

start 80 24 "$bag"
wait_for "browser up" '/rosout_agg'
keys E
wait_for "pane opens with every message once" "^ *Rosout: $n of $n, level DEBUG\+"
wait_for "the first line, one column in as in the other panes: stamp, level, node, text" '^ 1600000000\.000000017 DEBUG \[/controller\] line one of 0 line two'
keys e
wait_for "e: the next error" '^ *1600000000\.075000017 ERROR \[/controller\] step 3'
wait_for "the list follows to its record time" 'row [0-9]+/[0-9]+ +2020-09-13 12:26:40\.075'
keys w
wait_for "w: the next warning" '^ *1600000000\.250000017 WARN  \[/planner\] step 10'
keys E
wait_for "E: the previous error (or worse)" '^ *1600000000\.100000017 FATAL \[/planner\] step 4'
keys + + +
wait_for "+ +: error and worse" "^ *Rosout: $errors of $n, level ERROR\+"
keys x
hidden=$("$bin" log --level error --node '^/planner$' "$bag" | grep -c '^2020')
wait_for "x hides the cursor's node (/planner)" "^ *Rosout: $((errors - hidden)) of $n, level ERROR\+"
check "its lines are gone" sh -c "! $T capture-pane -p -t main | grep -q '\[/planner\]'"
keys a -
wait_for "a shows all nodes, - lowers the level" "^ *Rosout: [0-9]+ of $n, level WARN\+"
keys / ; keys -l 'step 123'; keys Enter
wait_for "/ (the list's search) finds a log text: the list there" "found 'step 123' at row [0-9]+ +2020-09-13 12:26:43\.075"
wait_for "and the pane follows it" '^ *1600000003\.075000017 (INFO |WARN |DEBUG|ERROR|FATAL|\?    ) \[/controller\] step 123'
keys Escape
wait_for "Esc closes it" '^ *Detail'
finish
