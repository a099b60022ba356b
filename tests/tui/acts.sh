#!/bin/sh
# Screen test: keys that act on what is shown. x in the message list hides
# the selected message's topic; Enter on a topic lists its connections;
# counts before movement keys and Ctrl-D; stepping back over a gap goes to
# the message before it; a timeline click jumps; marks survive a restart.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 100 30 "$bag"
wait_for "opens" "row 1/8647"
for topic in /tf /turtle1/cmd_vel; do
	# the rate column is stats' rate (bagscope's one rate; tests/tui/rates.sh has more)
	rate=$("$bin" stats --index "$bag" | sed -n "\|^$topic  |,/rate/s|^  rate  *\(.*\)|\1|p")
	wait_for "$topic's rate column is stats' ($rate)" "^ \[x\]  $topic .* $rate +[0-9]+\$"
done
keys 5 j
wait_for "a count before j" "row 6/8647"
keys C-d
wait_for "Ctrl-D: half a page" "row (9|1[0-9])/8647"
keys g x
wait_for "x in the list hides the selected message's topic (/rosout)" "Connections +8/9 topics shown"
wait_for "its messages leave the list" "Messages +8637 shown"
keys a BTab Enter
wait_for "Enter on a topic: its connections, from every callerid" "topic /rosout: 3 connections"
wait_for "each connection with its caller" "connection [0-9]+: rosgraph_msgs/Log from /[a-z]"
keys Escape Tab
# a click on a topic's [x] (row 3, columns 1-3) hides it, a second shows it again
mouse 0 2 3 M; mouse 0 2 3 m
wait_for "a click on [x] hides the topic" "Connections +8/9 topics shown"
mouse 0 2 3 M; mouse 0 2 3 m
wait_for "a second click shows it" "Connections +9/9 topics shown"
# the mouse: a click on the timeline's right end jumps near the end
mouse 0 98 25 M; mouse 0 98 25 m
wait_for "a timeline click jumps" "row (8[0-9]{3})/8647"
keys m
wait_for "m marks" "marked \\(1 mark[;)]"
keys g u
wait_for "u goes to the mark" "row (8[0-9]{3})/8647"
keys q
wait_for "quits" "BROWSER-EXITED 0"
start 100 30 "$bag"
wait_for "restarted" "row 1/8647"
keys u
wait_for "the mark survived the restart (kept per bag content)" "row (8[0-9]{3})/8647"
wait_for "the time since the mark" "0\\.000 s after the mark"
keys q
wait_for "quits again" "BROWSER-EXITED 0"

# a gap: /a at 0, 1, 2 s and at 30, 31 s
if /usr/bin/python3 "$top/tests/tools/has-modules.py" rosbag 2>/dev/null; then
	"$top/tests/tools/pyref.py" - "$tmp/gap.bag" <<'PY'
import sys, rosbag, rospy
from std_msgs.msg import Int32
with rosbag.Bag(sys.argv[1], 'w') as b:
    for i, t in enumerate([0, 1, 2, 30, 31]):
        b.write('/a', Int32(i), rospy.Time(1600000000 + t))
PY
	start 100 30 "$tmp/gap.bag"
	wait_for "the gap bag opens" "row 1/5"
	keys G k
	wait_for "at the first message after the gap" "row 4/5"
	keys ,
	wait_for ", over the gap: the message before it" "row 3/5"
	keys G k t "<5s" Enter
	wait_for "<5s over the gap too" "row 3/5"
	keys t "+999h" Enter
	wait_for "a jump past the end clamps with a note" "row 5/5 .*after the bag's end: at the last message"
	keys t "12:26:41" Enter
	wait_for "a bare time of day is on the bag's date (UTC as shown)" "row 2/5"
	keys q
	wait_for "gap: quits" "BROWSER-EXITED 0"
fi
finish
