#!/bin/sh
# Screen test: a bag whose topic, type, callerid and strings hold ESC
# sequences, BEL, C1 CSI, DEL, newline and tab (tests/tools/write-hostile.c) shows
# them as visible escapes, and every row stays within its pane: the counts
# after a topic are still on the topic's row, nothing retitles the window.
# Skipped (77) without tmux.
. "$(dirname "$0")/lib.sh"
W=${WRITE_HOSTILE:-tests/tools/write-hostile}
"$W" "$tmp" || { echo "FAIL  write-hostile"; exit 1; }
start 100 30 "$tmp/hostile.bag"
evil='/evil\\e\]0;PWNED\\a\\u009b2J'
wait_for "opens" "row 1/2"
wait_for "the topic escaped, its counts on its row" "^ \[x\] +$evil\\\\x9b\\\\x7f(\\\\n\\\\ttopic)? +evil_msgs/Str\\\\e\[2Jing +2 +2\.0 Hz +1\$"
wait_for "the list row keeps its columns (the topic's escaped tail)" "^ +1 1500000000\.000000000 …[^ ]*\\\\x9b\\\\x7f\\\\n\\\\ttopic +67 data="
wait_for "decoded strings escaped" '\[1\]: "nel\\u0085csi\\u009b"'
wait_for "the status line stays at the bottom" "^ hostile\.bag +row 1/2"
keys v v
wait_for "connection detail: the topic on one line" "topic: $evil\\\\x9b\\\\x7f\\\\n\\\\ttopic  \(connection 0\)"
wait_for "callerid escaped" 'callerid: /node\\e\[31m\\x9b\\a$'
keys Tab G
wait_for "definition text escaped" '# comment \\e\]0;PWNED\\a\\u009b2J\\x9b\\x7f end'
title=$($T display -p -t main '#{pane_title}')
case $title in
*PWNED*) failed=$((failed + 1)); echo "FAIL  the window title was changed to '$title'" ;;
*) passed=$((passed + 1)); echo "ok    the window title is untouched" ;;
esac
keys q
wait_for "q quits cleanly" "BROWSER-EXITED 0"
finish
