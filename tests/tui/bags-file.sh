#!/bin/sh
# Screen test: with several bags each list row names its file (a titled
# "file" column of base names), the detail's title says the selected
# message's file, and the title counts the bags; bags of one name are
# numbered (1:run.bag); one bag has none of it.
# tmux at 80x24, polling the screen, over two bags python3-rosbag writes
# (tests/tools/mk-columns-bags.py). Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1

start 80 24 "$tmp/cols.bag" "$tmp/other.bag"
wait_for "the title counts the bags" '^ bagscope  2 bags  80 messages  19\.7 s  cols\.bag, other\.bag'
wait_for "a file column, titled" '^ +# time +file +topic +size +summary'
wait_for "a row of the first bag" '^ +2 1600000000\.500000000 cols\.bag +…tics_toplevel_state +30 level=0'
wait_for "a row of the second" '^ +3 1600000000\.600000000 other\.bag /other +11 data="other 0"'
keys j j
wait_for "the detail names the selected message's file" '^ Detail: decoded in other\.bag '
keys j
wait_for "and follows the selection" '^ Detail: decoded in cols\.bag '
# two bags of one name in two folders: "1:run.bag" and "2:run.bag", in the order given
mkdir "$tmp/a" "$tmp/b" && cp "$tmp/cols.bag" "$tmp/a/run.bag" && cp "$tmp/other.bag" "$tmp/b/run.bag"
start 80 24 "$tmp/a/run.bag" "$tmp/b/run.bag"
wait_for "same names told apart in the title" '^ bagscope  2 bags  80 messages  19\.7 s  1:run\.bag, 2:run\.bag'
wait_for "and in the rows" '^ +3 1600000000\.600000000 2:run\.bag /other '
start 80 24 "$tmp/cols.bag"
wait_for "one bag: its path in the title" "^ bagscope  $tmp/cols\.bag  60 messages"
wait_for "no file column" '^ +1 1600000000\.000000000 /tf +92 transforms='
wait_for "the detail's title as before" '^ Detail: decoded   \[v\]'
finish
