#!/bin/sh
# Screen test: the TF pane (T) in the real browser in tmux at 80x24 (polling
# the screen, never a fixed sleep), over a bag python3-rosbag writes
# (tests/tools/mk-tf-bags.py). T opens it and it fills in from the scan:
# the tree map > odom > base_link > camera/laser, ages at the selected time,
# static frames marked; the selected edge's value and its lookup from the
# root follow the pane's cursor and the selection's time (t jumps); the
# numbers are those of `bagscope tf --lookup` (checked against tf2 in
# tests/cli/tf.sh). Esc closes it. Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-tf2-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-tf-bags.py "$tmp" || exit 1
bag=$tmp/tf_basic.bag

start 80 24 "$bag"
wait_for "browser up" '/tf_static'
keys T
wait_for "pane opens, tree filled in" '^ *TF: frames at the selected time'
wait_for "tree: children indented" '^ +camera  static'
wait_for "static frames marked" '^ +laser  static'
# the selection's time: jump to 2.5 s in (the message recorded at 1500000002.500124457)
keys t; keys -l '1500000002.5'; keys Enter
wait_for "ages at the selected message's time" '^ +odom  age 0\.000 s'
wait_for "a root marked" '^ +map  \(root\)'
wait_for "cursor on the root first" '\(a root: no parent\)'
# the cursor down to base_link (3rd tree line): its edge and its lookup from map
keys j j
at=1500000002.500124457
want=$("$bin" tf --lookup odom base_link --at $at "$bag" 2>/dev/null | awk '{ printf "xyz %.4f %.4f %.4f", $4, $5, $6 }')
wait_for "edge value of base_link, as tf --lookup" "edge base_link -> odom: $want"
want=$("$bin" tf --lookup map base_link --at $at "$bag" 2>/dev/null | awk '{ printf "xyz %.4f %.4f %.4f", $4, $5, $6 }')
wait_for "lookup from the root, as tf --lookup" "from root map: $want"
keys j j
wait_for "a static frame's edge" 'edge laser -> base_link: xyz 0\.2000 0\.0000 0\.3000'
keys Escape
wait_for "Esc closes it" '^ *Detail'
finish
