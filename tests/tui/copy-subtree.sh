#!/bin/sh
# Screen test: y on a nested message or array in the detail copies its
# subtree as YAML (OSC 52, caught by tmux's set-clipboard), the same text
# genpy (python3-rosbag's message classes, rostopic echo's layout) writes for
# that part of the message; y on a leaf still copies its value.
. "$(dirname "$0")/lib.sh"
PY=$(cd "$(dirname "$0")/../tools" && pwd)/pyref.py   # /usr/bin/python3, with rosbag imported once
"$PY" "$top/tests/tools/has-modules.py" rosbag 2>/dev/null || { echo "needs python3-rosbag: skipped"; exit 77; }
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
"$PY" - "$bag" "$tmp" <<'PYEOF'
import sys, rosbag
out = sys.argv[2]
tf = None
for i, (topic, m, _) in enumerate(rosbag.Bag(sys.argv[1]).read_messages()):
    if i == 1:
        open(out + '/header', 'w').write(str(m.header) + '\n')
    if topic == '/tf':
        tf = i + 1
        break
open(out + '/tfrow', 'w').write('%d' % tf)
open(out + '/transform', 'w').write(str(m.transforms[0].transform) + '\n')
# the array: the block under "transforms:" in the whole message's text
lines = str(m).split('\n')
block = [l[2:] for l in lines[1:]]
open(out + '/transforms', 'w').write('\n'.join(block) + '\n')
PYEOF
# copied NAME FILE: the clipboard (tmux's newest buffer) is FILE's text
copied() { $T show-buffer > "$tmp/got" 2>/dev/null; check "$1" cmp -s "$tmp/got" "$2" || diff "$tmp/got" "$2" | head; }
start 200 50 "$bag"
$T set -g set-clipboard on
wait_for "opens" "row 1/8647"
keys j
wait_for "row 2" "row 2/8647"
wait_for "its detail" "- header: std_msgs/Header"
keys Tab y
wait_for "y on header: the subtree" "copied the subtree as YAML \\($(wc -c < "$tmp/header") bytes"
copied "header's YAML is genpy's" "$tmp/header"
keys BTab t "#$(cat "$tmp/tfrow")" Enter
wait_for "a /tf message" "- transforms: geometry_msgs/TransformStamped\\[1\\]"
keys Tab y
wait_for "y on an array" "copied the subtree as YAML \\($(wc -c < "$tmp/transforms") bytes"
copied "the array's YAML is genpy's" "$tmp/transforms"
keys j j j j j j j y
wait_for "y on transforms[0].transform" "copied the subtree as YAML \\($(wc -c < "$tmp/transform") bytes"
copied "the element's field's YAML is genpy's" "$tmp/transform"
keys j j y
wait_for "y on a leaf: its value" "copied the value \\(3 bytes"
printf '4.0' > "$tmp/x"
copied "the leaf's value" "$tmp/x"
keys q
wait_for "quits" "BROWSER-EXITED 0"
finish
