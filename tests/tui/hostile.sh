#!/bin/sh
# Screen test: a bag whose topic, type, callerid and strings hold ESC
# sequences, BEL, C1 CSI, DEL, newline and tab (tests/tools/write-hostile.c) shows
# them as visible escapes, and every row stays within its pane: the counts
# after a topic are still on the topic's row, nothing retitles the window.
# Skipped (77) without tmux.
command -v tmux >/dev/null 2>&1 || { echo "tmux not installed: skipped"; exit 77; }
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BAGSCOPE:-$top/src/bagscope}
W=${WRITE_HOSTILE:-tests/tools/write-hostile}
dir=$(mktemp -d)
sock=bagscope-test-$$
T="tmux -L $sock"
passed=0 failed=0
trap '$T kill-server 2>/dev/null; rm -rf "$dir"' EXIT
"$W" "$dir" || { echo "FAIL  write-hostile"; exit 1; }

screen() { $T capture-pane -p -t main; }

# wait_for NAME PATTERN: poll the screen up to 30 s for an extended regex.
wait_for() {
	i=0
	while [ $i -lt 600 ]; do
		shot=$(screen)
		if printf '%s\n' "$shot" | grep -Eq -- "$2"; then
			passed=$((passed + 1)); printf 'ok    %s\n' "$1"; return 0
		fi
		# the browser has gone (a crash, a sanitizer's report): no use waiting
		printf '%s\n' "$shot" | grep -q "BROWSER-EXITED" && break
		i=$((i + 1)); sleep 0.05
	done
	failed=$((failed + 1)); printf 'FAIL  %s: /%s/ never appeared; the screen was:\n' "$1" "$2"
	screen | sed 's/^/      | /'
	return 1
}

keys() { $T send-keys -t main "$@"; }

$T -f /dev/null new-session -d -s main -x 100 -y 30 \
	"env TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1 '$bin' '$dir/hostile.bag'; echo BROWSER-EXITED \$?; sleep 60"
evil='/evil\\e\]0;PWNED\\a\\u009b2J'
wait_for "opens" "row 1/2"
wait_for "the topic escaped, its counts on its row" "^ \[x\] +$evil\\\\x9b\\\\x7f +evil_msgs/Str\\\\e\[2Jing +2 +2\.0 Hz +1\$"
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
