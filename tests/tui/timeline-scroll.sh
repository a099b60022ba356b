#!/bin/sh
# Screen test: the timeline gives every shown topic a row with its readable
# name, scrolls when they do not all fit, keeps the selected message's topic
# in sight (pinned, marked ▶), never shows a hidden topic, takes the focus
# with Tab and grows; focused, j/k move its topic cursor, h/l the time (the
# list follows) and Enter selects the cursor topic's nearest message; the
# wheel scrolls it. example.bag (rosbag.js's) has 9 topics.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 80 24 "$bag"
wait_for "opens" "row 1/8647"
# 80x24: two topic rows of nine, the first message's topic (/rosout) marked
wait_for "two of nine topics in sight, the position said" "^ timeline 1-2/9 "
wait_for "the selected message's topic has its row, marked" "^▶/rosout  "
keys G
wait_for "G: the last message" "row 8647/8647"
want=$("$bin" cat --format json "$bag" 2>/dev/null | tail -n 1 | sed 's/^{"topic":"\([^"]*\)".*/\1/')
wait_for "its topic ($want), out of the window, is pinned on the last row" "^▶$want +[^ ]"
keys g x
wait_for "x hides /rosout" "Connections +8/9 topics shown"
wait_for "the timeline counts the shown topics only" "^ timeline [0-9]+-[0-9]+/8 "
check "and shows no row for the hidden topic" sh -c "! $T capture-pane -p -t main | grep -q '^.\\/rosout  '"
keys a g
wait_for "a shows it again" "^ timeline 1-2/9 "
wait_for "g: /rosout's message selected again" "^▶/rosout  "
# Tab: the list, the detail, then the timeline, which grows to 8 rows
keys Tab Tab
wait_for "Tab focuses the timeline; it grows" "^ timeline 1-8/9 "
wait_for "a long name whole" "^ /turtle2/color_sensor +[^ ]"
keys j j j j j j j j
wait_for "j moves its cursor down; the rows scroll (one row is /rosout's, pinned: the 1st)" "^ timeline 3-9, 1/9 "
wait_for "the last topic in sight" "^ /turtle2/pose +[^ ]"
wait_for "the selected message's topic pinned under it" "^▶/rosout +[^ ]"
keys Enter
wait_for "Enter selects that topic's nearest message" "^▶/turtle2/pose +[^ ]"
row=$(screen | sed -n 's/.* row \([0-9]*\)\/8647 .*/\1/p')
check "a /turtle2/pose row near the start ($row)" [ "${row:-9999}" -lt 100 ]
# the row number the status line shows, and whether it is past (or before) $1
row_of() { screen | sed -n 's/.* row \([0-9]*\)\/8647 .*/\1/p'; }
row_after() { r=$(row_of); [ "${r:-0}" -gt "$1" ]; }
row_before() { r=$(row_of); [ -n "$r" ] && [ "$r" -lt "$1" ]; }
for _ in 1 2 3 4 5; do
	at=$(row_of)
	keys l
	wait_until "l moves the time cursor: the list follows (past row ${at:-?})" row_after "${at:-0}"
done
after=$(row_of)
check "five steps are well past the start ($after)" [ "${after:-0}" -ge 200 ]
keys h
wait_until "h moves it back (before row $after)" row_before "${after:-0}"
keys g
wait_for "g: the first topic, the rows back at the top" "^ timeline 1-8/9 "
# the wheel over the timeline scrolls it (3 rows a notch)
mouse 65 40 21 M
wait_for "the wheel scrolls" "^ timeline 1-8/9 "
mouse 65 40 21 M; mouse 65 40 21 M; mouse 65 40 21 M
wait_for "the wheel scrolls down to the end" "^ timeline 2-9/9 "
keys Tab
wait_for "Tab on: the connections take the focus; the timeline shrinks back" "^ timeline [0-9]+-[0-9]+/9 "
check "to two rows" sh -c "$T capture-pane -p -t main | grep -Eq '^ timeline [0-9]+-[0-9]+/9 ' && [ \$($T capture-pane -p -t main | grep -Ec '^[ ▶]/[a-z]') -eq 2 ]"
keys q
wait_for "quits" "BROWSER-EXITED 0"

# 200x50: five topic rows, the label column wide enough for every name
start 200 50 "$bag"
wait_for "opens wide" "row 1/8647"
wait_for "five topic rows" "^ timeline 1-5/9 "
wait_for "names whole" "^ /turtle1/color_sensor +[^ ]"
keys q
wait_for "quits again" "BROWSER-EXITED 0"
finish
