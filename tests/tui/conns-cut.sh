#!/bin/sh
# Screen test: the connections pane at 80 columns (tmux, polling the
# screen, never a fixed sleep) over a bag python3-rosbag writes
# (tests/tools/mk-columns-bags.py) with a long topic and type: the type
# keeps its message name and is cut with "…" in its package
# (diagnostic_msgs/DiagnosticStatus never reads as another type), the
# topic keeps its end, the rate and conns columns are whole, and the header
# row's titles end where their values end. Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg tf2_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-columns-bags.py "$tmp" || exit 1

start 80 24 "$tmp/cols.bag"
wait_for "browser up" '^ Connections'
wait_for "type cut in its package, name kept" ' \[x\] .*…/DiagnosticStatus +20 +1\.0 Hz +1$'
wait_for "topic keeps its end" ' \[x\]  …[a-z_]*toplevel_state  '
# the header's titles end in the same column as the values under them
ends() { screen | awk -v pat="$1" '$0 ~ pat { print length($0) + 1; exit }'; }
header_at() { screen | awk -v w="$1" 'index($0, "messages") && index($0, "conns") { print index($0, w) + length(w); exit }'; }
row=$(screen | grep -n '/chatter' | head -1)
check "conns ends under its title" [ "$(header_at conns)" = "$(ends '^ \[x\]  /chatter ')" ]
count_end=$(screen | awk '/^ \[x\]  \/chatter / { print index($0, " 20 ") + 3; exit }')
check "messages end under their title" [ "$(header_at messages)" = "$count_end" ]
rate_end=$(screen | awk '/^ \[x\]  \/chatter / { print index($0, "1.0 Hz") + 6; exit }')
check "rate ends under its title" [ "$(header_at rate)" = "$rate_end" ]
finish
