#!/bin/sh
# Screen test: list columns (C) are real columns: a title row ("1:level"),
# values aligned (numbers to the right, "0 (OK)" named by the definition's
# constants), shown on every row of their topic and blank on other topics'
# rows; a bare path is a field of the selected message's topic; "C -1"
# removes the first alone, "C -" all (the title row goes). tmux at 80x24,
# polling the screen, over a bag python3-rosbag writes
# (tests/tools/mk-columns-bags.py). Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1

start 80 24 "$tmp/cols.bag"
wait_for "browser up" '^ +2 1600000000\.500000000 '
keys j C
keys -l level
keys Enter
wait_for "a title row" '^ +# time +topic +size +1:level +summary'
wait_for "a value named by its constant, on its topic's row" '^ +2 1600000000\.500000000 …tics_toplevel_state +30 +0 \(OK\) level=0'
wait_for "right-aligned under its title" '^ +5 1600000001\.500000000 …tics_toplevel_state +30 1 \(WARN\) level=1'
# another topic's row: the cell is blank (spaces up to the summary)
wait_for "blank on other topics' rows" '^ +3 1600000000\.700000000 /chatter +11 {10}data="hello 0"'
# the cells of rows 2 and 5 end in the same column (numbers right-aligned)
end_of() { screen | awk -v r="$1" -v w="$2" '$1 == r { print index($0, w) + length(w); exit }'; }
check "numbers end in one column" [ "$(end_of 2 '(OK)')" = "$(end_of 5 '(WARN)')" ]
keys C
keys -l /robot/diagnostics_toplevel_state.message
keys Enter
wait_for "a second column, titled" '^ +# time +topic +size +1:level +2:message +summary'
wait_for "its string values, left-aligned" '^ +2 1600000000\.500000000 …tics_toplevel_state +30 +0 \(OK\) "step 0" +level=0'
keys C
keys -l -- -1
keys Enter
wait_for "C -1 removes the first alone" '^ +# time +topic +size +1:message +summary'
wait_for "the other stays" '^ +2 1600000000\.500000000 …tics_toplevel_state +30 "step 0" +level=0'
keys C
keys -l -- -
keys Enter
wait_for "C - removes them all, and the title row" '^ +1 1600000000\.000000000 /tf +92 transforms='
check "no title row left" sh -c "! $T capture-pane -p -t main | grep -q '^ *# time'"
finish
