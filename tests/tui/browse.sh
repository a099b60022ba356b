#!/bin/sh
# Screen test: drive the real browser in tmux at a fixed size, as a person
# would, polling the screen for what should appear (never a fixed sleep).
# Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
bag=$top/tests/data/fixtures/foreign/rosbag.js/example.bag
start 100 30 "$bag"
wait_for "opens with the status line" "row 1/8647"
wait_for "connections pane" "Connections +9/9 topics shown"
wait_for "topics listed with counts" "/turtle1/pose +turtlesim/Pose +1344"
wait_for "message list" "Messages +8647 shown"
wait_for "first row from the index, to the nanosecond" "^ +1 1396293887.844783943 /rosout"
wait_for "summaries from the worker" "/rosout +2[0-9][0-9] level=2  name=\"/record_"
wait_for "decoded detail of the selection" "header: std_msgs/Header"
wait_for "timeline strip" "^ timeline "
# the mouse, as xterm reports it (SGR; lib.sh's mouse): press M, release m
mouse 0 10 12 M; mouse 0 10 12 m
wait_for "a click selects a row" "row 3/8647"
mouse 65 10 12 M; mouse 65 10 12 M
wait_for "the wheel scrolls" "row 9/8647"
keys g
wait_for "g goes to the first row" "row 1/8647"
keys j j
wait_for "cursor moves down" "row 3/8647"
keys BTab
wait_for "focus on the connections" "Connections +9/9"
keys o
wait_for "only /rosout shown" "1/9 topics shown"
wait_for "list filtered to /rosout" "Messages +10 shown"
keys a
wait_for "all topics back" "Messages +8647 shown"
keys Tab
keys / Spawning Enter
wait_for "search finds decoded text" "found 'Spawning' at row 16"
wait_for "search moved the selection" "row 16/8647"
keys n
wait_for "search again goes on, around the end" "found 'Spawning' at row ([2-9][0-9]|1[7-9])|found 'Spawning' at row 16 \\(the only match\\)"
keys t
wait_for "jump prompt" "jump \\(\\+10s from start"
keys "1396293900" Enter
wait_for "jumped to the time" "row [0-9]+/8647  2014-03-31 19:25:00"
keys G
wait_for "End goes to the last row" "row 8647/8647"
keys H
wait_for "hex detail" "Detail: hex"
wait_for "hex bytes" "00000000 +[0-9a-f]{2} [0-9a-f]{2}"
keys v
wait_for "connection detail" "Detail: connection"
wait_for "connection header fields" "callerid: /sim"
keys "?"
wait_for "help screen from the key table" "jump: \\+10s from the start"
keys x
wait_for "help closes" "row 8647/8647"
$T resize-window -t main -x 50 -y 10
wait_for "too small says so" "terminal too small: 50x10"
$T resize-window -t main -x 80 -y 24
wait_for "narrow: detail below the list" "^ Detail: connection"
$T resize-window -t main -x 100 -y 30
wait_for "resized back" "Connections +9/9"
keys q
wait_for "q quits cleanly" "BROWSER-EXITED 0"
finish
