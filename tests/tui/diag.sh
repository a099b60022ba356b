#!/bin/sh
# Screen test: the diagnostics pane (D) in the real browser in tmux at 80x24
# (polling the screen, never a fixed sleep), over a bag python3-rosbag writes
# (tests/tools/mk-robot-bags.py): D opens it and it fills in from the scan;
# each status shows its level at the selected message's time (t jumps: the
# left motor OK, then ERROR from 12:26:55, then OK again with "worst so far
# ERROR"); the selected status opens to its changes, the one in force
# marked; j moves to the next status; Esc closes. The timeline ticks
# the cells of the WARN and ERROR changes. The levels are those
# `bagscope diag --json` gives (checked against python3-rosbag in
# tests/cli/log.sh). Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$top/tests/tools/has-modules.py" rosbag diagnostic_msgs.msg 2>/dev/null || { echo "needs python3-rosbag, python3-diagnostic-msgs: skipped"; exit 77; }
SRCDIR=$top sh "$top/tests/tools/made-bags.sh" mk-robot-bags.py "$tmp" || exit 1
bag=$tmp/diag.bag

start 80 24 "$bag"
wait_for "browser up" '/diagnostics_agg'
# the timeline's first row ticks (bold without colour) the cells where a status
# turned WARN (10.x s) and ERROR (15.x s) of the 29.3 s span, and no others
# (columns counted from the strip's start, after the label column; the first
# column holds the bag's first message, so the strip starts at a non-blank)
ticks() {
	$T capture-pane -e -p -t main | grep '^ timeline ' | "$PY" -c '
import re, sys
line = sys.stdin.read()
bold, text, cells = False, "", []
for tok in re.split("(\x1b\\[[0-9;]*m)", line.rstrip("\n")):
    if tok.startswith("\x1b["):
        for p in (tok[2:-1] or "0").split(";"):
            bold = True if p == "1" else False if p in ("0", "22") else bold
        continue
    for ch in tok:
        if bold:
            cells.append(len(text))
        text += ch
label = re.match(r" timeline( [0-9]+-[0-9]+/[0-9]+)? +", text).end()
print(80 - label, " ".join(str(c - label) for c in cells if c >= label))'
}
i=0
while [ $i -lt 600 ] && [ -z "$(ticks | cut -s -d" " -f2)" ]; do i=$((i + 1)); sleep 0.05; done
got=$(ticks)
check "timeline ticks at the WARN and ERROR changes ($got)" "$PY" -c "
w, *cells = [int(c) for c in '$got'.split()]
want = {int(10.2 / 29.3 * w), int(15.2 / 29.3 * w)}
assert want <= set(cells) and all(min(abs(c - x) for x in want) <= 1 for c in cells), (cells, want)"
keys D
wait_for "pane opens" '^ *Diagnostics: levels at the selected time'
wait_for "first status at the start: OK" '^ *> OK    motor: left \[motor_ctl_1\]  running'
wait_for "its changes under it" '^ +  1600000015\.000000500 ERROR overheat  \(temp=70\.0, current=2\.0\)'
keys t; keys -l '1600000016.6'; keys Enter
wait_for "at 12:26:56.6 the left motor is in ERROR" '^ *> ERROR motor: left \[motor_ctl_1\]  overheat'
wait_for "the change in force marked" '^ +> 1600000015\.000000500 ERROR overheat'
keys t; keys -l '1600000025'; keys Enter
wait_for "later: OK, worst so far ERROR" '^ *> OK    motor: left \[motor_ctl_1\]  running  \(worst so far ERROR\)'
keys j
wait_for "j: the next status" '^ *> OK    motor: right \[motor_ctl_1\]  running'
keys Escape
wait_for "Esc closes it" '^ *Detail'
finish
